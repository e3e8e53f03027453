/*
 * cli/cmd_repl.c: `pwtune repl`, the interactive mode users know from the
 * hash-cpu-bench CLI: choose a preset, type passwords, see each encoded
 * hash and how long it took; `preset NAME` changes the preset, `presets`
 * lists them, `exit` (or end of input) leaves.
 *
 * What it does not understand it never shows: a line typed at the preset
 * prompt may be a password typed too early.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "presets.h"

#define REPL_HELP \
	"Usage: pwtune repl [PRESET]\n" \
	"Type passwords to hash them with a preset; 'preset NAME' changes " \
	"it,\n'presets' lists them, 'help' prints this, 'exit' leaves. A " \
	"line it does\nnot understand is never shown (it may be a password)."

static void
repl_list(FILE *fp)
{
	const struct preset	*p;
	size_t			 n, i;

	p = preset_list(&n);
	fputs("Choose hashing preset (", fp);
	for (i = 0; i < n; i++)
		fprintf(fp, "%s%s", i ? ", " : "", p[i].name);
	fputs(")\n", fp);
}

static void
repl_hash(const struct preset *pre, const char *pwd, size_t len)
{
	struct kdf_params	kp;
	struct kdf_input	in;
	uint8_t			salt[16];
	char			enc[KDF_ENCODED_MAX + 1], err[256];
	double			t0;

	randombytes_buf(salt, sizeof(salt));
	preset_params(pre, &kp);
	in = (struct kdf_input){ (const uint8_t *)pwd, len, salt, sizeof(salt),
	    NULL, 0, NULL, 0 };
	if (cli_check_memory(kdf_params_memory(&kp), err, sizeof(err)) == -1) {
		printf("%s: %s\n", pre->name, err);
		return;
	}
	t0 = cli_now();
	if (kdf_hash(&kp, &in, NULL, enc, sizeof(enc), err, sizeof(err)) ==
	    -1) {
		printf("%s: %s\n", pre->name, err);
		return;
	}
	printf("%s: %s (%.0fms)\n", pre->name, enc, (cli_now() - t0) * 1000);
}

int
cmd_repl(int argc, char **argv)
{
	const struct preset	*pre = NULL;
	char			*line = NULL, *s;
	size_t			 cap = 0, len;
	ssize_t			 n;
	int			 tty = isatty(STDIN_FILENO);

	if (argc > 1 && cli_is_help(argv[1])) {
		puts(REPL_HELP);
		return CLI_EXIT_OK;
	}
	if (argc > 2) {
		cli_usage_error("repl", "one preset at most");
		return CLI_EXIT_USAGE;
	}
	if (argc > 1 && (pre = preset_find(argv[1])) == NULL) {
		cli_bad_value("repl", "the preset", argv[1], "a known preset "
		    "(pwtune bench --list-presets)");
		return CLI_EXIT_USAGE;
	}
	if (pre == NULL)
		repl_list(stdout);
	for (;;) {
		fputs(pre == NULL ? "preset> " : "> ", stdout);
		fflush(stdout);
		if ((n = getline(&line, &cap, stdin)) == -1)
			break;
		len = (size_t)n;
		while (len > 0 && (line[len - 1] == '\n' ||
		    line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!tty)
			putchar('\n');
		if (len == 0)
			continue;
		if (strcmp(line, "exit") == 0 || strcmp(line, "quit") == 0)
			break;
		if (strcmp(line, "presets") == 0) {
			repl_list(stdout);
			continue;
		}
		if (strcmp(line, "help") == 0) {
			puts(REPL_HELP);
			continue;
		}
		if (pre == NULL || strncmp(line, "preset ", 7) == 0) {
			s = pre == NULL ? line : line + 7;
			if (preset_find(s) == NULL) {
				/* It may be a password: not shown. */
				printf("Unknown preset (what was typed is not "
				    "shown)\n");
				if (pre == NULL)
					repl_list(stdout);
				continue;
			}
			if (pre != NULL)
				printf("Preset changed to %s\n",
				    preset_find(s)->name);
			pre = preset_find(s);
			continue;
		}
		repl_hash(pre, line, len);
	}
	if (line != NULL) {
		sodium_memzero(line, cap);
		free(line);
	}
	return CLI_EXIT_OK;
}
