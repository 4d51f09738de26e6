/*
 * rims.h: Rims's limits and move count, for the game's table (rims.c) and the tests.
 */
#ifndef THUE_GAMES_RIMS_H
#define THUE_GAMES_RIMS_H

#define THUE_RIMS_HEAPS_MAX 16     /* heaps in the options */
#define THUE_RIMS_HEAP_MAX 1000    /* dots in one heap */
#define THUE_RIMS_REGIONS_MAX 64   /* regions (non-empty heaps) a state may hold */
#define THUE_RIMS_MOVES_FLOOR 4096 /* max_moves is at least this (see rims.c) */

/* The number of distinct moves from one heap of h dots (take t >= 1, then split the rest
 * r = h - t into x and r - x with x <= r / 2): the sum over r < h of r / 2 + 1. */
int thue_rims_heap_moves(int h);

#endif
