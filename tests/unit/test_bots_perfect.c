/*
 * test_bots_perfect.c: the perfect bot and root splits against the references of
 * bots_ref.c (see bots_ref.h).
 *
 * Checked here:
 * - perfect: an optimal move and its value against the minimax, with and without the
 *   length limit (remaining) and a look-ahead cap; a tiny node budget;
 * - root splits (2..4 parts, in any order or on threads) against one part, for nested,
 *   perfect and greedy.
 * Two tests pin bugs this suite found in perfect.c, since fixed: the painter reported a
 * lower bound as its value with exact = 1, and a split painter search could play a worse
 * symbol.
 *
 * Usage: test_bots_perfect [FILTER [SKIP]] (cmocka name patterns).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "bots_ref.h"
#include "base/errors.h"
#include "games/thue/engine/repetition.h"
#include "games/thue/bots/bot.h"

/* ---- tests: perfect ------------------------------------------------------------------ */

/* The reference's cap when the bot has no limit: every value tested is below it. */
#define PCAP 12

typedef struct perfect_case {
    thue_variant v;
    int k, maxlen;
} perfect_case;

/* perfect (no limit, or the remaining points R) against the minimax: the move is one of
 * the best and the answer is exact. The builder's result.value is the position's value.
 * The painter's is checked two ways: with strict_value, equal to the chosen move's value
 * (what RULES.md's "exact minimax value" and a result marked exact promise); without, the
 * weaker reading of bot.h ("exact or a lower bound"): at most the move's value and at
 * least every other symbol's, which is what proves the move optimal. Returns 0 when the
 * reference could not resolve the position below `cap` (skipped). */
static int check_perfect(memo *m, const thue_position *p, uint64_t seed, int cap, int strict_value)
{
    int vals[WMAX + 2];
    int R = p->remaining, d = R > 0 ? R : cap;
    int best = ref_root_values(m, p, d, vals);
    if (R == 0 && best >= cap)
        return 0;
    thue_bot_spec spec = spec_of("perfect");
    thue_bot_result r;
    assert_int_equal(thue_bot_move(&spec, p, NULL, seed, &r), 0);
    assert_legal_move(p, r.move);
    int painter = p->role == THUE_ROLE_PAINTER;
    int got = painter && vals[r.move] < 0 ? 0 : vals[r.move];
    int value_ok = r.value == best;
    if (painter && !strict_value) {
        value_ok = r.value <= best;
        for (int c = 0; c < p->k; c++)
            if (c != r.move && vals[c] > r.value)
                value_ok = 0;
    }
    if (got != best || !value_ok || !r.exact) {
        dump("perfect mismatch", p, seed);
        print_error("perfect: move %d (reference value %d) value %d exact %d; best %d\n", r.move,
                    got, r.value, r.exact, best);
    }
    assert_int_equal(got, best);
    assert_true(value_ok);
    assert_int_equal(r.exact, 1);
    assert_int_equal(r.stopped, 0);
    assert_true(r.nodes >= 1);
    return 1;
}

static void perfect_positions(const perfect_case *cases, size_t ncases, int per_case, int remaining)
{
    uint8_t w[WMAX];
    for (size_t x = 0; x < ncases; x++) {
        memo *m = memo_open(cases[x].k, cases[x].v);
        int checked = 0;
        for (int t = 0; t < per_case; t++) {
            int n = random_word(cases[x].v, cases[x].k, 1 + rnd_below(cases[x].maxlen), w);
            thue_position p = mkpos(cases[x].v, cases[x].k, w, n, THUE_ROLE_BUILDER, 0);
            p.remaining = remaining < 0 ? 1 + rnd_below(-remaining) : remaining;
            uint64_t seed = (uint64_t)t * 31 + x;
            checked += check_perfect(m, &p, seed, PCAP, 0);
            p.role = THUE_ROLE_PAINTER;
            p.index = random_index(cases[x].v, cases[x].k, w, n);
            checked += check_perfect(m, &p, seed, PCAP, 0);
        }
        assert_true(checked >= per_case);
    }
}

static void test_bots_perfect_against_minimax(void **state)
{
    (void)state;
    const perfect_case cases[] = {
        {THUE_SQUARE, 2, 3}, {THUE_SQUARE, 3, 6}, {THUE_SQUARE, 4, 9}, {THUE_OVERLAP, 2, 10}};
    perfect_positions(cases, LEN(cases), 30, 0);
    /* [0] and the empty word, from the start */
    static const uint8_t w0[] = {0};
    for (size_t x = 0; x < LEN(cases); x++) {
        memo *m = memo_open(cases[x].k, cases[x].v);
        thue_position p = mkpos(cases[x].v, cases[x].k, w0, 1, THUE_ROLE_BUILDER, 0);
        assert_true(check_perfect(m, &p, 1, PCAP, 0));
        p.n = 0;
        assert_true(check_perfect(m, &p, 1, PCAP, 0));
    }
}

/* The painter's result.value, with exact = 1, is the chosen symbol's value, i.e. the
 * position's value. (perfect.c once stopped deepening a painter's share as soon as at
 * most one symbol was still a lower bound and reported that bound, so a forced move (one
 * safe symbol) always reported value 1.) Example: square k = 3, word 01, painter at gap 1: only 2
 * is safe (001 and 011 hold squares), and 021 is worth 1 more point to the painter (the builder
 * cannot end the round at once), so the value is 2; the bot said 1 with exact = 1. */
static void test_bots_perfect_painter_value_is_the_move_value(void **state)
{
    (void)state;
    static const uint8_t w01[] = {0, 1};
    memo *m = memo_open(3, THUE_SQUARE);
    thue_position p = mkpos(THUE_SQUARE, 3, w01, 2, THUE_ROLE_PAINTER, 1);
    int vals[WMAX + 2];
    assert_int_equal(ref_root_values(m, &p, PCAP, vals), 2);
    assert_int_equal(vals[0], -1);
    assert_int_equal(vals[1], -1);
    assert_int_equal(vals[2], 2);
    const perfect_case cases[] = {{THUE_SQUARE, 3, 6}, {THUE_SQUARE, 4, 8}, {THUE_OVERLAP, 2, 10}};
    uint8_t w[WMAX];
    int checked = 0;
    for (size_t x = 0; x < LEN(cases); x++) {
        memo *mc = memo_open(cases[x].k, cases[x].v);
        if (x == 0) {
            p.remaining = 0;
            checked += check_perfect(mc, &p, 1, PCAP, 1);
        }
        for (int t = 0; t < 20; t++) {
            int n = random_word(cases[x].v, cases[x].k, 1 + rnd_below(cases[x].maxlen), w);
            p = mkpos(cases[x].v, cases[x].k, w, n, THUE_ROLE_PAINTER,
                      random_index(cases[x].v, cases[x].k, w, n));
            p.remaining = t % 2 ? 0 : 1 + t % 5;
            checked += check_perfect(mc, &p, (uint64_t)t, PCAP, 1);
        }
    }
    assert_true(checked >= 40);
}

/* With R points left before the length limit the values are capped at R and exact. */
static void test_bots_perfect_remaining_caps_values(void **state)
{
    (void)state;
    const perfect_case cases[] = {{THUE_SQUARE, 3, 6},
                                  {THUE_SQUARE, 4, 8},
                                  {THUE_SQUARE, 5, 6},
                                  {THUE_OVERLAP, 2, 10},
                                  {THUE_OVERLAP, 3, 10}};
    perfect_positions(cases, LEN(cases), 20, -4); /* R = 1..4 */
    /* square k = 4 from [0] is worth 5: R = 1..6 caps it */
    static const uint8_t w0[] = {0};
    memo *m = memo_open(4, THUE_SQUARE);
    for (int R = 1; R <= 6; R++) {
        thue_position p = mkpos(THUE_SQUARE, 4, w0, 1, THUE_ROLE_BUILDER, 0);
        p.remaining = R;
        thue_bot_spec spec = spec_of("perfect");
        thue_bot_result r;
        assert_int_equal(thue_bot_move(&spec, &p, NULL, 1, &r), 0);
        assert_int_equal(r.value, R < 5 ? R : 5);
        assert_int_equal(r.exact, 1);
        assert_true(check_perfect(m, &p, 2, PCAP, 0));
    }
}

/* Overlap k = 3 from the start is worth 10: positions are checked where the reference
 * resolves them below a small cap. */
static void test_bots_perfect_overlap3(void **state)
{
    (void)state;
    uint8_t w[WMAX];
    memo *m = memo_open(3, THUE_OVERLAP);
    int checked = 0;
    for (int t = 0; t < 30; t++) {
        int n = random_word(THUE_OVERLAP, 3, 8 + rnd_below(10), w);
        thue_position p = mkpos(THUE_OVERLAP, 3, w, n, THUE_ROLE_BUILDER, 0);
        checked += check_perfect(m, &p, (uint64_t)t, 6, 0);
        p.role = THUE_ROLE_PAINTER;
        p.index = random_index(THUE_OVERLAP, 3, w, n);
        checked += check_perfect(m, &p, (uint64_t)t, 6, 0);
    }
    assert_true(checked >= 10);
}

/* perfect:depth=D: the values are those of a D-insertion look-ahead, min(value, D); the
 * answer is exact when the value is below D. */
static void test_bots_perfect_depth_cap(void **state)
{
    (void)state;
    uint8_t w[WMAX];
    memo *m = memo_open(4, THUE_SQUARE);
    for (int t = 0; t < 30; t++) {
        int n = random_word(THUE_SQUARE, 4, 1 + rnd_below(6), w);
        thue_position p = mkpos(THUE_SQUARE, 4, w, n, THUE_ROLE_BUILDER, 0);
        int D = 1 + t % 4;
        int vals[WMAX + 2], full[WMAX + 2];
        int best = ref_root_values(m, &p, D, vals);
        int truth = ref_root_values(m, &p, PCAP, full);
        assert_true(truth < PCAP);
        assert_int_equal(best, truth < D ? truth : D);
        thue_bot_spec spec = spec_of("perfect");
        spec.max_depth = D;
        thue_bot_result r;
        assert_int_equal(thue_bot_move(&spec, &p, NULL, (uint64_t)t, &r), 0);
        assert_legal_move(&p, r.move);
        assert_int_equal(vals[r.move], best);
        assert_int_equal(r.value, best);
        assert_int_equal(r.exact, truth < D);
        assert_true(r.depth <= D);
    }
}

/* A tiny node budget: a legal move, not exact, and the value (when any) a lower bound of
 * the chosen move's value. */
static void test_bots_perfect_node_budget_not_exact(void **state)
{
    (void)state;
    uint8_t w[WMAX];
    memo *m = memo_open(4, THUE_SQUARE);
    thue_bot_spec spec = spec_of("perfect");
    int cut = 0;
    for (int t = 0; t < 40; t++) {
        int n = random_word(THUE_SQUARE, 4, 1 + rnd_below(4), w);
        thue_position p =
            mkpos(THUE_SQUARE, 4, w, n, t & 1 ? THUE_ROLE_PAINTER : THUE_ROLE_BUILDER, 0);
        if (p.role == THUE_ROLE_PAINTER) {
            p.index = rnd_below(n + 1);
            if (popcount(ref_safe(w, n, 4, THUE_SQUARE, p.index)) < 2)
                continue;
        }
        int vals[WMAX + 2];
        int best = ref_root_values(m, &p, PCAP, vals);
        if (best < 2)
            continue; /* too easy to be cut short by a few nodes */
        thue_bot_result full;
        assert_int_equal(thue_bot_move(&spec, &p, NULL, 9, &full), 0);
        for (uint64_t budget = 1; budget <= 3; budget++) {
            thue_bot_limits lim = {.node_budget = budget};
            thue_bot_result r, again;
            run_limited(&spec, &p, &lim, 9, &r);
            run_limited(&spec, &p, &lim, 9, &again);
            if (full.nodes > budget + 1) { /* the search needs more than the budget */
                assert_int_equal(r.exact, 0);
                assert_int_equal(r.stopped, 1);
                cut++;
            }
            if (r.exact)
                assert_int_equal(vals[r.move], best);
            assert_int_equal(r.move, again.move);
            assert_int_equal(r.value, again.value);
            assert_int_equal(r.nodes, again.nodes);
            assert_true(r.nodes <= budget + 1);
            assert_true(r.value == -1 ||
                        (r.value >= 0 && r.value <= ref_move_value(m, &p, r.move, PCAP)));
        }
    }
    assert_true(cut >= 20);
}

/* ---- tests: root splits -------------------------------------------------------------- */

typedef struct part_job {
    thue_bot_search *s;
    int part;
    const thue_bot_limits *lim;
} part_job;

static void run_part_thread(void *arg)
{
    part_job *j = arg;
    thue_bot_search_run_part(j->s, j->part, j->lim);
}

/* The move of a search split into `parts` parts, run in reverse order or on threads. */
static void split_move(const thue_bot_spec *spec, const thue_position *p, uint64_t seed, int parts,
                       int threads, const thue_bot_limits *lim, thue_bot_result *out)
{
    int err = 1;
    thue_bot_search *s = thue_bot_search_new(spec, p, seed, parts, &err);
    assert_non_null(s);
    assert_int_equal(err, 0);
    int np = thue_bot_search_parts(s);
    assert_in_range(np, 1, parts);
    if (threads) {
        uv_thread_t tid[THUE_BOT_PARTS_MAX];
        part_job jobs[THUE_BOT_PARTS_MAX];
        for (int q = 0; q < np; q++) {
            jobs[q] = (part_job){s, q, lim};
            assert_int_equal(uv_thread_create(&tid[q], run_part_thread, &jobs[q]), 0);
        }
        for (int q = 0; q < np; q++)
            assert_int_equal(uv_thread_join(&tid[q]), 0);
    } else {
        for (int q = np - 1; q >= 0; q--)
            thue_bot_search_run_part(s, q, lim);
    }
    assert_int_equal(thue_bot_search_finish(s, out), 0);
    thue_bot_search_free(s);
}

static void assert_same_result(const thue_position *p, uint64_t seed, int parts,
                               const thue_bot_result *one, const thue_bot_result *split,
                               int same_nodes)
{
    if (one->move != split->move || one->value != split->value || one->exact != split->exact ||
        (same_nodes && one->nodes != split->nodes)) {
        dump("split mismatch", p, seed);
        print_error("%d parts: move %d value %d exact %d nodes %llu; one part: move %d value %d "
                    "exact %d nodes %llu\n",
                    parts, split->move, split->value, split->exact,
                    (unsigned long long)split->nodes, one->move, one->value, one->exact,
                    (unsigned long long)one->nodes);
    }
    assert_int_equal(split->move, one->move);
    assert_int_equal(split->value, one->value);
    assert_int_equal(split->exact, one->exact);
    /* nested: the same level and work; perfect's parts stop deepening each on its own
     * share, so its depth (the least any part completed) and node count may differ */
    if (same_nodes) {
        assert_int_equal(split->depth, one->depth);
        assert_int_equal(split->nodes, one->nodes);
    }
}

static void test_bots_split_nested_matches_one_part(void **state)
{
    (void)state;
    uint8_t w[WMAX];
    for (int t = 0; t < 48; t++) {
        thue_variant v = (thue_variant)(t & 1);
        int k = 2 + (t / 2) % 5;
        int L = 1 + t % 2;
        int n = random_word(v, k, 2 + rnd_below(L == 1 ? 30 : 10), w);
        thue_position p = mkpos(v, k, w, n, t % 4 < 2 ? THUE_ROLE_BUILDER : THUE_ROLE_PAINTER, 0);
        if (p.role == THUE_ROLE_PAINTER)
            p.index = random_index(v, k, w, n);
        thue_bot_spec spec = thue_bot_spec_default(THUE_BOT_NESTED);
        spec.level = L;
        uint64_t seed = thue_bot_move_seed(42, 1, t, p.role);
        thue_bot_result one, split;
        assert_int_equal(thue_bot_move(&spec, &p, NULL, seed, &one), 0);
        nested_ref ref;
        ref_nested(&p, L, seed, &ref);
        assert_int_equal(one.move, ref.move);
        assert_int_equal(one.nodes, ref.nodes);
        for (int parts = 2; parts <= 4; parts++) {
            split_move(&spec, &p, seed, parts, t % 3 == 0, NULL, &split);
            assert_same_result(&p, seed, parts, &one, &split, 1);
        }
        /* Under a node budget large enough for levels 1..L, each part's share is too. */
        uint64_t need = ref.nodes - 1;
        if (L == 2) {
            nested_ref r1;
            ref_nested(&p, 1, seed, &r1);
            need += r1.nodes - 1;
        }
        thue_bot_limits lim = {.node_budget = 4 * need};
        for (int parts = 2; parts <= 4; parts++) {
            split_move(&spec, &p, seed, parts, t % 3 == 1, &lim, &split);
            assert_int_equal(split.move, ref.move);
            assert_int_equal(split.nodes, 1 + need);
            assert_int_equal(split.exact, 1);
            /* a small budget: the same answer every time, on threads or not */
            thue_bot_limits small = {.node_budget = need / 3 + 1};
            thue_bot_result a, b;
            split_move(&spec, &p, seed, parts, 1, &small, &a);
            split_move(&spec, &p, seed, parts, 0, &small, &b);
            assert_int_equal(a.move, b.move);
            assert_int_equal(a.nodes, b.nodes);
            assert_int_equal(a.depth, b.depth);
            assert_int_equal(a.exact, b.exact);
            assert_legal_move(&p, a.move);
            /* the budget is the whole search's (each part gets its share, at least 1) */
            uint64_t most =
                small.node_budget > (uint64_t)parts ? small.node_budget : (uint64_t)parts;
            assert_true(a.nodes <= most + 1);
        }
    }
}

/* perfect split into 2..4 parts against one part and the minimax: an optimal move, the
 * same move, value and exactness. */
static void split_perfect(thue_role role)
{
    uint8_t w[WMAX];
    const perfect_case cases[] = {
        {THUE_SQUARE, 3, 6}, {THUE_SQUARE, 4, 8}, {THUE_OVERLAP, 2, 10}, {THUE_OVERLAP, 3, 14}};
    thue_bot_spec spec = spec_of("perfect");
    for (size_t x = 0; x < LEN(cases); x++) {
        memo *m = memo_open(cases[x].k, cases[x].v);
        for (int t = 0; t < 12; t++) {
            int n = random_word(cases[x].v, cases[x].k, 1 + rnd_below(cases[x].maxlen), w);
            thue_position p = mkpos(cases[x].v, cases[x].k, w, n, role, 0);
            if (p.role == THUE_ROLE_PAINTER)
                p.index = random_index(cases[x].v, cases[x].k, w, n);
            if (cases[x].k == 3 && cases[x].v == THUE_OVERLAP)
                p.remaining = 1 + t % 5; /* keeps the reference small */
            int vals[WMAX + 2];
            int best = ref_root_values(m, &p, p.remaining ? p.remaining : PCAP, vals);
            uint64_t seed = (uint64_t)t;
            thue_bot_result one, split;
            assert_int_equal(thue_bot_move(&spec, &p, NULL, seed, &one), 0);
            for (int parts = 2; parts <= 4; parts++) {
                split_move(&spec, &p, seed, parts, parts == 3, NULL, &split);
                assert_legal_move(&p, split.move);
                int got = role == THUE_ROLE_PAINTER && vals[split.move] < 0 ? 0 : vals[split.move];
                if (got != best) {
                    dump("split perfect plays a worse move", &p, seed);
                    print_error("%d parts: move %d worth %d (value %d exact %d); best %d\n", parts,
                                split.move, got, split.value, split.exact, best);
                }
                assert_int_equal(got, best);
                assert_same_result(&p, seed, parts, &one, &split, 0);
            }
        }
    }
}

static void test_bots_split_perfect_builder_matches_one_part(void **state)
{
    (void)state;
    split_perfect(THUE_ROLE_BUILDER);
}

/* A split painter search plays what one part plays. (Each part once deepened its own
 * share only until at most one of ITS symbols was still a lower bound, so a part holding
 * one symbol stopped at look-ahead 1 with value 1 whatever the symbol was worth.)
 * Example: square k = 3, word 210, painter at gap 0: 0 and 1 are safe; 0210 is worth 2 to
 * the painter, 1210 only 1. One part plays 0 (value 2, exact); two parts with seed 0
 * played 1 (value 1, exact 0). */
static void test_bots_split_perfect_painter_matches_one_part(void **state)
{
    (void)state;
    static const uint8_t w210[] = {2, 1, 0};
    thue_position p = mkpos(THUE_SQUARE, 3, w210, 3, THUE_ROLE_PAINTER, 0);
    memo *m = memo_open(3, THUE_SQUARE);
    int vals[WMAX + 2];
    assert_int_equal(ref_root_values(m, &p, PCAP, vals), 2);
    assert_int_equal(vals[0], 2);
    assert_int_equal(vals[1], 1);
    assert_int_equal(vals[2], -1);
    thue_bot_spec spec = spec_of("perfect");
    for (uint64_t seed = 0; seed < 4; seed++) {
        thue_bot_result one, split;
        assert_int_equal(thue_bot_move(&spec, &p, NULL, seed, &one), 0);
        assert_int_equal(one.move, 0);
        assert_int_equal(one.value, 2);
        assert_int_equal(one.exact, 1);
        split_move(&spec, &p, seed, 2, 0, NULL, &split);
        assert_same_result(&p, seed, 2, &one, &split, 0);
    }
    split_perfect(THUE_ROLE_PAINTER);
}

/* Greedy never splits. */
static void test_bots_split_greedy_is_one_part(void **state)
{
    (void)state;
    static const uint8_t w[] = {0, 1, 2, 0};
    thue_position p = mkpos(THUE_SQUARE, 3, w, 4, THUE_ROLE_BUILDER, 0);
    thue_bot_spec spec = spec_of("greedy");
    int err;
    thue_bot_search *s = thue_bot_search_new(&spec, &p, 1, 8, &err);
    assert_non_null(s);
    assert_int_equal(thue_bot_search_parts(s), 1);
    thue_bot_search_run_part(s, 0, NULL);
    thue_bot_result r;
    assert_int_equal(thue_bot_search_finish(s, &r), 0);
    assert_int_equal(r.move, ref_greedy(&p));
    thue_bot_search_free(s);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0])
        cmocka_set_test_filter(argv[1]);
    if (argc > 2 && argv[2][0])
        cmocka_set_skip_filter(argv[2]);
#define TEST(f) cmocka_unit_test_setup(f, reset_rng)
    const struct CMUnitTest tests[] = {
        TEST(test_bots_perfect_against_minimax),
        TEST(test_bots_perfect_painter_value_is_the_move_value),
        TEST(test_bots_perfect_remaining_caps_values),
        TEST(test_bots_perfect_overlap3),
        TEST(test_bots_perfect_depth_cap),
        TEST(test_bots_perfect_node_budget_not_exact),
        TEST(test_bots_split_nested_matches_one_part),
        TEST(test_bots_split_perfect_builder_matches_one_part),
        TEST(test_bots_split_perfect_painter_matches_one_part),
        TEST(test_bots_split_greedy_is_one_part),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_memo);
}
