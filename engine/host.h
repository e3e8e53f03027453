/*
 * engine/host: what the host this process runs on is and can hold.
 *
 * host_probe() reads the CPU, memory, cgroup (v1 and v2) and kernel facts
 * that change how fast Argon2 runs or how much memory it may take, from a
 * root directory ("/" on a real host; tests point it at fixture trees under
 * tests/host/). From those it derives a stable host id and a fingerprint
 * that changes when any of them changes (MemAvailable and cgroup usage,
 * which move all the time, are not part of it).
 *
 * cgroup limits: v2 reads memory.max, memory.high and cpu.max; v1 reads
 * memory.limit_in_bytes and cpu.cfs_quota_us / cpu.cfs_period_us. Both walk
 * from the process's cgroup up to the root of the hierarchy, and the
 * smallest limit wins. "max", -1 and v1's 2^63 - 4096 mean no limit; a value
 * that cannot be read is no limit, with a note saying which file.
 */
#ifndef PWTUNE_HOST_H
#define PWTUNE_HOST_H

#include <stddef.h>
#include <stdint.h>

#define HOST_TEXT_MAX	128
#define HOST_NOTES_MAX	512

enum host_budget_source {
	HOST_BUDGET_CONFIG,		/* the configured cap */
	HOST_BUDGET_MEMAVAILABLE,	/* half of MemAvailable */
	HOST_BUDGET_CGROUP		/* half of the cgroup limit less usage */
};

struct host_info {
	char		cpu_model[HOST_TEXT_MAX];
	int		has_sse2, has_ssse3, has_avx2, has_avx512f;
	int		online_cpus;
	int		affinity_cpus;	/* CPUs this process may run on */
	double		cpu_quota;	/* cores allowed by the cgroup; 0: none */
	int		cgroup_version;	/* 0 (none found), 1 or 2 */
	uint64_t	mem_total;	/* bytes */
	uint64_t	mem_available;	/* bytes */
	uint64_t	swap_total;	/* bytes */
	uint64_t	cg_mem_limit;	/* bytes; 0: none */
	uint64_t	cg_mem_usage;	/* bytes */
	char		kernel[HOST_TEXT_MAX];
	char		hostname[HOST_TEXT_MAX]; /* for people; in neither the
						    id nor the fingerprint */
	char		libsodium_version[32];
	char		libargon2_version[32];
	char		host_id[33];	/* hex, stable for the machine */
	char		fingerprint[33]; /* hex, changes with the facts above */
	char		notes[HOST_NOTES_MAX]; /* what could not be read */
};

/* host.c */

/*
 * Probe the host under root ("/" or NULL for the real one) into *h.
 * Missing files are not errors (a container may hide them): the fact is
 * left at 0 and a note says so. Returns 0, or -1 with the reason in err
 * when nothing useful could be read (no meminfo).
 */
int	 host_probe(const char *root, struct host_info *h, char *err,
	    size_t errlen);

/*
 * The memory one benchmark may use: the smallest of cap (0: none), half of
 * MemAvailable, and half of the cgroup limit less its usage. *src, when not
 * NULL, says which one decided.
 */
uint64_t host_memory_budget(const struct host_info *h, uint64_t cap,
	    enum host_budget_source *src);

/* "config", "memavailable", "cgroup". */
const char *host_budget_source_name(enum host_budget_source src);

/*
 * The cores a benchmark can count on before measuring: the smallest of the
 * online CPUs, the affinity mask and the cgroup quota (rounded up), at
 * least 1.
 */
int	 host_usable_cpus(const struct host_info *h);

/*
 * Read MemAvailable from the meminfo file at path (NULL for
 * /proc/meminfo) into *bytes. Returns 0, or -1 with the reason in err.
 */
int	 host_mem_available(const char *path, uint64_t *bytes, char *err,
	    size_t errlen);

#endif /* PWTUNE_HOST_H */
