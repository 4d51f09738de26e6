/*
 * bot_internal.h: what Thue's bots (thue_bots) share (not a public header).
 *
 * A thue_bot_search holds a private copy of the position, its root legal-move map (made
 * by the first part to run, not by the creator, so that the caller's thread never pays
 * for a long word) and the list of root candidates (builder: every position 0..n; painter: the
 * symbols that are safe at the chosen position). Each part evaluates a share of the candidates
 * (uct: grows a tree of its own) and writes only its own entries of the shared arrays, so parts
 * need no locks; thue_bot_search_finish reads everything after all parts ran (the caller's thread
 * join or mutex orders the memory).
 *
 * Limits reach the bots as a thue__ctl (search/limits.h, shared with the generic bots): a
 * node counter with a budget, the deadline, the stop flag and the memory account, polled
 * about every millisecond of work (thue__tick, thue__work) so that the clock and the
 * atomic are read rarely.
 */
#ifndef THUE_GAMES_THUE_BOTS_BOT_INTERNAL_H
#define THUE_GAMES_THUE_BOTS_BOT_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/rng.h"

#include <uv.h>

#include "games/thue/bots/bot.h"
#include "search/limits.h" /* thue__ctl, thue__tick, thue__ctl_poll, thue__rand_below */

/* What one part found. Arrays indexed by root candidate (0..ncand-1). */
typedef struct thue__part {
    uint64_t nodes;
    uint64_t iterations; /* uct */
    int depth;           /* perfect: deepest cap completed; uct: deepest node */
    int stopped;         /* a limit or the stop flag cut it short */
    int oom;
    double *visits; /* uct: root child visits */
    double *payoff; /* uct: root child payoff sums (painter's view) */
    void *tree;     /* uct: the part's tree, kept for export; freed with the search */
} thue__part;

struct thue_bot_search {
    thue_bot_spec spec;
    thue_position pos; /* pos.sym points at word */
    uint8_t *word;
    uint64_t *rootmap; /* legal-move map of the word: n+1 entries */
    uint64_t seed;
    int nparts;
    int ncand;
    int *cand; /* root candidates: positions (builder) or safe symbols (painter) */
    /* nested: score[l][x] for levels l = 1..L, have[l][x] set once computed;
     * perfect: score[0][x] = value, cap[x] = the cap it was computed under. */
    uint64_t *score[THUE_NESTED_MAX + 1];
    uint8_t *have[THUE_NESTED_MAX + 1];
    int *cap;
    atomic_int next[THUE_NESTED_MAX + 1]; /* nested: next candidate to take, per level */
    atomic_int proven; /* perfect builder: the smallest value a part has proven exact */
    int64_t t0;
    /* The whole-word work of the first part to start (bot.c, prepare). */
    uv_mutex_t prep_lock;
    int prepared, prep_err;
    thue__part part[THUE_BOT_PARTS_MAX];
};

/* The bots. run evaluates part `p`'s share; choose merges into *out (move, exact, depth,
 * value); nodes, time and iterations are summed by bot.c. */
void thue__nested_run(thue_bot_search *s, int p, thue__ctl *ctl);
void thue__nested_choose(thue_bot_search *s, thue_bot_result *out);
void thue__greedy_choose(const thue_bot_search *s, thue_bot_result *out);
void thue__perfect_run(thue_bot_search *s, int p, thue__ctl *ctl);
void thue__perfect_choose(thue_bot_search *s, thue_bot_result *out);
void thue__uct_run(thue_bot_search *s, int p, thue__ctl *ctl);
void thue__uct_choose(thue_bot_search *s, thue_bot_result *out);
void thue__uct_tree_free(void *tree);

/* Inserts c at i into w[0..n) (room for n+1), and the inverse. */
void thue__insert(uint8_t *w, int n, int i, int c);
void thue__remove(uint8_t *w, int n, int i);

/* Total number of safe moves of a legal-move map with n+1 entries. */
uint64_t thue__count_moves(const uint64_t *map, int n);

#endif
