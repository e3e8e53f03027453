/*
 * engine/fleet.c: answers that hold on every host of a group, and stack
 * corrections (fleet.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "stats.h"

/* Predict candidate a on model m: 0 with *ms and *p50, -1 when m cannot. */
static int
fleet_predict(const struct model *m, const struct tune_answer *a,
    double *ms, double *p50)
{
	const struct model_curve	*c;
	struct model_prediction		 pr;

	if ((c = model_curve_find(m, a->backend, a->variant, a->p)) == NULL)
		return -1;
	/* The k hashes at once must fit the host's memory. */
	if (m->mem_budget > 0 && (uint64_t)a->m_kib * a->k >
	    m->mem_budget / 1024)
		return -1;
	model_predict(m, c, a->m_kib, a->t, a->k, a->percentile, &pr);
	*ms = pr.ms;
	*p50 = pr.p50_ms;
	return 0;
}

/* Is a stronger than b for the objective? */
static int
fleet_stronger(const struct tune_answer *a, const struct tune_answer *b,
    enum tune_objective obj)
{
	double	ca = (double)a->m_kib * (3.0 * a->t - 1);
	double	cb = (double)b->m_kib * (3.0 * b->t - 1);

	if (obj == TUNE_ATTACKER_COST && ca != cb)
		return ca > cb;
	if (a->m_kib != b->m_kib)
		return a->m_kib > b->m_kib;
	return a->t > b->t;
}

/* A candidate in the order they are tried: strongest first. */
struct fleet_rank {
	const struct tune_answer	*a;
	size_t				 i;	/* among the hosts */
	enum tune_objective		 objective;
};

static int
fleet_rank_cmp(const void *x, const void *y)
{
	const struct fleet_rank	*a = x, *b = y;

	if (fleet_stronger(a->a, b->a, a->objective))
		return -1;
	if (fleet_stronger(b->a, a->a, a->objective))
		return 1;
	return a->i < b->i ? -1 : a->i > b->i;	/* equals: the first first */
}

/* The jj-th host to try: first, then the others in order. */
static size_t
fleet_nth(size_t jj, size_t first)
{
	if (jj == 0)
		return first;
	return jj <= first ? jj - 1 : jj;
}

int
fleet_aim(const struct fleet_host *hosts, size_t n,
    const struct tune_query *q, double factor, struct tune_query *aim,
    char *err, size_t errlen)
{
	size_t	i;

	*aim = *q;
	if (!(factor > 0)) {
		snprintf(err, errlen, "a stack correction must be positive");
		return -1;
	}
	/* The stack takes factor times the model: aim that much lower. */
	aim->target_ms = q->target_ms / factor;
	if (aim->target_ms < TUNE_TARGET_MIN_MS)
		aim->target_ms = TUNE_TARGET_MIN_MS;
	/* Memory every host has: each candidate must fit the smallest. */
	for (i = 0; i < n; i++) {
		uint64_t kib = hosts[i].m->mem_budget / 1024;

		if (kib > 0 && (aim->memory_max_kib == 0 ||
		    kib < aim->memory_max_kib))
			aim->memory_max_kib = kib;
	}
	return 0;
}

int
fleet_recommend(const struct fleet_host *hosts, size_t n,
    const struct tune_query *q, double factor, struct fleet_answer *out,
    char *err, size_t errlen)
{
	struct tune_query	 aim;
	struct tune_answer	*cand;
	struct fleet_rank	*rank;
	double			*headroom, ms, p50, worst, best_worst = -1;
	size_t			 i, j, jj, k, decider, chosen = n, refuser = 0;
	int			 any_holds = 0;
	char			 why[512];

	memset(out, 0, sizeof(*out));
	if (n == 0 || n > FLEET_HOSTS_MAX) {
		snprintf(err, errlen, "%s", !(factor > 0) ? "a stack correction "
		    "must be positive" : n == 0 ? "no host with a fresh run "
		    "to answer for" : "too many hosts");
		return -1;
	}
	if (fleet_aim(hosts, n, q, factor, &aim, err, errlen) == -1)
		return -1;
	cand = calloc(n, sizeof(*cand));
	headroom = calloc(n, sizeof(*headroom));
	rank = calloc(n, sizeof(*rank));
	if (cand == NULL || headroom == NULL || rank == NULL) {
		free(cand);
		free(headroom);
		free(rank);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (hosts[i].cand != NULL)
			cand[i] = *hosts[i].cand;
		else if (tune_recommend(hosts[i].m, &aim, &cand[i], why,
		    sizeof(why)) == -1) {
			snprintf(err, errlen, "host %s: %s", hosts[i].host_id,
			    why);
			free(cand);
			free(headroom);
			free(rank);
			return -1;
		}
		headroom[i] = cand[i].headroom;
	}
	/*
	 * The strongest candidate that holds everywhere: candidates tried
	 * strongest first, each against the host that last turned one down
	 * first, so that most fail on their first prediction. Without one,
	 * the candidate whose slowest host is fastest (among equals, the
	 * first), a candidate left as soon as it cannot be faster.
	 */
	for (i = 0; i < n; i++) {
		rank[i].a = &cand[i];
		rank[i].i = i;
		rank[i].objective = q->objective;
	}
	qsort(rank, n, sizeof(*rank), fleet_rank_cmp);
	for (k = 0; k < n && !any_holds; k++) {
		i = rank[k].i;
		if (!cand[i].met)
			continue;
		for (jj = 0; jj < n; jj++) {
			j = fleet_nth(jj, refuser);
			if (fleet_predict(hosts[j].m, &cand[i], &ms, &p50) ==
			    -1 || ms * (1 + headroom[j]) > aim.target_ms) {
				refuser = j;
				break;
			}
		}
		if (jj == n) {
			chosen = i;
			any_holds = 1;
		}
	}
	for (i = 0; i < n && !any_holds; i++) {
		worst = 0;
		for (jj = 0; jj < n; jj++) {
			j = fleet_nth(jj, refuser);
			if (fleet_predict(hosts[j].m, &cand[i], &ms, &p50) == -1) {
				worst = -1;
				break;
			}
			if (ms > worst)
				worst = ms;
			if (best_worst >= 0 && worst >= best_worst)
				break;	/* cannot be the fastest */
		}
		if (worst < 0)
			continue;	/* cannot run on some host */
		if (best_worst < 0 || worst < best_worst) {
			chosen = i;
			best_worst = worst;
		}
	}
	if (chosen == n) {
		snprintf(err, errlen, "no host's answer can run on every host "
		    "(their measured parallelism or memory differ): ask with "
		    "parallelism= and memory_max=");
		free(cand);
		free(headroom);
		free(rank);
		return -1;
	}
	out->a = cand[chosen];
	out->holds = any_holds;
	/* The chosen host's answer says if its model is poor; the others'
	   say it here, each predicted time standing on its host's model. */
	for (j = 0; j < n; j++)
		if (j != chosen && hosts[j].m->quality == MODEL_QUALITY_POOR)
			tune_note(&out->a, "host %s's model is poor: %s.",
			    hosts[j].host_id, hosts[j].m->quality_why);
	decider = chosen;
	worst = -1;
	for (j = 0; j < n; j++) {
		fleet_predict(hosts[j].m, &cand[chosen], &ms, &p50);
		ms *= factor;
		p50 *= factor;
		out->predicted_ms[j] = ms;
		if (ms > worst) {
			worst = ms;
			decider = j;
			out->a.predicted_ms = ms;
			out->a.predicted_p50_ms = p50;
			out->a.capacity_per_s = p50 > 0 ? 1000.0 * out->a.k /
			    p50 : 0;
			out->a.headroom = headroom[j];
		}
	}
	out->a.target_ms = q->target_ms;
	out->decider = decider;
	out->a.met = any_holds;
	/* Said of the slowest host's time. */
	tune_note_t_max(&out->a);
	free(cand);
	free(headroom);
	free(rank);
	if (!any_holds) {
		snprintf(err, errlen, "no parameters meet %.0f ms at p%d on "
		    "every host: on host %s the closest answer is predicted to "
		    "take %.1f ms", q->target_ms, q->percentile,
		    hosts[decider].host_id, worst);
		return 1;
	}
	return 0;
}

int
fleet_stack_factor(double *ratios, size_t n, double *factor)
{
	struct stats	st;

	if (n < FLEET_STACK_MIN_OBS)
		return -1;
	stats_compute(ratios, n, &st);
	*factor = st.median;
	if (*factor < FLEET_FACTOR_MIN)
		*factor = FLEET_FACTOR_MIN;
	if (*factor > FLEET_FACTOR_MAX)
		*factor = FLEET_FACTOR_MAX;
	return 0;
}

const struct model_curve *
fleet_base_curve(const struct model *m, enum kdf_alg variant, uint32_t p)
{
	const struct model_curve	*c;

	if ((c = model_curve_find(m, KDF_BACKEND_LIBSODIUM, variant, p)) ==
	    NULL)
		c = model_curve_find(m, KDF_BACKEND_LIBARGON2, variant, p);
	return c;
}

int
fleet_predict_p50(const struct model *m, enum kdf_alg variant,
    uint32_t m_kib, uint32_t t, uint32_t p, uint32_t k, double *ms)
{
	const struct model_curve	*c;
	struct model_prediction		 pr;

	if ((c = fleet_base_curve(m, variant, p)) == NULL)
		return -1;
	model_predict(m, c, m_kib, t, k, 50, &pr);
	*ms = pr.p50_ms;
	return 0;
}
