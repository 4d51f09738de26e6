/*
 * net.c: the network layer (net.h): libwebsockets on the server's libuv loop, one port for
 * HTTP and the WebSocket endpoint.
 *
 * Two lws protocols, "thue.v1" (protocols[0]) and "thue.v2" (protocols[1]), share one
 * callback. Plain HTTP lands on protocols[0] (lws binds
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
 *     arrive before the close frame), then goes to lws from a TIMER callback (ws.c's
 *     thue__ws_writeable and thue__ws_close_now say why not from WRITEABLE).
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
 * Every TCP connection is counted from accept (FILTER_NETWORK_CONNECTION, then
 * SERVER_NEW_CLIENT_INSTANTIATED) to WSI_DESTROY as a link (peer.c), and the bytes lws
 * reads go through the receive guard first (rxguard.c).
 *
 * The WebSocket side is ws.c, the HTTP side http.c, peer addresses and links peer.c, the
 * receive guard rxguard.c (net_internal.h); this file has the callback, the handshake,
 * start-up and shutdown.
 * Loop thread only, like everything lws does on a foreign loop.
 */
#include "net/net_internal.h"

/* ---- small helpers ----------------------------------------------------------------- */

thue_net *thue__net_of(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi));
}

/* lws's log lines, through ours (lws ends them with a newline; thue_log adds its own).
 * Rate-limited by their text: they all share one format here. */
static void lws_log_emit(int level, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    thue_log_level lv = level == LLL_ERR    ? THUE_LOG_ERROR
                        : level == LLL_WARN ? THUE_LOG_WARN
                                            : THUE_LOG_DEBUG;
    char text[512];
    int len = snprintf(text, sizeof text, "lws: %.*s", (int)n, line);
    if (len > 0)
        thue_log_text(lv, text, (size_t)len < sizeof text ? (size_t)len : sizeof text - 1);
}

/* ---- the WebSocket handshake ------------------------------------------------------------ */

/* Answers the upgrade request with an HTTP error and refuses it (HTTP_CONFIRM_UPGRADE
 * returns 1: lws then ends the transaction). */
static int refuse_upgrade(struct lws *wsi, unsigned status, const char *code, const char *message)
{
    unsigned char buf[LWS_PRE + 2048];
    unsigned char *start = buf + LWS_PRE, *q = start, *end = buf + sizeof buf - 1;
    char body[384];
    int n = snprintf(body, sizeof body, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code,
                     message);
    if (n < 0 || (size_t)n >= sizeof body)
        return -1;
    if (lws_add_http_common_headers(wsi, status, JSON_TYPE, (lws_filepos_t)n, &q, end) ||
        thue__http_security_headers(wsi, &q, end) ||
        lws_finalize_write_http_header(wsi, start, &q, end))
        return -1;
    memcpy(buf + LWS_PRE, body, (size_t)n);
    if (lws_write(wsi, buf + LWS_PRE, (size_t)n, LWS_WRITE_HTTP_FINAL) < 0)
        return -1;
    return 1;
}

/* True when the comma-separated list offers PROTOCOL_NAME or PROTOCOL_NAME_V2. */
static int offers_ours(const char *list)
{
    const char *s = list;
    while (*s) {
        while (*s == ',' || *s == ' ' || *s == '\t')
            s++;
        size_t n = strcspn(s, ", \t");
        if ((n == strlen(PROTOCOL_NAME) && strncmp(s, PROTOCOL_NAME, n) == 0) ||
            (n == strlen(PROTOCOL_NAME_V2) && strncmp(s, PROTOCOL_NAME_V2, n) == 0))
            return 1;
        s += n;
    }
    return 0;
}

/* The upgrade request's checks: 0 to go on, 1 refused with an HTTP answer, -1 drop. */
static int vet_upgrade(thue_net *net, struct lws *wsi, const char *upgrade)
{
    net_link *l = thue__link_of(wsi);
    if (l) {
        l->requests++;
        thue__link_busy(net, l);
        /* a head the receive guard refused (rxguard.c) */
        if (l->rx.bad_head && l->requests == l->rx.bad_head) {
            net->stats.guard_refused++;
            return refuse_upgrade(wsi, (unsigned)l->rx.status, l->rx.code, l->rx.why);
        }
    }
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
                                  "unsupported subprotocol: this server speaks thue.v1 and thue.v2");
    }
    if (net->stopping || net->phase != RUNNING)
        return refuse_upgrade(wsi, 503, "server_busy", "the server is shutting down");
    char ip[IP_TEXT_MAX];
    thue__client_ip(net, wsi, ip, sizeof ip);
    /* The connection was counted at accept (peer.c); one past a limit was let in only to
     * hear this. Through a trusted proxy it counts now, as the client the proxy names. */
    if (l && l->refused) {
        thue_log(THUE_LOG_DEBUG, "refused a websocket from %s: a connection limit", ip);
        return refuse_upgrade(wsi, 503, "server_busy",
                              net->nlinks >= net->links_max
                                  ? "too many connections"
                                  : "too many connections from this address");
    }
    if (net->nconns >= net->max_conns) {
        thue_log(THUE_LOG_DEBUG, "refused a websocket from %s: %d connections open", ip,
                 net->nconns);
        return refuse_upgrade(wsi, 503, "server_busy", "too many connections");
    }
    if (thue__link_count_client(net, l, ip) != 0) {
        thue_log(THUE_LOG_DEBUG, "refused a websocket from %s: the per-address limit", ip);
        return refuse_upgrade(wsi, 503, "server_busy", "too many connections from this address");
    }
    thue__link_upgraded(net, l);
    return 0;
}

/* LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: 0 to go on, 1 refused with an HTTP answer, -1 drop.
 * A refused connection is closed once its answer is out: lws would keep a connection
 * alive after its first request, and the receive guard has read what follows an upgrade
 * request as frames. */
static int confirm_upgrade(thue_net *net, struct lws *wsi, const char *upgrade)
{
    int r = vet_upgrade(net, wsi, upgrade);
    net_link *l = thue__link_of(wsi);
    if (r > 0 && l) {
        /* (not a timeout: lws sets its keep-alive one after this callback) */
        l->close_soon = 1;
        l->rx.mode = THUE_RX_DISCARD;
        lws_set_timer_usecs(wsi, 1);
    }
    return r;
}

/* LWS_CALLBACK_TIMER for a connection whose client sent an unmasked frame (rxguard.c
 * stopped its input): closed with 1002 through ws.c's close path; then its reads say end
 * of stream, so that lws lets it go once the close frame is out. */
static int close_unmasked(thue_net *net, net_link *l, pss *p)
{
    net->stats.unmasked++;
    l->rx.mode = THUE_RX_EOF;
    thue_log(THUE_LOG_DEBUG, "closed a websocket from %s: an unmasked frame", l->key);
    if (p && p->conn && !p->conn->close_sent)
        return thue__ws_close_now(p->conn, LWS_CLOSE_STATUS_PROTOCOL_ERR,
                                  "frames from a client must be masked");
    return -1;
}

/* ---- the lws callback ------------------------------------------------------------------- */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    thue_net *net = thue__net_of(wsi);
    if (reason == LWS_CALLBACK_FILTER_NETWORK_CONNECTION)
        return thue__link_filter(net, user); /* user: the accepted socket's address */
    pss *p = user;
    switch (reason) {
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        if (thue__link_new(net, wsi) != 0)
            return -1;
        break;
    case LWS_CALLBACK_HTTP_FILE_COMPLETION: {
        /* lws_callback_http_dummy (below) completes the transaction */
        net_link *l = thue__link_of(wsi);
        thue__link_file_done(net, l);
        thue__link_idle(net, l);
        break;
    }
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return confirm_upgrade(net, wsi, in);
    case LWS_CALLBACK_HTTP:
        return p ? thue__http_request(net, wsi, p, in) : -1;
    case LWS_CALLBACK_HTTP_BODY:
        return 0; /* bodies are skipped (only GET is served) */
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        thue__link_busy(net, thue__link_of(wsi));
        if (p && p->refuse_after_body) {
            p->refuse_after_body = 0;
            return thue__http_refuse_method(wsi, p);
        }
        return 0;
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return p ? thue__http_writeable(wsi, p) : 0;
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (p)
            thue__http_reset(p);
        break;
    case LWS_CALLBACK_ESTABLISHED:
        return p ? thue__ws_established(net, wsi, p) : -1;
    case LWS_CALLBACK_RECEIVE:
        return p ? thue__ws_receive(net, wsi, p, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return p ? thue__ws_writeable(wsi, p) : 0;
    case LWS_CALLBACK_RECEIVE_PONG:
        if (p && p->conn)
            thue__ws_life(p->conn);
        return 0;
    case LWS_CALLBACK_TIMER: {
        net_link *l = thue__link_of(wsi);
        if (l && l->close_soon)
            return -1; /* a refused upgrade: its answer is out (or lws flushes it first) */
        if (l && l->rx.unmasked && l->rx.mode != THUE_RX_EOF)
            return close_unmasked(net, l, p);
        /* Otherwise only thue__ws_writeable sets the timer, once the queue of a closing
         * connection is drained. */
        if (p && p->conn && p->conn->closing && !p->conn->close_sent)
            return thue__ws_close_now(p->conn, p->conn->close_code, p->conn->reason);
        return 0;
    }
    case LWS_CALLBACK_CLOSED:
        if (p)
            thue__ws_gone(net, p);
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        /* The last call for any connection: whatever CLOSED or CLOSED_HTTP did not free. */
        if (p) {
            thue__ws_gone(net, p);
            thue__http_reset(p);
        }
        thue__link_free(net, wsi);
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
    thue__links_free(net);
    thue__statics_free(net);
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
    thue__end_turn(net);
    thue__links_stop(net);
    thue__ka_stop(net);
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
    /* config.c checked and normalized the list: "ADDRESS[/BITS],..." (net/trusted.h). */
    for (const char *p = cfg->trusted_proxy; *p && net->nproxies < THUE_CONFIG_PROXIES_N;) {
        char one[THUE_TRUSTED_TEXT_MAX];
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), p);
        if (thue_trusted_parse(one, &net->proxies[net->nproxies]) == THUE_TRUSTED_OK)
            net->nproxies++;
        p += n + (p[n] == ',');
    }
    net->started_ms = uv_now(loop);
    snprintf(net->node, sizeof net->node, "%s", cfg->node);
    /* lws's keep-alive (validity timers) off: a zero hangup time disables them, and ws.c
     * keeps connections alive on its own wheel. */
    net->retry.secs_since_valid_ping = 0;
    net->retry.secs_since_valid_hangup = 0;
    net->ping_ms = (uint64_t)cfg->ping_s * 1000;
    net->idle_ms = (uint64_t)cfg->idle_s * 1000;
    net->send_max = (size_t)cfg->send_max_kib << 10;
    net->send_total_max = (size_t)cfg->send_total_max_mib << 20;
    net->protocols[0].name = PROTOCOL_NAME;
    net->protocols[0].callback = callback;
    net->protocols[0].per_session_data_size = sizeof(pss);
    /* lws allocates the receive buffer for every WebSocket connection: 1 KiB instead of
     * its 4 KiB default keeps an idle connection small (100,000 of them: 300 MB less). A
     * longer message arrives in pieces, which ws.c puts together. One send() stays at the
     * 4 KiB it was (with tx_packet_size 0, lws would take the receive buffer's size). */
    net->protocols[0].rx_buffer_size = 1024;
    net->protocols[0].tx_packet_size = 4096;
    /* thue.v2: the same layer; ws.c tells the lobby which one the handshake chose. */
    net->protocols[1] = net->protocols[0];
    net->protocols[1].name = PROTOCOL_NAME_V2;

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
    /* lws's own idle timers for HTTP a second past our deadline (peer.c), so that ours
     * decides: a kept-alive connection goes after request-timeout-s, not lws's 5 s. */
    info.keepalive_timeout = cfg->request_timeout_s + 1;
    info.timeout_secs_ah_idle = (unsigned)cfg->request_timeout_s + 1;

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

    if (thue__links_start(net, cfg, err, errsize) != 0) {
        teardown_start(net, DRAINING, 0);
        return NULL;
    }

    thue__ka_start(net);
    uv_check_init(loop, &net->flush_check);
    net->flush_check.data = net;
    uv_check_start(&net->flush_check, thue__on_flush_check);
    uv_unref((uv_handle_t *)&net->flush_check);
    net->check_on = 1;

    thue_lobby_hooks hooks = {.send = thue__hook_send,
                              .close = thue__hook_close,
                              .ctx = net,
                              .may_send = thue__hook_may_send};
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

void thue_net_set_draining(thue_net *net, int on)
{
    net->draining = on != 0;
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
