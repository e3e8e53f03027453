/*
 * db/postgresql.c: the PostgreSQL engine (struct db_ops), for fleets.
 * The same contracts as SQLite (db.h): migrations forward only, errors
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
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "store.h"

#define PG_MIGRATION_LOCK	"7077747565"	/* "pwtue": any fixed key */
#define PG_CONNECT_TIMEOUT	"5"		/* seconds */
#define PG_RETRY_S		2	/* between reconnects of a connection */

struct pg_state {
	PGconn		*pg;
	time_t		 retry;		/* no reconnect before (a backoff) */
	unsigned long	 seen;		/* pg_connects when the last one
					   failed */
	int		 timed_out;	/* the last statement's answer did not
					   come in db->timeout_ms */
};

#define PG(db)	(((struct pg_state *)(db)->engine)->pg)

/*
 * Connections made in this process, counted: a connection waiting out its
 * backoff tries again at once when another one has connected since it
 * failed (the server is back), so every thread sees the store return
 * together with the first.
 */
static atomic_ulong	pg_connects;

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
	    PQerrorMessage(PG(db)), msg, sizeof(msg));
	if (PQstatus(PG(db)) != CONNECTION_OK || (state != NULL &&
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
	struct pg_state	*e = db->engine;
	time_t		 now;

	if (PQstatus(PG(db)) == CONNECTION_OK)
		return DB_OK;
	now = time(NULL);
	if (now < e->retry && atomic_load(&pg_connects) == e->seen)
		return pg_fail(db, NULL, "connect", err, errlen);
	PQreset(PG(db));
	if (PQstatus(PG(db)) == CONNECTION_OK) {
		atomic_fetch_add(&pg_connects, 1);
		return DB_OK;
	}
	e->seen = atomic_load(&pg_connects);
	e->retry = time(NULL) + PG_RETRY_S;
	return pg_fail(db, NULL, "connect", err, errlen);
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

static long
pg_ms_left(const struct timespec *deadline)
{
	struct timespec	now;
	long		ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000 +
	    (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? ms : 0;
}

/*
 * Wait for the socket (events) until the deadline: 1 ready, 0 not by then.
 */
static int
pg_wait(PGconn *c, short events, const struct timespec *deadline)
{
	struct pollfd	pfd;
	int		rc;

	pfd.fd = PQsocket(c);
	pfd.events = events;
	do
		rc = poll(&pfd, 1, (int)pg_ms_left(deadline));
	while (rc == -1 && errno == EINTR);
	return rc != 0;
}

/*
 * A statement with a deadline: sent, then its results read as they come,
 * as PQexec would (the first failed result, or the last). A server that
 * does not answer in time (it hangs, or drops every packet) loses the
 * connection: its socket is shut down, so the connection is bad and the
 * backoff decides when to reconnect.
 */
static PGresult *
pg_exec_within(struct db *db, const char *sql, int n, const char *const *v)
{
	struct pg_state	*e = db->engine;
	struct timespec	 deadline;
	PGresult	*res, *keep = NULL;
	int		 sent, i;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += db->timeout_ms / 1000;
	deadline.tv_nsec += (long)(db->timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	sent = v == NULL ? PQsendQuery(e->pg, sql) : PQsendQueryParams(e->pg,
	    sql, n, NULL, v, NULL, NULL, 0);
	if (!sent)
		return NULL;
	while (PQflush(e->pg) == 1)
		if (!pg_wait(e->pg, POLLOUT, &deadline))
			goto late;
	for (;;) {
		while (PQisBusy(e->pg)) {
			if (!pg_wait(e->pg, POLLIN, &deadline))
				goto late;
			if (!PQconsumeInput(e->pg))
				break;
		}
		if ((res = PQgetResult(e->pg)) == NULL)
			return keep;
		if (keep != NULL && PQresultStatus(keep) != PGRES_COMMAND_OK &&
		    PQresultStatus(keep) != PGRES_TUPLES_OK) {
			PQclear(res);	/* the first failure stands */
			continue;
		}
		PQclear(keep);
		keep = res;
	}
late:
	PQclear(keep);
	e->timed_out = 1;
	shutdown(PQsocket(e->pg), SHUT_RDWR);
	for (i = 0; i < 8 && (res = PQgetResult(e->pg)) != NULL; i++)
		PQclear(res);
	return NULL;
}

/*
 * Run sql with the values v (n of them, text; NULL is SQL NULL); *out
 * gets the result (PQclear it) when out is not NULL. Outside a
 * transaction a statement that found the connection gone runs again on a
 * new one (not one that timed out: the server is there and does not
 * answer, and a new connection would wait for it as long again).
 */
static enum db_status
pg_do_once(struct db *db, const char *what, const char *sql, int n,
    const char *const *v, PGresult **out, char *err, size_t errlen)
{
	struct pg_state	*e = db->engine;
	PGresult	*res;
	enum db_status	 st;
	int		 idle, attempt, ok;

	if (out != NULL)
		*out = NULL;
	for (attempt = 0; attempt < 2; attempt++) {
		if ((st = pg_connected(db, err, errlen)) != DB_OK)
			return st;
		idle = PQtransactionStatus(PG(db)) == PQTRANS_IDLE;
		e->timed_out = 0;
		/* Without parameters: the simple protocol (migrations hold
		   several statements). */
		if (db->timeout_ms > 0)
			res = pg_exec_within(db, sql, n, v);
		else
			res = v == NULL ? PQexec(PG(db), sql) :
			    PQexecParams(PG(db), sql, n, NULL, v, NULL, NULL,
			    0);
		ok = res != NULL && (PQresultStatus(res) == PGRES_COMMAND_OK ||
		    PQresultStatus(res) == PGRES_TUPLES_OK);
		if (ok) {
			if (out != NULL)
				*out = res;
			else
				PQclear(res);
			return DB_OK;
		}
		if (e->timed_out) {
			PQclear(res);
			e->seen = atomic_load(&pg_connects);
			e->retry = time(NULL) + PG_RETRY_S;
			snprintf(err, errlen, "%s: %s: the database cannot be "
			    "reached: no answer in %d ms", db->path, what,
			    db->timeout_ms);
			return DB_ERR_UNAVAILABLE;
		}
		st = pg_fail(db, res, what, err, errlen);
		PQclear(res);
		if (st != DB_ERR_UNAVAILABLE || !idle ||
		    PQstatus(PG(db)) == CONNECTION_OK)
			return st;
	}
	return st;
}

/* pg_do_once, when the gate (if any) lets this statement through. */
static enum db_status
pg_do(struct db *db, const char *what, const char *sql, int n,
    const char *const *v, PGresult **out, char *err, size_t errlen)
{
	const struct db_gate	*g = db->gate;
	enum db_status		 st;

	if (g != NULL && g->enter(g->ctx) != 0) {
		if (out != NULL)
			*out = NULL;
		snprintf(err, errlen, "%s: %s: every connection to the "
		    "database that may wait is waiting", db->path, what);
		return DB_ERR_BUSY;
	}
	st = pg_do_once(db, what, sql, n, v, out, err, errlen);
	if (g != NULL)
		g->leave(g->ctx, st, err);
	return st;
}

static enum db_status
pg_begin(struct db *db, char *err, size_t errlen)
{
	return pg_do(db, "begin", "BEGIN", 0, NULL, NULL, err, errlen);
}

static void
pg_rollback(struct db *db)
{
	PGresult	*res;

	if (PQstatus(PG(db)) == CONNECTION_OK &&
	    PQtransactionStatus(PG(db)) != PQTRANS_IDLE) {
		res = PQexec(PG(db), "ROLLBACK");
		PQclear(res);
	}
}

static enum db_status
pg_commit(struct db *db, char *err, size_t errlen)
{
	enum db_status	st;

	if ((st = pg_do(db, "commit", "COMMIT", 0, NULL, NULL, err, errlen)) !=
	    DB_OK)
		pg_rollback(db);
	return st;
}

/* The schema version, 0 for a database pwtune never wrote; -1: error. */
static int
pg_schema_version(struct db *db)
{
	PGresult	*res;
	char		 err[256];
	int		 v = -1;

	if (pg_do(db, "schema version", "SELECT to_regclass('pwtune_schema')"
	    " IS NOT NULL", 0, NULL, &res, err, sizeof(err)) != DB_OK)
		return -1;
	if (strcmp(PQgetvalue(res, 0, 0), "t") != 0) {
		PQclear(res);
		return 0;
	}
	PQclear(res);
	if (pg_do(db, "schema version", "SELECT coalesce(max(version), 0)"
	    " FROM pwtune_schema", 0, NULL, &res, err, sizeof(err)) != DB_OK)
		return -1;
	v = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return v;
}

/* One step of migration under the advisory lock; *v is the version now. */
static enum db_status
pg_migrate_step(struct db *db, int want, int *v, char *err, size_t errlen)
{
	PGresult	*res;
	const char	*val[1];
	char		 next[16];
	enum db_status	 st;

	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	if ((st = pg_do(db, "migration lock", "SELECT pg_advisory_xact_lock("
	    PG_MIGRATION_LOCK ")", 0, NULL, NULL, err, errlen)) != DB_OK ||
	    (st = pg_do(db, "migration", "CREATE TABLE IF NOT EXISTS "
	    "pwtune_schema (version INTEGER NOT NULL)", 0, NULL, NULL, err,
	    errlen)) != DB_OK ||
	    (st = pg_do(db, "migration", "SELECT version FROM pwtune_schema",
	    0, NULL, &res, err, errlen)) != DB_OK)
		return db_end(db, st, err, errlen);
	*v = PQntuples(res) > 0 ? atoi(PQgetvalue(res, 0, 0)) : 0;
	if (PQntuples(res) == 0)
		st = pg_do(db, "migration", "INSERT INTO pwtune_schema"
		    " VALUES (0)", 0, NULL, NULL, err, errlen);
	PQclear(res);
	if (st != DB_OK || *v >= want || *v > DB_SCHEMA_VERSION)
		return db_end(db, st, err, errlen);
	if ((st = pg_do(db, "migration", db_postgresql_migrations[*v], 0, NULL,
	    NULL, err, errlen)) != DB_OK)
		return db_end(db, st, err, errlen);
	snprintf(next, sizeof(next), "%d", *v + 1);
	val[0] = next;
	if ((st = pg_do(db, "migration", "UPDATE pwtune_schema SET version ="
	    " $1", 1, val, NULL, err, errlen)) != DB_OK)
		return db_end(db, st, err, errlen);
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

/*
 * libpq's own complaint about a URI it cannot parse quotes the value it
 * could not read: said only when the URI holds no password.
 */
static int
pg_unparsable(const char *uri, const char *shown, char *err, size_t errlen)
{
	PQconninfoOption *opts;
	char		 *perr = NULL;

	if ((opts = PQconninfoParse(uri, &perr)) != NULL) {
		PQconninfoFree(opts);
		return 0;
	}
	if (strcmp(shown, uri) == 0 && perr != NULL) {
		perr[strcspn(perr, "\n")] = '\0';
		snprintf(err, errlen, "%s: %s", shown, perr);
	} else
		snprintf(err, errlen, "%s: libpq cannot read this URI (a %% "
		    "not followed by two hex digits, %%00, a parameter without "
		    "'=' or unknown)", shown);
	PQfreemem(perr);
	return 1;
}

static enum db_status
pg_open(struct db *db, const char *uri, const struct db_open_opts *o,
    int version, char *err, size_t errlen)
{
	/* The URI's own settings come after ours, so they win. */
	static const char *const keys[] = { "connect_timeout",
	    "application_name", "dbname", NULL };
	const char	*vals[] = { PG_CONNECT_TIMEOUT, "pwtune", uri, NULL };
	char		 machine[160], shown[4352];
	struct pg_state	*e;

	(void)o;
	db_locator_redact(uri, db->path, sizeof(db->path));
	db_locator_redact(uri, shown, sizeof(shown));
	if (pg_unparsable(uri, shown, err, errlen))
		return DB_ERR_INVALID;
	pg_machine(machine, sizeof(machine));
	snprintf(db->owner + strlen(db->owner), sizeof(db->owner) -
	    strlen(db->owner), "%s", machine);
	if ((db->engine = e = calloc(1, sizeof(*e))) == NULL ||
	    (e->pg = PQconnectdbParams(keys, vals, 1)) == NULL)
		return db_nomem(err, errlen);
	PQsetNoticeProcessor(e->pg, pg_quiet, NULL);
	if (PQstatus(e->pg) != CONNECTION_OK)
		return pg_fail(db, NULL, "connect", err, errlen);
	atomic_fetch_add(&pg_connects, 1);
	return pg_migrate(db, version, err, errlen);
}

static void
pg_close(struct db *db)
{
	PQfinish(PG(db));
	free(db->engine);
	db->engine = NULL;
}

static enum db_status
pg_ping(struct db *db, char *err, size_t errlen)
{
	return pg_do(db, "ping", "SELECT 1", 0, NULL, NULL, err, errlen);
}

/* A run whose point count disagrees with its points is a problem. */
static enum db_status
pg_check(struct db *db, char *result, size_t resultlen, char *err,
    size_t errlen)
{
	PGresult	*res;
	enum db_status	 st;
	long long	 bad;

	if ((st = pg_do(db, "check", "SELECT count(*) FROM runs r WHERE"
	    " points_done <> (SELECT count(*) FROM points WHERE run_id = r.id)",
	    0, NULL, &res, err, errlen)) != DB_OK)
		return st;
	bad = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	if (bad == 0)
		snprintf(result, resultlen, "ok");
	else
		snprintf(result, resultlen, "%lld run%s whose point count "
		    "disagrees with its points", bad, bad == 1 ? "" : "s");
	return DB_OK;
}

/* q with a's values as text, the way libpq sends them. */
static enum db_status
pg_run(struct db *db, const char *what, const struct db_sql *q,
    const struct db_args *a, struct db_rows *r, int64_t *changes, char *err,
    size_t errlen)
{
	const char	*v[DB_ARGS_MAX];
	char		 num[DB_ARGS_MAX][32];
	PGresult	*res;
	enum db_status	 st;
	int		 i, n = a != NULL ? a->n : 0;

	for (i = 0; i < n; i++) {
		v[i] = num[i];
		if (a->v[i].type == DB_ARG_TEXT)
			v[i] = a->v[i].s;
		else if (a->v[i].type == DB_ARG_INT)
			snprintf(num[i], sizeof(num[i]), "%lld",
			    (long long)a->v[i].i);
		else if (a->v[i].type == DB_ARG_REAL)
			snprintf(num[i], sizeof(num[i]), "%.17g", a->v[i].d);
		else
			v[i] = NULL;
	}
	if ((st = pg_do(db, what, q->pg != NULL ? q->pg : q->sql, n, v, &res,
	    err, errlen)) != DB_OK)
		return st;
	if (changes != NULL)
		*changes = strtoll(PQcmdTuples(res), NULL, 10);
	if (r == NULL) {
		PQclear(res);
		return DB_OK;
	}
	r->handle = res;
	r->row = -1;
	return DB_OK;
}

static int
pg_next(struct db_rows *r)
{
	return ++r->row < PQntuples(r->handle);
}

static const char *
pg_text(struct db_rows *r, int col)
{
	return PQgetisnull(r->handle, r->row, col) ? NULL :
	    PQgetvalue(r->handle, r->row, col);
}

static int64_t
pg_i64(struct db_rows *r, int col)
{
	return strtoll(PQgetvalue(r->handle, r->row, col), NULL, 10);
}

static double
pg_real(struct db_rows *r, int col)
{
	return strtod(PQgetvalue(r->handle, r->row, col), NULL);
}

static enum db_status
pg_end(struct db_rows *r, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	PQclear(r->handle);
	r->handle = NULL;
	return DB_OK;
}

const struct db_ops db_postgresql_ops = {
	.open = pg_open,
	.close = pg_close,
	.schema_version = pg_schema_version,
	.ping = pg_ping,
	.check = pg_check,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.run = pg_run,
	.next = pg_next,
	.text = pg_text,
	.i64 = pg_i64,
	.real = pg_real,
	.end = pg_end
};
