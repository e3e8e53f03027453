/*
 * cli/pwtune.c: the pwtune command. Finds the subcommand and hands it the
 * rest of the arguments.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"

static const struct {
	const char	*name;
	int		(*run)(int, char **);
	const char	*summary;
} commands[] = {
	{ "hash", cmd_hash, "hash a password (a drop-in for argon2)" },
	{ "verify", cmd_verify, "verify a password against an encoded hash" },
	{ "recommend", cmd_recommend, "which parameters take under X ms here" },
	{ "bench", cmd_bench, "measure Argon2 on this host" },
	{ "stress", cmd_stress, "hash and verify N times, time each" },
	{ "soak", cmd_soak, "hash/verify in threads for a while, watch RSS" },
	{ "repl", cmd_repl, "type passwords, see hashes with a preset" },
	{ "db", cmd_db, "list, export, import and check a store" },
};

static void
usage(FILE *fp)
{
	size_t	i;

	fputs("Usage: pwtune COMMAND [OPTIONS]\n\nCommands:\n", fp);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name,
		    commands[i].summary);
	fputs("\n'pwtune COMMAND --help' describes each command.\n", fp);
}

int
main(int argc, char **argv)
{
	size_t	i;

	if (sodium_init() < 0) {
		cli_warnx("libsodium failed to initialise");
		return CLI_EXIT_FAIL;
	}
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("pwtune %s (libsodium %s)\n", PWTUNE_VERSION,
		    sodium_version_string());
		return CLI_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	cli_warnx("unknown command '%s'", argv[1]);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
