/*
 * redis.c: the asynchronous Redis connection (redis.h) on hiredis 0.14's async API, with
 * a small uv_poll_t glue of its own (see "hiredis on a uv_poll_t" below for why).
 *
 * States: DOWN (waiting for the backoff timer), RESOLVING (uv_getaddrinfo for a host name:
 * hiredis's own resolver would block the loop; numeric addresses skip it), CONNECTING
 * (hiredis's non-blocking connect), UP. One timer serves the backoff and the connect
 * timeout (the two never overlap), a second watches the oldest outstanding command, a
 * third (zero delay) fails the commands issued while down, so that no callback runs
 * inside the call that issued it.
 *
 * hiredis frees its context itself after the connect callback reports a failure and
 * after the disconnect callback; a context we give up on (a drop, a connect timeout, a
 * free) is freed with redisAsyncFree, which fails its pending callbacks with a NULL reply
 * and calls the disconnect callback. So every path goes through lost(), which is
 * idempotent, and the hiredis callbacks ignore a context that is no longer r->ac.
 *
 * Memory: each command carries a small request (its callback and data); the connection
 * itself is freed by the last close callback of its three timers (and the resolver's
 * callback when a resolution was under way).
 */
#include "redis.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <hiredis/async.h>

#include "log.h"

const char *thue_cluster_strerror(int err)
{
    switch (err) {
#define THUE__CLUSTER_MSG(name, value, wire, msg)                                                  \
    case value:                                                                                    \
        return msg;
        THUE_CLUSTER_ERRNO_MAP(THUE__CLUSTER_MSG)
#undef THUE__CLUSTER_MSG
    default:
        return "unknown error";
    }
}

enum { ST_DOWN, ST_RESOLVING, ST_CONNECTING, ST_UP };

typedef struct request {
    thue_redis *r;
    thue_redis_reply_cb *cb;
    void *data;
    int status; /* a deferred failure's code */
    struct request *next;
} request;

struct thue_redis {
    uv_loop_t *loop;
    char host[THUE_REDIS_HOST_MAX];       /* host name, address, or the unix path */
    char where[THUE_REDIS_HOST_MAX + 16]; /* for the log: HOST:PORT or unix:PATH */
    int port;                             /* 0: unix socket */
    unsigned backoff_min, backoff_max, backoff, connect_timeout, command_timeout;
    char *password;
    char **channels;
    size_t nchannels, confirmed;
    thue_redis_state_cb *on_state;
    thue_redis_message_cb *on_message;
    void *data;

    int state;
    bool closing;
    unsigned ups;
    redisAsyncContext *ac;
    uv_timer_t timer; /* backoff, or the connect timeout */
    uv_timer_t watch; /* the outstanding commands' watchdog */
    uv_timer_t defer; /* fails the commands issued while down */
    uv_getaddrinfo_t gai;
    bool resolving;        /* gai is in flight */
    unsigned turn;         /* which of the resolved addresses the next attempt uses */
    unsigned attempts;     /* connection attempts so far */
    unsigned last_backoff; /* the wait before the latest scheduled attempt */
    int open_handles;      /* timers not yet closed + a resolution in flight */
    long outstanding;      /* commands sent and not answered */
    uint64_t progress;     /* uv_now of the last reply, or of the first send after a lull */
    request *failed, **failed_tail;
};

/* ---- addresses ------------------------------------------------------------------------ */

int thue_redis_parse_url(const char *url, char host[THUE_REDIS_HOST_MAX], int *port, char *err,
                         size_t err_size)
{
    if (!url || !*url) {
        snprintf(err, err_size, "the Redis address is empty (redis://HOST:PORT or unix:/PATH)");
        return THUE_CLUSTER_EURL;
    }
    if (strncmp(url, "unix:", 5) == 0) {
        const char *path = url + 5;
        if (path[0] != '/' || strlen(path) >= THUE_REDIS_HOST_MAX) {
            snprintf(err, err_size,
                     "\"%s\": a unix socket is unix:/ABSOLUTE/PATH (at most %d bytes)", url,
                     THUE_REDIS_HOST_MAX - 1);
            return THUE_CLUSTER_EURL;
        }
        snprintf(host, THUE_REDIS_HOST_MAX, "%s", path);
        *port = 0;
        return 0;
    }
    if (strncmp(url, "redis://", 8) != 0) {
        snprintf(err, err_size, "\"%s\" is not a Redis address: redis://HOST:PORT or unix:/PATH",
                 url);
        return THUE_CLUSTER_EURL;
    }
    const char *h = url + 8, *end;
    size_t hlen;
    if (*h == '[') { /* [IPv6] */
        end = strchr(h, ']');
        if (!end) {
            snprintf(err, err_size, "\"%s\": an IPv6 address in brackets lacks its ]", url);
            return THUE_CLUSTER_EURL;
        }
        hlen = (size_t)(end - h - 1);
        h++;
        end++;
    } else {
        end = h + strcspn(h, ":/");
        hlen = (size_t)(end - h);
    }
    if (hlen == 0 || hlen >= THUE_REDIS_HOST_MAX || memchr(h, '@', hlen)) {
        snprintf(err, err_size, "\"%s\": the host is missing, too long or has a user part", url);
        return THUE_CLUSTER_EURL;
    }
    long p = 6379;
    if (*end == ':') {
        char *stop;
        p = strtol(end + 1, &stop, 10);
        if (stop == end + 1 || p < 1 || p > 65535 || (*stop && strcmp(stop, "/") != 0)) {
            snprintf(err, err_size, "\"%s\": the port must be 1..65535", url);
            return THUE_CLUSTER_EURL;
        }
    } else if (*end && strcmp(end, "/") != 0) {
        snprintf(err, err_size,
                 "\"%s\": unexpected text after the host (databases and options "
                 "are not supported)",
                 url);
        return THUE_CLUSTER_EURL;
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port = (int)p;
    return 0;
}

/* ---- hiredis on a uv_poll_t ------------------------------------------------------------ */

/*
 * The glue between hiredis and the loop: hiredis says which events it waits for, a
 * uv_poll_t waits for them. Written here instead of using <hiredis/adapters/libuv.h>:
 * the 0.14 header ignores a poll error (libuv reports POLLERR, e.g. after Redis reset
 * the connection, as a negative status and stops the handle), so hiredis never learns
 * and the connection looks up forever while its commands wait for nothing (hiredis fixed
 * it upstream after 0.14, PR #624). Here an error hands hiredis the events it waited for:
 * its read or write meets the error and it disconnects as usual.
 */
typedef struct uvpoll {
    redisAsyncContext *ac; /* NULL once hiredis has cleaned up */
    uv_poll_t handle;
    int events;
} uvpoll;

static void on_poll(uv_poll_t *h, int status, int events)
{
    uvpoll *p = h->data;
    int ev = status < 0 ? p->events : events;
    if (p->ac && (ev & UV_READABLE))
        redisAsyncHandleRead(p->ac);
    if (p->ac && (ev & UV_WRITABLE)) /* the read may have freed the context */
        redisAsyncHandleWrite(p->ac);
}

static void poll_events(uvpoll *p, int events)
{
    p->events = events;
    if (events)
        uv_poll_start(&p->handle, events, on_poll);
    else
        uv_poll_stop(&p->handle);
}

static void poll_add_read(void *data)
{
    uvpoll *p = data;
    poll_events(p, p->events | UV_READABLE);
}

static void poll_del_read(void *data)
{
    uvpoll *p = data;
    poll_events(p, p->events & ~UV_READABLE);
}

static void poll_add_write(void *data)
{
    uvpoll *p = data;
    poll_events(p, p->events | UV_WRITABLE);
}

static void poll_del_write(void *data)
{
    uvpoll *p = data;
    poll_events(p, p->events & ~UV_WRITABLE);
}

static void poll_closed(uv_handle_t *h)
{
    free(h->data);
}

static void poll_cleanup(void *data)
{
    uvpoll *p = data;
    p->ac = NULL;
    uv_close((uv_handle_t *)&p->handle, poll_closed);
}

static int poll_attach(redisAsyncContext *ac, uv_loop_t *loop)
{
    if (ac->ev.data)
        return REDIS_ERR;
    uvpoll *p = calloc(1, sizeof *p);
    if (!p)
        return REDIS_ERR;
    if (uv_poll_init(loop, &p->handle, ac->c.fd) != 0) {
        free(p);
        return REDIS_ERR;
    }
    p->ac = ac;
    p->handle.data = p;
    ac->ev.data = p;
    ac->ev.addRead = poll_add_read;
    ac->ev.delRead = poll_del_read;
    ac->ev.addWrite = poll_add_write;
    ac->ev.delWrite = poll_del_write;
    ac->ev.cleanup = poll_cleanup;
    return REDIS_OK;
}

/* ---- the state machine ---------------------------------------------------------------- */

static void start_connect(thue_redis *r, const char *numeric);
static void begin(thue_redis *r);

static void notify(thue_redis *r, bool up)
{
    if (r->on_state && !r->closing)
        r->on_state(r, up, r->data);
}

static void on_timer(uv_timer_t *t)
{
    thue_redis *r = t->data;
    if (r->state == ST_DOWN) {
        begin(r);
        return;
    }
    if (r->state == ST_RESOLVING || r->state == ST_CONNECTING) {
        thue_log(THUE_LOG_WARN, "redis: no connection to %s within %u ms", r->host,
                 r->connect_timeout);
        thue_redis_drop(r);
    }
}

/* The connection is gone (or given up): down, and a reconnect after the backoff. The
 * caller frees the context if it still needs freeing. Idempotent. */
static void lost(thue_redis *r)
{
    if (r->state == ST_DOWN)
        return;
    bool was_up = r->state == ST_UP;
    thue_log(THUE_LOG_DEBUG, "redis: %s (%s) down from state %d", r->where,
             r->nchannels ? "sub" : "cmd", r->state);
    r->state = ST_DOWN;
    r->ac = NULL;
    r->confirmed = 0;
    r->outstanding = 0;
    uv_timer_stop(&r->watch);
    if (!r->closing) {
        uv_timer_start(&r->timer, on_timer, r->backoff, 0);
        r->last_backoff = r->backoff;
        r->backoff = r->backoff * 2 > r->backoff_max ? r->backoff_max : r->backoff * 2;
    }
    if (was_up)
        notify(r, false);
}

static void went_up(thue_redis *r)
{
    r->state = ST_UP;
    r->backoff = r->backoff_min;
    r->ups++;
    thue_log(THUE_LOG_INFO, "redis: %s to %s", r->nchannels ? "subscribed" : "connected", r->where);
    notify(r, true);
}

static void on_subscriber(redisAsyncContext *ac, void *reply_, void *data)
{
    thue_redis *r = data;
    redisReply *reply = reply_;
    if (!reply || r->ac != ac || reply->type != REDIS_REPLY_ARRAY || reply->elements < 3)
        return;
    redisReply **e = reply->element;
    if (e[0]->type != REDIS_REPLY_STRING || e[1]->type != REDIS_REPLY_STRING)
        return;
    if (strcmp(e[0]->str, "subscribe") == 0) {
        if (++r->confirmed == r->nchannels && r->state == ST_CONNECTING) {
            uv_timer_stop(&r->timer);
            went_up(r);
        }
    } else if (strcmp(e[0]->str, "message") == 0 && e[2]->type == REDIS_REPLY_STRING) {
        if (r->on_message && !r->closing)
            r->on_message(r, e[1]->str, e[1]->len, e[2]->str, e[2]->len, r->data);
    }
}

static void on_first_pong(redisAsyncContext *ac, void *reply_, void *data)
{
    thue_redis *r = data;
    redisReply *reply = reply_;
    if (!reply || r->ac != ac || r->state != ST_CONNECTING)
        return;
    if (reply->type == REDIS_REPLY_STATUS && strcmp(reply->str, "PONG") == 0) {
        uv_timer_stop(&r->timer);
        r->progress = uv_now(r->loop);
        went_up(r);
        return;
    }
    thue_log(THUE_LOG_WARN, "redis: %s answers PING with \"%s\"", r->where,
             reply->str ? reply->str : "?");
    thue_redis_drop(r);
}

static void on_auth(redisAsyncContext *ac, void *reply_, void *data)
{
    thue_redis *r = data;
    redisReply *reply = reply_;
    if (!reply || r->ac != ac || r->state != ST_CONNECTING || reply->type != REDIS_REPLY_ERROR)
        return;
    thue_log(THUE_LOG_ERROR, "redis: %s refuses the password: %s", r->where, reply->str);
    thue_redis_drop(r);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    thue_redis *r = ac->data;
    if (r->ac != ac)
        return;
    if (status != REDIS_OK) {
        thue_log(THUE_LOG_WARN, "redis: cannot connect to %s: %s", r->where, ac->errstr);
        lost(r); /* hiredis frees the context after this callback */
        return;
    }
    /* The connect timer still runs: up once Redis has answered (a PING, or every
     * subscription), which also has hiredis watch the socket for reads. */
    if (r->password)
        redisAsyncCommand(r->ac, on_auth, r, "AUTH %s", r->password);
    if (r->nchannels == 0) {
        redisAsyncCommand(r->ac, on_first_pong, r, "PING");
        return;
    }
    const char **argv = malloc((r->nchannels + 1) * sizeof *argv);
    if (!argv) {
        thue_redis_drop(r);
        return;
    }
    argv[0] = "SUBSCRIBE";
    for (size_t i = 0; i < r->nchannels; i++)
        argv[i + 1] = r->channels[i];
    redisAsyncCommandArgv(r->ac, on_subscriber, r, (int)r->nchannels + 1, argv, NULL);
    free(argv);
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    thue_redis *r = ac->data;
    if (r->ac != ac)
        return;
    thue_log(THUE_LOG_WARN, "redis: connection to %s lost%s%s", r->where,
             status == REDIS_OK ? "" : ": ", status == REDIS_OK ? "" : ac->errstr);
    lost(r); /* hiredis frees the context after this callback */
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    thue_redis *r = req->data;
    r->resolving = false;
    r->open_handles--;
    if (r->closing) {
        uv_freeaddrinfo(res);
        if (r->open_handles == 0)
            free(r);
        return;
    }
    if (r->state != ST_RESOLVING) { /* timed out meanwhile */
        uv_freeaddrinfo(res);
        return;
    }
    /* The addresses in turn, one per attempt: "localhost" may give ::1 first while
     * Redis listens on 127.0.0.1 only. */
    char numeric[INET6_ADDRSTRLEN] = "";
    unsigned n = 0;
    for (struct addrinfo *ai = status == 0 ? res : NULL; ai; ai = ai->ai_next)
        n += ai->ai_family == AF_INET || ai->ai_family == AF_INET6;
    unsigned pick = n ? r->turn++ % n : 0;
    for (struct addrinfo *ai = status == 0 ? res : NULL; ai && !*numeric; ai = ai->ai_next) {
        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
            continue;
        if (pick-- > 0)
            continue;
        const void *a = ai->ai_family == AF_INET6
                            ? (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr
                            : (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr;
        inet_ntop(ai->ai_family, a, numeric, sizeof numeric);
    }
    uv_freeaddrinfo(res);
    if (!*numeric) {
        thue_log(THUE_LOG_WARN, "redis: cannot resolve %s: %s", r->host,
                 status ? uv_strerror(status) : "no address");
        r->state = ST_CONNECTING; /* so that lost() runs */
        lost(r);
        return;
    }
    start_connect(r, numeric);
}

static void start_connect(thue_redis *r, const char *numeric)
{
    redisAsyncContext *ac =
        r->port ? redisAsyncConnect(numeric, r->port) : redisAsyncConnectUnix(r->host);
    r->state = ST_CONNECTING;
    if (!ac || ac->err) {
        thue_log(THUE_LOG_WARN, "redis: cannot connect to %s: %s", r->where,
                 ac ? ac->errstr : "out of memory");
        if (ac)
            redisAsyncFree(ac);
        lost(r);
        return;
    }
    ac->data = r;
    if (poll_attach(ac, r->loop) != REDIS_OK) {
        redisAsyncFree(ac);
        lost(r);
        return;
    }
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    r->ac = ac;
}

/* Starts a connection attempt (from DOWN). */
static void begin(thue_redis *r)
{
    unsigned char buf[sizeof(struct in6_addr)];
    r->attempts++;
    uv_timer_start(&r->timer, on_timer, r->connect_timeout, 0);
    if (r->port == 0 || inet_pton(AF_INET, r->host, buf) == 1 ||
        inet_pton(AF_INET6, r->host, buf) == 1) {
        start_connect(r, r->host);
        return;
    }
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    r->gai.data = r;
    r->state = ST_RESOLVING;
    if (uv_getaddrinfo(r->loop, &r->gai, on_resolved, r->host, NULL, &hints) != 0) {
        lost(r);
        return;
    }
    r->resolving = true;
    r->open_handles++;
}

static void on_watch(uv_timer_t *t)
{
    thue_redis *r = t->data;
    if (r->state != ST_UP || uv_now(r->loop) - r->progress < r->command_timeout)
        return;
    if (r->outstanding > 0) {
        thue_log(THUE_LOG_WARN, "redis: no reply from %s for %u ms: dropping the connection",
                 r->where, r->command_timeout);
        thue_redis_drop(r);
        return;
    }
    /* Idle for a while: a PING, so that a Redis that hangs (or a peer that vanished
     * without closing the connection) is noticed within two timeouts. */
    const char *ping[] = {"PING"};
    thue_redis_command(r, NULL, NULL, 1, ping, NULL);
}

void thue_redis_drop(thue_redis *r)
{
    if (!r || r->state == ST_DOWN)
        return;
    redisAsyncContext *ac = r->ac;
    if (r->state == ST_RESOLVING)
        r->state = ST_CONNECTING; /* the resolver's callback will see DOWN and stop */
    lost(r);
    if (ac)
        redisAsyncFree(ac); /* pending commands fail with ELOST; on_disconnect ignores it */
}

/* ---- commands ------------------------------------------------------------------------- */

static void on_defer(uv_timer_t *t)
{
    thue_redis *r = t->data;
    request *q = r->failed;
    r->failed = NULL;
    r->failed_tail = &r->failed;
    while (q) {
        request *next = q->next;
        if (q->cb)
            q->cb(r, q->status, NULL, thue_cluster_strerror(q->status), q->data);
        free(q);
        q = next;
    }
}

static void on_reply(redisAsyncContext *ac, void *reply_, void *data)
{
    (void)ac;
    request *q = data;
    thue_redis *r = q->r;
    redisReply *reply = reply_;
    if (reply) {
        if (r->outstanding > 0)
            r->outstanding--;
        r->progress = uv_now(r->loop);
    }
    if (q->cb) {
        if (!reply) {
            int st = r->closing ? THUE_CLUSTER_ECLOSED : THUE_CLUSTER_ELOST;
            q->cb(r, st, NULL, thue_cluster_strerror(st), q->data);
        } else if (reply->type == REDIS_REPLY_ERROR) {
            q->cb(r, THUE_CLUSTER_EREPLY, reply, reply->str, q->data);
        } else {
            q->cb(r, 0, reply, NULL, q->data);
        }
    }
    free(q);
}

int thue_redis_command(thue_redis *r, thue_redis_reply_cb *cb, void *data, int argc,
                       const char *const *argv, const size_t *lens)
{
    if (!r || argc < 1 || !argv || r->nchannels)
        return THUE_CLUSTER_ECONFIG;
    request *q = calloc(1, sizeof *q);
    if (!q)
        return THUE_CLUSTER_ENOMEM;
    q->r = r;
    q->cb = cb;
    q->data = data;
    if (r->state == ST_UP && !r->closing &&
        redisAsyncCommandArgv(r->ac, on_reply, q, argc, (const char **)argv, lens) == REDIS_OK) {
        if (r->outstanding++ == 0)
            r->progress = uv_now(r->loop);
        return 0;
    }
    q->status = r->closing ? THUE_CLUSTER_ECLOSED : THUE_CLUSTER_EDOWN;
    *r->failed_tail = q;
    r->failed_tail = &q->next;
    uv_timer_start(&r->defer, on_defer, 0, 0);
    return 0;
}

/* ---- life ----------------------------------------------------------------------------- */

bool thue_redis_up(const thue_redis *r)
{
    return r && r->state == ST_UP;
}

unsigned thue_redis_ups(const thue_redis *r)
{
    return r ? r->ups : 0;
}

unsigned thue_redis_attempts(const thue_redis *r)
{
    return r ? r->attempts : 0;
}

unsigned thue_redis_backoff_ms(const thue_redis *r)
{
    return r ? r->last_backoff : 0;
}

static void free_channels(thue_redis *r)
{
    for (size_t i = 0; i < r->nchannels; i++)
        free(r->channels[i]);
    free(r->channels);
}

thue_redis *thue_redis_new(uv_loop_t *loop, const thue_redis_config *config, char *err,
                           size_t err_size)
{
    if (!loop || !config) {
        snprintf(err, err_size, "no loop or no configuration");
        return NULL;
    }
    thue_redis *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    if (thue_redis_parse_url(config->url, r->host, &r->port, err, err_size) != 0) {
        free(r);
        return NULL;
    }
    if (r->port)
        snprintf(r->where, sizeof r->where, "%s:%d", r->host, r->port);
    else
        snprintf(r->where, sizeof r->where, "unix:%s", r->host);
    r->loop = loop;
    r->backoff_min = config->backoff_min_ms ? config->backoff_min_ms : 100;
    r->backoff_max = config->backoff_max_ms ? config->backoff_max_ms : 2000;
    if (r->backoff_max < r->backoff_min)
        r->backoff_max = r->backoff_min;
    r->backoff = r->backoff_min;
    r->connect_timeout = config->connect_timeout_ms ? config->connect_timeout_ms : 2000;
    r->command_timeout = config->command_timeout_ms ? config->command_timeout_ms : 5000;
    r->on_state = config->on_state;
    r->on_message = config->on_message;
    r->data = config->data;
    r->failed_tail = &r->failed;
    if (config->password && !(r->password = strdup(config->password))) {
        free(r);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    if (config->nchannels) {
        r->channels = calloc(config->nchannels, sizeof *r->channels);
        if (!r->channels) {
            free(r->password);
            free(r);
            snprintf(err, err_size, "out of memory");
            return NULL;
        }
        for (size_t i = 0; i < config->nchannels; i++) {
            r->channels[i] =
                config->channels && config->channels[i] ? strdup(config->channels[i]) : NULL;
            r->nchannels = i + 1;
            if (!r->channels[i]) {
                free_channels(r);
                free(r->password);
                free(r);
                snprintf(err, err_size, "a channel is missing (or out of memory)");
                return NULL;
            }
        }
    }
    uv_timer_init(loop, &r->timer);
    uv_timer_init(loop, &r->watch);
    uv_timer_init(loop, &r->defer);
    r->timer.data = r->watch.data = r->defer.data = r;
    r->open_handles = 3;
    r->state = ST_DOWN;
    if (!r->nchannels) {
        unsigned every = r->command_timeout / 4 ? r->command_timeout / 4 : 1;
        uv_timer_start(&r->watch, on_watch, every, every);
    }
    begin(r);
    return r;
}

static void on_closed(uv_handle_t *h)
{
    thue_redis *r = h->data;
    if (--r->open_handles == 0)
        free(r);
}

void thue_redis_free(thue_redis *r)
{
    if (!r || r->closing)
        return;
    r->closing = true;
    redisAsyncContext *ac = r->ac;
    r->ac = NULL;
    r->state = ST_DOWN;
    if (ac)
        redisAsyncFree(ac); /* pending commands hear ECLOSED */
    on_defer(&r->defer);
    if (r->resolving)
        uv_cancel((uv_req_t *)&r->gai);
    free_channels(r);
    r->channels = NULL;
    free(r->password);
    r->password = NULL;
    uv_close((uv_handle_t *)&r->timer, on_closed);
    uv_close((uv_handle_t *)&r->watch, on_closed);
    uv_close((uv_handle_t *)&r->defer, on_closed);
}
