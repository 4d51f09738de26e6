/*
 * quota.h: what the network layer and the lobby count per client: the key an address is
 * counted under, and keyed token buckets and counters (rooms created per address, claims
 * per address, /api requests per address, bot seats per owner, ...).
 *
 * Addresses. One person on the open internet usually holds one IPv4 address but a whole
 * IPv6 /64 (RFC 4291: a /64 is one link, handed to one customer), so limits count IPv6
 * clients by their /64 and IPv4 clients (IPv4-mapped IPv6 included) by their address.
 *
 * Buckets. A limiter is a table of token buckets, one per key, that all share one rate
 * and burst: a key seen for the first time starts full, and a take succeeds while the
 * bucket holds a token. A bucket that has refilled to full carries no information, so it
 * is forgotten when the table needs room: memory stays bounded by max_keys however many
 * keys come and go. When the table is full of keys that are all still draining, a new key
 * is let through untracked (and counted in `untracked`): a per-key limit is a defence
 * against a few addresses; the server's total limits are what stop a crowd.
 *
 * Times are monotonic milliseconds given by the caller, so that tests control the clock.
 * Not thread-safe: each table belongs to one thread (the loop thread, in the server).
 */
#ifndef THUE_SERVER_QUOTA_H
#define THUE_SERVER_QUOTA_H

#include <stddef.h>
#include <stdint.h>

/* The longest key (an address key, an owner's name with a prefix) with its NUL. */
#define THUE_LIMIT_KEY_MAX 72

/*
 * The key of a peer address text into out (size >= THUE_LIMIT_KEY_MAX): an IPv4 address,
 * or an IPv4-mapped IPv6 one, as dotted decimal ("203.0.113.7"); an IPv6 address as its
 * /64 ("2001:db8:1:2::/64"); anything else (not an address: "unknown") as given, cut to
 * fit. Two addresses of one /64 give the same key, and only they do.
 */
void thue_addr_key(const char *ip, char *out, size_t size);

typedef struct thue_limiter thue_limiter;

/*
 * A limiter whose buckets refill at `rate` tokens a second and hold at most `burst`
 * (>= 1), tracking at most max_keys keys (>= 1). NULL on bad arguments or out of memory.
 */
thue_limiter *thue_limiter_new(double rate, double burst, size_t max_keys);
/* Frees it (NULL: no-op). */
void thue_limiter_free(thue_limiter *lim);
/*
 * Takes one token from key's bucket at time now_ms: 1 when there was one, 0 when the
 * bucket is empty (nothing changes then). *retry_ms (may be NULL) is set, on 0, to the
 * milliseconds until a token is there (at least 1). Out of memory, or a full table of
 * draining keys, lets the take through (1) untracked.
 */
int thue_limiter_take(thue_limiter *lim, const char *key, uint64_t now_ms, uint64_t *retry_ms);
/* The tokens key would hold at now_ms (burst for a key the table does not hold). */
double thue_limiter_tokens(const thue_limiter *lim, const char *key, uint64_t now_ms);
/* Keys tracked now, and takes let through untracked so far. */
size_t thue_limiter_size(const thue_limiter *lim);
uint64_t thue_limiter_untracked(const thue_limiter *lim);

typedef struct thue_counts thue_counts;

/* A table of counts per key (what a key holds now: connections, bot seats, open
 * tournaments). Keys at zero take no memory. NULL when out of memory. */
thue_counts *thue_counts_new(void);
void thue_counts_free(thue_counts *c);
/* key's count. */
long thue_counts_get(const thue_counts *c, const char *key);
/* Adds delta (may be negative) to key's count: the new count, or -1 when out of memory
 * (nothing changed then). A count never goes below zero: a decrement past it stops at 0. */
long thue_counts_add(thue_counts *c, const char *key, long delta);
/* Keys with a non-zero count. */
size_t thue_counts_size(const thue_counts *c);

#endif
