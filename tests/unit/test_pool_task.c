/*
 * test_pool_task.c: tasks in the worker pool (pool.h's thue_pool_submit_task), the way the
 * lobby's analyses use them.
 *
 * Like test_pool.c and test_pool_game.c: each test runs its own loop and pool and blocks
 * only by running the loop or yielding the CPU, never sleeping; no duration is asserted.
 * - a task's run is called once on a worker (not the loop thread) with the pool's stop
 *   flag and yield hook, and its done on the loop thread with run's code;
 * - a task that runs a uct tree in slices, one task after another (the analysis's
 *   pattern), leaves the tree of one uninterrupted run (search/guct.h);
 * - cancelling a queued or running task: its done is never called; a running one sees the
 *   stop flag; closing the pool with tasks pending calls no done;
 * - bad requests are refused and change nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "base/errors.h"
#include "games/game.h"
#include "search/guct.h"
#include "search/pool.h"

typedef struct task {
    uv_loop_t *loop;
    thue_pool *pool;
    uv_thread_t loop_thread;
    atomic_int runs, running;
    atomic_int saw_yield, saw_stop;
    int on_loop_thread; /* run ran on the loop's thread */
    int done_calls, done_err, done_on_loop;
    uint64_t done_id;
    int code;      /* what run returns */
    int spin;      /* run waits for its stop flag */
    thue_guct *tree;
    uint64_t slice, total, slices;
} task;

static int task_run(void *data, const thue_bot_limits *lim)
{
    task *t = data;
    uv_thread_t self = uv_thread_self();
    if (uv_thread_equal(&self, &t->loop_thread))
        t->on_loop_thread = 1;
    atomic_fetch_add(&t->runs, 1);
    atomic_store(&t->running, 1);
    if (lim->yield != NULL)
        atomic_store(&t->saw_yield, 1);
    if (t->spin) {
        while (!atomic_load(lim->stop))
            sched_yield();
        atomic_store(&t->saw_stop, 1);
    }
    if (t->tree != NULL) {
        uint64_t have = thue_guct_iterations(t->tree);
        uint64_t n = t->total - have < t->slice ? t->total - have : t->slice;
        thue__ctl ctl;
        memset(&ctl, 0, sizeof ctl);
        ctl.stop = lim->stop;
        ctl.yield = lim->yield;
        ctl.yield_arg = lim->yield_arg;
        return thue_guct_run(t->tree, n, &ctl, NULL);
    }
    return t->code;
}

static uint64_t submit(task *t);

static void task_done(uint64_t id, int err, void *data)
{
    task *t = data;
    uv_thread_t self = uv_thread_self();
    t->done_on_loop = uv_thread_equal(&self, &t->loop_thread);
    t->done_calls++;
    t->done_err = err;
    t->done_id = id;
    if (t->tree != NULL && err == 0 && thue_guct_iterations(t->tree) < t->total) {
        t->slices++;
        submit(t); /* the next slice, from the loop, as the lobby does */
    }
}

static uint64_t submit(task *t)
{
    thue_pool_task req;
    memset(&req, 0, sizeof req);
    req.run = task_run;
    req.done = task_done;
    req.owner = "analysis:test";
    req.data = t;
    uint64_t id = 0;
    assert_int_equal(thue_pool_submit_task(t->pool, &req, &id), 0);
    assert_true(id != 0);
    return id;
}

static void setup(task *t, uv_loop_t *loop, int threads)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(uv_loop_init(loop), 0);
    t->loop = loop;
    t->loop_thread = uv_thread_self();
    t->pool = thue_pool_new(loop, threads);
    assert_non_null(t->pool);
}

static void closed_cb(void *data)
{
    *(int *)data = 1;
}

static void teardown(task *t)
{
    int closed = 0;
    thue_pool_close(t->pool, closed_cb, &closed);
    while (!closed)
        uv_run(t->loop, UV_RUN_ONCE);
    assert_int_equal(uv_loop_close(t->loop), 0);
}

static void test_pool_task_runs_and_delivers(void **state)
{
    (void)state;
    uv_loop_t loop;
    task t;
    setup(&t, &loop, 2);
    t.code = THUE_ENOMEM;
    submit(&t);
    uv_run(&loop, UV_RUN_DEFAULT); /* returns once the result is delivered */
    assert_int_equal(atomic_load(&t.runs), 1);
    assert_false(t.on_loop_thread);
    assert_true(atomic_load(&t.saw_yield));
    assert_int_equal(t.done_calls, 1);
    assert_true(t.done_on_loop);
    assert_int_equal(t.done_err, THUE_ENOMEM);
    thue_pool_stats st;
    thue_pool_stats_get(t.pool, &st);
    assert_int_equal(st.failed, 1);
    t.code = 0;
    submit(&t);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(t.done_calls, 2);
    assert_int_equal(t.done_err, 0);
    thue_pool_stats_get(t.pool, &st);
    assert_int_equal(st.completed, 1);
    teardown(&t);
}

static void test_pool_task_slices_grow_one_tree(void **state)
{
    (void)state;
    const thue_gamedef *g = thue_game_find("nim");
    assert_non_null(g);
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, "{\"heaps\":[4,5,6,7]}", &opt, &e), 0);
    void *st = malloc(g->state_size(&opt));
    assert_non_null(st);
    g->start(&opt, 0, st);
    thue_guct_params p;
    memset(&p, 0, sizeof p);
    p.playout_limit = 100;
    p.c = 1.4142135623730951;
    p.seed = 77;
    thue_guct *whole = NULL;
    assert_int_equal(thue_guct_new(g, &opt, st, &p, &whole), 0);
    assert_int_equal(thue_guct_run(whole, 5000, NULL, NULL), 0);

    uv_loop_t loop;
    task t;
    setup(&t, &loop, 2);
    assert_int_equal(thue_guct_new(g, &opt, st, &p, &t.tree), 0);
    t.slice = 333;
    t.total = 5000;
    submit(&t);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(thue_guct_iterations(t.tree), 5000);
    assert_int_equal(t.slices, 5000 / 333); /* 16 slices in all: 15 resubmitted */
    assert_int_equal(thue_guct_nodes(t.tree), thue_guct_nodes(whole));
    thue_gmove a, b;
    assert_int_equal(thue_guct_best(whole, &a), 0);
    assert_int_equal(thue_guct_best(t.tree, &b), 0);
    assert_memory_equal(&a, &b, sizeof a);
    /* The two trees' exports are byte for byte the same. */
    char *ta = NULL, *tb = NULL;
    size_t la = 0, lb = 0;
    FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);
    assert_int_equal(thue_guct_export(whole, UINT32_MAX, fa, THUE_GUCT_BINARY), 0);
    assert_int_equal(thue_guct_export(t.tree, UINT32_MAX, fb, THUE_GUCT_BINARY), 0);
    fclose(fa);
    fclose(fb);
    assert_int_equal(la, lb);
    assert_memory_equal(ta, tb, la);
    free(ta);
    free(tb);
    teardown(&t);
    thue_guct_free(t.tree);
    thue_guct_free(whole);
    free(st);
}

static void test_pool_task_cancel(void **state)
{
    (void)state;
    uv_loop_t loop;
    task run, queued;
    setup(&run, &loop, 1);
    memset(&queued, 0, sizeof queued);
    queued.loop = run.loop; /* the same loop and pool */
    queued.pool = run.pool;
    queued.loop_thread = run.loop_thread;
    run.spin = 1;
    uint64_t rid = submit(&run);
    /* With one slot, the second waits behind the spinning first. */
    thue_pool_task req;
    memset(&req, 0, sizeof req);
    req.run = task_run;
    req.done = task_done;
    req.data = &queued;
    req.owner = "analysis:test";
    uint64_t qid = 0;
    assert_int_equal(thue_pool_submit_task(run.pool, &req, &qid), 0);
    while (!atomic_load(&run.running))
        sched_yield();
    assert_int_equal(thue_pool_cancel(run.pool, qid), 0);
    assert_int_equal(thue_pool_cancel(run.pool, rid), 0);
    assert_int_equal(thue_pool_cancel(run.pool, rid), THUE_EINVAL); /* not pending now */
    uv_run(&loop, UV_RUN_DEFAULT);
    while (!atomic_load(&run.saw_stop))
        sched_yield();
    assert_int_equal(run.done_calls, 0);
    assert_int_equal(queued.done_calls, 0);
    assert_int_equal(atomic_load(&queued.runs), 0);
    teardown(&run);
}

static void test_pool_task_close_pending(void **state)
{
    (void)state;
    uv_loop_t loop;
    task t;
    setup(&t, &loop, 1);
    t.spin = 1;
    submit(&t);
    submit(&t);
    while (!atomic_load(&t.running))
        sched_yield();
    teardown(&t); /* stops the spinning one, drops the queued one */
    assert_int_equal(t.done_calls, 0);
    assert_true(atomic_load(&t.saw_stop));
    assert_int_equal(atomic_load(&t.runs), 1);
}

static void test_pool_task_bad_requests(void **state)
{
    (void)state;
    uv_loop_t loop;
    task t;
    setup(&t, &loop, 1);
    thue_pool_task req;
    memset(&req, 0, sizeof req);
    uint64_t id = 5;
    req.done = task_done;
    assert_int_equal(thue_pool_submit_task(t.pool, &req, &id), THUE_EINVAL);
    req.run = task_run;
    req.done = NULL;
    assert_int_equal(thue_pool_submit_task(t.pool, &req, &id), THUE_EINVAL);
    req.done = task_done;
    char owner[THUE_POOL_OWNER_MAX + 2];
    memset(owner, 'x', sizeof owner - 1);
    owner[sizeof owner - 1] = '\0';
    req.owner = owner;
    assert_int_equal(thue_pool_submit_task(t.pool, &req, &id), THUE_EINVAL);
    assert_int_equal(thue_pool_submit_task(NULL, &req, &id), THUE_EINVAL);
    assert_int_equal(id, 5);
    thue_pool_stats st;
    thue_pool_stats_get(t.pool, &st);
    assert_int_equal(st.submitted, 0);
    teardown(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_task_runs_and_delivers),
        cmocka_unit_test(test_pool_task_slices_grow_one_tree),
        cmocka_unit_test(test_pool_task_cancel),
        cmocka_unit_test(test_pool_task_close_pending),
        cmocka_unit_test(test_pool_task_bad_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
