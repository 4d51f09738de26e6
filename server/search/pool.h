/*
 * pool.h: the worker pool that runs bot searches off the loop thread (DESIGN.md).
 *
 * A job is one bot move: a private copy of the position, the bot spec, a seed, limits
 * (think time, node budget, absolute deadline), a stop flag and an owner. A job may be
 * split into parts (root parallelism, bot.h); each part is a task.
 *
 * Three kinds of job share the queues, the fairness, the time slices, the id space and
 * cancel: Thue jobs (thue_pool_submit, bot.h's bots), game jobs (thue_pool_submit_game,
 * gbot.h's bots over any game of game.h) and tasks (thue_pool_submit_task: a function of
 * the caller's, such as one slice of an analysis). A game job or a task is always one
 * part.
 *
 * Fair by owner. The owner is whoever the work is for (the server uses the account, or
 * a guest's address). Each owner has a FIFO of jobs; owners are served round-robin, so
 * one owner's backlog never delays another owner's job by more than one turn of the
 * round. An owner has at most `owner_parts_max` parts started at once.
 *
 * Time-sliced. At most `threads` parts compute at once (the slots, one per core). When
 * a part has held its slot for `slice_ms` and work of any owner is waiting, the part
 * pauses at its next poll (bot.h: thue_bot_limits.yield) and gives its slot to the next
 * owner in the round; it resumes later where it stopped, its tree or table intact. A
 * paused part keeps its thread, so the pool starts more threads than slots (up to
 * `threads_max`); only `threads` of them ever compute at once. An owner seen for the
 * first time since it last had nothing to do goes ahead of the owners already in the
 * round, so a new job starts within about one slice, whatever the others' backlogs, and
 * a part whose deadline has passed (or which was cancelled) gets the next free slot, so
 * it ends and delivers its move within about a slice of its deadline. Should every one
 * of threads_max threads hold a search when an owner with nothing started comes, the
 * oldest paused search of the owner with the most started is stopped early (it plays its
 * best move so far), so that no owner waits for another's searches to end.
 *
 * Memory. With a budget (thue_pool_config.mem), every bot job opens an account of its
 * owner's when it is submitted and closes it when it is freed; its search takes its
 * trees and tables from it (budget.h), so one owner's searches cannot take the memory
 * the others' need.
 *
 * Results go back to the loop thread: a finished job is put on a completion list and the
 * pool's uv_async_t is signalled; the async callback swaps the whole list out under the
 * lock and then runs each job's callback on the loop thread, unlocked.
 *
 * Cancelling (loop thread) works for queued, running and paused jobs: a queued job is
 * removed, a running one has its stop flag raised; either way its callback is never
 * called, even if the job had already finished and was waiting on the completion list.
 *
 * The pool's async handle keeps the loop alive only while a result is waiting to be
 * delivered (like uv_queue_work), so uv_run(UV_RUN_DEFAULT) returns once everything
 * submitted has been delivered or cancelled.
 *
 * Threading: every function here is for the loop thread only (the thread running `loop`),
 * except thue_pool_stats_get, which may be called from any thread.
 */
#ifndef THUE_SEARCH_POOL_H
#define THUE_SEARCH_POOL_H

#include <stdint.h>

#include <uv.h>

#include "games/thue/bots/bot.h"
#include "search/budget.h"
#include "search/gbot.h"

typedef struct thue_pool thue_pool;

/* What the loop thread receives for a finished job. */
typedef struct thue_job_result {
    uint64_t id;
    int err;             /* 0, or a negative THUE_E... code (then `bot` is not valid) */
    thue_bot_result bot; /* the move and its cost */
    double queue_ms;     /* time from submission until a worker first took a part */
    double run_ms;       /* time from the first part starting to the last one ending */
} thue_job_result;

/* Called on the loop thread; `res` is borrowed for the duration of the call. */
typedef void (*thue_job_cb)(const thue_job_result *res, void *data);

typedef struct thue_job_request {
    thue_bot_spec spec;
    thue_position pos; /* pos.sym is copied at submission; the caller keeps its buffer */
    uint64_t seed;
    int64_t think_ms;     /* <= 0: none; counted from submission, queue time included */
    uint64_t node_budget; /* 0: none */
    int64_t deadline_ns;  /* absolute thue_now_ns() time; 0: none */
    int parts;            /* root split, 1..THUE_BOT_PARTS_MAX (at most the threads are
                             useful); 0 means 1 */
    const char *owner;    /* who the job is for (fair shares, pool.h); copied, at most
                             THUE_POOL_OWNER_MAX bytes; NULL or "": one shared owner */
    thue_job_cb cb;       /* required */
    void *data;
} thue_job_request;

#define THUE_POOL_OWNER_MAX 79

typedef struct thue_pool_config {
    int threads;         /* slots: parts computing at once, 1..256 (the cores) */
    int owner_parts_max; /* parts one owner may have started (running or paused) at once,
                            1..256; 0: THUE_POOL_OWNER_PARTS_DEFAULT */
    int slice_ms;        /* the time slice, 1..10000; 0: THUE_POOL_SLICE_MS_DEFAULT */
    int threads_max;     /* threads in all (running and paused parts), threads..4096;
                            0: the larger of 4 x threads and 256 */
    thue_mem_budget *mem; /* the searches' memory budgets (budget.h; borrowed: it must
                             outlive the pool): each bot job takes its trees and tables
                             from an account of its owner's. NULL: unlimited. Tasks bring
                             their own accounts (thue_pool_task). */
} thue_pool_config;

#define THUE_POOL_OWNER_PARTS_DEFAULT 2
#define THUE_POOL_SLICE_MS_DEFAULT 20

typedef struct thue_pool_stats {
    int threads;         /* slots */
    int threads_started; /* threads started so far (never more than threads_max) */
    uint64_t submitted, completed, cancelled, failed;
    int queued;  /* jobs waiting for their first part to start */
    int running; /* jobs started and not yet finished (a split job between parts, or
                    being merged, or paused, counts as running) */
    int paused;  /* parts paused now, waiting for a slot */
    uint64_t pauses; /* times a part gave up its slot to another */
    uint64_t stopped_early; /* searches stopped before their time to free a thread for an
                               owner with nothing started (at threads_max) */
    int owners;  /* owners with a job queued or started */
    int has_mem; /* the pool has a memory budget (thue_pool_config.mem)... */
    thue_mem_stats mem; /* ...and these are its figures (budget.h) */
} thue_pool_stats;

/*
 * A pool with `threads` slots (1..256) and the defaults of thue_pool_config, and an
 * async handle on `loop`. NULL on bad arguments or when threads cannot be started (none
 * is left running then). One thread per slot starts at once; more start as searches
 * pause.
 */
thue_pool *thue_pool_new(uv_loop_t *loop, int threads);
/* The same with every setting (cfg borrowed); NULL also when a setting is out of range. */
thue_pool *thue_pool_new_config(uv_loop_t *loop, const thue_pool_config *cfg);

/*
 * Queues a job (copying the request and the word). 0 and *id set (ids are never 0 and
 * never reused), or THUE_EINVAL (no callback, bad spec, bad parts), a
 * thue_position_check error found in O(n) (THUE_EK, THUE_ESYMBOL, THUE_EPOSITION, ...),
 * THUE_ENOMEM, or THUE_EOVER when the pool is closing. On error the callback will never
 * be called. Submitting costs the loop thread O(n) for a builder, O(k n) for a painter:
 * whether the word already holds a repetition is found by a worker, and reported
 * through the callback (err = THUE_EREPEAT).
 */
int thue_pool_submit(thue_pool *pool, const thue_job_request *req, uint64_t *id);

/* ---- game jobs ------------------------------------------------------------------------ */

struct thue_game_job_result;

typedef struct thue_game_job_request {
    const thue_gamedef *game; /* borrowed; must outlive the job (the registry's are static) */
    thue_gopt opt;            /* the game's parsed options (copied) */
    const void *state;        /* copied at submission: game->state_size(&opt) bytes */
    thue_gbot_spec spec;
    uint64_t seed;
    int64_t think_ms;     /* <= 0: none; counted from submission, queue time included */
    uint64_t node_budget; /* 0: none (perfect then uses its own, gbot.h) */
    int64_t deadline_ns;  /* absolute thue_now_ns() time; 0: none */
    const char *owner;    /* as thue_job_request's */
    void (*cb)(const struct thue_game_job_result *res, void *data); /* required */
    void *data;
} thue_game_job_request;

typedef struct thue_game_job_result {
    uint64_t id;
    int err;              /* 0, or thue_gbot_choose's error (THUE_EOVER: the position is
                             over; THUE_ETOOBIG: perfect could not decide in time or was
                             stopped; THUE_ENOMEM); then `bot` is not valid */
    thue_gbot_result bot; /* the move and its cost */
    double queue_ms, run_ms; /* as thue_job_result's */
} thue_game_job_result;

/*
 * Queues a game job (copying the request, the options and the state). 0 and *id set
 * (the same id space as thue_pool_submit's), or THUE_EINVAL (no callback, no game or
 * state, a spec the game cannot play: gbot.h's thue_gbot_spec_check), THUE_ENOMEM, or
 * THUE_EOVER when the pool is closing. The search itself runs on a worker, so a position
 * that is over is reported through the callback (err = THUE_EOVER). Costs the loop
 * thread a copy of the state.
 */
int thue_pool_submit_game(thue_pool *pool, const thue_game_job_request *req, uint64_t *id);

/* ---- tasks ---------------------------------------------------------------------------- */

/*
 * A task: any work of the server's that belongs on the pool rather than the loop (the
 * lobby's analyses, lobby/analysis.c), run under the same queues, fairness, slices and
 * cancel as a bot's job. run is called once on a worker with the pool's limits (the stop
 * flag raised by cancel or close, the yield hook of the time slices; no deadline, no node
 * budget) and returns 0 or a negative THUE_E... code; done is then called on the loop
 * thread with that code, unless the task was cancelled (then never). data is borrowed:
 * the caller keeps it alive until done runs, or, after a cancel, until run has returned
 * (the caller's own business: the pool gives no signal then, so a caller that may cancel
 * a running task should rather ask its run to stop through data and wait for done).
 */
typedef struct thue_pool_task {
    int (*run)(void *data, const thue_bot_limits *lim); /* required; a worker thread */
    void (*done)(uint64_t id, int err, void *data);     /* required; the loop thread */
    const char *owner; /* as thue_job_request's */
    void *data;
} thue_pool_task;

/* Queues a task: 0 and *id set (the ids of every job), THUE_EINVAL (no run or done, an
 * owner too long), THUE_ENOMEM, or THUE_EOVER when the pool is closing (then done is never
 * called). */
int thue_pool_submit_task(thue_pool *pool, const thue_pool_task *task, uint64_t *id);

/*
 * Cancels job `id` (of either kind): 0 when it was queued, running or finished but not yet delivered
 * (its callback will never be called), THUE_EINVAL when no such job is pending (unknown,
 * already delivered or already cancelled).
 */
int thue_pool_cancel(thue_pool *pool, uint64_t id);

/* Counters; safe from any thread. */
void thue_pool_stats_get(thue_pool *pool, thue_pool_stats *out);

/* The memory budget the pool was made with (borrowed), or NULL. */
thue_mem_budget *thue_pool_mem(thue_pool *pool);

/*
 * Shuts the pool down: cancels every pending job (no callback runs for them), stops the
 * running searches through their stop flags, joins the workers, and closes the async
 * handle; `closed` (may be NULL) is called on the loop thread once the handle is closed
 * and the pool freed, so the loop can then finish. Calling anything on the pool after
 * this is an error. A NULL pool calls `closed` at once.
 */
void thue_pool_close(thue_pool *pool, void (*closed)(void *data), void *data);

#endif
