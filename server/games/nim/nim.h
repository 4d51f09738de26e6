/*
 * nim.h: Nim's state and its perfect strategy, for the other heap games (Rims plays the
 * same strategy) and the tests.
 */
#ifndef THUE_GAMES_NIM_H
#define THUE_GAMES_NIM_H

#include <stdbool.h>

#define THUE_NIM_HEAPS_MAX 16
#define THUE_NIM_HEAP_MAX 1000
/* max_moves is the options' token count, and never below this, so that positions read
 * by position_parse may hold more tokens than the options' heaps (up to this many). */
#define THUE_NIM_MOVES_FLOOR 1024

typedef struct thue_nim_state {
    int n;
    int to_move;
    int moves;
    int heaps[THUE_NIM_HEAPS_MAX];
} thue_nim_state;

/* The perfect move for the player to move in heaps[0..n-1]: 1 (a win; *heap and *take
 * the winning move), -1 (a loss; *heap and *take a legal move) or 0 (no token left). */
int thue_nim_perfect_heaps(const int *heaps, int n, bool misere, int *heap, int *take);

#endif
