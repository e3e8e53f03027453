/*
 * tests/fuzz/fuzz_api.c: the HTTP API as a whole (the checks at the door,
 * the router, query parsing, JSON body validation, the token, the static
 * files), in process: pwtuned's API runs on 127.0.0.1 with a store holding
 * a finished run of this host, and each input becomes one request on a
 * fresh connection.
 *
 * Input: byte 0 chooses headers (bit 0: the right token, bit 1: a wrong
 * one, bit 2: Content-Type: application/json, bit 3: If-None-Match);
 * then "METHOD TARGET" up to the first newline; the rest is the body. A
 * request must get an HTTP answer within 5 s, and never a 500.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "fuzz.h"
#include "api.h"
#include "daemon.h"

static struct daemon	 d;
static struct api_env	 env;
static struct api_config acfg;
static struct api_server *api;
static unsigned		 port;
static char		 token[128];

static void
fuzz_die(const char *what, const char *err)
{
	fprintf(stderr, "fuzz_api: %s: %s\n", what, err);
	abort();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	struct report		 rep;
	struct db		*db;
	json_t			*j;
	json_error_t		 je;
	char			 dir[256], err[1024], bound[160];
	int64_t			 id;
	int			 fd;
	FILE			*fp;

	(void)argc;
	(void)argv;
	if (sodium_init() < 0)
		fuzz_die("sodium_init", "failed");
	snprintf(dir, sizeof(dir), "%s/pwtune-fuzz-api-XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir) == NULL)
		fuzz_die("mkdtemp", dir);
	config_defaults(&d.cfg);
	config_set(&d.cfg, "state_dir", dir, err, sizeof(err));
	config_set(&d.cfg, "listen", "127.0.0.1:0", err, sizeof(err));
	config_set(&d.cfg, "threads", "2", err, sizeof(err));
	if (config_finish(&d.cfg, err, sizeof(err)) == -1)
		fuzz_die("config", err);
	log_init(LOG_LEVEL_ERROR, 0);
	pthread_mutex_init(&d.lock, NULL);
	pthread_cond_init(&d.wake, NULL);
	if (host_probe(NULL, &d.host, err, sizeof(err)) == -1)
		fuzz_die("host", err);
	/* A finished run of this host: the test data, made ours. */
	if ((j = json_load_file(PWTUNE_SOURCE_DIR "/tests/data/quick-run.json",
	    0, &je)) == NULL)
		fuzz_die("quick-run.json", je.text);
	if (report_from_json(j, &rep, err, sizeof(err)) == -1)
		fuzz_die("report", err);
	json_decref(j);
	rep.host = d.host;
	if (db_open(d.cfg.db, NULL, &db, err, sizeof(err)) != DB_OK ||
	    db_import_report(db, &rep, &id, err, sizeof(err)) != DB_OK ||
	    runner_load_model(&d, db, err, sizeof(err)) == -1)
		fuzz_die("store", err);
	db_close(db);
	report_release(&rep);
	if ((fd = listen_socket(&d.cfg, bound, sizeof(bound), err,
	    sizeof(err))) == -1)
		fuzz_die("listen", err);
	daemon_api_env(&d, &env);
	daemon_api_config(&d, &acfg);
	if ((api = api_start(&env, &acfg, fd, err, sizeof(err))) == NULL)
		fuzz_die("api", err);
	getsockname(fd, (struct sockaddr *)&sin, &len);
	port = ntohs(sin.sin_port);
	if ((fp = fopen(d.cfg.token_file, "r")) == NULL ||
	    fgets(token, sizeof(token), fp) == NULL)
		fuzz_die("token", d.cfg.token_file);
	fclose(fp);
	token[strcspn(token, "\r\n")] = '\0';
	return 0;
}

/*
 * A client socket: 5 s to read, 0.5 s to connect (then 5 s to write), and
 * closed with a reset, so thousands of connections a second leave no
 * TIME_WAIT behind to exhaust the ports.
 */
static int
fuzz_socket(void)
{
	struct timeval	tv = { 5, 0 }, tvc = { 0, 500000 };
	struct linger	lin = { 1, 0 };
	int		fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		abort();
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tvc, sizeof(tvc));
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	return fd;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in	 sin;
	struct timeval		 tv = { 5, 0 };
	const uint8_t		*nl, *body;
	char			*req, line[1024], resp[512];
	size_t			 linelen, bodylen, n, got = 0;
	ssize_t			 r;
	int			 fd, status = 0, flags, tries;

	if (size < 1 || size > 8192)
		return 0;
	flags = data[0];
	nl = memchr(data + 1, '\n', size - 1);
	linelen = nl ? (size_t)(nl - data - 1) : size - 1;
	if (linelen >= sizeof(line))
		return 0;
	memcpy(line, data + 1, linelen);
	line[linelen] = '\0';
	body = nl ? nl + 1 : data + size;
	bodylen = (size_t)(data + size - body);
	if (strchr(line, ' ') == NULL) {
		/* "TARGET" alone: a GET. */
		if (linelen + 4 >= sizeof(line))
			return 0;
		memmove(line + 4, line, linelen + 1);
		memcpy(line, "GET ", 4);
	}
	n = strlen(line) + bodylen + 512;
	if ((req = malloc(n)) == NULL)
		return 0;
	n = (size_t)snprintf(req, n, "%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
	    "%s%s%s%s%sContent-Length: %zu\r\nConnection: close\r\n\r\n",
	    line, port,
	    flags & 1 ? "Authorization: Bearer " : "",
	    flags & 1 ? token : "", flags & 1 ? "\r\n" : "",
	    flags & 2 ? "Authorization: Bearer 00000000000000000000000000000000\r\n" : "",
	    flags & 4 ? "Content-Type: application/json\r\n" : "", bodylen);
	memcpy(req + n, body, bodylen);
	n += bodylen;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = fuzz_socket();
	/*
	 * libFuzzer's SIGALRM interrupts a connect now and then (EINTR: the
	 * first CI run stopped on it), and at thousands of connections a
	 * second the backlog can be full for a moment: try again. A server
	 * that accepts nothing for about 8 s (libFuzzer's timeout is 10 s) is
	 * the finding.
	 */
	for (tries = 0; connect(fd, (struct sockaddr *)&sin,
	    sizeof(sin)) == -1; tries++) {
		if (tries == 8) {
			snprintf(line, sizeof(line), "the API accepted no "
			    "connection for 8 s: %s", strerror(errno));
			fuzz_die("connect", line);
		}
		fprintf(stderr, "fuzz_api: connect: %s; again in 0.5 s\n",
		    strerror(errno));
		close(fd);
		usleep(500000);
		fd = fuzz_socket();
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	/* The server may answer and close before the whole body is sent. */
	(void)send(fd, req, n, MSG_NOSIGNAL);
	free(req);
	while (got < sizeof(resp) - 1 &&
	    (r = recv(fd, resp + got, sizeof(resp) - 1 - got, 0)) > 0)
		got += (size_t)r;
	/* Read to the end, so the next connection starts clean. */
	while (got == sizeof(resp) - 1 &&
	    (r = recv(fd, line, sizeof(line), 0)) > 0)
		;
	close(fd);
	resp[got] = '\0';
	if (got == 0)
		return 0;	/* closed without an answer: refused at the door */
	if (sscanf(resp, "HTTP/1.%*1[01] %d", &status) != 1)
		fuzz_die("answer", "not HTTP");
	if (status == 500)
		fuzz_die("answer", resp);
	return 0;
}
