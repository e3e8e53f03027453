/*
 * engine/check.c: the closed loop's arithmetic (check.h says how).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "stack.h"

void
check_state_init(struct check_state *s)
{
	memset(s, 0, sizeof(*s));
	s->c = 1;
	s->measured_ms = -1;
}

/*
 * The correction said in a's notes: an answer that moved says why, and
 * where it was measured (a runtime answered as its curve's library was
 * measured in that library, stack_checked_as).
 */
static void
check_note(const struct model *m, struct tune_answer *a, double c,
    const char *stack)
{
	const char	*as = stack_checked_as(m, stack);
	char		 where[160] = "";

	if (as != stack && as != NULL)
		snprintf(where, sizeof(where), " (in %s, the library file %s "
		    "hashes through here)", as, stack);
	else if (!check_stack_checkable(stack))
		snprintf(where, sizeof(where), " (in %s, by its probe)",
		    stack);
	tune_note(a, "Corrected by this host's background checks: they "
	    "measured the answers to this question at %.2f x what the model "
	    "predicts%s, and these parameters allow for it.", c, where);
}

double
check_runtime_cost(const struct model *m, const char *stack,
    const struct tune_answer *a, size_t n, unsigned warmups)
{
	double	warm_ms = a->predicted_p50_ms, at_t, at_w;

	if (!isfinite(warm_ms) || warm_ms < 0)
		return HUGE_VAL;
	if (a->t > STACK_PROBE_WARMUP_T &&
	    stack_predict(m, stack, KDF_ALG_ARGON2ID, a->m_kib, a->t, a->p, 1,
	    50, &at_t) == 0 &&
	    stack_predict(m, stack, KDF_ALG_ARGON2ID, a->m_kib,
	    STACK_PROBE_WARMUP_T, a->p, 1, 50, &at_w) == 0 &&
	    at_t > 0 && at_w >= 0 && at_w < at_t)
		warm_ms = a->predicted_p50_ms * (at_w / at_t);
	return ((double)n * a->predicted_p50_ms + (double)warmups * warm_ms) /
	    1000 * a->p;
}

const struct check_verified *
check_verified_find(const struct check_verified *v, size_t n, int64_t run,
    const char *stack, const struct tune_answer *a)
{
	size_t	i;

	if (!check_stack_checkable(stack))
		return NULL;
	for (i = 0; i < n; i++)
		if (v[i].run == run && v[i].target_ms == a->target_ms &&
		    v[i].percentile == a->percentile &&
		    v[i].backend == a->backend && v[i].variant == a->variant &&
		    v[i].m_kib == a->m_kib && v[i].t == a->t &&
		    v[i].p == a->p && v[i].k == a->k && v[i].measured_ms > 0)
			return &v[i];
	return NULL;
}

double
check_drift(double loo)
{
	return 2 * loo > CHECK_DRIFT_MIN ? 2 * loo : CHECK_DRIFT_MIN;
}

int
check_answer(const struct model *m, const char *stack,
    const struct tune_query *q, double c, struct tune_answer *a,
    double *model_ms, char *err, size_t errlen)
{
	struct tune_query	aim = *q;
	int			rc;

	if (!(c >= CHECK_C_MIN_RUNTIME && c <= CHECK_C_MAX_RUNTIME))
		c = 1;
	aim.target_ms = q->target_ms / c;
	/*
	 * A measured correction stands for the model's error at the answer:
	 * the headroom tune keeps for that error (its leave-one-out median,
	 * TUNE_HEADROOM_MIN to _MAX) is given back, and the answer aims at
	 * CHECK_AIM of the target instead: the band's middle, so that the
	 * next measurement, a few per cent either way, stays in it (aimed at
	 * 1 / (1 + TUNE_HEADROOM_MIN), the band's top, a third of them were
	 * over it).
	 */
	if (c != 1)
		aim.target_ms *= (1 + tune_headroom(m, aim.percentile)) *
		    CHECK_AIM;
	if (aim.target_ms < TUNE_TARGET_MIN_MS)
		aim.target_ms = TUNE_TARGET_MIN_MS;
	if (aim.target_ms > TUNE_TARGET_MAX_MS)
		aim.target_ms = TUNE_TARGET_MAX_MS;
	/* As the API answers: explicit backends and p through tune. */
	if (stack != NULL || (q->backend == KDF_BACKEND_AUTO &&
	    q->parallelism <= 1))
		rc = stack_recommend(m, stack, &aim, a, err, errlen);
	else
		rc = tune_recommend(m, &aim, a, err, errlen);
	if (rc == -1)
		return -1;
	*model_ms = a->predicted_ms;
	a->target_ms = q->target_ms;
	if (c != 1) {
		a->headroom = 1 / CHECK_AIM - 1;
		a->predicted_ms *= c;
		a->predicted_p50_ms *= c;
		if (a->predicted_p50_ms > 0)
			a->capacity_per_s = a->k * 1000.0 /
			    a->predicted_p50_ms;
		a->met = a->met && a->predicted_ms <= q->target_ms;
		if (fabs(c - 1) >= 0.005)
			check_note(m, a, c, stack);
		/* Said for the target asked, at the corrected time. */
		if (rc == 1)
			tune_missed(q, a, stack, " (as measured here)", err,
			    errlen);
	}
	/* Said for the target asked, at the time as corrected. */
	tune_note_t_max(a);
	return rc;
}

/* The geometric mean of v[0..n), n > 0. */
static double
check_geomean(const double *v, size_t n)
{
	double	logsum = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		logsum += log(v[i]);
	return exp(logsum / (double)n);
}

/* The geometric mean of s's corrections (s->c when none). */
static double
check_mean(const struct check_state *s)
{
	return s->nseen > 0 ? check_geomean(s->seen, s->nseen) : s->c;
}

/*
 * Keep a measurement of the answer last measured (its percentile ms over
 * n hashes) among those at its parameters; their geometric mean into
 * s->measured_ms, their hashes into s->samples.
 */
static void
check_same(struct check_state *s, double ms, size_t n)
{
	size_t	i;

	if (s->nsame == CHECK_KEEP) {
		memmove(s->same_ms, s->same_ms + 1, (CHECK_KEEP - 1) *
		    sizeof(s->same_ms[0]));
		memmove(s->same_n, s->same_n + 1, (CHECK_KEEP - 1) *
		    sizeof(s->same_n[0]));
		s->nsame--;
	}
	s->same_ms[s->nsame] = ms;
	s->same_n[s->nsame++] = n;
	s->samples = 0;
	for (i = 0; i < s->nsame; i++)
		s->samples += s->same_n[i];
	s->measured_ms = check_geomean(s->same_ms, s->nsame);
	s->nmeasured = s->nsame;
}

enum check_verdict
check_update(struct check_state *s, const struct tune_answer *a,
    double measured_ms, double median_ms, size_t samples, double model_ms,
    double model_p50_ms, double loo, int runtime)
{
	double	ratio, c, mc, drift;
	int	was_stable = s->verified || s->settled, same;

	same = s->m_kib == a->m_kib && s->t == a->t && s->p == a->p &&
	    s->k == a->k;
	s->unmeasured[0] = s->unmeasured_at[0] = '\0';
	s->nchecks++;
	s->measured_ms = measured_ms;
	s->samples = samples;
	s->nmeasured = 1;
	s->m_kib = a->m_kib;
	s->t = a->t;
	s->p = a->p;
	s->k = a->k;
	if (!same) {
		/* What was measured at other parameters says nothing here. */
		s->nsame = 0;
		s->mc = 0;
		s->suspect = 0;
	}
	if (!(model_ms > 0) || !(measured_ms > 0) || !isfinite(model_ms) ||
	    !isfinite(measured_ms)) {
		s->settled = 1;
		s->verified = 0;
		return CHECK_SETTLED;
	}
	c = check_clamp(measured_ms / model_ms, runtime);
	/* The host's speed: its median against the model's (0: unknown). */
	mc = median_ms > 0 && model_p50_ms > 0 && isfinite(median_ms) &&
	    isfinite(model_p50_ms) ? median_ms / model_p50_ms : 0;
	drift = check_drift(loo);
	s->settled = 0;
	if (s->suspect) {
		s->suspect = 0;
		if (mc > 0 && s->mc > 0 && fabs(mc / s->mc - 1) > drift) {
			if ((mc > s->mc) != (s->suspect_mc > s->mc)) {
				/* Off the other way now: suspect again. */
				s->suspect = 1;
				s->suspect_c = c;
				s->suspect_mc = mc;
				return CHECK_SUSPECT;
			}
			/* Off twice the same way: the host changed. */
			s->drifted_by = mc / s->mc;
			s->nseen = 0;
			s->seen[s->nseen++] = c;
			s->nsame = 0;
			check_same(s, measured_ms, samples);
			s->c = c;
			s->mc = mc;
			s->verified = 0;
			return CHECK_DRIFTED;
		}
	} else if (was_stable && same && mc > 0 && s->mc > 0 &&
	    fabs(mc / s->mc - 1) > drift) {
		s->suspect = 1;
		s->suspect_c = c;
		s->suspect_mc = mc;
		s->verified = 0;
		return CHECK_SUSPECT;
	}
	s->mc = mc;
	if (s->nseen == CHECK_KEEP) {
		memmove(s->seen, s->seen + 1, (CHECK_KEEP - 1) *
		    sizeof(s->seen[0]));
		s->nseen--;
	}
	s->seen[s->nseen++] = c;
	/*
	 * Judged on every measurement at these parameters, not on this one
	 * alone: one measurement moves by several per cent, and a loop that
	 * stopped at its first draw in the band kept answers over it on the
	 * draws that happened to fall low. On what was measured, not on the
	 * corrections (kept within their bounds, they would put an answer a
	 * correction past them cannot reach in the band).
	 */
	check_same(s, measured_ms, samples);
	ratio = s->measured_ms / a->target_ms;
	if (check_in_band(s->measured_ms, a->target_ms)) {
		s->verified = 1;
		return CHECK_IN_BAND;
	}
	s->verified = 0;
	c = check_mean(s);
	/* Under the band with the correction already taken: settled. */
	if (ratio < CHECK_BAND_LO && same && fabs(c / s->c - 1) < 0.01) {
		s->settled = 1;
		return CHECK_SETTLED;
	}
	s->c = c;
	return CHECK_CORRECTED;
}

int
check_in_band(double measured_ms, double target_ms)
{
	double	ratio = measured_ms / target_ms;

	return ratio >= CHECK_BAND_LO && ratio <= CHECK_BAND_HI;
}

double
check_clamp(double c, int runtime)
{
	double	lo = runtime ? CHECK_C_MIN_RUNTIME : CHECK_C_MIN;
	double	hi = runtime ? CHECK_C_MAX_RUNTIME : CHECK_C_MAX;

	return isnan(c) ? 1 : c < lo ? lo : c > hi ? hi : c;
}

int
check_predict(const struct model *m, const char *stack,
    const struct tune_query *q, enum kdf_backend backend, uint32_t m_kib,
    uint32_t t, uint32_t p, uint32_t k, double *ms)
{
	const struct model_curve	*cv;
	struct model_prediction		 pr;

	/* The path check_answer takes for q. */
	if (stack != NULL || (q->backend == KDF_BACKEND_AUTO &&
	    q->parallelism <= 1))
		return stack_predict(m, stack != NULL ? stack :
		    stack_default(m, q->variant), q->variant, m_kib, t, p, k,
		    q->percentile, ms);
	if ((cv = model_curve_find(m, backend, q->variant, p)) == NULL)
		return -1;
	model_predict(m, cv, m_kib, t, k > 0 ? k : 1, q->percentile, &pr);
	*ms = pr.ms;
	return 0;
}

int
check_stack_checkable(const char *stack)
{
	return stack == NULL || stack[0] == '\0' ||
	    strcmp(stack, "libsodium") == 0 || strcmp(stack, "libargon2") == 0;
}

const char *
check_verdict_name(enum check_verdict v)
{
	switch (v) {
	case CHECK_IN_BAND:
		return "in band";
	case CHECK_CORRECTED:
		return "corrected";
	case CHECK_SETTLED:
		return "settled";
	case CHECK_SUSPECT:
		return "suspect";
	default:
		return "drifted";
	}
}
