/*
 * bench/synthetic: measurements of an imaginary host whose Argon2id costs
 * follow a known law, for the model's unit tests and the fleet benchmark.
 *
 * The law: per-KiB costs linear in log m (as the model interpolates), the
 * first pass 0.002 ms/KiB at 8 MiB rising to 0.003 at 1 GiB, each further
 * pass 0.0004 ms/KiB rising to 0.0008.
 */
#ifndef PWTUNE_SYNTHETIC_H
#define PWTUNE_SYNTHETIC_H

#include <stdint.h>

#include "report.h"

/* Milliseconds of one Argon2id hash of m_kib, t on the imaginary host. */
double	 synthetic_truth(uint32_t m_kib, uint32_t t);

/*
 * Append a point (p = 1, 5 samples) taking scale times the truth: p95 is
 * 1.05 times the median, p99 1.10. rep->results must have room for it.
 */
void	 synthetic_point(struct report *rep, enum kdf_backend b,
	    uint32_t m_kib, uint32_t t, uint32_t k, double scale);

/*
 * A report of points at m = 8 .. 1024 MiB, t = 1 and 3 (libsodium, and
 * libargon2 2x slower when with_argon2), k = 2 at 64 MiB 1.5x slower;
 * every time speed times the truth, on a host with budget bytes of memory.
 * Room for 64 points; report_release() frees it.
 */
void	 synthetic_host(struct report *rep, int with_argon2, double speed,
	    uint64_t budget);

#endif /* PWTUNE_SYNTHETIC_H */
