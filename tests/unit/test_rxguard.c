/*
 * test_rxguard.c: the receive guard's filter (server/net/rxguard.h): which request heads
 * reach libwebsockets and which are refused with what answer, and where an unmasked
 * WebSocket frame stops the input. Each stream is also fed in random pieces (down to one
 * byte per read): the filter must hand on the same bytes and reach the same verdict as
 * when the stream comes in one read, and the frames are checked against a plain scan of
 * the whole stream.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/rxguard.h"

typedef struct result {
    unsigned char *out;
    size_t len;
    thue_rx rx;
} result;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Feeds n bytes in pieces: max_piece 0 means one read; otherwise random sizes 1..max. */
static void feed(result *r, const unsigned char *in, size_t n, size_t max_piece)
{
    thue__rx_init(&r->rx);
    r->out = malloc(n + THUE_RX_LINE_MAX + THUE_RX_SLACK * 4 + 1);
    assert_non_null(r->out);
    r->len = 0;
    size_t i = 0;
    while (i < n) {
        size_t k = max_piece == 0 ? n - i : 1 + (size_t)(rnd() % max_piece);
        if (k > n - i)
            k = n - i;
        size_t room = k + r->rx.line_len + THUE_RX_SLACK;
        unsigned char *tmp = malloc(room + 1);
        assert_non_null(tmp);
        size_t before_held = r->rx.line_len;
        size_t o = thue__rx_filter(&r->rx, in + i, k, tmp);
        assert_true(o <= k + before_held + THUE_RX_SLACK);
        memcpy(r->out + r->len, tmp, o);
        r->len += o;
        free(tmp);
        i += k;
    }
}

static void done(result *r)
{
    thue__rx_clear(&r->rx);
    free(r->out);
}

/* The stream's verdict and output, the same in one read and in pieces. */
static void check_split_invariance(const char *text, size_t n)
{
    result one;
    feed(&one, (const unsigned char *)text, n, 0);
    for (int round = 0; round < 40; round++) {
        size_t piece = round < 4 ? 1 : 1 + (size_t)(rnd() % 64);
        result r;
        feed(&r, (const unsigned char *)text, n, piece);
        assert_int_equal(r.len, one.len);
        assert_memory_equal(r.out, one.out, one.len);
        assert_int_equal(r.rx.bad_head, one.rx.bad_head);
        assert_int_equal(r.rx.status, one.rx.status);
        assert_int_equal(r.rx.heads, one.rx.heads);
        assert_int_equal(r.rx.mode, one.rx.mode);
        done(&r);
    }
    done(&one);
}

/* Feeds text in one read and in pieces: bytes handed on, and the verdict. */
static void expect(const char *text, const char *out, int status, unsigned bad_head)
{
    size_t n = strlen(text);
    result r;
    feed(&r, (const unsigned char *)text, n, 0);
    if (r.len != strlen(out) || memcmp(r.out, out, r.len) != 0)
        fail_msg("for %s\nhanded on: %.*s\nexpected:  %s", text, (int)r.len, (char *)r.out, out);
    assert_int_equal(r.rx.status, status);
    assert_int_equal(r.rx.bad_head, bad_head);
    if (status)
        assert_non_null(r.rx.why);
    done(&r);
    check_split_invariance(text, n);
}

#define GET_HEALTHZ "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

static void test_rx_good_heads_pass(void **state)
{
    (void)state;
    expect(GET_HEALTHZ, GET_HEALTHZ, 0, 0);
    expect(GET_HEALTHZ GET_HEALTHZ, GET_HEALTHZ GET_HEALTHZ, 0, 0);
    /* a body by Content-Length, then the next request */
    expect("GET /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello" GET_HEALTHZ,
           "GET /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello" GET_HEALTHZ, 0, 0);
    /* bare LF line ends, HTTP/1.0, HEAD, escapes, tabs and obs-text in values */
    expect("HEAD /x%20y HTTP/1.0\nHost:\tb \xc3\xa9\n\n",
           "HEAD /x%20y HTTP/1.0\nHost:\tb \xc3\xa9\n\n", 0, 0);
    /* fields the server does not use are checked and dropped (X-Auth would confuse lws:
     * a prefix of X-Auth-Token) */
    expect("GET / HTTP/1.1\r\nX-Auth: 1\r\nContent-Length: 5\r\nUser-Agent: y\r\n"
           "X-Forwarded-For: 10.0.0.1\r\n\r\nhello",
           "GET / HTTP/1.1\r\nContent-Length: 5\r\nX-Forwarded-For: 10.0.0.1\r\n\r\nhello", 0, 0);
    /* empty lines before a request line are skipped */
    expect("\r\n\r\n" GET_HEALTHZ, GET_HEALTHZ, 0, 0);
    /* Content-Length: 0 and a GET with a body of zero */
    expect("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n" GET_HEALTHZ,
           "GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n" GET_HEALTHZ, 0, 0);
    result r;
    const char *two = GET_HEALTHZ GET_HEALTHZ;
    feed(&r, (const unsigned char *)two, strlen(two), 0);
    assert_int_equal(r.rx.heads, 2);
    assert_int_equal(r.rx.mode, THUE_RX_HEAD);
    done(&r);
}

#define CUT(head) head "\r\n" /* what lws gets of a head refused after these lines */

static void test_rx_smuggling_refused(void **state)
{
    (void)state;
    const char *req = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    const char *tail = "\r\nGET /api/rooms HTTP/1.1\r\nHost: x\r\n\r\n";
    static const char *const bad[] = {
        "Content-Length: 0, 34\r\n",
        "Content-Length: 0\r\nContent-Length: 34\r\n",
        "Content-Length: 5\r\nContent-Length: 5\r\n",
        "Content-Length : 34\r\n",
        "Content-Length\t: 34\r\n",
        "Content-Length: -1\r\n",
        "Content-Length: +5\r\n",
        "Content-Length: 0x10\r\n",
        "Content-Length:\r\n",
        "Content-Length: 1234567890123456\r\n",
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
        "X-Folded: a\r\n b\r\n",
        "Bad\rHeader: 1\r\n",
        "NoColon\r\n",
        ": empty name\r\n",
        "X-Nul: a\001b\r\n",
        "X(y): 1\r\n",
        "Upgrade: h2c\r\n",
        "Upgrade: websocket\r\nUpgrade: websocket\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512], out[512];
        snprintf(text, sizeof text, "%s%s%s", req, bad[i], tail);
        /* lws sees the lines before the bad one, then the head ends there */
        const char *badline = bad[i];
        if (strncmp(bad[i], "Content-Length: 0\r\n", 19) == 0 ||
            strncmp(bad[i], "Content-Length: 5\r\n", 19) == 0 ||
            strncmp(bad[i], "Transfer-Encoding: chunked\r\n", 28) == 0 ||
            strncmp(bad[i], "Upgrade: websocket\r\n", 20) == 0)
            badline = strchr(bad[i], '\n') + 1; /* the first line is fine */
        snprintf(out, sizeof out, "%s%.*s\r\n", req, (int)(badline - bad[i]), bad[i]);
        expect(text, out, 400, 1);
    }
    /* a refused second request: the first goes through, the second is cut */
    expect(GET_HEALTHZ "GET / HTTP/1.1\r\nContent-Length: 1, 2\r\n\r\nxx",
           GET_HEALTHZ "GET / HTTP/1.1\r\n\r\n", 400, 2);
}

static void test_rx_methods_and_targets(void **state)
{
    (void)state;
    static const char *const methods[] = {
        "TRACE / HTTP/1.1\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
        "OPTIONS /healthz HTTP/1.1\r\n\r\n",
        "POST /healthz HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
        "PUT / HTTP/1.1\r\n\r\n",
        "DELETE /api/rooms HTTP/1.1\r\n\r\n",
        "PATCH / HTTP/1.1\r\n\r\n",
        "PROPFIND / HTTP/1.1\r\n\r\n",
        "CONNECT example.com:443 HTTP/1.1\r\n\r\n",
        "PRI * HTTP/1.1\r\n\r\n",
        "get / HTTP/1.1\r\n\r\n",
        "BREW /pot HTTP/1.1\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        expect(methods[i], "GET / HTTP/1.1\r\n\r\n", 405, 1);
    expect("GET * HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    expect("GET http://x/ HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    expect("GET /%zz HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    expect("GET /a%00b HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    expect("GET /a% HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    expect("GET / HTTP/2.0\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 505, 1);
    expect("GET / HTTP/1.1x\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    expect("GET /\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    expect("GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    expect("GET / HTTP/1.1 \r\n\r\n", "GET / HTTP/1.1\r\n\r\n", 400, 1);
    /* a method refused after a good request: the good one goes through */
    expect(GET_HEALTHZ "TRACE / HTTP/1.1\r\n\r\n", GET_HEALTHZ "GET / HTTP/1.1\r\n\r\n", 405, 2);
}

static void test_rx_sizes(void **state)
{
    (void)state;
    char *text = malloc(20000);
    assert_non_null(text);
    /* a request line over LINE_MAX: 414 */
    strcpy(text, "GET /");
    memset(text + 5, 'a', THUE_RX_LINE_MAX);
    strcpy(text + 5 + THUE_RX_LINE_MAX, " HTTP/1.1\r\n\r\n");
    expect(text, "GET / HTTP/1.1\r\n\r\n", 414, 1);
    /* a header line over LINE_MAX: 431, the head cut after the request line */
    strcpy(text, "GET / HTTP/1.1\r\nX: ");
    size_t n = strlen(text);
    memset(text + n, 'b', THUE_RX_LINE_MAX);
    strcpy(text + n + THUE_RX_LINE_MAX, "\r\n\r\n");
    expect(text, "GET / HTTP/1.1\r\n\r\n", 431, 1);
    /* a head over HEAD_MAX in lines that are each fine: 431 */
    strcpy(text, "GET / HTTP/1.1\r\n");
    char out[8192];
    strcpy(out, text);
    for (int i = 0; i < 3; i++) {
        char line[1600];
        memset(line, 'c', sizeof line);
        memcpy(line, "X-Pad: ", 7);
        memcpy(line + sizeof line - 3, "\r\n", 3);
        strcat(text, line); /* (a field that is dropped) */
    }
    strcat(text, "\r\n");
    strcat(out, "\r\n");
    expect(text, out, 431, 1);
    /* too many fields: 431 */
    strcpy(text, "GET / HTTP/1.1\r\n");
    strcpy(out, text);
    for (int i = 0; i < THUE_RX_FIELDS_MAX + 5; i++) {
        char line[32];
        snprintf(line, sizeof line, "X-%d: 1\r\n", i);
        strcat(text, line); /* (fields that are dropped) */
    }
    strcat(text, "\r\n");
    strcat(out, "\r\n");
    expect(text, out, 431, 1);
    free(text);
}

/* ---- frames ---------------------------------------------------------------------------- */

#define UPGRADE                                                                                    \
    "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"                 \
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

/* Appends a frame: opcode, payload length, masked or not. */
static size_t put_frame(unsigned char *p, int opcode, size_t len, int masked)
{
    size_t o = 0;
    p[o++] = (unsigned char)(0x80 | opcode);
    unsigned char m = masked ? 0x80 : 0;
    if (len < 126) {
        p[o++] = (unsigned char)(m | len);
    } else if (len < 65536) {
        p[o++] = m | 126;
        p[o++] = (unsigned char)(len >> 8);
        p[o++] = (unsigned char)len;
    } else {
        p[o++] = m | 127;
        for (int b = 7; b >= 0; b--)
            p[o++] = (unsigned char)((uint64_t)len >> (8 * b));
    }
    if (masked)
        for (int b = 0; b < 4; b++)
            p[o++] = (unsigned char)rnd();
    for (size_t i = 0; i < len; i++)
        p[o++] = (unsigned char)rnd();
    return o;
}

/* The plain scan: where the first unmasked frame starts (or n). */
static size_t naive_first_unmasked(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i + 2 <= n) {
        if (!(p[i + 1] & 0x80))
            return i;
        size_t len = p[i + 1] & 0x7f, hdr = 2;
        if (len == 126) {
            len = (size_t)p[i + 2] << 8 | p[i + 3];
            hdr = 4;
        } else if (len == 127) {
            len = 0;
            for (int b = 0; b < 8; b++)
                len = len << 8 | p[i + 2 + b];
            hdr = 10;
        }
        i += hdr + 4 + len;
    }
    return n;
}

static void test_rx_frames(void **state)
{
    (void)state;
    size_t cap = 400000;
    unsigned char *s = malloc(cap);
    assert_non_null(s);
    for (int round = 0; round < 60; round++) {
        size_t n = strlen(UPGRADE);
        memcpy(s, UPGRADE, n);
        size_t head = n;
        int frames = 1 + (int)(rnd() % 12);
        int bad = round % 3 == 0 ? -1 : (int)(rnd() % (unsigned)frames);
        for (int f = 0; f < frames; f++) {
            size_t len = rnd() % 5 == 0 ? 126 + rnd() % 2000 : rnd() % 126;
            if (round % 20 == 7 && f == 0)
                len = 70000;                     /* a 64-bit length */
            int opcode = f % 4 == 3 ? 0x9 : 0x1; /* pings among the texts */
            n += put_frame(s + n, opcode, len, f != bad);
        }
        size_t stop = head + naive_first_unmasked(s + head, n - head);
        for (int piece = 0; piece < 3; piece++) {
            result r;
            feed(&r, s, n, piece == 0 ? 0 : piece == 1 ? 1 : 1 + rnd() % 300);
            if (bad < 0) {
                assert_int_equal(r.rx.unmasked, 0);
                assert_int_equal(r.rx.mode, THUE_RX_FRAMES);
                assert_int_equal(r.len, n);
                assert_memory_equal(r.out, s, n);
            } else {
                assert_int_equal(r.rx.unmasked, 1);
                assert_int_equal(r.rx.mode, THUE_RX_DISCARD);
                /* what came before the bad frame, and perhaps its first byte if an
                 * earlier read handed it on */
                assert_true(r.len == stop || r.len == stop + 1);
                assert_memory_equal(r.out, s, r.len);
                if (piece == 0)
                    assert_int_equal(r.len, stop);
            }
            assert_int_equal(r.rx.heads, 1);
            done(&r);
        }
    }
    free(s);
}

static void test_rx_after_refusal_nothing_passes(void **state)
{
    (void)state;
    thue_rx rx;
    thue__rx_init(&rx);
    unsigned char out[256];
    const char *bad = "TRACE / HTTP/1.1\r\n\r\n";
    size_t o = thue__rx_filter(&rx, (const unsigned char *)bad, strlen(bad), out);
    assert_int_equal(o, strlen("GET / HTTP/1.1\r\n\r\n"));
    assert_int_equal(rx.mode, THUE_RX_DISCARD);
    o = thue__rx_filter(&rx, (const unsigned char *)GET_HEALTHZ, strlen(GET_HEALTHZ), out);
    assert_int_equal(o, 0);
    assert_int_equal(rx.heads, 1);
    thue__rx_clear(&rx);
    /* a chunked body is dropped, and so is all that follows it */
    thue__rx_init(&rx);
    const char *chunked = "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "0\r\n\r\n" GET_HEALTHZ;
    o = thue__rx_filter(&rx, (const unsigned char *)chunked, strlen(chunked), out);
    assert_int_equal(o, strlen("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"));
    assert_int_equal(rx.heads, 1);
    assert_int_equal(rx.bad_head, 0);
    thue__rx_clear(&rx);
}

/* ---- the accept() backstop -------------------------------------------------------------- */

/* At EMFILE the interposed accept() takes the waiting connection with its spare
 * descriptor, closes it and says EAGAIN: the caller (lws) does not loop, the client hears
 * the close, and the backlog empties one connection per call. */
static void test_rx_accept_at_emfile(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(thue__rx_start(1024, err, sizeof err), 0);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(l >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(l, 8), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
    int clients[2];
    for (int i = 0; i < 2; i++) {
        clients[i] = socket(AF_INET, SOCK_STREAM, 0);
        assert_int_equal(connect(clients[i], (struct sockaddr *)&a, sizeof a), 0);
    }
    /* no descriptor left: fill the table up to a lowered limit */
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = 64;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    int fill[64], nfill = 0;
    for (int fd; nfill < 64 && (fd = dup(0)) >= 0;)
        fill[nfill++] = fd;
    assert_int_equal(errno, EMFILE);
    uint64_t before = thue__rx_emfile_refused();
    errno = 0;
    assert_int_equal(accept(l, NULL, NULL), -1);
    assert_int_equal(errno, EAGAIN);
    assert_int_equal(thue__rx_emfile_refused(), before + 1);
    errno = 0;
    assert_int_equal(accept(l, NULL, NULL), -1);
    assert_int_equal(errno, EAGAIN);
    assert_int_equal(thue__rx_emfile_refused(), before + 2);
    for (int i = 0; i < nfill; i++)
        close(fill[i]);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    /* both clients were closed by the server */
    for (int i = 0; i < 2; i++) {
        char b;
        ssize_t n = recv(clients[i], &b, 1, 0);
        assert_true(n == 0 || (n < 0 && errno == ECONNRESET));
        close(clients[i]);
    }
    close(l);
    thue__rx_stop();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rx_good_heads_pass),
        cmocka_unit_test(test_rx_smuggling_refused),
        cmocka_unit_test(test_rx_methods_and_targets),
        cmocka_unit_test(test_rx_sizes),
        cmocka_unit_test(test_rx_frames),
        cmocka_unit_test(test_rx_after_refusal_nothing_passes),
        cmocka_unit_test(test_rx_accept_at_emfile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
