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

static void
db_usage(FILE *fp)
{
	fputs(
"Usage: pwtune db list   [--db STORE] [--limit N]\n"
"       pwtune db export [--db STORE] [--run ID]       > results.json\n"
"       pwtune db import [--db STORE] results.json     (- for stdin)\n"
"       pwtune db check  [--db STORE]\n"
"--db (a file, or a postgresql:// URI) defaults to $PWTUNE_DB. export writes the newest finished run\n"
"unless --run names one, in the format of pwtune bench --json; import\n"
"stores such a file as a finished run; check runs SQLite's\n"
"integrity_check (exit 0 when it says ok) and changes nothing. Only an\n"
"SQLite file (or a file that does not exist yet, for import) is a store:\n"
"any other file is refused and left as it is.\n", fp);
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

	if (db_runs_list(db, NULL, limit, &runs, &n, err, sizeof(err)) !=
	    DB_OK) {
		cli_warnx("db: %s", err);
		return CLI_EXIT_FAIL;
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
	int		 rc;

	if (id == 0 && db_run_latest_done(db, NULL, NULL, &id, err,
	    sizeof(err)) != DB_OK) {
		cli_warnx("db export: %s", err);
		return CLI_EXIT_FAIL;
	}
	if (db_run_report(db, id, &rep, err, sizeof(err)) != DB_OK) {
		cli_warnx("db export: %s", err);
		return CLI_EXIT_FAIL;
	}
	j = report_to_json(&rep, 1);
	report_release(&rep);
	rc = json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(j);
	fputc('\n', stdout);
	if (rc != 0 || fflush(stdout) != 0) {
		cli_warnx("db export: cannot write: %s", strerror(errno));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/* Read and check the JSON to import, before any store is opened. */
static int
db_load_report(const char *path, struct report *rep)
{
	json_error_t	 jerr;
	json_t		*j;
	struct stat	 sb;
	char		 err[512];
	int		 rc;

	if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 &&
	    sb.st_size > IMPORT_MAX) {
		cli_warnx("db import: %s is larger than %d MiB", path,
		    IMPORT_MAX >> 20);
		return CLI_EXIT_USAGE;
	}
	j = strcmp(path, "-") == 0 ?
	    json_loadf(stdin, JSON_REJECT_DUPLICATES, &jerr) :
	    json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (j == NULL) {
		cli_warnx("db import: %s:%d: %s", path, jerr.line, jerr.text);
		return CLI_EXIT_USAGE;
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

	if (db_import_report(db, rep, &id, err, sizeof(err)) != DB_OK) {
		cli_warnx("db import: %s", err);
		return CLI_EXIT_FAIL;
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

int
cmd_db(int argc, char **argv)
{
	struct db_open_opts	 o = { 0, 0, 0, db_cli_log, NULL };
	struct db		*db;
	struct report		 rep;
	const char		*verb, *path = getenv("PWTUNE_DB"), *file = NULL;
	char			 err[512], result[4096];
	uint32_t		 limit = 50, runid = 0;
	int			 i, rc, created;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		db_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
	}
	verb = argv[1];
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strcmp(argv[i], "--run") == 0 && i + 1 < argc) {
			if (cli_parse_u32(argv[++i], 1, UINT32_MAX, &runid) ==
			    -1) {
				cli_warnx("db: bad run id %s", argv[i]);
				return CLI_EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
			if (cli_parse_u32(argv[++i], 1, DB_RUNS_LIST_MAX,
			    &limit) == -1) {
				cli_warnx("db: bad limit %s", argv[i]);
				return CLI_EXIT_USAGE;
			}
		} else if (file == NULL && strcmp(verb, "import") == 0 &&
		    (argv[i][0] != '-' || strcmp(argv[i], "-") == 0))
			file = argv[i];
		else {
			cli_warnx("db: unexpected argument %s", argv[i]);
			db_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (strcmp(verb, "list") && strcmp(verb, "export") &&
	    strcmp(verb, "import") && strcmp(verb, "check")) {
		cli_warnx("db: unknown command %s", verb);
		db_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (path == NULL) {
		cli_warnx("db: name the store with --db STORE or PWTUNE_DB");
		return CLI_EXIT_USAGE;
	}
	if (strcmp(verb, "import") == 0 && file == NULL) {
		cli_warnx("db import: name the JSON file to import");
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
			cli_warnx("db: %s: %s", result, strerror(errno));
			return CLI_EXIT_FAIL;
		}
		o.readonly = 1;
	} else {
		if ((rc = db_load_report(file, &rep)) != CLI_EXIT_OK)
			return rc;
		created = !db_is_postgresql(path) && strcmp(path,
		    ":memory:") != 0 && access(path, F_OK) == -1 &&
		    errno == ENOENT;
	}
	if (db_open(path, &o, &db, err, sizeof(err)) != DB_OK) {
		cli_warnx("db: %s", err);
		if (strcmp(verb, "import") == 0) {
			if (created)
				db_remove_new(path);
			report_release(&rep);
		}
		return CLI_EXIT_FAIL;
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
	} else if (db_check(db, result, sizeof(result), err, sizeof(err)) !=
	    DB_OK) {
		cli_warnx("db check: %s", err);
		rc = CLI_EXIT_FAIL;
	} else {
		printf("%s\n", result);
		rc = strcmp(result, "ok") == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	}
	db_close(db);
	return rc;
}
