/*
 * engine/tune: the recommendation. Given a model of this host, a target
 * time at a percentile and a concurrency, a memory limit and a floor,
 * find the parameters.
 *
 * memory-first (the default), after RFC 9106 section 4: the most memory
 * each hash may have (memory_max / k, never more than the host budget / k,
 * never past MODEL_EXTRAPOLATE x the largest m measured), then the largest
 * t whose predicted time fits; when even the smallest admissible t is too
 * slow, less memory. When that memory bound leaves more than a tenth of
 * the time unused (TUNE_FILL), t + 1 at the most memory it fits in, if it
 * costs an attacker more: the time asked for is used. attacker-cost: the (m, t) that fits with the largest
 * m·(3t − 1), the memory traffic an attacker pays per guess.
 *
 * Headroom: the search aims at target / (1 + h), h being the model's median
 * leave-one-out error kept between TUNE_HEADROOM_MIN and _MAX, so that an
 * answer holds when the model errs as it typically erred on the points it
 * did not see.
 *
 * Floors: owasp (m, t at or above one of OWASP's equal-defence rows;
 * Argon2i only the rows with t >= 3), rfc9106 (m >= 64 MiB with t >= 3, or
 * 2 GiB with t >= 1), none (Argon2's own minimum). A target that cannot be
 * met above the floor is not weakened: the answer says so and gives the
 * closest admissible parameters with their predicted time.
 */
#ifndef PWTUNE_TUNE_H
#define PWTUNE_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "model.h"

#define TUNE_T_MAX		1000
#define TUNE_T_MAX_NOTE		0.90	/* an answer at TUNE_T_MAX taking less
					   of the target says so */
#define TUNE_TARGET_MIN_MS	1
#define TUNE_TARGET_MAX_MS	600000
#define TUNE_GPU_BANDWIDTH	960e9	/* bytes/s, a high-end 2023 GPU */
#define TUNE_GPU_USD_HOUR	3.5	/* rented: $2 to $5 an hour */
#define TUNE_HEADROOM_MIN	0.03
#define TUNE_HEADROOM_MAX	0.10
#define TUNE_FILL		0.90	/* memory-first at its memory bound
					   under this share of the target
					   takes one pass more (tune.c) */
#define TUNE_TAIL_NOTE		1.10	/* a pooled tail this far over the
					   points' own: the answer says so */

enum tune_floor {
	TUNE_FLOOR_OWASP,
	TUNE_FLOOR_RFC9106,
	TUNE_FLOOR_NONE
};

enum tune_objective {
	TUNE_MEMORY_FIRST,
	TUNE_ATTACKER_COST
};

/* What set an answer's m_cap_kib: the most memory one hash could get. */
enum tune_bound {
	TUNE_BOUND_BUDGET,	/* the host's memory budget (over k) */
	TUNE_BOUND_MEMORY_MAX,	/* the query's memory_max (over k) */
	TUNE_BOUND_MEASURED,	/* MODEL_EXTRAPOLATE x the largest measured */
	TUNE_BOUND_ARGON2,	/* Argon2's largest m */
	TUNE_BOUND_HEAP,	/* the heap bound kept for a runtime */
	TUNE_BOUND_CLIFF	/* a cliff its runtime's probe measured */
};

struct tune_query {
	double			target_ms;
	int			percentile;	/* 50, 95 (default) or 99 */
	uint32_t		k;		/* concurrent hashes, default 1 */
	uint64_t		memory_max_kib;	/* for k hashes; 0: budget */
	uint32_t		parallelism;	/* 0: auto */
	enum kdf_alg		variant;	/* default argon2id */
	enum kdf_backend	backend;	/* AUTO: libsodium if measured */
	enum tune_floor		floor;
	enum tune_objective	objective;
	uint32_t		t_min;		/* the client's least t; 0: 1 */
	uint32_t		m_hash_max_kib;	/* the most one hash may have
						   in the client's runtime (a
						   JVM's heap: stack_def.
						   heap_kib); 0: no such limit */
	int			m_hash_cliff;	/* m_hash_max_kib is where the
						   runtime's probe measured a
						   cliff, not its heap */
	uint32_t		m_measured_kib;	/* the largest m the client's
						   runtime was measured at (its
						   probe): the bound of twice
						   the largest m measured counts
						   it; 0: the curve's alone */
	int			headroom_percentile; /* the percentile the
						   headroom is for; 0: percentile
						   (a stack's p95 searched at p50) */
	int			stack_named;	/* a named stack's own answer
						   (stack_recommend): no advice
						   aimed at other stacks */
};

struct tune_answer {
	int			met;		/* 1: fits the target */
	enum kdf_alg		variant;
	enum kdf_backend	backend;
	uint32_t		m_kib, t, p, k;
	int			percentile;
	double			target_ms;
	double			headroom;	/* searched under target/(1+h) */
	double			predicted_ms;	/* at the percentile, at k */
	double			predicted_p50_ms;
	double			capacity_per_s;	/* k / p50 */
	uint64_t		in_flight_kib;	/* k x m */
	uint64_t		m_cap_kib;	/* the most one hash could get */
	enum tune_floor		floor;
	enum tune_objective	objective;
	int			floor_decided;
	uint32_t		free_m_kib, free_t;	/* without the floor */
	uint32_t		bound_t;	/* memory-first at its memory
						   bound: the t it took there
						   (TUNE_FILL), 0: not so */
	double			bound_ms;	/* and its predicted time */
	enum tune_bound		bound;		/* what set m_cap_kib */
	int			extrapolated;
	double			gpu_guesses_per_s;
	double			usd_per_1e9_guesses;
	char			phc_prefix[96];
	char			notes[2048];	/* advice, one per line */
};

struct tune_rehash {
	int	differs;	/* not exactly the answer (libsodium, PHP) */
	int	weaker;		/* the variant, or m or m x t under
				   TUNE_REHASH_SLACK of its */
};

/* tune.c */

void	 tune_query_init(struct tune_query *q);
int	 tune_floor_parse(const char *s, enum tune_floor *f);
const char *tune_floor_name(enum tune_floor f);
int	 tune_objective_parse(const char *s, enum tune_objective *o);
const char *tune_objective_name(enum tune_objective o);

/* Is q a question tune can answer (target, percentile, k, variant)? 0, or
   -1 with what is wrong in err. */
int	 tune_query_check(const struct tune_query *q, char *err, size_t errlen);

/* The smallest t the floor admits at m (KiB) for variant; 0: none. */
uint32_t tune_floor_min_t(enum tune_floor f, enum kdf_alg variant,
	    uint32_t m_kib);

/*
 * Recommend. Returns 0 with the answer, 1 when the target cannot be met
 * above the floor (a->met = 0, a holds the closest admissible answer and
 * err says so), -1 for a query that cannot be answered (err says why).
 */
/*
 * The headroom an answer at percentile q keeps for m's error: its
 * leave-one-out median, less half what the pooled tail adds to a p95 or
 * p99 (m->tail_gain - 1: in part the same slow seconds; a p50 has no
 * tail), within [TUNE_HEADROOM_MIN, TUNE_HEADROOM_MAX].
 */
double	 tune_headroom(const struct model *m, int q);
int	 tune_recommend(const struct model *m, const struct tune_query *q,
	    struct tune_answer *a, char *err, size_t errlen);

/* The bound b in words, for an answer of k hashes at once. */
const char *tune_bound_why(enum tune_bound b, uint32_t k);

/*
 * Append a line to a's notes: whole, with its newline, or not at all
 * (notes are a fixed buffer; a note is never cut mid-sentence).
 */
void	 tune_note(struct tune_answer *a, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * The note of an answer at t's largest (TUNE_T_MAX) that takes under
 * TUNE_T_MAX_NOTE of its target: said from a's figures as they stand
 * (predicted_ms, target_ms, met), replacing the one said before. A
 * caller that corrects an answer after tune_recommend (a stack's runtime,
 * the background checks, a fleet's slowest host) calls it again.
 */
void	 tune_note_t_max(struct tune_answer *a);

/* Take the first of a's notes that starts with prefix out of them. */
void	 tune_note_drop(struct tune_answer *a, const char *prefix);

/*
 * How the note comparing Debian's libargon2 with libsodium starts (said
 * when libargon2 takes 1.3 x libsodium's time or more): a list of every
 * stack's answer (api_stacks_add) says each stack's own figure instead.
 */
#define TUNE_LIBRARIES_SAID	"libargon2 as Debian builds it"

/*
 * How the note of a poor model starts: the model's, said once in an
 * answer (not again in each of its stacks' entries).
 */
#define TUNE_POOR_SAID		"the model is poor: "

/*
 * Where measurements a model does not hold come from, into buf: the grid
 * of pwtune bench that measures backend's variant at p (sizes and two t
 * a curve's leave-one-out error can be known from; libsodium's Argon2i
 * takes t = 3 at least), stored into a store's model (a grid adds its
 * curves there) or written for recommend --from.
 */
void	 tune_grid_said(char *buf, size_t len, enum kdf_backend backend,
	    enum kdf_alg variant, uint32_t p);

/* The curve tune_recommend would use for q, or NULL (err says why). */
const struct model_curve *tune_curve(const struct model *m,
	    const struct tune_query *q, uint32_t *p, char *err, size_t errlen);

/*
 * needs-rehash of an encoded Argon2 string (or its parameters alone,
 * phc_decode_params) against an answer: differs, not exactly it (as
 * libsodium, PHP and argon2-cffi decide); weaker, a weaker variant, or
 * its work (m x t) under TUNE_REHASH_SLACK of the answer's, or its memory
 * under it while an attacker pays less per guess (m (3t - 1)): an answer moves by a few per cent as the background checks
 * correct it, and a hash made from the one before is not weaker for it
 * (the checks' own band is 10 % wide). Returns 0, or -1 for a string
 * that does not parse (err says why).
 */
#define TUNE_REHASH_SLACK	0.90
int	 tune_needs_rehash(const char *encoded, const struct tune_answer *a,
	    struct tune_rehash *out, char *err, size_t errlen);

/*
 * " with K hashes at once" into buf when q asks for more than one at a
 * time, else "": said in a missed target's reason, since the hashes at
 * once may be why and one at a time may meet it.
 */
void	 tune_at_once(const struct tune_query *q, char *buf, size_t len);

/*
 * A missed target's reason into err, one wording for every path: "target
 * of X ms at pN[ with K hashes at once] cannot be met above the F
 * floor[ in STACK]: the closest admissible answer, m = ..., t = ..., p = ...,
 * is predicted to take Y ms[how]", a's parameters and time. stack may be
 * NULL (the library's own answer), how (" (as measured here)") "".
 */
void	 tune_missed(const struct tune_query *q,
	    const struct tune_answer *a, const char *stack, const char *how,
	    char *err, size_t errlen);

/*
 * The note every answer from a poor model starts with, into buf: 1, or 0
 * (buf untouched) when the model is good.
 */
int	 tune_quality_note(const struct model *m, char *buf, size_t len);

/* The answer's notes as a JSON array of strings, one per note. */
json_t	*tune_notes_to_json(const struct tune_answer *a);

/* The answer as JSON, snippets and model provenance included. */
json_t	*tune_answer_to_json(const struct tune_answer *a,
	    const struct model *m);

/* Ready-to-paste snippets, one member per language. */
/* Whether libsodium takes a's t (its Argon2i: t = 3 at least). */
int	 tune_sodium_takes_t(const struct tune_answer *a);

json_t	*tune_snippets(const struct tune_answer *a);

#endif /* PWTUNE_TUNE_H */
