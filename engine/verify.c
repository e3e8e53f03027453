/*
 * engine/verify.c: measure the parameters of an answer (see verify.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "verify.h"

size_t
verify_rounds(uint32_t k)
{
	return k >= 10 ? 2 : (10 + k - 1) / k + 1;
}

/* The point a measures: its exact parameters, k hashes at once. */
static void
verify_point(const struct tune_answer *a, struct measure_point *pt)
{
	memset(pt, 0, sizeof(*pt));
	kdf_params_init(&pt->kp, a->variant);
	pt->kp.backend = a->backend;
	pt->kp.m_kib = a->m_kib;
	pt->kp.t = a->t;
	pt->kp.p = a->p;
	pt->k = a->k > 0 ? a->k : 1;
}

double
verify_warmup_cost(const struct tune_answer *a, int cpus)
{
	struct measure_opts	 mo;
	struct measure_point	 pt;
	int			 w;

	measure_opts_init(&mo, cpus);
	verify_point(a, &pt);
	w = measure_warmups(&pt, &mo);
	/* Past o's own: libargon2's two through libc, each about twice. */
	return w > mo.warmup_rounds ? w + 2 : w;
}

int
verify_measure(const struct tune_answer *a, int cpus, size_t rounds,
    volatile int *cancel, struct measure_result *r, char *err, size_t errlen)
{
	struct measure_opts	 mo;
	struct measure_point	 pt;

	measure_opts_init(&mo, cpus);
	mo.fixed_rounds = rounds > 0 ? rounds : verify_rounds(a->k);
	mo.remeasure_noisy = 0;
	mo.cancel = cancel;
	verify_point(a, &pt);
	memset(r, 0, sizeof(*r));
	if (measure_point_run(&pt, &mo, r) != 0 || r->nsamples == 0) {
		snprintf(err, errlen, "%s", r->reason[0] ? r->reason :
		    measure_status_name(r->status));
		measure_result_release(r);
		return -1;
	}
	return 0;
}

double
verify_percentile(const struct measure_result *r, int percentile)
{
	double	 buf[64], *s = buf, ms;

	if (percentile < 95)
		return r->st.median;
	if (r->samples == NULL || r->nsamples == 0)
		return percentile >= 99 ? r->st.p99 : r->st.p95;
	/* Out of memory: the largest, never a lower figure. */
	if (r->nsamples > sizeof(buf) / sizeof(buf[0]) &&
	    (s = malloc(r->nsamples * sizeof(*s))) == NULL)
		return r->st.max;
	memcpy(s, r->samples, r->nsamples * sizeof(*s));
	stats_sort(s, r->nsamples);
	ms = stats_rank(s, r->nsamples, percentile >= 99 ? 99 : 95);
	if (s != buf)
		free(s);
	return ms;
}

int
verify_answer(const struct tune_answer *a, int cpus, size_t rounds,
    volatile int *cancel, double *measured_ms, char *err, size_t errlen)
{
	struct measure_result	r;

	*measured_ms = -1;
	if (verify_measure(a, cpus, rounds, cancel, &r, err, errlen) == -1)
		return -1;
	*measured_ms = verify_percentile(&r, a->percentile);
	measure_result_release(&r);
	return 0;
}

void
verify_params_json(const struct tune_answer *a, char *buf, size_t len)
{
	snprintf(buf, len, "{\"variant\": \"%s\", \"backend\": \"%s\", "
	    "\"m_kib\": %u, \"t\": %u, \"p\": %u, \"k\": %u, "
	    "\"percentile\": %d}", kdf_alg_name(a->variant),
	    kdf_backend_name(a->backend), (unsigned)a->m_kib, (unsigned)a->t,
	    (unsigned)a->p, (unsigned)a->k, a->percentile);
}
