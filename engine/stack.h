/*
 * engine/stack: the client stacks a service hashes through, and answers
 * that hold in each.
 *
 * A stack is a runtime and the library it calls (PHP's password_hash on
 * Debian's libargon2, Go's x/crypto/argon2, ...). Each stands on one of
 * the library curves the model measures (its base: libargon2 or
 * libsodium) and differs from it by a correction fitted to what the
 * stack's own probe (engine/probes/, run by the daemon's runner as a
 * benchmark child) and the observations services post measured on this
 * host:
 *
 *   time in the stack = c x the base curve's time + d   (ms)
 *
 * c is the runtime's speed against the measured library (another build,
 * another SIMD path, pure Java), d its fixed cost per call, which weighs
 * more at small m. Both are fitted by least squares on the points'
 * medians against the curve's p50 (one point, or points at one
 * predicted time: c alone, d = 0), and kept within STACK_C_MIN..MAX.
 * An answer for a stack is the library answer searched under
 * (target - d) / c, its predictions mapped back, so that it holds in
 * the stack.
 */
#ifndef PWTUNE_STACK_H
#define PWTUNE_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "tune.h"

#define STACK_C_MIN		0.25
#define STACK_C_MAX		8.0
#define STACK_PROBE_POINTS	4	/* points a probe measures */
#define STACK_PROBE_SAMPLES	5	/* timed hashes per point */
#define STACK_PROBE_WARMUP	1	/* untimed hashes before each point */
#define STACK_PROBE_WARMUP_T	2	/* passes at most of each (the
					   second runs code the first does
					   not: a JIT must have seen it);
					   engine/probes/ write it as 2 */
#define STACK_KNOT_HEAVY	3	/* a knot of this many times each
					   neighbour's samples is not noise */
#define STACK_P95_SD		1.7	/* p95 of ~15 hashes: sd over median */
#define STACK_TAIL_MIN_MS	40.0	/* a point's own p95 / median counts
					   as the stack's tail from this
					   median up (under it, a tick of the
					   scheduler is a large ratio) */
#define STACK_TAIL_RANK		80	/* the tail: this rank of those
					   points' ratios (their largest up
					   to 4 points) */
#define STACK_CLIFF		2.0	/* a size this far over the smaller
					   ones' ratio to the curve: a cliff */
#define STACK_CLIFF_SAMPLES	3	/* hashes of a probe point that can
					   show one */
#define STACK_CLIFF_M_MIN	8192	/* KiB: smaller sizes do not count,
					   and the cap is never under it */
#define STACK_CLIFF_MARGIN	0.8	/* the cap: this much of the largest
					   size under a cliff (its edge moves) */
#define STACK_ARGV_MAX		8

/* One stack of the catalogue. */
struct stack_def {
	const char		*name;		/* "php" */
	const char		*runtime;	/* "PHP password_hash()" */
	const char		*library;	/* what it hashes through */
	enum kdf_backend	 base;		/* the curve it stands on */
	int			 p1_only;	/* computes p = 1 only */
	const char		*snippet;	/* its member of tune_snippets() */
	/*
	 * The probe's command: argv[0] is looked up in PATH unless it is a
	 * path; "{dir}" in any argument is the probe directory.
	 */
	const char		*argv[STACK_ARGV_MAX];
	const char		*packages;	/* Debian's, that provide it */
	uint32_t		 t_min;		/* its least t (0: 1) */
	/*
	 * Untimed hashes before each point of its probe (0:
	 * STACK_PROBE_WARMUP): a collector's heap and a JIT settle at each
	 * size only after a few.
	 */
	unsigned		 warmup;
	/*
	 * MiB its process may hold besides the hash (0: the probe's
	 * default, PROBE_RSS_ALLOWANCE): a JVM's heap grows well past it.
	 */
	unsigned		 rss_mib;
	/*
	 * The largest m (KiB) a fresh process of the runtime with its
	 * defaults hashes at, one hash after another, without its heap
	 * growing into memory it never had (0: no such size): its answers
	 * and its probe's points stay at or below it, each hash at k > 1
	 * (tune_query.m_hash_max_kib). A JVM's young generation grew past
	 * its start within its first 10 to 16 hashes in most runs at 48 MiB
	 * or more, each hash then writing fresh pages (about 2 to 5 x
	 * slower where the host gives memory back to its own:
	 * docs/STACKS.md); a client timing a fresh JVM, or a service just
	 * started, meets it.
	 */
	uint32_t		 heap_kib;
	/*
	 * 1: its runtime's own collector holds the hash's memory (a JVM's,
	 * Go's): a tail its probe's hashes showed is the stack's
	 * (STACK_TAIL_RANK), and a size far slower than the smaller ones a
	 * cliff (its heap growing). 0: it hashes in C memory (PHP, Python,
	 * Node's addon, the C libraries): one slow hash, or one slow size,
	 * among a probe's few is the host's moment; the library curve's many
	 * hashes measure the host's tail.
	 */
	int			 pauses;
	/*
	 * The Argon2 variants its call cannot hash, (1u << enum kdf_alg)
	 * each (0: none): PHP's password_hash(), libsodium and Go's
	 * x/crypto have no Argon2d; Spring's Argon2PasswordEncoder and
	 * PHP's sodium_crypto_pwhash_str() hash Argon2id only.
	 */
	unsigned		 lacks;
};

#define STACK_LACKS(v)	(1u << (v))

/* A measurement in a stack: one probe point or one observation. */
struct stack_point {
	uint32_t	m_kib, t, p, k;
	size_t		n;		/* samples */
	double		median_ms;
	double		p95_ms;
	int		probe;		/* 1: the probe's; 0: a service's */
};

/* A point a probe is asked to measure. */
struct stack_probe_point {
	uint32_t	m_kib, t, p, n;
};

/* The catalogue, in the order answers list it. */
const struct stack_def *stack_catalogue(size_t *n);

/* The catalogue's stack of that name, or NULL. */
const struct stack_def *stack_find(const char *name);

/*
 * The catalogue's stacks a name that is not one most likely meant: the
 * same name in another case, else those it begins before a '-', else
 * those one letter added, dropped, changed or two swapped away (at most
 * max, none when there are more); how many, into out. stack_suggest_text:
 * " (did you mean a or b?)" into buf, or "" (none, or len too small for
 * all of it; for a 400's detail).
 */
#define STACK_SUGGEST_MAX	3
size_t	 stack_suggest(const char *name, const struct stack_def **out,
	    size_t max);
void	 stack_suggest_text(const char *name, char *buf, size_t len);

/*
 * The known names as "a, b, c" into buf (for a 400 that lists them).
 */
void	 stack_names(char *buf, size_t len);

/*
 * The stack's entry in m, or NULL when the model holds none for it.
 */
const struct model_stack *model_stack_find(const struct model *m,
	    const char *name);
/*
 * The stack's correction as answers use it: NULL when it has none, or
 * when it is a library's own stack (libsodium, libargon2): its probe
 * times the library the curve measured, at another moment (0.84 and 1.49
 * x the curve in one start-up run, docs/BENCHMARKS.md), so the curve, as
 * the background checks measured it when they have, stands for it:
 * stack=libargon2 is backend=libargon2's answer, stack=libsodium the
 * default's. So is a runtime whose probe hashed through the curve's own
 * library file (model_stack.shares: PHP's password_hash and Python's
 * argon2-cffi on Debian's libargon2) until services post observations
 * of it: stack=php is then backend=libargon2's answer.
 */
const struct model_stack *stack_correction(const struct model *m,
	    const char *name);

/*
 * The library whose curve answers for name ("libargon2"), without the
 * stack's own correction: a runtime whose probe found it hashing through
 * that library's own file here (model_stack.shares: PHP's password_hash
 * and argon2-cffi on Debian's libargon2, php-sodium and PyNaCl on
 * libsodium), with no observations of its own, so that stack_correction
 * gives none for it (the checks' correction of the library's question,
 * stack_checked_as, still applies to its answers).
 * NULL for every other stack: a library itself, a runtime with its own
 * code or its own correction, one not probed, a name not in the catalogue.
 * Its limits (t_min, p = 1 only, heap) are still its own.
 */
const char *stack_answered_as(const struct model *m, const char *name);

/*
 * The stack whose questions stand for name's in the background checks:
 * the curve's own library stack ("libargon2") when name is a runtime
 * answered as that library (stack_correction gives none for it because
 * its probe hashed through the curve's own library file and no service
 * posted observations of it) and its limits are the library's (t_min,
 * p1_only, heap), else name itself (NULL stays NULL). Its
 * answers are the library's, so one check of the library's question
 * corrects them all, and not three checks of one hash apart.
 */
const char *stack_checked_as(const struct model *m, const char *name);

/*
 * Fit the correction of stack name (a catalogue stack, or a name only
 * observations know, whose base is libsodium when m measured it) to
 * pts[0..n) against m's base curve, into out (name, how, c, d, counts,
 * fit_error; shares emptied, for the caller to set from the probe whose
 * points these are; runtime and why left as they were). 0, or -1 with err (no
 * base curve, no usable point).
 */
int	 stack_fit(const struct model *m, const char *name,
	    const struct stack_point *pts, size_t n, struct model_stack *out,
	    char *err, size_t errlen);

/*
 * Put st into m (replacing the entry of the same name). -1 when m holds
 * MODEL_STACKS_MAX stacks already.
 */
int	 model_stack_set(struct model *m, const struct model_stack *st);

/* Take the stack of that name out of m (the others keep their order). */
void	 model_stack_remove(struct model *m, const char *name);

/*
 * The points a probe of sd measures on a host of model m with a memory
 * budget of budget_kib for one hash: the library answers for a few
 * targets (so the correction is fitted where answers fall) and one small
 * point (the fixed cost). Returns how many (<= max), 0 when m has no
 * base curve for sd.
 */
size_t	 stack_probe_points(const struct model *m, const struct stack_def *sd,
	    uint64_t budget_kib, struct stack_probe_point *out, size_t max);

/*
 * 1 when err, stack_recommend()'s, says a limit of the stack's runtime
 * (its heap bound, a cliff) kept every answer from the floor: a negative
 * answer about the runtime, not bad input; else 0.
 */
int	 stack_limit_refused(const char *err);

/*
 * A catalogue stack's own limits, put into q: its least t, p = 1 for a
 * stack that computes only that (when q asks auto or 1), and its heap
 * bound per hash (m_hash_max_kib). Nothing for sd NULL.
 */
void	 stack_query_limits(const struct stack_def *sd, struct tune_query *q);

/*
 * 0 when floor f (of variant) can be met at or under sd's heap bound (or
 * sd has none); -1 with err, as stack_recommend() would say it, when no
 * answer of sd can meet it: known before anything is measured.
 */
int	 stack_floor_reachable(const struct stack_def *sd, enum tune_floor f,
	    enum kdf_alg variant, char *err, size_t errlen);

/*
 * Recommend for stack name (NULL or "": the model's own answer, as
 * tune_recommend, for the stack it holds for). Same returns as
 * tune_recommend(); a->backend is the base curve's. The answer's notes
 * say how the stack's model was obtained.
 */
int	 stack_recommend(const struct model *m, const char *name,
	    const struct tune_query *q, struct tune_answer *a, char *err,
	    size_t errlen);

/*
 * The time one hash of (variant, m_kib, t, p) at k at once takes in stack
 * name at percentile q, as m and the stack's correction predict: 0 with
 * *ms, -1 when m has no base curve for it.
 */
int	 stack_predict(const struct model *m, const char *name,
	    enum kdf_alg variant, uint32_t m_kib, uint32_t t, uint32_t p,
	    uint32_t k, int q, double *ms);

/*
 * The least t sd takes for variant: its own (node-argon2's 2), and
 * libsodium's Argon2i's 3 for the stacks on libsodium; 0 or 1: any.
 */
uint32_t stack_t_min(const struct stack_def *sd, enum kdf_alg variant);

/*
 * The stack the model's default answer for variant holds for: the
 * library that measured variant at p = 1, libsodium first; when neither
 * did, "libsodium" when m measured its argon2id, else "libargon2".
 */
const char *stack_default(const struct model *m, enum kdf_alg variant);

/*
 * Why no curve of m answers q for stack name (NULL: the default answer,
 * as check_answer() asks it): the query parameter that asked for what
 * was not measured ("stack": its library; "variant"; "parallelism";
 * "backend"), or NULL when a curve answers it.
 */
const char *stack_unmeasured(const struct model *m, const char *name,
	    const struct tune_query *q);

/*
 * The snippet of stack sd that carries a's parameters, as one string
 * (malloc'd; NULL when out of memory). measured: 0 when the runtime was
 * not measured on the host that answered; the snippet then says, as a
 * comment, how to time it where it runs and report it.
 */
char	*stack_snippet(const struct stack_def *sd, const struct tune_answer *a,
	    int measured);

/* 1 when sd is a C library itself (its curve is its runtime's), else 0. */
int	 stack_is_library(const struct stack_def *sd);
/*
 * 1 when sd hashes with code of its own (Go, Node, Java), sized on its
 * base curve corrected, not through the library that curve is of; else 0.
 */
int	 stack_own_code(const struct stack_def *sd);

/*
 * How st's model was obtained: "probed here", "observations", "library
 * measured here" (the C libraries), "library measured, runtime not
 * installed here" (its probe found the runtime or its library missing),
 * or "library measured, runtime not probed here" (st NULL, its probe did
 * not run or did not measure).
 */
const char *stack_how_text(const struct model_stack *st);

/* 1 when st's runtime was measured (the first three above), else 0. */
int	 stack_how_measured(const struct model_stack *st);

#endif /* PWTUNE_STACK_H */
