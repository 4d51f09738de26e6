/*
 * password.c: Argon2id password hashes through libsodium (password.h).
 *
 * crypto_pwhash_str picks a random salt and writes the algorithm, its version, the costs
 * and the salt into the string with the hash; crypto_pwhash_str_verify reads them back,
 * so a hash keeps verifying after the server's costs change, and
 * crypto_pwhash_str_needs_rehash says when it was made with other ones. In libsodium
 * 1.0.18 crypto_pwhash_str is Argon2id (crypto_pwhash_ALG_DEFAULT); a stored string that
 * is not "$argon2id$" is refused before libsodium sees it, so a row edited by hand to an
 * Argon2i hash, or to anything else, matches nothing.
 */
#include "password.h"

#include <string.h>

#include <sodium.h>

#define ARGON2ID_PREFIX "$argon2id$"

_Static_assert(crypto_pwhash_STRBYTES <= THUE_PASSWORD_HASH_MAX,
               "THUE_PASSWORD_HASH_MAX must hold libsodium's hash strings");

int thue_password_init(void)
{
    return sodium_init() < 0 ? -1 : 0;
}

int thue_password_hash(const char *password, size_t len, const thue_password_cost *cost,
                       char out[THUE_PASSWORD_HASH_MAX])
{
    out[0] = '\0';
    if (password == NULL || cost == NULL || cost->ops < crypto_pwhash_OPSLIMIT_MIN ||
        cost->ops > crypto_pwhash_OPSLIMIT_MAX || cost->mem_bytes < crypto_pwhash_MEMLIMIT_MIN ||
        cost->mem_bytes > crypto_pwhash_MEMLIMIT_MAX)
        return -1;
    char buf[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(buf, password, (unsigned long long)len, (unsigned long long)cost->ops,
                          cost->mem_bytes) != 0)
        return -1;
    memcpy(out, buf, sizeof buf); /* NUL-terminated by libsodium */
    return 0;
}

int thue_password_hash_valid(const char *s)
{
    if (s == NULL)
        return 0;
    size_t n = strnlen(s, crypto_pwhash_STRBYTES);
    return n < crypto_pwhash_STRBYTES && strncmp(s, ARGON2ID_PREFIX, strlen(ARGON2ID_PREFIX)) == 0;
}

int thue_password_verify(const char *hash, const char *password, size_t len)
{
    if (!thue_password_hash_valid(hash) || password == NULL)
        return -1;
    /* libsodium wants a buffer of crypto_pwhash_STRBYTES: hash may be shorter. */
    char buf[crypto_pwhash_STRBYTES];
    memset(buf, 0, sizeof buf);
    memcpy(buf, hash, strlen(hash));
    return crypto_pwhash_str_verify(buf, password, (unsigned long long)len) == 0 ? 1 : 0;
}

int thue_password_needs_rehash(const char *hash, const thue_password_cost *cost)
{
    if (!thue_password_hash_valid(hash) || cost == NULL)
        return -1;
    char buf[crypto_pwhash_STRBYTES];
    memset(buf, 0, sizeof buf);
    memcpy(buf, hash, strlen(hash));
    int r = crypto_pwhash_str_needs_rehash(buf, (unsigned long long)cost->ops, cost->mem_bytes);
    return r < 0 ? -1 : r;
}

void thue_password_wipe(void *p, size_t size)
{
    if (p != NULL && size > 0)
        sodium_memzero(p, size);
}
