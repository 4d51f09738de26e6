/*
 * test_codec_limits.c: the wire protocol's codec (protocol/codec.h) at its limits: the
 * size limit (16384 accepted, 16385 refused), nesting (100000 '[' refused without
 * recursion), numbers jansson cannot hold (2^63, -0, 1e400), the canonical forms of
 * doubles (against the shortest round trip) and integers, the word encoder's and the
 * move decoder's fast paths against the general ones, and the code points a chat text
 * may not hold. The golden vectors and the error paths are test_codec.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <float.h>
#include <jansson.h>
#include <math.h>

#include "codec_samples.h"
#include "protocol/codec.h"
#include "protocol/codec_internal.h"

/* ---------------------------------------------------------------- size, depth, numbers */

static void test_codec_size_limit(void **state)
{
    (void)state;
    /* {"type":"ping","pad":"xxx...x"}: 22 bytes around the padding. */
    for (size_t total = 16383; total <= 16385; total++) {
        size_t pad = total - strlen("{\"type\":\"ping\",\"pad\":\"\"}");
        char *text = malloc(total + 1);
        assert_non_null(text);
        strcpy(text, "{\"type\":\"ping\",\"pad\":\"");
        memset(text + strlen(text), 'x', pad);
        strcpy(text + total - 2, "\"}");
        assert_int_equal(strlen(text), total);
        thue_cmd c;
        thue_decode_error e;
        int rc = cmd_decode_n(text, total, &c, &e);
        if (total <= THUE_PROTO_MESSAGE_MAX) {
            assert_int_equal(rc, 0);
            assert_int_equal(c.type, THUE_CMD_PING);
        } else {
            assert_int_equal(rc, THUE_PERR_JSON);
            assert_string_equal(e.field, "");
            assert_non_null(strstr(e.message, "longer than 16384 bytes"));
        }
        /* Server messages have no such limit. */
        memcpy(text, "{\"type\":\"ok\",  ", 15);
        thue_msg m;
        assert_int_equal(msg_decode_n(text, total, &m, &e), 0);
        thue_msg_clear(&m);
        free(text);
    }
}

static void test_codec_deep_nesting(void **state)
{
    (void)state;
    thue_cmd c;
    thue_msg m;
    thue_decode_error e;
    size_t n = 100000;
    char *text = malloc(2 * n + 64);
    assert_non_null(text);
    memset(text, '[', n);
    /* A command is refused for its size first; a server message has no size limit. */
    assert_int_equal(cmd_decode_n(text, THUE_PROTO_MESSAGE_MAX, &c, &e), THUE_PERR_JSON);
    assert_non_null(strstr(e.message, "nested at most 8 deep"));
    assert_int_equal(msg_decode_n(text, n, &m, &e), THUE_PERR_JSON);
    assert_non_null(strstr(e.message, "nested at most 8 deep"));
    for (size_t i = 0; i + 5 <= n; i += 5)
        memcpy(text + i, "{\"a\":", 5);
    assert_int_equal(msg_decode_n(text, n, &m, &e), THUE_PERR_JSON);
    assert_non_null(strstr(e.message, "nested at most 8 deep"));
    /* Balanced, and deep inside an unknown member of a valid message. */
    strcpy(text, "{\"type\":\"ok\",\"x\":");
    size_t k = strlen(text);
    memset(text + k, '[', n);
    memset(text + k + n, ']', n);
    strcpy(text + k + 2 * n, "}");
    assert_int_equal(msg_decode(text, &m, &e), THUE_PERR_JSON);
    /* Brackets inside strings do not count, escaped quotes do not end a string. */
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"x\":\"[[[[[[[[[[\\\"[[[[{{{{{{\"}", &c, &e),
                     0);
    /* Depth 8 is allowed, 9 is not; the message counts as 1. */
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"x\":[[[[[[[0]]]]]]]}", &c, &e), 0);
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"x\":[[[[[[[[0]]]]]]]]}", &c, &e),
                     THUE_PERR_JSON);
    free(text);
}

static void test_codec_big_numbers(void **state)
{
    (void)state;
    thue_cmd c;
    thue_decode_error e;
    static const char *const refused[] = {
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "1e400",
        "-1e400",
        "1e-400",
        "1e99999999999999999999",
        "0.0",
        "100000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char text[600];
        snprintf(text, sizeof text, "{\"type\":\"place\",\"id\":7,\"room\":\"r1\",\"position\":%s}",
                 refused[i]);
        if (cmd_decode(text, &c, &e) != THUE_PERR_MESSAGE || strcmp(e.field, "position") != 0)
            fail_msg("position %s: %s [%s] %s", refused[i], thue_proto_err_name(e.code), e.field,
                     e.message);
        assert_int_equal(e.id.kind, THUE_ID_INT);
        assert_int_equal(e.id.num, 7);
    }
    /* -0 is the integer 0. */
    assert_cmd_canonical("{\"type\":\"place\",\"room\":\"r1\",\"position\":-0}",
                         "{\"type\":\"place\",\"room\":\"r1\",\"position\":0}");
    /* Numbers in unknown members are ignored, however big. */
    assert_cmd_canonical("{\"type\":\"ping\",\"x\":[1e400,-1e400,18446744073709551616,1e-400]}",
                         "{\"type\":\"ping\"}");
    /* Where any number goes, an integer beyond int64 is still a number. */
    char *t = subst(ladder_text, "\"rating\":1612.4", "\"rating\":9223372036854775808");
    char *want = subst(ladder_text, "\"rating\":1612.4", "\"rating\":9223372036854776000");
    assert_msg_canonical(t, want);
    free(t);
    free(want);
    t = subst(ladder_text, "\"rating\":1612.4", "\"rating\":-0.0");
    want = subst(ladder_text, "\"rating\":1612.4", "\"rating\":0");
    assert_msg_canonical(t, want);
    free(t);
    free(want);
    t = subst(ladder_text, "\"rating\":1612.4", "\"rating\":1.7976931348623157e308");
    want = subst(ladder_text, "\"rating\":1612.4", "\"rating\":1.7976931348623157e+308");
    assert_msg_canonical(t, want);
    free(t);
    free(want);
    /* The largest id, and the one past it. */
    assert_cmd_canonical("{\"type\":\"ping\",\"id\":9007199254740991}", NULL);
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"id\":9007199254740992}", &c, &e),
                     THUE_PERR_MESSAGE);
}

/* Reference for thue__fmt_double: the fewest significant digits p such that some p-digit
 * decimal reads back as d (d > 0). The candidates are the nearest p-digit decimal and its
 * two neighbours, as integer mantissas. */
static int shortest_digits(double d)
{
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, d);
        char *e = strchr(buf, 'e');
        int exp = atoi(e + 1) - (p - 1);
        unsigned long long mant = 0;
        for (char *q = buf; q < e; q++)
            if (*q >= '0' && *q <= '9')
                mant = mant * 10 + (unsigned long long)(*q - '0');
        for (int delta = -1; delta <= 1; delta++) {
            char cand[64];
            snprintf(cand, sizeof cand, "%llue%d", mant + (unsigned long long)delta, exp);
            if (strtod(cand, NULL) == d)
                return p;
        }
    }
    return 17;
}

static int significant_digits(const char *s)
{
    int n = 0, started = 0, trailing_zeros = 0;
    for (; *s != '\0' && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s != '0')
            started = 1;
        if (!started)
            continue;
        n++;
        trailing_zeros = *s == '0' ? trailing_zeros + 1 : 0;
    }
    return n - trailing_zeros;
}

static void test_codec_double_format(void **state)
{
    (void)state;
    static const struct {
        double d;
        const char *text;
    } cases[] = {
        {0.0, "0"},
        {-0.0, "0"},
        {1.0, "1"},
        {-3.0, "-3"},
        {1612.4, "1612.4"},
        {0.1, "0.1"},
        {0.4, "0.4"},
        {0.1 + 0.2, "0.30000000000000004"},
        {84.2, "84.2"},
        {1e20, "100000000000000000000"},
        {1e21, "1e+21"},
        {123456789012345680000.0, "123456789012345680000"},
        {1.5e-7, "1.5e-7"},
        {0.000001, "0.000001"},
        {0.0000012, "0.0000012"},
        {1e-7, "1e-7"},
        {5e-324, "5e-324"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {9007199254740992.0, "9007199254740992"},
        {4.35, "4.35"},
        {2.5e25, "2.5e+25"},
        {-1e-10, "-1e-10"},
    };
    char buf[THUE__DOUBLE_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = thue__fmt_double(cases[i].d, buf);
        assert_int_equal(n, strlen(buf));
        if (strcmp(buf, cases[i].text) != 0)
            fail_msg("%.17g: got %s, want %s", cases[i].d, buf, cases[i].text);
    }
    /* Random doubles (any bit pattern that is finite): the text reads back as the same
     * double, with no more significant digits than the shortest "%.*e" that does. */
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 30000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        uint64_t bits = i % 4 == 0 ? x : (x & 0x800fffffffffffffULL) | ((x % 120 + 960) << 52);
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d))
            continue;
        thue__fmt_double(d, buf);
        double back = strtod(buf, NULL);
        if (back != d && !(d == 0 && back == 0))
            fail_msg("%.17g written as %s reads back as %.17g", d, buf, back);
        if (d != 0 && significant_digits(buf) != shortest_digits(fabs(d)))
            fail_msg("%.17g written as %s: the shortest has %d digits", d, buf,
                     shortest_digits(fabs(d)));
    }
    /* Numbers of at most three decimals take a short cut: the same text as the search,
     * over every magnitude (and with a sign), and integers and halves among them. */
    char slow[THUE__DOUBLE_MAX];
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t scale = 1;
        for (int j = (int)(x % 16); j > 0; j--)
            scale *= 10;
        int64_t m = (int64_t)((x >> 8) % (uint64_t)scale) + 1;
        double d = (double)m / (i % 3 == 0 ? 1.0 : i % 3 == 1 ? 2.0 : 1000.0);
        /* A neighbour of m / 1000: d * 1000 may still round to m, while d is not the
         * double nearest m / 1000 (the short cut must leave it to the search). */
        if (i % 7 == 0)
            d = nextafter(d, i % 2 ? INFINITY : 0.0);
        if (i % 5 == 0)
            d = -d;
        size_t n = thue__fmt_double(d, buf);
        size_t ns = thue__fmt_double_search(d, slow);
        if (n != ns || strcmp(buf, slow) != 0)
            fail_msg("%.17g: the short cut wrote %s, the search %s", d, buf, slow);
    }
    /* At powers of two the gap below is half the gap above, so the nearest short decimal
     * can miss from below while the next one up reads back. */
    for (int p = -1074; p <= 1023; p++) {
        double d = ldexp(1.0, p);
        thue__fmt_double(d, buf);
        assert_true(strtod(buf, NULL) == d);
        assert_int_equal(significant_digits(buf), shortest_digits(d));
    }
}

/* thue__buf_i64 writes what printf's %lld writes. */
static void test_codec_int_format(void **state)
{
    (void)state;
    static const int64_t edges[] = {0,
                                    1,
                                    -1,
                                    9,
                                    10,
                                    -10,
                                    99,
                                    100,
                                    INT64_MAX,
                                    INT64_MIN,
                                    INT64_MIN + 1,
                                    9007199254740991LL,
                                    -9007199254740991LL};
    uint64_t x = 0x2545f4914f6cdd1dULL;
    for (int i = 0; i < 100000; i++) {
        int64_t v;
        if (i < (int)(sizeof edges / sizeof edges[0])) {
            v = edges[i];
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v = (int64_t)(x >> (x % 64)); /* every magnitude */
            if (x & 1)
                v = -v;
        }
        thue__buf b = {0};
        thue__buf_i64(&b, v);
        char want[32];
        snprintf(want, sizeof want, "%lld", (long long)v);
        assert_false(b.oom);
        if (b.len != strlen(want) || memcmp(b.p, want, b.len) != 0)
            fail_msg("%s written as %.*s", want, (int)b.len, b.p);
        free(b.p);
    }
}

/* Words are written a chunk at a time: every symbol 0..63 (one and two digits) over more
 * than a chunk, back to the same text; a symbol of 64 fails with its index. */
static void test_codec_word_encode(void **state)
{
    (void)state;
    char list[4 * 1000 + 1];
    size_t k = 0;
    for (int i = 0; i < 1000; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%d", i ? "," : "", (i * 37) % 64);
    char word[sizeof list + 16];
    snprintf(word, sizeof word, "\"word\":[%s]", list);
    char *text = subst(room_state_text, "\"word\":[0,1,2]", word);
    thue_msg m;
    thue_decode_error e;
    assert_int_equal(thue_msg_decode(text, strlen(text), &m, &e), 0);
    assert_int_equal(m.u.room_state.match.word_len, 1000);
    char *out = thue_msg_encode(&m, &e);
    assert_non_null(out);
    assert_string_equal(out, text);
    free(out);
    uint8_t *w = (uint8_t *)m.u.room_state.match.word;
    for (int bad = 0; bad < 1000; bad += 333) {
        uint8_t keep = w[bad];
        w[bad] = 64;
        assert_null(thue_msg_encode(&m, &e));
        char field[32];
        snprintf(field, sizeof field, "match/word/%d", bad);
        assert_string_equal(e.field, field);
        w[bad] = keep;
    }
    thue_msg_clear(&m);
    free(text);
}

/* thue_cmd_decode and the full decoder on one text: the same result, the same command and
 * the same error, byte for byte. */
static void same_decoding(const char *text, size_t n)
{
    thue_cmd a, b;
    thue_decode_error ea, eb;
    int ra = thue_cmd_decode(text, n, &a, &ea);
    int rb = thue__cmd_decode_full(text, n, &b, &eb);
    if (ra != rb || memcmp(&ea, &eb, sizeof ea) != 0 || (ra == 0 && memcmp(&a, &b, sizeof a) != 0))
        fail_msg("the fast path and the full decoder differ on '%.*s' (%d vs %d)", (int)n, text, ra,
                 rb);
}

/* The fast path for canonical moves: random canonical moves, the limits of each number,
 * and every one-byte change, deletion and cut of a few, against the full decoder. */
static void test_codec_fast_move(void **state)
{
    (void)state;
    static const char *fixed[] = {
        "{\"type\":\"place\",\"id\":0,\"room\":\"r1\",\"position\":0}",
        "{\"type\":\"paint\",\"id\":9007199254740991,\"room\":\"r1\",\"symbol\":63}",
        "{\"type\":\"paint\",\"id\":9007199254740992,\"room\":\"r1\",\"symbol\":1}",
        "{\"type\":\"paint\",\"id\":1,\"room\":\"r1\",\"symbol\":64}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":10000}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":10001}",
        "{\"type\":\"place\",\"id\":01,\"room\":\"r1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":1.0}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":1e1}",
        "{\"type\":\"place\",\"id\":-1,\"room\":\"r1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r\\u0031\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r 1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"abcdefghijklmnopqrstuvwxyz0123456\",\"position\":"
        "1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"abcdefghijklmnopqrstuvwxyz012345\",\"position\":"
        "1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"symbol\":1}",
        "{\"type\":\"paint\",\"id\":1,\"room\":\"r1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":1} ",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":1,\"x\":1}",
        "{\"type\":\"place\",\"id\":\"a\",\"room\":\"r1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":99999999999999999}",
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        same_decoding(fixed[i], strlen(fixed[i]));

    static const char alphabet[] = "\"{}:,\\ 0123456789-_.eEaz\x01\x7f\xc3";
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        char room[40];
        int rn = 1 + (int)(x % 32);
        for (int k = 0; k < rn; k++)
            room[k] = "abcXYZ019_-"[(x >> (k % 50)) % 11];
        room[rn] = '\0';
        int paint = (int)(x >> 7) & 1;
        char text[200];
        int n = snprintf(
            text, sizeof text, "{\"type\":\"%s\",\"id\":%llu,\"room\":\"%s\",\"%s\":%d}",
            paint ? "paint" : "place", (unsigned long long)((x >> 11) % 9007199254740992ULL), room,
            paint ? "symbol" : "position", (int)((x >> 20) % (paint ? 70 : 10010)));
        same_decoding(text, (size_t)n);
        if (i % 100 != 0)
            continue;
        char m[200];
        for (int at = 0; at < n; at++) {
            for (size_t c = 0; c < sizeof alphabet - 1; c++) { /* one byte changed */
                memcpy(m, text, (size_t)n);
                m[at] = alphabet[c];
                same_decoding(m, (size_t)n);
            }
            memcpy(m, text, (size_t)at); /* one byte gone */
            memcpy(m + at, text + at + 1, (size_t)(n - at - 1));
            same_decoding(m, (size_t)n - 1);
            same_decoding(text, (size_t)at); /* cut short */
        }
    }
}

/* The code points a chat text may not hold, listed one by one (PROTOCOL.md section 8):
 * the reference the chat rule is checked against. */
static int chat_forbidden_ref(uint32_t cp)
{
    static const uint32_t listed[] = {
        0x00,   0x01,   0x02,   0x03,   0x04,   0x05,   0x06,   0x07,   0x08,   0x09,  0x0a,
        0x0b,   0x0c,   0x0d,   0x0e,   0x0f,   0x10,   0x11,   0x12,   0x13,   0x14,  0x15,
        0x16,   0x17,   0x18,   0x19,   0x1a,   0x1b,   0x1c,   0x1d,   0x1e,   0x1f,  0x7f,
        0x80,   0x81,   0x82,   0x83,   0x84,   0x85,   0x86,   0x87,   0x88,   0x89,  0x8a,
        0x8b,   0x8c,   0x8d,   0x8e,   0x8f,   0x90,   0x91,   0x92,   0x93,   0x94,  0x95,
        0x96,   0x97,   0x98,   0x99,   0x9a,   0x9b,   0x9c,   0x9d,   0x9e,   0x9f,  0x2028,
        0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069};
    for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++)
        if (listed[i] == cp)
            return 1;
    return 0;
}

/* The name characters' ASCII short cut says what the table's search says, for every code
 * point (and the search itself: letters and digits yes, the separators and a C0 no). */
static void test_codec_name_chars_fast(void **state)
{
    (void)state;
    for (uint32_t cp = 0; cp <= 0x10ffff; cp++)
        assert_int_equal(thue__is_name_char(cp), thue__name_char_search(cp));
    assert_true(thue__name_char_search('a') && thue__name_char_search('Z') &&
                thue__name_char_search('7') && thue__name_char_search(0x0416)); /* Ж */
    assert_false(thue__name_char_search(' ') || thue__name_char_search('_') ||
                 thue__name_char_search('@') || thue__name_char_search(0x1f));
}

/* Every code point, alone and between two letters, is allowed in a chat text exactly
 * when the reference does not list it. */
static void test_codec_chat_characters(void **state)
{
    (void)state;
    int refused = 0;
    for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff)
            continue; /* not characters: UTF-8 cannot hold them */
        char b[8] = "a";
        size_t n = 1;
        if (cp < 0x80) {
            b[n++] = (char)cp;
        } else if (cp < 0x800) {
            b[n++] = (char)(0xc0 | (cp >> 6));
            b[n++] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            b[n++] = (char)(0xe0 | (cp >> 12));
            b[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            b[n++] = (char)(0x80 | (cp & 0x3f));
        } else {
            b[n++] = (char)(0xf0 | (cp >> 18));
            b[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
            b[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            b[n++] = (char)(0x80 | (cp & 0x3f));
        }
        b[n++] = 'z';
        int want = !chat_forbidden_ref(cp);
        if (thue__str_ok(THUE__S_CHAT, b, n) != want ||
            thue__str_ok(THUE__S_CHAT, b + 1, n - 2) != want)
            fail_msg("U+%04X: the chat rule says %d, the reference %d", (unsigned)cp, !want, want);
        refused += !want;
    }
    assert_int_equal(refused, 32 + 33 + 7 + 4);
    /* and the decoder applies it to chat's text, naming the member */
    thue_cmd cmd;
    thue_decode_error err;
    static const char forged[] =
        "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"gg\\nAl: I resign\"}";
    assert_int_equal(thue_cmd_decode(forged, strlen(forged), &cmd, &err), THUE_PERR_MESSAGE);
    assert_string_equal(err.field, "text");
}

int main(void)
{
    thue_codec_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec_size_limit),  cmocka_unit_test(test_codec_deep_nesting),
        cmocka_unit_test(test_codec_big_numbers), cmocka_unit_test(test_codec_double_format),
        cmocka_unit_test(test_codec_int_format),  cmocka_unit_test(test_codec_fast_move),
        cmocka_unit_test(test_codec_word_encode), cmocka_unit_test(test_codec_chat_characters),
        cmocka_unit_test(test_codec_name_chars_fast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
