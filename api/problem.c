/*
 * api/problem.c: every error the API returns, as RFC 9457 problem+json
 * from one fixed catalogue: a type, a title, a status, a detail that says
 * what was wrong, and the parameter at fault; and the one switch from a
 * store's status to its problem (api_store_fail).
 */
#include <stdio.h>
#include <string.h>

#include "api_impl.h"

static const struct {
	const char	*slug;
	const char	*title;
	int		 status;
} catalogue[] = {
	[PROB_BAD_PARAM] = { "bad-parameter", "A parameter is not valid", 400 },
	[PROB_BAD_JSON] = { "bad-json", "The body is not valid JSON", 400 },
	[PROB_BAD_REQUEST] = { "bad-request", "The request is malformed", 400 },
	[PROB_UNAUTHORIZED] = { "unauthorized", "A valid bearer token is "
	    "required", 401 },
	[PROB_NOT_FOUND] = { "not-found", "No such resource", 404 },
	[PROB_METHOD] = { "method-not-allowed", "Method not allowed", 405 },
	[PROB_TIMEOUT] = { "request-timeout", "The request took too long to "
	    "arrive", 408 },
	[PROB_CONFLICT] = { "run-in-progress", "A run is queued or running",
	    409 },
	[PROB_RUN_FINISHED] = { "run-finished", "The run already finished",
	    409 },
	[PROB_NO_RUN] = { "no-run", "This host has no run in the store yet",
	    409 },
	[PROB_STACKS_FULL] = { "too-many-stacks", "This host has observations "
	    "under as many stack names as are kept", 409 },
	[PROB_TOO_LARGE] = { "too-large", "The request body is too large",
	    413 },
	[PROB_URI_TOO_LONG] = { "uri-too-long", "The request URI is too long",
	    414 },
	[PROB_UNSUPPORTED_TYPE] = { "unsupported-media-type", "The body must "
	    "be application/json", 415 },
	[PROB_MISDIRECTED] = { "misdirected", "This host name is not served "
	    "here", 421 },
	[PROB_POLICY] = { "cannot-meet-target", "The request cannot be met "
	    "within policy", 422 },
	[PROB_TOO_MANY] = { "too-many-requests", "Too many requests", 429 },
	[PROB_NOT_READY] = { "not-ready", "No measurements yet", 503 },
	[PROB_STORE] = { "store-unavailable", "The store cannot be read or "
	    "written", 503 },
	[PROB_INTERNAL] = { "internal", "Internal error", 500 },
};

int
api_problem_status(enum api_problem p)
{
	return catalogue[p].status;
}

static json_t *
api_problem_json(enum api_problem p, const char *param, const char *detail)
{
	json_t	*j;
	char	 type[96];

	snprintf(type, sizeof(type), "/problems/%s", catalogue[p].slug);
	j = json_pack("{s:s, s:s, s:i, s:s}", "type", type, "title",
	    catalogue[p].title, "status", catalogue[p].status, "detail",
	    detail != NULL ? detail : catalogue[p].title);
	if (j != NULL && param != NULL)
		json_object_set_new(j, "param", json_string(param));
	return j;
}

char *
api_problem_text(enum api_problem p, const char *param, const char *detail)
{
	json_t	*j;
	char	*text;

	if ((j = api_problem_json(p, param, detail)) == NULL)
		return NULL;
	text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return text;
}

int
api_fail(struct api_reply *rep, enum api_problem p, const char *param,
    const char *detail, json_t *extra, unsigned retry_after)
{
	json_t		*j;
	char		 ra[16];
	const char	*allow;

	if ((j = api_problem_json(p, param, detail)) == NULL) {
		json_decref(extra);
		return -1;
	}
	if (extra != NULL) {
		json_object_update(j, extra);
		json_decref(extra);
	}
	rep->status = catalogue[p].status;
	rep->json = j;
	api_reply_header(rep, "Content-Type", "application/problem+json");
	api_reply_header(rep, "X-Content-Type-Options", "nosniff");
	api_reply_header(rep, "Cache-Control", "no-store");
	if (p == PROB_UNAUTHORIZED)
		api_reply_header(rep, "WWW-Authenticate",
		    "Bearer realm=\"pwtuned\"");
	if ((allow = json_string_value(json_object_get(j, "allow"))) != NULL)
		api_reply_header(rep, "Allow", allow);
	if (retry_after > 0) {
		snprintf(ra, sizeof(ra), "%u", retry_after);
		api_reply_header(rep, "Retry-After", ra);
	}
	return 0;
}

/*
 * The one answer to a store operation that did not give what was asked:
 * st DB_ERR_NOTFOUND is 404 naming param (when notfound says what was
 * not found); anything else is the store refusing or away: 503 with
 * Retry-After, never 404. Reading, "cannot be read" and 5 s; writing,
 * "cannot be written" and 5 s while a database is away, 30 s for a disk
 * an operator must free (api_store_retry).
 */
int
api_store_fail(struct api_server *s, struct api_reply *rep, enum db_status st,
    int writing, const char *param, const char *notfound)
{
	switch (st) {
	case DB_ERR_NOTFOUND:
		if (notfound != NULL)
			return api_fail(rep, PROB_NOT_FOUND, param, notfound,
			    NULL, 0);
		break;
	default:
		break;
	}
	if (writing)
		return api_fail(rep, PROB_STORE, NULL, "the store cannot be "
		    "written", NULL, api_store_retry(s));
	return api_fail(rep, PROB_STORE, NULL, "the store cannot be read",
	    NULL, 5);
}

/*
 * 503 for a daemon without a model yet, saying why: the store cannot be
 * reached (at start), the first benchmark is running, or none was asked.
 */
int
api_no_model(struct api_server *s, struct api_reply *rep)
{
	struct api_state	hs;

	api_state(s, &hs);
	return api_fail(rep, PROB_NOT_READY, NULL, !hs.store_up ? "the store "
	    "cannot be reached and no model is loaded yet: answers come once "
	    "it is back" : hs.store_deferred ? "the store is back: this "
	    "host's model is being loaded" : hs.running_run != 0 ||
	    hs.queued_run != 0 ? "no measurements of this host yet: the "
	    "first benchmark is running, answers come once its first points "
	    "are measured (about 20 s)" : "no "
	    "measurements of this host yet: POST /v1/runs starts a benchmark",
	    NULL, hs.store_deferred ? 2 : 10);
}
