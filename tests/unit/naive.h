/*
 * naive.h: a deliberately naive reference for the repetition queries, straight from
 * the definitions of RULES.md, used to check the engine's clever code. Nothing here
 * shares code with server/games/thue/engine/repetition.c.
 */
#ifndef THUE_TEST_NAIVE_H
#define THUE_TEST_NAIVE_H

#include <stdint.h>

#include "games/thue/engine/repetition.h"

/* The reference is not the code under test: keep sanitizer instrumentation out of it so
 * that the exhaustive checks stay affordable in the ASan/UBSan build. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8 || defined(__clang__)
#define NAIVE_FAST __attribute__((no_sanitize("address", "undefined")))
#else
#define NAIVE_FAST
#endif

/* Full rescan: for p = 1, 2, ... and start s = 0, 1, ..., compare the windows symbol by
 * symbol. 1 and *out for the first repetition found, else 0. */
int naive_check(const uint8_t *w, int n, thue_variant v, thue_repetition *out);

/* Builds w[0..i) c w[i..n) into buf (room for n+1) and checks it naively. */
int naive_check_insert(const uint8_t *w, int n, thue_variant v, int i, int c, uint8_t *buf,
                       thue_repetition *out);

/* Safe symbols at position i by k naive insertion checks. */
uint64_t naive_safe_at(const uint8_t *w, int n, int k, thue_variant v, int i, uint8_t *buf);

#endif
