/*
 * pool.c: the bot worker pool (pool.h): a fixed set of libuv threads, one run queue,
 * results posted back to the loop thread through one uv_async_t.
 *
 * A job is one bot move. Its search (bot.h) is created at submission, on the loop thread,
 * so that bad input is reported synchronously and the position is copied before the
 * caller's buffer can change; think_ms therefore counts from submission. The job carries
 * its limits and its own stop flag; the search is split into parts, and each part is a
 * task that any worker may take.
 *
 * Scheduling. A job sits in the run queue while it has parts not yet handed out. A worker
 * takes the next part of the job at the head and, if parts remain, puts the job back at
 * the tail: tasks go round-robin over the queued jobs, so a job split over every worker
 * does not starve the jobs behind it. The worker that ends a job's last part merges the
 * parts (thue_bot_search_finish), frees the search (big for uct: better off the loop
 * thread), appends the job to the completion list and signals the async handle. The
 * loop thread swaps the whole completion list out under the lock and then runs the
 * callbacks unlocked, so a callback may submit, cancel or even close the pool.
 *
 * Where a job is (pool->lock guards the queue, the completion list and the fields
 * marked "locked" below):
 *   queued   in the run queue (in_queue), no part started          (stats.queued)
 *   started  a part has started, the result is not posted yet:
 *            in the run queue with parts left, or out of it with parts running
 *            (busy > 0), or being merged by the worker that ended the last part
 *                                                                    (stats.running)
 *   posted   on the completion list, then in the batch the loop thread is draining
 * Independently, a job is "pending" (in the loop thread's registry, what cancel looks up)
 * from submission until its callback is called or it is cancelled.
 *
 * Cancelling unregisters the job and raises its cancelled and stop flags. The job is
 * freed at once when no worker holds it (in the queue, no part running); otherwise the
 * worker that ends its last running part posts it without merging, and the drain frees
 * it without calling back. So a worker never touches freed memory, and a cancelled job's
 * result is never delivered, wherever it was. Every job is freed exactly once: by cancel
 * (queued), by the drain (posted) or, after thue_pool_close, by the close callback.
 *
 * Memory order: the parts of one search share only atomics and otherwise write disjoint
 * memory (bot_internal.h); the mutex, taken by every worker when its part ends, orders
 * those writes before the merge, and the merge's result before the drain reads it.
 *
 * The async handle is referenced only while a job is pending, so that a loop with nothing
 * else to do runs until every pending result is delivered, as with uv_queue_work.
 */
#define _GNU_SOURCE /* syscall(SYS_gettid) */
#include "search/pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <assert.h>
#include <stdlib.h>

#include "engine/errors.h"

typedef struct job job;
struct job {
    /* Set at submission, read-only afterwards. */
    uint64_t id;
    int nparts;
    thue_bot_limits limits; /* .stop points at stop */
    thue_job_cb cb;
    void *data;
    int64_t t_submit;
    atomic_int stop;

    /* Loop thread only: the registry of pending jobs. */
    job *reg_prev, *reg_next;

    /* Locked. */
    thue_bot_search *search; /* NULL once merged or abandoned */
    job *q_prev, *q_next;    /* run queue links, valid while in_queue */
    job *done_next;          /* completion list (then the drain batch) */
    int in_queue;
    int next_part; /* parts handed out */
    int busy;      /* parts running */
    int cancelled; /* written by the loop thread only, so it may read it unlocked */
    int64_t t_start, t_end;

    /* Written by the worker that ends the last part, before posting. */
    int err;
    thue_bot_result result;
};

struct thue_pool {
    uv_loop_t *loop;
    uv_async_t async;
    uv_mutex_t lock;
    uv_cond_t wake;

    /* Locked. */
    job *q_head, *q_tail;
    job *done_head, *done_tail;
    int closing; /* written by the loop thread only, so it may read it unlocked */
    thue_pool_stats stats;

    /* Loop thread only. */
    job *reg_head;
    job *batch; /* the rest of the completion list being drained */
    uint64_t last_id;
    void (*closed)(void *data);
    void *closed_data;

    int nthreads;
    uv_thread_t threads[];
};

static void job_free(job *j)
{
    thue_bot_search_free(j->search);
    free(j);
}

/* ---- the run queue and the completion list (locked) ------------------------------- */

static void queue_push(thue_pool *pool, job *j)
{
    j->q_next = NULL;
    j->q_prev = pool->q_tail;
    if (pool->q_tail)
        pool->q_tail->q_next = j;
    else
        pool->q_head = j;
    pool->q_tail = j;
    j->in_queue = 1;
}

static void queue_unlink(thue_pool *pool, job *j)
{
    if (j->q_prev)
        j->q_prev->q_next = j->q_next;
    else
        pool->q_head = j->q_next;
    if (j->q_next)
        j->q_next->q_prev = j->q_prev;
    else
        pool->q_tail = j->q_prev;
    j->q_prev = j->q_next = NULL;
    j->in_queue = 0;
}

/* Appends to the completion list; the caller signals the async handle (or is closing). */
static void post(thue_pool *pool, job *j)
{
    j->done_next = NULL;
    if (pool->done_tail)
        pool->done_tail->done_next = j;
    else
        pool->done_head = j;
    pool->done_tail = j;
}

/* ---- the registry of pending jobs (loop thread) ------------------------------------- */

/* Keeps the loop alive exactly while some result is still to be delivered. */
static void keep_alive(thue_pool *pool)
{
    if (pool->reg_head)
        uv_ref((uv_handle_t *)&pool->async);
    else
        uv_unref((uv_handle_t *)&pool->async);
}

static void reg_add(thue_pool *pool, job *j)
{
    j->reg_prev = NULL;
    j->reg_next = pool->reg_head;
    if (pool->reg_head)
        pool->reg_head->reg_prev = j;
    pool->reg_head = j;
    keep_alive(pool);
}

static void reg_remove(thue_pool *pool, job *j)
{
    if (j->reg_prev)
        j->reg_prev->reg_next = j->reg_next;
    else
        pool->reg_head = j->reg_next;
    if (j->reg_next)
        j->reg_next->reg_prev = j->reg_prev;
    j->reg_prev = j->reg_next = NULL;
    keep_alive(pool);
}

/* A linear scan: a game has at most one move being searched, so this is short. */
static job *reg_find(thue_pool *pool, uint64_t id)
{
    for (job *j = pool->reg_head; j; j = j->reg_next)
        if (j->id == id)
            return j;
    return NULL;
}

/* ---- workers ----------------------------------------------------------------------- */

#define WORKER_NICE 10

static void worker(void *arg)
{
    thue_pool *pool = arg;
    /* Searches are background work: at nice 10 (this thread only, on Linux) they yield
     * the cores to the loop thread when a message arrives, which halves the p99 of a
     * move's round trip while every worker searches (README, bench-rtt.mjs). Failing
     * to lower the priority changes nothing else. */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE);
    uv_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->closing && pool->q_head == NULL)
            uv_cond_wait(&pool->wake, &pool->lock);
        if (pool->closing)
            break; /* close emptied the queue; nothing new is started */
        job *j = pool->q_head;
        int part = j->next_part++;
        queue_unlink(pool, j);
        if (j->next_part < j->nparts)
            queue_push(pool, j); /* round-robin: its next part waits behind the others */
        if (part == 0) {
            j->t_start = thue_now_ns();
            pool->stats.queued--;
            pool->stats.running++;
        }
        j->busy++;
        /* Pass the baton: submit wakes one worker per job, so whoever takes a task and
         * leaves work behind wakes the next (a split job needs several). */
        if (pool->q_head)
            uv_cond_signal(&pool->wake);
        thue_bot_search *s = j->search;
        uv_mutex_unlock(&pool->lock);

        thue_bot_search_run_part(s, part, &j->limits);

        uv_mutex_lock(&pool->lock);
        if (--j->busy > 0 || j->in_queue)
            continue; /* other parts are running or still to run */
        /* This was the last part (or the job was cancelled and this was the last one
         * running): nobody else holds the job now, and cancel will only flag it. */
        j->t_end = thue_now_ns();
        if (!j->cancelled) {
            uv_mutex_unlock(&pool->lock);
            j->err = thue_bot_search_finish(s, &j->result);
            thue_bot_search_free(s);
            uv_mutex_lock(&pool->lock);
        } else {
            thue_bot_search_free(s);
        }
        j->search = NULL;
        pool->stats.running--;
        post(pool, j);
        /* Thread-safe and never blocks; the handle outlives the workers (close joins
         * them before closing it). */
        uv_async_send(&pool->async);
    }
    uv_mutex_unlock(&pool->lock);
}

/* ---- the loop thread ------------------------------------------------------------- */

static void deliver(thue_pool *pool, job *j)
{
    reg_remove(pool, j);
    thue_job_result res;
    res.id = j->id;
    res.err = j->err;
    res.bot = j->result;
    res.queue_ms = (double)(j->t_start - j->t_submit) / 1e6;
    res.run_ms = (double)(j->t_end - j->t_start) / 1e6;
    uv_mutex_lock(&pool->lock);
    if (j->err)
        pool->stats.failed++;
    else
        pool->stats.completed++;
    uv_mutex_unlock(&pool->lock);
    j->cb(&res, j->data);
}

static void on_async(uv_async_t *handle)
{
    thue_pool *pool = handle->data;
    if (pool->closing)
        return; /* the close callback frees what is posted */
    uv_mutex_lock(&pool->lock);
    pool->batch = pool->done_head;
    pool->done_head = pool->done_tail = NULL;
    uv_mutex_unlock(&pool->lock);
    /* The batch lives in the pool, not on this stack: a callback may cancel a job further
     * down it (which flags the job), or close the pool (which leaves the rest to the
     * close callback). */
    job *j;
    while (!pool->closing && (j = pool->batch) != NULL) {
        pool->batch = j->done_next;
        if (!j->cancelled)
            deliver(pool, j);
        job_free(j);
    }
}

thue_pool *thue_pool_new(uv_loop_t *loop, int threads)
{
    if (loop == NULL || threads < 1 || threads > 256)
        return NULL;
    thue_pool *pool = calloc(1, sizeof *pool + (size_t)threads * sizeof(uv_thread_t));
    if (pool == NULL)
        return NULL;
    pool->loop = loop;
    pool->stats.threads = threads;
    if (uv_mutex_init(&pool->lock) != 0) {
        free(pool);
        return NULL;
    }
    if (uv_cond_init(&pool->wake) != 0) {
        uv_mutex_destroy(&pool->lock);
        free(pool);
        return NULL;
    }
    int started = 0, ok = 1;
    while (started < threads && ok) {
        ok = uv_thread_create(&pool->threads[started], worker, pool) == 0;
        started += ok;
    }
    /* Last, so that a failure before it needs no loop iteration to undo; no worker can
     * signal it before a job is submitted. */
    if (ok)
        ok = uv_async_init(loop, &pool->async, on_async) == 0;
    if (!ok) {
        uv_mutex_lock(&pool->lock);
        pool->closing = 1;
        uv_cond_broadcast(&pool->wake);
        uv_mutex_unlock(&pool->lock);
        for (int t = 0; t < started; t++)
            uv_thread_join(&pool->threads[t]);
        uv_cond_destroy(&pool->wake);
        uv_mutex_destroy(&pool->lock);
        free(pool);
        return NULL;
    }
    pool->nthreads = threads;
    pool->async.data = pool;
    uv_unref((uv_handle_t *)&pool->async); /* nothing pending yet */
    return pool;
}

int thue_pool_submit(thue_pool *pool, const thue_job_request *req, uint64_t *id)
{
    if (pool == NULL || req == NULL || req->cb == NULL)
        return THUE_EINVAL;
    if (pool->closing)
        return THUE_EOVER;
    if (req->parts < 0 || req->parts > THUE_BOT_PARTS_MAX)
        return THUE_EINVAL;
    job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return THUE_ENOMEM;
    int err = 0;
    j->search =
        thue_bot_search_new(&req->spec, &req->pos, req->seed, req->parts ? req->parts : 1, &err);
    if (j->search == NULL) {
        free(j);
        return err ? err : THUE_ENOMEM;
    }
    j->nparts = thue_bot_search_parts(j->search);
    j->cb = req->cb;
    j->data = req->data;
    atomic_init(&j->stop, 0);
    j->limits.think_ms = req->think_ms;
    j->limits.deadline_ns = req->deadline_ns;
    j->limits.node_budget = req->node_budget;
    j->limits.stop = &j->stop;
    j->id = ++pool->last_id;
    j->t_submit = thue_now_ns();
    reg_add(pool, j);
    uv_mutex_lock(&pool->lock);
    queue_push(pool, j);
    pool->stats.submitted++;
    pool->stats.queued++;
    uv_cond_signal(&pool->wake);
    uv_mutex_unlock(&pool->lock);
    if (id)
        *id = j->id;
    return 0;
}

int thue_pool_cancel(thue_pool *pool, uint64_t id)
{
    job *j = pool ? reg_find(pool, id) : NULL;
    if (j == NULL)
        return THUE_EINVAL;
    reg_remove(pool, j);
    int free_now = 0;
    uv_mutex_lock(&pool->lock);
    j->cancelled = 1;
    atomic_store(&j->stop, 1);
    pool->stats.cancelled++;
    if (j->in_queue) {
        queue_unlink(pool, j); /* no further part starts */
        if (j->busy == 0) {
            free_now = 1; /* no worker holds it */
            if (j->next_part == 0)
                pool->stats.queued--;
            else
                pool->stats.running--;
        }
    }
    /* Otherwise a worker holds it, or it is posted: it comes back through the drain. */
    uv_mutex_unlock(&pool->lock);
    if (free_now)
        job_free(j);
    return 0;
}

void thue_pool_stats_get(thue_pool *pool, thue_pool_stats *out)
{
    uv_mutex_lock(&pool->lock);
    *out = pool->stats;
    uv_mutex_unlock(&pool->lock);
}

static void free_list(job *j)
{
    while (j) {
        job *next = j->done_next;
        job_free(j);
        j = next;
    }
}

static void on_closed(uv_handle_t *handle)
{
    thue_pool *pool = handle->data;
    /* The workers are joined: whatever is left is posted or in an unfinished batch. */
    free_list(pool->done_head);
    free_list(pool->batch);
    uv_cond_destroy(&pool->wake);
    uv_mutex_destroy(&pool->lock);
    void (*closed)(void *) = pool->closed;
    void *data = pool->closed_data;
    free(pool);
    if (closed)
        closed(data);
}

void thue_pool_close(thue_pool *pool, void (*closed)(void *data), void *data)
{
    if (pool == NULL) {
        if (closed)
            closed(data);
        return;
    }
    assert(!pool->closing && "thue_pool_close called twice");
    pool->closed = closed;
    pool->closed_data = data;
    uv_mutex_lock(&pool->lock);
    pool->closing = 1;
    /* Unstarted parts never start: jobs nobody holds go straight to the completion list
     * (freed by on_closed), the others are posted by their workers when their parts end. */
    while (pool->q_head) {
        job *j = pool->q_head;
        queue_unlink(pool, j);
        if (j->busy == 0) {
            if (j->next_part == 0)
                pool->stats.queued--;
            else
                pool->stats.running--;
            post(pool, j);
        }
    }
    for (job *j = pool->reg_head; j; j = j->reg_next) {
        j->cancelled = 1;
        atomic_store(&j->stop, 1);
        pool->stats.cancelled++;
    }
    uv_cond_broadcast(&pool->wake);
    uv_mutex_unlock(&pool->lock);
    pool->reg_head = NULL;
    /* Blocks the loop only until the running searches notice their stop flags (they poll
     * every few dozen nodes). */
    for (int t = 0; t < pool->nthreads; t++)
        uv_thread_join(&pool->threads[t]);
    uv_close((uv_handle_t *)&pool->async, on_closed);
}
