/*
 * engine/search: one target, measured instead of modelled. What
 * cryptsetup's benchmark does for a keyslot, done for an answer: a short
 * hash to find the host's scale, one hash at the first guess, then rounds
 * at the answer's exact parameters, moving m by the measured ratio until
 * the percentile falls inside [SEARCH_BAND_LO, SEARCH_BAND_HI] of the
 * target (or the memory cap or the floor decides). Two measurements at the
 * same t give the next step by the time's own slope in m between them. The
 * steps stop after 6 x the target + 3 s once an answer within the target
 * was measured: the best such (the most work) is the answer. The answer follows
 * tune's memory-first rule: the smallest t the floor and the client admit,
 * the most memory that fits; t grows only when m reaches its cap.
 *
 * The percentile is estimated from the answer's own samples: the median
 * plus z standard deviations (z = 1.645 for p95, 2.326 for p99), the
 * deviation the larger of 1.4826 x the median absolute deviation and the
 * root mean square of the samples above the median (hash times lean
 * right: a slow tail counts), at least SEARCH_CV_MIN of the median. The result says how many hashes the
 * search took and the estimate's relative uncertainty.
 */
#ifndef PWTUNE_SEARCH_H
#define PWTUNE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "tune.h"

#define SEARCH_BAND_LO		0.90	/* of the target, at the percentile */
#define SEARCH_BAND_HI		1.00
#define SEARCH_AIM		0.95
#define SEARCH_CV_MIN		0.01
#define SEARCH_SAMPLES		6	/* at the answer, at least */
#define SEARCH_STEPS_MAX	6	/* measured guesses past the scale */

struct search_opts {
	uint64_t	 mem_budget;	/* bytes for k hashes at once */
	int		 cpus;		/* usable CPUs (noise thresholds) */
	size_t		 samples;	/* at the answer; 0: SEARCH_SAMPLES */
	volatile int	*cancel;
	/* Called before each measured step: what is hashed next. */
	void		(*progress)(void *ctx, uint32_t m_kib, uint32_t t,
			    size_t step);
	void		*progress_ctx;
};

/* Why the search ended where it did. */
enum search_stop {
	SEARCH_IN_BAND,		/* within [SEARCH_BAND_LO, SEARCH_BAND_HI] */
	SEARCH_AT_CAP,		/* under: m at its cap, t + 1 over the target */
	SEARCH_AT_GRAIN,	/* under: m's next MiB or t's next pass over */
	SEARCH_OUT_OF_STEPS,	/* under: no step landed in the band before
				   the steps or the time ran out (noise) */
	SEARCH_AT_FLOOR		/* the floor's least work: nothing less is
				   admissible, nothing more was measured */
};

struct search_result {
	struct tune_answer	a;	/* predicted_ms: the measured percentile */
	size_t			hashes;		/* hashed in all, warm-ups too */
	size_t			steps;		/* points measured */
	size_t			samples;	/* latencies at the answer */
	double			seconds;	/* wall time of the search */
	double			uncertainty;	/* of the percentile, relative */
	int			in_band;	/* percentile within the band */
	enum search_stop	stop;		/* why it ended there */
	int			noisy;		/* the answer's point was noisy */
};

/*
 * Search the answer to q (target, percentile, k, memory_max, floor,
 * variant, parallelism, t_min; objective memory-first) by measuring.
 * Returns 0 (r->a.met = 1), 1 when the target cannot be met above the
 * floor (r->a holds the closest admissible answer, measured), -1 with err
 * set when nothing could be measured, -2 with err when the query cannot be
 * answered (its values, too little memory for one hash, or for the floor).
 */
int	 search_target(const struct tune_query *q, const struct search_opts *o,
	    struct search_result *r, char *err, size_t errlen);

/* "in band", "memory cap", "grain", "out of steps" or "floor". */
const char *search_stop_name(enum search_stop s);

/* The percentile pct (50, 95, 99) of n samples as search_target takes it;
   *unc gets its relative uncertainty. */
double	 search_percentile(const double *samples, size_t n, int pct,
	    double *unc);

#endif /* PWTUNE_SEARCH_H */
