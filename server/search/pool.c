/*
 * pool.c: the bot worker pool (pool.h): owners served round-robin, time slices handed
 * out by the workers themselves, results posted back to the loop thread through one
 * uv_async_t.
 *
 * A job is one bot move. Its search (bot.h) is created at submission, on the loop thread,
 * so that bad input is reported synchronously and the position is copied before the
 * caller's buffer can change; think_ms therefore counts from submission (wall clock:
 * time spent queued or paused counts). The job carries its limits and its own stop flag;
 * the search is split into parts, and each part is a task.
 *
 * Threads, slots and parts. Every part that has started is bound to one thread until it
 * ends. A thread is idle (no part), running (its part holds one of the `threads` slots)
 * or paused (its part waits for a slot, blocked inside the search's poll: limits.h's yield
 * hook). Searches are resumed exactly where they paused, so pausing costs a search
 * nothing but time. Threads are started as parts need them, up to threads_max, and live
 * until the pool closes.
 *
 * Scheduling (dispatch, under the lock, whenever a slot or a thread frees up or work
 * arrives). Each owner has a FIFO of jobs with parts not yet started (a split job goes
 * back to the tail of its owner's FIFO after each part it hands out) and a FIFO of its
 * paused parts. Owners with either are on one of two lists: `fresh` (owners that had
 * nothing waiting and now have: served first, in arrival order) and `ring` (owners
 * served before: round-robin). A free slot goes, in this order, to
 *   1. a paused part whose job is past its deadline or stopped (it ends at once);
 *   2. the first owner of fresh, then of ring, that can be served: its next queued
 *      part if it has fewer than owner_parts_max parts started and a thread can be
 *      had, else its oldest paused part.
 * When no thread can be had (threads_max, none idle) and an owner with nothing started
 * waits, one paused search is stopped early to free its thread (make_room).
 * The owner served goes to the tail of the ring while it still has work waiting.
 * `contended` says whether some owner could be served if a slot were free; a running
 * part polls it (with its slice's end) and pauses when both say so. So a lone owner's
 * search is never paused, and under contention every owner gets a slice per round.
 *
 * Where a job is (pool->lock guards the queues, the lists, the completion list and the
 * fields marked "locked" below):
 *   queued   in its owner's FIFO (in_queue), no part started        (stats.queued)
 *   started  a part has started, the result is not posted yet: in the FIFO with parts
 *            left, or out of it with parts running or paused (busy > 0), or being
 *            merged by the worker that ended the last part            (stats.running)
 *   posted   on the completion list, then in the batch the loop thread is draining
 * Independently, a job is "pending" (in the loop thread's registry, what cancel looks up)
 * from submission until its callback is called or it is cancelled.
 *
 * Cancelling unregisters the job and raises its cancelled and stop flags. The job is
 * freed at once when no worker holds it (queued, no part started or running);
 * otherwise the worker that ends its last part posts it without merging, and the drain
 * frees it without calling back. So a worker never touches freed memory, and a
 * cancelled job's result is never delivered, wherever it was. Every job is freed exactly
 * once: by cancel (queued), by the drain (posted) or, after thue_pool_close, by the
 * close callback.
 *
 * An owner record lives while it has a job queued or a part started; the last part to
 * end (or cancel, or close) frees it.
 *
 * Memory order: the parts of one search share only atomics and otherwise write disjoint
 * memory (bot_internal.h); the mutex, taken by every worker when its part ends, orders
 * those writes before the merge, and the merge's result before the drain reads it. A
 * paused part is handed its slot under the mutex, so what it wrote before pausing and
 * what it reads after are ordered as well.
 *
 * Game jobs (thue_pool_submit_game) go through the same queues, slots and registry as
 * one-part jobs: their private part (gjob: the game, its options, a copy of the state, the
 * spec and the result) hangs off the job, and their worker runs thue_gbot_choose with the
 * same limits and yield hook instead of a Thue search. A job is a game job exactly when
 * j->game is set; the Thue path pays one pointer test per part and per delivery. A task
 * (thue_pool_submit_task) is a game job whose gjob holds run and done instead of a game.
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
#include <string.h>

#include "base/errors.h"
#include "base/hash.h"

#define OWNER_BUCKETS 256
#define THREADS_MAX_LIMIT 4096

typedef struct job job;
typedef struct gjob gjob;
typedef struct owner owner;
typedef struct wthread wthread;

struct job {
    /* Set at submission, read-only afterwards. */
    uint64_t id;
    int nparts;
    thue_bot_limits limits; /* .stop points at stop */
    thue_job_cb cb;
    void *data;
    int64_t t_submit;
    int64_t due_ns; /* the earliest deadline of its limits; 0: none */
    thue_mem *mem;  /* its memory account (limits.mem), closed when it is freed */
    owner *own;
    atomic_int stop;

    /* Loop thread only: the registry of pending jobs. */
    job *reg_prev, *reg_next;

    /* Locked. */
    thue_bot_search *search; /* NULL once merged or abandoned */
    job *q_prev, *q_next;    /* its owner's FIFO, valid while in_queue */
    job *done_next;          /* completion list (then the drain batch) */
    int in_queue;
    int next_part; /* parts handed out */
    int busy;      /* parts started and not ended (running or paused) */
    int cancelled; /* written by the loop thread only, so it may read it unlocked */
    int64_t t_start, t_end;

    /* Written by the worker that ends the last part, before posting. */
    int err;
    thue_bot_result result;

    gjob *game; /* a game job's own part; NULL for a Thue job */
};

/* A game job's request (copied at submission, read-only afterwards) and its result
 * (written by its worker before the part ends). */
struct gjob {
    const thue_gamedef *g;
    thue_gopt opt;
    void *state;
    thue_gbot_spec spec;
    uint64_t seed;
    void (*cb)(const thue_game_job_result *res, void *data);
    int err;
    thue_gbot_result res;
    /* A task (thue_pool_submit_task) instead of a bot: g and state are NULL. */
    int (*run)(void *data, const thue_bot_limits *lim);
    void (*done)(uint64_t id, int err, void *data);
};

enum { LIST_NONE, LIST_FRESH, LIST_RING };

struct owner { /* all locked */
    char key[THUE_POOL_OWNER_MAX + 1];
    owner *hash_next;
    job *q_head, *q_tail;     /* jobs with parts to start */
    wthread *p_head, *p_tail; /* paused parts, oldest first */
    int started;              /* parts started and not ended */
    int list;                 /* LIST_*: which list it is on */
    owner *l_prev, *l_next;
};

struct wthread { /* locked, but for tid (set before the thread runs) */
    thue_pool *pool;
    uv_thread_t tid;
    uv_cond_t wake;
    job *j; /* its part's job, NULL while idle */
    int part;
    int granted;        /* holds a slot */
    int evicted;        /* its search was stopped early to free the thread (make_room) */
    int64_t slice_end;  /* when its slot may be taken back; read by the thread itself */
    wthread *p_prev, *p_next; /* its owner's paused parts, while paused */
    wthread *idle_next;       /* the idle threads */
};

typedef struct olist {
    owner *head, *tail;
} olist;

struct thue_pool {
    uv_loop_t *loop;
    uv_async_t async;
    uv_mutex_t lock;

    /* Set at creation. */
    int nslots, owner_max, threads_max;
    int64_t slice_ns;
    thue_mem_budget *mem;

    atomic_int contended; /* some owner could be served if a slot were free */

    /* Locked. */
    owner *owners[OWNER_BUCKETS];
    olist fresh, ring;
    int slots_free;
    int freeing; /* threads whose searches make_room stopped and that have not ended */
    wthread *idle;
    int nthreads;
    job *done_head, *done_tail;
    int closing; /* written by the loop thread only, so it may read it unlocked */
    thue_pool_stats stats;

    /* Loop thread only. */
    job *reg_head;
    job *batch; /* the rest of the completion list being drained */
    uint64_t last_id;
    void (*closed)(void *data);
    void *closed_data;

    wthread *threads[]; /* threads_max entries, the first nthreads started */
};

static void job_free(job *j)
{
    thue_bot_search_free(j->search);
    thue_mem_close(j->mem); /* after the search that gave back what it took */
    if (j->game) {
        free(j->game->state);
        free(j->game);
    }
    free(j);
}

/* ---- owners and their lists (locked) ---------------------------------------------------- */

static owner *owner_get(thue_pool *pool, const char *key)
{
    owner **b = &pool->owners[thue_hash_str(key) % OWNER_BUCKETS];
    for (owner *o = *b; o; o = o->hash_next)
        if (strcmp(o->key, key) == 0)
            return o;
    owner *o = calloc(1, sizeof *o);
    if (o == NULL)
        return NULL;
    snprintf(o->key, sizeof o->key, "%s", key);
    o->hash_next = *b;
    *b = o;
    pool->stats.owners++;
    return o;
}

static olist *list_of(thue_pool *pool, int which)
{
    return which == LIST_FRESH ? &pool->fresh : &pool->ring;
}

static void list_remove(thue_pool *pool, owner *o)
{
    if (o->list == LIST_NONE)
        return;
    olist *l = list_of(pool, o->list);
    if (o->l_prev)
        o->l_prev->l_next = o->l_next;
    else
        l->head = o->l_next;
    if (o->l_next)
        o->l_next->l_prev = o->l_prev;
    else
        l->tail = o->l_prev;
    o->l_prev = o->l_next = NULL;
    o->list = LIST_NONE;
}

static void list_append(thue_pool *pool, owner *o, int which)
{
    list_remove(pool, o);
    olist *l = list_of(pool, which);
    o->l_next = NULL;
    o->l_prev = l->tail;
    if (l->tail)
        l->tail->l_next = o;
    else
        l->head = o;
    l->tail = o;
    o->list = which;
}

static int owner_waiting(const owner *o)
{
    return o->q_head != NULL || o->p_head != NULL;
}

/* Frees an owner that holds nothing any more. */
static void owner_release(thue_pool *pool, owner *o)
{
    if (owner_waiting(o) || o->started > 0)
        return;
    list_remove(pool, o);
    owner **pp = &pool->owners[thue_hash_str(o->key) % OWNER_BUCKETS];
    while (*pp != o)
        pp = &(*pp)->hash_next;
    *pp = o->hash_next;
    pool->stats.owners--;
    free(o);
}

/* ---- an owner's FIFOs (locked) -------------------------------------------------------- */

static void queue_push(job *j)
{
    owner *o = j->own;
    j->q_next = NULL;
    j->q_prev = o->q_tail;
    if (o->q_tail)
        o->q_tail->q_next = j;
    else
        o->q_head = j;
    o->q_tail = j;
    j->in_queue = 1;
}

static void queue_unlink(job *j)
{
    owner *o = j->own;
    if (j->q_prev)
        j->q_prev->q_next = j->q_next;
    else
        o->q_head = j->q_next;
    if (j->q_next)
        j->q_next->q_prev = j->q_prev;
    else
        o->q_tail = j->q_prev;
    j->q_prev = j->q_next = NULL;
    j->in_queue = 0;
}

static void paused_push(owner *o, wthread *t)
{
    t->p_next = NULL;
    t->p_prev = o->p_tail;
    if (o->p_tail)
        o->p_tail->p_next = t;
    else
        o->p_head = t;
    o->p_tail = t;
}

static void paused_unlink(owner *o, wthread *t)
{
    if (t->p_prev)
        t->p_prev->p_next = t->p_next;
    else
        o->p_head = t->p_next;
    if (t->p_next)
        t->p_next->p_prev = t->p_prev;
    else
        o->p_tail = t->p_prev;
    t->p_prev = t->p_next = NULL;
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

/* ---- dispatch (locked) ------------------------------------------------------------------ */

static void worker(void *arg);

/* A thread for a new part: an idle one, or a new one while under threads_max. NULL when
 * none can be had now. */
static wthread *thread_get(thue_pool *pool)
{
    if (pool->idle) {
        wthread *t = pool->idle;
        pool->idle = t->idle_next;
        t->idle_next = NULL;
        return t;
    }
    if (pool->closing || pool->nthreads >= pool->threads_max)
        return NULL;
    wthread *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->pool = pool;
    if (uv_cond_init(&t->wake) != 0) {
        free(t);
        return NULL;
    }
    /* It waits for the lock, which the caller holds, before it reads its part. */
    if (uv_thread_create(&t->tid, worker, t) != 0) {
        uv_cond_destroy(&t->wake);
        free(t);
        return NULL;
    }
    pool->threads[pool->nthreads++] = t;
    pool->stats.threads_started = pool->nthreads;
    return t;
}

static int can_start(const thue_pool *pool, const owner *o)
{
    return o->q_head != NULL && o->started < pool->owner_max &&
           (pool->idle != NULL || pool->nthreads < pool->threads_max) && !pool->closing;
}

static int servable(const thue_pool *pool, const owner *o)
{
    return o->p_head != NULL || can_start(pool, o);
}

static void grant(thue_pool *pool, wthread *t)
{
    t->granted = 1;
    t->slice_end = thue_now_ns() + pool->slice_ns;
    pool->slots_free--;
    uv_cond_signal(&t->wake);
}

static void resume(thue_pool *pool, owner *o, wthread *t)
{
    paused_unlink(o, t);
    pool->stats.paused--;
    grant(pool, t);
}

/* Starts o's next queued part on a thread; 0, or -1 when no thread could be had. */
static int start_part(thue_pool *pool, owner *o)
{
    wthread *t = thread_get(pool);
    if (t == NULL)
        return -1;
    job *j = o->q_head;
    int part = j->next_part++;
    queue_unlink(j);
    if (j->next_part < j->nparts)
        queue_push(j); /* round-robin: its next part waits behind the owner's other jobs */
    if (part == 0) {
        j->t_start = thue_now_ns();
        pool->stats.queued--;
        pool->stats.running++;
    }
    j->busy++;
    o->started++;
    t->j = j;
    t->part = part;
    grant(pool, t);
    return 0;
}

/* Whether a paused part should run at once: its job is past its deadline or stopped. */
static int urgent(const job *j, int64_t now)
{
    return (j->due_ns != 0 && now >= j->due_ns) || atomic_load(&j->stop) != 0;
}

/* A paused part to resume before anyone's turn, or NULL. */
static wthread *find_urgent(thue_pool *pool, owner **own)
{
    int64_t now = thue_now_ns();
    const olist *lists[2] = {&pool->fresh, &pool->ring};
    for (int i = 0; i < 2; i++)
        for (owner *o = lists[i]->head; o; o = o->l_next)
            for (wthread *t = o->p_head; t; t = t->p_next)
                if (urgent(t->j, now)) {
                    *own = o;
                    return t;
                }
    return NULL;
}

/* Serves the first owner of the lists that can be served; 0, or -1 when none can. */
static int serve_next(thue_pool *pool)
{
    const olist *lists[2] = {&pool->fresh, &pool->ring};
    for (int i = 0; i < 2; i++) {
        for (owner *o = lists[i]->head; o; o = o->l_next) {
            /* A new job first (within owner_parts_max), so that an owner's long search
             * does not hold up its next one; then its paused parts in turn. */
            if (can_start(pool, o) && start_part(pool, o) == 0)
                ;
            else if (o->p_head)
                resume(pool, o, o->p_head);
            else
                continue;
            if (owner_waiting(o))
                list_append(pool, o, LIST_RING);
            else
                list_remove(pool, o);
            return 0;
        }
    }
    return -1;
}

/*
 * At threads_max with no idle thread, an owner with nothing started could not start its
 * job however long it waited (every thread holds a running or paused search). Then the
 * oldest paused search of the owner with the most parts started is stopped early: it
 * gets the next slot as an urgent part, plays its best move so far and frees its thread.
 * One at a time: nothing more is stopped while that thread has not come free.
 */
static void make_room(thue_pool *pool)
{
    if (pool->idle != NULL || pool->nthreads < pool->threads_max || pool->closing ||
        pool->freeing > 0)
        return;
    const olist *lists[2] = {&pool->fresh, &pool->ring};
    int starving = 0;
    owner *victim = NULL;
    for (int i = 0; i < 2; i++)
        for (owner *o = lists[i]->head; o; o = o->l_next) {
            starving |= o->started == 0 && o->q_head != NULL;
            if (o->p_head && (victim == NULL || o->started > victim->started))
                victim = o;
        }
    if (starving && victim) {
        wthread *t = victim->p_head;
        t->evicted = 1;
        pool->freeing++;
        atomic_store(&t->j->stop, 1);
        pool->stats.stopped_early++;
    }
}

/* Hands out the free slots, then says whether anyone is left waiting for one. */
static void dispatch(thue_pool *pool)
{
    while (pool->slots_free > 0 && !pool->closing) {
        owner *o = NULL;
        wthread *t = find_urgent(pool, &o);
        if (t) {
            resume(pool, o, t);
            if (!owner_waiting(o))
                list_remove(pool, o);
            continue;
        }
        if (serve_next(pool) != 0)
            break;
    }
    make_room(pool);
    int want = 0;
    if (pool->slots_free == 0 && !pool->closing) {
        const olist *lists[2] = {&pool->fresh, &pool->ring};
        for (int i = 0; i < 2 && !want; i++)
            for (owner *o = lists[i]->head; o && !want; o = o->l_next)
                want = servable(pool, o);
    }
    atomic_store_explicit(&pool->contended, want, memory_order_relaxed);
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

/*
 * The search's yield hook (bot.h), on the part's own thread: once its slice is over and
 * someone is waiting for a slot, the part gives its slot up, goes to the tail of its
 * owner's paused parts (and its owner to the ring), and blocks until a slot is handed
 * back (or the pool closes: then its stop flag is raised, and it ends). Cheap when
 * nothing is waiting: one comparison and one relaxed load.
 */
static int yield_hook(void *arg, int64_t now_ns)
{
    wthread *t = arg;
    thue_pool *pool = t->pool;
    if (now_ns < t->slice_end ||
        !atomic_load_explicit(&pool->contended, memory_order_relaxed))
        return 0;
    uv_mutex_lock(&pool->lock);
    if (pool->closing || !atomic_load_explicit(&pool->contended, memory_order_relaxed)) {
        t->slice_end = now_ns + pool->slice_ns;
        uv_mutex_unlock(&pool->lock);
        return 0;
    }
    owner *o = t->j->own;
    t->granted = 0;
    pool->slots_free++;
    pool->stats.paused++;
    pool->stats.pauses++;
    paused_push(o, t);
    if (o->list == LIST_NONE)
        list_append(pool, o, LIST_RING);
    dispatch(pool);
    while (!t->granted && !pool->closing)
        uv_cond_wait(&t->wake, &pool->lock);
    if (!t->granted) { /* closing: leave the lists, the search stops at once */
        paused_unlink(o, t);
        pool->stats.paused--;
    }
    uv_mutex_unlock(&pool->lock);
    return 1;
}

/* The part bound to t ended: the lock is held; it may be dropped and taken again. */
static void part_ended(thue_pool *pool, wthread *t)
{
    job *j = t->j;
    owner *o = j->own;
    t->j = NULL;
    if (t->evicted) {
        t->evicted = 0;
        pool->freeing--;
    }
    if (t->granted) {
        t->granted = 0;
        pool->slots_free++;
    }
    o->started--;
    if (--j->busy > 0 || j->in_queue) {
        owner_release(pool, o);
        return; /* other parts are running or still to run */
    }
    /* This was the last part (or the job was cancelled and this was the last one
     * started): nobody else holds the job now, and cancel will only flag it. */
    j->own = NULL;
    owner_release(pool, o);
    j->t_end = thue_now_ns();
    thue_bot_search *s = j->search;
    if (j->game) {
        j->err = j->game->err; /* the worker searched already; nothing to merge */
    } else if (!j->cancelled) {
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
    /* Thread-safe and never blocks; the handle outlives the workers (close joins them
     * before closing it). */
    uv_async_send(&pool->async);
}

static void worker(void *arg)
{
    wthread *t = arg;
    thue_pool *pool = t->pool;
    /* Searches are background work: at nice 10 (this thread only, on Linux) they yield
     * the cores to the loop thread when a message arrives, which halves the p99 of a
     * move's round trip while every worker searches (docs/bench.md, bench-rtt.mjs). Failing
     * to lower the priority changes nothing else. */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WORKER_NICE);
    uv_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->closing && t->j == NULL)
            uv_cond_wait(&t->wake, &pool->lock);
        if (t->j == NULL)
            break; /* closing, and no part of ours */
        job *j = t->j;
        int part = t->part;
        thue_bot_search *s = j->search;
        thue_bot_limits lim = j->limits;
        uv_mutex_unlock(&pool->lock);

        lim.yield = yield_hook;
        lim.yield_arg = t;
        if (j->game == NULL) {
            thue_bot_search_run_part(s, part, &lim);
        } else if (j->game->run != NULL) {
            j->game->err = j->game->run(j->data, &lim);
        } else {
            gjob *gj = j->game;
            gj->err = thue_gbot_choose(gj->g, &gj->opt, gj->state, &gj->spec, gj->seed, &lim,
                                       &gj->res);
        }

        uv_mutex_lock(&pool->lock);
        part_ended(pool, t);
        t->idle_next = pool->idle;
        pool->idle = t;
        dispatch(pool);
    }
    uv_mutex_unlock(&pool->lock);
}

/* ---- the loop thread ------------------------------------------------------------- */

/* A finished job in the pool's counts. */
static void count_finished(thue_pool *pool, const job *j)
{
    uv_mutex_lock(&pool->lock);
    if (j->err)
        pool->stats.failed++;
    else
        pool->stats.completed++;
    uv_mutex_unlock(&pool->lock);
}

static void deliver_game(thue_pool *pool, job *j)
{
    count_finished(pool, j);
    if (j->game->run != NULL) {
        j->game->done(j->id, j->err, j->data);
        return;
    }
    thue_game_job_result res;
    memset(&res, 0, sizeof res);
    res.id = j->id;
    res.err = j->err;
    res.bot = j->game->res;
    res.queue_ms = (double)(j->t_start - j->t_submit) / 1e6;
    res.run_ms = (double)(j->t_end - j->t_start) / 1e6;
    j->game->cb(&res, j->data);
}

static void deliver(thue_pool *pool, job *j)
{
    reg_remove(pool, j);
    if (j->game) {
        deliver_game(pool, j);
        return;
    }
    thue_job_result res;
    res.id = j->id;
    res.err = j->err;
    res.bot = j->result;
    res.queue_ms = (double)(j->t_start - j->t_submit) / 1e6;
    res.run_ms = (double)(j->t_end - j->t_start) / 1e6;
    count_finished(pool, j);
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

static void thread_free(wthread *t)
{
    uv_cond_destroy(&t->wake);
    free(t);
}

/* Stops and joins every thread (the lock is not held). */
static void stop_threads(thue_pool *pool)
{
    uv_mutex_lock(&pool->lock);
    pool->closing = 1;
    for (int i = 0; i < pool->nthreads; i++)
        uv_cond_signal(&pool->threads[i]->wake);
    int n = pool->nthreads;
    uv_mutex_unlock(&pool->lock);
    /* No thread is started once closing is set, so n is all of them. */
    for (int i = 0; i < n; i++)
        uv_thread_join(&pool->threads[i]->tid);
    for (int i = 0; i < n; i++)
        thread_free(pool->threads[i]);
}

thue_pool *thue_pool_new_config(uv_loop_t *loop, const thue_pool_config *cfg)
{
    if (loop == NULL || cfg == NULL || cfg->threads < 1 || cfg->threads > 256)
        return NULL;
    int owner_max = cfg->owner_parts_max ? cfg->owner_parts_max : THUE_POOL_OWNER_PARTS_DEFAULT;
    int slice_ms = cfg->slice_ms ? cfg->slice_ms : THUE_POOL_SLICE_MS_DEFAULT;
    int tmax = cfg->threads_max;
    if (tmax == 0)
        tmax = 4 * cfg->threads > 256 ? 4 * cfg->threads : 256;
    if (owner_max < 1 || owner_max > 256 || slice_ms < 1 || slice_ms > 10000 ||
        tmax < cfg->threads || tmax > THREADS_MAX_LIMIT)
        return NULL;
    thue_pool *pool = calloc(1, sizeof *pool + (size_t)tmax * sizeof(wthread *));
    if (pool == NULL)
        return NULL;
    pool->loop = loop;
    pool->nslots = pool->slots_free = cfg->threads;
    pool->owner_max = owner_max;
    pool->threads_max = tmax;
    pool->slice_ns = (int64_t)slice_ms * 1000000;
    pool->mem = cfg->mem;
    atomic_init(&pool->contended, 0);
    pool->stats.threads = cfg->threads;
    if (uv_mutex_init(&pool->lock) != 0) {
        free(pool);
        return NULL;
    }
    /* One thread per slot from the start (so that a pool that cannot start its threads
     * is not made); more start as parts pause. */
    int ok = 1;
    uv_mutex_lock(&pool->lock);
    for (int i = 0; i < cfg->threads && ok; i++) {
        wthread *t = thread_get(pool);
        ok = t != NULL;
        if (ok) {
            t->idle_next = pool->idle;
            pool->idle = t;
        }
    }
    uv_mutex_unlock(&pool->lock);
    /* Last, so that a failure before it needs no loop iteration to undo; no worker can
     * signal it before a job is submitted. */
    if (ok)
        ok = uv_async_init(loop, &pool->async, on_async) == 0;
    if (!ok) {
        stop_threads(pool);
        uv_mutex_destroy(&pool->lock);
        free(pool);
        return NULL;
    }
    pool->async.data = pool;
    uv_unref((uv_handle_t *)&pool->async); /* nothing pending yet */
    return pool;
}

thue_pool *thue_pool_new(uv_loop_t *loop, int threads)
{
    thue_pool_config cfg = {threads, 0, 0, 0, NULL};
    return thue_pool_new_config(loop, &cfg);
}

static int enqueue(thue_pool *pool, job *j, const char *key, uint64_t *id);

/* The earliest of a job's deadlines, as its search computes them (bot.c). */
static int64_t due_of(const thue_job_request *req, int64_t t0)
{
    int64_t due = req->deadline_ns > 0 ? req->deadline_ns : 0;
    int64_t ms = req->think_ms > 0 ? req->think_ms : 0;
    if (req->spec.kind == THUE_BOT_UCT && req->spec.time_ms > 0 &&
        (ms == 0 || req->spec.time_ms < ms))
        ms = req->spec.time_ms;
    if (ms > 0) {
        int64_t d = t0 + ms * 1000000;
        if (due == 0 || d < due)
            due = d;
    }
    return due;
}

int thue_pool_submit(thue_pool *pool, const thue_job_request *req, uint64_t *id)
{
    if (pool == NULL || req == NULL || req->cb == NULL)
        return THUE_EINVAL;
    if (pool->closing)
        return THUE_EOVER;
    if (req->parts < 0 || req->parts > THUE_BOT_PARTS_MAX)
        return THUE_EINVAL;
    const char *key = req->owner ? req->owner : "";
    if (strlen(key) > THUE_POOL_OWNER_MAX)
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
    j->t_submit = thue_now_ns();
    j->due_ns = due_of(req, j->t_submit);
    return enqueue(pool, j, key, id);
}

/* Queues a job whose search and limits are set: 0, or THUE_ENOMEM (then j is freed). A bot
 * job (not a task) gets its memory account here. */
static int enqueue(thue_pool *pool, job *j, const char *key, uint64_t *id)
{
    if (pool->mem != NULL && (j->game == NULL || j->game->run == NULL)) {
        j->mem = thue_mem_open(pool->mem, key);
        if (j->mem == NULL) {
            job_free(j);
            return THUE_ENOMEM;
        }
        j->limits.mem = j->mem;
    }
    uv_mutex_lock(&pool->lock);
    owner *o = owner_get(pool, key);
    if (o == NULL) {
        uv_mutex_unlock(&pool->lock);
        job_free(j);
        return THUE_ENOMEM;
    }
    j->own = o;
    j->id = ++pool->last_id;
    queue_push(j);
    /* An owner with nothing waiting goes ahead of the round: its job starts within about
     * a slice. One already waiting keeps its place. */
    if (o->list == LIST_NONE)
        list_append(pool, o, LIST_FRESH);
    pool->stats.submitted++;
    pool->stats.queued++;
    dispatch(pool);
    uv_mutex_unlock(&pool->lock);
    reg_add(pool, j);
    if (id)
        *id = j->id;
    return 0;
}

/* A game job's two records for the queue of owner `key`, started (not yet queued): 0, or
 * THUE_EOVER (closing), THUE_EINVAL (owner too long), THUE_ENOMEM. */
static int gjob_new(thue_pool *pool, const char *key, void *data, job **jo, gjob **gjo)
{
    if (pool->closing)
        return THUE_EOVER;
    if (strlen(key) > THUE_POOL_OWNER_MAX)
        return THUE_EINVAL;
    job *j = calloc(1, sizeof *j);
    gjob *gj = calloc(1, sizeof *gj);
    if (j == NULL || gj == NULL) {
        free(j);
        free(gj);
        return THUE_ENOMEM;
    }
    j->game = gj;
    j->nparts = 1;
    j->data = data;
    atomic_init(&j->stop, 0);
    j->t_submit = thue_now_ns();
    j->limits.stop = &j->stop;
    *jo = j;
    *gjo = gj;
    return 0;
}

int thue_pool_submit_game(thue_pool *pool, const thue_game_job_request *req, uint64_t *id)
{
    if (pool == NULL || req == NULL || req->cb == NULL || req->state == NULL ||
        thue_gbot_spec_check(req->game, &req->spec) != 0)
        return THUE_EINVAL;
    const char *key = req->owner ? req->owner : "";
    size_t sz = req->game->state_size(&req->opt);
    void *st = malloc(sz ? sz : 1);
    if (st == NULL)
        return pool->closing ? THUE_EOVER : THUE_ENOMEM;
    job *j;
    gjob *gj;
    int err = gjob_new(pool, key, req->data, &j, &gj);
    if (err) {
        free(st);
        return err;
    }
    memcpy(st, req->state, sz);
    gj->g = req->game;
    gj->opt = req->opt;
    gj->state = st;
    gj->spec = req->spec;
    gj->seed = req->seed;
    gj->cb = req->cb;
    /* think_ms and the spec's own time count from submission, as a Thue job's do: they
     * become an absolute deadline here (thue_gbot_choose would count from its start). */
    int64_t due = req->deadline_ns > 0 ? req->deadline_ns : 0;
    int64_t ms = req->think_ms > 0 ? req->think_ms : 0;
    if (req->spec.kind == THUE_GBOT_UCT && req->spec.time_ms > 0 &&
        (ms == 0 || req->spec.time_ms < ms))
        ms = req->spec.time_ms;
    if (ms > 0 && (due == 0 || j->t_submit + ms * 1000000 < due))
        due = j->t_submit + ms * 1000000;
    j->limits.deadline_ns = due;
    j->limits.node_budget = req->node_budget;
    j->due_ns = due;
    return enqueue(pool, j, key, id);
}

int thue_pool_submit_task(thue_pool *pool, const thue_pool_task *task, uint64_t *id)
{
    if (pool == NULL || task == NULL || task->run == NULL || task->done == NULL)
        return THUE_EINVAL;
    const char *key = task->owner ? task->owner : "";
    job *j;
    gjob *gj;
    int err = gjob_new(pool, key, task->data, &j, &gj);
    if (err)
        return err;
    gj->run = task->run;
    gj->done = task->done;
    return enqueue(pool, j, key, id);
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
        owner *o = j->own;
        queue_unlink(j); /* no further part starts */
        if (j->busy == 0) {
            free_now = 1; /* no worker holds it */
            if (j->next_part == 0)
                pool->stats.queued--;
            else
                pool->stats.running--;
            j->own = NULL;
        }
        if (!owner_waiting(o))
            list_remove(pool, o);
        owner_release(pool, o);
    }
    /* Otherwise a worker holds it, or it is posted: it comes back through the drain. A
     * paused part of it is now urgent and gets the next slot, to end. */
    dispatch(pool);
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
    out->has_mem = pool->mem != NULL;
    thue_mem_stats_get(pool->mem, &out->mem);
}

thue_mem_budget *thue_pool_mem(thue_pool *pool)
{
    return pool != NULL ? pool->mem : NULL;
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
    pool->closing = 1; /* nothing is dispatched any more */
    /* Unstarted parts never start: jobs nobody holds go straight to the completion list
     * (freed by on_closed), the others are posted by their workers when their parts end.
     * Owners with nothing started go now; the others go with their last part. */
    for (int b = 0; b < OWNER_BUCKETS; b++) {
        owner *o = pool->owners[b];
        while (o) {
            owner *next = o->hash_next;
            while (o->q_head) {
                job *j = o->q_head;
                queue_unlink(j);
                if (j->busy == 0) {
                    if (j->next_part == 0)
                        pool->stats.queued--;
                    else
                        pool->stats.running--;
                    j->own = NULL;
                    post(pool, j);
                }
            }
            if (o->p_head == NULL)
                list_remove(pool, o);
            owner_release(pool, o);
            o = next;
        }
    }
    for (job *j = pool->reg_head; j; j = j->reg_next) {
        j->cancelled = 1;
        atomic_store(&j->stop, 1);
        pool->stats.cancelled++;
    }
    uv_mutex_unlock(&pool->lock);
    pool->reg_head = NULL;
    /* Blocks the loop only until the running searches notice their stop flags (they poll
     * every few dozen nodes); paused ones are woken and stop at once. */
    stop_threads(pool);
    uv_close((uv_handle_t *)&pool->async, on_closed);
}
