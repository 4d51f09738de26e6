/*
 * seal.h: what lets a node trust what it reads from Redis (internal to server/cluster;
 * docs/cluster.md, "Security"). Everything is keyed by the cluster secret, which every
 * node has and Redis never sees:
 *
 *   - messages (broadcasts and messages to one node) are sealed: the payload is encrypted
 *     (XChaCha20, the nonce the sender's boot id and counter) and the whole of it (the
 *     channel, which names the recipient, the sender's name, boot id, counter, time and
 *     the ciphertext) carries an HMAC-SHA256. A receiver drops what does not verify, and,
 *     with thue_seal_replay, what it has seen before or what is too old;
 *   - resume tokens are stored under a keyed hash of the token (HMAC-SHA256), never in
 *     clear;
 *   - records Redis keeps for the nodes (sessions, quick-match tickets) carry an HMAC of
 *     their content and of the key they live under.
 *
 * Every key is derived from the secret (HMAC-SHA256 with the secret as the key, over a
 * label), one per use. Pure functions and a small table; loop thread only.
 */
#ifndef THUE_SERVER_CLUSTER_SEAL_H
#define THUE_SERVER_CLUSTER_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THUE_SEAL_SECRET_MIN 32   /* bytes of secret at least */
#define THUE_SEAL_SECRET_MAX 4096 /* and at most */
#define THUE_SEAL_BOOT 16         /* a sender's boot id: 8 bytes of start time (ms), 8 random */
#define THUE_SEAL_HEADER_MAX 200  /* a sealed message's header line at most, its '\n' included */
#define THUE_SEAL_MAX_AGE_MS 60000u /* a message older (or newer) than this is refused */
#define THUE_SEAL_HEX 65          /* an HMAC in hex, with its NUL */
#define THUE_SEAL_SIG_MAX 90      /* a ticket's signature ("EXPIRY.HEX"), with its NUL */

/* The keys derived from the secret. */
typedef struct thue_seal_keys {
    unsigned char mac[32];   /* messages' HMAC */
    unsigned char enc[32];   /* messages' encryption */
    unsigned char token[32]; /* resume tokens' key names */
    unsigned char rec[32];   /* records' HMAC (sessions, tickets) */
} thue_seal_keys;

/* The outcome of opening or checking a message: 0 or one of these. */
enum {
    THUE_SEAL_UNSIGNED = 1, /* not a sealed message at all (no header, another format) */
    THUE_SEAL_BAD = 2,      /* the HMAC does not verify: forged, altered, or another secret */
    THUE_SEAL_REPLAYED = 3, /* genuine, but seen before, from an older boot, or too old */
};

/* Derives the keys; -1 when the secret is shorter than THUE_SEAL_SECRET_MIN or longer
 * than THUE_SEAL_SECRET_MAX (or libsodium cannot start). */
int thue_seal_keys_derive(thue_seal_keys *k, const unsigned char *secret, size_t len);
/* Wipes the keys. */
void thue_seal_keys_wipe(thue_seal_keys *k);

/* A new boot id (its start time now, random bytes). */
void thue_seal_boot_new(unsigned char boot[THUE_SEAL_BOOT]);
/* Wall-clock milliseconds (what messages and tickets carry as times). */
uint64_t thue_seal_now_ms(void);

/*
 * Seals payload (len bytes) from node `from` for `channel` (the whole channel name, the
 * key prefix included: it names the recipient) with the sender's boot id, counter and
 * time: out gets the header line and the ciphertext, *outlen their length. out must hold
 * THUE_SEAL_HEADER_MAX + len bytes. -1 on a bad argument.
 */
int thue_seal_message(const thue_seal_keys *k, const char *channel, const char *from,
                      const unsigned char boot[THUE_SEAL_BOOT], uint64_t seq, uint64_t ts_ms,
                      const char *payload, size_t len, char *out, size_t *outlen);

/* What a sealed message says of itself once it verifies. */
typedef struct thue_seal_opened {
    char from[33];
    unsigned char boot[THUE_SEAL_BOOT];
    uint64_t seq, ts_ms;
} thue_seal_opened;

/*
 * Opens msg (len bytes) heard on channel: 0 with the header in *o and the payload in out
 * (which must hold len bytes; *outlen its length), THUE_SEAL_UNSIGNED or THUE_SEAL_BAD.
 * On THUE_SEAL_BAD, o->from holds the sender's name as claimed when it reads as one ("").
 * The replay check is the caller's (thue_seal_replay_check), after this.
 */
int thue_seal_open(const thue_seal_keys *k, const char *channel, const char *msg, size_t len,
                   thue_seal_opened *o, char *out, size_t *outlen);

/*
 * The replay guard: per sender name, the boots heard lately (at most 4; older boots are
 * refused past those) and for each the highest counter. A message passes when its time
 * is within max_age_ms of now (either way) and its counter is higher than every earlier
 * one of its boot; a boot not heard before passes when it is newer than the ones
 * forgotten. At most 256 senders are remembered (one not heard from for twice max_age_ms
 * makes room); beyond that new senders are refused.
 */
typedef struct thue_seal_replay thue_seal_replay;
thue_seal_replay *thue_seal_replay_new(void);
void thue_seal_replay_free(thue_seal_replay *r);
/* 0 (and remembered), or THUE_SEAL_REPLAYED with a short reason in *why (static). */
int thue_seal_replay_check(thue_seal_replay *r, const thue_seal_opened *o, uint64_t now_ms,
                           uint64_t max_age_ms, const char **why);

/* The name under which a resume token is kept: the HMAC of the token, in hex. */
void thue_seal_token_key(const thue_seal_keys *k, const char *token, char hex[THUE_SEAL_HEX]);

/* A record's HMAC over its kind, the key it lives under and its text, in hex. */
void thue_seal_record_mac(const thue_seal_keys *k, const char *kind, const char *key,
                          const char *text, size_t len, char hex[THUE_SEAL_HEX]);
/* Whether hex (len bytes) is that HMAC (in constant time). */
bool thue_seal_record_verify(const thue_seal_keys *k, const char *kind, const char *key,
                             const char *text, size_t len, const char *hex, size_t hexlen);

/*
 * A quick-match ticket's signature: "EXPIRY.HMAC" over the pool and the ticket's fields
 * (the rating as the text that travels), EXPIRY its end in wall-clock ms. The check
 * refuses a bad HMAC (THUE_SEAL_BAD, THUE_SEAL_UNSIGNED when sig is not one) and a ticket
 * past its expiry by more than THUE_SEAL_MAX_AGE_MS (THUE_SEAL_REPLAYED).
 */
void thue_seal_ticket_sign(const thue_seal_keys *k, const char *pool, const char *node,
                           const char *id, const char *player, const char *name,
                           const char *rating, uint64_t expires_ms, char sig[THUE_SEAL_SIG_MAX]);
int thue_seal_ticket_check(const thue_seal_keys *k, const char *pool, const char *node,
                           const char *id, const char *player, const char *name,
                           const char *rating, const char *sig, uint64_t now_ms);

#endif
