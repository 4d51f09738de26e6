/*
 * schedule.h: tournament pairings and standings (docs/tournaments.md): round robins by the
 * Berger tables, Swiss rounds (a simplified Dutch system), and standings with Buchholz and
 * Sonneborn-Berger.
 *
 * Pure computation: no I/O, no globals, no threads of its own, nothing random (the one
 * choice left to chance, the first board's roles in a Swiss round 1, is an argument).
 * Every call may be made from any thread on its own data.
 *
 * Players are the indices 0..n-1 (2 <= n <= THUE_SCHED_PLAYERS_MAX); the caller maps them
 * to names. A game is one two-round match; its `first` player is the first builder (the
 * builder of the match's first round, who plays the part White plays in chess), `second`
 * the other. Role balance means balancing who builds first.
 *
 * Errors: 0 or a count on success, else a negative code: THUE_EINVAL (base/errors.h) for
 * bad arguments, THUE_ENOMEM, or THUE_SCHED_ENOPAIRING from the list below. A call that
 * fails writes nothing the caller can rely on, and changes none of its inputs.
 */
#ifndef THUE_LADDER_SCHEDULE_H
#define THUE_LADDER_SCHEDULE_H

#include <stdint.h>

#include "base/errors.h"

#define THUE_SCHED_PLAYERS_MAX 256
#define THUE_SCHED_ROUNDS_MAX 50 /* a Swiss asks for 1..50 rounds (PROTOCOL.md 9) */
#define THUE_SCHED_BYE (-1)      /* the `second` of a bye */

/* Entries in one round's pairing list: the games, then the bye when n is odd. */
#define THUE_SCHED_BOARDS(n) (((n) + 1) / 2)

/*
 * The scheduler's error codes beyond the engine's (which it also returns: THUE_EINVAL,
 * THUE_ENOMEM). X(NAME, value, "wire_name", "message"); the values stay clear of the
 * engine's (-1..) and the protocol's (-100..).
 */
#define THUE_SCHED_ERRNO_MAP(X)                                                                    \
    X(ENOPAIRING, -200, "no_pairing",                                                              \
      "no legal pairing: every way of pairing this round repeats a game")

typedef enum {
#define THUE__SERR_ENUM(name, value, wire, msg) THUE_SCHED_##name = (value),
    THUE_SCHED_ERRNO_MAP(THUE__SERR_ENUM)
#undef THUE__SERR_ENUM
} thue_sched_error;

/* Message and stable snake_case name of a scheduler or engine code (base/errors.h for
 * the latter). Static strings. */
const char *thue_sched_strerror(int err);
const char *thue_sched_err_name(int err);

/* ---- games and results ------------------------------------------------------------- */

/* A game's result, from the first builder's side ("1-0": the first builder won). */
typedef enum {
    THUE_RESULT_NONE = 0,    /* not played yet (null on the wire) */
    THUE_RESULT_FIRST_WINS,  /* "1-0" */
    THUE_RESULT_SECOND_WINS, /* "0-1" */
    THUE_RESULT_DRAW,        /* "1/2-1/2" */
    THUE_RESULT_BYE          /* "bye": `first` has no opponent and scores a win */
} thue_result;

/* One pairing, or one game with its result. A bye is {player, THUE_SCHED_BYE,
 * THUE_RESULT_BYE}; the schedulers below write it so at pairing time, and every game
 * with THUE_RESULT_NONE. */
typedef struct thue_game {
    int first;  /* the first builder, 0..n-1 */
    int second; /* the second builder, 0..n-1 and != first, or THUE_SCHED_BYE */
    int result; /* thue_result */
} thue_game;

/* "1-0", "0-1", "1/2-1/2", "bye"; NULL for THUE_RESULT_NONE and anything unknown. */
const char *thue_result_name(int result);
/* The result named by `s` (one of the four names above, exactly), or THUE_EINVAL. */
int thue_result_parse(const char *s);

/* ---- round robin ------------------------------------------------------------------- */

/*
 * Rounds in a round robin of n players: n - 1 for even n, n for odd n (each player then
 * has one bye). THUE_EINVAL unless 2 <= n <= THUE_SCHED_PLAYERS_MAX.
 */
int thue_rr_rounds(int n);

/*
 * Writes round `round` (0-based, < thue_rr_rounds(n)) of the Berger tables for n players
 * to out[0 .. THUE_SCHED_BOARDS(n) - 1] and returns that count, or THUE_EINVAL.
 *
 * Player i is the tables' pairing number i + 1 (the caller decides who gets which
 * number, by lot or by seed). With n odd, number n + 1 is a dummy, and meeting it is the
 * bye. Boards come in the tables' order (board 1 is the game of the last pairing number)
 * and the bye, if any, comes last.
 *
 * Guarantees (tested for every n): every two players meet exactly once over the rounds,
 * each player appears exactly once in each round, with n odd each player has exactly one
 * bye, and at the end each player's first-builder games are as balanced as possible:
 * exactly (n - 1) / 2 for n odd, and (n - 2) / 2 or n / 2 for n even (half of the n - 1
 * games, rounded either way). During the event no player has the same role in three
 * consecutive games; with n odd, every player's roles alternate game by game.
 */
int thue_rr_round(int n, int round, thue_game *out);

/* ---- Swiss --------------------------------------------------------------------------- */

/* The role of a player's last game. */
enum { THUE_SCHED_ROLE_NONE = 0, THUE_SCHED_ROLE_FIRST = 1, THUE_SCHED_ROLE_SECOND = -1 };

/* What the Swiss pairing needs to know of one player. */
typedef struct thue_swiss_player {
    int half_points; /* points so far, in halves: a win or a bye 2, a draw 1 */
    int seed;        /* initial ranking, 0 = top seed; distinct over the players */
    int firsts;      /* games played as first builder (byes are not games) */
    int seconds;     /* games played as second builder */
    int last_role;   /* THUE_ROLE_*: the role of the last game played, byes skipped */
    int byes;        /* byes received */
} thue_swiss_player;

/*
 * A Swiss tournament's state before a round. The fields are public so that a caller may
 * fill them from its own records; thue_swiss_init and thue_swiss_record do it from the
 * results. met[a] has bit b set (bit b % 64 of word b / 64) iff a and b have played,
 * symmetrically. Plain data: copy it with memcpy or `=`.
 */
typedef struct thue_swiss_state {
    int n;
    thue_swiss_player p[THUE_SCHED_PLAYERS_MAX];
    uint64_t met[THUE_SCHED_PLAYERS_MAX][THUE_SCHED_PLAYERS_MAX / 64];
} thue_swiss_state;

/* Extra facts about a pairing, for logs and tests. */
typedef struct thue_swiss_info {
    int bye;          /* the player given the bye, or -1 */
    int role_relaxed; /* 1 when the round had to be paired without the role-balance
                         constraint (see thue_swiss_pair) */
} thue_swiss_info;

/* The most rounds a Swiss of n players may have: min(n - 1 for n even or n for n odd,
 * THUE_SCHED_ROUNDS_MAX); THUE_EINVAL for a bad n. Even then a late round may be
 * impossible to pair (thue_swiss_pair then says THUE_SCHED_ENOPAIRING). */
int thue_swiss_max_rounds(int n);

/*
 * A fresh state: n players, no games. seed[i] is player i's initial ranking (0 = top), a
 * permutation of 0..n-1; NULL means the players' own order (player 0 is the top seed).
 * 0, or THUE_EINVAL (bad n, st NULL, seed not a permutation); on error *st is untouched.
 */
int thue_swiss_init(thue_swiss_state *st, int n, const int *seed);

/*
 * Adds one played game or bye to the state: points, roles, byes, met. The result must be
 * decided (not THUE_RESULT_NONE); a bye must be {p, THUE_SCHED_BYE, THUE_RESULT_BYE}.
 * 0, or THUE_EINVAL (then *st is unchanged).
 */
int thue_swiss_record(thue_swiss_state *st, const thue_game *g);

/*
 * Pairs the next round: writes out[0 .. THUE_SCHED_BOARDS(n) - 1] (the games from the
 * top board down, every result THUE_RESULT_NONE, then the bye when n is odd) and returns
 * that count; fills *info when info is not NULL. Deterministic: the same state and lot
 * give the same pairing. The work area is allocated (about 20 KiB) and freed before
 * returning. docs/tournaments.md states the rules; in short:
 *
 * - No two players meet twice. If no pairing of the round avoids it, the answer is
 *   THUE_SCHED_ENOPAIRING; otherwise one is always found (the search is exact, not a
 *   heuristic that may give up).
 * - Bye (n odd): the lowest-placed player (by points, then seed) among those with the
 *   fewest byes for whom the rest can still be legally paired. So nobody gets a second
 *   bye while a player without one could take it.
 * - Players are ordered by points, then seed. The highest unpaired player p takes, among
 *   its score group's unpaired players G (top half against bottom half: with |G| = g and
 *   h = g / 2, the order G[h], G[h+1], ..., G[g-1], then G[h-1], ..., G[1]), the first
 *   opponent that keeps the rest pairable and keeps the most pairs possible inside G;
 *   failing that, the first in that order that keeps the rest pairable; failing that, p
 *   floats down to the first lower player that keeps the rest pairable.
 * - Roles: the player with the lower firsts - seconds builds first; when equal, the two
 *   alternate from their last games (if those differ, or if only one has played); else
 *   the higher-placed player alternates; for two players with no game yet (round 1),
 *   the higher-placed player builds first on boards 1, 3, 5, ... when lot is 0, and on
 *   boards 2, 4, ... when lot is 1 (draw lot from the caller's random seed).
 * - Role balance: the round is paired, if possible, without pairing two players who both
 *   have firsts - seconds >= 2 (or both <= -2). So if every |firsts - seconds| is at most
 *   2 (|firsts - games / 2| <= 1) before the round, it still is after it. When no legal
 *   pairing with the chosen bye allows it, the round is paired without that constraint
 *   and info->role_relaxed is set.
 *
 * Returns THUE_SCHED_BOARDS(n), THUE_EINVAL (bad state: n, seeds, counts, roles, met not
 * symmetric or a player meeting itself; lot not 0 or 1; out NULL), THUE_ENOMEM, or
 * THUE_SCHED_ENOPAIRING.
 */
int thue_swiss_pair(const thue_swiss_state *st, int lot, thue_game *out, thue_swiss_info *info);

/* ---- standings ------------------------------------------------------------------------ */

/* One round's games and byes, as paired (results filled in as they come). */
typedef struct thue_round_games {
    const thue_game *games; /* borrowed */
    int count;
} thue_round_games;

/* One row of the standings. Points and tie-breaks are kept exact, in halves and quarters. */
typedef struct thue_sched_standing {
    int player;
    int rank;        /* 1 + the players strictly ahead on (points, Buchholz, SB) */
    int half_points; /* points x 2 */
    int games;       /* games played, byes not counted */
    int byes;        /* byes received */
    int wins, draws, losses;
    int buchholz_halves; /* Buchholz x 2 */
    int sb_quarters;     /* Sonneborn-Berger x 4 */
} thue_sched_standing;

/*
 * The standings after the rounds rounds[0 .. nrounds - 1] (round r is the r-th round
 * played; the games inside a round in any order; games with THUE_RESULT_NONE, not
 * finished, are skipped). Writes n rows to rows[], best first, and returns n; or
 * THUE_EINVAL (bad n, nrounds < 0, a round with count < 0 or NULL games, a bad player
 * index or result, a bye not written {p, THUE_SCHED_BYE, THUE_RESULT_BYE}, seed not a
 * permutation; a NULL seed means player i is seed i).
 *
 * Points: win 1, draw 1/2, loss 0, bye 1. A bye counts, for the tie-breaks, as a game won
 * against a virtual opponent (FIDE's rule for unplayed games) who had the player's own
 * points before that round and draws every later round: for a bye in round R (1-based)
 * of T = nrounds, it has (points before round R) + (T - R) / 2 points.
 * Buchholz: the sum of the opponents' points (the virtual one's for a bye).
 * Sonneborn-Berger: the points of every opponent beaten (the virtual one for a bye), plus
 * half the points of every opponent drawn with.
 * Order: points, then Buchholz, then Sonneborn-Berger (all higher first), then seed.
 * Players equal on the first three share a rank. A pair that met twice counts twice.
 */
int thue_standings(int n, const int *seed, const thue_round_games *rounds, int nrounds,
                   thue_sched_standing *rows);

#endif
