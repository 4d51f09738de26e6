/*
 * glicko2.c: Glicko-2 ratings (glicko2.h), step by step as in Glickman's "Example of the
 * Glicko-2 system" (2013). The step numbers in the comments are the paper's.
 *
 * The paper's formulas are followed literally except where a literal reading would lose
 * digits or overflow in doubles; each such place says so, and is algebraically the same
 * as the paper:
 *   - 1 - E is computed as its own logistic, not by subtracting E from 1, so that a
 *     lopsided game (E within 1e-16 of 1) still has a finite variance v (step 3);
 *   - the volatility function f(x) is evaluated as a product of two ratios instead of
 *     e^x (...) / (...)^2, whose numerator squares e^x and overflows first (step 5);
 *   - a = 2 ln(sigma) rather than ln(sigma^2), which cannot underflow.
 *
 * Step 5 is the Illinois variant of regula falsi with the paper's 2013 test f(C) f(B) <= 0
 * (with < 0 a root hit exactly would halve f(A) for ever without closing the bracket).
 * Every loop is bounded. The Illinois loop stops after THUE_GLICKO_MAX_ITERATIONS steps;
 * for any real pool it needs fewer than 20, and then nothing else runs, so the results are
 * the paper's. Only for absurd rating gaps (thousands of points) can it stall, and then
 * bisection (at most 64 halvings) closes the bracket to the same tolerance.
 *
 * The RD cap (glicko2.h): step 6 grows phi to phi* = sqrt(phi^2 + sigma'^2), but never
 * past max(phi, 350 / 173.7178).
 */
#include "ladder/glicko2.h"

#include <math.h>
#include <stddef.h>

#include "base/errors.h"

/* The Glicko-2 scale: 400 / ln(10), as rounded in the paper. */
#define SCALE 173.7178
/* M_PI is not standard C. */
#define PI 3.14159265358979323846

/* Guards for step 5's loops besides the Illinois one; both provably end sooner
 * (initial_bracket, bisect). */
#define BRACKET_STEPS_MAX 64
#define BISECT_STEPS_MAX 64

/* ---- validation ---- */

/* The comparisons are false for NaN, and infinities fall outside every range. */
static int valid_rating(double r)
{
    return r >= THUE_GLICKO_RATING_MIN && r <= THUE_GLICKO_RATING_MAX;
}

static int valid_rd(double rd)
{
    return rd > 0.0 && rd <= THUE_GLICKO_RD_LIMIT;
}

static int valid_player(const thue_glicko *p)
{
    return valid_rating(p->rating) && valid_rd(p->rd) && p->vol > 0.0 &&
           p->vol <= THUE_GLICKO_VOL_LIMIT;
}

static int valid_tau(double tau)
{
    return tau >= THUE_GLICKO_TAU_MIN && tau <= THUE_GLICKO_TAU_MAX;
}

/* Scores are exact: a rated result is a win, a draw or a loss, never a fraction. */
static int valid_game(const thue_glicko_game *g)
{
    return valid_rating(g->rating) && valid_rd(g->rd) &&
           (g->score == 0.0 || g->score == 0.5 || g->score == 1.0);
}

static int valid_games(const thue_glicko_game *games, int n)
{
    if (n < 0 || (n > 0 && games == NULL))
        return 0;
    for (int i = 0; i < n; i++) {
        if (!valid_game(&games[i]))
            return 0;
    }
    return 1;
}

/* A defence in depth: within the input domain every result is finite and positive. */
static int valid_result(const thue_glicko *r)
{
    return isfinite(r->rating) && isfinite(r->rd) && r->rd > 0.0 && isfinite(r->vol) &&
           r->vol > 0.0;
}

/* ---- steps 3 to 7 ---- */

/* Step 3: g(phi), which discounts a game against an uncertain opponent. */
static double g_of(double phi)
{
    return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (PI * PI));
}

/* The terms of step 5's function f, fixed for one update. */
typedef struct vol_fn {
    double a;      /* 2 ln(sigma) = ln(sigma^2) */
    double delta2; /* delta^2 */
    double phi2;   /* phi^2 */
    double v;
    double tau2; /* tau^2 */
} vol_fn;

/* f(x) = e^x (delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2,
 * with the first term split into two ratios whose magnitudes stay small. */
static double vol_f(const vol_fn *f, double x)
{
    double ex = exp(x);
    double d = f->phi2 + f->v + ex;
    return (ex / d) * ((f->delta2 - f->phi2 - f->v - ex) / d) / 2.0 - (x - f->a) / f->tau2;
}

/* The bracket of step 5: the root of f lies between a and b (f(a) f(b) <= 0). fa keeps the
 * sign of f(a) but not its size: the Illinois step halves it. */
typedef struct bracket {
    double a, fa; /* the paper's A and f_A */
    double b, fb; /* B and f_B */
} bracket;

/* Step 5, item 2: the starting bracket [A, B], A = a. */
static bracket initial_bracket(const vol_fn *f, double tau)
{
    bracket br = {f->a, vol_f(f, f->a), 0.0, 0.0};
    if (f->delta2 > f->phi2 + f->v) {
        br.b = log(f->delta2 - f->phi2 - f->v);
    } else {
        /* The first term of f is above -1/2 (delta^2 >= 0), so f(a - k tau) > k / tau - 1/2
         * and the loop stops by k = ceil(tau / 2) + 1, at most 6 within the domain of
         * tau. The guard only makes the bound visible. */
        int k = 1;
        while (k < BRACKET_STEPS_MAX && vol_f(f, f->a - k * tau) < 0.0)
            k++;
        br.b = f->a - k * tau;
    }
    br.fb = vol_f(f, br.b);
    return br;
}

/* Step 5, items 3 and 4: the Illinois iteration, at most THUE_GLICKO_MAX_ITERATIONS steps.
 * Returns the steps taken. */
static int illinois(const vol_fn *f, bracket *br)
{
    int it = 0;
    while (fabs(br->b - br->a) > THUE_GLICKO_EPSILON && it < THUE_GLICKO_MAX_ITERATIONS) {
        /* fa and fb never have the same sign; equal means both are zero, and then the
         * bisection below ends the search. */
        if (br->fb == br->fa)
            break;
        double c = br->a + (br->a - br->b) * br->fa / (br->fb - br->fa);
        double fc = vol_f(f, c);
        if (fc * br->fb <= 0.0) {
            br->a = br->b;
            br->fa = br->fb;
        } else {
            br->fa /= 2.0; /* the Illinois step: keeps a stale end from stalling the bracket */
        }
        br->b = c;
        br->fb = fc;
        it++;
    }
    return it;
}

/* Halves the bracket until it is within the tolerance. Needed only when the Illinois
 * iteration ran out of steps: when v is astronomically large (a rating gap of thousands of
 * points), the root sits within rounding of one end, the secant lands on that end again
 * and again, and only the halving of fa, a hundred times over, would move it. A bracket
 * is at most about 1,800 wide (a >= -1,490 and B >= -745; a <= 461 and B <= 240 within
 * the domain), so 31 halvings always suffice. Returns the steps taken. */
static int bisect(const vol_fn *f, bracket *br)
{
    int it = 0;
    while (fabs(br->b - br->a) > THUE_GLICKO_EPSILON && it < BISECT_STEPS_MAX) {
        double m = br->a + (br->b - br->a) / 2.0;
        double fm = vol_f(f, m);
        if (fm != 0.0 && (fm > 0.0) == (br->fa > 0.0)) {
            br->a = m;
            br->fa = fm;
        } else {
            br->b = m;
            br->fb = fm;
        }
        it++;
    }
    return it;
}

/* Step 5: the new volatility sigma', the root of f on x = ln(sigma'^2), within
 * THUE_GLICKO_EPSILON. *iterations gets the steps taken after the bracket was found. */
static double new_volatility(double sigma, double phi, double v, double delta, double tau,
                             int *iterations)
{
    vol_fn f = {2.0 * log(sigma), delta * delta, phi * phi, v, tau * tau};
    bracket br = initial_bracket(&f, tau);
    int it = illinois(&f, &br);
    it += bisect(&f, &br);
    *iterations = it;
    return exp(br.a / 2.0); /* item 5: sigma' = e^(A / 2) */
}

/* Step 6: the pre-period RD grown by the new volatility, capped (glicko2.h). */
static double grown_phi(double phi, double vol)
{
    double cap = fmax(phi, THUE_GLICKO_MAX_RD / SCALE);
    return fmin(sqrt(phi * phi + vol * vol), cap);
}

/* Steps 3 to 7 for a period with games (n >= 1, all valid): fills *st from its step 2
 * values (mu, phi, and vol, the pre-period volatility). */
static void rate_games(const thue_glicko_game *games, int n, double tau, thue_glicko_steps *st)
{
    double info = 0.0; /* sum of g^2 E (1 - E): 1 / v */
    double gain = 0.0; /* sum of g (s - E): delta / v */

    for (int i = 0; i < n; i++) {
        double mu_j = (games[i].rating - THUE_GLICKO_INITIAL_RATING) / SCALE;
        double g = g_of(games[i].rd / SCALE);
        double z = g * (st->mu - mu_j);
        double e = 1.0 / (1.0 + exp(-z));
        double e_bar = 1.0 / (1.0 + exp(z)); /* 1 - E, with all its digits */
        double score = games[i].score;
        info += g * g * e * e_bar;
        gain += g * (score * e_bar - (1.0 - score) * e); /* g (s - E) */
    }
    st->v = 1.0 / info;
    st->delta = st->v * gain;
    st->vol = new_volatility(st->vol, st->phi, st->v, st->delta, tau, &st->iterations);
    st->phi_star = grown_phi(st->phi, st->vol);
    st->phi_new = 1.0 / sqrt(1.0 / (st->phi_star * st->phi_star) + 1.0 / st->v);
    st->mu_new = st->mu + st->phi_new * st->phi_new * gain;
}

/* ---- public ---- */

thue_glicko thue_glicko_initial(void)
{
    thue_glicko g = {THUE_GLICKO_INITIAL_RATING, THUE_GLICKO_INITIAL_RD, THUE_GLICKO_INITIAL_VOL};
    return g;
}

int thue_glicko_update_steps(const thue_glicko *player, const thue_glicko_game *games, int n,
                             double tau, thue_glicko *out, thue_glicko_steps *steps)
{
    if (player == NULL || out == NULL || !valid_player(player) || !valid_tau(tau) ||
        !valid_games(games, n))
        return THUE_EINVAL;

    /* Step 2. */
    thue_glicko_steps s = {0};
    s.mu = (player->rating - THUE_GLICKO_INITIAL_RATING) / SCALE;
    s.phi = player->rd / SCALE;
    s.vol = player->vol;

    thue_glicko r;
    if (n == 0) {
        /* Step 6 alone. The rating and volatility are copied rather than converted there
         * and back, so that they come out bit for bit unchanged; the cap is applied again
         * on this scale for the same reason (350 / SCALE * SCALE need not be 350). */
        s.phi_star = grown_phi(s.phi, s.vol);
        s.phi_new = s.phi_star;
        s.mu_new = s.mu;
        r.rating = player->rating;
        r.rd = fmin(SCALE * s.phi_star, fmax(player->rd, THUE_GLICKO_MAX_RD));
        r.vol = player->vol;
    } else {
        rate_games(games, n, tau, &s);
        /* Step 8. */
        r.rating = SCALE * s.mu_new + THUE_GLICKO_INITIAL_RATING;
        r.rd = SCALE * s.phi_new;
        r.vol = s.vol;
    }
    if (!valid_result(&r))
        return THUE_EINVAL;
    *out = r;
    if (steps != NULL)
        *steps = s;
    return 0;
}

int thue_glicko_update(const thue_glicko *player, const thue_glicko_game *games, int n, double tau,
                       thue_glicko *out)
{
    return thue_glicko_update_steps(player, games, n, tau, out, NULL);
}

int thue_glicko_match(const thue_glicko *a, const thue_glicko *b, double sa, double tau,
                      thue_glicko *a_out, thue_glicko *b_out)
{
    if (a == NULL || b == NULL || a_out == NULL || b_out == NULL || a_out == b_out)
        return THUE_EINVAL;

    /* Both games are built from the pre-match values before anything is written, so the
     * outputs may alias the inputs. 1 - sa is exact for 0, 0.5 and 1. */
    thue_glicko_game ga = {b->rating, b->rd, sa};
    thue_glicko_game gb = {a->rating, a->rd, 1.0 - sa};
    thue_glicko na, nb;
    int err = thue_glicko_update(a, &ga, 1, tau, &na);
    if (err != 0)
        return err;
    err = thue_glicko_update(b, &gb, 1, tau, &nb);
    if (err != 0)
        return err;
    *a_out = na;
    *b_out = nb;
    return 0;
}
