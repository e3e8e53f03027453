/*
 * tests/unit/test_daemon.h: pwtuned's state for tests that run the
 * daemon's own code in process (test_api_check, test_checks), over the
 * model of a recorded quick run (tests/data/quick-run.json).
 */
#ifndef PWTUNE_TEST_DAEMON_H
#define PWTUNE_TEST_DAEMON_H

#include <stddef.h>

#include "daemon.h"

/*
 * d (zeroed here) over a new state directory dir (len bytes; its name
 * starts with prefix, under $TMPDIR or /tmp): its configuration (listen
 * 127.0.0.1:0), lock, host, and the recorded quick run imported into its
 * store and loaded as its model. Fails the test on an error.
 */
void	test_daemon_init(struct daemon *d, char *dir, size_t len,
	    const char *prefix);

/* d's model, dir's files and dir; dir emptied. Idle when dir is "". */
void	test_daemon_release(struct daemon *d, char *dir);

#endif
