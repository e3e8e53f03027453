/*
 * daemon/daemon.h: pwtuned, the daemon. Its parts, one file each:
 *
 *   config.c   defaults < file < environment (PWTUNED_*) < flags; checked
 *              once; bad keys and values name the file and line
 *   listen.c   the listening socket: bound from listen, or passed by
 *              systemd (LISTEN_FDS); pwtuned --health (GET /healthz)
 *   notify.c   systemd readiness, status and watchdog on NOTIFY_SOCKET
 *   runner.c   the job runner: one benchmark at a time on its own thread,
 *              points in child processes, written to the store as they end,
 *              the model refitted and swapped in when a run finishes
 *   env.c      the API's view of the daemon (struct api_env): state and
 *              model read under the lock, runs asked for, store notes; the
 *              configuration the API is given (struct api_config)
 *   pwtuned.c  main(): the steps the daemon takes, torn down in reverse
 *
 * It logs through engine/log.h and serves the API of api/api.h, which
 * sees it only through env.c.
 */
#ifndef PWTUNE_DAEMON_H
#define PWTUNE_DAEMON_H

#include <sys/types.h>

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "check.h"
#include "db.h"
#include "log.h"
#include "measure.h"
#include "model.h"
#include "tune.h"

#define DAEMON_DEFAULT_LISTEN		"127.0.0.1:8421"
#define DAEMON_PATH_MAX			1024
#define DAEMON_HOSTS_MAX		8
#define DAEMON_TARGETS_MAX		8
#define DAEMON_TOKEN_LEN		32	/* random bytes, hex in the file */
#define STATE_LOCK_FILE			"pwtuned.lock"	/* in the state directory */
#define DAEMON_QUESTIONS_MAX		64	/* questions checked */
#define DAEMON_CHECK_WINDOW		600	/* seconds the budget spans */
#define DAEMON_CHECK_SLOTS		128	/* checks kept in it, at most */

struct config {
	char		listen[128];		/* ADDR:PORT */
	char		state_dir[DAEMON_PATH_MAX];
	char		db[DAEMON_PATH_MAX];	/* "" : state_dir/pwtune.db */
	char		token_file[DAEMON_PATH_MAX]; /* "" : state_dir/token */
	char		web_root[DAEMON_PATH_MAX]; /* "" : the embedded files */
	enum log_level	log_level;
	int		log_json;
	char		startup_profile[16];	/* quick, full or none */
	unsigned	rebench_interval;	/* seconds; 0: never */
	uint64_t	memory_max;		/* bytes; 0: the host budget */
	unsigned	retention_runs;
	unsigned	max_connections;
	unsigned	max_connections_per_ip;
	unsigned	connection_timeout;	/* seconds idle */
	unsigned	request_timeout;	/* seconds for headers, body */
	unsigned	connection_memory;	/* bytes per connection */
	unsigned	threads;		/* HTTP thread pool */
	unsigned	cooldown;		/* seconds between runs */
	unsigned	auth_failures_per_minute;
	char		allowed_hosts[DAEMON_HOSTS_MAX][128];
	size_t		nallowed_hosts;
	char		group[DB_GROUP_MAX];	/* "" : none */
	unsigned	fleet_max_age;		/* seconds; 0: any age */
	unsigned	verify_targets[DAEMON_TARGETS_MAX]; /* ms, after runs */
	size_t		nverify_targets;
	char		probes[256];		/* all, none or NAME,NAME */
	char		probe_dir[DAEMON_PATH_MAX]; /* "" : the built-in one */
	unsigned	probe_timeout;		/* seconds, the most per probe */
	unsigned	check_budget;		/* % of one core; 0: no checks */
	unsigned	check_interval;		/* seconds between re-checks */
};

/*
 * A question asked (this host's answer, no scope), checked in the
 * background (checks.c): its answer measured, corrected, measured again.
 */
struct question {
	char			key[160];	/* the query, canonical */
	struct tune_query	q;
	char			stack[DB_STACK_MAX];	/* "" : the default */
	struct check_state	cs;
	int64_t			model_run;	/* the run cs belongs to */
	time_t			asked, checked;
	time_t			burst;		/* first asking of a burst */
	enum kdf_backend	backend;	/* of the answer measured */
	enum kdf_alg		variant;
	unsigned		asks;		/* checked from the second */
	char			at[32];		/* when last measured */
};

/*
 * What the daemon knows and does at run time: the host, the current
 * model, the job runner. Shared by the HTTP threads (readers, through
 * daemon/env.c) and the runner (the only writer of the model); lock
 * protects everything below it, and cfg's keys SIGHUP changes.
 *
 * The lock order, over the whole program: the API's fleet lock
 * (api/fleet.c), then this lock, then the API server's lock
 * (api/api_impl.h); the runner takes this one alone. A thread holding
 * one never waits for one before it.
 */
struct daemon {
	struct config		 cfg;
	struct host_info	 host;
	pthread_mutex_t		 lock;
	struct model		*model;		/* NULL before the first data */
	int64_t			 model_run;
	char			 model_fingerprint[33];
	uint64_t		 model_version;	/* bumps on every swap */
	/* The runner. */
	pthread_t		 runner;
	pthread_cond_t		 wake;
	int			 quit;
	int			 started;
	int			 model_reload;	/* SIGHUP: the store's model
						   read again when idle */
	char			 queued_profile[16];	/* "" : nothing asked */
	enum db_trigger		 queued_trigger;
	int64_t			 queued_run;		/* created, not started */
	int64_t			 running_run;		/* 0: idle */
	/*
	 * A running run: its points ended (measured, skipped or failed)
	 * and measured, of points_total (the profile's points); then the
	 * step it is at ("points", "probes", "verifications": a static
	 * string) and that step's progress, counted apart from the points.
	 */
	size_t			 points_done, points_total, points_measured;
	const char		*step;
	size_t			 step_done, step_total;
	/* Seconds this host's last done run of the same profile took (0:
	   none to go by), and when the running one started (monotonic). */
	double			 run_expect, run_t0;
	volatile int		 cancel;
	time_t			 last_end;		/* newest run's end */
	time_t			 last_api_end;		/* of a run asked for
							   through the API: the
							   cool-down counts
							   from it */
	enum db_trigger		 running_trigger;
	time_t			 last_done;		/* newest finished run */
	/* The store as last seen: reachable or not, and why not. */
	int			 store_up;
	enum db_status		 store_status;	/* of the last operation */
	time_t			 store_seen;
	unsigned long long	 store_failures;
	char			 store_error[256];
	/* The database could not be reached at start: the runner opens it,
	   loads the model and queues the start-up run once it can. */
	int			 store_deferred;
	/* A run's end the store refused to record: retried every second. */
	int64_t			 pending_run;
	enum db_run_status	 pending_status;
	char			 pending_error[128];
	/* Stacks observations were stored for, refitted when idle. */
	char			 observed[MODEL_STACKS_MAX][DB_STACK_MAX];
	size_t			 nobserved;
	int			 observed_all;	/* more than it holds: every
						   stack refitted */
	time_t			 observed_refit;	/* the last refit */
	/* Questions asked, checked when idle (checks.c). */
	struct question		 questions[DAEMON_QUESTIONS_MAX];
	size_t			 nquestions;
	/* The last run's verifications (checks_verified_add). */
	struct check_verified	 verified[CHECK_VERIFIED_MAX];
	size_t			 nverified;
	int			 checking;	/* a check is measuring */
	unsigned		 check_k;	/* ... its threads: k x p */
	volatile pid_t		 check_child;	/* ... a runtime's probe,
						   its threads its own too */
	volatile int		 check_cancel;	/* a run pre-empts it */
	/*
	 * The host's quiet, as the watcher samples it (checks.c): since when
	 * others' runnable tasks stayed under what a check may run beside
	 * (monotonic seconds), and what pre-empted the check in progress.
	 */
	pthread_t		 watcher;
	int			 watching;
	double			 quiet_since;
	double			 others_peak;	/* others' tasks: the largest
						   one-second mean within
						   CHECK_QUIET_S */
	int			 check_busy;	/* the watcher pre-empted it */
	double			 check_busy_others;
	int			 check_busy_own;	/* its own runnable, not counted */
	double			 check_cpu[DAEMON_CHECK_SLOTS]; /* CPU s of
							   checks ... */
	time_t			 check_end[DAEMON_CHECK_SLOTS]; /* ... ended */
	size_t			 check_slot;
	time_t			 check_busy_log;	/* last "busy" line */
	time_t			 check_mem_log;		/* last "memory" line */
	time_t			 check_mem_at;		/* memory read then */
	uint64_t		 check_mem_budget;	/* what it allowed */
	uint64_t		 check_mem_free;	/* the host, uncapped */
	int			 drift;		/* the host drifted ... */
	int64_t			 drift_run;	/* ... from this run's model */
	time_t			 drift_at;
	char			 drift_why[160];
	/* Counters for /metrics. */
	unsigned long long	 runs_by_status[6];
	unsigned long long	 checks_by_verdict[CHECK_VERDICTS];
	unsigned long long	 checks_preempted, checks_skipped;
	unsigned long long	 checks_noisy;
	double			 check_cpu_total;
};

/* runner.c */
int	 runner_start(struct daemon *d, char *err, size_t errlen);
void	 runner_stop(struct daemon *d);
/*
 * Ask for a run. Returns 0 with *id (status queued), 1 when one is queued
 * or running already (409), 2 during the cool-down (429; *retry_after in
 * seconds), -1 when the store refuses (err).
 */
int	 runner_request(struct daemon *d, const char *profile,
	    enum db_trigger trigger, int64_t *id, unsigned *retry_after,
	    char *err, size_t errlen);
/* Cancel run id if it is the one queued or running: 0, or -1 (not it). */
int	 runner_cancel(struct daemon *d, int64_t id);
/*
 * An observation of stack was stored for this host: the runner refits
 * that stack's correction into the model when it is next idle.
 */
void	 runner_observed(struct daemon *d, const char *stack);
/*
 * Record how a store operation went: failing to reach, open or write the
 * store marks it down (with err), anything the store answered marks it up.
 */
void	 store_note(struct daemon *d, enum db_status st, const char *err);
/*
 * Load the newest finished run of this host as the current model, with
 * the checks taken under it as points.
 */
int	 runner_load_model(struct daemon *d, struct db *db, char *err,
	    size_t errlen);
/*
 * Fit run's model again with the checks taken under it (one just stored)
 * and put it in use, if run is still the one in use; rebase (if not NULL)
 * is called under d->lock as it goes in, with the model it replaced; the
 * log says "run N: <what> K points from checks". Called by the runner's thread (the only writer of the model), without
 * d->lock.
 */
int	 runner_refit(struct daemon *d, struct db *db, int64_t run,
	    void (*rebase)(struct daemon *, const struct model *),
	    const char *what, char *err, size_t errlen);
/*
 * The store is open at start (or, deferred, once reached): record this
 * host's group, load its model, and queue the start-up run the
 * configuration asks for when there is no fresh model.
 */
void	 runner_store_opened(struct daemon *d, struct db *db);
void	 runner_startup_run(struct daemon *d);
/*
 * The memory one benchmark may use now: the host's facts of start-up with
 * its memory read again into *h (MemAvailable, the cgroup's limit and
 * usage), the budget as host_memory_budget() makes it.
 */
uint64_t runner_memory_now(struct daemon *d, struct host_info *h,
	    enum host_budget_source *src);
/* The store's messages (interrupted runs recovered) to the log. */
void	 runner_store_log(void *ctx, const char *msg);

/* checks.c */
/*
 * A question was answered from this host's model: keep it to check. A
 * runtime answered as its curve's library (stack_checked_as) is kept as
 * that library's question, the default stack's own (with the automatic
 * backend, p at most 1) as the default question (checks_as), and
 * checks_state reads it there.
 */
void	 checks_asked(struct daemon *d, const struct tune_query *q,
	    const char *stack);
/*
 * The correction and state of question (q, stack) under the current
 * model, copied out: 1 when it was measured, 0 when not (c = 1), -1 when
 * its answers are not checked here (a client runtime not probed here);
 * with the model_version it was read under (version, when not NULL).
 */
int	 checks_state(struct daemon *d, const struct tune_query *q,
	    const char *stack, struct check_state *out, char *at,
	    size_t atlen, uint64_t *version);
/*
 * Run run's verification of answer a (measured_ms at its percentile over
 * samples hashes), kept in place of the one before at the same target;
 * with d->lock held. checks_verified_clear forgets them all (a new run's
 * verifications, a drift).
 */
void	 checks_verified_add(struct daemon *d, int64_t run,
	    const struct tune_answer *a, double measured_ms, size_t samples);
void	 checks_verified_clear(struct daemon *d);
/*
 * After a refit of the run in use, with d->lock held (was: the model it
 * replaced): each question's corrections are rescaled by what the model
 * said at the parameters it measured over what the refitted one says
 * there (along its answer's path: its stack's, or its curve's), so
 * corrected predictions, and the answers, stay where the measurements
 * put them and nothing is counted twice.
 */
void	 checks_rebase(struct daemon *d, const struct model *was);
/*
 * A measurement of answer a (its samples r, the model's median there
 * model_p50) kept in the store under model run `run` with source
 * (DB_SOURCE_CHECK: a point of the run's model; DB_SOURCE_CHECK_SUSPECT):
 * an observation of a's library, or of stack when that is a client
 * runtime's (its probe measured it). Without d->lock.
 */
void	 checks_keep(struct daemon *d, struct db *db,
	    const struct tune_answer *a, const char *stack,
	    const struct measure_result *r, double model_p50, int64_t run,
	    const char *source);
/*
 * What a check of question key found, taken into it with d->lock held:
 * answer a (answered from m under run) measured `measured` ms at its
 * percentile and `median` ms at its median over n hashes, where the model
 * said model_ms and model_p50. Its state is judged (engine/check.h); a
 * suspect brings the answers verified on the same hashing due again (not
 * those checked in the last five minutes); a drift forgets the run's
 * verifications and sets *queue_run. 1 when the measurement is one the
 * model takes as a point (in band). checks_tick's, and the tests'.
 */
int	 checks_take(struct daemon *d, const char *key, int64_t run,
	    const struct tune_answer *a, double measured, double median,
	    size_t n, double model_ms, double model_p50,
	    const struct model *m, int *queue_run);
/* Called by the idle runner with d->lock held: check one question if one
   is due, the budget allows and the host is quiet. 1 when it did. */
int	 checks_tick(struct daemon *d, struct db *db);
/*
 * The watcher: a thread that samples the host's runnable tasks every
 * CHECK_WATCH_MS, so that a check starts only after the host was quiet
 * for a while and stops as soon as others want the CPUs. Started with the
 * runner, stopped when d->quit is set (checks_watch_stop joins it).
 */
int	 checks_watch_start(struct daemon *d, char *err, size_t errlen);
void	 checks_watch_stop(struct daemon *d);

/* config.c */
void	 config_defaults(struct config *c);
/*
 * Load path into c (over what it holds). Returns 0, or -1 with
 * "FILE:LINE: reason: the line" in err. A missing file is an error only
 * when required.
 */
int	 config_load_file(struct config *c, const char *path, int required,
	    char *err, size_t errlen);
/* Apply PWTUNED_<KEY> variables. Returns 0, or -1 with err. */
int	 config_load_env(struct config *c, char *err, size_t errlen);
/* Set one key (as in the file) from a flag or a variable. */
int	 config_set(struct config *c, const char *key, const char *value,
	    char *err, size_t errlen);
/* Derived paths and the checks that need every key. */
int	 config_finish(struct config *c, char *err, size_t errlen);
/*
 * What start-up refuses of the paths, checked without making anything
 * (pwtuned -n, and start-up itself first): the state directory (made if
 * its parent can hold it), the SQLite store's file and directory, the
 * token file (or where a new one is written), web_root (a directory with
 * index.html). 0, or -1 with the one-line message.
 */
int	 config_check(const struct config *c, char *err, size_t errlen);
/* Is stack name's probe enabled by c->probes? */
int	 config_probe_enabled(const struct config *c, const char *name);
/* Split listen into address and port. */
int	 config_listen_addr(const struct config *c, char *addr, size_t addrlen,
	    unsigned *port);

/* listen.c */
/* Bind and listen on c->listen; the address bound goes to bound. */
int	 listen_socket(const struct config *c, char *bound, size_t boundlen,
	    char *err, size_t errlen);
/*
 * The socket systemd passed (LISTEN_PID, LISTEN_FDS): its descriptor, -2
 * when none was passed to this process, -1 with err when one was passed
 * but cannot be used.
 */
int	 listen_activated(char *bound, size_t boundlen, char *err,
	    size_t errlen);
/* GET /healthz on c->listen (loopback for a wildcard): 0 when 200. */
int	 health_check(const struct config *c, char *err, size_t errlen);

/* env.c */
struct api_env;
struct api_config;
/* The API's view of d (api/api.h). */
void	 daemon_api_env(struct daemon *d, struct api_env *env);
/* What the API is told of d->cfg, copied under d->lock. */
void	 daemon_api_config(struct daemon *d, struct api_config *c);

/* notify.c */
/* Send one datagram ("READY=1", "STATUS=...") when NOTIFY_SOCKET is set. */
int	 notify_send(const char *msg);
/* A thread sending WATCHDOG=1 at half of WATCHDOG_USEC, if it is set. */
int	 notify_watchdog_start(void);
void	 notify_watchdog_stop(void);

#endif /* PWTUNE_DAEMON_H */
