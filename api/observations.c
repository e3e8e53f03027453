/*
 * api/observations.c: POST /v1/observations (latencies a service measured
 * on this host, kept per stack, at most API_OBS_RATE a second), GET
 * /v1/observations (this host's, with each stack's correction) and
 * DELETE /v1/observations?stack=NAME (what services posted of a stack,
 * forgotten).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "fleet.h"
#include "stack.h"
#include "stats.h"

/*
 * What the model in use predicted for an observation's parameters: a
 * catalogue stack's median as its answers predict it (its library's
 * curve and the runtime's correction: PHP's through libargon2 and its
 * probe), another name's the library curve's (fleet_base_curve).
 */
static void
api_obs_predict(const struct model *m, const struct api_state *st, void *arg)
{
	struct db_observation	*o = arg;
	enum kdf_alg		 alg;
	int			 rc;

	if (m == NULL || kdf_alg_parse(o->variant, &alg) == -1)
		return;
	if (stack_find(o->stack) != NULL)
		rc = stack_predict(m, o->stack, alg, o->m_kib, o->t, o->p,
		    o->k, 50, &o->predicted_ms);
	else
		rc = fleet_predict_p50(m, alg, o->m_kib, o->t, o->p, o->k,
		    &o->predicted_ms);
	if (rc == 0)
		o->model_run = st->model_run;
	else
		o->predicted_ms = -1;
}

/*
 * What the model predicted for o's median, null when it had no model: as
 * every answer's predicted time (predicted_ms deprecated, 0.2.0), and
 * the ratio of the median measured to it.
 */
static void
api_obs_predicted(json_t *j, const struct db_observation *o)
{
	json_object_set_new(j, "predicted", o->predicted_ms >= 0 ?
	    api_predicted_json(50, o->predicted_ms, o->predicted_ms) :
	    json_null());
	json_object_set_new(j, "predicted_ms", o->predicted_ms >= 0 ?
	    json_real(o->predicted_ms) : json_null());
	json_object_set_new(j, "ratio", o->predicted_ms > 0 ?
	    json_real(o->median_ms / o->predicted_ms) : json_null());
}

/* A whole number member within [lo, hi], or the default when absent. */
static int
api_member_uint(json_t *j, const char *key, long long lo, long long hi,
    long long dflt, long long *out)
{
	json_t	*v = json_object_get(j, key);

	if (v == NULL) {
		if (dflt < 0)
			return -1;
		*out = dflt;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < lo ||
	    json_integer_value(v) > hi)
		return -1;
	*out = json_integer_value(v);
	return 0;
}

/*
 * The body of an observation into o, its samples into ms[*n]: 0, or -1
 * with the problem in rep.
 */
static int
api_obs_parse(json_t *j, struct db_observation *o, double *ms, size_t *n,
    struct api_reply *rep)
{
	static const struct {
		const char	*key;
		long long	 lo, hi, dflt;	/* dflt < 0: required */
	} nums[] = {
		{ "m_kib", 8, 4194304, -1 },
		{ "t", 1, TUNE_T_MAX, -1 },
		{ "p", 1, 255, 1 },
		{ "k", 1, 1024, 1 },
	};
	json_t			*v, *samples;
	const char		*key, *variant = "argon2id";
	long long		 val[4];
	size_t			 i;
	enum kdf_alg		 alg;
	char			 why[160];

	memset(o, 0, sizeof(*o));
	json_object_foreach(j, key, v) {
		if (strcmp(key, "stack") && strcmp(key, "variant") &&
		    strcmp(key, "m_kib") && strcmp(key, "t") &&
		    strcmp(key, "p") && strcmp(key, "k") &&
		    strcmp(key, "samples_ms")) {
			api_fail(rep, PROB_BAD_PARAM, key, "unknown member "
			    "(known: stack, variant, m_kib, t, p, k, "
			    "samples_ms)", NULL, 0);
			return -1;
		}
	}
	v = json_object_get(j, "stack");
	if (!json_is_string(v) || !api_stack_valid(json_string_value(v))) {
		snprintf(why, sizeof(why), "is required: 1 to %d letters, "
		    "digits, '.', '_', '+' or '-' (php-8.2-libargon2)",
		    DB_STACK_MAX - 1);
		api_fail(rep, PROB_BAD_PARAM, "stack", why, NULL, 0);
		return -1;
	}
	snprintf(o->stack, sizeof(o->stack), "%s", json_string_value(v));
	if ((v = json_object_get(j, "variant")) != NULL) {
		if (!json_is_string(v) || kdf_alg_parse(json_string_value(v),
		    &alg) == -1 || !kdf_alg_is_argon2(alg)) {
			api_fail(rep, PROB_BAD_PARAM, "variant", "must be "
			    "argon2id, argon2i or argon2d", NULL, 0);
			return -1;
		}
		variant = kdf_alg_name(alg);
	}
	snprintf(o->variant, sizeof(o->variant), "%s", variant);
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (api_member_uint(j, nums[i].key, nums[i].lo, nums[i].hi,
		    nums[i].dflt, &val[i]) == -1) {
			snprintf(why, sizeof(why), "%smust be a whole number "
			    "from %lld to %lld", nums[i].dflt < 0 ?
			    "is required and " : "", nums[i].lo, nums[i].hi);
			api_fail(rep, PROB_BAD_PARAM, nums[i].key, why, NULL,
			    0);
			return -1;
		}
	}
	o->m_kib = (uint32_t)val[0];
	o->t = (uint32_t)val[1];
	o->p = (uint32_t)val[2];
	o->k = (uint32_t)val[3];
	if (o->m_kib < 8 * o->p) {
		api_fail(rep, PROB_BAD_PARAM, "m_kib", "must be at least 8 KiB "
		    "per lane (8 x p)", NULL, 0);
		return -1;
	}
	samples = json_object_get(j, "samples_ms");
	*n = json_is_array(samples) ? json_array_size(samples) : 0;
	if (*n == 0 || *n > API_OBS_SAMPLES_MAX) {
		snprintf(why, sizeof(why), "is required: an array of 1 to %d "
		    "latencies in milliseconds", API_OBS_SAMPLES_MAX);
		api_fail(rep, PROB_BAD_PARAM, "samples_ms", why, NULL, 0);
		return -1;
	}
	for (i = 0; i < *n; i++) {
		v = json_array_get(samples, i);
		ms[i] = json_is_number(v) ? json_number_value(v) : -1;
		if (!(ms[i] > 0 && ms[i] <= TUNE_TARGET_MAX_MS)) {
			snprintf(why, sizeof(why), "sample %zu must be a "
			    "number of milliseconds above 0 and at most %d", i,
			    TUNE_TARGET_MAX_MS);
			api_fail(rep, PROB_BAD_PARAM, "samples_ms", why, NULL,
			    0);
			return -1;
		}
	}
	return 0;
}

int
h_observations_post(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct db_observation	 o;
	struct stats		 st;
	struct db		*db;
	json_t			*j;
	double			 ms[API_OBS_SAMPLES_MAX];
	size_t			 n;
	enum db_status		 dst;
	int			 rc;
	unsigned		 retry;
	char			 err[512];

	(void)c;
	(void)arg;
	if ((rc = api_fleet_obs_token(s, &retry)) == -1)
		return -1;
	if (rc == 0)
		return api_fail(rep, PROB_TOO_MANY, NULL, "observations come "
		    "faster than the daemon takes them: send fewer, with more "
		    "samples each", NULL, retry);
	if ((j = api_body_json(r, rep)) == NULL)
		return 0;
	rc = api_obs_parse(j, &o, ms, &n, rep);
	json_decref(j);
	if (rc == -1)
		return 0;
	stats_compute(ms, n, &st);
	o.median_ms = st.median;
	o.p95_ms = st.p95;
	o.predicted_ms = -1;
	snprintf(o.host_id, sizeof(o.host_id), "%s", s->env.host->host_id);
	/* What the model in use predicted for these parameters. */
	s->env.with_model(s->env.ctx, api_obs_predict, &o);
	dst = DB_ERR_UNAVAILABLE;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		dst = db_observation_add(db, &o, ms, n, err, sizeof(err));
	api_store_note(s, dst, err);
	if (dst == DB_ERR_INVALID)
		return api_fail(rep, PROB_NO_RUN, NULL, "this host has no "
		    "run in the store yet: observations are kept per host once "
		    "it has one", NULL, 0);
	if (dst == DB_ERR_LIMIT)
		return api_fail(rep, PROB_STACKS_FULL, "stack", err, NULL, 0);
	if (dst != DB_OK) {
		api_log(s, API_LOG_WARN, "POST /v1/observations: %s", err);
		return api_store_fail(s, rep, dst, 1, NULL, NULL);
	}
	/* Corrections change: answers kept for a stack are computed again. */
	api_fleet_observed(s, o.stack);
	/* ... and the host's model takes it into the stack's correction. */
	if (s->env.observed != NULL)
		s->env.observed(s->env.ctx, o.stack);
	j = json_pack("{s:I, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f, "
	    "s:f}", "id", (json_int_t)o.id, "host_id", o.host_id, "stack",
	    o.stack, "variant", o.variant, "m_kib", (json_int_t)o.m_kib, "t",
	    (json_int_t)o.t, "p", (json_int_t)o.p, "k", (json_int_t)o.k,
	    "samples", (json_int_t)n, "median_ms", o.median_ms, "p95_ms",
	    o.p95_ms);
	api_obs_predicted(j, &o);
	return api_ok(rep, 201, j, NULL);
}

/*
 * The query of GET and DELETE /v1/observations: stack alone, a valid
 * name (required or not) into *stack (NULL when absent). 0, or -1 with
 * the problem in rep.
 */
static int
api_obs_query(struct MHD_Connection *c, int required, const char **stack,
    struct api_reply *rep)
{
	static const char *const only[] = { "stack" };
	char			 why[200];

	if (api_query_only(c, only, 1, "stack", rep) == -1)
		return -1;
	*stack = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "stack");
	if (*stack == NULL ? required : !api_stack_valid(*stack)) {
		snprintf(why, sizeof(why), "%s1 to %d letters, digits, '.', "
		    "'_', '+' or '-' (in a query a '+' is %%2B: a bare one is "
		    "a space)", required ? "is required: the name whose "
		    "observations to forget, " : "must be ", DB_STACK_MAX - 1);
		api_fail(rep, PROB_BAD_PARAM, "stack", why, NULL, 0);
		return -1;
	}
	return 0;
}

int
h_observations_get(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct db_observation	*obs;
	struct model		*self = NULL;
	struct db		*db;
	const char		*stack;
	json_t			*list, *stacks, *entry;
	const struct model_curve	*base;
	double			 ratios[API_STACK_OBS_MAX], factor;
	size_t			 n, i, nr;
	char			 err[512];
	enum db_status		 st;

	(void)r;
	(void)arg;
	if (api_obs_query(c, 0, &stack, rep) == -1)
		return 0;
	st = DB_ERR_UNAVAILABLE;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		st = db_observations_list(db, s->env.host->host_id, stack,
		    API_OBS_LIST_MAX, &obs, &n, err, sizeof(err));
	api_store_note(s, st, err);
	if (st != DB_OK)
		return api_store_fail(s, rep, st, 0, NULL, NULL);
	self = api_model_dup(s, NULL);
	list = json_array();
	stacks = json_object();
	for (i = 0; i < n; i++) {
		json_t	*o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:I, s:I, "
		    "s:I, s:f, s:f, s:s}", "id", (json_int_t)obs[i].id, "stack",
		    obs[i].stack, "variant", obs[i].variant, "m_kib",
		    (json_int_t)obs[i].m_kib, "t", (json_int_t)obs[i].t, "p",
		    (json_int_t)obs[i].p, "k", (json_int_t)obs[i].k, "samples",
		    (json_int_t)obs[i].nsamples, "median_ms", obs[i].median_ms,
		    "p95_ms", obs[i].p95_ms, "created", obs[i].created);

		/* A probe's point (the runner's) or a service's post. */
		json_object_set_new(o, "source", json_string(
		    obs[i].source[0] != '\0' ? obs[i].source : "service"));
		api_obs_predicted(o, &obs[i]);
		json_array_append_new(list, o);
		if (json_object_get(stacks, obs[i].stack) == NULL)
			json_object_set_new(stacks, obs[i].stack, json_null());
	}
	free(obs);
	/* Per stack: the correction answers would use now. */
	{
		const char	*name;
		json_t		*unused, *out = json_array();

		json_object_foreach(stacks, name, unused) {
			nr = 0;
			if (self != NULL && db_stack_ratios(db,
			    s->env.host->host_id, name, self, ratios,
			    API_STACK_OBS_MAX, &nr, err, sizeof(err)) != DB_OK)
				nr = 0;
			entry = json_pack("{s:s, s:I}", "stack", name,
			    "observations", (json_int_t)nr);
			if (fleet_stack_factor(ratios, nr, &factor) == 0)
				json_object_set_new(entry, "factor",
				    json_real(factor));
			else
				json_object_set_new(entry, "factor",
				    json_null());
			/*
			 * What the factor is of: this host's library curve
			 * (an observation's ratio is against the stack's
			 * own prediction when it was posted).
			 */
			base = self != NULL ? fleet_base_curve(self,
			    KDF_ALG_ARGON2ID, 1) : NULL;
			json_object_set_new(entry, "factor_of", base != NULL ?
			    json_string(kdf_backend_name(base->backend)) :
			    json_null());
			json_array_append_new(out, entry);
		}
		json_decref(stacks);
		stacks = out;
	}
	free(self);
	return api_ok(rep, 200, json_pack("{s:s, s:o, s:o, s:i}", "host_id",
	    s->env.host->host_id, "stacks", stacks, "observations", list,
	    "min_observations", FLEET_STACK_MIN_OBS), NULL);
}

/*
 * DELETE /v1/observations?stack=NAME (token): what services posted of
 * NAME on this host, forgotten (a service that posted wrong timings, or
 * names past DB_OBS_STACKS_MAX); its probe's points and the checks'
 * measurements stay with their runs. Its correction is fitted again, and
 * answers kept for it are computed again.
 */
int
h_observations_delete(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct db	*db;
	const char	*stack;
	int64_t		 deleted = 0;
	enum db_status	 st;
	char		 err[512], why[200];

	(void)r;
	(void)arg;
	if (api_obs_query(c, 1, &stack, rep) == -1)
		return 0;
	st = DB_ERR_UNAVAILABLE;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		st = db_observations_forget(db, s->env.host->host_id, stack,
		    &deleted, err, sizeof(err));
	api_store_note(s, st, err);
	if (st != DB_OK) {
		api_log(s, API_LOG_WARN, "DELETE /v1/observations: %s", err);
		return api_store_fail(s, rep, st, 1, NULL, NULL);
	}
	if (deleted == 0) {
		snprintf(why, sizeof(why), "services posted no observations "
		    "of %s on this host (GET /v1/observations lists them)",
		    stack);
		return api_fail(rep, PROB_NOT_FOUND, "stack", why, NULL, 0);
	}
	api_log(s, API_LOG_INFO, "observations of %s forgotten through the "
	    "API: %lld", stack, (long long)deleted);
	api_fleet_observed(s, stack);
	if (s->env.observed != NULL)
		s->env.observed(s->env.ctx, stack);
	return api_ok(rep, 200, json_pack("{s:s, s:s, s:I}", "host_id",
	    s->env.host->host_id, "stack", stack, "deleted",
	    (json_int_t)deleted), NULL);
}
