/*
 * bench/fleet.c: what a group answer costs (scope=group, scope=fleet).
 *
 * pwtuned answers a group on the HTTP thread that asked, from the models
 * it keeps in memory: each host's own answer is a candidate, and every
 * candidate is predicted on every host, so the work grows with n searches
 * and n^2 predictions. This measures fleet_recommend() for groups of 1 to
 * FLEET_HOSTS_MAX hosts against the baseline of one host's own answer
 * (tune_recommend(), what scope=host computes), in the same run, rounds
 * interleaved so that a noisy neighbour hits both alike.
 *
 * The hosts are imaginary (bench/synthetic): host i is 1 + 2i/(N-1) times
 * slower than the first, with 4, 8 or 16 GiB of memory in turn, so the
 * slowest host decides and the smallest memory bounds the candidates.
 * Three queries, as services ask: 250 ms p95 at k = 1; 500 ms p99 at
 * k = 4; 100 ms p95 with the OWASP floor.
 *
 * The last two columns: the same answers with each host's own answer
 * kept (fleet_host.cand, as pwtuned keeps them per model and query), so
 * that only the predictions of the candidates on the hosts are left,
 * and that cost against the full one.
 *
 * Usage: fleet [-r ROUNDS] [-n N,N,...]
 * Defaults: 15 rounds, n = 1,4,16,64,256.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "fleet.h"
#include "synthetic.h"

#define MAX_LIST	16
#define MAX_ROUNDS	101
#define NQUERIES	3

static int
parse_list(const char *s, unsigned *out, size_t *n)
{
	char		*end;
	unsigned long	 v;

	*n = 0;
	while (*s != '\0' && *n < MAX_LIST) {
		v = strtoul(s, &end, 10);
		if (end == s || v < 1 || v > FLEET_HOSTS_MAX)
			return -1;
		out[(*n)++] = (unsigned)v;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != '\0')
			return -1;
	}
	return *n > 0 ? 0 : -1;
}

static void
queries(struct tune_query q[NQUERIES])
{
	size_t	i;

	for (i = 0; i < NQUERIES; i++)
		tune_query_init(&q[i]);
	q[0].target_ms = 250;
	q[1].target_ms = 500;
	q[1].percentile = 99;
	q[1].k = 4;
	q[2].target_ms = 100;
	q[2].floor = TUNE_FLOOR_OWASP;
}

int
main(int argc, char **argv)
{
	static struct model	 models[FLEET_HOSTS_MAX];
	static const uint64_t	 budgets[3] = { 4ULL << 30, 8ULL << 30,
	    16ULL << 30 };
	struct fleet_host	 hosts[FLEET_HOSTS_MAX];
	static char		 names[FLEET_HOSTS_MAX][16];
	struct tune_query	 q[NQUERIES];
	struct fleet_answer	 fa;
	struct tune_answer	 a;
	struct report		 rep;
	unsigned		 ns[MAX_LIST] = { 1, 4, 16, 64, 256 };
	size_t			 nn = 5, i, j, r, rounds = 15;
	static struct tune_answer cands[FLEET_HOSTS_MAX];
	struct tune_query	 aim;
	struct fleet_answer	 kept_fa;
	double			 base[MAX_ROUNDS], group[MAX_LIST][MAX_ROUNDS];
	double			 kept[MAX_LIST][MAX_ROUNDS];
	double			 t0, bmed, gmed, kmed;
	size_t			 k, fa_dec[NQUERIES];
	char			 err[512];
	int			 c, rc;

	while ((c = getopt(argc, argv, "r:n:")) != -1) {
		switch (c) {
		case 'r':
			rounds = strtoul(optarg, NULL, 10);
			if (rounds < 1 || rounds > MAX_ROUNDS) {
				fprintf(stderr, "fleet: -r takes 1 to %d\n",
				    MAX_ROUNDS);
				return 2;
			}
			break;
		case 'n':
			if (parse_list(optarg, ns, &nn) == -1) {
				fprintf(stderr, "fleet: -n takes host counts "
				    "from 1 to %d, comma-separated\n",
				    FLEET_HOSTS_MAX);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: fleet [-r ROUNDS] "
			    "[-n N,N,...]\n");
			return 2;
		}
	}
	for (i = 0; i < FLEET_HOSTS_MAX; i++) {
		synthetic_host(&rep, (int)(i % 2), 1 + 2.0 * (double)i /
		    (FLEET_HOSTS_MAX - 1), budgets[i % 3]);
		if (rep.results == NULL || model_fit(&rep, &models[i], err,
		    sizeof(err)) != 0) {
			fprintf(stderr, "fleet: host %zu: %s\n", i,
			    rep.results == NULL ? "out of memory" : err);
			return 1;
		}
		report_release(&rep);
		snprintf(names[i], sizeof(names[i]), "host-%03zu", i);
	}
	queries(q);

	/* Each round: the baseline, then every group size, all queries. */
	for (r = 0; r < rounds; r++) {
		t0 = bench_now();
		for (j = 0; j < NQUERIES; j++)
			if (tune_recommend(&models[0], &q[j], &a, err,
			    sizeof(err)) != 0) {
				fprintf(stderr, "fleet: baseline: %s\n", err);
				return 1;
			}
		base[r] = (bench_now() - t0) * 1e3 / NQUERIES;
		for (i = 0; i < nn; i++) {
			/* Spread over the whole range of speeds. */
			for (j = 0; j < ns[i]; j++) {
				size_t	h = ns[i] == 1 ? 0 : j *
				    (FLEET_HOSTS_MAX - 1) / (ns[i] - 1);

				hosts[j] = (struct fleet_host){ names[h],
				    &models[h], NULL };
			}
			t0 = bench_now();
			for (j = 0; j < NQUERIES; j++) {
				rc = fleet_recommend(hosts, ns[i], &q[j], 1,
				    &fa, err, sizeof(err));
				if (rc == -1) {
					fprintf(stderr, "fleet: %u hosts: %s\n",
					    ns[i], err);
					return 1;
				}
				fa_dec[j] = fa.decider;
				/* The slowest host decides, or nothing holds. */
				if (rc == 0 && strcmp(hosts[fa.decider].host_id,
				    hosts[ns[i] - 1].host_id) != 0) {
					fprintf(stderr, "fleet: %u hosts: "
					    "decided by %s, not the slowest\n",
					    ns[i], hosts[fa.decider].host_id);
					return 1;
				}
			}
			group[i][r] = (bench_now() - t0) * 1e3 / NQUERIES;
			/*
			 * The same questions with each host's own answer
			 * kept (pwtuned keeps them per model and query):
			 * the predictions of every candidate on every host.
			 */
			kept[i][r] = 0;
			for (j = 0; j < NQUERIES; j++) {
				if (fleet_aim(hosts, ns[i], &q[j], 1, &aim, err,
				    sizeof(err)) == -1)
					return 1;
				for (k = 0; k < ns[i]; k++) {
					hosts[k].cand = NULL;
					if (tune_recommend(hosts[k].m, &aim,
					    &cands[k], err, sizeof(err)) == -1)
						return 1;
				}
				for (k = 0; k < ns[i]; k++)
					hosts[k].cand = &cands[k];
				t0 = bench_now();
				if (fleet_recommend(hosts, ns[i], &q[j], 1,
				    &kept_fa, err, sizeof(err)) == -1 ||
				    kept_fa.decider != fa_dec[j]) {
					fprintf(stderr, "fleet: %u hosts: kept "
					    "answers differ\n", ns[i]);
					return 1;
				}
				kept[i][r] += bench_now() - t0;
			}
			kept[i][r] = kept[i][r] * 1e3 / NQUERIES;
		}
	}

	bmed = bench_median(base, rounds);
	printf("group answers: fleet_recommend over n hosts, median of %zu "
	    "rounds x %d queries\n\n", rounds, NQUERIES);
	printf("%6s %14s %12s %14s %14s %10s\n", "hosts", "ms per answer",
	    "x one host", "answers/s/core", "ms, own kept", "kept/full");
	printf("%6s %14.3f %12s %14.0f   (baseline: tune_recommend, one "
	    "host)\n", "own", bmed, "1.00", 1e3 / bmed);
	for (i = 0; i < nn; i++) {
		gmed = bench_median(group[i], rounds);
		kmed = bench_median(kept[i], rounds);
		printf("%6u %14.3f %12.2f %14.0f %14.3f %10.3f\n", ns[i], gmed,
		    gmed / bmed, 1e3 / gmed, kmed, kmed / gmed);
	}
	return 0;
}
