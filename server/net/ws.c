/*
 * ws.c: WebSocket connections (net_internal.h): the lobby's send and close hooks, the send
 * queues and the loop turn's held writes, reassembly of fragmented messages, and closing.
 * net.c's header comment describes the send path and the close sequence.
 *
 * Send bounds. A connection's unsent bytes are its queue, what the loop turn holds for
 * it, and what lws may still hold of our last write (lws sends what the socket takes and
 * keeps the rest, all of one write at most, since we write again only once it is out).
 * Over --send-max-kib for SLOW_MS, or with more than twice that queued or held by us when
 * another message comes, the connection is dropped: its backlog is freed, it gets goodbye `slow` (through the lobby, so that its
 * session is handled as after any lost connection) and close 1008. The sum over the
 * connections that are not closing is bounded by --send-total-max-mib: past it, at the
 * end of the loop turn, the largest backlogs are dropped the same way until the sum is
 * under 7/8 of the bound. A closing connection is freed CLOSE_DEADLINE_MS after its
 * close began, whether or not its peer reads.
 *
 * Keep-alive. lws's own (its validity timers) is off: it keeps every connection in one
 * sorted list and re-sorts it on every pong. Here each connection has one entry on a
 * timer wheel (keepalive.c) and a time of its last sign of life (any message, frame or
 * pong: setting it is one store). When the entry fires, the connection is checked: after
 * --ping-s of silence it gets a WebSocket ping, after --idle-s goodbye `idle` and close
 * 1001; otherwise the entry is set for the next time that matters.
 */
#include "net/net_internal.h"

static void conn_check(thue_conn *c, uint64_t now);
static void slow_drop(thue_conn *c, int total);
static void enforce_total(thue_net *net);

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

/* ---- send accounting ---------------------------------------------------------------------- */

static size_t unsent(const thue_conn *c)
{
    return c->queued + c->held_bytes + c->lws_held;
}

/* Brings the totals up to date with c's unsent bytes, and notes whether c is over its
 * bound (its entry then fires SLOW_MS later) or the live total over its own (checked at
 * the end of the loop turn). Drops nothing itself: it runs inside the send path. */
static void acct(thue_conn *c)
{
    thue_net *net = c->net;
    size_t n = unsent(c);
    net->queued_total = net->queued_total - c->counted + n;
    if (!c->closing)
        net->live_total = net->live_total - c->counted + n;
    c->counted = n;
    if (c->closing)
        return;
    if (n > net->send_max) {
        if (c->over_since == 0) {
            c->over_since = uv_now(net->loop);
            if (net->ka_on)
                thue_ka_schedule(&net->ka, &c->ka, c->over_since + SLOW_MS);
        }
    } else {
        c->over_since = 0;
    }
    if (net->live_total > net->send_total_max)
        net->total_over = 1;
}

/* c starts closing: its bytes leave the live total, and it gets its close deadline. */
static void acct_closing(thue_conn *c)
{
    thue_net *net = c->net;
    net->live_total -= c->counted;
    c->over_since = 0;
    c->close_deadline = uv_now(net->loop) + CLOSE_DEADLINE_MS;
    if (net->ka_on)
        thue_ka_schedule(&net->ka, &c->ka, c->close_deadline);
}

/* After a write of n bytes on c: what lws kept of it. Until lws has sent it, WRITEABLE
 * does not come; when it comes, lws holds nothing (thue__ws_writeable). */
static void after_write(thue_conn *c, size_t n)
{
    if (!c->close_sent && lws_partial_buffered(c->wsi)) {
        c->lws_held = n;
        lws_callback_on_writable(c->wsi);
    } else {
        c->lws_held = 0;
    }
}

/* Marks c closing with code and reason; the close frame goes out once the queue is
 * drained (WRITEABLE). */
static void conn_close(thue_conn *c, int code, const char *reason)
{
    if (c->closing)
        return;
    c->closing = 1;
    acct_closing(c);
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
        if (!c->closing) {
            c->closing = 1;
            acct_closing(c);
        }
        c->close_sent = 1;
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        c->lws_held = 0;
    } else {
        after_write(c, n);
    }
    acct(c);
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
    c->held_bytes = 0;
    acct(c);
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
    if (net->total_over && !net->holding && net->phase == RUNNING)
        enforce_total(net);
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
    c->held_bytes = 0;
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
    c->held_bytes += len;
    acct(c);
    return 0;
}

void thue__hook_send(void *ctx, thue_conn *c, const char *text, size_t len)
{
    thue_net *net = ctx;
    if (c == NULL || c->closing || net->phase == TEARING_DOWN)
        return;
    /* What we hold for c ourselves; what lws holds of the last write (one message, or
     * one turn's worth) counts for the 2 s bound only, so that one long message (a long
     * list) being sent does not make the next short one a reason to drop. */
    size_t before = c->queued + c->held_bytes;
    if (!c->dropping && before > 2 * net->send_max) {
        /* The peer reads far slower than it is sent to: queueing more only grows memory,
         * so its backlog goes, and the connection with it. (Its goodbye, sent from here,
         * comes back through this function with dropping set.) The message that crosses
         * the line is still taken: one long message (a long list) after a few short ones
         * is not a reason to drop a reader; it is bounded by the 2 s rule. */
        slow_drop(c, 0);
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
    acct(c);
    lws_callback_on_writable(c->wsi);
}

int thue__hook_may_send(void *ctx, thue_conn *c, size_t len)
{
    thue_net *net = ctx;
    if (c == NULL || c->closing)
        return 1; /* sending is a no-op: nothing to wait for */
    size_t n = unsent(c);
    return n == 0 || n + len <= net->send_max / 2;
}

/*
 * Drops c for reading too slowly (total: for the total bound, else its own): its backlog
 * is freed (what lws holds of a write cannot be taken back), and it gets goodbye `slow`
 * and close 1008 through the lobby, as its other goodbyes.
 */
static void slow_drop(thue_conn *c, int total)
{
    thue_net *net = c->net;
    if (c->closing || c->dropping)
        return;
    if (total)
        net->stats.slow_total++;
    else
        net->stats.slow_conn++;
    thue_log(THUE_LOG_WARN, "connection from %s: %zu bytes unsent, dropping it (%s)",
             c->ip ? c->ip->ip : "?", unsent(c),
             total ? "the server's send bound" : "too slow a reader");
    queue_free(c);
    held_forget(net, c);
    acct(c);
    c->dropping = 1;
    if (c->client)
        thue_lobby_drop(net->lobby, c->client, "slow",
                        "the connection reads too slowly: messages to it were dropped",
                        LWS_CLOSE_STATUS_POLICY_VIOLATION);
    c->dropping = 0;
    conn_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "slow"); /* (a no-op after the lobby's) */
}

static int by_unsent_desc(const void *a, const void *b)
{
    size_t x = (*(thue_conn *const *)a)->counted, y = (*(thue_conn *const *)b)->counted;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The live total passed --send-total-max-mib: drops the largest backlogs until it is
 * under 7/8 of it. Once per loop turn at most (from the flush check), outside any send. */
static void enforce_total(thue_net *net)
{
    net->total_over = 0;
    if (net->live_total <= net->send_total_max || net->enforcing)
        return;
    net->enforcing = 1;
    size_t n = 0;
    for (thue_conn *c = net->conns; c; c = c->next)
        n += !c->closing && c->counted > 0;
    thue_conn **v = n ? malloc(n * sizeof *v) : NULL;
    if (v != NULL) {
        size_t k = 0;
        for (thue_conn *c = net->conns; c && k < n; c = c->next)
            if (!c->closing && c->counted > 0)
                v[k++] = c;
        qsort(v, k, sizeof *v, by_unsent_desc);
        size_t target = net->send_total_max / 8 * 7;
        for (size_t i = 0; i < k && net->live_total > target; i++)
            slow_drop(v[i], 1);
        free(v);
    } else {
        /* out of memory: the largest one alone */
        thue_conn *big = NULL;
        for (thue_conn *c = net->conns; c; c = c->next)
            if (!c->closing && (big == NULL || c->counted > big->counted))
                big = c;
        if (big)
            slow_drop(big, 1);
    }
    net->enforcing = 0;
}

/* ---- keep-alive ------------------------------------------------------------------------ */

/* The ping frame; with a payload, since lws 4.1 calls RECEIVE_PONG only for a pong that
 * has one. 0 or lws_write's result. */
static int write_ping(struct lws *wsi)
{
    unsigned char ping[LWS_PRE + 1];
    ping[LWS_PRE] = 'k';
    return lws_write(wsi, ping + LWS_PRE, 1, LWS_WRITE_PING);
}

/*
 * Sends c's ping at once when nothing else is on its way out (nothing queued, nothing
 * lws holds): an idle connection's ping is then one send(), where asking for a WRITEABLE
 * callback first would also cost four epoll_ctl calls (libuv turning POLLOUT on and off),
 * two thirds of an idle server's time. 1 when sent; 0 when the WRITEABLE path must
 * (something is on its way, or the write failed: that path then meets the error).
 */
static int ping_now(thue_conn *c)
{
    if (c->closing || c->head != NULL || c->lws_held || lws_partial_buffered(c->wsi))
        return 0;
    if (write_ping(c->wsi) < 0)
        return 0;
    if (lws_partial_buffered(c->wsi)) /* (3 bytes: hardly ever) lws sends the rest */
        lws_callback_on_writable(c->wsi);
    return 1;
}

void thue__ws_life(thue_conn *c)
{
    thue_net *net = c->net;
    c->life_ms = uv_now(net->loop);
    if (c->pinged_ms == 0)
        return; /* the entry fires at the silence's ping time (or earlier) and moves on */
    /* A ping is out and the entry waits for the idle time: the new silence's ping is
     * due sooner. One O(1) move per ping answered. */
    c->pinged_ms = 0;
    if (!c->closing && net->ka_on) {
        uint64_t next = c->life_ms + net->ping_ms;
        if (c->over_since && c->over_since + SLOW_MS < next)
            next = c->over_since + SLOW_MS;
        thue_ka_schedule(&net->ka, &c->ka, next);
    }
}

/* c's entry fired (or c was just made): what is due now, and when to look again. */
static void conn_check(thue_conn *c, uint64_t now)
{
    thue_net *net = c->net;
    if (c->closing) {
        if (now >= c->close_deadline) {
            /* its peer has not read its goodbye and close in time: free it */
            net->stats.close_kills++;
            c->close_sent = 1;
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        } else {
            thue_ka_schedule(&net->ka, &c->ka, c->close_deadline);
        }
        return;
    }
    if (c->over_since && now >= c->over_since + SLOW_MS) {
        slow_drop(c, 0);
        return;
    }
    /* Bytes read from the socket are life too (frames lws answers itself, a message
     * still arriving): the receive guard counts them. */
    /* They came after the previous check, when exactly is not known: that check's time
     * is the latest sure sign of life (never later than the truth). */
    net_link *l = thue__link_of(c->wsi);
    if (l && l->rx.bytes_in != c->rx_seen) {
        c->rx_seen = l->rx.bytes_in;
        if (c->checked_ms > c->life_ms)
            c->life_ms = c->checked_ms;
        c->pinged_ms = 0; /* (pings go out from checks only: this came after it) */
    }
    c->checked_ms = now;
    if (now >= c->life_ms + net->idle_ms) {
        net->stats.idle_drops++;
        thue_log(THUE_LOG_DEBUG, "connection from %s: silent for %llu ms, dropping it",
                 c->ip ? c->ip->ip : "?", (unsigned long long)(now - c->life_ms));
        if (c->client)
            thue_lobby_drop(net->lobby, c->client, "idle", "no traffic from the client",
                            LWS_CLOSE_STATUS_GOINGAWAY);
        conn_close(c, LWS_CLOSE_STATUS_GOINGAWAY, "idle");
        return;
    }
    uint64_t next;
    if (c->pinged_ms && c->pinged_ms >= c->life_ms) {
        next = c->life_ms + net->idle_ms;
    } else if (now >= c->life_ms + net->ping_ms) {
        net->stats.pings++;
        c->pinged_ms = now > c->life_ms ? now : c->life_ms + 1;
        if (!ping_now(c)) {
            c->ping_due = 1;
            lws_callback_on_writable(c->wsi);
        }
        next = c->life_ms + net->idle_ms;
    } else {
        next = c->life_ms + net->ping_ms;
    }
    if (c->over_since && c->over_since + SLOW_MS < next)
        next = c->over_since + SLOW_MS;
    thue_ka_schedule(&net->ka, &c->ka, next);
}

static void ka_fire(thue_ka_entry *e, void *arg)
{
    thue_conn *c = (thue_conn *)(void *)((char *)e - offsetof(thue_conn, ka));
    conn_check(c, *(uint64_t *)arg);
}

static void on_ka_tick(uv_timer_t *t)
{
    thue_net *net = t->data;
    uint64_t now = uv_now(net->loop);
    uint64_t kills = net->stats.close_kills;
    thue_ka_advance(&net->ka, now, ka_fire, &now);
    if (net->total_over)
        enforce_total(net);
    /* lws runs its timeouts when it services the loop: outside its callbacks, as here, it
     * must be woken for the kills to happen now rather than at its next own timer. */
    if (net->stats.close_kills != kills)
        lws_cancel_service(net->ctx);
}

void thue__ka_start(thue_net *net)
{
    thue_ka_init(&net->ka, KA_TICK_MS, uv_now(net->loop));
    uv_timer_init(net->loop, &net->ka_timer);
    net->ka_timer.data = net;
    uv_timer_start(&net->ka_timer, on_ka_tick, KA_TICK_MS, KA_TICK_MS);
    uv_unref((uv_handle_t *)&net->ka_timer);
    net->ka_on = 1;
}

void thue__ka_stop(thue_net *net)
{
    if (!net->ka_on)
        return;
    net->ka_on = 0;
    uv_timer_stop(&net->ka_timer);
    uv_close((uv_handle_t *)&net->ka_timer, NULL);
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
    c->next = net->conns;
    if (net->conns)
        net->conns->prev = c;
    net->conns = c;
    net->nconns++;
    p->conn = c;
    c->life_ms = c->checked_ms = uv_now(net->loop);
    net_link *l = thue__link_of(wsi);
    if (l)
        c->rx_seen = l->rx.bytes_in;
    if (net->ka_on)
        thue_ka_schedule(&net->ka, &c->ka, c->life_ms + net->ping_ms);
    thue_log(THUE_LOG_DEBUG, "websocket from %s (%d open)", ip, net->nconns);
    c->client = thue_lobby_connected(net->lobby, c, ip);
    const struct lws_protocols *pr = lws_get_protocol(wsi);
    if (c->client != NULL && pr != NULL && pr->name != NULL &&
        strcmp(pr->name, PROTOCOL_NAME_V2) == 0)
        thue_lobby_set_protocol(c->client, 2);
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
    thue_ka_cancel(&net->ka, &c->ka);
    net->queued_total -= c->counted;
    if (c->close_deadline == 0) /* (never marked closing: still in the live total) */
        net->live_total -= c->counted;
    c->counted = 0;
    if (c->prev)
        c->prev->next = c->next;
    else
        net->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
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
    if (!c->closing) {
        c->closing = 1;
        acct_closing(c);
    }
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
    thue__ws_life(c);
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

/* LWS_CALLBACK_SERVER_WRITEABLE: a ping, one queued message, or the close once drained.
 * lws calls it only once it has sent all it held of our last write. */
int thue__ws_writeable(struct lws *wsi, pss *p)
{
    thue_conn *c = p->conn;
    if (c == NULL)
        return 0;
    if (c->lws_held) {
        c->lws_held = 0;
        acct(c);
    }
    if (c->ping_due) {
        c->ping_due = 0;
        if (!c->closing) {
            if (write_ping(wsi) < 0)
                return -1;
            if (c->head || c->closing || lws_partial_buffered(wsi))
                lws_callback_on_writable(wsi);
            return 0;
        }
    }
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
    size_t len = m->len;
    free(m);
    if (n < 0)
        return -1;
    after_write(c, len);
    acct(c);
    if (c->head || c->closing)
        lws_callback_on_writable(wsi);
    return 0;
}
