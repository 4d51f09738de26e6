/*
 * test_glicko_edges.c: Glicko-2 ratings (server/ladder/glicko2.h): the direction of
 * changes (a win raises, a loss lowers, a draw between equals moves no rating), the mirror
 * symmetry of a match about 1500, a match as two updates; the edges of the domain
 * (extreme ratings, a tiny RD, a huge volatility, every tau); every bad input, each
 * answered THUE_EINVAL with the outputs untouched.
 */
#include "glicko_helpers.h"

/* The reflection about 1500 (mu -> -mu): Glicko-2 is symmetric under it with s -> 1 - s. */
static thue_glicko mirror(thue_glicko g)
{
    g.rating = 2.0 * THUE_GLICKO_INITIAL_RATING - g.rating;
    return g;
}

/* A period of one game. */
static thue_glicko rate1(thue_glicko p, double opp_rating, double opp_rd, double score, double tau)
{
    thue_glicko_game g = game(opp_rating, opp_rd, score);
    thue_glicko out;
    assert_int_equal(thue_glicko_update(&p, &g, 1, tau, &out), 0);
    return out;
}

/* Step 3's v for one game. */
static double naive_v(double rating, double opp_rating, double opp_rd)
{
    double phi_j = opp_rd / SCALE;
    double g = 1.0 / sqrt(1.0 + 3.0 * phi_j * phi_j / (PI * PI));
    double e = 1.0 / (1.0 + exp(-g * (rating - opp_rating) / SCALE));
    return 1.0 / (g * g * e * (1.0 - e));
}

/* ---------------------------------------------------------------- directions and symmetry */

static void test_glicko_win_raises_loss_lowers(void **state)
{
    (void)state;
    const double ratings[] = {100.0, 1200.0, 1500.0, 1800.0, 2900.0};
    const double rds[] = {30.0, 110.0, 350.0};
    for (size_t i = 0; i < sizeof ratings / sizeof ratings[0]; i++) {
        for (size_t j = 0; j < sizeof ratings / sizeof ratings[0]; j++) {
            for (size_t k = 0; k < sizeof rds / sizeof rds[0]; k++) {
                thue_glicko p = player(ratings[i], rds[k], 0.06);
                thue_glicko win = rate1(p, ratings[j], rds[k], 1.0, TAU);
                thue_glicko loss = rate1(p, ratings[j], rds[k], 0.0, TAU);
                thue_glicko draw = rate1(p, ratings[j], rds[k], 0.5, TAU);
                assert_true(win.rating > p.rating);
                assert_true(loss.rating < p.rating);
                assert_true(loss.rating < draw.rating && draw.rating < win.rating);
                /* A game is information: step 7 shrinks the grown RD whatever the result
                 * (though a game between far-apart players says so little that the RD
                 * may still end above where it began). */
                const double scores[] = {0.0, 0.5, 1.0};
                for (int si = 0; si < 3; si++) {
                    thue_glicko_game g = game(ratings[j], rds[k], scores[si]);
                    thue_glicko out;
                    thue_glicko_steps s;
                    assert_int_equal(thue_glicko_update_steps(&p, &g, 1, TAU, &out, &s), 0);
                    assert_true(s.phi_new < s.phi_star);
                    /* (a low RD may grow anyway: sigma^2 outweighs what one game says) */
                    if (rds[k] >= 110.0 && fabs(ratings[i] - ratings[j]) <= 400.0)
                        assert_true(out.rd < p.rd);
                }
            }
        }
    }
}

static void test_glicko_draw_between_equals(void **state)
{
    (void)state;
    const double ratings[] = {0.0, 1500.0, 1800.0, 2750.0};
    for (size_t i = 0; i < sizeof ratings / sizeof ratings[0]; i++) {
        thue_glicko a = player(ratings[i], 80.0, 0.06), b = a, a2, b2;
        assert_int_equal(thue_glicko_match(&a, &b, 0.5, TAU, &a2, &b2), 0);
        assert_near(a2.rating, a.rating, 1e-9);
        assert_near(b2.rating, b.rating, 1e-9);
        assert_true(a2.rd < a.rd);
        assert_same_glicko(&a2, &b2, 0.0);
    }
    /* At 1500, E is exactly 1/2 and the rating exactly unchanged. */
    thue_glicko n = thue_glicko_initial();
    thue_glicko d = rate1(n, 1500.0, 350.0, 0.5, TAU);
    assert_true(d.rating == 1500.0);
}

static void test_glicko_match_symmetric_equals(void **state)
{
    (void)state;
    thue_glicko a = thue_glicko_initial(), b = a, a2, b2;
    assert_int_equal(thue_glicko_match(&a, &b, 1.0, TAU, &a2, &b2), 0);
    assert_true(a2.rating > 1500.0 && b2.rating < 1500.0);
    thue_glicko m = mirror(b2);
    assert_same_glicko(&a2, &m, 1e-9);
}

static void test_glicko_match_mirror_random(void **state)
{
    (void)state;
    const double scores[] = {0.0, 0.5, 1.0};
    for (int i = 0; i < 2000; i++) {
        thue_glicko a = player(uniform(0, 3000), uniform(30, 350), uniform(0.01, 0.2));
        thue_glicko b = player(uniform(0, 3000), uniform(30, 350), uniform(0.01, 0.2));
        double s = scores[rnd() % 3];
        thue_glicko a2, b2, ma2, mb2;
        assert_int_equal(thue_glicko_match(&a, &b, s, TAU, &a2, &b2), 0);
        /* Reflect both players about 1500 and the result: the outcome reflects too. */
        thue_glicko ma = mirror(a), mb = mirror(b);
        assert_int_equal(thue_glicko_match(&ma, &mb, 1.0 - s, TAU, &ma2, &mb2), 0);
        thue_glicko r = mirror(ma2);
        assert_same_glicko(&a2, &r, 1e-7);
        r = mirror(mb2);
        assert_same_glicko(&b2, &r, 1e-7);
        /* Swapping the seats swaps the outputs. */
        thue_glicko sa2, sb2;
        assert_int_equal(thue_glicko_match(&b, &a, 1.0 - s, TAU, &sb2, &sa2), 0);
        assert_memory_equal(&sa2, &a2, sizeof a2);
        assert_memory_equal(&sb2, &b2, sizeof b2);
    }
}

static void test_glicko_match_is_two_updates(void **state)
{
    (void)state;
    thue_glicko a = player(1620.0, 90.0, 0.05), b = player(1480.0, 240.0, 0.07);
    thue_glicko a2, b2, wa, wb;
    assert_int_equal(thue_glicko_match(&a, &b, 0.0, TAU, &a2, &b2), 0);
    thue_glicko_game ga = game(b.rating, b.rd, 0.0), gb = game(a.rating, a.rd, 1.0);
    assert_int_equal(thue_glicko_update(&a, &ga, 1, TAU, &wa), 0);
    assert_int_equal(thue_glicko_update(&b, &gb, 1, TAU, &wb), 0);
    assert_memory_equal(&a2, &wa, sizeof wa);
    assert_memory_equal(&b2, &wb, sizeof wb);

    /* In place: both read from the pre-match values. */
    thue_glicko x = a, y = b;
    assert_int_equal(thue_glicko_match(&x, &y, 0.0, TAU, &x, &y), 0);
    assert_memory_equal(&x, &wa, sizeof wa);
    assert_memory_equal(&y, &wb, sizeof wb);
    /* Crossed: a_out is b's struct. */
    x = a;
    y = b;
    thue_glicko z;
    assert_int_equal(thue_glicko_match(&x, &y, 0.0, TAU, &y, &z), 0);
    assert_memory_equal(&y, &wa, sizeof wa);
    assert_memory_equal(&z, &wb, sizeof wb);

    /* update in place. */
    x = a;
    assert_int_equal(thue_glicko_update(&x, &ga, 1, TAU, &x), 0);
    assert_memory_equal(&x, &wa, sizeof wa);
}

/* ---------------------------------------------------------------- the edges of the domain */

static void test_glicko_extreme_ratings(void **state)
{
    (void)state;
    const double scores[] = {0.0, 0.5, 1.0};
    for (int i = 0; i < 3; i++) {
        thue_glicko lo = player(100.0, 50.0, 0.06), hi = player(3000.0, 50.0, 0.06);
        thue_glicko lo2, hi2;
        assert_int_equal(thue_glicko_match(&lo, &hi, scores[i], TAU, &lo2, &hi2), 0);
        assert_finite_glicko(&lo2);
        assert_finite_glicko(&hi2);
        if (scores[i] == 0.0) {
            /* The expected result: almost nothing moves. */
            assert_near(lo2.rating, lo.rating, 1e-3);
            assert_near(hi2.rating, hi.rating, 1e-3);
        } else {
            assert_true(lo2.rating > lo.rating + 5.0);
            assert_true(hi2.rating < hi.rating - 5.0);
            /* The upset raises both volatilities, if only a little: one game so unlikely
             * carries little information (v is huge). */
            assert_true(lo2.vol > lo.vol && hi2.vol > hi.vol);
        }
        thue_glicko_game g = game(hi.rating, hi.rd, scores[i]);
        thue_glicko want = naive_update(lo, &g, 1, TAU);
        assert_close_to_naive(&lo2, &want);
    }

    /* The corners of the domain stay finite, whatever the result. */
    const double corners[] = {THUE_GLICKO_RATING_MIN, THUE_GLICKO_RATING_MAX};
    const double rds[] = {1e-9, 1.0, 350.0, THUE_GLICKO_RD_LIMIT};
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 4; j++) {
            for (int k = 0; k < 3; k++) {
                thue_glicko p = player(corners[i], rds[j], 0.06), out;
                thue_glicko_game g = game(corners[1 - i], rds[3 - j], scores[k]);
                assert_int_equal(thue_glicko_update(&p, &g, 1, TAU, &out), 0);
                assert_finite_glicko(&out);
                assert_int_equal(thue_glicko_update(&p, &g, 1, THUE_GLICKO_TAU_MIN, &out), 0);
                assert_finite_glicko(&out);
                assert_int_equal(thue_glicko_update(&p, &g, 1, THUE_GLICKO_TAU_MAX, &out), 0);
                assert_finite_glicko(&out);
            }
        }
    }
}

static void test_glicko_tiny_rd(void **state)
{
    (void)state;
    /* A (nearly) certain rating still grows by the volatility in step 6, so it moves. */
    thue_glicko p = player(1500.0, 1e-6, 0.06);
    thue_glicko win = rate1(p, 1500.0, 1e-6, 1.0, TAU);
    assert_finite_glicko(&win);
    assert_true(win.rating > 1500.0 && win.rating < 1510.0);
    assert_true(win.rd > 1.0 && win.rd < SCALE * 0.0601);
    thue_glicko_game g = game(1500.0, 1e-6, 1.0);
    thue_glicko want = naive_update(p, &g, 1, TAU);
    assert_close_to_naive(&win, &want);

    /* Against an opponent of tiny RD, g is 1: the game counts in full. */
    thue_glicko q = player(1500.0, 200.0, 0.06);
    thue_glicko vs_sure = rate1(q, 1600.0, 1e-6, 1.0, TAU);
    thue_glicko vs_unsure = rate1(q, 1600.0, 350.0, 1.0, TAU);
    assert_true(vs_sure.rating > vs_unsure.rating);
    assert_true(vs_sure.rd < vs_unsure.rd);
}

static void test_glicko_huge_volatility(void **state)
{
    (void)state;
    const double vols[] = {0.5, 2.0, 10.0};
    for (int i = 0; i < 3; i++) {
        thue_glicko p = player(1500.0, 100.0, vols[i]), out;
        thue_glicko_steps s;
        thue_glicko_game g = game(1700.0, 80.0, 1.0);
        assert_int_equal(thue_glicko_update_steps(&p, &g, 1, TAU, &out, &s), 0);
        assert_finite_glicko(&out);
        assert_true(s.iterations < THUE_GLICKO_MAX_ITERATIONS);
        /* phi* hits the cap: the RD cannot be worse than a newcomer's before the game. */
        assert_true(s.phi_star <= 350.0 / SCALE + 1e-12);
        thue_glicko want = naive_update(p, &g, 1, TAU);
        assert_close_to_naive(&out, &want);
    }
    /* At the limit the naive formula overflows (e^x squared), but f is known: its first
     * term is -1/2 to within 1e-100 there, so the root is x = a - tau^2 / 2. */
    thue_glicko p = player(1500.0, 100.0, THUE_GLICKO_VOL_LIMIT), out;
    thue_glicko_game g = game(1700.0, 80.0, 1.0);
    assert_int_equal(thue_glicko_update(&p, &g, 1, TAU, &out), 0);
    assert_finite_glicko(&out);
    assert_near(2.0 * log(out.vol), 2.0 * log(THUE_GLICKO_VOL_LIMIT) - TAU * TAU / 2.0,
                THUE_GLICKO_EPSILON);
    assert_near(out.rd, SCALE / sqrt(pow(SCALE / 350.0, 2.0) + 1.0 / naive_v(1500, 1700, 80)),
                1e-9);
    /* A tiny volatility too. */
    p.vol = 1e-300;
    assert_int_equal(thue_glicko_update(&p, &g, 1, TAU, &out), 0);
    assert_finite_glicko(&out);
}

/* Returns the change of volatility over one period for a given tau. */
static double vol_change(thue_glicko p, const thue_glicko_game *games, int n, double tau)
{
    thue_glicko out;
    assert_int_equal(thue_glicko_update(&p, games, n, tau, &out), 0);
    return out.vol - p.vol;
}

static void test_glicko_tau_variations(void **state)
{
    (void)state;
    /* An upset: a 1400 beats three established 1900s. The volatility rises, and more for
     * a larger tau. */
    thue_glicko p = player(1400.0, 60.0, 0.06);
    thue_glicko_game upset[3] = {game(1900, 40, 1), game(1900, 40, 1), game(1900, 40, 1)};
    const double taus[] = {0.2, 0.3, 0.5, 0.8, 1.2, 3.0, THUE_GLICKO_TAU_MAX};
    double prev = 0.0;
    for (size_t i = 0; i < sizeof taus / sizeof taus[0]; i++) {
        double d = vol_change(p, upset, 3, taus[i]);
        assert_true(d > 0.0);
        assert_true(d > prev);
        prev = d;
    }
    /* As expected: four results matching the ratings. The volatility falls, and more for
     * a larger tau. */
    thue_glicko_game dull[4] = {game(1200, 40, 1), game(1600, 40, 0), game(1400, 40, 0.5),
                                game(1390, 40, 0.5)};
    prev = 0.0;
    for (size_t i = 0; i < sizeof taus / sizeof taus[0]; i++) {
        double d = vol_change(p, dull, 4, taus[i]);
        assert_true(d < 0.0);
        assert_true(d < prev);
        prev = d;
    }
    /* The tiniest tau leaves the volatility where it was. */
    assert_near(vol_change(p, upset, 3, THUE_GLICKO_TAU_MIN), 0.0, 1e-6);
    assert_near(vol_change(p, dull, 4, THUE_GLICKO_TAU_MIN), 0.0, 1e-6);
}

/* ---------------------------------------------------------------- bad inputs */

/* The untouched-output sentinel. */
static const thue_glicko sentinel = {-1.25, -2.5, -3.75};

static void expect_einval_update(const thue_glicko *p, const thue_glicko_game *games, int n,
                                 double tau)
{
    thue_glicko out = sentinel;
    thue_glicko_steps s;
    memset(&s, 0xab, sizeof s);
    thue_glicko_steps s0 = s;
    assert_int_equal(thue_glicko_update(p, games, n, tau, &out), THUE_EINVAL);
    assert_memory_equal(&out, &sentinel, sizeof out);
    assert_int_equal(thue_glicko_update_steps(p, games, n, tau, &out, &s), THUE_EINVAL);
    assert_memory_equal(&out, &sentinel, sizeof out);
    assert_memory_equal(&s, &s0, sizeof s);
}

static void test_glicko_bad_player(void **state)
{
    (void)state;
    const double bad_rating[] = {NAN, INFINITY, -INFINITY, THUE_GLICKO_RATING_MAX * 1.001,
                                 THUE_GLICKO_RATING_MIN * 1.001};
    const double bad_rd[] = {
        NAN, INFINITY, -INFINITY, 0.0, -0.0, -1.0, THUE_GLICKO_RD_LIMIT * 1.001};
    const double bad_vol[] = {NAN, INFINITY, -INFINITY, 0.0, -0.06, THUE_GLICKO_VOL_LIMIT * 1.001};
    thue_glicko_game g = game(1500, 100, 1);
    for (size_t i = 0; i < sizeof bad_rating / sizeof bad_rating[0]; i++) {
        thue_glicko p = player(bad_rating[i], 100, 0.06);
        expect_einval_update(&p, &g, 1, TAU);
        expect_einval_update(&p, NULL, 0, TAU);
    }
    for (size_t i = 0; i < sizeof bad_rd / sizeof bad_rd[0]; i++) {
        thue_glicko p = player(1500, bad_rd[i], 0.06);
        expect_einval_update(&p, &g, 1, TAU);
        expect_einval_update(&p, NULL, 0, TAU);
    }
    for (size_t i = 0; i < sizeof bad_vol / sizeof bad_vol[0]; i++) {
        thue_glicko p = player(1500, 100, bad_vol[i]);
        expect_einval_update(&p, &g, 1, TAU);
        expect_einval_update(&p, NULL, 0, TAU);
    }
    expect_einval_update(NULL, &g, 1, TAU);
    thue_glicko p = thue_glicko_initial();
    assert_int_equal(thue_glicko_update(&p, &g, 1, TAU, NULL), THUE_EINVAL);
}

static void test_glicko_bad_games(void **state)
{
    (void)state;
    thue_glicko p = thue_glicko_initial();
    const double bad_score[] = {NAN, INFINITY, -1.0, 0.25, 0.4999999, 0.75, 1.0000001, 2.0};
    for (size_t i = 0; i < sizeof bad_score / sizeof bad_score[0]; i++) {
        /* A bad game anywhere in the period spoils it. */
        thue_glicko_game gs[3] = {game(1500, 100, 1), game(1500, 100, 0), game(1500, 100, 0)};
        gs[i % 3].score = bad_score[i];
        expect_einval_update(&p, gs, 3, TAU);
    }
    thue_glicko_game bad_opp[] = {game(NAN, 100, 1),      game(INFINITY, 100, 1), game(1e6, 100, 1),
                                  game(1500, NAN, 1),     game(1500, 0, 1),       game(1500, -5, 1),
                                  game(1500, INFINITY, 1)};
    for (size_t i = 0; i < sizeof bad_opp / sizeof bad_opp[0]; i++)
        expect_einval_update(&p, &bad_opp[i], 1, TAU);

    thue_glicko_game g = game(1500, 100, 1);
    expect_einval_update(&p, &g, -1, TAU);
    expect_einval_update(&p, NULL, 1, TAU);
    expect_einval_update(&p, NULL, -1, TAU);
}

static void test_glicko_bad_tau(void **state)
{
    (void)state;
    thue_glicko p = thue_glicko_initial();
    thue_glicko_game g = game(1500, 100, 1);
    const double bad_tau[] = {
        NAN, INFINITY, -INFINITY, 0.0, -0.5, THUE_GLICKO_TAU_MIN / 2, THUE_GLICKO_TAU_MAX * 1.001};
    for (size_t i = 0; i < sizeof bad_tau / sizeof bad_tau[0]; i++) {
        expect_einval_update(&p, &g, 1, bad_tau[i]);
        expect_einval_update(&p, NULL, 0, bad_tau[i]);
    }
}

static void expect_einval_match(const thue_glicko *a, const thue_glicko *b, double sa, double tau)
{
    thue_glicko a2 = sentinel, b2 = sentinel;
    assert_int_equal(thue_glicko_match(a, b, sa, tau, &a2, &b2), THUE_EINVAL);
    assert_memory_equal(&a2, &sentinel, sizeof a2);
    assert_memory_equal(&b2, &sentinel, sizeof b2);
}

static void test_glicko_bad_match(void **state)
{
    (void)state;
    thue_glicko a = thue_glicko_initial(), b = player(1600, 80, 0.05);
    expect_einval_match(&a, &b, 0.25, TAU);
    expect_einval_match(&a, &b, NAN, TAU);
    expect_einval_match(&a, &b, -1.0, TAU);
    expect_einval_match(&a, &b, 1.0, 0.0);
    expect_einval_match(NULL, &b, 1.0, TAU);
    expect_einval_match(&a, NULL, 1.0, TAU);
    /* Either player bad, in any field: neither output is written. */
    thue_glicko bad = b;
    bad.vol = 0.0; /* only b's own update sees this: a's game uses rating and RD */
    expect_einval_match(&a, &bad, 1.0, TAU);
    expect_einval_match(&bad, &a, 1.0, TAU);
    bad = b;
    bad.rd = NAN;
    expect_einval_match(&a, &bad, 0.5, TAU);
    expect_einval_match(&bad, &a, 0.5, TAU);

    thue_glicko out = sentinel, out2 = sentinel;
    assert_int_equal(thue_glicko_match(&a, &b, 1.0, TAU, NULL, &out), THUE_EINVAL);
    assert_int_equal(thue_glicko_match(&a, &b, 1.0, TAU, &out, NULL), THUE_EINVAL);
    assert_int_equal(thue_glicko_match(&a, &b, 1.0, TAU, &out, &out), THUE_EINVAL);
    assert_memory_equal(&out, &sentinel, sizeof out);
    assert_memory_equal(&out2, &sentinel, sizeof out2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glicko_win_raises_loss_lowers),
        cmocka_unit_test(test_glicko_draw_between_equals),
        cmocka_unit_test(test_glicko_match_symmetric_equals),
        cmocka_unit_test(test_glicko_match_mirror_random),
        cmocka_unit_test(test_glicko_match_is_two_updates),
        cmocka_unit_test(test_glicko_extreme_ratings),
        cmocka_unit_test(test_glicko_tiny_rd),
        cmocka_unit_test(test_glicko_huge_volatility),
        cmocka_unit_test(test_glicko_tau_variations),
        cmocka_unit_test(test_glicko_bad_player),
        cmocka_unit_test(test_glicko_bad_games),
        cmocka_unit_test(test_glicko_bad_tau),
        cmocka_unit_test(test_glicko_bad_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
