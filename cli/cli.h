/*
 * cli/cli.h: the pwtune command, one file per subcommand:
 *
 *   pwtune.c            subcommand dispatch
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
 *   cli_util.c          password input, numbers, files, memory check
 *
 * Exit codes are the same for every subcommand: 0 success, 1 a negative
 * answer or a failure at run time (a hash that does not verify, a library
 * error), 2 bad usage or bad input (the message says which).
 */
#ifndef PWTUNE_CLI_H
#define PWTUNE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

#define CLI_EXIT_OK	0
#define CLI_EXIT_FAIL	1
#define CLI_EXIT_USAGE	2

/* cli_util.c */
void	 cli_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int	 cli_parse_u32(const char *s, uint32_t min, uint32_t max,
	    uint32_t *out);
/*
 * Read the password from standard input into buf, which holds max + 2
 * bytes: all of a pipe's bytes as they are (like the reference argon2
 * command), or one line without echo from a terminal. Returns 0, or -1
 * when none was read or it is longer than max bytes (buf is wiped).
 */
int	 cli_read_password(uint8_t *buf, size_t max, size_t *len,
	    char *err, size_t errlen);
int	 cli_read_file(const char *path, uint8_t *buf, size_t bufsize,
	    size_t *len, char *err, size_t errlen);
/*
 * Add associated data ad and the secret read from secret_file (into
 * secret) to in; either may be NULL. Returns 0, or -1 with err.
 */
int	 cli_add_secret_ad(struct kdf_input *in, const char *secret_file,
	    const char *ad, uint8_t secret[KDF_SECRET_MAX], char *err,
	    size_t errlen);
int	 cli_check_memory(uint64_t need, char *err, size_t errlen);
double	 cli_now(void);
void	 cli_hex(char *dst, const uint8_t *src, size_t len);

/* bench_output.c */
void	 bench_print(FILE *fp, const struct report *rep,
	    enum kdf_backend baseline, int markdown);
int	 bench_write_json(const char *path, const struct report *rep,
	    char *err, size_t errlen);
int	 bench_write_csv(const char *path, const struct report *rep,
	    char *err, size_t errlen);

/* cli_measure.c */
struct cli_progress {
	int	tty;		/* draw only on a terminal */
	double	last;
};

/*
 * Probe the host into rep (host, budget under memory_max, effective
 * parallelism) and set up mo for it. Returns 0, or -1 with err.
 */
int	 cli_probe(struct report *rep, uint64_t memory_max,
	    struct measure_opts *mo, volatile int *cancel, char *err,
	    size_t errlen);
/* A measure progress callback: a bar on stderr; ctx: struct cli_progress. */
void	 cli_progress_print(void *ctx, const struct measure_progress *p);

/* cmd_db.c */
int	 cmd_db(int argc, char **argv);

/* cmd_bench.c */
int	 cmd_bench(int argc, char **argv);

/* cmd_recommend.c */
int	 cmd_recommend(int argc, char **argv);

struct tune_query;
/* recommend_scope.c: --scope group|fleet from a shared store. */
int	 rec_scope(const char *store, const char *scope, const char *group,
	    unsigned max_age, const struct tune_query *q, int as_json);

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
