/*
 * test_lg_model.c: the load generator's reading of thue.v2 (lg_scan_played, the `ref`
 * of lg_scan_state) against the project's codec, and its model of a room (lg_model.c)
 * against the engine: random matches are played with thue_match, each move is turned
 * into the `played` text the server would send (encoded by the codec), scanned and
 * applied, and after every move the model must equal the match as the engine has it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/thue/engine/match.h"
#include "lg_model.h"
#include "lg_scan.h"
#include "protocol/codec.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The codec's text of a played message (the caller frees it). */
static char *encode(thue_msg *msg)
{
    msg->type = THUE_MSG_PLAYED;
    char *t = thue_msg_encode(msg, NULL);
    assert_non_null(t);
    return t;
}

static void test_scan_played_every_member(void **state)
{
    (void)state;
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    __typeof__(msg.u.played) *p = &msg.u.played;
    p->ref = 2147483647;
    p->version = 123456789012LL;
    snprintf(p->move, sizeof p->move, "{\"paint\":11}");
    p->think_ms = 12.345;
    p->to_move = -1;
    p->has_points = 1;
    p->points[0] = 7;
    p->points[1] = 100;
    p->has_clocks = 1;
    p->clocks[0] = 5000;
    p->clocks[1] = 0;
    p->has_thinking = 1;
    p->thinking = 0;
    p->has_round_end = 1;
    p->end = THUE_ROUND_REPETITION;
    p->has_repetition = 1;
    p->repetition.start = 3;
    p->repetition.period = 2;
    p->repetition.length = 4;
    p->has_result = 1;
    p->winner = 1;
    snprintf(p->reason, sizeof p->reason, "score");
    char *t = encode(&msg);
    lg_played ev;
    assert_int_equal(lg_scan_played(t, strlen(t), &ev), 0);
    assert_int_equal(ev.ref, 2147483647);
    assert_true(ev.version == 123456789012LL);
    assert_int_equal(ev.paint, 1);
    assert_int_equal(ev.value, 11);
    assert_int_equal(ev.to_move, -1);
    assert_int_equal(ev.thinking, 0);
    assert_int_equal(ev.round_end, 1);
    assert_int_equal(ev.over, 1);
    free(t);

    /* The short form: a place, nothing optional. */
    memset(&msg, 0, sizeof msg);
    p->ref = 1;
    p->version = 5;
    snprintf(p->move, sizeof p->move, "{\"place\":0}");
    p->to_move = 1;
    t = encode(&msg);
    assert_int_equal(lg_scan_played(t, strlen(t), &ev), 0);
    assert_int_equal(ev.paint, 0);
    assert_int_equal(ev.value, 0);
    assert_int_equal(ev.to_move, 1);
    assert_int_equal(ev.thinking, -1);
    assert_int_equal(ev.round_end, 0);
    assert_int_equal(ev.over, 0);
    free(t);

    /* A round ended by the limit, the next one begun. */
    p->has_round_end = 1;
    p->end = THUE_ROUND_LIMIT;
    snprintf(p->move, sizeof p->move, "{\"paint\":2}");
    t = encode(&msg);
    assert_int_equal(lg_scan_played(t, strlen(t), &ev), 0);
    assert_int_equal(ev.round_end, 2);
    assert_int_equal(ev.over, 0);
    free(t);
}

static void test_scan_played_refuses(void **state)
{
    (void)state;
    lg_played ev;
    static const char *const bad[] = {
        /* another game's move */
        "{\"type\":\"played\",\"ref\":1,\"version\":2,\"move\":{\"take\":[1,2]},"
        "\"think_ms\":0,\"to_move\":1,\"points\":[0,0]}",
        /* over without result, and result while someone is to move */
        "{\"type\":\"played\",\"ref\":1,\"version\":2,\"move\":{\"place\":1},"
        "\"think_ms\":0,\"to_move\":null,\"points\":[0,0]}",
        "{\"type\":\"played\",\"ref\":1,\"version\":2,\"move\":{\"place\":1},"
        "\"think_ms\":0,\"to_move\":1,\"points\":[0,0],\"result\":{\"winner\":null,"
        "\"reason\":\"score\"}}",
        /* members out of order or missing */
        "{\"type\":\"played\",\"version\":2,\"ref\":1,\"move\":{\"place\":1},"
        "\"think_ms\":0,\"to_move\":1,\"points\":[0,0]}",
        "{\"type\":\"played\",\"ref\":1,\"version\":2,\"move\":{\"place\":1}}",
        "{\"type\":\"played\",\"ref\":0,\"version\":2,\"move\":{\"place\":1},"
        "\"think_ms\":0,\"to_move\":1,\"points\":[0,0]}",
        "{\"type\":\"room_state\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(lg_scan_played(bad[i], strlen(bad[i]), &ev), -1);
}

/* thue.v2's room_state (as thue-server wrote it) has the ref where thue.v1's has you. */
static void test_scan_state_v2(void **state)
{
    (void)state;
    static const char v2[] =
        "{\"type\":\"room_state\",\"room\":\"r90mwanjrpi67rjx4\",\"version\":8,\"name\":\"Ann's "
        "room\",\"status\":\"playing\",\"options\":{\"variant\":\"square\",\"k\":3,\"limit\":4,"
        "\"clock\":null,\"rated\":false,\"private\":false,\"first_builder\":\"creator\"},"
        "\"players\":[{\"name\":\"Ann\",\"kind\":\"guest\",\"bot\":null,\"connected\":true,"
        "\"ready\":true,\"rating\":null},{\"name\":\"Bob\",\"kind\":\"guest\",\"bot\":null,"
        "\"connected\":true,\"ready\":true,\"rating\":null}],\"spectators\":2,\"ref\":2,"
        "\"match\":{\"number\":1,\"round\":1,\"builder\":1,\"painter\":0,\"step\":\"paint\","
        "\"to_move\":0,\"word\":[0,1],\"placed\":2,\"rounds\":[{\"builder\":0,\"points\":1,"
        "\"end\":\"limit\",\"repetition\":null,\"word\":[0,1]},{\"builder\":1,\"points\":0,"
        "\"end\":\"playing\",\"repetition\":null,\"word\":null}],\"points\":[0,1],"
        "\"clocks\":null,\"clock_running\":null,\"last_move\":null,\"thinking\":null,"
        "\"result\":null}}";
    lg_state st;
    assert_int_equal(lg_scan_state(v2, sizeof v2 - 1, &st), 0);
    assert_int_equal(st.ref, 2);
    assert_int_equal(st.you, -1);
    assert_int_equal(st.version, 8);
    assert_int_equal(st.round, 1);
    assert_int_equal(st.step, 1);
    assert_int_equal(st.to_move, 0);
    assert_int_equal(st.placed, 2);
    lg_model m;
    lg_model_init(&m);
    assert_int_equal(lg_model_reset(&m, &st, v2 + sizeof v2 - 1), 0);
    assert_int_equal(m.len, 2);
    assert_int_equal(m.word[1], 1);
    assert_int_equal(m.ref, 2);
    lg_model_free(&m);
}

/* The model the engine's match stands for at version v (what a whole state says). */
static void truth(const thue_match *mt, int64_t v, lg_model *out)
{
    out->version = v;
    out->status = thue_match_over(mt) ? 2 : 1;
    out->has_match = 1;
    out->round = mt->round;
    out->step = (int)mt->step;
    out->to_move = thue_match_to_move(mt);
    out->placed = mt->step == THUE_STEP_PAINT ? mt->placed : -1;
    out->thinking = -1;
    out->len = mt->word.len;
    out->word = mt->word.sym;
}

/* The played text the server sends after seat's move in mt (round_was: the round it was
 * made in), as room.c's fill_played builds it. */
static char *played_text(const thue_match *mt, int ref, int64_t v, int seat, int paint, int value,
                         int round_was)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    __typeof__(msg.u.played) *p = &msg.u.played;
    p->ref = ref;
    p->version = v;
    (void)seat; /* the mover: the state's to_move (thue.v2 does not say it) */
    snprintf(p->move, sizeof p->move, "{\"%s\":%d}", paint ? "paint" : "place", value);
    p->think_ms = (double)(next() % 100000) / 1000;
    p->to_move = thue_match_to_move(mt);
    p->has_points = paint; /* a paint may score; a place never does */
    for (int i = 0; i < 2; i++)
        p->points[i] = thue_match_points(mt, i);
    if (round_was != mt->round || thue_match_over(mt)) {
        const thue_round *r = &mt->rounds[round_was];
        if (r->end != THUE_ROUND_PLAYING) {
            p->has_round_end = 1;
            p->end = r->end;
            p->has_repetition = r->end == THUE_ROUND_REPETITION;
            if (p->has_repetition) {
                p->repetition.start = r->rep.start;
                p->repetition.period = r->rep.period;
                p->repetition.length = r->rep.length;
            }
        }
    }
    if (next() % 3 == 0 && !thue_match_over(mt)) {
        p->has_thinking = 1;
        p->thinking = p->to_move;
    }
    p->has_result = thue_match_over(mt);
    p->winner = mt->winner;
    snprintf(p->reason, sizeof p->reason, "%s", thue_end_reason_name(mt->reason));
    return encode(&msg);
}

static void test_model_follows_the_engine(void **state)
{
    (void)state;
    long moves = 0, rounds_ended = 0;
    for (int game = 0; game < 300; game++) {
        thue_match_options opt = thue_match_defaults();
        opt.variant = game % 2 ? THUE_OVERLAP : THUE_SQUARE;
        opt.k = 2 + (int)(next() % 3);
        opt.limit = 1 + (int)(next() % 12);
        opt.first_builder = (int)(next() % 2);
        thue_match mt;
        assert_int_equal(thue_match_init(&mt, &opt), 0);
        /* The model starts from the whole state at the match's start. */
        const int ref = 1 + game;
        int64_t v = 10 + game;
        lg_model m, want;
        lg_model_init(&m);
        truth(&mt, v, &want);
        lg_state st;
        memset(&st, 0, sizeof st);
        st.version = v;
        st.status = 1;
        st.ref = ref;
        st.has_match = 1;
        st.to_move = thue_match_to_move(&mt);
        st.placed = st.thinking = st.you = -1;
        static const char word0[] = "[0]";
        st.word = word0;
        assert_int_equal(lg_model_reset(&m, &st, word0 + 3), 0);
        assert_null(lg_model_diff(&m, &want));
        for (int guard = 0; guard < 10000 && !thue_match_over(&mt); guard++) {
            int seat = thue_match_to_move(&mt);
            int round_was = mt.round;
            int paint = mt.step == THUE_STEP_PAINT;
            int value = paint ? (int)(next() % (uint64_t)opt.k)
                              : (int)(next() % (uint64_t)(mt.word.len + 1));
            assert_int_equal(
                paint ? thue_match_paint(&mt, seat, value) : thue_match_place(&mt, seat, value), 0);
            char *t = played_text(&mt, ref, ++v, seat, paint, value, round_was);
            lg_played ev;
            assert_int_equal(lg_scan_played(t, strlen(t), &ev), 0);
            free(t);
            assert_int_equal(lg_model_apply(&m, &ev), LG_MODEL_APPLIED);
            truth(&mt, v, &want);
            want.thinking = ev.thinking;
            const char *diff = lg_model_diff(&m, &want);
            if (diff != NULL)
                fail_msg("game %d, version %lld: the model differs in %s", game, (long long)v,
                         diff);
            rounds_ended += ev.round_end != 0;
            moves++;
        }
        assert_true(thue_match_over(&mt));
        /* A played of the ended match, or one from the past, is not applied. */
        lg_played late = {.ref = ref, .version = v, .to_move = -1, .thinking = -1};
        assert_int_equal(lg_model_apply(&m, &late), LG_MODEL_STALE);
        late.version = v + 1;
        assert_int_equal(lg_model_apply(&m, &late), LG_MODEL_BAD);
        late.ref = ref + 1;
        assert_int_equal(lg_model_apply(&m, &late), LG_MODEL_OTHER);
        lg_model_free(&m);
        thue_match_free(&mt);
    }
    assert_true(moves > 1000);
    assert_true(rounds_ended >= 600); /* both rounds of every match */
}

static void test_model_gap_and_misfit(void **state)
{
    (void)state;
    static const char word[] = "[0,1]";
    lg_state st;
    memset(&st, 0, sizeof st);
    st.version = 7;
    st.status = 1;
    st.ref = 3;
    st.has_match = 1;
    st.to_move = 0;
    st.placed = st.thinking = st.you = -1;
    st.word = word;
    lg_model m;
    lg_model_init(&m);
    lg_played ev = {
        .ref = 3, .version = 9, .paint = 0, .value = 1, .to_move = 1, .thinking = -1};
    assert_int_equal(lg_model_apply(&m, &ev), LG_MODEL_OTHER); /* no state yet */
    assert_int_equal(lg_model_reset(&m, &st, word + sizeof word - 1), 0);
    assert_int_equal(lg_model_apply(&m, &ev), LG_MODEL_GAP);
    ev.version = 8;
    ev.value = 3; /* past the word's end (2) */
    assert_int_equal(lg_model_apply(&m, &ev), LG_MODEL_BAD);
    ev.value = 2;
    ev.paint = 1; /* a paint while a place is due */
    assert_int_equal(lg_model_apply(&m, &ev), LG_MODEL_BAD);
    ev.paint = 0;
    assert_int_equal(m.version, 7); /* nothing refused changed it */
    assert_int_equal(lg_model_apply(&m, &ev), LG_MODEL_APPLIED);
    assert_int_equal(m.placed, 2);
    assert_int_equal(m.step, 1);
    lg_model_free(&m);
}

int main(void)
{
    thue_codec_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_played_every_member),
        cmocka_unit_test(test_scan_played_refuses),
        cmocka_unit_test(test_scan_state_v2),
        cmocka_unit_test(test_model_follows_the_engine),
        cmocka_unit_test(test_model_gap_and_misfit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
