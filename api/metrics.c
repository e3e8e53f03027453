/*
 * api/metrics.c: GET /metrics, the Prometheus text, named as the Go and
 * Python client libraries name things: requests by method, route pattern
 * and status code, their latency, runs, the store, scoped answers, the
 * model and the default answer (base units, one unit per family, absent
 * when unknown), pwtuned_build_info and the process_* metrics read from
 * /proc as those libraries read them.
 *
 * Deprecated, kept for one minor version (README, Changelog): the status
 * label (the status class) of pwtuned_http_requests_total,
 * pwtuned_recommendation{param}, pwtuned_model_error{stat} and
 * pwtuned_last_run_age_seconds.
 */
#include <sys/resource.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "api_impl.h"
#include "check.h"

/* The text /metrics answers, as it grows; failed: out of memory. */
struct api_text {
	char	*buf;
	size_t	 cap, len;
	int	 failed;
};

static void api_out(struct api_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
api_out(struct api_text *t, const char *fmt, ...)
{
	va_list	 ap;
	char	*nb;
	size_t	 cap;
	int	 n;

	if (t->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->failed = 1;
		return;
	}
	if ((size_t)n >= t->cap - t->len) {
		cap = t->cap * 2 > t->len + (size_t)n + 1 ? t->cap * 2 :
		    t->len + (size_t)n + 1;
		if ((nb = realloc(t->buf, cap)) == NULL) {
			t->failed = 1;
			return;
		}
		t->buf = nb;
		t->cap = cap;
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
	}
	t->len += (size_t)n;
}

static void	api_metrics_answer(struct api_text *t,
		    const struct tune_answer *a);

/* The closed loop (daemon/checks.c): its checks, what they cost. */
static void
api_metrics_checks(struct api_text *t, const struct api_state *st)
{
	size_t	i;

	api_out(t, "# HELP pwtuned_checks_total Answers measured in the "
	    "background, by what was found.\n"
	    "# TYPE pwtuned_checks_total counter\n");
	for (i = 0; i < CHECK_VERDICTS; i++)
		api_out(t, "pwtuned_checks_total{result=\"%s\"} %llu\n",
		    check_verdict_name((enum check_verdict)i),
		    st->checks_by_verdict[i]);
	api_out(t, "pwtuned_checks_total{result=\"preempted\"} %llu\n"
	    "pwtuned_checks_total{result=\"noisy\"} %llu\n"
	    "pwtuned_checks_total{result=\"waited\"} %llu\n"
	    "# HELP pwtuned_check_cpu_seconds_total CPU time the checks' "
	    "hashes took.\n# TYPE pwtuned_check_cpu_seconds_total counter\n"
	    "pwtuned_check_cpu_seconds_total %.3f\n"
	    "# HELP pwtuned_questions Distinct questions kept to check.\n"
	    "# TYPE pwtuned_questions gauge\npwtuned_questions %zu\n"
	    "# HELP pwtuned_answers_verified Questions whose answer was "
	    "measured within 90-100 %% of its target.\n"
	    "# TYPE pwtuned_answers_verified gauge\n"
	    "pwtuned_answers_verified %zu\n"
	    "# HELP pwtuned_drift 1 when a check found the host slower or "
	    "faster than its model (a run is queued).\n"
	    "# TYPE pwtuned_drift gauge\npwtuned_drift %d\n",
	    st->checks_preempted, st->checks_noisy, st->checks_skipped,
	    st->check_cpu_seconds,
	    st->questions, st->answers_verified, st->drift);
}

/* The store and the scoped answers, for api_metrics_locked(). */
struct api_metrics_arg {
	struct api_text		*t;
	int			 up, pg;
	unsigned long long	 computed, cached;
	struct tune_query	 q;	/* the default question, as answered */
	struct check_state	 cs;	/* what its checks found */
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
	double			 model_ms;
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
	    "the fleet (a catalogue stack's too), or, at host scope, a name "
	    "only services' observations know: computed, or the same question answered "
	    "from the one kept.\n# TYPE pwtuned_scoped_answers_total counter\n"
	    "pwtuned_scoped_answers_total{result=\"computed\"} %llu\n"
	    "pwtuned_scoped_answers_total{result=\"cached\"} %llu\n",
	    ma->computed, ma->cached);
	api_out(t, "# HELP pwtuned_benchmark_in_progress 1 while a run "
	    "measures.\n# TYPE pwtuned_benchmark_in_progress gauge\n"
	    "pwtuned_benchmark_in_progress %d\n", st->running_run != 0);
	api_metrics_checks(t, st);
	/* No finished run: both absent (unknown), never a sentinel. */
	if (st->last_done > 0)
		api_out(t, "# HELP pwtuned_last_run_timestamp_seconds End of "
		    "the newest finished run, in seconds since the epoch.\n"
		    "# TYPE pwtuned_last_run_timestamp_seconds gauge\n"
		    "pwtuned_last_run_timestamp_seconds %lld\n"
		    "# HELP pwtuned_last_run_age_seconds Age of the newest "
		    "finished run (deprecated: use time() - "
		    "pwtuned_last_run_timestamp_seconds).\n"
		    "# TYPE pwtuned_last_run_age_seconds gauge\n"
		    "pwtuned_last_run_age_seconds %lld\n",
		    (long long)st->last_done, (long long)(now - st->last_done));
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
		api_out(t, "# HELP pwtuned_model_loo_error_ratio Leave-one-out "
		    "relative error of the model in use (0.1: 10 %%).\n"
		    "# TYPE pwtuned_model_loo_error_ratio gauge\n"
		    "pwtuned_model_loo_error_ratio{stat=\"median\"} %.4f\n"
		    "pwtuned_model_loo_error_ratio{stat=\"worst\"} %.4f\n"
		    "# HELP pwtuned_model_error Leave-one-out relative error of "
		    "the model in use (deprecated: use "
		    "pwtuned_model_loo_error_ratio).\n"
		    "# TYPE pwtuned_model_error gauge\n"
		    "pwtuned_model_error{stat=\"median\"} %.4f\n"
		    "pwtuned_model_error{stat=\"worst\"} %.4f\n",
		    m->loo_median, m->loo_worst, m->loo_median, m->loo_worst);
	/* The default answer as GET /v1/recommendation gives it. */
	q = ma->q;
	if (check_answer(m, NULL, &q, ma->cs.c, &a, &model_ms, err,
	    sizeof(err)) == 0)
		api_metrics_answer(t, &a);
}

/* The default answer, one family per unit, and the deprecated one. */
static void
api_metrics_answer(struct api_text *t, const struct tune_answer *a)
{
	static const char	dflt[] = "of the default answer (250 ms at "
	    "p95, k = 1, OWASP floor)";

	api_out(t, "# HELP pwtuned_recommendation_memory_bytes Memory %s.\n"
	    "# TYPE pwtuned_recommendation_memory_bytes gauge\n"
	    "pwtuned_recommendation_memory_bytes %llu\n"
	    "# HELP pwtuned_recommendation_iterations Iterations (t) %s.\n"
	    "# TYPE pwtuned_recommendation_iterations gauge\n"
	    "pwtuned_recommendation_iterations %u\n"
	    "# HELP pwtuned_recommendation_lanes Lanes (p) %s.\n"
	    "# TYPE pwtuned_recommendation_lanes gauge\n"
	    "pwtuned_recommendation_lanes %u\n"
	    "# HELP pwtuned_recommendation_predicted_seconds Predicted time "
	    "%s.\n# TYPE pwtuned_recommendation_predicted_seconds gauge\n"
	    "pwtuned_recommendation_predicted_seconds %.6f\n", dflt,
	    (unsigned long long)a->m_kib * 1024, dflt, (unsigned)a->t, dflt,
	    (unsigned)a->p, dflt, a->predicted_ms / 1000);
	api_out(t, "# HELP pwtuned_recommendation The default answer "
	    "(deprecated: use pwtuned_recommendation_memory_bytes, "
	    "_iterations, _lanes, _predicted_seconds).\n"
	    "# TYPE pwtuned_recommendation gauge\n"
	    "pwtuned_recommendation{param=\"m_kib\"} %u\n"
	    "pwtuned_recommendation{param=\"t\"} %u\n"
	    "pwtuned_recommendation{param=\"p\"} %u\n"
	    "pwtuned_recommendation{param=\"predicted_ms\"} %.3f\n",
	    (unsigned)a->m_kib, (unsigned)a->t, (unsigned)a->p,
	    a->predicted_ms);
}

/* A route as its label: the pattern ("/v1/runs/{id}"), or "other". */
static void
api_route_label(size_t i, char *buf, size_t len)
{
	if (i >= api_nroutes)
		snprintf(buf, len, "other");
	else
		snprintf(buf, len, "%s%s", api_routes[i].path,
		    !api_routes[i].prefix ? "" : strcmp(api_routes[i].path,
		    "/static/") == 0 ? "{name}" : "{id}");
}

/* The latency histogram of one method and route. */
static void
api_metrics_latency(struct api_text *t, const char *method,
    const char *route, const struct api_latency *l)
{
	unsigned long long	cum = 0;
	char			le[16];
	size_t			b;

	for (b = 0; b <= API_LATENCY_BUCKETS; b++) {
		cum += l->bucket[b];
		if (b < API_LATENCY_BUCKETS)
			snprintf(le, sizeof(le), "%g", api_latency_bounds[b]);
		else
			snprintf(le, sizeof(le), "+Inf");
		api_out(t, "pwtuned_http_request_seconds_bucket{method=\"%s\","
		    "route=\"%s\",le=\"%s\"} %llu\n", method, route, le, cum);
	}
	api_out(t, "pwtuned_http_request_seconds_sum{method=\"%s\",route="
	    "\"%s\"} %.6f\npwtuned_http_request_seconds_count{method=\"%s\","
	    "route=\"%s\"} %llu\n", method, route, l->sum, method, route,
	    l->count);
}

/* Requests by method, route and code; their latency. Server's lock held. */
static void
api_metrics_http(struct api_server *s, struct api_text *t)
{
	const struct api_hit	*h;
	char			 route[64];
	size_t			 i, k;

	api_out(t, "# HELP pwtuned_http_requests_total Requests answered, by "
	    "method, route pattern and status code (the label status, the "
	    "status class, is deprecated: use code).\n"
	    "# TYPE pwtuned_http_requests_total counter\n");
	for (i = 0; i < s->nhits; i++) {
		h = &s->hits[i];
		api_route_label(h->route, route, sizeof(route));
		api_out(t, "pwtuned_http_requests_total{method=\"%s\",route="
		    "\"%s\",code=\"%u\",status=\"%uxx\"} %llu\n",
		    api_methods[h->method], route, (unsigned)h->code,
		    (unsigned)h->code / 100, h->n);
	}
	api_out(t, "# HELP pwtuned_http_request_seconds Request latency, by "
	    "method and route pattern.\n"
	    "# TYPE pwtuned_http_request_seconds histogram\n");
	for (i = 0; i <= API_ROUTES; i++)
		for (k = 0; k < API_METHODS; k++)
			if (s->latency[i][k].count > 0) {
				api_route_label(i, route, sizeof(route));
				api_metrics_latency(t, api_methods[k], route,
				    &s->latency[i][k]);
			}
}

/*
 * The process_* metrics, as the Go and Python clients read them: CPU time
 * (utime + stime), virtual size and resident pages from /proc/self/stat,
 * the start time from its starttime and /proc/stat's btime, the open
 * descriptors in /proc/self/fd, their limit (the soft RLIMIT_NOFILE,
 * /proc/self/limits' "Max open files"). What cannot be read is left out.
 */
static void
api_metrics_process(struct api_text *t)
{
	unsigned long long	 utime, stime, start, vsize, btime = 0;
	long			 rss, tck = sysconf(_SC_CLK_TCK);
	long			 page = sysconf(_SC_PAGESIZE);
	struct rlimit		 rl;
	struct dirent		*de;
	char			 buf[1024], *p;
	FILE			*fp;
	DIR			*dir;
	size_t			 n;
	int			 fds = 0;

	if ((fp = fopen("/proc/self/stat", "re")) != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		buf[n] = '\0';
		fclose(fp);
		/* After the command's ")": state is field 3, utime 14. */
		if (tck > 0 && (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
		    "%*u %llu %llu %*d %*d %*d %*d %*d %*d %llu %llu %ld",
		    &utime, &stime, &start, &vsize, &rss) == 5) {
			api_out(t, "# HELP process_cpu_seconds_total Total "
			    "user and system CPU time spent in seconds.\n"
			    "# TYPE process_cpu_seconds_total counter\n"
			    "process_cpu_seconds_total %.2f\n"
			    "# HELP process_virtual_memory_bytes Virtual "
			    "memory size in bytes.\n"
			    "# TYPE process_virtual_memory_bytes gauge\n"
			    "process_virtual_memory_bytes %llu\n"
			    "# HELP process_resident_memory_bytes Resident "
			    "memory size in bytes.\n"
			    "# TYPE process_resident_memory_bytes gauge\n"
			    "process_resident_memory_bytes %llu\n",
			    (double)(utime + stime) / (double)tck, vsize,
			    (unsigned long long)rss * (unsigned long long)page);
			if ((fp = fopen("/proc/stat", "re")) != NULL) {
				while (fgets(buf, sizeof(buf), fp) != NULL &&
				    sscanf(buf, "btime %llu", &btime) != 1)
					;
				fclose(fp);
			}
			if (btime > 0)
				api_out(t, "# HELP process_start_time_seconds "
				    "Start time of the process since unix "
				    "epoch in seconds.\n"
				    "# TYPE process_start_time_seconds gauge\n"
				    "process_start_time_seconds %.2f\n",
				    (double)btime + (double)start /
				    (double)tck);
		}
	}
	if ((dir = opendir("/proc/self/fd")) != NULL) {
		while ((de = readdir(dir)) != NULL)
			if (de->d_name[0] != '.')
				fds++;
		closedir(dir);
		api_out(t, "# HELP process_open_fds Number of open file "
		    "descriptors.\n# TYPE process_open_fds gauge\n"
		    "process_open_fds %d\n", fds);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		api_out(t, "# HELP process_max_fds Maximum number of open file "
		    "descriptors.\n# TYPE process_max_fds gauge\n"
		    "process_max_fds %llu\n", (unsigned long long)rl.rlim_cur);
}

/* pwtuned_build_info: the version and the libraries', as labels. */
static void
api_metrics_build(struct api_server *s, struct api_text *t)
{
	api_out(t, "# HELP pwtuned_build_info pwtuned's version and its "
	    "libraries'; always 1.\n# TYPE pwtuned_build_info gauge\n"
	    "pwtuned_build_info{version=\"%s\",libsodium=\"%s\",libargon2="
	    "\"%s\",libmicrohttpd=\"%s\"} 1\n", PWTUNE_VERSION,
	    sodium_version_string(), s->env.host->libargon2_version,
	    MHD_get_version());
}

int
h_metrics(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	struct api_metrics_arg	 ma;
	struct api_text		 t;
	char			 why[256];

	(void)c;
	(void)r;
	(void)arg;
	memset(&ma, 0, sizeof(ma));
	ma.t = &t;
	ma.up = api_store_up(s, why, sizeof(why));
	ma.pg = api_store_is_pg(s);
	api_default_question(s, &ma.q, NULL, &ma.cs, NULL);
	api_fleet_counts(s, &ma.computed, &ma.cached);	/* no lock held */
	t.cap = 16384;
	t.len = 0;
	t.failed = 0;
	if ((t.buf = malloc(t.cap)) == NULL)
		return -1;
	api_metrics_build(s, &t);
	pthread_mutex_lock(&s->lock);
	api_metrics_http(s, &t);
	pthread_mutex_unlock(&s->lock);
	s->env.with_model(s->env.ctx, api_metrics_locked, &ma);
	api_metrics_process(&t);
	if (t.failed) {
		free(t.buf);
		return -1;
	}
	rep->status = 200;
	rep->body = t.buf;
	rep->len = t.len;
	api_reply_header(rep, "Content-Type", "text/plain; version=0.0.4");
	return 0;
}
