/*
 * test_review.c: the exact review (search/review.h) against references that share no
 * code with the solvers: Nim by Bouton's nim-sum, Wythoff's game by a P-table built by
 * plain dynamic programming, and dots and boxes, Rims and misere Nim by a plain memoised
 * minimax over the game's table written here. Random matches of each are reviewed and
 * every move's before, after, verdict and suggested move are checked. Also: a record that
 * does not replay is refused, and a solver out of budget gives unknown, not a guess.
 */
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/errors.h"
#include "games/dots/dots.h"
#include "games/game.h"
#include "search/review.h"

#define MOVES_MAX 200

static const thue_gamedef *game(const char *name)
{
    const thue_gamedef *g = thue_game_find(name);
    assert_non_null(g);
    return g;
}

static void options(const thue_gamedef *g, const char *text, thue_gopt *opt)
{
    thue_gerr e;
    if (thue_game_options_text(g, text, opt, &e) != 0)
        fail_msg("options %s: %s", text, e.msg);
}

/* A random match from start: its moves (at most MOVES_MAX), and the state after them. */
static int random_match(const thue_gamedef *g, const thue_gopt *opt, const void *start,
                        uint64_t seed, thue_gmove *moves, void *end)
{
    size_t size = g->state_size(opt);
    memcpy(end, start, size);
    int max = g->max_moves(opt);
    thue_gmove *list = malloc((size_t)max * sizeof *list);
    assert_non_null(list);
    int n = 0;
    for (; n < MOVES_MAX; n++) {
        int k = g->legal_moves(opt, end, list);
        if (k == 0)
            break;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        moves[n] = list[(seed >> 33) % (uint64_t)k];
        thue_gerr e;
        assert_int_equal(g->apply(opt, end, g->to_move(opt, end), &moves[n], &e), 0);
    }
    free(list);
    return n;
}

/* ---- the references ----------------------------------------------------------------------- */

/* A plain memoised minimax: the value (-1/0/1) of st for its mover, states compared by
 * their bytes in a table of their own (linear probing on an FNV hash of the bytes). */
typedef struct memo {
    const thue_gamedef *g;
    const thue_gopt *opt;
    size_t size, cap, used;
    unsigned char *keys;
    signed char *vals; /* 2: empty */
    /* Dots' net boxes still to win for the mover (best play), by the drawn lines: 127
     * empty. */
    signed char *mvals; /* by the drawn lines (dots only) */
} memo;

static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int naive(memo *m, const unsigned char *st)
{
    size_t at = fnv(st, m->size) % m->cap;
    while (m->vals[at] != 2) {
        if (memcmp(m->keys + at * m->size, st, m->size) == 0)
            return m->vals[at];
        at = (at + 1) % m->cap;
    }
    const thue_gamedef *g = m->g;
    int mover = g->to_move(m->opt, st);
    thue_gmove *list = malloc((size_t)g->max_moves(m->opt) * sizeof *list);
    assert_non_null(list);
    int k = g->legal_moves(m->opt, st, list), best = -2;
    unsigned char child[512];
    assert_true(m->size <= sizeof child);
    for (int i = 0; i < k && best < 1; i++) {
        memcpy(child, st, m->size);
        thue_gerr e;
        assert_int_equal(g->apply(m->opt, child, mover, &list[i], &e), 0);
        thue_gresult r;
        g->result(m->opt, child, &r);
        int v;
        if (r.over)
            v = r.winner < 0 ? 0 : r.winner == mover ? 1 : -1;
        else
            v = g->to_move(m->opt, child) == mover ? naive(m, child) : -naive(m, child);
        if (v > best)
            best = v;
    }
    free(list);
    if (m->used * 2 >= m->cap)
        fail_msg("%s: more than %zu positions: a bigger table", g->name, m->cap / 2);
    at = fnv(st, m->size) % m->cap;
    while (m->vals[at] != 2)
        at = (at + 1) % m->cap;
    memcpy(m->keys + at * m->size, st, m->size);
    m->vals[at] = (signed char)best;
    m->used++;
    return best;
}

/* The net boxes the mover can still win (their boxes minus the other's, over the boxes
 * still open) by plain memoised negamax over the drawn lines alone (dots, boards of at
 * most 20 lines): a box drawn keeps the move, so the child's net adds, else negates. */
static int naive_net(memo *m, const unsigned char *st)
{
    const thue_gamedef *g = m->g;
    const thue_dots_state *d = (const thue_dots_state *)st;
    uint64_t key = d->drawn[0];
    if (m->mvals[key] != 127)
        return m->mvals[key];
    int mover = g->to_move(m->opt, st);
    thue_gmove *list = malloc((size_t)g->max_moves(m->opt) * sizeof *list);
    assert_non_null(list);
    int k = g->legal_moves(m->opt, st, list), best = k > 0 ? -1000 : 0;
    unsigned char child[512];
    for (int i = 0; i < k; i++) {
        memcpy(child, st, m->size);
        thue_gerr e;
        assert_int_equal(g->apply(m->opt, child, mover, &list[i], &e), 0);
        const thue_dots_state *c = (const thue_dots_state *)child;
        int gained = c->score[mover] - d->score[mover];
        thue_gresult cr;
        g->result(m->opt, child, &cr);
        int rest = cr.over ? 0 : naive_net(m, child);
        int v = gained > 0 ? gained + rest : -rest;
        if (v > best)
            best = v;
    }
    free(list);
    m->mvals[key] = (signed char)best;
    return best;
}

static void memo_init(memo *m, const thue_gamedef *g, const thue_gopt *opt, size_t cap)
{
    m->g = g, m->opt = opt, m->size = g->state_size(opt), m->cap = cap, m->used = 0;
    m->keys = malloc(cap * m->size);
    m->vals = malloc(cap);
    m->mvals = malloc((size_t)1 << 20);
    assert_non_null(m->keys);
    assert_non_null(m->vals);
    assert_non_null(m->mvals);
    memset(m->vals, 2, cap);
    memset(m->mvals, 127, (size_t)1 << 20);
}

static void memo_free(memo *m)
{
    free(m->keys);
    free(m->vals);
    free(m->mvals);
}

/* The value for `who` of the state st by the reference (over: by its result). */
static int ref_value(memo *m, const unsigned char *st, int who)
{
    thue_gresult r;
    m->g->result(m->opt, st, &r);
    if (r.over)
        return r.winner < 0 ? 0 : r.winner == who ? 1 : -1;
    int v = naive(m, st);
    return m->g->to_move(m->opt, st) == who ? v : -v;
}

/* ---- checking a review ---------------------------------------------------------------- */

typedef int (*value_fn)(void *ref, const unsigned char *st, int who);

/* The reference's final margin of st for `who` (over: its scores), for a game with
 * scores; NULL for the others. */
typedef int (*margin_fn)(void *ref, const unsigned char *st, int who);

static int memo_margin(void *ref, const unsigned char *st, int who)
{
    memo *m = ref;
    thue_gresult r;
    m->g->result(m->opt, st, &r);
    int diff = r.score[who] - r.score[who ^ 1];
    if (r.over)
        return diff;
    int v = naive_net(m, st);
    return diff + (m->g->to_move(m->opt, st) == who ? v : -v);
}

static int memo_value(void *ref, const unsigned char *st, int who)
{
    return ref_value(ref, st, who);
}

/* Reviews `count` random matches of g from its start and checks every move against the
 * reference; returns how many moves were mistakes or blunders (the tests want some). */
static int goods; /* `good` verdicts seen (dots: a kept result with a smaller margin) */

static int check_reviews_m(const thue_gamedef *g, const thue_gopt *opt, void *ref, value_fn value,
                           margin_fn margin, int count)
{
    size_t size = g->state_size(opt);
    unsigned char start[512], st[512], end[512], before[512];
    assert_true(size <= sizeof start);
    int bad_moves = 0;
    for (int c = 0; c < count; c++) {
        g->start(opt, (uint64_t)c, start);
        thue_gmove moves[MOVES_MAX];
        int n = random_match(g, opt, start, 1000 + (uint64_t)c, moves, end);
        thue_review_move rv[MOVES_MAX];
        int solved = -1;
        assert_int_equal(thue_review(g, opt, start, moves, n, NULL, 0, rv, &solved), 0);
        assert_int_equal(solved, n + 1);
        memcpy(st, start, size);
        for (int i = 0; i < n; i++) {
            int who = g->to_move(opt, st);
            assert_int_equal(rv[i].player, who);
            assert_int_equal(rv[i].before, value(ref, st, who));
            thue_gerr e;
            assert_int_equal(g->apply(opt, st, who, &moves[i], &e), 0);
            assert_int_equal(rv[i].after, value(ref, st, who));
            int drop = rv[i].before - rv[i].after;
            assert_true(drop >= 0); /* no move does better than best play */
            thue_verdict want = drop == 0   ? THUE_VERDICT_BEST
                                : drop == 1 ? THUE_VERDICT_MISTAKE
                                            : THUE_VERDICT_BLUNDER;
            assert_int_equal(rv[i].has_margin, margin != NULL);
            if (margin != NULL) {
                unsigned char pre[512];
                memcpy(pre, start, size);
                for (int j = 0; j < i; j++)
                    assert_int_equal(g->apply(opt, pre, g->to_move(opt, pre), &moves[j], &e), 0);
                assert_int_equal(rv[i].margin_before, margin(ref, pre, who));
                assert_int_equal(rv[i].margin_after, margin(ref, st, who));
                assert_true(rv[i].margin_after <= rv[i].margin_before);
                if (drop == 0 && rv[i].margin_after < rv[i].margin_before)
                    want = THUE_VERDICT_GOOD;
            }
            goods += want == THUE_VERDICT_GOOD;
            assert_int_equal(rv[i].verdict, want);
            bad_moves += drop > 0;
            /* The suggested move keeps the value before. */
            assert_true(rv[i].has_best);
            memcpy(before, start, size); /* st is past move i: replay up to it */
            for (int j = 0; j < i; j++)
                assert_int_equal(g->apply(opt, before, g->to_move(opt, before), &moves[j], &e), 0);
            assert_int_equal(g->apply(opt, before, who, &rv[i].best, &e), 0);
            assert_int_equal(value(ref, before, who), rv[i].before);
        }
        assert_memory_equal(st, end, size);
    }
    return bad_moves;
}

static int check_reviews(const thue_gamedef *g, const thue_gopt *opt, void *ref, value_fn value,
                         int count)
{
    return check_reviews_m(g, opt, ref, value, NULL, count);
}

/* ---- the tests ------------------------------------------------------------------------- */

/* Nim by Bouton: the mover wins exactly when the heaps' XOR is not 0; a position with no
 * token left was won by the player who took the last one. */
static const thue_gopt *nim_opt;
static int bouton(void *ref, const unsigned char *st, int who)
{
    const thue_gamedef *g = ref;
    json_t *j = g->state_json(nim_opt, st);
    json_t *heaps = json_object_get(j, "heaps");
    int x = 0;
    for (size_t i = 0; i < json_array_size(heaps); i++)
        x ^= (int)json_integer_value(json_array_get(heaps, i));
    int mover = (int)json_integer_value(json_object_get(j, "to_move"));
    json_decref(j);
    /* Over (no token): the mover faces an empty board and has lost. */
    int v = x != 0 ? 1 : -1;
    return mover == who ? v : -v;
}

static void test_review_nim_bouton(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, "{\"heaps\":[3,4,5,6]}", &opt);
    nim_opt = &opt;
    int bad = check_reviews(g, &opt, (void *)g, bouton, 40);
    assert_true(bad > 10); /* random play errs: the verdicts were exercised */
}

/* Wythoff's game (a = 1) by a P-table from dynamic programming over small heaps. */
#define WY 24
static unsigned char wy_p[WY][WY];
static const thue_gopt *wy_opt;

static void wy_table(void)
{
    for (int x = 0; x < WY; x++)
        for (int y = 0; y < WY; y++) {
            int p = 1;
            for (int t = 1; p && t <= x; t++)
                p = !wy_p[x - t][y];
            for (int t = 1; p && t <= y; t++)
                p = !wy_p[x][y - t];
            for (int t = 1; p && t <= x && t <= y; t++)
                p = !wy_p[x - t][y - t];
            wy_p[x][y] = (unsigned char)p;
        }
}

static int wythoff_value(void *ref, const unsigned char *st, int who)
{
    const thue_gamedef *g = ref;
    json_t *j = g->state_json(wy_opt, st);
    json_t *h = json_object_get(j, "heaps");
    int x = (int)json_integer_value(json_array_get(h, 0));
    int y = (int)json_integer_value(json_array_get(h, 1));
    int mover = (int)json_integer_value(json_object_get(j, "to_move"));
    json_decref(j);
    assert_true(x < WY && y < WY);
    int v = wy_p[x][y] ? -1 : 1;
    return mover == who ? v : -v;
}

static void test_review_wythoff_ptable(void **state)
{
    (void)state;
    wy_table();
    assert_true(wy_p[0][0] && wy_p[1][2] && wy_p[3][5] && wy_p[4][7] && !wy_p[2][2]);
    const thue_gamedef *g = game("wythoff");
    thue_gopt opt;
    options(g, "{\"heaps\":[17,23]}", &opt);
    wy_opt = &opt;
    int bad = check_reviews(g, &opt, (void *)g, wythoff_value, 40);
    assert_true(bad > 10);
}

/* Dots and boxes 2x2, Rims and misere Nim by the plain minimax. */
static void naive_game(const char *name, const char *opts, size_t cap, int min_bad)
{
    const thue_gamedef *g = game(name);
    thue_gopt opt;
    options(g, opts, &opt);
    memo m;
    memo_init(&m, g, &opt, cap);
    int bad = check_reviews_m(g, &opt, &m, memo_value,
                              strcmp(name, "dots") == 0 ? memo_margin : NULL, 25);
    if (bad < min_bad)
        fail_msg("%s %s: %d bad moves in 25 random matches", name, opts, bad);
    memo_free(&m);
}

static void test_review_dots_minimax(void **state)
{
    (void)state;
    goods = 0;
    naive_game("dots", "{\"rows\":2,\"cols\":2}", 1u << 20, 5);
    naive_game("dots", "{\"rows\":1,\"cols\":3}", 1u << 16, 5);
    assert_true(goods > 0); /* the margins were exercised */
}

static void test_review_rims_and_misere_minimax(void **state)
{
    (void)state;
    naive_game("rims", "{\"heaps\":[4,3,2]}", 1u << 14, 5);
    naive_game("nim", "{\"heaps\":[2,3,4],\"misere\":true}", 1u << 12, 5);
}

/* ---- Thue by plain minimax ------------------------------------------------------------- */

/* The painter's further points by the definition (review.h): V(w) = min over places of
 * P(w, i), P = 0 when no symbol is safe at i, else the best 1 + V over safe symbols;
 * capped by the limit (a word of n symbols holds n - 1 points: rounds start at [0]).
 * Memoised by the word read as a number in base k, per length. */
enum { TK_MAX = 4, TL_MAX = 10 };
static int tk, tl;
static thue_variant tv;
static signed char *tmemo[TL_MAX + 2];

static int tindex(const uint8_t *w, int n)
{
    int x = 0;
    for (int i = 0; i < n; i++)
        x = x * tk + w[i];
    return x;
}

static int tv_builder(const uint8_t *w, int n);

static int tv_painter(const uint8_t *w, int n, int i)
{
    uint8_t x[TL_MAX + 2];
    int best = 0;
    for (int c = 0; c < tk; c++) {
        if (thue_check_insert(w, n, tv, i, c, NULL) != 0)
            continue;
        memcpy(x, w, (size_t)i);
        x[i] = (uint8_t)c;
        memcpy(x + i + 1, w + i, (size_t)(n - i));
        int v = 1 + (n < tl ? tv_builder(x, n + 1) : 0); /* x holds n points */
        if (v > best)
            best = v;
    }
    return best;
}

static int tv_builder(const uint8_t *w, int n)
{
    signed char *m = &tmemo[n][tindex(w, n)];
    if (*m >= 0)
        return *m;
    int best = 1000;
    for (int i = 0; i <= n; i++) {
        int v = tv_painter(w, n, i);
        if (v < best)
            best = v;
    }
    *m = (signed char)best;
    return best;
}

static void thue_reference(int k, int limit, thue_variant v)
{
    tk = k, tl = limit, tv = v;
    size_t size = 1;
    for (int n = 0; n <= limit + 1; n++) {
        free(tmemo[n]);
        tmemo[n] = malloc(size);
        assert_non_null(tmemo[n]);
        memset(tmemo[n], -1, size);
        size *= (size_t)k;
    }
}

/* Random matches of two rounds, each move checked: the values before and after by the
 * reference, the verdict by review.h's rule, and the suggested move keeps the value. */
static void check_thue(int k, int limit, thue_variant v, int count, int *goods_out, int *bads)
{
    thue_reference(k, limit, v);
    uint64_t seed = 99;
    for (int c = 0; c < count; c++) {
        thue_review_tmove mv[2 * 2 * TL_MAX + 8];
        int n = 0, p1 = 0;
        uint8_t w[TL_MAX + 2];
        /* the play: each round from [0] until a repetition or the limit */
        for (int round = 0; round < 2; round++) {
            int len = 1;
            w[0] = 0;
            for (;;) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                int i = (int)((seed >> 33) % (uint64_t)(len + 1));
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                int sym = (int)((seed >> 33) % (uint64_t)k);
                mv[n++] = (thue_review_tmove){round, round, 0, i};
                mv[n++] = (thue_review_tmove){round, round ^ 1, 1, sym};
                if (thue_check_insert(w, len, v, i, sym, NULL))
                    break;
                memmove(w + i + 1, w + i, (size_t)(len - i));
                w[i] = (uint8_t)sym;
                if (++len - 1 >= limit)
                    break;
            }
            if (round == 0)
                p1 = len - 1;
        }
        thue_review_tout out[2 * 2 * TL_MAX + 8];
        int solved = -1;
        assert_int_equal(thue_review_thue(k, v, limit, mv, n, NULL, 0, out, &solved), 0);
        assert_int_equal(solved, n);
        /* the replay, against the reference */
        int len = 1, round = 0, place = -1;
        w[0] = 0;
        for (int m = 0; m < n; m++) {
            if (mv[m].round != round)
                round = 1, len = 1, w[0] = 0;
            int before, after, pts = len - 1;
            if (!mv[m].is_paint) {
                before = pts + (pts < limit ? tv_builder(w, len) : 0);
                place = mv[m].value;
                after = pts + tv_painter(w, len, place);
                /* the best place gives no more than before */
                assert_true(out[m].has_best);
                assert_int_equal(pts + tv_painter(w, len, out[m].best), before);
            } else {
                before = pts + tv_painter(w, len, place);
                if (out[m].has_best) {
                    uint8_t x[TL_MAX + 2];
                    assert_int_equal(thue_check_insert(w, len, v, place, out[m].best, NULL), 0);
                    memcpy(x, w, (size_t)place);
                    x[place] = (uint8_t)out[m].best;
                    memcpy(x + place + 1, w + place, (size_t)(len - place));
                    assert_int_equal(pts + 1 + (pts + 1 < limit ? tv_builder(x, len + 1) : 0),
                                     before);
                } else {
                    assert_int_equal(before, pts); /* no symbol is safe there */
                }
                if (thue_check_insert(w, len, v, place, mv[m].value, NULL)) {
                    after = pts;
                } else {
                    memmove(w + place + 1, w + place, (size_t)(len - place));
                    w[place] = (uint8_t)mv[m].value;
                    len++;
                    after = pts + 1 + (pts + 1 < limit ? tv_builder(w, len) : 0);
                }
            }
            assert_int_equal(out[m].before, before);
            assert_int_equal(out[m].after, after);
            int lost = mv[m].is_paint ? before - after : after - before;
            assert_true(lost >= 0);
            thue_verdict want = THUE_VERDICT_BEST;
            if (lost > 0 && round == 0) {
                want = lost == 1 ? THUE_VERDICT_MISTAKE : THUE_VERDICT_BLUNDER;
            } else if (lost > 0) {
                /* the round-2 painter's match result: 1 win, 0 draw, -1 loss */
                int rb = before > p1 ? 1 : before == p1 ? 0 : -1;
                int ra = after > p1 ? 1 : after == p1 ? 0 : -1;
                int drop = mv[m].is_paint ? rb - ra : ra - rb;
                want = drop == 0 ? THUE_VERDICT_GOOD : drop == 1 ? THUE_VERDICT_MISTAKE
                                                                 : THUE_VERDICT_BLUNDER;
            }
            assert_int_equal(out[m].verdict, want);
            *goods_out += want == THUE_VERDICT_GOOD;
            *bads += want == THUE_VERDICT_MISTAKE || want == THUE_VERDICT_BLUNDER;
        }
    }
}

static void test_review_thue_minimax(void **state)
{
    (void)state;
    int good = 0, bad = 0;
    check_thue(3, 10, THUE_SQUARE, 60, &good, &bad);
    check_thue(4, 7, THUE_SQUARE, 40, &good, &bad);
    check_thue(3, 8, THUE_OVERLAP, 40, &good, &bad);
    assert_true(bad > 20); /* random play loses points: the verdicts were exercised */
    assert_true(good > 0);
    for (int n = 0; n <= TL_MAX + 1; n++) {
        free(tmemo[n]);
        tmemo[n] = NULL;
    }
    /* A budget for the whole review: past it, positions are unknown, never guessed. */
    {
        thue_review_tmove mv[40];
        int n = 0, len = 1;
        for (; n + 2 <= 40 && len <= 12; len++) { /* 0 1 2 3 ... appended: 0102... */
            mv[n++] = (thue_review_tmove){0, 0, 0, len};
            mv[n++] = (thue_review_tmove){0, 1, 1, len % 2 ? 1 : 0};
        }
        thue_review_tout out2[40];
        int solved = -1;
        int err = thue_review_thue(5, THUE_SQUARE, 30, mv, 2, NULL, 40, out2, &solved);
        assert_int_equal(err, 0);
        assert_true(solved < 2);
        for (int i = 0; i < 2; i++)
            if (out2[i].before == THUE_REVIEW_UNKNOWN || out2[i].after == THUE_REVIEW_UNKNOWN)
                assert_int_equal(out2[i].verdict, THUE_VERDICT_UNKNOWN);
        assert_int_equal(out2[0].before, THUE_REVIEW_UNKNOWN); /* k = 5: far past 40 nodes */
    }
    /* a record that does not replay: a paint first, a place past the word [0] */
    thue_review_tmove bad1[] = {{0, 1, 1, 0}};
    thue_review_tmove bad2[] = {{0, 0, 0, 2}}; /* [0] has places 0 and 1 */
    thue_review_tout out[2];
    assert_int_equal(thue_review_thue(3, THUE_SQUARE, 10, bad1, 1, NULL, 0, out, NULL), THUE_EINVAL);
    assert_int_equal(thue_review_thue(3, THUE_SQUARE, 10, bad2, 1, NULL, 0, out, NULL), THUE_EINVAL);
}

/* A record that does not replay is refused; so is a negative count. */
static void test_review_refuses(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, "{\"heaps\":[1,2]}", &opt);
    unsigned char st[512];
    g->start(&opt, 0, st);
    thue_gmove moves[2] = {{{1, 1, 0, 0}}, {{1, 5, 0, 0}}}; /* the second takes 5 of 1 */
    thue_review_move rv[2];
    int solved = -1;
    assert_int_equal(thue_review(g, &opt, st, moves, 2, NULL, 0, rv, &solved), THUE_EINVAL);
    assert_int_equal(rv[0].verdict, THUE_VERDICT_BEST); /* [1,1] after: a P-position */
    assert_int_equal(thue_review(g, &opt, st, moves, -1, NULL, 0, rv, NULL), THUE_EINVAL);
    assert_int_equal(thue_review(g, &opt, st, NULL, 0, NULL, 0, NULL, &solved), 0);
    assert_int_equal(solved, 1);
    assert_string_equal(thue_verdict_name(THUE_VERDICT_BLUNDER), "blunder");
    assert_string_equal(thue_verdict_name(THUE_VERDICT_UNKNOWN), "unknown");
    assert_null(thue_verdict_name((thue_verdict)5));
}

/* Past the solver's reach (here: every search stopped at once), moves are unknown, not
 * guessed. */
static void test_review_unknown_past_budget(void **state)
{
    (void)state;
    const thue_gamedef *g = game("dots");
    thue_gopt opt;
    options(g, "{\"rows\":3,\"cols\":3}", &opt);
    unsigned char start[512], end[512];
    assert_true(g->state_size(&opt) <= sizeof start);
    g->start(&opt, 0, start);
    thue_gmove moves[MOVES_MAX];
    int n = random_match(g, &opt, start, 7, moves, end);
    thue_bot_limits lim;
    memset(&lim, 0, sizeof lim);
    static atomic_int stop = 1; /* stopped before it starts: no search decides anything */
    lim.stop = &stop;
    thue_review_move rv[MOVES_MAX];
    int solved = -1;
    assert_int_equal(thue_review(g, &opt, start, moves, n, &lim, 0, rv, &solved), 0);
    assert_true(solved < n + 1);
    assert_int_equal(rv[0].before, THUE_REVIEW_UNKNOWN);
    assert_int_equal(rv[0].verdict, THUE_VERDICT_UNKNOWN);
    assert_false(rv[0].has_best);
    assert_false(rv[0].has_estimate); /* none asked for */
}

/* Past the solver's reach (dots 4x4 from its start: 40 lines), the uct bot's estimates
 * come with unknown verdicts, in 0..1, the same on a second run (seeded); an exact
 * value never gets one turned into a verdict. */
static void test_review_estimates(void **state)
{
    (void)state;
    const thue_gamedef *g = game("dots");
    thue_gopt opt;
    options(g, "{\"rows\":4,\"cols\":4}", &opt);
    unsigned char start[512], end[512];
    g->start(&opt, 0, start);
    thue_gmove moves[MOVES_MAX];
    int n = random_match(g, &opt, start, 11, moves, end);
    assert_true(n >= 4);
    n = 4;
    thue_review_move a[4], b[4];
    assert_int_equal(thue_review(g, &opt, start, moves, n, NULL, 300, a, NULL), 0);
    assert_int_equal(thue_review(g, &opt, start, moves, n, NULL, 300, b, NULL), 0);
    for (int i = 0; i < n; i++) {
        assert_int_equal(a[i].verdict, THUE_VERDICT_UNKNOWN);
        assert_true(a[i].has_estimate);
        assert_true(a[i].est_before >= 0 && a[i].est_before <= 1);
        assert_true(a[i].est_after >= 0 && a[i].est_after <= 1);
        assert_true(a[i].est_before == b[i].est_before && a[i].est_after == b[i].est_after);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_review_nim_bouton),
        cmocka_unit_test(test_review_wythoff_ptable),
        cmocka_unit_test(test_review_dots_minimax),
        cmocka_unit_test(test_review_rims_and_misere_minimax),
        cmocka_unit_test(test_review_refuses),
        cmocka_unit_test(test_review_unknown_past_budget),
        cmocka_unit_test(test_review_estimates),
        cmocka_unit_test(test_review_thue_minimax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
