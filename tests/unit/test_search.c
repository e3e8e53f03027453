/*
 * tests/unit/test_search.c: one target, measured: the percentile's
 * estimate, the pool, the search on an imaginary host whose times follow
 * a known law with a known noise (where it lands, how many hashes, why it
 * stops), then on this host: the memory-first answer,
 * the memory cap, and a target the floor does not let any answer meet.
 * Real hashes are small only (m <= 64 MiB).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "search.h"
#include "test.h"
#define MIB_KIB	1024u

/*
 * The imaginary host: a pass costs 0.8 us a KiB at 8 MiB, 30 % more at
 * 1 GiB (the caches), the first pass twice more (fresh memory; the search
 * assumes once more, so that its scaling across t is tested, not assumed),
 * times speed, each hash times a log-normal factor of deviation cv (seeded:
 * the same every run), k hashes at once no slower than one.
 */
static double
fake_truth(uint32_t m_kib, uint32_t t)
{
	double	x = log(m_kib / 8192.0) / log(128.0);

	return m_kib * 0.0008 * (1 + 0.3 * x) * (2 + t);
}

struct fake_host {
	uint64_t	rng;
	double		speed, cv;
	size_t		hashes;
	double		small;	/* under 64 MiB, this times (0: 1): a cache */
	double		drift;	/* speed times this after each call (0: 1) */
};

static double
fake_time(const struct fake_host *f, uint32_t m_kib, uint32_t t)
{
	return fake_truth(m_kib, t) * f->speed * (m_kib < 64 * MIB_KIB &&
	    f->small > 0 ? f->small : 1);
}

static double
fake_uniform(struct fake_host *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return ((f->rng >> 11) + 0.5) / 9007199254740992.0;
}

static int
fake_timer(void *ctx, uint32_t m_kib, uint32_t t, uint32_t p, uint32_t k,
    size_t n, double *ms, char *why, size_t whylen)
{
	struct fake_host	*f = ctx;
	size_t			 i;
	double			 z;

	(void)p;
	(void)k;
	(void)why;
	(void)whylen;
	for (i = 0; i < n; i++) {
		z = sqrt(-2 * log(fake_uniform(f))) *
		    cos(2 * M_PI * fake_uniform(f));
		ms[i] = fake_time(f, m_kib, t) * exp(f->cv * z);
	}
	f->hashes += n;
	if (f->drift > 0)
		f->speed *= f->drift;
	return 0;
}

/* The true p95 of (m, t) on the imaginary host, over the target. */
static double
fake_ratio(const struct fake_host *f, const struct search_result *r)
{
	return fake_time(f, r->a.m_kib, r->a.t) * exp(1.645 * f->cv) /
	    r->a.target_ms;
}

static int
fake_search_k(struct fake_host *f, double target, uint64_t memory_max_kib,
    uint32_t k, struct search_result *r)
{
	struct tune_query	q;
	struct search_opts	o;
	char			err[256] = "";
	int			rc;

	tune_query_init(&q);
	q.target_ms = target;
	q.memory_max_kib = memory_max_kib;
	q.floor = TUNE_FLOOR_NONE;
	q.k = k;
	memset(&o, 0, sizeof(o));
	o.mem_budget = 8ULL << 30;
	o.cpus = 2;
	o.timer = fake_timer;
	o.timer_ctx = f;
	rc = search_target(&q, &o, r, err, sizeof(err));
	if (rc != 0)
		printf("# search_target: %d %s\n", rc, err);
	return rc;
}

static int
fake_search(struct fake_host *f, double target, uint64_t memory_max_kib,
    struct search_result *r)
{
	return fake_search_k(f, target, memory_max_kib, 1, r);
}

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

/* A quiet host: in the band at once, on the samples asked for. */
TEST(fake_quiet_host_lands_in_band)
{
	struct fake_host	f = { 0x9e3779b97f4a7c15ULL, 1, 0.01, 0, 0, 0 };
	struct search_result	r;

	ASSERT_EQ(fake_search(&f, 250, 0, &r), 0);
	printf("# quiet: m = %u KiB, t = %u, true p95 / X %.3f, %zu hashes, "
	    "%zu pooled\n", (unsigned)r.a.m_kib, (unsigned)r.a.t,
	    fake_ratio(&f, &r), r.hashes, r.samples);
	ASSERT_EQ(r.stop, SEARCH_IN_BAND);
	ASSERT(r.in_band && r.a.met && r.a.t == 1);
	ASSERT(fake_ratio(&f, &r) >= 0.90 && fake_ratio(&f, &r) <= 1.00);
	ASSERT(r.samples >= SEARCH_SAMPLES && r.near >= 1);
	/* The scale (3), a quarter, then 6 to 8 hashes near the answer. */
	ASSERT(r.hashes <= 3 + 1 + 8);
	ASSERT_EQ(r.hashes, f.hashes + 1);	/* the warm-up is not timed */
	/* Its own estimate is the truth's, within 2 %. */
	ASSERT(fabs(r.a.predicted_ms / (fake_ratio(&f, &r) * 250) - 1) < 0.02);
}

/*
 * A host as noisy as the test VM (8 % a hash), 40 seeds: the true p95
 * within [0.85, 1.05] of the target every time, within [0.90, 1.00] at
 * least 3 times in 4, in 20 hashes or fewer on average, and never more
 * than SEARCH_HASHES_X x the samples past the scale.
 */
TEST(fake_noisy_host_stays_near_the_target)
{
	struct fake_host	f;
	struct search_result	r;
	double			x, lo = 9, hi = 0, hashes = 0;
	int			seed, in = 0;

	for (seed = 1; seed <= 40; seed++) {
		f.rng = 0x9e3779b97f4a7c15ULL * (uint64_t)seed;
		f.speed = 0.5 + seed / 40.0;	/* 0.5 to 1.5 x the law */
		f.cv = 0.08;
		f.hashes = 0;
		f.small = 0;
		f.drift = 0;
		ASSERT_EQ(fake_search(&f, 250, 0, &r), 0);
		x = fake_ratio(&f, &r);
		lo = fmin(lo, x);
		hi = fmax(hi, x);
		in += x >= 0.90 && x <= 1.00;
		hashes += r.hashes;
		ASSERT(r.hashes <= 3 + 1 + SEARCH_HASHES_X * SEARCH_SAMPLES);
		ASSERT(r.stop != SEARCH_IN_BAND ||
		    r.samples >= SEARCH_SAMPLES);
	}
	printf("# 8 %% noise, 40 seeds: true p95 / X %.3f to %.3f, %d in "
	    "[0.90, 1.00], %.1f hashes on average\n", lo, hi, in,
	    hashes / 40);
	ASSERT(lo >= 0.85 && hi <= 1.05);
	ASSERT(in >= 30);
	ASSERT(hashes / 40 <= 20);
}

/* Noise no pool settles (40 % a hash): out of steps, within bounds. */
TEST(fake_wild_host_runs_out_of_steps)
{
	struct fake_host	f = { 12345, 1, 0.40, 0, 0, 0 };
	struct search_result	r;

	ASSERT_EQ(fake_search(&f, 250, 0, &r), 0);
	printf("# 40 %% noise: stopped %s, %zu hashes, +- %.1f %%, %zu "
	    "samples, %zu near, true p95 / X %.3f\n",
	    search_stop_name(r.stop), r.hashes, 100 * r.uncertainty,
	    r.samples, r.near, fake_ratio(&f, &r));
	ASSERT_EQ(r.stop, SEARCH_OUT_OF_STEPS);
	ASSERT(r.hashes <= 3 + 1 + SEARCH_HASHES_X * SEARCH_SAMPLES);
	ASSERT(r.a.met && r.a.predicted_ms <= 250);
	/* What it says of its samples: hashed near the answer; fewer than 3
	   give no uncertainty (100 %). */
	ASSERT(r.samples >= 1 && r.near <= r.samples);
	ASSERT(r.samples >= 3 || r.uncertainty >= 1);
	/* Unsure, it errs under the target, not over. */
	ASSERT(fake_ratio(&f, &r) <= 1.00);
}

/*
 * A cap of 32 MiB: m at it and t grown, into the band at 250 ms (t = 6:
 * 0.93, t = 7: 1.04); at 170 ms t = 3 is 0.85 and t = 4 1.02, so the
 * search stops under the band and says it was the cap.
 */
TEST(fake_cap_grows_t)
{
	struct fake_host	f = { 777, 1, 0.01, 0, 0, 0 };
	struct search_result	r;
	double			next;

	ASSERT_EQ(fake_search(&f, 250, 32 * MIB_KIB, &r), 0);
	printf("# cap 32 MiB, 250 ms: t = %u, true p95 / X %.3f, stopped "
	    "%s\n", (unsigned)r.a.t, fake_ratio(&f, &r),
	    search_stop_name(r.stop));
	ASSERT_EQ(r.a.m_kib, 32 * MIB_KIB);
	ASSERT_EQ(r.a.t, 6);
	ASSERT_EQ(r.stop, SEARCH_IN_BAND);
	f.rng = 778;
	ASSERT_EQ(fake_search(&f, 170, 32 * MIB_KIB, &r), 0);
	next = fake_truth(r.a.m_kib, r.a.t + 1) * exp(1.645 * 0.01);
	printf("# cap 32 MiB, 170 ms: t = %u, true p95 / X %.3f (t + 1: "
	    "%.3f), stopped %s\n", (unsigned)r.a.t, fake_ratio(&f, &r),
	    next / 170, search_stop_name(r.stop));
	ASSERT_EQ(r.a.m_kib, 32 * MIB_KIB);
	ASSERT_EQ(r.a.t, 3);
	ASSERT(!r.in_band && r.a.met);
	ASSERT_EQ(r.stop, SEARCH_AT_CAP);
	ASSERT(next > 170);
}

/* At the cap with t at its largest: the answer says what is left unused. */
TEST(fake_cap_and_t_largest_says_so)
{
	struct fake_host	f = { 779, 1, 0.01, 0, 0, 0 };
	struct search_result	r;
	char			want[160];

	ASSERT_EQ(fake_search(&f, 60000, 8 * MIB_KIB, &r), 0);
	printf("# cap 8 MiB, 60 s: t = %u, p95 %.1f ms, stopped %s\n",
	    (unsigned)r.a.t, r.a.predicted_ms, search_stop_name(r.stop));
	ASSERT_EQ(r.a.m_kib, 8 * MIB_KIB);
	ASSERT_EQ(r.a.t, TUNE_T_MAX);
	ASSERT_EQ(r.stop, SEARCH_AT_CAP);
	ASSERT(r.a.met && r.a.predicted_ms < 0.9 * 60000);
	snprintf(want, sizeof(want), "t is at its largest, 1000, with m = "
	    "8192 KiB (the most memory here: 8192 KiB, memory_max): the answer "
	    "takes about %d %%", (int)fmin(lround(100 * r.a.predicted_ms /
	    60000), 89));
	ASSERT_STR_CONTAINS(r.a.notes, want);
	/* Under the cap's t: no such note. */
	ASSERT_EQ(fake_search(&f, 170, 32 * MIB_KIB, &r), 0);
	ASSERT(r.a.t < TUNE_T_MAX);
	ASSERT(strstr(r.a.notes, "t is at its largest") == NULL);
}

/*
 * 6 ms, where a MiB is a third of the target: 2 MiB is 0.76 of it, 3 MiB
 * 1.15; the search stops at 2 MiB and says it was the grain.
 */
TEST(fake_grain_decides_a_small_target)
{
	struct fake_host	f = { 4242, 1, 0.01, 0, 0, 0 };
	struct search_result	r;
	double			next;

	ASSERT_EQ(fake_search(&f, 6, 0, &r), 0);
	next = fake_truth(r.a.m_kib + MIB_KIB, r.a.t) *
	    exp(1.645 * 0.01);
	printf("# 6 ms: m = %u KiB, t = %u, true p95 / X %.3f (next MiB "
	    "%.3f), stopped %s\n", (unsigned)r.a.m_kib, (unsigned)r.a.t,
	    fake_ratio(&f, &r), next / 6, search_stop_name(r.stop));
	ASSERT_EQ(r.a.m_kib, 2 * MIB_KIB);
	ASSERT_EQ(r.a.t, 1);
	ASSERT(r.a.met && !r.in_band);
	ASSERT_EQ(r.stop, SEARCH_AT_GRAIN);
	ASSERT(next > 6 * SEARCH_BAND_HI);
}

/*
 * 32 hashes at once: a round is 32 samples, more than the 24 hashes the
 * search takes, and still it takes the rounds it needs. The scale's size
 * fits a cache (twice as fast), so the first round lands twice over the
 * target: 32 samples say so beyond noise, and the next step goes all the
 * way, not 12 %.
 */
TEST(fake_many_at_once_take_rounds)
{
	struct fake_host	f = { 31337, 1, 0.03, 0, 0.5, 0 };
	struct search_result	r;

	ASSERT_EQ(fake_search_k(&f, 250, 0, 32, &r), 0);
	printf("# k = 32: m = %u KiB, true p95 / X %.3f, %zu steps, %zu "
	    "hashes, stopped %s\n", (unsigned)r.a.m_kib, fake_ratio(&f, &r),
	    r.steps, r.hashes, search_stop_name(r.stop));
	ASSERT_EQ(r.stop, SEARCH_IN_BAND);
	ASSERT(fake_ratio(&f, &r) >= 0.90 && fake_ratio(&f, &r) <= 1.00);
	/* Each step 32 at once: the scale (two rounds and a warm-up), two
	   rounds at least (the first, twice over, moved all the way). */
	ASSERT(r.steps >= 3);
	ASSERT_EQ(r.hashes, 32 * (r.steps + 2));
	ASSERT(r.samples >= 32);
}

/*
 * Small targets, where a MiB is several per cent of m: each ends in the
 * band, or at the grain only when the next MiB would be over 95 % of the
 * target (the search aims a MiB up to 97.5 %).
 */
TEST(fake_small_targets_use_their_last_mib)
{
	struct fake_host	f;
	struct search_result	r;
	double			next;
	int			x, in = 0, n = 0;

	for (x = 8; x <= 40; x += 2) {
		f.rng = 1000 + (uint64_t)x;
		f.speed = 1;
		f.cv = 0.01;
		f.hashes = 0;
		f.small = 0;
		f.drift = 0;
		ASSERT_EQ(fake_search(&f, x, 0, &r), 0);
		next = fake_truth(r.a.m_kib + MIB_KIB, r.a.t) *
		    exp(1.645 * 0.01);
		n++;
		in += r.stop == SEARCH_IN_BAND;
		if (r.stop != SEARCH_IN_BAND)
			printf("# %d ms: m = %u KiB, %.3f (next MiB %.3f), "
			    "stopped %s\n", x, (unsigned)r.a.m_kib,
			    fake_ratio(&f, &r), next / x,
			    search_stop_name(r.stop));
		ASSERT(r.stop == SEARCH_IN_BAND || r.stop == SEARCH_AT_GRAIN);
		ASSERT(fake_ratio(&f, &r) <= 1.00);
		ASSERT(r.stop != SEARCH_AT_GRAIN || next > 0.95 * x);
	}
	printf("# 8-40 ms: %d of %d in the band\n", in, n);
}

/*
 * A host that slows down 10 % a hash: each hash is over what the last put
 * at the target, and no pool settles. The answer is still under the
 * target by what was measured, out of steps, and says it was projected
 * (from hashes at more work, none at its parameters).
 */
TEST(fake_slowing_host_projects_down)
{
	struct fake_host	f = { 99, 1, 0.01, 0, 0, 1.1 };
	struct search_result	r;

	ASSERT_EQ(fake_search(&f, 250, 0, &r), 0);
	printf("# slowing 10 %% a hash: m = %u KiB, stopped %s, projected "
	    "%d, %zu samples, %zu near, %zu hashes\n", (unsigned)r.a.m_kib,
	    search_stop_name(r.stop), r.projected, r.samples, r.near,
	    r.hashes);
	ASSERT_EQ(r.stop, SEARCH_OUT_OF_STEPS);
	ASSERT(r.a.met && r.a.predicted_ms <= 250);
	ASSERT(r.hashes <= 3 + 1 + SEARCH_HASHES_X * SEARCH_SAMPLES);
	ASSERT(r.projected);
	ASSERT(r.samples >= 1 && r.near == 0);
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
	ASSERT(r.samples >= 1 && r.near <= r.samples);
	ASSERT(r.near >= 1 || r.stop == SEARCH_OUT_OF_STEPS);
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

/* libsodium's Argon2i: measured and answered at t = 3 at least. */
TEST(libsodium_argon2i_is_searched_at_t_3_at_least)
{
	struct tune_query	q;
	struct search_opts	o;
	struct search_result	r;
	char			err[256] = "";
	int			rc;

	query(&q, 40, 64 * MIB_KIB, TUNE_FLOOR_NONE);
	q.variant = KDF_ALG_ARGON2I;
	opts(&o);
	rc = search_target(&q, &o, &r, err, sizeof(err));
	if (rc != 0)
		TEST_FAIL("search_target: %d %s", rc, err);
	ASSERT(r.a.t >= 3);
	ASSERT(strstr(r.a.phc_prefix, "$argon2i$v=19$m=") != NULL);
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

static int
failing_timer(void *ctx, uint32_t m_kib, uint32_t t, uint32_t p, uint32_t k,
    size_t n, double *ms, char *why, size_t whylen)
{
	(void)ctx;
	(void)m_kib;
	(void)t;
	(void)p;
	(void)k;
	(void)n;
	(void)ms;
	snprintf(why, whylen, "over the memory budget");
	return -1;
}

/* A step that measured nothing counts no hash, its warm-ups none either. */
TEST(a_step_not_run_counts_no_hashes)
{
	struct tune_query	q;
	struct search_opts	o;
	struct search_result	r;
	char			err[256] = "";

	opts(&o);
	o.timer = failing_timer;
	o.timer_ctx = NULL;
	query(&q, 50, 0, TUNE_FLOOR_NONE);
	ASSERT(search_target(&q, &o, &r, err, sizeof(err)) < 0);
	ASSERT_STR_CONTAINS(err, "over the memory budget");
	ASSERT_EQ(r.steps, 1);
	ASSERT_EQ(r.hashes, 0);
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
	/* A memory limit of 8 KiB: refused before a hash, naming it. */
	opts(&o);
	query(&q, 50, 8, TUNE_FLOOR_NONE);
	ASSERT_EQ(search_target(&q, &o, &r, err, sizeof(err)), -2);
	ASSERT_STR_CONTAINS(err, "memory limit of 8 KiB");
	ASSERT_EQ(r.hashes, 0);
}

TEST_LIST(
	TEST_ENTRY(percentile_estimate),
	TEST_ENTRY(pool_scales_near_samples),
	TEST_ENTRY(fake_quiet_host_lands_in_band),
	TEST_ENTRY(fake_noisy_host_stays_near_the_target),
	TEST_ENTRY(fake_wild_host_runs_out_of_steps),
	TEST_ENTRY(fake_cap_grows_t),
	TEST_ENTRY(fake_cap_and_t_largest_says_so),
	TEST_ENTRY(fake_grain_decides_a_small_target),
	TEST_ENTRY(fake_many_at_once_take_rounds),
	TEST_ENTRY(fake_small_targets_use_their_last_mib),
	TEST_ENTRY(fake_slowing_host_projects_down),
	TEST_ENTRY(memory_first_answer_is_measured),
	TEST_ENTRY(libsodium_argon2i_is_searched_at_t_3_at_least),
	TEST_ENTRY(cap_reached_more_passes),
	TEST_ENTRY(floor_decides_a_target_too_low),
	TEST_ENTRY(a_step_not_run_counts_no_hashes),
	TEST_ENTRY(bad_queries_are_refused)
)
