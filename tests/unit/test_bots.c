/*
 * test_bots.c: the moves of Thue's bots (games/thue/bots/bot.h) against the references of
 * bots_ref.c, written straight from the "Bots" section of RULES.md (see bots_ref.h).
 *
 * Checked here:
 * - greedy, nested:1, nested:2 and nested:3 (move and node count) on positions reached
 *   by random play (square and overlap, k = 2..8) and on hand-picked ones from RULES.md:
 *   ties, a painter with nothing safe, a builder facing positions where nothing is safe;
 * - limits: a node budget falls back to the last complete level, deterministically; a
 *   stop flag or a past deadline answers at once with the greedy move.
 * Spec parsing and formatting, move seeds, the tie-break and position checks are in
 * test_bots_specs.c; perfect and root splits in test_bots_perfect.c.
 *
 * Usage: test_bots [FILTER [SKIP]] (cmocka name patterns).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bots_ref.h"
#include "base/errors.h"
#include "games/thue/engine/repetition.h"
#include "games/thue/bots/bot.h"

/* ---- tests: greedy ----------------------------------------------------------------- */

static void check_greedy(const thue_position *p, int want)
{
    thue_bot_spec spec = thue_bot_spec_default(THUE_BOT_GREEDY);
    thue_bot_result r;
    assert_int_equal(thue_bot_move(&spec, p, NULL, 99, &r), 0);
    if (r.move != want)
        dump("greedy mismatch", p, 99);
    assert_int_equal(r.move, want);
    assert_int_equal(r.exact, 1);
    assert_int_equal(r.depth, 0);
    assert_int_equal(r.value, -1);
    assert_int_equal(r.nodes, 1);
    assert_int_equal(r.stopped, 0);
    /* greedy ignores the seed and every limit */
    atomic_int stop;
    atomic_init(&stop, 1);
    thue_bot_limits lim = {.think_ms = 1, .node_budget = 1, .stop = &stop};
    assert_int_equal(thue_bot_move(&spec, p, &lim, 12345, &r), 0);
    assert_int_equal(r.move, want);
    assert_int_equal(r.exact, 1);
}

static void test_bots_greedy_hand_picked(void **state)
{
    (void)state;
    /* [0], square k = 3: both gaps take 1 or 2; the tie goes to the last gap. */
    static const uint8_t w0[] = {0}, w012[] = {0, 1, 2}, w0121[] = {0, 1, 2, 1}, w010[] = {0, 1, 0},
                         w00[] = {0, 0};
    thue_position p = mkpos(THUE_SQUARE, 3, w0, 1, THUE_ROLE_BUILDER, 0);
    check_greedy(&p, 1);
    assert_int_equal(ref_greedy(&p), 1);
    p.role = THUE_ROLE_PAINTER;
    check_greedy(&p, 1); /* 00 is a square: 1 is the lowest safe symbol */
    /* 012 (the worked example after two rounds): safe sets {1,2} {2} {0} {0,1}; the
     * fewest is 1, at gaps 1 and 2: the last, 2. */
    p = mkpos(THUE_SQUARE, 3, w012, 3, THUE_ROLE_BUILDER, 0);
    check_greedy(&p, 2);
    assert_int_equal(ref_greedy(&p), 2);
    p.role = THUE_ROLE_PAINTER;
    p.index = 1;
    check_greedy(&p, 2);
    p.index = 3;
    check_greedy(&p, 0);
    /* 0121, painter at 4: 01212 has the square 12|12 and 01211 the square 11; 0 is safe */
    p = mkpos(THUE_SQUARE, 3, w0121, 4, THUE_ROLE_PAINTER, 4);
    check_greedy(&p, 0);
    /* 010, square k = 2: nothing is safe anywhere. The painter plays 0; the builder's
     * gaps all have 0 safe symbols: the last, 3. */
    p = mkpos(THUE_SQUARE, 2, w010, 3, THUE_ROLE_PAINTER, 1);
    assert_int_equal(ref_safe(w010, 3, 2, THUE_SQUARE, 1), 0);
    check_greedy(&p, 0);
    p.role = THUE_ROLE_BUILDER;
    check_greedy(&p, 3);
    /* 00, overlap k = 2: 000 is an overlap, so only 1 is safe (at every gap). */
    p = mkpos(THUE_OVERLAP, 2, w00, 2, THUE_ROLE_PAINTER, 1);
    check_greedy(&p, 1);
    p.role = THUE_ROLE_BUILDER;
    check_greedy(&p, 2);
    /* the empty word: one gap, every symbol safe */
    p = mkpos(THUE_SQUARE, 4, NULL, 0, THUE_ROLE_BUILDER, 0);
    check_greedy(&p, 0);
    p.role = THUE_ROLE_PAINTER;
    check_greedy(&p, 0);
}

static void test_bots_greedy_random_positions(void **state)
{
    (void)state;
    uint8_t w[WMAX];
    int longest = 0, builder_ties = 0, painter_stuck = 0;
    for (int t = 0; t < 400; t++) {
        thue_variant v = (thue_variant)(t & 1);
        int k = 2 + (t / 2) % 7;
        int n = random_word(v, k, 1 + rnd_below(60), w);
        thue_position p = mkpos(v, k, w, n, THUE_ROLE_BUILDER, 0);
        int want = ref_greedy(&p);
        check_greedy(&p, want);
        for (int i = 0; i < want; i++) /* an earlier gap as constrained: a tie */
            if (popcount(ref_safe(w, n, k, v, i)) == popcount(ref_safe(w, n, k, v, want))) {
                builder_ties++;
                break;
            }
        if (n > longest)
            longest = n;
        p.role = THUE_ROLE_PAINTER;
        for (int x = 0; x < 3; x++) {
            p.index = random_index(v, k, w, n);
            painter_stuck += ref_safe(w, n, k, v, p.index) == 0;
            check_greedy(&p, ref_greedy(&p));
        }
    }
    /* the positions are what they should be: long words, ties, stuck painters */
    assert_true(longest >= 55);
    assert_true(builder_ties >= 100);
    assert_true(painter_stuck >= 20);
}

/* ---- tests: nested ----------------------------------------------------------------- */

/* The longest random word worth a nested:L reference (its cost grows like n^(2L+2)
 * k^(2L)). */
static int nested_len(int L, int k)
{
    if (L == 1)
        return k <= 3 ? 60 : k <= 5 ? 36 : 24;
    if (L == 2)
        return k <= 3 ? 20 : k <= 5 ? 12 : 8;
    return k <= 2 ? 10 : 6;
}

static void nested_random(int L, int count)
{
    uint8_t w[WMAX];
    nested_ref ref;
    for (int t = 0; t < count; t++) {
        thue_variant v = (thue_variant)(t & 1);
        int k = L == 3 ? 2 + (t / 2) % 2 : 2 + (t / 2) % 7;
        int n = random_word(v, k, 1 + rnd_below(nested_len(L, k)), w);
        uint64_t seed = thue_bot_move_seed(0xb07, 0, t, THUE_ROLE_BUILDER);
        thue_position p = mkpos(v, k, w, n, THUE_ROLE_BUILDER, 0);
        check_nested(&p, L, seed, &ref);
        p.role = THUE_ROLE_PAINTER;
        for (int x = 0; x < 2; x++) {
            p.index = random_index(v, k, w, n);
            check_nested(&p, L, seed + (uint64_t)x, &ref);
        }
    }
}

static void test_bots_nested1_random_positions(void **state)
{
    (void)state;
    nested_random(1, 200);
}

static void test_bots_nested2_random_positions(void **state)
{
    (void)state;
    nested_random(2, 90);
}

static void test_bots_nested3_short_words(void **state)
{
    (void)state;
    nested_random(3, 12);
}

/* Ties: the move is always one of the tied candidates, and over seeds more than one of
 * them is played. Positions: the empty word and [0] (symmetric), and random ones. */
static void test_bots_nested_ties_follow_the_seed(void **state)
{
    (void)state;
    static const uint8_t w0[] = {0};
    uint8_t w[WMAX];
    nested_ref ref;
    int tied_positions = 0;
    for (int t = 0; t < 40; t++) {
        thue_position p;
        int L = 1 + (t % 2);
        if (t < 4) {
            p = mkpos(THUE_SQUARE, 3 + t % 2, t < 2 ? NULL : w0, t < 2 ? 0 : 1, THUE_ROLE_PAINTER,
                      0);
            if (t % 2)
                p.role = THUE_ROLE_BUILDER;
        } else {
            thue_variant v = (thue_variant)(t % 3 == 0);
            int k = 2 + t % 3;
            int n = random_word(v, k, 2 + rnd_below(8), w);
            p = mkpos(v, k, w, n, t % 4 < 2 ? THUE_ROLE_BUILDER : THUE_ROLE_PAINTER, 0);
            if (p.role == THUE_ROLE_PAINTER)
                p.index = rnd_below(n + 1);
        }
        uint64_t played = 0; /* bit set of the moves played over the seeds */
        int ties = 0;
        for (uint64_t seed = 1; seed <= 24; seed++) {
            ties = check_nested(&p, L, seed * 0x51ed270b27a0c9b1ULL, &ref);
            assert_true(ref.ncand == 0 ? ref.move == 0 : is_tied(&ref, ref.move));
            played |= (uint64_t)1 << ref.move;
        }
        if (ties >= 2) {
            tied_positions++;
            if (popcount(played) < 2)
                dump("always the same tied move", &p, 0);
            assert_true(popcount(played) >= 2);
        } else {
            assert_int_equal(popcount(played), 1);
        }
    }
    assert_true(tied_positions >= 6);
}

/* A painter with nothing safe plays 0 after one node; a builder facing gaps where
 * nothing is safe plays one of them (they score 0, the least possible). */
static void test_bots_nested_nothing_safe(void **state)
{
    (void)state;
    static const uint8_t w010[] = {0, 1, 0};
    nested_ref ref;
    thue_bot_spec spec = spec_of("nested:2");
    thue_bot_result r;
    thue_position p = mkpos(THUE_SQUARE, 2, w010, 3, THUE_ROLE_PAINTER, 2);
    for (int L = 1; L <= 3; L++) {
        spec.level = L;
        assert_int_equal(thue_bot_move(&spec, &p, NULL, 5, &r), 0);
        assert_int_equal(r.move, 0);
        assert_int_equal(r.nodes, 1);
        assert_int_equal(r.exact, 1);
        check_nested(&p, L, 5, &ref);
    }
    /* 010, square k = 2: every gap scores 0; the seed picks among all four. */
    p.role = THUE_ROLE_BUILDER;
    uint64_t played = 0;
    for (uint64_t seed = 0; seed < 32; seed++) {
        check_nested(&p, 2, seed, &ref);
        assert_int_equal(ref.ntied, 4);
        assert_int_equal(ref.nodes, 1);
        played |= (uint64_t)1 << ref.move;
    }
    assert_int_equal(played, 0xf);
    /* Random words with some gap where nothing is safe. */
    uint8_t w[WMAX];
    int found = 0;
    for (int t = 0; t < 400 && found < 30; t++) {
        thue_variant v = (thue_variant)(t & 1);
        int k = 2 + (t / 2) % 3;
        int n = random_word(v, k, 2 + rnd_below(12), w);
        uint64_t dead = 0;
        int live = 0;
        for (int i = 0; i <= n; i++) {
            if (ref_safe(w, n, k, v, i) == 0)
                dead |= (uint64_t)1 << i;
            else
                live++;
        }
        if (dead == 0 || live == 0)
            continue;
        found++;
        p = mkpos(v, k, w, n, THUE_ROLE_BUILDER, 0);
        check_nested(&p, 1 + t % 2, (uint64_t)t, &ref);
        assert_int_equal(ref.score[ref.move], 0);
        assert_true(popcount(dead) <= ref.ntied);
        for (int i = 0; i <= n; i++)
            if ((dead >> i) & 1)
                assert_true(is_tied(&ref, i));
        p.role = THUE_ROLE_PAINTER;
        for (int i = 0; i <= n; i++)
            if ((dead >> i) & 1) {
                p.index = i;
                check_nested(&p, 1 + t % 2, (uint64_t)t, &ref);
                assert_int_equal(ref.move, 0);
            }
    }
    assert_true(found >= 10);
}

/* ---- tests: limits ----------------------------------------------------------------- */

/* nested:2 under node budgets: levels 1 and 2 are computed in turn, so a budget below the
 * nodes of level 1 gives the greedy move, one below levels 1 and 2 the nested:1 move, and
 * enough for both the nested:2 move with every node counted. Deterministic. */
static void test_bots_nested_node_budget_falls_back(void **state)
{
    (void)state;
    uint8_t w[WMAX];
    thue_bot_spec spec = spec_of("nested:2");
    int checked = 0;
    for (int t = 0; t < 24; t++) {
        thue_variant v = (thue_variant)(t & 1);
        int k = 3 + (t / 2) % 3;
        int n = random_word(v, k, 4 + rnd_below(8), w);
        thue_position p = mkpos(v, k, w, n, t % 4 < 2 ? THUE_ROLE_BUILDER : THUE_ROLE_PAINTER, 0);
        if (p.role == THUE_ROLE_PAINTER) {
            p.index = rnd_below(n + 1);
            if (ref_safe(w, n, k, v, p.index) == 0)
                continue;
        }
        uint64_t seed = (uint64_t)t * 7919;
        nested_ref r1, r2;
        ref_nested(&p, 1, seed, &r1);
        ref_nested(&p, 2, seed, &r2);
        uint64_t n1 = r1.nodes - 1, n2 = r2.nodes - 1; /* simulation calls per level */
        int greedy = ref_greedy(&p);
        uint64_t budgets[] = {1,           n1 / 2,      n1 - 1,  n1,          n1 + 1,
                              n1 + n2 / 2, n1 + n2 - 1, n1 + n2, n1 + n2 + 1, 10 * (n1 + n2)};
        for (size_t b = 0; b < LEN(budgets); b++) {
            uint64_t budget = budgets[b] ? budgets[b] : 1;
            thue_bot_limits lim = {.node_budget = budget};
            thue_bot_result r, again;
            run_limited(&spec, &p, &lim, seed, &r);
            run_limited(&spec, &p, &lim, seed, &again);
            assert_int_equal(r.move, again.move);
            assert_int_equal(r.nodes, again.nodes);
            assert_int_equal(r.depth, again.depth);
            assert_int_equal(r.exact, again.exact);
            assert_true(r.nodes <= budget + 1);
            int want_depth = budget >= n1 + n2 ? 2 : budget >= n1 ? 1 : 0;
            int want_move = want_depth == 2 ? r2.move : want_depth == 1 ? r1.move : greedy;
            if (r.depth != want_depth || r.move != want_move)
                dump("budget fallback mismatch", &p, seed);
            assert_int_equal(r.depth, want_depth);
            assert_int_equal(r.move, want_move);
            assert_int_equal(r.exact, want_depth == 2);
            assert_int_equal(r.stopped, budget < n1 + n2);
            if (want_depth == 2)
                assert_int_equal(r.nodes, 1 + n1 + n2);
            else
                assert_int_equal(r.nodes, 1 + budget); /* the whole budget was spent */
        }
        checked++;
    }
    assert_true(checked >= 16);
}

/* A stop flag already set, or a deadline already past, stops the search before its first
 * node: the greedy move (level 0), not exact. A generous think time changes nothing but
 * the level-by-level node count. */
static void test_bots_stop_flag_and_deadline(void **state)
{
    (void)state;
    uint8_t w[WMAX];
    atomic_int stop;
    atomic_init(&stop, 1);
    for (int t = 0; t < 16; t++) {
        thue_variant v = (thue_variant)(t & 1);
        int k = 3 + t % 3;
        int n = random_word(v, k, 5 + rnd_below(8), w);
        thue_position p = mkpos(v, k, w, n, t % 4 < 2 ? THUE_ROLE_BUILDER : THUE_ROLE_PAINTER, 0);
        if (p.role == THUE_ROLE_PAINTER) {
            p.index = rnd_below(n + 1);
            if (ref_safe(w, n, k, v, p.index) == 0)
                continue;
        }
        thue_bot_limits cut[2] = {{.stop = &stop}, {.deadline_ns = 1}};
        const char *specs[] = {"nested:1", "nested:3", "perfect"};
        for (size_t s = 0; s < LEN(specs); s++)
            for (int c = 0; c < 2; c++) {
                thue_bot_spec spec = spec_of(specs[s]);
                thue_bot_result r;
                run_limited(&spec, &p, &cut[c], 3, &r);
                if (r.nodes > 1 + (uint64_t)(n + 1) * (uint64_t)k)
                    print_error("%s stopped at once: %llu nodes\n", specs[s],
                                (unsigned long long)r.nodes);
                assert_true(r.nodes <= 1 + (uint64_t)(n + 1) * (uint64_t)k);
                if (spec.kind == THUE_BOT_NESTED) {
                    assert_int_equal(r.exact, 0);
                    assert_int_equal(r.stopped, 1);
                    assert_int_equal(r.depth, 0);
                    assert_int_equal(r.move, ref_greedy(&p));
                    assert_int_equal(r.nodes, 1);
                }
            }
        /* a stop flag that stays clear and a long think time: the full answer */
        atomic_int clear;
        atomic_init(&clear, 0);
        thue_bot_limits lim = {.think_ms = 600000, .stop = &clear};
        nested_ref r1, r2;
        ref_nested(&p, 1, 77, &r1);
        ref_nested(&p, 2, 77, &r2);
        thue_bot_spec spec = spec_of("nested:2");
        thue_bot_result r;
        run_limited(&spec, &p, &lim, 77, &r);
        assert_int_equal(r.move, r2.move);
        assert_int_equal(r.exact, 1);
        assert_int_equal(r.depth, 2);
        assert_int_equal(r.stopped, 0);
        assert_int_equal(r.nodes, r1.nodes + r2.nodes - 1);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0])
        cmocka_set_test_filter(argv[1]);
    if (argc > 2 && argv[2][0])
        cmocka_set_skip_filter(argv[2]);
#define TEST(f) cmocka_unit_test_setup(f, reset_rng)
    const struct CMUnitTest tests[] = {
        TEST(test_bots_greedy_hand_picked),
        TEST(test_bots_greedy_random_positions),
        TEST(test_bots_nested1_random_positions),
        TEST(test_bots_nested2_random_positions),
        TEST(test_bots_nested3_short_words),
        TEST(test_bots_nested_ties_follow_the_seed),
        TEST(test_bots_nested_nothing_safe),
        TEST(test_bots_nested_node_budget_falls_back),
        TEST(test_bots_stop_flag_and_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_memo);
}
