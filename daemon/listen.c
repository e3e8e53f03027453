/*
 * daemon/listen.c: the listening socket, three ways.
 *
 *  - listen_socket(): bound by pwtuned from the listen key (port 0 picks a
 *    free port; the address actually bound is returned for the log);
 *  - listen_activated(): taken from systemd (socket activation: LISTEN_PID
 *    names this process, LISTEN_FDS counts descriptors from 3), as
 *    pwtuned.socket or systemd-socket-activate pass it;
 *  - health_check(): pwtuned --health, a client of GET /healthz on the
 *    listen address, for container health checks that have no curl.
 */
#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

#define LISTEN_FDS_START	3	/* SD_LISTEN_FDS_START */
#define HEALTH_TIMEOUT_S	5

/* "ADDR:PORT" of a bound socket. */
static void
listen_describe(int fd, char *bound, size_t boundlen)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t		 len = sizeof(ss);
	char			 host[INET6_ADDRSTRLEN];

	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1) {
		snprintf(bound, boundlen, "descriptor %d", fd);
		return;
	}
	if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		snprintf(bound, boundlen, "[%s]:%u", host,
		    (unsigned)ntohs(sin6->sin6_port));
	} else if (ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		snprintf(bound, boundlen, "%s:%u", host,
		    (unsigned)ntohs(sin->sin_port));
	} else
		snprintf(bound, boundlen, "descriptor %d (family %d)", fd,
		    ss.ss_family);
}

/* The listen key as a socket address. */
static int
listen_addr(const struct config *c, struct sockaddr_storage *ss,
    socklen_t *len, char *err, size_t errlen)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;
	char			 addr[128];
	unsigned		 port;
	int			 v6;

	if (config_listen_addr(c, addr, sizeof(addr), &port) == -1) {
		snprintf(err, errlen, "listen %s: not ADDRESS:PORT", c->listen);
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	v6 = strchr(addr, ':') != NULL;
	if (v6 ? inet_pton(AF_INET6, addr, &sin6->sin6_addr) != 1 :
	    inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		snprintf(err, errlen, "listen %s: not a numeric address",
		    c->listen);
		return -1;
	}
	if (v6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*sin6);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*len = sizeof(*sin);
	}
	return 0;
}

int
listen_socket(const struct config *c, char *bound, size_t boundlen,
    char *err, size_t errlen)
{
	struct sockaddr_storage	ss;
	socklen_t		len;
	int			fd, on = 1;

	if (listen_addr(c, &ss, &len, err, errlen) == -1)
		return -1;
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1 ||
	    bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    listen(fd, 256) == -1) {
		snprintf(err, errlen, "listen %s: %s%s", c->listen,
		    strerror(errno), errno == EADDRINUSE ? " (another "
		    "program listens there: give this one another port, "
		    "--listen ADDRESS:PORT)" : "");
		if (fd != -1)
			close(fd);
		return -1;
	}
	listen_describe(fd, bound, boundlen);
	return fd;
}

int
listen_activated(char *bound, size_t boundlen, char *err, size_t errlen)
{
	const char	*pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	char		*end;
	long		 n, p;
	int		 type = 0, acc = 0, fd = LISTEN_FDS_START;
	socklen_t	 len;

	if (pid == NULL || fds == NULL)
		return -2;
	errno = 0;
	p = strtol(pid, &end, 10);
	if (errno != 0 || *end != '\0' || p != (long)getpid())
		return -2;	/* meant for another process */
	n = strtol(fds, &end, 10);
	/* Children (benchmarks) must not think the socket is theirs. */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (errno != 0 || *end != '\0' || n < 1) {
		snprintf(err, errlen, "socket activation: LISTEN_FDS=%s is not "
		    "a count of descriptors", fds);
		return -1;
	}
	if (n > 1) {
		snprintf(err, errlen, "socket activation: %ld sockets passed; "
		    "pwtuned takes exactly one (ListenStream= once)", n);
		return -1;
	}
	len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_STREAM) {
		snprintf(err, errlen, "socket activation: descriptor %d is not "
		    "a stream socket", fd);
		return -1;
	}
	len = sizeof(acc);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) == -1 ||
	    !acc) {
		snprintf(err, errlen, "socket activation: descriptor %d is not "
		    "listening (Accept=no is needed)", fd);
		return -1;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		snprintf(err, errlen, "socket activation: %s", strerror(errno));
		return -1;
	}
	listen_describe(fd, bound, boundlen);
	return fd;
}

int
health_check(const struct config *c, char *err, size_t errlen)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	struct timeval		 tv = { HEALTH_TIMEOUT_S, 0 };
	socklen_t		 len;
	char			 buf[512];
	const char		 req[] = "GET /healthz HTTP/1.1\r\n"
	    "Host: localhost\r\nConnection: close\r\n\r\n";
	size_t			 got = 0;
	ssize_t			 n;
	int			 fd, code = 0;

	if (listen_addr(c, &ss, &len, err, errlen) == -1)
		return -1;
	/* A wildcard listen address is reached on loopback. */
	if (ss.ss_family == AF_INET && sin->sin_addr.s_addr == INADDR_ANY)
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr))
		sin6->sin6_addr = in6addr_loopback;
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&ss, len) == -1 ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)(sizeof(req) - 1)) {
		snprintf(err, errlen, "%s: %s", c->listen, strerror(errno));
		close(fd);
		return -1;
	}
	while (got < sizeof(buf) - 1 &&
	    (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	if (sscanf(buf, "HTTP/1.%*1[01] %d", &code) != 1) {
		snprintf(err, errlen, "%s: no HTTP answer", c->listen);
		return -1;
	}
	if (code != 200) {
		snprintf(err, errlen, "%s: GET /healthz answered %d", c->listen,
		    code);
		return -1;
	}
	return 0;
}
