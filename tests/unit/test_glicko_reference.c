/*
 * test_glicko_reference.c: Glicko-2 ratings (server/ladder/glicko2.h) against a naive
 * reference: the paper's formulas written out literally, with the volatility found by
 * bisection to 1e-12 instead of the Illinois iteration, on 20,000 random periods (ratings
 * 0..3000, RD 30..350, volatility 0.01..0.2, 0..10 games, tau 0.2..1.2); the whole input
 * domain with absurd results (every call succeeds within the iteration bounds, its
 * volatility is f's root to the paper's tolerance, its result is again a valid input); a
 * long career stays sane.
 */
#include "glicko_helpers.h"

/* Step 5's f, in a form that cannot overflow anywhere in the domain (the naive one can):
 * e^x (D - e^x) / (2 (P + e^x)^2) - (x - a) / tau^2 with D = delta^2 - phi^2 - v and
 * P = phi^2 + v, written as a product of ratios. */
static double stable_f(double x, double a, const thue_glicko_steps *s, double tau)
{
    double ex = exp(x);
    double p = s->phi * s->phi + s->v;
    double d = s->delta * s->delta - s->phi * s->phi - s->v;
    return (ex / (p + ex)) * ((d - ex) / (p + ex)) / 2.0 - ((x - a) / tau) / tau;
}

/* The volatility found is within the tolerance of f's root: f changes sign (from + to -,
 * as it decreases through its only root) within epsilon of x = ln(sigma'^2). */
static void assert_volatility_is_root(const thue_glicko *p, const thue_glicko_steps *s, double tau)
{
    double a = 2.0 * log(p->vol), x = 2.0 * log(s->vol);
    double eps = THUE_GLICKO_EPSILON * 1.001 + 1e-12 * fabs(x);
    assert_true(stable_f(x - eps, a, s, tau) >= 0.0);
    assert_true(stable_f(x + eps, a, s, tau) <= 0.0);
}

/* ---------------------------------------------------------------- the naive reference */

static void test_glicko_naive_reference_random(void **state)
{
    (void)state;
    const double scores[] = {0.0, 0.5, 1.0};
    double worst = 0.0; /* on the Glicko-2 scale; relative for the volatility */
    int max_iterations = 0;
    for (int i = 0; i < 20000; i++) {
        thue_glicko p = player(uniform(0, 3000), uniform(30, 350), uniform(0.01, 0.2));
        thue_glicko_game games[10];
        int n = (int)(rnd() % 11); /* 0..10; mostly 1..10 */
        for (int j = 0; j < n; j++)
            games[j] = game(uniform(0, 3000), uniform(30, 350), scores[rnd() % 3]);
        double tau = uniform(0.2, 1.2);

        thue_glicko out;
        thue_glicko_steps s;
        assert_int_equal(thue_glicko_update_steps(&p, games, n, tau, &out, &s), 0);
        thue_glicko want = naive_update(p, games, n, tau);
        assert_close_to_naive(&out, &want);
        if (n > 0)
            assert_volatility_is_root(&p, &s, tau);
        worst = fmax(worst, fmax(fabs(out.rating - want.rating), fabs(out.rd - want.rd)) / SCALE);
        worst = fmax(worst, fabs(out.vol - want.vol) / want.vol);
        if (s.iterations > max_iterations)
            max_iterations = s.iterations;
    }
    print_message("naive reference: largest difference %.3g, most Illinois steps %d\n", worst,
                  max_iterations);
    assert_true(max_iterations < THUE_GLICKO_MAX_ITERATIONS);
}

/* Across the whole input domain, with results as unlikely as they come: every call
 * succeeds within the iteration bound, and its result is again a valid input. */
static void test_glicko_whole_domain(void **state)
{
    (void)state;
    const double scores[] = {0.0, 0.5, 1.0};
    int max_iterations = 0;
    for (int i = 0; i < 20000; i++) {
        thue_glicko p = player(uniform(THUE_GLICKO_RATING_MIN, THUE_GLICKO_RATING_MAX),
                               exp(uniform(log(1e-3), log(THUE_GLICKO_RD_LIMIT))),
                               exp(uniform(log(1e-6), log(1e3))));
        thue_glicko_game games[10];
        int n = (int)(rnd() % 11);
        for (int j = 0; j < n; j++)
            games[j] = game(uniform(THUE_GLICKO_RATING_MIN, THUE_GLICKO_RATING_MAX),
                            exp(uniform(log(1e-3), log(THUE_GLICKO_RD_LIMIT))), scores[rnd() % 3]);
        double tau = exp(uniform(log(THUE_GLICKO_TAU_MIN), log(THUE_GLICKO_TAU_MAX)));

        thue_glicko out;
        thue_glicko_steps s;
        assert_int_equal(thue_glicko_update_steps(&p, games, n, tau, &out, &s), 0);
        assert_finite_glicko(&out);
        assert_true(out.rd <= fmax(p.rd, THUE_GLICKO_MAX_RD) * (1.0 + 1e-12));
        assert_true(out.vol <= fmax(p.vol, 1e50));
        if (n > 0)
            assert_volatility_is_root(&p, &s, tau);
        if (s.iterations > max_iterations)
            max_iterations = s.iterations;
        /* Fed back, it is accepted (unless the rating itself left its domain). */
        if (out.rating >= THUE_GLICKO_RATING_MIN && out.rating <= THUE_GLICKO_RATING_MAX) {
            thue_glicko again;
            assert_int_equal(thue_glicko_update(&out, games, n, tau, &again), 0);
        }
    }
    print_message("whole domain: most steps %d\n", max_iterations);
    assert_true(max_iterations <= THUE_GLICKO_MAX_ITERATIONS + 64);
}

/* A long career stays finite and sane: ratings of two bots with a fixed 75% score. */
static void test_glicko_long_career(void **state)
{
    (void)state;
    thue_glicko a = thue_glicko_initial(), b = thue_glicko_initial();
    for (int i = 0; i < 4000; i++) {
        double sa = (i % 4 == 3) ? 0.0 : 1.0;
        assert_int_equal(thue_glicko_match(&a, &b, sa, TAU, &a, &b), 0);
        assert_finite_glicko(&a);
        assert_finite_glicko(&b);
    }
    /* 75% is a gap of about 191 points in the logistic model. */
    assert_near(a.rating - b.rating, 191.0, 40.0);
    assert_false(thue_glicko_provisional(&a));
    assert_false(thue_glicko_provisional(&b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glicko_naive_reference_random),
        cmocka_unit_test(test_glicko_whole_domain),
        cmocka_unit_test(test_glicko_long_career),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
