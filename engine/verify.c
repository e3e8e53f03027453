/*
 * engine/verify.c: measure the parameters of an answer (see verify.h).
 */
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "verify.h"

size_t
verify_rounds(uint32_t k)
{
	return k >= 10 ? 2 : (10 + k - 1) / k + 1;
}

int
verify_answer(const struct tune_answer *a, int cpus, size_t rounds,
    volatile int *cancel, double *measured_ms, char *err, size_t errlen)
{
	struct measure_opts	 mo;
	struct measure_point	 pt;
	struct measure_result	 r;
	int			 rc = 0;

	*measured_ms = -1;
	measure_opts_init(&mo, cpus);
	mo.fixed_rounds = rounds > 0 ? rounds : verify_rounds(a->k);
	mo.remeasure_noisy = 0;
	mo.cancel = cancel;
	kdf_params_init(&pt.kp, a->variant);
	pt.kp.backend = a->backend;
	pt.kp.m_kib = a->m_kib;
	pt.kp.t = a->t;
	pt.kp.p = a->p;
	pt.k = a->k > 0 ? a->k : 1;
	if (measure_point_run(&pt, &mo, &r) != 0) {
		snprintf(err, errlen, "%s", r.reason);
		rc = -1;
	} else
		*measured_ms = a->percentile >= 99 ? r.st.p99 :
		    a->percentile >= 95 ? r.st.p95 : r.st.median;
	measure_result_release(&r);
	return rc;
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
