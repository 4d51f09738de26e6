/*
 * strbuf.h: a growing text buffer for output built piece by piece (the Prometheus text of
 * /metrics, the moves.csv of a stored match). Running out of memory is remembered in
 * `oom` and makes later appends no-ops, so callers check once at the end.
 */
#ifndef THUE_SERVER_STRBUF_H
#define THUE_SERVER_STRBUF_H

#include <stddef.h>

typedef struct thue_strbuf {
    char *p; /* NUL-terminated once anything was appended; free() it */
    size_t len, cap;
    int oom;
} thue_strbuf;

/* Appends printf-style text. */
void thue_strbuf_printf(thue_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
