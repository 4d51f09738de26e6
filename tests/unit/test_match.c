/*
 * test_match.c: the match state machine (engine/match.h) against RULES.md.
 *
 * - init: the defaults, every invalid option with its code, the boundaries, the state of
 *   a fresh match;
 * - the worked example of RULES.md played through the machine, then round 1;
 * - turn order and every error path, each followed by a check that the whole match
 *   (round, step, placed, word, rounds[], reason, winner, forfeiter, moves) is unchanged;
 * - scoring, the role swap, the length limit (up to the maximum 10000), draws and wins;
 * - forfeits by either player, in either round and step, for every reason;
 * - random matches (valid and invalid calls from a fixed-seed generator) checked call by
 *   call against a plain reference model of the rules, with a definition-level
 *   repetition check of its own (nothing shared with repetition.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/errors.h"
#include "engine/match.h"
#include "engine/repetition.h"
#include "engine/word.h"

/* ---------------------------------------------------------------- helpers */

/* splitmix64: a small deterministic generator for the random test (not rand()). */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int rnd_below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}
/* Uniform in lo..hi inclusive. */
static int rnd_range(int lo, int hi)
{
    return lo + rnd_below(hi - lo + 1);
}

/*
 * Definition-level repetition check, period by period: a square of period p is a run of
 * p positions j with w[j] == w[j+p], an overlap a run of p+1. Scanning periods upwards and
 * starts left to right reports the smallest period, then the leftmost start, as
 * repetition.h promises. O(n^2), deliberately simple.
 */
static int ref_repetition(const uint8_t *w, int n, thue_variant v, thue_repetition *out)
{
    for (int p = 1; 2 * p <= n; p++) {
        int need = v == THUE_SQUARE ? p : p + 1;
        int run = 0;
        for (int j = 0; j + p < n; j++) {
            run = w[j] == w[j + p] ? run + 1 : 0;
            if (run == need) {
                out->start = j - need + 1;
                out->period = p;
                out->length = p + need;
                return 1;
            }
        }
    }
    return 0;
}

static thue_match_options make_opt(thue_variant v, int k, int limit, int first_builder)
{
    thue_match_options o = thue_match_defaults();
    o.variant = v;
    o.k = k;
    o.limit = limit;
    o.first_builder = first_builder;
    return o;
}

static void start(thue_match *m, thue_variant v, int k, int limit, int first_builder)
{
    thue_match_options o = make_opt(v, k, limit, first_builder);
    assert_int_equal(thue_match_init(m, &o), 0);
}

/* A copy of everything a rejected call must leave alone. */
typedef struct snapshot {
    thue_match m; /* shallow copy */
    uint8_t *sym; /* copy of m.word.sym[0..len-1] */
    int to_move, builder, painter, points0, points1;
} snapshot;

static void snap_take(snapshot *s, const thue_match *m)
{
    s->m = *m;
    s->sym = malloc((size_t)(m->word.len > 0 ? m->word.len : 1));
    assert_non_null(s->sym);
    if (m->word.len > 0)
        memcpy(s->sym, m->word.sym, (size_t)m->word.len);
    s->to_move = thue_match_to_move(m);
    s->builder = thue_match_builder(m);
    s->painter = thue_match_painter(m);
    s->points0 = thue_match_points(m, 0);
    s->points1 = thue_match_points(m, 1);
}

static void snap_assert_same(snapshot *s, const thue_match *m)
{
    const thue_match *a = &s->m;
    assert_int_equal(m->opt.variant, a->opt.variant);
    assert_int_equal(m->opt.k, a->opt.k);
    assert_int_equal(m->opt.limit, a->opt.limit);
    assert_int_equal(m->opt.first_builder, a->opt.first_builder);
    assert_int_equal(m->round, a->round);
    assert_int_equal(m->step, a->step);
    assert_int_equal(m->placed, a->placed);
    assert_ptr_equal(m->word.sym, a->word.sym);
    assert_int_equal(m->word.len, a->word.len);
    assert_int_equal(m->word.cap, a->word.cap);
    if (a->word.len > 0)
        assert_memory_equal(m->word.sym, s->sym, (size_t)a->word.len);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(m->rounds[r].builder, a->rounds[r].builder);
        assert_int_equal(m->rounds[r].points, a->rounds[r].points);
        assert_int_equal(m->rounds[r].end, a->rounds[r].end);
        assert_int_equal(m->rounds[r].rep.start, a->rounds[r].rep.start);
        assert_int_equal(m->rounds[r].rep.period, a->rounds[r].rep.period);
        assert_int_equal(m->rounds[r].rep.length, a->rounds[r].rep.length);
    }
    assert_int_equal(m->reason, a->reason);
    assert_int_equal(m->winner, a->winner);
    assert_int_equal(m->forfeiter, a->forfeiter);
    assert_int_equal(m->moves, a->moves);
    assert_int_equal(thue_match_to_move(m), s->to_move);
    assert_int_equal(thue_match_builder(m), s->builder);
    assert_int_equal(thue_match_painter(m), s->painter);
    assert_int_equal(thue_match_points(m, 0), s->points0);
    assert_int_equal(thue_match_points(m, 1), s->points1);
    free(s->sym);
    s->sym = NULL;
}

/* The call must fail with exactly `code` and change nothing. */
#define EXPECT_REJECT(m, call, code)                                                               \
    do {                                                                                           \
        snapshot snap_;                                                                            \
        snap_take(&snap_, (m));                                                                    \
        int rc_ = (call);                                                                          \
        if (rc_ != (code))                                                                         \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n", __FILE__, __LINE__,  \
                    #call, rc_, thue_err_name(rc_), (int)(code), thue_err_name(code));             \
        assert_int_equal(rc_, (code));                                                             \
        snap_assert_same(&snap_, (m));                                                             \
    } while (0)

static void assert_word(const thue_match *m, const uint8_t *want, int n)
{
    assert_int_equal(m->word.len, n);
    assert_memory_equal(m->word.sym, want, (size_t)n);
}

static void assert_word_is_zero(const thue_match *m)
{
    static const uint8_t zero[1] = {0};
    assert_word(m, zero, 1);
}

/* The builder of the current round places at i. */
static void place_ok(thue_match *m, int i)
{
    assert_int_equal(m->step, THUE_STEP_PLACE);
    int b = thue_match_builder(m);
    assert_int_equal(thue_match_to_move(m), b);
    assert_int_equal(thue_match_place(m, b, i), 0);
    assert_int_equal(m->step, THUE_STEP_PAINT);
    assert_int_equal(m->placed, i);
    assert_int_equal(thue_match_to_move(m), thue_match_painter(m));
}

/* The painter of the current round paints c. */
static void paint_ok(thue_match *m, int c)
{
    assert_int_equal(m->step, THUE_STEP_PAINT);
    int p = thue_match_painter(m);
    assert_int_equal(thue_match_to_move(m), p);
    assert_int_equal(thue_match_paint(m, p, c), 0);
}

static void move_ok(thue_match *m, int i, int c)
{
    place_ok(m, i);
    paint_ok(m, c);
}

/*
 * Plays the current round (square variant, k > pts + 1, limit > pts): the painter scores
 * pts points with fresh symbols 1..pts appended at the end, then the builder places at the
 * end and the painter repeats the last symbol, a square of period 1.
 */
static void play_round(thue_match *m, int pts)
{
    int r = m->round;
    assert_int_equal(m->opt.variant, THUE_SQUARE);
    assert_true(pts + 1 < m->opt.k && pts < m->opt.limit);
    for (int j = 0; j < pts; j++) {
        move_ok(m, m->word.len, j + 1);
        assert_int_equal(m->round, r);
        assert_int_equal(m->rounds[r].points, j + 1);
    }
    int n = m->word.len;
    place_ok(m, n);
    paint_ok(m, m->word.sym[n - 1]);
    assert_int_equal(m->rounds[r].end, THUE_ROUND_REPETITION);
    assert_int_equal(m->rounds[r].points, pts);
    assert_int_equal(m->rounds[r].rep.start, n - 1);
    assert_int_equal(m->rounds[r].rep.period, 1);
    assert_int_equal(m->rounds[r].rep.length, 2);
}

/* ---------------------------------------------------------------- init */

static void test_init_defaults(void **state)
{
    (void)state;
    thue_match_options o = thue_match_defaults();
    assert_int_equal(o.variant, THUE_SQUARE);
    assert_int_equal(o.k, 3);
    assert_int_equal(o.limit, THUE_LIMIT_DEFAULT);
    assert_int_equal(o.limit, 100);
    assert_int_equal(o.first_builder, 0);

    thue_match m;
    assert_int_equal(thue_match_init(&m, &o), 0);
    assert_int_equal(m.opt.variant, THUE_SQUARE);
    assert_int_equal(m.opt.k, 3);
    assert_int_equal(m.opt.limit, 100);
    assert_int_equal(m.opt.first_builder, 0);
    thue_match_free(&m);
}

static void assert_fresh(const thue_match *m, int fb)
{
    assert_int_equal(m->round, 0);
    assert_int_equal(m->step, THUE_STEP_PLACE);
    assert_false(thue_match_over(m));
    assert_word_is_zero(m);
    assert_true(m->word.cap >= m->opt.limit + 1);
    assert_int_equal(thue_match_to_move(m), fb);
    assert_int_equal(thue_match_builder(m), fb);
    assert_int_equal(thue_match_painter(m), 1 - fb);
    assert_int_equal(m->rounds[0].builder, fb);
    assert_int_equal(m->rounds[0].points, 0);
    assert_int_equal(m->rounds[0].end, THUE_ROUND_PLAYING);
    assert_int_equal(m->rounds[1].points, 0);
    assert_int_equal(m->rounds[1].end, THUE_ROUND_PLAYING);
    assert_int_equal(thue_match_points(m, 0), 0);
    assert_int_equal(thue_match_points(m, 1), 0);
    assert_int_equal(m->winner, -1);
    assert_int_equal(m->forfeiter, -1);
    assert_int_equal(m->reason, THUE_END_NONE);
    assert_int_equal(m->moves, 0);
}

static void test_init_initial_state(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        for (int v = 0; v < 2; v++) {
            thue_match m;
            start(&m, (thue_variant)v, 5, 17, fb);
            assert_int_equal(m.opt.variant, v);
            assert_int_equal(m.opt.k, 5);
            assert_int_equal(m.opt.limit, 17);
            assert_int_equal(m.opt.first_builder, fb);
            assert_fresh(&m, fb);
            thue_match_free(&m);
        }
    }
}

static void expect_init_error(thue_match_options o, int code)
{
    thue_match m;
    memset(&m, 0, sizeof m);
    assert_int_equal(thue_match_init(&m, &o), code);
}

static void test_init_bad_variant(void **state)
{
    (void)state;
    thue_match_options o = thue_match_defaults();
    o.variant = (thue_variant)2;
    expect_init_error(o, THUE_EVARIANT);
    o.variant = (thue_variant)-1;
    expect_init_error(o, THUE_EVARIANT);
    o.variant = (thue_variant)1000;
    expect_init_error(o, THUE_EVARIANT);
}

static void test_init_bad_k(void **state)
{
    (void)state;
    static const int bad[] = {1, 65, 0, -1, 255, 256};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        thue_match_options o = thue_match_defaults();
        o.k = bad[j];
        expect_init_error(o, THUE_EK);
    }
}

static void test_init_bad_limit(void **state)
{
    (void)state;
    static const int bad[] = {0, 10001, -1, 65536};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        thue_match_options o = thue_match_defaults();
        o.limit = bad[j];
        expect_init_error(o, THUE_ELIMIT);
    }
}

static void test_init_bad_first_builder(void **state)
{
    (void)state;
    static const int bad[] = {2, -1, 100};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        thue_match_options o = thue_match_defaults();
        o.first_builder = bad[j];
        expect_init_error(o, THUE_EPLAYER);
    }
}

static void test_init_boundaries(void **state)
{
    (void)state;
    static const int ks[] = {THUE_K_MIN, THUE_K_MAX, 2, 64};
    static const int limits[] = {THUE_LIMIT_MIN, THUE_LIMIT_MAX, 1, 10000};
    for (size_t a = 0; a < 4; a++) {
        for (size_t b = 0; b < 4; b++) {
            for (int v = 0; v < 2; v++) {
                for (int fb = 0; fb < 2; fb++) {
                    thue_match m;
                    start(&m, (thue_variant)v, ks[a], limits[b], fb);
                    assert_int_equal(m.opt.k, ks[a]);
                    assert_int_equal(m.opt.limit, limits[b]);
                    assert_fresh(&m, fb);
                    /* The largest symbol is accepted. */
                    move_ok(&m, 1, ks[a] - 1);
                    assert_int_equal(m.moves, 1);
                    thue_match_free(&m);
                }
            }
        }
    }
}

static void test_free_null(void **state)
{
    (void)state;
    thue_match_free(NULL);
}

/* ---------------------------------------------------------------- the worked example */

/* RULES.md: k = 3, square; builder 1/painter 2, 1/1, 3/1, 4/2 -> square 12|12. */
static void play_worked_example(thue_match *m)
{
    int r = m->round;
    int b = thue_match_builder(m), p = thue_match_painter(m);
    static const uint8_t w1[] = {0, 2}, w2[] = {0, 1, 2}, w3[] = {0, 1, 2, 1};
    int moves0 = m->moves;

    place_ok(m, 1);
    paint_ok(m, 2);
    assert_word(m, w1, 2);
    assert_int_equal(m->rounds[r].points, 1);
    assert_int_equal(thue_match_to_move(m), b);

    place_ok(m, 1);
    paint_ok(m, 1);
    assert_word(m, w2, 3);
    assert_int_equal(m->rounds[r].points, 2);

    place_ok(m, 3);
    paint_ok(m, 1);
    assert_word(m, w3, 4);
    assert_int_equal(m->rounds[r].points, 3);
    /* The painter paints only in this round. */
    assert_int_equal(thue_match_points(m, p), 3);
    assert_int_equal(m->rounds[r].end, THUE_ROUND_PLAYING);
    assert_int_equal(m->moves, moves0 + 3);

    place_ok(m, 4);
    paint_ok(m, 2);
    assert_int_equal(m->rounds[r].end, THUE_ROUND_REPETITION);
    assert_int_equal(m->rounds[r].rep.start, 1);
    assert_int_equal(m->rounds[r].rep.period, 2);
    assert_int_equal(m->rounds[r].rep.length, 4);
    assert_int_equal(m->rounds[r].points, 3);
    assert_int_equal(m->rounds[r].builder, b);
    assert_int_equal(m->moves, moves0 + 4);
}

static void test_example_worked_round(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        thue_match m;
        start(&m, THUE_SQUARE, 3, THUE_LIMIT_DEFAULT, fb);
        play_worked_example(&m);

        /* Round 1: roles swapped, word reset, nobody has won yet. */
        assert_int_equal(m.round, 1);
        assert_int_equal(m.step, THUE_STEP_PLACE);
        assert_false(thue_match_over(&m));
        assert_word_is_zero(&m);
        assert_int_equal(m.rounds[1].builder, 1 - fb);
        assert_int_equal(m.rounds[1].points, 0);
        assert_int_equal(m.rounds[1].end, THUE_ROUND_PLAYING);
        assert_int_equal(thue_match_builder(&m), 1 - fb);
        assert_int_equal(thue_match_painter(&m), fb);
        assert_int_equal(thue_match_to_move(&m), 1 - fb);
        assert_int_equal(thue_match_points(&m, 1 - fb), 3);
        assert_int_equal(thue_match_points(&m, fb), 0);
        assert_int_equal(m.reason, THUE_END_NONE);
        assert_int_equal(m.winner, -1);
        assert_int_equal(m.forfeiter, -1);
        assert_int_equal(m.moves, 4);
        /* Round 0's record is kept. */
        assert_int_equal(m.rounds[0].end, THUE_ROUND_REPETITION);
        assert_int_equal(m.rounds[0].points, 3);
        assert_int_equal(m.rounds[0].builder, fb);
        thue_match_free(&m);
    }
}

static void test_example_both_rounds_draw(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_SQUARE, 3, THUE_LIMIT_DEFAULT, 0);
    play_worked_example(&m);
    play_worked_example(&m);
    assert_true(thue_match_over(&m));
    assert_int_equal(m.step, THUE_STEP_OVER);
    assert_int_equal(m.round, 1);
    assert_int_equal(thue_match_to_move(&m), -1);
    assert_int_equal(thue_match_points(&m, 0), 3);
    assert_int_equal(thue_match_points(&m, 1), 3);
    assert_int_equal(m.winner, -1);
    assert_int_equal(m.reason, THUE_END_SCORE);
    assert_int_equal(m.forfeiter, -1);
    assert_int_equal(m.moves, 8);
    assert_int_equal(m.rounds[1].rep.start, 1);
    assert_int_equal(m.rounds[1].rep.period, 2);
    thue_match_free(&m);
}

/* ---------------------------------------------------------------- turn order and errors */

/* Wrong player / wrong action at the current step: ETURN or ESTEP, nothing changes. */
static void check_turn_errors(thue_match *m)
{
    int b = thue_match_builder(m), p = thue_match_painter(m);
    int n = m->word.len;
    assert_int_equal(b + p, 1);
    if (m->step == THUE_STEP_PLACE) {
        assert_int_equal(thue_match_to_move(m), b);
        /* The painter is not to move at all. */
        EXPECT_REJECT(m, thue_match_place(m, p, 0), THUE_ETURN);
        EXPECT_REJECT(m, thue_match_place(m, p, n), THUE_ETURN);
        EXPECT_REJECT(m, thue_match_paint(m, p, 0), THUE_ETURN);
        /* The builder is to move but must place, not paint. */
        EXPECT_REJECT(m, thue_match_paint(m, b, 0), THUE_ESTEP);
        EXPECT_REJECT(m, thue_match_paint(m, b, m->opt.k - 1), THUE_ESTEP);
    } else {
        assert_int_equal(m->step, THUE_STEP_PAINT);
        assert_int_equal(thue_match_to_move(m), p);
        /* The builder has placed; it is the painter's turn. */
        EXPECT_REJECT(m, thue_match_place(m, b, 0), THUE_ETURN);
        EXPECT_REJECT(m, thue_match_place(m, b, n), THUE_ETURN);
        EXPECT_REJECT(m, thue_match_paint(m, b, 0), THUE_ETURN);
        /* The painter is to move but must paint, not place. */
        EXPECT_REJECT(m, thue_match_place(m, p, 0), THUE_ESTEP);
        EXPECT_REJECT(m, thue_match_place(m, p, n), THUE_ESTEP);
    }
}

static void check_bad_players(thue_match *m)
{
    static const int bad[] = {-1, 2, 3, 1000, -1000};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        EXPECT_REJECT(m, thue_match_place(m, bad[j], 0), THUE_EPLAYER);
        EXPECT_REJECT(m, thue_match_paint(m, bad[j], 0), THUE_EPLAYER);
        EXPECT_REJECT(m, thue_match_forfeit(m, bad[j], THUE_END_RESIGN), THUE_EPLAYER);
    }
}

static void test_turn_alternates(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        thue_match m;
        start(&m, THUE_SQUARE, 64, 100, fb);
        for (int r = 0; r < 2; r++) {
            int b = r == 0 ? fb : 1 - fb;
            for (int j = 0; j < 4; j++) {
                assert_int_equal(m.round, r);
                assert_int_equal(m.step, THUE_STEP_PLACE);
                assert_int_equal(thue_match_to_move(&m), b);
                assert_int_equal(thue_match_builder(&m), b);
                assert_int_equal(thue_match_painter(&m), 1 - b);
                assert_int_equal(thue_match_place(&m, b, 0), 0);
                assert_int_equal(m.step, THUE_STEP_PAINT);
                assert_int_equal(m.placed, 0);
                assert_int_equal(thue_match_to_move(&m), 1 - b);
                assert_int_equal(thue_match_builder(&m), b);
                assert_int_equal(thue_match_painter(&m), 1 - b);
                assert_int_equal(thue_match_paint(&m, 1 - b, j + 1), 0);
                assert_int_equal(m.word.len, j + 2);
                assert_int_equal(m.word.sym[0], j + 1);
            }
            /* End the round: [4,3,2,1,0] + 0 at the end. */
            move_ok(&m, m.word.len, 0);
            assert_int_equal(m.rounds[r].end, THUE_ROUND_REPETITION);
            assert_int_equal(m.rounds[r].points, 4);
        }
        assert_true(thue_match_over(&m));
        assert_int_equal(m.winner, -1);
        thue_match_free(&m);
    }
}

static void test_turn_wrong_player_or_step(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        thue_match m;
        start(&m, THUE_SQUARE, 4, 100, fb);
        /* Round 0, PLACE, then PAINT, then again after a completed move. */
        check_turn_errors(&m);
        check_bad_players(&m);
        place_ok(&m, 1);
        check_turn_errors(&m);
        check_bad_players(&m);
        paint_ok(&m, 1);
        check_turn_errors(&m);
        place_ok(&m, 0);
        check_turn_errors(&m);
        paint_ok(&m, 1); /* [1,0,1] */
        /* Finish round 0 with a square and do the same in round 1 (roles swapped). */
        move_ok(&m, 3, 1);
        assert_int_equal(m.round, 1);
        check_turn_errors(&m);
        check_bad_players(&m);
        /* The round-0 builder may not place any more. */
        EXPECT_REJECT(&m, thue_match_place(&m, fb, 0), THUE_ETURN);
        place_ok(&m, 0);
        check_turn_errors(&m);
        check_bad_players(&m);
        EXPECT_REJECT(&m, thue_match_paint(&m, 1 - fb, 1), THUE_ETURN);
        paint_ok(&m, 1);
        check_turn_errors(&m);
        thue_match_free(&m);
    }
}

static void test_turn_bad_position(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_OVERLAP, 3, 100, 1);
    for (int len = 1; len <= 4; len++) {
        assert_int_equal(m.word.len, len);
        int b = thue_match_builder(&m);
        int bad[] = {-1, len + 1, len + 2, -100, 100000, THUE_WORD_MAX};
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++)
            EXPECT_REJECT(&m, thue_match_place(&m, b, bad[j]), THUE_EPOSITION);
        /* The boundaries 0 and n are fine (the front, then the end). */
        if (len % 2) {
            place_ok(&m, len);
            assert_int_equal(m.placed, len);
        } else {
            place_ok(&m, 0);
            assert_int_equal(m.placed, 0);
        }
        paint_ok(&m, len % 2 ? 1 : 2);
    }
    /* [0]: end 1 -> [0,1]; front 2 -> [2,0,1]; end 1 -> [2,0,1,1]; front 2 -> [2,2,0,1,1] */
    static const uint8_t want[] = {2, 2, 0, 1, 1};
    assert_word(&m, want, 5);
    assert_int_equal(m.rounds[0].points, 4);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_PLAYING);
    thue_match_free(&m);
}

static void test_turn_bad_symbol(void **state)
{
    (void)state;
    static const int ks[] = {2, 3, 10, 63, 64};
    for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++) {
        int k = ks[a];
        thue_match m;
        start(&m, THUE_SQUARE, k, 100, 0);
        place_ok(&m, 1);
        int p = thue_match_painter(&m);
        int bad[] = {-1, k, k + 1, 64, 255, 256, -256};
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++)
            EXPECT_REJECT(&m, thue_match_paint(&m, p, bad[j]), THUE_ESYMBOL);
        /* k - 1 is the largest symbol. */
        paint_ok(&m, k - 1);
        assert_int_equal(m.word.len, 2);
        assert_int_equal(m.word.sym[0], 0);
        assert_int_equal(m.word.sym[1], k - 1);
        thue_match_free(&m);
    }
}

static void check_over_rejects(thue_match *m)
{
    assert_true(thue_match_over(m));
    assert_int_equal(thue_match_to_move(m), -1);
    for (int pl = 0; pl < 2; pl++) {
        EXPECT_REJECT(m, thue_match_place(m, pl, 0), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_place(m, pl, 1), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_paint(m, pl, 0), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_paint(m, pl, 1), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_forfeit(m, pl, THUE_END_RESIGN), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_forfeit(m, pl, THUE_END_TIMEOUT), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_forfeit(m, pl, THUE_END_ABANDON), THUE_EOVER);
    }
}

static void test_turn_after_end_is_eover(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_SQUARE, 5, 100, 0);
    play_round(&m, 2);
    play_round(&m, 1);
    assert_int_equal(m.reason, THUE_END_SCORE);
    check_over_rejects(&m);
    thue_match_free(&m);

    start(&m, THUE_SQUARE, 5, 100, 0);
    place_ok(&m, 0);
    assert_int_equal(thue_match_forfeit(&m, 1, THUE_END_TIMEOUT), 0);
    check_over_rejects(&m);
    thue_match_free(&m);
}

/* ---------------------------------------------------------------- scoring */

static void test_score_square_and_overlap_endings(void **state)
{
    (void)state;
    thue_match m;
    /* Square: "00" ends the round with no point. */
    start(&m, THUE_SQUARE, 2, 100, 0);
    move_ok(&m, 0, 0);
    assert_int_equal(m.round, 1);
    assert_int_equal(m.rounds[0].points, 0);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[0].rep.start, 0);
    assert_int_equal(m.rounds[0].rep.period, 1);
    assert_int_equal(m.rounds[0].rep.length, 2);
    assert_int_equal(m.moves, 1);
    assert_word_is_zero(&m);
    thue_match_free(&m);

    /* Overlap: "00" is fine (a point), "000" ends the round. */
    start(&m, THUE_OVERLAP, 2, 100, 1);
    move_ok(&m, 1, 0);
    assert_int_equal(m.round, 0);
    assert_int_equal(m.rounds[0].points, 1);
    assert_int_equal(m.word.len, 2);
    move_ok(&m, 1, 0);
    assert_int_equal(m.round, 1);
    assert_int_equal(m.rounds[0].points, 1);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[0].rep.start, 0);
    assert_int_equal(m.rounds[0].rep.period, 1);
    assert_int_equal(m.rounds[0].rep.length, 3);
    assert_int_equal(thue_match_points(&m, 0), 1);
    assert_int_equal(thue_match_points(&m, 1), 0);
    assert_int_equal(m.moves, 2);

    /* Round 1 (builder 0): 0 -> 01 -> 010 -> 0101 -> 01010 is an overlap of period 2. */
    move_ok(&m, 1, 1);
    move_ok(&m, 2, 0);
    move_ok(&m, 3, 1);
    assert_int_equal(m.rounds[1].points, 3);
    move_ok(&m, 4, 0);
    assert_true(thue_match_over(&m));
    assert_int_equal(m.rounds[1].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[1].points, 3);
    assert_int_equal(m.rounds[1].rep.start, 0);
    assert_int_equal(m.rounds[1].rep.period, 2);
    assert_int_equal(m.rounds[1].rep.length, 5);
    assert_int_equal(thue_match_points(&m, 1), 3);
    assert_int_equal(m.winner, 1);
    assert_int_equal(m.reason, THUE_END_SCORE);
    assert_int_equal(m.moves, 6);
    thue_match_free(&m);
}

static void test_score_points_and_role_swap(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        thue_match m;
        start(&m, THUE_SQUARE, 10, 50, fb);
        play_round(&m, 2);
        assert_int_equal(m.round, 1);
        /* Round 1's builder is round 0's painter. */
        assert_int_equal(m.rounds[1].builder, 1 - fb);
        assert_int_equal(thue_match_builder(&m), 1 - fb);
        assert_int_equal(thue_match_painter(&m), fb);
        assert_int_equal(thue_match_points(&m, 1 - fb), 2);
        assert_int_equal(thue_match_points(&m, fb), 0);
        play_round(&m, 5);
        assert_true(thue_match_over(&m));
        assert_int_equal(m.round, 1);
        assert_int_equal(m.rounds[0].points, 2);
        assert_int_equal(m.rounds[1].points, 5);
        assert_int_equal(thue_match_points(&m, 1 - fb), 2);
        assert_int_equal(thue_match_points(&m, fb), 5);
        assert_int_equal(m.winner, fb);
        assert_int_equal(m.reason, THUE_END_SCORE);
        assert_int_equal(m.forfeiter, -1);
        assert_int_equal(m.moves, 3 + 6);
        thue_match_free(&m);
    }
}

static void test_score_win_either_way(void **state)
{
    (void)state;
    static const int cases[][2] = {{5, 2}, {2, 5}, {1, 0}, {0, 1}, {7, 6}, {6, 7}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int fb = 0; fb < 2; fb++) {
            thue_match m;
            start(&m, THUE_SQUARE, 10, 100, fb);
            play_round(&m, cases[c][0]); /* scored by 1 - fb */
            play_round(&m, cases[c][1]); /* scored by fb */
            assert_true(thue_match_over(&m));
            int want = cases[c][0] > cases[c][1] ? 1 - fb : fb;
            assert_int_equal(m.winner, want);
            assert_int_equal(m.reason, THUE_END_SCORE);
            assert_int_equal(m.forfeiter, -1);
            assert_int_equal(thue_match_points(&m, 1 - fb), cases[c][0]);
            assert_int_equal(thue_match_points(&m, fb), cases[c][1]);
            thue_match_free(&m);
        }
    }
}

static void test_score_draw(void **state)
{
    (void)state;
    static const int pts[] = {0, 1, 3, 8};
    for (size_t c = 0; c < sizeof pts / sizeof pts[0]; c++) {
        for (int fb = 0; fb < 2; fb++) {
            thue_match m;
            start(&m, THUE_SQUARE, 10, 100, fb);
            play_round(&m, pts[c]);
            play_round(&m, pts[c]);
            assert_true(thue_match_over(&m));
            assert_int_equal(m.winner, -1);
            assert_int_equal(m.reason, THUE_END_SCORE);
            assert_int_equal(m.forfeiter, -1);
            assert_int_equal(thue_match_points(&m, 0), pts[c]);
            assert_int_equal(thue_match_points(&m, 1), pts[c]);
            thue_match_free(&m);
        }
    }
}

/* Fresh symbols never repeat, so only the limit ends the rounds. */
static void test_limit_ends_round(void **state)
{
    (void)state;
    static const int limits[] = {1, 2, 10, 62};
    for (size_t a = 0; a < sizeof limits / sizeof limits[0]; a++) {
        int limit = limits[a];
        for (int v = 0; v < 2; v++) {
            thue_match m;
            start(&m, (thue_variant)v, 64, limit, 1);
            for (int r = 0; r < 2; r++) {
                for (int j = 0; j < limit; j++) {
                    assert_int_equal(m.round, r);
                    assert_int_equal(m.rounds[r].end, THUE_ROUND_PLAYING);
                    assert_int_equal(m.word.len, j + 1);
                    move_ok(&m, j % 2 ? 0 : m.word.len, j + 1);
                }
                assert_int_equal(m.rounds[r].end, THUE_ROUND_LIMIT);
                assert_int_equal(m.rounds[r].points, limit);
            }
            assert_true(thue_match_over(&m));
            assert_int_equal(m.round, 1);
            assert_int_equal(thue_match_points(&m, 0), limit);
            assert_int_equal(thue_match_points(&m, 1), limit);
            assert_int_equal(m.winner, -1);
            assert_int_equal(m.reason, THUE_END_SCORE);
            assert_int_equal(m.moves, 2 * limit);
            thue_match_free(&m);
        }
    }
}

static void test_limit_overlap_k5(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_OVERLAP, 5, 3, 0);
    /* Round 0: 0 -> 01 -> 010 -> 0102: three points, the limit. */
    move_ok(&m, 1, 1);
    move_ok(&m, 2, 0);
    assert_int_equal(m.rounds[0].points, 2);
    move_ok(&m, 3, 2);
    assert_int_equal(m.round, 1);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_LIMIT);
    assert_int_equal(m.rounds[0].points, 3);
    assert_word_is_zero(&m);
    /* Round 1: 0 -> 00 -> 001 (aa is no overlap), then 0001 ends the round on the paint
     * that would have reached the limit: a repetition, two points. */
    move_ok(&m, 0, 0); /* 00 */
    move_ok(&m, 2, 1); /* 001 */
    assert_int_equal(m.rounds[1].points, 2);
    move_ok(&m, 0, 0); /* 0001: overlap 000 */
    assert_true(thue_match_over(&m));
    assert_int_equal(m.rounds[1].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[1].points, 2);
    assert_int_equal(m.rounds[1].rep.start, 0);
    assert_int_equal(m.rounds[1].rep.period, 1);
    assert_int_equal(m.rounds[1].rep.length, 3);
    assert_int_equal(thue_match_points(&m, 1), 3);
    assert_int_equal(thue_match_points(&m, 0), 2);
    assert_int_equal(m.winner, 1);
    thue_match_free(&m);
}

/* A repetition on the paint that would reach the limit ends the round as a repetition. */
static void test_limit_repetition_wins_over_limit(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_SQUARE, 4, 2, 0);
    move_ok(&m, 1, 1); /* 01 */
    assert_int_equal(m.rounds[0].points, 1);
    move_ok(&m, 2, 1); /* 011 */
    assert_int_equal(m.rounds[0].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[0].points, 1);
    assert_int_equal(m.round, 1);
    thue_match_free(&m);
}

/*
 * The longest possible rounds: limit 10000, k = 3, the painter following Thue's
 * square-free ternary word (differences of the Thue-Morse word, renamed so that it starts
 * with 0), the builder always placing at the end. Both rounds reach the limit.
 */
static int thue_morse(int n)
{
    int t = 0;
    for (unsigned u = (unsigned)n; u; u &= u - 1)
        t ^= 1;
    return t;
}

static void test_limit_maximum(void **state)
{
    (void)state;
    int n = THUE_LIMIT_MAX + 1;
    uint8_t *w = malloc((size_t)n);
    assert_non_null(w);
    /* t(n+1) - t(n) is -1, 0 or 1; d(0) = 1 is renamed 0. */
    for (int j = 0; j < n; j++) {
        int d = thue_morse(j + 1) - thue_morse(j);
        w[j] = (uint8_t)(d == 1 ? 0 : d == 0 ? 1 : 2);
    }
    thue_repetition rep;
    assert_int_equal(ref_repetition(w, n, THUE_SQUARE, &rep), 0);
    assert_int_equal(w[0], 0);

    thue_match m;
    start(&m, THUE_SQUARE, 3, THUE_LIMIT_MAX, 0);
    for (int r = 0; r < 2; r++) {
        int b = thue_match_builder(&m), p = thue_match_painter(&m);
        for (int j = 1; j < n; j++) {
            assert_int_equal(thue_match_place(&m, b, j), 0);
            assert_int_equal(thue_match_paint(&m, p, w[j]), 0);
            if (j < n - 1) {
                assert_int_equal(m.round, r);
                assert_int_equal(m.word.len, j + 1);
            }
        }
        assert_int_equal(m.rounds[r].end, THUE_ROUND_LIMIT);
        assert_int_equal(m.rounds[r].points, THUE_LIMIT_MAX);
    }
    assert_true(thue_match_over(&m));
    assert_int_equal(m.winner, -1);
    assert_int_equal(m.moves, 2 * THUE_LIMIT_MAX);
    thue_match_free(&m);
    free(w);
}

/* ---------------------------------------------------------------- forfeits */

static const thue_end_reason forfeit_reasons[] = {THUE_END_RESIGN, THUE_END_TIMEOUT,
                                                  THUE_END_ABANDON};

/*
 * Brings a fresh match (k = 10, square) to round `round` and step `step` with the scores
 * uneven: in round 0 the painter (1 - fb) has 2 points; in round 1 round 0's painter has
 * 5 and the current painter (fb) 1.
 */
static void reach(thue_match *m, int fb, int round, thue_step step)
{
    start(m, THUE_SQUARE, 10, 100, fb);
    if (round == 1) {
        play_round(m, 5);
        move_ok(m, 1, 1);
    } else {
        move_ok(m, 1, 1);
        move_ok(m, 0, 2);
    }
    if (step == THUE_STEP_PAINT)
        place_ok(m, 1);
    assert_int_equal(m->round, round);
    assert_int_equal(m->step, step);
}

static void test_forfeit_any_player_round_step_reason(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        for (int round = 0; round < 2; round++) {
            for (int s = 0; s < 2; s++) {
                thue_step step = s ? THUE_STEP_PAINT : THUE_STEP_PLACE;
                for (int who = 0; who < 2; who++) {
                    for (size_t rr = 0; rr < 3; rr++) {
                        thue_end_reason why = forfeit_reasons[rr];
                        thue_match m;
                        reach(&m, fb, round, step);
                        thue_round r0 = m.rounds[0];
                        int moves = m.moves;
                        int pts0 = thue_match_points(&m, 0), pts1 = thue_match_points(&m, 1);
                        int rpts = m.rounds[round].points;

                        assert_int_equal(thue_match_forfeit(&m, who, why), 0);
                        assert_true(thue_match_over(&m));
                        assert_int_equal(m.step, THUE_STEP_OVER);
                        assert_int_equal(thue_match_to_move(&m), -1);
                        assert_int_equal(m.reason, why);
                        assert_int_equal(m.winner, 1 - who);
                        assert_int_equal(m.forfeiter, who);
                        assert_int_equal(m.round, round);
                        assert_int_equal(m.rounds[round].end, THUE_ROUND_FORFEIT);
                        assert_int_equal(m.rounds[round].points, rpts);
                        if (round == 0) {
                            assert_int_equal(m.rounds[1].end, THUE_ROUND_NOT_PLAYED);
                            assert_int_equal(m.rounds[1].points, 0);
                        } else {
                            /* Round 0's record is untouched. */
                            assert_int_equal(m.rounds[0].end, r0.end);
                            assert_int_equal(m.rounds[0].points, r0.points);
                            assert_int_equal(m.rounds[0].builder, r0.builder);
                            assert_int_equal(m.rounds[0].rep.start, r0.rep.start);
                        }
                        assert_int_equal(m.moves, moves);
                        assert_int_equal(thue_match_points(&m, 0), pts0);
                        assert_int_equal(thue_match_points(&m, 1), pts1);
                        check_over_rejects(&m);
                        thue_match_free(&m);
                    }
                }
            }
        }
    }
}

/* The forfeiter loses even when leading on points (and the other way round). */
static void test_forfeit_beats_scores(void **state)
{
    (void)state;
    thue_match m;
    /* Player 1 painted 5 in round 0 and leads 5 - 0; player 1 resigns: 0 wins. */
    start(&m, THUE_SQUARE, 10, 100, 0);
    play_round(&m, 5);
    assert_int_equal(thue_match_forfeit(&m, 1, THUE_END_RESIGN), 0);
    assert_int_equal(m.winner, 0);
    assert_int_equal(m.forfeiter, 1);
    assert_int_equal(m.rounds[1].end, THUE_ROUND_FORFEIT);
    thue_match_free(&m);

    /* Player 0 trails 0 - 5 and abandons: 1 wins. */
    start(&m, THUE_SQUARE, 10, 100, 0);
    play_round(&m, 5);
    place_ok(&m, 0);
    assert_int_equal(thue_match_forfeit(&m, 0, THUE_END_ABANDON), 0);
    assert_int_equal(m.winner, 1);
    assert_int_equal(m.forfeiter, 0);
    assert_int_equal(m.reason, THUE_END_ABANDON);
    thue_match_free(&m);

    /* Straight away, before any move: round 0 forfeited, round 1 not played. */
    start(&m, THUE_OVERLAP, 2, 1, 1);
    assert_int_equal(thue_match_forfeit(&m, 1, THUE_END_TIMEOUT), 0);
    assert_int_equal(m.winner, 0);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_FORFEIT);
    assert_int_equal(m.rounds[1].end, THUE_ROUND_NOT_PLAYED);
    assert_int_equal(m.reason, THUE_END_TIMEOUT);
    assert_int_equal(m.moves, 0);
    thue_match_free(&m);
}

static void test_forfeit_bad_reason(void **state)
{
    (void)state;
    static const int bad[] = {THUE_END_SCORE, THUE_END_NONE, -1, 5, 99};
    for (int round = 0; round < 2; round++) {
        for (int s = 0; s < 2; s++) {
            thue_match m;
            reach(&m, round, round, s ? THUE_STEP_PAINT : THUE_STEP_PLACE);
            for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++)
                for (int who = 0; who < 2; who++)
                    EXPECT_REJECT(&m, thue_match_forfeit(&m, who, (thue_end_reason)bad[j]),
                                  THUE_EINVAL);
            /* Still playable. */
            assert_false(thue_match_over(&m));
            if (m.step == THUE_STEP_PLACE)
                place_ok(&m, 0);
            paint_ok(&m, 9);
            thue_match_free(&m);
        }
    }
}

static void test_forfeit_after_end(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_SQUARE, 10, 100, 0);
    play_round(&m, 1);
    play_round(&m, 0);
    assert_int_equal(m.winner, 1);
    for (int who = 0; who < 2; who++)
        for (size_t rr = 0; rr < 3; rr++)
            EXPECT_REJECT(&m, thue_match_forfeit(&m, who, forfeit_reasons[rr]), THUE_EOVER);
    thue_match_free(&m);

    start(&m, THUE_SQUARE, 10, 100, 0);
    assert_int_equal(thue_match_forfeit(&m, 0, THUE_END_RESIGN), 0);
    for (int who = 0; who < 2; who++)
        for (size_t rr = 0; rr < 3; rr++)
            EXPECT_REJECT(&m, thue_match_forfeit(&m, who, forfeit_reasons[rr]), THUE_EOVER);
    assert_int_equal(m.winner, 1);
    assert_int_equal(m.reason, THUE_END_RESIGN);
    thue_match_free(&m);
}

/* ---------------------------------------------------------------- random vs a model */

#define MODEL_MAX_LIMIT 40
#define MODEL_MAX_WORD (MODEL_MAX_LIMIT + 2)

/* The rules of RULES.md, written plainly. */
typedef struct model {
    thue_match_options opt;
    int round;
    thue_step step;
    int placed;
    uint8_t w[MODEL_MAX_WORD];
    int n;
    int builder[2];
    int points[2];
    thue_round_end end[2];
    thue_repetition rep[2];
    thue_end_reason reason;
    int winner, forfeiter, moves;
} model;

static void model_init(model *md, const thue_match_options *o)
{
    memset(md, 0, sizeof *md);
    md->opt = *o;
    md->step = THUE_STEP_PLACE;
    md->n = 1;
    md->builder[0] = o->first_builder;
    md->builder[1] = 1 - o->first_builder;
    md->reason = THUE_END_NONE;
    md->winner = -1;
    md->forfeiter = -1;
}

static int model_to_move(const model *md)
{
    if (md->step == THUE_STEP_OVER)
        return -1;
    int b = md->builder[md->round];
    return md->step == THUE_STEP_PLACE ? b : 1 - b;
}

static int model_points(const model *md, int player)
{
    int s = 0;
    for (int r = 0; r < 2; r++)
        if (md->builder[r] != player)
            s += md->points[r];
    return s;
}

static void model_next_round(model *md)
{
    if (md->round == 0) {
        md->round = 1;
        md->w[0] = 0;
        md->n = 1;
        md->step = THUE_STEP_PLACE;
        return;
    }
    md->step = THUE_STEP_OVER;
    md->reason = THUE_END_SCORE;
    int p0 = model_points(md, 0), p1 = model_points(md, 1);
    md->winner = p0 > p1 ? 0 : p1 > p0 ? 1 : -1;
}

#define BIT(code) (1u << (unsigned)-(code))

/* The set of acceptable results of a call (bit 0: success). Every fault the call has is
 * acceptable; the order in which the engine checks them is not the test's business. */
static unsigned model_faults_move(const model *md, int place, int player, int arg)
{
    unsigned f = 0;
    bool over = md->step == THUE_STEP_OVER;
    if (over)
        f |= BIT(THUE_EOVER);
    if (player < 0 || player > 1)
        f |= BIT(THUE_EPLAYER);
    if (over)
        return f;
    thue_step mine = place ? THUE_STEP_PLACE : THUE_STEP_PAINT;
    if (f == 0 && player != model_to_move(md))
        f |= BIT(THUE_ETURN);
    else if (f == 0 && md->step != mine)
        f |= BIT(THUE_ESTEP);
    if (place && (arg < 0 || arg > md->n))
        f |= BIT(THUE_EPOSITION);
    if (!place && (arg < 0 || arg >= md->opt.k))
        f |= BIT(THUE_ESYMBOL);
    return f ? f : 1u;
}

static unsigned model_faults_forfeit(const model *md, int player, int why)
{
    unsigned f = 0;
    if (md->step == THUE_STEP_OVER)
        f |= BIT(THUE_EOVER);
    if (player < 0 || player > 1)
        f |= BIT(THUE_EPLAYER);
    if (why != THUE_END_RESIGN && why != THUE_END_TIMEOUT && why != THUE_END_ABANDON)
        f |= BIT(THUE_EINVAL);
    return f ? f : 1u;
}

static void model_place(model *md, int i)
{
    md->placed = i;
    md->step = THUE_STEP_PAINT;
}

static void model_paint(model *md, int c)
{
    int r = md->round;
    assert_true(md->n < MODEL_MAX_WORD);
    memmove(md->w + md->placed + 1, md->w + md->placed, (size_t)(md->n - md->placed));
    md->w[md->placed] = (uint8_t)c;
    md->n++;
    md->moves++;
    thue_repetition rep;
    if (ref_repetition(md->w, md->n, md->opt.variant, &rep)) {
        /* The new repetition contains the inserted position. */
        assert_true(rep.start <= md->placed && md->placed < rep.start + rep.length);
        md->end[r] = THUE_ROUND_REPETITION;
        md->rep[r] = rep;
        model_next_round(md);
        return;
    }
    md->points[r]++;
    if (md->points[r] == md->opt.limit) {
        md->end[r] = THUE_ROUND_LIMIT;
        model_next_round(md);
        return;
    }
    md->step = THUE_STEP_PLACE;
}

static void model_forfeit(model *md, int player, int why)
{
    md->end[md->round] = THUE_ROUND_FORFEIT;
    if (md->round == 0)
        md->end[1] = THUE_ROUND_NOT_PLAYED;
    md->step = THUE_STEP_OVER;
    md->reason = (thue_end_reason)why;
    md->winner = 1 - player;
    md->forfeiter = player;
}

/* The engine's state agrees with the model's (on everything the model defines). */
static void model_assert_same(const model *md, const thue_match *m)
{
    assert_int_equal(m->opt.variant, md->opt.variant);
    assert_int_equal(m->opt.k, md->opt.k);
    assert_int_equal(m->opt.limit, md->opt.limit);
    assert_int_equal(m->opt.first_builder, md->opt.first_builder);
    assert_int_equal(m->round, md->round);
    assert_int_equal(m->step, md->step);
    assert_int_equal(thue_match_over(m), md->step == THUE_STEP_OVER);
    if (md->step == THUE_STEP_PAINT)
        assert_int_equal(m->placed, md->placed);
    if (md->step != THUE_STEP_OVER) {
        assert_int_equal(m->word.len, md->n);
        assert_memory_equal(m->word.sym, md->w, (size_t)md->n);
        /* Invariants of a running round: a clean word, one symbol more than the points. */
        thue_repetition rep;
        assert_int_equal(thue_check_word(NULL, m->word.sym, m->word.len, m->opt.variant, &rep), 0);
        assert_int_equal(m->word.len, m->rounds[m->round].points + 1);
        assert_true(m->rounds[m->round].points < m->opt.limit);
        assert_int_equal(m->rounds[m->round].end, THUE_ROUND_PLAYING);
    }
    for (int r = 0; r < 2; r++) {
        assert_int_equal(m->rounds[r].points, md->points[r]);
        assert_int_equal(m->rounds[r].end, md->end[r]);
        if (r <= md->round)
            assert_int_equal(m->rounds[r].builder, md->builder[r]);
        if (md->end[r] == THUE_ROUND_REPETITION) {
            assert_int_equal(m->rounds[r].rep.start, md->rep[r].start);
            assert_int_equal(m->rounds[r].rep.period, md->rep[r].period);
            assert_int_equal(m->rounds[r].rep.length, md->rep[r].length);
        }
    }
    assert_int_equal(m->reason, md->reason);
    assert_int_equal(m->winner, md->winner);
    assert_int_equal(m->forfeiter, md->forfeiter);
    assert_int_equal(m->moves, md->moves);
    assert_int_equal(thue_match_to_move(m), model_to_move(md));
    if (md->step != THUE_STEP_OVER) {
        assert_int_equal(thue_match_builder(m), md->builder[md->round]);
        assert_int_equal(thue_match_painter(m), 1 - md->builder[md->round]);
    }
    assert_int_equal(thue_match_points(m, 0), model_points(md, 0));
    assert_int_equal(thue_match_points(m, 1), model_points(md, 1));
}

/* One call, valid or not; checks the result against the model and applies it. */
static void random_call(thue_match *m, model *md, long *calls, long *rejected)
{
    int roll = rnd_below(100);
    int kind, player, arg;
    bool running = md->step != THUE_STEP_OVER;
    if (roll < 75 && running) {
        /* A legal call of the player to move (the argument may still be out of range). */
        player = model_to_move(md);
        kind = md->step == THUE_STEP_PLACE ? 0 : 1;
        arg = kind == 0 ? rnd_below(md->n + 1) : rnd_below(md->opt.k);
        if (rnd_below(20) == 0)
            arg = kind == 0 ? rnd_range(-3, md->n + 3) : rnd_range(-3, md->opt.k + 3);
    } else if (roll < 97) {
        kind = rnd_below(2);
        player = rnd_below(8) == 0 ? rnd_range(-2, 3) : rnd_below(2);
        arg = kind == 0 ? rnd_range(-2, md->n + 2) : rnd_range(-2, md->opt.k + 2);
    } else {
        kind = 2;
        player = rnd_below(8) == 0 ? rnd_range(-2, 3) : rnd_below(2);
        arg = rnd_below(4) == 0 ? rnd_range(-1, 6) : THUE_END_RESIGN + rnd_below(3);
    }

    unsigned allowed = kind == 2 ? model_faults_forfeit(md, player, arg)
                                 : model_faults_move(md, kind == 0, player, arg);
    snapshot snap;
    snap_take(&snap, m);
    int rc;
    if (kind == 0)
        rc = thue_match_place(m, player, arg);
    else if (kind == 1)
        rc = thue_match_paint(m, player, arg);
    else
        rc = thue_match_forfeit(m, player, (thue_end_reason)arg);
    (*calls)++;
    if (rc > 0 || rc < -31 || !((rc == 0 ? 1u : BIT(rc)) & allowed)) {
        fprintf(stderr,
                "random call %ld: %s(player %d, %d) returned %d (%s); allowed mask 0x%x; "
                "round %d step %d n %d k %d\n",
                *calls,
                kind == 0   ? "place"
                : kind == 1 ? "paint"
                            : "forfeit",
                player, arg, rc, thue_err_name(rc), allowed, md->round, md->step, md->n, md->opt.k);
        fail();
    }
    if (rc != 0) {
        (*rejected)++;
        snap_assert_same(&snap, m);
        return;
    }
    free(snap.sym);
    if (kind == 0)
        model_place(md, arg);
    else if (kind == 1)
        model_paint(md, arg);
    else
        model_forfeit(md, player, arg);
    model_assert_same(md, m);
}

static void test_random_matches_against_model(void **state)
{
    (void)state;
    rng_state = 20240611;
    long calls = 0, rejected = 0, ended[5] = {0};
    for (int game = 0; game < 3000; game++) {
        thue_match_options o;
        o.variant = (thue_variant)rnd_below(2);
        o.k = rnd_below(4) == 0 ? rnd_range(2, 64) : rnd_range(2, 5);
        o.limit = rnd_below(3) == 0 ? rnd_range(1, 4) : rnd_range(1, MODEL_MAX_LIMIT);
        o.first_builder = rnd_below(2);
        thue_match m;
        assert_int_equal(thue_match_init(&m, &o), 0);
        model md;
        model_init(&md, &o);
        model_assert_same(&md, &m);
        /* Each round takes at most limit paints; allow plenty of rejected calls. */
        int budget = 40 * (2 * o.limit + 2) + 100;
        int c = 0;
        while (!thue_match_over(&m) && c < budget) {
            random_call(&m, &md, &calls, &rejected);
            c++;
        }
        assert_true(thue_match_over(&m));
        assert_true(m.moves <= 2 * (o.limit + 1));
        ended[m.reason]++;
        if (m.reason == THUE_END_SCORE) {
            for (int r = 0; r < 2; r++)
                assert_true(m.rounds[r].end == THUE_ROUND_REPETITION ||
                            m.rounds[r].end == THUE_ROUND_LIMIT);
            assert_int_equal(m.round, 1);
            assert_int_equal(m.forfeiter, -1);
        }
        /* Nothing more is accepted. */
        for (int j = 0; j < 10; j++)
            random_call(&m, &md, &calls, &rejected);
        thue_match_free(&m);
    }
    print_message("random: %ld calls, %ld rejected; ended by score %ld, resign %ld, timeout %ld, "
                  "abandon %ld\n",
                  calls, rejected, ended[THUE_END_SCORE], ended[THUE_END_RESIGN],
                  ended[THUE_END_TIMEOUT], ended[THUE_END_ABANDON]);
    /* The generator reached every kind of ending and plenty of rejections. */
    assert_true(ended[THUE_END_SCORE] > 100);
    assert_true(ended[THUE_END_RESIGN] > 10);
    assert_true(ended[THUE_END_TIMEOUT] > 10);
    assert_true(ended[THUE_END_ABANDON] > 10);
    assert_true(rejected > calls / 20);
}

/* ---------------------------------------------------------------- names */

static void assert_distinct_names(const char **names, int n)
{
    for (int a = 0; a < n; a++) {
        assert_non_null(names[a]);
        assert_true(names[a][0] != '\0');
        for (int b = 0; b < a; b++)
            assert_string_not_equal(names[a], names[b]);
    }
}

static void test_names_distinct(void **state)
{
    (void)state;
    const char *steps[] = {thue_step_name(THUE_STEP_PLACE), thue_step_name(THUE_STEP_PAINT),
                           thue_step_name(THUE_STEP_OVER)};
    assert_distinct_names(steps, 3);
    assert_string_equal(steps[0], "place");
    assert_string_equal(steps[1], "paint");
    assert_string_equal(steps[2], "over");

    const char *ends[] = {
        thue_round_end_name(THUE_ROUND_PLAYING), thue_round_end_name(THUE_ROUND_REPETITION),
        thue_round_end_name(THUE_ROUND_LIMIT), thue_round_end_name(THUE_ROUND_FORFEIT),
        thue_round_end_name(THUE_ROUND_NOT_PLAYED)};
    assert_distinct_names(ends, 5);
    assert_string_equal(ends[1], "repetition");
    assert_string_equal(ends[2], "limit");

    const char *reasons[] = {
        thue_end_reason_name(THUE_END_NONE), thue_end_reason_name(THUE_END_SCORE),
        thue_end_reason_name(THUE_END_RESIGN), thue_end_reason_name(THUE_END_TIMEOUT),
        thue_end_reason_name(THUE_END_ABANDON)};
    assert_distinct_names(reasons, 5);
    assert_string_equal(reasons[1], "score");
    assert_string_equal(reasons[2], "resign");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_defaults),
        cmocka_unit_test(test_init_initial_state),
        cmocka_unit_test(test_init_bad_variant),
        cmocka_unit_test(test_init_bad_k),
        cmocka_unit_test(test_init_bad_limit),
        cmocka_unit_test(test_init_bad_first_builder),
        cmocka_unit_test(test_init_boundaries),
        cmocka_unit_test(test_free_null),
        cmocka_unit_test(test_example_worked_round),
        cmocka_unit_test(test_example_both_rounds_draw),
        cmocka_unit_test(test_turn_alternates),
        cmocka_unit_test(test_turn_wrong_player_or_step),
        cmocka_unit_test(test_turn_bad_position),
        cmocka_unit_test(test_turn_bad_symbol),
        cmocka_unit_test(test_turn_after_end_is_eover),
        cmocka_unit_test(test_score_square_and_overlap_endings),
        cmocka_unit_test(test_score_points_and_role_swap),
        cmocka_unit_test(test_score_win_either_way),
        cmocka_unit_test(test_score_draw),
        cmocka_unit_test(test_limit_ends_round),
        cmocka_unit_test(test_limit_overlap_k5),
        cmocka_unit_test(test_limit_repetition_wins_over_limit),
        cmocka_unit_test(test_limit_maximum),
        cmocka_unit_test(test_forfeit_any_player_round_step_reason),
        cmocka_unit_test(test_forfeit_beats_scores),
        cmocka_unit_test(test_forfeit_bad_reason),
        cmocka_unit_test(test_forfeit_after_end),
        cmocka_unit_test(test_random_matches_against_model),
        cmocka_unit_test(test_names_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
