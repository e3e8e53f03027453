/*
 * cli/cmd_hash.c: `pwtune hash`, a drop-in for the reference argon2
 * command: the same flags, the same defaults (Argon2i, t = 3, m = 2^12 KiB,
 * p = 1, 32 bytes), the same lines in the same order. Two differences, both
 * on purpose: the time is wall-clock seconds (the reference prints CPU time,
 * which is p times too high for p > 1), and a bad argument exits 2 with a
 * message that names it, before anything is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "cli.h"
#include "kdf.h"

struct hash_opts {
	struct kdf_params	 kp;
	const char		*salt;
	const char		*secret_file;
	const char		*ad;
	int			 encoded_only;
	int			 raw_only;
	int			 json;
};

static void
hash_usage(FILE *fp)
{
	fputs(
"Usage:  pwtune hash [-h] salt [-i|-d|-id] [-t iterations]\n"
"                    [-m log2(memory in KiB) | -k memory in KiB | "
"--memory SIZE]\n"
"                    [-p parallelism] [-l hash length] [-e|-r] "
"[-v (10|13)]\n"
"                    [--backend libargon2|libsodium|auto] [--json] "
"[--secret-file FILE] [--ad DATA]\n"
"\tPassword is read from stdin (all its bytes, as the reference argon2\n"
"\tcommand reads them; from a terminal, one line without echo)\n"
"Parameters:\n"
"\tsalt\t\tThe salt to use, at least 8 characters (at most 64)\n"
"\t-i\t\tUse Argon2i (this is the default)\n"
"\t-d\t\tUse Argon2d instead of Argon2i\n"
"\t-id\t\tUse Argon2id instead of Argon2i\n"
"\t-t N\t\tSets the number of iterations to N (default = 3)\n"
"\t-m N\t\tSets the memory usage of 2^N KiB, N from 3 to 32 (default 12)\n"
"\t-k N\t\tSets the memory usage of N KiB (default 4096)\n"
"\t--memory SIZE\tSets the memory usage to SIZE (64MiB, 1GiB; a bare\n"
"\t\t\tnumber is KiB)\n"
"\t-p N\t\tSets parallelism to N threads (default 1)\n"
"\t-l N\t\tSets hash output length to N bytes (default 32, at most 64)\n"
"\t-e\t\tOutput only encoded hash\n"
"\t-r\t\tOutput only the raw bytes of the hash\n"
"\t-v (10|13)\tArgon2 version (defaults to the most recent version, "
"currently 13)\n"
"\t--backend B\tlibargon2 (default; every variant and version; auto\n"
"\t\t\tis the same) or libsodium (Argon2id/Argon2i, v13, p = 1,\n"
"\t\t\t16-byte salt)\n"
"\t--json\t\tPrint one JSON object instead of the lines above\n"
"\t--secret-file F\tHash with the secret key in file F (libargon2 only)\n"
"\t--ad DATA\tHash with associated data DATA (libargon2 only)\n"
"\t-h, --help\tPrint this help\n"
"The time printed is wall-clock seconds. The reference argon2 command\n"
"prints CPU time, which for p > 1 adds up the time of every thread.\n",
	    fp);
}

#define HASH	"hash"

/* Parse argv into *o. Returns -1 after saying why, 1 for help. */
static int
hash_parse(int argc, char **argv, struct hash_opts *o)
{
	const char	*a, *v, *eq;
	char		 name[64];
	uint64_t	 kib;
	int		 i, step;

	memset(o, 0, sizeof(*o));
	kdf_params_init(&o->kp, KDF_ALG_ARGON2I);
	o->kp.m_kib = 1 << 12;
	o->kp.t = 3;
	o->kp.p = 1;
	o->kp.hashlen = 32;

	for (i = 1; i < argc; i++) {
		a = cli_opt(argv[i], name, sizeof(name), &eq);
		v = eq != NULL ? eq : i + 1 < argc ? argv[i + 1] : NULL;
		step = eq == NULL;	/* the value's own argument */
		if (cli_is_help(a) && cli_no_value(HASH, a, eq) == -1)
			return -1;
		if (cli_is_help(a))
			return 1;
		if (strcmp(a, "-i") == 0)
			o->kp.alg = KDF_ALG_ARGON2I;
		else if (strcmp(a, "-d") == 0)
			o->kp.alg = KDF_ALG_ARGON2D;
		else if (strcmp(a, "-id") == 0)
			o->kp.alg = KDF_ALG_ARGON2ID;
		else if (strcmp(a, "-e") == 0)
			o->encoded_only = 1;
		else if (strcmp(a, "-r") == 0)
			o->raw_only = 1;
		else if (strcmp(a, "--json") == 0) {
			if (cli_no_value(HASH, a, eq) == -1)
				return -1;
			o->json = 1;
		}
		else if (strcmp(a, "-t") == 0) {
			if (cli_flag_u32(HASH, a, v, 1, KDF_ARGON2_T_MAX,
			    "passes", &o->kp.t) == -1)
				return -1;
			i += step;
		} else if (strcmp(a, "-m") == 0) {
			if (cli_flag_log2(HASH, a, v, &kib) == -1)
				return -1;
			o->kp.m_kib = (uint32_t)kib;
			i += step;
		} else if (strcmp(a, "-k") == 0) {
			if (cli_flag_u32(HASH, a, v, 1, KDF_ARGON2_M_MAX,
			    "KiB", &o->kp.m_kib) == -1)
				return -1;
			i += step;
		} else if (strcmp(a, "--memory") == 0) {
			if (cli_flag_size(HASH, a, v, KDF_ARGON2_M_MAX,
			    &kib) == -1)
				return -1;
			cli_kib_note(HASH, a, v);
			o->kp.m_kib = (uint32_t)kib;
			i += step;
		} else if (strcmp(a, "-p") == 0) {
			if (cli_flag_u32(HASH, a, v, 1, KDF_ARGON2_P_MAX,
			    "lanes", &o->kp.p) == -1)
				return -1;
			i += step;
		} else if (strcmp(a, "-l") == 0) {
			if (cli_flag_u32(HASH, a, v, KDF_HASH_MIN, KDF_HASH_MAX,
			    "bytes", &o->kp.hashlen) == -1)
				return -1;
			i += step;
		} else if (strcmp(a, "-v") == 0) {
			if (v != NULL && strcmp(v, "10") == 0)
				o->kp.version = 0x10;
			else if (v != NULL && strcmp(v, "13") == 0)
				o->kp.version = 0x13;
			else
				return cli_bad_value(HASH, a, v, "10 or 13");
			i += step;
		} else if (strcmp(a, "--backend") == 0) {
			if (v == NULL ||
			    kdf_backend_parse(v, &o->kp.backend) == -1 ||
			    o->kp.backend == KDF_BACKEND_LIBCRYPT)
				return cli_bad_value(HASH, a, v,
				    "libargon2, libsodium or auto");
			i += step;
		} else if (strcmp(a, "--secret-file") == 0) {
			if ((o->secret_file = v) == NULL)
				return cli_bad_value(HASH, a, v, "a file");
			i += step;
		} else if (strcmp(a, "--ad") == 0) {
			if ((o->ad = v) == NULL)
				return cli_bad_value(HASH, a, v,
				    "the associated data");
			i += step;
		} else if (a[0] == '-')
			return cli_usage_error(HASH, "unknown option %.60s", a);
		else if (o->salt != NULL)
			/* Not shown: a second word may be the password. */
			return cli_usage_error(HASH, "one salt only: the "
			    "password is read from standard input, not given "
			    "as an argument (argument %d not shown)", i);
		else
			o->salt = a;
	}
	if (o->salt == NULL)
		return cli_usage_error(HASH, "missing salt (the first "
		    "argument)");
	if (o->encoded_only + o->raw_only + o->json > 1)
		return cli_usage_error(HASH, "choose one of -e, -r and --json");
	return 0;
}

static int
hash_print_json(const struct hash_opts *o, const char *hex,
    const char *encoded, double seconds)
{
	json_t	*j;
	int	 rc;

	j = json_pack("{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:s, s:s, s:f, "
	    "s:b}",
	    "type", kdf_alg_name(o->kp.alg),
	    "backend", kdf_backend_name(kdf_backend_resolve(o->kp.backend,
	    o->kp.alg)),
	    "version", (int)o->kp.version,
	    "memory_kib", (json_int_t)o->kp.m_kib,
	    "iterations", (json_int_t)o->kp.t,
	    "parallelism", (json_int_t)o->kp.p,
	    "hash_length", (json_int_t)o->kp.hashlen,
	    "hash", hex,
	    "encoded", encoded,
	    "seconds", seconds,
	    "verified", 1);
	if (j == NULL)
		return -1;
	rc = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	fputc('\n', stdout);
	json_decref(j);
	return rc;
}

int
cmd_hash(int argc, char **argv)
{
	struct hash_opts	 o;
	struct kdf_input	 in;
	uint8_t			 pwd[KDF_PASSWORD_MAX + 2];
	uint8_t			 secret[KDF_SECRET_MAX];
	uint8_t			 raw[KDF_HASH_MAX];
	char			 encoded[KDF_ENCODED_MAX + 1];
	char			 hex[2 * KDF_HASH_MAX + 1];
	char			 err[256];
	double			 t0, seconds;
	int			 rc = CLI_EXIT_USAGE, vr, r;

	switch (hash_parse(argc, argv, &o)) {
	case 1:
		hash_usage(stdout);
		return CLI_EXIT_OK;
	case -1:
		return CLI_EXIT_USAGE;
	}

	memset(&in, 0, sizeof(in));
	in.salt = (const uint8_t *)o.salt;
	in.saltlen = strlen(o.salt);
	if ((r = cli_add_secret_ad(&in, o.secret_file, o.ad, secret, err,
	    sizeof(err))) != 0) {
		cli_warnx("hash: %s", err);
		rc = CLI_READ_EXIT(r);
		goto done;
	}
	/* Check what can be checked before asking for the password. */
	if (kdf_params_check(&o.kp, &in, err, sizeof(err)) == -1) {
		cli_usage_error(HASH, "%s", err);
		goto done;
	}
	if (cli_check_memory(kdf_params_memory(&o.kp), err, sizeof(err)) ==
	    -1) {
		cli_warnx("hash: m = %u KiB: %s", (unsigned)o.kp.m_kib, err);
		rc = CLI_EXIT_ENV;
		goto done;
	}
	if ((r = cli_read_password(pwd, KDF_PASSWORD_MAX, &in.pwdlen, err,
	    sizeof(err))) != 0) {
		cli_warnx("hash: %s", err);
		rc = CLI_READ_EXIT(r);
		goto done;
	}
	in.pwd = pwd;

	t0 = cli_now();
	if (kdf_hash(&o.kp, &in, raw, encoded, sizeof(encoded), err,
	    sizeof(err)) == -1) {
		cli_warnx("%s", err);
		rc = CLI_EXIT_ENV;
		goto done;
	}
	seconds = cli_now() - t0;

	vr = kdf_verify(encoded, &in, o.kp.backend, err, sizeof(err));
	if (vr != KDF_VERIFY_OK) {
		cli_warnx("the new hash does not verify: %s",
		    vr == KDF_VERIFY_MISMATCH ? "mismatch" : err);
		rc = CLI_EXIT_ENV;
		goto done;
	}

	cli_hex(hex, raw, o.kp.hashlen);
	if (o.json) {
		if (hash_print_json(&o, hex, encoded, seconds) == -1) {
			cli_warnx("cannot write JSON");
			rc = CLI_EXIT_ENV;
			goto done;
		}
	} else if (o.raw_only)
		printf("%s\n", hex);
	else if (o.encoded_only)
		printf("%s\n", encoded);
	else {
		printf("Type:\t\t%s\n", kdf_alg_title(o.kp.alg));
		printf("Iterations:\t%u\n", (unsigned)o.kp.t);
		printf("Memory:\t\t%u KiB\n", (unsigned)o.kp.m_kib);
		printf("Parallelism:\t%u\n", (unsigned)o.kp.p);
		printf("Hash:\t\t%s\n", hex);
		printf("Encoded:\t%s\n", encoded);
		printf("%2.3f seconds\n", seconds);
		printf("Verification ok\n");
	}
	rc = fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_ENV;
done:
	sodium_memzero(pwd, sizeof(pwd));
	sodium_memzero(secret, sizeof(secret));
	sodium_memzero(raw, sizeof(raw));
	sodium_memzero(hex, sizeof(hex));
	return rc;
}
