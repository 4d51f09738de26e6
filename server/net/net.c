/*
 * net.c: the network layer (net.h): libwebsockets on the server's libuv loop, one port for
 * HTTP and the WebSocket endpoint.
 *
 * One lws protocol, "thue.v1", is protocols[0]: plain HTTP lands there too (lws binds
 * every HTTP connection to protocols[0]), and so does a WebSocket client that offers no
 * subprotocol, which PROTOCOL.md serves as thue.v1. Its callback is the whole layer:
 *   - HTTP requests are answered from LWS_CALLBACK_HTTP: small JSON or Prometheus bodies
 *     written in chunks from HTTP_WRITEABLE, files through lws_serve_http_file. Anything
 *     else falls through to lws_callback_http_dummy, which finishes file transfers
 *     (without it a transfer that ends never completes its transaction).
 *   - WebSocket upgrades are vetted in HTTP_CONFIRM_UPGRADE, the one place where a
 *     refusal can still be an HTTP answer (404 off /ws, 400 for unknown subprotocols, 503
 *     past a connection limit or once stopping); refusing later only drops the socket.
 *   - A WebSocket connection is a thue_conn: the lobby's client, a send queue, the message
 *     being reassembled. What the lobby sends while the loop turn reads input is held
 *     (hold): at the end of the turn (flush_check) each connection's messages go out as
 *     one write of frames, so a move's `ok` and room state share a segment and the
 *     turn's replies leave together (docs/bench.md). Outside a hold a message is written
 *     at once; behind unsent bytes it queues for WRITEABLE, which writes one per call.
 *     The close hook only marks: a close waits for the queue to drain (a goodbye must
 *     arrive before the close frame), then goes to lws from a TIMER callback (see
 *     ws_writeable and ws_close_now for why not from WRITEABLE).
 *
 * Shutdown (thue_net_close): wait for the WebSocket connections to finish closing (the
 * lobby closed them), at most DRAIN_MS; then the foreign-loop sequence of lws 4.1: a first
 * lws_context_destroy closes every connection and starts closing lws's own uv handles;
 * once the loop has finished closing those, a second lws_context_destroy frees the
 * context. lws has no call that says its handles are closed, so thue_net_new notes which
 * handles appeared on the loop while the context was created (lws's static handles: they
 * live inside the context and close last, after every connection's) and the teardown
 * polls the loop until none of them is left.
 *
 * Loop thread only, like everything lws does on a foreign loop.
 */
#define _XOPEN_SOURCE 700 /* realpath (beside the build's _POSIX_C_SOURCE) */

#include "net/net.h"
#include "net/ws_frame.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "log.h"
#include "protocol/codec.h"
#include "store/store.h"
#include "strbuf.h"

#ifndef THUE_SERVER_VERSION
#define THUE_SERVER_VERSION "0.1.0"
#endif

#define PROTOCOL_NAME "thue.v1"
#define JSON_TYPE "application/json; charset=utf-8"
#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

#define DRAIN_MS 2000        /* thue_net_close waits this long for connections to close */
#define TEARDOWN_MS 3000     /* and this long for lws's handles to close */
#define POLL_MS 5            /* the teardown timer's period */
#define HTTP_CHUNK 16384     /* bytes of an HTTP body per write */
#define MATCHES_PER_PAGE 50  /* GET /api/matches?player= */
#define QUEUE_MAX (8u << 20) /* bytes queued for one connection before it is dropped */
#define IP_BUCKETS 256       /* per-IP counters: a small chained hash table */
#define IP_TEXT_MAX 64       /* lws_get_peer_simple's text of an address */
#define REASON_MAX 123       /* a close frame's reason: 125 bytes less the code */

/* ---- types ------------------------------------------------------------------------- */

/* One queued message; buf has LWS_PRE bytes of headroom for lws before the text. */
typedef struct out_msg {
    struct out_msg *next;
    size_t len;
    unsigned char buf[];
} out_msg;

/* Connections from one peer address. */
typedef struct ip_slot {
    struct ip_slot *next;
    int count;
    char ip[IP_TEXT_MAX];
} ip_slot;

struct thue_conn {
    thue_net *net;
    struct lws *wsi;
    thue_client *client; /* NULL when the lobby refused the connection */
    ip_slot *ip;
    out_msg *head, *tail; /* the send queue */
    size_t queued;        /* its bytes */
    char *rx;             /* a fragmented message being reassembled */
    size_t rx_len, rx_cap;
    size_t held_first, held_last; /* its frames held back (1-based into net->held; 0: none) */
    int closing;    /* a close is under way: no more sends, input ignored */
    int close_sent; /* the close went to lws (which then sends it and waits for the echo) */
    int close_code;
    char reason[REASON_MAX + 1];
};

/* lws's per-connection user data (zeroed by lws; reallocated when a connection is
 * upgraded to WebSocket). */
typedef struct deferred deferred;

typedef struct pss {
    thue_conn *conn; /* WebSocket */
    deferred *wait;  /* HTTP: a response the store is producing */
    /* HTTP: the body of the response being written */
    char *body;
    size_t body_len, body_off;
    int close_after;       /* close the connection once the response is out */
    int refuse_after_body; /* answer 405 once lws has read the request's body */
} pss;

typedef enum { RUNNING, DRAINING, TEARING_DOWN } net_phase;

/* A message held back (see struct thue_net): its text in the arena, its connection. */
typedef struct held_msg {
    thue_conn *c; /* NULL: the connection went meanwhile */
    size_t off, len;
    size_t next; /* the connection's next record (1-based; 0: none) */
} held_msg;

/* An address to compare: 4 bytes (IPv4, IPv4-mapped IPv6 included) or 16. */
typedef struct net_addr {
    int len;
    unsigned char b[16];
} net_addr;

/* Handles seen on the loop (to tell lws's apart from everyone else's). */
typedef struct handle_set {
    uv_handle_t **h;
    size_t n, cap;
    int failed; /* out of memory while collecting */
} handle_set;

struct thue_net {
    uv_loop_t *loop;
    void *foreign_loops[1];
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    struct lws_protocols protocols[2];
    lws_retry_bo_t retry;
    thue_lobby *lobby;
    thue_pool *pool;
    thue_metrics *metrics;
    thue_store *store; /* NULL: no database (the record endpoints say not_available) */

    char web_root[PATH_MAX]; /* canonical (realpath) */
    int max_conns, max_per_ip;
    int nconns; /* open WebSocket connections */
    ip_slot *ips[IP_BUCKETS];
    uint64_t started_ms;

    int stopping; /* thue_net_stop_accepting was called */
    net_phase phase;
    handle_set lws_handles; /* lws's static handles */
    int lws_left;           /* lws_handles_left's finding */
    uv_timer_t timer;       /* drives the shutdown */
    uint64_t deadline;
    void (*closed)(void *data);
    void *closed_data;

    unsigned char *wbuf; /* LWS_PRE + a message, for writes made at once (hook_send) */
    size_t wcap;

    /* Messages held back while input is read (hold_begin/hold_end around each received
     * message, nested in hold_turn's hold for the rest of the loop turn), to go out as one
     * write per connection: their texts in order in harena, one record each, chained per
     * connection. */
    int holding;
    int iter_hold;          /* a hold runs until the end of this loop turn (flush_check) */
    int check_on;           /* flush_check is initialised */
    uv_check_t flush_check; /* ends the turn's hold once lws has handled the turn's input */
    held_msg *held;
    size_t nheld, heldcap;
    char *harena;
    size_t hlen, hcap;

    net_addr proxies[THUE_CONFIG_PROXIES_N]; /* --trusted-proxy */
    int nproxies;
};

/* ---- small helpers ----------------------------------------------------------------- */

static thue_net *net_of(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi));
}

/* lws's log lines, through ours (lws ends them with a newline; thue_log adds its own). */
static void lws_log_emit(int level, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    thue_log_level lv = level == LLL_ERR    ? THUE_LOG_ERROR
                        : level == LLL_WARN ? THUE_LOG_WARN
                                            : THUE_LOG_DEBUG;
    thue_log(lv, "lws: %.*s", (int)n, line);
}

/* ---- per-IP counters --------------------------------------------------------------- */

static unsigned ip_hash(const char *ip)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)ip; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h % IP_BUCKETS;
}

static ip_slot *ip_find(thue_net *net, const char *ip)
{
    for (ip_slot *s = net->ips[ip_hash(ip)]; s; s = s->next)
        if (strcmp(s->ip, ip) == 0)
            return s;
    return NULL;
}

static int ip_count(thue_net *net, const char *ip)
{
    ip_slot *s = ip_find(net, ip);
    return s ? s->count : 0;
}

/* One more connection from ip: its slot, or NULL when out of memory. */
static ip_slot *ip_acquire(thue_net *net, const char *ip)
{
    ip_slot *s = ip_find(net, ip);
    if (s == NULL) {
        s = calloc(1, sizeof *s);
        if (s == NULL)
            return NULL;
        snprintf(s->ip, sizeof s->ip, "%s", ip);
        unsigned b = ip_hash(s->ip);
        s->next = net->ips[b];
        net->ips[b] = s;
    }
    s->count++;
    return s;
}

static void ip_release(thue_net *net, ip_slot *slot)
{
    if (--slot->count > 0)
        return;
    for (ip_slot **p = &net->ips[ip_hash(slot->ip)]; *p; p = &(*p)->next) {
        if (*p == slot) {
            *p = slot->next;
            free(slot);
            return;
        }
    }
}

/* The peer's address text ("unknown" when lws cannot tell). */
static void peer_ip(struct lws *wsi, char *buf, size_t size)
{
    if (lws_get_peer_simple(wsi, buf, size) == NULL || buf[0] == '\0')
        snprintf(buf, size, "unknown");
}

/* 0 and *a, or -1 when text is not an IPv4 or IPv6 address. */
static int addr_parse(const char *text, net_addr *a)
{
    static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (inet_pton(AF_INET, text, a->b) == 1) {
        a->len = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, text, a->b) != 1)
        return -1;
    a->len = 16;
    if (memcmp(a->b, v4_mapped, sizeof v4_mapped) == 0) {
        memmove(a->b, a->b + 12, 4);
        a->len = 4;
    }
    return 0;
}

static int is_proxy(const thue_net *net, const net_addr *a)
{
    for (int i = 0; i < net->nproxies; i++)
        if (net->proxies[i].len == a->len && memcmp(net->proxies[i].b, a->b, (size_t)a->len) == 0)
            return 1;
    return 0;
}

/*
 * The client's address, for the per-address limit and the logs: the peer's; or, when the
 * peer is a trusted proxy (--trusted-proxy), the rightmost address in X-Forwarded-For
 * that is not one (each proxy appends the address it was reached from, so what is left
 * of the last untrusted hop may be forged). A hop that is not an address ends the walk.
 */
static void client_ip(const thue_net *net, struct lws *wsi, char *buf, size_t size)
{
    peer_ip(wsi, buf, size);
    net_addr a;
    if (net->nproxies == 0 || addr_parse(buf, &a) != 0 || !is_proxy(net, &a))
        return;
    char xff[512];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR);
    if (n <= 0 || n >= (int)sizeof xff ||
        lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) < 0)
        return;
    char *end = xff + strlen(xff);
    for (;;) {
        char *start = end;
        while (start > xff && start[-1] != ',')
            start--;
        char *first = start, *last = end;
        while (first < last && (*first == ' ' || *first == '\t'))
            first++;
        while (last > first && (last[-1] == ' ' || last[-1] == '\t'))
            last--;
        *last = '\0';
        net_addr hop;
        if (addr_parse(first, &hop) != 0)
            return;
        inet_ntop(hop.len == 4 ? AF_INET : AF_INET6, hop.b, buf, (socklen_t)size);
        if (!is_proxy(net, &hop) || start == xff)
            return;
        end = start - 1; /* the comma */
    }
}

/* ---- the WebSocket side: hooks and connections ---------------------------------------- */

static void queue_free(thue_conn *c)
{
    for (out_msg *m = c->head, *next; m; m = next) {
        next = m->next;
        free(m);
    }
    c->head = c->tail = NULL;
    c->queued = 0;
}

/* Marks c closing with code and reason; the close frame goes out once the queue is
 * drained (WRITEABLE). */
static void conn_close(thue_conn *c, int code, const char *reason)
{
    if (c->closing)
        return;
    c->closing = 1;
    c->close_code = code;
    size_t n = reason ? strlen(reason) : 0;
    if (n > REASON_MAX)
        n = REASON_MAX;
    memcpy(c->reason, reason ? reason : "", n);
    c->reason[n] = '\0';
    lws_callback_on_writable(c->wsi);
}

/* net->wbuf with room for LWS_PRE + n bytes: 0, or -1 when memory ran out. */
static int wbuf_reserve(thue_net *net, size_t n)
{
    if (net->wcap >= LWS_PRE + n)
        return 0;
    size_t cap = net->wcap ? net->wcap : 4096;
    while (cap < LWS_PRE + n)
        cap *= 2;
    unsigned char *b = realloc(net->wbuf, cap);
    if (b == NULL)
        return -1;
    net->wbuf = b;
    net->wcap = cap;
    return 0;
}

/* Writes net->wbuf + LWS_PRE (n bytes) on c now. lws sends what the socket takes and keeps
 * the rest, which goes out before anything written later (and no WRITEABLE comes until it
 * has). */
static void write_now(thue_conn *c, size_t n, enum lws_write_protocol how)
{
    if (lws_write(c->wsi, c->net->wbuf + LWS_PRE, n, how) < 0) {
        /* The socket failed: lws closes it on its next turn. */
        c->closing = 1;
        c->close_sent = 1;
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    }
}

/*
 * Sends what is held for c as one write: a lone message as lws's text frame; several as
 * the frames written here, raw, so that one send() carries them all (a move's `ok` and the
 * mover's `room_state`: one TCP segment instead of two, which on a busy server is most of
 * a message's cost; docs/bench.md).
 */
static void held_flush_conn(thue_net *net, thue_conn *c)
{
    size_t first = c->held_first;
    c->held_first = c->held_last = 0;
    if (c->closing && c->close_sent)
        return; /* lws is closing it already */
    size_t total = 0, count = 0;
    for (size_t i = first; i; i = net->held[i - 1].next) {
        size_t len = net->held[i - 1].len;
        total += thue_ws_header_size(len) + len;
        count++;
    }
    if (wbuf_reserve(net, total) != 0) {
        thue_log(THUE_LOG_ERROR, "out of memory sending %zu bytes: closing a connection", total);
        conn_close(c, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "server out of memory");
        return;
    }
    unsigned char *out = net->wbuf + LWS_PRE;
    if (count == 1) {
        memcpy(out, net->harena + net->held[first - 1].off, net->held[first - 1].len);
        write_now(c, net->held[first - 1].len, LWS_WRITE_TEXT);
        return;
    }
    for (size_t i = first; i; i = net->held[i - 1].next) {
        const held_msg *h = &net->held[i - 1];
        out += thue_ws_text_header(out, h->len);
        memcpy(out, net->harena + h->off, h->len);
        out += h->len;
    }
    write_now(c, total, LWS_WRITE_RAW);
}

/* Sends everything held, each connection's messages in the order they were sent. */
static void held_flush(thue_net *net)
{
    for (size_t i = 0; i < net->nheld; i++) {
        thue_conn *c = net->held[i].c;
        if (c != NULL && c->held_first == i + 1)
            held_flush_conn(net, c);
    }
    net->nheld = 0;
    net->hlen = 0;
}

/* Holds back what is sent to connections until hold_end (nested calls count). */
static void hold_begin(thue_net *net)
{
    net->holding++;
}

static void hold_end(thue_net *net)
{
    if (--net->holding == 0 && net->nheld > 0)
        held_flush(net);
}

/* Holds what the rest of this loop turn sends (until flush_check): the turn's replies go
 * out together after its input is read. */
static void hold_turn(thue_net *net)
{
    if (net->iter_hold || !net->check_on || net->phase != RUNNING)
        return;
    net->iter_hold = 1;
    hold_begin(net);
}

static void end_turn(thue_net *net)
{
    if (net->iter_hold) {
        net->iter_hold = 0;
        hold_end(net);
    }
}

static void on_flush_check(uv_check_t *h)
{
    end_turn(h->data);
}

/* Drops c's held messages (c is going away). */
static void held_forget(thue_net *net, thue_conn *c)
{
    for (size_t i = c->held_first; i; i = net->held[i - 1].next)
        net->held[i - 1].c = NULL;
    c->held_first = c->held_last = 0;
}

#define HELD_ARENA_MAX (4u << 20) /* held bytes that make the held go out at once */

/* Holds text for c: 0, or -1 when it could not (then it is sent as usual). */
static int hold(thue_net *net, thue_conn *c, const char *text, size_t len)
{
    if (net->hlen > 0 && net->hlen + len > HELD_ARENA_MAX)
        held_flush(net); /* a broadcast: keep the arena small */
    if (net->nheld == net->heldcap) {
        size_t cap = net->heldcap ? 2 * net->heldcap : 64;
        held_msg *h = realloc(net->held, cap * sizeof *h);
        if (h == NULL)
            return -1;
        net->held = h;
        net->heldcap = cap;
    }
    if (net->hlen + len > net->hcap) {
        size_t cap = net->hcap ? net->hcap : 16384;
        while (cap < net->hlen + len)
            cap *= 2;
        char *a = realloc(net->harena, cap);
        if (a == NULL)
            return -1;
        net->harena = a;
        net->hcap = cap;
    }
    memcpy(net->harena + net->hlen, text, len);
    held_msg *h = &net->held[net->nheld++];
    h->c = c;
    h->off = net->hlen;
    h->len = len;
    h->next = 0;
    net->hlen += len;
    if (c->held_last)
        net->held[c->held_last - 1].next = net->nheld;
    else
        c->held_first = net->nheld;
    c->held_last = net->nheld;
    return 0;
}

static void hook_send(void *ctx, thue_conn *c, const char *text, size_t len)
{
    thue_net *net = ctx;
    if (c == NULL || c->closing || net->phase == TEARING_DOWN)
        return;
    if (c->queued + len > QUEUE_MAX) {
        /* The peer reads far slower than it is sent to: queueing more only grows memory,
         * so drop what is queued and the connection with it. */
        thue_log(THUE_LOG_WARN, "connection from %s: %zu bytes unsent, dropping it",
                 c->ip ? c->ip->ip : "?", c->queued);
        queue_free(c);
        conn_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "too slow: send queue full");
        return;
    }
    if (c->head == NULL && !lws_partial_buffered(c->wsi)) {
        /* Nothing is waiting: write it now (or at hold_end) rather than on the next
         * WRITEABLE, which spares the loop the two epoll_ctl calls per message of asking
         * for it (docs/bench.md). */
        if (net->holding && hold(net, c, text, len) == 0)
            return;
        if (c->held_first == 0 && wbuf_reserve(net, len) == 0) {
            /* (with messages held for c, this one queues behind them) */
            memcpy(net->wbuf + LWS_PRE, text, len);
            write_now(c, len, LWS_WRITE_TEXT);
            return;
        }
    }
    out_msg *m = malloc(sizeof *m + LWS_PRE + len);
    if (m == NULL) {
        thue_log(THUE_LOG_ERROR, "out of memory queueing %zu bytes: closing a connection", len);
        conn_close(c, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "server out of memory");
        return;
    }
    m->next = NULL;
    m->len = len;
    memcpy(m->buf + LWS_PRE, text, len);
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    c->queued += len;
    lws_callback_on_writable(c->wsi);
}

static void hook_close(void *ctx, thue_conn *c, int code, const char *reason)
{
    thue_net *net = ctx;
    if (c == NULL || net->phase == TEARING_DOWN)
        return;
    conn_close(c, code, reason);
}

/* LWS_CALLBACK_ESTABLISHED: a new WebSocket connection, handed to the lobby. */
static int ws_established(thue_net *net, struct lws *wsi, pss *p)
{
    char ip[IP_TEXT_MAX];
    client_ip(net, wsi, ip, sizeof ip);
    thue_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return -1;
    c->ip = ip_acquire(net, ip);
    if (c->ip == NULL) {
        free(c);
        return -1;
    }
    c->net = net;
    c->wsi = wsi;
    net->nconns++;
    p->conn = c;
    thue_log(THUE_LOG_DEBUG, "websocket from %s (%d open)", ip, net->nconns);
    c->client = thue_lobby_connected(net->lobby, c, ip);
    if (c->client == NULL)
        conn_close(c, LWS_CLOSE_STATUS_GOINGAWAY, "the server cannot take this connection");
    return 0;
}

/* The connection is gone (CLOSED, or WSI_DESTROY if lws skipped CLOSED): tell the lobby,
 * exactly once, and free it. */
static void ws_gone(thue_net *net, pss *p)
{
    thue_conn *c = p->conn;
    if (c == NULL)
        return;
    p->conn = NULL;
    held_forget(net, c);
    c->closing = 1; /* whatever the lobby does now, nothing more is sent on c */
    net->nconns--;
    thue_log(THUE_LOG_DEBUG, "websocket from %s closed (%d open)", c->ip->ip, net->nconns);
    ip_release(net, c->ip);
    if (c->client)
        thue_lobby_disconnected(net->lobby, c->client);
    queue_free(c);
    free(c->rx);
    free(c);
}

/*
 * Closes c now with code: lws sends the close frame and waits for the peer's. The caller
 * returns -1 to lws, once: a second -1 while lws waits makes it drop the socket at once,
 * and unread input then turns that into a reset, which can destroy what the peer has not
 * read yet. So c is marked done with, and what still arrives is dropped.
 */
static int ws_close_now(thue_conn *c, int code, const char *reason)
{
    if (c->held_first)
        held_flush_conn(c->net, c); /* what was said to it earlier this turn goes first */
    c->closing = 1;
    c->close_sent = 1;
    lws_close_reason(c->wsi, (enum lws_close_status)code, (unsigned char *)reason, strlen(reason));
    return -1;
}

/* LWS_CALLBACK_RECEIVE: a piece of a message; whole text messages go to the lobby. */
static int ws_receive(thue_net *net, struct lws *wsi, pss *p, const char *in, size_t len)
{
    thue_conn *c = p->conn;
    if (c == NULL)
        return -1;
    if (c->closing)
        return 0; /* the lobby is done with it: input is dropped until the close ends */
    if (lws_frame_is_binary(wsi))
        return ws_close_now(c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
                            "binary messages are not accepted");
    if (c->rx_len + len > THUE_PROTO_MESSAGE_MAX)
        return ws_close_now(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message over 16384 bytes");
    int final = lws_is_final_fragment(wsi);
    if (final && c->rx_len == 0) {
        /* The usual case: the whole message arrived in one piece, no copy. */
        hold_turn(net);
        hold_begin(net);
        thue_lobby_message(net->lobby, c->client, in, len);
        hold_end(net);
        return 0;
    }
    if (c->rx_len + len > c->rx_cap) {
        size_t cap = c->rx_cap ? c->rx_cap : 1024;
        while (cap < c->rx_len + len)
            cap *= 2;
        if (cap > THUE_PROTO_MESSAGE_MAX)
            cap = THUE_PROTO_MESSAGE_MAX;
        char *rx = realloc(c->rx, cap);
        if (rx == NULL)
            return ws_close_now(c, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "server out of memory");
        c->rx = rx;
        c->rx_cap = cap;
    }
    if (len > 0)
        memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    if (!final)
        return 0;
    size_t n = c->rx_len;
    c->rx_len = 0;
    hold_turn(net);
    hold_begin(net);
    thue_lobby_message(net->lobby, c->client, c->rx, n);
    hold_end(net);
    /* A long message was an exception: give its buffer back. (c is still ours: the lobby
     * may close it, but only lws frees it, later.) */
    free(c->rx);
    c->rx = NULL;
    c->rx_cap = 0;
    return 0;
}

/* LWS_CALLBACK_SERVER_WRITEABLE: one queued message, or the close once drained. */
static int ws_writeable(struct lws *wsi, pss *p)
{
    thue_conn *c = p->conn;
    if (c == NULL)
        return 0;
    out_msg *m = c->head;
    if (m == NULL) {
        /* Drained: time to close. Not from here: a WRITEABLE callback that returns -1
         * makes lws 4.1 drop the socket without a close frame (the peer sees 1006), so
         * the close happens in a TIMER callback a moment later. */
        if (c->closing && !c->close_sent)
            lws_set_timer_usecs(wsi, 1);
        return 0;
    }
    c->head = m->next;
    if (c->head == NULL)
        c->tail = NULL;
    c->queued -= m->len;
    /* lws sends what the socket takes and buffers the rest itself, holding back further
     * WRITEABLE callbacks until it is out. */
    int n = lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
    free(m);
    if (n < 0)
        return -1;
    if (c->head || c->closing)
        lws_callback_on_writable(wsi);
    return 0;
}

/* ---- the HTTP side -------------------------------------------------------------------- */

/*
 * A response the store thread produces (GET /api/matches...): the request waits, the
 * store's callback fills this in on the loop and asks for HTTP_WRITEABLE, which sends
 * it. If the connection goes first, wsi is cleared and the callback only frees.
 */
struct deferred {
    struct lws *wsi;
    int head;
    const char *type;
    int done, status;
    char *body;
    size_t len;
};

static void http_reset(pss *p)
{
    if (p->wait) {
        if (p->wait->done) {
            free(p->wait->body);
            free(p->wait);
        } else {
            p->wait->wsi = NULL; /* the store's callback frees it */
        }
        p->wait = NULL;
    }
    free(p->body);
    p->body = NULL;
    p->body_len = p->body_off = 0;
    p->close_after = 0;
    p->refuse_after_body = 0;
}

/* The end of a response: keep-alive, or close. */
static int http_done(struct lws *wsi, pss *p)
{
    int close_after = p->close_after;
    http_reset(p);
    if (close_after)
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/*
 * Answers with status and body (owned: freed here, may be NULL with len 0). The headers
 * go out now; the body from HTTP_WRITEABLE. head: headers only (HEAD).
 */
static int http_respond(struct lws *wsi, pss *p, unsigned status, const char *type, char *body,
                        size_t len, int head)
{
    unsigned char buf[LWS_PRE + 1024];
    unsigned char *start = buf + LWS_PRE, *q = start, *end = buf + sizeof buf - 1;
    static const char nostore[] = "no-store";
    if (lws_add_http_common_headers(wsi, status, type, (lws_filepos_t)len, &q, end) ||
        lws_add_http_header_by_name(
            wsi, (const unsigned char *)"cache-control:", (const unsigned char *)nostore,
            (int)sizeof nostore - 1, &q, end) ||
        lws_finalize_write_http_header(wsi, start, &q, end)) {
        free(body);
        return -1;
    }
    if (head || len == 0) {
        free(body);
        return http_done(wsi, p);
    }
    p->body = body;
    p->body_len = len;
    p->body_off = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

/* http_respond with a copy of a constant text. */
static int http_respond_text(struct lws *wsi, pss *p, unsigned status, const char *type,
                             const char *text, int head)
{
    size_t len = strlen(text);
    char *body = malloc(len + 1);
    if (body == NULL)
        return -1;
    memcpy(body, text, len + 1);
    return http_respond(wsi, p, status, type, body, len, head);
}

/* {"error":{"code":...,"message":...}} (code and message are our constants: no escaping). */
static int http_error(struct lws *wsi, pss *p, unsigned status, const char *code,
                      const char *message, int head)
{
    char text[512];
    snprintf(text, sizeof text, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, message);
    return http_respond_text(wsi, p, status, JSON_TYPE, text, head);
}

/* LWS_CALLBACK_HTTP_WRITEABLE: a deferred response that has arrived, or the next piece
 * of the body. */
static int http_writeable(struct lws *wsi, pss *p)
{
    if (p->wait && p->wait->done) {
        deferred *d = p->wait;
        p->wait = NULL;
        int r = http_respond(wsi, p, (unsigned)d->status, d->type, d->body, d->len, d->head);
        free(d);
        return r;
    }
    if (p->body == NULL)
        return 0;
    unsigned char buf[LWS_PRE + HTTP_CHUNK];
    size_t n = p->body_len - p->body_off;
    if (n > HTTP_CHUNK)
        n = HTTP_CHUNK;
    int last = p->body_off + n == p->body_len;
    memcpy(buf + LWS_PRE, p->body + p->body_off, n);
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < 0)
        return -1;
    p->body_off += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    return http_done(wsi, p);
}

static int http_healthz(thue_net *net, struct lws *wsi, pss *p, int head)
{
    uint64_t up = (uv_now(net->loop) - net->started_ms) / 1000;
    /* Play goes on while the disk refuses writes (they wait and are retried), so that is
     * reported but still 200. */
    thue_store_health sh;
    thue_store_health_get(net->store, &sh);
    char text[200];
    snprintf(text, sizeof text,
             "{\"status\":\"%s\",\"version\":\"%s\",\"uptime_s\":%llu,\"store\":\"%s\"}",
             net->stopping ? "stopping" : "ok", THUE_SERVER_VERSION, (unsigned long long)up,
             net->store == NULL ? "none" : sh.failing ? "failing" : "ok");
    return http_respond_text(wsi, p, net->stopping ? 503 : 200, JSON_TYPE, text, head);
}

static int http_metrics(thue_net *net, struct lws *wsi, pss *p, int head)
{
    size_t len = 0;
    char *text = thue_metrics_render(net->metrics, net->pool, &len);
    if (text == NULL)
        return http_error(wsi, p, 500, "internal", "out of memory", head);
    if (net->store) {
        thue_store_health sh;
        thue_store_health_get(net->store, &sh);
        thue_strbuf b = {text, len, len + 1, 0};
        thue_strbuf_printf(
            &b,
            "# HELP thue_store_failing 1 while the database refuses writes (they wait and are retried)\n"
            "# TYPE thue_store_failing gauge\nthue_store_failing %d\n"
            "# HELP thue_store_writes_waiting Writes held back until the database takes them\n"
            "# TYPE thue_store_writes_waiting gauge\nthue_store_writes_waiting %d\n"
            "# HELP thue_store_write_failures_total Failed write attempts (each retry counts)\n"
            "# TYPE thue_store_write_failures_total counter\nthue_store_write_failures_total %llu\n",
            sh.failing, sh.writes_waiting, (unsigned long long)sh.write_failures);
        if (b.oom) {
            free(b.p);
            return http_error(wsi, p, 500, "internal", "out of memory", head);
        }
        text = b.p;
        len = b.len;
    }
    return http_respond(wsi, p, 200, METRICS_TYPE, text, len, head);
}

/* "name=value" of the i-th query argument into buf; 0, 1 when there is none, -1 when it
 * is too long. */
static int query_arg(struct lws *wsi, int i, char *buf, int size)
{
    int n = lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i);
    if (n <= 0)
        return 1;
    if (n >= size)
        return -1;
    return lws_hdr_copy_fragment(wsi, buf, size, WSI_TOKEN_HTTP_URI_ARGS, i) < 0 ? -1 : 0;
}

/* The i-th query argument split at '=': arg holds its name, *value its value ("" when
 * it has none). 0, 1 when there is none, -1 when it is too long. */
static int query_pair(struct lws *wsi, int i, char *arg, int size, const char **value)
{
    int r = query_arg(wsi, i, arg, size);
    if (r != 0)
        return r;
    char *eq = strchr(arg, '=');
    *value = eq ? eq + 1 : "";
    if (eq)
        *eq = '\0';
    return 0;
}

/* An integer lo..hi from decimal digits; -1 when it is not. */
static long parse_range(const char *s, long lo, long hi)
{
    long v = 0;
    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s) || v > hi)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v >= lo && v <= hi ? v : -1;
}

/* k: decimal digits, 2..64; -1 when it is not. */
static int parse_k(const char *s)
{
    return (int)parse_range(s, 2, 64);
}

/* GET /api/rooms?variant=V&k=K&status=S */
static int http_rooms(thue_net *net, struct lws *wsi, pss *p, int head)
{
    static const char *const statuses[] = {"waiting", "playing", "finished"};
    char arg[256];
    const char *variant = NULL;
    char variant_buf[16];
    int k = -1, status = -1;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "variant") == 0) {
            if (strcmp(value, "square") != 0 && strcmp(value, "overlap") != 0)
                return http_error(wsi, p, 400, "bad_request", "variant must be square or overlap",
                                  head);
            snprintf(variant_buf, sizeof variant_buf, "%s", value);
            variant = variant_buf;
        } else if (strcmp(arg, "k") == 0) {
            k = parse_k(value);
            if (k < 0)
                return http_error(wsi, p, 400, "bad_request", "k must be an integer from 2 to 64",
                                  head);
        } else if (strcmp(arg, "status") == 0) {
            status = -1;
            for (int s = 0; s < 3; s++)
                if (strcmp(value, statuses[s]) == 0)
                    status = s; /* THUE_STATUS_WAITING, _PLAYING, _FINISHED */
            if (status < 0)
                return http_error(wsi, p, 400, "bad_request",
                                  "status must be waiting, playing or finished", head);
        }
        /* other arguments are ignored, as unknown members are in messages */
    }
    char *text = thue_lobby_rooms_json(net->lobby, variant, k, status);
    if (text == NULL)
        return http_error(wsi, p, 500, "internal", "out of memory", head);
    return http_respond(wsi, p, 200, JSON_TYPE, text, strlen(text), head);
}

static const char *mime_type(const char *path)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".htm", "text/html; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".json", JSON_TYPE},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".jpg", "image/jpeg"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".md", "text/markdown; charset=utf-8"},
        {".webmanifest", "application/manifest+json"},
        {".woff2", "font/woff2"},
        {".wasm", "application/wasm"},
    };
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (slash == NULL || dot > slash))
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            if (strcmp(dot, types[i].ext) == 0)
                return types[i].type;
    return "application/octet-stream";
}

/* True when a segment of uri is "..": such a path never reaches the file system. */
static int has_dotdot(const char *uri)
{
    for (const char *s = uri; (s = strstr(s, "..")) != NULL; s += 2)
        if ((s == uri || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
            return 1;
    return 0;
}

/* A file below the web root; directories serve their index.html. */
static int http_file(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    char path[PATH_MAX], real[PATH_MAX];
    if (uri[0] != '/' || has_dotdot(uri))
        return http_error(wsi, p, 404, "not_found", "no such file", head);
    size_t ulen = strlen(uri);
    int n = snprintf(path, sizeof path, "%s%s%s", net->web_root, uri,
                     uri[ulen - 1] == '/' ? "index.html" : "");
    if (n < 0 || (size_t)n >= sizeof path)
        return http_error(wsi, p, 404, "not_found", "no such file", head);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if ((size_t)n + sizeof "/index.html" > sizeof path)
            return http_error(wsi, p, 404, "not_found", "no such file", head);
        strcat(path, "/index.html");
    }
    /* Symbolic links may point anywhere: what is served must resolve below the root. */
    size_t rlen = strlen(net->web_root);
    if (realpath(path, real) == NULL || strncmp(real, net->web_root, rlen) != 0 ||
        real[rlen] != '/' || stat(real, &st) != 0 || !S_ISREG(st.st_mode))
        return http_error(wsi, p, 404, "not_found", "no such file", head);
    const char *type = mime_type(real);
    if (head)
        return http_respond(wsi, p, 200, type, NULL, (size_t)st.st_size, 1);
    int r = lws_serve_http_file(wsi, real, type, NULL, 0);
    if (r < 0)
        return -1;
    if (r > 0)
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    return 0;
}

/* The store's answer to a deferred request (loop thread). */
static void deferred_done(int status, char *body, size_t len, void *data)
{
    deferred *d = data;
    if (d->wsi == NULL) { /* the client left */
        free(body);
        free(d);
        return;
    }
    d->done = 1;
    d->status = status;
    if (status != 200)
        d->type = JSON_TYPE; /* errors are JSON whatever the endpoint */
    d->body = body;
    d->len = body ? len : 0;
    if (body == NULL) {
        static const char oom[] = "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
        d->body = malloc(sizeof oom);
        d->len = d->body ? sizeof oom - 1 : 0;
        if (d->body)
            memcpy(d->body, oom, sizeof oom);
        d->status = 500;
    }
    lws_callback_on_writable(d->wsi);
}

/* Queues a store read whose callback answers the request. */
static int http_defer(thue_net *net, struct lws *wsi, pss *p, const char *type, int head,
                      int (*start)(thue_net *net, const char *arg, int page, deferred *d),
                      const char *arg, int page)
{
    deferred *d = calloc(1, sizeof *d);
    if (d == NULL)
        return http_error(wsi, p, 500, "internal", "out of memory", head);
    d->wsi = wsi;
    d->head = head;
    d->type = type;
    if (start(net, arg, page, d) != 0) {
        free(d);
        return http_error(wsi, p, 503, "server_busy", "the database is not available", head);
    }
    p->wait = d;
    return 0;
}

static int start_match(thue_net *net, const char *id, int page, deferred *d)
{
    (void)page;
    return thue_store_match_json(net->store, id, deferred_done, d);
}

static int start_moves(thue_net *net, const char *id, int page, deferred *d)
{
    (void)page;
    return thue_store_moves_csv(net->store, id, deferred_done, d);
}

static int start_list(thue_net *net, const char *player, int page, deferred *d)
{
    return thue_store_matches_json(net->store, player, page, MATCHES_PER_PAGE, deferred_done, d);
}

/* A room-id-like key: 1..32 of A-Z a-z 0-9 _ -. */
static int valid_key(const char *s, size_t n)
{
    if (n == 0 || n > THUE_PROTO_KEY_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    return 1;
}


/* GET /api/matches?player=NAME[&page=N], /api/matches/{id}, /api/matches/{id}/moves.csv */
static int http_matches(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    if (net->store == NULL)
        return http_error(wsi, p, 404, "not_available",
                          "this server runs without a database: no match records", head);
    const char *rest = uri + strlen("/api/matches");
    if (*rest == '/') {
        rest++;
        const char *slash = strchr(rest, '/');
        size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
        char id[THUE_PROTO_KEY_MAX + 1];
        if (!valid_key(rest, n))
            return http_error(wsi, p, 404, "not_found", "no stored match has that id", head);
        memcpy(id, rest, n);
        id[n] = '\0';
        if (slash == NULL)
            return http_defer(net, wsi, p, JSON_TYPE, head, start_match, id, 0);
        if (strcmp(slash, "/moves.csv") == 0)
            return http_defer(net, wsi, p, "text/csv; charset=utf-8", head, start_moves, id, 0);
        return http_error(wsi, p, 404, "not_found", "no such endpoint", head);
    }
    char arg[256], player[THUE_PROTO_NAME_MAX * 4 + 1] = "";
    long page = 1;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "player") == 0) {
            if (*value == '\0' || strlen(value) >= sizeof player)
                return http_error(wsi, p, 400, "bad_request", "player must be a player's name",
                                  head);
            snprintf(player, sizeof player, "%s", value);
        } else if (strcmp(arg, "page") == 0) {
            page = parse_range(value, 1, 1000000);
            if (page < 0)
                return http_error(wsi, p, 400, "bad_request",
                                  "page must be an integer from 1 to 1000000", head);
        }
    }
    if (player[0] == '\0')
        return http_error(wsi, p, 400, "bad_request", "player=NAME is required", head);
    return http_defer(net, wsi, p, JSON_TYPE, head, start_list, player, (int)page);
}

/* GET /api/tournaments, /api/tournaments/{id} (from the lobby's memory) */
static int http_tournaments(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    if (net->store == NULL)
        return http_error(wsi, p, 404, "not_available",
                          "this server runs without a database: no tournaments", head);
    const char *rest = uri + strlen("/api/tournaments");
    char *text;
    if (*rest == '\0') {
        text = thue_lobby_tournaments_json(net->lobby);
    } else {
        rest++;
        int unknown = 0;
        if (!valid_key(rest, strlen(rest)))
            return http_error(wsi, p, 404, "not_found", "no tournament has that id", head);
        text = thue_lobby_tournament_json(net->lobby, rest, &unknown);
        if (unknown)
            return http_error(wsi, p, 404, "not_found", "no tournament has that id", head);
    }
    if (text == NULL)
        return http_error(wsi, p, 500, "internal", "out of memory", head);
    return http_respond(wsi, p, 200, JSON_TYPE, text, strlen(text), head);
}

/* GET /api/ladder?variant=V&k=K[&kind=K][&offset=N][&count=N] */
static int http_ladder(thue_net *net, struct lws *wsi, pss *p, int head)
{
    static const char *const kinds[] = {"all", "human", "bot"};
    char arg[256];
    int variant = -1, k = -1, kind = 0;
    long offset = 0, count = 50;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "variant") == 0) {
            variant = strcmp(value, "square") == 0 ? THUE_SQUARE
                      : strcmp(value, "overlap") == 0 ? THUE_OVERLAP
                                                      : -2;
            if (variant == -2)
                return http_error(wsi, p, 400, "bad_request", "variant must be square or overlap",
                                  head);
        } else if (strcmp(arg, "k") == 0) {
            if ((k = parse_k(value)) < 0)
                return http_error(wsi, p, 400, "bad_request", "k must be an integer from 2 to 64",
                                  head);
        } else if (strcmp(arg, "kind") == 0) {
            kind = -1;
            for (int j = 0; j < 3; j++)
                if (strcmp(value, kinds[j]) == 0)
                    kind = j;
            if (kind < 0)
                return http_error(wsi, p, 400, "bad_request", "kind must be all, human or bot",
                                  head);
        } else if (strcmp(arg, "offset") == 0) {
            if ((offset = parse_range(value, 0, 100000)) < 0)
                return http_error(wsi, p, 400, "bad_request",
                                  "offset must be an integer from 0 to 100000", head);
        } else if (strcmp(arg, "count") == 0) {
            if ((count = parse_range(value, 1, 200)) < 0)
                return http_error(wsi, p, 400, "bad_request",
                                  "count must be an integer from 1 to 200", head);
        }
    }
    if (variant < 0 || k < 0)
        return http_error(wsi, p, 400, "bad_request", "variant and k are required", head);
    if (net->store == NULL)
        return http_error(wsi, p, 404, "not_available",
                          "this server runs without a database: no ladders", head);
    char *text = thue_lobby_ladder_json(net->lobby, (thue_variant)variant, k,
                                        (thue_ladder_kind)kind, (int)offset, (int)count);
    if (text == NULL)
        return http_error(wsi, p, 500, "internal", "out of memory", head);
    return http_respond(wsi, p, 200, JSON_TYPE, text, strlen(text), head);
}

/* True when uri is prefix itself or below it ("/api/matches" and "/api/matches/7"). */
static int path_under(const char *uri, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(uri, prefix, n) == 0 && (uri[n] == '\0' || uri[n] == '/');
}

static int http_refuse_method(struct lws *wsi, pss *p)
{
    return http_error(wsi, p, 405, "method_not_allowed", "only GET and HEAD are served", 0);
}

/* LWS_CALLBACK_HTTP: one request. */
static int http_request(thue_net *net, struct lws *wsi, pss *p, const char *uri)
{
    char *u;
    int ulen;
    int method = lws_http_get_uri_and_method(wsi, &u, &ulen);
    http_reset(p);
    int head = method == LWSHUMETH_HEAD;
    if (method != LWSHUMETH_GET && !head) {
        /* With a Content-Length (even 0), lws goes on to read the body and ends with
         * HTTP_BODY_COMPLETION: the answer waits for that, or lws would take the body
         * for the next request. A chunked body we cannot skip: close after answering. */
        if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0) {
            p->refuse_after_body = 1;
            return 0;
        }
        p->close_after = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0;
        return http_refuse_method(wsi, p);
    }
    if (strcmp(uri, "/healthz") == 0)
        return http_healthz(net, wsi, p, head);
    if (strcmp(uri, "/metrics") == 0)
        return http_metrics(net, wsi, p, head);
    if (strcmp(uri, "/api/rooms") == 0)
        return http_rooms(net, wsi, p, head);
    if (strcmp(uri, "/api/ladder") == 0)
        return http_ladder(net, wsi, p, head);
    if (path_under(uri, "/api/matches"))
        return http_matches(net, wsi, p, uri, head);
    if (path_under(uri, "/api/tournaments"))
        return http_tournaments(net, wsi, p, uri, head);
    if (path_under(uri, "/api"))
        return http_error(wsi, p, 404, "not_found", "no such endpoint", head);
    if (strcmp(uri, "/ws") == 0)
        return http_error(wsi, p, 400, "bad_request",
                          "/ws is the WebSocket endpoint (subprotocol thue.v1)", head);
    return http_file(net, wsi, p, uri, head);
}

/* ---- the WebSocket handshake ------------------------------------------------------------ */

/* Answers the upgrade request with an HTTP error and refuses it (HTTP_CONFIRM_UPGRADE
 * returns 1: lws then ends the transaction). */
static int refuse_upgrade(struct lws *wsi, unsigned status, const char *code, const char *message)
{
    unsigned char buf[LWS_PRE + 1024];
    unsigned char *start = buf + LWS_PRE, *q = start, *end = buf + sizeof buf - 1;
    char body[384];
    int n = snprintf(body, sizeof body, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code,
                     message);
    if (n < 0 || (size_t)n >= sizeof body)
        return -1;
    if (lws_add_http_common_headers(wsi, status, JSON_TYPE, (lws_filepos_t)n, &q, end) ||
        lws_finalize_write_http_header(wsi, start, &q, end))
        return -1;
    memcpy(buf + LWS_PRE, body, (size_t)n);
    if (lws_write(wsi, buf + LWS_PRE, (size_t)n, LWS_WRITE_HTTP_FINAL) < 0)
        return -1;
    return 1;
}

/* True when the comma-separated list offers PROTOCOL_NAME. */
static int offers_ours(const char *list)
{
    const char *s = list;
    while (*s) {
        while (*s == ',' || *s == ' ' || *s == '\t')
            s++;
        size_t n = strcspn(s, ", \t");
        if (n == strlen(PROTOCOL_NAME) && strncmp(s, PROTOCOL_NAME, n) == 0)
            return 1;
        s += n;
    }
    return 0;
}

/* LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: 0 to go on, 1 refused with an HTTP answer, -1 drop. */
static int confirm_upgrade(thue_net *net, struct lws *wsi, const char *upgrade)
{
    if (upgrade == NULL || strcasecmp(upgrade, "websocket") != 0)
        return refuse_upgrade(wsi, 400, "bad_request", "only WebSocket upgrades are served");
    char buf[256];
    if (lws_hdr_copy(wsi, buf, sizeof buf, WSI_TOKEN_GET_URI) < 0 || strcmp(buf, "/ws") != 0)
        return refuse_upgrade(wsi, 404, "not_found", "the WebSocket endpoint is /ws");
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_PROTOCOL);
    if (n > 0) {
        if (n >= (int)sizeof buf || lws_hdr_copy(wsi, buf, sizeof buf, WSI_TOKEN_PROTOCOL) < 0 ||
            !offers_ours(buf))
            return refuse_upgrade(wsi, 400, "bad_request",
                                  "unsupported subprotocol: this server speaks thue.v1");
    }
    if (net->stopping || net->phase != RUNNING)
        return refuse_upgrade(wsi, 503, "server_busy", "the server is shutting down");
    char ip[IP_TEXT_MAX];
    client_ip(net, wsi, ip, sizeof ip);
    if (net->nconns >= net->max_conns) {
        thue_log(THUE_LOG_DEBUG, "refused a websocket from %s: %d connections open", ip,
                 net->nconns);
        return refuse_upgrade(wsi, 503, "server_busy", "too many connections");
    }
    if (ip_count(net, ip) >= net->max_per_ip) {
        thue_log(THUE_LOG_DEBUG, "refused a websocket from %s: the per-address limit", ip);
        return refuse_upgrade(wsi, 503, "server_busy", "too many connections from this address");
    }
    return 0;
}

/* ---- the lws callback ------------------------------------------------------------------- */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    thue_net *net = net_of(wsi);
    pss *p = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return confirm_upgrade(net, wsi, in);
    case LWS_CALLBACK_HTTP:
        return p ? http_request(net, wsi, p, in) : -1;
    case LWS_CALLBACK_HTTP_BODY:
        return 0; /* bodies are skipped (only GET is served) */
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        if (p && p->refuse_after_body) {
            p->refuse_after_body = 0;
            return http_refuse_method(wsi, p);
        }
        return 0;
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return p ? http_writeable(wsi, p) : 0;
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (p)
            http_reset(p);
        break;
    case LWS_CALLBACK_ESTABLISHED:
        return p ? ws_established(net, wsi, p) : -1;
    case LWS_CALLBACK_RECEIVE:
        return p ? ws_receive(net, wsi, p, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return p ? ws_writeable(wsi, p) : 0;
    case LWS_CALLBACK_TIMER:
        /* Only ws_writeable sets the timer, once the queue of a closing connection is
         * drained. */
        if (p && p->conn && p->conn->closing && !p->conn->close_sent)
            return ws_close_now(p->conn, p->conn->close_code, p->conn->reason);
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (p)
            ws_gone(net, p);
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        /* The last call for any connection: whatever CLOSED or CLOSED_HTTP did not free. */
        if (p) {
            ws_gone(net, p);
            http_reset(p);
        }
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- lifetime --------------------------------------------------------------------------- */

static void collect_handle(uv_handle_t *h, void *arg)
{
    handle_set *s = arg;
    if (s->failed)
        return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        uv_handle_t **a = realloc(s->h, cap * sizeof *a);
        if (a == NULL) {
            s->failed = 1;
            return;
        }
        s->h = a;
        s->cap = cap;
    }
    s->h[s->n++] = h;
}

static int set_has(const handle_set *s, const uv_handle_t *h)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->h[i] == h)
            return 1;
    return 0;
}

/* Keeps in `after` only the handles that are not in `before`. */
static void set_subtract(handle_set *after, const handle_set *before)
{
    size_t k = 0;
    for (size_t i = 0; i < after->n; i++)
        if (!set_has(before, after->h[i]))
            after->h[k++] = after->h[i];
    after->n = k;
}

/* uv_walk: notes whether one of lws's static handles is still on the loop, or any handle
 * at all is closing (a connection's, whose close callback lws has yet to see). */
static void find_lws_handle(uv_handle_t *h, void *arg)
{
    thue_net *net = arg;
    if (uv_is_closing(h) || set_has(&net->lws_handles, h))
        net->lws_left = 1;
}

static int lws_handles_left(thue_net *net)
{
    net->lws_left = 0;
    uv_walk(net->loop, find_lws_handle, net);
    return net->lws_left;
}

static void timer_closed(uv_handle_t *h)
{
    thue_net *net = h->data;
    void (*closed)(void *) = net->closed;
    void *data = net->closed_data;
    for (int b = 0; b < IP_BUCKETS; b++) {
        for (ip_slot *s = net->ips[b], *next; s; s = next) {
            next = s->next;
            free(s);
        }
    }
    free(net->lws_handles.h);
    free(net->wbuf);
    free(net->held);
    free(net->harena);
    free(net);
    if (closed)
        closed(data);
}

/* The shutdown, one step per tick: drain, first destroy, wait for lws's handles, final
 * destroy, then our timer's close frees the net and reports. */
static void teardown_tick(uv_timer_t *t)
{
    thue_net *net = t->data;
    uint64_t now = uv_now(net->loop);
    if (net->phase == DRAINING) {
        if (net->nconns > 0 && now < net->deadline)
            return;
        if (net->nconns > 0)
            thue_log(THUE_LOG_WARN, "%d WebSocket connection%s still open after %d ms: dropping %s",
                     net->nconns, net->nconns == 1 ? "" : "s", DRAIN_MS,
                     net->nconns == 1 ? "it" : "them");
        /* From here the hooks are no-ops: the lobby hears of each connection's end, but
         * nothing more is sent. */
        net->phase = TEARING_DOWN;
        net->deadline = now + TEARDOWN_MS;
        lws_context_destroy(net->ctx);
        return;
    }
    if (lws_handles_left(net)) {
        if (now < net->deadline)
            return;
        /* Freeing the context now would leave libuv closing handles inside freed memory:
         * better to leak it. */
        thue_log(THUE_LOG_ERROR,
                 "libwebsockets did not close its handles in %d ms: leaving its context",
                 TEARDOWN_MS);
    } else {
        lws_context_destroy(net->ctx);
    }
    net->ctx = NULL;
    uv_timer_stop(t);
    uv_close((uv_handle_t *)t, timer_closed);
}

/* Starts the shutdown timer. */
static void teardown_start(thue_net *net, net_phase phase, uint64_t ms)
{
    end_turn(net);
    if (net->check_on) {
        net->check_on = 0;
        uv_close((uv_handle_t *)&net->flush_check, NULL);
    }
    net->phase = phase;
    net->deadline = uv_now(net->loop) + ms;
    uv_timer_init(net->loop, &net->timer);
    net->timer.data = net;
    uv_timer_start(&net->timer, teardown_tick, 0, POLL_MS);
}

/*
 * Tries to bind a socket to host (NULL: any) and port the way lws will, and closes it:
 * 0, or the errno that explains why lws cannot listen there. lws itself says little: a
 * busy port makes lws_create_vhost fail without a reason, and an address that is not
 * on this machine does not fail at all (lws retries the bind every 30 s, waiting for
 * the interface to appear), so this check comes first.
 */
static int probe_bind(const char *host, int port, int ipv4)
{
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = ipv4 ? AF_INET : AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
    if (getaddrinfo(host, service, &hints, &res) != 0 || res == NULL)
        return EADDRNOTAVAIL;
    int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    int e = 0;
    if (fd < 0) {
        e = errno;
    } else {
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, res->ai_addr, res->ai_addrlen) != 0)
            e = errno;
        close(fd);
    }
    freeaddrinfo(res);
    return e;
}

/* The sentence for a failed bind. */
static void bind_error(char *err, size_t errsize, const char *where, int port, int e)
{
    if (e == EADDRINUSE || e == 0)
        thue_errf(err, errsize, "port %d is in use on %s", port, where);
    else if (e == EACCES)
        thue_errf(err, errsize, "port %d cannot be bound on %s: permission denied", port, where);
    else if (e == EADDRNOTAVAIL)
        thue_errf(err, errsize, "cannot listen on %s (port %d): no such address on this machine",
                where, port);
    else
        thue_errf(err, errsize, "cannot listen on %s (port %d): %s", where, port, strerror(e));
}

thue_net *thue_net_new(uv_loop_t *loop, const thue_config *cfg, thue_lobby *lobby, thue_pool *pool,
                       thue_metrics *metrics, char *err, size_t errsize)
{
    char root[PATH_MAX];
    struct stat st;
    if (realpath(cfg->web_root, root) == NULL) {
        thue_errf(err, errsize, "cannot read the web root %s: %s", cfg->web_root, strerror(errno));
        return NULL;
    }
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode) || access(root, R_OK | X_OK) != 0) {
        thue_errf(err, errsize, "cannot read the web root %s: not a readable directory",
                cfg->web_root);
        return NULL;
    }
    thue_net *net = calloc(1, sizeof *net);
    if (net == NULL) {
        thue_errf(err, errsize, "out of memory");
        return NULL;
    }
    snprintf(net->web_root, sizeof net->web_root, "%s", root);
    net->loop = loop;
    net->foreign_loops[0] = loop;
    net->lobby = lobby;
    net->pool = pool;
    net->metrics = metrics;
    net->max_conns = cfg->max_connections;
    net->max_per_ip = cfg->max_connections_per_ip;
    for (const char *p = cfg->trusted_proxy; *p && net->nproxies < THUE_CONFIG_PROXIES_N;) {
        char one[INET6_ADDRSTRLEN];
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), p);
        if (addr_parse(one, &net->proxies[net->nproxies]) == 0)
            net->nproxies++;
        p += n + (p[n] == ',');
    }
    net->started_ms = uv_now(loop);
    net->retry.secs_since_valid_ping = (uint16_t)cfg->ping_s;
    net->retry.secs_since_valid_hangup = (uint16_t)cfg->idle_s;
    net->protocols[0].name = PROTOCOL_NAME;
    net->protocols[0].callback = callback;
    net->protocols[0].per_session_data_size = sizeof(pss);

    int levels = LLL_ERR | LLL_WARN;
    if (thue_log_get_level() >= THUE_LOG_DEBUG)
        levels |= LLL_NOTICE;
    lws_set_log_level(levels, lws_log_emit);

    /* An IPv4 bind address needs IPv6 off, or lws listens on every address. */
    int any =
        cfg->bind[0] == '\0' || strcmp(cfg->bind, "0.0.0.0") == 0 || strcmp(cfg->bind, "::") == 0;
    int ipv4 = strchr(cfg->bind, ':') == NULL;

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                   LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    if (ipv4)
        info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.foreign_loops = net->foreign_loops;
    info.user = net;
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = net->protocols;
    info.retry_and_idle_policy = &net->retry;
    info.server_string = "thue-server";

    handle_set before = {0};
    uv_walk(loop, collect_handle, &before);
    net->ctx = lws_create_context(&info);
    if (net->ctx == NULL) {
        free(before.h);
        free(net);
        thue_errf(err, errsize, "cannot start libwebsockets (is libwebsockets-evlib-uv installed?)");
        return NULL;
    }
    uv_walk(loop, collect_handle, &net->lws_handles);
    set_subtract(&net->lws_handles, &before);
    int walk_failed = before.failed || net->lws_handles.failed;
    free(before.h);
    thue_log(THUE_LOG_DEBUG, "libwebsockets put %zu handles on the loop", net->lws_handles.n);

    info.port = cfg->port;
    info.iface = any ? NULL : cfg->bind;
    info.vhost_name = "thue";
    const char *where = any ? "all addresses" : cfg->bind;
    int e = walk_failed ? ENOMEM : probe_bind(info.iface, cfg->port, ipv4);
    if (e == 0) {
        /* lws logs its own view of a failed bind; ours (below) says it all. */
        lws_set_log_level(0, lws_log_emit);
        net->vhost = lws_create_vhost(net->ctx, &info);
        lws_set_log_level(levels, lws_log_emit);
        if (net->vhost && lws_get_vhost_listen_port(net->vhost) <= 0)
            net->vhost = NULL; /* destroyed with the context */
    }
    if (net->vhost == NULL) {
        if (e == ENOMEM)
            thue_errf(err, errsize, "out of memory");
        else
            bind_error(err, errsize, where, cfg->port, e);
        /* lws's handles are on the loop already: take them down as the loop runs (the
         * caller runs it to close what it opened). */
        teardown_start(net, DRAINING, 0);
        return NULL;
    }

    uv_check_init(loop, &net->flush_check);
    net->flush_check.data = net;
    uv_check_start(&net->flush_check, on_flush_check);
    uv_unref((uv_handle_t *)&net->flush_check);
    net->check_on = 1;

    thue_lobby_hooks hooks = {.send = hook_send, .close = hook_close, .ctx = net};
    thue_lobby_set_hooks(lobby, &hooks);
    return net;
}

void thue_net_set_store(thue_net *net, thue_store *store)
{
    net->store = store;
}

int thue_net_port(const thue_net *net)
{
    return lws_get_vhost_listen_port(net->vhost);
}

void thue_net_stop_accepting(thue_net *net)
{
    net->stopping = 1;
}

void thue_net_close(thue_net *net, void (*closed)(void *data), void *data)
{
    if (net == NULL) {
        if (closed)
            closed(data);
        return;
    }
    net->stopping = 1;
    net->closed = closed;
    net->closed_data = data;
    teardown_start(net, DRAINING, DRAIN_MS);
}
