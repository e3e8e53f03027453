/*
 * tests/unit/test_checks.c: what the daemon's background checks do with
 * a measurement (daemon/checks.c), over pwtuned's own state and a model
 * fitted to a recorded quick run. The measurements are given, not
 * timed: a suspect answer brings the others verified due again (not
 * those just checked), a drift forgets the run's verifications and
 * queues a run, and a refit rebases what each question measured.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "stack.h"
#include "test_daemon.h"

static struct daemon	 d;
static char		 dir[256];

static void	teardown(void);

static void
setup(void)
{
	static int	once;

	/* A test that failed left its state: gone first, and at exit. */
	if (!once) {
		atexit(teardown);
		once = 1;
	}
	teardown();
	test_daemon_init(&d, dir, sizeof(dir), "pwtune-test-checks");
}

static void
teardown(void)
{
	test_daemon_release(&d, dir);
}

/* A question for target ms, asked twice (so it is checked); it. */
static struct question *
ask(double target_ms)
{
	struct tune_query	q;
	size_t			i;

	tune_query_init(&q);
	q.target_ms = target_ms;
	q.floor = TUNE_FLOOR_NONE;
	checks_asked(&d, &q, NULL);
	checks_asked(&d, &q, NULL);
	for (i = 0; i < d.nquestions; i++)
		if (d.questions[i].q.target_ms == target_ms)
			return &d.questions[i];
	return NULL;
}

/* qu's answer under its correction, and the model's p95 and p50 there. */
static void
answer(const struct question *qu, struct tune_answer *a, double *model_ms,
    double *model_p50)
{
	char	err[256];

	ASSERT(check_answer(d.model, NULL, &qu->q, qu->cs.c, a, model_ms, err,
	    sizeof(err)) == 0);
	ASSERT(a->m_kib > 0 && a->predicted_ms > 0 && *model_ms > 0);
	*model_p50 = a->predicted_p50_ms / (a->predicted_ms / *model_ms);
}

/*
 * A check of qu measured at `of` x its target (its percentile) and at
 * speed x the model's median: what checks_take returned, the verdict
 * counted, *queue_run.
 */
static enum check_verdict
measured(struct question *qu, double of, double speed, int *queue_run)
{
	struct tune_answer	a;
	double			model_ms, model_p50;
	unsigned long long	was[CHECK_VERDICTS];
	size_t			v;

	answer(qu, &a, &model_ms, &model_p50);
	memcpy(was, d.checks_by_verdict, sizeof(was));
	*queue_run = 0;
	checks_take(&d, qu->key, d.model_run, &a, of * qu->q.target_ms,
	    speed * model_p50, 13, model_ms, model_p50, d.model, queue_run);
	for (v = 0; v < CHECK_VERDICTS; v++)
		if (d.checks_by_verdict[v] != was[v])
			return (enum check_verdict)v;
	TEST_FAIL("no verdict counted");
	return CHECK_VERDICTS;
}

/* Three questions verified: 100, 250 and 500 ms, each at its own speed 1. */
static void
three_verified(struct question **q100, struct question **q250,
    struct question **q500)
{
	int	queue_run;

	ASSERT((*q100 = ask(100)) != NULL);
	ASSERT((*q250 = ask(250)) != NULL);
	ASSERT((*q500 = ask(500)) != NULL);
	ASSERT(measured(*q100, 0.95, 1, &queue_run) == CHECK_IN_BAND);
	ASSERT(measured(*q250, 0.95, 1, &queue_run) == CHECK_IN_BAND);
	ASSERT(measured(*q500, 0.95, 1, &queue_run) == CHECK_IN_BAND);
	ASSERT((*q100)->cs.verified && (*q250)->cs.verified &&
	    (*q500)->cs.verified);
}

TEST(a_suspect_brings_the_others_due_but_not_those_just_checked)
{
	struct question	*q100, *q250, *q500;
	time_t		 now;
	int		 queue_run;

	setup();
	three_verified(&q100, &q250, &q500);
	now = time(NULL);
	q100->checked = 0;
	q250->checked = now - 400;	/* past the five minutes */
	q500->checked = now - 100;	/* within them */
	/* The host at 1.5 x its speed when 100 ms was verified. */
	ASSERT(measured(q100, 0.95 * 1.5, 1.5, &queue_run) == CHECK_SUSPECT);
	ASSERT_EQ(queue_run, 0);
	ASSERT(!q100->cs.verified && q100->cs.suspect);
	ASSERT(q100->checked >= now);
	ASSERT_EQ(q250->checked, 0);		/* due again now */
	ASSERT_EQ(q500->checked, now - 100);	/* left as it was */
	ASSERT(q250->cs.verified && q500->cs.verified);
	ASSERT_EQ(d.drift, 0);
	teardown();
}

TEST(a_drift_forgets_the_verifications_and_queues_a_run)
{
	struct question		*q100, *q250, *q500;
	struct tune_answer	 a;
	double			 model_ms, model_p50;
	int			 queue_run;

	setup();
	three_verified(&q100, &q250, &q500);
	answer(q250, &a, &model_ms, &model_p50);
	checks_verified_add(&d, d.model_run, &a, 240, 13);
	ASSERT_EQ(d.nverified, 1);
	/* Slower by half, then by half again: the same way twice. */
	ASSERT(measured(q100, 1.4, 1.5, &queue_run) == CHECK_SUSPECT);
	ASSERT_EQ(d.nverified, 1);
	ASSERT(measured(q100, 1.4, 1.5, &queue_run) == CHECK_DRIFTED);
	ASSERT_EQ(queue_run, 1);
	ASSERT_EQ(d.drift, 1);
	ASSERT_EQ(d.drift_run, d.model_run);
	ASSERT_EQ(d.nverified, 0);
	ASSERT_STR_CONTAINS(d.drift_why, "1.50 x what it took then");
	teardown();
}

TEST(a_suspect_off_the_other_way_is_no_drift)
{
	struct question	*q100, *q250, *q500;
	int		 queue_run;

	setup();
	three_verified(&q100, &q250, &q500);
	ASSERT(measured(q100, 1.4, 1.5, &queue_run) == CHECK_SUSPECT);
	ASSERT(measured(q100, 0.6, 0.6, &queue_run) == CHECK_SUSPECT);
	ASSERT_EQ(queue_run, 0);
	ASSERT_EQ(d.drift, 0);
	teardown();
}

TEST(a_refit_rebases_what_each_question_measured)
{
	struct question		*q250;
	struct model		*was;
	size_t			 i;
	double			 c, mc, smc, seen;
	int			 queue_run;

	setup();
	ASSERT((q250 = ask(250)) != NULL);
	/* Measured 1.1 x the model, at 1.2 x its median. */
	ASSERT(measured(q250, 1.1, 1.2, &queue_run) == CHECK_CORRECTED);
	c = q250->cs.c;
	mc = q250->cs.mc;
	seen = q250->cs.seen[0];
	ASSERT(fabs(mc - 1.2) < 1e-9);
	q250->cs.suspect = 1;		/* and a suspect's median kept */
	q250->cs.suspect_mc = smc = 0.9;
	/*
	 * The model it replaced said 1.25 x what the refitted one says
	 * everywhere: what was measured is 1.25 x more of the new model.
	 */
	ASSERT((was = malloc(sizeof(*was))) != NULL);
	memcpy(was, d.model, sizeof(*was));
	for (i = 0; i < was->ncurves; i++) {
		was->curves[i].chk_n = 1;
		was->curves[i].chk_a = log(1.25);
		was->curves[i].chk_b = 0;
		was->curves[i].chk_m0 = 1;
		was->curves[i].chk_mlo = 1;
		was->curves[i].chk_mhi = UINT32_MAX;
	}
	checks_rebase(&d, was);
	ASSERT(fabs(q250->cs.c / c - 1.25) < 0.01);
	ASSERT(fabs(q250->cs.seen[0] / seen - 1.25) < 0.01);
	ASSERT(fabs(q250->cs.mc / mc - 1.25) < 0.01);
	ASSERT(fabs(q250->cs.suspect_mc / smc - 1.25) < 0.01);
	free(was);
	teardown();
}

/*
 * A refit that moves the default answer to another library (a grid of
 * its variant came for libsodium): what was measured was the other
 * library's, and the question starts again, not rebased.
 */
TEST(a_refit_onto_another_library_starts_the_question_again)
{
	struct question		*q250;
	struct model		*was;
	size_t			 i;
	int			 queue_run;

	setup();
	ASSERT((q250 = ask(250)) != NULL);
	ASSERT(measured(q250, 1.1, 1.2, &queue_run) == CHECK_CORRECTED);
	ASSERT(q250->cs.nchecks > 0 && q250->cs.c != 1);
	ASSERT_STR_EQ(stack_default(d.model, KDF_ALG_ARGON2ID), "libsodium");
	/* The model it replaced had no libsodium argon2id: libargon2's. */
	ASSERT((was = malloc(sizeof(*was))) != NULL);
	memcpy(was, d.model, sizeof(*was));
	for (i = 0; i < was->ncurves; i++)
		if (was->curves[i].backend == KDF_BACKEND_LIBSODIUM)
			was->curves[i].variant = KDF_ALG_ARGON2I;
	ASSERT_STR_EQ(stack_default(was, KDF_ALG_ARGON2ID), "libargon2");
	checks_rebase(&d, was);
	ASSERT_EQ(q250->cs.nchecks, 0);
	ASSERT(q250->cs.c == 1);
	free(was);
	teardown();
}

/*
 * A runtime whose probe hashed through the curve's own library file is
 * answered as that library (stack_correction), so its questions are the
 * library's: one question checked, its correction read for both, and a
 * runtime on another library file keeps its own.
 */
TEST(a_runtime_on_the_curves_library_is_checked_as_the_library)
{
	struct model_stack	 st;
	struct check_state	 cs;
	struct tune_query	 q;
	struct question		*qu;
	char			 at[32];
	int			 queue_run;

	setup();
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "php-sodium");
	st.how = MODEL_STACK_PROBED;
	st.c = 1.3;
	st.nprobe = 4;
	snprintf(st.shares, sizeof(st.shares),
	    "/usr/lib/x86_64-linux-gnu/libsodium.so.23.3.0");
	ASSERT_EQ(model_stack_set(d.model, &st), 0);
	ASSERT_STR_EQ(stack_checked_as(d.model, "php-sodium"), "libsodium");
	ASSERT_STR_EQ(stack_checked_as(d.model, "libsodium"), "libsodium");
	ASSERT(stack_checked_as(d.model, NULL) == NULL);

	tune_query_init(&q);
	q.target_ms = 250;
	q.floor = TUNE_FLOOR_NONE;
	/*
	 * libsodium is the default stack here: its question is the
	 * default's (no stack), whose answer is its.
	 */
	ASSERT_STR_EQ(stack_default(d.model, KDF_ALG_ARGON2ID), "libsodium");
	checks_asked(&d, &q, "php-sodium");
	checks_asked(&d, &q, "php-sodium");
	checks_asked(&d, &q, "libsodium");
	checks_asked(&d, &q, NULL);
	ASSERT_UEQ(d.nquestions, 1);
	qu = &d.questions[0];
	ASSERT_STR_EQ(qu->stack, "");
	ASSERT_UEQ(qu->asks, 4);
	ASSERT(measured(qu, 1.1, 1.2, &queue_run) == CHECK_CORRECTED);
	ASSERT(qu->cs.c > 1.05);
	ASSERT_EQ(checks_state(&d, &q, "php-sodium", &cs, at, sizeof(at),
	    NULL), 1);
	ASSERT(cs.c > 1.05 && cs.c == qu->cs.c && cs.nchecks == 1);
	ASSERT_EQ(checks_state(&d, &q, "libsodium", &cs, at, sizeof(at),
	    NULL), 1);
	ASSERT(cs.c > 1.05 && cs.c == qu->cs.c && cs.nchecks == 1);
	ASSERT_EQ(checks_state(&d, &q, NULL, &cs, at, sizeof(at), NULL), 1);
	ASSERT(cs.c > 1.05 && cs.c == qu->cs.c && cs.nchecks == 1);
	/* ... and one answer: the default's is libsodium's, corrected. */
	{
		struct tune_answer	a1, a2;
		double			ms;
		char			err[256];

		ASSERT(check_answer(d.model, NULL, &q, cs.c, &a1, &ms, err,
		    sizeof(err)) >= 0);
		ASSERT(check_answer(d.model, "libsodium", &q, cs.c, &a2, &ms,
		    err, sizeof(err)) >= 0);
		ASSERT_UEQ(a1.m_kib, a2.m_kib);
		ASSERT_UEQ(a1.t, a2.t);
		ASSERT_UEQ(a1.p, a2.p);
	}
	/* An explicit backend is its own question, named or not. */
	q.backend = KDF_BACKEND_LIBSODIUM;
	checks_asked(&d, &q, NULL);
	ASSERT_UEQ(d.nquestions, 2);
	ASSERT_EQ(checks_state(&d, &q, NULL, &cs, at, sizeof(at), NULL), 0);
	checks_asked(&d, &q, "libsodium");
	ASSERT_UEQ(d.nquestions, 3);
	ASSERT_STR_EQ(d.questions[2].stack, "libsodium");
	q.backend = KDF_BACKEND_AUTO;
	/* ... and so is more than one lane. */
	q.parallelism = 2;
	checks_asked(&d, &q, "libsodium");
	ASSERT_UEQ(d.nquestions, 4);
	ASSERT_STR_EQ(d.questions[3].stack, "libsodium");
	q.parallelism = 0;

	/* Its probe on another library file: its own question, unchecked. */
	st.shares[0] = '\0';
	ASSERT_EQ(model_stack_set(d.model, &st), 0);
	ASSERT_STR_EQ(stack_checked_as(d.model, "php-sodium"), "php-sodium");
	ASSERT_EQ(checks_state(&d, &q, "php-sodium", &cs, at, sizeof(at),
	    NULL), 0);
	ASSERT(cs.c == 1 && cs.nchecks == 0);
	checks_asked(&d, &q, "php-sodium");
	ASSERT_UEQ(d.nquestions, 5);
	ASSERT_STR_EQ(d.questions[4].stack, "php-sodium");
	teardown();
}

/*
 * A runtime's question kept before a run found it on the curve's library
 * file is no longer checked (its runtime is not started for a correction
 * no answer reads); while it is its own, it is. A budget of 1 % that no
 * check of a 4-second answer fits tells which: set aside, or not picked.
 */
TEST(a_runtimes_question_is_not_checked_once_it_is_the_librarys)
{
	struct model_stack	 st;
	struct tune_query	 q;
	struct question		*qu;

	setup();
	d.cfg.check_budget = 1;
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "php-sodium");
	st.how = MODEL_STACK_PROBED;
	st.c = 1.3;
	st.nprobe = 4;
	ASSERT_EQ(model_stack_set(d.model, &st), 0);
	tune_query_init(&q);
	q.target_ms = 4000;
	q.floor = TUNE_FLOOR_NONE;
	checks_asked(&d, &q, "php-sodium");
	checks_asked(&d, &q, "php-sodium");
	ASSERT_UEQ(d.nquestions, 1);
	qu = &d.questions[0];
	ASSERT_STR_EQ(qu->stack, "php-sodium");
	qu->asked = qu->burst = time(NULL) - 10;	/* past its gap */

	snprintf(st.shares, sizeof(st.shares),
	    "/usr/lib/x86_64-linux-gnu/libsodium.so.23.3.0");
	ASSERT_EQ(model_stack_set(d.model, &st), 0);
	ASSERT_EQ(checks_tick(&d, NULL), 0);
	ASSERT_STR_EQ(qu->cs.unmeasured, "");

	st.shares[0] = '\0';
	ASSERT_EQ(model_stack_set(d.model, &st), 0);
	ASSERT_EQ(checks_tick(&d, NULL), 0);
	ASSERT(strstr(qu->cs.unmeasured, "more than check_budget allows") !=
	    NULL);
	teardown();
}

TEST_LIST(
	TEST_ENTRY(a_runtimes_question_is_not_checked_once_it_is_the_librarys),
	TEST_ENTRY(a_runtime_on_the_curves_library_is_checked_as_the_library),
	TEST_ENTRY(a_suspect_brings_the_others_due_but_not_those_just_checked),
	TEST_ENTRY(a_drift_forgets_the_verifications_and_queues_a_run),
	TEST_ENTRY(a_suspect_off_the_other_way_is_no_drift),
	TEST_ENTRY(a_refit_rebases_what_each_question_measured),
	TEST_ENTRY(a_refit_onto_another_library_starts_the_question_again)
)
