/*
 * engine/probes/probe-c.c: the stack probe of the two C libraries, hashing
 * the way a C service calls them (docs/STACKS.md has the protocol).
 *
 *	probe-c libsodium|libargon2 WARMUP M_KIB:T:P:N...
 *
 * libsodium: crypto_pwhash_str_alg(ARGON2ID13), which draws its own salt
 * and returns the encoded string; one lane only (P must be 1).
 * libargon2: argon2id_hash_encoded() with a fresh 16-byte salt from
 * getrandom(2), through libargon2's own allocator (malloc), as PHP's
 * password_hash and Python's argon2-cffi link it.
 *
 * One JSON line on stdout per point, each flushed. Exit 0 done, 1 a hash
 * failed, 2 bad usage (a message on stderr).
 */
#include <sys/random.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <argon2.h>
#include <sodium.h>

#ifndef PROBE_LIBARGON2_VERSION
#define PROBE_LIBARGON2_VERSION	"unknown version"
#endif

#define PROBE_PASSWORD	"correct-horse-16"	/* 16 ASCII bytes */
#define PROBE_SALTLEN	16
#define PROBE_HASHLEN	32

/* The bounds every probe takes (docs/STACKS.md). */
#define PROBE_M_MAX	4194304UL		/* KiB: 4 GiB */
#define PROBE_T_MAX	65535UL
#define PROBE_P_MAX	255UL
#define PROBE_N_MAX	100000UL
#define PROBE_WARMUP_MAX 100000UL

enum probe_lib {
	PROBE_LIBSODIUM,
	PROBE_LIBARGON2
};

struct point {
	unsigned long	m_kib;
	unsigned long	t;
	unsigned long	p;
	unsigned long	n;
};

static void __attribute__((noreturn))
usage(const char *why)
{
	fprintf(stderr, "probe-c: %s\n"
	    "usage: probe-c libsodium|libargon2 WARMUP M_KIB:T:P:N...\n", why);
	exit(2);
}

/* A decimal in [lo, hi] ending at *end; 0 on anything else. */
static int
parse_ulong(const char *s, char **end, unsigned long lo, unsigned long hi,
    unsigned long *out)
{
	unsigned long	v;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoul(s, end, 10);
	if (errno != 0 || v < lo || v > hi)
		return 0;
	*out = v;
	return 1;
}

static int
parse_point(const char *s, struct point *pt)
{
	char	*end;

	if (!parse_ulong(s, &end, 8, PROBE_M_MAX, &pt->m_kib) || *end != ':')
		return 0;
	if (!parse_ulong(end + 1, &end, 1, PROBE_T_MAX, &pt->t) || *end != ':')
		return 0;
	if (!parse_ulong(end + 1, &end, 1, PROBE_P_MAX, &pt->p) || *end != ':')
		return 0;
	if (!parse_ulong(end + 1, &end, 1, PROBE_N_MAX, &pt->n) || *end != '\0')
		return 0;
	/* Argon2 needs 8 KiB a lane. */
	return pt->m_kib >= 8 * pt->p;
}

static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
salt_fill(uint8_t *salt, size_t len)
{
	size_t	got = 0;
	ssize_t	r;
	int	tries;

	for (tries = 0; got < len && tries < 100; tries++) {
		r = getrandom(salt + got, len - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)r;
	}
	return got == len ? 0 : -1;
}

/*
 * One full call as a service makes it; the encoded string goes to buf.
 * Returns NULL or what failed.
 */
static const char *
hash_once(enum probe_lib lib, const struct point *pt, char *buf, size_t len)
{
	uint8_t	salt[PROBE_SALTLEN];
	int	rc;

	if (lib == PROBE_LIBSODIUM) {
		if (crypto_pwhash_str_alg(buf, PROBE_PASSWORD,
		    strlen(PROBE_PASSWORD), pt->t, (size_t)pt->m_kib * 1024,
		    crypto_pwhash_ALG_ARGON2ID13) != 0)
			return "crypto_pwhash_str_alg failed (out of memory?)";
		return NULL;
	}
	if (salt_fill(salt, sizeof(salt)) != 0)
		return "getrandom failed";
	rc = argon2id_hash_encoded((uint32_t)pt->t, (uint32_t)pt->m_kib,
	    (uint32_t)pt->p, PROBE_PASSWORD, strlen(PROBE_PASSWORD),
	    salt, sizeof(salt), PROBE_HASHLEN, buf, len);
	if (rc != ARGON2_OK)
		return argon2_error_message(rc);
	return NULL;
}

static void __attribute__((noreturn))
fail(const char *what)
{
	/* The message is one of the libraries' fixed ASCII strings. */
	printf("{\"error\":\"%s\"}\n", what);
	fflush(stdout);
	fprintf(stderr, "probe-c: %s\n", what);
	exit(1);
}

int
main(int argc, char **argv)
{
	enum probe_lib	 lib;
	struct point	*pts;
	unsigned long	 warmup, i, k;
	const char	*err;
	char		*end, *buf;
	size_t		 buflen;
	double		*samples, t0, ms;
	int		 npts, j;

	if (argc < 4)
		usage("too few arguments");
	if (strcmp(argv[1], "libsodium") == 0)
		lib = PROBE_LIBSODIUM;
	else if (strcmp(argv[1], "libargon2") == 0)
		lib = PROBE_LIBARGON2;
	else
		usage("the mode is libsodium or libargon2");
	if (!parse_ulong(argv[2], &end, 0, PROBE_WARMUP_MAX, &warmup) ||
	    *end != '\0')
		usage("WARMUP is a count from 0 to 100000");
	npts = argc - 3;
	if ((pts = calloc((size_t)npts, sizeof(*pts))) == NULL)
		fail("out of memory");
	buflen = crypto_pwhash_STRBYTES;
	for (j = 0; j < npts; j++) {
		if (!parse_point(argv[3 + j], &pts[j]))
			usage("a POINT is M_KIB:T:P:N (8 KiB a lane at least)");
		if (lib == PROBE_LIBSODIUM && pts[j].p != 1)
			usage("libsodium hashes one lane: P must be 1");
		if (lib == PROBE_LIBARGON2 && argon2_encodedlen(pts[j].t,
		    pts[j].m_kib, pts[j].p, PROBE_SALTLEN, PROBE_HASHLEN,
		    Argon2_id) + 1 > buflen)
			buflen = argon2_encodedlen(pts[j].t, pts[j].m_kib,
			    pts[j].p, PROBE_SALTLEN, PROBE_HASHLEN,
			    Argon2_id) + 1;
	}
	if ((buf = malloc(buflen)) == NULL)
		fail("out of memory");
	for (j = 0, k = 1; j < npts; j++)
		if (pts[j].n > k)
			k = pts[j].n;
	if ((samples = calloc(k, sizeof(*samples))) == NULL)
		fail("out of memory");
	if (sodium_init() < 0)
		fail("sodium_init failed");

	if (lib == PROBE_LIBSODIUM)
		printf("{\"probe\":\"libsodium\",\"runtime\":\"C\","
		    "\"library\":\"libsodium %s\"}\n", sodium_version_string());
	else
		printf("{\"probe\":\"libargon2\",\"runtime\":\"C\","
		    "\"library\":\"libargon2 %s (its default allocator)\"}\n",
		    PROBE_LIBARGON2_VERSION);
	fflush(stdout);

	for (j = 0; j < npts; j++) {
		struct point	warm = pts[j];

		/*
		 * Untimed hashes at each point's m and p, two passes at
		 * most (docs/STACKS.md): what a warm-up settles, the memory
		 * of that size and every pass's code, takes no more.
		 */
		if (warm.t > 2)
			warm.t = 2;
		for (i = 0; i < warmup; i++)
			if ((err = hash_once(lib, &warm, buf, buflen)) != NULL)
				fail(err);
		for (k = 0; k < pts[j].n; k++) {
			t0 = now_ms();
			err = hash_once(lib, &pts[j], buf, buflen);
			ms = now_ms() - t0;
			if (err != NULL)
				fail(err);
			samples[k] = ms;
		}
		printf("{\"m_kib\":%lu,\"t\":%lu,\"p\":%lu,\"samples_ms\":[",
		    pts[j].m_kib, pts[j].t, pts[j].p);
		for (k = 0; k < pts[j].n; k++)
			printf("%s%.3f", k > 0 ? "," : "", samples[k]);
		printf("]}\n");
		fflush(stdout);
	}
	free(samples);
	free(buf);
	free(pts);
	return 0;
}
