/*
 * db/db_impl.h: what the files of db/ share. Private: nothing outside db/
 * includes it.
 */
#ifndef PWTUNE_DB_IMPL_H
#define PWTUNE_DB_IMPL_H

#include <time.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "db.h"

/* Prepared statements kept per connection, prepared on first use. */
enum db_stmt {
	ST_HOST_UPSERT,
	ST_RUN_INSERT,
	ST_RUN_GET,
	ST_RUN_SET_STATUS,
	ST_RUN_POINT_INSERT,
	ST_RUN_POINT_COUNT,
	ST_RUN_POINTS,
	ST_RUN_LATEST_DONE,
	ST_RUN_OWNERS,
	ST_RUN_INTERRUPT,
	ST__COUNT
};

struct db {
	sqlite3		*conn;		/* SQLite; NULL for PostgreSQL */
	PGconn		*pg;		/* PostgreSQL; NULL for SQLite */
	time_t		 pg_retry;	/* no reconnect before (a backoff) */
	unsigned long	 pg_seen;	/* pg_connects when the last one failed */
	char		 path[4096];	/* the file, or the redacted URI */
	int		 readonly;
	sqlite3_stmt	*stmts[ST__COUNT];
	void	       (*log)(void *, const char *);
	void		*log_ctx;
	char		 owner[256];	/* "pid:starttime" of this process;
					   PostgreSQL adds "@boot_id/host" */
};

/*
 * A public function of db.h served by PostgreSQL when db is one: the
 * SQLite code below it runs otherwise.
 */
#define DB_PG(db, call) do {						\
	if ((db)->pg != NULL)						\
		return (call);						\
} while (0)

/* db.c */
enum db_status db_error(struct db *db, int rc, const char *what, char *err,
	    size_t errlen);
sqlite3_stmt	*db_stmt(struct db *db, enum db_stmt which, char *err,
	    size_t errlen);
enum db_status db_begin(struct db *db, char *err, size_t errlen);
enum db_status db_commit(struct db *db, char *err, size_t errlen);
void		 db_rollback(struct db *db);
void		 db_now(char *buf, size_t len);
int		 db_owner_alive(const char *owner);

int		 db_process_identity(long pid, char *buf, size_t len);

/* db_pg.c: db.h's functions on PostgreSQL, same contracts. */
enum db_status pg_open(struct db *db, const char *uri,
	    const struct db_open_opts *o, int version, char *err,
	    size_t errlen);
void		 pg_close(struct db *db);
int		 pg_schema_version(struct db *db);
enum db_status pg_ping(struct db *db, char *err, size_t errlen);
enum db_status pg_check(struct db *db, char *result, size_t resultlen,
	    char *err, size_t errlen);
enum db_status pg_recover_interrupted(struct db *db, size_t *n, char *err,
	    size_t errlen);
enum db_status pg_run_create(struct db *db, const struct report *rep,
	    size_t points_total, enum db_trigger trigger, int64_t *id,
	    char *err, size_t errlen);
enum db_status pg_run_set_status(struct db *db, int64_t id,
	    enum db_run_status status, const char *error, char *err,
	    size_t errlen);
enum db_status pg_run_add_point(struct db *db, int64_t id, size_t seq,
	    const struct measure_result *r, char *err, size_t errlen);
enum db_status pg_run_get(struct db *db, int64_t id, struct db_run *run,
	    char *err, size_t errlen);
enum db_status pg_runs_list(struct db *db, const char *host_id,
	    size_t limit, struct db_run **runs, size_t *n, char *err,
	    size_t errlen);
enum db_status pg_run_latest_done(struct db *db, const char *host_id,
	    const char *fingerprint, int64_t *id, char *err, size_t errlen);
enum db_status pg_run_report(struct db *db, int64_t id, struct report *rep,
	    char *err, size_t errlen);
enum db_status pg_import_report(struct db *db, const struct report *rep,
	    int64_t *id, char *err, size_t errlen);
enum db_status pg_retention(struct db *db, const char *host_id, size_t keep,
	    int64_t protect, size_t *deleted, char *err, size_t errlen);
enum db_status pg_hosts_list(struct db *db, const char *id,
	    struct db_host **hosts, size_t *n, char *err, size_t errlen);
enum db_status pg_host_set_group(struct db *db, const char *host_id,
	    const char *group, char *err, size_t errlen);
enum db_status pg_model_put(struct db *db, int64_t id, const struct model *m,
	    char *err, size_t errlen);
enum db_status pg_model_count(struct db *db, int64_t id, size_t *curves,
	    double *loo_worst, char *err, size_t errlen);
enum db_status pg_verification_add(struct db *db, int64_t id,
	    double target_ms, const char *params, double predicted_ms,
	    double measured_ms, char *err, size_t errlen);
enum db_status pg_verifications_list(struct db *db, const char *host_id,
	    size_t limit, struct db_verification **out, size_t *n, char *err,
	    size_t errlen);
enum db_status pg_observation_add(struct db *db, struct db_observation *o,
	    const double *samples, size_t nsamples, char *err, size_t errlen);
enum db_status pg_observations_list(struct db *db, const char *host_id,
	    const char *stack, size_t limit, struct db_observation **out,
	    size_t *n, char *err, size_t errlen);

/* Shared by both engines (db_runs.c). */
int		 db_report_valid(const struct report *rep, char *err,
	    size_t errlen);
enum db_status	 db_report_begin(struct report *rep, const struct db_run *run,
	    const char *facts, char *err, size_t errlen);
enum db_status	 db_report_point(struct report *rep, size_t *cap,
	    const char *data, int64_t id, char *err, size_t errlen);
char		*db_samples_json(const double *samples, size_t n);
int		 db_observation_valid(const struct db_observation *o,
	    size_t nsamples, char *err, size_t errlen);
void		 db_run_parse_enums(struct db_run *run, const char *trigger,
	    const char *status, const char *budget_source);

#endif /* PWTUNE_DB_IMPL_H */
