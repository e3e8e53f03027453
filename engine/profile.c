/*
 * engine/profile.c: building the point lists of the quick and full
 * profiles (see profile.h).
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

#define MIB	1024u

int
profile_parse(const char *name, enum profile_kind *kind)
{
	if (strcmp(name, "quick") == 0)
		*kind = PROFILE_QUICK;
	else if (strcmp(name, "full") == 0)
		*kind = PROFILE_FULL;
	else
		return -1;
	return 0;
}

const char *
profile_name(enum profile_kind kind)
{
	return kind == PROFILE_FULL ? "full" : "quick";
}

static int
profile_wants(const enum kdf_backend *backends, size_t nb,
    enum kdf_backend b)
{
	size_t	i;

	if (backends == NULL || nb == 0)
		return 1;
	for (i = 0; i < nb; i++)
		if (backends[i] == b)
			return 1;
	return 0;
}

static void
profile_add(struct measure_point *pts, size_t *n, enum kdf_backend b,
    uint32_t m_kib, uint32_t t, uint32_t p, uint32_t k)
{
	struct measure_point	*pt = &pts[(*n)++];

	kdf_params_init(&pt->kp, KDF_ALG_ARGON2ID);
	pt->kp.backend = b;
	pt->kp.m_kib = m_kib;
	pt->kp.t = t;
	pt->kp.p = p;
	pt->kp.hashlen = 32;
	pt->k = k;
}

int
profile_points(enum profile_kind kind, int cpus,
    const enum kdf_backend *backends, size_t nb, struct measure_point **pts,
    size_t *n)
{
	static const uint32_t	quick_m[] = { 8, 16, 32, 64, 128, 256, 512 };
	static const uint32_t	quick_argon2_m[] = { 8, 32, 128, 256 };
	static const uint32_t	full_m[] = { 32, 64, 128, 256, 512, 1024 };
	static const uint32_t	full_t[] = { 1, 3, 6 };
	static const enum kdf_backend all[] = { KDF_BACKEND_LIBARGON2,
				    KDF_BACKEND_LIBSODIUM };
	struct measure_point	*v;
	enum kdf_backend	 quick_backend = KDF_BACKEND_LIBSODIUM;
	size_t			 i, j, b, cap = 256;
	uint32_t		 k;

	if (cpus < 1)
		cpus = 1;
	if (cpus > MEASURE_K_MAX / 2)
		cpus = MEASURE_K_MAX / 2;
	if ((v = calloc(cap, sizeof(*v))) == NULL)
		return -1;
	*n = 0;
	if (kind == PROFILE_QUICK) {
		/* One backend: the profile's own (libsodium, then some of
		   libargon2), or the first one asked. */
		if (backends != NULL && nb > 0)
			quick_backend = backends[0];
		for (i = 0; i < sizeof(quick_m) / sizeof(quick_m[0]); i++) {
			profile_add(v, n, quick_backend, quick_m[i] * MIB, 1, 1,
			    1);
			if (quick_m[i] < 512)
				profile_add(v, n, quick_backend,
				    quick_m[i] * MIB, 3, 1, 1);
		}
		/* Contention grows with m: three sizes at k = cores. */
		if (cpus > 1) {
			profile_add(v, n, quick_backend, 16 * MIB, 1, 1,
			    (uint32_t)cpus);
			profile_add(v, n, quick_backend, 64 * MIB, 1, 1,
			    (uint32_t)cpus);
			profile_add(v, n, quick_backend, 256 * MIB, 1, 1,
			    (uint32_t)cpus);
		}
		/*
		 * Then Debian's libargon2 (its memory through libc's malloc
		 * in the benchmark children, as its clients take it) at
		 * fewer sizes, t = 3 as well up to 128 MiB (at 256 MiB the
		 * pass cost comes from the neighbours): the curve the stacks
		 * standing on it are corrected against, after the libsodium
		 * points so the first answers do not wait for it. 8 MiB is
		 * under glibc's mmap threshold (reused memory, next to no
		 * fixed cost), 32 MiB and up over it (memory faulted in
		 * afresh each hash), so only a second two-t size over it
		 * gives 32 MiB a shape when one of its points is left out:
		 * without 128 MiB's t = 3, the curve's worst leave-one-out
		 * error was 43.5 % (median of twelve quick runs), with it
		 * 11.5 % (docs/BENCHMARKS.md), for about a second more.
		 */
		if (backends == NULL || nb == 0)
			for (i = 0; i < sizeof(quick_argon2_m) /
			    sizeof(quick_argon2_m[0]); i++) {
				profile_add(v, n, KDF_BACKEND_LIBARGON2,
				    quick_argon2_m[i] * MIB, 1, 1, 1);
				if (quick_argon2_m[i] < 256)
					profile_add(v, n,
					    KDF_BACKEND_LIBARGON2,
					    quick_argon2_m[i] * MIB, 3, 1, 1);
			}
	} else {
		uint32_t	ps[2] = { 1, (uint32_t)cpus };
		size_t		np = cpus > 1 ? 2 : 1, q;

		for (b = 0; b < sizeof(all) / sizeof(all[0]); b++) {
			if (!profile_wants(backends, nb, all[b]))
				continue;
			for (q = 0; q < np; q++) {
				/* crypto_pwhash computes p = 1 only. */
				if (ps[q] > 1 && all[b] == KDF_BACKEND_LIBSODIUM)
					continue;
				for (i = 0; i < sizeof(full_m) /
				    sizeof(full_m[0]); i++)
					for (j = 0; j < sizeof(full_t) /
					    sizeof(full_t[0]); j++)
						profile_add(v, n, all[b],
						    full_m[i] * MIB, full_t[j],
						    ps[q], 1);
			}
		}
		b = profile_wants(backends, nb, KDF_BACKEND_LIBSODIUM) ?
		    KDF_BACKEND_LIBSODIUM : KDF_BACKEND_LIBARGON2;
		for (k = 1; k <= 2 * (uint32_t)cpus; k++)
			profile_add(v, n, (enum kdf_backend)b, 64 * MIB, 3, 1,
			    k);
	}
	*pts = v;
	return 0;
}

void
profile_opts(enum profile_kind kind, struct measure_opts *o)
{
	if (kind == PROFILE_QUICK) {
		o->min_samples = 3;
		o->max_samples = 15;	/* small points are cheap and noisy */
		o->max_rel_error = 0.05;
		o->point_budget = 1.5;
		o->remeasure_noisy = 0;
		o->warmup_max_kib = 128 * MIB;
	} else {
		o->min_samples = 5;
		o->max_samples = 30;
		o->max_rel_error = 0.02;
		o->point_budget = 10;
	}
}
