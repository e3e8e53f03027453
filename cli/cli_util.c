/*
 * cli/cli_util.c: what the subcommands share: messages, numbers, reading
 * the password and small files, the host memory check, the clock.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "api.h"
#include "cli.h"
#include "host.h"
#include "kdf.h"
#include "units.h"

/*
 * "pwtune: what", or "pwtune CMD: what" when the message starts with a
 * subcommand's name, as the usage errors do.
 */
void
cli_warnx(const char *fmt, ...)
{
	static const char *const cmds[] = { "hash", "verify", "recommend",
	    "bench", "stress", "soak", "repl", "db", "help" };
	va_list	ap;
	char	msg[4096];
	size_t	i, n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		n = strlen(cmds[i]);
		if (strncmp(msg, cmds[i], n) == 0 &&
		    (msg[n] == ':' || msg[n] == ' '))
			break;
	}
	fprintf(stderr, "pwtune%s%s\n", i < sizeof(cmds) / sizeof(cmds[0]) ?
	    " " : ": ", msg);
}

/* A character of a name a user can give (a stack's, a file's). */
static int
cli_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' ||
	    c == '-' || c == '/';
}

/* Whether a word ends at e: not inside a name, a sentence's full stop. */
static int
cli_word_end(const char *e)
{
	if (*e == '.')
		return e[1] == '\0' || e[1] == ' ' || e[1] == '\n';
	return !cli_name_char(*e);
}

void
cli_spell_options(char *s, size_t len)
{
	static const struct {
		const char	*api, *cli;
	} spell[] = {
		{ "memory_max", "--memory-max" },
		{ "lower concurrency", "lower --concurrency" }
	};
	char	out[4096];
	size_t	i = 0, o = 0, j, al, cl;

	while (s[i] != '\0') {
		/* Whole words only: never inside a name ("my_memory_max"). */
		for (j = 0; j < sizeof(spell) / sizeof(spell[0]); j++)
			if ((i == 0 || !cli_name_char(s[i - 1])) &&
			    strncmp(s + i, spell[j].api,
			    strlen(spell[j].api)) == 0 &&
			    cli_word_end(s + i + strlen(spell[j].api)))
				break;
		if (j == sizeof(spell) / sizeof(spell[0])) {
			if (o + 1 >= sizeof(out))
				break;
			out[o++] = s[i++];
			continue;
		}
		al = strlen(spell[j].api);
		cl = strlen(spell[j].cli);
		if (o + cl >= sizeof(out))
			break;
		memcpy(out + o, spell[j].cli, cl);
		o += cl;
		i += al;
	}
	out[o] = '\0';
	snprintf(s, len, "%s", out);
}

int
cli_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long	v;
	char			*end;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static void
cli_hint(const char *cmd)
{
	fprintf(stderr, "Try 'pwtune help %s' for its options.\n", cmd);
}

int
cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "pwtune %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cli_hint(cmd);
	return -1;
}

int
cli_bad_value(const char *cmd, const char *flag, const char *given,
    const char *allowed)
{
	char	shown[API_SHOWN_LEN];

	if (given == NULL)
		return cli_usage_error(cmd, "%s needs a value: %s", flag,
		    allowed);
	api_shown(given, shown, sizeof(shown));
	return cli_usage_error(cmd, "%s must be %s, not %s", flag, allowed,
	    given[0] == '\0' ? "empty" : given[strspn(given, " \t")] ==
	    '\0' ? "blank (spaces and tabs only)" : shown);
}

int
cli_flag_u32(const char *cmd, const char *flag, const char *v, uint32_t min,
    uint32_t max, const char *what, uint32_t *out)
{
	char	allowed[160];

	if (v != NULL && cli_parse_u32(v, min, max, out) == 0)
		return 0;
	snprintf(allowed, sizeof(allowed), "a whole number from %lu to "
	    "%lu%s%s%s", (unsigned long)min, (unsigned long)max,
	    what ? " (" : "", what ? what : "", what ? ")" : "");
	return cli_bad_value(cmd, flag, v, allowed);
}

int
cli_flag_size(const char *cmd, const char *flag, const char *v,
    uint64_t max_kib, uint64_t *kib)
{
	char	allowed[160], top[32];

	if (v != NULL && units_parse_kib(v, max_kib, kib) == 0)
		return 0;
	if (max_kib == KDF_ARGON2_M_MAX)
		snprintf(top, sizeof(top), "just under 4 TiB");
	else
		units_format_kib(max_kib, top, sizeof(top));
	snprintf(allowed, sizeof(allowed), "a size such as 64MiB or 1GiB "
	    "(a bare number is KiB), from 1 KiB to %s", top);
	return cli_bad_value(cmd, flag, v, allowed);
}

void
cli_kib_note(const char *cmd, const char *flag, const char *v)
{
	const char	*p = v;
	size_t		 n;

	while (p != NULL && *p != '\0') {
		n = strcspn(p, ",");
		if (n > 0 && n <= 3 && strspn(p, "0123456789") == n) {
			cli_warnx("%s: %s %.*s is %.*s KiB (a size without a "
			    "unit is KiB: %.*sMiB for MiB)", cmd, flag,
			    (int)n, p, (int)n, p, (int)n, p);
			return;
		}
		p = p[n] == ',' ? p + n + 1 : NULL;
	}
}

int
cli_flag_log2(const char *cmd, const char *flag, const char *v,
    uint64_t *kib)
{
	static const char	allowed[] = "a whole number from 3 to 32 "
	    "(log2 of KiB: 16 is 64 MiB)";
	uint64_t		size;
	uint32_t		n;
	char			shown[API_SHOWN_LEN];

	if (v != NULL && cli_parse_u32(v, 3, 32, &n) == 0) {
		/* 2^32 KiB is one more than Argon2 takes: its cap. */
		*kib = n == 32 ? KDF_ARGON2_M_MAX : (uint64_t)1 << n;
		return 0;
	}
	if (v != NULL && units_parse_kib(v, UINT64_MAX / 2, &size) == 0 &&
	    strspn(v, "0123456789") != strlen(v)) {
		api_shown(v, shown, sizeof(shown));
		return cli_usage_error(cmd, "%s must be %s, not %s: for a size "
		    "use -k KiB or --memory %s", flag, allowed, shown, shown);
	}
	return cli_bad_value(cmd, flag, v, allowed);
}

int
cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

const char *
cli_opt(const char *arg, char *buf, size_t size, const char **value)
{
	const char	*eq;

	*value = NULL;
	if (strncmp(arg, "--", 2) != 0 || (eq = strchr(arg, '=')) == NULL ||
	    eq - arg <= 2 || (size_t)(eq - arg) >= size)
		return arg;
	memcpy(buf, arg, (size_t)(eq - arg));
	buf[eq - arg] = '\0';
	*value = eq + 1;
	return buf;
}

int
cli_store_name(const char *cmd, const char *flag, const char *value)
{
	if (value[0] == '\0')
		return cli_usage_error(cmd, "%s takes a store (a file or a "
		    "postgresql:// URI), not an empty string", flag);
	if (strcmp(value, ":memory:") == 0)
		return cli_usage_error(cmd, "%s :memory: keeps nothing: name a "
		    "file or a postgresql:// URI", flag);
	return 0;
}

int
cli_no_value(const char *cmd, const char *flag, const char *value)
{
	if (value == NULL)
		return 0;
	return cli_usage_error(cmd, "%s takes no value (given %s=...)", flag,
	    flag);
}

/* Read everything from fd into buf; -1 when it holds more than bufsize. */
static int
cli_read_all(int fd, uint8_t *buf, size_t bufsize, size_t *len)
{
	size_t	n = 0;
	ssize_t	r;
	uint8_t	extra;

	for (;;) {
		if (n == bufsize) {
			while ((r = read(fd, &extra, 1)) == -1 && errno == EINTR)
				;
			*len = n;
			return r == 0 ? 0 : -1;
		}
		r = read(fd, buf + n, bufsize - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return -2;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return 0;
}

int
cli_read_password(uint8_t *buf, size_t max, size_t *len, char *err,
    size_t errlen)
{
	struct termios	 old, quiet;
	int		 tty = isatty(STDIN_FILENO), rc;
	char		*nl;

	*len = 0;
	if (tty) {
		/* A person at a terminal: prompt, and do not echo. */
		if (tcgetattr(STDIN_FILENO, &old) == -1)
			tty = 0;
		fputs("Password: ", stderr);
		fflush(stderr);
		if (tty) {
			quiet = old;
			quiet.c_lflag &= ~(tcflag_t)ECHO;
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
		}
		nl = fgets((char *)buf, (int)max + 2, stdin);
		if (tty)
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
		fputc('\n', stderr);
		if (nl == NULL) {
			snprintf(err, errlen, "no password read");
			return -1;
		}
		*len = strcspn((char *)buf, "\n");
		if (*len > max) {
			sodium_memzero(buf, max + 2);
			*len = 0;
			snprintf(err, errlen, "password is longer than %zu "
			    "bytes", max);
			return -1;
		}
		buf[*len] = '\0';
	} else {
		rc = cli_read_all(STDIN_FILENO, buf, max, len);
		if (rc == -2) {
			snprintf(err, errlen, "standard input: %s",
			    strerror(errno));
			return -2;
		}
		if (rc == -1) {
			sodium_memzero(buf, max + 2);
			*len = 0;
			snprintf(err, errlen, "password on standard input is "
			    "longer than %zu bytes", max);
			return -1;
		}
	}
	if (*len == 0) {
		snprintf(err, errlen, "no password read on standard input");
		return -1;
	}
	return 0;
}

int
cli_open_regular(const char *path, char *err, size_t errlen)
{
	struct stat	sb;
	int		fd;

	if (path[0] == '\0') {
		snprintf(err, errlen, "takes a file name, not an empty "
		    "string");
		return -1;
	}
	/* O_NONBLOCK: the open of a FIFO does not wait for a writer. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !(S_ISREG(sb.st_mode) ||
	    S_ISFIFO(sb.st_mode))) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	/*
	 * A pipe with a writer (<(command), /dev/stdin) is read; a FIFO
	 * named by mistake, that nothing writes, is refused after
	 * CLI_FIFO_WAIT_MS rather than waited on for ever.
	 */
	if (S_ISFIFO(sb.st_mode)) {
		struct pollfd	pfd = { fd, POLLIN, 0 };

		if (poll(&pfd, 1, CLI_FIFO_WAIT_MS) != 1) {
			snprintf(err, errlen, "%s: a FIFO nothing wrote to in "
			    "%d s: not a regular file", path,
			    CLI_FIFO_WAIT_MS / 1000);
			close(fd);
			return -1;
		}
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int
cli_read_file(const char *path, uint8_t *buf, size_t bufsize, size_t *len,
    char *err, size_t errlen)
{
	int	fd, rc;

	if ((fd = cli_open_regular(path, err, errlen)) == -1)
		return path[0] == '\0' ? -1 : -2;
	rc = cli_read_all(fd, buf, bufsize, len);
	close(fd);
	if (rc == -2) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -2;
	}
	if (rc == -1) {
		sodium_memzero(buf, bufsize);
		snprintf(err, errlen, "%s: longer than %zu bytes", path,
		    bufsize);
		return -1;
	}
	return 0;
}

int
cli_add_secret_ad(struct kdf_input *in, const char *secret_file,
    const char *ad, uint8_t secret[KDF_SECRET_MAX], char *err, size_t errlen)
{
	char	why[256];
	int	rc;

	if (ad != NULL) {
		in->ad = (const uint8_t *)ad;
		in->adlen = strlen(ad);
	}
	if (secret_file != NULL) {
		if ((rc = cli_read_file(secret_file, secret, KDF_SECRET_MAX,
		    &in->secretlen, why, sizeof(why))) != 0) {
			snprintf(err, errlen, "--secret-file %s", why);
			return rc;
		}
		/* An empty one would hash as if there were no secret. */
		if (in->secretlen == 0) {
			snprintf(err, errlen, "--secret-file %s: empty (a secret "
			    "has 1 to %d bytes)", secret_file, KDF_SECRET_MAX);
			return -1;
		}
		in->secret = secret;
	}
	return 0;
}

int
cli_load_json(const char *path, json_t **out, char *err, size_t errlen)
{
	json_error_t	 jerr;
	FILE		*fp;
	int		 fd;

	*out = NULL;
	if (strcmp(path, "-") == 0)
		fp = stdin;
	else if ((fd = cli_open_regular(path, err, errlen)) == -1)
		return path[0] == '\0' ? CLI_EXIT_USAGE : CLI_EXIT_ENV;
	else if ((fp = fdopen(fd, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return CLI_EXIT_ENV;
	}
	*out = json_loadf(fp, JSON_REJECT_DUPLICATES, &jerr);
	if (*out == NULL && ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fp != stdin)
			fclose(fp);
		return CLI_EXIT_ENV;
	}
	if (fp != stdin)
		fclose(fp);
	if (*out == NULL) {
		snprintf(err, errlen, "%s:%d: %s", path, jerr.line, jerr.text);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int
cli_check_memory(uint64_t need, char *err, size_t errlen)
{
	uint64_t	avail;
	char		why[256];

	if (host_mem_available(NULL, &avail, why, sizeof(why)) == -1)
		return 0;	/* Nothing to compare with: let the library try. */
	if (need > avail) {
		snprintf(err, errlen, "this needs %llu MiB of memory, more "
		    "than this host has available (%llu MiB)",
		    (unsigned long long)((need + (1 << 20) - 1) >> 20),
		    (unsigned long long)(avail >> 20));
		return -1;
	}
	return 0;
}

double
cli_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
cli_hex(char *dst, const uint8_t *src, size_t len)
{
	static const char	digits[] = "0123456789abcdef";
	size_t			i;

	for (i = 0; i < len; i++) {
		*dst++ = digits[src[i] >> 4];
		*dst++ = digits[src[i] & 15];
	}
	*dst = '\0';
}

const char *
cli_budget_source_text(enum host_budget_source src)
{
	switch (src) {
	case HOST_BUDGET_CONFIG:
		return "the cap asked";
	case HOST_BUDGET_CGROUP:
		return "half of what the cgroup leaves";
	default:
		return "half of MemAvailable";
	}
}
