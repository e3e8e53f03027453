/*
 * db/runs.c: runs and their points; a run as a report (export), a report
 * as a run (import), retention, and the row of a run, mapped once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define RUN_COLUMNS(ts)							\
	"id, host_id, fingerprint, profile, trigger, status, points_done,"\
	" points_total, noisy_points, effective_cpus, mem_budget,"	\
	" budget_source, error, " ts("created") ", " ts("started") ", "	\
	ts("finished")
#define Q_RUN_GET(ts)							\
	"SELECT " RUN_COLUMNS(ts) ", host_facts FROM runs WHERE id = $1"
#define Q_RUNS_LIST(ts)							\
	"SELECT " RUN_COLUMNS(ts) " FROM runs WHERE (CAST($1 AS TEXT) IS"\
	" NULL OR host_id = $1) ORDER BY id DESC LIMIT $2"

static const struct db_sql q_run_get = DB_SQL_TS(Q_RUN_GET);
static const struct db_sql q_runs_list = DB_SQL_TS(Q_RUNS_LIST);
static const struct db_sql q_run_insert = {
	"INSERT INTO runs (host_id, fingerprint, host_facts, profile, trigger,"
	" status, points_total, effective_cpus, mem_budget, budget_source,"
	" owner, created) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,"
	" $11, $12) RETURNING id", NULL
};
static const struct db_sql q_run_set_status = {
	"UPDATE runs SET status = CAST($2 AS TEXT),"
	" error = coalesce(CAST($3 AS TEXT), error),"
	" started = CASE WHEN CAST($2 AS TEXT) = 'running' THEN $4"
	"   ELSE started END,"
	" finished = CASE WHEN CAST($2 AS TEXT) IN ('done', 'failed',"
	"   'cancelled', 'interrupted') THEN $4 ELSE finished END,"
	" owner = CASE WHEN CAST($2 AS TEXT) IN ('queued', 'running')"
	"   THEN owner ELSE NULL END WHERE id = $1", NULL
};
static const struct db_sql q_point_insert = {
	"INSERT INTO points (run_id, seq, backend, variant, m_kib, t, p, k,"
	" status, median_ms, noisy, data) VALUES ($1, $2, $3, $4, $5, $6, $7,"
	" $8, $9, $10, $11, $12)", NULL
};
static const struct db_sql q_point_count = {
	"UPDATE runs SET points_done = points_done + 1,"
	" noisy_points = noisy_points + $2 WHERE id = $1", NULL
};
static const struct db_sql q_run_points = {
	"SELECT data, seq FROM points WHERE run_id = $1 ORDER BY seq", NULL
};
static const struct db_sql q_run_latest_done = {
	"SELECT id FROM runs WHERE status = 'done'"
	" AND (CAST($1 AS TEXT) IS NULL OR host_id = $1)"
	" AND (CAST($2 AS TEXT) IS NULL OR fingerprint = $2)"
	" ORDER BY id DESC LIMIT 1", NULL
};
/* The fingerprint asked for ($N), else that of the host's newest run. */
#define Q_FINGERPRINT(n)						\
	"coalesce(CAST(" n " AS TEXT), (SELECT f.fingerprint FROM runs f"\
	" WHERE f.host_id = $1 AND f.status = 'done' ORDER BY f.id DESC"\
	" LIMIT 1))"
/* Whether run runs.id has a point of a curve ... (an SQL condition). */
#define Q_HAS_CURVE(cond)						\
	"CASE WHEN EXISTS (SELECT 1 FROM points WHERE points.run_id ="	\
	" runs.id AND " cond DB_CURVE_POINT("points") ") THEN 1 ELSE 0"	\
	" END DESC, "
/*
 * On the host's fingerprint as it is (else its newest run's): the curve
 * that decides first (libsodium's argon2id at p = 1), any argon2id at
 * p = 1, any curve; the daemon's runs; the newest.
 */
static const struct db_sql q_model_run = {
	"SELECT id FROM runs WHERE status = 'done' AND host_id = $1"
	" ORDER BY CASE WHEN fingerprint = " Q_FINGERPRINT("$2") " THEN 1"
	"   ELSE 0 END DESC, "
	Q_HAS_CURVE("points.backend = 'libsodium' AND points.variant ="
	"   'argon2id' AND points.p = 1 AND ")
	Q_HAS_CURVE("points.variant = 'argon2id' AND points.p = 1 AND ")
	Q_HAS_CURVE("")
	" CASE WHEN trigger IN ('startup', 'api', 'schedule') THEN 1 ELSE 0"
	"   END DESC, id DESC LIMIT 1", NULL
};
/* Each curve of the fingerprint's other finished runs: its newest run. */
static const struct db_sql q_model_curves = {
	"SELECT b.backend, b.variant, b.p, max(b.run_id) FROM points b"
	" JOIN runs n ON n.id = b.run_id WHERE n.host_id = $1"
	" AND n.fingerprint = $2 AND n.status = 'done' AND n.id <> $3 AND "
	DB_CURVE_POINT("b") " GROUP BY b.backend, b.variant, b.p"
	" ORDER BY max(b.run_id) DESC, b.backend, b.variant, b.p", NULL
};
static const struct db_sql q_curve_points = {
	"SELECT data, seq FROM points WHERE run_id = $1 AND backend = $2"
	" AND variant = $3 AND p = $4 ORDER BY seq", NULL
};
/*
 * What a model may take stays: on the host's fingerprint as it is (else
 * its newest run's), the newest finished run of each curve.
 */
static const struct db_sql q_retention = {
	"DELETE FROM runs WHERE host_id = $1 AND id <> $3"
	" AND status NOT IN ('queued', 'running')"
	" AND id NOT IN (SELECT id FROM runs WHERE host_id = $1"
	"   ORDER BY id DESC LIMIT $2)"
	" AND id NOT IN (SELECT max(b.run_id) FROM points b JOIN runs n"
	"   ON n.id = b.run_id WHERE n.host_id = $1 AND n.status = 'done'"
	"   AND n.fingerprint = " Q_FINGERPRINT("$4") " AND "
	DB_CURVE_POINT("b") " GROUP BY b.backend, b.variant, b.p)", NULL
};

static int
run_report_valid(const struct report *rep, char *err, size_t errlen)
{
	if (rep->host.host_id[0] == '\0' || rep->host.fingerprint[0] == '\0') {
		snprintf(err, errlen, "the run has no host id or fingerprint");
		return 0;
	}
	return 1;
}

/* Insert the run of rep (its host saved first); inside a transaction. */
static enum db_status
run_insert(struct db *db, const struct report *rep, size_t points_total,
    enum db_trigger trigger, enum db_run_status status, const char *now,
    int64_t *id, char *err, size_t errlen)
{
	struct db_args	 a = { .n = 0 };
	struct db_rows	 r;
	json_t		*facts;
	char		*text;
	enum db_status	 st;

	if ((st = db_host_save(db, &rep->host, rep->effective_cpus, now, err,
	    errlen)) != DB_OK)
		return st;
	facts = report_host_to_json(&rep->host, rep->effective_cpus);
	text = db_json_text(facts);
	json_decref(facts);
	if (text == NULL)
		return db_nomem(err, errlen);
	a_text(&a, rep->host.host_id);
	a_text(&a, rep->host.fingerprint);
	a_text(&a, text);
	a_text(&a, rep->profile);
	a_text(&a, db_trigger_name(trigger));
	a_text(&a, db_run_status_name(status));
	a_int(&a, (int64_t)points_total);
	a_int(&a, rep->effective_cpus);
	a_int(&a, (int64_t)rep->mem_budget);
	a_text(&a, host_budget_source_name(rep->budget_source));
	a_text(&a, status == DB_RUN_QUEUED || status == DB_RUN_RUNNING ?
	    db->owner : NULL);
	a_text(&a, rep->created[0] ? rep->created : now);
	st = db_query_row(db, "create run", &q_run_insert, &a, &r, err,
	    errlen);
	free(text);
	if (st != DB_OK)
		return st;
	*id = db_int(&r, 0);
	return db_rows_end(&r, err, errlen);
}

enum db_status
db_run_create(struct db *db, const struct report *rep, size_t points_total,
    enum db_trigger trigger, int64_t *id, char *err, size_t errlen)
{
	char		now[32];
	enum db_status	st;

	if (!run_report_valid(rep, err, errlen))
		return DB_ERR_INVALID;
	db_now(now, sizeof(now));
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	st = run_insert(db, rep, points_total, trigger, DB_RUN_QUEUED, now, id,
	    err, errlen);
	return db_end(db, st, err, errlen);
}

/* Set a run's status; inside a transaction. *changed: 0 without a run. */
static enum db_status
run_set(struct db *db, const char *what, int64_t id, const char *status,
    const char *error, const char *now, int64_t *changed, char *err,
    size_t errlen)
{
	struct db_args	a = { .n = 0 };

	a_int(&a, id);
	a_text(&a, status);
	a_text(&a, error);
	a_text(&a, now);
	return db_exec(db, what, &q_run_set_status, &a, changed, err, errlen);
}

enum db_status
db_run_set_status(struct db *db, int64_t id, enum db_run_status status,
    const char *error, char *err, size_t errlen)
{
	char		now[32];
	enum db_status	st;
	int64_t		changed = 0;

	db_now(now, sizeof(now));
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	st = run_set(db, "update run", id, db_run_status_name(status), error,
	    now, &changed, err, errlen);
	if (st == DB_OK && changed == 0) {
		snprintf(err, errlen, "no run %lld", (long long)id);
		st = DB_ERR_NOTFOUND;
	}
	return db_end(db, st, err, errlen);
}

/* Insert one point and count it; inside the caller's transaction. */
static enum db_status
run_point_insert(struct db *db, int64_t id, size_t seq,
    const struct measure_result *r, char *err, size_t errlen)
{
	const struct kdf_params	*kp = &r->pt.kp;
	struct db_args		 a = { .n = 0 };
	json_t			*data = report_point_to_json(r, 1);
	char			*text = db_json_text(data);
	enum db_status		 st;

	json_decref(data);
	if (text == NULL)
		return db_nomem(err, errlen);
	a_int(&a, id);
	a_int(&a, (int64_t)seq);
	a_text(&a, kdf_backend_name(kdf_backend_resolve(kp->backend,
	    kp->alg)));
	a_text(&a, kdf_alg_name(kp->alg));
	a_int(&a, kp->m_kib);
	a_int(&a, kp->t);
	a_int(&a, kp->p);
	a_int(&a, r->pt.k);
	a_text(&a, measure_status_name(r->status));
	if (r->status == MEASURE_OK)
		a_real(&a, r->st.median);
	else
		a_null(&a);
	a_int(&a, r->noisy != 0);
	a_text(&a, text);
	st = db_exec(db, "save point", &q_point_insert, &a, NULL, err, errlen);
	free(text);
	if (st != DB_OK)
		return st;
	a.n = 0;
	a_int(&a, id);
	a_int(&a, r->noisy != 0);
	return db_exec(db, "count point", &q_point_count, &a, NULL, err,
	    errlen);
}

enum db_status
db_run_add_point(struct db *db, int64_t id, size_t seq,
    const struct measure_result *r, char *err, size_t errlen)
{
	enum db_status	st;

	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	st = run_point_insert(db, id, seq, r, err, errlen);
	return db_end(db, st, err, errlen);
}

static void
run_from_row(struct db_rows *r, struct db_run *run)
{
	const char	*source;
	int		 i;

	memset(run, 0, sizeof(*run));
	run->id = db_int(r, 0);
	db_copy(r, 1, run->host_id, sizeof(run->host_id));
	db_copy(r, 2, run->fingerprint, sizeof(run->fingerprint));
	db_copy(r, 3, run->profile, sizeof(run->profile));
	for (i = DB_TRIGGER_STARTUP; i <= DB_TRIGGER_IMPORT; i++)
		if (db_text(r, 4) != NULL && strcmp(db_text(r, 4),
		    db_trigger_name((enum db_trigger)i)) == 0)
			run->trigger = (enum db_trigger)i;
	if (db_text(r, 5) == NULL ||
	    db_run_status_parse(db_text(r, 5), &run->status) == -1)
		run->status = DB_RUN_FAILED;
	run->points_done = (int)db_int(r, 6);
	run->points_total = (int)db_int(r, 7);
	run->noisy_points = (int)db_int(r, 8);
	run->effective_cpus = (int)db_int(r, 9);
	run->mem_budget = (uint64_t)db_int(r, 10);
	source = db_text(r, 11) != NULL ? db_text(r, 11) : "";
	run->budget_source = strcmp(source, "config") == 0 ?
	    HOST_BUDGET_CONFIG : strcmp(source, "cgroup") == 0 ?
	    HOST_BUDGET_CGROUP : HOST_BUDGET_MEMAVAILABLE;
	db_copy(r, 12, run->error, sizeof(run->error));
	db_copy(r, 13, run->created, sizeof(run->created));
	db_copy(r, 14, run->started, sizeof(run->started));
	db_copy(r, 15, run->finished, sizeof(run->finished));
}

/* The row of run id (q_run_get), read: DB_ERR_NOTFOUND when none. */
static enum db_status
run_row(struct db *db, int64_t id, struct db_rows *r, char *err,
    size_t errlen)
{
	struct db_args	a = { .n = 0 };
	enum db_status	st;

	a_int(&a, id);
	st = db_query_row(db, "read run", &q_run_get, &a, r, err, errlen);
	if (st == DB_ERR_NOTFOUND)
		snprintf(err, errlen, "no run %lld", (long long)id);
	return st;
}

enum db_status
db_run_get(struct db *db, int64_t id, struct db_run *run, char *err,
    size_t errlen)
{
	struct db_rows	r;
	enum db_status	st;

	if ((st = run_row(db, id, &r, err, errlen)) != DB_OK)
		return st;
	run_from_row(&r, run);
	return db_rows_end(&r, err, errlen);
}

enum db_status
db_runs_list(struct db *db, const char *host_id, size_t limit,
    struct db_run **runs, size_t *n, char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	struct db_rows	r;
	enum db_status	st;

	*runs = NULL;
	*n = 0;
	if (limit == 0 || limit > DB_RUNS_LIST_MAX)
		limit = DB_RUNS_LIST_MAX;
	if ((*runs = calloc(limit, sizeof(**runs))) == NULL)
		return db_nomem(err, errlen);
	a_text(&a, host_id);
	a_int(&a, (int64_t)limit);
	if ((st = db_query(db, "list runs", &q_runs_list, &a, &r, err,
	    errlen)) == DB_OK) {
		while (*n < limit && db_next(&r))
			run_from_row(&r, &(*runs)[(*n)++]);
		st = db_rows_end(&r, err, errlen);
	}
	if (st != DB_OK) {
		free(*runs);
		*runs = NULL;
		*n = 0;
	}
	return st;
}

enum db_status
db_run_latest_done(struct db *db, const char *host_id,
    const char *fingerprint, int64_t *id, char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	struct db_rows	r;
	enum db_status	st;

	a_text(&a, host_id);
	a_text(&a, fingerprint);
	st = db_query_row(db, "find run", &q_run_latest_done, &a, &r, err,
	    errlen);
	if (st == DB_ERR_NOTFOUND)
		snprintf(err, errlen, "no finished run%s", host_id != NULL ?
		    " for this host" : "");
	if (st != DB_OK)
		return st;
	*id = db_int(&r, 0);
	return db_rows_end(&r, err, errlen);
}

/* The report's host (facts, the host JSON as it was), profile, budget. */
static enum db_status
run_report_begin(struct report *rep, const struct db_run *run,
    const char *facts, char *err, size_t errlen)
{
	json_t	*j;
	char	 why[256];

	memset(rep, 0, sizeof(*rep));
	j = facts != NULL ? json_loads(facts, 0, NULL) : NULL;
	if (j == NULL || report_host_from_json(j, &rep->host,
	    &rep->effective_cpus, why, sizeof(why)) == -1) {
		json_decref(j);
		snprintf(err, errlen, "run %lld: stored host facts unreadable",
		    (long long)run->id);
		return DB_ERR_CORRUPT;
	}
	json_decref(j);
	snprintf(rep->created, sizeof(rep->created), "%s", run->created);
	snprintf(rep->profile, sizeof(rep->profile), "%s", run->profile);
	rep->mem_budget = run->mem_budget;
	rep->budget_source = run->budget_source;
	rep->effective_cpus = run->effective_cpus;
	return DB_OK;
}

/* Add a point (data, its JSON) to rep, which has room for *cap. */
static enum db_status
run_report_point(struct report *rep, size_t *cap, const char *data,
    int64_t id, int64_t seq, char *err, size_t errlen)
{
	json_t	*j;
	char	 why[256];

	if (rep->n == *cap) {
		struct measure_result	*bigger;
		size_t			 more = *cap ? 2 * *cap : 32;

		if ((bigger = realloc(rep->results, more * sizeof(*bigger))) ==
		    NULL)
			return db_nomem(err, errlen);
		rep->results = bigger;
		*cap = more;
	}
	memset(&rep->results[rep->n], 0, sizeof(rep->results[0]));
	why[0] = '\0';
	j = data != NULL ? json_loads(data, 0, NULL) : NULL;
	rep->n++;
	if (j == NULL || report_point_from_json(j, &rep->results[rep->n - 1],
	    why, sizeof(why)) == -1) {
		json_decref(j);
		snprintf(err, errlen, "run %lld: stored point %lld "
		    "unreadable%s%s", (long long)id, (long long)seq,
		    j != NULL ? ": " : "", j != NULL ? why : "");
		return DB_ERR_CORRUPT;
	}
	json_decref(j);
	return DB_OK;
}

enum db_status
db_run_report(struct db *db, int64_t id, struct report *rep, char *err,
    size_t errlen)
{
	struct db_args	a = { .n = 0 };
	struct db_rows	r;
	struct db_run	run;
	enum db_status	st;
	size_t		cap = 0;

	memset(rep, 0, sizeof(*rep));
	if ((st = run_row(db, id, &r, err, errlen)) != DB_OK)
		return st;
	/* The host as it was when the run was made. */
	run_from_row(&r, &run);
	st = run_report_begin(rep, &run, db_text(&r, 16), err, errlen);
	db_rows_end(&r, err, errlen);
	if (st != DB_OK)
		return st;
	a_int(&a, id);
	if ((st = db_query(db, "read points", &q_run_points, &a, &r, err,
	    errlen)) != DB_OK) {
		report_release(rep);
		return st;
	}
	while (st == DB_OK && db_next(&r))
		st = run_report_point(rep, &cap, db_text(&r, 0), id,
		    db_int(&r, 1), err, errlen);
	if (st == DB_OK)
		st = db_rows_end(&r, err, errlen);
	else
		db_rows_end(&r, NULL, 0);
	if (st != DB_OK)
		report_release(rep);
	return st;
}

enum db_status
db_model_run(struct db *db, const char *host_id, const char *fingerprint,
    int64_t *id, char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	struct db_rows	r;
	enum db_status	st;

	a_text(&a, host_id);
	a_text(&a, fingerprint);
	st = db_query_row(db, "find the model's run", &q_model_run, &a, &r,
	    err, errlen);
	if (st == DB_ERR_NOTFOUND)
		snprintf(err, errlen, "no finished run for this host");
	if (st != DB_OK)
		return st;
	*id = db_int(&r, 0);
	return db_rows_end(&r, err, errlen);
}

/* Of a model's curve: an Argon2 point measured at k = 1 (model_fit's). */
static int
model_curve_point(const struct measure_result *r)
{
	return r->status == MEASURE_OK && r->pt.k == 1 &&
	    kdf_alg_is_argon2(r->pt.kp.alg) && r->st.median > 0;
}

/* The source of curve (backend, variant, p) in src[0..n), or NULL. */
static const struct db_model_source *
model_source_find(const struct db_model_source *src, size_t n,
    enum kdf_backend backend, enum kdf_alg variant, uint32_t p)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (src[i].backend == backend && src[i].variant == variant &&
		    src[i].p == p)
			return &src[i];
	return NULL;
}

/*
 * Append the points of curve s (of another run) to rep; one that cannot
 * be read leaves the whole curve out (0), said in the store's log.
 */
static enum db_status
model_report_add(struct db *db, const struct db_model_source *s,
    struct report *rep, size_t *cap, int *taken, char *err, size_t errlen)
{
	struct db_args		 a = { .n = 0 };
	struct db_rows		 r;
	struct measure_result	*pt;
	enum db_status		 st;
	size_t			 first = rep->n;
	char			 why[320];

	*taken = 0;
	a_int(&a, s->run);
	a_text(&a, kdf_backend_name(s->backend));
	a_text(&a, kdf_alg_name(s->variant));
	a_int(&a, s->p);
	if ((st = db_query(db, "read a curve's points", &q_curve_points, &a,
	    &r, err, errlen)) != DB_OK)
		return st;
	while (st == DB_OK && db_next(&r)) {
		if ((st = run_report_point(rep, cap, db_text(&r, 0), s->run,
		    db_int(&r, 1), why, sizeof(why))) != DB_OK)
			break;
		/* Its JSON must say what its row says: it is that curve's. */
		pt = &rep->results[rep->n - 1];
		if (kdf_backend_resolve(pt->pt.kp.backend, pt->pt.kp.alg) !=
		    s->backend || pt->pt.kp.alg != s->variant ||
		    pt->pt.kp.p != s->p) {
			snprintf(why, sizeof(why), "run %lld: stored point %lld "
			    "unreadable: its data say %s %s p = %u",
			    (long long)s->run, (long long)db_int(&r, 1),
			    kdf_backend_name(pt->pt.kp.backend),
			    kdf_alg_name(pt->pt.kp.alg),
			    (unsigned)pt->pt.kp.p);
			st = DB_ERR_CORRUPT;
			break;
		}
		pt->pt.kp.backend = s->backend;
	}
	if (st == DB_OK) {
		if ((st = db_rows_end(&r, err, errlen)) != DB_OK)
			goto drop;
		*taken = rep->n > first;
		return DB_OK;
	}
	db_rows_end(&r, NULL, 0);
	if (st != DB_ERR_CORRUPT) {
		snprintf(err, errlen, "%s", why);
		goto drop;
	}
	db_logf(db, "%s: its %s %s p = %u curve is left out of the model",
	    why, kdf_backend_name(s->backend), kdf_alg_name(s->variant),
	    (unsigned)s->p);
	st = DB_OK;
drop:
	while (rep->n > first)
		measure_result_release(&rep->results[--rep->n]);
	return st;
}

enum db_status
db_model_report(struct db *db, int64_t id, struct report *rep,
    struct db_model_sources *out, char *err, size_t errlen)
{
	struct db_model_source	 own[MODEL_CURVES_MAX];
	struct db_model_source	 want[MODEL_CURVES_MAX];
	struct db_model_sources	 none;
	struct db_args		 a = { .n = 0 };
	struct db_rows		 r;
	enum db_status		 st;
	const struct measure_result *pt;
	size_t			 nown = 0, nwant = 0, cap, i;
	int			 taken;

	if (out == NULL)
		out = &none;
	memset(out, 0, sizeof(*out));
	if ((st = db_run_report(db, id, rep, err, errlen)) != DB_OK)
		return st;
	out->nown = cap = rep->n;
	for (i = 0; i < rep->n; i++) {
		pt = &rep->results[i];
		if (model_curve_point(pt) && nown < MODEL_CURVES_MAX &&
		    model_source_find(own, nown, pt->pt.kp.backend,
		    pt->pt.kp.alg, pt->pt.kp.p) == NULL) {
			own[nown].backend = pt->pt.kp.backend;
			own[nown].variant = pt->pt.kp.alg;
			own[nown].p = pt->pt.kp.p;
			own[nown++].run = id;
		}
	}
	/* The others' curves, the newest measured first, while room. */
	a_text(&a, rep->host.host_id);
	a_text(&a, rep->host.fingerprint);
	a_int(&a, id);
	if ((st = db_query(db, "find the model's other curves",
	    &q_model_curves, &a, &r, err, errlen)) == DB_OK) {
		while (db_next(&r)) {
			struct db_model_source	c;

			if (kdf_backend_parse(db_text(&r, 0), &c.backend) ==
			    -1 || kdf_alg_parse(db_text(&r, 1), &c.variant) ==
			    -1)
				continue;
			c.p = (uint32_t)db_int(&r, 2);
			c.run = db_int(&r, 3);
			if (model_source_find(own, nown, c.backend, c.variant,
			    c.p) == NULL && nown + nwant < MODEL_CURVES_MAX)
				want[nwant++] = c;
		}
		st = db_rows_end(&r, err, errlen);
	}
	for (i = 0; st == DB_OK && i < nwant; i++)
		if ((st = model_report_add(db, &want[i], rep, &cap, &taken,
		    err, errlen)) == DB_OK && taken)
			out->src[out->n++] = want[i];
	if (st != DB_OK) {
		report_release(rep);
		memset(out, 0, sizeof(*out));
		return st;
	}
	/* The model's own figures are of the run's points (model_fit). */
	rep->nown = out->nown;
	rep->merged = out->n > 0;
	return DB_OK;
}

void
db_model_sources_apply(const struct db_model_sources *src, int64_t id,
    struct model *m)
{
	const struct db_model_source	*s;
	size_t				 i;

	m->run_id = id;
	for (i = 0; i < m->ncurves; i++) {
		s = model_source_find(src->src, src->n, m->curves[i].backend,
		    m->curves[i].variant, m->curves[i].p);
		m->curves[i].run_id = s != NULL ? s->run : id;
	}
}

enum db_status
db_model_fit(struct db *db, int64_t id, struct model *m, char *err,
    size_t errlen)
{
	struct db_model_sources	src;
	struct report		rep;
	enum db_status		st;

	if ((st = db_model_report(db, id, &rep, &src, err, errlen)) != DB_OK)
		return st;
	if (model_fit(&rep, m, err, errlen) == -1) {
		report_release(&rep);
		return DB_ERR_INVALID;
	}
	report_release(&rep);
	db_model_sources_apply(&src, id, m);
	return DB_OK;
}

enum db_status
db_import_report(struct db *db, const struct report *rep, int64_t *id,
    char *err, size_t errlen)
{
	char		now[32];
	enum db_status	st;
	size_t		i;

	if (!run_report_valid(rep, err, errlen))
		return DB_ERR_INVALID;
	db_now(now, sizeof(now));
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	st = run_insert(db, rep, rep->n, DB_TRIGGER_IMPORT, DB_RUN_DONE, now,
	    id, err, errlen);
	for (i = 0; st == DB_OK && i < rep->n; i++)
		st = run_point_insert(db, *id, i, &rep->results[i], err,
		    errlen);
	/* Imported runs are finished: record when they came in. */
	if (st == DB_OK)
		st = run_set(db, "finish import", *id, "done", NULL, now, NULL,
		    err, errlen);
	return db_end(db, st, err, errlen);
}

enum db_status
db_retention(struct db *db, const char *host_id, const char *fingerprint,
    size_t keep, int64_t protect, size_t *deleted, char *err, size_t errlen)
{
	struct db_args	a = { .n = 0 };
	enum db_status	st;
	int64_t		changed = 0;

	*deleted = 0;
	a_text(&a, host_id);
	a_int(&a, (int64_t)keep);
	a_int(&a, protect);
	a_text(&a, fingerprint);
	if ((st = db_begin(db, err, errlen)) != DB_OK)
		return st;
	if ((st = db_exec(db, "retention", &q_retention, &a, &changed, err,
	    errlen)) == DB_OK)
		*deleted = (size_t)changed;
	return db_end(db, st, err, errlen);
}
