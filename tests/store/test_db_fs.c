/*
 * tests/store/test_db_fs.c: the store on a full file system and on a
 * read-only one. Run by tests/store/fs.sh, as an unprivileged user, in the
 * directories it prepares:
 *
 *   test_db_fs full DIR        DIR: a small tmpfs, writable
 *   test_db_fs readonly DIR    DIR: holds s.db, and cannot be written
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "db.h"
#include "test.h"

static const char *
target(const char *name)
{
	static char	path[512];

	if (test_argc < 1)
		TEST_FAIL("usage: test_db_fs TEST DIR");
	snprintf(path, sizeof(path), "%s/%s", test_argv[0], name);
	return path;
}

/* A point carrying 2000 samples: about 40 KB of JSON. */
static void
big_point(struct measure_result *r)
{
	size_t	i;

	memset(r, 0, sizeof(*r));
	kdf_params_init(&r->pt.kp, KDF_ALG_ARGON2ID);
	r->pt.kp.backend = KDF_BACKEND_LIBSODIUM;
	r->pt.kp.m_kib = 8192;
	r->pt.kp.t = 1;
	r->pt.kp.p = 1;
	r->pt.k = 1;
	r->status = MEASURE_OK;
	r->samples = calloc(MEASURE_SAMPLES_MAX, sizeof(double));
	for (i = 0; i < MEASURE_SAMPLES_MAX; i++)
		r->samples[r->nsamples++] = 12.345678901 + (double)i / 7;
	stats_compute(r->samples, r->nsamples, &r->st);
}

static void
report_for(struct report *rep)
{
	memset(rep, 0, sizeof(*rep));
	snprintf(rep->host.host_id, sizeof(rep->host.host_id), "fshost");
	snprintf(rep->host.fingerprint, sizeof(rep->host.fingerprint), "fp");
	snprintf(rep->profile, sizeof(rep->profile), "quick");
}

TEST(full)
{
	struct db		*db;
	struct report		 rep;
	struct measure_result	 r;
	struct db_run		 run;
	char			 err[512], check[512];
	int64_t			 id;
	size_t			 seq;
	enum db_status		 st = DB_OK;
	int			 fd;

	if (getuid() == 0)
		TEST_FAIL("run this as an unprivileged user");
	/* Take some room first, to give back later. */
	fd = open(target("filler"), O_CREAT | O_WRONLY, 0600);
	ASSERT(fd >= 0);
	{
		char	block[4096];

		memset(block, 'x', sizeof(block));
		for (seq = 0; seq < 64; seq++)
			ASSERT_EQ(write(fd, block, sizeof(block)), 4096);
	}
	close(fd);

	report_for(&rep);
	big_point(&r);
	if (db_open(target("s.db"), NULL, &db, err, sizeof(err)) != DB_OK)
		TEST_FAIL("open: %s", err);
	ASSERT_EQ(db_run_create(db, &rep, 1000, DB_TRIGGER_CLI, &id, err,
	    sizeof(err)), DB_OK);
	for (seq = 0; seq < 1000; seq++)
		if ((st = db_run_add_point(db, id, seq, &r, err,
		    sizeof(err))) != DB_OK)
			break;
	ASSERT_EQ(st, DB_ERR_FULL);
	ASSERT_STR_CONTAINS(err, "s.db");
	ASSERT_STR_CONTAINS(err, "the file system is full");
	printf("  full after %zu points: %s\n", seq, err);

	/* Reads keep working, and nothing is damaged. */
	ASSERT_EQ(db_run_get(db, id, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.points_done, (int)seq);
	ASSERT_EQ(db_check(db, check, sizeof(check), err, sizeof(err)), DB_OK);
	ASSERT_STR_EQ(check, "ok");

	/* Space comes back: the same connection writes again. */
	ASSERT_EQ(unlink(target("filler")), 0);
	ASSERT_EQ(db_run_add_point(db, id, seq, &r, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_set_status(db, id, DB_RUN_DONE, NULL, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_get(db, id, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.points_done, (int)seq + 1);
	ASSERT_EQ(run.status, DB_RUN_DONE);
	db_close(db);

	/* And it reads back whole after a reopen. */
	ASSERT_EQ(db_open(target("s.db"), NULL, &db, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_check(db, check, sizeof(check), err, sizeof(err)), DB_OK);
	ASSERT_STR_EQ(check, "ok");
	ASSERT_EQ(db_run_report(db, id, &rep, err, sizeof(err)), DB_OK);
	ASSERT_EQ(rep.n, seq + 1);
	report_release(&rep);
	db_close(db);
	measure_result_release(&r);
}

TEST(readonly)
{
	struct db_open_opts	 ro = { 1, 0, 0, NULL, NULL };
	struct db		*db;
	struct db_run		*runs;
	char			 err[512];
	size_t			 n;

	if (getuid() == 0)
		TEST_FAIL("run this as an unprivileged user");
	/* For writing: a clean error that names the place and the cause. */
	ASSERT_EQ(db_open(target("s.db"), NULL, &db, err, sizeof(err)),
	    DB_ERR_READONLY);
	ASSERT_STR_CONTAINS(err, "cannot write in");
	printf("  %s\n", err);
	ASSERT_EQ(db_open(target("new.db"), NULL, &db, err, sizeof(err)),
	    DB_ERR_READONLY);
	/* For reading: served. */
	if (db_open(target("s.db"), &ro, &db, err, sizeof(err)) != DB_OK)
		TEST_FAIL("read-only open: %s", err);
	ASSERT_EQ(db_runs_list(db, NULL, 10, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(runs[0].status, DB_RUN_DONE);
	free(runs);
	db_close(db);
}

TEST_LIST(
	TEST_ENTRY(full),
	TEST_ENTRY(readonly)
)
