/*
 * test_match_turns.c: the worked example of RULES.md played through the match machine
 * (games/thue/engine/match.h), then turn order and every error path, each followed by a check that
 * the whole match (round, step, placed, word, rounds[], reason, winner, forfeiter, moves)
 * is unchanged.
 */
#include "match_helpers.h"

/* ---------------------------------------------------------------- the worked example */

/* RULES.md: k = 3, square; builder 1/painter 2, 1/1, 3/1, 4/2 -> square 12|12. */
static void play_worked_example(thue_match *m)
{
    int r = m->round;
    int b = thue_match_builder(m), p = thue_match_painter(m);
    static const uint8_t w1[] = {0, 2}, w2[] = {0, 1, 2}, w3[] = {0, 1, 2, 1};
    int moves0 = m->moves;

    place_ok(m, 1);
    paint_ok(m, 2);
    assert_word(m, w1, 2);
    assert_int_equal(m->rounds[r].points, 1);
    assert_int_equal(thue_match_to_move(m), b);

    place_ok(m, 1);
    paint_ok(m, 1);
    assert_word(m, w2, 3);
    assert_int_equal(m->rounds[r].points, 2);

    place_ok(m, 3);
    paint_ok(m, 1);
    assert_word(m, w3, 4);
    assert_int_equal(m->rounds[r].points, 3);
    /* The painter paints only in this round. */
    assert_int_equal(thue_match_points(m, p), 3);
    assert_int_equal(m->rounds[r].end, THUE_ROUND_PLAYING);
    assert_int_equal(m->moves, moves0 + 3);

    place_ok(m, 4);
    paint_ok(m, 2);
    assert_int_equal(m->rounds[r].end, THUE_ROUND_REPETITION);
    assert_int_equal(m->rounds[r].rep.start, 1);
    assert_int_equal(m->rounds[r].rep.period, 2);
    assert_int_equal(m->rounds[r].rep.length, 4);
    assert_int_equal(m->rounds[r].points, 3);
    assert_int_equal(m->rounds[r].builder, b);
    assert_int_equal(m->moves, moves0 + 4);
}

static void test_example_worked_round(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        thue_match m;
        start(&m, THUE_SQUARE, 3, THUE_LIMIT_DEFAULT, fb);
        play_worked_example(&m);

        /* Round 1: roles swapped, word reset, nobody has won yet. */
        assert_int_equal(m.round, 1);
        assert_int_equal(m.step, THUE_STEP_PLACE);
        assert_false(thue_match_over(&m));
        assert_word_is_zero(&m);
        assert_int_equal(m.rounds[1].builder, 1 - fb);
        assert_int_equal(m.rounds[1].points, 0);
        assert_int_equal(m.rounds[1].end, THUE_ROUND_PLAYING);
        assert_int_equal(thue_match_builder(&m), 1 - fb);
        assert_int_equal(thue_match_painter(&m), fb);
        assert_int_equal(thue_match_to_move(&m), 1 - fb);
        assert_int_equal(thue_match_points(&m, 1 - fb), 3);
        assert_int_equal(thue_match_points(&m, fb), 0);
        assert_int_equal(m.reason, THUE_END_NONE);
        assert_int_equal(m.winner, -1);
        assert_int_equal(m.forfeiter, -1);
        assert_int_equal(m.moves, 4);
        /* Round 0's record is kept. */
        assert_int_equal(m.rounds[0].end, THUE_ROUND_REPETITION);
        assert_int_equal(m.rounds[0].points, 3);
        assert_int_equal(m.rounds[0].builder, fb);
        thue_match_free(&m);
    }
}

static void test_example_both_rounds_draw(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_SQUARE, 3, THUE_LIMIT_DEFAULT, 0);
    play_worked_example(&m);
    play_worked_example(&m);
    assert_true(thue_match_over(&m));
    assert_int_equal(m.step, THUE_STEP_OVER);
    assert_int_equal(m.round, 1);
    assert_int_equal(thue_match_to_move(&m), -1);
    assert_int_equal(thue_match_points(&m, 0), 3);
    assert_int_equal(thue_match_points(&m, 1), 3);
    assert_int_equal(m.winner, -1);
    assert_int_equal(m.reason, THUE_END_SCORE);
    assert_int_equal(m.forfeiter, -1);
    assert_int_equal(m.moves, 8);
    assert_int_equal(m.rounds[1].rep.start, 1);
    assert_int_equal(m.rounds[1].rep.period, 2);
    thue_match_free(&m);
}

/* ---------------------------------------------------------------- turn order and errors */

/* Wrong player / wrong action at the current step: ETURN or ESTEP, nothing changes. */
static void check_turn_errors(thue_match *m)
{
    int b = thue_match_builder(m), p = thue_match_painter(m);
    int n = m->word.len;
    assert_int_equal(b + p, 1);
    if (m->step == THUE_STEP_PLACE) {
        assert_int_equal(thue_match_to_move(m), b);
        /* The painter is not to move at all. */
        EXPECT_REJECT(m, thue_match_place(m, p, 0), THUE_ETURN);
        EXPECT_REJECT(m, thue_match_place(m, p, n), THUE_ETURN);
        EXPECT_REJECT(m, thue_match_paint(m, p, 0), THUE_ETURN);
        /* The builder is to move but must place, not paint. */
        EXPECT_REJECT(m, thue_match_paint(m, b, 0), THUE_ESTEP);
        EXPECT_REJECT(m, thue_match_paint(m, b, m->opt.k - 1), THUE_ESTEP);
    } else {
        assert_int_equal(m->step, THUE_STEP_PAINT);
        assert_int_equal(thue_match_to_move(m), p);
        /* The builder has placed; it is the painter's turn. */
        EXPECT_REJECT(m, thue_match_place(m, b, 0), THUE_ETURN);
        EXPECT_REJECT(m, thue_match_place(m, b, n), THUE_ETURN);
        EXPECT_REJECT(m, thue_match_paint(m, b, 0), THUE_ETURN);
        /* The painter is to move but must paint, not place. */
        EXPECT_REJECT(m, thue_match_place(m, p, 0), THUE_ESTEP);
        EXPECT_REJECT(m, thue_match_place(m, p, n), THUE_ESTEP);
    }
}

static void check_bad_players(thue_match *m)
{
    static const int bad[] = {-1, 2, 3, 1000, -1000};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        EXPECT_REJECT(m, thue_match_place(m, bad[j], 0), THUE_EPLAYER);
        EXPECT_REJECT(m, thue_match_paint(m, bad[j], 0), THUE_EPLAYER);
        EXPECT_REJECT(m, thue_match_forfeit(m, bad[j], THUE_END_RESIGN), THUE_EPLAYER);
    }
}

static void test_turn_alternates(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        thue_match m;
        start(&m, THUE_SQUARE, 64, 100, fb);
        for (int r = 0; r < 2; r++) {
            int b = r == 0 ? fb : 1 - fb;
            for (int j = 0; j < 4; j++) {
                assert_int_equal(m.round, r);
                assert_int_equal(m.step, THUE_STEP_PLACE);
                assert_int_equal(thue_match_to_move(&m), b);
                assert_int_equal(thue_match_builder(&m), b);
                assert_int_equal(thue_match_painter(&m), 1 - b);
                assert_int_equal(thue_match_place(&m, b, 0), 0);
                assert_int_equal(m.step, THUE_STEP_PAINT);
                assert_int_equal(m.placed, 0);
                assert_int_equal(thue_match_to_move(&m), 1 - b);
                assert_int_equal(thue_match_builder(&m), b);
                assert_int_equal(thue_match_painter(&m), 1 - b);
                assert_int_equal(thue_match_paint(&m, 1 - b, j + 1), 0);
                assert_int_equal(m.word.len, j + 2);
                assert_int_equal(m.word.sym[0], j + 1);
            }
            /* End the round: [4,3,2,1,0] + 0 at the end. */
            move_ok(&m, m.word.len, 0);
            assert_int_equal(m.rounds[r].end, THUE_ROUND_REPETITION);
            assert_int_equal(m.rounds[r].points, 4);
        }
        assert_true(thue_match_over(&m));
        assert_int_equal(m.winner, -1);
        thue_match_free(&m);
    }
}

static void test_turn_wrong_player_or_step(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        thue_match m;
        start(&m, THUE_SQUARE, 4, 100, fb);
        /* Round 0, PLACE, then PAINT, then again after a completed move. */
        check_turn_errors(&m);
        check_bad_players(&m);
        place_ok(&m, 1);
        check_turn_errors(&m);
        check_bad_players(&m);
        paint_ok(&m, 1);
        check_turn_errors(&m);
        place_ok(&m, 0);
        check_turn_errors(&m);
        paint_ok(&m, 1); /* [1,0,1] */
        /* Finish round 0 with a square and do the same in round 1 (roles swapped). */
        move_ok(&m, 3, 1);
        assert_int_equal(m.round, 1);
        check_turn_errors(&m);
        check_bad_players(&m);
        /* The round-0 builder may not place any more. */
        EXPECT_REJECT(&m, thue_match_place(&m, fb, 0), THUE_ETURN);
        place_ok(&m, 0);
        check_turn_errors(&m);
        check_bad_players(&m);
        EXPECT_REJECT(&m, thue_match_paint(&m, 1 - fb, 1), THUE_ETURN);
        paint_ok(&m, 1);
        check_turn_errors(&m);
        thue_match_free(&m);
    }
}

static void test_turn_bad_position(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_OVERLAP, 3, 100, 1);
    for (int len = 1; len <= 4; len++) {
        assert_int_equal(m.word.len, len);
        int b = thue_match_builder(&m);
        int bad[] = {-1, len + 1, len + 2, -100, 100000, THUE_WORD_MAX};
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++)
            EXPECT_REJECT(&m, thue_match_place(&m, b, bad[j]), THUE_EPOSITION);
        /* The boundaries 0 and n are fine (the front, then the end). */
        if (len % 2) {
            place_ok(&m, len);
            assert_int_equal(m.placed, len);
        } else {
            place_ok(&m, 0);
            assert_int_equal(m.placed, 0);
        }
        paint_ok(&m, len % 2 ? 1 : 2);
    }
    /* [0]: end 1 -> [0,1]; front 2 -> [2,0,1]; end 1 -> [2,0,1,1]; front 2 -> [2,2,0,1,1] */
    static const uint8_t want[] = {2, 2, 0, 1, 1};
    assert_word(&m, want, 5);
    assert_int_equal(m.rounds[0].points, 4);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_PLAYING);
    thue_match_free(&m);
}

static void test_turn_bad_symbol(void **state)
{
    (void)state;
    static const int ks[] = {2, 3, 10, 63, 64};
    for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++) {
        int k = ks[a];
        thue_match m;
        start(&m, THUE_SQUARE, k, 100, 0);
        place_ok(&m, 1);
        int p = thue_match_painter(&m);
        int bad[] = {-1, k, k + 1, 64, 255, 256, -256};
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++)
            EXPECT_REJECT(&m, thue_match_paint(&m, p, bad[j]), THUE_ESYMBOL);
        /* k - 1 is the largest symbol. */
        paint_ok(&m, k - 1);
        assert_int_equal(m.word.len, 2);
        assert_int_equal(m.word.sym[0], 0);
        assert_int_equal(m.word.sym[1], k - 1);
        thue_match_free(&m);
    }
}

static void test_turn_after_end_is_eover(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_SQUARE, 5, 100, 0);
    play_round(&m, 2);
    play_round(&m, 1);
    assert_int_equal(m.reason, THUE_END_SCORE);
    check_over_rejects(&m);
    thue_match_free(&m);

    start(&m, THUE_SQUARE, 5, 100, 0);
    place_ok(&m, 0);
    assert_int_equal(thue_match_forfeit(&m, 1, THUE_END_TIMEOUT), 0);
    check_over_rejects(&m);
    thue_match_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_worked_round),
        cmocka_unit_test(test_example_both_rounds_draw),
        cmocka_unit_test(test_turn_alternates),
        cmocka_unit_test(test_turn_wrong_player_or_step),
        cmocka_unit_test(test_turn_bad_position),
        cmocka_unit_test(test_turn_bad_symbol),
        cmocka_unit_test(test_turn_after_end_is_eover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
