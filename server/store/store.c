/*
 * store.c: the store's thread and job queue (store.h); the SQL is in store_db.c and
 * store_read.c (through sql.h, on SQLite or PostgreSQL).
 *
 * One store thread owns the database while the store is started. The loop thread turns
 * each call into a job holding a deep copy of its input (strings, the match's moves and
 * words), queues it and returns; the thread takes the jobs one by one in order and runs
 * each in its own transaction, then appends it to the completion list and signals the
 * uv_async_t. On the loop thread the async callback swaps the whole completion list out
 * under the lock and runs the callbacks unlocked, so a callback may queue more jobs or
 * close the store.
 *
 * Every queued job's callback runs exactly once: the thread leaves its loop only when the
 * queue is empty and the store is stopping, and the async callback delivers whatever it
 * finds, closing the handle only once it has seen the thread's exit (under the same lock
 * as the last completions, so none can follow). Closing therefore never blocks the loop
 * on the disk: it raises the stop flag and lets the thread drain the queue; the join
 * happens when the thread has already said it is leaving.
 *
 * The async handle is referenced while a callback is pending or the store is closing, so
 * a loop with nothing else to do runs until every result is delivered, and an idle store
 * does not keep a loop alive.
 *
 * A write that fails for a reason that can pass (store.h, thue_store_health) is held
 * back with every write queued after it, in order, and tried again with a growing pause;
 * reads queued meanwhile still run. The held writes are the store thread's alone.
 *
 * Locking: s->lock guards the queue, the completion list, `stopping` and `exited`.
 * `stopping` is written only by the loop thread (under the lock), which may therefore
 * read it unlocked.
 */
#include "store/store.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "ladder/glicko2.h"
#include "log.h"
#include "store/store_internal.h"

/* The writes first, up to JOB_LAST_WRITE (is_write), then the reads. */
typedef enum {
    JOB_ADD_ACCOUNT = 0,
    JOB_SAVE_MATCH,
    JOB_SAVE_TOURNAMENT,
    JOB_SET_PASSWORD,
    JOB_ADD_TOKEN,
    JOB_ADD_PUZZLE,
    JOB_SAVE_REVIEW,
    JOB_MATCH_JSON,
    JOB_MATCHES_JSON,
    JOB_MOVES_CSV,
    JOB_GET_PASSWORD,
    JOB_CHANGES,
    JOB_PUZZLE_COUNTS,
    JOB_PUZZLES_JSON,
    JOB_PUZZLE_JSON,
    JOB_PUZZLE_DAILY,
    JOB_REVIEW_JSON,
    JOB_LEASES /* writes, but never held back: a lease is renewed now or not at all */
} job_kind;

#define JOB_LAST_WRITE JOB_SAVE_REVIEW

typedef struct job job;
struct job {
    job *next; /* queue, then completion list */
    job_kind kind;
    thue_store_cb cb;           /* writes */
    thue_store_text_cb text_cb; /* reads */
    thue_store_hash_cb hash_cb; /* JOB_GET_PASSWORD */
    void *data;

    /* The input: the job's own copies. */
    thue_account_row account;
    thue_match_row match; /* moves and rounds[].word point at the arrays below */
    thue_move_row *moves;
    uint8_t *words[2];
    char *key;   /* tournament or match id, or the player's name */
    char *state; /* a tournament's JSON */
    char *gstates[2]; /* another game's match: its start and final state JSON */
    char *game;       /* reads of a player's matches: the game asked for, or NULL */
    int finished;
    int64_t updated_ms;
    char *node;     /* tournaments: the directing node (saves, leases) */
    int64_t fence, lease_ms;
    int page, per_page;
    int64_t viewer; /* reads of matches: thue__db_match_json's */
    /* passwords and tokens: the account, the new hash and the one it replaces (has_expect
     * 0: none), a login token's SHA-256; JOB_GET_PASSWORD's answer in hash (found) */
    int64_t account_id;
    char hash[THUE_STORE_HASH_MAX];
    char expect[THUE_STORE_HASH_MAX];
    int has_expect, found;
    unsigned char token[32];
    /* puzzles: the row (its texts point at ptext[]), a puzzle's id, the day's pick */
    thue_puzzle_row puzzle;
    char *ptext[3];
    uint64_t pick;

    /* The result, written by the store thread before posting. */
    int err;
    int64_t id;
    thue__text text;
};

struct thue_store {
    thue__db db;
    uv_loop_t *loop;
    uv_async_t async;
    uv_thread_t thread;
    uv_mutex_t lock;
    uv_cond_t wake;
    int started;
    atomic_int crash_at;   /* thue_store_crash_in_job */
    atomic_int fail_writes; /* thue_store_fail_writes */
    atomic_int lose_commit; /* thue_store_lose_commit_reply */
    /* thue_store_health_get */
    atomic_int failing, writes_waiting;
    atomic_ullong write_failures;

    /* Locked. */
    job *q_head, *q_tail;
    job *done_head, *done_tail;
    int stopping;
    int exited;

    /* Store thread only. */
    int jobs_run;

    /* Loop thread only. */
    int pending; /* queued jobs whose callbacks have not run */
    int handle_closing;
    void (*closed)(void *data);
    void *closed_data;
};

static void job_free(job *j)
{
    if (j == NULL)
        return;
    if (j->moves != NULL)
        for (int i = 0; i < j->match.nmoves; i++)
            free(j->moves[i].gmove);
    free(j->moves);
    free(j->words[0]);
    free(j->words[1]);
    free(j->key);
    free(j->state);
    free(j->gstates[0]);
    free(j->gstates[1]);
    free(j->game);
    free(j->node);
    for (int i = 0; i < 3; i++)
        free(j->ptext[i]);
    free(j->text.body);
    free(j);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the store thread ---------------------------------------------------------------- */

static int is_write(const job *j)
{
    return j->kind <= JOB_LAST_WRITE;
}

static void run_job(thue_store *s, job *j)
{
    int crash = ++s->jobs_run == atomic_load(&s->crash_at);
    s->db.transient = 0;
    if (is_write(j) && atomic_load(&s->fail_writes)) {
        thue_log(THUE_LOG_ERROR, "store: %s: write refused by the test hook (as if the disk were full)",
                 s->db.path);
        j->err = THUE_STORE_EIO;
        s->db.transient = 1;
        return;
    }
    switch (j->kind) {
    case JOB_ADD_ACCOUNT:
        j->err = thue__db_add_account(&s->db, &j->account, crash, &j->id);
        break;
    case JOB_SAVE_MATCH:
        j->err = thue__db_save_match(&s->db, &j->match, crash);
        break;
    case JOB_SAVE_TOURNAMENT: {
        thue__tournament_save t = {j->key,    j->state,      j->node,  j->finished,
                                   j->updated_ms, j->fence, j->lease_ms ? j->updated_ms + j->lease_ms : 0};
        j->err = thue__db_save_tournament(&s->db, &t, crash);
        break;
    }
    case JOB_LEASES:
        thue__db_leases(&s->db, j->node, now_ms(), j->lease_ms, &j->text);
        break;
    case JOB_MATCH_JSON:
        thue__db_match_json(&s->db, j->key, j->viewer, crash, &j->text);
        break;
    case JOB_MATCHES_JSON:
        thue__db_matches_json(&s->db, j->key, j->game, j->viewer, j->page, j->per_page, crash,
                              &j->text);
        break;
    case JOB_MOVES_CSV:
        thue__db_moves_csv(&s->db, j->key, j->viewer, crash, &j->text);
        break;
    case JOB_SET_PASSWORD:
        j->err = thue__db_password_set(&s->db, j->account_id, j->hash,
                                       j->has_expect ? j->expect : NULL, crash, &j->id);
        break;
    case JOB_ADD_TOKEN:
        j->err = thue__db_add_token(&s->db, j->account_id, j->token, j->updated_ms, crash);
        break;
    case JOB_GET_PASSWORD:
        j->err = thue__db_password_get(&s->db, j->account_id, j->hash, sizeof j->hash, &j->found);
        break;
    case JOB_CHANGES:
        thue__db_changes(&s->db, &j->text);
        break;
    case JOB_SAVE_REVIEW:
        j->err = thue__db_save_review(&s->db, j->key, j->state, j->updated_ms, crash);
        break;
    case JOB_REVIEW_JSON:
        thue__db_review_json(&s->db, j->key, j->viewer, crash, &j->text);
        break;
    case JOB_ADD_PUZZLE:
        j->err = thue__db_add_puzzle(&s->db, &j->puzzle, now_ms(), crash, &j->id);
        break;
    case JOB_PUZZLE_COUNTS:
        thue__db_puzzle_counts(&s->db, &j->text);
        break;
    case JOB_PUZZLES_JSON:
        thue__db_puzzles_json(&s->db, j->key, j->page, j->per_page, &j->text);
        break;
    case JOB_PUZZLE_JSON:
        thue__db_puzzle_json(&s->db, j->id, &j->text);
        break;
    case JOB_PUZZLE_DAILY:
        thue__db_puzzle_daily(&s->db, j->key, j->state, j->updated_ms, j->pick, &j->text);
        break;
    }
}

#define RETRY_FIRST_MS 500
#define RETRY_MAX_MS 10000

/* The writes the disk refused, and those queued after them, waiting in order. */
typedef struct held {
    job *head, *tail;
    int n;
    uint64_t retry_at; /* uv_hrtime() */
    int pause_ms;
} held;

static void held_push_back(held *h, job *j)
{
    j->next = NULL;
    if (h->tail)
        h->tail->next = j;
    else
        h->head = j;
    h->tail = j;
    h->n++;
}

static job *pop(job **head, job **tail)
{
    job *j = *head;
    *head = j->next;
    if (*head == NULL)
        *tail = NULL;
    return j;
}

/*
 * The next job to run, under the lock: a queued job; or, while writes are held, a queued
 * read, else the first held write once its pause is over (at once when stopping). NULL
 * when the store is stopping and nothing is left. May wait on the condition variable.
 */
static job *next_job(thue_store *s, held *h)
{
    for (;;) {
        if (h->head == NULL) {
            if (s->q_head)
                return pop(&s->q_head, &s->q_tail);
            if (s->stopping)
                return NULL;
            uv_cond_wait(&s->wake, &s->lock);
            continue;
        }
        /* Writes keep their order behind the held ones; reads go on. */
        while (s->q_head && is_write(s->q_head))
            held_push_back(h, pop(&s->q_head, &s->q_tail));
        atomic_store(&s->writes_waiting, h->n);
        if (s->q_head)
            return pop(&s->q_head, &s->q_tail);
        uint64_t now = uv_hrtime();
        if (s->stopping || now >= h->retry_at) {
            h->n--;
            return pop(&h->head, &h->tail);
        }
        uv_cond_timedwait(&s->wake, &s->lock, h->retry_at - now);
    }
}

/*
 * Group commit: the writes ready in order (the held ones, then those queued) are run in
 * one transaction, up to BATCH_MAX: one sync of the log for all of them. That is what
 * lets a backlog left by a failing disk drain much faster than play adds to it. A job's
 * own expected failure (a taken name) is its savepoint's; a failure of the disk, or a
 * transaction SQLite rolled back, sends the whole batch back to be tried again.
 */
#define BATCH_MAX 128

/* Under the lock: j and the writes that follow it in order, into batch; how many. */
static int gather(thue_store *s, held *h, job *j, job **batch)
{
    int n = 0;
    batch[n++] = j;
    if (!is_write(j))
        return n;
    while (n < BATCH_MAX) {
        if (h->head) {
            h->n--;
            batch[n++] = pop(&h->head, &h->tail);
        } else if (s->q_head && is_write(s->q_head)) {
            batch[n++] = pop(&s->q_head, &s->q_tail);
        } else {
            break;
        }
    }
    atomic_store(&s->writes_waiting, h->n);
    return n;
}

/* Runs the batch; 1 when the disk refused it (every job is to be tried again), else 0
 * (each job has its answer in err). */
static int run_batch(thue_store *s, job **batch, int n)
{
    if (is_write(batch[0]) && atomic_exchange(&s->lose_commit, 0))
        s->db.lose_commit_reply = 1;
    if (n == 1) {
        run_job(s, batch[0]);
        return is_write(batch[0]) && batch[0]->err == THUE_STORE_EIO && s->db.transient;
    }
    s->db.transient = 0;
    if (thue__db_batch_begin(&s->db) != 0)
        return s->db.transient;
    for (int i = 0; i < n; i++) {
        run_job(s, batch[i]);
        if ((batch[i]->err == THUE_STORE_EIO && s->db.transient) ||
            !thue__db_batch_alive(&s->db)) {
            /* The disk failed, or the transaction is gone with what the batch wrote. */
            thue__db_batch_end(&s->db, 0);
            return 1;
        }
    }
    s->db.transient = 0;
    if (thue__db_batch_end(&s->db, 1) != 0)
        return 1;
    return 0;
}

static void store_thread(void *arg)
{
    thue_store *s = arg;
    held h = {NULL, NULL, 0, 0, RETRY_FIRST_MS};
    job *batch[BATCH_MAX];
    uv_mutex_lock(&s->lock);
    for (;;) {
        job *j = next_job(s, &h);
        if (j == NULL)
            break; /* stopping, and nothing is left */
        int n = gather(s, &h, j, batch);
        uv_mutex_unlock(&s->lock);

        int again = run_batch(s, batch, n);
        if (again)
            atomic_fetch_add(&s->write_failures, 1);

        uv_mutex_lock(&s->lock);
        if (again && !s->stopping) {
            /* First in line again, in their order; everything else waits behind them. */
            for (int i = n - 1; i >= 0; i--) {
                batch[i]->next = h.head;
                h.head = batch[i];
                if (h.tail == NULL)
                    h.tail = batch[i];
                h.n++;
            }
            h.retry_at = uv_hrtime() + (uint64_t)h.pause_ms * 1000000u;
            atomic_store(&s->failing, 1);
            atomic_store(&s->writes_waiting, h.n);
            thue_log(THUE_LOG_WARN,
                     "store: %s: cannot write (%s); "
                     "%d write%s waiting, next try in %.1f s; play goes on",
                     s->db.path,
                     s->db.pg ? "the database server is unreachable, or failing"
                              : "the disk is full, read-only or failing",
                     h.n, h.n == 1 ? "" : "s", h.pause_ms / 1000.0);
            h.pause_ms = h.pause_ms * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : h.pause_ms * 2;
            continue;
        }
        if (again) {
            thue_log(THUE_LOG_ERROR, "store: %s: shutting down with the disk still failing: "
                     "%d write%s lost", s->db.path, n, n == 1 ? " is" : "s are");
            for (int i = 0; i < n; i++)
                if (batch[i]->err == 0)
                    batch[i]->err = THUE_STORE_EIO; /* never answered as saved */
        } else if (is_write(j) && atomic_load(&s->failing)) {
            /* Writing works: the store is healthy again; what waits drains in batches. */
            atomic_store(&s->failing, 0);
            h.pause_ms = RETRY_FIRST_MS;
            thue_log(THUE_LOG_INFO, "store: %s: writing works again; %d waiting write%s being "
                     "saved", s->db.path, h.n, h.n == 1 ? " is" : "s are");
        }
        for (int i = 0; i < n; i++) {
            batch[i]->next = NULL;
            if (s->done_tail)
                s->done_tail->next = batch[i];
            else
                s->done_head = batch[i];
            s->done_tail = batch[i];
        }
        uv_async_send(&s->async);
    }
    /* Sent under the lock: once the loop thread sees `exited` it may close the handle. */
    s->exited = 1;
    uv_async_send(&s->async);
    uv_mutex_unlock(&s->lock);
}

/* ---- the loop thread --------------------------------------------------------------------- */

static void keep_alive(thue_store *s)
{
    if (s->handle_closing)
        return;
    if (s->pending > 0 || s->stopping)
        uv_ref((uv_handle_t *)&s->async);
    else
        uv_unref((uv_handle_t *)&s->async);
}

static void store_free(thue_store *s)
{
    thue__db_close(&s->db);
    uv_cond_destroy(&s->wake);
    uv_mutex_destroy(&s->lock);
    free(s);
}

static void on_closed(uv_handle_t *handle)
{
    thue_store *s = handle->data;
    void (*closed)(void *) = s->closed;
    void *data = s->closed_data;
    store_free(s);
    if (closed)
        closed(data);
}

static void deliver(thue_store *s, job *j)
{
    s->pending--;
    if (j->kind <= JOB_LAST_WRITE) {
        thue_match_rating *r = j->kind == JOB_SAVE_MATCH ? j->match.result : NULL;
        if (r != NULL && j->err == 0) { /* what the transaction decided, for the caller */
            r->rated = j->match.rated;
            r->pair_limited = j->match.pair_limited;
            memcpy(r->changes, j->match.changes, sizeof r->changes);
            memcpy(r->ratings, j->match.ratings, sizeof r->ratings);
        }
        if (j->cb)
            j->cb(j->err, j->id, j->data);
    } else if (j->kind == JOB_GET_PASSWORD) {
        if (j->hash_cb)
            j->hash_cb(j->err, j->err == 0 && j->found ? j->hash : NULL, j->data);
    } else if (j->text_cb) {
        char *body = j->text.body;
        j->text.body = NULL; /* the callback owns it */
        j->text_cb(j->text.status, body, j->text.len, j->data);
    }
}

static void on_async(uv_async_t *handle)
{
    thue_store *s = handle->data;
    uv_mutex_lock(&s->lock);
    job *batch = s->done_head;
    s->done_head = s->done_tail = NULL;
    int exited = s->exited;
    uv_mutex_unlock(&s->lock);
    /* A callback may queue jobs or close the store; neither frees anything here. */
    while (batch) {
        job *j = batch;
        batch = j->next;
        deliver(s, j);
        job_free(j);
    }
    if (exited && !s->handle_closing) {
        /* The thread only exits when stopping, after its last completion: join it (it is
         * returning) and close the handle; on_closed frees the store. */
        uv_thread_join(&s->thread);
        s->handle_closing = 1;
        uv_close((uv_handle_t *)&s->async, on_closed);
        return;
    }
    keep_alive(s);
}

thue_store *thue_store_open(const char *path, char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
    if (path == NULL || path[0] == '\0') {
        if (err && errsize)
            snprintf(err, errsize, "no database path");
        return NULL;
    }
    thue_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        if (err && errsize)
            snprintf(err, errsize, "cannot open %s: out of memory", path);
        return NULL;
    }
    if (uv_mutex_init(&s->lock) != 0) {
        free(s);
        if (err && errsize)
            snprintf(err, errsize, "cannot open %s: no mutex", path);
        return NULL;
    }
    if (uv_cond_init(&s->wake) != 0) {
        uv_mutex_destroy(&s->lock);
        free(s);
        if (err && errsize)
            snprintf(err, errsize, "cannot open %s: no condition variable", path);
        return NULL;
    }
    atomic_init(&s->crash_at, 0);
    atomic_init(&s->fail_writes, 0);
    atomic_init(&s->lose_commit, 0);
    atomic_init(&s->failing, 0);
    atomic_init(&s->writes_waiting, 0);
    atomic_init(&s->write_failures, 0);
    if (thue__db_open(&s->db, path, err, errsize) != 0) {
        store_free(s);
        return NULL;
    }
    return s;
}

int thue_store_load(thue_store *s, void (*account)(void *ctx, const thue_account_row *row),
                    void (*rating)(void *ctx, const thue_rating_row *row),
                    void (*tournament)(void *ctx, const char *id, const char *state_json),
                    void *ctx, char *err, size_t errsize)
{
    if (s == NULL || s->started) {
        if (err && errsize)
            snprintf(err, errsize, "the store is loaded at start-up, before it is started");
        return THUE_EINVAL;
    }
    return thue__db_load(&s->db, account, rating, tournament, ctx, err, errsize);
}

int thue_store_tournament_game(thue_store *s, const char *tournament, int round,
                               const char *first, const char *second, int *winner)
{
    if (s == NULL || s->started || tournament == NULL || first == NULL || second == NULL ||
        winner == NULL)
        return THUE_EINVAL;
    return thue__db_tournament_game(&s->db, tournament, round, first, second, winner);
}

int thue_store_load_tokens(thue_store *s,
                           void (*token)(void *ctx, int64_t account, const unsigned char hash[32]),
                           void *ctx, char *err, size_t errsize)
{
    if (s == NULL || s->started) {
        if (err && errsize)
            snprintf(err, errsize, "the store is loaded at start-up, before it is started");
        return THUE_EINVAL;
    }
    return thue__db_load_tokens(&s->db, token, ctx, err, errsize);
}

int thue_store_start(thue_store *s, uv_loop_t *loop)
{
    if (s == NULL || loop == NULL || s->started)
        return THUE_EINVAL;
    /* jansson's hash seed, before the store thread makes objects. */
    thue_codec_init();
    s->loop = loop;
    if (uv_thread_create(&s->thread, store_thread, s) != 0) {
        thue_log(THUE_LOG_ERROR, "store: cannot start the store thread");
        return THUE_ENOMEM;
    }
    /* After the thread, so that a failure here needs no loop iteration to undo; the
     * thread signals nothing before a job is queued or the store stops. */
    if (uv_async_init(loop, &s->async, on_async) != 0) {
        uv_mutex_lock(&s->lock);
        s->stopping = 1;
        uv_cond_signal(&s->wake);
        uv_mutex_unlock(&s->lock);
        uv_thread_join(&s->thread);
        s->stopping = s->exited = 0; /* back to "opened, not started" */
        thue_log(THUE_LOG_ERROR, "store: cannot create the async handle");
        return THUE_ENOMEM;
    }
    s->async.data = s;
    s->started = 1;
    uv_unref((uv_handle_t *)&s->async); /* nothing pending yet */
    return 0;
}

/* ---- queueing ------------------------------------------------------------------------- */

static int can_queue(const thue_store *s)
{
    if (s == NULL)
        return THUE_EINVAL;
    if (!s->started || s->stopping)
        return THUE_STORE_ECLOSED;
    return 0;
}

static job *job_new(job_kind kind)
{
    job *j = calloc(1, sizeof *j);
    if (j)
        j->kind = kind;
    return j;
}

static void queue(thue_store *s, job *j)
{
    s->pending++;
    keep_alive(s);
    j->next = NULL;
    uv_mutex_lock(&s->lock);
    if (s->q_tail)
        s->q_tail->next = j;
    else
        s->q_head = j;
    s->q_tail = j;
    uv_cond_signal(&s->wake);
    uv_mutex_unlock(&s->lock);
}

/* A NUL within the array, and (nonempty) not at its start. */
#define TERMINATED(arr) (memchr((arr), '\0', sizeof(arr)) != NULL)
#define NONEMPTY(arr) (TERMINATED(arr) && (arr)[0] != '\0')

int thue_store_add_account(thue_store *s, const thue_account_row *row, thue_store_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (row == NULL || row->id < 0 || !NONEMPTY(row->name) || !TERMINATED(row->bot) ||
        (row->kind != THUE_KIND_ACCOUNT && row->kind != THUE_KIND_BOT))
        return THUE_EINVAL;
    job *j = job_new(JOB_ADD_ACCOUNT);
    if (j == NULL)
        return THUE_ENOMEM;
    j->account = *row;
    j->cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

static int match_valid(const thue_match_row *m)
{
    if (!NONEMPTY(m->id) || !TERMINATED(m->room) || !TERMINATED(m->tournament))
        return 0;
    if (thue_variant_name(m->opt.variant) == NULL ||
        thue_first_builder_name(m->opt.first) == NULL || m->winner < -1 || m->winner > 1)
        return 0;
    /* Thue's reason is an enumeration; another game's is its text, with its name, its
     * options object and the seat that was its player 0. */
    if (m->opt.has_game ? !NONEMPTY(m->why) || !NONEMPTY(m->opt.game) ||
                              !TERMINATED(m->opt.game_options) || m->gfirst < 0 || m->gfirst > 1
                        : thue_end_reason_name(m->reason) == NULL)
        return 0;
    for (int p = 0; p < 2; p++) {
        if (!TERMINATED(m->players[p].name) || !TERMINATED(m->bots[p]) ||
            thue_player_kind_name(m->players[p].kind) == NULL || m->accounts[p] < 0)
            return 0;
        const thue_round_info *r = &m->rounds[p];
        if (r->word_len < 0 || (r->word == NULL && r->word_len > 0) ||
            thue_round_end_name(r->end) == NULL)
            return 0;
    }
    if (m->nmoves < 0 || (m->nmoves > 0 && m->moves == NULL))
        return 0;
    /* Rated in the transaction: two accounts and their pool, a valid tau and window. */
    if (m->rate && (m->tau < THUE_GLICKO_TAU_MIN || m->tau > THUE_GLICKO_TAU_MAX ||
                    m->pair_max < 0 || (m->pair_max > 0 && m->pair_window_ms <= 0) ||
                    m->ratings[0].account <= 0 || m->ratings[1].account <= 0 ||
                    !NONEMPTY(m->ratings[0].game) || !NONEMPTY(m->ratings[0].pool) ||
                    !NONEMPTY(m->ratings[1].game) || !NONEMPTY(m->ratings[1].pool)))
        return 0;
    for (int i = 0; i < m->nmoves; i++) {
        const thue_move_row *mv = &m->moves[i];
        if (mv->round < 0 || mv->round > 1 || mv->seat < 0 || mv->seat > 1 || mv->ply < 0)
            return 0;
    }
    return 1;
}

int thue_store_save_match(thue_store *s, const thue_match_row *m, thue_store_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (m == NULL || !match_valid(m))
        return THUE_EINVAL;
    job *j = job_new(JOB_SAVE_MATCH);
    if (j == NULL)
        return THUE_ENOMEM;
    j->match = *m;
    if (m->nmoves > 0) {
        j->moves = malloc((size_t)m->nmoves * sizeof *j->moves);
        if (j->moves == NULL)
            goto oom;
        memcpy(j->moves, m->moves, (size_t)m->nmoves * sizeof *j->moves);
        for (int i = 0; i < m->nmoves; i++) /* the copy owns its own texts */
            j->moves[i].gmove = NULL;
        for (int i = 0; i < m->nmoves; i++)
            if (m->moves[i].gmove != NULL && (j->moves[i].gmove = strdup(m->moves[i].gmove)) == NULL)
                goto oom;
    }
    j->match.moves = j->moves;
    const char *gst[2] = {m->start_state, m->final_state};
    for (int i = 0; i < 2; i++)
        if (m->opt.has_game && gst[i] != NULL && (j->gstates[i] = strdup(gst[i])) == NULL)
            goto oom;
    j->match.start_state = j->gstates[0];
    j->match.final_state = j->gstates[1];
    for (int r = 0; r < 2; r++) {
        const thue_round_info *ri = &m->rounds[r];
        if (ri->word == NULL)
            continue;
        j->words[r] = malloc(ri->word_len > 0 ? (size_t)ri->word_len : 1);
        if (j->words[r] == NULL)
            goto oom;
        if (ri->word_len > 0)
            memcpy(j->words[r], ri->word, (size_t)ri->word_len);
        j->match.rounds[r].word = j->words[r];
    }
    j->cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
oom:
    job_free(j);
    return THUE_ENOMEM;
}

int thue_store_save_tournament(thue_store *s, const char *id, const char *state_json, int finished,
                               thue_store_cb cb, void *data)
{
    return thue_store_save_tournament_fenced(s, id, state_json, finished, "", 0, 0, cb, data);
}

int thue_store_save_tournament_fenced(thue_store *s, const char *id, const char *state_json,
                                      int finished, const char *node, int64_t fence,
                                      int64_t lease_ms, thue_store_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (id == NULL || id[0] == '\0' || state_json == NULL || node == NULL || fence < 0 ||
        lease_ms < 0)
        return THUE_EINVAL;
    job *j = job_new(JOB_SAVE_TOURNAMENT);
    if (j == NULL)
        return THUE_ENOMEM;
    j->key = strdup(id);
    j->state = strdup(state_json);
    j->node = strdup(node);
    if (j->key == NULL || j->state == NULL || j->node == NULL) {
        job_free(j);
        return THUE_ENOMEM;
    }
    j->fence = fence;
    j->lease_ms = lease_ms;
    j->finished = finished != 0;
    j->updated_ms = now_ms();
    j->cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

static int queue_read(thue_store *s, job_kind kind, const char *key, int64_t viewer, int page,
                      int per_page, thue_store_text_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (key == NULL)
        return THUE_EINVAL;
    job *j = job_new(kind);
    if (j == NULL)
        return THUE_ENOMEM;
    j->key = strdup(key);
    if (j->key == NULL) {
        job_free(j);
        return THUE_ENOMEM;
    }
    j->viewer = viewer < 0 ? -1 : viewer;
    j->page = page;
    j->per_page = per_page;
    j->text_cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

int thue_store_tournament_leases(thue_store *s, const char *node, int64_t lease_ms,
                                 thue_store_text_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (node == NULL || node[0] == '\0' || lease_ms <= 0)
        return THUE_EINVAL;
    job *j = job_new(JOB_LEASES);
    if (j == NULL)
        return THUE_ENOMEM;
    if ((j->node = strdup(node)) == NULL) {
        job_free(j);
        return THUE_ENOMEM;
    }
    j->lease_ms = lease_ms;
    j->text_cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

int thue_store_changes(thue_store *s, thue_store_text_cb cb, void *data)
{
    return queue_read(s, JOB_CHANGES, "", -1, 0, 0, cb, data);
}

int thue_store_match_json(thue_store *s, const char *id, thue_store_text_cb cb, void *data)
{
    return queue_read(s, JOB_MATCH_JSON, id, -1, 0, 0, cb, data);
}

int thue_store_match_json_as(thue_store *s, const char *id, int64_t viewer,
                             thue_store_text_cb cb, void *data)
{
    return queue_read(s, JOB_MATCH_JSON, id, viewer, 0, 0, cb, data);
}

#define PER_PAGE_MAX 1000

int thue_store_matches_json_as(thue_store *s, const char *player, int64_t viewer, int page,
                               int per_page, thue_store_text_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (page < 1 || per_page < 1 || per_page > PER_PAGE_MAX)
        return THUE_EINVAL;
    return queue_read(s, JOB_MATCHES_JSON, player, viewer, page, per_page, cb, data);
}

int thue_store_matches_game_json_as(thue_store *s, const char *player, const char *game,
                                    int64_t viewer, int page, int per_page, thue_store_text_cb cb,
                                    void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (page < 1 || per_page < 1 || per_page > PER_PAGE_MAX || player == NULL)
        return THUE_EINVAL;
    char *g = NULL;
    if (game != NULL && (g = strdup(game)) == NULL)
        return THUE_ENOMEM;
    /* queue_read hands the job to the store thread at once: the game must be in place
     * before, so the job is made here. */
    job *j = job_new(JOB_MATCHES_JSON);
    if (j == NULL || (j->key = strdup(player)) == NULL) {
        free(g);
        job_free(j);
        return THUE_ENOMEM;
    }
    j->game = g;
    j->viewer = viewer < 0 ? -1 : viewer;
    j->page = page;
    j->per_page = per_page;
    j->text_cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

int thue_store_matches_json(thue_store *s, const char *player, int page, int per_page,
                            thue_store_text_cb cb, void *data)
{
    return thue_store_matches_json_as(s, player, -1, page, per_page, cb, data);
}

int thue_store_moves_csv(thue_store *s, const char *id, thue_store_text_cb cb, void *data)
{
    return queue_read(s, JOB_MOVES_CSV, id, -1, 0, 0, cb, data);
}

int thue_store_moves_csv_as(thue_store *s, const char *id, int64_t viewer,
                            thue_store_text_cb cb, void *data)
{
    return queue_read(s, JOB_MOVES_CSV, id, viewer, 0, 0, cb, data);
}

/* ---- passwords and login tokens ------------------------------------------------------------ */

/* A hash of the form libsodium writes: 1..THUE_STORE_HASH_MAX-1 printable ASCII bytes. */
static int hash_ok(const char *h)
{
    if (h == NULL)
        return 0;
    size_t n = strnlen(h, THUE_STORE_HASH_MAX);
    if (n == 0 || n >= THUE_STORE_HASH_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (h[i] < 0x21 || h[i] > 0x7e)
            return 0;
    return 1;
}

int thue_store_password_get(thue_store *s, int64_t account, thue_store_hash_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (account < 0 || cb == NULL)
        return THUE_EINVAL;
    job *j = job_new(JOB_GET_PASSWORD);
    if (j == NULL)
        return THUE_ENOMEM;
    j->account_id = account;
    j->hash_cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

int thue_store_password_set(thue_store *s, int64_t account, const char *hash, const char *expect,
                            thue_store_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (account <= 0 || !hash_ok(hash) || (expect != NULL && !hash_ok(expect)))
        return THUE_EINVAL;
    job *j = job_new(JOB_SET_PASSWORD);
    if (j == NULL)
        return THUE_ENOMEM;
    j->account_id = account;
    memcpy(j->hash, hash, strlen(hash) + 1);
    if (expect != NULL) {
        memcpy(j->expect, expect, strlen(expect) + 1);
        j->has_expect = 1;
    }
    j->cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

int thue_store_add_token(thue_store *s, int64_t account, const unsigned char hash[32],
                         thue_store_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (account <= 0 || hash == NULL)
        return THUE_EINVAL;
    job *j = job_new(JOB_ADD_TOKEN);
    if (j == NULL)
        return THUE_ENOMEM;
    j->account_id = account;
    memcpy(j->token, hash, 32);
    j->updated_ms = now_ms();
    j->cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

/* ---- reviews --------------------------------------------------------------------------- */

int thue_store_save_review(thue_store *s, const char *match, const char *review,
                           thue_store_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (match == NULL || *match == '\0' || strlen(match) > THUE_PROTO_KEY_MAX || review == NULL)
        return THUE_EINVAL;
    job *j = job_new(JOB_SAVE_REVIEW);
    if (j == NULL)
        return THUE_ENOMEM;
    j->key = strdup(match);
    j->state = strdup(review);
    if (j->key == NULL || j->state == NULL) {
        job_free(j);
        return THUE_ENOMEM;
    }
    j->updated_ms = now_ms();
    j->cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

int thue_store_review_json_as(thue_store *s, const char *match, int64_t viewer,
                              thue_store_text_cb cb, void *data)
{
    return queue_read(s, JOB_REVIEW_JSON, match, viewer, 0, 0, cb, data);
}

/* ---- puzzles ------------------------------------------------------------------------- */

int thue_store_add_puzzle(thue_store *s, const thue_puzzle_row *row, thue_store_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (row == NULL || !NONEMPTY(row->game) || !TERMINATED(row->source) || row->options == NULL ||
        row->position == NULL || row->solution == NULL)
        return THUE_EINVAL;
    job *j = job_new(JOB_ADD_PUZZLE);
    if (j == NULL)
        return THUE_ENOMEM;
    j->puzzle = *row;
    j->ptext[0] = strdup(row->options);
    j->ptext[1] = strdup(row->position);
    j->ptext[2] = strdup(row->solution);
    if (j->ptext[0] == NULL || j->ptext[1] == NULL || j->ptext[2] == NULL) {
        job_free(j);
        return THUE_ENOMEM;
    }
    j->puzzle.options = j->ptext[0];
    j->puzzle.position = j->ptext[1];
    j->puzzle.solution = j->ptext[2];
    j->cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

int thue_store_puzzle_counts(thue_store *s, thue_store_text_cb cb, void *data)
{
    return queue_read(s, JOB_PUZZLE_COUNTS, "", -1, 0, 0, cb, data);
}

int thue_store_puzzles_json(thue_store *s, const char *game, int page, int per_page,
                            thue_store_text_cb cb, void *data)
{
    if (page < 1 || per_page < 1)
        return THUE_EINVAL;
    return queue_read(s, JOB_PUZZLES_JSON, game, -1, page, per_page, cb, data);
}

int thue_store_puzzle_json(thue_store *s, int64_t id, thue_store_text_cb cb, void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    job *j = job_new(JOB_PUZZLE_JSON);
    if (j == NULL)
        return THUE_ENOMEM;
    j->id = id;
    j->text_cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

int thue_store_puzzle_daily_json(thue_store *s, const char *game, const char *date,
                                 int64_t day_start_ms, uint64_t pick, thue_store_text_cb cb,
                                 void *data)
{
    int err = can_queue(s);
    if (err)
        return err;
    if (game == NULL || date == NULL)
        return THUE_EINVAL;
    job *j = job_new(JOB_PUZZLE_DAILY);
    if (j == NULL)
        return THUE_ENOMEM;
    j->key = strdup(game);
    j->state = strdup(date);
    if (j->key == NULL || j->state == NULL) {
        job_free(j);
        return THUE_ENOMEM;
    }
    j->updated_ms = day_start_ms;
    j->pick = pick;
    j->text_cb = cb;
    j->data = data;
    queue(s, j);
    return 0;
}

/* ---- closing ------------------------------------------------------------------------- */

void thue_store_close(thue_store *s, void (*closed)(void *data), void *data)
{
    if (s == NULL || !s->started) {
        if (s)
            store_free(s);
        if (closed)
            closed(data);
        return;
    }
    assert(!s->stopping && "thue_store_close called twice");
    s->closed = closed;
    s->closed_data = data;
    uv_mutex_lock(&s->lock);
    s->stopping = 1;
    uv_cond_signal(&s->wake);
    uv_mutex_unlock(&s->lock);
    keep_alive(s);
}

void thue_store_crash_in_job(thue_store *s, int n)
{
    if (s)
        atomic_store(&s->crash_at, n);
}

void thue_store_lose_commit_reply(thue_store *s)
{
    if (s)
        atomic_store(&s->lose_commit, 1);
}

void thue_store_fail_writes(thue_store *s, int on)
{
    if (s)
        atomic_store(&s->fail_writes, on != 0);
}

void thue_store_health_get(thue_store *s, thue_store_health *out)
{
    memset(out, 0, sizeof *out);
    if (s == NULL)
        return;
    out->failing = atomic_load(&s->failing);
    out->writes_waiting = atomic_load(&s->writes_waiting);
    out->write_failures = atomic_load(&s->write_failures);
}

