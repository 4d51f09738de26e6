/*
 * bot.h: one interface for every bot of RULES.md: greedy (level 0), nested:L (the
 * thesis's counting heuristic), uct (Monte Carlo tree search) and perfect (exact
 * minimax).
 *
 * A bot is asked for one move: given a position (variant, k, the word, the role to play
 * and, for the painter, the position the builder chose), limits (think time, node budget,
 * an absolute deadline, a stop flag) and a seed, it returns a move and what the move
 * cost. For a fixed seed and node budget the answer is deterministic (same move, same
 * node count); only time limits make it depend on the machine.
 *
 * Root parallelism: a search can be split into parts that run on different threads
 * (thue_bot_search_*). Each part evaluates its share of the root moves (or, for uct, runs
 * its own tree); thue_bot_search_finish merges them. Splitting never changes the move of
 * greedy, nested or perfect (their root scores are exact), nor nested's node count;
 * perfect's parts share the best value proven so far to stop early, so a split perfect
 * search's node count and depth depend on timing (its move, value and exactness do not).
 * uct merges the root statistics of independent trees. thue_bot_move is the one-thread
 * shortcut.
 *
 * Nothing here touches global state: every search owns its memory, so any number of
 * searches may run at once on different threads. The engine's rules are not repeated
 * here: a bot's move is validated by the match machine like anyone's.
 */
#ifndef THUE_GAMES_THUE_BOTS_BOT_H
#define THUE_GAMES_THUE_BOTS_BOT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "games/thue/engine/repetition.h"
#include "search/limits.h"  /* thue_bot_limits, thue_now_ns: shared by every search */
#include "search/uctspec.h" /* THUE_UCT_*_DEFAULT, uct's options */

typedef enum { THUE_ROLE_BUILDER = 0, THUE_ROLE_PAINTER = 1 } thue_role;

/* "builder" / "painter"; NULL for anything else. */
const char *thue_role_name(thue_role r);

typedef enum {
    THUE_BOT_GREEDY = 0, /* level 0 */
    THUE_BOT_NESTED,     /* level L >= 1 */
    THUE_BOT_UCT,
    THUE_BOT_PERFECT
} thue_bot_kind;

#define THUE_NESTED_MAX 9

typedef struct thue_bot_spec {
    thue_bot_kind kind;
    int level;           /* greedy 0; nested 1..THUE_NESTED_MAX */
    uint64_t iterations; /* uct: playouts per move, 0 = until a time limit */
    int time_ms;         /* uct: the spec's own time limit per move, 0 = none */
    int playout_limit;   /* uct: moves (insertions) per playout, 1..100000 */
    double exploration;  /* uct: the constant c of UCB1, >= 0 */
    int max_depth;       /* perfect: insertions to look ahead, 0 = no cap */
} thue_bot_spec;

/*
 * Parses a bot SPEC:
 *   greedy | 0                       level 0
 *   nested:L | L                     L = 1..9 (nested:0 is greedy)
 *   uct[:KEY=VALUE,...]              iterations=N (default 10000; 0 = use the time),
 *                                    ms=T (time limit per move), playout=M (default 100),
 *                                    c=X (default sqrt 2)
 *   perfect[:depth=D]                exact minimax, D = look-ahead cap (default none)
 * Returns 0, or THUE_EINVAL with a sentence naming what is wrong in err (which may be
 * NULL; errsize bytes including the NUL).
 */
int thue_bot_spec_parse(const char *text, thue_bot_spec *out, char *err, size_t errsize);

/* The canonical text of a spec ("greedy", "nested:2", "perfect", "perfect:depth=30",
 * "uct:iterations=10000,playout=100,c=1.4142135623730951": a number is written with as
 * few digits as read back exactly); it parses back to the same spec. Returns the length
 * the full text needs, like snprintf. */
int thue_bot_spec_format(const thue_bot_spec *spec, char *buf, size_t size);

/* A spec with every default of its kind (level 1 for nested). */
thue_bot_spec thue_bot_spec_default(thue_bot_kind kind);

typedef struct thue_position {
    thue_variant variant;
    int k;              /* 2..64 */
    const uint8_t *sym; /* borrowed: the clean word sym[0..n-1] */
    int n;              /* 0..THUE_BOT_WORD_MAX */
    thue_role role;     /* who is to move */
    int index;          /* painter: the position the builder chose, 0..n; builder: ignored */
    int remaining;      /* points the painter can still score before the length limit;
                           0 = no limit. Only perfect and uct look at it. */
} thue_position;

/* Longest word a bot is asked about (far above any match limit). */
#define THUE_BOT_WORD_MAX 20000

/* 0, or THUE_EVARIANT, THUE_EK, THUE_ETOOLONG, THUE_ESYMBOL (a symbol >= k),
 * THUE_EPOSITION (index), THUE_EINVAL (role, remaining) or THUE_EREPEAT (the word
 * holds a repetition). Every entry point below runs this first. */
int thue_position_check(const thue_position *pos);

typedef struct thue_bot_result {
    int move;            /* a position 0..n (builder) or a symbol 0..k-1 (painter) */
    int exact;           /* 1: the bot finished its own algorithm (greedy always; nested:
                            level L completed; perfect: the move is proven optimal);
                            uct never is (a sampled estimate) */
    int depth;           /* nested: the level completed; perfect: the deepest look-ahead
                            completed; greedy 0; uct: the deepest tree node, in
                            plies (moves) below the root */
    int value;           /* perfect: the position's value for the painter (further
                            points), exact or a lower bound; -1 for the other bots */
    uint64_t nodes;      /* work done: words whose legal moves were computed (greedy,
                            nested), positions searched (perfect), tree nodes made (uct) */
    uint64_t iterations; /* uct: playouts run; 0 for the others */
    double ms;           /* wall time of the search */
    int stopped;         /* 1 when a limit or the stop flag cut the search short */
} thue_bot_result;

/* A monotonic clock in nanoseconds (CLOCK_MONOTONIC), for deadlines. */
int64_t thue_now_ns(void);

/*
 * The seed a game gives its bots for one move, so that a game is reproducible from one
 * number: the SplitMix64 finaliser of game_seed mixed with (round, ply, role), where ply
 * is the number of insertions made so far in the round. (docs/bots.md has the formula.)
 */
uint64_t thue_bot_move_seed(uint64_t game_seed, int round, int ply, thue_role role);

/*
 * The tie-break of every bot: with `ties` >= 2 candidates tied for best, listed in
 * ascending order (positions or symbols), the bot plays number
 * thue_bot_tiebreak(seed, ties): one SplitMix64 draw from the move's seed, modulo ties.
 * (With one candidate no draw is made.) Exposed so that other implementations can make
 * the same choices.
 */
int thue_bot_tiebreak(uint64_t seed, int ties);

/* One move on the calling thread. 0 and *out filled, or a thue_position_check error,
 * THUE_EINVAL (bad spec) or THUE_ENOMEM. */
int thue_bot_move(const thue_bot_spec *spec, const thue_position *pos,
                  const thue_bot_limits *limits, uint64_t seed, thue_bot_result *out);

/* ---- root parallelism -------------------------------------------------------------- */

typedef struct thue_bot_search thue_bot_search;

/*
 * A search for one move split into at most `parts` parts (1..THUE_BOT_PARTS_MAX). The
 * position is copied (the caller's buffer may go away). NULL with *err set on bad input
 * (every thue_position_check error but THUE_EREPEAT) or out of memory. Greedy always
 * uses one part.
 *
 * Creating a search costs O(n) (O(k n) for a painter): the whole-word work, checking
 * that the word holds no repetition and computing its legal-move map, is done by the
 * first part to run, on its thread. A word with a repetition is therefore reported by
 * thue_bot_search_finish (THUE_EREPEAT), and the parts do nothing.
 */
#define THUE_BOT_PARTS_MAX 64
thue_bot_search *thue_bot_search_new(const thue_bot_spec *spec, const thue_position *pos,
                                     uint64_t seed, int parts, int *err);
/* The number of parts to run (<= the parts asked for). */
int thue_bot_search_parts(const thue_bot_search *s);
/*
 * Runs part `part` (0..parts-1) under the limits; the deadline and the node budget are
 * the whole search's (each part gets budget/parts nodes). Different parts may run at the
 * same time on different threads; each part must run exactly once before finishing.
 */
void thue_bot_search_run_part(thue_bot_search *s, int part, const thue_bot_limits *limits);
/* Merges the parts into the move. 0, THUE_EREPEAT (the word holds a repetition) or
 * THUE_ENOMEM. */
int thue_bot_search_finish(thue_bot_search *s, thue_bot_result *out);
/* NULL is a no-op. */
void thue_bot_search_free(thue_bot_search *s);

#endif
