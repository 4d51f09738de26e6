/*
 * solve.h: the exact solver ("perfect" play) for one round of the online Thue game.
 *
 * The value of a clean word w with the builder to move is the number of further points
 * the painter can force:
 *     V(w) = min over positions i of P(w, i),
 *     P(w, i) = 0 if no symbol is safe at i, else max over safe c of 1 + V(w with c at i).
 * A search capped at depth d computes V_d(w) = min(V(w), d) (the same recursion with
 * V_0 = 0): a result below d is exact, a result equal to d only says V(w) >= d.
 *
 * The search is alpha-beta over the legal-move maps of the engine, with a transposition
 * table keyed on a canonical form of the word (symbols relabelled in order of first
 * appearance, and the smaller of the word and its reversal; see solve.c for why both
 * are symmetries), and iterative deepening on d so that an answer is always ready when
 * the budget runs out. A solver is single-threaded (one per thread), but solvers may
 * share one table (thue_solver_new_shared): threads solving the same word then split
 * the work (a thread puts off the positions another is searching, and finds their
 * results in the table later; solve.c).
 *
 * The table is a fixed array (solve_table.c): thue_solver_new gives a solver a small
 * one of its own (THUE_SOLVE_TABLE_DEFAULT bytes, for the bots), thue_solve_table_new
 * makes one of any size (the CLI's --hash). A full table replaces its least useful
 * entries: the search stays exact, only slower.
 */
#ifndef THUE_GAMES_THUE_BOTS_SOLVE_H
#define THUE_GAMES_THUE_BOTS_SOLVE_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "games/thue/engine/repetition.h"
#include "search/limits.h" /* thue__ctl, thue_now_ns */

typedef struct thue_solve_limits {
    int max_depth;        /* insertions to look ahead; <= 0: no cap */
    uint64_t node_budget; /* nodes to visit before stopping; 0: no limit */
    /* Called after each completed depth with its result (NULL: not called). */
    void (*on_depth)(void *ctx, int depth, int value, int exact, uint64_t nodes);
    void *ctx;
    int64_t deadline_ns;    /* stop at this thue_now_ns() time; 0: none */
    const atomic_int *stop; /* stop when another thread sets it; NULL: none */
    /* Offered a pause whenever the clock is polled (thue_bot_limits.yield); NULL: none. */
    int (*yield)(void *arg, int64_t now_ns);
    void *yield_arg;
    /* Root split for threads: when root_parts > 1 the builder's first move is chosen
     * only among the positions i with i % root_parts == root_part, so the result is the
     * value of that share (the true value is the minimum over the shares). */
    int root_part, root_parts;
    /* Threads: 0 for the main search; > 0 for a helper solving the same word on the
     * main search's table (to share the work; it skips the principal variation). */
    int helper;
} thue_solve_limits;

#define THUE_SOLVE_PV_MAX 256

typedef struct thue_solve_result {
    int value;       /* V(w) when exact; otherwise a proven lower bound (the painter survives at
                        least this many more insertions) */
    int exact;       /* 1 when value is V(w) itself */
    int depth;       /* the deepest cap searched to completion */
    uint64_t nodes;  /* positions visited by the search, all iterations (not counting the
                        walk along the principal variation, which reads the table) */
    uint64_t states; /* entries of the table in use (each a canonical position) */
    /* Principal variation: (position, symbol) insertions from w under best play, ending
     * with the insertion that makes the repetition when value is exact. */
    int pv[THUE_SOLVE_PV_MAX][2];
    int pv_len;
} thue_solve_result;

typedef struct thue_solver thue_solver;
typedef struct thue_solve_table thue_solve_table;

/* The table of thue_solver_new: 16 MB (about a million positions). */
#define THUE_SOLVE_TABLE_DEFAULT ((size_t)16 << 20)

/*
 * A table of bytes / 64 buckets of four positions each (new; free it after every solver
 * using it). NULL when bytes < 64 or out of memory. Its memory is taken from the system
 * as zero pages, so it grows (up to bytes) as the search fills it. One table serves one
 * (k, variant): solvers sharing it must agree on both.
 */
thue_solve_table *thue_solve_table_new(size_t bytes);
/* NULL is a no-op. */
void thue_solve_table_free(thue_solve_table *t);
/* Positions the table can hold, and entries filled so far (approximate with threads). */
uint64_t thue_solve_table_entries(const thue_solve_table *t);
uint64_t thue_solve_table_used(const thue_solve_table *t);

/* A solver for k symbols and the variant with a table of its own
 * (THUE_SOLVE_TABLE_DEFAULT); NULL on bad arguments or out of memory. */
thue_solver *thue_solver_new(int k, thue_variant v);
/* The same over the table t (borrowed: it must outlive the solver), which other solvers,
 * in other threads, may share. NULL on bad arguments (t NULL) or out of memory. */
thue_solver *thue_solver_new_shared(int k, thue_variant v, thue_solve_table *t);
/* NULL is a no-op. */
void thue_solver_free(thue_solver *s);

/*
 * Solves the clean word sym[0..n-1] (builder to move). 0 and *out filled, or
 * THUE_ESYMBOL (a symbol >= k), THUE_EREPEAT (the word has a repetition),
 * THUE_ETOOLONG, THUE_ENOMEM. The table is kept between calls on the same solver.
 */
int thue_solve(thue_solver *s, const uint8_t *sym, int n, const thue_solve_limits *limits,
               thue_solve_result *out);

/*
 * V_cap(w) = min(V(w), cap) for the clean word sym[0..n-1] (cap >= 0), using and filling
 * the table; only the limits' budget, deadline and stop flag are used. Returns 0 with
 * *value set, 1 when a limit stopped it (*value untouched), or THUE_ENOMEM /
 * THUE_ETOOLONG. *nodes (may be NULL) gets the positions visited. The word is trusted
 * (no symbol or repetition check): bots call it on words they made legally.
 */
int thue_solver_value(thue_solver *s, const uint8_t *sym, int n, int cap,
                      const thue_solve_limits *limits, int *value, uint64_t *nodes);

/*
 * The canonical form used as the table key (exposed for tests): symbols relabelled in
 * order of first appearance, then the lexicographically smaller of that and the same
 * for the reversed word. out needs n bytes.
 */
void thue_canonical(const uint8_t *sym, int n, uint8_t *out);

/*
 * The proof file (docs/proofs.md): writes to f a proof that V(sym[0..n)) >= depth, the
 * painter's strategy from the root, found with the solver's table (searching again where
 * the table has forgotten). The word must be clean with symbols < k; k <= 16. Returns 0
 * (then *records and *bytes, either may be NULL, get the proof's size), 1 when the claim
 * is false (V < depth: nothing proves it; f holds a partial file), THUE_EINVAL (k > 16,
 * depth < 0), THUE_ESYMBOL, THUE_EREPEAT, THUE_ETOOLONG or THUE_ENOMEM. Write errors are
 * the caller's to find (ferror, fclose).
 */
int thue_solver_write_proof(thue_solver *s, const uint8_t *sym, int n, int depth, FILE *f,
                            uint64_t *records, uint64_t *bytes);

#endif
