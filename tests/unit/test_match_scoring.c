/*
 * test_match_scoring.c: how a match (games/thue/engine/match.h) ends: scoring, the role swap, the
 * length limit (up to the maximum 10000), draws and wins, and forfeits by either player
 * in either round and step, for every reason.
 */
#include "match_helpers.h"

/* ---------------------------------------------------------------- scoring */

static void test_score_square_and_overlap_endings(void **state)
{
    (void)state;
    thue_match m;
    /* Square: "00" ends the round with no point. */
    start(&m, THUE_SQUARE, 2, 100, 0);
    move_ok(&m, 0, 0);
    assert_int_equal(m.round, 1);
    assert_int_equal(m.rounds[0].points, 0);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[0].rep.start, 0);
    assert_int_equal(m.rounds[0].rep.period, 1);
    assert_int_equal(m.rounds[0].rep.length, 2);
    assert_int_equal(m.moves, 1);
    assert_word_is_zero(&m);
    thue_match_free(&m);

    /* Overlap: "00" is fine (a point), "000" ends the round. */
    start(&m, THUE_OVERLAP, 2, 100, 1);
    move_ok(&m, 1, 0);
    assert_int_equal(m.round, 0);
    assert_int_equal(m.rounds[0].points, 1);
    assert_int_equal(m.word.len, 2);
    move_ok(&m, 1, 0);
    assert_int_equal(m.round, 1);
    assert_int_equal(m.rounds[0].points, 1);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[0].rep.start, 0);
    assert_int_equal(m.rounds[0].rep.period, 1);
    assert_int_equal(m.rounds[0].rep.length, 3);
    assert_int_equal(thue_match_points(&m, 0), 1);
    assert_int_equal(thue_match_points(&m, 1), 0);
    assert_int_equal(m.moves, 2);

    /* Round 1 (builder 0): 0 -> 01 -> 010 -> 0101 -> 01010 is an overlap of period 2. */
    move_ok(&m, 1, 1);
    move_ok(&m, 2, 0);
    move_ok(&m, 3, 1);
    assert_int_equal(m.rounds[1].points, 3);
    move_ok(&m, 4, 0);
    assert_true(thue_match_over(&m));
    assert_int_equal(m.rounds[1].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[1].points, 3);
    assert_int_equal(m.rounds[1].rep.start, 0);
    assert_int_equal(m.rounds[1].rep.period, 2);
    assert_int_equal(m.rounds[1].rep.length, 5);
    assert_int_equal(thue_match_points(&m, 1), 3);
    assert_int_equal(m.winner, 1);
    assert_int_equal(m.reason, THUE_END_SCORE);
    assert_int_equal(m.moves, 6);
    thue_match_free(&m);
}

static void test_score_points_and_role_swap(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        thue_match m;
        start(&m, THUE_SQUARE, 10, 50, fb);
        play_round(&m, 2);
        assert_int_equal(m.round, 1);
        /* Round 1's builder is round 0's painter. */
        assert_int_equal(m.rounds[1].builder, 1 - fb);
        assert_int_equal(thue_match_builder(&m), 1 - fb);
        assert_int_equal(thue_match_painter(&m), fb);
        assert_int_equal(thue_match_points(&m, 1 - fb), 2);
        assert_int_equal(thue_match_points(&m, fb), 0);
        play_round(&m, 5);
        assert_true(thue_match_over(&m));
        assert_int_equal(m.round, 1);
        assert_int_equal(m.rounds[0].points, 2);
        assert_int_equal(m.rounds[1].points, 5);
        assert_int_equal(thue_match_points(&m, 1 - fb), 2);
        assert_int_equal(thue_match_points(&m, fb), 5);
        assert_int_equal(m.winner, fb);
        assert_int_equal(m.reason, THUE_END_SCORE);
        assert_int_equal(m.forfeiter, -1);
        assert_int_equal(m.moves, 3 + 6);
        thue_match_free(&m);
    }
}

static void test_score_win_either_way(void **state)
{
    (void)state;
    static const int cases[][2] = {{5, 2}, {2, 5}, {1, 0}, {0, 1}, {7, 6}, {6, 7}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int fb = 0; fb < 2; fb++) {
            thue_match m;
            start(&m, THUE_SQUARE, 10, 100, fb);
            play_round(&m, cases[c][0]); /* scored by 1 - fb */
            play_round(&m, cases[c][1]); /* scored by fb */
            assert_true(thue_match_over(&m));
            int want = cases[c][0] > cases[c][1] ? 1 - fb : fb;
            assert_int_equal(m.winner, want);
            assert_int_equal(m.reason, THUE_END_SCORE);
            assert_int_equal(m.forfeiter, -1);
            assert_int_equal(thue_match_points(&m, 1 - fb), cases[c][0]);
            assert_int_equal(thue_match_points(&m, fb), cases[c][1]);
            thue_match_free(&m);
        }
    }
}

static void test_score_draw(void **state)
{
    (void)state;
    static const int pts[] = {0, 1, 3, 8};
    for (size_t c = 0; c < sizeof pts / sizeof pts[0]; c++) {
        for (int fb = 0; fb < 2; fb++) {
            thue_match m;
            start(&m, THUE_SQUARE, 10, 100, fb);
            play_round(&m, pts[c]);
            play_round(&m, pts[c]);
            assert_true(thue_match_over(&m));
            assert_int_equal(m.winner, -1);
            assert_int_equal(m.reason, THUE_END_SCORE);
            assert_int_equal(m.forfeiter, -1);
            assert_int_equal(thue_match_points(&m, 0), pts[c]);
            assert_int_equal(thue_match_points(&m, 1), pts[c]);
            thue_match_free(&m);
        }
    }
}

/* Fresh symbols never repeat, so only the limit ends the rounds. */
static void test_limit_ends_round(void **state)
{
    (void)state;
    static const int limits[] = {1, 2, 10, 62};
    for (size_t a = 0; a < sizeof limits / sizeof limits[0]; a++) {
        int limit = limits[a];
        for (int v = 0; v < 2; v++) {
            thue_match m;
            start(&m, (thue_variant)v, 64, limit, 1);
            for (int r = 0; r < 2; r++) {
                for (int j = 0; j < limit; j++) {
                    assert_int_equal(m.round, r);
                    assert_int_equal(m.rounds[r].end, THUE_ROUND_PLAYING);
                    assert_int_equal(m.word.len, j + 1);
                    move_ok(&m, j % 2 ? 0 : m.word.len, j + 1);
                }
                assert_int_equal(m.rounds[r].end, THUE_ROUND_LIMIT);
                assert_int_equal(m.rounds[r].points, limit);
            }
            assert_true(thue_match_over(&m));
            assert_int_equal(m.round, 1);
            assert_int_equal(thue_match_points(&m, 0), limit);
            assert_int_equal(thue_match_points(&m, 1), limit);
            assert_int_equal(m.winner, -1);
            assert_int_equal(m.reason, THUE_END_SCORE);
            assert_int_equal(m.moves, 2 * limit);
            thue_match_free(&m);
        }
    }
}

static void test_limit_overlap_k5(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_OVERLAP, 5, 3, 0);
    /* Round 0: 0 -> 01 -> 010 -> 0102: three points, the limit. */
    move_ok(&m, 1, 1);
    move_ok(&m, 2, 0);
    assert_int_equal(m.rounds[0].points, 2);
    move_ok(&m, 3, 2);
    assert_int_equal(m.round, 1);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_LIMIT);
    assert_int_equal(m.rounds[0].points, 3);
    assert_word_is_zero(&m);
    /* Round 1: 0 -> 00 -> 001 (aa is no overlap), then 0001 ends the round on the paint
     * that would have reached the limit: a repetition, two points. */
    move_ok(&m, 0, 0); /* 00 */
    move_ok(&m, 2, 1); /* 001 */
    assert_int_equal(m.rounds[1].points, 2);
    move_ok(&m, 0, 0); /* 0001: overlap 000 */
    assert_true(thue_match_over(&m));
    assert_int_equal(m.rounds[1].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[1].points, 2);
    assert_int_equal(m.rounds[1].rep.start, 0);
    assert_int_equal(m.rounds[1].rep.period, 1);
    assert_int_equal(m.rounds[1].rep.length, 3);
    assert_int_equal(thue_match_points(&m, 1), 3);
    assert_int_equal(thue_match_points(&m, 0), 2);
    assert_int_equal(m.winner, 1);
    thue_match_free(&m);
}

/* A repetition on the paint that would reach the limit ends the round as a repetition. */
static void test_limit_repetition_wins_over_limit(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_SQUARE, 4, 2, 0);
    move_ok(&m, 1, 1); /* 01 */
    assert_int_equal(m.rounds[0].points, 1);
    move_ok(&m, 2, 1); /* 011 */
    assert_int_equal(m.rounds[0].end, THUE_ROUND_REPETITION);
    assert_int_equal(m.rounds[0].points, 1);
    assert_int_equal(m.round, 1);
    thue_match_free(&m);
}

/*
 * The longest possible rounds: limit 10000, k = 3, the painter following Thue's
 * square-free ternary word (differences of the Thue-Morse word, renamed so that it starts
 * with 0), the builder always placing at the end. Both rounds reach the limit.
 */
static int thue_morse(int n)
{
    int t = 0;
    for (unsigned u = (unsigned)n; u; u &= u - 1)
        t ^= 1;
    return t;
}

static void test_limit_maximum(void **state)
{
    (void)state;
    int n = THUE_LIMIT_MAX + 1;
    uint8_t *w = malloc((size_t)n);
    assert_non_null(w);
    /* t(n+1) - t(n) is -1, 0 or 1; d(0) = 1 is renamed 0. */
    for (int j = 0; j < n; j++) {
        int d = thue_morse(j + 1) - thue_morse(j);
        w[j] = (uint8_t)(d == 1 ? 0 : d == 0 ? 1 : 2);
    }
    thue_repetition rep;
    assert_int_equal(ref_repetition(w, n, THUE_SQUARE, &rep), 0);
    assert_int_equal(w[0], 0);

    thue_match m;
    start(&m, THUE_SQUARE, 3, THUE_LIMIT_MAX, 0);
    for (int r = 0; r < 2; r++) {
        int b = thue_match_builder(&m), p = thue_match_painter(&m);
        for (int j = 1; j < n; j++) {
            assert_int_equal(thue_match_place(&m, b, j), 0);
            assert_int_equal(thue_match_paint(&m, p, w[j]), 0);
            if (j < n - 1) {
                assert_int_equal(m.round, r);
                assert_int_equal(m.word.len, j + 1);
            }
        }
        assert_int_equal(m.rounds[r].end, THUE_ROUND_LIMIT);
        assert_int_equal(m.rounds[r].points, THUE_LIMIT_MAX);
    }
    assert_true(thue_match_over(&m));
    assert_int_equal(m.winner, -1);
    assert_int_equal(m.moves, 2 * THUE_LIMIT_MAX);
    thue_match_free(&m);
    free(w);
}

/* ---------------------------------------------------------------- forfeits */

static const thue_end_reason forfeit_reasons[] = {THUE_END_RESIGN, THUE_END_TIMEOUT,
                                                  THUE_END_ABANDON};

/*
 * Brings a fresh match (k = 10, square) to round `round` and step `step` with the scores
 * uneven: in round 0 the painter (1 - fb) has 2 points; in round 1 round 0's painter has
 * 5 and the current painter (fb) 1.
 */
static void reach(thue_match *m, int fb, int round, thue_step step)
{
    start(m, THUE_SQUARE, 10, 100, fb);
    if (round == 1) {
        play_round(m, 5);
        move_ok(m, 1, 1);
    } else {
        move_ok(m, 1, 1);
        move_ok(m, 0, 2);
    }
    if (step == THUE_STEP_PAINT)
        place_ok(m, 1);
    assert_int_equal(m->round, round);
    assert_int_equal(m->step, step);
}

static void test_forfeit_any_player_round_step_reason(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        for (int round = 0; round < 2; round++) {
            for (int s = 0; s < 2; s++) {
                thue_step step = s ? THUE_STEP_PAINT : THUE_STEP_PLACE;
                for (int who = 0; who < 2; who++) {
                    for (size_t rr = 0; rr < 3; rr++) {
                        thue_end_reason why = forfeit_reasons[rr];
                        thue_match m;
                        reach(&m, fb, round, step);
                        thue_round r0 = m.rounds[0];
                        int moves = m.moves;
                        int pts0 = thue_match_points(&m, 0), pts1 = thue_match_points(&m, 1);
                        int rpts = m.rounds[round].points;

                        assert_int_equal(thue_match_forfeit(&m, who, why), 0);
                        assert_true(thue_match_over(&m));
                        assert_int_equal(m.step, THUE_STEP_OVER);
                        assert_int_equal(thue_match_to_move(&m), -1);
                        assert_int_equal(m.reason, why);
                        assert_int_equal(m.winner, 1 - who);
                        assert_int_equal(m.forfeiter, who);
                        assert_int_equal(m.round, round);
                        assert_int_equal(m.rounds[round].end, THUE_ROUND_FORFEIT);
                        assert_int_equal(m.rounds[round].points, rpts);
                        if (round == 0) {
                            assert_int_equal(m.rounds[1].end, THUE_ROUND_NOT_PLAYED);
                            assert_int_equal(m.rounds[1].points, 0);
                        } else {
                            /* Round 0's record is untouched. */
                            assert_int_equal(m.rounds[0].end, r0.end);
                            assert_int_equal(m.rounds[0].points, r0.points);
                            assert_int_equal(m.rounds[0].builder, r0.builder);
                            assert_int_equal(m.rounds[0].rep.start, r0.rep.start);
                        }
                        assert_int_equal(m.moves, moves);
                        assert_int_equal(thue_match_points(&m, 0), pts0);
                        assert_int_equal(thue_match_points(&m, 1), pts1);
                        check_over_rejects(&m);
                        thue_match_free(&m);
                    }
                }
            }
        }
    }
}

/* The forfeiter loses even when leading on points (and the other way round). */
static void test_forfeit_beats_scores(void **state)
{
    (void)state;
    thue_match m;
    /* Player 1 painted 5 in round 0 and leads 5 - 0; player 1 resigns: 0 wins. */
    start(&m, THUE_SQUARE, 10, 100, 0);
    play_round(&m, 5);
    assert_int_equal(thue_match_forfeit(&m, 1, THUE_END_RESIGN), 0);
    assert_int_equal(m.winner, 0);
    assert_int_equal(m.forfeiter, 1);
    assert_int_equal(m.rounds[1].end, THUE_ROUND_FORFEIT);
    thue_match_free(&m);

    /* Player 0 trails 0 - 5 and abandons: 1 wins. */
    start(&m, THUE_SQUARE, 10, 100, 0);
    play_round(&m, 5);
    place_ok(&m, 0);
    assert_int_equal(thue_match_forfeit(&m, 0, THUE_END_ABANDON), 0);
    assert_int_equal(m.winner, 1);
    assert_int_equal(m.forfeiter, 0);
    assert_int_equal(m.reason, THUE_END_ABANDON);
    thue_match_free(&m);

    /* Straight away, before any move: round 0 forfeited, round 1 not played. */
    start(&m, THUE_OVERLAP, 2, 1, 1);
    assert_int_equal(thue_match_forfeit(&m, 1, THUE_END_TIMEOUT), 0);
    assert_int_equal(m.winner, 0);
    assert_int_equal(m.rounds[0].end, THUE_ROUND_FORFEIT);
    assert_int_equal(m.rounds[1].end, THUE_ROUND_NOT_PLAYED);
    assert_int_equal(m.reason, THUE_END_TIMEOUT);
    assert_int_equal(m.moves, 0);
    thue_match_free(&m);
}

static void test_forfeit_bad_reason(void **state)
{
    (void)state;
    static const int bad[] = {THUE_END_SCORE, THUE_END_NONE, -1, 5, 99};
    for (int round = 0; round < 2; round++) {
        for (int s = 0; s < 2; s++) {
            thue_match m;
            reach(&m, round, round, s ? THUE_STEP_PAINT : THUE_STEP_PLACE);
            for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++)
                for (int who = 0; who < 2; who++)
                    EXPECT_REJECT(&m, thue_match_forfeit(&m, who, (thue_end_reason)bad[j]),
                                  THUE_EINVAL);
            /* Still playable. */
            assert_false(thue_match_over(&m));
            if (m.step == THUE_STEP_PLACE)
                place_ok(&m, 0);
            paint_ok(&m, 9);
            thue_match_free(&m);
        }
    }
}

static void test_forfeit_after_end(void **state)
{
    (void)state;
    thue_match m;
    start(&m, THUE_SQUARE, 10, 100, 0);
    play_round(&m, 1);
    play_round(&m, 0);
    assert_int_equal(m.winner, 1);
    for (int who = 0; who < 2; who++)
        for (size_t rr = 0; rr < 3; rr++)
            EXPECT_REJECT(&m, thue_match_forfeit(&m, who, forfeit_reasons[rr]), THUE_EOVER);
    thue_match_free(&m);

    start(&m, THUE_SQUARE, 10, 100, 0);
    assert_int_equal(thue_match_forfeit(&m, 0, THUE_END_RESIGN), 0);
    for (int who = 0; who < 2; who++)
        for (size_t rr = 0; rr < 3; rr++)
            EXPECT_REJECT(&m, thue_match_forfeit(&m, who, forfeit_reasons[rr]), THUE_EOVER);
    assert_int_equal(m.winner, 1);
    assert_int_equal(m.reason, THUE_END_RESIGN);
    thue_match_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_square_and_overlap_endings),
        cmocka_unit_test(test_score_points_and_role_swap),
        cmocka_unit_test(test_score_win_either_way),
        cmocka_unit_test(test_score_draw),
        cmocka_unit_test(test_limit_ends_round),
        cmocka_unit_test(test_limit_overlap_k5),
        cmocka_unit_test(test_limit_repetition_wins_over_limit),
        cmocka_unit_test(test_limit_maximum),
        cmocka_unit_test(test_forfeit_any_player_round_step_reason),
        cmocka_unit_test(test_forfeit_beats_scores),
        cmocka_unit_test(test_forfeit_bad_reason),
        cmocka_unit_test(test_forfeit_after_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
