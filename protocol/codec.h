/*
 * codec.h: the wire protocol of PROTOCOL.md as C types, and their JSON text.
 *
 * Four directions, so that the server and the C clients share one implementation:
 *   client commands:  thue_cmd_decode (text -> thue_cmd), thue_cmd_encode (thue_cmd -> text)
 *   server messages:  thue_msg_encode (thue_msg -> text), thue_msg_decode (text -> thue_msg)
 * and, for the server's HTTP API, thue_msg_encode_members (a message's members alone).
 *
 * Decoding validates everything PROTOCOL.md says about a message: valid UTF-8, a JSON
 * object no deeper than THUE_PROTO_DEPTH_MAX, no repeated key, a known `type`, every
 * required member present, every member of the right type and within its range and
 * length, strings free of control characters where required; unknown members are
 * ignored. A failure returns a negative code and fills a thue_decode_error naming the bad
 * member (as a JSON Pointer without the leading slash, "clock/initial_ms") and saying
 * what is wrong in a sentence: THUE_PERR_JSON for a text that is no JSON object in UTF-8
 * (or too deep, too long, with a repeated key), THUE_PERR_TYPE for a missing `type` or a
 * string naming no message of that direction, THUE_PERR_MESSAGE for every other fault.
 * The request `id`, when it could be read, is returned too so that the error can echo it.
 *
 * Encoding writes the canonical form of PROTOCOL.md ("The canonical form"): compact JSON,
 * `type`, then `id`, then the members in the order of PROTOCOL.md's tables, defaults
 * written out, members whose default is "none" left out when absent. Numbers that are
 * not integers (ratings, think_ms) are written with the fewest digits that read back as
 * the same double, and as an integer when they are whole (like JavaScript). So decode
 * then encode gives one canonical text, which the golden vectors record.
 *
 * Ownership: a thue_cmd owns nothing (its strings are arrays inside it), so it needs no
 * free. A thue_msg holds pointers to arrays (the word, the room list, ...): when the caller
 * fills one to encode, the arrays are the caller's (borrowed, read only during the call);
 * a thue_msg filled by thue_msg_decode owns its arrays and must be released with
 * thue_msg_clear. Encoders return a new NUL-terminated string the caller frees with free().
 *
 * No global state: every function is safe to call from any thread at the same time.
 * (The implementation uses jansson, which needs json_object_seed(0) once before threads
 * start for its hash seed; thue_codec_init does that, and the decoders call it.)
 */
#ifndef THUE_PROTOCOL_CODEC_H
#define THUE_PROTOCOL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "games/thue/engine/match.h"
#include "games/thue/engine/repetition.h"

#define THUE_PROTOCOL_VERSION 1
#define THUE_PROTO_MESSAGE_MAX 16384 /* bytes of a client message */
#define THUE_PROTO_DEPTH_MAX 8
/* analysis_tree (the server's canonical text, type first) may nest this deep: its tree
 * shows at most THUE_PROTO_TREE_LEVELS_MAX levels below the root, two nestings each. */
#define THUE_PROTO_TREE_LEVELS_MAX 400
#define THUE_PROTO_TREE_DEPTH_MAX (2 * THUE_PROTO_TREE_LEVELS_MAX + 4)

/* Lengths in Unicode code points; buffers hold up to 4 bytes per code point + NUL. */
#define THUE_PROTO_ID_MAX 64     /* a string id: printable ASCII */
#define THUE_PROTO_NAME_MAX 24   /* a player name */
#define THUE_PROTO_TITLE_MAX 40  /* a room or tournament name */
#define THUE_PROTO_TOKEN_MAX 128 /* an account token: ASCII */
#define THUE_PROTO_RESUME_LEN 32 /* a resume token: lowercase hex */
/* A password (set_password, login), in code points without control characters: a new one
 * has at least THUE_PROTO_PASSWORD_MIN, one that is only checked at least 1. */
#define THUE_PROTO_PASSWORD_MIN 8
#define THUE_PROTO_PASSWORD_MAX 256
#define THUE_PROTO_KEY_MAX 32    /* a room id, tournament id or invite code: ASCII */
#define THUE_PROTO_SPEC_MAX 100  /* a bot SPEC: printable ASCII */
#define THUE_PROTO_CHAT_MAX 200  /* a chat text */
#define THUE_PROTO_TEXT_MAX 200  /* a human sentence (error and goodbye messages) */
/* Games other than Thue (server/games/game.h): their payloads travel as compact JSON
 * objects that the envelope does not describe (the game checks them). */
#define THUE_PROTO_GAME_MAX 32     /* a game's name: as a room id */
#define THUE_PROTO_GOPT_MAX 1024   /* a game's options object, in bytes */
#define THUE_PROTO_GMOVE_MAX 256   /* a game's move object, in bytes */
#define THUE_PROTO_GSTATE_MAX 4096 /* a game's state object, in bytes */

/* ---- error codes ------------------------------------------------------------------- */

/* The protocol's error codes (THUE_PROTO_ERRNO_MAP, thue_proto_error) are in the one list
 * of base/errors.h, with the engine's and the store's. */

/* Wire name ("bad_json", "not_your_turn", ...) of a protocol or engine error code;
 * "internal" for anything unknown. Static string. */
const char *thue_proto_err_name(int err);
/* A sentence for the code (the engine's thue_strerror for engine codes). Static string. */
const char *thue_proto_strerror(int err);
/* The code of a wire name, from either list (protocol or engine), or 0 when unknown.
 * (Inside an `error` message only the codes of PROTOCOL.md's table are accepted.) */
int thue_proto_err_code(const char *wire_name);

/* ---- shared pieces ----------------------------------------------------------------- */

typedef enum { THUE_ID_NONE = 0, THUE_ID_INT, THUE_ID_STR } thue_id_kind;

/* A request id: absent, an integer 0..2^53-1, or a string of 1..64 printable ASCII. */
typedef struct thue_msg_id {
    thue_id_kind kind;
    int64_t num;
    char str[THUE_PROTO_ID_MAX + 1];
} thue_msg_id;

typedef struct thue_clock {
    int present;          /* 0: no clock (absent, or null in server messages) */
    int64_t initial_ms;   /* 1000..86400000 */
    int64_t increment_ms; /* 0..600000 */
} thue_clock;

typedef enum { THUE_FIRST_RANDOM = 0, THUE_FIRST_CREATOR, THUE_FIRST_OPPONENT } thue_first_builder;
typedef enum {
    THUE_STATUS_WAITING = 0,
    THUE_STATUS_PLAYING,
    THUE_STATUS_FINISHED
} thue_room_status;
typedef enum { THUE_KIND_GUEST = 0, THUE_KIND_ACCOUNT, THUE_KIND_BOT } thue_player_kind;
typedef enum { THUE_LADDER_ALL = 0, THUE_LADDER_HUMAN, THUE_LADDER_BOT } thue_ladder_kind;
typedef enum { THUE_FORMAT_ROUND_ROBIN = 0, THUE_FORMAT_SWISS } thue_tournament_format;

/* Wire names of the enums above ("random", "waiting", "guest", "all", "swiss"); NULL for a
 * value outside the enum. Static strings. */
const char *thue_first_builder_name(thue_first_builder f);
const char *thue_room_status_name(thue_room_status s);
const char *thue_player_kind_name(thue_player_kind k);
const char *thue_ladder_kind_name(thue_ladder_kind k);
const char *thue_tournament_format_name(thue_tournament_format f);

typedef struct thue_player {
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    thue_player_kind kind;
} thue_player;

/* ---- client commands --------------------------------------------------------------- */

typedef enum {
    THUE_CMD_HELLO = 0,
    THUE_CMD_PING,
    THUE_CMD_CLAIM_NAME,
    THUE_CMD_CREATE_ROOM,
    THUE_CMD_LIST_ROOMS,
    THUE_CMD_JOIN,
    THUE_CMD_SPECTATE,
    THUE_CMD_LEAVE,
    THUE_CMD_SEAT_BOT,
    THUE_CMD_READY,
    THUE_CMD_PLACE,
    THUE_CMD_PAINT,
    THUE_CMD_RESIGN,
    THUE_CMD_REMATCH,
    THUE_CMD_QUEUE_JOIN,
    THUE_CMD_QUEUE_LEAVE,
    THUE_CMD_CHAT,
    THUE_CMD_GET_LADDER,
    THUE_CMD_LIST_TOURNAMENTS,
    THUE_CMD_GET_TOURNAMENT,
    THUE_CMD_CREATE_TOURNAMENT,
    THUE_CMD_JOIN_TOURNAMENT,
    THUE_CMD_LEAVE_TOURNAMENT,
    THUE_CMD_START_TOURNAMENT,
    THUE_CMD_MOVE, /* a move of any game but Thue: {"room":R,"move":{...}} */
    THUE_CMD_ANALYZE,
    THUE_CMD_ANALYZE_STOP,
    THUE_CMD_ANALYZE_RESUME,
    THUE_CMD_ANALYZE_CLOSE,
    THUE_CMD_SET_PASSWORD,
    THUE_CMD_LOGIN,
    THUE_CMD_GET_LEGAL_MOVES, /* {"room":R}: the legal moves now (u.room) */
    THUE_CMD_GET_BEST_MOVE,   /* the perfect bot's move for any position (u.best_move) */
    THUE_CMD_SYNC,            /* {"room":R}: the room's whole state again (u.room) */
    THUE_CMD_ANALYZE_SYNC,    /* {"analysis":A}: the analysis's whole tree again (u.analysis) */
    THUE_CMD_COUNT
} thue_cmd_type;

/* The `type` string of a command ("create_room"), NULL for an unknown value. */
const char *thue_cmd_type_name(thue_cmd_type t);

typedef struct thue_cmd {
    thue_cmd_type type;
    thue_msg_id id;
    union {
        struct {
            int protocol;
            int has_name, has_token, has_resume; /* at most one is set */
            char name[THUE_PROTO_NAME_MAX * 4 + 1];
            char token[THUE_PROTO_TOKEN_MAX + 1];
            char resume[THUE_PROTO_RESUME_LEN + 1];
            int legal_moves; /* 1: this connection wants legal_moves after every state */
        } hello;
        struct {
            char name[THUE_PROTO_NAME_MAX * 4 + 1];
        } claim_name;
        /* set_password: the new password, and the current one (has_old) when the account
         * has one. Secrets: the lobby wipes them once the command is handled. */
        struct {
            char password[THUE_PROTO_PASSWORD_MAX * 4 + 1];
            int has_old;
            char old_password[THUE_PROTO_PASSWORD_MAX * 4 + 1];
        } set_password;
        struct {
            char name[THUE_PROTO_NAME_MAX * 4 + 1];
            char password[THUE_PROTO_PASSWORD_MAX * 4 + 1];
        } login;
        struct {
            thue_variant variant;     /* default square */
            int k;                    /* default 3 */
            int limit;                /* default 100 */
            thue_clock clock;         /* default none */
            thue_first_builder first; /* default random */
            int rated, is_private;    /* default 0 */
            int has_name;
            char name[THUE_PROTO_TITLE_MAX * 4 + 1];
            int seat; /* default 1 */
            int auto_start; /* default 0: the first match starts without ready */
            /* another game than Thue (variant, k and limit are Thue's and then unused) */
            int has_game, has_game_options;
            char game[THUE_PROTO_GAME_MAX + 1];
            char game_options[THUE_PROTO_GOPT_MAX + 1];
        } create_room;
        struct {
            int has_variant, has_k, has_status;
            thue_variant variant;
            int k;
            thue_room_status status;
            int has_game; /* absent: Thue's rooms only */
            char game[THUE_PROTO_GAME_MAX + 1];
        } list_rooms;
        /* join, spectate, leave, ready, resign, rematch: `room`; join and spectate also
         * `invite`; join also `seat`. */
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            int has_invite;
            char invite[THUE_PROTO_KEY_MAX + 1];
            int has_seat;
            int seat;
        } room;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            char bot[THUE_PROTO_SPEC_MAX + 1];
            int think_ms; /* default 2000 */
            int has_seat;
            int seat;
        } seat_bot;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            int value; /* place: position 0..10000; paint: symbol 0..63 */
        } move;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            char move[THUE_PROTO_GMOVE_MAX + 1]; /* the game's move object */
        } gmove;
        struct {
            thue_variant variant;
            int k;
            int limit;                      /* default 100 */
            thue_clock clock;               /* default none */
            int rated;                      /* default 0 */
            int bot_after_s;                /* default 0: never */
            int has_game, has_game_options; /* another game (variant and k unused) */
            char game[THUE_PROTO_GAME_MAX + 1];
            char game_options[THUE_PROTO_GOPT_MAX + 1];
        } queue_join;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            char text[THUE_PROTO_CHAT_MAX * 4 + 1];
        } chat;
        struct {
            int has_game, has_game_options; /* another game's pool (variant and k unused) */
            char game[THUE_PROTO_GAME_MAX + 1];
            char game_options[THUE_PROTO_GOPT_MAX + 1];
            thue_variant variant;
            int k;
            thue_ladder_kind kind; /* default all */
            int offset;            /* default 0 */
            int count;             /* default 50 */
        } get_ladder;
        struct {
            int has_status;
            int status; /* 0 open, 1 running, 2 finished */
            int offset; /* default 0 */
            int count;  /* default 50 */
        } list_tournaments;
        /* get_tournament, start_tournament: `tournament`; join/leave_tournament also
         * `bot` (optional). */
        struct {
            char tournament[THUE_PROTO_KEY_MAX + 1];
            int has_bot;
            char bot[THUE_PROTO_SPEC_MAX + 1];
        } tournament;
        struct {
            char name[THUE_PROTO_TITLE_MAX * 4 + 1];
            thue_tournament_format format;
            thue_variant variant;
            int k;
            int limit;        /* default 100 */
            thue_clock clock; /* default none */
            int has_rounds;
            int rounds;                     /* Swiss: 1..50 */
            int max_players;                /* 2..256 */
            int has_game, has_game_options; /* another game (variant and k unused) */
            char game[THUE_PROTO_GAME_MAX + 1];
            char game_options[THUE_PROTO_GOPT_MAX + 1];
        } create_tournament;
        /* analyze: exactly one source, a room or a game (with optional options and
         * position); the search's parameters, each optional (PROTOCOL.md "Analysis"). */
        struct {
            int has_room;
            char room[THUE_PROTO_KEY_MAX + 1];
            int has_game, has_game_options, has_position;
            char game[THUE_PROTO_GAME_MAX + 1];
            char game_options[THUE_PROTO_GOPT_MAX + 1];
            char position[THUE_PROTO_GSTATE_MAX + 1];
            int has_iterations, iterations; /* 1..THUE_PROTO_ANALYSIS_ITERATIONS_MAX */
            int has_playout, playout;       /* 1..100000 */
            int has_c;
            double c; /* 0..1000 */
            int has_seed;
            int64_t seed; /* 0..2^53-1 */
            int has_max_nodes, max_nodes; /* 1..THUE_PROTO_ANALYSIS_NODES_MAX */
        } analyze;
        /* analyze_stop, analyze_resume, analyze_close, analyze_sync: `analysis`; resume
         * also `iterations`. */
        struct {
            char analysis[THUE_PROTO_KEY_MAX + 1];
            int has_iterations, iterations;
        } analysis;
        /* get_best_move: a game (Thue too), its options (absent: the defaults) and a
         * position (absent: the start with seed 0); unknown members are refused
         * (PROTOCOL.md section 16, "get_best_move"). */
        struct {
            char game[THUE_PROTO_GAME_MAX + 1];
            int has_game_options, has_position;
            char game_options[THUE_PROTO_GOPT_MAX + 1];
            char position[THUE_PROTO_GSTATE_MAX + 1];
        } best_move;
    } u;
} thue_cmd;

#define THUE_PROTO_ANALYSIS_ITERATIONS_MAX 1000000
#define THUE_PROTO_ANALYSIS_NODES_MAX 50000

/* Why decoding failed. */
typedef struct thue_decode_error {
    int code;       /* THUE_PERR_JSON, THUE_PERR_MESSAGE or THUE_PERR_TYPE */
    char field[64]; /* the bad member as a JSON Pointer without the leading '/'; "" if none */
    char message[THUE_PROTO_TEXT_MAX + 1]; /* a sentence naming the problem */
    thue_msg_id id; /* the request's id when it could be read (kind NONE otherwise) */
} thue_decode_error;

/*
 * Decodes one client message of len bytes (it need not be NUL-terminated; at most
 * THUE_PROTO_MESSAGE_MAX is accepted, longer is THUE_PERR_JSON). 0 and *out filled, or a
 * negative THUE_PERR_... code with *err filled (err may be NULL). On failure *out is left
 * in an unspecified but harmless state.
 */
int thue_cmd_decode(const char *text, size_t len, thue_cmd *out, thue_decode_error *err);

/* The canonical JSON text of a command, or NULL when out of memory or when the command
 * holds a value decoding would refuse (then err, if not NULL, says which). */
char *thue_cmd_encode(const thue_cmd *cmd, thue_decode_error *err);

/* ---- server messages --------------------------------------------------------------- */

typedef enum {
    THUE_MSG_WELCOME = 0,
    THUE_MSG_PONG,
    THUE_MSG_OK,
    THUE_MSG_ERROR,
    THUE_MSG_GOODBYE,
    THUE_MSG_ACCOUNT,
    THUE_MSG_ROOM_CREATED,
    THUE_MSG_ROOMS,
    THUE_MSG_ROOM_STATE,
    THUE_MSG_MATCH_END,
    THUE_MSG_CHAT_MESSAGE,
    THUE_MSG_MATCH_FOUND,
    THUE_MSG_LADDER,
    THUE_MSG_TOURNAMENTS,
    THUE_MSG_TOURNAMENT,
    THUE_MSG_TOURNAMENT_CREATED,
    THUE_MSG_TOURNAMENT_EVENT,
    THUE_MSG_QUEUE_FAILED,
    THUE_MSG_ANALYSIS_STARTED,
    THUE_MSG_ANALYSIS_TREE,
    THUE_MSG_MOVED,
    THUE_MSG_LEGAL_MOVES,
    THUE_MSG_BEST_MOVE,
    THUE_MSG_PLAYED, /* thue.v2's event after a move (PROTOCOL.md, "thue.v2") */
    THUE_MSG_WATCHERS, /* thue.v2's count of a room's spectators (at most once a second) */
    THUE_MSG_ANALYSIS_DELTA, /* thue.v2's analysis tree: what changed, in parts */
    THUE_MSG_COUNT
} thue_msg_type;

/* thue.v2's analysis_delta (PROTOCOL.md section 16, "Under thue.v2"): a shown node's id is
 * 0..THUE_PROTO_NODE_ID_MAX (the root's is 0); one update has at most
 * THUE_PROTO_ANALYSIS_NODES_MAX entries in each list, and every part of it is at most
 * THUE_PROTO_DELTA_BYTES_MAX bytes (the server's promise; decoding does not count). */
#define THUE_PROTO_NODE_ID_MAX INT64_C(4294967295)
#define THUE_PROTO_DELTA_BYTES_MAX 65536

/* A node newly shown (analysis_delta's `add`). */
typedef struct thue_analysis_add {
    int64_t id;
    int64_t parent; /* -1: null (the root) */
    int has_move;   /* move: null at the root (exactly when parent is null) */
    char move[THUE_PROTO_GMOVE_MAX + 1];
    const char *name; /* the state's name (no '"'); any length */
    int to_move;      /* 0, 1, or -1 once the game is over */
    int64_t visits, ended;
    double value; /* 0..1 */
    int hidden;
} thue_analysis_add;

/* A shown node's new figures (analysis_delta's `set`, [id, visits, ended, value, hidden]). */
typedef struct thue_analysis_set {
    int64_t id, visits, ended;
    double value;
    int hidden;
} thue_analysis_set;

/* The `type` string of a server message ("room_state"), NULL for an unknown value. */
const char *thue_msg_type_name(thue_msg_type t);

typedef struct thue_room_options {
    thue_variant variant;
    int k, limit;
    thue_clock clock;
    int rated, is_private;
    thue_first_builder first;
    int auto_start; /* the first match starts once both seats are taken (written when 1) */
    /* Another game than Thue: its name and options object (then variant, k and limit are
     * not written). has_game 0: Thue. */
    int has_game;
    char game[THUE_PROTO_GAME_MAX + 1];
    char game_options[THUE_PROTO_GOPT_MAX + 1];
} thue_room_options;

typedef struct thue_room_summary {
    char room[THUE_PROTO_KEY_MAX + 1];
    char name[THUE_PROTO_TITLE_MAX * 4 + 1];
    thue_variant variant;
    int k, limit;
    thue_clock clock;
    int rated;
    thue_room_status status;
    int has_player[2];
    thue_player players[2];
    int spectators;
    int has_game; /* as in thue_room_options */
    char game[THUE_PROTO_GAME_MAX + 1];
    char game_options[THUE_PROTO_GOPT_MAX + 1];
} thue_room_summary;

typedef struct thue_seat {
    int present; /* 0: a free seat (null) */
    thue_player player;
    int has_bot;
    char bot[THUE_PROTO_SPEC_MAX + 1];
    int connected, ready;
    int has_rating;
    double rating;
    int rematch;                /* asked for a rematch (written only when true) */
    int has_away, away_left_ms; /* while a player's connection is lost: the grace left */
} thue_seat;

typedef struct thue_round_info {
    int builder; /* seat */
    int points;
    thue_round_end end; /* games/thue/engine/match.h's names: playing, repetition, limit, ... */
    int has_repetition;
    thue_repetition repetition;
    const uint8_t *word; /* NULL: null (the round is being played or was not played) */
    int word_len;
} thue_round_info;

typedef struct thue_last_move {
    int present;
    int seat;
    int is_paint; /* 0: place */
    int value;
    double think_ms;
} thue_last_move;

typedef struct thue_match_info {
    int number;
    int round;
    int builder, painter;
    thue_step step;
    int to_move;         /* -1: null */
    const uint8_t *word; /* the current round's word */
    int word_len;
    int placed; /* -1: null */
    thue_round_info rounds[2];
    int points[2];
    int has_clocks;
    int64_t clocks[2];
    int clock_running; /* -1: null */
    thue_last_move last_move;
    int thinking; /* -1: null */
    int has_result;
    int winner; /* -1: a draw */
    thue_end_reason reason;
    /* Another game than Thue (the room's options have has_game): these members instead
     * of round, builder, painter, step, word, placed, rounds, points and last_move's
     * kind/value. */
    int first;                          /* the seat that is the game's player 0 */
    int moves;                          /* moves played */
    char gstep[THUE_PROTO_KEY_MAX + 1]; /* the game's step name: "move", "over" */
    char why[THUE_PROTO_KEY_MAX + 1];   /* result's reason: the game's or a forfeit's */
    /* The two big buffers last, so that a Thue room's state message need not zero them
     * (room.c's fill_state). */
    char last_gmove[THUE_PROTO_GMOVE_MAX + 1]; /* last_move's move object */
    char state[THUE_PROTO_GSTATE_MAX + 1];     /* the game's state object */
} thue_match_info;

/* Why a rated room's match was not rated (match_end's unrated_reason, PROTOCOL.md
 * section 9): ended by resign, timeout or abandon before the minimum of play; the two
 * accounts' rated matches together reached the limit of the window; two bots. */
typedef enum {
    THUE_UNRATED_TOO_SHORT,
    THUE_UNRATED_PAIR_LIMIT,
    THUE_UNRATED_BOTS
} thue_unrated_reason;

typedef struct thue_rating_change {
    double before, after, rd_before, rd_after;
} thue_rating_change;

typedef struct thue_ladder_entry {
    int rank;
    thue_player player;
    double rating, rd;
    int provisional;
    int games, wins, draws, losses;
} thue_ladder_entry;

typedef struct thue_tournament_summary {
    char tournament[THUE_PROTO_KEY_MAX + 1];
    char name[THUE_PROTO_TITLE_MAX * 4 + 1];
    thue_tournament_format format;
    thue_variant variant;
    int k;
    int status; /* 0 open, 1 running, 2 finished */
    int players, max_players, round, rounds;
    int has_game; /* another game than Thue: its name and options instead of variant and k */
    char game[THUE_PROTO_GAME_MAX + 1];
    char game_options[THUE_PROTO_GOPT_MAX + 1];
} thue_tournament_summary;

typedef struct thue_standing {
    int rank;
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    double points, buchholz, sonneborn_berger;
    int games;
} thue_standing;

typedef struct thue_pairing {
    char names[2][THUE_PROTO_NAME_MAX * 4 + 1];
    int has_second; /* 0: a bye (null) */
    int has_room;
    char room[THUE_PROTO_KEY_MAX + 1];
    int result; /* -1 null, 0 "1-0", 1 "0-1", 2 "1/2-1/2", 3 "bye" */
} thue_pairing;

typedef struct thue_tournament_round {
    const thue_pairing *pairings;
    int npairings;
} thue_tournament_round;

/* A server message. Pointer members are borrowed when encoding and owned after
 * thue_msg_decode (release with thue_msg_clear). */
typedef struct thue_msg {
    thue_msg_type type;
    thue_msg_id id; /* replies only: the request's id (kind NONE: no id) */
    union {
        struct {
            int protocol;
            char server[65];
            thue_player player;
            char resume[THUE_PROTO_RESUME_LEN + 1];
            int grace_s;
            int resumed;
            const char (*rooms)[THUE_PROTO_KEY_MAX + 1];
            int nrooms;
            int max_message, rate, burst, chat_max, name_max;
            int has_ping_s, ping_s; /* optional: seconds of silence before a WebSocket ping */
            int has_idle_s, idle_s; /* optional: seconds of silence before the drop */
        } welcome;
        struct {
            int code; /* protocol or engine error code; its wire name is sent */
            char message[THUE_PROTO_TEXT_MAX * 4 + 1];
            char field[64]; /* "" when none */
        } error;
        struct {
            char reason[16]; /* replaced, shutdown, idle, abuse, slow */
            char message[THUE_PROTO_TEXT_MAX * 4 + 1];
        } goodbye;
        struct {
            char name[THUE_PROTO_NAME_MAX * 4 + 1];
            char token[THUE_PROTO_TOKEN_MAX + 1];
            int has_resume; /* login's reply: the session's resume token */
            char resume[THUE_PROTO_RESUME_LEN + 1];
        } account;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            int has_invite;
            char invite[THUE_PROTO_KEY_MAX + 1];
        } room_created;
        struct {
            const thue_room_summary *rooms;
            int nrooms;
        } rooms;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            int64_t version;
            char name[THUE_PROTO_TITLE_MAX * 4 + 1];
            thue_room_status status;
            thue_room_options options;
            thue_seat seats[2];
            int spectators;
            int you; /* -1: null */
            /* thue.v2: the room's ref instead of "you" (the same text for everyone);
             * has_ref 0: thue.v1's form, with "you" */
            int has_ref, ref;
            int has_match;
            thue_match_info match;
            int has_tournament; /* a tournament's game: "tournament" is sent */
            char tournament[THUE_PROTO_KEY_MAX + 1];
        } room_state;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            int number;
            int winner; /* -1: a draw */
            thue_end_reason reason;
            thue_player players[2];
            int points[2];
            thue_round_info rounds[2];
            int has_ratings;
            thue_rating_change ratings[2];
            int has_match_id;
            char match_id[THUE_PROTO_KEY_MAX + 1];
            int has_unrated_reason; /* a rated room's match that was not rated */
            thue_unrated_reason unrated_reason;
            /* Another game than Thue: its name, the reason as text, and the final state
             * instead of rounds (points are the game's scores). */
            int has_game;
            char game[THUE_PROTO_GAME_MAX + 1];
            char why[THUE_PROTO_KEY_MAX + 1];
            char state[THUE_PROTO_GSTATE_MAX + 1];
        } match_end;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            thue_player from;
            char text[THUE_PROTO_CHAT_MAX * 4 + 1];
            int64_t at;
            int spectator; /* from a spectator (written only when true) */
        } chat;
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
        } match_found;
        struct {
            /* Another game's pool: game, its canonical options and the pool's key
             * instead of variant and k. */
            int has_game;
            char game[THUE_PROTO_GAME_MAX + 1];
            char game_options[THUE_PROTO_GOPT_MAX + 1];
            char pool[THUE_PROTO_KEY_MAX + 1];
            thue_variant variant;
            int k;
            thue_ladder_kind kind;
            int offset, total;
            const thue_ladder_entry *entries;
            int nentries;
        } ladder;
        struct {
            int offset, total; /* the page's first index; how many match the filter */
            const thue_tournament_summary *list;
            int count;
        } tournaments;
        struct {
            thue_tournament_summary summary;
            int limit;
            thue_clock clock;
            const thue_player *entrants;
            int nentrants;
            const thue_standing *standings;
            int nstandings;
            const thue_tournament_round *round_list;
            int nrounds;
        } tournament;
        struct {
            char tournament[THUE_PROTO_KEY_MAX + 1];
        } tournament_created;
        struct {
            char tournament[THUE_PROTO_KEY_MAX + 1];
            char event[16]; /* joined, left, started, round_started, round_finished, finished,
                               expired */
            int round;      /* -1: null */
            const char (*rooms)[THUE_PROTO_KEY_MAX + 1];
            int nrooms;
        } tournament_event;
        struct {
            int code; /* why: server_busy, rate_limited or internal (a protocol code) */
            char message[THUE_PROTO_TEXT_MAX * 4 + 1];
        } queue_failed;
        struct {
            char analysis[THUE_PROTO_KEY_MAX + 1];
            char game[THUE_PROTO_GAME_MAX + 1];
            char game_options[THUE_PROTO_GOPT_MAX + 1];
            char position[THUE_PROTO_GSTATE_MAX + 1];
            int iterations, playout;
            double c;
            int64_t seed;
            int max_nodes;
        } analysis_started;
        struct {
            char analysis[THUE_PROTO_KEY_MAX + 1];
            int64_t seq;    /* 1, 2, ... */
            int status;     /* 0 running, 1 stopped, 2 done */
            int64_t iterations, nodes;
            int shown;
            int has_best;   /* best: null when 0 */
            char best[THUE_PROTO_GMOVE_MAX + 1];
            const char *tree; /* the root NODE object as compact JSON (any size) */
        } analysis_tree;
        struct {
            char reason[16]; /* room, session, match, tournament (section 17) */
            char node[THUE_PROTO_KEY_MAX + 1];
            char path[65]; /* "/n/NODE/ws": where to connect, on the same host and port */
            int has_room;
            char room[THUE_PROTO_KEY_MAX + 1];
            int has_tournament;
            char tournament[THUE_PROTO_KEY_MAX + 1];
            int has_resume; /* match: the resume token of the session made there for you */
            char resume[THUE_PROTO_RESUME_LEN + 1];
            char message[THUE_PROTO_TEXT_MAX * 4 + 1];
        } moved;
        /* The reply to get_legal_moves, and (hello's legal_moves) the message after each
         * room_state of a room with a match (PROTOCOL.md section 5). */
        struct {
            char room[THUE_PROTO_KEY_MAX + 1];
            int64_t version;                   /* the room_state's version it belongs to */
            char step[THUE_PROTO_KEY_MAX + 1]; /* "place", "paint", the game's, "over" */
            int to_move;                       /* the seat; -1: null (over) */
            int complete;                      /* 0: a cut list (Wythoff's big heaps) */
            const char *moves;                 /* a JSON array's compact text */
        } legal_moves;
        /* The reply to get_best_move (PROTOCOL.md section 16). */
        struct {
            char game[THUE_PROTO_GAME_MAX + 1];
            int to_move;  /* the player to move; -1: null (the position is over) */
            int has_move; /* move: null when 0 (over) */
            char move[THUE_PROTO_GMOVE_MAX + 1];
            int exact;      /* 1: the perfect bot decided; 0: a fallback move */
            int has_value;  /* value: null when 0 (over, undecided, or Thue) */
            int value;      /* -1, 0, 1 for the player to move */
            int has_points; /* Thue only: the painter's further points */
            int points;     /* exact, or (not exact) a lower bound */
            int64_t nodes;  /* positions searched */
            double ms;      /* the search's wall time */
        } best_move;
        /* thue.v2's event after a move: the move and what it changed (PROTOCOL.md,
         * "thue.v2"); the rest of the state follows from the previous one. */
        struct {
            int ref;         /* the room's ref (room_state's, under thue.v2) */
            int64_t version; /* the room's new version (the mover: the state's to_move) */
            char move[THUE_PROTO_GMOVE_MAX + 1]; /* the move's object (Thue: place/paint) */
            double think_ms;
            int to_move;     /* the seat to move now; -1: null (the match is over) */
            int has_points;  /* points: written only when the move changed them */
            int points[2];   /* each seat's points now */
            int has_clocks;  /* clocks: written only in a room with a clock */
            int64_t clocks[2];
            int has_thinking, thinking; /* a bot of this seat searches now */
            /* Thue: the round that this move ended (its end, and the repetition that
             * ended it); the next round, if any, starts from [0]. */
            int has_round_end;
            thue_round_end end;
            int has_repetition;
            thue_repetition repetition;
            int has_result; /* the match is over: winner (-1 a draw) and reason */
            int winner;
            char reason[THUE_PROTO_KEY_MAX + 1];
        } played;
        /* thue.v2: how many watch the room now (not a change of its version). */
        struct {
            int ref;
            int spectators;
        } watchers;
        /* thue.v2's analysis_delta: one part of an update of the shown tree (PROTOCOL.md
         * section 16, "Under thue.v2"). The header members are the update's, the same on
         * each of its parts; the lists are this part's share. */
        struct {
            char analysis[THUE_PROTO_KEY_MAX + 1];
            int64_t seq; /* the update's: 1, 2, ... per analysis */
            int part;    /* 1, 2, ... within the update */
            int last;    /* 1 on the update's last part: the tree is whole again */
            int full;    /* 1: the update is the whole tree (no `gone`) */
            int status;  /* 0 running, 1 stopped, 2 done */
            int64_t iterations, nodes;
            int shown;    /* 1..THUE_PROTO_ANALYSIS_NODES_MAX: nodes in the tree after it */
            int has_best; /* best: null when 0 */
            char best[THUE_PROTO_GMOVE_MAX + 1];
            const int64_t *gone; /* ids that left the shown tree */
            int ngone;
            const thue_analysis_add *add; /* nodes newly shown, each after its parent */
            int nadd;
            const thue_analysis_set *set; /* shown nodes whose figures changed */
            int nset;
        } analysis_delta;
    } u;
    void *owned; /* set by thue_msg_decode: the memory behind the pointers */
} thue_msg;

/* The JSON text of a server message (NULL when out of memory or when a member is out of
 * the range PROTOCOL.md allows; then err, if not NULL, says which). */
char *thue_msg_encode(const thue_msg *msg, thue_decode_error *err);

/* The members of a server message alone, for the server's HTTP API (its /api answers are
 * the messages' bodies): the canonical text of thue_msg_encode without `type` and `id`,
 * so "{\"rooms\":[...]}" for a rooms message. msg->id is not read. NULL as for
 * thue_msg_encode (an unknown type, a member out of range, out of memory). */
char *thue_msg_encode_members(const thue_msg *msg, thue_decode_error *err);

/*
 * Decodes a server message (for clients: the `thue` network commands, tests). Validation
 * as for commands; unknown members ignored; a message of an unknown type is
 * THUE_PERR_TYPE (a client should ignore it: it may come from a newer server). 0 and *out
 * filled (release with thue_msg_clear), or a negative code with *err filled.
 */
int thue_msg_decode(const char *text, size_t len, thue_msg *out, thue_decode_error *err);

/* Frees what thue_msg_decode allocated and zeroes `owned`; a no-op for a message filled by
 * the caller, provided it left `owned` NULL (start from a zeroed thue_msg). */
void thue_msg_clear(thue_msg *msg);

/* The canonical text of a number (PROTOCOL.md "The canonical form"): the fewest digits
 * that read back as d, laid out as JavaScript writes it ("0.5", "3", "1e-7"). d must be
 * finite; out gets at most THUE_PROTO_NUMBER_MAX bytes with the NUL; returns the length. */
#define THUE_PROTO_NUMBER_MAX 32
size_t thue_proto_number(double d, char out[THUE_PROTO_NUMBER_MAX]);

/* json_object_seed(0): call once before starting threads that use the codec (the
 * decoders also call it, which is harmless but not thread-safe the first time). */
void thue_codec_init(void);

#endif
