/*
 * api/scope.c: the scoped answer (scope=group|fleet), one path for the
 * daemon (fleet.c, from the models it keeps) and the CLI (pwtune
 * recommend --scope, from the store): which hosts are members and which
 * are left out and why, the answer that holds on every member
 * (fleet_recommend), and its JSON. Nothing here needs a running server.
 */
#include <stdio.h>
#include <string.h>

#include "api.h"

void
api_scope_exclude(struct api_scope_set *set, const char *id, const char *why)
{
	json_array_append_new(set->excluded, json_pack("{s:s, s:s}",
	    "host_id", id, "reason", why));
}

int
api_scope_admit(struct api_scope_set *set, const struct db_host *h,
    const char *self_id, const char *group, time_t now, unsigned max_age)
{
	char	why[256];

	if ((self_id != NULL && strcmp(h->id, self_id) == 0) ||
	    (group != NULL && strcmp(h->group, group) != 0))
		return 0;
	if (!db_host_fresh(h, now, max_age, why, sizeof(why))) {
		api_scope_exclude(set, h->id, why);
		return -1;
	}
	return 1;
}

void
api_scope_add(struct api_scope_set *set, const char *host_id,
    const struct model *m, const char *cpu_model, int this_host)
{
	size_t	i = set->n++;

	set->h[i].host_id = host_id;
	set->h[i].m = m;
	set->h[i].cand = NULL;
	set->cpu[i] = cpu_model;
	set->this_host[i] = this_host;
}

void
api_scope_drop(struct api_scope_set *set, size_t i)
{
	size_t	rest = set->n - i - 1;

	memmove(&set->h[i], &set->h[i + 1], rest * sizeof(set->h[0]));
	memmove(&set->cpu[i], &set->cpu[i + 1], rest * sizeof(set->cpu[0]));
	memmove(&set->this_host[i], &set->this_host[i + 1], rest *
	    sizeof(set->this_host[0]));
	set->n--;
}

int
api_scope_answer(const struct api_scope_set *set, const struct tune_query *q,
    double factor, struct fleet_answer *fa, char *err, size_t errlen)
{
	return fleet_recommend(set->h, set->n, q, factor, fa, err, errlen);
}

json_t *
api_scope_json(const struct api_scope_set *set, const struct fleet_answer *fa,
    const char *scope, const char *group, int stale)
{
	json_t	*j, *hosts, *brief;
	size_t	 i;

	j = tune_answer_to_json(&fa->a, set->h[fa->decider].m);
	api_answer_vocab(j);
	json_object_set_new(j, "stale", json_boolean(stale));
	json_object_set_new(j, "scope", json_string(scope));
	if (group != NULL)
		json_object_set_new(j, "group", json_string(group));
	hosts = json_array();
	for (i = 0; i < set->n; i++) {
		/* Each member's time at the query's percentile. */
		brief = json_pack("{s:s, s:o, s:b, s:o, s:f}", "host_id",
		    set->h[i].host_id, "cpu_model",
		    api_null_if_empty(set->cpu[i]), "this_host",
		    set->this_host[i], "predicted", api_predicted_json(
		    fa->a.percentile, fa->predicted_ms[i], -1),
		    "predicted_ms", fa->predicted_ms[i]);
		json_array_append_new(hosts, brief);
	}
	json_object_set(j, "decided_by", json_array_get(hosts, fa->decider));
	json_object_set_new(j, "hosts", hosts);
	json_object_set(j, "excluded", set->excluded);
	return j;
}

void
api_scope_cpu(const char *facts, char *out, size_t len)
{
	json_t	*j = facts != NULL ? json_loads(facts, 0, NULL) : NULL;
	const char *v = json_string_value(json_object_get(j, "cpu_model"));

	snprintf(out, len, "%s", v != NULL ? v : "");
	json_decref(j);
}
