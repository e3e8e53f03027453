/*
 * api/hosts.c: GET /v1/hosts and /v1/hosts/ID: the hosts of the store,
 * this one with what a run here would get now, the slowest marked.
 *
 * Each host shows the common presets' predicted time on the host of its
 * newest finished run. A finished run never changes, so that answer is
 * kept by run id: one place per host GET /v1/hosts lists, the least
 * recently read let go first, so that listing every host refits only the
 * runs that are new.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "presets.h"

/* Predicted p95 at k = 1 of each Argon2 preset on the host of run. */
static json_t *
view_presets(const struct report *rep)
{
	const struct preset		*pre;
	const struct model_curve	*curve;
	struct model_prediction		 pr;
	struct tune_query		 q;
	struct model			*m;
	json_t				*list;
	size_t				 n, i;
	uint32_t			 p;
	char				 err[256];
	const char			*note;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return NULL;
	if (model_fit(rep, m, err, sizeof(err)) == -1) {
		free(m);
		return json_array();
	}
	list = json_array();
	tune_query_init(&q);
	q.parallelism = 1;
	pre = preset_list(&n);
	for (i = 0; i < n; i++) {
		if (pre[i].alg == KDF_ALG_BCRYPT)
			continue;
		q.variant = pre[i].alg;
		/* At its p where that was measured, else p = 1's bound. */
		q.parallelism = pre[i].p;
		if ((curve = tune_curve(m, &q, &p, err, sizeof(err))) ==
		    NULL) {
			q.parallelism = 1;
			if ((curve = tune_curve(m, &q, &p, err,
			    sizeof(err))) == NULL)
				continue;
		}
		model_predict(m, curve, pre[i].m_kib, pre[i].t, 1, 95, &pr);
		note = pre[i].p > p ? "upper bound: measured with fewer "
		    "lanes" : pr.extrapolated ? "extrapolated" : NULL;
		/* predicted_ms_p95: deprecated (0.2.0), predicted.ms. */
		json_array_append_new(list, json_pack("{s:s, s:I, s:I, s:I, "
		    "s:o, s:b, s:o, s:f}", "name", pre[i].name, "m_kib",
		    (json_int_t)pre[i].m_kib, "t", (json_int_t)pre[i].t,
		    "p", (json_int_t)pre[i].p, "predicted",
		    api_predicted_json(95, pr.ms, pr.p50_ms), "extrapolated",
		    pr.extrapolated, "note", api_null_if_empty(note),
		    "predicted_ms_p95", pr.ms));
	}
	free(m);
	return list;
}

json_t *
api_run_presets(struct api_server *s, struct db *db, const char *host_id,
    const char *fingerprint, int64_t run)
{
	struct report	 rep;
	json_t		*list = NULL;
	char		 err[256];
	size_t		 i, victim;
	int64_t		 mrun;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < API_RUN_PRESETS_SLOTS; i++)
		if (s->run_presets[i].run == run &&
		    s->run_presets[i].presets != NULL) {
			list = json_incref(s->run_presets[i].presets);
			s->run_presets[i].used = ++s->run_presets_clock;
			break;
		}
	pthread_mutex_unlock(&s->lock);
	if (list != NULL)
		return list;
	/* The host's model: its run, and the curves other runs add. */
	if (db_model_run(db, host_id, fingerprint, &mrun, err, sizeof(err)) !=
	    DB_OK || db_model_report(db, mrun, &rep, NULL, err,
	    sizeof(err)) != DB_OK)
		return json_array();
	list = view_presets(&rep);
	report_release(&rep);
	if (list == NULL)
		return json_array();
	api_log(s, API_LOG_DEBUG, "presets of run %lld fitted, kept for GET "
	    "/v1/hosts", (long long)run);
	/* In an empty place, or the least recently read one's. */
	pthread_mutex_lock(&s->lock);
	for (i = 0, victim = 0; i < API_RUN_PRESETS_SLOTS; i++) {
		if (s->run_presets[i].presets == NULL) {
			victim = i;
			break;
		}
		if (s->run_presets[i].used < s->run_presets[victim].used)
			victim = i;
	}
	json_decref(s->run_presets[victim].presets);
	s->run_presets[victim].run = run;
	s->run_presets[victim].presets = json_incref(list);
	s->run_presets[victim].used = ++s->run_presets_clock;
	pthread_mutex_unlock(&s->lock);
	return list;
}

void
api_hosts_free(struct api_server *s)
{
	size_t	i;

	for (i = 0; i < API_RUN_PRESETS_SLOTS; i++) {
		json_decref(s->run_presets[i].presets);
		s->run_presets[i].presets = NULL;
	}
}

/*
 * A host's facts as the store keeps them, with the vocabulary's names
 * added: each size in bytes as NAME_bytes (a cgroup limit of 0, none, as
 * null), and notes null when there are none. The unsuffixed names stay,
 * deprecated (0.2.0).
 */
static json_t *
api_facts_json(const char *text)
{
	static const char *const sizes[] = { "mem_total", "mem_available",
	    "swap_total", "cgroup_mem_limit", "cgroup_mem_usage" };
	json_t	*f = text != NULL ? json_loads(text, 0, NULL) : NULL, *v;
	char	 name[64];
	size_t	 i;

	if (!json_is_object(f)) {
		json_decref(f);
		return json_object();
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if ((v = json_object_get(f, sizes[i])) == NULL)
			continue;
		snprintf(name, sizeof(name), "%s_bytes", sizes[i]);
		if (strcmp(sizes[i], "cgroup_mem_limit") == 0 &&
		    json_integer_value(v) == 0)
			json_object_set_new(f, name, json_null());
		else
			json_object_set(f, name, v);
	}
	if ((v = json_object_get(f, "notes")) != NULL && json_is_string(v) &&
	    json_string_length(v) == 0)
		json_object_set_new(f, "notes", json_null());
	return f;
}

static json_t *
api_host_json(struct api_server *s, const struct api_config *cfg,
    struct db *db, const struct db_host *h)
{
	const struct host_info	*self = s->env.host;
	json_t			*j;
	enum host_budget_source	 src;
	uint64_t		 budget;
	int			 current = strcmp(h->id, self->host_id) == 0;

	j = json_pack("{s:s, s:s, s:s, s:s, s:o, s:b, s:o}", "id", h->id,
	    "fingerprint", h->fingerprint, "first_seen", h->first_seen,
	    "last_seen", h->last_seen, "facts", api_facts_json(h->facts),
	    "this_host", current, "group", api_null_if_empty(current ?
	    cfg->group : h->group));
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
		    api_run_presets(s, db, h->id, current ? self->fingerprint :
		    h->fingerprint, h->last_run) : json_array());
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
			v = json_real_value(json_object_get(json_object_get(
			    pre, "predicted"), "ms"));
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

int
h_hosts(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct api_config	 cfg;
	struct db_host		*hosts;
	struct db		*db;
	size_t			 n, i;
	json_t			*list, *j;
	const char		*slowest;
	char			 err[512];

	(void)c;
	(void)r;
	(void)arg;
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_hosts_list(db, NULL, &hosts, &n, err, sizeof(err)) != DB_OK)
		return api_store_fail(s, rep, DB_ERR_UNAVAILABLE, 0, NULL,
		    NULL);
	api_cfg(s, &cfg);
	list = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(list, api_host_json(s, &cfg, db,
		    &hosts[i]));
	db_hosts_free(hosts, n);
	slowest = api_hosts_slowest(list);
	j = json_pack("{s:o, s:s?, s:o}", "hosts", list, "slowest_host",
	    slowest, "group", api_null_if_empty(cfg.group));
	return api_ok(rep, 200, j, NULL);
}

int
h_host_get(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct api_config	 cfg;
	struct db_host		*hosts;
	struct db		*db;
	size_t			 n, i;
	json_t			*j;
	char			 err[512];

	(void)c;
	(void)r;
	for (i = 0; arg[i] != '\0'; i++)
		if (!isxdigit((unsigned char)arg[i]) || i >= 32)
			return api_fail(rep, PROB_NOT_FOUND, "id", "host ids "
			    "are 32 hex digits", NULL, 0);
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_hosts_list(db, arg, &hosts, &n, err, sizeof(err)) != DB_OK)
		return api_store_fail(s, rep, DB_ERR_UNAVAILABLE, 0, NULL,
		    NULL);
	if (n == 0) {
		db_hosts_free(hosts, n);
		return api_fail(rep, PROB_NOT_FOUND, "id", "no such host",
		    NULL, 0);
	}
	api_cfg(s, &cfg);
	j = api_host_json(s, &cfg, db, &hosts[0]);
	db_hosts_free(hosts, n);
	return api_ok(rep, 200, j, NULL);
}
