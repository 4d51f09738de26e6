/*
 * gbot.h: bots for any game behind game.h (the Thue bots of bot.h know only Thue).
 *
 *   random   a uniformly random legal move, drawn from the seed (a baseline);
 *   uct      Monte Carlo tree search (RULES.md): UCB1 selection w_i/n_i + c sqrt(ln N / n_i),
 *            random playouts of at most playout_limit moves (a playout cut short scores
 *            0.5, a draw 0.5), the most visited root move is played;
 *   own      a bot of the game's own (game.h's `bots`, e.g. dots' "heuristic" and
 *            "strong"), named by its name; its choose polls the limits through
 *            thue__ctl_poll;
 *   perfect  the game's own `perfect` member when it has one (its THUE_ETOOBIG is final);
 *            else, for a game marked THUE_GAME_ACYCLIC, an exact negamax with alpha-beta
 *            and a transposition table (gsolve.c), which gives up (THUE_ETOOBIG) past its
 *            node or memory budget or the limits; a spec with legal_if_undecided then
 *            plays the game's quick `fallback` move (game.h; dots: its heuristic, circle:
 *            the analysis without the cap), or the first legal move where it has none,
 *            marked not exact.
 *
 * The bots call the game only through its table (legal_moves, apply, result, to_move,
 * hash, perfect) and copy states with memcpy, as game.h allows. Nothing here touches
 * global state: any number of searches may run at once on different threads.
 * For a fixed seed and node budget a search is deterministic (same move, same node
 * count); only time limits and the stop flag make it depend on the machine.
 */
#ifndef THUE_SEARCH_GBOT_H
#define THUE_SEARCH_GBOT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "games/game.h"
#include "search/limits.h"

typedef enum {
    THUE_GBOT_RANDOM = 0,
    THUE_GBOT_UCT,
    THUE_GBOT_PERFECT,
    THUE_GBOT_OWN
} thue_gbot_kind;

typedef struct thue_gbot_spec {
    thue_gbot_kind kind;
    uint64_t iterations; /* uct: playouts per move, 0 = until the time limit */
    int time_ms;         /* uct: the spec's own time limit per move, 0 = none */
    int playout_limit;   /* uct: moves per playout, 1..100000 */
    double exploration;  /* uct: the constant c of UCB1, 0..1000 */
    int legal_if_undecided; /* perfect: when it cannot decide (its budget, the limits or
                               the stop flag), answer the game's fallback move (game.h),
                               else the first legal move, with exact 0 rather than
                               THUE_ETOOBIG (a server's bot must move; the command line's
                               bestmove reports the failure instead). Not part of the
                               text: parse leaves it 0, format omits it. */
    /* own: the index in the game's `bots` (game.h) and that bot's name (static). */
    int own;
    const char *own_name;
} thue_gbot_spec;

/*
 * Parses a bot SPEC for game g:
 *   random
 *   uct[:KEY=VALUE,...]  iterations=N (default 10000; 0 = use the time), ms=T,
 *                        playout=M (default 100), c=X (default sqrt 2): the keys, ranges
 *                        and defaults of Thue's uct (bot.h)
 *   perfect              refused when g has neither a `perfect` member nor
 *                        THUE_GAME_ACYCLIC (there is no way to solve it)
 *   NAME                 a bot of g's own `bots` (game.h), no options
 * 0, or THUE_EINVAL with a sentence in err (may be NULL; errsize bytes with the NUL).
 */
int thue_gbot_spec_parse(const thue_gamedef *g, const char *text, thue_gbot_spec *out, char *err,
                         size_t errsize);

/* The canonical text ("random", "perfect", an own bot's name,
 * "uct:iterations=10000,playout=100,c=1.414..."), which parses back to the same spec.
 * Returns the length the full text needs, like snprintf. */
int thue_gbot_spec_format(const thue_gbot_spec *s, char *buf, size_t size);

/* A spec with the defaults of its kind. */
thue_gbot_spec thue_gbot_spec_default(thue_gbot_kind kind);

/* Whether game g can be played by the perfect bot (a `perfect` member or acyclic). */
int thue_gbot_has_perfect(const thue_gamedef *g);

/* 0 when g can play spec (its members in range; perfect only where
 * thue_gbot_has_perfect; own only with an index and name of g's `bots`), else
 * THUE_EINVAL. */
int thue_gbot_spec_check(const thue_gamedef *g, const thue_gbot_spec *s);

typedef struct thue_gbot_result {
    thue_gmove move;
    int exact;           /* 1: perfect finished (the move is proven optimal) */
    int value;           /* -2 unknown, else -1/0/1 for the mover (perfect only) */
    uint64_t nodes;      /* work: uct tree nodes made, positions the solver searched */
    uint64_t iterations; /* uct: playouts run */
    double ms;           /* wall time */
    int stopped;         /* a limit or the stop flag cut the search short */
    int has_margin;      /* perfect, exact, in a game with scores (dots): margin is... */
    int margin;          /* ...the final score difference for the mover with best play */
    char why[200];       /* perfect refused (THUE_ETOOBIG, or an undecided move): why, one
                            sentence from the game or the solver; "" when nobody said */
} thue_gbot_result;

/*
 * One move for the player to move in st (a copy is searched; st is not changed), under
 * lim (limits.h's thue_bot_limits: think_ms counted from this call, deadline_ns, node_budget,
 * stop flag, yield hook; lim may be NULL). Borrowed: g, opt, st, spec, lim.
 * Returns 0 and *out filled, THUE_EINVAL (bad spec or arguments), THUE_EOVER (the game
 * is over: no move), THUE_ETOOBIG (perfect could not decide within its budget or the
 * limits, and spec->legal_if_undecided is 0 or the game's table gave no legal move; out->why
 * then says why when the game or the solver could tell) or THUE_ENOMEM. With
 * legal_if_undecided, an undecided perfect answers 0 with the game's fallback move (or
 * the first of legal_moves), exact 0 and value -2.
 */
int thue_gbot_choose(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                     const thue_gbot_spec *spec, uint64_t seed, const thue_bot_limits *lim,
                     thue_gbot_result *out);

/*
 * thue_gbot_choose for a uct spec that also writes its whole tree to `tree` once the
 * search ends, in `format` (search/guct.h's thue_guct_format: docs/uct.md's CSV or binary
 * format with the generic names) before the tree is freed. THUE_EINVAL for another kind,
 * a NULL tree or an unknown format; -1 when writing fails; else as thue_gbot_choose.
 */
int thue_gbot_choose_tree(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                          const thue_gbot_spec *spec, uint64_t seed, const thue_bot_limits *lim,
                          thue_gbot_result *out, FILE *tree, int format);

/* ---- internal (gsolve.c), exposed for the tests ---------------------------------------- */

/* Nodes the generic solver may visit when lim gives no node budget, and the most bytes
 * its transposition table may take (it stops storing, not searching, past that). */
#define THUE_GSOLVE_NODES_DEFAULT 50000000ull
#define THUE_GSOLVE_TABLE_BYTES_MAX (256u << 20)
/* Deepest line of play the solver follows (its recursion); deeper: THUE_ETOOBIG. */
#define THUE_GSOLVE_DEPTH_MAX 10000

/*
 * The generic exact solver, whatever g->perfect is: negamax with alpha-beta over the
 * table's moves and a transposition table keyed by g->hash whose entries keep the whole
 * state (compared byte for byte). The game must be acyclic (not checked: on a cyclic game
 * it stops at THUE_GSOLVE_DEPTH_MAX). st must not be over. 0 with *value (-1/0/1 for the
 * player to move) and *best; THUE_ETOOBIG (budget, depth or limits: *stopped says whether
 * it was the limits), THUE_ENOMEM. *nodes gets the positions searched either way.
 * From lim (may be NULL) it reads the stop flag, the yield hook and the node budget; the
 * time limit is deadline_ns alone (absolute, 0: none), which thue_gbot_choose computes
 * from lim's think_ms and deadline_ns.
 */
int thue__gsolve(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                 const thue_bot_limits *lim, int64_t deadline_ns, thue_gmove *best, int *value,
                 uint64_t *nodes, int *stopped);

#endif
