/*
 * puzzle.h: puzzles (issue 33): positions of a one-game game (every game but Thue, whose
 * point-saving puzzles are below) where exactly one legal move keeps a win for the player
 * to move: the position is won for the mover, and every other legal move loses or draws.
 * The values are the perfect bot's (gbot.h), read as review.c reads them; a position where
 * any value is unknown within the limits given per solve is not a puzzle (never a guess).
 *
 * The finder (thue_puzzle_check) looks at one position; the generator
 * (thue_puzzle_generate) plays random games from a seed, over a few option sets of the
 * game chosen to stay within the solvers' reach, and collects the positions the finder
 * accepts, each with its options, position and solution as canonical JSON text.
 *
 * Difficulty, 1 (easy) to 5: one point to start with, one for 6 legal moves or more, one
 * for 15 or more, one for a perfect line of 6 plies or more from the position to the end
 * of the game, one for 12 or more. The perfect line is both sides playing the perfect
 * bot's move (the loser's is any of its moves, so the line is an estimate of how deep the
 * win lies, not the longest defence).
 *
 * Thue (point-saving puzzles): a position of one round, the clean word with the builder
 * to place or the painter to paint at the builder's chosen place, where exactly one move
 * keeps the painter points the mover can force: the builder's one place that gives the
 * fewest, the painter's one symbol that gives the most; every other move gives at least
 * one point away. The values are review.h's thue_review_tbuilder / _tpainter (the exact
 * solver, capped by the limit). A painter's puzzle needs two safe symbols at least.
 * Difficulty, 1 to 5: one point to start with, one for 7 places or more (the builder) or
 * 3 safe symbols or more (the painter), one for 3 further points or more kept with best
 * play, one for 6 or more, one when the next best move gives only one point away. (A
 * builder's puzzle whose answer ends the round at once, the one place no symbol is safe
 * at, keeps no further points: it stays easy.)
 *
 * Pure apart from the search's own memory: any thread may call these (the worker pool's).
 */
#ifndef THUE_SEARCH_PUZZLE_H
#define THUE_SEARCH_PUZZLE_H

#include <stdint.h>

#include "games/game.h"
#include "games/thue/engine/repetition.h"
#include "search/limits.h"

/* The node budget of one solve when the caller's limits give none. */
#define THUE_PUZZLE_NODES_DEFAULT 2000000ull
/* The longest perfect line counted for the difficulty. */
#define THUE_PUZZLE_LINE_MAX 200

typedef struct thue_puzzle {
    thue_gmove solution; /* the only move that keeps the win */
    int mover;           /* the game's player (0 or 1) to move; Thue: 0 builder, 1 painter */
    int moves;           /* legal moves in the position (Thue's painter: k) */
    int value;           /* the mover's value: 1 (a win); Thue: the round's painter points
                            with best play (those scored and those still to come) */
    int line;            /* plies of a perfect line from the position to the end (capped) */
    int difficulty;      /* 1..5, above */
} thue_puzzle;

/*
 * Whether st (a state of g with opt) is a puzzle: 1 with *out filled, 0 when it is not
 * (over, fewer than two legal moves, not won for the mover, two or more winning moves,
 * a cut move list, or a value
 * the solver could not decide within lim), or a negative code: THUE_EINVAL (g has no
 * perfect play, or is Thue), THUE_ENOMEM. lim (may be NULL) bounds each solve: its
 * node_budget (0: THUE_PUZZLE_NODES_DEFAULT), stop flag, deadline and yield hook.
 */
int thue_puzzle_check(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                      const thue_bot_limits *lim, thue_puzzle *out);

/* A generated puzzle: malloc'd compact JSON texts (thue_puzzle_item_free frees them). */
typedef struct thue_puzzle_item {
    char *options;  /* the game's canonical options (options_json) */
    char *position; /* state_json of the position */
    char *solution; /* move_json of the solution */
    thue_puzzle p;
    uint64_t seed; /* the random game's seed it came from */
} thue_puzzle_item;

void thue_puzzle_item_free(thue_puzzle_item *it);

/*
 * Plays random games of g from `seed` (game i uses the seed s = seed + i, which alone
 * picks its option set, s modulo their count, and its moves: the item's seed, so that
 * thue_puzzle_generate(g, s, 1, ...) plays that game again) and checks their positions, until
 * `want` puzzles are in out[0..want-1], `games` games were played, or lim's stop flag or deadline
 * says stop. At most one puzzle per game's position list is taken from each of its halves, and no
 * position twice. *found gets how many items out holds (the caller frees them). 0, THUE_EINVAL (a
 * game without perfect play or option sets), or THUE_ENOMEM (out then holds *found items). For
 * Thue the games are random rounds and the positions thue_puzzle_check_thue's (below).
 */
int thue_puzzle_generate(const thue_gamedef *g, uint64_t seed, int games,
                         const thue_bot_limits *lim, thue_puzzle_item *out, int want, int *found);

/* The option sets the generator uses for g (JSON texts, static), and their count; NULL
 * and 0 for a game it does not know. */
const char *const *thue_puzzle_option_sets(const thue_gamedef *g, int *n);

/*
 * Whether the Thue position word[0..n) (a clean word over k symbols of the variant v,
 * in a round of limit L; placed -1: the builder to place, else the painter to paint at
 * that place, 0..n) is a puzzle: 1 with *out (its solution a Thue move: v[0] 0 and the
 * place, or 1 and the symbol), 0 not (a value undecided within lim, as in
 * thue_puzzle_check, included), THUE_EINVAL (bad arguments, a word with a repetition) or
 * THUE_ENOMEM. thue_puzzle_generate(Thue's game, ...) plays random rounds and stores
 * positions as thue_puzzle_thue_position writes them.
 */
int thue_puzzle_check_thue(int k, thue_variant v, int limit, const uint8_t *word, int n,
                           int placed, const thue_bot_limits *lim, thue_puzzle *out);

/* A Thue puzzle's position as canonical JSON text (malloc'd; NULL out of memory):
 * {"word":[...],"step":"place","to_move_role":"builder"} or
 * {"word":[...],"step":"paint","placed":P,"to_move_role":"painter"}. */
char *thue_puzzle_thue_position(const uint8_t *word, int n, int placed);

/* Internal, shared by the generators: a stop flag raised or the deadline passed; and
 * adding a found puzzle to out (taking the three malloc'd texts, any of them NULL: out of
 * memory): 1 added, 0 already there (the texts freed), or THUE_ENOMEM (freed too). */
int thue__puzzle_must_stop(const thue_bot_limits *lim);
int thue__puzzle_keep(thue_puzzle_item *out, int *found, char *options, char *position,
                      char *solution, const thue_puzzle *p, uint64_t seed);

/* puzzle_thue.c's generator, for thue_puzzle_generate (internal). */
int thue__puzzle_generate_thue(const thue_gamedef *g, const char *const *sets, int nsets,
                               uint64_t seed, int games, const thue_bot_limits *lim,
                               thue_puzzle_item *out, int want, int *found);

#endif
