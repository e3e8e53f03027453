/*
 * api/server.c: the listener and the checks every request passes at the
 * door, before any handler runs:
 *
 *   - a Host header on the allow-list (the listen address, localhost and
 *     the configured names), else 421;
 *   - not both Content-Length and Transfer-Encoding, and neither Host
 *     nor Content-Length twice, else 400;
 *   - a path and query of API_URI_MAX bytes at most, else 414;
 *   - a body no larger than API_BODY_MAX (413 on a Content-Length over it
 *     at once, or as soon as a chunked body passes it);
 *   - headers and body in by request_timeout, however slowly they come
 *     (closed at the deadline; 408 to a body still coming);
 *   - POST bodies as application/json, else 415;
 *   - a route and a method (404; 405 with Allow);
 *   - a bearer token for mutations (401 with WWW-Authenticate), compared
 *     as fixed-length digests in constant time; the right token always
 *     passes, wrong ones per address are limited (then 429).
 *
 * libmicrohttpd runs an internal epoll thread pool with a connection
 * limit, a per-address limit, an idle timeout, a memory limit per
 * connection and a fixed thread stack size; a sweeper thread of ours
 * enforces the request deadline. The handler is called once with the
 * headers, once per piece of body, and once more when the whole request
 * is in: a request's answer is queued on that last call. What the headers
 * alone refuse (both Content-Length and Transfer-Encoding, a
 * Content-Length over the cap, headers past the deadline) is queued on the
 * first call: 0.9.75 then reads no body of a POST and closes the
 * connection after the answer. A body refused while it is coming in is
 * answered by api_refuse_body(), as 0.9.75 queues nothing between the
 * headers and the end of the body.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "api_impl.h"

const struct api_route api_routes[] = {
	{ "GET", "/healthz", 0, 0, h_healthz },
	{ "GET", "/readyz", 0, 0, h_readyz },
	{ "GET", "/metrics", 0, 0, h_metrics },
	{ "GET", "/v1/recommendation", 0, 0, h_recommendation },
	{ "GET", "/v1/presets", 0, 0, h_presets },
	{ "GET", "/v1/runs", 0, 0, h_runs_list },
	{ "POST", "/v1/runs", 0, 1, h_runs_post },
	{ "GET", "/v1/runs/", 1, 0, h_run_get },
	{ "DELETE", "/v1/runs/", 1, 1, h_run_delete },
	{ "POST", "/v1/check", 0, 0, h_check },
	{ "GET", "/v1/hosts", 0, 0, h_hosts },
	{ "GET", "/v1/model", 0, 0, h_model },
	{ "GET", "/v1/hosts/", 1, 0, h_host_get },
	{ "GET", "/v1/openapi.json", 0, 0, h_openapi },
	{ "POST", "/v1/observations", 0, 1, h_observations_post },
	{ "GET", "/v1/observations", 0, 0, h_observations_get },
	{ "DELETE", "/v1/observations", 0, 1, h_observations_delete },
	{ "GET", "/", 0, 0, h_index },
	{ "GET", "/static/", 1, 0, h_static },
};
const size_t api_nroutes = sizeof(api_routes) / sizeof(api_routes[0]);
/* The counters have a row per route and one more, "other", after them. */
_Static_assert(sizeof(api_routes) / sizeof(api_routes[0]) == API_ROUTES,
    "API_ROUTES must count api_routes");

/* The methods counted apart; any other is "other". */
const char *const api_methods[API_METHODS] = {
	"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "other"
};

const double api_latency_bounds[API_LATENCY_BUCKETS] = {
	0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1
};

double
api_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
api_bucket_refill(double *tokens, double *refilled, double rate,
    double burst)
{
	double	now = api_now();

	if (*refilled > 0) {
		*tokens += (now - *refilled) * rate;
		if (*tokens > burst)
			*tokens = burst;
	}
	*refilled = now;
}

/*
 * The token in the file fd (path, for messages) is read into buf (len: its
 * length, to the first line's end): a regular file only its owner may
 * read, of a line of 16 characters or more. 0, or -1 with err. fd is
 * closed.
 */
void
api_log(const struct api_server *s, enum api_log_level level, const char *fmt,
    ...)
{
	char	msg[1024];
	va_list	ap;

	if (s == NULL || s->env.log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->env.log(s->env.ctx, level, msg);
}

/*
 * libmicrohttpd's own messages (a request it could not parse, a socket
 * error): into the daemon's log, one line each, as every other message
 * (they went to stderr raw, outside a JSON log's lines).
 */
static void
api_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct api_server	*s = cls;
	char			 msg[512], out[4 * 160 + 1], *html;
	const unsigned char	*p;
	unsigned long		 dropped;
	size_t			 n = 0;

	/*
	 * A client makes one with every malformed request: at most
	 * API_MHD_LOG_BURST at once and API_MHD_LOG_RATE a second, the rest
	 * counted and said with the next one, so that a flood cannot bury
	 * the daemon's own warnings.
	 */
	pthread_mutex_lock(&s->lock);
	api_bucket_refill(&s->mhd_log_tokens, &s->mhd_log_refilled,
	    API_MHD_LOG_RATE, API_MHD_LOG_BURST);
	if (s->mhd_log_tokens < 1) {
		s->mhd_log_dropped++;
		pthread_mutex_unlock(&s->lock);
		return;
	}
	s->mhd_log_tokens -= 1;
	dropped = s->mhd_log_dropped;
	s->mhd_log_dropped = 0;
	pthread_mutex_unlock(&s->lock);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* The HTML error page it would send is no news. */
	if ((html = strstr(msg, " ('<html>")) != NULL)
		strcpy(html, ")");
	/*
	 * The client's bytes (a path) may be in it: every byte that is not
	 * printable ASCII, and the backslash, as \xNN (a newline would
	 * start a line of the client's, an escape sequence rewrite a
	 * terminal's), the line's end dropped, its first 160 bytes.
	 */
	for (p = (const unsigned char *)msg; *p != '\0' &&
	    p < (const unsigned char *)msg + 160; p++) {
		if (*p == '\n' && p[1] == '\0')
			break;
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			out[n++] = (char)*p;
		else
			n += (size_t)snprintf(out + n, sizeof(out) - n,
			    "\\x%02x", *p);
	}
	out[n] = '\0';
	if (dropped > 0)
		api_log(s, API_LOG_WARN, "http: %s (and %lu more such messages "
		    "not logged)", out, dropped);
	else
		api_log(s, API_LOG_WARN, "http: %s", out);
}

static int
api_token_read(int fd, const char *path, char *buf, size_t buflen,
    size_t *len, char *err, size_t errlen)
{
	struct stat	sb;
	ssize_t		n;
	size_t		i;

	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(err, errlen, "token file %s is not a regular file",
		    path);
		return -1;
	}
	n = read(fd, buf, buflen - 1);
	close(fd);
	if (n <= 0) {
		snprintf(err, errlen, "token file %s is empty", path);
		return -1;
	}
	buf[n] = '\0';
	*len = strcspn(buf, "\r\n");
	/*
	 * A token: one line of 16 to API_TOKEN_TEXT_MAX printable
	 * characters. Anything else (control or binary bytes, a longer line,
	 * more lines) is a file named by mistake, said so before its mode is
	 * (chmod would be the wrong advice).
	 */
	for (i = 0; i < *len && buf[i] >= 0x20 && buf[i] < 0x7f; i++)
		;
	/* Spaces around it: a client trims them, and never matches. */
	if (i < *len || *len > API_TOKEN_TEXT_MAX || (*len > 0 &&
	    (buf[0] == ' ' || buf[*len - 1] == ' ')) || memchr(buf, '\0',
	    (size_t)n) != NULL || strspn(buf + *len, "\r\n") !=
	    (size_t)n - *len) {
		sodium_memzero(buf, buflen);
		snprintf(err, errlen, "token file %s does not hold a token (one "
		    "line of 16 to %d printable characters): refused, left as "
		    "it is", path, API_TOKEN_TEXT_MAX);
		return -1;
	}
	if (*len < 16) {
		sodium_memzero(buf, buflen);
		snprintf(err, errlen, "token in %s is shorter than 16 "
		    "characters", path);
		return -1;
	}
	if (sb.st_mode & 077) {
		sodium_memzero(buf, buflen);
		snprintf(err, errlen, "token file %s can be read by others "
		    "(mode %03o): chmod 600 it", path,
		    (unsigned)(sb.st_mode & 0777));
		return -1;
	}
	return 0;
}

/* Why the token file could not be opened (errno), in err. */
static void
api_token_open_error(const char *path, char *err, size_t errlen)
{
	if (errno == ELOOP)
		snprintf(err, errlen, "token file %s is a symbolic link: "
		    "refused (name the file itself)", path);
	else
		snprintf(err, errlen, "token file %s: %s", path,
		    strerror(errno));
}

int
api_token_check(const char *path, char *err, size_t errlen)
{
	char	buf[512];
	size_t	len;
	int	fd, rc;

	/* O_NONBLOCK: a FIFO named by mistake is refused, not waited on. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1) {
		if (errno == ENOENT)
			return 1;
		api_token_open_error(path, err, errlen);
		return -1;
	}
	rc = api_token_read(fd, path, buf, sizeof(buf), &len, err, errlen);
	sodium_memzero(buf, sizeof(buf));
	return rc;
}

/*
 * The token: hex in a file only its owner may read. On first start with
 * none, a random one is written there (0600); the path is logged, never
 * the token.
 */
int
api_token_load(struct api_server *s, const char *path, char *err,
    size_t errlen)
{
	uint8_t		raw[API_TOKEN_LEN];
	char		hex[2 * API_TOKEN_LEN + 2], buf[512];
	size_t		len;
	int		fd;

	/* O_NONBLOCK: a FIFO named by mistake (at start or in a reload) is
	   refused as not a regular file, not waited on. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1) {
		if (errno != ENOENT) {
			api_token_open_error(path, err, errlen);
			return -1;
		}
		randombytes_buf(raw, sizeof(raw));
		sodium_bin2hex(hex, sizeof(hex), raw, sizeof(raw));
		sodium_memzero(raw, sizeof(raw));
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd == -1 || write(fd, hex, strlen(hex)) !=
		    (ssize_t)strlen(hex) || write(fd, "\n", 1) != 1) {
			snprintf(err, errlen, "cannot write a new token to %s: "
			    "%s", path, strerror(errno));
			if (fd != -1)
				close(fd);
			sodium_memzero(hex, sizeof(hex));
			return -1;
		}
		close(fd);
		api_log(s, API_LOG_INFO, "no token file: wrote a new random "
		    "token to %s (mode 0600)", path);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
		    O_NONBLOCK);
		sodium_memzero(hex, sizeof(hex));
		if (fd == -1) {
			snprintf(err, errlen, "token file %s: %s", path,
			    strerror(errno));
			return -1;
		}
	}
	if (api_token_read(fd, path, buf, sizeof(buf), &len, err,
	    errlen) == -1)
		return -1;
	pthread_mutex_lock(&s->lock);
	crypto_generichash(s->token_digest, sizeof(s->token_digest),
	    (const uint8_t *)buf, len, NULL, 0);
	s->have_token = 1;
	pthread_mutex_unlock(&s->lock);
	sodium_memzero(buf, sizeof(buf));
	return 0;
}

/* The client's address as the limiter keys it (struct api_peer). */
static void
api_peer_of(struct MHD_Connection *c, struct api_peer *k)
{
	const union MHD_ConnectionInfo	*ci;
	const struct sockaddr		*sa;
	const struct in6_addr		*a6;

	memset(k, 0, sizeof(*k));
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || (sa = ci->client_addr) == NULL)
		return;
	if (sa->sa_family == AF_INET) {
		k->family = 4;
		memcpy(k->addr, &((const struct sockaddr_in *)(const void *)
		    sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		a6 = &((const struct sockaddr_in6 *)(const void *)sa)->
		    sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			k->family = 4;
			memcpy(k->addr, a6->s6_addr + 12, 4);
		} else {
			k->family = 6;
			memcpy(k->addr, a6->s6_addr, 8);
		}
	}
}

/*
 * Is the bearer token right? 0 yes; 1 no (401); 2 no, and too many wrong
 * tokens from this address in its window (429, *retry seconds left).
 *
 * The token is checked first: the right one always passes, whatever came
 * from its address before. A request without Authorization is a plain 401
 * and counts nothing (a browser's no-cors fetch cannot send one); any
 * other wrong token counts a failure for its address.
 *
 * The table follows API_FAIL_SLOTS addresses, scanned in full (an address
 * is found or not, never mistaken for another). A slot whose window has
 * ended is reused; when all are live, the wrong token of an address not
 * in the table is refused with 429 and nothing is evicted. An attacker
 * with many addresses therefore cannot push its own counts out to start
 * again: the most wrong tokens answered with 401 are API_FAIL_SLOTS x
 * auth_failures_per_minute a minute in all. The price is that others'
 * wrong tokens meanwhile get 429 instead of 401; the right token still
 * passes.
 */
static int
api_auth(struct api_server *s, struct MHD_Connection *c, unsigned *retry)
{
	const char	*h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
			    "Authorization");
	struct api_peer	 peer;
	struct api_fail	*f, *slot = NULL;
	uint8_t		 digest[32];
	time_t		 now;
	size_t		 i;
	int		 ok;

	if (h == NULL)
		return 1;
	/*
	 * "Bearer", one space or more, the token (RFC 9110 11.4: 1*SP; the
	 * scheme in any case, 11.1); the digest makes every comparison 32
	 * bytes.
	 */
	ok = strncasecmp(h, "Bearer ", 7) == 0;
	if (ok) {
		h += strspn(h + 6, " ") + 6;
		ok = *h != '\0';
	}
	if (ok) {
		crypto_generichash(digest, sizeof(digest),
		    (const uint8_t *)h, strlen(h), NULL, 0);
		pthread_mutex_lock(&s->lock);
		ok = s->have_token && sodium_memcmp(digest, s->token_digest,
		    sizeof(digest)) == 0;
		pthread_mutex_unlock(&s->lock);
		sodium_memzero(digest, sizeof(digest));
	}
	if (ok)
		return 0;

	api_peer_of(c, &peer);
	now = (time_t)api_now();
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < API_FAIL_SLOTS; i++) {
		f = &s->fails[i];
		if (f->count > 0 && now - f->window >= API_FAIL_WINDOW_S)
			f->count = 0;		/* its window ended */
		if (f->count > 0 && memcmp(&f->peer, &peer,
		    sizeof(peer)) == 0) {
			slot = f;
			break;
		}
		if (f->count == 0 && slot == NULL)
			slot = f;
	}
	if (slot == NULL) {
		/* Every slot is another address's, in its window. */
		pthread_mutex_unlock(&s->lock);
		*retry = API_FAIL_WINDOW_S;
		return 2;
	}
	if (slot->count == 0) {
		slot->peer = peer;
		slot->window = now;
	}
	if (slot->count >= s->cfg.auth_failures_per_minute) {
		*retry = (unsigned)(API_FAIL_WINDOW_S - (now - slot->window));
		pthread_mutex_unlock(&s->lock);
		return 2;
	}
	slot->count++;
	pthread_mutex_unlock(&s->lock);
	return 1;
}

/* Host must name this server: the listen address, localhost, or a name. */
static int
api_host_allowed(struct api_server *s, struct MHD_Connection *c)
{
	const char	*host = MHD_lookup_connection_value(c,
			    MHD_HEADER_KIND, "Host");
	const char	*addr = s->cfg.listen_addr;
	char		 name[160];
	size_t		 i, n;
	int		 ok = 0;

	if (host == NULL)
		return 0;
	/* Strip the port: "name:port" or "[v6]:port". */
	n = strlen(host);
	if (n >= sizeof(name))
		return 0;
	memcpy(name, host, n + 1);
	if (name[0] == '[') {
		char *end = strchr(name, ']');

		if (end == NULL)
			return 0;
		*end = '\0';
		memmove(name, name + 1, strlen(name + 1) + 1);
	} else if (strchr(name, ':') != NULL)
		*strchr(name, ':') = '\0';
	if (strcmp(name, "localhost") == 0 || strcmp(name, "127.0.0.1") == 0 ||
	    strcmp(name, "::1") == 0)
		return 1;
	/* The names are read at start: only the lock's copy of them. */
	pthread_mutex_lock(&s->lock);
	if (addr[0] != '\0' && strcmp(name, addr) == 0 &&
	    strcmp(addr, "0.0.0.0") != 0 &&
	    strcmp(addr, "::") != 0)
		ok = 1;
	for (i = 0; !ok && i < s->cfg.nallowed_hosts; i++)
		if (strcasecmp(name, s->cfg.allowed_hosts[i]) == 0)
			ok = 1;
	pthread_mutex_unlock(&s->lock);
	return ok;
}

/* method's place in api_methods[]: the last, "other", for any other. */
static size_t
api_method_of(const char *method)
{
	size_t	i;

	for (i = 0; method != NULL && i < API_METHODS - 1; i++)
		if (strcmp(method, api_methods[i]) == 0)
			break;
	return method != NULL ? i : API_METHODS - 1;
}

/*
 * Count an answer (status 0: none was sent) of route (API_ROUTES: no
 * route's path) to method. The labels a request can have are bounded
 * (routes, methods, the codes the server answers): a (route, method,
 * code) past API_HIT_SLOTS, which they do not reach, would go uncounted
 * in requests, though not in latency.
 */
static void
api_count(struct api_server *s, size_t route, const char *method,
    int status, double seconds)
{
	struct api_latency	*l;
	struct api_hit		*h;
	size_t			 b, i, m = api_method_of(method);

	pthread_mutex_lock(&s->lock);
	if (status >= 100 && status < 600) {
		for (i = 0; i < s->nhits; i++) {
			h = &s->hits[i];
			if (h->route == route && h->method == m &&
			    h->code == status)
				break;
		}
		if (i == s->nhits && i < API_HIT_SLOTS) {
			h = &s->hits[s->nhits++];
			h->route = (uint8_t)route;
			h->method = (uint8_t)m;
			h->code = (uint16_t)status;
		}
		if (i < API_HIT_SLOTS)
			s->hits[i].n++;
	}
	for (b = 0; b < API_LATENCY_BUCKETS &&
	    seconds > api_latency_bounds[b]; b++)
		;
	l = &s->latency[route][m];
	l->bucket[b]++;
	l->sum += seconds;
	l->count++;
	pthread_mutex_unlock(&s->lock);
}

/*
 * The request deadline (request_timeout). libmicrohttpd's
 * connection_timeout is an idle timeout that every byte resets: one
 * header line every few seconds would hold a connection for ever, and 64
 * per address, 256 in all, hold the server. So every connection is
 * followed here from its start (MHD_OPTION_NOTIFY_CONNECTION) to its
 * close, and its request's headers and body must be in by
 * request_timeout from the connection's start, or, on a kept-alive
 * connection, from the end of the previous answer: the sweeper thread
 * shuts the socket down (both ways) at that moment, and libmicrohttpd,
 * reading the end of file, closes the connection. While the body is
 * coming, the sweeper waits API_BODY_GRACE_S more: a body byte that comes
 * after the deadline is answered 408 (api_refuse_body), so a client still
 * sending learns why; a silent one is cut. Once the whole request is in,
 * no deadline applies until its answer is sent (the idle timeout does).
 *
 * libmicrohttpd 0.9.75 notifies CLOSED before it closes the descriptor,
 * and the sweeper shuts a descriptor down only while its connection is
 * listed, under conn_lock, which the CLOSED notification takes to unlist
 * it: the descriptor cannot have been closed and reused by then.
 */
static struct api_conn *
api_conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo	*ci;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci != NULL ? ci->socket_context : NULL;
}

/*
 * A request of k begins: its deadline runs from now. The sweeper is woken
 * when it waits for nothing or for a later moment (a body's grace).
 * conn_lock held.
 */
static void
api_conn_begin(struct api_server *s, struct api_conn *k)
{
	double	due;

	k->since = api_now();
	k->phase = API_CONN_REQUEST;
	due = k->since + s->request_timeout;
	if (s->sweep_due < 0 || due < s->sweep_due) {
		s->sweep_due = due;
		pthread_cond_signal(&s->conn_cv);
	}
}

static void
api_conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
    enum MHD_ConnectionNotificationCode toe)
{
	struct api_server		*s = cls;
	struct api_conn			*k;
	const union MHD_ConnectionInfo	*ci;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		/* Not followed without memory: the idle timeout still is. */
		*socket_context = NULL;
		ci = MHD_get_connection_info(c,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		if (ci == NULL || (k = calloc(1, sizeof(*k))) == NULL)
			return;
		k->fd = ci->connect_fd;
		pthread_mutex_lock(&s->conn_lock);
		if ((k->next = s->conns) != NULL)
			k->next->prev = k;
		s->conns = k;
		api_conn_begin(s, k);
		pthread_mutex_unlock(&s->conn_lock);
		*socket_context = k;
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED &&
	    (k = *socket_context) != NULL) {
		pthread_mutex_lock(&s->conn_lock);
		if (k->prev != NULL)
			k->prev->next = k->next;
		else
			s->conns = k->next;
		if (k->next != NULL)
			k->next->prev = k->prev;
		pthread_mutex_unlock(&s->conn_lock);
		free(k);
		*socket_context = NULL;
	}
}

/*
 * Is the request of c past its deadline? Its connection moves on to phase
 * to: API_CONN_BODY once the headers are in, API_CONN_ANSWER once the
 * whole request is (or it is refused): no deadline until it is answered.
 */
static int
api_conn_late(struct api_server *s, struct MHD_Connection *c,
    enum api_conn_phase to)
{
	struct api_conn	*k = api_conn_of(c);
	int		 late;

	if (k == NULL)
		return 0;
	pthread_mutex_lock(&s->conn_lock);
	late = k->phase == API_CONN_CUT || ((k->phase == API_CONN_REQUEST ||
	    k->phase == API_CONN_BODY) && api_now() - k->since >=
	    s->request_timeout);
	if (k->phase == API_CONN_REQUEST || k->phase == API_CONN_BODY)
		k->phase = to;
	pthread_mutex_unlock(&s->conn_lock);
	return late;
}

/* The sweeper: shuts down the connections whose request is late. */
static void *
api_sweep(void *arg)
{
	struct api_server	*s = arg;
	struct api_conn		*k;
	struct timespec		 ts;
	double			 now, due, next;

	pthread_mutex_lock(&s->conn_lock);
	while (!s->stopping) {
		now = api_now();
		next = -1;
		for (k = s->conns; k != NULL; k = k->next) {
			if (k->phase != API_CONN_REQUEST &&
			    k->phase != API_CONN_BODY)
				continue;
			due = k->since + s->request_timeout +
			    (k->phase == API_CONN_BODY ? API_BODY_GRACE_S : 0);
			if (now >= due) {
				shutdown(k->fd, SHUT_RDWR);
				k->phase = API_CONN_CUT;
			} else if (next < 0 || due < next)
				next = due;
		}
		/* api_conn_begin() wakes it for an earlier deadline. */
		s->sweep_due = next;
		if (next < 0)
			pthread_cond_wait(&s->conn_cv, &s->conn_lock);
		else {
			ts.tv_sec = (time_t)next;
			ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
			pthread_cond_timedwait(&s->conn_cv, &s->conn_lock,
			    &ts);
		}
	}
	pthread_mutex_unlock(&s->conn_lock);
	return NULL;
}

/*
 * Refuse a request whose body is still coming in (over the cap, or past
 * its deadline). libmicrohttpd 0.9.75 queues no response between the end
 * of the headers and the end of the body: MHD_queue_response fails there,
 * and a handler's MHD_NO closes the connection without a word. So the
 * problem is written to the socket here (a few hundred bytes: the send
 * buffer of a connection that has sent nothing back takes them), the
 * socket is shut down both ways (the FIN follows the answer), and
 * libmicrohttpd, reading the end of file, closes the connection; the rest
 * of the body is never read. The handler is in libmicrohttpd's thread of
 * this connection: the descriptor is this connection's.
 */
static void
api_refuse_body(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *method, size_t route,
    enum api_problem p, const char *detail)
{
	const union MHD_ConnectionInfo	*ci;
	struct api_conn			*k;
	char				 msg[1024], *body;
	size_t				 off = 0;
	ssize_t				 n;
	int				 status = api_problem_status(p), len = -1;

	r->refused = 1 + (int)p;
	if ((ci = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_CONNECTION_FD)) == NULL)
		return;
	if ((body = api_problem_text(p, NULL, detail)) != NULL) {
		len = snprintf(msg, sizeof(msg), "HTTP/1.1 %d %s\r\n"
		    "Connection: close\r\nContent-Type: application/problem+json"
		    "\r\nX-Content-Type-Options: nosniff\r\nCache-Control: "
		    "no-store\r\nContent-Length: %zu\r\n\r\n%s", status,
		    MHD_get_reason_phrase_for((unsigned)status), strlen(body),
		    body);
		free(body);
	}
	while (len > 0 && (size_t)len < sizeof(msg) && off < (size_t)len)
		if ((n = send(ci->connect_fd, msg + off, (size_t)len - off,
		    MSG_NOSIGNAL)) > 0)
			off += (size_t)n;
		else if (n == -1 && errno == EINTR)
			continue;
		else
			break;
	shutdown(ci->connect_fd, SHUT_RDWR);
	if ((k = api_conn_of(c)) != NULL) {
		pthread_mutex_lock(&s->conn_lock);
		k->phase = API_CONN_CUT;
		pthread_mutex_unlock(&s->conn_lock);
	}
	api_count(s, route, method, status, api_now() - r->start);
}

/*
 * The route of method and url (API_ROUTES: none); *path: the first route
 * of url's path whatever the method (API_ROUTES: no route's path).
 */
static size_t
api_route_of(const char *method, const char *url, size_t *path)
{
	size_t	i, plen, route = API_ROUTES;

	*path = API_ROUTES;
	for (i = 0; i < api_nroutes; i++) {
		plen = strlen(api_routes[i].path);
		if (api_routes[i].prefix ? strncmp(url, api_routes[i].path,
		    plen) == 0 && url[plen] != '\0' &&
		    strchr(url + plen, '/') == NULL :
		    strcmp(url, api_routes[i].path) == 0) {
			if (*path == API_ROUTES)
				*path = i;
			if (strcmp(method, api_routes[i].method) == 0 &&
			    route == API_ROUTES)
				route = i;
		}
	}
	return route;
}

/* The route a request of method to url is counted under: its own, else
   its path's (a method the path does not take), else API_ROUTES. */
static size_t
api_route_counted(const char *method, const char *url)
{
	size_t	route, path;

	route = api_route_of(method, url, &path);
	return route != API_ROUTES ? route : path;
}

/* 405: the methods url takes, in Allow. */
static int
api_not_allowed(const char *url, struct api_reply *rep)
{
	char	allow[64];
	size_t	i, plen;

	allow[0] = '\0';
	for (i = 0; i < api_nroutes; i++) {
		plen = strlen(api_routes[i].path);
		if (api_routes[i].prefix ? strncmp(url, api_routes[i].path,
		    plen) == 0 : strcmp(url, api_routes[i].path) == 0) {
			if (allow[0] != '\0')
				strncat(allow, ", ", sizeof(allow) -
				    strlen(allow) - 1);
			strncat(allow, api_routes[i].method, sizeof(allow) -
			    strlen(allow) - 1);
		}
	}
	return api_fail(rep, PROB_METHOD, NULL, allow, json_pack("{s:s}",
	    "allow", allow), 0);
}

/*
 * The whole request is in: the checks at the door, then its handler.
 * rep gets the answer.
 */
static int
api_dispatch(struct api_server *s, struct MHD_Connection *c, const char *url,
    const char *method, struct api_request *r, struct api_reply *rep)
{
	const char	*ct;
	unsigned	 retry = 0;
	size_t		 route, path;
	int		 a;

	route = api_route_of(method, url, &path);
	if (!api_host_allowed(s, c))
		return api_fail(rep, PROB_MISDIRECTED, "Host", "the Host "
		    "header must name this server", NULL, 0);
	if (path == API_ROUTES)
		return api_fail(rep, PROB_NOT_FOUND, NULL, "no such resource",
		    NULL, 0);
	if (route == API_ROUTES)
		return api_not_allowed(url, rep);
	if (strcmp(method, "POST") == 0 && r->bodylen > 0 &&
	    ((ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Content-Type")) == NULL || strncmp(ct, "application/json", 16) !=
	    0 || (ct[16] != '\0' && ct[16] != ';')))
		return api_fail(rep, PROB_UNSUPPORTED_TYPE, "Content-Type",
		    "send the body as application/json", NULL, 0);
	if (api_routes[route].auth && (a = api_auth(s, c, &retry)) != 0)
		return a == 2 ? api_fail(rep, PROB_TOO_MANY, "Authorization",
		    "too many wrong tokens from this address: wait a minute",
		    NULL, retry > 0 ? retry : 1) : api_fail(rep,
		    PROB_UNAUTHORIZED, "Authorization", "send Authorization: "
		    "Bearer <token>, the token of the daemon's token file",
		    NULL, 0);
	return api_routes[route].fn(s, c, r, url +
	    strlen(api_routes[route].path), rep);
}

_Static_assert(API_URI_MAX == 2048, "api_headers() says 2048 bytes");

/* What api_headers() counts of a request's headers and query. */
struct api_head_count {
	unsigned	host, length;	/* Host and Content-Length headers */
	unsigned	spaced;		/* names with white space in them */
	size_t		query;		/* bytes of the query, decoded */
};

static enum MHD_Result
api_head_header(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct api_head_count	*n = cls;

	(void)kind;
	(void)value;
	/*
	 * "Host : x" is kept by libmicrohttpd as a name with a space: a
	 * proxy may read it as Host, so it is refused (RFC 9112 5.1).
	 */
	if (strpbrk(key, " \t") != NULL)
		n->spaced++;
	else if (strcasecmp(key, "Host") == 0)
		n->host++;
	else if (strcasecmp(key, "Content-Length") == 0)
		n->length++;
	return MHD_YES;
}

static enum MHD_Result
api_head_arg(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct api_head_count	*n = cls;

	(void)kind;
	n->query += strlen(key) + 2 + (value != NULL ? strlen(value) : 0);
	return MHD_YES;
}

/*
 * What the headers alone refuse: queued (and counted) on the first call,
 * or MHD_YES. A Host or a Content-Length given twice is refused (the
 * first would win here, a proxy in front may take the other), and so is
 * a path and query over API_URI_MAX.
 */
static enum MHD_Result
api_headers(struct api_server *s, struct MHD_Connection *c, const char *url,
    const char *method, const struct api_request *r, struct api_reply *rep)
{
	struct api_head_count	 n = { 0, 0, 0, 0 };
	const char		*cl, *te, *why = NULL;
	enum api_problem	 p;
	enum MHD_Result		 rc;
	int			 status;

	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Content-Length");
	te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Transfer-Encoding");
	(void)MHD_get_connection_values(c, MHD_HEADER_KIND, api_head_header,
	    &n);
	(void)MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, api_head_arg,
	    &n);
	if (n.spaced > 0 || n.host > 1 || n.length > 1) {
		p = PROB_BAD_REQUEST;
		why = n.spaced > 0 ? "white space in a header's name (before "
		    "its colon): refused" : n.host > 1 ? "Host given more "
		    "than once: refused" : "Content-Length given more than "
		    "once: refused";
	} else if (r->path_nul) {
		p = PROB_BAD_REQUEST;
		why = "a NUL byte (%00, or the byte itself) in the request "
		    "line: refused";
	} else if (strlen(url) + n.query > API_URI_MAX)
		p = PROB_URI_TOO_LONG;
	else if (cl != NULL && te != NULL)
		p = PROB_BAD_REQUEST;
	else if (cl != NULL && (strlen(cl) > 9 ||
	    strtoul(cl, NULL, 10) > API_BODY_MAX))
		p = PROB_TOO_LARGE;
	else if (api_conn_late(s, c, API_CONN_BODY))
		p = PROB_TIMEOUT;
	else
		return MHD_YES;
	api_conn_late(s, c, API_CONN_ANSWER);
	if (api_fail(rep, p, NULL, why != NULL ? why : p == PROB_URI_TOO_LONG ?
	    "the path and query may have 2048 bytes at most" :
	    p == PROB_BAD_REQUEST ? "both "
	    "Content-Length and Transfer-Encoding: refused" :
	    p == PROB_TOO_LARGE ? "the body may have 4096 bytes at most" :
	    "the request was not in within request_timeout", NULL, 0) == -1)
		return MHD_NO;
	status = rep->status;
	rc = api_queue(c, rep);
	api_count(s, api_route_counted(method, url), method, status,
	    api_now() - r->start);
	return rc;
}

/*
 * The request line's target as it came, before libmicrohttpd decodes it:
 * a %00 in the path would end the path the handlers are given there
 * ("/v1/runs/1%00abc" served run 1), so it is marked, and refused with
 * the headers; where the target's string lies is kept for api_raw_nul().
 * Returns the request's state: api_access()'s first *con_cls (NULL, out
 * of memory: api_access() closes the connection).
 */
static void *
api_uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct api_request	*r;
	size_t			 i, path = strcspn(uri, "?");

	(void)cls;
	(void)c;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	for (i = 0; i + 2 < path && !r->path_nul; i++)
		r->path_nul = uri[i] == '%' && uri[i + 1] == '0' &&
		    uri[i + 2] == '0';
	r->uri = (uintptr_t)uri;
	r->uri_end = (uintptr_t)(uri + strlen(uri));
	return r;
}

/*
 * Did the target or the method hold a NUL byte as it came (not %00: the
 * byte)? The request line is parsed in place, its target ended by the NUL
 * written over the space before the version (libmicrohttpd 0.9): the
 * version then starts one byte past the target's string. A version
 * further on, within the connection's memory (where the line is read), is
 * past a NUL the client sent; anywhere else, this libmicrohttpd lays the
 * line out otherwise, and nothing is concluded.
 */
static int
api_raw_nul(const struct api_server *s, const struct api_request *r,
    const char *method, const char *version)
{
	uintptr_t	v = (uintptr_t)version;
	const char	*e = method + strlen(method);

	if (r->uri_end != 0 && v > r->uri_end + 1 &&
	    v - r->uri_end <= s->conn_memory)
		return 1;
	/*
	 * The method the same way: its end, then the space made NUL, then
	 * only the spaces skipped before the target, in the line's buffer.
	 * Anything else between them is what followed a NUL the client sent
	 * ("GET\0junk /healthz" was served as GET).
	 */
	if (r->uri != 0 && r->uri > (uintptr_t)e && r->uri - (uintptr_t)e <=
	    s->conn_memory) {
		for (e++; (uintptr_t)e < r->uri; e++)
			if (*e != ' ')
				return 1;
	}
	return 0;
}

static enum MHD_Result
api_access(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
	struct api_server	*s = cls;
	struct api_request	*r = *con_cls;
	struct api_reply	 rep;
	size_t			 route = api_route_counted(method, url);
	enum MHD_Result		 rc;

	memset(&rep, 0, sizeof(rep));
	if (r == NULL || !r->begun) {
		/*
		 * First call: headers only. r is api_uri_seen()'s; none
		 * when it was out of memory, and then the target was not
		 * looked at: the connection is closed.
		 */
		if (r == NULL)
			return MHD_NO;
		r->begun = 1;
		r->start = api_now();	/* the latency counts from here */
		if (api_raw_nul(s, r, method, version))
			r->path_nul = 1;
		*con_cls = r;
		return api_headers(s, c, url, method, r, &rep);
	}
	if (*upload_data_size > 0) {
		/*
		 * A chunked body (a Content-Length over the cap was refused
		 * with the headers) that passes the cap is refused at once,
		 * not at its end.
		 */
		if (r->refused)
			;	/* what was already read past a refusal */
		else if (api_conn_late(s, c, API_CONN_BODY))
			api_refuse_body(s, c, r, method, route,
			    PROB_TIMEOUT, "the request was not in within "
			    "request_timeout");
		else if (r->bodylen + *upload_data_size > API_BODY_MAX)
			api_refuse_body(s, c, r, method, route,
			    PROB_TOO_LARGE, "the body may have 4096 bytes at "
			    "most");
		else {
			memcpy(r->body + r->bodylen, upload_data,
			    *upload_data_size);
			r->bodylen += *upload_data_size;
		}
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (r->refused) {	/* answered and shut down: never sent */
		if (api_fail(&rep, (enum api_problem)(r->refused - 1), NULL,
		    NULL, NULL, 0) == -1)
			return MHD_NO;
		return api_queue(c, &rep);
	}
	if (api_conn_late(s, c, API_CONN_ANSWER)) {
		if (api_fail(&rep, PROB_TIMEOUT, NULL, "the request was not "
		    "in within request_timeout", NULL, 0) == -1)
			return MHD_NO;
	} else if (api_dispatch(s, c, url, method, r, &rep) == -1) {
		api_reply_free(&rep);
		rep.status = 0;
	}
	rc = rep.status != 0 ? api_queue(c, &rep) : MHD_NO;
	api_count(s, route, method, rep.status, api_now() - r->start);
	return rc;
}

static void
api_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct api_server	*s = cls;
	struct api_conn		*k;

	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
	/* The next request on this connection has its deadline from now. */
	if ((k = api_conn_of(c)) != NULL) {
		pthread_mutex_lock(&s->conn_lock);
		if (k->phase != API_CONN_CUT)
			api_conn_begin(s, k);
		pthread_mutex_unlock(&s->conn_lock);
	}
}

static void
api_free(struct api_server *s)
{
	pthread_cond_destroy(&s->conn_cv);
	pthread_mutex_destroy(&s->conn_lock);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void
api_cfg(struct api_server *s, struct api_config *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->cfg;
	pthread_mutex_unlock(&s->lock);
}

void
api_state(struct api_server *s, struct api_state *out)
{
	s->env.state(s->env.ctx, out);
}

static void
api_model_copy(const struct model *m, const struct api_state *st, void *arg)
{
	struct api_model_copy	*mc = arg;

	if (m != NULL && (mc->m = malloc(sizeof(*mc->m))) != NULL)
		*mc->m = *m;
	mc->st = *st;
}

struct model *
api_model_dup(struct api_server *s, struct api_state *st)
{
	struct api_model_copy	mc;

	mc.m = NULL;
	s->env.with_model(s->env.ctx, api_model_copy, &mc);
	if (st != NULL)
		*st = mc.st;
	return mc.m;
}

int
api_store_is_pg(struct api_server *s)
{
	int	pg;

	pthread_mutex_lock(&s->lock);
	pg = db_is_postgresql(s->cfg.store);
	pthread_mutex_unlock(&s->lock);
	return pg;
}

void
api_store_note(struct api_server *s, enum db_status st, const char *err)
{
	s->env.store_note(s->env.ctx, st, err);
}

struct api_server *
api_start(const struct api_env *env, const struct api_config *cfg,
    int listen_fd, char *err, size_t errlen)
{
	struct api_server	*s;
	pthread_condattr_t	 ca;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->env = *env;
	s->cfg = *cfg;
	s->request_timeout = cfg->request_timeout;
	s->conn_memory = cfg->connection_memory;
	pthread_mutex_init(&s->lock, NULL);
	randombytes_buf(s->cache_key, sizeof(s->cache_key));
	s->answer_tokens = API_ANSWER_BURST;
	s->mhd_log_tokens = API_MHD_LOG_BURST;
	pthread_mutex_init(&s->conn_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->conn_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (api_token_load(s, cfg->token_file, err, errlen) == -1) {
		api_free(s);
		return NULL;
	}
	s->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
	    MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, api_access, s,
	    /* First: libmicrohttpd logs the options after it its own way. */
	    MHD_OPTION_EXTERNAL_LOGGER, api_mhd_log, s,
	    MHD_OPTION_LISTEN_SOCKET, listen_fd,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)cfg->threads,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)cfg->max_connections,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    (unsigned int)cfg->max_connections_per_ip,
	    MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned int)cfg->connection_timeout,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    (size_t)cfg->connection_memory,
	    MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024),
	    MHD_OPTION_NOTIFY_COMPLETED, api_completed, s,
	    MHD_OPTION_NOTIFY_CONNECTION, api_conn_notify, s,
	    MHD_OPTION_URI_LOG_CALLBACK, api_uri_seen, s,
	    MHD_OPTION_END);
	if (s->mhd == NULL) {
		snprintf(err, errlen, "cannot start the HTTP server on %s",
		    cfg->listen);
		api_free(s);
		return NULL;
	}
	if ((errno = pthread_create(&s->sweeper, NULL, api_sweep, s)) != 0) {
		snprintf(err, errlen, "cannot start the request sweeper: %s",
		    strerror(errno));
		MHD_stop_daemon(s->mhd);
		api_free(s);
		return NULL;
	}
	s->sweeper_running = 1;
	return s;
}

void
api_stop(struct api_server *s)
{
	size_t	i;

	if (s == NULL)
		return;
	if (s->sweeper_running) {
		pthread_mutex_lock(&s->conn_lock);
		s->stopping = 1;
		pthread_cond_signal(&s->conn_cv);
		pthread_mutex_unlock(&s->conn_lock);
		pthread_join(s->sweeper, NULL);
	}
	MHD_stop_daemon(s->mhd);	/* each connection's CLOSED frees it */
	for (i = 0; i < API_CACHE_SLOTS; i++)
		free(s->cache[i].body);
	api_hosts_free(s);
	api_fleet_free(s);
	sodium_memzero(s->token_digest, sizeof(s->token_digest));
	api_free(s);
}

int
api_reload(struct api_server *s, const struct api_config *cfg, char *err,
    size_t errlen)
{
	pthread_mutex_lock(&s->lock);
	s->cfg = *cfg;
	pthread_mutex_unlock(&s->lock);
	return api_token_load(s, cfg->token_file, err, errlen);
}
