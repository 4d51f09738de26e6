/*
 * test_word_text.c: words' text forms (games/thue/engine/word.h). Parse: every accepted form, and
 * every rejected one with its code and the exact byte offset reported in err_at; a failed
 * parse leaves the word as it was. Format: styles, snprintf-like truncation,
 * parse(format(w)) == w on random words; a fuzz-style run of random byte strings through
 * parse. Random data comes from a fixed-seed xorshift64.
 */
#include "word_helpers.h"

/* Same contents (length and symbols), capacity aside. */
static void assert_same_word(const thue_word *a, const thue_word *b)
{
    assert_int_equal(a->len, b->len);
    if (a->len > 0)
        assert_memory_equal(a->sym, b->sym, (size_t)a->len);
}

static void copy_word(thue_word *dst, const thue_word *src)
{
    assert_int_equal(thue_word_assign(dst, src->sym, src->len), 0);
}

/* text must parse to sym[0..n-1], into a word that held something else before. */
static void check_parse(const char *text, const uint8_t *sym, int n)
{
    thue_word w;
    make_pi(&w);
    int at = -12345;
    int err = thue_word_parse(&w, text, &at);
    if (err != 0)
        fail_msg("parse(\"%s\") = %d (%s) at %d, expected success", text, err, thue_err_name(err),
                 at);
    assert_int_equal(at, -12345); /* err_at is only written on error */
    assert_word_is(&w, sym, n);
    thue_word_free(&w);
}

/* text must fail with code at byte offset at, leaving the word as it was. */
static void check_parse_fails(const char *text, int code, int at)
{
    thue_word w;
    make_pi(&w);
    int got_at = -12345;
    int err = thue_word_parse(&w, text, &got_at);
    if (err != code || got_at != at)
        fail_msg("parse(\"%s\") = %d (%s) at %d, expected %d (%s) at %d", text ? text : "(null)",
                 err, thue_err_name(err), got_at, code, thue_err_name(code), at);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    /* err_at may be NULL. */
    assert_int_equal(thue_word_parse(&w, text, NULL), code);
    assert_word_is(&w, PI_SYMS, PI_LEN);
    thue_word_free(&w);
}
#define NSYMS(...) ((int)sizeof((const uint8_t[]){__VA_ARGS__}))
#define CHECK_PARSE(text, ...) check_parse((text), SYMS(__VA_ARGS__), NSYMS(__VA_ARGS__))

/* Formats w into a malloc'd string (checked against the returned length). */
static char *format_new(const thue_word *w, thue_word_format_style style)
{
    int need = thue_word_format(w, style, NULL, 0);
    assert_true(need >= 0);
    char *buf = malloc((size_t)need + 1);
    assert_non_null(buf);
    memset(buf, 'X', (size_t)need + 1);
    assert_int_equal(thue_word_format(w, style, buf, (size_t)need + 1), need);
    assert_int_equal(strlen(buf), (size_t)need);
    return buf;
}

static void random_word(thue_word *w, int len, int k)
{
    w->len = 0;
    for (int i = 0; i < len; i++)
        assert_int_equal(thue_word_insert(w, i, rnd_below(k)), 0);
}

/* parse(format(w, style)) == w, with a message naming the text when it is not. Frees its
 * own memory before failing, so that a failure does not show up as a leak under ASan. */
static void check_round_trip(const thue_word *w, thue_word_format_style style)
{
    char *text = format_new(w, style);
    thue_word back;
    thue_word_init(&back);
    int at = -1;
    int err = thue_word_parse(&back, text, &at);
    char msg[160] = "";
    if (err != 0)
        snprintf(msg, sizeof msg, "format style %d gave \"%.40s\", which does not parse: %s at %d",
                 (int)style, text, thue_err_name(err), at);
    else if (back.len != w->len || (w->len > 0 && memcmp(back.sym, w->sym, (size_t)w->len) != 0))
        snprintf(msg, sizeof msg,
                 "format style %d gave \"%.40s\" (len %d word), which parses to a len %d word",
                 (int)style, text, w->len, back.len);
    thue_word_free(&back);
    free(text);
    if (msg[0] != '\0')
        fail_msg("%s", msg);
}

/* ---------------------------------------------------------------- parse */

static void test_parse_digits(void **state)
{
    (void)state;
    CHECK_PARSE("0121", 0, 1, 2, 1);
    CHECK_PARSE("0", 0);
    CHECK_PARSE("9876543210", 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    CHECK_PARSE("  0121  ", 0, 1, 2, 1); /* surrounding spaces */
    CHECK_PARSE("\t01\t", 0, 1);
    CHECK_PARSE("12", 1, 2); /* digit by digit */
    CHECK_PARSE("64", 6, 4);
}

static void test_parse_commas(void **state)
{
    (void)state;
    CHECK_PARSE("0,1,12", 0, 1, 12);
    CHECK_PARSE(" 0 , 1 ", 0, 1);
    CHECK_PARSE("0 ,1,  2", 0, 1, 2);
    CHECK_PARSE("63,0,10", 63, 0, 10);
    CHECK_PARSE("007,00", 7, 0); /* leading zeros */
    CHECK_PARSE("0000000000000000000000063,1", 63, 1);
}

static void test_parse_brackets(void **state)
{
    (void)state;
    CHECK_PARSE("[0,1,12]", 0, 1, 12);
    CHECK_PARSE("[12]", 12);
    CHECK_PARSE("12", 1, 2);
    CHECK_PARSE("[63]", 63);
    CHECK_PARSE("[0]", 0);
    CHECK_PARSE(" [ 0 , 1 ] ", 0, 1);
    CHECK_PARSE("[1,2]", 1, 2);
}

static void test_parse_empty(void **state)
{
    (void)state;
    check_parse("", NULL, 0);
    check_parse("[]", NULL, 0);
    check_parse("  ", NULL, 0);
    check_parse("[ ]", NULL, 0);
    check_parse(" [  ] ", NULL, 0);
    check_parse("\t", NULL, 0);
}

static void test_parse_errors_at_offset(void **state)
{
    (void)state;
    check_parse_fails("01a2", THUE_EWORD, 2);
    check_parse_fails("0,,1", THUE_EWORD, 2);
    check_parse_fails("0,1,", THUE_EWORD, 4);
    check_parse_fails(",0", THUE_EWORD, 0);
    check_parse_fails(",", THUE_EWORD, 0);
    check_parse_fails("[0,1", THUE_EWORD, 4);
    check_parse_fails("[", THUE_EWORD, 1);
    check_parse_fails("0,1]", THUE_EWORD, 3);
    check_parse_fails("]", THUE_EWORD, 0);
    check_parse_fails("1 2", THUE_EWORD, 1);
    check_parse_fails("-1", THUE_EWORD, 0);
    check_parse_fails("0,-1", THUE_EWORD, 2);
    check_parse_fails("0 1,2", THUE_EWORD, 2);
    check_parse_fails("[,]", THUE_EWORD, 1);
    check_parse_fails("[[0]]", THUE_EWORD, 1);
    check_parse_fails("[0,1]]", THUE_EWORD, 4);
    check_parse_fails("x", THUE_EWORD, 0);
    check_parse_fails("0\n", THUE_EWORD, 1);
    check_parse_fails("+1,2", THUE_EWORD, 0);
}

static void test_parse_symbol_too_large(void **state)
{
    (void)state;
    check_parse_fails("[64]", THUE_ESYMBOL, 1);
    check_parse_fails("0,64", THUE_ESYMBOL, 2);
    check_parse_fails("0, 99", THUE_ESYMBOL, 3);
    check_parse_fails("0,100000000000000000000", THUE_ESYMBOL, 2);
    check_parse_fails("[99999999999999999999999999999999999999999]", THUE_ESYMBOL, 1);
    check_parse_fails("0,4294967296", THUE_ESYMBOL, 2);           /* 2^32 */
    check_parse_fails("0,18446744073709551616", THUE_ESYMBOL, 2); /* 2^64 */
}

static void test_parse_null_text(void **state)
{
    (void)state;
    check_parse_fails(NULL, THUE_EWORD, 0);
}

static void test_parse_too_long(void **state)
{
    (void)state;
    size_t n = THUE_WORD_MAX + 1;
    char *text = malloc(n + 1);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)('0' + i % 10);
    text[n] = '\0';
    check_parse_fails(text, THUE_ETOOLONG, THUE_WORD_MAX);

    /* Exactly THUE_WORD_MAX digits is fine. */
    text[n - 1] = '\0';
    thue_word w;
    thue_word_init(&w);
    assert_int_equal(thue_word_parse(&w, text, NULL), 0);
    assert_int_equal(w.len, THUE_WORD_MAX);
    assert_int_equal(w.sym[THUE_WORD_MAX - 1], (THUE_WORD_MAX - 1) % 10);
    thue_word_free(&w);
    free(text);
}

static void test_parse_failure_keeps_previous(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    assert_int_equal(thue_word_parse(&w, "[1,20,3]", NULL), 0);
    assert_word_is(&w, SYMS(1, 20, 3), 3);
    int at = -1;
    assert_int_equal(thue_word_parse(&w, "1,2,x", &at), THUE_EWORD);
    assert_int_equal(at, 4);
    assert_word_is(&w, SYMS(1, 20, 3), 3);
    assert_int_equal(thue_word_parse(&w, "[70]", &at), THUE_ESYMBOL);
    assert_word_is(&w, SYMS(1, 20, 3), 3);
    /* A successful parse of the empty word does replace it. */
    assert_int_equal(thue_word_parse(&w, "", NULL), 0);
    assert_int_equal(w.len, 0);
    thue_word_free(&w);
}

/* ---------------------------------------------------------------- format */

static void check_format(const uint8_t *sym, int n, thue_word_format_style style,
                         const char *expected)
{
    thue_word w;
    thue_word_init(&w);
    assert_int_equal(thue_word_assign(&w, sym, n), 0);
    char buf[256];
    memset(buf, 'X', sizeof buf);
    int got = thue_word_format(&w, style, buf, sizeof buf);
    assert_int_equal(got, (int)strlen(expected));
    assert_string_equal(buf, expected);
    thue_word_free(&w);
}

static void test_format_styles(void **state)
{
    (void)state;
    check_format(SYMS(0, 1, 2, 1), 4, THUE_FMT_AUTO, "0121");
    check_format(SYMS(0, 1, 2, 1), 4, THUE_FMT_DIGITS, "0121");
    check_format(SYMS(0, 1, 2, 1), 4, THUE_FMT_COMMAS, "0,1,2,1");
    check_format(SYMS(9, 0), 2, THUE_FMT_AUTO, "90");
    check_format(SYMS(0, 1, 12), 3, THUE_FMT_AUTO, "0,1,12");
    check_format(SYMS(0, 1, 12), 3, THUE_FMT_COMMAS, "0,1,12");
    check_format(SYMS(10, 63, 0), 3, THUE_FMT_AUTO, "10,63,0");
    check_format(SYMS(5), 1, THUE_FMT_COMMAS, "5");
    check_format(NULL, 0, THUE_FMT_AUTO, "");
    check_format(NULL, 0, THUE_FMT_DIGITS, "");
    check_format(NULL, 0, THUE_FMT_COMMAS, "");
}

static void test_format_digits_refuses_large_symbol(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    assert_int_equal(thue_word_assign(&w, SYMS(0, 10, 1), 3), 0);
    char buf[16];
    memcpy(buf, "untouched", 10);
    assert_int_equal(thue_word_format(&w, THUE_FMT_DIGITS, buf, sizeof buf), THUE_ESYMBOL);
    assert_int_equal(thue_word_format(&w, THUE_FMT_DIGITS, NULL, 0), THUE_ESYMBOL);
    assert_int_equal(thue_word_assign(&w, SYMS(63), 1), 0);
    assert_int_equal(thue_word_format(&w, THUE_FMT_DIGITS, buf, sizeof buf), THUE_ESYMBOL);
    assert_int_equal(thue_word_assign(&w, SYMS(9, 9), 2), 0);
    assert_int_equal(thue_word_format(&w, THUE_FMT_DIGITS, buf, sizeof buf), 2);
    assert_string_equal(buf, "99");
    thue_word_free(&w);
}

static void test_format_truncates_like_snprintf(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    assert_int_equal(thue_word_assign(&w, SYMS(0, 1, 12, 63), 4), 0);
    const char *full = "0,1,12,63";
    int len = (int)strlen(full);

    /* size 0: nothing written, buf may be NULL, the full length returned. */
    assert_int_equal(thue_word_format(&w, THUE_FMT_AUTO, NULL, 0), len);
    char buf[32];
    memset(buf, 'X', sizeof buf);
    assert_int_equal(thue_word_format(&w, THUE_FMT_AUTO, buf, 0), len);
    assert_int_equal(buf[0], 'X');

    for (size_t size = 1; size <= (size_t)len + 2; size++) {
        memset(buf, 'X', sizeof buf);
        assert_int_equal(thue_word_format(&w, THUE_FMT_COMMAS, buf, size), len);
        size_t written = size - 1 < (size_t)len ? size - 1 : (size_t)len;
        assert_int_equal(strlen(buf), written);
        assert_memory_equal(buf, full, written);
        /* Nothing past the NUL is touched. */
        for (size_t i = written + 1; i < sizeof buf; i++)
            assert_int_equal(buf[i], 'X');
    }

    /* Same with digits. */
    assert_int_equal(thue_word_assign(&w, SYMS(0, 1, 2, 1), 4), 0);
    memset(buf, 'X', sizeof buf);
    assert_int_equal(thue_word_format(&w, THUE_FMT_DIGITS, buf, 3), 4);
    assert_string_equal(buf, "01");
    assert_int_equal(buf[3], 'X');
    thue_word_free(&w);
}

static void test_format_long_word(void **state)
{
    (void)state;
    thue_word w;
    thue_word_init(&w);
    for (int i = 0; i < THUE_WORD_MAX; i++)
        assert_int_equal(thue_word_insert(&w, i, 63), 0);
    /* THUE_WORD_MAX two-digit numbers and one comma fewer. */
    assert_int_equal(thue_word_format(&w, THUE_FMT_AUTO, NULL, 0), 3 * THUE_WORD_MAX - 1);
    char *text = format_new(&w, THUE_FMT_COMMAS);
    thue_word back;
    thue_word_init(&back);
    assert_int_equal(thue_word_parse(&back, text, NULL), 0);
    assert_same_word(&back, &w);
    thue_word_free(&back);
    free(text);
    thue_word_free(&w);
}

/* A one-symbol word must survive the trip through text in every style that allows it. */
static void test_format_single_symbol_round_trips(void **state)
{
    thue_word *w = &((thue_word *)*state)[0];
    for (int c = 0; c < THUE_K_MAX; c++) {
        assert_int_equal(thue_word_assign(w, SYMS((uint8_t)c), 1), 0);
        check_round_trip(w, THUE_FMT_AUTO);
        check_round_trip(w, THUE_FMT_COMMAS);
        if (c < 10)
            check_round_trip(w, THUE_FMT_DIGITS);
    }
}

static void test_format_parse_round_trip_random(void **state)
{
    thue_word *w = &((thue_word *)*state)[0];
    rng_seed(0x7e57c0de);
    for (int iter = 0; iter < 3000; iter++) {
        int k = rnd_range(THUE_K_MIN, THUE_K_MAX);
        /* Short words often, where the edge cases are. */
        int len = rnd_below(4) == 0 ? rnd_range(0, 3) : rnd_range(0, 300);
        random_word(w, len, k);
        check_round_trip(w, THUE_FMT_AUTO);
        check_round_trip(w, THUE_FMT_COMMAS);
        if (thue_word_max_symbol(w) < 10)
            check_round_trip(w, THUE_FMT_DIGITS);
        else
            assert_int_equal(thue_word_format(w, THUE_FMT_DIGITS, NULL, 0), THUE_ESYMBOL);
    }
}

/* ---------------------------------------------------------------- fuzz */

static char fuzz_byte(void)
{
    static const char common[] = "0123456789,,,[] ";
    int r = rnd_below(100);
    if (r < 50)
        return (char)('0' + rnd_below(10));
    if (r < 80)
        return common[rnd_below((int)sizeof common - 1)];
    if (r < 92)
        return (char)rnd_range(0x20, 0x7e); /* printable */
    return (char)rnd_range(1, 255);         /* anything but NUL */
}

static void test_parse_fuzz(void **state)
{
    thue_word *ws = *state;
    thue_word *w = &ws[0], *before = &ws[1], *back = &ws[2];
    rng_seed(0xf022f022);
    char text[64];
    char shown[64 * 4 + 1];
    int ok = 0;
    for (int iter = 0; iter < 200000; iter++) {
        int n = rnd_range(0, 40);
        for (int i = 0; i < n; i++)
            text[i] = fuzz_byte();
        text[n] = '\0';
        /* A bracketed variant now and then, so that bracket handling gets real input. */
        if (n >= 2 && rnd_below(4) == 0) {
            text[0] = '[';
            text[n - 1] = ']';
        }
        /* Printable form for messages. */
        size_t s = 0;
        for (int i = 0; i < n; i++) {
            unsigned char c = (unsigned char)text[i];
            if (c >= 0x20 && c < 0x7f)
                shown[s++] = (char)c;
            else
                s += (size_t)snprintf(shown + s, sizeof shown - s, "\\x%02x", c);
        }
        shown[s] = '\0';

        /* Start from the previous result (or something random) to catch partial writes. */
        if (rnd_below(8) == 0)
            random_word(w, rnd_range(0, 20), 64);
        copy_word(before, w);
        int at = -12345;
        int err = thue_word_parse(w, text, &at);
        if (err == 0) {
            ok++;
            assert_int_equal(at, -12345);
            assert_true(w->len <= n);
            for (int i = 0; i < w->len; i++)
                if (w->sym[i] >= THUE_K_MAX)
                    fail_msg("parse(\"%s\"): symbol %d at %d", shown, w->sym[i], i);
            char *out = format_new(w, THUE_FMT_COMMAS);
            char msg[512] = "";
            int err2 = thue_word_parse(back, out, NULL);
            if (err2 != 0 || back->len != w->len ||
                (w->len > 0 && memcmp(back->sym, w->sym, (size_t)w->len) != 0))
                snprintf(msg, sizeof msg,
                         "parse(\"%s\") gave a len %d word formatted as \"%.120s\", which "
                         "reparses to %s (len %d)",
                         shown, w->len, out, thue_err_name(err2), back->len);
            free(out);
            if (msg[0] != '\0')
                fail_msg("%s", msg);
        } else {
            if (err != THUE_EWORD && err != THUE_ESYMBOL)
                fail_msg("parse(\"%s\") = %d (%s)", shown, err, thue_err_name(err));
            if (at < 0 || at > n)
                fail_msg("parse(\"%s\") = %s with err_at %d outside 0..%d", shown,
                         thue_err_name(err), at, n);
            assert_same_word(w, before);
        }
    }
    /* The generator must reach both outcomes often for the test to mean anything. */
    assert_true(ok > 10000);
    assert_true(ok < 190000);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_digits),
        cmocka_unit_test(test_parse_commas),
        cmocka_unit_test(test_parse_brackets),
        cmocka_unit_test(test_parse_empty),
        cmocka_unit_test(test_parse_errors_at_offset),
        cmocka_unit_test(test_parse_symbol_too_large),
        cmocka_unit_test(test_parse_null_text),
        cmocka_unit_test(test_parse_too_long),
        cmocka_unit_test(test_parse_failure_keeps_previous),
        cmocka_unit_test(test_format_styles),
        cmocka_unit_test(test_format_digits_refuses_large_symbol),
        cmocka_unit_test(test_format_truncates_like_snprintf),
        cmocka_unit_test(test_format_long_word),
        cmocka_unit_test_setup_teardown(test_format_single_symbol_round_trips, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test_setup_teardown(test_format_parse_round_trip_random, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test_setup_teardown(test_parse_fuzz, scratch_setup, scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
