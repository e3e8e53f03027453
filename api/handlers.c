/*
 * api/handlers.c: one function per endpoint. Answers come from the model
 * in memory (cached per model and query, with an ETag); runs go to the job
 * runner; the store is read through one connection per HTTP thread.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "api_impl.h"
#include "presets.h"
#include "units.h"

#define QUERY_MAX	16

/*
 * Each HTTP thread has its own store connection, opened on first use and
 * closed when the thread ends (libmicrohttpd joins its pool on stop).
 */
static pthread_key_t	db_key;
static pthread_once_t	db_key_once = PTHREAD_ONCE_INIT;

static void
api_db_close(void *db)
{
	db_close(db);
}

static void
api_db_key(void)
{
	pthread_key_create(&db_key, api_db_close);
}

/*
 * A PostgreSQL store that does not answer holds whoever talks to it for up
 * to connect_timeout, and an HTTP thread held holds every connection it
 * serves. So while the store is known to be away, HTTP threads do not try
 * it at all (503 at once): the job runner probes it every
 * API_STORE_PROBE_S seconds off the HTTP threads and says when it is back.
 * And only one HTTP thread at a time opens a new connection to it; another
 * that would wait more than API_STORE_OPEN_WAIT_MS for that answers 503.
 * /healthz, /readyz and answers from memory keep the other threads.
 */
static pthread_mutex_t	store_open_lock = PTHREAD_MUTEX_INITIALIZER;

struct db *
api_db(struct api_server *s, char *err, size_t errlen)
{
	struct db_open_opts	 o = { 0, 0, 1, NULL, NULL };
	struct api_state	 hs;
	struct db		*db;
	struct timespec		 until;
	enum db_status		 st;
	char			 store[API_PATH_MAX];
	int			 away, pg, gated = 0;

	pthread_mutex_lock(&s->lock);
	snprintf(store, sizeof(store), "%s", s->cfg.store);
	pthread_mutex_unlock(&s->lock);
	pg = db_is_postgresql(store);
	api_state(s, &hs);
	away = pg && !hs.store_up && hs.store_status == DB_ERR_UNAVAILABLE;
	if (away) {
		snprintf(err, errlen, "the store cannot be reached (tried "
		    "again every %d s)", API_STORE_PROBE_S);
		return NULL;
	}
	pthread_once(&db_key_once, api_db_key);
	if ((db = pthread_getspecific(db_key)) != NULL)
		return db;
	if (pg) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += API_STORE_OPEN_WAIT_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (pthread_mutex_timedlock(&store_open_lock, &until) != 0) {
			snprintf(err, errlen, "the store is slow to answer: "
			    "another request is connecting to it");
			return NULL;
		}
		gated = 1;
	}
	st = db_open(store, &o, &db, err, errlen);
	if (gated)
		pthread_mutex_unlock(&store_open_lock);
	if (st != DB_OK) {
		api_store_note(s, st, err);
		return NULL;
	}
	pthread_setspecific(db_key, db);
	return db;
}

/*
 * Why the store is away, in words fit for anyone who asks (GET /readyz is
 * unauthenticated): never the store's own message, which names the file,
 * or the database's host and user in libpq's words. The log has those.
 */
static const char *
api_store_reason(enum db_status st)
{
	switch (st) {
	case DB_ERR_UNAVAILABLE:
		return "the database cannot be reached";
	case DB_ERR_FULL:
		return "the store's file system is full";
	case DB_ERR_READONLY:
		return "the store is read-only";
	case DB_ERR_CANTOPEN:
		return "the store cannot be opened";
	case DB_ERR_BUSY:
		return "the store is busy";
	case DB_ERR_IO:
		return "the store had an I/O error";
	default:
		return "the store cannot be used";
	}
}

/*
 * Is the store reachable? For a file, asked at most every
 * API_STORE_PROBE_S seconds (a round trip on this thread's connection). A
 * database is never probed here: the job runner does it off the HTTP
 * threads; this says what the last operation on it saw.
 * why gets a reason without details (api_store_reason).
 */
int
api_store_up(struct api_server *s, char *why, size_t whylen)
{
	struct api_state	 hs;
	struct db		*db;
	enum db_status		 st;
	char			 err[512];

	api_state(s, &hs);
	if (!api_store_is_pg(s) && time(NULL) - hs.store_seen >=
	    API_STORE_PROBE_S) {
		if ((db = api_db(s, err, sizeof(err))) != NULL) {
			st = db_ping(db, err, sizeof(err));
			api_store_note(s, st, err);
		}
	}
	api_state(s, &hs);
	snprintf(why, whylen, "%s", hs.store_up ? "" :
	    api_store_reason(hs.store_status));
	return hs.store_up;
}

enum MHD_Result
h_healthz(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	(void)s;
	(void)r;
	(void)arg;
	return api_json(c, 200, json_pack("{s:s}", "status", "ok"), NULL,
	    status);
}

/*
 * 503 for a daemon without a model yet, saying why: the store cannot be
 * reached (at start), the first benchmark is running, or none was asked.
 */
enum MHD_Result
api_no_model(struct api_server *s, struct MHD_Connection *c, int *status)
{
	struct api_state	hs;
	int			up, deferred, running;

	api_state(s, &hs);
	up = hs.store_up;
	deferred = hs.store_deferred;
	running = hs.running_run != 0 || hs.queued_run != 0;
	return api_problem(c, PROB_NOT_READY, NULL, !up ? "the store cannot "
	    "be reached and no model is loaded yet: answers come once it is "
	    "back" : deferred ? "the store is back: this host's model is "
	    "being loaded" : running ? "no measurements of this host yet: the "
	    "first benchmark is running, answers come when it ends" : "no "
	    "measurements of this host yet: POST /v1/runs starts a benchmark",
	    NULL, deferred ? 2 : 10, status);
}

enum MHD_Result
h_readyz(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct api_state	hs;
	int64_t			run;
	int			have, up;
	char			why[256];

	(void)r;
	(void)arg;
	up = api_store_up(s, why, sizeof(why));
	api_state(s, &hs);
	have = hs.have_model;
	run = hs.model_run;
	if (!have)
		return api_no_model(s, c, status);
	/* Answers come from the model in memory, store or no store. */
	return api_json(c, 200, json_pack("{s:b, s:I, s:{s:s, s:b, s:s?}}",
	    "ready", 1, "model_run", (json_int_t)run, "store", "engine",
	    api_store_is_pg(s) ? "postgresql" : "sqlite",
	    "reachable", up, "error", up ? NULL : why), NULL, status);
}

/*
 * Retry-After for a write the store refused: a database away is tried
 * again within seconds (API_STORE_PROBE_S); a full or read-only disk
 * needs an operator.
 */
unsigned
api_store_retry(struct api_server *s)
{
	struct api_state	hs;

	api_state(s, &hs);
	return hs.store_status == DB_ERR_UNAVAILABLE ? 5 : 30;
}

enum MHD_Result
api_store_unreadable(struct MHD_Connection *c, int *status)
{
	return api_problem(c, PROB_STORE, NULL, "the store cannot be read",
	    NULL, 5, status);
}

/* Strict unsigned decimal: digits only, no sign, at most 10 of them. */
static int
api_uint(const char *v, unsigned long long *out)
{
	size_t	i, n = strlen(v);

	if (n == 0 || n > 10)
		return n == 0 ? -1 : -2;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)v[i]))
			return -1;
	*out = strtoull(v, NULL, 10);
	return 0;
}

struct query_arg {
	const char	*keys[QUERY_MAX];
	const char	*values[QUERY_MAX];
	size_t		 n;
	int		 overflow;
	const char	*nul;		/* a key or value with a NUL inside */
};

static enum MHD_Result
api_collect(void *cls, enum MHD_ValueKind kind, const char *key,
    size_t key_size, const char *value, size_t value_size)
{
	struct query_arg	*q = cls;

	(void)kind;
	if (q->n == QUERY_MAX) {
		q->overflow = 1;
		return MHD_NO;
	}
	/* %00 decodes to a NUL that C strings would silently cut at. */
	if (strlen(key) != key_size || (value != NULL &&
	    strlen(value) != value_size))
		q->nul = key;
	q->keys[q->n] = key;
	q->values[q->n] = value != NULL ? value : "";
	q->n++;
	return MHD_YES;
}

/*
 * Read the recommendation's query into *tq. On error, queue the problem
 * and return -1.
 */
static int
api_parse_query(struct MHD_Connection *c, struct tune_query *tq,
    struct api_scope *sc, char *canon, size_t canonlen, int *status,
    enum MHD_Result *rc)
{
	static const char *const allowed[] = { "target_ms", "percentile",
	    "concurrency", "memory_max", "parallelism", "variant", "backend",
	    "floor", "objective", "scope", "stack" };
	struct query_arg	 q;
	unsigned long long	 u;
	uint64_t		 kib;
	size_t			 i, j, used = 0;
	const char		*k, *v;
	char			 why[160];
	int			 have_target = 0, e;

	memset(&q, 0, sizeof(q));
	memset(sc, 0, sizeof(*sc));
	tune_query_init(tq);
	MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, api_collect,
	    &q);
	if (q.overflow) {
		*rc = api_problem(c, PROB_BAD_PARAM, NULL, "too many query "
		    "parameters", NULL, 0, status);
		return -1;
	}
	if (q.nul != NULL) {
		*rc = api_problem(c, PROB_BAD_PARAM, q.nul, "contains a NUL "
		    "byte", NULL, 0, status);
		return -1;
	}
	for (i = 0; i < q.n; i++) {
		k = q.keys[i];
		v = q.values[i];
		for (j = 0; j < sizeof(allowed) / sizeof(allowed[0]); j++)
			if (strcmp(k, allowed[j]) == 0)
				break;
		if (j == sizeof(allowed) / sizeof(allowed[0])) {
			snprintf(why, sizeof(why), "unknown parameter (known: "
			    "target_ms, percentile, concurrency, memory_max, "
			    "parallelism, variant, backend, floor, objective, "
			    "scope, stack)");
			goto bad;
		}
		for (j = 0; j < i; j++)
			if (strcmp(q.keys[j], k) == 0) {
				snprintf(why, sizeof(why), "given twice");
				goto bad;
			}
		if (strcmp(k, "target_ms") == 0 || strcmp(k, "percentile") ==
		    0 || strcmp(k, "concurrency") == 0) {
			if ((e = api_uint(v, &u)) == -1) {
				snprintf(why, sizeof(why), "must be a whole "
				    "number");
				goto bad;
			}
			if (strcmp(k, "target_ms") == 0) {
				if (e == -2 || u < TUNE_TARGET_MIN_MS ||
				    u > TUNE_TARGET_MAX_MS) {
					snprintf(why, sizeof(why), "must be from "
					    "%d to %d", TUNE_TARGET_MIN_MS,
					    TUNE_TARGET_MAX_MS);
					goto policy;
				}
				tq->target_ms = (double)u;
				have_target = 1;
			} else if (strcmp(k, "percentile") == 0) {
				if (e == -2 || (u != 50 && u != 95 && u != 99)) {
					snprintf(why, sizeof(why), "must be 50, "
					    "95 or 99");
					goto policy;
				}
				tq->percentile = (int)u;
			} else {
				if (e == -2 || u < 1 || u > 1024) {
					snprintf(why, sizeof(why), "must be from "
					    "1 to 1024");
					goto policy;
				}
				tq->k = (uint32_t)u;
			}
		} else if (strcmp(k, "memory_max") == 0) {
			if (units_parse_kib(v, UNITS_MEMORY_MAX_KIB,
			    &kib) == -1) {
				snprintf(why, sizeof(why), "must be a size such "
				    "as 256MiB or 1GiB, or KiB as an integer, "
				    "up to 1 TiB");
				goto bad;
			}
			tq->memory_max_kib = kib;
		} else if (strcmp(k, "parallelism") == 0) {
			if (strcmp(v, "auto") == 0)
				tq->parallelism = 0;
			else if ((e = api_uint(v, &u)) == -1) {
				snprintf(why, sizeof(why), "must be auto or a "
				    "whole number");
				goto bad;
			} else if (e == -2 || u < 1 || u > 255) {
				snprintf(why, sizeof(why), "must be from 1 to "
				    "255");
				goto policy;
			} else
				tq->parallelism = (uint32_t)u;
		} else if (strcmp(k, "variant") == 0) {
			if (kdf_alg_parse(v, &tq->variant) == -1 ||
			    !kdf_alg_is_argon2(tq->variant)) {
				snprintf(why, sizeof(why), "must be argon2id, "
				    "argon2i or argon2d");
				goto bad;
			}
		} else if (strcmp(k, "backend") == 0) {
			if (kdf_backend_parse(v, &tq->backend) == -1 ||
			    tq->backend == KDF_BACKEND_LIBCRYPT) {
				snprintf(why, sizeof(why), "must be libsodium, "
				    "libargon2 or auto");
				goto bad;
			}
		} else if (strcmp(k, "scope") == 0 || strcmp(k, "stack") == 0) {
			if (api_scope_parse(k, v, sc, why, sizeof(why)) == -1)
				goto bad;
		} else if (strcmp(k, "floor") == 0) {
			if (tune_floor_parse(v, &tq->floor) == -1) {
				snprintf(why, sizeof(why), "must be owasp, "
				    "rfc9106 or none");
				goto bad;
			}
		} else if (tune_objective_parse(v, &tq->objective) == -1) {
			snprintf(why, sizeof(why), "must be memory-first or "
			    "attacker-cost");
			goto bad;
		}
	}
	if (!have_target) {
		k = "target_ms";
		snprintf(why, sizeof(why), "is required (milliseconds, 1 to "
		    "%d)", TUNE_TARGET_MAX_MS);
		goto bad;
	}
	used = (size_t)snprintf(canon, canonlen, "%.0f|%d|%u|%llu|%u|%d|%d|"
	    "%d|%d", tq->target_ms, tq->percentile, (unsigned)tq->k,
	    (unsigned long long)tq->memory_max_kib, (unsigned)tq->parallelism,
	    tq->variant, tq->backend, tq->floor, tq->objective);
	(void)used;
	return 0;
bad:
	*rc = api_problem(c, PROB_BAD_PARAM, k, why, NULL, 0, status);
	return -1;
policy:
	*rc = api_problem(c, PROB_POLICY, k, why, NULL, 0, status);
	return -1;
}

/*
 * An answer copied out of the cache, or computed and kept there. The copy
 * is taken under the same lock that found or filled the slot: another
 * question may take the slot the moment the lock is dropped.
 */
struct api_answer_copy {
	char	*body;
	char	 etag[API_ETAG_LEN];
	int	 status;
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
};

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
	struct api_server	*s = a->s;
	struct tune_answer	 ta;
	struct tune_query	 qq;
	uint64_t		 now_kib;
	uint8_t			 h[8];

	if (m == NULL) {
		a->no_model = 1;
		return;
	}
	a->version = st->model_version;
	a->run = st->model_run;
	crypto_generichash(h, sizeof(h), (const uint8_t *)a->key,
	    strlen(a->key), NULL, 0);
	pthread_mutex_lock(&s->lock);
	a->slot = &s->cache[(h[0] | h[1] << 8) % API_CACHE_SLOTS];
	if (a->slot->body != NULL && a->slot->version == a->version &&
	    strcmp(a->slot->key, a->key) == 0) {
		a->hit = 1;
		a->rc = api_answer_take(a->slot, a->out);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	pthread_mutex_unlock(&s->lock);
	/*
	 * Never more memory than this host has now (as probed at start: a
	 * cgroup may be smaller than when the model's run was measured).
	 */
	qq = *a->q;
	now_kib = host_memory_budget(s->env.host, a->memory_max, NULL) /
	    1024;
	if (now_kib > 0 && (qq.memory_max_kib == 0 ||
	    qq.memory_max_kib > now_kib))
		qq.memory_max_kib = now_kib;
	a->rc = tune_recommend(m, &qq, &ta, a->err, a->errlen);
	if (a->rc == -1)
		return;
	a->stale = st->model_stale;
	a->j = tune_answer_to_json(&ta, m);
}

/*
 * Compute an answer, or find it in the cache: 0 with a copy in out, -1
 * with no model (*no_model set) or an error in err.
 */
static int
api_answer(struct api_server *s, const struct tune_query *q, const char *key,
    struct api_answer_copy *out, char *err, size_t errlen, int *no_model)
{
	struct api_answer_arg	 a;
	struct api_cached	*slot;
	json_t			*j;
	char			*body;

	memset(&a, 0, sizeof(a));
	a.s = s;
	a.q = q;
	a.key = key;
	a.out = out;
	a.err = err;
	a.errlen = errlen;
	pthread_mutex_lock(&s->lock);
	a.memory_max = s->cfg.memory_max;
	pthread_mutex_unlock(&s->lock);
	s->env.with_model(s->env.ctx, api_answer_locked, &a);
	if (a.no_model) {
		*no_model = 1;
		return -1;
	}
	if (a.hit) {
		if (a.rc == -1)
			snprintf(err, errlen, "out of memory");
		return a.rc;
	}
	if (a.rc == -1)
		return -1;
	j = a.j;
	slot = a.slot;
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
	/* Kept for the next asker, unless a newer model came meanwhile. */
	pthread_mutex_lock(&s->lock);
	if (slot->body == NULL || slot->version <= a.version) {
		char	*kept;

		if ((kept = strdup(body)) != NULL) {
			free(slot->body);
			slot->body = kept;
			snprintf(slot->key, sizeof(slot->key), "%s", key);
			slot->version = a.version;
			slot->status = out->status;
			snprintf(slot->etag, sizeof(slot->etag), "%s",
			    out->etag);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

enum MHD_Result
h_recommendation(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct tune_query	 q;
	struct api_scope	 sc;
	struct api_answer_copy	 ans;
	struct MHD_Response	*resp;
	const char		*inm;
	char			 key[256], err[512];
	enum MHD_Result		 rc;
	int			 no_model = 0;

	(void)r;
	(void)arg;
	if (api_parse_query(c, &q, &sc, key, sizeof(key), status, &rc) == -1)
		return rc;
	/* Other hosts, or a stack's correction: answered in fleet.c. */
	if (sc.kind != API_SCOPE_HOST || sc.stack[0] != '\0')
		return api_recommend_scoped(s, c, &q, key, &sc, status);
	if (api_answer(s, &q, key, &ans, err, sizeof(err), &no_model) == -1) {
		if (no_model)
			return api_no_model(s, c, status);
		return api_problem(c, PROB_POLICY, NULL, err, NULL, 0, status);
	}
	inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
	if (ans.status == 200 && inm != NULL && strcmp(inm, ans.etag) == 0) {
		free(ans.body);
		resp = MHD_create_response_from_buffer(0, NULL,
		    MHD_RESPMEM_PERSISTENT);
		MHD_add_response_header(resp, "ETag", ans.etag);
		*status = 304;
		rc = MHD_queue_response(c, 304, resp);
		MHD_destroy_response(resp);
		return rc;
	}
	if (ans.status == 422) {
		json_t	*j = json_loads(ans.body, 0, NULL);
		char	 why[512];

		free(ans.body);
		snprintf(why, sizeof(why), "%s", json_string_value(
		    json_object_get(j, "error")));
		rc = api_problem(c, PROB_POLICY, "target_ms", why,
		    json_pack("{s:O}", "closest", json_object_get(j,
		    "closest")), 0, status);
		json_decref(j);
		return rc;
	}
	resp = MHD_create_response_from_buffer(strlen(ans.body), ans.body,
	    MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(resp, "Content-Type", "application/json");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	MHD_add_response_header(resp, "ETag", ans.etag);
	*status = 200;
	rc = MHD_queue_response(c, 200, resp);
	MHD_destroy_response(resp);
	return rc;
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
	json_t				*list = arg, *item;
	size_t				 n, i;
	uint32_t			 p;
	char				 err[256];

	(void)st;
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
				json_object_set_new(item, "predicted_ms_p95",
				    json_real(pr.ms));
				json_object_set_new(item, "predicted_note",
				    json_string(pre[i].p > 1 ? "upper bound: "
				    "measured with p = 1" : pr.extrapolated ?
				    "extrapolated" : ""));
			}
		}
		json_array_append_new(list, item);
	}
}

enum MHD_Result
h_presets(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	json_t	*list = json_array();

	(void)r;
	(void)arg;
	s->env.with_model(s->env.ctx, api_presets_locked, list);
	return api_json(c, 200, json_pack("{s:o}", "presets", list), NULL,
	    status);
}

static json_t *
api_run_json(struct api_server *s, const struct db_run *run)
{
	struct api_state	 hs;
	json_t			*j;

	j = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, "
	    "s:s, s:s, s:s}",
	    "id", (json_int_t)run->id,
	    "host_id", run->host_id,
	    "fingerprint", run->fingerprint,
	    "profile", run->profile,
	    "trigger", db_trigger_name(run->trigger),
	    "status", db_run_status_name(run->status),
	    "points_done", run->points_done,
	    "points_total", run->points_total,
	    "noisy_points", run->noisy_points,
	    "created", run->created,
	    "started", run->started,
	    "finished", run->finished,
	    "error", run->error);
	api_state(s, &hs);
	if (hs.running_run == run->id)
		json_object_set_new(j, "progress", json_pack("{s:I, s:I, s:f}",
		    "done", (json_int_t)hs.points_done, "total",
		    (json_int_t)hs.points_total, "eta_s", hs.eta));
	else if (hs.pending_run == run->id) {
		/* Ended, but the store could not record it yet. */
		json_object_set_new(j, "status", json_string(
		    db_run_status_name(hs.pending_status)));
		json_object_set_new(j, "error", json_string(
		    hs.pending_error));
		json_object_set_new(j, "recorded", json_false());
	}
	return j;
}

enum MHD_Result
h_runs_list(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct db_run	*runs;
	struct db	*db;
	size_t		 n, i;
	json_t		*list;
	char		 err[512];

	(void)r;
	(void)arg;
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_runs_list(db, NULL, 100, &runs, &n, err, sizeof(err)) != DB_OK)
		return api_store_unreadable(c, status);
	list = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(list, api_run_json(s, &runs[i]));
	free(runs);
	return api_json(c, 200, json_pack("{s:o}", "runs", list), NULL, status);
}

static int
api_run_id(const char *arg, int64_t *id)
{
	unsigned long long	u;

	if (api_uint(arg, &u) != 0 || u == 0)
		return -1;
	*id = (int64_t)u;
	return 0;
}

enum MHD_Result
h_run_get(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct db_run	 run;
	struct db	*db;
	int64_t		 id;
	char		 err[512];
	enum db_status	 st;

	(void)r;
	if (api_run_id(arg, &id) == -1)
		return api_problem(c, PROB_NOT_FOUND, "id", "run ids are "
		    "positive whole numbers", NULL, 0, status);
	if ((db = api_db(s, err, sizeof(err))) == NULL)
		return api_store_unreadable(c, status);
	if ((st = db_run_get(db, id, &run, err, sizeof(err))) == DB_ERR_NOTFOUND)
		return api_problem(c, PROB_NOT_FOUND, "id", "no such run", NULL,
		    0, status);
	if (st != DB_OK)
		return api_store_unreadable(c, status);
	return api_json(c, 200, api_run_json(s, &run), NULL, status);
}

/* Nesting depth of raw JSON, outside strings. */
static int
api_json_depth(const char *p, size_t n)
{
	int	depth = 0, max = 0, in_string = 0;
	size_t	i;

	for (i = 0; i < n; i++) {
		if (in_string) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				in_string = 0;
		} else if (p[i] == '"')
			in_string = 1;
		else if (p[i] == '{' || p[i] == '[') {
			if (++depth > max)
				max = depth;
		} else if (p[i] == '}' || p[i] == ']')
			depth--;
	}
	return max;
}

json_t *
api_body_json(struct MHD_Connection *c, struct api_request *r, int *status,
    enum MHD_Result *rc)
{
	json_error_t	 jerr;
	json_t		*j;
	char		 why[256];

	if (api_json_depth(r->body, r->bodylen) > API_JSON_DEPTH_MAX) {
		*rc = api_problem(c, PROB_BAD_JSON, NULL, "JSON nested deeper "
		    "than 8 levels", NULL, 0, status);
		return NULL;
	}
	j = json_loadb(r->body, r->bodylen, JSON_REJECT_DUPLICATES, &jerr);
	if (j == NULL) {
		snprintf(why, sizeof(why), "at byte %d: %s", jerr.position,
		    jerr.text);
		*rc = api_problem(c, PROB_BAD_JSON, NULL, why, NULL, 0, status);
		return NULL;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		*rc = api_problem(c, PROB_BAD_JSON, NULL, "the body must be a "
		    "JSON object", NULL, 0, status);
		return NULL;
	}
	return j;
}

enum MHD_Result
h_runs_post(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct db_run	 run;
	struct db	*db;
	json_t		*j = NULL, *v;
	const char	*profile = "quick", *key;
	char		 err[512], loc[64];
	int64_t		 id;
	unsigned	 retry = 0;
	enum MHD_Result	 rc;
	struct MHD_Response *resp;

	(void)arg;
	if (r->bodylen > 0) {
		if ((j = api_body_json(c, r, status, &rc)) == NULL)
			return rc;
		json_object_foreach(j, key, v) {
			if (strcmp(key, "profile") != 0) {
				/* key lives in j: answer before letting go. */
				rc = api_problem(c, PROB_BAD_PARAM, key,
				    "unknown member: the body takes "
				    "{\"profile\": \"quick\" | \"full\"}", NULL,
				    0, status);
				json_decref(j);
				return rc;
			}
		}
		if ((v = json_object_get(j, "profile")) != NULL) {
			if (!json_is_string(v) ||
			    (strcmp(json_string_value(v), "quick") &&
			    strcmp(json_string_value(v), "full"))) {
				json_decref(j);
				return api_problem(c, PROB_BAD_PARAM, "profile",
				    "must be \"quick\" or \"full\"", NULL, 0,
				    status);
			}
			profile = strcmp(json_string_value(v), "full") == 0 ?
			    "full" : "quick";
		}
		json_decref(j);
	}
	switch (s->env.run_request(s->env.ctx, profile, &id, &retry, err,
	    sizeof(err))) {
	case 1:
		return api_problem(c, PROB_CONFLICT, NULL, "a run is queued or "
		    "running: GET /v1/runs shows it", NULL, retry, status);
	case 2:
		return api_problem(c, PROB_TOO_MANY, NULL, "a run ended less "
		    "than the cool-down ago", NULL, retry, status);
	case -1:
		log_warn("POST /v1/runs: %s", err);
		return api_problem(c, PROB_STORE, NULL, "the store cannot be "
		    "written", NULL, api_store_retry(s), status);
	}
	log_info("run %lld requested through the API (%s)", (long long)id,
	    profile);
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_run_get(db, id, &run, err, sizeof(err)) != DB_OK)
		return api_store_unreadable(c, status);
	if ((resp = api_json_response(api_run_json(s, &run),
	    "application/json", "no-cache")) == NULL)
		return MHD_NO;
	snprintf(loc, sizeof(loc), "/v1/runs/%lld", (long long)id);
	MHD_add_response_header(resp, "Location", loc);
	*status = 202;
	rc = MHD_queue_response(c, 202, resp);
	MHD_destroy_response(resp);
	return rc;
}

enum MHD_Result
h_run_delete(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct db_run	 run;
	struct db	*db;
	int64_t		 id;
	char		 err[512];

	(void)r;
	if (api_run_id(arg, &id) == -1)
		return api_problem(c, PROB_NOT_FOUND, "id", "run ids are "
		    "positive whole numbers", NULL, 0, status);
	if (s->env.run_cancel(s->env.ctx, id) == 0) {
		log_info("run %lld cancelled through the API", (long long)id);
		return api_json(c, 202, json_pack("{s:I, s:s}", "id",
		    (json_int_t)id, "status", "cancelling"), NULL, status);
	}
	if ((db = api_db(s, err, sizeof(err))) == NULL)
		return api_store_unreadable(c, status);
	if (db_run_get(db, id, &run, err, sizeof(err)) != DB_OK)
		return api_problem(c, PROB_NOT_FOUND, "id", "no such run", NULL,
		    0, status);
	return api_problem(c, PROB_CONFLICT, "id", "the run is not queued or "
	    "running", NULL, 0, status);
}

/* What a check reads of the model in use. */
struct api_check_arg {
	const struct kdf_params		*kp;
	int				 have, t, curve;
	struct tune_answer		 a;
	struct model_prediction		 pr;
};

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

enum MHD_Result
h_check(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct api_check_arg		 ck;
	struct tune_rehash		 rh;
	struct kdf_params		 kp;
	json_t				*j, *enc, *out;
	char				 err[256];
	enum MHD_Result			 rc;

	(void)arg;
	memset(&kp, 0, sizeof(kp));
	memset(&ck, 0, sizeof(ck));
	if ((j = api_body_json(c, r, status, &rc)) == NULL)
		return rc;
	enc = json_object_get(j, "encoded");
	if (!json_is_string(enc) || json_object_size(j) != 1) {
		json_decref(j);
		return api_problem(c, PROB_BAD_PARAM, "encoded", "the body "
		    "takes {\"encoded\": \"$argon2id$v=19$m=...\"}", NULL, 0,
		    status);
	}
	/* Parsed, never hashed: no client input reaches Argon2. */
	if (kdf_identify(json_string_value(enc), &kp, err, sizeof(err)) ==
	    -1 || (!kdf_alg_is_argon2(kp.alg) && snprintf(err, sizeof(err),
	    "not an Argon2 string") > 0)) {
		json_decref(j);
		return api_problem(c, PROB_BAD_PARAM, "encoded", err, NULL, 0,
		    status);
	}
	ck.kp = &kp;
	s->env.with_model(s->env.ctx, api_check_locked, &ck);
	if (!ck.have) {
		json_decref(j);
		return api_no_model(s, c, status);
	}
	out = json_pack("{s:s, s:I, s:I, s:I, s:b}", "variant",
	    kdf_alg_name(kp.alg), "m_kib", (json_int_t)kp.m_kib, "t",
	    (json_int_t)kp.t, "p", (json_int_t)kp.p, "owasp_floor_met",
	    tune_floor_min_t(TUNE_FLOOR_OWASP, kp.alg, kp.m_kib) != 0 &&
	    tune_floor_min_t(TUNE_FLOOR_OWASP, kp.alg, kp.m_kib) <= kp.t);
	if (ck.curve)
		json_object_set_new(out, "predicted_ms_p95",
		    json_real(ck.pr.ms));
	if (ck.t >= 0 && tune_needs_rehash(json_string_value(enc), &ck.a, &rh,
	    err, sizeof(err)) == 0)
		json_object_set_new(out, "needs_rehash", json_pack("{s:b, s:b, "
		    "s:s}", "differs", rh.differs, "weaker", rh.weaker,
		    "against", ck.a.phc_prefix));
	json_decref(j);
	return api_json(c, 200, out, NULL, status);
}

/* The text /metrics answers, as it grows. */
struct api_text {
	char	*buf;
	size_t	 cap, len;
};

static void api_out(struct api_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
api_out(struct api_text *t, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < t->cap - t->len)
		t->len += (size_t)n;
}

/* The store and the scoped answers, for api_metrics_locked(). */
struct api_metrics_arg {
	struct api_text		*t;
	int			 up, pg;
	unsigned long long	 computed, cached;
};

/* The runs, the store, the model: under the host's lock. */
static void
api_metrics_locked(const struct model *m, const struct api_state *st,
    void *arg)
{
	struct api_metrics_arg	*ma = arg;
	struct api_text		*t = ma->t;
	struct tune_query	 q;
	struct tune_answer	 a;
	char			 err[256];
	time_t			 now = time(NULL);
	size_t			 i;

	api_out(t, "# HELP pwtuned_runs_total Runs finished since start, by "
	    "status.\n# TYPE pwtuned_runs_total counter\n");
	for (i = DB_RUN_DONE; i <= DB_RUN_INTERRUPTED; i++)
		api_out(t, "pwtuned_runs_total{status=\"%s\"} %llu\n",
		    db_run_status_name((enum db_run_status)i),
		    st->runs_by_status[i]);
	api_out(t, "# HELP pwtuned_store_up 1 when the store can be reached.\n"
	    "# TYPE pwtuned_store_up gauge\npwtuned_store_up{engine=\"%s\"} "
	    "%d\n# HELP pwtuned_store_failures_total Store operations that "
	    "could not reach or write the store.\n"
	    "# TYPE pwtuned_store_failures_total counter\n"
	    "pwtuned_store_failures_total %llu\n", ma->pg ? "postgresql" :
	    "sqlite", ma->up, st->store_failures);
	api_out(t, "# HELP pwtuned_scoped_answers_total Answers for a group, "
	    "the fleet or a stack: computed, or the same question answered "
	    "from the one kept.\n# TYPE pwtuned_scoped_answers_total counter\n"
	    "pwtuned_scoped_answers_total{result=\"computed\"} %llu\n"
	    "pwtuned_scoped_answers_total{result=\"cached\"} %llu\n",
	    ma->computed, ma->cached);
	api_out(t, "# HELP pwtuned_benchmark_in_progress 1 while a run "
	    "measures.\n# TYPE pwtuned_benchmark_in_progress gauge\n"
	    "pwtuned_benchmark_in_progress %d\n", st->running_run != 0);
	api_out(t, "# HELP pwtuned_last_run_age_seconds Age of the newest "
	    "finished run (-1: none).\n# TYPE pwtuned_last_run_age_seconds "
	    "gauge\npwtuned_last_run_age_seconds %lld\n", st->last_done > 0 ?
	    (long long)(now - st->last_done) : -1LL);
	api_out(t, "# HELP pwtuned_model_ready 1 when a model answers.\n"
	    "# TYPE pwtuned_model_ready gauge\npwtuned_model_ready %d\n"
	    "# HELP pwtuned_model_stale 1 when the model was measured on other "
	    "host facts than now (re-benchmark).\n"
	    "# TYPE pwtuned_model_stale gauge\npwtuned_model_stale %d\n",
	    m != NULL, m != NULL && st->model_stale);
	if (m == NULL)
		return;
	api_out(t, "# HELP pwtuned_model_error Leave-one-out relative error "
	    "of the model in use.\n# TYPE pwtuned_model_error gauge\n"
	    "pwtuned_model_error{stat=\"median\"} %.4f\n"
	    "pwtuned_model_error{stat=\"worst\"} %.4f\n",
	    m->loo_median, m->loo_worst);
	tune_query_init(&q);
	if (tune_recommend(m, &q, &a, err, sizeof(err)) == 0)
		api_out(t, "# HELP pwtuned_recommendation The default answer "
		    "(250 ms at p95, k = 1, OWASP floor).\n"
		    "# TYPE pwtuned_recommendation gauge\n"
		    "pwtuned_recommendation{param=\"m_kib\"} %u\n"
		    "pwtuned_recommendation{param=\"t\"} %u\n"
		    "pwtuned_recommendation{param=\"p\"} %u\n"
		    "pwtuned_recommendation{param=\"predicted_ms\"} "
		    "%.3f\n", (unsigned)a.m_kib, (unsigned)a.t,
		    (unsigned)a.p, a.predicted_ms);
}

enum MHD_Result
h_metrics(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	static const char *const bounds[API_LATENCY_BUCKETS] = {
		"0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
		"0.1", "0.25", "1"
	};
	struct api_metrics_arg	 ma;
	struct api_text		 t;
	struct MHD_Response	*resp;
	size_t			 i, k;
	unsigned long long	 cum = 0;
	enum MHD_Result		 rc;
	char			 why[256];

	(void)r;
	(void)arg;
	memset(&ma, 0, sizeof(ma));
	ma.t = &t;
	ma.up = api_store_up(s, why, sizeof(why));
	ma.pg = api_store_is_pg(s);
	api_fleet_counts(s, &ma.computed, &ma.cached);	/* no lock held */
	t.cap = 16384;
	t.len = 0;
	if ((t.buf = malloc(t.cap)) == NULL)
		return MHD_NO;
	api_out(&t, "# HELP pwtuned_http_requests_total Requests by route and "
	    "status class.\n# TYPE pwtuned_http_requests_total counter\n");
	pthread_mutex_lock(&s->lock);
	for (i = 0; i <= api_nroutes; i++)
		for (k = 1; k < 6; k++)
			if (s->hits[i][k] > 0 || (i == 3 && k == 2))
				api_out(&t, "pwtuned_http_requests_total{route="
				    "\"%s %s\",status=\"%zuxx\"} %llu\n",
				    i < api_nroutes ? api_routes[i].method :
				    "any", i < api_nroutes ? api_routes[i].path :
				    "other", k, s->hits[i][k]);
	api_out(&t, "# HELP pwtuned_http_request_seconds Request latency.\n"
	    "# TYPE pwtuned_http_request_seconds histogram\n");
	for (i = 0; i < API_LATENCY_BUCKETS; i++) {
		cum += s->latency[i];
		api_out(&t, "pwtuned_http_request_seconds_bucket{le=\"%s\"} "
		    "%llu\n", bounds[i], cum);
	}
	cum += s->latency[API_LATENCY_BUCKETS];
	api_out(&t, "pwtuned_http_request_seconds_bucket{le=\"+Inf\"} %llu\n"
	    "pwtuned_http_request_seconds_sum %.6f\n"
	    "pwtuned_http_request_seconds_count %llu\n", cum, s->latency_sum,
	    s->latency_count);
	pthread_mutex_unlock(&s->lock);
	s->env.with_model(s->env.ctx, api_metrics_locked, &ma);
	resp = MHD_create_response_from_buffer(t.len, t.buf,
	    MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(resp, "Content-Type",
	    "text/plain; version=0.0.4");
	*status = 200;
	rc = MHD_queue_response(c, 200, resp);
	MHD_destroy_response(resp);
	return rc;
}

static json_t *
api_host_json(struct api_server *s, const struct api_config *cfg,
    struct db *db, const struct db_host *h)
{
	const struct host_info	*self = s->env.host;
	json_t			*facts = h->facts ? json_loads(h->facts, 0, NULL) :
				    NULL;
	json_t			*j;
	enum host_budget_source	 src;
	uint64_t		 budget;
	int			 current = strcmp(h->id, self->host_id) == 0;

	j = json_pack("{s:s, s:s, s:s, s:s, s:o, s:b, s:s}", "id", h->id,
	    "fingerprint", h->fingerprint, "first_seen", h->first_seen,
	    "last_seen", h->last_seen, "facts", facts ? facts : json_object(),
	    "this_host", current, "group", current ? cfg->group : h->group);
	if (current) {
		/* What a run here would get now, and what set it. */
		budget = host_memory_budget(self, cfg->memory_max, &src);
		json_object_set_new(j, "memory_budget", json_pack("{s:I, s:s}",
		    "bytes", (json_int_t)budget, "source",
		    host_budget_source_name(src)));
		json_object_set_new(j, "effective_cpus", json_integer(
		    host_usable_cpus(self)));
		json_object_set_new(j, "current_fingerprint",
		    json_string(self->fingerprint));
	}
	if (h->last_run > 0) {
		json_object_set_new(j, "last_run", json_integer(h->last_run));
		json_object_set_new(j, "last_run_finished",
		    json_string(h->last_run_finished));
		json_object_set_new(j, "last_run_budget", json_pack("{s:I, s:s}",
		    "bytes", (json_int_t)h->last_run_budget, "source",
		    h->last_run_budget_source));
		json_object_set_new(j, "last_run_cpus",
		    json_integer(h->last_run_cpus));
		/* Stale: the newest run was measured on other facts. */
		json_object_set_new(j, "stale", json_boolean(strcmp(
		    h->last_run_fingerprint, current ? self->fingerprint :
		    h->fingerprint) != 0));
		json_object_set_new(j, "presets", db != NULL ?
		    api_run_presets(s, db, h->last_run) : json_array());
	} else {
		json_object_set_new(j, "last_run", json_null());
		json_object_set_new(j, "stale", json_true());
		json_object_set_new(j, "presets", json_array());
	}
	return j;
}

/*
 * The slowest host: on the first preset every host with a fresh run
 * predicts, the one that takes longest. Marks it; returns its id or NULL.
 */
static const char *
api_hosts_slowest(json_t *list)
{
	json_t		*h, *pre, *slow = NULL, *first;
	const char	*name = NULL;
	double		 worst = -1, v;
	size_t		 i, j;

	json_array_foreach(list, i, h) {
		if (json_is_true(json_object_get(h, "stale")))
			continue;
		first = json_array_get(json_object_get(h, "presets"), 0);
		if (first == NULL)
			continue;
		if (name == NULL)
			name = json_string_value(json_object_get(first,
			    "name"));
		json_array_foreach(json_object_get(h, "presets"), j, pre) {
			if (name == NULL || strcmp(json_string_value(
			    json_object_get(pre, "name")), name) != 0)
				continue;
			v = json_real_value(json_object_get(pre,
			    "predicted_ms_p95"));
			if (v > worst) {
				worst = v;
				slow = h;
			}
		}
	}
	json_array_foreach(list, i, h)
		json_object_set_new(h, "slowest", json_boolean(h == slow));
	return slow != NULL ? json_string_value(json_object_get(slow, "id")) :
	    NULL;
}

enum MHD_Result
h_hosts(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct api_config	 cfg;
	struct db_host		*hosts;
	struct db		*db;
	size_t			 n, i;
	json_t			*list, *j;
	const char		*slowest;
	char			 err[512];

	(void)r;
	(void)arg;
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_hosts_list(db, NULL, &hosts, &n, err, sizeof(err)) != DB_OK)
		return api_store_unreadable(c, status);
	api_cfg(s, &cfg);
	list = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(list, api_host_json(s, &cfg, db,
		    &hosts[i]));
	db_hosts_free(hosts, n);
	slowest = api_hosts_slowest(list);
	j = json_pack("{s:o, s:s?, s:s}", "hosts", list, "slowest_host",
	    slowest, "group", cfg.group);
	return api_json(c, 200, j, NULL, status);
}

enum MHD_Result
h_host_get(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct api_config	 cfg;
	struct db_host		*hosts;
	struct db		*db;
	size_t			 n, i;
	json_t			*j;
	char			 err[512];

	(void)r;
	for (i = 0; arg[i] != '\0'; i++)
		if (!isxdigit((unsigned char)arg[i]) || i >= 32)
			return api_problem(c, PROB_NOT_FOUND, "id", "host ids "
			    "are 32 hex digits", NULL, 0, status);
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_hosts_list(db, arg, &hosts, &n, err, sizeof(err)) != DB_OK)
		return api_store_unreadable(c, status);
	if (n == 0) {
		db_hosts_free(hosts, n);
		return api_problem(c, PROB_NOT_FOUND, "id", "no such host",
		    NULL, 0, status);
	}
	api_cfg(s, &cfg);
	j = api_host_json(s, &cfg, db, &hosts[0]);
	db_hosts_free(hosts, n);
	return api_json(c, 200, j, NULL, status);
}

extern const unsigned char	api_openapi_json[];
extern const unsigned long	api_openapi_json_len;

enum MHD_Result
h_openapi(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct MHD_Response	*resp;
	enum MHD_Result		 rc;

	(void)s;
	(void)r;
	(void)arg;
	resp = MHD_create_response_from_buffer(api_openapi_json_len,
	    (void *)(uintptr_t)api_openapi_json, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(resp, "Content-Type", "application/json");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	*status = 200;
	rc = MHD_queue_response(c, 200, resp);
	MHD_destroy_response(resp);
	return rc;
}
