/*
 * test_lg_ws.c: the WebSocket framing the load generator speaks (lg_ws.c) and the frame
 * headers the server writes itself (server/net/ws_frame.h), each against a plain
 * reference written from RFC 6455 here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lg_ws.h"
#include "net/ws_frame.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The reference: a server frame, byte by byte as RFC 6455 5.2 draws it. */
static size_t ref_server_frame(unsigned char *out, int fin, int opcode, const unsigned char *p,
                               size_t len)
{
    size_t n = 0;
    out[n++] = (unsigned char)((fin ? 0x80 : 0) | opcode);
    if (len <= 125) {
        out[n++] = (unsigned char)len;
    } else if (len <= 65535) {
        out[n++] = 126;
        out[n++] = (unsigned char)(len / 256);
        out[n++] = (unsigned char)(len % 256);
    } else {
        out[n++] = 127;
        uint64_t v = len;
        for (int i = 7; i >= 0; i--) {
            out[n + (size_t)i] = (unsigned char)(v % 256);
            v /= 256;
        }
        n += 8;
    }
    memcpy(out + n, p, len);
    return n + len;
}

static const size_t lengths[] = {0, 1, 2, 125, 126, 127, 1000, 65535, 65536, 70001};

static unsigned char *random_bytes(size_t len)
{
    unsigned char *p = malloc(len + 1);
    assert_non_null(p);
    for (size_t i = 0; i < len; i++)
        p[i] = (unsigned char)next();
    return p;
}

/* The handshake answer of RFC 6455 1.3's example key. */
static void test_handshake(void **state)
{
    (void)state;
    const char *key = "dGhlIHNhbXBsZSBub25jZQ==";
    const char *ok =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nsec-websocket-accept:  s3pPLMBiTxaQ9kYGzzhZRbK+xOo= \r\n"
        "Sec-WebSocket-Protocol: thue.v1\r\n\r\n\x81\x02hi";
    size_t used = 0;
    int status = -1;
    size_t head = strlen(ok) - 4; /* the frame after it is not the handshake's */
    for (size_t cut = 0; cut < head; cut++)
        assert_int_equal(lg_ws_response(ok, cut, key, &used, &status), 0);
    assert_int_equal(lg_ws_response(ok, strlen(ok), key, &used, &status), 1);
    assert_int_equal(used, head);
    assert_int_equal(status, 101);
    /* the subprotocol the server selected, read from the head only */
    char sub[16];
    assert_int_equal(lg_ws_subprotocol(ok, used, sub, sizeof sub), 7);
    assert_string_equal(sub, "thue.v1");
    assert_int_equal(lg_ws_subprotocol(ok, used, sub, 7), -1); /* no room for its NUL */
    const char *v2 = "HTTP/1.1 101 Switching Protocols\r\nsec-websocket-protocol:thue.v2 \r\n\r\n";
    assert_int_equal(lg_ws_subprotocol(v2, strlen(v2), sub, sizeof sub), 7);
    assert_string_equal(sub, "thue.v2");

    const char *wrong = "HTTP/1.1 101 Switching Protocols\r\n"
                        "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo\r\n\r\n";
    assert_int_equal(lg_ws_response(wrong, strlen(wrong), key, &used, &status), -1);
    const char *none = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n";
    assert_int_equal(lg_ws_response(none, strlen(none), key, &used, &status), -1);
    assert_int_equal(lg_ws_subprotocol(none, strlen(none), sub, sizeof sub), -1);
    const char *busy = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
    assert_int_equal(lg_ws_response(busy, strlen(busy), key, &used, &status), -1);
    assert_int_equal(status, 503);
    const char *junk = "SSH-2.0-OpenSSH\r\n\r\n";
    assert_int_equal(lg_ws_response(junk, strlen(junk), key, &used, &status), -1);
    assert_int_equal(status, 0);

    char req[512];
    char k[LG_WS_KEY_LEN + 1];
    lg_ws_key(1, 2, k);
    assert_int_equal(strlen(k), LG_WS_KEY_LEN);
    size_t n = lg_ws_request(req, sizeof req, "/ws", "127.0.0.1:8080", k, "thue.v1");
    assert_true(n > 0 && n == strlen(req));
    assert_non_null(strstr(req, "GET /ws HTTP/1.1\r\n"));
    assert_non_null(strstr(req, k));
    assert_int_equal(lg_ws_request(req, 20, "/ws", "127.0.0.1:8080", k, "thue.v1"), 0);
}

/* Every length class, whole and cut at every point of its header and a few of its body. */
static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        size_t len = lengths[i];
        unsigned char *p = random_bytes(len);
        unsigned char *f = malloc(len + 14);
        assert_non_null(f);
        for (int fin = 0; fin < 2; fin++) {
            size_t n = ref_server_frame(f, fin, fin ? LG_WS_TEXT : LG_WS_CONT, p, len);
            lg_ws_frame fr;
            assert_int_equal(lg_ws_parse(f, n, 1 << 20, &fr), (long)n);
            assert_int_equal(fr.fin, fin);
            assert_int_equal(fr.opcode, fin ? LG_WS_TEXT : LG_WS_CONT);
            assert_int_equal(fr.len, len);
            assert_ptr_equal(fr.payload, f + (n - len));
            if (len)
                assert_memory_equal(fr.payload, p, len);
            for (size_t cut = 0; cut < n; cut += cut < 16 ? 1 : 997)
                assert_int_equal(lg_ws_parse(f, cut, 1 << 20, &fr), 0);
            assert_int_equal(lg_ws_parse(f, n - 1, 1 << 20, &fr), 0); /* one byte short */
            if (len > 0)
                assert_int_equal(lg_ws_parse(f, n, len - 1, &fr), -1); /* over max */
        }
        free(f);
        free(p);
    }
}

static void test_parse_refuses(void **state)
{
    (void)state;
    lg_ws_frame fr;
    unsigned char masked[] = {0x81, 0x82, 1, 2, 3, 4, 'a' ^ 1, 'b' ^ 2};
    assert_int_equal(lg_ws_parse(masked, sizeof masked, 100, &fr), -1);
    unsigned char rsv[] = {0xC1, 0x01, 'a'};
    assert_int_equal(lg_ws_parse(rsv, sizeof rsv, 100, &fr), -1);
    unsigned char opcode3[] = {0x83, 0x01, 'a'};
    assert_int_equal(lg_ws_parse(opcode3, sizeof opcode3, 100, &fr), -1);
    unsigned char long_ping[4] = {0x89, 126, 0, 126};
    assert_int_equal(lg_ws_parse(long_ping, sizeof long_ping, 1000, &fr), -1);
    unsigned char split_ping[] = {0x09, 0x01, 'a'};
    assert_int_equal(lg_ws_parse(split_ping, sizeof split_ping, 100, &fr), -1);
    unsigned char close[] = {0x88, 0x02, 0x03, 0xe8};
    assert_int_equal(lg_ws_parse(close, sizeof close, 100, &fr), 4);
    assert_int_equal(fr.opcode, LG_WS_CLOSE);
    assert_int_equal((fr.payload[0] << 8) | fr.payload[1], 1000);
}

/* The client's frames unmasked by the reference: the payload comes back. */
static void test_frame_out(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        size_t len = lengths[i];
        unsigned char *p = random_bytes(len);
        unsigned char *f = malloc(len + LG_WS_HEADER_MAX);
        assert_non_null(f);
        uint32_t mask = (uint32_t)next();
        size_t n = lg_ws_frame_out(f, LG_WS_TEXT, p, len, mask);
        assert_int_equal(f[0], 0x81);
        assert_true(f[1] & 0x80);
        size_t plen = f[1] & 0x7f, at = 2;
        if (plen == 126) {
            plen = (size_t)f[2] * 256 + f[3];
            at = 4;
        } else if (plen == 127) {
            plen = 0;
            for (int b = 0; b < 8; b++)
                plen = plen * 256 + f[2 + b];
            at = 10;
        }
        assert_int_equal(plen, len);
        assert_true(len < 126 ? at == 2 : len < 65536 ? at == 4 : at == 10);
        const unsigned char *m = f + at;
        assert_int_equal(
            ((uint32_t)m[0] << 24) | ((uint32_t)m[1] << 16) | ((uint32_t)m[2] << 8) | m[3], mask);
        assert_int_equal(n, at + 4 + len);
        for (size_t j = 0; j < len; j++)
            assert_int_equal(f[at + 4 + j] ^ m[j % 4], p[j]);
        free(f);
        free(p);
    }
}

/* The server's own headers (several messages in one write) match the reference, and a
 * run of such frames reads back message by message. */
static void test_server_headers(void **state)
{
    (void)state;
    unsigned char *run = malloc(300000), *ref = malloc(300000);
    assert_non_null(run);
    assert_non_null(ref);
    size_t n = 0, rn = 0;
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        size_t len = lengths[i];
        unsigned char *p = random_bytes(len);
        size_t h = thue_ws_text_header(run + n, len);
        assert_int_equal(h, thue_ws_header_size(len));
        memcpy(run + n + h, p, len);
        n += h + len;
        rn += ref_server_frame(ref + rn, 1, LG_WS_TEXT, p, len);
        assert_int_equal(n, rn);
        free(p);
    }
    assert_memory_equal(run, ref, n);
    size_t at = 0, count = 0;
    lg_ws_frame fr;
    while (at < n) {
        long r = lg_ws_parse(run + at, n - at, 1 << 20, &fr);
        assert_true(r > 0);
        assert_int_equal(fr.len, lengths[count]);
        at += (size_t)r;
        count++;
    }
    assert_int_equal(count, sizeof lengths / sizeof *lengths);
    free(run);
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake),      cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_refuses),  cmocka_unit_test(test_frame_out),
        cmocka_unit_test(test_server_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
