/*
 * db/db_pg.c: the store on PostgreSQL, for fleets. The same contracts as
 * the SQLite code (db.h): every write one transaction, runs written point
 * by point, migrations forward only, interrupted runs recovered, errors
 * mapped to db_status with a message naming the database (its password
 * redacted).
 *
 * Concurrent writers are safe: ids come from identity columns, a host row
 * is an upsert, a run's point count is incremented in the statement that
 * counts it, and migrations take an advisory lock, so daemons starting
 * together migrate once. A lost connection is DB_ERR_UNAVAILABLE; the next
 * call reconnects, and a statement outside a transaction is retried once
 * on the new connection.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_impl.h"

#define PG_ARGS_MAX		16
#define PG_MIGRATION_LOCK	"7077747565"	/* "pwtue": any fixed key */
#define PG_CONNECT_TIMEOUT	"5"		/* seconds */
#define PG_RETRY_S		2	/* between reconnects of a connection */

/*
 * Connections made in this process, counted: a connection waiting out its
 * backoff tries again at once when another one has connected since it
 * failed (the server is back), so every thread sees the store return
 * together with the first.
 */
static atomic_ulong	pg_connects;

/* A timestamp as ISO 8601 UTC text, as the SQLite store keeps it. */
#define ISO(c)	"to_char(" c " AT TIME ZONE 'UTC', "			\
		"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

/*
 * Migrations, forward only, in PostgreSQL's dialect: pg_migrations[i] takes
 * the schema from version i to i + 1 (pwtune_schema holds the version).
 */
static const char *const pg_migrations[DB_SCHEMA_VERSION] = {
	/* 0 -> 1: the tables. */
	"CREATE TABLE hosts ("
	"  id TEXT PRIMARY KEY,"
	"  fingerprint TEXT NOT NULL,"
	"  cpu_model TEXT NOT NULL,"
	"  online_cpus INTEGER NOT NULL,"
	"  mem_total BIGINT NOT NULL,"
	"  cgroup_mem_limit BIGINT NOT NULL,"
	"  kernel TEXT NOT NULL,"
	"  facts JSONB NOT NULL,"
	"  first_seen TIMESTAMPTZ NOT NULL,"
	"  last_seen TIMESTAMPTZ NOT NULL);"
	"CREATE TABLE runs ("
	"  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	"  host_id TEXT NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,"
	"  fingerprint TEXT NOT NULL,"
	"  host_facts JSONB NOT NULL,"
	"  profile TEXT NOT NULL,"
	"  trigger TEXT NOT NULL CHECK (trigger IN"
	"    ('startup', 'api', 'schedule', 'cli', 'import')),"
	"  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done',"
	"    'failed', 'cancelled', 'interrupted')),"
	"  points_done INTEGER NOT NULL DEFAULT 0,"
	"  points_total INTEGER NOT NULL DEFAULT 0,"
	"  noisy_points INTEGER NOT NULL DEFAULT 0,"
	"  effective_cpus INTEGER NOT NULL DEFAULT 0,"
	"  mem_budget BIGINT NOT NULL DEFAULT 0,"
	"  budget_source TEXT NOT NULL DEFAULT 'memavailable',"
	"  owner TEXT,"
	"  error TEXT,"
	"  created TIMESTAMPTZ NOT NULL,"
	"  started TIMESTAMPTZ,"
	"  finished TIMESTAMPTZ);"
	"CREATE TABLE points ("
	"  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	"  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  backend TEXT NOT NULL,"
	"  variant TEXT NOT NULL,"
	"  m_kib BIGINT NOT NULL,"
	"  t BIGINT NOT NULL,"
	"  p INTEGER NOT NULL,"
	"  k INTEGER NOT NULL,"
	"  status TEXT NOT NULL,"
	"  median_ms DOUBLE PRECISION,"
	"  noisy BOOLEAN NOT NULL DEFAULT false,"
	"  data JSONB NOT NULL,"
	"  UNIQUE (run_id, seq));"
	"CREATE TABLE models ("
	"  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	"  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  backend TEXT NOT NULL,"
	"  variant TEXT NOT NULL,"
	"  p INTEGER NOT NULL,"
	"  coefficients JSONB NOT NULL,"
	"  loo_median DOUBLE PRECISION,"
	"  loo_worst DOUBLE PRECISION,"
	"  created TIMESTAMPTZ NOT NULL,"
	"  UNIQUE (run_id, backend, variant, p));"
	"CREATE TABLE verifications ("
	"  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	"  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  target_ms DOUBLE PRECISION NOT NULL,"
	"  params TEXT NOT NULL,"
	"  predicted_ms DOUBLE PRECISION NOT NULL,"
	"  measured_ms DOUBLE PRECISION NOT NULL,"
	"  created TIMESTAMPTZ NOT NULL);",
	/* 1 -> 2: indices for what the API asks. */
	"CREATE INDEX runs_host ON runs(host_id, id);"
	"CREATE INDEX runs_status ON runs(status);"
	"CREATE INDEX runs_fingerprint ON runs(fingerprint, status);"
	"CREATE INDEX models_run ON models(run_id);"
	"CREATE INDEX verifications_run ON verifications(run_id);",
	/* 2 -> 3: host groups, and what services observed. */
	"ALTER TABLE hosts ADD COLUMN host_group TEXT NOT NULL DEFAULT '';"
	"CREATE INDEX hosts_group ON hosts(host_group);"
	"CREATE TABLE observations ("
	"  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	"  host_id TEXT NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,"
	"  stack TEXT NOT NULL,"
	"  variant TEXT NOT NULL,"
	"  m_kib BIGINT NOT NULL,"
	"  t BIGINT NOT NULL,"
	"  p INTEGER NOT NULL,"
	"  k INTEGER NOT NULL,"
	"  nsamples INTEGER NOT NULL,"
	"  median_ms DOUBLE PRECISION NOT NULL,"
	"  p95_ms DOUBLE PRECISION NOT NULL,"
	"  predicted_ms DOUBLE PRECISION,"
	"  model_run BIGINT,"
	"  samples JSONB NOT NULL,"
	"  created TIMESTAMPTZ NOT NULL);"
	"CREATE INDEX observations_stack ON observations(host_id, stack, id);",
};

#define RUN_COLUMNS							\
	"id, host_id, fingerprint, profile, trigger, status, points_done,"\
	" points_total, noisy_points, effective_cpus, mem_budget,"	\
	" budget_source, coalesce(error, ''), " ISO("created") ","	\
	" coalesce(" ISO("started") ", ''), coalesce(" ISO("finished")	\
	", ''), host_facts::text"

/* Parameters as text, the way libpq sends them; NULL is SQL NULL. */
struct pg_args {
	const char	*v[PG_ARGS_MAX];
	char		 num[PG_ARGS_MAX][32];
	int		 n;
};

static void
a_str(struct pg_args *a, const char *s)
{
	a->v[a->n++] = s;
}

static void
a_i64(struct pg_args *a, long long x)
{
	snprintf(a->num[a->n], sizeof(a->num[a->n]), "%lld", x);
	a->v[a->n] = a->num[a->n];
	a->n++;
}

static void
a_dbl(struct pg_args *a, double x)
{
	snprintf(a->num[a->n], sizeof(a->num[a->n]), "%.17g", x);
	a->v[a->n] = a->num[a->n];
	a->n++;
}

/* The first line of a libpq message. */
static void
pg_message(const char *msg, char *out, size_t outlen)
{
	size_t	n;

	snprintf(out, outlen, "%s", msg != NULL && *msg ? msg :
	    "no message");
	n = strcspn(out, "\n");
	out[n] = '\0';
}

/* Map a failed result (or a lost connection) to a status with a message. */
static enum db_status
pg_fail(struct db *db, PGresult *res, const char *what, char *err,
    size_t errlen)
{
	const char	*state = res != NULL ?
	    PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	char		 msg[512];
	enum db_status	 st;

	pg_message(res != NULL ? PQresultErrorMessage(res) :
	    PQerrorMessage(db->pg), msg, sizeof(msg));
	if (PQstatus(db->pg) != CONNECTION_OK || (state != NULL &&
	    (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0)))
		st = DB_ERR_UNAVAILABLE;
	else if (state == NULL)
		st = DB_ERR_INTERNAL;
	else if (strcmp(state, "53100") == 0)
		st = DB_ERR_FULL;
	else if (strcmp(state, "53200") == 0)
		st = DB_ERR_NOMEM;
	else if (strcmp(state, "25006") == 0 || strcmp(state, "42501") == 0)
		st = DB_ERR_READONLY;
	else if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
	    strcmp(state, "55P03") == 0)
		st = DB_ERR_BUSY;
	else if (strncmp(state, "23", 2) == 0 || strncmp(state, "22", 2) == 0)
		st = DB_ERR_INVALID;
	else
		st = DB_ERR_INTERNAL;
	snprintf(err, errlen, "%s: %s: %s%s", db->path, what,
	    st == DB_ERR_UNAVAILABLE ? "the database cannot be reached: " : "",
	    msg);
	return st;
}

/*
 * Reconnect a connection that was lost, at most every PG_RETRY_S seconds
 * (sooner once another connection of this process got through): a server
 * that drops packets holds a caller for connect_timeout, and only once in
 * that while.
 */
static enum db_status
pg_connected(struct db *db, char *err, size_t errlen)
{
	time_t	now;

	if (PQstatus(db->pg) == CONNECTION_OK)
		return DB_OK;
	now = time(NULL);
	if (now < db->pg_retry && atomic_load(&pg_connects) == db->pg_seen)
		return pg_fail(db, NULL, "connect", err, errlen);
	PQreset(db->pg);
	if (PQstatus(db->pg) == CONNECTION_OK) {
		atomic_fetch_add(&pg_connects, 1);
		return DB_OK;
	}
	db->pg_seen = atomic_load(&pg_connects);
	db->pg_retry = time(NULL) + PG_RETRY_S;
	return pg_fail(db, NULL, "connect", err, errlen);
}

/*
 * Run sql. want is PGRES_COMMAND_OK or PGRES_TUPLES_OK; *out gets the
 * result (PQclear it) when out is not NULL. Outside a transaction a
 * statement that found the connection gone runs again on a new one.
 */
static enum db_status
pg_run(struct db *db, const char *what, const char *sql,
    const struct pg_args *a, ExecStatusType want, PGresult **out, char *err,
    size_t errlen)
{
	PGresult	*res;
	enum db_status	 st;
	int		 idle, attempt;

	if (out != NULL)
		*out = NULL;
	for (attempt = 0; attempt < 2; attempt++) {
		if ((st = pg_connected(db, err, errlen)) != DB_OK)
			return st;
		idle = PQtransactionStatus(db->pg) == PQTRANS_IDLE;
		/* Without parameters: the simple protocol (migrations hold
		   several statements). */
		res = a == NULL ? PQexec(db->pg, sql) : PQexecParams(db->pg,
		    sql, a->n, NULL, a->v, NULL, NULL, 0);
		if (res != NULL && PQresultStatus(res) == want) {
			if (out != NULL)
				*out = res;
			else
				PQclear(res);
			return DB_OK;
		}
		st = pg_fail(db, res, what, err, errlen);
		PQclear(res);
		if (st != DB_ERR_UNAVAILABLE || !idle ||
		    PQstatus(db->pg) == CONNECTION_OK)
			return st;
	}
	return st;
}

static enum db_status
pg_exec(struct db *db, const char *what, const char *sql,
    const struct pg_args *a, char *err, size_t errlen)
{
	return pg_run(db, what, sql, a, PGRES_COMMAND_OK, NULL, err, errlen);
}

static enum db_status
pg_query(struct db *db, const char *what, const char *sql,
    const struct pg_args *a, PGresult **out, char *err, size_t errlen)
{
	return pg_run(db, what, sql, a, PGRES_TUPLES_OK, out, err, errlen);
}

static enum db_status
pg_begin(struct db *db, char *err, size_t errlen)
{
	if (db->readonly) {
		snprintf(err, errlen, "%s: opened read-only", db->path);
		return DB_ERR_READONLY;
	}
	return pg_exec(db, "begin", "BEGIN", NULL, err, errlen);
}

static void
pg_rollback(struct db *db)
{
	PGresult	*res;

	if (PQstatus(db->pg) == CONNECTION_OK &&
	    PQtransactionStatus(db->pg) != PQTRANS_IDLE) {
		res = PQexec(db->pg, "ROLLBACK");
		PQclear(res);
	}
}

static enum db_status
pg_commit(struct db *db, char *err, size_t errlen)
{
	enum db_status	st;

	if ((st = pg_exec(db, "commit", "COMMIT", NULL, err, errlen)) != DB_OK)
		pg_rollback(db);
	return st;
}

/* End a transaction: commit after DB_OK, roll back otherwise. */
static enum db_status
pg_end(struct db *db, enum db_status st, char *err, size_t errlen)
{
	if (st == DB_OK)
		return pg_commit(db, err, errlen);
	pg_rollback(db);
	return st;
}

static const char *
pg_val(const PGresult *res, int row, int col)
{
	return PQgetvalue(res, row, col);
}

static long long
pg_i64(const PGresult *res, int row, int col)
{
	return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

static double
pg_dbl(const PGresult *res, int row, int col)
{
	return strtod(PQgetvalue(res, row, col), NULL);
}

static void
pg_copy(char *dst, size_t len, const PGresult *res, int row, int col)
{
	snprintf(dst, len, "%s", PQgetvalue(res, row, col));
}

static int
pg_tuples_changed(PGresult *res)
{
	return atoi(PQcmdTuples(res));
}

/* The schema version, 0 for a database pwtune never wrote; -1: error. */
int
pg_schema_version(struct db *db)
{
	PGresult	*res;
	char		 err[256];
	int		 v = -1;

	if (pg_query(db, "schema version", "SELECT to_regclass("
	    "'pwtune_schema') IS NOT NULL", NULL, &res, err, sizeof(err)) !=
	    DB_OK)
		return -1;
	if (strcmp(pg_val(res, 0, 0), "t") != 0) {
		PQclear(res);
		return 0;
	}
	PQclear(res);
	if (pg_query(db, "schema version", "SELECT coalesce(max(version), 0)"
	    " FROM pwtune_schema", NULL, &res, err, sizeof(err)) != DB_OK)
		return -1;
	v = (int)pg_i64(res, 0, 0);
	PQclear(res);
	return v;
}

/* One step of migration under the advisory lock; *v is the version now. */
static enum db_status
pg_migrate_step(struct db *db, int want, int *v, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;

	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	if ((st = pg_query(db, "migration lock", "SELECT pg_advisory_xact_lock("
	    PG_MIGRATION_LOCK ")", NULL, &res, err, errlen)) != DB_OK)
		return pg_end(db, st, err, errlen);
	PQclear(res);
	if ((st = pg_exec(db, "migration", "CREATE TABLE IF NOT EXISTS "
	    "pwtune_schema (version INTEGER NOT NULL)", NULL, err,
	    errlen)) != DB_OK ||
	    (st = pg_query(db, "migration", "SELECT version FROM pwtune_schema",
	    NULL, &res, err, errlen)) != DB_OK)
		return pg_end(db, st, err, errlen);
	*v = PQntuples(res) > 0 ? (int)pg_i64(res, 0, 0) : 0;
	if (PQntuples(res) == 0)
		st = pg_exec(db, "migration", "INSERT INTO pwtune_schema"
		    " VALUES (0)", NULL, err, errlen);
	PQclear(res);
	if (st != DB_OK || *v >= want || *v > DB_SCHEMA_VERSION)
		return pg_end(db, st, err, errlen);
	if ((st = pg_exec(db, "migration", pg_migrations[*v], NULL, err,
	    errlen)) != DB_OK)
		return pg_end(db, st, err, errlen);
	a_i64(&a, *v + 1);
	if ((st = pg_exec(db, "migration", "UPDATE pwtune_schema SET version ="
	    " $1", &a, err, errlen)) != DB_OK)
		return pg_end(db, st, err, errlen);
	if ((st = pg_commit(db, err, errlen)) == DB_OK)
		(*v)++;
	return st;
}

static enum db_status
pg_migrate(struct db *db, int want, char *err, size_t errlen)
{
	enum db_status	st;
	int		v;

	for (;;) {
		if ((v = pg_schema_version(db)) < 0)
			return pg_fail(db, NULL, "schema version", err, errlen);
		if (v > DB_SCHEMA_VERSION) {
			snprintf(err, errlen, "%s: schema version %d is newer "
			    "than this pwtune knows (%d): upgrade pwtune",
			    db->path, v, DB_SCHEMA_VERSION);
			return DB_ERR_SCHEMA;
		}
		if (v >= want)
			return DB_OK;
		if (db->readonly) {
			snprintf(err, errlen, "%s: schema version %d needs a "
			    "migration, and the store is opened read-only",
			    db->path, v);
			return DB_ERR_READONLY;
		}
		if ((st = pg_migrate_step(db, want, &v, err, errlen)) != DB_OK)
			return st;
	}
}

/* "@boot_id/hostname": where this process runs, for the owner of a run. */
static void
pg_machine(char *buf, size_t len)
{
	char	 boot[64] = "", host[128] = "";
	FILE	*fp;

	if ((fp = fopen("/proc/sys/kernel/random/boot_id", "r")) != NULL) {
		if (fgets(boot, sizeof(boot), fp) == NULL)
			boot[0] = '\0';
		fclose(fp);
	}
	boot[strcspn(boot, "\n")] = '\0';
	if (gethostname(host, sizeof(host) - 1) == -1)
		host[0] = '\0';
	snprintf(buf, len, "@%s/%s", boot, host);
}

static void
pg_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

enum db_status
pg_open(struct db *db, const char *uri, const struct db_open_opts *o,
    int version, char *err, size_t errlen)
{
	/* The URI's own settings come after ours, so they win. */
	static const char *const keys[] = { "connect_timeout",
	    "application_name", "dbname", NULL };
	const char	*vals[] = { PG_CONNECT_TIMEOUT, "pwtune", uri, NULL };
	char		 machine[160], id[64];
	enum db_status	 st;
	size_t		 n;

	if (db_process_identity((long)getpid(), id, sizeof(id)) == -1)
		snprintf(id, sizeof(id), "%ld:0", (long)getpid());
	pg_machine(machine, sizeof(machine));
	snprintf(db->owner, sizeof(db->owner), "%s%s", id, machine);
	db->pg = PQconnectdbParams(keys, vals, 1);
	if (db->pg == NULL) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	PQsetNoticeProcessor(db->pg, pg_quiet, NULL);
	if (PQstatus(db->pg) != CONNECTION_OK)
		return pg_fail(db, NULL, "connect", err, errlen);
	atomic_fetch_add(&pg_connects, 1);
	if ((st = pg_migrate(db, version, err, errlen)) != DB_OK)
		return st;
	if (!db->readonly && !(o != NULL && o->no_recover) &&
	    version == DB_SCHEMA_VERSION) {
		if ((st = pg_recover_interrupted(db, &n, err, errlen)) != DB_OK)
			return st;
		if (n > 0 && o != NULL && o->log != NULL) {
			char	msg[512];

			snprintf(msg, sizeof(msg), "store %.300s: %zu run%s left "
			    "unfinished by a process that ended marked "
			    "interrupted", db->path, n, n == 1 ? "" : "s");
			o->log(o->log_ctx, msg);
		}
	}
	return DB_OK;
}

void
pg_close(struct db *db)
{
	PQfinish(db->pg);
	db->pg = NULL;
}

enum db_status
pg_ping(struct db *db, char *err, size_t errlen)
{
	PGresult	*res;
	enum db_status	 st;

	if ((st = pg_query(db, "ping", "SELECT 1", NULL, &res, err,
	    errlen)) == DB_OK)
		PQclear(res);
	return st;
}

enum db_status
pg_check(struct db *db, char *result, size_t resultlen, char *err,
    size_t errlen)
{
	PGresult	*res;
	enum db_status	 st;
	long long	 bad;

	if ((st = pg_query(db, "check", "SELECT count(*) FROM runs r WHERE"
	    " points_done <> (SELECT count(*) FROM points WHERE run_id = r.id)",
	    NULL, &res, err, errlen)) != DB_OK)
		return st;
	bad = pg_i64(res, 0, 0);
	PQclear(res);
	if (bad == 0)
		snprintf(result, resultlen, "ok");
	else
		snprintf(result, resultlen, "%lld run%s whose point count "
		    "disagrees with its points", bad, bad == 1 ? "" : "s");
	return DB_OK;
}

enum db_status
pg_recover_interrupted(struct db *db, size_t *n, char *err, size_t errlen)
{
	const char	*here = strchr(db->owner, '@');
	struct pg_args	 a;
	PGresult	*res;
	enum db_status	 st;
	char		 now[32], who[160], *at;
	int		 i;

	*n = 0;
	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	a.n = 0;
	a_str(&a, here);
	/* Only runs owned on this machine: others' pids mean nothing here. */
	if ((st = pg_query(db, "read runs", "SELECT id, owner FROM runs WHERE"
	    " status IN ('queued', 'running') AND right(owner, length($1::text))"
	    " = $1::text FOR UPDATE", &a, &res, err, errlen)) != DB_OK)
		return pg_end(db, st, err, errlen);
	db_now(now, sizeof(now));
	for (i = 0; i < PQntuples(res) && st == DB_OK; i++) {
		pg_copy(who, sizeof(who), res, i, 1);
		if ((at = strchr(who, '@')) != NULL)
			*at = '\0';
		if (db_owner_alive(who))
			continue;
		a.n = 0;
		a_i64(&a, pg_i64(res, i, 0));
		a_str(&a, now);
		st = pg_exec(db, "mark interrupted", "UPDATE runs SET status ="
		    " 'interrupted', finished = $2, owner = NULL, error ="
		    " coalesce(error, 'the process running it ended before it"
		    " finished') WHERE id = $1 AND status IN ('queued',"
		    " 'running')", &a, err, errlen);
		if (st == DB_OK)
			(*n)++;
	}
	PQclear(res);
	return pg_end(db, st, err, errlen);
}

static enum db_status
pg_host_upsert(struct db *db, const struct host_info *h, int effective_cpus,
    const char *now, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	json_t		*facts = report_host_to_json(h, effective_cpus);
	char		*text = json_dumps(facts, JSON_COMPACT |
	    JSON_REAL_PRECISION(17));
	enum db_status	 st;

	json_decref(facts);
	if (text == NULL) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	a_str(&a, h->host_id);
	a_str(&a, h->fingerprint);
	a_str(&a, h->cpu_model);
	a_i64(&a, h->online_cpus);
	a_i64(&a, (long long)h->mem_total);
	a_i64(&a, (long long)h->cg_mem_limit);
	a_str(&a, h->kernel);
	a_str(&a, text);
	a_str(&a, now);
	st = pg_exec(db, "save host", "INSERT INTO hosts (id, fingerprint,"
	    " cpu_model, online_cpus, mem_total, cgroup_mem_limit, kernel,"
	    " facts, first_seen, last_seen) VALUES ($1, $2, $3, $4, $5, $6, $7,"
	    " $8::jsonb, $9, $9) ON CONFLICT (id) DO UPDATE SET fingerprint ="
	    " EXCLUDED.fingerprint, cpu_model = EXCLUDED.cpu_model,"
	    " online_cpus = EXCLUDED.online_cpus, mem_total ="
	    " EXCLUDED.mem_total, cgroup_mem_limit = EXCLUDED.cgroup_mem_limit,"
	    " kernel = EXCLUDED.kernel, facts = EXCLUDED.facts, last_seen ="
	    " EXCLUDED.last_seen", &a, err, errlen);
	free(text);
	return st;
}

static enum db_status
pg_run_insert(struct db *db, const struct report *rep, size_t points_total,
    enum db_trigger trigger, enum db_run_status status, const char *now,
    int64_t *id, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	json_t		*facts;
	char		*text;
	enum db_status	 st;

	if ((st = pg_host_upsert(db, &rep->host, rep->effective_cpus, now, err,
	    errlen)) != DB_OK)
		return st;
	facts = report_host_to_json(&rep->host, rep->effective_cpus);
	text = json_dumps(facts, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(facts);
	if (text == NULL) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	a_str(&a, rep->host.host_id);
	a_str(&a, rep->host.fingerprint);
	a_str(&a, text);
	a_str(&a, rep->profile);
	a_str(&a, db_trigger_name(trigger));
	a_str(&a, db_run_status_name(status));
	a_i64(&a, (long long)points_total);
	a_i64(&a, rep->effective_cpus);
	a_i64(&a, (long long)rep->mem_budget);
	a_str(&a, host_budget_source_name(rep->budget_source));
	a_str(&a, status == DB_RUN_QUEUED || status == DB_RUN_RUNNING ?
	    db->owner : NULL);
	a_str(&a, rep->created[0] ? rep->created : now);
	st = pg_query(db, "create run", "INSERT INTO runs (host_id,"
	    " fingerprint, host_facts, profile, trigger, status, points_total,"
	    " effective_cpus, mem_budget, budget_source, owner, created) VALUES"
	    " ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
	    " RETURNING id", &a, &res, err, errlen);
	free(text);
	if (st != DB_OK)
		return st;
	*id = pg_i64(res, 0, 0);
	PQclear(res);
	return DB_OK;
}

enum db_status
pg_run_create(struct db *db, const struct report *rep, size_t points_total,
    enum db_trigger trigger, int64_t *id, char *err, size_t errlen)
{
	char		now[32];
	enum db_status	st;

	if (!db_report_valid(rep, err, errlen))
		return DB_ERR_INVALID;
	db_now(now, sizeof(now));
	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	st = pg_run_insert(db, rep, points_total, trigger, DB_RUN_QUEUED, now,
	    id, err, errlen);
	return pg_end(db, st, err, errlen);
}

static enum db_status
pg_set_status(struct db *db, int64_t id, const char *status,
    const char *error, const char *now, int *changed, char *err,
    size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;

	a_i64(&a, id);
	a_str(&a, status);
	a_str(&a, error);
	a_str(&a, now);
	st = pg_run(db, "update run", "UPDATE runs SET status = $2::text,"
	    " error = coalesce($3::text, error),"
	    " started = CASE WHEN $2::text = 'running' THEN"
	    "   $4::timestamptz ELSE started END,"
	    " finished = CASE WHEN $2::text IN ('done', 'failed', 'cancelled',"
	    "   'interrupted') THEN $4::timestamptz ELSE finished END,"
	    " owner = CASE WHEN $2::text IN ('queued', 'running') THEN owner"
	    "   ELSE NULL END WHERE id = $1", &a, PGRES_COMMAND_OK, &res, err,
	    errlen);
	if (st == DB_OK) {
		*changed = pg_tuples_changed(res);
		PQclear(res);
	}
	return st;
}

enum db_status
pg_run_set_status(struct db *db, int64_t id, enum db_run_status status,
    const char *error, char *err, size_t errlen)
{
	char		now[32];
	enum db_status	st;
	int		changed = 0;

	db_now(now, sizeof(now));
	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	st = pg_set_status(db, id, db_run_status_name(status), error, now,
	    &changed, err, errlen);
	if (st == DB_OK && changed == 0) {
		snprintf(err, errlen, "no run %lld", (long long)id);
		st = DB_ERR_NOTFOUND;
	}
	return pg_end(db, st, err, errlen);
}

static enum db_status
pg_point_insert(struct db *db, int64_t id, size_t seq,
    const struct measure_result *r, char *err, size_t errlen)
{
	const struct kdf_params	*kp = &r->pt.kp;
	struct pg_args		 a = { .n = 0 };
	json_t			*data = report_point_to_json(r, 1);
	char			*text = data != NULL ? json_dumps(data,
	    JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
	enum db_status		 st;

	json_decref(data);
	if (text == NULL) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	a_i64(&a, id);
	a_i64(&a, (long long)seq);
	a_str(&a, kdf_backend_name(kdf_backend_resolve(kp->backend, kp->alg)));
	a_str(&a, kdf_alg_name(kp->alg));
	a_i64(&a, kp->m_kib);
	a_i64(&a, kp->t);
	a_i64(&a, kp->p);
	a_i64(&a, r->pt.k);
	a_str(&a, measure_status_name(r->status));
	if (r->status == MEASURE_OK)
		a_dbl(&a, r->st.median);
	else
		a_str(&a, NULL);
	a_str(&a, r->noisy ? "true" : "false");
	a_str(&a, text);
	st = pg_exec(db, "save point", "INSERT INTO points (run_id, seq,"
	    " backend, variant, m_kib, t, p, k, status, median_ms, noisy, data)"
	    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
	    " $12::jsonb)", &a, err, errlen);
	free(text);
	if (st != DB_OK)
		return st;
	a.n = 0;
	a_i64(&a, id);
	a_i64(&a, r->noisy != 0);
	return pg_exec(db, "count point", "UPDATE runs SET points_done ="
	    " points_done + 1, noisy_points = noisy_points + $2 WHERE id = $1",
	    &a, err, errlen);
}

enum db_status
pg_run_add_point(struct db *db, int64_t id, size_t seq,
    const struct measure_result *r, char *err, size_t errlen)
{
	enum db_status	st;

	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	st = pg_point_insert(db, id, seq, r, err, errlen);
	return pg_end(db, st, err, errlen);
}

/*
 * A list: run sql, allocate limit elements of size (zeroed) in *out. The
 * caller fills them from *res and clears it.
 */
static enum db_status
pg_list(struct db *db, const char *what, const char *sql,
    const struct pg_args *a, size_t limit, size_t size, void **out,
    PGresult **res, char *err, size_t errlen)
{
	enum db_status	st;

	if ((st = pg_query(db, what, sql, a, res, err, errlen)) != DB_OK)
		return st;
	if ((*out = calloc(limit, size)) == NULL) {
		PQclear(*res);
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	return DB_OK;
}

static void
pg_run_from_row(const PGresult *res, int row, struct db_run *run)
{
	memset(run, 0, sizeof(*run));
	run->id = pg_i64(res, row, 0);
	pg_copy(run->host_id, sizeof(run->host_id), res, row, 1);
	pg_copy(run->fingerprint, sizeof(run->fingerprint), res, row, 2);
	pg_copy(run->profile, sizeof(run->profile), res, row, 3);
	db_run_parse_enums(run, pg_val(res, row, 4), pg_val(res, row, 5),
	    pg_val(res, row, 11));
	run->points_done = (int)pg_i64(res, row, 6);
	run->points_total = (int)pg_i64(res, row, 7);
	run->noisy_points = (int)pg_i64(res, row, 8);
	run->effective_cpus = (int)pg_i64(res, row, 9);
	run->mem_budget = (uint64_t)pg_i64(res, row, 10);
	pg_copy(run->error, sizeof(run->error), res, row, 12);
	pg_copy(run->created, sizeof(run->created), res, row, 13);
	pg_copy(run->started, sizeof(run->started), res, row, 14);
	pg_copy(run->finished, sizeof(run->finished), res, row, 15);
}

/* The run's row (RUN_COLUMNS); DB_ERR_NOTFOUND when there is none. */
static enum db_status
pg_run_row(struct db *db, int64_t id, PGresult **res, char *err,
    size_t errlen)
{
	struct pg_args	a = { .n = 0 };
	enum db_status	st;

	a_i64(&a, id);
	if ((st = pg_query(db, "read run", "SELECT " RUN_COLUMNS " FROM runs"
	    " WHERE id = $1", &a, res, err, errlen)) != DB_OK)
		return st;
	if (PQntuples(*res) == 0) {
		PQclear(*res);
		*res = NULL;
		snprintf(err, errlen, "no run %lld", (long long)id);
		return DB_ERR_NOTFOUND;
	}
	return DB_OK;
}

enum db_status
pg_run_get(struct db *db, int64_t id, struct db_run *run, char *err,
    size_t errlen)
{
	PGresult	*res;
	enum db_status	 st;

	if ((st = pg_run_row(db, id, &res, err, errlen)) != DB_OK)
		return st;
	pg_run_from_row(res, 0, run);
	PQclear(res);
	return DB_OK;
}

enum db_status
pg_runs_list(struct db *db, const char *host_id, size_t limit,
    struct db_run **runs, size_t *n, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;
	int		 i;

	a_str(&a, host_id);
	a_i64(&a, (long long)limit);
	if ((st = pg_list(db, "list runs", "SELECT " RUN_COLUMNS " FROM runs"
	    " WHERE ($1::text IS NULL OR host_id = $1) ORDER BY id DESC"
	    " LIMIT $2", &a, limit, sizeof(**runs), (void **)runs, &res, err,
	    errlen)) != DB_OK)
		return st;
	for (i = 0; i < PQntuples(res) && (size_t)i < limit; i++)
		pg_run_from_row(res, i, &(*runs)[(*n)++]);
	PQclear(res);
	return DB_OK;
}

enum db_status
pg_run_latest_done(struct db *db, const char *host_id,
    const char *fingerprint, int64_t *id, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;

	a_str(&a, host_id);
	a_str(&a, fingerprint);
	if ((st = pg_query(db, "find run", "SELECT id FROM runs WHERE status ="
	    " 'done' AND ($1::text IS NULL OR host_id = $1) AND ($2::text IS"
	    " NULL OR fingerprint = $2) ORDER BY id DESC LIMIT 1", &a, &res,
	    err, errlen)) != DB_OK)
		return st;
	if (PQntuples(res) == 0) {
		PQclear(res);
		snprintf(err, errlen, "no finished run%s", host_id != NULL ?
		    " for this host" : "");
		return DB_ERR_NOTFOUND;
	}
	*id = pg_i64(res, 0, 0);
	PQclear(res);
	return DB_OK;
}

enum db_status
pg_run_report(struct db *db, int64_t id, struct report *rep, char *err,
    size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	struct db_run	 run;
	PGresult	*res;
	enum db_status	 st;
	size_t		 cap = 0;
	int		 i;

	if ((st = pg_run_row(db, id, &res, err, errlen)) != DB_OK)
		return st;
	pg_run_from_row(res, 0, &run);
	st = db_report_begin(rep, &run, pg_val(res, 0, 16), err, errlen);
	PQclear(res);
	if (st != DB_OK)
		return st;
	a_i64(&a, id);
	if ((st = pg_query(db, "read points", "SELECT data::text FROM points"
	    " WHERE run_id = $1 ORDER BY seq", &a, &res, err, errlen)) !=
	    DB_OK) {
		report_release(rep);
		return st;
	}
	for (i = 0; i < PQntuples(res) && st == DB_OK; i++)
		st = db_report_point(rep, &cap, pg_val(res, i, 0), id, err,
		    errlen);
	PQclear(res);
	if (st != DB_OK)
		report_release(rep);
	return st;
}

enum db_status
pg_import_report(struct db *db, const struct report *rep, int64_t *id,
    char *err, size_t errlen)
{
	char		now[32];
	enum db_status	st;
	size_t		i;
	int		changed;

	if (!db_report_valid(rep, err, errlen))
		return DB_ERR_INVALID;
	db_now(now, sizeof(now));
	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	st = pg_run_insert(db, rep, rep->n, DB_TRIGGER_IMPORT, DB_RUN_DONE,
	    now, id, err, errlen);
	for (i = 0; st == DB_OK && i < rep->n; i++)
		st = pg_point_insert(db, *id, i, &rep->results[i], err, errlen);
	/* Imported runs are finished: record when they came in. */
	if (st == DB_OK)
		st = pg_set_status(db, *id, "done", NULL, now, &changed, err,
		    errlen);
	return pg_end(db, st, err, errlen);
}

enum db_status
pg_retention(struct db *db, const char *host_id, size_t keep,
    int64_t protect, size_t *deleted, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;

	a_str(&a, host_id);
	a_i64(&a, (long long)keep);
	a_i64(&a, protect);
	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	st = pg_run(db, "retention", "DELETE FROM runs WHERE host_id = $1 AND"
	    " id <> $3 AND status NOT IN ('queued', 'running') AND id NOT IN"
	    " (SELECT id FROM runs WHERE host_id = $1 ORDER BY id DESC"
	    " LIMIT $2)", &a, PGRES_COMMAND_OK, &res, err, errlen);
	if (st == DB_OK) {
		*deleted = (size_t)pg_tuples_changed(res);
		PQclear(res);
	}
	return pg_end(db, st, err, errlen);
}

enum db_status
pg_hosts_list(struct db *db, const char *id, struct db_host **hosts,
    size_t *n, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;
	int		 i, rows;

	a_str(&a, id);
	if ((st = pg_query(db, "list hosts", "SELECT h.id, h.fingerprint, "
	    ISO("h.first_seen") ", " ISO("h.last_seen") ", h.facts::text,"
	    " coalesce(r.id, 0), coalesce(r.fingerprint, ''), coalesce("
	    ISO("r.finished") ", ''), coalesce(r.mem_budget, 0),"
	    " coalesce(r.budget_source, ''), coalesce(r.effective_cpus, 0),"
	    " h.host_group FROM hosts h LEFT JOIN runs r ON r.id = (SELECT"
	    " max(id) FROM runs WHERE host_id = h.id AND status = 'done')"
	    " WHERE $1::text IS NULL OR h.id = $1 ORDER BY h.last_seen DESC"
	    " LIMIT 1000", &a, &res, err, errlen)) != DB_OK)
		return st;
	rows = PQntuples(res);
	if ((*hosts = calloc(rows > 0 ? (size_t)rows : 1, sizeof(**hosts))) ==
	    NULL) {
		PQclear(res);
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	for (i = 0; i < rows; i++) {
		struct db_host	*h = &(*hosts)[(*n)++];

		pg_copy(h->id, sizeof(h->id), res, i, 0);
		pg_copy(h->fingerprint, sizeof(h->fingerprint), res, i, 1);
		pg_copy(h->first_seen, sizeof(h->first_seen), res, i, 2);
		pg_copy(h->last_seen, sizeof(h->last_seen), res, i, 3);
		h->facts = strdup(pg_val(res, i, 4));
		h->last_run = pg_i64(res, i, 5);
		pg_copy(h->last_run_fingerprint,
		    sizeof(h->last_run_fingerprint), res, i, 6);
		pg_copy(h->last_run_finished, sizeof(h->last_run_finished),
		    res, i, 7);
		h->last_run_budget = (uint64_t)pg_i64(res, i, 8);
		pg_copy(h->last_run_budget_source,
		    sizeof(h->last_run_budget_source), res, i, 9);
		h->last_run_cpus = (int)pg_i64(res, i, 10);
		pg_copy(h->group, sizeof(h->group), res, i, 11);
		if (h->facts == NULL) {
			PQclear(res);
			db_hosts_free(*hosts, *n);
			*hosts = NULL;
			*n = 0;
			snprintf(err, errlen, "out of memory");
			return DB_ERR_NOMEM;
		}
	}
	PQclear(res);
	return DB_OK;
}

enum db_status
pg_host_set_group(struct db *db, const char *host_id, const char *group,
    char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;
	int		 changed = 0;

	a_str(&a, host_id);
	a_str(&a, group);
	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	st = pg_run(db, "set group", "UPDATE hosts SET host_group = $2 WHERE"
	    " id = $1", &a, PGRES_COMMAND_OK, &res, err, errlen);
	if (st == DB_OK) {
		changed = pg_tuples_changed(res);
		PQclear(res);
	}
	if ((st = pg_end(db, st, err, errlen)) == DB_OK && changed == 0) {
		snprintf(err, errlen, "no host %s in the store yet", host_id);
		return DB_ERR_NOTFOUND;
	}
	return st;
}

enum db_status
pg_model_put(struct db *db, int64_t id, const struct model *m, char *err,
    size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	json_t		*all, *curves, *conc, *coeffs;
	enum db_status	 st;
	char		 now[32], *text;
	size_t		 i;

	db_now(now, sizeof(now));
	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	a_i64(&a, id);
	if ((st = pg_exec(db, "save model", "DELETE FROM models WHERE run_id ="
	    " $1", &a, err, errlen)) != DB_OK)
		return pg_end(db, st, err, errlen);
	all = model_to_json(m);
	curves = json_object_get(all, "curves");
	conc = json_object_get(all, "concurrency");
	for (i = 0; st == DB_OK && i < m->ncurves; i++) {
		const struct model_curve *c = &m->curves[i];

		coeffs = json_pack("{s:O, s:O}", "rows", json_object_get(
		    json_array_get(curves, i), "rows"), "concurrency", conc);
		text = coeffs != NULL ? json_dumps(coeffs, JSON_COMPACT |
		    JSON_REAL_PRECISION(17)) : NULL;
		json_decref(coeffs);
		if (text == NULL) {
			snprintf(err, errlen, "out of memory");
			st = DB_ERR_NOMEM;
			break;
		}
		a.n = 0;
		a_i64(&a, id);
		a_str(&a, kdf_backend_name(c->backend));
		a_str(&a, kdf_alg_name(c->variant));
		a_i64(&a, c->p);
		a_str(&a, text);
		a_dbl(&a, c->loo_median);
		a_dbl(&a, c->loo_worst);
		a_str(&a, now);
		st = pg_exec(db, "save model", "INSERT INTO models (run_id,"
		    " backend, variant, p, coefficients, loo_median, loo_worst,"
		    " created) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8)",
		    &a, err, errlen);
		free(text);
	}
	json_decref(all);
	return pg_end(db, st, err, errlen);
}

enum db_status
pg_model_count(struct db *db, int64_t id, size_t *curves, double *loo_worst,
    char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;

	a_i64(&a, id);
	if ((st = pg_query(db, "read models", "SELECT count(*),"
	    " coalesce(max(loo_worst), 0) FROM models WHERE run_id = $1", &a,
	    &res, err, errlen)) != DB_OK)
		return st;
	*curves = (size_t)pg_i64(res, 0, 0);
	*loo_worst = pg_dbl(res, 0, 1);
	PQclear(res);
	return DB_OK;
}

enum db_status
pg_verification_add(struct db *db, int64_t id, double target_ms,
    const char *params, double predicted_ms, double measured_ms, char *err,
    size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	enum db_status	 st;
	char		 now[32];

	db_now(now, sizeof(now));
	a_i64(&a, id);
	a_dbl(&a, target_ms);
	a_str(&a, params);
	a_dbl(&a, predicted_ms);
	a_dbl(&a, measured_ms);
	a_str(&a, now);
	if ((st = pg_begin(db, err, errlen)) != DB_OK)
		return st;
	st = pg_exec(db, "save verification", "INSERT INTO verifications"
	    " (run_id, target_ms, params, predicted_ms, measured_ms, created)"
	    " VALUES ($1, $2, $3, $4, $5, $6)", &a, err, errlen);
	return pg_end(db, st, err, errlen);
}

enum db_status
pg_verifications_list(struct db *db, const char *host_id, size_t limit,
    struct db_verification **out, size_t *n, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;
	int		 i;

	a_str(&a, host_id);
	a_i64(&a, (long long)limit);
	if ((st = pg_list(db, "list verifications", "SELECT v.id, v.run_id,"
	    " v.target_ms, v.predicted_ms, v.measured_ms, v.params, "
	    ISO("v.created") " FROM verifications v JOIN runs r ON r.id ="
	    " v.run_id WHERE $1::text IS NULL OR r.host_id = $1 ORDER BY v.id"
	    " DESC LIMIT $2", &a, limit, sizeof(**out), (void **)out, &res,
	    err, errlen)) != DB_OK)
		return st;
	for (i = 0; i < PQntuples(res) && (size_t)i < limit; i++) {
		struct db_verification *v = &(*out)[(*n)++];

		v->id = pg_i64(res, i, 0);
		v->run_id = pg_i64(res, i, 1);
		v->target_ms = pg_dbl(res, i, 2);
		v->predicted_ms = pg_dbl(res, i, 3);
		v->measured_ms = pg_dbl(res, i, 4);
		pg_copy(v->params, sizeof(v->params), res, i, 5);
		pg_copy(v->created, sizeof(v->created), res, i, 6);
	}
	PQclear(res);
	return DB_OK;
}

enum db_status
pg_observation_add(struct db *db, struct db_observation *o,
    const double *samples, size_t nsamples, char *err, size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;
	char		*text;

	if ((text = db_samples_json(samples, nsamples)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	a_str(&a, o->host_id);
	a_str(&a, o->stack);
	a_str(&a, o->variant);
	a_i64(&a, o->m_kib);
	a_i64(&a, o->t);
	a_i64(&a, o->p);
	a_i64(&a, o->k);
	a_i64(&a, (long long)nsamples);
	a_dbl(&a, o->median_ms);
	a_dbl(&a, o->p95_ms);
	if (o->predicted_ms >= 0)
		a_dbl(&a, o->predicted_ms);
	else
		a_str(&a, NULL);
	if (o->model_run > 0)
		a_i64(&a, o->model_run);
	else
		a_str(&a, NULL);
	a_str(&a, text);
	a_str(&a, o->created);
	if ((st = pg_begin(db, err, errlen)) == DB_OK)
		st = pg_query(db, "save observation", "INSERT INTO observations"
		    " (host_id, stack, variant, m_kib, t, p, k, nsamples,"
		    " median_ms, p95_ms, predicted_ms, model_run, samples,"
		    " created) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,"
		    " $11, $12, $13::jsonb, $14) RETURNING id", &a, &res, err,
		    errlen);
	free(text);
	if (st == DB_OK) {
		o->id = pg_i64(res, 0, 0);
		o->nsamples = nsamples;
		PQclear(res);
		/* Keep the newest DB_OBS_KEEP of the host and stack. */
		a.n = 0;
		a_str(&a, o->host_id);
		a_str(&a, o->stack);
		a_i64(&a, DB_OBS_KEEP);
		st = pg_exec(db, "prune observations", "DELETE FROM"
		    " observations WHERE host_id = $1 AND stack = $2 AND id <"
		    " (SELECT min(id) FROM (SELECT id FROM observations WHERE"
		    " host_id = $1 AND stack = $2 ORDER BY id DESC LIMIT $3)"
		    " AS kept)", &a, err, errlen);
	}
	return pg_end(db, st, err, errlen);
}

enum db_status
pg_observations_list(struct db *db, const char *host_id, const char *stack,
    size_t limit, struct db_observation **out, size_t *n, char *err,
    size_t errlen)
{
	struct pg_args	 a = { .n = 0 };
	PGresult	*res;
	enum db_status	 st;
	int		 i;

	a_str(&a, host_id);
	a_str(&a, stack);
	a_i64(&a, (long long)limit);
	if ((st = pg_list(db, "list observations", "SELECT id, host_id,"
	    " stack, variant, m_kib, t, p, k, nsamples, median_ms, p95_ms,"
	    " coalesce(predicted_ms, -1), coalesce(model_run, 0), "
	    ISO("created") " FROM observations WHERE ($1::text IS NULL OR"
	    " host_id = $1) AND ($2::text IS NULL OR stack = $2) ORDER BY id"
	    " DESC LIMIT $3", &a, limit, sizeof(**out), (void **)out, &res,
	    err, errlen)) != DB_OK)
		return st;
	for (i = 0; i < PQntuples(res) && (size_t)i < limit; i++) {
		struct db_observation *o = &(*out)[(*n)++];

		o->id = pg_i64(res, i, 0);
		pg_copy(o->host_id, sizeof(o->host_id), res, i, 1);
		pg_copy(o->stack, sizeof(o->stack), res, i, 2);
		pg_copy(o->variant, sizeof(o->variant), res, i, 3);
		o->m_kib = (uint32_t)pg_i64(res, i, 4);
		o->t = (uint32_t)pg_i64(res, i, 5);
		o->p = (uint32_t)pg_i64(res, i, 6);
		o->k = (uint32_t)pg_i64(res, i, 7);
		o->nsamples = (size_t)pg_i64(res, i, 8);
		o->median_ms = pg_dbl(res, i, 9);
		o->p95_ms = pg_dbl(res, i, 10);
		o->predicted_ms = pg_dbl(res, i, 11);
		o->model_run = pg_i64(res, i, 12);
		pg_copy(o->created, sizeof(o->created), res, i, 13);
	}
	PQclear(res);
	return DB_OK;
}
