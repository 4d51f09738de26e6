/*
 * ws.c: WebSocket connections (net_internal.h): the lobby's send and close hooks, the send
 * queues and the loop turn's held writes, reassembly of fragmented messages, and closing.
 * net.c's header comment describes the send path and the close sequence.
 */
#include "net/net_internal.h"

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

void thue__end_turn(thue_net *net)
{
    if (net->iter_hold) {
        net->iter_hold = 0;
        hold_end(net);
    }
}

void thue__on_flush_check(uv_check_t *h)
{
    thue__end_turn(h->data);
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

void thue__hook_send(void *ctx, thue_conn *c, const char *text, size_t len)
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

void thue__hook_close(void *ctx, thue_conn *c, int code, const char *reason)
{
    thue_net *net = ctx;
    if (c == NULL || net->phase == TEARING_DOWN)
        return;
    conn_close(c, code, reason);
}

/* LWS_CALLBACK_ESTABLISHED: a new WebSocket connection, handed to the lobby. */
int thue__ws_established(thue_net *net, struct lws *wsi, pss *p)
{
    char ip[IP_TEXT_MAX];
    thue__client_ip(net, wsi, ip, sizeof ip);
    thue_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return -1;
    c->ip = thue__ip_acquire(net, ip);
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
void thue__ws_gone(thue_net *net, pss *p)
{
    thue_conn *c = p->conn;
    if (c == NULL)
        return;
    p->conn = NULL;
    held_forget(net, c);
    c->closing = 1; /* whatever the lobby does now, nothing more is sent on c */
    net->nconns--;
    thue_log(THUE_LOG_DEBUG, "websocket from %s closed (%d open)", c->ip->ip, net->nconns);
    thue__ip_release(net, c->ip);
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
int thue__ws_close_now(thue_conn *c, int code, const char *reason)
{
    if (c->held_first)
        held_flush_conn(c->net, c); /* what was said to it earlier this turn goes first */
    c->closing = 1;
    c->close_sent = 1;
    lws_close_reason(c->wsi, (enum lws_close_status)code, (unsigned char *)reason, strlen(reason));
    return -1;
}

/* LWS_CALLBACK_RECEIVE: a piece of a message; whole text messages go to the lobby. */
int thue__ws_receive(thue_net *net, struct lws *wsi, pss *p, const char *in, size_t len)
{
    thue_conn *c = p->conn;
    if (c == NULL)
        return -1;
    if (c->closing)
        return 0; /* the lobby is done with it: input is dropped until the close ends */
    if (lws_frame_is_binary(wsi))
        return thue__ws_close_now(c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
                            "binary messages are not accepted");
    if (c->rx_len + len > THUE_PROTO_MESSAGE_MAX)
        return thue__ws_close_now(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message over 16384 bytes");
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
            return thue__ws_close_now(c, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "server out of memory");
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
int thue__ws_writeable(struct lws *wsi, pss *p)
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
