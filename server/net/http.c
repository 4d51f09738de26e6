/*
 * http.c: plain HTTP on the server's port (net_internal.h): the router, responses and
 * their bodies, /healthz, /metrics and the static files of the web root; the /api
 * endpoints are api.c's (some answered by the store thread while the request waits, sent
 * from here). Only GET and HEAD are served.
 *
 * Before a request is routed: a head the receive guard refused (rxguard.c: smuggling
 * forms, methods but GET and HEAD, malformed targets) gets its 400/405/414/431/505 and the
 * connection closes; a connection let in past a connection limit (peer.c) gets 503 (or
 * its /healthz answer) and closes; /api requests are rate-limited per address
 * (--api-rate, --api-burst: 429 with Retry-After); /healthz, /metrics and static files
 * are not (probes must get through, and files cost no more than lws's sendfile-like
 * copy, bounded by the connection limits and FILES_MAX). Every response carries the
 * security headers (thue__http_security_raw). Files and directories whose name starts
 * with '.' are never served.
 */
#include "net/net_internal.h"

#include <strings.h>

/* The web client is files only (no inline script or style; styles set through the
 * CSSOM are allowed): it works under this policy. The favicon is a data: URL. */
#define CSP                                                                                        \
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "              \
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "                    \
    "form-action 'self'; frame-ancestors 'none'"

static const struct {
    const char *name, *value;
} security[] = {
    {"content-security-policy:", CSP},
    {"x-frame-options:", "DENY"},
    {"x-content-type-options:", "nosniff"},
    {"referrer-policy:", "no-referrer"},
};

const char thue__http_security_raw[] = "content-security-policy: " CSP "\r\n"
                                       "x-frame-options: DENY\r\n"
                                       "x-content-type-options: nosniff\r\n"
                                       "referrer-policy: no-referrer\r\n";

int thue__http_security_headers(struct lws *wsi, unsigned char **q, unsigned char *end)
{
    for (size_t i = 0; i < sizeof security / sizeof security[0]; i++)
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)security[i].name,
                                        (const unsigned char *)security[i].value,
                                        (int)strlen(security[i].value), q, end))
            return -1;
    return 0;
}

/* ---- the HTTP side -------------------------------------------------------------------- */

void thue__http_reset(pss *p)
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

/* The end of a response: keep-alive (the next request's deadline starts), or close. */
static int http_done(struct lws *wsi, pss *p)
{
    int close_after = p->close_after;
    thue__http_reset(p);
    if (close_after)
        return -1;
    if (lws_http_transaction_completed(wsi))
        return -1;
    thue__link_idle(thue__net_of(wsi), thue__link_of(wsi));
    return 0;
}

/* One more header for a response (Allow, Retry-After); name ends with ':'. */
typedef struct extra_header {
    const char *name, *value;
} extra_header;

/*
 * Answers with status and body (owned: freed here, may be NULL with len 0). The headers
 * go out now; the body from HTTP_WRITEABLE. head: headers only (HEAD, and a 304, whose
 * Content-Length is the length a 200 would have). extra: nextra headers more (may be NULL).
 * cache: the Cache-Control value (NULL: no-store).
 */
static int http_respond_hs(struct lws *wsi, pss *p, unsigned status, const char *type, char *body,
                           size_t len, int head, const extra_header *extra, int nextra,
                           const char *cache)
{
    unsigned char buf[LWS_PRE + 2048];
    unsigned char *start = buf + LWS_PRE, *q = start, *end = buf + sizeof buf - 1;
    static const char close[] = "close";
    if (cache == NULL)
        cache = "no-store";
    int bad = lws_add_http_common_headers(wsi, status, type, (lws_filepos_t)len, &q, end) ||
              lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                          (const unsigned char *)cache, (int)strlen(cache), &q,
                                          end) ||
              thue__http_security_headers(wsi, &q, end) ||
              (p->close_after &&
               lws_add_http_header_by_name(wsi, (const unsigned char *)"connection:",
                                           (const unsigned char *)close, (int)sizeof close - 1,
                                           &q, end));
    for (int i = 0; !bad && i < nextra; i++)
        bad = lws_add_http_header_by_name(wsi, (const unsigned char *)extra[i].name,
                                          (const unsigned char *)extra[i].value,
                                          (int)strlen(extra[i].value), &q, end);
    if (bad || lws_finalize_write_http_header(wsi, start, &q, end)) {
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

static int http_respond_ex(struct lws *wsi, pss *p, unsigned status, const char *type, char *body,
                           size_t len, int head, const extra_header *extra)
{
    return http_respond_hs(wsi, p, status, type, body, len, head, extra, extra ? 1 : 0, NULL);
}

int thue__http_respond(struct lws *wsi, pss *p, unsigned status, const char *type, char *body,
                       size_t len, int head)
{
    return http_respond_ex(wsi, p, status, type, body, len, head, NULL);
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
    return thue__http_respond(wsi, p, status, type, body, len, head);
}

/* {"error":{"code":...,"message":...}} (code and message are our constants: no escaping),
 * with a header more (extra, may be NULL). */
static int http_error_ex(struct lws *wsi, pss *p, unsigned status, const char *code,
                         const char *message, int head, const extra_header *extra)
{
    char text[512];
    int n = snprintf(text, sizeof text, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code,
                     message);
    if (n < 0 || (size_t)n >= sizeof text)
        return -1;
    char *body = malloc((size_t)n + 1);
    if (body == NULL)
        return -1;
    memcpy(body, text, (size_t)n + 1);
    return http_respond_ex(wsi, p, status, JSON_TYPE, body, (size_t)n, head, extra);
}

int thue__http_error(struct lws *wsi, pss *p, unsigned status, const char *code,
                     const char *message, int head)
{
    return http_error_ex(wsi, p, status, code, message, head, NULL);
}

/* LWS_CALLBACK_HTTP_WRITEABLE: a deferred response that has arrived, or the next piece
 * of the body. */
int thue__http_writeable(struct lws *wsi, pss *p)
{
    if (p->wait && p->wait->done) {
        deferred *d = p->wait;
        p->wait = NULL;
        int r = thue__http_respond(wsi, p, (unsigned)d->status, d->type, d->body, d->len, d->head);
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
    char text[260], node[60] = "";
    if (net->node[0] != '\0')
        snprintf(node, sizeof node, ",\"node\":\"%s\"", net->node);
    snprintf(text, sizeof text,
             "{\"status\":\"%s\",\"version\":\"%s\",\"uptime_s\":%llu,\"store\":\"%s\"%s}",
             net->stopping ? "stopping" : net->draining ? "draining" : "ok", THUE_VERSION,
             (unsigned long long)up, net->store == NULL ? "none" : sh.failing ? "failing" : "ok",
             node);
    return http_respond_text(wsi, p, net->stopping || net->draining ? 503 : 200, JSON_TYPE, text,
                             head);
}

static int http_metrics(thue_net *net, struct lws *wsi, pss *p, int head)
{
    size_t len = 0;
    thue_pool_stats st;
    if (net->pool != NULL)
        thue_pool_stats_get(net->pool, &st);
    char *text = thue_metrics_render(net->metrics, net->pool != NULL ? &st : NULL, &len);
    if (text == NULL)
        return thue__http_error(wsi, p, 500, "internal", "out of memory", head);
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
            return thue__http_error(wsi, p, 500, "internal", "out of memory", head);
        }
        text = b.p;
        len = b.len;
    }
    /* the HTTP side's own figures (peer.c, rxguard.c) */
    thue_strbuf b = {text, len, len + 1, 0};
    thue_strbuf_printf(
        &b,
        "# HELP thue_http_connections Open connections counted against the limits (HTTP and "
        "WebSocket)\n"
        "# TYPE thue_http_connections gauge\nthue_http_connections %d\n"
        "# HELP thue_connections_refused_total Connections past a connection limit: closed at "
        "accept, or let in to hear 503\n"
        "# TYPE thue_connections_refused_total counter\n"
        "thue_connections_refused_total{how=\"closed\"} %llu\n"
        "thue_connections_refused_total{how=\"503\"} %llu\n"
        "thue_connections_refused_total{how=\"emfile\"} %llu\n"
        "# HELP thue_http_request_timeouts_total Connections closed at the request deadline\n"
        "# TYPE thue_http_request_timeouts_total counter\nthue_http_request_timeouts_total %llu\n"
        "# HELP thue_http_refused_requests_total Requests refused before routing (400, 405, 414, "
        "431, 505)\n"
        "# TYPE thue_http_refused_requests_total counter\nthue_http_refused_requests_total %llu\n"
        "# HELP thue_http_rate_limited_total /api requests answered 429\n"
        "# TYPE thue_http_rate_limited_total counter\nthue_http_rate_limited_total %llu\n"
        "# HELP thue_ws_unmasked_total WebSockets closed with 1002 for an unmasked frame\n"
        "# TYPE thue_ws_unmasked_total counter\nthue_ws_unmasked_total %llu\n",
        net->nlinks, (unsigned long long)net->stats.closed_at_accept,
        (unsigned long long)net->stats.let_in_refused,
        (unsigned long long)thue__rx_emfile_refused(), (unsigned long long)net->stats.timeouts,
        (unsigned long long)net->stats.guard_refused, (unsigned long long)net->stats.rate_limited,
        (unsigned long long)net->stats.unmasked);
    thue_strbuf_printf(
        &b,
        "# HELP thue_ws_queued_bytes Bytes sent to WebSocket connections and not yet taken by "
        "their sockets\n"
        "# TYPE thue_ws_queued_bytes gauge\nthue_ws_queued_bytes %zu\n"
        "# HELP thue_ws_slow_drops_total WebSocket connections dropped as slow readers (goodbye "
        "slow): over their own send bound, or the largest when the total passed its bound\n"
        "# TYPE thue_ws_slow_drops_total counter\n"
        "thue_ws_slow_drops_total{bound=\"connection\"} %llu\n"
        "thue_ws_slow_drops_total{bound=\"total\"} %llu\n"
        "# HELP thue_ws_pings_total WebSocket pings sent after --ping-s of silence\n"
        "# TYPE thue_ws_pings_total counter\nthue_ws_pings_total %llu\n"
        "# HELP thue_ws_idle_drops_total WebSocket connections dropped after --idle-s of "
        "silence (goodbye idle)\n"
        "# TYPE thue_ws_idle_drops_total counter\nthue_ws_idle_drops_total %llu\n"
        "# HELP thue_ws_close_deadline_total Closing WebSocket connections freed at their "
        "deadline, their peer not having read the close\n"
        "# TYPE thue_ws_close_deadline_total counter\nthue_ws_close_deadline_total %llu\n",
        net->queued_total, (unsigned long long)net->stats.slow_conn,
        (unsigned long long)net->stats.slow_total, (unsigned long long)net->stats.pings,
        (unsigned long long)net->stats.idle_drops, (unsigned long long)net->stats.close_kills);
    if (b.oom) {
        free(b.p);
        return thue__http_error(wsi, p, 500, "internal", "out of memory", head);
    }
    return thue__http_respond(wsi, p, 200, METRICS_TYPE, b.p, b.len, head);
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

/* True when a segment of path starts with '.' (".", "..", ".env", ".git/config"): such
 * a path is never served, whatever is on disk. */
static int has_dot_segment(const char *path)
{
    for (const char *s = path; (s = strchr(s, '/')) != NULL; s++)
        if (s[1] == '.')
            return 1;
    return 0;
}

/* Whether the request's Accept-Encoding takes gzip (listed, and not with q=0). */
static int accepts_gzip(struct lws *wsi)
{
    char v[256];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_ACCEPT_ENCODING);
    if (n <= 0 || n >= (int)sizeof v || lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_ACCEPT_ENCODING) < 0)
        return 0;
    for (char *tok = strtok(v, ","); tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ' || *tok == '\t')
            tok++;
        if (strncasecmp(tok, "gzip", 4) != 0 || (tok[4] && tok[4] != ';' && tok[4] != ' '))
            continue;
        const char *qv = strstr(tok, "q=");
        return qv == NULL || strtod(qv + 2, NULL) > 0;
    }
    return 0;
}

/* Whether If-None-Match names the tag (or is "*"): the client's copy is current. */
static int not_modified(struct lws *wsi, const char *etag)
{
    char v[512];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH);
    if (n <= 0 || n >= (int)sizeof v || lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_IF_NONE_MATCH) < 0)
        return 0;
    return strcmp(v, "*") == 0 || strstr(v, etag) != NULL;
}

/* A file (or a made body) from memory (static.c): 304 when the client's copy is current,
 * else the bytes, gzipped when the client takes them. Always revalidated (no-cache): a
 * reload costs a 304 per file, and an edited file is seen at once. */
int thue__http_static(struct lws *wsi, pss *p, const thue__static *e, const char *type, int head)
{
    extra_header hs[3] = {{"etag:", thue__static_etag(e)}, {"vary:", "accept-encoding"}};
    int nh = 2;
    int gz = thue__static_has_gzip(e) && accepts_gzip(wsi);
    size_t len = 0;
    const char *bytes = thue__static_body(e, gz, &len);
    if (not_modified(wsi, thue__static_etag(e)))
        return http_respond_hs(wsi, p, 304, type, NULL, len, 1, hs, nh, "no-cache");
    if (gz)
        hs[nh++] = (extra_header){"content-encoding:", "gzip"};
    char *body = NULL;
    if (!head) {
        body = malloc(len ? len : 1);
        if (body == NULL)
            return -1;
        memcpy(body, bytes, len);
    }
    return http_respond_hs(wsi, p, 200, type, body, len, head, hs, nh, "no-cache");
}

/* A file below the web root; directories serve their index.html. */
static int http_file(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    char path[PATH_MAX], real[PATH_MAX];
    if (uri[0] != '/' || has_dot_segment(uri))
        return thue__http_error(wsi, p, 404, "not_found", "no such file", head);
    size_t ulen = strlen(uri);
    int n = snprintf(path, sizeof path, "%s%s%s", net->web_root, uri,
                     uri[ulen - 1] == '/' ? "index.html" : "");
    if (n < 0 || (size_t)n >= sizeof path)
        return thue__http_error(wsi, p, 404, "not_found", "no such file", head);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if ((size_t)n + sizeof "/index.html" > sizeof path)
            return thue__http_error(wsi, p, 404, "not_found", "no such file", head);
        strcat(path, "/index.html");
    }
    /* Symbolic links may point anywhere: what is served must resolve below the root, and
     * not to a dotfile there either. */
    size_t rlen = strlen(net->web_root);
    if (realpath(path, real) == NULL || strncmp(real, net->web_root, rlen) != 0 ||
        real[rlen] != '/' || has_dot_segment(real + rlen) || stat(real, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return thue__http_error(wsi, p, 404, "not_found", "no such file", head);
    const char *type = mime_type(real);
    const thue__static *kept = thue__static_get(net, real, &st);
    if (kept != NULL)
        return thue__http_static(wsi, p, kept, type, head);
    if (head)
        return thue__http_respond(wsi, p, 200, type, NULL, (size_t)st.st_size, 1);
    /* Each transfer holds a descriptor until it ends: at most FILES_MAX at once, so that
     * slow readers cannot take the descriptors the connections need (peer.c). */
    net_link *l = thue__link_of(wsi);
    if (thue__link_file_take(net, l) != 0) {
        static const extra_header retry = {"retry-after:", "1"};
        return http_error_ex(wsi, p, 503, "server_busy",
                             "too many files are being sent: try again in a moment", head, &retry);
    }
    int r = lws_serve_http_file(wsi, real, type, thue__http_security_raw,
                                (int)sizeof thue__http_security_raw - 1);
    if (r != 0)
        thue__link_file_done(net, l);
    if (r < 0)
        return -1;
    if (r > 0) {
        if (lws_http_transaction_completed(wsi))
            return -1;
        thue__link_idle(net, l);
    }
    return 0;
}

/* True when uri is prefix itself or below it ("/api/matches" and "/api/matches/7"). */
int thue__http_path_under(const char *uri, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(uri, prefix, n) == 0 && (uri[n] == '\0' || uri[n] == '/');
}

static const extra_header allow = {"allow:", "GET, HEAD"};

int thue__http_refuse_method(struct lws *wsi, pss *p)
{
    return http_error_ex(wsi, p, 405, "method_not_allowed", "only GET and HEAD are served", 0,
                         &allow);
}

/* Content-Length as lws's header API shows it: absent, or one decimal number. (The
 * receive guard sees duplicates and lists first; this is for a connection it does not
 * read.) */
static int length_ok(struct lws *wsi)
{
    char v[32];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH);
    if (n <= 0)
        return 1;
    if (n >= (int)sizeof v || lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_CONTENT_LENGTH) < 0)
        return 0;
    for (const char *c = v; *c; c++)
        if (*c < '0' || *c > '9')
            return 0;
    return 1;
}

/* Takes one of the address's /api tokens: 0, or the seconds to wait (429). */
static unsigned api_wait_s(thue_net *net, struct lws *wsi)
{
    char ip[IP_TEXT_MAX], key[THUE_LIMIT_KEY_MAX];
    thue__client_ip(net, wsi, ip, sizeof ip);
    thue_addr_key(ip, key, sizeof key);
    uint64_t retry_ms = 0;
    if (net->api == NULL || thue_limiter_take(net->api, key, uv_now(net->loop), &retry_ms))
        return 0;
    return (unsigned)((retry_ms + 999) / 1000);
}

/* LWS_CALLBACK_HTTP: one request. */
int thue__http_request(thue_net *net, struct lws *wsi, pss *p, const char *uri)
{
    char *u;
    int ulen;
    int method = lws_http_get_uri_and_method(wsi, &u, &ulen);
    thue__http_reset(p);
    int head = method == LWSHUMETH_HEAD;
    net_link *l = thue__link_of(wsi);
    if (l)
        l->requests++;
    /* A head the receive guard refused (rxguard.c): lws got a stand-in or a cut head. */
    if (l && l->rx.bad_head && l->requests == l->rx.bad_head) {
        net->stats.guard_refused++;
        thue__link_busy(net, l);
        p->close_after = 1;
        return http_error_ex(wsi, p, (unsigned)l->rx.status, l->rx.code, l->rx.why, 0,
                             l->rx.status == 405 ? &allow : NULL);
    }
    if (!length_ok(wsi)) {
        thue__link_busy(net, l);
        p->close_after = 1;
        return thue__http_error(wsi, p, 400, "bad_request", "Content-Length must be one decimal number",
                          head);
    }
    /* A chunked body we cannot skip: close after answering. So too after a GET with a
     * body (legal, if odd): lws reads it while the answer goes out, and a connection that
     * is done with cannot be mistaken for the next request's start. */
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0)
        p->close_after = 1;
    if (method == LWSHUMETH_GET || head) {
        char v[32];
        if (lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0 && strcmp(v, "0"))
            p->close_after = 1;
    }
    if (method != LWSHUMETH_GET && !head) {
        /* With a Content-Length (even 0), lws goes on to read the body and ends with
         * HTTP_BODY_COMPLETION: the answer waits for that (the body under the request's
         * deadline), or lws would take the body for the next request. */
        if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0) {
            p->refuse_after_body = 1;
            return 0;
        }
        thue__link_busy(net, l);
        return thue__http_refuse_method(wsi, p);
    }
    thue__link_busy(net, l);
    /* Let in past a connection limit (peer.c): probes get their answer, others 503. */
    if (l && l->refused) {
        static const extra_header retry = {"retry-after:", "5"};
        p->close_after = 1;
        if (strcmp(uri, "/healthz") == 0)
            return http_healthz(net, wsi, p, head);
        return http_error_ex(wsi, p, 503, "server_busy",
                             net->nlinks >= net->links_max
                                 ? "too many connections"
                                 : "too many connections from this address",
                             head, &retry);
    }
    if (thue__http_path_under(uri, "/api")) {
        unsigned wait = api_wait_s(net, wsi);
        if (wait > 0) {
            char secs[16], message[128];
            snprintf(secs, sizeof secs, "%u", wait);
            snprintf(message, sizeof message,
                     "too many /api requests from this address: try again in %u s", wait);
            extra_header retry = {"retry-after:", secs};
            net->stats.rate_limited++;
            return http_error_ex(wsi, p, 429, "rate_limited", message, head, &retry);
        }
        return thue__api_request(net, wsi, p, uri, head);
    }
    if (strcmp(uri, "/healthz") == 0)
        return http_healthz(net, wsi, p, head);
    if (strcmp(uri, "/metrics") == 0)
        return http_metrics(net, wsi, p, head);
    if (strcmp(uri, "/ws") == 0)
        return thue__http_error(wsi, p, 400, "bad_request",
                          "/ws is the WebSocket endpoint (subprotocols thue.v2 and thue.v1)", head);
    return http_file(net, wsi, p, uri, head);
}
