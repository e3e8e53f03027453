/*
 * api/check.c: POST /v1/check: an Argon2 string read (never hashed) and
 * weighed against the model in use and the OWASP floor.
 */
#include <stdio.h>
#include <string.h>

#include "api_impl.h"
#include "check.h"
#include "stack.h"

/* The formats /v1/check takes, in its errors (and openapi.json). */
#define CHECK_FORMATS	"must be an Argon2 PHC string: $argon2id$, " \
			"$argon2i$ or $argon2d$ (scrypt and bcrypt strings " \
			"are not checked here)"

/*
 * What a check reads of the model in use: the default answer as
 * GET /v1/recommendation gives it (250 ms at p95, k = 1, memory capped by
 * the host's budget now, corrected by its question's checks), for the
 * stack the body names (else without one), and the string's time as that
 * answer's stack predicts it, times the same correction (the model's
 * error near the answer, as measured).
 */
struct api_check_arg {
	const struct kdf_params		*kp;
	const char			*stack;	/* NULL: none named */
	const char			*for_stack;	/* weighed for */
	struct tune_query		 q;
	double				 c;	/* the checks' correction */
	int				 have, t, predicted;
	char				 why[256];	/* t < 0 */
	uint64_t			 version;	/* the model's */
	struct tune_answer		 a;
	double				 ms, p50_ms;
};

/* Does encoded start as an Argon2 PHC string does? */
static int
api_check_format(const char *encoded)
{
	return strncmp(encoded, "$argon2id$", 10) == 0 ||
	    strncmp(encoded, "$argon2i$", 9) == 0 ||
	    strncmp(encoded, "$argon2d$", 9) == 0;
}

static void
api_check_locked(const struct model *m, const struct api_state *st,
    void *arg)
{
	struct api_check_arg		*ck = arg;
	const char			*stack;
	double				 model_ms, c = ck->c;

	if ((ck->have = m != NULL) == 0)
		return;
	ck->version = st->model_version;
	ck->for_stack = ck->stack != NULL ? ck->stack : stack_default(m,
	    ck->q.variant);
	ck->t = check_answer(m, ck->stack, &ck->q, c, &ck->a, &model_ms,
	    ck->why, sizeof(ck->why));
	if (!(c >= CHECK_C_MIN_RUNTIME && c <= CHECK_C_MAX_RUNTIME))
		c = 1;
	/* An answer's own parameters: its own prediction, to the digit. */
	if (ck->t >= 0 && ck->kp->m_kib == ck->a.m_kib &&
	    ck->kp->t == ck->a.t && ck->kp->p == ck->a.p) {
		ck->ms = ck->a.predicted_ms;
		ck->p50_ms = ck->a.predicted_p50_ms;
		ck->predicted = 1;
		return;
	}
	/* Argon2i and argon2d as argon2id: the same work. */
	stack = ck->for_stack;
	ck->predicted = stack_predict(m, stack, KDF_ALG_ARGON2ID,
	    ck->kp->m_kib, ck->kp->t, ck->kp->p, 1, 95, &ck->ms) == 0 &&
	    stack_predict(m, stack, KDF_ALG_ARGON2ID, ck->kp->m_kib,
	    ck->kp->t, ck->kp->p, 1, 50, &ck->p50_ms) == 0;
	ck->ms *= c;
	ck->p50_ms *= c;
}

int
h_check(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct api_check_arg		 ck;
	struct check_state		 cs;
	struct tune_rehash		 rh;
	struct kdf_params		 kp;
	json_t				*j, *enc, *stk, *out;
	char				 err[256];
	uint64_t			 version;
	int				 tries;

	(void)c;
	(void)arg;
	memset(&kp, 0, sizeof(kp));
	memset(&ck, 0, sizeof(ck));
	if ((j = api_body_json(r, rep)) == NULL)
		return 0;
	enc = json_object_get(j, "encoded");
	stk = json_object_get(j, "stack");
	if (!json_is_string(enc) || json_object_size(j) != 1 + (stk != NULL)) {
		json_decref(j);
		return api_fail(rep, PROB_BAD_PARAM, "encoded", "the body "
		    "takes {\"encoded\": \"$argon2id$v=19$m=...\"} and, for a "
		    "client stack, \"stack\": \"php\"", NULL, 0);
	}
	/* A catalogue stack's: its answer is the one to weigh against. */
	if (stk != NULL && (!json_is_string(stk) ||
	    stack_find(json_string_value(stk)) == NULL)) {
		char	names[512], why[768], meant[160];

		stack_names(names, sizeof(names));
		stack_suggest_text(json_is_string(stk) ?
		    json_string_value(stk) : NULL, meant, sizeof(meant));
		snprintf(why, sizeof(why), "stack must be one of %s%s", names,
		    meant);
		json_decref(j);
		return api_fail(rep, PROB_BAD_PARAM, "stack", why, NULL, 0);
	}
	ck.stack = stk != NULL ? stack_find(json_string_value(stk))->name :
	    NULL;
	/*
	 * Argon2 strings only: what the model predicts for. Parsed, never
	 * hashed: no client input reaches Argon2.
	 */
	if (!api_check_format(json_string_value(enc))) {
		json_decref(j);
		return api_fail(rep, PROB_BAD_PARAM, "encoded", CHECK_FORMATS,
		    NULL, 0);
	}
	if (kdf_identify(json_string_value(enc), &kp, err, sizeof(err)) ==
	    -1 || (!kdf_alg_is_argon2(kp.alg) && snprintf(err, sizeof(err),
	    CHECK_FORMATS) > 0)) {
		json_decref(j);
		return api_fail(rep, PROB_BAD_PARAM, "encoded", err, NULL, 0);
	}
	ck.kp = &kp;
	/*
	 * The correction, then the model: a refit or a check in between
	 * (the model's version moved) would weigh the string against the
	 * new model with the old correction. Read again then.
	 */
	for (tries = 1; ; tries++) {
		api_default_question(s, &ck.q, ck.stack, &cs, &version);
		ck.c = cs.c;
		s->env.with_model(s->env.ctx, api_check_locked, &ck);
		if (!ck.have || s->env.checked == NULL ||
		    ck.version == version || tries == API_ANSWER_TRIES)
			break;
	}
	if (!ck.have) {
		json_decref(j);
		return api_no_model(s, rep);
	}
	/*
	 * The stack named has no answer here (its library not measured):
	 * as GET /v1/recommendation&stack= says, not a 200 with no
	 * needs_rehash, which would read as "keep it".
	 */
	if (ck.stack != NULL && ck.t < 0) {
		json_decref(j);
		return api_fail(rep, PROB_POLICY, "stack", ck.why, NULL, 0);
	}
	out = json_pack("{s:s, s:I, s:I, s:I, s:b}", "variant",
	    kdf_alg_name(kp.alg), "m_kib", (json_int_t)kp.m_kib, "t",
	    (json_int_t)kp.t, "p", (json_int_t)kp.p, "owasp_floor_met",
	    tune_floor_min_t(TUNE_FLOOR_OWASP, kp.alg, kp.m_kib) != 0 &&
	    tune_floor_min_t(TUNE_FLOOR_OWASP, kp.alg, kp.m_kib) <= kp.t);
	json_object_set_new(out, "for", json_string(ck.for_stack));
	/* predicted_ms_p95: deprecated (0.2.0), predicted.ms. */
	json_object_set_new(out, "predicted", ck.predicted ?
	    api_predicted_json(95, ck.ms, ck.p50_ms) : json_null());
	if (ck.predicted)
		json_object_set_new(out, "predicted_ms_p95", json_real(ck.ms));
	if (ck.t >= 0 && tune_needs_rehash(json_string_value(enc), &ck.a, &rh,
	    err, sizeof(err)) == 0)
		json_object_set_new(out, "needs_rehash", json_pack("{s:b, s:b, "
		    "s:s}", "differs", rh.differs, "weaker", rh.weaker,
		    "against", ck.a.phc_prefix));
	json_decref(j);
	return api_ok(rep, 200, out, NULL);
}
