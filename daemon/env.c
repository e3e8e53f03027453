/*
 * daemon/env.c: the API's view of the daemon (struct api_env, api/api.h):
 * the state and the model copied out or read under d->lock, runs asked
 * for and cancelled through the runner, store health noted; and the
 * configuration the API is given, at start and on SIGHUP.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "daemon.h"
#include "measure.h"

/* What the API reads of d. Under d->lock. */
static void
env_fill(const struct daemon *d, struct api_state *st)
{
	size_t	i;

	memset(st, 0, sizeof(*st));
	st->have_model = d->model != NULL;
	st->model_run = d->model_run;
	st->model_version = d->model_version;
	st->model_stale = strcmp(d->model_fingerprint,
	    d->host.fingerprint) != 0;
	st->running_run = d->running_run;
	st->queued_run = d->queued_run;
	st->points_done = d->points_done;
	st->points_total = d->points_total;
	st->points_measured = d->points_measured;
	st->step = d->step;
	st->step_done = d->step_done;
	st->step_total = d->step_total;
	/* The last run of its profile's time, less the time gone (1 s at
	   least while it runs past it); -1: none to go by. */
	st->eta = d->running_run == 0 || d->run_expect <= 0 ? -1 :
	    fmax(1, d->run_expect - (measure_now() - d->run_t0));
	st->last_done = d->last_done;
	st->store_up = d->store_up;
	st->store_status = d->store_status;
	st->store_seen = d->store_seen;
	st->store_failures = d->store_failures;
	st->store_deferred = d->store_deferred;
	st->pending_run = d->pending_run;
	st->pending_status = d->pending_status;
	snprintf(st->pending_error, sizeof(st->pending_error), "%s",
	    d->pending_error);
	memcpy(st->runs_by_status, d->runs_by_status,
	    sizeof(st->runs_by_status));
	st->check_budget = d->cfg.check_budget;
	memcpy(st->verified, d->verified, d->nverified *
	    sizeof(st->verified[0]));
	st->nverified = d->nverified;
	memcpy(st->checks_by_verdict, d->checks_by_verdict,
	    sizeof(st->checks_by_verdict));
	st->checks_preempted = d->checks_preempted;
	st->checks_skipped = d->checks_skipped;
	st->checks_noisy = d->checks_noisy;
	st->check_cpu_seconds = d->check_cpu_total;
	st->questions = d->nquestions;
	for (i = 0; i < d->nquestions; i++)
		st->answers_verified += d->questions[i].model_run ==
		    d->model_run && d->questions[i].cs.verified;
	st->drift = d->drift && d->drift_run == d->model_run;
	if (st->drift)
		snprintf(st->drift_why, sizeof(st->drift_why), "%s",
		    d->drift_why);
}

static void
env_state(void *ctx, struct api_state *out)
{
	struct daemon	*d = ctx;

	pthread_mutex_lock(&d->lock);
	env_fill(d, out);
	pthread_mutex_unlock(&d->lock);
}

static void
env_with_model(void *ctx, api_model_fn fn, void *arg)
{
	struct daemon		*d = ctx;
	struct api_state	 st;

	pthread_mutex_lock(&d->lock);
	env_fill(d, &st);
	fn(d->model, &st, arg);
	pthread_mutex_unlock(&d->lock);
}

static int
env_model_version(void *ctx, uint64_t *version)
{
	struct daemon	*d = ctx;
	int		 have;

	pthread_mutex_lock(&d->lock);
	have = d->model != NULL;
	*version = d->model_version;
	pthread_mutex_unlock(&d->lock);
	return have;
}

static int
env_run_request(void *ctx, const char *profile, int64_t *id,
    unsigned *retry_after, char *err, size_t errlen)
{
	return runner_request(ctx, profile, DB_TRIGGER_API, id, retry_after,
	    err, errlen);
}

static int
env_run_cancel(void *ctx, int64_t id)
{
	return runner_cancel(ctx, id);
}

static void
env_store_note(void *ctx, enum db_status st, const char *err)
{
	store_note(ctx, st, err);
}

static void
env_observed(void *ctx, const char *stack)
{
	runner_observed(ctx, stack);
}

static void
env_asked(void *ctx, const struct tune_query *q, const char *stack)
{
	checks_asked(ctx, q, stack);
}

static int
env_checked(void *ctx, const struct tune_query *q, const char *stack,
    struct check_state *cs, char *at, size_t atlen, uint64_t *version)
{
	return checks_state(ctx, q, stack, cs, at, atlen, version);
}

/* The API's log lines, in the daemon's log. */
static void
env_log(void *ctx, enum api_log_level level, const char *msg)
{
	(void)ctx;
	log_msg(level == API_LOG_DEBUG ? LOG_LEVEL_DEBUG : level ==
	    API_LOG_INFO ? LOG_LEVEL_INFO : LOG_LEVEL_WARN, "%s", msg);
}

void
daemon_api_env(struct daemon *d, struct api_env *env)
{
	memset(env, 0, sizeof(*env));
	env->ctx = d;
	env->host = &d->host;
	env->state = env_state;
	env->with_model = env_with_model;
	env->model_version = env_model_version;
	env->run_request = env_run_request;
	env->run_cancel = env_run_cancel;
	env->store_note = env_store_note;
	env->observed = env_observed;
	env->asked = env_asked;
	env->checked = env_checked;
	env->log = env_log;
}

void
daemon_api_config(struct daemon *d, struct api_config *c)
{
	unsigned	port;
	size_t		i;

	memset(c, 0, sizeof(*c));
	pthread_mutex_lock(&d->lock);
	snprintf(c->store, sizeof(c->store), "%s", d->cfg.db);
	snprintf(c->token_file, sizeof(c->token_file), "%s",
	    d->cfg.token_file);
	snprintf(c->web_root, sizeof(c->web_root), "%s", d->cfg.web_root);
	snprintf(c->listen, sizeof(c->listen), "%s", d->cfg.listen);
	if (config_listen_addr(&d->cfg, c->listen_addr,
	    sizeof(c->listen_addr), &port) == -1)
		c->listen_addr[0] = '\0';
	for (i = 0; i < d->cfg.nallowed_hosts && i < API_HOSTS_MAX; i++)
		snprintf(c->allowed_hosts[i], sizeof(c->allowed_hosts[i]),
		    "%s", d->cfg.allowed_hosts[i]);
	c->nallowed_hosts = i;
	snprintf(c->group, sizeof(c->group), "%s", d->cfg.group);
	c->fleet_max_age = d->cfg.fleet_max_age;
	c->memory_max = d->cfg.memory_max;
	c->auth_failures_per_minute = d->cfg.auth_failures_per_minute;
	c->threads = d->cfg.threads;
	c->max_connections = d->cfg.max_connections;
	c->max_connections_per_ip = d->cfg.max_connections_per_ip;
	c->connection_timeout = d->cfg.connection_timeout;
	c->request_timeout = d->cfg.request_timeout;
	c->connection_memory = d->cfg.connection_memory;
	pthread_mutex_unlock(&d->lock);
}
