/*
 * db/db_fleet.c: what a fleet answer reads from the store: which hosts
 * can take part (a fresh finished run), their models, and a stack's
 * observed / predicted ratios. Shared by the daemon and `pwtune recommend
 * --scope`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "fleet.h"

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
	struct report	rep;
	enum db_status	st;

	if ((st = db_run_report(db, h->last_run, &rep, err, errlen)) != DB_OK)
		return st;
	if (model_fit(&rep, m, err, errlen) == -1) {
		report_release(&rep);
		return DB_ERR_INVALID;
	}
	m->run_id = h->last_run;
	report_release(&rep);
	return DB_OK;
}

enum db_status
db_stack_ratios(struct db *db, const char *host_id, const char *stack,
    const struct model *m, double *ratios, size_t max, size_t *n, char *err,
    size_t errlen)
{
	struct db_observation	*obs;
	size_t			 nobs, i;
	enum db_status		 st;

	*n = 0;
	if ((st = db_observations_list(db, host_id, stack, max, &obs, &nobs,
	    err, errlen)) != DB_OK)
		return st;
	for (i = 0; i < nobs && *n < max; i++) {
		enum kdf_alg	alg;
		double		p50;

		/* A p this host never measured is left out. */
		if (kdf_alg_parse(obs[i].variant, &alg) == 0 &&
		    fleet_predict_p50(m, alg, obs[i].m_kib, obs[i].t, obs[i].p,
		    obs[i].k, &p50) == 0 && p50 > 0)
			ratios[(*n)++] = obs[i].median_ms / p50;
	}
	free(obs);
	return DB_OK;
}
