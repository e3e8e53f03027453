/*
 * api/request.c: what a request says, read strictly: the recommendation's
 * query (tune_query, scope= and stack=), ids in paths, and JSON bodies
 * (an object, no duplicate keys, nested 8 levels at most).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "stack.h"
#include "units.h"

#define QUERY_MAX	16

/* Strict unsigned decimal: digits only, no sign, at most 10 of them. */
static int
api_uint(const char *v, unsigned long long *out)
{
	size_t	i, n = strlen(v);

	if (n == 0 || n > 10)
		return n == 0 ? -1 : -2;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)v[i]))
			return -1;
	*out = strtoull(v, NULL, 10);
	return 0;
}

struct query_arg {
	const char	*keys[QUERY_MAX];
	const char	*values[QUERY_MAX];
	size_t		 n;
	int		 overflow;
	const char	*nul;		/* a key or value with a NUL inside */
};

static enum MHD_Result
api_collect(void *cls, enum MHD_ValueKind kind, const char *key,
    size_t key_size, const char *value, size_t value_size)
{
	struct query_arg	*q = cls;

	(void)kind;
	if (q->n == QUERY_MAX) {
		q->overflow = 1;
		return MHD_NO;
	}
	/* %00 decodes to a NUL that C strings would silently cut at. */
	if (strlen(key) != key_size || (value != NULL &&
	    strlen(value) != value_size))
		q->nul = key;
	q->keys[q->n] = key;
	q->values[q->n] = value != NULL ? value : "";
	q->n++;
	return MHD_YES;
}

/* A stack name: 1 to 63 of letters, digits, '.', '_', '+', '-'. */
int
api_stack_valid(const char *v)
{
	size_t	n = strlen(v);

	return n > 0 && n < DB_STACK_MAX && v[strspn(v, "abcdefghijklmnopq"
	    "rstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")] == '\0';
}

int
api_scope_parse(const char *key, const char *v, struct api_scope *sc,
    char *why, size_t whylen)
{
	if (strcmp(key, "scope") == 0) {
		if (strcmp(v, "host") == 0)
			sc->kind = API_SCOPE_HOST;
		else if (strcmp(v, "group") == 0)
			sc->kind = API_SCOPE_GROUP;
		else if (strcmp(v, "fleet") == 0)
			sc->kind = API_SCOPE_FLEET;
		else {
			snprintf(why, whylen, "must be host, group or fleet");
			return -1;
		}
		return 0;
	}
	if (!api_stack_valid(v)) {
		snprintf(why, whylen, "must be 1 to %d letters, digits, '.', "
		    "'_', '+' or '-' (php-8.2-libargon2)", DB_STACK_MAX - 1);
		return -1;
	}
	snprintf(sc->stack, sizeof(sc->stack), "%s", v);
	return 0;
}

/* What target_ms takes, in its errors. */
#define TARGET_RANGE \
	"must be a positive whole number of milliseconds, from 1 to 600000"
_Static_assert(TUNE_TARGET_MIN_MS == 1 && TUNE_TARGET_MAX_MS == 600000,
    "TARGET_RANGE says the range of target_ms");

/*
 * A whole number of k=v within [lo, hi] into *out: 0, or -1 with why
 * (what, the allowed range in words).
 */
static int
api_query_uint(const char *v, unsigned long long lo, unsigned long long hi,
    const char *what, unsigned long long *out, char *why, size_t whylen)
{
	if (api_uint(v, out) != 0 || *out < lo || *out > hi) {
		snprintf(why, whylen, "%s", what);
		return -1;
	}
	return 0;
}

/*
 * One parameter of the recommendation's query, k=v, into tq or sc: 0, or
 * -1 (400) with why: what was wrong and what is allowed, the range or the
 * set. A value outside the allowed set is a usage error like any other,
 * never "cannot meet the target".
 */
static int
api_query_value(const char *k, const char *v, struct tune_query *tq,
    struct api_scope *sc, char *why, size_t whylen)
{
	unsigned long long	 u;
	uint64_t		 kib;

	if (strcmp(k, "target_ms") == 0) {
		if (api_query_uint(v, TUNE_TARGET_MIN_MS, TUNE_TARGET_MAX_MS,
		    TARGET_RANGE, &u, why, whylen) == -1)
			return -1;
		tq->target_ms = (double)u;
	} else if (strcmp(k, "percentile") == 0) {
		if (api_uint(v, &u) != 0 || (u != 50 && u != 95 && u != 99)) {
			snprintf(why, whylen, "must be 50, 95 or 99");
			return -1;
		}
		tq->percentile = (int)u;
	} else if (strcmp(k, "concurrency") == 0) {
		if (api_query_uint(v, 1, 1024, "must be a whole number from 1 "
		    "to 1024", &u, why, whylen) == -1)
			return -1;
		tq->k = (uint32_t)u;
	} else if (strcmp(k, "memory_max") == 0) {
		if (units_parse_kib(v, UNITS_MEMORY_MAX_KIB,
		    &kib) == -1) {
			snprintf(why, whylen, "must be a size such "
			    "as 256MiB or 1GiB, or KiB as an integer, "
			    "up to 1 TiB");
			return -1;
		}
		tq->memory_max_kib = kib;
	} else if (strcmp(k, "parallelism") == 0) {
		if (strcmp(v, "auto") == 0)
			tq->parallelism = 0;
		else if (api_query_uint(v, 1, 255, "must be auto or a whole "
		    "number from 1 to 255", &u, why, whylen) == -1)
			return -1;
		else
			tq->parallelism = (uint32_t)u;
	} else if (strcmp(k, "variant") == 0) {
		if (kdf_alg_parse(v, &tq->variant) == -1 ||
		    !kdf_alg_is_argon2(tq->variant)) {
			snprintf(why, whylen, "must be argon2id, "
			    "argon2i or argon2d");
			return -1;
		}
	} else if (strcmp(k, "backend") == 0) {
		if (kdf_backend_parse(v, &tq->backend) == -1 ||
		    tq->backend == KDF_BACKEND_LIBCRYPT) {
			snprintf(why, whylen, "must be libsodium, "
			    "libargon2 or auto");
			return -1;
		}
	} else if (strcmp(k, "scope") == 0 || strcmp(k, "stack") == 0) {
		if (api_scope_parse(k, v, sc, why, whylen) == -1)
			return -1;
	} else if (strcmp(k, "floor") == 0) {
		if (tune_floor_parse(v, &tq->floor) == -1) {
			snprintf(why, whylen, "must be owasp, "
			    "rfc9106 or none");
			return -1;
		}
	} else if (tune_objective_parse(v, &tq->objective) == -1) {
		snprintf(why, whylen, "must be memory-first or "
		    "attacker-cost");
		return -1;
	}
	return 0;
}

void
api_shown(const char *v, char *buf, size_t len)
{
	static const char	hex[] = "0123456789abcdef";
	unsigned char		c;
	size_t			i, n = 0, need;

	if (len == 0)
		return;
	for (i = 0; v[i] != '\0'; i++) {
		c = (unsigned char)v[i];
		need = c >= 0x20 && c < 0x7f && c != '\\' ? 1 : 4;
		/* Cut (at 60 bytes, or for room): said so, when it fits. */
		if (i == API_SHOWN_MAX || n + need + 3 >= len) {
			if (n + 4 <= len) {
				memcpy(buf + n, "...", 3);
				n += 3;
			}
			break;
		}
		if (need == 1)
			buf[n++] = (char)c;
		else {
			buf[n++] = '\\';
			buf[n++] = 'x';
			buf[n++] = hex[c >> 4];
			buf[n++] = hex[c & 15];
		}
	}
	buf[n] = '\0';
}

/* ", not V" after why: the value as given (api_shown), or "empty". */
static void
api_query_shown(char *why, size_t whylen, const char *v)
{
	char	shown[API_SHOWN_LEN];
	size_t	n = strlen(why);

	api_shown(v, shown, sizeof(shown));
	if (n < whylen)
		snprintf(why + n, whylen - n, ", not %s", shown[0] != '\0' ?
		    shown : "empty");
}

/*
 * The query of c into *q, each key one of allowed[0..nallowed-1] (known
 * lists them, for the error), none twice, none with a NUL: 0, or -1 with
 * the problem queued in rep.
 */
static int
api_query_read(struct MHD_Connection *c, const char *const *allowed,
    size_t nallowed, const char *known, struct query_arg *q,
    struct api_reply *rep)
{
	char	why[160 + API_SHOWN_LEN], key[API_SHOWN_LEN];
	size_t	i, j;

	memset(q, 0, sizeof(*q));
	MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, api_collect, q);
	if (q->overflow) {
		api_fail(rep, PROB_BAD_PARAM, NULL, "too many query "
		    "parameters", NULL, 0);
		return -1;
	}
	/* A key the client made up is echoed as api_shown shows it. */
	if (q->nul != NULL) {
		api_shown(q->nul, key, sizeof(key));
		api_fail(rep, PROB_BAD_PARAM, key, "contains a NUL byte", NULL,
		    0);
		return -1;
	}
	for (i = 0; i < q->n; i++) {
		for (j = 0; j < nallowed; j++)
			if (strcmp(q->keys[i], allowed[j]) == 0)
				break;
		if (j == nallowed) {
			snprintf(why, sizeof(why), "unknown parameter (known: "
			    "%s)", known);
			api_shown(q->keys[i], key, sizeof(key));
			api_fail(rep, PROB_BAD_PARAM, key, why, NULL, 0);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (strcmp(q->keys[j], q->keys[i]) == 0) {
				api_fail(rep, PROB_BAD_PARAM, q->keys[i],
				    "given twice", NULL, 0);
				return -1;
			}
	}
	return 0;
}

int
api_query_only(struct MHD_Connection *c, const char *const *allowed,
    size_t nallowed, const char *known, struct api_reply *rep)
{
	struct query_arg	q;

	return api_query_read(c, allowed, nallowed, known, &q, rep);
}

/* The wrong values of one query: the first's name and detail, and all. */
struct query_wrong {
	const char	*param;		/* NULL: none wrong yet */
	char		 detail[160 + API_SHOWN_LEN];
	json_t		*errors;	/* [{"param", "detail"}], or NULL */
	size_t		 n;
};

/*
 * One more wrong value: the first is kept as the problem's own param and
 * detail, each appended to errors (on a failed allocation errors is
 * dropped, and the problem names the first alone).
 */
static void
api_query_wrong(struct query_wrong *w, const char *key, const char *why)
{
	if (w->param == NULL) {
		w->param = key;
		snprintf(w->detail, sizeof(w->detail), "%s", why);
	}
	w->n++;
	if (w->errors != NULL && json_array_append_new(w->errors,
	    json_pack("{s:s, s:s}", "param", key, "detail", why)) == -1) {
		json_decref(w->errors);
		w->errors = NULL;
	}
}

/*
 * Read the recommendation's query into *tq. On error, queue the problem
 * and return -1.
 */
int
api_parse_query(struct MHD_Connection *c, struct tune_query *tq,
    struct api_scope *sc, char *canon, size_t canonlen,
    struct api_reply *rep)
{
	static const char *const allowed[] = { "target_ms", "percentile",
	    "concurrency", "memory_max", "parallelism", "variant", "backend",
	    "floor", "objective", "scope", "stack" };
	struct query_arg	 q;
	struct query_wrong	 w = { .param = NULL };
	size_t			 i;
	/* A value's reason (at most 73 bytes) and ", not V"; or 130 bytes. */
	char			 why[160 + API_SHOWN_LEN];
	int			 have_target = 0, bad_backend = 0;
	const struct stack_def	*sd;

	memset(sc, 0, sizeof(*sc));
	tune_query_init(tq);
	if (api_query_read(c, allowed, sizeof(allowed) / sizeof(allowed[0]),
	    "target_ms, percentile, concurrency, memory_max, parallelism, "
	    "variant, backend, floor, objective, scope, stack", &q, rep) == -1)
		return -1;
	/*
	 * Every value is read, and every wrong one named: param and detail
	 * are the first, errors lists them all when more than one is wrong
	 * (a client mends them at once, not one request each).
	 */
	if ((w.errors = json_array()) == NULL) {
		api_fail(rep, PROB_INTERNAL, NULL, "out of memory", NULL, 0);
		return -1;
	}
	for (i = 0; i < q.n; i++) {
		/* Given, right or wrong: not also named as missing. */
		have_target |= strcmp(q.keys[i], "target_ms") == 0;
		if (api_query_value(q.keys[i], q.values[i], tq, sc, why,
		    sizeof(why)) == 0)
			continue;
		bad_backend |= strcmp(q.keys[i], "backend") == 0;
		api_query_shown(why, sizeof(why), q.values[i]);
		api_query_wrong(&w, q.keys[i], why);
	}
	if (!have_target) {
		snprintf(why, sizeof(why), "target_ms is required: it "
		    TARGET_RANGE);
		api_query_wrong(&w, "target_ms", why);
	}
	/*
	 * A stack hashes through its own library: a backend that is not it
	 * asks two things at once; the same one asks nothing more (and is
	 * the same question, one answer and one check).
	 */
	if (sc->stack[0] != '\0' && (sd = stack_find(sc->stack)) != NULL &&
	    tq->backend != KDF_BACKEND_AUTO && !bad_backend) {
		if (tq->backend != sd->base) {
			snprintf(why, sizeof(why), "must be %s or left out with "
			    "stack=%s (it hashes through %s), not %s",
			    kdf_backend_name(sd->base), sd->name,
			    kdf_backend_name(sd->base),
			    kdf_backend_name(tq->backend));
			api_query_wrong(&w, "backend", why);
		} else
			tq->backend = KDF_BACKEND_AUTO;
	}
	/* A stack's limits are the query's to keep: a usage error. */
	if (sc->stack[0] != '\0' && (sd = stack_find(sc->stack)) != NULL &&
	    sd->p1_only && tq->parallelism > 1) {
		snprintf(why, sizeof(why), "%s computes p = 1 only: "
		    "parallelism must be 1 or auto with stack=%s", sd->name,
		    sd->name);
		api_query_wrong(&w, "parallelism", why);
	}
	/* So is libsodium's, asked for by name. */
	if (tq->backend == KDF_BACKEND_LIBSODIUM && tq->parallelism > 1) {
		snprintf(why, sizeof(why), "libsodium computes p = 1 only: "
		    "parallelism must be 1 or auto with backend=libsodium");
		api_query_wrong(&w, "parallelism", why);
	}
	if (w.param != NULL) {
		if (w.n > 1 && w.errors != NULL)
			api_fail(rep, PROB_BAD_PARAM, w.param, w.detail,
			    json_pack("{s:o}", "errors", w.errors), 0);
		else {
			json_decref(w.errors);
			api_fail(rep, PROB_BAD_PARAM, w.param, w.detail, NULL,
			    0);
		}
		return -1;
	}
	json_decref(w.errors);
	(void)snprintf(canon, canonlen, "%lld|%d|%u|%llu|%u|%d|%d|%d|%d",
	    (long long)tq->target_ms, tq->percentile, (unsigned)tq->k,
	    (unsigned long long)tq->memory_max_kib, (unsigned)tq->parallelism,
	    tq->variant, tq->backend, tq->floor, tq->objective);
	return 0;
}

int
api_run_id(const char *arg, int64_t *id)
{
	unsigned long long	u;

	if (api_uint(arg, &u) != 0 || u == 0)
		return -1;
	*id = (int64_t)u;
	return 0;
}

/* Nesting depth of raw JSON, outside strings. */
static int
api_json_depth(const char *p, size_t n)
{
	int	depth = 0, max = 0, in_string = 0;
	size_t	i;

	for (i = 0; i < n; i++) {
		if (in_string) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				in_string = 0;
		} else if (p[i] == '"')
			in_string = 1;
		else if (p[i] == '{' || p[i] == '[') {
			if (++depth > max)
				max = depth;
		} else if (p[i] == '}' || p[i] == ']')
			depth--;
	}
	return max;
}

json_t *
api_body_json(const struct api_request *r, struct api_reply *rep)
{
	json_error_t	 jerr;
	json_t		*j;
	char		 why[256];

	if (api_json_depth(r->body, r->bodylen) > API_JSON_DEPTH_MAX) {
		api_fail(rep, PROB_BAD_JSON, NULL, "JSON nested deeper "
		    "than 8 levels", NULL, 0);
		return NULL;
	}
	j = json_loadb(r->body, r->bodylen, JSON_REJECT_DUPLICATES, &jerr);
	if (j == NULL) {
		snprintf(why, sizeof(why), "at byte %d: %s", jerr.position,
		    jerr.text);
		api_fail(rep, PROB_BAD_JSON, NULL, why, NULL, 0);
		return NULL;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		api_fail(rep, PROB_BAD_JSON, NULL, "the body must be a "
		    "JSON object", NULL, 0);
		return NULL;
	}
	return j;
}
