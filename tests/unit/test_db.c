/*
 * tests/unit/test_db.c: the SQLite store on :memory: and on files: runs
 * and points, the report round trip, migrations from every version,
 * retention, interrupted runs, corrupt files moved aside, read-only opens.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "db.h"
#include "test.h"

static char	dir[64];

static void
fresh_dir(void)
{
	char	cmd[128];

	if (dir[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			TEST_FAIL("cannot clean %s", dir);
	}
	snprintf(dir, sizeof(dir), "/tmp/pwtune-db-XXXXXX");
	ASSERT(mkdtemp(dir) != NULL);
}

static const char *
in_dir(const char *name)
{
	static char	path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* A report with n points for host "h" (m = 1024 * (i + 1) KiB). */
static void
make_report(struct report *rep, const char *host, size_t n)
{
	size_t	i, j;

	memset(rep, 0, sizeof(*rep));
	snprintf(rep->host.host_id, sizeof(rep->host.host_id), "%s", host);
	snprintf(rep->host.fingerprint, sizeof(rep->host.fingerprint),
	    "fp-%s", host);
	snprintf(rep->host.cpu_model, sizeof(rep->host.cpu_model), "Test CPU");
	rep->host.online_cpus = 2;
	rep->host.mem_total = 1ULL << 33;
	rep->effective_cpus = 2;
	rep->mem_budget = 1ULL << 30;
	snprintf(rep->profile, sizeof(rep->profile), "quick");
	snprintf(rep->created, sizeof(rep->created), "2026-11-30T00:00:00Z");
	rep->n = n;
	rep->results = calloc(n ? n : 1, sizeof(*rep->results));
	for (i = 0; i < n; i++) {
		struct measure_result	*r = &rep->results[i];

		kdf_params_init(&r->pt.kp, KDF_ALG_ARGON2ID);
		r->pt.kp.backend = KDF_BACKEND_LIBSODIUM;
		r->pt.kp.m_kib = 1024 * (uint32_t)(i + 1);
		r->pt.kp.t = 1;
		r->pt.kp.p = 1;
		r->pt.k = 1;
		r->status = MEASURE_OK;
		r->samples = calloc(3, sizeof(double));
		for (j = 0; j < 3; j++)
			r->samples[r->nsamples++] = 10.0 * (double)(i + 1) +
			    (double)j;
		stats_compute(r->samples, r->nsamples, &r->st);
	}
}

static struct db *
open_ok(const char *path)
{
	struct db	*db;
	char		 err[512];

	if (db_open(path, NULL, &db, err, sizeof(err)) != DB_OK)
		TEST_FAIL("db_open %s: %s", path, err);
	return db;
}

TEST(memory_store_run_lifecycle)
{
	struct db	*db = open_ok(":memory:");
	struct report	 rep, back;
	struct db_run	 run;
	char		 err[512];
	int64_t		 id, latest;
	size_t		 i;

	ASSERT_EQ(db_schema_version(db), DB_SCHEMA_VERSION);
	make_report(&rep, "hostA", 3);
	ASSERT_EQ(db_run_latest_done(db, NULL, NULL, &latest, err,
	    sizeof(err)), DB_ERR_NOTFOUND);
	ASSERT_EQ(db_run_create(db, &rep, 3, DB_TRIGGER_CLI, &id, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_get(db, id, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_QUEUED);
	ASSERT_EQ(run.points_total, 3);
	ASSERT_STR_EQ(run.started, "");
	ASSERT_EQ(db_run_set_status(db, id, DB_RUN_RUNNING, NULL, err,
	    sizeof(err)), DB_OK);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(db_run_add_point(db, id, i, &rep.results[i], err,
		    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_get(db, id, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_RUNNING);
	ASSERT_EQ(run.points_done, 3);
	ASSERT(run.started[0] != '\0');
	/* A running run is not "latest done". */
	ASSERT_EQ(db_run_latest_done(db, "hostA", NULL, &latest, err,
	    sizeof(err)), DB_ERR_NOTFOUND);
	ASSERT_EQ(db_run_set_status(db, id, DB_RUN_DONE, NULL, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_latest_done(db, "hostA", "fp-hostA", &latest, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(latest, id);
	ASSERT_EQ(db_run_latest_done(db, "hostA", "fp-other", &latest, err,
	    sizeof(err)), DB_ERR_NOTFOUND);

	/* The run reads back as the report it was. */
	ASSERT_EQ(db_run_report(db, id, &back, err, sizeof(err)), DB_OK);
	ASSERT_STR_EQ(back.host.host_id, "hostA");
	ASSERT_STR_EQ(back.profile, "quick");
	ASSERT_EQ(back.n, 3);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(back.results[i].pt.kp.m_kib, rep.results[i].pt.kp.m_kib);
		ASSERT_EQ(back.results[i].nsamples, 3);
		ASSERT(back.results[i].st.mean == rep.results[i].st.mean);
	}
	report_release(&back);

	ASSERT_EQ(db_run_get(db, id + 100, &run, err, sizeof(err)),
	    DB_ERR_NOTFOUND);
	ASSERT_EQ(db_run_set_status(db, id + 100, DB_RUN_DONE, NULL, err,
	    sizeof(err)), DB_ERR_NOTFOUND);
	/* A point twice is refused, and leaves the run as it was. */
	ASSERT_EQ(db_run_add_point(db, id, 0, &rep.results[0], err,
	    sizeof(err)), DB_ERR_INVALID);
	ASSERT_EQ(db_run_get(db, id, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.points_done, 3);
	report_release(&rep);
	db_close(db);
}

TEST(models_are_stored_with_their_run)
{
	struct db	*db = open_ok(":memory:");
	struct report	 rep;
	struct model	 m;
	char		 err[512];
	int64_t		 id;
	size_t		 curves = 99;
	double		 worst = -1;

	make_report(&rep, "hostA", 4);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_model_count(db, id, &curves, &worst, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(curves, 0);
	ASSERT_EQ(model_fit(&rep, &m, err, sizeof(err)), 0);
	ASSERT_EQ(db_model_put(db, id, &m, err, sizeof(err)), DB_OK);
	/* Again: replaced, not added. */
	ASSERT_EQ(db_model_put(db, id, &m, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_model_count(db, id, &curves, &worst, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(curves, m.ncurves);
	ASSERT(fabs(worst - m.curves[0].loo_worst) < 1e-12);
	/* A model for a run that does not exist is refused. */
	ASSERT_EQ(db_model_put(db, id + 7, &m, err, sizeof(err)),
	    DB_ERR_INVALID);
	report_release(&rep);
	db_close(db);
}

TEST(import_export_and_list)
{
	struct db	*db = open_ok(":memory:");
	struct report	 rep, back;
	struct db_run	*runs;
	char		 err[512];
	int64_t		 a, b;
	size_t		 n;

	make_report(&rep, "hostA", 2);
	ASSERT_EQ(db_import_report(db, &rep, &a, err, sizeof(err)), DB_OK);
	report_release(&rep);
	make_report(&rep, "hostB", 4);
	ASSERT_EQ(db_import_report(db, &rep, &b, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_runs_list(db, NULL, 10, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 2);
	ASSERT_EQ(runs[0].id, b);	/* newest first */
	ASSERT_EQ(runs[0].status, DB_RUN_DONE);
	ASSERT_EQ(runs[0].trigger, DB_TRIGGER_IMPORT);
	ASSERT_EQ(runs[0].points_done, 4);
	free(runs);
	ASSERT_EQ(db_runs_list(db, "hostA", 10, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(runs[0].id, a);
	free(runs);
	ASSERT_EQ(db_run_report(db, b, &back, err, sizeof(err)), DB_OK);
	ASSERT_EQ(back.n, 4);
	ASSERT_STR_EQ(back.host.fingerprint, "fp-hostB");
	report_release(&back);
	/* A report without a host is refused. */
	rep.host.host_id[0] = '\0';
	ASSERT_EQ(db_import_report(db, &rep, &a, err, sizeof(err)),
	    DB_ERR_INVALID);
	report_release(&rep);
	db_close(db);
}

TEST(retention_keeps_the_newest_and_the_protected)
{
	struct db	*db = open_ok(":memory:");
	struct report	 rep;
	struct db_run	*runs;
	char		 err[512];
	int64_t		 ids[6], running, other;
	size_t		 i, n, deleted;

	make_report(&rep, "hostA", 1);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(db_import_report(db, &rep, &ids[i], err,
		    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_create(db, &rep, 1, DB_TRIGGER_API, &running, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_set_status(db, running, DB_RUN_RUNNING, NULL, err,
	    sizeof(err)), DB_OK);
	report_release(&rep);
	make_report(&rep, "hostB", 1);
	ASSERT_EQ(db_import_report(db, &rep, &other, err, sizeof(err)), DB_OK);
	report_release(&rep);

	/* Keep 2 of hostA; ids[1] is behind the model and stays too. */
	ASSERT_EQ(db_retention(db, "hostA", 2, ids[1], &deleted, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(deleted, 4);	/* ids[0], ids[2], ids[3], ids[4] */
	ASSERT_EQ(db_runs_list(db, "hostA", 10, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 3);
	ASSERT_EQ(runs[0].id, running);		/* running: never deleted */
	ASSERT_EQ(runs[1].id, ids[5]);
	ASSERT_EQ(runs[2].id, ids[1]);		/* protected */
	free(runs);
	/* The other host is untouched. */
	ASSERT_EQ(db_runs_list(db, "hostB", 10, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(runs[0].id, other);
	free(runs);
	db_close(db);
}

TEST(runs_of_a_dead_process_are_interrupted)
{
	struct db	*db;
	struct report	 rep;
	struct db_run	 run;
	char		 err[512];
	int64_t		 mine, theirs = 0;
	int		 fds[2], status;
	pid_t		 pid;

	fresh_dir();
	db = open_ok(in_dir("s.db"));
	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_run_create(db, &rep, 1, DB_TRIGGER_CLI, &mine, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_set_status(db, mine, DB_RUN_RUNNING, NULL, err,
	    sizeof(err)), DB_OK);
	db_close(db);

	/* Another process starts a run and dies without finishing it. */
	ASSERT_EQ(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		struct db	*c;

		if (db_open(in_dir("s.db"), NULL, &c, err, sizeof(err)) !=
		    DB_OK ||
		    db_run_create(c, &rep, 1, DB_TRIGGER_CLI, &theirs, err,
		    sizeof(err)) != DB_OK ||
		    db_run_set_status(c, theirs, DB_RUN_RUNNING, NULL, err,
		    sizeof(err)) != DB_OK)
			_exit(1);
		if (write(fds[1], &theirs, sizeof(theirs)) != sizeof(theirs))
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(read(fds[0], &theirs, sizeof(theirs)), sizeof(theirs));
	/* While it lives, opening the store leaves its run alone. */
	db = open_ok(in_dir("s.db"));
	ASSERT_EQ(db_run_get(db, theirs, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_RUNNING);
	db_close(db);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(fds[0]);
	close(fds[1]);

	db = open_ok(in_dir("s.db"));
	ASSERT_EQ(db_run_get(db, theirs, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_INTERRUPTED);
	ASSERT(run.finished[0] != '\0');
	ASSERT_STR_CONTAINS(run.error, "ended before it finished");
	/* Ours: this process is alive, so the run is still running. */
	ASSERT_EQ(db_run_get(db, mine, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_RUNNING);
	report_release(&rep);
	db_close(db);
}

/* Every migration path: from each version to the newest, data kept. */
TEST(migrations_from_every_version)
{
	struct db	*db;
	struct report	 rep, back;
	char		 err[512];
	int64_t		 id;
	int		 v;

	for (v = 0; v <= DB_SCHEMA_VERSION; v++) {
		fresh_dir();
		ASSERT_EQ(db_open_version(in_dir("m.db"), v, &db, err,
		    sizeof(err)), DB_OK);
		ASSERT_EQ(db_schema_version(db), v);
		id = 0;
		if (v >= 1) {
			make_report(&rep, "hostA", 2);
			ASSERT_EQ(db_import_report(db, &rep, &id, err,
			    sizeof(err)), DB_OK);
			report_release(&rep);
		}
		db_close(db);
		db = open_ok(in_dir("m.db"));
		ASSERT_EQ(db_schema_version(db), DB_SCHEMA_VERSION);
		if (id != 0) {
			ASSERT_EQ(db_run_report(db, id, &back, err,
			    sizeof(err)), DB_OK);
			ASSERT_EQ(back.n, 2);
			report_release(&back);
		}
		ASSERT_EQ(db_check(db, err, sizeof(err), err, sizeof(err)),
		    DB_OK);
		ASSERT_STR_EQ(err, "ok");
		db_close(db);
	}
}

TEST(newer_schema_is_refused)
{
	struct db	*db;
	char		 err[512], cmd[256];

	fresh_dir();
	db = open_ok(in_dir("n.db"));
	db_close(db);
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA user_version = %d'",
	    in_dir("n.db"), DB_SCHEMA_VERSION + 1);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_EQ(db_open(in_dir("n.db"), NULL, &db, err, sizeof(err)),
	    DB_ERR_SCHEMA);
	ASSERT_STR_CONTAINS(err, "newer than this pwtune knows");
}

/* Write a store with one finished run, then damage it with fn. */
static void
damaged_store(void (*fn)(const char *path))
{
	struct db	*db;
	struct report	 rep;
	char		 err[512];
	int64_t		 id;
	size_t		 i;

	fresh_dir();
	db = open_ok(in_dir("c.db"));
	make_report(&rep, "hostA", 40);
	for (i = 0; i < 20; i++)
		ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)),
		    DB_OK);
	report_release(&rep);
	db_close(db);
	fn(in_dir("c.db"));
}

static int	logged;

static void
count_log(void *ctx, const char *msg)
{
	(void)ctx;
	if (strstr(msg, "was corrupt: moved aside as") != NULL)
		logged++;
}

/* The damaged store is moved aside, a new one works, and it is logged. */
static void
expect_recovered(const char *what)
{
	struct db_open_opts	 o = { 0, 0, 0, count_log, NULL };
	struct db		*db;
	struct report		 rep;
	char			 err[512];
	int64_t			 id;
	DIR			*d;
	struct dirent		*e;
	int			 aside = 0;

	logged = 0;
	if (db_open(in_dir("c.db"), &o, &db, err, sizeof(err)) != DB_OK)
		TEST_FAIL("%s: %s", what, err);
	if (logged != 1)
		TEST_FAIL("%s: logged %d times", what, logged);
	ASSERT((d = opendir(dir)) != NULL);
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "c.db.corrupt-", 13) == 0 &&
		    strchr(e->d_name + 13, '-') == NULL)
			aside++;
	closedir(d);
	if (aside != 1)
		TEST_FAIL("%s: %d files moved aside", what, aside);
	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	ASSERT_EQ(id, 1);	/* a new store */
	report_release(&rep);
	db_close(db);
}

static void
overwrite(const char *path, off_t off, const void *buf, size_t len)
{
	int	fd = open(path, O_WRONLY);

	ASSERT(fd >= 0);
	ASSERT_EQ(pwrite(fd, buf, len, off), (ssize_t)len);
	close(fd);
}

static void
flip_header(const char *path)
{
	overwrite(path, 0, "SQLite format 4", 15);
}

static void
garbage_page(const char *path)
{
	uint8_t	buf[4096];
	size_t	i;

	/* Page 2 onwards: b-tree pages of the tables. */
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	overwrite(path, 4096, buf, sizeof(buf));
}

static void
truncate_half(const char *path)
{
	struct stat	sb;

	ASSERT_EQ(stat(path, &sb), 0);
	ASSERT(sb.st_size > 8192);
	ASSERT_EQ(truncate(path, sb.st_size / 2), 0);
}

static void
random_bytes(const char *path)
{
	uint8_t	buf[8192];
	FILE	*fp = fopen("/dev/urandom", "r");

	ASSERT(fp != NULL);
	ASSERT_EQ(fread(buf, 1, sizeof(buf), fp), sizeof(buf));
	fclose(fp);
	ASSERT_EQ(truncate(path, 0), 0);
	overwrite(path, 0, buf, sizeof(buf));
}

TEST(corrupt_files_are_moved_aside)
{
	damaged_store(flip_header);
	expect_recovered("flipped header");
	damaged_store(garbage_page);
	expect_recovered("garbage page");
	damaged_store(truncate_half);
	expect_recovered("truncated");
	damaged_store(random_bytes);
	expect_recovered("random bytes");
}

TEST(an_empty_file_is_a_new_store)
{
	struct db	*db;
	int		 fd;

	fresh_dir();
	fd = open(in_dir("e.db"), O_CREAT | O_WRONLY, 0600);
	ASSERT(fd >= 0);
	close(fd);
	logged = 0;
	{
		struct db_open_opts	o = { 0, 0, 0, count_log, NULL };
		char			err[512];

		ASSERT_EQ(db_open(in_dir("e.db"), &o, &db, err, sizeof(err)),
		    DB_OK);
	}
	ASSERT_EQ(logged, 0);
	ASSERT_EQ(db_schema_version(db), DB_SCHEMA_VERSION);
	db_close(db);
}

TEST(read_only_open)
{
	struct db_open_opts	 o = { 1, 0, 0, NULL, NULL };
	struct db		*db;
	struct report		 rep;
	struct db_run		*runs;
	char			 err[512];
	int64_t			 id;
	size_t			 n;

	fresh_dir();
	db = open_ok(in_dir("r.db"));
	make_report(&rep, "hostA", 2);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	db_close(db);
	ASSERT_EQ(db_open(in_dir("r.db"), &o, &db, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_runs_list(db, NULL, 5, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1);
	free(runs);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)),
	    DB_ERR_READONLY);
	ASSERT_STR_CONTAINS(err, "read-only");
	db_close(db);
	/* A missing file is not created by a read-only open. */
	ASSERT_EQ(db_open(in_dir("none.db"), &o, &db, err, sizeof(err)),
	    DB_ERR_CANTOPEN);
	ASSERT_EQ(access(in_dir("none.db"), F_OK), -1);
	/* A directory that does not exist. */
	ASSERT_EQ(db_open("/nonexistent-pwtune/x.db", NULL, &db, err,
	    sizeof(err)), DB_ERR_CANTOPEN);
	ASSERT_STR_CONTAINS(err, "/nonexistent-pwtune");
	report_release(&rep);
}

TEST_LIST(
	TEST_ENTRY(memory_store_run_lifecycle),
	TEST_ENTRY(models_are_stored_with_their_run),
	TEST_ENTRY(import_export_and_list),
	TEST_ENTRY(retention_keeps_the_newest_and_the_protected),
	TEST_ENTRY(runs_of_a_dead_process_are_interrupted),
	TEST_ENTRY(migrations_from_every_version),
	TEST_ENTRY(newer_schema_is_refused),
	TEST_ENTRY(corrupt_files_are_moved_aside),
	TEST_ENTRY(an_empty_file_is_a_new_store),
	TEST_ENTRY(read_only_open)
)
