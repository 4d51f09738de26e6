/*
 * password.h: account passwords (PROTOCOL.md section 9, "Passwords"): Argon2id hashes in
 * libsodium's string form ("$argon2id$v=19$m=65536,t=2,p=1$SALT$HASH", salt and
 * parameters included, so that a hash made under older costs still verifies).
 *
 * Hashing and verifying are slow on purpose (tens to hundreds of milliseconds, and
 * `mem_bytes` of memory each): call them on a worker thread, never on the loop thread
 * (the lobby runs them as pool tasks, lobby/passwords.c). Everything here is thread-safe
 * once thue_password_init has run; nothing keeps state.
 *
 * A password is never logged, and these functions never copy it anywhere but libsodium's
 * own work area.
 */
#ifndef THUE_SERVER_PASSWORD_H
#define THUE_SERVER_PASSWORD_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes of a hash string, its NUL included (libsodium's crypto_pwhash_STRBYTES). */
#define THUE_PASSWORD_HASH_MAX 128

/* The costs of a new hash: Argon2id's passes (opslimit) and memory in bytes (memlimit). */
typedef struct thue_password_cost {
    uint64_t ops;
    size_t mem_bytes;
} thue_password_cost;

/* The defaults: libsodium's INTERACTIVE limits (2 passes, 64 MiB). */
#define THUE_PASSWORD_OPS_DEFAULT 2
#define THUE_PASSWORD_MEM_MIB_DEFAULT 64
/* The ranges the server's flags allow (libsodium's own minimums are 1 pass and 8 KiB). */
#define THUE_PASSWORD_OPS_MIN 1
#define THUE_PASSWORD_OPS_MAX 20
#define THUE_PASSWORD_MEM_MIB_MIN 1
#define THUE_PASSWORD_MEM_MIB_MAX 4096

/* sodium_init: 0, or -1 when libsodium cannot start (no random source). Call it once at
 * start-up, before any thread uses the functions below; calling it again is harmless. */
int thue_password_init(void);

/* Hashes len bytes of password with a fresh random salt into out (THUE_PASSWORD_HASH_MAX
 * bytes, a NUL-terminated string). 0, or -1 when the cost cannot be met (out of memory,
 * or a cost outside libsodium's limits); out is then "". */
int thue_password_hash(const char *password, size_t len, const thue_password_cost *cost,
                       char out[THUE_PASSWORD_HASH_MAX]);

/* Whether password matches hash: 1 yes, 0 no, -1 when hash is not a hash this server can
 * check (then nothing matches it). */
int thue_password_verify(const char *hash, const char *password, size_t len);

/* Whether hash was made with other costs than cost (then a successful login hashes the
 * password again): 1 yes, 0 no, -1 when hash is not one of ours. */
int thue_password_needs_rehash(const char *hash, const thue_password_cost *cost);

/* Whether s is in the form of a stored hash: an Argon2id string that fits
 * THUE_PASSWORD_HASH_MAX. Cheap (no hashing): for checking what the database gives. */
int thue_password_hash_valid(const char *s);

/* Overwrites size bytes at p with zeros in a way the compiler keeps (sodium_memzero). */
void thue_password_wipe(void *p, size_t size);

#endif
