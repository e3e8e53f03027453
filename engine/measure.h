/*
 * engine/measure: the timing harness.
 *
 * A point is (backend, variant, m, t, p) and a concurrency k. It runs in k
 * child processes, forked for the point and gone after it: each allocates
 * its memory afresh for every hash as a client does, gives it back to the
 * OS when it exits, and can be killed (on cancel, on timeout) without harm
 * to the parent. A child closes every descriptor but its own socket, so it
 * never touches the parent's database or network sockets. A child killed
 * by the OOM killer or crashing is reported as such; the parent carries on.
 *
 * Each round, the parent releases the k children together (one byte on
 * each socket) and collects one latency from each. The first round is a
 * warm-up and is discarded. Rounds repeat until the 99.9 % confidence
 * half-width of the mean ("Error") is at most max_rel_error of the mean,
 * between min_samples and max_samples latencies; once min_samples are in,
 * a round that would end past the point's time budget is not started. Time is wall clock (CLOCK_MONOTONIC), never CPU time.
 *
 * Noise: the runnable processes of others (from /proc/loadavg) and CPU
 * steal (from /proc/stat) are read before and after each point. A point
 * whose spread (coefficient of variation), steal or foreign load is over
 * its threshold is measured again once, then flagged noisy if it still is.
 */
#ifndef PWTUNE_MEASURE_H
#define PWTUNE_MEASURE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "kdf.h"
#include "stats.h"

#define MEASURE_K_MAX		64	/* concurrent hashes in one point */
#define MEASURE_SAMPLES_MAX	2000	/* latencies kept per point */

struct measure_result;

struct measure_point {
	struct kdf_params	kp;
	uint32_t		k;	/* hashes at once, 1..MEASURE_K_MAX */
};

enum measure_status {
	MEASURE_OK,
	MEASURE_SKIPPED,	/* not run: over the memory budget */
	MEASURE_FAILED,		/* a child reported an error */
	MEASURE_OOM,		/* a child ran out of memory */
	MEASURE_KILLED,		/* a child was killed (SIGKILL: OOM killer?) */
	MEASURE_CRASHED,	/* a child died of another signal */
	MEASURE_TIMEOUT,	/* the point overran its hard timeout */
	MEASURE_CANCELLED
};

struct measure_progress {
	size_t			 done;		/* points finished */
	size_t			 total;
	double			 elapsed;	/* seconds since the list began */
	double			 eta;		/* seconds left, estimated */
	const struct measure_point *current;	/* NULL between points */
	size_t			 round;		/* rounds done in current */
	const pid_t		*children;	/* current's children */
	size_t			 nchildren;
};

struct measure_opts {
	size_t		min_samples;	/* default 5 */
	size_t		max_samples;	/* default 50 */
	double		max_rel_error;	/* default 0.02 */
	double		point_budget;	/* seconds of measuring, default 10 */
	double		timeout;	/* hard limit per point, default 120 s */
	int		warmup_rounds;	/* default 1 */
	uint32_t	warmup_max_kib;	/* no warm-up above this m (the point
					   before warmed up the machine; a
					   fresh child has no heap to warm);
					   0: always */
	size_t		fixed_rounds;	/* exactly this many measured rounds
					   (k latencies each); 0: the rules */
	uint64_t	mem_budget;	/* bytes for k hashes; 0: no limit */
	uint64_t	child_mem_limit; /* RLIMIT_AS of a child; 0: derived */
	double		noise_cv;	/* default 0.10 */
	double		noise_steal;	/* percent, default 5 */
	int		noise_runnable;	/* others' runnable tasks, default
					   half the CPUs (at least 1) */
	int		remeasure_noisy; /* default 1 */
	volatile int   *cancel;		/* set non-zero to cancel */
	void	      (*progress)(void *ctx, const struct measure_progress *);
	void	       *progress_ctx;
	/* Called by measure_list_run as each point ends, whatever its status. */
	void	      (*result)(void *ctx, size_t index,
			    const struct measure_result *r);
	void	       *result_ctx;
};

struct measure_result {
	struct measure_point	 pt;
	enum measure_status	 status;
	char			 reason[256];
	struct stats		 st;		/* ms per hash */
	double			*samples;	/* ms, in order; owned */
	size_t			 nsamples;
	size_t			 rounds;	/* measured rounds */
	double			 throughput;	/* hashes per second at k */
	uint64_t		 peak_rss_kib;	/* the k children together */
	double			 load_before;	/* 1-minute load average */
	double			 load_after;
	int			 runnable_before; /* others' runnable tasks */
	int			 runnable_after;
	double			 steal_pct;	/* CPU steal during the point */
	int			 noisy;
	int			 remeasured;
	double			 seconds;	/* wall time spent on the point */
};

/* measure.c */

/* Fill *o with the defaults above, for a host with cpus usable CPUs. */
void	 measure_opts_init(struct measure_opts *o, int cpus);

/*
 * Whether the benchmark children take libargon2's memory through libc's
 * malloc (1; 0 in sanitizer builds, whose malloc is not libc's).
 */
int	 measure_libc_memory(void);

/*
 * The warm-up rounds before pt's samples: o's, none over its
 * warmup_max_kib; for libargon2 under KDF_MALLOC_REUSE_KIB through libc's
 * malloc one more, two at least (its first hash maps its memory, its
 * second extends the heap).
 */
int	 measure_warmups(const struct measure_point *pt,
	    const struct measure_opts *o);

/*
 * Measure one point into *r (which the caller releases with
 * measure_result_release). Returns 0 when the point was measured (status
 * OK), -1 otherwise, with the status and reason in *r; the parent process
 * is never harmed by what happens to a child.
 */
int	 measure_point_run(const struct measure_point *pt,
	    const struct measure_opts *o, struct measure_result *r);

/*
 * Measure n points in order into results[0..n-1], calling o->progress
 * between points (and between rounds). After a cancel, the points not run
 * are marked CANCELLED. Returns the number of points measured OK.
 */
size_t	 measure_list_run(const struct measure_point *pts, size_t n,
	    const struct measure_opts *o, struct measure_result *results);

void	 measure_result_release(struct measure_result *r);

/*
 * In a child between fork() and exec: close every descriptor from low up,
 * allocating nothing (close_range(2), else /proc/self/fd, else one by
 * one under the limit). Benchmark children and stack probes use it.
 */
void	 measure_close_from(int low);

/*
 * The noise rule: spread (stddev / mean) over o->noise_cv, CPU steal over
 * o->noise_steal percent, or more of others' runnable tasks than
 * o->noise_runnable before or after the point.
 */
int	 measure_is_noisy(const struct measure_result *r,
	    const struct measure_opts *o);

/* "ok", "skipped", "failed", "oom", "killed", "crashed", "timeout",
   "cancelled". */
const char *measure_status_name(enum measure_status s);

/*
 * Effective parallelism: run kp at k = 1..max_k hashes at once and return
 * the best speed-up k * median(1) / median(k), rounded to the nearest
 * whole core (at least 1). speedups, when not NULL, receives max_k values
 * (index k - 1). Returns -1 with the reason in err if a point failed.
 */
int	 measure_effective_parallelism(const struct kdf_params *kp,
	    int max_k, const struct measure_opts *o, double *speedups,
	    int *effective, char *err, size_t errlen);

/* Seconds on the monotonic clock (the harness's and the probes'). */
double	 measure_now(void);

#endif /* PWTUNE_MEASURE_H */
