/*
 * engine/search: one target, measured instead of modelled. What
 * cryptsetup's benchmark does for a keyslot, done for an answer: a small
 * hash for the host's scale (and one at a quarter of the target, past the
 * caches, when the target is far from it), then one round of k hashes at a
 * time, each at the answer the samples so far give.
 *
 * Every hash counts: a hash's work is m x (t + 1) (the first pass costs
 * about one more: fresh memory), the samples within 15 % of a candidate's
 * work are scaled to it in proportion and pooled, and the pool's
 * percentile puts the next (m, t) where it is SEARCH_AIM of the target (a
 * MiB or a pass more where that stays within 97.5 %). A step moves m by
 * the part of the move the hashes' noise cannot explain, 12 % and a MiB at
 * least, so that one slow sample cannot swing the search between pools
 * that do not meet while a far first guess is left at once.
 *
 * The search settles when the next candidate's work is within 5 % of the
 * last hash's, the pool there holds the samples asked for (6), its
 * percentile is within [SEARCH_BAND_LO, SEARCH_BAND_HI] of the target (or
 * m and t can move no further) and is known to 5 % (or the pool holds
 * twice the samples). After 3 rounds and SEARCH_HASHES_X x the samples, or
 * 6 x the target + 3 s, it stops out of steps: the answer is one step from
 * the last hash toward where its samples put it, when its pool there is
 * within the target; else the most work hashed whose pool is; else (every
 * hash over the target) where the last samples put it, its percentile
 * projected down from theirs (`projected`). The answer follows tune's
 * memory-first rule: the smallest t the floor and the client admit, the
 * most memory that fits; t grows only when m reaches its cap.
 *
 * The percentile is estimated from the pooled samples: the median plus z
 * standard deviations (z = 1.645 for p95, 2.326 for p99), the deviation
 * the larger of 1.4826 x the median absolute deviation and the root mean
 * square of the samples above the median (hash times lean right: a slow
 * tail counts), at least SEARCH_CV_MIN of the median; with fewer than 3
 * samples SEARCH_CV_GUESS, and an uncertainty of 100 %. The result says
 * how many hashes the search took, how many it pooled for the answer (and
 * how many of them within 5 % of its work) and the estimate's relative
 * uncertainty.
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
#define SEARCH_HASHES_X		4	/* hashes past the scale: at most this
					   many times the samples */
#define SEARCH_POOL_X		1.15	/* samples this near an m pool there */
#define SEARCH_NEAR_X		1.05	/* ... and count as near it */

struct search_opts {
	uint64_t	 mem_budget;	/* bytes for k hashes at once */
	int		 cpus;		/* usable CPUs (noise thresholds) */
	size_t		 samples;	/* at the answer; 0: SEARCH_SAMPLES */
	volatile int	*cancel;
	/* Called before each measured step: what is hashed next. */
	void		(*progress)(void *ctx, uint32_t m_kib, uint32_t t,
			    size_t step);
	void		*progress_ctx;
	/*
	 * The hashes timed. NULL: real ones, in children (measure.h). A test
	 * gives a host of its own: n latencies in ms of (m, t, p), k at once,
	 * into ms; 0, or -1 with why.
	 */
	int		(*timer)(void *ctx, uint32_t m_kib, uint32_t t,
			    uint32_t p, uint32_t k, size_t n, double *ms,
			    char *why, size_t whylen);
	void		*timer_ctx;
};

/* Why the search ended where it did. */
enum search_stop {
	SEARCH_IN_BAND,		/* within [SEARCH_BAND_LO, SEARCH_BAND_HI] */
	SEARCH_AT_CAP,		/* under: m at its cap, t + 1 over the target */
	SEARCH_AT_GRAIN,	/* under: m's next MiB or t's next pass over */
	SEARCH_OUT_OF_STEPS,	/* the hashes or the time ran out before the
				   percentile was known (noise): where the
				   last hashes put the answer, in the band or
				   not (in_band says) */
	SEARCH_AT_FLOOR		/* the floor's least work: nothing less is
				   admissible, nothing more was measured */
};

struct search_result {
	struct tune_answer	a;	/* predicted_ms: the measured percentile */
	size_t			hashes;		/* hashed in all, warm-ups too */
	size_t			steps;		/* points measured */
	size_t			samples;	/* latencies pooled for the answer:
						   within 15 % of its m */
	size_t			near;		/* of them, within 5 % */
	int			projected;	/* out of steps, every hash over
						   the target: the percentile is
						   the last ones' scaled down to
						   less work than any (samples
						   counts them, near is 0) */
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

/* One hash the search timed. */
struct search_sample {
	uint32_t	m_kib, t;
	double		ms;
};

/*
 * The samples of h[0..nh-1] whose work (m x (t + 1)) is within
 * SEARCH_POOL_X of (m_ref, t_ref)'s, each scaled to it in proportion to
 * the work, into out (room for nh). Returns their number; *near counts
 * those within SEARCH_NEAR_X.
 */
size_t	 search_pool(const struct search_sample *h, size_t nh,
	    uint32_t m_ref, uint32_t t_ref, double *out, size_t *near);

/* The percentile pct (50, 95, 99) of n samples as search_target takes it;
   *unc gets its relative uncertainty. */
double	 search_percentile(const double *samples, size_t n, int pct,
	    double *unc);

#endif /* PWTUNE_SEARCH_H */
