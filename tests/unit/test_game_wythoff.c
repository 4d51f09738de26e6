/*
 * test_game_wythoff.c: generalised Wythoff's game behind game.h (server/games/wythoff/).
 *   - the perfect member against a brute-force P/N labelling (P iff every move leads to
 *     N, knowing only the rules) on every position up to 60x60 for a = 1..4 and a few
 *     larger a: value -1 exactly on the P-positions (and (0,0)), and from every
 *     N-position its move is accepted by apply and reaches a P-position;
 *   - legal_moves against the rules' own enumeration on every position up to 24x24
 *     (a = 1..5): the same set of moves, no duplicates, fewest tokens first;
 *   - huge heaps (up to 2^53-1): the perfect move reaches a P-position by the exact
 *     integer reference (ptable.h), the cut list holds the winning move first; lists
 *     just inside and past max_moves: whole, or exactly max_moves distinct legal moves;
 *   - options, positions and moves: each bad field named, a refused move changes
 *     nothing; the conformance checker (game_check.h) on a few option sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game_check.h"
#include "games/game.h"
#include "games/registry.h"
#include "games/wythoff/ptable.h"
#include "games/wythoff/wythoff.h"

static const thue_gamedef *game(void)
{
    return game_check_find("wythoff");
}

static void opts(const char *text, thue_gopt *opt)
{
    game_check_options(game(), text, opt);
}

static void position(const thue_gopt *opt, uint64_t x, uint64_t y, int to_move,
                     thue_wythoff_state *s)
{
    memset(s, 0, sizeof *s);
    s->heaps[0] = x, s->heaps[1] = y, s->to_move = (int8_t)to_move;
    (void)opt;
}

#define M 60

static void brute(int a, bool P[M + 1][M + 1])
{
    for (int sum = 0; sum <= 2 * M; sum++)
        for (int x = 0; x <= M; x++) {
            int y = sum - x;
            if (y < 0 || y > M)
                continue;
            bool p = true;
            for (int i = 1; i <= x && p; i++)
                p = !P[x - i][y];
            for (int j = 1; j <= y && p; j++)
                p = !P[x][y - j];
            for (int i = 1; i <= x && p; i++)
                for (int j = 1; j <= y && p; j++)
                    if (abs(i - j) < a && P[x - i][y - j])
                        p = false;
            P[x][y] = p;
        }
}

static void test_wythoff_perfect_brute_force(void **state)
{
    (void)state;
    static const int as[] = {1, 2, 3, 4, 5, 9, 60, 1000};
    static bool P[M + 1][M + 1];
    long wins = 0, losses = 0;
    for (size_t k = 0; k < sizeof as / sizeof as[0]; k++) {
        int a = as[k];
        brute(a, P);
        char text[32];
        snprintf(text, sizeof text, "{\"a\":%d}", a);
        thue_gopt opt;
        opts(text, &opt);
        for (int x = 0; x <= M; x++)
            for (int y = 0; y <= M; y++) {
                thue_wythoff_state s, c;
                position(&opt, (uint64_t)x, (uint64_t)y, (x + y) & 1, &s);
                thue_gmove best = {{-1, -1, -1, -1}};
                int value = 0;
                assert_int_equal(game()->perfect(&opt, &s, NULL, &best, &value), 0);
                if (value != (P[x][y] ? -1 : 1))
                    fail_msg("a=%d (%d,%d): perfect says %d, brute force %s", a, x, y, value,
                             P[x][y] ? "P" : "N");
                if (x == 0 && y == 0)
                    continue;
                c = s;
                thue_gerr e;
                assert_int_equal(game()->apply(&opt, &c, s.to_move, &best, &e), 0);
                if (value == 1) {
                    assert_true(P[c.heaps[0]][c.heaps[1]]);
                    wins++;
                } else {
                    losses++;
                }
            }
    }
    print_message("wythoff: %ld winning moves reach a P-position, %ld P-positions\n", wins, losses);
}

static void test_wythoff_legal_moves_complete(void **state)
{
    (void)state;
    enum { L = 24 };
    thue_gmove *mv = malloc(THUE_WYTHOFF_MOVES_MAX * sizeof *mv);
    assert_non_null(mv);
    for (int a = 1; a <= 5; a++) {
        char text[32];
        snprintf(text, sizeof text, "{\"a\":%d}", a);
        thue_gopt opt;
        opts(text, &opt);
        assert_int_equal(game()->max_moves(&opt), THUE_WYTHOFF_MOVES_MAX);
        for (int x = 0; x <= L; x++)
            for (int y = 0; y <= L; y++) {
                thue_wythoff_state s;
                position(&opt, (uint64_t)x, (uint64_t)y, 0, &s);
                int n = game()->legal_moves(&opt, &s, mv);
                /* The rules' own list: every (i, j) the definition allows. */
                static bool want[L + 1][L + 1], seen[L + 1][L + 1];
                memset(want, 0, sizeof want);
                memset(seen, 0, sizeof seen);
                int count = 0;
                for (int i = 0; i <= x; i++)
                    for (int j = 0; j <= y; j++)
                        if ((i > 0) != (j > 0) || (i > 0 && j > 0 && abs(i - j) < a))
                            want[i][j] = true, count++;
                assert_int_equal(n, count);
                int last = 0;
                for (int m = 0; m < n; m++) {
                    assert_true(mv[m].v[1] == 0 && mv[m].v[3] == 0);
                    int i = mv[m].v[0], j = mv[m].v[2];
                    assert_true(i >= 0 && i <= x && j >= 0 && j <= y);
                    assert_true(want[i][j]);
                    assert_false(seen[i][j]);
                    seen[i][j] = true;
                    assert_true(i + j >= last); /* fewest tokens first */
                    last = i + j;
                }
            }
    }
    free(mv);
}

static void test_wythoff_huge_heaps(void **state)
{
    (void)state;
    thue_gmove *mv = malloc(THUE_WYTHOFF_MOVES_MAX * sizeof *mv);
    assert_non_null(mv);
    const uint64_t top = (uint64_t)THUE_WYTHOFF_HEAP_MAX;
    uint64_t rng = 12345;
    for (int a = 1; a <= 4; a++) {
        char text[32];
        snprintf(text, sizeof text, "{\"a\":%d}", a);
        thue_gopt opt;
        opts(text, &opt);
        thue_wythoff_cf c;
        thue_wythoff_cf_init(&c, a);
        for (int k = 0; k < 400; k++) {
            uint64_t x = thue_gmix64(rng++) % (top + 1), y = thue_gmix64(rng++) % (top + 1);
            if (k % 4 == 1)
                y = x + (thue_gmix64(rng++) % 1000); /* near the diagonal */
            if (k % 4 == 2) {
                /* a P-position itself, from the exact reference */
                uint64_t n = thue_gmix64(rng++) % (top / 4);
                x = (uint64_t)thue_wythoff_exact_a(a, n);
                y = x + (uint64_t)a * n;
            }
            if (k == 3)
                x = top, y = top;
            if (y > top)
                y = top;
            thue_wythoff_state s, t;
            position(&opt, x, y, 0, &s);
            thue_gmove best;
            int value;
            assert_int_equal(game()->perfect(&opt, &s, NULL, &best, &value), 0);
            bool p = thue_wythoff_exact_is_p(a, x, y);
            assert_int_equal(value, p ? -1 : 1);
            t = s;
            thue_gerr e;
            assert_int_equal(game()->apply(&opt, &t, 0, &best, &e), 0);
            if (!p)
                assert_true(thue_wythoff_exact_is_p(a, t.heaps[0], t.heaps[1]));
            /* The cut list: max_moves moves, the winning one first, all legal. */
            int n = game()->legal_moves(&opt, &s, mv);
            assert_true(n > 0 && n <= THUE_WYTHOFF_MOVES_MAX);
            if (!p)
                assert_memory_equal(&mv[0], &best, sizeof best);
            for (int m = 0; m < n; m += 97) {
                t = s;
                assert_int_equal(game()->apply(&opt, &t, 0, &mv[m], &e), 0);
            }
            /* Round trip of the 53-bit move through JSON. */
            json_t *j = game()->move_json(&opt, &best);
            thue_gmove back;
            assert_int_equal(game()->move_parse(&opt, j, &back, &e), 0);
            json_decref(j);
            assert_memory_equal(&back, &best, sizeof back);
        }
    }
    free(mv);
}

static int cmp_move(const void *x, const void *y)
{
    return memcmp(x, y, sizeof(thue_gmove));
}

/* Positions just past the list's bound: exactly max_moves distinct legal moves, the
 * winning one first, the rest in increasing tokens taken; and just inside it, the whole
 * list (its count by the rules' formula). */
static void test_wythoff_cut_list(void **state)
{
    (void)state;
    thue_gmove *mv = malloc(THUE_WYTHOFF_MOVES_MAX * sizeof *mv);
    assert_non_null(mv);
    static const struct {
        int a;
        uint64_t x, y;
    } cases[] = {{1, 2000, 2000}, {1, 1365, 1366}, {1, 1000, 1000}, {2, 700, 900},
                 {3, 5000, 7},    {1000, 40, 50},  {1, 0, 5000}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[32];
        snprintf(text, sizeof text, "{\"a\":%d}", cases[k].a);
        thue_gopt opt;
        opts(text, &opt);
        uint64_t x = cases[k].x, y = cases[k].y, a = (uint64_t)cases[k].a;
        /* The count by the rules: x + y single-heap moves, and for each i <= x the j in
         * 1..y with |i - j| < a. */
        uint64_t count = x + y;
        for (uint64_t i = 1; i <= x; i++) {
            uint64_t lo = i + 1 > a ? i - a + 1 : 1, hi = i + a - 1 < y ? i + a - 1 : y;
            if (lo < 1)
                lo = 1;
            count += hi >= lo ? hi - lo + 1 : 0;
        }
        thue_wythoff_state s, t;
        position(&opt, x, y, 0, &s);
        int n = game()->legal_moves(&opt, &s, mv);
        if (count <= THUE_WYTHOFF_MOVES_MAX)
            assert_int_equal(n, (int)count);
        else
            assert_int_equal(n, THUE_WYTHOFF_MOVES_MAX);
        thue_gmove best;
        int value;
        assert_int_equal(game()->perfect(&opt, &s, NULL, &best, &value), 0);
        bool cut = x + y > (uint64_t)THUE_WYTHOFF_MOVES_MAX / (2 * a + 1);
        if (cut && value == 1)
            assert_memory_equal(&mv[0], &best, sizeof best);
        thue_gerr e;
        uint64_t last = 0;
        for (int m = 0; m < n; m++) {
            t = s;
            assert_int_equal(game()->apply(&opt, &t, 0, &mv[m], &e), 0);
            uint64_t taken = (x - t.heaps[0]) + (y - t.heaps[1]);
            if (m > 0 || !(cut && value == 1)) {
                assert_true(taken >= last);
                last = taken;
            }
        }
        qsort(mv, (size_t)n, sizeof *mv, cmp_move);
        for (int m = 1; m < n; m++)
            assert_true(cmp_move(&mv[m - 1], &mv[m]) != 0);
    }
    free(mv);
}

static void expect_options_error(const char *text, const char *field)
{
    thue_gopt opt;
    thue_gerr e;
    memset(&e, 0, sizeof e);
    int rc = thue_game_options_text(game(), text, &opt, &e);
    if (rc != THUE_EOPTIONS || strcmp(e.field, field) != 0)
        fail_msg("%s: rc %d field '%s' (%s), want field '%s'", text, rc, e.field, e.msg, field);
}

static void test_wythoff_options(void **state)
{
    (void)state;
    expect_options_error("{\"a\":0}", "a");
    expect_options_error("{\"a\":1001}", "a");
    expect_options_error("{\"a\":\"2\"}", "a");
    expect_options_error("{\"heaps\":[1]}", "heaps");
    expect_options_error("{\"heaps\":[1,2,3]}", "heaps");
    expect_options_error("{\"heaps\":[-1,2]}", "heaps/0");
    expect_options_error("{\"heaps\":[1,9007199254740992]}", "heaps/1");
    expect_options_error("{\"heaps\":[1,2.5]}", "heaps/1");
    expect_options_error("{\"heaps\":[0,0]}", "heaps");
    expect_options_error("{\"heaps\":[1,2],\"start\":\"random\"}", "start");
    expect_options_error("{\"start\":\"heaps\"}", "heaps");
    expect_options_error("{\"start\":\"fixed\"}", "start");
    expect_options_error("{\"start\":3}", "start");
    expect_options_error("{\"misere\":true}", "misere");

    thue_gopt opt;
    opts(NULL, &opt);
    char key[32];
    game()->pool_key(&opt, key, sizeof key);
    assert_string_equal(key, "a1");
    char *t = thue_game_dump(game()->options_json(&opt));
    assert_string_equal(t, "{\"a\":1,\"heaps\":null,\"start\":\"random\"}");
    free(t);
    /* A random start: heaps 10..30, the same seed the same heaps. */
    thue_wythoff_state s1, s2;
    for (uint64_t seed = 0; seed < 200; seed++) {
        game()->start(&opt, seed, &s1);
        game()->start(&opt, seed, &s2);
        assert_memory_equal(&s1, &s2, sizeof s1);
        for (int i = 0; i < 2; i++)
            assert_true(s1.heaps[i] >= 10 && s1.heaps[i] <= 30);
        assert_int_equal(s1.to_move, 0);
    }
    opts("{\"a\":7,\"heaps\":[9007199254740991,3]}", &opt);
    game()->pool_key(&opt, key, sizeof key);
    assert_string_equal(key, "a7");
    t = thue_game_dump(game()->options_json(&opt));
    assert_string_equal(t, "{\"a\":7,\"heaps\":[9007199254740991,3],\"start\":\"heaps\"}");
    free(t);
    game()->start(&opt, 99, &s1);
    assert_true(s1.heaps[0] == 9007199254740991ULL && s1.heaps[1] == 3);
    t = thue_game_dump(game()->state_json(&opt, &s1));
    assert_string_equal(t, "{\"heaps\":[9007199254740991,3],\"to_move\":0,\"moves\":0,\"a\":7}");
    free(t);
    opts("{\"heaps\":[0,5],\"start\":\"heaps\"}", &opt);
    opts("{\"heaps\":null}", &opt);
    opts("{\"heaps\":[1,2],\"start\":null}", &opt);
    game()->start(&opt, 5, &s1);
    assert_true(s1.heaps[0] == 1 && s1.heaps[1] == 2);
}

static int parse_text(const thue_gopt *opt, const char *text, thue_gerr *e, bool move, void *out)
{
    json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
    assert_non_null(j);
    int rc = move ? game()->move_parse(opt, j, out, e) : game()->position_parse(opt, j, out, e);
    json_decref(j);
    return rc;
}

static void test_wythoff_moves_and_positions(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"a\":2,\"heaps\":[5,9]}", &opt);
    thue_gerr e;
    thue_gmove m;
    static const struct {
        const char *text, *field;
    } bad_moves[] = {
        {"{\"take\":[1]}", "take"},
        {"{\"take\":3}", "take"},
        {"{\"take\":[-1,2]}", "take/0"},
        {"{\"take\":[1,\"2\"]}", "take/1"},
        {"{\"take\":[0,0]}", "take"},
        {"{\"heap\":0,\"take\":[1,0]}", "heap"},
        {"[1,2]", ""},
    };
    for (size_t i = 0; i < sizeof bad_moves / sizeof bad_moves[0]; i++) {
        memset(&e, 0, sizeof e);
        assert_int_equal(parse_text(&opt, bad_moves[i].text, &e, true, &m), THUE_EMOVE);
        assert_string_equal(e.field, bad_moves[i].field);
    }
    thue_wythoff_state s, before;
    game()->start(&opt, 1, &s);
    /* Illegal moves: too many, a cone too wide, the wrong player; nothing changes. */
    static const char *const illegal[] = {"{\"take\":[6,0]}", "{\"take\":[0,10]}",
                                          "{\"take\":[1,3]}", "{\"take\":[4,2]}"};
    for (size_t i = 0; i < sizeof illegal / sizeof illegal[0]; i++) {
        assert_int_equal(parse_text(&opt, illegal[i], &e, true, &m), 0);
        before = s;
        assert_int_equal(game()->apply(&opt, &s, 0, &m, &e), THUE_EILLEGAL);
        assert_string_equal(e.field, "take");
        assert_memory_equal(&s, &before, sizeof s);
    }
    assert_int_equal(parse_text(&opt, "{\"take\":[2,3]}", &e, true, &m), 0);
    assert_int_equal(game()->apply(&opt, &s, 1, &m, &e), THUE_ETURN);
    assert_int_equal(game()->apply(&opt, &s, 2, &m, &e), THUE_EPLAYER);
    assert_int_equal(game()->apply(&opt, &s, 0, &m, &e), 0);
    assert_true(s.heaps[0] == 3 && s.heaps[1] == 6 && s.to_move == 1 && s.moves == 1);
    assert_int_equal(parse_text(&opt, "{\"take\":[3,6]}", &e, true, &m), 0);
    assert_int_equal(game()->apply(&opt, &s, 1, &m, &e), THUE_EILLEGAL); /* |3-6| >= 2 */
    assert_int_equal(parse_text(&opt, "{\"take\":[3,4]}", &e, true, &m), 0);
    assert_int_equal(game()->apply(&opt, &s, 1, &m, &e), 0);
    assert_int_equal(parse_text(&opt, "{\"take\":[0,2]}", &e, true, &m), 0);
    assert_int_equal(game()->apply(&opt, &s, 0, &m, &e), 0);
    thue_gresult r;
    game()->result(&opt, &s, &r);
    assert_true(r.over && r.winner == 0 && strcmp(r.why, "no_moves") == 0);
    assert_int_equal(game()->to_move(&opt, &s), -1);
    assert_string_equal(game()->step(&opt, &s), "over");
    assert_int_equal(game()->apply(&opt, &s, 1, &m, &e), THUE_EOVER);

    static const struct {
        const char *text, *field;
    } bad_pos[] = {
        {"{}", "heaps"},
        {"{\"heaps\":[1,2],\"to_move\":2}", "to_move"},
        {"{\"heaps\":[1,2],\"moves\":-1}", "moves"},
        {"{\"heaps\":[1,-2]}", "heaps/1"},
        {"{\"heaps\":[1,2],\"nim_sum\":3}", "nim_sum"},
        {"{\"heaps\":[1,2],\"a\":3}", "a"},
        {"{\"heaps\":[1,2],\"a\":0}", "a"},
        {"[]", ""},
    };
    for (size_t i = 0; i < sizeof bad_pos / sizeof bad_pos[0]; i++) {
        memset(&e, 0, sizeof e);
        assert_int_equal(parse_text(&opt, bad_pos[i].text, &e, false, &s), THUE_ESTATE);
        assert_string_equal(e.field, bad_pos[i].field);
    }
    assert_int_equal(parse_text(&opt, "{\"heaps\":[0,0],\"to_move\":1,\"a\":2}", &e, false, &s), 0);
    game()->result(&opt, &s, &r);
    assert_true(r.over && r.winner == 0);
}

static void test_wythoff_conformance(void **state)
{
    (void)state;
    static const char *const sets[] = {NULL, "{\"a\":1,\"heaps\":[7,12]}", "{\"a\":3}",
                                       "{\"a\":1000,\"heaps\":[6,6]}"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        game_check_cfg cfg = {
            .options = sets[i], .seeds = 6, .max_plies = 200, .moves_per_state = 30};
        game_check_stats st;
        game_check(game(), &cfg, &st);
        assert_true(st.states > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wythoff_perfect_brute_force),
        cmocka_unit_test(test_wythoff_legal_moves_complete),
        cmocka_unit_test(test_wythoff_huge_heaps),
        cmocka_unit_test(test_wythoff_cut_list),
        cmocka_unit_test(test_wythoff_options),
        cmocka_unit_test(test_wythoff_moves_and_positions),
        cmocka_unit_test(test_wythoff_conformance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
