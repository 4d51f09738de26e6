/*
 * test_glicko_example.c: Glicko-2 ratings (server/ladder/glicko2.h) on Glickman's worked
 * example ("Example of the Glicko-2 system", 2013): the results and every intermediate
 * quantity the paper prints, the naive formulas, any order of games; the initial values,
 * the provisional threshold, a period without games (step 6 alone, and the RD cap at 350).
 */
#include "glicko_helpers.h"

/* ---------------------------------------------------------------- the worked example */

static const thue_glicko_game example_games[3] = {
    {1400.0, 30.0, 1.0},
    {1550.0, 100.0, 0.0},
    {1700.0, 300.0, 0.0},
};

static void test_glicko_example_results(void **state)
{
    (void)state;
    thue_glicko p = player(1500.0, 200.0, 0.06), out;
    assert_int_equal(thue_glicko_update(&p, example_games, 3, 0.5, &out), 0);
    assert_near(out.rating, 1464.06, 0.01);
    assert_near(out.rd, 151.52, 0.01);
    assert_near(out.vol, 0.05999, 0.00001);
    assert_true(thue_glicko_provisional(&out)); /* 151.52 > 110: one period is not enough */
}

static void test_glicko_example_steps(void **state)
{
    (void)state;
    thue_glicko p = player(1500.0, 200.0, 0.06), out;
    thue_glicko_steps s;
    assert_int_equal(thue_glicko_update_steps(&p, example_games, 3, 0.5, &out, &s), 0);
    /* The figures the paper prints. The paper carries g and E rounded (to 4 and 3
     * digits) from step 3 on, so its v and delta are off in the fourth digit and its phi*
     * in the sixth; the tolerances allow for that. */
    assert_near(s.mu, 0.0, 1e-12);
    assert_near(s.phi, 1.1513, 0.00005);
    assert_near(s.v, 1.7785, 0.001);
    assert_near(s.delta, -0.4834, 0.001);
    assert_near(s.vol, 0.05999, 0.00001);
    assert_near(s.phi_star, 1.152862, 0.00001);
    assert_near(s.phi_new, 0.8722, 0.00005);
    assert_near(s.mu_new, -0.2069, 0.00005);
    /* The same quantities at full precision (computed independently of this module). */
    assert_near(s.v, 1.778977, 0.000001);
    assert_near(s.delta, -0.483933, 0.000001);
    assert_near(s.vol, 0.0599960, 0.0000001);
    assert_true(s.iterations > 0 && s.iterations < THUE_GLICKO_MAX_ITERATIONS);
    /* The results are step 8 of these. */
    assert_near(out.rating, SCALE * s.mu_new + 1500.0, 1e-9);
    assert_near(out.rd, SCALE * s.phi_new, 1e-9);
    assert_true(out.vol == s.vol);
}

static void test_glicko_example_matches_naive(void **state)
{
    (void)state;
    thue_glicko p = player(1500.0, 200.0, 0.06), out;
    assert_int_equal(thue_glicko_update(&p, example_games, 3, 0.5, &out), 0);
    thue_glicko want = naive_update(p, example_games, 3, 0.5);
    assert_close_to_naive(&out, &want);
}

/* The order of the games in a period does not matter (up to rounding). */
static void test_glicko_example_order_free(void **state)
{
    (void)state;
    thue_glicko p = player(1500.0, 200.0, 0.06), a, b;
    thue_glicko_game rev[3] = {example_games[2], example_games[1], example_games[0]};
    assert_int_equal(thue_glicko_update(&p, example_games, 3, 0.5, &a), 0);
    assert_int_equal(thue_glicko_update(&p, rev, 3, 0.5, &b), 0);
    assert_same_glicko(&a, &b, 1e-9);
}

/* ---------------------------------------------------------------- periods without games */

static void test_glicko_initial_values(void **state)
{
    (void)state;
    thue_glicko g = thue_glicko_initial();
    assert_true(g.rating == 1500.0 && g.rd == 350.0 && g.vol == 0.06);
    assert_true(thue_glicko_provisional(&g));
}

static void test_glicko_provisional_threshold(void **state)
{
    (void)state;
    thue_glicko g = player(1500.0, 110.0, 0.06);
    assert_false(thue_glicko_provisional(&g));
    g.rd = 110.001;
    assert_true(thue_glicko_provisional(&g));
    g.rd = 30.0;
    assert_false(thue_glicko_provisional(&g));
}

static void test_glicko_no_games_rd_grows(void **state)
{
    (void)state;
    thue_glicko p = player(1732.5, 200.0, 0.06), out;
    thue_glicko_steps s;
    assert_int_equal(thue_glicko_update_steps(&p, NULL, 0, TAU, &out, &s), 0);
    /* Step 6: phi* = sqrt(phi^2 + sigma^2), i.e. RD* = sqrt(RD^2 + (173.7178 sigma)^2). */
    assert_near(out.rd, sqrt(200.0 * 200.0 + pow(SCALE * 0.06, 2.0)), 1e-9);
    assert_true(out.rd > p.rd);
    assert_true(out.rating == p.rating); /* bit for bit */
    assert_true(out.vol == p.vol);
    assert_true(s.v == 0.0 && s.delta == 0.0 && s.iterations == 0);

    /* games is ignored when n == 0, even if not NULL. */
    thue_glicko out2;
    assert_int_equal(thue_glicko_update(&p, example_games, 0, TAU, &out2), 0);
    assert_memory_equal(&out, &out2, sizeof out);
}

static void test_glicko_no_games_repeated(void **state)
{
    (void)state;
    /* An idle player's RD climbs towards the cap and stops there. */
    thue_glicko p = player(1600.0, 50.0, 0.06);
    double prev = p.rd;
    for (int i = 0; i < 2000; i++) {
        assert_int_equal(thue_glicko_update(&p, NULL, 0, TAU, &p), 0);
        assert_true(p.rd >= prev);
        assert_true(p.rd <= THUE_GLICKO_MAX_RD);
        prev = p.rd;
    }
    assert_true(p.rd == THUE_GLICKO_MAX_RD);
    assert_true(p.rating == 1600.0 && p.vol == 0.06);
}

static void test_glicko_rd_cap(void **state)
{
    (void)state;
    thue_glicko out;
    /* At the cap: stays exactly there. */
    thue_glicko p = player(1500.0, 350.0, 0.06);
    assert_int_equal(thue_glicko_update(&p, NULL, 0, TAU, &out), 0);
    assert_true(out.rd == 350.0);
    /* Just below: grows to the cap and no further. */
    p.rd = 349.9;
    assert_int_equal(thue_glicko_update(&p, NULL, 0, TAU, &out), 0);
    assert_true(out.rd == 350.0);
    /* Above (not made by this module): neither raised nor lowered. */
    p.rd = 500.0;
    assert_int_equal(thue_glicko_update(&p, NULL, 0, TAU, &out), 0);
    assert_true(out.rd == 500.0);
    /* With a game the capped phi* is what step 7 shrinks. */
    p = thue_glicko_initial();
    thue_glicko_steps s;
    thue_glicko_game g = game(1500.0, 350.0, 1.0);
    assert_int_equal(thue_glicko_update_steps(&p, &g, 1, TAU, &out, &s), 0);
    assert_near(s.phi_star, 350.0 / SCALE, 1e-12);
    assert_true(out.rd < 350.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glicko_example_results),
        cmocka_unit_test(test_glicko_example_steps),
        cmocka_unit_test(test_glicko_example_matches_naive),
        cmocka_unit_test(test_glicko_example_order_free),
        cmocka_unit_test(test_glicko_initial_values),
        cmocka_unit_test(test_glicko_provisional_threshold),
        cmocka_unit_test(test_glicko_no_games_rd_grows),
        cmocka_unit_test(test_glicko_no_games_repeated),
        cmocka_unit_test(test_glicko_rd_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
