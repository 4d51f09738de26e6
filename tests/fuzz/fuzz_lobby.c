/*
 * fuzz_lobby.c: libFuzzer target for the lobby: sequences of client messages from four
 * connections, with disconnections and reconnections, against a fresh lobby per input.
 *
 * Input: lines. A line "N TEXT" (N = 0..3) sends TEXT from connection N (0 and 1 speak
 * thue.v1, 2 and 3 thue.v2); "dN" drops connection N (its session waits out the grace
 * period) and opens a new one there of the same subprotocol, "vN" the same with a
 * connection that speaks thue.v2; "t" lets the loop run its ready timers and pool
 * results. In TEXT, "$R" stands for the room id of the latest room_created reply, "$T"
 * for the latest resume token, "$U" for the latest tournament id, "$A" for the latest
 * account token and "$K" for the latest analysis key, so that short inputs reach deep
 * into rooms, sessions, tournaments and analyses.
 *
 * Checked: the lobby never crashes, leaks or trips a sanitizer, and every message it
 * sends is a valid server message of PROTOCOL.md (thue_msg_decode accepts it). Each
 * input gets a fresh lobby with a fresh in-memory store (accounts, rated play, records
 * and tournaments are reachable); the lobby, the store, their timers and the pool's
 * delivered results are closed after every input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "../protocol/codec.h"
#include "lobby/lobby.h"
#include "log.h"
#include "metrics.h"
#include "store/store.h"
#include "password.h"

#define CONNS 4

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct thue_conn {
    thue_client *client;
};

/* Connections 0 and 1 speak thue.v1, 2 and 3 thue.v2 (PROTOCOL.md section 18): the same
 * rooms reach both forms of every change. */
static void connect_as(thue_lobby *lobby, struct thue_conn *c, int i)
{
    c->client = thue_lobby_connected(lobby, c, "127.0.0.1");
    if (c->client != NULL && i >= 2)
        thue_lobby_set_protocol(c->client, 2);
}

static uv_loop_t loop;
static thue_pool *pool;
static char last_room[THUE_PROTO_KEY_MAX + 1] = "r0";
static char last_token[THUE_PROTO_RESUME_LEN + 1] = "0";
static char last_tournament[THUE_PROTO_KEY_MAX + 1] = "t0";
static char last_account[THUE_PROTO_TOKEN_MAX + 1] = "t_0";
static char last_analysis[THUE_PROTO_KEY_MAX + 1] = "a0";

static void on_send(void *ctx, thue_conn *conn, const char *text, size_t len)
{
    (void)ctx, (void)conn;
    thue_msg msg;
    thue_decode_error err;
    if (thue_msg_decode(text, len, &msg, &err) != 0) {
        fprintf(stderr, "the lobby sent an invalid message (%s: %s):\n%.*s\n", err.field,
                err.message, (int)len, text);
        abort();
    }
    if (msg.type == THUE_MSG_ROOM_CREATED)
        snprintf(last_room, sizeof last_room, "%s", msg.u.room_created.room);
    if (msg.type == THUE_MSG_WELCOME)
        memcpy(last_token, msg.u.welcome.resume, sizeof last_token);
    if (msg.type == THUE_MSG_TOURNAMENT_CREATED)
        snprintf(last_tournament, sizeof last_tournament, "%s",
                 msg.u.tournament_created.tournament);
    if (msg.type == THUE_MSG_ACCOUNT)
        snprintf(last_account, sizeof last_account, "%s", msg.u.account.token);
    if (msg.type == THUE_MSG_ANALYSIS_STARTED)
        snprintf(last_analysis, sizeof last_analysis, "%s", msg.u.analysis_started.analysis);
    thue_msg_clear(&msg);
}

static void on_close(void *ctx, thue_conn *conn, int code, const char *reason)
{
    (void)ctx, (void)conn, (void)code, (void)reason;
}

static void closed(void *data)
{
    *(int *)data = 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    thue_log_set_level(THUE_LOG_ERROR);
    thue_codec_init();
    if (thue_password_init() != 0)
        return 1;
    uv_loop_init(&loop);
    pool = thue_pool_new(&loop, 1);
    return pool ? 0 : 1;
}

/* TEXT with $R, $T, $U, $A and $K replaced. */
static size_t expand(const char *in, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        const char *sub = NULL;
        if (in[i] == '$' && i + 1 < n && in[i + 1] == 'R')
            sub = last_room;
        else if (in[i] == '$' && i + 1 < n && in[i + 1] == 'T')
            sub = last_token;
        else if (in[i] == '$' && i + 1 < n && in[i + 1] == 'U')
            sub = last_tournament;
        else if (in[i] == '$' && i + 1 < n && in[i + 1] == 'A')
            sub = last_account;
        else if (in[i] == '$' && i + 1 < n && in[i + 1] == 'K')
            sub = last_analysis;
        if (sub) {
            size_t sl = strlen(sub);
            if (o + sl >= cap)
                break;
            memcpy(out + o, sub, sl);
            o += sl;
            i++;
        } else {
            out[o++] = in[i];
        }
    }
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    thue_metrics metrics;
    thue_metrics_init(&metrics);
    thue_lobby_config cfg = {.grace_s = 1,
                             .max_rooms_per_player = 3,
                             .max_rooms = 8,
                             .room_linger_s = 1,
                             .bot_think_ms = 10,
                             .rate = 1000,
                             .burst = 60,
                             .seed = 1,
                             /* set_password and login: the cheapest hashes (1 pass, 1 MiB) */
                             .password_ops = 1,
                             .password_mem_mib = 1};
    thue_lobby *lobby = thue_lobby_new(&loop, &cfg, pool, &metrics);
    if (lobby == NULL)
        return 0;
    thue_lobby_hooks hooks = {.send = on_send, .close = on_close, .ctx = NULL};
    thue_lobby_set_hooks(lobby, &hooks);
    char err[256];
    thue_store *store = thue_store_open(":memory:", err, sizeof err);
    if (store == NULL || thue_store_start(store, &loop) != 0)
        abort();
    thue_lobby_set_store(lobby, store);
    struct thue_conn conns[CONNS];
    for (int i = 0; i < CONNS; i++)
        connect_as(lobby, &conns[i], i);
    static char text[THUE_PROTO_MESSAGE_MAX + 64];
    const char *p = (const char *)data, *end = p + size;
    int steps = 0;
    while (p < end && steps++ < 200) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (len >= 2 && p[0] >= '0' && p[0] < '0' + CONNS && p[1] == ' ') {
            struct thue_conn *c = &conns[p[0] - '0'];
            size_t n = expand(p + 2, len - 2, text, sizeof text);
            if (c->client)
                thue_lobby_message(lobby, c->client, text, n);
        } else if (len == 2 && (p[0] == 'd' || p[0] == 'v') && p[1] >= '0' && p[1] < '0' + CONNS) {
            struct thue_conn *c = &conns[p[1] - '0'];
            if (c->client)
                thue_lobby_disconnected(lobby, c->client);
            connect_as(lobby, c, p[1] - '0');
            if (c->client && p[0] == 'v')
                thue_lobby_set_protocol(c->client, 2);
        } else if (len == 1 && p[0] == 't') {
            uv_run(&loop, UV_RUN_NOWAIT);
        }
        p += len + (nl != NULL);
    }
    thue_lobby_shutdown(lobby);
    for (int i = 0; i < CONNS; i++)
        if (conns[i].client)
            thue_lobby_disconnected(lobby, conns[i].client);
    /* The store first: closing it runs the callbacks of its queued jobs, which need the
     * lobby. */
    int stored = 0, done = 0;
    thue_store_close(store, closed, &stored);
    while (!stored)
        uv_run(&loop, UV_RUN_ONCE);
    thue_lobby_close(lobby, closed, &done);
    while (!done)
        uv_run(&loop, UV_RUN_ONCE);
    return 0;
}
