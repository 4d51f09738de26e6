/*
 * test_lobby_v2.c: thue.v2 in the lobby (PROTOCOL.md section 18), through its hooks.
 *
 * A move reaches every thue.v2 member of the room as one `played`, the very same buffer
 * for all of them, encoded once for the room (the metric thue_room_encodes_total grows by
 * one per subprotocol, whatever the number of spectators), while the
 * thue.v1 members get their room_state as before; a change that is not a move sends the
 * whole state under thue.v2 too, again one buffer for all, with `ref` and without `you`;
 * hello's protocol must be the connection's; sync answers ok and the state.
 */
#include "lobby_harness.h"

#define SPECTATORS 56

/* A connection of subprotocol proto that said hello as name. */
static thue_conn *player_v(harness *h, const char *name, int proto)
{
    thue_conn *c = h_connect(h);
    thue_lobby_set_protocol(c->client, proto);
    h_send(h, c, "{\"type\":\"hello\",\"protocol\":%d,\"name\":\"%s\"}", proto, name);
    expect_ok(c, "welcome");
    assert_int_equal(json_integer_value(json_object_get(c->inbox[c->n - 1], "protocol")), proto);
    return c;
}

static json_t *last(thue_conn *c)
{
    return c->n > 0 ? c->inbox[c->n - 1] : NULL;
}

static void test_v2_hello(void **state)
{
    (void)state;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *c = h_connect(h);
    thue_lobby_set_protocol(c->client, 2);
    h_send(h, c, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"Ann\"}");
    expect_code(c, "bad_protocol");
    h_send(h, c, "{\"type\":\"hello\",\"protocol\":2,\"name\":\"Ann\"}");
    expect_ok(c, "welcome");
    thue_conn *d = h_connect(h); /* thue.v1 by default */
    h_send(h, d, "{\"type\":\"hello\",\"protocol\":2,\"name\":\"Bob\"}");
    expect_code(d, "bad_protocol");
    h_free(h);
}

static void test_v2_one_buffer_per_move(void **state)
{
    (void)state;
    harness *h = h_new(60, 1000, 1000);
    thue_conn *ann = player_v(h, "Ann", 2);
    thue_conn *bob = player_v(h, "Bob", 1);
    thue_conn *old = player_v(h, "Old", 1); /* a thue.v1 spectator */
    thue_conn *sp[SPECTATORS];
    const char *room = h_room(h, ann, "");
    char id[64];
    snprintf(id, sizeof id, "%s", room);
    h_send(h, bob, "{\"type\":\"join\",\"room\":\"%s\"}", id);
    h_send(h, old, "{\"type\":\"spectate\",\"room\":\"%s\"}", id);
    int old_before = old->n;
    for (int i = 0; i < SPECTATORS; i++) {
        char name[16];
        snprintf(name, sizeof name, "S%d", i);
        sp[i] = player_v(h, name, 2);
        h_send(h, sp[i], "{\"type\":\"spectate\",\"room\":\"%s\"}", id);
        /* the newcomer: ok and the whole state (with the count) */
        assert_true(matches(last(sp[i]), "room_state", id));
        assert_int_equal(json_integer_value(json_object_get(last(sp[i]), "spectators")), i + 2);
    }
    /* thue.v2's members heard nothing of the others' arrivals (a state each would make
     * S x S states); thue.v1's heard of every one, as before; within a second, one
     * watchers each for thue.v2, with the count. */
    assert_int_equal(sp[0]->n, 3); /* welcome, ok, its state */
    assert_int_equal(old->n, old_before + SPECTATORS);
    json_t *w = h_wait(h, sp[0], "watchers", NULL);
    assert_int_equal(json_integer_value(json_object_get(w, "spectators")), SPECTATORS + 1);
    for (int i = 0; i < SPECTATORS; i++)
        assert_true(matches(last(sp[i]), "watchers", NULL));
    assert_true(matches(last(ann), "watchers", NULL));
    /* A change that is not a move: the whole state, one buffer for every thue.v2 member,
     * with ref and without you. */
    h_send(h, ann, "{\"type\":\"ready\",\"room\":\"%s\"}", id);
    json_t *st = last(sp[0]);
    assert_true(matches(st, "room_state", id));
    assert_non_null(json_object_get(st, "ref"));
    assert_null(json_object_get(st, "you"));
    for (int i = 1; i < SPECTATORS; i++)
        assert_ptr_equal(sp[i]->last_text, sp[0]->last_text);
    assert_true(matches(last(old), "room_state", id));
    assert_non_null(json_object_get(last(old), "you"));
    h_send(h, bob, "{\"type\":\"ready\",\"room\":\"%s\"}", id);
    json_int_t ref = json_integer_value(json_object_get(last(sp[0]), "ref"));
    json_int_t version = json_integer_value(json_object_get(last(sp[0]), "version"));
    json_int_t version1 = json_integer_value(json_object_get(last(old), "version"));
    /* Moves: Ann builds (seat 0, first_builder creator), Bob paints. */
    int moves = 0;
    for (int move = 0; move < 6; move++, moves++) {
        int counts[SPECTATORS];
        for (int i = 0; i < SPECTATORS; i++)
            counts[i] = sp[i]->n;
        uint64_t enc[2] = {h->metrics.room_encodes[0], h->metrics.room_encodes[1]};
        int old_n = old->n;
        /* whose step, from the thue.v1 spectator's state */
        json_t *m = json_object_get(last(old), "match");
        if (strcmp(str(last(old), "status"), "playing") != 0)
            break;
        thue_conn *mc = json_integer_value(json_object_get(m, "to_move")) == 0 ? ann : bob;
        bool place = strcmp(str(m, "step"), "place") == 0;
        if (place)
            h_send(h, mc, "{\"type\":\"place\",\"room\":\"%s\",\"position\":1}", id);
        else
            h_send(h, mc, "{\"type\":\"paint\",\"room\":\"%s\",\"symbol\":%d}", id, move % 3);
        json_t *r = NULL;
        for (int i = mc->n - 1; i >= 0 && r == NULL; i--)
            if (matches(mc->inbox[i], "ok", NULL) || matches(mc->inbox[i], "error", NULL))
                r = mc->inbox[i];
        if (r == NULL || strcmp(str(r, "type"), "ok") != 0)
            fail_msg("move %d: %s: %s", move, r ? str(r, "code") : "-", r ? str(r, "message") : "-");
        /* one encoding per subprotocol for the whole room */
        assert_int_equal(h->metrics.room_encodes[0], enc[0] + 1);
        assert_int_equal(h->metrics.room_encodes[1], enc[1] + 1);
        for (int i = 0; i < SPECTATORS; i++) {
            assert_int_equal(sp[i]->n, counts[i] + 1); /* one message each */
            assert_ptr_equal(sp[i]->last_text, sp[0]->last_text); /* the same buffer */
        }
        json_t *p = last(sp[0]);
        assert_true(matches(p, "played", NULL));
        assert_int_equal(json_integer_value(json_object_get(p, "ref")), ref);
        assert_int_equal(json_integer_value(json_object_get(p, "version")), ++version);
        assert_null(json_object_get(p, "seat"));
        json_t *mv = json_object_get(p, "move");
        assert_non_null(json_object_get(mv, place ? "place" : "paint"));
        /* Ann (thue.v2) got the same buffer, after her ok when she moved */
        assert_ptr_equal(ann->last_text, sp[0]->last_text);
        /* the thue.v1 members: a room_state of the same version */
        assert_int_equal(old->n, old_n + 1);
        assert_true(matches(last(old), "room_state", id));
        assert_int_equal(json_integer_value(json_object_get(last(old), "version")), ++version1);
        assert_true(matches(last(bob), "room_state", id));
    }
    assert_int_equal(moves, 6);
    /* sync: ok, then the whole state of the same version */
    h_send(h, sp[3], "{\"type\":\"sync\",\"id\":5,\"room\":\"%s\"}", id);
    assert_true(matches(sp[3]->inbox[sp[3]->n - 2], "ok", NULL));
    assert_true(matches(last(sp[3]), "room_state", id));
    assert_int_equal(json_integer_value(json_object_get(last(sp[3]), "version")), version);
    h_free(h);
}

int main(void)
{
    thue_log_set_level(THUE_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_hello),
        cmocka_unit_test(test_v2_one_buffer_per_move),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
