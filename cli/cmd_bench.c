/*
 * cli/cmd_bench.c: `pwtune bench`: measure a profile, a preset or a grid
 * on this host, print a table per backend and save the results as JSON.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "db.h"
#include "model.h"
#include "presets.h"
#include "profile.h"
#include "units.h"

#define LIST_MAX	32

struct bench_opts {
	const char		*profile;
	const char		*preset;
	uint64_t		 m[LIST_MAX];	/* KiB */
	uint32_t		 t[LIST_MAX], p[LIST_MAX], k[LIST_MAX];
	size_t			 nm, nt, np, nk;
	enum kdf_backend	 backends[3];
	size_t			 nb;
	enum kdf_alg		 variant;
	int			 has_variant;	/* --variant given */
	enum kdf_backend	 baseline;
	int			 has_baseline;
	uint32_t		 repeats;
	uint64_t		 memory_max;	/* bytes; 0: none */
	const char		*json;
	int			 no_json;
	const char		*csv;
	const char		*db;
	const char		*show;
	int			 markdown;
	int			 quiet;
};

static volatile int	bench_cancel;

static void
bench_on_signal(int sig)
{
	(void)sig;
	bench_cancel = 1;
}

static void
bench_usage(FILE *fp)
{
	fputs(
"Usage: pwtune bench [--profile quick|full | --preset NAME | grid options]\n"
"                    [--backend libsodium,libargon2] [--repeats N]\n"
"                    [--memory-max SIZE] [--json FILE | --no-json]\n"
"                    [--csv FILE] [--db STORE] [--markdown] [--baseline B] [-q]\n"
"       pwtune bench --show FILE [--markdown] [--baseline B]\n"
"Measures Argon2 on this host, each point in child processes, and prints\n"
"one table, the backends of each point row by row, Ratio against the\n"
"baseline's Mean, noisy points as warnings under it. Without options: the\n"
"quick profile.\n"
"  --profile P        quick (about 20 s) or full (the seed grid: m = 32 MiB\n"
"                     .. 1 GiB x t = 1, 3, 6 x p = 1 and the cores)\n"
"  --preset NAME      a known parameter set (pwtune bench --list-presets)\n"
"  --m LIST           memory sizes: 64MiB,256MiB,1GiB or KiB as integers\n"
"                     (--memory LIST is the same)\n"
"  -m LIST            memory as log2 of KiB, as in argon2: 16,18 is\n"
"                     64 MiB and 256 MiB\n"
"  --t LIST           passes (default 3)\n"
"  --p LIST           lanes (default 1)\n"
"  --concurrency LIST hashes at once (default 1; -k is KiB elsewhere in\n"
"                     pwtune and not taken here)\n"
"  --variant V        a grid's: argon2id (default), argon2i or argon2d\n"
"  --backend LIST     libsodium, libargon2 (default: both)\n"
"  --baseline B       the backend Ratio compares with (default libsodium)\n"
"  --repeats N        exactly N measured rounds per point (N x k hashes),\n"
"                     after one warm-up round (two for libargon2 under\n"
"                     32 MiB: its second hash extends the heap)\n"
"  --memory-max SIZE  cap the memory budget (default: half of MemAvailable\n"
"                     or of the cgroup limit left); points over it are\n"
"                     skipped and listed with the reason\n"
"  --json FILE        where to write the results (default\n"
"                     bench_<UTC time>.json); --no-json writes none\n"
"  --csv FILE         also write one CSV row per point\n"
"  --db STORE         also store the run in STORE (an SQLite file or a\n"
"                     postgresql:// URI), point by point as each finishes\n"
"  --markdown         print the table as GitHub markdown\n"
"  --show FILE        print the table of a run saved with --json (or\n"
"                     pwtune db export), measuring nothing\n"
"  -q, --quiet        no progress bar\n"
"The JSON and CSV files and the memory budget are checked before the first\n"
"hash. Exit status: 0 measured (points skipped or failed are listed),\n"
"2 bad usage or a budget under the smallest point, 3 a file or store that\n"
"cannot be written or opened, not enough memory, or interrupted.\n", fp);
}

/*
 * Split a comma-separated list and hand each element to one(); at most
 * LIST_MAX elements, at least one. Returns 0, or -1 on the first bad one.
 */
static int
bench_parse_list(const char *s, size_t *n,
    int (*one)(const char *tok, size_t i, void *ctx), void *ctx)
{
	char	*copy, *tok, *save = NULL;
	int	 rc = 0;

	*n = 0;
	if ((copy = strdup(s)) == NULL)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (*n == LIST_MAX || one(tok, *n, ctx) == -1) {
			rc = -1;
			break;
		}
		(*n)++;
	}
	free(copy);
	return rc == 0 && *n > 0 ? 0 : -1;
}

struct u32_range {
	uint32_t	 min, max;
	uint32_t	*out;
};

static int
bench_one_u32(const char *tok, size_t i, void *ctx)
{
	struct u32_range	*r = ctx;

	return cli_parse_u32(tok, r->min, r->max, &r->out[i]);
}

static int
bench_one_size(const char *tok, size_t i, void *ctx)
{
	return units_parse_kib(tok, KDF_ARGON2_M_MAX, &((uint64_t *)ctx)[i]);
}

/* -m: 2^N KiB, as in the reference argon2 command. */
static int
bench_one_log2(const char *tok, size_t i, void *ctx)
{
	uint32_t	n;

	if (cli_parse_u32(tok, 3, 32, &n) == -1)
		return -1;
	((uint64_t *)ctx)[i] = n == 32 ? KDF_ARGON2_M_MAX : (uint64_t)1 << n;
	return 0;
}

static int
bench_one_backend(const char *tok, size_t i, void *ctx)
{
	enum kdf_backend	*b = &((enum kdf_backend *)ctx)[i];

	if (i >= 3 || kdf_backend_parse(tok, b) == -1 ||
	    *b == KDF_BACKEND_AUTO)
		return -1;
	return 0;
}

static int
bench_parse_u32_list(const char *s, uint32_t min, uint32_t max,
    uint32_t *out, size_t *n)
{
	struct u32_range	r = { min, max, out };

	return bench_parse_list(s, n, bench_one_u32, &r);
}

static void
bench_list_presets(void)
{
	const struct preset	*p;
	size_t			 n, i;
	char			 m[32];

	p = preset_list(&n);
	printf("%-22s %-9s %10s %3s %3s  %s\n", "Preset", "Variant", "m", "t",
	    "p", "Source");
	for (i = 0; i < n; i++) {
		if (p[i].alg == KDF_ALG_BCRYPT) {
			printf("%-22s %-9s %10s %3s %3s  %s (cost %u)\n",
			    p[i].name, "bcrypt", "-", "-", "-", p[i].source,
			    (unsigned)p[i].cost);
			continue;
		}
		units_format_kib(p[i].m_kib, m, sizeof(m));
		printf("%-22s %-9s %10s %3u %3u  %s\n", p[i].name,
		    kdf_alg_name(p[i].alg), m, (unsigned)p[i].t,
		    (unsigned)p[i].p, p[i].source);
	}
}

#define BENCH	"bench"

/* Returns 0, 1 for an early exit with status 0, or -1 after saying why. */
static int
bench_parse(int argc, char **argv, struct bench_opts *o)
{
	const char	*a, *v, *eq;
	char		 allowed[160], name[64];
	int		 i;

	memset(o, 0, sizeof(*o));
	o->variant = KDF_ALG_ARGON2ID;
	for (i = 1; i < argc; i++) {
		a = cli_opt(argv[i], name, sizeof(name), &eq);
		v = eq != NULL ? eq : i + 1 < argc ? argv[i + 1] : NULL;
		if (cli_is_help(a) && cli_no_value(BENCH, a, eq) == -1)
			return -1;
		if (cli_is_help(a)) {
			bench_usage(stdout);
			return 1;
		}
		if ((strcmp(a, "--list-presets") == 0 ||
		    strcmp(a, "--markdown") == 0 ||
		    strcmp(a, "--no-json") == 0 ||
		    strcmp(a, "--quiet") == 0) &&
		    cli_no_value(BENCH, a, eq) == -1)
			return -1;
		if (strcmp(a, "--list-presets") == 0) {
			bench_list_presets();
			return 1;
		}
		if (strcmp(a, "--markdown") == 0) {
			o->markdown = 1;
			continue;
		}
		if (strcmp(a, "--no-json") == 0) {
			o->no_json = 1;
			continue;
		}
		if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			o->quiet = 1;
			continue;
		}
		if (strcmp(a, "-k") == 0)
			return cli_usage_error(BENCH, "-k is the memory in KiB "
			    "in pwtune (as in argon2), not taken here: for "
			    "hashes at once use --concurrency");
		if (eq == NULL)
			i++;	/* the value's own argument */
		if (strcmp(a, "--profile") == 0) {
			enum profile_kind kind;

			if (v == NULL || profile_parse(v, &kind) == -1)
				return cli_bad_value(BENCH, a, v,
				    "quick or full");
			o->profile = v;
		} else if (strcmp(a, "--preset") == 0) {
			if (v == NULL || preset_find(v) == NULL)
				return cli_bad_value(BENCH, a, v, "a preset "
				    "that pwtune bench --list-presets lists");
			o->preset = v;
		} else if (strcmp(a, "--m") == 0 ||
		    strcmp(a, "--memory") == 0) {
			if (v == NULL || bench_parse_list(v, &o->nm,
			    bench_one_size, o->m) == -1)
				return cli_bad_value(BENCH, a, v, "a list of "
				    "sizes such as 64MiB,1GiB (a bare number "
				    "is KiB), from 1 KiB to just under 4 TiB");
			cli_kib_note(BENCH, a, v);
		} else if (strcmp(a, "-m") == 0) {
			if (v == NULL || bench_parse_list(v, &o->nm,
			    bench_one_log2, o->m) == -1)
				return cli_bad_value(BENCH, a, v, "a list of "
				    "whole numbers from 3 to 32 (log2 of KiB: "
				    "16,18 is 64 MiB and 256 MiB; for sizes "
				    "use --m 64MiB,256MiB)");
		} else if (strcmp(a, "--t") == 0 || strcmp(a, "-t") == 0) {
			if (v == NULL || bench_parse_u32_list(v, 1, 1000,
			    o->t, &o->nt) == -1)
				return cli_bad_value(BENCH, a, v, "a list of "
				    "whole numbers from 1 to 1000 (passes)");
		} else if (strcmp(a, "--p") == 0 || strcmp(a, "-p") == 0) {
			if (v == NULL || bench_parse_u32_list(v, 1, 255,
			    o->p, &o->np) == -1)
				return cli_bad_value(BENCH, a, v, "a list of "
				    "whole numbers from 1 to 255 (lanes)");
		} else if (strcmp(a, "--concurrency") == 0) {
			snprintf(allowed, sizeof(allowed), "a list of whole "
			    "numbers from 1 to %d (hashes at once)",
			    MEASURE_K_MAX);
			if (v == NULL || bench_parse_u32_list(v, 1,
			    MEASURE_K_MAX, o->k, &o->nk) == -1)
				return cli_bad_value(BENCH, a, v, allowed);
		} else if (strcmp(a, "--variant") == 0) {
			if (v == NULL || kdf_alg_parse(v, &o->variant) == -1 ||
			    !kdf_alg_is_argon2(o->variant))
				return cli_bad_value(BENCH, a, v,
				    "argon2id, argon2i or argon2d");
			o->has_variant = 1;
		} else if (strcmp(a, "--backend") == 0) {
			if (v == NULL || bench_parse_list(v, &o->nb,
			    bench_one_backend, o->backends) == -1)
				return cli_bad_value(BENCH, a, v, "libsodium, "
				    "libargon2 or both (libsodium,libargon2)");
		} else if (strcmp(a, "--baseline") == 0) {
			if (v == NULL || kdf_backend_parse(v, &o->baseline) ==
			    -1 || o->baseline == KDF_BACKEND_AUTO)
				return cli_bad_value(BENCH, a, v,
				    "libsodium, libargon2 or libcrypt");
			o->has_baseline = 1;
		} else if (strcmp(a, "--repeats") == 0) {
			if (cli_flag_u32(BENCH, a, v, 1, 1000, "rounds",
			    &o->repeats) == -1)
				return -1;
		} else if (strcmp(a, "--memory-max") == 0) {
			uint64_t kib;

			if (cli_flag_size(BENCH, a, v, UNITS_MEMORY_MAX_KIB,
			    &kib) == -1)
				return -1;
			o->memory_max = kib * 1024;
		} else if (strcmp(a, "--json") == 0) {
			if ((o->json = v) == NULL)
				return cli_bad_value(BENCH, a, v, "a file");
		} else if (strcmp(a, "--csv") == 0) {
			if ((o->csv = v) == NULL)
				return cli_bad_value(BENCH, a, v, "a file");
		} else if (strcmp(a, "--show") == 0) {
			if ((o->show = v) == NULL)
				return cli_bad_value(BENCH, a, v, "a file "
				    "written by pwtune bench --json");
		} else if (strcmp(a, "--db") == 0) {
			if ((o->db = v) == NULL)
				return cli_bad_value(BENCH, a, v, "a store (an "
				    "SQLite file or a postgresql:// URI)");
		} else
			return cli_usage_error(BENCH, "unknown option %.60s",
			    a);
	}
	if ((o->profile != NULL) + (o->preset != NULL) +
	    (o->nm + o->nt + o->np + o->nk > 0) > 1)
		return cli_usage_error(BENCH, "choose one of --profile, "
		    "--preset and a grid (--m, --t, --p, --concurrency)");
	/* A profile's (and the daemon's) points are Argon2id; a preset's
	   its own. */
	if (o->has_variant && o->variant != KDF_ALG_ARGON2ID &&
	    o->nm + o->nt + o->np + o->nk == 0 && o->show == NULL)
		return cli_usage_error(BENCH, "--variant goes with a grid "
		    "(--m, --t): %s", o->preset != NULL ? "a preset has its "
		    "own variant" : "the profiles measure argon2id, as "
		    "pwtuned's runs do");
	if (o->json != NULL && o->no_json)
		return cli_usage_error(BENCH, "--json and --no-json together");
	if (o->show != NULL && (o->profile != NULL || o->preset != NULL ||
	    o->nm + o->nt + o->np + o->nk + o->nb > 0 || o->has_variant ||
	    o->json != NULL ||
	    o->csv != NULL || o->db != NULL || o->repeats > 0 ||
	    o->memory_max > 0))
		return cli_usage_error(BENCH, "--show prints a saved run: "
		    "only --markdown and --baseline go with it");
	return 0;
}

/* The points of a preset or a grid, for every backend asked. */
static int
bench_grid_points(const struct bench_opts *o, struct measure_point **pts,
    size_t *n)
{
	static const enum kdf_backend both[] = { KDF_BACKEND_LIBSODIUM,
	    KDF_BACKEND_LIBARGON2 };
	const enum kdf_backend	*bs = o->nb > 0 ? o->backends : both;
	size_t			 nb = o->nb > 0 ? o->nb : 2;
	static const uint64_t	 m1 = 65536;
	static const uint32_t	 t1 = 3, one = 1;
	const uint64_t		*ms = o->nm ? o->m : &m1;
	const uint32_t		*ts, *ps, *ks;
	size_t			 nm = o->nm ? o->nm : 1, nt, np, nk;
	size_t			 b, i, j, l, q, cap;
	struct kdf_params	 kp;
	const struct preset	*pre;

	ts = o->nt ? o->t : &t1;
	nt = o->nt ? o->nt : 1;
	ps = o->np ? o->p : &one;
	np = o->np ? o->np : 1;
	ks = o->nk ? o->k : &one;
	nk = o->nk ? o->nk : 1;
	cap = nb * nm * nt * np * nk;
	if ((*pts = calloc(cap, sizeof(**pts))) == NULL)
		return -1;
	*n = 0;
	if (o->preset != NULL) {
		pre = preset_find(o->preset);
		preset_params(pre, &kp);
		if (pre->alg == KDF_ALG_BCRYPT) {
			kp.backend = KDF_BACKEND_LIBCRYPT;
			(*pts)[(*n)++] = (struct measure_point){ kp, ks[0] };
			return 0;
		}
		for (b = 0; b < nb; b++) {
			kp.backend = bs[b];
			for (l = 0; l < nk; l++)
				(*pts)[(*n)++] = (struct measure_point){ kp,
				    ks[l] };
		}
		return 0;
	}
	for (b = 0; b < nb; b++)
		for (i = 0; i < nm; i++)
			for (j = 0; j < nt; j++)
				for (q = 0; q < np; q++)
					for (l = 0; l < nk; l++) {
						kdf_params_init(&kp, o->variant);
						kp.backend = bs[b];
						kp.m_kib = (uint32_t)ms[i];
						kp.t = ts[j];
						kp.p = ps[q];
						(*pts)[(*n)++] =
						    (struct measure_point){ kp,
						    ks[l] };
					}
	return 0;
}

/* Where the points go as they finish when --db is given. */
struct bench_store {
	struct db	*db;
	int64_t		 run;
	int		 failed;	/* a write failed: said once */
	char		 err[512];
};

static void
bench_store_point(void *ctx, size_t i, const struct measure_result *r)
{
	struct bench_store	*bs = ctx;

	/* A point a cancel stopped before it ran was not measured. */
	if (bs->db == NULL || bs->failed || r->status == MEASURE_CANCELLED)
		return;
	if (db_run_add_point(bs->db, bs->run, i, r, bs->err,
	    sizeof(bs->err)) != DB_OK) {
		cli_warnx("bench: cannot store point %zu: %s", i + 1, bs->err);
		bs->failed = 1;
	}
}

static void
bench_db_log(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warnx("%s", msg);
}

/* --show FILE: the table of a saved run, nothing measured. */
static int
bench_show(const struct bench_opts *o)
{
	struct report	 rep;
	json_t		*j;
	char		 err[4200];
	size_t		 i;
	int		 rc;

	if ((rc = cli_load_json(o->show, &j, err, sizeof(err))) != 0) {
		cli_warnx("bench: --show %s", err);
		return rc;
	}
	rc = report_from_json(j, &rep, err, sizeof(err));
	json_decref(j);
	if (rc == -1) {
		cli_warnx("bench: --show %s: %s", o->show, err);
		return CLI_EXIT_USAGE;
	}
	rc = o->has_baseline ? (int)o->baseline : -1;
	for (i = 0; rc == -1 && i < rep.n; i++)
		if (rep.results[i].pt.kp.backend == KDF_BACKEND_LIBSODIUM)
			rc = KDF_BACKEND_LIBSODIUM;
	if (rc == -1)
		rc = rep.n > 0 ? (int)kdf_backend_resolve(
		    rep.results[0].pt.kp.backend, rep.results[0].pt.kp.alg) :
		    KDF_BACKEND_LIBSODIUM;
	bench_print(stdout, &rep, (enum kdf_backend)rc, o->markdown);
	report_release(&rep);
	return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_ENV;
}

/*
 * Is an existing path one bench may replace? A regular file it wrote: a
 * pwtune-bench/1 JSON report, or a CSV with its header. Anything else (a
 * user's file named by mistake, a device, a FIFO, a link) is refused and
 * left as it is: -2 with err. 0 when it may be written (or is not there),
 * -1 when it cannot be looked at (errno).
 */
static int
bench_ours(const char *path, int json, char *err, size_t errlen)
{
	struct stat	 sb;
	json_error_t	 jerr;
	json_t		*j;
	char		 line[256];
	FILE		*fp;
	int		 ours = 0;

	if (lstat(path, &sb) == -1)
		return errno == ENOENT ? 0 : -1;
	if (S_ISDIR(sb.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a regular file: "
		    "refused, left as it is", path);
		return -2;
	}
	if (json) {
		if (sb.st_size <= 64 * 1024 * 1024 && (j = json_load_file(path,
		    0, &jerr)) != NULL) {
			ours = json_is_string(json_object_get(j, "schema")) &&
			    strcmp(json_string_value(json_object_get(j,
			    "schema")), "pwtune-bench/1") == 0;
			json_decref(j);
		}
	} else if ((fp = fopen(path, "r")) != NULL) {
		ours = fgets(line, sizeof(line), fp) != NULL &&
		    strcmp(line, BENCH_CSV_HEADER "\n") == 0;
		fclose(fp);
	}
	if (!ours) {
		snprintf(err, errlen, "%s exists and is not a pwtune bench %s "
		    "file: refused, left as it is", path, json ? "JSON" :
		    "CSV");
		return -2;
	}
	return 0;
}

/*
 * Can path be written? Checked before anything is measured, without
 * touching it: an existing file must be bench's own (bench_ours), and its
 * directory writable (the file is written beside it and renamed).
 */
static int
bench_can_write(const char *path, int json, char *err, size_t errlen)
{
	struct stat	sb;
	char		dir[4096], *slash;
	int		rc;

	if (path[0] == '\0') {
		snprintf(err, errlen, "--%s takes a file name, not an empty "
		    "string", json ? "json" : "csv");
		return -2;
	}
	if ((rc = bench_ours(path, json, err, errlen)) == -2)
		return -2;	/* not ours: refused (usage) */
	/*
	 * A file made read-only is kept so (root too): the write is a new
	 * file renamed over it, which its mode would not stop.
	 */
	if (rc == 0 && stat(path, &sb) == 0 && ((sb.st_mode & 0222) == 0 ||
	    access(path, W_OK) == -1)) {
		snprintf(err, errlen, "%s is read-only (mode %03o): left as it "
		    "is", path, (unsigned)(sb.st_mode & 0777));
		return -1;
	}
	if (rc == -1) {
		snprintf(err, errlen, "%s cannot be written: %s", path,
		    strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK) == -1) {
		snprintf(err, errlen, "%s cannot be written: %s", path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* The memory the smallest point needs (its m times its k), in bytes. */
static uint64_t
bench_min_need(const struct bench_opts *o)
{
	struct measure_point	*pts = NULL;
	enum profile_kind	 kind = PROFILE_QUICK;
	uint64_t		 need, min = 0;
	size_t			 n = 0, i;
	int			 rc;

	if (o->preset != NULL || o->nm + o->nt + o->np + o->nk > 0)
		rc = bench_grid_points(o, &pts, &n);
	else {
		if (o->profile != NULL)
			profile_parse(o->profile, &kind);
		/* The smallest point is at k = 1, whatever the cores. */
		rc = profile_points(kind, 1, o->nb ? o->backends : NULL,
		    o->nb, &pts, &n);
	}
	for (i = 0; rc == 0 && i < n; i++) {
		need = kdf_params_memory(&pts[i].kp) * pts[i].k;
		if (min == 0 || need < min)
			min = need;
	}
	free(pts);
	return min;
}

/* path as its directory's real path and its last name, into out. */
static int
bench_real_path(const char *path, char *out, size_t len)
{
	char	copy[4096], copy2[4096], dir[PATH_MAX];

	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(copy2, sizeof(copy2), "%s", path);
	if (realpath(dirname(copy), dir) == NULL)
		return -1;
	snprintf(out, len, "%s/%s", dir, basename(copy2));
	return 0;
}

/* Do a and b name one file (by one path, two paths or two links)? */
static int
bench_same_path(const char *a, const char *b)
{
	struct stat	sa, sb;
	char		ra[4200], rb[4200];

	if (strcmp(a, b) == 0)
		return 1;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return bench_real_path(a, ra, sizeof(ra)) == 0 &&
	    bench_real_path(b, rb, sizeof(rb)) == 0 && strcmp(ra, rb) == 0;
}

/* --json, --csv and --db each a file of its own: 0, or exit 2 (said). */
static int
bench_same_file(const struct bench_opts *o)
{
	const char	*json = o->no_json ? NULL : o->json;
	const char	*a = NULL, *b = NULL;

	if (json != NULL && o->csv != NULL && bench_same_path(json, o->csv))
		a = "--json", b = "--csv";
	else if (json != NULL && o->db != NULL && bench_same_path(json, o->db))
		a = "--json", b = "--db";
	else if (o->csv != NULL && o->db != NULL && bench_same_path(o->csv,
	    o->db))
		a = "--csv", b = "--db";
	if (a == NULL)
		return 0;
	cli_usage_error(BENCH, "%s and %s name the same file: each needs its "
	    "own (nothing measured)", a, b);
	return CLI_EXIT_USAGE;
}

/*
 * Before the first hash: the files the results go to can be written, and
 * the memory budget holds a point. Returns 0, or the exit status.
 */
static int
bench_preflight(struct bench_opts *o, char *jsonpath, size_t len,
    uint64_t *min_need)
{
	char	err[4200], need[32], given[32];
	int	rc = 0;

	if (!o->no_json && o->json == NULL) {
		struct tm	tm;
		time_t		now = time(NULL);

		gmtime_r(&now, &tm);
		strftime(jsonpath, len, "bench_%Y%m%dT%H%M%SZ.json", &tm);
		o->json = jsonpath;
	}
	if ((!o->no_json && (rc = bench_can_write(o->json, 1, err,
	    sizeof(err))) < 0) || (o->csv != NULL &&
	    (rc = bench_can_write(o->csv, 0, err, sizeof(err))) < 0)) {
		cli_warnx("bench: %s (nothing measured)", err);
		return rc == -2 ? CLI_EXIT_USAGE : CLI_EXIT_ENV;
	}
	if (o->db != NULL && cli_store_name(BENCH, "--db", o->db) == -1)
		return CLI_EXIT_USAGE;
	/* Each result to a file of its own: one would replace the other. */
	if ((rc = bench_same_file(o)) != 0)
		return rc;
	*min_need = bench_min_need(o);
	if (o->memory_max > 0 && *min_need > o->memory_max) {
		units_format_kib((*min_need + 1023) >> 10, need, sizeof(need));
		units_format_kib(o->memory_max >> 10, given, sizeof(given));
		cli_usage_error(BENCH, "--memory-max must be at least %s, what "
		    "the smallest point needs, not %s (nothing measured)",
		    need, given);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int
cmd_bench(int argc, char **argv)
{
	struct bench_opts	 o;
	struct report		 rep;
	struct measure_opts	 mo;
	struct measure_point	*pts = NULL;
	struct cli_progress	 bp = { 0, 0 };
	struct bench_store	 bs;
	struct db_open_opts	 dbo = { 0, 0, 0, bench_db_log, NULL };
	struct sigaction	 sa;
	enum profile_kind	 kind = PROFILE_QUICK;
	char			 err[512], jsonpath[64];
	size_t			 n = 0, i, ok;
	uint64_t		 min_need;
	int			 rc = CLI_EXIT_ENV;

	switch (bench_parse(argc, argv, &o)) {
	case 1:
		return CLI_EXIT_OK;
	case -1:
		return CLI_EXIT_USAGE;
	}
	if (o.show != NULL)
		return bench_show(&o);
	if ((rc = bench_preflight(&o, jsonpath, sizeof(jsonpath),
	    &min_need)) != 0)
		return rc;
	rc = CLI_EXIT_ENV;
	memset(&rep, 0, sizeof(rep));
	memset(&bs, 0, sizeof(bs));
	/* Open the store first: a bad path should fail before measuring. */
	if (o.db != NULL && (rc = db_open(o.db, &dbo, &bs.db, err,
	    sizeof(err))) != DB_OK) {
		cli_warnx("bench: %s", err);
		/* A file that is not a store was named by mistake. */
		return rc == DB_ERR_INVALID ? CLI_EXIT_USAGE : CLI_EXIT_ENV;
	}
	rc = CLI_EXIT_ENV;
	if (cli_probe(&rep, o.memory_max, min_need, &mo, &bench_cancel, err,
	    sizeof(err)) == -1) {
		cli_warnx("bench: %s", err);
		db_close(bs.db);
		return CLI_EXIT_ENV;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bench_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (o.preset != NULL) {
		snprintf(rep.profile, sizeof(rep.profile), "preset:%s",
		    preset_find(o.preset)->name);
		if (bench_grid_points(&o, &pts, &n) == -1)
			goto nomem;
	} else if (o.nm + o.nt + o.np + o.nk > 0) {
		snprintf(rep.profile, sizeof(rep.profile), "custom");
		if (bench_grid_points(&o, &pts, &n) == -1)
			goto nomem;
	} else {
		if (o.profile != NULL)
			profile_parse(o.profile, &kind);
		snprintf(rep.profile, sizeof(rep.profile), "%s",
		    profile_name(kind));
		profile_opts(kind, &mo);
		if (profile_points(kind, rep.effective_cpus,
		    o.nb ? o.backends : NULL, o.nb, &pts, &n) == -1)
			goto nomem;
	}
	if (o.repeats > 0)
		mo.fixed_rounds = o.repeats;
	if ((rep.results = calloc(n, sizeof(*rep.results))) == NULL)
		goto nomem;
	rep.n = n;
	report_stamp(&rep);

	bp.tty = !o.quiet && isatty(STDERR_FILENO);
	mo.progress = cli_progress_print;
	mo.progress_ctx = &bp;
	if (bs.db != NULL) {
		if (db_run_create(bs.db, &rep, n, DB_TRIGGER_CLI, &bs.run, err,
		    sizeof(err)) != DB_OK ||
		    db_run_set_status(bs.db, bs.run, DB_RUN_RUNNING, NULL, err,
		    sizeof(err)) != DB_OK) {
			cli_warnx("bench: %s", err);
			goto fail;
		}
		mo.result = bench_store_point;
		mo.result_ctx = &bs;
	}
	if (!o.quiet)
		fprintf(stderr, "pwtune bench: %zu point%s (%s), effective "
		    "parallelism %d\n", n, n == 1 ? "" : "s", rep.profile,
		    rep.effective_cpus);
	ok = measure_list_run(pts, n, &mo, rep.results);
	if (bs.db != NULL) {
		enum db_run_status fin = bench_cancel ? DB_RUN_CANCELLED :
		    ok > 0 || n == 0 ? DB_RUN_DONE : DB_RUN_FAILED;

		struct model	mdl;

		if (bs.failed || db_run_set_status(bs.db, bs.run, fin,
		    bs.failed ? bs.err : NULL, err, sizeof(err)) != DB_OK) {
			if (!bs.failed)
				cli_warnx("bench: %s", err);
			bs.failed = 1;
		} else {
			/* The model of a finished run is stored beside it. */
			if (fin == DB_RUN_DONE && model_fit(&rep, &mdl, err,
			    sizeof(err)) == 0 && db_model_put(bs.db, bs.run,
			    &mdl, err, sizeof(err)) != DB_OK) {
				cli_warnx("bench: %s", err);
				bs.failed = 1;
			}
			if (!o.quiet) {
				char	where[4096];

				db_locator_redact(o.db, where, sizeof(where));
				fprintf(stderr, "pwtune bench: stored as run "
				    "%lld in %s\n", (long long)bs.run, where);
			}
		}
	}

	if (!o.has_baseline) {
		/* libsodium when it was measured, else the first backend. */
		o.baseline = n > 0 ? kdf_backend_resolve(pts[0].kp.backend,
		    pts[0].kp.alg) : KDF_BACKEND_LIBSODIUM;
		for (i = 0; i < n; i++)
			if (pts[i].kp.backend == KDF_BACKEND_LIBSODIUM)
				o.baseline = KDF_BACKEND_LIBSODIUM;
	}
	bench_print(stdout, &rep, o.baseline, o.markdown);

	rc = CLI_EXIT_OK;
	if (!o.no_json) {
		if (bench_write_json(o.json, &rep, err, sizeof(err)) == -1) {
			cli_warnx("bench: %s", err);
			rc = CLI_EXIT_ENV;
		} else
			printf("\nResults written to %s\n", o.json);
	}
	if (o.csv != NULL && bench_write_csv(o.csv, &rep, err,
	    sizeof(err)) == -1) {
		cli_warnx("bench: %s", err);
		rc = CLI_EXIT_ENV;
	}
	if (bs.failed)
		rc = CLI_EXIT_ENV;
	if (bench_cancel) {
		cli_warnx("bench: cancelled");
		rc = CLI_EXIT_ENV;
	}
	free(pts);
	report_release(&rep);
	db_close(bs.db);
	return rc;
nomem:
	cli_warnx("bench: out of memory");
fail:
	free(pts);
	report_release(&rep);
	db_close(bs.db);
	return CLI_EXIT_ENV;
}
