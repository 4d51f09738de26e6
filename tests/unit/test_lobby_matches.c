/*
 * test_lobby_matches.c: matches in the lobby (server/lobby), through lobby_harness.h:
 * session errors, a full match, the rate limit, bots and a spectator, a record that
 * could not be saved, resume and takeover, drops for a reason, the grace period and the
 * clock.
 */
#include "lobby_harness.h"

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
    h_send(h, raw,
           "{\"type\":\"hello\",\"protocol\":1,\"resume\":\"0123456789abcdef0123456789abcdef\"}");
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
    thue_pool_stats ps;
    thue_pool_stats_get(h->pool, &ps);
    char *text = thue_metrics_render(&h->metrics, &ps, &len);
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
    h_send(h, host,
           "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\",\"seat\":0,\"think_ms\":100}",
           room);
    expect_ok(host, "ok");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:1\",\"seat\":0}",
           room);
    expect_code(host, "room_full");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:1\",\"think_ms\":100}",
           room);
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
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\",\"think_ms\":10}",
           room);
    expect_ok(host, "ok");
    h_send(h, host, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:1\",\"think_ms\":10}",
           room);
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
    assert_int_equal(json_integer_value(json_object_get(json_object_get(end, "result"), "winner")),
                     1);
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

int main(void)
{
    thue_log_set_level(THUE_LOG_ERROR); /* the lobby's info lines are not the test's output */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_errors),    cmocka_unit_test(test_full_match),
        cmocka_unit_test(test_rate_limit),        cmocka_unit_test(test_bots_and_spectator),
        cmocka_unit_test(test_unsaved_record),    cmocka_unit_test(test_resume_and_takeover),
        cmocka_unit_test(test_drop_for_a_reason), cmocka_unit_test(test_grace_and_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
