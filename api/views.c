/*
 * api/views.c: what the dashboard draws, computed here so the page
 * computes nothing of its own.
 *
 * GET /v1/model: the model in use, the points of the run it was fitted
 * on, the model's lines over the measured range (per backend and t), the
 * latency percentiles and throughput against concurrency, and the
 * verifications (predicted against measured) of this host.
 *
 * api_run_presets: the common presets' predicted time on the host of a
 * finished run, for the hosts table. A finished run never changes, so the
 * answer is kept by run id: one place per host GET /v1/hosts lists, the
 * least recently read let go first, so that listing every host refits
 * only the runs that are new.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "presets.h"

#define VIEW_LINE_STEPS		24	/* points on each model line */
#define VIEW_VERIFICATIONS	50
#define VIEW_T_MAX		16	/* distinct t per curve drawn */

/* The model's line for curve c at t: p50 and p95 over the measured m. */
static json_t *
view_line(const struct model *m, const struct model_curve *c, uint32_t t)
{
	struct model_prediction	 p50, p95;
	json_t			*pts = json_array();
	double			 lo = model_curve_min_m(c);
	double			 hi = model_curve_max_m(c);
	uint32_t		 m_kib, last = 0;
	int			 i;

	for (i = 0; i <= VIEW_LINE_STEPS; i++) {
		m_kib = (uint32_t)llround(lo * pow(hi / lo,
		    (double)i / VIEW_LINE_STEPS));
		if (m_kib == last)
			continue;
		last = m_kib;
		model_predict(m, c, m_kib, t, 1, 50, &p50);
		model_predict(m, c, m_kib, t, 1, 95, &p95);
		json_array_append_new(pts, json_pack("{s:I, s:f, s:f}",
		    "m_kib", (json_int_t)m_kib, "p50_ms", p50.ms,
		    "p95_ms", p95.ms));
	}
	return json_pack("{s:s, s:s, s:I, s:I, s:o}",
	    "backend", kdf_backend_name(c->backend),
	    "variant", kdf_alg_name(c->variant), "p", (json_int_t)c->p,
	    "t", (json_int_t)t, "points", pts);
}

/* One line per curve and t measured at k = 1. */
static json_t *
view_lines(const struct model *m, const struct report *rep)
{
	json_t		*lines = json_array();
	uint32_t	 ts[VIEW_T_MAX];
	size_t		 nt, i, j, k;

	for (i = 0; i < m->ncurves; i++) {
		const struct model_curve *c = &m->curves[i];

		if (c->nrows == 0)
			continue;
		nt = 0;
		for (j = 0; j < rep->n; j++) {
			const struct measure_point *pt = &rep->results[j].pt;

			if (rep->results[j].status != MEASURE_OK ||
			    pt->k != 1 || pt->kp.backend != c->backend ||
			    pt->kp.alg != c->variant || pt->kp.p != c->p)
				continue;
			for (k = 0; k < nt && ts[k] != pt->kp.t; k++)
				;
			if (k == nt && nt < VIEW_T_MAX)
				ts[nt++] = pt->kp.t;
		}
		for (j = 0; j < nt; j++)
			json_array_append_new(lines, view_line(m, c, ts[j]));
	}
	return lines;
}

/*
 * Latency and throughput against k: the points measured at several k with
 * the same parameters, grouped.
 */
static json_t *
view_concurrency(const struct report *rep)
{
	json_t	*series = json_array(), *pts;
	char	*done;
	size_t	 i, j;

	if ((done = calloc(rep->n + 1, 1)) == NULL)
		return series;
	for (i = 0; i < rep->n; i++) {
		const struct measure_result *a = &rep->results[i];
		size_t	count = 0;

		if (done[i] || a->status != MEASURE_OK)
			continue;
		pts = json_array();
		for (j = i; j < rep->n; j++) {
			const struct measure_result *b = &rep->results[j];

			if (b->status != MEASURE_OK ||
			    b->pt.kp.backend != a->pt.kp.backend ||
			    b->pt.kp.alg != a->pt.kp.alg ||
			    b->pt.kp.m_kib != a->pt.kp.m_kib ||
			    b->pt.kp.t != a->pt.kp.t || b->pt.kp.p != a->pt.kp.p)
				continue;
			done[j] = 1;
			count++;
			json_array_append_new(pts, json_pack("{s:I, s:f, s:f, "
			    "s:f, s:f}", "k", (json_int_t)b->pt.k,
			    "p50_ms", b->st.median, "p95_ms", b->st.p95,
			    "p99_ms", b->st.p99, "throughput_per_s",
			    b->throughput));
		}
		if (count < 2) {
			json_decref(pts);
			continue;
		}
		json_array_append_new(series, json_pack("{s:s, s:s, s:I, s:I, "
		    "s:I, s:o}", "backend", kdf_backend_name(a->pt.kp.backend),
		    "variant", kdf_alg_name(a->pt.kp.alg),
		    "m_kib", (json_int_t)a->pt.kp.m_kib,
		    "t", (json_int_t)a->pt.kp.t, "p", (json_int_t)a->pt.kp.p,
		    "points", pts));
	}
	free(done);
	return series;
}

static json_t *
view_verifications(struct db *db, const char *host_id)
{
	struct db_verification	*v;
	json_t			*list = json_array(), *params;
	size_t			 n, i;
	char			 err[256];

	if (db_verifications_list(db, host_id, VIEW_VERIFICATIONS, &v, &n,
	    err, sizeof(err)) != DB_OK)
		return list;
	for (i = 0; i < n; i++) {
		params = json_loads(v[i].params, 0, NULL);
		json_array_append_new(list, json_pack("{s:I, s:I, s:f, s:f, "
		    "s:f, s:o, s:s}", "id", (json_int_t)v[i].id, "run_id",
		    (json_int_t)v[i].run_id, "target_ms", v[i].target_ms,
		    "predicted_ms", v[i].predicted_ms, "measured_ms",
		    v[i].measured_ms, "params", params ? params : json_object(),
		    "created", v[i].created));
	}
	free(v);
	return list;
}

enum MHD_Result
h_model(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, int *status)
{
	struct model	*m;
	struct report	 rep;
	struct db	*db;
	json_t		*j, *points;
	char		 err[512];
	size_t		 i;

	(void)r;
	(void)arg;
	if ((m = api_model_dup(s, NULL)) == NULL)
		return api_no_model(s, c, status);
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_run_report(db, m->run_id, &rep, err, sizeof(err)) != DB_OK) {
		free(m);
		return api_store_unreadable(c, status);
	}
	points = json_array();
	for (i = 0; i < rep.n; i++)
		if (rep.results[i].status == MEASURE_OK)
			json_array_append_new(points,
			    report_point_to_json(&rep.results[i], 0));
	j = json_pack("{s:I, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}",
	    "run_id", (json_int_t)m->run_id, "host_id", m->host_id,
	    "fingerprint", m->fingerprint, "created", m->created,
	    "model", model_to_json(m), "points", points,
	    "lines", view_lines(m, &rep),
	    "concurrency", view_concurrency(&rep),
	    "verifications", view_verifications(db, m->host_id));
	report_release(&rep);
	free(m);
	return api_json(c, 200, j, NULL, status);
}

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
		if ((curve = tune_curve(m, &q, &p, err, sizeof(err))) == NULL)
			continue;
		model_predict(m, curve, pre[i].m_kib, pre[i].t, 1, 95, &pr);
		json_array_append_new(list, json_pack("{s:s, s:I, s:I, s:I, "
		    "s:f, s:b, s:s}", "name", pre[i].name, "m_kib",
		    (json_int_t)pre[i].m_kib, "t", (json_int_t)pre[i].t,
		    "p", (json_int_t)pre[i].p, "predicted_ms_p95", pr.ms,
		    "extrapolated", pr.extrapolated, "note", pre[i].p > p ?
		    "upper bound: measured with fewer lanes" : pr.extrapolated ?
		    "extrapolated" : ""));
	}
	free(m);
	return list;
}

json_t *
api_run_presets(struct api_server *s, struct db *db, int64_t run)
{
	struct report	 rep;
	json_t		*list = NULL;
	char		 err[256];
	size_t		 i, victim;

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
	if (db_run_report(db, run, &rep, err, sizeof(err)) != DB_OK)
		return json_array();
	list = view_presets(&rep);
	report_release(&rep);
	if (list == NULL)
		return json_array();
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
api_views_free(struct api_server *s)
{
	size_t	i;

	for (i = 0; i < API_RUN_PRESETS_SLOTS; i++) {
		json_decref(s->run_presets[i].presets);
		s->run_presets[i].presets = NULL;
	}
}
