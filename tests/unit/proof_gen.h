/*
 * proof_gen.h: the reference side of the proof checker's tests (test_verify_proof*.c).
 *
 * Everything here is written from the definitions, apart from both the checker
 * (server/games/thue/proof/) and the solver (server/games/thue/bots/): a naive
 * square/overlap test, two canonical forms (the format's relabelling read literally, and
 * the smallest image under every permutation of the symbols and both directions), a
 * brute-force minimax with a memo on raw words, a builder of real proof files from it, and
 * a naive verifier that parses a file into structs and checks every rule of the format by
 * linear search. Words here are short (at most PG_LEN_MAX symbols, k <= 4 for the minimax).
 */
#ifndef THUE_TESTS_PROOF_GEN_H
#define THUE_TESTS_PROOF_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "games/thue/engine/repetition.h"

#define PG_LEN_MAX 40
#define PG_LEVELS_MAX 32

/* 1 when sym[0..n-1] has no square (or overlap), by comparing every window. */
int pg_clean(const uint8_t *sym, int n, thue_variant v);
/* The format's canonical form, literally: relabel the word and its reversal by first
 * appearance into two arrays, keep the smaller. */
void pg_canonical_spec(const uint8_t *sym, int n, uint8_t *out);
/* The smallest word among the images of sym under all k! relabellings and reversal. */
void pg_canonical_perm(const uint8_t *sym, int n, int k, uint8_t *out);

/* min(V(w), cap) by brute-force minimax (memo on raw words; k <= 4, n + cap <= PG_LEN_MAX). */
int pg_value(const uint8_t *sym, int n, int k, thue_variant v, int cap);
/* Frees the minimax's memo. */
void pg_reset(void);

typedef struct pg_record {
    uint8_t w[PG_LEN_MAX];
    uint8_t r[PG_LEN_MAX + 1];
} pg_record;

typedef struct pg_proof {
    thue_variant v;
    int k, n0, depth, nlevels;
    uint8_t root[PG_LEN_MAX];
    int count[PG_LEVELS_MAX];
    pg_record *recs[PG_LEVELS_MAX]; /* sorted by w */
} pg_proof;

/* Builds the painter's strategy to depth D from root (the smallest symbol that keeps the
 * remaining depth at each position). 0, or -1 when the painter has no such strategy. */
int pg_build(pg_proof *p, const uint8_t *root, int n0, int k, thue_variant v, int depth);
/* The same tree for the greedy painter (the smallest safe symbol, no minimax; any k <= 16):
 * 0, or -1 when it meets a position without a safe symbol. The last level's children are
 * not examined: the checker does that. */
int pg_build_greedy(pg_proof *p, const uint8_t *root, int n0, int k, thue_variant v, int depth);
void pg_free(pg_proof *p);
/* Serialises p in the file format; returns a new buffer, its size in *len. */
uint8_t *pg_serialize(const pg_proof *p, size_t *len);

/* The naive verifier: 1 when buf[0..len-1] is a valid proof file, else 0. */
int pg_naive_verify(const uint8_t *buf, size_t len);

/* A square-free word over {0, 1, 2} of n symbols (the number of 1s between consecutive 0s
 * of the Thue-Morse word), in canonical form, into out. */
void pg_ternary_word(int n, uint8_t *out);
/*
 * A small proof with long words (a new buffer, its size in *len): square, k = depth + 2,
 * root pg_ternary_word(n0), depth 2 or 3; the painter answers the one symbol the word does
 * not hold yet (never part of a square), at every position. Valid as long as every last
 * child has a safe symbol at each position (true for the sizes the tests use). Its
 * records are about L+1 bytes but their checks cost about L^2 each: the proof the
 * checker's work bound is for.
 */
uint8_t *pg_wide_proof(int n0, int depth, size_t *len);

#endif
