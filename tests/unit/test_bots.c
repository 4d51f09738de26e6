/*
 * test_bots.c: the bots of thue_search (bot.h) against references written here, straight
 * from the "Bots" section of RULES.md.
 *
 * The references share no code with server/search: safe symbols come from the naive
 * rescan of naive.c (one full repetition check per position and symbol), simulation(m)
 * is the recursion of RULES.md word for word, and perfect play is the minimax of the
 * values in bot.h memoised on exact words (no symmetry, no move ordering; only the cap is
 * tightened and raised step by step, which keeps its results those of the recursion).
 * The one thing taken from the bots' side is the tie-break draw, thue_bot_tiebreak,
 * which bot.h makes part of the contract; it is itself checked here against SplitMix64
 * written out.
 *
 * Checked:
 * - greedy, nested:1, nested:2 and nested:3 (move and node count) on positions reached
 *   by random play (square and overlap, k = 2..8) and on hand-picked ones from RULES.md:
 *   ties, a painter with nothing safe, a builder facing positions where nothing is safe;
 * - perfect: an optimal move and its value against the minimax, with and without the
 *   length limit (remaining) and a look-ahead cap; a tiny node budget;
 * - limits: a node budget falls back to the last complete level, deterministically; a
 *   stop flag or a past deadline answers at once with the greedy move;
 * - root splits (2..4 parts, in any order or on threads) against one part;
 * - spec parsing and formatting, move seeds, position checks.
 *
 * Two tests pin bugs this suite found in perfect.c, since fixed: the painter reported a
 * lower bound as its value with exact = 1, and a split painter search could play a worse
 * symbol.
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
#include <uv.h>

#include "engine/errors.h"
#include "engine/repetition.h"
#include "naive.h"
#include "search/bot.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Longest word a test builds, with room for the references' insertions. */
#define WMAX 72

/* ---- small tools ------------------------------------------------------------------- */

/* SplitMix64, written out from its definition (Steele, Lea and Flood): the state is a
 * counter advanced by the golden gamma, each output the finaliser of the new state. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The tests' own generator (independent of the bots' seeds), restarted before every test
 * so that a test draws the same positions whether it runs alone or with the others. */
static uint64_t rng_state;
static int reset_rng(void **state)
{
    (void)state;
    rng_state = 0x243f6a8885a308d3ULL;
    return 0;
}
static int rnd_below(int n)
{
    return (int)(splitmix64(&rng_state) % (uint64_t)n);
}

static void ins(uint8_t *w, int n, int i, int c)
{
    memmove(w + i + 1, w + i, (size_t)(n - i));
    w[i] = (uint8_t)c;
}

/* Removes w[i] from w[0..n). */
static void del(uint8_t *w, int n, int i)
{
    memmove(w + i, w + i + 1, (size_t)(n - i - 1));
}

static int popcount(uint64_t x)
{
    int c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

/* The safe symbols at position i of the clean word w[0..n): k naive rescans. */
NAIVE_FAST static uint64_t ref_safe(const uint8_t *w, int n, int k, thue_variant v, int i)
{
    uint8_t buf[WMAX + 2];
    return naive_safe_at(w, n, k, v, i, buf);
}

static thue_position mkpos(thue_variant v, int k, const uint8_t *w, int n, thue_role role,
                           int index)
{
    thue_position p = {
        .variant = v, .k = k, .sym = w, .n = n, .role = role, .index = index, .remaining = 0};
    return p;
}

static void dump(const char *what, const thue_position *p, uint64_t seed)
{
    char word[WMAX * 3 + 8];
    size_t at = 0;
    word[0] = '\0';
    for (int j = 0; j < p->n && at + 4 < sizeof word; j++)
        at += (size_t)snprintf(word + at, sizeof word - at, j ? ",%d" : "%d", p->sym[j]);
    print_error("%s: %s k=%d word=[%s] n=%d %s index=%d remaining=%d seed=0x%llx\n", what,
                thue_variant_name(p->variant), p->k, word, p->n, thue_role_name(p->role), p->index,
                p->remaining, (unsigned long long)seed);
}

/* A clean word reached by random play from [0]: the builder picks a random position
 * (the next one with a safe symbol if it has none), the painter a random safe symbol
 * there. Stops at `len` symbols or when no move is safe. */
static int random_word(thue_variant v, int k, int len, uint8_t *w)
{
    int n = 1;
    w[0] = 0;
    while (n < len) {
        int i = rnd_below(n + 1);
        uint64_t safe = 0;
        for (int t = 0; t <= n && safe == 0; t++) {
            i = (i + (t > 0)) % (n + 1);
            safe = ref_safe(w, n, k, v, i);
        }
        if (safe == 0)
            break;
        int pick = rnd_below(popcount(safe));
        int c = 0;
        for (;; c++)
            if (((safe >> c) & 1) && pick-- == 0)
                break;
        ins(w, n, i, c);
        n++;
    }
    return n;
}

/* A painter's index: random, or (one time in three) the position with the fewest safe
 * symbols, which is often one with none. */
static int random_index(thue_variant v, int k, const uint8_t *w, int n)
{
    if (rnd_below(3) != 0)
        return rnd_below(n + 1);
    int best = 0, fewest = 65;
    for (int i = 0; i <= n; i++) {
        int c = popcount(ref_safe(w, n, k, v, i));
        if (c < fewest) {
            fewest = c;
            best = i;
        }
    }
    return best;
}

static thue_bot_spec spec_of(const char *text)
{
    thue_bot_spec s;
    char err[128];
    int r = thue_bot_spec_parse(text, &s, err, sizeof err);
    if (r != 0)
        print_error("spec '%s': %s\n", text, err);
    assert_int_equal(r, 0);
    return s;
}

/* A legal answer to the position: a gap 0..n, or a symbol (a safe one when any is). */
static void assert_legal_move(const thue_position *p, int move)
{
    if (p->role == THUE_ROLE_BUILDER) {
        assert_in_range(move, 0, p->n);
        return;
    }
    assert_in_range(move, 0, p->k - 1);
    uint64_t safe = ref_safe(p->sym, p->n, p->k, p->variant, p->index);
    if (safe != 0)
        assert_true((safe >> move) & 1);
}

/* ---- reference: greedy (level 0) --------------------------------------------------- */

/* Painter: the lowest safe symbol, 0 when none is. Builder: the fewest safe symbols,
 * the last such position on a tie. */
static int ref_greedy(const thue_position *p)
{
    if (p->role == THUE_ROLE_PAINTER) {
        uint64_t safe = ref_safe(p->sym, p->n, p->k, p->variant, p->index);
        for (int c = 0; c < p->k; c++)
            if ((safe >> c) & 1)
                return c;
        return 0;
    }
    int count[WMAX + 2], fewest = p->k;
    for (int i = 0; i <= p->n; i++) {
        count[i] = popcount(ref_safe(p->sym, p->n, p->k, p->variant, i));
        if (count[i] < fewest)
            fewest = count[i];
    }
    int i = p->n;
    while (count[i] != fewest)
        i--;
    return i;
}

/* ---- reference: nested:L ------------------------------------------------------------ */

typedef struct sim_ctx {
    int k;
    thue_variant v;
    uint64_t calls; /* simulation() calls: the bot counts one node per call */
} sim_ctx;

/* simulation(m) of RULES.md on the word w[0..n) (room for m more symbols):
 *   m -= 1; for every position j: score += |safe symbols at j|; for each safe symbol s at
 *   j: insert s, and if m > 0 recurse simulation(m), then remove s. */
NAIVE_FAST static uint64_t simulation(sim_ctx *x, uint8_t *w, int n, int m)
{
    x->calls++;
    m -= 1;
    uint64_t score = 0;
    for (int j = 0; j <= n; j++) {
        uint64_t safe = ref_safe(w, n, x->k, x->v, j);
        score += (uint64_t)popcount(safe);
        for (int s = 0; s < x->k; s++) {
            if (!((safe >> s) & 1))
                continue;
            ins(w, n, j, s);
            if (m > 0)
                score += simulation(x, w, n + 1, m);
            del(w, n + 1, j);
        }
    }
    return score;
}

typedef struct nested_ref {
    int move;
    uint64_t nodes;           /* 1 (the root) + simulation() calls */
    int ncand;                /* positions, or safe symbols */
    int cand[WMAX + 2];       /* ascending */
    uint64_t score[WMAX + 2]; /* score of cand[x] */
    int ntied;                /* candidates with the best score */
    int tied[WMAX + 2];       /* ascending */
} nested_ref;

/* The nested:L move of RULES.md, ties broken by thue_bot_tiebreak(seed, ties). */
static void ref_nested(const thue_position *p, int L, uint64_t seed, nested_ref *out)
{
    sim_ctx x = {p->k, p->variant, 0};
    uint8_t w[WMAX + 16];
    int n = p->n;
    assert_true(n + L + 1 <= WMAX);
    if (n > 0)
        memcpy(w, p->sym, (size_t)n);
    memset(out, 0, sizeof *out);
    if (p->role == THUE_ROLE_PAINTER) {
        uint64_t safe = ref_safe(w, n, p->k, p->variant, p->index);
        for (int c = 0; c < p->k; c++) {
            if (!((safe >> c) & 1))
                continue;
            ins(w, n, p->index, c);
            out->score[out->ncand] = simulation(&x, w, n + 1, L);
            del(w, n + 1, p->index);
            out->cand[out->ncand++] = c;
        }
    } else {
        for (int i = 0; i <= n; i++) {
            uint64_t safe = ref_safe(w, n, p->k, p->variant, i), total = 0;
            for (int s = 0; s < p->k; s++) {
                if (!((safe >> s) & 1))
                    continue;
                ins(w, n, i, s);
                total += simulation(&x, w, n + 1, L);
                del(w, n + 1, i);
            }
            out->score[out->ncand] = total;
            out->cand[out->ncand++] = i;
        }
    }
    out->nodes = 1 + x.calls;
    if (out->ncand == 0) { /* a painter with nothing safe: every symbol loses */
        out->move = 0;
        return;
    }
    uint64_t best = out->score[0];
    for (int c = 1; c < out->ncand; c++) {
        if (p->role == THUE_ROLE_PAINTER && out->score[c] > best)
            best = out->score[c];
        if (p->role == THUE_ROLE_BUILDER && out->score[c] < best)
            best = out->score[c];
    }
    for (int c = 0; c < out->ncand; c++)
        if (out->score[c] == best)
            out->tied[out->ntied++] = out->cand[c];
    out->move = out->tied[out->ntied > 1 ? thue_bot_tiebreak(seed, out->ntied) : 0];
}

static int is_tied(const nested_ref *ref, int move)
{
    for (int t = 0; t < ref->ntied; t++)
        if (ref->tied[t] == move)
            return 1;
    return 0;
}

/* thue_bot_move with nested:L and no limits against the reference: move, node count,
 * exactness. Returns the reference's number of tied candidates. */
static int check_nested(const thue_position *p, int L, uint64_t seed, nested_ref *ref)
{
    ref_nested(p, L, seed, ref);
    thue_bot_spec spec = thue_bot_spec_default(THUE_BOT_NESTED);
    spec.level = L;
    thue_bot_result r;
    assert_int_equal(thue_bot_move(&spec, p, NULL, seed, &r), 0);
    if (r.move != ref->move || r.nodes != ref->nodes) {
        dump("nested mismatch", p, seed);
        print_error("nested:%d: got move %d nodes %llu, want move %d nodes %llu (%d tied)\n", L,
                    r.move, (unsigned long long)r.nodes, ref->move, (unsigned long long)ref->nodes,
                    ref->ntied);
    }
    assert_int_equal(r.move, ref->move);
    assert_int_equal(r.nodes, ref->nodes);
    assert_int_equal(r.exact, 1);
    assert_int_equal(r.depth, L);
    assert_int_equal(r.value, -1);
    assert_int_equal(r.stopped, 0);
    assert_int_equal(r.iterations, 0);
    return ref->ntied;
}

/* ---- reference: perfect play --------------------------------------------------------- */

/* A table of min(V(w), d) keyed on the exact word and d. */
#define PMAXW 30
#define PREC (PMAXW + 2) /* n + 1 (0 marks a free slot), d, the word zero-padded */

typedef struct memo {
    int k;
    thue_variant v;
    uint8_t *keys;
    int8_t *vals;
    size_t cap, count;
} memo;

static size_t memo_find(const memo *m, const uint8_t *key)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int j = 0; j < PREC; j++)
        h = (h ^ key[j]) * 0x100000001b3ULL;
    size_t i = (size_t)h & (m->cap - 1);
    while (m->keys[i * PREC] != 0 && memcmp(m->keys + i * PREC, key, PREC) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void memo_put(memo *m, const uint8_t *key, int val)
{
    if (2 * (m->count + 1) > m->cap) {
        memo old = *m;
        m->cap = old.cap ? 2 * old.cap : 4096;
        m->keys = calloc(m->cap, PREC);
        m->vals = calloc(m->cap, 1);
        assert_non_null(m->keys);
        assert_non_null(m->vals);
        m->count = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i * PREC] != 0)
                memo_put(m, old.keys + i * PREC, old.vals[i]);
        free(old.keys);
        free(old.vals);
    }
    size_t i = memo_find(m, key);
    if (m->keys[i * PREC] == 0)
        m->count++;
    memcpy(m->keys + i * PREC, key, PREC);
    m->vals[i] = (int8_t)val;
}

/* One table at a time, held here rather than by the tests so that a failing assertion
 * (which jumps out of the test) leaks nothing: the next memo_open and the group teardown
 * free it. */
static memo the_memo;

static void memo_release(void)
{
    free(the_memo.keys);
    free(the_memo.vals);
    memset(&the_memo, 0, sizeof the_memo);
}

/* An empty table for k symbols and the variant. */
static memo *memo_open(int k, thue_variant v)
{
    memo_release();
    the_memo.k = k;
    the_memo.v = v;
    return &the_memo;
}

static int teardown_memo(void **state)
{
    (void)state;
    memo_release();
    return 0;
}

static int ref_V(memo *m, uint8_t *w, int n, int d);

/* min(P(w, i), d) for d >= 1: 0 when nothing is safe at i, else the maximum over the safe
 * c of 1 + V(w with c at i). */
static int ref_P(memo *m, uint8_t *w, int n, int i, int d)
{
    uint64_t safe = ref_safe(w, n, m->k, m->v, i);
    int best = 0;
    for (int c = 0; c < m->k && best < d; c++) {
        if (!((safe >> c) & 1))
            continue;
        ins(w, n, i, c);
        int x = 1 + ref_V(m, w, n + 1, d - 1);
        del(w, n + 1, i);
        if (x > best)
            best = x;
    }
    return best;
}

/* min(V(w), d), V(w) being the minimum over the positions i of P(w, i). Once some
 * position is worth b < d, min(P(w, j), b) is all that matters of the others (the game
 * tree is infinite for k = 4 and beyond: only capped values are finite). */
static int ref_V(memo *m, uint8_t *w, int n, int d)
{
    if (d == 0)
        return 0;
    assert_true(n < PMAXW);
    uint8_t key[PREC] = {0};
    key[0] = (uint8_t)(n + 1);
    key[1] = (uint8_t)d;
    memcpy(key + 2, w, (size_t)n);
    if (m->cap > 0) {
        size_t at = memo_find(m, key);
        if (m->keys[at * PREC] != 0)
            return m->vals[at];
    }
    int best = d;
    for (int i = 0; i <= n && best > 0; i++) {
        int x = ref_P(m, w, n, i, best);
        if (x < best)
            best = x;
    }
    memo_put(m, key, best);
    return best;
}

/* min(V(w), d) and min(P(w, i), d) with the cap raised 1, 2, ... so that the work is that
 * of the true value when it is below d: min(V, e) < e means V itself. */
static int ref_V_deep(memo *m, uint8_t *w, int n, int d)
{
    for (int e = 1; e <= d; e++) {
        int v = ref_V(m, w, n, e);
        if (v < e)
            return v;
    }
    return d < 0 ? 0 : d;
}

static int ref_P_deep(memo *m, uint8_t *w, int n, int i, int d)
{
    for (int e = 1; e <= d; e++) {
        int x = ref_P(m, w, n, i, e);
        if (x < e)
            return x;
    }
    return d < 0 ? 0 : d;
}

/* The root moves' values capped at d, enough to tell the best moves from the others:
 * vals[move] for positions 0..n (builder; capped further at best + 1) or symbols 0..k-1
 * (painter; -1 for the unsafe ones). Returns the best value capped at d (builder: the
 * minimum, painter: the maximum; 0 for a painter with nothing safe). */
static int ref_root_values(memo *m, const thue_position *p, int d, int *vals)
{
    uint8_t w[PMAXW + 2];
    int n = p->n;
    if (n > 0)
        memcpy(w, p->sym, (size_t)n);
    if (p->role == THUE_ROLE_BUILDER) {
        int best = ref_V_deep(m, w, n, d);
        for (int i = 0; i <= n; i++)
            vals[i] = ref_P(m, w, n, i, best < d ? best + 1 : d);
        return best;
    }
    uint64_t safe = ref_safe(w, n, p->k, p->variant, p->index);
    int best = 0;
    for (int c = 0; c < p->k; c++) {
        vals[c] = -1;
        if (!((safe >> c) & 1))
            continue;
        ins(w, n, p->index, c);
        vals[c] = 1 + ref_V_deep(m, w, n + 1, d - 1);
        del(w, n + 1, p->index);
        if (vals[c] > best)
            best = vals[c];
    }
    return best;
}

/* The value of one root move capped at d (an unsafe symbol scores nothing). */
static int ref_move_value(memo *m, const thue_position *p, int move, int d)
{
    uint8_t w[PMAXW + 2];
    int n = p->n;
    if (n > 0)
        memcpy(w, p->sym, (size_t)n);
    if (p->role == THUE_ROLE_BUILDER)
        return ref_P_deep(m, w, n, move, d);
    if (!((ref_safe(w, n, p->k, p->variant, p->index) >> move) & 1))
        return 0;
    ins(w, n, p->index, move);
    return 1 + ref_V_deep(m, w, n + 1, d - 1);
}

/* ---- tests: seeds, specs, positions ------------------------------------------------ */

/* thue_bot_tiebreak is one SplitMix64 draw from the seed modulo the number of ties (no
 * draw, 0, for one candidate), so other implementations can make the same choices. */
static void test_bots_tiebreak_is_one_splitmix64_draw(void **state)
{
    (void)state;
    int hits[7] = {0};
    for (uint64_t seed = 0; seed < 2000; seed++) {
        uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ (seed << 7);
        assert_int_equal(thue_bot_tiebreak(x, 0), 0);
        assert_int_equal(thue_bot_tiebreak(x, 1), 0);
        for (int ties = 2; ties <= 70; ties++) {
            uint64_t st = x;
            int want = (int)(splitmix64(&st) % (uint64_t)ties);
            assert_int_equal(thue_bot_tiebreak(x, ties), want);
        }
        hits[thue_bot_tiebreak(x, 7)]++;
    }
    for (int t = 0; t < 7; t++)
        assert_true(hits[t] > 200); /* 2000/7 = 286 expected each */
}

/* A game's move seeds: a pure function of (game seed, round, ply, role), different for
 * every field. */
static void test_bots_move_seed_mixes_every_field(void **state)
{
    (void)state;
    uint64_t seen[2 * 2 * 40 * 2];
    int count = 0;
    for (uint64_t g = 0; g < 2; g++)
        for (int round = 0; round < 2; round++)
            for (int ply = 0; ply < 40; ply++)
                for (int role = 0; role < 2; role++) {
                    uint64_t s = thue_bot_move_seed(g * 12345, round, ply, (thue_role)role);
                    assert_int_equal(s, thue_bot_move_seed(g * 12345, round, ply, (thue_role)role));
                    for (int j = 0; j < count; j++)
                        assert_true(seen[j] != s);
                    seen[count++] = s;
                }
}

static void assert_same_spec(const thue_bot_spec *a, const thue_bot_spec *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->level, b->level);
    assert_int_equal(a->iterations, b->iterations);
    assert_int_equal(a->time_ms, b->time_ms);
    assert_int_equal(a->playout_limit, b->playout_limit);
    assert_true(a->exploration == b->exploration);
    assert_int_equal(a->max_depth, b->max_depth);
}

static void test_bots_spec_parse_valid(void **state)
{
    (void)state;
    thue_bot_spec s;
    s = spec_of("greedy");
    assert_int_equal(s.kind, THUE_BOT_GREEDY);
    assert_int_equal(s.level, 0);
    s = spec_of("0");
    assert_int_equal(s.kind, THUE_BOT_GREEDY);
    assert_int_equal(s.level, 0);
    s = spec_of("nested:0"); /* documented: nested:0 is greedy */
    assert_int_equal(s.kind, THUE_BOT_GREEDY);
    s = spec_of("3");
    assert_int_equal(s.kind, THUE_BOT_NESTED);
    assert_int_equal(s.level, 3);
    s = spec_of("9");
    assert_int_equal(s.kind, THUE_BOT_NESTED);
    assert_int_equal(s.level, 9);
    s = spec_of("nested:2");
    assert_int_equal(s.kind, THUE_BOT_NESTED);
    assert_int_equal(s.level, 2);
    s = spec_of("nested:9");
    assert_int_equal(s.level, 9);
    s = spec_of("uct");
    assert_int_equal(s.kind, THUE_BOT_UCT);
    assert_int_equal(s.iterations, THUE_UCT_ITERATIONS_DEFAULT);
    assert_int_equal(s.playout_limit, THUE_UCT_PLAYOUT_DEFAULT);
    assert_int_equal(s.time_ms, 0);
    assert_true(s.exploration == THUE_UCT_C_DEFAULT);
    s = spec_of("uct:iterations=500,c=0.5,playout=50,ms=100");
    assert_int_equal(s.kind, THUE_BOT_UCT);
    assert_int_equal(s.iterations, 500);
    assert_true(s.exploration == 0.5);
    assert_int_equal(s.playout_limit, 50);
    assert_int_equal(s.time_ms, 100);
    s = spec_of("uct:iterations=0,ms=20");
    assert_int_equal(s.iterations, 0);
    assert_int_equal(s.time_ms, 20);
    s = spec_of("uct:c=0");
    assert_true(s.exploration == 0.0);
    s = spec_of("perfect");
    assert_int_equal(s.kind, THUE_BOT_PERFECT);
    assert_int_equal(s.max_depth, 0);
    s = spec_of("perfect:depth=12");
    assert_int_equal(s.kind, THUE_BOT_PERFECT);
    assert_int_equal(s.max_depth, 12);
    /* The defaults of every kind are what parsing the bare name gives. */
    thue_bot_spec d = thue_bot_spec_default(THUE_BOT_NESTED);
    assert_int_equal(d.level, 1);
    s = spec_of("nested:1");
    assert_same_spec(&s, &d);
    d = thue_bot_spec_default(THUE_BOT_UCT);
    s = spec_of("uct");
    assert_same_spec(&s, &d);
    d = thue_bot_spec_default(THUE_BOT_PERFECT);
    s = spec_of("perfect");
    assert_same_spec(&s, &d);
    d = thue_bot_spec_default(THUE_BOT_GREEDY);
    s = spec_of("greedy");
    assert_same_spec(&s, &d);
}

static void test_bots_spec_parse_invalid(void **state)
{
    (void)state;
    const char *bad[] = {"",
                         "nested",
                         "nested:",
                         "nested:x",
                         "nested:10",
                         "nested:-1",
                         "nested:2:3",
                         "10",
                         "-1",
                         "uct:foo=1",
                         "uct:iterations=-1",
                         "uct:iterations=",
                         "uct:iterations",
                         "uct:c=abc",
                         "uct:c=-1",
                         "uct:c=nan",
                         "uct:iterations=0",
                         "uct:playout=0",
                         "uct:",
                         "uct:ms=5,",
                         "uct:depth=3",
                         "perfect:depth=x",
                         "perfect:depth=-1",
                         "perfect:c=1",
                         "perfect:",
                         "greedy:1",
                         "greedy:",
                         "foo",
                         "Greedy",
                         "minimax",
                         " greedy",
                         "greedy "};
    for (size_t x = 0; x < LEN(bad); x++) {
        thue_bot_spec s = thue_bot_spec_default(THUE_BOT_PERFECT);
        char err[256];
        memset(err, 0, sizeof err);
        int r = thue_bot_spec_parse(bad[x], &s, err, sizeof err);
        if (r != THUE_EINVAL || err[0] == '\0')
            print_error("spec '%s': got %d, message '%s'\n", bad[x], r, err);
        assert_int_equal(r, THUE_EINVAL);
        assert_true(err[0] != '\0');
        assert_true(strlen(err) < sizeof err);
        /* no message buffer, or a tiny one: still the error, NUL-terminated */
        assert_int_equal(thue_bot_spec_parse(bad[x], &s, NULL, 0), THUE_EINVAL);
        char tiny[6];
        memset(tiny, 'x', sizeof tiny);
        assert_int_equal(thue_bot_spec_parse(bad[x], &s, tiny, sizeof tiny), THUE_EINVAL);
        assert_true(memchr(tiny, '\0', sizeof tiny) != NULL);
    }
    thue_bot_spec s;
    char err[64];
    assert_int_equal(thue_bot_spec_parse(NULL, &s, err, sizeof err), THUE_EINVAL);
    assert_true(err[0] != '\0');
}

static void test_bots_spec_format_round_trip(void **state)
{
    (void)state;
    const char *texts[] = {"greedy",
                           "0",
                           "1",
                           "nested:2",
                           "nested:9",
                           "uct",
                           "uct:iterations=500,c=0.5,playout=50,ms=100",
                           "uct:iterations=0,ms=7",
                           "uct:c=0.1",
                           "uct:c=0.30000000000000004",
                           "uct:c=1000,playout=100000,iterations=1000000000000",
                           "perfect",
                           "perfect:depth=12",
                           "perfect:depth=0"};
    for (size_t x = 0; x < LEN(texts); x++) {
        thue_bot_spec a = spec_of(texts[x]), b;
        char buf[256], again[256];
        int len = thue_bot_spec_format(&a, buf, sizeof buf);
        assert_int_equal(len, (int)strlen(buf));
        assert_int_equal(thue_bot_spec_format(&a, NULL, 0), len);
        char small[4];
        assert_int_equal(thue_bot_spec_format(&a, small, sizeof small), len);
        assert_true(memchr(small, '\0', sizeof small) != NULL);
        char err[128];
        if (thue_bot_spec_parse(buf, &b, err, sizeof err) != 0)
            print_error("'%s' formats as '%s', which does not parse: %s\n", texts[x], buf, err);
        assert_int_equal(thue_bot_spec_parse(buf, &b, err, sizeof err), 0);
        assert_same_spec(&a, &b);
        thue_bot_spec_format(&b, again, sizeof again);
        assert_string_equal(buf, again);
    }
    /* The canonical names of bot.h. */
    char buf[64];
    thue_bot_spec s = spec_of("0");
    thue_bot_spec_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "greedy");
    s = spec_of("2");
    thue_bot_spec_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "nested:2");
    s = spec_of("perfect");
    thue_bot_spec_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "perfect");
    s = spec_of("perfect:depth=30");
    thue_bot_spec_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "perfect:depth=30");
}

/* Thue-Morse: overlap-free, so a clean binary word of any length for the overlap
 * variant (and full of squares). */
static uint8_t *thue_morse(int n)
{
    uint8_t *w = malloc((size_t)n + 1);
    assert_non_null(w);
    for (int j = 0; j < n; j++)
        w[j] = (uint8_t)(popcount((uint64_t)j) & 1);
    return w;
}

typedef struct bad_position {
    thue_position pos;
    int err;
} bad_position;

/* The error cases of thue_position_check, one per way a position can be wrong. */
static size_t bad_positions(bad_position *out, const uint8_t *tm)
{
    static const uint8_t ok[] = {0, 1, 2}, big[] = {0, 3, 1}, sq[] = {0, 1, 0, 1},
                         ov[] = {0, 1, 0, 1, 0}, aa[] = {1, 1}, aaa[] = {1, 1, 1},
                         big2[] = {0, 1, 2};
    size_t c = 0;
    thue_position base = mkpos(THUE_SQUARE, 3, ok, 3, THUE_ROLE_PAINTER, 1);
    out[c] = (bad_position){base, THUE_EVARIANT};
    out[c++].pos.variant = (thue_variant)2;
    out[c] = (bad_position){base, THUE_EVARIANT};
    out[c++].pos.variant = (thue_variant)-1;
    out[c] = (bad_position){base, THUE_EK};
    out[c++].pos.k = 1;
    out[c] = (bad_position){base, THUE_EK};
    out[c++].pos.k = 65;
    out[c] = (bad_position){base, THUE_EK};
    out[c++].pos.k = 0;
    out[c] = (bad_position){base, THUE_ETOOLONG};
    out[c].pos.sym = tm;
    out[c].pos.variant = THUE_OVERLAP;
    out[c].pos.k = 2;
    out[c++].pos.n = THUE_BOT_WORD_MAX + 1;
    out[c] = (bad_position){base, THUE_ETOOLONG};
    out[c++].pos.n = -1;
    out[c] = (bad_position){base, THUE_ESYMBOL};
    out[c++].pos.sym = big;
    out[c] = (bad_position){base, THUE_ESYMBOL}; /* 2 is not a symbol when k = 2 */
    out[c].pos.sym = big2;
    out[c++].pos.k = 2;
    out[c] = (bad_position){base, THUE_EPOSITION};
    out[c++].pos.index = -1;
    out[c] = (bad_position){base, THUE_EPOSITION};
    out[c++].pos.index = 4;
    out[c] = (bad_position){base, THUE_EINVAL};
    out[c++].pos.role = (thue_role)2;
    out[c] = (bad_position){base, THUE_EINVAL};
    out[c++].pos.remaining = -1;
    out[c] = (bad_position){base, THUE_EINVAL};
    out[c++].pos.sym = NULL;
    out[c] = (bad_position){base, THUE_EREPEAT};
    out[c].pos.sym = sq;
    out[c++].pos.n = 4;
    out[c] = (bad_position){base, THUE_EREPEAT}; /* aa is a square */
    out[c].pos.sym = aa;
    out[c++].pos.n = 2;
    out[c] = (bad_position){base, THUE_EREPEAT}; /* 01010: overlap */
    out[c].pos.sym = ov;
    out[c].pos.n = 5;
    out[c++].pos.variant = THUE_OVERLAP;
    out[c] = (bad_position){base, THUE_EREPEAT}; /* aaa: overlap */
    out[c].pos.sym = aaa;
    out[c].pos.n = 3;
    out[c++].pos.variant = THUE_OVERLAP;
    out[c] = (bad_position){base, THUE_EREPEAT}; /* Thue-Morse holds squares */
    out[c].pos.sym = tm;
    out[c].pos.n = 100;
    out[c++].pos.k = 2;
    return c;
}

static void test_bots_position_check_errors(void **state)
{
    (void)state;
    static const uint8_t ok[] = {0, 1, 2}, sq[] = {0, 1, 0, 1}, aa[] = {1, 1};
    uint8_t *tm = thue_morse(THUE_BOT_WORD_MAX + 1);
    /* clean positions */
    thue_position p = mkpos(THUE_SQUARE, 3, ok, 3, THUE_ROLE_PAINTER, 3);
    assert_int_equal(thue_position_check(&p), 0);
    p.index = 0;
    assert_int_equal(thue_position_check(&p), 0);
    p.role = THUE_ROLE_BUILDER;
    p.index = -7; /* ignored for the builder */
    assert_int_equal(thue_position_check(&p), 0);
    p.k = 64;
    p.remaining = 5;
    assert_int_equal(thue_position_check(&p), 0);
    p = mkpos(THUE_SQUARE, 2, NULL, 0, THUE_ROLE_BUILDER, 0); /* the empty word */
    assert_int_equal(thue_position_check(&p), 0);
    p = mkpos(THUE_OVERLAP, 2, sq, 4, THUE_ROLE_BUILDER, 0); /* 0101 is overlap-free */
    assert_int_equal(thue_position_check(&p), 0);
    p = mkpos(THUE_OVERLAP, 2, aa, 2, THUE_ROLE_BUILDER, 0); /* aa is not an overlap */
    assert_int_equal(thue_position_check(&p), 0);
    p = mkpos(THUE_OVERLAP, 2, tm, THUE_BOT_WORD_MAX, THUE_ROLE_BUILDER, 0);
    assert_int_equal(thue_position_check(&p), 0);
    bad_position bad[32];
    size_t nbad = bad_positions(bad, tm);
    for (size_t x = 0; x < nbad; x++) {
        int r = thue_position_check(&bad[x].pos);
        if (r != bad[x].err)
            print_error("bad position %zu: got %d (%s), want %d (%s)\n", x, r, thue_err_name(r),
                        bad[x].err, thue_err_name(bad[x].err));
        assert_int_equal(r, bad[x].err);
    }
    free(tm);
}

/* Every entry point runs the position check, and refuses bad specs and parts. A split
 * search finds a repetition in the word when its first part runs: finish reports it. */
static void test_bots_move_returns_position_errors(void **state)
{
    (void)state;
    uint8_t *tm = thue_morse(THUE_BOT_WORD_MAX + 1);
    bad_position bad[32];
    size_t nbad = bad_positions(bad, tm);
    const char *specs[] = {"greedy", "nested:1", "nested:3", "perfect", "uct:iterations=10"};
    for (size_t s = 0; s < LEN(specs); s++) {
        thue_bot_spec spec = spec_of(specs[s]);
        for (size_t x = 0; x < nbad; x++) {
            thue_bot_result r;
            memset(&r, 0, sizeof r);
            assert_int_equal(thue_bot_move(&spec, &bad[x].pos, NULL, 1, &r), bad[x].err);
            int err = 12345;
            thue_bot_search *srch = thue_bot_search_new(&spec, &bad[x].pos, 1, 2, &err);
            if (bad[x].err == THUE_EREPEAT) {
                assert_non_null(srch);
                assert_int_equal(err, 0);
                for (int q = 0; q < thue_bot_search_parts(srch); q++)
                    thue_bot_search_run_part(srch, q, NULL);
                assert_int_equal(thue_bot_search_finish(srch, &r), THUE_EREPEAT);
                thue_bot_search_free(srch);
                continue;
            }
            assert_null(srch);
            assert_int_equal(err, bad[x].err);
            assert_null(thue_bot_search_new(&spec, &bad[x].pos, 1, 1, NULL));
        }
    }
    free(tm);
    /* bad specs (built by hand: the parser refuses them) and part counts */
    static const uint8_t ok[] = {0, 1, 2};
    thue_position p = mkpos(THUE_SQUARE, 3, ok, 3, THUE_ROLE_BUILDER, 0);
    thue_bot_spec bs[6];
    bs[0] = thue_bot_spec_default(THUE_BOT_NESTED);
    bs[0].level = 0;
    bs[1] = thue_bot_spec_default(THUE_BOT_NESTED);
    bs[1].level = THUE_NESTED_MAX + 1;
    bs[2] = thue_bot_spec_default(THUE_BOT_PERFECT);
    bs[2].max_depth = -1;
    bs[3] = thue_bot_spec_default(THUE_BOT_UCT);
    bs[3].iterations = 0;
    bs[4] = thue_bot_spec_default(THUE_BOT_UCT);
    bs[4].playout_limit = 0;
    bs[5] = thue_bot_spec_default(THUE_BOT_GREEDY);
    bs[5].kind = (thue_bot_kind)17;
    for (size_t x = 0; x < LEN(bs); x++) {
        thue_bot_result r;
        assert_int_equal(thue_bot_move(&bs[x], &p, NULL, 1, &r), THUE_EINVAL);
        int err = 0;
        assert_null(thue_bot_search_new(&bs[x], &p, 1, 1, &err));
        assert_int_equal(err, THUE_EINVAL);
    }
    thue_bot_spec good = spec_of("nested:1");
    int err = 0;
    assert_null(thue_bot_search_new(&good, &p, 1, 0, &err));
    assert_int_equal(err, THUE_EINVAL);
    assert_null(thue_bot_search_new(&good, &p, 1, THUE_BOT_PARTS_MAX + 1, &err));
    assert_int_equal(err, THUE_EINVAL);
    thue_bot_search *s = thue_bot_search_new(&good, &p, 1, THUE_BOT_PARTS_MAX, &err);
    assert_non_null(s);
    assert_int_equal(err, 0);
    assert_in_range(thue_bot_search_parts(s), 1, 4); /* never more parts than positions */
    thue_bot_search_free(s);
    thue_bot_search_free(NULL);
}

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

static void run_limited(const thue_bot_spec *spec, const thue_position *p,
                        const thue_bot_limits *lim, uint64_t seed, thue_bot_result *r)
{
    assert_int_equal(thue_bot_move(spec, p, lim, seed, r), 0);
    assert_legal_move(p, r->move);
}

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
        TEST(test_bots_tiebreak_is_one_splitmix64_draw),
        TEST(test_bots_move_seed_mixes_every_field),
        TEST(test_bots_spec_parse_valid),
        TEST(test_bots_spec_parse_invalid),
        TEST(test_bots_spec_format_round_trip),
        TEST(test_bots_position_check_errors),
        TEST(test_bots_move_returns_position_errors),
        TEST(test_bots_greedy_hand_picked),
        TEST(test_bots_greedy_random_positions),
        TEST(test_bots_nested1_random_positions),
        TEST(test_bots_nested2_random_positions),
        TEST(test_bots_nested3_short_words),
        TEST(test_bots_nested_ties_follow_the_seed),
        TEST(test_bots_nested_nothing_safe),
        TEST(test_bots_nested_node_budget_falls_back),
        TEST(test_bots_stop_flag_and_deadline),
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
