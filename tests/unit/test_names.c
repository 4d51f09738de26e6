/*
 * test_names.c: player names' rules and keys (server/lobby/names.c): a table of names
 * allowed and refused, their NFKC forms, and which pairs are one name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lobby/names.h"

typedef struct name_case {
    const char *name;
    int allowed;
    const char *nfkc; /* the form kept, when allowed (NULL: the name itself) */
    const char *why;  /* part of the refusal's sentence, when refused */
} name_case;

static const name_case cases[] = {
    /* Ordinary names in one script. */
    {"Alice", 1, NULL, NULL},
    {"Ann Lee", 1, NULL, NULL},
    {"Zoë-ü471", 1, NULL, NULL},
    {"Jürgen_2.0", 1, NULL, NULL},
    {"Алиса", 1, NULL, NULL},             /* Cyrillic */
    {"Αλίκη", 1, NULL, NULL},             /* Greek */
    {"李小龍", 1, NULL, NULL},            /* Han */
    {"ゆき", 1, NULL, NULL},              /* Hiragana */
    {"김민준", 1, NULL, NULL},            /* Hangul */
    {"Wang李", 1, NULL, NULL},            /* Latin with Han: allowed by "highly restrictive" */
    {"تامر", 1, NULL, NULL},              /* Arabic */
    {"Guest-1234", 1, NULL, NULL},
    /* Compatibility forms become the ordinary ones. */
    {"\uff21\uff4c\uff49\uff43\uff45", 1, "Alice", NULL}, /* fullwidth */
    {"\ufb01sh", 1, "fish", NULL},                         /* the fi ligature */
    /* Mixed scripts. */
    {"\u0410lice", 0, NULL, "mix scripts"}, /* Cyrillic A */
    {"\u0391lice", 0, NULL, "mix scripts"}, /* Greek Alpha */
    {"Al\u0456ce", 0, NULL, "mix scripts"}, /* Cyrillic i */
    {"Алиса Smith", 0, NULL, "mix scripts"},
    /* Invisible and filler code points. */
    {"Alice\u3164", 0, NULL, "U+1160"},      /* a Hangul filler (NFKC: U+1160) */
    {"\u3164", 0, NULL, "U+1160"},
    {"\uffa0Bob", 0, NULL, "U+1160"},       /* halfwidth Hangul filler */
    {"Al\u200dice", 0, NULL, "U+200D"},     /* zero-width joiner */
    {"Alice\u00ad", 0, NULL, "U+00AD"},     /* soft hyphen */
    {"A\u034fB", 0, NULL, "U+034F"},        /* combining grapheme joiner */
    {"Bob\ufe0f", 0, NULL, "U+FE0F"},       /* variation selector */
    {"\u3000Bob", 0, NULL, "space"},        /* ideographic space: NFKC makes it a space */
    /* Digits of two systems. */
    {"Bob1\u0661", 0, NULL, NULL},
};

static void test_names_table(void **st)
{
    (void)st;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const name_case *c = &cases[i];
        char out[97], why[200] = "";
        int r = thue_name_check(c->name, out, sizeof out, why, sizeof why);
        if (c->allowed != (r == 0))
            fail_msg("%s: %s (%s)", c->name, r == 0 ? "allowed" : "refused", why);
        if (r == 0)
            assert_string_equal(out, c->nfkc ? c->nfkc : c->name);
        else if (c->why && strstr(why, c->why) == NULL)
            fail_msg("%s: refused with \"%s\", expected \"%s\"", c->name, why, c->why);
    }
}

static int same(const char *a, const char *b)
{
    char ka[THUE_NAME_KEY_SIZE], kb[THUE_NAME_KEY_SIZE];
    thue_name_key(a, ka);
    thue_name_key(b, kb);
    assert_int_equal(strlen(ka), THUE_NAME_KEY_SIZE - 1);
    return strcmp(ka, kb) == 0;
}

static void test_names_keys(void **st)
{
    (void)st;
    /* One name: case (full folding), compatibility forms, confusables. */
    static const char *const one[][2] = {
        {"Alice", "ALICE"},
        {"Alice", "alice"},
        {"Zoë-ü471", "ZOË-Ü471"},
        {"Alice", "\uff21\uff4c\uff49\uff43\uff45"},
        {"Alice", "Al\u0131ce"},   /* dotless i */
        {"Alice", "\u0410lice"},   /* Cyrillic A: refused anyway, but one name */
        {"Alice", "\u0391lice"},   /* Greek Alpha */
        {"Straße", "STRASSE"},     /* full case folding: ß is ss */
        {"Alice", "Alice\u3164"},  /* a filler: folded away */
        {"rn", "m"},               /* r n looks like m */
        {"Bob0", "BobO"},          /* zero and O */
        {"Алиса", "АЛИСА"},
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (!same(one[i][0], one[i][1]))
            fail_msg("%s and %s should be one name", one[i][0], one[i][1]);
    /* Different names. */
    static const char *const two[][2] = {
        {"Alice", "Alicia"}, {"Ann", "Anne"}, {"Bob", "Rob"}, {"李小龍", "李小虎"},
        {"Ann Lee", "AnnLee"}, {"Bob1", "Bob2"},
    };
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (same(two[i][0], two[i][1]))
            fail_msg("%s and %s should be two names", two[i][0], two[i][1]);
}

/* The ASCII shortcut against ICU's whole chain, on every printable character and on
 * random names of them. */
static void test_names_ascii_shortcut(void **st)
{
    (void)st;
    char fast[THUE_NAME_KEY_SIZE], slow[THUE_NAME_KEY_SIZE];
    int taken = 0;
    for (int c = 0x20; c < 0x7f; c++) {
        char one[2] = {(char)c, 0};
        thue__name_key_ways(one, fast, slow);
        assert_true(slow[0] != '\0');
        if (fast[0]) {
            taken++;
            if (strcmp(fast, slow) != 0)
                fail_msg("'%c': the shortcut and ICU disagree", c);
        }
    }
    assert_true(taken >= 90); /* letters, digits and most punctuation take it */
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        char name[25];
        int n = 1 + (int)(i % 24);
        for (int j = 0; j < n; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            name[j] = (char)(0x20 + x % 95);
        }
        name[n] = '\0';
        thue__name_key_ways(name, fast, slow);
        if (fast[0] && strcmp(fast, slow) != 0)
            fail_msg("\"%s\": the shortcut and ICU disagree", name);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_table),
        cmocka_unit_test(test_names_keys),
        cmocka_unit_test(test_names_ascii_shortcut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
