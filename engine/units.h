/*
 * engine/units: memory sizes as people write them.
 */
#ifndef PWTUNE_UNITS_H
#define PWTUNE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The largest memory budget anyone may name (memory_max in the API, the
 * configuration and the command line): 1 TiB, in KiB.
 */
#define UNITS_MEMORY_MAX_KIB	(UINT64_C(1) << 30)

/* units.c */

/*
 * Parse a memory size into KiB: "65536" (KiB), "512KiB", "64MiB", "1GiB",
 * "2TiB" (K, M, G, T and KB, MB, GB, TB are read as the binary units too;
 * case does not matter). Returns 0, or -1 for anything else, a size of 0,
 * a fraction of a KiB, or more than max_kib.
 */
int	 units_parse_kib(const char *s, uint64_t max_kib, uint64_t *kib);

/* Write kib as people read it: "64 MiB", "1.5 GiB", "7168 KiB". */
void	 units_format_kib(uint64_t kib, char *buf, size_t buflen);

#endif /* PWTUNE_UNITS_H */
