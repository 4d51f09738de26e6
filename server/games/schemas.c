/*
 * schemas.c: JSON Schemas (draft 2020-12) of every game's move and position, for GET
 * /api/games and `thue games --json` (game.h's thue_game_schema), so that a program
 * can check what it sends and reads without the prose of move_doc and position_doc.
 *
 * A move schema describes what move_parse accepts as to shape (the bounds that answer
 * bad_move; whether the position allows it is the rules', illegal_move). A position
 * schema describes what state_json writes (room_state's match.state, match_end's state,
 * records, analysis positions): every member it writes is required. position_parse reads
 * the same shape and leaves the members state_json adds for clients optional.
 *
 * Thue's move is the game table's {"place":I} or {"paint":C} (the CLI, analysis, the
 * records); in a room the wire's place and paint messages carry the same numbers
 * (PROTOCOL.md section 5). tests/integration/legal_moves.test.mjs checks every listed move
 * and every room state of a played match against these with an independent validator
 * (ajv), and that a move with a member out of bounds fails the schema and gets bad_move.
 */
#include <string.h>

#include "games/circle/circle.h"
#include "games/dots/dots.h"
#include "games/nim/nim.h"
#include "games/northcott/northcott.h"
#include "games/registry.h"
#include "games/rims/rims.h"
#include "games/thue/engine/match.h"
#include "games/thue/engine/word.h"

#define S_(x) #x
#define S(x) S_(x)

#define HEAD "\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
#define SEAT "{\"type\":\"integer\",\"minimum\":0,\"maximum\":1}"
#define COUNT "{\"type\":\"integer\",\"minimum\":0}"
#define INT(lo, hi) "{\"type\":\"integer\",\"minimum\":" lo ",\"maximum\":" hi "}"
#define INTS(lo, hi, nmin, nmax)                                                              \
    "{\"type\":\"array\",\"items\":" INT(lo, hi) ",\"minItems\":" nmin ",\"maxItems\":" nmax "}"
/* 2^53 - 1: Wythoff's heaps (JavaScript's safe integers). */
#define BIG "9007199254740991"

/* ---- Thue ---------------------------------------------------------------------------- */

#define THUE_K_MAX_M1 63
#define SCHEMA_WORD_MAX 10001
#define THUE_WORD INTS("0", S(THUE_K_MAX_M1), "1", S(SCHEMA_WORD_MAX))
_Static_assert(THUE_K_MAX_M1 + 1 == THUE_K_MAX && SCHEMA_WORD_MAX == THUE_LIMIT_MAX + 1,
               "the Thue schemas' bounds");

static const char thue_move[] =
    "{" HEAD "\"title\":\"a Thue move\","
    "\"description\":\"the builder's place (a position 0..n, n the word's length) or the "
    "painter's paint (a symbol 0..k-1); in a room the place and paint messages carry them\","
    "\"oneOf\":["
    "{\"type\":\"object\",\"required\":[\"place\"],\"properties\":{\"place\":" INT(
        "0", S(SCHEMA_WORD_MAX)) "},\"additionalProperties\":false},"
                               "{\"type\":\"object\",\"required\":[\"paint\"],\"properties\":{"
                               "\"paint\":" INT("0", S(THUE_K_MAX_M1)) "},"
                                                                      "\"additionalProperties\":"
                                                                      "false}]}";

static const char thue_position[] =
    "{" HEAD "\"title\":\"a Thue position\",\"type\":\"object\","
    "\"required\":[\"round\",\"step\",\"word\",\"placed\",\"rounds\",\"moves\"],"
    "\"properties\":{"
    "\"round\":" INT("0", "1") ","
    "\"step\":{\"enum\":[\"place\",\"paint\",\"over\"]},"
    "\"word\":" THUE_WORD ","
    "\"placed\":{\"description\":\"the builder's position while the painter is to "
    "move, else null\",\"anyOf\":[" INT("0", S(THUE_LIMIT_MAX)) ",{\"type\":\"null\"}]},"
    "\"rounds\":{\"type\":\"array\",\"minItems\":2,\"maxItems\":2,\"items\":{"
    "\"type\":\"object\",\"required\":[\"builder\",\"points\",\"end\",\"repetition\",\"word\"],"
    "\"properties\":{\"builder\":" SEAT ",\"points\":" COUNT ","
    "\"end\":{\"enum\":[\"playing\",\"repetition\",\"limit\",\"forfeit\",\"not_played\"]},"
    "\"repetition\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\","
    "\"required\":[\"start\",\"period\",\"length\"],\"properties\":{\"start\":" COUNT ","
    "\"period\":" INT("1", S(THUE_LIMIT_MAX)) ",\"length\":" INT("2", S(SCHEMA_WORD_MAX)) "}}]},"
    "\"word\":{\"anyOf\":[{\"type\":\"null\"}," THUE_WORD "]}}}},"
    "\"moves\":" COUNT "}}";

/* ---- Nim and Rims -------------------------------------------------------------------- */

#define THUE_NIM_HEAPS_MAX_M1 15
_Static_assert(THUE_NIM_HEAPS_MAX_M1 + 1 == THUE_NIM_HEAPS_MAX, "the Nim schema's bounds");

static const char nim_move[] =
    "{" HEAD "\"title\":\"a Nim move\",\"type\":\"object\",\"required\":[\"heap\",\"take\"],"
    "\"properties\":{\"heap\":" INT("0", S(THUE_NIM_HEAPS_MAX_M1)) ","
    "\"take\":" INT("1", S(THUE_NIM_HEAP_MAX)) "},\"additionalProperties\":false}";

static const char nim_position[] =
    "{" HEAD "\"title\":\"a Nim position\",\"type\":\"object\","
    "\"required\":[\"heaps\",\"to_move\",\"moves\",\"nim_sum\"],\"properties\":{"
    "\"heaps\":" INTS("0", S(THUE_NIM_HEAP_MAX), "1", S(THUE_NIM_HEAPS_MAX)) ","
    "\"to_move\":" SEAT ",\"moves\":" COUNT ","
    "\"nim_sum\":{\"description\":\"the heaps' XOR (written, not read)\","
    "\"type\":\"integer\",\"minimum\":0}}}";

#define THUE_RIMS_REGIONS_MAX_M1 63
_Static_assert(THUE_RIMS_REGIONS_MAX_M1 + 1 == THUE_RIMS_REGIONS_MAX, "the Rims schema's bounds");

static const char rims_move[] =
    "{" HEAD "\"title\":\"a Rims move\",\"type\":\"object\",\"required\":[\"heap\",\"take\"],"
    "\"description\":\"take dots from a heap of the current (sorted) heaps and split the rest "
    "in split and rest - split\","
    "\"properties\":{\"heap\":" INT("0", S(THUE_RIMS_REGIONS_MAX_M1)) ","
    "\"take\":" INT("1", S(THUE_RIMS_HEAP_MAX)) ","
    "\"split\":" INT("0", S(THUE_RIMS_HEAP_MAX)) "},\"additionalProperties\":false}";

static const char rims_position[] =
    "{" HEAD "\"title\":\"a Rims position\",\"type\":\"object\","
    "\"required\":[\"heaps\",\"to_move\",\"moves\"],\"properties\":{"
    "\"heaps\":{\"description\":\"largest first, no empty heap\","
    "\"type\":\"array\",\"items\":" INT("1", S(THUE_RIMS_HEAP_MAX)) ","
    "\"maxItems\":" S(THUE_RIMS_REGIONS_MAX) "},"
    "\"to_move\":" SEAT ",\"moves\":" COUNT "}}";

/* ---- the circle game and Northcott's ------------------------------------------------- */

#define THUE_CIRCLE_FIELDS_MAX_M1 63
_Static_assert(THUE_CIRCLE_FIELDS_MAX_M1 + 1 == THUE_CIRCLE_FIELDS_MAX,
               "the circle schema's bounds");

static const char circle_move[] =
    "{" HEAD "\"title\":\"a circle game move\",\"type\":\"object\",\"required\":[\"from\",\"to\"],"
    "\"properties\":{\"from\":" INT("0", S(THUE_CIRCLE_FIELDS_MAX_M1)) ","
    "\"to\":" INT("0", S(THUE_CIRCLE_FIELDS_MAX_M1)) ","
    "\"dir\":{\"description\":\"1 toward increasing field numbers, -1 the other way; "
    "optional where only one way leads there\",\"enum\":[1,-1]}},"
    "\"additionalProperties\":false}";

static const char circle_position[] =
    "{" HEAD "\"title\":\"a circle game position\",\"type\":\"object\","
    "\"required\":[\"fields\",\"board\",\"to_move\",\"moves\"],\"properties\":{"
    "\"fields\":" INT("3", S(THUE_CIRCLE_FIELDS_MAX)) ","
    "\"board\":{\"description\":\"field 0 first: W white, B black, . empty\","
    "\"type\":\"string\",\"pattern\":\"^[WB.]{3," S(THUE_CIRCLE_FIELDS_MAX) "}$\"},"
    "\"to_move\":" SEAT ",\"moves\":" COUNT "}}";

#define THUE_NORTHCOTT_ROWS_MAX_M1 15
#define THUE_NORTHCOTT_COLS_MAX_M1 31
_Static_assert(THUE_NORTHCOTT_ROWS_MAX_M1 + 1 == THUE_NORTHCOTT_ROWS_MAX &&
                   THUE_NORTHCOTT_COLS_MAX_M1 + 1 == THUE_NORTHCOTT_COLS_MAX,
               "the Northcott schema's bounds");

static const char northcott_move[] =
    "{" HEAD "\"title\":\"a Northcott move\",\"type\":\"object\",\"required\":[\"row\",\"to\"],"
    "\"properties\":{\"row\":" INT("0", S(THUE_NORTHCOTT_ROWS_MAX_M1)) ","
    "\"to\":" INT("0", S(THUE_NORTHCOTT_COLS_MAX_M1)) "},\"additionalProperties\":false}";

static const char northcott_position[] =
    "{" HEAD "\"title\":\"a Northcott position\",\"type\":\"object\","
    "\"required\":[\"rows\",\"cols\",\"white\",\"black\",\"to_move\",\"moves\"],\"properties\":{"
    "\"rows\":" INT("1", S(THUE_NORTHCOTT_ROWS_MAX)) ","
    "\"cols\":" INT("2", S(THUE_NORTHCOTT_COLS_MAX)) ","
    "\"white\":" INTS("0", S(THUE_NORTHCOTT_COLS_MAX_M1), "1", S(THUE_NORTHCOTT_ROWS_MAX)) ","
    "\"black\":" INTS("0", S(THUE_NORTHCOTT_COLS_MAX_M1), "1", S(THUE_NORTHCOTT_ROWS_MAX)) ","
    "\"to_move\":" SEAT ",\"moves\":" COUNT "}}";

/* ---- Wythoff's game ------------------------------------------------------------------ */

static const char wythoff_move[] =
    "{" HEAD "\"title\":\"a Wythoff move\",\"type\":\"object\",\"required\":[\"take\"],"
    "\"properties\":{\"take\":{\"description\":\"[x,y]: x tokens from heap 0, y from heap 1, "
    "not both 0 (|x - y| < a when both)\",\"type\":\"array\",\"minItems\":2,\"maxItems\":2,"
    "\"items\":" INT("0", BIG) ",\"not\":{\"const\":[0,0]}}},\"additionalProperties\":false}";

static const char wythoff_position[] =
    "{" HEAD "\"title\":\"a Wythoff position\",\"type\":\"object\","
    "\"required\":[\"heaps\",\"to_move\",\"moves\",\"a\"],\"properties\":{"
    "\"heaps\":" INTS("0", BIG, "2", "2") ","
    "\"to_move\":" SEAT ",\"moves\":" COUNT ",\"a\":" INT("1", "1000") "}}";

/* ---- dots and boxes ------------------------------------------------------------------ */

#define DOTS_MOVE_PROPS                                                                         \
    "\"properties\":{\"dir\":{\"enum\":[\"h\",\"v\"]},\"row\":" INT("0", S(THUE_DOTS_SIDE_MAX)) \
    ",\"col\":" INT("0", S(THUE_DOTS_SIDE_MAX)) "},\"additionalProperties\":false"
#define DOTS_GRID(lo, hi)                                                                        \
    "{\"type\":\"array\",\"minItems\":1,\"maxItems\":11,\"items\":" INTS(lo, hi, "1", "11") "}"

static const char dots_move[] =
    "{" HEAD "\"title\":\"a dots and boxes move\",\"type\":\"object\","
    "\"description\":\"a line: h from dot (row, col) to (row, col + 1), v to (row + 1, col)\","
    "\"required\":[\"dir\",\"row\",\"col\"]," DOTS_MOVE_PROPS "}";

static const char dots_position[] =
    "{" HEAD "\"title\":\"a dots and boxes position\",\"type\":\"object\","
    "\"required\":[\"lines\",\"owners\",\"score\",\"to_move\",\"last\",\"again\",\"moves\"],"
    "\"properties\":{"
    "\"lines\":{\"description\":\"-1 undrawn, 0 or 1 its drawer, 2 drawn before play\","
    "\"type\":\"object\",\"required\":[\"h\",\"v\"],"
    "\"properties\":{\"h\":" DOTS_GRID("-1", "2") ",\"v\":" DOTS_GRID("-1", "2") "}},"
    "\"owners\":{\"description\":\"each box's owner, -1 none yet\","
    "\"type\":\"array\",\"minItems\":1,\"maxItems\":10,\"items\":" INTS("-1", "1", "1", "10") "},"
    "\"score\":" INTS("0", "100", "2", "2") ","
    "\"to_move\":" SEAT ","
    "\"last\":{\"description\":\"the last line drawn, null before the first\","
    "\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\"," DOTS_MOVE_PROPS "}]},"
    "\"again\":{\"description\":\"the last line completed a box: its drawer moves again\","
    "\"type\":\"boolean\"},"
    "\"moves\":" COUNT "}}";

/* ---- the table ----------------------------------------------------------------------- */

static const struct {
    const char *game, *move, *position;
} schemas[] = {
    {"thue", thue_move, thue_position},
    {"nim", nim_move, nim_position},
    {"circle", circle_move, circle_position},
    {"northcott", northcott_move, northcott_position},
    {"rims", rims_move, rims_position},
    {"wythoff", wythoff_move, wythoff_position},
    {"dots", dots_move, dots_position},
};

json_t *thue_game_schema(const thue_gamedef *g, bool position)
{
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++)
        if (strcmp(schemas[i].game, g->name) == 0)
            return json_loads(position ? schemas[i].position : schemas[i].move, 0, NULL);
    return json_null();
}
