/*
 * test_quota.c: address keys, keyed token buckets and counters (server/quota.h), the
 * tables checked against plain arrays that never forget anything.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "quota.h"

static void key_is(const char *ip, const char *want)
{
    char out[THUE_LIMIT_KEY_MAX];
    thue_addr_key(ip, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_addr_key_forms(void **state)
{
    (void)state;
    key_is("203.0.113.7", "203.0.113.7");
    key_is("::ffff:203.0.113.7", "203.0.113.7");
    key_is("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64");
    key_is("2001:db8:1:2::", "2001:db8:1:2::/64");
    key_is("2001:0db8:0001:0002:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64");
    key_is("::1", "::/64");
    key_is("unknown", "unknown");
    key_is("", "");
    /* one /64, one key; the next /64, another */
    char a[THUE_LIMIT_KEY_MAX], b[THUE_LIMIT_KEY_MAX];
    thue_addr_key("2001:db8::1", a, sizeof a);
    thue_addr_key("2001:db8::ffff:1", b, sizeof b);
    assert_string_equal(a, b);
    thue_addr_key("2001:db8:0:1::1", b, sizeof b);
    assert_string_not_equal(a, b);
    /* a key cut to fit stays a string */
    char small[8];
    thue_addr_key("2001:db8:1:2:3:4:5:6", small, sizeof small);
    assert_int_equal(strlen(small), 7);
}

/* ---- the limiter against a plain array ----------------------------------------------- */

typedef struct naive_bucket {
    char key[16];
    double tokens;
    uint64_t last;
} naive_bucket;

typedef struct naive_limiter {
    naive_bucket b[256];
    int n;
    double rate, burst;
} naive_limiter;

static int naive_take(naive_limiter *nl, const char *key, uint64_t now)
{
    naive_bucket *x = NULL;
    for (int i = 0; i < nl->n; i++)
        if (strcmp(nl->b[i].key, key) == 0)
            x = &nl->b[i];
    if (x == NULL) {
        x = &nl->b[nl->n++];
        snprintf(x->key, sizeof x->key, "%s", key);
        x->tokens = nl->burst;
        x->last = now;
    }
    double t = x->tokens + (double)(now - x->last) * nl->rate / 1000.0;
    if (t > nl->burst)
        t = nl->burst;
    if (t < 1.0)
        return 0;
    x->tokens = t - 1.0;
    x->last = now;
    return 1;
}

static void test_limiter_matches_naive(void **state)
{
    (void)state;
    srand(7);
    for (int round = 0; round < 20; round++) {
        double rate = 0.5 + (rand() % 40) / 4.0, burst = 1 + rand() % 6;
        /* max_keys at the number of keys used: the sweep must only forget full buckets,
         * so the answers are exactly those of a table that forgets nothing */
        int nkeys = 1 + rand() % 40;
        thue_limiter *lim = thue_limiter_new(rate, burst, (size_t)nkeys);
        assert_non_null(lim);
        naive_limiter nl = {.n = 0, .rate = rate, .burst = burst};
        uint64_t now = 1000;
        for (int op = 0; op < 5000; op++) {
            now += (uint64_t)(rand() % 3 == 0 ? rand() % 2000 : rand() % 20);
            char key[16];
            snprintf(key, sizeof key, "k%d", rand() % nkeys);
            uint64_t retry = 0;
            int got = thue_limiter_take(lim, key, now, &retry);
            assert_int_equal(got, naive_take(&nl, key, now));
            if (!got) {
                assert_true(retry >= 1);
                /* a token is there after retry ms, not before */
                assert_true(thue_limiter_tokens(lim, key, now + retry) >= 1.0 - 1e-9);
                if (retry > 1)
                    assert_true(thue_limiter_tokens(lim, key, now + retry - 1) < 1.0 + 1e-9);
            }
        }
        assert_int_equal(thue_limiter_untracked(lim), 0);
        assert_true(thue_limiter_size(lim) <= (size_t)nkeys);
        thue_limiter_free(lim);
    }
}

static void test_limiter_bounded(void **state)
{
    (void)state;
    /* 100,000 addresses once each: the table stays at its bound, and buckets that
     * refilled are forgotten to make room */
    thue_limiter *lim = thue_limiter_new(1.0, 2.0, 1000);
    assert_non_null(lim);
    uint64_t now = 0;
    for (int i = 0; i < 100000; i++) {
        char key[32];
        snprintf(key, sizeof key, "10.%d.%d.%d", i >> 16 & 255, i >> 8 & 255, i & 255);
        assert_int_equal(thue_limiter_take(lim, key, now, NULL), 1);
        assert_true(thue_limiter_size(lim) <= 1000);
        now += 2; /* 500 new keys a second: each has refilled after 1 s */
    }
    /* 1000 keys fill the table in 2 s, by when the older half has refilled: each sweep
     * makes room for the next second's keys, and no key goes untracked */
    assert_int_equal(thue_limiter_untracked(lim), 0);
    /* a key that is tracked is limited */
    assert_int_equal(thue_limiter_take(lim, "one", now, NULL), 1);
    assert_int_equal(thue_limiter_take(lim, "one", now, NULL), 1);
    uint64_t retry = 0;
    assert_int_equal(thue_limiter_take(lim, "one", now, &retry), 0);
    assert_int_equal(retry, 1000);
    thue_limiter_free(lim);
}

static void test_limiter_bad_arguments(void **state)
{
    (void)state;
    assert_null(thue_limiter_new(0, 1, 10));
    assert_null(thue_limiter_new(1, 0.5, 10));
    assert_null(thue_limiter_new(1, 1, 0));
    assert_null(thue_limiter_new(-1, 1, 10));
    thue_limiter_free(NULL);
    /* a clock that goes back refills nothing and breaks nothing */
    thue_limiter *lim = thue_limiter_new(1, 1, 4);
    assert_int_equal(thue_limiter_take(lim, "a", 5000, NULL), 1);
    assert_int_equal(thue_limiter_take(lim, "a", 100, NULL), 0);
    assert_int_equal(thue_limiter_take(lim, "a", 6000, NULL), 1);
    thue_limiter_free(lim);
}

/* ---- counts against a plain array ----------------------------------------------------- */

static void test_counts_matches_naive(void **state)
{
    (void)state;
    srand(11);
    thue_counts *c = thue_counts_new();
    assert_non_null(c);
    long naive[50] = {0};
    for (int op = 0; op < 20000; op++) {
        int k = rand() % 50;
        char key[16];
        snprintf(key, sizeof key, "owner-%d", k);
        long delta = (rand() % 7) - 3;
        long want = naive[k] + delta < 0 ? 0 : naive[k] + delta;
        naive[k] = want;
        assert_int_equal(thue_counts_add(c, key, delta), want);
        assert_int_equal(thue_counts_get(c, key), want);
        size_t nonzero = 0;
        for (int i = 0; i < 50; i++)
            nonzero += naive[i] != 0;
        assert_int_equal(thue_counts_size(c), nonzero);
    }
    assert_int_equal(thue_counts_get(c, "never"), 0);
    thue_counts_free(c);
    thue_counts_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addr_key_forms),       cmocka_unit_test(test_limiter_matches_naive),
        cmocka_unit_test(test_limiter_bounded),      cmocka_unit_test(test_limiter_bad_arguments),
        cmocka_unit_test(test_counts_matches_naive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
