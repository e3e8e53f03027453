/*
 * engine/measure.c: running points in child processes and summarising
 * their latencies (see measure.h for the protocol and the rules).
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "measure.h"

/*
 * Under ASan: no RLIMIT_AS (ASan reserves terabytes of address space), and
 * libargon2's memory stays mmap'd per hash: ASan's malloc keeps what is
 * freed in quarantine (256 MiB), which a cgroup's budget does not hold.
 */
#if defined(__SANITIZE_ADDRESS__)
#define MEASURE_RLIMIT_AS	0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEASURE_RLIMIT_AS	0
#endif
#endif
#ifndef MEASURE_RLIMIT_AS
#define MEASURE_RLIMIT_AS	1
#endif

#define CHILD_FD		3	/* the child's end of its socket */
#define CHILD_HEADROOM		(UINT64_C(256) << 20)	/* code, stacks, libs */
#define CHILD_OK		0
#define CHILD_ERROR		1
#define CHILD_ENOMEM		2

/* What a child sends back after each hash. */
struct child_report {
	double	ms;
	int32_t	status;
	char	err[200];
};

double
measure_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *
measure_status_name(enum measure_status s)
{
	static const char *const names[] = {
		"ok", "skipped", "failed", "oom", "killed", "crashed",
		"timeout", "cancelled"
	};

	return (size_t)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

void
measure_opts_init(struct measure_opts *o, int cpus)
{
	memset(o, 0, sizeof(*o));
	o->min_samples = 5;
	o->max_samples = 50;
	o->max_rel_error = 0.02;
	o->point_budget = 10;
	o->timeout = 120;
	o->warmup_rounds = 1;
	o->noise_cv = 0.10;
	o->noise_steal = 5;
	o->noise_runnable = cpus / 2 > 1 ? cpus / 2 : 1;
	o->remeasure_noisy = 1;
}

void
measure_result_release(struct measure_result *r)
{
	free(r->samples);
	r->samples = NULL;
	r->nsamples = 0;
}

/* 1-minute load and the runnable tasks of others, from /proc/loadavg. */
static void
measure_load(double *load, int *runnable)
{
	FILE	*fp;
	int	 run = 0, total = 0;

	*load = 0;
	*runnable = 0;
	if ((fp = fopen("/proc/loadavg", "r")) == NULL)
		return;
	if (fscanf(fp, "%lf %*f %*f %d/%d", load, &run, &total) >= 2)
		*runnable = run > 0 ? run - 1 : 0;	/* less ourselves */
	fclose(fp);
}

/* Total and steal jiffies from the first line of /proc/stat. */
static void
measure_cpu_jiffies(unsigned long long *total, unsigned long long *steal)
{
	unsigned long long	v[8] = { 0 };
	FILE			*fp;
	int			 i;

	*total = *steal = 0;
	if ((fp = fopen("/proc/stat", "r")) == NULL)
		return;
	if (fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
	    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (i = 0; i < 8; i++)
			*total += v[i];
		*steal = v[7];
	}
	fclose(fp);
}

/*
 * The child: wait for a byte, hash, report, until the socket closes. It
 * never returns.
 */
static void __attribute__((noreturn))
measure_child(const struct kdf_params *kp, uint64_t as_limit)
{
	static const uint8_t	 salt[16] = "pwtune-measure!!";
	static const char	 pwd[] = "correct horse battery staple";
	struct kdf_input	 in = { (const uint8_t *)pwd, sizeof(pwd) - 1,
				    salt, sizeof(salt), NULL, 0, NULL, 0 };
	struct child_report	 rep;
	struct rlimit		 rl;
	sigset_t		 all;
	uint8_t			 out[KDF_HASH_MAX];
	char			 enc[KDF_ENCODED_MAX + 1], cmd;
	double			 t0;
	ssize_t			 n;
	int			 rc;

	/* Default signals; die with the parent. */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* libargon2's memory as its clients take it (engine/kdf_argon2.c). */
	kdf_argon2_libc_memory(MEASURE_RLIMIT_AS);
	if (as_limit > 0 && MEASURE_RLIMIT_AS) {
		rl.rlim_cur = rl.rlim_max = as_limit;
		setrlimit(RLIMIT_AS, &rl);
	}

	for (;;) {
		n = read(CHILD_FD, &cmd, 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n != 1)
			_exit(0);
		memset(&rep, 0, sizeof(rep));
		t0 = measure_now();
		/* bcrypt has no raw form: ask for the string instead. */
		if (kp->alg == KDF_ALG_BCRYPT)
			rc = kdf_hash(kp, &in, NULL, enc, sizeof(enc), rep.err,
			    sizeof(rep.err));
		else
			rc = kdf_hash(kp, &in, out, NULL, 0, rep.err,
			    sizeof(rep.err));
		rep.ms = (measure_now() - t0) * 1000;
		if (rc != 0)
			rep.status = strcasestr(rep.err, "memory") != NULL ?
			    CHILD_ENOMEM : CHILD_ERROR;
		if (write(CHILD_FD, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
			_exit(1);
		if (rc != 0)
			_exit(3);
	}
}

struct measure_run {
	const struct measure_opts	*o;
	const struct measure_point	*pt;
	pid_t				 pids[MEASURE_K_MAX];
	int				 fds[MEASURE_K_MAX];
	size_t				 k;
	struct measure_progress		*prog;
};

static uint64_t
measure_vm_size(void)
{
	FILE		*fp;
	unsigned long	 pages = 0;

	if ((fp = fopen("/proc/self/statm", "r")) == NULL)
		return 0;
	if (fscanf(fp, "%lu", &pages) != 1)
		pages = 0;
	fclose(fp);
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * In a child between fork() and its work: close every descriptor from low
 * up. close_range(2) where the kernel has it (5.9) and no seccomp filter
 * refuses it; otherwise one by one, as /proc/self/fd lists them (read with
 * getdents64 into a buffer on the stack: nothing here may allocate, another
 * thread of the parent may have held malloc's lock at the fork), or, with
 * no /proc, every number under the descriptor limit.
 */
void
measure_close_from(int low)
{
	struct rlimit	 rl;
	char		 buf[4096];
	long		 n, off;
	int		 dir, fd, closed;

	if (close_range((unsigned)low, ~0U, 0) == 0)
		return;
	if ((dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) != -1) {
		do {
			closed = 0;
			lseek(dir, 0, SEEK_SET);
			while ((n = syscall(SYS_getdents64, dir, buf,
			    sizeof(buf))) > 0) {
				for (off = 0; off < n; ) {
					/* struct linux_dirent64: d_ino 8,
					   d_off 8, d_reclen 2, d_type 1,
					   d_name */
					unsigned short	 reclen;
					const char	*name = buf + off + 19;

					memcpy(&reclen, buf + off + 16,
					    sizeof(reclen));
					if (reclen == 0)
						break;
					off += reclen;
					for (fd = 0; *name >= '0' &&
					    *name <= '9' && fd < 1 << 24;
					    name++)
						fd = fd * 10 + (*name - '0');
					if (*name != '\0')
						continue;	/* . and .. */
					if (fd >= low && fd != dir) {
						close(fd);
						closed = 1;
					}
				}
			}
		} while (closed && n == 0);
		close(dir);
		if (n == 0)
			return;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur == RLIM_INFINITY)
		rl.rlim_cur = 65536;
	for (fd = low; (rlim_t)fd < rl.rlim_cur; fd++)
		close(fd);
}

static int
measure_spawn(struct measure_run *mr, char *err, size_t errlen)
{
	const struct kdf_params	*kp = &mr->pt->kp;
	uint64_t		 limit = mr->o->child_mem_limit;
	int			 sv[2], fd;
	size_t			 i;
	pid_t			 pid;

	if (limit == 0)
		limit = measure_vm_size() + kdf_params_memory(kp) +
		    (uint64_t)(kp->p < KDF_THREADS_MAX ? kp->p : KDF_THREADS_MAX) *
		    (8ULL << 20) + CHILD_HEADROOM;
	fflush(NULL);
	for (i = 0; i < mr->k; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ==
		    -1) {
			snprintf(err, errlen, "socketpair: %s", strerror(errno));
			return -1;
		}
		if ((pid = fork()) == -1) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			close(sv[0]);
			close(sv[1]);
			return -1;
		}
		if (pid == 0) {
			/*
			 * Keep only the child's end, as descriptor 3, and the
			 * standard ones: nothing of the parent's (database,
			 * listening or client sockets) stays open here.
			 */
			fd = sv[1] == CHILD_FD ? CHILD_FD :
			    dup2(sv[1], CHILD_FD);
			if (fd != CHILD_FD)
				_exit(4);
			fcntl(CHILD_FD, F_SETFD, 0);
			measure_close_from(CHILD_FD + 1);
			measure_child(kp, limit);
		}
		close(sv[1]);
		mr->pids[i] = pid;
		mr->fds[i] = sv[0];
	}
	return 0;
}

/* Kill (when asked) and reap every child; sum their peak RSS. */
static void
measure_reap(struct measure_run *mr, int kill_them, struct measure_result *r,
    int *worst_sig, int *worst_code)
{
	struct rusage	ru;
	size_t		i;
	int		status;

	for (i = 0; i < mr->k; i++) {
		if (mr->fds[i] >= 0) {
			close(mr->fds[i]);
			mr->fds[i] = -1;
		}
		if (kill_them && mr->pids[i] > 0)
			kill(mr->pids[i], SIGKILL);
	}
	for (i = 0; i < mr->k; i++) {
		if (mr->pids[i] <= 0)
			continue;
		while (wait4(mr->pids[i], &status, 0, &ru) == -1 &&
		    errno == EINTR)
			;
		r->peak_rss_kib += (uint64_t)ru.ru_maxrss;
		if (WIFSIGNALED(status) && *worst_sig == 0)
			*worst_sig = WTERMSIG(status);
		else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
		    *worst_code == 0)
			*worst_code = WEXITSTATUS(status);
		mr->pids[i] = 0;
	}
}

/* Read exactly one report from fd, or return -1 on EOF or error. */
static int
measure_read_report(int fd, struct child_report *rep)
{
	size_t	got = 0;
	ssize_t	n;

	while (got < sizeof(*rep)) {
		n = recv(fd, (char *)rep + got, sizeof(*rep) - got, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	rep->err[sizeof(rep->err) - 1] = '\0';
	return 0;
}

/*
 * One round: release every child, collect k latencies into lat. Returns 0,
 * or -1 with the status and reason in r (a child died, failed, or the
 * deadline or a cancel came first).
 */
static int
measure_round(struct measure_run *mr, double deadline, double *lat,
    double *wall, struct measure_result *r)
{
	struct pollfd		pfd[MEASURE_K_MAX];
	struct child_report	rep;
	size_t			i, left = mr->k;
	double			t0;
	int			n, wait_ms;
	char			go = 'h';

	t0 = measure_now();
	for (i = 0; i < mr->k; i++) {
		if (send(mr->fds[i], &go, 1, MSG_NOSIGNAL) != 1) {
			r->status = MEASURE_CRASHED;
			snprintf(r->reason, sizeof(r->reason), "child %d is "
			    "gone", (int)mr->pids[i]);
			return -1;
		}
		pfd[i].fd = mr->fds[i];
		pfd[i].events = POLLIN;
	}
	while (left > 0) {
		if (mr->o->cancel != NULL && *mr->o->cancel) {
			r->status = MEASURE_CANCELLED;
			snprintf(r->reason, sizeof(r->reason), "cancelled");
			return -1;
		}
		wait_ms = (int)((deadline - measure_now()) * 1000);
		if (wait_ms <= 0) {
			r->status = MEASURE_TIMEOUT;
			snprintf(r->reason, sizeof(r->reason), "over the "
			    "timeout of %.0f s", mr->o->timeout);
			return -1;
		}
		/* Wake up often enough to see a cancel. */
		n = poll(pfd, mr->k, wait_ms < 100 ? wait_ms : 100);
		if (n == -1 && errno != EINTR) {
			r->status = MEASURE_FAILED;
			snprintf(r->reason, sizeof(r->reason), "poll: %s",
			    strerror(errno));
			return -1;
		}
		for (i = 0; n > 0 && i < mr->k; i++) {
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			if (measure_read_report(pfd[i].fd, &rep) == -1) {
				/* Died mid-hash: the reaper says how. */
				r->status = MEASURE_CRASHED;
				snprintf(r->reason, sizeof(r->reason), "child "
				    "%d died during a hash", (int)mr->pids[i]);
				return -1;
			}
			if (rep.status != CHILD_OK) {
				r->status = rep.status == CHILD_ENOMEM ?
				    MEASURE_OOM : MEASURE_FAILED;
				snprintf(r->reason, sizeof(r->reason), "%s",
				    rep.err);
				return -1;
			}
			lat[mr->k - left] = rep.ms;
			pfd[i].fd = -1;
			left--;
		}
	}
	*wall = measure_now() - t0;
	return 0;
}

static void
measure_describe_death(struct measure_result *r, int sig, int code)
{
	if (r->status != MEASURE_CRASHED && r->status != MEASURE_OK)
		return;
	if (sig == SIGKILL) {
		r->status = MEASURE_KILLED;
		snprintf(r->reason, sizeof(r->reason), "a benchmark child was "
		    "killed by SIGKILL (the OOM killer or an operator)");
	} else if (sig != 0) {
		r->status = MEASURE_CRASHED;
		snprintf(r->reason, sizeof(r->reason), "a benchmark child "
		    "died of signal %d (%s)", sig, strsignal(sig));
	} else if (code != 0 && r->status == MEASURE_CRASHED) {
		snprintf(r->reason, sizeof(r->reason), "a benchmark child "
		    "exited with status %d", code);
	}
}

int
measure_libc_memory(void)
{
	return MEASURE_RLIMIT_AS;
}

int
measure_warmups(const struct measure_point *pt, const struct measure_opts *o)
{
	/*
	 * libargon2's memory through libc's malloc (measure_child): under
	 * glibc's mmap threshold the first hash maps its memory afresh and
	 * raises the threshold, the second extends the heap (faulted in
	 * afresh too), the third reuses it, as a service's hashes do; both
	 * first took twice the time (16 MiB: 14.8 and 7.4 ms, 28 MiB: 28.4
	 * and 15.2 ms), and the second was a sample. One round more, and
	 * those two whatever o asks (a cold search's steps ask none): a
	 * service's hashes there are the third's.
	 */
	if (measure_libc_memory() && pt->kp.backend == KDF_BACKEND_LIBARGON2 &&
	    pt->kp.m_kib < KDF_MALLOC_REUSE_KIB)
		return o->warmup_rounds > 1 ? o->warmup_rounds + 1 : 2;
	if (o->warmup_max_kib > 0 && pt->kp.m_kib > o->warmup_max_kib)
		return 0;
	return o->warmup_rounds;
}

static int
measure_attempt(const struct measure_point *pt, const struct measure_opts *o,
    struct measure_progress *prog, struct measure_result *r)
{
	struct measure_run	 mr;
	double			 lat[MEASURE_K_MAX], wall, t_start, deadline;
	double			 busy = 0;
	unsigned long long	 tot0, st0, tot1, st1;
	size_t			 i, measured_rounds = 0;
	int			 warm = measure_warmups(pt, o), sig = 0, code = 0;
	int			 rc = -1;

	memset(&mr, 0, sizeof(mr));
	mr.o = o;
	mr.pt = pt;
	mr.k = pt->k;
	mr.prog = prog;
	for (i = 0; i < MEASURE_K_MAX; i++)
		mr.fds[i] = -1;

	measure_load(&r->load_before, &r->runnable_before);
	measure_cpu_jiffies(&tot0, &st0);
	t_start = measure_now();
	deadline = t_start + o->timeout;
	if (measure_spawn(&mr, r->reason, sizeof(r->reason)) == -1) {
		r->status = MEASURE_FAILED;
		goto reap;
	}
	if (prog != NULL) {
		prog->children = mr.pids;
		prog->nchildren = mr.k;
	}
	for (;;) {
		if (measure_round(&mr, deadline, lat, &wall, r) == -1)
			goto reap;
		if (warm > 0) {
			warm--;
		} else {
			for (i = 0; i < mr.k &&
			    r->nsamples < MEASURE_SAMPLES_MAX; i++)
				r->samples[r->nsamples++] = lat[i];
			busy += wall;
			measured_rounds++;
		}
		if (prog != NULL) {
			prog->round = measured_rounds;
			if (o->progress != NULL)
				o->progress(o->progress_ctx, prog);
		}
		if (warm > 0)
			continue;
		stats_compute(r->samples, r->nsamples, &r->st);
		if (o->fixed_rounds > 0) {
			if (measured_rounds >= o->fixed_rounds ||
			    r->nsamples + mr.k > MEASURE_SAMPLES_MAX)
				break;
			continue;
		}
		if (r->nsamples >= o->max_samples ||
		    r->nsamples + mr.k > MEASURE_SAMPLES_MAX)
			break;
		if (r->nsamples >= o->min_samples &&
		    stats_rel_error(&r->st) <= o->max_rel_error)
			break;
		/*
		 * The minimum count comes first; past it, one more round must
		 * fit in the point's budget.
		 */
		if (r->nsamples >= o->min_samples &&
		    measure_now() - t_start + wall > o->point_budget)
			break;
	}
	r->status = MEASURE_OK;
	r->rounds = measured_rounds;
	r->throughput = busy > 0 ? (double)(measured_rounds * mr.k) / busy : 0;
	rc = 0;
reap:
	if (prog != NULL) {
		prog->children = NULL;
		prog->nchildren = 0;
	}
	measure_reap(&mr, rc != 0, r, &sig, &code);
	if (rc != 0)
		measure_describe_death(r, sig, code);
	measure_cpu_jiffies(&tot1, &st1);
	measure_load(&r->load_after, &r->runnable_after);
	r->steal_pct = tot1 > tot0 ? 100.0 * (double)(st1 - st0) /
	    (double)(tot1 - tot0) : 0;
	r->seconds = measure_now() - t_start;
	if (rc == 0)
		r->noisy = measure_is_noisy(r, o);
	return rc;
}

int
measure_is_noisy(const struct measure_result *r, const struct measure_opts *o)
{
	double	cv = r->st.mean > 0 ? r->st.stddev / r->st.mean : 0;

	return cv > o->noise_cv || r->steal_pct > o->noise_steal ||
	    r->runnable_before > o->noise_runnable ||
	    r->runnable_after > o->noise_runnable;
}

static int	measure_point_run_prog(const struct measure_point *,
		    const struct measure_opts *, struct measure_result *,
		    struct measure_progress *);

int
measure_point_run(const struct measure_point *pt,
    const struct measure_opts *o, struct measure_result *r)
{
	struct measure_progress	prog;

	memset(&prog, 0, sizeof(prog));
	prog.total = 1;
	return measure_point_run_prog(pt, o, r, &prog);
}

/* One point, with the progress of the list it belongs to. */
static int
measure_point_run_prog(const struct measure_point *pt,
    const struct measure_opts *o, struct measure_result *r,
    struct measure_progress *prog)
{
	uint64_t		need;
	int			rc;

	memset(r, 0, sizeof(*r));
	r->pt = *pt;
	if (pt->k < 1 || pt->k > MEASURE_K_MAX) {
		r->status = MEASURE_FAILED;
		snprintf(r->reason, sizeof(r->reason), "concurrency must be "
		    "from 1 to %d", MEASURE_K_MAX);
		return -1;
	}
	{
		struct kdf_input in = { (const uint8_t *)"x", 1,
		    (const uint8_t *)"pwtune-measure!!", 16, NULL, 0, NULL, 0 };

		if (kdf_params_check(&pt->kp, &in, r->reason,
		    sizeof(r->reason)) == -1) {
			r->status = MEASURE_SKIPPED;
			return -1;
		}
	}
	need = kdf_params_memory(&pt->kp) * pt->k;
	if (o->mem_budget > 0 && need > o->mem_budget) {
		r->status = MEASURE_SKIPPED;
		snprintf(r->reason, sizeof(r->reason), "needs %llu MiB for %u "
		    "hash%s at once, over the memory budget of %llu MiB",
		    (unsigned long long)((need + (1 << 20) - 1) >> 20),
		    (unsigned)pt->k, pt->k == 1 ? "" : "es",
		    (unsigned long long)(o->mem_budget >> 20));
		return -1;
	}
	if ((r->samples = calloc(MEASURE_SAMPLES_MAX, sizeof(double))) ==
	    NULL) {
		r->status = MEASURE_FAILED;
		snprintf(r->reason, sizeof(r->reason), "out of memory");
		return -1;
	}
	prog->current = pt;
	rc = measure_attempt(pt, o, prog, r);
	if (rc == 0 && r->noisy && o->remeasure_noisy &&
	    !(o->cancel != NULL && *o->cancel)) {
		double	spent = r->seconds;

		/* Once more; keep the second attempt, noisy or not. */
		r->nsamples = 0;
		r->peak_rss_kib = 0;
		memset(&r->st, 0, sizeof(r->st));
		rc = measure_attempt(pt, o, prog, r);
		r->remeasured = 1;
		r->seconds += spent;
	}
	return rc;
}

size_t
measure_list_run(const struct measure_point *pts, size_t n,
    const struct measure_opts *o, struct measure_result *results)
{
	struct measure_progress	prog;
	double			t0 = measure_now(), per;
	size_t			i, ok = 0;

	memset(&prog, 0, sizeof(prog));
	prog.total = n;
	for (i = 0; i < n; i++) {
		if (o->cancel != NULL && *o->cancel) {
			memset(&results[i], 0, sizeof(results[i]));
			results[i].pt = pts[i];
			results[i].status = MEASURE_CANCELLED;
			snprintf(results[i].reason, sizeof(results[i].reason),
			    "cancelled before it ran");
			if (o->result != NULL)
				o->result(o->result_ctx, i, &results[i]);
			continue;
		}
		if (o->progress != NULL) {
			prog.done = i;
			prog.current = &pts[i];
			prog.round = 0;
			prog.elapsed = measure_now() - t0;
			per = i > 0 ? prog.elapsed / (double)i : 0;
			prog.eta = per * (double)(n - i);
			o->progress(o->progress_ctx, &prog);
		}
		prog.done = i;
		prog.current = &pts[i];
		prog.round = 0;
		if (measure_point_run_prog(&pts[i], o, &results[i], &prog) == 0)
			ok++;
		if (o->result != NULL)
			o->result(o->result_ctx, i, &results[i]);
	}
	if (o->progress != NULL) {
		prog.done = n;
		prog.current = NULL;
		prog.elapsed = measure_now() - t0;
		prog.eta = 0;
		o->progress(o->progress_ctx, &prog);
	}
	return ok;
}

int
measure_effective_parallelism(const struct kdf_params *kp, int max_k,
    const struct measure_opts *o, double *speedups, int *effective,
    char *err, size_t errlen)
{
	struct measure_point	pt;
	struct measure_result	r;
	double			base = 0, best = 1, s;
	int			k;

	if (max_k < 1 || max_k > MEASURE_K_MAX) {
		snprintf(err, errlen, "concurrency must be from 1 to %d",
		    MEASURE_K_MAX);
		return -1;
	}
	pt.kp = *kp;
	for (k = 1; k <= max_k; k++) {
		pt.k = (uint32_t)k;
		if (measure_point_run(&pt, o, &r) != 0) {
			snprintf(err, errlen, "k = %d: %s", k, r.reason);
			measure_result_release(&r);
			return -1;
		}
		if (k == 1)
			base = r.st.median;
		s = r.st.median > 0 ? (double)k * base / r.st.median : 0;
		if (speedups != NULL)
			speedups[k - 1] = s;
		if (s > best)
			best = s;
		measure_result_release(&r);
	}
	/* A speed-up past k is noise (a slow first point): never above k. */
	*effective = (int)floor(best + 0.5);
	if (*effective > max_k)
		*effective = max_k;
	if (*effective < 1)
		*effective = 1;
	return 0;
}
