/*
 * solve_proof.c: the proof file (docs/proofs.md): the painter's strategy that makes
 * V(root) >= D checkable without the solver.
 *
 * Level by level from the root: level P holds canonical words of length n0 + P with D - P
 * insertions still to survive. For each word and each builder position i the painter's
 * symbol r[i] is one whose child still holds D - P - 1: a symbol whose canonical child is
 * already in the next level is taken first (no search, and the proof stays small), then
 * a symbol whose child the table already proves (the search's own choice), else the
 * first symbol the solver proves (a null-window search). The next level is the set of
 * those canonical children. Each level is sorted and written once complete, then freed,
 * so memory holds two levels.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/thue/bots/solve_table.h"
#include "games/thue/engine/word.h"

/* Longest word in a proof (root length plus depth). */
#define PROOF_MAXLEN 1024

/* The words of one level (all of length len), with an open-addressing index. */
typedef struct wordset {
    int len;
    uint8_t *rec; /* count records of len word bytes + (len + 1) answer bytes */
    size_t count, cap;
    size_t *index; /* slots hold record number + 1; 0: empty */
    size_t icap;
} wordset;

static size_t rec_size(int len)
{
    return (size_t)len * 2 + 1;
}

static uint64_t word_hash(const uint8_t *w, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int j = 0; j < n; j++)
        h = (h ^ w[j]) * 0x100000001b3ULL;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

static void set_free(wordset *ws)
{
    free(ws->rec);
    free(ws->index);
    memset(ws, 0, sizeof *ws);
}

/* 1 when w is in the set. */
static int set_has(const wordset *ws, const uint8_t *w)
{
    if (ws->icap == 0)
        return 0;
    for (size_t i = word_hash(w, ws->len) & (ws->icap - 1);; i = (i + 1) & (ws->icap - 1)) {
        size_t x = ws->index[i];
        if (x == 0)
            return 0;
        if (memcmp(ws->rec + (x - 1) * rec_size(ws->len), w, (size_t)ws->len) == 0)
            return 1;
    }
}

/* Adds w (if new): 0 or THUE_ENOMEM. */
static int set_add(wordset *ws, const uint8_t *w)
{
    if (set_has(ws, w))
        return 0;
    size_t rs = rec_size(ws->len);
    if ((ws->count + 1) * 2 > ws->icap) {
        size_t ncap = ws->icap ? ws->icap * 2 : 1024;
        size_t *ni = calloc(ncap, sizeof *ni);
        if (ni == NULL)
            return THUE_ENOMEM;
        for (size_t x = 0; x < ws->count; x++) {
            size_t i = word_hash(ws->rec + x * rs, ws->len) & (ncap - 1);
            while (ni[i] != 0)
                i = (i + 1) & (ncap - 1);
            ni[i] = x + 1;
        }
        free(ws->index);
        ws->index = ni;
        ws->icap = ncap;
    }
    if (ws->count == ws->cap) {
        size_t ncap = ws->cap ? ws->cap * 2 : 256;
        uint8_t *nr = realloc(ws->rec, ncap * rs);
        if (nr == NULL)
            return THUE_ENOMEM;
        ws->rec = nr;
        ws->cap = ncap;
    }
    memcpy(ws->rec + ws->count * rs, w, (size_t)ws->len);
    memset(ws->rec + ws->count * rs + ws->len, 0, (size_t)ws->len + 1);
    size_t i = word_hash(w, ws->len) & (ws->icap - 1);
    while (ws->index[i] != 0)
        i = (i + 1) & (ws->icap - 1);
    ws->index[i] = ++ws->count;
    return 0;
}

static _Thread_local int sort_len;

static int cmp_rec(const void *a, const void *b)
{
    return memcmp(a, b, (size_t)sort_len);
}

/* Writes the records of ws (sorted) as level P; returns the bytes written. */
static uint64_t write_level(FILE *f, wordset *ws, int P)
{
    size_t rs = rec_size(ws->len);
    sort_len = ws->len;
    if (ws->count > 1)
        qsort(ws->rec, ws->count, rs, cmp_rec);
    int head = fprintf(f, "level %d %zu\n", P, ws->count);
    uint64_t bytes = head > 0 ? (uint64_t)head : 0;
    size_t packed = (rs + 1) / 2;
    uint8_t buf[PROOF_MAXLEN + 2];
    for (size_t x = 0; x < ws->count; x++) {
        const uint8_t *r = ws->rec + x * rs;
        memset(buf, 0, packed);
        for (size_t j = 0; j < rs; j++)
            buf[j / 2] |= (uint8_t)(j % 2 == 0 ? r[j] << 4 : r[j]);
        fwrite(buf, 1, packed, f);
        bytes += packed;
    }
    return bytes;
}

int thue_solver_write_proof(thue_solver *s, const uint8_t *sym, int n, int depth, FILE *f,
                            uint64_t *records, uint64_t *bytes)
{
    int k;
    thue_variant v;
    thue__solver_game(s, &k, &v);
    if (k > 16 || depth < 0)
        return THUE_EINVAL;
    if (n < 0 || depth > PROOF_MAXLEN || n + depth + 1 > PROOF_MAXLEN)
        return THUE_ETOOLONG;
    for (int j = 0; j < n; j++)
        if (sym[j] >= k)
            return THUE_ESYMBOL;
    int rc = thue_check_word(NULL, sym, n, v, NULL);
    if (rc < 0)
        return rc;
    if (rc != 0)
        return THUE_EREPEAT;
    int M = depth > 1 ? depth - 1 : 0;
    char root[PROOF_MAXLEN + 2] = "-";
    for (int j = 0; j < n; j++)
        root[j] = "0123456789abcdef"[sym[j]];
    if (n > 0)
        root[n] = '\0';
    int head = fprintf(f, "thue-proof 1\nvariant %s\nk %d\nroot %s\ndepth %d\nlevels %d\nend\n",
                       thue_variant_name(v), k, root, depth, M);
    uint64_t nbytes = head > 0 ? (uint64_t)head : 0, nrec = 0;
    int err = 0;
    if (depth == 1) {
        err = thue__solver_holds(s, sym, n, 1);
        err = err == 1 ? 0 : err == 0 ? 1 : err;
    }
    wordset cur = {0}, next = {0};
    uint8_t w[PROOF_MAXLEN + 2], x[PROOF_MAXLEN + 2], cx[PROOF_MAXLEN + 2];
    uint64_t safe[PROOF_MAXLEN + 2];
    if (depth >= 2) {
        cur.len = n;
        thue_canonical(sym, n, w);
        err = set_add(&cur, w);
    }
    for (int P = 0; P < M && err == 0; P++) {
        int L = n + P, R = depth - P; /* this level's length and remaining depth */
        int last = P + 1 == M;        /* children have remaining depth 1: not stored */
        size_t rs = rec_size(L);
        next.len = L + 1;
        for (size_t q = 0; q < cur.count && err == 0; q++) {
            uint8_t *rec = cur.rec + q * rs;
            memcpy(w, rec, (size_t)L);
            if (L <= 62)
                thue__short_map(w, L, k, v, safe);
            else if (thue_legal_map(NULL, w, L, k, v, safe) != 0) {
                err = THUE_ENOMEM;
                break;
            }
            for (int i = 0; i <= L && err == 0; i++) {
                int pick = -1;
                for (uint64_t m = safe[i]; m && !last && pick < 0; m &= m - 1) {
                    int c = __builtin_ctzll(m);
                    memcpy(x, w, (size_t)i);
                    x[i] = (uint8_t)c;
                    memcpy(x + i + 1, w + i, (size_t)(L - i));
                    thue_canonical(x, L + 1, cx);
                    if (set_has(&next, cx))
                        pick = c;
                }
                /* Then a symbol the table already proves (what the search chose), and
                 * only then a search, symbol by symbol. */
                for (uint64_t m = safe[i]; m && R - 1 >= 2 && pick < 0; m &= m - 1) {
                    int c = __builtin_ctzll(m);
                    memcpy(x, w, (size_t)i);
                    x[i] = (uint8_t)c;
                    memcpy(x + i + 1, w + i, (size_t)(L - i));
                    if (thue__solver_known(s, x, L + 1) >= R - 1)
                        pick = c;
                }
                for (uint64_t m = safe[i]; m && pick < 0; m &= m - 1) {
                    int c = __builtin_ctzll(m);
                    memcpy(x, w, (size_t)i);
                    x[i] = (uint8_t)c;
                    memcpy(x + i + 1, w + i, (size_t)(L - i));
                    int h = thue__solver_holds(s, x, L + 1, R - 1);
                    if (h < 0)
                        err = h;
                    else if (h == 1)
                        pick = c;
                }
                if (err == 0 && pick < 0)
                    err = 1; /* no symbol holds at i: the claim is false */
                if (err != 0)
                    break;
                rec[L + i] = (uint8_t)pick;
                if (!last) {
                    memcpy(x, w, (size_t)i);
                    x[i] = (uint8_t)pick;
                    memcpy(x + i + 1, w + i, (size_t)(L - i));
                    thue_canonical(x, L + 1, cx);
                    err = set_add(&next, cx);
                }
            }
        }
        if (err != 0)
            break;
        nbytes += write_level(f, &cur, P);
        nrec += cur.count;
        set_free(&cur);
        cur = next;
        memset(&next, 0, sizeof next);
    }
    set_free(&cur);
    set_free(&next);
    if (err != 0)
        return err;
    fputs("end-proof\n", f);
    nbytes += 10;
    if (records != NULL)
        *records = nrec;
    if (bytes != NULL)
        *bytes = nbytes;
    return 0;
}
