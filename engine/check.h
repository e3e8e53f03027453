/*
 * engine/check: the closed loop's arithmetic. An answer the daemon has
 * measured at its exact parameters tells how far the model was off there:
 * the correction c = measured / the model's prediction (at the answer's
 * percentile and concurrency). The question's next answer is searched for
 * target / c and reported at c x the model's prediction, aimed at
 * CHECK_AIM of the target (the band's middle: one measurement moves by
 * several per cent either way) on this host as measured.
 * c is the geometric mean of the last CHECK_KEEP corrections (noise in one
 * measurement moves it less), kept within [CHECK_C_MIN, CHECK_C_MAX] for
 * a library's answer, within [CHECK_C_MIN_RUNTIME, CHECK_C_MAX_RUNTIME]
 * for a client runtime's (its model stands on a short probe).
 *
 * An answer is verified when its measurements at its parameters (this
 * one and those before it at the same m, t, p and k, up to CHECK_KEEP),
 * their geometric mean, are within [CHECK_BAND_LO, CHECK_BAND_HI] of the
 * target: one lucky
 * measurement under the band's top does not keep an answer the others
 * found over it. A re-check of a verified (or settled) answer whose
 * median moved, against the model's median there, by more than the drift
 * threshold (CHECK_DRIFT_MIN, or twice the model's leave-one-out median
 * error if larger) is suspect; measured again, off the same way, the host
 * drifted. The median, not the percentile: a p95 of 10 to 20 hashes moves
 * with one slow hash, and a host that changed shows in all of them.
 */
#ifndef PWTUNE_CHECK_H
#define PWTUNE_CHECK_H

#include <stddef.h>

#include "model.h"
#include "tune.h"

#define CHECK_BAND_LO		0.90
#define CHECK_BAND_HI		1.00
#define CHECK_AIM		0.95	/* where a corrected answer aims */
#define CHECK_C_MIN		0.5	/* a library's (measured well) */
#define CHECK_C_MAX		2.0
#define CHECK_C_MIN_RUNTIME	0.25	/* a client runtime's: its probe */
#define CHECK_C_MAX_RUNTIME	4.0	/* hashed 3 to 5 times a size */
#define CHECK_KEEP		3
#define CHECK_DRIFT_MIN		0.10
#define CHECK_SAMPLES_MIN	10

enum check_verdict {
	CHECK_IN_BAND,		/* verified: within the band */
	CHECK_CORRECTED,	/* out of it: c moved, measure again */
	CHECK_SETTLED,		/* under the band, and c would not move the
				   answer (t's grain, the memory cap, a floor) */
	CHECK_DRIFTED,		/* a verified answer's host changed */
	CHECK_SUSPECT,		/* off once: measured again at once */
	CHECK_VERDICTS
};

struct check_state {
	double		c;		/* 1 before the first measurement */
	double		seen[CHECK_KEEP];	/* the last corrections */
	size_t		nseen;
	double		same_ms[CHECK_KEEP];	/* the percentiles measured at
						   m_kib, t, p, k, the last */
	size_t		same_n[CHECK_KEEP];	/* and their hashes */
	size_t		nsame;
	unsigned	nchecks;
	int		verified;	/* the measurements at m_kib, t, p, k
					   together are in band */
	int		settled;	/* under the band, and the correction
					   moves nothing: no check until the
					   interval */
	int		suspect;	/* off once; c kept until confirmed */
	double		drifted_by;	/* at a drift: new mc over the old */
	double		suspect_c;
	double		mc;		/* the last median over the model's
					   (0: none): what a drift moves */
	double		suspect_mc;
	double		measured_ms;	/* the geometric mean of same_ms (the
					   last measurement when it was not
					   taken), -1: none */
	size_t		samples;	/* their hashes */
	size_t		nmeasured;	/* the measurements measured_ms is of */
	uint32_t	m_kib, t, p, k;	/* what it measured */
	char		unmeasured[192];	/* why its last check measured
						   nothing ("": it did) */
	char		unmeasured_at[32];	/* since when (UTC) */
};

void	 check_state_init(struct check_state *s);

/*
 * The answer to q under stack (NULL: the default) with correction c, as
 * the API gives it (stack_recommend; tune_recommend for an explicit
 * backend or p); *model_ms gets the model's own prediction at
 * the answer's percentile (before c). Returns as stack_recommend.
 */
int	 check_answer(const struct model *m, const char *stack,
	    const struct tune_query *q, double c, struct tune_answer *a,
	    double *model_ms, char *err, size_t errlen);

/*
 * A run's verification: an answer of its model measured at its exact
 * parameters, what it measured (at its percentile) and when (UTC), so
 * that the same answer says it was measured before a background check
 * measures it again.
 */
#define CHECK_VERIFIED_MAX	8
struct check_verified {
	int64_t			run;		/* whose model it answered */
	double			target_ms;
	int			percentile;
	enum kdf_backend	backend;
	enum kdf_alg		variant;
	uint32_t		m_kib, t, p, k;
	double			measured_ms;
	size_t			samples;
	char			at[32];
};

/*
 * Of v[0..n), the verification of exactly answer a (its target,
 * percentile, library, variant, m, t, p and k) of run's model to stack
 * (NULL, "", or a library's: what a verification hashes with), or NULL.
 */
const struct check_verified *check_verified_find(const struct check_verified
	    *v, size_t n, int64_t run, const char *stack,
	    const struct tune_answer *a);

/*
 * The CPU seconds a client runtime's check of answer a (to stack) takes,
 * its runtime's start aside: n timed hashes at a's predicted p50 and
 * warmups untimed ones of two passes at most (STACK_PROBE_WARMUP_T), each
 * a's prediction (the question's correction in) x the model's own at those
 * passes / at a's t; all at a's p lanes. HUGE_VAL when a's prediction
 * is not a time (NaN, negative): never within a budget.
 */
double	 check_runtime_cost(const struct model *m, const char *stack,
	    const struct tune_answer *a, size_t n, unsigned warmups);

/*
 * How far a measurement may be from the model before it says something
 * changed: twice the model's leave-one-out median loo, CHECK_DRIFT_MIN
 * at least.
 */
double	 check_drift(double loo);

/* c kept within [CHECK_C_MIN, CHECK_C_MAX], or the runtime's bounds (NaN:
   1, no correction). */
double	 check_clamp(double c, int runtime);

/* Is measured_ms within [CHECK_BAND_LO, CHECK_BAND_HI] of target_ms? */
int	 check_in_band(double measured_ms, double target_ms);

/*
 * The model's own prediction (before any correction) of m_kib, t, p at k
 * for question q under stack (NULL: the default), along the path
 * check_answer takes for it (the stack's, or backend's curve for an
 * explicit backend or p): 0 with *ms, -1 when m has no curve for it.
 */
int	 check_predict(const struct model *m, const char *stack,
	    const struct tune_query *q, enum kdf_backend backend,
	    uint32_t m_kib, uint32_t t, uint32_t p, uint32_t k, double *ms);

/*
 * Take a measurement of answer a: its percentile measured_ms and median
 * median_ms over samples hashes, the model's own predictions there
 * model_ms (at a's percentile) and model_p50_ms (its median; 0 or
 * median_ms 0: unknown, no drift is judged). loo is the model's
 * leave-one-out median error (for the drift threshold); runtime: a client
 * runtime's answer (check_clamp).
 */
enum check_verdict check_update(struct check_state *s,
	    const struct tune_answer *a, double measured_ms, double median_ms,
	    size_t samples, double model_ms, double model_p50_ms, double loo,
	    int runtime);

/* Can the daemon check stack's answers (NULL, "", libsodium, libargon2:
   it hashes with the libraries, not a client's runtime)? */
int	 check_stack_checkable(const char *stack);

/* "in band", "corrected", "settled", "drifted", "suspect". */
const char *check_verdict_name(enum check_verdict v);

#endif /* PWTUNE_CHECK_H */
