/*
 * test_word_errors.c: the X-macro error list (base/errors.h): every code's name and
 * message, "ok" and unknown codes, and the wire names that must never change.
 */
#include "word_helpers.h"

/* ---------------------------------------------------------------- errors */

struct err_entry {
    int code;
    const char *wire;
    const char *msg;
};

static const struct err_entry ERRS[] = {
#define ENTRY(name, value, wire, msg) {THUE_##name, wire, msg},
    THUE_ERRNO_MAP(ENTRY)
#undef ENTRY
};
#define NERRS ((int)(sizeof ERRS / sizeof ERRS[0]))

static int is_snake_case(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
            return 0;
    return 1;
}

static void test_errors_every_code(void **state)
{
    (void)state;
    assert_true(NERRS > 0);
    for (int i = 0; i < NERRS; i++) {
        int code = ERRS[i].code;
        assert_true(code < 0);
        const char *name = thue_err_name(code);
        const char *msg = thue_strerror(code);
        assert_non_null(name);
        assert_non_null(msg);
        assert_string_equal(name, ERRS[i].wire);
        assert_string_equal(msg, ERRS[i].msg);
        if (!is_snake_case(name))
            fail_msg("name of %d is \"%s\", not snake_case", code, name);
        assert_true(strlen(msg) > 0);
        assert_string_not_equal(name, "unknown_error");
        assert_string_not_equal(name, "ok");
        assert_string_not_equal(msg, "unknown error");
        for (int j = 0; j < i; j++) {
            assert_int_not_equal(code, ERRS[j].code);
            assert_string_not_equal(name, thue_err_name(ERRS[j].code));
            assert_string_not_equal(msg, thue_strerror(ERRS[j].code));
        }
    }
}

static void test_errors_ok_and_unknown(void **state)
{
    (void)state;
    assert_string_equal(thue_err_name(0), "ok");
    assert_non_null(thue_strerror(0));
    assert_string_not_equal(thue_strerror(0), "unknown error");
    /* -(NERRS + 1): the first code past the list (the codes are -1..-NERRS) */
    for (int j = 0; j < NERRS; j++)
        assert_int_not_equal(ERRS[j].code, -(NERRS + 1));
    const int unknown[] = {-999, 5, 1, -(NERRS + 1), -2147483647 - 1, 2147483647};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_string_equal(thue_err_name(unknown[i]), "unknown_error");
        assert_string_equal(thue_strerror(unknown[i]), "unknown error");
    }
}

/* The wire names are sent to clients: they must never change. */
static void test_errors_stable_names(void **state)
{
    (void)state;
    assert_string_equal(thue_err_name(THUE_ETURN), "not_your_turn");
    assert_string_equal(thue_err_name(THUE_EPOSITION), "bad_position");
    assert_string_equal(thue_err_name(THUE_ESYMBOL), "bad_symbol");
    assert_string_equal(thue_err_name(THUE_EOVER), "match_over");
    assert_string_equal(thue_err_name(THUE_EWORD), "bad_word");
    assert_string_equal(thue_err_name(THUE_ETOOLONG), "word_too_long");
    assert_string_equal(thue_err_name(THUE_EK), "bad_k");
}

/* ---------------------------------------------------------------- main */

/* The one list (THUE_ERRORS): the engine's and games', the protocol's and the store's
 * codes, each in its range, every code, name and message distinct, and thue_strerror /
 * thue_err_name answer for all of them. */
static void test_errors_one_list(void **state)
{
    (void)state;
    static const struct {
        int code;
        const char *wire, *msg;
    } all[] = {
#define ALL_ENTRY(name, value, wire, msg) {value, wire, msg},
        THUE_ERRORS(ALL_ENTRY)
#undef ALL_ENTRY
    };
    int n = (int)(sizeof all / sizeof all[0]), ranges[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        assert_true(all[i].code < 0 && all[i].code > -300);
        ranges[(-all[i].code) / 100]++;
        assert_string_equal(thue_err_name(all[i].code), all[i].wire);
        assert_string_equal(thue_strerror(all[i].code), all[i].msg);
        for (int j = 0; j < i; j++) {
            assert_int_not_equal(all[i].code, all[j].code);
            assert_string_not_equal(all[i].wire, all[j].wire);
        }
    }
    assert_true(ranges[0] >= 20 && ranges[1] >= 28 && ranges[2] == 4);
    assert_string_equal(thue_err_name(THUE_STORE_EIO), "store_failed");
    assert_string_equal(thue_err_name(THUE_PERR_RATE), "rate_limited");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors_every_code),
        cmocka_unit_test(test_errors_ok_and_unknown),
        cmocka_unit_test(test_errors_stable_names),
        cmocka_unit_test(test_errors_one_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
