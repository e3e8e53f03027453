/*
 * engine/host.c: probing the host's CPU, memory and cgroup limits (see
 * host.h for what is read and how limits combine).
 */
#include <sys/utsname.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "host.h"
#include "kdf_impl.h"

#ifndef PWTUNE_LIBARGON2_VERSION
#define PWTUNE_LIBARGON2_VERSION "unknown"
#endif

/* cgroup v1 writes this (2^63 rounded down to a page) for "no limit". */
#define CG_V1_UNLIMITED	UINT64_C(0x7FFFFFFFFFFFF000)
#define PATH_LEN	4096
#define CGPATH_LEN	1024	/* a cgroup path from /proc/self/cgroup */

static void
host_note(struct host_info *h, const char *fmt, ...)
{
	size_t	len = strlen(h->notes);
	va_list	ap;

	if (len + 3 >= sizeof(h->notes))
		return;
	if (len > 0) {
		h->notes[len++] = ';';
		h->notes[len++] = ' ';
	}
	va_start(ap, fmt);
	vsnprintf(h->notes + len, sizeof(h->notes) - len, fmt, ap);
	va_end(ap);
}

/* Read a small file into buf (NUL-terminated, trailing newline removed). */
static int
host_read(const char *root, const char *path, char *buf, size_t buflen)
{
	char	 full[PATH_LEN];
	FILE	*fp;
	size_t	 n;

	snprintf(full, sizeof(full), "%s%s", root, path);
	if ((fp = fopen(full, "r")) == NULL)
		return -1;
	n = fread(buf, 1, buflen - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/*
 * Parse a cgroup limit: a decimal number of bytes (or microseconds), "max"
 * or -1 for none. Returns 1 with *v set, 0 for no limit, -1 for garbage.
 */
static int
host_parse_limit(const char *s, uint64_t *v)
{
	char			*end;
	unsigned long long	 n;

	while (isspace((unsigned char)*s))
		s++;
	if (strcmp(s, "max") == 0 || strcmp(s, "-1") == 0)
		return 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno != 0 || *end != '\0')
		return -1;
	if (n >= CG_V1_UNLIMITED)
		return 0;
	*v = n;
	return 1;
}

/* Keep the smaller of *best and the limit in file dir/name. */
static void
host_min_limit(struct host_info *h, const char *root, const char *dir,
    const char *name, uint64_t *best)
{
	char		path[PATH_LEN], buf[128];
	uint64_t	v;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (host_read(root, path, buf, sizeof(buf)) == -1)
		return;
	switch (host_parse_limit(buf, &v)) {
	case 1:
		if (*best == 0 || v < *best)
			*best = v;
		break;
	case -1:
		host_note(h, "%s: unreadable value, ignored", path);
		break;
	}
}

/*
 * Walk from base + cgpath up to base, calling fn on each directory that
 * exists. The cgroup path of /proc/self/cgroup begins with "/".
 */
static void
host_walk(struct host_info *h, const char *root, const char *base,
    const char *cgpath, void (*fn)(struct host_info *, const char *,
    const char *, void *), void *arg)
{
	char	dir[PATH_LEN], full[PATH_LEN], *slash;

	if (strstr(cgpath, "..") != NULL)
		return;
	snprintf(dir, sizeof(dir), "%s%s", base,
	    strcmp(cgpath, "/") == 0 ? "" : cgpath);
	for (;;) {
		snprintf(full, sizeof(full), "%s%s", root, dir);
		if (access(full, F_OK) == 0)
			fn(h, root, dir, arg);
		if (strlen(dir) <= strlen(base))
			break;
		if ((slash = strrchr(dir, '/')) == NULL)
			break;
		*slash = '\0';
	}
}

static void
host_v2_dir(struct host_info *h, const char *root, const char *dir, void *arg)
{
	char		path[PATH_LEN], buf[128], *sp;
	uint64_t	quota, period;
	double		cores;

	(void)arg;
	host_min_limit(h, root, dir, "memory.max", &h->cg_mem_limit);
	host_min_limit(h, root, dir, "memory.high", &h->cg_mem_limit);
	snprintf(path, sizeof(path), "%s/cpu.max", dir);
	if (host_read(root, path, buf, sizeof(buf)) == -1)
		return;
	if ((sp = strchr(buf, ' ')) == NULL) {
		host_note(h, "%s: unreadable value, ignored", path);
		return;
	}
	*sp++ = '\0';
	if (host_parse_limit(buf, &quota) != 1)
		return;
	if (host_parse_limit(sp, &period) != 1 || period == 0) {
		host_note(h, "%s: unreadable period, ignored", path);
		return;
	}
	cores = (double)quota / (double)period;
	if (h->cpu_quota == 0 || cores < h->cpu_quota)
		h->cpu_quota = cores;
}

static void
host_v1_mem_dir(struct host_info *h, const char *root, const char *dir,
    void *arg)
{
	(void)arg;
	host_min_limit(h, root, dir, "memory.limit_in_bytes", &h->cg_mem_limit);
}

static void
host_v1_cpu_dir(struct host_info *h, const char *root, const char *dir,
    void *arg)
{
	char		path[PATH_LEN], buf[128];
	uint64_t	quota = 0, period = 0;
	double		cores;

	(void)arg;
	snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
	if (host_read(root, path, buf, sizeof(buf)) == -1)
		return;
	switch (host_parse_limit(buf, &quota)) {
	case 0:
		return;
	case -1:
		host_note(h, "%s: unreadable value, ignored", path);
		return;
	}
	snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
	if (host_read(root, path, buf, sizeof(buf)) == -1 ||
	    host_parse_limit(buf, &period) != 1 || period == 0) {
		host_note(h, "%s: unreadable value, ignored", path);
		return;
	}
	cores = (double)quota / (double)period;
	if (h->cpu_quota == 0 || cores < h->cpu_quota)
		h->cpu_quota = cores;
}

/* Does the comma-separated list have the element name? */
static int
host_has_controller(const char *list, const char *name)
{
	size_t	n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

static void
host_probe_cgroup(struct host_info *h, const char *root)
{
	char	 path[PATH_LEN], line[PATH_LEN], v2path[CGPATH_LEN] = "";
	char	 mempath[CGPATH_LEN] = "", cpupath[CGPATH_LEN] = "";
	char	 cpudir[256] = "", *ctrl, *cg;
	FILE	*fp;
	char	 buf[64];

	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	if ((fp = fopen(path, "r")) == NULL) {
		host_note(h, "no /proc/self/cgroup");
		return;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((ctrl = strchr(line, ':')) == NULL ||
		    (cg = strchr(ctrl + 1, ':')) == NULL)
			continue;
		*ctrl++ = '\0';
		*cg++ = '\0';
		if (cg[0] != '/')
			continue;
		if (strcmp(line, "0") == 0 && *ctrl == '\0')
			snprintf(v2path, sizeof(v2path), "%s", cg);
		else if (host_has_controller(ctrl, "memory"))
			snprintf(mempath, sizeof(mempath), "%s", cg);
		if (host_has_controller(ctrl, "cpu")) {
			snprintf(cpupath, sizeof(cpupath), "%s", cg);
			snprintf(cpudir, sizeof(cpudir), "/sys/fs/cgroup/%s",
			    ctrl);
		}
	}
	fclose(fp);

	if (mempath[0] != '\0' &&
	    host_read(root, "/sys/fs/cgroup/memory/memory.limit_in_bytes", buf,
	    sizeof(buf)) == 0) {
		h->cgroup_version = 1;
		host_walk(h, root, "/sys/fs/cgroup/memory", mempath,
		    host_v1_mem_dir, NULL);
		snprintf(path, sizeof(path), "/sys/fs/cgroup/memory%s/"
		    "memory.usage_in_bytes", strcmp(mempath, "/") == 0 ? "" :
		    mempath);
		if (host_read(root, path, buf, sizeof(buf)) == 0)
			h->cg_mem_usage = strtoull(buf, NULL, 10);
		if (cpupath[0] != '\0')
			host_walk(h, root, cpudir, cpupath, host_v1_cpu_dir,
			    NULL);
	} else if (v2path[0] != '\0' &&
	    host_read(root, "/sys/fs/cgroup/cgroup.controllers", buf,
	    sizeof(buf)) == 0) {
		h->cgroup_version = 2;
		host_walk(h, root, "/sys/fs/cgroup", v2path, host_v2_dir, NULL);
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current",
		    strcmp(v2path, "/") == 0 ? "" : v2path);
		if (host_read(root, path, buf, sizeof(buf)) == 0)
			h->cg_mem_usage = strtoull(buf, NULL, 10);
	} else
		host_note(h, "no cgroup memory controller found");
}

static void
host_probe_cpu(struct host_info *h, const char *root)
{
	char	 path[PATH_LEN], line[4096], *v;
	FILE	*fp;
	int	 flags_seen = 0;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	if ((fp = fopen(path, "r")) == NULL) {
		host_note(h, "no /proc/cpuinfo");
		return;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((v = strchr(line, ':')) == NULL)
			continue;
		v++;
		while (*v == ' ')
			v++;
		if (h->cpu_model[0] == '\0' &&
		    strncmp(line, "model name", 10) == 0)
			snprintf(h->cpu_model, sizeof(h->cpu_model), "%s", v);
		else if (!flags_seen && strncmp(line, "flags", 5) == 0) {
			char	*tok, *save = NULL;

			flags_seen = 1;
			for (tok = strtok_r(v, " ", &save); tok != NULL;
			    tok = strtok_r(NULL, " ", &save)) {
				if (strcmp(tok, "sse2") == 0)
					h->has_sse2 = 1;
				else if (strcmp(tok, "ssse3") == 0)
					h->has_ssse3 = 1;
				else if (strcmp(tok, "avx2") == 0)
					h->has_avx2 = 1;
				else if (strcmp(tok, "avx512f") == 0)
					h->has_avx512f = 1;
			}
		}
	}
	fclose(fp);
}

/* CPU numbers beyond any kernel's (NR_CPUS is at most 8192 today). */
#define HOST_CPU_ID_MAX	(1L << 20)

/*
 * Count the CPUs of a list such as "0-3,6,8-9"; 0 for anything else
 * (a sign, a number past HOST_CPU_ID_MAX, a range backwards).
 */
static int
host_count_cpulist(const char *s)
{
	long	a, b;
	char   *end;
	long	n = 0;

	while (*s != '\0') {
		if (!isdigit((unsigned char)*s))
			return 0;
		a = strtol(s, &end, 10);
		if (a > HOST_CPU_ID_MAX)
			return 0;
		b = a;
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return 0;
			b = strtol(s, &end, 10);
			if (b < a || b > HOST_CPU_ID_MAX)
				return 0;
		}
		n += b - a + 1;
		if (n > HOST_CPU_ID_MAX)
			return 0;
		s = end;
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return 0;
	}
	return (int)n;
}

static int
host_probe_meminfo(struct host_info *h, const char *root)
{
	char		 path[PATH_LEN], line[256];
	FILE		*fp;
	uint64_t	 kib;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL) {
		/* A size past 2^64 bytes is nonsense: the line is skipped. */
		if (sscanf(line, "%*[A-Za-z]: %" SCNu64 " kB", &kib) != 1 ||
		    kib > UINT64_MAX / 1024)
			continue;
		if (strncmp(line, "MemTotal:", 9) == 0)
			h->mem_total = kib * 1024;
		else if (strncmp(line, "MemAvailable:", 13) == 0)
			h->mem_available = kib * 1024;
		else if (strncmp(line, "SwapTotal:", 10) == 0)
			h->swap_total = kib * 1024;
	}
	fclose(fp);
	return h->mem_total > 0 ? 0 : -1;
}

static void
host_hex(char *dst, const uint8_t *src, size_t n)
{
	static const char	digits[] = "0123456789abcdef";
	size_t			i;

	for (i = 0; i < n; i++) {
		dst[2 * i] = digits[src[i] >> 4];
		dst[2 * i + 1] = digits[src[i] & 15];
	}
	dst[2 * n] = '\0';
}

static void
host_identify(struct host_info *h, const char *root)
{
	char		 id[256] = "", canon[2048];
	uint8_t		 d[16];

	if (host_read(root, "/etc/machine-id", id, sizeof(id)) == -1 ||
	    id[0] == '\0') {
		if (host_read(root, "/proc/sys/kernel/hostname", id,
		    sizeof(id)) == -1)
			snprintf(id, sizeof(id), "unknown");
		host_note(h, "no /etc/machine-id: host id from the hostname");
	}
	/* Hashed, so the id names the host without exposing machine-id. */
	snprintf(canon, sizeof(canon), "pwtune host id\n%s", id);
	crypto_generichash(d, sizeof(d), (const uint8_t *)canon, strlen(canon),
	    NULL, 0);
	host_hex(h->host_id, d, sizeof(d));

	/*
	 * Memory is counted in MiB so that a few pages of firmware or balloon
	 * drift do not change the fingerprint.
	 */
	snprintf(canon, sizeof(canon),
	    "cpu=%s\nflags=%d%d%d%d\nonline=%d\naffinity=%d\nquota=%.3f\n"
	    "mem=%" PRIu64 "\nswap=%" PRIu64 "\ncgmem=%" PRIu64 "\n"
	    "kernel=%s\nsodium=%s\nargon2=%s\n",
	    h->cpu_model, h->has_sse2, h->has_ssse3, h->has_avx2,
	    h->has_avx512f, h->online_cpus, h->affinity_cpus, h->cpu_quota,
	    h->mem_total >> 20, h->swap_total >> 20, h->cg_mem_limit >> 20,
	    h->kernel, h->libsodium_version, h->libargon2_version);
	crypto_generichash(d, sizeof(d), (const uint8_t *)canon, strlen(canon),
	    NULL, 0);
	host_hex(h->fingerprint, d, sizeof(d));
}

int
host_probe(const char *root, struct host_info *h, char *err, size_t errlen)
{
	char		buf[256];
	int		real = root == NULL || strcmp(root, "/") == 0;
	cpu_set_t	set;

	memset(h, 0, sizeof(*h));
	if (real)
		root = "";
	if (sodium_init() < 0) {
		kdf_seterr(err, errlen, "libsodium failed to initialise");
		return -1;
	}
	if (host_probe_meminfo(h, root) == -1) {
		kdf_seterr(err, errlen, "%s/proc/meminfo: no MemTotal", root);
		return -1;
	}
	host_probe_cpu(h, root);
	if (host_read(root, "/sys/devices/system/cpu/online", buf,
	    sizeof(buf)) == 0)
		h->online_cpus = host_count_cpulist(buf);
	if (h->online_cpus <= 0 && real)
		h->online_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (h->online_cpus <= 0) {
		h->online_cpus = 1;
		host_note(h, "online CPUs unknown: assuming 1");
	}
	h->affinity_cpus = h->online_cpus;
	if (real && sched_getaffinity(0, sizeof(set), &set) == 0)
		h->affinity_cpus = CPU_COUNT(&set);
	host_probe_cgroup(h, root);
	if (host_read(root, "/proc/sys/kernel/osrelease", h->kernel,
	    sizeof(h->kernel)) == -1)
		host_note(h, "no kernel release");
	if (host_read(root, "/proc/sys/kernel/hostname", h->hostname,
	    sizeof(h->hostname)) == -1)
		h->hostname[0] = '\0';
	snprintf(h->libsodium_version, sizeof(h->libsodium_version), "%s",
	    sodium_version_string());
	snprintf(h->libargon2_version, sizeof(h->libargon2_version), "%s",
	    PWTUNE_LIBARGON2_VERSION);
	host_identify(h, root);
	return 0;
}

uint64_t
host_memory_budget(const struct host_info *h, uint64_t cap,
    enum host_budget_source *src)
{
	uint64_t			budget = h->mem_available / 2, cg;
	enum host_budget_source		why = HOST_BUDGET_MEMAVAILABLE;

	if (h->cg_mem_limit > 0) {
		cg = h->cg_mem_limit > h->cg_mem_usage ?
		    (h->cg_mem_limit - h->cg_mem_usage) / 2 : 0;
		if (cg < budget) {
			budget = cg;
			why = HOST_BUDGET_CGROUP;
		}
	}
	if (cap > 0 && cap < budget) {
		budget = cap;
		why = HOST_BUDGET_CONFIG;
	}
	if (src != NULL)
		*src = why;
	return budget;
}

const char *
host_budget_source_name(enum host_budget_source src)
{
	switch (src) {
	case HOST_BUDGET_CONFIG:
		return "config";
	case HOST_BUDGET_CGROUP:
		return "cgroup";
	default:
		return "memavailable";
	}
}

int
host_usable_cpus(const struct host_info *h)
{
	int	n = h->online_cpus;

	if (h->affinity_cpus > 0 && h->affinity_cpus < n)
		n = h->affinity_cpus;
	/* Compared as a double: a quota of a million cores is no int. */
	if (h->cpu_quota > 0 && ceil(h->cpu_quota) < (double)n)
		n = (int)ceil(h->cpu_quota);
	return n < 1 ? 1 : n;
}

int
host_mem_available(const char *path, uint64_t *bytes, char *err,
    size_t errlen)
{
	char		 line[256];
	FILE		*fp;
	uint64_t	 kib;
	int		 found = 0;

	if (path == NULL)
		path = "/proc/meminfo";
	if ((fp = fopen(path, "r")) == NULL) {
		kdf_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1) {
			found = 1;
			break;
		}
	}
	fclose(fp);
	if (!found || kib > UINT64_MAX / 1024) {
		kdf_seterr(err, errlen, "%s: no MemAvailable line", path);
		return -1;
	}
	*bytes = kib * 1024;
	return 0;
}
