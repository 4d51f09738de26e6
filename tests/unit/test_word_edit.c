/*
 * test_word_edit.c: words as growable arrays (games/thue/engine/word.h): init/free,
 * reserve, assign, insert and remove at every place, every error path followed by a check
 * that the word is unchanged, the THUE_WORD_MAX limit, random edits against a plain array,
 * check_k and the largest symbol. Random data comes from a fixed-seed xorshift64.
 */
#include "word_helpers.h"

/* ---------------------------------------------------------------- init, free, reserve */

static void test_init_is_empty(void **state)
{
    (void)state;
    thue_word w;
    memset(&w, 0xab, sizeof w);
    thue_word_init(&w);
    assert_null(w.sym);
    assert_int_equal(w.len, 0);
    assert_int_equal(w.cap, 0);
}

static void test_free_twice_and_null(void **state)
{
    (void)state;
    thue_word w;
    make_pi(&w);
    thue_word_free(&w);
    assert_null(w.sym);
    assert_int_equal(w.len, 0);
    assert_int_equal(w.cap, 0);
    thue_word_free(&w); /* a freed word is an empty word: freeing again is fine */
    assert_null(w.sym);
    thue_word_free(NULL);

    /* A freed word is usable again. */
    assert_int_equal(thue_word_insert(&w, 0, 7), 0);
    assert_word_is(&w, SYMS(7), 1);
    thue_word_free(&w);
}

static void test_reserve_grows_and_keeps(void **state)
{
    (void)state;
    thue_word w;
    make_pi(&w);
    assert_int_equal(thue_word_reserve(&w, 0), 0);
    assert_int_equal(thue_word_reserve(&w, 1000), 0);
    assert_true(w.cap >= 1000);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    int cap = w.cap;
    assert_int_equal(thue_word_reserve(&w, 10), 0); /* never shrinks */
    assert_int_equal(w.cap, cap);
    assert_int_equal(thue_word_reserve(&w, THUE_WORD_MAX), 0);
    assert_int_equal(w.cap, THUE_WORD_MAX);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    thue_word_free(&w);

    thue_word e;
    thue_word_init(&e);
    assert_int_equal(thue_word_reserve(&e, 0), 0);
    assert_int_equal(e.len, 0);
    assert_int_equal(thue_word_reserve(&e, 1), 0);
    assert_non_null(e.sym);
    assert_true(e.cap >= 1);
    thue_word_free(&e);
}

static void test_reserve_limits(void **state)
{
    (void)state;
    thue_word w;
    make_pi(&w);
    int cap = w.cap;
    assert_int_equal(thue_word_reserve(&w, THUE_WORD_MAX + 1), THUE_ETOOLONG);
    assert_int_equal(thue_word_reserve(&w, -1), THUE_ETOOLONG);
    assert_int_equal(thue_word_reserve(&w, -2147483647 - 1), THUE_ETOOLONG);
    assert_int_equal(thue_word_reserve(&w, 2147483647), THUE_ETOOLONG);
    assert_int_equal(w.cap, cap);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    thue_word_free(&w);
}

/* ---------------------------------------------------------------- assign */

static void test_assign_replaces(void **state)
{
    (void)state;
    thue_word w;
    make_pi(&w);
    assert_int_equal(thue_word_assign(&w, SYMS(0, 63, 2), 3), 0);
    assert_word_is(&w, SYMS(0, 63, 2), 3);
    assert_int_equal(thue_word_assign(&w, NULL, 0), 0);
    assert_int_equal(w.len, 0);

    /* Assigning part of the word's own symbols (overlapping buffers). */
    thue_word_free(&w);
    make_pi(&w);
    assert_int_equal(thue_word_assign(&w, w.sym + 2, 3), 0);
    assert_word_is(&w, SYMS(4, 1, 5), 3);
    thue_word_free(&w);
}

static void test_assign_bad_symbol_unchanged(void **state)
{
    (void)state;
    thue_word w;
    make_pi(&w);
    assert_int_equal(thue_word_assign(&w, SYMS(0, 1, 64), 3), THUE_ESYMBOL);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    assert_int_equal(thue_word_assign(&w, SYMS(255), 1), THUE_ESYMBOL);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    assert_int_equal(thue_word_assign(&w, SYMS(63), 1), 0);
    assert_word_is(&w, SYMS(63), 1);
    thue_word_free(&w);
}

static void test_assign_length_limits(void **state)
{
    (void)state;
    uint8_t *big = calloc(THUE_WORD_MAX + 1, 1);
    assert_non_null(big);
    thue_word w;
    make_pi(&w);
    assert_int_equal(thue_word_assign(&w, big, THUE_WORD_MAX + 1), THUE_ETOOLONG);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    assert_int_equal(thue_word_assign(&w, big, -1), THUE_ETOOLONG);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    assert_int_equal(thue_word_assign(&w, big, THUE_WORD_MAX), 0);
    assert_int_equal(w.len, THUE_WORD_MAX);
    thue_word_free(&w);
    free(big);
}

/* ---------------------------------------------------------------- insert, remove */

static void test_insert_front_middle_end(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    assert_int_equal(thue_word_insert(&w, 0, 5), 0); /* into the empty word */
    assert_word_is(&w, SYMS(5), 1);
    assert_int_equal(thue_word_insert(&w, 0, 1), 0); /* front */
    assert_word_is(&w, SYMS(1, 5), 2);
    assert_int_equal(thue_word_insert(&w, 2, 9), 0); /* end (i = len) */
    assert_word_is(&w, SYMS(1, 5, 9), 3);
    assert_int_equal(thue_word_insert(&w, 1, 0), 0); /* middle */
    assert_word_is(&w, SYMS(1, 0, 5, 9), 4);
    assert_int_equal(thue_word_insert(&w, 3, 63), 0); /* largest symbol */
    assert_word_is(&w, SYMS(1, 0, 5, 63, 9), 5);
    thue_word_free(&w);
}

static void test_insert_bad_position_unchanged(void **state)
{
    (void)state;
    thue_word w;
    make_pi(&w);
    assert_int_equal(thue_word_insert(&w, -1, 0), THUE_EPOSITION);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    assert_int_equal(thue_word_insert(&w, PI_LEN + 1, 0), THUE_EPOSITION);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    assert_int_equal(thue_word_insert(&w, -2147483647 - 1, 0), THUE_EPOSITION);
    assert_int_equal(thue_word_insert(&w, 2147483647, 0), THUE_EPOSITION);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    /* Position is checked before the symbol. */
    assert_int_equal(thue_word_insert(&w, -1, 64), THUE_EPOSITION);
    thue_word_free(&w);

    thue_word e;
    thue_word_init(&e);
    assert_int_equal(thue_word_insert(&e, 1, 0), THUE_EPOSITION);
    assert_int_equal(e.len, 0);
    assert_null(e.sym);
    thue_word_free(&e);
}

static void test_insert_bad_symbol_unchanged(void **state)
{
    (void)state;
    thue_word w;
    make_pi(&w);
    static const int bad[] = {-1, 64, 65, 255, 256, -256, 2147483647, -2147483647 - 1};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        for (int i = 0; i <= PI_LEN; i++) {
            assert_int_equal(thue_word_insert(&w, i, bad[j]), THUE_ESYMBOL);
            assert_word_is(&w, PI_SYMS, PI_LEN);
        }
    }
    thue_word_free(&w);
}

static void test_remove_front_middle_end(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    assert_int_equal(thue_word_assign(&w, SYMS(1, 2, 3, 4, 5), 5), 0);
    assert_int_equal(thue_word_remove(&w, 0), 0); /* front */
    assert_word_is(&w, SYMS(2, 3, 4, 5), 4);
    assert_int_equal(thue_word_remove(&w, 3), 0); /* end */
    assert_word_is(&w, SYMS(2, 3, 4), 3);
    assert_int_equal(thue_word_remove(&w, 1), 0); /* middle */
    assert_word_is(&w, SYMS(2, 4), 2);
    assert_int_equal(thue_word_remove(&w, 1), 0);
    assert_int_equal(thue_word_remove(&w, 0), 0);
    assert_int_equal(w.len, 0);
    assert_int_equal(thue_word_remove(&w, 0), THUE_EPOSITION); /* empty */
    assert_int_equal(w.len, 0);
    thue_word_free(&w);
}

static void test_remove_bad_position_unchanged(void **state)
{
    (void)state;
    thue_word w;
    make_pi(&w);
    static const int bad[] = {-1, PI_LEN, PI_LEN + 1, -2147483647 - 1, 2147483647};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        assert_int_equal(thue_word_remove(&w, bad[j]), THUE_EPOSITION);
        assert_word_is(&w, PI_SYMS, PI_LEN);
    }
    thue_word_free(&w);

    thue_word e;
    thue_word_init(&e);
    assert_int_equal(thue_word_remove(&e, 0), THUE_EPOSITION);
    assert_int_equal(thue_word_remove(&e, -1), THUE_EPOSITION);
    thue_word_free(&e);
}

static void test_insert_up_to_max(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    for (int i = 0; i < THUE_WORD_MAX; i++)
        assert_int_equal(thue_word_insert(&w, w.len, i % 64), 0);
    assert_int_equal(w.len, THUE_WORD_MAX);
    assert_int_equal(w.cap, THUE_WORD_MAX);

    assert_int_equal(thue_word_insert(&w, w.len, 0), THUE_ETOOLONG);
    assert_int_equal(thue_word_insert(&w, 0, 0), THUE_ETOOLONG);
    assert_int_equal(thue_word_insert(&w, THUE_WORD_MAX / 2, 0), THUE_ETOOLONG);
    assert_int_equal(w.len, THUE_WORD_MAX);
    for (int i = 0; i < THUE_WORD_MAX; i++)
        if (w.sym[i] != i % 64)
            fail_msg("sym[%d] = %d after a refused insert, expected %d", i, w.sym[i], i % 64);

    /* Room again after a remove. */
    assert_int_equal(thue_word_remove(&w, 0), 0);
    assert_int_equal(thue_word_insert(&w, 0, 0), 0);
    assert_int_equal(w.len, THUE_WORD_MAX);
    thue_word_free(&w);
}

/* Insert and remove against a plain array, at random places. */
static void test_insert_remove_random_against_array(void **state)
{
    (void)state;
    rng_seed(0x5eed0001);
    static uint8_t ref[2048];
    int n = 0;
    thue_word w;
    thue_word_init(&w);
    for (int step = 0; step < 50000; step++) {
        if (n < (int)sizeof ref && (n == 0 || rnd_below(3) != 0)) {
            int i = rnd_range(0, n);
            int c = rnd_below(64);
            assert_int_equal(thue_word_insert(&w, i, c), 0);
            memmove(ref + i + 1, ref + i, (size_t)(n - i));
            ref[i] = (uint8_t)c;
            n++;
        } else {
            int i = rnd_below(n);
            assert_int_equal(thue_word_remove(&w, i), 0);
            memmove(ref + i, ref + i + 1, (size_t)(n - i - 1));
            n--;
        }
        assert_word_is(&w, ref, n);
    }
    thue_word_free(&w);
}

/* ---------------------------------------------------------------- check_k, max_symbol */

static void test_check_k(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    /* The empty word fits every k; k itself is still checked. */
    assert_int_equal(thue_word_check_k(&w, 2), 0);
    assert_int_equal(thue_word_check_k(&w, 64), 0);
    assert_int_equal(thue_word_check_k(&w, 1), THUE_EK);
    assert_int_equal(thue_word_check_k(&w, 65), THUE_EK);

    assert_int_equal(thue_word_assign(&w, SYMS(0, 2, 1), 3), 0);
    assert_int_equal(thue_word_check_k(&w, 2), THUE_ESYMBOL);
    assert_int_equal(thue_word_check_k(&w, 3), 0);
    assert_int_equal(thue_word_check_k(&w, 64), 0);
    assert_int_equal(thue_word_check_k(&w, 0), THUE_EK);
    assert_int_equal(thue_word_check_k(&w, -1), THUE_EK);
    assert_int_equal(thue_word_check_k(&w, 1), THUE_EK);
    assert_int_equal(thue_word_check_k(&w, 65), THUE_EK);

    assert_int_equal(thue_word_assign(&w, SYMS(63), 1), 0);
    assert_int_equal(thue_word_check_k(&w, 63), THUE_ESYMBOL);
    assert_int_equal(thue_word_check_k(&w, 64), 0);
    thue_word_free(&w);
}

static void test_max_symbol(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    assert_int_equal(thue_word_max_symbol(&w), -1);
    assert_int_equal(thue_word_assign(&w, SYMS(0), 1), 0);
    assert_int_equal(thue_word_max_symbol(&w), 0);
    assert_int_equal(thue_word_assign(&w, SYMS(3, 9, 2), 3), 0);
    assert_int_equal(thue_word_max_symbol(&w), 9);
    assert_int_equal(thue_word_assign(&w, SYMS(63, 0, 10), 3), 0);
    assert_int_equal(thue_word_max_symbol(&w), 63);
    assert_int_equal(thue_word_assign(&w, NULL, 0), 0);
    assert_int_equal(thue_word_max_symbol(&w), -1);
    thue_word_free(&w);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_is_empty),
        cmocka_unit_test(test_free_twice_and_null),
        cmocka_unit_test(test_reserve_grows_and_keeps),
        cmocka_unit_test(test_reserve_limits),
        cmocka_unit_test(test_assign_replaces),
        cmocka_unit_test(test_assign_bad_symbol_unchanged),
        cmocka_unit_test(test_assign_length_limits),
        cmocka_unit_test(test_insert_front_middle_end),
        cmocka_unit_test(test_insert_bad_position_unchanged),
        cmocka_unit_test(test_insert_bad_symbol_unchanged),
        cmocka_unit_test(test_remove_front_middle_end),
        cmocka_unit_test(test_remove_bad_position_unchanged),
        cmocka_unit_test(test_insert_up_to_max),
        cmocka_unit_test(test_insert_remove_random_against_array),
        cmocka_unit_test(test_check_k),
        cmocka_unit_test(test_max_symbol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
