/*
 * engine/search.c: one target, measured (search.h says how).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "search.h"
#include "units.h"

#define MIB_KIB			1024u
#define SEARCH_SCALE_KIB	(16 * MIB_KIB)
#define SEARCH_CV_GUESS		0.03	/* before the answer's own samples */
#define SEARCH_BUDGET_X		6	/* the steps stop after 6 x the target */
#define SEARCH_BUDGET_S		3	/* ... + 3 s */
#define SEARCH_STEP_X		1.12	/* a step moves m this much at least */
#define SEARCH_NOISE		0.15	/* a hash's deviation, at most, here */
#define SEARCH_FIRST_PASS	1.0	/* the first pass's extra, in passes */
#define SEARCH_PASS_AIM		0.975	/* one more pass at the cap: up to this */
#define SEARCH_SMALL_KIB	(40 * MIB_KIB)	/* a MiB is 2.5 % or more */
#define SEARCH_ROUNDS_MIN	3	/* rounds, however many hashes at once */
#define SEARCH_UNC		0.05	/* of the percentile, enough to stop */

/*
 * A hash's work in KiB-passes: its memory times its passes plus the first
 * pass's extra (fresh memory's faults and zeroing cost about one more pass
 * here: docs/BENCHMARKS.md, t = 1 against t = 3). Times scale with it.
 */
static double
search_work(uint32_t m_kib, uint32_t t)
{
	return (double)m_kib * (SEARCH_FIRST_PASS + t);
}

struct search_run {
	const struct tune_query		*q;	/* &aim */
	struct tune_query		 aim;	/* the question, with the
						   library's least t */
	const struct search_opts	*o;
	struct search_result		*r;
	struct measure_opts		 mo;
	enum kdf_backend		 backend;
	uint32_t			 p, cap;
	enum tune_bound			 bound;	/* what set cap */
	double				 z;
	double				 pooled[MEASURE_SAMPLES_MAX];
	size_t				 npooled;
	struct search_sample		 hist[MEASURE_SAMPLES_MAX];
	size_t				 nhist;	/* every sample kept */
};

static double
search_z(int pct)
{
	return pct == 99 ? 2.326 : pct == 95 ? 1.645 : 0;
}

double
search_percentile(const double *samples, size_t n, int pct, double *unc)
{
	double	 sorted[MEASURE_SAMPLES_MAX], dev[MEASURE_SAMPLES_MAX];
	double	 med, cv, z = search_z(pct), est, up;
	size_t	 i, nup;

	*unc = 1;
	if (n == 0)
		return 0;
	if (n > MEASURE_SAMPLES_MAX)
		n = MEASURE_SAMPLES_MAX;
	memcpy(sorted, samples, n * sizeof(*sorted));
	stats_sort(sorted, n);
	med = stats_percentile(sorted, n, 50);
	if (!(med > 0))
		return 0;
	for (i = 0; i < n; i++)
		dev[i] = fabs(sorted[i] - med);
	stats_sort(dev, n);
	cv = 1.4826 * stats_percentile(dev, n, 50) / med;
	if (cv < SEARCH_CV_MIN)
		cv = SEARCH_CV_MIN;
	/* Hash times lean right: the deviation of those above the median. */
	for (i = 0, up = 0, nup = 0; i < n; i++)
		if (sorted[i] > med) {
			up += (sorted[i] - med) * (sorted[i] - med);
			nup++;
		}
	if (nup > 0 && sqrt(up / nup) / med > cv)
		cv = sqrt(up / nup) / med;
	est = med * (1 + z * cv);
	/* A few samples: the second largest is a floor for a tail. */
	if (z > 0 && n >= 3 && sorted[n - 2] > est)
		est = sorted[n - 2];
	*unc = cv * med * sqrt((1 + z * z / 2) / (double)n) / est;
	return est;
}

/* The smallest t at mm the floor and the client admit; 0: none. */
static uint32_t
search_min_t(const struct tune_query *q, uint32_t mm)
{
	uint32_t	lo = tune_floor_min_t(q->floor, q->variant, mm);

	return lo != 0 && lo < q->t_min ? q->t_min : lo;
}

/*
 * The memory-first guess for a percentile of aim ms when a hash takes
 * rate ms per KiB and pass: the smallest admissible t, the most memory
 * that fits; past the cap, more passes. Returns 0 when nothing admissible
 * fits.
 */
static int
search_guess(const struct search_run *s, double aim, double rate,
    uint32_t *m_out, uint32_t *t_out)
{
	uint32_t	t = s->q->t_min > 1 ? s->q->t_min : 1, lo, i;
	double		fit;

	if (!(rate > 0) || !(aim > 0))
		return 0;
	for (i = 0; i < 16; i++) {
		fit = aim / (rate * (SEARCH_FIRST_PASS + t));
		if (fit > s->cap)
			fit = s->cap;
		fit -= fmod(fit, MIB_KIB);
		if (fit < MIB_KIB || fit < 8.0 * s->p)
			return 0;
		if ((lo = search_min_t(s->q, (uint32_t)fit)) == 0)
			return 0;
		if (lo <= t)
			break;
		t = lo;
	}
	/*
	 * At the cap, a pass is a step of 1 / t: one more while it stays
	 * within SEARCH_PASS_AIM of the target, short of SEARCH_AIM as it may
	 * be (a pass that lands the percentile at 97 % is in the band).
	 */
	if (fit >= s->cap) {
		while (t < TUNE_T_MAX && rate * search_work(s->cap, t + 1) <=
		    aim * SEARCH_PASS_AIM / SEARCH_AIM)
			t++;
	} else if (fit < SEARCH_SMALL_KIB && fit + MIB_KIB <= s->cap &&
	    rate * search_work((uint32_t)fit + MIB_KIB, t) <= aim *
	    SEARCH_PASS_AIM / SEARCH_AIM)
		fit += MIB_KIB;		/* where a MiB is a step, as a pass is */
	*m_out = (uint32_t)fit;
	*t_out = t;
	return 1;
}

/* A measure_result from the caller's timer (search_opts.timer). */
static void
search_timed(const struct search_run *s, const struct measure_point *pt,
    const struct measure_opts *mo, struct measure_result *mr)
{
	size_t	n = mo->fixed_rounds * pt->k;

	mr->pt = *pt;
	mr->status = MEASURE_FAILED;
	if (n == 0 || n > MEASURE_SAMPLES_MAX ||
	    (mr->samples = calloc(n, sizeof(*mr->samples))) == NULL) {
		snprintf(mr->reason, sizeof(mr->reason), "no room for %zu "
		    "samples", n);
		return;
	}
	if (s->o->timer(s->o->timer_ctx, pt->kp.m_kib, pt->kp.t, pt->kp.p,
	    pt->k, n, mr->samples, mr->reason, sizeof(mr->reason)) == -1)
		return;
	mr->nsamples = n;
	mr->rounds = mo->fixed_rounds;
	stats_compute(mr->samples, n, &mr->st);
	mr->status = MEASURE_OK;
}

/* Measure (m, t) for rounds rounds; the samples are pooled when keep. */
static int
search_measure(struct search_run *s, uint32_t m_kib, uint32_t t,
    size_t rounds, int keep, double *median, char *err, size_t errlen)
{
	struct measure_point	pt;
	struct measure_result	mr;
	struct measure_opts	mo = s->mo;
	size_t			i;

	if (s->o->cancel != NULL && *s->o->cancel) {
		snprintf(err, errlen, "cancelled");
		return -1;
	}
	if (s->o->progress != NULL)
		s->o->progress(s->o->progress_ctx, m_kib, t, s->r->steps);
	memset(&pt, 0, sizeof(pt));
	kdf_params_init(&pt.kp, s->q->variant);
	pt.kp.backend = s->backend;
	pt.kp.m_kib = m_kib;
	pt.kp.t = t;
	pt.kp.p = s->p;
	pt.k = s->q->k;
	mo.fixed_rounds = rounds;
	memset(&mr, 0, sizeof(mr));
	if (s->o->timer != NULL)
		search_timed(s, &pt, &mo, &mr);
	else
		measure_point_run(&pt, &mo, &mr);
	s->r->steps++;
	/*
	 * Its warm-ups ran unless the point was not run (over the budget;
	 * a timer that timed nothing).
	 */
	s->r->hashes += (mr.rounds + (mr.status == MEASURE_SKIPPED ||
	    (s->o->timer != NULL && mr.nsamples == 0) ? 0 :
	    (size_t)(s->o->timer != NULL ? mo.warmup_rounds :
	    measure_warmups(&pt, &mo)))) * s->q->k;
	if (mr.status != MEASURE_OK || mr.nsamples == 0) {
		snprintf(err, errlen, "m = %u KiB, t = %u: %s%s%s",
		    (unsigned)m_kib, (unsigned)t,
		    measure_status_name(mr.status), mr.reason[0] ? ": " : "",
		    mr.reason);
		measure_result_release(&mr);
		return -1;
	}
	*median = mr.st.median;
	if (keep) {
		for (i = 0; i < mr.nsamples &&
		    s->npooled < MEASURE_SAMPLES_MAX; i++)
			s->pooled[s->npooled++] = mr.samples[i];
		for (i = 0; i < mr.nsamples &&
		    s->nhist < MEASURE_SAMPLES_MAX; i++) {
			s->hist[s->nhist].m_kib = m_kib;
			s->hist[s->nhist].t = t;
			s->hist[s->nhist++].ms = mr.samples[i];
		}
		s->r->noisy |= mr.noisy;
	}
	measure_result_release(&mr);
	return 0;
}

/*
 * Measure (m, t) fully: the samples the estimate needs, a second set when
 * the first leaves it unsure. Returns the percentile's estimate, or -1.
 */
static double
search_full(struct search_run *s, uint32_t m_kib, uint32_t t, size_t n,
    double *median, char *err, size_t errlen)
{
	double	est, unc;
	size_t	rounds = (n + s->q->k - 1) / s->q->k;

	s->npooled = 0;
	s->r->noisy = 0;
	if (search_measure(s, m_kib, t, rounds, 1, median, err, errlen) == -1)
		return -1;
	est = search_percentile(s->pooled, s->npooled, s->q->percentile, &unc);
	/* Unsure, and near an edge of the band: a second set decides. */
	if (unc > 0.02 && (fabs(est / s->q->target_ms - SEARCH_BAND_LO) <
	    2 * unc || fabs(est / s->q->target_ms - SEARCH_BAND_HI) <
	    2 * unc) && search_measure(s, m_kib, t, rounds, 1, median, err,
	    errlen) == -1)
		return -1;
	est = search_percentile(s->pooled, s->npooled, s->q->percentile, &unc);
	s->r->samples = s->npooled;
	s->r->near = s->npooled;
	s->r->uncertainty = unc;
	return est;
}

/* The answer's fields from its measured parameters. */
static void
search_fill(const struct search_run *s, uint32_t m_kib, uint32_t t,
    double est, double median)
{
	struct tune_answer	*a = &s->r->a;

	a->variant = s->q->variant;
	a->backend = s->backend;
	a->k = s->q->k;
	a->percentile = s->q->percentile;
	a->target_ms = s->q->target_ms;
	a->floor = s->q->floor;
	a->objective = TUNE_MEMORY_FIRST;
	a->m_cap_kib = s->cap;
	a->bound = s->bound;
	a->m_kib = m_kib;
	a->t = t;
	a->p = s->p;
	a->predicted_ms = est;
	a->predicted_p50_ms = median;
	a->capacity_per_s = median > 0 ? 1000.0 * s->q->k / median : 0;
	a->in_flight_kib = (uint64_t)s->q->k * m_kib;
	a->gpu_guesses_per_s = TUNE_GPU_BANDWIDTH /
	    (1024.0 * m_kib * (3.0 * t - 1));
	a->usd_per_1e9_guesses = 1e9 / a->gpu_guesses_per_s / 3600 *
	    TUNE_GPU_USD_HOUR;
	snprintf(a->phc_prefix, sizeof(a->phc_prefix), "$%s$v=19$m=%u,t=%u,"
	    "p=%u", kdf_alg_name(s->q->variant), (unsigned)m_kib,
	    (unsigned)t, (unsigned)s->p);
}

static int
search_check(const struct tune_query *q, const struct search_opts *o,
    char *err, size_t errlen)
{
	if (tune_query_check(q, err, errlen) == -1)
		return -1;
	if (q->k > MEASURE_K_MAX) {
		snprintf(err, errlen, "a measured search takes 1 to %d hashes "
		    "at once, not %u", MEASURE_K_MAX, (unsigned)q->k);
		return -1;
	}
	if (q->objective != TUNE_MEMORY_FIRST) {
		snprintf(err, errlen, "a measured search answers memory-first "
		    "only");
		return -1;
	}
	if (o->mem_budget / 1024 / q->k < MIB_KIB) {
		snprintf(err, errlen, "less than 1 MiB of memory for each of "
		    "%u hashes at once", (unsigned)q->k);
		return -1;
	}
	return 0;
}

/* The admissible (m, t) with the least memory traffic, for a target the
   floor does not let any answer meet. */
static int
search_closest(const struct search_run *s, uint32_t *m_out, uint32_t *t_out)
{
	uint32_t	mm, t;
	double		best = -1;

	for (mm = s->cap; mm >= MIB_KIB && mm >= 8 * s->p; mm -= MIB_KIB) {
		if ((t = search_min_t(s->q, mm)) == 0)
			continue;
		if (best < 0 || (double)mm * t < best) {
			best = (double)mm * t;
			*m_out = mm;
			*t_out = t;
		}
	}
	return best >= 0;
}

/*
 * A pass's time is linear in its memory: within 15 % a slope of 0.9 or 1.1
 * instead of 1 moves a scaled sample by 1.5 % at most.
 */
size_t
search_pool(const struct search_sample *h, size_t nh, uint32_t m_ref,
    uint32_t t_ref, double *out, size_t *near)
{
	size_t	i, n = 0;
	double	x, w = search_work(m_ref, t_ref);

	*near = 0;
	for (i = 0; i < nh; i++) {
		if (h[i].m_kib == 0 || h[i].t == 0)
			continue;
		x = w / search_work(h[i].m_kib, h[i].t);
		if (x > SEARCH_POOL_X || x < 1 / SEARCH_POOL_X)
			continue;
		out[n++] = h[i].ms * x;
		if (x <= SEARCH_NEAR_X && x >= 1 / SEARCH_NEAR_X)
			(*near)++;
	}
	return n;
}

/* The percentile at (m, t) from the pool there; *n its samples. */
static double
search_pooled(struct search_run *s, uint32_t m, uint32_t t, double *median,
    double *unc, size_t *n, size_t *near)
{
	double	est;

	*n = search_pool(s->hist, s->nhist, m, t, s->pooled, near);
	if (*n == 0) {
		*median = 0;
		*unc = 1;
		return 0;
	}
	stats_sort(s->pooled, *n);
	est = search_percentile(s->pooled, *n, s->q->percentile, unc);
	*median = stats_percentile(s->pooled, *n, 50);
	/* Too few for a spread: the usual one, not the floor's 1 %, and
	   an uncertainty not known (100 %). */
	if (*n < 3) {
		if (est < *median * (1 + s->z * SEARCH_CV_GUESS))
			est = *median * (1 + s->z * SEARCH_CV_GUESS);
		*unc = 1;
	}
	return est;
}

/*
 * The most work hashed whose pool's percentile is within the target, into
 * (*m_out, *t_out). Returns 0 when none is.
 */
static int
search_best(struct search_run *s, uint32_t *m_out, uint32_t *t_out)
{
	double	est, med, unc, best = 0;
	size_t	i, np, near;

	for (i = 0; i < s->nhist; i++) {
		if (search_work(s->hist[i].m_kib, s->hist[i].t) <= best)
			continue;
		est = search_pooled(s, s->hist[i].m_kib, s->hist[i].t, &med,
		    &unc, &np, &near);
		if (np > 0 && est > 0 && est <= SEARCH_BAND_HI *
		    s->q->target_ms) {
			best = search_work(s->hist[i].m_kib, s->hist[i].t);
			*m_out = s->hist[i].m_kib;
			*t_out = s->hist[i].t;
		}
	}
	return best > 0;
}

/* Whether (m2, t2)'s work is within x of (m, t)'s. */
static int
search_within(uint32_t m, uint32_t t, uint32_t m2, uint32_t t2, double x)
{
	double	r = search_work(m2, t2) / search_work(m, t);

	return r <= x && r >= 1 / x;
}

/*
 * The next (m, t) from (m, t) toward (m2, t2), which the np samples at m
 * put there: the part of the move the hashes' noise (SEARCH_NOISE a hash,
 * twice its error over np) cannot explain, and SEARCH_STEP_X at least (a
 * MiB at least), so that one slow or fast sample cannot swing the search
 * between two pools that do not meet while a far guess is still left
 * fast; the guess itself where a shorter step is not admissible or t
 * moves.
 */
static void
search_step(const struct search_run *s, uint32_t m, uint32_t t, size_t np,
    uint32_t *m2, uint32_t t2)
{
	uint32_t	hi, lo, lt;
	double		x, f = (double)*m2 / m;

	if (t2 != t || np == 0)
		return;
	x = (f > 1 ? f : 1 / f) / (1 + 2 * SEARCH_NOISE / sqrt((double)np));
	if (x < SEARCH_STEP_X)
		x = SEARCH_STEP_X;
	hi = (uint32_t)fmin(m * x, s->cap);
	hi -= hi % MIB_KIB;
	if (hi <= m && m < s->cap)
		hi = m + MIB_KIB;
	lo = (uint32_t)ceil(m / x / MIB_KIB) * MIB_KIB;
	if (lo >= m)
		lo = m - MIB_KIB;
	if (*m2 > hi && (lt = search_min_t(s->q, hi)) != 0 && lt <= t2)
		*m2 = hi;
	else if (*m2 < lo)
		*m2 = lo;
}

/*
 * One round (k hashes) at a time, each at the answer the samples so far
 * give: the samples within 15 % of a candidate's work are scaled to it and
 * pooled, the percentile taken from the pool, and the next (m, t) is the
 * one that percentile puts at SEARCH_AIM of the target. The search settles
 * when the candidate is where the last round was hashed (within 5 %), the
 * pool there holds the samples asked for, its percentile is within the
 * band (or m can move no further) and known to SEARCH_UNC (or the pool
 * holds twice the samples). Returns 0 with the answer in s->r, 1 when
 * nothing admissible was measured within the target, -1 on a failure.
 */
static int
search_loop(struct search_run *s, double rate, char *err, size_t errlen)
{
	const double		target = s->q->target_ms;
	size_t			n = s->o->samples ? s->o->samples :
				    SEARCH_SAMPLES;
	size_t			rounds = 0, np, npm = 0, near;
	uint32_t		m, t, m2 = 0, t2 = 0, m3, t3;
	int			settled = 1;
	double			est, med, unc, infl = 1 + s->z * SEARCH_CV_GUESS;
	double			deadline = measure_now() + SEARCH_BUDGET_X *
				    target / 1000 + SEARCH_BUDGET_S;

	if (!search_guess(s, SEARCH_AIM * target / infl, rate, &m, &t))
		return 1;
	for (;;) {
		if (search_measure(s, m, t, 1, 1, &med, err, errlen) == -1)
			return -1;
		rounds++;
		/* Where the samples at (m, t) put the answer. */
		est = search_pooled(s, m, t, &med, &unc, &npm, &near);
		if (!(med > 0) || !(est > 0)) {
			snprintf(err, errlen, "m = %u KiB, t = %u measured "
			    "%g ms", (unsigned)m, (unsigned)t, med);
			return -1;
		}
		/*
		 * Nothing admissible fits (a floor's edge, a MiB): the
		 * floor's least work, measured in full, decides.
		 */
		if (!search_guess(s, SEARCH_AIM * target / (est / med),
		    med / search_work(m, t), &m2, &t2))
			return 1;
		est = search_pooled(s, m2, t2, &med, &unc, &np, &near);
		/* Settled: here, sure, within the target and the band (or
		   m and t can move no further). */
		if (near > 0 && np >= n && (unc <= SEARCH_UNC ||
		    np >= 2 * n) && search_within(m, t, m2, t2,
		    SEARCH_NEAR_X) && est <= SEARCH_BAND_HI * target &&
		    (est >= SEARCH_BAND_LO * target || m2 >= s->cap ||
		    (m2 == m && t2 == t)))
			goto answer;
		if ((rounds >= SEARCH_ROUNDS_MIN && rounds * s->q->k >=
		    SEARCH_HASHES_X * n) || measure_now() > deadline)
			break;
		search_step(s, m, t, npm, &m2, t2);
		m = m2;
		t = t2;
	}
	/*
	 * Out of rounds or time, unsure: one step from the last hash toward
	 * where its samples put the answer, when it keeps t and the pool
	 * there is within the target; else the most work measured within
	 * it. Either way every sample reported was hashed near the answer.
	 */
	settled = 0;
	np = 0;
	m3 = m2;
	t3 = t2;
	if (t2 == t) {
		search_step(s, m, t, npm, &m2, t2);
		est = search_pooled(s, m2, t2, &med, &unc, &np, &near);
	}
	if (np == 0 || est > SEARCH_BAND_HI * target) {
		if (search_best(s, &m2, &t2))
			est = search_pooled(s, m2, t2, &med, &unc, &np, &near);
		else {
			/*
			 * Every hash over the target: where the last ones
			 * put the answer, less work than any, its percentile
			 * projected from theirs (near = 0 says so).
			 */
			m2 = m3;
			t2 = t3;
			est = search_pooled(s, m, t, &med, &unc, &np, &near);
			est *= search_work(m2, t2) / search_work(m, t);
			med *= search_work(m2, t2) / search_work(m, t);
			near = 0;
			s->r->projected = 1;
		}
	}
answer:
	search_fill(s, m2, t2, est, med);
	s->r->samples = np;
	s->r->near = near;
	s->r->uncertainty = unc;
	s->r->in_band = est <= SEARCH_BAND_HI * target &&
	    est >= SEARCH_BAND_LO * target;
	if (!settled)
		s->r->stop = SEARCH_OUT_OF_STEPS;
	else if (s->r->in_band)
		s->r->stop = SEARCH_IN_BAND;
	else if (m2 >= s->cap)
		s->r->stop = SEARCH_AT_CAP;
	else if (est < SEARCH_BAND_LO * target &&
	    search_guess(s, SEARCH_AIM * target / (est / med),
	    med / search_work(m2, t2), &m, &t) && m == m2 && t == t2)
		s->r->stop = SEARCH_AT_GRAIN;
	else
		s->r->stop = SEARCH_OUT_OF_STEPS;
	return 0;
}

const char *
search_stop_name(enum search_stop st)
{
	static const char *const names[] = {
		"in band", "memory cap", "grain", "out of steps", "floor"
	};

	return (size_t)st < sizeof(names) / sizeof(names[0]) ? names[st] :
	    "?";
}

int
search_target(const struct tune_query *q, const struct search_opts *o,
    struct search_result *r, char *err, size_t errlen)
{
	struct search_run	*s;
	double			 med, t0 = measure_now();
	uint32_t		 m0, m1, tscale, mm = 0, tt = 0;
	uint64_t		 cap;
	int			 rc;

	memset(r, 0, sizeof(*r));
	if (search_check(q, o, err, errlen) == -1)
		return -2;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->aim = *q;
	s->q = &s->aim;
	s->o = o;
	s->r = r;
	s->z = search_z(q->percentile);
	s->p = q->parallelism > 0 ? q->parallelism : 1;
	/* As the model's default answer: libsodium where it computes. */
	s->backend = q->backend;
	if (s->backend == KDF_BACKEND_AUTO)
		s->backend = q->variant != KDF_ALG_ARGON2D && s->p == 1 ?
		    KDF_BACKEND_LIBSODIUM : KDF_BACKEND_LIBARGON2;
	if (s->backend == KDF_BACKEND_LIBSODIUM && (s->p > 1 ||
	    q->variant == KDF_ALG_ARGON2D)) {
		snprintf(err, errlen, "libsodium computes argon2id and "
		    "argon2i with p = 1 only");
		free(s);
		return -2;
	}
	/* libsodium hashes Argon2i at t = 3 at least. */
	if (s->aim.t_min < kdf_t_min(s->backend, q->variant))
		s->aim.t_min = kdf_t_min(s->backend, q->variant);
	cap = o->mem_budget / 1024 / q->k;
	s->bound = TUNE_BOUND_BUDGET;
	if (q->memory_max_kib > 0 && q->memory_max_kib / q->k < cap) {
		cap = q->memory_max_kib / q->k;
		s->bound = TUNE_BOUND_MEMORY_MAX;
	}
	if (cap > KDF_ARGON2_M_MAX) {
		cap = KDF_ARGON2_M_MAX;
		s->bound = TUNE_BOUND_ARGON2;
	}
	s->cap = (uint32_t)(cap - cap % MIB_KIB);
	if (s->cap < MIB_KIB || s->cap < 8 * s->p) {
		snprintf(err, errlen, "a memory limit of %llu KiB for %u "
		    "hash%s at once leaves less than 1 MiB for %s",
		    (unsigned long long)(q->memory_max_kib > 0 ?
		    q->memory_max_kib : o->mem_budget / 1024), (unsigned)q->k,
		    q->k == 1 ? "" : "es", q->k == 1 ? "it" : "each");
		free(s);
		return -2;
	}
	measure_opts_init(&s->mo, o->cpus > 0 ? o->cpus : 1);
	s->mo.mem_budget = o->mem_budget;
	s->mo.cancel = o->cancel;
	s->mo.warmup_rounds = 0;
	s->mo.remeasure_noisy = 0;

	/* The scale: a small hash, twice after one to warm the caches. */
	m0 = s->cap < SEARCH_SCALE_KIB ? s->cap : SEARCH_SCALE_KIB;
	tscale = s->q->t_min > 1 ? s->q->t_min : 1;
	s->mo.warmup_rounds = 1;
	rc = search_measure(s, m0, tscale, 2, 0, &med, err, errlen);
	s->mo.warmup_rounds = 0;
	/*
	 * A hash that fits a cache is faster for its size than the answer's
	 * will be: one at a quarter of the target, where the target is far,
	 * gives the first guess its rate.
	 */
	if (rc == 0 && !(med > 0)) {
		snprintf(err, errlen, "m = %u KiB, t = %u measured %g ms",
		    (unsigned)m0, (unsigned)tscale, med);
		rc = -1;
	}
	if (rc == 0) {
		m1 = (uint32_t)fmin(q->target_ms / 4 / (med /
		    search_work(m0, tscale)) / (SEARCH_FIRST_PASS + tscale),
		    s->cap);
		m1 -= m1 % MIB_KIB;
		if (m1 >= 4 * m0 && (rc = search_measure(s, m1, tscale, 1, 0,
		    &med, err, errlen)) == 0)
			m0 = m1;
	}
	if (rc == 0)
		rc = search_loop(s, med / search_work(m0, tscale), err, errlen);
	if (rc == 1 && r->a.m_kib == 0) {
		/* Nothing admissible fits: the closest answer, measured. */
		if (!search_closest(s, &mm, &tt)) {
			snprintf(err, errlen, "no parameters within %u KiB per "
			    "hash meet the %s floor: raise memory_max or lower "
			    "concurrency", (unsigned)s->cap,
			    tune_floor_name(q->floor));
			rc = -2;
		} else if ((med = search_full(s, mm, tt, o->samples ?
		    o->samples : SEARCH_SAMPLES, &r->a.predicted_p50_ms, err,
		    errlen)) < 0)
			rc = -1;
		else {
			search_fill(s, mm, tt, med, r->a.predicted_p50_ms);
			/* The floor's least work: in the band or not. */
			r->in_band = med <= SEARCH_BAND_HI * q->target_ms &&
			    med >= SEARCH_BAND_LO * q->target_ms;
			r->stop = r->in_band ? SEARCH_IN_BAND :
			    SEARCH_AT_FLOOR;
		}
	}
	if (rc >= 0) {
		r->a.met = r->a.predicted_ms <= q->target_ms;
		/* Not met: the floor decided (none: the least work did). */
		r->a.floor_decided = !r->a.met && q->floor != TUNE_FLOOR_NONE;
		if (!r->a.met)
			snprintf(err, errlen, "target of %.0f ms at p%d cannot "
			    "be met above the %s floor: the closest admissible "
			    "answer, m = %u KiB, t = %u, p = %u, measured "
			    "%.1f ms at the percentile",
			    q->target_ms, q->percentile,
			    tune_floor_name(q->floor), (unsigned)r->a.m_kib,
			    (unsigned)r->a.t, (unsigned)r->a.p,
			    r->a.predicted_ms);
		rc = r->a.met ? 0 : 1;
		/* t at its largest, the time asked not used: said so. */
		tune_note_t_max(&r->a);
	}
	r->seconds = measure_now() - t0;
	free(s);
	return rc;
}
