/*
 * cli/cmd_recommend.c: `pwtune recommend`: which parameters take under X
 * ms here? Measures what it needs (the quick profile), or reads results
 * saved by `pwtune bench --json` (--from) or stored (--db); fits the model;
 * answers with provenance and snippets, and every client stack's own
 * answer (api/stacks.c, the daemon's code), or one stack's (--stack).
 * The same engine the daemon uses.
 *
 * Exit status: 0 an answer that meets the target; 1 the target cannot be
 * met above the floor (the closest admissible answer is printed), or
 * nothing measured answers the question; 2 bad
 * usage or input; 3 a file or store that cannot be read, or a measurement
 * that could not run (cli.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "cli.h"
#include "db.h"
#include "phc.h"
#include "presets.h"
#include "probe.h"
#include "profile.h"
#include "search.h"
#include "stack.h"
#include "tune.h"
#include "units.h"
#include "verify.h"

#define VERIFY_STEPS	3

struct rec_opts {
	struct tune_query	 q;
	const char		*from;
	const char		*db;
	const char		*check;
	const char		*scope;		/* NULL: this host */
	const char		*group;
	const char		*stack;		/* NULL: the default answer */
	const char		*profile;	/* "quick": not searched */
	unsigned		 max_age_days;
	enum rec_format		 format;
	int			 verify;
	int			 presets;
	int			 quiet;
};

static volatile int	rec_cancel;

/* Where `make run` keeps pwtuned's store, from the project's directory. */
#define REC_RUN_STORE	"var/pwtune.db"

static void
rec_on_signal(int sig)
{
	(void)sig;
	rec_cancel = 1;
}

/* What the store says as it reads (a curve of a grid left out). */
static void
rec_store_log(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warnx("recommend: %s", msg);
}

/* --stack's lines: the catalogue's names, wrapped under the option. */
static void
rec_usage_stacks(FILE *fp)
{
	const struct stack_def	*all;
	size_t			 i, n, col = 16, len;

	all = stack_catalogue(&n);
	fputs("  --stack NAME   the answer that holds in client stack NAME: "
	    "one of\n                ", fp);
	for (i = 0; i < n; i++) {
		len = strlen(all[i].name) + (i + 1 < n);	/* its comma */
		if (col + 1 + len > 73) {
			fputs("\n                ", fp);
			col = 16;
		}
		fprintf(fp, " %s%s", all[i].name, i + 1 < n ? "," : "");
		col += 1 + len;
	}
	fputs("\n                 (or a name with observations in the store "
	    "of --db);\n", fp);
}

static void
rec_usage(FILE *fp)
{
	fputs(
"Usage: pwtune recommend --target-ms MS [--percentile 50|95|99]\n"
"                        [--concurrency K] [--memory-max SIZE]\n"
"                        [--parallelism auto|N] [--variant V] [--backend B]\n"
"                        [--floor owasp|rfc9106|none]\n"
"                        [--objective memory-first|attacker-cost]\n"
"                        [--verify] [--format table|json|phc|env] [--json]\n"
"                        [--from FILE | --db STORE | --profile quick]\n"
"                        [--check ENCODED] [--presets] [--stack NAME] [-q]\n"
"       pwtune recommend --target-ms MS --db STORE --scope group --group NAME\n"
"                        | --scope fleet  [--max-age-days N] [query options]\n"
"Answers which Argon2 parameters take under MS milliseconds here, at the\n"
"percentile (default 95) with K hashes at once (default 1), each within\n"
"memory-max / K (default: the host's memory budget), never below the floor\n"
"(default owasp). From cold it measures near the target (a few seconds:\n"
"a scale hash, then one hash at a time where the hashes so far put the\n"
"answer, until their percentile is within 90-100 % of the target and\n"
"known to 5 % or 12 hashes agree); --profile quick measures\n"
"the quick profile and answers from its model (about 20 s; also what\n"
"--stack, --presets, attacker-cost and over 64 hashes at once use);\n"
"--from names a pwtune bench --json file, --db a store with a finished\n"
"run of this host.\n"
"  --parallelism P  lanes: auto (default: 1; from a model with libargon2,\n"
"                 more when cores are idle and such p was measured) or\n"
"                 1-255 (over 1: --backend libargon2; libsodium has p = 1)\n"
"  --variant V    argon2id (default), argon2i or argon2d\n"
"  --backend B    auto (default: libsodium where it was measured, else\n"
"                 libargon2), libsodium or libargon2\n"
"  --verify       measure the answer at K; step down if it is over target\n"
"  --format F     table (default), json (--json: the API's object), phc\n"
"                 (the PHC prefix alone: $argon2id$v=19$m=...,t=...,p=...)\n"
"                 or env (ARGON2_M_KIB=... ARGON2_T=... ARGON2_P=..., one\n"
"                 line for eval \"$(pwtune recommend ... --format env)\")\n"
"  --check HASH   needs-rehash of an encoded hash against the answer (or\n"
"                 of its parameters alone, as --format phc prints them)\n"
"  --objective O  memory-first (default): the most memory, then the\n"
"                 largest t; at the memory bound one pass more at less\n"
"                 memory when the bound leaves over a tenth of the time\n"
"                 unused; attacker-cost: the largest m x (3t - 1)\n"
"  --presets      the time of the known presets here\n", fp);
	rec_usage_stacks(fp);
	fputs(
"                 without it, every stack's answer is listed too (from a\n"
"                 model: --profile quick, --from or --db)\n"
"  --scope group  the answer that holds on every host of group NAME with a\n"
"                 fresh run in STORE (a shared postgresql:// store), decided\n"
"                 by the slowest; --scope fleet: every host in STORE\n"
"  --max-age-days N  runs older than N days are stale (default 30; 0: any)\n"
"  -q, --quiet    no progress on stderr while it measures\n"
"  --concurrency and --memory-max are spelled out: -k is the memory in\n"
"  KiB in pwtune (as in argon2), and is not taken here.\n"
"Exit status: 0 answered, 1 the target cannot be met above the floor\n"
"(the closest admissible answer is printed) or nothing measured answers\n"
"the question (a stack's library, the variant or the p), 2 bad usage or\n"
"input (a malformed --from file or --check hash), 3 a file or store that\n"
"cannot be read, or a measurement that could not run.\n", fp);
}

/* An unknown --stack: what the known names are. */
static void
rec_unknown_stack(const char *name)
{
	char	names[512], shown[API_SHOWN_LEN], meant[160];

	stack_names(names, sizeof(names));
	stack_suggest_text(name, meant, sizeof(meant));
	api_shown(name, shown, sizeof(shown));
	cli_usage_error("recommend", "unknown stack %s%s: known are %s, or a "
	    "name with observations in the store (--db)",
	    shown[0] != '\0' ? shown : "(empty)", meant, names);
}

#define REC	"recommend"

static int
rec_parse_format(const char *a, const char *v, struct rec_opts *o)
{
	static const char *const names[] = { "table", "json", "phc", "env" };
	size_t	i;

	for (i = 0; v != NULL && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(v, names[i]) == 0) {
			o->format = (enum rec_format)i;
			return 0;
		}
	return cli_bad_value(REC, a, v, "table, json, phc (the PHC prefix "
	    "alone) or env (ARGON2_M_KIB=... ARGON2_T=... ARGON2_P=...)");
}

/* The options that take a value. Returns 0, or -1 after saying why. */
static int
rec_parse_value(const char *a, const char *v, struct rec_opts *o,
    int *have_target)
{
	struct phc_argon2	 ph;
	char			 allowed[400], why[200];
	uint64_t		 kib;
	uint32_t		 u;

	if (strcmp(a, "--target-ms") == 0) {
		if (cli_flag_u32(REC, a, v, TUNE_TARGET_MIN_MS,
		    TUNE_TARGET_MAX_MS, "milliseconds", &u) == -1)
			return -1;
		o->q.target_ms = u;
		*have_target = 1;
	} else if (strcmp(a, "--percentile") == 0) {
		if (v == NULL || cli_parse_u32(v, 50, 99, &u) == -1 ||
		    (u != 50 && u != 95 && u != 99))
			return cli_bad_value(REC, a, v, "50, 95 or 99");
		o->q.percentile = (int)u;
	} else if (strcmp(a, "--concurrency") == 0) {
		if (cli_flag_u32(REC, a, v, 1, MEASURE_K_MAX * 16,
		    "hashes at once", &o->q.k) == -1)
			return -1;
	} else if (strcmp(a, "--memory-max") == 0) {
		if (cli_flag_size(REC, a, v, UNITS_MEMORY_MAX_KIB, &kib) == -1)
			return -1;
		o->q.memory_max_kib = kib;
	} else if (strcmp(a, "--parallelism") == 0) {
		if (v != NULL && strcmp(v, "auto") == 0)
			o->q.parallelism = 0;
		else if (v == NULL ||
		    cli_parse_u32(v, 1, 255, &o->q.parallelism) == -1)
			return cli_bad_value(REC, a, v, "auto or a whole "
			    "number from 1 to 255 (lanes)");
	} else if (strcmp(a, "--variant") == 0) {
		if (v == NULL || kdf_alg_parse(v, &o->q.variant) == -1 ||
		    !kdf_alg_is_argon2(o->q.variant))
			return cli_bad_value(REC, a, v,
			    "argon2id, argon2i or argon2d");
	} else if (strcmp(a, "--backend") == 0) {
		if (v == NULL || kdf_backend_parse(v, &o->q.backend) == -1 ||
		    o->q.backend == KDF_BACKEND_LIBCRYPT)
			return cli_bad_value(REC, a, v,
			    "auto, libsodium or libargon2");
	} else if (strcmp(a, "--floor") == 0) {
		if (v == NULL || tune_floor_parse(v, &o->q.floor) == -1)
			return cli_bad_value(REC, a, v,
			    "owasp, rfc9106 or none");
	} else if (strcmp(a, "--objective") == 0) {
		if (v == NULL || tune_objective_parse(v, &o->q.objective) == -1)
			return cli_bad_value(REC, a, v,
			    "memory-first or attacker-cost");
	} else if (strcmp(a, "--format") == 0) {
		return rec_parse_format(a, v, o);
	} else if (strcmp(a, "--from") == 0) {
		/* A daemon's address: it answers itself. */
		if (v != NULL && (strncmp(v, "http://", 7) == 0 ||
		    strncmp(v, "https://", 8) == 0))
			return cli_bad_value(REC, a, v, "a file written by "
			    "pwtune bench --json, not a URL: ask the daemon "
			    "itself (curl 'URL/v1/recommendation?target_ms="
			    "250')");
		if ((o->from = v) == NULL)
			return cli_bad_value(REC, a, v, "a file written by "
			    "pwtune bench --json");
	} else if (strcmp(a, "--db") == 0) {
		if ((o->db = v) == NULL)
			return cli_bad_value(REC, a, v, "a store (an SQLite "
			    "file or a postgresql:// URI)");
	} else if (strcmp(a, "--check") == 0) {
		/* What needs-rehash reads: checked before measuring. */
		if (v == NULL || phc_decode_params(v, &ph, why,
		    sizeof(why)) == -1) {
			snprintf(allowed, sizeof(allowed), "an Argon2 PHC "
			    "string ($argon2id$v=19$m=...,t=...,p=...$salt$"
			    "hash, or its parameters alone: %s)", v == NULL ?
			    "quote it" : why);
			return cli_bad_value(REC, a, v, allowed);
		}
		memset(&ph, 0, sizeof(ph));
		o->check = v;
	} else if (strcmp(a, "--scope") == 0) {
		if (v == NULL || (strcmp(v, "host") && strcmp(v, "group") &&
		    strcmp(v, "fleet")))
			return cli_bad_value(REC, a, v, "host, group or fleet");
		o->scope = strcmp(v, "host") ? v : NULL;
	} else if (strcmp(a, "--profile") == 0) {
		if (v == NULL || strcmp(v, "quick") != 0)
			return cli_bad_value(REC, a, v, "quick (the whole "
			    "host's model; without it, one target measured)");
		o->profile = v;
	} else if (strcmp(a, "--stack") == 0) {
		if ((o->stack = v) == NULL)
			return cli_bad_value(REC, a, v, "a client stack "
			    "(php, go, ...)");
	} else if (strcmp(a, "--group") == 0) {
		if ((o->group = v) == NULL)
			return cli_bad_value(REC, a, v, "a group's name");
	} else if (strcmp(a, "--max-age-days") == 0) {
		if (cli_flag_u32(REC, a, v, 0, 3650, "days; 0: any age",
		    &o->max_age_days) == -1)
			return -1;
	} else if (strcmp(a, "-k") == 0) {
		snprintf(allowed, sizeof(allowed), "-k is the memory in KiB in "
		    "pwtune (as in argon2), not taken here: for hashes at "
		    "once use --concurrency");
		return cli_usage_error(REC, "%s", allowed);
	} else
		return cli_usage_error(REC, "unknown option %.60s", a);
	return 0;
}

/* Returns 0, 1 for help, or -1 after saying why. */
static int
rec_parse(int argc, char **argv, struct rec_opts *o)
{
	const char	*a, *v, *eq;
	char		 name[64];
	int		 i, have_target = 0, terse;

	memset(o, 0, sizeof(*o));
	tune_query_init(&o->q);
	o->max_age_days = 30;
	for (i = 1; i < argc; i++) {
		a = cli_opt(argv[i], name, sizeof(name), &eq);
		if (cli_is_help(a) && cli_no_value(REC, a, eq) == -1)
			return -1;
		if (cli_is_help(a)) {
			rec_usage(stdout);
			return 1;
		}
		if (strcmp(a, "--json") == 0 || strcmp(a, "--verify") == 0 ||
		    strcmp(a, "--presets") == 0 || strcmp(a, "-q") == 0 ||
		    strcmp(a, "--quiet") == 0) {
			if (cli_no_value(REC, a, eq) == -1)
				return -1;
			if (strcmp(a, "--json") == 0)
				o->format = REC_JSON;
			else if (strcmp(a, "--verify") == 0)
				o->verify = 1;
			else if (strcmp(a, "--presets") == 0)
				o->presets = 1;
			else
				o->quiet = 1;
			continue;
		}
		v = eq != NULL ? eq : i + 1 < argc ? argv[++i] : NULL;
		if (rec_parse_value(a, v, o, &have_target) == -1)
			return -1;
	}
	terse = o->format == REC_PHC || o->format == REC_ENV;
	if (!have_target && !o->presets)
		return cli_usage_error(REC, "--target-ms is required");
	if (o->from != NULL && o->db != NULL)
		return cli_usage_error(REC, "--from and --db together: "
		    "choose one");
	if (o->q.backend == KDF_BACKEND_LIBSODIUM && o->q.parallelism > 1)
		return cli_usage_error(REC, "--parallelism %u with --backend "
		    "libsodium: libsodium computes p = 1 only",
		    (unsigned)o->q.parallelism);
	if (o->profile != NULL && (o->from != NULL || o->db != NULL))
		return cli_usage_error(REC, "--profile measures this host: "
		    "not with --from or --db, which read measurements");
	if (terse && (o->presets || o->check != NULL))
		return cli_usage_error(REC, "--format phc and env print the "
		    "parameters alone: not with --presets or --check");
	if (o->scope != NULL && (o->db == NULL || o->verify || o->presets ||
	    o->check != NULL))
		return cli_usage_error(REC, "--scope %s reads the hosts from "
		    "a store: give --db STORE (and not --verify, --presets or "
		    "--check)", o->scope);
	if (o->scope != NULL && strcmp(o->scope, "group") == 0 &&
	    o->group == NULL)
		return cli_usage_error(REC, "--scope group needs --group NAME");
	if (o->group != NULL && (o->scope == NULL ||
	    strcmp(o->scope, "group") != 0))
		return cli_usage_error(REC, "--group goes with --scope group");
	if (o->stack != NULL && (o->scope != NULL || o->verify))
		return cli_usage_error(REC, "--stack answers for this host "
		    "from its model: not with --scope or --verify (which "
		    "measures the library, not the stack's runtime)");
	/* A stack hashes through its own library. */
	if (o->stack != NULL && stack_find(o->stack) != NULL &&
	    o->q.backend != KDF_BACKEND_AUTO &&
	    o->q.backend != stack_find(o->stack)->base)
		return cli_usage_error(REC, "--backend %s with --stack %s: "
		    "%s hashes through %s (give --backend %s, or leave it "
		    "out)", kdf_backend_name(o->q.backend), o->stack,
		    o->stack, kdf_backend_name(stack_find(o->stack)->base),
		    kdf_backend_name(stack_find(o->stack)->base));
	/* Only a store knows names that observations brought. */
	if (o->stack != NULL && stack_find(o->stack) == NULL &&
	    o->db == NULL) {
		rec_unknown_stack(o->stack);
		return -1;
	}
	return 0;
}

/*
 * Get the measurements: a file, the store, or the quick profile now.
 * Returns 0, or the exit status (said why).
 */
static int
rec_report(const struct rec_opts *o, struct report *rep, int64_t *run_id,
    struct db_model_sources *src)
{
	struct measure_opts	 mo;
	struct measure_point	*pts = NULL;
	struct cli_progress	 bp = { 0, 0 };
	struct host_info	 here;
	struct db		*db;
	struct db_open_opts	 dbo = { 1, 0, 0, rec_store_log, NULL };
	enum kdf_backend	 base = KDF_BACKEND_LIBSODIUM;
	json_t			*j;
	char			 err[4200];
	size_t			 n;
	int			 rc;

	*run_id = 0;
	memset(src, 0, sizeof(*src));
	if (o->from != NULL) {
		/* Missing or unreadable: 3; not JSON or not a run: 2. */
		if ((rc = cli_load_json(o->from, &j, err, sizeof(err))) != 0) {
			cli_warnx("recommend: --from %s", err);
			return rc;
		}
		rc = report_from_json(j, rep, err, sizeof(err));
		json_decref(j);
		if (rc == -1) {
			cli_warnx("recommend: --from %s: %s", o->from, err);
			return CLI_EXIT_USAGE;
		}
		return 0;
	}
	if (o->db != NULL) {
		int	st;

		if (cli_store_name(REC, "--db", o->db) == -1)
			return CLI_EXIT_USAGE;
		if (host_probe(NULL, &here, err, sizeof(err)) == -1) {
			cli_warnx("recommend: %s", err);
			return CLI_EXIT_ENV;
		}
		if ((st = db_open(o->db, &dbo, &db, err, sizeof(err))) !=
		    DB_OK) {
			cli_warnx("recommend: --db %s", err);
			/* A file that is not a store was named by mistake. */
			return st == DB_ERR_INVALID ? CLI_EXIT_USAGE :
			    CLI_EXIT_ENV;
		}
		/* Its model's run, and the curves it took from others. */
		if (db_model_run(db, here.host_id, here.fingerprint, run_id,
		    err, sizeof(err)) != DB_OK ||
		    db_model_report(db, *run_id, rep, src, err,
		    sizeof(err)) != DB_OK) {
			char	where[4096];

			db_locator_redact(o->db, where, sizeof(where));
			cli_warnx("recommend: %s: %s (pwtune bench --db %s "
			    "makes one)", where, err, where);
			db_close(db);
			return CLI_EXIT_ENV;
		}
		db_close(db);
		if (strcmp(rep->host.fingerprint, here.fingerprint) != 0)
			cli_warnx("recommend: run %lld was measured before this "
			    "host changed (fingerprint %s, now %s): it is "
			    "stale", (long long)*run_id, rep->host.fingerprint,
			    here.fingerprint);
		return 0;
	}

	memset(rep, 0, sizeof(*rep));
	/*
	 * --memory-max bounds what is measured too (k hashes of a point at
	 * once), as bench's does: a point past it is skipped.
	 */
	if (cli_probe(rep, (uint64_t)o->q.memory_max_kib << 10, 0, &mo,
	    &rec_cancel, err, sizeof(err)) == -1) {
		cli_warnx("recommend: %s", err);
		return CLI_EXIT_ENV;
	}
	profile_opts(PROFILE_QUICK, &mo);
	/*
	 * One library: libsodium's grid for the default answer, or the
	 * base of the stack asked for (its probe runs after).
	 */
	if (o->stack != NULL && stack_find(o->stack) != NULL)
		base = stack_find(o->stack)->base;
	if (profile_points(PROFILE_QUICK, rep->effective_cpus, &base, 1, &pts,
	    &n) == -1 || (rep->results = calloc(n, sizeof(*rep->results))) ==
	    NULL) {
		free(pts);
		cli_warnx("recommend: out of memory");
		return CLI_EXIT_ENV;
	}
	rep->n = n;
	snprintf(rep->profile, sizeof(rep->profile), "quick");
	report_stamp(rep);
	bp.tty = !o->quiet && isatty(STDERR_FILENO);
	mo.progress = cli_progress_print;
	mo.progress_ctx = &bp;
	if (!o->quiet)
		fprintf(stderr, "pwtune recommend: measuring this host (quick "
		    "profile, %zu points)\n", n);
	measure_list_run(pts, n, &mo, rep->results);
	free(pts);
	if (rec_cancel) {
		cli_warnx("recommend: cancelled");
		return CLI_EXIT_ENV;
	}
	return 0;
}

/*
 * --verify: measure the answer at k; while the measured percentile is
 * over the target, step down (t first, then m by an eighth) and measure
 * again, VERIFY_STEPS times at most. Fills measured_ms.
 */
static void
rec_verify(const struct model *m, const struct tune_query *q,
    struct tune_answer *a, double *measured_ms, int *steps)
{
	uint32_t	floor_t;
	char		err[256];

	*steps = 0;
	*measured_ms = -1;
	for (;;) {
		if (verify_answer(a, m->effective_cpus, verify_rounds(q->k),
		    &rec_cancel, measured_ms, err, sizeof(err)) != 0) {
			cli_warnx("recommend: verify: %s", err);
			return;
		}
		if (*measured_ms <= q->target_ms || *steps == VERIFY_STEPS)
			return;
		(*steps)++;
		floor_t = tune_floor_min_t(q->floor, a->variant, a->m_kib);
		/* Nor under what the client or its library takes. */
		if (floor_t < q->t_min)
			floor_t = q->t_min;
		if (floor_t < kdf_t_min(a->backend, a->variant))
			floor_t = kdf_t_min(a->backend, a->variant);
		if (a->t > 1 && a->t - 1 >= (floor_t ? floor_t : 1))
			a->t--;
		else if (a->m_kib - a->m_kib / 8 >= 8 * a->p &&
		    tune_floor_min_t(q->floor, a->variant, a->m_kib -
		    a->m_kib / 8 - (a->m_kib - a->m_kib / 8) % 1024) != 0) {
			a->m_kib -= a->m_kib / 8;
			a->m_kib -= a->m_kib % 1024;
			if (a->t < tune_floor_min_t(q->floor, a->variant,
			    a->m_kib))
				a->t = tune_floor_min_t(q->floor, a->variant,
				    a->m_kib);
		} else
			return;	/* the floor stops the way down */
		snprintf(a->phc_prefix, sizeof(a->phc_prefix),
		    "$%s$v=19$m=%u,t=%u,p=%u", kdf_alg_name(a->variant),
		    (unsigned)a->m_kib, (unsigned)a->t, (unsigned)a->p);
	}
}

/* --check's two answers, as text. */
static void
rec_print_rehash(const struct tune_rehash *rh)
{
	printf("\nneeds-rehash of the hash given: %s (exact match, as "
	    "libsodium, PHP and argon2-cffi decide), %s (a weaker variant, "
	    "m x t under %.0f %% of the answer's, or m under it with less cost "
	    "per guess, m (3t - 1))\n", rh->differs ? "yes" : "no",
	    rh->weaker ? "yes" : "no", TUNE_REHASH_SLACK * 100);
}

/* With --db, the verification is kept beside the run it came from. */
static void
rec_store_verification(const char *path, int64_t run_id,
    const struct tune_answer *a, double measured)
{
	struct db	*db;
	char		 params[256], err[512];

	verify_params_json(a, params, sizeof(params));
	if (db_open(path, NULL, &db, err, sizeof(err)) != DB_OK ||
	    db_verification_add(db, run_id, a->target_ms, params,
	    a->predicted_ms, measured, err, sizeof(err)) != DB_OK)
		cli_warnx("recommend: verification not stored: %s", err);
	db_close(db);
}

static void
rec_print_presets(const struct model *m, const struct tune_query *q)
{
	const struct preset		*pre;
	const struct model_curve	*c;
	struct model_prediction		 pr;
	size_t				 n, i;
	uint32_t			 p;
	char				 size[32], err[256];

	pre = preset_list(&n);
	printf("%-22s %-9s %10s %3s %3s %12s  %s\n", "Preset", "Variant", "m",
	    "t", "p", "here (ms)", "note");
	for (i = 0; i < n; i++) {
		struct tune_query	pq = *q;
		const char		*note = "";

		if (pre[i].alg == KDF_ALG_BCRYPT)
			continue;
		pq.variant = pre[i].alg;
		pq.parallelism = pre[i].p;
		if ((c = tune_curve(m, &pq, &p, err, sizeof(err))) == NULL) {
			/* Not measured with that p: p = 1 is an upper bound. */
			pq.parallelism = 1;
			if ((c = tune_curve(m, &pq, &p, err, sizeof(err))) ==
			    NULL) {
				pq.variant = KDF_ALG_ARGON2ID;
				c = tune_curve(m, &pq, &p, err, sizeof(err));
				note = "Argon2id's time (variants cost alike)";
			}
			if (pre[i].p > 1)
				note = "at most (measured with p = 1)";
		}
		units_format_kib(pre[i].m_kib, size, sizeof(size));
		if (c == NULL) {
			printf("%-22s %-9s %10s %3u %3u %12s  %s\n", pre[i].name,
			    kdf_alg_name(pre[i].alg), size, (unsigned)pre[i].t,
			    (unsigned)pre[i].p, "?", err);
			continue;
		}
		model_predict(m, c, pre[i].m_kib, pre[i].t, q->k, q->percentile,
		    &pr);
		printf("%-22s %-9s %10s %3u %3u %12.1f  %s%s\n", pre[i].name,
		    kdf_alg_name(pre[i].alg), size, (unsigned)pre[i].t,
		    (unsigned)pre[i].p, pr.ms, note, pr.extrapolated ?
		    (note[0] ? "; extrapolated" : "extrapolated") : "");
	}
}

/*
 * Every stack's answer, as the API lists them (api_stacks_add): one line
 * each, the notes of stacks the answer would be over the target in.
 */
static void
rec_print_stacks(const struct model *m, const struct tune_query *q,
    const struct tune_answer *a, int cold)
{
	json_t		*j, *st, *notes, *n;
	size_t		 i, k, unmeasured = 0, nwhy = 0, rows = 0;
	char		 size[32];
	const char	*why1 = NULL;
	int		 shared = 0;

	if ((j = json_pack("{s:[]}", "notes")) == NULL)
		return;
	api_stacks_add(j, m, q, a, NULL, "--stack ");
	printf("\nStacks (this answer holds for %s; each stack's own answer, "
	    "predicted at p%d):\n", json_string_value(json_object_get(j,
	    "for")), q->percentile);
	printf("  %-20s %10s %3s %3s %10s  %s\n", "stack", "m", "t", "p",
	    "predicted", "how");
	/* Why no row was probed, once when it is every row's. */
	json_array_foreach(json_object_get(j, "stacks"), i, st) {
		const char	*why;

		if (!json_is_true(json_object_get(st, "available")))
			continue;
		rows++;
		why = json_string_value(json_object_get(st, "why"));
		if (why != NULL && (why1 == NULL || strcmp(why, why1) == 0)) {
			why1 = why;
			nwhy++;
		}
	}
	if (nwhy < 2 || nwhy != rows)
		why1 = NULL;
	json_array_foreach(json_object_get(j, "stacks"), i, st) {
		const char			*name, *why, *as;
		const struct model_stack	*ms;

		name = json_string_value(json_object_get(st, "name"));
		why = json_string_value(json_object_get(st, "why"));
		as = json_string_value(json_object_get(st, "answered_as"));
		/* From cold, whether its runtime is here says what to do. */
		ms = cold ? model_stack_find(m, name) : NULL;
		if (!json_is_true(json_object_get(st, "available"))) {
			printf("  %-20s %s%s%s\n", name, why, ms != NULL &&
			    ms->why[0] != '\0' ? "; " : "", ms != NULL ?
			    ms->why : "");
			unmeasured++;
			continue;
		}
		units_format_kib((uint64_t)json_integer_value(json_object_get(
		    st, "m_kib")), size, sizeof(size));
		printf("  %-20s %10s %3lld %3lld %7.1f ms  %s%s%s\n", name,
		    size, json_integer_value(json_object_get(st, "t")),
		    json_integer_value(json_object_get(st, "p")),
		    json_real_value(json_object_get(st, "predicted_ms")),
		    json_string_value(json_object_get(st, "how")),
		    as != NULL ? ", answered as " : "", as != NULL ? as : "");
		if (why != NULL && why1 == NULL)
			printf("  %-20s (%s)\n", "", why);
		shared |= as != NULL;
	}
	if (why1 != NULL)
		printf("  (each stack: %s)\n", why1);
	if (shared)
		printf("  (answered as a library: its runtime hashes through "
		    "that library's own file here, and the\n   library's "
		    "measured curve stands for it)\n");
	notes = json_object_get(j, "notes");
	json_array_foreach(notes, k, n)
		printf("  - %s\n", json_string_value(n));
	if (json_array_size(notes) == 0)
		printf("  (ask for one with --stack NAME)\n");
	/* From cold only the default's library was measured. */
	if (cold && unmeasured > 0)
		printf("  (--stack NAME measures the library a stack stands "
		    "on too)\n");
	json_decref(j);
}

/* The stack's answer: how its model was obtained, and its own snippet. */
static void
rec_print_stack(const struct model *m, const char *name,
    const struct tune_query *q, const struct tune_answer *a)
{
	json_t		*j;
	const char	*why, *snip, *as;

	if ((j = api_stack_answer_json(m, name, q, a, NULL)) == NULL)
		return;
	/* Probed, and found on the curve's own library file (a note says
	   more). */
	as = json_string_value(json_object_get(j, "answered_as"));
	printf("\nStack:       %s (%s%s%s)\n", name, json_string_value(
	    json_object_get(j, "how")), as != NULL ? ", answered as " : "",
	    as != NULL ? as : "");
	if ((why = json_string_value(json_object_get(j, "why"))) != NULL)
		printf("             %s\n", why);
	if ((snip = json_string_value(json_object_get(j, "snippet"))) != NULL)
		printf("\nSnippet:\n\n%s", snip);
	json_decref(j);
}

/* Whether the model has no curve the question could be answered on. */
static int
rec_unmeasured(const struct model *m, const struct rec_opts *o)
{
	return stack_unmeasured(m, o->stack, &o->q) != NULL;
}

/* The probe directory: PWTUNE_PROBE_DIR, else the build's or installed. */
static const char *
rec_probe_dir(char *where, size_t len)
{
	const char	*dir;

	if ((dir = getenv("PWTUNE_PROBE_DIR")) != NULL && dir[0] != '\0')
		return dir;
	probe_default_dir(PWTUNE_PROBE_DIR, where, len);
	return where;
}

/*
 * From cold (no --from, no --db), with --stack NAME: the stack's probe
 * runs here after the library's points, as the daemon's runner runs it,
 * so that the answer holds in the runtime measured here. A probe that
 * cannot run leaves the library's answer, and says why.
 */
static void
rec_stack_probe(const struct rec_opts *o, struct model *m)
{
	const struct stack_def		*sd = stack_find(o->stack);
	struct stack_probe_point	 pp[STACK_PROBE_POINTS];
	struct stack_point		 sp[PROBE_POINTS_MAX];
	struct probe_opts		 po;
	struct probe_result		 r;
	struct model_stack		 st;
	const char			*dir;
	char				 err[256], where[PATH_MAX];
	size_t				 n, i;

	if (sd == NULL)
		return;
	dir = rec_probe_dir(where, sizeof(where));
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "%s", sd->name);
	st.how = MODEL_STACK_LIBRARY;
	n = stack_probe_points(m, sd, m->mem_budget / 1024, pp,
	    STACK_PROBE_POINTS);
	probe_opts_init(&po);
	po.mem_budget = m->mem_budget;
	po.model = m;
	po.cancel = &rec_cancel;
	if (!o->quiet)
		fprintf(stderr, "pwtune recommend: timing %s itself (%zu "
		    "points)\n", sd->name, n);
	if (n == 0)
		snprintf(st.why, sizeof(st.why), "no point fits the memory "
		    "budget");
	else if (probe_run(sd, dir, pp, n, &po, &r) == -1 || r.npoints == 0)
		snprintf(st.why, sizeof(st.why), "%s", r.why);
	else {
		for (i = 0; i < r.npoints; i++) {
			memset(&sp[i], 0, sizeof(sp[i]));
			sp[i].m_kib = r.points[i].pt.m_kib;
			sp[i].t = r.points[i].pt.t;
			sp[i].p = r.points[i].pt.p;
			sp[i].k = 1;
			sp[i].n = r.points[i].nsamples;
			sp[i].median_ms = r.points[i].median_ms;
			sp[i].p95_ms = r.points[i].p95_ms;
			sp[i].probe = 1;
		}
		if (stack_fit(m, sd->name, sp, r.npoints, &st, err,
		    sizeof(err)) == -1)
			snprintf(st.why, sizeof(st.why), "%.180s", err);
		snprintf(st.runtime, sizeof(st.runtime), "%s", r.runtime);
		if (st.how == MODEL_STACK_PROBED)
			snprintf(st.shares, sizeof(st.shares), "%s",
			    probe_shares(sd, &r));
	}
	st.runtime_here = n == 0 ? MODEL_RUNTIME_UNKNOWN :
	    probe_runtime_of(probe_status_name(r.status));
	if (st.how == MODEL_STACK_LIBRARY && !o->quiet)
		cli_warnx("recommend: %s was not measured (%s): the answer is "
		    "its library's", sd->name, st.why);
	model_stack_set(m, &st);
}

/*
 * From cold, the stacks no probe ran for: whether their runtime is here
 * (then --stack NAME times it) or not, as the daemon's table says after
 * its run, rather than a guess.
 */
static void
rec_stacks_unprobed(struct model *m)
{
	const struct stack_def	*all;
	struct model_stack	 st;
	const char		*dir;
	char			 where[PATH_MAX], path[PATH_MAX], why[160];
	size_t			 n, i;
	int			 rc;

	dir = rec_probe_dir(where, sizeof(where));
	all = stack_catalogue(&n);
	for (i = 0; i < n; i++) {
		if (stack_is_library(&all[i]) ||
		    model_stack_find(m, all[i].name) != NULL)
			continue;
		memset(&st, 0, sizeof(st));
		snprintf(st.name, sizeof(st.name), "%s", all[i].name);
		st.how = MODEL_STACK_LIBRARY;
		st.c = 1;
		why[0] = '\0';
		rc = probe_resolve(&all[i], dir, path, sizeof(path), why,
		    sizeof(why));
		if (rc == -2)
			snprintf(st.why, sizeof(st.why), "%s", why);
		else if (rc == -1) {
			st.runtime_here = MODEL_RUNTIME_MISSING;
			snprintf(st.why, sizeof(st.why), "not installed: %s",
			    why);
		} else {
			st.runtime_here = MODEL_RUNTIME_HERE;
			snprintf(st.why, sizeof(st.why), "its runtime is here; "
			    "pwtune recommend --stack %s times it",
			    all[i].name);
		}
		probe_clean(st.why);	/* a path and strerror: shown */
		model_stack_set(m, &st);
	}
}

/*
 * The store's corrections of the model's stacks and the checks taken
 * under its run (--db), as the daemon's model has them.
 */
static void
rec_db_stacks(const char *locator, struct model *m)
{
	struct db_open_opts	 dbo = { 1, 0, 0, NULL, NULL };
	struct db		*db = NULL;
	size_t			 used;
	char			 err[512];

	if (db_open(locator, &dbo, &db, err, sizeof(err)) != DB_OK) {
		cli_warnx("recommend: the stacks' corrections were not read: "
		    "%s", err);
		return;
	}
	/* Each on its own, as the daemon's refit takes them. */
	if (db_model_stacks(db, m->host_id, m, err, sizeof(err)) != DB_OK)
		cli_warnx("recommend: the stacks' corrections were not read: "
		    "%s", err);
	if (db_model_checks(db, m->host_id, m->run_id, DB_CHECKS_MAX_AGE_S,
	    DB_CHECKS_MAX, m, &used, err, sizeof(err)) != DB_OK)
		cli_warnx("recommend: the daemon's checks were not read: %s",
		    err);
	db_close(db);
}

static void
rec_print_text(const struct rec_opts *o, const struct model *m,
    const struct report *rep, const struct tune_answer *a,
    double measured_ms, int steps)
{
	json_t			*snips;
	const char		*lang;
	json_t			*code;
	const struct stack_def	*sd;
	char			 size[32], flight[32], loo[160], lib[96];
	const struct model_curve *cv;
	size_t		 ok = 0, i;

	/* The run's own: the curves other runs add are said apart. */
	for (i = 0; i < (rep->merged ? rep->nown : rep->n); i++)
		ok += rep->results[i].status == MEASURE_OK;
	units_format_kib(a->m_kib, size, sizeof(size));
	units_format_kib(a->in_flight_kib, flight, sizeof(flight));
	/*
	 * A runtime's answer names the runtime: "php through libargon2",
	 * "go sized on libargon2" (its own code, on that curve's shape).
	 */
	sd = o->stack != NULL ? stack_find(o->stack) : NULL;
	if (sd != NULL && strcmp(sd->name, kdf_backend_name(a->backend)) != 0)
		snprintf(lib, sizeof(lib), "%s %s %s", sd->name,
		    stack_own_code(sd) ? "sized on" : "through",
		    kdf_backend_name(a->backend));
	else
		snprintf(lib, sizeof(lib), "%s", kdf_backend_name(a->backend));
	printf("%s for %s under %.0f ms at p%d with %u hash%s at once "
	    "(%s, floor %s, %s)\n\n", a->met ? "Recommendation" :
	    "Closest admissible answer", kdf_alg_title(a->variant),
	    a->target_ms, a->percentile, (unsigned)a->k, a->k == 1 ? "" : "es",
	    lib, tune_floor_name(a->floor),
	    tune_objective_name(a->objective));
	printf("  m = %u KiB (%s), t = %u, p = %u\n", (unsigned)a->m_kib, size,
	    (unsigned)a->t, (unsigned)a->p);
	printf("  PHC prefix:  %s\n", a->phc_prefix);
	/* libsodium's figures only where it may be the library that hashes. */
	if (sd == NULL || sd->base == KDF_BACKEND_LIBSODIUM) {
		if (a->p == 1 && a->variant != KDF_ALG_ARGON2D &&
		    tune_sodium_takes_t(a))
			printf("  libsodium:   opslimit %u, memlimit %llu\n",
			    (unsigned)a->t, (unsigned long long)a->m_kib * 1024);
		else if (!tune_sodium_takes_t(a))
			printf("  libsodium:   cannot use these (its Argon2i "
			    "takes t = 3 at least)\n");
		else
			printf("  libsodium:   cannot use these (crypto_pwhash "
			    "and PHP's sodium functions compute p = 1 "
			    "only)\n");
	}
	printf("  Predicted:   %.1f ms at p%d, %.1f ms median, with %u at "
	    "once%s", a->predicted_ms, a->percentile, a->predicted_p50_ms,
	    (unsigned)a->k, a->extrapolated ? " (extrapolated)" : "");
	/* The headroom was searched under; a missed target had none. */
	if (a->met)
		printf(";\n               %.0f %% headroom for the model's "
		    "error\n", 100 * a->headroom);
	else
		printf("\n");
	if (measured_ms >= 0)
		printf("  Measured:    %.1f ms at p%d (--verify%s)\n",
		    measured_ms, a->percentile, steps ? ", after stepping "
		    "down" : "");
	printf("  Capacity:    %.1f hashes per second with %u at once\n",
	    a->capacity_per_s, (unsigned)a->k);
	printf("  Memory:      %s in flight (%u x %s)\n", flight,
	    (unsigned)a->k, size);
	printf("  Floor:       %s %s%s\n", tune_floor_name(a->floor),
	    a->met ? "met" : "met, target missed",
	    a->floor_decided ? " (it decided the answer)" : "");
	printf("  Attacker:    about %.0f guesses per second on one GPU with "
	    "960 GB/s of memory bandwidth;\n               about $%.0f per "
	    "10^9 guesses at $3.50 per GPU-hour\n", a->gpu_guesses_per_s,
	    a->usd_per_1e9_guesses);
	model_loo_text(m, loo, sizeof(loo));
	printf("  Model:       %s run of %s (%zu points measured), %s\n",
	    rep->profile, rep->created, ok, loo);
	/* Sized on a curve another run measured: which, and how well. */
	if ((cv = model_curve_find(m, a->backend, a->variant, a->p)) != NULL &&
	    cv->other_run) {
		char	label[64];

		model_curve_label(cv, label, sizeof(label));
		printf("  Curve:       %s, from run %lld (%zu points), "
		    "leave-one-out error ", label, (long long)cv->run_id,
		    cv->npoints);
		if (cv->loo_n > 0)
			printf("median %.1f %%, worst %.1f %%\n",
			    100 * cv->loo_median, 100 * cv->loo_worst);
		else
			printf("unknown (too few points)\n");
	}
	printf("  Quality:     %s (%s)\n", model_quality_name(m->quality),
	    m->quality_why);
	/* A daemon's store: its answers can still differ, and say why. */
	if (o->db != NULL && o->scope == NULL)
		printf("  Daemon:      this host's pwtuned, when it serves this "
		    "run (GET /v1/model), also\n               corrects each "
		    "question by what its background checks measured of\n"
		    "               its answer: its answer (GET "
		    "/v1/recommendation, with verified) can differ\n");
	{
		char	poor[sizeof(m->quality_why) + 32];

		/* A poor model's why is the Quality line's: its advice only. */
		if ((size_t)snprintf(poor, sizeof(poor), TUNE_POOR_SAID
		    "%s. ", m->quality_why) >= sizeof(poor))
			poor[0] = '\0';
		/* The libraries' comparison: the Stacks table's figures. */
		if (o->stack == NULL) {
			struct tune_answer	b = *a;

			tune_note_drop(&b, TUNE_LIBRARIES_SAID);
			rec_print_notes(b.notes, poor);
		} else
			rec_print_notes(a->notes, poor);
	}
	if (o->stack != NULL) {
		rec_print_stack(m, o->stack, &o->q, a);
		return;
	}
	rec_print_stacks(m, &o->q, a, o->from == NULL &&
	    o->db == NULL);
	/* Each at its own stack's answer (the table above). */
	snips = api_stack_snippets(m, &o->q, a, NULL, NULL);
	printf("\nSnippets (each with its own stack's parameters):\n");
	json_object_foreach(snips, lang, code)
		printf("\n--- %s\n%s", lang, json_string_value(code));
	json_decref(snips);
}

static void
rec_print_json(const struct rec_opts *o, const struct model *m,
    const struct tune_answer *a, const char *error, double measured,
    int steps)
{
	struct tune_rehash	 rh;
	json_t			*j;
	char			 why[512];

	if (o->stack != NULL)
		j = api_stack_answer_json(m, o->stack, &o->q, a, NULL);
	else if ((j = tune_answer_to_json(a, m)) != NULL)
		api_stacks_add(j, m, &o->q, a, NULL, "--stack ");
	if (j == NULL) {
		cli_warnx("recommend: out of memory");
		return;
	}
	if (measured >= 0)
		json_object_set_new(j, "verified", json_pack("{s:f, s:i}",
		    "measured_ms", measured, "steps_down", steps));
	if (error != NULL)
		json_object_set_new(j, "error", json_string(error));
	if (o->check != NULL) {
		if (tune_needs_rehash(o->check, a, &rh, why, sizeof(why)) == 0)
			json_object_set_new(j, "needs_rehash", json_pack(
			    "{s:b, s:b}", "differs", rh.differs, "weaker",
			    rh.weaker));
		else
			json_object_set_new(j, "needs_rehash",
			    json_pack("{s:s}", "error", why));
	}
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	putchar('\n');
	json_decref(j);
}

/*
 * --format phc: the PHC prefix a hash of these parameters starts with;
 * --format env: shell assignments, for eval "$(pwtune recommend ...)".
 */
const char *
rec_memory_hint(const struct tune_query *q)
{
	if (q->memory_max_kib > 0 && q->memory_max_kib / q->k < 1024)
		return " (--memory-max: a size without a unit is KiB, "
		    "--memory-max 64MiB is 64 MiB)";
	return "";
}

void
rec_print_notes(const char *notes, const char *drop)
{
	char		copy[sizeof(((struct tune_answer *)0)->notes)], *line,
			*save = NULL;
	size_t		dl = drop != NULL ? strlen(drop) : 0;

	if (notes[0] == '\0')
		return;
	snprintf(copy, sizeof(copy), "%s", notes);
	cli_spell_options(copy, sizeof(copy));
	printf("\nNotes:\n");
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		printf("  - %s\n", dl > 0 && strncmp(line, drop, dl) == 0 &&
		    line[dl] != '\0' ? line + dl : line);
}

void
rec_print_terse(const struct tune_answer *a, enum rec_format f)
{
	if (f == REC_PHC)
		printf("%s\n", a->phc_prefix);
	else
		printf("ARGON2_M_KIB=%u ARGON2_T=%u ARGON2_P=%u\n",
		    (unsigned)a->m_kib, (unsigned)a->t, (unsigned)a->p);
}

/*
 * From cold, one target: measured near it (recommend_search.c) unless
 * the quick profile is asked for or the question needs a model (a stack,
 * the presets, attacker-cost, more hashes at once than one point takes).
 */
static int
rec_searched(const struct rec_opts *o)
{
	return o->from == NULL && o->db == NULL && o->profile == NULL &&
	    o->stack == NULL && !o->presets &&
	    o->q.objective == TUNE_MEMORY_FIRST && o->q.k <= MEASURE_K_MAX;
}

static int
rec_search_answer(const struct rec_opts *o)
{
	struct search_result	 r;
	struct tune_rehash	 rh;
	json_t			*j;
	char			 why[512];
	int			 rc;

	if ((rc = rec_search(&o->q, o->quiet || o->format != REC_TABLE,
	    &rec_cancel, &r)) < 0)
		return rc == -2 ? CLI_EXIT_USAGE : CLI_EXIT_ENV;
	switch (o->format) {
	case REC_JSON:
		if ((j = rec_search_json(&r)) == NULL)
			return CLI_EXIT_ENV;
		if (o->check != NULL) {
			if (tune_needs_rehash(o->check, &r.a, &rh, why,
			    sizeof(why)) == 0)
				json_object_set_new(j, "needs_rehash",
				    json_pack("{s:b, s:b}", "differs",
				    rh.differs, "weaker", rh.weaker));
		}
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
		putchar('\n');
		json_decref(j);
		break;
	case REC_PHC:
	case REC_ENV:
		rec_print_terse(&r.a, o->format);
		break;
	case REC_TABLE:
		rec_search_print(&r);
		if (o->check != NULL && tune_needs_rehash(o->check, &r.a, &rh,
		    why, sizeof(why)) == 0)
			rec_print_rehash(&rh);
		break;
	}
	if (fflush(stdout) != 0) {
		cli_warnx("recommend: standard output: %s", strerror(errno));
		return CLI_EXIT_ENV;
	}
	return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_NO;
}

int
cmd_recommend(int argc, char **argv)
{
	struct rec_opts		 o;
	struct report		 rep;
	struct model		 m;
	struct tune_answer	 a;
	struct tune_rehash	 rh;
	struct sigaction	 sa;
	char			 err[512], why[512];
	double			 measured = -1;
	int			 rc, steps = 0;
	int64_t			 run_id;
	struct db_model_sources	 src;

	switch (rec_parse(argc, argv, &o)) {
	case 1:
		return CLI_EXIT_OK;
	case -1:
		return CLI_EXIT_USAGE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rec_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.scope != NULL)
		return rec_scope(o.db, o.scope, o.group, o.max_age_days * 86400,
		    &o.q, o.format);
	/* A floor the stack's runtime never reaches: said before measuring. */
	if (o.stack != NULL && stack_floor_reachable(stack_find(o.stack),
	    o.q.floor, o.q.variant, err, sizeof(err)) == -1) {
		cli_warnx("recommend: %s", err);
		return CLI_EXIT_NO;
	}
	/* The daemon's store of make run, beside: where its answers are. */
	if (o.from == NULL && o.db == NULL && !o.quiet &&
	    access(REC_RUN_STORE, F_OK) == 0)
		fprintf(stderr, "pwtune recommend: measuring this host now; "
		    "%s is a store (make run's daemon keeps it): --db %s "
		    "answers from what it measured\n", REC_RUN_STORE,
		    REC_RUN_STORE);
	if (rec_searched(&o))
		return rec_search_answer(&o);
	if ((rc = rec_report(&o, &rep, &run_id, &src)) != 0)
		return rc;
	if (model_fit(&rep, &m, err, sizeof(err)) == -1) {
		cli_warnx("recommend: %s", err);
		report_release(&rep);
		/* The data named cannot make a model; or none was measured. */
		return o.from != NULL || o.db != NULL ? CLI_EXIT_USAGE :
		    CLI_EXIT_ENV;
	}
	m.run_id = run_id;
	if (o.db != NULL) {
		/* Each curve's run: the grids stored beside it too. */
		db_model_sources_apply(&src, run_id, &m);
		rec_db_stacks(o.db, &m);
	}
	if (o.stack != NULL && stack_find(o.stack) == NULL &&
	    model_stack_find(&m, o.stack) == NULL) {
		rec_unknown_stack(o.stack);
		report_release(&rep);
		return CLI_EXIT_USAGE;
	}
	if (o.stack != NULL && o.from == NULL && o.db == NULL)
		rec_stack_probe(&o, &m);
	if (o.from == NULL && o.db == NULL)
		rec_stacks_unprobed(&m);
	if (o.presets) {
		rec_print_presets(&m, &o.q);
		if (o.q.target_ms <= 0 || argc <= 2) {
			report_release(&rep);
			return CLI_EXIT_OK;
		}
		putchar('\n');
	}
	/* The default answer is its stack's (corrected when measured). */
	if (o.stack != NULL || (o.q.backend == KDF_BACKEND_AUTO &&
	    o.q.parallelism <= 1))
		rc = stack_recommend(&m, o.stack, &o.q, &a, err, sizeof(err));
	else
		rc = tune_recommend(&m, &o.q, &a, err, sizeof(err));
	if (rc == -1) {
		cli_spell_options(err, sizeof(err));
		cli_warnx("recommend: %s%s", err, rec_memory_hint(&o.q));
		report_release(&rep);
		/*
		 * Nothing measured that answers it (a stack's library, the
		 * variant, the p asked), or a runtime's limit keeps it under
		 * the floor: a negative answer.
		 */
		return rec_unmeasured(&m, &o) || stack_limit_refused(err) ?
		    CLI_EXIT_NO : CLI_EXIT_USAGE;
	}
	if (rc == 0 && o.verify) {
		rec_verify(&m, &o.q, &a, &measured, &steps);
		if (measured >= 0 && o.db != NULL && run_id > 0)
			rec_store_verification(o.db, run_id, &a, measured);
	}
	if (rc == 1 && o.format != REC_JSON) {
		cli_spell_options(err, sizeof(err));
		cli_warnx("recommend: %s", err);
	}
	switch (o.format) {
	case REC_JSON:
		rec_print_json(&o, &m, &a, rc == 1 ? err : NULL, measured,
		    steps);
		break;
	case REC_PHC:
	case REC_ENV:
		rec_print_terse(&a, o.format);
		break;
	case REC_TABLE:
		rec_print_text(&o, &m, &rep, &a, measured, steps);
		if (o.check == NULL)
			break;
		if (tune_needs_rehash(o.check, &a, &rh, why, sizeof(why)) == 0)
			rec_print_rehash(&rh);
		else
			printf("\nneeds-rehash: the hash given does not parse: "
			    "%s\n", why);
		break;
	}
	report_release(&rep);
	if (fflush(stdout) != 0) {
		cli_warnx("recommend: standard output: %s", strerror(errno));
		return CLI_EXIT_ENV;
	}
	return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_NO;
}
