/*
 * repetition.c: square and overlap detection (see repetition.h for the contract).
 *
 * Notation. w is the word (length n), w' = w[0..i) c w[i..n) the word after inserting c
 * at position i. For a period p, Z_p is the bit set of j in [0, n-p) with w[j] = w[j+p].
 * A square of period p is a run of p consecutive ones in Z_p (p+1 ones for an overlap).
 *
 * Inserting c at i: the period-p match sequence M' of w' (j in [0, n+1-p)) is
 *     j <  u = i-p : Z_p[j]               (both symbols left of i)
 *     j == u       : c == w[u]
 *     u < j < i    : Z_{p-1}[j]           (w'[j+p] is w[j+p-1])
 *     j == i       : c == w[i+p-1]
 *     j >  i       : Z_p[j-1]             (both symbols right of i)
 * w is clean, so every run of W ones in M' (W = p for squares, p+1 for overlaps) holds
 * j = u or j = i: the region (u, i) has only p-1 entries and runs elsewhere would be
 * repetitions of w. Hence, for each p, only two symbols can be unsafe at i: w[u] (the
 * "left" case) and w[i+p-1] (the "right" case), and with
 *     a = ones of Z_p ending at u-1,        b = ones of Z_{p-1} from u+1 (at most p-1),
 *     l = ones of Z_{p-1} ending at i-1 (at most p-1),   r = ones of Z_p from i,
 * the conditions are
 *     square : left  a + b >= p-1            right  l + r >= p-1
 *     overlap: left  a + b >= p, or b = p-1 and w[i+p-1] == w[u] (the run takes both
 *              j = u and j = i)              right  l + r >= p.
 *
 * Speed. The legal-move map evaluates these for every p at once over 64 positions per
 * machine word: Z_p is the complement of the OR over the word's bit-planes of
 * plane ^ (plane >> p). A sum a + b >= T needs max(a, b) >= ceil(T/2), so only the
 * positions where Z_p or Z_{p-1} holds a run of h = ceil(T/2) ones can be unsafe;
 * those sets come from log2(h) shift-ANDs and are nearly always empty for large p in
 * words that have no repetitions. The few candidates are then decided exactly with
 * run lengths read off the bit sets (count-leading/trailing-zero instructions).
 * The full check uses the same bit sets: the first p whose Z_p has a run of W ones.
 */
#include "games/thue/engine/repetition.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/thue/engine/word.h"

#define PLANES_MAX 6 /* log2(THUE_K_MAX) */

/* A bit set with the invariant that words at index >= used are zero. */
typedef struct {
    uint64_t *w;
    int used;
} bits;

struct thue_scan {
    uint64_t *mem;
    int nw; /* words per bit set */
    uint64_t *planes[PLANES_MAX];
    bits z[2]; /* Z_p and Z_{p-1}, swapped as p grows */
    bits d[2]; /* run sets derived from them */
};

const char *thue_variant_name(thue_variant v)
{
    switch (v) {
    case THUE_SQUARE:
        return "square";
    case THUE_OVERLAP:
        return "overlap";
    }
    return NULL;
}

int thue_variant_parse(const char *text, thue_variant *v)
{
    if (text != NULL && strcmp(text, "square") == 0) {
        *v = THUE_SQUARE;
        return 0;
    }
    if (text != NULL && strcmp(text, "overlap") == 0) {
        *v = THUE_OVERLAP;
        return 0;
    }
    return THUE_EVARIANT;
}

thue_scan *thue_scan_new(void)
{
    return calloc(1, sizeof(thue_scan));
}

void thue_scan_free(thue_scan *s)
{
    if (s == NULL)
        return;
    free(s->mem);
    free(s);
}

/* Makes room for words of length n and clears every bit set. Planes and bit sets get
 * ceil(n/64) + 2 words: shifted reads look at most two words past the last used one. */
static int scan_prepare(thue_scan *s, int n)
{
    int nw = (n + 63) / 64 + 2;
    int nsets = PLANES_MAX + 4;
    if (nw > s->nw) {
        int grow = nw < 2 * s->nw ? 2 * s->nw : nw;
        uint64_t *mem = malloc((size_t)grow * (size_t)nsets * sizeof(uint64_t));
        if (mem == NULL)
            return THUE_ENOMEM;
        free(s->mem);
        s->mem = mem;
        s->nw = grow;
    }
    memset(s->mem, 0, (size_t)s->nw * (size_t)nsets * sizeof(uint64_t));
    for (int b = 0; b < PLANES_MAX; b++)
        s->planes[b] = s->mem + (size_t)b * (size_t)s->nw;
    for (int x = 0; x < 2; x++) {
        s->z[x].w = s->mem + (size_t)(PLANES_MAX + x) * (size_t)s->nw;
        s->z[x].used = 0;
        s->d[x].w = s->mem + (size_t)(PLANES_MAX + 2 + x) * (size_t)s->nw;
        s->d[x].used = 0;
    }
    return 0;
}

/* Number of bit-planes needed for symbols up to maxsym. */
static int planes_for(int maxsym)
{
    int b = 1;
    while (b < PLANES_MAX && (maxsym >> b) != 0)
        b++;
    return b;
}

static void build_planes(thue_scan *s, const uint8_t *w, int n, int nplanes)
{
    for (int j = 0; j < n; j++) {
        uint64_t bit = (uint64_t)1 << (j & 63);
        for (int b = 0; b < nplanes; b++)
            if ((w[j] >> b) & 1)
                s->planes[b][j >> 6] |= bit;
    }
}

/* Bits j + (64q + r) of a, for the 64 positions j of word t. */
static inline uint64_t shr_at(const uint64_t *a, int t, int q, int r)
{
    return r ? (a[t + q] >> r) | (a[t + q + 1] << (64 - r)) : a[t + q];
}

/* Declares that b's words from `used` on are (to be) zero, clearing stale ones. */
static void bits_set_used(bits *b, int used)
{
    if (used < b->used)
        memset(b->w + used, 0, (size_t)(b->used - used) * sizeof(uint64_t));
    b->used = used;
}

/* z = Z_p: bit j set iff w[j] == w[j+p], for j in [0, n-p). */
static void match_set(const thue_scan *s, int nplanes, int n, int p, bits *z)
{
    int nbits = n - p;
    int tw = nbits > 0 ? (nbits + 63) / 64 : 0;
    int q = p >> 6, r = p & 63;
    for (int t = 0; t < tw; t++) {
        uint64_t diff = 0;
        for (int b = 0; b < nplanes; b++) {
            const uint64_t *pl = s->planes[b];
            diff |= pl[t] ^ shr_at(pl, t, q, r);
        }
        z->w[t] = ~diff;
    }
    if (nbits > 0 && (nbits & 63))
        z->w[tw - 1] &= ((uint64_t)1 << (nbits & 63)) - 1;
    bits_set_used(z, tw);
}

/* d = the positions x where z[x .. x+h) are all ones (h >= 1), by doubling shift-ANDs.
 * Returns 0 when d is empty (then it may not be fully cleared: do not read it). */
static int runs_of(const bits *z, int h, bits *d)
{
    int tw = z->used;
    memcpy(d->w, z->w, (size_t)tw * sizeof(uint64_t));
    bits_set_used(d, tw);
    uint64_t any = 0;
    for (int t = 0; t < tw; t++)
        any |= d->w[t];
    /* Invariant: d holds runs of m ones; the step joins two runs of m offset by `step`. */
    for (int m = 1; any && m < h;) {
        int step = 2 * m <= h ? m : h - m;
        int q = step >> 6, r = step & 63;
        any = 0;
        for (int t = 0; t < tw; t++) {
            /* In place: word t reads words t+q and t+q+1, not yet overwritten. */
            uint64_t v = d->w[t] & shr_at(d->w, t, q, r);
            d->w[t] = v;
            any |= v;
        }
        m += step;
    }
    return any != 0;
}

/* d holds the runs of m ones of some set; turns it into its runs of m+1 ones. Returns 0
 * when that is empty. */
static int runs_longer(bits *d)
{
    uint64_t any = 0;
    for (int t = 0; t < d->used; t++) {
        uint64_t v = d->w[t] & shr_at(d->w, t, 0, 1);
        d->w[t] = v;
        any |= v;
    }
    return any != 0;
}

/* Consecutive ones of z at x, x+1, ... (at most cap). Bits past the set are zero. */
static inline int run_up(const uint64_t *z, int x, int cap)
{
    int cnt = 0;
    while (cnt < cap) {
        int t = x >> 6, o = x & 63;
        uint64_t inv = ~(z[t] >> o); /* ones past bit 63-o stop the count there */
        int run = inv ? __builtin_ctzll(inv) : 64;
        cnt += run;
        x += run;
        if (run < 64 - o)
            break;
    }
    return cnt < cap ? cnt : cap;
}

/* Consecutive ones of z at x, x-1, ..., down to bit 0 (at most cap). */
static inline int run_down(const uint64_t *z, int x, int cap)
{
    int cnt = 0;
    while (cnt < cap && x >= 0) {
        int t = x >> 6, o = x & 63;
        uint64_t inv = ~(z[t] << (63 - o)); /* bit x at the top; zeros shifted in stop it */
        int run = inv ? __builtin_clzll(inv) : 64;
        cnt += run;
        x -= run;
        if (run < o + 1)
            break;
    }
    return cnt < cap ? cnt : cap;
}

static int check_args(const uint8_t *sym, int n, thue_variant v)
{
    if (n < 0 || n > THUE_WORD_MAX || (n > 0 && sym == NULL))
        return THUE_EINVAL;
    if (v != THUE_SQUARE && v != THUE_OVERLAP)
        return THUE_EINVAL;
    return 0;
}

int thue_check_word(thue_scan *s, const uint8_t *sym, int n, thue_variant v, thue_repetition *out)
{
    int err = check_args(sym, n, v);
    if (err)
        return err;
    int extra = v == THUE_OVERLAP; /* an overlap of period p is 2p+1 long */
    if (n < 2 + extra)
        return 0;
    int maxsym = 0;
    for (int j = 0; j < n; j++) {
        if (sym[j] >= THUE_K_MAX)
            return THUE_EINVAL;
        if (sym[j] > maxsym)
            maxsym = sym[j];
    }
    thue_scan *own = NULL;
    if (s == NULL && (s = own = thue_scan_new()) == NULL)
        return THUE_ENOMEM;
    int found = scan_prepare(s, n);
    if (found == 0) {
        int nplanes = planes_for(maxsym);
        build_planes(s, sym, n, nplanes);
        for (int p = 1; 2 * p + extra <= n; p++) {
            match_set(s, nplanes, n, p, &s->z[0]);
            if (!runs_of(&s->z[0], p + extra, &s->d[0]))
                continue;
            for (int t = 0; t < s->d[0].used; t++) {
                if (s->d[0].w[t]) {
                    if (out) {
                        out->start = t * 64 + __builtin_ctzll(s->d[0].w[t]);
                        out->period = p;
                        out->length = 2 * p + extra;
                    }
                    found = 1;
                    break;
                }
            }
            break;
        }
    }
    thue_scan_free(own);
    return found;
}

/* The symbol at position x of w' = w[0..i) c w[i..n). */
static inline int sym_after(const uint8_t *w, int i, int c, int x)
{
    return x < i ? w[x] : x == i ? c : w[x - 1];
}

int thue_check_insert(const uint8_t *sym, int n, thue_variant v, int i, int c, thue_repetition *out)
{
    int err = check_args(sym, n, v);
    if (err)
        return err;
    if (i < 0 || i > n)
        return THUE_EPOSITION;
    if (c < 0 || c >= THUE_K_MAX)
        return THUE_ESYMBOL;
    int extra = v == THUE_OVERLAP;
    int len = n + 1; /* length of w' */
    for (int p = 1; 2 * p + extra <= len; p++) {
        int want = p + extra; /* ones needed in a row of M' */
        int last = len - p;   /* M' is defined on [0, last) */
        int u = i - p;
        /* Quick rejection: a new repetition needs M'[u] (c == w[u]) or M'[i]
         * (c == w[i+p-1]); for most p neither holds. */
        if (!(u >= 0 && sym[u] == c) && !(i < last && sym[i + p - 1] == c))
            continue;
        /* The leftmost window first: runs through u = i-p, then runs through i. */
        int js[2] = {u, i};
        for (int x = 0; x < 2; x++) {
            int j0 = js[x];
            if (j0 < 0 || j0 >= last)
                continue;
            if (sym_after(sym, i, c, j0) != sym_after(sym, i, c, j0 + p))
                continue;
            int lo = j0, hi = j0;
            while (lo > 0 && j0 - lo < want - 1 &&
                   sym_after(sym, i, c, lo - 1) == sym_after(sym, i, c, lo - 1 + p))
                lo--;
            while (hi + 1 < last && hi - lo + 1 < want &&
                   sym_after(sym, i, c, hi + 1) == sym_after(sym, i, c, hi + 1 + p))
                hi++;
            if (hi - lo + 1 >= want) {
                if (out) {
                    out->start = lo;
                    out->period = p;
                    out->length = 2 * p + extra;
                }
                return 1;
            }
        }
    }
    return 0;
}

/* Left case at u (symbol w[u] at i = u+p) and right case at i (symbol w[i+p-1]); each
 * marks the symbol unsafe in bad[i] when the conditions of the header comment hold. */
typedef struct {
    const uint8_t *w;
    int n, p, extra;
    const uint64_t *zp, *zq; /* Z_p and Z_{p-1} */
    uint64_t *bad;
} map_ctx;

static inline void left_case(const map_ctx *m, int u)
{
    int i = u + m->p;
    if (u < 0 || i > m->n)
        return;
    int c = m->w[u];
    if ((m->bad[i] >> c) & 1)
        return;
    int p = m->p;
    int a = run_down(m->zp, u - 1, p);
    int b = run_up(m->zq, u + 1, p - 1);
    int unsafe = a + b >= p - 1 + m->extra;
    if (!unsafe && m->extra && b == p - 1 && i + p - 1 < m->n && m->w[i + p - 1] == c)
        unsafe = 1;
    if (unsafe)
        m->bad[i] |= (uint64_t)1 << c;
}

static inline void right_case(const map_ctx *m, int i)
{
    int p = m->p;
    if (i < 0 || i > m->n - p)
        return;
    int c = m->w[i + p - 1];
    if ((m->bad[i] >> c) & 1)
        return;
    int l = run_down(m->zq, i - 1, p - 1);
    int r = run_up(m->zp, i, p);
    if (l + r >= p - 1 + m->extra)
        m->bad[i] |= (uint64_t)1 << c;
}

/* Period 1 directly: a square is "aa"; an overlap is "aaa" (repetition.h). */
void thue__period_one(const uint8_t *w, int n, int extra, uint64_t *bad)
{
    for (int i = 0; i <= n; i++) {
        uint64_t m = 0;
        if (!extra) {
            if (i > 0)
                m |= (uint64_t)1 << w[i - 1];
            if (i < n)
                m |= (uint64_t)1 << w[i];
        } else {
            if (i >= 2 && w[i - 2] == w[i - 1])
                m |= (uint64_t)1 << w[i - 1];
            if (i >= 1 && i < n && w[i - 1] == w[i])
                m |= (uint64_t)1 << w[i];
            if (i + 1 < n && w[i] == w[i + 1])
                m |= (uint64_t)1 << w[i];
        }
        bad[i] |= m;
    }
}

/* Calls f for every set bit x of d, mapped to position x + shift. */
#define FOR_EACH_BIT(d, x, body)                                                                   \
    for (int t_ = 0; t_ < (d)->used; t_++)                                                         \
        for (uint64_t v_ = (d)->w[t_]; v_; v_ &= v_ - 1) {                                         \
            int x = t_ * 64 + __builtin_ctzll(v_);                                                 \
            body;                                                                                  \
        }

int thue_legal_map(thue_scan *s, const uint8_t *sym, int n, int k, thue_variant v, uint64_t *safe)
{
    int err = check_args(sym, n, v);
    if (err)
        return err;
    if (k < THUE_K_MIN || k > THUE_K_MAX)
        return THUE_EK;
    for (int j = 0; j < n; j++)
        if (sym[j] >= k)
            return THUE_ESYMBOL;
    thue_scan *own = NULL;
    if (s == NULL && (s = own = thue_scan_new()) == NULL)
        return THUE_ENOMEM;
    if ((err = scan_prepare(s, n)) != 0) {
        thue_scan_free(own);
        return err;
    }
    int extra = v == THUE_OVERLAP;
    int nplanes = planes_for(k - 1);
    build_planes(s, sym, n, nplanes);

    uint64_t *bad = safe; /* unsafe sets are gathered in place, then complemented */
    memset(bad, 0, (size_t)(n + 1) * sizeof(uint64_t));
    thue__period_one(sym, n, extra, bad);

    /* zp = Z_p and dp = its runs of h ones; zq = Z_{p-1} and dq = its runs of hq ones,
     * carried over from the previous period (hq = -1: not computed yet). */
    bits *zp = &s->z[0], *zq = &s->z[1], *dp = &s->d[0], *dq = &s->d[1];
    int hq = -1, dq_any = 0;
    if (n > 1)
        match_set(s, nplanes, n, 1, zq);
    for (int p = 2; 2 * p + extra <= n + 1; p++) {
        match_set(s, nplanes, n, p, zp);
        map_ctx m = {sym, n, p, extra, zp->w, zq->w, bad};
        /* a + b >= T forces max(a, b) >= h = ceil(T/2), T = p-1 (square) or p (overlap);
         * the overlap's "b = p-1" case is inside b >= h as p-1 >= ceil(p/2) for p >= 2. */
        int h = (p + extra) / 2;
        int dp_any = runs_of(zp, h, dp);
        if (hq == h - 1 && dq_any)
            dq_any = runs_longer(dq); /* h grew by one since the last period */
        else if (hq != h && hq != h - 1)
            dq_any = runs_of(zq, h, dq);
        if (dp_any) {
            FOR_EACH_BIT(dp, x, {
                left_case(&m, x + h); /* a >= h */
                right_case(&m, x);    /* r >= h */
            });
        }
        if (dq_any) {
            FOR_EACH_BIT(dq, y, {
                left_case(&m, y - 1);  /* b >= h */
                right_case(&m, y + h); /* l >= h */
            });
        }
        bits *tmp = zp;
        zp = zq;
        zq = tmp;
        tmp = dp;
        dp = dq;
        dq = tmp;
        hq = h;
        dq_any = dp_any;
    }
    uint64_t all = thue_all_symbols(k);
    for (int i = 0; i <= n; i++)
        safe[i] = all & ~bad[i];
    thue_scan_free(own);
    return 0;
}
