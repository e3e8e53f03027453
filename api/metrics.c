/*
 * api/metrics.c: GET /metrics, the Prometheus text: requests by route and
 * status class, latency, runs, the store, scoped answers, the model.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_impl.h"

/* The text /metrics answers, as it grows. */
struct api_text {
	char	*buf;
	size_t	 cap, len;
};

static void api_out(struct api_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
api_out(struct api_text *t, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < t->cap - t->len)
		t->len += (size_t)n;
}

/* The store and the scoped answers, for api_metrics_locked(). */
struct api_metrics_arg {
	struct api_text		*t;
	int			 up, pg;
	unsigned long long	 computed, cached;
};

/* The runs, the store, the model: under the host's lock. */
static void
api_metrics_locked(const struct model *m, const struct api_state *st,
    void *arg)
{
	struct api_metrics_arg	*ma = arg;
	struct api_text		*t = ma->t;
	struct tune_query	 q;
	struct tune_answer	 a;
	char			 err[256];
	time_t			 now = time(NULL);
	size_t			 i;

	api_out(t, "# HELP pwtuned_runs_total Runs finished since start, by "
	    "status.\n# TYPE pwtuned_runs_total counter\n");
	for (i = DB_RUN_DONE; i <= DB_RUN_INTERRUPTED; i++)
		api_out(t, "pwtuned_runs_total{status=\"%s\"} %llu\n",
		    db_run_status_name((enum db_run_status)i),
		    st->runs_by_status[i]);
	api_out(t, "# HELP pwtuned_store_up 1 when the store can be reached.\n"
	    "# TYPE pwtuned_store_up gauge\npwtuned_store_up{engine=\"%s\"} "
	    "%d\n# HELP pwtuned_store_failures_total Store operations that "
	    "could not reach or write the store.\n"
	    "# TYPE pwtuned_store_failures_total counter\n"
	    "pwtuned_store_failures_total %llu\n", ma->pg ? "postgresql" :
	    "sqlite", ma->up, st->store_failures);
	api_out(t, "# HELP pwtuned_scoped_answers_total Answers for a group, "
	    "the fleet or a stack: computed, or the same question answered "
	    "from the one kept.\n# TYPE pwtuned_scoped_answers_total counter\n"
	    "pwtuned_scoped_answers_total{result=\"computed\"} %llu\n"
	    "pwtuned_scoped_answers_total{result=\"cached\"} %llu\n",
	    ma->computed, ma->cached);
	api_out(t, "# HELP pwtuned_benchmark_in_progress 1 while a run "
	    "measures.\n# TYPE pwtuned_benchmark_in_progress gauge\n"
	    "pwtuned_benchmark_in_progress %d\n", st->running_run != 0);
	api_out(t, "# HELP pwtuned_last_run_age_seconds Age of the newest "
	    "finished run (-1: none).\n# TYPE pwtuned_last_run_age_seconds "
	    "gauge\npwtuned_last_run_age_seconds %lld\n", st->last_done > 0 ?
	    (long long)(now - st->last_done) : -1LL);
	api_out(t, "# HELP pwtuned_model_ready 1 when a model answers.\n"
	    "# TYPE pwtuned_model_ready gauge\npwtuned_model_ready %d\n"
	    "# HELP pwtuned_model_stale 1 when the model was measured on other "
	    "host facts than now (re-benchmark).\n"
	    "# TYPE pwtuned_model_stale gauge\npwtuned_model_stale %d\n",
	    m != NULL, m != NULL && st->model_stale);
	if (m == NULL)
		return;
	/* The verdict of engine/model.h: 1 when answers carry the note. */
	api_out(t, "# HELP pwtuned_model_poor 1 when the model in use is "
	    "poor (too few or too noisy points, or a large error).\n"
	    "# TYPE pwtuned_model_poor gauge\npwtuned_model_poor %d\n",
	    m->quality == MODEL_QUALITY_POOR);
	if (m->loo_known)	/* absent: too few points to know it */
		api_out(t, "# HELP pwtuned_model_error Leave-one-out relative "
		    "error of the model in use.\n"
		    "# TYPE pwtuned_model_error gauge\n"
		    "pwtuned_model_error{stat=\"median\"} %.4f\n"
		    "pwtuned_model_error{stat=\"worst\"} %.4f\n",
		    m->loo_median, m->loo_worst);
	tune_query_init(&q);
	if (tune_recommend(m, &q, &a, err, sizeof(err)) == 0)
		api_out(t, "# HELP pwtuned_recommendation The default answer "
		    "(250 ms at p95, k = 1, OWASP floor).\n"
		    "# TYPE pwtuned_recommendation gauge\n"
		    "pwtuned_recommendation{param=\"m_kib\"} %u\n"
		    "pwtuned_recommendation{param=\"t\"} %u\n"
		    "pwtuned_recommendation{param=\"p\"} %u\n"
		    "pwtuned_recommendation{param=\"predicted_ms\"} "
		    "%.3f\n", (unsigned)a.m_kib, (unsigned)a.t,
		    (unsigned)a.p, a.predicted_ms);
}

int
h_metrics(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	static const char *const bounds[API_LATENCY_BUCKETS] = {
		"0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
		"0.1", "0.25", "1"
	};
	struct api_metrics_arg	 ma;
	struct api_text		 t;
	size_t			 i, k;
	unsigned long long	 cum = 0;
	char			 why[256];

	(void)c;
	(void)r;
	(void)arg;
	memset(&ma, 0, sizeof(ma));
	ma.t = &t;
	ma.up = api_store_up(s, why, sizeof(why));
	ma.pg = api_store_is_pg(s);
	api_fleet_counts(s, &ma.computed, &ma.cached);	/* no lock held */
	t.cap = 16384;
	t.len = 0;
	if ((t.buf = malloc(t.cap)) == NULL)
		return -1;
	api_out(&t, "# HELP pwtuned_http_requests_total Requests by route and "
	    "status class.\n# TYPE pwtuned_http_requests_total counter\n");
	pthread_mutex_lock(&s->lock);
	for (i = 0; i <= api_nroutes; i++)
		for (k = 1; k < 6; k++)
			if (s->hits[i][k] > 0 || (i == 3 && k == 2))
				api_out(&t, "pwtuned_http_requests_total{route="
				    "\"%s %s\",status=\"%zuxx\"} %llu\n",
				    i < api_nroutes ? api_routes[i].method :
				    "any", i < api_nroutes ?
				    api_routes[i].path : "other", k,
				    s->hits[i][k]);
	api_out(&t, "# HELP pwtuned_http_request_seconds Request latency.\n"
	    "# TYPE pwtuned_http_request_seconds histogram\n");
	for (i = 0; i < API_LATENCY_BUCKETS; i++) {
		cum += s->latency[i];
		api_out(&t, "pwtuned_http_request_seconds_bucket{le=\"%s\"} "
		    "%llu\n", bounds[i], cum);
	}
	cum += s->latency[API_LATENCY_BUCKETS];
	api_out(&t, "pwtuned_http_request_seconds_bucket{le=\"+Inf\"} %llu\n"
	    "pwtuned_http_request_seconds_sum %.6f\n"
	    "pwtuned_http_request_seconds_count %llu\n", cum, s->latency_sum,
	    s->latency_count);
	pthread_mutex_unlock(&s->lock);
	s->env.with_model(s->env.ctx, api_metrics_locked, &ma);
	rep->status = 200;
	rep->body = t.buf;
	rep->len = t.len;
	api_reply_header(rep, "Content-Type", "text/plain; version=0.0.4");
	return 0;
}
