/*
 * wythoff.h: generalised Wythoff's game behind the game table (thue_game_wythoff in
 * registry.h): its bounds and state, for the tests and the CLI.
 */
#ifndef THUE_GAMES_WYTHOFF_H
#define THUE_GAMES_WYTHOFF_H

#include <stdint.h>

/* A heap holds 0..2^53-1 tokens: JSON numbers carry integers exactly up to there. */
#define THUE_WYTHOFF_HEAP_MAX 9007199254740991LL
/* The random start: each heap 10..30 tokens. */
#define THUE_WYTHOFF_RANDOM_LO 10
#define THUE_WYTHOFF_RANDOM_HI 30
/* max_moves: a position with more legal moves than this (heaps of thousands) gets a
 * list cut to this many: its winning move first (when it has one), then the moves that
 * take the fewest tokens (wythoff.c). Every position with heaps up to 1000 at a = 1
 * (3000 moves), up to 30 at any a, lists all its moves. */
#define THUE_WYTHOFF_MOVES_MAX 4096

/* The state: no pointers, no padding left unset (every writer memsets it first). */
typedef struct thue_wythoff_state {
    uint64_t heaps[2];
    int32_t moves;
    int8_t to_move; /* 0 or 1, also once over (who faces the empty heaps) */
    uint8_t pad[3];
} thue_wythoff_state;

/* A move {"take":[x,y]} as a thue_gmove: v[0] + v[1] * 2^31 tokens from heap 0 and
 * v[2] + v[3] * 2^31 from heap 1 (every v 0..2^31-1), so that 53-bit takes fit. */
#define THUE_WYTHOFF_MOVE_BASE 2147483648LL

#endif
