/*
 * engine/stack.c: the catalogue of client stacks, their corrections, and
 * answers that hold in each (see stack.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stack.h"
#include "stats.h"

#define DEBIAN_ARGON2	"Debian's libargon2 1.0 (its reference code, " \
			"no SIMD; libc malloc)"

static const struct stack_def catalogue[] = {
	{ "libsodium", "C: libsodium crypto_pwhash_str_alg()",
	    "libsodium (its own SIMD code, chosen at run time)",
	    KDF_BACKEND_LIBSODIUM, 1, "c",
	    { "{dir}/probe-c", "libsodium", 0, 0 }, "libsodium23", 0, 0, 0, 0, 0,
	    STACK_LACKS(KDF_ALG_ARGON2D) },
	{ "libargon2", "C: libargon2 argon2id_hash_encoded()", DEBIAN_ARGON2,
	    KDF_BACKEND_LIBARGON2, 0, "c",
	    { "{dir}/probe-c", "libargon2", 0, 0 }, "libargon2-1", 0, 0, 0, 0, 0, 0 },
	{ "php", "PHP password_hash(PASSWORD_ARGON2ID)", DEBIAN_ARGON2,
	    KDF_BACKEND_LIBARGON2, 0, "php",
	    { "php", "{dir}/probe.php", "password_hash", 0, 0 }, "php-cli", 0, 0, 0, 0, 0,
	    STACK_LACKS(KDF_ALG_ARGON2D) },
	{ "php-sodium", "PHP sodium_crypto_pwhash_str()",
	    "libsodium, through PHP's sodium extension",
	    KDF_BACKEND_LIBSODIUM, 1, "php-sodium",
	    { "php", "{dir}/probe.php", "sodium", 0, 0 }, "php-cli", 0, 0, 0, 0, 0,
	    STACK_LACKS(KDF_ALG_ARGON2D) | STACK_LACKS(KDF_ALG_ARGON2I) },
	{ "python-argon2-cffi", "Python argon2-cffi PasswordHasher",
	    DEBIAN_ARGON2 ", through cffi", KDF_BACKEND_LIBARGON2, 0,
	    "python",
	    { "/usr/bin/python3", "{dir}/probe.py", "argon2-cffi", 0, 0 },
	    "python3-argon2", 0, 0, 0, 0, 0, 0 },
	{ "python-pynacl", "Python PyNaCl nacl.pwhash.argon2id.str()",
	    "libsodium, through cffi", KDF_BACKEND_LIBSODIUM, 1,
	    "python-pynacl",
	    { "/usr/bin/python3", "{dir}/probe.py", "pynacl", 0, 0 },
	    "python3-nacl", 0, 0, 0, 0, 0, STACK_LACKS(KDF_ALG_ARGON2D) },
	{ "go", "Go golang.org/x/crypto/argon2 IDKey()",
	    "x/crypto/argon2 (Go, its own SSE4.1 code)",
	    KDF_BACKEND_LIBARGON2, 0, "go", { "{dir}/probe-go", 0, 0 },
	    "golang-go golang-golang-x-crypto-dev", 0, 3, 0, 0,
	    1,	/* its garbage collector */
	    STACK_LACKS(KDF_ALG_ARGON2D) },
	{ "node-argon2", "Node.js argon2 (npm) hash()",
	    "the argon2 npm package's own build of the reference library",
	    KDF_BACKEND_LIBARGON2, 0, "node", { "node", "{dir}/probe.js", 0, 0 },
	    "nodejs (and npm install argon2)", 2, 2, 0, 0, 0, 0 },	/* timeCost >= 2 */
	{ "java-bouncycastle",
	    "Java BouncyCastle Argon2BytesGenerator (Spring Security's "
	    "Argon2PasswordEncoder)", "BouncyCastle (pure Java)",
	    KDF_BACKEND_LIBARGON2, 0, "java",
	    { "java", "-cp", "{dir}/java:/usr/share/java/bcprov.jar",
	    "Probe", 0, 0 }, "default-jre-headless libbcprov-java", 0, 4,
	    4096,	/* its default heap, a quarter of the RAM: 1119 MiB
			   resident for a 57 MiB hash, seen */
	    32768,	/* 3 + 15 hashes in a fresh JVM: clean at 32 MiB
			   in four runs, the phase from the 7th to the 13th
			   timed hash in most runs at 48 to 128 MiB
			   (docs/BENCHMARKS.md, "Java within its heap") */
	    1,	/* its collector */
	    STACK_LACKS(KDF_ALG_ARGON2D) | STACK_LACKS(KDF_ALG_ARGON2I) },
};

#define NCATALOGUE	(sizeof(catalogue) / sizeof(catalogue[0]))

const struct stack_def *
stack_catalogue(size_t *n)
{
	*n = NCATALOGUE;
	return catalogue;
}

const struct stack_def *
stack_find(const char *name)
{
	size_t	i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < NCATALOGUE; i++)
		if (strcmp(catalogue[i].name, name) == 0)
			return &catalogue[i];
	return NULL;
}

/*
 * Whether a and b, in any case, differ by one letter added, dropped or
 * changed, or two next to each other swapped ("phpp", "pph" for php).
 */
static int
stack_one_edit(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b), i = 0;

	while (i < la && i < lb && tolower((unsigned char)a[i]) ==
	    tolower((unsigned char)b[i]))
		i++;
	if (la == lb)
		return i < la && (strcasecmp(a + i + 1, b + i + 1) == 0 ||
		    (i + 1 < la && tolower((unsigned char)a[i]) ==
		    tolower((unsigned char)b[i + 1]) &&
		    tolower((unsigned char)a[i + 1]) ==
		    tolower((unsigned char)b[i]) &&
		    strcasecmp(a + i + 2, b + i + 2) == 0));
	if (la == lb + 1)
		return strcasecmp(a + i + 1, b + i) == 0;
	if (lb == la + 1)
		return strcasecmp(a + i, b + i + 1) == 0;
	return 0;
}

/*
 * The catalogue's stacks a mistyped name most likely meant: the same name
 * in another case ("PHP"), else those whose names begin with it and a
 * '-' ("node" for node-argon2, "python" for both Python stacks), else
 * those one letter away ("phpp", "pyhton-pynacl"), up to
 * STACK_SUGGEST_MAX; how many into out.
 */
size_t
stack_suggest(const char *name, const struct stack_def **out, size_t max)
{
	size_t	i, n = 0, len;

	if (name == NULL || (len = strlen(name)) == 0 || max == 0)
		return 0;
	for (i = 0; i < NCATALOGUE; i++)
		if (strcasecmp(catalogue[i].name, name) == 0) {
			out[0] = &catalogue[i];
			return 1;
		}
	for (i = 0; i < NCATALOGUE; i++)
		if (strncasecmp(catalogue[i].name, name, len) == 0 &&
		    catalogue[i].name[len] == '-') {
			if (n == max)
				return 0;	/* too many to be meant */
			out[n++] = &catalogue[i];
		}
	if (n > 0)
		return n;
	for (i = 0; i < NCATALOGUE; i++)
		if (stack_one_edit(catalogue[i].name, name)) {
			if (n == max)
				return 0;
			out[n++] = &catalogue[i];
		}
	return n;
}

void
stack_suggest_text(const char *name, char *buf, size_t len)
{
	const struct stack_def	*sd[STACK_SUGGEST_MAX];
	size_t			 i, n, off;
	int			 w;

	if (len == 0)
		return;
	buf[0] = '\0';
	if ((n = stack_suggest(name, sd, STACK_SUGGEST_MAX)) == 0)
		return;
	off = 0;
	for (i = 0; i < n && off < len; i++) {
		w = snprintf(buf + off, len - off, "%s%s", i == 0 ?
		    " (did you mean " : i + 1 == n ? " or " : ", ",
		    sd[i]->name);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	/* All of it or nothing: a cut suggestion would mislead. */
	if (off + 2 >= len)
		buf[0] = '\0';
	else
		snprintf(buf + off, len - off, "?)");
}

void
stack_names(char *buf, size_t len)
{
	size_t	i, off = 0;
	int	w;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < NCATALOGUE && off < len; i++) {
		w = snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
		    catalogue[i].name);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

const struct model_stack *
model_stack_find(const struct model *m, const char *name)
{
	size_t	i;

	if (m == NULL || name == NULL)
		return NULL;
	for (i = 0; i < m->nstacks; i++)
		if (strcmp(m->stacks[i].name, name) == 0)
			return &m->stacks[i];
	return NULL;
}

int
model_stack_set(struct model *m, const struct model_stack *st)
{
	size_t	i;

	for (i = 0; i < m->nstacks; i++)
		if (strcmp(m->stacks[i].name, st->name) == 0) {
			m->stacks[i] = *st;
			return 0;
		}
	if (m->nstacks >= MODEL_STACKS_MAX)
		return -1;
	m->stacks[m->nstacks++] = *st;
	return 0;
}

void
model_stack_remove(struct model *m, const char *name)
{
	size_t	i;

	for (i = 0; i < m->nstacks; i++)
		if (strcmp(m->stacks[i].name, name) == 0) {
			memmove(&m->stacks[i], &m->stacks[i + 1],
			    (m->nstacks - i - 1) * sizeof(m->stacks[0]));
			m->nstacks--;
			return;
		}
}

const char *
stack_default(const struct model *m, enum kdf_alg variant)
{
	/* The library that measured the variant (libargon2's argon2d). */
	if (model_curve_find(m, KDF_BACKEND_LIBSODIUM, variant, 1) != NULL)
		return "libsodium";
	if (model_curve_find(m, KDF_BACKEND_LIBARGON2, variant, 1) != NULL)
		return "libargon2";
	return model_curve_find(m, KDF_BACKEND_LIBSODIUM, KDF_ALG_ARGON2ID,
	    1) != NULL ? "libsodium" : "libargon2";
}

/* The curve a stack of that name stands on. */
static enum kdf_backend
stack_base(const struct model *m, const char *name, enum kdf_alg variant)
{
	const struct stack_def	*sd = stack_find(name);

	if (sd != NULL)
		return sd->base;
	return strcmp(stack_default(m, variant), "libsodium") == 0 ?
	    KDF_BACKEND_LIBSODIUM : KDF_BACKEND_LIBARGON2;
}

uint32_t
stack_t_min(const struct stack_def *sd, enum kdf_alg variant)
{
	uint32_t	t = kdf_t_min(sd->base, variant);

	return sd->t_min > t ? sd->t_min : t;
}

/*
 * Whether sd's call cannot hash variant though its library can (PHP's
 * password_hash() and Go have no Argon2d, Spring's encoder Argon2id
 * only): said into err ("php: PHP password_hash(...) hashes argon2id and
 * argon2i only"). libsodium's stacks say it as libsodium's.
 */
static int
stack_lacks(const struct stack_def *sd, enum kdf_alg variant, char *err,
    size_t errlen)
{
	char		has[64] = "";
	enum kdf_alg	v[] = { KDF_ALG_ARGON2ID, KDF_ALG_ARGON2I,
			    KDF_ALG_ARGON2D };
	size_t		i, n = 0;

	if (sd == NULL || !(sd->lacks & STACK_LACKS(variant)) ||
	    (sd->base == KDF_BACKEND_LIBSODIUM && variant == KDF_ALG_ARGON2D))
		return 0;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!(sd->lacks & STACK_LACKS(v[i])))
			snprintf(has + strlen(has), sizeof(has) - strlen(has),
			    "%s%s", n++ > 0 ? " and " : "", kdf_alg_name(v[i]));
	snprintf(err, errlen, "%s: %s hashes %s only, not %s: ask for %s",
	    sd->name, sd->runtime, has, kdf_alg_name(variant),
	    kdf_alg_name(KDF_ALG_ARGON2ID));
	return 1;
}

const char *
stack_unmeasured(const struct model *m, const char *name,
    const struct tune_query *q)
{
	enum kdf_backend	b;
	uint32_t		p;
	char			e[256];

	/* Its call has no such variant: no run could answer. */
	if (name != NULL && stack_lacks(stack_find(name), q->variant, e,
	    sizeof(e)))
		return "variant";

	/* A stack's, or the default's (its stack's, as check_answer()). */
	if ((name != NULL && name[0] != '\0') ||
	    (q->backend == KDF_BACKEND_AUTO && q->parallelism <= 1)) {
		b = stack_base(m, name != NULL && name[0] != '\0' ? name :
		    stack_default(m, q->variant), q->variant);
		if (model_curve_find(m, b, q->variant, 1) != NULL)
			return NULL;
		return q->variant != KDF_ALG_ARGON2ID && model_curve_find(m,
		    b, KDF_ALG_ARGON2ID, 1) != NULL ? "variant" :
		    name != NULL && name[0] != '\0' ? "stack" : "variant";
	}
	if (tune_curve(m, q, &p, e, sizeof(e)) != NULL)
		return NULL;
	if (q->backend != KDF_BACKEND_AUTO && model_curve_find(m, q->backend,
	    KDF_ALG_ARGON2ID, 1) == NULL)
		return "backend";
	if (q->parallelism > 1 && (model_curve_find(m, KDF_BACKEND_LIBSODIUM,
	    q->variant, 1) != NULL || model_curve_find(m,
	    KDF_BACKEND_LIBARGON2, q->variant, 1) != NULL))
		return "parallelism";
	return "variant";
}

int
stack_is_library(const struct stack_def *sd)
{
	return sd->argv[0] != NULL && strcmp(sd->argv[0], "{dir}/probe-c") ==
	    0;
}

int
stack_own_code(const struct stack_def *sd)
{
	return strstr(sd->library, kdf_backend_name(sd->base)) == NULL;
}

const char *
stack_how_text(const struct model_stack *st)
{
	const struct stack_def	*sd;

	if (st != NULL && st->how == MODEL_STACK_PROBED)
		return "probed here";
	if (st != NULL && st->how == MODEL_STACK_OBSERVED)
		return "observations";
	sd = st != NULL ? stack_find(st->name) : NULL;
	if (sd != NULL && stack_is_library(sd))
		return "library measured here";
	/* Said not installed only when its probe found it missing. */
	if (st != NULL && st->runtime_here == MODEL_RUNTIME_MISSING)
		return "library measured, runtime not installed here";
	return "library measured, runtime not probed here";
}

int
stack_how_measured(const struct model_stack *st)
{
	const struct stack_def	*sd;

	if (st == NULL)
		return 0;
	if (st->how != MODEL_STACK_LIBRARY)
		return 1;
	return (sd = stack_find(st->name)) != NULL && stack_is_library(sd);
}

/*
 * Least squares y = c x + d over the points not dropped, weighted by
 * their samples; c alone (the median ratio, d = 0) when the predicted
 * times do not spread enough to tell a slope from a fixed cost, or when
 * the line is out of range.
 */
static void
stack_line(const double *x, const double *y, const double *w,
    const int *drop, size_t n, double *c, double *d)
{
	double	sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, lo = 0, hi = 0;
	double	r[64], det, cc, dd;
	size_t	i, nr = 0;

	for (i = 0; i < n; i++) {
		if (drop[i])
			continue;
		sw += w[i];
		sx += w[i] * x[i];
		sy += w[i] * y[i];
		sxx += w[i] * x[i] * x[i];
		sxy += w[i] * x[i] * y[i];
		if (nr == 0 || x[i] < lo)
			lo = x[i];
		if (nr == 0 || x[i] > hi)
			hi = x[i];
		if (nr < sizeof(r) / sizeof(r[0]))
			r[nr++] = y[i] / x[i];
	}
	*c = nr > 0 ? stats_median_sort(r, nr) : 1;
	*d = 0;
	det = sw * sxx - sx * sx;
	if (nr < 2 || hi < 1.5 * lo || !(det > 0))
		return;
	cc = (sw * sxy - sx * sy) / det;
	dd = (sy - cc * sx) / sw;
	/* A line whose smallest point would be nearly free is no fit. */
	if (!(cc >= STACK_C_MIN && cc <= STACK_C_MAX) || !isfinite(dd) ||
	    cc * lo + dd < 0.5 * cc * lo)
		return;
	*c = cc;
	*d = dd;
}

/*
 * How many standard deviations the largest of n normal samples lies over
 * their median, on average.
 */
static double
stack_max_sd(size_t n)
{
	static const double	c[] = { 0, 0, 0.56, 0.85, 1.03, 1.16, 1.27,
				    1.35, 1.42, 1.49, 1.54 };

	return n < sizeof(c) / sizeof(c[0]) ? c[n] : 1.54 + 0.02 *
	    (double)(n - 10);
}

static double
median3(double a, double b, double c)
{
	if (a > b) {
		double	t = a;

		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

/*
 * One knot far off its neighbours is a moment's noise, not the runtime:
 * each inner knot's ratio to the curve is the median of its own and its
 * neighbours'; an end knot off its neighbour by over 25 % where that one
 * agrees with the next within 10 % takes its neighbour's ratio. Not a
 * knot that weighs STACK_KNOT_HEAVY x each neighbour it would take after
 * (kw, the samples behind it): services' observations of a size, many
 * posts of many hashes, are what the runtime does there, not a moment a
 * probe's three hashes met (they were overruled by the probe's
 * neighbours, and an answer did not move for them).
 */
static void
stack_knots_filter(const double *kx, double *ky, const double *kw, size_t nk)
{
	double	r[64], f[64];
	size_t	i;

	if (nk < 3)
		return;
	for (i = 0; i < nk; i++)
		r[i] = ky[i] / kx[i];
	f[0] = r[0];
	f[nk - 1] = r[nk - 1];
	for (i = 1; i + 1 < nk; i++)
		f[i] = kw[i] >= STACK_KNOT_HEAVY * kw[i - 1] &&
		    kw[i] >= STACK_KNOT_HEAVY * kw[i + 1] ? r[i] :
		    median3(r[i - 1], r[i], r[i + 1]);
	if (fabs(r[0] - f[1]) > 0.25 * f[1] &&
	    fabs(f[1] - f[2]) <= 0.10 * f[2] &&
	    kw[0] < STACK_KNOT_HEAVY * kw[1])
		f[0] = f[1];
	if (fabs(r[nk - 1] - f[nk - 2]) > 0.25 * f[nk - 2] &&
	    fabs(f[nk - 2] - f[nk - 3]) <= 0.10 * f[nk - 3] &&
	    kw[nk - 1] < STACK_KNOT_HEAVY * kw[nk - 2])
		f[nk - 1] = f[nk - 2];
	for (i = 0; i < nk; i++)
		ky[i] = f[i] * kx[i];
}

/*
 * The knots of st from the points not dropped: points within 3 % of each
 * other's curve time merged (weighted by samples), ascending; each
 * median at least the one before (time never falls as the curve's
 * rises), so the join is monotone and can be inverted. With fewer than
 * two knots, none: c x + d stands. fit_error becomes the error of each
 * inner knot as its neighbours' join predicts it (a median), when there
 * is one.
 */
static void
stack_knots(const double *x, const double *y, const double *w,
    const int *drop, size_t n, struct model_stack *st)
{
	double	kx[64], ky[64], kw[64], e[64], t, v;
	size_t	idx[64], i, j, nk = 0, ne = 0;

	for (i = 0, j = 0; i < n; i++)
		if (!drop[i])
			idx[j++] = i;
	n = j;
	/* Insertion sort by x: a handful of points. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && x[idx[j]] < x[idx[j - 1]]; j--) {
			size_t	tmp = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = tmp;
		}
	for (i = 0; i < n; i++) {
		size_t	k = idx[i];

		if (nk > 0 && x[k] <= kx[nk - 1] * 1.03) {
			kx[nk - 1] = (kx[nk - 1] * kw[nk - 1] + x[k] * w[k]) /
			    (kw[nk - 1] + w[k]);
			ky[nk - 1] = (ky[nk - 1] * kw[nk - 1] + y[k] * w[k]) /
			    (kw[nk - 1] + w[k]);
			kw[nk - 1] += w[k];
			continue;
		}
		kx[nk] = x[k];
		ky[nk] = y[k];
		kw[nk] = w[k];
		nk++;
	}
	st->nknots = 0;
	if (nk < 2)
		return;
	/* Each inner knot against its neighbours' join, before the rest. */
	for (i = 1; i + 1 < nk; i++) {
		t = log(kx[i] / kx[i - 1]) / log(kx[i + 1] / kx[i - 1]);
		v = exp(log(ky[i - 1]) + t * log(ky[i + 1] / ky[i - 1]));
		e[ne++] = fabs(v - ky[i]) / ky[i];
	}
	if (ne > 0)
		st->fit_error = stats_median_sort(e, ne);
	if (nk > MODEL_STACK_KNOTS)
		nk = MODEL_STACK_KNOTS;
	stack_knots_filter(kx, ky, kw, nk);
	for (i = 0; i < nk; i++) {
		/* Kept within what a runtime can be against its library. */
		if (ky[i] < STACK_C_MIN * kx[i])
			ky[i] = STACK_C_MIN * kx[i];
		if (ky[i] > STACK_C_MAX * kx[i])
			ky[i] = STACK_C_MAX * kx[i];
		st->knot_x[i] = kx[i];
		st->knot_y[i] = i > 0 && ky[i] < st->knot_y[i - 1] ?
		    st->knot_y[i - 1] : ky[i];
	}
	st->nknots = nk;
}

/* The stack's median for a curve p50 of x ms. */
static double
stack_time(const struct model_stack *st, double x)
{
	const double	*kx = st->knot_x, *ky = st->knot_y;
	size_t		 i, n = st->nknots;
	double		 t;

	if (n < 2)
		return st->c * x + st->d;
	if (x <= kx[0])
		return x * ky[0] / kx[0];
	if (x >= kx[n - 1])
		return x * ky[n - 1] / kx[n - 1];
	for (i = 0; i + 1 < n && x > kx[i + 1]; i++)
		;
	t = log(x / kx[i]) / log(kx[i + 1] / kx[i]);
	return exp(log(ky[i]) + t * log(ky[i + 1] / ky[i]));
}

/* The curve p50 at which the stack's median is y ms (stack_time's). */
static double
stack_inverse(const struct model_stack *st, double y)
{
	const double	*kx = st->knot_x, *ky = st->knot_y;
	size_t		 i, n = st->nknots;
	double		 t;

	if (n < 2)
		return (y - st->d) / st->c;
	if (y <= ky[0])
		return y * kx[0] / ky[0];
	if (y >= ky[n - 1])
		return y * kx[n - 1] / ky[n - 1];
	for (i = 0; i + 1 < n && y > ky[i + 1]; i++)
		;
	if (ky[i + 1] <= ky[i])
		return kx[i];
	t = log(y / ky[i]) / log(ky[i + 1] / ky[i]);
	return exp(log(kx[i]) + t * log(kx[i + 1] / kx[i]));
}

/*
 * A cliff: the smallest size whose median, against the curve, is
 * STACK_CLIFF x or more what the smaller sizes (two at least) show, the
 * median of theirs, every larger size as far over: not a moment's noise
 * (a size inside the range with the sizes past it back on the line was a
 * busy moment, which the knots' filter takes care of; each point is the
 * median of STACK_CLIFF_SAMPLES hashes or more, so one pause does not
 * make it) but a runtime's limit: a collector copying a heap its young
 * generation no longer holds (Java's BouncyCastle past about 150 MiB
 * here: 2 s where 260 ms was measured at 154 MiB). Only the probe's own
 * points count: services' posts correct the stack, they do not bound it.
 * Answers for the stack stay at or below STACK_CLIFF_MARGIN of the
 * largest size under it (st->m_max_kib): the edge moves from run to run
 * (Java's: 126 to 157 MiB here), never under STACK_CLIFF_M_MIN.
 */
static void
stack_cliff(const double *x, const double *y, const uint32_t *mk,
    const double *tail, const int *use, size_t n, struct model_stack *st)
{
	double		r[64], below, ratio;
	size_t		idx[64], i, j, nb, ns, k = 0, on;
	uint32_t	under, last;

	st->cliff_m_kib = st->m_max_kib = st->cliff_held_kib = 0;
	st->cliff_onset_kib = 0;
	st->cliff_ratio = st->cliff_onset_tail = 0;
	for (i = 0; i < n; i++)
		if (use[i])
			idx[k++] = i;
	for (i = 1; i < k; i++)
		for (j = i; j > 0 && mk[idx[j]] < mk[idx[j - 1]]; j--) {
			size_t	tmp = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = tmp;
		}
	for (i = 0; i < k; i++) {
		/* The smaller sizes' ratios, and how many sizes they are. */
		for (j = 0, nb = ns = 0, under = last = 0; j < i; j++)
			if (mk[idx[j]] < mk[idx[i]]) {
				r[nb++] = y[idx[j]] / x[idx[j]];
				if (mk[idx[j]] != last &&
				    mk[idx[j]] >= STACK_CLIFF_M_MIN)
					ns++;
				under = last = mk[idx[j]];
			}
		if (ns < 2 || under < STACK_CLIFF_M_MIN)
			continue;
		below = stats_median_sort(r, nb);
		ratio = y[idx[i]] / x[idx[i]];
		if (!(below > 0) || !isfinite(ratio) ||
		    ratio < STACK_CLIFF * below)
			continue;
		/* Every larger size as far over, or it was a moment's. */
		for (j = i + 1; j < k; j++)
			if (y[idx[j]] / x[idx[j]] < STACK_CLIFF * below)
				break;
		if (j == k) {
			st->cliff_m_kib = mk[idx[i]];
			st->cliff_ratio = ratio / below;
			/*
			 * Where its hashes first showed it: the sizes under
			 * the cliff whose slowest hash took STACK_CLIFF x
			 * their median or more, every one of them up to the
			 * cliff (a JVM's heap growing into fresh memory shows
			 * in one hash of a size before it is every hash of
			 * the next). Sizes that showed it did not hold.
			 */
			for (on = i; on > 0 && mk[idx[on - 1]] >=
			    STACK_CLIFF_M_MIN && tail[idx[on - 1]] >=
			    STACK_CLIFF; on--)
				;
			for (j = 0, last = 0; on < i && j < on; j++)
				if (mk[idx[j]] < mk[idx[on]])
					last = mk[idx[j]];
			if (on < i && last >= STACK_CLIFF_M_MIN) {
				st->cliff_onset_kib = mk[idx[on]];
				st->cliff_onset_tail = tail[idx[on]];
				under = last;
			}
			/*
			 * Its edge moves with the runtime's heap sizing:
			 * a margin under the size that held, in MiB.
			 */
			st->cliff_held_kib = under;
			st->m_max_kib = (uint32_t)(under * STACK_CLIFF_MARGIN);
			st->m_max_kib -= st->m_max_kib % 1024;
			if (st->m_max_kib < STACK_CLIFF_M_MIN)
				st->m_max_kib = STACK_CLIFF_M_MIN;
			return;
		}
	}
}

/* The host's own p95 / median at k = 1 on b's curve (one for all m), or 0. */
static double
stack_host_spread(const struct model *m, enum kdf_backend b)
{
	const struct model_curve	*cv;
	struct model_prediction		 pr;

	if ((cv = model_curve_find(m, b, KDF_ALG_ARGON2ID, 1)) == NULL)
		return 0;
	model_predict(m, cv, 65536, 1, 1, 95, &pr);
	return pr.p50_ms > 0 ? pr.ms / pr.p50_ms : 0;
}

int
stack_fit(const struct model *m, const char *name,
    const struct stack_point *pts, size_t n, struct model_stack *out,
    char *err, size_t errlen)
{
	const struct model_curve	*cv;
	struct model_prediction		 pr;
	enum kdf_backend		 base = stack_base(m, name,
					    KDF_ALG_ARGON2ID);
	double				 x[64], y[64], w[64], e[64], sp[64];
	double				 tl[64], tail[64];
	uint32_t			 mk[64], spm[64], tlm[64];
	int				 cliff_ok[64], probed[64];
	double				 c, d;
	int				 drop[64];
	size_t				 i, nx = 0, nprobe = 0, nobs = 0, ne, wi;
	size_t				 nsp = 0, ntl = 0;
	uint32_t			 m_probed = 0;
	const struct stack_def		*sd = stack_find(name);
	/* A name only observations know: its runtime is not known. */
	int				 pauses = sd == NULL || sd->pauses;

	for (i = 0; i < n && nx < sizeof(x) / sizeof(x[0]); i++) {
		if ((cv = model_curve_find(m, base, KDF_ALG_ARGON2ID,
		    pts[i].p)) == NULL || !(pts[i].median_ms > 0) ||
		    !(pts[i].median_ms <= TUNE_TARGET_MAX_MS))
			continue;
		model_predict(m, cv, pts[i].m_kib, pts[i].t,
		    pts[i].k > 0 ? pts[i].k : 1, 50, &pr);
		/*
		 * Against the curve as the run measured it: what the checks
		 * found of the library (model_check_factor) applies to the
		 * stack's answers on top of its own correction.
		 */
		pr.p50_ms /= model_check_factor(cv, pts[i].m_kib);
		if (!(pr.p50_ms > 0) || !isfinite(pr.p50_ms))
			continue;
		x[nx] = pr.p50_ms;
		y[nx] = pts[i].median_ms;
		mk[nx] = pts[i].m_kib;
		probed[nx] = pts[i].probe;
		/*
		 * A cliff from the probe's medians of a few hashes only, and
		 * of a runtime whose collector holds the hash's memory
		 * (stack_def.pauses: a heap that grows): one that hashes in
		 * C memory (the C libraries, PHP, Python, Node's addon) has
		 * no heap to grow, and one of its sizes far off is a busy
		 * moment, as a C library's.
		 */
		cliff_ok[nx] = pauses && pts[i].probe &&
		    pts[i].n >= STACK_CLIFF_SAMPLES &&
		    strcmp(name, kdf_backend_name(base)) != 0;
		tail[nx] = 0;
		/*
		 * Weighted by samples, up to a probe point's: one post of
		 * 256 samples does not outweigh the rest.
		 */
		w[nx] = (double)(pts[i].n == 0 ? 1 : pts[i].n <
		    STACK_PROBE_SAMPLES ? pts[i].n : STACK_PROBE_SAMPLES);
		drop[nx] = 0;
		nx++;
		/*
		 * Its own spread, where samples can tell one: the p95 of a
		 * few samples is their largest, which lies about c_n
		 * standard deviations over the median (0.85 of 3 normal
		 * samples, 1.03 of 4, 1.16 of 5, 1.54 of 10): the relative
		 * deviation each point shows.
		 */
		if (pts[i].n >= 3 && pts[i].p95_ms >= pts[i].median_ms) {
			spm[nsp] = pts[i].m_kib;
			sp[nsp++] = (pts[i].p95_ms / pts[i].median_ms - 1) /
			    stack_max_sd(pts[i].n);
		}
		/*
		 * And its tail, where a pause is not a tick: the probe's own
		 * points only (as the cliff), so that one service's post of
		 * three hashes does not set it; and of a runtime whose
		 * collector pauses (stack_def.pauses): in one that hashes in
		 * C memory, one slow hash of a point's three is the host's
		 * moment (python-argon2-cffi's 1.76 x its median, its
		 * answer then timed at 0.57 of the target), and the host's
		 * tail stands for it below. tail[] is kept for every point:
		 * the cliff's onset reads it (stack_cliff).
		 */
		if (pts[i].probe && pts[i].n >= 3 &&
		    pts[i].p95_ms >= pts[i].median_ms &&
		    pts[i].median_ms >= STACK_TAIL_MIN_MS) {
			tail[nx - 1] = pts[i].p95_ms / pts[i].median_ms;
			if (pauses) {
				tlm[ntl] = pts[i].m_kib;
				tl[ntl++] = tail[nx - 1];
			}
		}
		if (pts[i].probe)
			nprobe++;
		else
			nobs++;
	}
	if (nx == 0) {
		snprintf(err, errlen, "%s: no measurement at parameters the "
		    "%s curve of this host covers", name,
		    kdf_backend_name(base));
		return -1;
	}
	stack_line(x, y, w, drop, nx, &c, &d);
	/*
	 * One point far off the others' line does not bend it: the line
	 * through all but one point, for each point, and the one whose
	 * others fit best; that point is left out when it is off that line
	 * by more than 15 % and by 3 x the worst of the others.
	 */
	if (nx >= 4) {
		double	cl, dl, r, others, best = -1, best_r = 0;
		size_t	j;

		for (i = 0, wi = 0; i < nx; i++) {
			drop[i] = 1;
			stack_line(x, y, w, drop, nx, &cl, &dl);
			drop[i] = 0;
			for (j = 0, others = 0; j < nx; j++) {
				r = fabs(cl * x[j] + dl - y[j]) / y[j];
				if (j != i && r > others)
					others = r;
			}
			if (best < 0 || others < best) {
				best = others;
				best_r = fabs(cl * x[i] + dl - y[i]) / y[i];
				wi = i;
			}
		}
		if (best_r > 0.15 && best_r > 3 * best) {
			drop[wi] = 1;
			stack_line(x, y, w, drop, nx, &c, &d);
		}
	}
	if (!(c >= STACK_C_MIN))
		c = STACK_C_MIN;
	if (!(c <= STACK_C_MAX))
		c = STACK_C_MAX;
	if (!isfinite(d))
		d = 0;
	for (i = 0, ne = 0; i < nx; i++)
		if (!drop[i]) {
			e[ne++] = fabs(c * x[i] + d - y[i]) / y[i];
			/* A size measured: not one the line left out. */
			if (probed[i] && mk[i] > m_probed)
				m_probed = mk[i];
		}
	snprintf(out->name, sizeof(out->name), "%s", name);
	/* Its probe's library is the caller's to say, after the fit. */
	out->shares[0] = '\0';
	out->how = nprobe > 0 ? MODEL_STACK_PROBED : MODEL_STACK_OBSERVED;
	out->c = c;
	out->d = d;
	out->nprobe = nprobe;
	out->m_probed_kib = m_probed;
	out->nobs = nobs;
	out->fit_error = ne > 0 ? stats_median_sort(e, ne) : 0;
	stack_cliff(x, y, mk, tail, cliff_ok, nx, out);
	/*
	 * Under a cliff, the spread of the sizes answers may take: what its
	 * hashes past the cap showed (a heap's pauses, the cliff's own
	 * onset) is not what a hash under it meets.
	 */
	if (out->m_max_kib > 0) {
		size_t	keep;

		for (i = 0, keep = 0; i < nsp; i++)
			if (spm[i] <= out->m_max_kib)
				sp[keep++] = sp[i];
		nsp = keep;
		for (i = 0, keep = 0; i < ntl; i++)
			if (tlm[i] <= out->m_max_kib)
				tl[keep++] = tl[i];
		ntl = keep;
	}
	/*
	 * Its spread at p95: the median of the points' deviations (one
	 * point's pause does not set it), 1.7 of them over the median: the
	 * p95 of 15 to 20 hashes timed in a row (at the nearest rank, their
	 * largest or next to it).
	 */
	out->spread95 = 0;
	if (nsp > 0)
		out->spread95 = 1 + STACK_P95_SD * stats_median_sort(sp, nsp);
	/*
	 * Never under the tail its hashes of STACK_TAIL_MIN_MS or more
	 * showed: a pause in one of a probe's ten large hashes is one in
	 * the fifteen a service's p95 is read from (a JVM's at 76 MiB:
	 * 2.2 x its median in the probe, 1.7 to 2.7 x in 15 hashes timed
	 * apart, docs/BENCHMARKS.md), so up to four points their largest
	 * sets it; from five, the rank STACK_TAIL_RANK (one point of many
	 * does not).
	 */
	if (ntl > 0) {
		double	rank;

		stats_sort(tl, ntl);
		rank = stats_rank(tl, ntl, STACK_TAIL_RANK);
		if (rank > out->spread95)
			out->spread95 = rank;
	}
	/*
	 * Nor under the host's own (model.c's pool_tail): its hashes share
	 * the host, and a probe's few of a size rarely meet its slow seconds.
	 */
	if (out->spread95 > 0) {
		double	host = stack_host_spread(m, base);

		if (host > out->spread95)
			out->spread95 = host;
	}
	if (out->spread95 > 3)
		out->spread95 = 3;
	/*
	 * The knots take every point: what is far off a line is not far
	 * off a curve (a small m's fixed cost, a large m's caches).
	 */
	memset(drop, 0, sizeof(drop));
	stack_knots(x, y, w, drop, nx, out);
	return 0;
}

size_t
stack_probe_points(const struct model *m, const struct stack_def *sd,
    uint64_t budget_kib, struct stack_probe_point *out, size_t max)
{
	static const struct {
		double		target_ms;
		uint32_t	n;
	} aims[] = { { 100, 4 }, { 250, 3 }, { 500, 3 } };
	struct tune_query	q;
	struct tune_answer	a;
	char			err[256];
	size_t			i, j, np = 0;

	if (max == 0 || model_curve_find(m, sd->base, KDF_ALG_ARGON2ID, 1) ==
	    NULL)
		return 0;
	/* Where its answers go: not past its heap's size. */
	if (sd->heap_kib > 0 && (budget_kib == 0 || budget_kib > sd->heap_kib))
		budget_kib = sd->heap_kib;
	/* The small point first: the warm-up runs at it, and it is cheap. */
	if (budget_kib >= 16384) {
		out[np].m_kib = 16384;
		out[np].t = sd->t_min > 1 ? sd->t_min : 1;
		out[np].p = 1;
		out[np].n = STACK_PROBE_SAMPLES;
		np++;
	}
	for (i = 0; i < sizeof(aims) / sizeof(aims[0]) && np < max; i++) {
		tune_query_init(&q);
		q.target_ms = aims[i].target_ms;
		q.percentile = 50;
		q.backend = sd->base;
		q.parallelism = 1;
		q.memory_max_kib = budget_kib;
		q.t_min = sd->t_min;
		if (tune_recommend(m, &q, &a, err, sizeof(err)) == -1)
			continue;
		for (j = 0; j < np; j++)
			if (out[j].m_kib == a.m_kib && out[j].t == a.t)
				break;
		if (j < np || a.m_kib > budget_kib)
			continue;
		out[np].m_kib = a.m_kib;
		out[np].t = a.t;
		out[np].p = 1;
		out[np].n = aims[i].n;
		np++;
	}
	return np;
}

/*
 * The stack's time at percentile q from the curve's p50 and its time at
 * q: its own spread at p95 when it measured one, else the curve's time at
 * q mapped.
 */
static double
stack_at(const struct model_stack *st, double p50, double pq, int q)
{
	if (q == 50)
		return stack_time(st, p50);
	if (q == 95 && st->spread95 > 0)
		return stack_time(st, p50) * st->spread95;
	return stack_time(st, pq);
}

/* stack.h */
const struct model_stack *
stack_correction(const struct model *m, const char *name)
{
	const struct model_stack	*st = model_stack_find(m, name);
	enum kdf_backend		 b;

	if (st == NULL || st->how == MODEL_STACK_LIBRARY)
		return NULL;
	if (kdf_backend_parse(name, &b) == 0 && b == stack_base(m, name,
	    KDF_ALG_ARGON2ID))
		return NULL;
	/*
	 * A runtime that hashed through the curve's own library file: its
	 * probe timed that code at another moment, as the library's own
	 * probe does. Services' observations of it still count: they time
	 * the service, where it runs.
	 */
	if (st->shares[0] != '\0' && st->nobs == 0)
		return NULL;
	return st;
}

const char *
stack_answered_as(const struct model *m, const char *name)
{
	const struct model_stack	*st;
	const struct stack_def		*sd;

	if (m == NULL || name == NULL || (sd = stack_find(name)) == NULL ||
	    stack_is_library(sd) || stack_own_code(sd) ||
	    (st = model_stack_find(m, name)) == NULL ||
	    st->how == MODEL_STACK_LIBRARY || st->shares[0] == '\0' ||
	    stack_correction(m, name) != NULL)
		return NULL;
	return kdf_backend_name(sd->base);
}

const char *
stack_checked_as(const struct model *m, const char *name)
{
	const struct stack_def	*sd, *lib;
	const char		*as = stack_answered_as(m, name);

	if (as == NULL || (sd = stack_find(name)) == NULL ||
	    (lib = stack_find(as)) == NULL)
		return name;
	/* The library's answers only when its limits are the library's. */
	if ((sd->t_min > 1 ? sd->t_min : 1) != (lib->t_min > 1 ?
	    lib->t_min : 1) || sd->p1_only != lib->p1_only ||
	    sd->heap_kib != lib->heap_kib)
		return name;
	return lib->name;
}

int
stack_predict(const struct model *m, const char *name, enum kdf_alg variant,
    uint32_t m_kib, uint32_t t, uint32_t p, uint32_t k, int q, double *ms)
{
	const struct model_curve	*cv;
	const struct model_stack	*st = stack_correction(m, name);
	struct model_prediction		 pr;

	if ((cv = model_curve_find(m, stack_base(m, name, variant), variant,
	    p)) == NULL)
		return -1;
	model_predict(m, cv, m_kib, t, k > 0 ? k : 1, q, &pr);
	*ms = st != NULL ? stack_at(st, pr.p50_ms, pr.ms, q) : pr.ms;
	return 0;
}

#define STACK_LIMIT_SAID	"and its answers stay there: "
#define STACK_HEAP_REFUSED	"%s: no parameters at or below m = %u KiB " \
	"meet the %s floor here, " STACK_LIMIT_SAID "a fresh process of its " \
	"runtime with its defaults (a JVM just started) hashing more grows " \
	"its heap into memory it never had (docs/STACKS.md)"

int
stack_limit_refused(const char *err)
{
	return err != NULL && strstr(err, STACK_LIMIT_SAID) != NULL;
}

void
stack_query_limits(const struct stack_def *sd, struct tune_query *q)
{
	if (sd == NULL)
		return;
	if (stack_t_min(sd, q->variant) > q->t_min)
		q->t_min = stack_t_min(sd, q->variant);
	if (sd->p1_only && q->parallelism <= 1)
		q->parallelism = 1;
	if (sd->heap_kib > 0 && (q->m_hash_max_kib == 0 ||
	    q->m_hash_max_kib > sd->heap_kib))
		q->m_hash_max_kib = sd->heap_kib;
}

int
stack_floor_reachable(const struct stack_def *sd, enum tune_floor f,
    enum kdf_alg variant, char *err, size_t errlen)
{
	uint32_t	lim;

	if (sd == NULL || sd->heap_kib < 1024)
		return 0;
	/* Floors ask less t of more m: none at the bound, none under it. */
	lim = sd->heap_kib - sd->heap_kib % 1024;
	if (tune_floor_min_t(f, variant, lim) != 0)
		return 0;
	snprintf(err, errlen, STACK_HEAP_REFUSED, sd->name,
	    (unsigned)sd->heap_kib, tune_floor_name(f));
	return -1;
}

int
stack_recommend(const struct model *m, const char *name,
    const struct tune_query *q, struct tune_answer *a, char *err,
    size_t errlen)
{
	const struct stack_def		*sd;
	const struct model_stack	*st, *corr;
	const struct model_curve	*cv;
	struct tune_query		 aim = *q;
	double				 h, spread, lib50 = 0;
	int				 rc, capped = 0;

	/* stack=NAME's own answer: its notes are its own stack's. */
	aim.stack_named = name != NULL && name[0] != '\0';
	if (name == NULL || name[0] == '\0')
		name = stack_default(m, q->variant);
	sd = stack_find(name);
	st = model_stack_find(m, name);
	corr = stack_correction(m, name);
	if (sd == NULL && st == NULL) {
		snprintf(err, errlen, "%s: no such stack, and no observations "
		    "of it", name);
		return -1;
	}
	if (stack_lacks(sd, q->variant, err, errlen))
		return -1;
	aim.backend = stack_base(m, name, q->variant);
	if (sd != NULL && sd->p1_only && q->parallelism > 1) {
		snprintf(err, errlen, "%s computes p = 1 only", name);
		return -1;
	}
	/* A floor its runtime never reaches, whatever memory is given. */
	if (stack_floor_reachable(sd, q->floor, q->variant, err, errlen) == -1)
		return -1;
	/*
	 * Each hash not past the size its runtime hashes without growing
	 * its heap (capped 2, stack_query_limits), nor past a cliff its
	 * measurements showed (1, the one said when both are as low): a
	 * limit of the runtime, per hash, not the caller's memory.
	 */
	stack_query_limits(sd, &aim);
	if (corr != NULL && corr->m_max_kib > 0 && (q->m_hash_max_kib == 0 ||
	    q->m_hash_max_kib > corr->m_max_kib) && (aim.m_hash_max_kib == 0 ||
	    aim.m_hash_max_kib >= corr->m_max_kib)) {
		aim.m_hash_max_kib = corr->m_max_kib;
		aim.m_hash_cliff = 1;
		capped = 1;
	} else if (aim.m_hash_max_kib != q->m_hash_max_kib)
		capped = 2;
	if (model_curve_find(m, aim.backend, q->variant, 1) == NULL) {
		const char	*lib = kdf_backend_name(aim.backend);

		char		 grid[320];

		/* libsodium has no Argon2d: no run of it could answer. */
		tune_grid_said(grid, sizeof(grid), q->variant ==
		    KDF_ALG_ARGON2D ? KDF_BACKEND_LIBARGON2 : aim.backend,
		    q->variant, 1);
		if (q->variant == KDF_ALG_ARGON2D &&
		    aim.backend == KDF_BACKEND_LIBSODIUM)
			snprintf(err, errlen, "%s%slibsodium computes no "
			    "argon2d: ask for argon2id, or for argon2d with "
			    "the libargon2 backend (%s)",
			    strcmp(name, lib) != 0 ? name : "",
			    strcmp(name, lib) != 0 ? ": " : "", grid);
		/* Measured, in another variant (the runs' argon2id). */
		else if (q->variant != KDF_ALG_ARGON2ID &&
		    model_curve_find(m, aim.backend, KDF_ALG_ARGON2ID, 1) !=
		    NULL)
			snprintf(err, errlen, "%s%sthis host's model has no "
			    "%s measurements of %s (its runs measure "
			    "argon2id): ask for argon2id (%s)",
			    strcmp(name, lib) != 0 ? name : "",
			    strcmp(name, lib) != 0 ? ": " : "",
			    kdf_alg_name(q->variant), lib, grid);
		/* Go, Node and Java have their own code: its reference. */
		else if (sd != NULL && stack_own_code(sd))
			snprintf(err, errlen, "%s is sized on the %s curve "
			    "(corrected for its own code), which this host's "
			    "model has not measured yet", name, lib);
		else
			snprintf(err, errlen, "%s stands on %s, which this "
			    "host's model has not measured yet", name, lib);
		return -1;
	}
	if (corr != NULL) {
		/*
		 * Its probe's largest size is a size measured: a runtime
		 * faster than its curve goes past the curve's sizes at one
		 * pass, not to a second pass at twice them (Go's 500 ms at
		 * t = 2 took 1.37 x its prediction: its correction, measured
		 * at t = 1, does not hold at t = 2, docs/BENCHMARKS.md).
		 */
		aim.m_measured_kib = corr->m_probed_kib;
		/*
		 * Searched on the curve for the time whose stack time fits:
		 * at p50 with the stack's own spread when it has one, else
		 * the curve's percentile mapped; the headroom tune adds is
		 * taken out first and put back (the map is not linear).
		 */
		h = tune_headroom(m, q->percentile);
		aim.headroom_percentile = q->percentile;
		spread = 1;
		if (q->percentile == 95 && corr->spread95 > 0) {
			spread = corr->spread95;
			aim.percentile = 50;
		}
		aim.target_ms = (1 + h) * stack_inverse(corr, q->target_ms /
		    ((1 + h) * spread));
		if (!(aim.target_ms >= TUNE_TARGET_MIN_MS))
			aim.target_ms = TUNE_TARGET_MIN_MS;
		if (aim.target_ms > TUNE_TARGET_MAX_MS)
			aim.target_ms = TUNE_TARGET_MAX_MS;
	}
	rc = tune_recommend(m, &aim, a, err, errlen);
	/*
	 * The heap's bound cannot be the reason (a floor under it was
	 * refused above); a cliff can.
	 */
	if (rc == -1 && capped == 1) {
		struct tune_query	free_q = aim;
		struct tune_answer	free_a;
		char			free_err[512];

		/*
		 * The runtime's limit the reason only when without it the
		 * search finds an answer; else what that search says (the
		 * caller's memory, a curve not measured, a bad k).
		 */
		free_q.m_hash_max_kib = q->m_hash_max_kib;
		free_q.m_hash_cliff = q->m_hash_cliff;
		if (tune_recommend(m, &free_q, &free_a, free_err,
		    sizeof(free_err)) == -1) {
			snprintf(err, errlen, "%s", free_err);
			return -1;
		}
		snprintf(err, errlen, "%s: no parameters at or below m = %u KiB "
		    "meet the %s floor here, " STACK_LIMIT_SAID "its probe "
		    "measured a hash of m = %u KiB at %.1f x what its smaller "
		    "sizes gave (a limit of the runtime)", name,
		    (unsigned)corr->m_max_kib, tune_floor_name(q->floor),
		    (unsigned)corr->cliff_m_kib, corr->cliff_ratio);
		return -1;
	}
	if (rc == -1)
		return -1;
	a->target_ms = q->target_ms;
	a->percentile = q->percentile;
	if (corr != NULL) {
		lib50 = a->predicted_p50_ms;
		a->predicted_ms = stack_at(corr, lib50, a->predicted_ms,
		    q->percentile);
		a->predicted_p50_ms = stack_time(corr, lib50);
		a->met = a->met && a->predicted_ms <= q->target_ms;
	}
	/* Said of the stack's time, against the target asked. */
	tune_note_t_max(a);
	if (a->predicted_p50_ms > 0)
		a->capacity_per_s = a->k * 1000.0 / a->predicted_p50_ms;
	if (rc == 1) {
		a->met = 0;
		tune_missed(q, a, name, "", err, errlen);
	}
	/* When it decided the answer: its cap the one reached. */
	if (capped == 2 && a->m_cap_kib + 1024 > sd->heap_kib &&
	    (a->m_kib + 1024 > a->m_cap_kib || a->bound_t > 0))
		tune_note(a, "For %s: its answers stay at or below m = %u "
		    "KiB, t making up the time: a fresh process of its "
		    "runtime with its defaults (a JVM just started, as a "
		    "service after a deploy) hashing more grows its heap into "
		    "memory it never had within its first 10 to 16 hashes, "
		    "each then about 2 to 5 x slower on a host that gives "
		    "memory back (docs/STACKS.md).", name,
		    (unsigned)sd->heap_kib);
	if (capped == 1 && a->m_cap_kib + 1024 > corr->m_max_kib &&
	    (a->m_kib + 1024 > a->m_cap_kib || a->bound_t > 0)) {
		char	onset[96] = "";

		if (corr->cliff_onset_kib > 0)
			snprintf(onset, sizeof(onset), " (at m = %u KiB one "
			    "hash already took %.1f x the others)",
			    (unsigned)corr->cliff_onset_kib,
			    corr->cliff_onset_tail);
		tune_note(a, "For %s: a hash of m = %u KiB took %.1f x what "
		    "its smaller sizes gave against the curve (a limit of "
		    "the runtime, as a JVM's heap growing into memory this "
		    "host is slow to give: docs/STACKS.md says how to start "
		    "one without it): its answers stay at or below m = %u "
		    "KiB, under the %u KiB that held%s (its edge moves).",
		    name, (unsigned)corr->cliff_m_kib, corr->cliff_ratio,
		    (unsigned)corr->m_max_kib, (unsigned)corr->cliff_held_kib,
		    onset);
	}
	/*
	 * The model's quality is judged on the curve the default answer
	 * stands on: a stack sized on another says when that one's error
	 * is past the bound (a quick run samples it at a few sizes).
	 */
	if (rc >= 0 && (cv = model_curve_find(m, aim.backend, q->variant,
	    a->p)) != NULL && cv != model_deciding_curve(m) && cv->loo_n > 0 &&
	    cv->loo_worst > MODEL_LOO_WORST_MAX && !cv->other_run) {
		char	label[64];

		model_curve_label(cv, label, sizeof(label));
		tune_note(a, "For %s: its answers are sized on the %s curve, "
		    "whose leave-one-out error is up to %.1f %% (over %.0f %%): "
		    "an answer may miss its target by as much. Measure again "
		    "on a quiet host (pwtune bench --db STORE, or POST "
		    "/v1/runs).", name, label, 100 * cv->loo_worst,
		    100 * MODEL_LOO_WORST_MAX);
	}
	if (corr != NULL && lib50 > 0)
		tune_note(a, "For %s: %s (%zu point%s%s): a hash of these "
		    "parameters takes %.2f x what %s's curve gives%s.", name,
		    corr->how == MODEL_STACK_PROBED ? "measured here by its "
		    "probe" : "corrected by its services' observations",
		    corr->nprobe + corr->nobs, corr->nprobe + corr->nobs == 1 ?
		    "" : "s", corr->how == MODEL_STACK_PROBED && corr->nobs ?
		    ", services' observations among them" : "",
		    a->predicted_p50_ms / lib50, kdf_backend_name(aim.backend),
		    !(q->percentile == 95 && corr->spread95 > 0) ? "" :
		    corr->spread95 > stack_host_spread(m, aim.backend) +
		    1e-9 ? ", its p95 from the spread its own hashes showed" :
		    ", its p95 at this host's spread (its own hashes showed "
		    "none wider)");
	else if (sd != NULL && strcmp(name, kdf_backend_name(aim.backend)) ==
	    0) {
		/* The library itself: its curve is its measurement. */
		const struct model_curve *lc = model_curve_find(m,
		    aim.backend, q->variant, 1);

		/* Asked by name: why its probe's figure is not in it. */
		if (st != NULL && st->how != MODEL_STACK_LIBRARY &&
		    aim.stack_named)
			tune_note(a, "For %s: the library's curve as this "
			    "host's run%s measured it; its probe timed the "
			    "same library at another moment, and is not "
			    "applied (the stack's correction in an answer's "
			    "stacks shows it).", name, lc != NULL &&
			    lc->chk_n > 0 ? " and its background checks" : "");
	} else if (st != NULL && st->shares[0] != '\0' && corr == NULL &&
	    st->how != MODEL_STACK_LIBRARY) {
		const struct model_curve *lc = model_curve_find(m,
		    aim.backend, q->variant, 1);
		double			 lib = a->predicted_p50_ms;

		tune_note(a, "For %s: its runtime hashed through %s, the "
		    "library file this host's %s curve measured: the curve "
		    "as this host's run%s measured it stands for it. Its "
		    "probe timed the same code at another moment (%.2f x the "
		    "curve there) and is not applied.", name, st->shares,
		    kdf_backend_name(aim.backend), lc != NULL &&
		    lc->chk_n > 0 ? " and its background checks" : "",
		    lib > 0 ? stack_time(st, lib) / lib : st->c);
	} else if (sd != NULL && strcmp(stack_how_text(st),
	    "library measured here") != 0)
		tune_note(a, "For %s: its runtime was not measured on this "
		    "host; the answer is sized on %s's curve as measured "
		    "here%s. Time it where it runs and POST /v1/observations "
		    "(docs/STACKS.md).", name, kdf_backend_name(aim.backend),
		    stack_own_code(sd) ? ", though it hashes with its own "
		    "code" : "");
	/* Its least t, when it decided the answer. */
	if (rc >= 0 && sd != NULL && sd->t_min > 1 && a->t == sd->t_min &&
	    q->t_min < sd->t_min)
		tune_note(a, "For %s: t is %u at least (%s takes no fewer "
		    "passes).", name, (unsigned)sd->t_min,
		    sd->runtime);
	return rc;
}

/* The comment a snippet carries when its runtime was not measured. */
#define UNMEASURED	"This runtime was not timed on the host that " \
			"answered (the library\n%s curve it is sized on " \
			"was): time it where it runs\n%s and POST the " \
			"result to /v1/observations (docs/STACKS.md).\n"

char *
stack_snippet(const struct stack_def *sd, const struct tune_answer *a,
    int measured)
{
	char		 body[1024], head[320], *out;
	const char	*cm = "//";
	json_t		*all = NULL;
	unsigned	 m = a->m_kib, t = a->t, p = a->p;
	size_t		 len;

	body[0] = head[0] = '\0';
	if (strcmp(sd->name, "php-sodium") == 0) {
		snprintf(body, sizeof(body), "<?php\n"
		    "$hash = sodium_crypto_pwhash_str($password, %u, %u * "
		    "1024);\n", t, m);
	} else if (strcmp(sd->name, "python-pynacl") == 0) {
		cm = "#";
		snprintf(body, sizeof(body), "from nacl import pwhash\n\n"
		    "hash = pwhash.%s.str(password, opslimit=%u, "
		    "memlimit=%u * 1024)\n", a->variant == KDF_ALG_ARGON2I ?
		    "argon2i" : "argon2id", t, m);
	} else if (strcmp(sd->name, "libargon2") == 0) {
		cm = NULL;
		snprintf(body, sizeof(body), "#include <argon2.h>\n\n"
		    "int\nhash_password(char *out, size_t outlen, "
		    "const char *password,\n    size_t len, const unsigned "
		    "char salt[16])\n{\n"
		    "\treturn %s_hash_encoded(%u, %u, %u, password, len, "
		    "salt, 16,\n\t    32, out, outlen);\n}\n",
		    kdf_alg_name(a->variant), t, m, p);
	} else {
		const char	*s;

		if ((all = tune_snippets(a)) == NULL ||
		    (s = json_string_value(json_object_get(all,
		    sd->snippet))) == NULL) {
			json_decref(all);
			return NULL;
		}
		snprintf(body, sizeof(body), "%s", s);
		json_decref(all);
		if (strcmp(sd->snippet, "python") == 0)
			cm = "#";
		else if (strcmp(sd->snippet, "c") == 0)
			cm = NULL;
	}
	if (!measured) {
		char	text[256];

		snprintf(text, sizeof(text), UNMEASURED, cm ? cm : "  ",
		    cm ? cm : "  ");
		if (cm == NULL)
			snprintf(head, sizeof(head), "/*\n  %s */\n", text);
		else
			snprintf(head, sizeof(head), "%s %s", cm, text);
	}
	len = strlen(head) + strlen(body) + 1;
	if ((out = malloc(len)) == NULL)
		return NULL;
	/* PHP's comment goes after the opening tag. */
	if (head[0] != '\0' && strncmp(body, "<?php\n", 6) == 0)
		snprintf(out, len, "<?php\n%s%s", head, body + 6);
	else
		snprintf(out, len, "%s%s", head, body);
	return out;
}
