/*
 * test_game_heaps.c: Nim and Rims (server/games/nim, server/games/rims) behind game.h.
 *
 * Each game's perfect player is checked against a brute force that knows only the rules:
 *   - Nim: a memoised minimax over every position of up to 4 heaps of up to 7 tokens,
 *     normal and misere: the same value everywhere, and from a won position the perfect
 *     move leaves a position the minimax calls lost;
 *   - Rims: Grundy values by the mex over every take-and-split move, on every multiset of
 *     heaps up to 24 dots in all (without assuming that values add by XOR: the multiset is
 *     the position); they must be the XOR of the heap sizes, and single heaps up to 60
 *     (by mex over the splits' XORs, the Sprague-Grundy sum) must have value n. Through
 *     the game's table, every position up to 12 dots: its listed moves reach exactly the
 *     brute force's children, and the perfect move of a won position reaches value 0.
 * Plus option and position errors, Rims's region cap and canonical heaps, and the
 * conformance checker (game_check.h) on both games.
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
#include "games/nim/nim.h"
#include "games/registry.h"
#include "games/rims/rims.h"

static void opts(const thue_gamedef *g, const char *text, thue_gopt *opt)
{
    thue_gerr e;
    int rc = thue_game_options_text(g, text, opt, &e);
    if (rc != 0)
        print_error("%s: %s\n", text != NULL ? text : "(defaults)", e.msg);
    assert_int_equal(rc, 0);
}

static int parse_pos(const thue_gamedef *g, const thue_gopt *opt, const char *text, void *st,
                     thue_gerr *e)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    int rc = g->position_parse(opt, j, st, e);
    json_decref(j);
    return rc;
}

/* ---- Nim ----------------------------------------------------------------------------- */

#define NIM_H 4
#define NIM_T 8 /* tokens 0..7 */

static signed char nim_memo[2][NIM_T * NIM_T * NIM_T * NIM_T];

static int nim_index(const int *h)
{
    return ((h[0] * NIM_T + h[1]) * NIM_T + h[2]) * NIM_T + h[3];
}

/* Minimax value for the player to move: 1 win, -1 loss. */
static int nim_brute(int *h, int misere)
{
    signed char *m = &nim_memo[misere][nim_index(h)];
    if (*m != 0)
        return *m;
    int best = -1, any = 0;
    for (int i = 0; i < NIM_H && best < 0; i++)
        for (int t = 1; t <= h[i] && best < 0; t++) {
            any = 1;
            h[i] -= t;
            if (nim_brute(h, misere) < 0)
                best = 1;
            h[i] += t;
        }
    if (!any) /* no token: the opponent took the last one */
        best = misere ? 1 : -1;
    *m = (signed char)best;
    return best;
}

static void test_nim_perfect_matches_minimax(void **state)
{
    (void)state;
    const thue_gamedef *g = thue_game_find("nim");
    assert_non_null(g);
    memset(nim_memo, 0, sizeof nim_memo);
    long checked = 0, wins = 0;
    for (int misere = 0; misere < 2; misere++) {
        thue_gopt opt;
        opts(g, misere ? "{\"misere\":true}" : "{\"misere\":false}", &opt);
        thue_nim_state s, child;
        assert_int_equal(g->state_size(&opt), sizeof s);
        for (int n = 1; n <= NIM_H; n++) {
            int total = 1;
            for (int i = 0; i < n; i++)
                total *= NIM_T;
            for (int code = 0; code < total; code++) {
                int h[NIM_H] = {0, 0, 0, 0};
                char text[128];
                int at = snprintf(text, sizeof text, "{\"heaps\":[");
                for (int i = 0, c = code; i < n; i++, c /= NIM_T) {
                    h[i] = c % NIM_T;
                    at += snprintf(text + at, sizeof text - (size_t)at, "%s%d", i ? "," : "", h[i]);
                }
                snprintf(text + at, sizeof text - (size_t)at, "],\"to_move\":%d}", code & 1);
                thue_gerr e;
                assert_int_equal(parse_pos(g, &opt, text, &s, &e), 0);
                int want = nim_brute(h, misere);
                thue_gmove best = {{-1, -1, 0, 0}};
                int value = 0;
                assert_int_equal(g->perfect(&opt, &s, NULL, &best, &value), 0);
                if (value != want)
                    print_error("%s misere=%d: perfect %d, minimax %d\n", text, misere, value,
                                want);
                assert_int_equal(value, want);
                checked++;
                if (g->to_move(&opt, &s) < 0)
                    continue;
                child = s;
                assert_int_equal(g->apply(&opt, &child, code & 1, &best, &e), 0);
                if (want > 0) {
                    int ch[NIM_H] = {0, 0, 0, 0};
                    for (int i = 0; i < child.n; i++)
                        ch[i] = child.heaps[i];
                    assert_int_equal(nim_brute(ch, misere), -1);
                    wins++;
                }
            }
        }
    }
    /* 8 + 64 + 512 + 4096 positions, twice. */
    assert_int_equal(checked, 2 * (8 + 64 + 512 + 4096));
    print_message("nim: %ld positions agree with the minimax, %ld winning moves checked\n", checked,
                  wins);
}

static void expect_options_error(const thue_gamedef *g, const char *text, const char *field)
{
    thue_gopt opt;
    thue_gerr e;
    memset(&e, 0, sizeof e);
    int rc = thue_game_options_text(g, text, &opt, &e);
    if (rc != THUE_EOPTIONS)
        print_error("%s options %s: got %d\n", g->name, text, rc);
    assert_int_equal(rc, THUE_EOPTIONS);
    assert_int_equal(e.code, THUE_EOPTIONS);
    assert_true(e.msg[0] != '\0');
    if (field != NULL)
        assert_string_equal(e.field, field);
}

static void test_nim_option_errors(void **state)
{
    (void)state;
    const thue_gamedef *g = thue_game_find("nim");
    expect_options_error(g, "{\"heap\":[1]}", "heap");
    expect_options_error(g, "{\"heaps\":[1],\"colour\":1}", "colour");
    expect_options_error(g, "{\"heaps\":\"3,4,5\"}", "heaps");
    expect_options_error(g, "{\"heaps\":[3,\"4\"]}", "heaps");
    expect_options_error(g, "{\"heaps\":[3,4.5]}", "heaps");
    expect_options_error(g, "{\"heaps\":[]}", "heaps");
    expect_options_error(g, "{\"heaps\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}", "heaps");
    expect_options_error(g, "{\"heaps\":[1001]}", "heaps");
    expect_options_error(g, "{\"heaps\":[-1,3]}", "heaps");
    expect_options_error(g, "{\"heaps\":[0,0,0]}", "heaps");
    expect_options_error(g, "{\"misere\":1}", "misere");
    expect_options_error(g, "{\"misere\":\"yes\"}", "misere");
    expect_options_error(g, "[1,2]", NULL);
    expect_options_error(g, "{\"heaps\":", NULL);
    /* The limits themselves are fine. */
    thue_gopt opt;
    opts(g, "{\"heaps\":[1000,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1000],\"misere\":true}", &opt);
    opts(g, "{\"heaps\":[0,1]}", &opt);
}

static void test_nim_positions(void **state)
{
    (void)state;
    const thue_gamedef *g = thue_game_find("nim");
    thue_gopt opt;
    opts(g, NULL, &opt);
    thue_nim_state s;
    thue_gerr e;
    /* legal_moves writes one move per token: a position beyond max_moves is refused. */
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[1000,1000]}", &s, &e), THUE_ESTATE);
    assert_string_equal(e.field, "heaps");
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[1000,24]}", &s, &e), 0);
    assert_int_equal(g->max_moves(&opt), THUE_NIM_MOVES_FLOOR);
    thue_gmove *moves = malloc(sizeof *moves * (size_t)THUE_NIM_MOVES_FLOOR);
    assert_non_null(moves);
    assert_int_equal(g->legal_moves(&opt, &s, moves), 1024);
    free(moves);
    opts(g, "{\"heaps\":[1000,1000]}", &opt);
    assert_int_equal(g->max_moves(&opt), 2000);
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[1000,1000]}", &s, &e), 0);
    /* A finished game keeps to_move, the player who faces the empty heaps. */
    opts(g, NULL, &opt);
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[0,0],\"to_move\":-1}", &s, &e), THUE_ESTATE);
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[0],\"winner\":0}", &s, &e), THUE_ESTATE);
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[0,0],\"to_move\":0}", &s, &e), 0);
    thue_gresult r;
    g->result(&opt, &s, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, 1);
    assert_int_equal(g->to_move(&opt, &s), -1);
    char *t = thue_game_dump(g->state_json(&opt, &s));
    assert_string_equal(t, "{\"heaps\":[0,0],\"to_move\":0,\"moves\":0,\"nim_sum\":0}");
    free(t);
    opts(g, "{\"misere\":true}", &opt);
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[0],\"to_move\":1}", &s, &e), 0);
    g->result(&opt, &s, &r);
    assert_int_equal(r.winner, 1);
    assert_string_equal(r.why, "took_last");
}

/* ---- Rims: the brute force ---------------------------------------------------------- */

#define RB_TOTAL 24 /* multisets up to this many dots */
#define RB_PARTS 32
#define RB_SLOTS (1 << 16)

/* A multiset as its parts in non-increasing order; the key is its unary code (each part
 * as that many 1 bits, then a 0), at most 2 * RB_TOTAL bits. */
typedef struct rb_set {
    int n;
    int p[RB_PARTS];
} rb_set;

static uint64_t rb_key(const rb_set *s)
{
    uint64_t k = 1; /* a leading 1 keeps the empty set apart from nothing */
    for (int i = 0; i < s->n; i++)
        k = (k << (s->p[i] + 1)) | (((uint64_t)1 << s->p[i]) - 1) << 1;
    return k;
}

static struct {
    uint64_t key;
    int value; /* Grundy value + 1; 0 for an empty slot */
} rb_memo[RB_SLOTS];

static void rb_sort(rb_set *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        if (s->p[i] > 0)
            s->p[n++] = s->p[i];
    s->n = n;
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && s->p[k - 1] < s->p[k]; k--) {
            int t = s->p[k];
            s->p[k] = s->p[k - 1], s->p[k - 1] = t;
        }
}

/* The children of s: every heap i, take t, split x of the rest (x and rest - x both
 * kept, so every order is tried). Returns their count. */
static int rb_children(const rb_set *s, rb_set *out, int cap)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        for (int t = 1; t <= s->p[i]; t++)
            for (int x = 0; x <= s->p[i] - t; x++) {
                assert_true(n < cap);
                rb_set c = *s;
                c.p[i] = x;
                c.p[c.n++] = s->p[i] - t - x;
                rb_sort(&c);
                out[n++] = c;
            }
    return n;
}

static int rb_grundy(const rb_set *s)
{
    uint64_t key = rb_key(s);
    size_t slot = (size_t)(thue_gmix64(key) & (RB_SLOTS - 1));
    while (rb_memo[slot].value != 0 && rb_memo[slot].key != key)
        slot = (slot + 1) & (RB_SLOTS - 1);
    if (rb_memo[slot].value != 0)
        return rb_memo[slot].value - 1;
    enum { CAP = 4096 };
    rb_set *kids = malloc(sizeof *kids * CAP);
    assert_non_null(kids);
    int n = rb_children(s, kids, CAP);
    unsigned char seen[RB_TOTAL * 4 + 2] = {0};
    for (int i = 0; i < n; i++) {
        int v = rb_grundy(&kids[i]);
        assert_true(v < (int)sizeof seen);
        seen[v] = 1;
    }
    free(kids);
    int mex = 0;
    while (seen[mex])
        mex++;
    /* the recursion may have taken the empty slot found above: probe again */
    slot = (size_t)(thue_gmix64(key) & (RB_SLOTS - 1));
    while (rb_memo[slot].value != 0 && rb_memo[slot].key != key)
        slot = (slot + 1) & (RB_SLOTS - 1);
    rb_memo[slot].key = key;
    rb_memo[slot].value = mex + 1;
    return mex;
}

/* Calls f on every multiset of total dots 1..max (parts non-increasing). */
static void rb_each(rb_set *s, int left, int maxpart, void (*f)(const rb_set *, void *), void *ctx)
{
    if (s->n > 0)
        f(s, ctx);
    for (int p = maxpart < left ? maxpart : left; p >= 1; p--) {
        s->p[s->n++] = p;
        rb_each(s, left - p, p, f, ctx);
        s->n--;
    }
}

static void grundy_is_xor(const rb_set *s, void *ctx)
{
    long *count = ctx;
    int x = 0;
    for (int i = 0; i < s->n; i++)
        x ^= s->p[i];
    int v = rb_grundy(s);
    if (v != x) {
        print_error("rims: grundy %d, xor %d for", v, x);
        for (int i = 0; i < s->n; i++)
            print_error(" %d", s->p[i]);
        print_error("\n");
    }
    assert_int_equal(v, x);
    (*count)++;
}

static void test_rims_grundy_is_nim(void **state)
{
    (void)state;
    memset(rb_memo, 0, sizeof rb_memo);
    rb_set s = {0};
    long count = 0;
    rb_each(&s, RB_TOTAL, RB_TOTAL, grundy_is_xor, &count);
    /* The partitions of 1..24: sum of p(n). */
    assert_int_equal(count, 7337);
    /* Single heaps by the Sprague-Grundy sum of the two parts a move leaves. */
    enum { SINGLE = 60 };
    int g1[SINGLE + 1];
    g1[0] = 0;
    for (int h = 1; h <= SINGLE; h++) {
        unsigned char seen[4 * SINGLE] = {0};
        for (int t = 1; t <= h; t++)
            for (int x = 0; x <= h - t; x++)
                seen[g1[x] ^ g1[h - t - x]] = 1;
        int mex = 0;
        while (seen[mex])
            mex++;
        g1[h] = mex;
        assert_int_equal(g1[h], h);
    }
    print_message("rims: %ld multisets up to %d dots have Grundy value = XOR of their heaps; "
                  "heaps 1..%d have value n\n",
                  count, RB_TOTAL, SINGLE);
}

/* ---- Rims through the game's table -------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted unique keys; returns the count. */
static int uniq(uint64_t *k, int n)
{
    qsort(k, (size_t)n, sizeof *k, cmp_u64);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || k[m - 1] != k[i])
            k[m++] = k[i];
    return m;
}

/* The multiset of a Rims state, read from its JSON (the state is the game's own). */
static void rims_read(const thue_gamedef *g, const thue_gopt *opt, const void *st, rb_set *out)
{
    json_t *j = g->state_json(opt, st);
    assert_non_null(j);
    const json_t *h = json_object_get(j, "heaps");
    assert_true(json_is_array(h));
    out->n = (int)json_array_size(h);
    assert_true(out->n <= RB_PARTS);
    for (int i = 0; i < out->n; i++) {
        out->p[i] = (int)json_integer_value(json_array_get(h, (size_t)i));
        assert_true(out->p[i] > 0);
        assert_true(i == 0 || out->p[i] <= out->p[i - 1]); /* canonical */
    }
    json_decref(j);
}

typedef struct rims_ctx {
    const thue_gamedef *g;
    thue_gopt opt;
    long positions, wins, moves;
} rims_ctx;

static void rims_position(const rb_set *s, void *vctx)
{
    rims_ctx *c = vctx;
    const thue_gamedef *g = c->g;
    size_t size = g->state_size(&c->opt);
    unsigned char *st = malloc(size), *child = malloc(size);
    assert_non_null(st);
    assert_non_null(child);
    /* The position in a shuffled order, to be made canonical by position_parse. */
    char text[256];
    int at = snprintf(text, sizeof text, "{\"heaps\":[0");
    for (int i = s->n - 1; i >= 0; i--)
        at += snprintf(text + at, sizeof text - (size_t)at, ",%d", s->p[i]);
    snprintf(text + at, sizeof text - (size_t)at, "],\"to_move\":1}");
    thue_gerr e;
    assert_int_equal(parse_pos(g, &c->opt, text, st, &e), 0);
    rb_set back;
    rims_read(g, &c->opt, st, &back);
    assert_int_equal(rb_key(&back), rb_key(s));

    /* The listed moves reach exactly the brute force's children. */
    int max = g->max_moves(&c->opt);
    thue_gmove *moves = malloc(sizeof *moves * (size_t)max);
    assert_non_null(moves);
    int n = g->legal_moves(&c->opt, st, moves);
    enum { CAP = 4096 };
    rb_set *kids = malloc(sizeof *kids * CAP);
    uint64_t *want = malloc(sizeof *want * CAP), *got = malloc(sizeof *got * (size_t)(n + 1));
    assert_non_null(kids);
    assert_non_null(want);
    assert_non_null(got);
    int nk = rb_children(s, kids, CAP);
    for (int i = 0; i < nk; i++)
        want[i] = rb_key(&kids[i]);
    for (int i = 0; i < n; i++) {
        memcpy(child, st, size);
        assert_int_equal(g->apply(&c->opt, child, 1, &moves[i], &e), 0);
        rb_set cs;
        rims_read(g, &c->opt, child, &cs);
        got[i] = rb_key(&cs);
    }
    c->moves += n;
    nk = uniq(want, nk);
    int ng = uniq(got, n);
    assert_int_equal(ng, nk);
    assert_memory_equal(got, want, sizeof *got * (size_t)nk);

    /* The perfect player. */
    int grundy = rb_grundy(s), value = 0;
    thue_gmove best;
    assert_int_equal(g->perfect(&c->opt, st, NULL, &best, &value), 0);
    assert_int_equal(value, grundy != 0 ? 1 : -1);
    memcpy(child, st, size);
    assert_int_equal(g->apply(&c->opt, child, 1, &best, &e), 0);
    if (value > 0) {
        rb_set cs;
        rims_read(g, &c->opt, child, &cs);
        assert_int_equal(rb_grundy(&cs), 0);
        c->wins++;
    }
    c->positions++;
    free(kids);
    free(want);
    free(got);
    free(moves);
    free(st);
    free(child);
}

static void test_rims_table_matches_brute_force(void **state)
{
    (void)state;
    memset(rb_memo, 0, sizeof rb_memo);
    rims_ctx c = {.g = thue_game_find("rims")};
    assert_non_null(c.g);
    opts(c.g, NULL, &c.opt);
    rb_set s = {0};
    rb_each(&s, 12, 12, rims_position, &c);
    assert_int_equal(c.positions, 1 + 2 + 3 + 5 + 7 + 11 + 15 + 22 + 30 + 42 + 56 + 77);
    /* The empty sheet: over, the player to move lost. */
    unsigned char st[1024];
    assert_true(c.g->state_size(&c.opt) <= sizeof st);
    thue_gerr e;
    assert_int_equal(parse_pos(c.g, &c.opt, "{\"heaps\":[0,0],\"to_move\":0}", st, &e), 0);
    thue_gresult r;
    c.g->result(&c.opt, st, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, 1);
    print_message("rims: %ld positions up to 12 dots: %ld listed moves reach the brute force's "
                  "children, %ld winning moves reach Grundy 0\n",
                  c.positions, c.moves, c.wins);
}

static void test_rims_rules(void **state)
{
    (void)state;
    const thue_gamedef *g = thue_game_find("rims");
    thue_gopt opt;
    opts(g, NULL, &opt);
    unsigned char st[1024], before[1024];
    size_t size = g->state_size(&opt);
    assert_true(size <= sizeof st);
    thue_gerr e;

    /* Canonical heaps from the options and after a move. */
    opts(g, "{\"heaps\":[0,3,0,5,1]}", &opt);
    g->start(&opt, 99, st);
    char *t = thue_game_dump(g->state_json(&opt, st));
    assert_string_equal(t, "{\"heaps\":[5,3,1],\"to_move\":0,\"moves\":0}");
    free(t);
    assert_int_equal(
        thue_game_apply_text(g, &opt, st, 0, "{\"heap\":0,\"take\":1,\"split\":3}", &e), 0);
    t = thue_game_dump(g->state_json(&opt, st));
    assert_string_equal(t, "{\"heaps\":[3,3,1,1],\"to_move\":1,\"moves\":1}");
    free(t);
    /* split == rest: the other side is empty, no new region. */
    assert_int_equal(
        thue_game_apply_text(g, &opt, st, 1, "{\"heap\":1,\"take\":1,\"split\":2}", &e), 0);
    t = thue_game_dump(g->state_json(&opt, st));
    assert_string_equal(t, "{\"heaps\":[3,2,1,1],\"to_move\":0,\"moves\":2}");
    free(t);

    /* Refusals name what is wrong and change nothing. */
    memcpy(before, st, size);
    static const struct {
        const char *move;
        int code;
        const char *field;
    } bad[] = {
        {"{\"heap\":4,\"take\":1}", THUE_EILLEGAL, "heap"},
        {"{\"heap\":0,\"take\":4}", THUE_EILLEGAL, "take"},
        {"{\"heap\":0,\"take\":1,\"split\":3}", THUE_EILLEGAL, "split"},
        {"{\"heap\":0,\"take\":0}", THUE_EMOVE, "take"},
        {"{\"heap\":-1,\"take\":1}", THUE_EMOVE, "heap"},
        {"{\"heap\":0,\"take\":1,\"split\":-1}", THUE_EMOVE, "split"},
        {"{\"heap\":0,\"take\":1,\"split\":\"1\"}", THUE_EMOVE, "split"},
        {"{\"heap\":0}", THUE_EMOVE, "take"},
        {"{\"heap\":0,\"take\":1,\"cut\":1}", THUE_EMOVE, "cut"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&e, 0, sizeof e);
        assert_int_equal(thue_game_apply_text(g, &opt, st, 0, bad[i].move, &e), bad[i].code);
        assert_string_equal(e.field, bad[i].field);
        assert_true(e.msg[0] != '\0');
        assert_memory_equal(st, before, size);
    }

    /* The region cap: 64 regions allow no split into two non-empty sides. */
    char text[512];
    int at = snprintf(text, sizeof text, "{\"heaps\":[3");
    for (int i = 1; i < THUE_RIMS_REGIONS_MAX; i++)
        at += snprintf(text + at, sizeof text - (size_t)at, ",3");
    snprintf(text + at, sizeof text - (size_t)at, "]}");
    opts(g, NULL, &opt);
    assert_int_equal(parse_pos(g, &opt, text, st, &e), 0);
    memcpy(before, st, size);
    assert_int_equal(
        thue_game_apply_text(g, &opt, st, 0, "{\"heap\":5,\"take\":1,\"split\":1}", &e),
        THUE_EILLEGAL);
    assert_string_equal(e.field, "split");
    assert_non_null(strstr(e.msg, "64 regions"));
    assert_memory_equal(st, before, size);
    thue_gmove moves[THUE_RIMS_MOVES_FLOOR];
    assert_true(g->max_moves(&opt) <= THUE_RIMS_MOVES_FLOOR);
    /* take 1, 2 or 3 with split 0 from each heap; 1 + 1 of 2 is the split refused */
    assert_int_equal(g->legal_moves(&opt, st, moves), 64 * 3);
    assert_int_equal(
        thue_game_apply_text(g, &opt, st, 0, "{\"heap\":5,\"take\":1,\"split\":2}", &e), 0);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 1, "{\"heap\":63,\"take\":2}", &e), 0);
    t = thue_game_dump(g->state_json(&opt, st));
    assert_non_null(strstr(t, "\"to_move\":0"));
    free(t);
    at = snprintf(text, sizeof text, "{\"heaps\":[1");
    for (int i = 1; i <= THUE_RIMS_REGIONS_MAX; i++)
        at += snprintf(text + at, sizeof text - (size_t)at, ",1");
    snprintf(text + at, sizeof text - (size_t)at, "]}");
    assert_int_equal(parse_pos(g, &opt, text, st, &e), THUE_ESTATE);

    /* Positions beyond the options' move bound are refused (legal_moves' buffer). */
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[1000]}", st, &e), THUE_ESTATE);
    assert_int_equal(g->max_moves(&opt), THUE_RIMS_MOVES_FLOOR);
    opts(g, "{\"heaps\":[1000]}", &opt);
    assert_int_equal(g->max_moves(&opt), thue_rims_heap_moves(1000));
    assert_int_equal(thue_rims_heap_moves(1000), 250500);
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[1000]}", st, &e), 0);

    /* A finished game: over; its JSON keeps to_move, the player facing the empty sheet. */
    opts(g, "{\"heaps\":[2]}", &opt);
    g->start(&opt, 0, st);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 0, "{\"heap\":0,\"take\":2}", &e), 0);
    t = thue_game_dump(g->state_json(&opt, st));
    assert_string_equal(t, "{\"heaps\":[],\"to_move\":1,\"moves\":1}");
    free(t);
    assert_int_equal(g->to_move(&opt, st), -1);
    thue_gresult r;
    g->result(&opt, st, &r);
    assert_int_equal(r.winner, 0);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 1, "{\"heap\":0,\"take\":1}", &e),
                     THUE_EOVER);
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[],\"to_move\":-1}", st, &e), THUE_ESTATE);
    assert_int_equal(parse_pos(g, &opt, "{\"heaps\":[2],\"winner\":0}", st, &e), THUE_ESTATE);

    /* Option errors. */
    expect_options_error(g, "{\"heaps\":[]}", "heaps");
    expect_options_error(g, "{\"heaps\":[0]}", "heaps");
    expect_options_error(g, "{\"heaps\":[1001]}", "heaps/0");
    expect_options_error(g, "{\"heaps\":[2,\"x\"]}", "heaps/1");
    expect_options_error(g, "{\"heaps\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}", "heaps");
    expect_options_error(g, "{\"misere\":true}", "misere");
}

/* ---- conformance ----------------------------------------------------------------------- */

static void run_check(const char *game, const char *options, int seeds, int max_plies)
{
    const thue_gamedef *g = thue_game_find(game);
    assert_non_null(g);
    game_check_cfg cfg = {
        .options = options, .seeds = seeds, .max_plies = max_plies, .moves_per_state = 300};
    game_check_stats st;
    game_check(g, &cfg, &st);
    assert_true(st.states > seeds);
    print_message("%s %s: %ld states, %ld moves round-tripped, %ld refusals, %ld equivalent "
                  "nudged moves; wins %ld/%ld, draws %ld\n",
                  game, options != NULL ? options : "(defaults)", st.states, st.moves, st.refused,
                  st.accepted, st.ended[0], st.ended[1], st.ended[2]);
}

static void test_nim_conformance(void **state)
{
    (void)state;
    run_check("nim", NULL, 40, 100);
    run_check("nim", "{\"heaps\":[7,0,7,7,2],\"misere\":true}", 40, 100);
    run_check("nim", "{\"heaps\":[1]}", 3, 10);
}

static void test_rims_conformance(void **state)
{
    (void)state;
    run_check("rims", NULL, 40, 100);
    run_check("rims", "{\"heaps\":[10,1,0,6]}", 40, 100);
    run_check("rims", "{\"heaps\":[40,40]}", 6, 200);
    run_check("rims", "{\"heaps\":[1]}", 3, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nim_perfect_matches_minimax),
        cmocka_unit_test(test_nim_option_errors),
        cmocka_unit_test(test_nim_positions),
        cmocka_unit_test(test_nim_conformance),
        cmocka_unit_test(test_rims_grundy_is_nim),
        cmocka_unit_test(test_rims_table_matches_brute_force),
        cmocka_unit_test(test_rims_rules),
        cmocka_unit_test(test_rims_conformance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
