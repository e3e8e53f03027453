/*
 * api/api.h: the JSON HTTP API of pwtuned, on libmicrohttpd. It sees its
 * host only through struct api_env and struct api_config (below), and
 * includes nothing from daemon/. Its files:
 *
 * The base
 *   server.c          the listener, its limits, the access handler: checks
 *                     at the door, body buffering with a cap, routing, the
 *                     bearer token (file, digests, failures per address),
 *                     counting every answer for /metrics
 *   request.c         strict query parsing, ids in paths, JSON bodies
 *   reply.c           struct api_reply: what a handler answers; queued here
 *   problem.c         errors as RFC 9457 problem+json, from a fixed
 *                     catalogue; the one store status -> problem switch
 *   store.c           each HTTP thread's store connection; is the store up
 *
 * One file per resource
 *   health.c          GET /healthz, /readyz
 *   recommendation.c  GET /v1/recommendation (this host, answers cached),
 *                     /v1/presets
 *   fleet.c           scope= and stack= answers, and what they keep
 *   scope.c           the scoped answer's members, answer and JSON: shared
 *                     with the CLI, no server needed
 *   stacks.c          an answer's stacks (for, stacks): shared with the CLI
 *   vocab.c           the names every answer shares (predicted, units,
 *                     null for unknown): shared with the CLI
 *   runs.c            GET, POST /v1/runs, GET, DELETE /v1/runs/ID
 *   hosts.c           GET /v1/hosts, /v1/hosts/ID
 *   model.c           GET /v1/model: what the dashboard draws
 *   observations.c    POST, GET /v1/observations
 *   check.c           POST /v1/check
 *   static.c          GET /, /static/NAME (the dashboard), /v1/openapi.json
 *   metrics.c         GET /metrics
 *
 *   api_impl.h        what these files share; openapi.json, embed*.cmake
 *                     build the document and the dashboard into the binary
 *
 * No handler runs Argon2 or allocates what a client chose: answers come
 * from the model in memory; runs go to the host's job runner.
 */
#ifndef PWTUNE_API_H
#define PWTUNE_API_H

#include <stdint.h>
#include <time.h>

#include <jansson.h>
#include <microhttpd.h>

#include "check.h"
#include "db.h"
#include "fleet.h"
#include "host.h"
#include "model.h"
#include "tune.h"

#define API_BODY_MAX		4096	/* bytes of a request body */
#define API_JSON_DEPTH_MAX	8	/* nesting, checked before parsing */
#define API_TOKEN_TEXT_MAX	500	/* characters of a token file's token */
#define API_URI_MAX		2048	/* bytes of path and query, decoded */
#define API_CACHE_SLOTS		64	/* answers kept per model */
#define API_LATENCY_BUCKETS	10

/* A request in progress. */
struct api_request {
	char		body[API_BODY_MAX + 1];
	size_t		bodylen;
	int		refused;	/* answered while the body came:
					   1 + its enum api_problem */
	double		start;
	int		begun;		/* api_access() has seen it */
	int		path_nul;	/* %00 in the path as it came */
	uintptr_t	uri, uri_end;	/* where its target's string was */
};

#define API_PATH_MAX		1024
#define API_HOSTS_MAX		8	/* names allowed in Host */

/*
 * What the API is told of its host's configuration: given to api_start(),
 * and again to api_reload() (SIGHUP). The server keeps its own copy under
 * its lock, so a reload never races a request.
 */
struct api_config {
	char		store[API_PATH_MAX];	/* the store's locator */
	char		token_file[API_PATH_MAX];
	char		web_root[API_PATH_MAX];	/* "" : the embedded files */
	char		listen[128];		/* ADDR:PORT, for messages */
	char		listen_addr[128];	/* its ADDR: a Host allowed */
	char		allowed_hosts[API_HOSTS_MAX][128];
	size_t		nallowed_hosts;
	char		group[DB_GROUP_MAX];	/* "" : none */
	unsigned	fleet_max_age;		/* seconds; 0: any age */
	uint64_t	memory_max;		/* bytes; 0: the host budget */
	unsigned	auth_failures_per_minute;
	/* The listener's limits: read by api_start() alone. */
	unsigned	threads;
	unsigned	max_connections;
	unsigned	max_connections_per_ip;
	unsigned	connection_timeout;	/* seconds idle */
	unsigned	request_timeout;	/* seconds for headers, body */
	unsigned	connection_memory;	/* bytes per connection */
};

/*
 * What the handlers read of their host at one moment: copied out under the
 * host's lock (api_env.state), or given with the model (api_env.with_model).
 */
struct api_state {
	int			 have_model;
	int64_t			 model_run;
	uint64_t		 model_version;	/* bumps on every swap */
	int			 model_stale;	/* measured on other facts */
	int64_t			 running_run;	/* 0: idle */
	int64_t			 queued_run;	/* created, not started */
	size_t			 points_done, points_total;
	size_t			 points_measured;	/* status ok */
	const char		*step;		/* "points", "probes",
						   "verifications"; static */
	size_t			 step_done, step_total;
	double			 eta;	/* seconds the run has left, from the
					   last of its profile; -1: unknown */
	time_t			 last_done;	/* newest finished run; 0 */
	int			 store_up;
	enum db_status		 store_status;	/* of the last operation */
	time_t			 store_seen;
	unsigned long long	 store_failures;
	int			 store_deferred;
	int64_t			 pending_run;	/* ended, not recorded yet */
	enum db_run_status	 pending_status;
	char			 pending_error[128];
	unsigned long long	 runs_by_status[6];
	/* The closed loop (daemon/checks.c). */
	unsigned		 check_budget;	/* % of one core; 0: off */
	unsigned long long	 checks_by_verdict[CHECK_VERDICTS];
	unsigned long long	 checks_preempted, checks_skipped;
	unsigned long long	 checks_noisy;
	double			 check_cpu_seconds;	/* since start */
	size_t			 questions, answers_verified;
	int			 drift;		/* since the model's run */
	char			 drift_why[160];
	/* The last run's verifications (its answers measured). */
	struct check_verified	 verified[CHECK_VERIFIED_MAX];
	size_t			 nverified;
};

typedef void (*api_model_fn)(const struct model *m, const struct api_state *st,
    void *arg);

/*
 * The API's only view of its host (pwtuned: daemon/env.c). ctx is passed
 * back to every call. The calls take the host's lock themselves: the API
 * calls them holding no lock but its fleet's (the lock order: fleet ->
 * host -> server), and fn, run under the host's lock, may take the
 * server's lock and no other.
 */
/* How much an event of the API's log weighs. */
enum api_log_level {
	API_LOG_DEBUG,
	API_LOG_INFO,
	API_LOG_WARN
};

struct api_env {
	void			*ctx;
	const struct host_info	*host;	/* probed at start: never changes */
	void	(*state)(void *ctx, struct api_state *out);
	/* fn(model or NULL, state) under the host's lock. */
	void	(*with_model)(void *ctx, api_model_fn fn, void *arg);
	/*
	 * Is there a model (1, *version its model_version) or not (0)? The
	 * host's lock held only to read them: a kept answer is found with
	 * this alone. May be NULL (with_model() then).
	 */
	int	(*model_version)(void *ctx, uint64_t *version);
	/*
	 * Ask for a run: 0 with *id, 1 when one is queued or running (409),
	 * 2 in the cool-down (429, *retry_after), -1 when the store
	 * refuses (err).
	 */
	int	(*run_request)(void *ctx, const char *profile, int64_t *id,
		    unsigned *retry_after, char *err, size_t errlen);
	/* Cancel run id if it is the one queued or running: 0, or -1. */
	int	(*run_cancel)(void *ctx, int64_t id);
	/* How a store operation went (db_status), for the host's health. */
	void	(*store_note)(void *ctx, enum db_status st, const char *err);
	/*
	 * An observation of stack was stored for this host: the host's
	 * model takes it into that stack's correction (soon, not at once:
	 * the model's version bumps when it has).
	 */
	void	(*observed)(void *ctx, const char *stack);
	/*
	 * A question answered from this host's model (no scope): the host
	 * checks it in the background. Both may be NULL (the CLI).
	 */
	void	(*asked)(void *ctx, const struct tune_query *q,
		    const char *stack);
	/*
	 * What the checks found for the question: 1 when its answer was
	 * measured under the model in use (*cs, at: when), else 0 (cs->c
	 * is 1), or -1 when the host does not check its answers (a client
	 * runtime whose probe did not run here); *version: the
	 * model_version it was read under (an answer made under another
	 * one is made again). Called holding no lock.
	 */
	int	(*checked)(void *ctx, const struct tune_query *q,
		    const char *stack, struct check_state *cs, char *at,
		    size_t atlen, uint64_t *version);
	/* One line of the host's log; NULL: the API logs nothing. */
	void	(*log)(void *ctx, enum api_log_level level, const char *msg);
};

struct api_server;

/* server.c */
struct api_server *api_start(const struct api_env *env,
	    const struct api_config *cfg, int listen_fd, char *err,
	    size_t errlen);
void	 api_stop(struct api_server *s);
/* A new configuration (SIGHUP): kept, and the token read again. */
int	 api_reload(struct api_server *s, const struct api_config *cfg,
	    char *err, size_t errlen);
/*
 * Is the token file at path usable as api_start() would read it (pwtuned
 * -n)? 0 yes; 1 it is absent (api_start() writes a new one); -1 no, with
 * the message api_start() would give.
 */
int	 api_token_check(const char *path, char *err, size_t errlen);

/*
 * scope.c: the scoped answer, one path for the daemon and the CLI:
 * members collected (api_scope_admit, api_scope_add), the answer that
 * holds on all of them (api_scope_answer), its JSON (api_scope_json).
 */
struct api_scope_set {
	struct fleet_host	 h[FLEET_HOSTS_MAX];
	const char		*cpu[FLEET_HOSTS_MAX];	/* cpu_model */
	int			 this_host[FLEET_HOSTS_MAX];
	size_t			 n;
	json_t			*excluded;	/* [{host_id, reason}] */
};
/*
 * Is h a member of the scope (group NULL: every host but self_id, which
 * may be NULL)? 1 yes; 0 not of the scope; -1 left out, in excluded with
 * why (no fresh finished run).
 */
int	 api_scope_admit(struct api_scope_set *set, const struct db_host *h,
	    const char *self_id, const char *group, time_t now,
	    unsigned max_age);
void	 api_scope_exclude(struct api_scope_set *set, const char *id,
	    const char *why);
/* A member: its model and cpu_model must outlive set. */
void	 api_scope_add(struct api_scope_set *set, const char *host_id,
	    const struct model *m, const char *cpu_model, int this_host);
/* The cpu_model of a host's facts (JSON), or "". */
void	 api_scope_cpu(const char *facts, char *out, size_t len);
/* Member i is left out after all (its model could not be read). */
void	 api_scope_drop(struct api_scope_set *set, size_t i);
/* fleet_recommend() over the members (their h[].cand when kept). */
int	 api_scope_answer(const struct api_scope_set *set,
	    const struct tune_query *q, double factor, struct fleet_answer *fa,
	    char *err, size_t errlen);
/*
 * The answer as JSON: the deciding host's answer, stale, scope, group
 * (NULL: none), decided_by, hosts (host_id, cpu_model, this_host,
 * predicted_ms) and excluded.
 */
json_t	*api_scope_json(const struct api_scope_set *set,
	    const struct fleet_answer *fa, const char *scope, const char *group,
	    int stale);

/*
 * stacks.c: an answer's stacks, one path for the daemon and the CLI.
 * api_stacks_add puts into j (tune_answer_to_json of dflt, the default
 * answer to q) the vocabulary's names (api_answer_vocab), "for" (the
 * stack dflt holds for) and "stacks": every
 * stack of the catalogue, then those only observations know, each with
 * its own answer to q, how its model was obtained, its correction, what
 * dflt would take in it against the target (default_answer_ratio) and its
 * snippet; a stack whose base curve m lacks is "available": false with
 * why. The entry of the stack dflt holds for is dflt itself (as corrected
 * by the checks); each other one is its stack's answer corrected as the
 * checks of its own question (q with stack=NAME) found (corr; NULL: none,
 * as in the CLI), the answer stack=NAME gives. A note is added to j's
 * notes for each stack dflt would be over the target in, saying to ask
 * with ask followed by the stack's name (the API's "stack=", the CLI's
 * "--stack "). Run it where m cannot change meanwhile.
 */
struct api_stack_corrections {
	double	c[MODEL_STACKS_MAX];	/* stack_catalogue()'s order; 0: 1 */
};
void	 api_stacks_add(json_t *j, const struct model *m,
	    const struct tune_query *q, const struct tune_answer *dflt,
	    const struct api_stack_corrections *corr, const char *ask);
/* The answer a of stack name as JSON: tune_answer_to_json's, with "for",
   "how", "why" (not probed, when known), "snippet" (its own) and the
   other languages' snippets as their stacks answer (corr: as above). */
json_t	*api_stack_answer_json(const struct model *m, const char *name,
	    const struct tune_query *q, const struct tune_answer *a,
	    const struct api_stack_corrections *corr);
/*
 * The answer's "snippets": each language's at its own stack's answer to
 * q (php: php, python: python-argon2-cffi, go, node: node-argon2, java:
 * java-bouncycastle, c: the default stack), fallback's where a stack
 * cannot answer. fallback is the answer of stack for (NULL: the stack it
 * holds for, api_stack_for): that stack's snippet carries it as it is
 * (corrected by the checks, as the answer it goes with). The snippet of
 * a stack carries that stack's parameters.
 */
json_t	*api_stack_snippets(const struct model *m, const struct tune_query *q,
	    const struct tune_answer *fallback, const char *for_stack,
	    const struct api_stack_corrections *corr);
/*
 * A value as given, for a message: its first API_SHOWN_MAX bytes then
 * "...", printable ASCII as it is and any other byte (a control, a byte
 * of UTF-8, a backslash) as \xHH, so that it is always valid UTF-8 and
 * safe on a terminal; into buf (API_SHOWN_LEN holds it all; a smaller
 * buf holds less, and "..." says it was cut when len is 4 or more).
 */
#define API_SHOWN_MAX	60
#define API_SHOWN_LEN	(4 * API_SHOWN_MAX + 4)
void	 api_shown(const char *v, char *buf, size_t len);

/*
 * The snippets of an answer measured in one stack alone (pwtune recommend
 * from cold: stack "libsodium", or "libargon2" with --backend): that
 * stack's language carries it as it is; every other says in a comment
 * that it is not its runtime's answer, and one that cannot take its t
 * (node-argon2: 2 at least) gets its least t with m x t kept (about; m in
 * whole MiB), so that the code runs.
 */
json_t	*api_snippets_one_stack(const struct tune_answer *a,
	    const char *stack);
/* The stack the answer a holds for ("libsodium", "libargon2"). */
const char *api_stack_for(const struct model *m, const struct tune_answer *a);

/*
 * vocab.c: a predicted time at a percentile, {"percentile", "ms",
 * "p50_ms"} (p50_ms < 0: null, not known); s as a string, or null when
 * it is empty; and the vocabulary's names added to an answer (of
 * tune_answer_to_json): predicted, libsodium.memlimit_bytes.
 */
json_t	*api_predicted_json(int percentile, double ms, double p50_ms);
json_t	*api_null_if_empty(const char *s);
void	 api_answer_vocab(json_t *answer);

/* problem.c */
enum api_problem {
	PROB_BAD_PARAM,		/* 400 */
	PROB_BAD_JSON,		/* 400 */
	PROB_BAD_REQUEST,	/* 400 */
	PROB_UNAUTHORIZED,	/* 401 */
	PROB_NOT_FOUND,		/* 404 */
	PROB_METHOD,		/* 405 */
	PROB_TIMEOUT,		/* 408 */
	PROB_CONFLICT,		/* 409: a run is queued or running */
	PROB_RUN_FINISHED,	/* 409 */
	PROB_NO_RUN,		/* 409: this host has none yet */
	PROB_STACKS_FULL,	/* 409: observations under as many names
				   as are kept */
	PROB_TOO_LARGE,		/* 413 */
	PROB_URI_TOO_LONG,	/* 414 */
	PROB_UNSUPPORTED_TYPE,	/* 415 */
	PROB_MISDIRECTED,	/* 421 */
	PROB_POLICY,		/* 422 */
	PROB_TOO_MANY,		/* 429 */
	PROB_NOT_READY,		/* 503 */
	PROB_STORE,		/* 503 */
	PROB_INTERNAL		/* 500 */
};
int	 api_problem_status(enum api_problem p);
/* A handler's problem answer: api_fail() (api_impl.h). */
/* The problem+json body alone (free it), for the one response written by
   hand (server.c: a body refused while it comes). */
char	*api_problem_text(enum api_problem p, const char *param,
	    const char *detail);

#endif /* PWTUNE_API_H */
