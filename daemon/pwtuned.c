/*
 * daemon/pwtuned.c: main() reads as the list of steps the daemon takes:
 * configuration, logging, the host, the store, the model it already has,
 * the listener, readiness, the start-up run; then signals until told to
 * stop; then the same steps torn down in reverse.
 *
 * pwtuned never forks itself into the background: systemd, a container
 * runtime or a terminal supervises it (-d is accepted and changes
 * nothing).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "api.h"
#include "daemon.h"

static void
usage(FILE *fp)
{
	fputs(
"Usage: pwtuned [-c FILE] [-d] [-n] [-v] [--health] [--listen ADDR:PORT]\n"
"               [--db PATH] [--state-dir DIR] [--token-file PATH]\n"
"               [--web-root DIR] [--log-format text|json]\n"
"       pwtuned -V | --version\n"
"  -c FILE    configuration file (keys: pwtuned.conf(5))\n"
"  -d         stay in the foreground (pwtuned always does)\n"
"  -n         check the configuration and the paths as start-up does\n"
"             (creating nothing), print \"configuration OK\", exit\n"
"  -v         log debug messages\n"
"  -V, --version  print the version and the libraries', exit\n"
"  --health   ask the pwtuned on the listen address for GET /healthz;\n"
"             exit 0 when it answers 200 (container health checks)\n"
"A socket passed by systemd (LISTEN_FDS) is used instead of listen.\n"
"Settings come from the defaults, then the file, then PWTUNED_<KEY>\n"
"variables, then these flags.\n", fp);
}

/* The version, and the libraries' pwtuned runs with. */
static void
version(void)
{
	printf("pwtuned %s (libsodium %s, libargon2 %s, libmicrohttpd %s)\n",
	    PWTUNE_VERSION, sodium_version_string(), PWTUNE_LIBARGON2_VERSION,
	    MHD_get_version());
}

struct flag_set {
	const char	*key;
	const char	*value;
};

static int
parse_args(int argc, char **argv, const char **conf, int *check,
    int *verbose, int *health, struct flag_set *sets, size_t *nsets)
{
	static const struct { const char *flag, *key; } map[] = {
		{ "--listen", "listen" }, { "--db", "store" },
		{ "--state-dir", "state_dir" }, { "--token-file", "token_file" },
		{ "--web-root", "web_root" }, { "--log-format", "log_format" },
	};
	size_t	i;
	int	a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-c") == 0 && a + 1 < argc)
			*conf = argv[++a];
		else if (strcmp(argv[a], "-d") == 0)
			continue;
		else if (strcmp(argv[a], "-n") == 0)
			*check = 1;
		else if (strcmp(argv[a], "--health") == 0)
			*health = 1;
		else if (strcmp(argv[a], "-v") == 0)
			*verbose = 1;
		else if (strcmp(argv[a], "-h") == 0 ||
		    strcmp(argv[a], "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(argv[a], "-V") == 0 ||
		    strcmp(argv[a], "--version") == 0) {
			version();
			exit(0);
		} else {
			for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
				if (strcmp(argv[a], map[i].flag) == 0)
					break;
			if (i == sizeof(map) / sizeof(map[0]) || a + 1 >= argc ||
			    *nsets == 16) {
				fprintf(stderr, "pwtuned: unknown option or "
				    "missing value: %s\n", argv[a]);
				usage(stderr);
				return -1;
			}
			sets[*nsets].key = map[i].key;
			sets[(*nsets)++].value = argv[++a];
		}
	}
	return 0;
}

static int
load_config(struct config *c, const char *conf, int verbose,
    const struct flag_set *sets, size_t nsets, char *err, size_t errlen)
{
	char	why[512];
	size_t	i;

	config_defaults(c);
	if (conf != NULL && config_load_file(c, conf, 1, err, errlen) == -1)
		return -1;
	if (config_load_env(c, err, errlen) == -1)
		return -1;
	for (i = 0; i < nsets; i++)
		if (config_set(c, sets[i].key, sets[i].value, why,
		    sizeof(why)) == -1) {
			snprintf(err, errlen, "option for %s: %s", sets[i].key,
			    why);
			return -1;
		}
	if (verbose)
		c->log_level = LOG_LEVEL_DEBUG;
	return config_finish(c, err, errlen);
}

/*
 * One pwtuned a state directory. A second one (make run twice, a unit
 * started beside a shell's) is refused before it opens the store: its
 * connection, closing, was the one that took the store's -wal and -shm
 * from under the first. The lock is flock(2) on STATE_DIR/pwtuned.lock,
 * held for the process's life (its descriptor closed last); the file
 * holds the PID, for the message. A state directory this process cannot
 * write holds no lock (said so): the store and the token are elsewhere.
 * The descriptor; -2: no lock; -1 with err: refused.
 */
static void
state_lock_said(int fd, const char *dir, char *err, size_t errlen)
{
	char	pid[32];
	ssize_t	n;
	int	i;

	/* The first may be between its truncate and write. */
	for (i = 0; i < 5; i++) {
		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strspn(pid, "0123456789")] = '\0';
		if (pid[0] != '\0')
			break;
		usleep(10000);
	}
	snprintf(err, errlen, "state directory %.800s is in use by another "
	    "pwtuned (PID %.20s): stop it first, or give this one a state "
	    "directory of its own (--state-dir)", dir, pid[0] ? pid : "unknown");
}

/*
 * Is dir's lock held by another pwtuned? 1, with err (the listener's
 * error) followed by who holds it; else 0, err as it was. Creates nothing
 * (asked when the port is taken, before anything is made: the likelier
 * cause, a second make run, is said).
 */
static int
state_lock_held(const char *dir, char *err, size_t errlen)
{
	struct stat	sb;
	char		path[DAEMON_PATH_MAX + 16], why[1024], first[300];
	int		fd, held = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, STATE_LOCK_FILE);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1)
		return 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    flock(fd, LOCK_SH | LOCK_NB) == -1 && errno == EWOULDBLOCK) {
		/* The listener's own error first, then the likelier cause. */
		state_lock_said(fd, dir, why, sizeof(why));
		snprintf(first, sizeof(first), "%.290s", err);
		snprintf(err, errlen, "%.290s; %.700s", first, why);
		held = 1;
	}
	close(fd);	/* a lock taken here goes with it */
	return held;
}

static int
state_lock(const char *dir, char *err, size_t errlen)
{
	struct stat	sb;
	char		path[DAEMON_PATH_MAX + 16], pid[32];
	int		fd;

	snprintf(path, sizeof(path), "%s/%s", dir, STATE_LOCK_FILE);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK, 0600)) == -1) {
		if (errno == EROFS || errno == EACCES) {
			log_warn("state directory %s: %s: no lock (a second "
			    "pwtuned on it would not be refused)", dir,
			    strerror(errno));
			return -2;
		}
		snprintf(err, errlen, "%.900s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%.900s: not a regular file: not pwtuned's "
		    "lock (left as it is)", path);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK)
			state_lock_said(fd, dir, err, errlen);
		else {
			/* A file system without locks (some network ones). */
			log_warn("%s: cannot lock: %s (a second pwtuned on "
			    "this state directory would not be refused)", path,
			    strerror(errno));
			close(fd);
			return -2;
		}
		close(fd);
		return -1;
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1 || pwrite(fd, pid, strlen(pid), 0) !=
	    (ssize_t)strlen(pid))
		log_warn("%s: cannot write the PID: %s", path,
		    strerror(errno));
	return fd;	/* held until the teardown */
}

int
main(int argc, char **argv)
{
	static struct daemon	 d;
	struct flag_set		 sets[16] = { { NULL, NULL } };
	struct api_server	*api = NULL;
	struct api_env		 env;
	static struct api_config acfg;
	struct db		*db = NULL;
	struct db_open_opts	 dbo = { 0, 0, 0, runner_store_log, NULL };
	const char		*conf = getenv("PWTUNED_CONFIG");
	char			 err[1024], bound[160], status[256];
	size_t			 nsets = 0;
	sigset_t		 sigs;
	int			 check = 0, verbose = 0, health = 0, fd, sig;
	int			 deferred, lockfd;
	int			 rc = 1;
	enum db_status		 st;

	/* 1. Configuration: defaults < file < environment < flags. */
	if (parse_args(argc, argv, &conf, &check, &verbose, &health, sets,
	    &nsets) == -1)
		return 2;
	if (load_config(&d.cfg, conf, verbose, sets, nsets, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "pwtuned: %s\n", err);
		return 1;
	}
	/* What start-up refuses, -n refuses: the same checks, first. */
	if (!health && config_check(&d.cfg, err, sizeof(err)) == -1) {
		fprintf(stderr, "pwtuned: %s\n", err);
		return 1;
	}
	if (check) {
		printf("configuration OK\n");
		return 0;
	}
	if (health) {
		if (health_check(&d.cfg, err, sizeof(err)) == -1) {
			fprintf(stderr, "pwtuned: unhealthy: %s\n", err);
			return 1;
		}
		printf("healthy\n");
		return 0;
	}
	/* 2. Logging; signals are taken by this thread alone. */
	log_init(d.cfg.log_level, d.cfg.log_json);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (sodium_init() < 0) {
		log_error("libsodium failed to initialise");
		return 1;
	}
	json_object_seed(0);	/* before any thread: jansson's advice */
	pthread_mutex_init(&d.lock, NULL);
	pthread_cond_init(&d.wake, NULL);

	/* 3. The host. */
	if (host_probe(NULL, &d.host, err, sizeof(err)) == -1) {
		log_error("host: %s", err);
		return 1;
	}
	log_info("host %s, fingerprint %s: %s, %d CPUs", d.host.host_id,
	    d.host.fingerprint, d.host.cpu_model, d.host.online_cpus);

	/*
	 * 4. The listener (systemd's, or our own), before anything is made:
	 * a port in use leaves no state directory or store behind.
	 */
	if ((fd = listen_activated(bound, sizeof(bound), err,
	    sizeof(err))) == -2)
		fd = listen_socket(&d.cfg, bound, sizeof(bound), err,
		    sizeof(err));
	else if (fd >= 0)
		log_info("socket activation: the listen key is not used");
	if (fd == -1) {
		/* Another pwtuned on this state directory: that is why. */
		(void)state_lock_held(d.cfg.state_dir, err, sizeof(err));
		log_error("%s", err);
		return 1;
	}

	/* The store, and the model it already holds. */
	if (mkdir(d.cfg.state_dir, 0700) == -1 && errno != EEXIST) {
		log_error("state directory %s: %s", d.cfg.state_dir,
		    strerror(errno));
		close(fd);
		return 1;
	}
	if ((lockfd = state_lock(d.cfg.state_dir, err, sizeof(err))) == -1) {
		log_error("%s", err);
		close(fd);
		return 1;
	}
	if ((st = db_open(d.cfg.db, &dbo, &db, err, sizeof(err))) != DB_OK) {
		/* A shared database that is away: start, and catch up once
		   it is back (answers wait for a model; /readyz says why). */
		if (st != DB_ERR_UNAVAILABLE || !db_is_postgresql(d.cfg.db)) {
			log_error("store: %s", err);
			close(fd);
			if (lockfd >= 0)
				close(lockfd);
			return 1;
		}
		log_warn("store: %s (starting without it: the model is loaded "
		    "once it is reached)", err);
		store_note(&d, st, err);
		d.store_deferred = 1;
	} else {
		d.store_up = 1;
		d.store_seen = time(NULL);
	}
	{
		char	where[DAEMON_PATH_MAX];

		db_locator_redact(d.cfg.db, where, sizeof(where));
		log_info("store: %s (%s)%s%s", where, db_is_postgresql(
		    d.cfg.db) ? "PostgreSQL" : "SQLite", d.cfg.group[0] ?
		    ", group " : "", d.cfg.group);
	}
	if (db != NULL) {
		runner_store_opened(&d, db);
		db_close(db);
		db = NULL;
	}

	/* 5. The API on the listener. */
	daemon_api_env(&d, &env);
	daemon_api_config(&d, &acfg);
	if ((api = api_start(&env, &acfg, fd, err, sizeof(err))) == NULL) {
		log_error("%s", err);
		close(fd);
		goto out;
	}
	log_info("listening on %s", bound);

	/* 6. The job runner, readiness, the start-up run (the runner's,
	   when the store comes later). */
	deferred = d.store_deferred;
	if (runner_start(&d, err, sizeof(err)) == -1) {
		log_error("%s", err);
		goto out;
	}
	snprintf(status, sizeof(status), "READY=1\nSTATUS=listening on %s",
	    bound);
	notify_send(status);
	if (notify_watchdog_start() == -1)
		log_warn("WATCHDOG_USEC is not a number of microseconds");
	if (!deferred)
		runner_startup_run(&d);

	/* 7. Signals until told to stop. */
	for (;;) {
		if (sigwait(&sigs, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			struct config	nc;

			if (load_config(&nc, conf, verbose, sets, nsets, err,
			    sizeof(err)) == -1) {
				log_error("reload refused, keeping the running "
				    "configuration: %s", err);
				continue;
			}
			/* What can change without a restart. */
			pthread_mutex_lock(&d.lock);
			d.cfg.log_level = nc.log_level;
			d.cfg.cooldown = nc.cooldown;
			d.cfg.auth_failures_per_minute =
			    nc.auth_failures_per_minute;
			d.cfg.rebench_interval = nc.rebench_interval;
			d.cfg.retention_runs = nc.retention_runs;
			/* The next run's probes. */
			snprintf(d.cfg.probes, sizeof(d.cfg.probes), "%s",
			    nc.probes);
			snprintf(d.cfg.probe_dir, sizeof(d.cfg.probe_dir), "%s",
			    nc.probe_dir);
			d.cfg.probe_timeout = nc.probe_timeout;
			/* The next run's and check's memory cap. */
			d.cfg.memory_max = nc.memory_max;
			/* The background checks' budget (0 stops them). */
			d.cfg.check_budget = nc.check_budget;
			d.cfg.check_interval = nc.check_interval;
			snprintf(d.cfg.token_file, sizeof(d.cfg.token_file),
			    "%s", nc.token_file);
			/* A grid stored since (pwtune bench --db) is taken. */
			d.model_reload = 1;
			pthread_cond_broadcast(&d.wake);
			pthread_mutex_unlock(&d.lock);
			log_set_level(nc.log_level);
			daemon_api_config(&d, &acfg);
			if (api_reload(api, &acfg, err, sizeof(err)) == -1)
				log_error("reload: %s", err);
			else
				log_info("configuration reloaded");
			continue;
		}
		log_info("%s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
		break;
	}
	notify_send("STOPPING=1");
	rc = 0;
out:
	/* Teardown, in reverse. */
	api_stop(api);
	runner_stop(&d);
	notify_watchdog_stop();
	free(d.model);
	log_info("stopped");
	if (lockfd >= 0) {
		/* No PID left to name a process that may be another's. */
		if (ftruncate(lockfd, 0) == -1)
			log_warn("the lock's PID not cleared: %s",
			    strerror(errno));
		close(lockfd);	/* the state directory is free */
	}
	return rc;
}
