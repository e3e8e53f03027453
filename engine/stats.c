/*
 * engine/stats.c: summary statistics for timing samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* t(0.9995, df) for df = 1..30 (two-sided 99.9 %). */
static const double t999_table[30] = {
	636.619, 31.599, 12.924, 8.610, 6.869, 5.959, 5.408, 5.041, 4.781,
	4.587, 4.437, 4.318, 4.221, 4.140, 4.073, 4.015, 3.965, 3.922, 3.883,
	3.850, 3.819, 3.792, 3.768, 3.745, 3.725, 3.707, 3.690, 3.674, 3.659,
	3.646
};

double
stats_t999(size_t df)
{
	/* Beyond the table, interpolate linearly in 1/df between knots. */
	static const struct { double df, t; } knots[] = {
		{ 30, 3.646 }, { 40, 3.551 }, { 60, 3.460 }, { 120, 3.373 },
		{ INFINITY, 3.291 }
	};
	size_t	i;
	double	x, x0, x1;

	if (df == 0)
		return INFINITY;
	if (df <= 30)
		return t999_table[df - 1];
	for (i = 0; i + 1 < sizeof(knots) / sizeof(knots[0]); i++) {
		if ((double)df <= knots[i + 1].df) {
			x = 1.0 / (double)df;
			x0 = 1.0 / knots[i].df;
			x1 = isinf(knots[i + 1].df) ? 0 : 1.0 / knots[i + 1].df;
			return knots[i].t + (knots[i + 1].t - knots[i].t) *
			    (x0 - x) / (x0 - x1);
		}
	}
	return 3.291;
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double
stats_median_sort(double *v, size_t n)
{
	if (n == 0)
		return 0;
	stats_sort(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
stats_percentile(const double *sorted, size_t n, double q)
{
	double	pos, frac;
	size_t	lo;

	if (n == 0)
		return 0;
	if (q <= 0)
		return sorted[0];
	if (q >= 100)
		return sorted[n - 1];
	pos = q / 100.0 * (double)(n - 1);
	lo = (size_t)pos;
	frac = pos - (double)lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double
stats_rank(const double *sorted, size_t n, double q)
{
	size_t	r;

	if (n == 0)
		return 0;
	if (!(q > 0))
		return sorted[0];
	if (q >= 100)
		return sorted[n - 1];
	r = (size_t)ceil(q / 100.0 * (double)n);
	return sorted[r < 1 ? 0 : r > n ? n - 1 : r - 1];
}

void
stats_compute(const double *samples, size_t n, struct stats *st)
{
	double	*s, sum = 0, ss = 0;
	size_t	 i;

	memset(st, 0, sizeof(*st));
	if (n == 0 || (s = malloc(n * sizeof(*s))) == NULL)
		return;
	memcpy(s, samples, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (i = 0; i < n; i++)
		sum += s[i];
	st->n = n;
	st->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (s[i] - st->mean) * (s[i] - st->mean);
	if (n > 1) {
		st->stddev = sqrt(ss / (double)(n - 1));
		st->error = stats_t999(n - 1) * st->stddev / sqrt((double)n);
	}
	st->min = s[0];
	st->max = s[n - 1];
	st->median = stats_percentile(s, n, 50);
	st->p95 = stats_percentile(s, n, 95);
	st->p99 = stats_percentile(s, n, 99);
	free(s);
}

double
stats_rel_error(const struct stats *st)
{
	return st->mean > 0 ? st->error / st->mean : 0;
}
