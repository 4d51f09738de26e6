/*
 * test_codec_api.c: the wire protocol's codec (protocol/codec.h), beyond decoding:
 * - the request id echoed in errors, defaults and canonical forms, server round trips;
 * - the members-only encoding of the HTTP API (checked against the full one);
 * - thue_msg_clear on decoded, failed and caller-filled messages;
 * - the encoders refusing structs that hold values decoding would refuse;
 * - the error codes of both lists (names, sentences and codes round trip), the names of
 *   every enum, and the string rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <float.h>
#include <jansson.h>
#include <math.h>

#include "codec_samples.h"
#include "protocol/codec.h"
#include "protocol/codec_internal.h"

/* ---------------------------------------------------------------- ids, defaults, clear */

static void test_codec_id_echo(void **state)
{
    (void)state;
    thue_cmd c;
    thue_msg m;
    thue_decode_error e;
    assert_int_equal(cmd_decode("{\"type\":\"create_room\",\"id\":42,\"k\":99}", &c, &e),
                     THUE_PERR_MESSAGE);
    assert_int_equal(e.id.kind, THUE_ID_INT);
    assert_int_equal(e.id.num, 42);
    assert_int_equal(cmd_decode("{\"id\":\"req 7\",\"type\":\"nope\"}", &c, &e), THUE_PERR_TYPE);
    assert_int_equal(e.id.kind, THUE_ID_STR);
    assert_string_equal(e.id.str, "req 7");
    assert_int_equal(cmd_decode("{\"id\":\"x\"}", &c, &e), THUE_PERR_TYPE);
    assert_int_equal(e.id.kind, THUE_ID_STR);
    /* An id that cannot be read is not echoed. */
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"id\":-1}", &c, &e), THUE_PERR_MESSAGE);
    assert_int_equal(e.id.kind, THUE_ID_NONE);
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"id\":1", &c, &e), THUE_PERR_JSON);
    assert_int_equal(e.id.kind, THUE_ID_NONE);
    /* Server replies echo too; success fills the id as well. */
    assert_int_equal(
        msg_decode("{\"type\":\"error\",\"id\":9,\"code\":\"nope\",\"message\":\"m\"}", &m, &e),
        THUE_PERR_MESSAGE);
    assert_int_equal(e.id.kind, THUE_ID_INT);
    assert_int_equal(e.id.num, 9);
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"id\":\" ~\"}", &c, &e), 0);
    assert_int_equal(c.id.kind, THUE_ID_STR);
    assert_string_equal(c.id.str, " ~");
    /* err may be NULL. */
    assert_int_equal(thue_cmd_decode("{}", 2, &c, NULL), THUE_PERR_TYPE);
    assert_int_equal(thue_cmd_decode(NULL, 0, &c, NULL), THUE_PERR_JSON);
    assert_int_equal(thue_msg_decode("{}", 2, &m, NULL), THUE_PERR_TYPE);
}

static void test_codec_defaults(void **state)
{
    (void)state;
    thue_cmd c;
    thue_decode_error e;
    assert_int_equal(cmd_decode("{\"type\":\"create_room\"}", &c, &e), 0);
    assert_int_equal(c.id.kind, THUE_ID_NONE);
    assert_int_equal(c.u.create_room.variant, THUE_SQUARE);
    assert_int_equal(c.u.create_room.k, 3);
    assert_int_equal(c.u.create_room.limit, 100);
    assert_false(c.u.create_room.clock.present);
    assert_int_equal(c.u.create_room.first, THUE_FIRST_RANDOM);
    assert_false(c.u.create_room.rated);
    assert_false(c.u.create_room.is_private);
    assert_false(c.u.create_room.has_name);
    assert_true(c.u.create_room.seat);
    assert_cmd_canonical("{\"type\":\"create_room\"}",
                         "{\"type\":\"create_room\",\"variant\":\"square\",\"k\":3,\"limit\":100,"
                         "\"first_builder\":\"random\",\"rated\":false,\"private\":false,"
                         "\"seat\":true}");
    assert_int_equal(
        cmd_decode("{\"type\":\"seat_bot\",\"room\":\"r\",\"bot\":\"greedy\"}", &c, &e), 0);
    assert_int_equal(c.u.seat_bot.think_ms, 2000);
    assert_false(c.u.seat_bot.has_seat);
    assert_int_equal(
        cmd_decode("{\"type\":\"get_ladder\",\"variant\":\"overlap\",\"k\":4}", &c, &e), 0);
    assert_int_equal(c.u.get_ladder.kind, THUE_LADDER_ALL);
    assert_int_equal(c.u.get_ladder.offset, 0);
    assert_int_equal(c.u.get_ladder.count, 50);
    assert_cmd_canonical("{\"type\":\"queue_join\",\"k\":5,\"variant\":\"overlap\",\"id\":\"q\"}",
                         "{\"type\":\"queue_join\",\"id\":\"q\",\"variant\":\"overlap\",\"k\":5,"
                         "\"limit\":100,\"rated\":false,\"bot_after_s\":0}");
    /* Unknown members are ignored, and members of other messages too. */
    assert_cmd_canonical("{\"type\":\"leave\",\"room\":\"r1\",\"invite\":\"!!\",\"seat\":9,"
                         "\"extra\":{\"a\":[1,2,{\"b\":null}]}}",
                         "{\"type\":\"leave\",\"room\":\"r1\"}");
    /* Strings: JSON escapes in, the canonical ones out. */
    assert_cmd_canonical("{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"\\u0041\\/\\\"\\\\\\u00e9"
                         "\\ud83d\\ude00\"}",
                         "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"A/\\\"\\\\\xc3\xa9"
                         "\xf0\x9f\x98\x80\"}");
    /* An id may hold the characters JSON escapes; U+2028 is written as it is, like
     * JSON.stringify does. */
    assert_cmd_canonical("{\"type\":\"ping\",\"id\":\"q\\\"\\\\/\"}", NULL);
    assert_cmd_canonical("{\"type\":\"create_room\",\"name\":\"\\u2028\"}",
                         "{\"type\":\"create_room\",\"variant\":\"square\",\"k\":3,\"limit\":100,"
                         "\"first_builder\":\"random\",\"rated\":false,\"private\":false,"
                         "\"name\":\"\xe2\x80\xa8\",\"seat\":true}");
    /* A name of 24 code points of 4 bytes fills its buffer exactly. */
    assert_cmd_canonical("{\"type\":\"claim_name\",\"name\":\"\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c"
                         "\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d"
                         "\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c"
                         "\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d"
                         "\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c"
                         "\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\"}",
                         NULL);
}

static void test_codec_server_roundtrips(void **state)
{
    (void)state;
    assert_msg_canonical(welcome_text, NULL);
    assert_msg_canonical(room_state_text, NULL);
    assert_msg_canonical(match_end_text, NULL);
    assert_msg_canonical(tournament_text, NULL);
    assert_msg_canonical(ladder_text, NULL);
    assert_msg_canonical(rooms_text, NULL);
    /* Members in another order, unknown ones, and spaces: the canonical text. */
    assert_msg_canonical("{ \"message\" : \"m\", \"code\" : \"not_your_turn\", \"field\" : "
                         "\"position\", \"type\" : \"error\", \"x\" : 1 }",
                         "{\"type\":\"error\",\"code\":\"not_your_turn\",\"message\":\"m\","
                         "\"field\":\"position\"}");
    assert_msg_canonical("{\"type\":\"tournament_event\",\"tournament\":\"t5\",\"event\":"
                         "\"joined\",\"round\":null,\"rooms\":[]}",
                         NULL);
}

/* thue_msg_encode_members(m) against the full encoding: the full text with its "type"
 * (and "id") taken out by a plain reading of it: the same members, the same bytes after
 * them, and jansson agreeing on the values. */
static void check_members(const thue_msg *m)
{
    char *full = thue_msg_encode(m, NULL), *members = thue_msg_encode_members(m, NULL);
    assert_non_null(full);
    assert_non_null(members);
    size_t nf = strlen(full), nm = strlen(members);
    assert_true(nm >= 2 && nm < nf);
    assert_int_equal(members[0], '{');
    assert_null(strstr(members, "\"type\":\"")); /* no sample nests a "type" member */
    /* After the opening brace, the members are the full text's tail: its first
     * member after type and id on. */
    const char *tail = full + nf - (nm - 1);
    assert_string_equal(tail, members + 1);
    assert_true(tail[-1] == ',' || nm == 2);
    json_t *jf = json_loads(full, 0, NULL), *jm = json_loads(members, 0, NULL);
    assert_non_null(jf);
    assert_non_null(jm);
    assert_string_equal(json_string_value(json_object_get(jf, "type")),
                        thue_msg_type_name(m->type));
    json_object_del(jf, "type");
    json_object_del(jf, "id");
    assert_true(json_equal(jf, jm));
    json_decref(jf);
    json_decref(jm);
    free(full);
    free(members);
}

/* The HTTP API's form of a message: its members without type and id. */
static void test_codec_encode_members(void **state)
{
    (void)state;
    const char *samples[] = {welcome_text,    room_state_text, match_end_text,
                             tournament_text, ladder_text,     rooms_text};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        thue_msg m;
        assert_int_equal(msg_decode(samples[i], &m, NULL), 0);
        check_members(&m);
        /* With an id of either kind, which the members leave out as well. */
        if (!(m.type == THUE_MSG_ROOMS || m.type == THUE_MSG_LADDER ||
              m.type == THUE_MSG_TOURNAMENT)) {
            thue_msg_clear(&m);
            continue;
        }
        char *before = thue_msg_encode_members(&m, NULL);
        m.id.kind = THUE_ID_INT;
        m.id.num = 42;
        check_members(&m);
        m.id.kind = THUE_ID_STR;
        strcpy(m.id.str, "q,\"type\"");
        check_members(&m);
        char *after = thue_msg_encode_members(&m, NULL);
        assert_string_equal(before, after);
        free(before);
        free(after);
        thue_msg_clear(&m);
    }
    /* Exact bytes: a rooms message, and one with no member at all. */
    thue_msg m;
    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_ROOMS;
    m.id.kind = THUE_ID_INT;
    m.id.num = 9;
    char *out = thue_msg_encode_members(&m, NULL);
    assert_string_equal(out, "{\"rooms\":[]}");
    free(out);
    m.type = THUE_MSG_OK;
    out = thue_msg_encode_members(&m, NULL);
    assert_string_equal(out, "{}");
    free(out);
    /* Refused like thue_msg_encode: no type, or a member out of range. */
    thue_decode_error e;
    m.type = THUE_MSG_COUNT;
    assert_null(thue_msg_encode_members(&m, &e));
    assert_int_equal(e.code, THUE_PERR_TYPE);
    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_ERROR;
    m.u.error.code = THUE_EINVAL; /* an engine code the table does not have */
    assert_null(thue_msg_encode(&m, NULL));
    assert_null(thue_msg_encode_members(&m, &e));
    assert_int_not_equal(e.code, 0);
}

static void test_codec_msg_clear(void **state)
{
    (void)state;
    thue_msg m;
    thue_decode_error e;
    /* Decoded: owns its arrays (ASan reports a leak if clear misses one). */
    assert_int_equal(msg_decode(tournament_text, &m, &e), 0);
    assert_non_null(m.owned);
    assert_int_equal(m.u.tournament.nentrants, 3);
    assert_string_equal(m.u.tournament.round_list[0].pairings[1].names[0], "nested:2");
    assert_false(m.u.tournament.round_list[0].pairings[1].has_second);
    assert_int_equal(m.u.tournament.round_list[1].npairings, 0);
    thue_msg_clear(&m);
    assert_null(m.owned);
    thue_msg_clear(&m); /* twice is harmless */
    thue_msg_clear(NULL);
    /* Failed after allocating: nothing is left to free. */
    char *bad = subst(tournament_text, "\"result\":\"bye\"", "\"result\":0");
    assert_int_equal(msg_decode(bad, &m, &e), THUE_PERR_MESSAGE);
    assert_null(m.owned);
    thue_msg_clear(&m);
    free(bad);
    /* Filled by the caller: borrowed arrays, owned NULL; clear touches nothing. */
    const char rooms[2][THUE_PROTO_KEY_MAX + 1] = {"r1", "r2"};
    thue_msg w;
    memset(&w, 0, sizeof w);
    w.type = THUE_MSG_TOURNAMENT_EVENT;
    strcpy(w.u.tournament_event.tournament, "t5");
    strcpy(w.u.tournament_event.event, "round_started");
    w.u.tournament_event.round = 2;
    w.u.tournament_event.rooms = rooms;
    w.u.tournament_event.nrooms = 2;
    char *out = thue_msg_encode(&w, &e);
    assert_non_null(out);
    assert_string_equal(out, "{\"type\":\"tournament_event\",\"tournament\":\"t5\",\"event\":"
                             "\"round_started\",\"round\":2,\"rooms\":[\"r1\",\"r2\"]}");
    free(out);
    thue_msg_clear(&w);
    assert_ptr_equal(w.u.tournament_event.rooms, rooms);
}

/* ---------------------------------------------------------------- encoders */

static void expect_cmd_refused(const thue_cmd *c, int code, const char *field)
{
    thue_decode_error e;
    char *out = thue_cmd_encode(c, &e);
    if (out != NULL)
        fail_msg("encoded %s, expected a refusal on %s", out, field);
    assert_int_equal(e.code, code);
    assert_string_equal(e.field, field);
    assert_true(strlen(e.message) > 0);
}

static void expect_msg_refused(const thue_msg *m, const char *field)
{
    thue_decode_error e;
    char *out = thue_msg_encode(m, &e);
    if (out != NULL)
        fail_msg("encoded %s, expected a refusal on %s", out, field);
    assert_string_equal(e.field, field);
    assert_true(strlen(e.message) > 0);
}

static thue_cmd good_create_room(void)
{
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_CREATE_ROOM;
    c.u.create_room.variant = THUE_SQUARE;
    c.u.create_room.k = 3;
    c.u.create_room.limit = 100;
    c.u.create_room.first = THUE_FIRST_RANDOM;
    c.u.create_room.seat = 1;
    return c;
}

static void test_codec_cmd_encode_refuses(void **state)
{
    (void)state;
    thue_decode_error e;
    thue_cmd c = good_create_room();
    char *out = thue_cmd_encode(&c, &e);
    assert_non_null(out);
    free(out);
    c.type = THUE_CMD_COUNT;
    expect_cmd_refused(&c, THUE_PERR_TYPE, "type");
    c = good_create_room();
    c.id.kind = THUE_ID_INT;
    c.id.num = -1;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    c.id.num = INT64_C(9007199254740992);
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    c.id.kind = THUE_ID_STR;
    strcpy(c.id.str, "");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    memset(c.id.str, 'x', sizeof c.id.str); /* unterminated */
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    strcpy(c.id.str, "a\tb");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    c.id.kind = (thue_id_kind)7;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    c = good_create_room();
    c.u.create_room.k = 65;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "k");
    c = good_create_room();
    c.u.create_room.variant = (thue_variant)2;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "variant");
    c = good_create_room();
    c.u.create_room.first = (thue_first_builder)-1;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "first_builder");
    c = good_create_room();
    c.u.create_room.clock.present = 1;
    c.u.create_room.clock.initial_ms = 1000;
    c.u.create_room.clock.increment_ms = 600001;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "clock/increment_ms");
    c = good_create_room();
    c.u.create_room.has_name = 1;
    memset(c.u.create_room.name, 'n', sizeof c.u.create_room.name);
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "name");
    strcpy(c.u.create_room.name, "a\xff"); /* not UTF-8 */
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "name");
    c.u.create_room.has_name = 0; /* not given: the bad name is not looked at */
    out = thue_cmd_encode(&c, &e);
    assert_non_null(out);
    free(out);

    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_HELLO;
    c.u.hello.protocol = 1;
    c.u.hello.has_name = c.u.hello.has_resume = 1;
    strcpy(c.u.hello.name, "Ann");
    strcpy(c.u.hello.resume, "0123456789abcdef0123456789abcdef");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "resume");
    c.u.hello.has_resume = 0;
    strcpy(c.u.hello.name, "nested:1");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "name");

    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_CHAT;
    strcpy(c.u.chat.room, "r1");
    strcpy(c.u.chat.text, "say \"hi\"");
    out = thue_cmd_encode(&c, &e);
    assert_non_null(out);
    assert_string_equal(out, "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"say \\\"hi\\\"\"}");
    free(out);
    strcpy(c.u.chat.text, "two\nlines"); /* a forged second line */
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "text");
    strcpy(c.u.chat.text, "bell\a");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "text");
    memset(c.u.chat.text, 'a', 201);
    c.u.chat.text[201] = '\0';
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "text");

    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_CREATE_TOURNAMENT;
    strcpy(c.u.create_tournament.name, "S");
    c.u.create_tournament.format = THUE_FORMAT_SWISS;
    c.u.create_tournament.k = 5;
    c.u.create_tournament.limit = 100;
    c.u.create_tournament.max_players = 8;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "rounds");
    c.u.create_tournament.format = THUE_FORMAT_ROUND_ROBIN;
    out = thue_cmd_encode(&c, &e);
    assert_non_null(out);
    free(out);

    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_PAINT;
    strcpy(c.u.move.room, "r1");
    c.u.move.value = 64;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "symbol");
}

static thue_msg decoded(const char *text)
{
    thue_msg m;
    thue_decode_error e;
    if (msg_decode(text, &m, &e) != 0)
        fail_msg("%s: [%s] %s", text, e.field, e.message);
    return m;
}

static void test_codec_msg_encode_refuses(void **state)
{
    (void)state;
    thue_msg m;
    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_COUNT;
    expect_msg_refused(&m, "type");
    m.type = THUE_MSG_OK;
    m.id.kind = THUE_ID_INT;
    m.id.num = 3;
    char *out = thue_msg_encode(&m, NULL);
    assert_string_equal(out, "{\"type\":\"ok\",\"id\":3}");
    free(out);
    m.type = THUE_MSG_MATCH_FOUND;
    strcpy(m.u.match_found.room, "r1");
    expect_msg_refused(&m, "id"); /* an event with an id */

    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_ERROR;
    m.u.error.code = THUE_ETURN;
    strcpy(m.u.error.message, "it is not your turn");
    out = thue_msg_encode(&m, NULL);
    assert_string_equal(out, "{\"type\":\"error\",\"code\":\"not_your_turn\",\"message\":\"it is "
                             "not your turn\"}");
    free(out);
    m.u.error.code = THUE_EINVAL; /* an engine code the table does not have */
    expect_msg_refused(&m, "code");
    m.u.error.code = 0;
    expect_msg_refused(&m, "code");
    m.u.error.code = THUE_PERR_BUSY;
    strcpy(m.u.error.field, "/x");
    expect_msg_refused(&m, "field");

    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_GOODBYE;
    strcpy(m.u.goodbye.reason, "bored");
    expect_msg_refused(&m, "reason");
    memset(m.u.goodbye.reason, 'x', sizeof m.u.goodbye.reason);
    expect_msg_refused(&m, "reason");

    /* Decoded messages made bad one member at a time. */
    thue_msg ok = decoded(ladder_text);
    m = ok;
    thue_ladder_entry entry = ok.u.ladder.entries[0];
    m.u.ladder.entries = &entry;
    entry.rating = NAN;
    expect_msg_refused(&m, "entries/0/rating");
    entry.rating = INFINITY;
    expect_msg_refused(&m, "entries/0/rating");
    entry.rating = 1500;
    entry.rd = -1;
    expect_msg_refused(&m, "entries/0/rd");
    entry.rd = 50;
    strcpy(entry.player.name, "bad name ");
    entry.player.kind = THUE_KIND_ACCOUNT;
    expect_msg_refused(&m, "entries/0/name");
    strcpy(entry.player.name, "Ann");
    m.u.ladder.nentries = 201;
    expect_msg_refused(&m, "entries");
    m.u.ladder.nentries = -1;
    expect_msg_refused(&m, "entries");
    m.u.ladder.nentries = 1;
    m.u.ladder.entries = NULL;
    expect_msg_refused(&m, "entries");
    m.u.ladder.nentries = 0;
    out = thue_msg_encode(&m, NULL);
    assert_non_null(out);
    free(out);
    thue_msg_clear(&ok);

    ok = decoded(room_state_text);
    m = ok;
    uint8_t word[3] = {0, 1, 64};
    m.u.room_state.match.word = word;
    expect_msg_refused(&m, "match/word/2");
    m.u.room_state.match.word = NULL;
    expect_msg_refused(&m, "match/word");
    m = ok;
    m.u.room_state.match.last_move.think_ms = -0.5;
    expect_msg_refused(&m, "match/last_move/think_ms");
    m = ok;
    m.u.room_state.seats[0].has_bot = 1;
    strcpy(m.u.room_state.seats[0].bot, "greedy");
    expect_msg_refused(&m, "players/0/bot");
    m = ok;
    m.u.room_state.match.step = THUE_STEP_OVER;
    expect_msg_refused(&m, "match/to_move");
    m.u.room_state.match.to_move = -1;
    expect_msg_refused(&m, "match/result");
    m.u.room_state.match.has_result = 1;
    m.u.room_state.match.reason = THUE_END_NONE;
    expect_msg_refused(&m, "match/result/reason");
    m.u.room_state.match.reason = THUE_END_RESIGN;
    m.u.room_state.match.winner = 2;
    expect_msg_refused(&m, "match/result/winner");
    m.u.room_state.match.winner = -1;
    out = thue_msg_encode(&m, NULL);
    assert_non_null(strstr(out, "\"result\":{\"winner\":null,\"reason\":\"resign\"}"));
    free(out);
    m = ok;
    m.u.room_state.you = 2;
    expect_msg_refused(&m, "you");
    m = ok;
    m.u.room_state.match.rounds[1].end = THUE_ROUND_LIMIT;
    expect_msg_refused(&m, "match/rounds/1/word");
    m = ok;
    m.u.room_state.version = -1;
    expect_msg_refused(&m, "version");
    thue_msg_clear(&ok);
}

/* ---------------------------------------------------------------- names */

static void test_codec_error_codes(void **state)
{
    (void)state;
#define CHECK_PERR(name, value, wire, msg)                                                         \
    assert_string_equal(thue_proto_err_name(value), wire);                                         \
    assert_string_equal(thue_proto_strerror(value), msg);                                          \
    assert_int_equal(thue_proto_err_code(wire), value);
    THUE_PROTO_ERRNO_MAP(CHECK_PERR)
#undef CHECK_PERR
#define CHECK_ERR(name, value, wire, msg)                                                          \
    assert_string_equal(thue_proto_err_name(value), wire);                                         \
    assert_string_equal(thue_proto_strerror(value), msg);                                          \
    assert_int_equal(thue_proto_err_code(wire), value);                                            \
    assert_string_equal(thue_proto_err_name(value), thue_err_name(value));                         \
    assert_string_equal(thue_proto_strerror(value), thue_strerror(value));
    THUE_ERRNO_MAP(CHECK_ERR)
#undef CHECK_ERR
    assert_string_equal(thue_proto_err_name(0), "internal");
    assert_string_equal(thue_proto_err_name(12345), "internal");
    assert_string_equal(thue_proto_err_name(-99), "internal");
    assert_string_equal(thue_proto_strerror(-99), thue_proto_strerror(THUE_PERR_INTERNAL));
    assert_int_equal(thue_proto_err_code("nope"), 0);
    assert_int_equal(thue_proto_err_code(""), 0);
    assert_int_equal(thue_proto_err_code(NULL), 0);
    assert_int_equal(thue_proto_err_code("ok"), 0);
    /* The game codes are the engine's names. */
    assert_int_equal(thue_proto_err_code("not_your_turn"), THUE_ETURN);
    assert_int_equal(thue_proto_err_code("match_over"), THUE_EOVER);
    /* Every code an error message may carry encodes and decodes. */
    static const int wire[] = {
#define LIST_PERR(name, value, wire, msg) value,
        THUE_PROTO_ERRNO_MAP(LIST_PERR)
#undef LIST_PERR
            THUE_ETURN,
        THUE_ESTEP, THUE_EPOSITION, THUE_ESYMBOL, THUE_EOVER};
    for (size_t i = 0; i < sizeof wire / sizeof wire[0]; i++) {
        thue_msg m;
        memset(&m, 0, sizeof m);
        m.type = THUE_MSG_ERROR;
        m.id.kind = THUE_ID_STR;
        strcpy(m.id.str, "x");
        m.u.error.code = wire[i];
        snprintf(m.u.error.message, sizeof m.u.error.message, "%s", thue_proto_strerror(wire[i]));
        char *out = thue_msg_encode(&m, NULL);
        assert_non_null(out);
        thue_msg back;
        thue_decode_error e;
        assert_int_equal(msg_decode(out, &back, &e), 0);
        assert_int_equal(back.u.error.code, wire[i]);
        assert_string_equal(back.u.error.field, "");
        free(out);
    }
}

static void test_codec_enum_names(void **state)
{
    (void)state;
    static const char *const cmds[] = {"hello",
                                       "ping",
                                       "claim_name",
                                       "create_room",
                                       "list_rooms",
                                       "join",
                                       "spectate",
                                       "leave",
                                       "seat_bot",
                                       "ready",
                                       "place",
                                       "paint",
                                       "resign",
                                       "rematch",
                                       "queue_join",
                                       "queue_leave",
                                       "chat",
                                       "get_ladder",
                                       "list_tournaments",
                                       "get_tournament",
                                       "create_tournament",
                                       "join_tournament",
                                       "leave_tournament",
                                       "start_tournament",
                                       "move",
                                       "analyze",
                                       "analyze_stop",
                                       "analyze_resume",
                                       "analyze_close",
                                       "set_password",
                                       "login",
                                       "get_legal_moves",
                                       "get_best_move",
                                       "sync",
                                       "analyze_sync"};
    static const char *const msgs[] = {
        "welcome",          "pong",        "ok",           "error",
        "goodbye",          "account",     "room_created", "rooms",
        "room_state",       "match_end",   "chat_message", "match_found",
        "ladder",           "tournaments", "tournament",   "tournament_created",
        "tournament_event", "queue_failed", "analysis_started", "analysis_tree", "moved",
        "legal_moves", "best_move", "played", "watchers", "analysis_delta"};
    assert_int_equal(sizeof cmds / sizeof cmds[0], THUE_CMD_COUNT);
    assert_int_equal(sizeof msgs / sizeof msgs[0], THUE_MSG_COUNT);
    for (int i = 0; i < THUE_CMD_COUNT; i++)
        assert_string_equal(thue_cmd_type_name((thue_cmd_type)i), cmds[i]);
    for (int i = 0; i < THUE_MSG_COUNT; i++)
        assert_string_equal(thue_msg_type_name((thue_msg_type)i), msgs[i]);
    assert_null(thue_cmd_type_name(THUE_CMD_COUNT));
    assert_null(thue_cmd_type_name((thue_cmd_type)-1));
    assert_null(thue_msg_type_name(THUE_MSG_COUNT));
    assert_string_equal(thue_first_builder_name(THUE_FIRST_RANDOM), "random");
    assert_string_equal(thue_first_builder_name(THUE_FIRST_CREATOR), "creator");
    assert_string_equal(thue_first_builder_name(THUE_FIRST_OPPONENT), "opponent");
    assert_null(thue_first_builder_name((thue_first_builder)3));
    assert_string_equal(thue_room_status_name(THUE_STATUS_WAITING), "waiting");
    assert_string_equal(thue_room_status_name(THUE_STATUS_PLAYING), "playing");
    assert_string_equal(thue_room_status_name(THUE_STATUS_FINISHED), "finished");
    assert_null(thue_room_status_name((thue_room_status)3));
    assert_string_equal(thue_player_kind_name(THUE_KIND_GUEST), "guest");
    assert_string_equal(thue_player_kind_name(THUE_KIND_ACCOUNT), "account");
    assert_string_equal(thue_player_kind_name(THUE_KIND_BOT), "bot");
    assert_null(thue_player_kind_name((thue_player_kind)-1));
    assert_string_equal(thue_ladder_kind_name(THUE_LADDER_ALL), "all");
    assert_string_equal(thue_ladder_kind_name(THUE_LADDER_HUMAN), "human");
    assert_string_equal(thue_ladder_kind_name(THUE_LADDER_BOT), "bot");
    assert_null(thue_ladder_kind_name((thue_ladder_kind)3));
    assert_string_equal(thue_tournament_format_name(THUE_FORMAT_ROUND_ROBIN), "round_robin");
    assert_string_equal(thue_tournament_format_name(THUE_FORMAT_SWISS), "swiss");
    assert_null(thue_tournament_format_name((thue_tournament_format)2));
    /* Every command type decodes from its name (those with members from a minimal text). */
    for (int i = 0; i < THUE_CMD_COUNT; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\"type\":\"%s\"}", cmds[i]);
        thue_cmd c;
        thue_decode_error e;
        int rc = cmd_decode(text, &c, &e);
        /* Either decoded (no required member) or refused for a member, never the type. */
        assert_true(rc == 0 || (rc == THUE_PERR_MESSAGE && strcmp(e.field, "type") != 0));
        if (rc == 0)
            assert_int_equal(c.type, i);
    }
}

/* The character rules on their own: letters of any script, the edges of UTF-8. */
static void test_codec_string_rules(void **state)
{
    (void)state;
    static const struct {
        thue__str_rule rule;
        const char *s;
        int ok;
    } cases[] = {
        {THUE__S_NAME, "Ann", 1},
        {THUE__S_NAME, "Ann Lee-Smith_2.", 1},
        {THUE__S_NAME, "\xd0\x96\xd0\xb5\xd0\xbd\xd1\x8f", 1}, /* Женя */
        {THUE__S_NAME, "\xe5\xbc\xa0\xe4\xbc\x9f", 1},         /* 张伟 */
        {THUE__S_NAME, "\xd9\xa3", 1},                         /* Arabic-Indic digit 3 */
        {THUE__S_NAME, "a\xcc\x81", 0},                        /* a + combining acute */
        {THUE__S_NAME, "\xc2\xbd", 0},                         /* ½: a number, no digit */
        {THUE__S_NAME, " a", 0},
        {THUE__S_NAME, "a ", 0},
        {THUE__S_NAME, "a  b", 1},
        {THUE__S_NAME, "", 0},
        {THUE__S_NAME, "abcdefghijklmnopqrstuvwx", 1},
        {THUE__S_NAME, "abcdefghijklmnopqrstuvwxy", 0},
        {THUE__S_NAME, "\xc0\xaf", 0},         /* overlong */
        {THUE__S_NAME, "\xed\xa0\x80", 0},     /* surrogate */
        {THUE__S_NAME, "\xf4\x90\x80\x80", 0}, /* past U+10FFFF */
        {THUE__S_NAME, "\xe4\xbc", 0},         /* truncated */
        {THUE__S_ANYNAME, "uct:c=1.4,iterations=9", 1},
        {THUE__S_ANYNAME, "nested:1", 1},
        {THUE__S_ANYNAME, "\xc3\xa9t\xc3\xa9!", 1},
        {THUE__S_ANYNAME, " a ", 1},
        {THUE__S_ANYNAME, "a\x7f", 0},
        {THUE__S_ANYNAME, "abcdefghijklmnopqrstuvwxy", 0},
        {THUE__S_CHAT, "a\nb", 0},
        {THUE__S_CHAT, "a\rb", 0},
        {THUE__S_CHAT, "\xc2\x85", 0},       /* U+0085, NEL: a line break */
        {THUE__S_CHAT, "a\342\200\256b", 0}, /* U+202E, right-to-left override */
        {THUE__S_CHAT, "a\342\200\217b", 1}, /* U+200F, a right-to-left mark */
        {THUE__S_CHAT, "\xc2\xa0", 1},       /* U+00A0, no-break space */
        {THUE__S_TITLE, "\x7f", 0},
        {THUE__S_TEXT, "", 0},
        {THUE__S_SERVER, "thue-server 0.1.0", 1},
        {THUE__S_SERVER, "\xc3\xa9", 0},
        {THUE__S_FIELD, "players/1/name", 1},
        {THUE__S_FIELD, "/x", 0},
        {THUE__S_RESUME, "0123456789abcdef0123456789abcdef", 1},
        {THUE__S_RESUME, "0123456789abcdef0123456789abcde", 0},
        {THUE__S_KEY, "A-z_9", 1},
        {THUE__S_KEY, "a.b", 0},
        {THUE__S_ID, " ", 1},
        {THUE__S_ID, "~\x7f", 0},
        {(thue__str_rule)99, "a", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (thue__str_ok(cases[i].rule, cases[i].s, strlen(cases[i].s)) != cases[i].ok)
            fail_msg("rule %d, \"%s\": want %d", cases[i].rule, cases[i].s, cases[i].ok);
    /* Every rule fits the buffers of codec.h. */
    assert_true(thue__str_rule_bytes(THUE__S_NAME) < sizeof(((thue_player *)0)->name));
    assert_true(thue__str_rule_bytes(THUE__S_ANYNAME) < sizeof(((thue_player *)0)->name));
    assert_true(thue__str_rule_bytes(THUE__S_CHAT) < sizeof(((thue_cmd *)0)->u.chat.text));
    assert_true(thue__str_rule_bytes(THUE__S_TITLE) < sizeof(((thue_cmd *)0)->u.create_room.name));
    assert_true(thue__str_rule_bytes(THUE__S_TEXT) < sizeof(((thue_msg *)0)->u.error.message));
    assert_true(thue__str_rule_bytes(THUE__S_SERVER) < sizeof(((thue_msg *)0)->u.welcome.server));
    assert_true(thue__str_rule_bytes(THUE__S_FIELD) < sizeof(((thue_msg *)0)->u.error.field));

    assert_true(thue__str_rule_bytes(THUE__S_SPEC) < sizeof(((thue_seat *)0)->bot));
    assert_true(thue__str_rule_bytes(THUE__S_ID) < sizeof(((thue_msg_id *)0)->str));
}

int main(void)
{
    thue_codec_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec_id_echo),
        cmocka_unit_test(test_codec_defaults),
        cmocka_unit_test(test_codec_server_roundtrips),
        cmocka_unit_test(test_codec_encode_members),
        cmocka_unit_test(test_codec_msg_clear),
        cmocka_unit_test(test_codec_cmd_encode_refuses),
        cmocka_unit_test(test_codec_msg_encode_refuses),
        cmocka_unit_test(test_codec_error_codes),
        cmocka_unit_test(test_codec_enum_names),
        cmocka_unit_test(test_codec_string_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
