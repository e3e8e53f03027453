/*
 * api/model.c: GET /v1/model, what the dashboard draws, computed here so
 * the page computes nothing of its own: the model in use, the points of
 * the run it was fitted on, the model's lines over the measured range
 * (per backend and t), the latency percentiles and throughput against
 * concurrency, and the verifications (predicted against measured) of
 * this host.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"

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

/* The leave-one-out errors of o's "error", flat as in every answer. */
static void
view_loo(json_t *o)
{
	json_t	*e = json_object_get(o, "error");

	if (e == NULL)
		return;
	json_object_set(o, "loo_median_error", json_object_get(e,
	    "loo_median"));
	json_object_set(o, "loo_worst_error", json_object_get(e,
	    "loo_worst"));
}

/*
 * The model as the engine gives it, with the vocabulary's names: the
 * leave-one-out errors as loo_median_error and loo_worst_error, the
 * names an answer's model has (its curves' too); "error" stays,
 * deprecated (0.2.0).
 */
static json_t *
view_model(const struct model *m)
{
	json_t	*j = model_to_json(m), *c;
	size_t	 i;

	view_loo(j);
	json_array_foreach(json_object_get(j, "curves"), i, c)
		view_loo(c);
	return j;
}

/* A measured point: no reason is null, not "". */
static json_t *
view_point(const struct measure_result *r)
{
	json_t	*j = report_point_to_json(r, 0), *v;

	if ((v = json_object_get(j, "reason")) != NULL &&
	    json_is_string(v) && json_string_length(v) == 0)
		json_object_set_new(j, "reason", json_null());
	return j;
}

/*
 * Keep of rp the points m was fitted from: its run's own, but those of a
 * curve m has from another run (a run measuring: its second library's
 * points, measured after the model it serves was fitted); and another
 * run's where m took that curve from that run (the store may hold a
 * newer one since m was fitted: not shown beside a model that has not
 * it).
 */
static void
view_fitted_points(const struct model *m, const struct db_model_sources *src,
    struct report *rp)
{
	const struct model_curve	*c;
	const struct measure_point	*pt;
	int64_t				 run;
	size_t				 i, j, n = 0;

	for (i = 0; i < rp->n; i++) {
		pt = &rp->results[i].pt;
		c = model_curve_find(m, pt->kp.backend, pt->kp.alg, pt->kp.p);
		run = m->run_id;
		if (i >= src->nown) {
			for (j = 0; j < src->n; j++)
				if (src->src[j].backend == pt->kp.backend &&
				    src->src[j].variant == pt->kp.alg &&
				    src->src[j].p == pt->kp.p)
					break;
			run = j < src->n ? src->src[j].run : -1;
		}
		if (i < src->nown ? c == NULL || c->run_id == 0 ||
		    c->run_id == run : c != NULL && c->run_id == run)
			rp->results[n++] = rp->results[i];
		else
			measure_result_release(&rp->results[i]);
	}
	rp->n = n;
}

int
h_model(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct model		*m;
	struct report		 rp;
	struct db_model_sources	 src;
	struct db		*db;
	json_t			*j, *points;
	char			 err[512];
	size_t			 i;

	(void)c;
	(void)r;
	(void)arg;
	if ((m = api_model_dup(s, NULL)) == NULL)
		return api_no_model(s, rep);
	if ((db = api_db(s, err, sizeof(err))) == NULL ||
	    db_model_report(db, m->run_id, &rp, &src, err, sizeof(err)) !=
	    DB_OK) {
		free(m);
		return api_store_fail(s, rep, DB_ERR_UNAVAILABLE, 0, NULL,
		    NULL);
	}
	view_fitted_points(m, &src, &rp);
	points = json_array();
	for (i = 0; i < rp.n; i++)
		if (rp.results[i].status == MEASURE_OK)
			json_array_append_new(points,
			    view_point(&rp.results[i]));
	j = json_pack("{s:I, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}",
	    "run_id", (json_int_t)m->run_id, "host_id", m->host_id,
	    "fingerprint", m->fingerprint, "created", m->created,
	    "model", view_model(m), "points", points,
	    "lines", view_lines(m, &rp),
	    "concurrency", view_concurrency(&rp),
	    "verifications", view_verifications(db, m->host_id));
	report_release(&rp);
	free(m);
	return api_ok(rep, 200, j, NULL);
}
