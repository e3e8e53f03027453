/*
 * engine/model: the time of one hash as a function of m, t, p and k,
 * fitted from the points of a run.
 *
 * Measured here (docs/BENCHMARKS.md): the first pass costs extra (page
 * faults, zeroing, wiping) and the cost of a pass per MiB grows with m, so
 * no single formula a + b·m + c·m·t fits the whole range. The model is
 * piecewise instead, per backend, variant and p:
 *
 *   - at each measured memory size m_i, a line in t through the k = 1
 *     medians: T(m_i, t) = a_i + b_i·t (least squares over the t values
 *     measured there; with one t, the neighbours' fixed and pass costs
 *     per MiB in the same proportion, scaled to the point, or no fixed
 *     cost where their pass cost alone takes the point's time);
 *   - between sizes, the per-MiB costs a_i/m_i and b_i/m_i are
 *     interpolated linearly in log m;
 *   - below the smallest size, its per-MiB costs are used; above the
 *     largest, its per-MiB costs grown as the t = 1 cost of the sizes from
 *     an eighth of it up grew (a line in log m over MODEL_GROW_WINDOW
 *     sizes at least, of a curve of MODEL_GROW_ROWS or more, never
 *     falling, at most MODEL_GROW_MAX per unit of ln m),
 *     up to MODEL_EXTRAPOLATE times the largest and held past it; either
 *     way the prediction is flagged extrapolated, and the recommender
 *     never goes past MODEL_EXTRAPOLATE times the largest measured m. The
 *     leave-one-out error of the largest size tests that growth.
 *
 * Concurrency: a factor per k and m (median latency at k over the median
 * at k = 1 at the same m, t), interpolated in log m between the sizes
 * measured at that k and then linearly between measured k, and percentile
 * factors (p95 / median, p99 / median) from the spread measured there,
 * never under k = 1's (every hash pooled): a point at k > 1 has too few
 * hashes to show the host's slow seconds.
 * The fit's error is measured on points it did not see: each k = 1 point
 * is left out in turn, the rest refitted, the point predicted.
 *
 * Robustness: each point weighs its samples (a noisy one a quarter), and
 * when a curve's worst leave-one-out error is over MODEL_OUTLIER_MIN, the
 * point between the smallest and largest size whose leaving at least
 * halves it is set aside before the fit (one point explains the error),
 * at most one in MODEL_OUTLIER_DIV; model_curve.aside lists them.
 *
 * Measured answers: the daemon's background checks measure answers at
 * their exact parameters; model_fit_checks scales each curve by a smooth
 * factor fitted to them (one factor, or a line in log m), so that the
 * answers near them hold on this host as measured.
 *
 * Quality: a verdict made once per fit, that every answer, /readyz, the
 * metrics and the dashboard repeat. The smallest curve that can be refitted
 * without a point has two sizes, each with a first-pass and a per-pass
 * cost: four parameters; the point left out must leave them determined and
 * one point over, so a curve with fewer than MODEL_LOO_MIN_POINTS points at
 * k = 1 has no leave-one-out error (unknown, not 0). A model is poor when
 * the curve the default answer stands on (libsodium's Argon2id at p = 1
 * when measured, else the first) has no error or a worst error over
 * MODEL_LOO_WORST_MAX, or when more than a third of its points were
 * flagged noisy; good otherwise. A second library's curve, which the quick
 * profile samples at a few sizes, does not decide it.
 */
#ifndef PWTUNE_MODEL_H
#define PWTUNE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "report.h"

#define MODEL_CURVES_MAX	16
#define MODEL_ROWS_MAX		64
#define MODEL_CONC_MAX		64
#define MODEL_EXTRAPOLATE	2.0	/* at most 2 x the largest m measured */
#define MODEL_GROW_ROWS		3	/* sizes a curve needs for a growth
					   above the largest */
#define MODEL_GROW_WINDOW	2	/* sizes the growth is fitted to, at
					   least */
#define MODEL_GROW_MAX		0.25	/* its ceiling: relative, per unit
					   of ln m */
#define MODEL_STACKS_MAX	16
#define MODEL_STACK_NAME	64	/* bytes of a stack name, NUL too */
#define MODEL_LOO_MIN_POINTS	6	/* k = 1 points for a leave-one-out
					   error: 4 parameters + 2 */
#define MODEL_LOO_WORST_MAX	0.25	/* worse: a poor model */
#define MODEL_TAIL_MIN_MS	40.0	/* hashes pooled for the tail: from
					   this median up */
#define MODEL_TAIL_MIN_N	20	/* fewer pooled hashes: no tail */
#define MODEL_TAIL_MAX		3.0	/* the pooled tail's ceiling */
#define MODEL_NOISY_MAX_DIV	3	/* over 1/3 of points noisy: poor */
#define MODEL_QUALITY_WHY	512	/* bytes of the verdict's reason */
#define MODEL_NOISY_WEIGHT	0.25	/* a noisy point's weight, of its
					   samples' */
#define MODEL_OUTLIER_MIN	0.15	/* a worse leave-one-out error is
					   looked into */
#define MODEL_OUTLIER_TRY	6	/* points tried out, worst first */
#define MODEL_OUTLIER_DIV	6	/* at most 1 point in 6 set aside */
#define MODEL_OUTLIER_N_MAX	128	/* more points: not looked into */
#define MODEL_ASIDE_MAX		8
#define MODEL_CHECK_SPAN	1.5	/* checks over less of m: one factor */
#define MODEL_CHECK_G_MIN	0.5
#define MODEL_CHECK_G_MAX	2.0
#define MODEL_CHECK_REACH	2.0	/* beyond the sizes checked, the
					   factor fades to 1 over this much m */
#define MODEL_CHECK_W_MAX	20	/* a check's weight: its samples,
					   up to this */

enum model_quality {
	MODEL_QUALITY_GOOD,
	MODEL_QUALITY_POOR
};

struct model_row {
	uint32_t	m_kib;
	double		a_ms;		/* first-pass and fixed cost */
	double		b_ms;		/* cost of each pass */
	int		nt;		/* t values measured at this m */
};

/* A point the robust fit set aside: what it measured, what the rest say. */
struct model_aside {
	uint32_t	m_kib, t;
	double		measured_ms, predicted_ms;
};

struct model_curve {
	enum kdf_backend	backend;
	enum kdf_alg		variant;
	uint32_t		p;
	struct model_row	rows[MODEL_ROWS_MAX];	/* ascending m */
	size_t			nrows;
	double			loo_median;	/* relative error, 0.05 = 5 % */
	double			loo_worst;
	size_t			loo_n;		/* 0: unknown (too few) */
	size_t			npoints;	/* k = 1 points fitted */
	struct model_aside	aside[MODEL_ASIDE_MAX];	/* not fitted */
	size_t			naside;
	/*
	 * What the answers measured at their exact parameters say of the
	 * curve (model_fit_checks): every time is multiplied by
	 * g(m) = exp(chk_a + chk_b x ln(m / chk_m0)) within the sizes
	 * checked, fading to 1 beyond them; chk_n 0: g = 1.
	 */
	double			chk_a, chk_b;
	uint32_t		chk_m0, chk_mlo, chk_mhi;
	size_t			chk_n;
	int64_t			run_id;	/* the stored run that measured it;
					   0: not from a store */
	int			other_run;	/* its points are past a
						   merged report's nown:
						   another run's, left out
						   of the model's own
						   figures */
};

/* A measured answer (a background check), for model_fit_checks. */
struct model_check_point {
	enum kdf_backend	backend;
	enum kdf_alg		variant;
	uint32_t		m_kib, t, p;	/* k = 1 */
	double			median_ms;
	size_t			n;		/* samples: its weight */
};

struct model_conc {
	uint32_t	k;
	uint32_t	m_kib;		/* where it was measured (0: any) */
	double		factor;		/* median at k / median at k = 1 */
	double		f95;		/* p95 / median at k */
	double		f99;
};

/*
 * How a client stack's hashes relate to the library curve it stands on
 * (engine/stack.h): time in the stack = c x the curve's time + d (ms),
 * fitted to what the stack's probe (and its services) measured here.
 */
enum model_stack_how {
	MODEL_STACK_LIBRARY,	/* no measurement of the runtime: c = 1 */
	MODEL_STACK_PROBED,	/* its probe ran here */
	MODEL_STACK_OBSERVED	/* services posted observations */
};

/* Whether a stack's runtime is on this host, as its probe found it. */
enum model_stack_runtime {
	MODEL_RUNTIME_UNKNOWN,	/* its probe did not look */
	MODEL_RUNTIME_MISSING,	/* its runtime (or its library) is not here */
	MODEL_RUNTIME_HERE	/* its runtime started (measured or not) */
};

#define MODEL_STACK_KNOTS	8

struct model_stack {
	char			name[MODEL_STACK_NAME];
	enum model_stack_how	how;
	double			c, d;		/* time = c x curve + d ms */
	/*
	 * Measured at two or more times of the curve: the stack's median
	 * (y) against the curve's p50 (x) at each, ascending in both,
	 * joined linearly in log-log, c x curve + d's place.
	 */
	double			knot_x[MODEL_STACK_KNOTS];
	double			knot_y[MODEL_STACK_KNOTS];
	size_t			nknots;
	double			spread95;	/* its p95 / median; 0: the
						   curve's */
	/*
	 * A cliff (stack_fit): the smallest size measured at STACK_CLIFF x
	 * or more the smaller sizes' ratio to the curve, that ratio over
	 * theirs, the largest size under it, and the size the stack's
	 * answers do not go past. All 0 when there is none.
	 */
	uint32_t		cliff_m_kib;
	double			cliff_ratio;
	uint32_t		cliff_held_kib;	/* the largest size under it */
	uint32_t		cliff_onset_kib; /* the smallest size under it
						   whose slowest hash showed it
						   (0: none did) */
	double			cliff_onset_tail; /* that hash over its size's
						   median */
	uint32_t		m_max_kib;	/* STACK_CLIFF_MARGIN of it */
	size_t			nprobe;		/* probe points fitted */
	uint32_t		m_probed_kib;	/* the largest m of those */
	size_t			nobs;		/* observations fitted */
	double			fit_error;	/* median relative, 0.03 = 3 % */
	char			runtime[96];	/* as its probe named it */
	char			why[192];	/* not probed: why ("" if it was) */
	enum model_stack_runtime runtime_here;
	/*
	 * The shared library file its probe's runtime hashed through when
	 * it is the one this host's curve of its base measured (the same
	 * file: kdf_library_is), else "": the runtime then adds nothing to
	 * the library's code but a call, and its probe's ratio to the curve
	 * is the host's speed at two moments (stack_correction).
	 */
	char			shares[256];
};

struct model {
	struct model_curve	curves[MODEL_CURVES_MAX];
	size_t			ncurves;
	struct model_conc	conc[MODEL_CONC_MAX];	/* ascending k, m */
	size_t			nconc;
	double			loo_median;	/* over the run's own curves
						   (not other_run) */
	double			tail_gain;	/* k = 1: the pooled tail over
						   the points' own (1: none) */
	double			loo_worst;
	int			loo_known;	/* 0: no curve had enough
						   points (both 0) */
	size_t			npoints;	/* Argon2 points fitted */
	size_t			nnoisy;		/* of them flagged noisy */
	size_t			naside;		/* of them set aside */
	enum model_quality	quality;
	char			quality_why[MODEL_QUALITY_WHY]; /* one line */
	uint64_t		mem_budget;	/* bytes, from the run */
	int			effective_cpus;
	char			host_id[33];
	char			fingerprint[33];
	char			created[32];	/* of the run */
	int64_t			run_id;		/* 0 when not from a store */
	struct model_stack	stacks[MODEL_STACKS_MAX];	/* measured */
	size_t			nstacks;
};

struct model_prediction {
	double	p50_ms;		/* median at k */
	double	ms;		/* at the percentile asked */
	int	extrapolated;	/* m outside the measured range, or k */
};

/* model.c */

/*
 * Fit a model from rep's points (status ok; Argon2 only), and judge it
 * (m->quality, m->quality_why). Returns 0, or -1 with the reason in err
 * when nothing can be fitted (no point at k = 1).
 */
int	 model_fit(const struct report *rep, struct model *m, char *err,
	    size_t errlen);

/*
 * Take the answers measured at their exact parameters into m: for each
 * curve with points here, the ratio of each point's median to the curve's
 * is fitted, weighted by samples, as g(m) above: one factor when the
 * points span less than MODEL_CHECK_SPAN in m (or there are fewer than
 * three), else a line in log m; g is kept within MODEL_CHECK_G_MIN..MAX,
 * and beyond the sizes checked it fades to 1 over MODEL_CHECK_REACH in m
 * (what was measured at 64 MiB says little of 1 GiB). Smooth by design:
 * a point does not put a bump in the curve, and one noisy point moves it
 * by its weight only (its samples, up to MODEL_CHECK_W_MAX). Returns the
 * points used.
 */
size_t	 model_fit_checks(struct model *m, const struct model_check_point *pts,
	    size_t n);

/* The factor g(m) of curve c (1 without checks). */
double	 model_check_factor(const struct model_curve *c, uint32_t m_kib);

/* "good" or "poor". */
const char *model_quality_name(enum model_quality q);

/*
 * Of the run's own curves (not other_run), the one with the largest
 * leave-one-out error (NULL: none has one).
 */
const struct model_curve *model_loo_worst_curve(const struct model *m);
/*
 * The curve the model's quality is judged on: the one the default answer
 * stands on (libsodium's Argon2id at p = 1 when measured, else the
 * first); NULL without curves.
 */
const struct model_curve *model_deciding_curve(const struct model *m);

/* "libargon2 argon2id p = 1": which curve c is, for a message. */
void	 model_curve_label(const struct model_curve *c, char *buf,
	    size_t len);

/*
 * "leave-one-out error median 4.1 %, worst 57.4 % (the libargon2 argon2id
 * p = 1 curve)": the curve named when m has several; or "... unknown".
 */
void	 model_loo_text(const struct model *m, char *buf, size_t len);

/* The curve for backend, variant and p, or NULL. */
const struct model_curve *model_curve_find(const struct model *m,
	    enum kdf_backend backend, enum kdf_alg variant, uint32_t p);

/*
 * Predict one hash of m_kib KiB and t passes on curve c, at k concurrent
 * hashes, at percentile q (50, 95 or 99).
 */
void	 model_predict(const struct model *m, const struct model_curve *c,
	    uint32_t m_kib, uint32_t t, uint32_t k, int q,
	    struct model_prediction *out);

/* The smallest and largest m measured on c. */
uint32_t model_curve_min_m(const struct model_curve *c);
uint32_t model_curve_max_m(const struct model_curve *c);

/*
 * The model as JSON: curves with their rows and errors (null when
 * unknown), concurrency, and the quality verdict with its reason.
 */
json_t	*model_to_json(const struct model *m);

/* A leave-one-out error as JSON: e when known, else null (new ref). */
json_t	*model_json_error(int known, double e);

#endif /* PWTUNE_MODEL_H */
