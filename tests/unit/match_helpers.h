/*
 * match_helpers.h: what the match tests (test_match_*.c) share: a snapshot of the whole
 * match machine to check that a refused call changed nothing, and small drivers.
 */
#ifndef THUE_TEST_MATCH_HELPERS_H
#define THUE_TEST_MATCH_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/errors.h"
#include "games/thue/engine/match.h"
#include "games/thue/engine/repetition.h"
#include "games/thue/engine/word.h"

/*
 * Definition-level repetition check, period by period: a square of period p is a run of
 * p positions j with w[j] == w[j+p], an overlap a run of p+1. Scanning periods upwards and
 * starts left to right reports the smallest period, then the leftmost start, as
 * repetition.h promises. O(n^2), deliberately simple.
 */
int ref_repetition(const uint8_t *w, int n, thue_variant v, thue_repetition *out);

thue_match_options make_opt(thue_variant v, int k, int limit, int first_builder);

void start(thue_match *m, thue_variant v, int k, int limit, int first_builder);

/* A copy of everything a rejected call must leave alone. */
typedef struct snapshot {
    thue_match m; /* shallow copy */
    uint8_t *sym; /* copy of m.word.sym[0..len-1] */
    int to_move, builder, painter, points0, points1;
} snapshot;

void snap_take(snapshot *s, const thue_match *m);

void snap_assert_same(snapshot *s, const thue_match *m);

/* The call must fail with exactly `code` and change nothing. */
#define EXPECT_REJECT(m, call, code)                                                               \
    do {                                                                                           \
        snapshot snap_;                                                                            \
        snap_take(&snap_, (m));                                                                    \
        int rc_ = (call);                                                                          \
        if (rc_ != (code))                                                                         \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n", __FILE__, __LINE__,  \
                    #call, rc_, thue_err_name(rc_), (int)(code), thue_err_name(code));             \
        assert_int_equal(rc_, (code));                                                             \
        snap_assert_same(&snap_, (m));                                                             \
    } while (0)

void assert_word(const thue_match *m, const uint8_t *want, int n);

void assert_word_is_zero(const thue_match *m);

/* The builder of the current round places at i. */
void place_ok(thue_match *m, int i);

/* The painter of the current round paints c. */
void paint_ok(thue_match *m, int c);

void move_ok(thue_match *m, int i, int c);

/*
 * Plays the current round (square variant, k > pts + 1, limit > pts): the painter scores
 * pts points with fresh symbols 1..pts appended at the end, then the builder places at the
 * end and the painter repeats the last symbol, a square of period 1.
 */
void play_round(thue_match *m, int pts);

void check_over_rejects(thue_match *m);

#endif
