/*
 * engine/fleet: answers that hold on many hosts, and answers corrected
 * for what a service's own runtime measured.
 *
 * fleet_recommend() takes the model of every host of a group (or of the
 * fleet) and a query. Each host's own answer is a candidate; a candidate
 * holds on a host when that host's model predicts it within the target
 * with the host's own headroom, and its k hashes fit the host's memory
 * budget. The answer is the strongest candidate that holds on every host
 * (by the query's objective); the deciding host is the one on which it is
 * slowest. Candidates are searched within the smallest memory budget of
 * the hosts, so that each can run everywhere. Parameters tuned on the biggest host and then run on the
 * smallest are the failure this prevents.
 *
 * A stack correction is the median of observed / predicted over a stack's
 * observations ("php-8.2-libargon2" may be slower than the C library the
 * model measured); a corrected answer is searched under target / factor
 * and its predictions are scaled by factor.
 */
#ifndef PWTUNE_FLEET_H
#define PWTUNE_FLEET_H

#include <stddef.h>

#include "tune.h"

#define FLEET_HOSTS_MAX		256
#define FLEET_STACK_MIN_OBS	5	/* observations before a correction */
#define FLEET_FACTOR_MIN	0.25	/* corrections are kept in range */
#define FLEET_FACTOR_MAX	8.0

struct fleet_host {
	const char		*host_id;
	const struct model	*m;
	/*
	 * The host's own answer to the aim (fleet_aim()) when the caller
	 * kept it from an earlier question, or NULL: searched here.
	 */
	const struct tune_answer *cand;
};

struct fleet_answer {
	struct tune_answer	a;	/* predictions: on the deciding host */
	size_t			decider;	/* index into the hosts */
	int			holds;	/* 1: within the target everywhere */
	double			predicted_ms[FLEET_HOSTS_MAX];	/* per host */
};

/*
 * Recommend for hosts[0..n), for a stack that runs factor times what the
 * models predict (1: the measured libraries themselves). Returns 0 (holds
 * on every host), 1 (no candidate holds everywhere: the answer is the one
 * whose slowest host is fastest, holds = 0, err says so), or -1 (err
 * names the host or the query that cannot be answered). Predictions in
 * out are the stack's (scaled by factor).
 */
int	 fleet_recommend(const struct fleet_host *hosts, size_t n,
	    const struct tune_query *q, double factor, struct fleet_answer *out,
	    char *err, size_t errlen);

/*
 * The query each host's own answer is searched with: q aimed at
 * target / factor, within the smallest memory budget of hosts[0..n). A
 * candidate kept for the same aim (fleet_host.cand) is that search's
 * answer. 0, or -1 with err (factor not positive).
 */
int	 fleet_aim(const struct fleet_host *hosts, size_t n,
	    const struct tune_query *q, double factor, struct tune_query *aim,
	    char *err, size_t errlen);

/*
 * The correction of a stack from n ratios observed / predicted: 0 with
 * *factor (median, kept within FLEET_FACTOR_MIN..MAX), -1 when there are
 * fewer than FLEET_STACK_MIN_OBS. ratios is reordered.
 */
int	 fleet_stack_factor(double *ratios, size_t n, double *factor);

/*
 * The curve of m a stack's observations are set against (its factor's
 * basis): libsodium's for variant and p when measured, else libargon2's;
 * NULL when neither.
 */
const struct model_curve *fleet_base_curve(const struct model *m,
	    enum kdf_alg variant, uint32_t p);

/*
 * The p50 m predicts for one hash of (variant, m_kib, t, p) at k at once,
 * on the curve answers use (libsodium when measured, else libargon2): 0
 * with *ms, -1 when m has no curve for variant and p.
 */
int	 fleet_predict_p50(const struct model *m, enum kdf_alg variant,
	    uint32_t m_kib, uint32_t t, uint32_t p, uint32_t k, double *ms);

#endif /* PWTUNE_FLEET_H */
