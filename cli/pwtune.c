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

	fputs("Usage: pwtune COMMAND [OPTIONS]\n"
	    "       pwtune help [COMMAND]\n"
	    "       pwtune --version\n\nCommands:\n", fp);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name,
		    commands[i].summary);
	fputs("  help       this list, or a command's options\n"
	    "\nOptions:\n"
	    "  -h, --help     this list\n"
	    "  -V, --version  print the version of pwtune, libsodium and "
	    "libargon2\n"
	    "\n'pwtune help COMMAND' (or 'pwtune COMMAND --help') describes "
	    "each command.\n"
	    "Exit status: 0 ok, 1 a negative answer, 2 bad usage or input, 3 "
	    "an environment\nfailure (file, store, memory); see pwtune(1).\n",
	    fp);
}

static int
find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return (int)i;
	return -1;
}

/*
 * pwtune help [COMMAND [SUBCOMMAND]]: the command's own --help, on
 * standard output, exit 0.
 */
static int
help(int argc, char **argv)
{
	char	*args[4];
	int	 c, n = 0;

	if (argc < 2) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if ((c = find(argv[1])) == -1) {
		cli_warnx("help: unknown command %s", argv[1]);
		fputs("Try 'pwtune help' for the list.\n", stderr);
		return CLI_EXIT_USAGE;
	}
	if (argc > 3) {
		cli_warnx("help: one command (and a db command) at most");
		return CLI_EXIT_USAGE;
	}
	args[n++] = argv[1];
	if (argc == 3)
		args[n++] = argv[2];
	args[n++] = "--help";
	args[n] = NULL;
	return commands[c].run(n, args);
}

int
main(int argc, char **argv)
{
	int	c;

	if (sodium_init() < 0) {
		cli_warnx("libsodium failed to initialise");
		return CLI_EXIT_ENV;
	}
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (cli_is_help(argv[1])) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0)
		return help(argc - 1, argv + 1);
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("pwtune %s (libsodium %s, libargon2 %s)\n",
		    PWTUNE_VERSION, sodium_version_string(),
		    PWTUNE_LIBARGON2_VERSION);
		return CLI_EXIT_OK;
	}
	if ((c = find(argv[1])) != -1)
		return commands[c].run(argc - 1, argv + 1);
	cli_warnx("unknown command %.60s", argv[1]);
	fputs("Try 'pwtune help' for the list.\n", stderr);
	return CLI_EXIT_USAGE;
}
