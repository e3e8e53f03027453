/*
 * cli/cmd_verify.c: `pwtune verify ENCODED`, password on standard input.
 * Accepts Argon2 strings (argon2i, argon2d, argon2id; any m, t, p; v=16,
 * v=19 or none), scrypt ($7$) and bcrypt ($2b$, $2y$, $2a$).
 *
 * Exit 0 and "Verification ok"; exit 1 and "Verification failed"; exit 2
 * with the reason when the string is malformed or cannot be computed here;
 * 3 when a file cannot be read or the host has not the memory it needs.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"
#include "kdf.h"

#define VERIFY	"verify"

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
"or bad usage, 3 a file that cannot be read or not enough memory.\n", fp);
}

struct verify_opts {
	enum kdf_backend	 backend;
	const char		*encoded, *secret_file, *ad;
};

/* Returns 0, 1 for help, or -1 after saying why. */
static int
verify_parse(int argc, char **argv, struct verify_opts *o)
{
	const char	*a, *v, *eq;
	char		 name[64];
	int		 i, step;

	memset(o, 0, sizeof(*o));
	o->backend = KDF_BACKEND_AUTO;
	for (i = 1; i < argc; i++) {
		a = cli_opt(argv[i], name, sizeof(name), &eq);
		v = eq != NULL ? eq : i + 1 < argc ? argv[i + 1] : NULL;
		step = eq == NULL;	/* the value's own argument */

		if (cli_is_help(a) && cli_no_value(VERIFY, a, eq) == -1)
			return -1;
		if (cli_is_help(a))
			return 1;
		if (strcmp(a, "--backend") == 0) {
			if (v == NULL ||
			    kdf_backend_parse(v, &o->backend) == -1)
				return cli_bad_value(VERIFY, a, v, "auto, "
				    "libargon2 or libsodium");
			i += step;
		} else if (strcmp(a, "--secret-file") == 0) {
			if ((o->secret_file = v) == NULL)
				return cli_bad_value(VERIFY, a, v, "a file");
			i += step;
		} else if (strcmp(a, "--ad") == 0) {
			if ((o->ad = v) == NULL)
				return cli_bad_value(VERIFY, a, v, "the "
				    "associated data");
			i += step;
		} else if (a[0] == '-' && a[1] != '\0')
			return cli_usage_error(VERIFY, "unknown option %.60s",
			    a);
		else if (o->encoded != NULL)
			/* Not shown: it could be a password typed here. */
			return cli_usage_error(VERIFY, "one encoded string "
			    "only (the extra arguments are not shown)");
		else
			o->encoded = a;
	}
	if (o->encoded == NULL)
		return cli_usage_error(VERIFY, "missing the encoded string");
	return 0;
}

/*
 * A cost no service stores, that would hash for hours here: refused (2)
 * rather than run. Argon2 over VERIFY_WORK_MAX KiB of passes (m x t: about
 * a quarter of an hour at 1 GB/s), bcrypt over cost VERIFY_BCRYPT_MAX.
 */
#define VERIFY_WORK_MAX		(1ull << 30)
#define VERIFY_BCRYPT_MAX	24

static int
verify_too_costly(const struct kdf_params *kp, char *err, size_t errlen)
{
	if (kdf_alg_is_argon2(kp->alg) && (uint64_t)kp->m_kib * kp->t >
	    VERIFY_WORK_MAX) {
		snprintf(err, errlen, "m = %u KiB x t = %u is %llu KiB of "
		    "passes, over the %llu pwtune verifies (hours of work, a "
		    "cost no service stores)", (unsigned)kp->m_kib,
		    (unsigned)kp->t, (unsigned long long)kp->m_kib * kp->t,
		    (unsigned long long)VERIFY_WORK_MAX);
		return 1;
	}
	if (kp->alg == KDF_ALG_BCRYPT && kp->cost > VERIFY_BCRYPT_MAX) {
		snprintf(err, errlen, "bcrypt cost %u is over the %d pwtune "
		    "verifies (2^%u rounds: hours of work, a cost no service "
		    "stores)", (unsigned)kp->cost, VERIFY_BCRYPT_MAX,
		    (unsigned)kp->cost);
		return 1;
	}
	return 0;
}

int
cmd_verify(int argc, char **argv)
{
	struct kdf_input	 in;
	struct kdf_params	 kp;
	struct verify_opts	 o;
	uint8_t			 pwd[KDF_PASSWORD_MAX + 2];
	uint8_t			 secret[KDF_SECRET_MAX];
	char			 err[256];
	int			 r, rc = CLI_EXIT_USAGE;

	switch (verify_parse(argc, argv, &o)) {
	case 1:
		verify_usage(stdout);
		return CLI_EXIT_OK;
	case -1:
		return CLI_EXIT_USAGE;
	}
	memset(&in, 0, sizeof(in));
	if ((r = cli_add_secret_ad(&in, o.secret_file, o.ad, secret, err,
	    sizeof(err))) != 0) {
		cli_warnx("verify: %s", err);
		rc = CLI_READ_EXIT(r);
		goto done;
	}
	/* A malformed string or one this host cannot hold: say so first. */
	if (kdf_identify(o.encoded, &kp, err, sizeof(err)) == -1) {
		cli_warnx("verify: malformed hash: %s", err);
		/* The shell took its $ fields for variables: show what came. */
		if (o.encoded[0] != '$')
			cli_warnx("verify: it was given as '%.80s%s': quote the "
			    "hash in single quotes, the shell expands $ "
			    "inside double quotes or none", o.encoded,
			    strlen(o.encoded) > 80 ? "..." : "");
		goto done;
	}
	if (cli_check_memory(kdf_params_memory(&kp), err, sizeof(err)) == -1) {
		cli_warnx("verify: %s", err);
		rc = CLI_EXIT_ENV;
		goto done;
	}
	if (verify_too_costly(&kp, err, sizeof(err))) {
		cli_warnx("verify: %s", err);
		goto done;
	}
	if ((r = cli_read_password(pwd, KDF_PASSWORD_MAX, &in.pwdlen, err,
	    sizeof(err))) != 0) {
		cli_warnx("verify: %s", err);
		rc = CLI_READ_EXIT(r);
		goto done;
	}
	in.pwd = pwd;

	switch (kdf_verify(o.encoded, &in, o.backend, err, sizeof(err))) {
	case KDF_VERIFY_OK:
		puts("Verification ok");
		rc = CLI_EXIT_OK;
		break;
	case KDF_VERIFY_MISMATCH:
		puts("Verification failed");
		rc = CLI_EXIT_NO;
		break;
	default:
		/* What kdf_identify let through but cannot be computed. */
		cli_warnx("verify: %s", err);
		break;
	}
done:
	sodium_memzero(pwd, sizeof(pwd));
	sodium_memzero(secret, sizeof(secret));
	return rc;
}
