/*
 * cli/cli_util.c: what the subcommands share: messages, numbers, reading
 * the password and small files, the host memory check, the clock.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "host.h"

void
cli_warnx(const char *fmt, ...)
{
	va_list	ap;

	fputs("pwtune: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
			return -1;
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
cli_read_file(const char *path, uint8_t *buf, size_t bufsize, size_t *len,
    char *err, size_t errlen)
{
	int	fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = cli_read_all(fd, buf, bufsize, len);
	close(fd);
	if (rc == -2) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
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

	if (ad != NULL) {
		in->ad = (const uint8_t *)ad;
		in->adlen = strlen(ad);
	}
	if (secret_file != NULL) {
		if (cli_read_file(secret_file, secret, KDF_SECRET_MAX,
		    &in->secretlen, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "secret file %s", why);
			return -1;
		}
		in->secret = secret;
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
