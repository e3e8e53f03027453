/*
 * engine/report.c: benchmark runs to and from JSON (see report.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kdf_impl.h"
#include "report.h"

#ifndef PWTUNE_VERSION
#define PWTUNE_VERSION "0"
#endif

void
report_stamp(struct report *rep)
{
	time_t		now = time(NULL);
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(rep->created, sizeof(rep->created), "%Y-%m-%dT%H:%M:%SZ",
	    &tm);
}

void
report_release(struct report *rep)
{
	size_t	i;

	for (i = 0; i < rep->n; i++)
		measure_result_release(&rep->results[i]);
	free(rep->results);
	rep->results = NULL;
	rep->n = 0;
}

json_t *
report_host_to_json(const struct host_info *h, int effective_cpus)
{
	json_t	*flags = json_array();

	if (h->has_sse2)
		json_array_append_new(flags, json_string("sse2"));
	if (h->has_ssse3)
		json_array_append_new(flags, json_string("ssse3"));
	if (h->has_avx2)
		json_array_append_new(flags, json_string("avx2"));
	if (h->has_avx512f)
		json_array_append_new(flags, json_string("avx512f"));
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:i, s:i, s:f, s:i, s:i, "
	    "s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:s}",
	    "host_id", h->host_id,
	    "fingerprint", h->fingerprint,
	    "hostname", h->hostname,
	    "cpu_model", h->cpu_model,
	    "cpu_flags", flags,
	    "online_cpus", h->online_cpus,
	    "affinity_cpus", h->affinity_cpus,
	    "cpu_quota", h->cpu_quota,
	    "effective_cpus", effective_cpus,
	    "cgroup_version", h->cgroup_version,
	    "mem_total", (json_int_t)h->mem_total,
	    "mem_available", (json_int_t)h->mem_available,
	    "swap_total", (json_int_t)h->swap_total,
	    "cgroup_mem_limit", (json_int_t)h->cg_mem_limit,
	    "cgroup_mem_usage", (json_int_t)h->cg_mem_usage,
	    "kernel", h->kernel,
	    "libsodium_version", h->libsodium_version,
	    "libargon2_version", h->libargon2_version,
	    "notes", h->notes);
}

json_t *
report_point_to_json(const struct measure_result *r, int with_samples)
{
	const struct kdf_params	*kp = &r->pt.kp;
	json_t			*j, *samples;
	size_t			 i;

	j = json_pack("{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:s, s:s}",
	    "backend", kdf_backend_name(kdf_backend_resolve(kp->backend,
	    kp->alg)),
	    "variant", kdf_alg_name(kp->alg),
	    "version", (int)kp->version,
	    "m_kib", (json_int_t)kp->m_kib,
	    "t", (json_int_t)kp->t,
	    "p", (json_int_t)kp->p,
	    "k", (json_int_t)r->pt.k,
	    "hash_length", (json_int_t)kp->hashlen,
	    "status", measure_status_name(r->status),
	    "reason", r->reason);
	if (j == NULL)
		return NULL;
	if (kp->alg == KDF_ALG_BCRYPT)
		json_object_set_new(j, "cost", json_integer(kp->cost));
	if (kp->alg == KDF_ALG_SCRYPT) {
		json_object_set_new(j, "ln", json_integer(kp->ln));
		json_object_set_new(j, "r", json_integer(kp->r));
	}
	json_object_set_new(j, "stats", json_pack("{s:I, s:f, s:f, s:f, s:f, "
	    "s:f, s:f, s:f, s:f}",
	    "n", (json_int_t)r->st.n,
	    "min_ms", r->st.min,
	    "median_ms", r->st.median,
	    "mean_ms", r->st.mean,
	    "stddev_ms", r->st.stddev,
	    "error_ms", r->st.error,
	    "p95_ms", r->st.p95,
	    "p99_ms", r->st.p99,
	    "max_ms", r->st.max));
	json_object_set_new(j, "rounds", json_integer((json_int_t)r->rounds));
	json_object_set_new(j, "throughput_per_s", json_real(r->throughput));
	json_object_set_new(j, "peak_rss_kib",
	    json_integer((json_int_t)r->peak_rss_kib));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	json_object_set_new(j, "noise", json_pack("{s:f, s:f, s:i, s:i, s:f, "
	    "s:b, s:b}",
	    "load_before", r->load_before,
	    "load_after", r->load_after,
	    "runnable_before", r->runnable_before,
	    "runnable_after", r->runnable_after,
	    "steal_pct", r->steal_pct,
	    "noisy", r->noisy,
	    "remeasured", r->remeasured));
	if (with_samples) {
		samples = json_array();
		for (i = 0; i < r->nsamples; i++)
			json_array_append_new(samples,
			    json_real(r->samples[i]));
		json_object_set_new(j, "samples_ms", samples);
	}
	return j;
}

json_t *
report_to_json(const struct report *rep, int with_samples)
{
	json_t	*j, *points;
	size_t	 i;

	points = json_array();
	for (i = 0; i < rep->n; i++)
		json_array_append_new(points,
		    report_point_to_json(&rep->results[i], with_samples));
	j = json_pack("{s:s, s:s, s:s, s:s, s:o, s:{s:I, s:s}, s:o}",
	    "schema", REPORT_SCHEMA,
	    "pwtune_version", PWTUNE_VERSION,
	    "created", rep->created,
	    "profile", rep->profile,
	    "host", report_host_to_json(&rep->host, rep->effective_cpus),
	    "budget",
		"memory_bytes", (json_int_t)rep->mem_budget,
		"source", host_budget_source_name(rep->budget_source),
	    "points", points);
	return j;
}

/* Reading. */

static int
report_get_string(const json_t *o, const char *key, char *dst, size_t len,
    int required, char *err, size_t errlen)
{
	json_t	*v = json_object_get(o, key);

	if (v == NULL && !required) {
		dst[0] = '\0';
		return 0;
	}
	if (!json_is_string(v)) {
		kdf_seterr(err, errlen, "%s must be a string", key);
		return -1;
	}
	if (json_string_length(v) >= len) {
		kdf_seterr(err, errlen, "%s is longer than %zu characters", key,
		    len - 1);
		return -1;
	}
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int
report_get_uint(const json_t *o, const char *key, uint64_t max,
    uint64_t *out, int required, char *err, size_t errlen)
{
	json_t	*v = json_object_get(o, key);

	if (v == NULL && !required) {
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max) {
		kdf_seterr(err, errlen, "%s must be an integer from 0 to %llu",
		    key, (unsigned long long)max);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int
report_get_real(const json_t *o, const char *key, double *out, int required,
    char *err, size_t errlen)
{
	json_t	*v = json_object_get(o, key);

	if (v == NULL && !required) {
		*out = 0;
		return 0;
	}
	if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
	    json_number_value(v) < 0) {
		kdf_seterr(err, errlen, "%s must be a number >= 0", key);
		return -1;
	}
	*out = json_number_value(v);
	return 0;
}

static int
report_status_parse(const char *s, enum measure_status *st)
{
	int	i;

	for (i = MEASURE_OK; i <= MEASURE_CANCELLED; i++) {
		if (strcmp(s, measure_status_name((enum measure_status)i)) == 0) {
			*st = (enum measure_status)i;
			return 0;
		}
	}
	return -1;
}

int
report_point_from_json(const json_t *j, struct measure_result *r, char *err,
    size_t errlen)
{
	struct kdf_params	*kp = &r->pt.kp;
	char			 name[32], status[32];
	json_t			*st, *noise, *samples, *v;
	uint64_t		 u;
	double			 d;
	size_t			 i;
	enum kdf_alg		 alg;

	if (!json_is_object(j)) {
		kdf_seterr(err, errlen, "a point must be an object");
		return -1;
	}
	if (report_get_string(j, "variant", name, sizeof(name), 1, err,
	    errlen) == -1)
		return -1;
	if (kdf_alg_parse(name, &alg) == -1) {
		kdf_seterr(err, errlen, "variant %s is unknown", name);
		return -1;
	}
	kdf_params_init(kp, alg);
	if (report_get_string(j, "backend", name, sizeof(name), 1, err,
	    errlen) == -1)
		return -1;
	if (kdf_backend_parse(name, &kp->backend) == -1 ||
	    kp->backend == KDF_BACKEND_AUTO) {
		kdf_seterr(err, errlen, "backend %s is unknown", name);
		return -1;
	}
	if (kdf_alg_is_argon2(alg)) {
		if (report_get_uint(j, "version", 0x13, &u, 1, err, errlen) ==
		    -1)
			return -1;
		kp->version = (uint32_t)u;
		if (report_get_uint(j, "m_kib", UINT32_MAX, &u, 1, err,
		    errlen) == -1)
			return -1;
		kp->m_kib = (uint32_t)u;
		if (report_get_uint(j, "t", UINT32_MAX, &u, 1, err, errlen) ==
		    -1)
			return -1;
		kp->t = (uint32_t)u;
	}
	if (alg != KDF_ALG_BCRYPT) {
		if (report_get_uint(j, "p", KDF_ARGON2_P_MAX, &u, 1, err,
		    errlen) == -1)
			return -1;
		kp->p = (uint32_t)u;
		if (report_get_uint(j, "hash_length", KDF_HASH_MAX, &u, 1, err,
		    errlen) == -1)
			return -1;
		kp->hashlen = (uint32_t)u;
	}
	if (alg == KDF_ALG_SCRYPT) {
		if (report_get_uint(j, "ln", KDF_SCRYPT_LN_MAX, &u, 1, err,
		    errlen) == -1)
			return -1;
		kp->ln = (uint32_t)u;
		if (report_get_uint(j, "r", UINT32_MAX, &u, 1, err, errlen) ==
		    -1)
			return -1;
		kp->r = (uint32_t)u;
	}
	if (alg == KDF_ALG_BCRYPT) {
		if (report_get_uint(j, "cost", KDF_BCRYPT_COST_MAX, &u, 1, err,
		    errlen) == -1)
			return -1;
		kp->cost = (uint32_t)u;
	}
	if (report_get_string(j, "status", status, sizeof(status), 1, err,
	    errlen) == -1)
		return -1;
	if (report_status_parse(status, &r->status) == -1) {
		kdf_seterr(err, errlen, "status %s is unknown", status);
		return -1;
	}
	{
		struct kdf_input in = { (const uint8_t *)"x", 1,
		    (const uint8_t *)"0123456789abcdef", 16, NULL, 0, NULL, 0 };

		/*
		 * A point skipped because its backend cannot compute it
		 * (libsodium at p = 2: pwtune bench --p 1,2 writes one) is
		 * the run's, as recorded; measured ones must be hashable.
		 */
		if (kdf_params_check(kp, &in, err, errlen) == -1 &&
		    r->status != MEASURE_SKIPPED)
			return -1;
	}
	if (report_get_uint(j, "k", MEASURE_K_MAX, &u, 1, err, errlen) == -1)
		return -1;
	if (u < 1) {
		kdf_seterr(err, errlen, "k must be at least 1");
		return -1;
	}
	r->pt.k = (uint32_t)u;
	if (report_get_string(j, "reason", r->reason, sizeof(r->reason), 0,
	    err, errlen) == -1)
		return -1;

	if ((st = json_object_get(j, "stats")) == NULL || !json_is_object(st)) {
		kdf_seterr(err, errlen, "stats must be an object");
		return -1;
	}
	if (report_get_uint(st, "n", MEASURE_SAMPLES_MAX, &u, 1, err,
	    errlen) == -1 ||
	    report_get_real(st, "min_ms", &r->st.min, 1, err, errlen) == -1 ||
	    report_get_real(st, "median_ms", &r->st.median, 1, err, errlen) ==
	    -1 ||
	    report_get_real(st, "mean_ms", &r->st.mean, 1, err, errlen) == -1 ||
	    report_get_real(st, "stddev_ms", &r->st.stddev, 1, err, errlen) ==
	    -1 ||
	    report_get_real(st, "error_ms", &r->st.error, 1, err, errlen) ==
	    -1 ||
	    report_get_real(st, "p95_ms", &r->st.p95, 1, err, errlen) == -1 ||
	    report_get_real(st, "p99_ms", &r->st.p99, 0, err, errlen) == -1 ||
	    report_get_real(st, "max_ms", &r->st.max, 1, err, errlen) == -1)
		return -1;
	r->st.n = (size_t)u;
	if (r->status == MEASURE_OK && (r->st.n == 0 || r->st.mean <= 0)) {
		kdf_seterr(err, errlen, "a point with status ok needs samples");
		return -1;
	}
	if (report_get_uint(j, "rounds", MEASURE_SAMPLES_MAX, &u, 0, err,
	    errlen) == -1)
		return -1;
	r->rounds = (size_t)u;
	if (report_get_real(j, "throughput_per_s", &r->throughput, 0, err,
	    errlen) == -1 ||
	    report_get_real(j, "seconds", &r->seconds, 0, err, errlen) == -1 ||
	    report_get_uint(j, "peak_rss_kib", UINT64_C(1) << 40, &u, 0, err,
	    errlen) == -1)
		return -1;
	r->peak_rss_kib = u;
	if ((noise = json_object_get(j, "noise")) != NULL) {
		if (!json_is_object(noise)) {
			kdf_seterr(err, errlen, "noise must be an object");
			return -1;
		}
		if (report_get_real(noise, "load_before", &r->load_before, 0,
		    err, errlen) == -1 ||
		    report_get_real(noise, "load_after", &r->load_after, 0,
		    err, errlen) == -1 ||
		    report_get_real(noise, "steal_pct", &r->steal_pct, 0, err,
		    errlen) == -1)
			return -1;
		if (report_get_uint(noise, "runnable_before", 1 << 20, &u, 0,
		    err, errlen) == -1)
			return -1;
		r->runnable_before = (int)u;
		if (report_get_uint(noise, "runnable_after", 1 << 20, &u, 0,
		    err, errlen) == -1)
			return -1;
		r->runnable_after = (int)u;
		r->noisy = json_is_true(json_object_get(noise, "noisy"));
		r->remeasured = json_is_true(json_object_get(noise,
		    "remeasured"));
	}
	if ((samples = json_object_get(j, "samples_ms")) != NULL) {
		if (!json_is_array(samples) ||
		    json_array_size(samples) > MEASURE_SAMPLES_MAX) {
			kdf_seterr(err, errlen, "samples_ms must be an array "
			    "of at most %d numbers", MEASURE_SAMPLES_MAX);
			return -1;
		}
		if (json_array_size(samples) > 0 && (r->samples = calloc(
		    json_array_size(samples), sizeof(double))) == NULL) {
			kdf_seterr(err, errlen, "out of memory");
			return -1;
		}
		json_array_foreach(samples, i, v) {
			if (!json_is_number(v) ||
			    !isfinite(d = json_number_value(v)) || d < 0) {
				kdf_seterr(err, errlen, "samples_ms[%zu] must "
				    "be a number >= 0", i);
				return -1;
			}
			r->samples[r->nsamples++] = d;
		}
	}
	return 0;
}

int
report_host_from_json(const json_t *host, struct host_info *h,
    int *effective_cpus, char *err, size_t errlen)
{
	json_t		*flags, *f;
	uint64_t	 u;
	size_t		 i;

	memset(h, 0, sizeof(*h));
	if (host == NULL || !json_is_object(host)) {
		kdf_seterr(err, errlen, "host must be an object");
		return -1;
	}
	if (report_get_string(host, "host_id", h->host_id, sizeof(h->host_id),
	    1, err, errlen) == -1 ||
	    report_get_string(host, "fingerprint", h->fingerprint,
	    sizeof(h->fingerprint), 1, err, errlen) == -1 ||
	    report_get_string(host, "cpu_model", h->cpu_model,
	    sizeof(h->cpu_model), 0, err, errlen) == -1 ||
	    report_get_string(host, "kernel", h->kernel, sizeof(h->kernel), 0,
	    err, errlen) == -1 ||
	    report_get_string(host, "hostname", h->hostname,
	    sizeof(h->hostname), 0, err, errlen) == -1 ||
	    report_get_string(host, "libsodium_version", h->libsodium_version,
	    sizeof(h->libsodium_version), 0, err, errlen) == -1 ||
	    report_get_string(host, "libargon2_version", h->libargon2_version,
	    sizeof(h->libargon2_version), 0, err, errlen) == -1 ||
	    report_get_string(host, "notes", h->notes, sizeof(h->notes), 0,
	    err, errlen) == -1)
		return -1;
	if (h->host_id[0] == '\0' || h->fingerprint[0] == '\0') {
		kdf_seterr(err, errlen, "host_id and fingerprint must not be "
		    "empty");
		return -1;
	}
	if ((flags = json_object_get(host, "cpu_flags")) != NULL) {
		if (!json_is_array(flags)) {
			kdf_seterr(err, errlen, "cpu_flags must be an array");
			return -1;
		}
		json_array_foreach(flags, i, f) {
			const char *s = json_string_value(f);

			if (s == NULL)
				continue;
			h->has_sse2 |= strcmp(s, "sse2") == 0;
			h->has_ssse3 |= strcmp(s, "ssse3") == 0;
			h->has_avx2 |= strcmp(s, "avx2") == 0;
			h->has_avx512f |= strcmp(s, "avx512f") == 0;
		}
	}
	if (report_get_uint(host, "online_cpus", 65536, &u, 0, err, errlen) ==
	    -1)
		return -1;
	h->online_cpus = (int)u;
	if (report_get_uint(host, "affinity_cpus", 65536, &u, 0, err,
	    errlen) == -1)
		return -1;
	h->affinity_cpus = (int)u;
	if (report_get_uint(host, "effective_cpus", 65536, &u, 0, err,
	    errlen) == -1)
		return -1;
	*effective_cpus = (int)u;
	if (report_get_uint(host, "cgroup_version", 2, &u, 0, err, errlen) ==
	    -1)
		return -1;
	h->cgroup_version = (int)u;
	if (report_get_real(host, "cpu_quota", &h->cpu_quota, 0, err, errlen) ==
	    -1 ||
	    report_get_uint(host, "mem_total", UINT64_MAX >> 1, &h->mem_total,
	    0, err, errlen) == -1 ||
	    report_get_uint(host, "mem_available", UINT64_MAX >> 1,
	    &h->mem_available, 0, err, errlen) == -1 ||
	    report_get_uint(host, "swap_total", UINT64_MAX >> 1,
	    &h->swap_total, 0, err, errlen) == -1 ||
	    report_get_uint(host, "cgroup_mem_limit", UINT64_MAX >> 1,
	    &h->cg_mem_limit, 0, err, errlen) == -1 ||
	    report_get_uint(host, "cgroup_mem_usage", UINT64_MAX >> 1,
	    &h->cg_mem_usage, 0, err, errlen) == -1)
		return -1;

	return 0;
}

int
report_from_json(const json_t *j, struct report *rep, char *err,
    size_t errlen)
{
	json_t			*budget, *points, *p;
	char			 schema[32], src[32];
	size_t			 i;

	memset(rep, 0, sizeof(*rep));
	if (!json_is_object(j)) {
		kdf_seterr(err, errlen, "a report must be a JSON object");
		return -1;
	}
	/* Another JSON file named by mistake: say what it is not. */
	if (json_object_get(j, "schema") == NULL) {
		kdf_seterr(err, errlen, "not a pwtune report (no \"schema\": "
		    "\"%s\"; pwtune bench --json and pwtune db export "
		    "write them)", REPORT_SCHEMA);
		return -1;
	}
	if (report_get_string(j, "schema", schema, sizeof(schema), 1, err,
	    errlen) == -1)
		return -1;
	if (strcmp(schema, REPORT_SCHEMA) != 0) {
		kdf_seterr(err, errlen, "schema %s is not %s", schema,
		    REPORT_SCHEMA);
		return -1;
	}
	if (report_get_string(j, "created", rep->created, sizeof(rep->created),
	    1, err, errlen) == -1 ||
	    report_get_string(j, "profile", rep->profile, sizeof(rep->profile),
	    1, err, errlen) == -1)
		return -1;

	if (report_host_from_json(json_object_get(j, "host"), &rep->host,
	    &rep->effective_cpus, err, errlen) == -1)
		return -1;

	if ((budget = json_object_get(j, "budget")) != NULL) {
		if (report_get_uint(budget, "memory_bytes", UINT64_MAX >> 1,
		    &rep->mem_budget, 0, err, errlen) == -1 ||
		    report_get_string(budget, "source", src, sizeof(src), 0,
		    err, errlen) == -1)
			return -1;
		rep->budget_source = strcmp(src, "config") == 0 ?
		    HOST_BUDGET_CONFIG : strcmp(src, "cgroup") == 0 ?
		    HOST_BUDGET_CGROUP : HOST_BUDGET_MEMAVAILABLE;
	}

	if ((points = json_object_get(j, "points")) == NULL ||
	    !json_is_array(points)) {
		kdf_seterr(err, errlen, "points must be an array");
		return -1;
	}
	if (json_array_size(points) > REPORT_POINTS_MAX) {
		kdf_seterr(err, errlen, "more than %d points",
		    REPORT_POINTS_MAX);
		return -1;
	}
	if (json_array_size(points) > 0 && (rep->results = calloc(
	    json_array_size(points), sizeof(*rep->results))) == NULL) {
		kdf_seterr(err, errlen, "out of memory");
		return -1;
	}
	json_array_foreach(points, i, p) {
		char	why[200];

		rep->n = i + 1;
		if (report_point_from_json(p, &rep->results[i], why,
		    sizeof(why)) == -1) {
			kdf_seterr(err, errlen, "points[%zu]: %s", i, why);
			report_release(rep);
			return -1;
		}
	}
	return 0;
}
