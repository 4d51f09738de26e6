/*
 * test_lobby.c: the lobby (server/lobby) driven through its hooks, without a network:
 * a fake connection records what the lobby sends and how it asks to close, and the test
 * plays the network layer's part (connected, message, disconnected). The loop, the
 * worker pool and the timers are real, so bots, clocks and grace periods run as they do
 * in the server. Replies are parsed with jansson, independently of the codec.
 */
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

static void fake_send(void *ctx, thue_conn *conn, const char *text, size_t len)
{
    (void)ctx;
    json_error_t e;
    json_t *j = json_loadb(text, len, 0, &e);
    assert_non_null(j); /* the lobby writes valid JSON */
    assert_true(conn->n < 4096);
    conn->inbox[conn->n++] = j;
}

static void fake_close(void *ctx, thue_conn *conn, int code, const char *reason)
{
    (void)ctx, (void)reason;
    conn->close_code = code;
}

static int linger_s = 300;         /* room_linger_s of the next harness */
static int max_rooms = 100;        /* max_rooms of the next harness */
static int room_rate = 0;          /* room_rate_per_ip of the next harness (0: the default) */
static thue_lobby_config tour_cfg; /* the tournament limits of the next harness (0s: defaults) */

static harness *h_new(int grace_s, int rate, int burst)
{
    harness *h = calloc(1, sizeof *h);
    assert_int_equal(uv_loop_init(&h->loop), 0);
    h->pool = thue_pool_new(&h->loop, 2);
    assert_non_null(h->pool);
    thue_metrics_init(&h->metrics);
    h->cfg = (thue_lobby_config){.grace_s = grace_s,
                                 .max_rooms_per_player = 3,
                                 .max_rooms = max_rooms,
                                 .room_rate_per_ip = room_rate,
                                 .max_tournaments = tour_cfg.max_tournaments,
                                 .tournaments_per_account = tour_cfg.tournaments_per_account,
                                 .tournaments_per_ip = tour_cfg.tournaments_per_ip,
                                 .tournament_rate = tour_cfg.tournament_rate,
                                 .tournament_expire_s = tour_cfg.tournament_expire_s,
                                 .room_linger_s = linger_s,
                                 .bot_think_ms = 200,
                                 /* guests here seat bots against bots; the limit on
                                  * that is tested by attack_bots.test.mjs */
                                 .guest_bot_vs_bot = true,
                                 .rate = rate,
                                 .burst = burst,
                                 .seed = 42};
    h->lobby = thue_lobby_new(&h->loop, &h->cfg, h->pool, &h->metrics);
    assert_non_null(h->lobby);
    thue_lobby_hooks hooks = {fake_send, fake_close, h};
    thue_lobby_set_hooks(h->lobby, &hooks);
    return h;
}

/* A connection from the address peer. */
static thue_conn *h_connect_from(harness *h, const char *peer)
{
    thue_conn *c = calloc(1, sizeof *c);
    c->client = thue_lobby_connected(h->lobby, c, peer);
    assert_non_null(c->client);
    h->conns[h->nconns++] = c;
    return c;
}

static thue_conn *h_connect(harness *h)
{
    return h_connect_from(h, "127.0.0.1");
}

static void h_disconnect(harness *h, thue_conn *c)
{
    if (c->client) {
        thue_lobby_disconnected(h->lobby, c->client);
        c->client = NULL;
    }
}

static void h_send(harness *h, thue_conn *c, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    thue_lobby_message(h->lobby, c->client, text, strlen(text));
}

static int matches(json_t *m, const char *type, const char *room)
{
    const char *t = json_string_value(json_object_get(m, "type"));
    if (t == NULL || strcmp(t, type) != 0)
        return 0;
    if (room) {
        const char *r = json_string_value(json_object_get(m, "room"));
        return r && strcmp(r, room) == 0;
    }
    return 1;
}

/* The first message of `type` (and room) not taken yet, or NULL. */
static json_t *peek(thue_conn *c, const char *type, const char *room, int take)
{
    for (int i = 0; i < c->n; i++)
        if (!c->taken[i] && matches(c->inbox[i], type, room)) {
            c->taken[i] |= take;
            return c->inbox[i];
        }
    return NULL;
}

static void tick(uv_timer_t *t)
{
    (void)t;
}

/* Runs the loop until `type` arrives on c (or 20 s pass: a failure). */
static json_t *h_wait(harness *h, thue_conn *c, const char *type, const char *room)
{
    uv_timer_t guard;
    uv_timer_init(&h->loop, &guard);
    uv_timer_start(&guard, tick, 5, 5);
    uint64_t until = uv_now(&h->loop) + 20000;
    json_t *m;
    while ((m = peek(c, type, room, 1)) == NULL && uv_now(&h->loop) < until)
        uv_run(&h->loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&guard, NULL);
    uv_run(&h->loop, UV_RUN_NOWAIT);
    if (m == NULL)
        fail_msg("no %s message arrived", type);
    return m;
}

/* The reply (the last message so far that is not an event). */
static json_t *reply(thue_conn *c)
{
    for (int i = c->n - 1; i >= 0; i--) {
        const char *t = json_string_value(json_object_get(c->inbox[i], "type"));
        if (strcmp(t, "room_state") && strcmp(t, "match_end") && strcmp(t, "chat_message") &&
            strcmp(t, "match_found") && strcmp(t, "goodbye") && strcmp(t, "queue_failed") &&
            strcmp(t, "tournament_event")) {
            c->taken[i] = 1;
            return c->inbox[i];
        }
    }
    fail_msg("no reply");
    return NULL;
}

static const char *str(json_t *m, const char *key)
{
    return json_string_value(json_object_get(m, key));
}

static void expect_code(thue_conn *c, const char *code)
{
    json_t *r = reply(c);
    assert_string_equal(str(r, "type"), "error");
    assert_string_equal(str(r, "code"), code);
}

static void expect_ok(thue_conn *c, const char *type)
{
    json_t *r = reply(c);
    if (strcmp(str(r, "type"), type) != 0)
        fail_msg("expected %s, got %s (%s)", type, str(r, "type"),
                 str(r, "message") ? str(r, "message") : "");
}

static void closed_cb(void *data)
{
    ((harness *)data)->closed = 1;
}

static void pool_closed(void *data)
{
    (void)data;
}

static void h_free(harness *h)
{
    thue_lobby_shutdown(h->lobby);
    for (int i = 0; i < h->nconns; i++)
        h_disconnect(h, h->conns[i]);
    thue_lobby_close(h->lobby, closed_cb, h);
    thue_pool_close(h->pool, pool_closed, NULL);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    assert_int_equal(h->closed, 1);
    assert_int_equal(uv_loop_close(&h->loop), 0);
    for (int i = 0; i < h->nconns; i++) {
        for (int j = 0; j < h->conns[i]->n; j++)
            json_decref(h->conns[i]->inbox[j]);
        free(h->conns[i]);
    }
    free(h);
}

static thue_conn *h_player_from(harness *h, const char *name, const char *peer)
{
    thue_conn *c = h_connect_from(h, peer);
    h_send(h, c, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", name);
    expect_ok(c, "welcome");
    return c;
}

static thue_conn *h_player(harness *h, const char *name)
{
    thue_conn *c = h_connect(h);
    h_send(h, c, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", name);
    expect_ok(c, "welcome");
    return c;
}

/* Creates a room as a (k, first builder creator, extra members) and returns its id. */
static const char *h_room(harness *h, thue_conn *a, const char *extra)
{
    h_send(h, a, "{\"type\":\"create_room\",\"k\":3,\"first_builder\":\"creator\"%s}", extra);
    json_t *r = reply(a);
    if (strcmp(str(r, "type"), "room_created") != 0)
        fail_msg("create_room: %s: %s", str(r, "code"), str(r, "message"));
    return str(r, "room");
}

static json_t *latest_state(thue_conn *c, const char *room)
{
    for (int i = c->n - 1; i >= 0; i--)
        if (matches(c->inbox[i], "room_state", room))
            return c->inbox[i];
    return NULL;
}

static json_t *mget(json_t *state, const char *key)
{
    return json_object_get(json_object_get(state, "match"), key);
}

/* ---- tests --------------------------------------------------------------------------------- */

static void test_session_errors(void **st)
{
    (void)st;
    harness *h = h_new(60, 100, 100);
    thue_conn *raw = h_connect(h);
    h_send(h, raw, "{\"type\":\"ping\",\"id\":1}");
    expect_ok(raw, "pong");
    h_send(h, raw, "{\"type\":\"list_rooms\",\"id\":2}");
    expect_code(raw, "hello_first");
    h_send(h, raw, "{\"type\":\"hello\",\"protocol\":2}");
    expect_code(raw, "bad_protocol");
    h_send(h, raw, "{not json");
    expect_code(raw, "bad_json");
    h_send(h, raw, "{\"type\":\"warp\"}");
    expect_code(raw, "unknown_type");
    h_send(h, raw, "{\"type\":\"hello\",\"protocol\":1,\"resume\":\"0123456789abcdef0123456789abcdef\"}");
    expect_code(raw, "bad_resume");
    h_send(h, raw, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"greedy\"}");
    expect_code(raw, "bad_name");
    thue_conn *ann = h_player(h, "Ann");
    h_send(h, raw, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"ANN\"}");
    expect_code(raw, "name_taken");
    h_send(h, raw, "{\"type\":\"hello\",\"protocol\":1}");
    json_t *w = reply(raw);
    assert_string_equal(str(w, "type"), "welcome");
    assert_memory_equal(str(json_object_get(w, "player"), "name"), "Guest-", 6);
    assert_int_equal(strlen(str(w, "resume")), 32);
    h_send(h, raw, "{\"type\":\"hello\",\"protocol\":1}");
    expect_code(raw, "already_hello");
    h_send(h, ann, "{\"type\":\"get_ladder\",\"variant\":\"square\",\"k\":3}");
    expect_code(ann, "not_available");
    /* the lobby counted every error by code */
    assert_int_equal(h->metrics.errors[-(-109)], 1); /* name_taken */
    assert_int_equal(h->metrics.connections, 2);
    size_t len;
    char *text = thue_metrics_render(&h->metrics, h->pool, &len);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    assert_non_null(strstr(text, "\nthue_errors_total{code=\"name_taken\"} 1\n"));
    assert_non_null(strstr(text, "\nthue_errors_total{code=\"bad_resume\"} 1\n"));
    assert_non_null(strstr(text, "\nthue_connections 2\n"));
    assert_non_null(strstr(text, "\nthue_bot_jobs_queued 0\n"));
    assert_non_null(strstr(text, "thue_move_validation_seconds_bucket{le=\"+Inf\"} 0\n"));
    free(text);
    h_free(h);
}

/* RULES.md's example: round 1 Ann builds (02, 012, 0121, 01212 = square 12|12); round 2
 * Bob builds at the end and Ann paints 1,2,0,2,1 then 1 (11). Ann wins 5-3. */
static void test_full_match(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann"), *bob = h_player(h, "Bob");
    char room[40];
    snprintf(room, sizeof room, "%s", h_room(h, ann, ""));
    h_send(h, bob, "{\"type\":\"join\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    h_send(h, ann, "{\"type\":\"place\",\"room\":\"%s\",\"position\":0}", room);
    expect_code(ann, "not_running");
    h_send(h, ann, "{\"type\":\"ready\",\"room\":\"%s\"}", room);
    expect_ok(ann, "ok");
    h_send(h, bob, "{\"type\":\"ready\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    json_t *s = latest_state(ann, room);
    assert_string_equal(str(s, "status"), "playing");
    json_int_t v0 = json_integer_value(json_object_get(s, "version"));
    /* out of turn, wrong step, out of range: nothing changes */
    h_send(h, bob, "{\"type\":\"place\",\"room\":\"%s\",\"position\":0}", room);
    expect_code(bob, "not_your_turn");
    h_send(h, ann, "{\"type\":\"paint\",\"room\":\"%s\",\"symbol\":0}", room);
    expect_code(ann, "wrong_step");
    h_send(h, ann, "{\"type\":\"place\",\"room\":\"%s\",\"position\":2}", room);
    expect_code(ann, "bad_position");
    assert_int_equal(json_integer_value(json_object_get(latest_state(ann, room), "version")), v0);
    static const int r1[][2] = {{1, 2}, {1, 1}, {3, 1}, {4, 2}};
    static const int r2[][2] = {{1, 1}, {2, 2}, {3, 0}, {4, 2}, {5, 1}, {6, 1}};
    for (int i = 0; i < 4; i++) {
        h_send(h, ann, "{\"type\":\"place\",\"room\":\"%s\",\"position\":%d}", room, r1[i][0]);
        expect_ok(ann, "ok");
        h_send(h, bob, "{\"type\":\"paint\",\"room\":\"%s\",\"symbol\":%d}", room, r1[i][1]);
        expect_ok(bob, "ok");
    }
    s = latest_state(bob, room);
    assert_int_equal(json_integer_value(mget(s, "round")), 1);
    json_t *round0 = json_array_get(mget(s, "rounds"), 0);
    assert_string_equal(str(round0, "end"), "repetition");
    json_t *word = json_object_get(round0, "word");
    int want[] = {0, 1, 2, 1, 2};
    assert_int_equal(json_array_size(word), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(json_integer_value(json_array_get(word, (size_t)i)), want[i]);
    for (int i = 0; i < 6; i++) {
        h_send(h, bob, "{\"type\":\"place\",\"room\":\"%s\",\"position\":%d}", room, r2[i][0]);
        expect_ok(bob, "ok");
        h_send(h, ann, "{\"type\":\"paint\",\"room\":\"%s\",\"symbol\":%d}", room, r2[i][1]);
        expect_ok(ann, "ok");
    }
    json_t *end = peek(ann, "match_end", room, 1);
    assert_non_null(end);
    json_t *result = json_object_get(end, "result");
    assert_int_equal(json_integer_value(json_object_get(result, "winner")), 0);
    assert_string_equal(str(result, "reason"), "score");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(end, "points"), 0)), 5);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(end, "points"), 1)), 3);
    assert_non_null(peek(bob, "match_end", room, 1));
    h_send(h, ann, "{\"type\":\"place\",\"room\":\"%s\",\"position\":0}", room);
    expect_code(ann, "match_over");
    /* rematch: the roles of round 1 swap */
    h_send(h, ann, "{\"type\":\"rematch\",\"room\":\"%s\"}", room);
    expect_ok(ann, "ok");
    h_send(h, bob, "{\"type\":\"rematch\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    s = latest_state(ann, room);
    assert_int_equal(json_integer_value(mget(s, "number")), 2);
    assert_int_equal(json_integer_value(mget(s, "builder")), 1);
    /* leaving a running match forfeits it */
    h_send(h, bob, "{\"type\":\"leave\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    end = peek(ann, "match_end", room, 1);
    assert_non_null(end);
    assert_string_equal(str(json_object_get(end, "result"), "reason"), "abandon");
    assert_int_equal(h->metrics.matches_started, 2);
    assert_int_equal(h->metrics.matches_finished, 2);
    h_free(h);
}

static void test_rate_limit(void **st)
{
    (void)st;
    harness *h = h_new(60, 1, 5);
    thue_conn *c = h_connect(h);
    for (int i = 0; i < 5; i++) {
        h_send(h, c, "{\"type\":\"ping\",\"id\":%d}", i);
        expect_ok(c, "pong");
    }
    h_send(h, c, "{\"type\":\"ping\",\"id\":99}");
    json_t *r = reply(c);
    assert_string_equal(str(r, "code"), "rate_limited");
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 99);
    for (int i = 0; i < 48; i++)
        h_send(h, c, "{\"type\":\"ping\"}");
    assert_int_equal(c->close_code, 0);
    h_send(h, c, "{\"type\":\"ping\"}"); /* the 50th in a row */
    json_t *bye = peek(c, "goodbye", NULL, 1);
    assert_non_null(bye);
    assert_string_equal(str(bye, "reason"), "abuse");
    assert_int_equal(c->close_code, 1008);
    int n = c->n;
    h_send(h, c, "{\"type\":\"ping\"}");
    assert_int_equal(c->n, n); /* nothing more after the goodbye */
    h_free(h);
}

static void test_bots_and_spectator(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *host = h_player(h, "Host"), *eve = h_player(h, "Eve");
    char room[40];
    snprintf(room, sizeof room, "%s", h_room(h, host, ",\"seat\":false"));
    h_send(h, eve, "{\"type\":\"spectate\",\"room\":\"%s\"}", room);
    expect_ok(eve, "ok");
    h_send(h, eve, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\"}", room);
    expect_code(eve, "not_allowed");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"wizard\"}", room);
    expect_code(host, "bad_bot");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\",\"seat\":0,\"think_ms\":100}", room);
    expect_ok(host, "ok");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:1\",\"seat\":0}", room);
    expect_code(host, "room_full");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:1\",\"think_ms\":100}", room);
    expect_ok(host, "ok");
    json_t *end = h_wait(h, eve, "match_end", room);
    assert_non_null(json_object_get(end, "result"));
    assert_string_equal(str(json_array_get(json_object_get(end, "players"), 1), "kind"), "bot");
    /* every state the spectator saw has a growing version and no seat */
    json_int_t last = 0;
    int states = 0;
    for (int i = 0; i < eve->n; i++)
        if (matches(eve->inbox[i], "room_state", room)) {
            json_int_t v = json_integer_value(json_object_get(eve->inbox[i], "version"));
            assert_true(v > last);
            last = v;
            assert_true(json_is_null(json_object_get(eve->inbox[i], "you")));
            states++;
        }
    assert_true(states > 4);
    assert_true(h->metrics.bot_jobs_submitted >= 4);
    assert_true(h->metrics.bot_think.count >= 4);
    h_send(h, eve, "{\"type\":\"paint\",\"room\":\"%s\",\"symbol\":0}", room);
    expect_code(eve, "not_seated");
    h_free(h);
}

static void store_closed(void *data)
{
    (*(int *)data)++;
}

/* A match whose record the store cannot save (its disk refuses every write until the
 * store closes) still ends with match_end for the room, without a match_id. */
static void test_unsaved_record(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    char err[256];
    thue_store *store = thue_store_open(":memory:", err, sizeof err);
    assert_non_null(store);
    assert_int_equal(thue_store_start(store, &h->loop), 0);
    thue_lobby_set_store(h->lobby, store);
    thue_store_fail_writes(store, 1);
    thue_conn *host = h_player(h, "Host"), *eve = h_player(h, "Eve");
    char room[40];
    snprintf(room, sizeof room, "%s", h_room(h, host, ",\"seat\":false,\"limit\":4"));
    h_send(h, eve, "{\"type\":\"spectate\",\"room\":\"%s\"}", room);
    expect_ok(eve, "ok");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\",\"think_ms\":10}", room);
    expect_ok(host, "ok");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:1\",\"think_ms\":10}", room);
    expect_ok(host, "ok");
    /* The match ends; its record waits for the disk, and so does match_end. */
    uv_timer_t guard;
    uv_timer_init(&h->loop, &guard);
    uv_timer_start(&guard, tick, 5, 5);
    uint64_t until = uv_now(&h->loop) + 20000;
    json_t *s;
    while (((s = latest_state(eve, room)) == NULL || strcmp(str(s, "status"), "finished") != 0) &&
           uv_now(&h->loop) < until)
        uv_run(&h->loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&guard, NULL);
    assert_string_equal(str(latest_state(eve, room), "status"), "finished");
    assert_null(peek(eve, "match_end", room, 0));
    /* Closing gives the waiting writes one last try; the match's fails, and the room hears
     * the result all the same. */
    int closed = 0;
    thue_store_close(store, store_closed, &closed);
    json_t *end = h_wait(h, eve, "match_end", room);
    assert_non_null(json_object_get(end, "result"));
    assert_true(json_is_null(json_object_get(end, "match_id")));
    while (!closed)
        uv_run(&h->loop, UV_RUN_ONCE);
    thue_lobby_set_store(h->lobby, NULL);
    h_free(h);
}

static void test_resume_and_takeover(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann"), *bob = h_player(h, "Bob");
    char token[40], room[40];
    snprintf(token, sizeof token, "%s", str(ann->inbox[0], "resume"));
    snprintf(room, sizeof room, "%s", h_room(h, ann, ""));
    h_send(h, bob, "{\"type\":\"join\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    h_disconnect(h, ann);
    json_t *s = latest_state(bob, room);
    json_t *seat0 = json_array_get(json_object_get(s, "players"), 0);
    assert_true(json_is_false(json_object_get(seat0, "connected")));
    thue_conn *again = h_connect(h);
    h_send(h, again, "{\"type\":\"hello\",\"protocol\":1,\"resume\":\"%s\"}", token);
    json_t *w = peek(again, "welcome", NULL, 1);
    assert_non_null(w);
    assert_true(json_is_true(json_object_get(w, "resumed")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(w, "rooms"), 0)), room);
    assert_string_not_equal(str(w, "resume"), token);
    s = peek(again, "room_state", room, 1);
    assert_non_null(s);
    assert_int_equal(json_integer_value(json_object_get(s, "you")), 0);
    /* the spent token is refused; the new one takes the session over */
    thue_conn *thief = h_connect(h);
    h_send(h, thief, "{\"type\":\"hello\",\"protocol\":1,\"resume\":\"%s\"}", token);
    expect_code(thief, "bad_resume");
    char fresh[40];
    snprintf(fresh, sizeof fresh, "%s", str(w, "resume"));
    thue_conn *third = h_connect(h);
    h_send(h, third, "{\"type\":\"hello\",\"protocol\":1,\"resume\":\"%s\"}", fresh);
    assert_non_null(peek(third, "welcome", NULL, 1));
    json_t *bye = peek(again, "goodbye", NULL, 1);
    assert_non_null(bye);
    assert_string_equal(str(bye, "reason"), "replaced");
    assert_int_equal(again->close_code, 1001);
    h_disconnect(h, again); /* the replaced connection goes: the session stays */
    h_send(h, third, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"still here\"}", room);
    expect_ok(third, "ok");
    assert_non_null(peek(bob, "chat_message", room, 1));
    h_free(h);
}

/* The network layer drops a connection (thue_lobby_drop: slow, idle): goodbye with its
 * reason and code, nothing more sent, and the seat kept as after any lost connection. */
static void test_drop_for_a_reason(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann"), *bob = h_player(h, "Bob");
    char room[40];
    snprintf(room, sizeof room, "%s", h_room(h, ann, ""));
    h_send(h, bob, "{\"type\":\"join\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    thue_lobby_drop(h->lobby, ann->client, "slow", "the connection reads too slowly", 1008);
    json_t *bye = peek(ann, "goodbye", NULL, 1);
    assert_non_null(bye);
    assert_string_equal(str(bye, "reason"), "slow");
    assert_int_equal(ann->close_code, 1008);
    /* a second drop (idle, say) while closing changes nothing */
    int n = ann->n;
    thue_lobby_drop(h->lobby, ann->client, "idle", "no traffic from the client", 1001);
    assert_int_equal(ann->close_code, 1008);
    h_send(h, bob, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"anyone?\"}", room);
    expect_ok(bob, "ok");
    assert_int_equal(ann->n, n); /* nothing more for the dropped connection */
    h_disconnect(h, ann);
    json_t *s = latest_state(bob, room);
    json_t *seat0 = json_array_get(json_object_get(s, "players"), 0);
    assert_string_equal(str(seat0, "name"), "Ann");
    assert_true(json_is_false(json_object_get(seat0, "connected")));
    h_free(h);
}

static void test_grace_and_clock(void **st)
{
    (void)st;
    harness *h = h_new(1, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann"), *bob = h_player(h, "Bob");
    char room[40];
    snprintf(room, sizeof room, "%s", h_room(h, ann, ""));
    h_send(h, bob, "{\"type\":\"join\",\"room\":\"%s\"}", room);
    h_send(h, ann, "{\"type\":\"ready\",\"room\":\"%s\"}", room);
    h_send(h, bob, "{\"type\":\"ready\",\"room\":\"%s\"}", room);
    h_disconnect(h, ann);
    json_t *end = h_wait(h, bob, "match_end", room);
    assert_string_equal(str(json_object_get(end, "result"), "reason"), "abandon");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(end, "result"), "winner")), 1);
    /* a clock: Cy is to move and never does */
    thue_conn *cy = h_player(h, "Cy");
    char room2[40];
    snprintf(room2, sizeof room2, "%s",
             h_room(h, cy, ",\"clock\":{\"initial_ms\":1000,\"increment_ms\":0}"));
    h_send(h, bob, "{\"type\":\"join\",\"room\":\"%s\"}", room2);
    h_send(h, cy, "{\"type\":\"ready\",\"room\":\"%s\"}", room2);
    h_send(h, bob, "{\"type\":\"ready\",\"room\":\"%s\"}", room2);
    end = h_wait(h, bob, "match_end", room2);
    assert_string_equal(str(json_object_get(end, "result"), "reason"), "timeout");
    json_t *s = latest_state(bob, room2);
    assert_int_equal(json_integer_value(json_array_get(mget(s, "clocks"), 0)), 0);
    h_free(h);
}

static void test_quick_match(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann"), *bob = h_player(h, "Bob");
    h_send(h, ann, "{\"type\":\"queue_join\",\"variant\":\"square\",\"k\":4}");
    expect_ok(ann, "ok");
    h_send(h, bob, "{\"type\":\"queue_join\",\"variant\":\"square\",\"k\":4}");
    expect_ok(bob, "ok");
    json_t *fa = peek(ann, "match_found", NULL, 1), *fb = peek(bob, "match_found", NULL, 1);
    assert_non_null(fa);
    assert_non_null(fb);
    assert_string_equal(str(fa, "room"), str(fb, "room"));
    json_t *s = latest_state(ann, str(fa, "room"));
    assert_string_equal(str(s, "status"), "playing");
    thue_conn *cy = h_player(h, "Cy");
    h_send(h, cy, "{\"type\":\"queue_join\",\"variant\":\"square\",\"k\":5,\"bot_after_s\":1}");
    expect_ok(cy, "ok");
    json_t *fc = h_wait(h, cy, "match_found", NULL);
    s = latest_state(cy, str(fc, "room"));
    json_t *players = json_object_get(s, "players");
    assert_string_equal(str(json_array_get(players, 1), "kind"), "bot");
    h_free(h);
}

/* Shutting down with bots searching: goodbye to every client, jobs cancelled, and the
 * lobby, pool and loop close cleanly (the sanitizers check for leaks). */
static void test_shutdown_with_jobs(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann");
    h_send(h, ann, "{\"type\":\"create_room\",\"k\":5,\"limit\":1000,\"seat\":false}");
    const char *room = str(reply(ann), "room");
    h_send(h, ann, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", room);
    h_send(h, ann, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", room);
    assert_true(h->metrics.bot_jobs_submitted >= 1);
    thue_lobby_shutdown(h->lobby);
    json_t *bye = peek(ann, "goodbye", NULL, 1);
    assert_non_null(bye);
    assert_string_equal(str(bye, "reason"), "shutdown");
    assert_int_equal(ann->close_code, 1001);
    assert_int_equal(h->metrics.bot_jobs_cancelled, 1);
    assert_null(thue_lobby_connected(h->lobby, NULL, "x")); /* refused while stopping */
    h_free(h);
}

/* Runs the loop for ms milliseconds. */
static void h_sleep(harness *h, uint64_t ms)
{
    uv_timer_t guard;
    uv_timer_init(&h->loop, &guard);
    uv_timer_start(&guard, tick, 5, 5);
    uint64_t until = uv_now(&h->loop) + ms;
    while (uv_now(&h->loop) < until)
        uv_run(&h->loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&guard, NULL);
    uv_run(&h->loop, UV_RUN_NOWAIT);
}

/* A room left before its first match is removed at once; a finished room, and a room
 * nobody is in whose match started, are removed after room_linger_s; a room in use
 * stays. */
static void test_rooms_linger(void **st)
{
    (void)st;
    linger_s = 1;
    harness *h = h_new(60, 1000, 1000);
    linger_s = 300;
    thue_conn *ann = h_player(h, "Ann"), *bob = h_player(h, "Bob"), *cy = h_player(h, "Cy");
    char played[40], empty[40], used[40], bots[40];
    snprintf(played, sizeof played, "%s", h_room(h, ann, ""));
    h_send(h, bob, "{\"type\":\"join\",\"room\":\"%s\"}", played);
    h_send(h, ann, "{\"type\":\"ready\",\"room\":\"%s\"}", played);
    h_send(h, bob, "{\"type\":\"ready\",\"room\":\"%s\"}", played);
    h_send(h, ann, "{\"type\":\"resign\",\"room\":\"%s\"}", played);
    expect_ok(ann, "ok");
    snprintf(empty, sizeof empty, "%s", h_room(h, cy, ""));
    snprintf(used, sizeof used, "%s", h_room(h, cy, ""));
    snprintf(bots, sizeof bots, "%s", h_room(h, bob, ",\"seat\":false,\"limit\":1000"));
    h_send(h, bob,
           "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", bots);
    h_send(h, bob,
           "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", bots);
    h_send(h, bob, "{\"type\":\"spectate\",\"room\":\"%s\"}", bots);
    expect_ok(bob, "ok");
    assert_int_equal(h->metrics.rooms, 4);
    /* left before its first match: gone at once */
    h_send(h, cy, "{\"type\":\"leave\",\"room\":\"%s\"}", empty);
    expect_ok(cy, "ok");
    assert_int_equal(h->metrics.rooms, 3);
    assert_int_equal(cy->client != NULL, 1);
    h_send(h, bob, "{\"type\":\"spectate\",\"room\":\"%s\"}", empty);
    expect_code(bob, "no_such_room");
    /* its match started: it waits for somebody to come back */
    h_send(h, bob, "{\"type\":\"leave\",\"room\":\"%s\"}", bots);
    expect_ok(bob, "ok");
    assert_int_equal(h->metrics.rooms, 3);
    h_sleep(h, 1500);
    assert_int_equal(h->metrics.rooms, 1);
    h_send(h, bob, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"gg\"}", played);
    expect_code(bob, "no_such_room");
    h_send(h, bob, "{\"type\":\"spectate\",\"room\":\"%s\"}", bots);
    expect_code(bob, "no_such_room");
    h_send(h, bob, "{\"type\":\"spectate\",\"room\":\"%s\"}", used);
    expect_ok(bob, "ok");
    h_free(h);
}

/* A room made and never used goes as soon as its creator's session ends (the grace
 * period over), whether the creator sat in it or not. */
static void test_unused_room_goes_with_creator(void **st)
{
    (void)st;
    harness *h = h_new(0, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann"), *bob = h_player(h, "Bob");
    h_room(h, ann, "");
    h_room(h, ann, ",\"seat\":false");
    h_send(h, ann, "{\"type\":\"create_room\",\"seat\":false}");
    char room[40];
    snprintf(room, sizeof room, "%s", str(reply(ann), "room"));
    h_send(h, ann, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\"}", room);
    expect_ok(ann, "ok");
    h_send(h, bob, "{\"type\":\"spectate\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    assert_int_equal(h->metrics.rooms, 3);
    h_disconnect(h, ann);                  /* grace 0: the session ends now */
    assert_int_equal(h->metrics.rooms, 1); /* Bob still watches the third */
    h_send(h, bob, "{\"type\":\"leave\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    assert_int_equal(h->metrics.rooms, 0);
    h_free(h);
}

/* Bots stop thinking for a room nobody is in, and start again when somebody comes. */
static void test_empty_room_pauses_bots(void **st)
{
    (void)st;
    harness *h = h_new(0, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann"), *bob = h_player(h, "Bob");
    h_send(h, ann, "{\"type\":\"create_room\",\"k\":5,\"limit\":1000,\"seat\":false}");
    char room[40];
    snprintf(room, sizeof room, "%s", str(reply(ann), "room"));
    h_send(h, ann, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", room);
    h_send(h, ann, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", room);
    assert_int_equal(h->metrics.bot_jobs_submitted, 1);
    h_disconnect(h, ann); /* grace 0: the creator's session ends at once */
    assert_int_equal(h->metrics.bot_jobs_cancelled, 1);
    h_send(h, bob, "{\"type\":\"spectate\",\"room\":\"%s\"}", room);
    expect_ok(bob, "ok");
    assert_int_equal(h->metrics.bot_jobs_submitted, 2);
    json_t *s = latest_state(bob, room);
    assert_false(json_is_null(mget(s, "thinking")));
    h_free(h);
}

/* Pearson's chi-square of counts against a uniform distribution over n cells. */
static double chi_square(const long *counts, int n, long total)
{
    double want = (double)total / n, x = 0;
    for (int i = 0; i < n; i++)
        x += ((double)counts[i] - want) * ((double)counts[i] - want) / want;
    return x;
}

/* Keys from the kernel's generator: every character of the alphabet equally likely. A
 * modulo bias (byte % 36 favours 4 characters by 8/7) gives a chi-square near 700 here;
 * a uniform draw about 35 (n - 1), and above 100 with a probability below 1e-8. */
static void test_random_keys(void **st)
{
    (void)st;
    static const char *const alphabets[] = {LOBBY_ID_ALPHABET, LOBBY_INVITE_ALPHABET};
    static const double bound[] = {100, 140}; /* 35 and 56 degrees of freedom */
    for (int a = 0; a < 2; a++) {
        int n = (int)strlen(alphabets[a]);
        long counts[256] = {0}, total = 0;
        char key[65];
        while (total < 10000L * n) {
            assert_int_equal(lobby_random_key(key, 64, alphabets[a]), 0);
            assert_int_equal(strlen(key), 64);
            for (int i = 0; i < 64; i++) {
                const char *at = strchr(alphabets[a], key[i]);
                assert_non_null(at);
                counts[at - alphabets[a]]++;
            }
            total += 64;
        }
        double x = chi_square(counts, n, total);
        if (!(x < bound[a]))
            fail_msg("alphabet of %d: chi-square %.1f over %ld characters", n, x, total);
    }
}

/* A private room is invisible to strangers: a wrong or missing invite, and commands for
 * it from someone not in it, get the answer of a room that does not exist. Room ids and
 * invite codes have the forms PROTOCOL.md states. */
static void test_private_room_hidden(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *ann = h_player(h, "Ann"), *eve = h_player(h, "Eve");
    h_send(h, ann, "{\"type\":\"create_room\",\"private\":true}");
    json_t *made = reply(ann);
    assert_string_equal(str(made, "type"), "room_created");
    char room[40], invite[40];
    snprintf(room, sizeof room, "%s", str(made, "room"));
    snprintf(invite, sizeof invite, "%s", str(made, "invite"));
    assert_int_equal(strlen(room), 1 + LOBBY_ID_CHARS);
    assert_int_equal(room[0], 'r');
    assert_int_equal(strspn(room + 1, LOBBY_ID_ALPHABET), LOBBY_ID_CHARS);
    assert_int_equal(strlen(invite), LOBBY_INVITE_CHARS);
    assert_int_equal(strspn(invite, LOBBY_INVITE_ALPHABET), LOBBY_INVITE_CHARS);
    h_send(h, eve, "{\"type\":\"join\",\"room\":\"rnosuchroom\"}");
    json_t *none = reply(eve);
    assert_string_equal(str(none, "code"), "no_such_room");
    char wrong[40];
    snprintf(wrong, sizeof wrong, "%s", invite);
    wrong[0] = wrong[0] == 'A' ? 'B' : 'A';
    const char *tries[] = {
        "{\"type\":\"join\",\"room\":\"%s\",\"invite\":\"%s\"}",
        "{\"type\":\"spectate\",\"room\":\"%s\",\"invite\":\"%s\"}",
        "{\"type\":\"join\",\"room\":\"%s\"}",
        "{\"type\":\"leave\",\"room\":\"%s\"}",
        "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"hi\"}",
        "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\"}",
    };
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        h_send(h, eve, tries[i], room, wrong);
        json_t *r = reply(eve);
        assert_string_equal(str(r, "code"), "no_such_room");
        assert_string_equal(str(r, "field"), "room");
        assert_string_equal(str(r, "message"), str(none, "message"));
    }
    h_send(h, eve, "{\"type\":\"join\",\"room\":\"%s\",\"invite\":\"%s\"}", room, invite);
    expect_ok(eve, "ok");
    h_send(h, eve, "{\"type\":\"chat\",\"room\":\"%s\",\"text\":\"hi\"}", room);
    expect_ok(eve, "ok");
    h_free(h);
}

/* Rooms made per address are limited (create_room and quick match together), and quick
 * match says when it cannot make a room: server_busy at once when the server is full,
 * queue_failed when bot_after_s comes and no room can be made, rate_limited for a
 * pairing the joiner's address cannot pay for (the waiting player stays queued). */
static void test_room_rate_and_quick_match(void **st)
{
    (void)st;
    max_rooms = 4;
    room_rate = 3;
    harness *h = h_new(60, 1000, 1000);
    max_rooms = 100;
    room_rate = 0;
    static const char queue[] = "{\"type\":\"queue_join\",\"variant\":\"square\",\"k\":4%s}";
    thue_conn *ann = h_player_from(h, "Ann", "203.0.113.1");
    thue_conn *ann2 = h_player_from(h, "Ann2", "203.0.113.1"); /* the same address */
    for (int i = 0; i < 2; i++)
        h_room(h, ann, "");
    h_room(h, ann2, "");
    h_send(h, ann2, "{\"type\":\"create_room\"}");
    json_t *r = reply(ann2);
    assert_string_equal(str(r, "code"), "rate_limited");
    assert_non_null(strstr(str(r, "message"), "3 rooms a minute"));
    assert_non_null(strstr(str(r, "message"), "in 20 s"));
    /* another address is not held back; it fills the server */
    thue_conn *bob = h_player_from(h, "Bob", "203.0.113.2");
    char bobs[40];
    snprintf(bobs, sizeof bobs, "%s", h_room(h, bob, ""));
    thue_conn *cy = h_player_from(h, "Cy", "203.0.113.3");
    h_send(h, cy, queue, "");
    expect_code(cy, "server_busy");
    /* room again: Cy waits for a bot, but the server is full when the bot is due */
    h_send(h, bob, "{\"type\":\"leave\",\"room\":\"%s\"}", bobs);
    expect_ok(bob, "ok");
    assert_int_equal(h->metrics.rooms, 3);
    h_send(h, cy, queue, ",\"bot_after_s\":1");
    expect_ok(cy, "ok");
    snprintf(bobs, sizeof bobs, "%s", h_room(h, bob, ""));
    json_t *failed = h_wait(h, cy, "queue_failed", NULL);
    assert_string_equal(str(failed, "code"), "server_busy");
    assert_non_null(strstr(str(failed, "message"), "(4)"));
    assert_null(peek(cy, "match_found", NULL, 0));
    /* Cy is out of the queue: Eve, next, waits alone */
    h_send(h, bob, "{\"type\":\"leave\",\"room\":\"%s\"}", bobs);
    expect_ok(bob, "ok");
    thue_conn *eve = h_player_from(h, "Eve", "203.0.113.5");
    h_send(h, eve, queue, "");
    expect_ok(eve, "ok");
    assert_null(peek(eve, "match_found", NULL, 0));
    assert_null(peek(cy, "match_found", NULL, 0));
    /* Ann's address has no room left: her pairing is refused, Eve keeps waiting */
    h_send(h, ann, queue, "");
    r = reply(ann);
    assert_string_equal(str(r, "code"), "rate_limited");
    assert_null(peek(eve, "match_found", NULL, 0));
    thue_conn *fay = h_player_from(h, "Fay", "2001:db8:1:2::7");
    h_send(h, fay, queue, "");
    expect_ok(fay, "ok");
    json_t *fe = peek(eve, "match_found", NULL, 1), *ff = peek(fay, "match_found", NULL, 1);
    assert_non_null(fe);
    assert_non_null(ff);
    assert_string_equal(str(fe, "room"), str(ff, "room"));
    h_free(h);
}

/* A harness with a database in memory (accounts, tournaments). */
static thue_store *h_store(harness *h)
{
    char err[256];
    thue_store *store = thue_store_open(":memory:", err, sizeof err);
    assert_non_null(store);
    assert_int_equal(thue_store_start(store, &h->loop), 0);
    thue_lobby_set_store(h->lobby, store);
    return store;
}

/* Closes the store (its callbacks need the lobby), then the harness. */
static void h_free_store(harness *h, thue_store *store)
{
    int closed = 0;
    thue_store_close(store, store_closed, &closed);
    while (!closed)
        uv_run(&h->loop, UV_RUN_ONCE);
    thue_lobby_set_store(h->lobby, NULL);
    h_free(h);
}

/* A player from peer with an account of that name. */
static thue_conn *h_account(harness *h, const char *name, const char *peer)
{
    thue_conn *c = h_player_from(h, name, peer);
    h_send(h, c, "{\"type\":\"claim_name\",\"name\":\"%s\"}", name);
    h_wait(h, c, "account", NULL);
    return c;
}

static const char new_tournament[] =
    "{\"type\":\"create_tournament\",\"name\":\"T\",\"format\":\"round_robin\","
    "\"variant\":\"square\",\"k\":2,\"limit\":3,\"max_players\":4}";

/* The reply to create_tournament: the new id, or NULL with *code set. */
static const char *h_tournament(harness *h, thue_conn *c, const char **code)
{
    h_send(h, c, new_tournament);
    json_t *r = reply(c);
    *code = str(r, "code");
    return str(r, "tournament");
}

/* Tournaments are limited: per account and per address (open ones), in all (open and
 * running), and per hour; each refusal says which limit it met. */
static void test_tournament_limits(void **st)
{
    (void)st;
    tour_cfg = (thue_lobby_config){.max_tournaments = 4,
                                   .tournaments_per_account = 2,
                                   .tournaments_per_ip = 3,
                                   .tournament_rate = 100};
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    const char *code;
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    thue_conn *bob = h_account(h, "Bob", "198.51.100.1");
    thue_conn *cy = h_account(h, "Cy", "2001:db8:0:1::1");
    thue_conn *cy2 = h_account(h, "Cyd", "2001:db8:0:1::2"); /* the same /64 */
    thue_conn *dan = h_account(h, "Dan", "198.51.100.4");
    assert_non_null(h_tournament(h, ann, &code));
    assert_non_null(h_tournament(h, ann, &code));
    assert_null(h_tournament(h, ann, &code));
    assert_string_equal(code, "not_allowed");
    assert_non_null(strstr(str(reply(ann), "message"), "2 open tournaments"));
    assert_non_null(h_tournament(h, bob, &code));
    assert_null(h_tournament(h, bob, &code));
    assert_string_equal(code, "not_allowed");
    assert_non_null(strstr(str(reply(bob), "message"), "your address has 3"));
    assert_non_null(h_tournament(h, cy, &code));
    assert_null(h_tournament(h, cy2, &code)); /* the server is full: 4 open */
    assert_string_equal(code, "server_busy");
    assert_null(h_tournament(h, dan, &code));
    assert_string_equal(code, "server_busy");
    h_free_store(h, store);

    /* the hourly rate, per account and per address */
    tour_cfg = (thue_lobby_config){.tournament_rate = 2, .tournaments_per_account = 10};
    h = h_new(60, 1000, 1000);
    tour_cfg = (thue_lobby_config){0};
    store = h_store(h);
    thue_conn *eve = h_account(h, "Eve", "198.51.100.5");
    thue_conn *eve2 = h_account(h, "Evie", "198.51.100.5");
    thue_conn *fay = h_account(h, "Fay", "198.51.100.6");
    assert_non_null(h_tournament(h, eve, &code));
    assert_non_null(h_tournament(h, eve, &code));
    assert_null(h_tournament(h, eve, &code));
    assert_string_equal(code, "rate_limited");
    const char *why = str(reply(eve), "message");
    assert_non_null(strstr(why, "2 tournaments an hour"));
    assert_non_null(strstr(why, "in 31 min"));
    assert_null(h_tournament(h, eve2, &code)); /* another account, the same address */
    assert_string_equal(code, "rate_limited");
    assert_non_null(h_tournament(h, fay, &code));
    h_free_store(h, store);
}

/* list_tournaments gives one page, newest first, with the total; so does the HTTP API. */
static void test_tournament_pages(void **st)
{
    (void)st;
    tour_cfg = (thue_lobby_config){.tournaments_per_account = 20, .tournament_rate = 20};
    harness *h = h_new(60, 1000, 1000);
    tour_cfg = (thue_lobby_config){0};
    thue_store *store = h_store(h);
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    const char *code;
    char ids[7][40];
    for (int i = 0; i < 7; i++)
        snprintf(ids[i], sizeof ids[i], "%s", h_tournament(h, ann, &code));
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"id\":1}");
    json_t *r = reply(ann);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 7);
    assert_int_equal(json_array_size(json_object_get(r, "tournaments")), 7);
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"offset\":2,\"count\":3}");
    r = reply(ann);
    assert_int_equal(json_integer_value(json_object_get(r, "offset")), 2);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 7);
    json_t *list = json_object_get(r, "tournaments");
    assert_int_equal(json_array_size(list), 3);
    for (int i = 0; i < 3; i++) /* newest first: the 5th, 4th and 3rd made */
        assert_string_equal(str(json_array_get(list, (size_t)i), "tournament"), ids[4 - i]);
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"status\":\"running\"}");
    r = reply(ann);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 0);
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"offset\":7}");
    r = reply(ann);
    assert_int_equal(json_array_size(json_object_get(r, "tournaments")), 0);
    char *text = thue_lobby_tournaments_json(h->lobby, 0, 6, 50);
    assert_non_null(text);
    assert_memory_equal(text, "{\"offset\":6,\"total\":7,\"tournaments\":[{\"tournament\":\"", 48);
    assert_non_null(strstr(text, ids[0]));
    free(text);
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"count\":201}");
    expect_code(ann, "bad_message");
    h_free_store(h, store);
}

/* An open tournament that is not started in time expires: its entrants and watchers
 * hear it and it is gone; a started one stays. */
static void test_tournament_expiry(void **st)
{
    (void)st;
    tour_cfg = (thue_lobby_config){.tournament_expire_s = 1};
    harness *h = h_new(60, 1000, 1000);
    tour_cfg = (thue_lobby_config){0};
    thue_store *store = h_store(h);
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    thue_conn *bob = h_account(h, "Bob", "198.51.100.2");
    thue_conn *eve = h_player_from(h, "Eve", "198.51.100.3");
    const char *code;
    char idle[40], started[40];
    snprintf(idle, sizeof idle, "%s", h_tournament(h, ann, &code));
    snprintf(started, sizeof started, "%s", h_tournament(h, ann, &code));
    h_send(h, bob, "{\"type\":\"join_tournament\",\"tournament\":\"%s\"}", idle);
    expect_ok(bob, "ok");
    h_send(h, eve, "{\"type\":\"get_tournament\",\"tournament\":\"%s\"}", idle);
    expect_ok(eve, "tournament");
    h_send(h, ann, "{\"type\":\"join_tournament\",\"tournament\":\"%s\",\"bot\":\"greedy\"}",
           started);
    expect_ok(ann, "ok");
    h_send(h, ann, "{\"type\":\"join_tournament\",\"tournament\":\"%s\",\"bot\":\"nested:1\"}",
           started);
    expect_ok(ann, "ok");
    h_send(h, ann, "{\"type\":\"start_tournament\",\"tournament\":\"%s\"}", started);
    expect_ok(ann, "ok");
    for (int i = 0; i < 3; i++) {
        thue_conn *c = i == 0 ? ann : i == 1 ? bob : eve;
        json_t *ev;
        do
            ev = h_wait(h, c, "tournament_event", NULL);
        while (strcmp(str(ev, "event"), "expired") != 0);
        assert_string_equal(str(ev, "tournament"), idle);
    }
    h_send(h, bob, "{\"type\":\"get_tournament\",\"tournament\":\"%s\"}", idle);
    expect_code(bob, "no_such_tournament");
    h_send(h, bob, "{\"type\":\"get_tournament\",\"tournament\":\"%s\"}", started);
    expect_ok(bob, "tournament");
    h_send(h, ann, "{\"type\":\"list_tournaments\"}");
    json_t *r = reply(ann);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 1);
    h_free_store(h, store);
}

/* At start-up, more stored open tournaments than the server takes: the newest beyond
 * the limit expire, and what stays is listed newest first. */
static void test_tournament_load_many(void **st)
{
    (void)st;
    tour_cfg = (thue_lobby_config){.max_tournaments = 50};
    harness *h = h_new(60, 1000, 1000);
    tour_cfg = (thue_lobby_config){0};
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    int64_t now = tv.tv_sec * 1000 - 3600000; /* an hour ago: none has expired yet */
    for (int i = 0; i < 3000; i++) {
        char id[40], state[1024];
        snprintf(id, sizeof id, "t%05d", i);
        snprintf(state, sizeof state,
                 "{\"id\":\"%s\",\"name\":\"Flood %d\",\"format\":0,\"variant\":0,\"k\":3,"
                 "\"limit\":100,\"clock\":false,\"initial_ms\":0,\"increment_ms\":0,"
                 "\"rounds_asked\":0,\"max_players\":256,\"status\":0,\"creator\":\"X\","
                 "\"nrounds\":0,\"lot\":0,\"entrants\":[],\"rounds\":[],\"created_ms\":%lld}",
                 id, i, (long long)(now + i));
        thue_lobby_load_tournament(h->lobby, id, state);
    }
    thue_store *store = h_store(h);
    thue_lobby_resume_tournaments(h->lobby);
    char *text = thue_lobby_tournaments_json(h->lobby, -1, 0, 1);
    assert_non_null(text);
    /* the oldest 50 stay; the newest of them lists first */
    assert_memory_equal(
        text, "{\"offset\":0,\"total\":50,\"tournaments\":[{\"tournament\":\"t00049\"", 58);
    free(text);
    h_free_store(h, store);
}


/* ---- the ladder cache, against a plain sort ------------------------------------------- */

typedef struct naive_row {
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    int kind; /* THUE_KIND_ACCOUNT or THUE_KIND_BOT */
    double rating, rd;
    int games;
} naive_row;

static int naive_order(const void *x, const void *y)
{
    const naive_row *a = x, *b = y;
    if (a->rating != b->rating)
        return a->rating > b->rating ? -1 : 1;
    return a->rd < b->rd ? -1 : a->rd > b->rd ? 1 : 0;
}

/* Every page of the ladder of (square, 5, kind) equals the plain sort of rows. */
static void check_ladder(harness *h, const naive_row *all, int n, thue_ladder_kind kind)
{
    naive_row *want = calloc((size_t)n + 1, sizeof *want);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (all[i].games > 0 && (kind == THUE_LADDER_ALL ||
                                 (kind == THUE_LADDER_HUMAN) == (all[i].kind == THUE_KIND_ACCOUNT)))
            want[m++] = all[i];
    qsort(want, (size_t)m, sizeof *want, naive_order);
    for (int offset = 0; offset <= m; offset += 37) {
        char *text = thue_lobby_ladder_json(h->lobby, THUE_SQUARE, 5, kind, offset, 37);
        assert_non_null(text);
        json_error_t e;
        json_t *j = json_loads(text, 0, &e);
        assert_non_null(j);
        assert_int_equal(json_integer_value(json_object_get(j, "total")), m);
        json_t *entries = json_object_get(j, "entries");
        int expect = m - offset < 37 ? m - offset : 37;
        assert_int_equal((int)json_array_size(entries), expect);
        for (int i = 0; i < expect; i++) {
            json_t *x = json_array_get(entries, (size_t)i);
            assert_string_equal(str(x, "name"), want[offset + i].name);
            assert_int_equal(json_integer_value(json_object_get(x, "rank")), offset + i + 1);
            double got = json_number_value(json_object_get(x, "rating"));
            assert_true(got > want[offset + i].rating - 0.5 && got < want[offset + i].rating + 0.5);
        }
        json_decref(j);
        free(text);
    }
    free(want);
}

static void test_ladder_cache(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    enum { N = 300 };
    naive_row rows[N];
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        thue_account_row a;
        memset(&a, 0, sizeof a);
        a.id = 1000 + i;
        a.kind = i % 7 == 0 ? THUE_KIND_BOT : THUE_KIND_ACCOUNT;
        snprintf(a.name, sizeof a.name, "%s%d", a.kind == THUE_KIND_BOT ? "Bot-" : "Player", i);
        if (a.kind == THUE_KIND_BOT)
            snprintf(a.bot, sizeof a.bot, "nested:%d", i);
        else
            a.token_hash[0] = (unsigned char)(i + 1), a.token_hash[1] = (unsigned char)(i >> 8) + 1;
        thue_lobby_load_account(h->lobby, &a);
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        /* Distinct (rating, rd) pairs, some ratings equal: the order never falls to names. */
        naive_row *r = &rows[i];
        snprintf(r->name, sizeof r->name, "%s", a.name);
        r->kind = a.kind;
        r->rating = 1200 + (double)((x >> 33) % 200);
        r->rd = 50 + i;
        r->games = i % 11 == 0 ? 0 : 1 + (int)(x % 5);
        thue_rating_row g = {.account = a.id, .variant = THUE_SQUARE, .k = 5,
                             .rating = r->rating, .rd = r->rd, .vol = 0.06, .games = r->games};
        thue_lobby_load_rating(h->lobby, &g);
    }
    for (int kind = THUE_LADDER_ALL; kind <= THUE_LADDER_BOT; kind++)
        check_ladder(h, rows, N, (thue_ladder_kind)kind);
    /* Changes (as a rated match makes them) drop the cache: pages follow. */
    for (int round = 0; round < 3; round++) {
        for (int i = round; i < N; i += 5) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            rows[i].rating = 1000 + (double)((x >> 33) % 900);
            rows[i].games++;
            thue_rating_row g = {.account = 1000 + i, .variant = THUE_SQUARE, .k = 5,
                                 .rating = rows[i].rating, .rd = rows[i].rd, .vol = 0.06,
                                 .games = rows[i].games};
            thue_lobby_load_rating(h->lobby, &g);
        }
        for (int kind = THUE_LADDER_ALL; kind <= THUE_LADDER_BOT; kind++)
            check_ladder(h, rows, N, (thue_ladder_kind)kind);
    }
    /* Rated matches move their two rows in the cached ladders (ladder_moved), a player's
     * first rated game adds its row: pages still follow the plain sort. */
    for (int match = 0; match < 60; match++) {
        int seat[2];
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        seat[0] = (int)((x >> 33) % N);
        seat[1] = (seat[0] + 1 + (int)((x >> 13) % (N - 1))) % N;
        for (int s = 0; s < 2; s++) {
            int i = seat[s];
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            rows[i].rating = 1000 + (double)((x >> 33) % 900);
            rows[i].games++;
        }
        assert_int_equal(ladder_rate_pair(h->lobby, THUE_SQUARE, 5, 1000 + seat[0],
                                          rows[seat[0]].rating, rows[seat[0]].games, 1000 + seat[1],
                                          rows[seat[1]].rating, rows[seat[1]].games),
                         0);
        if (match % 10 == 9)
            for (int kind = THUE_LADDER_ALL; kind <= THUE_LADDER_BOT; kind++)
                check_ladder(h, rows, N, (thue_ladder_kind)kind);
    }
    h_free_store(h, store);
}

int main(void)
{
    thue_log_set_level(THUE_LOG_ERROR); /* the lobby's info lines are not the test's output */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_errors),
        cmocka_unit_test(test_full_match),
        cmocka_unit_test(test_rate_limit),
        cmocka_unit_test(test_bots_and_spectator),
        cmocka_unit_test(test_unsaved_record),
        cmocka_unit_test(test_resume_and_takeover),
        cmocka_unit_test(test_drop_for_a_reason),
        cmocka_unit_test(test_grace_and_clock),
        cmocka_unit_test(test_quick_match),
        cmocka_unit_test(test_shutdown_with_jobs),
        cmocka_unit_test(test_empty_room_pauses_bots),
        cmocka_unit_test(test_rooms_linger),
        cmocka_unit_test(test_random_keys),
        cmocka_unit_test(test_private_room_hidden),
        cmocka_unit_test(test_unused_room_goes_with_creator),
        cmocka_unit_test(test_room_rate_and_quick_match),
        cmocka_unit_test(test_tournament_limits),
        cmocka_unit_test(test_tournament_pages),
        cmocka_unit_test(test_tournament_expiry),
        cmocka_unit_test(test_tournament_load_many),
        cmocka_unit_test(test_ladder_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
