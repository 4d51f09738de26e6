/*
 * baseline.h: the original thesis's way of deciding a move, as the benchmark baseline.
 *
 * For one tentative insertion it builds the new word, then rescans all of it for every
 * window length, copying both windows into lists before comparing them, and stops at
 * the first repetition. A legal-move map done this way costs (n+1)*k such rescans.
 * It is deliberately not clever; it is only used to measure the engine against.
 */
#ifndef THUE_CLI_BASELINE_H
#define THUE_CLI_BASELINE_H

#include <stdint.h>

#include "games/thue/engine/repetition.h"

typedef struct baseline_buf {
    int *word;  /* the new word as a list */
    int *left;  /* first window */
    int *right; /* second window */
    int cap;
} baseline_buf;

/* Room for words up to n+1 symbols. 0 or -1 when out of memory. */
int baseline_init(baseline_buf *b, int n);
void baseline_free(baseline_buf *b);

/* 1 when inserting c at i into w[0..n) creates a repetition of the variant, else 0. */
int baseline_insert_creates(baseline_buf *b, const uint8_t *w, int n, thue_variant v, int i, int c);

#endif
