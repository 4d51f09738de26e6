/*
 * net.c: the blocking WebSocket client of net.h over libwebsockets' default poll loop.
 *
 * Each cli_net owns one lws context with one client connection. Nothing runs in the
 * background: the loop is serviced only inside cli_net_open and cli_net_next, so the
 * caller can think (a bot's search) or read stdin between calls; the kernel buffers what
 * arrives meanwhile. Received text messages are reassembled from fragments and queued;
 * outgoing ones are queued and written one per WRITEABLE callback, as lws requires.
 * lws_service() ignores its timeout in 4.x, so a scheduled sul wakes the loop instead.
 *
 * The subprotocol: the client offers "thue.v2,thue.v1" (or "thue.v1") and binds its one
 * local protocol handler by name (local_protocol_name), whatever the server selects; the
 * selected name is read from the handshake's response headers before they are freed
 * (CLIENT_FILTER_PRE_ESTABLISH). Under thue.v2 a room model (roommodel.h) stands
 * between the decoder and the caller; the syncs it needs, and those of the debugging
 * check (cli_net_setup), are this file's: their ids are remembered, so that their
 * replies are not handed out.
 */
#include "net.h"

#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roommodel.h"

#define MAX_SYNCS 16 /* syncs awaiting their reply, per connection */
#define MAX_LEAVES 4 /* leaves awaiting their reply, per connection */

/* A sync this connection sent: to recover a room the model lost, or to check it. */
typedef struct pending_sync {
    long id;
    int check;
    char room[THUE_PROTO_KEY_MAX + 1];
} pending_sync;

/* The process's settings (cli_net_setup) and the check's counts, for every connection
 * (a command replaces its connection when it reconnects or follows `moved`). */
static struct {
    const char *cmd;
    int protocol;    /* the newest subprotocol offered */
    int check_every; /* --check-sync N, 0: off */
    long moves;      /* played events the models applied */
    long checks;     /* syncs whose answer equalled the model */
    /* The moves whose check did not happen, and why: the room was left before the
     * answer came, the sync was refused (an error), never answered (the connection
     * ended), or not sent (too many syncs out, or no connection). */
    long left, refused, unanswered, unsent;
    int spoke_v2; /* some connection spoke thue.v2 */
    int failed;   /* the check failed (its message said enough) */
} setup = {"net", 2, 0, 0, 0, 0, 0, 0, 0, 0, 0};

typedef struct strq {
    char **items;
    size_t *lens;
    int head, count, cap;
} strq;

struct cli_net {
    struct lws_context *ctx;
    struct lws *wsi;
    int state; /* 0 connecting, 1 open, -1 closed */
    int woke;  /* the sul timer fired */
    char err[256];
    char *rx; /* the message being reassembled */
    size_t rxlen, rxcap;
    strq in, out;
    long next_id;
    double tokens, rate, burst; /* our side of the server's token bucket */
    int64_t refilled_us;
    lws_sorted_usec_list_t sul;
    char addr[256], path[512], host[300];
    int proto;        /* the selected subprotocol: 1 or 2 */
    cli_model *model; /* thue.v2's room model (NULL under thue.v1) */
    pending_sync syncs[MAX_SYNCS];
    int nsyncs;
    pending_sync answer; /* id > 0: the next room_state of answer.room is this sync's */
    /* Leaves sent and not yet answered: the model keeps their rooms until the answer,
     * since what the server sent before it (a sync's state, the last moves) is still the
     * room's. */
    pending_sync leaves[MAX_LEAVES];
    int nleaves;
};

static int strq_push(strq *q, char *s, size_t len)
{
    if (q->count == q->cap) {
        int cap = q->cap ? 2 * q->cap : 16;
        char **items = malloc((size_t)cap * sizeof *items);
        size_t *lens = malloc((size_t)cap * sizeof *lens);
        if (items == NULL || lens == NULL) {
            free(items);
            free(lens);
            return -1;
        }
        for (int i = 0; i < q->count; i++) {
            items[i] = q->items[(q->head + i) % q->cap];
            lens[i] = q->lens[(q->head + i) % q->cap];
        }
        free(q->items);
        free(q->lens);
        q->items = items;
        q->lens = lens;
        q->head = 0;
        q->cap = cap;
    }
    int at = (q->head + q->count) % q->cap;
    q->items[at] = s;
    q->lens[at] = len;
    q->count++;
    return 0;
}

static char *strq_pop(strq *q, size_t *len)
{
    if (q->count == 0)
        return NULL;
    char *s = q->items[q->head];
    *len = q->lens[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return s;
}

static void strq_free(strq *q)
{
    size_t len;
    char *s;
    while ((s = strq_pop(q, &len)) != NULL)
        free(s);
    free(q->items);
    free(q->lens);
    memset(q, 0, sizeof *q);
}

static void set_closed(cli_net *n, const char *why)
{
    if (n->state >= 0 && n->err[0] == '\0')
        snprintf(n->err, sizeof n->err, "%s", why);
    n->state = -1;
    n->wsi = NULL;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    (void)user;
    struct lws_context *ctx = lws_get_context(wsi);
    cli_net *n = ctx ? lws_context_user(ctx) : NULL;
    if (n == NULL)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_FILTER_PRE_ESTABLISH: {
        char sel[32];
        int got = lws_hdr_copy(wsi, sel, sizeof sel, WSI_TOKEN_PROTOCOL);
        n->proto = got > 0 && strcmp(sel, "thue.v2") == 0 ? 2 : 1;
        break;
    }
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        n->state = 1;
        if (n->out.count)
            lws_callback_on_writable(wsi);
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
        char why[200];
        snprintf(why, sizeof why, "cannot connect: %s",
                 in && len ? (const char *)in : "connection failed");
        set_closed(n, why);
        break;
    }
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: {
        int code = len >= 2 ? (((unsigned char *)in)[0] << 8) | ((unsigned char *)in)[1] : 0;
        char why[100];
        snprintf(why, sizeof why, "the server closed the connection (code %d)", code);
        if (n->err[0] == '\0')
            snprintf(n->err, sizeof n->err, "%s", why);
        break;
    }
    case LWS_CALLBACK_CLIENT_CLOSED:
        set_closed(n, "the server closed the connection");
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (lws_frame_is_binary(wsi))
            break;
        if (n->rxlen + len + 1 > n->rxcap) {
            size_t cap = n->rxcap ? n->rxcap : 4096;
            while (cap < n->rxlen + len + 1)
                cap *= 2;
            char *p = realloc(n->rx, cap);
            if (p == NULL)
                return -1;
            n->rx = p;
            n->rxcap = cap;
        }
        memcpy(n->rx + n->rxlen, in, len);
        n->rxlen += len;
        if (lws_is_final_fragment(wsi)) {
            char *msg = malloc(n->rxlen + 1);
            if (msg == NULL)
                return -1;
            memcpy(msg, n->rx, n->rxlen);
            msg[n->rxlen] = '\0';
            if (strq_push(&n->in, msg, n->rxlen) < 0) {
                free(msg);
                return -1;
            }
            n->rxlen = 0;
        }
        break;
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        size_t mlen;
        char *msg = strq_pop(&n->out, &mlen);
        if (msg == NULL)
            break;
        unsigned char *buf = malloc(LWS_PRE + mlen);
        if (buf == NULL) {
            free(msg);
            return -1;
        }
        memcpy(buf + LWS_PRE, msg, mlen);
        free(msg);
        int w = lws_write(wsi, buf + LWS_PRE, mlen, LWS_WRITE_TEXT);
        free(buf);
        if (w < (int)mlen)
            return -1;
        if (n->out.count)
            lws_callback_on_writable(wsi);
        break;
    }
    default:
        break;
    }
    return 0;
}

/* One local handler for either subprotocol (bound by name: ci.local_protocol_name). */
static const struct lws_protocols protocols[] = {
    {"thue", callback, 0, 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* At exit, under --check-sync: what was checked. */
static void check_summary(void)
{
    if (setup.failed)
        return;
    if (!setup.spoke_v2)
        fprintf(stderr, "thue %s: --check-sync: nothing checked: the server spoke thue.v1\n",
                setup.cmd);
    else
        fprintf(stderr,
                "thue %s: --check-sync: %ld synced states equal to the model's (thue.v2, %ld "
                "moves applied; not checked: %ld of rooms left, %ld refused, %ld unanswered, "
                "%ld unsent)\n",
                setup.cmd, setup.checks, setup.moves, setup.left, setup.refused,
                setup.unanswered, setup.unsent);
}

void cli_net_setup(const char *cmd, int protocol, int check_sync)
{
    setup.cmd = cmd;
    setup.protocol = protocol == 1 ? 1 : 2;
    setup.check_every = check_sync > 0 ? check_sync : 0;
    if (setup.check_every)
        atexit(check_summary);
}

/* The debugging check failed: say so and end the process (cli_net_setup). */
static void check_failed(const char *what, const char *room, const char *detail)
{
    fflush(stdout);
    fprintf(stderr, "thue %s: --check-sync: %s (room %s): %s\n", setup.cmd, what, room, detail);
    setup.failed = 1;
    exit(3);
}

int cli_net_url_ok(const char *url)
{
    if (url == NULL || strncmp(url, "ws://", 5) != 0 || strlen(url) > 500)
        return 0;
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", url);
    const char *prot, *addr, *path;
    int port;
    if (lws_parse_uri(tmp, &prot, &addr, &port, &path) != 0 || addr[0] == '\0')
        return 0;
    return port > 0 && port < 65536;
}

static void wake(lws_sorted_usec_list_t *sul)
{
    cli_net *n = lws_container_of(sul, cli_net, sul);
    n->woke = 1;
}

/* Services the loop until something happened or timeout_ms passed. */
static void service(cli_net *n, int timeout_ms)
{
    n->woke = 0;
    lws_sul_schedule(n->ctx, 0, &n->sul, wake, (lws_usec_t)timeout_ms * LWS_US_PER_MS);
    lws_service(n->ctx, 0);
    lws_sul_cancel(&n->sul);
}

cli_net *cli_net_open(const char *url, int timeout_ms, char *err, size_t errsize)
{
    if (!cli_net_url_ok(url)) {
        snprintf(err, errsize, "bad server URL '%s': expected ws://HOST[:PORT]/PATH",
                 url ? url : "");
        return NULL;
    }
    cli_net *n = calloc(1, sizeof *n);
    if (n == NULL) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", url);
    const char *prot, *addr, *path;
    int port;
    if (lws_parse_uri(tmp, &prot, &addr, &port, &path) != 0) {
        free(n);
        snprintf(err, errsize, "bad server URL");
        return NULL;
    }
    snprintf(n->addr, sizeof n->addr, "%s", addr);
    snprintf(n->path, sizeof n->path, "/%s", path);
    snprintf(n->host, sizeof n->host, "%s:%d", addr, port);

    cli_net_set_rate(n, 20, 40);
    n->tokens = n->burst;
    n->refilled_us = lws_now_usecs();
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = n;
    info.gid = -1;
    info.uid = -1;
    n->ctx = lws_create_context(&info);
    if (n->ctx == NULL) {
        snprintf(err, errsize, "cannot create the WebSocket context");
        free(n);
        return NULL;
    }
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = n->ctx;
    ci.address = n->addr;
    ci.port = port;
    ci.path = n->path;
    ci.host = n->host;
    ci.origin = n->host;
    ci.protocol = setup.protocol == 2 ? "thue.v2,thue.v1" : "thue.v1";
    ci.local_protocol_name = "thue";
    ci.pwsi = &n->wsi;
    n->proto = 1;
    if (lws_client_connect_via_info(&ci) == NULL && n->state >= 0)
        set_closed(n, "cannot connect");
    int64_t end = lws_now_usecs() + (int64_t)timeout_ms * 1000;
    while (n->state == 0) {
        int64_t left = end - lws_now_usecs();
        if (left <= 0) {
            set_closed(n, "timed out connecting");
            break;
        }
        service(n, (int)(left / 1000) + 1);
    }
    if (n->state != 1) {
        snprintf(err, errsize, "%s to %s", n->err[0] ? n->err : "cannot connect", url);
        cli_net_close(n);
        return NULL;
    }
    if (n->proto == 2) {
        setup.spoke_v2 = 1;
        if ((n->model = cli_model_new(NULL)) == NULL) {
            snprintf(err, errsize, "out of memory");
            cli_net_close(n);
            return NULL;
        }
    }
    return n;
}

int cli_net_protocol(const cli_net *n)
{
    return n->proto;
}

void cli_net_set_player(cli_net *n, const char *name)
{
    if (n->model != NULL)
        cli_model_set_name(n->model, name);
}

long cli_net_send(cli_net *n, thue_cmd *cmd)
{
    if (n->state != 1)
        return -1;
    /* Stay within the server's rate limit: wait (servicing) for a token. */
    for (;;) {
        int64_t now = lws_now_usecs();
        n->tokens += (double)(now - n->refilled_us) / 1e6 * n->rate;
        if (n->tokens > n->burst)
            n->tokens = n->burst;
        n->refilled_us = now;
        if (n->tokens >= 1.0)
            break;
        service(n, (int)((1.0 - n->tokens) / n->rate * 1000.0) + 1);
        if (n->state != 1)
            return -1;
    }
    n->tokens -= 1.0;
    if (cmd->id.kind == THUE_ID_NONE) {
        cmd->id.kind = THUE_ID_INT;
        cmd->id.num = ++n->next_id;
    }
    char *text = thue_cmd_encode(cmd, NULL);
    if (text == NULL)
        return -1;
    if (strq_push(&n->out, text, strlen(text)) < 0) {
        free(text);
        return -1;
    }
    if (cmd->type == THUE_CMD_LEAVE && n->model != NULL) {
        if (n->nleaves < MAX_LEAVES && cmd->id.kind == THUE_ID_INT) {
            pending_sync *p = &n->leaves[n->nleaves++];
            p->id = (long)cmd->id.num;
            snprintf(p->room, sizeof p->room, "%s", cmd->u.room.room);
        } else {
            cli_model_forget(n->model, cmd->u.room.room);
        }
    }
    lws_callback_on_writable(n->wsi);
    /* Give lws a chance to write now, so a caller that thinks next does not delay it. */
    service(n, 0);
    return cmd->id.kind == THUE_ID_INT ? (long)cmd->id.num : 1;
}

/* Sends sync for room, remembering it (check: the debugging check's). */
static void send_sync(cli_net *n, const char *room, int check)
{
    if (n->nsyncs == MAX_SYNCS) {
        if (check) {
            setup.unsent++; /* a check can wait for the next move */
            return;
        }
        n->nsyncs--; /* forget the oldest: its reply will pass as an unknown one */
        memmove(n->syncs, n->syncs + 1, (size_t)n->nsyncs * sizeof *n->syncs);
    }
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_SYNC;
    snprintf(c.u.room.room, sizeof c.u.room.room, "%s", room);
    long id = cli_net_send(n, &c);
    if (id < 0) {
        setup.unsent += check;
        return;
    }
    pending_sync *p = &n->syncs[n->nsyncs++];
    p->id = id;
    p->check = check;
    snprintf(p->room, sizeof p->room, "%s", room);
}

/* The whole state that answers a check's sync: it must be the model's. */
static void check_answer(cli_net *n, const thue_msg *st)
{
    const char *room = st->u.room_state.room;
    const thue_msg *mine = cli_model_find(n->model, room);
    if (mine == NULL) {
        setup.left++; /* the room was left meanwhile */
        return;
    }
    char why[600];
    if (mine->u.room_state.version != st->u.room_state.version) {
        snprintf(why, sizeof why, "the server's state is version %lld, the model's %lld",
                 (long long)st->u.room_state.version, (long long)mine->u.room_state.version);
        check_failed("the synced state is another version than the model's", room, why);
    }
    /* The running clock may have run on between the move and the sync (a little more
     * than a millisecond of rounding the other way is a difference). */
    int rc = cli_model_compare(mine, st, -1, 600000, why, sizeof why);
    if (rc != 0)
        check_failed("the model differs from the synced state", room,
                     rc < 0 ? "out of memory" : why);
    setup.checks++;
}

/* A decoded message under thue.v2: 1 to hand *m out (perhaps replaced by the model's
 * state), 0 when it was taken here (*m released). */
static int through_model(cli_net *n, thue_msg *m)
{
    if ((m->type == THUE_MSG_OK || m->type == THUE_MSG_ERROR) && m->id.kind == THUE_ID_INT) {
        for (int i = 0; i < n->nleaves; i++) {
            if (n->leaves[i].id != m->id.num)
                continue;
            cli_model_forget(n->model, n->leaves[i].room); /* the caller has the answer */
            n->leaves[i] = n->leaves[--n->nleaves];
            return 1;
        }
        for (int i = 0; i < n->nsyncs; i++) {
            if (n->syncs[i].id != m->id.num)
                continue;
            if (m->type == THUE_MSG_OK)
                n->answer = n->syncs[i]; /* the room's whole state comes next */
            else if (n->syncs[i].check)
                setup.refused++;
            n->syncs[i] = n->syncs[--n->nsyncs];
            thue_msg_clear(m);
            return 0;
        }
        return 1;
    }
    int is_state = m->type == THUE_MSG_ROOM_STATE && m->u.room_state.has_ref;
    if (!is_state && m->type != THUE_MSG_PLAYED)
        return 1;
    if (is_state && n->answer.id > 0 && strcmp(n->answer.room, m->u.room_state.room) == 0) {
        int check = n->answer.check;
        n->answer.id = 0;
        if (check) { /* the caller has this state already */
            check_answer(n, m);
            thue_msg_clear(m);
            return 0;
        }
    }
    thue_msg st;
    char room[THUE_PROTO_KEY_MAX + 1];
    cli_model_result r = cli_model_apply(n->model, m, &st, room);
    int played = m->type == THUE_MSG_PLAYED;
    thue_msg_clear(m);
    if (r == CLI_MODEL_SYNC) {
        if (setup.check_every)
            check_failed("the model lost a room", room, cli_model_why(n->model));
        send_sync(n, room, 0);
        return 0;
    }
    if (r != CLI_MODEL_STATE)
        return 0;
    *m = st;
    if (played) {
        setup.moves++;
        if (setup.check_every && setup.moves % setup.check_every == 0)
            send_sync(n, m->u.room_state.room, 1);
    }
    return 1;
}

int cli_net_next(cli_net *n, int timeout_ms, thue_msg *out)
{
    int64_t end = lws_now_usecs() + (int64_t)timeout_ms * 1000;
    int polled = 0;
    for (;;) {
        size_t len;
        char *text;
        while ((text = strq_pop(&n->in, &len)) != NULL) {
            memset(out, 0, sizeof *out);
            int rc = thue_msg_decode(text, len, out, NULL);
            free(text);
            if (rc == 0 && (n->model == NULL || through_model(n, out)))
                return 1;
            if (rc != 0)
                thue_msg_clear(out); /* unknown or malformed: skip it */
        }
        if (n->state < 0)
            return -1;
        /* Once past the time, the loop has been serviced at least once: a timeout of 0
         * polls the socket (pings are answered, messages read), it does not skip it.
         * (A wake-up of 1 ms, not 0: with nothing to do, a sul due at once does not end
         * lws_service's wait.) */
        int64_t left = end - lws_now_usecs();
        if (left <= 0 && polled)
            return 0;
        service(n, left > 0 ? (int)(left / 1000) + 1 : 1);
        polled = 1;
    }
}

void cli_net_set_rate(cli_net *n, int rate, int burst)
{
    /* A margin below the server's figures: its bucket and ours do not start together. */
    n->rate = rate > 1 ? rate * 0.8 : 0.8;
    n->burst = burst > 4 ? burst / 2 : 2;
    if (n->tokens > n->burst)
        n->tokens = n->burst;
}

const char *cli_net_error(const cli_net *n)
{
    return n->state < 0 ? n->err : "connected";
}

void cli_net_close(cli_net *n)
{
    if (n == NULL)
        return;
    /* The debugging check: the syncs still out are answered and checked first (a watch
     * ends at match_end, which may overtake the last moves' answers). */
    int64_t end = lws_now_usecs() + 2000000;
    while (setup.check_every && n->state == 1 && (n->nsyncs > 0 || n->answer.id > 0)) {
        int64_t left = end - lws_now_usecs();
        thue_msg m;
        int r = left > 0 ? cli_net_next(n, (int)(left / 1000) + 1, &m) : -1;
        if (r <= 0)
            break;
        thue_msg_clear(&m); /* a message that came meanwhile: nobody wants it now */
    }
    for (int i = 0; i < n->nsyncs; i++)
        setup.unanswered += n->syncs[i].check;
    if (n->answer.id > 0)
        setup.unanswered += n->answer.check;
    if (n->ctx)
        lws_context_destroy(n->ctx);
    cli_model_free(n->model);
    strq_free(&n->in);
    strq_free(&n->out);
    free(n->rx);
    free(n);
}
