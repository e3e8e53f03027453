/*
 * engine/report: a benchmark run as JSON, the format `pwtune bench --json`
 * writes and `pwtune recommend --from`, `pwtune db export` and
 * `pwtune db import` read. docs/FORMATS.md describes every field.
 *
 *   {
 *     "schema": "pwtune-bench/1",
 *     "pwtune_version": "0.1.0",
 *     "created": "2026-11-30T02:10:00Z",
 *     "profile": "quick",
 *     "host": { "host_id": ..., "fingerprint": ..., ... },
 *     "budget": { "memory_bytes": ..., "source": "memavailable" },
 *     "points": [ { "backend": ..., "variant": ..., "m_kib": ..., ...,
 *                   "stats": { ... }, "samples_ms": [ ... ] } ]
 *   }
 */
#ifndef PWTUNE_REPORT_H
#define PWTUNE_REPORT_H

#include <stddef.h>

#include <jansson.h>

#include "host.h"
#include "measure.h"

#define REPORT_SCHEMA		"pwtune-bench/1"
#define REPORT_POINTS_MAX	4096

struct report {
	char			 created[32];	/* ISO 8601, UTC */
	char			 profile[64];
	struct host_info	 host;
	int			 effective_cpus;
	uint64_t		 mem_budget;	/* bytes */
	enum host_budget_source	 budget_source;
	struct measure_result	*results;	/* owned */
	size_t			 n;
	/*
	 * merged: the first nown points are the run's own, those after
	 * them the curves other runs measured (a store's model:
	 * db_model_report); 0: every point is the run's.
	 */
	int			 merged;
	size_t			 nown;
};

/* report.c */

/* Set created to now, in UTC. */
void	 report_stamp(struct report *rep);

/*
 * The JSON of rep (a new reference; the caller releases it with
 * json_decref). with_samples: include every point's raw samples.
 */
json_t	*report_to_json(const struct report *rep, int with_samples);

/* One point alone, as it stands in "points". */
json_t	*report_point_to_json(const struct measure_result *r,
	    int with_samples);

/* The "host" object of a report. */
json_t	*report_host_to_json(const struct host_info *h, int effective_cpus);

/* Read a "host" object; returns 0, or -1 with the reason in err. */
int	 report_host_from_json(const json_t *j, struct host_info *h,
	    int *effective_cpus, char *err, size_t errlen);

/*
 * Read one point into *r (r->samples allocated; release with
 * measure_result_release). Returns 0, or -1 with the reason in err.
 */
int	 report_point_from_json(const json_t *j, struct measure_result *r,
	    char *err, size_t errlen);

/*
 * Read a report from JSON into *rep (released with report_release).
 * Strict: the schema must match, every point must name a known backend
 * and variant with parameters in range, and statistics must be finite and
 * non-negative. Returns 0, or -1 with the reason (naming the field) in err.
 */
int	 report_from_json(const json_t *j, struct report *rep, char *err,
	    size_t errlen);

/* Free what rep owns. */
void	 report_release(struct report *rep);

#endif /* PWTUNE_REPORT_H */
