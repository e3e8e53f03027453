/*
 * daemon/checks.c: the closed loop. Each distinct question the API
 * answered from this host's model is kept (at most DAEMON_QUESTIONS_MAX,
 * the least recently asked go first); when the runner is idle, the host
 * quiet and the CPU budget allows, one is checked: its answer measured at
 * its exact parameters (CHECK_SAMPLES_MIN or more hashes), the question's
 * correction updated (engine/check.h), and the answers cached for the
 * model dropped (its version bumps) when the correction moved. A question
 * is checked again until it is in band or settled, then every
 * check_interval seconds: a verified answer found off by more than the
 * model's error is a drift, logged, shown in /readyz and /metrics, and a
 * run is queued.
 *
 * The budget: the CPU seconds the checks' children used over the last
 * DAEMON_CHECK_WINDOW seconds stay under check_budget % of one core of
 * it; a check that would pass it waits. A check is background work beside
 * the services that hash on this host: it must not slow them (their
 * logins would take longer, and what they time would not be what pwtune
 * answered) and what it measures beside them is not the host alone. So
 * the watcher (a thread of its own) samples the runnable tasks every
 * CHECK_WATCH_MS; a check starts only when others' tasks stayed under
 * what it may run beside (checks_allowed) for CHECK_QUIET_S, a question
 * only CHECK_ASK_GAP_S after it was answered (its client hashes with the
 * answer next, and would find the check beside it), and the check in
 * progress is pre-empted as soon as others' tasks over the
 * last two seconds pass that. Never while a run is queued or running; a run
 * asked for cancels a check at once (check_cancel), and so does the
 * daemon's stop.
 *
 * Answers of a library (libsodium, libargon2: the default answer,
 * backend= and stack=libsodium or libargon2) are measured with the
 * daemon's own code; a client runtime's, at k = 1, by its probe at the
 * answer's exact parameters, and its services' observations refine it. A
 * runtime answered as its curve's library (its probe hashed through the
 * library's own file, stack_checked_as) is the library's question, at
 * any k.
 */
#include <sys/resource.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "measure.h"
#include "probe.h"
#include "stack.h"
#include "verify.h"

/* The memory is read again at most this often (seconds). */
#define CHECK_MEM_READ_S	5

#define CHECK_SAMPLES_MAX	20
#define CHECK_SAMPLE_MS		3000	/* samples x p50 aimed at, at most */
#define CHECK_ASKED_MAX_AGE	86400	/* asked longer ago: not checked */
#define CHECK_WATCH_MS		100	/* the watcher's sampling period */
#define CHECK_WATCH_N		20	/* samples it averages: two seconds (a
					   kernel thread seen now and then does
					   not stop a check) */
#define CHECK_QUIET_S		5	/* quiet this long before a check */
#define CHECK_ASK_GAP_S		3	/* a question answered this long ago */
#define CHECK_ASK_GAP_MAX	30	/* ... postponed this long at most */
#define CHECK_DOUBT_GAP_S	300	/* a doubt re-checks none newer */
#define CHECK_RUNTIME_START_S	1	/* CPU s a runtime takes to start */
#define CHECK_RUNTIME_RSS	(UINT64_C(64) << 20)	/* its own, at least */

static double
checks_mono(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
checks_key(const struct tune_query *q, const char *stack, char *buf,
    size_t len)
{
	/* Every request: the target in thousandths, not %f (its cost). */
	snprintf(buf, len, "%lld/%d/%u/%llu/%u/%d/%d/%d/%d/%u/%s",
	    (long long)llround(q->target_ms * 1000), q->percentile,
	    (unsigned)q->k, (unsigned long long)q->memory_max_kib,
	    (unsigned)q->parallelism, (int)q->variant, (int)q->backend,
	    (int)q->floor, (int)q->objective, (unsigned)q->t_min,
	    stack != NULL ? stack : "");
}

/*
 * The stack a question is checked under (d->lock held): the library's for
 * a runtime answered as it (stack_checked_as), and none (the default
 * question's) for the default stack's own when the default question is
 * answered as that stack (backend auto, p at most 1): stack=libsodium,
 * php-sodium and python-pynacl are then one question with the default,
 * and not two measurements of one hash corrected apart.
 */
static const char *
checks_as(const struct daemon *d, const struct tune_query *q,
    const char *stack)
{
	stack = stack_checked_as(d->model, stack);
	if (stack != NULL && d->model != NULL &&
	    q->backend == KDF_BACKEND_AUTO && q->parallelism <= 1 &&
	    strcmp(stack, stack_default(d->model, q->variant)) == 0)
		return NULL;
	return stack;
}

/* A client runtime's stack (not a library the daemon hashes with)? */
static int
checks_runtime(const char *stack)
{
	return !check_stack_checkable(stack);
}

/*
 * Is the answer to q in stack one the daemon can measure (d->lock held;
 * stack as stack_checked_as gives it)? A library's, with its own code;
 * a client runtime's at k = 1 (its probe
 * hashes one at a time) when its probe ran here for the model in use
 * (the model decides, as it decides how the stack is answered: probes
 * turned off by a reload count from the next run): the probe, at the
 * answer's exact parameters.
 */
static int
checks_checkable(const struct daemon *d, const char *stack,
    const struct tune_query *q)
{
	const struct model_stack	*st;

	if (!checks_runtime(stack))
		return 1;
	if (q->k > 1 || d->model == NULL || stack_find(stack) == NULL)
		return 0;
	st = model_stack_find(d->model, stack);
	return st != NULL && st->how == MODEL_STACK_PROBED;
}

static struct question *
checks_find(struct daemon *d, const char *key)
{
	size_t	i;

	for (i = 0; i < d->nquestions; i++)
		if (strcmp(d->questions[i].key, key) == 0)
			return &d->questions[i];
	return NULL;
}

/* The question's state belongs to the model in use, or starts again. */
static void
checks_current(struct daemon *d, struct question *qu)
{
	if (qu->model_run != d->model_run) {
		check_state_init(&qu->cs);
		qu->model_run = d->model_run;
		qu->checked = 0;
		qu->at[0] = '\0';
	}
}

void
checks_asked(struct daemon *d, const struct tune_query *q, const char *stack)
{
	struct question	*qu;
	char		 key[sizeof(qu->key)];
	size_t		 i, old = 0;
	time_t		 now;

	pthread_mutex_lock(&d->lock);	/* a reload writes check_budget */
	stack = checks_as(d, q, stack);
	checks_key(q, stack, key, sizeof(key));
	if (d->cfg.check_budget == 0 || !checks_checkable(d, stack, q)) {
		pthread_mutex_unlock(&d->lock);
		return;
	}
	if ((qu = checks_find(d, key)) == NULL) {
		if (d->nquestions < DAEMON_QUESTIONS_MAX)
			qu = &d->questions[d->nquestions++];
		else {
			/* A question asked once goes first, the oldest. */
			for (i = 1; i < d->nquestions; i++)
				if ((d->questions[i].asks < 2) >
				    (d->questions[old].asks < 2) ||
				    ((d->questions[i].asks < 2) ==
				    (d->questions[old].asks < 2) &&
				    d->questions[i].asked <
				    d->questions[old].asked))
					old = i;
			qu = &d->questions[old];
		}
		memset(qu, 0, sizeof(*qu));
		snprintf(qu->key, sizeof(qu->key), "%s", key);
		qu->q = *q;
		snprintf(qu->stack, sizeof(qu->stack), "%s",
		    stack != NULL ? stack : "");
		check_state_init(&qu->cs);
		qu->model_run = d->model_run;
		pthread_cond_broadcast(&d->wake);
	}
	now = time(NULL);
	/* A new burst of askings when the last was past the gap. */
	if (now - qu->asked >= CHECK_ASK_GAP_S)
		qu->burst = now;
	qu->asked = now;
	if (qu->asks < UINT_MAX)
		qu->asks++;
	pthread_mutex_unlock(&d->lock);
}

static void checks_utc(time_t now, char *buf, size_t len);

_Static_assert(CHECK_VERIFIED_MAX >= DAEMON_TARGETS_MAX,
    "a verification kept for every verify_targets");

void
checks_verified_add(struct daemon *d, int64_t run, const struct tune_answer *a,
    double measured_ms, size_t samples)
{
	struct check_verified	*v = NULL;
	size_t			 i;

	for (i = 0; i < d->nverified; i++)
		if (d->verified[i].target_ms == a->target_ms)
			v = &d->verified[i];
	if (v == NULL) {
		if (d->nverified == CHECK_VERIFIED_MAX)
			return;
		v = &d->verified[d->nverified++];
	}
	memset(v, 0, sizeof(*v));
	v->run = run;
	v->target_ms = a->target_ms;
	v->percentile = a->percentile;
	v->backend = a->backend;
	v->variant = a->variant;
	v->m_kib = a->m_kib;
	v->t = a->t;
	v->p = a->p;
	v->k = a->k;
	v->measured_ms = measured_ms;
	v->samples = samples;
	checks_utc(time(NULL), v->at, sizeof(v->at));
}

void
checks_verified_clear(struct daemon *d)
{
	d->nverified = 0;
}

int
checks_state(struct daemon *d, const struct tune_query *q, const char *stack,
    struct check_state *out, char *at, size_t atlen, uint64_t *version)
{
	struct question	*qu;
	char		 key[sizeof(qu->key)];
	int		 rc = 0;

	check_state_init(out);
	if (at != NULL && atlen > 0)
		at[0] = '\0';
	pthread_mutex_lock(&d->lock);
	stack = checks_as(d, q, stack);
	checks_key(q, stack, key, sizeof(key));
	if (version != NULL)
		*version = d->model_version;
	if (!checks_checkable(d, stack, q)) {
		pthread_mutex_unlock(&d->lock);
		return -1;
	}
	if ((qu = checks_find(d, key)) != NULL &&
	    qu->model_run == d->model_run && qu->cs.nchecks > 0) {
		*out = qu->cs;
		if (at != NULL)
			snprintf(at, atlen, "%s", qu->at);
		rc = 1;
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

/* The tasks runnable now, from /proc/loadavg, less the reader; -1: unknown. */
static int
checks_runnable(void)
{
	FILE	*fp;
	double	 l1, l5, l15;
	int	 run = 0, total = 0;

	if ((fp = fopen("/proc/loadavg", "r")) == NULL)
		return -1;
	if (fscanf(fp, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &run,
	    &total) != 5)
		run = -1;
	fclose(fp);
	return run > 0 ? run - 1 : run;
}

/*
 * Others' runnable tasks (averaged over two seconds) a check of k hashes at
 * once may run beside: with the check, at most half the CPUs /proc/loadavg
 * counts are busy (on 2 CPUs: nobody else). Half a task more, so that a
 * task seen in fewer than half the samples (a kernel thread, a request
 * served) does not count.
 */
static double
checks_allowed(const struct daemon *d, unsigned k)
{
	int	half = (d->host.online_cpus > 0 ? d->host.online_cpus : 1) / 2;

	return (half > (int)k ? half - (int)k : 0) + 0.5;
}

static int	checks_due_one(const struct daemon *d,
		    const struct question *qu, time_t now);

/*
 * Is a check due or running, so that the host's quiet matters? A question
 * in its gap after an asking counts: the quiet is known when it ends.
 */
static int
checks_watch_needed(const struct daemon *d)
{
	time_t	now = time(NULL);
	size_t	i;

	if (d->cfg.check_budget == 0 || d->model == NULL)
		return 0;
	if (d->checking)
		return 1;
	for (i = 0; i < d->nquestions; i++)
		if (checks_due_one(d, &d->questions[i], now) ||
		    (d->questions[i].asks >= 2 && now -
		    d->questions[i].asked < CHECK_ASK_GAP_S))
			return 1;	/* due, or once its gap is over */
	return 0;
}

#define CHECK_LABEL_MAX	(DB_STACK_MAX + 96)

/*
 * A question as the log names it (d->lock held): its target, percentile
 * and concurrency, its stack, and its memory_max when under what the host
 * allows (two questions may differ by it alone; without one, the API puts
 * the host's budget there).
 */
static const char *
checks_label(const struct daemon *d, const struct question *qu, char *buf,
    size_t len)
{
	uint64_t	host_kib = host_memory_budget(&d->host,
			    d->cfg.memory_max, NULL) / 1024;
	char		mem[48] = "";

	if (qu->q.memory_max_kib > 0 && qu->q.memory_max_kib < host_kib)
		snprintf(mem, sizeof(mem), ", memory_max %llu KiB",
		    (unsigned long long)qu->q.memory_max_kib);
	snprintf(buf, len, "%.0f ms at p%d, k = %u%s%s%s", qu->q.target_ms,
	    qu->q.percentile, (unsigned)qu->q.k, qu->stack[0] ? ", " : "",
	    qu->stack, mem);
	return buf;
}

static void *
checks_watch(void *arg)
{
	struct daemon	*d = arg;
	int		 ring[CHECK_WATCH_N], run, own, self = 0;
	pid_t		 child;
	double		 means[CHECK_QUIET_S * 1000 / CHECK_WATCH_MS];
	size_t		 i = 0, n = 0, j, nm = 0, im = 0;
	size_t		 mmax = sizeof(means) / sizeof(means[0]);
	double		 sum, mean, peak;
	struct timespec	 until;
	int		 idle = 1;

	pthread_mutex_lock(&d->lock);
	d->quiet_since = checks_mono();
	d->others_peak = 0;
	while (!d->quit) {
		/* Nothing due: no samples (and no quiet known). */
		if (!checks_watch_needed(d)) {
			idle = 1;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 1;
			pthread_cond_timedwait(&d->wake, &d->lock, &until);
			continue;
		}
		if (idle) {
			idle = 0;
			n = i = nm = im = 0;
			d->quiet_since = checks_mono();
		}
		pthread_mutex_unlock(&d->lock);
		until.tv_sec = 0;
		until.tv_nsec = CHECK_WATCH_MS * 1000000L;
		nanosleep(&until, NULL);
		child = d->check_child;
		run = checks_runnable();
		own = probe_runnable(child);
		pthread_mutex_lock(&d->lock);
		self = 0;
		/* Unreadable now (it was at start): taken as busy. */
		if (run < 0)
			run = 1 << 16;
		/*
		 * The check's own hashers are not others: k hashes of p
		 * threads, or a runtime's threads runnable now (its hash, and
		 * its collector and compiler as well; none between hashes).
		 */
		else if (d->checking) {
			self = child > 0 ? own : (int)d->check_k;
			run -= self;
		}
		ring[i] = run > 0 ? run : 0;
		i = (i + 1) % CHECK_WATCH_N;
		if (n < CHECK_WATCH_N)
			n++;
		for (sum = 0, j = 0; j < n; j++)
			sum += ring[j];
		mean = sum / (double)n;
		/* The largest two-second mean of the last CHECK_QUIET_S. */
		means[im] = mean;
		im = (im + 1) % mmax;
		if (nm < mmax)
			nm++;
		for (peak = 0, j = 0; j < nm; j++)
			if (means[j] > peak)
				peak = means[j];
		d->others_peak = peak;
		if (n < CHECK_WATCH_N ||
		    mean < checks_allowed(d, d->checking ? d->check_k : 1))
			continue;
		d->quiet_since = checks_mono();
		if (d->checking && !d->check_cancel) {
			d->check_busy = 1;
			d->check_busy_others = mean;
			d->check_busy_own = self;
			d->check_cancel = 1;
		}
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* daemon.h */
int
checks_watch_start(struct daemon *d, char *err, size_t errlen)
{
	int	e;

	/* No /proc/loadavg here: the budget alone decides. */
	if (checks_runnable() < 0) {
		log_warn("no /proc/loadavg: background checks do not wait for "
		    "a quiet host");
		return 0;
	}
	pthread_mutex_lock(&d->lock);
	if ((e = pthread_create(&d->watcher, NULL, checks_watch, d)) == 0)
		d->watching = 1;
	pthread_mutex_unlock(&d->lock);
	if (e != 0) {
		snprintf(err, errlen, "cannot start the checks' watcher: %s",
		    strerror(e));
		return -1;
	}
	return 0;
}

/* daemon.h; d->quit set and d->wake broadcast first. */
void
checks_watch_stop(struct daemon *d)
{
	if (!d->watching)
		return;
	pthread_join(d->watcher, NULL);
	d->watching = 0;
}

/* now as the API's times read (UTC, ISO 8601), into buf. */
static void
checks_utc(time_t now, char *buf, size_t len)
{
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * Not checked until the interval (answer failed, too costly, its check
 * failed): its state starts again for the model in use, and the answer
 * says why it was not measured (the API's note). Under d->lock.
 */
static void
checks_set_aside(struct daemon *d, struct question *qu, int64_t run,
    time_t now, const char *why)
{
	if (qu->model_run != run) {
		check_state_init(&qu->cs);
		qu->model_run = run;
	}
	qu->cs.settled = 1;
	qu->cs.nchecks++;
	qu->checked = now;
	/* Since the first time for the same reason: cached answers stay. */
	if (strcmp(qu->cs.unmeasured, why) == 0)
		return;
	snprintf(qu->cs.unmeasured, sizeof(qu->cs.unmeasured), "%s", why);
	checks_utc(now, qu->cs.unmeasured_at, sizeof(qu->cs.unmeasured_at));
	d->model_version++;	/* answers cached go: they say why */
}

/*
 * CPU seconds the checks used within the window ending now. The ring
 * holds the last DAEMON_CHECK_SLOTS checks; one still inside the window
 * is never overwritten (checks_tick waits), so nothing spent is lost.
 */
static double
checks_spent(const struct daemon *d, time_t now)
{
	double	s = 0;
	size_t	i;

	for (i = 0; i < DAEMON_CHECK_SLOTS; i++)
		if (d->check_end[i] > 0 &&
		    now - d->check_end[i] < DAEMON_CHECK_WINDOW)
			s += d->check_cpu[i];
	return s;
}

static int
checks_due_one(const struct daemon *d, const struct question *qu,
    time_t now)
{
	const char	*as;

	/* Asked once (a dashboard's slider, a scan): not worth a check. */
	if (qu->asks < 2 || now - qu->asked > CHECK_ASKED_MAX_AGE)
		return 0;
	/*
	 * Its stack is now answered as its curve's library (a new run's
	 * probe found it hashing through the library's file), or as the
	 * default question: its askings go to that question, and its
	 * runtime is not started for a correction no answer reads.
	 */
	if (qu->stack[0] != '\0' && ((as = checks_as(d, &qu->q,
	    qu->stack)) == NULL || strcmp(as, qu->stack) != 0))
		return 0;
	/*
	 * Just answered: its client hashes with it now. Asked again and
	 * again (a poller, or someone keeping it from being checked): not
	 * put off past CHECK_ASK_GAP_MAX, the watcher guards the clients.
	 */
	if (now - qu->asked < CHECK_ASK_GAP_S &&
	    now - qu->burst < CHECK_ASK_GAP_MAX)
		return 0;
	if (qu->model_run != d->model_run || qu->cs.nchecks == 0)
		return 1;
	if (!qu->cs.verified && !qu->cs.settled)
		return 1;
	return now - qu->checked >= (time_t)d->cfg.check_interval;
}

/*
 * Which of two due questions goes first: the one checked longest ago; of
 * two as old (both never checked, say), the cheaper one (its target times
 * its k), so that a short new question does not wait behind a long one a
 * run pre-empted.
 */
static int
checks_before(const struct question *a, const struct question *b)
{
	if (a->checked != b->checked)
		return a->checked < b->checked;
	return a->q.target_ms * (a->q.k > 0 ? a->q.k : 1) <
	    b->q.target_ms * (b->q.k > 0 ? b->q.k : 1);
}

static double
checks_cpu_now(void)
{
	struct rusage	ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Measure a at its exact parameters: its percentile, or -1. */
static double
checks_measure(struct daemon *d, const struct tune_answer *a, size_t n,
    struct measure_result *r, char *err, size_t errlen)
{
	if (verify_measure(a, host_usable_cpus(&d->host), (n + a->k - 1) /
	    a->k, &d->check_cancel, r, err, errlen) == -1)
		return -1;
	return verify_percentile(r, a->percentile);
}

/*
 * Measure a in a client runtime: the stack's probe at a's exact parameters,
 * n hashes after its warm-ups (two passes at most each), a benchmark child
 * under the memory budget, the deadline and the check's cancel (probe.h).
 * Its percentile into r (samples owned), or -1: r->status MEASURE_CANCELLED
 * when cancelled, else the probe's reason in err.
 */
static double
checks_probe(struct daemon *d, const char *stack, const char *dir,
    unsigned timeout_max, uint64_t mem_free, const struct model *m,
    const struct tune_answer *a, size_t n, struct measure_result *r,
    char *err, size_t errlen)
{
	const struct stack_def		*sd = stack_find(stack);
	struct stack_probe_point	 pt;
	struct probe_opts		 po;
	struct probe_result		*pr;
	double				 ms = -1;

	memset(r, 0, sizeof(*r));
	r->status = MEASURE_FAILED;
	if (n > PROBE_SAMPLES_MAX)
		n = PROBE_SAMPLES_MAX;
	if (sd == NULL || (pr = calloc(1, sizeof(*pr))) == NULL) {
		snprintf(err, errlen, "%s", sd == NULL ? "no such stack" :
		    "out of memory");
		return -1;
	}
	pt.m_kib = a->m_kib;
	pt.t = a->t;
	pt.p = a->p;
	pt.n = (uint32_t)n;
	/*
	 * What the host has free now bounds the whole runtime: the hash,
	 * and the rest (the gate left CHECK_RUNTIME_RSS at least) as its
	 * allowance, the stack's (probe_rss_allowance) at most.
	 */
	probe_opts_init(&po);
	po.mem_budget = (uint64_t)a->m_kib * 1024 * a->p;
	po.rss_allowance = mem_free > po.mem_budget + CHECK_RUNTIME_RSS ?
	    mem_free - po.mem_budget : CHECK_RUNTIME_RSS;
	if (po.rss_allowance > probe_rss_allowance(sd))
		po.rss_allowance = probe_rss_allowance(sd);
	po.timeout_max = timeout_max;
	po.model = m;
	po.cancel = &d->check_cancel;
	po.child = &d->check_child;
	if (probe_run(sd, dir, &pt, 1, &po, pr) == -1 || pr->npoints != 1 ||
	    pr->points[0].nsamples == 0) {
		if (pr->status == PROBE_CANCELLED)
			r->status = MEASURE_CANCELLED;
		snprintf(err, errlen, "its probe: %s", pr->why[0] ? pr->why :
		    probe_status_name(pr->status));
	} else if ((r->samples = calloc(pr->points[0].nsamples,
	    sizeof(double))) == NULL)
		snprintf(err, errlen, "out of memory");
	else {
		r->nsamples = pr->points[0].nsamples;
		memcpy(r->samples, pr->points[0].samples, r->nsamples *
		    sizeof(double));
		stats_compute(r->samples, r->nsamples, &r->st);
		r->status = MEASURE_OK;
		r->rounds = r->nsamples;
		r->peak_rss_kib = pr->peak_rss_kib;
		r->seconds = pr->seconds;
		ms = verify_percentile(r, a->percentile);
	}
	free(pr);
	return ms;
}

/* daemon.h */
void
checks_keep(struct daemon *d, struct db *db, const struct tune_answer *a,
    const char *stack, const struct measure_result *r, double model_p50,
    int64_t run, const char *source)
{
	struct db_observation	o;
	enum db_status		st;
	char			err[512];

	memset(&o, 0, sizeof(o));
	snprintf(o.host_id, sizeof(o.host_id), "%s", d->host.host_id);
	snprintf(o.stack, sizeof(o.stack), "%s", checks_runtime(stack) ?
	    stack : kdf_backend_name(a->backend));
	snprintf(o.source, sizeof(o.source), "%s", source);
	snprintf(o.variant, sizeof(o.variant), "%s", kdf_alg_name(
	    a->variant));
	o.m_kib = a->m_kib;
	o.t = a->t;
	o.p = a->p;
	o.k = a->k;
	o.nsamples = r->nsamples;
	o.median_ms = r->st.median;
	o.p95_ms = r->st.p95;
	o.predicted_ms = model_p50;
	o.model_run = run;
	st = db_observation_add(db, &o, r->samples, r->nsamples, err,
	    sizeof(err));
	store_note(d, st, err);
	if (st != DB_OK)
		log_warn("check not stored: %s", err);
}

/*
 * qu is suspect (its host's speed moved): the answers verified on the
 * same hashing (the libraries' together, a client runtime's its own) are
 * due again now, each judged against its own last median; not those
 * checked in the last CHECK_DOUBT_GAP_S (a noisy host's suspects would
 * otherwise keep every answer re-checked).
 */
static void
checks_doubt(struct daemon *d, const struct question *qu, int64_t run,
    time_t now)
{
	size_t	i;

	for (i = 0; i < d->nquestions; i++) {
		struct question	*o = &d->questions[i];

		if (o != qu && o->model_run == run && o->cs.verified &&
		    now - o->checked >= CHECK_DOUBT_GAP_S &&
		    ((!checks_runtime(o->stack) && !checks_runtime(
		    qu->stack)) || strcmp(o->stack, qu->stack) == 0))
			o->checked = 0;
	}
}

/*
 * daemon.h. The measurement the model takes as a point is one in band:
 * where the question's corrections led and a measurement confirmed (not
 * one that is off and may be noise or a passing slowdown, not a drift).
 */
int
checks_take(struct daemon *d, const char *key, int64_t run,
    const struct tune_answer *a, double measured, double median, size_t n,
    double model_ms, double model_p50, const struct model *m,
    int *queue_run)
{
	struct question		*qu;
	struct tune_answer	 next;
	enum check_verdict	 v;
	double			 next_model;
	char			 err[256], label[CHECK_LABEL_MAX];
	time_t			 now = time(NULL);

	if ((qu = checks_find(d, key)) == NULL || d->model_run != run)
		return 0;	/* evicted, or a new run came meanwhile */
	checks_current(d, qu);
	qu->backend = a->backend;
	qu->variant = a->variant;
	v = check_update(&qu->cs, a, measured, median, n, model_ms, model_p50,
	    m->loo_median, checks_runtime(qu->stack));
	qu->checked = now;
	checks_utc(now, qu->at, sizeof(qu->at));
	if (v == CHECK_CORRECTED &&
	    check_answer(m, qu->stack[0] ? qu->stack : NULL, &qu->q,
	    qu->cs.c, &next, &next_model, err, sizeof(err)) >= 0 &&
	    next.m_kib == a->m_kib && next.t == a->t && next.p == a->p)
		qu->cs.settled = 1;	/* the correction moves nothing */
	d->checks_by_verdict[qu->cs.settled && v == CHECK_CORRECTED ?
	    CHECK_SETTLED : v]++;
	log_info("check %s: m = %u KiB, t = %u, p = %u measured %.1f ms "
	    "(%.3f of the target, the model said %.1f; of %zu measurements "
	    "here, %.3f): %s%s, correction %.3f", checks_label(d, qu, label,
	    sizeof(label)), (unsigned)a->m_kib, (unsigned)a->t,
	    (unsigned)a->p, measured, measured / qu->q.target_ms, model_ms,
	    qu->cs.nmeasured, qu->cs.measured_ms / qu->q.target_ms,
	    check_verdict_name(v), qu->cs.settled && v != CHECK_SETTLED ?
	    " (settled)" : "", qu->cs.c);
	d->model_version++;	/* answers cached go: they say what was found */
	/*
	 * A verified answer found the host off by more than the model's
	 * error: the answers verified before are measured again soon, not in
	 * an hour (a drift shows there first). Not on a correction: a new
	 * question's correction is the model's error at its size, and
	 * corrections differ from size to size (0.82 at 25 MiB, 1.07 at
	 * 650 MiB were seen in one run); a cascade of re-checks on each was
	 * most of the checks' work, and each re-check a chance for a noisy
	 * moment to pass for a drift.
	 */
	if (v == CHECK_SUSPECT)
		checks_doubt(d, qu, run, now);
	if (v == CHECK_DRIFTED) {
		/* What the run's verifications measured is of the host before. */
		checks_verified_clear(d);
		d->drift = 1;
		d->drift_run = run;
		d->drift_at = now;
		snprintf(d->drift_why, sizeof(d->drift_why), "an answer "
		    "verified before (m = %u KiB, t = %u) took %.2f x what "
		    "it took then", (unsigned)a->m_kib, (unsigned)a->t,
		    qu->cs.drifted_by);
		log_warn("the host drifted: %s; a run is queued",
		    d->drift_why);
		*queue_run = 1;
	}
	return v == CHECK_IN_BAND;
}

/*
 * What m predicts at the parameters qu last measured, along its path, at
 * its percentile (or the median: median set).
 */
static int
checks_predict(const struct model *m, const struct question *qu,
    const char *stack, int median, double *ms)
{
	struct tune_query	q = qu->q;

	if (median)
		q.percentile = 50;
	return check_predict(m, stack, &q, qu->backend, qu->cs.m_kib,
	    qu->cs.t, qu->cs.p, qu->cs.k, ms);
}

/* daemon.h */
void
checks_rebase(struct daemon *d, const struct model *was)
{
	struct question	*qu;
	const char	*stack;
	size_t		 i, j;
	double		 now_ms, was_ms, f, c;
	int		 rt;
	char		 label[CHECK_LABEL_MAX];

	for (i = 0; i < d->nquestions; i++) {
		qu = &d->questions[i];
		if (qu->model_run != d->model_run || qu->cs.nchecks == 0 ||
		    qu->cs.m_kib == 0)
			continue;
		/* As its answer is predicted: its stack's, or its curve's. */
		stack = qu->stack[0] ? qu->stack : NULL;
		/*
		 * Its answer now stands on another library (a grid of its
		 * variant came for libsodium): what was measured was the
		 * other's; it starts again.
		 */
		if (stack == NULL && strcmp(stack_default(was, qu->q.variant),
		    stack_default(d->model, qu->q.variant)) != 0) {
			check_state_init(&qu->cs);
			qu->checked = 0;
			qu->at[0] = '\0';
			log_info("question of %s: its answer now stands on %s "
			    "(was %s): its checks start again", checks_label(d,
			    qu, label, sizeof(label)), stack_default(d->model,
			    qu->q.variant), stack_default(was, qu->q.variant));
			continue;
		}
		if (checks_predict(d->model, qu, stack, 0, &now_ms) == -1 ||
		    checks_predict(was, qu, stack, 0, &was_ms) == -1 ||
		    !(now_ms > 0) || !(was_ms > 0))
			continue;
		f = was_ms / now_ms;
		rt = checks_runtime(qu->stack);
		c = qu->cs.c;
		qu->cs.c = check_clamp(qu->cs.c * f, rt);
		/*
		 * Said whenever the figure the log gives moves (3 decimals),
		 * so that the log's corrections add up to the API's: a rebase
		 * of 0.4 % went unsaid, and the answer's 1.018 was in no line.
		 */
		if (lround(qu->cs.c * 1000) != lround(c * 1000))
			log_info("question of %s: correction %.3f rebased "
			    "to %.3f (the refitted model predicts its answer "
			    "at %.3f x what the last did)", checks_label(d, qu,
			    label, sizeof(label)), c, qu->cs.c,
			    now_ms / was_ms);
		for (j = 0; j < qu->cs.nseen; j++)
			qu->cs.seen[j] = check_clamp(qu->cs.seen[j] * f, rt);
		if (qu->cs.suspect)
			qu->cs.suspect_c = check_clamp(qu->cs.suspect_c * f,
			    rt);
		/* The medians' by the model's median there. */
		if (checks_predict(d->model, qu, stack, 1, &now_ms) == 0 &&
		    checks_predict(was, qu, stack, 1, &was_ms) == 0 &&
		    now_ms > 0 && was_ms > 0) {
			qu->cs.mc *= was_ms / now_ms;
			qu->cs.suspect_mc *= was_ms / now_ms;
		} else
			qu->cs.mc = qu->cs.suspect_mc = 0;	/* unknown */
	}
}

/*
 * Does the memory free now (not at start-up) allow a check of a? Its k
 * hashes within the budget (memory_max, the host's); a runtime's probe,
 * its hash (as probe_run counts it, m x p) within the budget and the
 * runtime's own, CHECK_RUNTIME_RSS at least, beside it in what the host
 * has free (its process is killed past that). Read again every
 * CHECK_MEM_READ_S at most, with d->lock released (held on entry and
 * return); 0 as well when a run came or the daemon stops meanwhile.
 */
static int
checks_memory_allows(struct daemon *d, const struct question *qu,
    const struct tune_answer *a, int64_t run, time_t now)
{
	struct host_info	host;
	uint64_t		budget, free_now, hash, need, have;

	if (now - d->check_mem_at >= CHECK_MEM_READ_S) {
		pthread_mutex_unlock(&d->lock);
		budget = runner_memory_now(d, &host, NULL);
		free_now = host_memory_budget(&host, 0, NULL);
		pthread_mutex_lock(&d->lock);
		d->check_mem_at = now;
		d->check_mem_budget = budget;
		d->check_mem_free = free_now;
		if (d->quit || d->queued_run != 0 || d->running_run != 0 ||
		    d->model_run != run)
			return 0;
	}
	if (checks_runtime(qu->stack)) {
		hash = (uint64_t)a->m_kib * 1024 * a->p;
		need = hash + CHECK_RUNTIME_RSS;
		have = d->check_mem_free;
		if (hash <= d->check_mem_budget && need <= have)
			return 1;
		if (hash > d->check_mem_budget)
			need = hash, have = d->check_mem_budget;
	} else {
		need = (uint64_t)a->m_kib * 1024 * a->k;
		have = d->check_mem_budget;
		if (need <= have)
			return 1;
	}
	if (now - d->check_mem_log >= 60) {
		d->checks_skipped++;
		d->check_mem_log = now;
		log_info("check of %.0f ms waits: its %llu KiB are more than "
		    "the memory free now allows (%llu KiB)", qu->q.target_ms,
		    (unsigned long long)(need >> 10),
		    (unsigned long long)(have >> 10));
	}
	return 0;
}

int
checks_tick(struct daemon *d, struct db *db)
{
	struct question		 qu;
	struct model		*m;
	struct tune_answer	 a;
	struct measure_result	 r;
	time_t			 now = time(NULL);
	double			 model_ms, measured, cpu0, spent, cost, mono;
	double			 samples, model_p50;
	size_t			 i, n, pick = (size_t)-1;
	int			 queue_run = 0, rc, taken = 0;
	unsigned		 threads, timeout_max;
	uint64_t		 mem_free;
	const char		*why = NULL;
	const struct stack_def	*sd;
	int64_t			 run = d->model_run, id;
	int			 runtime;
	char			 err[512], dir[DAEMON_PATH_MAX];
	char			 label[CHECK_LABEL_MAX];

	if (d->cfg.check_budget == 0 || d->model == NULL || d->quit ||
	    d->queued_run != 0 || d->running_run != 0)
		return 0;
	for (i = 0; i < d->nquestions; i++)
		if (checks_due_one(d, &d->questions[i], now) &&
		    (pick == (size_t)-1 || checks_before(&d->questions[i],
		    &d->questions[pick])))
			pick = i;
	if (pick == (size_t)-1)
		return 0;
	qu = d->questions[pick];
	if (qu.model_run != run)
		check_state_init(&qu.cs);
	if (check_answer(d->model, qu.stack[0] ? qu.stack : NULL, &qu.q,
	    qu.cs.c, &a, &model_ms, err, sizeof(err)) == -1 || a.m_kib == 0) {
		checks_set_aside(d, &d->questions[pick], run, now, "there is no "
		    "answer to measure");
		return 0;
	}
	/* What a check costs comes from the prediction: none, no check. */
	if (!isfinite(a.predicted_p50_ms) || !(a.predicted_p50_ms > 0)) {
		checks_set_aside(d, &d->questions[pick], run, now, "the model "
		    "predicts no time for its answer");
		return 0;
	}
	/*
	 * A client runtime's answer: its probe measures one hash at a time,
	 * and only where it ran for this model and is still enabled.
	 */
	runtime = checks_runtime(qu.stack);
	if (runtime && !checks_checkable(d, qu.stack, &qu.q)) {
		log_info("check of %.0f ms, %s set aside: its probe did not "
		    "run for the model in use", qu.q.target_ms, qu.stack);
		checks_set_aside(d, &d->questions[pick], run, now, "its probe "
		    "did not run for the model in use");
		return 0;
	}
	/*
	 * The model's own median at the answer (its p50 without the
	 * question's correction): what a check's median is judged against.
	 */
	model_p50 = model_ms > 0 && a.predicted_ms > 0 ?
	    a.predicted_p50_ms / (a.predicted_ms / model_ms) : 0;
	/* The budget and the host's quiet first. */
	samples = CHECK_SAMPLE_MS / a.predicted_p50_ms;
	n = samples >= CHECK_SAMPLES_MAX ? CHECK_SAMPLES_MAX :
	    samples <= CHECK_SAMPLES_MIN ? CHECK_SAMPLES_MIN : (size_t)samples;
	/*
	 * Its hashes, warm-up rounds included, at k at once; a runtime's
	 * probe warms up its own count, each of two passes at most, and
	 * starts the runtime.
	 */
	if (runtime) {
		sd = stack_find(qu.stack);
		if (n > PROBE_SAMPLES_MAX)
			n = PROBE_SAMPLES_MAX;
		cost = check_runtime_cost(d->model, qu.stack, &a, n,
		    sd != NULL && sd->warmup > 0 ? sd->warmup :
		    STACK_PROBE_WARMUP) + CHECK_RUNTIME_START_S;
	} else
		cost = ((double)((n + a.k - 1) / a.k) +
		    verify_warmup_cost(&a, host_usable_cpus(&d->host))) *
		    a.k * a.predicted_p50_ms / 1000 * a.p;
	if (!(cost <= d->cfg.check_budget / 100.0 * DAEMON_CHECK_WINDOW)) {
		/* It could never fit the budget: not checked, not waited on. */
		char	aside[160];

		snprintf(aside, sizeof(aside), "measuring it would take about "
		    "%.0f CPU seconds, more than check_budget allows in %d s",
		    cost, DAEMON_CHECK_WINDOW);
		log_info("check of %.0f ms at k = %u set aside: %s",
		    qu.q.target_ms, (unsigned)qu.q.k, aside);
		checks_set_aside(d, &d->questions[pick], run, now, aside);
		return 0;
	}
	if (!checks_memory_allows(d, &qu, &a, run, now))
		return 0;
	spent = checks_spent(d, now);
	mono = checks_mono();
	threads = a.k * (a.p < KDF_THREADS_MAX ? a.p : KDF_THREADS_MAX);
	if (d->watching && (mono - d->quiet_since < CHECK_QUIET_S ||
	    d->others_peak >= checks_allowed(d, threads)))
		why = "the host is busy (others' tasks want the CPUs)";
	else if (!(spent + cost <= d->cfg.check_budget / 100.0 *
	    DAEMON_CHECK_WINDOW) || (d->check_end[d->check_slot] > 0 &&
	    now - d->check_end[d->check_slot] < DAEMON_CHECK_WINDOW))
		why = "the CPU budget is spent";
	if (why != NULL) {
		if (now - d->check_busy_log >= 60) {
			d->checks_skipped++;
			d->check_busy_log = now;
			log_info("check of %.0f ms waits: %s", qu.q.target_ms,
			    why);
		}
		return 0;
	}
	if ((m = malloc(sizeof(*m))) == NULL)
		return 0;
	memcpy(m, d->model, sizeof(*m));
	d->checking = 1;
	d->check_k = threads;
	d->check_busy = 0;
	d->check_cancel = 0;
	snprintf(dir, sizeof(dir), "%s", d->cfg.probe_dir);
	timeout_max = d->cfg.probe_timeout;
	mem_free = d->check_mem_free;
	checks_label(d, &qu, label, sizeof(label));
	pthread_mutex_unlock(&d->lock);
	log_info("checking %s: m = %u KiB, t = %u, p = %u, %zu hashes%s",
	    label, (unsigned)a.m_kib, (unsigned)a.t, (unsigned)a.p, n,
	    runtime ? " by its probe" : "");

	cpu0 = checks_cpu_now();
	if (runtime)
		measured = checks_probe(d, qu.stack, dir, timeout_max,
		    mem_free, m, &a, n, &r, err, sizeof(err));
	else
		measured = checks_measure(d, &a, n, &r, err, sizeof(err));
	cost = checks_cpu_now() - cpu0;

	pthread_mutex_lock(&d->lock);
	d->checking = 0;
	d->check_cpu[d->check_slot] = cost;
	d->check_end[d->check_slot] = time(NULL);
	d->check_slot = (d->check_slot + 1) % DAEMON_CHECK_SLOTS;
	d->check_cpu_total += cost;
	if (measured < 0) {
		if (d->check_busy) {
			struct question	*f = checks_find(d, qu.key);

			d->checks_preempted++;
			log_info("check of %.0f ms pre-empted: the host got busy "
			    "(%.1f runnable tasks of others over the last "
			    "two seconds; the check's own %d not counted)",
			    qu.q.target_ms, d->check_busy_others,
			    d->check_busy_own);
			/*
			 * The others due go first next time (one not yet
			 * verified stays due: it only goes back in line).
			 */
			if (f != NULL && !f->cs.verified && !f->cs.settled)
				f->checked = time(NULL);
		} else if (d->check_cancel || r.status == MEASURE_CANCELLED) {
			d->checks_preempted++;
			log_info("check of %.0f ms pre-empted", qu.q.target_ms);
		} else {
			struct question	*f = checks_find(d, qu.key);

			log_warn("check of %.0f ms failed: %s", qu.q.target_ms,
			    err);
			/*
			 * Again at the interval. The reason stays in the log:
			 * a runtime's text, its paths, are not for answers
			 * anyone may ask for.
			 */
			if (f != NULL && d->model_run == run)
				checks_set_aside(d, f, run, time(NULL), "its "
				    "check failed (the daemon's log says why)");
		}
	} else if (r.noisy) {
		/* The host got busy while it measured: not taken. */
		d->checks_noisy++;
		/* Not again at once: after a quiet host again. */
		d->quiet_since = checks_mono();
		log_info("check of %.0f ms at p%d: noisy (%s), not taken",
		    qu.q.target_ms, qu.q.percentile, "the host was busy or "
		    "the spread wide");
	} else
		taken = checks_take(d, qu.key, run, &a, measured, r.st.median,
		    r.nsamples, model_ms, model_p50, m, &queue_run);
	/*
	 * Kept in the store: as a point of the run's model when taken (the
	 * model refitted with it, at k = 1), else as a suspect one.
	 */
	if (measured > 0) {
		pthread_mutex_unlock(&d->lock);
		checks_keep(d, db, &a, qu.stack, &r, model_p50, run,
		    taken ? DB_SOURCE_CHECK : DB_SOURCE_CHECK_SUSPECT);
		/* A library's curve refitted; a runtime's keeps its question's
		   correction. */
		if (taken && a.k == 1 && !runtime && runner_refit(d, db, run,
		    checks_rebase, "model refitted with", err, sizeof(err)) ==
		    -1)
			log_warn("run %lld: not refitted with the check: %s",
			    (long long)run, err);
		pthread_mutex_lock(&d->lock);
	}
	measure_result_release(&r);
	free(m);
	if (queue_run) {
		pthread_mutex_unlock(&d->lock);
		rc = runner_request(d, "quick", DB_TRIGGER_SCHEDULE, &id, NULL,
		    err, sizeof(err));
		if (rc != 0)
			log_info("no run queued for the drift: %s", rc == 1 ?
			    "one is queued or running" : err);
		pthread_mutex_lock(&d->lock);
	}
	return 1;
}
