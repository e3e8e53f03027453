/*
 * bench/synthetic.c: an imaginary host's measurements (synthetic.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synthetic.h"

double
synthetic_truth(uint32_t m_kib, uint32_t t)
{
	double	x = (log(m_kib) - log(8192)) / (log(1048576) - log(8192));
	double	A = 0.002 + x * 0.001, B = 0.0004 + x * 0.0004;

	return m_kib * (A + B * t);
}

void
synthetic_point(struct report *rep, enum kdf_backend b, uint32_t m_kib,
    uint32_t t, uint32_t k, double scale)
{
	struct measure_result	*r = &rep->results[rep->n++];
	double			 ms = synthetic_truth(m_kib, t) * scale;

	memset(r, 0, sizeof(*r));
	kdf_params_init(&r->pt.kp, KDF_ALG_ARGON2ID);
	r->pt.kp.backend = b;
	r->pt.kp.m_kib = m_kib;
	r->pt.kp.t = t;
	r->pt.kp.p = 1;
	r->pt.k = k;
	r->status = MEASURE_OK;
	r->st.n = 5;
	r->st.mean = r->st.median = r->st.min = ms;
	r->st.p95 = ms * 1.05;
	r->st.p99 = r->st.max = ms * 1.10;
}

void
synthetic_host(struct report *rep, int with_argon2, double speed,
    uint64_t budget)
{
	uint32_t	m;

	memset(rep, 0, sizeof(*rep));
	snprintf(rep->host.host_id, sizeof(rep->host.host_id), "synth");
	snprintf(rep->host.fingerprint, sizeof(rep->host.fingerprint), "fp");
	rep->effective_cpus = 2;
	rep->mem_budget = budget;
	rep->results = calloc(64, sizeof(*rep->results));
	if (rep->results == NULL)
		return;
	for (m = 8192; m <= 1048576; m *= 2) {
		synthetic_point(rep, KDF_BACKEND_LIBSODIUM, m, 1, 1, speed);
		synthetic_point(rep, KDF_BACKEND_LIBSODIUM, m, 3, 1, speed);
		if (with_argon2) {
			synthetic_point(rep, KDF_BACKEND_LIBARGON2, m, 1, 1,
			    2 * speed);
			synthetic_point(rep, KDF_BACKEND_LIBARGON2, m, 3, 1,
			    2 * speed);
		}
	}
	synthetic_point(rep, KDF_BACKEND_LIBSODIUM, 65536, 1, 2, 1.5 * speed);
}
