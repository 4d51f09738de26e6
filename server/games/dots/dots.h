/*
 * dots.h: dots and boxes: its options, its state, the numbering of its lines, and the
 * pieces the bots and the tests share (the exact solver, the source's heuristic, the
 * strong bot).
 *
 * A board of R x C boxes (1..THUE_DOTS_SIDE_MAX each) has (R+1) x C horizontal lines
 * and R x (C+1) vertical ones. Line numbers: the horizontal line above box row r
 * (r = 0..R), column c (0..C-1) is r*C + c; the vertical line left of box column c
 * (0..C) in box row r (0..R-1) is (R+1)*C + r*(C+1) + c. Box (r, c) is r*C + c; its
 * sides are the horizontal lines r and r+1 of column c and the vertical lines c and c+1
 * of row r. The bounds keep a state to a few hundred bytes (THUE_DOTS_LINES_MAX lines
 * in THUE_DOTS_WORDS words of bits).
 */
#ifndef THUE_GAMES_DOTS_H
#define THUE_GAMES_DOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "games/game.h"

#define THUE_DOTS_SIDE_MAX 10
#define THUE_DOTS_BOXES_MAX (THUE_DOTS_SIDE_MAX * THUE_DOTS_SIDE_MAX)
#define THUE_DOTS_LINES_MAX (2 * THUE_DOTS_SIDE_MAX * (THUE_DOTS_SIDE_MAX + 1))
#define THUE_DOTS_WORDS ((THUE_DOTS_LINES_MAX + 63) / 64)
/* The exact solver takes boards of at most this many lines (one 64-bit word). */
#define THUE_DOTS_SOLVE_LINES_MAX 64

typedef struct thue_dots_opt {
    int rows, cols;
    bool outline; /* the source's variant: the border is drawn at the start */
} thue_dots_opt;

typedef struct thue_dots_state {
    uint64_t drawn[THUE_DOTS_WORDS];   /* every drawn line */
    uint64_t by1[THUE_DOTS_WORDS];     /* drawn by player 1 (the rest of drawn: player 0 or pre) */
    uint64_t pre[THUE_DOTS_WORDS];     /* drawn before play (the outline; a position's "2") */
    int8_t owner[THUE_DOTS_BOXES_MAX]; /* -1 open, else the player who completed it */
    int16_t score[2];
    int16_t last; /* the last line drawn, -1 none */
    int16_t moves;
    int8_t to_move; /* the player to move (kept once over: the last mover's opponent) */
    int8_t again;   /* the last move completed a box: its player moves again */
} thue_dots_state;

/* ---- line and box numbering (see the top) --------------------------------------------- */

static inline int thue_dots_nlines(int R, int C)
{
    return (R + 1) * C + R * (C + 1);
}
static inline int thue_dots_hline(int R, int C, int r, int c)
{
    (void)R;
    return r * C + c;
}
static inline int thue_dots_vline(int R, int C, int r, int c)
{
    return (R + 1) * C + r * (C + 1) + c;
}
/* The four sides of box b: top, bottom, left, right. */
static inline void thue_dots_sides(int R, int C, int b, int s[4])
{
    int r = b / C, c = b % C;
    s[0] = thue_dots_hline(R, C, r, c);
    s[1] = thue_dots_hline(R, C, r + 1, c);
    s[2] = thue_dots_vline(R, C, r, c);
    s[3] = thue_dots_vline(R, C, r, c + 1);
}
/* The boxes on either side of line l (-1 beyond the border). */
static inline void thue_dots_line_boxes(int R, int C, int l, int b[2])
{
    int H = (R + 1) * C;
    if (l < H) {
        int r = l / C, c = l % C;
        b[0] = r > 0 ? (r - 1) * C + c : -1;
        b[1] = r < R ? r * C + c : -1;
    } else {
        int r = (l - H) / (C + 1), c = (l - H) % (C + 1);
        b[0] = c > 0 ? r * C + c - 1 : -1;
        b[1] = c < C ? r * C + c : -1;
    }
}
static inline bool thue_dots_border(int R, int C, int l)
{
    int b[2];
    thue_dots_line_boxes(R, C, l, b);
    return b[0] < 0 || b[1] < 0;
}
static inline int thue_dots_bit(const uint64_t *w, int l)
{
    return (int)((w[l >> 6] >> (l & 63)) & 1u);
}
/* Drawn sides of box b in drawn. */
static inline int thue_dots_count(int R, int C, const uint64_t *drawn, int b)
{
    int s[4];
    thue_dots_sides(R, C, b, s);
    return thue_dots_bit(drawn, s[0]) + thue_dots_bit(drawn, s[1]) + thue_dots_bit(drawn, s[2]) +
           thue_dots_bit(drawn, s[3]);
}

/* ---- the game's pieces for its bots and tests ------------------------------------------ */

/* Boxes line l would complete in st (0, 1 or 2; l undrawn). */
int thue__dots_completes(const thue_dots_opt *o, const thue_dots_state *st, int l);

/*
 * The exact solver (dots_solve.c): the net boxes the player to move can still win from
 * the undrawn lines (their boxes minus the opponent's, over the boxes not yet owned),
 * by negamax with alpha-beta and a transposition table keyed by the drawn lines alone
 * (the value does not depend on the score or on who drew what). Boards of at most
 * THUE_DOTS_SOLVE_LINES_MAX lines. 0 with *net and *best (a line; -1 when none is left),
 * THUE_ETOOBIG (more lines, past node_budget nodes when it is not 0, stopped by ctl, or
 * not even its smallest table allowed by ctl's budget), THUE_ENOMEM. *nodes (may be
 * NULL) gets the positions searched. ctl (may be NULL) is polled every 64 nodes (its pace decides
 * when that reads the clock); the table (up to 64 MiB, less when the budget refuses it) is taken
 * from its budget, allocated and freed here.
 */
int thue__dots_solve(const thue_dots_opt *o, uint64_t drawn, uint64_t node_budget,
                     const thue_gctl *ctl, int *net, int *best, uint64_t *nodes);
/* The same value by plain minimax (no pruning, no table): the tests' reference. */
int thue__dots_minimax(const thue_dots_opt *o, uint64_t drawn);

/* The source's heuristic (dots_bots.c): the line it draws in st (not over). */
int thue__dots_heuristic(const thue_dots_opt *o, const thue_dots_state *st, uint64_t seed);
/* Boxes the opponent can take in a row after the mover draws l (the heuristic's key). */
int thue__dots_handed(const thue_dots_opt *o, const thue_dots_state *st, int l);
/* The strong bot: the line it draws. ctl (may be NULL) cuts its search short and budgets
 * its exact search's table. */
int thue__dots_strong(const thue_dots_opt *o, const thue_dots_state *st, uint64_t seed,
                      const thue_gctl *ctl);
/* The same with the exact search on (exact 1) or off (0: chains, loops and the model
 * alone, as on big boards; the tests check that part against the exact values). */
int thue__dots_strong_ex(const thue_dots_opt *o, const thue_dots_state *st, uint64_t seed,
                         int exact, const thue_gctl *ctl);

#endif
