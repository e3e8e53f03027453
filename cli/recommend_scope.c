/*
 * cli/recommend_scope.c: `pwtune recommend --scope group|fleet`: the answer
 * that holds on every host of a group (or of the whole store) with a fresh
 * run, read from a shared store (--db postgresql://...), the same way the
 * daemon answers scope=. Hosts whose newest run is stale or missing are
 * left out and named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "db.h"
#include "fleet.h"

struct scope_host {
	struct model	 m;
	char		 cpu[128];
};

static void
scope_cpu(const char *facts, char *out, size_t len)
{
	json_t	*j = facts != NULL ? json_loads(facts, 0, NULL) : NULL;
	const char *cpu = json_string_value(json_object_get(j, "cpu_model"));

	snprintf(out, len, "%s", cpu != NULL ? cpu : "");
	json_decref(j);
}

int
rec_scope(const char *store, const char *scope, const char *group,
    unsigned max_age, const struct tune_query *q, int as_json)
{
	struct db_open_opts	 dbo = { 1, 0, 0, NULL, NULL };
	struct fleet_host	*fh = NULL;
	struct scope_host	*sh = NULL;
	struct fleet_answer	*fa = NULL;
	struct db_host		*hosts = NULL;
	struct db		*db = NULL;
	json_t			*excluded = json_array(), *j, *list;
	char			 err[512], why[256];
	size_t			 nh = 0, n = 0, i;
	time_t			 now = time(NULL);
	int			 rc = CLI_EXIT_FAIL, ret;

	if (db_open(store, &dbo, &db, err, sizeof(err)) != DB_OK ||
	    db_hosts_list(db, NULL, &hosts, &nh, err, sizeof(err)) != DB_OK) {
		cli_warnx("recommend: %s", err);
		goto out;
	}
	fh = calloc(nh ? nh : 1, sizeof(*fh));
	sh = calloc(nh ? nh : 1, sizeof(*sh));
	fa = calloc(1, sizeof(*fa));
	if (fh == NULL || sh == NULL || fa == NULL) {
		cli_warnx("recommend: out of memory");
		goto out;
	}
	for (i = 0; i < nh && n < FLEET_HOSTS_MAX; i++) {
		if (group != NULL && strcmp(hosts[i].group, group) != 0)
			continue;
		if (!db_host_fresh(&hosts[i], now, max_age, why, sizeof(why))) {
			json_array_append_new(excluded, json_pack("{s:s, s:s}",
			    "host_id", hosts[i].id, "reason", why));
			continue;
		}
		if (db_host_model(db, &hosts[i], &sh[n].m, err, sizeof(err)) !=
		    DB_OK) {
			snprintf(why, sizeof(why), "its model cannot be read: "
			    "%.200s", err);
			json_array_append_new(excluded, json_pack("{s:s, s:s}",
			    "host_id", hosts[i].id, "reason", why));
			continue;
		}
		scope_cpu(hosts[i].facts, sh[n].cpu, sizeof(sh[n].cpu));
		fh[n].host_id = hosts[i].id;
		fh[n].m = &sh[n].m;
		n++;
	}
	if (n == 0) {
		char	where[4096];

		db_locator_redact(store, where, sizeof(where));
		cli_warnx("recommend: no host of %s%s has a fresh finished run "
		    "in %s", group != NULL ? "group " : "the store", group !=
		    NULL ? group : "", where);
		goto out;
	}
	ret = fleet_recommend(fh, n, q, 1, fa, err, sizeof(err));
	if (ret == -1) {
		cli_warnx("recommend: %s", err);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (ret == 1)
		cli_warnx("recommend: %s", err);
	if (as_json) {
		j = tune_answer_to_json(&fa->a, fh[fa->decider].m);
		list = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(list, json_pack("{s:s, s:s, s:f}",
			    "host_id", fh[i].host_id, "cpu_model", sh[i].cpu,
			    "predicted_ms", fa->predicted_ms[i]));
		json_object_set_new(j, "scope", json_string(scope));
		if (group != NULL)
			json_object_set_new(j, "group", json_string(group));
		json_object_set(j, "decided_by", json_array_get(list,
		    fa->decider));
		json_object_set_new(j, "hosts", list);
		json_object_set(j, "excluded", excluded);
		if (ret == 1)
			json_object_set_new(j, "error", json_string(err));
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
		putchar('\n');
		json_decref(j);
	} else {
		printf("%s for %s under %.0f ms at p%d with %u hash%s at once, "
		    "on every host of %s%s\n\n", fa->holds ? "Recommendation" :
		    "Closest answer", kdf_alg_title(fa->a.variant),
		    q->target_ms, fa->a.percentile, (unsigned)fa->a.k,
		    fa->a.k == 1 ? "" : "es", group != NULL ? "group " :
		    "the store", group != NULL ? group : "");
		printf("  m = %u KiB, t = %u, p = %u\n", (unsigned)fa->a.m_kib,
		    (unsigned)fa->a.t, (unsigned)fa->a.p);
		printf("  PHC prefix:  %s\n", fa->a.phc_prefix);
		printf("  Decided by:  host %s (%s): %.1f ms predicted\n\n",
		    fh[fa->decider].host_id, sh[fa->decider].cpu,
		    fa->a.predicted_ms);
		printf("  %-32s  %12s  %s\n", "host", "predicted", "CPU");
		for (i = 0; i < n; i++)
			printf("  %-32s  %9.1f ms  %s\n", fh[i].host_id,
			    fa->predicted_ms[i], sh[i].cpu);
		for (i = 0; i < json_array_size(excluded); i++)
			printf("  %-32s  left out: %s\n", json_string_value(
			    json_object_get(json_array_get(excluded, i),
			    "host_id")), json_string_value(json_object_get(
			    json_array_get(excluded, i), "reason")));
	}
	rc = ret == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
out:
	json_decref(excluded);
	free(fa);
	free(sh);
	free(fh);
	db_hosts_free(hosts, nh);
	db_close(db);
	return rc;
}
