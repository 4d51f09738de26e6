/*
 * test_budget.c: the searches' memory budgets (search/budget.h), checked against a naive
 * model, under threads, and as the searches use them (a uct tree stops growing, the
 * statistics say what was refused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "base/rng.h"
#include "games/game.h"
#include "search/budget.h"
#include "search/guct.h"

/* ---- against a naive model ---------------------------------------------------------------- */

#define OWNERS 4
#define ACCOUNTS 12

typedef struct model {
    uint64_t search, owner, total; /* the limits */
    uint64_t held[ACCOUNTS];
    int owner_of[ACCOUNTS];
    int open[ACCOUNTS];
    uint64_t refused[3];
} model;

static uint64_t owner_sum(const model *m, int o)
{
    uint64_t s = 0;
    for (int a = 0; a < ACCOUNTS; a++)
        if (m->open[a] && m->owner_of[a] == o)
            s += m->held[a];
    return s;
}

static uint64_t total_sum(const model *m)
{
    uint64_t s = 0;
    for (int a = 0; a < ACCOUNTS; a++)
        if (m->open[a])
            s += m->held[a];
    return s;
}

/* The model's answer to a take: 0, or -1 with the limit that refused counted. */
static int model_take(model *m, int a, uint64_t n)
{
    if (m->held[a] + n > m->search) {
        m->refused[THUE_MEM_SEARCH]++;
        return -1;
    }
    if (owner_sum(m, m->owner_of[a]) + n > m->owner) {
        m->refused[THUE_MEM_OWNER]++;
        return -1;
    }
    if (total_sum(m) + n > m->total) {
        m->refused[THUE_MEM_TOTAL]++;
        return -1;
    }
    m->held[a] += n;
    return 0;
}

static void test_budget_matches_model(void **state)
{
    (void)state;
    uint64_t rng = 2029;
    for (int round = 0; round < 40; round++) {
        model m;
        memset(&m, 0, sizeof m);
        m.search = 100 + thue_splitmix64(&rng) % 400;
        m.owner = m.search + thue_splitmix64(&rng) % 600;
        m.total = m.owner + thue_splitmix64(&rng) % 1200;
        thue_mem_limits lim = {m.search, m.owner, m.total};
        thue_mem_budget *b = thue_mem_budget_new(&lim);
        assert_non_null(b);
        thue_mem *acct[ACCOUNTS] = {0};
        uint64_t peak = 0;
        for (int step = 0; step < 3000; step++) {
            int a = (int)(thue_splitmix64(&rng) % ACCOUNTS);
            int op = (int)(thue_splitmix64(&rng) % 10);
            if (!m.open[a]) {
                m.owner_of[a] = (int)(thue_splitmix64(&rng) % OWNERS);
                char key[16];
                snprintf(key, sizeof key, "ip:10.0.0.%d", m.owner_of[a]);
                acct[a] = thue_mem_open(b, key);
                assert_non_null(acct[a]);
                m.open[a] = 1;
                m.held[a] = 0;
            } else if (op < 6) {
                uint64_t n = 1 + thue_splitmix64(&rng) % 120;
                assert_int_equal(thue_mem_take(acct[a], n), model_take(&m, a, n));
            } else if (op < 9) {
                uint64_t n = m.held[a] ? thue_splitmix64(&rng) % (m.held[a] + 1) : 0;
                thue_mem_give(acct[a], n);
                m.held[a] -= n;
            } else {
                thue_mem_close(acct[a]); /* gives back what it holds */
                acct[a] = NULL;
                m.open[a] = 0;
            }
            if (total_sum(&m) > peak)
                peak = total_sum(&m);
            for (int x = 0; x < ACCOUNTS; x++)
                assert_int_equal(thue_mem_held(m.open[x] ? acct[x] : NULL), m.open[x] ? m.held[x] : 0);
            thue_mem_stats st;
            thue_mem_stats_get(b, &st);
            assert_int_equal(st.used, total_sum(&m));
            assert_int_equal(st.peak, peak);
            uint64_t omax = 0;
            int owners = 0, accounts = 0;
            for (int o = 0; o < OWNERS; o++) {
                int has = 0;
                for (int x = 0; x < ACCOUNTS; x++)
                    has |= m.open[x] && m.owner_of[x] == o;
                owners += has;
                if (owner_sum(&m, o) > omax)
                    omax = owner_sum(&m, o);
            }
            for (int x = 0; x < ACCOUNTS; x++)
                accounts += m.open[x];
            assert_int_equal(st.owner_max, omax);
            assert_int_equal(st.owners, owners);
            assert_int_equal(st.accounts, accounts);
            for (int i = 0; i < 3; i++)
                assert_int_equal(st.refused[i], m.refused[i]);
        }
        for (int a = 0; a < ACCOUNTS; a++)
            thue_mem_close(acct[a]);
        thue_mem_stats st;
        thue_mem_stats_get(b, &st);
        assert_int_equal(st.used, 0);
        assert_int_equal(st.owners, 0);
        thue_mem_budget_free(b);
    }
}

static void test_budget_null_and_bad(void **state)
{
    (void)state;
    /* A NULL account is unlimited and counts nothing. */
    assert_int_equal(thue_mem_take(NULL, (size_t)1 << 40), 0);
    thue_mem_give(NULL, 5);
    thue_mem_close(NULL);
    assert_int_equal(thue_mem_held(NULL), 0);
    assert_null(thue_mem_open(NULL, "x"));
    thue_mem_limits zero = {0, 10, 10};
    assert_null(thue_mem_budget_new(&zero));
    assert_null(thue_mem_budget_new(NULL));
    /* A take larger than any limit is refused whole, without overflow. */
    thue_mem_limits lim = {100, 100, 100};
    thue_mem_budget *b = thue_mem_budget_new(&lim);
    thue_mem *m = thue_mem_open(b, NULL);
    assert_int_equal(thue_mem_take(m, SIZE_MAX), -1);
    assert_int_equal(thue_mem_take(m, 100), 0);
    assert_int_equal(thue_mem_take(m, 1), -1);
    thue_mem_close(m);
    thue_mem_budget_free(b);
}

/* ---- threads ------------------------------------------------------------------------------- */

typedef struct worker {
    thue_mem_budget *b;
    int owner;
    uint64_t seed;
    uint64_t over; /* times a counter seen above its limit */
} worker;

static void *hammer(void *arg)
{
    worker *w = arg;
    char key[16];
    snprintf(key, sizeof key, "acct:%d", w->owner);
    uint64_t rng = w->seed;
    for (int round = 0; round < 200; round++) {
        thue_mem *m = thue_mem_open(w->b, key);
        uint64_t held = 0;
        for (int i = 0; i < 200; i++) {
            uint64_t n = 1 + thue_splitmix64(&rng) % 64;
            if (thue_mem_take(m, n) == 0)
                held += n;
            thue_mem_stats st;
            if (i % 50 == 0) {
                thue_mem_stats_get(w->b, &st);
                w->over += st.used > st.limits.total || st.owner_max > st.limits.per_owner;
            }
            if (held > 0 && thue_splitmix64(&rng) % 3 == 0) {
                uint64_t g = 1 + thue_splitmix64(&rng) % held;
                thue_mem_give(m, g);
                held -= g;
            }
        }
        assert_true(thue_mem_held(m) == held);
        thue_mem_close(m);
    }
    return NULL;
}

/* Threads of two owners take and give at once: no counter ever passes its limit, and all
 * comes back. */
static void test_budget_threads(void **state)
{
    (void)state;
    thue_mem_limits lim = {500, 700, 1000};
    thue_mem_budget *b = thue_mem_budget_new(&lim);
    worker w[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){b, i % 2, 77 + (uint64_t)i, 0};
        assert_int_equal(pthread_create(&t[i], NULL, hammer, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].over, 0);
    }
    thue_mem_stats st;
    thue_mem_stats_get(b, &st);
    assert_int_equal(st.used, 0);
    assert_true(st.peak <= 1000);
    assert_int_equal(st.accounts, 0);
    thue_mem_budget_free(b);
}

/* ---- a search's use ------------------------------------------------------------------------- */

/* A uct tree on a budget grows until the budget refuses, then plays on from its leaves:
 * it stays a valid tree, holds no more than the budget, gives everything back. */
static void test_budget_uct_tree_stops_growing(void **state)
{
    (void)state;
    const thue_gamedef *g = thue_game_find("nim");
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, "{\"heaps\":[40,40,40,40,40,40]}", &opt, &e), 0);
    void *st = malloc(g->state_size(&opt));
    g->start(&opt, 0, st);
    thue_mem_limits lim = {(uint64_t)1 << 20, (uint64_t)1 << 20, (uint64_t)1 << 20};
    thue_mem_budget *b = thue_mem_budget_new(&lim);
    thue_mem *m = thue_mem_open(b, "ip:1.2.3.4");
    thue_guct_params p = {100, 1.4, 5, 0, m};
    thue_guct *t = NULL;
    assert_int_equal(thue_guct_new(g, &opt, st, &p, &t), 0);
    uint64_t ran = 0;
    assert_int_equal(thue_guct_run(t, 20000, NULL, &ran), 0);
    assert_int_equal(ran, 20000); /* iterations go on without growth */
    assert_true(thue_guct_mem_full(t));
    assert_true(thue_guct_check(t));
    assert_true(thue_mem_held(m) <= (uint64_t)1 << 20);
    thue_mem_stats ms;
    thue_mem_stats_get(b, &ms);
    assert_true(ms.refused[THUE_MEM_SEARCH] > 0);
    /* The same search without a budget grows further. */
    thue_guct_params q = p;
    q.mem = NULL;
    thue_guct *u = NULL;
    assert_int_equal(thue_guct_new(g, &opt, st, &q, &u), 0);
    assert_int_equal(thue_guct_run(u, 20000, NULL, NULL), 0);
    assert_true(thue_guct_nodes(u) > thue_guct_nodes(t));
    thue_guct_free(u);
    thue_guct_free(t);
    assert_int_equal(thue_mem_held(m), 0);
    /* An account that cannot hold even the first nodes: no tree. */
    thue_mem_limits tiny = {64, 64, 64};
    thue_mem_budget *b2 = thue_mem_budget_new(&tiny);
    thue_mem *m2 = thue_mem_open(b2, "x");
    p.mem = m2;
    assert_int_equal(thue_guct_new(g, &opt, st, &p, &t), THUE_ETOOBIG);
    thue_mem_close(m2);
    thue_mem_budget_free(b2);
    thue_mem_close(m);
    thue_mem_budget_free(b);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_matches_model),
        cmocka_unit_test(test_budget_null_and_bad),
        cmocka_unit_test(test_budget_threads),
        cmocka_unit_test(test_budget_uct_tree_stops_growing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
