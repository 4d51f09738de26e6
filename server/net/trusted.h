/*
 * trusted.h: the entries of --trusted-proxy. server/config.c checks and normalizes them,
 * server/net/net.c reads the normalized list, server/net/peer.c matches peers and
 * X-Forwarded-For hops against it.
 *
 * An entry is an IPv4 or IPv6 address (10.0.0.7, ::1) or a prefix, ADDRESS/BITS
 * (10.244.0.0/16, fd00::/8): a network whose every address is trusted. BITS is 0..32
 * for an IPv4 address and 0..128 for an IPv6 one; an address alone is its /32 or /128.
 *
 * One form for both families: an entry is 16 bytes and a prefix length 0..128, an IPv4
 * address a.b.c.d as the IPv4-mapped ::ffff:a.b.c.d and its /N as /(96+N). Hence:
 *   - an IPv4 prefix matches an IPv4 peer, and the same peer seen as IPv4-mapped IPv6
 *     (a dual-stack socket's ::ffff:a.b.c.d, or such a hop in X-Forwarded-For);
 *   - an entry written as an IPv4-mapped prefix (::ffff:10.0.0.0/104) is the IPv4 one
 *     and is shown so (10.0.0.0/8);
 *   - an IPv6 prefix that contains ::ffff:0:0/96 (::/0, ::/80) contains every IPv4
 *     address too, as a dual-stack socket would see them.
 *
 * A prefix whose address has bits set past its length (10.244.1.0/16) is refused rather
 * than rounded down: it is a typo either way (for 10.244.1.0/24, or for the network
 * 10.244.0.0/16), and guessing the wider one would trust addresses nobody meant to. The
 * parse still gives the network so that the message can name it.
 *
 * Header-only (static functions): config.c is built into the settings tests without
 * the network library, and the unit test (tests/unit/test_trusted_proxy.c) includes it
 * as it is.
 */
#ifndef THUE_NET_TRUSTED_H
#define THUE_NET_TRUSTED_H

#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* A trusted network: b masked to its first bits bits. */
typedef struct thue_trusted {
    unsigned char b[16]; /* IPv6; an IPv4 network as ::ffff:a.b.c.d */
    int bits;            /* 0..128; an IPv4 /N is 96+N */
} thue_trusted;

/* thue_trusted_parse's answers. */
enum {
    THUE_TRUSTED_OK = 0,
    THUE_TRUSTED_EADDR = -1, /* the part before '/' is not an IPv4 or IPv6 address */
    THUE_TRUSTED_EBITS = -2, /* what follows '/' is not a number within 0..32 (0..128) */
    THUE_TRUSTED_EHOST = -3, /* the address has bits set past the prefix length */
};

/* The longest text of an entry thue_trusted_format writes, with its '\0'. */
#define THUE_TRUSTED_TEXT_MAX (INET6_ADDRSTRLEN + 4)

/* The first 12 bytes of an IPv4-mapped IPv6 address (::ffff:0:0/96). */
#define THUE_TRUSTED_V4_MAPPED "\0\0\0\0\0\0\0\0\0\0\xff\xff"

/* 1 when t is an IPv4 network (within ::ffff:0:0/96, at least that long). */
static inline int thue_trusted_is_v4(const thue_trusted *t)
{
    return t->bits >= 96 && memcmp(t->b, THUE_TRUSTED_V4_MAPPED, 12) == 0;
}

/* 1 when a and b agree in their first bits bits (0..128). */
static inline int thue_trusted_same_prefix(const unsigned char *a, const unsigned char *b,
                                           int bits)
{
    int whole = bits / 8, rest = bits % 8;
    if (memcmp(a, b, (size_t)whole) != 0)
        return 0;
    if (rest == 0)
        return 1;
    unsigned char mask = (unsigned char)(0xffu << (8 - rest));
    return ((a[whole] ^ b[whole]) & mask) == 0;
}

/*
 * Parses one entry, "ADDRESS" or "ADDRESS/BITS", nothing around it. THUE_TRUSTED_OK and
 * *t; or a THUE_TRUSTED_E... code:
 *   EADDR: *t untouched;
 *   EBITS: t->bits is the longest prefix the address's family allows (32 or 128);
 *   EHOST: *t is the network the address is in at that length (for the message).
 */
static inline int thue_trusted_parse(const char *text, thue_trusted *t)
{
    char addr[INET6_ADDRSTRLEN];
    const char *slash = strchr(text, '/');
    size_t n = slash ? (size_t)(slash - text) : strlen(text);
    if (n == 0 || n >= sizeof addr)
        return THUE_TRUSTED_EADDR;
    memcpy(addr, text, n);
    addr[n] = '\0';
    unsigned char raw[16];
    int v4 = 0;
    if (inet_pton(AF_INET, addr, raw + 12) == 1) {
        memcpy(raw, THUE_TRUSTED_V4_MAPPED, 12);
        v4 = 1;
    } else if (inet_pton(AF_INET6, addr, raw) != 1) {
        return THUE_TRUSTED_EADDR;
    }
    int max = v4 ? 32 : 128, bits = max;
    if (slash != NULL) {
        const char *d = slash + 1;
        size_t nd = strspn(d, "0123456789");
        bits = 0;
        for (size_t i = 0; i < nd && i < 4; i++)
            bits = bits * 10 + (d[i] - '0');
        if (nd == 0 || nd > 3 || d[nd] != '\0' || bits > max) {
            t->bits = max;
            return THUE_TRUSTED_EBITS;
        }
    }
    t->bits = v4 ? 96 + bits : bits;
    int whole = t->bits / 8, rest = t->bits % 8;
    memset(t->b, 0, sizeof t->b);
    memcpy(t->b, raw, (size_t)whole);
    if (rest != 0)
        t->b[whole] = (unsigned char)(raw[whole] & (0xffu << (8 - rest)));
    return memcmp(t->b, raw, sizeof raw) == 0 ? THUE_TRUSTED_OK : THUE_TRUSTED_EHOST;
}

/* The entry's text into buf (THUE_TRUSTED_TEXT_MAX is enough): an IPv4 network in IPv4
 * form, an address alone without /32 or /128 ("10.244.0.0/16", "fd00::/8", "::1"). */
static inline void thue_trusted_format(const thue_trusted *t, char *buf, size_t size)
{
    char a[INET6_ADDRSTRLEN];
    int v4 = thue_trusted_is_v4(t);
    int bits = v4 ? t->bits - 96 : t->bits;
    if (inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? t->b + 12 : t->b, a, sizeof a) == NULL)
        snprintf(a, sizeof a, "?");
    if (bits == (v4 ? 32 : 128))
        snprintf(buf, size, "%s", a);
    else
        snprintf(buf, size, "%s/%d", a, bits);
}

/* 1 when the address a (len 4: IPv4; len 16: IPv6, IPv4-mapped or not) is in t. */
static inline int thue_trusted_match(const thue_trusted *t, const unsigned char *a, int len)
{
    unsigned char a16[16];
    if (len == 4) {
        memcpy(a16, THUE_TRUSTED_V4_MAPPED, 12);
        memcpy(a16 + 12, a, 4);
        a = a16;
    } else if (len != 16) {
        return 0;
    }
    return thue_trusted_same_prefix(t->b, a, t->bits);
}

#endif
