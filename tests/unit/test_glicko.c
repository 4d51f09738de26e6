/*
 * test_glicko.c: Glicko-2 ratings (server/ladder/glicko2.h).
 *
 * - Glickman's worked example ("Example of the Glicko-2 system", 2013): the results and
 *   every intermediate quantity the paper prints;
 * - a period without games (step 6 alone, and the RD cap at 350);
 * - the direction of changes: a win raises, a loss lowers, a draw between equals moves
 *   no rating; the mirror symmetry of a match about 1500;
 * - the edges of the domain: extreme ratings, a tiny RD, a huge volatility, every tau;
 * - every bad input, each answered THUE_EINVAL with the outputs untouched;
 * - a naive reference: the paper's formulas written out literally, with the volatility
 *   found by bisection to 1e-12 instead of the Illinois iteration, against the library on
 *   20,000 random periods (ratings 0..3000, RD 30..350, volatility 0.01..0.2, 0..10
 *   games, tau 0.2..1.2);
 * - the whole input domain, with absurd results: every call succeeds within the iteration
 *   bounds, its volatility is f's root to the paper's tolerance, and its result is again
 *   a valid input; a long career stays sane.
 * Random data comes from a fixed-seed xorshift64 so that every run checks the same cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "engine/errors.h"
#include "ladder/glicko2.h"

#define SCALE 173.7178
#define PI 3.14159265358979323846
#define TAU THUE_GLICKO_TAU_DEFAULT

/* ---------------------------------------------------------------- helpers */

/* xorshift64 (Marsaglia): deterministic, never rand(). The state must not be 0. */
static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* Uniform in [lo, hi]. */
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rnd() >> 11) / (double)(1ULL << 53));
}

static thue_glicko player(double rating, double rd, double vol)
{
    thue_glicko g = {rating, rd, vol};
    return g;
}

static thue_glicko_game game(double rating, double rd, double score)
{
    thue_glicko_game g = {rating, rd, score};
    return g;
}

/* The reflection about 1500 (mu -> -mu): Glicko-2 is symmetric under it with s -> 1 - s. */
static thue_glicko mirror(thue_glicko g)
{
    g.rating = 2.0 * THUE_GLICKO_INITIAL_RATING - g.rating;
    return g;
}

static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.12g, want %.12g (tolerance %g)", got, want, tol);
}

static void assert_same_glicko(const thue_glicko *x, const thue_glicko *y, double tol)
{
    assert_near(x->rating, y->rating, tol);
    assert_near(x->rd, y->rd, tol);
    assert_near(x->vol, y->vol, tol);
}

/* The library against the naive reference. The paper's tolerance is on x = ln(vol^2)
 * (|x - root| <= 1e-6), so that is what the volatility is held to (a relative error of
 * 5e-7), and the rating and RD are compared on the Glicko-2 scale (mu, phi) to 1e-6: a
 * 1e-6 error in x moves mu' by up to sigma'^2 * 1e-6, which for a large volatility is more
 * than 1e-6 once multiplied by 173.7178. */
static void assert_close_to_naive(const thue_glicko *got, const thue_glicko *want)
{
    assert_near(2.0 * log(got->vol), 2.0 * log(want->vol), THUE_GLICKO_EPSILON + 1e-9);
    assert_near(got->rating / SCALE, want->rating / SCALE, 1e-6);
    assert_near(got->rd / SCALE, want->rd / SCALE, 1e-6);
}

static void assert_finite_glicko(const thue_glicko *g)
{
    assert_true(isfinite(g->rating));
    assert_true(isfinite(g->rd) && g->rd > 0.0);
    assert_true(isfinite(g->vol) && g->vol > 0.0);
}

/* A period of one game. */
static thue_glicko rate1(thue_glicko p, double opp_rating, double opp_rd, double score, double tau)
{
    thue_glicko_game g = game(opp_rating, opp_rd, score);
    thue_glicko out;
    assert_int_equal(thue_glicko_update(&p, &g, 1, tau, &out), 0);
    return out;
}

/* ---------------------------------------------------------------- naive reference */

/* The paper's steps 2 to 8 as printed, with no care for rounding, and the volatility by
 * bisection on f to 1e-12 (the library: Illinois to 1e-6). The RD cap of glicko2.h is
 * applied to phi* as the library documents it. */

typedef struct naive_f {
    double a, delta, phi, v, tau;
} naive_f;

static double naive_fx(const naive_f *f, double x)
{
    double ex = exp(x);
    double num = ex * (f->delta * f->delta - f->phi * f->phi - f->v - ex);
    double den = 2.0 * pow(f->phi * f->phi + f->v + ex, 2.0);
    return num / den - (x - f->a) / (f->tau * f->tau);
}

static double naive_volatility(const naive_f *f)
{
    /* Widen a bracket around a until f changes sign (its root is unique), then halve. */
    double lo = f->a - 1.0, hi = f->a + 1.0;
    for (double step = 1.0; naive_fx(f, lo) < 0.0; step *= 2.0)
        lo -= step;
    for (double step = 1.0; naive_fx(f, hi) > 0.0; step *= 2.0)
        hi += step;
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = (lo + hi) / 2.0;
        if (naive_fx(f, mid) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return exp((lo + hi) / 4.0);
}

/* Step 3's v for one game. */
static double naive_v(double rating, double opp_rating, double opp_rd)
{
    double phi_j = opp_rd / SCALE;
    double g = 1.0 / sqrt(1.0 + 3.0 * phi_j * phi_j / (PI * PI));
    double e = 1.0 / (1.0 + exp(-g * (rating - opp_rating) / SCALE));
    return 1.0 / (g * g * e * (1.0 - e));
}

static thue_glicko naive_update(thue_glicko p, const thue_glicko_game *games, int n, double tau)
{
    double mu = (p.rating - 1500.0) / SCALE;
    double phi = p.rd / SCALE;
    double cap = fmax(phi, 350.0 / SCALE);
    if (n == 0) {
        double phi_star = fmin(sqrt(phi * phi + p.vol * p.vol), cap);
        return player(p.rating, phi_star * SCALE, p.vol);
    }

    double inv_v = 0.0, sum = 0.0;
    for (int j = 0; j < n; j++) {
        double mu_j = (games[j].rating - 1500.0) / SCALE;
        double phi_j = games[j].rd / SCALE;
        double g = 1.0 / sqrt(1.0 + 3.0 * phi_j * phi_j / (PI * PI));
        double e = 1.0 / (1.0 + exp(-g * (mu - mu_j)));
        inv_v += g * g * e * (1.0 - e);
        sum += g * (games[j].score - e);
    }
    double v = 1.0 / inv_v;
    naive_f f = {log(p.vol * p.vol), v * sum, phi, v, tau};
    double vol = naive_volatility(&f);
    double phi_star = fmin(sqrt(phi * phi + vol * vol), cap);
    double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    double mu_new = mu + phi_new * phi_new * sum;
    return player(SCALE * mu_new + 1500.0, SCALE * phi_new, vol);
}

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
        cmocka_unit_test(test_glicko_example_results),
        cmocka_unit_test(test_glicko_example_steps),
        cmocka_unit_test(test_glicko_example_matches_naive),
        cmocka_unit_test(test_glicko_example_order_free),
        cmocka_unit_test(test_glicko_initial_values),
        cmocka_unit_test(test_glicko_provisional_threshold),
        cmocka_unit_test(test_glicko_no_games_rd_grows),
        cmocka_unit_test(test_glicko_no_games_repeated),
        cmocka_unit_test(test_glicko_rd_cap),
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
        cmocka_unit_test(test_glicko_naive_reference_random),
        cmocka_unit_test(test_glicko_whole_domain),
        cmocka_unit_test(test_glicko_long_career),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
