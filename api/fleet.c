/*
 * api/fleet.c: answers for a group or the fleet (scope=), corrected for a
 * stack (stack=), and the observations services report (POST and GET
 * /v1/observations).
 *
 * The hosts of a scope come from the store: listed at most every
 * API_FLEET_LIST_S seconds. Each member's model is fitted once per run
 * and kept (API_FLEET_MODELS, the least recently used let go first), with
 * the cpu_model its answers show and its own answers to the last queries
 * searched (API_FLEET_CANDS per model): a question that differs only in
 * what does not change a host's own answer (another stack without a
 * correction, the other scope over the same memory) costs the
 * predictions of every candidate on every host, not a search per host.
 * A kept model is reference counted: an answer takes a reference on each
 * member's model under the lock and drops it when it is made, so that
 * letting a model go never frees one an answer is reading. The lock is
 * held only to look up and to keep: models are fitted, candidates
 * searched and answers computed without it, so that two questions are
 * computed at once and neither waits for the other. Searches are
 * budgeted for the daemon (API_FLEET_SEARCH_RATE hosts a second, a token
 * bucket), and run on one HTTP thread fewer than there are (one at
 * least): a new question past either is answered 429, so that anyone
 * asking new questions cannot take the HTTP threads from the rest.
 *
 * A stack's observations are read in one store query for every host
 * (the newest DB_RUNS_LIST_MAX) and kept API_FLEET_LIST_S seconds per
 * stack (API_FLEET_STACKS), or until an observation of that stack is
 * stored here.
 *
 * When the store cannot be reached, the last list and the models kept
 * answer, and the answer says so. This host always answers with the model
 * in memory.
 *
 * An answer is kept API_FLEET_LIST_S seconds for its query, keyed also by
 * its inputs (each member host and the run its model comes from, this
 * host's model and memory, the hosts left out, the observations taken
 * here): a group of hundreds of hosts costs tens of milliseconds to
 * answer the first time (bench/fleet), a repeated question a lookup.
 * With no search left, a question answered before gets that answer
 * (with Age) up to API_FLEET_STALE_S old, rather than 429; a question has two slots and
 * the one asked least goes first, so that many questions asked once do
 * not push out one asked again and again.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_impl.h"
#include "fleet.h"
#include "stack.h"
#include "stats.h"

/* A host's own answer to one aim (fleet_aim()), kept with its model. */
struct api_fleet_cand {
	unsigned char		 aim[16];	/* hash of the query */
	uint64_t		 used;		/* 0: empty */
	struct tune_answer	 a;
};

/* A member's model: kept in f->models, read by answers. Under f->lock. */
struct api_fleet_model {
	char			 host_id[33];
	int64_t			 run;
	char			 cpu_model[128];
	unsigned		 refs;	/* 1 while kept, + 1 per answer */
	uint64_t		 used;	/* f->clock when last taken */
	struct api_fleet_cand	 cand[API_FLEET_CANDS];
	struct model		 m;
};

/* What a stack's correction is computed from, per observation. */
struct api_stack_obs {
	char			 host_id[33];
	enum kdf_alg		 alg;
	uint32_t		 m_kib, t, p, k;
	double			 median_ms;
};

/* A stack's observations as read: kept, and read by answers. */
struct api_fleet_stack {
	char			 name[DB_STACK_MAX];
	time_t			 read;
	int			 gone;	/* an observation came since */
	uint64_t		 used;
	unsigned		 refs;	/* 1 while kept, + 1 per answer */
	size_t			 n;
	struct api_stack_obs	 obs[];
};

/* A scoped answer kept: its JSON without "store", which is per request. */
struct api_fleet_answer {
	char		 key[448];	/* query | scope | group | stack */
	unsigned char	 inputs[16];	/* hash of what it was computed from */
	time_t		 made;
	unsigned	 asks;		/* answered from it: which to keep */
	int		 ret;		/* fleet_recommend()'s */
	char		*body;
	char		 err[512];
};

struct api_fleet {
	pthread_mutex_t		 lock;	/* first: then the host's, then the
					   server's (api_impl.h) */
	struct api_fleet_answer	 answers[API_FLEET_ANSWERS];
	unsigned char		 slot_key[16];	/* keys the slots' hash: random,
						   so no client can aim at
						   another question's slots */
	unsigned long long	 computed, cached;	/* for /metrics */
	unsigned long		 obs_taken;	/* observations stored here */
	struct db_host		*hosts;
	size_t			 nhosts;
	time_t			 listed;
	int			 listing;	/* a question reads it now */
	char			 listed_iso[32];
	struct api_fleet_model	*models[API_FLEET_MODELS];
	int64_t			 model_runs[API_FLEET_MODELS];	/* theirs,
					   side by side: looked up per member */
	struct api_fleet_stack	*stacks[API_FLEET_STACKS];
	uint64_t		 clock;		/* of last use, for both */
	/* Searches for scoped answers: a token bucket for the daemon, and
	   how many run now (fewer than the HTTP threads: one stays free). */
	double			 searches;
	double			 searches_refilled;
	unsigned		 searching;
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
		randombytes_buf(s->fleet->slot_key, sizeof(s->fleet->slot_key));
		s->fleet->tokens = API_OBS_BURST;
		s->fleet->searches = API_FLEET_SEARCH_BURST;
	}
	pthread_mutex_unlock(&s->lock);
	return s->fleet;
}

/* Drop a reference on a model or a stack; the last one frees. Under lock. */
static void
api_model_put(struct api_fleet_model *e)
{
	if (e != NULL && --e->refs == 0)
		free(e);
}

static void
api_stack_put(struct api_fleet_stack *st)
{
	if (st != NULL && --st->refs == 0)
		free(st);
}

void
api_fleet_free(struct api_server *s)
{
	size_t	i;

	if (s->fleet == NULL)
		return;
	db_hosts_free(s->fleet->hosts, s->fleet->nhosts);
	for (i = 0; i < API_FLEET_MODELS; i++)
		api_model_put(s->fleet->models[i]);
	for (i = 0; i < API_FLEET_STACKS; i++)
		api_stack_put(s->fleet->stacks[i]);
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

/*
 * The kept model of run h->last_run with a reference taken, or NULL: then
 * a new one with a reference, not fitted yet (m.run_id 0), in *fresh.
 * Under f->lock.
 */
static struct api_fleet_model *
api_model_take(struct api_fleet *f, const struct db_host *h,
    struct api_fleet_model **fresh)
{
	struct api_fleet_model	*e;
	size_t			 i;

	*fresh = NULL;
	for (i = 0; i < API_FLEET_MODELS; i++) {
		if (f->model_runs[i] != h->last_run)
			continue;
		e = f->models[i];
		if (e != NULL && strcmp(e->host_id, h->id) == 0) {
			e->refs++;
			e->used = ++f->clock;
			return e;
		}
	}
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return NULL;
	snprintf(e->host_id, sizeof(e->host_id), "%s", h->id);
	e->run = h->last_run;
	api_scope_cpu(h->facts, e->cpu_model, sizeof(e->cpu_model));
	e->refs = 1;
	*fresh = e;
	return NULL;
}

/*
 * Keep e (fitted) unless a model of its run is kept already; the least
 * recently used one is let go when all places are taken: an answer
 * reading it holds its own reference. Under f->lock.
 */
static void
api_model_keep(struct api_fleet *f, struct api_fleet_model *e)
{
	struct api_fleet_model	*o;
	size_t			 i, victim = 0;

	for (i = 0; i < API_FLEET_MODELS; i++) {
		o = f->models[i];
		if (o == NULL) {
			victim = i;
			break;
		}
		if (o->run == e->run && strcmp(o->host_id, e->host_id) == 0)
			return;
		if (o->used < f->models[victim]->used)
			victim = i;
	}
	api_model_put(f->models[victim]);
	e->refs++;
	e->used = ++f->clock;
	f->models[victim] = e;
	f->model_runs[victim] = e->run;
}

/*
 * Refresh the host list when it is old; 0, or -1 when there is none.
 * Under f->lock, which is let go while the store is read when a list is
 * kept: the other questions meanwhile use that one.
 */
static int
api_fleet_list(struct api_server *s, struct api_fleet *f, int *from_cache,
    char *err, size_t errlen)
{
	struct api_state	 hs;
	struct db_host		*hosts;
	struct db		*db;
	enum db_status		 st = DB_ERR_UNAVAILABLE;
	size_t			 n;
	time_t			 now = time(NULL);
	struct tm		 tm;
	int			 unlocked = 0;

	*from_cache = 0;
	if (f->hosts != NULL && (f->listing || now - f->listed <
	    API_FLEET_LIST_S))
		return 0;
	/* The store was away a moment ago: the list kept, without waiting. */
	api_state(s, &hs);	/* under f->lock: fleet -> host */
	if (!hs.store_up && now - hs.store_seen < API_STORE_PROBE_S &&
	    f->hosts != NULL)
		*from_cache = 1;
	if (*from_cache)
		return 0;
	if (f->hosts != NULL) {
		f->listing = 1;
		unlocked = 1;
		pthread_mutex_unlock(&f->lock);
	}
	if ((db = api_db(s, err, errlen)) != NULL)
		st = db_hosts_list(db, NULL, &hosts, &n, err, errlen);
	api_store_note(s, st, err);
	if (unlocked) {
		pthread_mutex_lock(&f->lock);
		f->listing = 0;
	}
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

/* The members of one answer (set), with the kept models they read. */
struct api_members {
	struct api_scope_set	 set;
	struct api_fleet_model	*e[FLEET_HOSTS_MAX];	/* NULL: this host */
	struct tune_answer	 cand[FLEET_HOSTS_MAX];
	int			 searched[FLEET_HOSTS_MAX];	/* cand is new */
};

/*
 * What an answer is computed from, hashed: the members with their runs,
 * this host's model version and memory, the hosts left out and why, the
 * observations taken here.
 */
static void
api_fleet_inputs(unsigned long obs_taken, const struct api_members *mb,
    uint64_t self_version, uint64_t self_budget, int stale,
    unsigned char out[16])
{
	crypto_generichash_state	 st;
	char				 line[128], *ex;
	size_t				 i;

	crypto_generichash_init(&st, NULL, 0, 16);
	snprintf(line, sizeof(line), "self %llu %llu %d obs %lu",
	    (unsigned long long)self_version, (unsigned long long)self_budget,
	    stale, obs_taken);
	crypto_generichash_update(&st, (const unsigned char *)line,
	    strlen(line) + 1);
	for (i = 0; i < mb->set.n; i++) {
		snprintf(line, sizeof(line), "%s %lld", mb->set.h[i].host_id,
		    (long long)(mb->e[i] != NULL ? mb->e[i]->run : 0));
		crypto_generichash_update(&st, (const unsigned char *)line,
		    strlen(line) + 1);
	}
	if ((ex = json_dumps(mb->set.excluded, JSON_COMPACT)) != NULL) {
		crypto_generichash_update(&st, (const unsigned char *)ex,
		    strlen(ex));
		free(ex);
	}
	crypto_generichash_final(&st, out, 16);
}

/* The hash of a query a host's own answer is searched with. */
static void
api_aim_hash(const struct tune_query *q, unsigned char out[16])
{
	char	line[256];

	/* Every field tune_recommend() reads: a stack's limits too. */
	snprintf(line, sizeof(line), "%.17g %d %u %llu %u %d %d %d %d %u %u "
	    "%d %u %d %d", q->target_ms, q->percentile, q->k,
	    (unsigned long long)q->memory_max_kib, q->parallelism,
	    (int)q->variant, (int)q->backend, (int)q->floor,
	    (int)q->objective, (unsigned)q->t_min, (unsigned)q->m_hash_max_kib,
	    q->m_hash_cliff, (unsigned)q->m_measured_kib,
	    q->headroom_percentile, q->stack_named);
	crypto_generichash(out, 16, (const unsigned char *)line, strlen(line),
	    NULL, 0);
}

/*
 * The kept answer for key and inputs, or the slot to keep it in: *hit 1
 * when it is younger than API_FLEET_LIST_S, 2 when older but younger than
 * API_FLEET_STALE_S (the same hosts, runs and observations here, but
 * another daemon's observations of its stack may have come since: served
 * only when no search is left). A key
 * has two slots: a new answer takes the one of the same key, an empty
 * one, or the one asked least (then the older), so that questions asked
 * once, however many, do not push out one asked again and again.
 */
static struct api_fleet_answer *
api_fleet_answer(struct api_fleet *f, const char *key,
    const unsigned char inputs[16], time_t now, int *hit)
{
	struct api_fleet_answer	*a, *b, *v;
	unsigned char		 h[8];
	size_t			 i;

	crypto_generichash(h, sizeof(h), (const unsigned char *)key,
	    strlen(key), f->slot_key, sizeof(f->slot_key));
	i = (h[0] | h[1] << 8) % API_FLEET_ANSWERS;
	a = &f->answers[i];
	b = &f->answers[(i + 1 + (h[2] | h[3] << 8) % (API_FLEET_ANSWERS -
	    1)) % API_FLEET_ANSWERS];
	*hit = 0;
	if (a->body != NULL && strcmp(a->key, key) == 0)
		v = a;
	else if (b->body != NULL && strcmp(b->key, key) == 0)
		v = b;
	else if (a->body == NULL || b->body == NULL)
		return a->body == NULL ? a : b;
	else
		return a->asks < b->asks || (a->asks == b->asks &&
		    a->made <= b->made) ? a : b;
	if (memcmp(v->inputs, inputs, 16) == 0 && now >= v->made)
		*hit = now - v->made < API_FLEET_LIST_S ? 1 :
		    now - v->made < API_FLEET_STALE_S ? 2 : 0;
	return v;
}

/*
 * The observations of stack as kept, with a reference taken; read now
 * (one store query) when none are kept or they are older than
 * API_FLEET_LIST_S. NULL when the store cannot be read.
 */
static struct api_fleet_stack *
api_stack_take(struct api_server *s, struct api_fleet *f, const char *stack,
    time_t now)
{
	struct api_fleet_stack	*st = NULL, *o;
	struct db_observation	*obs;
	struct db		*db;
	enum db_status		 dst = DB_ERR_UNAVAILABLE;
	size_t			 i, n, victim = 0;
	char			 err[512];

	pthread_mutex_lock(&f->lock);
	for (i = 0; i < API_FLEET_STACKS; i++) {
		o = f->stacks[i];
		if (o != NULL && !o->gone && strcmp(o->name, stack) == 0 &&
		    now >= o->read && now - o->read < API_FLEET_LIST_S) {
			o->refs++;
			o->used = ++f->clock;
			st = o;
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
	if (st != NULL)
		return st;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		dst = db_stack_observations(db, NULL, stack,
		    DB_RUNS_LIST_MAX, &obs, &n, err, sizeof(err));
	api_store_note(s, dst, err);
	if (dst != DB_OK)
		return NULL;
	if ((st = calloc(1, sizeof(*st) + (n ? n : 1) * sizeof(*st->obs))) ==
	    NULL) {
		free(obs);
		return NULL;
	}
	snprintf(st->name, sizeof(st->name), "%s", stack);
	st->read = now;
	for (i = 0; i < n; i++) {
		struct api_stack_obs	*so = &st->obs[st->n];

		/* A check the daemon did not take (off, noisy) is no data. */
		if (kdf_alg_parse(obs[i].variant, &so->alg) == -1 ||
		    strcmp(obs[i].source, DB_SOURCE_CHECK_SUSPECT) == 0)
			continue;
		snprintf(so->host_id, sizeof(so->host_id), "%s",
		    obs[i].host_id);
		so->m_kib = obs[i].m_kib;
		so->t = obs[i].t;
		so->p = obs[i].p;
		so->k = obs[i].k;
		so->median_ms = obs[i].median_ms;
		st->n++;
	}
	free(obs);
	st->refs = 1;
	/* Kept in place of the same stack's, or the least recently used. */
	pthread_mutex_lock(&f->lock);
	for (i = 0; i < API_FLEET_STACKS; i++) {
		o = f->stacks[i];
		if (o == NULL || strcmp(o->name, stack) == 0) {
			victim = i;
			break;
		}
		if (o->used < f->stacks[victim]->used)
			victim = i;
	}
	api_stack_put(f->stacks[victim]);
	st->refs++;
	st->used = ++f->clock;
	f->stacks[victim] = st;
	pthread_mutex_unlock(&f->lock);
	return st;
}

/*
 * The stack's correction over the members; *factor stays 1 without. The
 * newest API_STACK_OBS_MAX observations of the members, each against its
 * host's model.
 */
static json_t *
api_stack(struct api_server *s, struct api_fleet *f,
    const struct api_members *mb, const char *stack, time_t now,
    double *factor)
{
	struct api_fleet_stack	*st;
	double			*ratios, p50;
	size_t			 n = 0, i, j;
	json_t			*js;

	*factor = 1;
	if ((st = api_stack_take(s, f, stack, now)) == NULL)
		return json_pack("{s:s, s:b, s:s}", "name", stack, "applied", 0,
		    "note", "the store cannot be read: answered without a "
		    "correction");
	if ((ratios = calloc(API_STACK_OBS_MAX, sizeof(*ratios))) == NULL) {
		pthread_mutex_lock(&f->lock);
		api_stack_put(st);
		pthread_mutex_unlock(&f->lock);
		return json_pack("{s:s, s:b, s:s}", "name", stack, "applied",
		    0, "note", "out of memory");
	}
	for (i = 0; i < st->n && n < API_STACK_OBS_MAX; i++) {
		const struct api_stack_obs *o = &st->obs[i];

		for (j = 0; j < mb->set.n && strcmp(mb->set.h[j].host_id,
		    o->host_id); j++)
			;
		/* A p the host never measured is left out. */
		if (j < mb->set.n && fleet_predict_p50(mb->set.h[j].m, o->alg,
		    o->m_kib, o->t, o->p, o->k, &p50) == 0 && p50 > 0)
			ratios[n++] = o->median_ms / p50;
	}
	pthread_mutex_lock(&f->lock);
	api_stack_put(st);
	pthread_mutex_unlock(&f->lock);
	if (fleet_stack_factor(ratios, n, factor) == -1) {
		char	note[160];

		snprintf(note, sizeof(note), "%zu observation%s of this stack: "
		    "a correction needs %d", n, n == 1 ? "" : "s",
		    FLEET_STACK_MIN_OBS);
		js = json_pack("{s:s, s:I, s:b, s:s}", "name", stack,
		    "observations", (json_int_t)n, "applied", 0, "note", note);
	} else
		js = json_pack("{s:s, s:I, s:b, s:f}", "name", stack,
		    "observations", (json_int_t)n, "applied", 1, "factor",
		    *factor);
	free(ratios);
	return js;
}

/*
 * Take n searches from the daemon's budget: 1, or 0 with *retry (s) when
 * there are not that many left. Under f->lock.
 */
static int
api_search_tokens(struct api_fleet *f, size_t n, unsigned *retry)
{
	api_bucket_refill(&f->searches, &f->searches_refilled,
	    API_FLEET_SEARCH_RATE, API_FLEET_SEARCH_BURST);
	if (f->searches >= (double)n) {
		f->searches -= (double)n;
		return 1;
	}
	*retry = (unsigned)ceil(((double)n - f->searches) /
	    API_FLEET_SEARCH_RATE);
	if (*retry < 1)
		*retry = 1;
	return 0;
}

/*
 * Each member's own answer to aim: kept with its model, or searched now
 * (without the lock; other hosts' within the daemon's budget of
 * searches, at most at_once questions searching at a time) and kept.
 * 0; -1 with err naming the host; -2 with *retry when the budget has not
 * enough searches left or at_once questions search now.
 */
static int
api_candidates(struct api_fleet *f, struct api_members *mb,
    const struct tune_query *aim, unsigned at_once, unsigned *retry,
    char *err, size_t errlen)
{
	struct api_fleet_cand	*c, *victim;
	unsigned char		 h[16];
	char			 why[512];
	size_t			 i, k, n = 0;
	int			 ok;

	api_aim_hash(aim, h);
	pthread_mutex_lock(&f->lock);
	for (i = 0; i < mb->set.n; i++) {
		mb->searched[i] = 1;
		if (mb->e[i] == NULL)
			continue;
		for (k = 0; k < API_FLEET_CANDS; k++) {
			c = &mb->e[i]->cand[k];
			if (c->used != 0 && memcmp(c->aim, h, 16) == 0) {
				mb->cand[i] = c->a;
				c->used = ++f->clock;
				mb->searched[i] = 0;
				break;
			}
		}
	}
	/* This host's own is searched as a host-scoped answer is: free. */
	for (i = 0; i < mb->set.n; i++)
		n += mb->searched[i] && mb->e[i] != NULL;
	if (n > 0 && f->searching >= at_once) {
		*retry = 1;
		ok = 0;
	} else if ((ok = api_search_tokens(f, n, retry)) && n > 0)
		f->searching++;
	pthread_mutex_unlock(&f->lock);
	if (!ok)
		return -2;
	for (i = 0; i < mb->set.n; i++) {
		if (mb->searched[i] && tune_recommend(mb->set.h[i].m, aim,
		    &mb->cand[i], why, sizeof(why)) == -1) {
			snprintf(err, errlen, "host %s: %.400s",
			    mb->set.h[i].host_id, why);
			if (n > 0) {
				pthread_mutex_lock(&f->lock);
				f->searching--;
				pthread_mutex_unlock(&f->lock);
			}
			return -1;
		}
		mb->set.h[i].cand = &mb->cand[i];
	}
	pthread_mutex_lock(&f->lock);
	if (n > 0)
		f->searching--;
	for (i = 0; i < mb->set.n; i++) {
		if (!mb->searched[i] || mb->e[i] == NULL)
			continue;
		victim = &mb->e[i]->cand[0];
		for (k = 1; k < API_FLEET_CANDS; k++)
			if (mb->e[i]->cand[k].used < victim->used)
				victim = &mb->e[i]->cand[k];
		memcpy(victim->aim, h, 16);
		victim->a = mb->cand[i];
		victim->used = ++f->clock;
	}
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* One scoped question as it is answered: what its steps share. */
struct api_scoped {
	struct api_server	*s;
	struct api_fleet	*f;
	const struct api_scope	*sc;
	const struct tune_query	*q;	/* &qs */
	struct tune_query	 qs;	/* the question, with its stack's limits */
	struct api_config	 cfg;
	struct api_members	 mb;
	struct api_fleet_model	*fresh[FLEET_HOSTS_MAX];	/* unfitted */
	size_t			 nfresh;
	struct fleet_answer	 fa;
	struct model		*self;	/* this host's, in its memory */
	int			 stale, from_cache, note;
	unsigned		 retry, at_once;	/* no search left */
	time_t			 age;	/* of a kept answer served stale */
	uint64_t		 version, now_b;
	unsigned long		 obs_taken;
	time_t			 now;
	char			 key[448], listed_iso[32];
	unsigned char		 inputs[16];
};

/* This host: the model in memory, within today's memory. 0, or -1 (rep). */
static int
api_scoped_self(struct api_scoped *x, const char *qkey, struct api_reply *rep)
{
	struct api_state	 hs;
	const char		*self_id = x->s->env.host->host_id;

	api_cfg(x->s, &x->cfg);
	if ((x->self = api_model_dup(x->s, &hs)) != NULL) {
		x->stale = hs.model_stale;
		x->version = hs.model_version;
		x->now_b = host_memory_budget(x->s->env.host,
		    x->cfg.memory_max, NULL);
		if (x->now_b > 0 && x->now_b < x->self->mem_budget)
			x->self->mem_budget = x->now_b;
	}
	snprintf(x->key, sizeof(x->key), "%s|%s|%s|%s", qkey, api_scope_name(
	    x->sc->kind), x->sc->kind == API_SCOPE_GROUP ? x->cfg.group : "",
	    x->sc->stack);
	if (x->sc->kind == API_SCOPE_GROUP && x->cfg.group[0] == '\0') {
		api_fail(rep, PROB_BAD_PARAM, "scope", "must be host or fleet "
		    "here: scope=group needs group = NAME in pwtuned.conf, and "
		    "this daemon has no group", NULL, 0);
		return -1;
	}
	if (x->self == NULL && x->sc->kind == API_SCOPE_HOST) {
		api_no_model(x->s, rep);
		return -1;
	}
	if (x->self == NULL)
		api_scope_exclude(&x->mb.set, self_id, "no finished run");
	else if (x->stale && x->sc->kind != API_SCOPE_HOST)
		api_scope_exclude(&x->mb.set, self_id, "stale: the host "
		    "changed since its last finished run");
	else
		api_scope_add(&x->mb.set, self_id, x->self,
		    x->s->env.host->cpu_model, 1);
	return 0;
}

/*
 * The other members, from the list of hosts: their models kept, with a
 * reference each; those not kept yet are in x->fresh, to fit. Under
 * f->lock. 0, or -1 (rep) when there is no list.
 */
static int
api_scoped_members(struct api_scoped *x, struct api_reply *rep)
{
	struct api_fleet	*f = x->f;
	struct api_fleet_model	*e, *nf;
	const struct db_host	*h;
	char			 err[512];
	size_t			 i;

	if (api_fleet_list(x->s, f, &x->from_cache, err, sizeof(err)) == -1) {
		api_fail(rep, PROB_STORE, NULL, "the store cannot be read, and "
		    "no list of hosts is kept yet", NULL, 5);
		return -1;
	}
	snprintf(x->listed_iso, sizeof(x->listed_iso), "%s", f->listed_iso);
	for (i = 0; i < f->nhosts && x->mb.set.n < FLEET_HOSTS_MAX; i++) {
		h = &f->hosts[i];
		if (api_scope_admit(&x->mb.set, h, x->s->env.host->host_id,
		    x->sc->kind == API_SCOPE_GROUP ? x->cfg.group : NULL,
		    x->now, x->cfg.fleet_max_age) != 1)
			continue;
		if ((e = api_model_take(f, h, &nf)) == NULL) {
			if ((e = nf) == NULL) {
				api_scope_exclude(&x->mb.set, h->id, "its "
				    "model cannot be read: out of memory");
				continue;
			}
			x->fresh[x->nfresh++] = nf;
		}
		x->mb.e[x->mb.set.n] = e;
		api_scope_add(&x->mb.set, e->host_id, &e->m, e->cpu_model, 0);
	}
	return 0;
}

/*
 * Models not kept yet: fitted without the lock, then kept; hosts whose
 * model cannot be read are left out (the reason in the log: no store
 * message in an answer anyone may ask for).
 */
static void
api_scoped_fit(struct api_scoped *x)
{
	struct api_members	*mb = &x->mb;
	struct db_host		 h;
	struct db		*db;
	enum db_status		 st;
	char			 err[512];
	size_t			 i;

	db = api_db(x->s, err, sizeof(err));
	for (i = 0; i < x->nfresh; i++) {
		memset(&h, 0, sizeof(h));
		snprintf(h.id, sizeof(h.id), "%s", x->fresh[i]->host_id);
		h.last_run = x->fresh[i]->run;
		st = DB_ERR_UNAVAILABLE;
		if (db != NULL)
			st = db_host_model(db, &h, &x->fresh[i]->m, err,
			    sizeof(err));
		if (st == DB_OK)
			continue;
		x->fresh[i]->m.run_id = 0;
		if (db != NULL)
			api_store_note(x->s, st, err);
		if (st != DB_ERR_UNAVAILABLE)
			api_log(x->s, API_LOG_WARN, "model of host %s: %s",
			    x->fresh[i]->host_id, err);
		api_scope_exclude(&mb->set, x->fresh[i]->host_id, "its model "
		    "cannot be read");
	}
	pthread_mutex_lock(&x->f->lock);
	for (i = 0; i < x->nfresh; i++)
		if (x->fresh[i]->m.run_id != 0)
			api_model_keep(x->f, x->fresh[i]);
	pthread_mutex_unlock(&x->f->lock);
	for (i = 0; i < mb->set.n; ) {
		if (mb->e[i] == NULL || mb->e[i]->m.run_id != 0) {
			i++;
			continue;
		}
		memmove(&mb->e[i], &mb->e[i + 1], (mb->set.n - i - 1) *
		    sizeof(mb->e[0]));
		api_scope_drop(&mb->set, i);
	}
}

/*
 * The answer computed, without the lock, from the members' references:
 * *j and *ret (fleet_recommend()'s, err with it); -1 with the problem in
 * rep; -2 when no search is left for it (x->retry: when to ask again).
 */
static int
api_scoped_compute(struct api_scoped *x, json_t **j, int *ret, char *err,
    size_t errlen, struct api_reply *rep)
{
	struct tune_query	 aim;
	json_t			*stack = NULL;
	double			 factor = 1;
	unsigned		 retry = 1, at_once;

	/* One HTTP thread at least stays free for the other requests. */
	at_once = x->cfg.threads > 1 ? x->cfg.threads - 1 : 1;
	if (x->sc->stack[0] != '\0')
		stack = api_stack(x->s, x->f, &x->mb, x->sc->stack, x->now,
		    &factor);
	if (fleet_aim(x->mb.set.h, x->mb.set.n, x->q, factor, &aim, err,
	    errlen) == -1 || (*ret = api_candidates(x->f, &x->mb, &aim,
	    at_once, &retry, err, errlen)) == -1 || (*ret == 0 && (*ret =
	    api_scope_answer(&x->mb.set, x->q, factor, &x->fa, err,
	    errlen)) == -1)) {
		json_decref(stack);
		api_fail(rep, PROB_POLICY, NULL, err, NULL, 0);
		return -1;
	}
	if (*ret == -2) {
		json_decref(stack);
		x->retry = retry;
		x->at_once = at_once;
		return -2;
	}
	*j = api_scope_json(&x->mb.set, &x->fa, api_scope_name(x->sc->kind),
	    x->sc->kind == API_SCOPE_GROUP ? x->cfg.group : NULL,
	    x->sc->kind == API_SCOPE_HOST && x->stale);
	if (stack != NULL) {
		json_t	*applied = json_object_get(stack, "applied");

		/*
		 * The stack it holds for, as stack='s answers say it, and
		 * how: its services' observations, or this host's library
		 * curve alone when they did not correct it (a group's or the
		 * fleet's: each host's, said by hosts[]).
		 */
		json_object_set_new(*j, "for", json_string(x->sc->stack));
		if (json_is_true(applied))
			json_object_set_new(*j, "how",
			    json_string("observations"));
		else if (x->sc->kind == API_SCOPE_HOST)
			json_object_set_new(*j, "how",
			    json_string("library measured here"));
		json_object_set_new(*j, "stack", stack);
	}
	return 0;
}

/*
 * The answer kept for this question and these inputs: 1 with *body (a
 * copy), *ret and err (x->age its age in seconds); or 0, counted as
 * computed. stale: no search is left for the question, so one up to
 * API_FLEET_STALE_S old is taken, rather than a 429 to a client that asks
 * what it asked before (a fresh one kept meanwhile by another request
 * too); the asking was counted as computed when it was missed: it is not.
 */
static int
api_scoped_take(struct api_scoped *x, int stale, char **body, int *ret,
    char *err, size_t errlen)
{
	struct api_fleet_answer	*kept;
	int			 hit;

	pthread_mutex_lock(&x->f->lock);
	kept = api_fleet_answer(x->f, x->key, x->inputs, x->now, &hit);
	if ((hit == 1 || (stale && hit == 2)) && (*body =
	    strdup(kept->body)) != NULL) {
		if (stale)
			x->f->computed -= x->f->computed > 0;
		x->f->cached++;
		kept->asks += kept->asks < UINT_MAX;
		*ret = kept->ret;
		snprintf(err, errlen, "%s", kept->err);
		x->age = x->now - kept->made;
		hit = 1;
	} else {
		if (!stale)
			x->f->computed++;
		hit = 0;
	}
	pthread_mutex_unlock(&x->f->lock);
	return hit;
}

/*
 * A kept answer's text, ready to send: 1 as it is (*body), or parsed into
 * *j (*body freed) when the reply adds to it; 0 when it cannot be parsed.
 */
static int
api_scoped_ready(const struct api_scoped *x, int ret, char **body,
    json_t **j)
{
	if (ret == 0 && !x->note)
		return 1;
	if ((*j = json_loads(*body, 0, NULL)) == NULL)
		return 0;
	free(*body);
	*body = NULL;
	return 1;
}

/* Keep the answer body (JSON text) for the same question. */
static void
api_scoped_keep(struct api_scoped *x, const char *body, int ret,
    const char *err)
{
	struct api_fleet_answer	*kept;
	int			 hit;

	pthread_mutex_lock(&x->f->lock);
	kept = api_fleet_answer(x->f, x->key, x->inputs, x->now, &hit);
	if (kept->body == NULL || strcmp(kept->key, x->key) != 0)
		kept->asks = 0;		/* another question's slot */
	free(kept->body);
	kept->body = body != NULL ? strdup(body) : NULL;
	snprintf(kept->key, sizeof(kept->key), "%s", x->key);
	memcpy(kept->inputs, x->inputs, sizeof(kept->inputs));
	kept->made = x->now;
	kept->ret = ret;
	snprintf(kept->err, sizeof(kept->err), "%s", ret == 1 ? err : "");
	pthread_mutex_unlock(&x->f->lock);
}

/* The answer to send: j (taken), or its text when nothing is added. */
static int
api_scoped_reply(struct api_scoped *x, json_t *j, char *body, int ret,
    const char *err, struct api_reply *rep)
{
	if (ret == 0 && !x->note && body != NULL) {
		json_decref(j);
		return api_ok_text(rep, 200, body, NULL);
	}
	free(body);
	if (j == NULL)
		return -1;
	/* Hosts as last read: the answer says so when the store is away. */
	if (x->note)
		json_object_set_new(j, "store", json_pack("{s:b, s:s}",
		    "reachable", 0, "hosts_as_of", x->listed_iso));
	if (ret == 1)
		return api_fail(rep, PROB_POLICY, "target_ms", err, json_pack(
		    "{s:o}", "closest", j), 0);
	return api_ok(rep, 200, j, NULL);
}

/* Let go of what x holds: the members' models kept, or freed. */
static void
api_scoped_free(struct api_scoped *x)
{
	size_t	i;

	pthread_mutex_lock(&x->f->lock);
	for (i = 0; i < x->nfresh; i++)
		if (x->fresh[i]->m.run_id == 0)	/* left out: not in mb */
			api_model_put(x->fresh[i]);
	for (i = 0; i < x->mb.set.n; i++)
		api_model_put(x->mb.e[i]);
	pthread_mutex_unlock(&x->f->lock);
	json_decref(x->mb.set.excluded);
	free(x->self);
	free(x);
}

int
api_recommend_scoped(struct api_server *s, const struct tune_query *q,
    const char *qkey, const struct api_scope *sc, struct api_reply *rep)
{
	struct api_fleet	*f = api_fleet(s);
	struct api_scoped	*x;
	json_t			*j = NULL;
	char			 err[512], why[256], *body = NULL;
	int			 ret = 0, rc;

	if (f == NULL || (x = calloc(1, sizeof(*x))) == NULL)
		return -1;
	x->s = s;
	x->f = f;
	x->sc = sc;
	/*
	 * A catalogue stack's own limits, as stack_recommend() keeps them
	 * for this host: its least t, p = 1, the most m its runtime hashes
	 * at (Java's heap bound).
	 */
	x->qs = *q;
	stack_query_limits(stack_find(sc->stack), &x->qs);
	/* stack=NAME's own answer: no advice aimed at other stacks. */
	x->qs.stack_named = sc->stack[0] != '\0';
	x->q = &x->qs;
	x->now = time(NULL);
	x->mb.set.excluded = json_array();
	if (api_scoped_self(x, qkey, rep) == -1)
		goto out;
	pthread_mutex_lock(&f->lock);
	rc = sc->kind != API_SCOPE_HOST ? api_scoped_members(x, rep) : 0;
	x->obs_taken = f->obs_taken;
	pthread_mutex_unlock(&f->lock);
	if (rc == -1)
		goto out;
	if (x->nfresh > 0)
		api_scoped_fit(x);
	if (x->mb.set.n == 0) {
		snprintf(why, sizeof(why), "no host of %s%s has a fresh "
		    "finished run", sc->kind == API_SCOPE_GROUP ? "group " :
		    "the fleet", sc->kind == API_SCOPE_GROUP ? x->cfg.group :
		    "");
		api_fail(rep, PROB_NOT_READY, NULL, why, json_pack("{s:O}",
		    "excluded", x->mb.set.excluded), 10);
		goto out;
	}
	api_fleet_inputs(x->obs_taken, &x->mb, x->version, x->now_b, x->stale,
	    x->inputs);
	x->note = sc->kind != API_SCOPE_HOST && (x->from_cache ||
	    !api_store_up(s, why, sizeof(why)));
	if (api_scoped_take(x, 0, &body, &ret, err, sizeof(err)) &&
	    api_scoped_ready(x, ret, &body, &j))
		goto answer;
	free(body);
	body = NULL;
	if ((rc = api_scoped_compute(x, &j, &ret, err, sizeof(err), rep)) ==
	    -2) {
		/*
		 * No search left (others' new questions took them): a
		 * question asked before gets its last answer (Age says how
		 * old), a new one 429.
		 */
		if (api_scoped_take(x, 1, &body, &ret, err, sizeof(err))) {
			snprintf(why, sizeof(why), "%lld",
			    (long long)x->age);
			api_reply_header(rep, "Age", why);
			if (api_scoped_ready(x, ret, &body, &j))
				goto answer;
			free(body);
			api_scoped_free(x);
			return -1;	/* out of memory */
		}
		snprintf(why, sizeof(why), "scoped answers to new questions "
		    "are searched on at most %d hosts a second here, %u "
		    "question%s at a time: ask again later (an answer is kept "
		    "%d s for the same question)", API_FLEET_SEARCH_RATE,
		    x->at_once, x->at_once == 1 ? "" : "s", API_FLEET_LIST_S);
		api_fail(rep, PROB_TOO_MANY, NULL, why, NULL, x->retry);
		goto out;
	}
	if (rc == -1)
		goto out;
	/* As api_ok(rep) would write it: the kept answer is sent as it is. */
	body = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
	api_scoped_keep(x, body, ret, err);
answer:
	rc = api_scoped_reply(x, j, body, ret, err, rep);
	api_scoped_free(x);
	return rc;
out:
	api_scoped_free(x);
	return 0;
}

/* One token of the observation bucket: 1, 0 (429), -1 (no memory). */
int
api_fleet_obs_token(struct api_server *s, unsigned *retry)
{
	struct api_fleet	*f = api_fleet(s);
	int			 ok;

	if (f == NULL)
		return -1;
	pthread_mutex_lock(&f->lock);
	api_bucket_refill(&f->tokens, &f->refilled, API_OBS_RATE,
	    API_OBS_BURST);
	ok = f->tokens >= 1;
	if (ok)
		f->tokens -= 1;
	pthread_mutex_unlock(&f->lock);
	*retry = 1;
	return ok;
}

/* An observation of stack was stored here: answers kept are computed again. */
void
api_fleet_observed(struct api_server *s, const char *stack)
{
	struct api_fleet	*f = api_fleet(s);
	size_t			 i;

	if (f == NULL)
		return;
	pthread_mutex_lock(&f->lock);
	f->obs_taken++;
	for (i = 0; i < API_FLEET_STACKS; i++)
		if (f->stacks[i] != NULL &&
		    strcmp(f->stacks[i]->name, stack) == 0)
			f->stacks[i]->gone = 1;
	pthread_mutex_unlock(&f->lock);
}
