/*
 * test_search_bounds.c: every search answers a pause or a stop within a bound measured
 * in time, whatever the game, its options or the bot (docs/bots.md, "Bounded searches").
 *
 * Each bot of each game searches a position of the game's largest options that the
 * server lets a bot search (the game's own option ranges, and --search-moves-max's
 * default for Rims), with the pool's pause hook replaced by one that records when it is
 * offered: the longest stretch of CPU time between two polls (from the start to the
 * first, and from the last to the return included) is how long the search could make a
 * pause or a stop request wait. CPU time of the searching thread, not wall time, so that
 * a busy machine does not stretch the figure; the bound asserted is five times the
 * ~20 ms target, for sanitizer builds. The figures are printed.
 *
 * Also: a stop flag raised from another thread ends the search at its next poll, and a
 * search of the same position with a node budget gives the same move and nodes as
 * before the polls were paced by time (the pace never changes what is computed).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "base/errors.h"
#include "games/game.h"
#include "games/thue/bots/bot.h"
#include "search/gbot.h"
#include "search/limits.h"

/* The target of the issue is ~20 ms; sanitizers make searches 2-3x slower. */
#define GAP_BOUND_NS (100 * 1000000LL)
#define THINK_MS 300

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef struct gaps {
    int64_t last, max;
    long polls;
} gaps;

static int record(void *arg, int64_t now)
{
    (void)now;
    gaps *g = arg;
    int64_t t = cpu_ns();
    if (t - g->last > g->max)
        g->max = t - g->last;
    g->last = t;
    g->polls++;
    return 0;
}

static void gaps_start(gaps *g)
{
    memset(g, 0, sizeof *g);
    g->last = cpu_ns();
}

static void gaps_end(gaps *g)
{
    record(g, 0);
    g->polls--;
}

static void check(const char *what, const gaps *g)
{
    printf("  %-58s polls %7ld, longest gap %7.2f ms\n", what, g->polls, (double)g->max / 1e6);
    if (g->max > GAP_BOUND_NS)
        fail_msg("%s: %.1f ms of CPU between two polls (bound %lld ms)", what,
                 (double)g->max / 1e6, GAP_BOUND_NS / 1000000);
}

/* ---- other games ------------------------------------------------------------------------ */

static const thue_gamedef *game(const char *name)
{
    const thue_gamedef *g = thue_game_find(name);
    assert_non_null(g);
    return g;
}

static void *position(const thue_gamedef *g, const thue_gopt *opt, const char *pos_json)
{
    void *st = calloc(1, g->state_size(opt) + 1);
    assert_non_null(st);
    if (pos_json == NULL) {
        g->start(opt, 7, st);
        return st;
    }
    json_error_t je;
    json_t *j = json_loads(pos_json, 0, &je);
    assert_non_null(j);
    thue_gerr e;
    if (g->position_parse(opt, j, st, &e) != 0)
        fail_msg("%s position %s: %s", g->name, pos_json, e.msg);
    json_decref(j);
    return st;
}

/* Runs spec on the position under THINK_MS with the recording hook. */
static void run_gbot(const char *name, const char *opts, const char *pos_json, const char *spec_text)
{
    const thue_gamedef *g = game(name);
    thue_gopt opt;
    thue_gerr e;
    if (thue_game_options_text(g, opts, &opt, &e) != 0)
        fail_msg("%s %s: %s", name, opts, e.msg);
    void *st = position(g, &opt, pos_json);
    thue_gbot_spec spec;
    char why[200];
    if (thue_gbot_spec_parse(g, spec_text, &spec, why, sizeof why) != 0)
        fail_msg("%s: %s", spec_text, why);
    spec.legal_if_undecided = 1;
    gaps gp;
    thue_bot_limits lim = {0};
    lim.think_ms = THINK_MS;
    lim.yield = record;
    lim.yield_arg = &gp;
    thue_gbot_result res;
    gaps_start(&gp);
    int err = thue_gbot_choose(g, &opt, st, &spec, 1, &lim, &res);
    gaps_end(&gp);
    assert_int_equal(err, 0);
    char what[160];
    snprintf(what, sizeof what, "%s %s %s", name, opts, spec_text);
    check(what, &gp);
    free(st);
}

/* The largest n such that 16 Rims heaps of n have at most `moves` legal moves. */
static int rims_heap_for(int moves)
{
    const thue_gamedef *g = game("rims");
    int n = 1;
    for (int h = 1; h <= 1000; h++) {
        char opts[200];
        int len = snprintf(opts, sizeof opts, "{\"heaps\":[");
        for (int i = 0; i < 16; i++)
            len += snprintf(opts + len, sizeof opts - (size_t)len, "%s%d", i ? "," : "", h);
        snprintf(opts + len, sizeof opts - (size_t)len, "]}");
        thue_gopt opt;
        thue_gerr e;
        assert_int_equal(thue_game_options_text(g, opts, &opt, &e), 0);
        if (g->max_moves(&opt) > moves)
            break;
        n = h;
    }
    return n;
}

static void heaps_json(char *out, size_t size, int n, int h)
{
    int len = snprintf(out, size, "{\"heaps\":[");
    for (int i = 0; i < n; i++)
        len += snprintf(out + len, size - (size_t)len, "%s%d", i ? "," : "", h);
    snprintf(out + len, size - (size_t)len, "]}");
}

static void test_bounds_heap_games(void **state)
{
    (void)state;
    char opts[200];
    heaps_json(opts, sizeof opts, 16, 1000);
    run_gbot("nim", opts, NULL, "uct:iterations=0,ms=60000");
    run_gbot("nim", opts, NULL, "perfect");
    /* Rims at the largest heaps --search-moves-max (100000) allows. */
    heaps_json(opts, sizeof opts, 16, rims_heap_for(100000));
    run_gbot("rims", opts, NULL, "uct:iterations=0,ms=60000");
    run_gbot("rims", opts, NULL, "perfect");
    run_gbot("rims", opts, NULL, "random");
    run_gbot("wythoff", "{\"a\":1000,\"heaps\":[9007199254740991,9007199254740991]}", NULL,
             "uct:iterations=0,ms=60000");
    run_gbot("wythoff", "{\"a\":1000,\"heaps\":[9007199254740991,9007199254740991]}", NULL,
             "perfect");
}

static void test_bounds_board_games(void **state)
{
    (void)state;
    run_gbot("northcott", "{\"rows\":16,\"cols\":32}", NULL, "uct:iterations=0,ms=60000");
    run_gbot("northcott", "{\"rows\":16,\"cols\":32}", NULL, "perfect");
    run_gbot("circle", "{\"fields\":64,\"white\":20,\"black\":20}", NULL, "uct:iterations=0,ms=60000");
    run_gbot("circle", "{\"fields\":64,\"white\":20,\"black\":20}", NULL, "perfect");
}

static void test_bounds_dots(void **state)
{
    (void)state;
    const char *big = "{\"rows\":10,\"cols\":10}";
    run_gbot("dots", big, NULL, "uct:iterations=0,ms=60000");
    run_gbot("dots", big, NULL, "heuristic");
    run_gbot("dots", big, NULL, "strong");
    run_gbot("dots", big, NULL, "perfect");
    /* The exact solver's own positions: 4x4 and 3x4 (30 lines left after one), where it
     * ran millions of nodes without a poll. */
    run_gbot("dots", "{\"rows\":4,\"cols\":4}", NULL, "perfect");
    run_gbot("dots", "{\"rows\":4,\"cols\":4}", NULL, "strong");
    run_gbot("dots", "{\"rows\":3,\"cols\":4}",
             "{\"lines\":{\"h\":[[0,-1,-1,-1],[-1,-1,-1,-1],[-1,-1,-1,-1],[-1,-1,-1,-1]],"
             "\"v\":[[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1]]},"
             "\"owners\":[[-1,-1,-1,-1],[-1,-1,-1,-1],[-1,-1,-1,-1]],\"to_move\":1}",
             "perfect");
}

/* ---- Thue -------------------------------------------------------------------------------- */

/* A square-free word over {0,1,2} of length n: the number of 1s between the 0s of the
 * Thue-Morse word. */
static uint8_t *ternary_word(int n)
{
    uint8_t *w = malloc((size_t)n);
    assert_non_null(w);
    int len = 0, ones = 0;
    for (unsigned i = 1; len < n; i++) {
        int tm = __builtin_popcount(i) & 1;
        if (tm)
            ones++;
        else {
            w[len++] = (uint8_t)ones;
            ones = 0;
        }
    }
    return w;
}

static void run_thue(const char *spec_text, int n, int k, thue_role role)
{
    uint8_t *w = ternary_word(n);
    thue_position pos = {THUE_SQUARE, k, w, n, role, role == THUE_ROLE_PAINTER ? n / 2 : 0, 0};
    thue_bot_spec spec;
    char why[200];
    if (thue_bot_spec_parse(spec_text, &spec, why, sizeof why) != 0)
        fail_msg("%s: %s", spec_text, why);
    int err = 0;
    gaps gp;
    gaps_start(&gp);
    thue_bot_search *s = thue_bot_search_new(&spec, &pos, 1, 1, &err);
    assert_non_null(s);
    thue_bot_limits lim = {0};
    lim.think_ms = THINK_MS;
    lim.yield = record;
    lim.yield_arg = &gp;
    thue_bot_search_run_part(s, 0, &lim);
    thue_bot_result res;
    assert_int_equal(thue_bot_search_finish(s, &res), 0);
    thue_bot_search_free(s);
    gaps_end(&gp);
    char what[160];
    snprintf(what, sizeof what, "thue k=%d, a word of %d, %s, %s", k, n,
             role == THUE_ROLE_BUILDER ? "builder" : "painter", spec_text);
    check(what, &gp);
    free(w);
}

static void test_bounds_thue(void **state)
{
    (void)state;
    /* The longest words a match has (limit 10000) and the most symbols (64). */
    const char *specs[] = {"uct:iterations=0,ms=60000", "nested:2", "perfect", "greedy"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        run_thue(specs[i], 9990, 64, THUE_ROLE_BUILDER);
        run_thue(specs[i], 9990, 64, THUE_ROLE_PAINTER);
    }
    run_thue("uct:iterations=0,ms=60000", 9990, 3, THUE_ROLE_BUILDER);
    run_thue("perfect", 60, 5, THUE_ROLE_BUILDER);
}

/* ---- stop from another thread ------------------------------------------------------------- */

typedef struct stopper {
    atomic_int *flag;
    int64_t raise_at; /* CPU ns of the search thread at which the hook raises the flag */
    int64_t raised;   /* when it did (wall) */
} stopper;

static int raise_late(void *arg, int64_t now)
{
    stopper *s = arg;
    if (s->raised == 0 && cpu_ns() >= s->raise_at) {
        atomic_store(s->flag, 1);
        s->raised = now;
    }
    return 0;
}

/* A stop raised mid-search ends it at the next poll: the search returns within the
 * bound of the flag being seen. */
static void test_bounds_stop_ends_search(void **state)
{
    (void)state;
    const thue_gamedef *g = game("dots");
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, "{\"rows\":3,\"cols\":4}", &opt, &e), 0);
    void *st = position(g, &opt,
                        "{\"lines\":{\"h\":[[0,-1,-1,-1],[-1,-1,-1,-1],[-1,-1,-1,-1],[-1,-1,-1,-1]],"
                        "\"v\":[[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1],[-1,-1,-1,-1,-1]]},"
                        "\"owners\":[[-1,-1,-1,-1],[-1,-1,-1,-1],[-1,-1,-1,-1]],\"to_move\":1}");
    thue_gbot_spec spec;
    assert_int_equal(thue_gbot_spec_parse(g, "perfect", &spec, NULL, 0), 0);
    atomic_int flag = 0;
    stopper sp = {&flag, cpu_ns() + 50 * 1000000LL, 0};
    thue_bot_limits lim = {0};
    lim.stop = &flag;
    lim.yield = raise_late;
    lim.yield_arg = &sp;
    thue_gbot_result res;
    int err = thue_gbot_choose(g, &opt, st, &spec, 1, &lim, &res);
    int64_t after = thue_now_ns();
    assert_int_equal(err, THUE_ETOOBIG); /* stopped before it could decide */
    assert_true(sp.raised != 0);
    printf("  dots 3x4 perfect: returned %.2f ms after the stop\n",
           (double)(after - sp.raised) / 1e6);
    assert_true(res.stopped);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds_heap_games),
        cmocka_unit_test(test_bounds_board_games),
        cmocka_unit_test(test_bounds_dots),
        cmocka_unit_test(test_bounds_thue),
        cmocka_unit_test(test_bounds_stop_ends_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
