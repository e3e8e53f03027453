/*
 * api/static.c: the dashboard's files: GET / (index.html) and
 * GET /static/NAME, from the copy built into the binary, or from the
 * directory web_root names (for development; Chart.js, which is not part
 * of web/, still comes from the binary). Names are flat: letters,
 * digits, '.', '-', '_', no leading dot; anything else is 404, so no path
 * can leave web/. Every page goes out with a strict Content-Security-Policy
 * (no inline script, nothing from elsewhere) and nosniff.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_impl.h"

#define STATIC_FILE_MAX	(4 << 20)

static const char csp[] = "default-src 'self'; script-src 'self'; "
    "style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

static int
static_name_ok(const char *name)
{
	size_t	i;

	if (name[0] == '\0' || name[0] == '.' || strlen(name) > 64)
		return 0;
	for (i = 0; name[i] != '\0'; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '.' &&
		    name[i] != '-' && name[i] != '_')
			return 0;
	return strstr(name, "..") == NULL;
}

static const char *
static_type(const char *name)
{
	static const struct { const char *ext, *type; } types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".json", "application/json" },
		{ ".ico", "image/x-icon" },
	};
	const char	*dot = strrchr(name, '.');
	size_t		 i;

	for (i = 0; dot != NULL && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(dot, types[i].ext) == 0)
			return types[i].type;
	return "application/octet-stream";
}

/* The bytes of name: built in, or read from web_root (malloc'd). */
static int
static_lookup(struct api_server *s, const char *name, const void **data,
    size_t *len, void **owned)
{
	char		path[API_PATH_MAX + 80], root[API_PATH_MAX];
	struct stat	sb;
	size_t		i;
	ssize_t		n;
	int		fd;

	*owned = NULL;
	pthread_mutex_lock(&s->lock);
	snprintf(root, sizeof(root), "%s", s->cfg.web_root);
	pthread_mutex_unlock(&s->lock);
	if (root[0] == '\0')
		goto builtin;
	snprintf(path, sizeof(path), "%s/%s", root, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		/* Chart.js is not part of web/: the binary has it. */
		if (errno == ENOENT && strcmp(name, "chart.min.js") == 0)
			goto builtin;
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > STATIC_FILE_MAX ||
	    (*owned = malloc((size_t)sb.st_size + 1)) == NULL) {
		close(fd);
		return -1;
	}
	n = read(fd, *owned, (size_t)sb.st_size);
	close(fd);
	if (n != sb.st_size) {
		free(*owned);
		*owned = NULL;
		return -1;
	}
	*data = *owned;
	*len = (size_t)n;
	return 0;
builtin:
	for (i = 0; api_web_files[i].name != NULL; i++)
		if (strcmp(api_web_files[i].name, name) == 0) {
			*data = api_web_files[i].data;
			*len = api_web_files[i].len;
			return 0;
		}
	return -1;
}

static int
static_serve(struct api_server *s, const char *name, struct api_reply *rep)
{
	const void		*data;
	void			*owned;
	size_t			 len;

	if (!static_name_ok(name) ||
	    static_lookup(s, name, &data, &len, &owned) == -1)
		return api_fail(rep, PROB_NOT_FOUND, NULL, "no such file",
		    NULL, 0);
	rep->status = 200;
	rep->body = owned;
	rep->data = data;
	rep->len = len;
	api_reply_header(rep, "Content-Type", static_type(name));
	api_reply_header(rep, "Content-Security-Policy", csp);
	api_reply_header(rep, "X-Content-Type-Options", "nosniff");
	api_reply_header(rep, "X-Frame-Options", "DENY");
	api_reply_header(rep, "Referrer-Policy", "no-referrer");
	api_reply_header(rep, "Cache-Control", "no-cache");
	return 0;
}

int
h_index(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	(void)r;
	(void)arg;
	(void)c;
	return static_serve(s, "index.html", rep);
}

int
h_static(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	(void)r;
	(void)c;
	return static_serve(s, arg, rep);
}

extern const unsigned char	api_openapi_json[];
extern const unsigned long	api_openapi_json_len;

int
h_openapi(struct api_server *s, struct MHD_Connection *c,
    struct api_request *r, const char *arg, struct api_reply *rep)
{
	(void)s;
	(void)c;
	(void)r;
	(void)arg;
	rep->status = 200;
	rep->data = api_openapi_json;
	rep->len = api_openapi_json_len;
	api_reply_header(rep, "Content-Type", "application/json");
	api_reply_header(rep, "X-Content-Type-Options", "nosniff");
	return 0;
}
