/*
 * db/hosts.c: hosts (saved with each run, listed with their newest
 * finished run, grouped), and what a fleet answer reads from the store:
 * which hosts can take part (a fresh finished run), their models, and a
 * stack's observed / predicted ratios. Shared by the daemon and `pwtune
 * recommend --scope`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet.h"
#include "store.h"

#define Q_HOSTS_LIST(ts)						\
	"SELECT h.id, h.fingerprint, " ts("h.first_seen") ", "		\
	ts("h.last_seen") ", h.facts, r.id, r.fingerprint, "		\
	ts("r.finished") ", r.mem_budget, r.budget_source,"		\
	" r.effective_cpus, h.host_group FROM hosts h LEFT JOIN runs r"	\
	" ON r.id = (SELECT max(id) FROM runs WHERE host_id = h.id AND"	\
	" status = 'done') WHERE CAST($1 AS TEXT) IS NULL OR h.id = $1"	\
	" ORDER BY h.last_seen DESC LIMIT 1000"

static const struct db_sql q_hosts_list = DB_SQL_TS(Q_HOSTS_LIST);
static const struct db_sql q_host_save = {
	"INSERT INTO hosts (id, fingerprint, cpu_model, online_cpus,"
	" mem_total, cgroup_mem_limit, kernel, facts, first_seen, last_seen)"
	" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)"
	" ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint,"
	" cpu_model = excluded.cpu_model, online_cpus = excluded.online_cpus,"
	" mem_total = excluded.mem_total,"
	" cgroup_mem_limit = excluded.cgroup_mem_limit,"
	" kernel = excluded.kernel, facts = excluded.facts,"
	" last_seen = excluded.last_seen", NULL
};
static const struct db_sql q_host_set_group = {
	"UPDATE hosts SET host_group = $2 WHERE id = $1", NULL
};

enum db_status
db_host_save(struct db *db, const struct host_info *h, int effective_cpus,
    const char *now, char *err, size_t errlen)
{
	struct db_args	 a = { .n = 0 };
	json_t		*facts = report_host_to_json(h, effective_cpus);
	char		*text = db_json_text(facts);
	enum db_status	 st;

	json_decref(facts);
	if (text == NULL)
		return db_nomem(err, errlen);
	a_text(&a, h->host_id);
	a_text(&a, h->fingerprint);
	a_text(&a, h->cpu_model);
	a_int(&a, h->online_cpus);
	a_int(&a, (int64_t)h->mem_total);
	a_int(&a, (int64_t)h->cg_mem_limit);
	a_text(&a, h->kernel);
	a_text(&a, text);
	a_text(&a, now);
	st = db_exec(db, "save host", &q_host_save, &a, NULL, err, errlen);
	free(text);
	return st;
}

static int
host_from_row(struct db_rows *r, struct db_host *h)
{
	memset(h, 0, sizeof(*h));
	db_copy(r, 0, h->id, sizeof(h->id));
	db_copy(r, 1, h->fingerprint, sizeof(h->fingerprint));
	db_copy(r, 2, h->first_seen, sizeof(h->first_seen));
	db_copy(r, 3, h->last_seen, sizeof(h->last_seen));
	h->facts = strdup(db_text(r, 4) != NULL ? db_text(r, 4) : "");
	h->last_run = db_int(r, 5);
	db_copy(r, 6, h->last_run_fingerprint,
	    sizeof(h->last_run_fingerprint));
	db_copy(r, 7, h->last_run_finished, sizeof(h->last_run_finished));
	h->last_run_budget = (uint64_t)db_int(r, 8);
	db_copy(r, 9, h->last_run_budget_source,
	    sizeof(h->last_run_budget_source));
	h->last_run_cpus = (int)db_int(r, 10);
	db_copy(r, 11, h->group, sizeof(h->group));
	return h->facts != NULL ? 0 : -1;
}

enum db_status
db_hosts_list(struct db *db, const char *id, struct db_host **hosts,
    size_t *n, char *err, size_t errlen)
{
	struct db_args	 a = { .n = 0 };
	struct db_rows	 r;
	struct db_host	*bigger;
	enum db_status	 st;
	size_t		 cap = 8;

	/* Allocated even when no host is listed: a list was read. */
	*n = 0;
	if ((*hosts = calloc(cap, sizeof(**hosts))) == NULL)
		return db_nomem(err, errlen);
	a_text(&a, id);
	if ((st = db_query(db, "list hosts", &q_hosts_list, &a, &r, err,
	    errlen)) != DB_OK) {
		free(*hosts);
		*hosts = NULL;
		return st;
	}
	while (st == DB_OK && db_next(&r)) {
		if (*n == cap) {
			cap *= 2;
			if ((bigger = realloc(*hosts, cap * sizeof(**hosts))) ==
			    NULL) {
				st = db_nomem(err, errlen);
				break;
			}
			*hosts = bigger;
		}
		if (host_from_row(&r, &(*hosts)[(*n)++]) == -1)
			st = db_nomem(err, errlen);
	}
	if (st == DB_OK)
		st = db_rows_end(&r, err, errlen);
	else
		db_rows_end(&r, NULL, 0);
	if (st != DB_OK) {
		db_hosts_free(*hosts, *n);
		*hosts = NULL;
		*n = 0;
	}
	return st;
}

void
db_hosts_free(struct db_host *hosts, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(hosts[i].facts);
	free(hosts);
}

enum db_status
db_host_set_group(struct db *db, const char *host_id, const char *group,
    char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	enum db_status	st;
	int64_t		changed = 0;

	if (strlen(group) >= DB_GROUP_MAX) {
		snprintf(err, errlen, "group is longer than %d bytes",
		    DB_GROUP_MAX - 1);
		return DB_ERR_INVALID;
	}
	a_text(&a, host_id);
	a_text(&a, group);
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	st = db_exec(db, "set group", &q_host_set_group, &a, &changed, err,
	    errlen);
	if ((st = db_end(db, st, err, errlen)) == DB_OK && changed == 0) {
		snprintf(err, errlen, "no host %s in the store yet", host_id);
		return DB_ERR_NOTFOUND;
	}
	return st;
}

static time_t
db_iso_time(const char *iso)
{
	struct tm	tm;

	memset(&tm, 0, sizeof(tm));
	if (strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) == NULL)
		return 0;
	return timegm(&tm);
}

int
db_host_fresh(const struct db_host *h, time_t now, unsigned max_age,
    char *why, size_t len)
{
	time_t	end;

	if (h->last_run == 0) {
		snprintf(why, len, "no finished run");
		return 0;
	}
	if (strcmp(h->last_run_fingerprint, h->fingerprint) != 0) {
		snprintf(why, len, "stale: the host changed after its last "
		    "finished run (%lld)", (long long)h->last_run);
		return 0;
	}
	end = db_iso_time(h->last_run_finished);
	if (max_age > 0 && end > 0 && now - end > (time_t)max_age) {
		snprintf(why, len, "stale: its last finished run is %lld days "
		    "old (fleet_max_age is %u days)", (long long)(now - end) /
		    86400, max_age / 86400);
		return 0;
	}
	why[0] = '\0';
	return 1;
}

enum db_status
db_host_model(struct db *db, const struct db_host *h, struct model *m,
    char *err, size_t errlen)
{
	enum db_status	st;
	int64_t		id;

	if ((st = db_model_run(db, h->id, h->fingerprint[0] != '\0' ?
	    h->fingerprint : NULL, &id, err, errlen)) != DB_OK ||
	    (st = db_model_fit(db, id, m, err, errlen)) != DB_OK)
		return st;
	/* Its stacks as that host's daemon holds them. */
	return db_model_stacks(db, h->id, m, err, errlen);
}
