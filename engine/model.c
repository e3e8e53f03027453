/*
 * engine/model.c: fitting and predicting the time of a hash (see model.h
 * for the form of the model and why).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "stats.h"

#define OBS_MAX	512

/* One k = 1 median: the data a curve is fitted to. */
struct obs {
	uint32_t	m_kib;
	uint32_t	t;
	double		ms;
	double		w;	/* its samples; a noisy point's count less */
	int		aside;	/* set aside as an outlier: not fitted */
};

/* Leave nothing out (fit_rows' skip and skip_m). */
#define SKIP_NONE	(-1L)
#define SKIP_NO_M	0u

/*
 * Per-KiB costs, fixed and per pass, of the rows with a two-t fit,
 * interpolated at m in log m (the nearest's outside them).
 */
static int
shape_near(const struct model_curve *c, const int *fitted, uint32_t m_kib,
    double *A, double *B)
{
	const struct model_row	*lo = NULL, *hi = NULL;
	size_t			 i;
	double			 x;

	for (i = 0; i < c->nrows; i++) {
		if (!fitted[i])
			continue;
		if (c->rows[i].m_kib <= m_kib)
			lo = &c->rows[i];
		if (c->rows[i].m_kib >= m_kib && hi == NULL)
			hi = &c->rows[i];
	}
	if (lo == NULL && hi == NULL)
		return -1;
	if (lo == NULL)
		lo = hi;
	if (hi == NULL)
		hi = lo;
	*A = lo->a_ms / lo->m_kib;
	*B = lo->b_ms / lo->m_kib;
	if (lo == hi || lo->m_kib == hi->m_kib)
		return 0;
	x = (log(m_kib) - log(lo->m_kib)) / (log(hi->m_kib) - log(lo->m_kib));
	*A += x * (hi->a_ms / hi->m_kib - *A);
	*B += x * (hi->b_ms / hi->m_kib - *B);
	return 0;
}

/* Whether fit_rows leaves o[i] out. */
static int
obs_left_out(const struct obs *o, size_t i, long skip, uint32_t skip_m)
{
	return o[i].aside || (long)i == skip || o[i].m_kib == skip_m;
}

/*
 * Fit the rows of c from n observations, weighted by their w, leaving out
 * those set aside, index skip (or SKIP_NONE) and every one at m = skip_m
 * (or SKIP_NO_M).
 */
static void
fit_rows(const struct obs *o, size_t n, long skip, uint32_t skip_m,
    struct model_curve *c)
{
	int		fitted[MODEL_ROWS_MAX] = { 0 };
	size_t		i, j, r;
	double		st, sT, stt, stT, cnt, sw, A, B, scale, t_one = 0,
			T_one = 0;

	c->nrows = 0;
	for (i = 0; i < n; i++) {
		if (obs_left_out(o, i, skip, skip_m))
			continue;
		for (r = 0; r < c->nrows; r++)
			if (c->rows[r].m_kib == o[i].m_kib)
				break;
		if (r == c->nrows) {
			if (c->nrows == MODEL_ROWS_MAX)
				continue;
			memset(&c->rows[r], 0, sizeof(c->rows[r]));
			c->rows[r].m_kib = o[i].m_kib;
			c->nrows++;
		}
	}
	/* Ascending m. */
	for (i = 1; i < c->nrows; i++)
		for (j = i; j > 0 && c->rows[j - 1].m_kib > c->rows[j].m_kib; j--) {
			struct model_row tmp = c->rows[j];

			c->rows[j] = c->rows[j - 1];
			c->rows[j - 1] = tmp;
		}

	/* Rows with two or more t: weighted least squares. */
	for (r = 0; r < c->nrows; r++) {
		st = sT = stt = stT = cnt = sw = 0;
		for (i = 0; i < n; i++) {
			if (obs_left_out(o, i, skip, skip_m) ||
			    o[i].m_kib != c->rows[r].m_kib)
				continue;
			st += o[i].w * o[i].t;
			sT += o[i].w * o[i].ms;
			stt += o[i].w * o[i].t * o[i].t;
			stT += o[i].w * o[i].t * o[i].ms;
			sw += o[i].w;
			cnt++;
		}
		c->rows[r].nt = (int)cnt;
		if (sw * stt - st * st > 1e-9 * sw * sw) {
			double b = (sw * stT - st * sT) / (sw * stt - st * st);
			double a = (sT - b * st) / sw;

			if (b > 0 && a >= 0) {
				c->rows[r].a_ms = a;
				c->rows[r].b_ms = b;
				fitted[r] = 1;
				continue;
			}
		}
	}
	/*
	 * The others (one t measured): the nearest fitted sizes' shape, their
	 * fixed and pass costs per KiB in the same proportion, scaled to the
	 * point. Where their pass cost alone already takes the point's time,
	 * no fixed cost: a pass of the point's time over its t (libargon2 at
	 * 8 MiB, its memory reused by the allocator, has next to none).
	 * Refitted on 9 stored quick runs (bench/refit.py): the libsodium
	 * curves' worst leave-one-out error 15.0 % at the median, where taking
	 * the pass cost per KiB alone from them, the rest a fixed cost, gave
	 * 26.6 % (the cost per KiB grows with m, the fixed one with it:
	 * docs/BENCHMARKS.md).
	 */
	for (r = 0; r < c->nrows; r++) {
		if (fitted[r])
			continue;
		sw = 0;
		for (i = 0; i < n; i++) {
			if (obs_left_out(o, i, skip, skip_m) ||
			    o[i].m_kib != c->rows[r].m_kib)
				continue;
			t_one += o[i].w * o[i].t;
			T_one += o[i].w * o[i].ms;
			sw += o[i].w;
		}
		t_one /= sw;
		T_one /= sw;
		if (shape_near(c, fitted, c->rows[r].m_kib, &A, &B) == 0 &&
		    B * c->rows[r].m_kib * t_one < T_one) {
			/* A + B t_one > 0: fitted rows have b > 0 and a >= 0,
			   so B > 0 and A >= 0; t_one >= 1. */
			scale = T_one / (c->rows[r].m_kib * (A + B * t_one));
			c->rows[r].a_ms = scale * A * c->rows[r].m_kib;
			c->rows[r].b_ms = scale * B * c->rows[r].m_kib;
		} else {
			c->rows[r].b_ms = T_one / t_one;
			c->rows[r].a_ms = 0;
		}
		t_one = T_one = 0;
	}
}

static double curve_t1(const struct model_curve *, uint32_t, uint32_t,
    int *);

/*
 * The leave-one-out errors of c's points in o (those not set aside): each
 * left out, the rest refitted, the point predicted. Into errs (one per
 * point fitted, in o's order; -1 for a point set aside); returns the
 * worst, or 0 when there are too few points to refit without one.
 */
static double
curve_loo(const struct obs *o, size_t n, const struct model_curve *c,
    double *errs)
{
	struct model_curve	tmp;
	size_t			i, fitted = 0;
	double			worst = 0;
	int			ext;

	for (i = 0; i < n; i++)
		fitted += !o[i].aside;
	for (i = 0; i < n; i++) {
		errs[i] = -1;
		if (o[i].aside || fitted < MODEL_LOO_MIN_POINTS)
			continue;
		tmp = *c;
		fit_rows(o, n, (long)i, SKIP_NO_M, &tmp);
		errs[i] = fabs(curve_t1(&tmp, o[i].m_kib, o[i].t, &ext) -
		    o[i].ms) / o[i].ms;
		if (errs[i] > worst)
			worst = errs[i];
	}
	return worst;
}

/*
 * Robust fitting: a point the rest of the curve contradicts is set aside,
 * so that one noisy point does not bend the answers near it. When the
 * curve's worst leave-one-out error is over MODEL_OUTLIER_MIN, each of
 * the MODEL_OUTLIER_TRY points with the largest errors is tried out: the
 * one whose leaving makes the worst error smallest is set aside if that
 * at least halves it (one point explains the error); again, at most one
 * point in MODEL_OUTLIER_DIV. Only points between the smallest and the
 * largest size are tried: at an edge the neighbours' costs are an
 * extrapolation, and the costs per KiB do change with m (a noisy point
 * there shows in the error instead). Records what it set aside in
 * c->aside, with what the others predict for it.
 */
static void
set_aside_outliers(struct obs *o, size_t n, struct model_curve *c)
{
	struct model_curve	tmp;
	double			errs[OBS_MAX], e2[OBS_MAX], worst, best, w;
	size_t			i, j, k, pick, tried;
	uint32_t		lo, hi;
	int			ext;

	c->naside = 0;
	if (n < MODEL_LOO_MIN_POINTS + 1 || n > MODEL_OUTLIER_N_MAX)
		return;
	while (c->naside < MODEL_ASIDE_MAX &&
	    (c->naside + 1) * MODEL_OUTLIER_DIV <= n) {
		worst = curve_loo(o, n, c, errs);
		if (worst <= MODEL_OUTLIER_MIN)
			break;
		lo = hi = 0;
		for (i = 0; i < n; i++) {
			if (o[i].aside)
				continue;
			if (lo == 0 || o[i].m_kib < lo)
				lo = o[i].m_kib;
			if (o[i].m_kib > hi)
				hi = o[i].m_kib;
		}
		/* The largest errors first: try at most MODEL_OUTLIER_TRY. */
		pick = n;
		best = worst;
		for (tried = 0; tried < MODEL_OUTLIER_TRY; tried++) {
			for (k = n, i = 0; i < n; i++)
				if (errs[i] > MODEL_OUTLIER_MIN &&
				    o[i].m_kib != lo &&
				    o[i].m_kib != hi && (k == n ||
				    errs[i] > errs[k]))
					k = i;
			if (k == n)
				break;
			errs[k] = -1;	/* tried */
			o[k].aside = 1;
			w = curve_loo(o, n, c, e2);
			o[k].aside = 0;
			if (w < best) {
				best = w;
				pick = k;
			}
		}
		if (pick == n || best > worst / 2)
			break;
		o[pick].aside = 1;
		j = c->naside++;
		c->aside[j].m_kib = o[pick].m_kib;
		c->aside[j].t = o[pick].t;
		c->aside[j].measured_ms = o[pick].ms;
		tmp = *c;
		fit_rows(o, n, SKIP_NONE, SKIP_NO_M, &tmp);
		c->aside[j].predicted_ms = curve_t1(&tmp, o[pick].m_kib,
		    o[pick].t, &ext);
	}
}

/*
 * How the per-KiB cost of a hash grows with m above the largest size: the
 * least-squares slope of the rows' t = 1 per-KiB costs against log m,
 * over the rows from an eighth of the largest m up (the top
 * MODEL_GROW_WINDOW at least), relative to the largest row's cost. 0 with
 * fewer than MODEL_GROW_ROWS rows or a falling cost; at most
 * MODEL_GROW_MAX. Two rows in the window make a line: reaching further
 * down takes in sizes whose costs differ for other reasons (libargon2's
 * 8 MiB, under glibc's mmap threshold, has next to no fixed cost: with
 * its 256 MiB left out, 8, 32 and 128 MiB put the growth at its ceiling).
 * Refitted on 12 quick runs, the libargon2 curve's worst leave-one-out
 * error 11.5 % at the median, 13.3 % with three rows at least
 * (docs/BENCHMARKS.md).
 */
static double
curve_growth(const struct model_curve *c)
{
	const struct model_row	*hi;
	double			 sx = 0, sy = 0, sxx = 0, sxy = 0, x, y, d, g;
	size_t			 i, n = 0;

	if (c->nrows < MODEL_GROW_ROWS)
		return 0;
	hi = &c->rows[c->nrows - 1];
	for (i = c->nrows; i-- > 0;) {
		if (n >= MODEL_GROW_WINDOW &&
		    c->rows[i].m_kib < hi->m_kib / 8)
			break;
		x = log((double)c->rows[i].m_kib / hi->m_kib);
		y = (c->rows[i].a_ms + c->rows[i].b_ms) / c->rows[i].m_kib;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	d = n * sxx - sx * sx;
	if (!(d > 0) || !(hi->a_ms + hi->b_ms > 0))
		return 0;
	g = (n * sxy - sx * sy) / d / ((hi->a_ms + hi->b_ms) / hi->m_kib);
	if (!(g > 0))
		return 0;
	return g > MODEL_GROW_MAX ? MODEL_GROW_MAX : g;
}

/*
 * Per-KiB costs at m (interpolated in log m); 1 when extrapolated. Below
 * the smallest size, the smallest's; above the largest, the largest's
 * grown as the sizes under it grew (curve_growth(), linear in log m; the
 * t = 1 cost's growth, both costs grown by it), up to MODEL_EXTRAPOLATE
 * x the largest and held there (a preset or a hash checked past it):
 * measured here, libsodium's cost per KiB of a pass rose about 8 % for
 * each doubling of m from 64 to 640 MiB, and a flat cost put the medians
 * of answers past the largest size measured 4-6 % over the model's
 * (docs/BENCHMARKS.md).
 */
static int
curve_costs(const struct model_curve *c, uint32_t m_kib, double *A, double *B)
{
	const struct model_row	*lo, *hi;
	size_t			 i;
	double			 x;

	if (c->nrows == 0) {
		*A = *B = 0;
		return 1;
	}
	lo = &c->rows[0];
	hi = &c->rows[c->nrows - 1];
	if (m_kib <= lo->m_kib) {
		*A = lo->a_ms / lo->m_kib;
		*B = lo->b_ms / lo->m_kib;
		return m_kib < lo->m_kib;
	}
	if (m_kib >= hi->m_kib) {
		/* Grown up to MODEL_EXTRAPOLATE x the largest, held past it. */
		x = (double)m_kib / hi->m_kib;
		x = 1 + curve_growth(c) * log(x < MODEL_EXTRAPOLATE ? x :
		    MODEL_EXTRAPOLATE);
		*A = hi->a_ms / hi->m_kib * x;
		*B = hi->b_ms / hi->m_kib * x;
		return m_kib > hi->m_kib;
	}
	for (i = 0; i + 1 < c->nrows; i++) {
		lo = &c->rows[i];
		hi = &c->rows[i + 1];
		if (m_kib >= lo->m_kib && m_kib <= hi->m_kib)
			break;
	}
	x = (log(m_kib) - log(lo->m_kib)) / (log(hi->m_kib) - log(lo->m_kib));
	*A = lo->a_ms / lo->m_kib + x * (hi->a_ms / hi->m_kib -
	    lo->a_ms / lo->m_kib);
	*B = lo->b_ms / lo->m_kib + x * (hi->b_ms / hi->m_kib -
	    lo->b_ms / lo->m_kib);
	return 0;
}

static double
curve_t1(const struct model_curve *c, uint32_t m_kib, uint32_t t, int *ext)
{
	double	A, B;

	*ext = curve_costs(c, m_kib, &A, &B);
	return (double)m_kib * (A + B * (double)t);
}

uint32_t
model_curve_min_m(const struct model_curve *c)
{
	return c->nrows ? c->rows[0].m_kib : 0;
}

uint32_t
model_curve_max_m(const struct model_curve *c)
{
	return c->nrows ? c->rows[c->nrows - 1].m_kib : 0;
}

const struct model_curve *
model_curve_find(const struct model *m, enum kdf_backend backend,
    enum kdf_alg variant, uint32_t p)
{
	size_t	i;

	for (i = 0; i < m->ncurves; i++)
		if (m->curves[i].backend == backend &&
		    m->curves[i].variant == variant && m->curves[i].p == p)
			return &m->curves[i];
	return NULL;
}

/* The run's own curves (not other_run): what the model's figures cover. */
static size_t
model_own_curves(const struct model *m)
{
	size_t	i, n = 0;

	for (i = 0; i < m->ncurves; i++)
		n += !m->curves[i].other_run;
	return n;
}

const struct model_curve *
model_loo_worst_curve(const struct model *m)
{
	const struct model_curve	*w = NULL;
	size_t				 i;

	/* Of the run's own curves, as the model's figures. */
	for (i = 0; i < m->ncurves; i++)
		if (m->curves[i].loo_n > 0 && !m->curves[i].other_run &&
		    (w == NULL || m->curves[i].loo_worst > w->loo_worst))
			w = &m->curves[i];
	return w;
}

const struct model_curve *
model_deciding_curve(const struct model *m)
{
	const struct model_curve	*c;

	size_t				 i;

	/* The run's own curves first: another run's is not judged here. */
	if ((c = model_curve_find(m, KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID,
	    1)) != NULL && !c->other_run)
		return c;
	for (i = 0; i < m->ncurves; i++)
		if (!m->curves[i].other_run)
			return &m->curves[i];
	if (c != NULL)
		return c;
	return m->ncurves > 0 ? &m->curves[0] : NULL;
}

void
model_curve_label(const struct model_curve *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s p = %u", kdf_backend_name(c->backend),
	    kdf_alg_name(c->variant), (unsigned)c->p);
}

void
model_loo_text(const struct model *m, char *buf, size_t len)
{
	const struct model_curve	*w = model_loo_worst_curve(m);
	char				 label[64];

	if (!m->loo_known) {
		snprintf(buf, len, "leave-one-out error unknown (too few "
		    "points)");
		return;
	}
	label[0] = '\0';
	if (model_own_curves(m) > 1 && w != NULL)
		model_curve_label(w, label, sizeof(label));
	/* The worst of the curve named, so that the two agree. */
	snprintf(buf, len, "leave-one-out error median %.1f %%, worst %.1f "
	    "%%%s%s%s", 100 * m->loo_median, 100 * (label[0] ? w->loo_worst :
	    m->loo_worst), label[0] ? " (the " : "", label, label[0] ?
	    " curve)" : "");
}

/*
 * The factors measured at k = m->conc[first .. last] (one k, ascending m),
 * interpolated in log m at m_kib (the nearest outside).
 */
static void
conc_at_m(const struct model *m, size_t first, size_t last, uint32_t m_kib,
    double *factor, double *f95, double *f99)
{
	const struct model_conc	*lo = &m->conc[first], *hi = &m->conc[last];
	size_t			 i;
	double			 x;

	if (m_kib <= lo->m_kib || first == last) {
		*factor = lo->factor;
		*f95 = lo->f95;
		*f99 = lo->f99;
		return;
	}
	if (m_kib >= hi->m_kib) {
		*factor = hi->factor;
		*f95 = hi->f95;
		*f99 = hi->f99;
		return;
	}
	for (i = first; i < last; i++) {
		lo = &m->conc[i];
		hi = &m->conc[i + 1];
		if (m_kib >= lo->m_kib && m_kib <= hi->m_kib)
			break;
	}
	x = (log(m_kib) - log(lo->m_kib)) / (log(hi->m_kib) - log(lo->m_kib));
	*factor = lo->factor + x * (hi->factor - lo->factor);
	*f95 = lo->f95 + x * (hi->f95 - lo->f95);
	*f99 = lo->f99 + x * (hi->f99 - lo->f99);
}

/* The entries of the i-th distinct k: [*first, *last]; 0 when none. */
static int
conc_group(const struct model *m, size_t i, size_t *first, size_t *last)
{
	size_t	g = 0, j = 0;

	while (j < m->nconc) {
		*first = j;
		while (j + 1 < m->nconc && m->conc[j + 1].k == m->conc[j].k)
			j++;
		*last = j;
		if (g++ == i)
			return 1;
		j++;
	}
	return 0;
}

/*
 * Concurrency factors at k and m: interpolated in log m within each
 * measured k, then linearly between measured k. 1 when extrapolated.
 */
static int
conc_at(const struct model *m, uint32_t k, uint32_t m_kib, double *factor,
    double *f95, double *f99)
{
	size_t		f0, l0, f1, l1, g;
	double		a[3], b[3], x;
	uint32_t	k0, k1;
	int		cpus = m->effective_cpus > 0 ? m->effective_cpus : 1;

	*factor = 1;
	*f95 = *f99 = 1;
	if (m->nconc == 0)
		return k > 1;
	for (g = 0; conc_group(m, g, &f0, &l0); g++) {
		k0 = m->conc[f0].k;
		if (!conc_group(m, g + 1, &f1, &l1) || m->conc[f1].k > k)
			break;
	}
	conc_at_m(m, f0, l0, m_kib, &a[0], &a[1], &a[2]);
	k0 = m->conc[f0].k;
	if (k == k0) {
		*factor = a[0];
		*f95 = a[1];
		*f99 = a[2];
		return 0;
	}
	if (k < k0) {
		*factor = a[0];
		*f95 = a[1];
		*f99 = a[2];
		return 1;
	}
	if (!conc_group(m, g + 1, &f1, &l1)) {
		/* Past what was measured: hashes beyond the cores queue. */
		*factor = a[0];
		if (k > (uint32_t)cpus)
			*factor *= (double)k / (k0 > (uint32_t)cpus ? k0 :
			    (uint32_t)cpus);
		*f95 = a[1];
		*f99 = a[2];
		return 1;
	}
	conc_at_m(m, f1, l1, m_kib, &b[0], &b[1], &b[2]);
	k1 = m->conc[f1].k;
	x = (double)(k - k0) / (double)(k1 - k0);
	*factor = a[0] + x * (b[0] - a[0]);
	*f95 = a[1] + x * (b[1] - a[1]);
	*f99 = a[2] + x * (b[2] - a[2]);
	return 0;
}

/* Is pt a measured answer on c, with numbers that can be used? */
static int
check_point_usable(const struct model_curve *c,
    const struct model_check_point *pt)
{
	return pt->backend == c->backend && pt->variant == c->variant &&
	    pt->p == c->p && pt->m_kib > 0 && pt->t > 0 &&
	    pt->median_ms > 0 && isfinite(pt->median_ms);
}

double
model_check_factor(const struct model_curve *c, uint32_t m_kib)
{
	double	lg, fade = 1, past = 0;
	uint32_t at = m_kib;

	if (c->chk_n == 0)
		return 1;
	/* Beyond the sizes checked: faded out over MODEL_CHECK_REACH. */
	if (at < c->chk_mlo) {
		past = log((double)c->chk_mlo / at);
		at = c->chk_mlo;
	} else if (at > c->chk_mhi) {
		past = log((double)at / c->chk_mhi);
		at = c->chk_mhi;
	}
	if (past > 0)
		fade = past >= log(MODEL_CHECK_REACH) ? 0 :
		    1 - past / log(MODEL_CHECK_REACH);
	lg = c->chk_a + c->chk_b * log((double)at / c->chk_m0);
	if (!isfinite(lg))
		return 1;
	lg *= fade;
	if (lg < log(MODEL_CHECK_G_MIN))
		lg = log(MODEL_CHECK_G_MIN);
	if (lg > log(MODEL_CHECK_G_MAX))
		lg = log(MODEL_CHECK_G_MAX);
	return exp(lg);
}

size_t
model_fit_checks(struct model *m, const struct model_check_point *pts,
    size_t n)
{
	struct model_curve	*c;
	size_t			 i, j, used = 0;
	double			 w, x, y, sw, sx, sy, sxx, sxy, base;
	int			 ext;

	for (j = 0; j < m->ncurves; j++) {
		c = &m->curves[j];
		c->chk_n = 0;
		c->chk_a = c->chk_b = 0;
		c->chk_mlo = c->chk_mhi = c->chk_m0 = 0;
		for (i = 0; i < n; i++) {
			if (!check_point_usable(c, &pts[i]))
				continue;
			if (c->chk_mlo == 0 || pts[i].m_kib < c->chk_mlo)
				c->chk_mlo = pts[i].m_kib;
			if (pts[i].m_kib > c->chk_mhi)
				c->chk_mhi = pts[i].m_kib;
		}
		if (c->chk_mlo == 0)
			continue;
		c->chk_m0 = c->chk_mlo;
		sw = sx = sy = sxx = sxy = 0;
		for (i = 0; i < n; i++) {
			if (!check_point_usable(c, &pts[i]))
				continue;
			base = curve_t1(c, pts[i].m_kib, pts[i].t, &ext);
			if (!(base > 0) || !isfinite(base))
				continue;
			/* Weighted by samples, up to MODEL_CHECK_W_MAX: many
			   cheap checks do not outweigh the costly ones. */
			w = pts[i].n == 0 ? 1 : pts[i].n > MODEL_CHECK_W_MAX ?
			    MODEL_CHECK_W_MAX : (double)pts[i].n;
			x = log((double)pts[i].m_kib / c->chk_m0);
			y = log(pts[i].median_ms / base);
			sw += w;
			sx += w * x;
			sy += w * y;
			sxx += w * x * x;
			sxy += w * x * y;
			c->chk_n++;
		}
		if (c->chk_n == 0)
			continue;
		used += c->chk_n;
		if (c->chk_n >= 3 && (double)c->chk_mhi / c->chk_mlo >=
		    MODEL_CHECK_SPAN && sw * sxx - sx * sx > 1e-12 * sw * sw) {
			c->chk_b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx);
			c->chk_a = (sy - c->chk_b * sx) / sw;
		} else {
			c->chk_b = 0;
			c->chk_a = sy / sw;
		}
		if (!isfinite(c->chk_a) || !isfinite(c->chk_b)) {
			used -= c->chk_n;
			c->chk_n = 0;
			c->chk_a = c->chk_b = 0;
		}
	}
	return used;
}

void
model_predict(const struct model *m, const struct model_curve *c,
    uint32_t m_kib, uint32_t t, uint32_t k, int q,
    struct model_prediction *out)
{
	double	base, factor, f95, f99;
	int	ext_m, ext_k;

	base = curve_t1(c, m_kib, t, &ext_m) * model_check_factor(c, m_kib);
	ext_k = conc_at(m, k, m_kib, &factor, &f95, &f99);
	out->p50_ms = base * factor;
	out->ms = out->p50_ms * (q >= 99 ? f99 : q >= 95 ? f95 : 1);
	out->extrapolated = ext_m || ext_k;
}

/* The k = 1 median of the same costs on the same curve, or 0. */
static double
report_base_median(const struct report *rep, const struct measure_result *r)
{
	size_t	i;

	for (i = 0; i < rep->n; i++) {
		const struct measure_result *b = &rep->results[i];

		if (b->status == MEASURE_OK && b->pt.k == 1 &&
		    b->pt.kp.alg == r->pt.kp.alg &&
		    b->pt.kp.backend == r->pt.kp.backend &&
		    b->pt.kp.m_kib == r->pt.kp.m_kib &&
		    b->pt.kp.t == r->pt.kp.t && b->pt.kp.p == r->pt.kp.p &&
		    b->st.median > 0)
			return b->st.median;
	}
	return 0;
}

/*
 * The tail of every hash the group timed (k; its size, 0: all), each
 * over its point's median, pooled: a point's own p95 is the largest of
 * its few samples, which a host whose speed moves from one second to the
 * next shows only now and then, where a service timing fifteen hashes
 * meets it (on the test VM, points' own p95 over their median 1.09 at
 * the median, pooled 1.31; fifteen hashes timed apart, 1.04 to 1.49).
 * Hashes under MODEL_TAIL_MIN_MS do not count (a tick of the scheduler is
 * a large ratio there). Raises *f95 and *f99, never lowers them; nothing
 * with fewer than MODEL_TAIL_MIN_N samples.
 */
/* Does the pool of k (and m_kib, 0: any) take r's hashes? */
static int
pool_takes(const struct measure_result *r, uint32_t k, uint32_t m_kib)
{
	return r->status == MEASURE_OK && r->pt.k == k &&
	    kdf_alg_is_argon2(r->pt.kp.alg) &&
	    r->st.median >= MODEL_TAIL_MIN_MS && isfinite(r->st.median) &&
	    (m_kib == 0 || r->pt.kp.m_kib == m_kib) && r->samples != NULL;
}

static void
pool_tail(const struct report *rep, uint32_t k, uint32_t m_kib, double *f95,
    double *f99)
{
	double	*pool;
	size_t	 i, j, n = 0, cap = 0;

	for (i = 0; i < rep->n; i++)
		if (pool_takes(&rep->results[i], k, m_kib))
			cap += rep->results[i].nsamples;
	if (cap < MODEL_TAIL_MIN_N || (pool = malloc(cap * sizeof(*pool))) ==
	    NULL)
		return;
	for (i = 0; i < rep->n; i++) {
		const struct measure_result *r = &rep->results[i];

		if (!pool_takes(r, k, m_kib))
			continue;
		for (j = 0; j < r->nsamples; j++)
			if (r->samples[j] > 0 && isfinite(r->samples[j]))
				pool[n++] = r->samples[j] / r->st.median;
	}
	if (n >= MODEL_TAIL_MIN_N) {
		double	q95, q99;

		stats_sort(pool, n);
		/* Not past 3 x: a pool that says more is a broken run. */
		q95 = fmin(stats_rank(pool, n, 95), MODEL_TAIL_MAX);
		q99 = fmin(stats_rank(pool, n, 99), MODEL_TAIL_MAX);

		if (q95 > *f95)
			*f95 = q95;
		if (q99 > *f99)
			*f99 = q99;
		if (*f99 < *f95)
			*f99 = *f95;
	}
	free(pool);
}

static void
fit_concurrency(const struct report *rep, struct model *m)
{
	double		factors[OBS_MAX], r95[OBS_MAX], r99[OBS_MAX], base;
	double		own95;
	uint32_t	sizes[OBS_MAX], k, kmax = 1, mm;
	size_t		i, j, n, ns;

	for (i = 0; i < rep->n; i++)
		if (rep->results[i].status == MEASURE_OK &&
		    rep->results[i].pt.k > kmax)
			kmax = rep->results[i].pt.k;
	m->nconc = 0;
	m->tail_gain = 1;
	for (k = 1; k <= kmax; k++) {
		/* The sizes measured at this k, ascending; k = 1: all in one. */
		ns = 0;
		for (i = 0; i < rep->n && ns < OBS_MAX; i++) {
			const struct measure_result *r = &rep->results[i];

			if (r->status != MEASURE_OK || r->pt.k != k ||
			    !kdf_alg_is_argon2(r->pt.kp.alg))
				continue;
			mm = k == 1 ? 0 : r->pt.kp.m_kib;
			for (j = 0; j < ns && sizes[j] != mm; j++)
				;
			if (j == ns)
				sizes[ns++] = mm;
		}
		for (i = 1; i < ns; i++)
			for (j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
				mm = sizes[j];
				sizes[j] = sizes[j - 1];
				sizes[j - 1] = mm;
			}
		for (j = 0; j < ns && m->nconc < MODEL_CONC_MAX; j++) {
			n = 0;
			for (i = 0; i < rep->n && n < OBS_MAX; i++) {
				const struct measure_result *r =
				    &rep->results[i];

				if (r->status != MEASURE_OK || r->pt.k != k ||
				    !kdf_alg_is_argon2(r->pt.kp.alg) ||
				    r->st.median <= 0 ||
				    (k > 1 && r->pt.kp.m_kib != sizes[j]))
					continue;
				base = k == 1 ? r->st.median :
				    report_base_median(rep, r);
				if (base <= 0)
					continue;
				factors[n] = r->st.median / base;
				r95[n] = r->st.p95 / r->st.median;
				r99[n] = (r->st.p99 > 0 ? r->st.p99 :
				    r->st.max) / r->st.median;
				n++;
			}
			if (n == 0)
				continue;
			m->conc[m->nconc].k = k;
			m->conc[m->nconc].m_kib = sizes[j];
			m->conc[m->nconc].factor = k == 1 ? 1 :
			    stats_median_sort(factors, n);
			m->conc[m->nconc].f95 = stats_median_sort(r95, n);
			m->conc[m->nconc].f99 = stats_median_sort(r99, n);
			own95 = m->conc[m->nconc].f95;
			pool_tail(rep, k, k == 1 ? 0 : sizes[j],
			    &m->conc[m->nconc].f95, &m->conc[m->nconc].f99);
			/* A p95 under the median is not a run's: no gain. */
			if (k == 1 && own95 >= 1)
				m->tail_gain = m->conc[m->nconc].f95 / own95;
			m->nconc++;
		}
	}
	/*
	 * Hashes at once spread at least as wide as one alone: a point at
	 * k > 1 has too few hashes for a pool of its own, and its largest
	 * few miss the host's slow seconds as a k = 1 point's do. Timed
	 * apart, the p95 over the median at k = 2 was over k = 1's at every
	 * size from 64 MiB to 1 GiB (bench/repeat.py, docs/BENCHMARKS.md),
	 * where a run's k = 2 points said 1.03 to 1.08 and its k = 1 pool
	 * 1.18.
	 */
	for (j = 0; j < m->nconc && m->conc[j].k != 1; j++)
		;
	if (j < m->nconc)
		for (i = 0; i < m->nconc; i++) {
			if (m->conc[i].k == 1)
				continue;
			if (m->conc[i].f95 < m->conc[j].f95)
				m->conc[i].f95 = m->conc[j].f95;
			if (m->conc[i].f99 < m->conc[j].f99)
				m->conc[i].f99 = m->conc[j].f99;
		}
}

const char *
model_quality_name(enum model_quality q)
{
	return q == MODEL_QUALITY_POOR ? "poor" : "good";
}

/* Append one reason to the verdict's line. */
static void
judge_add(struct model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
judge_add(struct model *m, const char *fmt, ...)
{
	size_t	len = strlen(m->quality_why);
	va_list	ap;

	if (len > 0 && len + 2 < sizeof(m->quality_why)) {
		memcpy(m->quality_why + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(m->quality_why + len, sizeof(m->quality_why) - len, fmt,
	    ap);
	va_end(ap);
	m->quality = MODEL_QUALITY_POOR;
}

/*
 * The points set aside, after the verdict's reason (they do not make a
 * model poor: the fit went on without them): "1 point set aside (64 MiB,
 * t = 3: 41 % over what the others predict)".
 */
static void
judge_aside(struct model *m)
{
	const struct model_aside	*a = NULL;
	size_t				 i, len;
	double				 off;

	for (i = 0; i < m->ncurves && a == NULL; i++)
		if (m->curves[i].naside > 0 && !m->curves[i].other_run)
			a = &m->curves[i].aside[0];
	len = strlen(m->quality_why);
	if (a == NULL || len + 2 >= sizeof(m->quality_why))
		return;
	off = 100 * (a->measured_ms / a->predicted_ms - 1);
	snprintf(m->quality_why + len, sizeof(m->quality_why) - len, "; %zu "
	    "point%s set aside as out of line (%s%.4g MiB, t = %u: %.0f %% %s "
	    "what the others predict)", m->naside, m->naside == 1 ? "" : "s",
	    m->naside > 1 ? "the worst " : "", a->m_kib / 1024.0,
	    (unsigned)a->t, fabs(off), off > 0 ? "over" : "under");
}

/*
 * The verdict (model.h): too few points on the default answer's curve for
 * an error, its worst error over MODEL_LOO_WORST_MAX, or too many noisy
 * points.
 */
static void
model_judge(const struct report *rep, struct model *m)
{
	const struct model_curve	*c;
	char				 label[64];
	size_t				 i, nc = model_own_curves(m);

	m->quality = MODEL_QUALITY_GOOD;
	m->quality_why[0] = '\0';
	m->npoints = m->nnoisy = 0;
	for (i = 0; i < rep->n; i++) {
		const struct measure_result *r = &rep->results[i];

		if (r->status != MEASURE_OK ||
		    !kdf_alg_is_argon2(r->pt.kp.alg) || r->st.median <= 0)
			continue;
		m->npoints++;
		m->nnoisy += r->noisy != 0;
	}
	/*
	 * The curve the default answer stands on (libsodium's Argon2id at
	 * p = 1 when measured, else the first) decides: a second library
	 * the quick profile samples at a few sizes only does not make every
	 * answer poor; its own stacks' answers carry their correction.
	 */
	if ((c = model_deciding_curve(m)) == NULL)
		return;		/* no curve: model_fit fails before */
	model_curve_label(c, label, sizeof(label));
	if (c->loo_n == 0) {
		if (nc <= 1)
			judge_add(m, "fitted on %zu point%s at k = 1: too few "
			    "for a leave-one-out error (%d needed)",
			    c->npoints, c->npoints == 1 ? "" : "s",
			    MODEL_LOO_MIN_POINTS);
		else
			judge_add(m, "the %s curve was fitted on %zu point%s: "
			    "too few for a leave-one-out error (%d needed)",
			    label, c->npoints, c->npoints == 1 ? "" : "s",
			    MODEL_LOO_MIN_POINTS);
	}
	/* Of several curves, the one that decides is named. */
	if (c->loo_n > 0 && c->loo_worst > MODEL_LOO_WORST_MAX) {
		judge_add(m, "%s%s%sleave-one-out error up to %.1f %% (over "
		    "%.0f %%): an answer may miss its target by as much",
		    nc > 1 ? "the " : "", nc > 1 ? label : "",
		    nc > 1 ? " curve's " : "", 100 * c->loo_worst,
		    100 * MODEL_LOO_WORST_MAX);
	}
	if (m->nnoisy * MODEL_NOISY_MAX_DIV > m->npoints)
		judge_add(m, "%zu of %zu points flagged noisy (over a third): "
		    "the host was busy or the spread wide", m->nnoisy,
		    m->npoints);
	if (m->quality == MODEL_QUALITY_GOOD && nc > 1 && c->loo_n > 0) {
		const struct model_curve	*w = model_loo_worst_curve(m);
		char				 wl[64];

		/* The curve that decides, and a worse one beside it. */
		model_curve_label(w, wl, sizeof(wl));
		if (w != c)
			snprintf(m->quality_why, sizeof(m->quality_why),
			    "fitted on %zu points, leave-one-out error up to "
			    "%.1f %% on the %s curve that decides (%.1f %% on "
			    "the %s curve), %zu noisy", m->npoints -
			    m->naside, 100 * c->loo_worst, label,
			    100 * w->loo_worst, wl, m->nnoisy);
		else
			snprintf(m->quality_why, sizeof(m->quality_why),
			    "fitted on %zu points, leave-one-out error up to "
			    "%.1f %% (the %s curve), %zu noisy", m->npoints -
			    m->naside, 100 * c->loo_worst, label, m->nnoisy);
	} else if (m->quality == MODEL_QUALITY_GOOD)
		snprintf(m->quality_why, sizeof(m->quality_why), "fitted on "
		    "%zu points, leave-one-out error up to %.1f %%, %zu "
		    "noisy", m->npoints - m->naside, 100 * m->loo_worst,
		    m->nnoisy);
	if (m->naside > 0)
		judge_aside(m);
}

int
model_fit(const struct report *rep, struct model *m, char *err, size_t errlen)
{
	struct obs		*o;
	double			 all_err[OBS_MAX * 4], errs[OBS_MAX], loo[OBS_MAX];
	size_t			 i, j, n, nall = 0, ne;
	struct model_curve	*c;
	struct report		 own;

	memset(m, 0, sizeof(*m));
	snprintf(m->host_id, sizeof(m->host_id), "%s", rep->host.host_id);
	snprintf(m->fingerprint, sizeof(m->fingerprint), "%s",
	    rep->host.fingerprint);
	snprintf(m->created, sizeof(m->created), "%s", rep->created);
	m->mem_budget = rep->mem_budget;
	m->effective_cpus = rep->effective_cpus > 0 ? rep->effective_cpus :
	    host_usable_cpus(&rep->host);

	/* One curve per backend, variant and p with k = 1 points. */
	for (i = 0; i < rep->n; i++) {
		const struct measure_result *r = &rep->results[i];

		if (r->status != MEASURE_OK || r->pt.k != 1 ||
		    !kdf_alg_is_argon2(r->pt.kp.alg) || r->st.median <= 0)
			continue;
		if (model_curve_find(m, r->pt.kp.backend, r->pt.kp.alg,
		    r->pt.kp.p) != NULL || m->ncurves == MODEL_CURVES_MAX)
			continue;
		c = &m->curves[m->ncurves++];
		c->backend = r->pt.kp.backend;
		c->variant = r->pt.kp.alg;
		c->p = r->pt.kp.p;
		c->other_run = rep->merged && i >= rep->nown;
	}
	if (m->ncurves == 0) {
		snprintf(err, errlen, "no Argon2 point measured at k = 1: "
		    "nothing to fit");
		return -1;
	}
	/* Each call its own rows: fits run on several threads at once. */
	if ((o = calloc(OBS_MAX, sizeof(*o))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (j = 0; j < m->ncurves; j++) {
		c = &m->curves[j];
		n = 0;
		for (i = 0; i < rep->n && n < OBS_MAX; i++) {
			const struct measure_result *r = &rep->results[i];

			if (r->status != MEASURE_OK || r->pt.k != 1 ||
			    r->pt.kp.backend != c->backend ||
			    r->pt.kp.alg != c->variant || r->pt.kp.p != c->p ||
			    r->st.median <= 0)
				continue;
			o[n].m_kib = r->pt.kp.m_kib;
			o[n].t = r->pt.kp.t;
			o[n].ms = r->st.median;
			/* Weighted by its samples; a noisy point counts a
			   quarter of what it would. */
			o[n].w = (r->st.n > 0 ? (double)r->st.n : 1) *
			    (r->noisy ? MODEL_NOISY_WEIGHT : 1);
			o[n].aside = 0;
			n++;
		}
		set_aside_outliers(o, n, c);
		fit_rows(o, n, SKIP_NONE, SKIP_NO_M, c);
		c->npoints = n - c->naside;
		if (!c->other_run)
			m->naside += c->naside;
		/* Leave each point out, refit, predict it (if there are
		   enough to refit without it). */
		curve_loo(o, n, c, loo);
		ne = 0;
		for (i = 0; i < n; i++) {
			if (loo[i] < 0)
				continue;
			errs[ne++] = loo[i];
			/* The model's own figures are of its run's curves. */
			if (!c->other_run && nall < sizeof(all_err) /
			    sizeof(all_err[0]))
				all_err[nall++] = loo[i];
		}
		c->loo_n = ne;
		for (i = 0; i < ne; i++)
			if (errs[i] > c->loo_worst)
				c->loo_worst = errs[i];
		c->loo_median = stats_median_sort(errs, ne);
	}
	for (i = 0; i < nall; i++)
		if (all_err[i] > m->loo_worst)
			m->loo_worst = all_err[i];
	m->loo_median = stats_median_sort(all_err, nall);
	m->loo_known = nall > 0;
	/*
	 * The spread, the concurrency and the verdict from the run's own
	 * points: a grid another run measured adds its curve, and moves
	 * nothing the run's answers stand on.
	 */
	own = *rep;
	if (rep->merged && rep->nown < rep->n)
		own.n = rep->nown;
	fit_concurrency(&own, m);
	free(o);
	model_judge(&own, m);
	return 0;
}

json_t *
model_json_error(int known, double e)
{
	return known ? json_real(e) : json_null();
}

json_t *
model_to_json(const struct model *m)
{
	json_t	*curves = json_array(), *conc = json_array(), *rows, *aside;
	size_t	 i, j;

	for (i = 0; i < m->ncurves; i++) {
		const struct model_curve *c = &m->curves[i];

		aside = json_array();
		for (j = 0; j < c->naside; j++)
			json_array_append_new(aside, json_pack("{s:I, s:I, "
			    "s:f, s:f}", "m_kib", (json_int_t)c->aside[j].m_kib,
			    "t", (json_int_t)c->aside[j].t, "measured_ms",
			    c->aside[j].measured_ms, "predicted_ms",
			    c->aside[j].predicted_ms));
		rows = json_array();
		for (j = 0; j < c->nrows; j++)
			json_array_append_new(rows, json_pack("{s:I, s:f, s:f, "
			    "s:i}", "m_kib", (json_int_t)c->rows[j].m_kib,
			    "first_ms", c->rows[j].a_ms, "per_pass_ms",
			    c->rows[j].b_ms, "t_measured", c->rows[j].nt));
		/* No error measured: null, not 0. */
		json_array_append_new(curves, json_pack("{s:s, s:s, s:I, s:o, "
		    "s:o, s:o, s:o, s:{s:o, s:o, s:I}}",
		    "backend", kdf_backend_name(c->backend),
		    "variant", kdf_alg_name(c->variant),
		    "p", (json_int_t)c->p, "run_id", c->run_id > 0 ?
		    json_integer((json_int_t)c->run_id) : json_null(),
		    "rows", rows, "set_aside", aside, "checks", c->chk_n == 0 ?
		    json_null() : json_pack("{s:I, s:I, s:I, s:f, s:f}",
		    "points", (json_int_t)c->chk_n, "m_kib_min",
		    (json_int_t)c->chk_mlo, "m_kib_max", (json_int_t)c->chk_mhi,
		    "factor_at_min", model_check_factor(c, c->chk_mlo),
		    "factor_at_max", model_check_factor(c, c->chk_mhi)),
		    "error", "loo_median", model_json_error(c->loo_n > 0,
		    c->loo_median), "loo_worst", model_json_error(c->loo_n > 0,
		    c->loo_worst), "points", (json_int_t)c->npoints));
	}
	for (i = 0; i < m->nconc; i++)
		json_array_append_new(conc, json_pack("{s:I, s:I, s:f, s:f, "
		    "s:f}", "k", (json_int_t)m->conc[i].k, "m_kib",
		    (json_int_t)m->conc[i].m_kib, "factor", m->conc[i].factor,
		    "p95_over_median", m->conc[i].f95, "p99_over_median",
		    m->conc[i].f99));
	return json_pack("{s:o, s:o, s:{s:o, s:o}, s:i, s:s, s:s}",
	    "curves", curves, "concurrency", conc,
	    "error", "loo_median", model_json_error(m->loo_known,
	    m->loo_median), "loo_worst", model_json_error(m->loo_known,
	    m->loo_worst),
	    "effective_cpus", m->effective_cpus,
	    "quality", model_quality_name(m->quality),
	    "quality_reason", m->quality_why);
}
