/*
 * rxguard.c: the receive guard (rxguard.h): what the server reads from a connection
 * before libwebsockets sees it.
 *
 * Why. lws 4.1.6 is lenient where a server on the open internet must not be, and gives
 * the application no say before it acts:
 *   - request heads: a second Content-Length is appended to the first ("0 34", which lws
 *     reads as 0), a list ("0, 34") reads as its first number, and "Content-Length :"
 *     (whitespace before the colon) is an unknown header to lws: each lets a body run as
 *     a second request behind a proxy that reads the head differently (smuggling).
 *     RFC 9112 sections 5.1, 6.3 and 2.2 say to answer 400 and close;
 *   - methods it does not know (TRACE, PROPFIND, ...) and targets that are not a path
 *     (OPTIONS *, CONNECT host:port) get lws's own 403 HTML page before any callback;
 *   - unmasked client frames are accepted (RFC 6455 section 5.1: close with 1002), and
 *     whether a frame was masked is private to lws.
 *
 * How. lws reads its sockets with recv() (lib/core-net/output.c,
 * lws_ssl_capable_read_no_ssl), a call from the shared library through its PLT. This file
 * defines recv() in the executable, and the dynamic linker binds lws's call to it (the
 * executable comes first in the lookup scope; it exports recv because libwebsockets.so
 * refers to it). thue__rx_start checks that this holds (dlsym(RTLD_DEFAULT, "recv") is
 * this file's function) and the server refuses to start when it does not. A recv() on a
 * descriptor the network layer registered (thue__rx_watch: every accepted connection),
 * made on the loop thread with no flags, reads through the next recv() in line
 * (dlsym(RTLD_NEXT): libc's, or a sanitizer's interceptor in an ASan or TSan build, which
 * then calls libc's) into a scratch buffer, and thue__rx_filter decides what goes into
 * lws's buffer. Every other recv() in the process (other descriptors, other threads,
 * flags) goes to the next one untouched.
 *
 * The filter, per connection, by mode:
 *   HEAD    request heads, line by line. A line is handed on only once it has ended and
 *           passed the checks below; a line cut by a read is held (at most LINE_MAX
 *           bytes), so lws never sees a byte of a line we have not checked. The request
 *           line: METHOD SP TARGET SP HTTP/1.x, the method GET or HEAD (405 otherwise, so
 *           that every method gets the server's JSON answer), the target a path with
 *           well-formed %-escapes and no %00 (400), the version 1.0 or 1.1 (505). Header
 *           lines: a name of token characters, then the colon at once (whitespace before
 *           it: 400), no line folding, no control characters but tab in values, no bare
 *           CR anywhere; one Content-Length, decimal digits only, never beside a
 *           Transfer-Encoding; an Upgrade, if any, is "websocket" (lws's own test). Past
 *           HEAD_MAX bytes or FIELDS_MAX lines: 431. Empty lines before a request line
 *           are skipped (RFC 9112 section 2.2). Only the fields the server or lws uses
 *           are handed on (passed_fields says why): the rest are checked and dropped.
 *           A refused head is answered by the server, not by lws: if lws has seen none
 *           of it, it gets a stand-in "GET / HTTP/1.1" head; if it has seen its first
 *           lines, the head is ended there. Either way rx->bad_head numbers that head,
 *           the network layer's callback answers it with rx->status and closes, and
 *           everything after it is dropped (mode DISCARD): nothing behind a bad head can
 *           ever reach lws as a request.
 *           After a good head: its body (Content-Length) is passed as it is (mode BODY);
 *           a chunked body is dropped (DISCARD: the server serves no bodies and closes
 *           such a connection after answering); after an upgrade, WebSocket frames.
 *   FRAMES  each frame header is read (across reads, byte by byte), payloads are
 *           skipped by their length. An unmasked frame stops the input before it: the
 *           rest is dropped and on_unmasked is called (after the read), so that the
 *           network layer closes the connection with 1002 through its usual close
 *           path; then the reads say end of stream (mode EOF).
 *
 * Reads that produce nothing (a held line, dropped bytes) return -1 with EAGAIN: lws
 * takes it as "nothing yet" and, since the kernel's buffer was drained, the socket does
 * not poll readable again until more arrives, so nothing spins. What a read hands on
 * must fit lws's buffer: a held line (at most LINE_MAX) comes out with the bytes that end
 * it, and a stand-in head may replace fewer bytes, so a read takes at most
 * len - line_len - SLACK bytes from the socket. lws reads with buffers of 4 KiB and more;
 * a smaller read while a line is held gets EAGAIN without reading (never seen).
 *
 * accept() is interposed too, as a backstop: lws logs and retries a failing accept() in
 * a loop, and at the descriptor limit (EMFILE, ENFILE) that is a busy loop writing a log
 * line per try. Here the connection at the head of the backlog is taken with a spare
 * descriptor kept for this and closed at once, and lws hears EAGAIN: each refused
 * connection costs one accept and one close, and nothing is logged but a rate-limited
 * warning. The network layer sizes its limits so that this should not happen.
 *
 * Loop thread only (the registry and the states); a thread-local flag tells the loop
 * thread from the others, which always go straight through.
 */
#define _GNU_SOURCE /* RTLD_NEXT, RTLD_DEFAULT */
#include "net/rxguard.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"

/* What a refused request line is replaced with. */
static const char STAND_IN[] = "GET / HTTP/1.1\r\n\r\n";

_Static_assert(sizeof STAND_IN - 1 <= THUE_RX_SLACK, "the stand-in head fits the slack");

/* ---- the filter ------------------------------------------------------------------------ */

void thue__rx_init(thue_rx *rx)
{
    memset(rx, 0, sizeof *rx);
    rx->mode = THUE_RX_HEAD;
}

void thue__rx_clear(thue_rx *rx)
{
    free(rx->line);
    rx->line = NULL;
    rx->line_len = rx->line_cap = 0;
}

/* RFC 9110 section 5.6.2: tchar. */
static int is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Refuses the head being read: ends what lws has of it (or stands in for it), notes the
 * answer and drops everything from here on. */
static void refuse(thue_rx *rx, int status, const char *code, const char *why, unsigned char *out,
                   size_t *o)
{
    const char *end = rx->line_no == 0 ? STAND_IN : "\r\n";
    size_t n = strlen(end);
    memcpy(out + *o, end, n);
    *o += n;
    rx->heads++;
    rx->bad_head = rx->heads;
    rx->status = status;
    rx->code = code;
    rx->why = why;
    rx->mode = THUE_RX_DISCARD;
    thue__rx_clear(rx);
}

static void bad_request(thue_rx *rx, const char *why, unsigned char *out, size_t *o)
{
    refuse(rx, 400, "bad_request", why, out, o);
}

/* Whether the n bytes at p are text, ignoring ASCII case. */
static int same_word(const unsigned char *p, size_t n, const char *text)
{
    return strlen(text) == n && strncasecmp((const char *)p, text, n) == 0;
}

/* The request line p (m bytes, its line end removed): 0, or -1 after refusing it. */
static int request_line(thue_rx *rx, const unsigned char *p, size_t m, unsigned char *out,
                        size_t *o)
{
    size_t k = 0;
    while (k < m && is_tchar(p[k]))
        k++;
    size_t t = k + 1, te = t;
    while (te < m && p[te] > 0x20 && p[te] < 0x7f)
        te++;
    if (k == 0 || k >= m || p[k] != ' ' || te == t || te >= m || p[te] != ' ') {
        bad_request(rx, "malformed request line (expected METHOD /path HTTP/1.1)", out, o);
        return -1;
    }
    const unsigned char *v = p + te + 1;
    size_t vn = m - te - 1;
    if (vn != 8 || memcmp(v, "HTTP/", 5) != 0 || v[6] != '.' || v[5] < '0' || v[5] > '9' ||
        v[7] < '0' || v[7] > '9') {
        bad_request(rx, "malformed request line (expected METHOD /path HTTP/1.1)", out, o);
        return -1;
    }
    if (v[5] != '1' || (v[7] != '0' && v[7] != '1')) {
        refuse(rx, 505, "bad_request", "only HTTP/1.0 and HTTP/1.1 are served", out, o);
        return -1;
    }
    if (!(k == 3 && memcmp(p, "GET", 3) == 0) && !(k == 4 && memcmp(p, "HEAD", 4) == 0)) {
        refuse(rx, 405, "method_not_allowed", "only GET and HEAD are served", out, o);
        return -1;
    }
    if (p[t] != '/') {
        bad_request(rx, "the request target must be a path starting with /", out, o);
        return -1;
    }
    for (size_t i = t; i < te; i++) {
        if (p[i] != '%')
            continue;
        if (i + 2 >= te || !is_hex(p[i + 1]) || !is_hex(p[i + 2]) ||
            (p[i + 1] == '0' && p[i + 2] == '0')) {
            bad_request(rx, "bad percent-encoding in the request target", out, o);
            return -1;
        }
    }
    return 0;
}

/*
 * The header fields lws gets: those the server or lws acts on. The others are checked
 * and dropped. Not only to keep lws's header memory for what matters: lws 4.1.6's parser
 * mistakes a field whose name is a proper prefix of a name it knows ("X-Auth", a prefix
 * of "X-Auth-Token"; "Acc") for the start of a longer name, and reads on through the next
 * line (a Content-Length there would be lost to it: smuggling), or never sees the end of
 * the head. Every name here is one lws knows whole.
 */
static const char *const passed_fields[] = {
    "host",
    "connection",
    "upgrade",
    "content-length",
    "transfer-encoding",
    "origin",
    "x-forwarded-for",
    "authorization", /* an account token for /api/matches (private rooms' matches) */
    "accept-encoding", /* gzip for the web root's files (static.c) */
    "if-none-match",   /* their ETags: a reload is a row of 304s */
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-protocol",
    "sec-websocket-extensions",
};

/* A header line p (m bytes, its line end removed): 0 to hand it on, 1 to drop it, or -1
 * after refusing it. */
static int header_line(thue_rx *rx, const unsigned char *p, size_t m, unsigned char *out, size_t *o)
{
    if (p[0] == ' ' || p[0] == '\t') {
        bad_request(rx, "obsolete line folding: a header line starts with whitespace", out, o);
        return -1;
    }
    size_t k = 0;
    while (k < m && is_tchar(p[k]))
        k++;
    if (k >= m) {
        bad_request(rx, "a header line without a colon", out, o);
        return -1;
    }
    if (p[k] != ':') {
        bad_request(rx,
                    p[k] == ' ' || p[k] == '\t'
                        ? "whitespace between a header field name and its colon"
                        : "a bad character in a header field name",
                    out, o);
        return -1;
    }
    if (k == 0) {
        bad_request(rx, "a header field with an empty name", out, o);
        return -1;
    }
    size_t a = k + 1, b = m;
    for (size_t i = a; i < b; i++) {
        if ((p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f) {
            bad_request(rx, "a control character in a header field value", out, o);
            return -1;
        }
    }
    while (a < b && (p[a] == ' ' || p[a] == '\t'))
        a++;
    while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
        b--;
    if (same_word(p, k, "content-length")) {
        if (rx->has_length) {
            bad_request(rx, "more than one Content-Length", out, o);
            return -1;
        }
        if (rx->has_chunked) {
            bad_request(rx, "both Content-Length and Transfer-Encoding", out, o);
            return -1;
        }
        uint64_t v = 0;
        if (b == a || b - a > 15) {
            bad_request(rx, "Content-Length must be one decimal number", out, o);
            return -1;
        }
        for (size_t i = a; i < b; i++) {
            if (p[i] < '0' || p[i] > '9') {
                bad_request(rx, "Content-Length must be one decimal number", out, o);
                return -1;
            }
            v = v * 10 + (uint64_t)(p[i] - '0');
        }
        rx->has_length = 1;
        rx->length = v;
    } else if (same_word(p, k, "transfer-encoding")) {
        if (rx->has_length) {
            bad_request(rx, "both Content-Length and Transfer-Encoding", out, o);
            return -1;
        }
        rx->has_chunked = 1;
    } else if (same_word(p, k, "upgrade")) {
        /* lws upgrades when the whole value is "websocket", and answers other values
         * itself (403, or HTTP/2 for h2c): only the first gets through. */
        if (rx->upgrade || !same_word(p + a, b - a, "websocket")) {
            bad_request(rx, "only WebSocket upgrades are served (Upgrade: websocket)", out, o);
            return -1;
        }
        rx->upgrade = 1;
    }
    for (size_t i = 0; i < sizeof passed_fields / sizeof passed_fields[0]; i++)
        if (same_word(p, k, passed_fields[i]))
            return 0;
    return 1;
}

/* A whole line of a head (len bytes, its LF included): handed on, or the head refused or
 * ended. */
static void head_line(thue_rx *rx, const unsigned char *line, size_t len, unsigned char *out,
                      size_t *o)
{
    size_t m = len - 1;
    if (m > 0 && line[m - 1] == '\r')
        m--;
    if (memchr(line, '\r', m) != NULL) {
        bad_request(rx, "a bare CR in the request head", out, o);
        return;
    }
    if (m == 0) {
        if (rx->line_no == 0)
            return; /* an empty line before a request line is skipped */
        memcpy(out + *o, line, len);
        *o += len;
        rx->heads++;
        if (rx->upgrade)
            rx->mode = THUE_RX_FRAMES;
        else if (rx->has_chunked)
            rx->mode = THUE_RX_DISCARD;
        else if (rx->has_length && rx->length > 0)
            rx->mode = THUE_RX_BODY;
        rx->body_left = rx->length;
        rx->line_no = 0;
        rx->head_bytes = 0;
        rx->has_length = rx->has_chunked = rx->upgrade = 0;
        rx->length = 0;
        return;
    }
    if (rx->line_no > THUE_RX_FIELDS_MAX) {
        refuse(rx, 431, "bad_request", "too many header fields", out, o);
        return;
    }
    int r = rx->line_no == 0 ? request_line(rx, line, m, out, o) : header_line(rx, line, m, out, o);
    if (r < 0)
        return;
    if (r == 0) {
        memcpy(out + *o, line, len);
        *o += len;
    }
    rx->line_no++;
}

/* Appends n bytes to the held line: 0, or -1 when memory ran out. */
static int hold(thue_rx *rx, const unsigned char *p, size_t n)
{
    if (rx->line_len + n > rx->line_cap) {
        size_t cap = rx->line_cap ? rx->line_cap : 256;
        while (cap < rx->line_len + n)
            cap *= 2;
        char *b = realloc(rx->line, cap);
        if (b == NULL)
            return -1;
        rx->line = b;
        rx->line_cap = cap;
    }
    memcpy(rx->line + rx->line_len, p, n);
    rx->line_len += n;
    return 0;
}

/* HEAD: the next line's bytes from in + *i. */
static void head_bytes(thue_rx *rx, const unsigned char *in, size_t n, size_t *i,
                       unsigned char *out, size_t *o)
{
    const unsigned char *start = in + *i;
    const unsigned char *lf = memchr(start, '\n', n - *i);
    size_t seg = lf ? (size_t)(lf - start) + 1 : n - *i;
    *i += seg;
    if (rx->line_len + seg > THUE_RX_LINE_MAX) {
        if (rx->line_no == 0)
            refuse(rx, 414, "bad_request", "the request line is too long", out, o);
        else
            refuse(rx, 431, "bad_request", "a header field is too long", out, o);
        return;
    }
    rx->head_bytes += seg;
    if (rx->head_bytes > THUE_RX_HEAD_MAX) {
        refuse(rx, 431, "bad_request", "the request head is too long", out, o);
        return;
    }
    if (lf == NULL || rx->line_len > 0) {
        if (hold(rx, start, seg) != 0) {
            refuse(rx, 431, "bad_request", "the server is out of memory for request heads", out, o);
            return;
        }
        if (lf == NULL)
            return;
        head_line(rx, (const unsigned char *)rx->line, rx->line_len, out, o);
        thue__rx_clear(rx); /* a held line is rare: give its buffer back */
        return;
    }
    head_line(rx, start, seg, out, o);
}

/* FRAMES: frame headers and payloads from in + *i, handed on up to an unmasked frame. */
static void frame_bytes(thue_rx *rx, const unsigned char *in, size_t n, size_t *i,
                        unsigned char *out, size_t *o)
{
    size_t i0 = *i;
    while (*i < n) {
        if (rx->payload_left > 0) {
            size_t k = n - *i;
            if (k > rx->payload_left)
                k = (size_t)rx->payload_left;
            memcpy(out + *o, in + *i, k);
            *o += k;
            *i += k;
            rx->payload_left -= k;
            continue;
        }
        unsigned char c = in[*i];
        rx->fh[rx->fh_len++] = c;
        if (rx->fh_len == 2) {
            if (!(c & 0x80)) {
                /* RFC 6455 section 5.1: a client's frames are masked. The frame's first
                 * byte is taken back if it came in this read; if an earlier read handed
                 * it on, lws waits for the rest of the header, which never comes. */
                if (*i > i0)
                    (*o)--;
                rx->unmasked = 1;
                rx->mode = THUE_RX_DISCARD;
                *i = n;
                return;
            }
            unsigned len7 = c & 0x7f;
            rx->fh_need = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + 4;
        }
        out[(*o)++] = c;
        (*i)++;
        if (rx->fh_len >= 2 && rx->fh_len == rx->fh_need) {
            unsigned len7 = rx->fh[1] & 0x7f;
            uint64_t len = len7;
            if (len7 == 126)
                len = (uint64_t)rx->fh[2] << 8 | rx->fh[3];
            else if (len7 == 127)
                for (int b = 2; b < 10; b++)
                    len = len << 8 | rx->fh[b];
            rx->payload_left = len;
            rx->fh_len = rx->fh_need = 0;
        }
    }
}

size_t thue__rx_filter(thue_rx *rx, const unsigned char *in, size_t n, unsigned char *out)
{
    size_t i = 0, o = 0;
    while (i < n) {
        switch (rx->mode) {
        case THUE_RX_HEAD:
            head_bytes(rx, in, n, &i, out, &o);
            break;
        case THUE_RX_BODY: {
            size_t k = n - i;
            if (k > rx->body_left)
                k = (size_t)rx->body_left;
            memcpy(out + o, in + i, k);
            o += k;
            i += k;
            rx->body_left -= k;
            if (rx->body_left == 0)
                rx->mode = THUE_RX_HEAD;
            break;
        }
        case THUE_RX_FRAMES:
            frame_bytes(rx, in, n, &i, out, &o);
            break;
        case THUE_RX_DISCARD:
        case THUE_RX_EOF:
            i = n;
            break;
        }
    }
    return o;
}

/* ---- the interposed calls -------------------------------------------------------------- */

typedef ssize_t (*recv_fn)(int, void *, size_t, int);
typedef int (*accept_fn)(int, struct sockaddr *, socklen_t *);

static recv_fn next_recv;
static accept_fn next_accept;
static _Thread_local int on_loop; /* this thread called thue__rx_start */
static thue_rx **watched;         /* by descriptor */
static int watched_n;
static int spare_fd = -1; /* given up to take a connection at EMFILE */
static uint64_t emfile_refused;
static unsigned char scratch[65536];

static ssize_t call_recv(int fd, void *buf, size_t len, int flags)
{
    if (next_recv)
        return next_recv(fd, buf, len, flags);
    return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    thue_rx *rx = NULL;
    if (on_loop && flags == 0 && fd >= 0 && fd < watched_n)
        rx = watched[fd];
    if (rx == NULL)
        return call_recv(fd, buf, len, flags);
    if (rx->mode == THUE_RX_EOF)
        return 0;
    size_t reserve = rx->line_len + THUE_RX_SLACK;
    if (len <= reserve) {
        errno = EAGAIN;
        return -1;
    }
    size_t want = len - reserve;
    if (want > sizeof scratch)
        want = sizeof scratch;
    ssize_t n = call_recv(fd, scratch, want, 0);
    if (n <= 0)
        return n;
    rx->bytes_in += (uint64_t)n;
    size_t out = thue__rx_filter(rx, scratch, (size_t)n, buf);
    if (rx->unmasked && !rx->told) {
        rx->told = 1;
        if (rx->on_unmasked)
            rx->on_unmasked(rx->arg);
    }
    if (out == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)out;
}

int accept(int fd, struct sockaddr *addr, socklen_t *addrlen)
{
    int r =
        next_accept ? next_accept(fd, addr, addrlen) : (int)syscall(SYS_accept, fd, addr, addrlen);
    if (r >= 0 || (errno != EMFILE && errno != ENFILE) || !on_loop)
        return r;
    int e = errno;
    if (spare_fd < 0)
        spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (spare_fd < 0) {
        /* Nothing to give up: the connection waits in the backlog (lws tries again). */
        errno = EAGAIN;
        return -1;
    }
    close(spare_fd);
    int c = next_accept ? next_accept(fd, NULL, NULL) : (int)syscall(SYS_accept, fd, NULL, NULL);
    if (c >= 0)
        close(c);
    spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    emfile_refused++;
    thue_log(THUE_LOG_WARN,
             "out of file descriptors (%s): refused a connection; lower --max-connections or "
             "raise the open-file limit (ulimit -n)",
             strerror(e));
    errno = EAGAIN;
    return -1;
}

uint64_t thue__rx_emfile_refused(void)
{
    return emfile_refused;
}

int thue__rx_start(int max_fd, char *err, size_t errsize)
{
    void *self = dlsym(RTLD_DEFAULT, "recv");
    if (self != (void *)recv) {
        snprintf(err, errsize,
                 "internal error: the receive guard is not in place (recv() is not the "
                 "server's own: was thue-server linked without exporting it?)");
        return -1;
    }
    next_recv = (recv_fn)dlsym(RTLD_NEXT, "recv");
    next_accept = (accept_fn)dlsym(RTLD_NEXT, "accept");
    if (max_fd < 1)
        max_fd = 1;
    watched = calloc((size_t)max_fd, sizeof *watched);
    if (watched == NULL) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    watched_n = max_fd;
    if (spare_fd < 0)
        spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    on_loop = 1;
    return 0;
}

void thue__rx_stop(void)
{
    free(watched);
    watched = NULL;
    watched_n = 0;
    if (spare_fd >= 0)
        close(spare_fd);
    spare_fd = -1;
    on_loop = 0;
}

int thue__rx_watch(int fd, thue_rx *rx)
{
    if (fd < 0 || fd >= watched_n)
        return -1;
    watched[fd] = rx;
    return 0;
}

void thue__rx_unwatch(int fd, const thue_rx *rx)
{
    if (fd >= 0 && fd < watched_n && watched[fd] == rx)
        watched[fd] = NULL;
}
