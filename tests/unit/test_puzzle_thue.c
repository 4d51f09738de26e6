/*
 * test_puzzle_thue.c: Thue's point-saving puzzles (search/puzzle.h, "Thue") against a
 * reference that shares no code with the solver or the engine: a plain memoised minimax
 * of the definition over words checked for squares and overlaps by brute force. Every
 * generated puzzle is read back from its JSON texts only (options, position, solution):
 * the mover's one best move must be the stored solution, every other move must give at
 * least one point away, the stored value must be the round's points with best play, and a
 * painter's puzzle must have two safe symbols at least. Also: the finder's refusals, a
 * stopped solver finding nothing, and the same seed giving the same puzzles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/errors.h"
#include "games/game.h"
#include "search/puzzle.h"

#define WANT 48
#define WORD_MAX 40

/* ---- the reference ---------------------------------------------------------------------- */

static int rk, rlimit, roverlap;

/* Whether w[0..n) holds a square (uu) or, for overlaps, a factor of length 2p + 1 with
 * period p: every factor tried. */
static int naive_repeats(const uint8_t *w, int n)
{
    for (int p = 1; 2 * p <= n; p++) {
        int len = roverlap ? 2 * p + 1 : 2 * p;
        for (int s = 0; s + len <= n; s++) {
            int ok = 1;
            for (int j = s; j + p < s + len && ok; j++)
                ok = w[j] == w[j + p];
            if (ok)
                return 1;
        }
    }
    return 0;
}

/* The memo: the builder's value of each word met, keyed by its length and its symbols
 * read as a number in base k (31 symbols of k <= 4 fit in 64 bits; longer words are not
 * memoised). */
enum { MEMO_SLOTS = 1 << 20 };
typedef struct slot {
    uint64_t key;
    int n;
    int value; /* -1: empty */
} slot;
static slot *memo;

static uint64_t key_of(const uint8_t *w, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++)
        x = x * (uint64_t)rk + w[i];
    return x;
}

static void reference(int k, int limit, int overlap)
{
    rk = k, rlimit = limit, roverlap = overlap;
    if (memo == NULL)
        memo = malloc(MEMO_SLOTS * sizeof *memo);
    assert_non_null(memo);
    for (int i = 0; i < MEMO_SLOTS; i++)
        memo[i].value = -1;
}

static int ref_builder(const uint8_t *w, int n);

/* The word w with c inserted at i, into x. */
static void insert(const uint8_t *w, int n, int i, int c, uint8_t *x)
{
    memcpy(x, w, (size_t)i);
    x[i] = (uint8_t)c;
    memcpy(x + i + 1, w + i, (size_t)(n - i));
}

/* The painter's further points by symbol c at place i: 0 when it makes a repetition. */
static int ref_symbol(const uint8_t *w, int n, int i, int c)
{
    uint8_t x[WORD_MAX + 2];
    insert(w, n, i, c, x);
    if (naive_repeats(x, n + 1))
        return 0;
    return 1 + ref_builder(x, n + 1);
}

/* The painter's best at place i. */
static int ref_place(const uint8_t *w, int n, int i)
{
    int best = 0;
    for (int c = 0; c < rk; c++) {
        int v = ref_symbol(w, n, i, c);
        if (v > best)
            best = v;
    }
    return best;
}

/* The builder's value: the least over places of the painter's best; 0 at the limit (a
 * word of n symbols holds n - 1 points). */
static int ref_builder(const uint8_t *w, int n)
{
    if (n - 1 >= rlimit)
        return 0;
    assert_true(n <= WORD_MAX);
    uint64_t key = key_of(w, n);
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull + (uint64_t)n) >> 44) % MEMO_SLOTS;
    int memoise = n <= 31;
    if (memoise)
        for (size_t j = h;; j = (j + 1) % MEMO_SLOTS) {
            if (memo[j].value < 0)
                break;
            if (memo[j].key == key && memo[j].n == n)
                return memo[j].value;
        }
    int best = 1 << 20;
    for (int i = 0; i <= n; i++) {
        int v = ref_place(w, n, i);
        if (v < best)
            best = v;
    }
    if (memoise) {
        size_t j = h;
        while (memo[j].value >= 0)
            j = (j + 1) % MEMO_SLOTS;
        memo[j].key = key, memo[j].n = n, memo[j].value = best;
    }
    return best;
}

/* ---- reading the puzzles back ------------------------------------------------------------ */

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    if (j == NULL)
        fail_msg("bad JSON %s: %s", text, je.text);
    return j;
}

static int ival(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        fail_msg("%s is not an integer", key);
    return (int)json_integer_value(v);
}

static const char *sval(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_string(v))
        fail_msg("%s is not a string", key);
    return json_string_value(v);
}

/* Seen per option set (by k and variant) and per role, over a test's puzzles. */
static int seen_set[2][5], seen_role[2];

/* Checks one puzzle by the reference, from its texts alone. */
static void check_item(const thue_puzzle_item *it)
{
    json_t *o = parse(it->options), *p = parse(it->position), *s = parse(it->solution);
    int k = ival(o, "k"), limit = ival(o, "limit");
    const char *variant = sval(o, "variant");
    assert_true(strcmp(variant, "square") == 0 || strcmp(variant, "overlap") == 0);
    int overlap = strcmp(variant, "overlap") == 0;
    assert_true(k >= 3 && k <= 4);
    if (rk != k || rlimit != limit || roverlap != overlap)
        reference(k, limit, overlap);

    json_t *wj = json_object_get(p, "word");
    assert_true(json_is_array(wj));
    int n = (int)json_array_size(wj);
    assert_true(n >= 1 && n <= WORD_MAX && n - 1 < limit);
    uint8_t w[WORD_MAX + 2];
    for (int i = 0; i < n; i++) {
        json_t *x = json_array_get(wj, (size_t)i);
        assert_true(json_is_integer(x));
        assert_true(json_integer_value(x) >= 0 && json_integer_value(x) < k);
        w[i] = (uint8_t)json_integer_value(x);
    }
    assert_false(naive_repeats(w, n));
    const char *step = sval(p, "step"), *role = sval(p, "to_move_role");
    int paint = strcmp(step, "paint") == 0;
    assert_true(paint || strcmp(step, "place") == 0);
    assert_string_equal(role, paint ? "painter" : "builder");
    assert_int_equal(it->p.mover, paint);
    seen_role[paint]++;
    seen_set[overlap][k]++;

    /* Every move's value, and the mover's best: the builder's least, the painter's most. */
    int vals[WORD_MAX + 2] = {0}, count = paint ? k : n + 1, safe = 0, placed = -1;
    if (paint) {
        placed = ival(p, "placed");
        assert_true(placed >= 0 && placed <= n);
        for (int c = 0; c < k; c++) {
            vals[c] = ref_symbol(w, n, placed, c);
            safe += vals[c] > 0;
        }
        assert_true(safe >= 2);
    } else {
        for (int i = 0; i <= n; i++)
            vals[i] = ref_place(w, n, i);
    }
    int best = 0;
    for (int m = 1; m < count; m++)
        if (paint ? vals[m] > vals[best] : vals[m] < vals[best])
            best = m;
    int ties = 0;
    for (int m = 0; m < count; m++)
        ties += vals[m] == vals[best];
    if (ties != 1)
        fail_msg("%s %s: %d moves keep %d points", it->options, it->position, ties, vals[best]);
    assert_int_equal(json_object_size(s), 1);
    assert_int_equal(ival(s, paint ? "paint" : "place"), best);
    assert_int_equal(it->p.solution.v[0], paint);
    assert_int_equal(it->p.solution.v[1], best);
    assert_int_equal(it->p.value, n - 1 + vals[best]);
    assert_int_equal(it->p.moves, count);
    assert_true(it->p.difficulty >= 1 && it->p.difficulty <= 5);
    json_decref(o);
    json_decref(p);
    json_decref(s);
}

static const thue_gamedef *thue(void)
{
    const thue_gamedef *g = thue_game_find("thue");
    assert_non_null(g);
    return g;
}

static void free_items(thue_puzzle_item *it, int n)
{
    for (int i = 0; i < n; i++)
        thue_puzzle_item_free(&it[i]);
}

/* ---- the tests ------------------------------------------------------------------------- */

/* Generated puzzles of every option set and both roles, each against the reference. */
static void test_puzzle_thue_minimax(void **state)
{
    (void)state;
    thue_puzzle_item items[WANT];
    int found = -1;
    memset(seen_set, 0, sizeof seen_set);
    memset(seen_role, 0, sizeof seen_role);
    assert_int_equal(thue_puzzle_generate(thue(), 1, 2000, NULL, items, WANT, &found), 0);
    if (found != WANT)
        fail_msg("%d Thue puzzles from 2000 rounds", found);
    for (int i = 0; i < found; i++)
        check_item(&items[i]);
    /* square k = 3 and 4, overlap k = 3; the builder's and the painter's */
    assert_true(seen_set[0][3] > 0 && seen_set[0][4] > 0 && seen_set[1][3] > 0);
    assert_true(seen_role[0] > 0 && seen_role[1] > 0);
    free_items(items, found);
}

/* The finder on chosen positions: the answers the reference gives, refusals. */
static void test_puzzle_thue_check(void **state)
{
    (void)state;
    thue_puzzle p;
    /* Square, k = 3, [0 1 0] with the builder to move: the places, by the reference. */
    reference(3, 10, 0);
    const uint8_t w[] = {0, 1, 0};
    int vals[4], min = 100, at = -1, ties = 0;
    for (int i = 0; i <= 3; i++) {
        vals[i] = ref_place(w, 3, i);
        if (vals[i] < min)
            min = vals[i], at = i;
    }
    for (int i = 0; i <= 3; i++)
        ties += vals[i] == min;
    int r = thue_puzzle_check_thue(3, THUE_SQUARE, 10, w, 3, -1, NULL, &p);
    assert_int_equal(r, ties == 1);
    if (r == 1) {
        assert_int_equal(p.solution.v[0], 0);
        assert_int_equal(p.solution.v[1], at);
    }
    /* The painter at the end of [0 1]: only 0 and 2 are safe... [0 1 0] and [0 1 2]: by
     * the reference, a puzzle exactly when their values differ. */
    const uint8_t w2[] = {0, 1};
    int a = ref_symbol(w2, 2, 2, 0), b = ref_symbol(w2, 2, 2, 2);
    assert_int_equal(ref_symbol(w2, 2, 2, 1), 0);
    r = thue_puzzle_check_thue(3, THUE_SQUARE, 10, w2, 2, 2, NULL, &p);
    assert_int_equal(r, a != b);
    /* One safe symbol only is no puzzle: k = 2, [0 1] at its end (0 1 0 is square-free,
     * 0 1 1 is not). */
    assert_int_equal(thue_puzzle_check_thue(2, THUE_SQUARE, 100, w2, 2, 2, NULL, &p), 0);
    /* At the limit the round is over. */
    assert_int_equal(thue_puzzle_check_thue(3, THUE_SQUARE, 2, w, 3, -1, NULL, &p), 0);
    /* Bad arguments: a symbol out of range, a word with a square, a place past the end. */
    const uint8_t bad[] = {0, 0};
    assert_int_equal(thue_puzzle_check_thue(3, THUE_SQUARE, 100, bad, 2, -1, NULL, &p),
                     THUE_EINVAL);
    assert_int_equal(
        thue_puzzle_check_thue(2, THUE_SQUARE, 100, (const uint8_t[]){0, 2}, 2, -1, NULL, &p),
        THUE_EINVAL);
    assert_int_equal(thue_puzzle_check_thue(3, THUE_SQUARE, 100, w, 3, 4, NULL, &p), THUE_EINVAL);
}

/* A solver stopped before it starts decides nothing, so there is no puzzle at all. */
static void test_puzzle_thue_stopped(void **state)
{
    (void)state;
    atomic_int stop = 1;
    thue_bot_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.stop = &stop;
    thue_puzzle_item items[4];
    int found = -1;
    assert_int_equal(thue_puzzle_generate(thue(), 5, 20, &lim, items, 4, &found), 0);
    assert_int_equal(found, 0);
    /* A one-node budget cannot decide overlap k = 3 from [0 1 2]. */
    memset(&lim, 0, sizeof lim);
    lim.node_budget = 1;
    thue_puzzle p;
    const uint8_t w[] = {0, 1, 2};
    assert_int_equal(thue_puzzle_check_thue(3, THUE_OVERLAP, 100, w, 3, -1, &lim, &p), 0);
}

/* The same seed gives the same puzzles. */
static void test_puzzle_thue_deterministic(void **state)
{
    (void)state;
    thue_puzzle_item a[6], b[6];
    int na = -1, nb = -1;
    assert_int_equal(thue_puzzle_generate(thue(), 99, 200, NULL, a, 6, &na), 0);
    assert_int_equal(thue_puzzle_generate(thue(), 99, 200, NULL, b, 6, &nb), 0);
    assert_int_equal(na, 6);
    assert_int_equal(nb, na);
    for (int i = 0; i < na; i++) {
        assert_string_equal(a[i].options, b[i].options);
        assert_string_equal(a[i].position, b[i].position);
        assert_string_equal(a[i].solution, b[i].solution);
        assert_int_equal(a[i].seed, b[i].seed);
    }
    free_items(a, na);
    free_items(b, nb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_puzzle_thue_minimax),
        cmocka_unit_test(test_puzzle_thue_check),
        cmocka_unit_test(test_puzzle_thue_stopped),
        cmocka_unit_test(test_puzzle_thue_deterministic),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    free(memo);
    return r;
}
