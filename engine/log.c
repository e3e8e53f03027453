/*
 * engine/log.c: one line per event on stderr, with a level; as text
 * ("2026-11-30T02:00:00Z info: message") or as JSON objects. Callers never
 * pass the token: nothing here could tell it from other text.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <stdlib.h>

#include <jansson.h>

#include "log.h"

static enum log_level	log_threshold = LOG_LEVEL_INFO;
static int		log_as_json;
static pthread_mutex_t	log_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = { "debug", "info", "warn", "error" };

int
log_level_parse(const char *s, enum log_level *level)
{
	size_t	i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (strcmp(s, level_names[i]) == 0) {
			*level = (enum log_level)i;
			return 0;
		}
	return -1;
}

void
log_init(enum log_level level, int json)
{
	log_threshold = level;
	log_as_json = json;
}

void
log_set_level(enum log_level level)
{
	log_threshold = level;
}

/*
 * Bytes of the UTF-8 sequence at p (1 for ASCII), or 0 when it is not
 * one: a stray byte, a cut or overlong sequence, a surrogate, past
 * U+10FFFF (what jansson refuses, and with it the whole line).
 */
static size_t
log_utf8_len(const unsigned char *p)
{
	uint32_t	v;
	size_t		n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		v = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		v = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		v = p[0] & 0x07;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* the NUL at the end too */
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) ||
	    v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	return n;
}

/* s with each byte that is not of valid UTF-8 made '?', in place. */
static void
log_utf8_clean(char *s)
{
	unsigned char	*p = (unsigned char *)s;
	size_t		 n;

	while (*p != '\0') {
		if ((n = log_utf8_len(p)) == 0)
			*p++ = '?';
		else
			p += n;
	}
}

void
log_msg(enum log_level level, const char *fmt, ...)
{
	char		msg[2048], stamp[32];
	struct tm	tm;
	time_t		now;
	va_list		ap;
	json_t		*j;
	char		*text;

	if (level < log_threshold)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* A JSON line is dropped whole for one bad byte: none reach it. */
	log_utf8_clean(msg);
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	pthread_mutex_lock(&log_lock);
	if (log_as_json) {
		j = json_pack("{s:s, s:s, s:s}", "time", stamp, "level",
		    level_names[level], "msg", msg);
		if (j != NULL && (text = json_dumps(j, JSON_COMPACT)) != NULL) {
			fprintf(stderr, "%s\n", text);
			free(text);
		}
		json_decref(j);
	} else
		fprintf(stderr, "%s %s: %s\n", stamp, level_names[level], msg);
	fflush(stderr);
	pthread_mutex_unlock(&log_lock);
}
