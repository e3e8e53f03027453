/*
 * engine/stats: summary statistics of timing samples, as BenchmarkDotNet
 * reports them. "Error" is the half-width of the 99.9 % confidence interval
 * of the mean (Student's t, n - 1 degrees of freedom).
 */
#ifndef PWTUNE_STATS_H
#define PWTUNE_STATS_H

#include <stddef.h>

struct stats {
	size_t	n;
	double	min;
	double	median;
	double	mean;
	double	stddev;		/* sample standard deviation (n - 1) */
	double	error;		/* 99.9 % CI half-width of the mean */
	double	p95;
	double	p99;
	double	max;
};

/* stats.c */

/*
 * Summarise n samples (any unit; the results are in the same unit). The
 * samples are not changed. With n == 0 every field is 0; with n == 1,
 * stddev and error are 0.
 */
void	 stats_compute(const double *samples, size_t n, struct stats *st);

/*
 * The percentile q (0..100) of n samples, linear between order statistics
 * (the "type 7" of R and numpy). sorted must be in ascending order.
 */
double	 stats_percentile(const double *sorted, size_t n, double q);

/*
 * The value at rank q (0..100) of n samples, at the nearest rank (the
 * smallest sample with at least q % of them at or under it): how a
 * service reads its p95 off a few hashes. sorted must be in ascending
 * order; 0 when n == 0.
 */
double	 stats_rank(const double *sorted, size_t n, double q);

/* Sort v[0..n) ascending, in place. */
void	 stats_sort(double *v, size_t n);

/* Sort v[0..n) and return its median (the mean of the middle two of an
   even n; 0 when n is 0). */
double	 stats_median_sort(double *v, size_t n);

/* Two-sided 99.9 % quantile of Student's t with df degrees of freedom. */
double	 stats_t999(size_t df);

/* Relative error: error / mean, or 0 when the mean is 0. */
double	 stats_rel_error(const struct stats *st);

#endif /* PWTUNE_STATS_H */
