/*
 * repetition.h: squares and overlaps, exactly as RULES.md defines them.
 *
 * A square is a factor uu (|u| = p >= 1, length 2p); an overlap is a factor of length
 * 2p+1 with period p (so "aaa" is an overlap and "aa" is not). When a word holds
 * several repetitions, the one reported is always the same: the smallest period, and
 * among those the leftmost start. The insertion check reports exactly what the full
 * check reports for the new word (a clean word's new repetitions all contain the
 * inserted position).
 *
 * Words are passed as (sym, n) with every symbol < THUE_K_MAX. Functions marked
 * "clean word" require that sym[0..n-1] holds no repetition of the variant; they do not
 * check it (that is what makes them fast).
 */
#ifndef THUE_GAMES_THUE_ENGINE_REPETITION_H
#define THUE_GAMES_THUE_ENGINE_REPETITION_H

#include <stdint.h>

typedef enum { THUE_SQUARE = 0, THUE_OVERLAP = 1 } thue_variant;

typedef struct thue_repetition {
    int start;  /* first position of the factor */
    int period; /* p */
    int length; /* 2p for a square, 2p+1 for an overlap */
} thue_repetition;

/* "square" / "overlap"; NULL for anything else. */
const char *thue_variant_name(thue_variant v);
/* Parses "square" or "overlap" into *v: 0 or THUE_EVARIANT. */
int thue_variant_parse(const char *text, thue_variant *v);

/*
 * Scratch memory for the bit-parallel scans, reused across calls so that the hot paths
 * allocate nothing once it has grown to the longest word seen. One per thread.
 */
typedef struct thue_scan thue_scan;
/* A new, empty scratch area, or NULL when out of memory. */
thue_scan *thue_scan_new(void);
/* NULL is a no-op. */
void thue_scan_free(thue_scan *s);

/*
 * Full check of any word: 1 and *out filled when sym[0..n-1] contains a repetition of
 * the variant (smallest period, then leftmost start), 0 when it is clean, THUE_ENOMEM
 * or THUE_EINVAL (bad variant or n). s may be NULL (a temporary scratch is used).
 */
int thue_check_word(thue_scan *s, const uint8_t *sym, int n, thue_variant v, thue_repetition *out);

/*
 * Insertion check on a clean word: does inserting symbol c at position i
 * (0 <= i <= n) create a repetition? 1 and *out (positions in the new word of length
 * n+1; the factor always contains i) when it does, 0 when the new word is clean,
 * THUE_EPOSITION / THUE_ESYMBOL / THUE_EINVAL on bad arguments. out may be NULL.
 * Allocates nothing; typically O(n).
 */
int thue_check_insert(const uint8_t *sym, int n, thue_variant v, int i, int c,
                      thue_repetition *out);

/*
 * Legal-move map of a clean word: for every position i = 0..n, safe[i] gets the set of
 * symbols c < k (bit c) whose insertion at i keeps the word clean. safe must hold n+1
 * entries. Returns 0, THUE_EK, THUE_EINVAL or THUE_ENOMEM. s may be NULL (a temporary
 * scratch is used; pass one in loops).
 *
 * Works period by period over bit-planes of the word, 64 positions per machine word,
 * rather than (n+1)*k separate checks; see repetition.c for the argument.
 */
int thue_legal_map(thue_scan *s, const uint8_t *sym, int n, int k, thue_variant v, uint64_t *safe);

/* Internal (the legal-move map's and the solver's short-word map's): ORs into bad[i],
 * for i = 0..n, the symbols whose insertion at i makes a repetition of period 1 ("aa";
 * with extra = 1, the overlap "aaa"). */
void thue__period_one(const uint8_t *w, int n, int extra, uint64_t *bad);

/* The mask of all k symbols (bits 0..k-1); k must be 1..64. */
static inline uint64_t thue_all_symbols(int k)
{
    return k >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1);
}

#endif
