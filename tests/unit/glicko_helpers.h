/*
 * glicko_helpers.h: what the Glicko-2 tests (test_glicko_*.c) share: a fixed-seed
 * xorshift64, tolerances and checks on players.
 */
#ifndef THUE_TEST_GLICKO_HELPERS_H
#define THUE_TEST_GLICKO_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "base/errors.h"
#include "ladder/glicko2.h"

#define SCALE 173.7178

#define PI 3.14159265358979323846

#define TAU THUE_GLICKO_TAU_DEFAULT

extern uint64_t rng_state;

uint64_t rnd(void);

/* Uniform in [lo, hi]. */
double uniform(double lo, double hi);

thue_glicko player(double rating, double rd, double vol);

thue_glicko_game game(double rating, double rd, double score);

void assert_near(double got, double want, double tol);

void assert_same_glicko(const thue_glicko *x, const thue_glicko *y, double tol);

/* The library against the naive reference. The paper's tolerance is on x = ln(vol^2)
 * (|x - root| <= 1e-6), so that is what the volatility is held to (a relative error of
 * 5e-7), and the rating and RD are compared on the Glicko-2 scale (mu, phi) to 1e-6: a
 * 1e-6 error in x moves mu' by up to sigma'^2 * 1e-6, which for a large volatility is more
 * than 1e-6 once multiplied by 173.7178. */
void assert_close_to_naive(const thue_glicko *got, const thue_glicko *want);

void assert_finite_glicko(const thue_glicko *g);

/* ---------------------------------------------------------------- naive reference */

/* The paper's steps 2 to 8 as printed, with no care for rounding, and the volatility by
 * bisection on f to 1e-12 (the library: Illinois to 1e-6). The RD cap of glicko2.h is
 * applied to phi* as the library documents it. */

typedef struct naive_f {
    double a, delta, phi, v, tau;
} naive_f;

double naive_fx(const naive_f *f, double x);

double naive_volatility(const naive_f *f);

thue_glicko naive_update(thue_glicko p, const thue_glicko_game *games, int n, double tau);

#endif
