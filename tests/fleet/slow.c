/*
 * tests/fleet/slow.c: a slower host, simulated for the fleet tests. Loaded
 * with LD_PRELOAD into pwtune or pwtuned, it makes every Argon2 hash
 * (libsodium's crypto_pwhash and libargon2's argon2_ctx) run
 * PWTUNE_TEST_SLOWDOWN times (a whole number, default 3): real work, so
 * measurements, verifications and the answers that follow all see a host
 * that many times slower. The hash returned is the real one. With
 * PWTUNE_TEST_SLOWDOWN_FILE, the number is read from that file at each
 * hash instead (a host that becomes slower while a daemon runs).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <argon2.h>
#include <sodium.h>

static int
slowdown(void)
{
	const char	*v = getenv("PWTUNE_TEST_SLOWDOWN");
	const char	*f = getenv("PWTUNE_TEST_SLOWDOWN_FILE");
	char		 buf[16];
	FILE		*fp;
	int		 n = v != NULL ? atoi(v) : 3;

	if (f != NULL && (fp = fopen(f, "r")) != NULL) {
		n = fgets(buf, sizeof(buf), fp) != NULL ? atoi(buf) : 3;
		fclose(fp);
	}

	return n >= 1 && n <= 100 ? n : 3;
}

int
crypto_pwhash(unsigned char *const out, unsigned long long outlen,
    const char *const passwd, unsigned long long passwdlen,
    const unsigned char *const salt, unsigned long long opslimit,
    size_t memlimit, int alg)
{
	int	(*real)(unsigned char *const, unsigned long long, const char *const,
	    unsigned long long, const unsigned char *const, unsigned long long,
	    size_t, int);
	int	i, n = slowdown(), rc = -1;

	*(void **)&real = dlsym(RTLD_NEXT, "crypto_pwhash");
	for (i = 0; real != NULL && i < n; i++)
		rc = real(out, outlen, passwd, passwdlen, salt, opslimit,
		    memlimit, alg);
	return rc;
}

int
argon2_ctx(argon2_context *context, argon2_type type)
{
	int	(*real)(argon2_context *, argon2_type);
	int	i, n = slowdown(), rc = ARGON2_INCORRECT_PARAMETER;

	*(void **)&real = dlsym(RTLD_NEXT, "argon2_ctx");
	for (i = 0; real != NULL && i < n; i++)
		rc = real(context, type);
	return rc;
}
