/*
 * errors.h: the engine's error codes.
 *
 * Every fallible engine call returns 0 (or a non-negative count) on success and a
 * negative THUE_E... code on failure; a call that fails changes nothing. The codes,
 * their stable wire names (sent to clients by the server, so never renamed) and their
 * messages come from the one list below.
 */
#ifndef THUE_ENGINE_ERRORS_H
#define THUE_ENGINE_ERRORS_H

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

typedef enum {
    THUE_OK = 0,
#define THUE__ERR_ENUM(name, value, wire, msg) THUE_##name = (value),
    THUE_ERRNO_MAP(THUE__ERR_ENUM)
#undef THUE__ERR_ENUM
} thue_error;

/* Human-readable message for an error code; "unknown error" for anything else.
 * Returns a static string. */
const char *thue_strerror(int err);

/* Stable snake_case name of an error code ("not_your_turn"); "unknown_error" for
 * anything not in the list, "ok" for 0. Returns a static string. */
const char *thue_err_name(int err);

#endif
