/*
 * bench/backends.c: Argon2id on this host through each backend, side by
 * side, and the cost of pwtune's kdf layer against bare library calls.
 *
 * For every (m, t) of the grid, one round runs, back to back and in turn:
 *   bare-libargon2   argon2id_hash_raw(), the library alone
 *   kdf-libargon2    kdf_hash() with the libargon2 backend
 *   bare-libsodium   crypto_pwhash(), the library alone
 *   kdf-libsodium    kdf_hash() with the libsodium backend
 * Interleaving the four within a round means a noisy neighbour hits all of
 * them alike. The table gives the median of each over the rounds, the ratio
 * libargon2 / libsodium (both through kdf), and kdf / bare for each library.
 *
 * kdf / bare for libsodium is the cost of pwtune's layer itself: the same
 * library call behind validation. kdf / bare for libargon2 is mostly the
 * allocator: kdf gives libargon2 fresh mmap'd, pre-faulted memory that goes
 * back to the OS after each hash; argon2id_hash_raw() mallocs, and glibc
 * serves blocks under its mmap threshold (up to 32 MiB) from heap pages it
 * has already faulted in, while larger ones are mmap'd and faulted page by
 * page.
 *
 * Then the harness: for each m of the grid at t = 1, the median of a bare
 * loop of crypto_pwhash() calls in this process against the median of the
 * same hashes timed by engine/measure (a child process per point, one
 * warm-up, the socket round trip per hash), in alternating blocks. Their
 * ratio is the harness's overhead (goal: at most 1.02).
 *
 * Usage: backends [-r ROUNDS] [-m MiB,MiB,...] [-t T,T,...] [-s]
 * Defaults: 7 rounds, m = 32,64,128 MiB, t = 1,3, p = 1. -s: the seed grid
 * (m = 32 .. 1024 MiB, t = 1, 3, 6), 3 rounds unless -r says otherwise.
 */
#include <argon2.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "kdf.h"
#include "measure.h"

#define MAX_LIST	16
#define MAX_ROUNDS	101

enum { BARE_ARGON2, KDF_ARGON2, BARE_SODIUM, KDF_SODIUM, NWAYS };

static const char *const way_names[NWAYS] = {
	"bare-libargon2", "kdf-libargon2", "bare-libsodium", "kdf-libsodium"
};

static int
parse_list(const char *s, unsigned *out)
{
	char	*copy = strdup(s), *tok, *save = NULL;
	int	 n = 0;

	for (tok = strtok_r(copy, ",", &save); tok != NULL && n < MAX_LIST;
	    tok = strtok_r(NULL, ",", &save))
		out[n++] = (unsigned)strtoul(tok, NULL, 10);
	free(copy);
	return n;
}

/* One hash by way w; returns seconds, or a negative number on failure. */
static double
run_one(int w, uint32_t m_kib, uint32_t t)
{
	static const uint8_t	 salt[16] = "pwtune-bench-slt";
	static const char	 pwd[] = "correct horse battery staple";
	struct kdf_params	 kp;
	struct kdf_input	 in = { (const uint8_t *)pwd, sizeof(pwd) - 1,
				    salt, sizeof(salt), NULL, 0, NULL, 0 };
	uint8_t			 out[32];
	char			 err[256];
	double			 t0 = bench_now();
	int			 rc = 0;

	kdf_params_init(&kp, KDF_ALG_ARGON2ID);
	kp.m_kib = m_kib;
	kp.t = t;
	kp.p = 1;
	switch (w) {
	case BARE_ARGON2:
		rc = argon2id_hash_raw(t, m_kib, 1, pwd, sizeof(pwd) - 1, salt,
		    sizeof(salt), out, sizeof(out)) == ARGON2_OK ? 0 : -1;
		break;
	case BARE_SODIUM:
		rc = crypto_pwhash(out, sizeof(out), pwd, sizeof(pwd) - 1, salt,
		    t, (size_t)m_kib * 1024, crypto_pwhash_ALG_ARGON2ID13);
		break;
	default:
		kp.backend = w == KDF_ARGON2 ? KDF_BACKEND_LIBARGON2 :
		    KDF_BACKEND_LIBSODIUM;
		rc = kdf_hash(&kp, &in, out, NULL, 0, err, sizeof(err));
		if (rc != 0)
			fprintf(stderr, "backends: %s\n", err);
		break;
	}
	return rc == 0 ? bench_now() - t0 : -1;
}

/*
 * The harness against a bare loop: blocks of rounds hashes each, taken
 * in turn, three times. Prints one table row.
 */
static int
harness_row(unsigned m_mib, int rounds)
{
	static const uint8_t	salt[16] = "pwtune-bench-slt";
	static const char	pwd[] = "correct horse battery staple";
	static double		bare[3 * MAX_ROUNDS], harness[3 * MAX_ROUNDS];
	struct measure_point	pt;
	struct measure_opts	o;
	struct measure_result	r;
	uint8_t			out[32];
	double			t0, mb, mh;
	int			block, i, nb = 0, nh = 0;

	measure_opts_init(&o, 1);
	o.fixed_rounds = (size_t)rounds;
	o.remeasure_noisy = 0;
	kdf_params_init(&pt.kp, KDF_ALG_ARGON2ID);
	pt.kp.backend = KDF_BACKEND_LIBSODIUM;
	pt.kp.m_kib = m_mib * 1024;
	pt.kp.t = 1;
	pt.kp.p = 1;
	pt.k = 1;
	/* The bare loop gets its warm-up too. */
	if (crypto_pwhash(out, sizeof(out), pwd, sizeof(pwd) - 1, salt, 1,
	    (size_t)m_mib << 20, crypto_pwhash_ALG_ARGON2ID13) != 0)
		return -1;
	for (block = 0; block < 3; block++) {
		for (i = 0; i < rounds; i++) {
			t0 = bench_now();
			if (crypto_pwhash(out, sizeof(out), pwd, sizeof(pwd) - 1,
			    salt, 1, (size_t)m_mib << 20,
			    crypto_pwhash_ALG_ARGON2ID13) != 0)
				return -1;
			bare[nb++] = (bench_now() - t0) * 1000;
		}
		if (measure_point_run(&pt, &o, &r) != 0) {
			fprintf(stderr, "backends: harness: %s\n", r.reason);
			measure_result_release(&r);
			return -1;
		}
		for (i = 0; i < (int)r.nsamples; i++)
			harness[nh++] = r.samples[i];
		measure_result_release(&r);
	}
	mb = bench_median(bare, (size_t)nb);
	mh = bench_median(harness, (size_t)nh);
	printf("| %u | 1 | %d | %.2f | %.2f | %.3f |\n", m_mib, nb, mb, mh,
	    mh / mb);
	fflush(stdout);
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned	 ms[MAX_LIST] = { 32, 64, 128 }, ts[MAX_LIST] = { 1, 3 };
	int		 nm = 3, nt = 2, rounds = 7, c, i, j, r, w;
	static double	 samples[NWAYS][MAX_ROUNDS];
	double		 med[NWAYS], t_start = bench_now();

	int		 seed = 0, rounds_set = 0;

	while ((c = getopt(argc, argv, "r:m:t:s")) != -1) {
		switch (c) {
		case 's':
			seed = 1;
			break;
		case 'r':
			rounds = atoi(optarg);
			rounds_set = 1;
			break;
		case 'm':
			nm = parse_list(optarg, ms);
			break;
		case 't':
			nt = parse_list(optarg, ts);
			break;
		default:
			fprintf(stderr, "usage: backends [-r ROUNDS] "
			    "[-m MiB,...] [-t T,...] [-s]\n");
			return 2;
		}
	}
	if (seed) {
		nm = parse_list("32,64,128,256,512,1024", ms);
		nt = parse_list("1,3,6", ts);
		if (!rounds_set)
			rounds = 3;
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || nm < 1 || nt < 1) {
		fprintf(stderr, "backends: 1 to %d rounds, at least one m and "
		    "one t\n", MAX_ROUNDS);
		return 2;
	}
	if (sodium_init() < 0)
		return 1;

	printf("Argon2id, p = 1, %d rounds, median ms (libsodium %s)\n\n",
	    rounds, sodium_version_string());
	printf("| m MiB | t | %s | %s | %s | %s | libargon2/libsodium | "
	    "kdf/bare libargon2 | kdf/bare libsodium |\n",
	    way_names[0], way_names[1], way_names[2], way_names[3]);
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < nm; i++) {
		for (j = 0; j < nt; j++) {
			/* One warm-up of each way, discarded. */
			for (w = 0; w < NWAYS; w++)
				run_one(w, ms[i] * 1024, ts[j]);
			for (r = 0; r < rounds; r++) {
				for (w = 0; w < NWAYS; w++) {
					samples[w][r] = run_one(w, ms[i] * 1024,
					    ts[j]);
					if (samples[w][r] < 0) {
						fprintf(stderr, "backends: %s "
						    "failed\n", way_names[w]);
						return 1;
					}
				}
			}
			for (w = 0; w < NWAYS; w++)
				med[w] = bench_median(samples[w],
				    (size_t)rounds) * 1000;
			printf("| %u | %u | %.1f | %.1f | %.1f | %.1f | %.2f | "
			    "%.3f | %.3f |\n", ms[i], ts[j],
			    med[BARE_ARGON2], med[KDF_ARGON2], med[BARE_SODIUM],
			    med[KDF_SODIUM], med[KDF_ARGON2] / med[KDF_SODIUM],
			    med[KDF_ARGON2] / med[BARE_ARGON2],
			    med[KDF_SODIUM] / med[BARE_SODIUM]);
			fflush(stdout);
		}
	}
	printf("\nThe harness (engine/measure, libsodium, t = 1, %d hashes "
	    "a block, 3 blocks each) against a bare loop of crypto_pwhash():"
	    "\n\n", rounds);
	printf("| m MiB | t | hashes | bare median ms | harness median ms | "
	    "harness/bare |\n|---|---|---|---|---|---|\n");
	for (i = 0; i < nm; i++)
		if (harness_row(ms[i], rounds) != 0)
			return 1;
	printf("\n%.1f s in all\n", bench_now() - t_start);
	return 0;
}
