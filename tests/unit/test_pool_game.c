/*
 * test_pool_game.c: game jobs in the worker pool (pool.h's thue_pool_submit_game), beside
 * Thue jobs.
 *
 * As in test_pool.c, every test runs its own loop and pool, blocks only by running the
 * loop or polling the counters (yielding the CPU, never sleeping), and asserts no
 * duration. The reference for a delivered game move is thue_gbot_choose on the test
 * thread: with no time limit a search is deterministic, and pausing it (the pool's time
 * slices) changes when it computes, not what.
 *
 * Blockers hold a slot until cancelled: a game blocker is uct with iterations=0 and a
 * day of time (it stops only on its flag), a Thue blocker is perfect play for k = 6
 * from the word 0 with no length limit (test_pool.c's).
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

#include "base/errors.h"
#include "games/game.h"
#include "games/nim/nim.h"
#include "games/thue/bots/bot.h"
#include "search/gbot.h"
#include "search/pool.h"

#include "pool_order.h"

#define SLOTS_MAX 128

typedef struct tctx tctx;

typedef struct slot {
    tctx *t;
    uint64_t id;
    int calls;
    int order;
    int is_game;
    thue_game_job_result gres;
    thue_job_result res;
    thue_nim_state st;
    thue_gbot_spec spec;
    uint64_t seed;
    uint8_t word[8];
} slot;

struct tctx {
    uv_loop_t loop;
    thue_pool *pool;
    thue_gopt opt; /* Nim, heaps [8,8,8,8] */
    int delivered;
    int forbidden;
    int closed;
    int cancel_after; /* game deliveries after which `blocker` is cancelled; 0: never */
    slot *blocker;
    slot slots[SLOTS_MAX];
    int nslots;
};

static const thue_gamedef *nim(void)
{
    const thue_gamedef *g = thue_game_find("nim");
    assert_non_null(g);
    return g;
}

static void setup_config(tctx *t, const thue_pool_config *cfg)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(uv_loop_init(&t->loop), 0);
    t->pool = thue_pool_new_config(&t->loop, cfg);
    assert_non_null(t->pool);
    thue_gerr e;
    assert_int_equal(thue_game_options_text(nim(), "{\"heaps\":[8,8,8,8]}", &t->opt, &e), 0);
}

static void on_closed(void *data)
{
    ((tctx *)data)->closed++;
}

static void teardown(tctx *t)
{
    thue_pool_close(t->pool, on_closed, t);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(t->closed, 1);
    assert_int_equal(uv_loop_close(&t->loop), 0);
    assert_int_equal(t->forbidden, 0);
    free(t);
}

static slot *new_slot(tctx *t)
{
    assert_true(t->nslots < SLOTS_MAX);
    slot *s = &t->slots[t->nslots++];
    memset(s, 0, sizeof *s);
    s->t = t;
    return s;
}

static void game_cb(const thue_game_job_result *res, void *data)
{
    slot *s = data;
    s->calls++;
    s->order = s->t->delivered++;
    s->gres = *res;
    tctx *t = s->t;
    if (t->cancel_after > 0 && t->delivered == t->cancel_after && t->blocker != NULL)
        assert_int_equal(thue_pool_cancel(t->pool, t->blocker->id), 0);
}

static void thue_cb(const thue_job_result *res, void *data)
{
    slot *s = data;
    s->calls++;
    s->order = s->t->delivered++;
    s->res = *res;
}

static void forbidden_game_cb(const thue_game_job_result *res, void *data)
{
    (void)res;
    ((slot *)data)->t->forbidden++;
}

static void forbidden_thue_cb(const thue_job_result *res, void *data)
{
    (void)res;
    ((slot *)data)->t->forbidden++;
}

static thue_gbot_spec spec_of(const char *text)
{
    thue_gbot_spec s;
    char err[160];
    if (thue_gbot_spec_parse(nim(), text, &s, err, sizeof err) != 0)
        fail_msg("spec %s: %s", text, err);
    return s;
}

static const char *next_owner;

static slot *submit_game(tctx *t, const int *heaps, int n, const char *spec, uint64_t seed,
                         void (*cb)(const thue_game_job_result *, void *))
{
    slot *s = new_slot(t);
    s->is_game = 1;
    memset(&s->st, 0, sizeof s->st);
    s->st.n = n;
    for (int i = 0; i < n; i++)
        s->st.heaps[i] = heaps[i];
    s->spec = spec_of(spec);
    s->seed = seed;
    thue_game_job_request req;
    memset(&req, 0, sizeof req);
    req.game = nim();
    req.opt = t->opt;
    req.state = &s->st;
    req.spec = s->spec;
    req.seed = seed;
    req.owner = next_owner;
    req.cb = cb;
    req.data = s;
    assert_int_equal(thue_pool_submit_game(t->pool, &req, &s->id), 0);
    return s;
}

static slot *submit_game_blocker(tctx *t)
{
    static const int heaps[4] = {8, 8, 8, 8};
    return submit_game(t, heaps, 4, "uct:iterations=0,ms=86400000", 1, forbidden_game_cb);
}

static slot *submit_thue(tctx *t, const char *spec_text, const uint8_t *w, int n, int k,
                         void (*cb)(const thue_job_result *, void *))
{
    slot *s = new_slot(t);
    memcpy(s->word, w, (size_t)n);
    thue_job_request req;
    memset(&req, 0, sizeof req);
    assert_int_equal(thue_bot_spec_parse(spec_text, &req.spec, NULL, 0), 0);
    req.pos = (thue_position){THUE_SQUARE, k, s->word, n, THUE_ROLE_BUILDER, 0, 0};
    req.seed = 7;
    req.parts = 1;
    req.owner = next_owner;
    req.cb = cb;
    req.data = s;
    assert_int_equal(thue_pool_submit(t->pool, &req, &s->id), 0);
    return s;
}

static slot *submit_thue_blocker(tctx *t)
{
    static const uint8_t zero[1] = {0};
    return submit_thue(t, "perfect", zero, 1, 6, forbidden_thue_cb);
}

/* The delivered move is thue_gbot_choose's, and legal. */
static void check_game_slot(const tctx *t, const slot *s)
{
    assert_int_equal(s->calls, 1);
    assert_int_equal(s->gres.id, s->id);
    assert_int_equal(s->gres.err, 0);
    thue_gbot_result want;
    atomic_int never = 0;
    thue_bot_limits lim = {0};
    lim.stop = &never;
    assert_int_equal(thue_gbot_choose(nim(), &t->opt, &s->st, &s->spec, s->seed, &lim, &want), 0);
    assert_memory_equal(&want.move, &s->gres.bot.move, sizeof want.move);
    assert_int_equal(want.nodes, s->gres.bot.nodes);
    assert_int_equal(want.iterations, s->gres.bot.iterations);
    assert_int_equal(want.value, s->gres.bot.value);
    thue_nim_state after = s->st;
    assert_int_equal(nim()->apply(&t->opt, &after, 0, &s->gres.bot.move, NULL), 0);
    assert_true(s->gres.queue_ms >= 0 && s->gres.run_ms >= 0);
}

/* ---- tests ------------------------------------------------------------------------------ */

/* Many game jobs on two threads, every bot: each delivered once, with the move the bot
 * makes on the test thread. */
static void test_pool_game_jobs_complete(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 2};
    setup_config(t, &cfg);
    static const char *specs[] = {"random", "uct:iterations=3000,playout=30", "perfect",
                                  "uct:iterations=500,c=0.5"};
    uint64_t rng = 5;
    for (int i = 0; i < 40; i++) {
        int heaps[4], total = 0;
        for (int h = 0; h < 4; h++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            heaps[h] = (int)((rng >> 33) % 9);
            total += heaps[h];
        }
        if (total == 0)
            heaps[0] = 1;
        next_owner = i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : NULL;
        submit_game(t, heaps, 4, specs[i % 4], (uint64_t)i, game_cb);
    }
    next_owner = NULL;
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(t->delivered, 40);
    for (int i = 0; i < 40; i++)
        check_game_slot(t, &t->slots[i]);
    thue_pool_stats st;
    thue_pool_stats_get(t->pool, &st);
    assert_int_equal(st.completed, 40);
    assert_int_equal(st.failed, 0);
    teardown(t);
}

/* Bad requests are refused at once; a position that is over comes back as THUE_EOVER. */
static void test_pool_game_bad_and_over(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 1};
    setup_config(t, &cfg);
    thue_nim_state st;
    memset(&st, 0, sizeof st);
    st.n = 2;
    thue_game_job_request req;
    memset(&req, 0, sizeof req);
    req.game = nim();
    req.opt = t->opt;
    req.state = &st;
    req.spec = spec_of("random");
    uint64_t id = 0;
    assert_int_equal(thue_pool_submit_game(t->pool, &req, &id), THUE_EINVAL); /* no cb */
    slot *s = new_slot(t);
    req.cb = game_cb;
    req.data = s;
    req.state = NULL;
    assert_int_equal(thue_pool_submit_game(t->pool, &req, &id), THUE_EINVAL);
    req.state = &st;
    req.game = NULL;
    assert_int_equal(thue_pool_submit_game(t->pool, &req, &id), THUE_EINVAL);
    thue_gamedef unsolvable = *nim();
    unsolvable.perfect = NULL;
    unsolvable.flags = 0;
    req.game = &unsolvable;
    req.spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    assert_int_equal(thue_pool_submit_game(t->pool, &req, &id), THUE_EINVAL);
    req.game = nim();
    req.spec.kind = THUE_GBOT_UCT;
    req.spec.playout_limit = 0;
    assert_int_equal(thue_pool_submit_game(t->pool, &req, &id), THUE_EINVAL);
    req.spec = spec_of("perfect");
    char longname[THUE_POOL_OWNER_MAX + 2];
    memset(longname, 'o', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    req.owner = longname;
    assert_int_equal(thue_pool_submit_game(t->pool, &req, &id), THUE_EINVAL);
    req.owner = NULL;
    assert_int_equal(t->nslots, 1);
    /* Over: the callback says so. The request's state is copied: changing it now
     * changes nothing. */
    assert_int_equal(thue_pool_submit_game(t->pool, &req, &s->id), 0);
    st.heaps[0] = 5;
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(s->calls, 1);
    assert_int_equal(s->gres.err, THUE_EOVER);
    thue_pool_stats ps;
    thue_pool_stats_get(t->pool, &ps);
    assert_int_equal(ps.failed, 1);
    teardown(t);
}

/* Cancelling a running and a queued game job: neither callback runs, the loop ends. */
static void test_pool_game_cancel(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 1, .slice_ms = 10000};
    setup_config(t, &cfg);
    slot *running = submit_game_blocker(t);
    wait_counts(t->pool, 0, 1);
    static const int heaps[2] = {3, 4};
    slot *queued = submit_game(t, heaps, 2, "perfect", 1, forbidden_game_cb);
    wait_counts(t->pool, 1, 1);
    assert_int_equal(thue_pool_cancel(t->pool, queued->id), 0);
    assert_int_equal(thue_pool_cancel(t->pool, queued->id), THUE_EINVAL);
    wait_counts(t->pool, 0, 1);
    assert_int_equal(thue_pool_cancel(t->pool, running->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    wait_counts(t->pool, 0, 0);
    /* A job submitted afterwards runs as usual. */
    slot *after = submit_game(t, heaps, 2, "perfect", 1, game_cb);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    check_game_slot(t, after);
    assert_int_equal(after->gres.bot.value, 1);
    thue_pool_stats st;
    thue_pool_stats_get(t->pool, &st);
    assert_int_equal(st.cancelled, 2);
    assert_int_equal(st.completed, 1);
    teardown(t);
}

/* One slot, the default slice: a Thue search that never ends pauses for game jobs of
 * another owner, which all complete with their moves; and a game search that never ends
 * pauses for a Thue job, which completes with thue_bot_move's move. */
static void test_pool_game_and_thue_interleave(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 1};
    setup_config(t, &cfg);
    next_owner = "thue-player";
    t->blocker = submit_thue_blocker(t);
    wait_counts(t->pool, 0, 1);
    next_owner = "game-player";
    static const int heaps[4] = {8, 7, 6, 5};
    for (int i = 0; i < 6; i++)
        submit_game(t, heaps, 4, i % 2 ? "uct:iterations=20000" : "perfect", (uint64_t)i, game_cb);
    t->cancel_after = 6; /* the last game delivery cancels the Thue blocker */
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    for (int i = 1; i <= 6; i++)
        check_game_slot(t, &t->slots[i]);
    thue_pool_stats st;
    thue_pool_stats_get(t->pool, &st);
    assert_true(st.pauses >= 1);
    teardown(t);

    t = malloc(sizeof *t);
    setup_config(t, &cfg);
    next_owner = "game-player";
    slot *gb = submit_game_blocker(t);
    wait_counts(t->pool, 0, 1);
    next_owner = "thue-player";
    static const uint8_t w[6] = {0, 1, 2, 0, 1, 0};
    slot *tj = submit_thue(t, "nested:2", w, 6, 3, thue_cb);
    next_owner = NULL;
    /* Run the loop until the Thue job is delivered (the blocker keeps it alive). */
    while (tj->calls == 0)
        uv_run(&t->loop, UV_RUN_ONCE);
    assert_int_equal(tj->res.err, 0);
    thue_bot_spec spec;
    assert_int_equal(thue_bot_spec_parse("nested:2", &spec, NULL, 0), 0);
    thue_position pos = {THUE_SQUARE, 3, w, 6, THUE_ROLE_BUILDER, 0, 0};
    thue_bot_result want;
    atomic_int never = 0;
    thue_bot_limits lim = {0};
    lim.stop = &never;
    assert_int_equal(thue_bot_move(&spec, &pos, &lim, 7, &want), 0);
    assert_int_equal(tj->res.bot.move, want.move);
    assert_int_equal(tj->res.bot.nodes, want.nodes);
    assert_int_equal(gb->calls, 0);
    assert_int_equal(thue_pool_cancel(t->pool, gb->id), 0);
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    teardown(t);
}

/* One slot held by a game blocker while owners queue game and Thue jobs mixed: once it
 * is cancelled they run in the naive round-robin order over owners, whatever the kind. */
static void test_pool_game_owners_fair(void **state)
{
    (void)state;
    static const char *names[4] = {"acct:1", "ip:203.0.113.7", "tour:t1", ""};
    uint64_t rng = 42;
    for (int round = 0; round < 3; round++) {
        tctx *t = malloc(sizeof *t);
        thue_pool_config cfg = {.threads = 1, .slice_ms = 10000};
        setup_config(t, &cfg);
        next_owner = "blocker";
        slot *blocker = submit_game_blocker(t);
        wait_counts(t->pool, 0, 1);
        int n = 12 + (int)(rng % 20), owner_of[64];
        for (int j = 0; j < n; j++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            /* round 0: one owner's backlog, then one job each of the others */
            owner_of[j] = round == 0 ? (j < n - 3 ? 0 : j - (n - 3) + 1) : (int)((rng >> 33) % 4);
            next_owner = names[owner_of[j]];
            if ((rng >> 40) % 2) {
                static const int heaps[3] = {2, 3, 1};
                submit_game(t, heaps, 3, "random", (uint64_t)j, game_cb);
            } else {
                static const uint8_t w[3] = {0, 1, 0};
                submit_thue(t, "greedy", w, 3, 3, thue_cb);
            }
        }
        next_owner = NULL;
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
            if (s->is_game)
                check_game_slot(t, s);
            else
                assert_int_equal(s->res.err, 0);
        }
        teardown(t);
    }
}

/* Closing with game jobs running and queued: no callback runs, nothing leaks. */
static void test_pool_game_close_in_flight(void **state)
{
    (void)state;
    tctx *t = malloc(sizeof *t);
    thue_pool_config cfg = {.threads = 1, .slice_ms = 10000};
    setup_config(t, &cfg);
    submit_game_blocker(t);
    wait_counts(t->pool, 0, 1);
    static const int heaps[2] = {3, 4};
    submit_game(t, heaps, 2, "perfect", 1, forbidden_game_cb);
    teardown(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_game_jobs_complete),
        cmocka_unit_test(test_pool_game_bad_and_over),
        cmocka_unit_test(test_pool_game_cancel),
        cmocka_unit_test(test_pool_game_and_thue_interleave),
        cmocka_unit_test(test_pool_game_owners_fair),
        cmocka_unit_test(test_pool_game_close_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
