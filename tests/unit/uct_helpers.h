/*
 * uct_helpers.h: what the uct tests (test_uct_*.c) share: positions, running the bot,
 * and the root statistics seen through bot_internal.h (the contract uct.c implements).
 */
#ifndef THUE_TEST_UCT_HELPERS_H
#define THUE_TEST_UCT_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/errors.h"
#include "games/thue/engine/repetition.h"
#include "games/thue/engine/word.h"
#include "naive.h"
#include "games/thue/bots/bot.h"
#include "games/thue/bots/bot_internal.h"
#include "games/thue/bots/solve.h"
#include "games/thue/bots/uct.h"

/* ---- helpers ----------------------------------------------------------------------- */

uint64_t lcg(uint64_t *x);

/* A clean word of length n over k symbols: depth-first search over appended symbols,
 * each level trying the symbols in a rotated order drawn from the seed. */
void make_word(uint8_t *w, int n, int k, thue_variant v, uint64_t seed);

thue_bot_spec uct_spec(uint64_t iterations, int playout, double c);

thue_position position(thue_variant v, int k, const uint8_t *w, int n, thue_role role, int index);

/* A search run part by part on this thread and finished; the caller frees it. */
thue_bot_search *search(const thue_bot_spec *spec, const thue_position *pos, uint64_t seed,
                        int parts, const thue_bot_limits *lim, thue_bot_result *out);

thue_bot_result move_of(const thue_bot_spec *spec, const thue_position *pos, uint64_t seed,
                        const thue_bot_limits *lim);

/* ---- tree export ------------------------------------------------------------------- */

typedef struct row {
    char move[16];
    unsigned long long visits, visits2;
    double payoff;
    char state[256];
    int children;
} row;

typedef struct rows {
    row *r;
    int n, cap;
} rows;

row *rows_add(rows *t);

/* The next CSV field of *p into out (quoted fields may hold commas); the delimiter
 * after it ('\n', ',' or '\0') is returned and skipped. */
char csv_field(const char **p, char *out, size_t size);

void parse_csv(FILE *f, rows *t);

/* A state name split into the word and the painter's position (-1: builder). */
void split_state(const char *state, thue_word *w, int *at);

/* Depth-first order, children counts, visit sums, and each state following from its
 * parent's by the move (p<I>: the builder picks I; s<C>: C is inserted at the parent's
 * position and is safe there). */
void check_tree(const rows *t, int k, thue_variant v, int root_counters);

#endif
