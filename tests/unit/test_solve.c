/*
 * test_solve.c: the exact solver against a plain reference.
 *
 * The reference is the recursion of solve.h written out directly: memoised on the exact
 * word (no symmetry, no alpha-beta, no iterative deepening), with the safe symbols found
 * by the naive rescan of naive.c. Checked: the values from the start for square
 * k = 2, 3, 4 and overlap k = 2, 3; every reachable position up to a length against
 * the reference, with and without depth caps (V_d = min(V, d)); the two symmetries the
 * solver's table relies on (relabelling and reversal); principal variations that replay
 * legally and score the value; bad input. The table (solve_table.c): tiny tables that
 * must replace entries all the time give the same values as the reference; the
 * one-word legal map of short words against the engine's; two threads on one table
 * against one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/errors.h"
#include "games/thue/engine/repetition.h"
#include "naive.h"
#include "games/thue/bots/solve.h"
#include "games/thue/bots/solve_table.h"

#include <uv.h>

/* ---- the reference: memoised minimax on exact words -------------------------------- */

typedef struct memo {
    uint8_t *keys; /* fixed-size records: len byte + up to MAXW symbols */
    int *vals;
    size_t cap, count;
} memo;

#define MAXW 40
#define REC (MAXW + 2) /* length, symbols, cap */

static uint64_t hash_rec(const uint8_t *rec)
{
    uint64_t h = 1469598103934665603ULL;
    for (int j = 0; j <= rec[0] + 1; j++)
        h = (h ^ rec[j]) * 1099511628211ULL;
    return h;
}

/* The stored value of rec, or -1. */
static int memo_get(const memo *m, const uint8_t *rec)
{
    if (m->cap == 0)
        return -1;
    for (size_t i = hash_rec(rec) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const uint8_t *k = m->keys + i * REC;
        if (k[0] == 0)
            return -1;
        if (memcmp(k, rec, (size_t)rec[0] + 2) == 0)
            return m->vals[i];
    }
}

static void memo_put(memo *m, const uint8_t *rec, int val)
{
    if ((m->count + 1) * 2 >= m->cap) {
        memo old = *m;
        m->cap = m->cap ? m->cap * 2 : 1024;
        m->keys = calloc(m->cap, REC);
        m->vals = calloc(m->cap, sizeof(int));
        m->count = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i * REC] != 0)
                memo_put(m, old.keys + i * REC, old.vals[i]);
        free(old.keys);
        free(old.vals);
    }
    size_t i = hash_rec(rec) & (m->cap - 1);
    while (m->keys[i * REC] != 0)
        i = (i + 1) & (m->cap - 1);
    memcpy(m->keys + i * REC, rec, (size_t)rec[0] + 2);
    m->vals[i] = val;
    m->count++;
}

/* V_d(w) = min(V(w), d) for a clean word w[0..n): the recursion of solve.h over every
 * move, memoised on (word, d). (The game tree itself is infinite: only the value is
 * finite, so the reference needs the cap too.) */
static int ref_capped(memo *m, const uint8_t *w, int n, int d, int k, thue_variant v)
{
    if (d == 0)
        return 0;
    uint8_t rec[REC];
    assert_true(n < MAXW);
    rec[0] = (uint8_t)n;
    memcpy(rec + 1, w, (size_t)n);
    rec[n + 1] = (uint8_t)d;
    int known = memo_get(m, rec);
    if (known >= 0)
        return known;
    uint8_t child[MAXW + 1], buf[MAXW + 2];
    int best = -1;
    for (int i = 0; i <= n; i++) {
        int pmax = 0;
        for (int c = 0; c < k; c++) {
            thue_repetition r;
            if (naive_check_insert(w, n, v, i, c, buf, &r))
                continue;
            memcpy(child, buf, (size_t)n + 1);
            int x = 1 + ref_capped(m, child, n + 1, d - 1, k, v);
            if (x > pmax)
                pmax = x;
        }
        if (best < 0 || pmax < best)
            best = pmax;
    }
    memo_put(m, rec, best);
    return best;
}

/* V(w), given that it is below cap: checked. */
static int ref_value(memo *m, const uint8_t *w, int n, int k, thue_variant v, int cap)
{
    int r = ref_capped(m, w, n, cap, k, v);
    assert_true(r < cap);
    return r;
}

static void memo_free(memo *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- tests ------------------------------------------------------------------------- */

static int solve_value(thue_solver *s, const uint8_t *w, int n, int cap, int *exact)
{
    thue_solve_limits lim = {.max_depth = cap};
    thue_solve_result r;
    assert_int_equal(thue_solve(s, w, n, &lim, &r), 0);
    *exact = r.exact;
    return r.value;
}

static void check_start(int k, thue_variant v, int expect)
{
    memo m = {0};
    const uint8_t start[1] = {0};
    int want = ref_value(&m, start, 1, k, v, expect + 2);
    memo_free(&m);
    assert_int_equal(want, expect);
    thue_solver *s = thue_solver_new(k, v);
    assert_non_null(s);
    int exact;
    assert_int_equal(solve_value(s, start, 1, 0, &exact), want);
    assert_true(exact);
    thue_solver_free(s);
}

/* From [0]: the values below are those of the reference (asserted equal inside); the
 * literal numbers pin them so that a change in both at once is noticed. k = 3 square
 * agrees with the known result (the builder forces a square by length 5). */
static void test_values_from_start(void **state)
{
    (void)state;
    check_start(2, THUE_SQUARE, 1);
    check_start(3, THUE_SQUARE, 3);
    check_start(4, THUE_SQUARE, 5);
    check_start(2, THUE_OVERLAP, 3);
    check_start(3, THUE_OVERLAP, 10);
}

/* Every position reachable from [0] with at most `plies` insertions: the solver (one
 * solver, so its table is reused across positions and caps) against the reference for
 * caps 1..4, and uncapped against the reference capped at `deep` (exact when that is
 * below the cap, else a lower bound the solver must reach too). */
static void all_positions(thue_solver *s, memo *m, uint8_t *w, int n, int k, thue_variant v,
                          int plies, int deep, long *count)
{
    int exact;
    int want = ref_capped(m, w, n, deep, k, v);
    /* Uncapped only where the game is known to be finite (square k <= 4, overlap
     * k <= 3); for larger k the solver is capped at `deep` like the reference. */
    int finite = v == THUE_SQUARE ? k <= 4 : k <= 3;
    int got = solve_value(s, w, n, finite ? 0 : deep, &exact);
    assert_true(!finite || exact);
    if (want < deep) {
        assert_int_equal(got, want);
        assert_true(exact);
    } else {
        assert_true(got >= deep);
    }
    for (int cap = 1; cap <= 4; cap++) {
        int capped = solve_value(s, w, n, cap, &exact);
        assert_int_equal(capped, ref_capped(m, w, n, cap, k, v));
        assert_int_equal(exact, got < cap);
    }
    (*count)++;
    if (plies == 0)
        return;
    uint64_t safe[MAXW + 2];
    assert_int_equal(thue_legal_map(NULL, w, n, k, v, safe), 0);
    for (int i = 0; i <= n; i++)
        for (int c = 0; c < k; c++)
            if ((safe[i] >> c) & 1) {
                memmove(w + i + 1, w + i, (size_t)(n - i));
                w[i] = (uint8_t)c;
                all_positions(s, m, w, n + 1, k, v, plies - 1, deep, count);
                memmove(w + i, w + i + 1, (size_t)(n - i));
            }
}

/* The same walk with a solver over a tiny shared table: a few buckets, so entries are
 * replaced all the time (and bounds of other words evicted mid-search); the values must
 * stay exact. */
#define TINY_OVERLAP_MIN 4096 /* bytes */
static void test_tiny_table_stays_exact(void **state)
{
    (void)state;
    size_t sizes[] = {64, 256, 4096};
    struct {
        int k;
        thue_variant v;
        int plies, deep;
    } cases[] = {{3, THUE_SQUARE, 4, 6}, {4, THUE_SQUARE, 2, 7}, {3, THUE_OVERLAP, 2, 6}};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (size_t x = 0; x < sizeof cases / sizeof cases[0]; x++) {
            if (sizes[z] < TINY_OVERLAP_MIN && cases[x].v == THUE_OVERLAP)
                continue; /* overlap k = 3 (value 10) is too slow with a 16-entry table */
            thue_solve_table *t = thue_solve_table_new(sizes[z]);
            assert_non_null(t);
            assert_int_equal(thue_solve_table_entries(t), sizes[z] / 16);
            memo m = {0};
            thue_solver *s = thue_solver_new_shared(cases[x].k, cases[x].v, t);
            assert_non_null(s);
            uint8_t w[MAXW + 1] = {0};
            long count = 0;
            all_positions(s, &m, w, 1, cases[x].k, cases[x].v, cases[x].plies, cases[x].deep,
                          &count);
            assert_true(count > 5);
            assert_true(thue_solve_table_used(t) <= thue_solve_table_entries(t));
            thue_solver_free(s);
            thue_solve_table_free(t);
            memo_free(&m);
        }
}

/* Random clean words grown one safe insertion at a time (k = 2..9, both variants, up to
 * 62 symbols): the solver's one-word legal map equals the engine's at every step. */
static void test_short_map_matches_engine(void **state)
{
    (void)state;
    uint64_t r = 0x2545f4914f6cdd1dULL;
    long maps = 0;
    for (int rep = 0; rep < 300; rep++)
        for (int v = 0; v < 2; v++)
            for (int k = 2; k <= 9; k++) {
                uint8_t w[64];
                uint64_t a[64], b[64];
                int n = 0;
                r = r * 6364136223846793005ULL + 1442695040888963407ULL;
                int target = (int)((r >> 33) % 62);
                while (n < target) {
                    assert_int_equal(thue_legal_map(NULL, w, n, k, (thue_variant)v, a), 0);
                    thue__short_map(w, n, k, (thue_variant)v, b);
                    assert_memory_equal(a, b, (size_t)(n + 1) * sizeof(uint64_t));
                    maps++;
                    int open = 0;
                    for (int i = 0; i <= n; i++)
                        open += a[i] != 0;
                    if (open == 0)
                        break;
                    int i;
                    do {
                        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
                        i = (int)((r >> 33) % (uint64_t)(n + 1));
                    } while (a[i] == 0);
                    uint64_t m = a[i];
                    for (int skip = (int)((r >> 20) % (uint64_t)__builtin_popcountll(m)); skip > 0;
                         skip--)
                        m &= m - 1;
                    memmove(w + i + 1, w + i, (size_t)(n - i));
                    w[i] = (uint8_t)__builtin_ctzll(m);
                    n++;
                }
            }
    assert_true(maps > 10000);
}

/* Two threads solving one word on one table (the main search and a helper) give the
 * main search the value one thread finds alone. */
typedef struct helper_arg {
    thue_solver *s;
    const uint8_t *w;
    int n, cap;
    atomic_int *stop;
    thue_solve_result r;
} helper_arg;

static void helper_run(void *p)
{
    helper_arg *h = p;
    thue_solve_limits lim = {.max_depth = h->cap, .stop = h->stop, .helper = 1};
    assert_int_equal(thue_solve(h->s, h->w, h->n, &lim, &h->r), 0);
}

static void test_threads_agree(void **state)
{
    (void)state;
    struct {
        int k;
        thue_variant v;
        uint8_t w[8];
        int n, cap;
    } cases[] = {{5, THUE_SQUARE, {0}, 1, 11},
                 {5, THUE_SQUARE, {0, 1, 2, 0, 3}, 5, 9},
                 {3, THUE_OVERLAP, {0}, 1, 0},
                 {4, THUE_SQUARE, {0, 1}, 2, 0},
                 {6, THUE_OVERLAP, {0, 1, 0}, 3, 8}};
    for (size_t x = 0; x < sizeof cases / sizeof cases[0]; x++) {
        thue_solver *one = thue_solver_new(cases[x].k, cases[x].v);
        thue_solve_limits lim = {.max_depth = cases[x].cap};
        thue_solve_result alone, main_r;
        assert_int_equal(thue_solve(one, cases[x].w, cases[x].n, &lim, &alone), 0);
        thue_solver_free(one);

        thue_solve_table *t = thue_solve_table_new((size_t)1 << 20);
        thue_solver *a = thue_solver_new_shared(cases[x].k, cases[x].v, t);
        helper_arg h = {thue_solver_new_shared(cases[x].k, cases[x].v, t),
                        cases[x].w,
                        cases[x].n,
                        cases[x].cap,
                        NULL,
                        {0}};
        atomic_int stop;
        atomic_init(&stop, 0);
        h.stop = &stop;
        uv_thread_t tid;
        assert_int_equal(uv_thread_create(&tid, helper_run, &h), 0);
        assert_int_equal(thue_solve(a, cases[x].w, cases[x].n, &lim, &main_r), 0);
        atomic_store(&stop, 1);
        uv_thread_join(&tid);
        assert_int_equal(main_r.value, alone.value);
        assert_int_equal(main_r.exact, alone.exact);
        assert_int_equal(main_r.depth, alone.depth);
        assert_int_equal(main_r.pv_len, alone.pv_len);
        thue_solver_free(a);
        thue_solver_free(h.s);
        thue_solve_table_free(t);
    }
}

static void test_table_bad_arguments(void **state)
{
    (void)state;
    assert_null(thue_solve_table_new(0));
    assert_null(thue_solve_table_new(63));
    assert_null(thue_solve_table_new(SIZE_MAX));
    assert_null(thue_solver_new_shared(3, THUE_SQUARE, NULL));
    thue_solve_table *t = thue_solve_table_new(64);
    assert_null(thue_solver_new_shared(1, THUE_SQUARE, t));
    thue_solve_table_free(t);
    thue_solve_table_free(NULL);
}

static void test_every_position_against_reference(void **state)
{
    (void)state;
    struct {
        int k;
        thue_variant v;
        int plies, deep;
    } cases[] = {{2, THUE_SQUARE, 3, 6}, {3, THUE_SQUARE, 4, 6},  {4, THUE_SQUARE, 3, 7},
                 {5, THUE_SQUARE, 2, 4}, {2, THUE_OVERLAP, 4, 6}, {3, THUE_OVERLAP, 2, 6}};
    for (size_t x = 0; x < sizeof cases / sizeof cases[0]; x++) {
        memo m = {0};
        thue_solver *s = thue_solver_new(cases[x].k, cases[x].v);
        uint8_t w[MAXW + 1] = {0};
        long count = 0;
        all_positions(s, &m, w, 1, cases[x].k, cases[x].v, cases[x].plies, cases[x].deep, &count);
        assert_true(count > 5);
        thue_solver_free(s);
        memo_free(&m);
    }
}

/* The symmetries, with the reference (which knows nothing of them): relabelling the
 * symbols and reversing the word keep the value (capped at SYM_CAP, which is as good:
 * V_d = min(V, d)), on every position of a few plies. */
#define SYM_CAP 5
static void symmetry_walk(memo *m, uint8_t *w, int n, int k, thue_variant v, int plies)
{
    int base = ref_capped(m, w, n, SYM_CAP, k, v);
    uint8_t x[MAXW + 1];
    for (int j = 0; j < n; j++)
        x[j] = w[n - 1 - j];
    assert_int_equal(ref_capped(m, x, n, SYM_CAP, k, v), base);
    for (int j = 0; j < n; j++) /* a rotation of the alphabet: a relabelling */
        x[j] = (uint8_t)((w[j] + 1) % k);
    assert_int_equal(ref_capped(m, x, n, SYM_CAP, k, v), base);
    for (int j = 0; j < n; j++) /* swapping two symbols */
        x[j] = w[j] == 0 ? 1 : w[j] == 1 ? 0 : w[j];
    assert_int_equal(ref_capped(m, x, n, SYM_CAP, k, v), base);
    uint8_t c1[MAXW + 1], c2[MAXW + 1];
    thue_canonical(w, n, c1);
    thue_canonical(x, n, c2);
    assert_memory_equal(c1, c2, (size_t)n);
    if (plies == 0)
        return;
    uint64_t safe[MAXW + 2];
    thue_legal_map(NULL, w, n, k, v, safe);
    for (int i = 0; i <= n; i++)
        for (int c = 0; c < k; c++)
            if ((safe[i] >> c) & 1) {
                memmove(w + i + 1, w + i, (size_t)(n - i));
                w[i] = (uint8_t)c;
                symmetry_walk(m, w, n + 1, k, v, plies - 1);
                memmove(w + i, w + i + 1, (size_t)(n - i));
            }
}

static void test_symmetries_keep_the_value(void **state)
{
    (void)state;
    for (int v = 0; v < 2; v++)
        for (int k = 3; k <= 4; k++) {
            memo m = {0};
            uint8_t w[MAXW + 1] = {0};
            symmetry_walk(&m, w, 1, k, (thue_variant)v, v == 0 ? 4 : 3);
            memo_free(&m);
        }
}

static void test_canonical_form(void **state)
{
    (void)state;
    const uint8_t a[] = {2, 0, 1, 0}, b[] = {0, 1, 2, 1}, c[] = {3, 1, 3, 0};
    uint8_t ca[4], cb[4], cc[4];
    thue_canonical(a, 4, ca); /* 2010 -> 0121 forward, 0102 reversed -> 0102 */
    thue_canonical(b, 4, cb); /* 0121 forward, 1210 reversed -> 0102 */
    thue_canonical(c, 4, cc); /* 3130 -> 0102; reversed 0313 -> 0121 */
    const uint8_t ea[] = {0, 1, 0, 2}, eb[] = {0, 1, 0, 2}, ec[] = {0, 1, 0, 2};
    assert_memory_equal(ca, ea, 4);
    assert_memory_equal(cb, eb, 4);
    assert_memory_equal(cc, ec, 4);
}

/* The principal variation replays legally: every insertion but the last is safe, the
 * last makes a repetition, and the painter scores exactly the value. */
static void test_principal_variation_replays(void **state)
{
    (void)state;
    for (int v = 0; v < 2; v++)
        for (int k = 2; k <= (v == 0 ? 4 : 3); k++) {
            thue_solver *s = thue_solver_new(k, (thue_variant)v);
            uint8_t w[64] = {0};
            int n = 1;
            thue_solve_result r;
            assert_int_equal(thue_solve(s, w, n, NULL, &r), 0);
            assert_true(r.exact);
            assert_int_equal(r.pv_len, r.value + 1);
            for (int x = 0; x < r.pv_len; x++) {
                int i = r.pv[x][0], c = r.pv[x][1];
                int hit = thue_check_insert(w, n, (thue_variant)v, i, c, NULL);
                assert_int_equal(hit, x == r.pv_len - 1);
                memmove(w + i + 1, w + i, (size_t)(n - i));
                w[i] = (uint8_t)c;
                n++;
            }
            thue_solver_free(s);
        }
}

static void test_budget_and_caps(void **state)
{
    (void)state;
    const uint8_t start[1] = {0};
    thue_solver *s = thue_solver_new(5, THUE_SQUARE);
    thue_solve_limits lim = {.max_depth = 6};
    thue_solve_result r;
    /* k = 5: the painter survives at least 6 more insertions (not exact). */
    assert_int_equal(thue_solve(s, start, 1, &lim, &r), 0);
    assert_int_equal(r.value, 6);
    assert_false(r.exact);
    assert_int_equal(r.depth, 6);
    assert_int_equal(r.pv_len, 6);
    thue_solver_free(s);
    /* A tiny node budget stops early with a proven lower bound. */
    s = thue_solver_new(3, THUE_OVERLAP);
    thue_solve_limits tiny = {.node_budget = 50};
    assert_int_equal(thue_solve(s, start, 1, &tiny, &r), 0);
    assert_false(r.exact);
    assert_true(r.value < 10);
    assert_true(r.nodes <= 50);
    thue_solver_free(s);
}

static void test_bad_input(void **state)
{
    (void)state;
    assert_null(thue_solver_new(1, THUE_SQUARE));
    assert_null(thue_solver_new(65, THUE_SQUARE));
    assert_null(thue_solver_new(3, (thue_variant)5));
    thue_solver *s = thue_solver_new(3, THUE_SQUARE);
    thue_solve_result r;
    const uint8_t sq[] = {0, 1, 0, 1}, big[] = {0, 3};
    assert_int_equal(thue_solve(s, sq, 4, NULL, &r), THUE_EREPEAT);
    assert_int_equal(thue_solve(s, big, 2, NULL, &r), THUE_ESYMBOL);
    assert_int_equal(thue_solve(s, sq, -1, NULL, &r), THUE_ETOOLONG);
    /* the empty word: any first symbol, then as from [0] */
    assert_int_equal(thue_solve(s, sq, 0, NULL, &r), 0);
    assert_int_equal(r.value, 4);
    thue_solver_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical_form),
        cmocka_unit_test(test_values_from_start),
        cmocka_unit_test(test_every_position_against_reference),
        cmocka_unit_test(test_symmetries_keep_the_value),
        cmocka_unit_test(test_principal_variation_replays),
        cmocka_unit_test(test_budget_and_caps),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_tiny_table_stays_exact),
        cmocka_unit_test(test_short_map_matches_engine),
        cmocka_unit_test(test_threads_agree),
        cmocka_unit_test(test_table_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
