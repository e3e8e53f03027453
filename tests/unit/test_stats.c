/*
 * tests/unit/test_stats.c: engine/stats on data with known answers.
 */
#include <math.h>
#include <string.h>

#include "stats.h"
#include "verify.h"
#include "test.h"

#define ASSERT_NEAR(a, b, eps) do {					\
	double _a = (a), _b = (b);					\
	if (fabs(_a - _b) > (eps))					\
		TEST_FAIL("%s ~ %s: %.6f != %.6f", #a, #b, _a, _b);	\
} while (0)

TEST(one_to_ten)
{
	double		s[10] = { 7, 3, 10, 1, 5, 9, 2, 8, 4, 6 };
	struct stats	st;

	stats_compute(s, 10, &st);
	ASSERT_EQ(st.n, 10);
	ASSERT_NEAR(st.min, 1, 1e-12);
	ASSERT_NEAR(st.max, 10, 1e-12);
	ASSERT_NEAR(st.mean, 5.5, 1e-12);
	ASSERT_NEAR(st.median, 5.5, 1e-12);
	/* sqrt(sum((i - 5.5)^2) / 9) = sqrt(82.5 / 9) */
	ASSERT_NEAR(st.stddev, 3.0276503540974917, 1e-9);
	/* t(0.9995, 9) = 4.781: 4.781 * 3.02765 / sqrt(10) */
	ASSERT_NEAR(st.error, 4.781 * 3.0276503540974917 / sqrt(10), 1e-9);
	/* Type 7: 1 + 0.95 * 9 = 9.55 */
	ASSERT_NEAR(st.p95, 9.55, 1e-9);
	ASSERT_NEAR(st.p99, 9.91, 1e-9);
	/* The input is not reordered. */
	ASSERT_NEAR(s[0], 7, 0);
}

TEST(edge_sizes)
{
	double		one = 42, two[2] = { 1, 3 };
	struct stats	st;

	stats_compute(&one, 0, &st);
	ASSERT_EQ(st.n, 0);
	ASSERT_NEAR(st.mean, 0, 0);
	stats_compute(&one, 1, &st);
	ASSERT_NEAR(st.mean, 42, 0);
	ASSERT_NEAR(st.stddev, 0, 0);
	ASSERT_NEAR(st.error, 0, 0);
	ASSERT_NEAR(st.p95, 42, 0);
	stats_compute(two, 2, &st);
	ASSERT_NEAR(st.median, 2, 1e-12);
	ASSERT_NEAR(st.stddev, sqrt(2), 1e-12);
	ASSERT_NEAR(st.error, 636.619 * sqrt(2) / sqrt(2), 1e-9);
}

TEST(t_quantiles)
{
	ASSERT(isinf(stats_t999(0)));
	ASSERT_NEAR(stats_t999(1), 636.619, 1e-9);
	ASSERT_NEAR(stats_t999(4), 8.610, 1e-9);
	ASSERT_NEAR(stats_t999(30), 3.646, 1e-9);
	ASSERT_NEAR(stats_t999(40), 3.551, 1e-9);
	ASSERT_NEAR(stats_t999(120), 3.373, 1e-9);
	/* Between knots, and towards the normal quantile 3.291. */
	ASSERT(stats_t999(50) < 3.551 && stats_t999(50) > 3.460);
	ASSERT(stats_t999(100000) > 3.291 && stats_t999(100000) < 3.292);
	/* Decreasing everywhere. */
	for (size_t df = 1; df < 500; df++)
		ASSERT(stats_t999(df + 1) <= stats_t999(df));
}

TEST(relative_error)
{
	struct stats	st = { 0 };

	ASSERT_NEAR(stats_rel_error(&st), 0, 0);
	st.mean = 200;
	st.error = 4;
	ASSERT_NEAR(stats_rel_error(&st), 0.02, 1e-12);
}

/* The nearest rank, as a service reads its p95 off a few hashes. */
TEST(nearest_rank)
{
	static const double	v[] = { 1, 2, 3, 4, 5 };
	static const double	one[] = { 7 };

	ASSERT(stats_rank(v, 5, 80) == 4);
	ASSERT(stats_rank(v, 5, 81) == 5);
	ASSERT(stats_rank(v, 5, 95) == 5);
	ASSERT(stats_rank(v, 5, 50) == 3);
	ASSERT(stats_rank(v, 5, 20) == 1);
	ASSERT(stats_rank(v, 5, 0) == 1);
	ASSERT(stats_rank(v, 5, 100) == 5);
	ASSERT(stats_rank(v, 5, 1e300) == 5);
	ASSERT(stats_rank(v, 5, NAN) == 1);
	ASSERT(stats_rank(one, 1, 95) == 7);
	ASSERT(stats_rank(v, 0, 95) == 0);
	/* Fifteen hashes: the p95 is the largest. */
	{
		double	w[15];
		size_t	i;

		for (i = 0; i < 15; i++)
			w[i] = (double)i;
		ASSERT(stats_rank(w, 15, 95) == 14);
		ASSERT(stats_rank(w, 15, 90) == 13);
	}
}

/*
 * A verification's or a check's p95 is read at the nearest rank of its
 * samples, in any order (of ten: the largest; of twenty: the 19th), not
 * interpolated; its median is the interpolated one of r->st.
 */
TEST(verify_percentile_at_the_nearest_rank)
{
	struct measure_result	r;
	double			s[20];
	size_t			i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 20; i++)
		s[i] = (double)((i * 7) % 20) + 1;	/* 1..20, shuffled */
	r.samples = s;
	r.nsamples = 10;
	stats_compute(s, 10, &r.st);
	ASSERT(r.st.p95 < r.st.max);
	ASSERT(verify_percentile(&r, 95) == r.st.max);
	ASSERT(verify_percentile(&r, 50) == r.st.median);
	r.nsamples = 20;
	stats_compute(s, 20, &r.st);
	ASSERT(verify_percentile(&r, 95) == 19);
	ASSERT(verify_percentile(&r, 99) == 20);
	/* The samples are left as they were. */
	ASSERT(s[1] == 8 && s[2] == 15);
	/* None kept: r->st's. */
	r.samples = NULL;
	ASSERT(verify_percentile(&r, 95) == r.st.p95);
}

TEST_LIST(
	TEST_ENTRY(verify_percentile_at_the_nearest_rank),
	TEST_ENTRY(nearest_rank),
	TEST_ENTRY(one_to_ten),
	TEST_ENTRY(edge_sizes),
	TEST_ENTRY(t_quantiles),
	TEST_ENTRY(relative_error)
)
