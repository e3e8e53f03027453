/*
 * bench/bare_server.c: the baseline of bench/api_load.sh. A libmicrohttpd
 * server set up as pwtuned's API is (internal epoll thread pool, the same
 * limits, the response queued on the second call) that answers every
 * request with a fixed JSON body of a given size: what serving costs
 * before pwtune does any work of its own.
 *
 * Usage: bare_server SIZE THREADS   (prints "listening on 127.0.0.1:PORT";
 * stops on SIGTERM or SIGINT)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

static char	*body;
static size_t	 bodylen;

static enum MHD_Result
bare_access(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
	static int		 first;
	struct MHD_Response	*r;
	enum MHD_Result		 rc;

	(void)cls;
	(void)url;
	(void)method;
	(void)version;
	(void)upload_data;
	if (*con_cls == NULL) {
		*con_cls = &first;
		return MHD_YES;
	}
	*upload_data_size = 0;
	r = MHD_create_response_from_buffer(bodylen, body,
	    MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, "Content-Type", "application/json");
	rc = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return rc;
}

int
main(int argc, char **argv)
{
	struct MHD_Daemon		*d;
	const union MHD_DaemonInfo	*info;
	sigset_t			 sigs;
	int				 sig;

	if (argc != 3 || (bodylen = (size_t)atol(argv[1])) == 0) {
		fprintf(stderr, "usage: bare_server SIZE THREADS\n");
		return 2;
	}
	body = malloc(bodylen);
	memset(body, ' ', bodylen);
	body[0] = '{';
	body[bodylen - 1] = '}';
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL,
	    0, NULL, NULL, bare_access, NULL,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)atoi(argv[2]),
	    MHD_OPTION_CONNECTION_LIMIT, 256U,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, 256U,
	    MHD_OPTION_CONNECTION_TIMEOUT, 10U,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
	    MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024),
	    MHD_OPTION_END);
	if (d == NULL)
		return 1;
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("listening on 127.0.0.1:%u\n", (unsigned)info->port);
	fflush(stdout);
	sigwait(&sigs, &sig);
	MHD_stop_daemon(d);
	free(body);
	return 0;
}
