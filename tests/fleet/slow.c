/*
 * tests/fleet/slow.c: a slower host, simulated for the fleet tests. Loaded
 * with LD_PRELOAD into pwtune or pwtuned, it makes every Argon2 hash
 * (libsodium's crypto_pwhash and libargon2's argon2_ctx) run
 * PWTUNE_TEST_SLOWDOWN times (a whole number, default 3): real work, so
 * measurements, verifications and the answers that follow all see a host
 * that many times slower. The hash returned is the real one. With
 * PWTUNE_TEST_SLOWDOWN_FILE, the number is read from that file at each
 * hash instead (a host that becomes slower while a daemon runs). A
 * fraction (1.5) sleeps that part of one hash's time after the whole
 * ones. With PWTUNE_TEST_SLOWDOWN_T_MIN=N only hashes of N passes or more
 * are slowed (a host slower where a model has not measured it); with
 * PWTUNE_TEST_SLOWDOWN_EVERY=N only every Nth of those in a process (a
 * host whose hashes spread wide: measurements flagged noisy).
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <argon2.h>
#include <sodium.h>

static double
slowdown(unsigned long long t)
{
	const char	*v = getenv("PWTUNE_TEST_SLOWDOWN");
	const char	*f = getenv("PWTUNE_TEST_SLOWDOWN_FILE");
	const char	*tm = getenv("PWTUNE_TEST_SLOWDOWN_T_MIN");
	const char	*ev = getenv("PWTUNE_TEST_SLOWDOWN_EVERY");
	static unsigned long	 seen;
	char		 buf[16];
	FILE		*fp;
	double		 n = v != NULL ? strtod(v, NULL) : 3;

	if (tm != NULL && t < strtoull(tm, NULL, 10))
		return 1;
	if (ev != NULL && strtoul(ev, NULL, 10) > 1 &&
	    seen++ % strtoul(ev, NULL, 10) != 0)
		return 1;
	if (f != NULL && (fp = fopen(f, "r")) != NULL) {
		n = fgets(buf, sizeof(buf), fp) != NULL ? strtod(buf, NULL) : 3;
		fclose(fp);
	}
	return n >= 1 && n <= 100 ? n : 3;
}

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* After the whole hashes: the fraction's part of the last one's time. */
static void
slowdown_rest(double n, double one)
{
	double		rest = (n - floor(n)) * one;
	struct timespec	ts;

	if (!(rest > 0) || !(rest < 3600))
		return;
	ts.tv_sec = (time_t)rest;
	ts.tv_nsec = (long)((rest - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec > 999999999)
		ts.tv_nsec = 999999999;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
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
	double	n = slowdown(opslimit), t0 = 0;
	int	i, rc = -1;

	*(void **)&real = dlsym(RTLD_NEXT, "crypto_pwhash");
	if (real == NULL)
		return -1;
	for (i = 0; i < (int)n; i++) {
		t0 = now();
		rc = real(out, outlen, passwd, passwdlen, salt, opslimit,
		    memlimit, alg);
	}
	slowdown_rest(n, now() - t0);
	return rc;
}

int
argon2_ctx(argon2_context *context, argon2_type type)
{
	int	(*real)(argon2_context *, argon2_type);
	double	n = slowdown(context->t_cost), t0 = 0;
	int	i, rc = ARGON2_INCORRECT_PARAMETER;

	*(void **)&real = dlsym(RTLD_NEXT, "argon2_ctx");
	if (real == NULL)
		return rc;
	for (i = 0; i < (int)n; i++) {
		t0 = now();
		rc = real(context, type);
	}
	slowdown_rest(n, now() - t0);
	return rc;
}
