/*
 * db/db.h: the store of everything pwtune has measured.
 *
 * This header is the whole interface: callers never see SQL, nor SQLite's
 * or libpq's types (what it includes is engine/: model.h, report.h). Two
 * engines stand behind it: an SQLite file (the default, one host) and a
 * PostgreSQL database named by a postgresql:// or postgres:// URI (a
 * fleet: every daemon writes its own host's runs there). One struct db is
 * one connection: open one per thread.
 *
 * db/ holds:
 *   db.h            this interface
 *   store.h         private to db/: struct db, the engines' table of
 *                   operations (struct db_ops), statements and rows
 *   db.c            open (the engine by the locator), close, ping, check,
 *                   names, locator redaction, interrupted runs, and the
 *                   helpers through which the files below run statements
 *   sqlite.c        the SQLite engine: file checks, corrupt files, WAL,
 *                   user_version migrations, prepared statements, errors
 *   postgresql.c    the PostgreSQL engine: connection, reconnects and
 *                   their backoff, advisory-locked migrations, errors
 *   schema.c        the tables and migrations, once for both dialects
 *   runs.c          runs and points, export, import, retention
 *   hosts.c         hosts, groups; fresh hosts and their models (fleets)
 *   models.c        models and verifications
 *   observations.c  observations; a stack's observed / predicted ratios
 *   stacks.c        what stack probes came to; a model's stacks rebuilt
 *                   from the store
 *
 * Guarantees:
 *   - Every write is one transaction (BEGIN IMMEDIATE on SQLite). A run is
 *     written point by point as each finishes: a crash loses at most the
 *     point in progress. Commits survive a crash of the process.
 *   - Runs left running or queued by a process that no longer exists are
 *     marked interrupted when the store is opened for writing (the owner of
 *     a run is its process id and start time, so a recycled pid is not
 *     mistaken for the owner).
 *   - Only an SQLite file is a store: any other file (not a regular file,
 *     or without SQLite's magic in its header) is refused, DB_ERR_INVALID
 *     naming it, and left as it is. An empty file is a valid new store.
 *   - An SQLite file that fails its check, opened for writing, is moved
 *     aside, with its -wal and -shm, as NAME.corrupt-<UTC time>, and a new
 *     store is created in its place; the log callback says so. Opened
 *     read-only, it is DB_ERR_CORRUPT and left as it is.
 *   - Opened read-only, an SQLite store of an older schema is read as it
 *     is: only a writer migrates it.
 *   - A location that cannot be written is DB_ERR_READONLY, a full file
 *     system DB_ERR_FULL, with a message naming the path; nothing is
 *     damaged, and writes work again once the cause is gone, without
 *     reopening.
 *   - PostgreSQL: a server that cannot be reached is DB_ERR_UNAVAILABLE;
 *     the next call reconnects, so a connection outlives an outage.
 *     Runs are recovered (interrupted) only when their owner ran on this
 *     machine (same boot, same host name) and is gone. Passwords in the
 *     URI never appear in messages.
 *
 * A function that can fail returns a db_status (DB_OK is 0) and fills err
 * with a reason on failure.
 */
#ifndef PWTUNE_DB_H
#define PWTUNE_DB_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "model.h"
#include "report.h"

#define DB_SCHEMA_VERSION	5
#define DB_BUSY_TIMEOUT_MS	5000
#define DB_RUNS_LIST_MAX	1000
#define DB_GROUP_MAX		64	/* bytes of a group label, NUL too */
#define DB_STACK_MAX		64	/* bytes of a stack name, NUL too */
#define DB_OBS_SAMPLES_MAX	1000	/* latency samples per observation */
#define DB_OBS_STACKS_MAX	64	/* stack names services post under,
					   per host, beside the catalogue's */
#define DB_OBS_KEEP		256	/* newest observations kept per host
					   and stack (corrections read 200) */

enum db_status {
	DB_OK = 0,
	DB_ERR_IO,		/* an I/O error */
	DB_ERR_FULL,		/* the file system is full */
	DB_ERR_READONLY,	/* the location or the store is read-only */
	DB_ERR_CANTOPEN,	/* the file cannot be opened or created */
	DB_ERR_CORRUPT,		/* corrupt, and not recovered */
	DB_ERR_BUSY,		/* locked by another writer past the timeout */
	DB_ERR_SCHEMA,		/* written by a newer pwtune */
	DB_ERR_NOTFOUND,
	DB_ERR_INVALID,		/* bad arguments */
	DB_ERR_NOMEM,
	DB_ERR_INTERNAL,
	DB_ERR_UNAVAILABLE,	/* the database server cannot be reached */
	DB_ERR_LIMIT		/* a limit of the store's (err says which) */
};

enum db_trigger {
	DB_TRIGGER_STARTUP,
	DB_TRIGGER_API,
	DB_TRIGGER_SCHEDULE,
	DB_TRIGGER_CLI,
	DB_TRIGGER_IMPORT
};

enum db_run_status {
	DB_RUN_QUEUED,
	DB_RUN_RUNNING,
	DB_RUN_DONE,
	DB_RUN_FAILED,
	DB_RUN_CANCELLED,
	DB_RUN_INTERRUPTED
};

/*
 * Who may talk to a PostgreSQL store, and when it failed: enter is asked
 * before each statement (non-zero: not now, the statement fails with
 * DB_ERR_BUSY at once), leave is told how it went. The API keeps HTTP
 * threads free with it, and learns at once that the database is away.
 */
struct db_gate {
	int	(*enter)(void *ctx);
	void	(*leave)(void *ctx, enum db_status st, const char *err);
	void	 *ctx;
};

struct db_open_opts {
	int	  readonly;		/* open for reading only */
	int	  busy_timeout_ms;	/* 0: DB_BUSY_TIMEOUT_MS */
	int	  no_recover;		/* leave running runs alone */
	void	(*log)(void *ctx, const char *msg);	/* NULL: quiet */
	void	 *log_ctx;
};

struct db_run {
	int64_t			id;
	char			host_id[33];
	char			fingerprint[33];
	char			profile[64];
	enum db_trigger		trigger;
	enum db_run_status	status;
	int			points_done;
	int			points_total;
	int			noisy_points;
	int			effective_cpus;
	uint64_t		mem_budget;
	enum host_budget_source	budget_source;
	char			error[256];
	char			created[32];	/* ISO 8601 UTC */
	char			started[32];	/* "" until it starts */
	char			finished[32];	/* "" until it ends */
};

struct db;

/* db.c */

/*
 * Open (creating if needed) the store at path, or ":memory:". Refuses a
 * file that is not an SQLite database, checks it (quick_check), moves a
 * corrupt one aside (not read-only), applies migrations, marks
 * interrupted runs. A postgresql:// URI: connects, migrates (a writer),
 * marks this machine's interrupted runs. opts may be NULL.
 */
enum db_status db_open(const char *path, const struct db_open_opts *opts,
	    struct db **out, char *err, size_t errlen);
void	 db_close(struct db *db);

/*
 * Limits for an open PostgreSQL store (nothing for SQLite): a statement
 * the server has not answered in timeout_ms is given up and its
 * connection dropped (DB_ERR_UNAVAILABLE; reconnected after the backoff),
 * 0 for no limit; gate (NULL: none) is asked before each statement.
 */
void	 db_set_limits(struct db *db, int timeout_ms,
	    const struct db_gate *gate);

/* 1 when locator names a PostgreSQL database (postgresql://, postgres://). */
int	 db_is_postgresql(const char *locator);

/*
 * Would db_open() take the file at locator as a store (or make one there)?
 * The checks it makes first, without opening anything to write and
 * without leaving a file beside it (pwtuned -n): DB_OK, or why not in
 * err (DB_ERR_INVALID: not a store, left as it is). A PostgreSQL locator
 * is DB_OK (the server is reached at start).
 */
enum db_status db_identify(const char *locator, char *err, size_t errlen);

/* locator fit for a log: the password of a URI replaced by "***". */
void	 db_locator_redact(const char *locator, char *out, size_t outlen);

/* Is the store there? PostgreSQL: a round trip (reconnecting). */
enum db_status db_ping(struct db *db, char *err, size_t errlen);

/*
 * Open path at schema version (0 .. DB_SCHEMA_VERSION) without migrating
 * further or recovering runs: for the migration tests.
 */
enum db_status db_open_version(const char *path, int version,
	    struct db **out, char *err, size_t errlen);

/* "ok", "io", "full", "readonly", ... */
const char *db_status_name(enum db_status st);
const char *db_trigger_name(enum db_trigger t);
const char *db_run_status_name(enum db_run_status s);
int	 db_run_status_parse(const char *s, enum db_run_status *out);

/* The schema version of the open store. */
int	 db_schema_version(struct db *db);

/*
 * result is "ok" or the first problems found: SQLite's integrity_check;
 * on PostgreSQL, runs whose point count disagrees with their points.
 */
enum db_status db_check(struct db *db, char *result, size_t resultlen,
	    char *err, size_t errlen);

/* Mark runs whose owner process is gone as interrupted; *n how many. */
enum db_status db_recover_interrupted(struct db *db, size_t *n, char *err,
	    size_t errlen);

/* runs.c */

/*
 * Create a run for rep's host (inserted or refreshed in hosts), profile
 * and budget, with points_total points to come, status queued, owned by
 * this process. rep->results are not written.
 */
enum db_status db_run_create(struct db *db, const struct report *rep,
	    size_t points_total, enum db_trigger trigger, int64_t *id,
	    char *err, size_t errlen);

/*
 * Move a run to status. running records the start time; done, failed,
 * cancelled and interrupted record the end time. error may be NULL.
 */
enum db_status db_run_set_status(struct db *db, int64_t id,
	    enum db_run_status status, const char *error, char *err,
	    size_t errlen);

/* Add point number seq (0-based) of a run, in one transaction. */
enum db_status db_run_add_point(struct db *db, int64_t id, size_t seq,
	    const struct measure_result *r, char *err, size_t errlen);

enum db_status db_run_get(struct db *db, int64_t id, struct db_run *run,
	    char *err, size_t errlen);

/*
 * The newest runs first, of host_id (NULL: every host), at most limit
 * (at most DB_RUNS_LIST_MAX). *runs is allocated; the caller frees it.
 */
enum db_status db_runs_list(struct db *db, const char *host_id,
	    size_t limit, struct db_run **runs, size_t *n, char *err,
	    size_t errlen);

/*
 * The newest finished (done) run of host_id (NULL: any host), and of
 * fingerprint when not NULL. DB_ERR_NOTFOUND when there is none.
 */
enum db_status db_run_latest_done(struct db *db, const char *host_id,
	    const char *fingerprint, int64_t *id, char *err, size_t errlen);

/*
 * A model's curve, as model_fit makes one: Argon2 points measured (ok,
 * a median over 0) at k = 1 of a backend, variant and p.
 */
#define DB_CURVE_POINT(t)						\
	t ".k = 1 AND " t ".status = 'ok' AND " t ".median_ms > 0 AND "	\
	t ".variant IN ('argon2d', 'argon2i', 'argon2id')"

/*
 * The run host_id's model stands on: of its finished runs on fingerprint
 * (the host as it is now; NULL: its newest run's), else on any, the
 * newest that measured the curve the default answer stands on
 * (libsodium's argon2id at p = 1), else argon2id at p = 1 on libargon2,
 * else any curve; the daemon's own (start-up, API, schedule) before
 * those of pwtune bench --db or db import. DB_ERR_NOTFOUND when the host
 * has no finished run.
 */
enum db_status db_model_run(struct db *db, const char *host_id,
	    const char *fingerprint, int64_t *id, char *err, size_t errlen);

/* A curve (backend, variant, p) of a model and the run that measured it. */
struct db_model_source {
	enum kdf_backend	backend;
	enum kdf_alg		variant;
	uint32_t		p;
	int64_t			run;
};

/* Where the points of db_model_report came from. */
struct db_model_sources {
	size_t			nown;	/* the run's own, first */
	struct db_model_source	src[MODEL_CURVES_MAX];	/* the others' */
	size_t			n;
};

/*
 * The points a model of run id is fitted from: the run's report
 * (db_run_report) and, after its points, those of each curve (backend,
 * variant, p) it did not measure, from the newest of the host's other
 * finished runs on the same fingerprint that did (MODEL_CURVES_MAX curves
 * in all, the newest measured first). A curve whose stored points cannot
 * be read is left out, said through the store's log. out (NULL: not
 * wanted) says where each point came from. Release with report_release().
 */
enum db_status db_model_report(struct db *db, int64_t id, struct report *rep,
	    struct db_model_sources *out, char *err, size_t errlen);

/*
 * Each curve of m (fitted from db_model_report(id)) its run: src's for a
 * curve another run measured, id for the others; m->run_id is id.
 */
void	 db_model_sources_apply(const struct db_model_sources *src,
	    int64_t id, struct model *m);

/*
 * The model fitted from db_model_report(id): m->run_id is id, each
 * curve's run_id the run that measured it. Its stacks are not read
 * (db_model_stacks).
 */
enum db_status db_model_fit(struct db *db, int64_t id, struct model *m,
	    char *err, size_t errlen);

/*
 * A run as a report (host as it was, profile, budget, every point in
 * order), the document `pwtune bench --json` writes. Release with
 * report_release().
 */
enum db_status db_run_report(struct db *db, int64_t id, struct report *rep,
	    char *err, size_t errlen);

/*
 * Store a whole report (from `pwtune bench --json` or `db export` on
 * another host) as one finished run, in one transaction.
 */
enum db_status db_import_report(struct db *db, const struct report *rep,
	    int64_t *id, char *err, size_t errlen);

/*
 * Keep the newest keep runs of host_id, deleting older ones that are not
 * running or queued, are not protect (the run behind the current model;
 * 0 for none) and are not, on fingerprint (the host as it is now; NULL:
 * its newest run's), the newest finished run to measure one of its
 * curves (a model takes it: db_model_report). *deleted says how many
 * went.
 */
enum db_status db_retention(struct db *db, const char *host_id,
	    const char *fingerprint, size_t keep, int64_t protect,
	    size_t *deleted, char *err, size_t errlen);

/* hosts.c */

struct db_host {
	char		id[33];
	char		fingerprint[33];
	char		first_seen[32];
	char		last_seen[32];
	char	       *facts;		/* the host JSON; owned, free() it */
	int64_t		last_run;	/* newest finished run; 0: none */
	char		last_run_fingerprint[33];
	char		last_run_finished[32];	/* ISO 8601 UTC */
	uint64_t	last_run_budget;	/* bytes */
	char		last_run_budget_source[16];
	int		last_run_cpus;		/* effective CPUs */
	char		group[DB_GROUP_MAX];	/* "" : none */
};

/*
 * Every host, or the one named id (NULL: all), with its newest finished
 * run. *hosts is allocated, each facts too: free with db_hosts_free.
 */
enum db_status db_hosts_list(struct db *db, const char *id,
	    struct db_host **hosts, size_t *n, char *err, size_t errlen);
void	 db_hosts_free(struct db_host *hosts, size_t n);

/*
 * The group label of host_id ("" for none), as its daemon's configuration
 * says. DB_ERR_NOTFOUND when the host has no row yet (its first run makes
 * one).
 */
enum db_status db_host_set_group(struct db *db, const char *host_id,
	    const char *group, char *err, size_t errlen);

/* models.c */

/*
 * Store the model fitted from run id: one row per curve (backend, variant,
 * p) with its coefficients as JSON and its leave-one-out errors, replacing
 * any stored before for that run.
 */
enum db_status db_model_put(struct db *db, int64_t id, const struct model *m,
	    char *err, size_t errlen);

/*
 * How many curves are stored for run id, with the worst leave-one-out
 * error among them.
 */
enum db_status db_model_count(struct db *db, int64_t id, size_t *curves,
	    double *loo_worst, char *err, size_t errlen);

/*
 * Record that parameters recommended from run id for target_ms were
 * measured: predicted and measured ms at the percentile asked. params is
 * a JSON text naming them (variant, m, t, p, k, percentile).
 */
enum db_status db_verification_add(struct db *db, int64_t id,
	    double target_ms, const char *params, double predicted_ms,
	    double measured_ms, char *err, size_t errlen);

struct db_verification {
	int64_t		id;
	int64_t		run_id;
	double		target_ms;
	double		predicted_ms;
	double		measured_ms;
	char		params[256];	/* JSON: variant, m_kib, t, p, k, ... */
	char		created[32];
};

/*
 * The newest verifications (at most limit) of host_id's runs, newest
 * first; *out is malloc'd (free() it).
 */
enum db_status db_verifications_list(struct db *db, const char *host_id,
	    size_t limit, struct db_verification **out, size_t *n, char *err,
	    size_t errlen);

/* observations.c */

/*
 * What a service's own runtime measured for parameters (POST
 * /v1/observations): per host and stack ("php-8.2-libargon2"); or what a
 * stack's probe measured in a run of the daemon (source "probe",
 * model_run that run).
 */
struct db_observation {
	int64_t		id;
	char		host_id[33];
	char		stack[DB_STACK_MAX];
	char		source[16];		/* "service" ("" too), "probe" */
	char		variant[16];		/* argon2id, argon2i, argon2d */
	uint32_t	m_kib, t, p, k;
	size_t		nsamples;
	double		median_ms;
	double		p95_ms;
	double		predicted_ms;		/* the model's p50 then; < 0: none */
	int64_t		model_run;		/* 0: none */
	char		created[32];
};

/*
 * Store o (its id and created are filled in) with its samples (at most
 * DB_OBS_SAMPLES_MAX), in one transaction. The host must exist. The same
 * transaction deletes what is older than the newest DB_OBS_KEEP of o's
 * host, stack and source. A service's observation (source "service")
 * under a name the host has none under yet, not of the catalogue, is
 * DB_ERR_LIMIT when the host has services' observations under
 * DB_OBS_STACKS_MAX names already (the store stays bounded whatever
 * names are posted).
 */
enum db_status db_observation_add(struct db *db, struct db_observation *o,
	    const double *samples, size_t nsamples, char *err, size_t errlen);

/*
 * Forget what services posted of stack on host_id (source "service"; a
 * run's probe points and the background checks' measurements stay with
 * their run): *deleted, how many. The way back from a service's wrong
 * timings, or from DB_OBS_STACKS_MAX names taken.
 */
enum db_status db_observations_forget(struct db *db, const char *host_id,
	    const char *stack, int64_t *deleted, char *err, size_t errlen);

/*
 * The sources of observations the daemon's background checks store: a
 * measurement the run's model takes as a point, and one it does not (a
 * suspect one, a drift, a busy host).
 */
#define DB_SOURCE_CHECK		"check"
#define DB_SOURCE_CHECK_SUSPECT	"check-suspect"

/*
 * The checks of host_id stored under model run `run` as points of its
 * model (source DB_SOURCE_CHECK), newest first, at most limit; *out is
 * malloc'd.
 */
enum db_status db_run_checks(struct db *db, const char *host_id, int64_t run,
	    size_t limit, struct db_observation **out, size_t *n, char *err,
	    size_t errlen);

/*
 * The newest observations (at most limit) of host_id (NULL: every host)
 * and of stack (NULL: every stack), newest first; *out is malloc'd.
 */
enum db_status db_observations_list(struct db *db, const char *host_id,
	    const char *stack, size_t limit, struct db_observation **out,
	    size_t *n, char *err, size_t errlen);
/*
 * The same, for what corrects a stack (fleet answers, db_stack_ratios):
 * without the points of a probe that hashed through the curve's own
 * library (probes.shares: they timed the host's moment, not the runtime).
 */
enum db_status db_stack_observations(struct db *db, const char *host_id,
	    const char *stack, size_t limit, struct db_observation **out,
	    size_t *n, char *err, size_t errlen);

/* What fleet answers read (hosts.c, observations.c). */

/*
 * Can host h answer for a group now? 1 when its newest finished run was
 * measured on its current facts and is at most max_age seconds old (0:
 * any age); 0 with why ("no finished run", "stale: ...") otherwise.
 */
int	 db_host_fresh(const struct db_host *h, time_t now, unsigned max_age,
	    char *why, size_t len);

/* The model fitted from h's newest finished run, with its stacks. */
enum db_status db_host_model(struct db *db, const struct db_host *h,
	    struct model *m, char *err, size_t errlen);

/*
 * Observed / predicted (p50, under m) of the newest observations (at most
 * max) of stack on host_id; observations at a p that m never measured are
 * left out.
 */
enum db_status db_stack_ratios(struct db *db, const char *host_id,
	    const char *stack, const struct model *m, double *ratios,
	    size_t max, size_t *n, char *err, size_t errlen);

/* stacks.c */

/*
 * What stack's probe came to in run id: status ("ok", "not installed",
 * ... as probe_status_name), why it was not probed ("" when it was), the
 * runtime and library its header named, the library file it shared with
 * the curve ("" or NULL: none, model_stack.shares), the points it
 * measured and the seconds it took. Replaces what was stored for that run
 * and stack.
 */
enum db_status db_probe_put(struct db *db, int64_t id, const char *stack,
	    const char *status, const char *why, const char *runtime,
	    const char *library, const char *shares, size_t points,
	    double seconds, char *err, size_t errlen);

/*
 * m's stacks[] from the store, for host_id and the run m was fitted from
 * (m->run_id): each catalogue stack's probe points of that run plus the
 * newest observations services posted of it (at least
 * FLEET_STACK_MIN_OBS of them when there is no probe point; theirs alone
 * when there are that many and the probe shared the curve's library,
 * probes.shares, kept in model_stack.shares), fitted with
 * stack_fit; a stack with none is an entry MODEL_STACK_LIBRARY saying
 * why (its probe's reason as stored). Stacks only services know are
 * added as their observations allow. The daemon and the CLI answer from
 * the same model this way.
 */
enum db_status db_model_stacks(struct db *db, const char *host_id,
	    struct model *m, char *err, size_t errlen);

/*
 * The checks taken under run id of host_id (measurements at answers'
 * exact parameters, k = 1: daemon/checks.c) into m, as model_fit_checks
 * takes them: of the last max_age_s seconds only (a host changes), at
 * most limit, of several at the same parameters the newest. *used: how
 * many the model took. The daemon's refits and pwtune recommend --db
 * answer from the same model this way.
 */
#define DB_CHECKS_MAX		128		/* the newest, per run */
#define DB_CHECKS_MAX_AGE_S	(7 * 86400)	/* a host changes */
enum db_status db_model_checks(struct db *db, const char *host_id,
	    int64_t id, long max_age_s, size_t limit, struct model *m,
	    size_t *used, char *err, size_t errlen);

/*
 * One stack of m refitted from the store as db_model_stacks does (its
 * entry replaced, or added; a catalogue stack's left as it was when
 * nothing fits; a name only services know taken out of m when they have
 * posted too few of it: forgotten, DELETE /v1/observations).
 */
enum db_status db_model_stack(struct db *db, const char *host_id,
	    struct model *m, const char *stack, char *err, size_t errlen);

#endif /* PWTUNE_DB_H */
