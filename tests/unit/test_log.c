/*
 * test_log.c: the server's log (server/log.h): the rate limit of repeated lines. stderr is
 * sent to a temporary file and read back; the limit's clock is a counter the tests move.
 * Every test checks the accounting against the plain count of what was logged: lines
 * written plus lines that the summaries say were suppressed equal lines logged.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

static atomic_ullong fake_now = 1000000;

static uint64_t fake_clock(void)
{
    return atomic_load(&fake_now);
}

static void advance(uint64_t ms)
{
    atomic_fetch_add(&fake_now, ms);
}

/* stderr into a temporary file for the test's length. */
typedef struct capture {
    FILE *f;
    int saved;
} capture;

static capture *capture_start(void)
{
    capture *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->f = tmpfile();
    assert_non_null(c->f);
    c->saved = dup(STDERR_FILENO);
    assert_true(c->saved >= 0);
    assert_true(dup2(fileno(c->f), STDERR_FILENO) >= 0);
    thue__log_set_clock(fake_clock);
    thue_log_set_level(THUE_LOG_DEBUG);
    return c;
}

/* What was written, as one string (the caller frees it); stderr is restored. */
static char *capture_end(capture *c)
{
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    long n = ftell(c->f);
    fseek(c->f, 0, SEEK_END);
    n = ftell(c->f);
    rewind(c->f);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, c->f), (size_t)n);
    text[n] = '\0';
    fclose(c->f);
    free(c);
    thue__log_set_clock(NULL);
    thue_log_set_level(THUE_LOG_INFO);
    return text;
}

/* Counts the lines of text that contain needle and are not summaries, and adds up the
 * counts the summaries give. Every line must be whole: a timestamp, a level, a newline. */
static void tally(const char *text, const char *needle, long *written, long *suppressed)
{
    *written = *suppressed = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        assert_true(nl - p > 25);
        assert_true(p[4] == '-' && p[10] == 'T' && p[23] == 'Z');
        char line[1100];
        size_t n = (size_t)(nl - p) < sizeof line - 1 ? (size_t)(nl - p) : sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        const char *s = strstr(line, " similar line");
        if (s && strstr(line, needle)) {
            const char *num = s;
            while (num > line && num[-1] >= '0' && num[-1] <= '9')
                num--;
            *suppressed += strtol(num, NULL, 10);
        } else if (strstr(line, needle)) {
            (*written)++;
        }
        p = nl + 1;
    }
}

static void test_log_flood_is_cut_and_summarised(void **state)
{
    (void)state;
    capture *c = capture_start();
    for (int i = 0; i < 10000; i++)
        thue_log(THUE_LOG_ERROR, "accept: errno %d", 24);
    advance(2000); /* the flood stopped: its summary is due */
    thue_log_flush();
    char *text = capture_end(c);
    long written, suppressed;
    tally(text, "accept: errno 24", &written, &suppressed);
    assert_int_equal(written, 20);
    assert_int_equal(suppressed, 10000 - 20);
    assert_non_null(strstr(text, "9980 similar lines suppressed"));
    free(text);
}

static void test_log_kinds_are_apart(void **state)
{
    (void)state;
    capture *c = capture_start();
    for (int i = 0; i < 1000; i++)
        thue_log(THUE_LOG_WARN, "flood %d", i);
    /* another format string is another kind: not touched by the flood */
    for (int i = 0; i < 15; i++)
        thue_log(THUE_LOG_WARN, "quiet %d", i);
    /* texts that differ in digits only are one kind; others are not */
    for (int i = 0; i < 100; i++) {
        char t[64];
        int n = snprintf(t, sizeof t, "lws: [%d] accept: errno %d", 1000 + i, i % 3);
        thue_log_text(THUE_LOG_ERROR, t, (size_t)n);
    }
    thue_log_text(THUE_LOG_ERROR, "lws: something else", 19);
    /* debug lines are never dropped */
    for (int i = 0; i < 100; i++)
        thue_log(THUE_LOG_DEBUG, "chatty %d", i);
    advance(1500);
    thue_log_flush();
    char *text = capture_end(c);
    long written, suppressed;
    tally(text, "flood ", &written, &suppressed);
    assert_int_equal(written, 20);
    assert_int_equal(written + suppressed, 1000);
    tally(text, "quiet ", &written, &suppressed);
    assert_int_equal(written, 15);
    assert_int_equal(suppressed, 0);
    tally(text, "accept: errno", &written, &suppressed);
    assert_int_equal(written, 20);
    assert_int_equal(written + suppressed, 100);
    tally(text, "something else", &written, &suppressed);
    assert_int_equal(written, 1);
    tally(text, "chatty ", &written, &suppressed);
    assert_int_equal(written, 100);
    assert_int_equal(suppressed, 0);
    free(text);
}

/* A steady flood over simulated minutes: about one line a second gets through, a summary
 * at most every 10 s, and nothing is lost from the count. */
static void test_log_steady_flood_rate(void **state)
{
    (void)state;
    capture *c = capture_start();
    const long seconds = 120, per_second = 1000;
    for (long i = 0; i < seconds * per_second; i++) {
        thue_log(THUE_LOG_WARN, "refused a connection from %s", "203.0.113.7");
        advance(1000 / per_second);
    }
    advance(5000);
    thue_log_flush();
    char *text = capture_end(c);
    long written, suppressed;
    tally(text, "refused a connection", &written, &suppressed);
    assert_int_equal(written + suppressed, seconds * per_second);
    assert_true(written <= 20 + seconds + 1);
    long lines = 0;
    for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    printf("  %ld lines logged in %ld simulated s: %ld written, %ld lines in all, %zu bytes\n",
           seconds * per_second, seconds, written, lines, strlen(text));
    assert_true(lines <= 20 + seconds + seconds / 10 + 2);
    free(text);
}

/* ---- threads ------------------------------------------------------------------------- */

#define THREADS 4
#define PER_THREAD 5000

static void *logger(void *arg)
{
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        thue_log(THUE_LOG_WARN, "from a worker: %d", i);
        if (i % 100 == 0)
            advance(50);
    }
    return NULL;
}

static void test_log_threads(void **state)
{
    (void)state;
    capture *c = capture_start();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, logger, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    advance(60000);
    thue_log_flush();
    char *text = capture_end(c);
    long written, suppressed;
    tally(text, "from a worker", &written, &suppressed);
    assert_int_equal(written + suppressed, THREADS * PER_THREAD);
    assert_true(written >= 20);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_flood_is_cut_and_summarised),
        cmocka_unit_test(test_log_kinds_are_apart),
        cmocka_unit_test(test_log_steady_flood_rate),
        cmocka_unit_test(test_log_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
