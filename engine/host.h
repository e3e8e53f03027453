/*
 * engine/host: what the host this process runs on can hold.
 */
#ifndef PWTUNE_HOST_H
#define PWTUNE_HOST_H

#include <stddef.h>
#include <stdint.h>

/* host.c */

/*
 * Read MemAvailable from the meminfo file at path (NULL for
 * /proc/meminfo) into *bytes. Returns 0, or -1 with the reason in err.
 */
int	 host_mem_available(const char *path, uint64_t *bytes, char *err,
	    size_t errlen);

#endif /* PWTUNE_HOST_H */
