/*
 * test_dots_bots.c: dots and boxes' exact solver and own bots (server/games/dots/)
 * against references that know only the rules:
 *   - the solver (alpha-beta, table, symmetries, free captures) against plain minimax on
 *     every position of 1x1, 1x2 and 2x1, every 2x2 position with at most 7 lines left
 *     and random midgames of 2x2, 2x3 and outline 3x3 boards;
 *   - its values from the start against a retrograde table over every set of drawn lines
 *     (2x2, 2x3, 3x2, outline 3x3 and 4x4... up to 3x3 itself, 2^24 sets), the values
 *     docs/games.md gives;
 *   - perfect: its move keeps the value it reports; on 3x4 it refuses the early
 *     positions at once, saying why, and a room's perfect bot answers them within its
 *     time with the heuristic's move;
 *   - the heuristic's three rules on random positions, each rule checked with the game's
 *     own apply (boxes taken, third sides given, the boxes the opponent then takes);
 *   - the strong bot without its exact search, in positions made only of chains and
 *     loops: every move it makes keeps the exact value; double-dealing by hand (the last
 *     two boxes of a chain declined when another chain is left, taken when none is);
 *     and over whole 3x4 games it beats the heuristic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/dots/dots.h"
#include "games/game.h"
#include "games/registry.h"
#include "search/gbot.h"

static const thue_gamedef *G = &thue_game_dots;

static thue_dots_opt mkopt(int R, int C, bool outline)
{
    thue_dots_opt o = {R, C, outline};
    return o;
}

static uint64_t border_set(int R, int C)
{
    uint64_t d = 0;
    for (int l = 0; l < thue_dots_nlines(R, C); l++)
        if (thue_dots_border(R, C, l))
            d |= (uint64_t)1 << l;
    return d;
}

static int solve(const thue_dots_opt *o, uint64_t d, int *best)
{
    int net, b;
    assert_int_equal(thue__dots_solve(o, d, 0, NULL, &net, &b, NULL), 0);
    if (best)
        *best = b;
    return net;
}

/* Boxes that line l completes in d (the test's own count). */
static int gain(int R, int C, uint64_t d, int l)
{
    int b[2], k = 0;
    thue_dots_line_boxes(R, C, l, b);
    for (int i = 0; i < 2; i++)
        if (b[i] >= 0 && thue_dots_count(R, C, &d, b[i]) == 3)
            k++;
    return k;
}

/* The value of playing l in d, from the solver's values of the child. */
static int move_value(const thue_dots_opt *o, uint64_t d, int l)
{
    int R = o->rows, C = o->cols;
    int k = gain(R, C, d, l);
    uint64_t c = d | (uint64_t)1 << l;
    int full = thue_dots_nlines(R, C);
    uint64_t all = full >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << full) - 1);
    int v = c == all ? 0 : solve(o, c, NULL);
    return k > 0 ? k + v : -v;
}

static void check_solver_at(const thue_dots_opt *o, uint64_t d)
{
    int full = thue_dots_nlines(o->rows, o->cols);
    uint64_t all = (((uint64_t)1 << full) - 1);
    if (d == all)
        return;
    int best;
    int v = solve(o, d, &best);
    int ref = thue__dots_minimax(o, d);
    if (v != ref)
        print_error("%dx%d drawn %llx: solver %d, minimax %d\n", o->rows, o->cols,
                    (unsigned long long)d, v, ref);
    assert_int_equal(v, ref);
    assert_true(best >= 0 && best < full && !((d >> best) & 1));
    assert_int_equal(move_value(o, d, best), v);
}

static void test_dots_solver_small_boards(void **state)
{
    (void)state;
    int dims[3][2] = {{1, 1}, {1, 2}, {2, 1}};
    for (int i = 0; i < 3; i++) {
        thue_dots_opt o = mkopt(dims[i][0], dims[i][1], false);
        int n = thue_dots_nlines(o.rows, o.cols);
        for (uint64_t d = 0; d < ((uint64_t)1 << n); d++)
            check_solver_at(&o, d);
    }
    /* 2x2: every position with at most 7 lines left. */
    thue_dots_opt o = mkopt(2, 2, false);
    for (uint64_t d = 0; d < (1u << 12); d++)
        if (12 - __builtin_popcountll(d) <= 7)
            check_solver_at(&o, d);
}

static void test_dots_solver_random_midgames(void **state)
{
    (void)state;
    struct {
        int R, C, left;
        bool outline;
    } cases[] = {{2, 2, 9, false}, {2, 3, 9, false}, {3, 2, 8, false}, {3, 3, 9, true}};
    uint64_t rng = 12345;
    for (int ci = 0; ci < 4; ci++) {
        thue_dots_opt o = mkopt(cases[ci].R, cases[ci].C, cases[ci].outline);
        int n = thue_dots_nlines(o.rows, o.cols);
        for (int t = 0; t < 40; t++) {
            uint64_t d = o.outline ? border_set(o.rows, o.cols) : 0;
            while (n - __builtin_popcountll(d) > cases[ci].left)
                d |= (uint64_t)1 << (thue_splitmix64(&rng) % (uint64_t)n);
            check_solver_at(&o, d);
        }
    }
}

/* Retrograde over every set of drawn lines: v[d] for the player to move. */
static int retro_start(int R, int C, bool outline)
{
    int n = thue_dots_nlines(R, C);
    size_t size = (size_t)1 << n;
    int8_t *v = malloc(size);
    assert_non_null(v);
    uint64_t all = size - 1;
    /* Box masks for a fast count. */
    uint64_t box[THUE_DOTS_BOXES_MAX];
    for (int b = 0; b < R * C; b++) {
        int s[4];
        thue_dots_sides(R, C, b, s);
        box[b] =
            (uint64_t)1 << s[0] | (uint64_t)1 << s[1] | (uint64_t)1 << s[2] | (uint64_t)1 << s[3];
    }
    int lb[THUE_DOTS_SOLVE_LINES_MAX][2];
    for (int l = 0; l < n; l++)
        thue_dots_line_boxes(R, C, l, lb[l]);
    v[all] = 0;
    for (uint64_t d = all; d-- > 0;) {
        int best = -100;
        for (int l = 0; l < n; l++) {
            if ((d >> l) & 1)
                continue;
            uint64_t c = d | (uint64_t)1 << l;
            int k = 0;
            for (int i = 0; i < 2; i++)
                if (lb[l][i] >= 0 && (c & box[lb[l][i]]) == box[lb[l][i]])
                    k++;
            int x = k > 0 ? k + v[c] : -v[c];
            if (x > best)
                best = x;
        }
        v[d] = (int8_t)best;
    }
    int r = v[outline ? border_set(R, C) : 0];
    free(v);
    return r;
}

static void test_dots_solver_start_values(void **state)
{
    (void)state;
    struct {
        int R, C;
        bool outline;
        int value; /* docs/games.md */
    } cases[] = {{1, 1, false, -1}, {2, 2, false, 2}, {2, 3, false, -2}, {3, 2, false, -2},
                 {3, 3, true, 7},   {2, 4, true, 0},  {3, 3, false, -3}};
    for (int i = 0; i < 7; i++) {
        thue_dots_opt o = mkopt(cases[i].R, cases[i].C, cases[i].outline);
        uint64_t d = o.outline ? border_set(o.rows, o.cols) : 0;
        int v = solve(&o, d, NULL);
        int ref = retro_start(o.rows, o.cols, o.outline);
        print_message("%dx%d%s: solver %d, retrograde %d\n", o.rows, o.cols,
                      o.outline ? " outline" : "", v, ref);
        assert_int_equal(v, ref);
        assert_int_equal(v, cases[i].value);
    }
}

/* perfect through the table: its move reaches a position of the value it reports. */
static void test_dots_perfect_member(void **state)
{
    (void)state;
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(G, "{\"rows\":2,\"cols\":3}", &opt, &e), 0);
    const thue_dots_opt *o = (const thue_dots_opt *)(const void *)&opt;
    uint64_t rng = 77;
    for (int game = 0; game < 20; game++) {
        thue_dots_state s;
        G->start(&opt, 1, &s);
        thue_gmove mv[32];
        while (G->to_move(&opt, &s) >= 0) {
            int p = G->to_move(&opt, &s);
            thue_gmove best;
            int value;
            assert_int_equal(G->perfect(&opt, &s, NULL, &best, &value), 0);
            int diff = s.score[p] - s.score[p ^ 1];
            int net = solve(o, s.drawn[0], NULL);
            assert_int_equal(value, diff + net > 0 ? 1 : diff + net < 0 ? -1 : 0);
            thue_dots_state c = s;
            assert_int_equal(G->apply(&opt, &c, p, &best, &e), 0);
            int l = c.last;
            assert_int_equal(move_value(o, s.drawn[0], l), net);
            int n = G->legal_moves(&opt, &s, mv);
            thue_gmove m = mv[thue_splitmix64(&rng) % (uint64_t)n];
            assert_int_equal(G->apply(&opt, &s, p, &m, &e), 0);
        }
    }
    /* Beyond its reach: THUE_ETOOBIG, not a guess. */
    assert_int_equal(thue_game_options_text(G, "{\"rows\":6,\"cols\":6}", &opt, &e), 0);
    thue_dots_state s;
    G->start(&opt, 1, &s);
    thue_gmove best;
    int value;
    assert_int_equal(G->perfect(&opt, &s, NULL, &best, &value), THUE_ETOOBIG);
}

/* ---- the heuristic ------------------------------------------------------------------- */

/* The test's own view of a line through the game's apply: boxes it takes, whether it
 * gives some box its third side, and the boxes the opponent then takes in a row. */
static void judge(const thue_gopt *opt, const thue_dots_state *s, int l, int *takes, int *third,
                  int *handed)
{
    const thue_dots_opt *o = (const thue_dots_opt *)(const void *)opt;
    int R = o->rows, C = o->cols, H = (R + 1) * C;
    thue_gmove m = l < H ? (thue_gmove){{0, l / C, l % C, 0}}
                         : (thue_gmove){{1, (l - H) / (C + 1), (l - H) % (C + 1), 0}};
    thue_dots_state c = *s;
    thue_gerr e;
    int p = s->to_move;
    assert_int_equal(G->apply(opt, &c, p, &m, &e), 0);
    *takes = c.score[p] - s->score[p];
    *third = 0;
    int b[2];
    thue_dots_line_boxes(R, C, l, b);
    for (int i = 0; i < 2; i++)
        if (b[i] >= 0 && thue_dots_count(R, C, c.drawn, b[i]) == 3)
            *third = 1;
    /* The opponent takes whatever completes a box, as long as something does. */
    *handed = 0;
    if (*takes > 0)
        return;
    int q = p ^ 1, more = 1;
    while (more && G->to_move(opt, &c) >= 0) {
        more = 0;
        thue_gmove mv[THUE_DOTS_LINES_MAX];
        int n = G->legal_moves(opt, &c, mv);
        for (int i = 0; i < n; i++) {
            thue_dots_state t = c;
            assert_int_equal(G->apply(opt, &t, q, &mv[i], &e), 0);
            if (t.score[q] > c.score[q]) {
                c = t;
                more = 1;
                break;
            }
        }
    }
    *handed = c.score[q] - s->score[q];
}

static void test_dots_heuristic_rules(void **state)
{
    (void)state;
    const char *boards[] = {"{\"rows\":3,\"cols\":3}", "{\"rows\":4,\"cols\":5}",
                            "{\"rows\":3,\"cols\":4,\"outline\":true}"};
    int seen[3] = {0, 0, 0};
    uint64_t rng = 4242;
    for (int bi = 0; bi < 3; bi++) {
        thue_gopt opt;
        thue_gerr e;
        assert_int_equal(thue_game_options_text(G, boards[bi], &opt, &e), 0);
        const thue_dots_opt *o = (const thue_dots_opt *)(const void *)&opt;
        int nl = thue_dots_nlines(o->rows, o->cols);
        for (int game = 0; game < 30; game++) {
            thue_dots_state s;
            G->start(&opt, 1, &s);
            while (G->to_move(&opt, &s) >= 0) {
                uint64_t seed = thue_splitmix64(&rng);
                int l = thue__dots_heuristic(o, &s, seed);
                assert_true(l >= 0 && l < nl && !thue_dots_bit(s.drawn, l));
                int maxtake = 0, any_neutral = 0, fewest = 1 << 30;
                for (int x = 0; x < nl; x++) {
                    if (thue_dots_bit(s.drawn, x))
                        continue;
                    int t, th, h;
                    judge(&opt, &s, x, &t, &th, &h);
                    if (t > maxtake)
                        maxtake = t;
                    if (t == 0 && !th)
                        any_neutral = 1;
                    if (t == 0 && h < fewest)
                        fewest = h;
                }
                int t, th, h;
                judge(&opt, &s, l, &t, &th, &h);
                if (maxtake > 0) {
                    assert_int_equal(t, maxtake); /* rule 1 */
                    seen[0]++;
                } else if (any_neutral) {
                    assert_false(th); /* rule 2 */
                    seen[1]++;
                } else {
                    assert_int_equal(h, fewest); /* rule 3 */
                    assert_int_equal(thue__dots_handed(o, &s, l), h);
                    seen[2]++;
                }
                /* Play on: mostly the heuristic's own line (it reaches the positions with
                 * no neutral line left), sometimes a random one. */
                thue_gmove mv[THUE_DOTS_LINES_MAX];
                int n = G->legal_moves(&opt, &s, mv);
                thue_gmove m = mv[thue_splitmix64(&rng) % (uint64_t)n];
                if (thue_splitmix64(&rng) % 4 != 0) {
                    int H = (o->rows + 1) * o->cols, C = o->cols;
                    m = l < H ? (thue_gmove){{0, l / C, l % C, 0}}
                              : (thue_gmove){{1, (l - H) / (C + 1), (l - H) % (C + 1), 0}};
                }
                assert_int_equal(G->apply(&opt, &s, s.to_move, &m, &e), 0);
            }
        }
    }
    print_message("rule 1: %d positions, rule 2: %d, rule 3: %d\n", seen[0], seen[1], seen[2]);
    assert_true(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);

    /* Rule 2 at random: different seeds pick different neutral lines. */
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(G, "{\"rows\":3,\"cols\":3}", &opt, &e), 0);
    thue_dots_state s;
    G->start(&opt, 1, &s);
    int first = thue__dots_heuristic((const thue_dots_opt *)(const void *)&opt, &s, 1), other = 0;
    for (uint64_t seed = 2; seed < 40; seed++)
        other |= thue__dots_heuristic((const thue_dots_opt *)(const void *)&opt, &s, seed) != first;
    assert_true(other);
    assert_int_equal(thue__dots_heuristic((const thue_dots_opt *)(const void *)&opt, &s, 1), first);
}

/* ---- the strong bot's endgame ------------------------------------------------------------ */

/* Whether every open box of d has at most two undrawn sides (chains and loops only, some
 * perhaps opened) and no neutral line is left. */
static int chains_only(int R, int C, uint64_t d)
{
    for (int b = 0; b < R * C; b++)
        if (thue_dots_count(R, C, &d, b) < 2)
            return 0;
    return 1;
}

static void test_dots_strong_endgame(void **state)
{
    (void)state;
    struct {
        int R, C;
    } boards[] = {{3, 3}, {2, 4}, {3, 4}, {4, 3}};
    uint64_t rng = 999;
    int checked = 0;
    for (int bi = 0; bi < 4; bi++) {
        thue_gopt opt;
        thue_gerr e;
        char text[64];
        snprintf(text, sizeof text, "{\"rows\":%d,\"cols\":%d}", boards[bi].R, boards[bi].C);
        assert_int_equal(thue_game_options_text(G, text, &opt, &e), 0);
        const thue_dots_opt *o = (const thue_dots_opt *)(const void *)&opt;
        int R = o->rows, C = o->cols, nl = thue_dots_nlines(R, C);
        for (int game = 0; game < 60; game++) {
            thue_dots_state s;
            G->start(&opt, 1, &s);
            /* Neutral lines at random while there are any, so that chains and loops form. */
            for (;;) {
                int cand[64], n = 0;
                for (int l = 0; l < nl; l++) {
                    if (thue_dots_bit(s.drawn, l))
                        continue;
                    int b[2], ok = 1;
                    thue_dots_line_boxes(R, C, l, b);
                    for (int i = 0; i < 2; i++)
                        if (b[i] >= 0 && thue_dots_count(R, C, s.drawn, b[i]) >= 2)
                            ok = 0;
                    if (ok)
                        cand[n++] = l;
                }
                if (n == 0)
                    break;
                int l = cand[thue_splitmix64(&rng) % (uint64_t)n];
                s.drawn[0] |= (uint64_t)1 << l;
                s.to_move ^= 1;
            }
            /* Then the strong bot for both sides: each move keeps the exact value while the
             * position is made of chains and loops. */
            while (G->to_move(&opt, &s) >= 0) {
                uint64_t d = s.drawn[0];
                int l = thue__dots_strong_ex(o, &s, thue_splitmix64(&rng), 0, NULL);
                assert_true(l >= 0 && l < nl && !thue_dots_bit(s.drawn, l));
                if (chains_only(R, C, d)) {
                    int v = solve(o, d, NULL), mvv = move_value(o, d, l);
                    if (mvv != v)
                        print_error("%dx%d drawn %llx: strong plays %d worth %d, exact %d\n", R, C,
                                    (unsigned long long)d, l, mvv, v);
                    assert_int_equal(mvv, v);
                    checked++;
                }
                int H = (R + 1) * C;
                thue_gmove m = l < H ? (thue_gmove){{0, l / C, l % C, 0}}
                                     : (thue_gmove){{1, (l - H) / (C + 1), (l - H) % (C + 1), 0}};
                assert_int_equal(G->apply(&opt, &s, s.to_move, &m, &e), 0);
            }
        }
    }
    print_message("%d endgame moves checked\n", checked);
    assert_true(checked > 100);
}

/* Double-dealing by hand: 2x3 with the top, middle and bottom rows of lines drawn is two
 * three-box chains; the opponent opened the top one at its left end. Taking all three
 * and opening the other loses it (net 0); taking one and declining the last two (drawing
 * the right border, so the opponent takes both with one line and must open the bottom
 * chain) nets 1 - 2 + 3 = 2. */
static void test_dots_strong_double_deals(void **state)
{
    (void)state;
    thue_dots_opt o = mkopt(2, 3, false);
    thue_dots_state s;
    memset(&s, 0, sizeof s);
    memset(s.owner, -1, sizeof s.owner);
    s.last = -1;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r <= 2; r++)
            s.drawn[0] |= (uint64_t)1 << thue_dots_hline(2, 3, r, c);
    s.drawn[0] |= (uint64_t)1 << thue_dots_vline(2, 3, 0, 0); /* the opening */
    assert_int_equal(solve(&o, s.drawn[0], NULL), 2);
    int l = thue__dots_strong_ex(&o, &s, 1, 0, NULL);
    assert_int_equal(l, thue_dots_vline(2, 3, 0, 1)); /* takes the first box */
    s.drawn[0] |= (uint64_t)1 << l;
    assert_int_equal(solve(&o, s.drawn[0], NULL), 1);
    l = thue__dots_strong_ex(&o, &s, 1, 0, NULL);
    assert_int_equal(l, thue_dots_vline(2, 3, 0, 3)); /* declines the last two */
    assert_int_equal(move_value(&o, s.drawn[0], l), 1);
    /* With nothing left after the chain there is nothing to keep control for: it takes. */
    thue_dots_opt o1 = mkopt(1, 3, false);
    uint64_t d = 0;
    for (int c = 0; c < 3; c++)
        d |= (uint64_t)1 << thue_dots_hline(1, 3, 0, c) | (uint64_t)1
                                                              << thue_dots_hline(1, 3, 1, c);
    d |= (uint64_t)1 << thue_dots_vline(1, 3, 0, 0) | (uint64_t)1 << thue_dots_vline(1, 3, 0, 1);
    memset(&s, 0, sizeof s);
    memset(s.owner, -1, sizeof s.owner);
    s.drawn[0] = d;
    l = thue__dots_strong_ex(&o1, &s, 1, 0, NULL);
    assert_int_equal(l, thue_dots_vline(1, 3, 0, 2));
}

static int stop_now(void *arg)
{
    (*(int *)arg)++;
    return 1;
}

/* A must_stop that always says stop: the strong bot still answers a legal line at once
 * (its searches give up, the rules below them answer), and the exact solver reports
 * THUE_ETOOBIG rather than a value. */
static void test_dots_strong_stopped(void **state)
{
    (void)state;
    thue_dots_opt o = mkopt(4, 4, false);
    thue_dots_state s;
    memset(&s, 0, sizeof s);
    memset(s.owner, -1, sizeof s.owner);
    int calls = 0;
    thue_gctl stopper = {.must_stop = stop_now, .arg = &calls};
    int l = thue__dots_strong(&o, &s, 5, &stopper);
    assert_true(l >= 0 && l < thue_dots_nlines(4, 4));
    thue_dots_opt o3 = mkopt(3, 3, false);
    int net = 99, best = 99;
    calls = 0;
    assert_int_equal(thue__dots_solve(&o3, 0, 0, &stopper, &net, &best, NULL), THUE_ETOOBIG);
    assert_true(calls > 0);
    assert_int_equal(net, 99);
    assert_int_equal(best, 99);
    /* The strong bot on 3x3 from the start: its exact search is stopped, it still
     * answers a legal line. */
    calls = 0;
    memset(&s, 0, sizeof s);
    l = thue__dots_strong(&o3, &s, 5, &stopper);
    assert_true(calls > 0);
    assert_true(l >= 0 && l < 24);
}

/* The perfect bot on 3x4 (31 lines), where its solver cannot decide early positions: it
 * refuses at once with the reason (it took minutes, the generic solver trying behind it),
 * and as a room's bot (legal_if_undecided) it answers within its time with the
 * heuristic's move (game.h's fallback), not the first legal line. */
static void test_dots_perfect_3x4_in_time(void **state)
{
    (void)state;
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(G, "{\"rows\":3,\"cols\":4}", &opt, &e), 0);
    thue_dots_state s;
    G->start(&opt, 1, &s);
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    thue_bot_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.think_ms = 3000;
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose(G, &opt, &s, &spec, 7, &lim, &res), THUE_ETOOBIG);
    assert_true(res.ms < 1000);
    assert_non_null(strstr(res.why, "31 lines are undrawn"));
    spec.legal_if_undecided = 1;
    for (int drawn = 0; drawn < 2; drawn++) {
        if (drawn == 1) {
            /* 30 lines left: the solver tries, the time limit (300 ms) stops it. */
            thue_gmove m;
            assert_int_equal(G->bots[1].choose(&opt, &s, 3, NULL, &m), 0);
            assert_int_equal(G->apply(&opt, &s, 0, &m, &e), 0);
            lim.think_ms = 300;
        }
        int who = G->to_move(&opt, &s);
        assert_int_equal(thue_gbot_choose(G, &opt, &s, &spec, 7, &lim, &res), 0);
        assert_true(res.ms < (drawn ? 1300 : 1000));
        assert_int_equal(res.exact, 0);
        thue_gmove h;
        assert_int_equal(G->bots[0].choose(&opt, &s, 7, NULL, &h), 0);
        assert_memory_equal(&res.move, &h, sizeof h);
        thue_dots_state after = s;
        assert_int_equal(G->apply(&opt, &after, who, &res.move, &e), 0);
        print_message("3x4, %d lines undrawn: the heuristic's move in %.0f ms (%s)\n",
                      31 - drawn, res.ms, res.why);
    }
}

/* The strong bot with its exact search off (chains, loops, the neutral-phase search and
 * the model alone, as it plays big boards) against the heuristic on 3x4, sides
 * alternating: it must win more games and take more boxes. */
static void test_dots_strong_beats_heuristic(void **state)
{
    (void)state;
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(G, "{\"rows\":3,\"cols\":4}", &opt, &e), 0);
    const thue_dots_opt *o = (const thue_dots_opt *)(const void *)&opt;
    int R = o->rows, C = o->cols, H = (R + 1) * C;
    int wins[2] = {0, 0}, boxes[2] = {0, 0};
    uint64_t rng = 31337;
    for (int game = 0; game < 16; game++) {
        int strong_seat = game % 2;
        thue_dots_state s;
        G->start(&opt, 1, &s);
        while (G->to_move(&opt, &s) >= 0) {
            uint64_t seed = thue_splitmix64(&rng);
            int l = s.to_move == strong_seat ? thue__dots_strong_ex(o, &s, seed, 0, NULL)
                                             : thue__dots_heuristic(o, &s, seed);
            thue_gmove m = l < H ? (thue_gmove){{0, l / C, l % C, 0}}
                                 : (thue_gmove){{1, (l - H) / (C + 1), (l - H) % (C + 1), 0}};
            assert_int_equal(G->apply(&opt, &s, s.to_move, &m, &e), 0);
        }
        boxes[0] += s.score[strong_seat];
        boxes[1] += s.score[strong_seat ^ 1];
        if (s.score[strong_seat] != s.score[strong_seat ^ 1])
            wins[s.score[strong_seat] > s.score[strong_seat ^ 1] ? 0 : 1]++;
    }
    print_message("3x4, strong without exact search against heuristic: %d-%d in games, %d-%d in "
                  "boxes\n",
                  wins[0], wins[1], boxes[0], boxes[1]);
    assert_true(wins[0] > wins[1]);
    assert_true(boxes[0] > boxes[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dots_solver_small_boards),
        cmocka_unit_test(test_dots_solver_random_midgames),
        cmocka_unit_test(test_dots_solver_start_values),
        cmocka_unit_test(test_dots_perfect_member),
        cmocka_unit_test(test_dots_heuristic_rules),
        cmocka_unit_test(test_dots_strong_endgame),
        cmocka_unit_test(test_dots_strong_double_deals),
        cmocka_unit_test(test_dots_strong_stopped),
        cmocka_unit_test(test_dots_perfect_3x4_in_time),
        cmocka_unit_test(test_dots_strong_beats_heuristic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
