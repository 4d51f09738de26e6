/*
 * game.h: one table of functions per game, the way libuv's handle types or SQLite's VFS
 * are tables: the lobby, the bots, the store and the CLI call a game only through it.
 *
 * A game (thue_gamedef) is a set of rules with options. Its pieces:
 *   - options: parsed from a JSON object (NULL or {} = the defaults) into an opaque
 *     thue_gopt, checked completely; written back canonically (every member, fixed
 *     order) by options_json; pool_key names the rating pool the options belong to
 *     (ratings, ladders and tournaments are per game and pool);
 *   - state: a flat block of state_size(opt) bytes that the caller owns; it holds no
 *     pointers, so copying it with memcpy copies the position (bots and solvers rely on
 *     this). A state covers the whole match: two-round games (Thue) swap the roles
 *     inside it;
 *   - players: 0 and 1. Player 0 moves first; the table that runs a match decides which
 *     seat is player 0;
 *   - moves: a thue_gmove of four integers whose meaning is the game's; move_parse and
 *     move_json convert from and to the wire's JSON object;
 *   - a move is applied only through apply, which checks it completely and changes
 *     nothing when it is refused (a negative THUE_E... code and a sentence in the
 *     thue_gerr);
 *   - result: over or not, the winner (or a draw), the score and why it ended. Forfeits
 *     (resign, time, abandon) belong to the table, not to the game.
 *
 * Every function is pure: no I/O, no globals written, no allocation except the JSON
 * that the *_json functions return (a new reference), so the worker pool's threads may
 * call them at once on their own states.
 */
#ifndef THUE_GAMES_GAME_H
#define THUE_GAMES_GAME_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "base/rng.h"

/* Parsed options: each game casts it to its own struct (at most this big). */
typedef union thue_gopt {
    unsigned char bytes[1024];
    int64_t align_i;
    double align_d;
} thue_gopt;

/* One move; the game gives the four numbers their meaning. Unused ones are 0. */
typedef struct thue_gmove {
    int32_t v[4];
} thue_gmove;

/* Why a call failed: code is the negative THUE_E... value, field the member it is about
 * ("heaps/2", "" for none), msg one sentence for a person. */
typedef struct thue_gerr {
    int code;
    char field[48];
    char msg[160];
} thue_gerr;

/* The outcome of a state. */
typedef struct thue_gresult {
    bool over;
    int winner;      /* 0 or 1; -1 for a draw or while running */
    int score[2];    /* points (Thue: painter points; one-game matches: 1 for a win) */
    const char *why; /* static: "no_moves", "move_cap", "score", ... ; "" while running */
} thue_gresult;

/* An option's description, for `thue games --json`, the web client and docs. */
typedef struct thue_goption_doc {
    const char *name;  /* member name */
    const char *type;  /* "integer", "boolean", "string", "array of integers" */
    const char *deflt; /* the default as JSON text */
    const char *help;  /* the allowed values and what it does */
} thue_goption_doc;

/* What a game's searching members (perfect, its own bots) get from whoever runs them
 * (gbot.c): a poll of the limits, the search's memory account (search/budget.h), the
 * caller's node budget and a place to say why a position was refused. Any member may be
 * NULL or 0, and so may the whole (then nothing stops the search, memory is unlimited
 * and nobody asks why); the helpers below say so. */
typedef struct thue_gctl {
    int (*must_stop)(void *arg);          /* 1: stop now and answer the best move found */
    int (*take)(void *arg, size_t bytes); /* 0, or -1 when the budget refuses the bytes */
    void (*give)(void *arg, size_t bytes);
    void *arg;
    /* The caller's node budget (0: none): a member that counts the positions it searches
     * stops at the smaller of this and its own bound (thue_gctl_nodes). */
    uint64_t nodes_max;
    /* Where a perfect member that answers THUE_ETOOBIG says why, in one sentence for a
     * person ("the move cap is 2 moves away ..."), through thue_gctl_why; NULL: nobody
     * asks. The CLI prints it; gbot.h's result carries it. */
    char *why;
    size_t why_size;
    /* Where a perfect member of a game with scores (dots and boxes) writes, when it
     * answers 0, the final score difference for the player to move with best play from
     * both sides (their points minus the other's, those already scored included): the
     * margin the exact review compares (search/review.h). NULL: nobody asks; a game
     * without scores leaves it alone. */
    int *margin;
} thue_gctl;

static inline int thue_gctl_stop(const thue_gctl *c)
{
    return c != NULL && c->must_stop != NULL && c->must_stop(c->arg);
}

/* Takes bytes before allocating them: 0, or -1 (then allocate less, or give up). */
static inline int thue_gctl_take(const thue_gctl *c, size_t bytes)
{
    return c != NULL && c->take != NULL ? c->take(c->arg, bytes) : 0;
}

static inline void thue_gctl_give(const thue_gctl *c, size_t bytes)
{
    if (c != NULL && c->give != NULL)
        c->give(c->arg, bytes);
}

/* The node bound of a search whose own is `own` (> 0): the smaller of it and the
 * caller's. */
static inline uint64_t thue_gctl_nodes(const thue_gctl *c, uint64_t own)
{
    return c != NULL && c->nodes_max > 0 && c->nodes_max < own ? c->nodes_max : own;
}

/* Writes the sentence (printf) to c->why when someone asks (games.c). */
void thue_gctl_why(const thue_gctl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A bot of the game's own (game.h's optional `bots`), named in bot specs after the
 * generic ones (search/gbot.h: "heuristic", "strong"). choose gives the move for the
 * player to move in st (not over), the same for the same seed; it polls ctl
 * (thue_gctl_stop) now and then while it searches, and when that says stop it answers
 * the best move it has at once; big work space is taken from ctl's budget first
 * (thue_gctl_take). 0 with *out, or THUE_ENOMEM. Pure like the rest of the table (it may
 * allocate and free its own work space). */
typedef struct thue_gamebot {
    const char *name; /* a spec's word: lower-case letters, not random, uct or perfect */
    const char *help; /* one line for `thue games` and docs */
    int (*choose)(const thue_gopt *opt, const void *st, uint64_t seed, const thue_gctl *ctl,
                  thue_gmove *out);
} thue_gamebot;

enum {
    THUE_GAME_ACYCLIC = 1 << 0, /* every line of play ends: plain minimax terminates */
    THUE_GAME_DRAWS = 1 << 1,   /* a match may end drawn */
    THUE_GAME_CUT_LISTS = 1 << 2, /* legal_moves may cut a list at max_moves (Wythoff's) */
};

typedef struct thue_gamedef {
    const char *name;         /* the wire name: "thue", "nim", ... */
    const char *title;        /* "Nim" */
    const char *summary;      /* one sentence on the rules */
    const char *move_doc;     /* the move's JSON shape, e.g. {"heap":I,"take":N} */
    const char *position_doc; /* the position's JSON shape (for --position) */
    const thue_goption_doc *options;
    int noptions;
    unsigned flags; /* THUE_GAME_... */

    /* Options. j NULL or {} gives the defaults; an unknown member is refused. 0, or
     * THUE_EOPTIONS with e filled (opt is then unspecified). */
    int (*parse_options)(const json_t *j, thue_gopt *opt, thue_gerr *e);
    /* Canonical JSON of the options (every member). New reference, NULL out of memory. */
    json_t *(*options_json)(const thue_gopt *opt);
    /* The rating pool within the game ("k3-square", "misere", "8x8"): the options that
     * change the game's character, not the starting position. */
    void (*pool_key)(const thue_gopt *opt, char *out, size_t size);

    /* Bytes of a state for these options (fixed for the whole match). */
    size_t (*state_size)(const thue_gopt *opt);
    /* The starting position. seed picks it where the options ask for a random one
     * (the same seed gives the same position). */
    void (*start)(const thue_gopt *opt, uint64_t seed, void *st);
    /* A position from JSON (the CLI's --position; the same shape state_json writes;
     * members that state_json adds for clients, such as "to_move", are optional). 0 or
     * THUE_ESTATE with e filled. */
    int (*position_parse)(const thue_gopt *opt, const json_t *j, void *st, thue_gerr *e);
    /* The state as JSON for clients, records and replays. New reference. */
    json_t *(*state_json)(const thue_gopt *opt, const void *st);

    /* The player to move, -1 once over. */
    int (*to_move)(const thue_gopt *opt, const void *st);
    /* The kind of move expected now ("move"; Thue: "place" or "paint"; "over"). */
    const char *(*step)(const thue_gopt *opt, const void *st);
    /* Most legal moves any state of these options can have, positions read by
     * position_parse included (the buffer size for legal_moves). A game whose positions
     * can have more moves than any buffer holds (Wythoff's game with heaps up to 2^53)
     * caps it: see legal_moves. */
    int (*max_moves)(const thue_gopt *opt);
    /* The legal moves of the player to move, in a fixed order, written to out[0..]
     * (at most max_moves); returns their count (0 once over). A count below max_moves is
     * the complete list; a count equal to max_moves may be a cut list in a game flagged
     * THUE_GAME_CUT_LISTS (the game's docs say which moves it keeps: Wythoff's puts the
     * winning move first), and apply still accepts every legal move. */
    int (*legal_moves)(const thue_gopt *opt, const void *st, thue_gmove *out);
    /* The move's JSON (shape only: legality is apply's). 0 or THUE_EMOVE with e. */
    int (*move_parse)(const thue_gopt *opt, const json_t *j, thue_gmove *m, thue_gerr *e);
    /* New reference. */
    json_t *(*move_json)(const thue_gopt *opt, const thue_gmove *m);
    /* Player `player` plays m. 0, or THUE_EOVER, THUE_EPLAYER, THUE_ETURN or THUE_EILLEGAL
     * (Thue says which rule: THUE_ESTEP, THUE_EPOSITION, THUE_ESYMBOL, the wire's words
     * since its first client) with e filled; a refused move changes nothing. */
    int (*apply)(const thue_gopt *opt, void *st, int player, const thue_gmove *m, thue_gerr *e);
    void (*result)(const thue_gopt *opt, const void *st, thue_gresult *r);
    /* A hash of the position (for transposition tables); equal states hash equal. */
    uint64_t (*hash)(const thue_gopt *opt, const void *st);

    /* Optional (NULL when the game has none). The exact value for the player to move
     * (1 win, 0 draw, -1 loss) and a move that keeps it (*best; untouched once over).
     * 0, or THUE_ETOOBIG when the position is beyond what it can decide (saying why
     * through thue_gctl_why where it can tell). A solver that searches polls ctl (may be
     * NULL) as the own bots do, takes its tables from ctl's budget, keeps to its node
     * budget (thue_gctl_nodes), and gives up (THUE_ETOOBIG) when told to stop or refused
     * the memory. Its refusal is final: the generic solver is not tried behind it. */
    int (*perfect)(const thue_gopt *opt, const void *st, const thue_gctl *ctl, thue_gmove *best,
                   int *value);
    /* Optional (NULL: the generic sentence): one line on what `perfect` decides and what
     * it refuses, for `thue games`, /api/games and the docs. */
    const char *perfect_help;
    /* Optional (NULL: the first legal move): the move a perfect bot that must move anyway
     * (gbot.h's legal_if_undecided: a room's bot) plays where `perfect` refused. It runs
     * after perfect gave up, often at its deadline, so it must be quick (no search). Not
     * one of the game's bots (it is not listed or named in specs). */
    const thue_gamebot *fallback;

    /* Optional (NULL and 0 when the game has none): its own bots, played by gbot.c's
     * THUE_GBOT_OWN kind. */
    const thue_gamebot *bots;
    int nbots;
} thue_gamedef;

/* ---- the registry (games.c) ------------------------------------------------------- */

/* The game of a wire name, NULL when there is none. */
const thue_gamedef *thue_game_find(const char *name);
/* The games in a fixed order (Thue first); *n gets their count. */
const thue_gamedef *const *thue_game_list(int *n);
/* The JSON Schema (draft 2020-12) of g's moves (position false) or of its positions as
 * state_json writes them (schemas.c): a new reference, JSON null for a game without one,
 * NULL out of memory. */
json_t *thue_game_schema(const thue_gamedef *g, bool position);

/* Fills e (code, field, printf message) and returns code: for one-line error returns. */
int thue_gerr_set(thue_gerr *e, int code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Helpers over any game. */
/* Options from JSON text (NULL or "" = defaults). 0 or THUE_EOPTIONS (bad JSON too). */
int thue_game_options_text(const thue_gamedef *g, const char *text, thue_gopt *opt, thue_gerr *e);
/* A move from JSON text, checked and applied: 0 or the error of move_parse or apply. */
int thue_game_apply_text(const thue_gamedef *g, const thue_gopt *opt, void *st, int player,
                         const char *text, thue_gerr *e);
/* JSON text of a new reference (which it releases); malloc'd compact text, NULL when
 * j is NULL or out of memory. */
char *thue_game_dump(json_t *j);

/* One SplitMix64 step from state x (base/rng.h): for games that need a seeded start
 * position or a hash mixer. */
static inline uint64_t thue_gmix64(uint64_t x)
{
    return thue_splitmix64(&x);
}

/* Integer member helpers for parsers: reads j[key] as an integer in lo..hi (absent:
 * *out = dflt). 0 or THUE_EOPTIONS / the given code with e. */
int thue_gjson_int(const json_t *obj, const char *key, long long lo, long long hi, long long dflt,
                   long long *out, int code, thue_gerr *e);
/* A JSON array of v[0..n-1] (new reference). */
json_t *thue_gjson_ints(const int *v, int n);
/* Refuses members of obj not in keys (NULL-terminated): 0 or code with e. */
int thue_gjson_only(const json_t *obj, const char *const *keys, int code, thue_gerr *e);

#endif
