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
 * Search. Alpha-beta, fail-soft, builder minimising over positions (fewest safe symbols
 * first) and painter maximising over safe symbols. A capped search computes
 * V_d = min(V, d), so its results are bounds on V itself: V_d <= r < d gives V <= r,
 * V_d >= r gives V >= r; the table stores such bounds on V and so serves every cap.
 * Iterative deepening on d stops at the first d whose answer is below d (exact).
 */
#include "games/thue/bots/solve.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/thue/engine/word.h"

/* Longest word the solver handles (the table stores lengths in 16 bits). */
#define SOLVE_MAXLEN 4096
/* Memory bounds of one solver's table: positions, and bytes of their canonical words
 * (with the slots, about 80 MB at most). */
#define SOLVE_MAX_ENTRIES (1u << 20)
#define SOLVE_ARENA_MAX ((size_t)32 << 20)
#define UNKNOWN_HI 32767

typedef struct entry {
    uint64_t hash; /* 0: empty slot */
    uint32_t off;  /* canonical word in the arena */
    uint16_t len;
    int16_t lo, hi; /* lo <= V <= hi */
} entry;

struct thue_solver {
    int k;
    thue_variant v;
    thue_scan *scan;
    entry *table;
    size_t cap, count; /* slots (a power of two) and used slots */
    uint8_t *arena;
    size_t arena_len, arena_cap;
    uint8_t *w;   /* the word being searched, edited in place */
    uint8_t *key; /* canonical form scratch */
    /* Per ply: the legal-move map and the builder's move order. Each ply's buffers are
     * allocated separately (never moved), since a deeper ply may grow the list. */
    uint64_t **maps;
    int **orders;
    int nplies;
    uint64_t nodes, budget;
    int64_t deadline;
    const atomic_int *stop_flag;
    int (*yield)(void *arg, int64_t now_ns);
    void *yield_arg;
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

static uint64_t hash_word(const uint8_t *x, int n)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)n;
    for (int j = 0; j < n; j++)
        h = (h ^ x[j]) * 0x100000001b3ULL;
    h ^= h >> 29;
    return h ? h : 1;
}

thue_solver *thue_solver_new(int k, thue_variant v)
{
    if (k < THUE_K_MIN || k > THUE_K_MAX || (v != THUE_SQUARE && v != THUE_OVERLAP))
        return NULL;
    thue_solver *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->k = k;
    s->v = v;
    s->cap = 1 << 12;
    s->scan = thue_scan_new();
    s->table = calloc(s->cap, sizeof *s->table);
    s->w = malloc(SOLVE_MAXLEN + 1);
    s->key = malloc(SOLVE_MAXLEN + 1);
    if (!s->scan || !s->table || !s->w || !s->key) {
        thue_solver_free(s);
        return NULL;
    }
    return s;
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
    free(s->key);
    free(s->w);
    free(s->arena);
    free(s->table);
    thue_scan_free(s->scan);
    free(s);
}

/* The slot of key[0..n) (found, or the empty slot where it would go). */
static entry *slot_of(thue_solver *s, const uint8_t *key, int n, uint64_t h)
{
    size_t mask = s->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        entry *e = &s->table[i];
        if (e->hash == 0)
            return e;
        if (e->hash == h && e->len == n &&
            (n == 0 || memcmp(s->arena + e->off, key, (size_t)n) == 0))
            return e;
    }
}

static int grow_table(thue_solver *s)
{
    size_t ncap = s->cap * 2;
    entry *nt = calloc(ncap, sizeof *nt);
    if (nt == NULL)
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        entry *e = &s->table[i];
        if (e->hash == 0)
            continue;
        size_t j = e->hash & (ncap - 1);
        while (nt[j].hash != 0)
            j = (j + 1) & (ncap - 1);
        nt[j] = *e;
    }
    free(s->table);
    s->table = nt;
    s->cap = ncap;
    return 0;
}

/* Tightens the stored bounds of key[0..n) (inserting it if new). */
static void store(thue_solver *s, const uint8_t *key, int n, uint64_t h, int lo, int hi)
{
    entry *e = slot_of(s, key, n, h);
    if (e->hash == 0) {
        /* A full table is a cache that stops learning: still correct, only slower. */
        if (s->count >= SOLVE_MAX_ENTRIES || s->arena_len + (size_t)n > SOLVE_ARENA_MAX)
            return;
        if (s->arena_len + (size_t)n > s->arena_cap) {
            size_t ncap = s->arena_cap ? s->arena_cap * 2 : 1 << 16;
            while (ncap < s->arena_len + (size_t)n)
                ncap *= 2;
            uint8_t *na = realloc(s->arena, ncap);
            if (na == NULL || ncap > UINT32_MAX) {
                free(na == s->arena ? NULL : na);
                s->oom = 1;
                return;
            }
            s->arena = na;
            s->arena_cap = ncap;
        }
        if (n > 0) /* the empty word has no bytes (and the arena may not exist yet) */
            memcpy(s->arena + s->arena_len, key, (size_t)n);
        e->hash = h;
        e->off = (uint32_t)s->arena_len;
        e->len = (uint16_t)n;
        e->lo = 0;
        e->hi = UNKNOWN_HI;
        s->arena_len += (size_t)n;
        if (++s->count * 2 > s->cap && grow_table(s) != 0)
            s->oom = 1;
        e = slot_of(s, key, n, h); /* the table may have moved */
    }
    if (lo > e->lo)
        e->lo = (int16_t)lo;
    if (hi < e->hi)
        e->hi = (int16_t)hi;
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
        s->orders[p] = malloc((SOLVE_MAXLEN + 1) * sizeof(int));
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

static int out_of_time(const thue_solver *s)
{
    return thue_search_must_stop(s->stop_flag, s->yield, s->yield_arg, s->deadline);
}

/* At the root of a split search only a share of the positions is the builder's. */
static int restricted(const thue_solver *s, int ply)
{
    return ply == 0 && s->root_parts > 1;
}

/*
 * V_d of s->w[0..n) with the builder to move, fail-soft in the window (alpha, beta):
 * a result r <= alpha means V_d <= r, r >= beta means V_d >= r, else V_d = r.
 * Sets s->stop when the node budget runs out (then the result means nothing).
 */
static int search(thue_solver *s, int n, int d, int alpha, int beta, int ply)
{
    if (s->stop)
        return 0;
    if ((s->budget && s->nodes >= s->budget) || ((s->nodes & 63) == 0 && out_of_time(s))) {
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
    thue_canonical(s->w, n, s->key);
    uint64_t h = hash_word(s->key, n);
    entry *e = own ? NULL : slot_of(s, s->key, n, h);
    int lo = e && e->hash ? imin(e->lo, d) : 0, hi = e && e->hash ? imin(e->hi, d) : d;
    if (lo == hi || lo >= beta)
        return lo;
    if (hi <= alpha)
        return hi;
    if (alpha < lo)
        alpha = lo;
    if (beta > hi)
        beta = hi;

    uint64_t *safe = s->maps[ply];
    thue_legal_map(s->scan, s->w, n, s->k, s->v, safe);
    /* Order positions by how few symbols are safe there: a position with none ends the
     * round at once (value 0), and tight positions refute the painter soonest. */
    int *order = s->orders[ply], cnt = 0;
    for (int want = 0; want <= s->k; want++)
        for (int i = 0; i <= n; i++)
            if (__builtin_popcountll(safe[i]) == want &&
                (!own || i % s->root_parts == s->root_part))
                order[cnt++] = i;
    int best;
    if (cnt == 0) {
        best = d; /* an empty share: no position, so no bound below the cap */
    } else if (safe[order[0]] == 0) {
        best = 0;
    } else {
        best = d; /* every P_i is at most d */
        for (int x = 0; x < cnt && best > alpha; x++) {
            int i = order[x];
            int cut = imin(best, beta); /* the builder ignores positions worth >= cut */
            int pbest = 0;
            for (uint64_t m = safe[i]; m && pbest < cut; m &= m - 1) {
                int c = __builtin_ctzll(m);
                int a2 = alpha > pbest ? alpha : pbest;
                insert_at(s->w, n, i, c);
                int r = 1 + search(s, n + 1, d - 1, a2 - 1, cut - 1, ply + 1);
                remove_at(s->w, n + 1, i);
                if (s->stop)
                    return 0;
                if (r > pbest)
                    pbest = r;
            }
            if (pbest < best)
                best = pbest;
        }
    }
    if (own)
        return best;
    /* Record what this result proves about V itself (s->key was overwritten below). */
    thue_canonical(s->w, n, s->key);
    if (best <= alpha) {
        if (best < d)
            store(s, s->key, n, h, 0, best);
    } else if (best >= beta) {
        store(s, s->key, n, h, best, UNKNOWN_HI);
    } else if (best < d) {
        store(s, s->key, n, h, best, best);
    } else {
        store(s, s->key, n, h, d, UNKNOWN_HI);
    }
    return best;
}

/* Resets the counters and takes the budget, deadline and stop flag of limits (none when
 * NULL); the root is whole. */
static void set_limits(thue_solver *s, const thue_solve_limits *limits)
{
    s->budget = limits ? limits->node_budget : 0;
    s->deadline = limits ? limits->deadline_ns : 0;
    s->stop_flag = limits ? limits->stop : NULL;
    s->yield = limits ? limits->yield : NULL;
    s->yield_arg = limits ? limits->yield_arg : NULL;
    s->root_part = s->root_parts = 0;
    s->nodes = 0;
    s->stop = s->oom = 0;
}

/* V_d of s->w[0..n) exactly (full window). */
static int value_at(thue_solver *s, int n, int d)
{
    return search(s, n, d, -1, d + 1, 0);
}

/* Follows best play from s->w[0..n), whose value capped at d is r: at each step the
 * first position whose painter value is r, and there the first symbol reaching it. */
static void principal_variation(thue_solver *s, int n, int d, int r, thue_solve_result *out)
{
    static _Thread_local uint64_t safe[SOLVE_MAXLEN + 1];
    out->pv_len = 0;
    int len = n;
    /* The first move comes from the root's share; every later search is whole. */
    int part = s->root_part, parts = s->root_parts;
    s->root_parts = 0;
    while (d > 0 && out->pv_len < THUE_SOLVE_PV_MAX && !s->stop) {
        thue_legal_map(s->scan, s->w, len, s->k, s->v, safe);
        int bi = -1, bc = 0;
        for (int i = 0; i <= len && bi < 0; i++) {
            if (out->pv_len == 0 && parts > 1 && i % parts != part)
                continue;
            if (safe[i] == 0) { /* r is 0: the builder ends the round here */
                bi = i;
                break;
            }
            int pmax = -1, cmax = 0;
            for (uint64_t m = safe[i]; m; m &= m - 1) {
                int c = __builtin_ctzll(m);
                insert_at(s->w, len, i, c);
                int v = 1 + value_at(s, len + 1, d - 1);
                remove_at(s->w, len + 1, i);
                if (v > pmax) {
                    pmax = v;
                    cmax = c;
                }
            }
            if (pmax == r) {
                bi = i;
                bc = cmax;
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
    if (!out->exact)
        out->value = proven;
    out->nodes = s->nodes;
    /* The principal variation is cheap (the table holds the answers): no limits. */
    set_limits(s, NULL);
    s->root_part = limits ? limits->root_part : 0;
    s->root_parts = limits ? limits->root_parts : 0;
    if (out->depth > 0)
        principal_variation(s, n, out->exact ? out->value + 1 : out->depth, out->value, out);
    s->root_parts = 0;
    out->states = s->count;
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
