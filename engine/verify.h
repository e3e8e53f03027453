/*
 * engine/verify.h: measure an answer. The model predicts; a verification
 * measures the parameters it chose, at the concurrency and percentile the
 * question named, so predicted and measured can be set side by side
 * (pwtune recommend --verify, and the daemon after each run).
 */
#ifndef PWTUNE_VERIFY_H
#define PWTUNE_VERIFY_H

#include <stddef.h>

#include "measure.h"
#include "tune.h"

/* Rounds when the caller has no opinion: about ten latencies in all. */
size_t	 verify_rounds(uint32_t k);

/*
 * Measure a's parameters with a->k hashes at once, rounds rounds, in child
 * processes (engine/measure). *measured_ms gets the latency at
 * a->percentile. Returns 0, or -1 with the reason in err.
 */
int	 verify_answer(const struct tune_answer *a, int cpus, size_t rounds,
	    volatile int *cancel, double *measured_ms, char *err,
	    size_t errlen);

/*
 * Measure a's parameters (k = a->k at once) for rounds rounds (0:
 * verify_rounds), cancel stopping it at once: 0 with *r (its samples;
 * measure_result_release() it), or -1 with err.
 */
int	 verify_measure(const struct tune_answer *a, int cpus, size_t rounds,
	    volatile int *cancel, struct measure_result *r, char *err,
	    size_t errlen);

/*
 * The warm-ups verify_measure runs before a's samples (measure.h's
 * measure_warmups), in hashes of a: each one, but libargon2's two under
 * glibc's mmap threshold, which map and extend the heap, about two each
 * (what a check's cost sets aside).
 */
double	 verify_warmup_cost(const struct tune_answer *a, int cpus);

/*
 * r's time at a percentile (50, 95, 99), as verifications and checks take
 * it: p95 and p99 at the nearest rank of r's samples (of 20 or fewer,
 * the p95 is the largest or the second largest), as the benches and
 * clients' own timers of a few hashes take them (an interpolated p95 of so
 * few samples is lower); the median as r->st has it.
 */
double	 verify_percentile(const struct measure_result *r, int percentile);

/* The parameters as the store keeps them beside a verification (JSON). */
void	 verify_params_json(const struct tune_answer *a, char *buf,
	    size_t len);

#endif /* PWTUNE_VERIFY_H */
