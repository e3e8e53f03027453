/*
 * api/store.c: the store as the HTTP threads reach it: one connection per
 * thread, opened on first use, never tried while a database is known to
 * be away; and whether the store is up, in words fit for anyone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_impl.h"

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

/* What the store says of itself (a file moved aside): the host's log. */
static void
api_store_log(void *ctx, const char *msg)
{
	api_log(ctx, API_LOG_WARN, "store: %s", msg);
}

/*
 * A PostgreSQL store that does not answer holds whoever talks to it (for
 * up to connect_timeout to connect, API_STORE_QUERY_MS for a statement),
 * and an HTTP thread held holds every connection it serves. So:
 *
 *   - while the store is known to be away, HTTP threads do not try it at
 *     all (503 at once): the job runner probes it every API_STORE_PROBE_S
 *     seconds off the HTTP threads and says when it is back;
 *   - a statement not answered in API_STORE_QUERY_MS drops its connection
 *     and marks the store away;
 *   - at most all HTTP threads but one wait on the database at once,
 *     connecting or in a statement (a turn not had within
 *     API_STORE_OPEN_WAIT_MS is 503), so /healthz, /readyz and answers
 *     from memory always have a thread.
 */
static pthread_mutex_t	store_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	store_gate_free = PTHREAD_COND_INITIALIZER;
static unsigned		store_gate_in;

static int
api_store_enter(void *ctx)
{
	struct api_server	*s = ctx;
	struct timespec		 until;
	unsigned		 max;
	int			 rc = 0;

	pthread_mutex_lock(&s->lock);
	max = s->cfg.threads > 1 ? s->cfg.threads - 1 : 1;
	pthread_mutex_unlock(&s->lock);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += API_STORE_OPEN_WAIT_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&store_gate_lock);
	while (store_gate_in >= max && rc == 0)
		rc = pthread_cond_timedwait(&store_gate_free,
		    &store_gate_lock, &until);
	if (store_gate_in < max) {
		store_gate_in++;
		rc = 0;
	}
	pthread_mutex_unlock(&store_gate_lock);
	return rc;
}

static void
api_store_turn_back(void)
{
	pthread_mutex_lock(&store_gate_lock);
	store_gate_in--;
	pthread_cond_signal(&store_gate_free);
	pthread_mutex_unlock(&store_gate_lock);
}

static void
api_store_leave(void *ctx, enum db_status st, const char *err)
{
	api_store_turn_back();
	if (st == DB_ERR_UNAVAILABLE)
		api_store_note(ctx, st, err);
}

struct db *
api_db(struct api_server *s, char *err, size_t errlen)
{
	struct db_open_opts	 o = { 0, 0, 1, api_store_log, s };
	struct api_state	 hs;
	struct db		*db;
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
	/* Connecting waits on the database too: it takes a turn. */
	if (pg) {
		if (api_store_enter(s) != 0) {
			snprintf(err, errlen, "the store is slow to answer: "
			    "other requests are waiting on it");
			return NULL;
		}
		gated = 1;
	}
	st = db_open(store, &o, &db, err, errlen);
	if (gated)
		api_store_turn_back();
	if (st != DB_OK) {
		api_store_note(s, st, err);
		return NULL;
	}
	s->store_gate.enter = api_store_enter;
	s->store_gate.leave = api_store_leave;
	s->store_gate.ctx = s;
	db_set_limits(db, API_STORE_QUERY_MS, &s->store_gate);
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
