/*
 * engine/probe: running one client stack's probe (engine/probes/) as a
 * benchmark child, and reading what it measured.
 *
 * A probe is the stack's own runtime running a small program (stack_def
 * argv, "{dir}" the probe directory):
 *
 *   RUNTIME PROGRAM [MODE] WARMUP POINT...
 *     WARMUP  untimed hashes before each point, at its m and p and two
 *             passes at most (STACK_PROBE_WARMUP_T)
 *     POINT   M_KIB:T:P:N, N timed hashes at those parameters
 *
 * and prints JSON lines on its standard output as they come: first a
 * header {"probe":..., "runtime":..., "library":..., "object":...,
 * "object_id":...} (both optional: the shared library it hashes through,
 * as its process's map gives it, its file and "DEV INODE"), then one
 * line per
 * point {"m_kib":..., "t":..., "p":..., "samples_ms":[...]}. It exits 0
 * when done, 2 on bad usage, 3 when the runtime lacks the library (after
 * one line {"error":"why"}).
 *
 * The child gets the guards of every benchmark child: stdin /dev/null,
 * its own process group, killed with the thread that started it, no
 * descriptor of the parent's but its pipes; points over the memory budget
 * are refused before it starts; its group is killed at the deadline, on a
 * cancel, when its resident memory passes the budget plus a runtime's
 * allowance, and when it prints anything but the protocol.
 */
#ifndef PWTUNE_PROBE_H
#define PWTUNE_PROBE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "stack.h"

#define PROBE_POINTS_MAX	8	/* points one probe is asked for */
#define PROBE_SAMPLES_MAX	64	/* samples kept per point */
#define PROBE_START_S		20	/* seconds for a runtime to start */
#define PROBE_TIMEOUT_MAX	120	/* default cap of the deadline, s */
#define PROBE_RSS_ALLOWANCE	(UINT64_C(256) << 20)	/* a runtime's own */
#define PROBE_RSS_POLL_MS	100

enum probe_status {
	PROBE_OK,
	PROBE_NOT_INSTALLED,	/* runtime or probe program missing */
	PROBE_SKIPPED,		/* every point over the memory budget */
	PROBE_TIMEOUT,
	PROBE_CRASHED,		/* died of a signal */
	PROBE_GARBAGE,		/* printed something not of the protocol */
	PROBE_MEMORY,		/* over the budget plus the allowance */
	PROBE_EXIT,		/* exited non-zero (3: runtime lacks it) */
	PROBE_SHORT,		/* exited 0 before every point */
	PROBE_CANCELLED,
	PROBE_FAILED		/* could not be started (fork, pipe) */
};

struct probe_opts {
	uint64_t		 mem_budget;	/* bytes for one hash; 0: none */
	uint64_t		 rss_allowance;	/* 0: the stack's
						   (probe_rss_allowance) */
	uint64_t		 rss_allowance_max; /* caps it; 0: no cap
						   (what the host has free) */
	double			 timeout;	/* seconds; 0: derived */
	double			 timeout_max;	/* 0: PROBE_TIMEOUT_MAX */
	unsigned		 warmup;	/* untimed, before each point
						   (the stack's own, if any) */
	const struct model	*model;		/* predicts the deadline;
						   NULL: timeout_max */
	volatile int		*cancel;	/* non-zero: kill, give up */
	volatile pid_t		*child;		/* its pid while it runs, 0
						   before it is reaped; NULL */
};

#define PROBE_OBJECT_MAX	160	/* a longer "object" is none */

struct probe_point_result {
	struct stack_probe_point pt;
	double			 samples[PROBE_SAMPLES_MAX];	/* ms */
	size_t			 nsamples;
	double			 median_ms;
	double			 p95_ms;
};

struct probe_result {
	enum probe_status	 status;
	char			 why[192];	/* "" when ok (fits a model_stack) */
	char			 runtime[96];	/* from the header */
	char			 library[128];
	/*
	 * The shared library it hashed through, from the header's "object"
	 * and "object_id" (its process's own map: the file, and "DEV INODE"
	 * as kdf_library_id gives them; "" when it named none, as a
	 * runtime with its own code or a bundled build, or named it wrong)
	 */
	char			 object[PROBE_OBJECT_MAX];
	char			 object_id[48];
	struct probe_point_result points[PROBE_POINTS_MAX];
	size_t			 npoints;	/* measured, in order */
	size_t			 nasked;	/* run (under the budget) */
	pid_t			 pid;		/* the child's, 0: none */
	double			 deadline_s;	/* it was given */
	double			 seconds;	/* it took */
	uint64_t		 peak_rss_kib;	/* its group's, as polled */
};

/* probe.c */

/* Defaults: no budget, derived deadline capped at PROBE_TIMEOUT_MAX. */
void	 probe_opts_init(struct probe_opts *o);

/*
 * Run sd's probe from dir on pts[0..n) into *r. Returns 0 when every
 * point asked was measured (status OK), -1 otherwise with the status and
 * the reason in r->why ("not installed: php not found", "timed out after
 * 60 s", "crashed: signal 11", "printed garbage: ...", "used more memory
 * than the budget (612 MiB > 512 MiB: the hash's 256 MiB and 256 MiB for
 * the runtime)", "exit 3: why"); the points
 * measured before are kept in r->points[0..r->npoints).
 */
int	 probe_run(const struct stack_def *sd, const char *dir,
	    const struct stack_probe_point *pts, size_t n,
	    const struct probe_opts *o, struct probe_result *r);

/*
 * r->object when r->object_id is the very library this process hashes
 * sd's base through (kdf_library_is: the code the curve measured), else
 * "": what model_stack.shares keeps.
 */
const char *probe_shares(const struct stack_def *sd,
	    const struct probe_result *r);

/*
 * Why a probe was killed for its memory, into buf: its resident rss_kib
 * over limit_kib, the hash's budget (bytes) and the runtime's allowance;
 * the resident size rounded up and the limit down, so the two differ.
 */
void	 probe_memory_why(char *buf, size_t len, uint64_t rss_kib,
	    uint64_t limit_kib, uint64_t budget);

/*
 * The path argv[0] of sd runs (PATH searched when it has no '/') into
 * path: 0, or -1 with "php not found" (or "DIR/probe.php not found": the
 * programs of the probe directory it names must be there) in why, or -2
 * with "refused: DIR is writable by others" (the directory or a program
 * of it is not ours or root's alone: never run).
 */
int	 probe_resolve(const struct stack_def *sd, const char *dir,
	    char *path, size_t pathlen, char *why, size_t whylen);

/*
 * The threads of process pid runnable now (state R in /proc/PID/task):
 * what a probe's runtime runs at once (a hash, a collector, a compiler);
 * 0 when it is gone.
 */
int	 probe_runnable(pid_t pid);

/*
 * The bytes sd's process may hold besides its hashes: its own (a JVM's
 * heap), else PROBE_RSS_ALLOWANCE.
 */
uint64_t probe_rss_allowance(const struct stack_def *sd);

/*
 * s made safe to log and to answer with, in place: control characters
 * (C0, DEL, C1) and bytes that are not well-formed UTF-8 become '?'.
 */
void	 probe_clean(char *s);

/* "ok", "not installed", "skipped", "timeout", ... */
const char *probe_status_name(enum probe_status s);

/*
 * Whether a probe of that status (a probe_status_name, or "disabled",
 * "skipped" as the runner stores them) found its runtime: "not
 * installed" is MISSING, a status of a runtime that started is HERE,
 * anything else (it did not look) UNKNOWN.
 */
enum model_stack_runtime probe_runtime_of(const char *status);

/*
 * The probe directory of a program: build_dir when it is a directory
 * (the program runs from its build tree), else ../share/pwtune/probes
 * beside the running executable (/usr/sbin/pwtuned ->
 * /usr/share/pwtune/probes), whatever prefix it was installed at.
 */
void	 probe_default_dir(const char *build_dir, char *buf, size_t len);

#endif /* PWTUNE_PROBE_H */
