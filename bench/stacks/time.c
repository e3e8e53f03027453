/*
 * bench/stacks/time.c: times one (m, t, p) in C, through libsodium or
 * through libargon2 and its default allocator, independently of pwtune
 * and of its probes. Built by bench/stacks/run.py.
 *
 *	time-c libsodium|libargon2 M_KIB T P WARMUP N
 *
 * Prints the N latencies in milliseconds on one line. Exit 2 on bad usage,
 * 1 when a hash fails.
 */
#include <sys/random.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <argon2.h>
#include <sodium.h>

static const char pw[] = "bench-stacks-pw!";

static double
ms_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
one(int sodium, unsigned long m, unsigned long t, unsigned long p)
{
	char		out[512];
	unsigned char	salt[16];

	if (sodium)
		return crypto_pwhash_str_alg(out, pw, sizeof(pw) - 1, t,
		    (size_t)m * 1024, crypto_pwhash_ALG_ARGON2ID13);
	if (getrandom(salt, sizeof(salt), 0) != (ssize_t)sizeof(salt))
		return -1;
	return argon2id_hash_encoded((uint32_t)t, (uint32_t)m, (uint32_t)p, pw,
	    sizeof(pw) - 1, salt, sizeof(salt), 32, out, sizeof(out)) ==
	    ARGON2_OK ? 0 : -1;
}

int
main(int argc, char **argv)
{
	unsigned long	m, t, p, w, n, i;
	double		a;
	int		sodium;

	if (argc != 7 || (strcmp(argv[1], "libsodium") &&
	    strcmp(argv[1], "libargon2"))) {
		fprintf(stderr, "usage: time-c libsodium|libargon2 M_KIB T P "
		    "WARMUP N\n");
		return 2;
	}
	sodium = strcmp(argv[1], "libsodium") == 0;
	m = strtoul(argv[2], NULL, 10);
	t = strtoul(argv[3], NULL, 10);
	p = strtoul(argv[4], NULL, 10);
	w = strtoul(argv[5], NULL, 10);
	n = strtoul(argv[6], NULL, 10);
	if (m < 8 || t < 1 || p < 1 || n < 1 || n > 1000 || w > 1000 ||
	    (sodium && p != 1)) {
		fprintf(stderr, "time-c: bad arguments\n");
		return 2;
	}
	if (sodium_init() < 0)
		return 1;
	for (i = 0; i < w; i++)
		if (one(sodium, m, t, p) != 0)
			return 1;
	for (i = 0; i < n; i++) {
		a = ms_now();
		if (one(sodium, m, t, p) != 0)
			return 1;
		printf("%s%.3f", i ? " " : "", ms_now() - a);
	}
	printf("\n");
	return 0;
}
