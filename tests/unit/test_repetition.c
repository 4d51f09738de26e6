/*
 * test_repetition.c: the repetition queries against the naive reference (naive.c).
 *
 * - golden vectors (tests/vectors/engine.txt) and the worked example of RULES.md;
 * - every word reachable in play up to length 12 for k = 2, 3, 4, both variants: the
 *   legal-move map and every insertion check against the naive full rescan;
 * - every word (clean or not) up to a length for small k: the full check;
 * - random long words reached by play (n up to 2000, k up to 64) and highly structured
 *   words (Thue-Morse and its square-free ternary derivative), where long near-repeats
 *   exercise the rare paths of the bit-parallel map.
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
#include "games/thue/engine/repetition.h"
#include "games/thue/engine/word.h"
#include "naive.h"

/* xorshift64*: a small deterministic generator for the random tests. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}
static int rnd_below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static void assert_same_rep(int found_a, const thue_repetition *a, int found_b,
                            const thue_repetition *b)
{
    assert_int_equal(found_a, found_b);
    if (found_a) {
        assert_int_equal(a->start, b->start);
        assert_int_equal(a->period, b->period);
        assert_int_equal(a->length, b->length);
    }
}

static void print_word(const char *what, const uint8_t *w, int n)
{
    fprintf(stderr, "%s [", what);
    for (int i = 0; i < n; i++)
        fprintf(stderr, i ? ",%d" : "%d", w[i]);
    fprintf(stderr, "] (n=%d)\n", n);
}

/*
 * Checks one clean word completely: the map against naive_safe_at at every position,
 * and every insertion check (found or not, and which repetition) against the naive full
 * rescan of the new word. Returns the map in safe (n+1 entries).
 */
static void check_position_fully(thue_scan *s, const uint8_t *w, int n, int k, thue_variant v,
                                 uint64_t *safe, uint8_t *buf)
{
    assert_int_equal(thue_legal_map(s, w, n, k, v, safe), 0);
    for (int i = 0; i <= n; i++) {
        uint64_t want = 0;
        for (int c = 0; c < k; c++) {
            thue_repetition a, b;
            int fa = thue_check_insert(w, n, v, i, c, &a);
            int fb = naive_check_insert(w, n, v, i, c, buf, &b);
            if (fa != fb || (fa && (a.start != b.start || a.period != b.period))) {
                print_word("insertion check differs on", w, n);
                fprintf(stderr, "variant %s i=%d c=%d\n", thue_variant_name(v), i, c);
            }
            assert_same_rep(fa, &a, fb, &b);
            if (fa) /* the repetition a clean word gains always holds the new symbol */
                assert_true(a.start <= i && i < a.start + a.length);
            want |= (uint64_t)(fb == 0) << c;
        }
        if (safe[i] != want) {
            print_word("map differs on", w, n);
            fprintf(stderr, "variant %s k=%d position %d: engine %#llx naive %#llx\n",
                    thue_variant_name(v), k, i, (unsigned long long)safe[i],
                    (unsigned long long)want);
        }
        assert_int_equal(safe[i], want);
    }
}

/* ---- golden vectors ---------------------------------------------------------------- */

/* Parses "a,b,c" (or "-" for empty) into out; returns the count. */
static int parse_list(const char *text, uint8_t *out, int max)
{
    int n = 0;
    if (strcmp(text, "-") == 0)
        return 0;
    for (const char *p = text; *p;) {
        assert_true(n < max);
        out[n++] = (uint8_t)strtol(p, (char **)&p, 10);
        if (*p == ',')
            p++;
    }
    return n;
}

#define MAXV 100000

static void test_vectors_file(void **state)
{
    (void)state;
    FILE *f = fopen(THUE_VECTORS_DIR "/engine.txt", "r");
    assert_non_null(f);
    static char line[1 << 20];
    int checks = 0, maps = 0;
    thue_scan *s = thue_scan_new();
    thue_word w;
    thue_word_init(&w);
    static uint8_t syms[MAXV];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *save = NULL;
        char *kind = strtok_r(line, " ", &save);
        char *var = strtok_r(NULL, " ", &save);
        thue_variant v;
        assert_int_equal(thue_variant_parse(var, &v), 0);
        if (strcmp(kind, "check") == 0) {
            char *word = strtok_r(NULL, " ", &save);
            assert_int_equal(thue_word_assign(&w, syms, parse_list(word, syms, MAXV)), 0);
            char *a = strtok_r(NULL, " ", &save);
            thue_repetition got, naive;
            int found = thue_check_word(s, w.sym, w.len, v, &got);
            assert_same_rep(found, &got, naive_check(w.sym, w.len, v, &naive), &naive);
            if (strcmp(a, "none") == 0) {
                assert_int_equal(found, 0);
            } else {
                assert_int_equal(found, 1);
                assert_int_equal(got.start, atoi(a));
                assert_int_equal(got.period, atoi(strtok_r(NULL, " ", &save)));
                assert_int_equal(got.length, atoi(strtok_r(NULL, " ", &save)));
            }
            checks++;
        } else {
            assert_string_equal(kind, "moves");
            int k = atoi(strtok_r(NULL, " ", &save));
            char *word = strtok_r(NULL, " ", &save);
            char *safetext = strtok_r(NULL, " ", &save);
            assert_int_equal(thue_word_assign(&w, syms, parse_list(word, syms, MAXV)), 0);
            uint64_t *safe = calloc((size_t)w.len + 1, sizeof *safe);
            assert_int_equal(thue_legal_map(s, w.sym, w.len, k, v, safe), 0);
            int i = 0;
            for (char *tok = strtok_r(safetext, ";", &save); tok;
                 tok = strtok_r(NULL, ";", &save)) {
                uint8_t list[64];
                int m = parse_list(tok, list, 64);
                uint64_t want = 0;
                for (int j = 0; j < m; j++)
                    want |= (uint64_t)1 << list[j];
                assert_true(i <= w.len);
                assert_int_equal(safe[i], want);
                i++;
            }
            assert_int_equal(i, w.len + 1);
            free(safe);
            maps++;
        }
    }
    fclose(f);
    thue_word_free(&w);
    thue_scan_free(s);
    assert_true(checks >= 10);
    assert_true(maps >= 10);
}

/* ---- the worked example ------------------------------------------------------------ */

static void test_worked_example(void **state)
{
    (void)state;
    /* [0] -> 0 2 -> 0 1 2 -> 0 1 2 1 -> 0 1 2 1 2 (square 12|12 at 1..4), k = 3. */
    uint8_t w[8] = {0};
    int n = 1;
    int moves[4][2] = {{1, 2}, {1, 1}, {3, 1}, {4, 2}};
    thue_repetition rep;
    for (int m = 0; m < 4; m++) {
        int i = moves[m][0], c = moves[m][1];
        int found = thue_check_insert(w, n, THUE_SQUARE, i, c, &rep);
        assert_int_equal(found, m == 3);
        memmove(w + i + 1, w + i, (size_t)(n - i));
        w[i] = (uint8_t)c;
        n++;
    }
    assert_int_equal(rep.start, 1);
    assert_int_equal(rep.period, 2);
    assert_int_equal(rep.length, 4);
    assert_int_equal(thue_check_word(NULL, w, n, THUE_SQUARE, &rep), 1);
    assert_int_equal(rep.start, 1);
    assert_int_equal(rep.period, 2);
}

static void test_small_definitions(void **state)
{
    (void)state;
    thue_repetition r;
    const uint8_t aa[] = {0, 0}, aaa[] = {0, 0, 0}, abab[] = {0, 1, 0, 1},
                  ababa[] = {0, 1, 0, 1, 0};
    assert_int_equal(thue_check_word(NULL, aa, 2, THUE_SQUARE, &r), 1);
    assert_int_equal(r.length, 2);
    assert_int_equal(thue_check_word(NULL, aa, 2, THUE_OVERLAP, &r), 0);
    assert_int_equal(thue_check_word(NULL, aaa, 3, THUE_OVERLAP, &r), 1);
    assert_int_equal(r.start, 0);
    assert_int_equal(r.period, 1);
    assert_int_equal(r.length, 3);
    assert_int_equal(thue_check_word(NULL, abab, 4, THUE_OVERLAP, &r), 0);
    assert_int_equal(thue_check_word(NULL, abab, 4, THUE_SQUARE, &r), 1);
    assert_int_equal(r.period, 2);
    assert_int_equal(thue_check_word(NULL, ababa, 5, THUE_OVERLAP, &r), 1);
    assert_int_equal(r.period, 2);
    assert_int_equal(r.length, 5);
    /* The empty word and one symbol are clean; every symbol is safe in them. */
    uint64_t safe[2];
    assert_int_equal(thue_legal_map(NULL, aa, 0, 5, THUE_SQUARE, safe), 0);
    assert_int_equal(safe[0], 0x1f);
    assert_int_equal(thue_legal_map(NULL, aa, 1, 2, THUE_SQUARE, safe), 0);
    assert_int_equal(safe[0], 2);
    assert_int_equal(safe[1], 2);
    assert_int_equal(thue_legal_map(NULL, aa, 1, 2, THUE_OVERLAP, safe), 0);
    assert_int_equal(safe[0], 3);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const uint8_t w[] = {0, 1, 2};
    uint64_t safe[4];
    thue_repetition r;
    assert_int_equal(thue_legal_map(NULL, w, 3, 1, THUE_SQUARE, safe), THUE_EK);
    assert_int_equal(thue_legal_map(NULL, w, 3, 65, THUE_SQUARE, safe), THUE_EK);
    assert_int_equal(thue_legal_map(NULL, w, 3, 2, THUE_SQUARE, safe), THUE_ESYMBOL);
    assert_int_equal(thue_legal_map(NULL, w, 3, 3, (thue_variant)7, safe), THUE_EINVAL);
    assert_int_equal(thue_legal_map(NULL, w, -1, 3, THUE_SQUARE, safe), THUE_EINVAL);
    assert_int_equal(thue_check_insert(w, 3, THUE_SQUARE, 4, 0, &r), THUE_EPOSITION);
    assert_int_equal(thue_check_insert(w, 3, THUE_SQUARE, -1, 0, &r), THUE_EPOSITION);
    assert_int_equal(thue_check_insert(w, 3, THUE_SQUARE, 0, 64, &r), THUE_ESYMBOL);
    assert_int_equal(thue_check_insert(w, 3, THUE_SQUARE, 0, -1, &r), THUE_ESYMBOL);
    assert_int_equal(thue_check_word(NULL, w, 3, (thue_variant)-1, &r), THUE_EINVAL);
    thue_variant v;
    assert_int_equal(thue_variant_parse("Square", &v), THUE_EVARIANT);
    assert_int_equal(thue_variant_parse("overlap", &v), 0);
    assert_int_equal(v, THUE_OVERLAP);
    assert_null(thue_variant_name((thue_variant)3));
}

/* ---- exhaustive over reachable words ------------------------------------------------ */

#define EXH_MAXLEN 12

/* Words of one length over k <= 4 symbols as base-4 numbers, in a bitmap. */
static uint64_t code_of(const uint8_t *w, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++)
        x = x * 4 + w[i];
    return x;
}

static void decode(uint64_t x, uint8_t *w, int n)
{
    for (int i = n - 1; i >= 0; i--, x /= 4)
        w[i] = (uint8_t)(x % 4);
}

static void exhaustive(int k, thue_variant v, long *counted)
{
    thue_scan *s = thue_scan_new();
    uint64_t *cur = calloc(1, sizeof(uint64_t)), *next = NULL;
    cur[0] = 1; /* the word [0] */
    uint8_t w[EXH_MAXLEN + 1], child[EXH_MAXLEN + 2], buf[EXH_MAXLEN + 2];
    uint64_t safe[EXH_MAXLEN + 2];
    for (int n = 1; n <= EXH_MAXLEN; n++) {
        size_t words_now = n >= 3 ? ((size_t)1 << (2 * n)) / 64 : 1;
        size_t words_next = n + 1 >= 3 ? ((size_t)1 << (2 * (n + 1))) / 64 : 1;
        if (n < EXH_MAXLEN)
            next = calloc(words_next, sizeof(uint64_t));
        long here = 0;
        for (size_t t = 0; t < words_now; t++) {
            for (uint64_t bitsleft = cur[t]; bitsleft; bitsleft &= bitsleft - 1) {
                decode(t * 64 + (uint64_t)__builtin_ctzll(bitsleft), w, n);
                check_position_fully(s, w, n, k, v, safe, buf);
                here++;
                if (n == EXH_MAXLEN)
                    continue;
                for (int i = 0; i <= n; i++)
                    for (int c = 0; c < k; c++)
                        if ((safe[i] >> c) & 1) {
                            memcpy(child, w, (size_t)i);
                            child[i] = (uint8_t)c;
                            memcpy(child + i + 1, w + i, (size_t)(n - i));
                            uint64_t x = code_of(child, n + 1);
                            next[x / 64] |= (uint64_t)1 << (x % 64);
                        }
            }
        }
        *counted += here;
        free(cur);
        cur = next;
        next = NULL;
        if (cur == NULL)
            break;
    }
    free(cur);
    thue_scan_free(s);
}

static void test_exhaustive_square(void **state)
{
    (void)state;
    long counted = 0;
    for (int k = 2; k <= 4; k++)
        exhaustive(k, THUE_SQUARE, &counted);
    /* k=2: 0,01,010 and their kin; k=3 and 4 grow fast: far more than a few. */
    assert_true(counted > 100000);
    fprintf(stderr, "square: %ld reachable positions checked\n", counted);
}

static void test_exhaustive_overlap(void **state)
{
    (void)state;
    long counted = 0;
    for (int k = 2; k <= 4; k++)
        exhaustive(k, THUE_OVERLAP, &counted);
    assert_true(counted > 1000000);
    fprintf(stderr, "overlap: %ld reachable positions checked\n", counted);
}

/* Every word of length up to maxlen over k symbols, clean or not: the full check. */
static void all_words_full_check(int k, int maxlen)
{
    thue_scan *s = thue_scan_new();
    uint8_t w[32];
    for (int n = 0; n <= maxlen; n++) {
        long total = 1;
        for (int i = 0; i < n; i++)
            total *= k;
        for (long x = 0; x < total; x++) {
            long y = x;
            for (int i = 0; i < n; i++, y /= k)
                w[i] = (uint8_t)(y % k);
            for (int v = 0; v < 2; v++) {
                thue_repetition a, b;
                int fa = thue_check_word(s, w, n, (thue_variant)v, &a);
                int fb = naive_check(w, n, (thue_variant)v, &b);
                if (fa != fb || (fa && (a.start != b.start || a.period != b.period)))
                    print_word("full check differs on", w, n);
                assert_same_rep(fa, &a, fb, &b);
            }
        }
    }
    thue_scan_free(s);
}

static void test_full_check_all_small_words(void **state)
{
    (void)state;
    all_words_full_check(2, 18);
    all_words_full_check(3, 11);
    all_words_full_check(4, 8);
}

/* ---- random and structured long words ---------------------------------------------- */

/* Grows a clean word by random play (a random position that has a safe symbol, then a
 * random safe symbol) up to length n; returns the length reached. */
static int random_play(thue_scan *s, uint8_t *w, int n, int k, thue_variant v, uint64_t *safe)
{
    int len = 1;
    w[0] = (uint8_t)rnd_below(k);
    while (len < n) {
        assert_int_equal(thue_legal_map(s, w, len, k, v, safe), 0);
        int options = 0;
        for (int i = 0; i <= len; i++)
            options += safe[i] != 0;
        if (options == 0)
            break;
        int pick = rnd_below(options), i = 0;
        for (;; i++)
            if (safe[i] != 0 && pick-- == 0)
                break;
        int cnt = __builtin_popcountll(safe[i]), which = rnd_below(cnt), c = 0;
        for (;; c++)
            if (((safe[i] >> c) & 1) && which-- == 0)
                break;
        memmove(w + i + 1, w + i, (size_t)(len - i));
        w[i] = (uint8_t)c;
        len++;
    }
    return len;
}

/* For a long clean word: the map against the insertion check at every (i, c) (both
 * fast), and against the naive rescan at `samples` random positions (all symbols). */
static void check_long_word(thue_scan *s, const uint8_t *w, int n, int k, thue_variant v,
                            int samples)
{
    uint64_t *safe = malloc(((size_t)n + 1) * sizeof *safe);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_int_equal(thue_legal_map(s, w, n, k, v, safe), 0);
    for (int i = 0; i <= n; i++)
        for (int c = 0; c < k; c++) {
            int hit = thue_check_insert(w, n, v, i, c, NULL);
            if (hit == (int)((safe[i] >> c) & 1)) {
                print_word("map vs insertion check differ on", w, n);
                fprintf(stderr, "variant %s k=%d i=%d c=%d\n", thue_variant_name(v), k, i, c);
            }
            assert_int_equal(hit, !((safe[i] >> c) & 1));
        }
    for (int t = 0; t < samples; t++) {
        int i = rnd_below(n + 1);
        assert_int_equal(safe[i], naive_safe_at(w, n, k, v, i, buf));
        int c = rnd_below(k);
        thue_repetition a, b;
        int fa = thue_check_insert(w, n, v, i, c, &a);
        int fb = naive_check_insert(w, n, v, i, c, buf, &b);
        assert_same_rep(fa, &a, fb, &b);
        if (fa) {
            /* The insertion check reports what the full check finds in the new word. */
            thue_repetition full;
            assert_int_equal(thue_check_word(s, buf, n + 1, v, &full), 1);
            assert_same_rep(1, &full, 1, &a);
        }
    }
    thue_repetition none;
    assert_int_equal(thue_check_word(s, w, n, v, &none), 0);
    free(buf);
    free(safe);
}

static void test_random_long_words(void **state)
{
    (void)state;
    thue_scan *s = thue_scan_new();
    const int ks[] = {3, 4, 5, 7, 12, 33, 64};
    const int lens[] = {60, 300, 2000};
    uint8_t *w = malloc(2001);
    uint64_t *safe = malloc(2002 * sizeof *safe);
    for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
        for (size_t b = 0; b < sizeof lens / sizeof lens[0]; b++)
            for (int v = 0; v < 2; v++) {
                int k = ks[a];
                int n = random_play(s, w, lens[b], k, (thue_variant)v, safe);
                check_long_word(s, w, n, k, (thue_variant)v, lens[b] >= 2000 ? 8 : 40);
            }
    free(safe);
    free(w);
    thue_scan_free(s);
}

/* Thue-Morse t(j) = parity of the bits of j: overlap-free over 2 symbols, full of long
 * squares; its difference word (t(j) xor t(j+1) plus t(j)) ... we use the classic
 * square-free ternary word: the number of 1s between consecutive 0s of Thue-Morse. */
static int thue_morse(int j)
{
    return __builtin_popcount((unsigned)j) & 1;
}

static void test_structured_words(void **state)
{
    (void)state;
    thue_scan *s = thue_scan_new();
    int n = 1500;
    uint8_t *w = malloc((size_t)n + 64);
    /* Overlap-free binary word: the hardest case for the overlap map (runs everywhere). */
    for (int j = 0; j < n; j++)
        w[j] = (uint8_t)thue_morse(j);
    for (int k = 2; k <= 5; k += 3)
        check_long_word(s, w, n, k, THUE_OVERLAP, 30);
    /* Square-free ternary word from Thue-Morse. */
    int len = 0;
    for (int j = 0; len < n; j++) {
        if (thue_morse(j) != 0)
            continue;
        int ones = 0;
        while (thue_morse(j + 1 + ones) == 1)
            ones++;
        w[len++] = (uint8_t)ones;
    }
    for (int k = 3; k <= 4; k++) {
        check_long_word(s, w, n, k, THUE_SQUARE, 30);
        check_long_word(s, w, n, k, THUE_OVERLAP, 30);
    }
    free(w);
    thue_scan_free(s);
}

/* Random words with repetitions: the full check against the naive one. */
static void test_random_full_check(void **state)
{
    (void)state;
    thue_scan *s = thue_scan_new();
    uint8_t w[700];
    for (int t = 0; t < 3000; t++) {
        int k = 2 + rnd_below(t % 3 == 0 ? 63 : 6);
        int n = rnd_below(t % 10 == 0 ? 700 : 60);
        for (int i = 0; i < n; i++)
            w[i] = (uint8_t)rnd_below(k);
        for (int v = 0; v < 2; v++) {
            thue_repetition a, b;
            int fa = thue_check_word(s, w, n, (thue_variant)v, &a);
            assert_same_rep(fa, &a, naive_check(w, n, (thue_variant)v, &b), &b);
        }
    }
    thue_scan_free(s);
}

/* argv[1], when given, is a cmocka filter pattern ("test_exhaustive_*"); argv[2] a
 * pattern to skip. ctest runs the slow exhaustive tests as their own entries. */
int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0])
        cmocka_set_test_filter(argv[1]);
    if (argc > 2 && argv[2][0])
        cmocka_set_skip_filter(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),    cmocka_unit_test(test_small_definitions),
        cmocka_unit_test(test_bad_arguments),     cmocka_unit_test(test_vectors_file),
        cmocka_unit_test(test_random_full_check), cmocka_unit_test(test_full_check_all_small_words),
        cmocka_unit_test(test_random_long_words), cmocka_unit_test(test_structured_words),
        cmocka_unit_test(test_exhaustive_square), cmocka_unit_test(test_exhaustive_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
