/*
 * engine/host.c: reading the host's limits from /proc.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "kdf_impl.h"

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
