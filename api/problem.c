/*
 * api/problem.c: every error the API returns, as RFC 9457 problem+json
 * from one fixed catalogue: a type, a title, a status, a detail that says
 * what was wrong, and the parameter at fault.
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
	[PROB_TOO_LARGE] = { "too-large", "The request body is too large",
	    413 },
	[PROB_UNSUPPORTED_TYPE] = { "unsupported-media-type", "The body must "
	    "be application/json", 415 },
	[PROB_MISDIRECTED] = { "misdirected", "This host name is not served "
	    "here", 421 },
	[PROB_POLICY] = { "cannot-meet-target", "The request cannot be met "
	    "within policy", 422 },
	[PROB_TOO_MANY] = { "too-many-requests", "Too many requests", 429 },
	[PROB_NOT_READY] = { "not-ready", "No measurements yet", 503 },
	[PROB_STORE] = { "store-unavailable", "The store cannot be written",
	    503 },
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

enum MHD_Result
api_problem(struct MHD_Connection *c, enum api_problem p, const char *param,
    const char *detail, json_t *extra, unsigned retry_after, int *status)
{
	struct MHD_Response	*r;
	json_t			*j;
	char			 ra[16], allowbuf[64] = "";
	const char		*allow;
	enum MHD_Result		 rc;

	if ((j = api_problem_json(p, param, detail)) == NULL) {
		json_decref(extra);
		return MHD_NO;
	}
	if (extra != NULL) {
		json_object_update(j, extra);
		json_decref(extra);
	}
	allow = json_string_value(json_object_get(j, "allow"));
	if (allow != NULL)
		snprintf(allowbuf, sizeof(allowbuf), "%s", allow);
	if ((r = api_json_response(j, "application/problem+json",
	    "no-store")) == NULL)
		return MHD_NO;
	if (p == PROB_UNAUTHORIZED)
		MHD_add_response_header(r, "WWW-Authenticate",
		    "Bearer realm=\"pwtuned\"");
	if (allowbuf[0] != '\0')
		MHD_add_response_header(r, "Allow", allowbuf);
	if (retry_after > 0) {
		snprintf(ra, sizeof(ra), "%u", retry_after);
		MHD_add_response_header(r, "Retry-After", ra);
	}
	*status = catalogue[p].status;
	rc = MHD_queue_response(c, (unsigned)catalogue[p].status, r);
	MHD_destroy_response(r);
	return rc;
}
