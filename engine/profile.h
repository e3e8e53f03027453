/*
 * engine/profile: the lists of points a benchmark run measures.
 *
 *   quick  what the model needs for targets up to about 1 s, in about 20 s
 *          on a 2-core machine: libsodium Argon2id, p = 1, m from 8 MiB
 *          (below every floor) to 512 MiB in steps of 2, t = 1 and 3 (512
 *          MiB at t = 1 only), few samples each; and k = cores at 16, 64
 *          and 256 MiB (contention grows with m); then Debian's
 *          libargon2 at m = 8, 32, 128 and 256 MiB, t = 1 (and 3 at 8,
 *          32 and 128 MiB), about 6 s: the curve the stacks on it are
 *          corrected against.
 *          Points over 128 MiB skip the warm-up round, which there costs
 *          seconds. With a backend asked for, that backend's points only.
 *   full   the grid users know from the seeds: m = 32, 64, 128, 256, 512,
 *          1024 MiB x t = 1, 3, 6 x p = 1 and the effective core count, for
 *          libargon2 and libsodium (p = 1 only: crypto_pwhash has no p);
 *          then a concurrency curve k = 1 .. 2 x cores at 64 MiB, t = 3.
 *
 * Points over the memory budget are still listed: the harness skips them
 * and says why.
 */
#ifndef PWTUNE_PROFILE_H
#define PWTUNE_PROFILE_H

#include <stddef.h>

#include "measure.h"

enum profile_kind {
	PROFILE_QUICK,
	PROFILE_FULL
};

/* profile.c */

int	 profile_parse(const char *name, enum profile_kind *kind);
const char *profile_name(enum profile_kind kind);

/*
 * The points of kind for a host with cpus effective cores. backends (nb of
 * them; NULL or 0 for the profile's own) restricts the backends measured.
 * *pts is allocated; the caller frees it. Returns 0, or -1 when out of
 * memory.
 */
int	 profile_points(enum profile_kind kind, int cpus,
	    const enum kdf_backend *backends, size_t nb,
	    struct measure_point **pts, size_t *n);

/* Tighten or loosen o's sample rules for kind. */
void	 profile_opts(enum profile_kind kind, struct measure_opts *o);

#endif /* PWTUNE_PROFILE_H */
