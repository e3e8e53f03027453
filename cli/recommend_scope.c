/*
 * cli/recommend_scope.c: `pwtune recommend --scope group|fleet`: the answer
 * that holds on every host of a group (or of the whole store) with a fresh
 * run, read from a shared store (--db postgresql://...), by the daemon's
 * own path for scope= (api/scope.c: the members, the answer, its JSON).
 * Hosts whose newest run is stale or missing are left out and named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "cli.h"
#include "db.h"

struct scope_host {
	struct model	 m;
	char		 cpu[128];
};

/* The members of the scope, their models read from db. */
static void
scope_collect(struct db *db, struct db_host *hosts, size_t nh,
    const char *group, unsigned max_age, struct scope_host *sh,
    struct api_scope_set *set)
{
	char	err[512], why[256];
	time_t	now = time(NULL);
	size_t	i;

	for (i = 0; i < nh && set->n < FLEET_HOSTS_MAX; i++) {
		if (api_scope_admit(set, &hosts[i], NULL, group, now,
		    max_age) != 1)
			continue;
		if (db_host_model(db, &hosts[i], &sh[set->n].m, err,
		    sizeof(err)) != DB_OK) {
			snprintf(why, sizeof(why), "its model cannot be read: "
			    "%.200s", err);
			api_scope_exclude(set, hosts[i].id, why);
			continue;
		}
		api_scope_cpu(hosts[i].facts, sh[set->n].cpu,
		    sizeof(sh[set->n].cpu));
		api_scope_add(set, hosts[i].id, &sh[set->n].m,
		    sh[set->n].cpu, 0);
	}
}

static void
scope_text(const struct api_scope_set *set, const struct fleet_answer *fa,
    const struct tune_query *q, const char *group)
{
	json_t	*ex;
	size_t	 i;

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
	    set->h[fa->decider].host_id, set->cpu[fa->decider],
	    fa->a.predicted_ms);
	printf("  %-32s  %12s  %s\n", "host", "predicted", "CPU");
	for (i = 0; i < set->n; i++)
		printf("  %-32s  %9.1f ms  %s\n", set->h[i].host_id,
		    fa->predicted_ms[i], set->cpu[i]);
	json_array_foreach(set->excluded, i, ex)
		printf("  %-32s  left out: %s\n", json_string_value(
		    json_object_get(ex, "host_id")), json_string_value(
		    json_object_get(ex, "reason")));
	rec_print_notes(fa->a.notes, NULL);
}

int
rec_scope(const char *store, const char *scope, const char *group,
    unsigned max_age, const struct tune_query *q, enum rec_format f)
{
	struct db_open_opts	 dbo = { 1, 0, 0, NULL, NULL };
	struct api_scope_set	*set = NULL;
	struct scope_host	*sh = NULL;
	struct fleet_answer	*fa = NULL;
	struct db_host		*hosts = NULL;
	struct db		*db = NULL;
	json_t			*j;
	char			 err[512], where[4096];
	size_t			 nh = 0;
	int			 rc = CLI_EXIT_ENV, ret;

	if ((ret = db_open(store, &dbo, &db, err, sizeof(err))) != DB_OK) {
		cli_warnx("recommend: %s", err);
		/* A file that is not a store was named by mistake. */
		if (ret == DB_ERR_INVALID)
			rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (db_hosts_list(db, NULL, &hosts, &nh, err, sizeof(err)) != DB_OK) {
		cli_warnx("recommend: %s", err);
		goto out;
	}
	set = calloc(1, sizeof(*set));
	sh = calloc(nh ? nh : 1, sizeof(*sh));
	fa = calloc(1, sizeof(*fa));
	if (set == NULL || sh == NULL || fa == NULL) {
		cli_warnx("recommend: out of memory");
		goto out;
	}
	set->excluded = json_array();
	scope_collect(db, hosts, nh, group, max_age, sh, set);
	if (set->n == 0) {
		db_locator_redact(store, where, sizeof(where));
		cli_warnx("recommend: no host of %s%s has a fresh finished run "
		    "in %s", group != NULL ? "group " : "the store", group !=
		    NULL ? group : "", where);
		goto out;
	}
	ret = api_scope_answer(set, q, 1, fa, err, sizeof(err));
	if (ret == -1) {
		cli_warnx("recommend: %s", err);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (ret == 1)
		cli_warnx("recommend: %s", err);
	if (f == REC_PHC || f == REC_ENV)
		rec_print_terse(&fa->a, f);
	else if (f == REC_JSON) {
		/* The API's answer; a closest answer says why, as its 422. */
		j = api_scope_json(set, fa, scope, group, 0);
		if (ret == 1)
			json_object_set_new(j, "error", json_string(err));
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
		putchar('\n');
		json_decref(j);
	} else
		scope_text(set, fa, q, group);
	rc = ret == 0 ? CLI_EXIT_OK : CLI_EXIT_NO;
out:
	if (set != NULL)
		json_decref(set->excluded);
	free(set);
	free(fa);
	free(sh);
	db_hosts_free(hosts, nh);
	db_close(db);
	return rc;
}
