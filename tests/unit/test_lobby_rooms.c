/*
 * test_lobby_rooms.c: rooms in the lobby (server/lobby), through lobby_harness.h: quick
 * match, shutdown with jobs on the pool, bots paused in an empty room, rooms that linger,
 * random keys, private rooms, an unused room that goes with its creator, the room rate
 * and quick match.
 */
#include "lobby_harness.h"

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

/* Quick match pairs a player with the longest-waiting player of the same queue (on one
 * node a queue holds one waiting player at most: the next join pairs). Random joins,
 * leaves and joins again over three queues, against a naive model (every player's queue
 * and when it joined, searched in full): the lobby's list of queued sessions must follow
 * every way in and out. */
static void test_quick_match_order(void **st)
{
    (void)st;
    enum { P = 24, STEPS = 400, NQ = 3 };
    harness *h = h_new(60, 1000, 1000);
    thue_conn *pl[P];
    int queue_of[P]; /* its queue; -1: not queued; -2: paired (done with) */
    uint64_t joined[P], seq = 0, rng = 0x5eed;
    for (int i = 0; i < P; i++) {
        char name[16], peer[32];
        snprintf(name, sizeof name, "P%d", i);
        snprintf(peer, sizeof peer, "10.1.0.%d", i + 1);
        pl[i] = h_player_from(h, name, peer);
        queue_of[i] = -1;
    }
    int pairings = 0;
    for (int step = 0; step < STEPS; step++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        int i = (int)((rng >> 33) % P);
        if (queue_of[i] == -2)
            continue;
        if (queue_of[i] >= 0 && (rng >> 20) % 4 == 0) {
            h_send(h, pl[i], "{\"type\":\"queue_leave\"}");
            expect_ok(pl[i], "ok");
            queue_of[i] = -1;
            continue;
        }
        int q = (int)((rng >> 40) % NQ);
        queue_of[i] = -1; /* joining again leaves the old place first */
        int best = -1;
        for (int j = 0; j < P; j++)
            if (queue_of[j] == q && (best < 0 || joined[j] < joined[best]))
                best = j;
        h_send(h, pl[i], "{\"type\":\"queue_join\",\"variant\":\"square\",\"k\":%d}", 4 + q);
        expect_ok(pl[i], "ok");
        if (best >= 0) {
            json_t *fa = peek(pl[i], "match_found", NULL, 1);
            json_t *fb = peek(pl[best], "match_found", NULL, 1);
            assert_non_null(fa);
            assert_non_null(fb);
            assert_string_equal(str(fa, "room"), str(fb, "room"));
            queue_of[i] = queue_of[best] = -2;
            pairings++;
        } else {
            assert_null(peek(pl[i], "match_found", NULL, 0));
            queue_of[i] = q;
            joined[i] = ++seq;
        }
    }
    /* Nobody else was paired behind the model's back. */
    for (int j = 0; j < P; j++)
        if (queue_of[j] != -2)
            assert_null(peek(pl[j], "match_found", NULL, 0));
    assert_true(pairings >= 5); /* the walk did pair (and leave, and join again) */
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
    h_send(h, ann,
           "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", room);
    h_send(h, ann,
           "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", room);
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
    h_send(h, ann,
           "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", room);
    h_send(h, ann,
           "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:2\",\"think_ms\":60000}", room);
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

int main(void)
{
    thue_log_set_level(THUE_LOG_ERROR); /* the lobby's info lines are not the test's output */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_match),
        cmocka_unit_test(test_quick_match_order),
        cmocka_unit_test(test_shutdown_with_jobs),
        cmocka_unit_test(test_empty_room_pauses_bots),
        cmocka_unit_test(test_rooms_linger),
        cmocka_unit_test(test_random_keys),
        cmocka_unit_test(test_private_room_hidden),
        cmocka_unit_test(test_unused_room_goes_with_creator),
        cmocka_unit_test(test_room_rate_and_quick_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
