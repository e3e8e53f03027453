/*
 * db/db.c: the entry points of db.h that no table owns: opening (the
 * engine by the locator), closing, status and names, redaction of
 * locators, runs left behind by ended processes; and the helpers the
 * files of the tables run statements and transactions through (store.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

const char *
db_status_name(enum db_status st)
{
	static const char *const names[] = {
		"ok", "io", "full", "readonly", "cantopen", "corrupt", "busy",
		"schema", "notfound", "invalid", "nomem", "internal",
		"unavailable", "limit"
	};

	return (size_t)st < sizeof(names) / sizeof(names[0]) ? names[st] :
	    "unknown";
}

const char *
db_trigger_name(enum db_trigger t)
{
	static const char *const names[] = {
		"startup", "api", "schedule", "cli", "import"
	};

	return (size_t)t < sizeof(names) / sizeof(names[0]) ? names[t] : "cli";
}

static const char *const run_status_names[] = {
	"queued", "running", "done", "failed", "cancelled", "interrupted"
};

const char *
db_run_status_name(enum db_run_status s)
{
	return (size_t)s < sizeof(run_status_names) /
	    sizeof(run_status_names[0]) ? run_status_names[s] : "failed";
}

int
db_run_status_parse(const char *s, enum db_run_status *out)
{
	size_t	i;

	for (i = 0; i < sizeof(run_status_names) / sizeof(run_status_names[0]);
	    i++) {
		if (strcmp(s, run_status_names[i]) == 0) {
			*out = (enum db_run_status)i;
			return 0;
		}
	}
	return -1;
}

void
db_now(char *buf, size_t len)
{
	time_t		now = time(NULL);
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "pid:starttime" of process pid, from /proc/PID/stat (field 22). */
static int
db_process_identity(long pid, char *buf, size_t len)
{
	char		 path[64], stat[1024], *p;
	FILE		*fp;
	size_t		 n;
	int		 field;
	unsigned long long start = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	n = fread(stat, 1, sizeof(stat) - 1, fp);
	fclose(fp);
	stat[n] = '\0';
	/* The command name may hold spaces: count fields after its ')'. */
	if ((p = strrchr(stat, ')')) == NULL)
		return -1;
	for (field = 2; *p != '\0' && field < 22; p++)
		if (*p == ' ')
			field++;
	if (sscanf(p, "%llu", &start) != 1)
		return -1;
	snprintf(buf, len, "%ld:%llu", pid, start);
	return 0;
}

/*
 * Whether a process that started start clock ticks after boot can be of
 * this boot: not when that is later than now (/proc/uptime, readable
 * under hidepid too). 1 when it can, or when uptime cannot be read.
 */
static int
db_started_this_boot(unsigned long long start)
{
	FILE	*fp;
	double	 up = 0;
	long	 hz = sysconf(_SC_CLK_TCK);
	int	 ok;

	if (start == 0 || hz <= 0 || (fp = fopen("/proc/uptime", "r")) ==
	    NULL)
		return 1;
	ok = fscanf(fp, "%lf", &up) == 1;
	fclose(fp);
	return !ok || (double)start / (double)hz <= up + 1;
}

int
db_owner_alive(const char *owner)
{
	char			 now[64], *end;
	long			 pid;
	unsigned long long	 start = 0;

	if (owner == NULL)
		return 0;
	errno = 0;
	pid = strtol(owner, &end, 10);
	if (errno != 0 || end == owner || *end != ':' || pid <= 0 ||
	    pid > INT_MAX)
		return 0;
	/*
	 * Its /proc entry unreadable (a /proc mounted with hidepid, which
	 * hides other users' processes): alive while a process of this boot
	 * could be it and one has the pid, since a live run marked
	 * interrupted loses its end; gone when it started after now (an
	 * earlier boot's) or no process has the pid.
	 */
	if (db_process_identity(pid, now, sizeof(now)) == -1) {
		if (sscanf(end + 1, "%llu", &start) == 1 &&
		    !db_started_this_boot(start))
			return 0;
		return kill((pid_t)pid, 0) == 0 || errno == EPERM;
	}
	return strcmp(now, owner) == 0;
}

int
db_is_postgresql(const char *locator)
{
	return strncmp(locator, "postgresql://", 13) == 0 ||
	    strncmp(locator, "postgres://", 11) == 0;
}

/* Output of db_locator_redact: appended to, cut short, NUL-terminated. */
struct redact_out {
	char	*buf;
	size_t	 len, used;
};

static void
redact_put(struct redact_out *r, const char *s, size_t n)
{
	if (r->used + 1 >= r->len)
		return;
	if (n > r->len - 1 - r->used)
		n = r->len - 1 - r->used;
	memcpy(r->buf + r->used, s, n);
	r->used += n;
	r->buf[r->used] = '\0';
}

static int
redact_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Is the URI parameter key (n bytes, percent-encoded) a secret one? */
static int
redact_secret_key(const char *k, size_t n)
{
	char	key[32];
	size_t	i, j = 0;

	for (i = 0; i < n && j < sizeof(key) - 1; i++) {
		if (k[i] == '%' && i + 2 < n && redact_hex(k[i + 1]) >= 0 &&
		    redact_hex(k[i + 2]) >= 0) {
			key[j++] = (char)(redact_hex(k[i + 1]) * 16 +
			    redact_hex(k[i + 2]));
			i += 2;
		} else
			key[j++] = k[i];
	}
	if (i < n)
		return 0;
	key[j] = '\0';
	return strcmp(key, "password") == 0 || strcmp(key, "sslpassword") == 0;
}

/*
 * A URI, read the way libpq reads one: the userinfo runs from "://" to
 * the first '@' before any '/' (so '?', '#' and ':' may be in the
 * password), the password from the first ':' in it. An '@' or '/' the
 * user forgot to percent-encode is hidden too: the userinfo then runs to
 * the last '@' before the first '/' after its first '@'. Parameters
 * password= and sslpassword= (keys percent-decoded) lose their values.
 */
static const char *
redact_userinfo_end(const char *rest)
{
	const char	*at, *slash, *q, *end, *p;

	at = strchr(rest, '@');
	slash = strchr(rest, '/');
	q = slash != NULL ? strchr(slash, '?') : NULL;
	/* An '@' in the query of a URI without userinfo is not one. */
	if (at == NULL || (slash != NULL && slash < at && q != NULL && q < at))
		return NULL;
	end = at + strcspn(at, "/");
	for (p = at; p < end; p++)
		if (*p == '@')
			at = p;
	return at;
}

static void
redact_uri(const char *loc, const char *rest, struct redact_out *r)
{
	const char	*at, *q, *colon, *p, *amp, *eq;

	redact_put(r, loc, (size_t)(rest - loc));
	q = rest;
	if ((at = redact_userinfo_end(rest)) != NULL) {
		colon = memchr(rest, ':', (size_t)(at - rest));
		if (colon != NULL) {
			redact_put(r, rest, (size_t)(colon - rest));
			redact_put(r, ":***", 4);
		} else
			redact_put(r, rest, (size_t)(at - rest));
		rest = at;
		q = at;
	}
	if ((q = strchr(q, '?')) == NULL) {
		redact_put(r, rest, strlen(rest));
		return;
	}
	redact_put(r, rest, (size_t)(q + 1 - rest));
	for (p = q + 1; *p != '\0'; p = *amp == '&' ? amp + 1 : amp) {
		amp = p + strcspn(p, "&");
		eq = memchr(p, '=', (size_t)(amp - p));
		if (eq != NULL && redact_secret_key(p, (size_t)(eq - p))) {
			redact_put(r, p, (size_t)(eq + 1 - p));
			redact_put(r, "***", 3);
		} else
			redact_put(r, p, (size_t)(amp - p));
		if (*amp == '&')
			redact_put(r, "&", 1);
	}
}

/*
 * Keyword/value strings ("host=h password=x"): the value of password and
 * sslpassword, quoted or not, as libpq reads them.
 */
static void
redact_conninfo(const char *loc, struct redact_out *r)
{
	const char	*p = loc, *k, *v;
	size_t		 n;

	while (*p != '\0') {
		k = p;
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
		v = p + n;
		while (*v == ' ' || *v == '\t')
			v++;
		if (n > 0 && (k == loc || isspace((unsigned char)k[-1])) &&
		    *v == '=' && ((n == 8 && strncmp(k, "password", 8) == 0) ||
		    (n == 11 && strncmp(k, "sslpassword", 11) == 0))) {
			for (v++; *v == ' ' || *v == '\t'; v++)
				;
			redact_put(r, k, (size_t)(v - k));
			redact_put(r, "***", 3);
			if (*v == '\'') {
				for (v++; *v != '\0' && *v != '\''; v++)
					if (*v == '\\' && v[1] != '\0')
						v++;
				if (*v == '\'')
					v++;
			} else
				while (*v != '\0' && !isspace((unsigned char)*v))
					v++;
			p = v;
			continue;
		}
		n = n > 0 ? n : 1;
		redact_put(r, p, n);
		p += n;
	}
}

void
db_locator_redact(const char *locator, char *out, size_t outlen)
{
	struct redact_out	 r = { out, outlen, 0 };
	const char		*rest;

	if (outlen == 0)
		return;
	out[0] = '\0';
	if ((rest = strstr(locator, "://")) != NULL &&
	    strcspn(locator, "/?@") > (size_t)(rest - locator))
		redact_uri(locator, rest + 3, &r);
	else
		redact_conninfo(locator, &r);
}

/*
 * A locator libpq would read otherwise than db_locator_redact does (an
 * '@' or '/' of the password not percent-encoded), a URI of another
 * engine, or a keyword/value string with a password (which would be taken
 * for a file name, and shown as one): refused before anything reads it,
 * so that no message (libpq's own included) ever shows a piece of a
 * password. postgresql.c then refuses a URI libpq cannot parse.
 */
static int
db_locator_refused(const char *path, char *err, size_t errlen)
{
	const char	*rest, *p;
	char		 shown[4352];	/* longer than struct db's path */

	if (path[0] == '\0') {
		snprintf(err, errlen, "an empty store name: name a file or a "
		    "postgresql:// URI");
		return 1;
	}
	db_locator_redact(path, shown, sizeof(shown));
	if ((rest = strstr(path, "://")) == NULL ||
	    strcspn(path, "/?@") < (size_t)(rest - path)) {
		if (strcmp(shown, path) == 0)
			return 0;
		snprintf(err, errlen, "%s: a connection string: name a "
		    "PostgreSQL store with a postgresql:// URI", shown);
		return 1;
	}
	if (!db_is_postgresql(path)) {
		snprintf(err, errlen, "%s: not a file path or a postgresql:// "
		    "URI", shown);
		return 1;
	}
	rest += 3;
	/* libpq: the userinfo ends at the first '@' before any '/'. */
	p = rest + strcspn(rest, "@/");
	if (redact_userinfo_end(rest) != (*p == '@' ? p : NULL)) {
		snprintf(err, errlen, "%s: percent-encode '@' and '/' in the "
		    "user name and password (%%40, %%2F)", shown);
		return 1;
	}
	return 0;
}

void
db_logf(struct db *db, const char *fmt, ...)
{
	char	msg[1024];
	va_list	ap;

	if (db->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	db->log(db->log_ctx, msg);
}

static enum db_status
db_open_with(const char *path, const struct db_open_opts *o, int version,
    struct db **out, char *err, size_t errlen)
{
	struct db	*db;
	enum db_status	 rc;
	size_t		 n;

	*out = NULL;
	if (!db_is_postgresql(path) && strlen(path) >= sizeof(db->path) - 64) {
		snprintf(err, errlen, "path is too long");
		return DB_ERR_INVALID;
	}
	if ((db = calloc(1, sizeof(*db))) == NULL)
		return db_nomem(err, errlen);
	db->ops = db_is_postgresql(path) ? &db_postgresql_ops :
	    &db_sqlite_ops;
	db->readonly = o != NULL && o->readonly;
	db->log = o != NULL ? o->log : NULL;
	db->log_ctx = o != NULL ? o->log_ctx : NULL;
	if (db_process_identity((long)getpid(), db->owner,
	    sizeof(db->owner)) == -1)
		snprintf(db->owner, sizeof(db->owner), "%ld:0", (long)getpid());
	if ((rc = db->ops->open(db, path, o, version, err, errlen)) != DB_OK)
		goto fail;
	if (!db->readonly && !(o != NULL && o->no_recover) &&
	    version == DB_SCHEMA_VERSION) {
		if ((rc = db_recover_interrupted(db, &n, err, errlen)) != DB_OK)
			goto fail;
		if (n > 0)
			db_logf(db, "store %s: %zu run%s left unfinished by a "
			    "process that ended marked interrupted", db->path,
			    n, n == 1 ? "" : "s");
	}
	*out = db;
	return DB_OK;
fail:
	db_close(db);
	return rc;
}

enum db_status
db_open(const char *path, const struct db_open_opts *o, struct db **out,
    char *err, size_t errlen)
{
	*out = NULL;
	if (db_locator_refused(path, err, errlen))
		return DB_ERR_INVALID;
	return db_open_with(path, o, DB_SCHEMA_VERSION, out, err, errlen);
}

enum db_status
db_identify(const char *locator, char *err, size_t errlen)
{
	if (db_locator_refused(locator, err, errlen))
		return DB_ERR_INVALID;
	if (db_is_postgresql(locator) || strcmp(locator, ":memory:") == 0)
		return DB_OK;
	return db_sqlite_identify(locator, err, errlen);
}

enum db_status
db_open_version(const char *path, int version, struct db **out, char *err,
    size_t errlen)
{
	struct db_open_opts	o = { 0, 0, 1, NULL, NULL };

	if (version < 0 || version > DB_SCHEMA_VERSION) {
		snprintf(err, errlen, "no schema version %d", version);
		return DB_ERR_INVALID;
	}
	return db_open_with(path, &o, version, out, err, errlen);
}

void
db_set_limits(struct db *db, int timeout_ms, const struct db_gate *gate)
{
	db->timeout_ms = timeout_ms;
	db->gate = gate;
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	if (db->engine != NULL)
		db->ops->close(db);
	free(db);
}

enum db_status
db_ping(struct db *db, char *err, size_t errlen)
{
	return db->ops->ping(db, err, errlen);
}

int
db_schema_version(struct db *db)
{
	return db->ops->schema_version(db);
}

enum db_status
db_check(struct db *db, char *result, size_t resultlen, char *err,
    size_t errlen)
{
	result[0] = '\0';
	return db->ops->check(db, result, resultlen, err, errlen);
}

/*
 * Runs queued or running whose owner is gone. PostgreSQL: only runs owned
 * on this machine (its owner ends "@boot_id/host"), since another
 * machine's pids mean nothing here.
 *
 * The read takes no lock: opening a store must not lock the runs of live
 * processes, which write their points meanwhile (a scan that locked each
 * live run as it met it, while a writer moved that run's row, could take
 * two rows in the opposite order to another process opening at the same
 * time: a deadlock, which PostgreSQL ended by failing one open, one in
 * five of opening_beside_writers_never_fails). Each run is
 * marked in id order, so that two processes opening at once lock the
 * same rows in the same order, and only while it is still queued or
 * running under the owner seen gone: a run that ended meanwhile keeps
 * its end.
 */
static const struct db_sql q_run_owners = {
	"SELECT id, owner FROM runs WHERE status IN ('queued', 'running')"
	" ORDER BY id",
	"SELECT id, owner FROM runs WHERE status IN ('queued', 'running')"
	" AND right(owner, length(CAST($1 AS TEXT))) = CAST($1 AS TEXT)"
	" ORDER BY id"
};
static const struct db_sql q_run_interrupt = {
	"UPDATE runs SET status = 'interrupted', finished = $2, owner = NULL,"
	" error = coalesce(error, 'the process running it ended before it"
	" finished') WHERE id = $1 AND status IN ('queued', 'running')"
	" AND coalesce(owner, '') = $3", NULL	/* no owner: read as "" */
};

struct gone_run {
	int64_t	id;
	char	owner[sizeof(((struct db *)0)->owner)];	/* as written */
};

enum db_status
db_recover_interrupted(struct db *db, size_t *n, char *err, size_t errlen)
{
	struct db_args	 a = { .n = 0 };
	struct db_rows	 r;
	struct gone_run	*gone = NULL, *more;
	size_t		 ngone = 0, cap = 0, i;
	char		 now[32], who[sizeof(((struct db *)0)->owner)];
	int64_t		 changed;
	enum db_status	 st;

	*n = 0;
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	a_text(&a, strchr(db->owner, '@'));
	if ((st = db_query(db, "read runs", &q_run_owners, &a, &r, err,
	    errlen)) != DB_OK)
		return db_end(db, st, err, errlen);
	while (db_next(&r)) {
		db_copy(&r, 1, who, sizeof(who));
		who[strcspn(who, "@")] = '\0';
		if (db_owner_alive(who))
			continue;
		if (ngone == cap) {
			cap = cap ? 2 * cap : 16;
			if ((more = realloc(gone, cap * sizeof(*gone))) ==
			    NULL) {
				db_rows_end(&r, err, errlen);
				free(gone);
				return db_end(db, db_nomem(err, errlen), err,
				    errlen);
			}
			gone = more;
		}
		gone[ngone].id = db_int(&r, 0);
		db_copy(&r, 1, gone[ngone].owner, sizeof(gone[ngone].owner));
		ngone++;
	}
	st = db_rows_end(&r, err, errlen);
	db_now(now, sizeof(now));
	for (i = 0; st == DB_OK && i < ngone; i++) {
		a.n = 0;
		a_int(&a, gone[i].id);
		a_text(&a, now);
		a_text(&a, gone[i].owner);
		changed = 0;
		if ((st = db_exec(db, "mark interrupted", &q_run_interrupt, &a,
		    &changed, err, errlen)) == DB_OK && changed > 0)
			(*n)++;
	}
	free(gone);
	return db_end(db, st, err, errlen);
}

enum db_status
db_nomem(char *err, size_t errlen)
{
	snprintf(err, errlen, "out of memory");
	return DB_ERR_NOMEM;
}

char *
db_json_text(const json_t *j)
{
	return j != NULL ? json_dumps(j, JSON_COMPACT |
	    JSON_REAL_PRECISION(17)) : NULL;
}

enum db_status
db_begin(struct db *db, char *err, size_t errlen)
{
	if (db->readonly) {
		snprintf(err, errlen, "%s: opened read-only", db->path);
		return DB_ERR_READONLY;
	}
	return db->ops->begin(db, err, errlen);
}

enum db_status
db_end(struct db *db, enum db_status st, char *err, size_t errlen)
{
	if (st == DB_OK)
		return db->ops->commit(db, err, errlen);
	db->ops->rollback(db);
	return st;
}

enum db_status
db_exec(struct db *db, const char *what, const struct db_sql *q,
    const struct db_args *a, int64_t *changes, char *err, size_t errlen)
{
	return db->ops->run(db, what, q, a, NULL, changes, err, errlen);
}

enum db_status
db_query(struct db *db, const char *what, const struct db_sql *q,
    const struct db_args *a, struct db_rows *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->db = db;
	r->what = what;
	return db->ops->run(db, what, q, a, r, NULL, err, errlen);
}

enum db_status
db_query_row(struct db *db, const char *what, const struct db_sql *q,
    const struct db_args *a, struct db_rows *r, char *err, size_t errlen)
{
	enum db_status	st;

	if ((st = db_query(db, what, q, a, r, err, errlen)) != DB_OK)
		return st;
	if (db_next(r))
		return DB_OK;
	st = db_rows_end(r, err, errlen);
	return st != DB_OK ? st : DB_ERR_NOTFOUND;
}

int
db_next(struct db_rows *r)
{
	return r->db->ops->next(r);
}

int64_t
db_int(struct db_rows *r, int col)
{
	return r->db->ops->i64(r, col);
}

double
db_real(struct db_rows *r, int col)
{
	return r->db->ops->real(r, col);
}

const char *
db_text(struct db_rows *r, int col)
{
	return r->db->ops->text(r, col);
}

void
db_copy(struct db_rows *r, int col, char *dst, size_t len)
{
	const char	*v = db_text(r, col);

	snprintf(dst, len, "%s", v != NULL ? v : "");
}

enum db_status
db_rows_end(struct db_rows *r, char *err, size_t errlen)
{
	return r->db->ops->end(r, err, errlen);
}
