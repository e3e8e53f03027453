/*
 * tests/unit/test_stack.c: the stack catalogue, the correction fitted to
 * a stack's points, and answers that hold in the stack, on the synthetic
 * host (libsodium as measured, libargon2 2x slower).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stack.h"
#include "synthetic.h"
#include "test.h"

static struct model	mdl;

static void
fit(int with_argon2)
{
	struct report	rep;
	char		err[256];

	synthetic_host(&rep, with_argon2, 1, 8ULL << 30);
	if (model_fit(&rep, &mdl, err, sizeof(err)) != 0)
		TEST_FAIL("model_fit: %s", err);
	report_release(&rep);
}

/* The base curve's p50 for (m, t) at k = 1. */
static double
base_ms(enum kdf_backend b, uint32_t m_kib, uint32_t t)
{
	struct model_prediction	pr;

	model_predict(&mdl, model_curve_find(&mdl, b, KDF_ALG_ARGON2ID, 1),
	    m_kib, t, 1, 50, &pr);
	return pr.p50_ms;
}

/* n points of a stack that runs c x the libargon2 curve + d ms. */
static size_t
points(struct stack_point *pts, double c, double d)
{
	static const uint32_t	ms[] = { 16384, 65536, 131072, 262144,
				    524288 };
	size_t			i;

	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		memset(&pts[i], 0, sizeof(pts[i]));
		pts[i].m_kib = ms[i];
		pts[i].t = 2;
		pts[i].p = 1;
		pts[i].k = 1;
		pts[i].n = 5;
		pts[i].probe = 1;
		pts[i].median_ms = c * base_ms(KDF_BACKEND_LIBARGON2, ms[i], 2)
		    + d;
		pts[i].p95_ms = pts[i].median_ms * 1.05;
	}
	return i;
}

/* b's curve measured by a check at 64 MiB, t = 2: ratio x the curve. */
static void
check_64mib(enum kdf_backend b, double ratio)
{
	struct model_check_point	ck;

	memset(&ck, 0, sizeof(ck));
	ck.backend = b;
	ck.variant = KDF_ALG_ARGON2ID;
	ck.m_kib = 65536;
	ck.t = 2;
	ck.p = 1;
	ck.n = 20;
	ck.median_ms = ratio * base_ms(b, 65536, 2);
	if (model_fit_checks(&mdl, &ck, 1) != 1)
		TEST_FAIL("the check at 64 MiB was not used");
}

/*
 * A stack probed here and the checks of its library: the checks' factor
 * applies to the stack's answers on top of its own correction, whether
 * the stack was fitted before or after the checks (its fit stands on the
 * curve as the run measured it); check_predict says what the answer
 * path predicts.
 */
TEST(checks_apply_to_a_probed_stack)
{
	struct stack_point		pts[8];
	struct model_stack		st;
	struct tune_query		q;
	char				err[256];
	double				before, after, via;
	size_t				n;

	fit(1);
	n = points(pts, 1.4, 6.0);
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "php");
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, 65536, 2, 1, 1,
	    50, &before), 0);

	/* libargon2 measured 1.3 x its curve at 64 MiB. */
	check_64mib(KDF_BACKEND_LIBARGON2, 1.3);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, 65536, 2, 1, 1,
	    50, &after), 0);
	/* c x (1.3 x curve) + d, not c x curve + d. */
	if (!(after > before * 1.2))
		TEST_FAIL("the stack's answer at 64 MiB moved from %.2f to "
		    "%.2f ms: the checks' 1.3 x did not reach it", before,
		    after);

	/* Fitted again after the checks (as at start-up): the same. */
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "php");
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, 65536, 2, 1, 1,
	    50, &via), 0);
	if (fabs(via / after - 1) > 1e-6)
		TEST_FAIL("refitted after the checks: %.3f ms, before them "
		    "%.3f ms", via, after);

	/* check_predict along the stack's path says the same. */
	tune_query_init(&q);
	q.percentile = 50;
	ASSERT_EQ(check_predict(&mdl, "php", &q, KDF_BACKEND_LIBARGON2, 65536,
	    2, 1, 1, &via), 0);
	ASSERT(fabs(via / after - 1) < 1e-9);
}

/*
 * The library's own stack: its probe times the library its curve
 * measured, at another moment; the curve stands for it, and once checks
 * exist, the curve as checked (the two are not multiplied together).
 */
TEST(checks_stand_for_a_library_probe)
{
	struct stack_point		pts[8];
	struct model_stack		st;
	char				err[256];
	double				probed, checked, base;
	size_t				i;

	fit(0);
	base = base_ms(KDF_BACKEND_LIBSODIUM, 65536, 2);
	for (i = 0; i < 5; i++) {
		memset(&pts[i], 0, sizeof(pts[i]));
		pts[i].m_kib = 16384u << i;
		pts[i].t = 2;
		pts[i].p = 1;
		pts[i].k = 1;
		pts[i].n = 5;
		pts[i].probe = 1;
		pts[i].median_ms = 0.9 * base_ms(KDF_BACKEND_LIBSODIUM,
		    pts[i].m_kib, 2);
		pts[i].p95_ms = pts[i].median_ms * 1.05;
	}
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "libsodium");
	ASSERT_EQ(stack_fit(&mdl, "libsodium", pts, 5, &st, err, sizeof(err)),
	    0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "libsodium", KDF_ALG_ARGON2ID, 65536, 2,
	    1, 1, 50, &probed), 0);
	/* Its probe at 0.9 x the curve: the curve's time. */
	if (fabs(probed / base - 1) > 1e-9)
		TEST_FAIL("libsodium's stack at %.3f x its curve, its probe "
		    "applied", probed / base);
	/* Checked at 1.1 x the curve: 1.1, not 0.9 x 1.1. */
	check_64mib(KDF_BACKEND_LIBSODIUM, 1.1);
	ASSERT_EQ(stack_predict(&mdl, "libsodium", KDF_ALG_ARGON2ID, 65536, 2,
	    1, 1, 50, &checked), 0);
	if (fabs(checked / base - 1.1) > 1e-9)
		TEST_FAIL("libsodium's stack at %.3f x its curve, the checks "
		    "said 1.1", checked / base);
	/*
	 * Why its probe is not applied: said to who asked for libsodium,
	 * not in the default answer (whose stack it is).
	 */
	{
		struct tune_query	q;
		struct tune_answer	a;

		tune_query_init(&q);
		q.target_ms = 250;
		ASSERT(stack_recommend(&mdl, "libsodium", &q, &a, err,
		    sizeof(err)) >= 0);
		ASSERT_STR_CONTAINS(a.notes, "For libsodium: the library's "
		    "curve as this host's run");
		ASSERT(stack_recommend(&mdl, NULL, &q, &a, err,
		    sizeof(err)) >= 0);
		ASSERT(strstr(a.notes, "For libsodium:") == NULL);
	}
}

/*
 * A runtime whose probe hashed through the curve's own library file
 * (PHP's password_hash on Debian's libargon2): its probe at 1.35 x the
 * curve is the host at another moment; it answers as stack=libargon2,
 * says so, and keeps the fit to show. Services' observations of it
 * (they time the service where it runs) are applied.
 */
TEST(a_runtime_on_the_curves_own_library_answers_as_the_library)
{
	struct stack_point		pts[16];
	struct model_stack		st;
	struct tune_query		q;
	struct tune_answer		lib, php;
	char				err[256];
	double				ms;
	size_t				n, i;

	fit(1);
	n = points(pts, 1.35, 0);
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "php");
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT(st.c > 1.3 && st.c < 1.4);
	ASSERT_STR_EQ(st.shares, "");	/* the caller's to set */
	snprintf(st.shares, sizeof(st.shares), "/usr/lib/libargon2.so.1");
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT(stack_correction(&mdl, "php") == NULL);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, 65536, 2, 1, 1,
	    50, &ms), 0);
	ASSERT(fabs(ms / base_ms(KDF_BACKEND_LIBARGON2, 65536, 2) - 1) < 1e-9);

	tune_query_init(&q);
	q.target_ms = 250;
	ASSERT(stack_recommend(&mdl, "libargon2", &q, &lib, err,
	    sizeof(err)) >= 0);
	ASSERT(stack_recommend(&mdl, "php", &q, &php, err, sizeof(err)) >= 0);
	ASSERT_UEQ(php.m_kib, lib.m_kib);
	ASSERT_UEQ(php.t, lib.t);
	ASSERT(fabs(php.predicted_ms - lib.predicted_ms) < 1e-9);
	ASSERT(strstr(php.notes, "hashed through /usr/lib/libargon2.so.1, "
	    "the library file this host's libargon2 curve measured") != NULL);
	ASSERT(strstr(php.notes, "(1.35 x the curve there) and is not "
	    "applied") != NULL);
	/* Answered and checked as the library, and a correction says where. */
	ASSERT_STR_EQ(stack_answered_as(&mdl, "php"), "libargon2");
	ASSERT(stack_answered_as(&mdl, "libargon2") == NULL);
	ASSERT(stack_answered_as(&mdl, "no-such-stack") == NULL);
	ASSERT_STR_EQ(stack_checked_as(&mdl, "php"), "libargon2");
	ASSERT(check_answer(&mdl, "php", &q, 1.1, &php, &ms, err,
	    sizeof(err)) >= 0);
	ASSERT(strstr(php.notes, "at 1.10 x what the model predicts (in "
	    "libargon2, the library file php hashes through here)") != NULL);

	/* Five services' observations at 1.35 x: now it is applied. */
	for (i = 0; i < 5; i++) {
		pts[n + i] = pts[1];
		pts[n + i].probe = 0;
	}
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "php");
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n + 5, &st, err, sizeof(err)),
	    0);
	snprintf(st.shares, sizeof(st.shares), "/usr/lib/libargon2.so.1");
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT(stack_correction(&mdl, "php") != NULL);
	ASSERT(stack_recommend(&mdl, "php", &q, &php, err, sizeof(err)) >= 0);
	ASSERT(php.m_kib < lib.m_kib);
	ASSERT(stack_answered_as(&mdl, "php") == NULL);
	ASSERT_STR_EQ(stack_checked_as(&mdl, "php"), "php");
	ASSERT(check_answer(&mdl, "php", &q, 1.1, &php, &ms, err,
	    sizeof(err)) >= 0);
	ASSERT(strstr(php.notes, "(in php, by its probe)") != NULL);
}

/*
 * The default answer advises on libargon2's clients (2 x libsodium's time
 * here); a named stack's own answer does not: php-sodium is what that
 * advice tells them to use, and php its own answer on libargon2.
 */
TEST(a_stacks_own_answer_has_no_advice_for_other_stacks)
{
	struct tune_query	q;
	struct tune_answer	a;
	char			err[256];
	static const char	advice[] = "libargon2 as Debian builds it";

	fit(1);
	tune_query_init(&q);
	q.target_ms = 250;
	ASSERT(stack_recommend(&mdl, NULL, &q, &a, err, sizeof(err)) >= 0);
	ASSERT(strstr(a.notes, advice) != NULL);
	ASSERT(stack_recommend(&mdl, "php-sodium", &q, &a, err,
	    sizeof(err)) >= 0);
	ASSERT(a.m_kib > 0 && strstr(a.notes, advice) == NULL);
	ASSERT(stack_recommend(&mdl, "libsodium", &q, &a, err,
	    sizeof(err)) >= 0);
	ASSERT(strstr(a.notes, advice) == NULL);
}

TEST(catalogue_names_and_lookup)
{
	const struct stack_def	*all, *meant[STACK_SUGGEST_MAX];
	char			 names[512], text[160], small[12];
	size_t			 n, i;

	all = stack_catalogue(&n);
	ASSERT(n >= 9);
	for (i = 0; i < n; i++)
		ASSERT(stack_find(all[i].name) == &all[i]);
	ASSERT(stack_find("php")->base == KDF_BACKEND_LIBARGON2);
	ASSERT(stack_find("php-sodium")->p1_only);
	ASSERT(stack_find("cobol") == NULL);
	/* A name in another case, or the stacks it begins: meant. */
	ASSERT(stack_find("PHP") == NULL);
	ASSERT_EQ(stack_suggest("PHP", meant, STACK_SUGGEST_MAX), 1);
	ASSERT(meant[0] == stack_find("php"));
	ASSERT_EQ(stack_suggest("Java-BouncyCastle", meant, 3), 1);
	ASSERT(meant[0] == stack_find("java-bouncycastle"));
	ASSERT_EQ(stack_suggest("node", meant, 3), 1);
	ASSERT(meant[0] == stack_find("node-argon2"));
	ASSERT_EQ(stack_suggest("Python", meant, 3), 2);
	ASSERT(meant[0] == stack_find("python-argon2-cffi"));
	ASSERT(meant[1] == stack_find("python-pynacl"));
	/* More than max: none is likely. */
	ASSERT_EQ(stack_suggest("python", meant, 1), 0);
	/* One letter added, dropped, changed or two swapped: meant. */
	ASSERT_EQ(stack_suggest("phpp", meant, 3), 1);
	ASSERT(meant[0] == stack_find("php"));
	ASSERT_EQ(stack_suggest("ph", meant, 3), 1);
	ASSERT(meant[0] == stack_find("php"));
	ASSERT_EQ(stack_suggest("php-", meant, 3), 1);
	ASSERT(meant[0] == stack_find("php"));
	ASSERT_EQ(stack_suggest("Pyhton-PyNaCl", meant, 3), 1);
	ASSERT(meant[0] == stack_find("python-pynacl"));
	ASSERT_EQ(stack_suggest("libsodiun", meant, 3), 1);
	ASSERT(meant[0] == stack_find("libsodium"));
	ASSERT_EQ(stack_suggest("gi", meant, 3), 1);
	ASSERT(meant[0] == stack_find("go"));
	ASSERT_EQ(stack_suggest("g", meant, 3), 1);
	ASSERT(meant[0] == stack_find("go"));
	ASSERT_EQ(stack_suggest("pph", meant, 3), 1);
	ASSERT(meant[0] == stack_find("php"));
	ASSERT_EQ(stack_suggest("hpp", meant, 3), 1);
	ASSERT(meant[0] == stack_find("php"));
	/* Two letters off, or nothing like a name: none. */
	ASSERT_EQ(stack_suggest("phppp", meant, 3), 0);
	ASSERT_EQ(stack_suggest("pjq", meant, 3), 0);
	ASSERT_EQ(stack_suggest("cobol", meant, 3), 0);
	ASSERT_EQ(stack_suggest("", meant, 3), 0);
	ASSERT_EQ(stack_suggest(NULL, meant, 3), 0);
	stack_suggest_text("python", text, sizeof(text));
	ASSERT_STR_EQ(text, " (did you mean python-argon2-cffi or "
	    "python-pynacl?)");
	stack_suggest_text("PHP", text, sizeof(text));
	ASSERT_STR_EQ(text, " (did you mean php?)");
	stack_suggest_text("cobol", text, sizeof(text));
	ASSERT_STR_EQ(text, "");
	stack_suggest_text("phpp", text, sizeof(text));
	ASSERT_STR_EQ(text, " (did you mean php?)");
	/* A buffer too small: nothing written past it (ASan watches
	   small's end), nothing half said. */
	stack_suggest_text("python", small, sizeof(small));
	ASSERT_STR_EQ(small, "");
	stack_suggest_text("PHP", small, sizeof(small));
	ASSERT_STR_EQ(small, "");
	stack_names(names, sizeof(names));
	ASSERT_STR_CONTAINS(names, "python-argon2-cffi");
	ASSERT_STR_CONTAINS(names, "java-bouncycastle");
}

TEST(how_says_installed_only_when_known)
{
	struct model_stack	st;

	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "php");
	st.how = MODEL_STACK_LIBRARY;
	ASSERT_STR_EQ(stack_how_text(&st),
	    "library measured, runtime not probed here");
	ASSERT_EQ(stack_how_measured(&st), 0);
	st.runtime_here = MODEL_RUNTIME_HERE;
	ASSERT_STR_EQ(stack_how_text(&st),
	    "library measured, runtime not probed here");
	st.runtime_here = MODEL_RUNTIME_MISSING;
	ASSERT_STR_EQ(stack_how_text(&st),
	    "library measured, runtime not installed here");
	ASSERT_EQ(stack_how_measured(&st), 0);
	ASSERT_STR_EQ(stack_how_text(NULL),
	    "library measured, runtime not probed here");
	/* The C libraries are their own runtime, measured here. */
	snprintf(st.name, sizeof(st.name), "libargon2");
	ASSERT_STR_EQ(stack_how_text(&st), "library measured here");
	ASSERT_EQ(stack_how_measured(&st), 1);
	st.how = MODEL_STACK_PROBED;
	snprintf(st.name, sizeof(st.name), "php");
	ASSERT_STR_EQ(stack_how_text(&st), "probed here");
	ASSERT_EQ(stack_how_measured(&st), 1);
	st.how = MODEL_STACK_OBSERVED;
	ASSERT_STR_EQ(stack_how_text(&st), "observations");
	ASSERT_EQ(stack_how_measured(&st), 1);
}

TEST(fit_recovers_slope_and_fixed_cost)
{
	struct stack_point	pts[8];
	struct model_stack	st;
	char			err[256];
	size_t			n;

	fit(1);
	n = points(pts, 1.4, 6.0);
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT(fabs(st.c - 1.4) < 0.01);
	ASSERT(fabs(st.d - 6.0) < 0.5);
	ASSERT_EQ(st.how, MODEL_STACK_PROBED);
	ASSERT_UEQ(st.nprobe, n);
	ASSERT(st.fit_error < 0.01);
}

TEST(one_far_point_does_not_bend_the_fit)
{
	struct stack_point	pts[8];
	struct model_stack	st;
	char			err[256];
	size_t			n;

	fit(1);
	n = points(pts, 1.3, 0);
	pts[2].median_ms *= 2.5;	/* one noisy point */
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT(fabs(st.c - 1.3) < 0.02);
}

TEST(one_noisy_knot_is_the_neighbours)
{
	struct stack_point	pts[8];
	struct model_stack	st;
	char			err[256];
	double			ms;
	size_t			n;

	fit(1);
	n = points(pts, 1.0, 0);
	/* One point measured in a busy moment: 2.5 x its neighbours. */
	pts[2].median_ms *= 2.5;
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, pts[2].m_kib,
	    pts[2].t, 1, 1, 50, &ms), 0);
	ASSERT(fabs(ms - pts[2].median_ms / 2.5) / ms < 0.01);
	/* The last one too: its neighbour's ratio. */
	n = points(pts, 1.0, 0);
	pts[n - 1].median_ms *= 0.5;
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID,
	    pts[n - 1].m_kib, pts[n - 1].t, 1, 1, 50, &ms), 0);
	ASSERT(fabs(ms - pts[n - 1].median_ms / 0.5) / ms < 0.01);
}

/*
 * Services' observations of one size, many hashes each, are not a busy
 * moment: the knot they make outweighs its neighbours' (the probe's few
 * hashes) and stands, where the neighbours' median overruled it.
 */
/* A service's post of 20 hashes at 128 MiB, t = 2: 0.5 x base ms. */
static void
observed(struct stack_point *pt, double base)
{
	memset(pt, 0, sizeof(*pt));
	pt->m_kib = 131072;
	pt->t = 2;
	pt->p = 1;
	pt->k = 1;
	pt->n = 20;
	pt->median_ms = 0.5 * base;
	pt->p95_ms = 0.52 * base;
}

TEST(observations_of_a_size_are_not_a_noisy_knot)
{
	struct stack_point	pts[12];
	struct model_stack	st;
	char			err[256];
	double			ms, base;
	size_t			i, n;

	fit(1);
	n = points(pts, 1.0, 0);
	base = base_ms(KDF_BACKEND_LIBARGON2, 131072, 2);
	for (i = 0; i < 3; i++)
		observed(&pts[n++], base);
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, 131072, 2, 1, 1,
	    50, &ms), 0);
	/* 5 probe samples at 1.0, 15 observed at 0.5: 0.625 of the curve. */
	if (!(fabs(ms / base - 0.625) < 0.02))
		TEST_FAIL("at the observed size %.3f x the curve, not 0.625",
		    ms / base);
	/* One post alone does not outweigh the probe's neighbours. */
	n = points(pts, 1.0, 0);
	observed(&pts[n++], base);
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, 131072, 2, 1, 1,
	    50, &ms), 0);
	if (!(fabs(ms / base - 1.0) < 0.02))
		TEST_FAIL("one post moved its size to %.3f x the curve", ms /
		    base);
}

/*
 * The same at an end of the sizes: services' posts at the largest size
 * make a knot that weighs STACK_KNOT_HEAVY x its neighbour's, which
 * stands where a probe's end knot as far off would take its neighbour's
 * ratio.
 */
TEST(observations_at_an_end_are_not_a_noisy_knot)
{
	struct stack_point	pts[12];
	struct model_stack	st;
	char			err[256];
	double			ms, base;
	size_t			i, n;

	fit(1);
	n = points(pts, 1.0, 0);
	base = base_ms(KDF_BACKEND_LIBARGON2, 524288, 2);
	for (i = 0; i < 3; i++) {
		observed(&pts[n], base);
		pts[n++].m_kib = 524288;
	}
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, 524288, 2, 1, 1,
	    50, &ms), 0);
	/* 5 probe samples at 1.0, 15 observed at 0.5: 0.625 of the curve. */
	if (!(fabs(ms / base - 0.625) < 0.02))
		TEST_FAIL("at the largest size %.3f x the curve, not 0.625",
		    ms / base);
	/* The probe's own end knot as far off: its neighbour's ratio. */
	n = points(pts, 1.0, 0);
	pts[n - 1].median_ms *= 0.625;
	pts[n - 1].p95_ms = pts[n - 1].median_ms * 1.05;
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID, 524288, 2, 1, 1,
	    50, &ms), 0);
	if (!(fabs(ms / base - 1.0) < 0.02))
		TEST_FAIL("a probe's end knot 0.625 x stood at %.3f x", ms /
		    base);
}

/* The cap a cliff in pts puts on go's answers (a runtime with a collector of its own, and no heap cap in the catalogue) (0: none). */
static uint32_t
cliff_cap(const struct stack_point *pts, size_t n)
{
	struct model_stack	st;
	char			err[256];

	memset(&st, 0, sizeof(st));
	if (stack_fit(&mdl, "go", pts, n, &st, err,
	    sizeof(err)) != 0)
		TEST_FAIL("stack_fit: %s", err);
	return st.m_max_kib;
}

/*
 * A cliff: the largest sizes 4 x the smaller ones' ratio (Java's
 * collector past its young generation): answers stay at or below the
 * largest size under it, and say why; a busy moment inside the range
 * (the sizes past it back on the line) is no cliff, nor are services'
 * posts or a probe point of fewer than STACK_CLIFF_SAMPLES hashes.
 */
TEST(answers_stay_under_a_cliff)
{
	struct stack_point	pts[16];
	struct model_stack	st;
	struct tune_query	q;
	struct tune_answer	a;
	char			err[256];
	size_t			n, i;

	fit(1);
	n = points(pts, 1.2, 0);
	pts[n - 2].median_ms *= 4;	/* 262144 KiB */
	pts[n - 1].median_ms *= 4;	/* 524288 KiB */
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(stack_fit(&mdl, "go", pts, n, &st, err,
	    sizeof(err)), 0);
	ASSERT_UEQ(st.cliff_m_kib, 262144);
	ASSERT_UEQ(st.m_max_kib, 104448);	/* 80 % of 131072, in MiB */
	ASSERT(fabs(st.cliff_ratio - 4) < 1e-6);
	{
		struct model_stack	lib;

		/* The same sizes in a C library: no heap, a busy moment. */
		memset(&lib, 0, sizeof(lib));
		ASSERT_EQ(stack_fit(&mdl, "libargon2", pts, n, &lib, err,
		    sizeof(err)), 0);
		ASSERT_UEQ(lib.cliff_m_kib, 0);
		ASSERT_UEQ(lib.m_max_kib, 0);
	}
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	/* 2 s would take m past 104448 KiB at t = 2 on this curve. */
	tune_query_init(&q);
	q.target_ms = 2000;
	q.floor = TUNE_FLOOR_NONE;
	ASSERT(stack_recommend(&mdl, "go", &q, &a, err,
	    sizeof(err)) >= 0);
	if (a.m_kib > 104448)
		TEST_FAIL("m = %u KiB, past the cliff's cap 104448", a.m_kib);
	ASSERT_STR_CONTAINS(a.notes, "For go: a hash of m = "
	    "262144 KiB took 4.0 x what its smaller sizes gave against the "
	    "curve");
	ASSERT_STR_CONTAINS(a.notes, "stay at or below m = 104448 KiB, under "
	    "the 131072 KiB that held");
	/* At k = 2 each hash stays under it as well. */
	q.k = 2;
	ASSERT(stack_recommend(&mdl, "go", &q, &a, err,
	    sizeof(err)) >= 0);
	ASSERT(a.m_kib <= 104448);

	/* Only the largest over: a cliff too (nothing past it says no). */
	n = points(pts, 1.2, 0);
	pts[n - 1].median_ms *= 3;
	ASSERT_UEQ(cliff_cap(pts, n), 208896);
	/* Inside the range, the sizes past it on the line: no cliff. */
	n = points(pts, 1.2, 0);
	pts[2].median_ms *= 3;
	ASSERT_UEQ(cliff_cap(pts, n), 0);
	/* 1.9 x: under STACK_CLIFF, no cliff. */
	n = points(pts, 1.2, 0);
	pts[n - 1].median_ms *= 1.9;
	ASSERT_UEQ(cliff_cap(pts, n), 0);
	/* Services' posts, or a probe point of two hashes: no cliff. */
	n = points(pts, 1.2, 0);
	pts[n - 2].median_ms *= 4;
	pts[n - 1].median_ms *= 4;
	pts[n - 2].probe = pts[n - 1].probe = 0;
	ASSERT_UEQ(cliff_cap(pts, n), 0);
	pts[n - 2].probe = pts[n - 1].probe = 1;
	pts[n - 2].n = pts[n - 1].n = 2;
	ASSERT_UEQ(cliff_cap(pts, n), 0);
	/* Posts far under the probe's sizes do not make its sizes a cliff
	   (five at 8 MiB, 100 x faster than the curve). */
	n = points(pts, 1.2, 0);
	for (i = 0; i < 5; i++) {
		pts[n + i] = pts[0];
		pts[n + i].m_kib = 8192;
		pts[n + i].probe = 0;
		pts[n + i].median_ms = base_ms(KDF_BACKEND_LIBARGON2, 8192,
		    2) / 100;
	}
	ASSERT_UEQ(cliff_cap(pts, n + 5), 0);
	/* A cap under what the floor needs: the error names the cliff, not
	   the caller's memory. */
	n = points(pts, 1.2, 0);
	for (i = 2; i < n; i++)
		pts[i].median_ms *= 4;
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(stack_fit(&mdl, "go", pts, n, &st, err,
	    sizeof(err)), 0);
	ASSERT_UEQ(st.m_max_kib, 52224);	/* 80 % of 65536, in MiB */
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	tune_query_init(&q);
	q.target_ms = 1000;
	q.floor = TUNE_FLOOR_RFC9106;
	ASSERT_EQ(stack_recommend(&mdl, "go", &q, &a, err,
	    sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "go: no parameters at or "
	    "below m = 52224 KiB meet the rfc9106 floor here");
}

/*
 * A cliff begins where its hashes first showed it: the sizes under it
 * whose slowest hash took STACK_CLIFF x their median, each of them up to
 * the cliff (a JVM's heap growing into fresh memory: one hash of a size,
 * then every hash of the next). The cap goes under the first of them,
 * and the spread is that of the sizes under the cap: the pauses past it
 * are not what an answer under it meets. A tail alone makes no cliff,
 * nor does one that the sizes after it do not carry on.
 */
TEST(a_cliff_begins_where_its_hashes_showed_it)
{
	struct stack_point	pts[16];
	struct model_stack	st;
	struct tune_query	q;
	struct tune_answer	a;
	char			err[256];
	size_t			n;

	fit(1);
	/*
	 * The cliff at 524288 KiB (its own hashes 2 x apart); one hash of
	 * 262144 KiB 2.5 x the others before it.
	 */
	n = points(pts, 1.2, 0);
	pts[n - 1].median_ms *= 4;
	pts[n - 1].p95_ms = pts[n - 1].median_ms * 2.0;
	pts[n - 2].p95_ms = pts[n - 2].median_ms * 2.5;
	/*
	 * A runtime that hashes in C memory (php) has no heap to grow: the
	 * same slow size is a busy moment, not a cliff.
	 */
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err,
	    sizeof(err)), 0);
	ASSERT_UEQ(st.cliff_m_kib, 0);
	ASSERT_UEQ(st.cliff_onset_kib, 0);
	ASSERT_UEQ(st.m_max_kib, 0);
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(stack_fit(&mdl, "go", pts, n, &st, err,
	    sizeof(err)), 0);
	ASSERT_UEQ(st.cliff_m_kib, 524288);
	ASSERT_UEQ(st.cliff_onset_kib, 262144);
	ASSERT(fabs(st.cliff_onset_tail - 2.5) < 1e-9);
	ASSERT_UEQ(st.cliff_held_kib, 131072);
	ASSERT_UEQ(st.m_max_kib, 104448);	/* 80 % of 131072, in MiB */
	/* Its spread: the sizes under the cap (1.05), not the onset's. */
	if (!(st.spread95 > 0 && st.spread95 < 1.5))
		TEST_FAIL("spread %.3f: the tail past the cap counted",
		    st.spread95);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	tune_query_init(&q);
	q.target_ms = 2000;
	q.floor = TUNE_FLOOR_NONE;
	ASSERT(stack_recommend(&mdl, "go", &q, &a, err,
	    sizeof(err)) >= 0);
	if (a.m_kib > 104448)
		TEST_FAIL("m = %u KiB, past the cap 104448", a.m_kib);
	if (!(a.predicted_ms < 1.5 * a.predicted_p50_ms))
		TEST_FAIL("p95 %.1f over p50 %.1f: the onset's tail counted",
		    a.predicted_ms, a.predicted_p50_ms);
	ASSERT_STR_CONTAINS(a.notes, "stay at or below m = 104448 KiB, under "
	    "the 131072 KiB that held (at m = 262144 KiB one hash already "
	    "took 2.5 x the others)");

	/* Every size from 65536 KiB up showed it: the cap under 16384. */
	pts[1].p95_ms = pts[1].median_ms * 2.2;
	pts[2].p95_ms = pts[2].median_ms * 3.0;
	ASSERT_UEQ(cliff_cap(pts, n), 12288);	/* 80 % of 16384, in MiB */
	/* A tail not carried on up to the cliff: the edge stays. */
	n = points(pts, 1.2, 0);
	pts[n - 1].median_ms *= 4;
	pts[n - 1].p95_ms = pts[n - 1].median_ms * 1.05;
	pts[n - 3].p95_ms = pts[n - 3].median_ms * 2.5;	/* 131072 */
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(stack_fit(&mdl, "go", pts, n, &st, err,
	    sizeof(err)), 0);
	ASSERT_UEQ(st.cliff_onset_kib, 0);
	ASSERT_UEQ(st.m_max_kib, 208896);	/* 80 % of 262144, in MiB */
	/* ... and under the cap, that tail is the stack's. */
	if (!(st.spread95 >= 2.5 - 1e-9))
		TEST_FAIL("spread %.3f: the tail under the cap was dropped",
		    st.spread95);
	/* A tail alone, no cliff: no cap. */
	n = points(pts, 1.2, 0);
	pts[n - 2].p95_ms = pts[n - 2].median_ms * 2.5;
	pts[n - 1].p95_ms = pts[n - 1].median_ms * 2.5;
	ASSERT_UEQ(cliff_cap(pts, n), 0);
}


TEST(a_point_out_of_range_does_not_move_a_stack_past_it)
{
	struct stack_point	pts[8];
	struct model_stack	st;
	char			err[256];
	size_t			n, i;

	fit(1);
	n = points(pts, 1.0, 0);
	/* One point 50 x its curve, one past any target (600 s). */
	pts[1].median_ms *= 50;
	pts[2].median_ms = 1.7e308;
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_UEQ(st.nknots, n - 1);
	for (i = 0; i < st.nknots; i++) {
		ASSERT(isfinite(st.knot_y[i]));
		ASSERT(st.knot_y[i] <= STACK_C_MAX * st.knot_x[i] * 1.000001);
	}
	ASSERT(isfinite(st.c) && isfinite(st.d));
}

TEST(observations_alone_correct_by_the_median_ratio)
{
	struct stack_point	pts[8];
	struct model_stack	st;
	char			err[256];
	size_t			i;

	fit(1);
	points(pts, 1.5, 0);
	for (i = 0; i < 5; i++) {
		pts[i].m_kib = 65536;	/* one size: no slope to tell */
		pts[i].probe = 0;
		pts[i].median_ms = 1.5 * base_ms(KDF_BACKEND_LIBARGON2,
		    65536, 2) * (0.98 + 0.01 * (double)i);
	}
	ASSERT_EQ(stack_fit(&mdl, "php", pts, 5, &st, err, sizeof(err)), 0);
	ASSERT_EQ(st.how, MODEL_STACK_OBSERVED);
	ASSERT(fabs(st.c - 1.5) < 0.02);
	ASSERT(st.d == 0);
}

TEST(answer_holds_in_the_stack)
{
	struct stack_point	pts[8];
	struct model_stack	st;
	struct tune_query	q;
	struct tune_answer	lib, a;
	char			err[256];
	size_t			n;

	fit(1);
	n = points(pts, 1.6, 4.0);
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	tune_query_init(&q);
	q.target_ms = 250;
	q.backend = KDF_BACKEND_LIBARGON2;
	ASSERT_EQ(tune_recommend(&mdl, &q, &lib, err, sizeof(err)), 0);
	tune_query_init(&q);
	q.target_ms = 250;
	ASSERT_EQ(stack_recommend(&mdl, "php", &q, &a, err, sizeof(err)), 0);
	ASSERT(a.met);
	ASSERT(a.backend == KDF_BACKEND_LIBARGON2);
	/* In PHP a hash of these parameters takes 1.6 x the curve + 4 ms. */
	{
		double	truth = 1.6 * base_ms(KDF_BACKEND_LIBARGON2, a.m_kib,
			    a.t) + 4.0;

		ASSERT(fabs(a.predicted_p50_ms - truth) / truth < 0.02);
	}
	ASSERT(a.predicted_ms <= 250.0);
	ASSERT(a.predicted_ms > 200.0);
	ASSERT(a.target_ms == 250.0);
	ASSERT((uint64_t)a.m_kib * a.t < (uint64_t)lib.m_kib * lib.t);
	ASSERT_STR_CONTAINS(a.notes, "measured here by its probe");
	/* The library's answer, in PHP: 1.6 x its time + 4 ms. */
	{
		double	ms, want;

		ASSERT_EQ(stack_predict(&mdl, "php", KDF_ALG_ARGON2ID,
		    lib.m_kib, lib.t, lib.p, 1, 95, &ms), 0);
		/* Its p95: its median, and its own spread over it. */
		want = (1.6 * lib.predicted_p50_ms + 4.0) * st.spread95;
		ASSERT(fabs(ms - want) / want < 0.02);
		ASSERT(ms > 250 * 1.5);
	}
}

/*
 * The model's quality is judged on libsodium's curve: a stack sized on
 * libargon2's says when that curve's error is past the bound, and only
 * then.
 */
TEST(a_stack_says_when_its_own_curve_is_poor)
{
	struct stack_point	 pts[8];
	struct model_stack	 st;
	struct model_curve	*cv;
	struct tune_query	 q;
	struct tune_answer	 a;
	char			 err[256];
	size_t			 n, i;

	fit(1);
	n = points(pts, 1.6, 4.0);
	ASSERT_EQ(stack_fit(&mdl, "php", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	for (cv = NULL, i = 0; i < mdl.ncurves; i++)
		if (model_curve_find(&mdl, KDF_BACKEND_LIBARGON2,
		    KDF_ALG_ARGON2ID, 1) == &mdl.curves[i])
			cv = &mdl.curves[i];
	ASSERT(cv != NULL);
	ASSERT(model_deciding_curve(&mdl) != cv);
	cv->loo_n = 5;
	cv->loo_worst = 0.20;
	tune_query_init(&q);
	q.target_ms = 250;
	ASSERT_EQ(stack_recommend(&mdl, "php", &q, &a, err, sizeof(err)), 0);
	ASSERT(strstr(a.notes, "leave-one-out") == NULL);
	cv->loo_worst = 1.855;
	ASSERT_EQ(stack_recommend(&mdl, "php", &q, &a, err, sizeof(err)), 0);
	ASSERT_STR_CONTAINS(a.notes, "For php: its answers are sized on the "
	    "libargon2 argon2id p = 1 curve, whose leave-one-out error is up "
	    "to 185.5 % (over 25 %)");
	/*
	 * libsodium's own answer, its curve as poor: the model's quality
	 * says it (its note), not the stack's.
	 */
	for (i = 0; i < mdl.ncurves; i++)
		if (model_deciding_curve(&mdl) == &mdl.curves[i]) {
			mdl.curves[i].loo_n = 5;
			mdl.curves[i].loo_worst = 1.855;
		}
	ASSERT_EQ(stack_recommend(&mdl, "libsodium", &q, &a, err,
	    sizeof(err)), 0);
	ASSERT(strstr(a.notes, "its answers are sized on the") == NULL);
}

TEST(measured_times_and_spread_are_the_stacks_own)
{
	struct stack_point	pts[8];
	struct model_stack	st;
	struct tune_query	q;
	struct tune_answer	a;
	char			err[256];
	double			ms;
	size_t			n, i;

	/*
	 * No line: 1.0 x the curve at 16 MiB, 1.2 x at 512 MiB (caches),
	 * and the largest of 5 samples 30 % over the median (a collector's
	 * pauses).
	 */
	fit(1);
	n = points(pts, 1.0, 0);
	for (i = 0; i < n; i++) {
		pts[i].median_ms *= 1.0 + 0.05 * (double)i;
		pts[i].p95_ms = pts[i].median_ms * 1.3;
	}
	ASSERT_EQ(stack_fit(&mdl, "go", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_UEQ(st.nknots, n);
	/* Each point's largest of 5 is 0.3 over: 0.3 / 1.16 sd; p95 1.7 sd. */
	ASSERT(fabs(st.spread95 - (1 + STACK_P95_SD * 0.3 / 1.16)) < 1e-9);
	/* One point's pause does not set it. */
	{
		struct model_stack	one;
		double			keep = pts[2].p95_ms;

		pts[2].p95_ms = pts[2].median_ms * 3;
		ASSERT_EQ(stack_fit(&mdl, "go", pts, n, &one, err,
		    sizeof(err)), 0);
		ASSERT(fabs(one.spread95 - st.spread95) < 1e-9);
		pts[2].p95_ms = keep;
	}
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	/* At each measured point, its measured median and p95. */
	for (i = 0; i < n; i++) {
		ASSERT_EQ(stack_predict(&mdl, "go", KDF_ALG_ARGON2ID,
		    pts[i].m_kib, pts[i].t, 1, 1, 50, &ms), 0);
		ASSERT(fabs(ms - pts[i].median_ms) / pts[i].median_ms < 1e-6);
		ASSERT_EQ(stack_predict(&mdl, "go", KDF_ALG_ARGON2ID,
		    pts[i].m_kib, pts[i].t, 1, 1, 95, &ms), 0);
		ASSERT(fabs(ms - pts[i].median_ms * st.spread95) /
		    pts[i].p95_ms < 1e-6);
	}
	/* Answers: its p95 within the target, and not far under it. */
	tune_query_init(&q);
	for (q.target_ms = 100; q.target_ms <= 1000; q.target_ms *= 2.5) {
		ASSERT_EQ(stack_recommend(&mdl, "go", &q, &a, err, sizeof(err)),
		    0);
		ASSERT_EQ(stack_predict(&mdl, "go", KDF_ALG_ARGON2ID, a.m_kib,
		    a.t, a.p, 1, 95, &ms), 0);
		ASSERT(fabs(ms - a.predicted_ms) < 1e-6);
		ASSERT(a.predicted_ms <= q.target_ms);
		ASSERT(a.predicted_ms > 0.8 * q.target_ms);
		ASSERT(a.percentile == 95);
	}
}

/*
 * A probe's four points at 0.8 x libargon2's curve, t = 1: a small one
 * (5 hashes) and three where answers fall (3 each), p95 1.02 x median.
 */
static void
four_probe_points(struct stack_point *pts)
{
	static const uint32_t	ms[] = { 8192, 131072, 262144, 524288 };
	size_t			i;

	for (i = 0; i < 4; i++) {
		memset(&pts[i], 0, sizeof(pts[i]));
		pts[i].m_kib = ms[i];
		pts[i].t = 1;
		pts[i].p = 1;
		pts[i].k = 1;
		pts[i].n = i == 0 ? 5 : 3;
		pts[i].probe = 1;
		pts[i].median_ms = 0.8 * base_ms(KDF_BACKEND_LIBARGON2, ms[i],
		    1);
		pts[i].p95_ms = pts[i].median_ms * 1.02;
	}
}

/*
 * A probe's four points, as one measures them: a small one and three
 * where answers fall. A pause in one large point's hashes (2.2 x its
 * median, a JVM's collector) is the stack's p95 tail; the small point's
 * tick (4 x a median of a few ms) is not.
 */
TEST(a_pause_in_a_large_point_is_the_stacks_tail)
{
	struct stack_point	pts[4];
	struct model_stack	st;
	struct tune_query	q;
	struct tune_answer	a;
	char			err[256];
	double			ms95;
	size_t			i;

	fit(1);
	four_probe_points(pts);
	ASSERT(pts[0].median_ms < STACK_TAIL_MIN_MS);
	ASSERT(pts[1].median_ms >= STACK_TAIL_MIN_MS);
	/* The small point's tick alone: the deviations' spread stands. */
	pts[0].p95_ms = pts[0].median_ms * 4;
	ASSERT_EQ(stack_fit(&mdl, "java-bouncycastle", pts, 4, &st, err,
	    sizeof(err)), 0);
	/*
	 * And not under the host's own tail either: the synthetic run's
	 * points have a p95 of 1.05 x their median; the probe's own
	 * deviations say 1 + 1.7 x 0.02 / 0.85.
	 */
	ASSERT(fabs(st.spread95 - 1.05) < 1e-9);
	/* Which its answers' note says. */
	{
		ASSERT_EQ(model_stack_set(&mdl, &st), 0);
		tune_query_init(&q);
		q.target_ms = 250;
		ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a,
		    err, sizeof(err)), 0);
		ASSERT_STR_CONTAINS(a.notes, "its p95 at this host's spread "
		    "(its own hashes showed none wider)");
	}
	/* The pause in the 128 MiB point's hashes sets it. */
	pts[0].p95_ms = pts[0].median_ms * 1.02;
	pts[1].p95_ms = pts[1].median_ms * 2.2;
	ASSERT_EQ(stack_fit(&mdl, "java-bouncycastle", pts, 4, &st, err,
	    sizeof(err)), 0);
	ASSERT(fabs(st.spread95 - 2.2) < 1e-9);
	/* A service's post of three hashes does not (the probe's only). */
	pts[1].probe = 0;
	ASSERT_EQ(stack_fit(&mdl, "java-bouncycastle", pts, 4, &st, err,
	    sizeof(err)), 0);
	ASSERT(st.spread95 < 1.2);
	pts[1].probe = 1;
	ASSERT_EQ(stack_fit(&mdl, "java-bouncycastle", pts, 4, &st, err,
	    sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	/* And the answers keep their median under the target / 2.2. */
	tune_query_init(&q);
	for (q.target_ms = 250; q.target_ms <= 1000; q.target_ms *= 2) {
		ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a,
		    err, sizeof(err)), 0);
		ASSERT(a.predicted_p50_ms <= q.target_ms / 2.2 + 1e-6);
		ASSERT(a.predicted_ms <= q.target_ms);
		ASSERT(a.predicted_ms > 0.8 * q.target_ms);
		ASSERT_EQ(stack_predict(&mdl, "java-bouncycastle",
		    KDF_ALG_ARGON2ID, a.m_kib, a.t, a.p, 1, 95, &ms95), 0);
		ASSERT(fabs(ms95 - a.predicted_p50_ms * 2.2) < 1e-6);
		ASSERT_STR_CONTAINS(a.notes, "its p95 from the spread its own "
		    "hashes showed");
	}
	/* From five such points, one of them no longer sets it. */
	{
		static const uint32_t	more[] = { 393216, 655360 };
		struct stack_point	six[6];
		struct model_stack	st5;

		memcpy(six, pts, sizeof(pts));
		for (i = 0; i < 2; i++) {
			six[4 + i] = pts[3];
			six[4 + i].m_kib = more[i];
			six[4 + i].median_ms = 0.8 * base_ms(
			    KDF_BACKEND_LIBARGON2, more[i], 1);
			six[4 + i].p95_ms = six[4 + i].median_ms * 1.02;
		}
		ASSERT_EQ(stack_fit(&mdl, "java-bouncycastle", six, 6, &st5,
		    err, sizeof(err)), 0);
		ASSERT(st5.spread95 < 1.2);
	}
}

/*
 * The same four points, one slow hash among a large point's three (1.76 x
 * its median): in a runtime that hashes in C memory (python-argon2-cffi)
 * it is the host's moment, and does not set the stack's tail; in one
 * whose collector pauses (go, java-bouncycastle) it does.
 */
TEST(a_slow_hash_sets_the_tail_only_where_a_collector_pauses)
{
	static const char *const c_memory[] = { "python-argon2-cffi", "php",
	    "node-argon2", "libargon2" };
	static const char *const collected[] = { "go", "java-bouncycastle" };
	struct stack_point	pts[4];
	struct model_stack	st;
	struct tune_query	q;
	struct tune_answer	a;
	char			err[256];
	size_t			i;

	fit(1);
	four_probe_points(pts);
	pts[2].p95_ms = pts[2].median_ms * 1.76;
	for (i = 0; i < sizeof(c_memory) / sizeof(c_memory[0]); i++) {
		ASSERT_EQ(stack_fit(&mdl, c_memory[i], pts, 4, &st, err,
		    sizeof(err)), 0);
		ASSERT(st.spread95 > 1);
		ASSERT(st.spread95 < 1.3);
	}
	for (i = 0; i < sizeof(collected) / sizeof(collected[0]); i++) {
		ASSERT_EQ(stack_fit(&mdl, collected[i], pts, 4, &st, err,
		    sizeof(err)), 0);
		ASSERT(fabs(st.spread95 - 1.76) < 1e-9);
	}
	/* python's answers then use the budget: the median near X / 1.3. */
	ASSERT_EQ(stack_fit(&mdl, "python-argon2-cffi", pts, 4, &st, err,
	    sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	tune_query_init(&q);
	q.target_ms = 250;
	ASSERT_EQ(stack_recommend(&mdl, "python-argon2-cffi", &q, &a, err,
	    sizeof(err)), 0);
	ASSERT(a.predicted_p50_ms > q.target_ms / 1.3);
	ASSERT(a.predicted_ms <= q.target_ms);
}

/*
 * A variant only libargon2 measured (a grid stored beside the run): the
 * default answer for it stands on libargon2, not on libsodium's missing
 * curve; the C snippet follows.
 */
TEST(the_default_answer_of_a_variant_stands_on_the_library_that_measured_it)
{
	struct report		rep;
	struct tune_query	q;
	struct tune_answer	a;
	char			err[512];
	size_t			i;

	synthetic_host(&rep, 1, 1, 8ULL << 30);
	for (i = 0; i < rep.n; i++)
		if (rep.results[i].pt.kp.backend == KDF_BACKEND_LIBARGON2)
			rep.results[i].pt.kp.alg = KDF_ALG_ARGON2I;
	if (model_fit(&rep, &mdl, err, sizeof(err)) != 0)
		TEST_FAIL("model_fit: %s", err);
	report_release(&rep);
	ASSERT_STR_EQ(stack_default(&mdl, KDF_ALG_ARGON2ID), "libsodium");
	ASSERT_STR_EQ(stack_default(&mdl, KDF_ALG_ARGON2I), "libargon2");
	/* Neither measured it: as argon2id's. */
	ASSERT_STR_EQ(stack_default(&mdl, KDF_ALG_ARGON2D), "libsodium");
	tune_query_init(&q);
	q.target_ms = 250;
	q.variant = KDF_ALG_ARGON2I;
	ASSERT(stack_unmeasured(&mdl, NULL, &q) == NULL);
	ASSERT_EQ(stack_recommend(&mdl, NULL, &q, &a, err, sizeof(err)), 0);
	ASSERT_EQ(a.backend, KDF_BACKEND_LIBARGON2);
	ASSERT_EQ(a.variant, KDF_ALG_ARGON2I);
	q.variant = KDF_ALG_ARGON2D;
	ASSERT_EQ(stack_recommend(&mdl, NULL, &q, &a, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "libsodium computes no argon2d");
}

/*
 * A stack whose call has no such variant is refused, naming what it
 * hashes, though its library measured the variant; its snippets say so
 * and hash nothing.
 */
TEST(a_stack_refuses_a_variant_its_call_lacks)
{
	struct report		rep;
	struct tune_query	q;
	struct tune_answer	a;
	char			err[512];
	json_t			*j;
	size_t			i;

	synthetic_host(&rep, 1, 1, 8ULL << 30);
	for (i = 0; i < rep.n; i++)
		if (rep.results[i].pt.kp.backend == KDF_BACKEND_LIBARGON2)
			rep.results[i].pt.kp.alg = KDF_ALG_ARGON2D;
	if (model_fit(&rep, &mdl, err, sizeof(err)) != 0)
		TEST_FAIL("model_fit: %s", err);
	report_release(&rep);
	tune_query_init(&q);
	q.target_ms = 250;
	q.variant = KDF_ALG_ARGON2D;
	/* The default answer: libargon2's, which measured it. */
	ASSERT_EQ(stack_recommend(&mdl, NULL, &q, &a, err, sizeof(err)), 0);
	ASSERT_EQ(a.backend, KDF_BACKEND_LIBARGON2);
	ASSERT_EQ(stack_recommend(&mdl, "php", &q, &a, err, sizeof(err)), -1);
	ASSERT_STR_EQ(err, "php: PHP password_hash(PASSWORD_ARGON2ID) hashes "
	    "argon2id and argon2i only, not argon2d: ask for argon2id");
	ASSERT_STR_EQ(stack_unmeasured(&mdl, "php", &q), "variant");
	ASSERT_EQ(stack_recommend(&mdl, "go", &q, &a, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "hashes argon2id and argon2i only, not "
	    "argon2d");
	/* Those whose call has it answer. */
	ASSERT_EQ(stack_recommend(&mdl, "python-argon2-cffi", &q, &a, err,
	    sizeof(err)), 0);
	ASSERT(stack_unmeasured(&mdl, "node-argon2", &q) == NULL);
	/* Spring's encoder: argon2id only. */
	q.variant = KDF_ALG_ARGON2I;
	ASSERT_STR_EQ(stack_unmeasured(&mdl, "java-bouncycastle", &q),
	    "variant");
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "hashes argon2id only, not argon2i");
	/* PHP's sodium_crypto_pwhash_str() hashes Argon2id. */
	ASSERT_EQ(stack_recommend(&mdl, "php-sodium", &q, &a, err,
	    sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "php-sodium: PHP sodium_crypto_pwhash_str() "
	    "hashes argon2id only, not argon2i");
	/* libsodium's Argon2i takes t = 3 at least: its stacks too. */
	ASSERT_EQ(stack_t_min(stack_find("python-pynacl"), KDF_ALG_ARGON2I),
	    3);
	ASSERT(stack_t_min(stack_find("python-pynacl"), KDF_ALG_ARGON2ID) <=
	    1);
	ASSERT_EQ(stack_t_min(stack_find("node-argon2"), KDF_ALG_ARGON2I), 2);
	/* The snippets of a variant a call lacks hash nothing. */
	memset(&a, 0, sizeof(a));
	a.variant = KDF_ALG_ARGON2D;
	a.m_kib = 65536;
	a.t = 2;
	a.p = 1;
	a.backend = KDF_BACKEND_LIBARGON2;
	j = tune_snippets(&a);
	ASSERT_STR_CONTAINS(json_string_value(json_object_get(j, "php")),
	    "PHP's password_hash() has no Argon2d");
	ASSERT(strstr(json_string_value(json_object_get(j, "php")),
	    "password_hash($password") == NULL);
	ASSERT_STR_CONTAINS(json_string_value(json_object_get(j, "go")),
	    "has no Argon2d");
	ASSERT_STR_CONTAINS(json_string_value(json_object_get(j, "java")),
	    "Argon2id only");
	ASSERT_STR_CONTAINS(json_string_value(json_object_get(j, "python")),
	    "type=Type.D");
	ASSERT_STR_CONTAINS(json_string_value(json_object_get(j, "node")),
	    "argon2.argon2d");
	json_decref(j);
}

TEST(default_and_library_only_stacks)
{
	struct tune_query	q;
	struct tune_answer	a, b;
	char			err[256];

	fit(0);		/* libsodium alone */
	ASSERT_STR_EQ(stack_default(&mdl, KDF_ALG_ARGON2ID), "libsodium");
	tune_query_init(&q);
	q.target_ms = 250;
	ASSERT_EQ(stack_recommend(&mdl, NULL, &q, &a, err, sizeof(err)), 0);
	ASSERT_EQ(tune_recommend(&mdl, &q, &b, err, sizeof(err)), 0);
	ASSERT_UEQ(a.m_kib, b.m_kib);
	ASSERT_UEQ(a.t, b.t);
	/* PHP stands on libargon2, which this model has not measured. */
	ASSERT_EQ(stack_recommend(&mdl, "php", &q, &a, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "php stands on libargon2, which");
	/* Go has its own code: sized on that curve, not standing on it. */
	ASSERT_EQ(stack_recommend(&mdl, "go", &q, &a, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "go is sized on the libargon2 curve "
	    "(corrected for its own code)");
	ASSERT_EQ(stack_recommend(&mdl, "cobol", &q, &a, err, sizeof(err)),
	    -1);
	ASSERT_STR_CONTAINS(err, "no such stack");
	/* p = 1 only. */
	q.parallelism = 2;
	ASSERT_EQ(stack_recommend(&mdl, "python-pynacl", &q, &a, err,
	    sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "p = 1 only");
	/* An unmeasured runtime: the library's answer, and a note. */
	fit(1);
	q.parallelism = 0;
	ASSERT_EQ(stack_recommend(&mdl, "go", &q, &a, err, sizeof(err)), 0);
	ASSERT_STR_CONTAINS(a.notes, "was not measured on this host; the "
	    "answer is sized on libargon2's curve as measured here, though "
	    "it hashes with its own code.");
	ASSERT_EQ(stack_recommend(&mdl, "php", &q, &a, err, sizeof(err)), 0);
	ASSERT_STR_CONTAINS(a.notes, "sized on libargon2's curve as measured "
	    "here. Time it");
	/*
	 * The argon2 npm package takes timeCost >= 2 only: where the
	 * library's answer has t = 1, node's has 2 (and less memory).
	 */
	{
		static const double	targets[] = { 25, 50, 100, 250, 500,
					    1000, 2000 };
		size_t			i, seen = 0;

		for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
			q.target_ms = targets[i];
			if (stack_recommend(&mdl, "libargon2", &q, &b, err,
			    sizeof(err)) != 0 || b.t != 1)
				continue;
			seen++;
			ASSERT_EQ(stack_recommend(&mdl, "node-argon2", &q, &a,
			    err, sizeof(err)), 0);
			ASSERT(a.t >= 2);
			ASSERT(a.m_kib < b.m_kib);
			ASSERT(a.predicted_ms <= q.target_ms);
			/* Its note says why, when t is that least. */
			if (a.t == 2)
				ASSERT_STR_CONTAINS(a.notes, "For node-argon2: "
				    "t is 2 at least (Node.js argon2 (npm) "
				    "hash() takes no fewer passes).");
			else
				ASSERT(strstr(a.notes, "t is 2 at least") ==
				    NULL);
		}
		ASSERT(seen > 0);
		/* The least t asked: no note of the stack's own. */
		q.target_ms = 250;
		q.t_min = 2;
		ASSERT_EQ(stack_recommend(&mdl, "node-argon2", &q, &a, err,
		    sizeof(err)), 0);
		ASSERT(strstr(a.notes, "t is 2 at least") == NULL);
		q.t_min = 0;
	}
}

TEST(probe_points_where_answers_fall)
{
	const struct stack_def		*sd = stack_find("php");
	struct stack_probe_point	 pp[STACK_PROBE_POINTS];
	size_t				 n, i;

	fit(1);
	n = stack_probe_points(&mdl, sd, 1048576, pp, STACK_PROBE_POINTS);
	ASSERT(n >= 3);
	ASSERT_UEQ(pp[0].m_kib, 16384);
	for (i = 1; i < n; i++) {
		ASSERT(pp[i].m_kib <= 1048576);
		ASSERT(pp[i].n >= 3);
		ASSERT((uint64_t)pp[i].m_kib * pp[i].t >
		    (uint64_t)pp[i - 1].m_kib * pp[i - 1].t);
	}
	/* Within a small budget, nothing larger than it. */
	n = stack_probe_points(&mdl, sd, 32768, pp, STACK_PROBE_POINTS);
	for (i = 0; i < n; i++)
		ASSERT(pp[i].m_kib <= 32768);
	fit(0);
	ASSERT_UEQ(stack_probe_points(&mdl, sd, 1048576, pp,
	    STACK_PROBE_POINTS), 0);
}

/*
 * A runtime whose fresh process grows its heap into fresh memory past a
 * size (Java's, the catalogue's heap_kib): its answers stay at or below
 * that size whatever the target, t making up the time, and say why when
 * the cap decided; its probe measures there; another runtime with the
 * same points is not held to it.
 */
TEST(a_runtimes_heap_bounds_its_answers_and_its_probe)
{
	const struct stack_def		*java = stack_find("java-bouncycastle");
	struct stack_probe_point	 pp[STACK_PROBE_POINTS];
	struct stack_point		 pts[16];
	struct model_stack		 st;
	struct tune_query		 q;
	struct tune_answer		 a;
	char				 err[256];
	size_t				 n, i;
	uint32_t			 cap;

	ASSERT(java != NULL);
	cap = java->heap_kib;
	ASSERT(cap >= 16384 && cap < 65536);
	fit(1);
	n = points(pts, 1.5, 0);
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(stack_fit(&mdl, "java-bouncycastle", pts, n, &st, err,
	    sizeof(err)), 0);
	ASSERT_UEQ(st.m_max_kib, 0);	/* no cliff in these points */
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_fit(&mdl, "go", pts, n, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	tune_query_init(&q);
	for (q.target_ms = 1000; q.target_ms <= 4000; q.target_ms *= 2) {
		ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a,
		    err, sizeof(err)), 0);
		if (a.m_kib > cap)
			TEST_FAIL("%.0f ms: m = %u KiB, past its heap's %u",
			    q.target_ms, a.m_kib, cap);
		/* The time is used: t, not a small answer. */
		ASSERT(a.t >= 2);
		ASSERT(a.predicted_ms <= q.target_ms);
		ASSERT(a.predicted_ms > 0.8 * q.target_ms);
		ASSERT_STR_CONTAINS(a.notes, "For java-bouncycastle: its "
		    "answers stay at or below m = 32768 KiB, t making up the "
		    "time");
		/* Go, the same points: not held there. */
		ASSERT_EQ(stack_recommend(&mdl, "go", &q, &a, err,
		    sizeof(err)), 0);
		ASSERT(a.m_kib > cap);
		ASSERT(strstr(a.notes, "stay at or below") == NULL);
	}
	/*
	 * At k = 2, each hash within it; and not "more memory would allow
	 * stronger parameters": memory did not decide it.
	 */
	q.target_ms = 2000;
	q.k = 4;
	q.memory_max_kib = 4194304;
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), 0);
	ASSERT(a.m_kib <= cap);
	if (strstr(a.notes, "more memory (memory_max)") != NULL)
		TEST_FAIL("k = 4 under the heap bound: %s", a.notes);
	ASSERT_STR_CONTAINS(a.notes, "stay at or below m = 32768 KiB");
	/* The caller's memory, under the bound, decides: no heap note. */
	q.memory_max_kib = 4 * 16384;
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), 0);
	ASSERT(a.m_kib <= 16384);
	ASSERT(strstr(a.notes, "stay at or below") == NULL);
	/* Errors that are not the bound's are not said to be. */
	tune_query_init(&q);
	q.target_ms = 1000;
	q.parallelism = 4;	/* no curve of 4 lanes here */
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), -1);
	if (strstr(err, "heap") != NULL || stack_limit_refused(err))
		TEST_FAIL("p = 4: %s", err);
	tune_query_init(&q);
	q.target_ms = 1000;
	q.k = 0;
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), -1);
	if (strstr(err, "heap") != NULL)
		TEST_FAIL("k = 0: %s", err);
	/* A target its small sizes meet: no note. */
	tune_query_init(&q);
	q.target_ms = 20;
	q.floor = TUNE_FLOOR_NONE;
	ASSERT(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)) >= 0);
	ASSERT(a.m_kib < cap);
	ASSERT(strstr(a.notes, "stay at or below") == NULL);
	/* A floor over the cap: the error names the runtime's heap. */
	tune_query_init(&q);
	q.target_ms = 1000;
	q.floor = TUNE_FLOOR_RFC9106;
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "java-bouncycastle: no parameters at or "
	    "below m = 32768 KiB meet the rfc9106 floor here");
	ASSERT_STR_CONTAINS(err, "grows its heap");
	ASSERT(stack_limit_refused(err));
	/* With the caller's memory under the bound too: still the bound. */
	q.memory_max_kib = 32768;
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), -1);
	ASSERT(stack_limit_refused(err));
	/* A floor the bound allows, memory too small for it: memory said. */
	q.floor = TUNE_FLOOR_OWASP;
	q.memory_max_kib = 4096;
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), -1);
	if (stack_limit_refused(err) || strstr(err, "4096 KiB") == NULL)
		TEST_FAIL("4 MiB under the owasp floor: %s", err);
	tune_query_init(&q);
	q.target_ms = 1000;
	q.floor = TUNE_FLOOR_RFC9106;
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), -1);
	/* Known before anything is measured, and said the same way. */
	{
		char	pre[256];

		ASSERT_EQ(stack_floor_reachable(java, TUNE_FLOOR_RFC9106,
		    KDF_ALG_ARGON2ID, pre, sizeof(pre)), -1);
		ASSERT_STR_EQ(pre, err);
		ASSERT_EQ(stack_floor_reachable(java, TUNE_FLOOR_OWASP,
		    KDF_ALG_ARGON2ID, pre, sizeof(pre)), 0);
		ASSERT_EQ(stack_floor_reachable(stack_find("php"),
		    TUNE_FLOOR_RFC9106, KDF_ALG_ARGON2ID, pre, sizeof(pre)), 0);
	}
	/* A cliff past the bound: the bound holds, and is the one said. */
	n = points(pts, 1.5, 0);
	pts[n - 2].median_ms *= 4;	/* 262144 KiB */
	pts[n - 1].median_ms *= 4;
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(stack_fit(&mdl, "java-bouncycastle", pts, n, &st, err,
	    sizeof(err)), 0);
	ASSERT(st.m_max_kib > cap);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	tune_query_init(&q);
	q.target_ms = 2000;
	ASSERT_EQ(stack_recommend(&mdl, "java-bouncycastle", &q, &a, err,
	    sizeof(err)), 0);
	ASSERT(a.m_kib <= cap);
	ASSERT_STR_CONTAINS(a.notes, "stay at or below m = 32768 KiB, t "
	    "making up the time");
	ASSERT(strstr(a.notes, "that held") == NULL);
	/* Its probe's points: none past it, three or more. */
	n = stack_probe_points(&mdl, java, 1048576, pp, STACK_PROBE_POINTS);
	ASSERT(n >= 3);
	for (i = 0; i < n; i++)
		if (pp[i].m_kib > cap)
			TEST_FAIL("probe point %zu: m = %u KiB, past %u", i,
			    pp[i].m_kib, cap);
	n = stack_probe_points(&mdl, stack_find("go"), 1048576, pp,
	    STACK_PROBE_POINTS);
	ASSERT(n >= 3 && pp[n - 1].m_kib > cap);
}

TEST(snippets_carry_the_stack_and_its_parameters)
{
	struct tune_answer	a;
	char			*s;

	memset(&a, 0, sizeof(a));
	a.variant = KDF_ALG_ARGON2ID;
	a.m_kib = 47104;
	a.t = 3;
	a.p = 1;
	s = stack_snippet(stack_find("php"), &a, 1);
	ASSERT_STR_CONTAINS(s, "'memory_cost' => 47104");
	ASSERT(strstr(s, "not timed") == NULL);
	free(s);
	s = stack_snippet(stack_find("php-sodium"), &a, 0);
	ASSERT_STR_CONTAINS(s, "sodium_crypto_pwhash_str($password, 3, 47104");
	ASSERT_STR_CONTAINS(s, "<?php\n// This runtime was not timed");
	free(s);
	s = stack_snippet(stack_find("python-pynacl"), &a, 0);
	ASSERT_STR_CONTAINS(s, "# This runtime was not timed");
	ASSERT_STR_CONTAINS(s, "opslimit=3, memlimit=47104 * 1024");
	free(s);
	s = stack_snippet(stack_find("libargon2"), &a, 1);
	ASSERT_STR_CONTAINS(s, "argon2id_hash_encoded(3, 47104, 1,");
	free(s);
	/* The question's variant, in the library's own names. */
	a.variant = KDF_ALG_ARGON2I;
	s = stack_snippet(stack_find("libargon2"), &a, 1);
	ASSERT_STR_CONTAINS(s, "argon2i_hash_encoded(3, 47104, 1,");
	free(s);
	s = stack_snippet(stack_find("python-pynacl"), &a, 1);
	ASSERT_STR_CONTAINS(s, "pwhash.argon2i.str(password, opslimit=3,");
	free(s);
	a.variant = KDF_ALG_ARGON2ID;
	s = stack_snippet(stack_find("java-bouncycastle"), &a, 1);
	ASSERT_STR_CONTAINS(s, "Argon2PasswordEncoder(16, 32, 1, 47104, 3)");
	free(s);
}

/*
 * A runtime faster than its curve whose probe measured past the curve's
 * largest size: its answers may go to twice the probe's largest size at
 * one pass, not to a second pass at twice the curve's (Go's 500 ms
 * answer at t = 2 took 1.37 x its prediction, its correction measured at
 * t = 1 only); a stack probed within the curve's sizes keeps the curve's
 * bound.
 */
TEST(a_probes_largest_size_counts_as_measured)
{
	static const uint32_t	sizes[] = { 262144, 524288, 1572864 };
	struct stack_point	pts[3];
	struct model_stack	st;
	struct tune_query	q;
	struct tune_answer	a;
	char			err[256];
	double			target;
	uint32_t		top;
	size_t			i;

	fit(1);
	top = model_curve_max_m(model_curve_find(&mdl, KDF_BACKEND_LIBARGON2,
	    KDF_ALG_ARGON2ID, 1));
	ASSERT_UEQ(top, 1048576);
	for (i = 0; i < 3; i++) {
		memset(&pts[i], 0, sizeof(pts[i]));
		pts[i].m_kib = sizes[i];
		pts[i].t = 1;
		pts[i].p = 1;
		pts[i].k = 1;
		pts[i].n = 5;
		pts[i].probe = 1;
		pts[i].median_ms = 0.5 * base_ms(KDF_BACKEND_LIBARGON2,
		    sizes[i], 1);
		pts[i].p95_ms = pts[i].median_ms * 1.05;
	}
	ASSERT_EQ(stack_fit(&mdl, "go", pts, 3, &st, err, sizeof(err)), 0);
	ASSERT_UEQ(st.m_probed_kib, 1572864);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	/* The time of 2.5 GiB at one pass, in Go. */
	ASSERT_EQ(stack_predict(&mdl, "go", KDF_ALG_ARGON2ID, 2621440, 1, 1,
	    1, 95, &target), 0);
	tune_query_init(&q);
	q.target_ms = target;
	ASSERT_EQ(stack_recommend(&mdl, "go", &q, &a, err, sizeof(err)), 0);
	ASSERT_UEQ(a.t, 1);
	ASSERT_UEQ(a.m_cap_kib, 2 * 1572864);
	ASSERT(a.m_kib > 2 * top);
	ASSERT(a.predicted_ms <= target);
	/* Probed within the curve's sizes: twice the curve's largest. */
	pts[2].m_kib = 786432;
	pts[2].median_ms = 0.5 * base_ms(KDF_BACKEND_LIBARGON2, 786432, 1);
	pts[2].p95_ms = pts[2].median_ms * 1.05;
	ASSERT_EQ(stack_fit(&mdl, "go", pts, 3, &st, err, sizeof(err)), 0);
	ASSERT_EQ(model_stack_set(&mdl, &st), 0);
	ASSERT_EQ(stack_recommend(&mdl, "go", &q, &a, err, sizeof(err)), 0);
	ASSERT_UEQ(a.m_cap_kib, 2 * top);
	ASSERT(a.m_kib <= 2 * top);
}

/*
 * What asked for what no curve answers: the default answer's base as
 * check_answer takes it (libsodium, though libargon2 measured argon2i),
 * a stack's library, the backend, the p.
 */
TEST(what_asked_for_the_unmeasured)
{
	struct report		rep;
	struct tune_query	q;
	char			err[256];
	uint32_t		m;

	synthetic_host(&rep, 0, 1, 8ULL << 30);
	for (m = 8192; m <= 131072; m *= 2) {
		synthetic_point(&rep, KDF_BACKEND_LIBARGON2, m, 1, 1, 2);
		rep.results[rep.n - 1].pt.kp.alg = KDF_ALG_ARGON2I;
		synthetic_point(&rep, KDF_BACKEND_LIBARGON2, m, 3, 1, 2);
		rep.results[rep.n - 1].pt.kp.alg = KDF_ALG_ARGON2I;
	}
	if (model_fit(&rep, &mdl, err, sizeof(err)) != 0)
		TEST_FAIL("model_fit: %s", err);
	report_release(&rep);
	ASSERT(model_curve_find(&mdl, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2I,
	    1) != NULL);
	tune_query_init(&q);
	q.target_ms = 250;
	ASSERT(stack_unmeasured(&mdl, NULL, &q) == NULL);
	/* The default answer takes the library that measured argon2i. */
	q.variant = KDF_ALG_ARGON2I;
	ASSERT(stack_unmeasured(&mdl, NULL, &q) == NULL);
	ASSERT(stack_unmeasured(&mdl, "php", &q) == NULL);
	ASSERT_STR_EQ(stack_unmeasured(&mdl, "php-sodium", &q), "variant");
	q.variant = KDF_ALG_ARGON2ID;
	ASSERT_STR_EQ(stack_unmeasured(&mdl, "php", &q), "stack");
	q.backend = KDF_BACKEND_LIBARGON2;
	ASSERT_STR_EQ(stack_unmeasured(&mdl, NULL, &q), "backend");
	q.backend = KDF_BACKEND_AUTO;
	q.parallelism = 4;
	ASSERT_STR_EQ(stack_unmeasured(&mdl, NULL, &q), "parallelism");
}

TEST_LIST(
	TEST_ENTRY(what_asked_for_the_unmeasured),
	TEST_ENTRY(observations_of_a_size_are_not_a_noisy_knot),
	TEST_ENTRY(catalogue_names_and_lookup),
	TEST_ENTRY(checks_apply_to_a_probed_stack),
	TEST_ENTRY(checks_stand_for_a_library_probe),
	TEST_ENTRY(a_runtime_on_the_curves_own_library_answers_as_the_library),
	TEST_ENTRY(a_stacks_own_answer_has_no_advice_for_other_stacks),
	TEST_ENTRY(how_says_installed_only_when_known),
	TEST_ENTRY(fit_recovers_slope_and_fixed_cost),
	TEST_ENTRY(one_far_point_does_not_bend_the_fit),
	TEST_ENTRY(one_noisy_knot_is_the_neighbours),
	TEST_ENTRY(observations_at_an_end_are_not_a_noisy_knot),
	TEST_ENTRY(answers_stay_under_a_cliff),
	TEST_ENTRY(a_cliff_begins_where_its_hashes_showed_it),
	TEST_ENTRY(a_point_out_of_range_does_not_move_a_stack_past_it),
	TEST_ENTRY(observations_alone_correct_by_the_median_ratio),
	TEST_ENTRY(answer_holds_in_the_stack),
	TEST_ENTRY(a_stack_says_when_its_own_curve_is_poor),
	TEST_ENTRY(measured_times_and_spread_are_the_stacks_own),
	TEST_ENTRY(a_pause_in_a_large_point_is_the_stacks_tail),
	TEST_ENTRY(a_slow_hash_sets_the_tail_only_where_a_collector_pauses),
	TEST_ENTRY(the_default_answer_of_a_variant_stands_on_the_library_that_measured_it),
	TEST_ENTRY(a_stack_refuses_a_variant_its_call_lacks),
	TEST_ENTRY(default_and_library_only_stacks),
	TEST_ENTRY(probe_points_where_answers_fall),
	TEST_ENTRY(a_runtimes_heap_bounds_its_answers_and_its_probe),
	TEST_ENTRY(a_probes_largest_size_counts_as_measured),
	TEST_ENTRY(snippets_carry_the_stack_and_its_parameters)
)
