/*
 * proof_gen.c: the proof checker's reference (see proof_gen.h). Slow on purpose where it
 * can afford to be: every rule is written the most direct way, so that a disagreement with
 * the checker points at the checker.
 */
#include "proof_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- repetitions and canonical forms ---- */

/* 1 when the factor of length len at s has period p. */
static int has_period(const uint8_t *sym, int s, int len, int p)
{
    for (int j = s; j + p < s + len; j++)
        if (sym[j] != sym[j + p])
            return 0;
    return 1;
}

int pg_clean(const uint8_t *sym, int n, thue_variant v)
{
    int extra = v == THUE_OVERLAP;
    for (int p = 1; 2 * p + extra <= n; p++)
        for (int s = 0; s + 2 * p + extra <= n; s++)
            if (has_period(sym, s, 2 * p + extra, p))
                return 0;
    return 1;
}

/* pg_clean for a word whose only possible repetitions contain position i. */
static int clean_at(const uint8_t *sym, int n, thue_variant v, int i)
{
    int extra = v == THUE_OVERLAP;
    for (int p = 1; 2 * p + extra <= n; p++) {
        int len = 2 * p + extra;
        int lo = i - len + 1 < 0 ? 0 : i - len + 1;
        for (int s = lo; s <= i && s + len <= n; s++)
            if (has_period(sym, s, len, p))
                return 0;
    }
    return 1;
}

static void relabel(const uint8_t *sym, int n, uint8_t *out)
{
    int map[256];
    for (int c = 0; c < 256; c++)
        map[c] = -1;
    int next = 0;
    for (int t = 0; t < n; t++) {
        if (map[sym[t]] < 0)
            map[sym[t]] = next++;
        out[t] = (uint8_t)map[sym[t]];
    }
}

void pg_canonical_spec(const uint8_t *sym, int n, uint8_t *out)
{
    uint8_t *rev = malloc((size_t)n + 1), *a = malloc((size_t)n + 1), *b = malloc((size_t)n + 1);
    for (int t = 0; t < n; t++)
        rev[t] = sym[n - 1 - t];
    relabel(sym, n, a);
    relabel(rev, n, b);
    memcpy(out, memcmp(a, b, (size_t)n) <= 0 ? a : b, (size_t)n);
    free(rev);
    free(a);
    free(b);
}

static void perm_min(const uint8_t *sym, int n, int k, int *perm, int used, int depth, uint8_t *img,
                     uint8_t *best, int *have)
{
    if (depth == k) {
        for (int dir = 0; dir < 2; dir++) {
            for (int t = 0; t < n; t++)
                img[t] = (uint8_t)perm[sym[dir ? n - 1 - t : t]];
            if (!*have || memcmp(img, best, (size_t)n) < 0)
                memcpy(best, img, (size_t)n);
            *have = 1;
        }
        return;
    }
    for (int c = 0; c < k; c++)
        if (!(used & (1 << c))) {
            perm[depth] = c;
            perm_min(sym, n, k, perm, used | (1 << c), depth + 1, img, best, have);
        }
}

void pg_canonical_perm(const uint8_t *sym, int n, int k, uint8_t *out)
{
    int perm[16] = {0}, have = 0; /* (set before use; gcc -O3 cannot tell) */
    uint8_t *img = malloc((size_t)n + 1);
    perm_min(sym, n, k, perm, 0, 0, img, out, &have);
    free(img);
}

/* ---- the minimax ---- */

typedef struct memo_entry {
    uint64_t key; /* 0: empty */
    int8_t val, cap;
} memo_entry;

static memo_entry *memo;
static size_t memo_size, memo_used;

/* Top byte: the length + 1 (5 bits), k - 1 (2 bits) and the variant; then 2 bits a symbol. */
static uint64_t word_key(const uint8_t *sym, int n, int k, thue_variant v)
{
    uint64_t key = (uint64_t)((n + 1) | (k - 1) << 5 | (int)v << 7) << 56;
    for (int t = 0; t < n; t++)
        key |= (uint64_t)sym[t] << (2 * t);
    return key;
}

static memo_entry *memo_slot(uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (memo_size - 1);
    while (memo[i].key != 0 && memo[i].key != key)
        i = (i + 1) & (memo_size - 1);
    return &memo[i];
}

static void memo_put(uint64_t key, int val, int cap)
{
    if (2 * (memo_used + 1) > memo_size) {
        memo_entry *old = memo;
        size_t oldn = memo_size;
        memo_size = memo_size ? 2 * memo_size : 1 << 16;
        memo = calloc(memo_size, sizeof *memo);
        memo_used = 0;
        for (size_t i = 0; i < oldn; i++)
            if (old[i].key != 0) {
                *memo_slot(old[i].key) = old[i];
                memo_used++;
            }
        free(old);
    }
    memo_entry *e = memo_slot(key);
    if (e->key == 0)
        memo_used++;
    e->key = key;
    e->val = (int8_t)val;
    e->cap = (int8_t)cap;
}

void pg_reset(void)
{
    free(memo);
    memo = NULL;
    memo_size = memo_used = 0;
}

int pg_value(const uint8_t *sym, int n, int k, thue_variant v, int cap)
{
    if (cap <= 0)
        return 0;
    if (n > 27 || k > 4)
        abort(); /* the memo key holds 2 bits per symbol and the length */
    uint64_t key = word_key(sym, n, k, v);
    if (memo_size) {
        memo_entry *e = memo_slot(key);
        if (e->key == key) {
            if (e->val < e->cap) /* exact */
                return e->val < cap ? e->val : cap;
            if (e->val >= cap) /* a lower bound that suffices */
                return cap;
        }
    }
    /* min over positions of max over safe symbols, the bound shrinking to the best so far. */
    int best = cap;
    uint8_t child[PG_LEN_MAX + 1];
    for (int i = 0; i <= n && best > 0; i++) {
        int pi = 0;
        for (int c = 0; c < k && pi < best; c++) {
            memcpy(child, sym, (size_t)i);
            child[i] = (uint8_t)c;
            memcpy(child + i + 1, sym + i, (size_t)(n - i));
            if (!clean_at(child, n + 1, v, i))
                continue;
            int t = 1 + pg_value(child, n + 1, k, v, best - 1);
            if (t > pi)
                pi = t;
        }
        if (pi < best)
            best = pi;
    }
    memo_put(key, best, cap);
    return best;
}

/* ---- building proofs ---- */

static int rec_len; /* for the qsort comparator */

static int cmp_rec(const void *a, const void *b)
{
    return memcmp(((const pg_record *)a)->w, ((const pg_record *)b)->w, (size_t)rec_len);
}

static int build(pg_proof *p, const uint8_t *root, int n0, int k, thue_variant v, int depth,
                 int greedy)
{
    memset(p, 0, sizeof *p);
    p->v = v;
    p->k = k;
    p->n0 = n0;
    p->depth = depth;
    p->nlevels = depth > 1 ? depth - 1 : 0;
    memcpy(p->root, root, (size_t)n0);
    if (!greedy && pg_value(root, n0, k, v, depth) < depth)
        return -1;
    if (p->nlevels == 0)
        return 0;
    p->recs[0] = calloc(1, sizeof(pg_record));
    p->count[0] = 1;
    pg_canonical_spec(root, n0, p->recs[0][0].w);
    uint8_t child[PG_LEN_MAX + 1];
    for (int P = 0; P < p->nlevels; P++) {
        int L = n0 + P, need = depth - P - 1, nk = 0;
        pg_record *next =
            P + 1 < p->nlevels ? calloc((size_t)p->count[P] * (L + 1), sizeof *next) : NULL;
        for (int j = 0; j < p->count[P]; j++) {
            pg_record *r = &p->recs[P][j];
            for (int i = 0; i <= L; i++) {
                int found = 0;
                for (int c = 0; c < k && !found; c++) {
                    memcpy(child, r->w, (size_t)i);
                    child[i] = (uint8_t)c;
                    memcpy(child + i + 1, r->w + i, (size_t)(L - i));
                    if (clean_at(child, L + 1, v, i) &&
                        (greedy || pg_value(child, L + 1, k, v, need) >= need)) {
                        r->r[i] = (uint8_t)c;
                        found = 1;
                    }
                }
                if (!found) {
                    free(next);
                    return -1;
                }
                if (next)
                    pg_canonical_spec(child, L + 1, next[nk++].w);
            }
        }
        if (next) {
            rec_len = L + 1;
            qsort(next, (size_t)nk, sizeof *next, cmp_rec);
            int u = 0;
            for (int j = 0; j < nk; j++)
                if (u == 0 || memcmp(next[u - 1].w, next[j].w, (size_t)(L + 1)) != 0)
                    next[u++] = next[j];
            p->recs[P + 1] = next;
            p->count[P + 1] = u;
        }
    }
    return 0;
}

int pg_build(pg_proof *p, const uint8_t *root, int n0, int k, thue_variant v, int depth)
{
    return build(p, root, n0, k, v, depth, 0);
}

int pg_build_greedy(pg_proof *p, const uint8_t *root, int n0, int k, thue_variant v, int depth)
{
    return build(p, root, n0, k, v, depth, 1);
}

void pg_free(pg_proof *p)
{
    for (int P = 0; P < PG_LEVELS_MAX; P++)
        free(p->recs[P]);
    memset(p, 0, sizeof *p);
}

uint8_t *pg_serialize(const pg_proof *p, size_t *len)
{
    size_t cap = 256;
    for (int P = 0; P < p->nlevels; P++)
        cap += 32 + (size_t)p->count[P] * (size_t)(p->n0 + P + 1);
    uint8_t *buf = malloc(cap);
    char root[PG_LEN_MAX + 2];
    for (int t = 0; t < p->n0; t++)
        root[t] = "0123456789abcdef"[p->root[t]];
    root[p->n0] = '\0';
    size_t n = (size_t)sprintf(
        (char *)buf, "thue-proof 1\nvariant %s\nk %d\nroot %s\ndepth %d\nlevels %d\nend\n",
        thue_variant_name(p->v), p->k, p->n0 ? root : "-", p->depth, p->nlevels);
    for (int P = 0; P < p->nlevels; P++) {
        int L = p->n0 + P;
        n += (size_t)sprintf((char *)buf + n, "level %d %d\n", P, p->count[P]);
        for (int j = 0; j < p->count[P]; j++) {
            uint8_t nib[2 * PG_LEN_MAX + 2];
            memcpy(nib, p->recs[P][j].w, (size_t)L);
            memcpy(nib + L, p->recs[P][j].r, (size_t)L + 1);
            nib[2 * L + 1] = 0;
            for (int t = 0; t < L + 1; t++)
                buf[n++] = (uint8_t)(nib[2 * t] << 4 | nib[2 * t + 1]);
        }
    }
    memcpy(buf + n, "end-proof\n", 10);
    *len = n + 10;
    return buf;
}

/* ---- the naive verifier ---- */

typedef struct cursor {
    const uint8_t *buf;
    size_t len, pos;
} cursor;

/* The next line without its newline (new, NUL-terminated), or NULL at the end. */
static char *next_line(cursor *cu)
{
    const uint8_t *nl = memchr(cu->buf + cu->pos, '\n', cu->len - cu->pos);
    if (nl == NULL)
        return NULL;
    size_t n = (size_t)(nl - (cu->buf + cu->pos));
    char *s = malloc(n + 1);
    memcpy(s, cu->buf + cu->pos, n);
    s[n] = '\0';
    cu->pos += n + 1;
    return memchr(s, '\0', n) ? (free(s), NULL) : s;
}

/* "PREFIX NUMBER": 0 and *out (decimal, no leading zeros, at most 18 digits), else -1. */
static int prefixed_num(const char *s, const char *prefix, long long *out)
{
    size_t pl = strlen(prefix);
    if (s == NULL || strncmp(s, prefix, pl) != 0)
        return -1;
    s += pl;
    size_t n = strlen(s);
    if (n == 0 || n > 18 || (s[0] == '0' && n > 1) || strspn(s, "0123456789") != n)
        return -1;
    *out = strtoll(s, NULL, 10);
    return 0;
}

static int line_is(cursor *cu, const char *want)
{
    char *s = next_line(cu);
    int ok = s != NULL && strcmp(s, want) == 0;
    free(s);
    return ok;
}

/* Every position of x (length n) has a safe symbol. */
static int all_positions_open(const uint8_t *x, int n, int k, thue_variant v)
{
    uint8_t *y = malloc((size_t)n + 2);
    int ok = 1;
    for (int j = 0; j <= n && ok; j++) {
        int any = 0;
        for (int c = 0; c < k && !any; c++) {
            memcpy(y, x, (size_t)j);
            y[j] = (uint8_t)c;
            memcpy(y + j + 1, x + j, (size_t)(n - j));
            any = pg_clean(y, n + 1, v);
        }
        ok = any;
    }
    free(y);
    return ok;
}

typedef struct nlevel {
    long long count;
    uint8_t *w, *r; /* count * L and count * (L+1) symbols */
    uint8_t *reached;
} nlevel;

int pg_naive_verify(const uint8_t *buf, size_t len)
{
    cursor cu = {buf, len, 0};
    int ok = 0, k = 0, n0 = 0;
    long long kk, depth, m = -1;
    thue_variant v = THUE_SQUARE;
    nlevel *lv = NULL;
    uint8_t *root = NULL, *x = NULL, *cx = NULL;
    char *s = NULL;
    if (!line_is(&cu, "thue-proof 1"))
        goto out;
    s = next_line(&cu);
    if (s == NULL || (strcmp(s, "variant square") != 0 && strcmp(s, "variant overlap") != 0))
        goto out;
    v = strcmp(s, "variant square") == 0 ? THUE_SQUARE : THUE_OVERLAP;
    free(s);
    s = next_line(&cu);
    if (prefixed_num(s, "k ", &kk) != 0 || kk < 2 || kk > 16)
        goto out;
    k = (int)kk;
    free(s);
    s = next_line(&cu);
    if (s == NULL || strncmp(s, "root ", 5) != 0)
        goto out;
    root = malloc(strlen(s) + 1);
    if (strcmp(s + 5, "-") != 0) {
        for (const char *d = s + 5; *d; d++) {
            const char *at = strchr("0123456789abcdef", *d);
            if (at == NULL || at - "0123456789abcdef" >= k)
                goto out;
            root[n0++] = (uint8_t)(at - "0123456789abcdef");
        }
        if (n0 == 0)
            goto out;
    }
    free(s);
    s = next_line(&cu);
    if (!pg_clean(root, n0, v) || prefixed_num(s, "depth ", &depth) != 0)
        goto out;
    free(s);
    s = next_line(&cu);
    if (prefixed_num(s, "levels ", &m) != 0 || m != (depth > 1 ? depth - 1 : 0) ||
        !line_is(&cu, "end") || n0 + m + 1 > 65536 || m > (long long)len)
        goto out;
    if (depth == 1 && !all_positions_open(root, n0, k, v))
        goto out;
    lv = calloc((size_t)m + 1, sizeof *lv);
    for (long long P = 0; P < m; P++) {
        long long L = n0 + P, count;
        char want[40];
        snprintf(want, sizeof want, "level %lld ", P);
        free(s);
        s = next_line(&cu);
        if (prefixed_num(s, want, &count) != 0 || count > (long long)(len - cu.pos) / (L + 1))
            goto out;
        lv[P].count = count;
        lv[P].w = malloc((size_t)(count * L + 1));
        lv[P].r = malloc((size_t)(count * (L + 1) + 1));
        lv[P].reached = calloc((size_t)count + 1, 1);
        for (long long j = 0; j < count; j++) {
            for (long long t = 0; t < 2 * L + 2; t++) {
                uint8_t byte = buf[cu.pos + (size_t)(t / 2)];
                int c = t % 2 ? byte & 15 : byte >> 4;
                if (t == 2 * L + 1 ? c != 0 : c >= k)
                    goto out;
                if (t < L)
                    lv[P].w[j * L + t] = (uint8_t)c;
                else if (t < 2 * L + 1)
                    lv[P].r[j * (L + 1) + t - L] = (uint8_t)c;
            }
            cu.pos += (size_t)(L + 1);
        }
    }
    if (len - cu.pos != 10 || memcmp(buf + cu.pos, "end-proof\n", 10) != 0)
        goto out;
    x = malloc((size_t)n0 + (size_t)m + 2);
    cx = malloc((size_t)n0 + (size_t)m + 2);
    for (long long P = 0; P < m; P++) {
        long long L = n0 + P;
        for (long long j = 0; j < lv[P].count; j++) {
            uint8_t *w = lv[P].w + j * L;
            pg_canonical_spec(w, (int)L, cx);
            if (memcmp(cx, w, (size_t)L) != 0)
                goto out;
            if (j > 0 && memcmp(w - L, w, (size_t)L) >= 0)
                goto out;
        }
    }
    if (m > 0) {
        pg_canonical_spec(root, n0, cx);
        if (lv[0].count != 1 || memcmp(cx, lv[0].w, (size_t)n0) != 0)
            goto out;
        lv[0].reached[0] = 1;
    }
    for (long long P = 0; P < m; P++) {
        long long L = n0 + P;
        for (long long j = 0; j < lv[P].count; j++) {
            if (!lv[P].reached[j])
                goto out;
            uint8_t *w = lv[P].w + j * L;
            for (long long i = 0; i <= L; i++) {
                memcpy(x, w, (size_t)i);
                x[i] = lv[P].r[j * (L + 1) + i];
                memcpy(x + i + 1, w + i, (size_t)(L - i));
                if (!pg_clean(x, (int)L + 1, v))
                    goto out;
                if (P + 1 == m) {
                    if (!all_positions_open(x, (int)L + 1, k, v))
                        goto out;
                    continue;
                }
                pg_canonical_spec(x, (int)L + 1, cx);
                long long at = -1;
                for (long long q = 0; q < lv[P + 1].count && at < 0; q++)
                    if (memcmp(lv[P + 1].w + q * (L + 1), cx, (size_t)L + 1) == 0)
                        at = q;
                if (at < 0)
                    goto out;
                lv[P + 1].reached[at] = 1;
            }
        }
    }
    ok = 1;
out:
    free(s);
    free(root);
    free(x);
    free(cx);
    for (long long P = 0; lv != NULL && P < m; P++) {
        free(lv[P].w);
        free(lv[P].r);
        free(lv[P].reached);
    }
    free(lv);
    return ok;
}

/* ---- wide proofs: few records, long words ---- */

void pg_ternary_word(int n, uint8_t *out)
{
    uint8_t *w = calloc((size_t)n + 1, 1); /* calloc: gcc -O3 cannot see the loop fill it */
    int m = 0, ones = -1;
    for (unsigned t = 0; m < n; t++) {
        if (__builtin_popcount(t) & 1) {
            ones++;
        } else {
            if (ones >= 0)
                w[m++] = (uint8_t)ones;
            ones = 0;
        }
    }
    pg_canonical_spec(w, n, out);
    free(w);
}

static int wide_len; /* for the qsort comparator */

static int cmp_wide(const void *a, const void *b)
{
    return memcmp(*(const uint8_t *const *)a, *(const uint8_t *const *)b, (size_t)wide_len);
}

/* Appends the record (w of L symbols, every answer c) packed as the format says. */
static size_t put_record(uint8_t *out, const uint8_t *w, int L, int c)
{
    size_t n = 0;
    for (int t = 0; t < 2 * L + 2; t += 2) {
        int hi = t < L ? w[t] : t < 2 * L + 1 ? c : 0;
        int lo = t + 1 < L ? w[t + 1] : t + 1 < 2 * L + 1 ? c : 0;
        out[n++] = (uint8_t)(hi << 4 | lo);
    }
    return n;
}

uint8_t *pg_wide_proof(int n0, int depth, size_t *len)
{
    uint8_t *root = malloc((size_t)n0 + 1);
    pg_ternary_word(n0, root);
    /* Level 1 (depth 3): the canonical children of the root with 3 inserted, sorted and
     * without duplicates; their answer is 4. */
    int nk = 0, L1 = n0 + 1;
    uint8_t **kids = NULL;
    if (depth == 3) {
        kids = malloc((size_t)(n0 + 1) * sizeof *kids);
        uint8_t *x = malloc((size_t)L1);
        for (int i = 0; i <= n0; i++) {
            memcpy(x, root, (size_t)i);
            x[i] = 3;
            memcpy(x + i + 1, root + i, (size_t)(n0 - i));
            kids[nk] = malloc((size_t)L1);
            pg_canonical_spec(x, L1, kids[nk++]);
        }
        free(x);
        wide_len = L1;
        qsort(kids, (size_t)nk, sizeof *kids, cmp_wide);
        int u = 0;
        for (int j = 0; j < nk; j++) {
            if (u == 0 || memcmp(kids[u - 1], kids[j], (size_t)L1) != 0)
                kids[u++] = kids[j];
            else
                free(kids[j]);
        }
        nk = u;
    }
    size_t cap = 2 * (size_t)n0 + 256 + (size_t)nk * ((size_t)L1 + 1);
    uint8_t *buf = malloc(cap);
    size_t n = (size_t)sprintf((char *)buf, "thue-proof 1\nvariant square\nk %d\nroot ", depth + 2);
    for (int t = 0; t < n0; t++)
        buf[n++] = (uint8_t)('0' + root[t]);
    n += (size_t)sprintf((char *)buf + n, "\ndepth %d\nlevels %d\nend\nlevel 0 1\n", depth,
                         depth - 1);
    n += put_record(buf + n, root, n0, 3);
    if (depth == 3) {
        n += (size_t)sprintf((char *)buf + n, "level 1 %d\n", nk);
        for (int j = 0; j < nk; j++) {
            n += put_record(buf + n, kids[j], L1, 4);
            free(kids[j]);
        }
    }
    memcpy(buf + n, "end-proof\n", 10);
    *len = n + 10;
    free(kids);
    free(root);
    return buf;
}
