/*
 * tests/fuzz/fuzz_config.c: the configuration file parser, then the
 * checks that need every key (config_finish). The input is the file; it
 * reaches config_load_file through a memfd, as a file would. Accepted or
 * refused, the result must be a configuration within its limits.
 */

#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "daemon.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config	c;
	char		path[64], err[1024];
	int		fd;

	if (size > 65536)
		return 0;
	if ((fd = memfd_create("pwtuned.conf", MFD_CLOEXEC)) == -1)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	config_defaults(&c);
	err[0] = '\0';
	if (config_load_file(&c, path, 1, err, sizeof(err)) == 0 &&
	    config_finish(&c, err, sizeof(err)) == 0) {
		/* Accepted: every limit holds. */
		if (c.threads < 1 || c.threads > 64 || c.max_connections < 4 ||
		    c.connection_timeout < 1 || c.request_timeout < 1 ||
		    c.retention_runs < 1 ||
		    c.nallowed_hosts > DAEMON_HOSTS_MAX ||
		    c.nverify_targets > DAEMON_TARGETS_MAX ||
		    memchr(c.listen, '\0', sizeof(c.listen)) == NULL ||
		    memchr(c.db, '\0', sizeof(c.db)) == NULL)
			abort();
	} else if (err[0] == '\0')
		abort();	/* refused without a reason */
	close(fd);
	return 0;
}
