/*
 * db/models.c: the models fitted from runs (one row per curve) and the
 * verifications of recommendations made from them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define Q_VERIFICATIONS_LIST(ts)					\
	"SELECT v.id, v.run_id, v.target_ms, v.predicted_ms,"		\
	" v.measured_ms, v.params, " ts("v.created") " FROM"		\
	" verifications v JOIN runs r ON r.id = v.run_id"		\
	" WHERE CAST($1 AS TEXT) IS NULL OR r.host_id = $1"		\
	" ORDER BY v.id DESC LIMIT $2"

static const struct db_sql q_verifications_list =
    DB_SQL_TS(Q_VERIFICATIONS_LIST);
static const struct db_sql q_models_delete = {
	"DELETE FROM models WHERE run_id = $1", NULL
};
static const struct db_sql q_model_insert = {
	"INSERT INTO models (run_id, backend, variant, p, coefficients,"
	" loo_median, loo_worst, created) VALUES ($1, $2, $3, $4, $5, $6, $7,"
	" $8)", NULL
};
static const struct db_sql q_model_count = {
	"SELECT count(*), coalesce(max(loo_worst), 0) FROM models"
	" WHERE run_id = $1", NULL
};
static const struct db_sql q_verification_insert = {
	"INSERT INTO verifications (run_id, target_ms, params, predicted_ms,"
	" measured_ms, created) VALUES ($1, $2, $3, $4, $5, $6)", NULL
};

/* Insert the rows of m's curves; inside a transaction. */
static enum db_status
model_insert(struct db *db, int64_t id, const struct model *m,
    const char *now, char *err, size_t errlen)
{
	struct db_args	 a;
	json_t		*all, *curves, *conc, *coeffs;
	enum db_status	 st = DB_OK;
	char		*text;
	size_t		 i;

	all = model_to_json(m);
	curves = json_object_get(all, "curves");
	conc = json_object_get(all, "concurrency");
	for (i = 0; st == DB_OK && i < m->ncurves; i++) {
		const struct model_curve *c = &m->curves[i];

		coeffs = json_pack("{s:O, s:O}", "rows", json_object_get(
		    json_array_get(curves, i), "rows"), "concurrency", conc);
		text = db_json_text(coeffs);
		json_decref(coeffs);
		if (text == NULL) {
			st = db_nomem(err, errlen);
			break;
		}
		a.n = 0;
		a_int(&a, id);
		a_text(&a, kdf_backend_name(c->backend));
		a_text(&a, kdf_alg_name(c->variant));
		a_int(&a, c->p);
		a_text(&a, text);
		a_real(&a, c->loo_median);
		a_real(&a, c->loo_worst);
		a_text(&a, now);
		st = db_exec(db, "save model", &q_model_insert, &a, NULL, err,
		    errlen);
		free(text);
	}
	json_decref(all);
	return st;
}

enum db_status
db_model_put(struct db *db, int64_t id, const struct model *m, char *err,
    size_t errlen)
{
	struct db_args	a = { .n = 0 };
	enum db_status	st;
	char		now[32];

	db_now(now, sizeof(now));
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	a_int(&a, id);
	st = db_exec(db, "save model", &q_models_delete, &a, NULL, err, errlen);
	if (st == DB_OK)
		st = model_insert(db, id, m, now, err, errlen);
	return db_end(db, st, err, errlen);
}

enum db_status
db_model_count(struct db *db, int64_t id, size_t *curves, double *loo_worst,
    char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	struct db_rows	r;
	enum db_status	st;

	a_int(&a, id);
	if ((st = db_query_row(db, "read models", &q_model_count, &a, &r, err,
	    errlen)) != DB_OK)
		return st;
	*curves = (size_t)db_int(&r, 0);
	*loo_worst = db_real(&r, 1);
	return db_rows_end(&r, err, errlen);
}

enum db_status
db_verification_add(struct db *db, int64_t id, double target_ms,
    const char *params, double predicted_ms, double measured_ms, char *err,
    size_t errlen)
{
	struct db_args	a = { .n = 0 };
	enum db_status	st;
	char		now[32];

	db_now(now, sizeof(now));
	a_int(&a, id);
	a_real(&a, target_ms);
	a_text(&a, params);
	a_real(&a, predicted_ms);
	a_real(&a, measured_ms);
	a_text(&a, now);
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	st = db_exec(db, "save verification", &q_verification_insert, &a, NULL,
	    err, errlen);
	return db_end(db, st, err, errlen);
}

enum db_status
db_verifications_list(struct db *db, const char *host_id, size_t limit,
    struct db_verification **out, size_t *n, char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	struct db_rows	r;
	enum db_status	st;

	*out = NULL;
	*n = 0;
	if (limit == 0 || limit > DB_RUNS_LIST_MAX)
		limit = DB_RUNS_LIST_MAX;
	if ((*out = calloc(limit, sizeof(**out))) == NULL)
		return db_nomem(err, errlen);
	a_text(&a, host_id);
	a_int(&a, (int64_t)limit);
	if ((st = db_query(db, "list verifications", &q_verifications_list,
	    &a, &r, err, errlen)) == DB_OK) {
		while (*n < limit && db_next(&r)) {
			struct db_verification *v = &(*out)[(*n)++];

			v->id = db_int(&r, 0);
			v->run_id = db_int(&r, 1);
			v->target_ms = db_real(&r, 2);
			v->predicted_ms = db_real(&r, 3);
			v->measured_ms = db_real(&r, 4);
			db_copy(&r, 5, v->params, sizeof(v->params));
			db_copy(&r, 6, v->created, sizeof(v->created));
		}
		st = db_rows_end(&r, err, errlen);
	}
	if (st != DB_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return st;
}
