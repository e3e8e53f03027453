/*
 * db/sqlite.c: the SQLite engine (struct db_ops), a store in one file.
 * Opening: the file checks (only an SQLite file is a store), a corrupt
 * file moved aside by a writer, WAL, migrations (user_version); then
 * statements (prepared once per connection), transactions and errors.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"

#define SQL_CACHE_MAX	48	/* statements kept prepared */

/* The header's application id of a store: "pwtu". */
#define DB_SQLITE_APP_ID	0x70777475u
#define DB_SQLITE_APP_ID_SQL	"1886876789"

struct sql_state {
	sqlite3		*conn;
	struct {
		const struct db_sql *q;
		sqlite3_stmt	*st;
	}		 cache[SQL_CACHE_MAX];
};

#define CONN(db)	(((struct sql_state *)(db)->engine)->conn)

/* Map an SQLite result code to a status, with a message naming the path. */
static enum db_status
sql_error(struct db *db, int rc, const char *what, char *err, size_t errlen)
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
	    what, why, db != NULL && db->engine != NULL &&
	    CONN(db) != NULL ? sqlite3_errmsg(CONN(db)) : sqlite3_errstr(rc));
	return st;
}

/* quick_check: 1 when the store reads back clean, 0 when corrupt. */
static int
sql_quick_check(struct db *db)
{
	sqlite3_stmt	*st;
	int		 ok = 0, rc;

	rc = sqlite3_prepare_v2(CONN(db), "PRAGMA quick_check", -1, &st, NULL);
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
 * has no tables, and from version 1 on it has hosts, runs and points, runs
 * with host_id, fingerprint and host_facts. Read-only: asked before any
 * pragma writes to the file.
 */
static int
sql_foreign(struct db *db)
{
	sqlite3_stmt	*st;
	int		 foreign = 0;

	if (sqlite3_prepare_v2(CONN(db), "SELECT (SELECT user_version FROM"
	    " pragma_user_version) = 0 AND EXISTS (SELECT 1 FROM sqlite_schema"
	    " WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\') OR"
	    " (SELECT user_version FROM pragma_user_version) > 0 AND"
	    " ((SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND"
	    " name IN ('hosts', 'runs', 'points')) < 3 OR (SELECT count(*)"
	    " FROM pragma_table_info('runs') WHERE name IN ('host_id',"
	    " 'fingerprint', 'host_facts')) < 3)", -1, &st, NULL) != SQLITE_OK)
		return 0;	/* the checks that follow say why */
	if (sqlite3_step(st) == SQLITE_ROW)
		foreign = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return foreign;
}

/* Does a read fail only because the place is read-only? */
static int
sql_needs_immutable(struct db *db)
{
	int	rc;

	rc = sqlite3_exec(CONN(db), "SELECT count(*) FROM sqlite_schema",
	    NULL, NULL, NULL);
	return (rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY;
}

/* Move path and its -wal and -shm aside as path.corrupt-<UTC time>. */
static int
sql_move_aside(const char *path, char *dest, size_t destlen)
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
 * The first len bytes of the file at path (sb its stat): how many were
 * read, or -errno. Read through SQLite's own file layer, never with an
 * open() and close() of our own: on Linux a close() drops every POSIX
 * lock the process holds on the file, the SHARED lock of its other
 * connections to the store among them, and another process's
 * connection, closing, would then take itself for the last one and
 * delete the -wal and -shm they are using (a request to pwtuned, then a
 * `pwtune db import` beside it, lost what was written after). SQLite's
 * layer keeps such a descriptor open until the locks are released.
 */
static ssize_t
sql_read_head(const char *path, const struct stat *sb, unsigned char *head,
    size_t len)
{
	sqlite3_vfs	*vfs = sqlite3_vfs_find(NULL);
	sqlite3_file	*f;
	char		*name;
	size_t		 plen = strlen(path);
	ssize_t		 n;
	int		 rc, out = 0;

	if (vfs == NULL)
		return -EIO;
	/* A database's name as SQLite makes it: four NULs after it. */
	if ((f = calloc(1, (size_t)vfs->szOsFile)) == NULL ||
	    (name = calloc(1, plen + 4)) == NULL) {
		free(f);
		return -ENOMEM;
	}
	memcpy(name, path, plen);
	errno = 0;
	rc = vfs->xOpen(vfs, name, f, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_MAIN_DB, &out);
	if (rc != SQLITE_OK) {
		n = errno != 0 ? -errno : -EIO;
		if (f->pMethods != NULL)
			f->pMethods->xClose(f);
	} else {
		n = (ssize_t)((uint64_t)sb->st_size < len ?
		    (size_t)sb->st_size : len);
		rc = f->pMethods->xRead(f, head, (int)n, 0);
		if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)
			n = -EIO;
		f->pMethods->xClose(f);
	}
	free(name);
	free(f);
	return n;
}

/*
 * Is the file at path one SQLite may open? It must not exist (a new store),
 * or be a regular file that is empty (a new store too: SQLite makes the
 * file before it writes its first page, so a crash in between leaves one)
 * or starts with SQLite's magic. Anything else is refused, untouched: a
 * mistyped path must never turn a file into a store or be moved aside.
 */
static enum db_status
sql_check_kind(const char *path, uint32_t *app_id, int *content, char *err,
    size_t errlen)
{
	static const char	magic[16] = "SQLite format 3";
	unsigned char		head[100];
	struct stat		sb;
	ssize_t			n;

	*app_id = 0;
	*content = 0;
	if (stat(path, &sb) == -1) {
		/* A link to nothing: SQLite would make its target (0644). */
		if ((errno == ENOENT || errno == ELOOP) && lstat(path,
		    &sb) == 0 && S_ISLNK(sb.st_mode)) {
			snprintf(err, errlen, "%s: a symbolic link to nothing: "
			    "not a store (left as it is)", path);
			return DB_ERR_INVALID;
		}
		return DB_OK;	/* SQLite says why it cannot open it */
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file: not a store "
		    "(left as it is)", path);
		return DB_ERR_INVALID;
	}
	if (sb.st_size == 0)
		return DB_OK;
	if ((n = sql_read_head(path, &sb, head, sizeof(head))) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-n));
		return -n == EACCES ? DB_ERR_READONLY : DB_ERR_CANTOPEN;
	}
	if (n < (ssize_t)sizeof(magic) || memcmp(head, magic,
	    sizeof(magic)) != 0) {
		snprintf(err, errlen, "%s: not an SQLite database: not a store "
		    "(left as it is)", path);
		return DB_ERR_INVALID;
	}
	/* The header's application id (offset 68, big-endian). */
	if (n == (ssize_t)sizeof(head))
		*app_id = (uint32_t)head[68] << 24 | (uint32_t)head[69] << 16 |
		    (uint32_t)head[70] << 8 | head[71];
	*content = 1;
	return DB_OK;
}

/*
 * A file: URI of path with query (SQLite's URI filenames): '%', '?' and
 * '#' in the path percent-encoded, else they would end or change it. 0,
 * or -1 when it does not fit in len.
 */
static int
sql_uri(const char *path, const char *query, char *out, size_t len)
{
	static const char	hex[] = "0123456789ABCDEF";
	size_t			n = 0;

	/* An absolute path after "file://" (an empty authority), so that
	   one starting "//" is not read as a host name. */
	n = (size_t)snprintf(out, len, "%s", path[0] == '/' ? "file://" :
	    "file:");
	for (; *path != '\0' && n + 4 < len; path++) {
		if (*path == '%' || *path == '?' || *path == '#') {
			out[n++] = '%';
			out[n++] = hex[(unsigned char)*path >> 4];
			out[n++] = hex[(unsigned char)*path & 15];
		} else
			out[n++] = *path;
	}
	out[n] = '\0';
	/* Cut, it would name another file or lose its query: refused. */
	if (*path != '\0' || (size_t)snprintf(out + n, len - n, "?%s",
	    query) >= len - n)
		return -1;
	return 0;
}

/*
 * A database not marked as a store (its application id is not pwtune's)
 * is looked at first through a connection that writes nothing, not even
 * -wal or -shm beside it: another program's, or corrupt, it is refused
 * (DB_ERR_INVALID: not known to be a store) and left as it is. One that
 * another id marks is refused unread.
 * (Stores are marked when written, sql_setup(); one from before that is
 * known by its tables.)
 */
static enum db_status
sql_identify(struct db *db, const char *path, uint32_t app_id, char *err,
    size_t errlen)
{
	struct sql_state	*e = db->engine;
	char			 uri[4200];
	int			 rc, ok, foreign;

	if (app_id != 0) {
		snprintf(err, errlen, "%s: an SQLite database of another "
		    "program (application id %u): not a pwtune store (left as "
		    "it is)", path, (unsigned)app_id);
		return DB_ERR_INVALID;
	}
	if (sql_uri(path, "mode=ro&immutable=1", uri, sizeof(uri)) == -1) {
		snprintf(err, errlen, "%s: the path is too long", path);
		return DB_ERR_CANTOPEN;
	}
	if ((rc = sqlite3_open_v2(uri, &e->conn, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_URI, NULL)) != SQLITE_OK) {
		sqlite3_close_v2(e->conn);
		e->conn = NULL;
		return sql_error(db, rc, "open", err, errlen);
	}
	ok = sql_quick_check(db);
	foreign = ok && sql_foreign(db);
	sqlite3_close_v2(e->conn);
	e->conn = NULL;
	/*
	 * A -wal beside it: the file alone may be torn by a checkpoint a
	 * crash cut short, and whole with its -wal. The open that reads the
	 * -wal judges it (a corrupt file nothing marks is refused there too).
	 */
	snprintf(uri, sizeof(uri), "%s-wal", path);
	if (!ok && access(uri, F_OK) == 0)
		return DB_OK;
	if (!ok) {
		snprintf(err, errlen, "%s: the file is corrupt, and nothing in "
		    "it says it is a pwtune store: left as it is (move it away "
		    "and a new store is made here)", path);
		return DB_ERR_INVALID;
	}
	if (foreign) {
		snprintf(err, errlen, "%s: an SQLite database of another "
		    "program: not a pwtune store (left as it is)", path);
		return DB_ERR_INVALID;
	}
	return DB_OK;
}

/*
 * Before SQLite sees it: can the directory (and the file, if it exists)
 * be written? A WAL store needs to create -wal and -shm beside it.
 */
static enum db_status
sql_check_writable(const char *path, char *err, size_t errlen)
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
sql_open_conn(struct db *db, const struct db_open_opts *o, int immutable,
    char *err, size_t errlen)
{
	struct sql_state	*e = db->engine;
	char			 uri[4200];
	int			 rc, flags, fd;

	if (db->readonly) {
		flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
		if (sql_uri(db->path, immutable ? "mode=ro&immutable=1" :
		    "mode=ro", uri, sizeof(uri)) == -1) {
			snprintf(err, errlen, "%s: the path is too long",
			    db->path);
			return DB_ERR_CANTOPEN;
		}
		rc = sqlite3_open_v2(uri, &e->conn, flags, NULL);
	} else {
		/*
		 * A new store is made 0600 here, before SQLite would make it
		 * 0644 less the umask (its -wal and -shm take its mode): by
		 * the daemon, the command line, or after a corrupt one was
		 * moved aside. An existing file keeps the mode it has.
		 */
		if (strcmp(db->path, ":memory:") != 0 && (fd = open(db->path,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600)) != -1)
			close(fd);
		flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
		    SQLITE_OPEN_NOMUTEX;
		rc = sqlite3_open_v2(db->path, &e->conn, flags, NULL);
	}
	if (rc != SQLITE_OK)
		return sql_error(db, rc, "open", err, errlen);
	/*
	 * Until the file is known to be a store, closing this connection
	 * must not checkpoint another program's -wal into its file.
	 */
	if (!db->readonly && db->unmarked)
		sqlite3_db_config(CONN(db), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1,
		    NULL);
	sqlite3_extended_result_codes(CONN(db), 1);
	sqlite3_busy_timeout(CONN(db), o != NULL && o->busy_timeout_ms > 0 ?
	    o->busy_timeout_ms : DB_BUSY_TIMEOUT_MS);
	return DB_OK;
}

/* The application id the connection reads (through the WAL too). */
static uint32_t
sql_app_id(struct db *db)
{
	sqlite3_stmt	*st;
	uint32_t	 id = 0;

	if (sqlite3_prepare_v2(CONN(db), "PRAGMA application_id", -1, &st,
	    NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		id = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/*
 * Pragmas of a writable connection. WAL with synchronous=NORMAL, set
 * explicitly (Debian builds SQLite with FULL in WAL mode): a commit
 * survives a crash of the process; a power cut may lose the last ones.
 */
static enum db_status
sql_setup(struct db *db, char *err, size_t errlen)
{
	int	rc;

	rc = sqlite3_exec(CONN(db), "PRAGMA foreign_keys = ON", NULL, NULL,
	    NULL);
	/*
	 * Marked as a store (the header's application id) before WAL, so
	 * that a new store's mark is in its file at once: only a marked file
	 * found corrupt is moved aside (sql_identify).
	 */
	if (rc == SQLITE_OK && !db->readonly && sql_app_id(db) !=
	    DB_SQLITE_APP_ID)
		/* A write: only when it is not there, and never an error (a
		   full disk must not keep a store from being read). */
		(void)sqlite3_exec(CONN(db), "PRAGMA application_id = "
		    DB_SQLITE_APP_ID_SQL, NULL, NULL, NULL);
	if (rc == SQLITE_OK && !db->readonly && strcmp(db->path, ":memory:"))
		rc = sqlite3_exec(CONN(db), "PRAGMA journal_mode = WAL", NULL,
		    NULL, NULL);
	if (rc == SQLITE_OK && !db->readonly)
		rc = sqlite3_exec(CONN(db), "PRAGMA synchronous = NORMAL", NULL,
		    NULL, NULL);
	return rc == SQLITE_OK ? DB_OK : sql_error(db, rc, "setup", err,
	    errlen);
}

static void
sql_close_conn(struct db *db)
{
	struct sql_state	*e = db->engine;
	size_t			 i;

	for (i = 0; i < SQL_CACHE_MAX; i++) {
		sqlite3_finalize(e->cache[i].st);
		e->cache[i].st = NULL;
		e->cache[i].q = NULL;
	}
	sqlite3_close_v2(e->conn);
	e->conn = NULL;
}

static void
sql_close(struct db *db)
{
	sql_close_conn(db);
	free(db->engine);
	db->engine = NULL;
}

static int
sql_schema_version(struct db *db)
{
	sqlite3_stmt	*st;
	int		 v = -1;

	if (sqlite3_prepare_v2(CONN(db), "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static enum db_status
sql_begin(struct db *db, char *err, size_t errlen)
{
	int	rc;

	rc = sqlite3_exec(CONN(db), "BEGIN IMMEDIATE", NULL, NULL, NULL);
	return rc == SQLITE_OK ? DB_OK : sql_error(db, rc, "begin", err,
	    errlen);
}

static void
sql_rollback(struct db *db)
{
	if (!sqlite3_get_autocommit(CONN(db)))
		sqlite3_exec(CONN(db), "ROLLBACK", NULL, NULL, NULL);
}

static enum db_status
sql_commit(struct db *db, char *err, size_t errlen)
{
	enum db_status	st;
	int		rc;

	rc = sqlite3_exec(CONN(db), "COMMIT", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return DB_OK;
	st = sql_error(db, rc, "commit", err, errlen);
	sql_rollback(db);
	return st;
}

/*
 * Apply the migrations from the store's version to want (each in one
 * transaction with its user_version).
 */
static enum db_status
sql_migrate(struct db *db, int want, char *err, size_t errlen)
{
	char		sql[64];
	enum db_status	rc;
	int		v, step;

	if ((v = sql_schema_version(db)) < 0)
		return sql_error(db, sqlite3_errcode(CONN(db)), "user_version",
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
		step = sqlite3_exec(CONN(db), db_sqlite_migrations[v], NULL,
		    NULL, NULL);
		if (step == SQLITE_OK) {
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			    v + 1);
			step = sqlite3_exec(CONN(db), sql, NULL, NULL, NULL);
		}
		if (step != SQLITE_OK) {
			rc = sql_error(db, step, "migration", err, errlen);
			sql_rollback(db);
			return rc;
		}
		if ((rc = sql_commit(db, err, errlen)) != DB_OK)
			return rc;
	}
	return DB_OK;
}

/*
 * The file checks, then a connection: read-only, a WAL store in a place
 * this process cannot write is read as immutable; writable, a corrupt
 * file is moved aside and a new store made in its place.
 */
static enum db_status
sql_open(struct db *db, const char *path, const struct db_open_opts *o,
    int version, char *err, size_t errlen)
{
	enum db_status	 rc;
	char		 aside[4200];
	uint32_t	 app_id = 0;
	int		 memory = strcmp(path, ":memory:") == 0, attempt;
	int		 content = 0;

	snprintf(db->path, sizeof(db->path), "%s", path);
	if ((db->engine = calloc(1, sizeof(struct sql_state))) == NULL)
		return db_nomem(err, errlen);
	if (!memory && !db->readonly &&
	    (rc = sql_check_writable(path, err, errlen)) != DB_OK)
		return rc;
	if (db->readonly && access(path, R_OK) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return DB_ERR_CANTOPEN;
	}
	if (!memory && (rc = sql_check_kind(path, &app_id, &content, err,
	    errlen)) != DB_OK)
		return rc;
	/*
	 * An empty file is made a store by a writer; read, it holds none
	 * (it read as one with no tables: "internal error", or "ok").
	 */
	if (db->readonly && !memory && !content) {
		snprintf(err, errlen, "%s: an empty file: no store in it yet "
		    "(pwtuned, pwtune bench --db or pwtune db import makes "
		    "one)", path);
		return DB_ERR_CANTOPEN;
	}
	if (content && app_id != DB_SQLITE_APP_ID && (rc = sql_identify(db,
	    path, app_id, err, errlen)) != DB_OK)
		return rc;
	db->unmarked = content && app_id != DB_SQLITE_APP_ID;

	for (attempt = 0; attempt < 2; attempt++) {
		if ((rc = sql_open_conn(db, o, attempt == 1 && db->readonly,
		    err, errlen)) != DB_OK)
			return rc;
		/*
		 * A WAL store in a place this process cannot write: SQLite
		 * cannot make the -shm it reads through. Nobody can be
		 * writing it there, so read it as immutable.
		 */
		if (db->readonly && attempt == 0 && sql_needs_immutable(db)) {
			sql_close_conn(db);
			continue;
		}
		if (sql_quick_check(db)) {
			if (!memory && sql_foreign(db)) {
				snprintf(err, errlen, "%s: an SQLite database "
				    "of another program: not a pwtune store "
				    "(left as it is)", path);
				return DB_ERR_INVALID;
			}
			/* A store: its connection checkpoints again. */
			if (db->unmarked && !db->readonly)
				sqlite3_db_config(CONN(db),
				    SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
			db->unmarked = 0;
			if ((rc = sql_setup(db, err, errlen)) == DB_OK)
				break;
			if (rc != DB_ERR_CORRUPT && !(db->readonly &&
			    rc == DB_ERR_CANTOPEN))
				return rc;
		}
		sql_close_conn(db);
		if (db->readonly) {
			/* A WAL store in a read-only place: read it as is. */
			if (attempt == 0 && rc == DB_ERR_CANTOPEN)
				continue;
			snprintf(err, errlen, "%s: the file is corrupt (opened "
			    "read-only: left as it is)", path);
			return DB_ERR_CORRUPT;
		}
		if (memory || attempt == 1) {
			snprintf(err, errlen, "%s: the file is corrupt", path);
			return DB_ERR_CORRUPT;
		}
		/* Moved aside only when its header marks it as a store. */
		if (content && app_id != DB_SQLITE_APP_ID) {
			snprintf(err, errlen, "%s: the file is corrupt, and "
			    "nothing in it says it is a pwtune store: left as it "
			    "is", path);
			return DB_ERR_INVALID;
		}
		if (sql_move_aside(path, aside, sizeof(aside)) == -1) {
			snprintf(err, errlen, "%s: corrupt, and cannot be moved "
			    "aside: %s", path, strerror(errno));
			return DB_ERR_CORRUPT;
		}
		db_logf(db, "store %s was corrupt: moved aside as %s, and a "
		    "new one created", path, aside);
	}
	return sql_migrate(db, version, err, errlen);
}

/* db_sqlite_identify(): the file checks of sql_open, nothing opened to
   write, nothing left beside the file. */
enum db_status
db_sqlite_identify(const char *path, char *err, size_t errlen)
{
	struct db		db;
	struct sql_state	e;
	enum db_status		rc;
	uint32_t		app_id;
	int			content;

	memset(&db, 0, sizeof(db));
	memset(&e, 0, sizeof(e));
	db.engine = &e;
	snprintf(db.path, sizeof(db.path), "%s", path);
	if ((rc = sql_check_kind(path, &app_id, &content, err, errlen)) !=
	    DB_OK || !content || app_id == DB_SQLITE_APP_ID)
		return rc;
	return sql_identify(&db, path, app_id, err, errlen);
}

static enum db_status
sql_ping(struct db *db, char *err, size_t errlen)
{
	int	rc;

	rc = sqlite3_exec(CONN(db), "SELECT 1", NULL, NULL, NULL);
	return rc == SQLITE_OK ? DB_OK : sql_error(db, rc, "ping", err,
	    errlen);
}

/* PRAGMA integrity_check: "ok", or the first problems it finds. */
static enum db_status
sql_check(struct db *db, char *result, size_t resultlen, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st;
	size_t		 used = 0;
	int		 rc;

	rc = sqlite3_prepare_v2(CONN(db), "PRAGMA integrity_check(20)", -1,
	    &st, NULL);
	if (rc != SQLITE_OK)
		return sql_error(db, rc, "integrity_check", err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && used + 2 < resultlen) {
		used += (size_t)snprintf(result + used, resultlen - used,
		    "%s%s", used ? "\n" : "",
		    (const char *)sqlite3_column_text(st, 0));
		if (used >= resultlen)
			used = resultlen - 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_error(db, rc, "integrity_check", err, errlen);
	return DB_OK;
}

/*
 * q prepared: from the cache (kept for the connection's life), or, once
 * the cache is full, for this run only (*owned).
 */
static int
sql_prepare(struct db *db, const struct db_sql *q, sqlite3_stmt **st,
    int *owned)
{
	struct sql_state	*e = db->engine;
	size_t			 i;
	int			 rc;

	*owned = 0;
	for (i = 0; i < SQL_CACHE_MAX && e->cache[i].q != NULL; i++) {
		if (e->cache[i].q == q) {
			*st = e->cache[i].st;
			sqlite3_reset(*st);
			sqlite3_clear_bindings(*st);
			return SQLITE_OK;
		}
	}
	if (i == SQL_CACHE_MAX) {
		*owned = 1;
		return sqlite3_prepare_v2(e->conn, q->sql, -1, st, NULL);
	}
	if ((rc = sqlite3_prepare_v3(e->conn, q->sql, -1,
	    SQLITE_PREPARE_PERSISTENT, st, NULL)) == SQLITE_OK) {
		e->cache[i].q = q;
		e->cache[i].st = *st;
	}
	return rc;
}

/* Bind a's values to $1 .. $n, by name: q need not use them all. */
static int
sql_bind(sqlite3_stmt *st, const struct db_args *a)
{
	char	name[16];
	int	i, col, rc = SQLITE_OK;

	for (i = 0; a != NULL && i < a->n && rc == SQLITE_OK; i++) {
		snprintf(name, sizeof(name), "$%d", i + 1);
		if ((col = sqlite3_bind_parameter_index(st, name)) == 0)
			continue;
		switch (a->v[i].type) {
		case DB_ARG_TEXT:
			rc = sqlite3_bind_text(st, col, a->v[i].s, -1,
			    SQLITE_TRANSIENT);
			break;
		case DB_ARG_INT:
			rc = sqlite3_bind_int64(st, col, a->v[i].i);
			break;
		case DB_ARG_REAL:
			rc = sqlite3_bind_double(st, col, a->v[i].d);
			break;
		default:
			rc = sqlite3_bind_null(st, col);
			break;
		}
	}
	return rc;
}

static void
sql_release(sqlite3_stmt *st, int owned)
{
	if (owned)
		sqlite3_finalize(st);
	else
		sqlite3_reset(st);
}

static enum db_status
sql_run(struct db *db, const char *what, const struct db_sql *q,
    const struct db_args *a, struct db_rows *r, int64_t *changes, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st;
	int		 rc, owned;

	if ((rc = sql_prepare(db, q, &st, &owned)) != SQLITE_OK)
		return sql_error(db, rc, what, err, errlen);
	if ((rc = sql_bind(st, a)) != SQLITE_OK) {
		sql_release(st, owned);
		return sql_error(db, rc, what, err, errlen);
	}
	if (r != NULL) {
		r->handle = st;
		r->owned = owned;
		r->rc = SQLITE_OK;
		return DB_OK;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sql_release(st, owned);
	if (rc != SQLITE_DONE)
		return sql_error(db, rc, what, err, errlen);
	if (changes != NULL)
		*changes = sqlite3_changes(CONN(db));
	return DB_OK;
}

static int
sql_next(struct db_rows *r)
{
	if (r->rc != SQLITE_OK && r->rc != SQLITE_ROW)
		return 0;
	r->rc = sqlite3_step(r->handle);
	return r->rc == SQLITE_ROW;
}

static const char *
sql_text(struct db_rows *r, int col)
{
	return (const char *)sqlite3_column_text(r->handle, col);
}

static int64_t
sql_i64(struct db_rows *r, int col)
{
	return sqlite3_column_int64(r->handle, col);
}

static double
sql_real(struct db_rows *r, int col)
{
	return sqlite3_column_double(r->handle, col);
}

static enum db_status
sql_end(struct db_rows *r, char *err, size_t errlen)
{
	int	rc = r->rc;

	if (r->handle == NULL)
		return DB_OK;
	sql_release(r->handle, r->owned);
	r->handle = NULL;
	if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE)
		return DB_OK;
	return sql_error(r->db, rc, r->what, err, errlen);
}

const struct db_ops db_sqlite_ops = {
	.open = sql_open,
	.close = sql_close,
	.schema_version = sql_schema_version,
	.ping = sql_ping,
	.check = sql_check,
	.begin = sql_begin,
	.commit = sql_commit,
	.rollback = sql_rollback,
	.run = sql_run,
	.next = sql_next,
	.text = sql_text,
	.i64 = sql_i64,
	.real = sql_real,
	.end = sql_end
};
