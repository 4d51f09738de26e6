/*
 * bots_ref.c: the references of the bot tests (bots_ref.h), written from RULES.md and
 * sharing no code with server/search.
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
#include "naive.h"

/* ---- small tools ------------------------------------------------------------------- */

/* SplitMix64, written out from its definition (Steele, Lea and Flood): the state is a
 * counter advanced by the golden gamma, each output the finaliser of the new state. */
uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The tests' own generator (independent of the bots' seeds), restarted before every test
 * so that a test draws the same positions whether it runs alone or with the others. */
static uint64_t rng_state;
int reset_rng(void **state)
{
    (void)state;
    rng_state = 0x243f6a8885a308d3ULL;
    return 0;
}
int rnd_below(int n)
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

int popcount(uint64_t x)
{
    int c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

/* The safe symbols at position i of the clean word w[0..n): k naive rescans. */
NAIVE_FAST uint64_t ref_safe(const uint8_t *w, int n, int k, thue_variant v, int i)
{
    uint8_t buf[WMAX + 2];
    return naive_safe_at(w, n, k, v, i, buf);
}

thue_position mkpos(thue_variant v, int k, const uint8_t *w, int n, thue_role role, int index)
{
    thue_position p = {
        .variant = v, .k = k, .sym = w, .n = n, .role = role, .index = index, .remaining = 0};
    return p;
}

void dump(const char *what, const thue_position *p, uint64_t seed)
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
int random_word(thue_variant v, int k, int len, uint8_t *w)
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
int random_index(thue_variant v, int k, const uint8_t *w, int n)
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

thue_bot_spec spec_of(const char *text)
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
void assert_legal_move(const thue_position *p, int move)
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
int ref_greedy(const thue_position *p)
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

/* The nested:L move of RULES.md, ties broken by thue_bot_tiebreak(seed, ties). */
void ref_nested(const thue_position *p, int L, uint64_t seed, nested_ref *out)
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

int is_tied(const nested_ref *ref, int move)
{
    for (int t = 0; t < ref->ntied; t++)
        if (ref->tied[t] == move)
            return 1;
    return 0;
}

/* thue_bot_move with nested:L and no limits against the reference: move, node count,
 * exactness. Returns the reference's number of tied candidates. */
int check_nested(const thue_position *p, int L, uint64_t seed, nested_ref *ref)
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

struct memo {
    int k;
    thue_variant v;
    uint8_t *keys;
    int8_t *vals;
    size_t cap, count;
};

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
memo *memo_open(int k, thue_variant v)
{
    memo_release();
    the_memo.k = k;
    the_memo.v = v;
    return &the_memo;
}

int teardown_memo(void **state)
{
    (void)state;
    memo_release();
    return 0;
}

/* min(P(w, i), d) for d >= 1: 0 when nothing is safe at i, else the maximum over the safe
 * c of 1 + V(w with c at i). */
static int ref_V(memo *m, uint8_t *w, int n, int d);

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
int ref_root_values(memo *m, const thue_position *p, int d, int *vals)
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
int ref_move_value(memo *m, const thue_position *p, int move, int d)
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

void run_limited(const thue_bot_spec *spec, const thue_position *p, const thue_bot_limits *lim,
                 uint64_t seed, thue_bot_result *r)
{
    assert_int_equal(thue_bot_move(spec, p, lim, seed, r), 0);
    assert_legal_move(p, r->move);
}
