/*
 * bench/memtouch.c: what this host charges for the first write to a page
 * of memory, the cost an Argon2 hash pays for each page of m it faults in.
 *
 * A virtual machine whose guest gives free memory back to its host (free
 * page reporting, a balloon) pays far more for a page the host must back
 * again than for one a process freed a moment ago: a runtime whose heap
 * grows into memory not used for a while (a JVM's first young-generation
 * cycle) hashes several times slower until it has touched that memory
 * once. Three ways, each in rounds, side by side:
 *   recycled   map m MiB, write one byte a page, unmap; at once again: the
 *              timed pass gets the pages the last one freed
 *   idle       the same after SLEEP seconds idle (the guest may have given
 *              the freed pages back meanwhile)
 *   fresh      map FRESH MiB and write it once: memory the process never
 *              had, as a heap growing to its size takes
 * The table gives microseconds a page (median over the rounds) and the
 * ratio of each to recycled. Round 1's idle pass is also the process's
 * first touch of memory.
 *
 * Usage: memtouch [-m MiB] [-f FRESH_MiB] [-r ROUNDS] [-s SLEEP]
 * Defaults: m = 256 MiB, FRESH = 1024 MiB, 5 rounds, 5 s.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

#define MEMTOUCH_ROUNDS_MAX	100
/* 64 GiB, and what a size_t of bytes holds (a 32-bit build: 4095). */
#define MEMTOUCH_MIB_MAX	((long)(SIZE_MAX >> 20) < 65536 ?	\
				    (long)(SIZE_MAX >> 20) - 1 : 65536)

/* Microseconds a page to map mib MiB and write each page once; -1: none. */
static double
memtouch_pass(size_t mib)
{
	size_t		 len = mib << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	char		*p;
	double		 t0, t1;
	size_t		 i;

	t0 = bench_now();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < len; i += page)
		((volatile char *)p)[i] = 1;
	t1 = bench_now();
	munmap(p, len);
	return (t1 - t0) * 1e6 / (double)(len / page);
}

static int
memtouch_arg(const char *s, long lo, long hi, long *v)
{
	char	*end;

	*v = strtol(s, &end, 10);
	return *s != '\0' && *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

static void
usage(void)
{
	fprintf(stderr, "usage: memtouch [-m MiB] [-f FRESH_MiB] [-r ROUNDS] "
	    "[-s SLEEP]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	double	 recycled[MEMTOUCH_ROUNDS_MAX], idle[MEMTOUCH_ROUNDS_MAX];
	double	 fresh[MEMTOUCH_ROUNDS_MAX], r, i, f, per128;
	long	 mib = 256, fresh_mib = 1024, rounds = 5, sleep_s = 5;
	long	 k;
	int	 ch;

	while ((ch = getopt(argc, argv, "m:f:r:s:")) != -1) {
		switch (ch) {
		case 'm':
			if (memtouch_arg(optarg, 1, MEMTOUCH_MIB_MAX, &mib))
				usage();
			break;
		case 'f':
			if (memtouch_arg(optarg, 1, MEMTOUCH_MIB_MAX,
			    &fresh_mib))
				usage();
			break;
		case 'r':
			if (memtouch_arg(optarg, 1, MEMTOUCH_ROUNDS_MAX,
			    &rounds))
				usage();
			break;
		case 's':
			if (memtouch_arg(optarg, 0, 600, &sleep_s))
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	printf("memtouch: m = %ld MiB, fresh = %ld MiB, %ld rounds, %ld s "
	    "idle\n", mib, fresh_mib, rounds, sleep_s);
	for (k = 0; k < rounds; k++) {
		sleep((unsigned)sleep_s);
		idle[k] = memtouch_pass((size_t)mib);
		(void)memtouch_pass((size_t)mib);
		recycled[k] = memtouch_pass((size_t)mib);
		fresh[k] = memtouch_pass((size_t)fresh_mib);
		if (idle[k] < 0 || recycled[k] < 0 || fresh[k] < 0) {
			fprintf(stderr, "memtouch: mmap of %ld MiB failed\n",
			    fresh[k] < 0 ? fresh_mib : mib);
			return 1;
		}
		printf("round %ld: recycled %.2f, idle %.2f, fresh %.2f us a "
		    "page\n", k + 1, recycled[k], idle[k], fresh[k]);
		fflush(stdout);
	}
	r = bench_median(recycled, (size_t)rounds);
	i = bench_median(idle, (size_t)rounds);
	f = bench_median(fresh, (size_t)rounds);
	/* Pages in 128 MiB, ms from us. */
	per128 = (double)(128 << 20) / (double)sysconf(_SC_PAGESIZE) / 1e3;
	printf("\n%-10s %12s %14s %10s\n", "memory", "us a page",
	    "ms per 128 MiB", "vs recycled");
	printf("%-10s %12.2f %14.1f %10.2f\n", "recycled", r, r * per128,
	    1.0);
	printf("%-10s %12.2f %14.1f %10.2f\n", "idle", i, i * per128, i / r);
	printf("%-10s %12.2f %14.1f %10.2f\n", "fresh", f, f * per128, f / r);
	return 0;
}
