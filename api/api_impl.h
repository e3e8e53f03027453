/*
 * api/api_impl.h: what the files of api/ share. Private to api/; the
 * files are listed in api.h.
 */
#ifndef PWTUNE_API_IMPL_H
#define PWTUNE_API_IMPL_H

#include <pthread.h>
#include <time.h>

#include "api.h"

#define API_ROUTES		19	/* api_routes[] (server.c) */
#define API_METHODS		8	/* api_methods[] (server.c) */
#define API_HIT_SLOTS		1024	/* (route, method, code) counted */
#define API_FAIL_SLOTS		256	/* addresses the limiter follows */
#define API_FAIL_WINDOW_S	60	/* ... for this long after a failure */
#define API_BODY_GRACE_S	0.5	/* a late body has this long to be
					   answered 408 before it is cut */
#define API_TOKEN_LEN		32	/* random bytes of a new token */
#define API_ETAG_LEN		48	/* "r<run>-<24 hex>" */
#define API_RUN_PRESETS_SLOTS	1024	/* hosts' preset times, by run: one
					   per host db_hosts_list gives (1000) */
#define API_STORE_PROBE_S	2	/* seconds between store probes */
#define API_STORE_OPEN_WAIT_MS	50	/* for another thread's connect, or
					   a turn to wait on the database */
#define API_STORE_QUERY_MS	3000	/* a statement's answer, on an HTTP
					   thread */
#define API_FLEET_LIST_S	5	/* seconds a list of hosts is kept,
					   and a scoped answer */
#define API_FLEET_ANSWERS	64	/* scoped answers kept */
#define API_FLEET_STALE_S	300	/* ... served past API_FLEET_LIST_S
					   when no search is left */
#define API_FLEET_MODELS	512	/* hosts' models kept, by run: twice
					   the members of one answer */
#define API_FLEET_CANDS		8	/* a host's own answers kept, by
					   query */
#define API_FLEET_STACKS	16	/* stacks' observations kept */
#define API_FLEET_SEARCH_RATE	1024	/* hosts' own answers searched for
					   scoped answers a second, sustained
					   (4 questions over 256 hosts) */
#define API_FLEET_SEARCH_BURST	(2 * FLEET_HOSTS_MAX)	/* ... and at once */
#define API_ANSWER_RATE		10	/* this host's answers made for new
					   questions a second, sustained */
#define API_ANSWER_BURST	64	/* ... and at once (a kept answer
					   costs none) */
#define API_ASK_WINDOW_S	60	/* a kept answer's askings count once
					   a minute: how long it has been
					   asked for, not how often */
#define API_ANSWER_TRIES	3	/* an answer made (or a /v1/check
					   weighed) again when the model
					   moved between the read of the
					   checks' correction and its own */
#define API_MHD_LOG_RATE	1	/* libmicrohttpd's lines a second ... */
#define API_MHD_LOG_BURST	10	/* ... and at once (the rest counted) */
#define API_OBS_RATE		10	/* observations a second, sustained */
#define API_OBS_BURST		50	/* ... and at once */
#define API_OBS_SAMPLES_MAX	256	/* latencies in one observation */
#define API_OBS_LIST_MAX	100	/* observations GET shows */
#define API_STACK_OBS_MAX	200	/* newest observations a correction
					   is the median of */

enum api_scope_kind {
	API_SCOPE_HOST,
	API_SCOPE_GROUP,
	API_SCOPE_FLEET
};

/* What a recommendation is asked for beyond the tune query. */
struct api_scope {
	enum api_scope_kind	kind;
	char			stack[64];	/* "" : none */
};

struct api_fleet;

struct api_server;

#define API_REPLY_HEADERS	8

/*
 * What a handler answers: it fills this and returns 0 (-1: close the
 * connection without a word, out of memory); the server queues it
 * (api_queue) and counts its status. The body is JSON (json), bytes the
 * reply owns (body, len), or bytes that outlive it (data, len); headers
 * go out in the order given.
 */
struct api_reply {
	int		 status;
	json_t		*json;
	char		*body;
	const void	*data;
	size_t		 len;
	int		 nhdr;
	struct {
		char	 name[32];
		char	 value[320];
	}		 hdr[API_REPLY_HEADERS];
};

typedef int (*api_handler)(struct api_server *, struct MHD_Connection *,
    struct api_request *, const char *arg, struct api_reply *);

struct api_route {
	const char	*method;
	const char	*path;		/* "/v1/runs/" with prefix: an id follows */
	int		 prefix;
	int		 auth;
	api_handler	 fn;
};

/*
 * A client's address as the failure limiter keys it: IPv4 (an IPv4-mapped
 * IPv6 address too) by its 4 bytes, IPv6 by its /64 prefix, which is what
 * one subscriber or host usually has.
 */
struct api_peer {
	uint8_t		 family;	/* 4, 6, or 0: another kind */
	uint8_t		 addr[8];	/* zero after the significant bytes */
};

/* Wrong tokens from one address in a window of API_FAIL_WINDOW_S. */
struct api_fail {
	struct api_peer	 peer;
	unsigned	 count;		/* 0: a free slot */
	time_t		 window;	/* monotonic seconds of the first */
};

/*
 * A connection from its start to its close, for the request deadline: the
 * headers and body of its request must be in by request_timeout from
 * since, or the sweeper shuts the socket down.
 */
enum api_conn_phase {
	API_CONN_REQUEST,		/* headers coming: deadline */
	API_CONN_BODY,			/* body coming: deadline */
	API_CONN_ANSWER,		/* the request is in: none */
	API_CONN_CUT			/* shut down at the deadline */
};
struct api_conn {
	struct api_conn		*prev, *next;
	int			 fd;
	double			 since;		/* monotonic seconds */
	enum api_conn_phase	 phase;
};

/*
 * Requests answered with code, by route (API_ROUTES: no route's path)
 * and method (api_methods[]), for /metrics; and their latency by route
 * and method.
 */
struct api_hit {
	uint8_t			 route, method;
	uint16_t		 code;
	unsigned long long	 n;
};
struct api_latency {
	unsigned long long	 bucket[API_LATENCY_BUCKETS + 1];
	double			 sum;
	unsigned long long	 count;
};

struct api_cached {
	char		 key[256];
	uint64_t	 version;
	uint64_t	 cap_kib;	/* the memory cap it was made under (a
					   reload may lower memory_max) */
	time_t		 made;
	unsigned	 asks;		/* windows it was asked in */
	time_t		 asked_win;	/* the last (api_slot_asked) */
	uint64_t	 since;		/* kept here first (cache_seq then) */
	char		*body;
	char		 etag[API_ETAG_LEN];
	int		 status;
	/* The askings of it told to env.asked in second told (2 at most:
	   the checks count a question's askings up to the second). */
	time_t		 told;
	unsigned	 ntold;
};

struct api_model_copy {
	struct model		*m;
	struct api_state	 st;
};

/*
 * The server. The lock order, over the whole program: the fleet's lock
 * (fleet.c), then the host's (taken inside api_env's calls), then lock
 * below; a thread holding one never waits for one before it. conn_lock
 * is taken with no other held.
 */
struct api_server {
	struct api_env		 env;
	struct MHD_Daemon	*mhd;
	unsigned		 request_timeout;	/* seconds */
	size_t			 conn_memory;	/* bytes; set before the start */
	pthread_mutex_t		 conn_lock;	/* the connections, sweeping */
	pthread_cond_t		 conn_cv;	/* the sweeper waits on it */
	struct api_conn		*conns;
	pthread_t		 sweeper;
	double			 sweep_due;	/* what it waits for; -1: none */
	int			 sweeper_running, stopping;
	pthread_mutex_t		 lock;	/* everything below; last */
	struct api_config	 cfg;
	uint8_t			 token_digest[32];
	int			 have_token;
	struct api_fail		 fails[API_FAIL_SLOTS];
	struct api_cached	 cache[API_CACHE_SLOTS];
	uint8_t			 cache_key[16];	/* keys the slots' hash */
	uint64_t		 cache_seq;	/* answers kept, in order */
	/*
	 * Answers made (not kept ones): a token bucket of API_ANSWER_RATE,
	 * and, once half its burst is spent, at most one HTTP thread fewer
	 * than there are at once, so that new questions in a loop cannot
	 * take every thread and CPU.
	 */
	double			 answer_tokens;
	double			 answer_refilled;	/* 0: never */
	unsigned		 answering;
	struct api_hit		 hits[API_HIT_SLOTS];	/* in order seen */
	size_t			 nhits;
	struct api_latency	 latency[API_ROUTES + 1][API_METHODS];
	struct {
		int64_t		 run;
		json_t		*presets;
		uint64_t	 used;	/* run_presets_clock when last read */
	}			 run_presets[API_RUN_PRESETS_SLOTS];
	uint64_t		 run_presets_clock;
	struct api_fleet	*fleet;		/* fleet.c, made on first use */
	struct db_gate		 store_gate;	/* store.c: api_db() */
	/*
	 * libmicrohttpd's messages logged (api_mhd_log): a bucket of
	 * API_MHD_LOG_RATE a second, those past it counted, not logged.
	 */
	double			 mhd_log_tokens;
	double			 mhd_log_refilled;
	unsigned long		 mhd_log_dropped;
};

/* The dashboard's files, built in (web_files.c, generated). */
struct api_web_file {
	const char		*name;
	const unsigned char	*data;
	unsigned long		 len;
};
extern const struct api_web_file	api_web_files[];

/*
 * The handlers, one file per resource: each takes the request (arg: what
 * follows a prefix route's path) and fills rep.
 */
#define API_HANDLER(name) int name(struct api_server *, \
    struct MHD_Connection *, struct api_request *, const char *, \
    struct api_reply *)
API_HANDLER(h_healthz);			/* health.c */
API_HANDLER(h_readyz);
API_HANDLER(h_metrics);			/* metrics.c */
API_HANDLER(h_recommendation);		/* recommendation.c */
API_HANDLER(h_presets);
API_HANDLER(h_runs_list);		/* runs.c */
API_HANDLER(h_runs_post);
API_HANDLER(h_run_get);
API_HANDLER(h_run_delete);
API_HANDLER(h_check);			/* check.c */
API_HANDLER(h_hosts);			/* hosts.c */
API_HANDLER(h_host_get);
API_HANDLER(h_model);			/* model.c */
API_HANDLER(h_observations_post);	/* observations.c */
API_HANDLER(h_observations_get);
API_HANDLER(h_observations_delete);
API_HANDLER(h_index);			/* static.c */
API_HANDLER(h_static);
API_HANDLER(h_openapi);

/* server.c */
extern const struct api_route	api_routes[];
extern const size_t		api_nroutes;
extern const char *const	api_methods[API_METHODS];
extern const double		api_latency_bounds[API_LATENCY_BUCKETS];
int	 api_token_load(struct api_server *s, const char *path, char *err,
	    size_t errlen);
/* The configuration as it is now, copied under the server's lock. */
void	 api_cfg(struct api_server *s, struct api_config *out);
/* The host's state (api_env.state) and its store notes. */
void	 api_state(struct api_server *s, struct api_state *out);
void	 api_store_note(struct api_server *s, enum db_status st,
	    const char *err);
/* A copy of the model in use (free it), or NULL when there is none (or
   no memory); with the state of that moment in *st (may be NULL). */
struct model *api_model_dup(struct api_server *s, struct api_state *st);
/* 1 when the store is a PostgreSQL database. */
int	 api_store_is_pg(struct api_server *s);

/* reply.c */
/* JSON j (taken) with status, nosniff and no-cache; etag may be NULL. */
int	 api_ok(struct api_reply *rep, int status, json_t *j,
	    const char *etag);
/* The same of JSON text already written (taken). */
int	 api_ok_text(struct api_reply *rep, int status, char *text,
	    const char *etag);
void	 api_reply_header(struct api_reply *rep, const char *name,
	    const char *value);
/* Queue rep on c and let go of its body. */
enum MHD_Result api_queue(struct MHD_Connection *c, struct api_reply *rep);
void	 api_reply_free(struct api_reply *rep);

/* problem.c */
/*
 * A problem+json answer naming param (may be NULL) with detail; extra
 * (may be NULL, taken) is merged into the body; retry_after > 0 adds
 * Retry-After. 0, or -1 without memory.
 */
int	 api_fail(struct api_reply *rep, enum api_problem p,
	    const char *param, const char *detail, json_t *extra,
	    unsigned retry_after);
/* The one switch from a store's status to a problem (problem.c). */
int	 api_store_fail(struct api_server *s, struct api_reply *rep,
	    enum db_status st, int writing, const char *param,
	    const char *notfound);
/* 503: no model yet, and why. */
int	 api_no_model(struct api_server *s, struct api_reply *rep);

/* request.c */
/* The recommendation's query into tq and sc, its canonical form into
   canon: 0, or -1 with the problem in rep. */
/*
 * The default question (250 ms at p95, k = 1) as GET /v1/recommendation
 * answers it for stack (NULL: without one): memory capped by the host's
 * budget now, and what its checks found (cs->c: its correction; 1 when
 * none), read under the model's version *version (when not NULL; 0 when
 * no checks are kept).
 */
void	 api_default_question(struct api_server *s, struct tune_query *q,
	    const char *stack, struct check_state *cs, uint64_t *version);

/*
 * A query whose keys are all in allowed (known lists them, for the
 * error), none twice, none with a NUL: 0, or -1 with the problem in rep.
 */
int	 api_query_only(struct MHD_Connection *c, const char *const *allowed,
	    size_t nallowed, const char *known, struct api_reply *rep);
int	 api_parse_query(struct MHD_Connection *c, struct tune_query *tq,
	    struct api_scope *sc, char *canon, size_t canonlen,
	    struct api_reply *rep);
/* scope= or stack= into sc: 0, or -1 with why. */
int	 api_scope_parse(const char *key, const char *v, struct api_scope *sc,
	    char *why, size_t whylen);
/* A stack name: 1 to 63 of letters, digits, '.', '_', '+', '-'. */
int	 api_stack_valid(const char *v);
/* A positive whole number in a path: 0, or -1. */
int	 api_run_id(const char *arg, int64_t *id);
/* The body as a JSON object, strictly; NULL with a 400 in rep. */
json_t	*api_body_json(const struct api_request *r, struct api_reply *rep);

/* store.c */
/* This HTTP thread's store connection (opened on first use), or NULL. */
struct db *api_db(struct api_server *s, char *err, size_t errlen);
/* 1 when the store is reachable (probed at most every few seconds). */
int	 api_store_up(struct api_server *s, char *why, size_t whylen);
/* Retry-After for a write the store refused. */
unsigned api_store_retry(struct api_server *s);

/* fleet.c: scope= and stack= answers, and what they keep. */
int	 api_recommend_scoped(struct api_server *s, const struct tune_query *q,
	    const char *qkey, const struct api_scope *sc,
	    struct api_reply *rep);
/* Scoped answers computed and answered from those kept, for /metrics. */
void	 api_fleet_counts(struct api_server *s, unsigned long long *computed,
	    unsigned long long *cached);
const char *api_scope_name(enum api_scope_kind k);
/* A token of the observations' bucket: 1, 0 (none: 429), -1. */
int	 api_fleet_obs_token(struct api_server *s, unsigned *retry);
/* An observation of stack was stored: its corrections change. */
void	 api_fleet_observed(struct api_server *s, const char *stack);
void	 api_fleet_free(struct api_server *s);

/* hosts.c */
/*
 * The common presets' predicted time on host_id as its model (on
 * fingerprint: db_model_run) gives them; cached while run is its newest.
 */
json_t	*api_run_presets(struct api_server *s, struct db *db,
	    const char *host_id, const char *fingerprint, int64_t run);
void	 api_hosts_free(struct api_server *s);

/* server.c: a line of the host's log through s's env (api_env.log). */
/* Seconds on the monotonic clock. */
double	 api_now(void);
/*
 * A token bucket's tokens refilled at rate a second since *refilled (0:
 * never, as it was made: full), up to burst; *refilled becomes now.
 * Under the lock that guards them.
 */
void	 api_bucket_refill(double *tokens, double *refilled, double rate,
	    double burst);
void	 api_log(const struct api_server *s, enum api_log_level level,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* PWTUNE_API_IMPL_H */
