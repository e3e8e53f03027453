/*
 * tests/fuzz/fuzz_cgroup.c: the host probe's parsers of cgroup (v1 and
 * v2) and /proc files. The input is split at NUL bytes into the files of a
 * fixture root (tests/host/ holds the real layouts), written under a
 * temporary directory; host_probe reads them from there. Whatever the
 * files say, the probe must end with sane numbers.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "host.h"

static const char *const files[] = {
	"proc/self/cgroup",
	"sys/fs/cgroup/cgroup.controllers",
	"sys/fs/cgroup/memory.max",
	"sys/fs/cgroup/cpu.max",
	"sys/fs/cgroup/memory/memory.limit_in_bytes",
	"sys/fs/cgroup/cpu/cpu.cfs_quota_us",
	"sys/fs/cgroup/cpu/cpu.cfs_period_us",
	"proc/meminfo",
	"proc/cpuinfo",
	"sys/devices/system/cpu/online",
	"sys/fs/cgroup/memory.current",
	"sys/fs/cgroup/memory.high",
	"sys/fs/cgroup/memory/memory.usage_in_bytes",
};
#define NFILES	(sizeof(files) / sizeof(files[0]))

static char	root[256];

static void
write_file(const char *rel, const uint8_t *p, size_t n)
{
	char	path[512];
	FILE	*fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if ((fp = fopen(path, "wb")) == NULL)
		abort();
	if (n > 0 && fwrite(p, 1, n, fp) != n)
		abort();
	fclose(fp);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const dirs[] = {
		"proc", "proc/self", "sys", "sys/fs", "sys/fs/cgroup",
		"sys/fs/cgroup/memory", "sys/fs/cgroup/cpu", "sys/devices",
		"sys/devices/system", "sys/devices/system/cpu",
	};
	char	path[512];
	size_t	i;

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/pwtune-fuzz-cgroup-XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(root) == NULL)
		abort();
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		mkdir(path, 0700);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host_info	h;
	enum host_budget_source	src;
	const uint8_t		*p = data, *end = data + size, *nul;
	char			err[512];
	size_t			i;
	uint64_t		budget;

	if (size > 65536)
		return 0;
	for (i = 0; i < NFILES; i++) {
		nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
		write_file(files[i], p, nul ? (size_t)(nul - p) : (size_t)(end - p));
		p = nul ? nul + 1 : end;
	}
	if (host_probe(root, &h, err, sizeof(err)) == 0) {
		budget = host_memory_budget(&h, 0, &src);
		if (h.online_cpus < 0 || host_usable_cpus(&h) < 1 ||
		    budget > h.mem_available ||
		    memchr(h.cpu_model, '\0', sizeof(h.cpu_model)) == NULL ||
		    strlen(h.fingerprint) != 32)
			abort();
	}
	return 0;
}
