/*
 * solve.c: exact minimax for one round (see solve.h for the value and its recursion).
 *
 * Symmetries. Both are exact symmetries of the game, so V is constant on their orbits
 * and one table entry serves a whole orbit:
 *  - Relabelling: for a permutation s of the symbols, a factor is a square (overlap) iff
 *    its image is, since the definitions only compare symbols for equality. Inserting c
 *    at i into w and then relabelling gives s(w) with s(c) inserted at i, so the safe
 *    moves of s(w) are the images of those of w and V(s(w)) = V(w).
 *  - Reversal: write r(x) for the reversed word. A factor of x with period p (x[j] =
 *    x[j+p] over the factor) reverses to a factor of r(x) of the same length and period,
 *    so x is clean iff r(x) is. Inserting c at position i into w (n symbols) gives a word
 *    whose reversal is r(w) with c inserted at position n-i. So i -> n-i maps the
 *    builder's choices of w onto those of r(w), with the same safe symbols and
 *    children that are again reversals of each other; by induction on the remaining
 *    game V(r(w)) = V(w). (test_solve checks both on every small position.)
 * The canonical form relabels symbols in order of first appearance and takes the
 * lexicographically smaller of the word and its reversal, each so relabelled.
 *
 * Search. Alpha-beta, fail-soft, builder minimising over positions (the table's best
 * move, then fewest safe symbols first) and painter maximising over safe symbols (ordered
 * by what the table knows of the children: a child already known to hold cuts at once,
 * one known to fail is not searched). A capped search computes V_d = min(V, d), so its
 * results are bounds on V itself: V_d <= r < d gives V <= r, V_d >= r gives V >= r; the
 * table stores such bounds on V and so serves every cap. Iterative deepening on d stops
 * at the first d whose answer is below d (exact).
 *
 * Leaves. Most nodes are at the last levels, so those skip the table: at remaining depth
 * 1, V_1 = 1 iff every position has a safe symbol, read off the legal-move map; nodes
 * below TABLE_MIN_D neither canonicalise nor touch the table. Words of up to 62 symbols
 * get their legal-move maps from short_map below (one machine word per bit set).
 *
 * Threads. Solvers over one shared table search the same root in the same order, but at
 * a builder node with remaining depth >= SPLIT_MIN_D a position another thread is busy
 * with is put off to the end (a small shared array of busy (node, position) hashes),
 * so threads spread over the positions instead of repeating each other; when a thread
 * comes back to a put-off position, the other's results are mostly in the table (the
 * scheme of ABDADA, Weill 1996). Measured on 2 cores, this halves the main thread's
 * nodes where searching other orders (plain lazy SMP) saved only a tenth. Every
 * stored bound is true whoever stored it, so the main search's answer is the same as
 * with one thread.
 */
#include "games/thue/bots/solve.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/rng.h"
#include "games/thue/bots/solve_table.h"
#include "games/thue/engine/word.h"

/* Longest word the solver handles. */
#define SOLVE_MAXLEN 4096
/* Nodes with less remaining depth than this skip the table (see "Leaves" above):
 * measured at depth 15 for square k = 5, 2 takes 1.3 s, 1 takes 1.6 s, 3 takes 3.5 s. */
#define TABLE_MIN_D 2
/* Threads split the work at nodes with at least this remaining depth. */
#define SPLIT_MIN_D 5

/* The table's two hashes of a canonical word, and whether the canonical form is the
 * reversed word (positions then map i -> n - i). */
typedef struct hkey {
    uint64_t key, index;
    int rev;
} hkey;

struct thue_solver {
    int k;
    thue_variant v;
    thue_scan *scan;
    thue_solve_table *tt, *own_tt; /* own_tt: freed with the solver */
    uint64_t seed;                 /* mixes k and the variant into the hashes */
    unsigned gen;                  /* the table generation: the cap being searched */
    uint8_t *w;                    /* the word being searched, edited in place */
    uint8_t *key, *key2;           /* canonical form scratch */
    /* Per ply: the legal-move map and the builder's move order. Each ply's buffers are
     * allocated separately (never moved), since a deeper ply may grow the list. */
    uint64_t **maps;
    int **orders;
    int nplies;
    uint64_t nodes, budget;
    thue__ctl ctl;             /* the stop flag, deadline and pause hook, polled about every ms */
    int root_part, root_parts; /* root split (solve.h); root_parts <= 1: none */
    int stop, oom;
};

static void relabel(const uint8_t *sym, int n, int reverse, uint8_t *out)
{
    uint8_t map[THUE_K_MAX];
    memset(map, 0xff, sizeof map);
    uint8_t next = 0;
    for (int j = 0; j < n; j++) {
        uint8_t c = sym[reverse ? n - 1 - j : j];
        if (map[c] == 0xff)
            map[c] = next++;
        out[j] = map[c];
    }
}

void thue_canonical(const uint8_t *sym, int n, uint8_t *out)
{
    uint8_t fwd[SOLVE_MAXLEN], rev[SOLVE_MAXLEN];
    if (n > SOLVE_MAXLEN)
        n = SOLVE_MAXLEN;
    relabel(sym, n, 0, fwd);
    relabel(sym, n, 1, rev);
    memcpy(out, memcmp(rev, fwd, (size_t)n) < 0 ? rev : fwd, (size_t)n);
}

/* Canonical form of w[0..n) into out, and its hashes. */
static void canon_hash(const thue_solver *s, const uint8_t *w, int n, uint8_t *out, uint8_t *tmp,
                       hkey *h)
{
    uint8_t mf[THUE_K_MAX], mr[THUE_K_MAX];
    memset(mf, 0xff, (size_t)s->k);
    memset(mr, 0xff, (size_t)s->k);
    uint8_t nf = 0, nr = 0;
    int cmp = 0;
    for (int j = 0; j < n; j++) {
        uint8_t a = w[j], b = w[n - 1 - j];
        if (mf[a] == 0xff)
            mf[a] = nf++;
        if (mr[b] == 0xff)
            mr[b] = nr++;
        out[j] = mf[a];
        tmp[j] = mr[b];
        if (cmp == 0)
            cmp = (int)tmp[j] - (int)out[j];
    }
    h->rev = cmp < 0;
    if (h->rev)
        memcpy(out, tmp, (size_t)n);
    /* Two independent chains over 8-byte chunks, each step a full 64-bit mix. */
    uint64_t a = s->seed ^ (uint64_t)n, b = ~s->seed + ((uint64_t)n << 32);
    for (int j = 0; j < n; j += 8) {
        uint64_t v = 0;
        memcpy(&v, out + j, (size_t)(n - j < 8 ? n - j : 8));
        a = thue_mix64(a ^ v);
        b = thue_mix64(b + v * 0x9e3779b97f4a7c15ULL);
    }
    h->key = thue_mix64(a + 0x632be59bd9b4e019ULL);
    h->index = b;
}

static thue_solver *solver_new(int k, thue_variant v, thue_solve_table *t, size_t own_bytes)
{
    if (k < THUE_K_MIN || k > THUE_K_MAX || (v != THUE_SQUARE && v != THUE_OVERLAP))
        return NULL;
    thue_solver *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->k = k;
    s->v = v;
    s->seed = thue_mix64(0x5eed5017e0000000ULL ^ ((uint64_t)k << 8) ^ (uint64_t)v);
    s->scan = thue_scan_new();
    if (t == NULL)
        t = s->own_tt = thue_solve_table_new(own_bytes);
    s->tt = t;
    s->w = malloc(SOLVE_MAXLEN + 1);
    s->key = malloc(SOLVE_MAXLEN + 1);
    s->key2 = malloc(SOLVE_MAXLEN + 1);
    if (!s->scan || !s->tt || !s->w || !s->key || !s->key2) {
        thue_solver_free(s);
        return NULL;
    }
    return s;
}

thue_solver *thue_solver_new(int k, thue_variant v)
{
    return solver_new(k, v, NULL, THUE_SOLVE_TABLE_DEFAULT);
}

thue_solver *thue_solver_new_shared(int k, thue_variant v, thue_solve_table *t)
{
    return t == NULL ? NULL : solver_new(k, v, t, 0);
}

void thue__solver_game(const thue_solver *s, int *k, thue_variant *v)
{
    *k = s->k;
    *v = s->v;
}

void thue_solver_free(thue_solver *s)
{
    if (s == NULL)
        return;
    for (int p = 0; p < s->nplies; p++) {
        free(s->maps[p]);
        free(s->orders[p]);
    }
    free(s->maps);
    free(s->orders);
    free(s->key2);
    free(s->key);
    free(s->w);
    thue_solve_table_free(s->own_tt);
    thue_scan_free(s->scan);
    free(s);
}

/* Per-ply buffers for words up to SOLVE_MAXLEN. */
static int ensure_ply(thue_solver *s, int ply)
{
    if (ply < s->nplies)
        return 0;
    int np = ply + 16;
    uint64_t **maps = realloc(s->maps, (size_t)np * sizeof *maps);
    if (maps == NULL)
        return -1;
    s->maps = maps;
    int **orders = realloc(s->orders, (size_t)np * sizeof *orders);
    if (orders == NULL)
        return -1;
    s->orders = orders;
    for (int p = s->nplies; p < np; p++) {
        s->maps[p] = malloc((SOLVE_MAXLEN + 1) * sizeof(uint64_t));
        s->orders[p] = malloc(2 * (SOLVE_MAXLEN + 1) * sizeof(int)); /* + deferred ones */
        if (s->maps[p] == NULL || s->orders[p] == NULL) {
            free(s->maps[p]);
            free(s->orders[p]);
            s->nplies = p;
            return -1;
        }
    }
    s->nplies = np;
    return 0;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

static void insert_at(uint8_t *w, int n, int i, int c)
{
    memmove(w + i + 1, w + i, (size_t)(n - i));
    w[i] = (uint8_t)c;
}

static void remove_at(uint8_t *w, int n, int i)
{
    memmove(w + i, w + i + 1, (size_t)(n - i - 1));
}

/* At the root of a split search only a share of the positions is the builder's. */
static int restricted(const thue_solver *s, int ply)
{
    return ply == 0 && s->root_parts > 1;
}

/* ---- the legal-move map of a short word ------------------------------------------- */

/*
 * The same map as thue_legal_map (repetition.c has the argument), for words of fewer
 * than 63 symbols, where every bit set fits in one machine word: no scratch memory, no
 * loops over words. The search spends most of its time here (the last levels of the
 * tree are most of its nodes), and test_solve checks it against thue_legal_map.
 *
 * For a period p, bit t of A_p is w[t] == w[t+p]. Inserting e at i makes a new
 * repetition of period p only in one of two ways: e = w[i-p] with a run of equalities
 * through t = i-p (left: A_p below it, A_{p-1} above it up to i-1), or e = w[i+p-1] with
 * a run through t = i (right: A_{p-1} below, A_p from i up), the run being p-1 long
 * around the new position (p for an overlap; an overlap may also join both sides). As
 * a + b >= T needs max(a, b) >= ceil(T/2), only positions next to runs of that length
 * are looked at.
 */
#define SHORT_MAX 62

static inline int run_down(uint64_t a, int x, int cap)
{
    if (x < 0)
        return 0;
    int r = __builtin_clzll(~(a << (63 - x)));
    return r < cap ? r : cap;
}

static inline int run_up(uint64_t a, int x, int cap)
{
    int r = __builtin_ctzll(~(a >> x));
    return r < cap ? r : cap;
}

/* Bits t where a has h ones in a row from t up. */
static inline uint64_t runs(uint64_t a, int h)
{
    int have = 1;
    while (have < h) {
        int step = have < h - have ? have : h - have;
        a &= a >> step;
        have += step;
    }
    return a;
}

static void short_map(const uint8_t *w, int n, int k, thue_variant v, uint64_t *safe)
{
    int extra = v == THUE_OVERLAP;
    uint64_t plane[6] = {0};
    int nplanes = 1;
    while ((1 << nplanes) < k)
        nplanes++;
    for (int t = 0; t < n; t++)
        for (int b = 0; b < nplanes; b++)
            plane[b] |= (uint64_t)((w[t] >> b) & 1) << t;
    uint64_t *bad = safe;
    /* Period 1: "aa" (square), "aaa" (overlap), as the engine finds them. */
    memset(bad, 0, (size_t)(n + 1) * sizeof *bad);
    thue__period_one(w, n, extra, bad);
    uint64_t aq = 0; /* A_{p-1} */
    for (int p = 1; 2 * p + extra <= n + 1; p++) {
        uint64_t diff = 0;
        for (int b = 0; b < nplanes; b++)
            diff |= plane[b] ^ (plane[b] >> p);
        uint64_t ap = ~diff & (((uint64_t)1 << (n - p)) - 1);
        if (p >= 2) {
            int T = p - 1 + extra, h = (T + 1) / 2;
            uint64_t rp = runs(ap, h), rq = runs(aq, h);
            /* Left case at u = i - p, 0 <= u <= n - p. */
            uint64_t lc = ((rp << h) | (rq >> 1)) & (((uint64_t)1 << (n - p + 1)) - 1);
            for (; lc; lc &= lc - 1) {
                int u = __builtin_ctzll(lc), i = u + p, e = w[u];
                if ((bad[i] >> e) & 1)
                    continue;
                int a = run_down(ap, u - 1, p), b = run_up(aq, u + 1, p - 1);
                if (a + b >= T || (extra && b == p - 1 && i + p - 1 < n && w[i + p - 1] == e))
                    bad[i] |= (uint64_t)1 << e;
            }
            /* Right case at i, 0 <= i <= n - p. */
            uint64_t rc = (rp | (rq << h)) & (((uint64_t)1 << (n - p + 1)) - 1);
            for (; rc; rc &= rc - 1) {
                int i = __builtin_ctzll(rc), e = w[i + p - 1];
                if ((bad[i] >> e) & 1)
                    continue;
                if (run_down(aq, i - 1, p - 1) + run_up(ap, i, p) >= T)
                    bad[i] |= (uint64_t)1 << e;
            }
        }
        aq = ap;
    }
    uint64_t all = thue_all_symbols(k);
    for (int i = 0; i <= n; i++)
        safe[i] = all & ~bad[i];
}

/* The legal-move map of s->w[0..n) into safe. */
static void legal_map(thue_solver *s, int n, uint64_t *safe)
{
    if (n <= SHORT_MAX)
        short_map(s->w, n, s->k, s->v, safe);
    else
        thue_legal_map(s->scan, s->w, n, s->k, s->v, safe);
}

void thue__short_map(const uint8_t *w, int n, int k, thue_variant v, uint64_t *safe)
{
    short_map(w, n, k, v, safe);
}

static int popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* A painter's candidate symbol with what the table knows of its child (1 + its bounds). */
typedef struct cand {
    int c, lo, hi;
    hkey h;
} cand;

/*
 * V_d of s->w[0..n) with the builder to move, fail-soft in the window (alpha, beta):
 * a result r <= alpha means V_d <= r, r >= beta means V_d >= r, else V_d = r.
 * hk: the word's hashes when the caller has them (else NULL). Sets s->stop when a limit
 * stops the search (then the result means nothing).
 */
static int search(thue_solver *s, int n, int d, int alpha, int beta, int ply, const hkey *hk)
{
    if (s->stop)
        return 0;
    /* A node's work (canonical forms, legal maps) grows with the word's length. */
    if ((s->budget && s->nodes >= s->budget) || thue__work(&s->ctl, 1 + n / 32)) {
        s->stop = 1;
        return 0;
    }
    s->nodes++;
    if (d == 0)
        return 0;
    if (n >= SOLVE_MAXLEN || ensure_ply(s, ply) != 0) {
        s->stop = s->oom = 1;
        return 0;
    }
    /* A restricted root is the value of a share of the positions, not of the word: it
     * neither reads nor writes the table. */
    int own = restricted(s, ply);
    uint64_t *safe = s->maps[ply];
    if (d == 1) { /* V_1 = 1 iff every position (of the share) has a safe symbol */
        legal_map(s, n, safe);
        for (int i = 0; i <= n; i++)
            if (safe[i] == 0 && (!own || i % s->root_parts == s->root_part))
                return 0;
        return 1;
    }
    int tab = !own && d >= TABLE_MIN_D;
    hkey h = {0, 0, 0};
    int tmove = -1;
    if (tab) {
        if (hk != NULL)
            h = *hk;
        else
            canon_hash(s, s->w, n, s->key, s->key2, &h);
        thue__tt_data e;
        int lo = 0, hi = d;
        if (thue__tt_probe(s->tt, h.key, h.index, &e)) {
            lo = imin(e.lo, d);
            hi = imin(e.hi, d);
            if (e.move >= 0 && e.move <= n)
                tmove = h.rev ? n - e.move : e.move;
        }
        if (lo == hi || lo >= beta)
            return lo;
        if (hi <= alpha)
            return hi;
        if (alpha < lo)
            alpha = lo;
        if (beta > hi)
            beta = hi;
    }

    legal_map(s, n, safe);
    /* Order positions: the table's refutation first, then by how few symbols are safe
     * there: a position with none ends the round at once (value 0), and tight positions
     * refute the painter soonest. */
    int *order = s->orders[ply], cnt = 0;
    int bucket[THUE_K_MAX + 2];
    memset(bucket, 0, sizeof(int) * (size_t)(s->k + 2));
    for (int i = 0; i <= n; i++)
        if (!own || i % s->root_parts == s->root_part)
            bucket[popcount64(safe[i]) + 1]++;
    for (int b = 1; b <= s->k + 1; b++)
        bucket[b] += bucket[b - 1];
    for (int i = 0; i <= n; i++) {
        if (!own || i % s->root_parts == s->root_part)
            order[bucket[popcount64(safe[i])]++] = i;
    }
    cnt = bucket[s->k];
    if (tmove >= 0 && cnt > 0 && safe[order[0]] != 0 &&
        (!own || tmove % s->root_parts == s->root_part))
        for (int x = 1; x < cnt; x++)
            if (order[x] == tmove) {
                memmove(order + 1, order, sizeof(int) * (size_t)x);
                order[0] = tmove;
                break;
            }
    int best, bi = -1;
    if (cnt == 0) {
        best = d; /* an empty share: no position, so no bound below the cap */
    } else if (safe[order[0]] == 0) {
        best = 0;
        bi = order[0];
    } else {
        best = d; /* every P_i is at most d */
        int child_tab = d - 1 >= TABLE_MIN_D;
        /* With other threads on the table, a position another thread is searching is
         * left for last (by then its children are mostly in the table): the threads
         * split the work instead of repeating it. */
        int split = tab && d >= SPLIT_MIN_D &&
                    atomic_load_explicit(&s->tt->searchers, memory_order_relaxed) > 1;
        int deferred = 0;
        _Atomic uint64_t *slot = NULL;
        uint64_t bkey = 0;
        for (int x = 0; x < cnt + deferred && best > alpha; x++) {
            int i = order[x];
            if (split) {
                bkey = thue_mix64(h.key + (uint64_t)(h.rev ? n - i : i) + 1) | 1;
                slot = &s->tt->busy[bkey & (THUE__TT_BUSY - 1)];
                if (x < cnt && atomic_load_explicit(slot, memory_order_relaxed) == bkey) {
                    order[cnt + deferred++] = i;
                    continue;
                }
                atomic_store_explicit(slot, bkey, memory_order_relaxed);
            }
            int cut = imin(best, beta); /* the builder ignores positions worth >= cut */
            int pbest = 0;
            cand cs[THUE_K_MAX];
            int nc = 0;
            for (uint64_t m = safe[i]; m; m &= m - 1) {
                cand *c = &cs[nc++];
                c->c = __builtin_ctzll(m);
                c->lo = 1;
                c->hi = d;
                if (!child_tab)
                    continue;
                insert_at(s->w, n, i, c->c);
                canon_hash(s, s->w, n + 1, s->key, s->key2, &c->h);
                remove_at(s->w, n + 1, i);
                thue__tt_prefetch(s->tt, c->h.index); /* the probes below overlap */
            }
            for (int y = 0; y < nc && child_tab; y++) {
                cand *c = &cs[y];
                thue__tt_data e;
                if (thue__tt_probe(s->tt, c->h.key, c->h.index, &e)) {
                    c->lo = 1 + imin(e.lo, d - 1);
                    c->hi = 1 + imin(e.hi, d - 1);
                }
                if (c->lo >= cut) { /* the child is known to hold: cut at once */
                    pbest = c->lo;
                    break;
                }
            }
            if (pbest < cut) {
                /* Most promising first: the highest upper bound, then lower bound. */
                for (int a = 1; a < nc; a++) {
                    cand t = cs[a];
                    int b = a;
                    while (b > 0 &&
                           (cs[b - 1].hi < t.hi || (cs[b - 1].hi == t.hi && cs[b - 1].lo < t.lo))) {
                        cs[b] = cs[b - 1];
                        b--;
                    }
                    cs[b] = t;
                }
                for (int y = 0; y < nc && pbest < cut; y++) {
                    cand *c = &cs[y];
                    int a2 = alpha > pbest ? alpha : pbest;
                    if (c->hi <= a2) { /* what its search would answer from the table */
                        if (c->hi > pbest)
                            pbest = c->hi;
                        continue;
                    }
                    insert_at(s->w, n, i, c->c);
                    int r = 1 + search(s, n + 1, d - 1, a2 - 1, cut - 1, ply + 1,
                                       child_tab ? &c->h : NULL);
                    remove_at(s->w, n + 1, i);
                    if (s->stop)
                        break;
                    if (r > pbest)
                        pbest = r;
                }
            }
            if (split) { /* done with i: unmark it unless another thread took the slot */
                uint64_t mine = bkey;
                atomic_compare_exchange_strong_explicit(slot, &mine, 0, memory_order_relaxed,
                                                        memory_order_relaxed);
            }
            if (s->stop)
                return 0;
            if (pbest < best) {
                best = pbest;
                bi = i;
            }
        }
    }
    if (!tab)
        return best;
    /* Record what this result proves about V itself, with the refuting position (in the
     * canonical word's coordinates) when the builder found one. */
    int mv = bi < 0 ? THUE__TT_NOMOVE : h.rev ? n - bi : bi;
    if (best <= alpha) {
        if (best < d)
            thue__tt_store(s->tt, h.key, h.index, 0, best, d, s->gen, mv);
    } else if (best >= beta) {
        thue__tt_store(s->tt, h.key, h.index, best, THUE__TT_UNKNOWN, d, s->gen, THUE__TT_NOMOVE);
    } else if (best < d) {
        thue__tt_store(s->tt, h.key, h.index, best, best, d, s->gen, mv);
    } else {
        thue__tt_store(s->tt, h.key, h.index, d, THUE__TT_UNKNOWN, d, s->gen, THUE__TT_NOMOVE);
    }
    return best;
}

/* Resets the counters and takes the budget, deadline and stop flag of limits (none when
 * NULL); the root is whole. */
static void set_limits(thue_solver *s, const thue_solve_limits *limits)
{
    s->budget = limits ? limits->node_budget : 0;
    thue_bot_limits lim = {0};
    if (limits != NULL) {
        lim.stop = limits->stop;
        lim.yield = limits->yield;
        lim.yield_arg = limits->yield_arg;
    }
    thue__ctl_init(&s->ctl, &lim, limits ? limits->deadline_ns : 0);
    s->root_part = s->root_parts = 0;
    s->nodes = 0;
    s->stop = s->oom = 0;
}

/* V_d of s->w[0..n) exactly (full window). */
static int value_at(thue_solver *s, int n, int d)
{
    s->gen = (unsigned)d;
    return search(s, n, d, -1, d + 1, 0, NULL);
}

/* V_d(s->w[0..n)) >= t? A null-window search (mostly answered by the table). */
static int at_least(thue_solver *s, int n, int d, int t)
{
    if (t <= 0)
        return 1;
    if (t > d)
        return 0;
    s->gen = (unsigned)d;
    return search(s, n, d, t - 1, t, 0, NULL) >= t;
}

/* The table's lower bound for s->w[0..n) (0 when it has none). */
static int known_lo(thue_solver *s, int n)
{
    hkey h;
    canon_hash(s, s->w, n, s->key, s->key2, &h);
    thue__tt_data e;
    return thue__tt_probe(s->tt, h.key, h.index, &e) ? e.lo : 0;
}

/* Follows best play from s->w[0..n), whose value capped at d is r: at each step the
 * first position whose painter value is r, and there a symbol reaching it (one the table
 * already proves if any). Only null-window questions are asked: "is this child worth at
 * least r - 1" for the symbol, and, below the cap, "is any worth r" to rule the position
 * out; a child's exact value is never needed. */
static void principal_variation(thue_solver *s, int n, int d, int r, thue_solve_result *out)
{
    static _Thread_local uint64_t safe[SOLVE_MAXLEN + 1];
    out->pv_len = 0;
    int len = n;
    /* The first move comes from the root's share; every later search is whole. */
    int part = s->root_part, parts = s->root_parts;
    s->root_parts = 0;
    while (d > 0 && out->pv_len < THUE_SOLVE_PV_MAX && !s->stop) {
        legal_map(s, len, safe);
        int bi = -1, bc = 0;
        for (int i = 0; i <= len && bi < 0 && !s->stop; i++) {
            if (out->pv_len == 0 && parts > 1 && i % parts != part)
                continue;
            if (safe[i] == 0) { /* worth 0: the builder ends the round here */
                if (r == 0)
                    bi = i;
                continue;
            }
            if (r == 0)
                continue;
            int pick = -1;
            for (int pass = 0; pass < 2 && pick < 0; pass++)
                for (uint64_t m = safe[i]; m && pick < 0; m &= m - 1) {
                    int c = __builtin_ctzll(m);
                    insert_at(s->w, len, i, c);
                    if (pass == 0 ? known_lo(s, len + 1) >= r - 1
                                  : at_least(s, len + 1, d - 1, r - 1))
                        pick = c;
                    remove_at(s->w, len + 1, i);
                }
            int above = 0; /* below the cap, a symbol worth more than r rules i out */
            for (uint64_t m = safe[i]; m && pick >= 0 && r < d && !above; m &= m - 1) {
                insert_at(s->w, len, i, __builtin_ctzll(m));
                above = at_least(s, len + 1, d - 1, r);
                remove_at(s->w, len + 1, i);
            }
            if (pick >= 0 && !above) {
                bi = i;
                bc = pick;
            }
        }
        if (bi < 0 || s->stop)
            return; /* cannot happen unless memory ran out */
        out->pv[out->pv_len][0] = bi;
        out->pv[out->pv_len][1] = bc;
        out->pv_len++;
        if (safe[bi] == 0)
            return;
        insert_at(s->w, len, bi, bc);
        len++;
        d--;
        r--;
    }
}

int thue_solve(thue_solver *s, const uint8_t *sym, int n, const thue_solve_limits *limits,
               thue_solve_result *out)
{
    if (n < 0 || n >= SOLVE_MAXLEN)
        return THUE_ETOOLONG;
    for (int j = 0; j < n; j++)
        if (sym[j] >= s->k)
            return THUE_ESYMBOL;
    if (thue_check_word(s->scan, sym, n, s->v, NULL) != 0)
        return THUE_EREPEAT;
    memset(out, 0, sizeof *out);
    int cap = limits && limits->max_depth > 0 ? limits->max_depth : 0;
    set_limits(s, limits);
    if (limits && limits->root_parts > 1) {
        if (limits->root_part < 0 || limits->root_part >= limits->root_parts)
            return THUE_EINVAL;
        s->root_part = limits->root_part;
        s->root_parts = limits->root_parts;
    }
    if (n > 0)
        memcpy(s->w, sym, (size_t)n);
    /* Iterative deepening: each finished depth d either proves V = r < d, or V >= d. */
    int proven = 0;
    atomic_fetch_add_explicit(&s->tt->searchers, 1, memory_order_relaxed);
    for (int d = 1; cap == 0 || d <= cap; d++) {
        int r = value_at(s, n, d);
        if (s->stop)
            break;
        out->depth = d;
        if (limits && limits->on_depth)
            limits->on_depth(limits->ctx, d, r, r < d, s->nodes);
        if (r < d) {
            out->value = r;
            out->exact = 1;
            break;
        }
        proven = d;
    }
    atomic_fetch_sub_explicit(&s->tt->searchers, 1, memory_order_relaxed);
    if (!out->exact)
        out->value = proven;
    out->nodes = s->nodes;
    /* The principal variation is cheap (the table holds the answers): no limits. */
    set_limits(s, NULL);
    s->root_part = limits ? limits->root_part : 0;
    s->root_parts = limits ? limits->root_parts : 0;
    if (out->depth > 0 && (limits == NULL || limits->helper == 0))
        principal_variation(s, n, out->exact ? out->value + 1 : out->depth, out->value, out);
    s->root_parts = 0;
    out->states = thue_solve_table_used(s->tt);
    return s->oom ? THUE_ENOMEM : 0;
}

int thue_solver_value(thue_solver *s, const uint8_t *sym, int n, int cap,
                      const thue_solve_limits *limits, int *value, uint64_t *nodes)
{
    if (n < 0 || n >= SOLVE_MAXLEN)
        return THUE_ETOOLONG;
    set_limits(s, limits);
    if (n > 0)
        memcpy(s->w, sym, (size_t)n);
    int r = cap > 0 ? value_at(s, n, cap) : 0;
    if (nodes != NULL)
        *nodes = s->nodes;
    int stopped = s->stop;
    set_limits(s, NULL);
    if (s->oom)
        return THUE_ENOMEM;
    if (stopped)
        return 1;
    *value = r;
    return 0;
}

int thue__solver_holds(thue_solver *s, const uint8_t *sym, int n, int d)
{
    if (n < 0 || n >= SOLVE_MAXLEN)
        return THUE_ETOOLONG;
    if (d <= 0)
        return 1;
    set_limits(s, NULL);
    if (n > 0)
        memcpy(s->w, sym, (size_t)n);
    s->gen = (unsigned)d;
    int r = search(s, n, d, d - 1, d, 0, NULL);
    if (s->oom)
        return THUE_ENOMEM;
    return r >= d;
}

int thue__solver_known(thue_solver *s, const uint8_t *sym, int n)
{
    if (n < 0 || n >= SOLVE_MAXLEN)
        return -1;
    hkey h;
    canon_hash(s, sym, n, s->key, s->key2, &h);
    thue__tt_data e;
    return thue__tt_probe(s->tt, h.key, h.index, &e) ? e.lo : -1;
}
