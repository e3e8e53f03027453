/*
 * api/health.c: GET /healthz (the process answers, and its version) and
 * GET /readyz (a model answers; the store's state beside it).
 */
#include <stdio.h>

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
int
h_readyz(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct api_state	hs;
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
	/* Answers come from the model in memory, store or no store. */
	return api_ok(rep, 200, json_pack("{s:b, s:I, s:{s:s, s:b, s:s?}, "
	    "s:{s:b, s:s?}, s:{s:i, s:i, s:i}}",
	    "ready", 1, "model_run", (json_int_t)run, "store", "engine",
	    api_store_is_pg(s) ? "postgresql" : "sqlite",
	    "reachable", up, "error", up ? NULL : why,
	    "drift", "detected", hs.drift, "why", hs.drift ? hs.drift_why :
	    NULL, "checks", "budget_percent", (int)hs.check_budget,
	    "questions", (int)hs.questions, "verified",
	    (int)hs.answers_verified), NULL);
}
