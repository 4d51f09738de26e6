/*
 * test_solve_proof.c: the proof writer (thue_solver_write_proof, docs/proofs.md).
 *
 * A small checker of the format lives here, written from the format's text and not from
 * the writer: it parses the header, the level blocks and the closing line, checks the
 * record sizes, the order (sorted, no duplicates), the canonical form (by its
 * definition: first appearances and the smaller of the word and its reversal), the root
 * record, and then walks the strategy from the root with the naive repetition check of
 * naive.c: every answer makes a clean child, whose canonical form is in the next level,
 * and the children of the last level have a safe symbol everywhere; every record must
 * be reached. Proofs are checked for square k = 3, 4, 5 and overlap k = 3, with empty,
 * one-symbol and longer roots; false claims and bad arguments are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/errors.h"
#include "games/thue/bots/solve.h"
#include "naive.h"

#define MAXL 64

/* The canonical form by its definition (independent of thue_canonical). */
static void canon_ref(const uint8_t *w, int n, uint8_t *out)
{
    uint8_t f[MAXL], r[MAXL];
    for (int dir = 0; dir < 2; dir++) {
        int map[16];
        for (int c = 0; c < 16; c++)
            map[c] = -1;
        int next = 0;
        uint8_t *o = dir ? r : f;
        for (int j = 0; j < n; j++) {
            int c = w[dir ? n - 1 - j : j];
            if (map[c] < 0)
                map[c] = next++;
            o[j] = (uint8_t)map[c];
        }
    }
    memcpy(out, memcmp(r, f, (size_t)n) < 0 ? r : f, (size_t)n);
}

typedef struct level {
    int len;
    size_t count;
    uint8_t *w; /* count words of len symbols */
    uint8_t *r; /* count answers of len + 1 symbols */
    uint8_t *seen;
} level;

static const char *take_line(const char **p, const char *end)
{
    const char *s = *p;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    assert_non_null(nl);
    *p = nl + 1;
    return s;
}

/* Index of w in the level (binary search), or -1. */
static long find(const level *lv, const uint8_t *w)
{
    size_t lo = 0, hi = lv->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = memcmp(lv->w + mid * (size_t)lv->len, w, (size_t)lv->len);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Checks a proof of V(root) >= D; returns the number of records. */
static size_t check_proof(const char *buf, size_t size, const char *variant, int k,
                          const uint8_t *root, int n0, int D)
{
    thue_variant v = strcmp(variant, "square") == 0 ? THUE_SQUARE : THUE_OVERLAP;
    const char *p = buf, *end = buf + size;
    char want[256], digits[MAXL + 2] = "-";
    for (int j = 0; j < n0; j++)
        digits[j] = "0123456789abcdef"[root[j]];
    if (n0 > 0)
        digits[n0] = '\0';
    int M = D > 1 ? D - 1 : 0;
    snprintf(want, sizeof want,
             "thue-proof 1\nvariant %s\nk %d\nroot %s\ndepth %d\nlevels %d\nend\n", variant, k,
             digits, D, M);
    assert_true(size >= strlen(want));
    assert_memory_equal(p, want, strlen(want));
    p += strlen(want);
    level lv[MAXL];
    size_t total = 0;
    for (int P = 0; P < M; P++) {
        level *l = &lv[P];
        l->len = n0 + P;
        const char *line = take_line(&p, end);
        int gotp;
        size_t count;
        assert_int_equal(sscanf(line, "level %d %zu\n", &gotp, &count), 2);
        assert_int_equal(gotp, P);
        l->count = count;
        size_t nib = (size_t)(2 * l->len + 1), bytes = (nib + 1) / 2;
        assert_true((size_t)(end - p) >= count * bytes);
        l->w = malloc(count * (size_t)l->len + 1);
        l->r = malloc(count * (size_t)(l->len + 1));
        l->seen = calloc(count + 1, 1);
        for (size_t x = 0; x < count; x++) {
            const uint8_t *b = (const uint8_t *)p + x * bytes;
            uint8_t nibs[2 * MAXL + 2];
            for (size_t j = 0; j < nib; j++)
                nibs[j] = (uint8_t)(j % 2 == 0 ? b[j / 2] >> 4 : b[j / 2] & 15);
            if (nib % 2 == 1)
                assert_int_equal(b[bytes - 1] & 15, 0); /* the padding nibble */
            memcpy(l->w + x * (size_t)l->len, nibs, (size_t)l->len);
            memcpy(l->r + x * (size_t)(l->len + 1), nibs + l->len, (size_t)l->len + 1);
            uint8_t c[MAXL];
            canon_ref(nibs, l->len, c);
            assert_memory_equal(c, nibs, (size_t)l->len); /* canonical */
            if (x > 0)                                    /* sorted, no duplicates */
                assert_true(memcmp(l->w + (x - 1) * (size_t)l->len, nibs, (size_t)l->len) < 0);
        }
        p += count * bytes;
        total += count;
    }
    assert_int_equal((size_t)(end - p), 10);
    assert_memory_equal(p, "end-proof\n", 10);
    uint8_t buf2[MAXL + 2], child[MAXL + 2], cc[MAXL + 2];
    if (M == 0) {
        if (D == 1) /* every position of the root has a safe symbol */
            for (int i = 0; i <= n0; i++)
                assert_true(naive_safe_at(root, n0, k, v, i, buf2) != 0);
        return total;
    }
    /* Level 0: the root's canonical form, alone. */
    assert_int_equal(lv[0].count, 1);
    canon_ref(root, n0, cc);
    assert_memory_equal(lv[0].w, cc, (size_t)n0);
    lv[0].seen[0] = 1;
    for (int P = 0; P < M; P++) {
        level *l = &lv[P];
        for (size_t x = 0; x < l->count; x++) {
            assert_true(l->seen[x]); /* every record is reachable */
            const uint8_t *w = l->w + x * (size_t)l->len, *r = l->r + x * (size_t)(l->len + 1);
            for (int i = 0; i <= l->len; i++) {
                assert_true(r[i] < k);
                assert_int_equal(naive_check_insert(w, l->len, v, i, r[i], child, NULL), 0);
                if (P + 1 < M) {
                    canon_ref(child, l->len + 1, cc);
                    long at = find(&lv[P + 1], cc);
                    assert_true(at >= 0);
                    lv[P + 1].seen[at] = 1;
                } else {
                    for (int j = 0; j <= l->len + 1; j++)
                        assert_true(naive_safe_at(child, l->len + 1, k, v, j, buf2) != 0);
                }
            }
        }
    }
    for (int P = 0; P < M; P++) {
        free(lv[P].w);
        free(lv[P].r);
        free(lv[P].seen);
    }
    return total;
}

/* Solves root to D with the solver, writes the proof and checks it; returns the number
 * of records (and *bytes the file's size). */
static size_t prove(int k, thue_variant v, const uint8_t *root, int n0, int D, size_t *bytes)
{
    thue_solver *s = thue_solver_new(k, v);
    assert_non_null(s);
    thue_solve_limits lim = {.max_depth = D};
    thue_solve_result r;
    assert_int_equal(thue_solve(s, root, n0, &lim, &r), 0);
    assert_true(r.value >= D); /* the claim holds */
    FILE *f = tmpfile();
    assert_non_null(f);
    uint64_t records = 0, nb = 0;
    assert_int_equal(thue_solver_write_proof(s, root, n0, D, f, &records, &nb), 0);
    long size = ftell(f);
    assert_int_equal((uint64_t)size, nb);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    size_t got =
        check_proof(buf, (size_t)size, v == THUE_SQUARE ? "square" : "overlap", k, root, n0, D);
    assert_int_equal(got, records);
    free(buf);
    thue_solver_free(s);
    if (bytes != NULL)
        *bytes = (size_t)size;
    return got;
}

static void test_proof_square_k4(void **state)
{
    (void)state;
    const uint8_t zero[1] = {0};
    size_t bytes;
    /* V = 5 from [0]: the proof of the whole value */
    size_t rec = prove(4, THUE_SQUARE, zero, 1, 5, &bytes);
    assert_true(rec >= 4); /* a record per level at least */
    print_message("square k=4 root 0 depth 5: %zu records, %zu bytes\n", rec, bytes);
    for (int D = 0; D <= 4; D++)
        prove(4, THUE_SQUARE, zero, 1, D, NULL);
    const uint8_t w[] = {0, 1, 2, 0};
    prove(4, THUE_SQUARE, w, 4, 2, NULL);
}

static void test_proof_overlap_k3(void **state)
{
    (void)state;
    const uint8_t zero[1] = {0};
    size_t bytes;
    size_t rec = prove(3, THUE_OVERLAP, zero, 1, 10, &bytes);
    print_message("overlap k=3 root 0 depth 10: %zu records, %zu bytes\n", rec, bytes);
    const uint8_t w[] = {0, 0, 1};
    prove(3, THUE_OVERLAP, w, 3, 3, NULL);
}

static void test_proof_other_roots(void **state)
{
    (void)state;
    const uint8_t none[1] = {0};
    prove(3, THUE_SQUARE, none, 0, 4, NULL); /* the empty root: "root -" */
    const uint8_t zero[1] = {0};
    prove(5, THUE_SQUARE, zero, 1, 7, NULL);
    const uint8_t w[] = {0, 1, 2, 0, 3};
    prove(5, THUE_SQUARE, w, 5, 4, NULL);
    const uint8_t big[] = {9, 15, 9, 3};
    prove(16, THUE_SQUARE, big, 4, 3, NULL);
}

static void test_proof_refused(void **state)
{
    (void)state;
    const uint8_t zero[1] = {0}, sq[] = {0, 1, 0, 1}, bad[] = {0, 7};
    thue_solver *s = thue_solver_new(4, THUE_SQUARE);
    FILE *f = tmpfile();
    /* V = 5: no proof of 6 */
    assert_int_equal(thue_solver_write_proof(s, zero, 1, 6, f, NULL, NULL), 1);
    assert_int_equal(thue_solver_write_proof(s, zero, 1, -1, f, NULL, NULL), THUE_EINVAL);
    assert_int_equal(thue_solver_write_proof(s, sq, 4, 2, f, NULL, NULL), THUE_EREPEAT);
    assert_int_equal(thue_solver_write_proof(s, bad, 2, 2, f, NULL, NULL), THUE_ESYMBOL);
    assert_int_equal(thue_solver_write_proof(s, zero, -1, 2, f, NULL, NULL), THUE_ETOOLONG);
    thue_solver_free(s);
    s = thue_solver_new(17, THUE_SQUARE); /* symbols are hex digits: k <= 16 */
    assert_int_equal(thue_solver_write_proof(s, zero, 1, 2, f, NULL, NULL), THUE_EINVAL);
    thue_solver_free(s);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proof_square_k4),
        cmocka_unit_test(test_proof_overlap_k3),
        cmocka_unit_test(test_proof_other_roots),
        cmocka_unit_test(test_proof_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
