/*
 * guct.h: the generic uct (gbot.h's) as a persistent tree: made once for a position, grown
 * by any number of runs of N more iterations, read between runs (the best move, a capped
 * snapshot walk), freed. gbot.c's uct bot is one new + one run + best; the server's
 * analysis (lobby/analysis.c) runs the same tree in slices on the worker pool.
 *
 * Determinism: the tree, its counters and the random stream depend only on the game,
 * options, position, playout limit, c, seed, the node cap and the total iterations run,
 * not on how they are split into runs: a run of a then a run of b gives node for node the
 * tree of one run of a + b. An iteration cut short by a limit or the stop flag is dropped
 * whole (nothing backed up, the random stream rewound to where it began), so even a
 * stopped run leaves the tree that many complete iterations make; only the node count
 * against the budget (thue__ctl.nodes) may differ.
 *
 * Thread safety: a tree is used by one thread at a time (the caller orders the runs and
 * reads); different trees may be used on different threads at once.
 */
#ifndef THUE_SEARCH_GUCT_H
#define THUE_SEARCH_GUCT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "games/game.h"
#include "search/limits.h"

/* The most nodes a tree may hold (gbot's uct bot uses this cap). */
#define THUE_GUCT_NODES_MAX (1u << 24)

typedef struct thue_guct thue_guct;

typedef struct thue_guct_params {
    int playout_limit; /* moves per playout, 1..100000 */
    double c;          /* UCB1's exploration constant, 0..1000, finite */
    uint64_t seed;
    uint32_t nodes_max; /* the tree stops growing past this many nodes, 2..THUE_GUCT_NODES_MAX;
                           0: THUE_GUCT_NODES_MAX */
    thue_mem *mem;      /* the memory account (budget.h) the tree is taken from (borrowed: it
                           must outlive the tree); NULL: unlimited. The tree stops growing
                           where the account refuses more, as at nodes_max. */
} thue_guct_params;

/*
 * A tree of one node (the root, position st copied; g and opt borrowed: they must outlive
 * the tree, the registry's games are static). 0 with *out, THUE_EINVAL (NULL argument,
 * a parameter out of range), THUE_ETOOBIG (the memory account refuses even the first
 * nodes and the move list) or THUE_ENOMEM. A root that is over is allowed: runs then do
 * nothing.
 */
int thue_guct_new(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                  const thue_guct_params *p, thue_guct **out);
void thue_guct_free(thue_guct *t);

/*
 * Runs up to n more iterations (the root's children are made first, once). ctl (may be
 * NULL: no limits) counts the nodes made, and as work the children scanned, the moves
 * made in playouts and the iterations, so that its polls come about every millisecond
 * (limits.h); a stop leaves the tree as the completed iterations made it. *ran (may
 * be NULL) gets the iterations completed. 0, or THUE_ENOMEM (the tree is then unchanged
 * by the failing iteration and may still be read and freed).
 */
int thue_guct_run(thue_guct *t, uint64_t n, thue__ctl *ctl, uint64_t *ran);

/* Iterations completed over all runs (= the root's visits). */
uint64_t thue_guct_iterations(const thue_guct *t);
/* Nodes in the tree (the root included). */
uint32_t thue_guct_nodes(const thue_guct *t);
/* 1 once the memory account refused the tree more nodes (it grows no more). */
int thue_guct_mem_full(const thue_guct *t);

/*
 * The move uct plays: the root's most visited child (equal visits: the better mean for
 * its mover, then the earlier move); before any child exists, the first legal move.
 * 0 with *m, or THUE_EOVER (the root is over: no move).
 */
int thue_guct_best(const thue_guct *t, thue_gmove *m);

/* One node as the walk shows it. */
typedef struct thue_guct_view {
    int depth;              /* 0 at the root */
    const thue_gmove *move; /* the move into it; NULL at the root */
    const void *state;      /* its position (valid during the callback only) */
    int to_move;            /* the game's to_move there: 0/1, -1 once over */
    uint64_t visits;
    uint64_t ended;  /* visits whose playout reached the game's end (not the playout limit) */
    double value;    /* mean reward in 0..1 for the player who moved into it (root: for
                        the player to move there); 0 when unvisited */
    int children;    /* its children shown by the walk */
    int hidden;      /* its children left out by the cap */
    uint32_t node;   /* its index in the tree: the same for the tree's life (0 the root);
                        a node's children have consecutive indices, in legal-move order */
} thue_guct_view;

/*
 * Walks the snapshot of at most max_nodes nodes (>= 1; the root always): the most visited
 * nodes, each shown only with its parent (best-first from the root; equal visits: the
 * one made first). cb gets them in depth-first preorder, children in the game's
 * legal-move order; it returns 0 to go on, anything else stops the walk with that value.
 * *shown (may be NULL) gets the nodes shown. 0, cb's value, or THUE_ENOMEM.
 */
int thue_guct_walk(const thue_guct *t, uint32_t max_nodes,
                   int (*cb)(void *arg, const thue_guct_view *v), void *arg, uint32_t *shown);
/* The same, showing no node deeper than max_depth levels below the root (>= 0): the cap
 * then keeps the most visited nodes of those levels, and a node at max_depth shows its
 * children as hidden. */
int thue_guct_walk_depth(const thue_guct *t, uint32_t max_nodes, int max_depth,
                         int (*cb)(void *arg, const thue_guct_view *v), void *arg,
                         uint32_t *shown);

/* The tree formats of docs/uct.md. */
typedef enum { THUE_GUCT_CSV = 0, THUE_GUCT_BINARY = 1 } thue_guct_format;

/*
 * Writes the snapshot of at most max_nodes nodes (as thue_guct_walk shows it; UINT32_MAX:
 * the whole tree) to f in docs/uct.md's CSV or binary format, with the generic names: a
 * state's name is its state JSON without double quotes, a move's name its move JSON
 * without them; visits2 is `ended`, payoff the mean reward. A node's child count is the
 * number of children written. 0, THUE_EINVAL (bad arguments), THUE_ENOMEM, or -1 when
 * writing fails.
 */
int thue_guct_export(const thue_guct *t, uint32_t max_nodes, FILE *f, thue_guct_format format);

/* A game's JSON (a new reference, released here) as a name: compact, without double
 * quotes. malloc'd; NULL out of memory or when j is NULL. */
char *thue_guct_name(json_t *j);

/* Checks the visit invariants of docs/uct.md (for the tests): the root's visits are the
 * iterations and the sum of its children's; every node's visits are at least the sum of
 * its children's, its ended at most its visits. 1 when they hold. */
int thue_guct_check(const thue_guct *t);

#endif
