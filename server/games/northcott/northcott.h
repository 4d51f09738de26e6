/*
 * northcott.h: Northcott's game's limits and its perfect strategy on bare rows, for the
 * game's table (northcott.c) and the tests.
 */
#ifndef THUE_GAMES_NORTHCOTT_H
#define THUE_GAMES_NORTHCOTT_H

#define THUE_NORTHCOTT_ROWS_MAX 16
#define THUE_NORTHCOTT_COLS_MIN 2
#define THUE_NORTHCOTT_COLS_MAX 32
#define THUE_NORTHCOTT_CAP_MAX 100000

/* The perfect move for `mover` (0 white, 1 black) on `rows` rows of `cols` columns,
 * white[r] and black[r] the columns of row r's pieces (distinct, 0..cols-1).
 * Returns 1 (a win: *row and *to the winning move, always toward the opponent's piece),
 * -1 (a loss: *row and *to a legal move, one square forward where there is one) or 0
 * (the mover has no legal move: *row and *to untouched). The move cap is not considered. */
int thue_northcott_perfect_rows(const int *white, const int *black, int rows, int cols, int mover,
                                int *row, int *to);

#endif
