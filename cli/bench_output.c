/*
 * cli/bench_output.c: how `pwtune bench` shows its results: one table
 * like BenchmarkDotNet's (aligned text, or GitHub markdown) where the
 * backends compared sit row by row, each point's baseline first; a Ratio
 * column that holds numbers only; the noisy points as warnings under the
 * table, and the points that were not measured and why; and CSV.
 */
#include <sys/stat.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "units.h"

#define COLS	11


/*
 * src into dst (len bytes) with control characters and DEL as '?': a
 * terminal is not a place for a file's escape sequences.
 */
static void
printable(char *dst, const char *src, size_t len)
{
	size_t	i;

	for (i = 0; i + 1 < len && src[i] != '\0'; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ?
		    '?' : src[i];
	if (len > 0)
		dst[i] = '\0';
}

static const char *const headers[COLS] = {
	"Method", "MemorySize", "Iterations", "Parallelism", "Concurrency",
	"Mean", "Error", "StdDev", "Median", "P95", "Ratio"
};

static void
fmt_ms(char *buf, size_t len, double ms)
{
	if (ms >= 100)
		snprintf(buf, len, "%.1f ms", ms);
	else if (ms >= 10)
		snprintf(buf, len, "%.2f ms", ms);
	else
		snprintf(buf, len, "%.3f ms", ms);
}

static void
method_name(const struct measure_result *r, char *buf, size_t len)
{
	const struct kdf_params	*kp = &r->pt.kp;

	snprintf(buf, len, "%s.%s",
	    kdf_backend_name(kdf_backend_resolve(kp->backend, kp->alg)),
	    kdf_alg_title(kp->alg));
}

/*
 * The baseline of r: the same algorithm and costs, measured OK with the
 * baseline backend. NULL when there is none.
 */
static const struct measure_result *
find_baseline(const struct report *rep, const struct measure_result *r,
    enum kdf_backend baseline)
{
	const struct kdf_params	*a = &r->pt.kp, *b;
	size_t			 i;

	for (i = 0; i < rep->n; i++) {
		b = &rep->results[i].pt.kp;
		if (rep->results[i].status != MEASURE_OK ||
		    kdf_backend_resolve(b->backend, b->alg) != baseline ||
		    b->alg != a->alg || b->m_kib != a->m_kib || b->t != a->t ||
		    b->p != a->p || b->cost != a->cost ||
		    rep->results[i].pt.k != r->pt.k)
			continue;
		return &rep->results[i];
	}
	return NULL;
}

static void
row_cells(const struct report *rep, const struct measure_result *r,
    enum kdf_backend baseline, char cells[COLS][48])
{
	const struct kdf_params		*kp = &r->pt.kp;
	const struct measure_result	*base;

	method_name(r, cells[0], sizeof(cells[0]));
	if (kp->alg == KDF_ALG_BCRYPT) {
		snprintf(cells[1], sizeof(cells[1]), "4 KiB");
		snprintf(cells[2], sizeof(cells[2]), "2^%u", (unsigned)kp->cost);
		snprintf(cells[3], sizeof(cells[3]), "1");
	} else {
		units_format_kib(kp->m_kib, cells[1], sizeof(cells[1]));
		snprintf(cells[2], sizeof(cells[2]), "%u", (unsigned)kp->t);
		snprintf(cells[3], sizeof(cells[3]), "%u", (unsigned)kp->p);
	}
	snprintf(cells[4], sizeof(cells[4]), "%u", (unsigned)r->pt.k);
	if (r->status != MEASURE_OK) {
		int i;

		for (i = 5; i < COLS; i++)
			snprintf(cells[i], sizeof(cells[i]), "NA");
		return;
	}
	fmt_ms(cells[5], sizeof(cells[5]), r->st.mean);
	fmt_ms(cells[6], sizeof(cells[6]), r->st.error);
	fmt_ms(cells[7], sizeof(cells[7]), r->st.stddev);
	fmt_ms(cells[8], sizeof(cells[8]), r->st.median);
	fmt_ms(cells[9], sizeof(cells[9]), r->st.p95);
	/* A number, or NA: noise is said under the table, not in here. */
	base = find_baseline(rep, r, baseline);
	if (base != NULL && base->st.mean > 0)
		snprintf(cells[10], sizeof(cells[10]), "%.2f",
		    r->st.mean / base->st.mean);
	else
		snprintf(cells[10], sizeof(cells[10]), "NA");
}

static int
backend_rank(const struct measure_result *r, enum kdf_backend baseline)
{
	enum kdf_backend	b = kdf_backend_resolve(r->pt.kp.backend,
				    r->pt.kp.alg);

	if (b == baseline)
		return 0;
	return b == KDF_BACKEND_LIBSODIUM ? 1 : b == KDF_BACKEND_LIBARGON2 ?
	    2 : 3;
}

/*
 * The order of the rows: by the point (algorithm, m, t, p, k), then the
 * baseline's row first and the other backends under it; the order of the
 * run where all that is equal. Insertion sort: REPORT_POINTS_MAX rows.
 */
static int
row_before(const struct report *rep, size_t i, size_t j,
    enum kdf_backend baseline)
{
	const struct measure_result	*a = &rep->results[i];
	const struct measure_result	*b = &rep->results[j];
	const struct kdf_params		*x = &a->pt.kp, *y = &b->pt.kp;

	if (x->alg != y->alg)
		return x->alg < y->alg;
	if (x->m_kib != y->m_kib)
		return x->m_kib < y->m_kib;
	if (x->cost != y->cost)
		return x->cost < y->cost;
	if (x->t != y->t)
		return x->t < y->t;
	if (x->p != y->p)
		return x->p < y->p;
	if (a->pt.k != b->pt.k)
		return a->pt.k < b->pt.k;
	if (backend_rank(a, baseline) != backend_rank(b, baseline))
		return backend_rank(a, baseline) < backend_rank(b, baseline);
	return i < j;
}

/* Print the one table, aligned or as markdown. */
static void
print_table(FILE *fp, const struct report *rep, enum kdf_backend baseline,
    int markdown)
{
	static char	cells[REPORT_POINTS_MAX][COLS][48];
	static size_t	order[REPORT_POINTS_MAX];
	size_t		width[COLS], rows, i, j, c, k;

	rows = rep->n < REPORT_POINTS_MAX ? rep->n : REPORT_POINTS_MAX;
	for (i = 0; i < rows; i++) {
		for (j = i; j > 0 && row_before(rep, i, order[j - 1],
		    baseline); j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (c = 0; c < COLS; c++)
		width[c] = strlen(headers[c]);
	for (i = 0; i < rows; i++) {
		row_cells(rep, &rep->results[order[i]], baseline, cells[i]);
		for (c = 0; c < COLS; c++)
			if (strlen(cells[i][c]) > width[c])
				width[c] = strlen(cells[i][c]);
	}
	if (rows == 0)
		return;
	fputc('\n', fp);
	/* Text: columns two spaces apart, nothing after the last one. */
	for (c = 0; c < COLS; c++) {
		if (markdown)
			fprintf(fp, "| %-*s ", (int)width[c], headers[c]);
		else
			fprintf(fp, c >= 5 ? "%s%*s" : "%s%-*s",
			    c > 0 ? "  " : "", (int)width[c], headers[c]);
	}
	fputs(markdown ? "|\n" : "\n", fp);
	for (c = 0; c < COLS; c++) {
		fputs(markdown ? "|" : c > 0 ? "  " : "", fp);
		for (k = 0; k < width[c] + (markdown ? 1 : 0); k++)
			fputc('-', fp);
		/* Numbers align right in markdown, as BenchmarkDotNet does. */
		if (markdown)
			fputc(c >= 5 ? ':' : '-', fp);
	}
	fputs(markdown ? "|\n" : "\n", fp);
	for (i = 0; i < rows; i++) {
		for (c = 0; c < COLS; c++) {
			if (markdown)
				fprintf(fp, c >= 5 ? "| %*s " : "| %-*s ",
				    (int)width[c], cells[i][c]);
			else
				fprintf(fp, c >= 5 ? "%s%*s" : "%s%-*s",
				    c > 0 ? "  " : "", (int)width[c],
				    cells[i][c]);
		}
		fputs(markdown ? "|\n" : "\n", fp);
	}
}

/* A point as the warnings name it: libsodium.Argon2id m=64 MiB t=3 ... */
static void
point_name(const struct measure_result *r, char *buf, size_t len)
{
	char	name[64], m[32];

	method_name(r, name, sizeof(name));
	units_format_kib(r->pt.kp.m_kib, m, sizeof(m));
	snprintf(buf, len, "%s m=%s t=%u p=%u k=%u", name, m,
	    (unsigned)r->pt.kp.t, (unsigned)r->pt.kp.p, (unsigned)r->pt.k);
}

void
bench_print(FILE *fp, const struct report *rep, enum kdf_backend baseline,
    int markdown)
{
	const struct host_info	*h = &rep->host;
	char			 budget[32], name[128], cpu[sizeof(h->cpu_model)],
				 sv[sizeof(h->libsodium_version)],
				 av[sizeof(h->libargon2_version)],
				 why[sizeof(rep->results[0].reason)];
	size_t			 i, noisy = 0, notrun = 0;

	/* A saved run's strings (--show) may hold anything: shown safe. */
	printable(cpu, h->cpu_model, sizeof(cpu));
	printable(sv, h->libsodium_version, sizeof(sv));
	printable(av, h->libargon2_version, sizeof(av));
	units_format_kib(rep->mem_budget >> 10, budget, sizeof(budget));
	fprintf(fp, "Host: %s, %d CPUs online, %d effective; "
	    "memory budget %s (%s)\n", cpu[0] ? cpu : "unknown CPU",
	    h->online_cpus, rep->effective_cpus, budget,
	    cli_budget_source_text(rep->budget_source));
	fprintf(fp, "libsodium %s, libargon2 %s; Error is the 99.9 %% "
	    "confidence half-width; Ratio is Mean against %s\n", sv, av,
	    kdf_backend_name(baseline));
	print_table(fp, rep, baseline, markdown);

	/* As BenchmarkDotNet: what to doubt, under the table. */
	for (i = 0; i < rep->n; i++) {
		const struct measure_result *r = &rep->results[i];

		if (r->status != MEASURE_OK || !r->noisy)
			continue;
		if (noisy++ == 0)
			fputs("\nWarnings:\n", fp);
		point_name(r, name, sizeof(name));
		fprintf(fp, "  Noisy: %s: StdDev %.0f %% of Mean, load %.2f "
		    "before and %.2f after, steal %.1f %%%s\n", name,
		    r->st.mean > 0 ? 100 * r->st.stddev / r->st.mean : 0,
		    r->load_before, r->load_after, r->steal_pct,
		    r->remeasured ? " (measured again)" : "");
	}
	for (i = 0; i < rep->n; i++) {
		const struct measure_result *r = &rep->results[i];

		if (r->status == MEASURE_OK)
			continue;
		if (notrun++ == 0)
			fputs("\nNot measured:\n", fp);
		point_name(r, name, sizeof(name));
		printable(why, r->reason, sizeof(why));
		fprintf(fp, "  %s: %s: %s\n", name,
		    measure_status_name(r->status), why);
	}
	if (noisy > 0)
		fprintf(fp, "\n%zu point%s flagged noisy: the host was busy or "
		    "the spread was wide (other processes count, a running "
		    "pwtuned's runs and checks among them).\n", noisy,
		    noisy == 1 ? " was" : "s were");
}

/*
 * A new file beside path (mkstemp: created, never an existing name or
 * what a link points at), renamed over path once written: a reader never
 * sees half a file, and nothing else is followed or truncated.
 */
static FILE *
bench_beside(const char *path, char *tmp, size_t tmplen, char *err,
    size_t errlen)
{
	FILE	*fp;
	int	 fd;

	if ((size_t)snprintf(tmp, tmplen, "%s.XXXXXX", path) >= tmplen) {
		snprintf(err, errlen, "%s: name too long", path);
		return NULL;
	}
	if ((fd = mkstemp(tmp)) == -1) {
		snprintf(err, errlen, "%s: %m", path);
		return NULL;
	}
	fchmod(fd, 0644);
	if ((fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "%s: %m", path);
		close(fd);
		unlink(tmp);
	}
	return fp;
}

static int
bench_done(FILE *fp, const char *tmp, const char *path, char *err,
    size_t errlen)
{
	if (fclose(fp) != 0 || rename(tmp, path) != 0) {
		snprintf(err, errlen, "%s: %m", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int
bench_write_csv(const char *path, const struct report *rep, char *err,
    size_t errlen)
{
	FILE	*fp;
	char	 tmp[4096];
	size_t	 i;

	if ((fp = bench_beside(path, tmp, sizeof(tmp), err, errlen)) == NULL)
		return -1;
	fputs(BENCH_CSV_HEADER "\n", fp);
	for (i = 0; i < rep->n; i++) {
		const struct measure_result	*r = &rep->results[i];
		const struct kdf_params		*kp = &r->pt.kp;
		char				 reason[256];
		size_t				 k;

		/* The reason is free text: keep it one CSV field. */
		snprintf(reason, sizeof(reason), "%s", r->reason);
		for (k = 0; reason[k] != '\0'; k++)
			if (reason[k] == '"' || reason[k] == '\n')
				reason[k] = '\'';
		fprintf(fp, "%s,%s,%u,%u,%u,%u,%u,%u,%s,%zu,%.4f,%.4f,%.4f,"
		    "%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%llu,%d,\"%s\"\n",
		    kdf_backend_name(kdf_backend_resolve(kp->backend, kp->alg)),
		    kdf_alg_name(kp->alg), (unsigned)kp->version,
		    (unsigned)kp->m_kib, (unsigned)kp->t, (unsigned)kp->p,
		    (unsigned)r->pt.k, (unsigned)kp->cost,
		    measure_status_name(r->status), r->st.n, r->st.min,
		    r->st.median, r->st.mean, r->st.stddev, r->st.error,
		    r->st.p95, r->st.p99, r->st.max, r->throughput,
		    (unsigned long long)r->peak_rss_kib, r->noisy, reason);
	}
	return bench_done(fp, tmp, path, err, errlen);
}

int
bench_write_json(const char *path, const struct report *rep, char *err,
    size_t errlen)
{
	json_t	*j = report_to_json(rep, 1);
	char	 tmp[4096];
	FILE	*fp;
	int	 rc;

	if (j == NULL) {
		snprintf(err, errlen, "cannot build the JSON report");
		return -1;
	}
	if ((fp = bench_beside(path, tmp, sizeof(tmp), err, errlen)) == NULL) {
		json_decref(j);
		return -1;
	}
	rc = json_dumpf(j, fp, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(j);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot write the JSON", path);
		fclose(fp);
		unlink(tmp);
		return -1;
	}
	return bench_done(fp, tmp, path, err, errlen);
}
