/*
 * db/store.h: what the files of db/ share, behind db.h. Private: nothing
 * outside db/ includes it.
 *
 * struct db is engine-neutral: what both engines need, the engine's table
 * of operations (struct db_ops) and its own state. db/ holds db.h (the
 * interface), this header, db.c (open, close, names, redaction,
 * interrupted runs, and the helpers below), the engines sqlite.c and
 * postgresql.c (they run statements and hand back rows), schema.c (the
 * migrations, once for both dialects) and the files of the tables:
 * runs.c, hosts.c, models.c, observations.c. Those hold each query's SQL
 * and its row mapping, once, and call the helpers below, never an engine.
 */
#ifndef PWTUNE_DB_STORE_H
#define PWTUNE_DB_STORE_H

#include <stdint.h>
#include <time.h>

#include "db.h"

#define DB_ARGS_MAX	16

/*
 * A statement: SQL both engines accept, parameters written $1, $2, ...
 * (SQLite binds them by name), or SQLite's and PostgreSQL's own text
 * where the dialects differ (pg NULL: the same text).
 */
struct db_sql {
	const char	*sql;
	const char	*pg;
};

/* A timestamp column as ISO 8601 UTC text (SQLite keeps it so). */
#define DB_TS_SQLITE(c)	c
#define DB_TS_PG(c)	"to_char(" c " AT TIME ZONE 'UTC', "		\
			"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
/* A statement whose only difference is its timestamp columns. */
#define DB_SQL_TS(q)	{ q(DB_TS_SQLITE), q(DB_TS_PG) }

/* Parameters $1 .. $n; a NULL text is SQL NULL. */
struct db_args {
	int	n;
	struct db_arg {
		enum { DB_ARG_NULL, DB_ARG_TEXT, DB_ARG_INT, DB_ARG_REAL } type;
		const char	*s;
		int64_t		 i;
		double		 d;
	}	v[DB_ARGS_MAX];
};

static inline void
a_text(struct db_args *a, const char *s)
{
	a->v[a->n].type = s != NULL ? DB_ARG_TEXT : DB_ARG_NULL;
	a->v[a->n++].s = s;
}

static inline void
a_int(struct db_args *a, int64_t i)
{
	a->v[a->n].type = DB_ARG_INT;
	a->v[a->n++].i = i;
}

static inline void
a_real(struct db_args *a, double d)
{
	a->v[a->n].type = DB_ARG_REAL;
	a->v[a->n++].d = d;
}

static inline void
a_null(struct db_args *a)
{
	a->v[a->n++].type = DB_ARG_NULL;
}

/*
 * The rows of a statement, read one at a time: SQLite steps its
 * statement, PostgreSQL walks its result. Columns from 0; a NULL reads as
 * NULL text, 0 or 0.0.
 */
struct db_rows {
	struct db	*db;
	const char	*what;		/* for the message of an error */
	void		*handle;	/* sqlite3_stmt, or PGresult */
	int		 row;		/* PostgreSQL: the current row */
	int		 rc;		/* SQLite: the last step */
	int		 owned;		/* SQLite: not cached, finalize it */
};

/* What an engine provides. Errors: a db_status, err naming the store. */
struct db_ops {
	/*
	 * Open locator at schema version (migrating a writable store),
	 * setting db->path and the engine's state. db->owner, readonly and
	 * log are set before.
	 */
	enum db_status	(*open)(struct db *db, const char *locator,
			    const struct db_open_opts *o, int version,
			    char *err, size_t errlen);
	void		(*close)(struct db *db);
	int		(*schema_version)(struct db *db);
	enum db_status	(*ping)(struct db *db, char *err, size_t errlen);
	enum db_status	(*check)(struct db *db, char *result,
			    size_t resultlen, char *err, size_t errlen);
	enum db_status	(*begin)(struct db *db, char *err, size_t errlen);
	/* Commit; a commit that fails is rolled back. */
	enum db_status	(*commit)(struct db *db, char *err, size_t errlen);
	void		(*rollback)(struct db *db);
	/*
	 * Run q with a. rows NULL: run it through, *changes (when not
	 * NULL) the rows it changed. Otherwise *rows reads its result.
	 */
	enum db_status	(*run)(struct db *db, const char *what,
			    const struct db_sql *q, const struct db_args *a,
			    struct db_rows *rows, int64_t *changes, char *err,
			    size_t errlen);
	int		(*next)(struct db_rows *r);	/* 1: a row */
	const char     *(*text)(struct db_rows *r, int col);
	int64_t		(*i64)(struct db_rows *r, int col);
	double		(*real)(struct db_rows *r, int col);
	/* Release the rows; a failure met while reading them. */
	enum db_status	(*end)(struct db_rows *r, char *err, size_t errlen);
};

extern const struct db_ops db_sqlite_ops;	/* sqlite.c */
extern const struct db_ops db_postgresql_ops;	/* postgresql.c */

/* schema.c: the migrations, version i to i + 1, in each dialect. */
extern const char *const db_sqlite_migrations[DB_SCHEMA_VERSION];

/* db_identify() of an SQLite file (sqlite.c). */
enum db_status db_sqlite_identify(const char *path, char *err,
	    size_t errlen);
extern const char *const db_postgresql_migrations[DB_SCHEMA_VERSION];

struct db {
	const struct db_ops *ops;
	void		*engine;	/* the engine's own state */
	char		 path[4096];	/* the file, or the redacted URI */
	int		 readonly;
	int		 unmarked;	/* SQLite: not (yet) known to be a
					   store: its connection does not
					   checkpoint on close */
	void	       (*log)(void *, const char *);
	void		*log_ctx;
	char		 owner[256];	/* "pid:starttime" of this process;
					   PostgreSQL adds "@boot_id/host" */
	int		 timeout_ms;	/* db_set_limits() */
	const struct db_gate *gate;
};

/* db.c: for the engines. */
void		 db_logf(struct db *db, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 db_now(char *buf, size_t len);
int		 db_owner_alive(const char *owner);

/* db.c: statements and transactions, for the files of the tables. */
enum db_status	 db_begin(struct db *db, char *err, size_t errlen);
/* End a transaction: commit after DB_OK, roll back otherwise. */
enum db_status	 db_end(struct db *db, enum db_status st, char *err,
		    size_t errlen);
enum db_status	 db_exec(struct db *db, const char *what,
		    const struct db_sql *q, const struct db_args *a,
		    int64_t *changes, char *err, size_t errlen);
enum db_status	 db_query(struct db *db, const char *what,
		    const struct db_sql *q, const struct db_args *a,
		    struct db_rows *r, char *err, size_t errlen);
int		 db_next(struct db_rows *r);
int64_t		 db_int(struct db_rows *r, int col);
double		 db_real(struct db_rows *r, int col);
const char	*db_text(struct db_rows *r, int col);
/* Copy a text column; NULL is "". */
void		 db_copy(struct db_rows *r, int col, char *dst, size_t len);
enum db_status	 db_rows_end(struct db_rows *r, char *err, size_t errlen);
/* The one row of a query: DB_ERR_NOTFOUND (err unset) when none. */
enum db_status	 db_query_row(struct db *db, const char *what,
		    const struct db_sql *q, const struct db_args *a,
		    struct db_rows *r, char *err, size_t errlen);
enum db_status	 db_nomem(char *err, size_t errlen);
/* A JSON value as compact text, or NULL when out of memory. */
char		*db_json_text(const json_t *j);

/* hosts.c: insert or refresh a host; inside a transaction. */
enum db_status	 db_host_save(struct db *db, const struct host_info *h,
		    int effective_cpus, const char *now, char *err,
		    size_t errlen);

/*
 * observations.c: the newest observations (at most limit) of host_id,
 * stack, source and model_run (NULL, NULL, NULL, 0: any), newest first.
 */
enum db_status	 db_observations_of(struct db *db, const char *host_id,
		    const char *stack, const char *source, int64_t model_run,
		    size_t limit, struct db_observation **out, size_t *n,
		    char *err, size_t errlen);

#endif /* PWTUNE_DB_STORE_H */
