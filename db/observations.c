/*
 * db/observations.c: what services' own runtimes measured (POST
 * /v1/observations), pruned to the newest DB_OBS_KEEP per host and stack,
 * and a stack's observed / predicted ratios for fleet answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "stack.h"
#include "store.h"

#define Q_OBSERVATIONS_LIST(ts)						\
	"SELECT id, host_id, stack, variant, m_kib, t, p, k, nsamples,"	\
	" median_ms, p95_ms, coalesce(predicted_ms, -1),"		\
	" coalesce(model_run, 0), " ts("created") ", source"		\
	" FROM observations"						\
	" WHERE (CAST($1 AS TEXT) IS NULL OR host_id = $1)"		\
	" AND (CAST($2 AS TEXT) IS NULL OR stack = $2)"			\
	" AND (CAST($4 AS TEXT) IS NULL OR source = $4)"		\
	" AND (CAST($5 AS BIGINT) IS NULL OR model_run = $5)"		\
	/* $6: not the points of a probe that shared the curve's code. */\
	" AND (CAST($6 AS TEXT) IS NULL OR source <> 'probe' OR NOT"	\
	" EXISTS (SELECT 1 FROM probes WHERE probes.run_id ="		\
	" observations.model_run AND probes.stack = observations.stack"	\
	" AND probes.shares <> ''))"					\
	" ORDER BY id DESC LIMIT $3"

static const struct db_sql q_observations_list =
    DB_SQL_TS(Q_OBSERVATIONS_LIST);
static const struct db_sql q_observation_insert = {
	"INSERT INTO observations (host_id, stack, variant, m_kib, t, p, k,"
	" nsamples, median_ms, p95_ms, predicted_ms, model_run, samples,"
	" created, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,"
	" $11, $12, $13, $14, $15) RETURNING id", NULL
};
/*
 * Keep the newest DB_OBS_KEEP of the host, stack and source (services'
 * posts never push a run's probe points out, nor the other way).
 */
static const struct db_sql q_observations_prune = {
	"DELETE FROM observations WHERE host_id = $1 AND stack = $2 AND"
	" source = $4 AND id < (SELECT min(id) FROM (SELECT id FROM"
	" observations WHERE host_id = $1 AND stack = $2 AND source = $4"
	" ORDER BY id DESC LIMIT $3) AS kept)", NULL
};

/* What services posted of a stack on a host. */
static const struct db_sql q_observations_forget = {
	"DELETE FROM observations WHERE host_id = $1 AND stack = $2 AND"
	" source = 'service'", NULL
};

/* The names services posted under for a host. */
static const struct db_sql q_observation_names = {
	"SELECT DISTINCT stack FROM observations WHERE host_id = $1 AND"
	" source = 'service'", NULL
};

/* o's source as stored: "service" unless it says otherwise. */
static const char *
observation_source(const struct db_observation *o)
{
	return o->source[0] != '\0' ? o->source : "service";
}

/* The samples as a JSON array of numbers; NULL when out of memory. */
static char *
observation_samples(const double *samples, size_t n)
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

static int
observation_valid(const struct db_observation *o, size_t nsamples,
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

/*
 * A service's name the host has none under yet, past DB_OBS_STACKS_MAX
 * names: DB_ERR_LIMIT with err. Inside the transaction that inserts.
 */
static enum db_status
observation_name_room(struct db *db, const struct db_observation *o,
    char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	struct db_rows	r;
	enum db_status	st;
	char		name[DB_STACK_MAX];
	size_t		names = 0;
	int		known = 0;

	if (strcmp(observation_source(o), "service") != 0 ||
	    stack_find(o->stack) != NULL)
		return DB_OK;
	/*
	 * SQLite's write transaction (BEGIN IMMEDIATE) counts and inserts
	 * one post at a time; PostgreSQL's (READ COMMITTED) lets posts at
	 * once each count the same, so the bound may be passed there by as
	 * many as the HTTP threads (a row lock made the store gate take the
	 * posts waiting on it for a store away).
	 */
	a_text(&a, o->host_id);
	if ((st = db_query(db, "count observation names",
	    &q_observation_names, &a, &r, err, errlen)) != DB_OK)
		return st;
	/* The catalogue's names beside the 64. */
	while (db_next(&r)) {
		db_copy(&r, 0, name, sizeof(name));
		if (strcmp(name, o->stack) == 0)
			known = 1;
		else if (stack_find(name) == NULL)
			names++;
	}
	if ((st = db_rows_end(&r, err, errlen)) != DB_OK)
		return st;
	if (known || names < DB_OBS_STACKS_MAX)
		return DB_OK;
	snprintf(err, errlen, "this host has observations under %zu stack "
	    "names besides the catalogue's, the most kept: post under one of "
	    "them (GET /v1/observations lists them) or a name of the "
	    "catalogue", names);
	return DB_ERR_LIMIT;
}

/* Insert o; inside a transaction. */
static enum db_status
observation_insert(struct db *db, struct db_observation *o,
    const char *samples, size_t nsamples, char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	struct db_rows	r;
	enum db_status	st;

	a_text(&a, o->host_id);
	a_text(&a, o->stack);
	a_text(&a, o->variant);
	a_int(&a, o->m_kib);
	a_int(&a, o->t);
	a_int(&a, o->p);
	a_int(&a, o->k);
	a_int(&a, (int64_t)nsamples);
	a_real(&a, o->median_ms);
	a_real(&a, o->p95_ms);
	if (o->predicted_ms >= 0)
		a_real(&a, o->predicted_ms);
	else
		a_null(&a);
	if (o->model_run > 0)
		a_int(&a, o->model_run);
	else
		a_null(&a);
	a_text(&a, samples);
	a_text(&a, o->created);
	a_text(&a, observation_source(o));
	if ((st = db_query_row(db, "save observation", &q_observation_insert,
	    &a, &r, err, errlen)) != DB_OK)
		return st;
	o->id = db_int(&r, 0);
	o->nsamples = nsamples;
	return db_rows_end(&r, err, errlen);
}

enum db_status
db_observation_add(struct db *db, struct db_observation *o,
    const double *samples, size_t nsamples, char *err, size_t errlen)
{
	struct db_args	 a = { .n = 0 };
	enum db_status	 st;
	char		*text;

	if (!observation_valid(o, nsamples, err, errlen))
		return DB_ERR_INVALID;
	db_now(o->created, sizeof(o->created));
	if ((text = observation_samples(samples, nsamples)) == NULL)
		return db_nomem(err, errlen);
	if ((st = db_begin(db, err, errlen)) == DB_OK &&
	    (st = observation_name_room(db, o, err, errlen)) == DB_OK)
		st = observation_insert(db, o, text, nsamples, err, errlen);
	free(text);
	if (st == DB_OK) {
		a_text(&a, o->host_id);
		a_text(&a, o->stack);
		a_int(&a, DB_OBS_KEEP);
		a_text(&a, observation_source(o));
		st = db_exec(db, "prune observations", &q_observations_prune,
		    &a, NULL, err, errlen);
	}
	return db_end(db, st, err, errlen);
}

enum db_status
db_observations_forget(struct db *db, const char *host_id, const char *stack,
    int64_t *deleted, char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };

	*deleted = 0;
	a_text(&a, host_id);
	a_text(&a, stack);
	return db_exec(db, "forget observations", &q_observations_forget, &a,
	    deleted, err, errlen);
}

static void
observation_from_row(struct db_rows *r, struct db_observation *o)
{
	o->id = db_int(r, 0);
	db_copy(r, 1, o->host_id, sizeof(o->host_id));
	db_copy(r, 2, o->stack, sizeof(o->stack));
	db_copy(r, 3, o->variant, sizeof(o->variant));
	o->m_kib = (uint32_t)db_int(r, 4);
	o->t = (uint32_t)db_int(r, 5);
	o->p = (uint32_t)db_int(r, 6);
	o->k = (uint32_t)db_int(r, 7);
	o->nsamples = (size_t)db_int(r, 8);
	o->median_ms = db_real(r, 9);
	o->p95_ms = db_real(r, 10);
	o->predicted_ms = db_real(r, 11);
	o->model_run = db_int(r, 12);
	db_copy(r, 13, o->created, sizeof(o->created));
	db_copy(r, 14, o->source, sizeof(o->source));
}

/* db_observations_of(), without a sharing probe's points when unshared. */
static enum db_status
observations_query(struct db *db, const char *host_id, const char *stack,
    const char *source, int64_t model_run, int unshared, size_t limit,
    struct db_observation **out, size_t *n, char *err, size_t errlen)
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
	a_text(&a, stack);
	a_int(&a, (int64_t)limit);
	a_text(&a, source);
	if (model_run > 0)
		a_int(&a, model_run);
	else
		a_null(&a);
	a_text(&a, unshared ? "unshared" : NULL);
	if ((st = db_query(db, "list observations", &q_observations_list, &a,
	    &r, err, errlen)) == DB_OK) {
		while (*n < limit && db_next(&r))
			observation_from_row(&r, &(*out)[(*n)++]);
		st = db_rows_end(&r, err, errlen);
	}
	if (st != DB_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return st;
}

enum db_status
db_observations_list(struct db *db, const char *host_id, const char *stack,
    size_t limit, struct db_observation **out, size_t *n, char *err,
    size_t errlen)
{
	return db_observations_of(db, host_id, stack, NULL, 0, limit, out, n,
	    err, errlen);
}

enum db_status
db_stack_observations(struct db *db, const char *host_id, const char *stack,
    size_t limit, struct db_observation **out, size_t *n, char *err,
    size_t errlen)
{
	return observations_query(db, host_id, stack, NULL, 0, 1, limit, out,
	    n, err, errlen);
}

enum db_status
db_run_checks(struct db *db, const char *host_id, int64_t run, size_t limit,
    struct db_observation **out, size_t *n, char *err, size_t errlen)
{
	return db_observations_of(db, host_id, NULL, DB_SOURCE_CHECK, run,
	    limit, out, n, err, errlen);
}

enum db_status
db_observations_of(struct db *db, const char *host_id, const char *stack,
    const char *source, int64_t model_run, size_t limit,
    struct db_observation **out, size_t *n, char *err, size_t errlen)
{
	return observations_query(db, host_id, stack, source, model_run, 0,
	    limit, out, n, err, errlen);
}

enum db_status
db_stack_ratios(struct db *db, const char *host_id, const char *stack,
    const struct model *m, double *ratios, size_t max, size_t *n, char *err,
    size_t errlen)
{
	struct db_observation	*obs;
	size_t			 nobs, i;
	enum db_status		 st;

	*n = 0;
	if ((st = db_stack_observations(db, host_id, stack, max, &obs, &nobs,
	    err, errlen)) != DB_OK)
		return st;
	for (i = 0; i < nobs && *n < max; i++) {
		enum kdf_alg	alg;
		double		p50;

		/* A p this host never measured is left out. */
		if (kdf_alg_parse(obs[i].variant, &alg) == 0 &&
		    fleet_predict_p50(m, alg, obs[i].m_kib, obs[i].t, obs[i].p,
		    obs[i].k, &p50) == 0 && p50 > 0)
			ratios[(*n)++] = obs[i].median_ms / p50;
	}
	free(obs);
	return DB_OK;
}
