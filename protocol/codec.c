/*
 * codec.c: PROTOCOL.md's messages between JSON text and the C types of codec.h.
 *
 * Files: codec.c describes the messages and holds the entry points and the names;
 * codec_io.c has the two-way member helpers (thue__io_*); codec_text.c the text-level
 * pieces (output buffer, escaping, number forms, string rules, the scan before parsing);
 * codec_unicode.c the letters and digits a player name may hold. codec_internal.h joins them.
 *
 * Design. Every message is described once, by a function that walks its members in the
 * order of PROTOCOL.md's tables (cmd_members, msg_members and the helpers they call). The
 * function runs in one of two directions over a thue__io context:
 *   - decoding: each thue__io_* helper looks its member up in the parsed jansson tree,
 *     checks type, range, length and characters, and stores the value (or the default);
 *   - encoding: each helper checks the struct's value against the same rule and writes it
 *     to the output buffer.
 * So decoding and encoding cannot disagree about a rule, and the canonical member order is
 * the order of the calls. The first failure stops everything: it records the member as a
 * JSON Pointer without the leading '/' ("clock/initial_ms", "players/1/name") and a
 * sentence "<member> must be <rule>" (or "<member> is missing: ..."); later helpers do
 * nothing. Messages of errors are ASCII and at most 200 characters, so a server can send a
 * decoding error back as it is.
 *
 * Parsing. A text goes through, in order: the size limit (client messages: 16384 bytes),
 * a linear scan that skips strings and refuses nesting deeper than 8 before jansson
 * recurses (codec_text.c; it also rewrites numbers jansson would refuse although they are
 * valid JSON, so that 2^63 or 1e400 give bad_message on their member, not bad_json), then
 * json_loadb with JSON_REJECT_DUPLICATES (a repeated key is bad_json) and JSON_ALLOW_NUL
 * (so "\u0000" is a control character in a string, refused by its member, as JSON Schema
 * would). A text that is not UTF-8, not JSON or not an object is bad_json. Then the `id`
 * is read first, so that every later error can echo it, then `type`: missing is
 * unknown_type (PROTOCOL.md section 10), not a string is bad_message, a string naming no
 * message of the direction is unknown_type; all with field "type". Unknown members are
 * never looked at. Integers must be JSON integers (jansson's json_integer): 3.0 and 1e2
 * are reals and refused where an integer is required.
 *
 * Writing. The encoder builds the text itself (codec_text.c) instead of json_dumps, for
 * two reasons: the member order must be the tables' order, and numbers must be the
 * canonical ones. Strings are escaped as JSON.stringify does (only " \ and U+0000..U+001F,
 * the latter as \b \f \n \r \t or \u00xx; non-ASCII is written as raw UTF-8, never
 * \u-escaped). Doubles get the fewest digits that read back as the same double, laid out
 * like JavaScript (whole numbers without a point, 1e+21 and up in exponent form). The
 * encoder refuses (NULL, err filled as for decoding) any value decoding would refuse:
 * out-of-range numbers, enums, unterminated or invalid strings, NaN, array counts.
 *
 * Rules across members, checked in both directions after the members they involve: hello
 * takes at most one of name, token and resume; a swiss tournament needs rounds; a bot's
 * name is a bot name (any 1..24 characters without control characters, "nested:1"), anyone else's a
 * player name; a seat has
 * a bot SPEC exactly when it is a bot; a round has its repetition exactly when it ended with
 * one and its final word exactly when it ended; a match that is over has no player to move
 * and a result, and only the painter's step has a `placed` position.
 *
 * Limits of the C types beyond PROTOCOL.md (a longer value is refused, both ways): an
 * error's message holds 1..200 code points (as goodbye's), its field 1..63 bytes;
 * integers without a stated range fit an int (those that count time or versions, 2^53-1). A key
 * containing "\u0000" is refused as bad_json (jansson cannot hold it).
 *
 * Ownership. A decoded thue_msg owns its arrays: each allocation is a thue__chunk on the
 * list in msg->owned, freed by thue_msg_clear; a failed decode frees them at once. A
 * thue_cmd has no pointers. Nothing here has state beyond one call: no globals,
 * thread-safe once jansson's hash seed is set (thue_codec_init).
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/codec.h"
#include "protocol/codec_internal.h"

/* ---- names ---------------------------------------------------------------------------- */

static const char *const cmd_names[THUE_CMD_COUNT] = {"hello",
                                                      "ping",
                                                      "claim_name",
                                                      "create_room",
                                                      "list_rooms",
                                                      "join",
                                                      "spectate",
                                                      "leave",
                                                      "seat_bot",
                                                      "ready",
                                                      "place",
                                                      "paint",
                                                      "resign",
                                                      "rematch",
                                                      "queue_join",
                                                      "queue_leave",
                                                      "chat",
                                                      "get_ladder",
                                                      "list_tournaments",
                                                      "get_tournament",
                                                      "create_tournament",
                                                      "join_tournament",
                                                      "leave_tournament",
                                                      "start_tournament",
                                                      "move",
                                                      "analyze",
                                                      "analyze_stop",
                                                      "analyze_resume",
                                                      "analyze_close",
                                                      "set_password",
                                                      "login",
                                                      "get_legal_moves",
                                                      "get_best_move",
                                                      "sync",
                                                      "analyze_sync"};

static const char *const msg_names[THUE_MSG_COUNT] = {
    "welcome",          "pong",        "ok",           "error",
    "goodbye",          "account",     "room_created", "rooms",
    "room_state",       "match_end",   "chat_message", "match_found",
    "ladder",           "tournaments", "tournament",   "tournament_created",
    "tournament_event", "queue_failed", "analysis_started", "analysis_tree", "moved",
    "legal_moves", "best_move", "played", "watchers", "analysis_delta"};

static const char *const variant_names[] = {"square", "overlap"};
static const char *const analysis_status_names[] = {"running", "stopped", "done"};
static const char *const first_names[] = {"random", "creator", "opponent"};
static const char *const status_names[] = {"waiting", "playing", "finished"};
static const char *const kind_names[] = {"guest", "account", "bot"};
static const char *const ladder_kind_names[] = {"all", "human", "bot"};
static const char *const format_names[] = {"round_robin", "swiss"};
static const char *const tstatus_names[] = {"open", "running", "finished"};
static const char *const step_names[] = {"place", "paint", "over"};
static const char *const round_end_names[] = {"playing", "repetition", "limit", "forfeit",
                                              "not_played"};
/* thue_end_reason: NONE (0) is no reason a message can carry. */
static const char *const reason_names[] = {NULL, "score", "resign", "timeout", "abandon"};
static const char *const unrated_names[] = {"too_short", "pair_limit", "bots"};
static const char *const move_kind_names[] = {"place", "paint"};
static const char *const pairing_names[] = {"1-0", "0-1", "1/2-1/2", "bye"};
static const char *const goodbye_names[] = {"replaced", "shutdown", "idle", "abuse", "slow"};
static const char *const moved_names[] = {"room", "session", "match", "tournament"};
static const char *const event_names[] = {"joined",         "left",     "started", "round_started",
                                          "round_finished", "finished", "expired"};

const char *thue_cmd_type_name(thue_cmd_type t)
{
    return thue__enum_name(cmd_names, THUE_CMD_COUNT, (int)t);
}

const char *thue_msg_type_name(thue_msg_type t)
{
    return thue__enum_name(msg_names, THUE_MSG_COUNT, (int)t);
}

const char *thue_first_builder_name(thue_first_builder f)
{
    return thue__enum_name(first_names, THUE__NELEM(first_names), (int)f);
}

const char *thue_room_status_name(thue_room_status s)
{
    return thue__enum_name(status_names, THUE__NELEM(status_names), (int)s);
}

const char *thue_player_kind_name(thue_player_kind k)
{
    return thue__enum_name(kind_names, THUE__NELEM(kind_names), (int)k);
}

const char *thue_ladder_kind_name(thue_ladder_kind k)
{
    return thue__enum_name(ladder_kind_names, THUE__NELEM(ladder_kind_names), (int)k);
}

const char *thue_tournament_format_name(thue_tournament_format f)
{
    return thue__enum_name(format_names, THUE__NELEM(format_names), (int)f);
}

/* ---- error codes ---------------------------------------------------------------------- */

static const char *proto_name(int err)
{
    switch (err) {
#define THUE__PERR_NAME(name, value, wire, msg)                                                    \
    case value:                                                                                    \
        return wire;
        THUE_PROTO_ERRNO_MAP(THUE__PERR_NAME)
#undef THUE__PERR_NAME
    default:
        return NULL;
    }
}

static const char *proto_msg(int err)
{
    switch (err) {
#define THUE__PERR_MSG(name, value, wire, msg)                                                     \
    case value:                                                                                    \
        return msg;
        THUE_PROTO_ERRNO_MAP(THUE__PERR_MSG)
#undef THUE__PERR_MSG
    default:
        return NULL;
    }
}

/* 1 for the engine's codes (base/errors.h). */
static int engine_code(int err)
{
    switch (err) {
#define THUE__ERR_CASE(name, value, wire, msg) case value:
        THUE_ERRNO_MAP(THUE__ERR_CASE)
#undef THUE__ERR_CASE
        return 1;
    default:
        return 0;
    }
}

const char *thue_proto_err_name(int err)
{
    const char *s = proto_name(err);
    if (s != NULL)
        return s;
    return engine_code(err) ? thue_err_name(err) : proto_name(THUE_PERR_INTERNAL);
}

const char *thue_proto_strerror(int err)
{
    const char *s = proto_msg(err);
    if (s != NULL)
        return s;
    return engine_code(err) ? thue_strerror(err) : proto_msg(THUE_PERR_INTERNAL);
}

int thue_proto_err_code(const char *wire_name)
{
    if (wire_name == NULL)
        return 0;
#define THUE__PERR_CODE(name, value, wire, msg)                                                    \
    if (strcmp(wire_name, wire) == 0)                                                              \
        return value;
    THUE_PROTO_ERRNO_MAP(THUE__PERR_CODE)
#undef THUE__PERR_CODE
#define THUE__ERR_CODE(name, value, wire, msg)                                                     \
    if (strcmp(wire_name, wire) == 0)                                                              \
        return value;
    THUE_ERRNO_MAP(THUE__ERR_CODE)
#undef THUE__ERR_CODE
    return 0;
}

void thue_codec_init(void)
{
    json_object_seed(0);
}

/* ---- pieces shared by messages -------------------------------------------------------- */

/* A clock object: THUE__OPT in commands, THUE__NULL in server messages. */
static void io_clock(thue__io *o, const char *key, int mode, thue_clock *c)
{
    if (thue__io_objm(o, key, mode, &c->present)) {
        thue__io_i64(o, "initial_ms", &c->initial_ms, 1000, 86400000);
        thue__io_i64(o, "increment_ms", &c->increment_ms, 0, 600000);
        thue__io_end(o);
    }
}

/* `name` and `kind` of a player object (or a ladder entry). A bot name is the server's
 * name for a bot, usually its SPEC ("nested:1", which no player name can be): any 1..24
 * characters without control characters. Guests' and accounts' names are player names. */
static void player_members(thue__io *o, thue_player *p)
{
    IO_STR(o, "name", p->name, THUE__S_ANYNAME);
    IO_ENUM(o, "kind", p->kind, kind_names);
    if (o->code == 0 && p->kind != THUE_KIND_BOT &&
        !thue__str_ok(THUE__S_NAME, p->name, strlen(p->name)))
        thue__io_bad_member(o, "name", thue__str_rule_text(THUE__S_NAME));
}

/* A player object; THUE__REQ, or THUE__NULL with *has (a free seat). */
static void io_player(thue__io *o, const char *key, int mode, int *has, thue_player *p)
{
    if (thue__io_objm(o, key, mode, has)) {
        player_members(o, p);
        thue__io_end(o);
    }
}

static void io_int_pair(thue__io *o, const char *key, int *v, int min, int max)
{
    if (thue__io_arr(o, key, 2)) {
        thue__io_int(o, NULL, &v[0], min, max);
        thue__io_int(o, NULL, &v[1], min, max);
        thue__io_end(o);
    }
}

/* A list of room ids. */
static void io_keys(thue__io *o, const char *key, const char (**list)[THUE_PROTO_KEY_MAX + 1],
                    int *count)
{
    void *mem;
    int n = thue__io_list(o, key, THUE__REQ, *list, count, sizeof **list, 0, INT_MAX, &mem);
    if (n < 0)
        return;
    char(*k)[THUE_PROTO_KEY_MAX + 1] = mem;
    for (int i = 0; i < n; i++)
        IO_STR(o, NULL, k[i], THUE__S_KEY);
    thue__io_end(o);
    if (!o->enc && o->code == 0)
        *list = (const char(*)[THUE_PROTO_KEY_MAX + 1]) k;
}

/* winner and reason of a match result. */
static void io_result(thue__io *o, const char *key, int mode, int *has, int *winner,
                      thue_end_reason *reason)
{
    if (thue__io_objm(o, key, mode, has)) {
        thue__io_int_nullv(o, "winner", winner, 0, 1);
        IO_ENUM(o, "reason", *reason, reason_names);
        thue__io_end(o);
    }
}

/* Another game's result: the winner and the reason as text (the game's own, such as
 * "no_moves", or a forfeit's). */
static void io_gresult(thue__io *o, const char *key, int mode, int *has, int *winner, char *why,
                       size_t cap)
{
    if (thue__io_objm(o, key, mode, has)) {
        thue__io_int_nullv(o, "winner", winner, 0, 1);
        thue__io_str(o, "reason", THUE__REQ, NULL, why, cap, THUE__S_KEY);
        thue__io_end(o);
    }
}

/* Which game: absent for Thue. */
static void io_game(thue__io *o, int *has, char *game, size_t cap)
{
    thue__io_str(o, "game", THUE__OPT, has, game, cap, THUE__S_KEY);
}

/* Whether a command's game member names another game than Thue: then Thue's variant and
 * k are not asked for ("game":"thue" asks for them as no game does). */
static int is_other_game(int has_game, const char *game)
{
    return has_game && strcmp(game, "thue") != 0;
}

/* A round object. Across members: the repetition is given exactly when the round ended
 * with one, and the final word exactly when the round ended (not playing, not_played). */
static void round_members(thue__io *o, thue_round_info *r)
{
    thue__io_int(o, "builder", &r->builder, 0, 1);
    thue__io_int(o, "points", &r->points, 0, INT_MAX);
    IO_ENUM(o, "end", r->end, round_end_names);
    if (thue__io_objm(o, "repetition", THUE__NULL, &r->has_repetition)) {
        thue__io_int(o, "start", &r->repetition.start, 0, INT_MAX);
        thue__io_int(o, "period", &r->repetition.period, 1, INT_MAX);
        thue__io_int(o, "length", &r->repetition.length, 2, INT_MAX);
        thue__io_end(o);
    }
    thue__io_word(o, "word", THUE__NULL, &r->word, &r->word_len);
    if (o->code != 0)
        return;
    if ((r->end == THUE_ROUND_REPETITION) != (r->has_repetition != 0))
        thue__io_bad_member(o, "repetition",
                            "an object when end is \"repetition\", and null otherwise");
    int ended = r->end != THUE_ROUND_PLAYING && r->end != THUE_ROUND_NOT_PLAYED;
    if (ended != (r->word != NULL))
        thue__io_bad_member(o, "word",
                            "null when end is \"playing\" or \"not_played\", and a word otherwise");
}

static void io_rounds(thue__io *o, const char *key, thue_round_info *r)
{
    if (thue__io_arr(o, key, 2)) {
        for (int i = 0; i < 2; i++) {
            if (thue__io_obj(o, NULL)) {
                round_members(o, &r[i]);
                thue__io_end(o);
            }
        }
        thue__io_end(o);
    }
}

/* ---- client commands ------------------------------------------------------------------ */

/* Decoding: refuses every member of the current object not named in keys (NULL-ended;
 * type and id are always allowed), naming the first such member. The analysis commands
 * refuse what they do not know (PROTOCOL.md "Analysis"), unlike the older commands. */
static void only_members(thue__io *o, const char *cmd, const char *const *keys)
{
    if (o->enc || o->code != 0)
        return;
    const char *k;
    json_t *v;
    json_object_foreach(o->cur, k, v) {
        (void)v;
        int known = strcmp(k, "type") == 0 || strcmp(k, "id") == 0;
        for (int i = 0; !known && keys[i] != NULL; i++)
            known = strcmp(k, keys[i]) == 0;
        if (!known) {
            char field[48];
            snprintf(field, sizeof field, "%.40s", k);
            if (thue__str_ok(THUE__S_ID, k, strlen(k)))
                thue__io_fail(o, THUE_PERR_MESSAGE, field, "%s has no member \"%s\"", cmd, k);
            else
                thue__io_fail(o, THUE_PERR_MESSAGE, "", "%s has an unknown member", cmd);
            return;
        }
    }
}

/* Whether an optional member is there: given (encoding: *has), or present (decoding). */
static int present(thue__io *o, const char *key, int *has)
{
    if (o->code != 0)
        return 0;
    if (o->enc)
        return *has;
    *has = json_object_get(o->cur, key) != NULL;
    return *has;
}

static void analyze_members(thue__io *o, thue_cmd *c)
{
    static const char *const keys[] = {"room",    "game", "game_options", "position", "iterations",
                                       "playout", "c",    "seed",         "max_nodes", NULL};
    only_members(o, "analyze", keys);
    IO_STR_OPT(o, "room", &c->u.analyze.has_room, c->u.analyze.room, THUE__S_KEY);
    io_game(o, &c->u.analyze.has_game, c->u.analyze.game, sizeof c->u.analyze.game);
    thue__io_raw(o, "game_options", THUE__OPT, &c->u.analyze.has_game_options,
                 c->u.analyze.game_options, sizeof c->u.analyze.game_options);
    thue__io_raw(o, "position", THUE__OPT, &c->u.analyze.has_position, c->u.analyze.position,
                 sizeof c->u.analyze.position);
    thue__io_int_opt(o, "iterations", &c->u.analyze.has_iterations, &c->u.analyze.iterations, 1,
                     THUE_PROTO_ANALYSIS_ITERATIONS_MAX);
    thue__io_int_opt(o, "playout", &c->u.analyze.has_playout, &c->u.analyze.playout, 1, 100000);
    if (present(o, "c", &c->u.analyze.has_c)) {
        thue__io_dbl(o, "c", &c->u.analyze.c, 0);
        if (o->code == 0 && !(c->u.analyze.c <= 1000))
            thue__io_fail(o, THUE_PERR_MESSAGE, "c", "c must be a number from 0 to 1000");
    }
    if (present(o, "seed", &c->u.analyze.has_seed))
        thue__io_i64(o, "seed", &c->u.analyze.seed, 0, THUE__JS_INT_MAX);
    thue__io_int_opt(o, "max_nodes", &c->u.analyze.has_max_nodes, &c->u.analyze.max_nodes, 1,
                     THUE_PROTO_ANALYSIS_NODES_MAX);
    if (o->code != 0)
        return;
    /* The source: a room, or a game; options and position belong to a game. */
    if (c->u.analyze.has_room && c->u.analyze.has_game)
        thue__io_fail(o, THUE_PERR_MESSAGE, "game",
                      "analyze takes either room or game, not both");
    else if (!c->u.analyze.has_room && !c->u.analyze.has_game)
        thue__io_fail(o, THUE_PERR_MESSAGE, "game",
                      "analyze needs a source: room, or game (with game_options and position)");
    else if (c->u.analyze.has_room && c->u.analyze.has_game_options)
        thue__io_fail(o, THUE_PERR_MESSAGE, "game_options",
                      "game_options goes with game, not with room");
    else if (c->u.analyze.has_room && c->u.analyze.has_position)
        thue__io_fail(o, THUE_PERR_MESSAGE, "position", "position goes with game, not with room");
}

static void cmd_members(thue__io *o, thue_cmd *c)
{
    switch (c->type) {
    case THUE_CMD_HELLO: {
        thue__io_int(o, "protocol", &c->u.hello.protocol, INT_MIN, INT_MAX);
        IO_STR_OPT(o, "name", &c->u.hello.has_name, c->u.hello.name, THUE__S_NAME);
        IO_STR_OPT(o, "token", &c->u.hello.has_token, c->u.hello.token, THUE__S_TOKEN);
        IO_STR_OPT(o, "resume", &c->u.hello.has_resume, c->u.hello.resume, THUE__S_RESUME);
        if (!o->enc || c->u.hello.legal_moves) /* written only when true */
            thue__io_bool_def(o, "legal_moves", &c->u.hello.legal_moves, 0);
        if (o->code == 0 && (c->u.hello.has_name != 0) + (c->u.hello.has_token != 0) +
                                    (c->u.hello.has_resume != 0) >
                                1)
            thue__io_fail(o, THUE_PERR_MESSAGE,
                          c->u.hello.has_name && c->u.hello.has_token ? "token" : "resume",
                          "at most one of name, token and resume may be given");
        break;
    }
    case THUE_CMD_PING:
    case THUE_CMD_QUEUE_LEAVE:
    case THUE_CMD_COUNT:
        break;
    case THUE_CMD_LIST_TOURNAMENTS:
        thue__io_enum(o, "status", THUE__OPT, &c->u.list_tournaments.has_status,
                      &c->u.list_tournaments.status, tstatus_names, THUE__NELEM(tstatus_names), 0);
        thue__io_int_def(o, "offset", &c->u.list_tournaments.offset, 0, 100000, 0);
        thue__io_int_def(o, "count", &c->u.list_tournaments.count, 1, 200, 50);
        break;
    case THUE_CMD_CLAIM_NAME:
        IO_STR(o, "name", c->u.claim_name.name, THUE__S_NAME);
        break;
    /* Passwords: a failure names the member and its rule, never the value. */
    case THUE_CMD_SET_PASSWORD:
        IO_STR(o, "password", c->u.set_password.password, THUE__S_PASSWORD);
        IO_STR_OPT(o, "old_password", &c->u.set_password.has_old, c->u.set_password.old_password,
                   THUE__S_SECRET);
        break;
    case THUE_CMD_LOGIN:
        IO_STR(o, "name", c->u.login.name, THUE__S_NAME);
        IO_STR(o, "password", c->u.login.password, THUE__S_SECRET);
        break;
    case THUE_CMD_CREATE_ROOM: {
        IO_ENUM_DEF(o, "variant", c->u.create_room.variant, variant_names, THUE_SQUARE);
        thue__io_int_def(o, "k", &c->u.create_room.k, 2, 64, 3);
        thue__io_int_def(o, "limit", &c->u.create_room.limit, THUE_LIMIT_MIN, THUE_LIMIT_MAX,
                         THUE_LIMIT_DEFAULT);
        io_clock(o, "clock", THUE__OPT, &c->u.create_room.clock);
        IO_ENUM_DEF(o, "first_builder", c->u.create_room.first, first_names, THUE_FIRST_RANDOM);
        thue__io_bool_def(o, "rated", &c->u.create_room.rated, 0);
        thue__io_bool_def(o, "private", &c->u.create_room.is_private, 0);
        IO_STR_OPT(o, "name", &c->u.create_room.has_name, c->u.create_room.name, THUE__S_TITLE);
        thue__io_bool_def(o, "seat", &c->u.create_room.seat, 1);
        if (!o->enc || c->u.create_room.auto_start) /* written only when true, so that the
                                                       canonical text of older messages
                                                       stays as it was */
            thue__io_bool_def(o, "auto_start", &c->u.create_room.auto_start, 0);
        io_game(o, &c->u.create_room.has_game, c->u.create_room.game, sizeof c->u.create_room.game);
        thue__io_raw(o, "game_options", THUE__OPT, &c->u.create_room.has_game_options,
                     c->u.create_room.game_options, sizeof c->u.create_room.game_options);
        break;
    }
    case THUE_CMD_LIST_ROOMS: {
        IO_ENUM_OPT(o, "variant", &c->u.list_rooms.has_variant, c->u.list_rooms.variant,
                    variant_names);
        thue__io_int_opt(o, "k", &c->u.list_rooms.has_k, &c->u.list_rooms.k, 2, 64);
        IO_ENUM_OPT(o, "status", &c->u.list_rooms.has_status, c->u.list_rooms.status, status_names);
        io_game(o, &c->u.list_rooms.has_game, c->u.list_rooms.game, sizeof c->u.list_rooms.game);
        break;
    }
    case THUE_CMD_JOIN:
    case THUE_CMD_SPECTATE:
    case THUE_CMD_LEAVE:
    case THUE_CMD_GET_LEGAL_MOVES:
    case THUE_CMD_SYNC:
    case THUE_CMD_READY:
    case THUE_CMD_RESIGN:
    case THUE_CMD_REMATCH: {
        IO_STR(o, "room", c->u.room.room, THUE__S_KEY);
        if (c->type == THUE_CMD_JOIN || c->type == THUE_CMD_SPECTATE)
            IO_STR_OPT(o, "invite", &c->u.room.has_invite, c->u.room.invite, THUE__S_KEY);
        if (c->type == THUE_CMD_JOIN)
            thue__io_int_opt(o, "seat", &c->u.room.has_seat, &c->u.room.seat, 0, 1);
        break;
    }
    case THUE_CMD_SEAT_BOT: {
        IO_STR(o, "room", c->u.seat_bot.room, THUE__S_KEY);
        IO_STR(o, "bot", c->u.seat_bot.bot, THUE__S_SPEC);
        thue__io_int_def(o, "think_ms", &c->u.seat_bot.think_ms, 10, 60000, 2000);
        thue__io_int_opt(o, "seat", &c->u.seat_bot.has_seat, &c->u.seat_bot.seat, 0, 1);
        break;
    }
    case THUE_CMD_PLACE:
    case THUE_CMD_PAINT: {
        int place = c->type == THUE_CMD_PLACE;
        IO_STR(o, "room", c->u.move.room, THUE__S_KEY);
        thue__io_int(o, place ? "position" : "symbol", &c->u.move.value, 0,
                     place ? THUE_LIMIT_MAX : 63);
        break;
    }
    case THUE_CMD_ANALYZE:
        analyze_members(o, c);
        break;
    case THUE_CMD_GET_BEST_MOVE: {
        static const char *const keys[] = {"game", "game_options", "position", NULL};
        only_members(o, "get_best_move", keys);
        IO_STR(o, "game", c->u.best_move.game, THUE__S_KEY);
        thue__io_raw(o, "game_options", THUE__OPT, &c->u.best_move.has_game_options,
                     c->u.best_move.game_options, sizeof c->u.best_move.game_options);
        thue__io_raw(o, "position", THUE__OPT, &c->u.best_move.has_position,
                     c->u.best_move.position, sizeof c->u.best_move.position);
        break;
    }
    case THUE_CMD_ANALYZE_STOP:
    case THUE_CMD_ANALYZE_CLOSE:
    case THUE_CMD_ANALYZE_SYNC: {
        static const char *const keys[] = {"analysis", NULL};
        only_members(o, thue_cmd_type_name(c->type), keys);
        IO_STR(o, "analysis", c->u.analysis.analysis, THUE__S_KEY);
        break;
    }
    case THUE_CMD_ANALYZE_RESUME: {
        static const char *const keys[] = {"analysis", "iterations", NULL};
        only_members(o, "analyze_resume", keys);
        IO_STR(o, "analysis", c->u.analysis.analysis, THUE__S_KEY);
        thue__io_int_opt(o, "iterations", &c->u.analysis.has_iterations,
                         &c->u.analysis.iterations, 1, THUE_PROTO_ANALYSIS_ITERATIONS_MAX);
        break;
    }
    case THUE_CMD_MOVE:
        IO_STR(o, "room", c->u.gmove.room, THUE__S_KEY);
        thue__io_raw(o, "move", THUE__REQ, NULL, c->u.gmove.move, sizeof c->u.gmove.move);
        break;
    case THUE_CMD_QUEUE_JOIN: {
        /* Another game names itself first; Thue's variant and k are then not asked. */
        io_game(o, &c->u.queue_join.has_game, c->u.queue_join.game, sizeof c->u.queue_join.game);
        thue__io_raw(o, "game_options", THUE__OPT, &c->u.queue_join.has_game_options,
                     c->u.queue_join.game_options, sizeof c->u.queue_join.game_options);
        if (!is_other_game(c->u.queue_join.has_game, c->u.queue_join.game)) {
            IO_ENUM(o, "variant", c->u.queue_join.variant, variant_names);
            thue__io_int(o, "k", &c->u.queue_join.k, 2, 64);
        }
        thue__io_int_def(o, "limit", &c->u.queue_join.limit, THUE_LIMIT_MIN, THUE_LIMIT_MAX,
                         THUE_LIMIT_DEFAULT);
        io_clock(o, "clock", THUE__OPT, &c->u.queue_join.clock);
        thue__io_bool_def(o, "rated", &c->u.queue_join.rated, 0);
        thue__io_int_def(o, "bot_after_s", &c->u.queue_join.bot_after_s, 0, 600, 0);
        break;
    }
    case THUE_CMD_CHAT:
        IO_STR(o, "room", c->u.chat.room, THUE__S_KEY);
        IO_STR(o, "text", c->u.chat.text, THUE__S_CHAT);
        break;
    case THUE_CMD_GET_LADDER: {
        io_game(o, &c->u.get_ladder.has_game, c->u.get_ladder.game, sizeof c->u.get_ladder.game);
        thue__io_raw(o, "game_options", THUE__OPT, &c->u.get_ladder.has_game_options,
                     c->u.get_ladder.game_options, sizeof c->u.get_ladder.game_options);
        if (!is_other_game(c->u.get_ladder.has_game, c->u.get_ladder.game)) {
            IO_ENUM(o, "variant", c->u.get_ladder.variant, variant_names);
            thue__io_int(o, "k", &c->u.get_ladder.k, 2, 64);
        }
        IO_ENUM_DEF(o, "kind", c->u.get_ladder.kind, ladder_kind_names, THUE_LADDER_ALL);
        thue__io_int_def(o, "offset", &c->u.get_ladder.offset, 0, 100000, 0);
        thue__io_int_def(o, "count", &c->u.get_ladder.count, 1, 200, 50);
        break;
    }
    case THUE_CMD_GET_TOURNAMENT:
    case THUE_CMD_START_TOURNAMENT:
    case THUE_CMD_JOIN_TOURNAMENT:
    case THUE_CMD_LEAVE_TOURNAMENT: {
        IO_STR(o, "tournament", c->u.tournament.tournament, THUE__S_KEY);
        if (c->type == THUE_CMD_JOIN_TOURNAMENT || c->type == THUE_CMD_LEAVE_TOURNAMENT)
            IO_STR_OPT(o, "bot", &c->u.tournament.has_bot, c->u.tournament.bot, THUE__S_SPEC);
        break;
    }
    case THUE_CMD_CREATE_TOURNAMENT: {
        IO_STR(o, "name", c->u.create_tournament.name, THUE__S_TITLE);
        IO_ENUM(o, "format", c->u.create_tournament.format, format_names);
        io_game(o, &c->u.create_tournament.has_game, c->u.create_tournament.game,
                sizeof c->u.create_tournament.game);
        thue__io_raw(o, "game_options", THUE__OPT, &c->u.create_tournament.has_game_options,
                     c->u.create_tournament.game_options,
                     sizeof c->u.create_tournament.game_options);
        if (!is_other_game(c->u.create_tournament.has_game, c->u.create_tournament.game)) {
            IO_ENUM(o, "variant", c->u.create_tournament.variant, variant_names);
            thue__io_int(o, "k", &c->u.create_tournament.k, 2, 64);
        }
        thue__io_int_def(o, "limit", &c->u.create_tournament.limit, THUE_LIMIT_MIN, THUE_LIMIT_MAX,
                         THUE_LIMIT_DEFAULT);
        io_clock(o, "clock", THUE__OPT, &c->u.create_tournament.clock);
        thue__io_int_opt(o, "rounds", &c->u.create_tournament.has_rounds,
                         &c->u.create_tournament.rounds, 1, 50);
        thue__io_int(o, "max_players", &c->u.create_tournament.max_players, 2, 256);
        if (o->code == 0 && c->u.create_tournament.format == THUE_FORMAT_SWISS &&
            !c->u.create_tournament.has_rounds)
            thue__io_fail(o, THUE_PERR_MESSAGE, "rounds",
                          "rounds is missing: a swiss tournament needs it, an integer between 1 "
                          "and 50");
        break;
    }
    }
}

/* ---- server messages ------------------------------------------------------------------ */

static int msg_is_event(thue_msg_type t)
{
    return t == THUE_MSG_GOODBYE || t == THUE_MSG_ROOM_STATE || t == THUE_MSG_MATCH_END ||
           t == THUE_MSG_CHAT_MESSAGE || t == THUE_MSG_MATCH_FOUND ||
           t == THUE_MSG_TOURNAMENT_EVENT || t == THUE_MSG_QUEUE_FAILED ||
           t == THUE_MSG_ANALYSIS_TREE || t == THUE_MSG_PLAYED || t == THUE_MSG_WATCHERS ||
           t == THUE_MSG_ANALYSIS_DELTA;
}

static void room_summary_members(thue__io *o, thue_room_summary *s)
{
    IO_STR(o, "room", s->room, THUE__S_KEY);
    IO_STR(o, "name", s->name, THUE__S_TITLE);
    io_game(o, &s->has_game, s->game, sizeof s->game);
    if (s->has_game) {
        thue__io_raw(o, "game_options", THUE__REQ, NULL, s->game_options, sizeof s->game_options);
    } else {
        IO_ENUM(o, "variant", s->variant, variant_names);
        thue__io_int(o, "k", &s->k, 2, 64);
        thue__io_int(o, "limit", &s->limit, THUE_LIMIT_MIN, THUE_LIMIT_MAX);
    }
    io_clock(o, "clock", THUE__NULL, &s->clock);
    thue__io_bool(o, "rated", &s->rated);
    IO_ENUM(o, "status", s->status, status_names);
    if (thue__io_arr(o, "players", 2)) {
        for (int i = 0; i < 2; i++)
            io_player(o, NULL, THUE__NULL, &s->has_player[i], &s->players[i]);
        thue__io_end(o);
    }
    thue__io_int(o, "spectators", &s->spectators, 0, INT_MAX);
}

static void options_members(thue__io *o, thue_room_options *op)
{
    io_game(o, &op->has_game, op->game, sizeof op->game);
    if (op->has_game) {
        thue__io_raw(o, "game_options", THUE__REQ, NULL, op->game_options, sizeof op->game_options);
    } else {
        IO_ENUM(o, "variant", op->variant, variant_names);
        thue__io_int(o, "k", &op->k, 2, 64);
        thue__io_int(o, "limit", &op->limit, THUE_LIMIT_MIN, THUE_LIMIT_MAX);
    }
    io_clock(o, "clock", THUE__NULL, &op->clock);
    thue__io_bool(o, "rated", &op->rated);
    thue__io_bool(o, "private", &op->is_private);
    IO_ENUM(o, "first_builder", op->first, first_names);
    if (!o->enc || op->auto_start) /* written only when true: absent means false */
        thue__io_bool_def(o, "auto_start", &op->auto_start, 0);
}

static void seat_members(thue__io *o, thue_seat *s)
{
    player_members(o, &s->player);
    IO_STR_NULL(o, "bot", &s->has_bot, s->bot, THUE__S_SPEC);
    thue__io_bool(o, "connected", &s->connected);
    thue__io_bool(o, "ready", &s->ready);
    thue__io_dblm(o, "rating", THUE__NULL, &s->has_rating, &s->rating, -HUGE_VAL);
    if (!o->enc || s->rematch) /* written only when true: absent means false */
        thue__io_bool_def(o, "rematch", &s->rematch, 0);
    thue__io_int_opt(o, "away_left_ms", &s->has_away, &s->away_left_ms, 0, INT_MAX);
    if (o->code == 0 && (s->player.kind == THUE_KIND_BOT) != (s->has_bot != 0))
        thue__io_bad_member(o, "bot", "a bot SPEC for a bot, and null for anyone else");
}

/* A match's clocks (each seat's ms left, or null) and whose clock runs. */
static void io_clocks(thue__io *o, thue_match_info *m)
{
    if (thue__io_arrm(o, "clocks", THUE__NULL, &m->has_clocks, 2)) {
        thue__io_i64(o, NULL, &m->clocks[0], 0, THUE__JS_INT_MAX);
        thue__io_i64(o, NULL, &m->clocks[1], 0, THUE__JS_INT_MAX);
        thue__io_end(o);
    }
    thue__io_int_nullv(o, "clock_running", &m->clock_running, 0, 1);
}

/* The match object of another game than Thue: the envelope's members, the game's state
 * and last move as its own objects. */
static void match_members(thue__io *o, thue_match_info *m)
{
    thue__io_int(o, "number", &m->number, 1, INT_MAX);
    thue__io_int(o, "round", &m->round, 0, 1);
    thue__io_int(o, "builder", &m->builder, 0, 1);
    thue__io_int(o, "painter", &m->painter, 0, 1);
    IO_ENUM(o, "step", m->step, step_names);
    thue__io_int_nullv(o, "to_move", &m->to_move, 0, 1);
    thue__io_word(o, "word", THUE__REQ, &m->word, &m->word_len);
    thue__io_int_nullv(o, "placed", &m->placed, 0, THUE_LIMIT_MAX);
    io_rounds(o, "rounds", m->rounds);
    io_int_pair(o, "points", m->points, 0, INT_MAX);
    io_clocks(o, m);
    thue_last_move *lm = &m->last_move;
    if (thue__io_objm(o, "last_move", THUE__NULL, &lm->present)) {
        thue__io_int(o, "seat", &lm->seat, 0, 1);
        thue__io_enum(o, "kind", THUE__REQ, NULL, &lm->is_paint, move_kind_names,
                      THUE__NELEM(move_kind_names), 0);
        thue__io_int(o, "value", &lm->value, 0, THUE_LIMIT_MAX);
        thue__io_dbl(o, "think_ms", &lm->think_ms, 0);
        thue__io_end(o);
    }
    thue__io_int_nullv(o, "thinking", &m->thinking, 0, 1);
    io_result(o, "result", THUE__NULL, &m->has_result, &m->winner, &m->reason);
    if (o->code != 0)
        return;
    /* Across members: a step to take has a player to take it; an ended match a result;
     * the painter's step the position the builder chose. */
    int over = m->step == THUE_STEP_OVER;
    if (over != (m->to_move == -1))
        thue__io_bad_member(o, "to_move", "null when step is \"over\", and a seat otherwise");
    else if (over != (m->has_result != 0))
        thue__io_bad_member(o, "result", "an object when step is \"over\", and null otherwise");
    else if ((m->step == THUE_STEP_PAINT) != (m->placed != -1))
        thue__io_bad_member(o, "placed", "a position when step is \"paint\", and null otherwise");
}

static void gmatch_members(thue__io *o, thue_match_info *m)
{
    thue__io_int(o, "number", &m->number, 1, INT_MAX);
    thue__io_int(o, "first", &m->first, 0, 1);
    thue__io_str(o, "step", THUE__REQ, NULL, m->gstep, sizeof m->gstep, THUE__S_KEY);
    thue__io_int_nullv(o, "to_move", &m->to_move, 0, 1);
    thue__io_raw(o, "state", THUE__REQ, NULL, m->state, sizeof m->state);
    thue__io_int(o, "moves", &m->moves, 0, INT_MAX);
    io_int_pair(o, "points", m->points, 0, INT_MAX);
    io_clocks(o, m);
    thue_last_move *lm = &m->last_move;
    if (thue__io_objm(o, "last_move", THUE__NULL, &lm->present)) {
        thue__io_int(o, "seat", &lm->seat, 0, 1);
        thue__io_raw(o, "move", THUE__REQ, NULL, m->last_gmove, sizeof m->last_gmove);
        thue__io_dbl(o, "think_ms", &lm->think_ms, 0);
        thue__io_end(o);
    }
    thue__io_int_nullv(o, "thinking", &m->thinking, 0, 1);
    io_gresult(o, "result", THUE__NULL, &m->has_result, &m->winner, m->why, sizeof m->why);
    if (o->code != 0)
        return;
    int over = strcmp(m->gstep, "over") == 0;
    if (over != (m->to_move == -1))
        thue__io_bad_member(o, "to_move", "null when step is \"over\", and a seat otherwise");
    else if (over != (m->has_result != 0))
        thue__io_bad_member(o, "result", "an object when step is \"over\", and null otherwise");
}

static void tsummary_members(thue__io *o, thue_tournament_summary *t)
{
    IO_STR(o, "tournament", t->tournament, THUE__S_KEY);
    IO_STR(o, "name", t->name, THUE__S_TITLE);
    IO_ENUM(o, "format", t->format, format_names);
    io_game(o, &t->has_game, t->game, sizeof t->game);
    if (t->has_game) {
        thue__io_raw(o, "game_options", THUE__REQ, NULL, t->game_options, sizeof t->game_options);
    } else {
        IO_ENUM(o, "variant", t->variant, variant_names);
        thue__io_int(o, "k", &t->k, 2, 64);
    }
    thue__io_enum(o, "status", THUE__REQ, NULL, &t->status, tstatus_names,
                  THUE__NELEM(tstatus_names), 0);
    thue__io_int(o, "players", &t->players, 0, INT_MAX);
    thue__io_int(o, "max_players", &t->max_players, 2, 256);
    thue__io_int(o, "round", &t->round, 0, INT_MAX);
    thue__io_int(o, "rounds", &t->rounds, 0, INT_MAX);
}

static void pairing_members(thue__io *o, thue_pairing *p)
{
    if (thue__io_arr(o, "seats", 2)) {
        IO_STR(o, NULL, p->names[0], THUE__S_ANYNAME);
        IO_STR_NULL(o, NULL, &p->has_second, p->names[1], THUE__S_ANYNAME);
        thue__io_end(o);
    }
    IO_STR_NULL(o, "room", &p->has_room, p->room, THUE__S_KEY);
    thue__io_enum(o, "result", THUE__NULL, NULL, &p->result, pairing_names,
                  THUE__NELEM(pairing_names), 0);
}

/* A list of objects (0..max of them) whose members one function describes; elem is the
 * element's address. While decoding, *out gets the array (owned by the message). */
typedef void (*elem_members)(thue__io *o, void *elem);
static void object_list(thue__io *o, const char *key, const void *list, int *count, size_t esize,
                        int max, elem_members members, const void **out)
{
    void *mem;
    int n = thue__io_list(o, key, THUE__REQ, list, count, esize, 0, max, &mem);
    if (n < 0)
        return;
    for (int i = 0; i < n; i++) {
        if (thue__io_obj(o, NULL)) {
            members(o, (char *)mem + (size_t)i * esize);
            thue__io_end(o);
        }
    }
    thue__io_end(o);
    if (!o->enc)
        *out = mem;
}

static void room_summary_elem(thue__io *o, void *elem)
{
    room_summary_members(o, elem);
}

static void tsummary_elem(thue__io *o, void *elem)
{
    tsummary_members(o, elem);
}

static void pairing_elem(thue__io *o, void *elem)
{
    pairing_members(o, elem);
}

static void standing_elem(thue__io *o, void *elem)
{
    thue_standing *s = elem;
    thue__io_int(o, "rank", &s->rank, 1, INT_MAX);
    IO_STR(o, "name", s->name, THUE__S_ANYNAME);
    thue__io_dbl(o, "points", &s->points, 0);
    thue__io_dbl(o, "buchholz", &s->buchholz, 0);
    thue__io_dbl(o, "sonneborn_berger", &s->sonneborn_berger, 0);
    thue__io_int(o, "games", &s->games, 0, INT_MAX);
}

static void ladder_entry_elem(thue__io *o, void *elem)
{
    thue_ladder_entry *e = elem;
    thue__io_int(o, "rank", &e->rank, 1, INT_MAX);
    player_members(o, &e->player);
    thue__io_dbl(o, "rating", &e->rating, -HUGE_VAL);
    thue__io_dbl(o, "rd", &e->rd, 0);
    thue__io_bool(o, "provisional", &e->provisional);
    thue__io_int(o, "games", &e->games, 0, INT_MAX);
    thue__io_int(o, "wins", &e->wins, 0, INT_MAX);
    thue__io_int(o, "draws", &e->draws, 0, INT_MAX);
    thue__io_int(o, "losses", &e->losses, 0, INT_MAX);
}

static void tournament_round_elem(thue__io *o, void *elem)
{
    thue_tournament_round *r = elem;
    const void *out = r->pairings;
    object_list(o, "pairings", r->pairings, &r->npairings, sizeof(thue_pairing), INT_MAX,
                pairing_elem, &out);
    r->pairings = out;
}

static void tournament_members(thue__io *o, thue_msg *m)
{
    void *mem;
    int n;
    tsummary_members(o, &m->u.tournament.summary);
    if (!m->u.tournament.summary.has_game)
        thue__io_int(o, "limit", &m->u.tournament.limit, THUE_LIMIT_MIN, THUE_LIMIT_MAX);
    io_clock(o, "clock", THUE__NULL, &m->u.tournament.clock);
    n = thue__io_list(o, "entrants", THUE__REQ, m->u.tournament.entrants,
                      &m->u.tournament.nentrants, sizeof(thue_player), 0, INT_MAX, &mem);
    if (n >= 0) {
        thue_player *p = mem;
        for (int i = 0; i < n; i++)
            io_player(o, NULL, THUE__REQ, NULL, &p[i]);
        thue__io_end(o);
        if (!o->enc)
            m->u.tournament.entrants = p;
    }
    const void *out = m->u.tournament.standings;
    object_list(o, "standings", m->u.tournament.standings, &m->u.tournament.nstandings,
                sizeof(thue_standing), INT_MAX, standing_elem, &out);
    m->u.tournament.standings = out;
    out = m->u.tournament.round_list;
    object_list(o, "round_list", m->u.tournament.round_list, &m->u.tournament.nrounds,
                sizeof(thue_tournament_round), INT_MAX, tournament_round_elem, &out);
    m->u.tournament.round_list = out;
}

/* thue.v2's played: the move, then what it changed. Across members: an ended match has
 * nobody to move, and a round's repetition goes with the end "repetition". */
static void played_members(thue__io *o, thue_msg *m)
{
    __typeof__(m->u.played) *p = &m->u.played;
    thue__io_int(o, "ref", &p->ref, 1, INT_MAX);
    thue__io_i64(o, "version", &p->version, 0, THUE__JS_INT_MAX);
    thue__io_raw(o, "move", THUE__REQ, NULL, p->move, sizeof p->move);
    thue__io_dbl(o, "think_ms", &p->think_ms, 0);
    thue__io_int_nullv(o, "to_move", &p->to_move, 0, 1);
    if (thue__io_arrm(o, "points", THUE__OPT, &p->has_points, 2)) {
        thue__io_int(o, NULL, &p->points[0], 0, INT_MAX);
        thue__io_int(o, NULL, &p->points[1], 0, INT_MAX);
        thue__io_end(o);
    }
    if (thue__io_arrm(o, "clocks", THUE__OPT, &p->has_clocks, 2)) {
        thue__io_i64(o, NULL, &p->clocks[0], 0, THUE__JS_INT_MAX);
        thue__io_i64(o, NULL, &p->clocks[1], 0, THUE__JS_INT_MAX);
        thue__io_end(o);
    }
    thue__io_int_opt(o, "thinking", &p->has_thinking, &p->thinking, 0, 1);
    if (thue__io_objm(o, "round_end", THUE__OPT, &p->has_round_end)) {
        IO_ENUM(o, "end", p->end, round_end_names);
        if (thue__io_objm(o, "repetition", THUE__NULL, &p->has_repetition)) {
            thue__io_int(o, "start", &p->repetition.start, 0, INT_MAX);
            thue__io_int(o, "period", &p->repetition.period, 1, INT_MAX);
            thue__io_int(o, "length", &p->repetition.length, 2, INT_MAX);
            thue__io_end(o);
        }
        thue__io_end(o);
        if (o->code == 0 && (p->end == THUE_ROUND_REPETITION) != (p->has_repetition != 0))
            thue__io_bad_member(o, "round_end",
                                "a repetition when end is \"repetition\", and null otherwise");
    }
    io_gresult(o, "result", THUE__OPT, &p->has_result, &p->winner, p->reason, sizeof p->reason);
    if (o->code == 0 && (p->to_move == -1) != (p->has_result != 0))
        thue__io_bad_member(o, "to_move", "null once the match is over (with result), and a "
                                          "seat otherwise");
}

/* thue.v2's analysis_delta's lists: `gone` ids, `add` nodes (objects), `set` figures
 * ([id, visits, ended, value, hidden] arrays). Across members: the root (parent null) and
 * only the root has no move; a value is at most 1. */
static void io_value(thue__io *o, const char *key, double *v)
{
    thue__io_dbl(o, key, v, 0);
    if (o->code == 0 && !(*v <= 1)) {
        if (key != NULL)
            thue__io_bad_member(o, key, "a number from 0 to 1");
        else { /* the element just read */
            char field[96];
            snprintf(field, sizeof field, "%.60s/%zu", o->path, o->idx - 1);
            thue__io_fail(o, THUE_PERR_MESSAGE, field, "%s must be a number from 0 to 1", field);
        }
    }
}

static void delta_add_elem(thue__io *o, void *elem)
{
    thue_analysis_add *n = elem;
    int has_parent = n->parent >= 0;
    thue__io_i64(o, "id", &n->id, 0, THUE_PROTO_NODE_ID_MAX);
    thue__io_i64_null(o, "parent", &has_parent, &n->parent, 0, THUE_PROTO_NODE_ID_MAX);
    if (!o->enc && !has_parent)
        n->parent = -1;
    thue__io_raw(o, "move", THUE__NULL, &n->has_move, n->move, sizeof n->move);
    if (o->code == 0 && has_parent != (n->has_move != 0))
        thue__io_bad_member(o, "move", "null exactly at the root (whose parent is null)");
    thue__io_str_ptr(o, "name", &n->name, THUE__S_NODE_NAME);
    thue__io_int(o, "to_move", &n->to_move, -1, 1);
    thue__io_i64(o, "visits", &n->visits, 0, THUE__JS_INT_MAX);
    thue__io_i64(o, "ended", &n->ended, 0, THUE__JS_INT_MAX);
    io_value(o, "value", &n->value);
    thue__io_int(o, "hidden", &n->hidden, 0, INT_MAX);
}

static void delta_members(thue__io *o, thue_msg *m)
{
    __typeof__(m->u.analysis_delta) *d = &m->u.analysis_delta;
    IO_STR(o, "analysis", d->analysis, THUE__S_KEY);
    thue__io_i64(o, "seq", &d->seq, 1, THUE__JS_INT_MAX);
    thue__io_int(o, "part", &d->part, 1, INT_MAX);
    thue__io_bool(o, "last", &d->last);
    thue__io_bool(o, "full", &d->full);
    IO_ENUM(o, "status", d->status, analysis_status_names);
    thue__io_i64(o, "iterations", &d->iterations, 0, THUE__JS_INT_MAX);
    thue__io_i64(o, "nodes", &d->nodes, 1, THUE__JS_INT_MAX);
    thue__io_int(o, "shown", &d->shown, 1, THUE_PROTO_ANALYSIS_NODES_MAX);
    thue__io_raw(o, "best", THUE__NULL, &d->has_best, d->best, sizeof d->best);
    void *mem;
    int n = thue__io_list(o, "gone", THUE__REQ, d->gone, &d->ngone, sizeof *d->gone, 0,
                          THUE_PROTO_ANALYSIS_NODES_MAX, &mem);
    if (n >= 0) {
        int64_t *ids = mem;
        for (int i = 0; i < n; i++)
            thue__io_i64(o, NULL, &ids[i], 0, THUE_PROTO_NODE_ID_MAX);
        thue__io_end(o);
        if (!o->enc)
            d->gone = ids;
        if (o->code == 0 && d->full && n > 0)
            thue__io_bad_member(o, "gone", "empty in a full update");
    }
    object_list(o, "add", d->add, &d->nadd, sizeof *d->add, THUE_PROTO_ANALYSIS_NODES_MAX,
                delta_add_elem, (const void **)&d->add);
    n = thue__io_list(o, "set", THUE__REQ, d->set, &d->nset, sizeof *d->set, 0,
                      THUE_PROTO_ANALYSIS_NODES_MAX, &mem);
    if (n >= 0) {
        thue_analysis_set *f = mem;
        for (int i = 0; i < n; i++) {
            if (thue__io_arr(o, NULL, 5)) {
                thue__io_i64(o, NULL, &f[i].id, 0, THUE_PROTO_NODE_ID_MAX);
                thue__io_i64(o, NULL, &f[i].visits, 0, THUE__JS_INT_MAX);
                thue__io_i64(o, NULL, &f[i].ended, 0, THUE__JS_INT_MAX);
                io_value(o, NULL, &f[i].value);
                thue__io_int(o, NULL, &f[i].hidden, 0, INT_MAX);
                thue__io_end(o);
            }
        }
        thue__io_end(o);
        if (!o->enc)
            d->set = f;
    }
}

static void msg_members(thue__io *o, thue_msg *m)
{
    const void *out;
    switch (m->type) {
    case THUE_MSG_WELCOME:
        thue__io_int(o, "protocol", &m->u.welcome.protocol, INT_MIN, INT_MAX);
        IO_STR(o, "server", m->u.welcome.server, THUE__S_SERVER);
        io_player(o, "player", THUE__REQ, NULL, &m->u.welcome.player);
        IO_STR(o, "resume", m->u.welcome.resume, THUE__S_RESUME);
        thue__io_int(o, "grace_s", &m->u.welcome.grace_s, 0, INT_MAX);
        thue__io_bool(o, "resumed", &m->u.welcome.resumed);
        io_keys(o, "rooms", &m->u.welcome.rooms, &m->u.welcome.nrooms);
        if (thue__io_obj(o, "limits")) {
            thue__io_int(o, "max_message", &m->u.welcome.max_message, 0, INT_MAX);
            thue__io_int(o, "rate", &m->u.welcome.rate, 0, INT_MAX);
            thue__io_int(o, "burst", &m->u.welcome.burst, 0, INT_MAX);
            thue__io_int(o, "chat_max", &m->u.welcome.chat_max, 0, INT_MAX);
            thue__io_int(o, "name_max", &m->u.welcome.name_max, 0, INT_MAX);
            thue__io_int_opt(o, "ping_s", &m->u.welcome.has_ping_s, &m->u.welcome.ping_s, 1,
                             INT_MAX);
            thue__io_int_opt(o, "idle_s", &m->u.welcome.has_idle_s, &m->u.welcome.idle_s, 1,
                             INT_MAX);
            thue__io_end(o);
        }
        break;
    case THUE_MSG_PONG:
    case THUE_MSG_OK:
    case THUE_MSG_COUNT:
        break;
    case THUE_MSG_ERROR: {
        int has_field = m->u.error.field[0] != '\0';
        thue__io_err_code(o, &m->u.error.code);
        IO_STR(o, "message", m->u.error.message, THUE__S_TEXT);
        IO_STR_OPT(o, "field", &has_field, m->u.error.field, THUE__S_FIELD);
        break;
    }
    case THUE_MSG_GOODBYE:
        thue__io_enum_str(o, "reason", m->u.goodbye.reason, sizeof m->u.goodbye.reason,
                          goodbye_names, THUE__NELEM(goodbye_names));
        IO_STR(o, "message", m->u.goodbye.message, THUE__S_TEXT);
        break;
    case THUE_MSG_ACCOUNT:
        IO_STR(o, "name", m->u.account.name, THUE__S_NAME);
        IO_STR(o, "token", m->u.account.token, THUE__S_TOKEN);
        IO_STR_OPT(o, "resume", &m->u.account.has_resume, m->u.account.resume, THUE__S_RESUME);
        break;
    case THUE_MSG_ROOM_CREATED:
        IO_STR(o, "room", m->u.room_created.room, THUE__S_KEY);
        IO_STR_OPT(o, "invite", &m->u.room_created.has_invite, m->u.room_created.invite,
                   THUE__S_KEY);
        break;
    case THUE_MSG_ROOMS:
        out = m->u.rooms.rooms;
        object_list(o, "rooms", m->u.rooms.rooms, &m->u.rooms.nrooms, sizeof(thue_room_summary),
                    500, room_summary_elem, &out);
        m->u.rooms.rooms = out;
        break;
    case THUE_MSG_ROOM_STATE:
        IO_STR(o, "room", m->u.room_state.room, THUE__S_KEY);
        thue__io_i64(o, "version", &m->u.room_state.version, 0, THUE__JS_INT_MAX);
        IO_STR(o, "name", m->u.room_state.name, THUE__S_TITLE);
        IO_ENUM(o, "status", m->u.room_state.status, status_names);
        if (thue__io_obj(o, "options")) {
            options_members(o, &m->u.room_state.options);
            thue__io_end(o);
        }
        if (thue__io_arr(o, "players", 2)) {
            for (int i = 0; i < 2; i++) {
                thue_seat *s = &m->u.room_state.seats[i];
                if (thue__io_objm(o, NULL, THUE__NULL, &s->present)) {
                    seat_members(o, s);
                    thue__io_end(o);
                }
            }
            thue__io_end(o);
        }
        thue__io_int(o, "spectators", &m->u.room_state.spectators, 0, INT_MAX);
        /* thue.v2 writes the room's ref where thue.v1 writes "you"; a state without ref
         * is thue.v1's, and needs "you". */
        thue__io_int_opt(o, "ref", &m->u.room_state.has_ref, &m->u.room_state.ref, 1, INT_MAX);
        if (!m->u.room_state.has_ref)
            thue__io_int_nullv(o, "you", &m->u.room_state.you, 0, 1);
        else if (thue__io_given(o, "you"))
            thue__io_bad_member(o, "you", "absent under thue.v2 (with ref)");
        else if (!o->enc)
            m->u.room_state.you = -1;
        if (thue__io_objm(o, "match", THUE__NULL, &m->u.room_state.has_match)) {
            if (m->u.room_state.options.has_game)
                gmatch_members(o, &m->u.room_state.match);
            else
                match_members(o, &m->u.room_state.match);
            thue__io_end(o);
        }
        IO_STR_OPT(o, "tournament", &m->u.room_state.has_tournament, m->u.room_state.tournament,
                   THUE__S_KEY);
        break;
    case THUE_MSG_MATCH_END:
        IO_STR(o, "room", m->u.match_end.room, THUE__S_KEY);
        thue__io_int(o, "number", &m->u.match_end.number, 1, INT_MAX);
        io_game(o, &m->u.match_end.has_game, m->u.match_end.game, sizeof m->u.match_end.game);
        if (m->u.match_end.has_game)
            io_gresult(o, "result", THUE__REQ, NULL, &m->u.match_end.winner, m->u.match_end.why,
                       sizeof m->u.match_end.why);
        else
            io_result(o, "result", THUE__REQ, NULL, &m->u.match_end.winner, &m->u.match_end.reason);
        if (thue__io_arr(o, "players", 2)) {
            for (int i = 0; i < 2; i++)
                io_player(o, NULL, THUE__REQ, NULL, &m->u.match_end.players[i]);
            thue__io_end(o);
        }
        io_int_pair(o, "points", m->u.match_end.points, 0, INT_MAX);
        if (m->u.match_end.has_game)
            thue__io_raw(o, "state", THUE__REQ, NULL, m->u.match_end.state,
                         sizeof m->u.match_end.state);
        else
            io_rounds(o, "rounds", m->u.match_end.rounds);
        if (thue__io_arrm(o, "ratings", THUE__NULL, &m->u.match_end.has_ratings, 2)) {
            for (int i = 0; i < 2; i++) {
                thue_rating_change *r = &m->u.match_end.ratings[i];
                if (thue__io_obj(o, NULL)) {
                    thue__io_dbl(o, "before", &r->before, -HUGE_VAL);
                    thue__io_dbl(o, "after", &r->after, -HUGE_VAL);
                    thue__io_dbl(o, "rd_before", &r->rd_before, 0);
                    thue__io_dbl(o, "rd_after", &r->rd_after, 0);
                    thue__io_end(o);
                }
            }
            thue__io_end(o);
        }
        IO_STR_NULL(o, "match_id", &m->u.match_end.has_match_id, m->u.match_end.match_id,
                    THUE__S_KEY);
        IO_ENUM_OPT(o, "unrated_reason", &m->u.match_end.has_unrated_reason,
                    m->u.match_end.unrated_reason, unrated_names);
        break;
    case THUE_MSG_CHAT_MESSAGE:
        IO_STR(o, "room", m->u.chat.room, THUE__S_KEY);
        io_player(o, "from", THUE__REQ, NULL, &m->u.chat.from);
        IO_STR(o, "text", m->u.chat.text, THUE__S_CHAT);
        thue__io_i64(o, "at", &m->u.chat.at, 0, THUE__JS_INT_MAX);
        if (!o->enc || m->u.chat.spectator) /* a player's text carries no `spectator` */
            thue__io_bool_def(o, "spectator", &m->u.chat.spectator, 0);
        break;
    case THUE_MSG_MATCH_FOUND:
        IO_STR(o, "room", m->u.match_found.room, THUE__S_KEY);
        break;
    case THUE_MSG_LADDER:
        io_game(o, &m->u.ladder.has_game, m->u.ladder.game, sizeof m->u.ladder.game);
        if (m->u.ladder.has_game) {
            thue__io_raw(o, "game_options", THUE__REQ, NULL, m->u.ladder.game_options,
                         sizeof m->u.ladder.game_options);
            IO_STR(o, "pool", m->u.ladder.pool, THUE__S_KEY);
        } else {
            IO_ENUM(o, "variant", m->u.ladder.variant, variant_names);
            thue__io_int(o, "k", &m->u.ladder.k, 2, 64);
        }
        IO_ENUM(o, "kind", m->u.ladder.kind, ladder_kind_names);
        thue__io_int(o, "offset", &m->u.ladder.offset, 0, 100000);
        thue__io_int(o, "total", &m->u.ladder.total, 0, INT_MAX);
        out = m->u.ladder.entries;
        object_list(o, "entries", m->u.ladder.entries, &m->u.ladder.nentries,
                    sizeof(thue_ladder_entry), 200, ladder_entry_elem, &out);
        m->u.ladder.entries = out;
        break;
    case THUE_MSG_TOURNAMENTS:
        thue__io_int(o, "offset", &m->u.tournaments.offset, 0, 100000);
        thue__io_int(o, "total", &m->u.tournaments.total, 0, INT_MAX);
        out = m->u.tournaments.list;
        object_list(o, "tournaments", m->u.tournaments.list, &m->u.tournaments.count,
                    sizeof(thue_tournament_summary), 200, tsummary_elem, &out);
        m->u.tournaments.list = out;
        break;
    case THUE_MSG_TOURNAMENT:
        tournament_members(o, m);
        break;
    case THUE_MSG_TOURNAMENT_CREATED:
        IO_STR(o, "tournament", m->u.tournament_created.tournament, THUE__S_KEY);
        break;
    case THUE_MSG_TOURNAMENT_EVENT:
        IO_STR(o, "tournament", m->u.tournament_event.tournament, THUE__S_KEY);
        thue__io_enum_str(o, "event", m->u.tournament_event.event,
                          sizeof m->u.tournament_event.event, event_names,
                          THUE__NELEM(event_names));
        thue__io_int_nullv(o, "round", &m->u.tournament_event.round, 0, INT_MAX);
        io_keys(o, "rooms", &m->u.tournament_event.rooms, &m->u.tournament_event.nrooms);
        break;
    case THUE_MSG_QUEUE_FAILED:
        thue__io_err_code(o, &m->u.queue_failed.code);
        IO_STR(o, "message", m->u.queue_failed.message, THUE__S_TEXT);
        break;
    case THUE_MSG_ANALYSIS_STARTED:
        IO_STR(o, "analysis", m->u.analysis_started.analysis, THUE__S_KEY);
        IO_STR(o, "game", m->u.analysis_started.game, THUE__S_KEY);
        thue__io_raw(o, "game_options", THUE__REQ, NULL, m->u.analysis_started.game_options,
                     sizeof m->u.analysis_started.game_options);
        thue__io_raw(o, "position", THUE__REQ, NULL, m->u.analysis_started.position,
                     sizeof m->u.analysis_started.position);
        thue__io_int(o, "iterations", &m->u.analysis_started.iterations, 1, INT_MAX);
        thue__io_int(o, "playout", &m->u.analysis_started.playout, 1, 100000);
        thue__io_dbl(o, "c", &m->u.analysis_started.c, 0);
        thue__io_i64(o, "seed", &m->u.analysis_started.seed, 0, THUE__JS_INT_MAX);
        thue__io_int(o, "max_nodes", &m->u.analysis_started.max_nodes, 1,
                     THUE_PROTO_ANALYSIS_NODES_MAX);
        break;
    case THUE_MSG_ANALYSIS_TREE:
        IO_STR(o, "analysis", m->u.analysis_tree.analysis, THUE__S_KEY);
        thue__io_i64(o, "seq", &m->u.analysis_tree.seq, 1, THUE__JS_INT_MAX);
        IO_ENUM(o, "status", m->u.analysis_tree.status, analysis_status_names);
        thue__io_i64(o, "iterations", &m->u.analysis_tree.iterations, 0, THUE__JS_INT_MAX);
        thue__io_i64(o, "nodes", &m->u.analysis_tree.nodes, 1, THUE__JS_INT_MAX);
        thue__io_int(o, "shown", &m->u.analysis_tree.shown, 1, THUE_PROTO_ANALYSIS_NODES_MAX);
        thue__io_raw(o, "best", THUE__NULL, &m->u.analysis_tree.has_best, m->u.analysis_tree.best,
                     sizeof m->u.analysis_tree.best);
        thue__io_raw_ptr(o, "tree", '{', &m->u.analysis_tree.tree);
        break;
    case THUE_MSG_MOVED:
        thue__io_enum_str(o, "reason", m->u.moved.reason, sizeof m->u.moved.reason, moved_names,
                          THUE__NELEM(moved_names));
        IO_STR(o, "node", m->u.moved.node, THUE__S_KEY);
        IO_STR(o, "path", m->u.moved.path, THUE__S_SERVER);
        IO_STR_OPT(o, "room", &m->u.moved.has_room, m->u.moved.room, THUE__S_KEY);
        IO_STR_OPT(o, "tournament", &m->u.moved.has_tournament, m->u.moved.tournament,
                   THUE__S_KEY);
        IO_STR_OPT(o, "resume", &m->u.moved.has_resume, m->u.moved.resume, THUE__S_RESUME);
        IO_STR(o, "message", m->u.moved.message, THUE__S_TEXT);
        break;
    case THUE_MSG_LEGAL_MOVES:
        IO_STR(o, "room", m->u.legal_moves.room, THUE__S_KEY);
        thue__io_i64(o, "version", &m->u.legal_moves.version, 0, THUE__JS_INT_MAX);
        IO_STR(o, "step", m->u.legal_moves.step, THUE__S_KEY);
        thue__io_int_nullv(o, "to_move", &m->u.legal_moves.to_move, 0, 1);
        thue__io_bool(o, "complete", &m->u.legal_moves.complete);
        thue__io_raw_ptr(o, "moves", '[', &m->u.legal_moves.moves);
        break;
    case THUE_MSG_BEST_MOVE:
        IO_STR(o, "game", m->u.best_move.game, THUE__S_KEY);
        thue__io_int_nullv(o, "to_move", &m->u.best_move.to_move, 0, 1);
        thue__io_raw(o, "move", THUE__NULL, &m->u.best_move.has_move, m->u.best_move.move,
                     sizeof m->u.best_move.move);
        thue__io_bool(o, "exact", &m->u.best_move.exact);
        thue__io_int_null(o, "value", &m->u.best_move.has_value, &m->u.best_move.value, -1, 1);
        thue__io_int_opt(o, "points", &m->u.best_move.has_points, &m->u.best_move.points, 0,
                         THUE_LIMIT_MAX);
        thue__io_i64(o, "nodes", &m->u.best_move.nodes, 0, THUE__JS_INT_MAX);
        thue__io_dbl(o, "ms", &m->u.best_move.ms, 0);
        break;
    case THUE_MSG_PLAYED:
        played_members(o, m);
        break;
    case THUE_MSG_WATCHERS:
        thue__io_int(o, "ref", &m->u.watchers.ref, 1, INT_MAX);
        thue__io_int(o, "spectators", &m->u.watchers.spectators, 0, INT_MAX);
        break;
    case THUE_MSG_ANALYSIS_DELTA:
        delta_members(o, m);
        break;
    }
}

/* ---- entry points --------------------------------------------------------------------- */

/* Size, depth, JSON, object: the checks before any member is read. */
static int parse_depth(const char *text, size_t len, size_t max, int depth, json_t **root,
                       thue_decode_error *err);

static int parse(const char *text, size_t len, size_t max, json_t **root, thue_decode_error *err)
{
    return parse_depth(text, len, max, THUE_PROTO_DEPTH_MAX, root, err);
}

static int parse_depth(const char *text, size_t len, size_t max, int depth, json_t **root,
                       thue_decode_error *err)
{
    thue__io o;
    thue__io_init(&o, 0, err);
    *root = NULL;
    if (text == NULL)
        text = "", len = 0;
    if (max > 0 && len > max) {
        thue__io_fail(&o, THUE_PERR_JSON, "", "the message is longer than %zu bytes", max);
        return o.code;
    }
    thue__buf rw;
    int rc = thue__json_prescan(text, len, depth, &rw);
    if (rc == THUE__SCAN_DEEP) {
        thue__io_fail(&o, THUE_PERR_JSON, "", "objects and arrays may be nested at most %d deep",
                      depth);
        return o.code;
    }
    if (rc != 0) {
        thue__io_oom(&o);
        return o.code;
    }
    json_error_t je;
    json_t *j = json_loadb(rw.p != NULL ? rw.p : text, rw.p != NULL ? rw.len : len,
                           JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    free(rw.p);
    if (j == NULL) {
        if (json_error_code(&je) == json_error_out_of_memory) {
            thue__io_oom(&o);
            return o.code;
        }
        /* jansson quotes the text near the error, which may be a secret of the message (a
         * password cut short): the quote is left out, the place is given by its byte. */
        char *near = strstr(je.text, " near ");
        if (near != NULL)
            *near = '\0';
        for (char *p = je.text; *p != '\0'; p++)
            if (*p < 0x20 || *p > 0x7e)
                *p = '?';
        thue__io_fail(&o, THUE_PERR_JSON, "", "not a JSON object in valid UTF-8: %s (at byte %d)",
                      je.text, je.position);
        return o.code;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        thue__io_fail(&o, THUE_PERR_JSON, "", "the message must be a JSON object");
        return o.code;
    }
    *root = j;
    return 0;
}

/* The index of the message's type in names[0..n), or -1 with the failure recorded. */
static int read_type(thue__io *o, json_t *root, const char *const *names, int n, const char *who)
{
    if (o->code != 0)
        return -1;
    json_t *j = json_object_get(root, "type");
    if (j == NULL) {
        thue__io_fail(o, THUE_PERR_TYPE, "type", "type is missing: it must name a %s message", who);
        return -1;
    }
    const char *s = json_string_value(j);
    size_t len = json_string_length(j);
    if (!json_is_string(j) ||
        (len == THUE__OVERFLOW_MARK_LEN && memcmp(s, THUE__OVERFLOW_MARK, len) == 0)) {
        thue__io_fail(o, THUE_PERR_MESSAGE, "type", "type must be a string");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return i;
    if (thue__str_ok(THUE__S_ID, s, len))
        thue__io_fail(o, THUE_PERR_TYPE, "type", "type \"%s\" names no %s message", s, who);
    else
        thue__io_fail(o, THUE_PERR_TYPE, "type", "type names no %s message", who);
    return -1;
}

/* A JSON integer without sign, fraction or exponent at *p, at most max: 0 and *v, *p past
 * it; -1 for anything else. */
static int fast_uint(const char **p, const char *end, int64_t max, int64_t *v)
{
    const char *q = *p;
    int64_t n = 0;
    int digits = 0;
    while (q < end && *q >= '0' && *q <= '9') {
        if (++digits > 16 || (digits == 2 && n == 0))
            return -1; /* too long for the fast path, or a leading zero */
        n = n * 10 + (*q++ - '0');
    }
    if (digits == 0 || n > max)
        return -1;
    *p = q;
    *v = n;
    return 0;
}

/* Whether the text at *p starts with lit (then *p goes past it). */
static int fast_lit(const char **p, const char *end, const char *lit, size_t n)
{
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
        return 0;
    *p += n;
    return 1;
}

#define FAST_LIT(p, end, lit) fast_lit(p, end, lit, sizeof lit - 1)

/*
 * place and paint in the canonical form (what thue_cmd_encode writes, and the load on a
 * busy server): {"type":"place","id":N,"room":"KEY","position":N}, or paint with "symbol".
 * 0 with *out filled as the full decoder fills it; -1 for any other text, which then goes
 * to the full decoder. test_codec and fuzz_protocol hold the two to the same results.
 */
static int fast_move(const char *text, size_t len, thue_cmd *out)
{
    const char *p = text, *end = text + len;
    int place;
    if (FAST_LIT(&p, end, "{\"type\":\"place\",\"id\":"))
        place = 1;
    else if (FAST_LIT(&p, end, "{\"type\":\"paint\",\"id\":"))
        place = 0;
    else
        return -1;
    int64_t id, value;
    if (fast_uint(&p, end, THUE__JS_INT_MAX, &id) != 0 || !FAST_LIT(&p, end, ",\"room\":\""))
        return -1;
    const char *room = p;
    while (p < end && *p != '"' && *p != '\\')
        p++;
    size_t rn = (size_t)(p - room);
    if (p == end || *p != '"' || rn > THUE_PROTO_KEY_MAX || !thue__str_ok(THUE__S_KEY, room, rn))
        return -1;
    p++;
    if (!(place ? FAST_LIT(&p, end, ",\"position\":") : FAST_LIT(&p, end, ",\"symbol\":")))
        return -1;
    if (fast_uint(&p, end, place ? THUE_LIMIT_MAX : 63, &value) != 0 || end - p != 1 || *p != '}')
        return -1;
    out->type = place ? THUE_CMD_PLACE : THUE_CMD_PAINT;
    out->id.kind = THUE_ID_INT;
    out->id.num = id;
    memcpy(out->u.move.room, room, rn);
    out->u.move.room[rn] = '\0';
    out->u.move.value = (int)value;
    return 0;
}

/* thue_cmd_decode without the fast path (test_codec and fuzz_protocol compare the two). */
int thue__cmd_decode_full(const char *text, size_t len, thue_cmd *out, thue_decode_error *err)
{
    thue_decode_error scratch;
    if (err == NULL)
        err = &scratch;
    memset(err, 0, sizeof *err);
    memset(out, 0, sizeof *out);
    thue_codec_init();
    json_t *root;
    int rc = parse(text, len, THUE_PROTO_MESSAGE_MAX, &root, err);
    if (rc != 0)
        return rc;
    thue__io o;
    thue__io_init(&o, 0, err);
    o.cur = root;
    thue__io_id(&o, &out->id);
    if (o.code == 0)
        err->id = out->id;
    int t = read_type(&o, root, cmd_names, THUE_CMD_COUNT, "client");
    if (t >= 0) {
        out->type = (thue_cmd_type)t;
        cmd_members(&o, out);
    }
    json_decref(root);
    err->code = o.code;
    return o.code;
}

int thue_cmd_decode(const char *text, size_t len, thue_cmd *out, thue_decode_error *err)
{
    memset(out, 0, sizeof *out);
    if (fast_move(text, len, out) == 0) { /* it writes out only when it takes the text */
        if (err != NULL) {
            memset(err, 0, sizeof *err);
            err->id = out->id;
        }
        return 0;
    }
    return thue__cmd_decode_full(text, len, out, err);
}

int thue_msg_decode(const char *text, size_t len, thue_msg *out, thue_decode_error *err)
{
    thue_decode_error scratch;
    if (err == NULL)
        err = &scratch;
    memset(err, 0, sizeof *err);
    memset(out, 0, sizeof *out);
    thue_codec_init();
    json_t *root;
    /* analysis_tree carries a tree that may nest deeper than any other message (the
     * server writes its type first, as every message's). */
    static const char tree_prefix[] = "{\"type\":\"analysis_tree\"";
    int depth = text != NULL && len >= sizeof tree_prefix - 1 &&
                        memcmp(text, tree_prefix, sizeof tree_prefix - 1) == 0
                    ? THUE_PROTO_TREE_DEPTH_MAX
                    : THUE_PROTO_DEPTH_MAX;
    int rc = parse_depth(text, len, 0, depth, &root, err);
    if (rc != 0)
        return rc;
    thue__io o;
    thue__io_init(&o, 0, err);
    o.cur = root;
    thue__io_id(&o, &out->id);
    if (o.code == 0)
        err->id = out->id;
    int t = read_type(&o, root, msg_names, THUE_MSG_COUNT, "server");
    if (t >= 0) {
        out->type = (thue_msg_type)t;
        if (msg_is_event(out->type) && out->id.kind != THUE_ID_NONE)
            thue__io_fail(&o, THUE_PERR_MESSAGE, "id", "id must be absent: %s is an event",
                          msg_names[t]);
        msg_members(&o, out);
    }
    json_decref(root);
    err->code = o.code;
    if (o.code != 0) {
        thue__io_free_chunks(o.owned);
        memset(out, 0, sizeof *out);
        return o.code;
    }
    out->owned = o.owned;
    return 0;
}

size_t thue_proto_number(double d, char out[THUE_PROTO_NUMBER_MAX])
{
    return thue__fmt_double(d, out);
}

void thue_msg_clear(thue_msg *msg)
{
    if (msg == NULL || msg->owned == NULL)
        return;
    thue__io_free_chunks(msg->owned);
    memset(msg, 0, sizeof *msg);
}

/* Opens the text with `type` and the id; the members follow. */
static void begin(thue__io *o, const char *type, const thue_msg_id *id)
{
    thue__buf_puts(&o->out, "{\"type\":");
    thue__buf_json_str(&o->out, type, strlen(type));
    o->first = 0;
    thue__io_id(o, (thue_msg_id *)(uintptr_t)id);
}

static char *finish(thue__io *o)
{
    thue__buf_putc(&o->out, '}');
    if (o->out.oom)
        thue__io_oom(o);
    o->err->code = o->code;
    if (o->code != 0) {
        free(o->out.p);
        return NULL;
    }
    return o->out.p;
}

/* An encoder's start: err (the caller's, or a scratch one) cleared. */
static void encode_init(thue__io *o, thue_decode_error *err)
{
    memset(err, 0, sizeof *err);
    thue__io_init(o, 1, err);
}

char *thue_cmd_encode(const thue_cmd *cmd, thue_decode_error *err)
{
    thue_decode_error scratch;
    thue__io o;
    encode_init(&o, err ? err : &scratch);
    const char *name = thue_cmd_type_name(cmd->type);
    if (name == NULL) {
        thue__io_fail(&o, THUE_PERR_TYPE, "type", "type must be a client message type");
        return finish(&o);
    }
    begin(&o, name, &cmd->id);
    cmd_members(&o, (thue_cmd *)(uintptr_t)cmd); /* encoding only reads */
    return finish(&o);
}

char *thue_msg_encode(const thue_msg *msg, thue_decode_error *err)
{
    thue_decode_error scratch;
    thue__io o;
    encode_init(&o, err ? err : &scratch);
    const char *name = thue_msg_type_name(msg->type);
    if (name == NULL) {
        thue__io_fail(&o, THUE_PERR_TYPE, "type", "type must be a server message type");
        return finish(&o);
    }
    if (msg_is_event(msg->type) && msg->id.kind != THUE_ID_NONE)
        thue__io_fail(&o, THUE_PERR_MESSAGE, "id", "id must be absent: %s is an event", name);
    begin(&o, name, &msg->id);
    msg_members(&o, (thue_msg *)(uintptr_t)msg); /* encoding only reads */
    return finish(&o);
}

char *thue_msg_encode_members(const thue_msg *msg, thue_decode_error *err)
{
    thue_decode_error scratch;
    thue__io o;
    encode_init(&o, err ? err : &scratch);
    if (thue_msg_type_name(msg->type) == NULL) {
        thue__io_fail(&o, THUE_PERR_TYPE, "type", "type must be a server message type");
        return finish(&o);
    }
    thue__buf_putc(&o.out, '{'); /* o.first is still 1: no comma before the first member */
    msg_members(&o, (thue_msg *)(uintptr_t)msg); /* encoding only reads */
    return finish(&o);
}
