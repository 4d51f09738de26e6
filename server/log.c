/*
 * log.c: the server's log (log.h): one line per event on stderr,
 *   2026-11-22T17:30:01.123Z info  room r7f3a created by Ann
 *
 * Each line is formatted into a stack buffer and written with a single write(2), so lines
 * from the loop thread and the workers never interleave within a line. A line longer than
 * the buffer is cut and ends in "...". Control characters in the formatted text (a stray
 * newline in a name, say) are written as '?', so one event is always one line. The level
 * is an atomic, so any thread may read it while another sets it.
 *
 * Repeated lines are rate-limited, so that nobody can fill the disk by making the server
 * say the same thing over and over (a flood of refused connections, libwebsockets
 * retrying a failing accept). Lines are "similar" when they come from the same format
 * string (thue_log) or, for text that arrives formatted (thue_log_text: libwebsockets'
 * lines), when their texts differ at most in their digits. Each kind of line has a token
 * bucket: BURST lines pass at once, then one a second (REFILL_MS); the others are counted
 * and dropped, and a summary line ("N similar lines suppressed ...") says how many, at
 * most every SUMMARY_MS while they keep coming and once they stop (thue_log_flush, or the
 * next line of any kind). The buckets are a small direct-mapped table (SLOTS): a kind
 * that meets another in its slot takes it over, after the summary of what the other
 * dropped. Debug lines are exempt (debug is for debugging, not for production). The
 * table has a mutex: any thread may log.
 */
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 1024

#define SLOTS 128        /* kinds of lines tracked at once */
#define BURST 20         /* lines of one kind that pass at once */
#define REFILL_MS 1000   /* then one per REFILL_MS */
#define SUMMARY_MS 10000 /* a summary at most this often per kind while lines are dropped */
#define SAMPLE_BYTES 160 /* of the last dropped line, quoted in the summary */

static atomic_int log_level = THUE_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

/* One kind of line: its bucket and what it dropped. */
typedef struct slot {
    uint64_t key;      /* 0: free */
    int64_t tokens_ms; /* the bucket as "ms of credit": BURST * REFILL_MS when full */
    uint64_t last_ms;  /* when tokens_ms was last brought up to date */
    uint64_t dropped;  /* since the last summary */
    uint64_t first_drop_ms;
    thue_log_level level; /* of the last dropped line */
    char sample[SAMPLE_BYTES];
} slot;

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static slot slots[SLOTS];
static size_t pending; /* slots with dropped > 0 */

static uint64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t (*clock_ms)(void) = monotonic_ms;

void thue__log_set_clock(uint64_t (*now_ms)(void))
{
    pthread_mutex_lock(&slots_lock);
    clock_ms = now_ms ? now_ms : monotonic_ms;
    memset(slots, 0, sizeof slots);
    pending = 0;
    pthread_mutex_unlock(&slots_lock);
}

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

/* Writes one line: the time, the level and body (len bytes; control characters become
 * '?', and a body longer than the line is cut with "..."). */
static void emit(thue_log_level level, const char *body, size_t len)
{
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
    size_t n = len;
    if (n > room) {
        n = room;
        memcpy(line + head, body, n - 3);
        memcpy(line + head + n - 3, "...", 3);
    } else {
        memcpy(line + head, body, n);
    }
    for (size_t i = (size_t)head; i < (size_t)head + n; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c < 0x20 || c == 0x7f)
            line[i] = '?';
    }
    line[(size_t)head + n] = '\n';
    write_all(line, (size_t)head + n + 1);
}

/* The summary of what s dropped, and s forgets it (lock held). */
static void summarise(slot *s, uint64_t now)
{
    if (s->dropped == 0)
        return;
    char text[SAMPLE_BYTES + 128];
    uint64_t secs = (now - s->first_drop_ms + 999) / 1000;
    int n = snprintf(text, sizeof text, "%llu similar line%s suppressed in %llu s; the last: %s",
                     (unsigned long long)s->dropped, s->dropped == 1 ? "" : "s",
                     (unsigned long long)(secs ? secs : 1), s->sample);
    if (n > 0)
        emit(s->level, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    s->dropped = 0;
    pending--;
}

/* Summaries of the kinds whose lines stopped coming (their bucket refilled by one line
 * since the last drop) or that dropped lines for SUMMARY_MS (lock held). */
static void summarise_due(uint64_t now)
{
    for (size_t i = 0; pending > 0 && i < SLOTS; i++) {
        slot *s = &slots[i];
        if (s->dropped > 0 &&
            (now - s->last_ms >= REFILL_MS || now - s->first_drop_ms >= SUMMARY_MS))
            summarise(s, now);
    }
}

/* Whether a line of kind key may be written now (lock held); a dropped line is noted,
 * with its text, for the summary. */
static int admit(uint64_t key, thue_log_level level, const char *text, size_t len, uint64_t now)
{
    slot *s = &slots[key % SLOTS];
    if (s->key != key) {
        summarise(s, now);
        s->key = key;
        s->tokens_ms = (int64_t)BURST * REFILL_MS;
        s->last_ms = now;
    }
    int64_t full = (int64_t)BURST * REFILL_MS;
    s->tokens_ms += (int64_t)(now - s->last_ms);
    if (s->tokens_ms > full)
        s->tokens_ms = full;
    s->last_ms = now;
    if (s->tokens_ms >= REFILL_MS) {
        s->tokens_ms -= REFILL_MS;
        return 1;
    }
    if (s->dropped++ == 0) {
        s->first_drop_ms = now;
        pending++;
    }
    s->level = level;
    size_t n = len < sizeof s->sample - 1 ? len : sizeof s->sample - 1;
    memcpy(s->sample, text, n);
    s->sample[n] = '\0';
    if (now - s->first_drop_ms >= SUMMARY_MS)
        summarise(s, now);
    return 0;
}

/* Writes text unless too many similar lines came before it. */
static void log_line(thue_log_level level, uint64_t key, const char *text, size_t len)
{
    if (level == THUE_LOG_DEBUG) {
        emit(level, text, len);
        return;
    }
    key = key ? key : 1; /* 0 marks a free slot */
    pthread_mutex_lock(&slots_lock);
    uint64_t now = clock_ms();
    if (pending > 0)
        summarise_due(now);
    if (admit(key, level, text, len, now))
        emit(level, text, len);
    pthread_mutex_unlock(&slots_lock);
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

void thue_log(thue_log_level level, const char *fmt, ...)
{
    if ((int)level > atomic_load(&log_level))
        return;
    char text[LINE_MAX_BYTES];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    size_t len = (size_t)n;
    if (len >= sizeof text) {
        len = sizeof text - 1;
        memcpy(text + len - 3, "...", 3);
    }
    log_line(level, mix((uint64_t)(uintptr_t)fmt), text, len);
}

void thue_log_text(thue_log_level level, const char *text, size_t len)
{
    if ((int)level > atomic_load(&log_level))
        return;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over the text less its digits */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= '0' && c <= '9')
            continue;
        h = (h ^ c) * 1099511628211ULL;
    }
    log_line(level, mix(h), text, len);
}

void thue_log_flush(void)
{
    pthread_mutex_lock(&slots_lock);
    if (pending > 0)
        summarise_due(clock_ms());
    pthread_mutex_unlock(&slots_lock);
}
