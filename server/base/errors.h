/*
 * errors.h: the engine's error codes.
 *
 * Every fallible engine call returns 0 (or a non-negative count) on success and a
 * negative THUE_E... code on failure; a call that fails changes nothing. The codes,
 * their stable wire names (sent to clients by the server, so never renamed) and their
 * messages come from the one list below.
 */
#ifndef THUE_BASE_ERRORS_H
#define THUE_BASE_ERRORS_H

/* X(NAME, value, "wire_name", "message") */
#define THUE_ERRNO_MAP(X)                                                                          \
    X(EINVAL, -1, "invalid_argument", "invalid argument")                                          \
    X(ENOMEM, -2, "out_of_memory", "out of memory")                                                \
    X(EWORD, -3, "bad_word", "not a word: use digits (0121) or comma-separated numbers (0,1,12)")  \
    X(ETOOLONG, -4, "word_too_long", "the word is longer than the engine accepts")                 \
    X(ESYMBOL, -5, "bad_symbol", "symbol out of range: symbols are 0..k-1")                        \
    X(EPOSITION, -6, "bad_position", "position out of range: positions are 0..n")                  \
    X(EK, -7, "bad_k", "k (the number of symbols) must be between 2 and 64")                       \
    X(ELIMIT, -8, "bad_limit", "the length limit must be between 1 and 10000")                     \
    X(EVARIANT, -9, "bad_variant", "the variant must be square or overlap")                        \
    X(EPLAYER, -10, "bad_player", "a player is 0 or 1")                                            \
    X(ETURN, -11, "not_your_turn", "it is not your turn")                                          \
    X(ESTEP, -12, "wrong_step", "wrong step: the builder places, the painter paints")              \
    X(EOVER, -13, "match_over", "the match is over")                                               \
    X(EREPEAT, -14, "has_repetition", "the word already contains a repetition")                    \
    X(EOPTIONS, -15, "bad_options", "the game's options are not valid")                            \
    X(EMOVE, -16, "bad_move", "the move is not of the game's shape")                               \
    X(EILLEGAL, -17, "illegal_move", "the rules do not allow that move")                           \
    X(ESTATE, -18, "bad_state", "not a valid position of the game")                                \
    X(ETOOBIG, -19, "too_big", "the position is beyond what the solver can decide")                \
    X(EGAME, -20, "unknown_game", "no such game")

/*
 * The protocol's error codes beyond the engine's: PROTOCOL.md section 10.
 * The engine's game codes (not_your_turn, wrong_step, bad_position, bad_symbol,
 * match_over) are sent with their engine names. X(NAME, value, "wire_name", "message").
 */
#define THUE_PROTO_ERRNO_MAP(X)                                                                    \
    X(JSON, -100, "bad_json", "not a JSON object in valid UTF-8")                                  \
    X(MESSAGE, -101, "bad_message", "a member is missing, of the wrong type or out of range")      \
    X(TYPE, -102, "unknown_type", "no client message has this type")                               \
    X(HELLO_FIRST, -103, "hello_first", "send hello first")                                        \
    X(ALREADY_HELLO, -104, "already_hello", "this connection has already said hello")              \
    X(PROTOCOL, -105, "bad_protocol", "this server speaks protocol version 1")                     \
    X(RESUME, -106, "bad_resume", "the resume token is unknown or has expired")                    \
    X(TOKEN, -107, "bad_token", "the account token is unknown")                                    \
    X(NAME, -108, "bad_name", "a name is 1..24 letters, digits, spaces, _, - or .")                \
    X(NAME_TAKEN, -109, "name_taken", "that name is in use")                                       \
    X(NO_ROOM, -110, "no_such_room", "no such room")                                               \
    X(INVITE, -111, "bad_invite", "the invite code does not match the room")                       \
    X(ROOM_FULL, -112, "room_full", "no free seat")                                                \
    X(NOT_IN_ROOM, -113, "not_in_room", "you are not in that room")                                \
    X(NOT_SEATED, -114, "not_seated", "you need a seat in the room for that")                      \
    X(SEATED, -115, "already_seated", "you already have a seat in that room")                      \
    X(NOT_RUNNING, -116, "not_running", "the room's match is not in a state that allows this")     \
    X(NOT_OVER, -117, "not_over", "the match is still running")                                    \
    X(TOO_MANY_ROOMS, -118, "too_many_rooms", "you have the maximum number of rooms")              \
    X(BOT, -119, "bad_bot", "the server does not accept that bot")                                 \
    X(CHAT, -120, "bad_chat", "a chat text is 1..200 characters without control characters")       \
    X(RATE, -121, "rate_limited", "too many messages: slow down")                                  \
    X(NOT_AVAILABLE, -122, "not_available", "the server does not offer this yet")                  \
    X(NO_TOURNAMENT, -123, "no_such_tournament", "no such tournament")                             \
    X(TOURNAMENT_CLOSED, -124, "tournament_closed", "the tournament is no longer open")            \
    X(NOT_ALLOWED, -125, "not_allowed", "you may not do that")                                     \
    X(BUSY, -126, "server_busy", "the server is at a limit; try again later")                      \
    X(INTERNAL, -127, "internal", "an error inside the server")                                    \
    X(NOT_FOUND, -128, "not_found", "no such analysis")                                            \
    X(BAD_PASSWORD, -129, "bad_password", "wrong name or password")

typedef enum {
#define THUE__PERR_ENUM(name, value, wire, msg) THUE_PERR_##name = (value),
    THUE_PROTO_ERRNO_MAP(THUE__PERR_ENUM)
#undef THUE__PERR_ENUM
} thue_proto_error;

/* The store's (server/store/): never sent to clients, which hear `internal` instead. */
#define THUE_STORE_ERRNO_MAP(X)                                                                    \
    X(STORE_EIO, -200, "store_failed", "the database failed (logged above)")                       \
    X(STORE_EEXISTS, -201, "store_name_exists", "the name is taken")                               \
    X(STORE_ECLOSED, -202, "store_closed", "the store is closing")                                 \
    X(STORE_EFENCED, -203, "store_fenced", "another node directs it now (its lease was taken)")

/* Every code of the project, from the three ranges: the engine's and the games' (-1..-99),
 * the protocol's (-100..-199) and the store's (-200..-299). */
#define THUE_ERRORS(X) THUE_ERRNO_MAP(X) THUE_PROTO_ERRNO_MAP(X) THUE_STORE_ERRNO_MAP(X)

typedef enum {
    THUE_OK = 0,
#define THUE__ERR_ENUM(name, value, wire, msg) THUE_##name = (value),
    THUE_ERRNO_MAP(THUE__ERR_ENUM)
#undef THUE__ERR_ENUM
#define THUE__STORE_ENUM(name, value, wire, msg) THUE_##name = (value),
        THUE_STORE_ERRNO_MAP(THUE__STORE_ENUM)
#undef THUE__STORE_ENUM
} thue_error;

/* Human-readable message for any code of THUE_ERRORS; "unknown error" for anything else.
 * Returns a static string. */
const char *thue_strerror(int err);

/* Stable snake_case name of any code of THUE_ERRORS ("not_your_turn"); "unknown_error"
 * for anything not in the list, "ok" for 0. Returns a static string. */
const char *thue_err_name(int err);

#endif
