/*
 * test_keepalive.c: the keep-alive timer wheel (server/net/keepalive.h) against a naive
 * reference (an array of due ticks scanned whole at every advance): random schedules,
 * moves and cancels over many turns of the wheel, long pauses, and callbacks that move
 * and cancel entries, the one being fired and others of its slot included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/keepalive.h"

#define N 300
#define TICK 100

typedef struct item {
    thue_ka_entry e; /* first: the entry's address is the item's */
    int id;
} item;

/* The reference: each entry's due tick or 0 when not scheduled. */
typedef struct ref {
    uint64_t due[N];
    uint64_t done;     /* ticks handled */
    uint64_t min_tick; /* during an advance */
} ref;

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void ref_schedule(ref *r, int id, uint64_t due_ms)
{
    uint64_t t = (due_ms + TICK - 1) / TICK;
    if (t <= r->done)
        t = r->done + 1;
    if (t < r->min_tick)
        t = r->min_tick;
    r->due[id] = t;
}

typedef struct world {
    thue_ka_wheel w;
    item items[N];
    ref r;
    int fired[N]; /* fired in the current advance */
    int mutate;   /* callbacks move and cancel entries */
    uint64_t now;
} world;

static void on_fire(thue_ka_entry *e, void *arg)
{
    world *x = arg;
    item *it = (item *)e;
    assert_false(thue_ka_scheduled(e));
    x->fired[it->id]++;
    if (!x->mutate)
        return;
    /* Move or cancel a few others, and sometimes re-arm this one (in the past too). The
     * reference does the same; what has fired in this advance is not fired again. */
    for (int k = 0; k < 2; k++) {
        int j = (int)(rnd() % N);
        if (x->fired[j])
            continue;
        if (rnd() % 2) {
            thue_ka_cancel(&x->w, &x->items[j].e);
            x->r.due[j] = 0;
        } else {
            uint64_t due = x->now + rnd() % 5000;
            thue_ka_schedule(&x->w, &x->items[j].e, due);
            ref_schedule(&x->r, j, due);
        }
    }
    if (rnd() % 3 == 0) {
        uint64_t due = x->now - 300 + rnd() % 2000;
        thue_ka_schedule(&x->w, e, due);
        ref_schedule(&x->r, it->id, due);
    }
}

/* Advances both to now and checks that the same entries fired, once each. */
static void advance_both(world *x, uint64_t now)
{
    x->now = now;
    uint64_t now_tick = now / TICK;
    int want[N] = {0};
    if (now_tick > x->r.done)
        for (int i = 0; i < N; i++)
            if (x->r.due[i] && x->r.due[i] <= now_tick)
                want[i] = 1;
    /* The reference's entries that fire are unscheduled before any callback runs. */
    memset(x->fired, 0, sizeof x->fired);
    if (now_tick > x->r.done) {
        for (int i = 0; i < N; i++)
            if (want[i])
                x->r.due[i] = 0;
        x->r.min_tick = now_tick + 1;
    }
    /* Callbacks may cancel an entry that was due and not fired yet: then it does not
     * fire. Both sides see the same order only if the reference lets the wheel decide
     * which of the due ones a callback reached first, so mutation skips fired ones and
     * the check below allows "due but cancelled by an earlier callback". */
    thue_ka_advance(&x->w, now, on_fire, x);
    if (now_tick > x->r.done)
        x->r.done = now_tick;
    x->r.min_tick = 0;
    for (int i = 0; i < N; i++) {
        assert_true(x->fired[i] <= 1);
        if (!x->mutate) {
            assert_int_equal(x->fired[i], want[i]);
        } else if (x->fired[i]) {
            assert_true(want[i]);
        }
    }
    /* Whatever was due and did not fire was cancelled or moved by a callback. */
    for (int i = 0; i < N; i++) {
        int sched = thue_ka_scheduled(&x->items[i].e);
        if (!x->mutate || !(want[i] && !x->fired[i]))
            assert_int_equal(sched, x->r.due[i] != 0);
        if (sched)
            assert_int_equal(x->items[i].e.due_tick, x->r.due[i]);
    }
}

static void run(int mutate, uint64_t start)
{
    world *x = calloc(1, sizeof *x);
    assert_non_null(x);
    x->mutate = mutate;
    thue_ka_init(&x->w, TICK, start);
    x->r.done = start / TICK;
    for (int i = 0; i < N; i++) {
        x->items[i].id = i;
        thue_ka_entry_init(&x->items[i].e);
    }
    uint64_t now = start;
    for (int step = 0; step < 20000; step++) {
        int op = (int)(rnd() % 10);
        int i = (int)(rnd() % N);
        if (op < 4) {
            /* from just past to several turns of the wheel ahead */
            uint64_t span = rnd() % 4 == 0 ? 400000 : 3000;
            uint64_t due = now + rnd() % span - (rnd() % 8 == 0 ? 500 : 0);
            thue_ka_schedule(&x->w, &x->items[i].e, due);
            ref_schedule(&x->r, i, due);
        } else if (op < 5) {
            thue_ka_cancel(&x->w, &x->items[i].e);
            x->r.due[i] = 0;
        } else {
            /* mostly small steps, sometimes a pause longer than a turn */
            uint64_t d = rnd() % 50 == 0 ? 200000 + rnd() % 300000 : rnd() % 700;
            now += d;
            advance_both(x, now);
        }
        size_t n = 0;
        for (int k = 0; k < N; k++)
            n += thue_ka_scheduled(&x->items[k].e);
        assert_int_equal(n, x->w.count);
    }
    free(x);
}

static void test_keepalive_matches_reference(void **state)
{
    (void)state;
    run(0, 0);
    run(0, 123456789);
}

static void test_keepalive_callbacks_move_and_cancel(void **state)
{
    (void)state;
    run(1, 0);
    run(1, 987654321);
}

static void test_keepalive_never_early_and_once(void **state)
{
    (void)state;
    thue_ka_wheel w;
    thue_ka_init(&w, TICK, 1000);
    item a = {.id = 0};
    thue_ka_schedule(&w, &a.e, 1250); /* tick 13 */
    world x;
    memset(&x, 0, sizeof x);
    assert_int_equal(thue_ka_advance(&w, 1299, on_fire, &x), 0);
    assert_int_equal(thue_ka_advance(&w, 1300, on_fire, &x), 1);
    assert_int_equal(thue_ka_advance(&w, 99999, on_fire, &x), 0);
    /* a due time in the past fires at the next advance, not before */
    thue_ka_schedule(&w, &a.e, 5);
    assert_true(thue_ka_scheduled(&a.e));
    assert_int_equal(thue_ka_advance(&w, 99999, on_fire, &x), 0);
    assert_int_equal(thue_ka_advance(&w, 100000, on_fire, &x), 1);
    assert_int_equal(w.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keepalive_never_early_and_once),
        cmocka_unit_test(test_keepalive_matches_reference),
        cmocka_unit_test(test_keepalive_callbacks_move_and_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
