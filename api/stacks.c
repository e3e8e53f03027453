/*
 * api/stacks.c: an answer's stacks, one path for the daemon
 * (recommendation.c) and the CLI (pwtune recommend): for every client
 * stack of the catalogue, then the stacks only observations know, its
 * own answer to the same question (stack_recommend, corrected as the
 * checks of that stack's question found), how its model was
 * obtained, and what the default answer would take in it. Nothing here
 * needs a running server.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "stack.h"

const char *
api_stack_for(const struct model *m, const struct tune_answer *a)
{
	if (a->backend == KDF_BACKEND_LIBSODIUM)
		return "libsodium";
	if (a->backend == KDF_BACKEND_LIBARGON2)
		return "libargon2";
	return stack_default(m, a->variant);
}

/*
 * Stack name's answer to q, as corrected by the checks of its own
 * question (corr): stack_recommend's, or check_answer's with the
 * correction; -1, 0 or 1 as they return.
 */
static int
api_stack_recommend(const struct model *m, const char *name,
    const struct tune_query *q, const struct api_stack_corrections *corr,
    struct tune_answer *a, char *err, size_t errlen)
{
	const struct stack_def	*all;
	double			 c = 1, model_ms;
	size_t			 n, i;

	all = stack_catalogue(&n);
	for (i = 0; corr != NULL && i < n && i < MODEL_STACKS_MAX; i++)
		if (strcmp(all[i].name, name) == 0) {
			if (corr->c[i] > 0)
				c = corr->c[i];
			break;
		}
	if (c == 1)
		return stack_recommend(m, name, q, a, err, errlen);
	return check_answer(m, name, q, c, a, &model_ms, err, errlen);
}

/*
 * The model's entry for name, or one that says the library curve alone
 * (so that stack_how_text tells the C libraries, measured here, from the
 * runtimes that were not).
 */
static const struct model_stack *
api_stack_entry(const struct model *m, const char *name,
    struct model_stack *tmp)
{
	const struct model_stack	*st;

	if ((st = model_stack_find(m, name)) != NULL)
		return st;
	memset(tmp, 0, sizeof(*tmp));
	snprintf(tmp->name, sizeof(tmp->name), "%s", name);
	tmp->how = MODEL_STACK_LIBRARY;
	tmp->c = 1;
	return tmp;
}

/*
 * answered_as: the library whose curve answers for a runtime probed here
 * that hashes through that library's own file (its `how` is "probed
 * here", its probe's correction not applied); null for every other stack.
 */
static void
api_stack_answered_as(json_t *j, const struct model *m, const char *name)
{
	const char	*as = stack_answered_as(m, name);

	json_object_set_new(j, "answered_as", as != NULL ? json_string(as) :
	    json_null());
}

/*
 * One stack's entry of "stacks". When the default answer is over the
 * target in it: {name, take} into over when its own answer meets the
 * target, else a note into notes; when the stack cannot take the
 * default's p or t, {name, take, refuse} into over.
 */
static json_t *
api_stack_json(const struct model *m, const char *name,
    const struct stack_def *sd, const struct tune_query *q,
    const struct tune_answer *dflt, const struct api_stack_corrections *fix,
    json_t *notes, json_t *over)
{
	const struct model_stack	*st;
	struct model_stack		 tmp;
	enum kdf_backend		 base;
	struct tune_answer		 a;
	json_t				*j, *corr;
	double				 ms;
	char				 err[512], note[320], *snip;
	int				 rc;

	st = api_stack_entry(m, name, &tmp);
	base = sd != NULL ? sd->base : strcmp(stack_default(m, q->variant),
	    "libsodium") == 0 ? KDF_BACKEND_LIBSODIUM : KDF_BACKEND_LIBARGON2;
	j = json_pack("{s:s, s:s, s:s, s:o}", "name", name, "runtime",
	    sd != NULL ? sd->runtime : st->runtime[0] ? st->runtime : name,
	    "library", sd != NULL ? sd->library : kdf_backend_name(base),
	    "heap_kib", sd != NULL && sd->heap_kib > 0 ?
	    json_integer(sd->heap_kib) : json_null());
	if (model_curve_find(m, base, q->variant, 1) == NULL) {
		/* Argon2id is what runs measure: another variant is named. */
		const char	*v = q->variant != KDF_ALG_ARGON2ID ?
				    kdf_alg_name(q->variant) : "";

		/* Go, Node, Java: their own code, on that curve's shape. */
		if (sd != NULL && stack_own_code(sd))
			snprintf(err, sizeof(err), "%s%s%s not measured yet "
			    "(%s is sized on its curve, corrected for its own "
			    "code)", kdf_backend_name(base), v[0] ? " " : "",
			    v, name);
		else
			snprintf(err, sizeof(err), "%s%s%s not measured yet",
			    kdf_backend_name(base), v[0] ? " " : "", v);
		json_object_set_new(j, "available", json_false());
		json_object_set_new(j, "why", json_string(err));
		return j;
	}
	/* The default's own stack: the answer given, corrected or not. */
	if (strcmp(name, api_stack_for(m, dflt)) == 0) {
		a = *dflt;
		rc = dflt->met ? 0 : 1;
	} else if ((rc = api_stack_recommend(m, name, q, fix, &a, err,
	    sizeof(err))) == -1) {
		json_object_set_new(j, "available", json_false());
		json_object_set_new(j, "why", json_string(err));
		return j;
	}
	json_object_set_new(j, "available", json_true());
	json_object_set_new(j, "how", json_string(stack_how_text(st)));
	api_stack_answered_as(j, m, name);
	if (st->how != MODEL_STACK_PROBED && st->why[0] != '\0')
		json_object_set_new(j, "why", json_string(st->why));
	json_object_set_new(j, "met", json_boolean(rc == 0 && a.met));
	json_object_set_new(j, "m_kib", json_integer(a.m_kib));
	json_object_set_new(j, "t", json_integer(a.t));
	json_object_set_new(j, "p", json_integer(a.p));
	json_object_set_new(j, "phc_prefix", json_string(a.phc_prefix));
	json_object_set_new(j, "predicted", api_predicted_json(a.percentile,
	    a.predicted_ms, a.predicted_p50_ms));
	/* Deprecated (0.2.0): predicted.ms and predicted.p50_ms. */
	json_object_set_new(j, "predicted_ms", json_real(a.predicted_ms));
	json_object_set_new(j, "predicted_p50_ms",
	    json_real(a.predicted_p50_ms));
	/*
	 * Its own answer's notes (Java's heap bound setting its m, a
	 * runtime not measured here): the default's own stack's are the
	 * answer's.
	 */
	tune_note_drop(&a, TUNE_POOR_SAID);	/* the answer's, said once */
	json_object_set_new(j, "notes", strcmp(name, api_stack_for(m,
	    dflt)) == 0 ? json_array() : tune_notes_to_json(&a));
	if (st->how == MODEL_STACK_LIBRARY)
		corr = json_null();
	else
	{
		json_t	*knots = json_array();
		size_t	 i;

		for (i = 0; i < st->nknots; i++)
			json_array_append_new(knots, json_pack("[f, f]",
			    st->knot_x[i], st->knot_y[i]));
		corr = json_pack("{s:f, s:f, s:I, s:I, s:f, s:o, s:o}", "c",
		    st->c, "d", st->d, "probe_points", (json_int_t)st->nprobe,
		    "observations", (json_int_t)st->nobs, "fit_error",
		    st->fit_error, "knots", knots, "p95_over_median",
		    st->spread95 > 0 && stack_correction(m, name) == st ?
		    json_real(st->spread95) : json_null());
		/*
		 * Whether answers apply it (a library's own stack, and a
		 * runtime that hashed through the curve's own library file,
		 * stand on the curve), and that file.
		 */
		json_object_set_new(corr, "applied", json_boolean(
		    stack_correction(m, name) == st));
		json_object_set_new(corr, "shares_library", st->shares[0] ?
		    json_string(st->shares) : json_null());
		/*
		 * A cliff its probe showed: answers stay under it (when
		 * the correction applies: a library's curve stands for it).
		 */
		json_object_set_new(corr, "cliff", st->m_max_kib > 0 &&
		    stack_correction(m, name) == st ?
		    json_pack("{s:I, s:f, s:I, s:I, s:o, s:o}", "m_kib",
		    (json_int_t)st->cliff_m_kib, "ratio", st->cliff_ratio,
		    "held_kib", (json_int_t)st->cliff_held_kib, "m_max_kib",
		    (json_int_t)st->m_max_kib, "onset_kib",
		    st->cliff_onset_kib > 0 ?
		    json_integer(st->cliff_onset_kib) : json_null(),
		    "onset_tail", st->cliff_onset_kib > 0 ?
		    json_real(st->cliff_onset_tail) : json_null()) :
		    json_null());
	}
	json_object_set_new(j, "correction", corr);
	/*
	 * What the default answer would take here: not at all when this
	 * stack computes p = 1 only and the default has more lanes, or
	 * refuses its t (node-argon2: 2 at least); said when it is not the
	 * stack the answer is for.
	 */
	if (sd != NULL && ((sd->p1_only && dflt->p > 1) || dflt->t <
	    stack_t_min(sd, dflt->variant))) {
		json_object_set_new(j, "default_answer_ratio", json_null());
		/* Said once for the stacks that refuse it alike. */
		if (over != NULL && strcmp(name, api_stack_for(m, dflt)) != 0) {
			if (dflt->t < stack_t_min(sd, dflt->variant))
				snprintf(note, sizeof(note), "refuses the "
				    "default answer's t = %u (it takes t = %u "
				    "at least)", (unsigned)dflt->t,
				    (unsigned)stack_t_min(sd, dflt->variant));
			else
				snprintf(note, sizeof(note), "cannot compute "
				    "the default answer's p = %u (p = 1 only)",
				    (unsigned)dflt->p);
			json_array_append_new(over, json_pack("{s:s, s:s, "
			    "s:b}", "name", name, "take", note, "refuse", 1));
		}
	} else if (stack_predict(m, name, dflt->variant, dflt->m_kib, dflt->t,
	    dflt->p, dflt->k, q->percentile, &ms) == -1)
		json_object_set_new(j, "default_answer_ratio", json_null());
	else {
		json_object_set_new(j, "default_answer_ratio",
		    json_real(ms / q->target_ms));
		/*
		 * Not of the stack the answer is for: it is its own. Said
		 * once for the stacks it would take as long in
		 * (api_stacks_over_notes).
		 */
		if (ms > q->target_ms && over != NULL &&
		    strcmp(name, api_stack_for(m, dflt)) != 0 &&
		    rc == 0 && a.met) {
			snprintf(note, sizeof(note), "%.2f x the target (%.0f "
			    "ms at p%d)", ms / q->target_ms, ms,
			    q->percentile);
			json_array_append_new(over, json_pack("{s:s, s:s}",
			    "name", name, "take", note));
		} else if (ms > q->target_ms && notes != NULL &&
		    strcmp(name, api_stack_for(m, dflt)) != 0 &&
		    !(rc == 0 && a.met)) {
			/* Its own answer misses the target too: said. */
			snprintf(note, sizeof(note), "In %s the default "
			    "answer would take %.2f x the target (%.0f ms at "
			    "p%d), and its own answer cannot meet it either "
			    "(the closest admissible, m = %u KiB, t = %u, "
			    "%.1f ms).", name, ms / q->target_ms, ms,
			    q->percentile, (unsigned)a.m_kib, (unsigned)a.t,
			    a.predicted_ms);
			json_array_append_new(notes, json_string(note));
		}
	}
	snip = sd != NULL ? stack_snippet(sd, &a, stack_how_measured(st)) :
	    NULL;
	json_object_set_new(j, "snippet", snip != NULL ? json_string(snip) :
	    json_null());
	free(snip);
	return j;
}

/* Each language's snippet and the stack it is of (NULL: the answer's). */
static const struct {
	const char	*lang, *stack;
} api_snippet_map[] = { { "php", "php" }, { "python", "python-argon2-cffi" },
    { "go", "go" }, { "node", "node-argon2" },
    { "java", "java-bouncycastle" }, { "c", NULL } };

#define API_SNIPPET_LANGS	(sizeof(api_snippet_map) / \
				    sizeof(api_snippet_map[0]))

/*
 * lang's snippet of another stack's answer a (answer_stack's), for sd,
 * which has no answer of its own (why): said so in the code, after PHP's
 * opening tag (text before it is output). A stack that cannot take a's t
 * (node-argon2: 2 at least) gets its least t with m cut to keep m x t
 * (about the same work, in whole MiB), so that the code runs. NULL: out
 * of memory.
 */
static char *
api_snippet_not_own(const struct stack_def *sd, const char *lang,
    const struct tune_answer *a, const char *why, const char *answer_stack)
{
	struct tune_answer	 b = *a;
	json_t			*all;
	const char		*cm = strcmp(lang, "python") == 0 ? "#" : "//";
	const char		*code, *tag = "";
	char			 how[256], *snip = NULL;

	/* The code of sd's own library (libsodium's C for libsodium). */
	b.backend = sd->base;
	snprintf(how, sizeof(how), "these are the %s answer's parameters",
	    answer_stack);
	if (stack_t_min(sd, a->variant) > a->t) {
		uint32_t	tm = stack_t_min(sd, a->variant);
		uint64_t	m = (uint64_t)a->m_kib * a->t / tm;

		/* In whole MiB, 8 KiB a lane: m x t kept about, not more. */
		m -= m % 1024;
		if (m < 1024)
			m = 1024;
		while (m < 8 * (uint64_t)b.p)
			m += 1024;
		b.t = tm;
		b.m_kib = (uint32_t)m;
		snprintf(how, sizeof(how), "these are the %s answer's "
		    "parameters with t = %u and m = %u KiB (%s takes t = %u at "
		    "least; m x t about the answer's, in whole MiB)",
		    answer_stack, (unsigned)b.t, (unsigned)b.m_kib, sd->name,
		    (unsigned)tm);
	}
	/* Nor past its heap bound: m there, t up to keep m x t, not more. */
	if (sd->heap_kib >= 1024 && b.m_kib > sd->heap_kib) {
		uint32_t	heap = sd->heap_kib - sd->heap_kib % 1024;
		uint64_t	t = (uint64_t)b.m_kib * b.t / heap;

		if (t < b.t)
			t = b.t;
		if (t > KDF_ARGON2_T_MAX)
			t = KDF_ARGON2_T_MAX;
		b.m_kib = heap;
		b.t = (uint32_t)t;
		snprintf(how, sizeof(how), "these are the %s answer's "
		    "parameters with m = %u KiB and t = %u (%s's answers stay "
		    "at or below its heap bound, m = %u KiB: docs/STACKS.md; "
		    "m x t about the answer's)", answer_stack,
		    (unsigned)b.m_kib, (unsigned)b.t, sd->name,
		    (unsigned)sd->heap_kib);
	}
	if ((all = tune_snippets(&b)) == NULL ||
	    (code = json_string_value(json_object_get(all, lang))) == NULL) {
		json_decref(all);
		return NULL;
	}
	if (strncmp(code, "<?php\n", 6) == 0) {
		tag = "<?php\n";
		code += 6;
	}
	if (asprintf(&snip, "%s%s Not this runtime's answer: %s; %s, which "
	    "may take longer in %s.\n%s", tag, cm, why, how, sd->name,
	    code) == -1)
		snip = NULL;
	json_decref(all);
	return snip;
}

/* lang's snippet into out: snip (freed), or base's when it is NULL. */
static void
api_snippet_put(json_t *out, json_t *base, const char *lang, char *snip)
{
	json_object_set_new(out, lang, snip != NULL ? json_string(snip) :
	    json_incref(json_object_get(base, lang)));
	free(snip);
}

json_t *
api_stack_snippets(const struct model *m, const struct tune_query *q,
    const struct tune_answer *fallback, const char *for_stack,
    const struct api_stack_corrections *corr)
{
	const struct stack_def		*sd;
	const struct model_stack	*st;
	struct model_stack		 tmp;
	struct tune_answer		 a;
	const struct tune_answer	*ans;
	json_t				*out, *base;
	char				 err[512], *snip;
	size_t				 i;

	if ((out = json_object()) == NULL ||
	    (base = tune_snippets(fallback)) == NULL) {
		json_decref(out);
		return NULL;
	}
	for (i = 0; i < API_SNIPPET_LANGS; i++) {
		const char	*lang = api_snippet_map[i].lang;

		sd = stack_find(api_snippet_map[i].stack != NULL ?
		    api_snippet_map[i].stack : stack_default(m, q->variant));
		snip = NULL;
		snprintf(err, sizeof(err), "no answer of its own");
		/* The stack fallback is for: fallback, as it was given. */
		ans = sd == NULL ? NULL : strcmp(sd->name, for_stack != NULL ?
		    for_stack : api_stack_for(m, fallback)) == 0 ? fallback :
		    api_stack_recommend(m, sd->name, q, corr, &a, err,
		    sizeof(err)) != -1 ? &a : NULL;
		if (ans != NULL) {
			st = api_stack_entry(m, sd->name, &tmp);
			snip = stack_snippet(sd, ans, stack_how_measured(st));
		}
		if (snip == NULL && sd != NULL && json_is_string(
		    json_object_get(base, lang)))
			snip = api_snippet_not_own(sd, lang, fallback, err,
			    stack_default(m, q->variant));
		api_snippet_put(out, base, lang, snip);
	}
	json_decref(base);
	return out;
}

json_t *
api_snippets_one_stack(const struct tune_answer *a, const char *stack)
{
	const struct stack_def	*sd;
	json_t			*out, *base;
	char			 why[256], *snip;
	size_t			 i;

	if ((out = json_object()) == NULL || (base = tune_snippets(a)) ==
	    NULL) {
		json_decref(out);
		return NULL;
	}
	for (i = 0; i < API_SNIPPET_LANGS; i++) {
		const char	*lang = api_snippet_map[i].lang;

		sd = stack_find(api_snippet_map[i].stack != NULL ?
		    api_snippet_map[i].stack : stack);
		snip = NULL;
		if (sd != NULL && strcmp(sd->name, stack) == 0)
			snip = stack_snippet(sd, a, 1);
		else if (sd != NULL) {
			snprintf(why, sizeof(why), "measured with %s alone "
			    "(pwtune recommend --stack %s times this runtime)",
			    stack, sd->name);
			snip = api_snippet_not_own(sd, lang, a, why, stack);
		}
		api_snippet_put(out, base, lang, snip);
	}
	json_decref(base);
	return out;
}

/*
 * Whether the default answer holds in stack name, as list (the answer's
 * stacks) says: available, its ratio 1 or under.
 */
static int
api_stacks_holds(json_t *list, const char *name)
{
	json_t	*e, *r;
	size_t	 i;

	json_array_foreach(list, i, e)
		if (strcmp(json_string_value(json_object_get(e, "name")),
		    name) == 0)
			return json_is_true(json_object_get(e, "available")) &&
			    json_is_number(r = json_object_get(e,
			    "default_answer_ratio")) &&
			    json_number_value(r) <= 1;
	return 0;
}

/* Member key of over's entry i (api_stack_json's: a string). */
static const char *
api_over_str(json_t *over, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(over, i),
	    key));
}

/*
 * One note for the stacks over (api_stack_json's) that the default answer
 * would take as long in, in their order: "In libargon2, php and go the
 * default answer would take 1.56 x the target (389 ms at p95): each has
 * its own answer, ask with stack=NAME." (the stacks on one curve, none
 * probed, take the same), with PHP's and Python's libsodium stacks named
 * when the default holds in those (list: the answer's stacks); one for
 * those that refuse it alike ("libsodium, php-sodium and python-pynacl
 * cannot compute the default answer's p = 2 (p = 1 only): ...").
 */
static void
api_stacks_over_notes(json_t *notes, json_t *over, json_t *list,
    const char *ask)
{
	size_t		 i, k, n, nsame, *same;
	char		 note[1024];
	const char	*take;
	char		*used;
	int		 refuse;

	n = json_array_size(over);
	if (notes == NULL || n == 0)
		return;
	same = calloc(n, sizeof(*same));
	used = calloc(n, sizeof(*used));
	if (same == NULL || used == NULL) {
		free(same);
		free(used);
		return;
	}
	for (i = 0; i < n; i++) {
		if (used[i])
			continue;
		take = api_over_str(over, i, "take");
		refuse = json_is_true(json_object_get(json_array_get(over, i),
		    "refuse"));
		for (k = i, nsame = 0; k < n; k++)
			if (!used[k] && strcmp(take, api_over_str(over, k,
			    "take")) == 0) {
				used[k] = 1;
				same[nsame++] = k;
			}
		/* "In A, B and C". */
		snprintf(note, sizeof(note), "In");
		for (k = 0; k < nsame; k++)
			snprintf(note + strlen(note), sizeof(note) -
			    strlen(note), "%s%s", k == 0 ? " " : k + 1 ==
			    nsame ? " and " : ", ", api_over_str(over,
			    same[k], "name"));
		if (refuse) {
			/* "node-argon2 refuses the default answer's t = 1". */
			memmove(note, note + 3, strlen(note + 3) + 1);
			if (nsame == 1)
				snprintf(note + strlen(note), sizeof(note) -
				    strlen(note), " %s: ask with %s%s for its "
				    "own.", take, ask, api_over_str(over, i,
				    "name"));
			else
				snprintf(note + strlen(note), sizeof(note) -
				    strlen(note), " %s: each has its own "
				    "answer, ask with %sNAME.", take, ask);
			json_array_append_new(notes, json_string(note));
			continue;
		}
		if (nsame == 1)
			snprintf(note + strlen(note), sizeof(note) -
			    strlen(note), " the default answer would take %s: "
			    "ask with %s%s", take, ask, api_over_str(over, i,
			    "name"));
		else
			snprintf(note + strlen(note), sizeof(note) -
			    strlen(note), " the default answer would take %s: "
			    "each has its own answer, ask with %sNAME", take,
			    ask);
		/*
		 * PHP's and Python's libargon2 stacks have a libsodium one
		 * each, when the default answer holds in those.
		 */
		for (k = 0; k < nsame; k++) {
			const char	*nm = api_over_str(over, same[k],
			    "name");

			if (strcmp(nm, "php") == 0 ||
			    strcmp(nm, "python-argon2-cffi") == 0)
				break;
		}
		if (k < nsame && api_stacks_holds(list, "php-sodium") &&
		    api_stacks_holds(list, "python-pynacl"))
			snprintf(note + strlen(note), sizeof(note) -
			    strlen(note), ", or for PHP and Python hash "
			    "through libsodium (php-sodium, python-pynacl)");
		snprintf(note + strlen(note), sizeof(note) - strlen(note), ".");
		json_array_append_new(notes, json_string(note));
	}
	free(same);
	free(used);
}

void
api_stacks_add(json_t *j, const struct model *m, const struct tune_query *q,
    const struct tune_answer *dflt, const struct api_stack_corrections *corr,
    const char *ask)
{
	const struct stack_def	*cat;
	json_t			*list = json_array(), *notes, *over;
	size_t			 n, i;

	/* The default answer's own names too: the API's and the CLI's. */
	api_answer_vocab(j);
	if ((notes = json_object_get(j, "notes")) != NULL &&
	    !json_is_array(notes))
		notes = NULL;
	over = json_array();
	cat = stack_catalogue(&n);
	for (i = 0; i < n; i++)
		json_array_append_new(list, api_stack_json(m, cat[i].name,
		    &cat[i], q, dflt, corr, notes, over));
	for (i = 0; i < m->nstacks; i++)
		if (stack_find(m->stacks[i].name) == NULL)
			json_array_append_new(list, api_stack_json(m,
			    m->stacks[i].name, NULL, q, dflt, NULL, notes, over));
	api_stacks_over_notes(notes, over, list, ask);
	json_decref(over);
	/* The libraries' comparison: each stack's own figure says it. */
	for (i = 0; notes != NULL && i < json_array_size(notes); i++)
		if (strncmp(json_string_value(json_array_get(notes, i)) ?
		    json_string_value(json_array_get(notes, i)) : "",
		    TUNE_LIBRARIES_SAID, strlen(TUNE_LIBRARIES_SAID)) == 0) {
			json_array_remove(notes, i);
			break;
		}
	json_object_set_new(j, "for", json_string(api_stack_for(m, dflt)));
	json_object_set_new(j, "stacks", list);
	/* Each language's snippet carries its own stack's parameters. */
	json_object_set_new(j, "snippets", api_stack_snippets(m, q, dflt,
	    NULL, corr));
}

json_t *
api_stack_answer_json(const struct model *m, const char *name,
    const struct tune_query *q, const struct tune_answer *a,
    const struct api_stack_corrections *corr)
{
	const struct stack_def		*sd = stack_find(name);
	const struct model_stack	*st;
	struct model_stack		 tmp;
	json_t				*j;
	char				*snip;

	if ((j = tune_answer_to_json(a, m)) == NULL)
		return NULL;
	api_answer_vocab(j);
	st = api_stack_entry(m, name, &tmp);
	json_object_set_new(j, "snippets", api_stack_snippets(m, q, a, name,
	    corr));
	json_object_set_new(j, "for", json_string(name));
	json_object_set_new(j, "how", json_string(stack_how_text(st)));
	api_stack_answered_as(j, m, name);
	if (st->how != MODEL_STACK_PROBED && st->why[0] != '\0')
		json_object_set_new(j, "why", json_string(st->why));
	snip = sd != NULL ? stack_snippet(sd, a, stack_how_measured(st)) :
	    NULL;
	json_object_set_new(j, "snippet", snip != NULL ? json_string(snip) :
	    json_null());
	free(snip);
	return j;
}
