/*
 * cli/cmd_stress.c: `pwtune stress`, the stress test users know from the
 * Jargon2 examples: the configuration, then the time of hash and of verify
 * as [avg, min, max (95%)] over the iterations, and the total.
 *
 * It runs in this process, one hash at a time, with a random password,
 * salt, secret and associated data of the lengths asked for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"
#include "stats.h"
#include "units.h"

struct stress_opts {
	struct kdf_params	kp;
	uint32_t		iterations;
	uint32_t		salt_len, pwd_len, secret_len, ad_len;
	int			raw;		/* output type */
};

static void
stress_usage(FILE *fp)
{
	fputs(
"Usage: pwtune stress [--iterations N] [--output-type encoded|raw]\n"
"                     [--salt-length N] [--password-length N]\n"
"                     [--secret-length N] [--ad-length N] [--hash-length N]\n"
"                     [--type i|d|id] [--version 10|13]\n"
"                     [-m LOG2KIB | -k KiB | --memory SIZE]\n"
"                     [--time-cost N] [--parallelism N]\n"
"                     [--backend libargon2|libsodium]\n"
"Hashes and verifies N times (default 100) with random inputs and prints\n"
"the configuration, then Hash, Verify and Total as [avg, min, max (95%)],\n"
"in wall-clock milliseconds. The memory as everywhere in pwtune: -m N is\n"
"2^N KiB (as in argon2), -k N and --memory-cost N are N KiB, --memory\n"
"takes a size (64MiB). --version is Argon2's (10 or 13); -t is\n"
"--time-cost, -p --parallelism. The Jargon2 spellings (--memoryCost,\n"
"--timeCost, --saltLength, ...) are accepted too. Defaults: Argon2id,\n"
"m = 32 MiB, t = 3, p = 1, 16-byte salt and hash, 64-byte password.\n"
"Exit status: 0 ok, 1 a hash did not verify, 2 bad usage, 3 not enough\n"
"memory or a library error.\n",
	    fp);
}

/* Accept --salt-length and --saltLength alike. */
static int
stress_opt_is(const char *arg, const char *kebab, const char *camel)
{
	return strcmp(arg, kebab) == 0 || strcmp(arg, camel) == 0;
}

#define STRESS	"stress"

/* Returns 0, 1 for help, or -1 after saying why. */
static int
stress_parse(int argc, char **argv, struct stress_opts *o)
{
	const char	*a, *v, *eq;
	char		 name[64];
	uint64_t	 kib;
	int		 i;

	memset(o, 0, sizeof(*o));
	kdf_params_init(&o->kp, KDF_ALG_ARGON2ID);
	o->kp.m_kib = 32768;
	o->kp.t = 3;
	o->kp.p = 1;
	o->kp.hashlen = 16;
	o->iterations = 100;
	o->salt_len = 16;
	o->pwd_len = 64;
	for (i = 1; i < argc; i++) {
		a = cli_opt(argv[i], name, sizeof(name), &eq);
		if (cli_is_help(a) && cli_no_value(STRESS, a, eq) == -1)
			return -1;
		if (cli_is_help(a))
			return 1;
		v = eq != NULL ? eq : i + 1 < argc ? argv[++i] : NULL;
		if (stress_opt_is(a, "--iterations", "--iterations")) {
			if (cli_flag_u32(STRESS, a, v, 1, 1000000, NULL,
			    &o->iterations) == -1)
				return -1;
		} else if (stress_opt_is(a, "--output-type", "--outputType")) {
			if (v != NULL && strcmp(v, "raw") == 0)
				o->raw = 1;
			else if (v == NULL || strcmp(v, "encoded") != 0)
				return cli_bad_value(STRESS, a, v,
				    "encoded or raw");
		} else if (stress_opt_is(a, "--salt-length", "--saltLength")) {
			if (cli_flag_u32(STRESS, a, v, KDF_SALT_MIN,
			    KDF_SALT_MAX, "bytes", &o->salt_len) == -1)
				return -1;
		} else if (stress_opt_is(a, "--password-length",
		    "--passwordLength")) {
			if (cli_flag_u32(STRESS, a, v, 1, KDF_PASSWORD_MAX,
			    "bytes", &o->pwd_len) == -1)
				return -1;
		} else if (stress_opt_is(a, "--secret-length",
		    "--secretLength")) {
			if (cli_flag_u32(STRESS, a, v, 0, KDF_SECRET_MAX,
			    "bytes", &o->secret_len) == -1)
				return -1;
		} else if (stress_opt_is(a, "--ad-length", "--adLength")) {
			if (cli_flag_u32(STRESS, a, v, 0, KDF_AD_MAX, "bytes",
			    &o->ad_len) == -1)
				return -1;
		} else if (stress_opt_is(a, "--hash-length", "--hashLength")) {
			if (cli_flag_u32(STRESS, a, v, KDF_HASH_MIN,
			    KDF_HASH_MAX, "bytes", &o->kp.hashlen) == -1)
				return -1;
		} else if (strcmp(a, "--type") == 0) {
			if (v == NULL || kdf_alg_parse(v, &o->kp.alg) == -1 ||
			    !kdf_alg_is_argon2(o->kp.alg))
				return cli_bad_value(STRESS, a, v,
				    "i, d or id");
		} else if (strcmp(a, "--version") == 0) {
			if (v != NULL && strcmp(v, "13") == 0)
				o->kp.version = 0x13;
			else if (v != NULL && strcmp(v, "10") == 0)
				o->kp.version = 0x10;
			else
				return cli_bad_value(STRESS, a, v,
				    "Argon2's version, 10 or 13");
		} else if (strcmp(a, "-m") == 0) {
			if (cli_flag_log2(STRESS, a, v, &kib) == -1)
				return -1;
			o->kp.m_kib = (uint32_t)kib;
		} else if (strcmp(a, "--memory") == 0) {
			if (cli_flag_size(STRESS, a, v, KDF_ARGON2_M_MAX,
			    &kib) == -1)
				return -1;
			o->kp.m_kib = (uint32_t)kib;
		} else if (stress_opt_is(a, "--memory-cost", "--memoryCost") ||
		    strcmp(a, "-k") == 0) {
			if (cli_flag_u32(STRESS, a, v, 1, KDF_ARGON2_M_MAX,
			    "KiB", &o->kp.m_kib) == -1)
				return -1;
		} else if (stress_opt_is(a, "--time-cost", "--timeCost") ||
		    strcmp(a, "-t") == 0) {
			if (cli_flag_u32(STRESS, a, v, 1, KDF_ARGON2_T_MAX,
			    "passes", &o->kp.t) == -1)
				return -1;
		} else if (stress_opt_is(a, "--parallelism", "-p")) {
			if (cli_flag_u32(STRESS, a, v, 1, KDF_ARGON2_P_MAX,
			    "lanes", &o->kp.p) == -1)
				return -1;
		} else if (strcmp(a, "--backend") == 0) {
			if (v == NULL ||
			    kdf_backend_parse(v, &o->kp.backend) == -1 ||
			    o->kp.backend == KDF_BACKEND_LIBCRYPT)
				return cli_bad_value(STRESS, a, v,
				    "libargon2, libsodium or auto");
		} else
			return cli_usage_error(STRESS, "unknown option %.60s",
			    a);
	}
	return 0;
}

static void
stress_line(const char *label, const double *ms, size_t n)
{
	struct stats	st;

	stats_compute(ms, n, &st);
	printf("%s: [%10.2fms, %12.2fms, %12.2fms]\n", label, st.mean, st.min,
	    st.p95);
}

int
cmd_stress(int argc, char **argv)
{
	struct stress_opts	 o;
	struct kdf_input	 in;
	uint8_t			 pwd[KDF_PASSWORD_MAX], salt[KDF_SALT_MAX];
	uint8_t			 secret[KDF_SECRET_MAX], ad[KDF_AD_MAX];
	uint8_t			 out[KDF_HASH_MAX], again[KDF_HASH_MAX];
	char			 enc[KDF_ENCODED_MAX + 1], err[256];
	double			*hash_ms = NULL, *verify_ms = NULL, t0, t_all;
	uint32_t		 i, warm;
	int			 rc = CLI_EXIT_ENV, v;

	switch (stress_parse(argc, argv, &o)) {
	case 1:
		stress_usage(stdout);
		return CLI_EXIT_OK;
	case -1:
		return CLI_EXIT_USAGE;
	}
	in = (struct kdf_input){ pwd, o.pwd_len, salt, o.salt_len,
	    o.secret_len ? secret : NULL, o.secret_len, o.ad_len ? ad : NULL,
	    o.ad_len };
	randombytes_buf(pwd, sizeof(pwd));
	randombytes_buf(salt, sizeof(salt));
	if (kdf_params_check(&o.kp, &in, err, sizeof(err)) == -1) {
		cli_warnx("stress: %s", err);
		return CLI_EXIT_USAGE;
	}
	if (cli_check_memory(kdf_params_memory(&o.kp), err, sizeof(err)) ==
	    -1) {
		cli_warnx("stress: %s", err);
		return CLI_EXIT_ENV;
	}
	if ((hash_ms = calloc(o.iterations, sizeof(double))) == NULL ||
	    (verify_ms = calloc(o.iterations, sizeof(double))) == NULL) {
		cli_warnx("stress: out of memory");
		goto done;
	}

	printf("Output type:            %s\n", o.raw ? "raw" : "encoded");
	printf("Salt length:            %u bytes\n", (unsigned)o.salt_len);
	printf("Password length:        %u bytes\n", (unsigned)o.pwd_len);
	printf("Secret length:          %u bytes\n", (unsigned)o.secret_len);
	printf("AD length:              %u bytes\n", (unsigned)o.ad_len);
	printf("Hash length:            %u bytes\n", (unsigned)o.kp.hashlen);
	printf("Type:                   %s\n", kdf_alg_title(o.kp.alg));
	printf("Version:                v%x\n", (unsigned)o.kp.version);
	printf("Memory cost:            %u KB\n", (unsigned)o.kp.m_kib);
	printf("Time cost:              %u passes\n", (unsigned)o.kp.t);
	printf("Parallelism:            %u lanes/threads\n", (unsigned)o.kp.p);
	printf("Backend:                %s\n", kdf_backend_name(
	    kdf_backend_resolve(o.kp.backend, o.kp.alg)));
	printf("--------------------------------------------------\n");
	printf("Warming up...\n");
	fflush(stdout);
	warm = o.iterations < 5 ? o.iterations : 5;
	for (i = 0; i < warm; i++) {
		if (kdf_hash(&o.kp, &in, out, NULL, 0, err, sizeof(err)) == -1) {
			cli_warnx("stress: %s", err);
			goto done;
		}
	}
	printf("Running stress test...\n");
	printf("Iterations: %5u, Output type: %s, AD length: %u, Salt length: "
	    "%u, Password length: %u\n", (unsigned)o.iterations,
	    o.raw ? "raw" : "encoded", (unsigned)o.ad_len,
	    (unsigned)o.salt_len, (unsigned)o.pwd_len);
	fflush(stdout);
	t_all = cli_now();
	for (i = 0; i < o.iterations; i++) {
		randombytes_buf(pwd, o.pwd_len);
		t0 = cli_now();
		if (kdf_hash(&o.kp, &in, out, o.raw ? NULL : enc, sizeof(enc),
		    err, sizeof(err)) == -1) {
			cli_warnx("stress: hash %u: %s", (unsigned)i, err);
			goto done;
		}
		hash_ms[i] = (cli_now() - t0) * 1000;
		t0 = cli_now();
		if (o.raw) {
			/* Raw output: verify means hashing again, equal. */
			v = kdf_hash(&o.kp, &in, again, NULL, 0, err,
			    sizeof(err)) == 0 && sodium_memcmp(out, again,
			    o.kp.hashlen) == 0 ? KDF_VERIFY_OK :
			    KDF_VERIFY_MISMATCH;
		} else
			v = kdf_verify(enc, &in, o.kp.backend, err,
			    sizeof(err));
		verify_ms[i] = (cli_now() - t0) * 1000;
		if (v != KDF_VERIFY_OK) {
			cli_warnx("stress: verify %u failed: %s", (unsigned)i,
			    v == KDF_VERIFY_MISMATCH ? "mismatch" : err);
			if (v == KDF_VERIFY_MISMATCH)
				rc = CLI_EXIT_NO;
			goto done;
		}
	}
	t_all = cli_now() - t_all;
	printf("        [       avg           min        max (95%%) ]\n");
	stress_line("Hash  ", hash_ms, o.iterations);
	stress_line("Verify", verify_ms, o.iterations);
	printf("Total : %.0fms\n", t_all * 1000);
	rc = CLI_EXIT_OK;
done:
	sodium_memzero(pwd, sizeof(pwd));
	sodium_memzero(out, sizeof(out));
	sodium_memzero(again, sizeof(again));
	free(hash_ms);
	free(verify_ms);
	return rc;
}
