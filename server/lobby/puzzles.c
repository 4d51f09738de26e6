/*
 * puzzles.c: the puzzle service (puzzles.h). At start (after a delay) it asks the store
 * for every game's count of puzzles; then for each game that has fewer than the target,
 * in the registry's order, it runs generation tasks on the pool, one at a time: a task
 * plays random games from a fresh seed until it has what the game lacks or its time is up;
 * its puzzles are written, and when the last write has answered, the next task starts
 * (the same game while it lacks puzzles and has tasks left, else the next game). The
 * store keeps a position once (a repeat answers id 0), so the count grows by the writes
 * that answered with an id.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "base/rng.h"
#include "lobby/puzzles.h"
#include "log.h"
#include "search/puzzle.h"

#define BATCH_MAX 64

typedef struct gen_task gen_task;

struct thue_puzzles {
    uv_loop_t *loop;
    thue_pool *pool;
    thue_store *store;
    uv_timer_t timer;
    int target;
    int stopping;
    int game;       /* index in the registry being generated; -1 before the counts */
    int counts[32]; /* stored puzzles per game, by registry index */
    int tasks;      /* tasks run for the current game */
    int writes;     /* writes not yet answered */
    int busy;       /* a task or its writes are under way */
    uint64_t seed;
};

struct gen_task {
    thue_puzzles *pz;
    const thue_gamedef *g;
    int gindex;
    uint64_t seed;
    int want, found, err;
    thue_puzzle_item items[BATCH_MAX];
    /* an offered position (thue_puzzles_offer): checked alone */
    int offer;
    thue_gopt opt;
    unsigned char *state;
    char match[THUE_PROTO_KEY_MAX + 1];
};

static void next_task(thue_puzzles *pz);

static void task_free(gen_task *t)
{
    for (int i = 0; i < t->found; i++)
        thue_puzzle_item_free(&t->items[i]);
    free(t->state);
    free(t);
}

static int run_task(void *data, const thue_bot_limits *lim)
{
    gen_task *t = data;
    thue_bot_limits own = *lim;
    own.deadline_ns = thue_now_ns() + (int64_t)THUE_PUZZLES_TASK_MS * 1000000;
    if (t->offer) {
        thue_puzzle p;
        int r = thue_puzzle_check(t->g, &t->opt, t->state, &own, &p);
        if (r < 0)
            return r;
        if (r == 0)
            return 0;
        thue_puzzle_item *it = &t->items[0];
        it->options = thue_game_dump(t->g->options_json(&t->opt));
        it->position = thue_game_dump(t->g->state_json(&t->opt, t->state));
        it->solution = thue_game_dump(t->g->move_json(&t->opt, &p.solution));
        it->p = p;
        t->found = 1;
        return it->options && it->position && it->solution ? 0 : THUE_ENOMEM;
    }
    return thue_puzzle_generate(t->g, t->seed, 1000000, &own, t->items, t->want, &t->found);
}

static void stored(int err, int64_t id, void *data)
{
    gen_task *t = data;
    thue_puzzles *pz = t->pz;
    if (err == 0 && id > 0 && t->gindex >= 0 && t->gindex < 32)
        pz->counts[t->gindex]++;
    if (--t->err > 0) /* err counts the writes of this task still to answer */
        return;
    int offer = t->offer;
    if (!offer) {
        thue_log(THUE_LOG_INFO, "puzzles: %s: %d in the store (target %d)", t->g->name,
                 pz->counts[t->gindex], pz->target);
        pz->busy = 0;
    }
    task_free(t);
    if (!offer)
        next_task(pz);
}

static void task_done(uint64_t id, int err, void *data)
{
    (void)id;
    gen_task *t = data;
    thue_puzzles *pz = t->pz;
    if (err != 0)
        thue_log(THUE_LOG_WARN, "puzzles: %s: generation failed (%s)", t->g->name,
                 thue_strerror(err));
    int n = pz->stopping || pz->store == NULL ? 0 : t->found, queued = 0;
    t->err = n; /* reused: writes to wait for */
    for (int i = 0; i < n; i++) {
        thue_puzzle_item *it = &t->items[i];
        thue_puzzle_row row;
        memset(&row, 0, sizeof row);
        snprintf(row.game, sizeof row.game, "%s", t->g->name);
        row.options = it->options;
        row.position = it->position;
        row.solution = it->solution;
        row.to_move = it->p.mover;
        row.value = it->p.value;
        row.moves = it->p.moves;
        row.plies = it->p.line;
        row.difficulty = it->p.difficulty;
        if (t->offer)
            snprintf(row.source, sizeof row.source, "match:%s", t->match);
        else
            snprintf(row.source, sizeof row.source, "seed:%llu", (unsigned long long)it->seed);
        if (thue_store_add_puzzle(pz->store, &row, stored, t) == 0)
            queued++;
        else
            t->err--;
    }
    if (queued > 0)
        return; /* the last write's answer goes on */
    int offer = t->offer;
    if (!offer)
        pz->busy = 0;
    task_free(t);
    if (!offer)
        next_task(pz);
}

static int submit(thue_puzzles *pz, gen_task *t)
{
    thue_pool_task task = {run_task, task_done, "puzzles", t};
    uint64_t id;
    return thue_pool_submit_task(pz->pool, &task, &id);
}

/* Starts the next generation task, or ends when every game has its target. */
static void next_task(thue_puzzles *pz)
{
    if (pz->stopping || pz->busy || pz->game < 0)
        return;
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    for (; pz->game < n && pz->game < 32; pz->game++, pz->tasks = 0) {
        const thue_gamedef *g = list[pz->game];
        int sets;
        if (thue_puzzle_option_sets(g, &sets) == NULL || pz->counts[pz->game] >= pz->target)
            continue;
        if (pz->tasks >= THUE_PUZZLES_TASKS_MAX) {
            thue_log(THUE_LOG_WARN, "puzzles: %s: %d of %d after %d tasks; giving up for now",
                     g->name, pz->counts[pz->game], pz->target, pz->tasks);
            continue;
        }
        gen_task *t = calloc(1, sizeof *t);
        if (t == NULL)
            return;
        t->pz = pz;
        t->g = g;
        t->gindex = pz->game;
        t->seed = thue_splitmix64(&pz->seed);
        t->want = pz->target - pz->counts[pz->game];
        if (t->want > BATCH_MAX)
            t->want = BATCH_MAX;
        pz->tasks++;
        if (submit(pz, t) != 0) {
            free(t);
            return;
        }
        pz->busy = 1;
        return;
    }
    thue_log(THUE_LOG_INFO, "puzzles: every game has its puzzles");
}

static void counted(int status, char *body, size_t len, void *data)
{
    thue_puzzles *pz = data;
    json_t *j = status == 200 ? json_loadb(body, len, 0, NULL) : NULL;
    free(body);
    if (j == NULL) {
        thue_log(THUE_LOG_WARN, "puzzles: cannot count the stored puzzles; none generated");
        return;
    }
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    for (int i = 0; i < n && i < 32; i++)
        pz->counts[i] = (int)json_integer_value(json_object_get(j, list[i]->name));
    json_decref(j);
    pz->game = 0;
    next_task(pz);
}

static void on_timer(uv_timer_t *h)
{
    thue_puzzles *pz = h->data;
    if (pz->stopping || pz->store == NULL)
        return;
    if (thue_store_puzzle_counts(pz->store, counted, pz) != 0)
        thue_log(THUE_LOG_WARN, "puzzles: the store is not available; none generated");
}

thue_puzzles *thue_puzzles_start(uv_loop_t *loop, thue_pool *pool, thue_store *store, int target,
                                 int after_ms)
{
    thue_puzzles *pz = calloc(1, sizeof *pz);
    if (pz == NULL)
        return NULL;
    pz->loop = loop;
    pz->pool = pool;
    pz->store = store;
    pz->target = target;
    pz->game = -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pz->seed = thue_mix64((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
    uv_timer_init(loop, &pz->timer);
    pz->timer.data = pz;
    if (target > 0 && store != NULL) {
        uv_timer_start(&pz->timer, on_timer, after_ms > 0 ? (uint64_t)after_ms : 0, 0);
        uv_unref((uv_handle_t *)&pz->timer);
    }
    return pz;
}

int thue_puzzles_offer(thue_puzzles *pz, const thue_gamedef *g, const thue_gopt *opt,
                       const void *st, const char *match_id)
{
    int sets;
    if (pz == NULL || pz->stopping || pz->store == NULL || g == NULL || opt == NULL || st == NULL ||
        match_id == NULL || thue_puzzle_option_sets(g, &sets) == NULL ||
        strcmp(g->name, "thue") == 0) /* Thue's positions are not a game state's */
        return THUE_EINVAL;
    gen_task *t = calloc(1, sizeof *t);
    size_t size = g->state_size(opt);
    if (t == NULL || (t->state = malloc(size ? size : 1)) == NULL) {
        free(t);
        return THUE_ENOMEM;
    }
    memcpy(t->state, st, size);
    t->pz = pz;
    t->g = g;
    t->gindex = -1;
    t->offer = 1;
    t->opt = *opt;
    snprintf(t->match, sizeof t->match, "%s", match_id);
    int err = submit(pz, t);
    if (err != 0)
        task_free(t);
    return err;
}

void thue_puzzles_stop(thue_puzzles *pz)
{
    if (pz == NULL)
        return;
    pz->stopping = 1;
    pz->store = NULL;
    uv_timer_stop(&pz->timer);
}

static void timer_closed(uv_handle_t *h)
{
    free(h->data);
}

void thue_puzzles_free(thue_puzzles *pz)
{
    if (pz == NULL)
        return;
    thue_puzzles_stop(pz);
    uv_close((uv_handle_t *)&pz->timer, timer_closed);
}
