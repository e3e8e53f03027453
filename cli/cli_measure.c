/*
 * cli/cli_measure.c: what bench and recommend do before and while they
 * measure: probe the host, size the budget, measure the effective
 * parallelism, and draw the progress bar.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "units.h"

int
cli_probe(struct report *rep, uint64_t memory_max, uint64_t need,
    struct measure_opts *mo, volatile int *cancel, char *err, size_t errlen)
{
	struct measure_opts	po;
	struct kdf_params	probe;
	double			speedups[MEASURE_K_MAX];
	char			why[256];
	int			cpus;

	if (host_probe(NULL, &rep->host, err, errlen) == -1)
		return -1;
	rep->mem_budget = host_memory_budget(&rep->host, memory_max,
	    &rep->budget_source);
	if (need > 0 && rep->mem_budget > 0 && need > rep->mem_budget) {
		char	have[32], want[32];

		units_format_kib(rep->mem_budget >> 10, have, sizeof(have));
		units_format_kib((need + 1023) >> 10, want, sizeof(want));
		snprintf(err, errlen, "the memory budget here is %s (%s), "
		    "under the %s the smallest point needs (nothing measured)",
		    have, cli_budget_source_text(rep->budget_source), want);
		return -1;
	}
	cpus = host_usable_cpus(&rep->host);
	measure_opts_init(mo, cpus);
	mo->mem_budget = rep->mem_budget;
	mo->cancel = cancel;

	/* Effective parallelism: k small hashes at once against one. */
	kdf_params_init(&probe, KDF_ALG_ARGON2ID);
	probe.backend = KDF_BACKEND_LIBSODIUM;
	probe.m_kib = 8 * 1024;
	probe.t = 1;
	probe.p = 1;
	po = *mo;
	po.min_samples = 3;
	po.max_samples = 12;
	po.max_rel_error = 0.05;
	po.point_budget = 1;
	po.remeasure_noisy = 0;
	if (measure_effective_parallelism(&probe, cpus, &po, speedups,
	    &rep->effective_cpus, why, sizeof(why)) == -1) {
		cli_warnx("effective parallelism not measured: %s", why);
		rep->effective_cpus = cpus;
	}
	return 0;
}

void
cli_progress_print(void *ctx, const struct measure_progress *p)
{
	struct cli_progress	*bp = ctx;
	char			 bar[31], m[32];
	size_t			 i, filled;
	struct timespec		 ts;
	double			 now;

	if (!bp->tty)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (p->current != NULL && now - bp->last < 0.1)
		return;
	bp->last = now;
	filled = p->total ? p->done * 30 / p->total : 30;
	for (i = 0; i < 30; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[30] = '\0';
	if (p->current == NULL) {
		fprintf(stderr, "\r[%s] %zu/%zu points in %.0f s%-40s\n", bar,
		    p->done, p->total, p->elapsed, "");
		return;
	}
	units_format_kib(p->current->kp.m_kib, m, sizeof(m));
	fprintf(stderr, "\r[%s] %zu/%zu  ETA %2d:%02d  %s %s m=%s t=%u p=%u "
	    "k=%u    ", bar, p->done, p->total, (int)p->eta / 60,
	    (int)p->eta % 60, kdf_backend_name(p->current->kp.backend),
	    kdf_alg_name(p->current->kp.alg), m, (unsigned)p->current->kp.t,
	    (unsigned)p->current->kp.p, (unsigned)p->current->k);
	fflush(stderr);
}
