/*
 * tests/unit/test_host.c: engine/host on the fixture trees of tests/host/
 * (cgroup v1, v2, nested limits, "max", missing files, garbage), the memory
 * budget rule, the fingerprint, and the real host.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "test.h"

#define MIB	(1ULL << 20)

static const char *
fixture(const char *name)
{
	static char	path[4096];

	if (test_argc < 1)
		TEST_FAIL("usage: test_host [TEST...] FIXTURE_DIR");
	snprintf(path, sizeof(path), "%s/%s", test_argv[0], name);
	return path;
}

static void
probe(const char *name, struct host_info *h)
{
	char	err[256];

	if (host_probe(fixture(name), h, err, sizeof(err)) != 0)
		TEST_FAIL("%s: %s", name, err);
}

TEST(cgroup_v1_nested)
{
	struct host_info	h;
	enum host_budget_source	src;

	probe("v1", &h);
	ASSERT_EQ(h.cgroup_version, 1);
	ASSERT_UEQ(h.cg_mem_limit, 512 * MIB);	/* leaf beats parent */
	ASSERT_UEQ(h.cg_mem_usage, 100 * MIB);
	ASSERT(h.cpu_quota > 1.499 && h.cpu_quota < 1.501);
	ASSERT_EQ(h.online_cpus, 4);
	ASSERT_EQ(host_usable_cpus(&h), 2);	/* ceil(1.5) */
	ASSERT_STR_EQ(h.cpu_model, "Test CPU @ 3.00GHz");
	ASSERT(h.has_sse2 && h.has_ssse3 && h.has_avx2 && !h.has_avx512f);
	ASSERT_UEQ(h.mem_total, 8ULL << 30);
	ASSERT_UEQ(h.mem_available, 4ULL << 30);
	ASSERT_UEQ(h.swap_total, 2ULL << 30);
	ASSERT_STR_EQ(h.kernel, "6.1.0-test");
	/* Budget: half of (512 - 100) MiB, under half of MemAvailable. */
	ASSERT_UEQ(host_memory_budget(&h, 0, &src), 206 * MIB);
	ASSERT_EQ(src, HOST_BUDGET_CGROUP);
	/* A configured cap below both wins. */
	ASSERT_UEQ(host_memory_budget(&h, 64 * MIB, &src), 64 * MIB);
	ASSERT_EQ(src, HOST_BUDGET_CONFIG);
	ASSERT_STR_EQ(host_budget_source_name(src), "config");
}

TEST(cgroup_v2_parent_limit_wins)
{
	struct host_info	h;
	enum host_budget_source	src;

	probe("v2", &h);
	ASSERT_EQ(h.cgroup_version, 2);
	ASSERT_UEQ(h.cg_mem_limit, 256 * MIB);
	ASSERT_UEQ(h.cg_mem_usage, 10 * MIB);
	ASSERT(h.cpu_quota > 1.999 && h.cpu_quota < 2.001);
	ASSERT_UEQ(host_memory_budget(&h, 0, &src), 123 * MIB);
	ASSERT_EQ(src, HOST_BUDGET_CGROUP);
	ASSERT_STR_EQ(h.notes, "");
}

TEST(cgroup_v2_memory_high)
{
	struct host_info	h;

	probe("v2_high", &h);
	ASSERT_EQ(h.cgroup_version, 2);
	ASSERT_UEQ(h.cg_mem_limit, 128 * MIB);
	ASSERT(h.cpu_quota > 0.499 && h.cpu_quota < 0.501);
	ASSERT_EQ(host_usable_cpus(&h), 1);
}

TEST(cgroup_v2_all_max)
{
	struct host_info	h;
	enum host_budget_source	src;

	probe("v2_max", &h);
	ASSERT_EQ(h.cgroup_version, 2);
	ASSERT_UEQ(h.cg_mem_limit, 0);
	ASSERT(h.cpu_quota == 0);
	ASSERT_EQ(host_usable_cpus(&h), 4);
	/* No cgroup limit: half of MemAvailable. */
	ASSERT_UEQ(host_memory_budget(&h, 0, &src), 2ULL << 30);
	ASSERT_EQ(src, HOST_BUDGET_MEMAVAILABLE);
}

TEST(cpu_quota_past_int_is_no_limit)
{
	struct host_info	h;

	/* cpu.max "536870912 1" with a period of 1 µs: 5e8 cores. */
	memset(&h, 0, sizeof(h));
	h.online_cpus = 4;
	h.cpu_quota = 1.62e13;
	ASSERT_EQ(host_usable_cpus(&h), 4);
	h.cpu_quota = 3.5;
	ASSERT_EQ(host_usable_cpus(&h), 4);
	h.cpu_quota = 2.5;
	ASSERT_EQ(host_usable_cpus(&h), 3);
}

TEST(cgroup_garbage_is_ignored_with_a_note)
{
	struct host_info	h;

	probe("garbage", &h);
	ASSERT_UEQ(h.cg_mem_limit, 0);
	ASSERT(h.cpu_quota == 0);
	ASSERT_STR_CONTAINS(h.notes, "weird/memory.max: unreadable value");
	ASSERT_STR_CONTAINS(h.notes, "weird/memory.high: unreadable value");
	ASSERT_STR_CONTAINS(h.notes, "weird/cpu.max: unreadable value");
}

TEST(missing_files)
{
	struct host_info	h;
	char			err[256];

	probe("missing", &h);
	ASSERT_EQ(h.cgroup_version, 0);
	ASSERT_EQ(h.online_cpus, 1);
	ASSERT_STR_EQ(h.cpu_model, "");
	ASSERT_STR_CONTAINS(h.notes, "no /proc/cpuinfo");
	ASSERT_STR_CONTAINS(h.notes, "no /proc/self/cgroup");
	ASSERT_STR_CONTAINS(h.notes, "online CPUs unknown");
	ASSERT_STR_CONTAINS(h.notes, "no /etc/machine-id");
	ASSERT_EQ(strlen(h.host_id), 32);
	/* Without even meminfo there is nothing to go on. */
	ASSERT_EQ(host_probe(fixture("no-such-tree"), &h, err, sizeof(err)),
	    -1);
	ASSERT_STR_CONTAINS(err, "meminfo");
}

static void
write_file(const char *dir, const char *name, const char *text)
{
	char	 path[4096];
	FILE	*fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ASSERT((fp = fopen(path, "w")) != NULL);
	fputs(text, fp);
	fclose(fp);
}

TEST(fingerprint_follows_the_facts)
{
	char			 dir[] = "/tmp/pwtune-host-XXXXXX", sub[4200];
	struct host_info	 a, b;
	char			 err[256];

	ASSERT(mkdtemp(dir) != NULL);
	snprintf(sub, sizeof(sub), "%s/proc", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/etc", dir);
	mkdir(sub, 0700);
	write_file(dir, "proc/meminfo", "MemTotal: 4194304 kB\n"
	    "MemAvailable: 2097152 kB\n");
	write_file(dir, "proc/cpuinfo", "model name\t: Alpha\n");
	write_file(dir, "etc/machine-id", "aaaa\n");
	ASSERT_EQ(host_probe(dir, &a, err, sizeof(err)), 0);
	ASSERT_EQ(strlen(a.fingerprint), 32);

	/* MemAvailable moves all the time: same fingerprint. */
	write_file(dir, "proc/meminfo", "MemTotal: 4194304 kB\n"
	    "MemAvailable: 1000000 kB\n");
	ASSERT_EQ(host_probe(dir, &b, err, sizeof(err)), 0);
	ASSERT_STR_EQ(a.fingerprint, b.fingerprint);
	ASSERT_STR_EQ(a.host_id, b.host_id);

	/* Another CPU: another fingerprint, the same host id. */
	write_file(dir, "proc/cpuinfo", "model name\t: Beta\n");
	ASSERT_EQ(host_probe(dir, &b, err, sizeof(err)), 0);
	ASSERT(strcmp(a.fingerprint, b.fingerprint) != 0);
	ASSERT_STR_EQ(a.host_id, b.host_id);

	/* More RAM: another fingerprint. */
	write_file(dir, "proc/cpuinfo", "model name\t: Alpha\n");
	write_file(dir, "proc/meminfo", "MemTotal: 8388608 kB\n"
	    "MemAvailable: 2097152 kB\n");
	ASSERT_EQ(host_probe(dir, &b, err, sizeof(err)), 0);
	ASSERT(strcmp(a.fingerprint, b.fingerprint) != 0);

	/* Another machine: another host id. */
	write_file(dir, "etc/machine-id", "bbbb\n");
	ASSERT_EQ(host_probe(dir, &b, err, sizeof(err)), 0);
	ASSERT(strcmp(a.host_id, b.host_id) != 0);

	snprintf(sub, sizeof(sub), "rm -rf '%s'", dir);
	ASSERT_EQ(system(sub), 0);
}

/*
 * /sys/devices/system/cpu/online: lists counted, nonsense refused; sizes
 * in /proc/meminfo past what 64 bits hold skipped.
 */
TEST(online_cpu_lists)
{
	static const struct {
		const char	*list;
		int		 cpus;	/* 1: unknown, assumed 1 */
	} cases[] = {
		{ "0-3\n", 4 },
		{ "0-3,6,8-9\n", 7 },
		{ "5\n", 1 },
		{ "0-1048575\n", 1048576 },
		/* Overflowed a long before (found by fuzz_cgroup). */
		{ "0-9999999999999999999999\n", 1 },
		{ "9999999999999999999999\n", 1 },
		{ "0-1048577\n", 1 },
		{ "-1\n", 1 },
		{ "0--3\n", 1 },
		{ "4-2\n", 1 },
		{ "0-3,\n", 4 },
		{ "0-3;4\n", 1 },
		{ "+2\n", 1 },
	};
	char			 dir[] = "/tmp/pwtune-host-XXXXXX", sub[4200];
	struct host_info	 h;
	char			 err[256];
	size_t			 i;

	ASSERT(mkdtemp(dir) != NULL);
	snprintf(sub, sizeof(sub), "mkdir -p '%s/proc' "
	    "'%s/sys/devices/system/cpu'", dir, dir);
	ASSERT_EQ(system(sub), 0);
	write_file(dir, "proc/meminfo", "MemTotal: 4194304 kB\n"
	    "MemAvailable: 2097152 kB\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(dir, "sys/devices/system/cpu/online",
		    cases[i].list);
		ASSERT_EQ(host_probe(dir, &h, err, sizeof(err)), 0);
		if (h.online_cpus != cases[i].cpus)
			TEST_FAIL("\"%.*s\": %d CPUs, want %d",
			    (int)strcspn(cases[i].list, "\n"), cases[i].list,
			    h.online_cpus, cases[i].cpus);
	}
	/* Sizes past 2^64 bytes in meminfo: the line is skipped. */
	write_file(dir, "proc/meminfo", "MemTotal: 4194304 kB\n"
	    "SwapTotal: 18014398509481984 kB\n");
	ASSERT_EQ(host_probe(dir, &h, err, sizeof(err)), 0);
	ASSERT_UEQ(h.mem_total, 4ULL << 30);
	ASSERT_UEQ(h.swap_total, 0);
	write_file(dir, "proc/meminfo", "MemTotal: 99999999999999999999999 kB\n");
	ASSERT_EQ(host_probe(dir, &h, err, sizeof(err)), -1);
	ASSERT_STR_CONTAINS(err, "no MemTotal");
	snprintf(sub, sizeof(sub), "rm -rf '%s'", dir);
	ASSERT_EQ(system(sub), 0);
}

TEST(this_host)
{
	struct host_info	h;
	char			err[256];

	ASSERT_EQ(host_probe(NULL, &h, err, sizeof(err)), 0);
	ASSERT(h.online_cpus >= 1);
	ASSERT(h.affinity_cpus >= 1 && h.affinity_cpus <= h.online_cpus);
	ASSERT(h.mem_total > 0 && h.mem_available > 0);
	ASSERT(h.mem_available <= h.mem_total);
	ASSERT(h.kernel[0] != '\0');
	ASSERT(h.libsodium_version[0] != '\0');
	ASSERT(h.cgroup_version >= 0 && h.cgroup_version <= 2);
	ASSERT(host_memory_budget(&h, 0, NULL) <= h.mem_available / 2);
}

TEST_LIST(
	TEST_ENTRY(cgroup_v1_nested),
	TEST_ENTRY(cgroup_v2_parent_limit_wins),
	TEST_ENTRY(cgroup_v2_memory_high),
	TEST_ENTRY(cgroup_v2_all_max),
	TEST_ENTRY(cpu_quota_past_int_is_no_limit),
	TEST_ENTRY(cgroup_garbage_is_ignored_with_a_note),
	TEST_ENTRY(missing_files),
	TEST_ENTRY(fingerprint_follows_the_facts),
	TEST_ENTRY(online_cpu_lists),
	TEST_ENTRY(this_host)
)
