/*
 * engine/probe.c: a stack's probe as a benchmark child (see probe.h).
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "measure.h"
#include "probe.h"
#include "stats.h"

#define PROBE_LINE_MAX	65536	/* a longer line is garbage */
#define PROBE_ARG_MAX	1024

struct probe_io {
	char	*buf;
	size_t	 len;
	int	 fd;
};

const char *
probe_status_name(enum probe_status s)
{
	static const char *const names[] = {
		"ok", "not installed", "skipped", "timeout", "crashed",
		"garbage", "memory", "exit", "short", "cancelled", "failed"
	};

	return (size_t)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

enum model_stack_runtime
probe_runtime_of(const char *status)
{
	static const char *const ran[] = {
		"ok", "timeout", "crashed", "garbage", "memory", "exit",
		"short"
	};
	size_t	i;

	if (status == NULL)
		return MODEL_RUNTIME_UNKNOWN;
	if (strcmp(status, "not installed") == 0)
		return MODEL_RUNTIME_MISSING;
	for (i = 0; i < sizeof(ran) / sizeof(ran[0]); i++)
		if (strcmp(status, ran[i]) == 0)
			return MODEL_RUNTIME_HERE;
	return MODEL_RUNTIME_UNKNOWN;
}

void
probe_opts_init(struct probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_max = PROBE_TIMEOUT_MAX;
	o->warmup = STACK_PROBE_WARMUP;
}

/* arg with every "{dir}" replaced by dir, into out: 0, or -1 (too long). */
static int
probe_subst(const char *arg, const char *dir, char *out, size_t outlen)
{
	const char	*s;
	size_t		 off = 0, dl = strlen(dir), n;

	while ((s = strstr(arg, "{dir}")) != NULL) {
		n = (size_t)(s - arg);
		if (off + n + dl >= outlen)
			return -1;
		memcpy(out + off, arg, n);
		memcpy(out + off + n, dir, dl);
		off += n + dl;
		arg = s + 5;
	}
	n = strlen(arg);
	if (off + n >= outlen)
		return -1;
	memcpy(out + off, arg, n + 1);
	return 0;
}

static int
probe_executable(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    access(path, X_OK) == 0;
}

/*
 * Is path (when it exists) owned by root or by us, and writable by no
 * one else? A probe runs as the daemon's user (root, when an operator
 * runs pwtune so): what it executes must not be anyone else's to change.
 */
static int
probe_path_trusted(const char *path, char *why, size_t whylen)
{
	struct stat	sb;

	if (stat(path, &sb) == -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, whylen, "refused: %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if ((sb.st_uid != 0 && sb.st_uid != geteuid()) ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(why, whylen, "refused: %s is %s", path,
		    (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0 ? "writable by "
		    "others" : "owned by another user");
		return -1;
	}
	return 0;
}

/*
 * The probe directory, and every file of it the stack's command names
 * (the part of a class path before ':' too), are trusted.
 */
static int
probe_dir_trusted(const struct stack_def *sd, const char *dir, char *why,
    size_t whylen)
{
	char	arg[PROBE_ARG_MAX], *colon;
	size_t	i;

	if (probe_path_trusted(dir, why, whylen) == -1)
		return -1;
	for (i = 0; i < STACK_ARGV_MAX && sd->argv[i] != NULL; i++) {
		if (strstr(sd->argv[i], "{dir}") == NULL ||
		    probe_subst(sd->argv[i], dir, arg, sizeof(arg)) == -1)
			continue;
		if ((colon = strchr(arg, ':')) != NULL)
			*colon = '\0';
		if (probe_path_trusted(arg, why, whylen) == -1)
			return -1;
	}
	return 0;
}

/*
 * The programs of the probe directory sd names (not a path list such as
 * a class path) are there: 0, or -1 with "DIR/probe.php not found".
 */
static int
probe_programs_there(const struct stack_def *sd, const char *dir,
    char *why, size_t whylen)
{
	char	arg[PROBE_ARG_MAX];
	size_t	i;

	for (i = 1; i < STACK_ARGV_MAX && sd->argv[i] != NULL; i++) {
		if (strncmp(sd->argv[i], "{dir}/", 6) != 0 ||
		    probe_subst(sd->argv[i], dir, arg, sizeof(arg)) == -1 ||
		    strchr(arg, ':') != NULL)
			continue;
		if (access(arg, R_OK) == -1) {
			snprintf(why, whylen, "%s not found", arg);
			return -1;
		}
	}
	return 0;
}

int
probe_resolve(const struct stack_def *sd, const char *dir, char *path,
    size_t pathlen, char *why, size_t whylen)
{
	char		 arg[PROBE_ARG_MAX];
	const char	*env, *p, *e;
	size_t		 n;

	if (sd->argv[0] == NULL || probe_subst(sd->argv[0], dir, arg,
	    sizeof(arg)) == -1) {
		snprintf(why, whylen, "no probe command");
		return -1;
	}
	if (probe_dir_trusted(sd, dir, why, whylen) == -1)
		return -2;
	if (strchr(arg, '/') != NULL) {
		if (!probe_executable(arg)) {
			snprintf(why, whylen, "%s not found", arg);
			return -1;
		}
		snprintf(path, pathlen, "%s", arg);
		return probe_programs_there(sd, dir, why, whylen);
	}
	if ((env = getenv("PATH")) == NULL || *env == '\0')
		env = "/usr/local/bin:/usr/bin:/bin";
	for (p = env; ; p = e + 1) {
		if ((e = strchr(p, ':')) == NULL)
			e = p + strlen(p);
		n = (size_t)(e - p);
		/* An empty entry would be ".": never a runtime from there. */
		if (n == 0 || p[0] != '/')
			goto next;
		if ((size_t)snprintf(path, pathlen, "%.*s/%s", (int)n, p,
		    arg) < pathlen && probe_executable(path))
			return probe_programs_there(sd, dir, why, whylen);
next:
		if (*e == '\0')
			break;
	}
	snprintf(why, whylen, "%s not found", arg);
	return -1;
}

/*
 * A /proc stat file's state and process group (after "pid (comm) ":
 * comm may hold spaces and parentheses): 0, or -1 when unreadable.
 */
static int
probe_stat(const char *path, char *state, long *pgrp)
{
	char	 line[512], *s;
	FILE	*fp;
	int	 rc = -1;

	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(line, sizeof(line), fp) != NULL &&
	    (s = strrchr(line, ')')) != NULL &&
	    sscanf(s + 1, " %c %*d %ld", state, pgrp) == 2)
		rc = 0;
	fclose(fp);
	return rc;
}

/*
 * The resident memory of process group pgid, in KiB: VmRSS summed over
 * its members (a runtime's launcher may leave the hashing to a child).
 */
static uint64_t
probe_group_rss(pid_t pgid)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64], line[512], st;
	FILE		*fp;
	uint64_t	 total = 0;
	unsigned long	 kib;
	long		 pid, grp;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if (probe_stat(path, &st, &grp) == -1 || grp != (long)pgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		while (fgets(line, sizeof(line), fp) != NULL)
			if (sscanf(line, "VmRSS: %lu", &kib) == 1) {
				total += kib;
				break;
			}
		fclose(fp);
	}
	closedir(d);
	return total;
}

/* The child, after fork(): never returns. */
static void __attribute__((noreturn))
probe_child(const char *path, char *const argv[], int out, int err,
    pid_t parent)
{
	sigset_t	all;
	int		nul;

	setpgid(0, 0);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(126);		/* the parent died before the prctl */
	/* The pipes above 2 first, so no dup2 below lands on itself. */
	if ((out = fcntl(out, F_DUPFD, 3)) == -1 ||
	    (err = fcntl(err, F_DUPFD, 3)) == -1 ||
	    (nul = open("/dev/null", O_RDONLY)) == -1 ||
	    dup2(nul, STDIN_FILENO) == -1 || dup2(out, STDOUT_FILENO) == -1 ||
	    dup2(err, STDERR_FILENO) == -1)
		_exit(126);
	measure_close_from(STDERR_FILENO + 1);
	execv(path, argv);
	/* Nothing that may allocate: another thread may hold malloc's lock. */
	if (write(STDERR_FILENO, "cannot run ", 11) == 11 &&
	    write(STDERR_FILENO, path, strlen(path)) > 0)
		(void)!write(STDERR_FILENO, ": exec failed\n", 14);
	_exit(127);
}

/*
 * s made safe to log and to answer with, in place: control characters
 * (C0, DEL, C1) and bytes that are not well-formed UTF-8 (a character cut
 * by a bound among them) become '?'.
 */
void
probe_clean(char *s)
{
	unsigned char	*u = (unsigned char *)s;
	size_t		 i = 0, n, k;
	unsigned char	 lo, hi;

	while (u[i] != '\0') {
		if (u[i] < 0x80) {
			if (u[i] < 0x20 || u[i] == 0x7f)
				u[i] = '?';
			i++;
			continue;
		}
		lo = 0x80, hi = 0xbf;
		if (u[i] >= 0xc2 && u[i] <= 0xdf)
			n = 2;
		else if (u[i] >= 0xe0 && u[i] <= 0xef) {
			n = 3;
			if (u[i] == 0xe0)
				lo = 0xa0;
			if (u[i] == 0xed)
				hi = 0x9f;
		} else if (u[i] >= 0xf0 && u[i] <= 0xf4) {
			n = 4;
			if (u[i] == 0xf0)
				lo = 0x90;
			if (u[i] == 0xf4)
				hi = 0x8f;
		} else
			n = 0;
		for (k = 1; n > 0 && k < n; k++)
			if (u[i + k] < (k == 1 ? lo : 0x80) ||
			    u[i + k] > (k == 1 ? hi : 0xbf))
				n = 0;
		/* C1 controls (U+0080 to U+009F): a terminal's CSI among them. */
		if (n == 2 && u[i] == 0xc2 && u[i + 1] <= 0x9f)
			n = 0, u[i + 1] = '?';
		if (n == 0) {
			u[i++] = '?';
			continue;
		}
		i += n;
	}
}

/* Fill r->why (and status). */
static void
probe_why(struct probe_result *r, enum probe_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
probe_why(struct probe_result *r, enum probe_status st, const char *fmt, ...)
{
	va_list	ap;

	r->status = st;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);	probe_clean(r->why);
}

void
probe_memory_why(char *buf, size_t len, uint64_t rss_kib, uint64_t limit_kib,
    uint64_t budget)
{
	/* Up and down to MiB: "48 MiB > 48 MiB" would say nothing. */
	unsigned long long	used = (rss_kib + 1023) >> 10;
	unsigned long long	limit = limit_kib >> 10, hash = budget >> 20;

	snprintf(buf, len, "used more memory than the budget (%llu MiB > "
	    "%llu MiB: the hash's %llu MiB and %llu MiB for the runtime)",
	    used, limit, hash, limit > hash ? limit - hash : 0);
}

/* An unsigned integer member of o equal to want. */
static int
probe_uint_is(json_t *o, const char *key, json_int_t want)
{
	json_t	*v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) == want;
}

/* The first 80 bytes of line, printable. */
static void
probe_garbage(struct probe_result *r, const char *line)
{
	char	show[81];
	size_t	i;

	for (i = 0; i < 80 && line[i] != '\0'; i++)
		show[i] = isprint((unsigned char)line[i]) ? line[i] : '?';
	show[i] = '\0';
	probe_why(r, PROBE_GARBAGE, "printed garbage: %s", show);
}

/*
 * The header's "object" and "object_id" into r, both or neither: a path
 * of printable characters under PROBE_OBJECT_MAX (shown in a note), and
 * "DEV INODE" exactly as a map prints them ("%02x:%02x %lu").
 */
static void
probe_object(json_t *o, struct probe_result *r)
{
	const char	*path, *id, *c;
	char		 canon[64];
	unsigned	 maj, min;
	unsigned long long ino;
	int		 used = -1;

	r->object[0] = r->object_id[0] = '\0';
	if (!json_is_string(json_object_get(o, "object")) ||
	    !json_is_string(json_object_get(o, "object_id")))
		return;
	path = json_string_value(json_object_get(o, "object"));
	id = json_string_value(json_object_get(o, "object_id"));
	if (path[0] != '/' || strlen(path) >= sizeof(r->object) ||
	    strlen(id) >= sizeof(r->object_id))
		return;
	for (c = path; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return;
	if (sscanf(id, "%x:%x %llu%n", &maj, &min, &ino, &used) != 3 ||
	    used != (int)strlen(id) || ino == 0)
		return;
	/* Printed back the same, or it is not one (" fe:01", "0fe:01"). */
	snprintf(canon, sizeof(canon), "%02x:%02x %llu", maj, min, ino);
	if (strcmp(canon, id) != 0)
		return;
	snprintf(r->object, sizeof(r->object), "%s", path);
	snprintf(r->object_id, sizeof(r->object_id), "%s", id);
}

/*
 * One line of the probe's output. Returns 0, or -1 with r's status set
 * (garbage) when it is not what the protocol has next.
 */
static int
probe_line(struct probe_result *r, const char *line, int *header,
    char *error_line, size_t errlen)
{
	struct probe_point_result	*pr;
	json_t				*o, *v, *a;
	json_error_t			 je;
	size_t				 i, n;
	double				 ms;

	for (i = 0; isspace((unsigned char)line[i]); i++)
		;
	if (line[i] == '\0')
		return 0;
	line += i;
	if ((o = json_loads(line, JSON_REJECT_DUPLICATES, &je)) == NULL ||
	    !json_is_object(o))
		goto garbage;
	/*
	 * Exit 3 comes after one line that says why, instead of the header;
	 * exit 1 (a hash failed) after one too, at any point.
	 */
	if (json_is_string(v = json_object_get(o, "error"))) {
		snprintf(error_line, errlen, "%s", json_string_value(v));
		json_decref(o);
		return 0;
	}
	if (!*header) {
		if (!json_is_string(json_object_get(o, "probe")) ||
		    !json_is_string(v = json_object_get(o, "runtime")))
			goto garbage;
		snprintf(r->runtime, sizeof(r->runtime), "%s",
		    json_string_value(v));
		if (json_is_string(v = json_object_get(o, "library")))
			snprintf(r->library, sizeof(r->library), "%s",
			    json_string_value(v));
		probe_object(o, r);
		*header = 1;
		json_decref(o);
		return 0;
	}
	if (r->npoints >= r->nasked)
		goto garbage;
	pr = &r->points[r->npoints];
	if (!probe_uint_is(o, "m_kib", pr->pt.m_kib) ||
	    !probe_uint_is(o, "t", pr->pt.t) ||
	    !probe_uint_is(o, "p", pr->pt.p) ||
	    !json_is_array(a = json_object_get(o, "samples_ms")) ||
	    (n = json_array_size(a)) != pr->pt.n)
		goto garbage;
	for (i = 0; i < n; i++) {
		v = json_array_get(a, i);
		if (!json_is_number(v))
			goto garbage;
		ms = json_number_value(v);
		if (!isfinite(ms) || !(ms > 0) || ms > TUNE_TARGET_MAX_MS)
			goto garbage;
		if (pr->nsamples < PROBE_SAMPLES_MAX)
			pr->samples[pr->nsamples++] = ms;
	}
	{
		struct stats	st;

		stats_compute(pr->samples, pr->nsamples, &st);
		pr->median_ms = st.median;
		pr->p95_ms = st.p95;
	}
	r->npoints++;
	json_decref(o);
	return 0;
garbage:
	json_decref(o);
	probe_garbage(r, line);
	return -1;
}

/*
 * Read what io->fd has (non-blocking). Returns 1 at end of file, 0
 * otherwise.
 */
static int
probe_read(struct probe_io *io)
{
	char	buf[4096];
	ssize_t	n;

	for (;;) {
		n = read(io->fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return 0;	/* EAGAIN: nothing more now */
		if (n == 0)
			return 1;
		/* Past the longest line the caller looks at: dropped. */
		if (io->len + (size_t)n > PROBE_LINE_MAX + 1)
			n = (ssize_t)(PROBE_LINE_MAX + 1 - io->len);
		memcpy(io->buf + io->len, buf, (size_t)n);
		io->len += (size_t)n;
		io->buf[io->len] = '\0';
		if (io->len > PROBE_LINE_MAX)
			return 0;
	}
}

/* The complete lines of io to probe_line; -1 on garbage. */
static int
probe_lines(struct probe_result *r, struct probe_io *io, int *header,
    char *error_line, size_t errlen, int eof)
{
	char	*nl;
	size_t	 used;

	while ((nl = memchr(io->buf, '\n', io->len)) != NULL) {
		*nl = '\0';
		if (probe_line(r, io->buf, header, error_line, errlen) == -1)
			return -1;
		used = (size_t)(nl + 1 - io->buf);
		memmove(io->buf, nl + 1, io->len - used);
		io->len -= used;
		io->buf[io->len] = '\0';
	}
	if (io->len > PROBE_LINE_MAX) {
		probe_garbage(r, io->buf);
		return -1;
	}
	/* A last line without its newline. */
	if (eof && io->len > 0) {
		if (probe_line(r, io->buf, header, error_line, errlen) == -1)
			return -1;
		io->len = 0;
		io->buf[0] = '\0';
	}
	return 0;
}

int
probe_runnable(pid_t pid)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[96], st;
	long		 grp;
	int		 n = 0;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/stat",
		    (long)pid, de->d_name);
		if (probe_stat(path, &st, &grp) == 0 && st == 'R')
			n++;
	}
	closedir(d);
	return n;
}

/* probe.h */
uint64_t
probe_rss_allowance(const struct stack_def *sd)
{
	return sd != NULL && sd->rss_mib > 0 ? (uint64_t)sd->rss_mib << 20 :
	    PROBE_RSS_ALLOWANCE;
}

/* Untimed hashes before each point: the stack's own count, else opts'. */
static unsigned
probe_warmup(const struct stack_def *sd, const struct probe_opts *o)
{
	return sd->warmup > 0 ? sd->warmup : o->warmup;
}

/* The deadline: predicted work x 4 + the runtime's start, capped. */
static double
probe_deadline(const struct stack_def *sd, const struct stack_probe_point
    *pts, size_t n, const struct probe_opts *o)
{
	double	max = o->timeout_max > 0 ? o->timeout_max : PROBE_TIMEOUT_MAX;
	double	sum = 0, ms;
	size_t	i;

	if (o->timeout > 0)
		return o->timeout < max ? o->timeout : max;
	if (o->model == NULL)
		return max;
	for (i = 0; i < n; i++) {
		/* Its warm-ups hash two passes at most. */
		uint32_t	wt = pts[i].t < STACK_PROBE_WARMUP_T ? pts[i].t :
				    STACK_PROBE_WARMUP_T;
		double		warm;

		if (stack_predict(o->model, sd->name, KDF_ALG_ARGON2ID,
		    pts[i].m_kib, pts[i].t, pts[i].p, 1, 50, &ms) == -1 ||
		    stack_predict(o->model, sd->name, KDF_ALG_ARGON2ID,
		    pts[i].m_kib, wt, pts[i].p, 1, 50, &warm) == -1)
			return max;
		if (ms < 0)
			ms = 0;
		if (warm < 0)
			warm = 0;
		sum += ms * pts[i].n + warm * probe_warmup(sd, o);
	}
	sum = sum * 4 / 1000 + PROBE_START_S;
	return sum < max ? sum : max;
}

int
probe_run(const struct stack_def *sd, const char *dir,
    const struct stack_probe_point *pts, size_t n,
    const struct probe_opts *o, struct probe_result *r)
{
	char		 path[PROBE_ARG_MAX], args[STACK_ARGV_MAX +
			    PROBE_POINTS_MAX + 1][PROBE_ARG_MAX];
	char		*argv[STACK_ARGV_MAX + PROBE_POINTS_MAX + 2];
	char		 error_line[200], err_first[200];
	struct probe_io	 out = { NULL, 0, -1 }, errio = { NULL, 0, -1 };
	struct pollfd	 pfd[2];
	struct rusage	 ru;
	siginfo_t	 si;
	uint64_t	 limit_kib = 0, rss;
	double		 t0, deadline, next_rss = 0;
	size_t		 i, na = 0;
	pid_t		 parent = getpid();
	int		 po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	int		 header = 0, out_eof = 0, err_eof = 0, killed = 0;
	int		 status = 0, rc = -1, res;

	memset(r, 0, sizeof(*r));
	error_line[0] = err_first[0] = '\0';
	t0 = measure_now();

	if ((res = probe_resolve(sd, dir, path, sizeof(path), r->why + 15,
	    sizeof(r->why) - 15)) != 0) {
		/* Refused (not ours to run) is not "not installed". */
		if (res == -2)
			memmove(r->why, r->why + 15, strlen(r->why + 15) + 1);
		else
			memcpy(r->why, "not installed: ", 15);
		probe_clean(r->why);
		r->status = res == -2 ? PROBE_FAILED : PROBE_NOT_INSTALLED;
		return -1;
	}
	/* The arguments (probe_resolve found its programs there). */
	for (i = 0; i < STACK_ARGV_MAX && sd->argv[i] != NULL; i++) {
		if (probe_subst(sd->argv[i], dir, args[i], PROBE_ARG_MAX) ==
		    -1) {
			probe_why(r, PROBE_FAILED, "argument %zu too long", i);
			return -1;
		}
		argv[i] = args[i];
	}
	argv[0] = path;
	/* Points over the budget are refused before anything runs. */
	for (na = 0; na < n && r->nasked < PROBE_POINTS_MAX; na++) {
		if (o->mem_budget > 0 && (uint64_t)pts[na].m_kib *
		    pts[na].p * 1024 > o->mem_budget)
			continue;
		if (pts[na].n == 0)
			continue;
		r->points[r->nasked++].pt = pts[na];
	}
	if (r->nasked == 0) {
		probe_why(r, PROBE_SKIPPED, "every point is over the memory "
		    "budget of %llu MiB", (unsigned long long)(o->mem_budget >>
		    20));
		return -1;
	}
	snprintf(args[i], PROBE_ARG_MAX, "%u", probe_warmup(sd, o));
	argv[i] = args[i];
	i++;
	for (na = 0; na < r->nasked; na++, i++) {
		const struct stack_probe_point	*p = &r->points[na].pt;

		snprintf(args[i], PROBE_ARG_MAX, "%u:%u:%u:%u",
		    (unsigned)p->m_kib, (unsigned)p->t, (unsigned)p->p,
		    (unsigned)p->n);
		argv[i] = args[i];
	}
	argv[i] = NULL;
	{
		struct stack_probe_point	asked[PROBE_POINTS_MAX];

		for (na = 0; na < r->nasked; na++)
			asked[na] = r->points[na].pt;
		r->deadline_s = probe_deadline(sd, asked, r->nasked, o);
	}
	if (o->mem_budget > 0) {
		uint64_t	allow = o->rss_allowance > 0 ?
		    o->rss_allowance : probe_rss_allowance(sd);

		if (o->rss_allowance_max > 0 && allow > o->rss_allowance_max)
			allow = o->rss_allowance_max;
		limit_kib = (o->mem_budget + allow) >> 10;
	}

	if ((out.buf = malloc(PROBE_LINE_MAX + 2)) == NULL ||
	    (errio.buf = malloc(PROBE_LINE_MAX + 2)) == NULL) {
		probe_why(r, PROBE_FAILED, "out of memory");
		goto done;
	}
	out.buf[0] = errio.buf[0] = '\0';
	if (pipe2(po, O_CLOEXEC) == -1 || pipe2(pe, O_CLOEXEC) == -1) {
		probe_why(r, PROBE_FAILED, "pipe: %s", strerror(errno));
		goto done;
	}
	fflush(NULL);
	if ((r->pid = fork()) == -1) {
		r->pid = 0;
		probe_why(r, PROBE_FAILED, "fork: %s", strerror(errno));
		goto done;
	}
	if (r->pid == 0)
		probe_child(path, argv, po[1], pe[1], parent);
	setpgid(r->pid, r->pid);	/* as the child does: no race */
	if (o->child != NULL)
		*o->child = r->pid;
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	out.fd = po[0];
	errio.fd = pe[0];
	fcntl(out.fd, F_SETFL, O_NONBLOCK);
	fcntl(errio.fd, F_SETFL, O_NONBLOCK);
	deadline = t0 + r->deadline_s;

	for (;;) {
		if (o->cancel != NULL && *o->cancel) {
			probe_why(r, PROBE_CANCELLED, "cancelled");
			killed = 1;
			break;
		}
		if (measure_now() >= deadline) {
			probe_why(r, PROBE_TIMEOUT, "timed out after %.0f s",
			    r->deadline_s);
			killed = 1;
			break;
		}
		if (measure_now() >= next_rss) {
			rss = probe_group_rss(r->pid);
			if (rss > r->peak_rss_kib)
				r->peak_rss_kib = rss;
			if (limit_kib > 0 && rss > limit_kib) {
				r->status = PROBE_MEMORY;
				probe_memory_why(r->why, sizeof(r->why), rss,
				    limit_kib, o->mem_budget);
				killed = 1;
				break;
			}
			next_rss = measure_now() + PROBE_RSS_POLL_MS / 1000.0;
		}
		pfd[0].fd = out_eof ? -1 : out.fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = err_eof ? -1 : errio.fd;
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		if (poll(pfd, 2, PROBE_RSS_POLL_MS) == -1 && errno != EINTR) {
			probe_why(r, PROBE_FAILED, "poll: %s", strerror(errno));
			killed = 1;
			break;
		}
		/* The leader gone: what it wrote is in the pipes. */
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG |
		    WNOWAIT) == 0 && si.si_pid == r->pid)
			pfd[0].revents = pfd[1].revents = POLLIN;
		if (!out_eof && pfd[0].revents != 0)
			out_eof = probe_read(&out);
		if (!err_eof && pfd[1].revents != 0) {
			err_eof = probe_read(&errio);
			/* The first line is kept; the rest drained. */
			if (err_first[0] == '\0' && (memchr(errio.buf, '\n',
			    errio.len) != NULL || err_eof || errio.len >
			    sizeof(err_first))) {
				snprintf(err_first, sizeof(err_first), "%.*s",
				    (int)strcspn(errio.buf, "\n"), errio.buf);
				if (err_first[0] == '\0')
					snprintf(err_first, sizeof(err_first),
					    " ");
			}
			if (err_first[0] != '\0')
				errio.len = 0;
		}
		if (probe_lines(r, &out, &header, error_line,
		    sizeof(error_line), out_eof) == -1) {
			killed = 1;
			break;
		}
		/* Both pipes closed, it is going: the deadline bounds it. */
		if (si.si_pid == r->pid)
			break;
	}
	/*
	 * Whatever of its group is left goes with it (the leader, reaped
	 * only below, keeps the group's id from being reused).
	 */
	kill(-r->pid, SIGKILL);
	if (o->child != NULL)
		*o->child = 0;	/* before the pid can be reused */
	memset(&ru, 0, sizeof(ru));
	while (wait4(r->pid, &status, 0, &ru) == -1 && errno == EINTR)
		;
	if ((uint64_t)ru.ru_maxrss > r->peak_rss_kib)
		r->peak_rss_kib = (uint64_t)ru.ru_maxrss;
	if (killed)
		goto done;
	if (WIFSIGNALED(status)) {
		probe_why(r, PROBE_CRASHED, "crashed: signal %d (%s)",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
		goto done;
	}
	/* Exit 3 before the header: the runtime lacks the library. */
	if (WEXITSTATUS(status) == 3 && !header && error_line[0] != '\0') {
		probe_why(r, PROBE_NOT_INSTALLED, "not installed: %s",
		    error_line);
		goto done;
	}
	if (WEXITSTATUS(status) != 0) {
		probe_why(r, PROBE_EXIT, "exit %d: %s", WEXITSTATUS(status),
		    error_line[0] ? error_line : err_first[0] &&
		    err_first[0] != ' ' ? err_first : "(it said nothing)");
		goto done;
	}
	if (!header || r->npoints < r->nasked) {
		probe_why(r, PROBE_SHORT, "exited after %zu of %zu points%s%s",
		    r->npoints, r->nasked, err_first[0] > ' ' ? ": " : "",
		    err_first[0] > ' ' ? err_first : "");
		goto done;
	}
	r->status = PROBE_OK;
	r->why[0] = '\0';
	rc = 0;
done:
	if (po[0] != -1)
		close(po[0]);
	if (po[1] != -1)
		close(po[1]);
	if (pe[0] != -1)
		close(pe[0]);
	if (pe[1] != -1)
		close(pe[1]);
	free(out.buf);
	free(errio.buf);
	r->seconds = measure_now() - t0;
	return rc;
}

void
probe_default_dir(const char *build_dir, char *buf, size_t len)
{
	struct stat	 sb;
	char		 exe[PATH_MAX], *slash;
	ssize_t		 n;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0) {
		snprintf(buf, len, "/usr/share/pwtune/probes");
		return;
	}
	exe[n] = '\0';
	/*
	 * The build tree's probes only for a program run from that build
	 * tree (build_dir is BUILD/probes): an installed one never runs
	 * what a build directory left behind holds.
	 */
	if (build_dir != NULL && (slash = strrchr(build_dir, '/')) != NULL &&
	    strncmp(exe, build_dir, (size_t)(slash - build_dir) + 1) == 0 &&
	    stat(build_dir, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		snprintf(buf, len, "%s", build_dir);
		return;
	}
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';		/* .../sbin */
	snprintf(buf, len, "%s/../share/pwtune/probes", exe);
}

/* probe.h */
const char *
probe_shares(const struct stack_def *sd, const struct probe_result *r)
{
	if (sd == NULL || r == NULL || r->object[0] == '\0' ||
	    !kdf_library_is(sd->base, r->object_id))
		return "";
	return r->object;
}
