/*
 * solve_table.h: the solver's transposition table (internal to solve.c and its tests;
 * the public handle is thue_solve_table in solve.h).
 *
 * A fixed array of 64-byte buckets, each four 16-byte entries. An entry is a 64-bit
 * verification key (a strong hash of the canonical word, independent of the bits that
 * choose the bucket) and a 64-bit data word: bounds lo <= V <= hi, the remaining depth
 * the bounds came from, an age (the generation of the search that stored it) and a best
 * move. Threads share one table without locks: an entry is stored as (key ^ data, data),
 * so a reader that sees halves of two different writes finds the check failing and
 * treats the entry as absent. A wrong hit needs two different words with equal 64-bit
 * keys in one bucket: docs/bots.md gives the odds.
 */
#ifndef THUE_GAMES_THUE_BOTS_SOLVE_TABLE_H
#define THUE_GAMES_THUE_BOTS_SOLVE_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "games/thue/bots/solve.h"

/* Bounds and depths are stored in 12 bits: THUE__TT_UNKNOWN means "no upper bound". */
#define THUE__TT_UNKNOWN 4095
#define THUE__TT_NOMOVE (-1)
#define THUE__TT_BUSY 4096

struct thue_solve_table {
    _Atomic uint64_t *slot; /* 8 words per bucket: key^data, data for entries 0..3 */
    void *mem;              /* what to free (slot is aligned inside it) */
    size_t maplen;          /* mem's length when mapped (0: from calloc) */
    uint64_t huge_at;       /* ask for huge pages when this many entries are used (0: never) */
    size_t huge_len;
    uint64_t buckets;
    _Atomic uint64_t used; /* entries ever filled (an empty entry taken) */
    _Atomic int searchers; /* thue_solve calls running on the table */
    /* (node, position) pairs some thread is searching, by hash (solve.c); a hint only. */
    _Atomic uint64_t busy[THUE__TT_BUSY];
};

typedef struct thue__tt_data {
    int lo, hi; /* lo <= V <= hi (hi THUE__TT_UNKNOWN: none) */
    int depth;  /* the remaining depth of the search that stored it */
    int move;   /* a position of the canonical word, or THUE__TT_NOMOVE */
} thue__tt_data;

/* Starts loading the bucket of index into the cache (a hint; no effect on results). */
static inline void thue__tt_prefetch(const thue_solve_table *t, uint64_t index)
{
    uint64_t b = (uint64_t)(((unsigned __int128)index * t->buckets) >> 64);
    __builtin_prefetch((const void *)(t->slot + b * 8));
}

/* 1 and *out when the key is in its bucket, else 0. */
int thue__tt_probe(const thue_solve_table *t, uint64_t key, uint64_t index, thue__tt_data *out);

/*
 * Records lo <= V <= hi for the key (merged with what the entry already says when the key
 * is there). A new key takes an empty entry, else the one of least worth, worth being the
 * depth minus twice the age (gen minus the entry's generation, mod 256). move
 * THUE__TT_NOMOVE keeps the entry's move.
 */
void thue__tt_store(thue_solve_table *t, uint64_t key, uint64_t index, int lo, int hi, int depth,
                    unsigned gen, int move);

/* The solver's k and variant (for solve_proof.c, which otherwise uses the public API). */
void thue__solver_game(const thue_solver *s, int *k, thue_variant *v);
/* Does V(sym[0..n)) >= d hold (d >= 0; a null-window search with the table)? 1 or 0,
 * THUE_ENOMEM, THUE_ETOOLONG. The word is trusted to be clean. */
int thue__solver_holds(thue_solver *s, const uint8_t *sym, int n, int d);
/* The lower bound the table holds for V(sym[0..n)), or -1 when the table has none. */
int thue__solver_known(thue_solver *s, const uint8_t *sym, int n);

/* The solver's legal-move map for words of at most 62 symbols (exposed for the tests,
 * which check it against thue_legal_map). */
void thue__short_map(const uint8_t *w, int n, int k, thue_variant v, uint64_t *safe);

#endif
