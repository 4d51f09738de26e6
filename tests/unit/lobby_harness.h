/*
 * lobby_harness.h: the lobby (server/lobby) driven through its hooks, without a network,
 * for the test_lobby_*.c tests: a fake connection records what the lobby sends and how it
 * asks to close, and the test plays the network layer's part (connected, message,
 * disconnected). The loop, the worker pool and the timers are real, so bots, clocks and
 * grace periods run as they do in the server. Replies are parsed with jansson,
 * independently of the codec.
 */
#ifndef THUE_TEST_LOBBY_HARNESS_H
#define THUE_TEST_LOBBY_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>
#include <uv.h>
#include "lobby/lobby.h"
#include "lobby/ids.h"
#include "ladder_moved_hook.h"
#include "log.h"
#include "metrics.h"
#include "store/store.h"

/* ---- a fake network ------------------------------------------------------------------ */

struct thue_conn {
    json_t *inbox[4096];
    int n, taken[4096];
    int close_code; /* 0 until the lobby asks to close */
    thue_client *client;
    const char *last_text; /* the buffer of the latest message (test_lobby_v2: one for all) */
};

typedef struct harness {
    uv_loop_t loop;
    thue_pool *pool;
    thue_metrics metrics;
    thue_lobby *lobby;
    thue_lobby_config cfg;
    thue_conn *conns[64];
    int nconns;
    int closed;
} harness;

void fake_send(void *ctx, thue_conn *conn, const char *text, size_t len);

void fake_close(void *ctx, thue_conn *conn, int code, const char *reason);

extern int linger_s;

extern int max_rooms;

extern int room_rate;

extern thue_lobby_config tour_cfg;

harness *h_new(int grace_s, int rate, int burst);

/* A connection from the address peer. */
thue_conn *h_connect_from(harness *h, const char *peer);

thue_conn *h_connect(harness *h);

void h_disconnect(harness *h, thue_conn *c);

void h_send(harness *h, thue_conn *c, const char *fmt, ...);

int matches(json_t *m, const char *type, const char *room);

/* The first message of `type` (and room) not taken yet, or NULL. */
json_t *peek(thue_conn *c, const char *type, const char *room, int take);

void tick(uv_timer_t *t);

/* Runs the loop until `type` arrives on c (or 20 s pass: a failure). */
json_t *h_wait(harness *h, thue_conn *c, const char *type, const char *room);

/* The reply (the last message so far that is not an event). */
json_t *reply(thue_conn *c);

const char *str(json_t *m, const char *key);

void expect_code(thue_conn *c, const char *code);

void expect_ok(thue_conn *c, const char *type);

void closed_cb(void *data);

void pool_closed(void *data);

void h_free(harness *h);

thue_conn *h_player_from(harness *h, const char *name, const char *peer);

thue_conn *h_player(harness *h, const char *name);

/* Creates a room as a (k, first builder creator, extra members) and returns its id. */
const char *h_room(harness *h, thue_conn *a, const char *extra);

json_t *latest_state(thue_conn *c, const char *room);

json_t *mget(json_t *state, const char *key);

void store_closed(void *data);

/* A harness with a database in memory (accounts, tournaments). */
thue_store *h_store(harness *h);

/* Closes the store (its callbacks need the lobby), then the harness. */
void h_free_store(harness *h, thue_store *store);

/* A player from peer with an account of that name. */
thue_conn *h_account(harness *h, const char *name, const char *peer);

/* Makes every move that is c's to make in the latest state of each of its rooms: a person
 * who places at position 0 and paints symbol 0 (both always in range). The number made. */
int h_play(harness *h, thue_conn *c);

/* Runs the loop, the n people making their moves (h_play), until `type` arrives on c (or
 * `seconds` pass: a failure). */
json_t *h_wait_playing(harness *h, thue_conn *const *people, int n, thue_conn *c, const char *type,
                       int seconds);

#endif
