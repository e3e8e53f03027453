/*
 * tests/unit/test_db.c: the store suite. Runs and points, the report round
 * trip, migrations from every version, retention, interrupted runs, host
 * groups, observations, concurrent writers, read-only opens; for SQLite
 * also :memory:, corrupt files moved aside and empty files.
 *
 * The same suite runs against both engines: SQLite files by default, and
 * PostgreSQL when PWTUNE_TEST_PG names a server ("postgresql://USER@HOST:
 * PORT", no database: each test makes its own; tests/store/pg_suite.sh
 * starts a throw-away server and sets it).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "db.h"
#include "fleet.h"
#include "stack.h"
#include "synthetic.h"
#include "test.h"

static char	dir[64];
static const char *pg_base;	/* NULL: SQLite */

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

static void
pg_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Run sql on PostgreSQL database name ("postgres": the server's own). */
static void
pg_sql(const char *name, const char *sql)
{
	char		 url[512];
	PGconn		*c;
	PGresult	*res;

	snprintf(url, sizeof(url), "%s/%s", pg_base, name);
	c = PQconnectdb(url);
	if (PQstatus(c) != CONNECTION_OK) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", PQerrorMessage(c));
		PQfinish(c);
		TEST_FAIL("connect %s: %s", url, msg);
	}
	PQsetNoticeProcessor(c, pg_quiet, NULL);
	res = PQexec(c, sql);
	if (PQresultStatus(res) != PGRES_COMMAND_OK &&
	    PQresultStatus(res) != PGRES_TUPLES_OK) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", PQresultErrorMessage(res));
		PQclear(res);
		PQfinish(c);
		TEST_FAIL("%s: %s", sql, msg);
	}
	PQclear(res);
	PQfinish(c);
}

/* The locator of store name: a file in dir, or a PostgreSQL database. */
static const char *
store_at(const char *name)
{
	static char	loc[4][256];
	static int	next;
	char		*out = loc[next++ % 4];
	size_t		 i;

	if (pg_base == NULL) {
		snprintf(out, sizeof(loc[0]), "%s/%s", dir, name);
		return out;
	}
	/* Database names: letters, digits and _ only. */
	snprintf(out, sizeof(loc[0]), "%s/t_", pg_base);
	i = strlen(out);
	for (; *name != '\0' && i + 1 < sizeof(loc[0]); name++)
		out[i++] = isalnum((unsigned char)*name) ? *name : '_';
	out[i] = '\0';
	return out;
}

/* A new, empty store name (a fresh directory for SQLite files). */
static const char *
fresh_store(const char *name)
{
	const char	*loc;
	char		 sql[512];

	if (pg_base == NULL) {
		fresh_dir();
		return store_at(name);
	}
	loc = store_at(name);
	snprintf(sql, sizeof(sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)",
	    strrchr(loc, '/') + 1);
	pg_sql("postgres", sql);
	snprintf(sql, sizeof(sql), "CREATE DATABASE %s", strrchr(loc, '/') +
	    1);
	pg_sql("postgres", sql);
	return loc;
}

/* A store for one test: :memory: on SQLite, a new database otherwise. */
static const char *
scratch_store(const char *name)
{
	return pg_base == NULL ? ":memory:" : fresh_store(name);
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
	struct db	*db = open_ok(scratch_store("lifecycle"));
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
	struct db	*db = open_ok(scratch_store("models"));
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
	struct db	*db = open_ok(scratch_store("import"));
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
	struct db	*db = open_ok(scratch_store("retention"));
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
	ASSERT_EQ(db_retention(db, "hostA", NULL, 2, ids[1], &deleted, err,
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

/*
 * A finished run of host "hostA" on fingerprint of n points of one curve
 * (at k, ms x i), made by trigger (import: db_import_report).
 */
static int64_t
store_curve(struct db *db, const char *fingerprint, enum db_trigger trigger,
    enum kdf_backend be, enum kdf_alg alg, uint32_t p, uint32_t k, size_t n,
    double ms)
{
	struct report	rep;
	char		err[512];
	int64_t		id;
	size_t		i, j;

	make_report(&rep, "hostA", n);
	snprintf(rep.host.fingerprint, sizeof(rep.host.fingerprint), "%s",
	    fingerprint);
	for (i = 0; i < n; i++) {
		struct measure_result	*r = &rep.results[i];

		r->pt.kp.alg = alg;
		r->pt.kp.backend = be;
		r->pt.kp.p = p;
		r->pt.k = k;
		if (alg == KDF_ALG_SCRYPT) {
			r->pt.kp.ln = 14;
			r->pt.kp.r = 8;
		}
		for (j = 0; j < r->nsamples; j++)
			r->samples[j] = ms * (double)(i + 1) + (double)j;
		stats_compute(r->samples, r->nsamples, &r->st);
	}
	if (trigger == DB_TRIGGER_IMPORT) {
		if (db_import_report(db, &rep, &id, err, sizeof(err)) != DB_OK)
			TEST_FAIL("import: %s", err);
	} else {
		if (db_run_create(db, &rep, n, trigger, &id, err,
		    sizeof(err)) != DB_OK)
			TEST_FAIL("create: %s", err);
		for (i = 0; i < n; i++)
			if (db_run_add_point(db, id, i, &rep.results[i], err,
			    sizeof(err)) != DB_OK)
				TEST_FAIL("point: %s", err);
		if (db_run_set_status(db, id, DB_RUN_DONE, NULL, err,
		    sizeof(err)) != DB_OK)
			TEST_FAIL("done: %s", err);
	}
	report_release(&rep);
	return id;
}

/* An argon2id run of the daemon's (API) on fingerprint fp-hostA. */
static int64_t
daemon_run(struct db *db, double ms)
{
	return store_curve(db, "fp-hostA", DB_TRIGGER_API,
	    KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID, 1, 1, 4, ms);
}

/* A grid of pwtune bench --db (CLI) on fingerprint fp-hostA. */
static int64_t
cli_grid(struct db *db, enum kdf_backend be, enum kdf_alg alg, uint32_t p,
    uint32_t k, double ms)
{
	return store_curve(db, "fp-hostA", DB_TRIGGER_CLI, be, alg, p, k, 5,
	    ms);
}

/* The curve of m for (be, alg, p), or a failure. */
static const struct model_curve *
curve_of(const struct model *m, enum kdf_backend be, enum kdf_alg alg,
    uint32_t p)
{
	const struct model_curve	*c = model_curve_find(m, be, alg, p);

	if (c == NULL)
		TEST_FAIL("no %s %s p = %u curve", kdf_backend_name(be),
		    kdf_alg_name(alg), (unsigned)p);
	return c;
}

/* Whether run id is in the store. */
static int
run_kept(struct db *db, int64_t id)
{
	struct db_run	run;
	char		err[512];

	return db_run_get(db, id, &run, err, sizeof(err)) == DB_OK;
}

/*
 * A grid of another variant stored after the daemon's run adds its curve
 * to the model (the newest run to measure it, however many runs came
 * since), not replacing it; the daemon's run is the model's before a
 * grid of the same curve; a run of another fingerprint adds nothing;
 * retention keeps what a model takes and only that.
 */
TEST(a_model_takes_the_curves_its_run_did_not_measure)
{
	struct db		*db = open_ok(scratch_store("merge"));
	struct db_model_sources	 src;
	struct report		 rep;
	struct model		 m;
	const struct model_curve *c;
	char			 err[512];
	int64_t			 old_i, quick, grid, l2, cli_id, k4, scr, last, id;
	size_t			 i, deleted;

	ASSERT_EQ(db_model_run(db, "hostA", "fp-hostA", &id, err,
	    sizeof(err)), DB_ERR_NOTFOUND);
	ASSERT_STR_CONTAINS(err, "no finished run");
	old_i = cli_grid(db, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2I, 1, 1,
	    100.0);
	/* Only another variant: that run is the model's. */
	ASSERT_EQ(db_model_run(db, "hostA", "fp-hostA", &id, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(id, old_i);
	quick = daemon_run(db, 10.0);
	grid = cli_grid(db, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2I, 1, 1, 20.0);
	/* Argon2id, but not the curve that decides: not the model's run. */
	l2 = cli_grid(db, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2ID, 1, 1, 15.0);
	/* A CLI grid of the daemon's own curve is not the model's run. */
	cli_id = cli_grid(db, KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID, 1, 1,
	    12.0);
	/* Newer, of the grid's curve at k = 4 only: no curve of a model. */
	k4 = cli_grid(db, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2I, 1, 4, 30.0);
	/* scrypt: no curve either. */
	scr = cli_grid(db, KDF_BACKEND_LIBSODIUM, KDF_ALG_SCRYPT, 2, 1, 5.0);

	/* The newest run of the daemon's that measured the deciding curve. */
	ASSERT_EQ(db_model_run(db, "hostA", "fp-hostA", &id, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(id, quick);
	ASSERT_EQ(db_model_report(db, quick, &rep, &src, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(src.nown, 4);
	ASSERT(rep.merged && rep.nown == 4);
	ASSERT_EQ(src.n, 2);		/* the k = 1 grids'; no scrypt */
	for (i = 0; i < src.n; i++)
		ASSERT(src.src[i].run == (src.src[i].variant ==
		    KDF_ALG_ARGON2I ? grid : l2));
	ASSERT_EQ(rep.n, 4 + 5 + 5);
	report_release(&rep);
	memset(&m, 0, sizeof(m));
	ASSERT_EQ(db_model_fit(db, quick, &m, err, sizeof(err)), DB_OK);
	ASSERT_EQ(m.run_id, quick);
	ASSERT_EQ(m.ncurves, 3);
	c = curve_of(&m, KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID, 1);
	ASSERT(c->run_id == quick && !c->other_run);
	ASSERT(model_deciding_curve(&m) == c);
	c = curve_of(&m, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2I, 1);
	ASSERT(c->run_id == grid && c->other_run);
	ASSERT_EQ(c->npoints, 5);
	ASSERT_EQ(m.npoints, 4);	/* the run's own */

	/* Seventeen runs of the daemon's since: the grids' curves stay. */
	for (i = 0; i < 17; i++)
		last = daemon_run(db, 10.0 + (double)i);
	ASSERT_EQ(db_model_run(db, "hostA", "fp-hostA", &id, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(id, last);
	memset(&m, 0, sizeof(m));
	ASSERT_EQ(db_model_fit(db, last, &m, err, sizeof(err)), DB_OK);
	ASSERT_EQ(curve_of(&m, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2I,
	    1)->run_id, grid);

	/*
	 * Keep one: the newest stays, and the runs a model takes a curve
	 * from; the older argon2i grid (measured again since), the k = 4
	 * and scrypt runs and the daemon's older runs go.
	 */
	ASSERT_EQ(db_retention(db, "hostA", "fp-hostA", 1, 0, &deleted, err,
	    sizeof(err)), DB_OK);
	ASSERT(run_kept(db, last) && run_kept(db, grid) && run_kept(db, l2));
	ASSERT(!run_kept(db, old_i) && !run_kept(db, k4) &&
	    !run_kept(db, scr) && !run_kept(db, quick) && !run_kept(db, cli_id));
	ASSERT_EQ(deleted, 5 + 16);

	/*
	 * A grid of another fingerprint (a shell with fewer CPUs, say): the
	 * host as it is keeps its model, and retention its runs.
	 */
	id = store_curve(db, "fp-changed", DB_TRIGGER_CLI,
	    KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2D, 1, 1, 3, 30.0);
	ASSERT_EQ(db_model_run(db, "hostA", "fp-hostA", &m.run_id, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(m.run_id, last);
	ASSERT_EQ(db_retention(db, "hostA", "fp-hostA", 1, 0, &deleted, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(deleted, 0);
	/* The host changed to it: its run, and nothing of the host before. */
	ASSERT_EQ(db_model_run(db, "hostA", "fp-changed", &m.run_id, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(m.run_id, id);
	ASSERT_EQ(db_model_run(db, "hostA", NULL, &m.run_id, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(m.run_id, id);	/* unknown: the newest run's */
	/* A fleet's host row without facts yet: the newest run's too. */
	{
		struct db_host	h;

		memset(&h, 0, sizeof(h));
		snprintf(h.id, sizeof(h.id), "hostA");
		ASSERT_EQ(db_host_model(db, &h, &m, err, sizeof(err)), DB_OK);
		ASSERT_EQ(m.run_id, id);
	}
	ASSERT_EQ(db_model_report(db, id, &rep, &src, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(rep.n, 3);
	ASSERT(src.n == 0 && !rep.merged);
	report_release(&rep);
	ASSERT_EQ(db_retention(db, "hostA", "fp-changed", 1, 0, &deleted, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(deleted, 3);
	ASSERT(run_kept(db, id) && !run_kept(db, grid));
	db_close(db);
}

static char	model_log[1024];

static void
model_log_keep(void *ctx, const char *msg)
{
	size_t	n = strlen(model_log);

	(void)ctx;
	snprintf(model_log + n, sizeof(model_log) - n, "%s\n", msg);
}

/* Another run's point that cannot be read leaves its curve out, said. */
TEST(an_unreadable_curve_of_another_run_is_left_out)
{
	struct db_open_opts	 o = { 0, 0, 0, model_log_keep, NULL };
	struct db		*db;
	struct model		 m;
	const char		*loc = fresh_store("unreadable.db");
	char			 err[512], sql[256];
	int64_t			 quick, grid, fake;

	if (db_open(loc, &o, &db, err, sizeof(err)) != DB_OK)
		TEST_FAIL("open: %s", err);
	quick = daemon_run(db, 10.0);
	grid = cli_grid(db, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2I, 1, 1, 20.0);
	/* Rows that say argon2d, data that say argon2id (the run's curve). */
	fake = cli_grid(db, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2ID, 1, 1,
	    99.0);
	snprintf(sql, sizeof(sql), "UPDATE points SET data = '{}' WHERE "
	    "run_id = %lld AND seq = 2; UPDATE points SET variant = 'argon2d' "
	    "WHERE run_id = %lld", (long long)grid, (long long)fake);
	if (pg_base == NULL) {
		char	cmd[512];

		snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \"%s\"", loc, sql);
		ASSERT_EQ(system(cmd), 0);
	} else
		pg_sql(strrchr(loc, '/') + 1, sql);
	memset(&m, 0, sizeof(m));
	model_log[0] = '\0';
	ASSERT_EQ(db_model_fit(db, quick, &m, err, sizeof(err)), DB_OK);
	ASSERT_EQ(m.ncurves, 1);
	ASSERT_EQ(curve_of(&m, KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID,
	    1)->npoints, 4);
	ASSERT(model_curve_find(&m, KDF_BACKEND_LIBARGON2, KDF_ALG_ARGON2I,
	    1) == NULL);
	ASSERT_STR_CONTAINS(model_log, "run 2: stored point 2 unreadable");
	ASSERT_STR_CONTAINS(model_log, "its libargon2 argon2i p = 1 curve is "
	    "left out of the model");
	ASSERT_STR_CONTAINS(model_log, "run 3: stored point 0 unreadable: its "
	    "data say libargon2 argon2id p = 1: its libargon2 argon2d p = 1 "
	    "curve is left out of the model");
	db_close(db);
}

/*
 * A child process that opens the store file, starts a run there and holds
 * it (pause()) until killed: its pid and the run's id. -1 when it could
 * not (the child, if any, has exited or is to be killed by the caller).
 */
static int
run_holder(const char *file, const struct report *rep, pid_t *pid,
    int64_t *theirs)
{
	char	err[512];
	int	fds[2], got;

	*pid = -1;
	if (pipe(fds) != 0)
		return -1;
	if ((*pid = fork()) == -1) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (*pid == 0) {
		struct db	*c;

		close(fds[0]);
		if (db_open(store_at(file), NULL, &c, err, sizeof(err)) !=
		    DB_OK ||
		    db_run_create(c, rep, 1, DB_TRIGGER_CLI, theirs, err,
		    sizeof(err)) != DB_OK ||
		    db_run_set_status(c, *theirs, DB_RUN_RUNNING, NULL, err,
		    sizeof(err)) != DB_OK)
			_exit(1);
		if (write(fds[1], theirs, sizeof(*theirs)) != sizeof(*theirs))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);		/* a child that fails ends the read */
	got = read(fds[0], theirs, sizeof(*theirs)) == sizeof(*theirs);
	close(fds[0]);
	return got ? 0 : -1;
}

TEST(runs_of_a_dead_process_are_interrupted)
{
	struct db	*db;
	struct report	 rep;
	struct db_run	 run;
	char		 err[512];
	int64_t		 mine, theirs = 0;
	int		 status;
	pid_t		 pid;

	db = open_ok(fresh_store("s.db"));
	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_run_create(db, &rep, 1, DB_TRIGGER_CLI, &mine, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_set_status(db, mine, DB_RUN_RUNNING, NULL, err,
	    sizeof(err)), DB_OK);
	db_close(db);

	/* Another process starts a run and dies without finishing it. */
	ASSERT_EQ(run_holder("s.db", &rep, &pid, &theirs), 0);
	/* While it lives, opening the store leaves its run alone. */
	db = open_ok(store_at("s.db"));
	ASSERT_EQ(db_run_get(db, theirs, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_RUNNING);
	db_close(db);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);

	db = open_ok(store_at("s.db"));
	ASSERT_EQ(db_run_get(db, theirs, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_INTERRUPTED);
	ASSERT(run.finished[0] != '\0');
	ASSERT_STR_CONTAINS(run.error, "ended before it finished");
	/* Ours: this process is alive, so the run is still running. */
	ASSERT_EQ(db_run_get(db, mine, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_RUNNING);
	db_close(db);
	/*
	 * A running run with no owner at all (a hand edit, an old tool) in
	 * a SQLite file: no process runs it, so it is interrupted too
	 * (PostgreSQL recovers only this machine's runs, by their owner).
	 */
	if (pg_base == NULL) {
		sqlite3	*c;
		char	 sql[128];

		snprintf(sql, sizeof(sql), "UPDATE runs SET owner = NULL "
		    "WHERE id = %lld", (long long)mine);
		ASSERT_EQ(sqlite3_open(store_at("s.db"), &c), SQLITE_OK);
		ASSERT_EQ(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(c);
		db = open_ok(store_at("s.db"));
		ASSERT_EQ(db_run_get(db, mine, &run, err, sizeof(err)), DB_OK);
		ASSERT_EQ(run.status, DB_RUN_INTERRUPTED);
		db_close(db);
	}
	report_release(&rep);
}

/*
 * Every /proc/PID/stat but this process's own unreadable while set, as
 * a /proc mounted with hidepid shows other users' processes: fopen()
 * here stands in front of the C library's for this executable.
 */
static int	proc_stat_hidden;

FILE *
fopen(const char *path, const char *mode)
{
	static FILE	*(*next)(const char *, const char *);
	char		*end;
	long		 pid;

	/* /proc/<digits>/stat of another process only. */
	if (proc_stat_hidden && strncmp(path, "/proc/", 6) == 0 &&
	    isdigit((unsigned char)path[6]) && (pid = strtol(path + 6, &end,
	    10)) > 0 && strcmp(end, "/stat") == 0 && pid != (long)getpid()) {
		errno = EACCES;
		return NULL;
	}
	if (next == NULL)
		*(void **)&next = dlsym(RTLD_NEXT, "fopen");
	return next != NULL ? next(path, mode) : NULL;
}

/* The status of run id in the store at path, opened with /proc hidden. */
static enum db_run_status
status_hidden(const char *path, int64_t id)
{
	struct db	*db;
	struct db_run	 run;
	char		 err[512];
	int		 ok;

	proc_stat_hidden = 1;
	ok = db_open(path, NULL, &db, err, sizeof(err)) == DB_OK;
	proc_stat_hidden = 0;
	if (!ok)
		return (enum db_run_status)-1;
	ok = db_run_get(db, id, &run, err, sizeof(err)) == DB_OK;
	db_close(db);
	return ok ? run.status : (enum db_run_status)-1;
}

/*
 * A live process whose /proc entry this one cannot read keeps its run:
 * marking it interrupted would lose its end. Once no process has its pid,
 * or the owner started later after boot than the host's uptime (a run of
 * an earlier boot whose pid is taken again), the run is interrupted.
 */
TEST(a_run_of_an_unreadable_process_is_kept_while_it_lives)
{
	struct db		*db;
	struct report		 rep;
	char			 err[512];
	int64_t			 theirs = 0, mine = 0;
	int			 status, got;
	enum db_run_status	 alive;
	pid_t			 pid;

	db = open_ok(fresh_store("h.db"));
	db_close(db);
	make_report(&rep, "hostA", 1);
	got = run_holder("h.db", &rep, &pid, &theirs) == 0;
	alive = got ? status_hidden(store_at("h.db"), theirs) :
	    (enum db_run_status)-1;
	/* The child stopped before any assertion: a failure leaves none. */
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	ASSERT(got);
	ASSERT_EQ(alive, DB_RUN_RUNNING);
	ASSERT_EQ(status_hidden(store_at("h.db"), theirs),
	    DB_RUN_INTERRUPTED);
	/*
	 * SQLite (its owners are edited by hand here): pid 1, alive in any
	 * pid namespace, as the owner of a run of this boot (started a
	 * tick after it) and of an earlier one (started later after boot
	 * than this host has been up).
	 */
	if (pg_base == NULL) {
		sqlite3	*c;
		char	 sql[160];

		db = open_ok(store_at("h.db"));
		ASSERT_EQ(db_run_create(db, &rep, 1, DB_TRIGGER_CLI, &mine,
		    err, sizeof(err)), DB_OK);
		ASSERT_EQ(db_run_set_status(db, mine, DB_RUN_RUNNING, NULL,
		    err, sizeof(err)), DB_OK);
		db_close(db);
		ASSERT_EQ(sqlite3_open(store_at("h.db"), &c), SQLITE_OK);
		snprintf(sql, sizeof(sql), "UPDATE runs SET owner = '1:1' "
		    "WHERE id = %lld", (long long)mine);
		ASSERT_EQ(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK);
		ASSERT_EQ(status_hidden(store_at("h.db"), mine),
		    DB_RUN_RUNNING);
		snprintf(sql, sizeof(sql), "UPDATE runs SET owner = "
		    "'1:99999999999999' WHERE id = %lld", (long long)mine);
		ASSERT_EQ(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK);
		ASSERT_EQ(status_hidden(store_at("h.db"), mine),
		    DB_RUN_INTERRUPTED);
		/*
		 * A pid past any pid_t (written by another program): gone,
		 * not cut down to -1 (every process) for kill().
		 */
		ASSERT_EQ(db_run_set_status(db = open_ok(store_at("h.db")),
		    mine, DB_RUN_RUNNING, NULL, err, sizeof(err)), DB_OK);
		db_close(db);
		snprintf(sql, sizeof(sql), "UPDATE runs SET owner = "
		    "'4294967295:1' WHERE id = %lld", (long long)mine);
		ASSERT_EQ(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(c);
		ASSERT_EQ(status_hidden(store_at("h.db"), mine),
		    DB_RUN_INTERRUPTED);
	}
	report_release(&rep);
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
		ASSERT_EQ(db_open_version(fresh_store("m.db"), v, &db, err,
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
		db = open_ok(store_at("m.db"));
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

	db = open_ok(fresh_store("n.db"));
	db_close(db);
	if (pg_base == NULL) {
		snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA user_version ="
		    " %d'", store_at("n.db"), DB_SCHEMA_VERSION + 1);
		ASSERT_EQ(system(cmd), 0);
	} else {
		snprintf(cmd, sizeof(cmd), "UPDATE pwtune_schema SET version ="
		    " %d", DB_SCHEMA_VERSION + 1);
		pg_sql("t_n_db", cmd);
	}
	ASSERT_EQ(db_open(store_at("n.db"), NULL, &db, err, sizeof(err)),
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

/* A byte of the header after the magic: the payload fraction must be 64. */
static void
flip_header(const char *path)
{
	overwrite(path, 21, "\x41", 1);
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

/* Tests of SQLite files only: PostgreSQL keeps its own files. */
#define SQLITE_ONLY() do {						\
	if (pg_base != NULL) {						\
		printf("       (a test of SQLite files)\n");		\
		return;							\
	}								\
} while (0)

TEST(corrupt_files_are_moved_aside)
{
	SQLITE_ONLY();
	damaged_store(flip_header);
	expect_recovered("flipped header");
	damaged_store(garbage_page);
	expect_recovered("garbage page");
	damaged_store(truncate_half);
	expect_recovered("truncated");
}

/* Is path's content the len bytes of want? */
static int
same_bytes(const char *path, const void *want, size_t len)
{
	char	 buf[16384];
	FILE	*fp = fopen(path, "r");
	size_t	 n;

	if (fp == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	return n == len && memcmp(buf, want, len) == 0;
}

/* How many files of dir start with prefix. */
static int
count_files(const char *prefix)
{
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	ASSERT((d = opendir(dir)) != NULL);
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

/*
 * A file that is not an SQLite database (no magic in its header) is not
 * ours: refused, read-only or not, naming it, and left as it is.
 */
TEST(other_files_are_refused_untouched)
{
	struct db_open_opts	 o = { 0, 0, 0, count_log, NULL };
	struct db_open_opts	 ro = { 1, 0, 0, count_log, NULL };
	static const char	 text[] = "hello\n";
	uint8_t			 noise[8192];
	struct db		*db;
	char			 err[512];
	FILE			*fp;

	SQLITE_ONLY();
	fresh_dir();
	ASSERT((fp = fopen(in_dir("notes.txt"), "w")) != NULL);
	fputs(text, fp);
	fclose(fp);
	logged = 0;
	ASSERT(db_open(in_dir("notes.txt"), &o, &db, err, sizeof(err)) !=
	    DB_OK);
	ASSERT_STR_CONTAINS(err, in_dir("notes.txt"));
	ASSERT_STR_CONTAINS(err, "not an SQLite database");
	ASSERT(db_open(in_dir("notes.txt"), &ro, &db, err, sizeof(err)) !=
	    DB_OK);
	ASSERT_STR_CONTAINS(err, "not an SQLite database");
	ASSERT(same_bytes(in_dir("notes.txt"), text, strlen(text)));
	ASSERT_EQ(count_files("notes.txt"), 1);
	ASSERT_EQ(logged, 0);

	/* Random bytes, 8 KiB of them. */
	damaged_store(random_bytes);
	fp = fopen(in_dir("c.db"), "r");
	ASSERT(fp != NULL);
	ASSERT_EQ(fread(noise, 1, sizeof(noise), fp), sizeof(noise));
	fclose(fp);
	ASSERT(db_open(in_dir("c.db"), &o, &db, err, sizeof(err)) != DB_OK);
	ASSERT(same_bytes(in_dir("c.db"), noise, sizeof(noise)));
	ASSERT_EQ(count_files("c.db.corrupt-"), 0);

	/* A corrupt SQLite file opened read-only: reported, left alone. */
	damaged_store(garbage_page);
	ASSERT_EQ(db_open(in_dir("c.db"), &ro, &db, err, sizeof(err)),
	    DB_ERR_CORRUPT);
	ASSERT_EQ(count_files("c.db.corrupt-"), 0);
	ASSERT_EQ(logged, 0);

	/* Not a regular file: a directory. */
	ASSERT_EQ(mkdir(in_dir("d.db"), 0700), 0);
	ASSERT(db_open(in_dir("d.db"), &o, &db, err, sizeof(err)) != DB_OK);
	ASSERT_STR_CONTAINS(err, in_dir("d.db"));
	ASSERT_EQ(count_files("d.db"), 1);
}

/* Does file a hold the same bytes as file b? */
static int
same_file(const char *a, const char *b)
{
	char	cmd[512];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

/*
 * An SQLite database of another program (tables, and no pwtune schema)
 * is not a store either: refused, its bytes untouched (not even switched
 * to WAL), nothing moved aside.
 */
TEST(other_programs_databases_are_refused_untouched)
{
	static const char *const sql[] = {
		"CREATE TABLE t (a); INSERT INTO t VALUES (1);",
		"CREATE TABLE t (a); PRAGMA user_version = 7;",
		/* A table named as ours, at a version of ours. */
		"CREATE TABLE runs (a); PRAGMA user_version = 1;",
		"CREATE TABLE hosts (a); CREATE TABLE runs (a); CREATE TABLE "
		    "points (a); PRAGMA user_version = 3;",
		/* Marked by its program. */
		"PRAGMA application_id = 42; CREATE TABLE t (a);",
		/* In WAL mode: even a read leaves no -wal or -shm. */
		"PRAGMA journal_mode = WAL; CREATE TABLE t (a);",
	};
	struct db_open_opts	 ro = { 1, 0, 0, NULL, NULL };
	struct db		*db;
	char			 err[512], cmd[512], copy[128];
	size_t			 i;

	SQLITE_ONLY();
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		fresh_dir();
		snprintf(cmd, sizeof(cmd), "sqlite3 '%s/o.db' '%s' >/dev/null "
		    "&& cp '%s/o.db' '%s/copy'", dir, sql[i], dir, dir);
		ASSERT_EQ(system(cmd), 0);
		snprintf(copy, sizeof(copy), "%s", in_dir("copy"));
		ASSERT_EQ(db_open(in_dir("o.db"), NULL, &db, err, sizeof(err)),
		    DB_ERR_INVALID);
		ASSERT_STR_CONTAINS(err, "not a pwtune store");
		ASSERT(same_file(in_dir("o.db"), copy));
		ASSERT_EQ(count_files("o.db"), 1);
		ASSERT_EQ(db_open(in_dir("o.db"), &ro, &db, err, sizeof(err)),
		    DB_ERR_INVALID);
		ASSERT(same_file(in_dir("o.db"), copy));
		ASSERT_EQ(count_files("o.db"), 1);
	}
}

/*
 * Another program's database at path, in WAL mode, its table in its -wal
 * alone: a child makes it and exits without closing it (no checkpoint).
 */
static void
foreign_wal_only(const char *path)
{
	sqlite3	*c;
	pid_t	 pid;
	int	 status;

	if ((pid = fork()) == 0) {
		if (sqlite3_open(path, &c) != SQLITE_OK ||
		    sqlite3_exec(c, "PRAGMA journal_mode = WAL; CREATE TABLE t "
		    "(a); INSERT INTO t VALUES (1);", NULL, NULL, NULL) !=
		    SQLITE_OK)
			_exit(1);
		_exit(0);
	}
	ASSERT(pid > 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/*
 * A corrupt SQLite database that nothing marks as a store (another
 * program's) is refused and left as it is, never moved aside; a link to
 * nothing is refused, its target not made.
 */
TEST(unmarked_corrupt_files_and_dangling_links_are_left_alone)
{
	struct db	*db;
	char		 err[512], cmd[640], copy[128];

	SQLITE_ONLY();
	fresh_dir();
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s/o.db' 'CREATE TABLE t (a, b);"
	    " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
	    "WHERE i < 2000) INSERT INTO t SELECT i, hex(randomblob(40)) FROM "
	    "n;'", dir);
	ASSERT_EQ(system(cmd), 0);
	garbage_page(in_dir("o.db"));
	snprintf(cmd, sizeof(cmd), "cp '%s/o.db' '%s/copy'", dir, dir);
	ASSERT_EQ(system(cmd), 0);
	snprintf(copy, sizeof(copy), "%s", in_dir("copy"));
	ASSERT_EQ(db_open(in_dir("o.db"), NULL, &db, err, sizeof(err)),
	    DB_ERR_INVALID);
	ASSERT_STR_CONTAINS(err, "nothing in it says it is a pwtune store");
	ASSERT(same_file(in_dir("o.db"), copy));
	ASSERT_EQ(count_files("o.db"), 1);

	/*
	 * Another program's database in WAL mode, its tables in its -wal
	 * alone (it died before a checkpoint): refused, and its -wal not
	 * checkpointed into its file on close.
	 */
	foreign_wal_only(in_dir("w.db"));
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/wcopy'", in_dir("w.db"), dir);
	ASSERT_EQ(system(cmd), 0);
	snprintf(copy, sizeof(copy), "%s", in_dir("w.db-wal"));
	ASSERT_EQ(access(copy, F_OK), 0);
	ASSERT_EQ(db_open(in_dir("w.db"), NULL, &db, err, sizeof(err)),
	    DB_ERR_INVALID);
	ASSERT_STR_CONTAINS(err, "another program");
	snprintf(copy, sizeof(copy), "%s", in_dir("wcopy"));
	ASSERT(same_file(in_dir("w.db"), copy));
	snprintf(copy, sizeof(copy), "%s", in_dir("w.db-wal"));
	ASSERT_EQ(access(copy, F_OK), 0);

	snprintf(copy, sizeof(copy), "%s", in_dir("nothing.db"));
	ASSERT_EQ(symlink(copy, in_dir("l.db")), 0);
	ASSERT_EQ(db_open(in_dir("l.db"), NULL, &db, err, sizeof(err)),
	    DB_ERR_INVALID);
	ASSERT_STR_CONTAINS(err, "a symbolic link to nothing");
	ASSERT_EQ(count_files("nothing.db"), 0);
	/* A link to itself. */
	snprintf(copy, sizeof(copy), "%s", in_dir("self.db"));
	ASSERT_EQ(symlink(copy, copy), 0);
	ASSERT(db_open(copy, NULL, &db, err, sizeof(err)) != DB_OK);
	ASSERT_EQ(count_files("self.db"), 1);
}

/*
 * A store whose name has what ends or changes a URI ('?', '%', '#'), made
 * by an older pwtune (no mark in its header: looked at through a URI
 * first), opened for writing and read-only: its run is read back.
 */
TEST(stores_named_with_uri_characters)
{
	struct db_open_opts	 ro = { 1, 0, 0, NULL, NULL };
	struct report		 rep;
	struct db_run		*runs;
	struct db		*db;
	char			 err[512], path[160], cmd[400];
	int64_t			 id;
	size_t			 n;

	SQLITE_ONLY();
	fresh_dir();
	snprintf(path, sizeof(path), "%s", in_dir("a?b%41#c.db"));
	db = open_ok(path);
	make_report(&rep, "hostA", 4);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	db_close(db);
	/* As an older pwtune left it: no application id. */
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA application_id = 0' "
	    ">/dev/null", path);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_EQ(db_open(path, &ro, &db, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_runs_list(db, NULL, 10, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1);
	free(runs);
	db_close(db);
	db = open_ok(path);
	ASSERT_EQ(db_runs_list(db, NULL, 10, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1);
	free(runs);
	db_close(db);
	ASSERT_EQ(count_files("a?b"), 1);
	/* The writer marked it. */
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA application_id' | "
	    "grep -qx 1886876789", path);
	ASSERT_EQ(system(cmd), 0);
	/* A path that starts "//" is a path, not a host name. */
	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' 'PRAGMA application_id = 0' "
	    ">/dev/null", path);
	ASSERT_EQ(system(cmd), 0);
	snprintf(path, sizeof(path), "/%s", in_dir("a?b%41#c.db"));
	ASSERT_EQ(db_open(path, &ro, &db, err, sizeof(err)), DB_OK);
	db_close(db);
}

TEST(an_empty_file_is_a_new_store)
{
	struct db	*db;
	int		 fd;

	SQLITE_ONLY();
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

	db = open_ok(fresh_store("r.db"));
	make_report(&rep, "hostA", 2);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	db_close(db);
	ASSERT_EQ(db_open(store_at("r.db"), &o, &db, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_runs_list(db, NULL, 5, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1);
	free(runs);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)),
	    DB_ERR_READONLY);
	ASSERT_STR_CONTAINS(err, "read-only");
	db_close(db);
	if (pg_base != NULL) {
		/* A server that is not there: unavailable, and named. */
		ASSERT_EQ(db_open("postgresql://pwtune@127.0.0.1:1/none", NULL,
		    &db, err, sizeof(err)), DB_ERR_UNAVAILABLE);
		ASSERT_STR_CONTAINS(err, "cannot be reached");
		report_release(&rep);
		return;
	}
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

/* Which engine: PWTUNE_TEST_PG set means PostgreSQL. */
__attribute__((constructor)) static void
engine_choose(void)
{
	const char	*v = getenv("PWTUNE_TEST_PG");

	pg_base = v != NULL && *v != '\0' ? v : NULL;
	printf("store engine: %s\n", pg_base != NULL ? "postgresql" :
	    "sqlite");
}

TEST(host_groups)
{
	struct db	*db = open_ok(scratch_store("groups"));
	struct db_host	*hosts;
	struct report	 rep;
	char		 err[512], big[DB_GROUP_MAX + 8];
	int64_t		 id;
	size_t		 n, i;

	/* No row for the host yet: its first run makes one. */
	ASSERT_EQ(db_host_set_group(db, "hostA", "web", err, sizeof(err)),
	    DB_ERR_NOTFOUND);
	make_report(&rep, "hostA", 2);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	make_report(&rep, "hostB", 2);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_host_set_group(db, "hostA", "web", err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(db_host_set_group(db, "hostB", "batch", err, sizeof(err)),
	    DB_OK);
	/* A new run of the host keeps its group. */
	ASSERT_EQ(db_run_create(db, &rep, 1, DB_TRIGGER_API, &id, err,
	    sizeof(err)), DB_OK);
	report_release(&rep);
	memset(big, 'g', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ASSERT_EQ(db_host_set_group(db, "hostA", big, err, sizeof(err)),
	    DB_ERR_INVALID);
	ASSERT_EQ(db_hosts_list(db, NULL, &hosts, &n, err, sizeof(err)), DB_OK);
	ASSERT_EQ(n, 2);
	for (i = 0; i < n; i++) {
		ASSERT(hosts[i].last_run > 0);
		ASSERT_STR_EQ(hosts[i].group, strcmp(hosts[i].id, "hostA") ==
		    0 ? "web" : "batch");
		ASSERT_STR_CONTAINS(hosts[i].facts, "Test CPU");
		ASSERT_EQ(strlen(hosts[i].last_run_finished), 20);
	}
	db_hosts_free(hosts, n);
	/* Back to no group. */
	ASSERT_EQ(db_host_set_group(db, "hostB", "", err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_hosts_list(db, "hostB", &hosts, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1);
	ASSERT_STR_EQ(hosts[0].group, "");
	db_hosts_free(hosts, n);
	db_close(db);
}

TEST(observations_per_host_and_stack)
{
	struct db		*db = open_ok(scratch_store("observations"));
	struct db_observation	 o, *list;
	struct report		 rep;
	double			 samples[DB_OBS_SAMPLES_MAX + 1];
	char			 err[512];
	int64_t			 id;
	size_t			 n, i;

	for (i = 0; i < DB_OBS_SAMPLES_MAX + 1; i++)
		samples[i] = 100.0 + (double)i / 8;
	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	memset(&o, 0, sizeof(o));
	snprintf(o.host_id, sizeof(o.host_id), "hostA");
	snprintf(o.stack, sizeof(o.stack), "php-8.2-libargon2");
	snprintf(o.variant, sizeof(o.variant), "argon2id");
	o.m_kib = 65536;
	o.t = 3;
	o.p = 1;
	o.k = 1;
	o.median_ms = 101.5;
	o.p95_ms = 120.25;
	o.predicted_ms = 90.5;
	o.model_run = id;
	ASSERT_EQ(db_observation_add(db, &o, samples, 9, err, sizeof(err)),
	    DB_OK);
	ASSERT(o.id > 0);
	snprintf(o.stack, sizeof(o.stack), "go-1.19-x-crypto");
	o.predicted_ms = -1;		/* no model then */
	o.model_run = 0;
	ASSERT_EQ(db_observation_add(db, &o, samples, 3, err, sizeof(err)),
	    DB_OK);
	/* Bounds: no samples, too many, an unknown host. */
	ASSERT_EQ(db_observation_add(db, &o, samples, 0, err, sizeof(err)),
	    DB_ERR_INVALID);
	ASSERT_EQ(db_observation_add(db, &o, samples, DB_OBS_SAMPLES_MAX + 1,
	    err, sizeof(err)), DB_ERR_INVALID);
	ASSERT_STR_CONTAINS(err, "samples");
	snprintf(o.host_id, sizeof(o.host_id), "nohost");
	ASSERT_EQ(db_observation_add(db, &o, samples, 3, err, sizeof(err)),
	    DB_ERR_INVALID);

	ASSERT_EQ(db_observations_list(db, "hostA", NULL, 10, &list, &n, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(n, 2);
	ASSERT_STR_EQ(list[0].stack, "go-1.19-x-crypto");	/* newest */
	ASSERT(list[0].predicted_ms < 0);
	ASSERT_EQ(list[0].model_run, 0);
	ASSERT_EQ(list[1].nsamples, 9);
	ASSERT(list[1].median_ms == 101.5);
	ASSERT(list[1].p95_ms == 120.25);
	ASSERT(list[1].predicted_ms == 90.5);
	ASSERT_EQ(list[1].model_run, id);
	ASSERT_EQ(list[1].m_kib, 65536);
	ASSERT_EQ(list[1].t, 3);
	ASSERT_STR_EQ(list[1].variant, "argon2id");
	ASSERT_EQ(strlen(list[1].created), 20);
	free(list);
	ASSERT_EQ(db_observations_list(db, NULL, "php-8.2-libargon2", 10,
	    &list, &n, err, sizeof(err)), DB_OK);
	ASSERT_EQ(n, 1);
	free(list);
	ASSERT_EQ(db_observations_list(db, "hostB", NULL, 10, &list, &n, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(n, 0);
	free(list);
	db_close(db);
}

/* An observation of host at 64 MiB, t = p = k = 1, ms, no model. */
static void
obs_fixture(struct db_observation *o, const char *host, double ms)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->host_id, sizeof(o->host_id), "%s", host);
	snprintf(o->variant, sizeof(o->variant), "argon2id");
	o->m_kib = 65536;
	o->t = o->p = o->k = 1;
	o->median_ms = o->p95_ms = ms;
	o->predicted_ms = -1;
}

/*
 * P5: services' observations under at most DB_OBS_STACKS_MAX names a
 * host; past them a new name is DB_ERR_LIMIT and nothing is stored; a
 * name posted before, a catalogue name, the daemon's own checks and
 * another host are still taken.
 */
TEST(observation_names_are_bounded_per_host)
{
	struct db		*db = open_ok(scratch_store("obsnames"));
	struct db_observation	 o, *list;
	struct report		 rep;
	double			 samples[1] = { 10 };
	char			 err[512];
	int64_t			 id;
	size_t			 n, i;

	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	make_report(&rep, "hostB", 1);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	obs_fixture(&o, "hostA", 10);
	/* Names of the catalogue first: they do not count. */
	snprintf(o.stack, sizeof(o.stack), "python-pynacl");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	for (i = 0; i < DB_OBS_STACKS_MAX; i++) {
		snprintf(o.stack, sizeof(o.stack), "svc-%zu", i);
		ASSERT_EQ(db_observation_add(db, &o, samples, 1, err,
		    sizeof(err)), DB_OK);
	}
	snprintf(o.stack, sizeof(o.stack), "one-too-many");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_ERR_LIMIT);
	ASSERT_STR_CONTAINS(err, "64 stack names besides the catalogue's");
	ASSERT_EQ(db_observations_list(db, "hostA", "one-too-many", 10, &list,
	    &n, err, sizeof(err)), DB_OK);
	ASSERT_EQ(n, 0);
	free(list);
	snprintf(o.stack, sizeof(o.stack), "svc-0");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	snprintf(o.stack, sizeof(o.stack), "php");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	snprintf(o.stack, sizeof(o.stack), "checked-name");
	snprintf(o.source, sizeof(o.source), "check");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	o.source[0] = '\0';
	snprintf(o.host_id, sizeof(o.host_id), "hostB");
	snprintf(o.stack, sizeof(o.stack), "one-too-many");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	db_close(db);
}

/*
 * Forgetting a stack takes what services posted of it on that host, and
 * nothing else: not a probe's point of the same name, not another host's,
 * not another stack's.
 */
TEST(observations_forgotten_per_host_and_stack)
{
	struct db		*db = open_ok(scratch_store("obsforget"));
	struct db_observation	 o, *list;
	struct report		 rep;
	double			 samples[1] = { 10 };
	char			 err[512];
	int64_t			 id, deleted = -1;
	size_t			 n;

	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	make_report(&rep, "hostB", 1);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	obs_fixture(&o, "hostA", 10);
	snprintf(o.stack, sizeof(o.stack), "svc");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	snprintf(o.source, sizeof(o.source), "probe");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	o.source[0] = '\0';
	snprintf(o.stack, sizeof(o.stack), "other");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);
	snprintf(o.host_id, sizeof(o.host_id), "hostB");
	snprintf(o.stack, sizeof(o.stack), "svc");
	ASSERT_EQ(db_observation_add(db, &o, samples, 1, err, sizeof(err)),
	    DB_OK);

	ASSERT_EQ(db_observations_forget(db, "hostA", "svc", &deleted, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(deleted, 2);
	ASSERT_EQ(db_observations_list(db, "hostA", "svc", 10, &list, &n, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(n, 1);
	ASSERT_STR_EQ(list[0].source, "probe");
	free(list);
	ASSERT_EQ(db_observations_list(db, "hostA", "other", 10, &list, &n,
	    err, sizeof(err)), DB_OK);
	ASSERT_EQ(n, 1);
	free(list);
	ASSERT_EQ(db_observations_list(db, "hostB", "svc", 10, &list, &n, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(n, 1);
	free(list);
	/* Nothing left to forget: 0, not an error. */
	ASSERT_EQ(db_observations_forget(db, "hostA", "svc", &deleted, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(deleted, 0);
	db_close(db);
}

/*
 * D8b: at most DB_OBS_KEEP observations per host and stack, the newest;
 * the older ones go in the transaction that adds one.
 */
TEST(observations_are_pruned_per_host_and_stack)
{
	struct db		*db = open_ok(scratch_store("obsprune"));
	struct db_observation	 o, *list;
	struct report		 rep;
	double			 samples[3] = { 10, 11, 12 };
	char			 err[512];
	int64_t			 id, ids[DB_OBS_KEEP + 5];
	size_t			 n, i;

	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	obs_fixture(&o, "hostA", 11);
	/* Another stack of the host, written first: it keeps its 3. */
	snprintf(o.stack, sizeof(o.stack), "other");
	for (i = 0; i < 3; i++)
		ASSERT_EQ(db_observation_add(db, &o, samples, 3, err,
		    sizeof(err)), DB_OK);
	snprintf(o.stack, sizeof(o.stack), "php");
	for (i = 0; i < DB_OBS_KEEP + 5; i++) {
		o.median_ms = (double)i;
		ASSERT_EQ(db_observation_add(db, &o, samples, 3, err,
		    sizeof(err)), DB_OK);
		ids[i] = o.id;
	}
	ASSERT_EQ(db_observations_list(db, "hostA", "php", DB_RUNS_LIST_MAX,
	    &list, &n, err, sizeof(err)), DB_OK);
	ASSERT_EQ(n, DB_OBS_KEEP);
	ASSERT_EQ(list[0].id, ids[DB_OBS_KEEP + 4]);	/* the newest */
	ASSERT_EQ(list[n - 1].id, ids[5]);		/* the oldest kept */
	ASSERT(list[n - 1].median_ms == 5);
	free(list);
	ASSERT_EQ(db_observations_list(db, "hostA", "other", DB_RUNS_LIST_MAX,
	    &list, &n, err, sizeof(err)), DB_OK);
	ASSERT_EQ(n, 3);
	free(list);
	db_close(db);
}

/* A point of stack (from source, of run id): c x its curve + d ms. */
static void
probe_obs(struct db *db, const struct model *m, int64_t id, const char *host,
    const char *stack, const char *source, uint32_t m_kib, double c,
    double d)
{
	struct db_observation	 o;
	struct model_prediction	 pr;
	double			 samples[5];
	char			 err[512];
	size_t			 i;

	/* A name the catalogue does not know stands on libsodium. */
	model_predict(m, model_curve_find(m, stack_find(stack) != NULL ?
	    KDF_BACKEND_LIBARGON2 : KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID,
	    1), m_kib, 1, 1, 50, &pr);
	memset(&o, 0, sizeof(o));
	snprintf(o.host_id, sizeof(o.host_id), "%s", host);
	snprintf(o.stack, sizeof(o.stack), "%s", stack);
	snprintf(o.source, sizeof(o.source), "%s", source);
	snprintf(o.variant, sizeof(o.variant), "argon2id");
	o.m_kib = m_kib;
	o.t = o.p = o.k = 1;
	o.median_ms = o.p95_ms = c * pr.p50_ms + d;
	o.predicted_ms = pr.p50_ms;
	o.model_run = strcmp(source, "probe") == 0 ? id : 0;
	for (i = 0; i < 5; i++)
		samples[i] = o.median_ms;
	ASSERT_EQ(db_observation_add(db, &o, samples, 5, err, sizeof(err)),
	    DB_OK);
}

/*
 * A run's probe points (source probe) and what each probe came to, and
 * services' observations, rebuilt into the model's stacks: the probed
 * stack's correction, the not-probed one's reason, a stack only services
 * know once they posted FLEET_STACK_MIN_OBS.
 */
TEST(model_stacks_from_probe_points_and_observations)
{
	struct db		*db = open_ok(scratch_store("stacks"));
	const struct model_stack *st;
	struct db_observation	*list;
	static struct model	 m;
	struct report		 rep;
	char			 err[512];
	int64_t			 id;
	size_t			 n, i;

	synthetic_host(&rep, 1, 1, 8ULL << 30);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	ASSERT_EQ(model_fit(&rep, &m, err, sizeof(err)), 0);
	m.run_id = id;
	for (i = 0; i < 4; i++)
		probe_obs(db, &m, id, rep.host.host_id, "php", "probe",
		    (16384u << i), 1.3, 4);
	ASSERT_EQ(db_probe_put(db, id, "php", "ok", "", "PHP 8.2.36",
	    "libargon2", "/usr/lib/libargon2.so.1", 4, 2.5, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(db_probe_put(db, id, "python-argon2-cffi", "not installed",
	    "not installed: python3 not found", "", "", NULL, 0, 0, err,
	    sizeof(err)), DB_OK);
	/* Stored twice: the second replaces the first. */
	ASSERT_EQ(db_probe_put(db, id, "go", "ok", "", "", "", "/x.so", 0, 0,
	    err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_probe_put(db, id, "go", "timeout", "timed out after 60 s",
	    "go1.19", "", "", 0, 60, err, sizeof(err)), DB_OK);
	for (i = 0; i < FLEET_STACK_MIN_OBS; i++)
		probe_obs(db, &m, id, rep.host.host_id, "ruby-argon2",
		    "service", 65536, 1.5, 0);
	for (i = 0; i < 2; i++)
		probe_obs(db, &m, id, rep.host.host_id, "perl", "service",
		    65536, 2, 0);

	ASSERT_EQ(db_observations_list(db, rep.host.host_id, "php", 10,
	    &list, &n, err, sizeof(err)), DB_OK);
	ASSERT_EQ(n, 4);
	ASSERT_STR_EQ(list[0].source, "probe");
	ASSERT_EQ(list[0].model_run, id);
	free(list);

	m.nstacks = 0;
	ASSERT_EQ(db_model_stacks(db, rep.host.host_id, &m, err, sizeof(err)),
	    DB_OK);
	ASSERT((st = model_stack_find(&m, "php")) != NULL);
	ASSERT_EQ(st->how, MODEL_STACK_PROBED);
	ASSERT_EQ(st->nprobe, 4);
	ASSERT(st->c > 1.25 && st->c < 1.35);
	ASSERT(st->d > 2 && st->d < 6);
	ASSERT_STR_EQ(st->runtime, "PHP 8.2.36");
	ASSERT_STR_EQ(st->why, "");
	/* It shared the curve's library: its fit is kept, not applied. */
	ASSERT_STR_EQ(st->shares, "/usr/lib/libargon2.so.1");
	ASSERT(stack_correction(&m, "php") == NULL);
	ASSERT((st = model_stack_find(&m, "python-argon2-cffi")) != NULL);
	ASSERT_EQ(st->how, MODEL_STACK_LIBRARY);
	ASSERT_STR_EQ(st->why, "not installed: python3 not found");
	ASSERT((st = model_stack_find(&m, "go")) != NULL);
	ASSERT_STR_EQ(st->why, "timed out after 60 s");
	ASSERT_STR_EQ(st->shares, "");
	ASSERT((st = model_stack_find(&m, "libsodium")) != NULL);
	ASSERT_STR_EQ(st->why, "not probed in this run");
	ASSERT((st = model_stack_find(&m, "ruby-argon2")) != NULL);
	ASSERT_EQ(st->how, MODEL_STACK_OBSERVED);
	ASSERT(st->c > 1.45 && st->c < 1.55);
	ASSERT(model_stack_find(&m, "perl") == NULL);	/* 2 < 5 */
	/* Probe points of another run do not count. */
	m.run_id = id + 1000;
	ASSERT_EQ(db_model_stack(db, rep.host.host_id, &m, "php", err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(model_stack_find(&m, "php")->how, MODEL_STACK_LIBRARY);
	report_release(&rep);
	db_close(db);
}

/*
 * A probe that hashed through the curve's own library (probes.shares):
 * its points stand neither for the stack's correction nor for its fleet
 * ratios; once services posted FLEET_STACK_MIN_OBS of it, theirs alone
 * correct it. A probe that shared nothing keeps its points in both.
 */
TEST(a_probe_on_the_curves_library_gives_way_to_services)
{
	struct db		*db = open_ok(scratch_store("shares"));
	const struct model_stack *st;
	static struct model	 m;
	struct report		 rep;
	double			 ratios[64];
	char			 err[512];
	int64_t			 id;
	size_t			 i, nr;

	synthetic_host(&rep, 1, 1, 8ULL << 30);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	ASSERT_EQ(model_fit(&rep, &m, err, sizeof(err)), 0);
	m.run_id = id;
	for (i = 0; i < 4; i++) {
		probe_obs(db, &m, id, rep.host.host_id, "php", "probe",
		    (16384u << i), 1.3, 0);
		probe_obs(db, &m, id, rep.host.host_id, "go", "probe",
		    (16384u << i), 0.7, 0);
	}
	/* Put twice: the second's shares replace the first's. */
	ASSERT_EQ(db_probe_put(db, id, "php", "ok", "", "PHP 8.2.36",
	    "libargon2", "/x.so", 4, 2.5, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_probe_put(db, id, "php", "ok", "", "PHP 8.2.36",
	    "libargon2", "/usr/lib/libargon2.so.1", 4, 2.5, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(db_probe_put(db, id, "go", "ok", "", "go1.19", "", "", 4,
	    2.5, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_model_stacks(db, rep.host.host_id, &m, err, sizeof(err)),
	    DB_OK);
	ASSERT((st = model_stack_find(&m, "php")) != NULL);
	ASSERT_STR_EQ(st->shares, "/usr/lib/libargon2.so.1");
	ASSERT(stack_correction(&m, "php") == NULL);
	ASSERT(stack_correction(&m, "go") != NULL);
	ASSERT_EQ(db_stack_ratios(db, rep.host.host_id, "php", &m, ratios, 64,
	    &nr, err, sizeof(err)), DB_OK);
	ASSERT_UEQ(nr, 0);
	ASSERT_EQ(db_stack_ratios(db, rep.host.host_id, "go", &m, ratios, 64,
	    &nr, err, sizeof(err)), DB_OK);
	ASSERT_UEQ(nr, 4);

	/* Services' posts at 1.1 x: under FLEET_STACK_MIN_OBS, no change. */
	for (i = 0; i + 1 < FLEET_STACK_MIN_OBS; i++)
		probe_obs(db, &m, id, rep.host.host_id, "php", "service",
		    65536, 1.1, 0);
	ASSERT_EQ(db_model_stack(db, rep.host.host_id, &m, "php", err,
	    sizeof(err)), DB_OK);
	ASSERT(stack_correction(&m, "php") == NULL);
	probe_obs(db, &m, id, rep.host.host_id, "php", "service", 131072,
	    1.1, 0);
	ASSERT_EQ(db_model_stack(db, rep.host.host_id, &m, "php", err,
	    sizeof(err)), DB_OK);
	ASSERT((st = stack_correction(&m, "php")) != NULL);
	/* Theirs alone: 1.1, not pulled toward the probe's 1.3. */
	ASSERT_UEQ(st->nprobe, 0);
	ASSERT_UEQ(st->nobs, FLEET_STACK_MIN_OBS);
	if (!(st->c > 1.05 && st->c < 1.15))
		TEST_FAIL("php's correction %.3f with services at 1.1 and its "
		    "sharing probe at 1.3", st->c);
	ASSERT_EQ(db_stack_ratios(db, rep.host.host_id, "php", &m, ratios, 64,
	    &nr, err, sizeof(err)), DB_OK);
	ASSERT_UEQ(nr, FLEET_STACK_MIN_OBS);
	report_release(&rep);
	db_close(db);
}

/* A check of run id: libsodium's time at m_kib, c x its curve. */
static void
check_obs(struct db *db, const struct model *m, int64_t id, const char *host,
    uint32_t m_kib, double c)
{
	struct db_observation	 o;
	struct model_prediction	 pr;
	double			 samples[10];
	char			 err[512];
	size_t			 i;

	model_predict(m, model_curve_find(m, KDF_BACKEND_LIBSODIUM,
	    KDF_ALG_ARGON2ID, 1), m_kib, 1, 1, 50, &pr);
	memset(&o, 0, sizeof(o));
	snprintf(o.host_id, sizeof(o.host_id), "%s", host);
	snprintf(o.stack, sizeof(o.stack), "libsodium");
	snprintf(o.source, sizeof(o.source), DB_SOURCE_CHECK);
	snprintf(o.variant, sizeof(o.variant), "argon2id");
	o.m_kib = m_kib;
	o.t = o.p = o.k = 1;
	o.median_ms = o.p95_ms = c * pr.p50_ms;
	o.predicted_ms = pr.p50_ms;
	o.model_run = id;
	for (i = 0; i < 10; i++)
		samples[i] = o.median_ms;
	ASSERT_EQ(db_observation_add(db, &o, samples, 10, err, sizeof(err)),
	    DB_OK);
}

/*
 * The checks taken under a run, into its model as the daemon takes them
 * (db_model_checks, shared by the daemon's refits and recommend --db):
 * the curve's times scaled where they were measured; another run's
 * checks are not its.
 */
TEST(model_checks_of_a_run)
{
	struct db		*db = open_ok(scratch_store("checks"));
	const struct model_curve *c;
	static struct model	 m;
	struct report		 rep;
	char			 err[512];
	int64_t			 id;
	size_t			 used = 99;

	synthetic_host(&rep, 1, 1, 8ULL << 30);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	ASSERT_EQ(model_fit(&rep, &m, err, sizeof(err)), 0);
	m.run_id = id;
	/* None yet: nothing taken, the model as it was. */
	ASSERT_EQ(db_model_checks(db, rep.host.host_id, id,
	    DB_CHECKS_MAX_AGE_S, DB_CHECKS_MAX, &m, &used, err, sizeof(err)),
	    DB_OK);
	ASSERT_UEQ(used, 0);
	check_obs(db, &m, id, rep.host.host_id, 65536, 1.2);
	check_obs(db, &m, id, rep.host.host_id, 131072, 1.2);
	check_obs(db, &m, id, rep.host.host_id, 262144, 1.2);
	check_obs(db, &m, id + 1000, rep.host.host_id, 524288, 3.0);
	ASSERT_EQ(db_model_checks(db, rep.host.host_id, id,
	    DB_CHECKS_MAX_AGE_S, DB_CHECKS_MAX, &m, &used, err, sizeof(err)),
	    DB_OK);
	ASSERT_UEQ(used, 3);
	c = model_curve_find(&m, KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID, 1);
	ASSERT(c != NULL && c->chk_n > 0);
	ASSERT(model_check_factor(c, 131072) > 1.1 &&
	    model_check_factor(c, 131072) < 1.3);
	ASSERT(c->chk_mhi <= 262144);	/* not the other run's 512 MiB */
	report_release(&rep);
	db_close(db);
}

/* A version-3 store's observations are services' after the migration. */
TEST(migration_to_4_keeps_observations_as_services)
{
	struct db		*db;
	struct db_observation	 o, *list;
	struct report		 rep;
	double			 samples[3] = { 10, 11, 12 };
	char			 err[512];
	int64_t			 id;
	size_t			 n;

	ASSERT_EQ(db_open_version(fresh_store("v3.db"), 3, &db, err,
	    sizeof(err)), DB_OK);
	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	report_release(&rep);
	memset(&o, 0, sizeof(o));
	snprintf(o.host_id, sizeof(o.host_id), "hostA");
	snprintf(o.stack, sizeof(o.stack), "php");
	snprintf(o.variant, sizeof(o.variant), "argon2id");
	o.m_kib = 65536;
	o.t = o.p = o.k = 1;
	o.median_ms = o.p95_ms = 11;
	o.predicted_ms = -1;
	ASSERT_EQ(db_observation_add(db, &o, samples, 3, err, sizeof(err)),
	    DB_ERR_INTERNAL);	/* no source column at version 3 */
	db_close(db);
	db = open_ok(store_at("v3.db"));
	ASSERT_EQ(db_schema_version(db), DB_SCHEMA_VERSION);
	ASSERT_EQ(db_observation_add(db, &o, samples, 3, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(db_observations_list(db, "hostA", NULL, 10, &list, &n, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(n, 1);
	ASSERT_STR_EQ(list[0].source, "service");
	free(list);
	db_close(db);
}

/* A version-4 store's probes shared no library after the migration. */
TEST(migration_to_5_leaves_old_probes_sharing_nothing)
{
	static struct model	 m;
	const struct model_stack *st;
	struct db		*db;
	struct report		 rep;
	char			 err[512], cmd[1024], sql[512];
	int64_t			 id;

	ASSERT_EQ(db_open_version(fresh_store("v4.db"), 4, &db, err,
	    sizeof(err)), DB_OK);
	synthetic_host(&rep, 1, 1, 8ULL << 30);
	ASSERT_EQ(db_import_report(db, &rep, &id, err, sizeof(err)), DB_OK);
	ASSERT_EQ(model_fit(&rep, &m, err, sizeof(err)), 0);
	m.run_id = id;
	probe_obs(db, &m, id, rep.host.host_id, "php", "probe", 65536, 1.3,
	    4);
	ASSERT_EQ(db_probe_put(db, id, "php", "ok", "", "PHP 8.2.36",
	    "libargon2", "/usr/lib/libargon2.so.1", 1, 1, err, sizeof(err)),
	    DB_ERR_INTERNAL);	/* no shares column at version 4 */
	db_close(db);
	/* A probe's row as version 4 wrote it. */
	snprintf(sql, sizeof(sql), "INSERT INTO probes (run_id, stack, status,"
	    " why, runtime, library, points, seconds, created) VALUES (%lld,"
	    " 'php', 'ok', '', 'PHP 8.2.36', 'libargon2', 1, 1,"
	    " '2026-12-05T00:00:00Z')", (long long)id);
	if (pg_base != NULL)
		pg_sql(strrchr(store_at("v4.db"), '/') + 1, sql);
	else {
		snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \"%s\"",
		    store_at("v4.db"), sql);
		ASSERT(system(cmd) == 0);
	}
	db = open_ok(store_at("v4.db"));
	ASSERT_EQ(db_schema_version(db), 5);
	m.nstacks = 0;
	ASSERT_EQ(db_model_stack(db, rep.host.host_id, &m, "php", err,
	    sizeof(err)), DB_OK);
	ASSERT((st = model_stack_find(&m, "php")) != NULL);
	ASSERT_EQ(st->how, MODEL_STACK_PROBED);
	ASSERT_STR_EQ(st->runtime, "PHP 8.2.36");	/* its row was read */
	ASSERT_STR_EQ(st->shares, "");
	ASSERT(stack_correction(&m, "php") == st);
	ASSERT_EQ(db_probe_put(db, id, "php", "ok", "", "PHP 8.2.36",
	    "libargon2", "/usr/lib/libargon2.so.1", 1, 1, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(db_model_stack(db, rep.host.host_id, &m, "php", err,
	    sizeof(err)), DB_OK);
	ASSERT_STR_EQ(model_stack_find(&m, "php")->shares,
	    "/usr/lib/libargon2.so.1");
	report_release(&rep);
	db_close(db);
}

/*
 * Wait for the n children in pids (a pid under 0: a fork that failed);
 * how many failed, each said on stderr with why.
 */
static int
wait_children(const pid_t *pids, int n)
{
	int	w, status, failed = 0;

	for (w = 0; w < n; w++) {
		if (pids[w] < 0) {
			fprintf(stderr, "child %d: fork failed\n", w);
			failed++;
			continue;
		}
		if (waitpid(pids[w], &status, 0) != pids[w]) {
			fprintf(stderr, "child %d: waitpid failed\n", w);
			failed++;
			continue;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		failed++;
		if (WIFSIGNALED(status))
			fprintf(stderr, "child %d: killed by signal %d\n", w,
			    WTERMSIG(status));
		else
			fprintf(stderr, "child %d: exit status %d\n", w,
			    WEXITSTATUS(status));
	}
	return failed;
}

#define WRITERS		4
#define WRITER_POINTS	25

/*
 * Writers in separate processes at once: each adds its share of the points
 * of one shared run and makes runs of its own. Nothing is lost: the run
 * counts every point, and every run has its own id.
 */
TEST(concurrent_writers_lose_nothing)
{
	const char	*loc = fresh_store("w.db");
	struct db	*db = open_ok(loc);
	struct report	 rep, back;
	struct db_run	 run, *runs;
	char		 err[512];
	int64_t		 shared;
	pid_t		 pids[WRITERS];
	size_t		 n, i;
	int		 w;

	make_report(&rep, "hostA", WRITERS * WRITER_POINTS);
	ASSERT_EQ(db_run_create(db, &rep, WRITERS * WRITER_POINTS,
	    DB_TRIGGER_CLI, &shared, err, sizeof(err)), DB_OK);
	db_close(db);
	for (w = 0; w < WRITERS; w++) {
		if ((pids[w] = fork()) == 0) {
			struct db	*c;
			int64_t		 mine;
			size_t		 j;

			if (db_open(loc, NULL, &c, err, sizeof(err)) !=
			    DB_OK) {
				fprintf(stderr, "writer %d: open: %s\n", w,
				    err);
				_exit(10);
			}
			for (j = 0; j < WRITER_POINTS; j++) {
				size_t seq = j * WRITERS + (size_t)w;

				if (db_run_add_point(c, shared, seq,
				    &rep.results[seq], err, sizeof(err)) !=
				    DB_OK) {
					fprintf(stderr, "writer %d: %s\n", w,
					    err);
					_exit(11);
				}
				if (j % 5 == 0 && db_run_create(c, &rep, 1,
				    DB_TRIGGER_CLI, &mine, err, sizeof(err)) !=
				    DB_OK) {
					fprintf(stderr, "writer %d: %s\n", w,
					    err);
					_exit(12);
				}
			}
			db_close(c);
			_exit(0);
		}
	}
	ASSERT_EQ(wait_children(pids, WRITERS), 0);
	db = open_ok(loc);
	ASSERT_EQ(db_run_get(db, shared, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.points_done, WRITERS * WRITER_POINTS);
	ASSERT_EQ(db_run_report(db, shared, &back, err, sizeof(err)), DB_OK);
	ASSERT_EQ(back.n, WRITERS * WRITER_POINTS);
	for (i = 0; i < back.n; i++)
		ASSERT_EQ(back.results[i].pt.kp.m_kib,
		    rep.results[i].pt.kp.m_kib);
	report_release(&back);
	ASSERT_EQ(db_runs_list(db, "hostA", 100, &runs, &n, err, sizeof(err)),
	    DB_OK);
	ASSERT_EQ(n, 1 + WRITERS * (WRITER_POINTS / 5));
	for (i = 1; i < n; i++)
		ASSERT(runs[i].id < runs[i - 1].id);
	free(runs);
	ASSERT_EQ(db_check(db, err, sizeof(err), err, sizeof(err)), DB_OK);
	ASSERT_STR_EQ(err, "ok");
	report_release(&rep);
	db_close(db);
}

#define BUSY_WRITERS	3
#define BUSY_OPENERS	2
#define BUSY_POINTS	100
#define BUSY_OPENS	100

/*
 * Opening a store looks for runs whose process is gone. Here three
 * writers add the points of one running run and make runs of their own
 * while two other processes open the store again and again: no open and
 * no write fails, and the live run is left running. (Opens that locked
 * every live run, in the order a scan met them, while the writers moved
 * the shared run's row, took two rows in opposite orders: on PostgreSQL
 * this test failed one run in five with "deadlock detected". SQLite
 * never locked rows so; it runs the same test.)
 */
TEST(opening_beside_writers_never_fails)
{
	const char	*loc = fresh_store("busy.db");
	struct db	*db = open_ok(loc);
	struct report	 rep;
	struct db_run	 run;
	char		 err[512];
	int64_t		 shared;
	pid_t		 pids[BUSY_WRITERS + BUSY_OPENERS];
	int		 w;

	make_report(&rep, "hostA", BUSY_WRITERS * BUSY_POINTS);
	ASSERT_EQ(db_run_create(db, &rep, BUSY_WRITERS * BUSY_POINTS,
	    DB_TRIGGER_CLI, &shared, err, sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_set_status(db, shared, DB_RUN_RUNNING, NULL, err,
	    sizeof(err)), DB_OK);
	db_close(db);
	for (w = 0; w < BUSY_WRITERS + BUSY_OPENERS; w++) {
		struct db	*c;
		int64_t		 mine;
		size_t		 j;

		if ((pids[w] = fork()) != 0)
			continue;
		if (w >= BUSY_WRITERS) {
			for (j = 0; j < BUSY_OPENS; j++) {
				if (db_open(loc, NULL, &c, err, sizeof(err)) !=
				    DB_OK) {
					fprintf(stderr, "opener %d, open %zu: "
					    "%s\n", w, j, err);
					_exit(10);
				}
				db_close(c);
			}
			_exit(0);
		}
		if (db_open(loc, NULL, &c, err, sizeof(err)) != DB_OK) {
			fprintf(stderr, "writer %d: open: %s\n", w, err);
			_exit(10);
		}
		for (j = 0; j < BUSY_POINTS; j++) {
			size_t seq = j * BUSY_WRITERS + (size_t)w;

			if (db_run_add_point(c, shared, seq, &rep.results[seq],
			    err, sizeof(err)) != DB_OK ||
			    (j % 20 == 0 && db_run_create(c, &rep, 1,
			    DB_TRIGGER_CLI, &mine, err, sizeof(err)) !=
			    DB_OK)) {
				fprintf(stderr, "writer %d: %s\n", w, err);
				_exit(11);
			}
		}
		db_close(c);
		_exit(0);
	}
	ASSERT_EQ(wait_children(pids, BUSY_WRITERS + BUSY_OPENERS), 0);
	db = open_ok(loc);
	ASSERT_EQ(db_run_get(db, shared, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.points_done, BUSY_WRITERS * BUSY_POINTS);
	ASSERT_EQ(run.status, DB_RUN_RUNNING);	/* its owner is alive */
	report_release(&rep);
	db_close(db);
}

/* A fleet's runs of other machines are not this process's to recover. */
TEST(runs_of_other_machines_are_left_alone)
{
	struct db	*db;
	struct report	 rep;
	struct db_run	 run;
	char		 err[512], sql[256];
	int64_t		 id;

	if (pg_base == NULL) {
		printf("       (a test of the shared PostgreSQL store)\n");
		return;
	}
	db = open_ok(fresh_store("fleet.db"));
	make_report(&rep, "hostA", 1);
	ASSERT_EQ(db_run_create(db, &rep, 1, DB_TRIGGER_CLI, &id, err,
	    sizeof(err)), DB_OK);
	ASSERT_EQ(db_run_set_status(db, id, DB_RUN_RUNNING, NULL, err,
	    sizeof(err)), DB_OK);
	db_close(db);
	/* Owned by pid 1 of another machine: alive or not, not ours. */
	snprintf(sql, sizeof(sql), "UPDATE runs SET owner ="
	    " '1:1@another-boot/another-host' WHERE id = %lld",
	    (long long)id);
	pg_sql("t_fleet_db", sql);
	db = open_ok(store_at("fleet.db"));
	ASSERT_EQ(db_run_get(db, id, &run, err, sizeof(err)), DB_OK);
	ASSERT_EQ(run.status, DB_RUN_RUNNING);
	report_release(&rep);
	db_close(db);
}

/* Which hosts may answer for a group: a run, on today's facts, not old. */
TEST(fresh_hosts_for_fleet_answers)
{
	struct db_host	h;
	char		why[256];
	time_t		now = 1796083200;	/* 2026-12-01T00:00:00Z */

	memset(&h, 0, sizeof(h));
	snprintf(h.fingerprint, sizeof(h.fingerprint), "fp");
	ASSERT(!db_host_fresh(&h, now, 0, why, sizeof(why)));
	ASSERT_STR_EQ(why, "no finished run");
	h.last_run = 7;
	snprintf(h.last_run_fingerprint, sizeof(h.last_run_fingerprint),
	    "other");
	snprintf(h.last_run_finished, sizeof(h.last_run_finished),
	    "2026-11-30T00:00:00Z");
	ASSERT(!db_host_fresh(&h, now, 0, why, sizeof(why)));
	ASSERT_STR_CONTAINS(why, "stale: the host changed");
	snprintf(h.last_run_fingerprint, sizeof(h.last_run_fingerprint), "fp");
	ASSERT(db_host_fresh(&h, now, 86400, why, sizeof(why)));
	ASSERT_STR_EQ(why, "");
	/* A second past a limit of one day, then two days old. */
	ASSERT(!db_host_fresh(&h, now + 1, 86400, why, sizeof(why)));
	ASSERT_STR_CONTAINS(why, "is 1 days old");
	ASSERT(!db_host_fresh(&h, now + 86401, 86400, why, sizeof(why)));
	ASSERT_STR_CONTAINS(why, "is 2 days old");
	/* 0: any age. */
	ASSERT(db_host_fresh(&h, now + 3650 * 86400, 0, why, sizeof(why)));
}

TEST(locators_never_show_a_password)
{
	char	out[512];

	ASSERT(db_is_postgresql("postgresql://h/db"));
	ASSERT(db_is_postgresql("postgres://h/db"));
	ASSERT(!db_is_postgresql("/var/lib/pwtuned/pwtune.db"));
	ASSERT(!db_is_postgresql("postgresql:/x"));
	db_locator_redact("postgresql://u:s3cret@db.example:5432/pwtune", out,
	    sizeof(out));
	ASSERT_STR_EQ(out, "postgresql://u:***@db.example:5432/pwtune");
	db_locator_redact("postgres://u@h/d?sslmode=require&password=s3cret&"
	    "x=1", out, sizeof(out));
	ASSERT_STR_EQ(out, "postgres://u@h/d?sslmode=require&password=***&x=1");
	db_locator_redact("postgresql://u:p%40ss@h/d", out, sizeof(out));
	ASSERT(strstr(out, "p%40ss") == NULL);
	db_locator_redact("/var/lib/pwtuned/pwtune.db", out, sizeof(out));
	ASSERT_STR_EQ(out, "/var/lib/pwtuned/pwtune.db");
}

/*
 * D1: the password as libpq reads it (userinfo up to the '@', whatever
 * '?', '#' or ':' it holds; password= and sslpassword= parameters, keys
 * percent-decoded; keyword/value strings) never shows.
 */
static void
redacts(const char *in, const char *want)
{
	char	out[512];

	db_locator_redact(in, out, sizeof(out));
	if (strcmp(out, want) != 0)
		TEST_FAIL("%s: got %s, wanted %s", in, out, want);
	if (strstr(out, "s3cr") != NULL)
		TEST_FAIL("%s: %s shows the password", in, out);
}

TEST(locators_redacted_as_libpq_reads_them)
{
	char	out[8];

	redacts("postgresql://u:s3cr?t@192.0.2.1/x",
	    "postgresql://u:***@192.0.2.1/x");
	redacts("postgresql://u:s3cr#t@h/x", "postgresql://u:***@h/x");
	redacts("postgresql://u:s3cr:t@h:5432/x", "postgresql://u:***@h:5432/x");
	redacts("postgres://u:s3cr%3F%23%2F%40t@h/x", "postgres://u:***@h/x");
	redacts("postgresql://u:s3cr?t@h1:5432,h2:5433/x?sslmode=require",
	    "postgresql://u:***@h1:5432,h2:5433/x?sslmode=require");
	redacts("postgresql://u:s3cr?t@[::1]:5432/x",
	    "postgresql://u:***@[::1]:5432/x");
	redacts("postgresql://u:s3cr?t@", "postgresql://u:***@");
	/* Not encoded as they should be: hidden all the same. */
	redacts("postgresql://u:s3cr@t@h/x", "postgresql://u:***@h/x");
	redacts("postgresql://u:s3cr/t@h/x", "postgresql://u:***@h/x");
	/* No password, or none in the userinfo. */
	redacts("postgresql://u@h/x", "postgresql://u@h/x");
	redacts("postgresql://h:5432/x?application_name=a@b",
	    "postgresql://h:5432/x?application_name=a@b");
	redacts("postgresql://", "postgresql://");
	/* In the query. */
	redacts("postgresql://u@h/x?password=s3cr?t#x&sslmode=require",
	    "postgresql://u@h/x?password=***&sslmode=require");
	redacts("postgresql://h/x?%70assword=s3cret",
	    "postgresql://h/x?%70assword=***");
	redacts("postgresql://h/x?sslpassword=s3cret&password=s3cret",
	    "postgresql://h/x?sslpassword=***&password=***");
	redacts("postgresql://u:s3cr?t@h/x?password=s3cret",
	    "postgresql://u:***@h/x?password=***");
	/* Another scheme, and keyword/value strings. */
	redacts("mysql://u:s3cr?t@h/x", "mysql://u:***@h/x");
	redacts("host=h password=s3cret dbname=x",
	    "host=h password=*** dbname=x");
	redacts("host=h password = 's3cr\\' t' dbname=x",
	    "host=h password = *** dbname=x");
	/* Cut short, never in the middle of the password. */
	db_locator_redact("postgresql://u:s3cr?t@h/x", out, sizeof(out));
	ASSERT(strlen(out) < sizeof(out));
}

/*
 * A locator libpq reads otherwise (an '@' or '/' left unencoded: libpq
 * would take a piece of the password for a host or a port, and say so)
 * and a URI of another engine are refused before libpq sees them.
 */
TEST(ambiguous_locators_are_refused)
{
	static const char *const bad[] = {
		"postgresql://u:s3cr/t@127.0.0.1:1/x",
		"postgresql://u:s3cr@t@127.0.0.1:1/x",
		"mysql://u:s3cr?t@127.0.0.1/x",
		"host=127.0.0.1 port=1 password=s3cret dbname=x",
		/* libpq quotes what it cannot decode. */
		"postgresql://u:s3cr%zzt@127.0.0.1:1/x",
		"postgresql://127.0.0.1:1/x?password=s3cr%00t",
	};
	struct db	*db;
	char		 err[512];
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (db_open(bad[i], NULL, &db, err, sizeof(err)) == DB_OK) {
			db_close(db);
			TEST_FAIL("%s: opened", bad[i]);
		}
		if (strstr(err, "s3cr") != NULL)
			TEST_FAIL("%s: %s", bad[i], err);
	}
}

TEST_LIST(
	TEST_ENTRY(memory_store_run_lifecycle),
	TEST_ENTRY(models_are_stored_with_their_run),
	TEST_ENTRY(import_export_and_list),
	TEST_ENTRY(retention_keeps_the_newest_and_the_protected),
	TEST_ENTRY(a_model_takes_the_curves_its_run_did_not_measure),
	TEST_ENTRY(an_unreadable_curve_of_another_run_is_left_out),
	TEST_ENTRY(runs_of_a_dead_process_are_interrupted),
	TEST_ENTRY(a_run_of_an_unreadable_process_is_kept_while_it_lives),
	TEST_ENTRY(migrations_from_every_version),
	TEST_ENTRY(newer_schema_is_refused),
	TEST_ENTRY(corrupt_files_are_moved_aside),
	TEST_ENTRY(unmarked_corrupt_files_and_dangling_links_are_left_alone),
	TEST_ENTRY(stores_named_with_uri_characters),
	TEST_ENTRY(other_files_are_refused_untouched),
	TEST_ENTRY(other_programs_databases_are_refused_untouched),
	TEST_ENTRY(an_empty_file_is_a_new_store),
	TEST_ENTRY(read_only_open),
	TEST_ENTRY(host_groups),
	TEST_ENTRY(observations_per_host_and_stack),
	TEST_ENTRY(observation_names_are_bounded_per_host),
	TEST_ENTRY(observations_forgotten_per_host_and_stack),
	TEST_ENTRY(observations_are_pruned_per_host_and_stack),
	TEST_ENTRY(model_stacks_from_probe_points_and_observations),
	TEST_ENTRY(a_probe_on_the_curves_library_gives_way_to_services),
	TEST_ENTRY(model_checks_of_a_run),
	TEST_ENTRY(migration_to_4_keeps_observations_as_services),
	TEST_ENTRY(migration_to_5_leaves_old_probes_sharing_nothing),
	TEST_ENTRY(concurrent_writers_lose_nothing),
	TEST_ENTRY(opening_beside_writers_never_fails),
	TEST_ENTRY(runs_of_other_machines_are_left_alone),
	TEST_ENTRY(locators_never_show_a_password),
	TEST_ENTRY(locators_redacted_as_libpq_reads_them),
	TEST_ENTRY(ambiguous_locators_are_refused),
	TEST_ENTRY(fresh_hosts_for_fleet_answers)
)
