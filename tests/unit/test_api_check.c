/*
 * tests/unit/test_api_check.c: POST /v1/check weighs a string with the
 * checks' correction and the model read under one model version. The
 * API runs in process on 127.0.0.1 over pwtuned's own environment, with
 * its `checked` call wrapped: it can say a correction was read under an
 * older version (a refit came between the two reads), and must then be
 * asked again.
 */
#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "test.h"
#include "api.h"
#include "test_daemon.h"

static struct daemon	 d;
static struct api_env	 env, real;
static struct api_server *api;
static unsigned		 port;
static char		 dir[256];

/*
 * The wrapped call. stale: the next call says its correction (c = 2)
 * was read under the version before the model's; every other call gives
 * c = 1 under the model's version. calls counts them.
 */
static int	stale, calls;

/* When set, the default answer's state: a check measured it (fake). */
static struct check_state	fake;
static int			faking;

static int
wrapped_checked(void *ctx, const struct tune_query *q, const char *stack,
    struct check_state *cs, char *at, size_t atlen, uint64_t *version)
{
	int	rc = real.checked(ctx, q, stack, cs, at, atlen, version);

	calls++;
	if (faking && stack == NULL) {
		*cs = fake;
		snprintf(at, atlen, "2026-12-05T00:00:00Z");
		return 1;
	}
	if (stale) {
		stale = 0;
		cs->c = 2;
		if (version != NULL)
			*version -= 1;
		return 1;
	}
	cs->c = 1;
	return rc == -1 ? 0 : rc;
}

static void
setup(void)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	struct api_config	 acfg;
	char			 err[1024], bound[160];
	int			 fd;

	test_daemon_init(&d, dir, sizeof(dir), "pwtune-test-api");
	ASSERT((fd = listen_socket(&d.cfg, bound, sizeof(bound), err,
	    sizeof(err))) != -1);
	daemon_api_env(&d, &env);
	real = env;
	env.checked = wrapped_checked;
	daemon_api_config(&d, &acfg);
	ASSERT((api = api_start(&env, &acfg, fd, err, sizeof(err))) != NULL);
	ASSERT(getsockname(fd, (struct sockaddr *)&sin, &len) == 0);
	port = ntohs(sin.sin_port);
}

/* The API, the model, the state directory. */
static void
teardown(void)
{
	api_stop(api);
	test_daemon_release(&d, dir);
}

/* req sent to the API: the answer's JSON (NULL unless 200). */
static json_t *
request(const char *req)
{
	struct sockaddr_in	 sin;
	struct timeval		 tv = { 10, 0 };
	static char		 resp[262144];
	char			*p;
	size_t			 got = 0;
	ssize_t			 r;
	int			 fd, status = 0;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return NULL;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
		close(fd);
		return NULL;
	}
	while (got < sizeof(resp) - 1 &&
	    (r = recv(fd, resp + got, sizeof(resp) - 1 - got, 0)) > 0)
		got += (size_t)r;
	close(fd);
	resp[got] = '\0';
	if (sscanf(resp, "HTTP/1.1 %d", &status) != 1 || status != 200 ||
	    (p = strstr(resp, "\r\n\r\n")) == NULL)
		return NULL;
	return json_loads(p + 4, 0, NULL);
}

/* POST /v1/check of encoded. */
static json_t *
check(const char *encoded)
{
	char	req[1024], body[512];

	snprintf(body, sizeof(body), "{\"encoded\": \"%s\"}", encoded);
	snprintf(req, sizeof(req), "POST /v1/check HTTP/1.1\r\nHost: "
	    "127.0.0.1:%u\r\nContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", port,
	    strlen(body), body);
	return request(req);
}

/* GET path. */
static json_t *
get(const char *path)
{
	char	req[512];

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u"
	    "\r\nConnection: close\r\n\r\n", path, port);
	return request(req);
}

/* The string's predicted p95 (ms), or -1. */
static double
predicted(json_t *j)
{
	json_t	*pr = json_object_get(j, "predicted");

	return json_is_object(pr) ? json_number_value(json_object_get(pr,
	    "ms")) : -1;
}

#define OTHER	"$argon2id$v=19$m=65536,t=3,p=1$c29tZXNhbHQ$" \
		"aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA"

TEST(check_reads_correction_and_model_under_one_version)
{
	json_t	*a, *b;
	double	 pa, pb;

	setup();
	/* Both reads under one version: c = 1, read once. */
	calls = 0;
	ASSERT((a = check(OTHER)) != NULL);
	ASSERT_EQ(calls, 1);
	pa = predicted(a);
	ASSERT(pa > 0);
	/*
	 * The correction read under the version before: read again, and
	 * weighed with the correction of the model in use (c = 1), not the
	 * stale one (c = 2: twice the time).
	 */
	calls = 0;
	stale = 1;
	ASSERT((b = check(OTHER)) != NULL);
	ASSERT_EQ(calls, 2);
	pb = predicted(b);
	if (!(pb > pa * 0.999 && pb < pa * 1.001))
		TEST_FAIL("predicted %.3f ms after a stale correction, %.3f "
		    "ms before", pb, pa);
	json_decref(a);
	json_decref(b);
	teardown();
}

#define Q250	"/v1/recommendation?target_ms=250"

/* Answers are made again: the model's version bumped, as a run's end. */
static void
bump(void)
{
	pthread_mutex_lock(&d.lock);
	d.model_version++;
	pthread_mutex_unlock(&d.lock);
}

/* The answer to path made again (the version bumped): its JSON. */
static json_t *
again(const char *path)
{
	json_t	*j;

	bump();
	ASSERT((j = get(path)) != NULL);
	return j;
}

/* Does the answer to path, made again, say verified: null? */
static int
unverified(const char *path)
{
	json_t	*j = again(path);
	int	 null = json_is_null(json_object_get(j, "verified"));

	json_decref(j);
	return null;
}

static unsigned
uint_of(json_t *j, const char *k)
{
	return (unsigned)json_integer_value(json_object_get(j, k));
}

/*
 * A run's verification of exactly the answer shows as its `verified`
 * (by "verification") until a check measures it; another answer, or a
 * client runtime's, does not take it.
 */
TEST(a_runs_verification_verifies_the_same_answer)
{
	struct tune_query	 q;
	struct tune_answer	 ta;
	json_t			*j, *v;
	char			 err[512];

	setup();
	ASSERT((j = get(Q250)) != NULL);
	ASSERT(json_is_null(json_object_get(j, "verified")));
	/* The answer as the run's verification makes it. */
	tune_query_init(&q);
	q.target_ms = 250;
	pthread_mutex_lock(&d.lock);
	ASSERT_EQ(tune_recommend(d.model, &q, &ta, err, sizeof(err)), 0);
	pthread_mutex_unlock(&d.lock);
	ASSERT_EQ(uint_of(j, "m_kib"), ta.m_kib);
	ASSERT_EQ(uint_of(j, "t"), ta.t);
	ASSERT_EQ(uint_of(j, "p"), ta.p);
	json_decref(j);

	pthread_mutex_lock(&d.lock);
	checks_verified_add(&d, d.model_run, &ta, 240.5, 5);
	pthread_mutex_unlock(&d.lock);
	j = again(Q250);
	v = json_object_get(j, "verified");
	ASSERT(json_is_object(v));
	ASSERT_STR_EQ(json_string_value(json_object_get(v, "by")),
	    "verification");
	ASSERT(json_real_value(json_object_get(v, "measured_ms")) == 240.5);
	ASSERT_EQ(json_integer_value(json_object_get(v, "samples")), 5);
	ASSERT_EQ(json_integer_value(json_object_get(v, "checks")), 1);
	ASSERT(json_is_true(json_object_get(v, "in_band")));
	json_decref(j);

	/* Over the target: measured, not in band. */
	pthread_mutex_lock(&d.lock);
	checks_verified_add(&d, d.model_run, &ta, 262.0, 5);
	ASSERT_EQ(d.nverified, 1);
	pthread_mutex_unlock(&d.lock);
	j = again(Q250);
	v = json_object_get(j, "verified");
	ASSERT(json_is_object(v));
	ASSERT(json_is_false(json_object_get(v, "in_band")));
	json_decref(j);

	/* Another target, another answer: not this one's. */
	ASSERT(unverified("/v1/recommendation?target_ms=300"));
	/* A client runtime's answer is not what libsodium measured. */
	ASSERT((j = get("/v1/recommendation?target_ms=250&stack=php-sodium"))
	    != NULL);
	printf("# php-sodium: m = %u KiB, t = %u (libsodium's %u, %u)\n",
	    uint_of(j, "m_kib"), uint_of(j, "t"), (unsigned)ta.m_kib,
	    (unsigned)ta.t);
	ASSERT(json_is_null(json_object_get(j, "verified")));
	json_decref(j);

	/* Other parameters (a model refitted since): not taken. */
	pthread_mutex_lock(&d.lock);
	d.verified[0].m_kib += 1024;
	pthread_mutex_unlock(&d.lock);
	ASSERT(unverified(Q250));

	/* Of another run's model (a new run's before its verifications). */
	pthread_mutex_lock(&d.lock);
	d.verified[0].m_kib -= 1024;
	d.verified[0].run = d.model_run + 1;
	pthread_mutex_unlock(&d.lock);
	ASSERT(unverified(Q250));
	pthread_mutex_lock(&d.lock);
	d.verified[0].run = d.model_run;
	pthread_mutex_unlock(&d.lock);
	ASSERT(!unverified(Q250));

	/* A new run forgets them. */
	pthread_mutex_lock(&d.lock);
	checks_verified_clear(&d);
	pthread_mutex_unlock(&d.lock);
	ASSERT(unverified(Q250));
	teardown();
}

/*
 * The checks' state faked from here on (faking): the answer j verified at
 * its parameters, after nchecks checks, measured_ms the mean of nmeasured
 * measurements of samples hashes in all.
 */
static void
fake_verified(json_t *j, unsigned nchecks, double measured_ms,
    unsigned samples, unsigned nmeasured)
{
	check_state_init(&fake);
	fake.m_kib = uint_of(j, "m_kib");
	fake.t = uint_of(j, "t");
	fake.p = uint_of(j, "p");
	fake.k = 1;
	fake.nchecks = nchecks;
	fake.measured_ms = measured_ms;
	fake.samples = samples;
	fake.nmeasured = nmeasured;
	fake.verified = 1;
	faking = 1;
}

/*
 * A check's `verified` says how many measurements its measured_ms is the
 * mean of, their hashes in all, and in_band of that figure (not of the
 * state's verdict: a suspect measurement is shown as measured).
 */
TEST(a_checks_verified_says_its_measurements)
{
	json_t	*j, *v;

	setup();
	ASSERT((j = get(Q250)) != NULL);
	fake_verified(j, 3, 237.5, 26, 2);
	json_decref(j);
	j = again(Q250);
	v = json_object_get(j, "verified");
	ASSERT(json_is_object(v));
	ASSERT_STR_EQ(json_string_value(json_object_get(v, "by")), "check");
	ASSERT(json_real_value(json_object_get(v, "measured_ms")) == 237.5);
	ASSERT_EQ(json_integer_value(json_object_get(v, "samples")), 26);
	ASSERT_EQ(json_integer_value(json_object_get(v, "checks")), 2);
	ASSERT(json_is_true(json_object_get(v, "in_band")));
	json_decref(j);
	/* One measurement over the band, the state still verified. */
	fake.measured_ms = 262.0;
	fake.samples = 13;
	fake.nmeasured = 1;
	j = again(Q250);
	v = json_object_get(j, "verified");
	ASSERT(json_is_object(v));
	ASSERT_EQ(json_integer_value(json_object_get(v, "checks")), 1);
	ASSERT(json_is_false(json_object_get(v, "in_band")));
	json_decref(j);
	faking = 0;
	teardown();
}

/* The note (a string of j's notes) that starts with prefix, or NULL. */
static const char *
note_of(json_t *j, const char *prefix)
{
	json_t		*n;
	size_t		 i;

	json_array_foreach(json_object_get(j, "notes"), i, n)
		if (json_is_string(n) && strncmp(json_string_value(n), prefix,
		    strlen(prefix)) == 0)
			return json_string_value(n);
	return NULL;
}

/*
 * A poor model's note on an answer the checks measured within its target
 * says the measurement holds, not to treat its times as rough; over the
 * target, or not measured, the note stays as it was.
 */
TEST(a_poor_models_note_says_a_measured_answer_holds)
{
	struct tune_query	 q;
	struct tune_answer	 ta;
	json_t			*j;
	const char		*n;
	char			 err[512];

	setup();
	pthread_mutex_lock(&d.lock);
	d.model->quality = MODEL_QUALITY_POOR;
	snprintf(d.model->quality_why, sizeof(d.model->quality_why),
	    "leave-one-out error up to 31.0 %% (over 25 %%)");
	pthread_mutex_unlock(&d.lock);
	j = again(Q250);
	ASSERT((n = note_of(j, "the model is poor: ")) != NULL);
	ASSERT_STR_CONTAINS(n, "Treat the predicted times as rough");
	fake_verified(j, 1, 230.0, 13, 1);
	json_decref(j);
	j = again(Q250);
	ASSERT((n = note_of(j, "the model is poor: ")) != NULL);
	ASSERT_STR_CONTAINS(n, "leave-one-out error up to 31.0 % (over 25 %). "
	    "This answer was measured at exactly these parameters here (230.0 "
	    "ms at p95, 0.92 of the target, by the background checks): it "
	    "holds here.");
	ASSERT(strstr(n, "Treat the predicted times as rough") == NULL);
	json_decref(j);
	/* Measured over the target: the note as it was. */
	fake.measured_ms = 262.0;
	j = again(Q250);
	ASSERT((n = note_of(j, "the model is poor: ")) != NULL);
	ASSERT_STR_CONTAINS(n, "Treat the predicted times as rough");
	ASSERT(strstr(n, "This answer was measured") == NULL);
	json_decref(j);
	faking = 0;
	/* Measured by the run's verification: said so. */
	tune_query_init(&q);
	q.target_ms = 250;
	pthread_mutex_lock(&d.lock);
	ASSERT_EQ(tune_recommend(d.model, &q, &ta, err, sizeof(err)), 0);
	checks_verified_add(&d, d.model_run, &ta, 240.5, 5);
	pthread_mutex_unlock(&d.lock);
	j = again(Q250);
	ASSERT((n = note_of(j, "the model is poor: ")) != NULL);
	ASSERT_STR_CONTAINS(n, "(240.5 ms at p95, 0.96 of the target, by the "
	    "run's verification): it holds here.");
	json_decref(j);
	teardown();
}

/*
 * A run just started (the runner has set it running, not yet counted its
 * points): its progress counts the run's own points, not 0.
 */
TEST(a_run_just_started_counts_its_points)
{
	json_t		*runs, *j, *pr;
	json_int_t	 id, total;

	setup();
	ASSERT((runs = get("/v1/runs")) != NULL);
	j = json_array_get(json_object_get(runs, "runs"), 0);
	ASSERT(json_is_object(j));
	id = json_integer_value(json_object_get(j, "id"));
	total = json_integer_value(json_object_get(j, "points_total"));
	json_decref(runs);
	ASSERT(id > 0 && total > 0);
	pthread_mutex_lock(&d.lock);
	d.running_run = id;
	d.points_total = d.points_done = 0;
	d.step = "points";
	d.step_total = 0;
	pthread_mutex_unlock(&d.lock);
	{
		char	path[64];

		snprintf(path, sizeof(path), "/v1/runs/%lld", (long long)id);
		j = get(path);
	}
	pthread_mutex_lock(&d.lock);
	d.running_run = 0;
	d.step = NULL;
	pthread_mutex_unlock(&d.lock);
	ASSERT(j != NULL);
	pr = json_object_get(j, "progress");
	ASSERT(json_is_object(pr));
	ASSERT_EQ(json_integer_value(json_object_get(pr, "points_total")),
	    total);
	ASSERT_EQ(json_integer_value(json_object_get(pr, "total")), total);
	ASSERT_EQ(json_integer_value(json_object_get(pr, "step_total")),
	    total);
	json_decref(j);
	teardown();
}

TEST_LIST(
	TEST_ENTRY(check_reads_correction_and_model_under_one_version),
	TEST_ENTRY(a_poor_models_note_says_a_measured_answer_holds),
	TEST_ENTRY(a_checks_verified_says_its_measurements),
	TEST_ENTRY(a_runs_verification_verifies_the_same_answer),
	TEST_ENTRY(a_run_just_started_counts_its_points)
)
