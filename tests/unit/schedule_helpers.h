/*
 * schedule_helpers.h: what the scheduler tests (test_schedule_*.c) share: a fixed-seed
 * generator, event histories, and the oracles of their own (brute force over all
 * matchings, a greedy certificate, the rank of a random Tutte matrix) that check
 * server/ladder/schedule.h.
 */
#ifndef THUE_TEST_SCHEDULE_HELPERS_H
#define THUE_TEST_SCHEDULE_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "base/errors.h"
#include "ladder/schedule.h"

extern uint64_t rng_state;

void rng_seed(uint64_t seed);

uint64_t rnd(void);

int rnd_below(int n);

int rnd_range(int lo, int hi);

void shuffle(int *a, int n);

int popcount64(uint64_t x);

#define BIT(i) ((uint64_t)1 << (i))

/* ---------------------------------------------------------------- matching oracles
 *
 * Graphs on at most 64 vertices: g[v] is v's neighbour mask, S the vertex set.
 */

/* Brute force: the maximum matching of g inside S, trying every matching. */
int brute_nu(const uint64_t *g, uint64_t S);

/* Brute force: does g have a perfect matching on S? */
int brute_pm(const uint64_t *g, uint64_t S);

/* Greedy matching size in a random vertex order: a lower bound. */
int greedy_nu(const uint64_t *g, uint64_t S);

#define TUTTE_P 2147483647ULL /* 2^31 - 1, prime */

uint64_t mod_pow(uint64_t b, uint64_t e);

/* Rank of g's Tutte matrix on S with random values: 2 * (maximum matching) with
 * probability >= 1 - |S| / p, and never more. */
int tutte_rank(const uint64_t *g, uint64_t S);

/* Maximum matching size inside S: exact for small S, else certified or w.h.p. */
int oracle_nu(const uint64_t *g, uint64_t S);

int oracle_pm(const uint64_t *g, uint64_t S);

/* ---------------------------------------------------------------- Swiss: the test's model */

#define EV_MAX 64

/* The test's own record of an event (independent of thue_swiss_state). */
typedef struct ev {
    int n;
    int hp[EV_MAX], seed[EV_MAX], firsts[EV_MAX], seconds[EV_MAX], last[EV_MAX], byes[EV_MAX];
    uint64_t met[EV_MAX];
} ev;

typedef struct stats {
    long rounds, relaxed, no_pairing, floats, second_byes, balanced_events, events;
} stats;

void ev_init(ev *e, int n, const int *seed);

int ev_before(const ev *e, int a, int b);

void ev_order(const ev *e, int *order, int *pos);

/* The pairing graph: not met; with `balanced`, no two players both at +2 or more (or
 * both at -2 or less) in firsts - seconds. */
void ev_graph(const ev *e, int balanced, uint64_t *g);

uint64_t all_mask(int n);

/* Does a legal pairing exist (any bye)? */
int legal_exists(const ev *e, const uint64_t *loose);

/* The role rule of schedule.h, restated; hi is the higher-placed player. */
int expect_hi_first(const ev *e, int hi, int lo, int board, int lot);

/* The state the library would build, from the test's record. */
void ev_to_state(const ev *e, thue_swiss_state *st);

/*
 * Checks one answer of thue_swiss_pair against every rule, replaying the greedy with the
 * test's oracles (a choice equal to the answer needs no "rest is pairable" call: the
 * answer's later boards are the witness).
 */
void check_swiss_round(const ev *e, int lot, int ret, const thue_game *out,
                       const thue_swiss_info *info, stats *s);

int fast_mode(void);

void print_stats(const char *what, const stats *s);

#endif
