/*
 * test_pool_owners.c: the worker pool's owners and time slices (server/search/pool.h):
 * owners served in turn against a naive round-robin, a new owner starting while every
 * slot is busy, paused searches resuming with the same result, the per-owner and the
 * thread limits, and closing with paused and queued searches. Helpers: pool_helpers.c.
 */
#include "pool_helpers.h"
#include "pool_order.h"

/* ---- owners and time slices --------------------------------------------------------- */

/* Runs the loop until s has been called back (a watchdog, not a timing assertion). */
static void run_until_delivered(tctx *t, const slot *s)
{
    int64_t give_up = thue_now_ns() + 60 * 1000000000LL;
    while (s->calls == 0) {
        uv_run(&t->loop, UV_RUN_ONCE);
        if (thue_now_ns() > give_up)
            fail_msg("job %llu was never delivered", (unsigned long long)s->id);
    }
}

/* Polls the counters until at least `paused` parts are paused (a watchdog as above). */
static void wait_paused(thue_pool *pool, int paused)
{
    int64_t give_up = thue_now_ns() + 60 * 1000000000LL;
    while (stats_of(pool).paused < paused) {
        if (thue_now_ns() > give_up)
            fail_msg("never %d parts paused", paused);
        sched_yield();
    }
}

/* One slot held by a blocker while random owners queue jobs: once it is cancelled, the
 * jobs run in the order of the naive round-robin over owners, whatever the backlog of
 * each (one owner's 20 jobs do not hold up another's one). */
static void test_pool_owners_in_turn(void **state)
{
    (void)state;
    static const char *names[5] = {"acct:1", "ip:203.0.113.7", "ip:2001:db8::/64", "tour:t1", ""};
    uint64_t rng = 99;
    for (int round = 0; round < 4; round++) {
        tctx *t = malloc(sizeof *t);
        setup(t, 1);
        next_owner = "blocker";
        slot *blocker = submit_blocker(t);
        wait_counts(t->pool, 0, 1);
        int n = 10 + rng_below(&rng, 30), owner_of[64];
        /* round 0: one owner's backlog first, then one job of each other */
        for (int j = 0; j < n; j++) {
            owner_of[j] = round == 0 ? (j < n - 4 ? 0 : j - (n - 4) + 1) : rng_below(&rng, 5);
            next_owner = names[owner_of[j]];
            submit_greedy(t, record_cb);
        }
        next_owner = NULL;
        int distinct = 0;
        for (int o = 0; o < 5; o++)
            for (int j = 0; j < n; j++)
                if (owner_of[j] == o) {
                    distinct++;
                    break;
                }
        assert_int_equal(stats_of(t->pool).owners, 1 + distinct);
        assert_int_equal(thue_pool_cancel(t->pool, blocker->id), 0);
        assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
        int want[64];
        reference_order(owner_of, n, want);
        for (int k = 0; k < n; k++) {
            const slot *s = &t->slots[1 + want[k]];
            assert_int_equal(s->calls, 1);
            if (s->order != k)
                fail_msg("round %d: job %d of owner %d delivered %d-th, the reference says %d-th",
                         round, want[k], owner_of[want[k]], s->order, k);
        }
        assert_int_equal(stats_of(t->pool).owners, 0);
        teardown(t);
        free(t);
    }
}

/* Both slots hold searches that never end, for two owners: a third owner's job still
 * starts (on a thread of its own: the pool grows past its slots) and is delivered,
 * because the searches pause for it at the end of their slices. */
static void test_pool_new_owner_starts_while_busy(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 2}; /* the default slice */
    setup_config(t, &cfg);
    next_owner = "x";
    slot *bx = submit_blocker(t);
    next_owner = "y";
    slot *by = submit_blocker(t);
    wait_counts(t->pool, 0, 2);
    next_owner = "z";
    static const uint8_t w[6] = {0, 1, 2, 0, 1, 0};
    slot *z = submit_checked(t, "nested:2", w, 6, 3, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0, 5, 1);
    next_owner = NULL;
    run_until_delivered(t, z);
    check_delivered(z);
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.pauses >= 1);
    assert_true(st.threads_started >= 3);
    assert_int_equal(st.running, 2); /* the blockers, running or paused */
    assert_int_equal(thue_pool_cancel(t->pool, bx->id), 0);
    assert_int_equal(thue_pool_cancel(t->pool, by->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    wait_counts(t->pool, 0, 0); /* their workers notice the stop flags */
    st = stats_of(t->pool);
    assert_true(st.queued == 0 && st.running == 0 && st.paused == 0 && st.owners == 0);
    teardown(t);
    free(t);
}

/* One slot, a 1 ms slice and searches of every kind for different owners: they take
 * turns, pausing many times, and each still finds exactly what it finds alone (same
 * move, same node count): a paused search resumes where it stopped. */
static void test_pool_paused_searches_same_result(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 1, .slice_ms = 1};
    setup_config(t, &cfg);
    uint64_t rng = 3;
    static const char *specs[4] = {"nested:2", "uct:iterations=1500", "perfect", "nested:1"};
    static const char *owners[4] = {"a", "b", "c", "d"};
    for (int j = 0; j < 8; j++) {
        uint8_t word[64];
        int k = j % 4 == 2 ? 3 : 4;
        thue_variant v = j % 4 == 2 ? THUE_OVERLAP : THUE_SQUARE;
        int n = random_word(&rng, k, v, j % 4 == 2 ? 6 : 24, word);
        next_owner = owners[j % 4];
        submit_checked(t, specs[j % 4], word, n, k, v, THUE_ROLE_BUILDER, 0, 0, (uint64_t)j, 1);
    }
    next_owner = NULL;
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    for (int j = 0; j < 8; j++)
        check_delivered(&t->slots[j]);
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.pauses >= 1);
    assert_int_equal(st.completed, 8);
    assert_true(st.paused == 0 && st.owners == 0);
    teardown(t);
    free(t);
}

/* An owner never has more than owner_parts_max parts started: with a limit of 1, the
 * second job of an owner whose first never ends stays queued while another owner's job
 * runs on the free slot and is delivered. */
static void test_pool_owner_limit(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 2, .owner_parts_max = 1, .slice_ms = 10000};
    setup_config(t, &cfg);
    next_owner = "a";
    slot *blocker = submit_blocker(t);
    slot *second = submit_greedy(t, record_cb);
    wait_counts(t->pool, 1, 1);
    next_owner = "b";
    slot *other = submit_greedy(t, record_cb);
    next_owner = NULL;
    run_until_delivered(t, other);
    assert_int_equal(second->calls, 0);
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.queued == 1 && st.running == 1);
    assert_int_equal(thue_pool_cancel(t->pool, blocker->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(second->calls, 1);
    teardown(t);
    free(t);
}

/* Every thread holds a never-ending search (threads_max 3, one slot, three owners):
 * a fourth owner's job cannot get a thread, so the oldest paused search of the owner
 * with the most started is stopped early (delivered, stopped) and the newcomer runs on
 * its thread. */
static void test_pool_thread_limit_stops_one_early(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 1, .slice_ms = 1, .threads_max = 3};
    setup_config(t, &cfg);
    static const uint8_t zero[1] = {0};
    static const char *owners[3] = {"a", "b", "c"};
    slot *blk[3];
    for (int i = 0; i < 3; i++) {
        next_owner = owners[i];
        blk[i] = new_slot(t);
        blk[i]->pos = position_of(zero, 1, 6, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
        thue_bot_spec spec = spec_of("perfect");
        assert_int_equal(submit(t, blk[i], &spec, 1, 1, record_cb), 0);
    }
    wait_paused(t->pool, 2);
    assert_int_equal(stats_of(t->pool).threads_started, 3);
    next_owner = "d";
    slot *d = submit_greedy(t, record_cb);
    next_owner = NULL;
    run_until_delivered(t, d);
    assert_int_equal(d->res.err, 0);
    thue_pool_stats st = stats_of(t->pool);
    assert_int_equal(st.stopped_early, 1);
    assert_int_equal(st.threads_started, 3);
    int stopped = 0;
    for (int i = 0; i < 3; i++)
        if (blk[i]->calls) {
            assert_int_equal(blk[i]->res.err, 0);
            assert_int_equal(blk[i]->res.bot.stopped, 1);
            stopped++;
        } else {
            assert_int_equal(thue_pool_cancel(t->pool, blk[i]->id), 0);
        }
    assert_int_equal(stopped, 1);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    teardown(t);
    free(t);
}

/* Closing while searches are paused and jobs are queued: the paused ones are woken and
 * stop, the queued ones never start, no callback runs, every thread is joined. */
static void test_pool_close_paused_and_queued(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 1, .owner_parts_max = 1, .slice_ms = 1};
    setup_config(t, &cfg);
    static const char *owners[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        next_owner = owners[i];
        submit_blocker(t);
        submit_blocker(t); /* queued behind its owner's first (owner_parts_max 1) */
    }
    next_owner = NULL;
    wait_paused(t->pool, 2);
    thue_pool_stats st = stats_of(t->pool);
    assert_int_equal(st.queued, 3);
    assert_int_equal(st.running, 3);
    teardown(t); /* asserts that no callback ran */
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_owners_in_turn),
        cmocka_unit_test(test_pool_new_owner_starts_while_busy),
        cmocka_unit_test(test_pool_paused_searches_same_result),
        cmocka_unit_test(test_pool_owner_limit),
        cmocka_unit_test(test_pool_close_paused_and_queued),
        cmocka_unit_test(test_pool_thread_limit_stops_one_early),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
