/*
 * tests/unit/test_probe.c: a stack's probe run as a benchmark child, with
 * fake probes (shell scripts written here as the catalogue's probe-c) that
 * answer, are missing, hang, crash, print garbage, exit 3, outgrow the
 * memory budget, or are cancelled.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "synthetic.h"
#include "test.h"

/* The protocol's answer: samples 10, 11, ... ms at every point asked. */
#define FAKE_HEAD							\
	"#!/bin/sh\n"							\
	"mode=$1; shift; warm=$1; shift\n"				\
	"echo '{\"probe\":\"c\",\"runtime\":\"fake 1.0\","		\
	"\"library\":\"'$mode'\"}'\n"
#define FAKE_POINTS							\
	"for pt; do\n"							\
	"  IFS=:; set -- $pt; IFS=' '\n"				\
	"  s=''; i=0\n"							\
	"  while [ $i -lt $4 ]; do s=\"$s${s:+,}$((10 + i))\"; "	\
	"i=$((i + 1)); done\n"						\
	"  printf '{\"m_kib\":%s,\"t\":%s,\"p\":%s,\"samples_ms\":[%s]}\\n'"\
	" $1 $2 $3 \"$s\"\n"						\
	"done\n"

static char	dir[64];

/* A fresh directory holding script as probe-c. */
static void
fake(const char *script)
{
	char	path[128];
	FILE	*fp;

	snprintf(dir, sizeof(dir), "/tmp/pwtune-probe-XXXXXX");
	ASSERT(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/probe-c", dir);
	ASSERT((fp = fopen(path, "w")) != NULL);
	fputs(script, fp);
	ASSERT(fclose(fp) == 0);
	ASSERT(chmod(path, 0755) == 0);
}

static void
cleanup(void)
{
	char	cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "  cannot remove %s\n", dir);
}

static void
point(struct stack_probe_point *p, uint32_t m_mib, uint32_t t, uint32_t n)
{
	p->m_kib = m_mib * 1024;
	p->t = t;
	p->p = 1;
	p->n = n;
}

/*
 * The pid dir/child holds is gone, or dead and not yet reaped (its
 * parent killed too, it waits for init), within a second.
 */
static int
child_gone(void)
{
	char	path[128];
	FILE	*fp;
	int	pid = 0, i;

	snprintf(path, sizeof(path), "%s/child", dir);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	if (fscanf(fp, "%d", &pid) != 1)
		pid = 0;
	fclose(fp);
	if (pid <= 0)
		return -1;
	for (i = 0; i < 100; i++) {
		char	line[256], *s;
		char	state = '?';

		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if ((fp = fopen(path, "r")) == NULL)
			return 1;
		if (fgets(line, sizeof(line), fp) != NULL &&
		    (s = strrchr(line, ')')) != NULL)
			state = s[2];
		fclose(fp);
		if (state == 'Z' || state == 'X')
			return 1;
		usleep(10000);
	}
	return 0;
}

TEST(ok_points_parsed_and_summarised)
{
	const struct stack_def		*sd = stack_find("libsodium");
	struct stack_probe_point	 pts[2];
	struct probe_opts		 o;
	static struct probe_result	 r;
	int				 fd;

	/* A descriptor of ours the probe must not see. */
	fd = open("/dev/null", O_RDONLY);
	ASSERT(fd > 2);
	fake(FAKE_HEAD
	    "[ -e /proc/$$/fd/3 ] && echo 'fd 3 is open'\n"
	    "read x && echo 'stdin is not /dev/null'\n"
	    FAKE_POINTS);
	probe_opts_init(&o);
	point(&pts[0], 16, 1, 5);
	point(&pts[1], 64, 3, 3);
	o.timeout = 10;
	ASSERT_EQ(probe_run(sd, dir, pts, 2, &o, &r), 0);
	close(fd);
	ASSERT_EQ(r.status, PROBE_OK);
	ASSERT_STR_EQ(r.why, "");
	ASSERT_STR_EQ(r.runtime, "fake 1.0");
	ASSERT_STR_EQ(r.library, "libsodium");
	ASSERT_EQ(r.npoints, 2);
	ASSERT_EQ(r.points[0].nsamples, 5);
	ASSERT_EQ(r.points[0].pt.m_kib, 16384);
	ASSERT(r.points[0].median_ms == 12);
	ASSERT(r.points[0].p95_ms > 13.7 && r.points[0].p95_ms < 13.9);
	ASSERT_EQ(r.points[1].nsamples, 3);
	ASSERT(r.points[1].median_ms == 11);
	printf("  ok: 2 points, medians %.1f and %.1f ms, in %.2f s\n",
	    r.points[0].median_ms, r.points[1].median_ms, r.seconds);
	cleanup();
}

/*
 * The header's "object" and "object_id": the library the probe's runtime
 * hashed through. It shares the curve's when the id is this process's
 * own (whatever the path says), not another id, not a malformed one,
 * not a path with a control character.
 */
TEST(the_library_file_it_hashed_through)
{
	const struct stack_def		*sd = stack_find("libargon2");
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;
	char				 own[PATH_MAX], id[64], script[4096];
	char				 path[PATH_MAX], head[1024];
	static const struct {
		const char	*object, *id;
		int		 kept, shared;
	} cases[] = {
		{ "/usr/lib/libargon2.so.1", NULL, 1, 1 },
		{ "/elsewhere/libargon2.so.1", NULL, 1, 1 },
		{ "/usr/lib/libargon2.so.1", "00:00 1", 1, 0 },
		{ "/usr/lib/libargon2.so.1", "fe:01 12x", 0, 0 },
		{ "/usr/lib/libargon2.so.1", "fe: 01 12", 0, 0 },
		{ "/usr/lib/libargon2.so.1", "0fe:01 12", 0, 0 },
		{ "/usr/lib/libargon2.so.1", "", 0, 0 },
		{ "libargon2.so.1", NULL, 0, 0 },
		{ "/usr/lib/lib\\nargon2.so.1", NULL, 0, 0 },
	};
	size_t				 i;
	FILE				*fp;

	ASSERT_EQ(kdf_library_file(KDF_BACKEND_LIBARGON2, own, sizeof(own)),
	    0);
	ASSERT(strstr(own, "libargon2") != NULL && access(own, R_OK) == 0);
	ASSERT_EQ(kdf_library_file(KDF_BACKEND_LIBCRYPT, path, sizeof(path)),
	    -1);
	ASSERT_EQ(kdf_library_id(KDF_BACKEND_LIBARGON2, id, sizeof(id)), 0);
	{
		struct stat	sb;
		unsigned long long ino = 0;

		/* The inode its map gives is the file's. */
		ASSERT(stat(own, &sb) == 0);
		ASSERT(sscanf(strchr(id, ' ') + 1, "%llu", &ino) == 1);
		ASSERT(ino == (unsigned long long)sb.st_ino);
	}
	fake("#!/bin/sh\n");
	probe_opts_init(&o);
	point(&pt, 1, 1, 1);
	o.timeout = 10;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(head, sizeof(head), "#!/bin/sh\n"
		    "mode=$1; shift; warm=$1; shift\n"
		    "printf '%%s\\n' '{\"probe\":\"c\",\"runtime\":"
		    "\"fake 1.0\",\"library\":\"libargon2\",\"object\":\"%s\","
		    "\"object_id\":\"%s\"}'\n", cases[i].object,
		    cases[i].id != NULL ? cases[i].id : id);
		snprintf(script, sizeof(script), "%s%s", head, FAKE_POINTS);
		snprintf(path, sizeof(path), "%s/probe-c", dir);
		ASSERT((fp = fopen(path, "w")) != NULL);
		fputs(script, fp);
		ASSERT(fclose(fp) == 0);
		ASSERT_EQ(probe_run(sd, dir, &pt, 1, &o, &r), 0);
		ASSERT_STR_EQ(r.object, cases[i].kept ? cases[i].object : "");
		ASSERT_STR_EQ(probe_shares(sd, &r), cases[i].shared ?
		    cases[i].object : "");
		/* Never the other library's. */
		ASSERT_STR_EQ(probe_shares(stack_find("libsodium"), &r), "");
	}
	printf("  ok: %s is %s here\n", own, id);
	cleanup();
}

TEST(not_installed_runs_nothing)
{
	struct stack_def		 sd = *stack_find("php");
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;

	probe_opts_init(&o);
	point(&pt, 16, 1, 5);
	sd.argv[0] = "pwtune-no-such-runtime";
	ASSERT_EQ(probe_run(&sd, "/nonexistent", &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_NOT_INSTALLED);
	ASSERT_STR_EQ(r.why, "not installed: pwtune-no-such-runtime not found");
	ASSERT_EQ(r.pid, 0);
	ASSERT_EQ(probe_runtime_of(probe_status_name(r.status)),
	    MODEL_RUNTIME_MISSING);
	/* What never looked for its runtime does not say it is missing. */
	ASSERT_EQ(probe_runtime_of("disabled"), MODEL_RUNTIME_UNKNOWN);
	ASSERT_EQ(probe_runtime_of("skipped"), MODEL_RUNTIME_UNKNOWN);
	ASSERT_EQ(probe_runtime_of("cancelled"), MODEL_RUNTIME_UNKNOWN);
	ASSERT_EQ(probe_runtime_of(""), MODEL_RUNTIME_UNKNOWN);
	ASSERT_EQ(probe_runtime_of(NULL), MODEL_RUNTIME_UNKNOWN);
	ASSERT_EQ(probe_runtime_of("timeout"), MODEL_RUNTIME_HERE);
	/* The runtime there, its probe program not. */
	sd.argv[0] = "sh";
	ASSERT_EQ(probe_run(&sd, "/nonexistent", &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_NOT_INSTALLED);
	ASSERT_STR_EQ(r.why, "not installed: /nonexistent/probe.php not found");
	ASSERT_EQ(r.pid, 0);
	/* A path that is not there. */
	ASSERT_EQ(probe_run(stack_find("libsodium"), "/nonexistent", &pt, 1,
	    &o, &r), -1);
	ASSERT_STR_EQ(r.why, "not installed: /nonexistent/probe-c not found");
}

TEST(hang_killed_at_the_deadline_with_its_group)
{
	struct stack_probe_point	 pts[2];
	struct probe_opts		 o;
	static struct probe_result	 r;

	fake(FAKE_HEAD
	    "printf '{\"m_kib\":16384,\"t\":1,\"p\":1,\"samples_ms\":"
	    "[5,5,5]}\\n'\n"
	    "sleep 30 & echo $! > \"$(dirname \"$0\")/child\"\nwait\n");
	probe_opts_init(&o);
	point(&pts[0], 16, 1, 3);
	point(&pts[1], 32, 1, 3);
	o.timeout = 2;
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, pts, 2, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_TIMEOUT);
	ASSERT_STR_EQ(r.why, "timed out after 2 s");
	ASSERT(r.seconds >= 1.9 && r.seconds < 4);
	ASSERT_EQ(r.npoints, 1);	/* kept */
	ASSERT(r.points[0].median_ms == 5);
	ASSERT_EQ(child_gone(), 1);
	printf("  hang: killed after %.2f s, 1 point kept\n", r.seconds);
	cleanup();
}

TEST(crash_says_the_signal)
{
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;

	fake(FAKE_HEAD "kill -SEGV $$\nsleep 5\n");
	probe_opts_init(&o);
	point(&pt, 16, 1, 3);
	o.timeout = 10;
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_CRASHED);
	ASSERT_STR_CONTAINS(r.why, "crashed: signal 11");
	ASSERT_STR_EQ(r.runtime, "fake 1.0");
	printf("  crash: %s\n", r.why);
	cleanup();
}

TEST(garbage_of_every_kind)
{
	static const char *const lines[] = {
		"hello world",
		/* Not the point asked. */
		"{\"m_kib\":32768,\"t\":1,\"p\":1,\"samples_ms\":[1,2,3]}",
		/* Too few samples, a sample not > 0, not finite, a string. */
		"{\"m_kib\":16384,\"t\":1,\"p\":1,\"samples_ms\":[1,2]}",
		"{\"m_kib\":16384,\"t\":1,\"p\":1,\"samples_ms\":[1,0,3]}",
		"{\"m_kib\":16384,\"t\":1,\"p\":1,\"samples_ms\":[1,2,1e999]}",
		"{\"m_kib\":16384,\"t\":1,\"p\":1,\"samples_ms\":[1,\"2\",3]}",
		/* Longer than any answer's target (600 s). */
		"{\"m_kib\":16384,\"t\":1,\"p\":1,\"samples_ms\":[1,2,1.7e308]}",
	};
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;
	char				 script[1024];
	size_t				 i;

	probe_opts_init(&o);
	point(&pt, 16, 1, 3);
	o.timeout = 10;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		snprintf(script, sizeof(script), FAKE_HEAD "echo '%s'\n"
		    "sleep 5\n", lines[i]);
		fake(script);
		ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o,
		    &r), -1);
		if (r.status != PROBE_GARBAGE)
			TEST_FAIL("line %zu: %s", i, r.why);
		if (strncmp(r.why, "printed garbage: ", 17) != 0 ||
		    strncmp(r.why + 17, lines[i], 20) != 0)
			TEST_FAIL("line %zu: %s", i, r.why);
		ASSERT(r.seconds < 2);	/* killed at once, not at its end */
		cleanup();
	}
	/* No header at all: a point line first. */
	fake("#!/bin/sh\necho '{\"m_kib\":16384,\"t\":1,\"p\":1,"
	    "\"samples_ms\":[1,2,3]}'\n");
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_GARBAGE);
	cleanup();
	/* A line past the last point. */
	fake(FAKE_HEAD FAKE_POINTS "echo '{}'\n");
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_GARBAGE);
	ASSERT_STR_EQ(r.why, "printed garbage: {}");
	ASSERT_EQ(r.npoints, 1);
	cleanup();
}

TEST(exit_3_gives_its_reason)
{
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;

	/* Before its header: the runtime lacks the library, not here. */
	fake("#!/bin/sh\necho '{\"error\":\"no module named argon2\"}'\n"
	    "exit 3\n");
	probe_opts_init(&o);
	point(&pt, 16, 1, 3);
	o.timeout = 10;
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_NOT_INSTALLED);
	ASSERT_STR_EQ(r.why, "not installed: no module named argon2");
	ASSERT_EQ(probe_runtime_of(probe_status_name(r.status)),
	    MODEL_RUNTIME_MISSING);
	cleanup();
	/* After its header, exit 3 is a failure of a runtime that is here. */
	fake(FAKE_HEAD "echo '{\"error\":\"out of luck\"}'\nexit 3\n");
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_EXIT);
	ASSERT_STR_EQ(r.why, "exit 3: out of luck");
	ASSERT_EQ(probe_runtime_of(probe_status_name(r.status)),
	    MODEL_RUNTIME_HERE);
	cleanup();
	/* Exit 1 after the header: a hash failed, and says why. */
	fake(FAKE_HEAD "echo '{\"error\":\"Memory allocation error\"}'\n"
	    "exit 1\n");
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_EXIT);
	ASSERT_STR_EQ(r.why, "exit 1: Memory allocation error");
	cleanup();
	/*
	 * Its text made safe to log and to answer with: control characters
	 * (a newline, ESC, a C1 CSI) and a character cut at the bound of
	 * why become '?'; whole characters stay.
	 */
	fake(FAKE_HEAD "printf '{\"error\":\"a\\\\nb\\\\u001b[31mc"
	    "\\\\u009bd \\\\u00e9\"}\\n'\nexit 1\n");
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_STR_EQ(r.why, "exit 1: a?b?[31mc??d \xc3\xa9");
	cleanup();
	{
		char	script[512], want[200];

		/* "exit 1: " and 182 bytes leave one of é's two in why. */
		snprintf(script, sizeof(script), FAKE_HEAD
		    "printf '{\"error\":\"%%0182d\\303\\251\"}\\n' 0\n"
		    "exit 1\n");
		fake(script);
		ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o,
		    &r), -1);
		snprintf(want, sizeof(want), "%s%0182d?", "exit 1: ", 0);
		ASSERT_STR_EQ(r.why, want);
		cleanup();
	}
	/* Another status: the first line of its standard error. */
	fake("#!/bin/sh\necho 'usage: probe-c MODE' >&2\necho more >&2\n"
	    "exit 2\n");
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_EXIT);
	ASSERT_STR_EQ(r.why, "exit 2: usage: probe-c MODE");
	cleanup();
	/* A program that cannot be run (its interpreter is not there). */
	fake("#!/nonexistent/sh\n");
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_EXIT);
	ASSERT_STR_CONTAINS(r.why, "exit 127: cannot run ");
	ASSERT_STR_CONTAINS(r.why, "probe-c: exec failed");
	cleanup();
	/* Exit 0 before every point. */
	fake(FAKE_HEAD);
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_SHORT);
	ASSERT_STR_EQ(r.why, "exited after 0 of 1 points");
	cleanup();
}

TEST(over_the_memory_budget)
{
	struct stack_probe_point	 pts[2];
	struct probe_opts		 o;
	static struct probe_result	 r;

	/* Points over the budget are not asked for. */
	fake(FAKE_HEAD FAKE_POINTS);
	probe_opts_init(&o);
	point(&pts[0], 8, 1, 3);
	point(&pts[1], 64, 1, 3);
	o.timeout = 10;
	o.mem_budget = 16ULL << 20;
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, pts, 2, &o, &r), 0);
	ASSERT_EQ(r.nasked, 1);
	ASSERT_EQ(r.npoints, 1);
	ASSERT_EQ(r.points[0].pt.m_kib, 8192);
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pts[1], 1, &o,
	    &r), -1);
	ASSERT_EQ(r.status, PROBE_SKIPPED);
	ASSERT_EQ(r.pid, 0);
	cleanup();
	/* A probe whose memory really grows past budget + allowance. */
	/* dd's buffer is bs bytes, written by every read (coreutils). */
	fake(FAKE_HEAD
	    "exec dd if=/dev/zero of=/dev/null bs=160M count=100000 "
	    "2>/dev/null\n");
	o.rss_allowance = 32ULL << 20;
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, pts, 1, &o, &r), -1);
	ASSERT_EQ(r.status, PROBE_MEMORY);
	ASSERT_STR_CONTAINS(r.why, "used more memory than the budget (");
	ASSERT_STR_CONTAINS(r.why, " MiB > 48 MiB: the hash's 16 MiB and "
	    "32 MiB for the runtime)");
	ASSERT(r.seconds < 10);
	printf("  memory: %s, after %.2f s\n", r.why, r.seconds);
	cleanup();
	/* One KiB over a limit of whole MiB reads as over. */
	probe_memory_why(r.why, sizeof(r.why), 48 * 1024 + 1, 48 * 1024,
	    16ULL << 20);
	ASSERT_STR_EQ(r.why, "used more memory than the budget (49 MiB > "
	    "48 MiB: the hash's 16 MiB and 32 MiB for the runtime)");
	/* Without one given, the stack's own: a JVM's heap is larger. */
	ASSERT(probe_rss_allowance(stack_find("java-bouncycastle")) ==
	    UINT64_C(4096) << 20);
	ASSERT(probe_rss_allowance(stack_find("php")) == PROBE_RSS_ALLOWANCE);
}

static volatile int	cancel;

static void *
canceller(void *arg)
{
	(void)arg;
	usleep(300000);
	cancel = 1;
	return NULL;
}

TEST(cancel_kills_the_group_promptly)
{
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;
	pthread_t			 th;

	fake(FAKE_HEAD "sleep 30 & echo $! > \"$(dirname \"$0\")/child\"\n"
	    "wait\n");
	probe_opts_init(&o);
	point(&pt, 16, 1, 3);
	o.timeout = 30;
	cancel = 0;
	o.cancel = &cancel;
	ASSERT(pthread_create(&th, NULL, canceller, NULL) == 0);
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	pthread_join(th, NULL);
	ASSERT_EQ(r.status, PROBE_CANCELLED);
	ASSERT(r.seconds < 1);
	ASSERT_EQ(child_gone(), 1);
	printf("  cancel: gone %.2f s after the start (cancel at 0.3 s)\n",
	    r.seconds);
	cleanup();
}

TEST(a_probe_others_can_change_is_refused)
{
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;
	char				 path[128];

	probe_opts_init(&o);
	point(&pt, 16, 1, 3);
	fake(FAKE_HEAD FAKE_POINTS);
	snprintf(path, sizeof(path), "%s/probe-c", dir);
	/* Anyone may write the program: not run. */
	ASSERT(chmod(path, 0757) == 0);
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_STR_CONTAINS(r.why, "writable by others");
	ASSERT_EQ(r.pid, 0);
	/* Refused is not "not installed": the runtime may well be here. */
	ASSERT_EQ(r.status, PROBE_FAILED);
	ASSERT(strncmp(r.why, "refused: ", 9) == 0);
	ASSERT_EQ(probe_runtime_of(probe_status_name(r.status)),
	    MODEL_RUNTIME_UNKNOWN);
	/* Nor when the directory is anyone's to add to. */
	ASSERT(chmod(path, 0755) == 0);
	ASSERT(chmod(dir, 01777) == 0);
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), -1);
	ASSERT_STR_CONTAINS(r.why, "refused");
	/* A directory that cannot be looked at (under a file): refused,
	   and says why. */
	{
		char	sub[160], w[160], got[PATH_MAX];

		snprintf(sub, sizeof(sub), "%s/probe-c/sub", dir);
		memset(w, 'x', sizeof(w));
		ASSERT(chmod(dir, 0700) == 0);
		ASSERT_EQ(probe_resolve(stack_find("libsodium"), sub, got,
		    sizeof(got), w, sizeof(w)), -2);
		ASSERT(memchr(w, '\0', sizeof(w)) != NULL);
		ASSERT_STR_CONTAINS(w, "refused: ");
		ASSERT_STR_CONTAINS(w, "Not a directory");
	}
	/* Ours, and no one else's: it runs. */
	ASSERT(chmod(dir, 0700) == 0);
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), 0);
	cleanup();
}

TEST(deadline_from_the_cap_without_a_model)
{
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;

	fake(FAKE_HEAD FAKE_POINTS);
	probe_opts_init(&o);
	point(&pt, 16, 1, 3);
	o.timeout_max = 7;
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), 0);
	ASSERT(r.deadline_s == 7);
	cleanup();
}

/*
 * With a model, the deadline is 4 x the predicted work + the runtime's
 * start: each point's timed hashes at its t, its warm-ups at two passes
 * at most (STACK_PROBE_WARMUP_T), both from the model.
 */
TEST(deadline_from_the_model_warmups_at_two_passes)
{
	const struct stack_def		*sd = stack_find("libsodium");
	struct stack_probe_point	 pts[2];
	struct probe_opts		 o;
	struct report			 rep;
	static struct model		 mdl;
	static struct probe_result	 r;
	double				 t1, t6, t2, want, full;
	unsigned			 w;
	char				 err[256];

	synthetic_host(&rep, 0, 1, 8ULL << 30);
	if (model_fit(&rep, &mdl, err, sizeof(err)) != 0)
		TEST_FAIL("model_fit: %s", err);
	report_release(&rep);
	fake(FAKE_HEAD FAKE_POINTS);
	probe_opts_init(&o);
	o.model = &mdl;
	o.warmup = 3;
	w = sd->warmup > 0 ? sd->warmup : o.warmup;
	point(&pts[0], 16, 1, 5);
	point(&pts[1], 64, 6, 3);
	ASSERT_EQ(stack_predict(&mdl, "libsodium", KDF_ALG_ARGON2ID,
	    16384, 1, 1, 1, 50, &t1), 0);
	ASSERT_EQ(stack_predict(&mdl, "libsodium", KDF_ALG_ARGON2ID,
	    65536, 6, 1, 1, 50, &t6), 0);
	ASSERT_EQ(stack_predict(&mdl, "libsodium", KDF_ALG_ARGON2ID,
	    65536, STACK_PROBE_WARMUP_T, 1, 1, 50, &t2), 0);
	ASSERT(t1 > 0 && t2 > 0 && t6 > t2);
	want = (t1 * 5 + t1 * w + t6 * 3 + t2 * w) * 4 / 1000 +
	    PROBE_START_S;
	full = (t1 * 5 + t1 * w + t6 * 3 + t6 * w) * 4 / 1000 +
	    PROBE_START_S;
	ASSERT(full - want > 0.01);
	ASSERT_EQ(probe_run(sd, dir, pts, 2, &o, &r), 0);
	if (fabs(r.deadline_s - want) > 1e-9)
		TEST_FAIL("deadline %.6f s, want %.6f (warm-ups at full t: "
		    "%.6f)", r.deadline_s, want, full);
	/* The cap still bounds it. */
	o.timeout_max = PROBE_START_S;
	ASSERT_EQ(probe_run(sd, dir, pts, 2, &o, &r), 0);
	ASSERT(r.deadline_s == PROBE_START_S);
	cleanup();
}

static volatile int	spin_stop;
static volatile pid_t	watched;
static volatile int	seen_runnable;

static void *
spinner(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}

/* What the daemon's watcher does during a check: the child's threads. */
static void *
watch_child(void *arg)
{
	pid_t	pid;
	int	n;

	(void)arg;
	while (!spin_stop) {
		if ((pid = watched) > 0 && (n = probe_runnable(pid)) >
		    seen_runnable)
			seen_runnable = n;
		usleep(5000);
	}
	return NULL;
}

TEST(runnable_threads_and_the_childs_pid)
{
	struct stack_probe_point	 pt;
	struct probe_opts		 o;
	static struct probe_result	 r;
	pthread_t			 th[2], w;
	pid_t				 gone;
	int				 i, most = 0, n;

	/* This process with two threads spinning: both runnable (R). */
	spin_stop = 0;
	for (i = 0; i < 2; i++)
		ASSERT(pthread_create(&th[i], NULL, spinner, NULL) == 0);
	for (i = 0; i < 20; i++) {
		if ((n = probe_runnable(getpid())) > most)
			most = n;
		usleep(2000);
	}
	spin_stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("  this process, two threads spinning: %d runnable at most\n",
	    most);
	ASSERT(most >= 2);
	ASSERT_EQ(probe_runnable(0), 0);
	ASSERT_EQ(probe_runnable(-1), 0);

	/* A probe that computes before it answers: its pid told while it
	   runs, its thread seen runnable, 0 once it is reaped. */
	fake(FAKE_HEAD "i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done\n"
	    FAKE_POINTS);
	probe_opts_init(&o);
	point(&pt, 16, 1, 3);
	o.child = &watched;
	watched = 0;
	seen_runnable = 0;
	spin_stop = 0;
	ASSERT(pthread_create(&w, NULL, watch_child, NULL) == 0);
	ASSERT_EQ(probe_run(stack_find("libsodium"), dir, &pt, 1, &o, &r), 0);
	spin_stop = 1;
	pthread_join(w, NULL);
	printf("  probe: %.2f s, its threads seen runnable: %d at most\n",
	    r.seconds, seen_runnable);
	ASSERT(seen_runnable >= 1);
	ASSERT_EQ(watched, 0);
	gone = r.pid;
	ASSERT(gone > 0);
	ASSERT_EQ(probe_runnable(gone), 0);
	cleanup();
}

TEST_LIST(
	TEST_ENTRY(runnable_threads_and_the_childs_pid),
	TEST_ENTRY(a_probe_others_can_change_is_refused),
	TEST_ENTRY(ok_points_parsed_and_summarised),
	TEST_ENTRY(the_library_file_it_hashed_through),
	TEST_ENTRY(not_installed_runs_nothing),
	TEST_ENTRY(hang_killed_at_the_deadline_with_its_group),
	TEST_ENTRY(crash_says_the_signal),
	TEST_ENTRY(garbage_of_every_kind),
	TEST_ENTRY(exit_3_gives_its_reason),
	TEST_ENTRY(over_the_memory_budget),
	TEST_ENTRY(cancel_kills_the_group_promptly),
	TEST_ENTRY(deadline_from_the_cap_without_a_model),
	TEST_ENTRY(deadline_from_the_model_warmups_at_two_passes)
)
