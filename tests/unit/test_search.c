/*
 * tests/unit/test_search.c: one target, measured: the percentile's
 * estimate, the memory-first answer, the memory cap, and a target the
 * floor does not let any answer meet. Small hashes only (m <= 64 MiB).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "search.h"
#include "test.h"
#define MIB_KIB	1024u

/* The estimate: the median plus z robust deviations, a tail's floor. */
TEST(percentile_estimate)
{
	double	flat[] = { 100, 100, 100, 100, 100, 100 };
	double	spread[] = { 96, 98, 100, 102, 104, 100, 99, 101 };
	double	tail[] = { 100, 100, 100, 100, 180, 170 };
	double	unc, e;

	/* No spread: 1 % of the median taken as the least deviation. */
	e = search_percentile(flat, 6, 95, &unc);
	ASSERT(fabs(e - 101.645) < 1e-6);
	ASSERT(unc > 0 && unc < 0.02);
	e = search_percentile(flat, 6, 50, &unc);
	ASSERT(fabs(e - 100) < 1e-9);
	/* Above the median: 1, 2, 4, RMS 2.65 (MAD's 2.22 less): 104.36. */
	e = search_percentile(spread, 8, 95, &unc);
	ASSERT(e > 104.3 && e < 104.4);
	ASSERT(search_percentile(spread, 8, 99, &unc) > e);
	/* Two slow samples in six: their deviation is the tail's (RMS 75). */
	e = search_percentile(tail, 6, 95, &unc);
	ASSERT(e > 223 && e < 224);
	ASSERT_EQ(search_percentile(tail, 0, 95, &unc), 0);
}

static void
query(struct tune_query *q, double target, uint64_t memory_max_kib,
    enum tune_floor floor)
{
	tune_query_init(q);
	q->target_ms = target;
	q->memory_max_kib = memory_max_kib;
	q->floor = floor;
}

static void
opts(struct search_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mem_budget = 64ULL << 20;
	o->cpus = 1;
}

/* Pooling: the same t, within 15 % of the m asked, scaled to it. */
TEST(pool_scales_near_samples)
{
	const struct search_sample h[] = {
		{ 100 * MIB_KIB, 1, 100 },	/* at m: as is */
		{ 110 * MIB_KIB, 1, 121 },	/* 10 % over: scaled down */
		{ 96 * MIB_KIB, 1, 96 },	/* 4 % under: near */
		{ 120 * MIB_KIB, 1, 300 },	/* 20 % over: left out */
		{ 80 * MIB_KIB, 1, 10 },	/* 20 % under: left out */
		{ 100 * MIB_KIB, 2, 999 },	/* another t: left out */
		{ 0, 1, 5 },			/* no m: left out */
	};
	double	out[7];
	size_t	n, near;

	n = search_pool(h, 7, 100 * MIB_KIB, 1, out, &near);
	ASSERT_EQ(n, 3);
	ASSERT_EQ(near, 2);
	ASSERT(fabs(out[0] - 100) < 1e-9);
	ASSERT(fabs(out[1] - 110) < 1e-9);
	ASSERT(fabs(out[2] - 100) < 1e-9);
	/* From 116 MiB: 120 is near, 110 in, 100 and 96 out. */
	n = search_pool(h, 7, 116 * MIB_KIB, 1, out, &near);
	ASSERT_EQ(n, 2);
	ASSERT_EQ(near, 1);
	ASSERT(fabs(out[0] - 121 * 116.0 / 110) < 1e-9);
	ASSERT(fabs(out[1] - 300 * 116.0 / 120) < 1e-9);
	ASSERT_EQ(search_pool(h, 7, 100 * MIB_KIB, 3, out, &near), 0);
	ASSERT_EQ(near, 0);
}

/* A target the memory reaches first: m at the cap, t = 1 or more. */
TEST(memory_first_answer_is_measured)
{
	struct tune_query	q;
	struct search_opts	o;
	struct search_result	r;
	char			err[256] = "";
	int			rc;

	query(&q, 40, 64 * MIB_KIB, TUNE_FLOOR_NONE);
	opts(&o);
	rc = search_target(&q, &o, &r, err, sizeof(err));
	printf("# 40 ms: m = %u KiB, t = %u, p95 %.1f ms (+-%.1f %%), "
	    "%zu hashes, %zu steps, %.2f s, in band %d\n", (unsigned)r.a.m_kib,
	    (unsigned)r.a.t, r.a.predicted_ms, 100 * r.uncertainty, r.hashes,
	    r.steps, r.seconds, r.in_band);
	if (rc != 0)
		TEST_FAIL("search_target: %d %s", rc, err);
	ASSERT(r.a.met);
	ASSERT(r.a.predicted_ms > 0 && r.a.predicted_ms <= 40);
	ASSERT(r.a.predicted_p50_ms > 0 &&
	    r.a.predicted_p50_ms <= r.a.predicted_ms);
	ASSERT(r.a.m_kib >= MIB_KIB && r.a.m_kib <= 64 * MIB_KIB);
	ASSERT_EQ(r.a.m_kib % MIB_KIB, 0);
	ASSERT(r.a.t >= 1);
	/* Memory-first: t grows only when m reached its cap. */
	ASSERT(r.a.t == 1 || r.a.m_kib == 64 * MIB_KIB);
	/* The samples pooled: hashed within 15 % of the answer's m, some
	   within 5 %, each one hashed once (the scale's are not pooled). */
	ASSERT(r.samples >= 1 && r.near >= 1 && r.near <= r.samples);
	ASSERT(r.hashes >= r.samples + 3);
	/* The scale, then one hash a step, at most SEARCH_HASHES_X times
	   the samples asked for. */
	ASSERT(r.steps >= 2 && r.steps <= 1 + SEARCH_HASHES_X *
	    SEARCH_SAMPLES);
	/* Settled in the band: on the samples asked for, at least. */
	ASSERT(r.stop != SEARCH_IN_BAND || r.samples >= SEARCH_SAMPLES);
	ASSERT(strstr(r.a.phc_prefix, "$argon2id$v=19$m=") != NULL);
	/* Why it ended: in the band exactly when said so; the cap at it. */
	printf("# stopped: %s\n", search_stop_name(r.stop));
	ASSERT(r.stop == SEARCH_OUT_OF_STEPS ||
	    r.in_band == (r.stop == SEARCH_IN_BAND));
	ASSERT(r.stop != SEARCH_AT_CAP || r.a.m_kib == 64 * MIB_KIB);
}

/* A cap of 4 MiB: m stays at it, more passes fill the target. */
TEST(cap_reached_more_passes)
{
	struct tune_query	q;
	struct search_opts	o;
	struct search_result	r;
	char			err[256] = "";
	int			rc;

	query(&q, 40, 4 * MIB_KIB, TUNE_FLOOR_NONE);
	opts(&o);
	rc = search_target(&q, &o, &r, err, sizeof(err));
	printf("# cap 4 MiB: m = %u KiB, t = %u, p95 %.1f ms, %zu hashes\n",
	    (unsigned)r.a.m_kib, (unsigned)r.a.t, r.a.predicted_ms, r.hashes);
	if (rc != 0)
		TEST_FAIL("search_target: %d %s", rc, err);
	ASSERT_EQ(r.a.m_kib, 4 * MIB_KIB);
	ASSERT(r.a.t > 1);
	ASSERT(r.a.predicted_ms <= 40);
	/* At the cap: in the band, or under it because of the cap. */
	printf("# stopped: %s\n", search_stop_name(r.stop));
	ASSERT(r.stop == SEARCH_OUT_OF_STEPS ||
	    r.in_band == (r.stop == SEARCH_IN_BAND));
	ASSERT(r.stop == SEARCH_IN_BAND || r.stop == SEARCH_AT_CAP ||
	    r.stop == SEARCH_OUT_OF_STEPS);
}

/* 1 ms above OWASP's floor: not met, the closest row measured. */
TEST(floor_decides_a_target_too_low)
{
	struct tune_query	q;
	struct search_opts	o;
	struct search_result	r;
	char			err[256] = "";
	int			rc;

	query(&q, 1, 0, TUNE_FLOOR_OWASP);
	opts(&o);
	rc = search_target(&q, &o, &r, err, sizeof(err));
	printf("# 1 ms, owasp: rc %d m = %u KiB, t = %u, %.1f ms: %s\n", rc,
	    (unsigned)r.a.m_kib, (unsigned)r.a.t, r.a.predicted_ms, err);
	ASSERT_EQ(rc, 1);
	ASSERT(!r.a.met);
	ASSERT(tune_floor_min_t(TUNE_FLOOR_OWASP, KDF_ALG_ARGON2ID,
	    r.a.m_kib) != 0);
	ASSERT(r.a.t >= tune_floor_min_t(TUNE_FLOOR_OWASP, KDF_ALG_ARGON2ID,
	    r.a.m_kib));
	ASSERT(r.a.predicted_ms > 1);
	ASSERT(strstr(err, "cannot be met above the owasp floor") != NULL);
}

TEST(bad_queries_are_refused)
{
	struct tune_query	q;
	struct search_opts	o;
	struct search_result	r;
	char			err[256] = "";

	opts(&o);
	query(&q, 0, 0, TUNE_FLOOR_NONE);
	ASSERT_EQ(search_target(&q, &o, &r, err, sizeof(err)), -2);
	ASSERT_STR_CONTAINS(err, "target_ms");
	query(&q, 50, 0, TUNE_FLOOR_NONE);
	q.k = MEASURE_K_MAX + 1;
	ASSERT_EQ(search_target(&q, &o, &r, err, sizeof(err)), -2);
	ASSERT_STR_CONTAINS(err, "hashes at once");
	query(&q, 50, 0, TUNE_FLOOR_NONE);
	q.objective = TUNE_ATTACKER_COST;
	ASSERT_EQ(search_target(&q, &o, &r, err, sizeof(err)), -2);
	ASSERT_STR_CONTAINS(err, "memory-first");
	query(&q, 50, 0, TUNE_FLOOR_NONE);
	o.mem_budget = 512 * 1024;
	ASSERT_EQ(search_target(&q, &o, &r, err, sizeof(err)), -2);
	ASSERT_STR_CONTAINS(err, "less than 1 MiB");
	ASSERT_EQ(r.hashes, 0);
	/* memory_max of 8 KiB: refused before a hash, naming it. */
	opts(&o);
	query(&q, 50, 8, TUNE_FLOOR_NONE);
	ASSERT_EQ(search_target(&q, &o, &r, err, sizeof(err)), -2);
	ASSERT_STR_CONTAINS(err, "memory_max of 8 KiB");
	ASSERT_EQ(r.hashes, 0);
}

TEST_LIST(
	TEST_ENTRY(percentile_estimate),
	TEST_ENTRY(pool_scales_near_samples),
	TEST_ENTRY(memory_first_answer_is_measured),
	TEST_ENTRY(cap_reached_more_passes),
	TEST_ENTRY(floor_decides_a_target_too_low),
	TEST_ENTRY(bad_queries_are_refused)
)
