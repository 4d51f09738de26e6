/*
 * circle.h: the circle game's state, its move generator and its block analysis (the
 * exact value of a position), for the game table in circle.c and the tests.
 *
 * A board is an array of n fields (3..64) around a circle: 0 free, 1 a white piece
 * (player 0), 2 a black piece (player 1). Player p's pieces are the value p + 1.
 */
#ifndef THUE_GAMES_CIRCLE_H
#define THUE_GAMES_CIRCLE_H

#include <stdint.h>

#include "games/game.h"

#define THUE_CIRCLE_FIELDS_MIN 3
#define THUE_CIRCLE_FIELDS_MAX 64

/* The whole match: flat, no pointers (memcpy copies it). Unused board fields are 0. */
typedef struct thue_circle_state {
    int32_t n;       /* fields */
    int32_t to_move; /* 0 white, 1 black: whose turn it is (also once the game is over) */
    int32_t moves;   /* moves played so far (the move cap counts them) */
    int32_t pad;
    uint8_t board[THUE_CIRCLE_FIELDS_MAX];
} thue_circle_state;

/* The legal moves of `player` on board[0..n-1], written to out (at most 2 * n of them:
 * each free field is reached by at most the nearest piece on either side): v[0] from,
 * v[1] to, v[2] dir (1 toward increasing field numbers, -1 the other way). The order is
 * fixed: by field of the piece, then direction +1 before -1, then distance. Returns the
 * count. */
int thue_circle_moves(int n, const uint8_t *board, int player, thue_gmove *out);

/* The exact value of board[0..n-1] for `to_move` under perfect play without a move cap:
 * 1 win, 0 draw (endless play), -1 loss; THUE_CIRCLE_UNKNOWN if the chain of forced
 * blocking moves went deeper than the analysis allows (never seen: see circle_solve.c).
 * Both players must have a piece. Linear in n per blocking re-evaluation. */
#define THUE_CIRCLE_UNKNOWN 2
int thue_circle_value(int n, const uint8_t *board, int to_move);

/* The free fields of the holes that count once single pieces are folded into their
 * super-blocks (circle_solve.c): the Nim heaps, what a winner squeezes shut. Both
 * players must have a piece. */
long thue_circle_holes(int n, const uint8_t *board);

/* ---- the move cap (circle_cap.c) ---------------------------------------------------- */

/* The most moves from a decided position of n fields to its end under the fastest win
 * and the longest defence, over every position of that size: with at least this many
 * moves left before the cap (one more for a win's move to keep it), the cap cannot
 * decide a position. Known up to 12 fields (test_game_circle's retrograde); -1 beyond. */
int thue_circle_longest(int n);

/* The longest line thue_circle_capped follows. */
#define THUE_CIRCLE_CAP_DEPTH 200

/*
 * The fastest forced win of `winner` from board[0..n-1] with `to_move` to move, the
 * position's uncapped value being winner's win (thue_circle_value): the winner hurries,
 * the other side stalls. 0 with *plies its length in moves when it is at most
 * max_plies, else -1 (the cap comes first: a draw), and *best a move for to_move that
 * keeps the capped value: the winner's first move of the fastest win (or, when it comes
 * too late, a move that keeps the uncapped win); the other side's move that holds out
 * longest (or one after which the win comes too late). THUE_ETOOBIG past `budget` nodes,
 * THUE_CIRCLE_CAP_DEPTH moves, when ctl (may be NULL) says stop or its memory budget
 * refuses the table; THUE_ENOMEM.
 */
int thue_circle_capped(int n, const uint8_t *board, int to_move, int winner, int max_plies,
                       uint64_t budget, const thue_gctl *ctl, int *plies, thue_gmove *best);

/* How far a win still has to go after the winner's move to board b (`opponent` to move),
 * the less the better: circle.c's measure that carries a win out (internal). */
uint64_t thue__circle_progress(int n, const uint8_t *b, int opponent);

#endif
