/*
 * http.c: plain HTTP on the server's port (net_internal.h): /healthz, /metrics, the /api
 * endpoints (some answered by the store thread while the request waits) and the static
 * files of the web root. Only GET and HEAD are served.
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

#include "games/game.h"

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
    int64_t viewer; /* the account asking (Authorization: Bearer TOKEN), 0 for none */
    char game[THUE_PROTO_GAME_MAX + 1]; /* /api/matches?game=G: G, "" for every game */
};

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
 * go out now; the body from HTTP_WRITEABLE. head: headers only (HEAD). extra: a header
 * more, or NULL.
 */
static int http_respond_ex(struct lws *wsi, pss *p, unsigned status, const char *type, char *body,
                           size_t len, int head, const extra_header *extra)
{
    unsigned char buf[LWS_PRE + 2048];
    unsigned char *start = buf + LWS_PRE, *q = start, *end = buf + sizeof buf - 1;
    static const char nostore[] = "no-store", close[] = "close";
    if (lws_add_http_common_headers(wsi, status, type, (lws_filepos_t)len, &q, end) ||
        lws_add_http_header_by_name(
            wsi, (const unsigned char *)"cache-control:", (const unsigned char *)nostore,
            (int)sizeof nostore - 1, &q, end) ||
        thue__http_security_headers(wsi, &q, end) ||
        (p->close_after && lws_add_http_header_by_name(wsi, (const unsigned char *)"connection:",
                                                       (const unsigned char *)close,
                                                       (int)sizeof close - 1, &q, end)) ||
        (extra && lws_add_http_header_by_name(wsi, (const unsigned char *)extra->name,
                                              (const unsigned char *)extra->value,
                                              (int)strlen(extra->value), &q, end)) ||
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

static int http_respond(struct lws *wsi, pss *p, unsigned status, const char *type, char *body,
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
    return http_respond(wsi, p, status, type, body, len, head);
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

static int http_error(struct lws *wsi, pss *p, unsigned status, const char *code,
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
             net->stopping ? "stopping" : "ok", THUE_VERSION, (unsigned long long)up,
             net->store == NULL ? "none" : sh.failing ? "failing" : "ok");
    return http_respond_text(wsi, p, net->stopping ? 503 : 200, JSON_TYPE, text, head);
}

static int http_metrics(thue_net *net, struct lws *wsi, pss *p, int head)
{
    size_t len = 0;
    thue_pool_stats st;
    if (net->pool != NULL)
        thue_pool_stats_get(net->pool, &st);
    char *text = thue_metrics_render(net->metrics, net->pool != NULL ? &st : NULL, &len);
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
        return http_error(wsi, p, 500, "internal", "out of memory", head);
    }
    return http_respond(wsi, p, 200, METRICS_TYPE, b.p, b.len, head);
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

/* Whether name is a game's wire name ("thue", or one of the registry's). */
static int known_game(const char *name)
{
    return strcmp(name, "thue") == 0 || thue_game_find(name) != NULL;
}

/* The 400 message for a game= that names no game: "game must be one of thue, nim, ...",
 * the registry's names in its order. */
static void unknown_game_message(char *out, size_t size)
{
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    size_t at = (size_t)snprintf(out, size, "game must be one of");
    for (int i = 0; i < n && at < size; i++)
        at += (size_t)snprintf(out + at, size - at, "%s %s", i ? "," : "", list[i]->name);
}

/* GET /api/rooms?game=G&variant=V&k=K&status=S (no game: Thue's rooms) */
static int http_rooms(thue_net *net, struct lws *wsi, pss *p, int head)
{
    static const char *const statuses[] = {"waiting", "playing", "finished"};
    char arg[256];
    const char *variant = NULL, *game = NULL;
    char variant_buf[16], game_buf[THUE_PROTO_GAME_MAX + 1];
    int k = -1, status = -1;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "game") == 0) {
            if (strlen(value) >= sizeof game_buf || !known_game(value)) {
                char message[160];
                unknown_game_message(message, sizeof message);
                return http_error(wsi, p, 400, "bad_request", message, head);
            }
            snprintf(game_buf, sizeof game_buf, "%s", value);
            game = strcmp(value, "thue") == 0 ? NULL : game_buf;
        } else if (strcmp(arg, "variant") == 0) {
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
    char *text = thue_lobby_rooms_json(net->lobby, game, variant, k, status);
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

/* True when a segment of path starts with '.' (".", "..", ".env", ".git/config"): such
 * a path is never served, whatever is on disk. */
static int has_dot_segment(const char *path)
{
    for (const char *s = path; (s = strchr(s, '/')) != NULL; s++)
        if (s[1] == '.')
            return 1;
    return 0;
}

/* A file below the web root; directories serve their index.html. */
static int http_file(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    char path[PATH_MAX], real[PATH_MAX];
    if (uri[0] != '/' || has_dot_segment(uri))
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
    /* Symbolic links may point anywhere: what is served must resolve below the root, and
     * not to a dotfile there either. */
    size_t rlen = strlen(net->web_root);
    if (realpath(path, real) == NULL || strncmp(real, net->web_root, rlen) != 0 ||
        real[rlen] != '/' || has_dot_segment(real + rlen) || stat(real, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return http_error(wsi, p, 404, "not_found", "no such file", head);
    const char *type = mime_type(real);
    if (head)
        return http_respond(wsi, p, 200, type, NULL, (size_t)st.st_size, 1);
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

/* The account an `Authorization: Bearer TOKEN` header names (an account token): its id,
 * or 0 (no header, another scheme, an unknown token). Private rooms' matches are shown
 * only to their players' accounts. */
static int64_t request_viewer(thue_net *net, struct lws *wsi)
{
    char v[160];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
    if (n <= 0 || n >= (int)sizeof v || lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_AUTHORIZATION) < 0)
        return 0;
    if (strncasecmp(v, "Bearer ", 7) != 0)
        return 0;
    const char *t = v + 7;
    while (*t == ' ')
        t++;
    return thue_lobby_account_id(net->lobby, t);
}

/* Queues a store read whose callback answers the request. */
static int http_defer(thue_net *net, struct lws *wsi, pss *p, const char *type, int head,
                      int (*start)(thue_net *net, const char *arg, int page, deferred *d),
                      const char *arg, int page, const char *game)
{
    deferred *d = calloc(1, sizeof *d);
    if (d == NULL)
        return http_error(wsi, p, 500, "internal", "out of memory", head);
    d->wsi = wsi;
    d->head = head;
    d->type = type;
    d->viewer = request_viewer(net, wsi);
    if (game)
        snprintf(d->game, sizeof d->game, "%s", game);
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
    return thue_store_match_json_as(net->store, id, d->viewer, deferred_done, d);
}

static int start_moves(thue_net *net, const char *id, int page, deferred *d)
{
    (void)page;
    return thue_store_moves_csv_as(net->store, id, d->viewer, deferred_done, d);
}

static int start_list(thue_net *net, const char *player, int page, deferred *d)
{
    return thue_store_matches_game_json_as(net->store, player, d->game[0] ? d->game : NULL,
                                           d->viewer, page, MATCHES_PER_PAGE, deferred_done, d);
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
            return http_defer(net, wsi, p, JSON_TYPE, head, start_match, id, 0, NULL);
        if (strcmp(slash, "/moves.csv") == 0)
            return http_defer(net, wsi, p, "text/csv; charset=utf-8", head, start_moves, id, 0,
                              NULL);
        return http_error(wsi, p, 404, "not_found", "no such endpoint", head);
    }
    char arg[256], player[THUE_PROTO_NAME_MAX * 4 + 1] = "", game[THUE_PROTO_GAME_MAX + 1] = "";
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
        } else if (strcmp(arg, "game") == 0) {
            if (strlen(value) >= sizeof game || !known_game(value)) {
                char message[160];
                unknown_game_message(message, sizeof message);
                return http_error(wsi, p, 400, "bad_request", message, head);
            }
            snprintf(game, sizeof game, "%s", value);
        } else if (strcmp(arg, "page") == 0) {
            page = parse_range(value, 1, 1000000);
            if (page < 0)
                return http_error(wsi, p, 400, "bad_request",
                                  "page must be an integer from 1 to 1000000", head);
        }
    }
    if (player[0] == '\0')
        return http_error(wsi, p, 400, "bad_request", "player=NAME is required", head);
    return http_defer(net, wsi, p, JSON_TYPE, head, start_list, player, (int)page,
                      game[0] ? game : NULL);
}

/* GET /api/tournaments[?status=S][&offset=N][&count=N] (one page, as list_tournaments),
 * /api/tournaments/{id} (from the lobby's memory) */
static int http_tournaments(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    if (net->store == NULL)
        return http_error(wsi, p, 404, "not_available",
                          "this server runs without a database: no tournaments", head);
    const char *rest = uri + strlen("/api/tournaments");
    char *text;
    if (*rest == '\0') {
        static const char *const statuses[] = {"open", "running", "finished"};
        char arg[256];
        const char *value;
        int status = -1;
        long offset = 0, count = 50;
        for (int i = 0;; i++) {
            int r = query_pair(wsi, i, arg, sizeof arg, &value);
            if (r > 0)
                break;
            if (r < 0)
                return http_error(wsi, p, 400, "bad_request", "query argument too long", head);
            if (strcmp(arg, "status") == 0) {
                status = -2;
                for (int j = 0; j < 3; j++)
                    if (strcmp(value, statuses[j]) == 0)
                        status = j;
                if (status < 0)
                    return http_error(wsi, p, 400, "bad_request",
                                      "status must be open, running or finished", head);
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
        text = thue_lobby_tournaments_json(net->lobby, status, (int)offset, (int)count);
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

/* GET /api/ladder?variant=V&k=K[&kind=K][&offset=N][&count=N] (Thue's pools), or
 * ?game=G[&game_options=JSON] with the same kind, offset and count (another game's pool:
 * the one its options belong to; no options: the defaults'). */
static int http_ladder(thue_net *net, struct lws *wsi, pss *p, int head)
{
    static const char *const kinds[] = {"all", "human", "bot"};
    char arg[THUE_PROTO_GOPT_MAX + 64];
    char game[THUE_PROTO_GAME_MAX + 1] = "", options[THUE_PROTO_GOPT_MAX + 1] = "";
    bool has_options = false;
    int variant = -1, k = -1, kind = 0;
    long offset = 0, count = 50;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "game") == 0) {
            if (strlen(value) >= sizeof game || !known_game(value)) {
                char message[160];
                unknown_game_message(message, sizeof message);
                return http_error(wsi, p, 400, "bad_request", message, head);
            }
            snprintf(game, sizeof game, "%s", value);
        } else if (strcmp(arg, "game_options") == 0) {
            if (strlen(value) >= sizeof options)
                return http_error(wsi, p, 400, "bad_request", "game_options is too long", head);
            snprintf(options, sizeof options, "%s", value);
            has_options = true;
        } else if (strcmp(arg, "variant") == 0) {
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
    bool thue = game[0] == '\0' || strcmp(game, "thue") == 0;
    if (thue && (variant < 0 || k < 0))
        return http_error(wsi, p, 400, "bad_request",
                          "variant and k are required (or game, for another game's ladder)", head);
    thue_lobby_ladder_ask ask = {thue ? NULL : game,
                                 has_options ? options : NULL,
                                 variant < 0 ? THUE_SQUARE : (thue_variant)variant,
                                 k,
                                 (thue_ladder_kind)kind,
                                 (int)offset,
                                 (int)count};
    char *text = NULL, why[THUE_PROTO_TEXT_MAX + 1];
    int err = thue_lobby_ladder_json(net->lobby, &ask, &text, why, sizeof why);
    if (err == THUE_PERR_NOT_AVAILABLE)
        return http_error(wsi, p, 404, "not_available", why, head);
    if (err == THUE_ENOMEM)
        return http_error(wsi, p, 500, "internal", why, head);
    if (err)
        return http_error(wsi, p, 400, thue_err_name(err), why, head);
    return http_respond(wsi, p, 200, JSON_TYPE, text, strlen(text), head);
}

/* ---- GET /api/games ----------------------------------------------------------------------
 *
 * The registry as JSON: every game of thue_game_list() in its order (Thue first). An
 * option's "default" is its JSON value. */

/* One game's entry; NULL when out of memory. */
static json_t *game_entry(const thue_gamedef *g)
{
    json_t *options = json_array();
    for (int i = 0; options && i < g->noptions; i++) {
        const thue_goption_doc *o = &g->options[i];
        json_t *deflt = json_loads(o->deflt, JSON_DECODE_ANY, NULL);
        json_t *e = json_pack("{s:s,s:s,s:o,s:s}", "name", o->name, "type", o->type, "default",
                              deflt ? deflt : json_null(), "help", o->help);
        if (json_array_append_new(options, e) != 0) {
            json_decref(options);
            options = NULL;
        }
    }
    if (options == NULL)
        return NULL;
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:{s:b,s:b}}", "name", g->name, "title", g->title,
                     "summary", g->summary, "move", g->move_doc, "position",
                     g->position_doc ? g->position_doc : "", "options", options, "flags", "acyclic",
                     (g->flags & THUE_GAME_ACYCLIC) != 0, "draws",
                     (g->flags & THUE_GAME_DRAWS) != 0);
}

/* The body of GET /api/games; NULL when out of memory. */
static char *games_json(void)
{
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    json_t *games = json_array();
    for (int i = 0; games && i < n; i++)
        if (json_array_append_new(games, game_entry(list[i])) != 0) {
            json_decref(games);
            games = NULL;
        }
    json_t *root = games ? json_pack("{s:o}", "games", games) : NULL;
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    return text;
}

static int http_games(struct lws *wsi, pss *p, int head)
{
    char *text = games_json();
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
        return http_error(wsi, p, 400, "bad_request", "Content-Length must be one decimal number",
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
    if (path_under(uri, "/api")) {
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
    }
    if (strcmp(uri, "/healthz") == 0)
        return http_healthz(net, wsi, p, head);
    if (strcmp(uri, "/metrics") == 0)
        return http_metrics(net, wsi, p, head);
    if (strcmp(uri, "/api/rooms") == 0)
        return http_rooms(net, wsi, p, head);
    if (strcmp(uri, "/api/ladder") == 0)
        return http_ladder(net, wsi, p, head);
    if (strcmp(uri, "/api/games") == 0)
        return http_games(wsi, p, head);
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
