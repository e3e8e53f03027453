/*
 * engine/units.c: parsing and printing memory sizes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "units.h"

int
units_parse_kib(const char *s, uint64_t max_kib, uint64_t *kib)
{
	static const struct {
		const char	*suffix;
		uint64_t	 mult;
	} units[] = {
		{ "", 1 }, { "k", 1 }, { "kb", 1 }, { "kib", 1 },
		{ "m", 1024 }, { "mb", 1024 }, { "mib", 1024 },
		{ "g", 1024 * 1024 }, { "gb", 1024 * 1024 },
		{ "gib", 1024 * 1024 },
		{ "t", 1024ULL * 1024 * 1024 }, { "tb", 1024ULL * 1024 * 1024 },
		{ "tib", 1024ULL * 1024 * 1024 },
	};
	unsigned long long	 n;
	char			*end;
	size_t			 i;

	if (s == NULL || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0 || n == 0)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix) != 0)
			continue;
		if (n > max_kib / units[i].mult)
			return -1;
		*kib = n * units[i].mult;
		return 0;
	}
	return -1;
}

void
units_format_kib(uint64_t kib, char *buf, size_t buflen)
{
	if (kib >= 1024 * 1024 && kib % (1024 * 1024) == 0)
		snprintf(buf, buflen, "%llu GiB",
		    (unsigned long long)(kib / (1024 * 1024)));
	else if (kib >= 1024 * 1024)
		snprintf(buf, buflen, "%.2f GiB", (double)kib / (1024 * 1024));
	else if (kib >= 1024 && kib % 1024 == 0)
		snprintf(buf, buflen, "%llu MiB",
		    (unsigned long long)(kib / 1024));
	else
		snprintf(buf, buflen, "%llu KiB", (unsigned long long)kib);
}
