/*
 * test_pool.c: the bot worker pool (server/search/pool.h): jobs, splits, cancelling,
 * deadlines, bad input, callbacks and closing. test_pool_owners.c has the owners and
 * the time slices; pool_helpers.c the helpers both use.
 *
 * Every test runs its own uv loop and pool. Tests block only by running the loop (the
 * pool keeps the loop alive while a result is pending, so uv_run(UV_RUN_DEFAULT) returns
 * once everything submitted is delivered or cancelled) or by polling the pool's counters
 * (wait_counts: the CPU is yielded, never slept on). Nothing asserts a duration.
 *
 * The reference for a delivered result is thue_bot_move on the test thread with a stop
 * flag that is never raised: the pool always hands its searches a stop flag, and nested:L
 * deepens level by level under any limit, which shows in its node count.
 *
 * A "blocker" is perfect play for k = 6 from the word 0 with no length limit: it never
 * finishes on its own (it deepens for ever), so it holds a worker until cancelled.
 */
#include "pool_helpers.h"

/* ---- tests --------------------------------------------------------------------------- */

static void test_pool_new_bad_args(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_null(thue_pool_new(NULL, 1));
    assert_null(thue_pool_new(&loop, 0));
    assert_null(thue_pool_new(&loop, 257));
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    int closed = 0;
    thue_pool_close(NULL, on_closed_int, &closed); /* nothing to close: called at once */
    assert_int_equal(closed, 1);

    /* An idle pool does not keep the loop alive; closing it does until it is closed. */
    tctx *t = malloc(sizeof *t);
    setup(t, 3);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    thue_pool_stats st = stats_of(t->pool);
    assert_int_equal(st.threads, 3);
    assert_true(st.submitted == 0 && st.queued == 0 && st.running == 0);
    teardown(t);
    free(t);
}

/* Hundreds of jobs of several bots over random positions, from random parts: each is
 * delivered exactly once with thue_bot_move's answer. */
static void test_pool_many_jobs(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 4);
    uint64_t rng = 2024;
    const int jobs = 300;
    for (int j = 0; j < jobs; j++) {
        int k = 3 + rng_below(&rng, 4);
        thue_variant v = rng_below(&rng, 2) ? THUE_OVERLAP : THUE_SQUARE;
        const char *spec = j % 3 == 0 ? "greedy" : j % 3 == 1 ? "nested:1" : "perfect";
        int perfect = j % 3 == 2;
        /* Perfect play is kept cheap by a short word and a length limit. */
        uint8_t w[64];
        int n = random_word(&rng, k, v, perfect ? 1 + rng_below(&rng, 8) : rng_below(&rng, 30), w);
        thue_role role = rng_below(&rng, 2) ? THUE_ROLE_PAINTER : THUE_ROLE_BUILDER;
        int index = rng_below(&rng, n + 1);
        int remaining = perfect ? 1 + rng_below(&rng, 3) : rng_below(&rng, 5);
        submit_checked(t, spec, w, n, k, v, role, index, remaining, rng_next(&rng),
                       rng_below(&rng, 4));
    }
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    for (int j = 0; j < jobs; j++) {
        check_delivered(&t->slots[j]);
        if (j > 0) /* ids are increasing, so never reused */
            assert_true(t->slots[j].id > t->slots[j - 1].id);
    }
    thue_pool_stats st = stats_of(t->pool);
    assert_int_equal(st.submitted, jobs);
    assert_int_equal(st.completed, jobs);
    assert_true(st.cancelled == 0 && st.failed == 0 && st.queued == 0 && st.running == 0);
    teardown(t);
    free(t);
}

/* nested:2 split into parts (run on two workers) plays the move and counts the nodes of
 * the unsplit search. */
static void test_pool_split_same_as_single(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 2);
    uint64_t rng = 77;
    for (int trial = 0; trial < 4; trial++) {
        uint8_t w[64];
        int k = 4 + trial % 2;
        int n = random_word(&rng, k, THUE_SQUARE, 6 + rng_below(&rng, 4), w);
        thue_role role = trial % 2 ? THUE_ROLE_PAINTER : THUE_ROLE_BUILDER;
        int index = rng_below(&rng, n + 1);
        uint64_t seed = rng_next(&rng);
        for (int parts = 1; parts <= 4; parts++)
            submit_checked(t, "nested:2", w, n, k, THUE_SQUARE, role, index, 0, seed, parts);
    }
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    for (int j = 0; j < t->nslots; j++) {
        check_delivered(&t->slots[j]);
        const slot *single = &t->slots[j - j % 4];
        assert_int_equal(t->slots[j].res.bot.move, single->res.bot.move);
        assert_int_equal(t->slots[j].res.bot.nodes, single->res.bot.nodes);
    }
    teardown(t);
    free(t);
}

/* With every worker held, queued jobs are cancelled: no callback, counted, and a second
 * cancel of the same id fails. */
static void test_pool_cancel_queued(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 2);
    slot *b1 = submit_blocker(t), *b2 = submit_blocker(t);
    wait_counts(t->pool, 0, 2);
    slot *q[20];
    for (int j = 0; j < 20; j++)
        q[j] = submit_greedy(t, forbidden_cb);
    thue_pool_stats st = stats_of(t->pool);
    assert_int_equal(st.queued, 20);
    for (int j = 0; j < 20; j++)
        assert_int_equal(thue_pool_cancel(t->pool, q[j]->id), 0);
    for (int j = 0; j < 20; j++)
        assert_int_equal(thue_pool_cancel(t->pool, q[j]->id), THUE_EINVAL);
    st = stats_of(t->pool);
    assert_int_equal(st.cancelled, 20);
    assert_true(st.queued == 0 && st.running == 2);
    assert_int_equal(thue_pool_cancel(t->pool, b1->id), 0);
    assert_int_equal(thue_pool_cancel(t->pool, b2->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    wait_counts(t->pool, 0, 0); /* the stopped searches let their workers go */
    uv_run(&t->loop, UV_RUN_NOWAIT);
    st = stats_of(t->pool);
    assert_int_equal(st.submitted, 22);
    assert_int_equal(st.cancelled, 22);
    assert_true(st.completed == 0 && st.failed == 0);
    teardown(t);
    free(t);
}

/* A running search is stopped by cancel: its callback never runs and its worker takes the
 * next job. */
static void test_pool_cancel_running(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 1);
    slot *b = submit_blocker(t);
    wait_counts(t->pool, 0, 1);
    assert_int_equal(thue_pool_cancel(t->pool, b->id), 0);
    assert_int_equal(thue_pool_cancel(t->pool, b->id), THUE_EINVAL);
    static const uint8_t w[4] = {0, 1, 2, 0};
    slot *after =
        submit_checked(t, "nested:1", w, 4, 4, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0, 5, 1);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    check_delivered(after);
    thue_pool_stats st = stats_of(t->pool);
    assert_int_equal(st.cancelled, 1);
    assert_int_equal(st.completed, 1);
    assert_true(st.queued == 0 && st.running == 0);
    teardown(t);
    free(t);
}

/* A split job whose first part has run and whose other parts wait behind a blocker (one
 * worker) is cancelled: its remaining parts never run and it is never delivered. */
static void test_pool_cancel_between_parts(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 1);
    /* The queue is first, a, b: once first is cancelled the worker takes a part of a,
     * round-robin then puts a behind b, and b holds the worker while a still has parts
     * queued (both count as running). */
    slot *first = submit_blocker(t);
    static const uint8_t w[5] = {0, 1, 2, 0, 1};
    slot *a = new_slot(t);
    a->pos = position_of(w, 5, 4, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
    thue_bot_spec nested = spec_of("nested:2");
    assert_int_equal(submit(t, a, &nested, 3, 3, forbidden_cb), 0);
    slot *b = submit_blocker(t);
    assert_int_equal(thue_pool_cancel(t->pool, first->id), 0);
    wait_counts(t->pool, 0, 2);
    assert_int_equal(thue_pool_cancel(t->pool, a->id), 0);
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.cancelled == 2 && st.queued == 0 && st.running == 1);
    assert_int_equal(thue_pool_cancel(t->pool, b->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    wait_counts(t->pool, 0, 0);
    st = stats_of(t->pool);
    assert_true(st.submitted == 3 && st.cancelled == 3 && st.completed == 0);
    teardown(t);
    free(t);
}

/* A job that has finished but whose result the loop has not yet taken is cancelled; ids
 * that are unknown or already delivered cannot be. */
static void test_pool_cancel_finished_undelivered(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 1);
    slot *a = submit_greedy(t, forbidden_cb);
    wait_counts(t->pool, 0, 0); /* finished and posted; the loop has not run */
    assert_int_equal(thue_pool_cancel(t->pool, a->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    slot *b = submit_greedy(t, record_cb);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(b->calls, 1);
    assert_int_equal(thue_pool_cancel(t->pool, b->id), THUE_EINVAL);
    assert_int_equal(thue_pool_cancel(t->pool, 0), THUE_EINVAL);
    assert_int_equal(thue_pool_cancel(t->pool, b->id + 1000), THUE_EINVAL);
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.submitted == 2 && st.cancelled == 1 && st.completed == 1);
    teardown(t);
    free(t);
}

/* The first callback of a drain cancels the other job of the same drain. */
static void cancel_other_cb(const thue_job_result *res, void *data)
{
    slot *s = data;
    record_cb(res, data);
    slot *other = s == &s->t->slots[0] ? &s->t->slots[1] : &s->t->slots[0];
    assert_int_equal(thue_pool_cancel(s->t->pool, other->id), 0);
}

static void test_pool_cancel_in_same_drain(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 2);
    slot *a = submit_greedy(t, cancel_other_cb);
    slot *b = submit_greedy(t, cancel_other_cb);
    wait_counts(t->pool, 0, 0); /* both posted: one drain takes them both */
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(a->calls + b->calls, 1);
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.completed == 1 && st.cancelled == 1);
    teardown(t);
    free(t);
}

/* Perfect play for k = 5 cannot finish in 30 ms: a time limit or a deadline stops it
 * with a legal, inexact move. */
static void test_pool_deadline(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 2);
    static const uint8_t w[1] = {0};
    thue_bot_spec spec = spec_of("perfect");
    slot *a = new_slot(t);
    a->pos = position_of(w, 1, 5, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
    thue_job_request req;
    memset(&req, 0, sizeof req);
    req.spec = spec;
    req.pos = a->pos;
    req.think_ms = 30;
    req.cb = record_cb;
    req.data = a;
    assert_int_equal(thue_pool_submit(t->pool, &req, &a->id), 0);
    slot *b = new_slot(t);
    b->pos = position_of(w, 1, 5, THUE_SQUARE, THUE_ROLE_PAINTER, 1, 0);
    req.pos = b->pos;
    req.think_ms = 0;
    req.deadline_ns = thue_now_ns() + 30 * 1000000LL;
    req.parts = 2;
    req.data = b;
    assert_int_equal(thue_pool_submit(t->pool, &req, &b->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    for (int j = 0; j < 2; j++) {
        const slot *s = &t->slots[j];
        assert_int_equal(s->calls, 1);
        assert_int_equal(s->res.err, 0);
        assert_int_equal(s->res.bot.stopped, 1);
        assert_int_equal(s->res.bot.exact, 0);
    }
    assert_true(a->res.bot.move >= 0 && a->res.bot.move <= 1);
    assert_int_equal(thue_check_insert(w, 1, THUE_SQUARE, 1, b->res.bot.move, NULL), 0);
    teardown(t);
    free(t);
}

/* One worker, job A split in three and job B behind it: B's only part runs before A's
 * last, so B is delivered first (A's parts go round-robin with B, not all ahead of it).
 * A blocker holds the worker until both are queued, so the order does not depend on
 * timing. */
static void test_pool_fair_round_robin(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 1);
    slot *blocker = submit_blocker(t);
    static const uint8_t w[5] = {0, 1, 2, 0, 1};
    slot *a = submit_checked(t, "nested:2", w, 5, 4, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0, 3, 3);
    slot *b = submit_checked(t, "greedy", w, 5, 4, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0, 3, 1);
    assert_int_equal(thue_pool_cancel(t->pool, blocker->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    check_delivered(a);
    check_delivered(b);
    assert_int_equal(b->order, 0);
    assert_int_equal(a->order, 1);
    teardown(t);
    free(t);
}

/* A word that already holds a repetition is found by a worker (the loop thread never
 * scans a whole word) and reported through the callback, for every kind of bot. */
static void test_pool_repetition_reported_by_callback(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 2);
    static const uint8_t square[4] = {0, 1, 0, 1};
    const char *specs[] = {"greedy", "nested:2", "perfect", "uct:iterations=100"};
    slot *s[4];
    for (int x = 0; x < 4; x++) {
        s[x] = new_slot(t);
        s[x]->pos = position_of(square, 4, 3, THUE_SQUARE,
                                x % 2 ? THUE_ROLE_PAINTER : THUE_ROLE_BUILDER, 2, 0);
        thue_bot_spec spec = spec_of(specs[x]);
        assert_int_equal(submit(t, s[x], &spec, 1, 2, record_cb), 0);
    }
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    for (int x = 0; x < 4; x++) {
        assert_int_equal(s[x]->calls, 1);
        assert_int_equal(s[x]->res.err, THUE_EREPEAT);
    }
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.failed == 4 && st.completed == 0 && st.queued == 0 && st.running == 0);
    teardown(t);
    free(t);
}

/* Bad requests fail at once, change no counter and never call back. */
static void test_pool_bad_input(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 1);
    thue_pool_stats before = stats_of(t->pool);
    static const uint8_t good[3] = {0, 1, 0}, big[3] = {0, 3, 0};
    slot *s = new_slot(t);
    s->pos = position_of(good, 3, 3, THUE_SQUARE, THUE_ROLE_PAINTER, 1, 0);
    thue_bot_spec greedy = spec_of("greedy"), bad_spec = thue_bot_spec_default(THUE_BOT_NESTED);
    bad_spec.level = THUE_NESTED_MAX + 1;
    uint64_t id = 12345;

    assert_int_equal(submit(t, s, &greedy, 1, 1, NULL), THUE_EINVAL);
    assert_int_equal(submit(t, s, &bad_spec, 1, 1, forbidden_cb), THUE_EINVAL);
    assert_int_equal(submit(t, s, &greedy, 1, -1, forbidden_cb), THUE_EINVAL);
    assert_int_equal(submit(t, s, &greedy, 1, THUE_BOT_PARTS_MAX + 1, forbidden_cb), THUE_EINVAL);
    assert_int_equal(thue_pool_submit(t->pool, NULL, &id), THUE_EINVAL);
    s->pos = position_of(big, 3, 3, THUE_SQUARE, THUE_ROLE_PAINTER, 1, 0);
    assert_int_equal(submit(t, s, &greedy, 1, 1, forbidden_cb), THUE_ESYMBOL);
    s->pos = position_of(good, 3, 3, THUE_SQUARE, THUE_ROLE_PAINTER, 4, 0);
    assert_int_equal(submit(t, s, &greedy, 1, 1, forbidden_cb), THUE_EPOSITION);
    s->pos = position_of(good, 3, 1, THUE_SQUARE, THUE_ROLE_PAINTER, 1, 0);
    assert_int_equal(submit(t, s, &greedy, 1, 1, forbidden_cb), THUE_EK);
    assert_true(id == 12345);

    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    thue_pool_stats after = stats_of(t->pool);
    assert_int_equal(after.threads, before.threads);
    assert_true(after.submitted == 0 && after.completed == 0 && after.cancelled == 0 &&
                after.failed == 0 && after.queued == 0 && after.running == 0);
    teardown(t);
    free(t);
}

/* A callback cancels another job (a running blocker) and submits a new one. */
static void reenter_cb(const thue_job_result *res, void *data)
{
    slot *s = data;
    tctx *t = s->t;
    record_cb(res, data);
    assert_int_equal(thue_pool_cancel(t->pool, t->slots[1].id), 0);
    static const uint8_t w[4] = {0, 1, 0, 2};
    submit_checked(t, "nested:1", w, 4, 3, THUE_OVERLAP, THUE_ROLE_PAINTER, 2, 0, 9, 2);
}

static void test_pool_reentrant_callback(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 1);
    slot *a = submit_greedy(t, reenter_cb); /* slots[0] */
    submit_blocker(t);                      /* slots[1]: runs once a is done */
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(a->calls, 1);
    assert_int_equal(t->nslots, 3);
    check_delivered(&t->slots[2]);
    assert_int_equal(t->slots[2].order, 1);
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.submitted == 3 && st.completed == 2 && st.cancelled == 1);
    teardown(t);
    free(t);
}

/* Closing with a result waiting, searches running and jobs queued: no callback runs, the
 * loop ends, and nothing leaks (the sanitizer builds check). */
static void test_pool_close_in_flight(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 2);
    submit_greedy(t, forbidden_cb);
    wait_counts(t->pool, 0, 0); /* finished, not delivered */
    /* Two blockers hold both workers; a split job and a third blocker queue behind them.
     * When the first blocker is cancelled its worker runs one part of the split job, which
     * then goes behind the third blocker: the split job is left between parts. */
    slot *b1 = submit_blocker(t);
    submit_blocker(t);
    wait_counts(t->pool, 0, 2);
    static const uint8_t w[5] = {0, 1, 2, 0, 1};
    thue_bot_spec nested = spec_of("nested:2");
    slot *split = new_slot(t);
    split->pos = position_of(w, 5, 4, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
    assert_int_equal(submit(t, split, &nested, 3, 3, forbidden_cb), 0);
    submit_blocker(t);
    assert_int_equal(thue_pool_cancel(t->pool, b1->id), 0);
    wait_counts(t->pool, 0, 3);
    for (int j = 0; j < 3; j++)
        submit_greedy(t, forbidden_cb);
    split = new_slot(t);
    split->pos = position_of(w, 5, 4, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
    assert_int_equal(submit(t, split, &nested, 3, 3, forbidden_cb), 0);
    thue_pool_stats st = stats_of(t->pool);
    assert_true(st.submitted == 9 && st.queued == 4 && st.running == 3);
    thue_pool_close(t->pool, on_closed, t);
    slot *late = new_slot(t);
    late->pos = t->slots[0].pos;
    thue_bot_spec greedy = spec_of("greedy");
    assert_int_equal(submit(t, late, &greedy, 1, 1, forbidden_cb), THUE_EOVER);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(t->closed, 1);
    assert_int_equal(uv_loop_close(&t->loop), 0);
    assert_int_equal(t->forbidden, 0);
    free(t);
}

/* A callback closes the pool while the same drain holds other results: they are never
 * delivered, and freed with the pool. */
static void close_cb(const thue_job_result *res, void *data)
{
    slot *s = data;
    record_cb(res, data);
    thue_pool_close(s->t->pool, on_closed, s->t);
}

static void test_pool_close_from_callback(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 2);
    for (int j = 0; j < 4; j++)
        submit_greedy(t, close_cb);
    wait_counts(t->pool, 0, 0);
    submit_blocker(t);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(t->delivered, 1);
    assert_int_equal(t->closed, 1);
    assert_int_equal(uv_loop_close(&t->loop), 0);
    assert_int_equal(t->forbidden, 0);
    free(t);
}

/* The counters are read from another thread while jobs come and go. */
typedef struct watcher {
    thue_pool *pool;
    uint64_t until; /* completed + cancelled to wait for */
    int bad;
} watcher;

static void watch(void *arg)
{
    watcher *w = arg;
    thue_pool_stats st;
    do {
        thue_pool_stats_get(w->pool, &st);
        uint64_t ended = st.completed + st.cancelled + st.failed;
        if (st.queued < 0 || st.running < 0 || ended + (uint64_t)st.queued > st.submitted)
            w->bad++;
        sched_yield();
    } while (st.completed + st.cancelled < w->until);
}

static void test_pool_stats_any_thread(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    setup(t, 2);
    watcher w = {t->pool, 40, 0};
    uv_thread_t th;
    assert_int_equal(uv_thread_create(&th, watch, &w), 0);
    uint64_t rng = 5;
    for (int j = 0; j < 40; j++) {
        uint8_t word[64];
        int n = random_word(&rng, 4, THUE_SQUARE, 12, word);
        slot *s = submit_checked(t, "nested:1", word, n, 4, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0,
                                 (uint64_t)j, 2);
        if (j % 4 == 3)
            assert_int_equal(thue_pool_cancel(t->pool, s->id), 0);
    }
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_thread_join(&th), 0);
    assert_int_equal(w.bad, 0);
    for (int j = 0; j < 40; j++)
        assert_int_equal(t->slots[j].calls, j % 4 == 3 ? 0 : 1);
    teardown(t);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_new_bad_args),
        cmocka_unit_test(test_pool_many_jobs),
        cmocka_unit_test(test_pool_split_same_as_single),
        cmocka_unit_test(test_pool_cancel_queued),
        cmocka_unit_test(test_pool_cancel_running),
        cmocka_unit_test(test_pool_cancel_between_parts),
        cmocka_unit_test(test_pool_cancel_finished_undelivered),
        cmocka_unit_test(test_pool_cancel_in_same_drain),
        cmocka_unit_test(test_pool_deadline),
        cmocka_unit_test(test_pool_fair_round_robin),
        cmocka_unit_test(test_pool_bad_input),
        cmocka_unit_test(test_pool_repetition_reported_by_callback),
        cmocka_unit_test(test_pool_reentrant_callback),
        cmocka_unit_test(test_pool_close_in_flight),
        cmocka_unit_test(test_pool_close_from_callback),
        cmocka_unit_test(test_pool_stats_any_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
