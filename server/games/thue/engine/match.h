/*
 * match.h: the match state machine of RULES.md.
 *
 * Two rounds; player first_builder builds in round 0 and paints in round 1. In each
 * round the word starts as [0]; the builder places (chooses a position), then the painter
 * paints (chooses a symbol), strictly alternating, builder first. A paint that creates a
 * repetition ends the round; otherwise the painter scores a point, and reaching the length
 * limit ends the round too. After both rounds the player with more painter points wins;
 * equal points is a draw. Resigning, running out of time or abandoning forfeits the match
 * at any moment it is running.
 *
 * thue_match_place, thue_match_paint and thue_match_forfeit are the only calls that change
 * a match; each returns 0 or a negative THUE_E... code, and a rejected call changes
 * nothing. The match owns one word buffer, allocated by thue_match_init for the longest
 * possible word, so play allocates nothing.
 */
#ifndef THUE_GAMES_THUE_ENGINE_MATCH_H
#define THUE_GAMES_THUE_ENGINE_MATCH_H

#include <stdbool.h>

#include "games/thue/engine/repetition.h"
#include "games/thue/engine/word.h"

#define THUE_LIMIT_MIN 1
#define THUE_LIMIT_MAX 10000
#define THUE_LIMIT_DEFAULT 100

typedef struct thue_match_options {
    thue_variant variant;
    int k;             /* 2..64 */
    int limit;         /* length limit L: 1..10000 painter points per round */
    int first_builder; /* player (0 or 1) who builds in round 0 */
} thue_match_options;

/* Options with the defaults: square, k = 3, limit 100, player 0 builds first. */
thue_match_options thue_match_defaults(void);

typedef enum {
    THUE_STEP_PLACE = 0, /* the builder is to choose a position */
    THUE_STEP_PAINT,     /* the painter is to choose a symbol at the chosen position */
    THUE_STEP_OVER       /* the match has ended */
} thue_step;

/* How a round ended. */
typedef enum {
    THUE_ROUND_PLAYING = 0, /* not ended (or not started) */
    THUE_ROUND_REPETITION,  /* the painter's symbol made a repetition */
    THUE_ROUND_LIMIT,       /* the painter reached the length limit */
    THUE_ROUND_FORFEIT,     /* the match was forfeited during this round */
    THUE_ROUND_NOT_PLAYED   /* the match was forfeited before this round began */
} thue_round_end;

/* How the match ended. */
typedef enum {
    THUE_END_NONE = 0, /* still running */
    THUE_END_SCORE,    /* both rounds played: points decided (or drew) */
    THUE_END_RESIGN,
    THUE_END_TIMEOUT,
    THUE_END_ABANDON
} thue_end_reason;

typedef struct thue_round {
    int builder; /* player building in this round; the other one paints */
    int points;  /* the painter's points in this round */
    thue_round_end end;
    thue_repetition rep; /* valid when end == THUE_ROUND_REPETITION */
} thue_round;

typedef struct thue_match {
    thue_match_options opt;
    int round; /* 0 or 1: the round being played (the last one once over) */
    thue_step step;
    int placed;     /* position chosen by the builder; valid in THUE_STEP_PAINT */
    thue_word word; /* the current round's word */
    thue_round rounds[2];
    thue_end_reason reason; /* THUE_END_NONE while running */
    int winner;             /* 0 or 1; -1 for a draw or while running */
    int forfeiter;          /* the player who forfeited, else -1 */
    int moves;              /* completed insertions (paints) over the match */
} thue_match;

/* Validates the options and starts round 0. 0, THUE_EVARIANT, THUE_EK, THUE_ELIMIT,
 * THUE_EPLAYER (first_builder) or THUE_ENOMEM; on error nothing is allocated. */
int thue_match_init(thue_match *m, const thue_match_options *opt);
/* Frees the word buffer. NULL is a no-op. */
void thue_match_free(thue_match *m);

/* Builder `player` chooses position i (0 <= i <= n). 0, THUE_EOVER, THUE_EPLAYER,
 * THUE_ETURN (not this player's step), THUE_ESTEP (the painter tried to place) or
 * THUE_EPOSITION. */
int thue_match_place(thue_match *m, int player, int i);

/* Painter `player` puts symbol c (0 <= c < k) at the placed position. 0, THUE_EOVER,
 * THUE_EPLAYER, THUE_ETURN, THUE_ESTEP (the builder tried to paint) or THUE_ESYMBOL.
 * On success the word has grown; if that created a repetition or reached the limit the
 * round has ended (see rounds[] and round), and after round 1 the match is over. */
int thue_match_paint(thue_match *m, int player, int c);

/* `player` forfeits for `why` (THUE_END_RESIGN, THUE_END_TIMEOUT or THUE_END_ABANDON):
 * the opponent wins whatever the scores. 0, THUE_EOVER, THUE_EPLAYER or THUE_EINVAL. */
int thue_match_forfeit(thue_match *m, int player, thue_end_reason why);

/* The builder and painter of the current round. */
int thue_match_builder(const thue_match *m);
int thue_match_painter(const thue_match *m);
/* The player whose step it is, or -1 once the match is over. */
int thue_match_to_move(const thue_match *m);
/* A player's painter points over the match so far. */
int thue_match_points(const thue_match *m, int player);
static inline bool thue_match_over(const thue_match *m)
{
    return m->step == THUE_STEP_OVER;
}

/* Names for output: "place"/"paint"/"over", "repetition"/"limit"/..., "score"/"resign"/...
 * Static strings. */
const char *thue_step_name(thue_step s);
const char *thue_round_end_name(thue_round_end e);
const char *thue_end_reason_name(thue_end_reason r);

#endif
