/*
 * cli/cmd_bench.c: `pwtune bench`: measure a profile, a preset or a grid
 * on this host, print a table per backend and save the results as JSON.
 */
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
	enum kdf_backend	 baseline;
	int			 has_baseline;
	uint32_t		 repeats;
	uint64_t		 memory_max;	/* bytes; 0: none */
	const char		*json;
	int			 no_json;
	const char		*csv;
	const char		*db;
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
"Measures Argon2 on this host, each point in child processes, and prints a\n"
"table per backend. Without options: the quick profile.\n"
"  --profile P        quick (about 20 s) or full (the seed grid: m = 32 MiB\n"
"                     .. 1 GiB x t = 1, 3, 6 x p = 1 and the cores)\n"
"  --preset NAME      a known parameter set (pwtune bench --list-presets)\n"
"  --m LIST           memory sizes: 64MiB,256MiB,1GiB or KiB as integers\n"
"  --t LIST           passes (default 3)\n"
"  --p LIST           lanes (default 1)\n"
"  --concurrency LIST hashes at once (default 1)\n"
"  --variant V        argon2id (default), argon2i or argon2d\n"
"  --backend LIST     libsodium, libargon2 (default: both)\n"
"  --baseline B       the backend Ratio compares with (default libsodium)\n"
"  --repeats N        exactly N measured rounds per point (N x k hashes),\n"
"                     after one warm-up round\n"
"  --memory-max SIZE  cap the memory budget (default: half of MemAvailable\n"
"                     or of the cgroup limit left); points over it are\n"
"                     skipped and listed with the reason\n"
"  --json FILE        where to write the results (default\n"
"                     bench_<UTC time>.json); --no-json writes none\n"
"  --csv FILE         also write one CSV row per point\n"
"  --db STORE         also store the run in STORE (an SQLite file or a\n"
"                     postgresql:// URI), point by point as each finishes\n"
"  --markdown         print the tables as GitHub markdown\n"
"  -q, --quiet        no progress bar\n", fp);
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

/* Returns 0, 1 for an early exit with status 0, or -1 (usage printed). */
static int
bench_parse(int argc, char **argv, struct bench_opts *o)
{
	const char	*a, *v;
	int		 i;

	memset(o, 0, sizeof(*o));
	o->variant = KDF_ALG_ARGON2ID;
	for (i = 1; i < argc; i++) {
		a = argv[i];
		v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			bench_usage(stdout);
			return 1;
		}
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
		if (v == NULL) {
			cli_warnx("bench: %s needs a value", a);
			goto usage;
		}
		i++;
		if (strcmp(a, "--profile") == 0) {
			enum profile_kind kind;

			if (profile_parse(v, &kind) == -1)
				goto bad;
			o->profile = v;
		} else if (strcmp(a, "--preset") == 0) {
			if (preset_find(v) == NULL) {
				cli_warnx("bench: unknown preset %s (see "
				    "--list-presets)", v);
				goto usage;
			}
			o->preset = v;
		} else if (strcmp(a, "--m") == 0 || strcmp(a, "-m") == 0) {
			if (bench_parse_list(v, &o->nm, bench_one_size,
			    o->m) == -1)
				goto bad;
		} else if (strcmp(a, "--t") == 0 || strcmp(a, "-t") == 0) {
			if (bench_parse_u32_list(v, 1, 1000, o->t, &o->nt) == -1)
				goto bad;
		} else if (strcmp(a, "--p") == 0 || strcmp(a, "-p") == 0) {
			if (bench_parse_u32_list(v, 1, 255, o->p, &o->np) == -1)
				goto bad;
		} else if (strcmp(a, "--concurrency") == 0 ||
		    strcmp(a, "-k") == 0) {
			if (bench_parse_u32_list(v, 1, MEASURE_K_MAX, o->k,
			    &o->nk) == -1)
				goto bad;
		} else if (strcmp(a, "--variant") == 0) {
			if (kdf_alg_parse(v, &o->variant) == -1 ||
			    !kdf_alg_is_argon2(o->variant))
				goto bad;
		} else if (strcmp(a, "--backend") == 0) {
			if (bench_parse_list(v, &o->nb, bench_one_backend,
			    o->backends) == -1)
				goto bad;
		} else if (strcmp(a, "--baseline") == 0) {
			if (kdf_backend_parse(v, &o->baseline) == -1 ||
			    o->baseline == KDF_BACKEND_AUTO)
				goto bad;
			o->has_baseline = 1;
		} else if (strcmp(a, "--repeats") == 0) {
			if (cli_parse_u32(v, 1, 1000, &o->repeats) == -1)
				goto bad;
		} else if (strcmp(a, "--memory-max") == 0) {
			uint64_t kib;

			if (units_parse_kib(v, UNITS_MEMORY_MAX_KIB,
			    &kib) == -1)
				goto bad;
			o->memory_max = kib * 1024;
		} else if (strcmp(a, "--json") == 0) {
			o->json = v;
		} else if (strcmp(a, "--csv") == 0) {
			o->csv = v;
		} else if (strcmp(a, "--db") == 0) {
			o->db = v;
		} else {
			cli_warnx("bench: unknown option %s", a);
			goto usage;
		}
		continue;
bad:
		cli_warnx("bench: bad value %s for %s", v, a);
		goto usage;
	}
	if ((o->profile != NULL) + (o->preset != NULL) +
	    (o->nm + o->nt + o->np + o->nk > 0) > 1) {
		cli_warnx("bench: choose one of --profile, --preset and a grid "
		    "(--m, --t, --p, --concurrency)");
		goto usage;
	}
	if (o->json != NULL && o->no_json) {
		cli_warnx("bench: --json and --no-json together");
		goto usage;
	}
	return 0;
usage:
	bench_usage(stderr);
	return -1;
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
	int			 rc = CLI_EXIT_FAIL;

	switch (bench_parse(argc, argv, &o)) {
	case 1:
		return CLI_EXIT_OK;
	case -1:
		return CLI_EXIT_USAGE;
	}
	memset(&rep, 0, sizeof(rep));
	memset(&bs, 0, sizeof(bs));
	/* Open the store first: a bad path should fail before measuring. */
	if (o.db != NULL && db_open(o.db, &dbo, &bs.db, err, sizeof(err)) !=
	    DB_OK) {
		cli_warnx("bench: %s", err);
		return CLI_EXIT_FAIL;
	}
	if (cli_probe(&rep, o.memory_max, &mo, &bench_cancel, err,
	    sizeof(err)) == -1) {
		cli_warnx("bench: %s", err);
		db_close(bs.db);
		return CLI_EXIT_FAIL;
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
		if (o.json == NULL) {
			struct tm	tm;
			time_t		now = time(NULL);

			gmtime_r(&now, &tm);
			strftime(jsonpath, sizeof(jsonpath),
			    "bench_%Y%m%dT%H%M%SZ.json", &tm);
			o.json = jsonpath;
		}
		if (bench_write_json(o.json, &rep, err, sizeof(err)) == -1) {
			cli_warnx("bench: %s", err);
			rc = CLI_EXIT_FAIL;
		} else
			printf("\nResults written to %s\n", o.json);
	}
	if (o.csv != NULL && bench_write_csv(o.csv, &rep, err,
	    sizeof(err)) == -1) {
		cli_warnx("bench: %s", err);
		rc = CLI_EXIT_FAIL;
	}
	if (bs.failed)
		rc = CLI_EXIT_FAIL;
	if (bench_cancel) {
		cli_warnx("bench: cancelled");
		rc = CLI_EXIT_FAIL;
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
	return CLI_EXIT_FAIL;
}
