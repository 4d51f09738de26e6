/*
 * codec_text.c: the text-level pieces of the codec (see codec_internal.h): the output
 * buffer, JSON string escaping, the canonical number forms, the string rules of
 * PROTOCOL.md, and the scan that runs before jansson parses a text.
 *
 * Everything here is pure: no allocation beyond the buffers handed in, no global state.
 * Numbers: doubles are written with the fewest significant digits that read back as the
 * same double (trying 1..17 digits, each read back with strtod), laid out like
 * JavaScript's Number::toString, so the canonical text of a message is the one a browser
 * writes with JSON.stringify. snprintf and strtod use the same locale, so the round trip
 * holds whatever the locale; the digits are copied out and the decimal point is always '.'.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/codec_internal.h"

/* ---- output buffer -------------------------------------------------------------------- */

static int buf_reserve(thue__buf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra < b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (b->len + extra >= cap) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return -1;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (p == NULL) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void thue__buf_put(thue__buf *b, const char *s, size_t n)
{
    if (!b->oom && n < b->cap - b->len) { /* room enough (len < cap once cap > 0) */
        memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len] = '\0';
        return;
    }
    if (n > SIZE_MAX / 2 || buf_reserve(b, n) != 0)
        return;
    if (n > 0)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void thue__buf_putc(thue__buf *b, char c)
{
    if (!b->oom && b->len + 1 < b->cap) { /* the usual case, without a call */
        b->p[b->len++] = c;
        b->p[b->len] = '\0';
        return;
    }
    thue__buf_put(b, &c, 1);
}

void thue__buf_puts(thue__buf *b, const char *s)
{
    thue__buf_put(b, s, strlen(s));
}

void thue__buf_json_str(thue__buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0; /* start of the bytes not yet copied */
    thue__buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        thue__buf_put(b, s + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        size_t len = 2;
        switch (c) {
        case '"':
        case '\\':
            esc[1] = (char)c;
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            len = 6;
        }
        thue__buf_put(b, esc, len);
    }
    thue__buf_put(b, s + run, n - run);
    thue__buf_putc(b, '"');
}

char *thue__u64_digits(uint64_t u, char *end)
{
    char *p = end;
    do {
        *--p = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u != 0);
    return p;
}

void thue__buf_i64(thue__buf *b, int64_t v)
{
    /* Without snprintf: this runs for every number of every message sent. */
    char tmp[24];
    char *end = tmp + sizeof tmp;
    char *p = thue__u64_digits(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, end);
    if (v < 0)
        *--p = '-';
    thue__buf_put(b, p, (size_t)(end - p));
}

/* ---- doubles -------------------------------------------------------------------------- */

/* Adds one unit in the last place to the mantissa of a "%.*e" text, in place (t has room
 * for one more character): "1.29e+05" -> "1.30e+05", "9.9e+05" -> "10.0e+05". */
static void mantissa_up(char *t)
{
    size_t e = (size_t)(strchr(t, 'e') - t);
    for (size_t i = e; i-- > 0;) {
        if (t[i] < '0' || t[i] > '9')
            continue; /* the decimal point */
        if (t[i] != '9') {
            t[i]++;
            return;
        }
        t[i] = '0';
    }
    memmove(t + 1, t, strlen(t) + 1);
    t[0] = '1';
}

/*
 * A positive d that is m / 1000 for an integer 1 <= m < 10^15 (what a rounded think time
 * or rating is), written as its decimal with the trailing zeros cut: "12", "0.5",
 * "1612.375". That decimal has at most 15 significant digits, so no other decimal of as
 * few digits reads back as the same double: it is the shortest, exactly what the search
 * finds, and JavaScript writes such numbers without an exponent. 0 when d is not one.
 */
static size_t fmt_thousandths(double d, char *out)
{
    if (!(d >= 0.001 && d < 1e12))
        return 0;
    double m = d * 1000.0;
    if (m != (double)(int64_t)m)
        return 0;
    int64_t n = (int64_t)m;
    /* m / 1000 rounded may still not be d itself (d * 1000 rounds to n while the double
     * nearest n / 1000 is d's neighbour); then the search decides. The division is
     * correctly rounded and n < 2^53 is exact, so it is the double that strtod would read
     * from the decimal written here, without its cost (a move's think time is written
     * in every thue.v2 event). */
    if ((double)n / 1000.0 != d)
        return 0;
    char t[THUE__DOUBLE_MAX];
    char *end = t + sizeof t, *p = end;
    int frac = (int)(n % 1000);
    int decimals = 3;
    while (decimals > 0 && frac % 10 == 0) {
        frac /= 10;
        decimals--;
    }
    for (int i = 0; i < decimals; i++) {
        *--p = (char)('0' + frac % 10);
        frac /= 10;
    }
    if (decimals > 0)
        *--p = '.';
    int64_t whole = n / 1000;
    do {
        *--p = (char)('0' + (int)(whole % 10));
        whole /= 10;
    } while (whole != 0);
    size_t len = (size_t)(end - p);
    memcpy(out, p, len);
    out[len] = '\0';
    return len;
}

size_t thue__fmt_double(double d, char *out)
{
    if (d < 0) {
        size_t n = fmt_thousandths(-d, out + 1);
        if (n > 0) {
            out[0] = '-';
            return n + 1;
        }
    } else {
        size_t n = fmt_thousandths(d, out);
        if (n > 0)
            return n;
    }
    return thue__fmt_double_search(d, out);
}

size_t thue__js_layout(const char *digits, int k, int n, char *out)
{
    char *o = out;
    if (k <= n && n <= 21) {
        memcpy(o, digits, (size_t)k);
        o += k;
        for (int i = k; i < n; i++)
            *o++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(o, digits, (size_t)n);
        o += n;
        *o++ = '.';
        memcpy(o, digits + n, (size_t)(k - n));
        o += k - n;
    } else if (-6 < n && n <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = n; i < 0; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)k);
        o += k;
    } else {
        *o++ = digits[0];
        if (k > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(k - 1));
            o += k - 1;
        }
        o += sprintf(o, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
    }
    *o = '\0';
    return (size_t)(o - out);
}

size_t thue__fmt_double_search(double d, char *out)
{
    char *o = out;
    if (d == 0) { /* also -0, which JavaScript writes as "0" */
        strcpy(out, "0");
        return 1;
    }
    if (d < 0) {
        *o++ = '-';
        d = -d;
    }
    /* The shortest round trip: for p digits, "%.*e" gives the nearest p-digit decimal.
     * When it misses d from below, the next p-digit decimal up can still read back as d
     * (just above a power of two the gap below d is half the gap above), and JavaScript
     * takes it; when both do, the nearest is the first one tried. */
    char t[48];
    for (int p = 1; p <= 17; p++) {
        snprintf(t, sizeof t - 1, "%.*e", p - 1, d);
        double back = strtod(t, NULL);
        if (back == d)
            break;
        if (back < d) {
            mantissa_up(t);
            if (strtod(t, NULL) == d)
                break;
        }
    }
    /* t is now DIGITS[.DIGITS]e[+-]EXP: collect the digits and where the point goes. */
    char digits[24];
    int k = 0, before_point = -1;
    const char *p = t;
    for (; *p != 'e'; p++) {
        if (*p >= '0' && *p <= '9') {
            if (k < 20)
                digits[k++] = *p;
        } else if (before_point < 0) {
            before_point = k;
        }
    }
    if (before_point < 0)
        before_point = k;
    int n = before_point + (int)strtol(p + 1, NULL, 10); /* value = 0.DIGITS x 10^n */
    while (k > 1 && digits[k - 1] == '0')
        k--;
    o += thue__js_layout(digits, k, n, o);
    *o = '\0';
    return (size_t)(o - out);
}

/* ---- string rules --------------------------------------------------------------------- */

enum { SET_KEY, SET_HEX, SET_PRINT, SET_NAME, SET_PLAIN, SET_CHAT, SET_NODE };

typedef struct str_rule {
    unsigned char bytes; /* 1: the limits count bytes; 0: code points */
    unsigned char set;
    int min, max;
    const char *text;
} str_rule;

static const str_rule rules[THUE__S_COUNT] = {
    [THUE__S_KEY] = {1, SET_KEY, 1, 32, "a string of 1 to 32 characters from A-Z a-z 0-9 _ -"},
    [THUE__S_TOKEN] = {1, SET_KEY, 1, 128, "a string of 1 to 128 characters from A-Z a-z 0-9 _ -"},
    [THUE__S_RESUME] = {1, SET_HEX, 32, 32, "a string of 32 lowercase hexadecimal digits"},
    [THUE__S_SPEC] = {1, SET_PRINT, 1, 100, "a string of 1 to 100 printable ASCII characters"},
    [THUE__S_ID] = {1, SET_PRINT, 1, 64, "a string of 1 to 64 printable ASCII characters"},
    [THUE__S_NAME] = {0, SET_NAME, 1, 24,
                      "a player name: 1 to 24 letters, digits, spaces, _, - or ., not starting "
                      "or ending with a space"},
    [THUE__S_ANYNAME] = {0, SET_PLAIN, 1, 24,
                         "a name of 1 to 24 characters without control characters"},
    [THUE__S_TITLE] = {0, SET_PLAIN, 1, 40,
                       "a string of 1 to 40 characters without control characters"},
    [THUE__S_CHAT] = {0, SET_CHAT, 1, 200,
                      "a string of 1 to 200 characters without control characters (C0, DEL, C1), "
                      "line separators (U+2028, U+2029) or bidirectional controls (U+202A..U+202E, "
                      "U+2066..U+2069)"},
    [THUE__S_TEXT] = {0, SET_PLAIN, 1, 200,
                      "a string of 1 to 200 characters without control characters"},
    [THUE__S_SERVER] = {1, SET_PRINT, 1, 64, "a string of 1 to 64 printable ASCII characters"},
    [THUE__S_FIELD] = {1, SET_PLAIN, 1, 63,
                       "a string of 1 to 63 bytes without control characters, not starting with "
                       "/"},
    [THUE__S_NODE_NAME] = {0, SET_NODE, 1, THUE_PROTO_DELTA_BYTES_MAX,
                           "a string of 1 to 65536 characters without double quotes or control "
                           "characters"},
    [THUE__S_PASSWORD] = {0, SET_PLAIN, THUE_PROTO_PASSWORD_MIN, THUE_PROTO_PASSWORD_MAX,
                          "a password of 8 to 256 characters without control characters"},
    [THUE__S_SECRET] = {0, SET_PLAIN, 1, THUE_PROTO_PASSWORD_MAX,
                        "a password of 1 to 256 characters without control characters"},
};

/* The code point at s[0..n), n >= 1: its length 1..4 and *cp, or 0 when the bytes are not
 * UTF-8 (overlong forms, surrogates and values past U+10FFFF included). */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    unsigned lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        c &= 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
        c &= 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
        c &= 0x07;
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    uint32_t v = c;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    *cp = v;
    return len;
}

static int key_char(uint32_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static int char_ok(int set, uint32_t c)
{
    switch (set) {
    case SET_KEY:
        return key_char(c);
    case SET_HEX:
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    case SET_PRINT:
        return c >= 0x20 && c <= 0x7e;
    case SET_NAME:
        return c == ' ' || c == '_' || c == '-' || c == '.' || thue__is_name_char(c);
    case SET_CHAT:
        /* What could forge a line or reorder a line of the chat as others see it: C0 (a
         * line feed starts a line that seems to come from someone else), DEL and C1 (NEL,
         * U+0085, is a line break too), U+2028 and U+2029, and the bidirectional
         * embeddings, overrides (U+202A..U+202E) and isolates (U+2066..U+2069). */
        return c >= 0x20 && !(c >= 0x7f && c <= 0x9f) && !(c >= 0x2028 && c <= 0x202e) &&
               !(c >= 0x2066 && c <= 0x2069);
    case SET_NODE: /* an analysis node's name: its state's JSON without double quotes */
        return c >= 0x20 && c != '"';
    default: /* SET_PLAIN */
        return c >= 0x20 && c != 0x7f;
    }
}

int thue__str_ok(thue__str_rule r, const char *s, size_t n)
{
    if ((unsigned)r >= THUE__S_COUNT)
        return 0;
    const str_rule *R = &rules[r];
    if (n > thue__str_rule_bytes(r))
        return 0;
    const unsigned char *u = (const unsigned char *)s;
    size_t count = 0;
    for (size_t i = 0; i < n; count++) {
        uint32_t cp;
        size_t len = utf8_next(u + i, n - i, &cp);
        if (len == 0 || !char_ok(R->set, cp))
            return 0;
        i += len;
    }
    if (R->bytes)
        count = n;
    if (count < (size_t)R->min || count > (size_t)R->max)
        return 0;
    if (R->set == SET_NAME && (s[0] == ' ' || s[n - 1] == ' '))
        return 0;
    if (r == THUE__S_FIELD && s[0] == '/')
        return 0;
    return 1;
}

const char *thue__str_rule_text(thue__str_rule r)
{
    return (unsigned)r < THUE__S_COUNT ? rules[r].text : "a string";
}

size_t thue__str_rule_bytes(thue__str_rule r)
{
    if ((unsigned)r >= THUE__S_COUNT)
        return 0;
    return rules[r].bytes ? (size_t)rules[r].max : (size_t)rules[r].max * 4;
}

/* ---- the scan before parsing ---------------------------------------------------------- */

/* 2^1024 - 2^970, the least decimal that strtod rounds to infinity (ties go to the even
 * mantissa, which is 2^1024). 309 digits. */
static const char overflow_at[] =
    "1797693134862315807937289714053034150799341327100378269361737789804449682927647509466490"
    "1797758720709633028641669288791094655554785194040263065748867150582068190890200070838367"
    "6273854845817711531764475730270069855571366959622842914819860834936475292719074168444365"
    "510704342711559699508093042880177904174497792";

/* 1 when the significant digits d[0..nd) (no leading zero) with the point after `mag`
 * digits make a value at least 2^1024 - 2^970. */
static int beyond_double(const char *d, size_t nd, long mag)
{
    const long len = (long)sizeof overflow_at - 1;
    if (mag != len)
        return mag > len;
    for (long i = 0; i < len; i++) {
        char c = (size_t)i < nd ? d[i] : '0';
        if (c != overflow_at[i])
            return c > overflow_at[i];
    }
    return 1; /* equal in its first 309 digits: at least the threshold */
}

/* Classifies the number token s[0..n) (valid JSON syntax, checked by the caller). Returns
 * 0 when jansson reads it, 1 when it is an integer beyond int64 that fits a double, 2 when
 * it is beyond the range of a double. */
static int number_kind(const char *s, size_t n, size_t int_end, size_t frac_end)
{
    size_t i = s[0] == '-' ? 1 : 0;
    int is_real = frac_end < n || int_end < frac_end;
    if (!is_real) {
        size_t nd = n - i;
        const char *lim = s[0] == '-' ? "9223372036854775808" : "9223372036854775807";
        if (nd < 19 || (nd == 19 && memcmp(s + i, lim, 19) <= 0))
            return 0;
    }
    /* The significant digits run over the integer and fraction parts (skipping the '.');
     * the exponent is read saturating, since "1e99999999999999999999" is valid JSON. */
    long exp = 0;
    if (frac_end < n) {
        size_t e = frac_end + 1;
        int neg = 0;
        if (s[e] == '+' || s[e] == '-')
            neg = s[e++] == '-';
        for (; e < n; e++)
            if (exp < 100000000)
                exp = exp * 10 + (s[e] - '0');
        if (neg)
            exp = -exp;
    }
    /* The first significant digit and the point's place relative to it. */
    size_t first = i;
    while (first < frac_end && (s[first] == '0' || s[first] == '.'))
        first++;
    if (first == frac_end)
        return 0; /* zero */
    long mag;
    if (first < int_end)
        mag = (long)(int_end - first) + exp;
    else
        mag = -(long)(first - int_end - 1) + exp;
    if (mag < 300)
        return is_real ? 0 : 1;
    /* Copy out the significant digits (at most 310 matter). */
    char d[312];
    size_t nd = 0;
    for (size_t j = first; j < frac_end && nd < sizeof d; j++)
        if (s[j] != '.')
            d[nd++] = s[j];
    if (beyond_double(d, nd, mag))
        return 2;
    return is_real ? 0 : 1;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int thue__json_prescan(const char *s, size_t n, int max_depth, thue__buf *out)
{
    int depth = 0;
    size_t copied = 0; /* s[0..copied) is in out once a rewrite has started */
    out->p = NULL;
    out->len = out->cap = 0;
    out->oom = 0;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\')
                    i++;
            i++;
            continue;
        }
        if (c == '[' || c == '{') {
            if (++depth > max_depth) {
                free(out->p);
                out->p = NULL;
                return THUE__SCAN_DEEP;
            }
            i++;
            continue;
        }
        if (c == ']' || c == '}') {
            if (depth > 0)
                depth--;
            i++;
            continue;
        }
        if (c != '-' && !is_digit(c)) {
            i++;
            continue;
        }
        /* A number: -?digits(.digits)?([eE][+-]?digits)?; anything malformed is left to
         * jansson, which refuses it. */
        size_t start = i, j = i + (c == '-');
        size_t d0 = j;
        while (j < n && is_digit(s[j]))
            j++;
        int ok = j > d0 && !(s[d0] == '0' && j - d0 > 1);
        size_t int_end = j;
        if (ok && j < n && s[j] == '.') {
            size_t f0 = ++j;
            while (j < n && is_digit(s[j]))
                j++;
            ok = j > f0;
        }
        size_t frac_end = j;
        if (ok && j < n && (s[j] == 'e' || s[j] == 'E')) {
            j++;
            if (j < n && (s[j] == '+' || s[j] == '-'))
                j++;
            size_t e0 = j;
            while (j < n && is_digit(s[j]))
                j++;
            ok = j > e0;
        }
        i = j > start ? j : start + 1;
        if (!ok)
            continue;
        int kind = number_kind(s + start, j - start, int_end - start, frac_end - start);
        if (kind == 0)
            continue;
        thue__buf_put(out, s + copied, start - copied);
        if (kind == 1) {
            thue__buf_put(out, s + start, j - start);
            thue__buf_puts(out, "e0");
        } else {
            thue__buf_puts(out, "\"\\u0000~\"");
        }
        copied = j;
        if (out->oom)
            break;
    }
    if (out->p != NULL || out->oom)
        thue__buf_put(out, s + copied, n - copied);
    if (out->oom) {
        free(out->p);
        out->p = NULL;
        return THUE__SCAN_NOMEM;
    }
    return 0;
}
