/*
 * bots_ref.h: references for the bot tests (test_bots.c, test_bots_specs.c,
 * test_bots_perfect.c), written straight from the "Bots" section of RULES.md. They share
 * no code with Thue's bots (server/games/thue/bots/): safe symbols come from the naive
 * rescan of naive.c (one full repetition check per position and symbol), simulation(m) is
 * the recursion of RULES.md word for word, and perfect play is the minimax of the values
 * in bot.h memoised on exact words (no symmetry, no move ordering; only the cap is
 * tightened and raised step by step, which keeps its results those of the recursion). The
 * one thing taken from the bots' side is the tie-break draw, thue_bot_tiebreak, which
 * bot.h makes part of the contract (test_bots_specs checks it against SplitMix64 written
 * out here). Include after <cmocka.h>.
 */
#ifndef THUE_TESTS_BOTS_REF_H
#define THUE_TESTS_BOTS_REF_H

#include <stdint.h>

#include "games/thue/engine/repetition.h"
#include "games/thue/bots/bot.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Longest word a test builds, with room for the references' insertions. */
#define WMAX 72

/* ---- small tools ---- */

/* SplitMix64 from its definition (Steele, Lea and Flood). */
uint64_t splitmix64(uint64_t *state);
/* The tests' own generator, restarted before every test (a cmocka setup) so that a test
 * draws the same positions alone or with the others; rnd_below(n) is in [0, n). */
int reset_rng(void **state);
int rnd_below(int n);
int popcount(uint64_t x);
/* The safe symbols at position i of the clean word w[0..n): k naive rescans. */
uint64_t ref_safe(const uint8_t *w, int n, int k, thue_variant v, int i);
thue_position mkpos(thue_variant v, int k, const uint8_t *w, int n, thue_role role, int index);
/* Prints a position (for a failing check). */
void dump(const char *what, const thue_position *p, uint64_t seed);
/* A clean word of up to len symbols reached by random play from [0]; returns its length. */
int random_word(thue_variant v, int k, int len, uint8_t *w);
/* A random position 0..n of w, one with a safe symbol when there is one. */
int random_index(thue_variant v, int k, const uint8_t *w, int n);
thue_bot_spec spec_of(const char *text);
/* The move is in range, and a painter's is safe when some symbol is. */
void assert_legal_move(const thue_position *p, int move);
/* thue_bot_move under limits: it must succeed with a legal move. */
void run_limited(const thue_bot_spec *spec, const thue_position *p, const thue_bot_limits *lim,
                 uint64_t seed, thue_bot_result *r);

/* ---- greedy and nested:L ---- */

int ref_greedy(const thue_position *p);

typedef struct nested_ref {
    int move;
    uint64_t nodes;           /* 1 (the root) + simulation() calls */
    int ncand;                /* positions, or safe symbols */
    int cand[WMAX + 2];       /* ascending */
    uint64_t score[WMAX + 2]; /* score of cand[x] */
    int ntied;                /* candidates with the best score */
    int tied[WMAX + 2];       /* ascending */
} nested_ref;

/* The nested:L move of RULES.md, ties broken by thue_bot_tiebreak(seed, ties). */
void ref_nested(const thue_position *p, int L, uint64_t seed, nested_ref *out);
int is_tied(const nested_ref *ref, int move);
/* thue_bot_move's nested:L answer against ref_nested (move and node count). */
int check_nested(const thue_position *p, int L, uint64_t seed, nested_ref *ref);

/* ---- perfect play ---- */

/* A table of min(V(w), d) keyed on the exact word and d; one at a time, freed by the
 * next memo_open or by teardown_memo (a cmocka group teardown). */
typedef struct memo memo;
memo *memo_open(int k, thue_variant v);
int teardown_memo(void **state);
/* Each root move's value capped at d (-1 for an unsafe painter symbol); returns the
 * best value. */
int ref_root_values(memo *m, const thue_position *p, int d, int *vals);
/* The value of one root move, capped at d. */
int ref_move_value(memo *m, const thue_position *p, int move, int d);

#endif
