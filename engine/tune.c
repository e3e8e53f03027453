/*
 * engine/tune.c: the recommendation search, floors, the attacker estimate,
 * needs-rehash and the snippets (see tune.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "phc.h"
#include "tune.h"
#include "units.h"

#define MIB_KIB	1024u

/* OWASP's equal-defence rows (Argon2id, p = 1). */
static const struct {
	uint32_t	m_kib;
	uint32_t	t;
} owasp_rows[] = {
	{ 47104, 1 }, { 19456, 2 }, { 12288, 3 }, { 9216, 4 }, { 7168, 5 }
};

void
tune_query_init(struct tune_query *q)
{
	memset(q, 0, sizeof(*q));
	q->target_ms = 250;
	q->percentile = 95;
	q->k = 1;
	q->variant = KDF_ALG_ARGON2ID;
	q->backend = KDF_BACKEND_AUTO;
	q->floor = TUNE_FLOOR_OWASP;
	q->objective = TUNE_MEMORY_FIRST;
}

int
tune_floor_parse(const char *s, enum tune_floor *f)
{
	if (strcmp(s, "owasp") == 0)
		*f = TUNE_FLOOR_OWASP;
	else if (strcmp(s, "rfc9106") == 0)
		*f = TUNE_FLOOR_RFC9106;
	else if (strcmp(s, "none") == 0)
		*f = TUNE_FLOOR_NONE;
	else
		return -1;
	return 0;
}

const char *
tune_floor_name(enum tune_floor f)
{
	return f == TUNE_FLOOR_RFC9106 ? "rfc9106" : f == TUNE_FLOOR_NONE ?
	    "none" : "owasp";
}

int
tune_objective_parse(const char *s, enum tune_objective *o)
{
	if (strcmp(s, "memory-first") == 0)
		*o = TUNE_MEMORY_FIRST;
	else if (strcmp(s, "attacker-cost") == 0)
		*o = TUNE_ATTACKER_COST;
	else
		return -1;
	return 0;
}

const char *
tune_objective_name(enum tune_objective o)
{
	return o == TUNE_ATTACKER_COST ? "attacker-cost" : "memory-first";
}

uint32_t
tune_floor_min_t(enum tune_floor f, enum kdf_alg variant, uint32_t m_kib)
{
	uint32_t	best = 0;
	size_t		i;

	switch (f) {
	case TUNE_FLOOR_NONE:
		return m_kib >= KDF_ARGON2_M_MIN ? 1 : 0;
	case TUNE_FLOOR_RFC9106:
		if (m_kib >= 2097152)
			return 1;
		return m_kib >= 65536 ? 3 : 0;
	default:
		for (i = 0; i < sizeof(owasp_rows) / sizeof(owasp_rows[0]);
		    i++) {
			/* OWASP: the first two rows are not for Argon2i. */
			if (variant == KDF_ALG_ARGON2I && owasp_rows[i].t < 3)
				continue;
			if (m_kib >= owasp_rows[i].m_kib &&
			    (best == 0 || owasp_rows[i].t < best))
				best = owasp_rows[i].t;
		}
		return best;
	}
}

void
tune_note(struct tune_answer *a, const char *fmt, ...)
{
	size_t	len = strlen(a->notes), sep;
	va_list	ap;
	int	n;

	/* After the last line's newline, should a caller have left none. */
	sep = len > 0 && a->notes[len - 1] != '\n';
	if (len + sep + 2 >= sizeof(a->notes))
		return;
	va_start(ap, fmt);
	n = vsnprintf(a->notes + len + sep, sizeof(a->notes) - len - sep,
	    fmt, ap);
	va_end(ap);
	/* A note whole, with its newline, or none: never cut mid-way. */
	if (n < 0 || (size_t)n + 1 >= sizeof(a->notes) - len - sep) {
		a->notes[len] = '\0';
		return;
	}
	if (sep)
		a->notes[len] = '\n';
	a->notes[len + sep + (size_t)n] = '\n';
	a->notes[len + sep + (size_t)n + 1] = '\0';
}

const char *
tune_bound_why(enum tune_bound b, uint32_t k)
{
	switch (b) {
	case TUNE_BOUND_BUDGET:
		return k > 1 ? "the host's memory budget over the hashes at "
		    "once" : "the host's memory budget";
	case TUNE_BOUND_MEMORY_MAX:
		return k > 1 ? "memory_max over the hashes at once" :
		    "memory_max";
	case TUNE_BOUND_MEASURED:
		return "twice the largest m measured";
	case TUNE_BOUND_ARGON2:
		return "Argon2's largest m";
	case TUNE_BOUND_HEAP:
		return "the heap bound pwtune keeps its runtime within";
	case TUNE_BOUND_CLIFF:
		return "the size past which its runtime's probe measured a "
		    "cliff";
	}
	return "?";
}

#define TUNE_T_MAX_SAID	"t is at its largest, "

void
tune_note_drop(struct tune_answer *a, const char *prefix)
{
	char	*line, *end;

	for (line = a->notes; *line != '\0'; line = end) {
		end = strchr(line, '\n');
		end = end != NULL ? end + 1 : line + strlen(line);
		if (strncmp(line, prefix, strlen(prefix)) == 0) {
			memmove(line, end, strlen(end) + 1);
			return;
		}
	}
}

void
tune_note_t_max(struct tune_answer *a)
{
	char	 used[32];
	double	 share;

	/* The note said before, from figures since corrected: out. */
	tune_note_drop(a, TUNE_T_MAX_SAID);
	if (!(a->met && a->t >= TUNE_T_MAX && a->target_ms > 0 &&
	    a->predicted_ms < TUNE_T_MAX_NOTE * a->target_ms))
		return;
	share = 100 * a->predicted_ms / a->target_ms;
	/* The nearest, but never up to the threshold, nor down to nothing. */
	if (share < 1)
		snprintf(used, sizeof(used), "under 1 %%");
	else
		snprintf(used, sizeof(used), "about %d %%", (int)fmin(
		    lround(share), 100 * TUNE_T_MAX_NOTE - 1));
	tune_note(a, TUNE_T_MAX_SAID "%u, with m = %u KiB (the most memory "
	    "here: %llu KiB, %s): the answer takes %s of the time asked, and "
	    "the rest is left unused; %s.", (unsigned)TUNE_T_MAX,
	    (unsigned)a->m_kib, (unsigned long long)a->m_cap_kib,
	    tune_bound_why(a->bound, a->k), used,
	    a->bound == TUNE_BOUND_HEAP ? "the runtime's heap bound keeps m "
	    "there (docs/STACKS.md)" : a->bound == TUNE_BOUND_CLIFF ?
	    "the runtime slows past that size, as its probe measured "
	    "(docs/STACKS.md)" : a->bound == TUNE_BOUND_MEASURED ?
	    "a run measuring larger sizes (pwtune bench --profile full) would "
	    "let m use it" : "more memory would use it");
}

/* Two t a curve's error can be known from: "1,3", libsodium's Argon2i's
   "3,6" (its least t, twice it). */
static const char *
tune_grid_t(enum kdf_backend backend, enum kdf_alg variant)
{
	return kdf_t_min(backend, variant) > 1 ? "3,6" : "1,3";
}

void
tune_grid_said(char *buf, size_t len, enum kdf_backend backend,
    enum kdf_alg variant, uint32_t p)
{
	snprintf(buf, len, "pwtune bench --backend %s --variant %s --p %u "
	    "--m 16MiB,64MiB,256MiB --t %s measures them: with --db STORE "
	    "into that store's model (a running pwtuned reads it on SIGHUP), "
	    "with --json FILE for pwtune recommend --from FILE",
	    kdf_backend_name(backend), kdf_alg_name(variant), (unsigned)p,
	    tune_grid_t(backend, variant));
}

const struct model_curve *
tune_curve(const struct model *m, const struct tune_query *q, uint32_t *p,
    char *err, size_t errlen)
{
	const struct model_curve	*c = NULL;
	enum kdf_backend		 b = q->backend;
	uint32_t			 want;
	int				 cpus = m->effective_cpus > 0 ?
					    m->effective_cpus : 1;
	char				 grid[320];

	/* auto: the library that can answer (p over 1 is libargon2's). */
	if (b == KDF_BACKEND_AUTO && q->parallelism > 1 &&
	    model_curve_find(m, KDF_BACKEND_LIBARGON2, q->variant,
	    q->parallelism) != NULL)
		b = KDF_BACKEND_LIBARGON2;
	else if (b == KDF_BACKEND_AUTO)
		b = model_curve_find(m, KDF_BACKEND_LIBSODIUM, q->variant, 1) ?
		    KDF_BACKEND_LIBSODIUM : KDF_BACKEND_LIBARGON2;
	if (q->parallelism > 0) {
		if ((c = model_curve_find(m, b, q->variant, q->parallelism)) ==
		    NULL && b == KDF_BACKEND_LIBSODIUM && q->parallelism > 1) {
			/* Its p = 1 only: no run of it could help. */
			tune_grid_said(grid, sizeof(grid),
			    KDF_BACKEND_LIBARGON2, q->variant, q->parallelism);
			snprintf(err, errlen, "no curve of this host's model "
			    "has p = %u: libsodium computes p = 1 only, and "
			    "libargon2 was not measured at p = %u: ask for p = "
			    "1 (%s)", (unsigned)q->parallelism,
			    (unsigned)q->parallelism, grid);
			return NULL;
		}
		if (c == NULL) {
			tune_grid_said(grid, sizeof(grid), b, q->variant,
			    q->parallelism);
			snprintf(err, errlen, "no measurements of %s %s with "
			    "p = %u on this host (%s)", kdf_backend_name(b),
			    kdf_alg_name(q->variant),
			    (unsigned)q->parallelism, grid);
			return NULL;
		}
		*p = q->parallelism;
		return c;
	}
	/*
	 * auto: a server with as many hashes at once as cores gets the most
	 * throughput from p = 1; fewer hashes may use the idle cores, if
	 * such p was measured.
	 */
	for (want = (uint32_t)cpus / (q->k > 0 ? q->k : 1); want > 1; want--)
		if ((c = model_curve_find(m, b, q->variant, want)) != NULL) {
			*p = want;
			return c;
		}
	if ((c = model_curve_find(m, b, q->variant, 1)) == NULL) {
		tune_grid_said(grid, sizeof(grid), b, q->variant, 1);
		snprintf(err, errlen, "no measurements of %s %s on this host "
		    "(%s)", kdf_backend_name(b), kdf_alg_name(q->variant),
		    grid);
		return NULL;
	}
	*p = 1;
	return c;
}

static double
tune_pred(const struct model *m, const struct model_curve *c, uint32_t m_kib,
    uint32_t t, const struct tune_query *q)
{
	struct model_prediction	pr;

	model_predict(m, c, m_kib, t, q->k, q->percentile, &pr);
	return pr.ms;
}

/* The largest t in [lo, TUNE_T_MAX] predicted within the target, or 0. */
static uint32_t
tune_max_t(const struct model *m, const struct model_curve *c, uint32_t m_kib,
    uint32_t lo, const struct tune_query *q)
{
	uint32_t	hi = TUNE_T_MAX, mid;

	if (lo == 0 || tune_pred(m, c, m_kib, lo, q) > q->target_ms)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (tune_pred(m, c, m_kib, mid, q) <= q->target_ms)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The smallest t at mm under floor f that the client takes; 0: none. */
static uint32_t
tune_min_t(const struct tune_query *q, enum tune_floor f, uint32_t mm)
{
	uint32_t	lo = tune_floor_min_t(f, q->variant, mm);

	return lo != 0 && lo < q->t_min ? q->t_min : lo;
}

/*
 * Memory-first's pick (m_cap, t) with the memory bound: one pass more at
 * the most memory that holds it, when that fits under floor f and costs
 * an attacker more per guess (m (3t - 1)). Changes *m_out and *t_out only
 * then.
 */
static int
tune_fill_time(const struct model *m, const struct model_curve *c,
    const struct tune_query *q, enum tune_floor f, uint32_t m_cap,
    uint32_t p, uint32_t *m_out, uint32_t *t_out)
{
	uint32_t	mm, t = *t_out + 1, lo;

	for (mm = m_cap - MIB_KIB; mm >= MIB_KIB && mm >= 8 * p;
	    mm -= MIB_KIB) {
		lo = tune_min_t(q, f, mm);
		if (lo == 0 || lo > t)
			return 0;	/* less memory asks still more t */
		if (tune_pred(m, c, mm, t, q) > q->target_ms)
			continue;
		if ((double)mm * (3.0 * t - 1) <= (double)m_cap *
		    (3.0 * *t_out - 1))
			return 0;
		*m_out = mm;
		*t_out = t;
		return 1;
	}
	return 0;
}

/*
 * Search (m, t) on the 1 MiB grid from m_cap down, under floor f. Returns
 * 1 with the pick, or 0 when nothing admissible fits. *bound_t: the t
 * memory-first took at m_cap before one pass more (tune_fill_time), else 0.
 */
static int
tune_search(const struct model *m, const struct model_curve *c,
    const struct tune_query *q, enum tune_floor f, uint32_t m_cap,
    uint32_t p, uint32_t *m_out, uint32_t *t_out, uint32_t *bound_t)
{
	uint32_t	mm, t, lo;
	double		best = -1, cost;

	*bound_t = 0;
	for (mm = m_cap; mm >= MIB_KIB && mm >= 8 * p; mm -= MIB_KIB) {
		lo = tune_min_t(q, f, mm);
		if ((t = tune_max_t(m, c, mm, lo, q)) == 0)
			continue;
		if (q->objective == TUNE_MEMORY_FIRST) {
			*m_out = mm;
			*t_out = t;
			/*
			 * The memory bound, and the time left unused past
			 * the band the checks keep (RFC 9106's steps stop at
			 * the largest t: up to 1 / (t + 1) of it): one pass
			 * more at a little less memory uses it.
			 */
			if (mm == m_cap && t < TUNE_T_MAX && tune_pred(m, c,
			    mm, t, q) < TUNE_FILL * q->target_ms &&
			    tune_fill_time(m, c, q, f, m_cap, p, m_out, t_out))
				*bound_t = t;
			return 1;
		}
		cost = (double)mm * (3.0 * t - 1);
		if (cost > best) {
			best = cost;
			*m_out = mm;
			*t_out = t;
		}
	}
	return best >= 0;
}

static void
tune_fill(const struct model *m, const struct model_curve *c,
    const struct tune_query *q, uint32_t m_kib, uint32_t t, uint32_t p,
    struct tune_answer *a)
{
	struct model_prediction	pr;

	a->m_kib = m_kib;
	a->t = t;
	a->p = p;
	model_predict(m, c, m_kib, t, q->k, q->percentile, &pr);
	a->predicted_ms = pr.ms;
	a->predicted_p50_ms = pr.p50_ms;
	a->extrapolated = pr.extrapolated;
	a->capacity_per_s = pr.p50_ms > 0 ? 1000.0 * q->k / pr.p50_ms : 0;
	a->in_flight_kib = (uint64_t)q->k * m_kib;
	a->gpu_guesses_per_s = TUNE_GPU_BANDWIDTH /
	    (1024.0 * m_kib * (3.0 * t - 1));
	a->usd_per_1e9_guesses = 1e9 / a->gpu_guesses_per_s / 3600 *
	    TUNE_GPU_USD_HOUR;
	snprintf(a->phc_prefix, sizeof(a->phc_prefix), "$%s$v=19$m=%u,t=%u,"
	    "p=%u", kdf_alg_name(q->variant), (unsigned)m_kib, (unsigned)t,
	    (unsigned)p);
}

void
tune_at_once(const struct tune_query *q, char *buf, size_t len)
{
	if (len == 0)
		return;
	buf[0] = '\0';
	if (q->k > 1)
		snprintf(buf, len, " with %u hashes at once", (unsigned)q->k);
}

void
tune_missed(const struct tune_query *q, const struct tune_answer *a,
    const char *stack, const char *how, char *err, size_t errlen)
{
	char	at_once[48];

	tune_at_once(q, at_once, sizeof(at_once));
	snprintf(err, errlen, "target of %.0f ms at p%d%s cannot be met above "
	    "the %s floor%s%s: the closest admissible answer, m = %u KiB, "
	    "t = %u, p = %u, is predicted to take %.1f ms%s", q->target_ms,
	    q->percentile, at_once, tune_floor_name(q->floor),
	    stack != NULL ? " in " : "", stack != NULL ? stack : "",
	    (unsigned)a->m_kib, (unsigned)a->t, (unsigned)a->p,
	    a->predicted_ms, how);
}

int
tune_quality_note(const struct model *m, char *buf, size_t len)
{
	if (m->quality != MODEL_QUALITY_POOR)
		return 0;
	snprintf(buf, len, TUNE_POOR_SAID "%s. Treat the predicted times "
	    "as rough and measure again (pwtune bench --db STORE, or POST "
	    "/v1/runs) on a quiet host.", m->quality_why);
	return 1;
}

/* Advice the measurements support. */
static void
tune_advise(const struct model *m, const struct tune_query *q,
    struct tune_answer *a)
{
	const struct model_curve	*other, *own;
	struct model_prediction		 mine, theirs;
	char				 size[32];
	char				 poor[MODEL_QUALITY_WHY + 160];

	/* First: what the rest of the answer stands on. */
	if (tune_quality_note(m, poor, sizeof(poor)))
		tune_note(a, "%s", poor);
	/*
	 * A curve another run measured (a grid stored beside the model's
	 * run) is not judged with the model: too small to know its error,
	 * or its error past the bound, the answer says so.
	 */
	if ((own = model_curve_find(m, a->backend, a->variant, a->p)) !=
	    NULL && own->other_run && own->loo_n == 0) {
		char	label[64], grid[256];

		model_curve_label(own, label, sizeof(label));
		tune_grid_said(grid, sizeof(grid), own->backend, own->variant,
		    own->p);
		tune_note(a, "Sized on the %s curve of run %lld, fitted on %zu "
		    "point%s: too few to know how far an answer may miss "
		    "(a leave-one-out error needs %d, at two t or more): "
		    "measure more sizes and t (%s).", label,
		    (long long)own->run_id, own->npoints, own->npoints == 1 ?
		    "" : "s", MODEL_LOO_MIN_POINTS, grid);
	} else if (own != NULL && own->other_run &&
	    own->loo_worst > MODEL_LOO_WORST_MAX) {
		char	label[64];

		model_curve_label(own, label, sizeof(label));
		tune_note(a, "Sized on the %s curve of run %lld, whose "
		    "leave-one-out error is up to %.1f %% (over %.0f %%): an "
		    "answer may miss its target by as much. Measure it again "
		    "on a quiet host.", label, (long long)own->run_id,
		    100 * own->loo_worst, 100 * MODEL_LOO_WORST_MAX);
	}
	if (!q->stack_named && a->backend == KDF_BACKEND_LIBSODIUM &&
	    (other = model_curve_find(m, KDF_BACKEND_LIBARGON2, q->variant,
	    a->p)) != NULL) {
		model_predict(m, model_curve_find(m, a->backend, q->variant,
		    a->p), a->m_kib, a->t, q->k, q->percentile, &mine);
		model_predict(m, other, a->m_kib, a->t, q->k, q->percentile,
		    &theirs);
		/* Its time in each stack is that stack's own note. */
		if (mine.ms > 0 && theirs.ms / mine.ms >= 1.3)
			tune_note(a, TUNE_LIBRARIES_SAID " (portable "
			    "code) took %.1fx libsodium's time here: a client "
			    "hashing with it (PHP's password_hash built with "
			    "libargon2, for one) would take longer with these "
			    "parameters. Ask for its stack's own answer (php, "
			    "python-argon2-cffi: Debian's builds link this "
			    "libargon2), or hash through libsodium (php-sodium, "
			    "python-pynacl).", theirs.ms / mine.ms);
	}
	/* Why the p95 sits so far over the median, when the pool said so. */
	if (q->percentile >= 95 && m->tail_gain >= TUNE_TAIL_NOTE) {
		size_t	i;

		for (i = 0; i < m->nconc && m->conc[i].k != 1; i++)
			;
		if (i < m->nconc)
			tune_note(a, "this host's speed moves from second to "
			    "second: 5 %% of the run's hashes took %.2fx "
			    "their point's median or more (each point's own "
			    "few hashes said %.2fx), so answers take their "
			    "p95 at %.2fx the median (GET /v1/model: "
			    "model.concurrency[].p95_over_median).",
			    m->conc[i].f95, m->conc[i].f95 / m->tail_gain,
			    m->conc[i].f95);
	}
	if (a->m_kib > model_curve_max_m(model_curve_find(m, a->backend,
	    q->variant, a->p))) {
		const struct model_curve *c = model_curve_find(m,
		    a->backend, q->variant, a->p);

		units_format_kib(model_curve_max_m(c), size, sizeof(size));
		/* The profiles measure argon2id at p = 1: a grid, else. */
		if (q->variant == KDF_ALG_ARGON2ID && a->p == 1)
			tune_note(a, "m is above the largest size measured "
			    "(%s): its time is extrapolated; pwtune bench "
			    "--profile full measures up to 1 GiB.", size);
		else
			tune_note(a, "m is above the largest size measured "
			    "(%s): its time is extrapolated; pwtune bench "
			    "--backend %s --variant %s --p %u --m "
			    "64MiB,256MiB,1GiB --t %s measures up to 1 GiB.",
			    size, kdf_backend_name(a->backend),
			    kdf_alg_name(q->variant), (unsigned)a->p,
			    tune_grid_t(a->backend, q->variant));
	}
	if (a->bound_t > 0)
		tune_note(a, "m is under its bound here, %llu KiB (%s): "
		    "there t = %u would use about %.0f %% of the time asked, "
		    "so one pass more at the most memory that holds it uses "
		    "the time, and costs an attacker %.2f x more per guess "
		    "(m (3t - 1)).", (unsigned long long)a->m_cap_kib,
		    tune_bound_why(a->bound, q->k), (unsigned)a->bound_t,
		    100 * a->bound_ms / q->target_ms,
		    (double)a->m_kib * (3.0 * a->t - 1) /
		    ((double)a->m_cap_kib * (3.0 * a->bound_t - 1)));
	/* t at its largest: the rest of the time is left unused. */
	tune_note_t_max(a);
	if (a->floor_decided)
		tune_note(a, "the %s floor decided this answer: the target "
		    "alone would allow m = %u KiB, t = %u, which is below it.",
		    tune_floor_name(q->floor), (unsigned)a->free_m_kib,
		    (unsigned)a->free_t);
	/* Memory's cap, not the runtime's own limit. */
	if (a->m_cap_kib < 47104 && q->k > 1 && !(q->m_hash_max_kib > 0 &&
	    a->m_cap_kib + MIB_KIB > q->m_hash_max_kib))
		tune_note(a, "each of the %u hashes at once can have at most "
		    "%llu KiB: more memory (memory_max) or fewer hashes at "
		    "once would allow stronger parameters.", (unsigned)q->k,
		    (unsigned long long)a->m_cap_kib);
}

int
tune_query_check(const struct tune_query *q, char *err, size_t errlen)
{
	if (!(q->target_ms >= TUNE_TARGET_MIN_MS &&
	    q->target_ms <= TUNE_TARGET_MAX_MS)) {
		snprintf(err, errlen, "target_ms must be from %d to %d",
		    TUNE_TARGET_MIN_MS, TUNE_TARGET_MAX_MS);
		return -1;
	}
	if (q->percentile != 50 && q->percentile != 95 && q->percentile != 99) {
		snprintf(err, errlen, "percentile must be 50, 95 or 99");
		return -1;
	}
	if (q->k < 1 || q->k > MEASURE_K_MAX * 16) {
		snprintf(err, errlen, "concurrency must be from 1 to %d",
		    MEASURE_K_MAX * 16);
		return -1;
	}
	if (!kdf_alg_is_argon2(q->variant)) {
		snprintf(err, errlen, "variant must be argon2id, argon2i or "
		    "argon2d");
		return -1;
	}
	return 0;
}

double
tune_headroom(const struct model *m, int q)
{
	double	h = m->loo_median;

	/*
	 * The share of it the pooled tail already holds: on a host whose
	 * speed moves from second to second, the points' medians miss the
	 * model by that movement, and the p95 now carries it. Half: a point
	 * slow as a whole moves its median, which the pool cannot see
	 * (bench/stacks, p95 / target at the median: both whole 0.82 to
	 * 0.95, the gain all given back 0.95, docs/BENCHMARKS.md).
	 */
	if (q >= 95 && m->tail_gain > 1)
		h -= (m->tail_gain - 1) / 2;
	if (!(h > TUNE_HEADROOM_MIN))
		return TUNE_HEADROOM_MIN;
	if (h > TUNE_HEADROOM_MAX)
		return TUNE_HEADROOM_MAX;
	return h;
}

int
tune_recommend(const struct model *m, const struct tune_query *q,
    struct tune_answer *a, char *err, size_t errlen)
{
	const struct model_curve	*c;
	struct tune_query		 aim = *q;
	uint64_t			 cap, raw;
	uint32_t			 p = 1, mm, t, best_m = 0, best_t = 0;
	uint32_t			 bound_t, measured;
	double				 best = -1, ms;
	char				 at_once[48] = "";

	memset(a, 0, sizeof(*a));
	if (tune_query_check(q, err, errlen) == -1)
		return -1;
	if ((c = tune_curve(m, q, &p, err, errlen)) == NULL)
		return -1;
	/* libsodium hashes Argon2i at t = 3 at least. */
	if (aim.t_min < kdf_t_min(c->backend, q->variant))
		aim.t_min = kdf_t_min(c->backend, q->variant);

	a->headroom = tune_headroom(m, q->headroom_percentile > 0 ?
	    q->headroom_percentile : q->percentile);
	aim.target_ms = q->target_ms / (1 + a->headroom);
	a->variant = q->variant;
	a->backend = c->backend;
	a->k = q->k;
	a->percentile = q->percentile;
	a->target_ms = q->target_ms;
	a->floor = q->floor;
	a->objective = q->objective;

	/* Memory each hash may have: the limit and the budget, over k. */
	cap = m->mem_budget / 1024 / q->k;
	a->bound = TUNE_BOUND_BUDGET;
	if (q->memory_max_kib > 0 && q->memory_max_kib / q->k < cap) {
		cap = q->memory_max_kib / q->k;
		a->bound = TUNE_BOUND_MEMORY_MAX;
	}
	/* A runtime's probe measured its library's code at its own sizes. */
	measured = model_curve_max_m(c);
	if (q->m_measured_kib > measured)
		measured = q->m_measured_kib;
	if (cap > (uint64_t)(MODEL_EXTRAPOLATE * measured)) {
		cap = (uint64_t)(MODEL_EXTRAPOLATE * measured);
		a->bound = TUNE_BOUND_MEASURED;
	}
	if (cap > KDF_ARGON2_M_MAX) {
		cap = KDF_ARGON2_M_MAX;
		a->bound = TUNE_BOUND_ARGON2;
	}
	/*
	 * Named where it ties in whole MiB (what m moves by): a larger
	 * memory_max would not move m.
	 */
	if (q->m_hash_max_kib > 0 && q->m_hash_max_kib / MIB_KIB <=
	    cap / MIB_KIB) {
		if (q->m_hash_max_kib < cap)
			cap = q->m_hash_max_kib;
		a->bound = q->m_hash_cliff ? TUNE_BOUND_CLIFF :
		    TUNE_BOUND_HEAP;
	}
	raw = cap;	/* what there is, before the MiB m moves by */
	cap -= cap % MIB_KIB;
	a->m_cap_kib = cap;
	if (cap < MIB_KIB || cap < 8 * p) {
		snprintf(err, errlen, "%llu KiB of memory for each of %u "
		    "hash%s at once is too little (m is a whole number of MiB, "
		    "and 8 KiB a lane): raise the memory limit or lower the "
		    "concurrency",
		    (unsigned long long)raw, (unsigned)q->k, q->k == 1 ? "" :
		    "es");
		return -1;
	}

	if (tune_search(m, c, &aim, TUNE_FLOOR_NONE, (uint32_t)cap, p,
	    &a->free_m_kib, &a->free_t, &bound_t) &&
	    tune_search(m, c, &aim, q->floor, (uint32_t)cap, p, &mm, &t,
	    &bound_t)) {
		a->met = 1;
		a->floor_decided = q->floor != TUNE_FLOOR_NONE &&
		    (mm != a->free_m_kib || t != a->free_t);
		tune_fill(m, c, q, mm, t, p, a);
		if ((a->bound_t = bound_t) > 0)
			a->bound_ms = tune_pred(m, c, (uint32_t)cap, bound_t,
			    q);
		tune_advise(m, q, a);
		return 0;
	}

	/* Not met: the admissible parameters that come closest. */
	for (mm = (uint32_t)cap; mm >= MIB_KIB && mm >= 8 * p; mm -= MIB_KIB) {
		if ((t = tune_min_t(&aim, q->floor, mm)) == 0)
			continue;
		ms = tune_pred(m, c, mm, t, q);
		if (best < 0 || ms < best) {
			best = ms;
			best_m = mm;
			best_t = t;
		}
	}
	if (best < 0) {
		snprintf(err, errlen, "no parameters within %llu KiB per hash "
		    "meet the %s floor: raise memory_max or lower concurrency",
		    (unsigned long long)cap, tune_floor_name(q->floor));
		return -1;
	}
	tune_fill(m, c, q, best_m, best_t, p, a);
	tune_advise(m, q, a);
	/*
	 * At k > 1 the hashes at once may be why (they share the CPUs and
	 * the memory bandwidth): said, so that a target that one hash at a
	 * time meets is not called low.
	 */
	tune_at_once(q, at_once, sizeof(at_once));
	tune_note(a, "%s cannot be met above the %s floor%s: the answer is "
	    "the closest admissible one%s.", q->k > 1 ? "the target" :
	    "a target this low", tune_floor_name(q->floor), at_once,
	    q->k > 1 ? " (fewer hashes at once, or a longer target, come "
	    "closer)" : "");
	tune_missed(q, a, NULL, "", err, errlen);
	return 1;
}

int
tune_needs_rehash(const char *encoded, const struct tune_answer *a,
    struct tune_rehash *out, char *err, size_t errlen)
{
	struct phc_argon2	ph;

	memset(out, 0, sizeof(*out));
	if (phc_decode_params(encoded, &ph, err, errlen) == -1)
		return -1;
	out->differs = ph.alg != a->variant || ph.version != 0x13 ||
	    ph.m_kib != a->m_kib || ph.t != a->t || ph.p != a->p;
	/*
	 * Less memory counts when an attacker also pays less per guess: a
	 * pass more at a little less memory (what memory-first answers at
	 * its bound, tune_fill_time) is not weaker than the bound's own
	 * answer, else two answers a small correction apart would each call
	 * the other's hashes weaker.
	 */
	out->weaker = (ph.m_kib < TUNE_REHASH_SLACK * a->m_kib &&
	    (double)ph.m_kib * (3.0 * ph.t - 1) < (double)a->m_kib *
	    (3.0 * a->t - 1)) ||
	    (double)ph.m_kib * ph.t < TUNE_REHASH_SLACK * (double)a->m_kib *
	    a->t || (ph.alg != a->variant && a->variant == KDF_ALG_ARGON2ID);
	memset(&ph, 0, sizeof(ph));
	return 0;
}

int
tune_sodium_takes_t(const struct tune_answer *a)
{
	return a->t >= kdf_t_min(KDF_BACKEND_LIBSODIUM, a->variant);
}

json_t *
tune_snippets(const struct tune_answer *a)
{
	char		 php[512], py[512], go[512], node[512], java[512];
	char		 c[768];
	const char	*php_alg = a->variant == KDF_ALG_ARGON2I ?
			    "PASSWORD_ARGON2I" : "PASSWORD_ARGON2ID";
	const char	*py_type = a->variant == KDF_ALG_ARGON2I ? "I" :
			    a->variant == KDF_ALG_ARGON2D ? "D" : "ID";
	const char	*node_type = a->variant == KDF_ALG_ARGON2I ?
			    "argon2i" : a->variant == KDF_ALG_ARGON2D ?
			    "argon2d" : "argon2id";
	unsigned	 m = a->m_kib, t = a->t, p = a->p;
	json_t		*j;

	/* A call that has no such variant says so, and hashes nothing. */
	if (a->variant == KDF_ALG_ARGON2D)
		snprintf(php, sizeof(php), "<?php\n// PHP's password_hash() "
		    "has no Argon2d (PASSWORD_ARGON2I and PASSWORD_ARGON2ID\n"
		    "// only): ask for argon2id.\n");
	else
		snprintf(php, sizeof(php),
		    "<?php\n$hash = password_hash($password, %s, [\n"
		    "    'memory_cost' => %u,\n    'time_cost' => %u,\n"
		    "    'threads' => %u,\n]);\n", php_alg, m, t, p);
	snprintf(py, sizeof(py),
	    "from argon2 import PasswordHasher, Type\n\n"
	    "ph = PasswordHasher(time_cost=%u, memory_cost=%u, parallelism=%u,"
	    "\n                    hash_len=32, salt_len=16, type=Type.%s)\n"
	    "hash = ph.hash(password)\n", t, m, p, py_type);
	if (a->variant == KDF_ALG_ARGON2D)
		snprintf(go, sizeof(go), "// golang.org/x/crypto/argon2 has "
		    "no Argon2d (Key: Argon2i, IDKey: Argon2id):\n// ask for "
		    "argon2id.\n");
	else
		snprintf(go, sizeof(go),
		    "package main\n\nimport \"golang.org/x/crypto/argon2\"\n"
		    "\n// salt: 16 random bytes from crypto/rand, stored with "
		    "the hash.\nfunc hashPassword(password, salt []byte) "
		    "[]byte {\n\treturn argon2.%s(password, salt, %u, %u, %u, "
		    "32)\n}\n", a->variant == KDF_ALG_ARGON2I ? "Key" :
		    "IDKey", t, m, p);
	snprintf(node, sizeof(node),
	    "const argon2 = require('argon2');\n\n"
	    "async function hashPassword(password) {\n"
	    "  return argon2.hash(password, {\n    type: argon2.%s,\n"
	    "    memoryCost: %u,\n    timeCost: %u,\n    parallelism: %u,\n"
	    "  });\n}\n", node_type, m, t, p);
	if (a->variant != KDF_ALG_ARGON2ID)
		snprintf(java, sizeof(java), "// Spring Security's "
		    "Argon2PasswordEncoder hashes Argon2id only: ask for\n"
		    "// argon2id.\n");
	else
		snprintf(java, sizeof(java),
		    "import org.springframework.security.crypto.argon2."
		    "Argon2PasswordEncoder;\n\nclass PasswordHashing {\n"
		    "    // saltLength, hashLength, parallelism, memory (KiB), "
		    "iterations\n    static final Argon2PasswordEncoder "
		    "ENCODER =\n        new Argon2PasswordEncoder(16, 32, %u, "
		    "%u, %u);\n}\n", p, m, t);
	/* The library the answer was measured with, when it is libargon2. */
	if (p == 1 && a->variant != KDF_ALG_ARGON2D &&
	    a->backend != KDF_BACKEND_LIBARGON2 && tune_sodium_takes_t(a))
		snprintf(c, sizeof(c),
		    "#include <sodium.h>\n\n"
		    "int\nhash_password(char out[crypto_pwhash_STRBYTES], "
		    "const char *password,\n    unsigned long long len)\n{\n"
		    "\treturn crypto_pwhash_str_alg(out, password, len, %uULL,\n"
		    "\t    (size_t)%u * 1024, crypto_pwhash_ALG_%s13);\n}\n", t,
		    m, a->variant == KDF_ALG_ARGON2I ? "ARGON2I" : "ARGON2ID");
	else
		/* crypto_pwhash has no p (nor Argon2d): libargon2 instead. */
		snprintf(c, sizeof(c),
		    "#include <argon2.h>\n\n%s"
		    "int\nhash_password(char *out, size_t outlen, "
		    "const char *password,\n    size_t len, const unsigned "
		    "char salt[16])\n{\n"
		    "\treturn %s_hash_encoded(%u, %u, %u, password, len, salt, "
		    "16,\n\t    32, out, outlen);\n}\n", p > 1 ?
		    "/* libsodium computes p = 1 only: libargon2 for p > 1. */\n"
		    : "", kdf_alg_name(a->variant), t, m, p);
	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "php", php,
	    "python", py, "go", go, "node", node, "java", java, "c", c);
	return j;
}

json_t *
tune_notes_to_json(const struct tune_answer *a)
{
	json_t		*notes = json_array();
	char		 copy[sizeof(a->notes)], *line, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", a->notes);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		json_array_append_new(notes, json_string(line));
	return notes;
}

json_t *
tune_answer_to_json(const struct tune_answer *a, const struct model *m)
{
	json_t		*j, *notes = tune_notes_to_json(a), *sodium;

	if (a->p == 1 && a->variant != KDF_ALG_ARGON2D &&
	    tune_sodium_takes_t(a))
		sodium = json_pack("{s:I, s:I}", "opslimit", (json_int_t)a->t,
		    "memlimit", (json_int_t)a->m_kib * 1024);
	else
		sodium = json_pack("{s:n, s:n, s:s}", "opslimit", "memlimit",
		    "note", a->variant == KDF_ALG_ARGON2D ?
		    "libsodium has no Argon2d" : !tune_sodium_takes_t(a) ?
		    "libsodium hashes Argon2i at t = 3 at least: it cannot "
		    "use this t" : "libsodium and PHP's sodium "
		    "functions compute p = 1 only: they cannot use this p");
	j = json_pack("{s:b, s:s, s:s, s:I, s:I, s:I, s:s, "
	    "s:{s:f, s:i, s:f, s:f, s:I, s:f}, s:f, s:I, "
	    "s:{s:s, s:b, s:b}, s:s, "
	    "s:{s:f, s:f, s:s}, s:o, s:o, s:o, s:b}",
	    "met", a->met,
	    "variant", kdf_alg_name(a->variant),
	    "backend", kdf_backend_name(a->backend),
	    "m_kib", (json_int_t)a->m_kib,
	    "t", (json_int_t)a->t,
	    "p", (json_int_t)a->p,
	    "phc_prefix", a->phc_prefix,
	    "latency", "target_ms", a->target_ms, "percentile", a->percentile,
		"predicted_ms", a->predicted_ms, "predicted_p50_ms",
		a->predicted_p50_ms, "concurrency", (json_int_t)a->k,
		"headroom", a->headroom,
	    "capacity_per_s", a->capacity_per_s,
	    "memory_in_flight_kib", (json_int_t)a->in_flight_kib,
	    "floor", "name", tune_floor_name(a->floor), "met", a->met ||
		tune_floor_min_t(a->floor, a->variant, a->m_kib) <= a->t,
		"decided", a->floor_decided,
	    "objective", tune_objective_name(a->objective),
	    "attacker", "gpu_guesses_per_s", a->gpu_guesses_per_s,
		"usd_per_1e9_guesses", a->usd_per_1e9_guesses, "assumptions",
		"one GPU with 960 GB/s of memory bandwidth (a high-end 2023 "
		"consumer card), guesses/s = bandwidth / (1024 m (3t - 1)) "
		"after Steve Thomas' analysis behind OWASP's rows; rented at "
		"$3.50 an hour ($2 to $5)",
	    "libsodium", sodium,
	    "snippets", tune_snippets(a),
	    "notes", notes,
	    "extrapolated", a->extrapolated);
	if (j != NULL && m != NULL) {
		const struct model_curve *c = model_curve_find(m, a->backend,
		    a->variant, a->p);

		json_object_set_new(j, "model", json_pack("{s:s, s:s, s:I, "
		    "s:o, s:o, s:s, s:s, s:o}", "host_id", m->host_id,
		    "run_created", m->created, "run_id", (json_int_t)m->run_id,
		    "loo_median_error", model_json_error(m->loo_known,
		    m->loo_median), "loo_worst_error",
		    model_json_error(m->loo_known, m->loo_worst),
		    "quality", model_quality_name(m->quality),
		    "quality_reason", m->quality_why,
		    /* The curve it was sized on, and the run that measured
		       it (a grid stored beside the model's run). */
		    "curve", c == NULL ? json_null() : json_pack("{s:s, s:s, "
		    "s:I, s:o, s:o, s:o}", "backend",
		    kdf_backend_name(c->backend), "variant",
		    kdf_alg_name(c->variant), "p", (json_int_t)c->p,
		    "run_id", c->run_id > 0 ? json_integer((json_int_t)
		    c->run_id) : json_null(), "loo_median_error",
		    model_json_error(c->loo_n > 0, c->loo_median),
		    "loo_worst_error", model_json_error(c->loo_n > 0,
		    c->loo_worst))));
	}
	return j;
}
