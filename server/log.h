/*
 * log.h: the server's log: one line per event on stderr,
 *   2026-11-22T17:30:01.123Z info  listening on http://127.0.0.1:8080
 * with a level; lines below the configured level are dropped. Loop thread and workers
 * alike may log (each line is one write(2)). Never log a resume token or account token.
 */
#ifndef THUE_SERVER_LOG_H
#define THUE_SERVER_LOG_H

typedef enum {
    THUE_LOG_ERROR = 0,
    THUE_LOG_WARN,
    THUE_LOG_INFO,
    THUE_LOG_DEBUG
} thue_log_level;

/* The level below which lines are dropped (default info). */
void thue_log_set_level(thue_log_level level);
thue_log_level thue_log_get_level(void);
/* "error", "warn", "info", "debug" -> 0 and *out; -1 for anything else. */
int thue_log_parse_level(const char *text, thue_log_level *out);
const char *thue_log_level_name(thue_log_level level);

void thue_log(thue_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
