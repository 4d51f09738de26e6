/*
 * test_cli_roommodel.c: the `thue` network commands' room model under thue.v2
 * (clients/cli/roommodel.c).
 *
 * The reference is the server itself: tests/vectors/v2model.jsonl (v2model.md) holds,
 * for matches of every game played on the real server, what a thue.v2 player received
 * (whole states and played events) and every state a thue.v1 spectator received. Fed the
 * player's messages, the model must hand out, for every version, the spectator's state
 * (the very text, but for `you`, which is the player's seat; clocks may differ by the
 * millisecond the two encodings were apart). The other tests take those matches apart:
 * a lost played, a played the model already saw or cannot place, a move the rules
 * refuse, a bot or spectator named like nobody, forgetting and evicting rooms, and the
 * comparison the CLI's --check-sync uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "protocol/codec.h"
#include "roommodel.h"

#ifndef THUE_VECTORS_DIR
#define THUE_VECTORS_DIR "tests/vectors"
#endif

#define MAX_TEXTS 256

/* One recorded match: the player's texts (room_state and played, in order) and the
 * spectator's states. */
typedef struct match {
    char name[32];
    char me[100];
    int seat;
    char *v2[MAX_TEXTS];
    int nv2;
    char *v1[MAX_TEXTS];
    int nv1;
} match;

static match matches[16];
static int nmatches;

static match *match_named(const char *name)
{
    for (int i = 0; i < nmatches; i++)
        if (strcmp(matches[i].name, name) == 0)
            return &matches[i];
    return NULL;
}

static int load_vectors(void **state)
{
    (void)state;
    FILE *f = fopen(THUE_VECTORS_DIR "/v2model.jsonl", "r");
    assert_non_null(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        json_error_t e;
        json_t *j = json_loads(line, 0, &e);
        assert_non_null(j);
        const char *name = json_string_value(json_object_get(j, "match"));
        assert_non_null(name);
        match *m = match_named(name);
        if (m == NULL) {
            assert_true(nmatches < (int)(sizeof matches / sizeof *matches));
            m = &matches[nmatches++];
            snprintf(m->name, sizeof m->name, "%s", name);
        }
        json_t *me = json_object_get(j, "me");
        if (me != NULL) {
            snprintf(m->me, sizeof m->me, "%s", json_string_value(me));
            m->seat = (int)json_integer_value(json_object_get(j, "seat"));
        }
        const char *v2 = json_string_value(json_object_get(j, "v2"));
        const char *v1 = json_string_value(json_object_get(j, "v1"));
        if (v2 != NULL) {
            assert_true(m->nv2 < MAX_TEXTS);
            m->v2[m->nv2++] = strdup(v2);
        }
        if (v1 != NULL) {
            assert_true(m->nv1 < MAX_TEXTS);
            m->v1[m->nv1++] = strdup(v1);
        }
        json_decref(j);
    }
    free(line);
    fclose(f);
    return nmatches > 0 ? 0 : -1;
}

static int free_vectors(void **state)
{
    (void)state;
    for (int i = 0; i < nmatches; i++) {
        for (int t = 0; t < matches[i].nv2; t++)
            free(matches[i].v2[t]);
        for (int t = 0; t < matches[i].nv1; t++)
            free(matches[i].v1[t]);
    }
    return 0;
}

static void decode(const char *text, thue_msg *out)
{
    memset(out, 0, sizeof *out);
    thue_decode_error e;
    int rc = thue_msg_decode(text, strlen(text), out, &e);
    if (rc != 0)
        fail_msg("cannot decode %s: %s (%s)", text, e.message, e.field);
}

/* The spectator's first state of the match itself (playing, no move yet): its version,
 * or -1. */
static int64_t v1_start(const match *m)
{
    for (int i = 0; i < m->nv1; i++) {
        thue_msg x;
        decode(m->v1[i], &x);
        int64_t v = x.u.room_state.status == THUE_STATUS_PLAYING && x.u.room_state.has_match &&
                            !x.u.room_state.match.last_move.present
                        ? x.u.room_state.version
                        : -1;
        thue_msg_clear(&x);
        if (v >= 0)
            return v;
    }
    return -1;
}

/* The spectator's text of the state the model made as thue.v2's version v, or NULL.
 * thue.v1's version also counts spectators coming and going (PROTOCOL.md section 18), so
 * the two are paired from the match's first state on, where every change since is one of
 * both; the states before it (the room's waiting ones, passed on whole) are not paired. */
static const char *v1_of(const match *m, const thue_msg *st)
{
    static const match *at;
    static int64_t offset = -1;
    int64_t v = st->u.room_state.version;
    if (at != m) {
        at = m;
        offset = -1;
    }
    if (offset < 0) {
        if (st->u.room_state.status != THUE_STATUS_PLAYING || !st->u.room_state.has_match ||
            st->u.room_state.match.last_move.present)
            return "";
        int64_t s1 = v1_start(m);
        if (s1 < 0)
            return NULL;
        offset = s1 - v;
    }
    for (int i = 0; i < m->nv1; i++) {
        thue_msg x;
        decode(m->v1[i], &x);
        int64_t got = x.u.room_state.version;
        thue_msg_clear(&x);
        if (got == v + offset)
            return m->v1[i];
    }
    return NULL;
}

/* The model's state (thue.v1's form) must be the spectator's: the same canonical text
 * once `you` is the spectator's null, and with a clock the same but for the running
 * clock's millisecond. */
static void expect_reference(const match *m, const thue_msg *st)
{
    const char *ref_text = v1_of(m, st);
    if (ref_text == NULL)
        fail_msg("%s: the model made version %lld, which the spectator never saw", m->name,
                 (long long)st->u.room_state.version);
    if (ref_text[0] == '\0')
        return; /* before the match: not paired */
    thue_msg ref;
    decode(ref_text, &ref);
    int64_t v1 = ref.u.room_state.version;
    ref.u.room_state.version = st->u.room_state.version; /* the pairing said they are one */
    char why[600];
    int rc = cli_model_compare(st, &ref, -1, 1, why, sizeof why);
    if (rc != 0)
        fail_msg("%s v%lld: %s", m->name, (long long)st->u.room_state.version, why);
    if (!st->u.room_state.has_match || !st->u.room_state.match.has_clocks) {
        thue_msg *mine = malloc(sizeof *mine);
        assert_non_null(mine);
        *mine = *st;
        mine->u.room_state.you = -1;
        mine->u.room_state.version = v1;
        char *text = thue_msg_encode(mine, NULL);
        free(mine);
        assert_non_null(text);
        assert_string_equal(text, ref_text);
        free(text);
    }
    thue_msg_clear(&ref);
}

/* Feeds m's player texts [from, upto) to model; every state handed out is checked
 * against the spectator's. Returns the number of played events applied. */
static int feed_from(cli_model *model, const match *m, int from, int upto)
{
    int played = 0;
    for (int i = from; i < upto; i++) {
        thue_msg in, out;
        char room[THUE_PROTO_KEY_MAX + 1] = "";
        decode(m->v2[i], &in);
        cli_model_result r = cli_model_apply(model, &in, &out, room);
        if (r == CLI_MODEL_SYNC)
            fail_msg("%s: the model lost the room at %s: %s", m->name, m->v2[i],
                     cli_model_why(model));
        assert_int_equal(r, CLI_MODEL_STATE);
        assert_false(out.u.room_state.has_ref);
        assert_int_equal(out.u.room_state.you, m->seat);
        expect_reference(m, &out);
        played += in.type == THUE_MSG_PLAYED;
        thue_msg_clear(&out);
        thue_msg_clear(&in);
    }
    return played;
}

static int feed(cli_model *model, const match *m, int upto)
{
    return feed_from(model, m, 0, upto);
}

static void test_roommodel_every_game_as_thue_v1(void **state)
{
    (void)state;
    const char *want[] = {"thue-square", "thue-overlap", "thue-resign", "thue-clock-bot",
                          "nim",         "nim-misere",   "circle",      "northcott",
                          "rims",        "wythoff",      "dots"};
    for (size_t g = 0; g < sizeof want / sizeof *want; g++) {
        const match *m = match_named(want[g]);
        if (m == NULL)
            fail_msg("no match %s in v2model.jsonl", want[g]);
        cli_model *model = cli_model_new(m->me);
        assert_non_null(model);
        int played = feed(model, m, m->nv2);
        assert_true(played > 0);
        /* Every state the spectator saw from the match's start on came out of the model. */
        const thue_msg *last = cli_model_find(model, "nosuchroom");
        assert_null(last);
        thue_msg first, end;
        decode(m->v2[0], &first);
        decode(m->v1[m->nv1 - 1], &end);
        last = cli_model_find(model, end.u.room_state.room);
        assert_non_null(last);
        assert_true(last->u.room_state.has_ref);
        /* (its version is thue.v2's: the final state was paired with the spectator's in
         * feed) */
        assert_int_equal(last->u.room_state.status, THUE_STATUS_FINISHED);
        assert_int_equal(end.u.room_state.status, THUE_STATUS_FINISHED);
        assert_int_equal(m->nv2, (int)(last->u.room_state.version - first.u.room_state.version) + 1);
        thue_msg_clear(&first);
        thue_msg_clear(&end);
        cli_model_free(model);
    }
}

/* The index of m's first played after position from. */
static int first_played(const match *m, int from)
{
    for (int i = from; i < m->nv2; i++)
        if (strncmp(m->v2[i], "{\"type\":\"played\"", 16) == 0)
            return i;
    fail_msg("%s: no played after %d", m->name, from);
    return -1;
}

static cli_model_result apply_text(cli_model *model, const char *text, char *room)
{
    thue_msg in, out;
    decode(text, &in);
    cli_model_result r = cli_model_apply(model, &in, &out, room);
    if (r == CLI_MODEL_STATE)
        thue_msg_clear(&out);
    thue_msg_clear(&in);
    return r;
}

static void test_roommodel_gap_asks_for_sync(void **state)
{
    (void)state;
    const char *games[] = {"nim", "thue-square", "dots"};
    for (int g = 0; g < 3; g++) {
        const match *m = match_named(games[g]);
        cli_model *model = cli_model_new(m->me);
        int p = first_played(m, 0);
        feed(model, m, p); /* the states up to the first move */
        char room[THUE_PROTO_KEY_MAX + 1] = "";
        /* The first move's played is lost: the second is a gap. */
        assert_int_equal(apply_text(model, m->v2[p + 1], room), CLI_MODEL_SYNC);
        assert_true(strstr(cli_model_why(model), "version gap") != NULL);
        thue_msg st;
        decode(m->v1[0], &st);
        assert_string_equal(room, st.u.room_state.room);
        /* The room is forgotten: what follows is ignored until a whole state comes. */
        assert_null(cli_model_find(model, room));
        assert_int_equal(apply_text(model, m->v2[p], room), CLI_MODEL_NONE);
        assert_int_equal(apply_text(model, m->v2[p + 2], room), CLI_MODEL_NONE);
        thue_msg_clear(&st);
        cli_model_free(model);
    }
}

static void test_roommodel_seen_late_and_unknown(void **state)
{
    (void)state;
    const match *m = match_named("circle");
    cli_model *model = cli_model_new(m->me);
    char room[THUE_PROTO_KEY_MAX + 1] = "";
    int p = first_played(m, 0);
    /* A played before any state of its room: unknown, ignored. */
    assert_int_equal(apply_text(model, m->v2[p], room), CLI_MODEL_NONE);
    feed(model, m, p + 3);
    /* A played seen already (a whole state overtook it), and an older whole state. */
    assert_int_equal(apply_text(model, m->v2[p + 1], room), CLI_MODEL_NONE);
    assert_int_equal(apply_text(model, m->v2[0], room), CLI_MODEL_NONE);
    /* The same version's whole state again (a sync's answer) replaces the state... */
    thue_msg st;
    decode(m->v1[0], &st);
    thue_msg *again = malloc(sizeof *again);
    assert_non_null(again);
    *again = *cli_model_find(model, st.u.room_state.room);
    int64_t v = again->u.room_state.version;
    thue_msg out;
    assert_int_equal(cli_model_apply(model, again, &out, room), CLI_MODEL_STATE);
    assert_int_equal(out.u.room_state.version, v);
    expect_reference(m, &out);
    thue_msg_clear(&out);
    free(again);
    thue_msg_clear(&st);
    /* ...and the model goes on from it. */
    assert_true(feed_from(model, m, p + 3, m->nv2) > 0);
    cli_model_free(model);
}

/* Feeds m up to its first played and returns that played, decoded, for tampering. */
static cli_model *before_first_move(const match *m, thue_msg *played)
{
    cli_model *model = cli_model_new(m->me);
    int p = first_played(m, 0);
    feed(model, m, p);
    decode(m->v2[p], played);
    return model;
}

static void expect_sync(cli_model *model, const thue_msg *in, const char *why_part)
{
    thue_msg out;
    char room[THUE_PROTO_KEY_MAX + 1] = "";
    cli_model_result r = cli_model_apply(model, in, &out, room);
    if (r == CLI_MODEL_STATE)
        thue_msg_clear(&out);
    assert_int_equal(r, CLI_MODEL_SYNC);
    if (strstr(cli_model_why(model), why_part) == NULL)
        fail_msg("why '%s' does not say '%s'", cli_model_why(model), why_part);
    assert_null(cli_model_find(model, room));
}

static void test_roommodel_refuses_what_does_not_fit(void **state)
{
    (void)state;
    thue_msg ev;
    /* Thue: a paint when the builder is to place; a place beyond the word; a to_move the
     * rules do not give; a move that is no Thue move. */
    const match *t = match_named("thue-square");
    cli_model *model = before_first_move(t, &ev);
    snprintf(ev.u.played.move, sizeof ev.u.played.move, "{\"paint\":0}");
    expect_sync(model, &ev, "does not fit");
    cli_model_free(model);
    thue_msg_clear(&ev);

    model = before_first_move(t, &ev);
    snprintf(ev.u.played.move, sizeof ev.u.played.move, "{\"place\":99}");
    expect_sync(model, &ev, "beyond the word");
    cli_model_free(model);
    thue_msg_clear(&ev);

    model = before_first_move(t, &ev);
    ev.u.played.to_move = 1 - ev.u.played.to_move;
    expect_sync(model, &ev, "to_move");
    cli_model_free(model);
    thue_msg_clear(&ev);

    model = before_first_move(t, &ev);
    snprintf(ev.u.played.move, sizeof ev.u.played.move, "{\"heap\":0,\"take\":1}");
    expect_sync(model, &ev, "neither place nor paint");
    cli_model_free(model);
    thue_msg_clear(&ev);

    /* Another game: a move the game refuses, and a to_move the game does not give. */
    const match *n = match_named("nim");
    model = before_first_move(n, &ev);
    snprintf(ev.u.played.move, sizeof ev.u.played.move, "{\"heap\":0,\"take\":99}");
    expect_sync(model, &ev, "refused");
    cli_model_free(model);
    thue_msg_clear(&ev);

    model = before_first_move(n, &ev);
    ev.u.played.to_move = 1 - ev.u.played.to_move;
    expect_sync(model, &ev, "to_move");
    cli_model_free(model);
    thue_msg_clear(&ev);
}

static void test_roommodel_you_is_found_by_name(void **state)
{
    (void)state;
    const match *m = match_named("thue-clock-bot");
    thue_msg st;
    decode(m->v1[m->nv1 - 1], &st);
    assert_int_equal(cli_model_seat_of(&st, m->me), 0);
    /* The bot's name is no player's: a bot's seat is never "you". */
    assert_int_equal(st.u.room_state.seats[1].player.kind, THUE_KIND_BOT);
    assert_int_equal(cli_model_seat_of(&st, st.u.room_state.seats[1].player.name), -1);
    assert_int_equal(cli_model_seat_of(&st, "Sam3"), -1);
    assert_int_equal(cli_model_seat_of(&st, ""), -1);
    assert_int_equal(cli_model_seat_of(&st, NULL), -1);
    thue_msg_clear(&st);

    /* A spectator's model: every state has you null; a name given later counts. */
    const match *d = match_named("dots");
    cli_model *model = cli_model_new(NULL);
    thue_msg in, out;
    char room[THUE_PROTO_KEY_MAX + 1];
    decode(d->v2[d->nv2 - 2], &in);
    assert_int_equal(cli_model_apply(model, &in, &out, room), CLI_MODEL_NONE); /* a played */
    thue_msg_clear(&in);
    int p = first_played(d, 0);
    decode(d->v2[p - 1], &in);
    assert_int_equal(cli_model_apply(model, &in, &out, room), CLI_MODEL_STATE);
    assert_int_equal(out.u.room_state.you, -1);
    thue_msg_clear(&out);
    thue_msg_clear(&in);
    cli_model_set_name(model, d->me);
    decode(d->v2[p], &in);
    assert_int_equal(cli_model_apply(model, &in, &out, room), CLI_MODEL_STATE);
    assert_int_equal(out.u.room_state.you, 0);
    thue_msg_clear(&out);
    thue_msg_clear(&in);
    cli_model_free(model);
}

/* m's first state as room `id` with ref `ref`, fed to model. */
static void add_room(cli_model *model, const match *m, const char *id, int ref)
{
    thue_msg in, out;
    char room[THUE_PROTO_KEY_MAX + 1];
    decode(m->v2[0], &in);
    snprintf(in.u.room_state.room, sizeof in.u.room_state.room, "%s", id);
    in.u.room_state.ref = ref;
    assert_int_equal(cli_model_apply(model, &in, &out, room), CLI_MODEL_STATE);
    assert_string_equal(out.u.room_state.room, id);
    thue_msg_clear(&out);
    thue_msg_clear(&in);
}

static void test_roommodel_forgets_and_evicts(void **state)
{
    (void)state;
    const match *m = match_named("nim");
    cli_model *model = cli_model_new(m->me);
    char id[THUE_PROTO_KEY_MAX + 1];
    for (int i = 0; i < 40; i++) {
        snprintf(id, sizeof id, "room%02d", i);
        add_room(model, m, id, 1000 + i);
    }
    /* At most 32 rooms: the least recently changed went first. */
    assert_null(cli_model_find(model, "room00"));
    assert_null(cli_model_find(model, "room07"));
    assert_non_null(cli_model_find(model, "room08"));
    assert_non_null(cli_model_find(model, "room39"));
    cli_model_forget(model, "room39");
    cli_model_forget(model, "no-such-room");
    assert_null(cli_model_find(model, "room39"));
    /* A ref that names another room now replaces the old room. */
    add_room(model, m, "other", 1010);
    assert_null(cli_model_find(model, "room10"));
    assert_non_null(cli_model_find(model, "other"));
    cli_model_free(model);
    cli_model_free(NULL);
}

static void test_roommodel_compare(void **state)
{
    (void)state;
    const match *m = match_named("thue-clock-bot");
    thue_msg a, b;
    char why[600];
    /* A state with the clock running. */
    int at = -1;
    for (int i = 0; i < m->nv1 && at < 0; i++) {
        decode(m->v1[i], &a);
        if (a.u.room_state.has_match && a.u.room_state.match.clock_running >= 0)
            at = i;
        thue_msg_clear(&a);
    }
    assert_true(at >= 0);
    decode(m->v1[at], &a);
    decode(m->v1[at], &b);
    assert_int_equal(cli_model_compare(&a, &b, 0, 0, why, sizeof why), 0);
    /* ref and you, and the away count-down, differ by design. */
    b.u.room_state.has_ref = 1;
    b.u.room_state.ref = 7;
    a.u.room_state.you = 1;
    b.u.room_state.seats[0].has_away = 1;
    b.u.room_state.seats[0].away_left_ms = 1234;
    assert_int_equal(cli_model_compare(&a, &b, 0, 0, why, sizeof why), 0);
    /* The running clock: within the slack, or not. */
    int run = b.u.room_state.match.clock_running;
    b.u.room_state.match.clocks[run] -= 40;
    assert_int_equal(cli_model_compare(&a, &b, -1, 50, why, sizeof why), 0);
    assert_int_equal(cli_model_compare(&a, &b, -1, 30, why, sizeof why), 1);
    assert_non_null(strstr(why, "running clock"));
    /* The other clock is compared exactly. */
    b.u.room_state.match.clocks[run] += 40;
    b.u.room_state.match.clocks[1 - run] -= 1;
    assert_int_equal(cli_model_compare(&a, &b, -1000, 1000, why, sizeof why), 1);
    assert_non_null(strstr(why, "differ at byte"));
    b.u.room_state.match.clocks[1 - run] += 1;
    b.u.room_state.match.thinking = b.u.room_state.match.thinking < 0 ? 1 : -1;
    assert_int_equal(cli_model_compare(&a, &b, 0, 0, why, sizeof why), 1);
    assert_non_null(strstr(why, "thinking"));
    thue_msg_clear(&a);
    thue_msg_clear(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roommodel_every_game_as_thue_v1),
        cmocka_unit_test(test_roommodel_gap_asks_for_sync),
        cmocka_unit_test(test_roommodel_seen_late_and_unknown),
        cmocka_unit_test(test_roommodel_refuses_what_does_not_fit),
        cmocka_unit_test(test_roommodel_you_is_found_by_name),
        cmocka_unit_test(test_roommodel_forgets_and_evicts),
        cmocka_unit_test(test_roommodel_compare),
    };
    return cmocka_run_group_tests(tests, load_vectors, free_vectors);
}
