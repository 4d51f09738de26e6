/*
 * thue.h: what the server's Thue rooms read of the Thue game's table (thue.c) beyond
 * game.h: its options from Thue's own members, and a view of a state in the terms of
 * Thue's messages (PROTOCOL.md section 6: rounds, words, the builder's placed position),
 * for the room_state and match_end a Thue room sends and for Thue's own bots (bot.h).
 */
#ifndef THUE_GAMES_THUE_H
#define THUE_GAMES_THUE_H

#include <stdint.h>

#include "games/thue/engine/repetition.h"
#include "games/game.h"

extern const thue_gamedef thue_game_thue;

/* Options for variant, k (2..64) and limit (1..10000): 0, or THUE_EOPTIONS. */
int thue_game_thue_options(thue_variant variant, int k, int limit, thue_gopt *opt);

typedef struct thue_thue_view {
    thue_variant variant;
    int k, limit;
    int round;           /* 0 or 1: the round being played (the last one once over) */
    int step;            /* thue_step: place, paint or over */
    int placed;          /* the builder's position during the paint step, else -1 */
    const uint8_t *word; /* the current round's word (borrowed from the state) */
    int len;
    const uint8_t *word0; /* round 0's final word once round 0 ended, else NULL */
    int len0;
    struct {
        int points;
        int end; /* thue_round_end: playing, repetition or limit */
        thue_repetition rep;
    } rounds[2];
    int moves; /* places and paints so far */
} thue_thue_view;

/* The view of st (pointers into st: valid while st is unchanged). Player p builds round p. */
void thue_game_thue_view(const thue_gopt *opt, const void *st, thue_thue_view *out);

#endif
