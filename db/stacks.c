/*
 * db/stacks.c: what each stack's probe came to in a run, and a model's
 * stacks rebuilt from the store: the probe points of the model's run and
 * the observations services posted; and the checks taken under a run, as
 * the model takes them (see db.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet.h"
#include "probe.h"
#include "stack.h"
#include "store.h"

#define STACK_OBS_READ	200	/* newest service observations fitted */

static const struct db_sql q_probe_delete = {
	"DELETE FROM probes WHERE run_id = $1 AND stack = $2", NULL
};
static const struct db_sql q_probe_insert = {
	"INSERT INTO probes (run_id, stack, status, why, runtime, library,"
	" shares, points, seconds, created) VALUES ($1, $2, $3, $4, $5, $6,"
	" $7, $8, $9, $10)", NULL
};
static const struct db_sql q_probe_get = {
	"SELECT status, why, runtime, shares FROM probes WHERE run_id = $1 AND"
	" stack = $2", NULL
};
/* The stacks only services know, on this host. */
static const struct db_sql q_service_stacks = {
	"SELECT stack, count(*) FROM observations WHERE host_id = $1 AND"
	" source = 'service' GROUP BY stack ORDER BY max(id) DESC", NULL
};

enum db_status
db_probe_put(struct db *db, int64_t id, const char *stack,
    const char *status, const char *why, const char *runtime,
    const char *library, const char *shares, size_t points, double seconds,
    char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	enum db_status	st;
	char		now[32];

	db_now(now, sizeof(now));
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	a_int(&a, id);
	a_text(&a, stack);
	st = db_exec(db, "save probe", &q_probe_delete, &a, NULL, err,
	    errlen);
	if (st == DB_OK) {
		a.n = 0;
		a_int(&a, id);
		a_text(&a, stack);
		a_text(&a, status);
		a_text(&a, why != NULL ? why : "");
		a_text(&a, runtime != NULL ? runtime : "");
		a_text(&a, library != NULL ? library : "");
		a_text(&a, shares != NULL ? shares : "");
		a_int(&a, (int64_t)points);
		a_real(&a, seconds);
		a_text(&a, now);
		st = db_exec(db, "save probe", &q_probe_insert, &a, NULL, err,
		    errlen);
	}
	return db_end(db, st, err, errlen);
}

/* The points of obs[0..n) as a stack's, probe ones flagged. */
static size_t
stack_points(const struct db_observation *obs, size_t n,
    struct stack_point *pts, size_t npts, size_t max)
{
	size_t	i;

	for (i = 0; i < n && npts < max; i++) {
		if (strcmp(obs[i].variant, "argon2id") != 0)
			continue;
		memset(&pts[npts], 0, sizeof(pts[npts]));
		pts[npts].m_kib = obs[i].m_kib;
		pts[npts].t = obs[i].t;
		pts[npts].p = obs[i].p;
		pts[npts].k = obs[i].k;
		pts[npts].n = obs[i].nsamples;
		pts[npts].median_ms = obs[i].median_ms;
		pts[npts].p95_ms = obs[i].p95_ms;
		pts[npts].probe = strcmp(obs[i].source, "probe") == 0;
		npts++;
	}
	return npts;
}

enum db_status
db_model_stack(struct db *db, const char *host_id, struct model *m,
    const char *stack, char *err, size_t errlen)
{
	struct db_observation	*probe = NULL, *svc = NULL;
	struct stack_point	 pts[64];
	struct model_stack	 st;
	const struct model_stack *was;
	struct db_args		 a = { .n = 0 };
	struct db_rows		 r;
	enum db_status		 rc;
	size_t			 np = 0, ns = 0, n = 0;
	char			 status[32], why[192], runtime[96], ferr[160];
	char			 shares[sizeof(st.shares)];

	status[0] = why[0] = runtime[0] = shares[0] = '\0';
	if (m->run_id > 0) {
		if ((rc = db_observations_of(db, host_id, stack, "probe",
		    m->run_id, 32, &probe, &np, err, errlen)) != DB_OK)
			return rc;
		a_int(&a, m->run_id);
		a_text(&a, stack);
		rc = db_query_row(db, "read probe", &q_probe_get, &a, &r, err,
		    errlen);
		if (rc == DB_OK) {
			db_copy(&r, 0, status, sizeof(status));
			db_copy(&r, 1, why, sizeof(why));
			db_copy(&r, 2, runtime, sizeof(runtime));
			db_copy(&r, 3, shares, sizeof(shares));
			rc = db_rows_end(&r, err, errlen);
		}
		if (rc != DB_OK && rc != DB_ERR_NOTFOUND) {
			free(probe);
			return rc;
		}
	}
	if ((rc = db_observations_of(db, host_id, stack, "service", 0,
	    STACK_OBS_READ, &svc, &ns, err, errlen)) != DB_OK) {
		free(probe);
		return rc;
	}
	/*
	 * Services' observations need a few before they count, with a
	 * probe's points too: one post does not move a stack. A probe that
	 * hashed through the curve's own library (shares) timed only the
	 * host's moment: once services' count, theirs alone correct it.
	 */
	n = 0;
	if (np > 0 && (shares[0] == '\0' || ns < FLEET_STACK_MIN_OBS))
		n = stack_points(probe, np, pts, 0, sizeof(pts) /
		    sizeof(pts[0]));
	if (ns >= FLEET_STACK_MIN_OBS)
		n = stack_points(svc, ns, pts, n, sizeof(pts) /
		    sizeof(pts[0]));
	free(probe);
	free(svc);

	memset(&st, 0, sizeof(st));
	if ((was = model_stack_find(m, stack)) != NULL)
		st = *was;
	if (n > 0 && stack_fit(m, stack, pts, n, &st, ferr,
	    sizeof(ferr)) == 0) {
		snprintf(st.runtime, sizeof(st.runtime), "%s", runtime);
		snprintf(st.why, sizeof(st.why), "%s", np > 0 ? "" : why);
		st.runtime_here = probe_runtime_of(status);
		/* Of this run's probe, when it measured. */
		snprintf(st.shares, sizeof(st.shares), "%s", np > 0 ? shares :
		    "");
	} else if (stack_find(stack) != NULL) {
		/* The library's curve, and why the runtime was not measured. */
		memset(&st, 0, sizeof(st));
		snprintf(st.name, sizeof(st.name), "%s", stack);
		st.how = MODEL_STACK_LIBRARY;
		st.c = 1;
		snprintf(st.runtime, sizeof(st.runtime), "%s", runtime);
		snprintf(st.why, sizeof(st.why), "%s", why[0] ? why : n > 0 ?
		    ferr : status[0] ? status : "not probed in this run");
		st.runtime_here = probe_runtime_of(status);
	} else {
		/* A name only services know, not enough (or forgotten). */
		model_stack_remove(m, stack);
		return DB_OK;
	}
	if (model_stack_set(m, &st) == -1) {
		snprintf(err, errlen, "more than %d stacks", MODEL_STACKS_MAX);
		return DB_ERR_INVALID;
	}
	return DB_OK;
}

enum db_status
db_model_stacks(struct db *db, const char *host_id, struct model *m,
    char *err, size_t errlen)
{
	const struct stack_def	*all;
	struct db_args		 a = { .n = 0 };
	struct db_rows		 r;
	enum db_status		 rc;
	char			 names[MODEL_STACKS_MAX][DB_STACK_MAX];
	size_t			 n, i, nn = 0;

	m->nstacks = 0;
	all = stack_catalogue(&n);
	for (i = 0; i < n; i++)
		if ((rc = db_model_stack(db, host_id, m, all[i].name, err,
		    errlen)) != DB_OK)
			return rc;
	/* The others, newest first, while there is room. */
	a_text(&a, host_id);
	if ((rc = db_query(db, "list stacks", &q_service_stacks, &a, &r, err,
	    errlen)) != DB_OK)
		return rc;
	while (db_next(&r))
		if (nn < MODEL_STACKS_MAX - n && stack_find(db_text(&r, 0)) ==
		    NULL && db_int(&r, 1) >= FLEET_STACK_MIN_OBS)
			db_copy(&r, 0, names[nn++], DB_STACK_MAX);
	if ((rc = db_rows_end(&r, err, errlen)) != DB_OK)
		return rc;
	for (i = 0; i < nn; i++)
		if ((rc = db_model_stack(db, host_id, m, names[i], err,
		    errlen)) != DB_OK)
			return rc;
	return DB_OK;
}

enum db_status
db_model_checks(struct db *db, const char *host_id, int64_t id,
    long max_age_s, size_t limit, struct model *m, size_t *used, char *err,
    size_t errlen)
{
	struct db_observation		*o;
	struct model_check_point	*pts;
	enum db_status			 st;
	size_t				 i, j, n, k = 0;
	time_t				 now = time(NULL);

	*used = 0;
	if ((st = db_run_checks(db, host_id, id, limit, &o, &n, err,
	    errlen)) != DB_OK)
		return st;
	if (n == 0 || (pts = calloc(n, sizeof(*pts))) == NULL) {
		free(o);
		return n == 0 ? DB_OK : db_nomem(err, errlen);
	}
	for (i = 0; i < n; i++) {
		struct model_check_point *pt = &pts[k];
		struct tm		  tm;

		memset(&tm, 0, sizeof(tm));
		if (strptime(o[i].created, "%Y-%m-%dT%H:%M:%S", &tm) == NULL ||
		    now - timegm(&tm) > max_age_s)
			continue;
		if (o[i].k != 1 || !(o[i].median_ms > 0) ||
		    kdf_alg_parse(o[i].variant, &pt->variant) == -1 ||
		    kdf_backend_parse(o[i].stack, &pt->backend) == -1)
			continue;
		pt->m_kib = o[i].m_kib;
		pt->t = o[i].t;
		pt->p = o[i].p;
		pt->median_ms = o[i].median_ms;
		pt->n = o[i].nsamples;
		for (j = 0; j < k; j++)
			if (pts[j].backend == pt->backend &&
			    pts[j].variant == pt->variant &&
			    pts[j].m_kib == pt->m_kib && pts[j].t == pt->t &&
			    pts[j].p == pt->p)
				break;
		if (j == k)	/* newest first: an older one is not taken */
			k++;
	}
	*used = model_fit_checks(m, pts, k);
	free(pts);
	free(o);
	return DB_OK;
}
