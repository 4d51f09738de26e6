/*
 * test_trusted_proxy.c: --trusted-proxy's entries (server/net/trusted.h) against a naive
 * reference that works bit by bit: parsing ADDRESS[/BITS] (the network, the prefix
 * length, "bits set past the prefix"), the normalized text, and matching addresses
 * (IPv4, IPv6, IPv4-mapped IPv6) against networks of every length, over random
 * networks and addresses built to sit on either side of each prefix's boundary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/trusted.h"

/* ---- the reference: one bit at a time ---------------------------------------------- */

static int bit_of(const unsigned char *a, int i)
{
    return (a[i / 8] >> (7 - i % 8)) & 1;
}

static void bit_set(unsigned char *a, int i, int v)
{
    if (v)
        a[i / 8] = (unsigned char)(a[i / 8] | (1u << (7 - i % 8)));
    else
        a[i / 8] = (unsigned char)(a[i / 8] & ~(1u << (7 - i % 8)));
}

/* a as 16 bytes: an IPv4 address (len 4) as ::ffff:a.b.c.d. */
static void ref_widen(const unsigned char *a, int len, unsigned char out[16])
{
    if (len == 16) {
        memcpy(out, a, 16);
        return;
    }
    memset(out, 0, 10);
    out[10] = out[11] = 0xff;
    memcpy(out + 12, a, 4);
}

/* 1 when the first bits bits of net16 and the (widened) address agree. */
static int ref_match(const unsigned char net16[16], int bits, const unsigned char *a, int len)
{
    unsigned char w[16];
    ref_widen(a, len, w);
    for (int i = 0; i < bits; i++)
        if (bit_of(net16, i) != bit_of(w, i))
            return 0;
    return 1;
}

/* The network of a16 at bits (every later bit cleared); 1 when one was set. */
static int ref_network(const unsigned char a16[16], int bits, unsigned char out[16])
{
    int host = 0;
    memcpy(out, a16, 16);
    for (int i = bits; i < 128; i++) {
        host |= bit_of(out, i);
        bit_set(out, i, 0);
    }
    return host;
}

/* ---- random numbers (fixed seed: the same cases every run) ------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static int rnd_below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

static void rnd_bytes(unsigned char *b, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)rnd();
    /* Now and then runs of zeros and ones, as real addresses have (and "::" forms). */
    if (rnd_below(3) == 0) {
        int from = rnd_below(n), to = from + rnd_below(n - from + 1);
        memset(b + from, rnd_below(2) ? 0 : 0xff, (size_t)(to - from));
    }
}

/* ---- parsing --------------------------------------------------------------------- */

static void expect_parse(const char *text, int code, const char *shown)
{
    thue_trusted t;
    int r = thue_trusted_parse(text, &t);
    if (r != code)
        fail_msg("\"%s\": %d, expected %d", text, r, code);
    if (shown != NULL) {
        char buf[THUE_TRUSTED_TEXT_MAX];
        thue_trusted_format(&t, buf, sizeof buf);
        if (strcmp(buf, shown) != 0)
            fail_msg("\"%s\" is shown as \"%s\", expected \"%s\"", text, buf, shown);
    }
}

static void test_parse_examples(void **state)
{
    (void)state;
    /* Addresses alone, networks, their normalized text. */
    expect_parse("10.0.0.7", THUE_TRUSTED_OK, "10.0.0.7");
    expect_parse("10.244.0.0/16", THUE_TRUSTED_OK, "10.244.0.0/16");
    expect_parse("10.0.0.7/32", THUE_TRUSTED_OK, "10.0.0.7");
    expect_parse("0.0.0.0/0", THUE_TRUSTED_OK, "0.0.0.0/0");
    expect_parse("127.0.0.0/8", THUE_TRUSTED_OK, "127.0.0.0/8");
    expect_parse("192.168.1.128/25", THUE_TRUSTED_OK, "192.168.1.128/25");
    expect_parse("fd00::/8", THUE_TRUSTED_OK, "fd00::/8");
    expect_parse("FD00:0:0::/8", THUE_TRUSTED_OK, "fd00::/8");
    expect_parse("::1", THUE_TRUSTED_OK, "::1");
    expect_parse("::1/128", THUE_TRUSTED_OK, "::1");
    expect_parse("::/0", THUE_TRUSTED_OK, "::/0");
    expect_parse("2001:db8::/32", THUE_TRUSTED_OK, "2001:db8::/32");
    expect_parse("10.0.0.0/008", THUE_TRUSTED_OK, "10.0.0.0/8");
    /* IPv4-mapped IPv6: the IPv4 address or network it stands for. */
    expect_parse("::ffff:10.1.2.3", THUE_TRUSTED_OK, "10.1.2.3");
    expect_parse("::ffff:10.0.0.0/104", THUE_TRUSTED_OK, "10.0.0.0/8");
    expect_parse("::ffff:0.0.0.0/96", THUE_TRUSTED_OK, "0.0.0.0/0");
    expect_parse("::ffff:0:0/95", THUE_TRUSTED_EHOST, "::fffe:0:0/95");
    expect_parse("::/80", THUE_TRUSTED_OK, "::/80");
    /* The longest text an address has. */
    expect_parse("0000:0000:0000:0000:0000:ffff:255.255.255.255/128", THUE_TRUSTED_OK,
                 "255.255.255.255");
    expect_parse("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00/120", THUE_TRUSTED_OK,
                 "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00/120");

    /* Bits set past the prefix: refused, with the network. */
    expect_parse("10.244.1.0/16", THUE_TRUSTED_EHOST, "10.244.0.0/16");
    expect_parse("10.0.0.1/31", THUE_TRUSTED_EHOST, "10.0.0.0/31");
    expect_parse("1.2.3.4/0", THUE_TRUSTED_EHOST, "0.0.0.0/0");
    expect_parse("fd00::1/8", THUE_TRUSTED_EHOST, "fd00::/8");
    expect_parse("fe80::1/10", THUE_TRUSTED_EHOST, "fe80::/10");
    expect_parse("::ffff:10.1.0.0/104", THUE_TRUSTED_EHOST, "10.0.0.0/8");

    /* Prefix lengths that are not. */
    thue_trusted t;
    const char *bits4[] = {"10.0.0.0/33", "10.0.0.0/", "10.0.0.0/x", "10.0.0.0/-1",
                           "10.0.0.0/+8", "10.0.0.0/ 8", "10.0.0.0/8 ", "10.0.0.0/8/8",
                           "10.0.0.0/0008", "10.0.0.0/999", "10.0.0.0/8a", "10.0.0.0/4294967304"};
    for (size_t i = 0; i < sizeof bits4 / sizeof bits4[0]; i++) {
        expect_parse(bits4[i], THUE_TRUSTED_EBITS, NULL);
        assert_int_equal(thue_trusted_parse(bits4[i], &t), THUE_TRUSTED_EBITS);
        assert_int_equal(t.bits, 32);
    }
    const char *bits6[] = {"fd00::/129", "fd00::/", "::/256", "::ffff:10.0.0.0/129", "::1/1e2"};
    for (size_t i = 0; i < sizeof bits6 / sizeof bits6[0]; i++) {
        assert_int_equal(thue_trusted_parse(bits6[i], &t), THUE_TRUSTED_EBITS);
        assert_int_equal(t.bits, 128);
    }
    /* Addresses that are not. */
    const char *addr[] = {"",           "/8",          "1.2.3",       "1.2.3/8",
                          "10.0.0.0 /8", " 10.0.0.0",  "example.com", "10.0.0.256/8",
                          "fd00:::/8",  "[::1]",       "[::1]/128",   "010.0.0.1",
                          "1.2.3.4.5",  "::1%lo",      "0x0a.0.0.0/8",
                          "0000:0000:0000:0000:0000:0000:ffff:255.255.255.255/128"};
    for (size_t i = 0; i < sizeof addr / sizeof addr[0]; i++)
        expect_parse(addr[i], THUE_TRUSTED_EADDR, NULL);
}

/* Random addresses of both families, with and without a prefix, written the ways the
 * setting may be written: the parse agrees with the reference's network and its "bits
 * past the prefix", and the normalized text parses back to the same network. */
static void test_parse_random(void **state)
{
    (void)state;
    for (int round = 0; round < 200000; round++) {
        unsigned char raw[16], w[16], want[16];
        int v4 = rnd_below(2), mapped = v4 && rnd_below(4) == 0;
        rnd_bytes(raw, v4 ? 4 : 16);
        ref_widen(raw, v4 ? 4 : 16, w);
        int max = v4 ? 32 : 128;
        int has_bits = rnd_below(4) != 0;
        int bits = has_bits ? rnd_below(max + 1) : max;
        /* Half of the time the address is its network already. */
        if (rnd_below(2)) {
            ref_network(w, (v4 ? 96 : 0) + bits, w);
            memcpy(raw, v4 ? w + 12 : w, v4 ? 4 : 16);
        }
        char a[INET6_ADDRSTRLEN], text[80];
        if (mapped)
            inet_ntop(AF_INET6, w, a, sizeof a); /* "::ffff:a.b.c.d" */
        else
            inet_ntop(v4 ? AF_INET : AF_INET6, raw, a, sizeof a);
        int wbits = mapped ? 96 + bits : bits;
        if (has_bits || mapped)
            snprintf(text, sizeof text, "%s/%d", a, wbits);
        else
            snprintf(text, sizeof text, "%s", a);

        int host = ref_network(w, (v4 ? 96 : 0) + bits, want);
        thue_trusted t;
        int r = thue_trusted_parse(text, &t);
        if (r != (host ? THUE_TRUSTED_EHOST : THUE_TRUSTED_OK))
            fail_msg("\"%s\": %d, the reference says %s", text, r,
                     host ? "bits past the prefix" : "a network");
        assert_int_equal(t.bits, (v4 ? 96 : 0) + bits);
        if (memcmp(t.b, want, 16) != 0)
            fail_msg("\"%s\": not the reference's network", text);

        /* The text: IPv4 as IPv4, no /32 or /128, and it parses back the same. */
        char shown[THUE_TRUSTED_TEXT_MAX], na[INET6_ADDRSTRLEN], expect[80];
        thue_trusted_format(&t, shown, sizeof shown);
        int as_v4 = thue_trusted_is_v4(&t);
        if (v4)
            assert_true(as_v4);
        inet_ntop(as_v4 ? AF_INET : AF_INET6, as_v4 ? want + 12 : want, na, sizeof na);
        int sbits = as_v4 ? t.bits - 96 : t.bits;
        if (sbits == (as_v4 ? 32 : 128))
            snprintf(expect, sizeof expect, "%s", na);
        else
            snprintf(expect, sizeof expect, "%s/%d", na, sbits);
        assert_string_equal(shown, expect);
        assert_true(strlen(shown) < THUE_TRUSTED_TEXT_MAX);
        thue_trusted back;
        assert_int_equal(thue_trusted_parse(shown, &back), THUE_TRUSTED_OK);
        assert_int_equal(back.bits, t.bits);
        assert_memory_equal(back.b, t.b, 16);
    }
}

/* ---- matching -------------------------------------------------------------------- */

static int match_text(const char *net, const char *addr)
{
    thue_trusted t = {{0}, 0}; /* fail_msg does not return, which gcc cannot tell */
    unsigned char a[16];
    if (thue_trusted_parse(net, &t) != THUE_TRUSTED_OK)
        fail_msg("\"%s\" does not parse", net);
    if (inet_pton(AF_INET, addr, a) == 1)
        return thue_trusted_match(&t, a, 4);
    if (inet_pton(AF_INET6, addr, a) != 1)
        fail_msg("\"%s\" is not an address", addr);
    return thue_trusted_match(&t, a, 16);
}

static void test_match_examples(void **state)
{
    (void)state;
    assert_true(match_text("10.244.0.0/16", "10.244.0.0"));
    assert_true(match_text("10.244.0.0/16", "10.244.255.255"));
    assert_true(match_text("10.244.0.0/16", "10.244.3.7"));
    assert_false(match_text("10.244.0.0/16", "10.245.0.0"));
    assert_false(match_text("10.244.0.0/16", "10.243.255.255"));
    assert_false(match_text("10.244.0.0/16", "11.244.0.1"));
    /* An IPv4 network and the same addresses as IPv4-mapped IPv6 peers. */
    assert_true(match_text("10.244.0.0/16", "::ffff:10.244.3.7"));
    assert_false(match_text("10.244.0.0/16", "::ffff:10.245.3.7"));
    assert_true(match_text("::ffff:10.0.0.0/104", "10.9.9.9"));
    /* ...but not IPv6 addresses that hold the same bytes elsewhere. */
    assert_false(match_text("10.244.0.0/16", "::10.244.3.7"));
    assert_false(match_text("10.244.0.0/16", "af4::")); /* 0a f4 00 00 ... */
    assert_false(match_text("0.0.0.0/0", "2001:db8::1"));
    assert_true(match_text("0.0.0.0/0", "203.0.113.9"));
    assert_true(match_text("0.0.0.0/0", "::ffff:203.0.113.9"));
    /* An IPv6 network that contains ::ffff:0:0/96 contains IPv4 too. */
    assert_true(match_text("::/0", "203.0.113.9"));
    assert_true(match_text("::/80", "203.0.113.9"));
    assert_false(match_text("::/96", "203.0.113.9"));
    assert_false(match_text("fd00::/8", "203.0.113.9"));
    assert_true(match_text("fd00::/8", "fd12:3456::1"));
    assert_true(match_text("fd00::/8", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
    assert_false(match_text("fd00::/8", "fe00::"));
    assert_false(match_text("fd00::/8", "fc00::1"));
    /* Addresses alone. */
    assert_true(match_text("127.0.0.1", "127.0.0.1"));
    assert_false(match_text("127.0.0.1", "127.0.0.2"));
    assert_true(match_text("127.0.0.1", "::ffff:127.0.0.1"));
    assert_true(match_text("::1", "::1"));
    assert_false(match_text("::1", "127.0.0.1"));
    assert_true(match_text("127.0.0.0/8", "127.255.0.3"));
    /* A length that is not a whole number of bytes. */
    assert_true(match_text("192.168.1.128/25", "192.168.1.255"));
    assert_false(match_text("192.168.1.128/25", "192.168.1.127"));
    assert_true(match_text("fe80::/10", "febf::1"));
    assert_false(match_text("fe80::/10", "fec0::1"));
    /* Neither 4 nor 16 bytes: nothing. */
    thue_trusted t;
    assert_int_equal(thue_trusted_parse("::/0", &t), THUE_TRUSTED_OK);
    unsigned char z[16] = {0};
    assert_false(thue_trusted_match(&t, z, 8));
}

/* Random networks of every length, and addresses: the network with one bit flipped
 * (inside the prefix: out; past it: in), the network with random bits past the prefix
 * (in), random addresses (mostly out), the other family. IPv4 addresses are tried as 4
 * bytes and as IPv4-mapped IPv6, which must agree. */
static void test_match_random(void **state)
{
    (void)state;
    long in = 0, out = 0;
    for (int round = 0; round < 100000; round++) {
        int v4 = rnd_below(2);
        unsigned char raw[16], w[16], net16[16];
        rnd_bytes(raw, v4 ? 4 : 16);
        ref_widen(raw, v4 ? 4 : 16, w);
        int bits = (v4 ? 96 : 0) + rnd_below((v4 ? 32 : 128) + 1);
        ref_network(w, bits, net16);
        char text[80], a[INET6_ADDRSTRLEN];
        if (v4)
            snprintf(text, sizeof text, "%s/%d", inet_ntop(AF_INET, net16 + 12, a, sizeof a),
                     bits - 96);
        else
            snprintf(text, sizeof text, "%s/%d", inet_ntop(AF_INET6, net16, a, sizeof a),
                     bits);
        thue_trusted t = {{0}, 0};
        if (thue_trusted_parse(text, &t) != THUE_TRUSTED_OK)
            fail_msg("\"%s\" does not parse", text);

        for (int k = 0; k < 8; k++) {
            unsigned char p[16];
            int plen;
            switch (k) {
            case 0: /* one bit flipped anywhere in the family's bits */
            case 1: {
                memcpy(p, net16, 16);
                int i = (v4 ? 96 : 0) + rnd_below(v4 ? 32 : 128);
                bit_set(p, i, !bit_of(p, i));
                plen = 16;
                break;
            }
            case 2: /* one bit flipped just before or at the boundary */
            {
                memcpy(p, net16, 16);
                int i = bits + rnd_below(2) - 1;
                if (i < (v4 ? 96 : 0))
                    i = v4 ? 96 : 0;
                if (i > 127)
                    i = 127;
                bit_set(p, i, !bit_of(p, i));
                plen = 16;
                break;
            }
            case 3: /* random bits past the prefix */
                memcpy(p, net16, 16);
                for (int i = bits; i < 128; i++)
                    bit_set(p, i, rnd_below(2));
                plen = 16;
                break;
            case 4: /* random, same family */
                rnd_bytes(p, 16);
                if (v4)
                    ref_widen(p, 4, p);
                plen = 16;
                break;
            case 5: /* random IPv6, or an IPv4 address under an IPv6 network */
                rnd_bytes(p, 16);
                if (!v4 && rnd_below(2))
                    ref_widen(p, 4, p);
                plen = 16;
                break;
            case 6: /* the network itself */
                memcpy(p, net16, 16);
                plen = 16;
                break;
            default: /* the network's last address */
                memcpy(p, net16, 16);
                for (int i = bits; i < 128; i++)
                    bit_set(p, i, 1);
                plen = 16;
                break;
            }
            int want = ref_match(net16, bits, p, plen);
            int got = thue_trusted_match(&t, p, plen);
            if (got != want) {
                char pa[INET6_ADDRSTRLEN];
                inet_ntop(AF_INET6, p, pa, sizeof pa);
                fail_msg("%s in %s: %d, the reference says %d", pa, text, got, want);
            }
            /* An IPv4-mapped address, as 4 bytes too (how peer.c hands them over). */
            if (memcmp(p, THUE_TRUSTED_V4_MAPPED, 12) == 0) {
                assert_int_equal(thue_trusted_match(&t, p + 12, 4), want);
                assert_int_equal(ref_match(net16, bits, p + 12, 4), want);
            }
            want ? in++ : out++;
        }
    }
    /* Both answers were tried often. */
    assert_true(in > 100000);
    assert_true(out > 100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_examples),
        cmocka_unit_test(test_parse_random),
        cmocka_unit_test(test_match_examples),
        cmocka_unit_test(test_match_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
