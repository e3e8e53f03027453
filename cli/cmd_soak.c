/*
 * cli/cmd_soak.c: `pwtune soak`, the long-running hash/verify loop users
 * know from the Jargon2 examples: N threads hash and verify for --runtime
 * seconds while the main thread prints a CSV line every --collect-stats
 * seconds, then the totals and the RSS trend per hour.
 *
 * CSV columns: T (elapsed ms), C (hash/verify pairs so far), %CPU (of one
 * core, over the interval), RSS (as it stands, in-flight hashes included),
 * RSSidle (KiB, with every thread paused between two hashes: what the
 * process holds besides Argon2's working memory), PeakRSS (KiB), FDs,
 * Threads.
 *
 * At each collection the threads finish the hash they are in and wait
 * while RSSidle is read, so a leak cannot hide behind the memory of hashes
 * in flight. The trend is the least-squares slope of RSSidle over time,
 * leaving out the first interval (start-up). Argon2 memory is mmap'd per
 * hash, so it goes back to the OS whatever m is: RSSidle should be flat.
 */
#include <sys/resource.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "units.h"

#define SOAK_THREADS_MAX	64
#define SOAK_ROWS_MAX		100000

struct soak_opts {
	struct kdf_params	kp;
	uint32_t		threads;
	uint32_t		runtime;	/* seconds */
	uint32_t		collect;	/* seconds */
};

struct soak_shared {
	const struct soak_opts	*o;
	atomic_int		 stop;
	atomic_ullong		 count;
	atomic_int		 failed;
	char			 err[256];
	pthread_mutex_t		 lock;		/* err, pause, paused */
	pthread_cond_t		 cond;
	int			 pause;		/* main asks threads to wait */
	int			 paused;	/* threads waiting */
};

static volatile sig_atomic_t	soak_interrupted;

static void
soak_on_signal(int sig)
{
	(void)sig;
	soak_interrupted = 1;
}

static void
soak_usage(FILE *fp)
{
	fputs(
"Usage: pwtune soak [--threads N] [--runtime SECONDS]\n"
"                   [--collect-stats SECONDS] [-t N] [-p N]\n"
"                   [-m LOG2KIB | -k KiB | --memory SIZE]\n"
"                   [--type i|d|id] [--backend libargon2|libsodium]\n"
"N threads (default 2) hash and verify in a loop for --runtime seconds\n"
"(default 60), printing a CSV line every --collect-stats seconds (default\n"
"10): T,C,%CPU,RSS,RSSidle,PeakRSS,FDs,Threads. Then the totals and the\n"
"RSS trend per hour. Defaults: Argon2id, m = 19 MiB, t = 2, p = 1.\n"
"-m N is 2^N KiB (as in argon2), -k N is N KiB, --memory takes a size\n"
"(19MiB). Exit status: 0 ok, 1 a hash did not verify, 2 bad usage,\n"
"3 not enough memory, a library error, or interrupted.\n",
	    fp);
}

#define SOAK	"soak"

/* Returns 0, 1 for help, or -1 after saying why. */
static int
soak_parse(int argc, char **argv, struct soak_opts *o)
{
	const char	*a, *v, *eq;
	char		 name[64];
	uint64_t	 kib;
	int		 i;

	memset(o, 0, sizeof(*o));
	kdf_params_init(&o->kp, KDF_ALG_ARGON2ID);
	o->kp.m_kib = 19456;
	o->kp.t = 2;
	o->kp.p = 1;
	o->threads = 2;
	o->runtime = 60;
	o->collect = 10;
	for (i = 1; i < argc; i++) {
		a = cli_opt(argv[i], name, sizeof(name), &eq);
		if (cli_is_help(a) && cli_no_value(SOAK, a, eq) == -1)
			return -1;
		if (cli_is_help(a))
			return 1;
		v = eq != NULL ? eq : i + 1 < argc ? argv[++i] : NULL;
		if (strcmp(a, "--threads") == 0 ||
		    strcmp(a, "--javaThreads") == 0) {
			if (cli_flag_u32(SOAK, a, v, 1, SOAK_THREADS_MAX, NULL,
			    &o->threads) == -1)
				return -1;
		} else if (strcmp(a, "--runtime") == 0) {
			if (cli_flag_u32(SOAK, a, v, 1, 30 * 86400, "seconds",
			    &o->runtime) == -1)
				return -1;
		} else if (strcmp(a, "--collect-stats") == 0 ||
		    strcmp(a, "--collectStats") == 0) {
			if (cli_flag_u32(SOAK, a, v, 1, 86400, "seconds",
			    &o->collect) == -1)
				return -1;
		} else if (strcmp(a, "-m") == 0) {
			if (cli_flag_log2(SOAK, a, v, &kib) == -1)
				return -1;
			o->kp.m_kib = (uint32_t)kib;
		} else if (strcmp(a, "--memory") == 0) {
			if (cli_flag_size(SOAK, a, v, KDF_ARGON2_M_MAX,
			    &kib) == -1)
				return -1;
			o->kp.m_kib = (uint32_t)kib;
		} else if (strcmp(a, "--memoryCost") == 0 ||
		    strcmp(a, "--memory-cost") == 0 || strcmp(a, "-k") == 0) {
			if (cli_flag_u32(SOAK, a, v, 1, KDF_ARGON2_M_MAX, "KiB",
			    &o->kp.m_kib) == -1)
				return -1;
		} else if (strcmp(a, "-t") == 0 ||
		    strcmp(a, "--timeCost") == 0 ||
		    strcmp(a, "--time-cost") == 0) {
			if (cli_flag_u32(SOAK, a, v, 1, KDF_ARGON2_T_MAX,
			    "passes", &o->kp.t) == -1)
				return -1;
		} else if (strcmp(a, "-p") == 0 ||
		    strcmp(a, "--parallelism") == 0) {
			if (cli_flag_u32(SOAK, a, v, 1, KDF_ARGON2_P_MAX,
			    "lanes", &o->kp.p) == -1)
				return -1;
		} else if (strcmp(a, "--type") == 0) {
			if (v == NULL || kdf_alg_parse(v, &o->kp.alg) == -1 ||
			    !kdf_alg_is_argon2(o->kp.alg))
				return cli_bad_value(SOAK, a, v, "i, d or id");
		} else if (strcmp(a, "--backend") == 0) {
			if (v == NULL ||
			    kdf_backend_parse(v, &o->kp.backend) == -1 ||
			    o->kp.backend == KDF_BACKEND_LIBCRYPT)
				return cli_bad_value(SOAK, a, v,
				    "libargon2, libsodium or auto");
		} else
			return cli_usage_error(SOAK, "unknown option %.60s", a);
	}
	return 0;
}

static void *
soak_worker(void *arg)
{
	struct soak_shared	*sh = arg;
	struct kdf_input	 in;
	uint8_t			 pwd[12], salt[16];
	char			 enc[KDF_ENCODED_MAX + 1], err[256];
	int			 v;

	in = (struct kdf_input){ pwd, sizeof(pwd), salt, sizeof(salt), NULL,
	    0, NULL, 0 };
	while (!atomic_load(&sh->stop)) {
		pthread_mutex_lock(&sh->lock);
		while (sh->pause && !atomic_load(&sh->stop)) {
			sh->paused++;
			pthread_cond_broadcast(&sh->cond);
			pthread_cond_wait(&sh->cond, &sh->lock);
			sh->paused--;
		}
		pthread_mutex_unlock(&sh->lock);
		randombytes_buf(pwd, sizeof(pwd));
		randombytes_buf(salt, sizeof(salt));
		if (kdf_hash(&sh->o->kp, &in, NULL, enc, sizeof(enc), err,
		    sizeof(err)) == -1)
			v = KDF_VERIFY_ERROR;
		else
			v = kdf_verify(enc, &in, sh->o->kp.backend, err,
			    sizeof(err));
		if (v != KDF_VERIFY_OK) {
			pthread_mutex_lock(&sh->lock);
			snprintf(sh->err, sizeof(sh->err), "%s",
			    v == KDF_VERIFY_MISMATCH ? "a hash did not verify" :
			    err);
			atomic_store(&sh->failed, 1);
			atomic_store(&sh->stop, 1);
			pthread_cond_broadcast(&sh->cond);
			pthread_mutex_unlock(&sh->lock);
			break;
		}
		atomic_fetch_add(&sh->count, 1);
	}
	sodium_memzero(pwd, sizeof(pwd));
	return NULL;
}

/* VmRSS, VmHWM (KiB) and Threads from /proc/self/status. */
static void
soak_status(unsigned long *rss, unsigned long *hwm, int *threads)
{
	char	 line[256];
	FILE	*fp;

	*rss = *hwm = 0;
	*threads = 0;
	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		sscanf(line, "VmRSS: %lu", rss);
		sscanf(line, "VmHWM: %lu", hwm);
		sscanf(line, "Threads: %d", threads);
	}
	fclose(fp);
}

static int
soak_fds(void)
{
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* less the descriptor of the listing itself */
}

/*
 * Pause the n running threads between two hashes, read RSS, let them go.
 * Returns the idle RSS in KiB, or the current RSS if they did not all stop
 * within 60 s (a hash longer than that).
 */
static unsigned long
soak_idle_rss(struct soak_shared *sh, uint32_t n)
{
	struct timespec	deadline;
	unsigned long	rss, hwm;
	int		threads;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 60;
	pthread_mutex_lock(&sh->lock);
	sh->pause = 1;
	while (sh->paused < (int)n && !atomic_load(&sh->stop))
		if (pthread_cond_timedwait(&sh->cond, &sh->lock,
		    &deadline) != 0)
			break;
	soak_status(&rss, &hwm, &threads);
	sh->pause = 0;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	return rss;
}

static double
soak_cpu_seconds(void)
{
	struct rusage	ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void
soak_clock(char *buf, size_t len, time_t t)
{
	struct tm	tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

int
cmd_soak(int argc, char **argv)
{
	struct soak_opts	 o;
	struct soak_shared	 sh;
	pthread_t		 tids[SOAK_THREADS_MAX];
	struct sigaction	 sa;
	double			 t0, next, now, cpu0, cpu_last, t_last;
	double			*row_t = NULL, *row_idle = NULL;
	double			 sx = 0, sy = 0, sxx = 0, sxy = 0, slope = 0;
	unsigned long		 rss, hwm, idle, first_idle = 0;
	unsigned long		 last_idle = 0;
	size_t			 rows = 0, i;
	uint32_t		 started = 0;
	char			 err[256], c0[16], c1[16];
	int			 threads, rc = CLI_EXIT_ENV;

	switch (soak_parse(argc, argv, &o)) {
	case 1:
		soak_usage(stdout);
		return CLI_EXIT_OK;
	case -1:
		return CLI_EXIT_USAGE;
	}
	{
		uint8_t			salt[16] = { 0 };
		struct kdf_input	in = { (const uint8_t *)"x", 1, salt,
					    16, NULL, 0, NULL, 0 };

		if (kdf_params_check(&o.kp, &in, err, sizeof(err)) == -1) {
			cli_warnx("soak: %s", err);
			return CLI_EXIT_USAGE;
		}
	}
	if (cli_check_memory(kdf_params_memory(&o.kp) * o.threads, err,
	    sizeof(err)) == -1) {
		cli_warnx("soak: %u threads: %s", (unsigned)o.threads, err);
		return CLI_EXIT_ENV;
	}
	if ((row_t = calloc(SOAK_ROWS_MAX, sizeof(double))) == NULL ||
	    (row_idle = calloc(SOAK_ROWS_MAX, sizeof(double))) == NULL) {
		cli_warnx("soak: out of memory");
		goto done;
	}
	memset(&sh, 0, sizeof(sh));
	sh.o = &o;
	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.cond, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = soak_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	printf("--------------------------------------------------\n");
	printf("Configuration\n");
	printf("--------------------------------------------------\n");
	printf("Backend:            %s\n", kdf_backend_name(
	    kdf_backend_resolve(o.kp.backend, o.kp.alg)));
	printf("Runtime:            %u seconds\n", (unsigned)o.runtime);
	printf("Collect stats:      every %u seconds\n", (unsigned)o.collect);
	printf("Threads:            %u\n", (unsigned)o.threads);
	printf("Type:               %s\n", kdf_alg_title(o.kp.alg));
	printf("Version:            v%x\n", (unsigned)o.kp.version);
	printf("Memory cost:        %u KB\n", (unsigned)o.kp.m_kib);
	printf("Time cost:          %u passes\n", (unsigned)o.kp.t);
	printf("Parallelism:        %u lanes/threads\n", (unsigned)o.kp.p);
	printf("--------------------------------------------------\n");
	soak_clock(c0, sizeof(c0), time(NULL));
	soak_clock(c1, sizeof(c1), time(NULL) + (time_t)o.runtime);
	printf("[%s] Pid: %d. Estimated completion before %s\n\n", c0,
	    (int)getpid(), c1);
	printf("T,C,%%CPU,RSS,RSSidle,PeakRSS,FDs,Threads\n");
	fflush(stdout);

	t0 = t_last = cli_now();
	cpu0 = cpu_last = soak_cpu_seconds();
	soak_status(&rss, &hwm, &threads);
	printf("0,0,0,%lu,%lu,%lu,%d,%d\n", rss, rss, hwm, soak_fds(), threads);
	fflush(stdout);
	for (started = 0; started < o.threads; started++)
		if (pthread_create(&tids[started], NULL, soak_worker, &sh) != 0) {
			cli_warnx("soak: cannot start thread %u",
			    (unsigned)started);
			atomic_store(&sh.stop, 1);
			goto join;
		}

	next = t0 + o.collect;
	while (!atomic_load(&sh.stop)) {
		usleep(100000);
		now = cli_now();
		if (soak_interrupted || now - t0 >= o.runtime)
			atomic_store(&sh.stop, 1);
		if (atomic_load(&sh.stop))
			break;
		if (now < next)
			continue;
		soak_status(&rss, &hwm, &threads);
		idle = soak_idle_rss(&sh, started);
		{
			double	cpu = soak_cpu_seconds();

			printf("%.0f,%llu,%.0f,%lu,%lu,%lu,%d,%d\n",
			    (now - t0) * 1000,
			    (unsigned long long)atomic_load(&sh.count),
			    now > t_last ? 100 * (cpu - cpu_last) /
			    (now - t_last) : 0, rss, idle, hwm, soak_fds(),
			    threads);
			fflush(stdout);
			cpu_last = cpu;
		}
		if (rows < SOAK_ROWS_MAX) {
			row_t[rows] = now - t0;
			row_idle[rows] = (double)idle;
			rows++;
		}
		t_last = now;
		next += o.collect;
	}
join:
	pthread_mutex_lock(&sh.lock);
	pthread_cond_broadcast(&sh.cond);
	pthread_mutex_unlock(&sh.lock);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	/* The last line: every thread has finished, nothing is in flight. */
	now = cli_now();
	soak_status(&rss, &hwm, &threads);
	printf("%.0f,%llu,%.0f,%lu,%lu,%lu,%d,%d\n", (now - t0) * 1000,
	    (unsigned long long)atomic_load(&sh.count), now > t_last ?
	    100 * (soak_cpu_seconds() - cpu_last) / (now - t_last) : 0, rss,
	    rss, hwm, soak_fds(), threads);

	/* The trend leaves out the first interval: start-up. */
	for (i = 1; i < rows; i++) {
		sx += row_t[i] / 3600;
		sy += row_idle[i];
		sxx += (row_t[i] / 3600) * (row_t[i] / 3600);
		sxy += (row_t[i] / 3600) * row_idle[i];
	}
	if (rows > 2) {
		double	nn = (double)(rows - 1);

		slope = (nn * sxy - sx * sy) / (nn * sxx - sx * sx);
		if (slope > -0.5 && slope < 0.5)
			slope = 0;
		first_idle = (unsigned long)row_idle[1];
		last_idle = (unsigned long)row_idle[rows - 1];
	}
	soak_clock(c0, sizeof(c0), time(NULL));
	printf("\n[%s] Executed %llu hash/verify in %.0fs (%.1f per second, "
	    "%.0f%% CPU).\n", c0, (unsigned long long)atomic_load(&sh.count),
	    cli_now() - t0, (double)atomic_load(&sh.count) /
	    (cli_now() - t0), 100 * (soak_cpu_seconds() - cpu0) /
	    (cli_now() - t0));
	if (rows > 2)
		printf("RSS when idle: %lu KiB after the first interval, %lu "
		    "KiB at the end; trend %+.0f KiB per hour\n", first_idle,
		    last_idle, slope);
	else
		printf("RSS trend: too few intervals (run longer than two "
		    "--collect-stats periods)\n");
	if (atomic_load(&sh.failed)) {
		cli_warnx("soak: %s", sh.err);
		if (strcmp(sh.err, "a hash did not verify") == 0)
			rc = CLI_EXIT_NO;
		goto done;
	}
	rc = soak_interrupted ? CLI_EXIT_ENV : CLI_EXIT_OK;
done:
	free(row_t);
	free(row_idle);
	return rc;
}
