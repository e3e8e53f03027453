/*
 * api/api.h: the JSON HTTP API of pwtuned, on libmicrohttpd.
 *
 *   server.c     the listener, its limits, the access handler: checks at
 *                the door, body buffering with a cap, routing, the bearer
 *                token (file, digests, failures per address), metrics
 *   handlers.c   one function per endpoint; strict query parsing
 *   problem.c    errors as RFC 9457 problem+json, from a fixed catalogue
 *
 * No handler runs Argon2 or allocates what a client chose: answers come
 * from the model in memory; runs go to the job runner.
 */
#ifndef PWTUNE_API_H
#define PWTUNE_API_H

#include <microhttpd.h>

#include "daemon.h"

#define API_BODY_MAX		4096	/* bytes of a request body */
#define API_JSON_DEPTH_MAX	8	/* nesting, checked before parsing */
#define API_URI_MAX		2048
#define API_ROUTES		24
#define API_CACHE_SLOTS		64	/* answers kept per model */
#define API_LATENCY_BUCKETS	10

/* A request in progress. */
struct api_request {
	char		body[API_BODY_MAX + 1];
	size_t		bodylen;
	int		refused;	/* answered while the body came:
					   1 + its enum api_problem */
	double		start;
};

struct api_server;

/* server.c */
struct api_server *api_start(struct daemon *d, int listen_fd, char *err,
	    size_t errlen);
void	 api_stop(struct api_server *s);
/* Reload what SIGHUP may change: the token. */
int	 api_reload(struct api_server *s, char *err, size_t errlen);

/* problem.c */
enum api_problem {
	PROB_BAD_PARAM,		/* 400 */
	PROB_BAD_JSON,		/* 400 */
	PROB_BAD_REQUEST,	/* 400 */
	PROB_UNAUTHORIZED,	/* 401 */
	PROB_NOT_FOUND,		/* 404 */
	PROB_METHOD,		/* 405 */
	PROB_TIMEOUT,		/* 408 */
	PROB_CONFLICT,		/* 409 */
	PROB_TOO_LARGE,		/* 413 */
	PROB_UNSUPPORTED_TYPE,	/* 415 */
	PROB_MISDIRECTED,	/* 421 */
	PROB_POLICY,		/* 422 */
	PROB_TOO_MANY,		/* 429 */
	PROB_NOT_READY,		/* 503 */
	PROB_STORE,		/* 503 */
	PROB_INTERNAL		/* 500 */
};
int	 api_problem_status(enum api_problem p);
/*
 * Queue a problem+json response naming param (may be NULL) with detail;
 * extra (may be NULL, stolen) is merged into the body; retry_after > 0
 * adds Retry-After.
 */
enum MHD_Result api_problem(struct MHD_Connection *c, enum api_problem p,
	    const char *param, const char *detail, json_t *extra,
	    unsigned retry_after, int *status);
/* The problem+json body alone (free it), for a response written by hand. */
char	*api_problem_text(enum api_problem p, const char *param,
	    const char *detail);

#endif /* PWTUNE_API_H */
