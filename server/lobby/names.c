/*
 * names.c: player names' rules and comparison keys on ICU (names.h has the rules).
 *
 * Why ICU: what looks like one name to people is a question of Unicode data (confusable
 * letters across scripts, compatibility forms, case folding beyond ASCII, invisible code
 * points), which UTS #15 (normalisation) and UTS #39 (security mechanisms) answer and
 * ICU implements and keeps current. We only choose the rules.
 *
 * Work happens in UTF-16 (ICU's native form) on small stack buffers: a name has at most
 * 24 code points, so every buffer below holds any name several times over, and an input
 * that does not fit is refused, never truncated.
 */
#include "names.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/uspoof.h>

#include "../protocol/codec.h"
#include "store/store.h"

#define U16_CAP 256 /* UTF-16 units: a 24-code-point name uses at most 48 */

static USpoofChecker *checker; /* configured once in init_checker, then only read */
static pthread_once_t checker_once = PTHREAD_ONCE_INIT;

static void init_checker(void)
{
    UErrorCode err = U_ZERO_ERROR;
    USpoofChecker *sc = uspoof_open(&err);
    if (U_FAILURE(err))
        return;
    uspoof_setRestrictionLevel(sc, USPOOF_HIGHLY_RESTRICTIVE);
    uspoof_setChecks(sc, USPOOF_RESTRICTION_LEVEL | USPOOF_INVISIBLE | USPOOF_MIXED_NUMBERS,
                     &err);
    if (U_FAILURE(err)) {
        uspoof_close(sc);
        return;
    }
    checker = sc;
}

/*
 * ASCII names (most of them) take a shortcut: a skeleton maps code point by code point,
 * and for a printable ASCII character the whole key's chain (fold, skeleton, fold again)
 * gives a short ASCII string, computed once here by ICU itself. A name of such characters
 * then keys as the concatenation of their strings, with no ICU call: ~10 times faster,
 * which counts at start-up (every stored account's key is computed: a million of them).
 * A character whose string is not plain ASCII (none in ICU 72, but the data may change)
 * sends its names the long way. test_names checks both ways agree.
 */
#define ASCII_MAP_MAX 8
static char ascii_map[128][ASCII_MAP_MAX]; /* "" when the shortcut cannot be taken */

static int32_t slow_key_u16(const char *name, UChar *out, int32_t cap);

static void init_checker(void);

static void init_ascii(void)
{
    for (int c = 0x20; c < 0x7f; c++) {
        char one[2] = {(char)c, 0};
        UChar u[U16_CAP * 4];
        int32_t n = slow_key_u16(one, u, (int32_t)(sizeof u / sizeof u[0]));
        if (n <= 0 || n >= ASCII_MAP_MAX)
            continue;
        int ok = 1;
        for (int32_t i = 0; i < n; i++)
            ok &= u[i] > 0x20 && u[i] < 0x7f;
        if (!ok)
            continue;
        for (int32_t i = 0; i < n; i++)
            ascii_map[c][i] = (char)u[i];
        ascii_map[c][n] = '\0';
    }
}

static void init_all(void)
{
    init_checker();
    if (checker != NULL)
        init_ascii();
}

static USpoofChecker *get_checker(void)
{
    pthread_once(&checker_once, init_all);
    return checker;
}

/* UTF-8 to UTF-16 into out[U16_CAP]: its length, or -1 (invalid, or too long). */
static int32_t to_u16(const char *s, UChar *out)
{
    UErrorCode err = U_ZERO_ERROR;
    int32_t n = 0;
    u_strFromUTF8(out, U16_CAP, &n, s, -1, &err);
    return U_FAILURE(err) || err == U_STRING_NOT_TERMINATED_WARNING ? -1 : n;
}

/* One of ICU's normalisers applied to in (n units) into out[U16_CAP]: length, or -1. */
static int32_t normalize(const UNormalizer2 *norm, const UChar *in, int32_t n, UChar *out)
{
    UErrorCode err = U_ZERO_ERROR;
    int32_t m = unorm2_normalize(norm, in, n, out, U16_CAP, &err);
    return U_FAILURE(err) || err == U_STRING_NOT_TERMINATED_WARNING ? -1 : m;
}

static bool allowed_code_point(UChar32 c)
{
    if (c == ' ' || c == '_' || c == '-' || c == '.')
        return true;
    if (u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT))
        return false;
    switch (u_charType(c)) {
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
    case U_NON_SPACING_MARK:      /* a letter's accent that NFKC could not compose */
    case U_COMBINING_SPACING_MARK:
    case U_DECIMAL_DIGIT_NUMBER:
        return true;
    default:
        return false;
    }
}

int thue_name_check(const char *name, char *out, size_t size, char *why, size_t whysize)
{
    UErrorCode err = U_ZERO_ERROR;
    const UNormalizer2 *nfkc = unorm2_getNFKCInstance(&err);
    USpoofChecker *sc = get_checker();
    if (U_FAILURE(err) || sc == NULL) {
        snprintf(why, whysize, "the server cannot check names now");
        return -1;
    }
    UChar raw[U16_CAP], norm[U16_CAP];
    int32_t n = to_u16(name, raw);
    int32_t m = n < 0 ? -1 : normalize(nfkc, raw, n, norm);
    if (m <= 0) {
        snprintf(why, whysize, "the name is not valid UTF-8 or is too long");
        return -1;
    }
    int count = 0;
    for (int32_t i = 0; i < m;) {
        UChar32 c;
        U16_NEXT(norm, i, m, c);
        count++;
        if (!allowed_code_point(c)) {
            snprintf(why, whysize,
                     "a name may not hold U+%04X (invisible, a filler, a control or "
                     "format character, or not a letter or digit)",
                     (unsigned)c);
            return -1;
        }
    }
    if (count > THUE_PROTO_NAME_MAX) {
        snprintf(why, whysize, "the name is longer than %d characters in NFKC form",
                 THUE_PROTO_NAME_MAX);
        return -1;
    }
    if (norm[0] == ' ' || norm[m - 1] == ' ') {
        snprintf(why, whysize, "a name may not start or end with a space");
        return -1;
    }
    int32_t checks = uspoof_check2(sc, norm, m, NULL, &err);
    if (U_FAILURE(err)) {
        snprintf(why, whysize, "the server cannot check names now");
        return -1;
    }
    if (checks & USPOOF_RESTRICTION_LEVEL) {
        snprintf(why, whysize,
                 "a name may not mix scripts (one script, or Latin with Han and kana, "
                 "Bopomofo or Hangul)");
        return -1;
    }
    if (checks & USPOOF_MIXED_NUMBERS) {
        snprintf(why, whysize, "a name may not mix digits of different systems");
        return -1;
    }
    if (checks) {
        snprintf(why, whysize, "the name holds invisible or repeated combining marks");
        return -1;
    }
    int32_t len = 0;
    u_strToUTF8(out, (int32_t)size, &len, norm, m, &err);
    if (U_FAILURE(err) || err == U_STRING_NOT_TERMINATED_WARNING) {
        snprintf(why, whysize, "the name is too long");
        return -1;
    }
    return 0;
}

static void hex_key(const void *bytes, size_t n, char key[THUE_NAME_KEY_SIZE])
{
    unsigned char h[32];
    thue_sha256(bytes, n, h);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        key[2 * i] = hex[h[i] >> 4];
        key[2 * i + 1] = hex[h[i] & 15];
    }
    key[64] = '\0';
}

/* The key's chain (NFKC case fold, skeleton, case fold) on ICU, into out (cap units):
 * its length, or -1. */
static int32_t slow_key_u16(const char *name, UChar *out, int32_t cap)
{
    UErrorCode err = U_ZERO_ERROR;
    const UNormalizer2 *fold = unorm2_getNFKCCasefoldInstance(&err);
    USpoofChecker *sc = checker;
    UChar raw[U16_CAP], folded[U16_CAP], skel[U16_CAP * 4];
    int32_t n = U_SUCCESS(err) && sc ? to_u16(name, raw) : -1;
    int32_t m = n < 0 ? -1 : normalize(fold, raw, n, folded);
    if (m < 0)
        return -1;
    int32_t k = uspoof_getSkeleton(sc, 0, folded, m, skel, (int32_t)(sizeof skel / sizeof skel[0]),
                                   &err);
    if (U_FAILURE(err) || err == U_STRING_NOT_TERMINATED_WARNING)
        return -1;
    /* Folded once more: skeletons' prototypes may be capitals ("0" becomes "O"), and
     * "Bob0" must meet "bobo" as "BobO" does. */
    int32_t f = unorm2_normalize(fold, skel, k, out, cap, &err);
    if (U_FAILURE(err) || err == U_STRING_NOT_TERMINATED_WARNING)
        return -1;
    return f;
}

/* The shortcut for printable ASCII names: the length, or -1 when it does not apply. */
static int32_t ascii_key_u16(const char *name, UChar *out, int32_t cap)
{
    int32_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p >= 0x80 || ascii_map[*p][0] == '\0')
            return -1;
        for (const char *m = ascii_map[*p]; *m; m++) {
            if (n >= cap)
                return -1;
            out[n++] = (UChar)*m;
        }
    }
    return n;
}

void thue__name_key_ways(const char *name, char fast[THUE_NAME_KEY_SIZE],
                         char slow[THUE_NAME_KEY_SIZE])
{
    UChar u[U16_CAP * 4];
    get_checker();
    int32_t n = ascii_key_u16(name, u, (int32_t)(sizeof u / sizeof u[0]));
    if (n >= 0)
        hex_key(u, (size_t)n * sizeof u[0], fast);
    else
        fast[0] = '\0';
    n = checker ? slow_key_u16(name, u, (int32_t)(sizeof u / sizeof u[0])) : -1;
    if (n >= 0)
        hex_key(u, (size_t)n * sizeof u[0], slow);
    else
        slow[0] = '\0';
}

void thue_name_key(const char *name, char key[THUE_NAME_KEY_SIZE])
{
    UChar u[U16_CAP * 4];
    USpoofChecker *sc = get_checker();
    int32_t n = sc ? ascii_key_u16(name, u, (int32_t)(sizeof u / sizeof u[0])) : -1;
    if (n < 0 && sc)
        n = slow_key_u16(name, u, (int32_t)(sizeof u / sizeof u[0]));
    if (n >= 0) {
        hex_key(u, (size_t)n * sizeof u[0], key);
        return;
    }
    /* ICU failed (out of memory, say): the rule before it, ASCII letters folded. */
    char low[THUE_PROTO_NAME_MAX * 4 + 1];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof low; i++)
        low[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
    hex_key(low, i, key);
}
