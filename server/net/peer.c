/*
 * peer.c: who a connection is from (net_internal.h): every connection counted against
 * the per-address and total limits from accept to close, the request deadline, and the
 * client's address behind a trusted proxy (--trusted-proxy: the rightmost
 * X-Forwarded-For hop that is not a trusted proxy; the list's entries may be networks,
 * 10.244.0.0/16, and every address in one is trusted).
 *
 * Links. lws calls protocols[0] with FILTER_NETWORK_CONNECTION right after accept(),
 * with the peer's address, before it makes a wsi; then with NEW_CLIENT_INSTANTIATED for
 * the wsi it made (the two come in a row, in one loop turn); WSI_DESTROY is the last call
 * for any wsi. So every TCP connection, HTTP or WebSocket, is a net_link from accept to
 * close (lws's opaque user data, which lasts through an upgrade), counted under its
 * address key (thue_addr_key: IPv4 as is, IPv6 by its /64) against max-connections-per-ip
 * and in all against links_max. A WebSocket is the same connection, counted once.
 * Connections from a trusted proxy cannot be told apart at accept: they count in the
 * total only, and at their WebSocket upgrade as the client X-Forwarded-For names (as
 * before: a proxied WebSocket counts as its client).
 *
 * Past a limit, a few connections (REFUSED_PER_KEY per address, REFUSED_MAX in all) are
 * still let in, so that a client hears why (HTTP 503, and /healthz answers as usual for
 * probes when the server is full) with a short deadline; the rest are closed at accept.
 *
 * Descriptors. links_max is max-connections, or fewer when the open-file limit does not
 * leave FD_RESERVE descriptors beside them (the refused ones, FILES_MAX file transfers,
 * SQLite's journal files, the accept that is closed at once, lws's own), so that accept()
 * does not fail with EMFILE: at links_max the listener keeps accepting and closing, at
 * the pace of the clients, without an error or a log line each time (rxguard.c's accept()
 * is the backstop should something else eat the reserve).
 *
 * The deadline. A request, its head and body, must arrive within --request-timeout-s of
 * the connection's accept or of the end of the previous response (so an idle keep-alive
 * connection goes too); lws's own timers restart with every byte, so a request dripped a
 * byte at a time would last for ever. Links waiting for a request are kept in a FIFO in
 * the order their deadline started (two FIFOs: refused links have a shorter one), and a
 * timer every SWEEP_MS expires the heads that are due: O(1) per connection. An expired
 * request that has sent something hears 408 (written raw: lws has not begun a response)
 * and the connection is closed.
 */
#include "net/net_internal.h"
#include "base/hash.h"

/* ---- open WebSockets per address text (ws.c's log lines; the limits count links) ----- */

static unsigned ip_hash(const char *ip)
{
    return thue_hash_str(ip) % IP_BUCKETS;
}

static ip_slot *ip_find(thue_net *net, const char *ip)
{
    for (ip_slot *s = net->ips[ip_hash(ip)]; s; s = s->next)
        if (strcmp(s->ip, ip) == 0)
            return s;
    return NULL;
}

/* One more connection from ip: its slot, or NULL when out of memory. */
ip_slot *thue__ip_acquire(thue_net *net, const char *ip)
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

void thue__ip_release(thue_net *net, ip_slot *slot)
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
int thue__addr_parse(const char *text, net_addr *a)
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

/* 1 when a is in one of --trusted-proxy's addresses or networks (an IPv4 address, mapped
 * or not, against IPv4 networks: net/trusted.h). */
static int is_proxy(const thue_net *net, const net_addr *a)
{
    for (int i = 0; i < net->nproxies; i++)
        if (thue_trusted_match(&net->proxies[i], a->b, a->len))
            return 1;
    return 0;
}

/*
 * The client's address, for the per-address limit and the logs: the peer's; or, when the
 * peer is a trusted proxy (--trusted-proxy), the rightmost address in X-Forwarded-For
 * that is not one (each proxy appends the address it was reached from, so what is left
 * of the last untrusted hop may be forged). A hop that is not an address ends the walk.
 */
void thue__client_ip(const thue_net *net, struct lws *wsi, char *buf, size_t size)
{
    peer_ip(wsi, buf, size);
    net_addr a;
    if (net->nproxies == 0 || thue__addr_parse(buf, &a) != 0 || !is_proxy(net, &a))
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
        if (thue__addr_parse(first, &hop) != 0)
            return;
        inet_ntop(hop.len == 4 ? AF_INET : AF_INET6, hop.b, buf, (socklen_t)size);
        if (!is_proxy(net, &hop) || start == xff)
            return;
        end = start - 1; /* the comma */
    }
}

/* ---- links: every connection from accept to close --------------------------------- */

static thue_limiter *api_limiter(const thue_config *cfg)
{
    return thue_limiter_new((double)cfg->api_rate, (double)cfg->api_burst, 16384);
}

/* key with a prefix ("r:" refused, "f:" file transfers) into out. */
static void prefixed(char *out, size_t size, const char *prefix, const char *key)
{
    snprintf(out, size, "%s%.*s", prefix, (int)(size - strlen(prefix) - 1), key);
}

static long count_of(thue_net *net, const char *prefix, const char *key)
{
    char k[THUE_LIMIT_KEY_MAX];
    prefixed(k, sizeof k, prefix, key);
    return thue_counts_get(net->counts, k);
}

static long count_add(thue_net *net, const char *prefix, const char *key, long delta)
{
    char k[THUE_LIMIT_KEY_MAX];
    prefixed(k, sizeof k, prefix, key);
    return thue_counts_add(net->counts, k, delta);
}

static void fifo_remove(thue_net *net, net_link *l)
{
    if (!l->in_fifo)
        return;
    int q = l->refused ? 1 : 0;
    if (l->prev)
        l->prev->next = l->next;
    else
        net->fifo_head[q] = l->next;
    if (l->next)
        l->next->prev = l->prev;
    else
        net->fifo_tail[q] = l->prev;
    l->prev = l->next = NULL;
    l->in_fifo = 0;
}

/* Starts l's deadline now (the newest start: it goes last). */
static void fifo_push(thue_net *net, net_link *l)
{
    fifo_remove(net, l);
    int q = l->refused ? 1 : 0;
    l->start_ms = uv_now(net->loop);
    l->rx_at_start = l->rx.bytes_in;
    l->prev = net->fifo_tail[q];
    l->next = NULL;
    if (l->prev)
        l->prev->next = l;
    else
        net->fifo_head[q] = l;
    net->fifo_tail[q] = l;
    l->in_fifo = 1;
}

static const char timeout_body[] =
    "{\"error\":{\"code\":\"request_timeout\",\"message\":\"the request did not arrive in time\"}}";

/* The deadline passed: a 408 if the client has begun a request (and lws has nothing of
 * a response under way), then the connection is closed. */
static void expire(thue_net *net, net_link *l)
{
    fifo_remove(net, l);
    l->expired = 1;
    net->stats.timeouts++;
    if (l->rx.bytes_in > l->rx_at_start && !lws_partial_buffered(l->wsi)) {
        char head[1024];
        int n = snprintf(head, sizeof head,
                         "HTTP/1.1 408 Request Timeout\r\nserver: thue-server\r\n"
                         "content-type: " JSON_TYPE "\r\ncontent-length: %zu\r\n"
                         "connection: close\r\ncache-control: no-store\r\n%s\r\n%s",
                         sizeof timeout_body - 1, thue__http_security_raw, timeout_body);
        if (n > 0 && (size_t)n < sizeof head) {
            ssize_t w = send(l->fd, head, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
            (void)w; /* closing anyway */
        }
    }
    thue_log(THUE_LOG_DEBUG, "closed a connection from %s: no request within %llu ms", l->key,
             (unsigned long long)(l->refused ? REFUSED_DEADLINE_MS : net->deadline_ms));
    lws_set_timeout(l->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

static void on_sweep(uv_timer_t *t)
{
    thue_net *net = t->data;
    uint64_t now = uv_now(net->loop);
    int expired = 0;
    for (int q = 0; q < 2; q++) {
        uint64_t limit = q ? REFUSED_DEADLINE_MS : net->deadline_ms;
        while (net->fifo_head[q] && net->fifo_head[q]->start_ms + limit <= now) {
            expire(net, net->fifo_head[q]);
            expired = 1;
        }
    }
    /* lws runs its timeouts when it services the loop: outside its callbacks, as here, it
     * must be woken for the kills to happen now rather than at its next own timer. */
    if (expired)
        lws_cancel_service(net->ctx);
    thue_log_flush();
}

/* Descriptors open now (Linux: /proc/self/fd; elsewhere a guess). */
static int fds_open(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return 64;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory's own */
}

int thue__links_start(thue_net *net, const thue_config *cfg, char *err, size_t errsize)
{
    struct rlimit rl;
    long nofile = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        nofile =
            rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1 << 24) ? (1 << 24) : (long)rl.rlim_cur;
    int open_now = fds_open() + 1; /* and the guard's spare */
    long fit = nofile - open_now - FD_RESERVE;
    if (fit < 1) {
        thue_errf(err, errsize,
                  "the open-file limit (ulimit -n) is %ld: with %d descriptors open and %d kept "
                  "in reserve no connection fits; raise it to at least %ld",
                  nofile, open_now, FD_RESERVE, (long)open_now + FD_RESERVE + 64);
        return -1;
    }
    net->links_max = cfg->max_connections < fit ? cfg->max_connections : (int)fit;
    /* A warning when the shortfall matters; the figure anyway. */
    if (net->links_max < cfg->max_connections)
        thue_log(net->links_max < cfg->max_connections / 10 * 9 ? THUE_LOG_WARN : THUE_LOG_INFO,
                 "open files limited to %ld (ulimit -n): at most %d connections, not "
                 "--max-connections %d (%d descriptors are open, %d kept in reserve)",
                 nofile, net->links_max, cfg->max_connections, open_now, FD_RESERVE);
    net->deadline_ms = (uint64_t)cfg->request_timeout_s * 1000u;
    net->pending.fd = -1;
    net->counts = thue_counts_new();
    net->api = api_limiter(cfg);
    if (net->counts == NULL || net->api == NULL) {
        thue_errf(err, errsize, "out of memory");
        return -1;
    }
    /* Descriptors are numbered lowest first, so the connections' stay below what can be
     * open at once; the guard's table (8 bytes a descriptor) need not follow a huge
     * limit. A descriptor past it would be read unguarded (it cannot happen unless
     * something else holds over a thousand descriptors). */
    long table = (long)net->links_max + open_now + FD_RESERVE + 1024;
    if (thue__rx_start((int)(table < nofile ? table : nofile), err, errsize) != 0)
        return -1;
    net->guard_on = 1;
    uv_timer_init(net->loop, &net->sweep);
    net->sweep.data = net;
    uv_timer_start(&net->sweep, on_sweep, SWEEP_MS, SWEEP_MS);
    uv_unref((uv_handle_t *)&net->sweep);
    net->sweep_on = 1;
    return 0;
}

void thue__links_stop(thue_net *net)
{
    if (net->sweep_on) {
        net->sweep_on = 0;
        uv_timer_stop(&net->sweep);
        uv_close((uv_handle_t *)&net->sweep, NULL);
    }
}

void thue__links_free(thue_net *net)
{
    if (net->guard_on) {
        net->guard_on = 0;
        thue__rx_stop();
    }
    thue_counts_free(net->counts);
    net->counts = NULL;
    thue_limiter_free(net->api);
    net->api = NULL;
}

/* The text of a socket address ("unknown" when it is neither IPv4 nor IPv6). */
static void sockaddr_text(const struct sockaddr_storage *sa, char *buf, size_t size)
{
    const void *a = NULL;
    if (sa->ss_family == AF_INET)
        a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
    else if (sa->ss_family == AF_INET6)
        a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    if (a == NULL || inet_ntop(sa->ss_family, a, buf, (socklen_t)size) == NULL)
        snprintf(buf, size, "unknown");
}

int thue__link_filter(thue_net *net, const struct lws_filter_network_conn_args *a)
{
    char ip[INET6_ADDRSTRLEN];
    sockaddr_text(&a->cli_addr, ip, sizeof ip);
    net_addr na;
    int proxied = net->nproxies > 0 && thue__addr_parse(ip, &na) == 0 && is_proxy(net, &na);
    char key[THUE_LIMIT_KEY_MAX];
    thue_addr_key(ip, key, sizeof key);
    const char *why = NULL;
    if (net->nlinks >= net->links_max)
        why = "the server's connection limit";
    else if (!proxied && thue_counts_get(net->counts, key) >= net->max_per_ip)
        why = "the per-address connection limit";
    if (why && (net->nrefused >= REFUSED_MAX || count_of(net, "r:", key) >= REFUSED_PER_KEY)) {
        net->stats.closed_at_accept++;
        thue_log(THUE_LOG_DEBUG, "closed a connection from %s at once: %s", ip, why);
        return 1;
    }
    net->pending.fd = a->accept_fd;
    net->pending.refused = why != NULL;
    net->pending.proxied = proxied;
    snprintf(net->pending.key, sizeof net->pending.key, "%s", key);
    return 0;
}

static void on_unmasked(void *arg)
{
    net_link *l = arg;
    /* Closing is for a callback of l's (net.c, LWS_CALLBACK_TIMER): not from inside
     * lws's read. */
    lws_set_timer_usecs(l->wsi, 1);
}

int thue__link_new(thue_net *net, struct lws *wsi)
{
    int fd = lws_get_socket_fd(wsi);
    if (fd < 0 || fd != net->pending.fd)
        return 0; /* not one the listener's filter saw */
    net->pending.fd = -1;
    net_link *l = calloc(1, sizeof *l);
    if (l == NULL)
        return -1;
    l->wsi = wsi;
    l->fd = fd;
    l->refused = net->pending.refused;
    l->proxied = net->pending.proxied;
    snprintf(l->key, sizeof l->key, "%s", net->pending.key);
    if (l->refused) {
        if (count_add(net, "r:", l->key, 1) < 0) {
            free(l);
            return -1;
        }
        net->nrefused++;
        net->stats.let_in_refused++;
    } else {
        if (!l->proxied) {
            if (thue_counts_add(net->counts, l->key, 1) < 0) {
                free(l);
                return -1;
            }
            l->counted = 1;
        }
        net->nlinks++;
    }
    thue__rx_init(&l->rx);
    l->rx.on_unmasked = on_unmasked;
    l->rx.arg = l;
    l->watched = thue__rx_watch(fd, &l->rx) == 0;
    lws_set_opaque_user_data(wsi, l);
    fifo_push(net, l);
    return 0;
}

net_link *thue__link_of(struct lws *wsi)
{
    return lws_get_opaque_user_data(wsi);
}

void thue__link_free(thue_net *net, struct lws *wsi)
{
    net_link *l = lws_get_opaque_user_data(wsi);
    if (l == NULL)
        return;
    lws_set_opaque_user_data(wsi, NULL);
    fifo_remove(net, l);
    if (l->watched)
        thue__rx_unwatch(l->fd, &l->rx);
    thue__rx_clear(&l->rx);
    thue__link_file_done(net, l);
    if (l->refused) {
        count_add(net, "r:", l->key, -1);
        net->nrefused--;
    } else {
        if (l->counted)
            thue_counts_add(net->counts, l->key, -1);
        net->nlinks--;
    }
    free(l);
}

void thue__link_busy(thue_net *net, net_link *l)
{
    if (l)
        fifo_remove(net, l);
}

void thue__link_idle(thue_net *net, net_link *l)
{
    if (l && !l->expired && !l->upgraded)
        fifo_push(net, l);
}

int thue__link_count_client(thue_net *net, net_link *l, const char *ip)
{
    if (l == NULL || !l->proxied || l->counted)
        return 0;
    char key[THUE_LIMIT_KEY_MAX];
    thue_addr_key(ip, key, sizeof key);
    if (thue_counts_get(net->counts, key) >= net->max_per_ip ||
        thue_counts_add(net->counts, key, 1) < 0)
        return -1;
    snprintf(l->key, sizeof l->key, "%s", key);
    l->counted = 1;
    return 0;
}

void thue__link_upgraded(thue_net *net, net_link *l)
{
    if (l == NULL)
        return;
    fifo_remove(net, l);
    l->upgraded = 1;
}

int thue__link_file_take(thue_net *net, net_link *l)
{
    if (l == NULL || l->file)
        return 0;
    if (net->nfiles >= FILES_MAX || count_of(net, "f:", l->key) >= FILES_PER_KEY ||
        count_add(net, "f:", l->key, 1) < 0)
        return -1;
    net->nfiles++;
    l->file = 1;
    return 0;
}

void thue__link_file_done(thue_net *net, net_link *l)
{
    if (l == NULL || !l->file)
        return;
    l->file = 0;
    net->nfiles--;
    count_add(net, "f:", l->key, -1);
}
