/*
 * test_cluster_seal.c: server/cluster/seal.h without Redis: a sealed message opens only
 * with the same secret on the same channel, and any changed byte is refused; the payload
 * does not travel in clear; the replay guard refuses a counter heard before, a message
 * older or newer than a minute, a boot older than those it forgot, and remembers a bounded
 * number of senders; resume tokens' key names, records' and tickets' signatures.
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cluster/seal.h"

static const unsigned char SECRET[40] = "a secret of forty bytes for seal tests!";
static const unsigned char OTHER[40] = "another secret of forty bytes, not ours";

static void keys(thue_seal_keys *k, const unsigned char *secret)
{
    assert_int_equal(thue_seal_keys_derive(k, secret, 40), 0);
}

static void boot_at(unsigned char boot[THUE_SEAL_BOOT], uint64_t started, unsigned char tag)
{
    for (int i = 7; i >= 0; i--) {
        boot[i] = (unsigned char)(started & 0xff);
        started >>= 8;
    }
    memset(boot + 8, tag, 8);
}

static void test_keys(void **state)
{
    (void)state;
    thue_seal_keys k;
    unsigned char big[4097];
    memset(big, 7, sizeof big);
    assert_int_equal(thue_seal_keys_derive(&k, big, 31), -1);
    assert_int_equal(thue_seal_keys_derive(&k, big, 4097), -1);
    assert_int_equal(thue_seal_keys_derive(&k, NULL, 40), -1);
    assert_int_equal(thue_seal_keys_derive(&k, big, 32), 0);
    assert_int_equal(thue_seal_keys_derive(&k, big, 4096), 0);
    /* One key per use, none equal to another or to the secret. */
    keys(&k, SECRET);
    assert_memory_not_equal(k.mac, k.enc, 32);
    assert_memory_not_equal(k.mac, k.token, 32);
    assert_memory_not_equal(k.token, k.rec, 32);
    assert_memory_not_equal(k.mac, SECRET, 32);
    thue_seal_keys k2;
    keys(&k2, OTHER);
    assert_memory_not_equal(k.mac, k2.mac, 32);
    thue_seal_keys_wipe(&k2);
    unsigned char zero[sizeof k2];
    memset(zero, 0, sizeof zero);
    assert_memory_equal(&k2, zero, sizeof k2);
}

static void test_seal_open(void **state)
{
    (void)state;
    thue_seal_keys k, other;
    keys(&k, SECRET);
    keys(&other, OTHER);
    unsigned char boot[THUE_SEAL_BOOT];
    thue_seal_boot_new(boot);
    const char *payload = "{\"t\":\"seat\",\"name\":\"ann\",\"room\":\"r1\",\"resume\":"
                          "\"RESUMETOKENRESUMETOKENRESUMETOKEN\"}";
    size_t len = strlen(payload);
    char msg[THUE_SEAL_HEADER_MAX + 256], out[THUE_SEAL_HEADER_MAX + 256];
    size_t mlen = 0, olen = 0;
    const char *ch = "thue:ch:all";
    assert_int_equal(thue_seal_message(&k, ch, "n1", boot, 7, 123456789, payload, len, msg, &mlen),
                     0);
    assert_true(mlen > len && mlen <= THUE_SEAL_HEADER_MAX + len);
    /* The payload does not travel in clear: not the token, not even the event's kind. */
    assert_null(memmem(msg, mlen, "RESUMETOKEN", 11));
    assert_null(memmem(msg, mlen, "seat", 4));
    assert_memory_equal(msg, "T1 n1 ", 6);

    thue_seal_opened o;
    assert_int_equal(thue_seal_open(&k, ch, msg, mlen, &o, out, &olen), 0);
    assert_int_equal(olen, len);
    assert_memory_equal(out, payload, len);
    assert_string_equal(o.from, "n1");
    assert_int_equal(o.seq, 7);
    assert_int_equal(o.ts_ms, 123456789);
    assert_memory_equal(o.boot, boot, THUE_SEAL_BOOT);

    /* Another channel (a message to n2 published again to n3, or to everyone), another
     * secret: refused. */
    assert_int_equal(thue_seal_open(&k, "thue:ch:node:n2", msg, mlen, &o, out, &olen),
                     THUE_SEAL_BAD);
    assert_string_equal(o.from, "n1"); /* the claimed sender, for the log */
    assert_int_equal(thue_seal_open(&other, ch, msg, mlen, &o, out, &olen), THUE_SEAL_BAD);

    /* Every single changed byte is refused (never opened). */
    for (size_t i = 0; i < mlen; i++) {
        char copy[sizeof msg];
        memcpy(copy, msg, mlen);
        copy[i] ^= 0x01;
        int rc = thue_seal_open(&k, ch, copy, mlen, &o, out, &olen);
        if (rc != THUE_SEAL_BAD && rc != THUE_SEAL_UNSIGNED)
            fail_msg("byte %zu changed: %d", i, rc);
    }
    /* Cut short or made longer: refused. */
    for (size_t cut = 0; cut < mlen; cut++)
        assert_int_not_equal(thue_seal_open(&k, ch, msg, cut, &o, out, &olen), 0);
    msg[mlen] = 'x';
    assert_int_equal(thue_seal_open(&k, ch, msg, mlen + 1, &o, out, &olen), THUE_SEAL_BAD);

    /* What nodes sent before messages were sealed, and other junk: not sealed at all. */
    const char *junk[] = {"n1\n{\"t\":\"rating\"}", "", "T1", "T1 n1 x y z w\n",
                          ("T1 N1 00000000000000000000000000000000 1 1 "
                           "0000000000000000000000000000000000000000000000000000000000000000\nx")};
    for (size_t i = 0; i < sizeof junk / sizeof *junk; i++)
        assert_int_equal(thue_seal_open(&k, ch, junk[i], strlen(junk[i]), &o, out, &olen),
                         THUE_SEAL_UNSIGNED);
    /* A well-formed header whose HMAC is made up. */
    const char *forged = "T1 n1 00000000000000000000000000000000 1 1 "
                         "0000000000000000000000000000000000000000000000000000000000000000\nx";
    assert_int_equal(thue_seal_open(&k, ch, forged, strlen(forged), &o, out, &olen),
                     THUE_SEAL_BAD);
    /* A bad sender name is refused when sealing. */
    assert_int_equal(thue_seal_message(&k, ch, "N1", boot, 1, 1, "x", 1, msg, &mlen), -1);
}

/* One message of from/boot/seq/ts through the guard. */
static int check(thue_seal_replay *r, const char *from, const unsigned char *boot, uint64_t seq,
                 uint64_t ts, uint64_t now)
{
    thue_seal_opened o;
    memset(&o, 0, sizeof o);
    snprintf(o.from, sizeof o.from, "%s", from);
    memcpy(o.boot, boot, THUE_SEAL_BOOT);
    o.seq = seq;
    o.ts_ms = ts;
    const char *why = NULL;
    int rc = thue_seal_replay_check(r, &o, now, 60000, &why);
    if (rc != 0)
        assert_non_null(why);
    return rc;
}

static void test_replay(void **state)
{
    (void)state;
    thue_seal_replay *r = thue_seal_replay_new();
    assert_non_null(r);
    const uint64_t now = 1700000000000ull;
    unsigned char a[THUE_SEAL_BOOT], b[THUE_SEAL_BOOT];
    boot_at(a, now - 100000, 1);
    boot_at(b, now - 50000, 2);

    /* Counters go up; one heard before, or lower than the highest, is refused. */
    assert_int_equal(check(r, "n1", a, 1, now, now), 0);
    assert_int_equal(check(r, "n1", a, 2, now, now), 0);
    assert_int_equal(check(r, "n1", a, 2, now, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", a, 1, now, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", a, 9, now, now), 0); /* gaps are fine (other channels) */
    assert_int_equal(check(r, "n1", a, 5, now, now), THUE_SEAL_REPLAYED);
    /* Another sender with the same counters is another story. */
    assert_int_equal(check(r, "n2", a, 1, now, now), 0);

    /* Time: a minute either way. */
    assert_int_equal(check(r, "n1", a, 10, now - 60000, now), 0);
    assert_int_equal(check(r, "n1", a, 11, now - 60001, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", a, 12, now + 60001, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", a, 13, now + 60000, now), 0);
    /* A fresh receiver (no memory) still refuses what is old. */
    thue_seal_replay *fresh = thue_seal_replay_new();
    assert_int_equal(check(fresh, "n1", a, 1, now - 3600000, now), THUE_SEAL_REPLAYED);
    thue_seal_replay_free(fresh);

    /* The sender restarted (a new boot): its counter starts again; the old boot's
     * messages are still told apart. */
    assert_int_equal(check(r, "n1", b, 1, now, now), 0);
    assert_int_equal(check(r, "n1", b, 1, now, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", a, 13, now, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", a, 14, now, now), 0);

    /* Four boots are remembered; a fifth makes the one that started first forgotten,
     * and from then on a boot that started no later than it is refused. */
    unsigned char c3[THUE_SEAL_BOOT], c4[THUE_SEAL_BOOT], c5[THUE_SEAL_BOOT],
        older[THUE_SEAL_BOOT];
    boot_at(c3, now - 40000, 3);
    boot_at(c4, now - 30000, 4);
    boot_at(c5, now - 20000, 5);
    boot_at(older, now - 100001, 6);
    assert_int_equal(check(r, "n1", c3, 1, now, now), 0);
    assert_int_equal(check(r, "n1", c4, 1, now, now), 0);
    assert_int_equal(check(r, "n1", c5, 1, now, now), 0); /* a forgotten */
    assert_int_equal(check(r, "n1", a, 15, now, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", a, 1, now, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", older, 1, now, now), THUE_SEAL_REPLAYED);
    assert_int_equal(check(r, "n1", b, 2, now, now), 0); /* still remembered */

    /* 256 senders; a 257th is refused while all are fresh, taken once one has been
     * silent for two minutes. */
    for (int i = 0; i < 254; i++) { /* n1 and n2 are two of them */
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        assert_int_equal(check(r, name, a, 1, now, now), 0);
    }
    assert_int_equal(check(r, "late", a, 1, now, now), THUE_SEAL_REPLAYED);
    uint64_t later = now + 120001;
    assert_int_equal(check(r, "n1", b, 3, later, later), 0);
    assert_int_equal(check(r, "late", a, 1, later, later), 0);
    thue_seal_replay_free(r);
}

static void test_tokens_and_records(void **state)
{
    (void)state;
    thue_seal_keys k, other;
    keys(&k, SECRET);
    keys(&other, OTHER);
    const char *token = "Zq3vR8sX0aB7cD9eF1gH2iJ4kL5mN6oP";
    char h1[THUE_SEAL_HEX], h2[THUE_SEAL_HEX], h3[THUE_SEAL_HEX];
    thue_seal_token_key(&k, token, h1);
    thue_seal_token_key(&k, token, h2);
    assert_string_equal(h1, h2);
    assert_int_equal(strlen(h1), 64);
    assert_null(strstr(h1, token));
    thue_seal_token_key(&other, token, h3);
    assert_string_not_equal(h1, h3);
    /* Not the token's plain SHA-256 either (which anyone could compute from a guess). */
    unsigned char sha[32];
    crypto_hash_sha256(sha, (const unsigned char *)token, strlen(token));
    char shahex[65];
    sodium_bin2hex(shahex, sizeof shahex, sha, 32);
    assert_string_not_equal(h1, shahex);
    thue_seal_token_key(&k, "Zq3vR8sX0aB7cD9eF1gH2iJ4kL5mN6oQ", h2);
    assert_string_not_equal(h1, h2);

    const char *text = "{\"node\":\"n1\",\"name\":\"ann\",\"account\":7}";
    char mac[THUE_SEAL_HEX];
    thue_seal_record_mac(&k, "session", "thue:sess:abc", text, strlen(text), mac);
    assert_true(thue_seal_record_verify(&k, "session", "thue:sess:abc", text, strlen(text), mac,
                                        64));
    assert_false(thue_seal_record_verify(&k, "session", "thue:sess:abd", text, strlen(text), mac,
                                         64));
    assert_false(thue_seal_record_verify(&k, "ticket", "thue:sess:abc", text, strlen(text), mac,
                                         64));
    assert_false(thue_seal_record_verify(&k, "session", "thue:sess:abc", text, strlen(text) - 1,
                                         mac, 64));
    assert_false(thue_seal_record_verify(&other, "session", "thue:sess:abc", text, strlen(text),
                                         mac, 64));
    assert_false(thue_seal_record_verify(&k, "session", "thue:sess:abc", text, strlen(text), mac,
                                         63));
    mac[0] = mac[0] == '0' ? '1' : '0';
    assert_false(thue_seal_record_verify(&k, "session", "thue:sess:abc", text, strlen(text), mac,
                                         64));

    /* Tickets. */
    const uint64_t now = 1700000000000ull;
    char sig[THUE_SEAL_SIG_MAX];
    thue_seal_ticket_sign(&k, "pool", "n1", "q123", "a:7", "ann", "1500", now + 1000, sig);
    assert_int_equal(thue_seal_ticket_check(&k, "pool", "n1", "q123", "a:7", "ann", "1500", sig,
                                            now),
                     0);
    assert_int_equal(thue_seal_ticket_check(&k, "pool2", "n1", "q123", "a:7", "ann", "1500", sig,
                                            now),
                     THUE_SEAL_BAD);
    assert_int_equal(thue_seal_ticket_check(&k, "pool", "n2", "q123", "a:7", "ann", "1500", sig,
                                            now),
                     THUE_SEAL_BAD);
    assert_int_equal(thue_seal_ticket_check(&k, "pool", "n1", "q123", "a:8", "ann", "1500", sig,
                                            now),
                     THUE_SEAL_BAD);
    assert_int_equal(thue_seal_ticket_check(&k, "pool", "n1", "q123", "a:7", "bob", "1500", sig,
                                            now),
                     THUE_SEAL_BAD);
    assert_int_equal(thue_seal_ticket_check(&k, "pool", "n1", "q123", "a:7", "ann", "2999", sig,
                                            now),
                     THUE_SEAL_BAD);
    assert_int_equal(thue_seal_ticket_check(&other, "pool", "n1", "q123", "a:7", "ann", "1500",
                                            sig, now),
                     THUE_SEAL_BAD);
    /* A later expiry written over the signed one does not verify. */
    char moved[THUE_SEAL_SIG_MAX];
    snprintf(moved, sizeof moved, "%llu%s", (unsigned long long)(now + 99999),
             strchr(sig, '.'));
    assert_int_equal(thue_seal_ticket_check(&k, "pool", "n1", "q123", "a:7", "ann", "1500", moved,
                                            now),
                     THUE_SEAL_BAD);
    /* Expired (past the minute of leeway): refused. */
    assert_int_equal(thue_seal_ticket_check(&k, "pool", "n1", "q123", "a:7", "ann", "1500", sig,
                                            now + 1000 + 60001),
                     THUE_SEAL_REPLAYED);
    const char *junk[] = {"", "abc", "12.", "x.0000", NULL};
    for (int i = 0; junk[i]; i++)
        assert_int_equal(thue_seal_ticket_check(&k, "pool", "n1", "q123", "a:7", "ann", "1500",
                                                junk[i], now),
                         THUE_SEAL_UNSIGNED);
    assert_int_equal(
        thue_seal_ticket_check(&k, "pool", "n1", "q123", "a:7", "ann", "1500", NULL, now),
        THUE_SEAL_UNSIGNED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_seal_open),
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_tokens_and_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
