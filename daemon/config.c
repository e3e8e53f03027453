/*
 * daemon/config.c: pwtuned's configuration: defaults, then the file, then
 * PWTUNED_* variables, then flags. One "key = value" per line, '#' starts
 * a comment; systemd/pwtuned.conf explains every key. Unknown keys and bad
 * values are refused, naming the file, the line and the line's text.
 */
#include <sys/stat.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <unistd.h>

#include "api.h"
#include "daemon.h"
#include "probe.h"
#include "stack.h"
#include "units.h"

enum key_type { K_STRING, K_PATH, K_UINT, K_SIZE, K_LEVEL, K_FORMAT,
	K_PROFILE, K_HOSTS, K_LISTEN, K_TARGETS, K_STORE, K_GROUP, K_PROBES };

static const struct key {
	const char	*name;
	enum key_type	 type;
	size_t		 off;
	size_t		 len;		/* strings: buffer size */
	unsigned	 min, max;	/* numbers */
} keys[] = {
#define S(f)	offsetof(struct config, f), sizeof(((struct config *)0)->f)
#define U(f)	offsetof(struct config, f), 0
	{ "listen", K_LISTEN, S(listen), 0, 0 },
	{ "state_dir", K_PATH, S(state_dir), 0, 0 },
	{ "store", K_STORE, S(db), 0, 0 },
	{ "token_file", K_PATH, S(token_file), 0, 0 },
	{ "web_root", K_PATH, S(web_root), 0, 0 },
	{ "log_level", K_LEVEL, U(log_level), 0, 0 },
	{ "log_format", K_FORMAT, U(log_json), 0, 0 },
	{ "startup_profile", K_PROFILE, S(startup_profile), 0, 0 },
	{ "rebench_interval", K_UINT, U(rebench_interval), 0, 30 * 86400 },
	{ "memory_max", K_SIZE, U(memory_max), 0, 0 },
	{ "retention_runs", K_UINT, U(retention_runs), 1, 100000 },
	{ "max_connections", K_UINT, U(max_connections), 4, 10000 },
	{ "max_connections_per_ip", K_UINT, U(max_connections_per_ip), 1,
	    10000 },
	{ "connection_timeout", K_UINT, U(connection_timeout), 1, 600 },
	{ "request_timeout", K_UINT, U(request_timeout), 1, 600 },
	{ "connection_memory", K_UINT, U(connection_memory), 8192,
	    16 * 1024 * 1024 },
	{ "threads", K_UINT, U(threads), 1, 64 },
	{ "cooldown", K_UINT, U(cooldown), 0, 86400 },
	{ "auth_failures_per_minute", K_UINT, U(auth_failures_per_minute), 1,
	    10000 },
	{ "allowed_hosts", K_HOSTS, U(allowed_hosts), 0, 0 },
	{ "group", K_GROUP, S(group), 0, 0 },
	{ "fleet_max_age", K_UINT, U(fleet_max_age), 0, 3650 * 86400 },
	{ "verify_targets", K_TARGETS, U(verify_targets), 0, 0 },
	{ "probes", K_PROBES, S(probes), 0, 0 },
	{ "probe_dir", K_PATH, S(probe_dir), 0, 0 },
	{ "probe_timeout", K_UINT, U(probe_timeout), 5, 3600 },
	{ "check_budget", K_UINT, U(check_budget), 0, 100 },
	{ "check_interval", K_UINT, U(check_interval), 5, 30 * 86400 },
#undef S
#undef U
};

void
config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->listen, sizeof(c->listen), "%s", DAEMON_DEFAULT_LISTEN);
	snprintf(c->state_dir, sizeof(c->state_dir), "/var/lib/pwtuned");
	c->log_level = LOG_LEVEL_INFO;
	snprintf(c->startup_profile, sizeof(c->startup_profile), "quick");
	c->retention_runs = 50;
	c->max_connections = 256;
	c->max_connections_per_ip = 64;
	c->connection_timeout = 10;
	c->request_timeout = 10;
	c->connection_memory = 32 * 1024;
	c->threads = 2;
	c->cooldown = 60;
	c->auth_failures_per_minute = 10;
	c->fleet_max_age = 30 * 86400;
	c->verify_targets[0] = 100;
	c->verify_targets[1] = 250;
	c->verify_targets[2] = 500;
	c->nverify_targets = 3;
	snprintf(c->probes, sizeof(c->probes), "all");
	c->probe_timeout = PROBE_TIMEOUT_MAX;
	c->check_budget = 5;
	c->check_interval = 3600;
}

int
config_probe_enabled(const struct config *c, const char *name)
{
	char	 copy[sizeof(c->probes)], *tok, *save = NULL;

	if (strcmp(c->probes, "all") == 0)
		return 1;
	if (strcmp(c->probes, "none") == 0)
		return 0;
	snprintf(copy, sizeof(copy), "%s", c->probes);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, name) == 0)
			return 1;
	return 0;
}

/* Parse "ADDR:PORT" with ADDR an IPv4 address or [IPv6] (not checked:
   config_set does, as it takes the key). */
int
config_listen_addr(const struct config *c, char *addr, size_t addrlen,
    unsigned *port)
{
	const char	*colon = strrchr(c->listen, ':');
	char		*end;
	unsigned long	 p;
	size_t		 n;

	if (colon == NULL || colon == c->listen)
		return -1;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno != 0 || *end != '\0' || colon[1] == '\0' || p > 65535)
		return -1;
	n = (size_t)(colon - c->listen);
	if (c->listen[0] == '[') {
		if (colon[-1] != ']' || n < 3)
			return -1;
		if (n - 2 >= addrlen)
			return -1;
		memcpy(addr, c->listen + 1, n - 2);
		addr[n - 2] = '\0';
	} else {
		if (n >= addrlen)
			return -1;
		memcpy(addr, c->listen, n);
		addr[n] = '\0';
	}
	*port = (unsigned)p;
	return 0;
}

static int
config_parse_uint(const char *v, unsigned min, unsigned max, unsigned *out)
{
	unsigned long	 n;
	char		*end;

	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || n < min || n > max)
		return -1;
	*out = (unsigned)n;
	return 0;
}

int
config_set(struct config *c, const char *key, const char *value, char *err,
    size_t errlen)
{
	const struct key	*k = NULL;
	char			*field, copy[1024], *tok, *save = NULL;
	uint64_t		 kib;
	size_t			 i;

	/* The older name of the store, from before PostgreSQL. */
	if (strcmp(key, "db") == 0)
		key = "store";
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, key) == 0)
			k = &keys[i];
	if (k == NULL) {
		char	shown[64];

		/* Bytes that are not printable shown as '?', 60 at most. */
		for (i = 0; key[i] != '\0' && i < sizeof(shown) - 4; i++)
			shown[i] = key[i] > 0x20 && key[i] < 0x7f ? key[i] :
			    '?';
		snprintf(shown + i, sizeof(shown) - i, "%s", key[i] != '\0' ?
		    "..." : "");
		snprintf(err, errlen, "unknown key %s", shown);
		return -1;
	}
	field = (char *)c + k->off;
	switch (k->type) {
	case K_STORE:
		if (strstr(value, "://") != NULL && !db_is_postgresql(value)) {
			snprintf(err, errlen, "%s must be a file path or a "
			    "postgresql:// URI", key);
			return -1;
		}
		/* FALLTHROUGH */
	case K_GROUP:
		if (k->type == K_GROUP && value[strspn(value, "abcdefghijklmn"
		    "opqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")] !=
		    '\0') {
			snprintf(err, errlen, "%s may hold letters, digits, '.', "
			    "'_' and '-' only", key);
			return -1;
		}
		/* FALLTHROUGH */
	case K_STRING:
	case K_PATH:
	case K_LISTEN:
		if (strlen(value) >= k->len) {
			snprintf(err, errlen, "%s is longer than %zu characters",
			    key, k->len - 1);
			return -1;
		}
		snprintf(field, k->len, "%s", value);
		if (k->type == K_LISTEN) {
			char		addr[128];
			unsigned char	bin[16];
			unsigned	port;

			/* What listen_socket() binds: numbers, no name. */
			if (config_listen_addr(c, addr, sizeof(addr), &port) ==
			    -1 || inet_pton(strchr(addr, ':') != NULL ?
			    AF_INET6 : AF_INET, addr, bin) != 1) {
				snprintf(err, errlen, "listen must be "
				    "ADDRESS:PORT with a numeric address "
				    "(127.0.0.1:8421, [::1]:8421; no host "
				    "name)");
				return -1;
			}
		}
		return 0;
	case K_UINT:
		if (config_parse_uint(value, k->min, k->max,
		    (unsigned *)(void *)field) == -1) {
			snprintf(err, errlen, "%s must be a whole number from "
			    "%u to %u", key, k->min, k->max);
			return -1;
		}
		return 0;
	case K_SIZE:
		if (strcmp(value, "0") == 0) {
			c->memory_max = 0;
			return 0;
		}
		if (units_parse_kib(value, UNITS_MEMORY_MAX_KIB, &kib) == -1) {
			snprintf(err, errlen, "%s must be a size such as 1GiB, "
			    "512MiB or KiB as an integer, up to 1TiB (0: "
			    "the host's budget)", key);
			return -1;
		}
		c->memory_max = kib * 1024;
		return 0;
	case K_LEVEL:
		if (log_level_parse(value, &c->log_level) == -1) {
			snprintf(err, errlen, "log_level must be debug, info, "
			    "warn or error");
			return -1;
		}
		return 0;
	case K_FORMAT:
		if (strcmp(value, "text") == 0)
			c->log_json = 0;
		else if (strcmp(value, "json") == 0)
			c->log_json = 1;
		else {
			snprintf(err, errlen, "log_format must be text or json");
			return -1;
		}
		return 0;
	case K_PROFILE:
		if (strcmp(value, "quick") && strcmp(value, "full") &&
		    strcmp(value, "none")) {
			snprintf(err, errlen, "startup_profile must be quick, "
			    "full or none");
			return -1;
		}
		snprintf(c->startup_profile, sizeof(c->startup_profile), "%s",
		    value);
		return 0;
	case K_HOSTS:
		snprintf(copy, sizeof(copy), "%s", value);
		c->nallowed_hosts = 0;
		for (tok = strtok_r(copy, ", ", &save); tok != NULL;
		    tok = strtok_r(NULL, ", ", &save)) {
			if (c->nallowed_hosts == DAEMON_HOSTS_MAX ||
			    strlen(tok) >= sizeof(c->allowed_hosts[0])) {
				snprintf(err, errlen, "allowed_hosts takes at "
				    "most %d names of at most %zu characters",
				    DAEMON_HOSTS_MAX,
				    sizeof(c->allowed_hosts[0]) - 1);
				return -1;
			}
			snprintf(c->allowed_hosts[c->nallowed_hosts++],
			    sizeof(c->allowed_hosts[0]), "%s", tok);
		}
		return 0;
	case K_PROBES:
		/* all, none, or catalogue names: kept as "a,b,c". */
		if (strcmp(value, "all") == 0 || strcmp(value, "none") == 0) {
			snprintf(c->probes, sizeof(c->probes), "%s", value);
			return 0;
		}
		{
			char	list[sizeof(c->probes)], names[512];
			size_t	off = 0;

			snprintf(copy, sizeof(copy), "%s", value);
			list[0] = '\0';
			for (tok = strtok_r(copy, ", ", &save); tok != NULL;
			    tok = strtok_r(NULL, ", ", &save)) {
				if (stack_find(tok) == NULL) {
					stack_names(names, sizeof(names));
					snprintf(err, errlen, "probes takes all, "
					    "none or stacks of %s (\"%s\" is "
					    "none of them)", names, tok);
					return -1;
				}
				if (off + strlen(tok) + 2 > sizeof(list)) {
					snprintf(err, errlen, "probes is too "
					    "long");
					return -1;
				}
				off += (size_t)snprintf(list + off,
				    sizeof(list) - off, "%s%s", off ? "," : "",
				    tok);
			}
			if (off == 0) {
				snprintf(err, errlen, "probes is empty: write "
				    "none to run no probe");
				return -1;
			}
			snprintf(c->probes, sizeof(c->probes), "%s", list);
		}
		return 0;
	case K_TARGETS:
		snprintf(copy, sizeof(copy), "%s", value);
		c->nverify_targets = 0;
		if (strcmp(value, "none") == 0)
			return 0;
		for (tok = strtok_r(copy, ", ", &save); tok != NULL;
		    tok = strtok_r(NULL, ", ", &save)) {
			if (c->nverify_targets == DAEMON_TARGETS_MAX ||
			    config_parse_uint(tok, TUNE_TARGET_MIN_MS, 10000,
			    &c->verify_targets[c->nverify_targets]) == -1) {
				snprintf(err, errlen, "verify_targets takes "
				    "none, or at most %d targets in ms from "
				    "%d to 10000 (\"%s\")", DAEMON_TARGETS_MAX,
				    TUNE_TARGET_MIN_MS, tok);
				c->nverify_targets = 0;
				return -1;
			}
			c->nverify_targets++;
		}
		if (c->nverify_targets == 0) {
			snprintf(err, errlen, "verify_targets is empty: write "
			    "none to verify nothing");
			return -1;
		}
		return 0;
	}
	return -1;
}

static char *
config_trim(char *s)
{
	char	*end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

int
config_load_file(struct config *c, const char *path, int required, char *err,
    size_t errlen)
{
	FILE		*fp;
	struct stat	 sb;
	char		 line[2048], copy[2048], why[512], *key, *value, *eq;
	char		*hash;
	int		 lineno = 0, fd;

	/* O_NONBLOCK: a FIFO named by mistake is refused, not waited on. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		if (!required && errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file: not a "
		    "configuration", path);
		close(fd);
		return -1;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if ((fp = fdopen(fd, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(fp)) {
			snprintf(err, errlen, "%s:%d: line longer than %zu "
			    "characters", path, lineno, sizeof(line) - 2);
			fclose(fp);
			return -1;
		}
		line[strcspn(line, "\r\n")] = '\0';
		snprintf(copy, sizeof(copy), "%s", line);
		if ((hash = strchr(line, '#')) != NULL)
			*hash = '\0';
		key = config_trim(line);
		if (*key == '\0')
			continue;
		if ((eq = strchr(key, '=')) == NULL) {
			snprintf(err, errlen, "%s:%d: expected key = value: %s",
			    path, lineno, copy);
			fclose(fp);
			return -1;
		}
		*eq = '\0';
		value = config_trim(eq + 1);
		key = config_trim(key);
		if (config_set(c, key, value, why, sizeof(why)) == -1) {
			/* The line as read, a store's password hidden. */
			if (strcmp(key, "store") == 0 || strcmp(key, "db") == 0) {
				char	shown[sizeof(copy) - 16];

				db_locator_redact(value, shown, sizeof(shown));
				snprintf(copy, sizeof(copy), "%.8s = %s", key,
				    shown);
			}
			snprintf(err, errlen, "%s:%d: %s: %s", path, lineno, why,
			    copy);
			fclose(fp);
			return -1;
		}
	}
	fclose(fp);
	return 0;
}

int
config_load_env(struct config *c, char *err, size_t errlen)
{
	char		 name[96], why[512];
	const char	*v;
	size_t		 i, j;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(name, sizeof(name), "PWTUNED_%s", keys[i].name);
		for (j = 8; name[j] != '\0'; j++)
			name[j] = (char)toupper((unsigned char)name[j]);
		if ((v = getenv(name)) == NULL)
			continue;
		if (config_set(c, keys[i].name, v, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "environment %s: %s", name, why);
			return -1;
		}
	}
	return 0;
}

int
config_finish(struct config *c, char *err, size_t errlen)
{
	if (c->state_dir[0] == '\0') {
		snprintf(err, errlen, "state_dir must not be empty");
		return -1;
	}
	if (c->db[0] == '\0' && snprintf(c->db, sizeof(c->db), "%s/pwtune.db",
	    c->state_dir) >= (int)sizeof(c->db)) {
		snprintf(err, errlen, "state_dir is too long");
		return -1;
	}
	if (c->token_file[0] == '\0' && snprintf(c->token_file,
	    sizeof(c->token_file), "%s/token", c->state_dir) >=
	    (int)sizeof(c->token_file)) {
		snprintf(err, errlen, "state_dir is too long");
		return -1;
	}
	/*
	 * The probes: those of the build tree when it is there (pwtuned run
	 * from its build directory), else those installed beside it.
	 */
	if (c->probe_dir[0] == '\0')
		probe_default_dir(PWTUNE_PROBE_DIR, c->probe_dir,
		    sizeof(c->probe_dir));
	if (c->max_connections_per_ip > c->max_connections) {
		snprintf(err, errlen, "max_connections_per_ip (%u) is over "
		    "max_connections (%u)", c->max_connections_per_ip,
		    c->max_connections);
		return -1;
	}
	return 0;
}

/*
 * The directory of path is one files can be made in: it exists (or is
 * the state directory, which start-up makes, and that one can be made)
 * and may be written. 0, or -1 with errno.
 */
static int
config_dir_writable(const struct config *c, const char *path)
{
	char	copy[DAEMON_PATH_MAX], dir[DAEMON_PATH_MAX];
	char	sdir[DAEMON_PATH_MAX];
	size_t	n;

	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	if (access(dir, W_OK | X_OK) == 0)
		return 0;
	snprintf(sdir, sizeof(sdir), "%s", c->state_dir);
	for (n = strlen(sdir); n > 1 && sdir[n - 1] == '/'; n--)
		sdir[n - 1] = '\0';	/* as dirname() gives it */
	if (errno != ENOENT || strcmp(dir, sdir) != 0)
		return -1;
	return access(dirname(sdir), W_OK | X_OK);
}

/*
 * The SQLite store's place: a file that can be written, in a directory
 * that can (for the journal). What the file is, the store layer judges
 * (db_identify(), in config_check()).
 */
static int
config_check_sqlite(const struct config *c, char *err, size_t errlen)
{
	char		copy[DAEMON_PATH_MAX];
	struct stat	sb;

	if (config_dir_writable(c, c->db) == -1) {
		snprintf(copy, sizeof(copy), "%s", c->db);
		snprintf(err, errlen, "store: %s: cannot write in %s (%s)",
		    c->db, dirname(copy), strerror(errno));
		return -1;
	}
	if (stat(c->db, &sb) == -1)
		return 0;	/* a new store */
	if (access(c->db, W_OK) == -1) {
		snprintf(err, errlen, "store: %s: cannot write the file (%s)",
		    c->db, strerror(errno));
		return -1;
	}
	/* What the file is (a regular file, SQLite's, a store's) is the
	   store layer's to judge: config_check(), db_identify(). */
	return 0;
}

int
config_check(const struct config *c, char *err, size_t errlen)
{
	char		 dir[DAEMON_PATH_MAX], why[1024];
	struct stat	 sb;
	int		 rc;

	/* The state directory: start-up makes it (mkdir, 0700). */
	if (stat(c->state_dir, &sb) == 0) {
		if (!S_ISDIR(sb.st_mode)) {
			errno = ENOTDIR;
			goto state_dir;
		}
	} else {
		snprintf(dir, sizeof(dir), "%s", c->state_dir);
		if (errno != ENOENT || access(dirname(dir), W_OK | X_OK) == -1)
			goto state_dir;
	}
	/* SQLite's file, and its journal beside it; a database server is
	   reached at start, or later (it may be away). */
	if (!db_is_postgresql(c->db) && config_check_sqlite(c, err,
	    errlen) == -1)
		return -1;
	/*
	 * A file there already is judged as the store layer judges it
	 * (nothing written, nothing left beside it): another program's
	 * database, one nothing marks as a store, a link to nothing, are
	 * refused by -n as start-up refuses them.
	 */
	if (db_identify(c->db, why, sizeof(why)) != DB_OK) {
		snprintf(err, errlen, "store: %s", why);
		return -1;
	}
	/* The token file, as the API reads it; or written there. */
	if ((rc = api_token_check(c->token_file, err, errlen)) == -1)
		return -1;
	if (rc == 1 && config_dir_writable(c, c->token_file) == -1) {
		snprintf(err, errlen, "cannot write a new token to %s: %s",
		    c->token_file, strerror(errno));
		return -1;
	}
	/* The dashboard's files, when not the built-in ones. */
	if (c->web_root[0] == '\0')
		return 0;
	if ((rc = stat(c->web_root, &sb) == -1 ? errno :
	    !S_ISDIR(sb.st_mode) ? ENOTDIR : 0) != 0) {
		snprintf(err, errlen, "web_root %s: %s", c->web_root,
		    strerror(rc));
		return -1;
	}
	if (snprintf(dir, sizeof(dir), "%s/index.html", c->web_root) >=
	    (int)sizeof(dir) || access(dir, R_OK) == -1) {
		snprintf(err, errlen, "web_root %s has no readable index.html",
		    c->web_root);
		return -1;
	}
	return 0;
state_dir:
	snprintf(err, errlen, "state directory %s: %s", c->state_dir,
	    strerror(errno));
	return -1;
}
