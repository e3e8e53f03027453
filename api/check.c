/*
 * api/check.c: POST /v1/check: an Argon2 string read (never hashed) and
 * weighed against the model in use and the OWASP floor.
 */
#include <stdio.h>
#include <string.h>

#include "api_impl.h"

/* The formats /v1/check takes, in its errors (and openapi.json). */
#define CHECK_FORMATS	"must be an Argon2 PHC string: $argon2id$, " \
			"$argon2i$ or $argon2d$ (scrypt and bcrypt strings " \
			"are not checked here)"

/* What a check reads of the model in use. */
struct api_check_arg {
	const struct kdf_params		*kp;
	int				 have, t, curve;
	struct tune_answer		 a;
	struct model_prediction		 pr;
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
	const struct model_curve	*curve;
	struct tune_query		 q;
	char				 err[256];
	uint32_t			 p;

	(void)st;
	if ((ck->have = m != NULL) == 0)
		return;
	tune_query_init(&q);
	ck->t = tune_recommend(m, &q, &ck->a, err, sizeof(err));
	q.variant = KDF_ALG_ARGON2ID;
	curve = tune_curve(m, &q, &p, err, sizeof(err));
	if ((ck->curve = curve != NULL))
		model_predict(m, curve, ck->kp->m_kib, ck->kp->t, 1, 95,
		    &ck->pr);
}

int
h_check(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct api_check_arg		 ck;
	struct tune_rehash		 rh;
	struct kdf_params		 kp;
	json_t				*j, *enc, *out;
	char				 err[256];

	(void)c;
	(void)arg;
	memset(&kp, 0, sizeof(kp));
	memset(&ck, 0, sizeof(ck));
	if ((j = api_body_json(r, rep)) == NULL)
		return 0;
	enc = json_object_get(j, "encoded");
	if (!json_is_string(enc) || json_object_size(j) != 1) {
		json_decref(j);
		return api_fail(rep, PROB_BAD_PARAM, "encoded", "the body "
		    "takes {\"encoded\": \"$argon2id$v=19$m=...\"}", NULL, 0);
	}
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
	s->env.with_model(s->env.ctx, api_check_locked, &ck);
	if (!ck.have) {
		json_decref(j);
		return api_no_model(s, rep);
	}
	out = json_pack("{s:s, s:I, s:I, s:I, s:b}", "variant",
	    kdf_alg_name(kp.alg), "m_kib", (json_int_t)kp.m_kib, "t",
	    (json_int_t)kp.t, "p", (json_int_t)kp.p, "owasp_floor_met",
	    tune_floor_min_t(TUNE_FLOOR_OWASP, kp.alg, kp.m_kib) != 0 &&
	    tune_floor_min_t(TUNE_FLOOR_OWASP, kp.alg, kp.m_kib) <= kp.t);
	/* predicted_ms_p95: deprecated (0.2.0), predicted.ms. */
	json_object_set_new(out, "predicted", ck.curve ? api_predicted_json(95,
	    ck.pr.ms, ck.pr.p50_ms) : json_null());
	if (ck.curve)
		json_object_set_new(out, "predicted_ms_p95",
		    json_real(ck.pr.ms));
	if (ck.t >= 0 && tune_needs_rehash(json_string_value(enc), &ck.a, &rh,
	    err, sizeof(err)) == 0)
		json_object_set_new(out, "needs_rehash", json_pack("{s:b, s:b, "
		    "s:s}", "differs", rh.differs, "weaker", rh.weaker,
		    "against", ck.a.phc_prefix));
	json_decref(j);
	return api_ok(rep, 200, out, NULL);
}
