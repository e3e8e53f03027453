/*
 * cli/cmd_db.c: `pwtune db`: look into a store and move results between
 * hosts.
 *
 *   pwtune db list   --db FILE [--limit N]
 *   pwtune db export --db FILE [--run ID]     > results.json
 *   pwtune db import --db FILE results.json   (or - for standard input)
 *   pwtune db check  --db FILE
 *
 * The JSON is the one `pwtune bench --json` writes. --db may be left out
 * when PWTUNE_DB names the store.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "db.h"

#define IMPORT_MAX	(64 << 20)	/* bytes of JSON */

#define DB	"db"

/*
 * The exit status of a store's failure: corrupt (check's answer) or no
 * such run is a negative answer; a file that is not a store was named by
 * mistake; the rest (missing, unreadable, unreachable, busy, full) is the
 * environment.
 */
int
cli_db_exit(int status)
{
	switch (status) {
	case DB_OK:
		return CLI_EXIT_OK;
	case DB_ERR_CORRUPT:
	case DB_ERR_NOTFOUND:
		return CLI_EXIT_NO;
	case DB_ERR_INVALID:
		return CLI_EXIT_USAGE;
	default:
		return CLI_EXIT_ENV;
	}
}

static void
db_usage(FILE *fp)
{
	fputs(
"Usage: pwtune db list   [--db STORE] [--limit N]\n"
"       pwtune db export [--db STORE] [--run ID]       > results.json\n"
"       pwtune db import [--db STORE] results.json     (- for stdin)\n"
"       pwtune db check  [--db STORE]\n"
"--db (a file, or a postgresql:// URI) defaults to $PWTUNE_DB. export\n"
"writes the newest finished run unless --run names one, in the format\n"
"of pwtune bench --json; import stores such a file as a finished run;\n"
"check runs SQLite's\n"
"integrity_check (exit 0 when it says ok) and changes nothing. Only a\n"
"pwtune store is a store (or, for import, a file that does not exist yet\n"
"or is empty): any other file, another program's SQLite database too, is\n"
"refused and left as it is.\n"
"Exit status: 0 ok, 1 check found the store corrupt or the run asked for\n"
"is not there, 2 bad usage or input (a malformed JSON file, a file that\n"
"is not a store), 3 a file or store that is missing, unreadable or\n"
"unreachable.\n", fp);
}

static void
db_cli_log(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warnx("%s", msg);
}

static int
db_cmd_list(struct db *db, uint32_t limit)
{
	struct db_run	*runs;
	size_t		 n, i;
	char		 err[512];
	int		 st;

	if ((st = db_runs_list(db, NULL, limit, &runs, &n, err,
	    sizeof(err))) != DB_OK) {
		cli_warnx("db list: %s", err);
		return cli_db_exit(st);
	}
	printf("%6s  %-8s  %-24s  %-8s  %-11s  %7s  %-20s  %s\n", "Run",
	    "Host", "Profile", "Trigger", "Status", "Points", "Created",
	    "Error");
	for (i = 0; i < n; i++)
		printf("%6lld  %-8.8s  %-24.24s  %-8s  %-11s  %3d/%-3d  %-20s  "
		    "%s\n", (long long)runs[i].id, runs[i].host_id,
		    runs[i].profile, db_trigger_name(runs[i].trigger),
		    db_run_status_name(runs[i].status), runs[i].points_done,
		    runs[i].points_total, runs[i].created, runs[i].error);
	free(runs);
	return CLI_EXIT_OK;
}

static int
db_cmd_export(struct db *db, int64_t id)
{
	struct report	 rep;
	json_t		*j;
	char		 err[512];
	int		 rc, st;

	if (id == 0 && (st = db_run_latest_done(db, NULL, NULL, &id, err,
	    sizeof(err))) != DB_OK) {
		cli_warnx("db export: %s", err);
		return cli_db_exit(st);
	}
	if ((st = db_run_report(db, id, &rep, err, sizeof(err))) != DB_OK) {
		cli_warnx("db export: %s", err);
		return cli_db_exit(st);
	}
	j = report_to_json(&rep, 1);
	report_release(&rep);
	rc = json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(j);
	fputc('\n', stdout);
	if (rc != 0 || fflush(stdout) != 0) {
		cli_warnx("db export: cannot write: %s", strerror(errno));
		return CLI_EXIT_ENV;
	}
	return CLI_EXIT_OK;
}

/*
 * Read and check the JSON to import, before any store is opened: a file
 * missing or unreadable is 3, one that is not a run is 2.
 */
static int
db_load_report(const char *path, struct report *rep)
{
	json_t		*j;
	struct stat	 sb;
	char		 err[4200];
	int		 rc;

	if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 &&
	    sb.st_size > IMPORT_MAX) {
		cli_warnx("db import: %s is larger than %d MiB", path,
		    IMPORT_MAX >> 20);
		return CLI_EXIT_USAGE;
	}
	if ((rc = cli_load_json(path, &j, err, sizeof(err))) != 0) {
		cli_warnx("db import: %s%s", path[0] == '\0' ? "FILE " : "",
		    err);
		return rc;
	}
	rc = report_from_json(j, rep, err, sizeof(err));
	json_decref(j);
	if (rc == -1) {
		cli_warnx("db import: %s: %s", path, err);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

static int
db_cmd_import(struct db *db, const char *path, struct report *rep)
{
	char	 err[512];
	int64_t	 id;
	int	 st;

	if ((st = db_import_report(db, rep, &id, err, sizeof(err))) != DB_OK) {
		cli_warnx("db import: %s", err);
		return cli_db_exit(st);
	}
	printf("imported %s as run %lld (host %s, %zu points)\n", path,
	    (long long)id, rep->host.host_id, rep->n);
	return CLI_EXIT_OK;
}

/* Remove the store a failed import created: it holds nothing. */
static void
db_remove_new(const char *path)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	char	name[4200];
	size_t	i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", path, sfx[i]);
		unlink(name);
	}
}

/* Parse the verb's options. Returns 0, 1 for help, or -1 (said why). */
static int
db_parse(int argc, char **argv, const char **path, const char **file,
    uint32_t *limit, uint32_t *runid)
{
	const char	*verb = argv[1], *a, *v, *eq;
	char		 cmd[32], name[64];
	int		 i, step;

	snprintf(cmd, sizeof(cmd), "db %s", verb);
	for (i = 2; i < argc; i++) {
		a = cli_opt(argv[i], name, sizeof(name), &eq);
		v = eq != NULL ? eq : i + 1 < argc ? argv[i + 1] : NULL;
		step = eq == NULL;	/* the value's own argument */
		if (cli_is_help(a) && cli_no_value(cmd, a, eq) == -1)
			return -1;
		if (cli_is_help(a))
			return 1;
		if (strcmp(a, "--db") == 0) {
			if ((*path = v) == NULL)
				return cli_bad_value(cmd, a, v, "a store (an "
				    "SQLite file or a postgresql:// URI)");
			i += step;
		} else if (strcmp(a, "--run") == 0 &&
		    strcmp(verb, "export") == 0) {
			if (cli_flag_u32(cmd, a, v, 1, UINT32_MAX, "a run id",
			    runid) == -1)
				return -1;
			i += step;
		} else if (strcmp(a, "--limit") == 0 &&
		    strcmp(verb, "list") == 0) {
			if (cli_flag_u32(cmd, a, v, 1, DB_RUNS_LIST_MAX, "runs",
			    limit) == -1)
				return -1;
			i += step;
		} else if (*file == NULL && strcmp(verb, "import") == 0 &&
		    (a[0] != '-' || strcmp(a, "-") == 0))
			*file = a;
		else if (a[0] == '-')
			return cli_usage_error(cmd, "unknown option %.60s", a);
		else
			return cli_usage_error(cmd, "unexpected argument %.60s",
			    a);
	}
	if (*path == NULL)
		return cli_usage_error(cmd, "name the store with --db STORE "
		    "or PWTUNE_DB");
	if (cli_store_name(cmd, getenv("PWTUNE_DB") == *path ? "PWTUNE_DB" :
	    "--db", *path) == -1)
		return -1;
	if (strcmp(verb, "import") == 0 && *file == NULL)
		return cli_usage_error(cmd, "name the JSON file to import "
		    "(- for standard input)");
	return 0;
}

int
cmd_db(int argc, char **argv)
{
	struct db_open_opts	 o = { 0, 0, 0, db_cli_log, NULL };
	struct db		*db;
	struct report		 rep;
	const char		*verb, *path = getenv("PWTUNE_DB"), *file = NULL;
	struct stat		 sb;
	char			 err[512], result[4096];
	uint32_t		 limit = 50, runid = 0;
	int			 rc, st, created;

	if (argc >= 2 && cli_is_help(argv[1])) {
		db_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (argc < 2) {
		cli_usage_error(DB, "which: list, export, import or check");
		return CLI_EXIT_USAGE;
	}
	verb = argv[1];
	if (strcmp(verb, "list") && strcmp(verb, "export") &&
	    strcmp(verb, "import") && strcmp(verb, "check")) {
		cli_bad_value(DB, "the command", verb,
		    "list, export, import or check");
		return CLI_EXIT_USAGE;
	}
	switch (db_parse(argc, argv, &path, &file, &limit, &runid)) {
	case 1:
		db_usage(stdout);
		return CLI_EXIT_OK;
	case -1:
		return CLI_EXIT_USAGE;
	}
	/*
	 * Only import writes; the rest open the store read-only (check too:
	 * it reports a corrupt store and leaves it as it is) and must not
	 * create one by mistake. import reads its file first, and removes
	 * the store it created when the import fails.
	 */
	created = 0;
	if (strcmp(verb, "import") != 0) {
		if (!db_is_postgresql(path) && access(path, F_OK) == -1) {
			db_locator_redact(path, result, sizeof(result));
			cli_warnx("db %s: %s: %s", verb, result,
			    strerror(errno));
			return CLI_EXIT_ENV;
		}
		o.readonly = 1;
	} else {
		if ((rc = db_load_report(file, &rep)) != CLI_EXIT_OK)
			return rc;
		/* lstat: a link to nothing is not made here, nor removed. */
		created = !db_is_postgresql(path) && strcmp(path,
		    ":memory:") != 0 && lstat(path, &sb) == -1 &&
		    errno == ENOENT;
	}
	if ((st = db_open(path, &o, &db, err, sizeof(err))) != DB_OK) {
		cli_warnx("db %s: %s", verb, err);
		if (strcmp(verb, "import") == 0) {
			if (created)
				db_remove_new(path);
			report_release(&rep);
		}
		/* check's answer about a corrupt store is a negative one. */
		return st == DB_ERR_CORRUPT && strcmp(verb, "check") != 0 ?
		    CLI_EXIT_ENV : cli_db_exit(st);
	}
	if (strcmp(verb, "list") == 0)
		rc = db_cmd_list(db, limit);
	else if (strcmp(verb, "export") == 0)
		rc = db_cmd_export(db, runid);
	else if (strcmp(verb, "import") == 0) {
		rc = db_cmd_import(db, file, &rep);
		report_release(&rep);
		if (rc != CLI_EXIT_OK && created) {
			db_close(db);
			db_remove_new(path);
			return rc;
		}
	} else if ((st = db_check(db, result, sizeof(result), err,
	    sizeof(err))) != DB_OK) {
		cli_warnx("db check: %s", err);
		rc = cli_db_exit(st);
	} else {
		printf("%s\n", result);
		rc = strcmp(result, "ok") == 0 ? CLI_EXIT_OK : CLI_EXIT_NO;
	}
	db_close(db);
	return rc;
}
