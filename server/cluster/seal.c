/*
 * seal.c: sealed messages, keyed token names, signed records (seal.h).
 *
 * A sealed message is one header line and the ciphertext:
 *
 *   T1 FROM BOOT SEQ TS MAC\n CIPHERTEXT
 *
 * FROM the sender's node name, BOOT its boot id (32 hex digits), SEQ its counter (from
 * 1, one per message of that boot, on any channel), TS its wall-clock time in ms, MAC
 * the HMAC-SHA256 (64 hex digits) under the messages' key of
 *
 *   "thue-msg-v1\n" CHANNEL "\n" "T1 FROM BOOT SEQ TS" "\n" CIPHERTEXT
 *
 * Neither a channel (printable, no space) nor a header field holds a newline, so the
 * text under the MAC reads only one way. The ciphertext is the payload XORed with
 * XChaCha20 under the encryption key, the nonce BOOT (16 bytes) and SEQ (8 bytes, big
 * endian): a boot id is random, and a counter is never used twice in one boot, so no
 * nonce repeats. Encrypt, then MAC: nothing is decrypted before it verifies.
 */
#include "seal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

/* ---- keys ------------------------------------------------------------------------------- */

static void derive(unsigned char out[32], const unsigned char *secret, size_t len,
                   const char *label)
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, secret, len);
    static const char head[] = "thue cluster key v1: ";
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)head, sizeof head - 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)label, strlen(label));
    crypto_auth_hmacsha256_final(&st, out);
    sodium_memzero(&st, sizeof st);
}

int thue_seal_keys_derive(thue_seal_keys *k, const unsigned char *secret, size_t len)
{
    if (k == NULL || secret == NULL || len < THUE_SEAL_SECRET_MIN || len > THUE_SEAL_SECRET_MAX ||
        sodium_init() < 0)
        return -1;
    derive(k->mac, secret, len, "messages mac");
    derive(k->enc, secret, len, "messages encryption");
    derive(k->token, secret, len, "resume tokens");
    derive(k->rec, secret, len, "records mac");
    return 0;
}

void thue_seal_keys_wipe(thue_seal_keys *k)
{
    if (k != NULL)
        sodium_memzero(k, sizeof *k);
}

uint64_t thue_seal_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void put_be64(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
}

static uint64_t get_be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

void thue_seal_boot_new(unsigned char boot[THUE_SEAL_BOOT])
{
    if (sodium_init() < 0) /* (thue_seal_keys_derive has started it already) */
        abort();
    put_be64(boot, thue_seal_now_ms());
    randombytes_buf(boot + 8, 8);
}

/* ---- text helpers ---------------------------------------------------------------------- */

static void to_hex(const unsigned char *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Exactly 2n lowercase hex digits into n bytes: 0, or -1. */
static int from_hex(const char *s, size_t len, unsigned char *out, size_t n)
{
    if (len != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

/* 1..20 decimal digits that fit 64 bits: 0, or -1. */
static int parse_u64(const char *s, size_t len, uint64_t *v)
{
    if (len < 1 || len > 20)
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

static bool node_name(const char *s, size_t len)
{
    if (len < 1 || len > 32)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

/* ---- messages -------------------------------------------------------------------------- */

static void message_mac(const thue_seal_keys *k, const char *channel, const char *head,
                        size_t headlen, const char *ct, size_t ctlen, unsigned char mac[32])
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, k->mac, sizeof k->mac);
    static const char tag[] = "thue-msg-v1\n";
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)tag, sizeof tag - 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)channel, strlen(channel));
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)"\n", 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)head, headlen);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)"\n", 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)ct, ctlen);
    crypto_auth_hmacsha256_final(&st, mac);
}

static void nonce_of(const unsigned char boot[THUE_SEAL_BOOT], uint64_t seq,
                     unsigned char nonce[crypto_stream_xchacha20_NONCEBYTES])
{
    memcpy(nonce, boot, THUE_SEAL_BOOT);
    put_be64(nonce + THUE_SEAL_BOOT, seq);
}

_Static_assert(crypto_stream_xchacha20_NONCEBYTES == THUE_SEAL_BOOT + 8,
               "the nonce is the boot id and the counter");

int thue_seal_message(const thue_seal_keys *k, const char *channel, const char *from,
                      const unsigned char boot[THUE_SEAL_BOOT], uint64_t seq, uint64_t ts_ms,
                      const char *payload, size_t len, char *out, size_t *outlen)
{
    if (k == NULL || channel == NULL || from == NULL || !node_name(from, strlen(from)) ||
        boot == NULL || (payload == NULL && len > 0) || out == NULL || outlen == NULL)
        return -1;
    char bootx[2 * THUE_SEAL_BOOT + 1];
    to_hex(boot, THUE_SEAL_BOOT, bootx);
    int hn = snprintf(out, THUE_SEAL_HEADER_MAX, "T1 %s %s %llu %llu", from, bootx,
                      (unsigned long long)seq, (unsigned long long)ts_ms);
    if (hn < 0 || hn + 1 + 64 + 1 > THUE_SEAL_HEADER_MAX)
        return -1;
    size_t headlen = (size_t)hn;
    size_t ctat = headlen + 1 + 64 + 1;
    char *ct = out + ctat;
    unsigned char nonce[crypto_stream_xchacha20_NONCEBYTES];
    nonce_of(boot, seq, nonce);
    if (len > 0)
        crypto_stream_xchacha20_xor((unsigned char *)ct, (const unsigned char *)payload, len,
                                    nonce, k->enc);
    unsigned char mac[32];
    message_mac(k, channel, out, headlen, ct, len, mac);
    out[headlen] = ' ';
    to_hex(mac, 32, out + headlen + 1); /* writes a NUL over the '\n' below */
    out[ctat - 1] = '\n';
    *outlen = ctat + len;
    return 0;
}

int thue_seal_open(const thue_seal_keys *k, const char *channel, const char *msg, size_t len,
                   thue_seal_opened *o, char *out, size_t *outlen)
{
    memset(o, 0, sizeof *o);
    size_t scan = len < THUE_SEAL_HEADER_MAX ? len : THUE_SEAL_HEADER_MAX;
    const char *nl = memchr(msg, '\n', scan);
    if (nl == NULL || scan < 3 || memcmp(msg, "T1 ", 3) != 0)
        return THUE_SEAL_UNSIGNED;
    /* Six fields separated by single spaces. */
    const char *f[6];
    size_t fl[6];
    const char *p = msg;
    int n = 0;
    while (p < nl && n < 6) {
        const char *sp = memchr(p, ' ', (size_t)(nl - p));
        const char *end = sp != NULL ? sp : nl;
        f[n] = p;
        fl[n] = (size_t)(end - p);
        n++;
        p = sp != NULL ? sp + 1 : nl;
    }
    if (n != 6 || p != nl || !node_name(f[1], fl[1]))
        return THUE_SEAL_UNSIGNED;
    memcpy(o->from, f[1], fl[1]);
    o->from[fl[1]] = '\0';
    unsigned char mac[32], want[32];
    if (from_hex(f[2], fl[2], o->boot, THUE_SEAL_BOOT) != 0 || parse_u64(f[3], fl[3], &o->seq) ||
        parse_u64(f[4], fl[4], &o->ts_ms) || from_hex(f[5], fl[5], mac, 32) != 0)
        return THUE_SEAL_UNSIGNED;
    const char *ct = nl + 1;
    size_t ctlen = len - (size_t)(ct - msg);
    message_mac(k, channel, msg, (size_t)(f[5] - 1 - msg), ct, ctlen, want);
    if (crypto_verify_32(mac, want) != 0)
        return THUE_SEAL_BAD;
    unsigned char nonce[crypto_stream_xchacha20_NONCEBYTES];
    nonce_of(o->boot, o->seq, nonce);
    if (ctlen > 0)
        crypto_stream_xchacha20_xor((unsigned char *)out, (const unsigned char *)ct, ctlen, nonce,
                                    k->enc);
    *outlen = ctlen;
    return 0;
}

/* ---- the replay guard ------------------------------------------------------------------- */

#define BOOTS 4
#define SENDERS 256

typedef struct seen_boot {
    unsigned char id[THUE_SEAL_BOOT];
    uint64_t started; /* the boot id's start time */
    uint64_t last;    /* the highest counter heard */
} seen_boot;

typedef struct sender {
    char name[33];
    int nboots;
    seen_boot boots[BOOTS];
    uint64_t floor;     /* boots that started at or before this are refused */
    uint64_t heard_ms;  /* when the last message of it passed (the receiver's clock) */
} sender;

struct thue_seal_replay {
    sender s[SENDERS];
    int n;
};

thue_seal_replay *thue_seal_replay_new(void)
{
    return calloc(1, sizeof(thue_seal_replay));
}

void thue_seal_replay_free(thue_seal_replay *r)
{
    free(r);
}

static sender *find_sender(thue_seal_replay *r, const char *name, uint64_t now, uint64_t max_age)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->s[i].name, name) == 0)
            return &r->s[i];
    int at = -1;
    if (r->n < SENDERS) {
        at = r->n++;
    } else {
        /* A sender silent for twice the age limit: any message of it heard before is too
         * old by now (its clock may run up to max_age ahead), so it can be forgotten. */
        uint64_t oldest = UINT64_MAX;
        for (int i = 0; i < r->n; i++)
            if (r->s[i].heard_ms < oldest && r->s[i].heard_ms <= now &&
                now - r->s[i].heard_ms > 2 * max_age) {
                oldest = r->s[i].heard_ms;
                at = i;
            }
        if (at < 0)
            return NULL;
    }
    sender *s = &r->s[at];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

int thue_seal_replay_check(thue_seal_replay *r, const thue_seal_opened *o, uint64_t now_ms,
                           uint64_t max_age_ms, const char **why)
{
    const char *ignored;
    if (why == NULL)
        why = &ignored;
    if (o->ts_ms + max_age_ms < now_ms) {
        *why = "too old (a replay, or the sender's clock is behind)";
        return THUE_SEAL_REPLAYED;
    }
    if (o->ts_ms > now_ms + max_age_ms) {
        *why = "from the future (the sender's clock is ahead)";
        return THUE_SEAL_REPLAYED;
    }
    sender *s = find_sender(r, o->from, now_ms, max_age_ms);
    if (s == NULL) {
        *why = "from more senders than remembered";
        return THUE_SEAL_REPLAYED;
    }
    uint64_t started = get_be64(o->boot);
    seen_boot *b = NULL;
    for (int i = 0; i < s->nboots; i++)
        if (memcmp(s->boots[i].id, o->boot, THUE_SEAL_BOOT) == 0)
            b = &s->boots[i];
    if (b != NULL) {
        if (o->seq <= b->last) {
            *why = "seen before (its counter is not newer)";
            return THUE_SEAL_REPLAYED;
        }
        b->last = o->seq;
        s->heard_ms = now_ms;
        return 0;
    }
    if (s->nboots > 0 && started <= s->floor) {
        *why = "from a boot of the sender older than those remembered";
        return THUE_SEAL_REPLAYED;
    }
    if (s->nboots == BOOTS) {
        /* The boot that started first goes; boots no newer than it are refused from now. */
        int first = 0;
        for (int i = 1; i < BOOTS; i++)
            if (s->boots[i].started < s->boots[first].started)
                first = i;
        if (s->boots[first].started > s->floor)
            s->floor = s->boots[first].started;
        s->boots[first] = s->boots[--s->nboots];
        if (started <= s->floor) {
            *why = "from a boot of the sender older than those remembered";
            return THUE_SEAL_REPLAYED;
        }
    }
    b = &s->boots[s->nboots++];
    memcpy(b->id, o->boot, THUE_SEAL_BOOT);
    b->started = started;
    b->last = o->seq;
    s->heard_ms = now_ms;
    return 0;
}

/* ---- tokens and records ------------------------------------------------------------------ */

void thue_seal_token_key(const thue_seal_keys *k, const char *token, char hex[THUE_SEAL_HEX])
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, k->token, sizeof k->token);
    static const char tag[] = "thue-token-v1\n";
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)tag, sizeof tag - 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)token, strlen(token));
    unsigned char mac[32];
    crypto_auth_hmacsha256_final(&st, mac);
    to_hex(mac, 32, hex);
}

static void record_mac(const thue_seal_keys *k, const char *kind, const char *key,
                       const char *text, size_t len, unsigned char mac[32])
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, k->rec, sizeof k->rec);
    static const char tag[] = "thue-rec-v1\n";
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)tag, sizeof tag - 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)kind, strlen(kind));
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)"\n", 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)key, strlen(key));
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)"\n", 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)text, len);
    crypto_auth_hmacsha256_final(&st, mac);
}

void thue_seal_record_mac(const thue_seal_keys *k, const char *kind, const char *key,
                          const char *text, size_t len, char hex[THUE_SEAL_HEX])
{
    unsigned char mac[32];
    record_mac(k, kind, key, text, len, mac);
    to_hex(mac, 32, hex);
}

bool thue_seal_record_verify(const thue_seal_keys *k, const char *kind, const char *key,
                             const char *text, size_t len, const char *hex, size_t hexlen)
{
    unsigned char mac[32], want[32];
    if (hex == NULL || from_hex(hex, hexlen, mac, 32) != 0)
        return false;
    record_mac(k, kind, key, text, len, want);
    return crypto_verify_32(mac, want) == 0;
}

/* The text under a ticket's HMAC: its fields and expiry, one a line. */
static char *ticket_text(const char *pool, const char *node, const char *id, const char *player,
                         const char *name, const char *rating, uint64_t expires, size_t *len)
{
    const char *parts[] = {pool, node, id, player, name, rating};
    size_t n = 32;
    for (size_t i = 0; i < 6; i++) {
        if (parts[i] == NULL)
            return NULL;
        n += strlen(parts[i]) + 1;
    }
    char *t = malloc(n);
    if (t == NULL)
        return NULL;
    int w = snprintf(t, n, "%s\n%s\n%s\n%s\n%s\n%s\n%llu", pool, node, id, player, name, rating,
                     (unsigned long long)expires);
    if (w < 0 || (size_t)w >= n) {
        free(t);
        return NULL;
    }
    *len = (size_t)w;
    return t;
}

void thue_seal_ticket_sign(const thue_seal_keys *k, const char *pool, const char *node,
                           const char *id, const char *player, const char *name,
                           const char *rating, uint64_t expires_ms, char sig[THUE_SEAL_SIG_MAX])
{
    size_t len;
    char *t = ticket_text(pool, node, id, player, name, rating, expires_ms, &len);
    char hex[THUE_SEAL_HEX] = "";
    if (t != NULL)
        thue_seal_record_mac(k, "ticket", pool, t, len, hex);
    free(t);
    snprintf(sig, THUE_SEAL_SIG_MAX, "%llu.%s", (unsigned long long)expires_ms, hex);
}

int thue_seal_ticket_check(const thue_seal_keys *k, const char *pool, const char *node,
                           const char *id, const char *player, const char *name,
                           const char *rating, const char *sig, uint64_t now_ms)
{
    const char *dot = sig != NULL ? strchr(sig, '.') : NULL;
    uint64_t expires;
    if (dot == NULL || parse_u64(sig, (size_t)(dot - sig), &expires) != 0 ||
        strlen(dot + 1) != 64)
        return THUE_SEAL_UNSIGNED;
    size_t len;
    char *t = ticket_text(pool, node, id, player, name, rating, expires, &len);
    if (t == NULL)
        return THUE_SEAL_BAD;
    bool ok = thue_seal_record_verify(k, "ticket", pool, t, len, dot + 1, 64);
    free(t);
    if (!ok)
        return THUE_SEAL_BAD;
    if (expires + THUE_SEAL_MAX_AGE_MS < now_ms)
        return THUE_SEAL_REPLAYED;
    return 0;
}
