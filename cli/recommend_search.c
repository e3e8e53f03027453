/*
 * cli/recommend_search.c: pwtune recommend --target-ms X from cold, one
 * target measured (engine/search.h): a few seconds instead of the quick
 * profile, the answer's own percentile instead of a model's prediction.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "api.h"
#include "cli.h"
#include "host.h"
#include "search.h"
#include "units.h"

struct rec_search_progress {
	int	tty;
};

static void
rec_search_step(void *ctx, uint32_t m_kib, uint32_t t, size_t step)
{
	struct rec_search_progress	*sp = ctx;
	char				 size[32];

	if (!sp->tty)
		return;
	units_format_kib(m_kib, size, sizeof(size));
	fprintf(stderr, "\r  step %zu: m = %s, t = %u%-20s", step + 1, size,
	    (unsigned)t, "");
	fflush(stderr);
}

json_t *
rec_search_json(const struct search_result *r)
{
	json_t	*j;

	if ((j = tune_answer_to_json(&r->a, NULL)) == NULL)
		return NULL;
	api_answer_vocab(j);	/* the API's names, as --db and the daemon */
	/* Only the measured stack's language carries the answer as it is. */
	json_object_set_new(j, "snippets", api_snippets_one_stack(&r->a,
	    kdf_backend_name(r->a.backend)));
	json_object_set_new(j, "search", json_pack("{s:f, s:f, s:I, s:I, "
	    "s:I, s:I, s:f, s:f, s:b, s:s, s:b, s:b}", "measured_ms",
	    r->a.predicted_ms, "measured_p50_ms", r->a.predicted_p50_ms,
	    "samples", (json_int_t)r->samples, "samples_near",
	    (json_int_t)r->near, "hashes", (json_int_t)r->hashes,
	    "steps", (json_int_t)r->steps, "uncertainty", r->uncertainty,
	    "seconds", r->seconds, "in_band", r->in_band, "stopped",
	    r->a.met ? search_stop_name(r->stop) : "over the target",
	    "noisy", r->noisy, "projected", r->projected));
	return j;
}

/* Where the search ended, and why when under the band. */
static const char *
rec_search_why(const struct search_result *r)
{
	if (!r->a.met)
		return "over the target";
	if (r->projected)
		return "out of steps: every pool of hashes was over the "
		    "target (the host slowed down, or its noise), so the "
		    "answer is projected from them, not measured";
	if (r->in_band && r->stop == SEARCH_OUT_OF_STEPS)
		return "within 90-100 % of the target by the last hashes, "
		    "which ran out before its percentile was known to 5 % (the "
		    "host's noise: the uncertainty above says how sure)";
	if (r->in_band)
		return "within 90-100 % of the target";
	switch (r->stop) {
	case SEARCH_AT_CAP:
		if (r->a.t >= TUNE_T_MAX)
			return "under 90 % of the target: m is at its memory "
			    "cap and t at its largest (see the note)";
		return "under 90 % of the target: m is at its memory cap, "
		    "and one more pass of t would be over 97.5 % of the "
		    "target";
	case SEARCH_AT_GRAIN:
		return "under 90 % of the target: the next MiB of m would "
		    "be over 97.5 % of it";
	case SEARCH_AT_FLOOR:
		return "under 90 % of the target: the floor's least work, "
		    "measured again (nothing within the target was found "
		    "before)";
	default:
		return "under 90 % of the target: the hashes ran out before "
		    "the search settled (the host's noise); where the last "
		    "of them put the answer";
	}
}

void
rec_search_print(const struct search_result *r)
{
	const struct tune_answer	*a = &r->a;
	char				 size[32], flight[32];

	units_format_kib(a->m_kib, size, sizeof(size));
	units_format_kib(a->in_flight_kib, flight, sizeof(flight));
	printf("%s for %s under %.0f ms at p%d with %u hash%s at once "
	    "(%s, floor %s, measured)\n\n", a->met ? "Recommendation" :
	    "Closest admissible answer", kdf_alg_title(a->variant),
	    a->target_ms, a->percentile, (unsigned)a->k, a->k == 1 ? "" : "es",
	    kdf_backend_name(a->backend), tune_floor_name(a->floor));
	printf("  m = %u KiB (%s), t = %u, p = %u\n", (unsigned)a->m_kib, size,
	    (unsigned)a->t, (unsigned)a->p);
	printf("  PHC prefix:  %s\n", a->phc_prefix);
	if (r->projected)
		printf("  Projected:   %.1f ms at p%d, %.1f ms median, scaled "
		    "down from %zu hashes whose percentile was over the "
		    "target (none at these parameters)%s\n", a->predicted_ms,
		    a->percentile, a->predicted_p50_ms, r->samples, r->noisy ?
		    "; the host was busy (noisy)" : "");
	else
		printf("  Measured:    %.1f ms at p%d (+- %.1f %%), %.1f ms "
		    "median, from %zu hashes within 15 %% of this work (%zu "
		    "within 5 %%)%s\n", a->predicted_ms, a->percentile,
		    100 * r->uncertainty, a->predicted_p50_ms, r->samples,
		    r->near, r->noisy ? "; the host was busy (noisy)" : "");
	printf("  Search:      %zu hashes in %zu steps, %.1f s; %s\n",
	    r->hashes, r->steps, r->seconds, rec_search_why(r));
	printf("  Capacity:    %.1f hashes per second with %u at once\n",
	    a->capacity_per_s, (unsigned)a->k);
	printf("  Memory:      %s in flight (%u x %s)\n", flight,
	    (unsigned)a->k, size);
	printf("  Attacker:    about %.0f guesses per second on one GPU with "
	    "960 GB/s of memory bandwidth\n", a->gpu_guesses_per_s);
	rec_print_notes(a->notes, NULL);
	printf("\nMeasured with %s in this process's children. For a client "
	    "stack (PHP, Python,\nNode, Go, Java) use --stack NAME; for a model "
	    "of the whole host, --profile quick.\n", kdf_backend_name(
	    a->backend));
}

/*
 * Search the answer to q on this host. Returns 0 with *r (met), 1 when
 * the target cannot be met above the floor (*r the closest), -1 after a
 * message (nothing measured), -2 after one (the query cannot be answered).
 */
int
rec_search(const struct tune_query *q, int quiet, volatile int *cancel,
    struct search_result *r)
{
	struct host_info		 h;
	struct search_opts		 so;
	struct rec_search_progress	 sp;
	enum host_budget_source		 src;
	char				 err[512];
	int				 rc;

	if (host_probe(NULL, &h, err, sizeof(err)) == -1) {
		cli_warnx("recommend: %s", err);
		return -1;
	}
	memset(&so, 0, sizeof(so));
	so.mem_budget = host_memory_budget(&h, 0, &src);
	so.cpus = host_usable_cpus(&h);
	so.cancel = cancel;
	sp.tty = !quiet && isatty(STDERR_FILENO);
	so.progress = rec_search_step;
	so.progress_ctx = &sp;
	if (!quiet)
		fprintf(stderr, "pwtune recommend: measuring near %.0f ms "
		    "(--profile quick measures the whole host)\n", q->target_ms);
	err[0] = '\0';
	rc = search_target(q, &so, r, err, sizeof(err));
	if (sp.tty)
		fprintf(stderr, "\r%-60s\r", "");
	cli_spell_options(err, sizeof(err));
	if (rc == -2 && strstr(err, "memory limit") != NULL)
		cli_warnx("recommend: --memory-max (or the host's budget): %s%s",
		    err, rec_memory_hint(q));
	else if (rc != 0)
		cli_warnx("recommend: %s", err);
	return rc;
}
