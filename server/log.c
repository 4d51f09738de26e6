/*
 * log.c: the server's log (log.h): one line per event on stderr,
 *   2026-11-22T17:30:01.123Z info  room r7f3a created by Ann
 *
 * Each line is formatted into a stack buffer and written with a single write(2), so lines
 * from the loop thread and the workers never interleave within a line. A line longer than
 * the buffer is cut and ends in "...". Control characters in the formatted text (a stray
 * newline in a name, say) are written as '?', so one event is always one line. The level
 * is an atomic, so any thread may read it while another sets it.
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 1024

static atomic_int log_level = THUE_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void thue_log_set_level(thue_log_level level)
{
    if (level < THUE_LOG_ERROR)
        level = THUE_LOG_ERROR;
    if (level > THUE_LOG_DEBUG)
        level = THUE_LOG_DEBUG;
    atomic_store(&log_level, (int)level);
}

thue_log_level thue_log_get_level(void)
{
    return (thue_log_level)atomic_load(&log_level);
}

int thue_log_parse_level(const char *text, thue_log_level *out)
{
    if (text == NULL)
        return -1;
    for (int i = 0; i <= THUE_LOG_DEBUG; i++) {
        if (strcmp(text, level_names[i]) == 0) {
            if (out)
                *out = (thue_log_level)i;
            return 0;
        }
    }
    return -1;
}

const char *thue_log_level_name(thue_log_level level)
{
    if (level < THUE_LOG_ERROR || level > THUE_LOG_DEBUG)
        return "unknown";
    return level_names[level];
}

/* Writes all of buf, retrying on EINTR and partial writes; gives up on other errors
 * (there is nowhere to report a failing stderr). */
static void write_all(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

void thue_log(thue_log_level level, const char *fmt, ...)
{
    if ((int)level > atomic_load(&log_level))
        return;
    char line[LINE_MAX_BYTES];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int head = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s ",
                        tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                        tm.tm_sec, ts.tv_nsec / 1000000L, thue_log_level_name(level));
    if (head < 0 || (size_t)head >= sizeof line)
        return;
    size_t room = sizeof line - (size_t)head - 1; /* keep one byte for the newline */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + head, room + 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    size_t body = (size_t)n;
    if (body > room) {
        body = room;
        memcpy(line + head + body - 3, "...", 3);
    }
    for (size_t i = (size_t)head; i < (size_t)head + body; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c < 0x20 || c == 0x7f)
            line[i] = '?';
    }
    line[(size_t)head + body] = '\n';
    write_all(line, (size_t)head + body + 1);
}
