/*
 * tests/unit/test_report.c: benchmark reports to JSON and back, and the
 * strict reader on bad documents.
 */
#include <math.h>
#include <stdlib.h>

#include "report.h"
#include "test.h"

static void
sample_report(struct report *rep)
{
	struct measure_result	*r;
	size_t			 i;

	memset(rep, 0, sizeof(*rep));
	snprintf(rep->created, sizeof(rep->created), "2026-11-30T02:00:00Z");
	snprintf(rep->profile, sizeof(rep->profile), "quick");
	snprintf(rep->host.host_id, sizeof(rep->host.host_id), "%032d", 1);
	snprintf(rep->host.fingerprint, sizeof(rep->host.fingerprint),
	    "%032d", 2);
	snprintf(rep->host.cpu_model, sizeof(rep->host.cpu_model), "Test");
	rep->host.online_cpus = 2;
	rep->host.has_avx2 = 1;
	rep->host.mem_total = 8ULL << 30;
	rep->effective_cpus = 2;
	rep->mem_budget = 1ULL << 30;
	rep->budget_source = HOST_BUDGET_CGROUP;
	rep->n = 3;
	rep->results = calloc(3, sizeof(*rep->results));
	r = &rep->results[0];
	kdf_params_init(&r->pt.kp, KDF_ALG_ARGON2ID);
	r->pt.kp.backend = KDF_BACKEND_LIBSODIUM;
	r->pt.kp.m_kib = 65536;
	r->pt.kp.t = 3;
	r->pt.kp.p = 1;
	r->pt.k = 2;
	r->status = MEASURE_OK;
	r->samples = calloc(4, sizeof(double));
	for (i = 0; i < 4; i++)
		r->samples[r->nsamples++] = 100 + (double)i;
	stats_compute(r->samples, r->nsamples, &r->st);
	r->throughput = 19.5;
	r->noisy = 1;
	r = &rep->results[1];
	kdf_params_init(&r->pt.kp, KDF_ALG_ARGON2ID);
	r->pt.kp.backend = KDF_BACKEND_LIBARGON2;
	r->pt.kp.m_kib = 1048576;
	r->pt.kp.t = 1;
	r->pt.kp.p = 1;
	r->pt.k = 1;
	r->status = MEASURE_SKIPPED;
	snprintf(r->reason, sizeof(r->reason), "over the memory budget");
	r = &rep->results[2];
	kdf_params_init(&r->pt.kp, KDF_ALG_BCRYPT);
	r->pt.kp.backend = KDF_BACKEND_LIBCRYPT;
	r->pt.kp.cost = 10;
	r->pt.k = 1;
	r->status = MEASURE_OK;
	r->st.n = 1;
	r->st.mean = r->st.median = r->st.min = r->st.max = r->st.p95 = 50;
}

TEST(roundtrip)
{
	struct report	a, b;
	json_t		*j;
	char		*text, err[256];

	sample_report(&a);
	j = report_to_json(&a, 1);
	ASSERT(j != NULL);
	/* Through text, as a file would carry it. */
	text = json_dumps(j, 0);
	json_decref(j);
	j = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	free(text);
	ASSERT(j != NULL);
	if (report_from_json(j, &b, err, sizeof(err)) != 0)
		TEST_FAIL("%s", err);
	json_decref(j);
	ASSERT_STR_EQ(b.created, a.created);
	ASSERT_STR_EQ(b.profile, "quick");
	ASSERT_STR_EQ(b.host.host_id, a.host.host_id);
	ASSERT_STR_EQ(b.host.fingerprint, a.host.fingerprint);
	ASSERT(b.host.has_avx2 && !b.host.has_avx512f);
	ASSERT_EQ(b.effective_cpus, 2);
	ASSERT_UEQ(b.mem_budget, 1ULL << 30);
	ASSERT_EQ(b.budget_source, HOST_BUDGET_CGROUP);
	ASSERT_EQ(b.n, 3);
	ASSERT_EQ(b.results[0].pt.kp.backend, KDF_BACKEND_LIBSODIUM);
	ASSERT_EQ(b.results[0].pt.kp.m_kib, 65536);
	ASSERT_EQ(b.results[0].pt.k, 2);
	ASSERT_EQ(b.results[0].nsamples, 4);
	ASSERT(fabs(b.results[0].samples[3] - 103) < 1e-9);
	ASSERT(fabs(b.results[0].st.mean - a.results[0].st.mean) < 1e-6);
	ASSERT(fabs(b.results[0].st.error - a.results[0].st.error) < 1e-6);
	ASSERT_EQ(b.results[0].noisy, 1);
	ASSERT_EQ(b.results[1].status, MEASURE_SKIPPED);
	ASSERT_STR_EQ(b.results[1].reason, "over the memory budget");
	ASSERT_EQ(b.results[2].pt.kp.alg, KDF_ALG_BCRYPT);
	ASSERT_EQ(b.results[2].pt.kp.cost, 10);
	report_release(&a);
	report_release(&b);
}

/* Change one field of a good document and expect the reader to say so. */
static void
expect_bad(const char *path, json_t *value, const char *reason)
{
	struct report	a, b;
	json_t		*j, *target;
	char		err[256], *copy, *key, *slash;

	sample_report(&a);
	j = report_to_json(&a, 1);
	report_release(&a);
	target = j;
	copy = strdup(path);
	key = copy;
	/* A path like "points/0/m_kib". */
	while ((slash = strchr(key, '/')) != NULL) {
		*slash = '\0';
		if (json_is_array(target))
			target = json_array_get(target, (size_t)atoi(key));
		else
			target = json_object_get(target, key);
		ASSERT(target != NULL);
		key = slash + 1;
	}
	if (json_is_array(target))
		json_array_set_new(target, (size_t)atoi(key), value);
	else if (value == NULL)
		json_object_del(target, key);
	else
		json_object_set_new(target, key, value);
	free(copy);
	err[0] = '\0';
	if (report_from_json(j, &b, err, sizeof(err)) == 0)
		TEST_FAIL("%s accepted", path);
	json_decref(j);
	if (strstr(err, reason) == NULL)
		TEST_FAIL("%s: \"%s\" does not say \"%s\"", path, err, reason);
}

TEST(strict_reader)
{
	expect_bad("schema", json_string("pwtune-bench/0"), "schema");
	expect_bad("points", NULL, "points must be an array");
	expect_bad("host/host_id", json_integer(3), "host_id must be a string");
	expect_bad("host/fingerprint", json_string(""), "must not be empty");
	expect_bad("points/0/backend", json_string("openssl"),
	    "points[0]: backend openssl is unknown");
	expect_bad("points/0/variant", json_string("argon3"),
	    "variant argon3 is unknown");
	expect_bad("points/0/m_kib", json_integer(4), "m must be at least 8");
	expect_bad("points/0/m_kib", json_integer(-1), "m_kib must be an integer");
	expect_bad("points/0/m_kib", json_string("64MiB"),
	    "m_kib must be an integer");
	expect_bad("points/0/p", json_integer(2), "p = 1 only");
	expect_bad("points/0/k", json_integer(0), "k must be at least 1");
	expect_bad("points/0/k", json_integer(65), "k must be an integer");
	expect_bad("points/0/status", json_string("fine"), "status fine");
	expect_bad("points/0/stats/mean_ms", json_real(-1), "mean_ms must be");
	expect_bad("points/0/stats/median_ms", NULL, "median_ms must be");
	expect_bad("points/0/stats/n", json_integer(0), "needs samples");
	expect_bad("points/0/samples_ms", json_pack("[f, s]", 1.0, "x"),
	    "samples_ms[1]");
	expect_bad("points/2/cost", json_integer(40), "cost must be");
	expect_bad("points/1", json_string("point"), "must be an object");
}

TEST(non_object)
{
	struct report	b;
	json_t		*j = json_array();
	char		err[256];

	ASSERT_EQ(report_from_json(j, &b, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "JSON object");
	json_decref(j);
}

TEST_LIST(
	TEST_ENTRY(roundtrip),
	TEST_ENTRY(strict_reader),
	TEST_ENTRY(non_object)
)
