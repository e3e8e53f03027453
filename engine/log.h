/*
 * engine/log.h: one line per event on stderr (log.c), text or JSON, with
 * levels. The bottom layer, so that the daemon and the API both log
 * through it; the CLI reports on its own (cli_warnx).
 */
#ifndef PWTUNE_LOG_H
#define PWTUNE_LOG_H

enum log_level {
	LOG_LEVEL_DEBUG,
	LOG_LEVEL_INFO,
	LOG_LEVEL_WARN,
	LOG_LEVEL_ERROR
};

void	 log_init(enum log_level level, int json);
void	 log_set_level(enum log_level level);
void	 log_msg(enum log_level level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
#define log_debug(...)	log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_error(...)	log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
int	 log_level_parse(const char *s, enum log_level *level);

#endif /* PWTUNE_LOG_H */
