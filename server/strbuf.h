/*
 * strbuf.h: a growing text buffer for output built piece by piece (the Prometheus text of
 * /metrics, the moves.csv of a stored match). Running out of memory is remembered in
 * `oom` and makes later appends no-ops, so callers check once at the end. Also the
 * fixed-size form that errors are reported in.
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

/* Writes a printf-style sentence into err[errsize], cut to fit; nothing when err is NULL
 * or errsize is 0 (the "err, errsize" out-parameters of the server's functions). */
void thue_errf(char *err, size_t errsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
