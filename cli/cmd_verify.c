/*
 * cli/cmd_verify.c: `pwtune verify ENCODED`, password on standard input.
 * Accepts Argon2 strings (argon2i, argon2d, argon2id; any m, t, p; v=16,
 * v=19 or none), scrypt ($7$) and bcrypt ($2b$, $2y$, $2a$).
 *
 * Exit 0 and "Verification ok"; exit 1 and "Verification failed"; exit 2
 * with the reason when the string is malformed or cannot be computed here.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"
#include "kdf.h"

static void
verify_usage(FILE *fp)
{
	fputs(
"Usage:  pwtune verify [--backend auto|libargon2|libsodium] "
"[--secret-file FILE] [--ad DATA] ENCODED\n"
"\tPassword is read from stdin (all its bytes; from a terminal, one line\n"
"\twithout echo). ENCODED is an Argon2 PHC string ($argon2id$...,\n"
"\t$argon2i$..., $argon2d$...), a scrypt $7$ string or a bcrypt\n"
"\t$2b$/$2y$/$2a$ string. Quote it: it contains $ signs.\n"
"Exit status: 0 ok, 1 the password does not match, 2 a malformed string\n"
"or bad usage.\n", fp);
}

int
cmd_verify(int argc, char **argv)
{
	struct kdf_input	 in;
	struct kdf_params	 kp;
	enum kdf_backend	 backend = KDF_BACKEND_AUTO;
	const char		*encoded = NULL, *secret_file = NULL, *ad = NULL;
	uint8_t			 pwd[KDF_PASSWORD_MAX + 2];
	uint8_t			 secret[KDF_SECRET_MAX];
	char			 err[256];
	int			 i, rc = CLI_EXIT_USAGE;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			verify_usage(stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
			if (kdf_backend_parse(argv[++i], &backend) == -1) {
				cli_warnx("verify: unknown backend %s", argv[i]);
				verify_usage(stderr);
				return CLI_EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "--secret-file") == 0 &&
		    i + 1 < argc)
			secret_file = argv[++i];
		else if (strcmp(argv[i], "--ad") == 0 && i + 1 < argc)
			ad = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			cli_warnx("verify: unknown option or missing value: %s",
			    argv[i]);
			verify_usage(stderr);
			return CLI_EXIT_USAGE;
		} else if (encoded != NULL) {
			cli_warnx("verify: one encoded string only");
			verify_usage(stderr);
			return CLI_EXIT_USAGE;
		} else
			encoded = argv[i];
	}
	if (encoded == NULL) {
		cli_warnx("verify: missing the encoded string");
		verify_usage(stderr);
		return CLI_EXIT_USAGE;
	}

	memset(&in, 0, sizeof(in));
	if (cli_add_secret_ad(&in, secret_file, ad, secret, err,
	    sizeof(err)) == -1) {
		cli_warnx("%s", err);
		goto done;
	}
	/* A malformed string or one this host cannot hold: say so first. */
	if (kdf_identify(encoded, &kp, err, sizeof(err)) == -1) {
		cli_warnx("malformed hash: %s", err);
		goto done;
	}
	if (cli_check_memory(kdf_params_memory(&kp), err, sizeof(err)) == -1) {
		cli_warnx("%s", err);
		goto done;
	}
	if (cli_read_password(pwd, KDF_PASSWORD_MAX, &in.pwdlen, err,
	    sizeof(err)) == -1) {
		cli_warnx("%s", err);
		goto done;
	}
	in.pwd = pwd;

	switch (kdf_verify(encoded, &in, backend, err, sizeof(err))) {
	case KDF_VERIFY_OK:
		puts("Verification ok");
		rc = CLI_EXIT_OK;
		break;
	case KDF_VERIFY_MISMATCH:
		puts("Verification failed");
		rc = CLI_EXIT_FAIL;
		break;
	default:
		cli_warnx("%s", err);
		break;
	}
done:
	sodium_memzero(pwd, sizeof(pwd));
	sodium_memzero(secret, sizeof(secret));
	return rc;
}
