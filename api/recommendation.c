/*
 * api/recommendation.c: GET /v1/recommendation for this host, from the
 * model in memory, and GET /v1/presets. Answers are kept per model and
 * query (API_CACHE_SLOTS) with an ETag. stack= of a stack the model
 * knows is answered here (stack_recommend), the default answer lists
 * every stack's (stacks.c); scope=, and stack= of a name only the
 * store's observations know yet, go to fleet.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "api_impl.h"
#include "check.h"
#include "presets.h"
#include "stack.h"

/*
 * An answer copied out of the cache, or computed and kept there. The copy
 * is taken under the same lock that found or filled the slot: another
 * question may take the slot the moment the lock is dropped.
 */
struct api_answer_copy {
	char		*body;
	char		 etag[API_ETAG_LEN];
	int		 status;
	long long	 age;		/* s: a kept answer served past the
					   budget; -1: none */
	unsigned	 retry;		/* s, when none could be made */
	const char	*unmeasured;	/* API_UNMEASURED: the parameter */
};

static int
api_answer_take(struct api_cached *slot, struct api_answer_copy *out)
{
	if ((out->body = strdup(slot->body)) == NULL)
		return -1;
	snprintf(out->etag, sizeof(out->etag), "%s", slot->etag);
	out->status = slot->status;
	return 0;
}

/*
 * The ETag of an answer: what it depends on, so that it changes whenever
 * the body does, across restarts too. The run the model was fitted to, and
 * a hash of the body itself (which holds the query it answers, the model's
 * figures and the status the host is in).
 */
static void
api_answer_etag(int64_t run, int status, const char *body, char *etag,
    size_t etaglen)
{
	uint8_t	h[12];
	char	hex[2 * sizeof(h) + 1];

	crypto_generichash(h, sizeof(h), (const uint8_t *)body, strlen(body),
	    (const uint8_t *)&status, sizeof(status));
	sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
	snprintf(etag, etaglen, "\"r%lld-%s\"", (long long)run, hex);
}

/* What api_answer() asks under the host's lock, and what it gets. */
struct api_answer_arg {
	struct api_server		*s;
	const struct tune_query		*q;
	const char			*stack;		/* NULL: the default */
	const char			*key;
	uint64_t			 memory_max;
	struct api_answer_copy		*out;
	char				*err;
	size_t				 errlen;
	struct api_cached		*slot;
	json_t				*j;
	uint64_t			 version;
	int64_t				 run;
	int				 no_model, hit, rc, stale;
	const char			*unmeasured;	/* the parameter no
							   curve answers
							   (stack_unmeasured:
							   "stack" its library) */
	int				 not_in_model;	/* a->stack */
	/* The query as answered (memory capped), what checks found. */
	struct tune_query		 qq;
	struct check_state		 cs;
	int				 checked;	/* env.checked's */
	char				 checked_at[32];
	/* Each stack's own question's correction, for the other stacks'
	   answers an answer lists (the default's stacks, the snippets). */
	struct api_stack_corrections	 corr;
};

/*
 * The corrections the checks found for q asked of every stack of the
 * catalogue (the default answer lists each stack's answer as stack=NAME
 * gives it): 0, or -1 when one was read under another model version than
 * version.
 */
static int
api_answer_stack_corrections(struct api_server *s, const struct tune_query *q,
    uint64_t version, struct api_stack_corrections *corr)
{
	const struct stack_def	*all;
	struct check_state	 cs;
	struct tune_query	 sq;
	uint64_t		 v;
	size_t			 n, i;

	memset(corr, 0, sizeof(*corr));
	all = stack_catalogue(&n);
	for (i = 0; i < n && i < MODEL_STACKS_MAX; i++) {
		/*
		 * stack=NAME's question as api_parse_query keeps it, without
		 * a backend: a stack's entry hashes through its own library
		 * whatever backend the default answer was asked with
		 * (stack_recommend), so it is stack=NAME's answer, corrected
		 * as that one is.
		 */
		sq = *q;
		sq.backend = KDF_BACKEND_AUTO;
		v = version;
		if (s->env.checked(s->env.ctx, &sq, all[i].name, &cs, NULL, 0,
		    &v) == 1)
			corr->c[i] = cs.c;
		if (v != version)
			return -1;
	}
	return 0;
}

/*
 * A poor model's note on an answer met and measured at exactly its
 * parameters within its target (by the run's verification or the
 * checks): the measurement, not the model, says it holds; the advice to
 * treat its times as rough is for the answers not measured.
 */
static void
api_answer_poor_measured(json_t *j, const struct model *m,
    const struct tune_answer *ta, double measured_ms, const char *by)
{
	json_t	*notes, *n;
	char	 poor[MODEL_QUALITY_WHY + 160];
	size_t	 i;

	if (!ta->met || !(measured_ms > 0) || measured_ms > ta->target_ms ||
	    !tune_quality_note(m, poor, sizeof(poor)) ||
	    (notes = json_object_get(j, "notes")) == NULL ||
	    !json_is_array(notes))
		return;
	json_array_foreach(notes, i, n) {
		if (!json_is_string(n) || strcmp(json_string_value(n), poor) !=
		    0)
			continue;
		json_array_set_new(notes, i, json_sprintf(TUNE_POOR_SAID
		    "%s. This answer was measured at exactly these parameters "
		    "here (%.1f ms at p%d, %.2f of the target, by %s): it "
		    "holds here. Answers not measured are rough; measure again "
		    "(pwtune bench --db STORE, or POST /v1/runs) on a quiet "
		    "host.", m->quality_why, measured_ms, ta->percentile,
		    measured_ms / ta->target_ms, by));
		break;
	}
}

/* What the checks measured of the answer (daemon/checks.c): verified. */
static void
api_answer_checked(json_t *j, const struct model *m,
    const struct api_answer_arg *a, const struct tune_answer *ta,
    const struct api_state *st)
{
	const struct check_state	*cs = &a->cs;
	const struct check_verified	*v = NULL;
	json_t				*notes, *note;
	int				 measured;

	if (j == NULL || a->s->env.checked == NULL)
		return;
	/*
	 * An answer the host does not check (a client runtime not probed
	 * here, or at concurrency over 1): predicted only, and said.
	 */
	if (a->checked < 0) {
		json_object_set_new(j, "verified", json_null());
		if ((notes = json_object_get(j, "notes")) != NULL &&
		    json_is_array(notes))
			json_array_append_new(notes, json_string("Not "
			    "measured by this host's background checks: a "
			    "client runtime's answer is checked by its probe, "
			    "at concurrency 1, when its probe ran here; this "
			    "one is predicted only."));
		return;
	}
	measured = a->checked == 1 && cs->m_kib == ta->m_kib &&
	    cs->t == ta->t && cs->p == ta->p && cs->k == ta->k &&
	    cs->measured_ms > 0;
	if (measured)
		json_object_set_new(j, "verified", json_pack("{s:f, s:i, s:I, "
		    "s:I, s:s, s:b, s:f, s:s}", "measured_ms", cs->measured_ms,
		    "percentile", ta->percentile, "samples",
		    (json_int_t)cs->samples, "checks", (json_int_t)(
		    cs->nmeasured > 0 ? cs->nmeasured : 1), "at",
		    a->checked_at, "in_band", check_in_band(cs->measured_ms,
		    ta->target_ms), "correction", cs->c, "by", "check"));
	if (measured)
		api_answer_poor_measured(j, m, ta, cs->measured_ms,
		    "the background checks");
	else if ((v = check_verified_find(st->verified, st->nverified,
	    st->model_run, stack_checked_as(m, a->stack), ta)) != NULL) {
		/* Not checked yet: what the run's verification measured. */
		measured = 1;
		json_object_set_new(j, "verified", json_pack("{s:f, s:i, s:I, "
		    "s:I, s:s, s:b, s:f, s:s}", "measured_ms", v->measured_ms,
		    "percentile", ta->percentile, "samples",
		    (json_int_t)v->samples, "checks", (json_int_t)1, "at",
		    v->at, "in_band", check_in_band(v->measured_ms,
		    ta->target_ms), "correction", cs->c, "by", "verification"));
		api_answer_poor_measured(j, m, ta, v->measured_ms,
		    "the run's verification");
	} else
		json_object_set_new(j, "verified", json_null());
	/* Its last check measured nothing: the answer says why. */
	if (a->checked == 1 && cs->unmeasured[0] != '\0' &&
	    (notes = json_object_get(j, "notes")) != NULL &&
	    json_is_array(notes) && (note = json_sprintf("Not measured by "
	    "this host's background checks since %s: %s; they try again "
	    "after check_interval (an hour by default).%s",
	    cs->unmeasured_at, cs->unmeasured, !measured ? " This answer "
	    "is predicted only." : v != NULL ? " verified is what the last "
	    "run's verification measured." : " verified is what they "
	    "measured before.")) != NULL)
		json_array_append_new(notes, note);
}

/*
 * A run measuring the host now: hashes timed meanwhile share the CPUs with
 * it (a user who times the answer at once would find it slow). The run's
 * start and end bump model_version, so that no answer kept says it after.
 */
static void
api_answer_measuring(json_t *j, const struct api_state *st)
{
	json_t	*notes;
	char	 buf[320];

	if (j == NULL || st->running_run == 0 ||
	    (notes = json_object_get(j, "notes")) == NULL ||
	    !json_is_array(notes))
		return;
	snprintf(buf, sizeof(buf), "Run %lld is measuring this host now: "
	    "hashes timed before it ends share the CPUs with it and take "
	    "longer than they will, and a stack it has not probed yet is "
	    "answered from its library until then (GET /v1/runs/%lld).",
	    (long long)st->running_run, (long long)st->running_run);
	json_array_append_new(notes, json_string(buf));
}

/*
 * A kept answer asked for: counted once a window of API_ASK_WINDOW_S
 * seconds (its first asking again always), so that its count says for
 * how long it has been asked, not how often: a client asking its own
 * questions again and again in a loop would otherwise outcount a
 * service's and push its answer out (to outcount one asked in n minutes,
 * a question must be asked in more, and be kept meanwhile). Under the
 * server's lock.
 */
static void
api_slot_asked(struct api_cached *slot)
{
	time_t	w = time(NULL) / API_ASK_WINDOW_S;

	if (w != slot->asked_win && slot->asks < UINT_MAX) {
		slot->asked_win = w;
		slot->asks++;
	}
}

/*
 * The cache slot of a->key, under the server's lock: of its two (placed
 * by a hash keyed with the server's random key, so that no client can
 * aim at another question's), the one holding it, else an empty one,
 * else the one asked in fewer windows, the newer of two alike: new
 * questions asked in a loop push out each other, not a question asked
 * for longer.
 */
static void
api_answer_slot(struct api_answer_arg *a)
{
	struct api_server	*s = a->s;
	struct api_cached	*x, *y;
	uint8_t			 h[8];
	size_t			 i;

	if (a->slot != NULL && a->slot->body != NULL &&
	    strcmp(a->slot->key, a->key) == 0)
		return;
	crypto_generichash(h, sizeof(h), (const uint8_t *)a->key,
	    strlen(a->key), s->cache_key, sizeof(s->cache_key));
	i = (h[0] | h[1] << 8) % API_CACHE_SLOTS;
	x = &s->cache[i];
	y = &s->cache[(i + 1 + (h[2] | h[3] << 8) % (API_CACHE_SLOTS - 1)) %
	    API_CACHE_SLOTS];
	if (x->body != NULL && strcmp(x->key, a->key) == 0)
		a->slot = x;
	else if (y->body != NULL && strcmp(y->key, a->key) == 0)
		a->slot = y;
	else if (x->body == NULL || y->body == NULL)
		a->slot = x->body == NULL ? x : y;
	else
		a->slot = x->asks < y->asks || (x->asks == y->asks &&
		    x->since >= y->since) ? x : y;
}

/*
 * The answer kept for a->key under a->version and the memory cap of now
 * (a->qq): 1 (a->hit, a->rc, the copy in a->out), else 0 (a->slot where
 * it would go as of now: api_answer() finds it again when it keeps one).
 */
static int
api_answer_lookup(struct api_answer_arg *a)
{
	struct api_server	*s = a->s;

	pthread_mutex_lock(&s->lock);
	api_answer_slot(a);
	if (a->slot->body != NULL && a->slot->version == a->version &&
	    a->slot->cap_kib == a->qq.memory_max_kib &&
	    strcmp(a->slot->key, a->key) == 0) {
		a->hit = 1;
		a->rc = api_answer_take(a->slot, a->out);
		api_slot_asked(a->slot);
	}
	pthread_mutex_unlock(&s->lock);
	return a->hit;
}

/*
 * An answer to make: 1, taken from the budget (api_answer_done() after),
 * or 0 with *retry (s) when the bucket is empty, or *at_once answers are
 * made now (as many as there may be) and half the burst is spent.
 */
static int
api_answer_budget(struct api_server *s, unsigned *retry, unsigned *at_once)
{
	int	ok;

	pthread_mutex_lock(&s->lock);
	*at_once = s->cfg.threads > 1 ? s->cfg.threads - 1 : 1;
	api_bucket_refill(&s->answer_tokens, &s->answer_refilled,
	    API_ANSWER_RATE, API_ANSWER_BURST);
	/*
	 * At most *at_once at a time once half the burst is spent (a
	 * sustained stream of new questions): before, services starting
	 * together all get theirs made.
	 */
	ok = s->answer_tokens >= 1 && (s->answering < *at_once ||
	    s->answer_tokens >= API_ANSWER_BURST / 2);
	if (ok) {
		s->answer_tokens -= 1;
		s->answering++;
	} else
		*retry = 1;
	pthread_mutex_unlock(&s->lock);
	return ok;
}

static void
api_answer_done(struct api_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->answering--;
	pthread_mutex_unlock(&s->lock);
}

/*
 * Past the budget: the answer kept for the same question under an older
 * model (and the memory cap of now), if its slot still holds it: 1 with
 * the copy and its age in a->out, else 0.
 */
static int
api_answer_older(struct api_answer_arg *a)
{
	struct api_server	*s = a->s;

	pthread_mutex_lock(&s->lock);
	api_answer_slot(a);
	if (a->slot->body != NULL && a->slot->cap_kib ==
	    a->qq.memory_max_kib && strcmp(a->slot->key, a->key) == 0) {
		a->hit = 1;
		a->rc = api_answer_take(a->slot, a->out);
		a->out->age = (long long)(time(NULL) - a->slot->made);
		if (a->out->age < 0)
			a->out->age = 0;
		api_slot_asked(a->slot);
	}
	pthread_mutex_unlock(&s->lock);
	return a->hit;
}

/*
 * Is an asking to be told to env.asked? Every answer made, and a kept one
 * until it was told twice in the same second: the checks count askings up
 * to two and note the second of the last (daemon/checks.c), and a question
 * asked thousands of times a second costs one call a second, not each.
 */
static int
api_answer_tell(struct api_answer_arg *a)
{
	struct api_server	*s = a->s;
	time_t			 now;
	int			 tell = 1;

	if (!a->hit)
		return 1;
	now = time(NULL);
	pthread_mutex_lock(&s->lock);
	if (strcmp(a->slot->key, a->key) == 0) {
		if (a->slot->told != now) {
			a->slot->told = now;
			a->slot->ntold = 0;
		}
		if (a->slot->ntold >= 2)
			tell = 0;
		else
			a->slot->ntold++;
	}
	pthread_mutex_unlock(&s->lock);
	return tell;
}

/*
 * Under the host's lock: the answer kept (then a->hit), or computed from
 * the model in use (a->rc, a->j). The cache is looked up under the
 * server's lock, inside: the lock order is host -> server.
 */
static void
api_answer_locked(const struct model *m, const struct api_state *st,
    void *arg)
{
	struct api_answer_arg	*a = arg;
	struct tune_answer	 ta;
	struct tune_query	 qq;
	double			 model_ms;

	if (m == NULL) {
		a->no_model = 1;
		return;
	}
	a->version = st->model_version;
	a->run = st->model_run;
	/*
	 * A name only observations know is the fleet path's (fleet.c): it
	 * reads them from the store at once, where the model takes them in
	 * only when the runner is next idle.
	 */
	if (a->stack != NULL && stack_find(a->stack) == NULL) {
		a->not_in_model = 1;
		return;
	}
	if (api_answer_lookup(a))
		return;
	/* The correction its checks found (1: none). */
	qq = a->qq;
	if (a->stack != NULL) {
		a->rc = check_answer(m, a->stack, &qq, a->cs.c, &ta, &model_ms,
		    a->err, a->errlen);
		if (a->rc == -1) {
			/* Its library not measured: a run's wait, or 422;
			   another parameter's: 422 naming it. */
			a->unmeasured = stack_unmeasured(m, a->stack, &qq);
			return;
		}
		a->j = api_stack_answer_json(m, a->stack, &qq, &ta, &a->corr);
	} else {
		/*
		 * The default answer is its stack's (corrected if measured);
		 * an explicit backend or p, tune's (check_answer decides).
		 */
		a->rc = check_answer(m, NULL, &qq, a->cs.c, &ta, &model_ms,
		    a->err, a->errlen);
		if (a->rc == -1) {
			/* No curve answers it: what asked for it. */
			a->unmeasured = stack_unmeasured(m, NULL, &qq);
			return;
		}
		/* Every stack's answer too: searched under the same lock. */
		if ((a->j = tune_answer_to_json(&ta, m)) != NULL)
			api_stacks_add(a->j, m, &qq, &ta, &a->corr,
			    "stack=");
	}
	api_answer_checked(a->j, m, a, &ta, st);
	api_answer_measuring(a->j, st);
	a->stale = st->model_stale;
}

/* Why api_answer() found no answer. */
enum api_no_answer {
	API_ANSWERED,
	API_BUSY,		/* past the budget of answers made */
	API_NO_MODEL,		/* no model yet */
	API_NO_BASE,		/* the stack's base curve is not measured */
	API_NOT_IN_MODEL,	/* a stack only the store's observations know */
	API_UNMEASURED,		/* no curve of out->unmeasured asked */
	API_NOT_MET		/* err says why */
};

/*
 * Compute an answer of stack (NULL: the default one, with every stack's),
 * or find it in the cache: 0 with a copy in out, -1 with why in *no
 * (and err).
 */
static int
api_answer(struct api_server *s, const struct tune_query *q,
    const char *stack, const char *key, struct api_answer_copy *out,
    char *err, size_t errlen, enum api_no_answer *no)
{
	struct api_answer_arg	 a;
	struct api_cached	*slot;
	json_t			*j;
	char			*body;
	uint64_t		 now_kib, checked_version;
	unsigned		 retry = 1, at_once = 1;
	int			 tries, nokeep = 0, moved, budgeted = 0;
	int			 have_model;

	memset(&a, 0, sizeof(a));
	a.s = s;
	a.q = q;
	a.stack = stack;
	a.key = key;
	a.out = out;
	a.err = err;
	a.errlen = errlen;
	out->age = -1;
	out->retry = 0;
	pthread_mutex_lock(&s->lock);
	a.memory_max = s->cfg.memory_max;
	pthread_mutex_unlock(&s->lock);
	/*
	 * Never more memory than this host has now (as probed at start: a
	 * cgroup may be smaller than when the model's run was measured).
	 */
	a.qq = *q;
	now_kib = host_memory_budget(s->env.host, a.memory_max, NULL) / 1024;
	if (now_kib > 0 && (a.qq.memory_max_kib == 0 ||
	    a.qq.memory_max_kib > now_kib))
		a.qq.memory_max_kib = now_kib;
	/*
	 * A kept answer first, found by the model's version alone: it was
	 * made under that version with the corrections of then, and every
	 * check moves the version. So the checks' state (eleven holds of the
	 * daemon's lock) and the host's state copied under it are read only
	 * for an answer to make.
	 */
	have_model = s->env.model_version == NULL ||
	    s->env.model_version(s->env.ctx, &a.version) == 1;
	if (s->env.model_version != NULL && have_model)
		(void)api_answer_lookup(&a);
	/*
	 * An answer to make takes one of the budget's; past it, the answer
	 * kept for the same question under an older model is served (Age
	 * says how old), and a question never answered is 429. Not before
	 * there is a model, nor for a name only observations know: those
	 * search nothing here (503; the fleet path, with its own budget).
	 */
	if (!a.hit && have_model && (stack == NULL ||
	    stack_find(stack) != NULL) &&
	    !(budgeted = api_answer_budget(s, &retry, &at_once)) &&
	    !api_answer_older(&a)) {
		out->retry = retry;
		*no = API_BUSY;
		snprintf(err, errlen, "answers to new questions are made at "
		    "most %d a second here, %u at a time: ask again in %u "
		    "s (a question asked before is answered from the "
		    "answer kept for it)", API_ANSWER_RATE, at_once, retry);
		return -1;
	}
	/*
	 * The correction is read, then the answer made, under two holds of
	 * the host's lock: a refit or a check in between (model_version
	 * moved) would pair the new model with the old correction. Made
	 * again then; after API_ANSWER_TRIES, answered but not kept.
	 */
	for (tries = 1; !a.hit && !a.no_model && !a.not_in_model; tries++) {
		check_state_init(&a.cs);
		a.checked = 0;
		checked_version = 0;
		memset(&a.corr, 0, sizeof(a.corr));
		moved = 0;
		if (s->env.checked != NULL) {
			a.checked = s->env.checked(s->env.ctx, &a.qq, stack,
			    &a.cs, a.checked_at, sizeof(a.checked_at),
			    &checked_version);
			/* Every stack's, for the others' answers. */
			moved = api_answer_stack_corrections(s, &a.qq,
			    checked_version, &a.corr) == -1;
		}
		s->env.with_model(s->env.ctx, api_answer_locked, &a);
		if (s->env.checked == NULL || a.no_model || a.not_in_model ||
		    a.hit || (checked_version == a.version && !moved))
			break;
		if (tries == API_ANSWER_TRIES) {
			nokeep = 1;
			break;
		}
		json_decref(a.j);
		a.j = NULL;
		a.rc = 0;
		a.unmeasured = NULL;
	}
	if (budgeted)
		api_answer_done(s);
	if (s->env.asked != NULL && !a.no_model && !a.not_in_model &&
	    api_answer_tell(&a))
		s->env.asked(s->env.ctx, &a.qq, stack);
	*no = API_NOT_MET;
	if (a.no_model || a.not_in_model) {
		*no = a.no_model ? API_NO_MODEL : API_NOT_IN_MODEL;
		return -1;
	}
	if (a.hit) {
		if (a.rc == -1)
			snprintf(err, errlen, "out of memory");
		return a.rc;
	}
	if (a.rc == -1) {
		if (a.unmeasured != NULL) {
			*no = strcmp(a.unmeasured, "stack") == 0 ? API_NO_BASE :
			    API_UNMEASURED;
			out->unmeasured = a.unmeasured;
		}
		return -1;
	}
	if ((j = a.j) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_object_set_new(j, "stale", json_boolean(a.stale));
	if (a.rc == 1) {
		/* 422: the closest admissible answer comes with the error. */
		j = json_pack("{s:o, s:s}", "closest", j, "error", err);
	}
	body = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(j);
	if (body == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	out->body = body;
	out->status = a.rc == 1 ? 422 : 200;
	api_answer_etag(a.run, out->status, body, out->etag,
	    sizeof(out->etag));
	/*
	 * Kept for the next asker, unless a newer model came meanwhile (in
	 * its slot as of now: another thread may have placed another
	 * question there since).
	 */
	pthread_mutex_lock(&s->lock);
	a.slot = NULL;
	api_answer_slot(&a);
	slot = a.slot;
	if (!nokeep && (slot->body == NULL || strcmp(slot->key, key) != 0 ||
	    slot->version <= a.version)) {
		char	*kept;

		if ((kept = strdup(body)) != NULL) {
			/*
			 * A new question: asked once (its first asking
			 * again counts, whenever it comes). One kept again
			 * keeps its count.
			 */
			if (slot->body == NULL || strcmp(slot->key, key) != 0) {
				slot->asks = 1;
				slot->asked_win = 0;
				slot->since = ++s->cache_seq;
			} else
				api_slot_asked(slot);
			free(slot->body);
			slot->body = kept;
			snprintf(slot->key, sizeof(slot->key), "%s", key);
			slot->version = a.version;
			slot->cap_kib = a.qq.memory_max_kib;
			slot->made = time(NULL);
			slot->status = out->status;
			slot->told = time(NULL);	/* told above */
			slot->ntold = 1;
			snprintf(slot->etag, sizeof(slot->etag), "%s",
			    out->etag);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

void
api_default_question(struct api_server *s, struct tune_query *q,
    const char *stack, struct check_state *cs, uint64_t *version)
{
	if (version != NULL)
		*version = 0;
	tune_query_init(q);
	pthread_mutex_lock(&s->lock);
	q->memory_max_kib = host_memory_budget(s->env.host, s->cfg.memory_max,
	    NULL) / 1024;
	pthread_mutex_unlock(&s->lock);
	check_state_init(cs);
	if (s->env.checked != NULL && s->env.checked(s->env.ctx, q, stack, cs,
	    NULL, 0, version) != 1)
		check_state_init(cs);
}

/*
 * Is name a stack answers are given for: one of the catalogue, or one
 * the store has observations of (of host_id; NULL: of any host)? 0, or
 * -1 with the problem in rep (400 naming stack and listing the known
 * names; 503 when the store cannot tell).
 */
static int
api_stack_known(struct api_server *s, const char *name, const char *host_id,
    struct api_reply *rep)
{
	struct db_observation	*obs = NULL;
	struct db		*db;
	enum db_status		 dst = DB_ERR_UNAVAILABLE;
	size_t			 n = 0;
	char			 err[512], names[512], why[1024], meant[160];

	if (stack_find(name) != NULL)
		return 0;
	if ((db = api_db(s, err, sizeof(err))) != NULL)
		dst = db_observations_list(db, host_id, name, 1, &obs, &n, err,
		    sizeof(err));
	api_store_note(s, dst, err);
	free(obs);
	if (dst == DB_OK && n > 0)
		return 0;
	if (dst != DB_OK && dst != DB_ERR_NOTFOUND) {
		api_store_fail(s, rep, dst, 0, "stack", NULL);
		return -1;
	}
	stack_names(names, sizeof(names));
	stack_suggest_text(name, meant, sizeof(meant));
	snprintf(why, sizeof(why), "unknown stack %s%s: known are %s, or a "
	    "name with observations posted to /v1/observations", name, meant,
	    names);
	api_fail(rep, PROB_BAD_PARAM, "stack", why, NULL, 0);
	return -1;
}

int
h_recommendation(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct tune_query	 q;
	struct api_scope	 sc;
	struct api_answer_copy	 ans;
	const char		*inm;
	char			 key[160], ckey[256], err[512];
	int			 rc;
	enum api_no_answer	 no;

	(void)r;
	(void)arg;
	if (api_parse_query(c, &q, &sc, key, sizeof(key), rep) == -1)
		return 0;
	if (sc.stack[0] != '\0' && api_stack_known(s, sc.stack,
	    sc.kind == API_SCOPE_HOST ? s->env.host->host_id : NULL, rep) ==
	    -1)
		return 0;
	/* Other hosts: answered in fleet.c. */
	if (sc.kind != API_SCOPE_HOST)
		return api_recommend_scoped(s, &q, key, &sc, rep);
	snprintf(ckey, sizeof(ckey), "%s|%s", key, sc.stack);
	if (api_answer(s, &q, sc.stack[0] != '\0' ? sc.stack : NULL, ckey,
	    &ans, err, sizeof(err), &no) == -1) {
		switch (no) {
		case API_BUSY:
			return api_fail(rep, PROB_TOO_MANY, NULL, err, NULL,
			    ans.retry);
		case API_NO_MODEL:
			return api_no_model(s, rep);
		case API_NOT_IN_MODEL:
			/*
			 * Observations of it are stored, and the model has
			 * not taken them in yet: their correction, read
			 * from the store (fleet.c).
			 */
			return api_recommend_scoped(s, &q, key, &sc, rep);
		case API_NO_BASE: {
			struct api_state	hs;
			size_t			n;

			/* A run measures it now: not ready, not refused. */
			api_state(s, &hs);
			if (hs.running_run != 0 || hs.queued_run > 0) {
				n = strlen(err);
				snprintf(err + n, sizeof(err) - n, ": run %lld "
				    "measures it now, ask again in a few "
				    "seconds", (long long)(hs.running_run != 0 ?
				    hs.running_run : hs.queued_run));
				return api_fail(rep, PROB_NOT_READY, "stack",
				    err, NULL, 10);
			}
			return api_fail(rep, PROB_POLICY, "stack", err, NULL,
			    0);
		}
		case API_UNMEASURED:
			return api_fail(rep, PROB_POLICY, ans.unmeasured, err,
			    NULL, 0);
		default:
			/*
			 * Under a MiB a hash: the query's memory_max did it
			 * (a bare number, KiB: said); a runtime's limit under
			 * the floor: the floor asked.
			 */
			if (q.memory_max_kib > 0 && q.memory_max_kib / q.k <
			    1024) {
				const char	*raw = MHD_lookup_connection_value(
				    c, MHD_GET_ARGUMENT_KIND, "memory_max");

				if (raw != NULL && raw[0] != '\0' &&
				    strspn(raw, "0123456789") == strlen(raw) &&
				    strlen(raw) < 16) {
					size_t	n = strlen(err);

					snprintf(err + n, sizeof(err) - n, " "
					    "(memory_max=%s is KiB: a bare "
					    "number is KiB, %sMiB is MiB)", raw,
					    raw);
				}
				return api_fail(rep, PROB_POLICY, "memory_max",
				    err, NULL, 0);
			}
			return api_fail(rep, PROB_POLICY,
			    stack_limit_refused(err) ? "floor" : NULL, err,
			    NULL, 0);
		}
	}
	/* An older model's answer, past the budget: how old it is. */
	if (ans.age >= 0) {
		char	age[32];

		snprintf(age, sizeof(age), "%lld", ans.age);
		api_reply_header(rep, "Age", age);
	}
	inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
	if (ans.status == 200 && inm != NULL && strcmp(inm, ans.etag) == 0) {
		free(ans.body);
		rep->status = 304;
		api_reply_header(rep, "ETag", ans.etag);
		return 0;
	}
	if (ans.status == 422) {
		json_t	*j = json_loads(ans.body, 0, NULL);
		char	 why[512];

		free(ans.body);
		snprintf(why, sizeof(why), "%s", json_string_value(
		    json_object_get(j, "error")));
		rc = api_fail(rep, PROB_POLICY, "target_ms", why,
		    json_pack("{s:O}", "closest", json_object_get(j,
		    "closest")), 0);
		json_decref(j);
		return rc;
	}
	return api_ok_text(rep, 200, ans.body, ans.etag);
}

/* The presets and the notes beside them, for api_presets_locked(). */
struct api_presets_arg {
	json_t	*list;
	json_t	*notes;
};

/*
 * A preset's predicted time at p95 (pr), and the note on it (NULL:
 * "extrapolated" when it is, else none): under the vocabulary's names
 * and, deprecated, the old ones (predicted_ms_p95, predicted_note).
 */
static void
api_preset_predicted(json_t *item, const struct model_prediction *pr,
    const char *note)
{
	if (note == NULL && pr->extrapolated)
		note = "extrapolated";
	json_object_set_new(item, "predicted", api_predicted_json(95, pr->ms,
	    pr->p50_ms));
	json_object_set_new(item, "extrapolated",
	    json_boolean(pr->extrapolated));
	json_object_set_new(item, "note", api_null_if_empty(note));
	json_object_set_new(item, "predicted_ms_p95", json_real(pr->ms));
	json_object_set_new(item, "predicted_note",
	    json_string(note != NULL ? note : ""));
}

/* The common presets, with what the model in use predicts for each. */
static void
api_presets_locked(const struct model *m, const struct api_state *st,
    void *arg)
{
	const struct preset		*pre;
	const struct model_curve	*curve;
	struct model_prediction		 pr;
	struct tune_query		 q;
	struct api_presets_arg		*pa = arg;
	json_t				*list = pa->list, *item;
	size_t				 n, i;
	uint32_t			 p;
	char				 err[256];
	char				 poor[MODEL_QUALITY_WHY + 160];

	(void)st;
	/* The times below stand on the model: a poor one says so. */
	if (m != NULL && tune_quality_note(m, poor, sizeof(poor)))
		json_array_append_new(pa->notes, json_string(poor));
	pre = preset_list(&n);
	tune_query_init(&q);
	for (i = 0; i < n; i++) {
		item = json_pack("{s:s, s:s, s:s}", "name", pre[i].name,
		    "source", pre[i].source, "variant",
		    kdf_alg_name(pre[i].alg));
		if (pre[i].alg == KDF_ALG_BCRYPT)
			json_object_set_new(item, "cost",
			    json_integer(pre[i].cost));
		else {
			json_object_set_new(item, "m_kib",
			    json_integer(pre[i].m_kib));
			json_object_set_new(item, "t", json_integer(pre[i].t));
			json_object_set_new(item, "p", json_integer(pre[i].p));
		}
		if (m != NULL && pre[i].alg != KDF_ALG_BCRYPT) {
			q.variant = KDF_ALG_ARGON2ID;
			q.parallelism = 1;
			if ((curve = tune_curve(m, &q, &p, err,
			    sizeof(err))) != NULL) {
				model_predict(m, curve, pre[i].m_kib,
				    pre[i].t, 1, 95, &pr);
				api_preset_predicted(item, &pr, pre[i].p > 1 ?
				    "upper bound: measured with p = 1" : NULL);
			}
		}
		/* No model yet, or bcrypt: nothing predicted. */
		if (json_object_get(item, "predicted") == NULL)
			json_object_set_new(item, "predicted", json_null());
		json_array_append_new(list, item);
	}
}

int
h_presets(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct api_presets_arg	pa = { json_array(), json_array() };

	(void)c;
	(void)r;
	(void)arg;
	s->env.with_model(s->env.ctx, api_presets_locked, &pa);
	return api_ok(rep, 200, json_pack("{s:o, s:o}", "presets", pa.list,
	    "notes", pa.notes), NULL);
}
