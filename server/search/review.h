/*
 * review.h: the exact review of a finished match of a one-game game (every game but
 * Thue): for each move, the exact value of the position before it and after it for the
 * player who made it, a verdict, and a move that keeps the value (issue 33, "Exact review
 * of a finished match"; the API and the browser build on it).
 *
 * Values are the perfect bot's (gbot.h: the game's `perfect` member, or the generic
 * solver for an acyclic game): 1 a win, 0 a draw, -1 a loss for the mover, with best
 * play from both sides; THUE_REVIEW_UNKNOWN where the solver cannot decide within the
 * limits given per position. Verdicts compare after with before: the same value is
 * `best` (no move could do better), one step down (a win let go to a draw, a draw to a
 * loss) a `mistake`, two (a win to a loss) a `blunder`; either value unknown, `unknown`.
 * In a game with scores whose perfect member gives the margin (dots and boxes: the final
 * boxes of the mover minus the other's, best play), a move that keeps the result but
 * lowers the margin is `good`, not `best`. Where a value is unknown, the uct bot's
 * estimate of the mover's chances before and after may be asked for: marked as an
 * estimate, never turned into a verdict.
 *
 * Pure apart from the search's own memory: any thread may call it (the worker pool's).
 */
#ifndef THUE_SEARCH_REVIEW_H
#define THUE_SEARCH_REVIEW_H

#include "games/game.h"
#include "games/thue/engine/repetition.h"
#include "search/limits.h"

#define THUE_REVIEW_UNKNOWN (-2)

typedef enum {
    THUE_VERDICT_BEST = 0,
    THUE_VERDICT_GOOD,
    THUE_VERDICT_MISTAKE,
    THUE_VERDICT_BLUNDER,
    THUE_VERDICT_UNKNOWN
} thue_verdict;

/* "best", "good", "mistake", "blunder", "unknown"; NULL for another value. */
const char *thue_verdict_name(thue_verdict v);

typedef struct thue_review_move {
    int player;          /* the game's player (0 or 1) who made the move */
    int before, after;   /* -1/0/1 for that player, or THUE_REVIEW_UNKNOWN */
    thue_verdict verdict;
    int has_best;        /* best is a move that keeps `before` (known before only) */
    thue_gmove best;
    int has_margin;      /* both margins known (a game with scores, both exact): */
    int margin_before, margin_after; /* the final score difference for the mover */
    int has_estimate;    /* a value unknown and estimates asked for: the uct bot's */
    double est_before, est_after;    /* chances (0..1, mean reward) for the mover */
} thue_review_move;

/*
 * Reviews the n moves played from start (a state of g with opt). out[0..n-1] get one
 * entry per move. lim (may be NULL) bounds each position's solve (its node_budget,
 * think_ms, stop flag, yield hook and memory; its deadline_ns the whole review's); a
 * position it cannot decide is unknown. estimate > 0: for a move with a value unknown,
 * the uct bot's estimates from `estimate` playouts per position (seeded: the same
 * review every time), under the same limits.
 * Returns 0; THUE_EINVAL when g has no perfect play (thue_gbot_has_perfect), n < 0, or a
 * move is refused by the rules (a record that does not replay: out then holds the moves
 * before it); THUE_ENOMEM. *solved (may be NULL) gets how many of the n + 1 positions
 * got an exact value.
 */
int thue_review(const thue_gamedef *g, const thue_gopt *opt, const void *start,
                const thue_gmove *moves, int n, const thue_bot_limits *lim,
                uint64_t estimate, thue_review_move *out, int *solved);

/* The uct bot's chances (mean reward, 0..1) for player `who` in st of g after `playouts`
 * playouts (seeded by the position: the same answer every time) under lim (its deadline
 * and stop; NULL: none): 1 and *est (a position that is over: 1, 0.5 or 0 by its result),
 * or 0 when no tree could be made or no playout ran. */
int thue_review_estimate(const thue_gamedef *g, const thue_gopt *opt, const void *st, int who,
                         uint64_t playouts, const thue_bot_limits *lim, double *est);

/* ---- Thue --------------------------------------------------------------------------------
 *
 * A Thue match is two rounds of one word each, from [0]. The value of a position is the
 * painter points of that round with best play from both sides from there: the points
 * scored so far (the clean word's length n, less the first symbol) plus the further
 * points the painter can force, capped by the round's limit L (the solver's V(w) capped
 * at L - (n - 1); for the painter to move,
 * with the builder's position i chosen, the best of 1 + V of each safe symbol, 0 when
 * none is safe). The painter wants it high, the builder low; a move's loss is the points
 * it gives away (builder: after - before; painter: before - after). A move that loses
 * none is `best`. In round 2 the match's result is at stake, against round 1's final
 * painter points p1 (the round-2 painter wins with more, draws with as many): a loss that
 * keeps the mover's result is `good`, one that moves it one step (win to draw, draw to
 * loss) a `mistake`, two a `blunder`. In round 1 no result is decided yet: a loss of one
 * point is a `mistake`, of two or more a `blunder`. (Estimates where a value is unknown:
 * thue_review_estimate over the match as games/thue/thue.h's game, whose results are the
 * match's, the caller's to ask for.) */

typedef struct thue_review_tmove {
    int round;    /* 0 or 1 */
    int seat;     /* who made it */
    int is_paint; /* 1: the painter's symbol; 0: the builder's position */
    int value;    /* the position (0..n) or the symbol (0..k-1) */
} thue_review_tmove;

typedef struct thue_review_tout {
    int before, after; /* the round's painter points with best play, or THUE_REVIEW_UNKNOWN */
    thue_verdict verdict;
    int has_best;
    int best;          /* a position (builder) or a symbol (painter) that keeps before */
} thue_review_tout;

/*
 * Reviews the n moves of a Thue match (k symbols, variant v, limit L), in their order:
 * each round starts from the word [0], builder first. lim as thue_review's (node_budget
 * per position); total_nodes > 0 bounds the whole review's: the positions are solved
 * from each round's end backwards (the last are the cheapest), so a budget that runs out
 * leaves the earliest unknown. 0, or THUE_EINVAL (bad arguments, a move that does not
 * replay: out is then undefined), THUE_ENOMEM. *solved (may be NULL) gets how
 * many moves got both values exactly.
 */
int thue_review_thue(int k, thue_variant v, int limit, const thue_review_tmove *moves, int n,
                     const thue_bot_limits *lim, uint64_t total_nodes, thue_review_tout *out,
                     int *solved);

/*
 * The same values one position at a time (the puzzles of search/puzzle.h): a solver for
 * k, v and limit L whose table is kept between calls, each solve bounded by lim's
 * node_budget (0: none), deadline, stop flag and yield hook (lim copied; NULL: none).
 * thue_review_tpos_new: new, or NULL on bad arguments or out of memory; _free(NULL) is a
 * no-op. Not for two threads at once.
 *
 * thue_review_tbuilder: the builder to move in the clean word w[0..n) (n - 1 <= L): *val
 * the further painter points with best play, min(V(w), L - (n - 1)), and *best a place
 * of best play (-1 when none is known). thue_review_tpainter: the painter to move with
 * the place i (0..n) chosen (n - 1 < L): *val the best of 1 + the builder's value of the
 * word with a safe symbol at i (0 when none is safe), *best that symbol (-1: none safe).
 * Both return 0, 1 when a limit left the value undecided (*val untouched), THUE_EINVAL
 * (arguments out of range), or THUE_ENOMEM. The word is trusted to be clean.
 */
typedef struct thue_review_tpos thue_review_tpos;
thue_review_tpos *thue_review_tpos_new(int k, thue_variant v, int limit,
                                       const thue_bot_limits *lim);
void thue_review_tpos_free(thue_review_tpos *c);
int thue_review_tbuilder(thue_review_tpos *c, const uint8_t *w, int n, int *val, int *best);
int thue_review_tpainter(thue_review_tpos *c, const uint8_t *w, int n, int i, int *val,
                         int *best);

#endif
