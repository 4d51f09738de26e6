/*
 * log.h: the server's log: one line per event on stderr,
 *   2026-11-22T17:30:01.123Z info  listening on http://127.0.0.1:8080
 * with a level; lines below the configured level are dropped. Loop thread and workers
 * alike may log (each line is one write(2)). Never log a resume token or account token.
 *
 * Repeated lines are rate-limited (log.c says how): past a burst, similar lines (the same
 * format string, or texts that differ only in digits) pass at one a second, and a summary
 * line counts the ones dropped. Debug lines are never dropped.
 */
#ifndef THUE_SERVER_LOG_H
#define THUE_SERVER_LOG_H

#include <stddef.h>
#include <stdint.h>

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
/* A line that arrives formatted (len bytes, not NUL-terminated): rate-limited by its text
 * (digits aside) rather than by a format string. For other libraries' log lines. */
void thue_log_text(thue_log_level level, const char *text, size_t len);
/* Writes the summaries of dropped lines that are due (their flood stopped a second ago,
 * or has lasted 10 s). Call it now and then (the network layer does, from its timer). */
void thue_log_flush(void);
/* Tests: the clock of the rate limit (monotonic ms; NULL: the real one). Also forgets
 * every line seen so far. */
void thue__log_set_clock(uint64_t (*now_ms)(void));

#endif
