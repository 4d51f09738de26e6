/*
 * test_password.c: Argon2id password hashes (server/password.h): a hash verifies its own
 * password and no other, carries its costs (a change of costs asks for a rehash, and the
 * old hash still verifies), holds no trace of the password, and a stored string that is
 * not an Argon2id hash of ours matches nothing. Small costs (1 pass, 8 MiB) keep it fast.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "password.h"

static const thue_password_cost CHEAP = {1, 8u << 20};
static const thue_password_cost OTHER = {2, 8u << 20};

static int setup(void **state)
{
    (void)state;
    return thue_password_init();
}

static void test_password_round_trip(void **state)
{
    (void)state;
    char h[THUE_PASSWORD_HASH_MAX];
    const char *pw = "correct horse battery";
    assert_int_equal(thue_password_hash(pw, strlen(pw), &CHEAP, h), 0);
    assert_true(strncmp(h, "$argon2id$", 10) == 0);
    assert_true(thue_password_hash_valid(h));
    assert_null(strstr(h, pw));
    assert_null(strstr(h, "horse"));
    assert_int_equal(thue_password_verify(h, pw, strlen(pw)), 1);
    /* Another password, a prefix, one more byte, the empty one: no. */
    assert_int_equal(thue_password_verify(h, "correct horse batterY", 21), 0);
    assert_int_equal(thue_password_verify(h, pw, strlen(pw) - 1), 0);
    assert_int_equal(thue_password_verify(h, "correct horse battery!", 22), 0);
    assert_int_equal(thue_password_verify(h, "", 0), 0);
}

static void test_password_salted(void **state)
{
    (void)state;
    char a[THUE_PASSWORD_HASH_MAX], b[THUE_PASSWORD_HASH_MAX];
    assert_int_equal(thue_password_hash("12345678", 8, &CHEAP, a), 0);
    assert_int_equal(thue_password_hash("12345678", 8, &CHEAP, b), 0);
    assert_string_not_equal(a, b); /* a fresh salt each time */
    assert_int_equal(thue_password_verify(a, "12345678", 8), 1);
    assert_int_equal(thue_password_verify(b, "12345678", 8), 1);
}

static void test_password_unicode_bytes(void **state)
{
    (void)state;
    /* The bytes are hashed as they come: NFC and NFD forms are two passwords. */
    const char *nfc = "Gr\xc3\xbc\xc3\x9f" "e aus K\xc3\xb6ln";
    const char *nfd = "Gru\xcc\x88\xc3\x9f" "e aus K\xc3\xb6ln";
    char h[THUE_PASSWORD_HASH_MAX];
    assert_int_equal(thue_password_hash(nfc, strlen(nfc), &CHEAP, h), 0);
    assert_int_equal(thue_password_verify(h, nfc, strlen(nfc)), 1);
    assert_int_equal(thue_password_verify(h, nfd, strlen(nfd)), 0);
}

static void test_password_costs(void **state)
{
    (void)state;
    char h[THUE_PASSWORD_HASH_MAX];
    assert_int_equal(thue_password_hash("staple battery", 14, &CHEAP, h), 0);
    assert_non_null(strstr(h, "m=8192,t=1,p=1"));
    assert_int_equal(thue_password_needs_rehash(h, &CHEAP), 0);
    assert_int_equal(thue_password_needs_rehash(h, &OTHER), 1);
    /* Made under other costs, it still verifies. */
    char h2[THUE_PASSWORD_HASH_MAX];
    assert_int_equal(thue_password_hash("staple battery", 14, &OTHER, h2), 0);
    assert_int_equal(thue_password_verify(h2, "staple battery", 14), 1);
    assert_int_equal(thue_password_needs_rehash(h2, &CHEAP), 1);
    /* Costs libsodium refuses: an error, and an empty string. */
    thue_password_cost none = {0, 8u << 20};
    assert_int_equal(thue_password_hash("12345678", 8, &none, h), -1);
    assert_string_equal(h, "");
    thue_password_cost tiny = {1, 1024};
    assert_int_equal(thue_password_hash("12345678", 8, &tiny, h), -1);
}

static void test_password_foreign_hashes(void **state)
{
    (void)state;
    char h[THUE_PASSWORD_HASH_MAX];
    assert_int_equal(thue_password_hash("12345678", 8, &CHEAP, h), 0);
    /* Not ours: an Argon2i hash, garbage, an empty string, NULL, a cut one, a long one. */
    char other[THUE_PASSWORD_HASH_MAX];
    snprintf(other, sizeof other, "$argon2i$%s", h + strlen("$argon2id$"));
    const char *bad[] = {other, "12345678", "", "$argon2id$", "$argon2id$v=19$m=8192,t=1,p=1$"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_true(thue_password_verify(bad[i], "12345678", 8) <= 0);
    assert_false(thue_password_hash_valid(other));
    assert_false(thue_password_hash_valid(NULL));
    assert_int_equal(thue_password_verify(NULL, "12345678", 8), -1);
    assert_int_equal(thue_password_needs_rehash("nonsense", &CHEAP), -1);
    char cut[THUE_PASSWORD_HASH_MAX];
    snprintf(cut, sizeof cut, "%.*s", (int)strlen(h) - 5, h);
    assert_int_equal(thue_password_verify(cut, "12345678", 8), 0);
    char longer[400];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    memcpy(longer, "$argon2id$", 10);
    assert_false(thue_password_hash_valid(longer));
    assert_int_equal(thue_password_verify(longer, "12345678", 8), -1);
}

static void test_password_wipe(void **state)
{
    (void)state;
    char buf[32] = "secret password";
    thue_password_wipe(buf, sizeof buf);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0);
    thue_password_wipe(NULL, 10); /* harmless */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_password_round_trip),
        cmocka_unit_test(test_password_salted),
        cmocka_unit_test(test_password_unicode_bytes),
        cmocka_unit_test(test_password_costs),
        cmocka_unit_test(test_password_foreign_hashes),
        cmocka_unit_test(test_password_wipe),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
