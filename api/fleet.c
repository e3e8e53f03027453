/*
 * api/fleet.c: answers for a group or the fleet (scope=), corrected for a
 * stack (stack=), and the observations services report (POST and GET
 * /v1/observations).
 *
 * The hosts of a scope come from the store: listed at most every
 * API_FLEET_LIST_S seconds, their models fitted once per run and kept.
 * When the store cannot be reached, the last list and the models kept
 * answer, and the answer says so. This host always answers with the model
 * in memory.
 *
 * An answer is kept API_FLEET_LIST_S seconds for its query, keyed also by
 * its inputs (each member host and the run its model comes from, this
 * host's model and memory, the hosts left out, the observations taken
 * here): a group of hundreds of hosts costs tens of milliseconds to
 * answer (bench/fleet), a repeated question a lookup.
 */
#include <ctype.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_impl.h"
#include "fleet.h"
#include "stats.h"

struct api_fleet_model {
	char		 host_id[33];
	int64_t		 run;
	struct model	*m;
};

/* A scoped answer kept: its JSON without "store", which is per request. */
struct api_fleet_answer {
	char		 key[448];	/* query | scope | group | stack */
	unsigned char	 inputs[16];	/* hash of what it was computed from */
	time_t		 made;
	int		 ret;		/* fleet_recommend()'s */
	char		*body;
	char		 err[512];
};

struct api_fleet {
	pthread_mutex_t		 lock;
	struct api_fleet_answer	 answers[API_FLEET_ANSWERS];
	unsigned long long	 computed, cached;	/* for /metrics */
	unsigned long		 obs_taken;	/* observations stored here */
	struct db_host		*hosts;
	size_t			 nhosts;
	time_t			 listed;
	char			 listed_iso[32];
	struct api_fleet_model	 models[FLEET_HOSTS_MAX];
	size_t			 next;
	/* Observations: a token bucket for the whole daemon. */
	double			 tokens;
	double			 refilled;
};

static struct api_fleet *
api_fleet(struct api_server *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->fleet == NULL && (s->fleet = calloc(1,
	    sizeof(*s->fleet))) != NULL) {
		pthread_mutex_init(&s->fleet->lock, NULL);
		s->fleet->tokens = API_OBS_BURST;
	}
	pthread_mutex_unlock(&s->lock);
	return s->fleet;
}

void
api_fleet_free(struct api_server *s)
{
	size_t	i;

	if (s->fleet == NULL)
		return;
	db_hosts_free(s->fleet->hosts, s->fleet->nhosts);
	for (i = 0; i < FLEET_HOSTS_MAX; i++)
		free(s->fleet->models[i].m);
	for (i = 0; i < API_FLEET_ANSWERS; i++)
		free(s->fleet->answers[i].body);
	pthread_mutex_destroy(&s->fleet->lock);
	free(s->fleet);
	s->fleet = NULL;
}

void
api_fleet_counts(struct api_server *s, unsigned long long *computed,
    unsigned long long *cached)
{
	struct api_fleet	*f = api_fleet(s);

	*computed = *cached = 0;
	if (f == NULL)
		return;
	pthread_mutex_lock(&f->lock);
	*computed = f->computed;
	*cached = f->cached;
	pthread_mutex_unlock(&f->lock);
}

const char *
api_scope_name(enum api_scope_kind k)
{
	return k == API_SCOPE_GROUP ? "group" : k == API_SCOPE_FLEET ?
	    "fleet" : "host";
}

/* The model of run h->last_run: kept, or fitted now. Under f->lock. */
static const struct model *
api_fleet_model(struct api_server *s, struct api_fleet *f,
    const struct db_host *h, char *err, size_t errlen)
{
	struct api_fleet_model	*slot;
	struct model		*m;
	struct db		*db;
	enum db_status		 st;
	size_t			 i;

	for (i = 0; i < FLEET_HOSTS_MAX; i++)
		if (f->models[i].m != NULL && f->models[i].run == h->last_run &&
		    strcmp(f->models[i].host_id, h->id) == 0)
			return f->models[i].m;
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((db = api_db(s, err, errlen)) == NULL)
		st = DB_ERR_UNAVAILABLE;	/* api_db noted why */
	else if ((st = db_host_model(db, h, m, err, errlen)) != DB_OK) {
		store_note(s->d, st, err);
		if (st != DB_ERR_UNAVAILABLE)
			log_warn("model of host %s: %s", h->id, err);
	}
	if (st != DB_OK) {
		free(m);
		return NULL;
	}
	slot = &f->models[f->next++ % FLEET_HOSTS_MAX];
	free(slot->m);
	snprintf(slot->host_id, sizeof(slot->host_id), "%s", h->id);
	slot->run = h->last_run;
	slot->m = m;
	return m;
}

/* Refresh the host list when it is old; 0, or -1 when there is none. */
static int
api_fleet_list(struct api_server *s, struct api_fleet *f, int *from_cache,
    char *err, size_t errlen)
{
	struct db_host	*hosts;
	struct db	*db;
	enum db_status	 st = DB_ERR_UNAVAILABLE;
	size_t		 n;
	time_t		 now = time(NULL);
	struct tm	 tm;

	*from_cache = 0;
	if (f->hosts != NULL && now - f->listed < API_FLEET_LIST_S)
		return 0;
	/* The store was away a moment ago: the list kept, without waiting. */
	pthread_mutex_lock(&s->d->lock);
	if (!s->d->store_up && now - s->d->store_seen < API_STORE_PROBE_S &&
	    f->hosts != NULL)
		*from_cache = 1;
	pthread_mutex_unlock(&s->d->lock);
	if (*from_cache)
		return 0;
	if ((db = api_db(s, err, errlen)) != NULL)
		st = db_hosts_list(db, NULL, &hosts, &n, err, errlen);
	store_note(s->d, st, err);
	if (st == DB_OK) {
		db_hosts_free(f->hosts, f->nhosts);
		f->hosts = hosts;
		f->nhosts = n;
		f->listed = now;
		strftime(f->listed_iso, sizeof(f->listed_iso),
		    "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
		return 0;
	}
	if (f->hosts != NULL) {
		*from_cache = 1;
		return 0;
	}
	return -1;
}

static json_t *
api_host_brief(const char *id, const char *facts)
{
	json_t	*j = facts != NULL ? json_loads(facts, 0, NULL) : NULL;
	json_t	*b;

	b = json_pack("{s:s, s:s}", "host_id", id, "cpu_model",
	    json_string_value(json_object_get(j, "cpu_model")) != NULL ?
	    json_string_value(json_object_get(j, "cpu_model")) : "");
	json_decref(j);
	return b;
}

struct api_members {
	struct fleet_host	 h[FLEET_HOSTS_MAX];
	int64_t			 run[FLEET_HOSTS_MAX];	/* of the model */
	const char		*facts[FLEET_HOSTS_MAX];
	json_t			*brief[FLEET_HOSTS_MAX];	/* on a miss */
	size_t			 n;
	json_t			*excluded;
};

/*
 * What an answer is computed from, hashed: the members with their runs,
 * this host's model version and memory, the hosts left out and why, the
 * observations taken here. Under f->lock.
 */
static void
api_fleet_inputs(const struct api_fleet *f, const struct api_members *mb,
    uint64_t self_version, uint64_t self_budget, int stale,
    unsigned char out[16])
{
	crypto_generichash_state	 st;
	char				 line[128], *ex;
	size_t				 i;

	crypto_generichash_init(&st, NULL, 0, 16);
	snprintf(line, sizeof(line), "self %llu %llu %d obs %lu",
	    (unsigned long long)self_version, (unsigned long long)self_budget,
	    stale, f->obs_taken);
	crypto_generichash_update(&st, (const unsigned char *)line,
	    strlen(line) + 1);
	for (i = 0; i < mb->n; i++) {
		snprintf(line, sizeof(line), "%s %lld", mb->h[i].host_id,
		    (long long)mb->run[i]);
		crypto_generichash_update(&st, (const unsigned char *)line,
		    strlen(line) + 1);
	}
	if ((ex = json_dumps(mb->excluded, JSON_COMPACT)) != NULL) {
		crypto_generichash_update(&st, (const unsigned char *)ex,
		    strlen(ex));
		free(ex);
	}
	crypto_generichash_final(&st, out, 16);
}

/* The kept answer for key and inputs, or the slot to keep it in. */
static struct api_fleet_answer *
api_fleet_answer(struct api_fleet *f, const char *key,
    const unsigned char inputs[16], time_t now, int *hit)
{
	struct api_fleet_answer	*a;
	unsigned char		 h[8];

	crypto_generichash(h, sizeof(h), (const unsigned char *)key,
	    strlen(key), NULL, 0);
	a = &f->answers[(h[0] | h[1] << 8) % API_FLEET_ANSWERS];
	*hit = a->body != NULL && strcmp(a->key, key) == 0 &&
	    memcmp(a->inputs, inputs, 16) == 0 && now >= a->made &&
	    now - a->made < API_FLEET_LIST_S;
	return a;
}

static void
api_exclude(struct api_members *mb, const char *id, const char *why)
{
	json_array_append_new(mb->excluded, json_pack("{s:s, s:s}", "host_id",
	    id, "reason", why));
}

/* The stack's correction over the members; *factor stays 1 without. */
static json_t *
api_stack(struct api_server *s, const struct api_members *mb,
    const char *stack, double *factor)
{
	double		*ratios;
	size_t		 n = 0, got, i;
	struct db	*db;
	char		 err[512];
	enum db_status	 st = DB_OK;
	json_t		*j;

	*factor = 1;
	if ((ratios = calloc(API_STACK_OBS_MAX, sizeof(*ratios))) == NULL)
		return json_pack("{s:s, s:b, s:s}", "name", stack, "applied",
		    0, "note", "out of memory");
	if ((db = api_db(s, err, sizeof(err))) == NULL)
		st = DB_ERR_UNAVAILABLE;
	for (i = 0; st == DB_OK && i < mb->n && n < API_STACK_OBS_MAX; i++) {
		st = db_stack_ratios(db, mb->h[i].host_id, stack, mb->h[i].m,
		    ratios + n, API_STACK_OBS_MAX - n, &got, err, sizeof(err));
		n += st == DB_OK ? got : 0;
	}
	if (st != DB_OK) {
		store_note(s->d, st, err);
		free(ratios);
		return json_pack("{s:s, s:b, s:s}", "name", stack, "applied", 0,
		    "note", "the store cannot be read: answered without a "
		    "correction");
	}
	if (fleet_stack_factor(ratios, n, factor) == -1) {
		char	note[160];

		snprintf(note, sizeof(note), "%zu observation%s of this stack: "
		    "a correction needs %d", n, n == 1 ? "" : "s",
		    FLEET_STACK_MIN_OBS);
		j = json_pack("{s:s, s:I, s:b, s:s}", "name", stack,
		    "observations", (json_int_t)n, "applied", 0, "note", note);
	} else
		j = json_pack("{s:s, s:I, s:b, s:f}", "name", stack,
		    "observations", (json_int_t)n, "applied", 1, "factor",
		    *factor);
	free(ratios);
	return j;
}

enum MHD_Result
api_recommend_scoped(struct api_server *s, struct MHD_Connection *c,
    const struct tune_query *q, const char *qkey, const struct api_scope *sc,
    int *status)
{
	struct api_fleet	*f = api_fleet(s);
	struct api_members	*mb;
	struct fleet_answer	*fa;
	struct model		*self = NULL;
	const struct model	*m;
	struct api_fleet_answer	*kept;
	enum MHD_Result		 rc;
	json_t			*j, *hosts, *stack = NULL;
	char			 err[512], away[160], group[DB_GROUP_MAX], key[448];
	unsigned char		 inputs[16];
	double			 factor = 1;
	uint64_t		 now_b = 0, version = 0;
	time_t			 now = time(NULL);
	size_t			 i;
	int			 stale = 0, from_cache = 0, ret, locked = 0, hit;

	mb = calloc(1, sizeof(*mb));
	fa = calloc(1, sizeof(*fa));
	if (f == NULL || mb == NULL || fa == NULL) {
		free(mb);
		free(fa);
		return MHD_NO;
	}
	mb->excluded = json_array();
	/* This host: the model in memory, within today's memory. */
	pthread_mutex_lock(&s->d->lock);
	snprintf(group, sizeof(group), "%s", s->d->cfg.group);
	if (s->d->model != NULL && (self = malloc(sizeof(*self))) != NULL) {
		*self = *s->d->model;
		stale = strcmp(s->d->model_fingerprint,
		    s->d->host.fingerprint) != 0;
		version = s->d->model_version;
		now_b = host_memory_budget(&s->d->host, s->d->cfg.memory_max,
		    NULL);
		if (now_b > 0 && now_b < self->mem_budget)
			self->mem_budget = now_b;
	}
	pthread_mutex_unlock(&s->d->lock);
	snprintf(key, sizeof(key), "%s|%s|%s|%s", qkey, api_scope_name(
	    sc->kind), sc->kind == API_SCOPE_GROUP ? group : "", sc->stack);

	if (sc->kind == API_SCOPE_GROUP && group[0] == '\0') {
		rc = api_problem(c, PROB_CONFLICT, "scope", "this daemon has no "
		    "group: set group = NAME in pwtuned.conf (or ask with "
		    "scope=fleet)", NULL, 0, status);
		goto out;
	}
	if (self == NULL && sc->kind == API_SCOPE_HOST) {
		rc = api_no_model(s, c, status);
		goto out;
	}
	if (self == NULL)
		api_exclude(mb, s->d->host.host_id, "no finished run");
	else if (stale && sc->kind != API_SCOPE_HOST)
		api_exclude(mb, s->d->host.host_id, "stale: the host changed "
		    "since its last finished run");
	else {
		mb->h[0].host_id = s->d->host.host_id;
		mb->h[0].m = self;
		mb->n = 1;
	}

	pthread_mutex_lock(&f->lock);
	locked = 1;
	if (sc->kind != API_SCOPE_HOST) {
		if (api_fleet_list(s, f, &from_cache, err, sizeof(err)) == -1) {
			rc = api_problem(c, PROB_STORE, NULL, "the store cannot "
			    "be read, and no list of hosts is kept yet", NULL,
			    5, status);
			goto out;
		}
		for (i = 0; i < f->nhosts && mb->n < FLEET_HOSTS_MAX; i++) {
			const struct db_host	*h = &f->hosts[i];
			char			 why[256];

			if (strcmp(h->id, s->d->host.host_id) == 0 ||
			    (sc->kind == API_SCOPE_GROUP &&
			    strcmp(h->group, group) != 0))
				continue;
			if (!db_host_fresh(h, now, s->d->cfg.fleet_max_age, why,
			    sizeof(why))) {
				api_exclude(mb, h->id, why);
				continue;
			}
			/* The reason in the log: no store message in an
			   answer anyone may ask for. */
			if ((m = api_fleet_model(s, f, h, err, sizeof(err))) ==
			    NULL) {
				api_exclude(mb, h->id, "its model cannot be "
				    "read");
				continue;
			}
			mb->h[mb->n].host_id = h->id;
			mb->h[mb->n].m = m;
			mb->run[mb->n] = h->last_run;
			mb->facts[mb->n] = h->facts;
			mb->n++;
		}
	}
	if (mb->n == 0) {
		char	why[256];

		snprintf(why, sizeof(why), "no host of %s%s has a fresh "
		    "finished run", sc->kind == API_SCOPE_GROUP ? "group " :
		    "the fleet", sc->kind == API_SCOPE_GROUP ? group : "");
		rc = api_problem(c, PROB_NOT_READY, NULL, why, json_pack(
		    "{s:O}", "excluded", mb->excluded), 10, status);
		goto out;
	}
	api_fleet_inputs(f, mb, version, now_b, stale, inputs);
	kept = api_fleet_answer(f, key, inputs, now, &hit);
	if (hit && (j = json_loads(kept->body, 0, NULL)) != NULL) {
		f->cached++;
		ret = kept->ret;
		snprintf(err, sizeof(err), "%s", kept->err);
		goto answer;
	}
	f->computed++;
	for (i = 0; i < mb->n; i++) {
		mb->brief[i] = mb->h[i].m == self ? json_pack("{s:s, s:s}",
		    "host_id", s->d->host.host_id, "cpu_model",
		    s->d->host.cpu_model) : api_host_brief(mb->h[i].host_id,
		    mb->facts[i]);
		json_object_set_new(mb->brief[i], "this_host",
		    json_boolean(mb->h[i].m == self));
	}
	if (sc->stack[0] != '\0')
		stack = api_stack(s, mb, sc->stack, &factor);
	ret = fleet_recommend(mb->h, mb->n, q, factor, fa, err, sizeof(err));
	if (ret == -1) {
		rc = api_problem(c, PROB_POLICY, NULL, err, NULL, 0, status);
		goto out;
	}
	j = tune_answer_to_json(&fa->a, mb->h[fa->decider].m);
	json_object_set_new(j, "stale", json_boolean(sc->kind ==
	    API_SCOPE_HOST && stale));
	json_object_set_new(j, "scope", json_string(api_scope_name(sc->kind)));
	if (sc->kind == API_SCOPE_GROUP)
		json_object_set_new(j, "group", json_string(group));
	hosts = json_array();
	for (i = 0; i < mb->n; i++) {
		json_object_set_new(mb->brief[i], "predicted_ms",
		    json_real(fa->predicted_ms[i]));
		json_array_append(hosts, mb->brief[i]);
	}
	json_object_set(j, "decided_by", mb->brief[fa->decider]);
	json_object_set_new(j, "hosts", hosts);
	json_object_set(j, "excluded", mb->excluded);
	if (stack != NULL) {
		json_object_set_new(j, "stack", stack);
		stack = NULL;
	}
	free(kept->body);
	kept->body = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
	snprintf(kept->key, sizeof(kept->key), "%s", key);
	memcpy(kept->inputs, inputs, sizeof(kept->inputs));
	kept->made = now;
	kept->ret = ret;
	snprintf(kept->err, sizeof(kept->err), "%s", ret == 1 ? err : "");
answer:
	/* Hosts as last read: say so when the store is away (err is the
	   policy's word for a closest answer: kept). */
	if (sc->kind != API_SCOPE_HOST && (from_cache ||
	    !api_store_up(s, away, sizeof(away))))
		json_object_set_new(j, "store", json_pack("{s:b, s:s}",
		    "reachable", 0, "hosts_as_of", f->listed_iso));
	if (ret == 1)
		rc = api_problem(c, PROB_POLICY, "target_ms", err, json_pack(
		    "{s:o}", "closest", j), 0, status);
	else
		rc = api_json(c, 200, j, NULL, status);
out:
	if (locked)
		pthread_mutex_unlock(&f->lock);
	for (i = 0; i < mb->n; i++)
		json_decref(mb->brief[i]);	/* NULL on a hit */
	json_decref(mb->excluded);
	json_decref(stack);
	free(mb);
	free(fa);
	free(self);
	return rc;
}

/* A stack name: 1 to 63 of letters, digits, '.', '_', '+', '-'. */
static int
api_stack_valid(const char *v)
{
	size_t	n = strlen(v);

	return n > 0 && n < DB_STACK_MAX && v[strspn(v, "abcdefghijklmnopq"
	    "rstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")] == '\0';
}

int
api_scope_parse(const char *key, const char *v, struct api_scope *sc,
    char *why, size_t whylen)
{
	if (strcmp(key, "scope") == 0) {
		if (strcmp(v, "host") == 0)
			sc->kind = API_SCOPE_HOST;
		else if (strcmp(v, "group") == 0)
			sc->kind = API_SCOPE_GROUP;
		else if (strcmp(v, "fleet") == 0)
			sc->kind = API_SCOPE_FLEET;
		else {
			snprintf(why, whylen, "must be host, group or fleet");
			return -1;
		}
		return 0;
	}
	if (!api_stack_valid(v)) {
		snprintf(why, whylen, "must be 1 to %d letters, digits, '.', "
		    "'_', '+' or '-' (php-8.2-libargon2)", DB_STACK_MAX - 1);
		return -1;
	}
	snprintf(sc->stack, sizeof(sc->stack), "%s", v);
	return 0;
}

/* One token of the observation bucket, or 0 (429). */
static int
api_obs_token(struct api_fleet *f, unsigned *retry)
{
	struct timespec	ts;
	double		now;
	int		ok;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	pthread_mutex_lock(&f->lock);
	if (f->refilled > 0) {
		f->tokens += (now - f->refilled) * API_OBS_RATE;
		if (f->tokens > API_OBS_BURST)
			f->tokens = API_OBS_BURST;
	}
	f->refilled = now;
	ok = f->tokens >= 1;
	if (ok)
		f->tokens -= 1;
	pthread_mutex_unlock(&f->lock);
	*retry = 1;
	return ok;
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

enum MHD_Result
h_observations_post(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
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
	struct api_fleet	*f = api_fleet(s);
	struct db_observation	 o;
	struct stats		 st;
	struct db		*db;
	json_t			*j, *v, *samples;
	const char		*key, *variant = "argon2id";
	double			 ms[API_OBS_SAMPLES_MAX];
	long long		 val[4];
	size_t			 i, n;
	enum db_status		 dst;
	enum kdf_alg		 alg;
	enum MHD_Result		 rc;
	unsigned		 retry;
	char			 err[512], why[160];

	(void)arg;
	if (f == NULL)
		return MHD_NO;
	if (!api_obs_token(f, &retry))
		return api_problem(c, PROB_TOO_MANY, NULL, "observations come "
		    "faster than the daemon takes them: send fewer, with more "
		    "samples each", NULL, retry, status);
	if ((j = api_body_json(c, r, status, &rc)) == NULL)
		return rc;
	memset(&o, 0, sizeof(o));
	json_object_foreach(j, key, v) {
		if (strcmp(key, "stack") && strcmp(key, "variant") &&
		    strcmp(key, "m_kib") && strcmp(key, "t") &&
		    strcmp(key, "p") && strcmp(key, "k") &&
		    strcmp(key, "samples_ms")) {
			rc = api_problem(c, PROB_BAD_PARAM, key, "unknown member"
			    " (known: stack, variant, m_kib, t, p, k, "
			    "samples_ms)", NULL, 0, status);
			json_decref(j);
			return rc;
		}
	}
	v = json_object_get(j, "stack");
	if (!json_is_string(v) || !api_stack_valid(json_string_value(v))) {
		json_decref(j);
		snprintf(why, sizeof(why), "is required: 1 to %d letters, "
		    "digits, '.', '_', '+' or '-' (php-8.2-libargon2)",
		    DB_STACK_MAX - 1);
		return api_problem(c, PROB_BAD_PARAM, "stack", why, NULL, 0,
		    status);
	}
	snprintf(o.stack, sizeof(o.stack), "%s", json_string_value(v));
	if ((v = json_object_get(j, "variant")) != NULL) {
		if (!json_is_string(v) || kdf_alg_parse(json_string_value(v),
		    &alg) == -1 || !kdf_alg_is_argon2(alg)) {
			json_decref(j);
			return api_problem(c, PROB_BAD_PARAM, "variant", "must "
			    "be argon2id, argon2i or argon2d", NULL, 0, status);
		}
		variant = kdf_alg_name(alg);
	}
	snprintf(o.variant, sizeof(o.variant), "%s", variant);
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (api_member_uint(j, nums[i].key, nums[i].lo, nums[i].hi,
		    nums[i].dflt, &val[i]) == -1) {
			snprintf(why, sizeof(why), "%smust be a whole number "
			    "from %lld to %lld", nums[i].dflt < 0 ?
			    "is required and " : "", nums[i].lo, nums[i].hi);
			json_decref(j);
			return api_problem(c, PROB_BAD_PARAM, nums[i].key, why,
			    NULL, 0, status);
		}
	}
	o.m_kib = (uint32_t)val[0];
	o.t = (uint32_t)val[1];
	o.p = (uint32_t)val[2];
	o.k = (uint32_t)val[3];
	if (o.m_kib < 8 * o.p) {
		json_decref(j);
		return api_problem(c, PROB_BAD_PARAM, "m_kib", "must be at "
		    "least 8 KiB per lane (8 x p)", NULL, 0, status);
	}
	samples = json_object_get(j, "samples_ms");
	n = json_is_array(samples) ? json_array_size(samples) : 0;
	if (n == 0 || n > API_OBS_SAMPLES_MAX) {
		json_decref(j);
		snprintf(why, sizeof(why), "is required: an array of 1 to %d "
		    "latencies in milliseconds", API_OBS_SAMPLES_MAX);
		return api_problem(c, PROB_BAD_PARAM, "samples_ms", why, NULL,
		    0, status);
	}
	for (i = 0; i < n; i++) {
		v = json_array_get(samples, i);
		ms[i] = json_is_number(v) ? json_number_value(v) : -1;
		if (!(ms[i] > 0 && ms[i] <= TUNE_TARGET_MAX_MS)) {
			json_decref(j);
			snprintf(why, sizeof(why), "sample %zu must be a number "
			    "of milliseconds above 0 and at most %d", i,
			    TUNE_TARGET_MAX_MS);
			return api_problem(c, PROB_BAD_PARAM, "samples_ms", why,
			    NULL, 0, status);
		}
	}
	json_decref(j);
	stats_compute(ms, n, &st);
	o.median_ms = st.median;
	o.p95_ms = st.p95;
	o.predicted_ms = -1;
	snprintf(o.host_id, sizeof(o.host_id), "%s", s->d->host.host_id);
	/* What the model in use predicted for these parameters. */
	pthread_mutex_lock(&s->d->lock);
	if (s->d->model != NULL && kdf_alg_parse(o.variant, &alg) == 0 &&
	    fleet_predict_p50(s->d->model, alg, o.m_kib, o.t, o.p, o.k,
	    &o.predicted_ms) == 0)
		o.model_run = s->d->model_run;
	pthread_mutex_unlock(&s->d->lock);
	dst = DB_ERR_UNAVAILABLE;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		dst = db_observation_add(db, &o, ms, n, err, sizeof(err));
	store_note(s->d, dst, err);
	if (dst == DB_ERR_INVALID)
		return api_problem(c, PROB_CONFLICT, NULL, "this host has no "
		    "run in the store yet: observations are kept per host once "
		    "it has one", NULL, 0, status);
	if (dst != DB_OK) {
		log_warn("POST /v1/observations: %s", err);
		return api_problem(c, PROB_STORE, NULL, "the store cannot be "
		    "written", NULL, api_store_retry(s), status);
	}
	/* Corrections change: answers kept for a stack are computed again. */
	pthread_mutex_lock(&f->lock);
	f->obs_taken++;
	pthread_mutex_unlock(&f->lock);
	j = json_pack("{s:I, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f, "
	    "s:f}", "id", (json_int_t)o.id, "host_id", o.host_id, "stack",
	    o.stack, "variant", o.variant, "m_kib", (json_int_t)o.m_kib, "t",
	    (json_int_t)o.t, "p", (json_int_t)o.p, "k", (json_int_t)o.k,
	    "samples", (json_int_t)n, "median_ms", o.median_ms, "p95_ms",
	    o.p95_ms);
	json_object_set_new(j, "predicted_ms", o.predicted_ms >= 0 ?
	    json_real(o.predicted_ms) : json_null());
	json_object_set_new(j, "ratio", o.predicted_ms > 0 ?
	    json_real(o.median_ms / o.predicted_ms) : json_null());
	return api_json(c, 201, j, NULL, status);
}

enum MHD_Result
h_observations_get(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct db_observation	*obs;
	struct model		*self = NULL;
	struct db		*db;
	const char		*stack;
	json_t			*list, *stacks, *entry;
	double			 ratios[API_STACK_OBS_MAX], factor;
	size_t			 n, i, nr;
	char			 err[512], why[160];
	enum db_status		 st;

	(void)r;
	(void)arg;
	stack = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "stack");
	if (stack != NULL && !api_stack_valid(stack)) {
		snprintf(why, sizeof(why), "must be 1 to %d letters, digits, "
		    "'.', '_', '+' or '-'", DB_STACK_MAX - 1);
		return api_problem(c, PROB_BAD_PARAM, "stack", why, NULL, 0,
		    status);
	}
	st = DB_ERR_UNAVAILABLE;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		st = db_observations_list(db, s->d->host.host_id, stack,
		    API_OBS_LIST_MAX, &obs, &n, err, sizeof(err));
	store_note(s->d, st, err);
	if (st != DB_OK)
		return api_store_unreadable(c, status);
	pthread_mutex_lock(&s->d->lock);
	if (s->d->model != NULL && (self = malloc(sizeof(*self))) != NULL)
		*self = *s->d->model;
	pthread_mutex_unlock(&s->d->lock);
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

		json_object_set_new(o, "predicted_ms", obs[i].predicted_ms >=
		    0 ? json_real(obs[i].predicted_ms) : json_null());
		json_object_set_new(o, "ratio", obs[i].predicted_ms > 0 ?
		    json_real(obs[i].median_ms / obs[i].predicted_ms) :
		    json_null());
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
			    s->d->host.host_id, name, self, ratios,
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
			json_array_append_new(out, entry);
		}
		json_decref(stacks);
		stacks = out;
	}
	free(self);
	return api_json(c, 200, json_pack("{s:s, s:o, s:o, s:i}", "host_id",
	    s->d->host.host_id, "stacks", stacks, "observations", list,
	    "min_observations", FLEET_STACK_MIN_OBS), NULL, status);
}
