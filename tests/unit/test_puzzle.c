/*
 * test_puzzle.c: the puzzles (search/puzzle.h) against references that share no code with
 * the solvers. Every generated puzzle is read back from its JSON texts only (options,
 * position, solution) and checked: the position is won for the mover and the solution is
 * its one winning move. Nim by Bouton's nim-sum, Wythoff's game (any a) by a P-table of
 * plain dynamic programming, Northcott's game by the nim-sum of its gaps, Rims, dots and
 * boxes and misere Nim by a memoised minimax over the game's table written here (Thue's
 * point-saving puzzles: test_puzzle_thue.c). Also: the finder refuses drawn, lost and
 * two-winner positions, the generator is deterministic for a seed, and a solver stopped
 * at once finds nothing rather than guessing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/errors.h"
#include "games/game.h"
#include "search/puzzle.h"

#define WANT 24

static const thue_gamedef *game(const char *name)
{
    const thue_gamedef *g = thue_game_find(name);
    assert_non_null(g);
    return g;
}

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    if (j == NULL)
        fail_msg("bad JSON %s: %s", text, je.text);
    return j;
}

static int ival(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    assert_true(json_is_integer(v));
    return (int)json_integer_value(v);
}

/* Generates WANT puzzles of g (fails when fewer come). */
static int generate(const thue_gamedef *g, uint64_t seed, thue_puzzle_item *out)
{
    int found = -1;
    assert_int_equal(thue_puzzle_generate(g, seed, 400, NULL, out, WANT, &found), 0);
    if (found != WANT)
        fail_msg("%s: %d puzzles from 400 games", g->name, found);
    for (int i = 0; i < found; i++) {
        assert_true(out[i].p.difficulty >= 1 && out[i].p.difficulty <= 5);
        assert_true(out[i].p.moves >= 2); /* one winning move among several */
        assert_true(out[i].p.line >= 1);
    }
    return found;
}

static void free_items(thue_puzzle_item *it, int n)
{
    for (int i = 0; i < n; i++)
        thue_puzzle_item_free(&it[i]);
}

/* ---- Nim by Bouton ------------------------------------------------------------------- */

static void test_puzzle_nim_bouton(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_puzzle_item items[WANT];
    int n = generate(g, 11, items), normal = 0;
    for (int i = 0; i < n; i++) {
        json_t *o = parse(items[i].options);
        int misere = json_is_true(json_object_get(o, "misere"));
        json_decref(o);
        if (misere)
            continue; /* the minimax test checks these */
        normal++;
        json_t *p = parse(items[i].position), *s = parse(items[i].solution);
        json_t *heaps = json_object_get(p, "heaps");
        int h[32], k = (int)json_array_size(heaps), x = 0;
        assert_true(k >= 1 && k <= 32);
        for (int j = 0; j < k; j++)
            x ^= h[j] = (int)json_integer_value(json_array_get(heaps, j));
        assert_int_not_equal(x, 0); /* won for the mover */
        int winners = 0, wheap = -1, wtake = -1;
        for (int j = 0; j < k; j++)
            for (int t = 1; t <= h[j]; t++)
                if ((x ^ h[j] ^ (h[j] - t)) == 0)
                    winners++, wheap = j, wtake = t;
        assert_int_equal(winners, 1);
        assert_int_equal(ival(s, "heap"), wheap);
        assert_int_equal(ival(s, "take"), wtake);
        json_decref(p);
        json_decref(s);
    }
    assert_true(normal >= WANT / 2);
    free_items(items, n);
}

/* ---- Wythoff's game by its P-table ------------------------------------------------------- */

#define WY 40
static unsigned char wy_p[WY][WY];

/* P-positions of the game where a move takes t >= 1 from one heap, or x >= 1 and y >= 1
 * from both with |x - y| < a. */
static void wy_table(int a)
{
    for (int x = 0; x < WY; x++)
        for (int y = 0; y < WY; y++) {
            int p = 1;
            for (int t = 1; p && t <= x; t++)
                p = !wy_p[x - t][y];
            for (int t = 1; p && t <= y; t++)
                p = !wy_p[x][y - t];
            for (int dx = 1; p && dx <= x; dx++)
                for (int dy = 1; p && dy <= y; dy++)
                    if (abs(dx - dy) < a)
                        p = !wy_p[x - dx][y - dy];
            wy_p[x][y] = (unsigned char)p;
        }
}

static void test_puzzle_wythoff_ptable(void **state)
{
    (void)state;
    const thue_gamedef *g = game("wythoff");
    thue_puzzle_item items[WANT];
    int n = generate(g, 22, items);
    for (int i = 0; i < n; i++) {
        json_t *o = parse(items[i].options);
        int a = ival(o, "a");
        json_decref(o);
        wy_table(a);
        json_t *p = parse(items[i].position), *s = parse(items[i].solution);
        json_t *heaps = json_object_get(p, "heaps");
        int x = (int)json_integer_value(json_array_get(heaps, 0));
        int y = (int)json_integer_value(json_array_get(heaps, 1));
        assert_true(x < WY && y < WY);
        assert_false(wy_p[x][y]);
        int winners = 0, wx = -1, wy = -1;
        for (int dx = 0; dx <= x; dx++)
            for (int dy = 0; dy <= y; dy++) {
                if (dx + dy == 0 || (dx > 0 && dy > 0 && abs(dx - dy) >= a))
                    continue;
                if (wy_p[x - dx][y - dy])
                    winners++, wx = dx, wy = dy;
            }
        assert_int_equal(winners, 1);
        json_t *take = json_object_get(s, "take");
        assert_int_equal(json_integer_value(json_array_get(take, 0)), wx);
        assert_int_equal(json_integer_value(json_array_get(take, 1)), wy);
        json_decref(p);
        json_decref(s);
    }
    free_items(items, n);
}

/* ---- a memoised minimax of the test's own ------------------------------------------------- */

typedef struct memo {
    const thue_gamedef *g;
    const thue_gopt *opt;
    size_t size, cap, used;
    unsigned char *keys;
    signed char *vals; /* 9: an empty slot */
} memo;

static size_t slot_of(const memo *m, const unsigned char *st)
{
    uint64_t h = 0x84222325cbf29ce4ull;
    for (size_t i = 0; i < m->size; i++)
        h = (h ^ st[i]) * 0x100000001b3ull;
    size_t at = (size_t)(h % m->cap);
    while (m->vals[at] != 9 && memcmp(m->keys + at * m->size, st, m->size) != 0)
        at = (at + 1) % m->cap;
    return at;
}

static int minimax(memo *m, const unsigned char *st, int who);

/* The value of st for `who`: by its result once over, else by the minimax. */
static int score(memo *m, const unsigned char *st, int who)
{
    thue_gresult r;
    m->g->result(m->opt, st, &r);
    if (r.over)
        return r.winner < 0 ? 0 : r.winner == who ? 1 : -1;
    int mover = m->g->to_move(m->opt, st);
    int v = minimax(m, st, mover);
    return mover == who ? v : -v;
}

/* The value of st (not over) for its mover, who. */
static int minimax(memo *m, const unsigned char *st, int who)
{
    size_t at = slot_of(m, st);
    if (m->vals[at] != 9)
        return m->vals[at];
    const thue_gamedef *g = m->g;
    thue_gmove *list = malloc((size_t)g->max_moves(m->opt) * sizeof *list);
    unsigned char *child = malloc(m->size);
    assert_non_null(list);
    assert_non_null(child);
    int k = g->legal_moves(m->opt, st, list), best = -1;
    for (int i = 0; i < k && best < 1; i++) {
        memcpy(child, st, m->size);
        thue_gerr e;
        assert_int_equal(g->apply(m->opt, child, who, &list[i], &e), 0);
        int v = score(m, child, who);
        if (v > best)
            best = v;
    }
    free(list);
    free(child);
    assert_true(m->used * 2 < m->cap);
    at = slot_of(m, st); /* the table may have grown since: find the slot again */
    memcpy(m->keys + at * m->size, st, m->size);
    m->vals[at] = (signed char)best;
    m->used++;
    return best;
}

/* Checks every puzzle of g among items whose options are `opts` by the minimax. Returns
 * how many it checked. */
static int check_by_minimax(const thue_gamedef *g, const char *opts, thue_puzzle_item *items, int n)
{
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, opts, &opt, &e), 0);
    char *canon = thue_game_dump(g->options_json(&opt));
    memo m = {g, &opt, g->state_size(&opt), 1u << 20, 0, NULL, NULL};
    m.keys = malloc(m.cap * m.size);
    m.vals = malloc(m.cap);
    assert_non_null(m.keys);
    assert_non_null(m.vals);
    memset(m.vals, 9, m.cap);
    unsigned char *st = malloc(m.size), *child = malloc(m.size);
    thue_gmove *list = malloc((size_t)g->max_moves(&opt) * sizeof *list);
    int checked = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(items[i].options, canon) != 0)
            continue;
        json_t *pj = parse(items[i].position), *sj = parse(items[i].solution);
        assert_int_equal(g->position_parse(&opt, pj, st, &e), 0);
        int who = g->to_move(&opt, st);
        assert_int_equal(score(&m, st, who), 1);
        int k = g->legal_moves(&opt, st, list), winners = 0;
        char *win = NULL;
        for (int j = 0; j < k; j++) {
            memcpy(child, st, m.size);
            assert_int_equal(g->apply(&opt, child, who, &list[j], &e), 0);
            if (score(&m, child, who) == 1) {
                winners++;
                free(win);
                win = thue_game_dump(g->move_json(&opt, &list[j]));
            }
        }
        assert_int_equal(winners, 1);
        char *sol = thue_game_dump(json_incref(sj));
        assert_string_equal(win, sol);
        free(win);
        free(sol);
        json_decref(pj);
        json_decref(sj);
        checked++;
    }
    free(canon);
    free(st);
    free(child);
    free(list);
    free(m.keys);
    free(m.vals);
    return checked;
}

static void test_puzzle_minimax(void **state)
{
    (void)state;
    static const struct {
        const char *game, *opts[3];
    } cases[] = {
        {"rims", {"{\"heaps\":[4,3,2]}", "{\"heaps\":[5,3,1]}", "{\"heaps\":[6,4]}"}},
        {"dots", {"{\"rows\":2,\"cols\":2}", "{\"rows\":1,\"cols\":4}", "{\"rows\":2,\"cols\":3}"}},
        {"nim", {"{\"heaps\":[3,5,6],\"misere\":true}", NULL, NULL}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const thue_gamedef *g = game(cases[c].game);
        thue_puzzle_item items[WANT];
        int n = generate(g, 33, items), checked = 0;
        for (int o = 0; o < 3 && cases[c].opts[o] != NULL; o++)
            checked += check_by_minimax(g, cases[c].opts[o], items, n);
        if (strcmp(cases[c].game, "nim") == 0)
            assert_true(checked >= 1);
        else
            assert_int_equal(checked, n);
        free_items(items, n);
    }
}

/* Northcott's game by the nim-sum of its gaps (the squares between a row's two pieces):
 * the mover slides a piece of theirs along its row, towards the other piece (a smaller
 * gap) or away from it up to the board's edge (a larger one), never onto or over it; the
 * mover wins where the gaps' XOR is not 0, and a winning move is one that makes it 0. (The
 * move cap could change that near its end, but there the solver refuses, so no puzzle
 * comes from there.) */
static void test_puzzle_northcott_gaps(void **state)
{
    (void)state;
    const thue_gamedef *g = game("northcott");
    thue_puzzle_item items[WANT];
    int n = generate(g, 55, items);
    for (int i = 0; i < n; i++) {
        json_t *o = parse(items[i].options), *p = parse(items[i].position);
        json_t *sj = parse(items[i].solution);
        int cols = ival(o, "cols"), mover = ival(p, "to_move");
        json_t *mine = json_object_get(p, mover == 0 ? "white" : "black");
        json_t *theirs = json_object_get(p, mover == 0 ? "black" : "white");
        int rows = (int)json_array_size(mine), x = 0, gap[32];
        assert_true(rows >= 1 && rows <= 32);
        for (int r = 0; r < rows; r++) {
            int a = (int)json_integer_value(json_array_get(mine, r));
            int b = (int)json_integer_value(json_array_get(theirs, r));
            x ^= gap[r] = abs(a - b) - 1;
        }
        assert_int_not_equal(x, 0);
        int winners = 0, wrow = -1, wto = -1;
        for (int r = 0; r < rows; r++) {
            int a = (int)json_integer_value(json_array_get(mine, r));
            int b = (int)json_integer_value(json_array_get(theirs, r));
            for (int to = 0; to < cols; to++) {
                /* On the mover's side of the other piece, not where it stands now. */
                if (to == a || to == b || (a < b) != (to < b))
                    continue;
                if ((x ^ gap[r] ^ (abs(to - b) - 1)) == 0)
                    winners++, wrow = r, wto = to;
            }
        }
        assert_int_equal(winners, 1);
        assert_int_equal(ival(sj, "row"), wrow);
        assert_int_equal(ival(sj, "to"), wto);
        json_decref(o);
        json_decref(p);
        json_decref(sj);
    }
    free_items(items, n);
}

/* Northcott's game and the circle game: puzzles come, and the solution is a legal move
 * of the position read back from its JSON. */
static void test_puzzle_other_games(void **state)
{
    (void)state;
    const char *names[] = {"northcott", "circle"};
    for (int k = 0; k < 2; k++) {
        const thue_gamedef *g = game(names[k]);
        thue_puzzle_item items[WANT];
        int n = generate(g, 44, items);
        for (int i = 0; i < n; i++) {
            thue_gopt opt;
            thue_gerr e;
            assert_int_equal(thue_game_options_text(g, items[i].options, &opt, &e), 0);
            unsigned char st[4096];
            assert_true(g->state_size(&opt) <= sizeof st);
            json_t *pj = parse(items[i].position);
            assert_int_equal(g->position_parse(&opt, pj, st, &e), 0);
            json_decref(pj);
            assert_int_equal(
                thue_game_apply_text(g, &opt, st, items[i].p.mover, items[i].solution, &e), 0);
        }
        free_items(items, n);
    }
}

/* The finder refuses a lost position and one with several winning moves, and Thue; it
 * takes a position with one winning move. */
static void test_puzzle_refuses(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    thue_gerr e;
    unsigned char st[512];
    thue_puzzle p;
    /* [1,2,3]: xor 0, lost for the mover. */
    assert_int_equal(thue_game_options_text(g, "{\"heaps\":[1,2,3]}", &opt, &e), 0);
    g->start(&opt, 0, st);
    assert_int_equal(thue_puzzle_check(g, &opt, st, NULL, &p), 0);
    /* [3,5,7]: xor 1, and the heaps 3, 5 and 7 each have that bit: three winning moves. */
    assert_int_equal(thue_game_options_text(g, "{\"heaps\":[3,5,7]}", &opt, &e), 0);
    g->start(&opt, 0, st);
    assert_int_equal(thue_puzzle_check(g, &opt, st, NULL, &p), 0);
    /* [2,5]: xor 7, only 5 -> 2 wins. */
    assert_int_equal(thue_game_options_text(g, "{\"heaps\":[2,5]}", &opt, &e), 0);
    g->start(&opt, 0, st);
    assert_int_equal(thue_puzzle_check(g, &opt, st, NULL, &p), 1);
    assert_int_equal(p.solution.v[0], 1);
    assert_int_equal(p.solution.v[1], 3);
    assert_int_equal(p.moves, 7);
    assert_int_equal(p.mover, 0);
    /* A Thue match's state is no puzzle position here: Thue's puzzles are positions of
     * one round (thue_puzzle_check_thue; test_puzzle_thue). */
    const thue_gamedef *t = game("thue");
    thue_gopt topt;
    assert_int_equal(thue_game_options_text(t, NULL, &topt, &e), 0);
    assert_int_equal(thue_puzzle_check(t, &topt, st, NULL, &p), THUE_EINVAL);
}

/* A solver stopped before it starts decides nothing, so there is no puzzle at all. */
static void test_puzzle_unknown_is_none(void **state)
{
    (void)state;
    const thue_gamedef *g = game("dots");
    static atomic_int stop = 1;
    thue_bot_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.stop = &stop;
    thue_puzzle_item items[4];
    int found = -1;
    assert_int_equal(thue_puzzle_generate(g, 5, 20, &lim, items, 4, &found), 0);
    assert_int_equal(found, 0);
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, "{\"rows\":2,\"cols\":2}", &opt, &e), 0);
    unsigned char st[4096];
    g->start(&opt, 0, st);
    thue_puzzle p;
    assert_int_equal(thue_puzzle_check(g, &opt, st, &lim, &p), 0);
}

/* The same seed gives the same puzzles. */
static void test_puzzle_deterministic(void **state)
{
    (void)state;
    const thue_gamedef *g = game("rims");
    thue_puzzle_item a[6], b[6];
    int na = -1, nb = -1;
    assert_int_equal(thue_puzzle_generate(g, 99, 100, NULL, a, 6, &na), 0);
    assert_int_equal(thue_puzzle_generate(g, 99, 100, NULL, b, 6, &nb), 0);
    assert_int_equal(na, 6);
    assert_int_equal(nb, 6);
    for (int i = 0; i < 6; i++) {
        assert_string_equal(a[i].position, b[i].position);
        assert_string_equal(a[i].solution, b[i].solution);
        assert_int_equal(a[i].seed, b[i].seed);
    }
    free_items(a, na);
    free_items(b, nb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_puzzle_nim_bouton),    cmocka_unit_test(test_puzzle_wythoff_ptable),
        cmocka_unit_test(test_puzzle_minimax),       cmocka_unit_test(test_puzzle_other_games),
        cmocka_unit_test(test_puzzle_refuses),       cmocka_unit_test(test_puzzle_unknown_is_none),
        cmocka_unit_test(test_puzzle_deterministic), cmocka_unit_test(test_puzzle_northcott_gaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
