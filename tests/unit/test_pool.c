/*
 * test_pool.c: the bot worker pool (server/search/pool.h).
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
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "engine/errors.h"
#include "search/bot.h"
#include "search/pool.h"

#define SLOTS_MAX 400

typedef struct tctx tctx;

/* One submitted job as the test sees it. */
typedef struct slot {
    tctx *t;
    uint64_t id;
    int calls;
    int order; /* delivery number, from 0 */
    thue_job_result res;
    thue_bot_result want; /* thue_bot_move's answer */
    int want_cost;        /* compare the node count and depth too */
    uint8_t word[64];
    thue_position pos;
} slot;

struct tctx {
    uv_loop_t loop;
    thue_pool *pool;
    int delivered;
    int forbidden; /* callbacks that must never have run */
    int closed;
    slot slots[SLOTS_MAX];
    int nslots;
};

static const atomic_int never_raised = 0;

/* ---- helpers ----------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int rng_below(uint64_t *state, int n)
{
    return (int)(rng_next(state) % (uint64_t)n);
}

/* A clean word from random play: from [0], up to `len` random safe insertions. */
static int random_word(uint64_t *rng, int k, thue_variant v, int len, uint8_t *w)
{
    uint64_t map[64];
    int n = 1;
    w[0] = 0;
    while (n < len) {
        assert_int_equal(thue_legal_map(NULL, w, n, k, v, map), 0);
        int total = 0;
        for (int i = 0; i <= n; i++)
            total += __builtin_popcountll(map[i]);
        if (total == 0)
            break;
        int pick = rng_below(rng, total);
        for (int i = 0; i <= n; i++) {
            int c = __builtin_popcountll(map[i]);
            if (pick >= c) {
                pick -= c;
                continue;
            }
            uint64_t m = map[i];
            while (pick-- > 0)
                m &= m - 1;
            memmove(w + i + 1, w + i, (size_t)(n - i));
            w[i] = (uint8_t)__builtin_ctzll(m);
            n++;
            break;
        }
    }
    return n;
}

static thue_bot_spec spec_of(const char *text)
{
    thue_bot_spec s;
    char err[128];
    assert_int_equal(thue_bot_spec_parse(text, &s, err, sizeof err), 0);
    return s;
}

static thue_position position_of(const uint8_t *w, int n, int k, thue_variant v, thue_role role,
                                 int index, int remaining)
{
    thue_position p = {v, k, w, n, role, index, remaining};
    return p;
}

static void setup_config(tctx *t, const thue_pool_config *cfg)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(uv_loop_init(&t->loop), 0);
    t->pool = thue_pool_new_config(&t->loop, cfg);
    assert_non_null(t->pool);
}

/* A pool whose searches are never paused within a test (a 10 s slice): the tests of the
 * queue, cancelling and delivery, whose blockers must hold their workers. The time
 * slices have tests of their own. */
static void setup(tctx *t, int threads)
{
    thue_pool_config cfg = {.threads = threads, .slice_ms = 10000};
    setup_config(t, &cfg);
}

static void on_closed(void *data)
{
    ((tctx *)data)->closed++;
}

static void on_closed_int(void *data)
{
    (*(int *)data)++;
}

/* Closes the pool, runs the loop to the end and closes it: nothing may be left. */
static void teardown(tctx *t)
{
    thue_pool_close(t->pool, on_closed, t);
    assert_int_equal(t->closed, 0); /* only once the loop has closed the handle */
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(t->closed, 1);
    assert_int_equal(uv_loop_close(&t->loop), 0);
    assert_int_equal(t->forbidden, 0);
}

/* Polls the counters until queued and running reach the values given. The minute is no
 * timing assertion, only a watchdog: a state that is never reached fails the test rather
 * than leaving blockers to search (and grow their tables) until ctest's timeout. */
static void wait_counts(thue_pool *pool, int queued, int running)
{
    int64_t give_up = thue_now_ns() + 60 * 1000000000LL;
    thue_pool_stats st;
    for (;;) {
        thue_pool_stats_get(pool, &st);
        if (st.queued == queued && st.running == running)
            return;
        if (thue_now_ns() > give_up)
            fail_msg("the pool never reached queued %d, running %d (it has %d, %d)", queued,
                     running, st.queued, st.running);
        sched_yield();
    }
}

static thue_pool_stats stats_of(thue_pool *pool)
{
    thue_pool_stats st;
    thue_pool_stats_get(pool, &st);
    return st;
}

static void record_cb(const thue_job_result *res, void *data)
{
    slot *s = data;
    s->calls++;
    s->order = s->t->delivered++;
    s->res = *res;
}

static void forbidden_cb(const thue_job_result *res, void *data)
{
    (void)res;
    ((slot *)data)->t->forbidden++;
}

/* The owner of the jobs submitted next (NULL: the shared one). */
static const char *next_owner;

/* Submits a job for slot s (position already in s->pos). Returns the submit's code. */
static int submit(tctx *t, slot *s, const thue_bot_spec *spec, uint64_t seed, int parts,
                  thue_job_cb cb)
{
    thue_job_request req;
    memset(&req, 0, sizeof req);
    req.owner = next_owner;
    req.spec = *spec;
    req.pos = s->pos;
    req.seed = seed;
    req.parts = parts;
    req.cb = cb;
    req.data = s;
    s->t = t;
    return thue_pool_submit(t->pool, &req, &s->id);
}

static slot *new_slot(tctx *t)
{
    assert_true(t->nslots < SLOTS_MAX);
    slot *s = &t->slots[t->nslots++];
    s->t = t;
    return s;
}

/* A job whose result is checked against thue_bot_move's. */
static slot *submit_checked(tctx *t, const char *spec_text, const uint8_t *w, int n, int k,
                            thue_variant v, thue_role role, int index, int remaining, uint64_t seed,
                            int parts)
{
    slot *s = new_slot(t);
    memcpy(s->word, w, (size_t)n);
    s->pos = position_of(s->word, n, k, v, role, index, remaining);
    thue_bot_spec spec = spec_of(spec_text);
    thue_bot_limits lim = {.stop = &never_raised};
    assert_int_equal(thue_bot_move(&spec, &s->pos, &lim, seed, &s->want), 0);
    /* Split perfect builders share the smallest value proven so far, so how deep each
     * part goes depends on timing: only their move, value and exactness are fixed. */
    s->want_cost = !(parts > 1 && spec.kind == THUE_BOT_PERFECT);
    assert_int_equal(submit(t, s, &spec, seed, parts, record_cb), 0);
    assert_true(s->id != 0);
    return s;
}

static void check_delivered(const slot *s)
{
    assert_int_equal(s->calls, 1);
    assert_true(s->res.id == s->id);
    assert_int_equal(s->res.err, 0);
    assert_int_equal(s->res.bot.move, s->want.move);
    assert_int_equal(s->res.bot.exact, s->want.exact);
    assert_int_equal(s->res.bot.value, s->want.value);
    assert_int_equal(s->res.bot.iterations, s->want.iterations);
    assert_int_equal(s->res.bot.stopped, 0);
    if (s->want_cost) {
        assert_int_equal(s->res.bot.nodes, s->want.nodes);
        assert_int_equal(s->res.bot.depth, s->want.depth);
    }
    assert_true(s->res.queue_ms >= 0 && s->res.run_ms >= 0);
}

/* A job that holds a worker until cancelled. */
static slot *submit_blocker(tctx *t)
{
    static const uint8_t zero[1] = {0};
    slot *s = new_slot(t);
    s->pos = position_of(zero, 1, 6, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
    thue_bot_spec spec = spec_of("perfect");
    assert_int_equal(submit(t, s, &spec, 1, 1, forbidden_cb), 0);
    return s;
}

static slot *submit_greedy(tctx *t, thue_job_cb cb)
{
    static const uint8_t w[3] = {0, 1, 0};
    slot *s = new_slot(t);
    s->pos = position_of(w, 3, 3, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
    thue_bot_spec spec = spec_of("greedy");
    assert_int_equal(submit(t, s, &spec, 7, 1, cb), 0);
    return s;
}

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

/* The naive reference: owners in the order of their first job, each in turn giving its
 * next job, until none is left. order[] gets indices into owner_of[]. */
static void reference_order(const int *owner_of, int n, int *order)
{
    int first[16], nfirst = 0, taken[64] = {0}, k = 0;
    for (int j = 0; j < n; j++) {
        int seen = 0;
        for (int f = 0; f < nfirst; f++)
            seen |= first[f] == owner_of[j];
        if (!seen)
            first[nfirst++] = owner_of[j];
    }
    while (k < n)
        for (int f = 0; f < nfirst; f++)
            for (int j = 0; j < n; j++)
                if (!taken[j] && owner_of[j] == first[f]) {
                    taken[j] = 1;
                    order[k++] = j;
                    break;
                }
}

/* One slot held by a blocker while random owners queue jobs: once it is cancelled, the
 * jobs run in the order of the naive round-robin over owners, whatever the backlog of
 * each (one owner's 20 jobs do not hold up another's one). */
static void test_pool_owners_in_turn(void **state)
{
    (void)state;
    static const char *names[5] = {"acct:1", "ip:203.0.113.7", "ip:2001:db8::/64", "tour:t1",
                                   ""};
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
        cmocka_unit_test(test_pool_owners_in_turn),
        cmocka_unit_test(test_pool_new_owner_starts_while_busy),
        cmocka_unit_test(test_pool_paused_searches_same_result),
        cmocka_unit_test(test_pool_owner_limit),
        cmocka_unit_test(test_pool_close_paused_and_queued),
        cmocka_unit_test(test_pool_thread_limit_stops_one_early),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
