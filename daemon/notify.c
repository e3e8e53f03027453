/*
 * daemon/notify.c: the systemd notification protocol without libsystemd:
 * one datagram per message to the AF_UNIX socket named by NOTIFY_SOCKET
 * ('@' for the abstract namespace). The watchdog pings come from a thread
 * of their own, which no benchmark can block.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

static pthread_t	watchdog_thread;
static atomic_int	watchdog_stop;
static int		watchdog_running;
static unsigned long long watchdog_usec;

int
notify_send(const char *msg)
{
	const char		*path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un	 sun;
	socklen_t		 len;
	size_t			 plen;
	int			 fd, rc;

	if (path == NULL || path[0] == '\0')
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sun.sun_path))
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, plen);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	rc = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
	    (struct sockaddr *)&sun, len) == (ssize_t)strlen(msg) ? 0 : -1;
	close(fd);
	return rc;
}

static void *
notify_watchdog_loop(void *arg)
{
	struct timespec	ts;
	unsigned long long half = watchdog_usec / 2;

	(void)arg;
	while (!atomic_load(&watchdog_stop)) {
		notify_send("WATCHDOG=1");
		ts.tv_sec = (time_t)(half / 1000000);
		ts.tv_nsec = (long)(half % 1000000) * 1000;
		/* Sleep in slices so a stop is seen within 100 ms. */
		while (!atomic_load(&watchdog_stop) &&
		    (ts.tv_sec > 0 || ts.tv_nsec > 0)) {
			struct timespec	slice = { 0, 100000000 };

			if (ts.tv_sec == 0 && ts.tv_nsec < slice.tv_nsec)
				slice.tv_nsec = ts.tv_nsec;
			nanosleep(&slice, NULL);
			if (ts.tv_nsec >= slice.tv_nsec)
				ts.tv_nsec -= slice.tv_nsec;
			else {
				ts.tv_sec--;
				ts.tv_nsec += 1000000000 - slice.tv_nsec;
			}
		}
	}
	return NULL;
}

int
notify_watchdog_start(void)
{
	const char	*v = getenv("WATCHDOG_USEC");
	char		*end;

	if (v == NULL || getenv("NOTIFY_SOCKET") == NULL)
		return 0;
	errno = 0;
	watchdog_usec = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0' || watchdog_usec < 1000)
		return -1;
	atomic_store(&watchdog_stop, 0);
	if (pthread_create(&watchdog_thread, NULL, notify_watchdog_loop,
	    NULL) != 0)
		return -1;
	watchdog_running = 1;
	return 0;
}

void
notify_watchdog_stop(void)
{
	if (!watchdog_running)
		return;
	atomic_store(&watchdog_stop, 1);
	pthread_join(watchdog_thread, NULL);
	watchdog_running = 0;
}
