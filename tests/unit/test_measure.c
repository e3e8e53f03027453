/*
 * tests/unit/test_measure.c: the timing harness. Children are isolated
 * (memory limits, SIGKILL, crashes, timeouts and cancels are reported and
 * the parent carries on), descriptors do not leak into children, the
 * memory budget is enforced before anything runs, and the noise rule.
 * Points stay at m <= 16 MiB.
 */
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "measure.h"
#include "verify.h"
#include "test.h"

static void
point(struct measure_point *pt, enum kdf_backend b, uint32_t m_kib,
    uint32_t t, uint32_t k)
{
	kdf_params_init(&pt->kp, KDF_ALG_ARGON2ID);
	pt->kp.backend = b;
	pt->kp.m_kib = m_kib;
	pt->kp.t = t;
	pt->kp.p = 1;
	pt->k = k;
}

static void
small_opts(struct measure_opts *o)
{
	measure_opts_init(o, 2);
	o->min_samples = 3;
	o->max_samples = 6;
	o->point_budget = 5;
	o->timeout = 30;
	o->remeasure_noisy = 0;
}

/* No child is left behind: no zombie, nothing running. */
static void
assert_no_children(void)
{
	errno = 0;
	ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ASSERT_EQ(errno, ECHILD);
}

TEST(one_point)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;
	size_t			i;

	small_opts(&o);
	point(&pt, KDF_BACKEND_LIBSODIUM, 1024, 1, 1);
	ASSERT_EQ(measure_point_run(&pt, &o, &r), 0);
	ASSERT_EQ(r.status, MEASURE_OK);
	ASSERT(r.nsamples >= 3 && r.nsamples <= 6);
	ASSERT_EQ(r.st.n, r.nsamples);
	ASSERT(r.st.min > 0 && r.st.min <= r.st.median);
	ASSERT(r.st.median <= r.st.max);
	for (i = 0; i < r.nsamples; i++)
		ASSERT(r.samples[i] >= r.st.min && r.samples[i] <= r.st.max);
	ASSERT(r.throughput > 0);
	/* The child held the 1 MiB of Argon2 memory at its peak. */
	ASSERT(r.peak_rss_kib >= 1024);
	ASSERT(r.seconds > 0);
	measure_result_release(&r);
	assert_no_children();
}

TEST(concurrency_records_every_latency)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	o.min_samples = 6;
	o.max_samples = 6;
	point(&pt, KDF_BACKEND_LIBARGON2, 4096, 1, 3);
	ASSERT_EQ(measure_point_run(&pt, &o, &r), 0);
	/* Three children, one latency each per round. */
	ASSERT_EQ(r.nsamples, 6);
	ASSERT_EQ(r.rounds, 2);
	/* Each of the three held 4 MiB at its peak. */
	ASSERT(r.peak_rss_kib >= 3 * 4096);
	measure_result_release(&r);
	assert_no_children();
}

TEST(warmups_until_the_heap_holds_the_memory)
{
	struct measure_point	pt;
	struct measure_opts	o;
	int			libc = measure_libc_memory();

	measure_opts_init(&o, 2);
	o.warmup_rounds = 1;
	o.warmup_max_kib = 128 * 1024;
	/* libargon2 under glibc's mmap threshold: a second one. */
	point(&pt, KDF_BACKEND_LIBARGON2, 16 * 1024, 1, 1);
	ASSERT_EQ(measure_warmups(&pt, &o), 1 + libc);
	point(&pt, KDF_BACKEND_LIBARGON2, KDF_MALLOC_REUSE_KIB - 8, 1, 1);
	ASSERT_EQ(measure_warmups(&pt, &o), 1 + libc);
	/* Mapped afresh each hash (over it, or libsodium's own): one. */
	point(&pt, KDF_BACKEND_LIBARGON2, KDF_MALLOC_REUSE_KIB, 1, 1);
	ASSERT_EQ(measure_warmups(&pt, &o), 1);
	point(&pt, KDF_BACKEND_LIBSODIUM, 16 * 1024, 1, 1);
	ASSERT_EQ(measure_warmups(&pt, &o), 1);
	/* Over warmup_max_kib, or none asked: none... */
	point(&pt, KDF_BACKEND_LIBARGON2, 256 * 1024, 1, 1);
	ASSERT_EQ(measure_warmups(&pt, &o), 0);
	o.warmup_rounds = 0;
	point(&pt, KDF_BACKEND_LIBSODIUM, 16 * 1024, 1, 1);
	ASSERT_EQ(measure_warmups(&pt, &o), 0);
	/* ...but libargon2's two under the threshold (a cold search's). */
	point(&pt, KDF_BACKEND_LIBARGON2, 16 * 1024, 1, 1);
	ASSERT_EQ(measure_warmups(&pt, &o), libc ? 2 : 0);
	o.warmup_rounds = 2;
	o.warmup_max_kib = 8 * 1024;
	ASSERT_EQ(measure_warmups(&pt, &o), libc ? 3 : 0);
}

/* What a check of an answer costs counts the warm-ups it will run. */
TEST(an_answers_warmups_as_its_measurement_runs_them)
{
	struct tune_answer	a;
	int			libc = measure_libc_memory();

	memset(&a, 0, sizeof(a));
	a.variant = KDF_ALG_ARGON2ID;
	a.backend = KDF_BACKEND_LIBARGON2;
	a.m_kib = 19 * 1024;
	a.t = 2;
	a.p = 1;
	a.k = 1;
	/* Its two through libc map and extend the heap: twice a hash. */
	ASSERT(verify_warmup_cost(&a, 2) == (libc ? 4.0 : 1.0));
	a.m_kib = 64 * 1024;
	ASSERT(verify_warmup_cost(&a, 2) == 1.0);
	a.backend = KDF_BACKEND_LIBSODIUM;
	a.m_kib = 19 * 1024;
	ASSERT(verify_warmup_cost(&a, 2) == 1.0);
}

TEST(bcrypt_point)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	kdf_params_init(&pt.kp, KDF_ALG_BCRYPT);
	pt.kp.cost = 4;
	pt.k = 1;
	ASSERT_EQ(measure_point_run(&pt, &o, &r), 0);
	ASSERT(r.st.mean > 0);
	measure_result_release(&r);
}

TEST(child_over_its_memory_limit)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan reserves terabytes of address space: no RLIMIT_AS there. */
	printf("  (not under AddressSanitizer: RLIMIT_AS is not applied)\n");
#else
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	o.child_mem_limit = 1;	/* no new mapping can succeed */
	point(&pt, KDF_BACKEND_LIBARGON2, 16384, 1, 1);
	ASSERT_EQ(measure_point_run(&pt, &o, &r), -1);
	ASSERT_EQ(r.status, MEASURE_OOM);
	ASSERT_STR_CONTAINS(r.reason, "emory");
	measure_result_release(&r);
	assert_no_children();
#endif
}

static void
kill_first_child(void *ctx, const struct measure_progress *p)
{
	(void)ctx;
	if (p->nchildren > 0 && p->round >= 1)
		kill(p->children[0], SIGKILL);
}

TEST(child_killed_with_sigkill)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	o.min_samples = 50;
	o.max_samples = 50;
	o.progress = kill_first_child;
	point(&pt, KDF_BACKEND_LIBSODIUM, 2048, 1, 2);
	ASSERT_EQ(measure_point_run(&pt, &o, &r), -1);
	ASSERT_EQ(r.status, MEASURE_KILLED);
	ASSERT_STR_CONTAINS(r.reason, "SIGKILL");
	measure_result_release(&r);
	assert_no_children();

	/* The parent carries on. */
	o.progress = NULL;
	o.min_samples = 3;
	o.max_samples = 3;
	ASSERT_EQ(measure_point_run(&pt, &o, &r), 0);
	ASSERT_EQ(r.status, MEASURE_OK);
	measure_result_release(&r);
}

static void
crash_first_child(void *ctx, const struct measure_progress *p)
{
	(void)ctx;
	if (p->nchildren > 0 && p->round >= 1)
		kill(p->children[0], SIGABRT);
}

TEST(child_crashing)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	o.min_samples = 50;
	o.max_samples = 50;
	o.progress = crash_first_child;
	point(&pt, KDF_BACKEND_LIBSODIUM, 2048, 1, 1);
	ASSERT_EQ(measure_point_run(&pt, &o, &r), -1);
	ASSERT_EQ(r.status, MEASURE_CRASHED);
	/* SIGABRT: sanitizers take SIGSEGV over in their builds. */
	ASSERT_STR_CONTAINS(r.reason, "signal 6");
	measure_result_release(&r);
	assert_no_children();
}

static volatile int	cancel_flag;

static void
cancel_after_a_round(void *ctx, const struct measure_progress *p)
{
	(void)ctx;
	if (p->current != NULL && p->round >= 1)
		cancel_flag = 1;
}

TEST(cancel_stops_the_point_and_the_list)
{
	struct measure_point	pts[3];
	struct measure_opts	o;
	struct measure_result	r[3];
	size_t			i;

	small_opts(&o);
	o.min_samples = 1000;
	o.max_samples = 1000;
	o.point_budget = 60;
	o.cancel = &cancel_flag;
	o.progress = cancel_after_a_round;
	cancel_flag = 0;
	for (i = 0; i < 3; i++)
		point(&pts[i], KDF_BACKEND_LIBSODIUM, 1024, 1, 1);
	ASSERT_EQ(measure_list_run(pts, 3, &o, r), 0);
	ASSERT_EQ(r[0].status, MEASURE_CANCELLED);
	ASSERT_EQ(r[1].status, MEASURE_CANCELLED);
	ASSERT_EQ(r[2].status, MEASURE_CANCELLED);
	ASSERT_STR_CONTAINS(r[2].reason, "before it ran");
	for (i = 0; i < 3; i++)
		measure_result_release(&r[i]);
	assert_no_children();
}

TEST(timeout_kills_the_children)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	o.timeout = 0.3;
	/* 16 MiB x 200 passes: seconds, far over the timeout. */
	point(&pt, KDF_BACKEND_LIBARGON2, 16384, 200, 2);
	ASSERT_EQ(measure_point_run(&pt, &o, &r), -1);
	ASSERT_EQ(r.status, MEASURE_TIMEOUT);
	ASSERT(r.seconds < 3);
	measure_result_release(&r);
	assert_no_children();
}

TEST(memory_budget_is_checked_first)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	o.mem_budget = 8ULL << 20;
	point(&pt, KDF_BACKEND_LIBSODIUM, 4096, 1, 3);	/* 12 MiB at once */
	ASSERT_EQ(measure_point_run(&pt, &o, &r), -1);
	ASSERT_EQ(r.status, MEASURE_SKIPPED);
	ASSERT_STR_CONTAINS(r.reason, "needs 12 MiB for 3 hashes at once");
	ASSERT_STR_CONTAINS(r.reason, "memory budget of 8 MiB");
	ASSERT_EQ(r.nsamples, 0);
	measure_result_release(&r);
	pt.k = 2;	/* 8 MiB: fits */
	ASSERT_EQ(measure_point_run(&pt, &o, &r), 0);
	measure_result_release(&r);
}

TEST(parameters_a_backend_cannot_compute_are_skipped)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	point(&pt, KDF_BACKEND_LIBSODIUM, 4096, 1, 1);
	pt.kp.p = 2;
	ASSERT_EQ(measure_point_run(&pt, &o, &r), -1);
	ASSERT_EQ(r.status, MEASURE_SKIPPED);
	ASSERT_STR_CONTAINS(r.reason, "p = 1 only");
	measure_result_release(&r);
	pt.kp.p = 1;
	pt.k = MEASURE_K_MAX + 1;
	ASSERT_EQ(measure_point_run(&pt, &o, &r), -1);
	ASSERT_STR_CONTAINS(r.reason, "concurrency must be");
	measure_result_release(&r);
}

static int	child_fds_seen = -1;

static void
count_child_fds(void *ctx, const struct measure_progress *p)
{
	char		 path[64];
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	(void)ctx;
	if (p->nchildren == 0 || child_fds_seen >= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)p->children[0]);
	if ((d = opendir(path)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && atoi(e->d_name) > 3)
			n++;
	closedir(d);
	child_fds_seen = n;
}

TEST(children_hold_no_parent_descriptors)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;
	int			fds[2], extra;

	/* Descriptors the parent holds: a pipe and a file, as a database. */
	ASSERT_EQ(pipe(fds), 0);
	extra = open("/proc/self/status", O_RDONLY);
	ASSERT(extra > 2);
	small_opts(&o);
	o.progress = count_child_fds;
	child_fds_seen = -1;
	point(&pt, KDF_BACKEND_LIBSODIUM, 1024, 1, 2);
	ASSERT_EQ(measure_point_run(&pt, &o, &r), 0);
	ASSERT_EQ(child_fds_seen, 0);
	measure_result_release(&r);
	close(fds[0]);
	close(fds[1]);
	close(extra);
}

TEST(noise_rule)
{
	struct measure_opts	o;
	struct measure_result	r;

	measure_opts_init(&o, 2);
	memset(&r, 0, sizeof(r));
	r.st.mean = 100;
	r.st.stddev = 5;
	ASSERT_EQ(measure_is_noisy(&r, &o), 0);
	r.st.stddev = 11;		/* spread over 10 % */
	ASSERT_EQ(measure_is_noisy(&r, &o), 1);
	r.st.stddev = 5;
	r.steal_pct = 6;		/* steal over 5 % */
	ASSERT_EQ(measure_is_noisy(&r, &o), 1);
	r.steal_pct = 0;
	r.runnable_before = 2;		/* others busy on a 2-CPU host */
	ASSERT_EQ(measure_is_noisy(&r, &o), 1);
	r.runnable_before = 1;
	ASSERT_EQ(measure_is_noisy(&r, &o), 0);
	r.runnable_after = 3;
	ASSERT_EQ(measure_is_noisy(&r, &o), 1);
}

TEST(noisy_points_are_measured_again)
{
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;

	small_opts(&o);
	o.remeasure_noisy = 1;
	o.noise_cv = -1;	/* everything counts as noisy */
	point(&pt, KDF_BACKEND_LIBSODIUM, 1024, 1, 1);
	ASSERT_EQ(measure_point_run(&pt, &o, &r), 0);
	ASSERT_EQ(r.remeasured, 1);
	ASSERT_EQ(r.noisy, 1);
	measure_result_release(&r);
	o.noise_cv = 1e9;
	o.noise_steal = 1e9;
	o.noise_runnable = 1 << 30;
	ASSERT_EQ(measure_point_run(&pt, &o, &r), 0);
	ASSERT_EQ(r.remeasured, 0);
	ASSERT_EQ(r.noisy, 0);
	measure_result_release(&r);
}

TEST(effective_parallelism)
{
	struct kdf_params	kp;
	struct measure_opts	o;
	double			speedups[2];
	char			err[256];
	int			eff = 0;

	small_opts(&o);
	kdf_params_init(&kp, KDF_ALG_ARGON2ID);
	kp.backend = KDF_BACKEND_LIBSODIUM;
	kp.m_kib = 2048;
	kp.t = 1;
	kp.p = 1;
	ASSERT_EQ(measure_effective_parallelism(&kp, 2, &o, speedups, &eff,
	    err, sizeof(err)), 0);
	ASSERT(speedups[0] > 0.999 && speedups[0] < 1.001);
	ASSERT(speedups[1] > 0);
	ASSERT(eff >= 1 && eff <= 2);
	ASSERT_EQ(measure_effective_parallelism(&kp, 0, &o, speedups, &eff,
	    err, sizeof(err)), -1);
}

TEST_LIST(
	TEST_ENTRY(one_point),
	TEST_ENTRY(concurrency_records_every_latency),
	TEST_ENTRY(warmups_until_the_heap_holds_the_memory),
	TEST_ENTRY(an_answers_warmups_as_its_measurement_runs_them),
	TEST_ENTRY(bcrypt_point),
	TEST_ENTRY(child_over_its_memory_limit),
	TEST_ENTRY(child_killed_with_sigkill),
	TEST_ENTRY(child_crashing),
	TEST_ENTRY(cancel_stops_the_point_and_the_list),
	TEST_ENTRY(timeout_kills_the_children),
	TEST_ENTRY(memory_budget_is_checked_first),
	TEST_ENTRY(parameters_a_backend_cannot_compute_are_skipped),
	TEST_ENTRY(children_hold_no_parent_descriptors),
	TEST_ENTRY(noise_rule),
	TEST_ENTRY(noisy_points_are_measured_again),
	TEST_ENTRY(effective_parallelism)
)
