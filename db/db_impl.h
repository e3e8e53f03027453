/*
 * db/db_impl.h: what the files of db/ share. Private: nothing outside db/
 * includes it.
 */
#ifndef PWTUNE_DB_IMPL_H
#define PWTUNE_DB_IMPL_H

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
	sqlite3		*conn;
	char		 path[4096];
	int		 readonly;
	sqlite3_stmt	*stmts[ST__COUNT];
	void	       (*log)(void *, const char *);
	void		*log_ctx;
	char		 owner[64];	/* "pid:starttime" of this process */
};

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

#endif /* PWTUNE_DB_IMPL_H */
