/*
 * db/db.c: opening the SQLite store (checks, recovery of corrupt files,
 * migrations, interrupted runs), errors, transactions and the prepared
 * statement cache. A postgresql:// locator goes to db_pg.c instead.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db_impl.h"

/*
 * Migrations, forward only: migrations[i] takes the schema from version i
 * to i + 1, in one transaction together with the new user_version.
 */
static const char *const migrations[DB_SCHEMA_VERSION] = {
	/* 0 -> 1: the tables. */
	"CREATE TABLE hosts ("
	"  id TEXT PRIMARY KEY,"
	"  fingerprint TEXT NOT NULL,"
	"  cpu_model TEXT NOT NULL,"
	"  online_cpus INTEGER NOT NULL,"
	"  mem_total INTEGER NOT NULL,"
	"  cgroup_mem_limit INTEGER NOT NULL,"
	"  kernel TEXT NOT NULL,"
	"  facts TEXT NOT NULL,"		/* the host JSON, as reported */
	"  first_seen TEXT NOT NULL,"
	"  last_seen TEXT NOT NULL);"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  host_id TEXT NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,"
	"  fingerprint TEXT NOT NULL,"
	"  host_facts TEXT NOT NULL,"		/* the host JSON at the time */
	"  profile TEXT NOT NULL,"
	"  trigger TEXT NOT NULL CHECK (trigger IN"
	"    ('startup', 'api', 'schedule', 'cli', 'import')),"
	"  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done',"
	"    'failed', 'cancelled', 'interrupted')),"
	"  points_done INTEGER NOT NULL DEFAULT 0,"
	"  points_total INTEGER NOT NULL DEFAULT 0,"
	"  noisy_points INTEGER NOT NULL DEFAULT 0,"
	"  effective_cpus INTEGER NOT NULL DEFAULT 0,"
	"  mem_budget INTEGER NOT NULL DEFAULT 0,"
	"  budget_source TEXT NOT NULL DEFAULT 'memavailable',"
	"  owner TEXT,"
	"  error TEXT,"
	"  created TEXT NOT NULL,"
	"  started TEXT,"
	"  finished TEXT);"
	"CREATE TABLE points ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  backend TEXT NOT NULL,"
	"  variant TEXT NOT NULL,"
	"  m_kib INTEGER NOT NULL,"
	"  t INTEGER NOT NULL,"
	"  p INTEGER NOT NULL,"
	"  k INTEGER NOT NULL,"
	"  status TEXT NOT NULL,"
	"  median_ms REAL,"
	"  noisy INTEGER NOT NULL DEFAULT 0,"
	"  data TEXT NOT NULL,"			/* the point JSON, samples too */
	"  UNIQUE (run_id, seq));"
	"CREATE TABLE models ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  backend TEXT NOT NULL,"
	"  variant TEXT NOT NULL,"
	"  p INTEGER NOT NULL,"
	"  coefficients TEXT NOT NULL,"
	"  loo_median REAL,"
	"  loo_worst REAL,"
	"  created TEXT NOT NULL,"
	"  UNIQUE (run_id, backend, variant, p));"
	"CREATE TABLE verifications ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  target_ms REAL NOT NULL,"
	"  params TEXT NOT NULL,"
	"  predicted_ms REAL NOT NULL,"
	"  measured_ms REAL NOT NULL,"
	"  created TEXT NOT NULL);",
	/* 1 -> 2: indices for what the API asks. */
	"CREATE INDEX runs_host ON runs(host_id, id);"
	"CREATE INDEX runs_status ON runs(status);"
	"CREATE INDEX runs_fingerprint ON runs(fingerprint, status);"
	"CREATE INDEX models_run ON models(run_id);"
	"CREATE INDEX verifications_run ON verifications(run_id);",
	/* 2 -> 3: host groups, and what services observed (fleets). */
	"ALTER TABLE hosts ADD COLUMN host_group TEXT NOT NULL DEFAULT '';"
	"CREATE INDEX hosts_group ON hosts(host_group);"
	"CREATE TABLE observations ("
	"  id INTEGER PRIMARY KEY,"
	"  host_id TEXT NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,"
	"  stack TEXT NOT NULL,"
	"  variant TEXT NOT NULL,"
	"  m_kib INTEGER NOT NULL,"
	"  t INTEGER NOT NULL,"
	"  p INTEGER NOT NULL,"
	"  k INTEGER NOT NULL,"
	"  nsamples INTEGER NOT NULL,"
	"  median_ms REAL NOT NULL,"
	"  p95_ms REAL NOT NULL,"
	"  predicted_ms REAL,"
	"  model_run INTEGER,"
	"  samples TEXT NOT NULL,"		/* JSON array of ms */
	"  created TEXT NOT NULL);"
	"CREATE INDEX observations_stack ON observations(host_id, stack, id);",
};

static const char *const stmt_sql[ST__COUNT] = {
	[ST_HOST_UPSERT] =
	    "INSERT INTO hosts (id, fingerprint, cpu_model, online_cpus,"
	    " mem_total, cgroup_mem_limit, kernel, facts, first_seen,"
	    " last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)"
	    " ON CONFLICT (id) DO UPDATE SET fingerprint = ?2,"
	    " cpu_model = ?3, online_cpus = ?4, mem_total = ?5,"
	    " cgroup_mem_limit = ?6, kernel = ?7, facts = ?8, last_seen = ?9",
	[ST_RUN_INSERT] =
	    "INSERT INTO runs (host_id, fingerprint, host_facts, profile,"
	    " trigger, status, points_total, effective_cpus, mem_budget,"
	    " budget_source, owner, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
	    " ?7, ?8, ?9, ?10, ?11, ?12)",
	[ST_RUN_GET] =
	    "SELECT id, host_id, fingerprint, profile, trigger, status,"
	    " points_done, points_total, noisy_points, effective_cpus,"
	    " mem_budget, budget_source, error, created, started, finished,"
	    " host_facts FROM runs WHERE id = ?1",
	[ST_RUN_SET_STATUS] =
	    "UPDATE runs SET status = ?2,"
	    " error = coalesce(?3, error),"
	    " started = CASE WHEN ?2 = 'running' THEN ?4 ELSE started END,"
	    " finished = CASE WHEN ?2 IN ('done', 'failed', 'cancelled',"
	    "   'interrupted') THEN ?4 ELSE finished END,"
	    " owner = CASE WHEN ?2 IN ('queued', 'running') THEN owner"
	    "   ELSE NULL END"
	    " WHERE id = ?1",
	[ST_RUN_POINT_INSERT] =
	    "INSERT INTO points (run_id, seq, backend, variant, m_kib, t, p,"
	    " k, status, median_ms, noisy, data) VALUES (?1, ?2, ?3, ?4, ?5,"
	    " ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[ST_RUN_POINT_COUNT] =
	    "UPDATE runs SET points_done = points_done + 1,"
	    " noisy_points = noisy_points + ?2 WHERE id = ?1",
	[ST_RUN_POINTS] =
	    "SELECT data FROM points WHERE run_id = ?1 ORDER BY seq",
	[ST_RUN_LATEST_DONE] =
	    "SELECT id FROM runs WHERE status = 'done'"
	    " AND (?1 IS NULL OR host_id = ?1)"
	    " AND (?2 IS NULL OR fingerprint = ?2)"
	    " ORDER BY id DESC LIMIT 1",
	[ST_RUN_OWNERS] =
	    "SELECT id, owner FROM runs WHERE status IN ('queued', 'running')",
	[ST_RUN_INTERRUPT] =
	    "UPDATE runs SET status = 'interrupted', finished = ?2,"
	    " owner = NULL, error = coalesce(error,"
	    " 'the process running it ended before it finished')"
	    " WHERE id = ?1 AND status IN ('queued', 'running')",
};

const char *
db_status_name(enum db_status st)
{
	static const char *const names[] = {
		"ok", "io", "full", "readonly", "cantopen", "corrupt", "busy",
		"schema", "notfound", "invalid", "nomem", "internal",
		"unavailable"
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

/* Map an SQLite result code to a status, with a message naming the path. */
enum db_status
db_error(struct db *db, int rc, const char *what, char *err, size_t errlen)
{
	enum db_status	st;
	const char	*why;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return DB_OK;
	case SQLITE_FULL:
		st = DB_ERR_FULL;
		why = "the file system is full";
		break;
	case SQLITE_READONLY:
		st = DB_ERR_READONLY;
		why = "the store is read-only";
		break;
	case SQLITE_CANTOPEN:
		st = DB_ERR_CANTOPEN;
		why = "cannot open the file";
		break;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		st = DB_ERR_CORRUPT;
		why = "the file is corrupt";
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		st = DB_ERR_BUSY;
		why = "another writer holds the store";
		break;
	case SQLITE_NOMEM:
		st = DB_ERR_NOMEM;
		why = "out of memory";
		break;
	case SQLITE_IOERR:
		st = DB_ERR_IO;
		why = "I/O error";
		break;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		st = DB_ERR_INVALID;
		why = "a value was refused";
		break;
	default:
		st = DB_ERR_INTERNAL;
		why = "internal error";
		break;
	}
	snprintf(err, errlen, "%s: %s: %s (%s)", db != NULL ? db->path : "",
	    what, why, db != NULL && db->conn != NULL ?
	    sqlite3_errmsg(db->conn) : sqlite3_errstr(rc));
	return st;
}

sqlite3_stmt *
db_stmt(struct db *db, enum db_stmt which, char *err, size_t errlen)
{
	int	rc;

	if (db->stmts[which] == NULL) {
		rc = sqlite3_prepare_v3(db->conn, stmt_sql[which], -1,
		    SQLITE_PREPARE_PERSISTENT, &db->stmts[which], NULL);
		if (rc != SQLITE_OK) {
			db_error(db, rc, "prepare", err, errlen);
			return NULL;
		}
	}
	sqlite3_reset(db->stmts[which]);
	sqlite3_clear_bindings(db->stmts[which]);
	return db->stmts[which];
}

enum db_status
db_begin(struct db *db, char *err, size_t errlen)
{
	int	rc;

	if (db->readonly) {
		snprintf(err, errlen, "%s: opened read-only", db->path);
		return DB_ERR_READONLY;
	}
	rc = sqlite3_exec(db->conn, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	return rc == SQLITE_OK ? DB_OK : db_error(db, rc, "begin", err, errlen);
}

enum db_status
db_commit(struct db *db, char *err, size_t errlen)
{
	int	rc;

	rc = sqlite3_exec(db->conn, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		enum db_status st = db_error(db, rc, "commit", err, errlen);

		db_rollback(db);
		return st;
	}
	return DB_OK;
}

void
db_rollback(struct db *db)
{
	if (!sqlite3_get_autocommit(db->conn))
		sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
}

static void
db_logf(const struct db_open_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
db_logf(const struct db_open_opts *o, const char *fmt, ...)
{
	char	msg[1024];
	va_list	ap;

	if (o == NULL || o->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->log(o->log_ctx, msg);
}

/* "pid:starttime" of process pid, from /proc/PID/stat (field 22). */
int
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

int
db_owner_alive(const char *owner)
{
	char	now[64];
	long	pid;

	if (owner == NULL || sscanf(owner, "%ld:", &pid) != 1 || pid <= 0)
		return 0;
	if (db_process_identity(pid, now, sizeof(now)) == -1)
		return 0;
	return strcmp(now, owner) == 0;
}

enum db_status
db_recover_interrupted(struct db *db, size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	int64_t		 ids[256];
	size_t		 nids = 0, i;
	char		 now[32];
	enum db_status	 rc;
	int		 step;

	*n = 0;
	DB_PG(db, pg_recover_interrupted(db, n, err, errlen));
	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	if ((st = db_stmt(db, ST_RUN_OWNERS, err, errlen)) == NULL)
		goto fail;
	while ((step = sqlite3_step(st)) == SQLITE_ROW && nids < 256) {
		if (!db_owner_alive((const char *)sqlite3_column_text(st, 1)))
			ids[nids++] = sqlite3_column_int64(st, 0);
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		rc = db_error(db, step, "read runs", err, errlen);
		goto fail;
	}
	sqlite3_reset(st);
	db_now(now, sizeof(now));
	for (i = 0; i < nids; i++) {
		if ((st = db_stmt(db, ST_RUN_INTERRUPT, err, errlen)) == NULL)
			goto fail;
		sqlite3_bind_int64(st, 1, ids[i]);
		sqlite3_bind_text(st, 2, now, -1, SQLITE_TRANSIENT);
		if ((step = sqlite3_step(st)) != SQLITE_DONE) {
			rc = db_error(db, step, "mark interrupted", err, errlen);
			goto fail;
		}
		(*n)++;
	}
	return db_commit(db, err, errlen);
fail:
	if (rc == DB_OK)
		rc = DB_ERR_INTERNAL;
	db_rollback(db);
	return rc;
}

int
db_schema_version(struct db *db)
{
	sqlite3_stmt	*st;
	int		 v = -1;

	if (db->pg != NULL)
		return pg_schema_version(db);
	if (sqlite3_prepare_v2(db->conn, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * Apply the migrations from the store's version to want (each in one
 * transaction with its user_version).
 */
static enum db_status
db_migrate(struct db *db, int want, char *err, size_t errlen)
{
	char		sql[64];
	enum db_status	rc;
	int		v, step;

	if ((v = db_schema_version(db)) < 0)
		return db_error(db, sqlite3_errcode(db->conn), "user_version",
		    err, errlen);
	if (v > DB_SCHEMA_VERSION) {
		snprintf(err, errlen, "%s: schema version %d is newer than "
		    "this pwtune knows (%d): upgrade pwtune", db->path, v,
		    DB_SCHEMA_VERSION);
		return DB_ERR_SCHEMA;
	}
	/*
	 * Read-only (pwtune db check, list, export): an older store is read
	 * as it is, never migrated; a writer migrates it.
	 */
	if (db->readonly)
		return DB_OK;
	for (; v < want; v++) {
		if ((rc = db_begin(db, err, errlen)) != DB_OK)
			return rc;
		step = sqlite3_exec(db->conn, migrations[v], NULL, NULL, NULL);
		if (step == SQLITE_OK) {
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			    v + 1);
			step = sqlite3_exec(db->conn, sql, NULL, NULL, NULL);
		}
		if (step != SQLITE_OK) {
			rc = db_error(db, step, "migration", err, errlen);
			db_rollback(db);
			return rc;
		}
		if ((rc = db_commit(db, err, errlen)) != DB_OK)
			return rc;
	}
	return DB_OK;
}

static void
db_close_conn(struct db *db)
{
	size_t	i;

	for (i = 0; i < ST__COUNT; i++) {
		sqlite3_finalize(db->stmts[i]);
		db->stmts[i] = NULL;
	}
	sqlite3_close_v2(db->conn);
	db->conn = NULL;
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	if (db->pg != NULL)
		pg_close(db);
	else
		db_close_conn(db);
	free(db);
}

/* quick_check: 1 when the store reads back clean, 0 when corrupt. */
static int
db_quick_check(struct db *db)
{
	sqlite3_stmt	*st;
	int		 ok = 0, rc;

	rc = sqlite3_prepare_v2(db->conn, "PRAGMA quick_check", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return (rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) !=
		    SQLITE_NOTADB;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		ok = strcmp((const char *)sqlite3_column_text(st, 0), "ok") ==
		    0;
	else
		ok = (rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) !=
		    SQLITE_NOTADB;
	sqlite3_finalize(st);
	return ok;
}

/*
 * Is this SQLite database another program's? A pwtune store at version 0
 * has no tables, and from version 1 on it has runs. Read-only: asked
 * before any pragma writes to the file.
 */
static int
db_foreign(struct db *db)
{
	sqlite3_stmt	*st;
	int		 foreign = 0;

	if (sqlite3_prepare_v2(db->conn, "SELECT (SELECT user_version FROM"
	    " pragma_user_version) = 0 AND EXISTS (SELECT 1 FROM sqlite_schema"
	    " WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\') OR"
	    " (SELECT user_version FROM pragma_user_version) > 0 AND NOT EXISTS"
	    " (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND"
	    " name = 'runs')", -1, &st, NULL) != SQLITE_OK)
		return 0;	/* the checks that follow say why */
	if (sqlite3_step(st) == SQLITE_ROW)
		foreign = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return foreign;
}

/* Does a read fail only because the place is read-only? */
static int
db_probe_needs_immutable(struct db *db)
{
	int	rc;

	rc = sqlite3_exec(db->conn, "SELECT count(*) FROM sqlite_schema",
	    NULL, NULL, NULL);
	return (rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY;
}

/* Move path and its -wal and -shm aside as path.corrupt-<UTC time>. */
static int
db_move_aside(const char *path, char *dest, size_t destlen)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char		 stamp[32], from[4200], to[4200];
	time_t		 now = time(NULL);
	struct tm	 tm;
	size_t		 i;

	int		 n;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(dest, destlen, "%s.corrupt-%s", path, stamp);
	/* Twice in one second: never overwrite what was set aside before. */
	for (n = 2; access(dest, F_OK) == 0 && n < 1000; n++)
		snprintf(dest, destlen, "%s.corrupt-%s.%d", path, stamp, n);
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(from, sizeof(from), "%s%s", path, sfx[i]);
		snprintf(to, sizeof(to), "%s%s", dest, sfx[i]);
		if (rename(from, to) == -1 && errno != ENOENT)
			return -1;
	}
	return 0;
}

/*
 * Is the file at path one SQLite may open? It must not exist (a new store),
 * or be a regular file that is empty (a new store too: SQLite makes the
 * file before it writes its first page, so a crash in between leaves one)
 * or starts with SQLite's magic. Anything else is refused, untouched: a
 * mistyped path must never turn a file into a store or be moved aside.
 */
static enum db_status
db_check_kind(const char *path, char *err, size_t errlen)
{
	static const char	magic[16] = "SQLite format 3";
	char			head[sizeof(magic)];
	struct stat		sb;
	ssize_t			n;
	int			fd;

	if (stat(path, &sb) == -1)
		return DB_OK;	/* SQLite says why it cannot open it */
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file: not a store "
		    "(left as it is)", path);
		return DB_ERR_INVALID;
	}
	if (sb.st_size == 0)
		return DB_OK;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return errno == EACCES ? DB_ERR_READONLY : DB_ERR_CANTOPEN;
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n != (ssize_t)sizeof(head) || memcmp(head, magic,
	    sizeof(magic)) != 0) {
		snprintf(err, errlen, "%s: not an SQLite database: not a store "
		    "(left as it is)", path);
		return DB_ERR_INVALID;
	}
	return DB_OK;
}

/*
 * Before SQLite sees it: can the directory (and the file, if it exists)
 * be written? A WAL store needs to create -wal and -shm beside it.
 */
static enum db_status
db_check_writable(const char *path, char *err, size_t errlen)
{
	char	 copy[4096], *dir;

	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (access(dir, W_OK) == -1) {
		snprintf(err, errlen, "%s: cannot write in %s (%s)", path, dir,
		    strerror(errno));
		return errno == ENOENT ? DB_ERR_CANTOPEN : DB_ERR_READONLY;
	}
	if (access(path, F_OK) == 0 && access(path, W_OK) == -1) {
		snprintf(err, errlen, "%s: cannot write the file (%s)", path,
		    strerror(errno));
		return DB_ERR_READONLY;
	}
	return DB_OK;
}

static enum db_status
db_open_conn(struct db *db, const struct db_open_opts *o, int immutable,
    char *err, size_t errlen)
{
	char	uri[4200];
	int	rc, flags;

	if (db->readonly) {
		flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
		snprintf(uri, sizeof(uri), "file:%s?mode=ro%s", db->path,
		    immutable ? "&immutable=1" : "");
		rc = sqlite3_open_v2(uri, &db->conn, flags, NULL);
	} else {
		flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
		    SQLITE_OPEN_NOMUTEX;
		rc = sqlite3_open_v2(db->path, &db->conn, flags, NULL);
	}
	if (rc != SQLITE_OK)
		return db_error(db, rc, "open", err, errlen);
	sqlite3_extended_result_codes(db->conn, 1);
	sqlite3_busy_timeout(db->conn, o != NULL && o->busy_timeout_ms > 0 ?
	    o->busy_timeout_ms : DB_BUSY_TIMEOUT_MS);
	return DB_OK;
}

/*
 * Pragmas of a writable connection. WAL with synchronous=NORMAL, set
 * explicitly (Debian builds SQLite with FULL in WAL mode): a commit
 * survives a crash of the process; a power cut may lose the last ones.
 */
static enum db_status
db_setup(struct db *db, char *err, size_t errlen)
{
	int	rc;

	rc = sqlite3_exec(db->conn, "PRAGMA foreign_keys = ON", NULL, NULL,
	    NULL);
	if (rc == SQLITE_OK && !db->readonly && strcmp(db->path, ":memory:"))
		rc = sqlite3_exec(db->conn, "PRAGMA journal_mode = WAL", NULL,
		    NULL, NULL);
	if (rc == SQLITE_OK && !db->readonly)
		rc = sqlite3_exec(db->conn, "PRAGMA synchronous = NORMAL", NULL,
		    NULL, NULL);
	return rc == SQLITE_OK ? DB_OK : db_error(db, rc, "setup", err, errlen);
}

static enum db_status
db_open_at(const char *path, const struct db_open_opts *o, int version,
    struct db **out, char *err, size_t errlen)
{
	struct db	*db;
	enum db_status	 rc;
	char		 aside[4200];
	size_t		 n;
	int		 memory = strcmp(path, ":memory:") == 0, attempt;

	*out = NULL;
	if (strlen(path) >= sizeof(db->path) - 64) {
		snprintf(err, errlen, "path is too long");
		return DB_ERR_INVALID;
	}
	if ((db = calloc(1, sizeof(*db))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	snprintf(db->path, sizeof(db->path), "%s", path);
	db->readonly = o != NULL && o->readonly;
	if (db_process_identity((long)getpid(), db->owner,
	    sizeof(db->owner)) == -1)
		snprintf(db->owner, sizeof(db->owner), "%ld:0", (long)getpid());
	if (!memory && !db->readonly &&
	    (rc = db_check_writable(path, err, errlen)) != DB_OK)
		goto fail;
	if (db->readonly && access(path, R_OK) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = DB_ERR_CANTOPEN;
		goto fail;
	}
	if (!memory && (rc = db_check_kind(path, err, errlen)) != DB_OK)
		goto fail;

	for (attempt = 0; attempt < 2; attempt++) {
		if ((rc = db_open_conn(db, o, attempt == 1 && db->readonly, err,
		    errlen)) != DB_OK)
			goto fail;
		/*
		 * A WAL store in a place this process cannot write: SQLite
		 * cannot make the -shm it reads through. Nobody can be
		 * writing it there, so read it as immutable.
		 */
		if (db->readonly && attempt == 0 && db_probe_needs_immutable(db)) {
			db_close_conn(db);
			continue;
		}
		if (db_quick_check(db)) {
			if (!memory && db_foreign(db)) {
				snprintf(err, errlen, "%s: an SQLite database "
				    "of another program: not a pwtune store "
				    "(left as it is)", path);
				rc = DB_ERR_INVALID;
				goto fail;
			}
			if ((rc = db_setup(db, err, errlen)) == DB_OK)
				break;
			if (rc != DB_ERR_CORRUPT && !(db->readonly &&
			    rc == DB_ERR_CANTOPEN))
				goto fail;
		}
		db_close_conn(db);
		if (db->readonly) {
			/* A WAL store in a read-only place: read it as is. */
			if (attempt == 0 && rc == DB_ERR_CANTOPEN)
				continue;
			snprintf(err, errlen, "%s: the file is corrupt (opened "
			    "read-only: left as it is)", path);
			rc = DB_ERR_CORRUPT;
			goto fail;
		}
		if (memory || attempt == 1) {
			snprintf(err, errlen, "%s: the file is corrupt", path);
			rc = DB_ERR_CORRUPT;
			goto fail;
		}
		if (db_move_aside(path, aside, sizeof(aside)) == -1) {
			snprintf(err, errlen, "%s: corrupt, and cannot be moved "
			    "aside: %s", path, strerror(errno));
			rc = DB_ERR_CORRUPT;
			goto fail;
		}
		db_logf(o, "store %s was corrupt: moved aside as %s, and a new "
		    "one created", path, aside);
	}
	if ((rc = db_migrate(db, version, err, errlen)) != DB_OK)
		goto fail;
	if (!db->readonly && !(o != NULL && o->no_recover) &&
	    version == DB_SCHEMA_VERSION) {
		if ((rc = db_recover_interrupted(db, &n, err, errlen)) != DB_OK)
			goto fail;
		if (n > 0)
			db_logf(o, "store %s: %zu run%s left unfinished by a "
			    "process that ended marked interrupted", path, n,
			    n == 1 ? "" : "s");
	}
	*out = db;
	return DB_OK;
fail:
	db_close(db);
	return rc;
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

static enum db_status
db_open_pg(const char *uri, const struct db_open_opts *o, int version,
    struct db **out, char *err, size_t errlen)
{
	struct db	*db;
	enum db_status	 rc;

	*out = NULL;
	if ((db = calloc(1, sizeof(*db))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	db_locator_redact(uri, db->path, sizeof(db->path));
	db->readonly = o != NULL && o->readonly;
	db->log = o != NULL ? o->log : NULL;
	db->log_ctx = o != NULL ? o->log_ctx : NULL;
	if ((rc = pg_open(db, uri, o, version, err, errlen)) != DB_OK) {
		db_close(db);
		return rc;
	}
	*out = db;
	return DB_OK;
}

/*
 * A locator libpq would read otherwise than db_locator_redact does (an
 * '@' or '/' of the password not percent-encoded), a URI of another
 * engine, or a keyword/value string with a password (which would be taken
 * for a file name, and shown as one): refused before anything reads it,
 * so that no message (libpq's own included) ever shows a piece of a
 * password.
 */
static int
db_locator_refused(const char *path, char *err, size_t errlen)
{
	PQconninfoOption *opts;
	const char	*rest, *p;
	char		 shown[4352];	/* longer than struct db's path */
	char		*perr = NULL;

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
	/*
	 * libpq's own complaint quotes the value it could not read: said
	 * only when the URI holds no password.
	 */
	if ((opts = PQconninfoParse(path, &perr)) == NULL) {
		if (strcmp(shown, path) == 0 && perr != NULL) {
			perr[strcspn(perr, "\n")] = '\0';
			snprintf(err, errlen, "%s: %s", shown, perr);
		} else
			snprintf(err, errlen, "%s: libpq cannot read this URI "
			    "(a %% not followed by two hex digits, %%00, a "
			    "parameter without '=' or unknown)", shown);
		PQfreemem(perr);
		return 1;
	}
	PQconninfoFree(opts);
	return 0;
}

enum db_status
db_open(const char *path, const struct db_open_opts *o, struct db **out,
    char *err, size_t errlen)
{
	*out = NULL;
	if (db_locator_refused(path, err, errlen))
		return DB_ERR_INVALID;
	if (db_is_postgresql(path))
		return db_open_pg(path, o, DB_SCHEMA_VERSION, out, err, errlen);
	return db_open_at(path, o, DB_SCHEMA_VERSION, out, err, errlen);
}

enum db_status
db_ping(struct db *db, char *err, size_t errlen)
{
	int	rc;

	DB_PG(db, pg_ping(db, err, errlen));
	rc = sqlite3_exec(db->conn, "SELECT 1", NULL, NULL, NULL);
	return rc == SQLITE_OK ? DB_OK : db_error(db, rc, "ping", err, errlen);
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
	if (db_is_postgresql(path))
		return db_open_pg(path, &o, version, out, err, errlen);
	return db_open_at(path, &o, version, out, err, errlen);
}

enum db_status
db_check(struct db *db, char *result, size_t resultlen, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st;
	size_t		 used = 0;
	int		 rc;

	result[0] = '\0';
	DB_PG(db, pg_check(db, result, resultlen, err, errlen));
	rc = sqlite3_prepare_v2(db->conn, "PRAGMA integrity_check(20)", -1,
	    &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, rc, "integrity_check", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && used + 2 < resultlen) {
		used += (size_t)snprintf(result + used, resultlen - used,
		    "%s%s", used ? "\n" : "",
		    (const char *)sqlite3_column_text(st, 0));
		if (used >= resultlen)
			used = resultlen - 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(db, rc, "integrity_check", err, errlen);
	return DB_OK;
}
