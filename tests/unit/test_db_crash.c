/*
 * tests/unit/test_db_crash.c: a child writes a run point by point and is
 * killed with SIGKILL at a random moment, 50 times. After each kill the
 * store passes integrity_check, every point the child saw committed is
 * there, and the run is marked interrupted when the store is reopened.
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "db.h"
#include "test.h"

#define KILLS	50

static void
one_point(struct measure_result *r, double ms)
{
	memset(r, 0, sizeof(*r));
	kdf_params_init(&r->pt.kp, KDF_ALG_ARGON2ID);
	r->pt.kp.backend = KDF_BACKEND_LIBSODIUM;
	r->pt.kp.m_kib = 8192;
	r->pt.kp.t = 1;
	r->pt.kp.p = 1;
	r->pt.k = 1;
	r->status = MEASURE_OK;
	r->st.n = 1;
	r->st.mean = r->st.median = r->st.min = r->st.max = r->st.p95 = ms;
}

/* The child: write points until killed, reporting each committed seq. */
static void __attribute__((noreturn))
writer(const char *path, int fd)
{
	struct report		rep;
	struct measure_result	r;
	struct db		*db;
	char			err[512];
	int64_t			id;
	uint32_t		seq;

	memset(&rep, 0, sizeof(rep));
	snprintf(rep.host.host_id, sizeof(rep.host.host_id), "crashhost");
	snprintf(rep.host.fingerprint, sizeof(rep.host.fingerprint), "fp");
	snprintf(rep.profile, sizeof(rep.profile), "quick");
	if (db_open(path, NULL, &db, err, sizeof(err)) != DB_OK ||
	    db_run_create(db, &rep, 100000, DB_TRIGGER_CLI, &id, err,
	    sizeof(err)) != DB_OK ||
	    db_run_set_status(db, id, DB_RUN_RUNNING, NULL, err,
	    sizeof(err)) != DB_OK) {
		fprintf(stderr, "writer: %s\n", err);
		_exit(1);
	}
	if (write(fd, &id, sizeof(id)) != sizeof(id))
		_exit(1);
	for (seq = 0; seq < 100000; seq++) {
		one_point(&r, 10 + seq);
		if (db_run_add_point(db, id, seq, &r, err, sizeof(err)) !=
		    DB_OK) {
			fprintf(stderr, "writer: %s\n", err);
			_exit(1);
		}
		/* Only now is it acknowledged. */
		if (write(fd, &seq, sizeof(seq)) != sizeof(seq))
			_exit(1);
	}
	_exit(0);
}

TEST(kill_nine_fifty_times)
{
	char		 dir[] = "/tmp/pwtune-crash-XXXXXX", path[64], err[512];
	char		 check[512], cmd[128];
	struct db	*db;
	struct db_run	 run;
	struct report	 rep;
	int		 k, fds[2], status, total_points = 0;
	int64_t		 id;
	uint32_t	 seq, acked;
	pid_t		 pid;
	ssize_t		 n;

	ASSERT(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/crash.db", dir);
	for (k = 0; k < KILLS; k++) {
		ASSERT_EQ(pipe(fds), 0);
		if ((pid = fork()) == 0) {
			close(fds[0]);
			writer(path, fds[1]);
		}
		close(fds[1]);
		ASSERT_EQ(read(fds[0], &id, sizeof(id)), sizeof(id));
		/* Kill it somewhere in 1 to 40 ms of writing. */
		usleep(1000 + randombytes_uniform(39000));
		kill(pid, SIGKILL);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		acked = 0;
		while ((n = read(fds[0], &seq, sizeof(seq))) == sizeof(seq))
			acked = seq + 1;
		close(fds[0]);

		if (db_open(path, NULL, &db, err, sizeof(err)) != DB_OK)
			TEST_FAIL("kill %d: reopen: %s", k, err);
		ASSERT_EQ(db_check(db, check, sizeof(check), err, sizeof(err)),
		    DB_OK);
		if (strcmp(check, "ok") != 0)
			TEST_FAIL("kill %d: integrity_check: %s", k, check);
		ASSERT_EQ(db_run_get(db, id, &run, err, sizeof(err)), DB_OK);
		ASSERT_EQ(run.status, DB_RUN_INTERRUPTED);
		/* Every acknowledged point is there; at most one more. */
		if ((uint32_t)run.points_done < acked ||
		    (uint32_t)run.points_done > acked + 1)
			TEST_FAIL("kill %d: %u acknowledged, %d stored", k,
			    acked, run.points_done);
		ASSERT_EQ(db_run_report(db, id, &rep, err, sizeof(err)), DB_OK);
		ASSERT_EQ(rep.n, (size_t)run.points_done);
		for (seq = 0; seq < rep.n; seq++)
			ASSERT(rep.results[seq].st.mean == 10 + seq);
		total_points += run.points_done;
		report_release(&rep);
		db_close(db);
	}
	printf("  %d kills, %d points written and found\n", KILLS,
	    total_points);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT_EQ(system(cmd), 0);
}

TEST_LIST(
	TEST_ENTRY(kill_nine_fifty_times)
)
