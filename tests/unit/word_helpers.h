/*
 * word_helpers.h: what the word tests (test_word_*.c) share: a fixed-seed xorshift64
 * and small checks on words.
 */
#ifndef THUE_TEST_WORD_HELPERS_H
#define THUE_TEST_WORD_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/errors.h"
#include "games/thue/engine/word.h"

extern uint64_t rng_state;

void rng_seed(uint64_t seed);

uint64_t rnd(void);

int rnd_below(int n);

/* Uniform in lo..hi inclusive. */
int rnd_range(int lo, int hi);

/* w must hold exactly sym[0..n-1]. */
void assert_word_is(const thue_word *w, const uint8_t *sym, int n);

#define PI_LEN 8

extern const uint8_t PI_SYMS[PI_LEN];

void make_pi(thue_word *w);

#define SYMS(...) ((const uint8_t[]){__VA_ARGS__})

/* Scratch words owned by the cmocka state of the tests that use them, freed by the
 * teardown even when an assertion jumps out of the test. */
#define NSCRATCH 3

int scratch_setup(void **state);

int scratch_teardown(void **state);

#endif
