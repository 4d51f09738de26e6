/*
 * glicko2.h: Glicko-2 ratings (docs/ratings.md), as in Mark Glickman's "Example of the
 * Glicko-2 system" (Boston University, November 30, 2013), steps 1 to 8.
 *
 * A player is a rating, a rating deviation (RD) and a volatility, all on the familiar
 * (Glicko-1) scale: 1500 / 350 / 0.06 for a newcomer. One call rates one rating period:
 * the player's pre-period values and the period's games give the post-period values.
 * The ladder treats each rated match as a rating period of one game for each of the
 * two players (thue_glicko_match).
 *
 * One departure from the paper, a common one: step 6 never lets the RD grow past
 * THUE_GLICKO_MAX_RD (350, a newcomer's RD), so an idle player never becomes more
 * uncertain than a new one. An RD already above 350 (which this module never produces)
 * is left where it is, neither raised nor lowered by the cap.
 *
 * Pure computation: no state, no allocation, no I/O; every function is safe from any
 * thread. A call that fails writes nothing.
 */
#ifndef THUE_LADDER_GLICKO2_H
#define THUE_LADDER_GLICKO2_H

#define THUE_GLICKO_INITIAL_RATING 1500.0
#define THUE_GLICKO_INITIAL_RD 350.0
#define THUE_GLICKO_INITIAL_VOL 0.06
/* The system constant tau: how fast the volatility may change (Glickman suggests 0.3 to
 * 1.2; smaller values damp the effect of improbable results). */
#define THUE_GLICKO_TAU_DEFAULT 0.5
/* A rating is provisional while its RD is above this. */
#define THUE_GLICKO_PROVISIONAL_RD 110.0
/* Step 6 never raises an RD past this (see above). */
#define THUE_GLICKO_MAX_RD 350.0

/*
 * The domain of the inputs. Outside it the arithmetic could overflow (from a rating gap
 * of some 60,000 points on, delta^2 exceeds the largest double), so a value outside it is
 * refused like a NaN. No real player comes near these limits.
 * Results stay inside: the RD never ends above max(rd, 350), and within the rating
 * domain the volatility never ends above max(vol, about 1e50), far below its limit. Only
 * the rating could leave its domain, after results no real pool produces.
 */
#define THUE_GLICKO_RATING_MIN (-10000.0)
#define THUE_GLICKO_RATING_MAX 10000.0
#define THUE_GLICKO_RD_LIMIT 10000.0 /* 0 < rd <= this */
#define THUE_GLICKO_VOL_LIMIT 1e100  /* 0 < vol <= this */
#define THUE_GLICKO_TAU_MIN 0.001    /* tau in [MIN, MAX] */
#define THUE_GLICKO_TAU_MAX 10.0

/* The volatility iteration (step 5): its convergence tolerance on ln(vol^2), as in the
 * paper, and a bound on its Illinois steps (a real pool needs fewer than 20). Should a
 * period ever exhaust them (rating gaps of thousands of points can), at most 64 steps of
 * bisection finish the search to the same tolerance. */
#define THUE_GLICKO_EPSILON 0.000001
#define THUE_GLICKO_MAX_ITERATIONS 100

/* A player's rating on the Glicko-1 scale. */
typedef struct thue_glicko {
    double rating;
    double rd;  /* rating deviation: one standard deviation of the rating */
    double vol; /* volatility: the expected fluctuation of the rating between periods */
} thue_glicko;

/* One game of a rating period, from the rated player's side. */
typedef struct thue_glicko_game {
    double rating, rd; /* the opponent's pre-period rating and RD */
    double score;      /* 1 win, 0.5 draw, 0 loss; nothing else */
} thue_glicko_game;

/* The intermediate quantities of one update, on the Glicko-2 scale (mu = (rating - 1500)
 * / 173.7178, phi = RD / 173.7178), named as in the paper. For checking and for
 * explaining a result; the ladder does not need them. */
typedef struct thue_glicko_steps {
    double mu, phi;  /* step 2: the pre-period values */
    double v;        /* step 3: estimated variance from the games (0 when n == 0) */
    double delta;    /* step 4: estimated improvement (0 when n == 0) */
    double vol;      /* step 5: the new volatility sigma' (the old one when n == 0) */
    double phi_star; /* step 6: the pre-period RD grown by sigma' (capped) */
    double phi_new;  /* step 7: phi' */
    double mu_new;   /* step 7: mu' */
    int iterations;  /* step 5: Illinois steps, plus any bisection steps (0 when n == 0) */
} thue_glicko_steps;

/* A newcomer: 1500 / 350 / 0.06. */
thue_glicko thue_glicko_initial(void);

/*
 * Rates one rating period: `player`'s pre-period values and the n games it played in the
 * period (each against the opponent's pre-period rating and RD) give *out. With n == 0
 * only the RD grows (step 6); the rating and volatility are copied.
 *
 * Returns 0, or THUE_EINVAL (base/errors.h), writing nothing, when: player, out or tau
 * is bad (NULL; not finite; rating outside [THUE_GLICKO_RATING_MIN, _MAX]; rd not in
 * (0, THUE_GLICKO_RD_LIMIT]; vol not in (0, THUE_GLICKO_VOL_LIMIT]; tau not in
 * [THUE_GLICKO_TAU_MIN, _MAX]); n < 0; games is NULL while n > 0; a game's rating or RD is
 * bad as above, or its score is not exactly 0, 0.5 or 1. The volatility iteration is
 * bounded (THUE_GLICKO_MAX_ITERATIONS, then bisection); it cannot loop for ever.
 *
 * `player` and `games` are borrowed and only read; *out may be *player.
 */
int thue_glicko_update(const thue_glicko *player, const thue_glicko_game *games, int n, double tau,
                       thue_glicko *out);

/* As thue_glicko_update, and also fills *steps (when not NULL) on success. */
int thue_glicko_update_steps(const thue_glicko *player, const thue_glicko_game *games, int n,
                             double tau, thue_glicko *out, thue_glicko_steps *steps);

/*
 * One rated match between a and b, `sa` being a's score (1, 0.5 or 0; b scores 1 - sa).
 * Both players are updated from their pre-match values, each treating the match as a
 * rating period of one game. Returns 0, or THUE_EINVAL (as thue_glicko_update) writing
 * neither output; a_out == b_out is refused too. The outputs may be the inputs (a_out == a,
 * b_out == b, or even a_out == b).
 */
int thue_glicko_match(const thue_glicko *a, const thue_glicko *b, double sa, double tau,
                      thue_glicko *a_out, thue_glicko *b_out);

/* Nonzero while the rating is provisional (RD above THUE_GLICKO_PROVISIONAL_RD). */
static inline int thue_glicko_provisional(const thue_glicko *g)
{
    return g->rd > THUE_GLICKO_PROVISIONAL_RD;
}

#endif
