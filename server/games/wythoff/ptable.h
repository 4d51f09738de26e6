/*
 * ptable.h: the P-positions of generalised Wythoff's game, three ways.
 *
 * The game (parameter a >= 1): two heaps; a move takes any positive number of tokens
 * from one heap, or x > 0 and y > 0 from both with |x - y| < a. The P-positions (the
 * positions the player to move loses) are the pairs {A_n, B_n}, n >= 0, with
 *   A_n = mex {A_i, B_i : i < n},   B_n = A_n + a*n       (A_0 = B_0 = 0).
 *
 * Three independent ways to compute them (docs/games.md, "Wythoff's game"):
 *   - recursive: the mex table, straight from the definition;
 *   - algebraic: A_n = floor(alpha n), B_n = floor(beta n) with
 *     alpha = (2 - a + sqrt(a^2 + 4)) / 2 and beta = alpha + a, in floating point (the
 *     source's way: exact while the rounding error of alpha*n stays below its distance
 *     to the nearest integer, wrong beyond);
 *   - arithmetic: Fraenkel's numeration systems p and q from the continued fraction of
 *     alpha = [1; a, a, a, ...], exact in 128-bit integers for n up to
 *     THUE_WYTHOFF_N_HUGE, O(log n) for one n.
 * and an exact reference independent of all three: floor(alpha n) by integer
 * comparisons in 256 bits.
 *
 * Everything is pure libc; no globals. Tables are written to caller-owned arrays.
 */
#ifndef THUE_GAMES_WYTHOFF_PTABLE_H
#define THUE_GAMES_WYTHOFF_PTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 thue_u128;

#define THUE_WYTHOFF_A_MAX 1000
/* Largest n of a table (the arrays hold n+1 entries of 8 bytes each). */
#define THUE_WYTHOFF_TABLE_MAX 100000000L
/* Largest n of the exact one-n queries: 10^32 (A_n, B_n and the 256-bit squares of the
 * exact check all fit for every a <= THUE_WYTHOFF_A_MAX). */
#define THUE_WYTHOFF_N_HUGE ((thue_u128)10000000000000000ULL * (thue_u128)10000000000000000ULL)

typedef enum thue_wythoff_method {
    THUE_WYTHOFF_RECURSIVE = 0,
    THUE_WYTHOFF_ALGEBRAIC = 1,
    THUE_WYTHOFF_ARITHMETIC = 2,
} thue_wythoff_method;

/* "recursive", "algebraic", "arithmetic"; NULL for another value. */
const char *thue_wythoff_method_name(thue_wythoff_method m);

/*
 * The P-table for n = 0..N by method m: A[n], B[n] (caller-owned arrays of N+1). 0, or
 * THUE_EINVAL (a outside 1..THUE_WYTHOFF_A_MAX, N outside 0..THUE_WYTHOFF_TABLE_MAX, a
 * method that is none of the three), or THUE_ENOMEM (the working arrays). The algebraic
 * table is the double one (it may be wrong for large n, see thue_wythoff_algebraic).
 * Costs: recursive O(N) time with a mex pointer that only moves forward and a 2N+2 byte
 * mark table; algebraic O(N); arithmetic O(N) with one byte per n of memo (the source's
 * O(N log N) copies each representation; we keep only what the table needs of it).
 */
int thue_wythoff_table(thue_wythoff_method m, int a, long N, uint64_t *A, uint64_t *B);

/* The continued fraction's numeration systems for one a: p_i and q_i (the convergents'
 * numerators and denominators of alpha = [1; a, a, ...]) as far as 128 bits hold them. */
#define THUE_WYTHOFF_DIGITS 200
typedef struct thue_wythoff_cf {
    int a;
    int np; /* p[0..np-1] and q[0..np-1] */
    thue_u128 p[THUE_WYTHOFF_DIGITS];
    thue_u128 q[THUE_WYTHOFF_DIGITS];
} thue_wythoff_cf;

/* Fills c for a in 1..THUE_WYTHOFF_A_MAX: 0 or THUE_EINVAL. */
int thue_wythoff_cf_init(thue_wythoff_cf *c, int a);

/* A representation: d[0..len-1], digit i weighs p_i or q_i (d[len-1] != 0 unless len 0). */
typedef struct thue_wythoff_rep {
    int len;
    uint32_t d[THUE_WYTHOFF_DIGITS];
} thue_wythoff_rep;

/* The greedy (Fraenkel) p- or q-representation of x >= 0: 0 or THUE_EINVAL when x is
 * beyond the largest system value that 128 bits hold. */
int thue_wythoff_rep_p(const thue_wythoff_cf *c, thue_u128 x, thue_wythoff_rep *r);
int thue_wythoff_rep_q(const thue_wythoff_cf *c, thue_u128 x, thue_wythoff_rep *r);
/* The number of zero digits at the low end (0 for x = 0's empty representation). */
int thue_wythoff_rep_zeros(const thue_wythoff_rep *r);
/* The p-interpretation sum d_i p_{i+shift} (shift -1, 0 or 1; a shift of -1 needs d_0 = 0).
 * 0 or THUE_EINVAL when it does not fit. */
int thue_wythoff_interp_p(const thue_wythoff_cf *c, const thue_wythoff_rep *r, int shift,
                          thue_u128 *out);

/* The arithmetic method for one n (0..THUE_WYTHOFF_N_HUGE), O(log n): A_n from the
 * p-interpretation of n's q-representation, B_n from A_n's p-representation shifted
 * left. 0 or THUE_EINVAL (n too big). */
int thue_wythoff_pair(const thue_wythoff_cf *c, thue_u128 n, thue_u128 *A, thue_u128 *B);

/* Which pair x belongs to (every x >= 0 is exactly one A_n or one B_n; 0 is both
 * A_0 and B_0, reported as A): *is_a and the other member *other of its pair. 0 or
 * THUE_EINVAL (x too big). O(log x). */
int thue_wythoff_partner(const thue_wythoff_cf *c, thue_u128 x, bool *is_a, thue_u128 *other);

/* Perfect play at heaps (x, y), any sizes up to THUE_WYTHOFF_N_HUGE: 1 when the player to
 * move wins (an N-position) with *tx and *ty the tokens to take from x and from y (the
 * move reaches a P-position); 0 on a P-position (every move loses; *tx = *ty = 0);
 * THUE_EINVAL beyond the bound. O(log) (section 5 of the source, with the arithmetic
 * method's partner and pair queries):
 *   with x <= y: x = B_m: take y down to A_m. x = A_n: y = B_n is P; y > B_n: take y down
 *   to B_n; x <= y < B_n: with d = y - x and m = floor(d / a) < n, move to
 *   (A_m, B_m), taking x - A_m > 0 and y - B_m = d - am + (x - A_m) > 0 from both,
 *   |d - am| < a. */
int thue_wythoff_winning_move(const thue_wythoff_cf *c, thue_u128 x, thue_u128 y, thue_u128 *tx,
                              thue_u128 *ty);
/* Whether (x, y) is a P-position by the exact reference alone (no continued fraction):
 * y - x = a n and floor(alpha n) = min. For the tests. */
bool thue_wythoff_exact_is_p(int a, thue_u128 x, thue_u128 y);

/* The algebraic method for one n in double (the source's) and long double. */
void thue_wythoff_algebraic(int a, thue_u128 n, thue_u128 *A, thue_u128 *B);
void thue_wythoff_algebraic_ld(int a, thue_u128 n, thue_u128 *A, thue_u128 *B);

/* The exact reference: floor(alpha n) by 256-bit integer comparisons (no floating
 * point, no continued fraction), n in 0..THUE_WYTHOFF_N_HUGE; B_n = that + a*n. */
thue_u128 thue_wythoff_exact_a(int a, thue_u128 n);

/* The first n in 1..limit where the double algebraic pair differs from the exact one
 * (n <= 2^40), 0 when none. O(limit) double products, and a 128-bit integer check only
 * for the n whose products lie within the double error of an integer (about one in 2^38 /
 * n; ptable.c); the _ex form counts those checks into *exact_checks (may be NULL). */
uint64_t thue_wythoff_first_wrong(int a, uint64_t limit);
uint64_t thue_wythoff_first_wrong_ex(int a, uint64_t limit, uint64_t *exact_checks);

/* Decimal text of x into buf (at least 40 bytes); returns buf. */
char *thue_u128_str(thue_u128 x, char *buf);
/* Decimal digits (no sign, no spaces) to x: 0 or THUE_EINVAL (empty, other characters,
 * or above max). */
int thue_u128_parse(const char *s, thue_u128 max, thue_u128 *x);

#endif
