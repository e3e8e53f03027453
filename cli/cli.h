/*
 * cli/cli.h: the pwtune command, one file per subcommand:
 *
 *   pwtune.c            subcommand dispatch, pwtune help, --version
 *   cmd_hash.c          pwtune hash (drop-in for the reference argon2)
 *   cmd_verify.c        pwtune verify
 *   cmd_bench.c         pwtune bench; bench_output.c its tables and files
 *   cmd_stress.c        pwtune stress
 *   cmd_soak.c          pwtune soak
 *   cmd_repl.c          pwtune repl
 *   cmd_db.c            pwtune db list, export, import, check
 *   cmd_recommend.c     pwtune recommend; recommend_scope.c --scope
 *                       group|fleet, through api/scope.c (the daemon's
 *                       own path for scope=)
 *   cli_measure.c       the host probe and progress bar bench and
 *                       recommend share
 *   cli_util.c          usage errors, flags' values, password input,
 *                       files, memory check
 *
 * Exit statuses mean one thing in every subcommand (pwtune(1), EXIT
 * STATUS): 0 success; 1 a negative answer (a password that does not
 * verify, a target that cannot be met, a store that is not ok); 2 bad
 * usage or bad input (a flag's value, a malformed file or hash: the
 * message names it); 3 the environment failed (a file missing or
 * unreadable or unwritable, a store unreachable, out of memory, a library
 * error at run time, an interrupted run).
 */
#ifndef PWTUNE_CLI_H
#define PWTUNE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

#define CLI_EXIT_OK	0
#define CLI_EXIT_NO	1	/* a negative answer */
#define CLI_EXIT_USAGE	2	/* bad usage or input */
#define CLI_EXIT_ENV	3	/* file, store, memory */

/* cli_util.c */
void	 cli_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int	 cli_parse_u32(const char *s, uint32_t min, uint32_t max,
	    uint32_t *out);
/*
 * Rewrite, in place within len bytes, the API's parameter names in a
 * text the engine wrote (a note, an error) as the options that set them
 * here: "memory_max" as "--memory-max", "lower concurrency" as "lower
 * --concurrency". Only for the engine's own texts: never one that
 * carries a name the user gave (a file's).
 */
void	 cli_spell_options(char *s, size_t len);
/*
 * Usage errors, one line each, as pwtuned's configuration errors are:
 * "pwtune CMD: WHAT", then one line saying where the help is. cmd is the
 * subcommand as typed ("hash", "db list"). Each returns -1.
 */
int	 cli_usage_error(const char *cmd, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* "FLAG must be ALLOWED, not GIVEN" (or "FLAG needs a value: ALLOWED"). */
int	 cli_bad_value(const char *cmd, const char *flag, const char *given,
	    const char *allowed);
/* Parse v as a whole number from min to max into *out, or say why. */
int	 cli_flag_u32(const char *cmd, const char *flag, const char *v,
	    uint32_t min, uint32_t max, const char *what, uint32_t *out);
/* A size with a unit (64MiB) or KiB as a whole number, up to max_kib. */
int	 cli_flag_size(const char *cmd, const char *flag, const char *v,
	    uint64_t max_kib, uint64_t *kib);
/*
 * A note on stderr when v (a size, or a comma-separated list of them)
 * has a bare number under 1024: KiB, where MiB was likely meant.
 */
void	 cli_kib_note(const char *cmd, const char *flag, const char *v);
/*
 * -m N: 2^N KiB, N from 3 to 32, as the reference argon2 command reads
 * it; a size with a unit is refused with the flags that take one.
 */
int	 cli_flag_log2(const char *cmd, const char *flag, const char *v,
	    uint64_t *kib);
/* Is arg -h or --help? */
int	 cli_is_help(const char *arg);
/*
 * What set a memory budget, in words a reader of the command's output
 * takes: "the cap asked" (--memory-max, or the daemon's memory_max),
 * "half of MemAvailable", "half of what the cgroup leaves".
 */
const char *cli_budget_source_text(enum host_budget_source src);
/*
 * An option as typed: "--name=value" is "--name" (copied to buf) with
 * *value "value"; any other argument is itself with *value NULL (a short
 * option's value is the next argument, as in argon2). Each parser takes
 * the value so split in place of the next argument, and only where it
 * reads an option: a value ("--ad --tenant=x") is never split.
 */
const char *cli_opt(const char *arg, char *buf, size_t size,
	    const char **value);
/* A flag given a value ("--json=x"): says so (exit 2) and -1; else 0. */
int	 cli_no_value(const char *cmd, const char *flag, const char *value);
/*
 * Read the password from standard input into buf, which holds max + 2
 * bytes: all of a pipe's bytes as they are (like the reference argon2
 * command), or one line without echo from a terminal. Returns 0, -1
 * when none was read or it is longer than max bytes (buf is wiped), or -2
 * when standard input cannot be read.
 */
int	 cli_read_password(uint8_t *buf, size_t max, size_t *len,
	    char *err, size_t errlen);
/*
 * path opened for reading if it is a regular file, or a pipe a writer
 * writes to (<(command)); a FIFO nothing writes to within
 * CLI_FIFO_WAIT_MS is refused, never waited on for ever; an empty name is
 * refused: the descriptor, or -1 with why in err.
 */
#define CLI_FIFO_WAIT_MS	2000
/* A store's name (--db, PWTUNE_DB) that keeps something: 0, or -1 with
   a usage error (an empty string, :memory:). */
int	 cli_store_name(const char *cmd, const char *flag, const char *value);
int	 cli_open_regular(const char *path, char *err, size_t errlen);

/* Returns 0, -1 when it holds more than bufsize, -2 when unreadable. */
int	 cli_read_file(const char *path, uint8_t *buf, size_t bufsize,
	    size_t *len, char *err, size_t errlen);
/* The exit status of a cli_read_* failure. */
#define CLI_READ_EXIT(rc)	((rc) == -2 ? CLI_EXIT_ENV : CLI_EXIT_USAGE)
/*
 * Add associated data ad and the secret read from secret_file (into
 * secret) to in; either may be NULL. Returns 0, or as cli_read_file with
 * err.
 */
int	 cli_add_secret_ad(struct kdf_input *in, const char *secret_file,
	    const char *ad, uint8_t secret[KDF_SECRET_MAX], char *err,
	    size_t errlen);
/*
 * Load the JSON in path ("-": standard input) into *out. Returns 0, or
 * the exit status with err: CLI_EXIT_ENV when the file cannot be opened
 * or read, CLI_EXIT_USAGE when it is not JSON.
 */
int	 cli_load_json(const char *path, json_t **out, char *err,
	    size_t errlen);
int	 cli_check_memory(uint64_t need, char *err, size_t errlen);
double	 cli_now(void);
void	 cli_hex(char *dst, const uint8_t *src, size_t len);

/* bench_output.c */
void	 bench_print(FILE *fp, const struct report *rep,
	    enum kdf_backend baseline, int markdown);
int	 bench_write_json(const char *path, const struct report *rep,
	    char *err, size_t errlen);
/* The first line of the CSV bench writes (a file that starts otherwise is
   not one of ours, and is not replaced). */
#define BENCH_CSV_HEADER "backend,variant,version,m_kib,t,p,k,cost,status,n," \
	"min_ms,median_ms,mean_ms,stddev_ms,error_ms,p95_ms,p99_ms,max_ms," \
	"throughput_per_s,peak_rss_kib,noisy,reason"
int	 bench_write_csv(const char *path, const struct report *rep,
	    char *err, size_t errlen);

/* cli_measure.c */
struct cli_progress {
	int	tty;		/* draw only on a terminal */
	double	last;
};

/*
 * Probe the host into rep (host, budget under memory_max, effective
 * parallelism) and set up mo for it. Returns 0, or -1 with err, before
 * the first hash when the budget is under need bytes (0: no check).
 */
int	 cli_probe(struct report *rep, uint64_t memory_max, uint64_t need,
	    struct measure_opts *mo, volatile int *cancel, char *err,
	    size_t errlen);
/* A measure progress callback: a bar on stderr; ctx: struct cli_progress. */
void	 cli_progress_print(void *ctx, const struct measure_progress *p);

/* cmd_db.c */
int	 cmd_db(int argc, char **argv);
/* The exit status of a db_status (enum db_status, db.h). */
int	 cli_db_exit(int status);

/* cmd_bench.c */
int	 cmd_bench(int argc, char **argv);

/* cmd_recommend.c */
int	 cmd_recommend(int argc, char **argv);

/* How recommend prints its answer (--format). */
enum rec_format {
	REC_TABLE,		/* the text for people */
	REC_JSON,		/* the API's object (--json) */
	REC_PHC,		/* $argon2id$v=19$m=...,t=...,p=... alone */
	REC_ENV			/* ARGON2_M_KIB=... ARGON2_T=... ARGON2_P=... */
};

struct tune_answer;
/* An answer's notes as text, one "  - " line each, under "Notes:" (none:
   nothing); a line starting with drop (NULL: none) and going on after it
   is printed without it. */
void	 rec_print_notes(const char *notes, const char *drop);
/* The one line of --format phc or env. */
void	 rec_print_terse(const struct tune_answer *a, enum rec_format f);

struct tune_query;
/* What to say after a memory error when --memory-max is under a MiB a
   hash (a size without a unit is KiB), else "". */
const char *rec_memory_hint(const struct tune_query *q);
/* recommend_scope.c: --scope group|fleet from a shared store. */
/* recommend_search.c: one target measured, from cold (engine/search.h). */
struct search_result;
int	 rec_search(const struct tune_query *q, int quiet,
	    volatile int *cancel, struct search_result *r);
json_t	*rec_search_json(const struct search_result *r);
void	 rec_search_print(const struct search_result *r);

int	 rec_scope(const char *store, const char *scope, const char *group,
	    unsigned max_age, const struct tune_query *q, enum rec_format f);

/* cmd_repl.c */
int	 cmd_repl(int argc, char **argv);

/* cmd_soak.c */
int	 cmd_soak(int argc, char **argv);

/* cmd_stress.c */
int	 cmd_stress(int argc, char **argv);

/* cmd_hash.c */
int	 cmd_hash(int argc, char **argv);

/* cmd_verify.c */
int	 cmd_verify(int argc, char **argv);

#endif /* PWTUNE_CLI_H */
