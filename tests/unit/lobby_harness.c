/*
 * lobby_harness.c: the fake network and the drivers of lobby_harness.h.
 */
#include "lobby_harness.h"

void fake_send(void *ctx, thue_conn *conn, const char *text, size_t len)
{
    (void)ctx;
    json_error_t e;
    json_t *j = json_loadb(text, len, 0, &e);
    assert_non_null(j); /* the lobby writes valid JSON */
    assert_true(conn->n < 4096);
    conn->inbox[conn->n++] = j;
    conn->last_text = text;
}

void fake_close(void *ctx, thue_conn *conn, int code, const char *reason)
{
    (void)ctx, (void)reason;
    conn->close_code = code;
}

int linger_s = 300; /* room_linger_s of the next harness */

int max_rooms = 100; /* max_rooms of the next harness */

int room_rate = 0; /* room_rate_per_ip of the next harness (0: the default) */

thue_lobby_config tour_cfg; /* the tournament limits of the next harness (0s: defaults) */

harness *h_new(int grace_s, int rate, int burst)
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
    thue_lobby_hooks hooks = {.send = fake_send, .close = fake_close, .ctx = h};
    thue_lobby_set_hooks(h->lobby, &hooks);
    return h;
}

/* A connection from the address peer. */
thue_conn *h_connect_from(harness *h, const char *peer)
{
    thue_conn *c = calloc(1, sizeof *c);
    c->client = thue_lobby_connected(h->lobby, c, peer);
    assert_non_null(c->client);
    h->conns[h->nconns++] = c;
    return c;
}

thue_conn *h_connect(harness *h)
{
    return h_connect_from(h, "127.0.0.1");
}

void h_disconnect(harness *h, thue_conn *c)
{
    if (c->client) {
        thue_lobby_disconnected(h->lobby, c->client);
        c->client = NULL;
    }
}

void h_send(harness *h, thue_conn *c, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    thue_lobby_message(h->lobby, c->client, text, strlen(text));
}

int matches(json_t *m, const char *type, const char *room)
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
json_t *peek(thue_conn *c, const char *type, const char *room, int take)
{
    for (int i = 0; i < c->n; i++)
        if (!c->taken[i] && matches(c->inbox[i], type, room)) {
            c->taken[i] |= take;
            return c->inbox[i];
        }
    return NULL;
}

void tick(uv_timer_t *t)
{
    (void)t;
}

/* Runs the loop until `type` arrives on c (or 20 s pass: a failure). */
json_t *h_wait(harness *h, thue_conn *c, const char *type, const char *room)
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
json_t *reply(thue_conn *c)
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

const char *str(json_t *m, const char *key)
{
    return json_string_value(json_object_get(m, key));
}

void expect_code(thue_conn *c, const char *code)
{
    json_t *r = reply(c);
    assert_string_equal(str(r, "type"), "error");
    assert_string_equal(str(r, "code"), code);
}

void expect_ok(thue_conn *c, const char *type)
{
    json_t *r = reply(c);
    if (strcmp(str(r, "type"), type) != 0)
        fail_msg("expected %s, got %s (%s)", type, str(r, "type"),
                 str(r, "message") ? str(r, "message") : "");
}

void pool_closed(void *data)
{
    (void)data;
}

/* The lobby is closed: then the pool, as the server does it (main.c: a pool task of the
 * lobby's, such as a match's review, ends and gives its handle back before the pool goes). */
void closed_cb(void *data)
{
    harness *h = data;
    h->closed = 1;
    thue_pool_close(h->pool, pool_closed, NULL);
}

void h_free(harness *h)
{
    thue_lobby_shutdown(h->lobby);
    for (int i = 0; i < h->nconns; i++)
        h_disconnect(h, h->conns[i]);
    thue_lobby_close(h->lobby, closed_cb, h);
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

thue_conn *h_player_from(harness *h, const char *name, const char *peer)
{
    thue_conn *c = h_connect_from(h, peer);
    h_send(h, c, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", name);
    expect_ok(c, "welcome");
    return c;
}

thue_conn *h_player(harness *h, const char *name)
{
    thue_conn *c = h_connect(h);
    h_send(h, c, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", name);
    expect_ok(c, "welcome");
    return c;
}

/* Creates a room as a (k, first builder creator, extra members) and returns its id. */
const char *h_room(harness *h, thue_conn *a, const char *extra)
{
    h_send(h, a, "{\"type\":\"create_room\",\"k\":3,\"first_builder\":\"creator\"%s}", extra);
    json_t *r = reply(a);
    if (strcmp(str(r, "type"), "room_created") != 0)
        fail_msg("create_room: %s: %s", str(r, "code"), str(r, "message"));
    return str(r, "room");
}

json_t *latest_state(thue_conn *c, const char *room)
{
    for (int i = c->n - 1; i >= 0; i--)
        if (matches(c->inbox[i], "room_state", room))
            return c->inbox[i];
    return NULL;
}

json_t *mget(json_t *state, const char *key)
{
    return json_object_get(json_object_get(state, "match"), key);
}

void store_closed(void *data)
{
    (*(int *)data)++;
}

/* A harness with a database in memory (accounts, tournaments). */
thue_store *h_store(harness *h)
{
    char err[256];
    thue_store *store = thue_store_open(":memory:", err, sizeof err);
    assert_non_null(store);
    assert_int_equal(thue_store_start(store, &h->loop), 0);
    thue_lobby_set_store(h->lobby, store);
    return store;
}

/* Closes the store (its callbacks need the lobby), then the harness. */
void h_free_store(harness *h, thue_store *store)
{
    int closed = 0;
    thue_store_close(store, store_closed, &closed);
    while (!closed)
        uv_run(&h->loop, UV_RUN_ONCE);
    thue_lobby_set_store(h->lobby, NULL);
    h_free(h);
}

/* A player from peer with an account of that name. */
thue_conn *h_account(harness *h, const char *name, const char *peer)
{
    thue_conn *c = h_player_from(h, name, peer);
    h_send(h, c, "{\"type\":\"claim_name\",\"name\":\"%s\"}", name);
    h_wait(h, c, "account", NULL);
    return c;
}

int h_play(harness *h, thue_conn *c)
{
    int made = 0;
    for (int i = 0; i < c->n; i++) {
        json_t *m = c->inbox[i];
        if (!matches(m, "room_state", NULL))
            continue;
        const char *room = str(m, "room");
        json_t *s = latest_state(c, room);
        if (s != m) /* each room once: at its latest state */
            continue;
        json_t *you = json_object_get(s, "you"), *match = json_object_get(s, "match");
        if (!json_is_integer(you) || !json_is_object(match) ||
            strcmp(str(s, "status"), "playing") ||
            !json_is_null(json_object_get(match, "result")) ||
            json_integer_value(json_object_get(match, "to_move")) != json_integer_value(you))
            continue;
        const char *step = str(match, "step");
        if (strcmp(step, "place") == 0)
            h_send(h, c, "{\"type\":\"place\",\"room\":\"%s\",\"position\":0}", room);
        else
            h_send(h, c, "{\"type\":\"paint\",\"room\":\"%s\",\"symbol\":0}", room);
        expect_ok(c, "ok");
        made++;
    }
    return made;
}

json_t *h_wait_playing(harness *h, thue_conn *const *people, int n, thue_conn *c, const char *type,
                       int seconds)
{
    uv_timer_t guard;
    uv_timer_init(&h->loop, &guard);
    uv_timer_start(&guard, tick, 5, 5);
    uint64_t until = uv_now(&h->loop) + (uint64_t)seconds * 1000;
    json_t *m;
    while ((m = peek(c, type, NULL, 1)) == NULL && uv_now(&h->loop) < until) {
        for (int i = 0; i < n; i++)
            h_play(h, people[i]);
        uv_run(&h->loop, UV_RUN_ONCE);
    }
    uv_close((uv_handle_t *)&guard, NULL);
    uv_run(&h->loop, UV_RUN_NOWAIT);
    if (m == NULL)
        fail_msg("no %s message arrived in %d s", type, seconds);
    return m;
}
