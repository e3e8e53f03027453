/*
 * daemon/runner.c: the job runner. One benchmark at a time, on this
 * thread, never on an HTTP thread; each point in child processes (engine/
 * measure); every point written to the store as it ends; when a run
 * finishes, the model is refitted and swapped in under the lock, so HTTP
 * threads see either the old model or the new one.
 *
 * The runner has its own store connection (one per thread).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "fleet.h"
#include "probe.h"
#include "profile.h"
#include "stack.h"
#include "verify.h"

/* Rounds per verified answer: 5 latencies each, a few seconds in all
   (a noisy one or one far off measured again: up to three times). */
#define RUNNER_VERIFY_ROUNDS	5
/* A probe's runtime may always hold this much besides its hashes. */
#define RUNNER_PROBE_RSS_MIN	(UINT64_C(64) << 20)
/* Seconds between attempts to open the store the runner could not open. */
#define RUNNER_STORE_RETRY_S	2
#define RUNNER_STORE_PROBE_S	2	/* a shared database asked when idle */
#define RUNNER_STORE_QUERY_MS	10000	/* a statement's answer */
#define RUNNER_REFIT_S		1	/* observed stacks refitted at most
					   once a second */

struct runner_ctx {
	struct daemon	*d;
	struct db	*db;
	int64_t		 run;
	int		 store_failed;
	size_t		 offset;	/* in the run, of the list measured */
	size_t		 total;		/* points of the run */
};

void
store_note(struct daemon *d, enum db_status st, const char *err)
{
	int	down = st == DB_ERR_UNAVAILABLE || st == DB_ERR_IO ||
	    st == DB_ERR_CANTOPEN || st == DB_ERR_FULL ||
	    st == DB_ERR_READONLY || st == DB_ERR_BUSY;
	int	was;

	pthread_mutex_lock(&d->lock);
	was = d->store_up;
	d->store_up = !down;
	d->store_status = st;
	d->store_seen = time(NULL);
	if (down) {
		d->store_failures++;
		snprintf(d->store_error, sizeof(d->store_error), "%s",
		    err != NULL ? err : db_status_name(st));
	} else
		d->store_error[0] = '\0';
	pthread_mutex_unlock(&d->lock);
	if (was && down)
		log_warn("store: %s (answers come from the model in memory "
		    "until it is back)", err != NULL ? err : "");
	else if (!was && !down)
		log_info("store: reachable again");
}

static void
runner_progress(void *ctx, const struct measure_progress *p)
{
	struct runner_ctx	*rc = ctx;
	char			 status[128];

	pthread_mutex_lock(&rc->d->lock);
	rc->d->points_done = rc->offset + p->done;
	rc->d->points_total = rc->total;
	rc->d->step = "points";
	rc->d->step_done = rc->offset + p->done;
	rc->d->step_total = rc->total;
	pthread_mutex_unlock(&rc->d->lock);
	if (p->current == NULL || p->round == 0) {
		snprintf(status, sizeof(status), "STATUS=benchmark run %lld: "
		    "%zu/%zu points", (long long)rc->run, rc->offset + p->done,
		    rc->total);
		notify_send(status);
	}
}

static void
runner_point(void *ctx, size_t i, const struct measure_result *r)
{
	struct runner_ctx	*rc = ctx;
	enum db_status		 st;
	char			 err[512];

	/* A point a cancel stopped before it ran was not measured. */
	if (r->status == MEASURE_CANCELLED)
		return;
	/*
	 * The point ended: count it done and, if measured, measured, under
	 * one lock, so that no reader sees more measured than done.
	 */
	i += rc->offset;
	pthread_mutex_lock(&rc->d->lock);
	if (rc->d->points_done < i + 1)
		rc->d->points_done = i + 1;
	if (r->status == MEASURE_OK)
		rc->d->points_measured++;
	pthread_mutex_unlock(&rc->d->lock);
	st = db_run_add_point(rc->db, rc->run, i, r, err, sizeof(err));
	store_note(rc->d, st, err);
	if (st != DB_OK && !rc->store_failed) {
		log_error("run %lld: cannot store point %zu: %s",
		    (long long)rc->run, i + 1, err);
		rc->store_failed = 1;
	}
}

/* The model now in use, its error and its verdict, in one line. */
static void
runner_log_model(const struct model *m, int64_t id)
{
	char	loo[160], others[320] = "", one[96];
	size_t	i;

	model_loo_text(m, loo, sizeof(loo));
	/* The curves that run did not measure, and where they came from. */
	for (i = 0; i < m->ncurves; i++) {
		const struct model_curve *c = &m->curves[i];

		if (c->run_id == id || c->run_id == 0)
			continue;
		snprintf(one, sizeof(one), "%s%s %s p = %u from run %lld",
		    others[0] ? ", " : "; with ",
		    kdf_backend_name(c->backend), kdf_alg_name(c->variant),
		    (unsigned)c->p, (long long)c->run_id);
		if (strlen(others) + strlen(one) < sizeof(others))
			strcat(others, one);
	}
	if (m->quality == MODEL_QUALITY_POOR)
		log_warn("model from run %lld in use: %s%s; poor: %s",
		    (long long)id, loo, others, m->quality_why);
	else
		log_info("model from run %lld in use: %s%s", (long long)id,
		    loo, others);
}

/*
 * Swap m in as the current model (taking ownership), with rebase (if not
 * NULL) called under the same lock with the model it replaced. With
 * same_run, only while run is the run in use: 0 and m freed otherwise.
 */
static int
runner_swap(struct daemon *d, struct model *m, int64_t run, int same_run,
    void (*rebase)(struct daemon *, const struct model *))
{
	struct model	*old;

	pthread_mutex_lock(&d->lock);
	if (same_run && d->model_run != run) {
		pthread_mutex_unlock(&d->lock);
		free(m);
		return 0;
	}
	old = d->model;
	d->model = m;
	d->model_run = run;
	snprintf(d->model_fingerprint, sizeof(d->model_fingerprint), "%s",
	    m->fingerprint);
	d->model_version++;
	if (rebase != NULL && old != NULL)
		rebase(d, old);
	pthread_mutex_unlock(&d->lock);
	free(old);
	return 1;
}

/* Swap m in as the current model (taking ownership). */
static void
runner_swap_model(struct daemon *d, struct model *m, int64_t run)
{
	runner_swap(d, m, run, 0, NULL);
}

uint64_t
runner_memory_now(struct daemon *d, struct host_info *h,
    enum host_budget_source *src)
{
	struct host_info	now;
	uint64_t		cap;
	char			err[256];

	/* The facts of start-up, the memory as it is now (a run or a check
	   may come days later; other programs' use changes). */
	*h = d->host;
	if (host_probe(NULL, &now, err, sizeof(err)) == 0) {
		h->mem_available = now.mem_available;
		h->cg_mem_limit = now.cg_mem_limit;
		h->cg_mem_usage = now.cg_mem_usage;
	}
	pthread_mutex_lock(&d->lock);	/* SIGHUP changes it */
	cap = d->cfg.memory_max;
	pthread_mutex_unlock(&d->lock);
	return host_memory_budget(h, cap, src);
}

/* The checks taken under run into m (db_model_checks). */
static size_t
runner_add_checks(struct daemon *d, struct db *db, int64_t run,
    struct model *m)
{
	size_t	used;
	char	err[512];

	if (db_model_checks(db, d->host.host_id, run, DB_CHECKS_MAX_AGE_S,
	    DB_CHECKS_MAX, m, &used, err, sizeof(err)) != DB_OK) {
		log_warn("run %lld: checks not read: %s (the model goes "
		    "without them)", (long long)run, err);
		return 0;
	}
	return used;
}

/*
 * Run id's model: its points and the checks taken under it, its stacks
 * from the store. NULL with err when nothing can be fitted.
 */
static struct model *
runner_fit_run(struct daemon *d, struct db *db, int64_t id,
    const struct model *stacks_of, time_t *when, size_t *nchecks, char *err,
    size_t errlen)
{
	struct model	*m;
	struct tm	 tm;

	if ((m = calloc(1, sizeof(*m))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* The run's curves, and those it did not measure from older runs. */
	if (db_model_fit(db, id, m, err, errlen) != DB_OK) {
		free(m);
		return NULL;
	}
	/*
	 * Its stacks: the run's probe points, services' observations, fitted
	 * against the curve as the run measured it; or, refitting the same
	 * run, those of the model in use (the same curve: nothing to read,
	 * nothing a store error can drop).
	 */
	if (stacks_of != NULL) {
		memcpy(m->stacks, stacks_of->stacks, sizeof(m->stacks));
		m->nstacks = stacks_of->nstacks;
	} else if (db_model_stacks(db, d->host.host_id, m, err, errlen) !=
	    DB_OK)
		log_warn("run %lld: stacks not read: %s (answers for every "
		    "stack come from its library's curve)", (long long)id,
		    err);
	/* What the checks measured, on top. */
	*nchecks = runner_add_checks(d, db, id, m);
	memset(&tm, 0, sizeof(tm));
	*when = 0;
	if (strptime(m->created, "%Y-%m-%dT%H:%M:%SZ", &tm) != NULL)
		*when = timegm(&tm);
	return m;
}

/* What the checks did to m's curves, in one line. */
static void
runner_log_checks(const struct model *m, int64_t run, size_t nchecks,
    const char *what)
{
	char	curves[256] = "", one[96];
	size_t	i;

	for (i = 0; i < m->ncurves; i++) {
		const struct model_curve *c = &m->curves[i];

		if (c->chk_n == 0)
			continue;
		snprintf(one, sizeof(one), "%s%s p = %u x %.3f (m = %u KiB) to "
		    "x %.3f (m = %u KiB)", curves[0] ? "; " : "",
		    kdf_backend_name(c->backend), (unsigned)c->p,
		    model_check_factor(c, c->chk_mlo), (unsigned)c->chk_mlo,
		    model_check_factor(c, c->chk_mhi), (unsigned)c->chk_mhi);
		if (strlen(curves) + strlen(one) < sizeof(curves))
			strcat(curves, one);
	}
	log_info("run %lld: %s %zu point%s from checks (measured answers): "
	    "%s", (long long)run, what, nchecks, nchecks == 1 ? "" : "s",
	    curves[0] ? curves : "no curve of the run");
}

int
runner_load_model(struct daemon *d, struct db *db, char *err, size_t errlen)
{
	struct model	*m;
	int64_t		 id;
	time_t		 when;
	size_t		 nchecks;

	if (db_model_run(db, d->host.host_id, d->host.fingerprint, &id, err,
	    errlen) != DB_OK)
		return -1;
	if ((m = runner_fit_run(d, db, id, NULL, &when, &nchecks, err,
	    errlen)) == NULL)
		return -1;
	runner_log_model(m, id);
	if (nchecks > 0)
		runner_log_checks(m, id, nchecks, "model fitted with");
	runner_swap_model(d, m, id);
	pthread_mutex_lock(&d->lock);
	d->last_done = when;
	pthread_mutex_unlock(&d->lock);
	return 0;
}

int
runner_refit(struct daemon *d, struct db *db, int64_t run,
    void (*rebase)(struct daemon *, const struct model *), const char *what,
    char *err, size_t errlen)
{
	struct model	*m;
	time_t		 when;
	size_t		 nchecks;

	/* d->model: only this thread replaces it. */
	if ((m = runner_fit_run(d, db, run, d->model, &when, &nchecks, err,
	    errlen)) == NULL)
		return -1;
	/*
	 * Swapped in, and the questions' corrections rescaled, under one
	 * lock: no answer is made from the new model with the old ones. Not
	 * when a new run's model came meanwhile.
	 */
	if (runner_swap(d, m, run, 1, rebase) && nchecks > 0)
		/* m stays in use until this thread replaces it. */
		runner_log_checks(m, run, nchecks, what);
	return 0;
}

void
runner_store_log(void *ctx, const char *msg)
{
	(void)ctx;
	log_warn("%s", msg);
}

/*
 * SIGHUP: the store's model read again, for runs stored by others since
 * (a grid of pwtune bench --db adds its curves). The same run refitted
 * keeps its stacks and rebases the questions' corrections, as a check's
 * refit does; another run (imported) is loaded as at start.
 */
static void
runner_reload_model(struct daemon *d, struct db *db)
{
	char		err[512];
	int64_t		id, cur;
	enum db_status	st;

	if ((st = db_model_run(db, d->host.host_id, d->host.fingerprint, &id,
	    err, sizeof(err))) != DB_OK) {
		if (st == DB_ERR_NOTFOUND)
			log_info("reload: no finished run of this host yet");
		else
			log_warn("reload: the store's model not read: %s",
			    err);
		return;
	}
	pthread_mutex_lock(&d->lock);
	cur = d->model != NULL ? d->model_run : 0;
	pthread_mutex_unlock(&d->lock);
	if (id != cur) {
		if (runner_load_model(d, db, err, sizeof(err)) == -1)
			log_warn("reload: the store's model not read: %s", err);
		return;
	}
	if (runner_refit(d, db, id, checks_rebase, "model refitted on reload "
	    "with", err, sizeof(err)) == -1) {
		log_warn("reload: the store's model not read: %s", err);
		return;
	}
	/* d->model: only this thread replaces it. */
	runner_log_model(d->model, id);
}

void
runner_store_opened(struct daemon *d, struct db *db)
{
	char	err[512];

	/* The group as configured now (the host's first run makes its row). */
	if (db_host_set_group(db, d->host.host_id, d->cfg.group, err,
	    sizeof(err)) == DB_ERR_UNAVAILABLE)
		log_warn("store: %s", err);
	err[0] = '\0';
	if (runner_load_model(d, db, err, sizeof(err)) == 0) {
		size_t	i, probed = 0, nstacks;

		pthread_mutex_lock(&d->lock);
		nstacks = d->model->nstacks;
		for (i = 0; i < nstacks; i++)
			if (d->model->stacks[i].how == MODEL_STACK_PROBED)
				probed++;
		pthread_mutex_unlock(&d->lock);
		log_info("serving the model of run %lld (%s), %zu stacks, %zu "
		    "probed here", (long long)d->model_run,
		    strcmp(d->model_fingerprint, d->host.fingerprint) ?
		    "stale: the host changed since" : "fresh", nstacks, probed);
	}
	else if (err[0] != '\0')
		log_warn("no model from the store: %s", err);
	else
		log_info("no finished run of this host yet");
}

void
runner_startup_run(struct daemon *d)
{
	char	err[512];
	int64_t	id;
	int	want;

	/*
	 * No model, a stale one, or one without the default question's
	 * curve (a store holding only grids of other variants).
	 */
	pthread_mutex_lock(&d->lock);
	want = strcmp(d->cfg.startup_profile, "none") != 0 &&
	    (d->model == NULL || strcmp(d->model_fingerprint,
	    d->host.fingerprint) != 0 || (model_curve_find(d->model,
	    KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID, 1) == NULL &&
	    model_curve_find(d->model, KDF_BACKEND_LIBARGON2,
	    KDF_ALG_ARGON2ID, 1) == NULL));
	pthread_mutex_unlock(&d->lock);
	if (!want)
		return;
	switch (runner_request(d, d->cfg.startup_profile, DB_TRIGGER_STARTUP,
	    &id, NULL, err, sizeof(err))) {
	case 0:
		log_info("start-up run %lld queued (%s profile)",
		    (long long)id, d->cfg.startup_profile);
		break;
	case -1:
		log_error("start-up run: %s", err);
		break;
	default:	/* one asked for through the API came first */
		log_info("start-up run not needed: a run is queued already");
		break;
	}
}

/*
 * The runner's connection, opened at start and, when the store cannot be
 * reached, again every RUNNER_STORE_RETRY_S seconds until it can or the
 * daemon stops. A start deferred for the store is finished here: the
 * open that gets through migrates and recovers interrupted runs, as the
 * start would have, then the model is loaded and the start-up run queued.
 */
static struct db *
runner_open(struct daemon *d)
{
	struct db_open_opts	 o = { 0, 0, 1, runner_store_log, NULL };
	struct db		*db = NULL;
	struct timespec		 until;
	enum db_status		 st;
	char			 err[512];
	int			 deferred, logged = 0;

	pthread_mutex_lock(&d->lock);
	while (!d->quit) {
		deferred = d->store_deferred;
		pthread_mutex_unlock(&d->lock);
		o.no_recover = !deferred;
		st = db_open(d->cfg.db, &o, &db, err, sizeof(err));
		store_note(d, st, err);
		if (st == DB_OK) {
			if (deferred) {
				log_info("store: reached; finishing the start");
				runner_store_opened(d, db);
				pthread_mutex_lock(&d->lock);
				d->store_deferred = 0;
				pthread_mutex_unlock(&d->lock);
				runner_startup_run(d);
			}
			return db;
		}
		if (!logged && !deferred)
			log_error("job runner: %s (trying again every %d s)",
			    err, RUNNER_STORE_RETRY_S);
		logged = 1;
		pthread_mutex_lock(&d->lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += RUNNER_STORE_RETRY_S;
		while (!d->quit && pthread_cond_timedwait(&d->wake, &d->lock,
		    &until) == 0)
			;
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/*
 * A verification of a (lab: "" or " (libargon2)", for the log) whose
 * median was ratio x the model's, further off than agree: a second
 * measurement at once, into r (nsamples 0 when none was made). It
 * confirms the first when it is off the same way by more than half of
 * agree and within agree of the first (a host's moment seldom lasts
 * both): 1, both then points of the model; else 0.
 */
static int
runner_verify_again(struct daemon *d, int64_t id, int cpus,
    const struct tune_answer *a, const char *lab, double ratio,
    double agree, struct measure_result *r)
{
	double	r2;
	char	err[512];
	int	ok;

	if (verify_measure(a, cpus, RUNNER_VERIFY_ROUNDS, &d->cancel, r, err,
	    sizeof(err)) != 0) {
		if (!d->cancel)
			log_warn("run %lld: verify %.0f ms%s again: %s",
			    (long long)id, a->target_ms, lab, err);
		return 0;
	}
	r2 = r->st.median / a->predicted_p50_ms;
	ok = !r->noisy && r2 >= CHECK_C_MIN && r2 <= CHECK_C_MAX &&
	    (r2 - 1) * (ratio - 1) > 0 && fabs(r2 - 1) > agree / 2 &&
	    fabs(log(r2 / ratio)) <= agree;
	log_info("run %lld: verification of %.0f ms%s again: median %.2f x "
	    "the model's%s", (long long)id, a->target_ms, lab, r2, ok ?
	    ", as the first: a point of the model" : r->noisy ? ", noisy: "
	    "neither a point of the model" : ", not as the first: neither a "
	    "point of the model");
	return ok;
}

/*
 * Measure a for a verification into r: once, and when that was noisy
 * (others took the CPUs, or the spread was wide) kept as a suspect and
 * measured again once, the second standing for the verification. 0, or
 * -1 with err (r empty) when none was made (a cancel among them).
 */
static int
runner_verify_measure(struct daemon *d, struct db *db, int64_t id, int cpus,
    const struct tune_answer *a, const char *lab, struct measure_result *r,
    char *err, size_t errlen)
{
	if (verify_measure(a, cpus, RUNNER_VERIFY_ROUNDS, &d->cancel, r, err,
	    errlen) != 0)
		return -1;
	if (!r->noisy || a->k != 1 || d->cancel)
		return 0;
	log_info("run %lld: verification of %.0f ms%s: %s noisy (median "
	    "%.1f ms): measured again", (long long)id, a->target_ms, lab,
	    a->phc_prefix, r->st.median);
	checks_keep(d, db, a, "", r, a->predicted_p50_ms, id,
	    DB_SOURCE_CHECK_SUSPECT);
	measure_result_release(r);
	return verify_measure(a, cpus, RUNNER_VERIFY_ROUNDS, &d->cancel, r,
	    err, errlen) != 0 ? -1 : 0;
}

/*
 * After a run: measure the answers for the configured targets (k = 1,
 * p95, the default floor) and keep predicted against measured beside the
 * run, so the dashboard and the operator see whether the model holds.
 * Each is a measured answer as a background check's is: kept as a point
 * of the run's model (source "check") unless the host was busy or it is
 * further from the model than a correction may go, and the model is
 * refitted with them, so the answers after the run stand on what was
 * measured at them. A noisy measurement is measured again once; one
 * further off than the model's error too (runner_verify_again()): up to
 * three measurements of a target. Runs on the runner thread; a cancel
 * stops it.
 */
static void
runner_verify(struct daemon *d, struct db *db, const struct model *m,
    int64_t id)
{
	struct tune_query	 q;
	struct tune_answer	 a;
	struct measure_result	 r, r2;
	double			 measured, ratio, agree;
	char			 params[256], err[512];
	const char		*lab;
	size_t			 i, j, nj, taken = 0;
	int			 usable, take, again, on2;

	agree = check_drift(m->loo_median);
	/*
	 * The libargon2 curve's answers too, when the default answers on
	 * libsodium's: PHP's and Python's stacks stand on it (answered as
	 * the library, stack_answered_as()), and nothing else measures its
	 * answers before a client asks twice. Kept as points of the model
	 * only, under "(libargon2)": the run's verifications (the answer's
	 * `verified`, the store's) are the default answer's.
	 */
	nj = d->cfg.nverify_targets;
	if (model_curve_find(m, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2ID,
	    1) != NULL && model_curve_find(m, KDF_BACKEND_LIBSODIUM,
	    KDF_ALG_ARGON2ID, 1) != NULL)
		nj *= 2;
	pthread_mutex_lock(&d->lock);
	checks_verified_clear(d);
	pthread_mutex_unlock(&d->lock);
	for (j = 0; j < nj && !d->cancel; j++) {
		i = j % d->cfg.nverify_targets;
		on2 = j >= d->cfg.nverify_targets;
		lab = on2 ? " (libargon2)" : "";
		pthread_mutex_lock(&d->lock);
		d->step = "verifications";
		d->step_done = j;
		d->step_total = nj;
		pthread_mutex_unlock(&d->lock);
		tune_query_init(&q);
		q.target_ms = d->cfg.verify_targets[i];
		if (on2) {
			q.backend = KDF_BACKEND_LIBARGON2;
			q.parallelism = 1;	/* the curve php's stands on */
		}
		if (tune_recommend(m, &q, &a, err, sizeof(err)) != 0) {
			log_info("run %lld: nothing to verify at %u ms%s: %s",
			    (long long)id, d->cfg.verify_targets[i], lab, err);
			continue;
		}
		if (runner_verify_measure(d, db, id, m->effective_cpus, &a,
		    lab, &r, err, sizeof(err)) == -1) {
			if (!d->cancel)
				log_warn("run %lld: verify %u ms%s: %s",
				    (long long)id, d->cfg.verify_targets[i],
				    lab, err);
			continue;
		}
		measured = verify_percentile(&r, a.percentile);
		/* Shown by the same answer: not when noisy, as a check. */
		if (measured > 0 && !r.noisy && !on2) {
			pthread_mutex_lock(&d->lock);
			checks_verified_add(d, id, &a, measured, r.nsamples);
			pthread_mutex_unlock(&d->lock);
		}
		verify_params_json(&a, params, sizeof(params));
		if (!on2 && db_verification_add(db, id, q.target_ms, params,
		    a.predicted_ms, measured, err, sizeof(err)) != DB_OK)
			log_warn("run %lld: verification not stored: %s",
			    (long long)id, err);
		/*
		 * The median against the model's, as a check's point is;
		 * taken on one measurement within the model's own error
		 * (twice its median, CHECK_DRIFT_MIN at least); one further
		 * off on two that agree.
		 */
		ratio = a.predicted_p50_ms > 0 ? r.st.median /
		    a.predicted_p50_ms : 0;
		usable = a.k == 1 && !r.noisy && ratio >= CHECK_C_MIN &&
		    ratio <= CHECK_C_MAX;
		take = usable && fabs(ratio - 1) <= agree;
		/*
		 * Further off: measured again at once (an answer past the
		 * sizes the run measured is where the model is least sure,
		 * and a client may ask before any background check). Both
		 * are points when the second agrees with the first.
		 */
		again = usable && !take && !d->cancel;
		log_info("run %lld: verification of %.0f ms%s: %s predicted "
		    "%.1f ms, measured %.1f ms (p%d, %.2f of the target; "
		    "median %.2f x the model's%s)", (long long)id, q.target_ms,
		    lab, a.phc_prefix, a.predicted_ms, measured, a.percentile,
		    measured / q.target_ms, ratio, take ? ", a point of the "
		    "model" : again ? ", further off than the model's error: "
		    "measured again" : r.noisy ? ", noisy: not a point of the "
		    "model" : !(ratio > 0) ? ", the model predicts no median "
		    "there: not a point of the model" : ", further off than "
		    "the model's error: not a point of the model");
		memset(&r2, 0, sizeof(r2));
		if (again)
			take = runner_verify_again(d, id, m->effective_cpus,
			    &a, lab, ratio, agree, &r2);
		/* The second kept after the first: the store's newest at
		   these parameters is the model's point (db_model_checks). */
		if (measured > 0) {
			checks_keep(d, db, &a, "", &r, a.predicted_p50_ms, id,
			    take ? DB_SOURCE_CHECK : DB_SOURCE_CHECK_SUSPECT);
			taken += take;
		}
		if (r2.nsamples > 0)
			checks_keep(d, db, &a, "", &r2, a.predicted_p50_ms, id,
			    take ? DB_SOURCE_CHECK : DB_SOURCE_CHECK_SUSPECT);
		measure_result_release(&r2);
		measure_result_release(&r);
	}
	/*
	 * The answers from now on stand on the verifications; after a
	 * cancel too (those taken are in the store: a restart would fit
	 * them), not when the daemon stops.
	 */
	if (taken > 0 && !d->quit && runner_refit(d, db, id, checks_rebase,
	    "verified, model refitted with", err, sizeof(err)) == -1)
		log_warn("run %lld: not refitted with its verifications: %s",
		    (long long)id, err);
}

/* A copy of m (NULL when out of memory). */
static struct model *
runner_model_copy(const struct model *m)
{
	struct model	*c;

	if ((c = malloc(sizeof(*c))) != NULL)
		memcpy(c, m, sizeof(*c));
	return c;
}

/* Fit rep's points into a new model of run id: NULL with err. */
/*
 * The stacks of the model in use, into m (a run's model before its
 * probes): until this run's probes have measured them, answers for a
 * stack keep the correction it had, not the library's alone; after a
 * cancel among the probes, too.
 */
static void
runner_keep_stacks(struct daemon *d, struct model *m)
{
	pthread_mutex_lock(&d->lock);
	if (d->model != NULL && m->nstacks == 0) {
		memcpy(m->stacks, d->model->stacks,
		    d->model->nstacks * sizeof(m->stacks[0]));
		m->nstacks = d->model->nstacks;
	}
	pthread_mutex_unlock(&d->lock);
}

static struct model *
runner_fit(const struct report *rep, int64_t id, char *err, size_t errlen)
{
	struct model	*m;

	if ((m = calloc(1, sizeof(*m))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (model_fit(rep, m, err, errlen) == -1) {
		free(m);
		return NULL;
	}
	m->run_id = id;
	return m;
}

/*
 * The model served from run id: *m (fitted from the run's own points)
 * replaced by the store's, with each curve the run did not measure from
 * the newest run that did (db_model_fit); kept when the store cannot
 * say (a run goes on while the store is away).
 */
static void
runner_fit_store(struct db *db, int64_t id, int store_ok, struct model **m)
{
	struct model	*all;
	char		 err[512];

	if (!store_ok || (all = calloc(1, sizeof(*all))) == NULL)
		return;
	if (db_model_fit(db, id, all, err, sizeof(err)) != DB_OK) {
		log_warn("run %lld: the other runs' curves not read: %s (the "
		    "model is the run's own)", (long long)id, err);
		free(all);
		return;
	}
	free(*m);
	*m = all;
}

/* Append "name (what)" to a list of the log line. */
static void
runner_list_add(char *list, size_t len, const char *name, const char *what)
{
	size_t	off = strlen(list);

	if (off + 1 < len)
		snprintf(list + off, len - off, "%s%s (%s)", off ? ", " : "",
		    name, what);
}

/*
 * Store what a probe measured: each point an observation of this host
 * and stack (source probe, of run id, predicted_ms the base curve's p50),
 * and what the probe came to.
 */
static void
runner_probe_store(struct runner_ctx *ctx, const struct model *m,
    const struct stack_def *sd, const struct probe_result *pr,
    const char *status, const char *why)
{
	const struct model_curve	*cv;
	struct model_prediction		 mp;
	struct db_observation		 o;
	enum db_status			 st = DB_OK;
	char				 err[512];
	size_t				 i;

	cv = model_curve_find(m, sd->base, KDF_ALG_ARGON2ID, 1);
	for (i = 0; pr != NULL && i < pr->npoints && st == DB_OK; i++) {
		const struct probe_point_result	*pp = &pr->points[i];

		memset(&o, 0, sizeof(o));
		snprintf(o.host_id, sizeof(o.host_id), "%s",
		    ctx->d->host.host_id);
		snprintf(o.stack, sizeof(o.stack), "%s", sd->name);
		snprintf(o.source, sizeof(o.source), "probe");
		snprintf(o.variant, sizeof(o.variant), "argon2id");
		o.m_kib = pp->pt.m_kib;
		o.t = pp->pt.t;
		o.p = pp->pt.p;
		o.k = 1;
		o.median_ms = pp->median_ms;
		o.p95_ms = pp->p95_ms;
		o.predicted_ms = -1;
		if (cv != NULL) {
			model_predict(m, cv, o.m_kib, o.t, 1, 50, &mp);
			o.predicted_ms = mp.p50_ms;
		}
		o.model_run = ctx->run;
		st = db_observation_add(ctx->db, &o, pp->samples,
		    pp->nsamples, err, sizeof(err));
	}
	if (st == DB_OK)
		st = db_probe_put(ctx->db, ctx->run, sd->name, status, why,
		    pr != NULL ? pr->runtime : "", pr != NULL ? pr->library :
		    "", probe_shares(sd, pr), pr != NULL ? pr->npoints : 0,
		    pr != NULL ? pr->seconds : 0, err, sizeof(err));
	store_note(ctx->d, st, err);
	if (st != DB_OK)
		log_warn("run %lld: %s probe not stored: %s",
		    (long long)ctx->run, sd->name, err);
}

/*
 * The stacks of m fitted from what the probes just measured (when the
 * store could not give them back): the same fit, without services'
 * observations.
 */
static void
runner_stacks_here(struct model *m, const struct stack_def *all, size_t n,
    const struct probe_result *prs, char (*why)[192])
{
	struct stack_point	pts[PROBE_POINTS_MAX];
	struct model_stack	st;
	char			err[160];
	size_t			i, j;

	m->nstacks = 0;
	for (i = 0; i < n; i++) {
		memset(&st, 0, sizeof(st));
		for (j = 0; j < prs[i].npoints; j++) {
			memset(&pts[j], 0, sizeof(pts[j]));
			pts[j].m_kib = prs[i].points[j].pt.m_kib;
			pts[j].t = prs[i].points[j].pt.t;
			pts[j].p = prs[i].points[j].pt.p;
			pts[j].k = 1;
			pts[j].n = prs[i].points[j].nsamples;
			pts[j].median_ms = prs[i].points[j].median_ms;
			pts[j].p95_ms = prs[i].points[j].p95_ms;
			pts[j].probe = 1;
		}
		if (j == 0 || stack_fit(m, all[i].name, pts, j, &st, err,
		    sizeof(err)) == -1) {
			memset(&st, 0, sizeof(st));
			snprintf(st.name, sizeof(st.name), "%s", all[i].name);
			st.how = MODEL_STACK_LIBRARY;
			st.c = 1;
		}
		snprintf(st.runtime, sizeof(st.runtime), "%s",
		    prs[i].runtime);
		snprintf(st.why, sizeof(st.why), "%s", why[i]);
		if (st.how == MODEL_STACK_PROBED)
			snprintf(st.shares, sizeof(st.shares), "%s",
			    probe_shares(&all[i], &prs[i]));
		/* Disabled or skipped: never run, its result all 0. */
		st.runtime_here = prs[i].status == PROBE_OK &&
		    prs[i].nasked == 0 ? MODEL_RUNTIME_UNKNOWN :
		    probe_runtime_of(probe_status_name(prs[i].status));
		model_stack_set(m, &st);
	}
}

/*
 * Run the probe of every catalogue stack the configuration enables on
 * model m (the run's, in use), store their points, and return a copy of
 * m with every stack fitted (NULL when out of memory). A probe that fails
 * fails nothing but its stack.
 */
static struct model *
runner_probes(struct runner_ctx *ctx, const struct model *m,
    uint64_t budget)
{
	struct daemon			*d = ctx->d;
	const struct stack_def		*all;
	struct stack_probe_point	 pp[STACK_PROBE_POINTS];
	struct probe_opts		 po;
	struct probe_result		*prs;
	struct model			*out;
	char				 dir[DAEMON_PATH_MAX], err[512];
	char				 probed[1024], not[2048];
	char				(*why)[192];
	size_t				 n, i, np, step = 0, nrun = 0;
	int				 on;

	all = stack_catalogue(&n);
	prs = calloc(n, sizeof(*prs));
	why = calloc(n, sizeof(*why));
	if (prs == NULL || why == NULL || (out = runner_model_copy(m)) ==
	    NULL) {
		free(prs);
		free(why);
		return NULL;
	}
	probe_opts_init(&po);
	pthread_mutex_lock(&d->lock);
	snprintf(dir, sizeof(dir), "%s", d->cfg.probe_dir);
	po.timeout_max = d->cfg.probe_timeout;
	for (i = 0; i < n; i++)
		if (config_probe_enabled(&d->cfg, all[i].name))
			nrun++;
	pthread_mutex_unlock(&d->lock);
	po.mem_budget = budget;
	/*
	 * A runtime's own memory (a JVM's heap: up to 1 GiB) within half
	 * of what the host has free now, as the budget is: together at
	 * most what is free.
	 */
	{
		struct host_info	h;
		uint64_t		half;

		(void)runner_memory_now(d, &h, NULL);
		half = host_memory_budget(&h, 0, NULL);
		po.rss_allowance_max = half > RUNNER_PROBE_RSS_MIN ? half :
		    RUNNER_PROBE_RSS_MIN;
	}
	po.model = m;
	po.cancel = &d->cancel;
	probed[0] = not[0] = '\0';
	for (i = 0; i < n; i++) {
		const struct stack_def	*sd = &all[i];

		pthread_mutex_lock(&d->lock);
		on = config_probe_enabled(&d->cfg, sd->name);
		d->step = "probes";
		d->step_done = step;
		d->step_total = nrun;
		pthread_mutex_unlock(&d->lock);
		if (!on) {
			snprintf(why[i], sizeof(why[i]), "its probe disabled "
			    "by configuration: probes in pwtuned.conf");
			runner_probe_store(ctx, m, sd, NULL, "disabled",
			    why[i]);
			runner_list_add(not, sizeof(not), sd->name, why[i]);
			continue;
		}
		step++;
		if (d->cancel)
			break;
		if ((np = stack_probe_points(m, sd, budget >> 10, pp,
		    STACK_PROBE_POINTS)) == 0) {
			snprintf(why[i], sizeof(why[i]), "no %s curve to pick "
			    "its points from", kdf_backend_name(sd->base));
			runner_probe_store(ctx, m, sd, NULL, "skipped", why[i]);
			runner_list_add(not, sizeof(not), sd->name, why[i]);
			continue;
		}
		notify_send("STATUS=probing stacks");
		if (probe_run(sd, dir, pp, np, &po, &prs[i]) == 0) {
			char	what[64];

			snprintf(what, sizeof(what), "%zu points, %.1f s",
			    prs[i].npoints, prs[i].seconds);
			runner_list_add(probed, sizeof(probed), sd->name, what);
		} else {
			if (prs[i].status == PROBE_CANCELLED)
				break;
			snprintf(why[i], sizeof(why[i]), "%s", prs[i].why);
			if (prs[i].npoints > 0) {
				/* Its points count; the reason is said. */
				char	what[256];

				snprintf(what, sizeof(what), "%zu of %zu "
				    "points: %s", prs[i].npoints,
				    prs[i].nasked, prs[i].why);
				runner_list_add(probed, sizeof(probed),
				    sd->name, what);
				why[i][0] = '\0';
			} else
				runner_list_add(not, sizeof(not), sd->name,
				    why[i]);
		}
		runner_probe_store(ctx, m, sd, &prs[i],
		    probe_status_name(prs[i].status), prs[i].why);
	}
	if (!d->cancel) {
		log_info("run %lld: stacks probed: %s; not probed: %s",
		    (long long)ctx->run, probed[0] ? probed : "none",
		    not[0] ? not : "none");
		/* The same fit as a daemon loading this run will make. */
		if (db_model_stacks(ctx->db, d->host.host_id, out, err,
		    sizeof(err)) != DB_OK) {
			log_warn("run %lld: stacks from the store: %s (fitted "
			    "from this run's probes alone)", (long long)ctx->run,
			    err);
			runner_stacks_here(out, all, n, prs, why);
		}
	}
	free(prs);
	free(why);
	return out;
}

/*
 * The run's end in one line, its points counted as the store counts them
 * (points_done: each point that ended, measured or not), then how many
 * were measured and why the others were not.
 */
static void
runner_log_end(const struct report *rep, int64_t id, enum db_run_status fin)
{
	size_t	i, done = 0, ok = 0, skipped = 0;

	for (i = 0; i < rep->n; i++) {
		if (rep->results[i].status == MEASURE_CANCELLED)
			continue;
		done++;
		ok += rep->results[i].status == MEASURE_OK;
		skipped += rep->results[i].status == MEASURE_SKIPPED;
	}
	log_info("run %lld %s: %zu of %zu points done: %zu measured, %zu "
	    "skipped (over the memory budget), %zu failed", (long long)id,
	    db_run_status_name(fin), done, rep->n, ok, skipped,
	    done - ok - skipped);
}

/*
 * Seconds the newest done run of this host and profile took, from its
 * start to its end (points, probes, verifications), or 0: what a running
 * one's time left is estimated from (the points alone, ordered by size,
 * say little of it, and the probes and verifications nothing).
 */
static double
runner_expected(struct daemon *d, struct db *db, const char *profile)
{
	struct db_run	*runs = NULL;
	struct tm	 a, b;
	size_t		 n = 0, i;
	double		 s = 0;
	char		 err[256];

	if (db_runs_list(db, d->host.host_id, 20, &runs, &n, err,
	    sizeof(err)) != DB_OK)
		return 0;
	for (i = 0; i < n; i++) {
		if (runs[i].status != DB_RUN_DONE ||
		    strcmp(runs[i].profile, profile) != 0)
			continue;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		if (strptime(runs[i].started, "%Y-%m-%dT%H:%M:%SZ", &a) !=
		    NULL && strptime(runs[i].finished, "%Y-%m-%dT%H:%M:%SZ",
		    &b) != NULL)
			s = difftime(timegm(&b), timegm(&a));
		break;
	}
	free(runs);
	return s > 0 ? s : 0;
}

static void
runner_run(struct daemon *d, struct db *db, int64_t id, const char *profile)
{
	struct runner_ctx	 ctx = { d, db, id, 0, 0, 0 };
	struct report		 rep;
	struct measure_opts	 mo;
	struct measure_point	*pts = NULL;
	struct model		*m = NULL, *ms;
	enum profile_kind	 kind = PROFILE_QUICK;
	enum db_run_status	 fin;
	enum db_status		 st;
	const char		*why;
	size_t			 n = 0, ok, split, i;
	double			 expect;
	char			 err[512];

	memset(&rep, 0, sizeof(rep));
	rep.mem_budget = runner_memory_now(d, &rep.host, &rep.budget_source);
	rep.effective_cpus = host_usable_cpus(&d->host);
	profile_parse(profile, &kind);
	snprintf(rep.profile, sizeof(rep.profile), "%s", profile_name(kind));
	report_stamp(&rep);
	measure_opts_init(&mo, rep.effective_cpus);
	profile_opts(kind, &mo);
	mo.mem_budget = rep.mem_budget;
	mo.cancel = &d->cancel;
	mo.progress = runner_progress;
	mo.progress_ctx = &ctx;
	mo.result = runner_point;
	mo.result_ctx = &ctx;
	if (profile_points(kind, rep.effective_cpus, NULL, 0, &pts, &n) == -1 ||
	    (rep.results = calloc(n, sizeof(*rep.results))) == NULL) {
		free(pts);
		db_run_set_status(db, id, DB_RUN_FAILED, "out of memory", err,
		    sizeof(err));
		return;
	}
	rep.n = n;
	ctx.total = n;
	expect = runner_expected(d, db, rep.profile);
	pthread_mutex_lock(&d->lock);
	d->run_expect = expect;
	d->run_t0 = measure_now();
	d->points_done = d->points_measured = 0;
	d->points_total = n;
	d->step = "points";
	d->step_done = 0;
	d->step_total = n;
	pthread_mutex_unlock(&d->lock);
	if (db_run_set_status(db, id, DB_RUN_RUNNING, NULL, err,
	    sizeof(err)) != DB_OK)
		log_error("run %lld: %s", (long long)id, err);
	log_info("run %lld started: %s profile, %zu points", (long long)id,
	    rep.profile, n);

	/*
	 * The quick profile's first backend, then the model from it in use
	 * (the first answers come from there), then the other backend.
	 */
	split = n;
	if (kind == PROFILE_QUICK)
		for (i = 1; i < n; i++)
			if (pts[i].kp.backend != pts[0].kp.backend) {
				split = i;
				break;
			}
	ok = measure_list_run(pts, split, &mo, rep.results);
	if (split < n) {
		if (!d->cancel && !ctx.store_failed && ok > 0) {
			rep.n = split;
			if ((m = runner_fit(&rep, id, err, sizeof(err))) !=
			    NULL) {
				runner_fit_store(db, id, !ctx.store_failed,
				    &m);
				runner_keep_stacks(d, m);
				runner_swap_model(d, m, id);
				log_info("run %lld: %s model in use, %zu points "
				    "to come", (long long)id, kdf_backend_name(
				    pts[0].kp.backend), n - split);
			}
			rep.n = n;
		}
		/* After a cancel, its points are marked cancelled. */
		ctx.offset = split;
		ok += measure_list_run(pts + split, n - split, &mo,
		    rep.results + split);
	}
	free(pts);

	if (d->cancel)
		fin = d->quit ? DB_RUN_INTERRUPTED : DB_RUN_CANCELLED;
	else if (ctx.store_failed || ok == 0)
		fin = DB_RUN_FAILED;
	else
		fin = DB_RUN_DONE;
	if (fin == DB_RUN_DONE) {
		/*
		 * The model first, then the stacks' probes on it, then the
		 * verifications: the run stays "running" until they are
		 * done, so a new run cannot start in between.
		 */
		if ((m = runner_fit(&rep, id, err, sizeof(err))) != NULL) {
			/* The run's own curves are stored with it. */
			if (db_model_put(db, id, m, err, sizeof(err)) != DB_OK)
				log_warn("run %lld: model not stored: %s",
				    (long long)id, err);
			runner_fit_store(db, id, 1, &m);
			runner_keep_stacks(d, m);
			runner_swap_model(d, m, id);
			runner_log_model(m, id);
			/* Only this thread swaps models: m stays valid. */
			if ((ms = runner_probes(&ctx, m, rep.mem_budget)) !=
			    NULL && !d->cancel) {
				char	fits[1024];

				fits[0] = '\0';
				for (i = 0; i < ms->nstacks; i++) {
					char	what[64];

					if (ms->stacks[i].how ==
					    MODEL_STACK_LIBRARY)
						continue;
					snprintf(what, sizeof(what), "%.2f x "
					    "%+.1f ms", ms->stacks[i].c,
					    ms->stacks[i].d);
					runner_list_add(fits, sizeof(fits),
					    ms->stacks[i].name, what);
				}
				runner_swap_model(d, ms, id);
				m = ms;
				log_info("run %lld: %zu stacks in the model; "
				    "measured: %s", (long long)id, m->nstacks,
				    fits[0] ? fits : "none");
			} else
				free(ms);
			/* Stopped among the probes: the run did not end. */
			if (d->cancel)
				fin = d->quit ? DB_RUN_INTERRUPTED :
				    DB_RUN_CANCELLED;
			else
				runner_verify(d, db, m, id);
		} else
			log_error("run %lld: no model: %s", (long long)id, err);
	}
	why = fin == DB_RUN_FAILED ? (ok == 0 ? "no point could be measured" :
	    "points could not be stored") : fin == DB_RUN_INTERRUPTED ?
	    "the daemon stopped" : NULL;
	st = db_run_set_status(db, id, fin, why, err, sizeof(err));
	store_note(d, st, err);
	if (st != DB_OK) {
		/* Full, read-only or unreachable store: tried again. */
		log_error("run %lld: %s (its end is recorded when the store "
		    "can be written)", (long long)id, err);
		pthread_mutex_lock(&d->lock);
		d->pending_run = id;
		d->pending_status = fin;
		snprintf(d->pending_error, sizeof(d->pending_error), "%s",
		    why != NULL ? why : "");
		pthread_mutex_unlock(&d->lock);
	}
	runner_log_end(&rep, id, fin);
	if (fin == DB_RUN_DONE) {
		unsigned	keep;

		pthread_mutex_lock(&d->lock);	/* a reload writes it */
		keep = d->cfg.retention_runs;
		pthread_mutex_unlock(&d->lock);
		if (db_retention(db, d->host.host_id, d->host.fingerprint,
		    keep, id, &n, err, sizeof(err)) == DB_OK && n > 0)
			log_info("retention: %zu old run%s deleted", n,
			    n == 1 ? "" : "s");
	}
	pthread_mutex_lock(&d->lock);
	d->runs_by_status[fin]++;
	d->last_end = time(NULL);
	if (d->running_trigger == DB_TRIGGER_API)
		d->last_api_end = d->last_end;
	if (fin == DB_RUN_DONE)
		d->last_done = d->last_end;
	pthread_mutex_unlock(&d->lock);
	report_release(&rep);
}

/*
 * Record the end of a run the store refused before (called and returning
 * with d->lock held).
 */
static void
runner_retry_pending(struct daemon *d, struct db *db)
{
	enum db_run_status	 st = d->pending_status;
	int64_t			 id = d->pending_run;
	char			 why[128], err[512];

	enum db_status		 rc;

	snprintf(why, sizeof(why), "%s", d->pending_error);
	pthread_mutex_unlock(&d->lock);
	rc = db_run_set_status(db, id, st, why[0] ? why : NULL, err,
	    sizeof(err));
	store_note(d, rc, err);
	if (rc == DB_OK) {
		log_info("run %lld: its end (%s) recorded", (long long)id,
		    db_run_status_name(st));
		pthread_mutex_lock(&d->lock);
		if (d->pending_run == id)
			d->pending_run = 0;
		return;
	}
	pthread_mutex_lock(&d->lock);
}

/*
 * Ask a shared database whether it is there (called and returning with
 * d->lock held). What it says is what /readyz, /metrics and the HTTP
 * threads go by: they never wait on a database that may not answer.
 */
static void
runner_probe(struct daemon *d, struct db *db)
{
	enum db_status	st;
	char		err[512];

	pthread_mutex_unlock(&d->lock);
	st = db_ping(db, err, sizeof(err));
	store_note(d, st, st == DB_OK ? NULL : err);
	pthread_mutex_lock(&d->lock);
}

static void	runner_refit_observed(struct daemon *, struct db *);

static void *
runner_loop(void *arg)
{
	struct daemon	*d = arg;
	struct db	*db;
	char		 err[512], profile[16];
	int64_t		 id;
	struct timespec	 until;
	int		 pg;

	if ((db = runner_open(d)) == NULL)
		return NULL;
	/* A database that stops answering is noticed, not waited on. */
	db_set_limits(db, RUNNER_STORE_QUERY_MS, NULL);
	pg = db_is_postgresql(d->cfg.db);
	pthread_mutex_lock(&d->lock);
	while (!d->quit) {
		if (d->pending_run != 0)
			runner_retry_pending(d, db);
		/* SIGHUP: the store's model again, when no run is queued. */
		if (d->model_reload && d->queued_run == 0) {
			d->model_reload = 0;
			pthread_mutex_unlock(&d->lock);
			runner_reload_model(d, db);
			pthread_mutex_lock(&d->lock);
			continue;
		}
		/* Observed stacks, at most once a second, when idle. */
		if ((d->nobserved > 0 || d->observed_all) &&
		    d->queued_run <= 0 && time(NULL) -
		    d->observed_refit >= RUNNER_REFIT_S) {
			runner_refit_observed(d, db);
			continue;
		}
		if (d->queued_run <= 0) {	/* -1: being created */
			/* A question to check (checks.c), when idle. */
			if (d->queued_run == 0 && checks_tick(d, db))
				continue;
			/* Wake for requests, the periodic re-run, to probe
			   a shared database (never on an HTTP thread), or to
			   check questions. */
			if (d->cfg.rebench_interval > 0 || d->pending_run != 0 ||
			    pg || d->nobserved > 0 || d->observed_all ||
			    (d->nquestions > 0 &&
			    d->cfg.check_budget > 0)) {
				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_sec += 1;
				pthread_cond_timedwait(&d->wake, &d->lock,
				    &until);
				if (pg && !d->quit && time(NULL) -
				    d->store_seen >= RUNNER_STORE_PROBE_S)
					runner_probe(d, db);
				/* After a failed run, the cool-down first. */
				if (!d->quit && d->queued_run == 0 &&
				    d->cfg.rebench_interval > 0 &&
				    d->last_done > 0 && time(NULL) -
				    d->last_done >= (time_t)
				    d->cfg.rebench_interval && time(NULL) -
				    d->last_end >= (time_t)d->cfg.cooldown) {
					pthread_mutex_unlock(&d->lock);
					runner_request(d, d->cfg.startup_profile
					    [0] && strcmp(d->cfg.startup_profile,
					    "none") ? d->cfg.startup_profile :
					    "quick", DB_TRIGGER_SCHEDULE, &id,
					    NULL, err, sizeof(err));
					pthread_mutex_lock(&d->lock);
				}
			} else
				pthread_cond_wait(&d->wake, &d->lock);
			continue;
		}
		id = d->queued_run;
		snprintf(profile, sizeof(profile), "%s", d->queued_profile);
		d->queued_run = 0;
		d->queued_profile[0] = '\0';
		d->running_run = id;
		d->running_trigger = d->queued_trigger;
		d->cancel = 0;
		/* Answers kept go: they say whether a run measures now. */
		d->model_version++;
		pthread_mutex_unlock(&d->lock);
		runner_run(d, db, id, profile);
		pthread_mutex_lock(&d->lock);
		d->running_run = 0;
		d->model_version++;
		d->points_done = d->points_total = d->points_measured = 0;
		d->step = NULL;
		d->step_done = d->step_total = 0;
		d->run_expect = 0;
	}
	pthread_mutex_unlock(&d->lock);
	db_close(db);
	return NULL;
}

int
runner_start(struct daemon *d, char *err, size_t errlen)
{
	int	e;

	if ((e = pthread_create(&d->runner, NULL, runner_loop, d)) != 0) {
		snprintf(err, errlen, "cannot start the job runner: %s",
		    strerror(e));
		return -1;
	}
	d->started = 1;
	if (checks_watch_start(d, err, errlen) == -1) {
		runner_stop(d);
		return -1;
	}
	return 0;
}

void
runner_stop(struct daemon *d)
{
	if (!d->started)
		return;
	pthread_mutex_lock(&d->lock);
	d->quit = 1;
	d->cancel = 1;
	d->check_cancel = 1;
	pthread_cond_broadcast(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->runner, NULL);
	checks_watch_stop(d);
	d->started = 0;
}

int
runner_request(struct daemon *d, const char *profile, enum db_trigger trigger,
    int64_t *id, unsigned *retry_after, char *err, size_t errlen)
{
	/* A run of this daemon's may be running: none is recovered here. */
	struct db_open_opts	 o = { 0, 0, 1, runner_store_log, NULL };
	struct report		 rep;
	struct db		*db = NULL;
	time_t			 now = time(NULL);
	size_t			 npoints = 0;
	enum db_status		 st;
	char			 why[512];
	int			 rc;

	pthread_mutex_lock(&d->lock);
	if (d->queued_run != 0 || d->running_run != 0) {
		pthread_mutex_unlock(&d->lock);
		if (retry_after != NULL)
			*retry_after = 30;
		return 1;
	}
	/*
	 * The cool-down stops API clients from chaining runs; a run the
	 * daemon made itself (start-up, schedule) does not hold one back.
	 */
	if (d->last_api_end > 0 && now - d->last_api_end <
	    (time_t)d->cfg.cooldown && trigger == DB_TRIGGER_API) {
		if (retry_after != NULL)
			*retry_after = (unsigned)(d->cfg.cooldown -
			    (unsigned)(now - d->last_api_end));
		pthread_mutex_unlock(&d->lock);
		return 2;
	}
	/* A run pre-empts a check at once. */
	d->check_cancel = 1;
	/* Hold the slot while the run is created, so no second one races. */
	d->queued_run = -1;
	pthread_mutex_unlock(&d->lock);

	memset(&rep, 0, sizeof(rep));
	rep.mem_budget = runner_memory_now(d, &rep.host, &rep.budget_source);
	rep.effective_cpus = host_usable_cpus(&d->host);
	snprintf(rep.profile, sizeof(rep.profile), "%s", profile);
	{
		struct measure_point	*pts = NULL;
		enum profile_kind	 kind = PROFILE_QUICK;

		profile_parse(profile, &kind);
		if (profile_points(kind, rep.effective_cpus, NULL, 0, &pts,
		    &npoints) == -1)
			npoints = 0;
		free(pts);
	}
	if ((st = db_open(d->cfg.db, &o, &db, err, errlen)) == DB_OK)
		st = db_run_create(db, &rep, npoints, trigger, id, err, errlen);
	store_note(d, st, err);
	rc = st == DB_OK ? 0 : -1;
	/* The host's row exists now: keep its group as configured. */
	if (rc == 0 && db_host_set_group(db, d->host.host_id, d->cfg.group,
	    why, sizeof(why)) != DB_OK)
		log_warn("store: group of this host not recorded: %s", why);
	if (db != NULL)
		db_close(db);
	pthread_mutex_lock(&d->lock);
	if (rc == 0) {
		d->queued_run = *id;
		snprintf(d->queued_profile, sizeof(d->queued_profile), "%s",
		    profile);
		d->queued_trigger = trigger;
		pthread_cond_broadcast(&d->wake);
	} else
		d->queued_run = 0;
	pthread_mutex_unlock(&d->lock);
	return rc;
}

void
runner_observed(struct daemon *d, const char *stack)
{
	size_t	i;

	if (stack == NULL || stack[0] == '\0' || strlen(stack) >= DB_STACK_MAX)
		return;
	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->nobserved; i++)
		if (strcmp(d->observed[i], stack) == 0)
			break;
	if (i == d->nobserved && d->nobserved < MODEL_STACKS_MAX)
		snprintf(d->observed[d->nobserved++], DB_STACK_MAX, "%s",
		    stack);
	else if (i == d->nobserved)
		d->observed_all = 1;	/* none is lost: all of them */
	pthread_cond_broadcast(&d->wake);
	pthread_mutex_unlock(&d->lock);
}

/*
 * Refit the stacks observations were stored for into a copy of the model
 * and swap it in (called and returning with d->lock held, the runner
 * idle): the answers cached for the model go with its version.
 */
static void
runner_refit_observed(struct daemon *d, struct db *db)
{
	char		 names[MODEL_STACKS_MAX][DB_STACK_MAX], err[512];
	char		 list[1024];
	struct model	*m = NULL;
	int64_t		 run = d->model_run;
	size_t		 n = d->nobserved, i;
	int		 changed = 0, all = d->observed_all;

	memcpy(names, d->observed, sizeof(names));
	d->nobserved = 0;
	d->observed_all = 0;
	d->observed_refit = time(NULL);
	if (d->model != NULL)
		m = runner_model_copy(d->model);
	pthread_mutex_unlock(&d->lock);
	list[0] = '\0';
	/*
	 * More names than the list holds (a DELETE among them must not be
	 * lost): every stack, as the model was built.
	 */
	if (all && m != NULL) {
		enum db_status	st = db_model_stacks(db, d->host.host_id, m,
				    err, sizeof(err));

		store_note(d, st, err);
		if (st == DB_OK) {
			changed = 1;
			snprintf(list, sizeof(list), "every stack (more "
			    "names than %d at once)", MODEL_STACKS_MAX);
		} else
			log_warn("stacks not refitted: %s", err);
		n = 0;
	}
	for (i = 0; m != NULL && i < n; i++) {
		const struct model_stack	*ms;
		enum db_status			 st;

		st = db_model_stack(db, d->host.host_id, m, names[i], err,
		    sizeof(err));
		store_note(d, st, err);
		if (st != DB_OK) {
			log_warn("stack %s not refitted: %s", names[i], err);
			continue;
		}
		changed = 1;
		if ((ms = model_stack_find(m, names[i])) != NULL) {
			char	what[128];

			snprintf(what, sizeof(what), "%s, %.2f x %+.1f ms",
			    stack_how_text(ms), ms->c, ms->d);
			runner_list_add(list, sizeof(list), names[i], what);
		} else {
			char	what[64];

			snprintf(what, sizeof(what), "not a stack: fewer than "
			    "%d observations", FLEET_STACK_MIN_OBS);
			runner_list_add(list, sizeof(list), names[i], what);
		}
	}
	/*
	 * The questions' corrections rescaled along their paths, as at a
	 * refit with checks: a runtime's correction was measured against
	 * its fit before, and is not counted twice.
	 */
	if (changed) {
		runner_swap(d, m, run, 1, checks_rebase);
		log_info("stacks refitted from observations: %s",
		    list[0] ? list : "none");
	} else
		free(m);
	pthread_mutex_lock(&d->lock);
}

int
runner_cancel(struct daemon *d, int64_t id)
{
	int	rc = -1;

	pthread_mutex_lock(&d->lock);
	if (d->running_run == id) {
		d->cancel = 1;
		rc = 0;
	} else if (d->queued_run == id) {
		/* Not started: the runner would pick it up; mark it now. */
		d->queued_run = 0;
		rc = 1;
	}
	pthread_mutex_unlock(&d->lock);
	if (rc == 1) {
		struct db_open_opts	 o = { 0, 0, 1, runner_store_log,
					    NULL };
		struct db		*db;
		char			 err[512];

		if (db_open(d->cfg.db, &o, &db, err, sizeof(err)) == DB_OK) {
			db_run_set_status(db, id, DB_RUN_CANCELLED, NULL, err,
			    sizeof(err));
			db_close(db);
		}
		rc = 0;
	}
	return rc;
}
