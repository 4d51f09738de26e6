/*
 * glicko_helpers.c: the Glicko-2 tests' shared helpers (glicko_helpers.h).
 */
#include "glicko_helpers.h"

/* ---------------------------------------------------------------- helpers */

/* xorshift64 (Marsaglia): deterministic, never rand(). The state must not be 0. */
uint64_t rng_state = 0x2545f4914f6cdd1dULL;

uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* Uniform in [lo, hi]. */
double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rnd() >> 11) / (double)(1ULL << 53));
}

thue_glicko player(double rating, double rd, double vol)
{
    thue_glicko g = {rating, rd, vol};
    return g;
}

thue_glicko_game game(double rating, double rd, double score)
{
    thue_glicko_game g = {rating, rd, score};
    return g;
}

void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.12g, want %.12g (tolerance %g)", got, want, tol);
}

void assert_same_glicko(const thue_glicko *x, const thue_glicko *y, double tol)
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
void assert_close_to_naive(const thue_glicko *got, const thue_glicko *want)
{
    assert_near(2.0 * log(got->vol), 2.0 * log(want->vol), THUE_GLICKO_EPSILON + 1e-9);
    assert_near(got->rating / SCALE, want->rating / SCALE, 1e-6);
    assert_near(got->rd / SCALE, want->rd / SCALE, 1e-6);
}

void assert_finite_glicko(const thue_glicko *g)
{
    assert_true(isfinite(g->rating));
    assert_true(isfinite(g->rd) && g->rd > 0.0);
    assert_true(isfinite(g->vol) && g->vol > 0.0);
}

double naive_fx(const naive_f *f, double x)
{
    double ex = exp(x);
    double num = ex * (f->delta * f->delta - f->phi * f->phi - f->v - ex);
    double den = 2.0 * pow(f->phi * f->phi + f->v + ex, 2.0);
    return num / den - (x - f->a) / (f->tau * f->tau);
}

double naive_volatility(const naive_f *f)
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

thue_glicko naive_update(thue_glicko p, const thue_glicko_game *games, int n, double tau)
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
