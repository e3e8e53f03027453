/*
 * db/db_runs.c: hosts, runs and their points; import, export, retention.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_impl.h"

/* Bind a JSON value as text (compact); returns -1 when out of memory. */
static int
db_bind_json(sqlite3_stmt *st, int col, const json_t *j)
{
	char	*text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));

	if (text == NULL)
		return -1;
	return sqlite3_bind_text(st, col, text, -1, free) == SQLITE_OK ? 0 :
	    -1;
}

static enum db_status
db_step_done(struct db *db, sqlite3_stmt *st, const char *what, char *err,
    size_t errlen)
{
	int	rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_error(db, rc, what, err, errlen);
}

static enum db_status
db_host_upsert(struct db *db, const struct host_info *h, int effective_cpus,
    const char *now, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	json_t		*facts;
	int		 rc;

	if ((st = db_stmt(db, ST_HOST_UPSERT, err, errlen)) == NULL)
		return DB_ERR_INTERNAL;
	facts = report_host_to_json(h, effective_cpus);
	sqlite3_bind_text(st, 1, h->host_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, h->fingerprint, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, h->cpu_model, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, h->online_cpus);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)h->mem_total);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)h->cg_mem_limit);
	sqlite3_bind_text(st, 7, h->kernel, -1, SQLITE_TRANSIENT);
	rc = db_bind_json(st, 8, facts);
	json_decref(facts);
	if (rc == -1) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	sqlite3_bind_text(st, 9, now, -1, SQLITE_TRANSIENT);
	return db_step_done(db, st, "save host", err, errlen);
}

static enum db_status
db_run_insert(struct db *db, const struct report *rep, size_t points_total,
    enum db_trigger trigger, enum db_run_status status, const char *now,
    int64_t *id, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	json_t		*facts;
	enum db_status	 rc;

	if ((rc = db_host_upsert(db, &rep->host, rep->effective_cpus, now, err,
	    errlen)) != DB_OK)
		return rc;
	if ((st = db_stmt(db, ST_RUN_INSERT, err, errlen)) == NULL)
		return DB_ERR_INTERNAL;
	facts = report_host_to_json(&rep->host, rep->effective_cpus);
	sqlite3_bind_text(st, 1, rep->host.host_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, rep->host.fingerprint, -1, SQLITE_TRANSIENT);
	if (db_bind_json(st, 3, facts) == -1) {
		json_decref(facts);
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	json_decref(facts);
	sqlite3_bind_text(st, 4, rep->profile, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, db_trigger_name(trigger), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, db_run_status_name(status), -1,
	    SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)points_total);
	sqlite3_bind_int(st, 8, rep->effective_cpus);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)rep->mem_budget);
	sqlite3_bind_text(st, 10, host_budget_source_name(rep->budget_source),
	    -1, SQLITE_STATIC);
	if (status == DB_RUN_QUEUED || status == DB_RUN_RUNNING)
		sqlite3_bind_text(st, 11, db->owner, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 12, rep->created[0] ? rep->created : now, -1,
	    SQLITE_TRANSIENT);
	if ((rc = db_step_done(db, st, "create run", err, errlen)) != DB_OK)
		return rc;
	*id = sqlite3_last_insert_rowid(db->conn);
	return DB_OK;
}

int
db_report_valid(const struct report *rep, char *err, size_t errlen)
{
	if (rep->host.host_id[0] == '\0' || rep->host.fingerprint[0] == '\0') {
		snprintf(err, errlen, "the run has no host id or fingerprint");
		return 0;
	}
	return 1;
}

enum db_status
db_run_create(struct db *db, const struct report *rep, size_t points_total,
    enum db_trigger trigger, int64_t *id, char *err, size_t errlen)
{
	char		now[32];
	enum db_status	rc;

	DB_PG(db, pg_run_create(db, rep, points_total, trigger, id, err,
	    errlen));

	if (!db_report_valid(rep, err, errlen))
		return DB_ERR_INVALID;
	db_now(now, sizeof(now));
	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	if ((rc = db_run_insert(db, rep, points_total, trigger, DB_RUN_QUEUED,
	    now, id, err, errlen)) != DB_OK) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db, err, errlen);
}

enum db_status
db_run_set_status(struct db *db, int64_t id, enum db_run_status status,
    const char *error, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	char		 now[32];
	enum db_status	 rc;

	DB_PG(db, pg_run_set_status(db, id, status, error, err, errlen));

	db_now(now, sizeof(now));
	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	if ((st = db_stmt(db, ST_RUN_SET_STATUS, err, errlen)) == NULL) {
		db_rollback(db);
		return DB_ERR_INTERNAL;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, db_run_status_name(status), -1, SQLITE_STATIC);
	if (error != NULL)
		sqlite3_bind_text(st, 3, error, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, now, -1, SQLITE_TRANSIENT);
	if ((rc = db_step_done(db, st, "update run", err, errlen)) != DB_OK) {
		db_rollback(db);
		return rc;
	}
	if (sqlite3_changes(db->conn) == 0) {
		db_rollback(db);
		snprintf(err, errlen, "no run %lld", (long long)id);
		return DB_ERR_NOTFOUND;
	}
	return db_commit(db, err, errlen);
}

/* Insert one point; inside the caller's transaction. */
static enum db_status
db_point_insert(struct db *db, int64_t id, size_t seq,
    const struct measure_result *r, char *err, size_t errlen)
{
	const struct kdf_params	*kp = &r->pt.kp;
	sqlite3_stmt		*st;
	json_t			*data;
	enum db_status		 rc;

	if ((st = db_stmt(db, ST_RUN_POINT_INSERT, err, errlen)) == NULL)
		return DB_ERR_INTERNAL;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)seq);
	sqlite3_bind_text(st, 3, kdf_backend_name(kdf_backend_resolve(
	    kp->backend, kp->alg)), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, kdf_alg_name(kp->alg), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, kp->m_kib);
	sqlite3_bind_int64(st, 6, kp->t);
	sqlite3_bind_int64(st, 7, kp->p);
	sqlite3_bind_int64(st, 8, r->pt.k);
	sqlite3_bind_text(st, 9, measure_status_name(r->status), -1,
	    SQLITE_STATIC);
	if (r->status == MEASURE_OK)
		sqlite3_bind_double(st, 10, r->st.median);
	sqlite3_bind_int(st, 11, r->noisy != 0);
	data = report_point_to_json(r, 1);
	if (data == NULL || db_bind_json(st, 12, data) == -1) {
		json_decref(data);
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	json_decref(data);
	if ((rc = db_step_done(db, st, "save point", err, errlen)) != DB_OK)
		return rc;
	if ((st = db_stmt(db, ST_RUN_POINT_COUNT, err, errlen)) == NULL)
		return DB_ERR_INTERNAL;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, r->noisy != 0);
	return db_step_done(db, st, "count point", err, errlen);
}

enum db_status
db_run_add_point(struct db *db, int64_t id, size_t seq,
    const struct measure_result *r, char *err, size_t errlen)
{
	enum db_status	rc;

	DB_PG(db, pg_run_add_point(db, id, seq, r, err, errlen));

	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	if ((rc = db_point_insert(db, id, seq, r, err, errlen)) != DB_OK) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db, err, errlen);
}

static void
db_copy_col(char *dst, size_t len, sqlite3_stmt *st, int col)
{
	const unsigned char	*v = sqlite3_column_text(st, col);

	snprintf(dst, len, "%s", v != NULL ? (const char *)v : "");
}

void
db_run_parse_enums(struct db_run *run, const char *trigger,
    const char *status, const char *budget_source)
{
	int	i;

	for (i = DB_TRIGGER_STARTUP; i <= DB_TRIGGER_IMPORT; i++)
		if (strcmp(trigger, db_trigger_name((enum db_trigger)i)) == 0)
			run->trigger = (enum db_trigger)i;
	if (db_run_status_parse(status, &run->status) == -1)
		run->status = DB_RUN_FAILED;
	run->budget_source = strcmp(budget_source, "config") == 0 ?
	    HOST_BUDGET_CONFIG : strcmp(budget_source, "cgroup") == 0 ?
	    HOST_BUDGET_CGROUP : HOST_BUDGET_MEMAVAILABLE;
}

static void
db_run_from_row(sqlite3_stmt *st, struct db_run *run)
{
	char	trigger[32], status[32], source[32];

	memset(run, 0, sizeof(*run));
	run->id = sqlite3_column_int64(st, 0);
	db_copy_col(run->host_id, sizeof(run->host_id), st, 1);
	db_copy_col(run->fingerprint, sizeof(run->fingerprint), st, 2);
	db_copy_col(run->profile, sizeof(run->profile), st, 3);
	db_copy_col(trigger, sizeof(trigger), st, 4);
	db_copy_col(status, sizeof(status), st, 5);
	db_copy_col(source, sizeof(source), st, 11);
	db_run_parse_enums(run, trigger, status, source);
	run->points_done = sqlite3_column_int(st, 6);
	run->points_total = sqlite3_column_int(st, 7);
	run->noisy_points = sqlite3_column_int(st, 8);
	run->effective_cpus = sqlite3_column_int(st, 9);
	run->mem_budget = (uint64_t)sqlite3_column_int64(st, 10);
	db_copy_col(run->error, sizeof(run->error), st, 12);
	db_copy_col(run->created, sizeof(run->created), st, 13);
	db_copy_col(run->started, sizeof(run->started), st, 14);
	db_copy_col(run->finished, sizeof(run->finished), st, 15);
}

enum db_status
db_run_get(struct db *db, int64_t id, struct db_run *run, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st;
	int		 rc;

	DB_PG(db, pg_run_get(db, id, run, err, errlen));

	if ((st = db_stmt(db, ST_RUN_GET, err, errlen)) == NULL)
		return DB_ERR_INTERNAL;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		sqlite3_reset(st);
		if (rc == SQLITE_DONE) {
			snprintf(err, errlen, "no run %lld", (long long)id);
			return DB_ERR_NOTFOUND;
		}
		return db_error(db, rc, "read run", err, errlen);
	}
	db_run_from_row(st, run);
	sqlite3_reset(st);
	return DB_OK;
}

enum db_status
db_runs_list(struct db *db, const char *host_id, size_t limit,
    struct db_run **runs, size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	int		 rc;

	*runs = NULL;
	*n = 0;
	if (limit == 0 || limit > DB_RUNS_LIST_MAX)
		limit = DB_RUNS_LIST_MAX;
	DB_PG(db, pg_runs_list(db, host_id, limit, runs, n, err, errlen));
	rc = sqlite3_prepare_v2(db->conn,
	    "SELECT id, host_id, fingerprint, profile, trigger, status,"
	    " points_done, points_total, noisy_points, effective_cpus,"
	    " mem_budget, budget_source, error, created, started, finished"
	    " FROM runs WHERE (?1 IS NULL OR host_id = ?1)"
	    " ORDER BY id DESC LIMIT ?2", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, rc, "list runs", err, errlen);
	if (host_id != NULL)
		sqlite3_bind_text(st, 1, host_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
	if ((*runs = calloc(limit, sizeof(**runs))) == NULL) {
		sqlite3_finalize(st);
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		db_run_from_row(st, &(*runs)[(*n)++]);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*runs);
		*runs = NULL;
		*n = 0;
		return db_error(db, rc, "list runs", err, errlen);
	}
	return DB_OK;
}

enum db_status
db_run_latest_done(struct db *db, const char *host_id,
    const char *fingerprint, int64_t *id, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	int		 rc;

	DB_PG(db, pg_run_latest_done(db, host_id, fingerprint, id, err,
	    errlen));

	if ((st = db_stmt(db, ST_RUN_LATEST_DONE, err, errlen)) == NULL)
		return DB_ERR_INTERNAL;
	if (host_id != NULL)
		sqlite3_bind_text(st, 1, host_id, -1, SQLITE_TRANSIENT);
	if (fingerprint != NULL)
		sqlite3_bind_text(st, 2, fingerprint, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		snprintf(err, errlen, "no finished run%s", host_id != NULL ?
		    " for this host" : "");
		return DB_ERR_NOTFOUND;
	}
	return rc == SQLITE_ROW ? DB_OK : db_error(db, rc, "find run", err,
	    errlen);
}

enum db_status
db_report_begin(struct report *rep, const struct db_run *run,
    const char *facts, char *err, size_t errlen)
{
	json_t	*j;
	char	 why[256];

	memset(rep, 0, sizeof(*rep));
	j = facts != NULL ? json_loads(facts, 0, NULL) : NULL;
	if (j == NULL || report_host_from_json(j, &rep->host,
	    &rep->effective_cpus, why, sizeof(why)) == -1) {
		json_decref(j);
		snprintf(err, errlen, "run %lld: stored host facts unreadable",
		    (long long)run->id);
		return DB_ERR_CORRUPT;
	}
	json_decref(j);
	snprintf(rep->created, sizeof(rep->created), "%s", run->created);
	snprintf(rep->profile, sizeof(rep->profile), "%s", run->profile);
	rep->mem_budget = run->mem_budget;
	rep->budget_source = run->budget_source;
	rep->effective_cpus = run->effective_cpus;
	return DB_OK;
}

enum db_status
db_report_point(struct report *rep, size_t *cap, const char *data,
    int64_t id, char *err, size_t errlen)
{
	json_t	*j;
	char	 why[256];

	if (rep->n == *cap) {
		struct measure_result	*bigger;
		size_t			 more = *cap ? 2 * *cap : 32;

		if ((bigger = realloc(rep->results, more * sizeof(*bigger))) ==
		    NULL) {
			snprintf(err, errlen, "out of memory");
			return DB_ERR_NOMEM;
		}
		rep->results = bigger;
		*cap = more;
	}
	memset(&rep->results[rep->n], 0, sizeof(rep->results[0]));
	j = data != NULL ? json_loads(data, 0, NULL) : NULL;
	rep->n++;
	if (j == NULL || report_point_from_json(j, &rep->results[rep->n - 1],
	    why, sizeof(why)) == -1) {
		json_decref(j);
		snprintf(err, errlen, "run %lld: stored point %zu unreadable",
		    (long long)id, rep->n - 1);
		return DB_ERR_CORRUPT;
	}
	json_decref(j);
	return DB_OK;
}

enum db_status
db_run_report(struct db *db, int64_t id, struct report *rep, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st;
	struct db_run	 run;
	enum db_status	 rc;
	size_t		 cap = 0;
	int		 step;

	memset(rep, 0, sizeof(*rep));
	DB_PG(db, pg_run_report(db, id, rep, err, errlen));
	if ((rc = db_run_get(db, id, &run, err, errlen)) != DB_OK)
		return rc;
	/* The host as it was when the run was made. */
	if ((st = db_stmt(db, ST_RUN_GET, err, errlen)) == NULL)
		return DB_ERR_INTERNAL;
	sqlite3_bind_int64(st, 1, id);
	if ((step = sqlite3_step(st)) != SQLITE_ROW) {
		sqlite3_reset(st);
		return db_error(db, step, "read run", err, errlen);
	}
	rc = db_report_begin(rep, &run, (const char *)sqlite3_column_text(st,
	    16), err, errlen);
	sqlite3_reset(st);
	if (rc != DB_OK)
		return rc;

	if ((st = db_stmt(db, ST_RUN_POINTS, err, errlen)) == NULL)
		return DB_ERR_INTERNAL;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = db_report_point(rep, &cap, (const char *)
		    sqlite3_column_text(st, 0), id, err, errlen)) != DB_OK)
			goto fail;
	sqlite3_reset(st);
	if (step != SQLITE_DONE) {
		rc = db_error(db, step, "read points", err, errlen);
		goto fail;
	}
	return DB_OK;
fail:
	sqlite3_reset(st);
	report_release(rep);
	return rc;
}

enum db_status
db_import_report(struct db *db, const struct report *rep, int64_t *id,
    char *err, size_t errlen)
{
	char		now[32];
	enum db_status	rc;
	size_t		i;

	DB_PG(db, pg_import_report(db, rep, id, err, errlen));

	if (!db_report_valid(rep, err, errlen))
		return DB_ERR_INVALID;
	db_now(now, sizeof(now));
	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	if ((rc = db_run_insert(db, rep, rep->n, DB_TRIGGER_IMPORT,
	    DB_RUN_DONE, now, id, err, errlen)) != DB_OK)
		goto fail;
	for (i = 0; i < rep->n; i++)
		if ((rc = db_point_insert(db, *id, i, &rep->results[i], err,
		    errlen)) != DB_OK)
			goto fail;
	{
		sqlite3_stmt *st;

		/* Imported runs are finished: record when they came in. */
		if ((st = db_stmt(db, ST_RUN_SET_STATUS, err, errlen)) ==
		    NULL) {
			rc = DB_ERR_INTERNAL;
			goto fail;
		}
		sqlite3_bind_int64(st, 1, *id);
		sqlite3_bind_text(st, 2, "done", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, now, -1, SQLITE_TRANSIENT);
		if ((rc = db_step_done(db, st, "finish import", err, errlen)) !=
		    DB_OK)
			goto fail;
	}
	return db_commit(db, err, errlen);
fail:
	db_rollback(db);
	return rc;
}

enum db_status
db_retention(struct db *db, const char *host_id, size_t keep, int64_t protect,
    size_t *deleted, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	enum db_status	 rc;
	int		 step;

	*deleted = 0;
	DB_PG(db, pg_retention(db, host_id, keep, protect, deleted, err,
	    errlen));
	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	step = sqlite3_prepare_v2(db->conn,
	    "DELETE FROM runs WHERE host_id = ?1 AND id <> ?3"
	    " AND status NOT IN ('queued', 'running')"
	    " AND id NOT IN (SELECT id FROM runs WHERE host_id = ?1"
	    "   ORDER BY id DESC LIMIT ?2)", -1, &st, NULL);
	if (step != SQLITE_OK) {
		rc = db_error(db, step, "retention", err, errlen);
		db_rollback(db);
		return rc;
	}
	sqlite3_bind_text(st, 1, host_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)keep);
	sqlite3_bind_int64(st, 3, protect);
	step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		rc = db_error(db, step, "retention", err, errlen);
		db_rollback(db);
		return rc;
	}
	*deleted = (size_t)sqlite3_changes(db->conn);
	return db_commit(db, err, errlen);
}

enum db_status
db_model_put(struct db *db, int64_t id, const struct model *m, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st = NULL;
	json_t		*all, *curves, *conc, *coeffs;
	enum db_status	 rc;
	char		 now[32];
	size_t		 i;
	int		 step;

	DB_PG(db, pg_model_put(db, id, m, err, errlen));

	db_now(now, sizeof(now));
	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	step = sqlite3_exec(db->conn, "SAVEPOINT model", NULL, NULL, NULL);
	if (step == SQLITE_OK) {
		sqlite3_stmt	*del;

		step = sqlite3_prepare_v2(db->conn, "DELETE FROM models WHERE "
		    "run_id = ?1", -1, &del, NULL);
		if (step == SQLITE_OK) {
			sqlite3_bind_int64(del, 1, id);
			step = sqlite3_step(del) == SQLITE_DONE ? SQLITE_OK :
			    sqlite3_errcode(db->conn);
			sqlite3_finalize(del);
		}
	}
	if (step == SQLITE_OK)
		step = sqlite3_prepare_v2(db->conn, "INSERT INTO models (run_id,"
		    " backend, variant, p, coefficients, loo_median, loo_worst,"
		    " created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", -1, &st,
		    NULL);
	if (step != SQLITE_OK) {
		rc = db_error(db, step, "save model", err, errlen);
		goto fail;
	}
	all = model_to_json(m);
	curves = json_object_get(all, "curves");
	conc = json_object_get(all, "concurrency");
	for (i = 0; i < m->ncurves; i++) {
		const struct model_curve *c = &m->curves[i];

		coeffs = json_pack("{s:O, s:O}", "rows", json_object_get(
		    json_array_get(curves, i), "rows"), "concurrency", conc);
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, kdf_backend_name(c->backend), -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(st, 3, kdf_alg_name(c->variant), -1,
		    SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, c->p);
		if (db_bind_json(st, 5, coeffs) == -1) {
			json_decref(coeffs);
			json_decref(all);
			snprintf(err, errlen, "out of memory");
			rc = DB_ERR_NOMEM;
			goto fail;
		}
		json_decref(coeffs);
		sqlite3_bind_double(st, 6, c->loo_median);
		sqlite3_bind_double(st, 7, c->loo_worst);
		sqlite3_bind_text(st, 8, now, -1, SQLITE_TRANSIENT);
		if ((step = sqlite3_step(st)) != SQLITE_DONE) {
			json_decref(all);
			rc = db_error(db, step, "save model", err, errlen);
			goto fail;
		}
	}
	json_decref(all);
	sqlite3_finalize(st);
	sqlite3_exec(db->conn, "RELEASE model", NULL, NULL, NULL);
	return db_commit(db, err, errlen);
fail:
	sqlite3_finalize(st);
	db_rollback(db);
	return rc;
}

enum db_status
db_model_count(struct db *db, int64_t id, size_t *curves, double *loo_worst,
    char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	int		 rc;

	DB_PG(db, pg_model_count(db, id, curves, loo_worst, err,
	    errlen));

	rc = sqlite3_prepare_v2(db->conn, "SELECT count(*),"
	    " coalesce(max(loo_worst), 0) FROM models WHERE run_id = ?1", -1,
	    &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, rc, "read models", err, errlen);
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*curves = (size_t)sqlite3_column_int64(st, 0);
		*loo_worst = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? DB_OK : db_error(db, rc, "read models", err,
	    errlen);
}

enum db_status
db_verification_add(struct db *db, int64_t id, double target_ms,
    const char *params, double predicted_ms, double measured_ms, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st;
	enum db_status	 rc;
	char		 now[32];
	int		 step;

	DB_PG(db, pg_verification_add(db, id, target_ms, params,
	    predicted_ms, measured_ms, err, errlen));

	db_now(now, sizeof(now));
	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	step = sqlite3_prepare_v2(db->conn, "INSERT INTO verifications"
	    " (run_id, target_ms, params, predicted_ms, measured_ms, created)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL);
	if (step != SQLITE_OK) {
		rc = db_error(db, step, "save verification", err, errlen);
		db_rollback(db);
		return rc;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_double(st, 2, target_ms);
	sqlite3_bind_text(st, 3, params, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 4, predicted_ms);
	sqlite3_bind_double(st, 5, measured_ms);
	sqlite3_bind_text(st, 6, now, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		rc = db_error(db, step, "save verification", err, errlen);
		db_rollback(db);
		return rc;
	}
	return db_commit(db, err, errlen);
}

enum db_status
db_hosts_list(struct db *db, const char *id, struct db_host **hosts,
    size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	size_t		 cap = 0;
	int		 rc;

	*hosts = NULL;
	*n = 0;
	DB_PG(db, pg_hosts_list(db, id, hosts, n, err, errlen));
	rc = sqlite3_prepare_v2(db->conn, "SELECT h.id, h.fingerprint,"
	    " h.first_seen, h.last_seen, h.facts, r.id, r.fingerprint,"
	    " r.finished, r.mem_budget, r.budget_source, r.effective_cpus,"
	    " h.host_group"
	    " FROM hosts h LEFT JOIN runs r ON r.id = (SELECT max(id) FROM"
	    " runs WHERE host_id = h.id AND status = 'done')"
	    " WHERE ?1 IS NULL OR h.id = ?1 ORDER BY h.last_seen DESC"
	    " LIMIT 1000", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_error(db, rc, "list hosts", err, errlen);
	if (id != NULL)
		sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_host	*h;

		if (*n == cap) {
			struct db_host *bigger;

			cap = cap ? 2 * cap : 8;
			if ((bigger = realloc(*hosts, cap * sizeof(**hosts))) ==
			    NULL) {
				rc = SQLITE_NOMEM;
				break;
			}
			*hosts = bigger;
		}
		h = &(*hosts)[(*n)++];
		memset(h, 0, sizeof(*h));
		db_copy_col(h->id, sizeof(h->id), st, 0);
		db_copy_col(h->fingerprint, sizeof(h->fingerprint), st, 1);
		db_copy_col(h->first_seen, sizeof(h->first_seen), st, 2);
		db_copy_col(h->last_seen, sizeof(h->last_seen), st, 3);
		h->facts = strdup((const char *)sqlite3_column_text(st, 4));
		h->last_run = sqlite3_column_int64(st, 5);
		db_copy_col(h->last_run_fingerprint,
		    sizeof(h->last_run_fingerprint), st, 6);
		db_copy_col(h->last_run_finished,
		    sizeof(h->last_run_finished), st, 7);
		h->last_run_budget = (uint64_t)sqlite3_column_int64(st, 8);
		db_copy_col(h->last_run_budget_source,
		    sizeof(h->last_run_budget_source), st, 9);
		h->last_run_cpus = sqlite3_column_int(st, 10);
		db_copy_col(h->group, sizeof(h->group), st, 11);
		if (h->facts == NULL) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_hosts_free(*hosts, *n);
		*hosts = NULL;
		*n = 0;
		return db_error(db, rc, "list hosts", err, errlen);
	}
	return DB_OK;
}

void
db_hosts_free(struct db_host *hosts, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(hosts[i].facts);
	free(hosts);
}

enum db_status
db_verifications_list(struct db *db, const char *host_id, size_t limit,
    struct db_verification **out, size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	int		 rc;

	*out = NULL;
	*n = 0;
	if (limit == 0 || limit > DB_RUNS_LIST_MAX)
		limit = DB_RUNS_LIST_MAX;
	DB_PG(db, pg_verifications_list(db, host_id, limit, out, n, err,
	    errlen));
	if ((*out = calloc(limit, sizeof(**out))) == NULL)
		return db_error(db, SQLITE_NOMEM, "list verifications", err,
		    errlen);
	rc = sqlite3_prepare_v2(db->conn, "SELECT v.id, v.run_id,"
	    " v.target_ms, v.predicted_ms, v.measured_ms, v.params, v.created"
	    " FROM verifications v JOIN runs r ON r.id = v.run_id"
	    " WHERE ?1 IS NULL OR r.host_id = ?1 ORDER BY v.id DESC LIMIT ?2",
	    -1, &st, NULL);
	if (rc != SQLITE_OK) {
		free(*out);
		*out = NULL;
		return db_error(db, rc, "list verifications", err, errlen);
	}
	if (host_id != NULL)
		sqlite3_bind_text(st, 1, host_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < limit) {
		struct db_verification *v = &(*out)[(*n)++];

		v->id = sqlite3_column_int64(st, 0);
		v->run_id = sqlite3_column_int64(st, 1);
		v->target_ms = sqlite3_column_double(st, 2);
		v->predicted_ms = sqlite3_column_double(st, 3);
		v->measured_ms = sqlite3_column_double(st, 4);
		db_copy_col(v->params, sizeof(v->params), st, 5);
		db_copy_col(v->created, sizeof(v->created), st, 6);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		free(*out);
		*out = NULL;
		*n = 0;
		return db_error(db, rc, "list verifications", err, errlen);
	}
	return DB_OK;
}

enum db_status
db_host_set_group(struct db *db, const char *host_id, const char *group,
    char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	enum db_status	 rc;
	int		 step, changed;

	if (strlen(group) >= DB_GROUP_MAX) {
		snprintf(err, errlen, "group is longer than %d bytes",
		    DB_GROUP_MAX - 1);
		return DB_ERR_INVALID;
	}
	DB_PG(db, pg_host_set_group(db, host_id, group, err, errlen));
	if ((rc = db_begin(db, err, errlen)) != DB_OK)
		return rc;
	step = sqlite3_prepare_v2(db->conn, "UPDATE hosts SET host_group = ?2"
	    " WHERE id = ?1", -1, &st, NULL);
	if (step == SQLITE_OK) {
		sqlite3_bind_text(st, 1, host_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, group, -1, SQLITE_TRANSIENT);
		step = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (step != SQLITE_DONE && step != SQLITE_OK) {
		rc = db_error(db, step, "set group", err, errlen);
		db_rollback(db);
		return rc;
	}
	changed = sqlite3_changes(db->conn);
	if ((rc = db_commit(db, err, errlen)) != DB_OK)
		return rc;
	if (changed == 0) {
		snprintf(err, errlen, "no host %s in the store yet", host_id);
		return DB_ERR_NOTFOUND;
	}
	return DB_OK;
}

/* The samples as a JSON array of numbers; NULL when out of memory. */
char *
db_samples_json(const double *samples, size_t n)
{
	json_t	*a = json_array();
	char	*text;
	size_t	 i;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, json_real(samples[i]));
	text = a != NULL ? json_dumps(a, JSON_COMPACT |
	    JSON_REAL_PRECISION(10)) : NULL;
	json_decref(a);
	return text;
}

int
db_observation_valid(const struct db_observation *o, size_t nsamples,
    char *err, size_t errlen)
{
	if (o->host_id[0] == '\0' || o->stack[0] == '\0') {
		snprintf(err, errlen, "an observation needs a host and a stack");
		return 0;
	}
	if (nsamples == 0 || nsamples > DB_OBS_SAMPLES_MAX) {
		snprintf(err, errlen, "an observation has 1 to %d samples",
		    DB_OBS_SAMPLES_MAX);
		return 0;
	}
	return 1;
}

enum db_status
db_observation_add(struct db *db, struct db_observation *o,
    const double *samples, size_t nsamples, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	enum db_status	 rc;
	char		*text;
	int		 step;

	if (!db_observation_valid(o, nsamples, err, errlen))
		return DB_ERR_INVALID;
	db_now(o->created, sizeof(o->created));
	DB_PG(db, pg_observation_add(db, o, samples, nsamples, err, errlen));
	if ((text = db_samples_json(samples, nsamples)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return DB_ERR_NOMEM;
	}
	if ((rc = db_begin(db, err, errlen)) != DB_OK) {
		free(text);
		return rc;
	}
	step = sqlite3_prepare_v2(db->conn, "INSERT INTO observations"
	    " (host_id, stack, variant, m_kib, t, p, k, nsamples, median_ms,"
	    " p95_ms, predicted_ms, model_run, samples, created) VALUES"
	    " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
	    -1, &st, NULL);
	if (step == SQLITE_OK) {
		sqlite3_bind_text(st, 1, o->host_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, o->stack, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, o->variant, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 4, o->m_kib);
		sqlite3_bind_int64(st, 5, o->t);
		sqlite3_bind_int64(st, 6, o->p);
		sqlite3_bind_int64(st, 7, o->k);
		sqlite3_bind_int64(st, 8, (sqlite3_int64)nsamples);
		sqlite3_bind_double(st, 9, o->median_ms);
		sqlite3_bind_double(st, 10, o->p95_ms);
		if (o->predicted_ms >= 0)
			sqlite3_bind_double(st, 11, o->predicted_ms);
		if (o->model_run > 0)
			sqlite3_bind_int64(st, 12, o->model_run);
		sqlite3_bind_text(st, 13, text, -1, free);
		text = NULL;
		sqlite3_bind_text(st, 14, o->created, -1, SQLITE_TRANSIENT);
		step = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	free(text);
	if (step != SQLITE_DONE) {
		rc = db_error(db, step, "save observation", err, errlen);
		db_rollback(db);
		return rc;
	}
	o->id = sqlite3_last_insert_rowid(db->conn);
	o->nsamples = nsamples;
	/* Keep the newest DB_OBS_KEEP of the host and stack. */
	step = sqlite3_prepare_v2(db->conn, "DELETE FROM observations"
	    " WHERE host_id = ?1 AND stack = ?2 AND id < (SELECT min(id) FROM"
	    " (SELECT id FROM observations WHERE host_id = ?1 AND stack = ?2"
	    " ORDER BY id DESC LIMIT ?3))", -1, &st, NULL);
	if (step == SQLITE_OK) {
		sqlite3_bind_text(st, 1, o->host_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, o->stack, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 3, DB_OBS_KEEP);
		step = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (step != SQLITE_DONE) {
		rc = db_error(db, step, "prune observations", err, errlen);
		db_rollback(db);
		return rc;
	}
	return db_commit(db, err, errlen);
}

enum db_status
db_observations_list(struct db *db, const char *host_id, const char *stack,
    size_t limit, struct db_observation **out, size_t *n, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st;
	int		 rc;

	*out = NULL;
	*n = 0;
	if (limit == 0 || limit > DB_RUNS_LIST_MAX)
		limit = DB_RUNS_LIST_MAX;
	DB_PG(db, pg_observations_list(db, host_id, stack, limit, out, n,
	    err, errlen));
	if ((*out = calloc(limit, sizeof(**out))) == NULL)
		return db_error(db, SQLITE_NOMEM, "list observations", err,
		    errlen);
	rc = sqlite3_prepare_v2(db->conn, "SELECT id, host_id, stack, variant,"
	    " m_kib, t, p, k, nsamples, median_ms, p95_ms,"
	    " coalesce(predicted_ms, -1), coalesce(model_run, 0), created"
	    " FROM observations WHERE (?1 IS NULL OR host_id = ?1)"
	    " AND (?2 IS NULL OR stack = ?2) ORDER BY id DESC LIMIT ?3", -1,
	    &st, NULL);
	if (rc != SQLITE_OK) {
		free(*out);
		*out = NULL;
		return db_error(db, rc, "list observations", err, errlen);
	}
	if (host_id != NULL)
		sqlite3_bind_text(st, 1, host_id, -1, SQLITE_TRANSIENT);
	if (stack != NULL)
		sqlite3_bind_text(st, 2, stack, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < limit) {
		struct db_observation *o = &(*out)[(*n)++];

		o->id = sqlite3_column_int64(st, 0);
		db_copy_col(o->host_id, sizeof(o->host_id), st, 1);
		db_copy_col(o->stack, sizeof(o->stack), st, 2);
		db_copy_col(o->variant, sizeof(o->variant), st, 3);
		o->m_kib = (uint32_t)sqlite3_column_int64(st, 4);
		o->t = (uint32_t)sqlite3_column_int64(st, 5);
		o->p = (uint32_t)sqlite3_column_int64(st, 6);
		o->k = (uint32_t)sqlite3_column_int64(st, 7);
		o->nsamples = (size_t)sqlite3_column_int64(st, 8);
		o->median_ms = sqlite3_column_double(st, 9);
		o->p95_ms = sqlite3_column_double(st, 10);
		o->predicted_ms = sqlite3_column_double(st, 11);
		o->model_run = sqlite3_column_int64(st, 12);
		db_copy_col(o->created, sizeof(o->created), st, 13);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		free(*out);
		*out = NULL;
		*n = 0;
		return db_error(db, rc, "list observations", err, errlen);
	}
	return DB_OK;
}
