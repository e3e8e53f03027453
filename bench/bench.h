/*
 * bench/bench.h: what the benchmark programs share: a monotonic clock and
 * the median of their rounds.
 */
#ifndef PWTUNE_BENCH_H
#define PWTUNE_BENCH_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double
bench_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int
bench_cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n), n > 0; v is sorted. */
static inline double
bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* PWTUNE_BENCH_H */
