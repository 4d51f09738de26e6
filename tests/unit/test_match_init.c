/*
 * test_match_init.c: the match state machine (games/thue/engine/match.h) from its start: the
 * defaults, every invalid option with its code, the boundaries, the state of a fresh
 * match, free on NULL, and the distinct names of results and reasons.
 */
#include "match_helpers.h"

/* ---------------------------------------------------------------- init */

static void test_init_defaults(void **state)
{
    (void)state;
    thue_match_options o = thue_match_defaults();
    assert_int_equal(o.variant, THUE_SQUARE);
    assert_int_equal(o.k, 3);
    assert_int_equal(o.limit, THUE_LIMIT_DEFAULT);
    assert_int_equal(o.limit, 100);
    assert_int_equal(o.first_builder, 0);

    thue_match m;
    assert_int_equal(thue_match_init(&m, &o), 0);
    assert_int_equal(m.opt.variant, THUE_SQUARE);
    assert_int_equal(m.opt.k, 3);
    assert_int_equal(m.opt.limit, 100);
    assert_int_equal(m.opt.first_builder, 0);
    thue_match_free(&m);
}

static void assert_fresh(const thue_match *m, int fb)
{
    assert_int_equal(m->round, 0);
    assert_int_equal(m->step, THUE_STEP_PLACE);
    assert_false(thue_match_over(m));
    assert_word_is_zero(m);
    assert_true(m->word.cap >= m->opt.limit + 1);
    assert_int_equal(thue_match_to_move(m), fb);
    assert_int_equal(thue_match_builder(m), fb);
    assert_int_equal(thue_match_painter(m), 1 - fb);
    assert_int_equal(m->rounds[0].builder, fb);
    assert_int_equal(m->rounds[0].points, 0);
    assert_int_equal(m->rounds[0].end, THUE_ROUND_PLAYING);
    assert_int_equal(m->rounds[1].points, 0);
    assert_int_equal(m->rounds[1].end, THUE_ROUND_PLAYING);
    assert_int_equal(thue_match_points(m, 0), 0);
    assert_int_equal(thue_match_points(m, 1), 0);
    assert_int_equal(m->winner, -1);
    assert_int_equal(m->forfeiter, -1);
    assert_int_equal(m->reason, THUE_END_NONE);
    assert_int_equal(m->moves, 0);
}

static void test_init_initial_state(void **state)
{
    (void)state;
    for (int fb = 0; fb < 2; fb++) {
        for (int v = 0; v < 2; v++) {
            thue_match m;
            start(&m, (thue_variant)v, 5, 17, fb);
            assert_int_equal(m.opt.variant, v);
            assert_int_equal(m.opt.k, 5);
            assert_int_equal(m.opt.limit, 17);
            assert_int_equal(m.opt.first_builder, fb);
            assert_fresh(&m, fb);
            thue_match_free(&m);
        }
    }
}

static void expect_init_error(thue_match_options o, int code)
{
    thue_match m;
    memset(&m, 0, sizeof m);
    assert_int_equal(thue_match_init(&m, &o), code);
}

static void test_init_bad_variant(void **state)
{
    (void)state;
    thue_match_options o = thue_match_defaults();
    o.variant = (thue_variant)2;
    expect_init_error(o, THUE_EVARIANT);
    o.variant = (thue_variant)-1;
    expect_init_error(o, THUE_EVARIANT);
    o.variant = (thue_variant)1000;
    expect_init_error(o, THUE_EVARIANT);
}

static void test_init_bad_k(void **state)
{
    (void)state;
    static const int bad[] = {1, 65, 0, -1, 255, 256};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        thue_match_options o = thue_match_defaults();
        o.k = bad[j];
        expect_init_error(o, THUE_EK);
    }
}

static void test_init_bad_limit(void **state)
{
    (void)state;
    static const int bad[] = {0, 10001, -1, 65536};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        thue_match_options o = thue_match_defaults();
        o.limit = bad[j];
        expect_init_error(o, THUE_ELIMIT);
    }
}

static void test_init_bad_first_builder(void **state)
{
    (void)state;
    static const int bad[] = {2, -1, 100};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        thue_match_options o = thue_match_defaults();
        o.first_builder = bad[j];
        expect_init_error(o, THUE_EPLAYER);
    }
}

static void test_init_boundaries(void **state)
{
    (void)state;
    static const int ks[] = {THUE_K_MIN, THUE_K_MAX, 2, 64};
    static const int limits[] = {THUE_LIMIT_MIN, THUE_LIMIT_MAX, 1, 10000};
    for (size_t a = 0; a < 4; a++) {
        for (size_t b = 0; b < 4; b++) {
            for (int v = 0; v < 2; v++) {
                for (int fb = 0; fb < 2; fb++) {
                    thue_match m;
                    start(&m, (thue_variant)v, ks[a], limits[b], fb);
                    assert_int_equal(m.opt.k, ks[a]);
                    assert_int_equal(m.opt.limit, limits[b]);
                    assert_fresh(&m, fb);
                    /* The largest symbol is accepted. */
                    move_ok(&m, 1, ks[a] - 1);
                    assert_int_equal(m.moves, 1);
                    thue_match_free(&m);
                }
            }
        }
    }
}

static void test_free_null(void **state)
{
    (void)state;
    thue_match_free(NULL);
}

/* ---------------------------------------------------------------- names */

static void assert_distinct_names(const char **names, int n)
{
    for (int a = 0; a < n; a++) {
        assert_non_null(names[a]);
        assert_true(names[a][0] != '\0');
        for (int b = 0; b < a; b++)
            assert_string_not_equal(names[a], names[b]);
    }
}

static void test_names_distinct(void **state)
{
    (void)state;
    const char *steps[] = {thue_step_name(THUE_STEP_PLACE), thue_step_name(THUE_STEP_PAINT),
                           thue_step_name(THUE_STEP_OVER)};
    assert_distinct_names(steps, 3);
    assert_string_equal(steps[0], "place");
    assert_string_equal(steps[1], "paint");
    assert_string_equal(steps[2], "over");

    const char *ends[] = {
        thue_round_end_name(THUE_ROUND_PLAYING), thue_round_end_name(THUE_ROUND_REPETITION),
        thue_round_end_name(THUE_ROUND_LIMIT), thue_round_end_name(THUE_ROUND_FORFEIT),
        thue_round_end_name(THUE_ROUND_NOT_PLAYED)};
    assert_distinct_names(ends, 5);
    assert_string_equal(ends[1], "repetition");
    assert_string_equal(ends[2], "limit");

    const char *reasons[] = {
        thue_end_reason_name(THUE_END_NONE), thue_end_reason_name(THUE_END_SCORE),
        thue_end_reason_name(THUE_END_RESIGN), thue_end_reason_name(THUE_END_TIMEOUT),
        thue_end_reason_name(THUE_END_ABANDON)};
    assert_distinct_names(reasons, 5);
    assert_string_equal(reasons[1], "score");
    assert_string_equal(reasons[2], "resign");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_defaults),    cmocka_unit_test(test_init_initial_state),
        cmocka_unit_test(test_init_bad_variant), cmocka_unit_test(test_init_bad_k),
        cmocka_unit_test(test_init_bad_limit),   cmocka_unit_test(test_init_bad_first_builder),
        cmocka_unit_test(test_init_boundaries),  cmocka_unit_test(test_free_null),
        cmocka_unit_test(test_names_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
