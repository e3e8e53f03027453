/*
 * api/health.c: GET /healthz (the process answers, and its version) and
 * GET /readyz (a model answers; the store's state beside it).
 */
#include <stdio.h>
#include <string.h>

#include "api_impl.h"

int
h_healthz(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	(void)s;
	(void)c;
	(void)r;
	(void)arg;
	return api_ok(rep, 200, json_pack("{s:s, s:s}", "status", "ok",
	    "version", PWTUNE_VERSION), NULL);
}
/* The model's verdict, copied under the host's lock. */
struct api_quality {
	int	have;
	enum model_quality q;
	char	why[MODEL_QUALITY_WHY];
};

static void
api_quality_get(const struct model *m, const struct api_state *st,
    void *arg)
{
	struct api_quality	*aq = arg;

	(void)st;
	if ((aq->have = m != NULL)) {
		aq->q = m->quality;
		snprintf(aq->why, sizeof(aq->why), "%s", m->quality_why);
	}
}

int
h_readyz(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct api_state	hs;
	struct api_quality	aq;
	int64_t			run;
	int			have, up;
	char			why[256];

	(void)c;
	(void)r;
	(void)arg;
	up = api_store_up(s, why, sizeof(why));
	api_state(s, &hs);
	have = hs.have_model;
	run = hs.model_run;
	if (!have)
		return api_no_model(s, rep);
	memset(&aq, 0, sizeof(aq));
	s->env.with_model(s->env.ctx, api_quality_get, &aq);
	/*
	 * Answers come from the model in memory, store or no store; a poor
	 * model still answers (ready), and says so; so does a drift the
	 * checks found (a run is queued for it).
	 */
	return api_ok(rep, 200, json_pack("{s:b, s:I, s:s, s:s, "
	    "s:{s:s, s:b, s:s?}, s:{s:b, s:s?}, s:o, s:{s:i, s:i, s:i}}",
	    "ready", 1, "model_run", (json_int_t)run,
	    "model_quality", model_quality_name(aq.have ? aq.q :
	    MODEL_QUALITY_GOOD), "model_quality_reason", aq.why,
	    "store", "engine", api_store_is_pg(s) ? "postgresql" : "sqlite",
	    "reachable", up, "error", up ? NULL : why,
	    "drift", "detected", hs.drift, "why", hs.drift ? hs.drift_why :
	    NULL, "measuring", hs.running_run == 0 ? json_null() :
	    json_pack("{s:I, s:s?}", "run", (json_int_t)hs.running_run,
	    "step", hs.step),
	    "checks", "budget_percent", (int)hs.check_budget,
	    "questions", (int)hs.questions, "verified",
	    (int)hs.answers_verified), NULL);
}
