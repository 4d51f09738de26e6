/*
 * game_check.h: a conformance checker any game's test can run on a game's table
 * (server/games/game.h). It fails the calling cmocka test at the first broken promise:
 *   - the options: NULL and {} give the same defaults; options_json reads back through
 *     parse_options to identical bytes and text; pool_key is not empty; every documented
 *     option is a member of options_json;
 *   - every state met: to_move, step, result and legal_moves agree on whether the game is
 *     over; state_json -> position_parse gives identical bytes and hash; a copy hashes
 *     equal; every legal move's move_json -> move_parse gives the same move and apply
 *     accepts it; moves near the legal ones (each number nudged or out of range) are
 *     either refused with THUE_EILLEGAL leaving the state byte-identical, or accepted and
 *     then reach a state some listed move reaches; the wrong player, a bad player and
 *     any move after the end are refused without a change; perfect (when present) answers
 *     with a value in -1..1 and, while running, a move apply accepts;
 *   - random playouts, one per seed, from start(seed) (the same seed twice gives the same
 *     bytes): each must end within max_plies moves (a game's own move cap included).
 */
#ifndef THUE_TEST_GAME_CHECK_H
#define THUE_TEST_GAME_CHECK_H

#include "games/game.h"

typedef struct game_check_cfg {
    const char *options; /* JSON text of the options; NULL for the defaults */
    int seeds;           /* random playouts, with seeds 1..seeds */
    int max_plies;       /* a playout that has not ended after this many moves fails */
    int moves_per_state; /* legal moves checked in full per state (a spread sample beyond) */
} game_check_cfg;

typedef struct game_check_stats {
    long states;   /* states checked */
    long moves;    /* legal moves round-tripped and applied */
    long refused;  /* refused moves checked to change nothing */
    long accepted; /* nudged moves that apply accepted (each matched a listed move) */
    long ended[3]; /* playouts won by player 0, by player 1, drawn */
} game_check_stats;

/* The registered game `name`; the calling test fails when there is none. */
const thue_gamedef *game_check_find(const char *name);
/* Options of g from JSON text (NULL: the defaults); the calling test fails, printing the
 * game's sentence, when g refuses them. */
void game_check_options(const thue_gamedef *g, const char *text, thue_gopt *opt);

/* Runs every check above on g with cfg; stats (may be NULL) gets the counts. */
void game_check(const thue_gamedef *g, const game_check_cfg *cfg, game_check_stats *stats);

/* The checks on one state (st must be a state of g under opt). */
void game_check_state(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                      int moves_per_state, game_check_stats *stats);

#endif
