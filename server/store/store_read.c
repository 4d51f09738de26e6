/*
 * store_read.c: the texts of the HTTP reads (PROTOCOL.md section 13), made on the store
 * thread: GET /api/matches/{id} and /api/matches?player= as JSON (jansson), and
 * GET /api/matches/{id}/moves.csv.
 *
 * Another game's match (the game column is not "thue") has its own shape: the game's
 * name and options, its start and final states and its moves as the game's JSON
 * (PROTOCOL.md section 13); a Thue match's JSON is what it was before other games.
 *
 * Each read runs in one read transaction, so the match row and its moves come from the
 * same snapshot. A status and a body always come back: 200 with the text, 404 with
 * PROTOCOL.md's error object (code not_found), or 500 with one (code internal) when
 * SQLite or memory failed; the body is NULL only when even that could not be allocated.
 *
 * Numbers: a whole double (a rating of 1500, a think time of 3 ms) is written as an
 * integer, like JavaScript; others with up to 15 significant digits (0.4 is "0.4", not
 * jansson's default "0.40000000000000002"), which is exact for every value that has a
 * short decimal form and within 1e-15 otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/errors.h"
#include "log.h"
#include "store/sql.h"
#include "store/store_internal.h"
#include "strbuf.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/* ---- bodies ---------------------------------------------------------------------------- */

void thue__text_body(thue__text *out, int status, char *body)
{
    out->status = status;
    out->body = body;
    out->len = body ? strlen(body) : 0;
}

void thue__text_error(thue__text *out, int status, const char *code, const char *message)
{
    char buf[256];
    /* code and message are our own constants: nothing to escape. */
    snprintf(buf, sizeof buf, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, message);
    thue__text_body(out, status, strdup(buf));
}

#define set_body thue__text_body
#define set_error thue__text_error

static void set_not_found(thue__text *out)
{
    set_error(out, 404, "not_found", "no stored match has that id");
}

void thue__text_internal(thue__text *out)
{
    set_error(out, 500, "internal", "the store failed; see the server's log");
}
#define set_internal thue__text_internal

void thue__text_json(thue__text *out, json_t *root)
{
    char *text = root ? json_dumps(root, DUMP_FLAGS) : NULL;
    json_decref(root);
    if (text == NULL) {
        thue_log(THUE_LOG_ERROR, "store: out of memory writing a reply");
        set_internal(out);
        return;
    }
    set_body(out, 200, text);
}

/* ---- column values as JSON (new references) ----------------------------------------- */

static json_t *jnum(double v)
{
    if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

static json_t *col_str(thue__db *d, thue__stmt w, int c)
{
    const char *t = thue__sql_column_text(d, w, c);
    return t ? json_string((const char *)t) : json_null();
}

static json_t *col_int(thue__db *d, thue__stmt w, int c)
{
    if (thue__sql_column_null(d, w, c))
        return json_null();
    return json_integer(thue__sql_column_int64(d, w, c));
}

static json_t *col_bool(thue__db *d, thue__stmt w, int c)
{
    return json_boolean(thue__sql_column_int(d, w, c) != 0);
}

static json_t *col_num(thue__db *d, thue__stmt w, int c)
{
    if (thue__sql_column_null(d, w, c))
        return json_null();
    return jnum(thue__sql_column_double(d, w, c));
}

/* A column of JSON text as JSON: null for NULL, and for text that is not JSON (logged:
 * the server wrote it, so only a damaged file has such). */
json_t *thue__col_json(thue__db *d, thue__stmt w, int c)
{
    const char *t = thue__sql_column_text(d, w, c);
    if (t == NULL)
        return json_null();
    json_t *j = json_loads((const char *)t, JSON_DECODE_ANY, NULL);
    if (j == NULL)
        thue_log(THUE_LOG_ERROR, "store: a stored JSON column is not JSON: %.60s", (const char *)t);
    return j ? j : json_null();
}

/* Whether the row's game column (col) names another game than Thue. */
static int col_is_game(thue__db *d, thue__stmt w, int col)
{
    const char *g = thue__sql_column_text(d, w, col);
    return g != NULL && strcmp((const char *)g, "thue") != 0;
}

/* ---- GET /api/matches/{id} --------------------------------------------------------------- */

static json_t *match_options(thue__db *d, thue__stmt w)
{
    json_t *clock = json_null();
    if (!thue__sql_column_null(d, w, THUE__MC_CLOCK_INITIAL))
        clock = json_pack("{s:o,s:o}", "initial_ms", col_int(d, w, THUE__MC_CLOCK_INITIAL),
                          "increment_ms", col_int(d, w, THUE__MC_CLOCK_INCREMENT));
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "variant", col_str(d, w, THUE__MC_VARIANT),
                     "k", col_int(d, w, THUE__MC_K), "limit", col_int(d, w, THUE__MC_LIMIT),
                     "clock", clock, "rated", col_bool(d, w, THUE__MC_RATED), "private",
                     col_bool(d, w, THUE__MC_PRIVATE), "first_builder",
                     col_str(d, w, THUE__MC_FIRST_BUILDER));
}

/* players: [{"name","kind"[,"bot"]}, x2]: with_bot adds "bot" (SPEC or null). name_col is
 * seat 0's name column; kind (and bot) follow it, then seat 1's. */
static json_t *match_players(thue__db *d, thue__stmt w, int name_col, int stride, int with_bot)
{
    json_t *arr = json_array();
    for (int p = 0; arr && p < 2; p++) {
        int c = name_col + stride * p;
        json_t *o = with_bot ? json_pack("{s:o,s:o,s:o}", "name", col_str(d, w, c), "kind",
                                         col_str(d, w, c + 1), "bot", col_str(d, w, c + 2))
                             : json_pack("{s:o,s:o}", "name", col_str(d, w, c), "kind",
                                         col_str(d, w, c + 1));
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr;
}

static json_t *match_result(thue__db *d, thue__stmt w, int winner_col)
{
    return json_pack("{s:o,s:o}", "winner", col_int(d, w, winner_col), "reason",
                     col_str(d, w, winner_col + 1));
}

static json_t *match_ratings(thue__db *d, thue__stmt w)
{
    if (thue__sql_column_null(d, w, THUE__MC_RATINGS))
        return json_null();
    json_t *arr = json_array();
    for (int p = 0; arr && p < 2; p++) {
        int c = THUE__MC_RATINGS + 4 * p;
        json_t *o = json_pack("{s:o,s:o,s:o,s:o}", "before", col_num(d, w, c), "after",
                              col_num(d, w, c + 1), "rd_before", col_num(d, w, c + 2), "rd_after",
                              col_num(d, w, c + 3));
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr;
}

/* The moves of match id; NULL with *rc set on a SQLite error or out of memory. game:
 * another game's moves ({"ply","seat","move","think_ms"}), else Thue's. */
static json_t *match_moves(thue__db *d, const char *id, int game, int *rc)
{
    thue__stmt w = THUE__STMT_MOVES_GET;
    thue__sql_bind_text(d, w, 1, id);
    json_t *arr = json_array();
    while (arr && (*rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        json_t *o =
            game ? json_pack("{s:i,s:i,s:o,s:o}", "ply", thue__sql_column_int(d, w, THUE__MV_PLY),
                             "seat", thue__sql_column_int(d, w, THUE__MV_SEAT), "move",
                             thue__col_json(d, w, THUE__MV_MOVE), "think_ms",
                             col_num(d, w, THUE__MV_THINK_MS))
                 : json_pack("{s:i,s:i,s:i,s:s,s:i,s:o}", "round",
                             thue__sql_column_int(d, w, THUE__MV_ROUND), "ply",
                             thue__sql_column_int(d, w, THUE__MV_PLY), "seat",
                             thue__sql_column_int(d, w, THUE__MV_SEAT), "kind",
                             thue__sql_column_int(d, w, THUE__MV_IS_PAINT) ? "paint" : "place",
                             "value", thue__sql_column_int(d, w, THUE__MV_VALUE), "think_ms",
                             col_num(d, w, THUE__MV_THINK_MS));
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    if (arr && *rc != THUE__SQL_DONE) {
        thue__db_fail(d, "cannot read moves");
        json_decref(arr);
        arr = NULL;
    }
    thue__sql_reset(d, w);
    return arr;
}

/* The members every match has after its moves; 0 or -1 (out of memory). */
static int match_tail(thue__db *d, thue__stmt w, json_t *root)
{
    int tour = !thue__sql_column_null(d, w, THUE__MC_TOURNAMENT);
    if (json_object_set_new(root, "ratings", match_ratings(d, w)) != 0 ||
        json_object_set_new(root, "started_at", col_int(d, w, THUE__MC_STARTED)) != 0 ||
        json_object_set_new(root, "ended_at", col_int(d, w, THUE__MC_ENDED)) != 0 ||
        json_object_set_new(root, "tournament", col_str(d, w, THUE__MC_TOURNAMENT)) != 0 ||
        json_object_set_new(root, "tournament_round",
                            tour ? col_int(d, w, THUE__MC_TOURNAMENT_ROUND) : json_null()) != 0)
        return -1;
    return 0;
}

/* Another game's options: what a room of it has beside the game's own options. */
static json_t *game_match_options(thue__db *d, thue__stmt w)
{
    json_t *clock = json_null();
    if (!thue__sql_column_null(d, w, THUE__MC_CLOCK_INITIAL))
        clock = json_pack("{s:o,s:o}", "initial_ms", col_int(d, w, THUE__MC_CLOCK_INITIAL),
                          "increment_ms", col_int(d, w, THUE__MC_CLOCK_INCREMENT));
    return json_pack("{s:o,s:o,s:o,s:o}", "clock", clock, "rated", col_bool(d, w, THUE__MC_RATED),
                     "private", col_bool(d, w, THUE__MC_PRIVATE), "first_builder",
                     col_str(d, w, THUE__MC_FIRST_BUILDER));
}

/* Another game's match: {"match","room","number","game","game_options","options",
 * "players","first","result","points","start","final","moves","ratings",...}. */
static json_t *game_match_object(thue__db *d, thue__stmt w, const char *id, int *rc)
{
    json_t *root = json_pack(
        "{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:[o,o],s:o,s:o}", "match",
        col_str(d, w, THUE__MC_ID), "room", col_str(d, w, THUE__MC_ROOM), "number",
        col_int(d, w, THUE__MC_NUMBER), "game", col_str(d, w, THUE__MC_GAME), "game_options",
        thue__col_json(d, w, THUE__MC_GAME_OPTIONS), "options", game_match_options(d, w), "players",
        match_players(d, w, THUE__MC_NAME0, 3, 1), "first", col_int(d, w, THUE__MC_GAME_FIRST),
        "result", match_result(d, w, THUE__MC_WINNER), "points", col_int(d, w, THUE__MC_POINTS0),
        col_int(d, w, THUE__MC_POINTS1), "start", thue__col_json(d, w, THUE__MC_START_STATE), "final",
        thue__col_json(d, w, THUE__MC_FINAL_STATE));
    json_t *moves = root ? match_moves(d, id, 1, rc) : NULL;
    if (moves == NULL || json_object_set_new(root, "moves", moves) != 0 ||
        match_tail(d, w, root) != 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static json_t *match_object(thue__db *d, thue__stmt w, const char *id, int *rc)
{
    if (col_is_game(d, w, THUE__MC_GAME))
        return game_match_object(d, w, id, rc);
    json_t *rounds =
        json_loads((const char *)thue__sql_column_text(d, w, THUE__MC_ROUNDS), 0, NULL);
    if (rounds == NULL) {
        thue_log(THUE_LOG_ERROR, "store: %s: match %s: the rounds are not JSON", d->path, id);
        return NULL;
    }
    json_t *root = json_pack(
        "{s:o,s:o,s:o,s:o,s:o,s:o,s:[o,o],s:o}", "match", col_str(d, w, THUE__MC_ID), "room",
        col_str(d, w, THUE__MC_ROOM), "number", col_int(d, w, THUE__MC_NUMBER), "options",
        match_options(d, w), "players", match_players(d, w, THUE__MC_NAME0, 3, 1), "result",
        match_result(d, w, THUE__MC_WINNER), "points", col_int(d, w, THUE__MC_POINTS0),
        col_int(d, w, THUE__MC_POINTS1), "rounds", rounds);
    json_t *moves = root ? match_moves(d, id, 0, rc) : NULL;
    if (moves == NULL) {
        json_decref(root);
        return NULL;
    }
    if (json_object_set_new(root, "moves", moves) != 0 || match_tail(d, w, root) != 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* Whether match id exists and viewer may see it: 1, 0 (no, or no such match: the same
 * answer, so that a stranger cannot tell a private match from none), or -1 (logged). */
static int visible(thue__db *d, const char *id, int64_t viewer)
{
    thue__stmt w = THUE__STMT_MATCH_VISIBLE;
    thue__sql_bind_text(d, w, 1, id);
    thue__sql_bind_int64(d, w, 2, viewer);
    int rc = thue__sql_step(d, w);
    if (rc != THUE__SQL_ROW && rc != THUE__SQL_DONE)
        thue__db_fail(d, "cannot read a match");
    thue__sql_reset(d, w);
    return rc == THUE__SQL_ROW ? 1 : rc == THUE__SQL_DONE ? 0 : -1;
}

/* Begins a read of match id for viewer: 1 when it may go on (the transaction open), 0
 * when *out holds the answer already (the match is not there for viewer: 404; a failure:
 * 500) and the transaction is over. */
static int begin_visible(thue__db *d, const char *id, int64_t viewer, int crash, thue__text *out)
{
    if (thue__db_begin(d, 0) != 0) {
        set_internal(out);
        return 0;
    }
    int seen = visible(d, id, viewer);
    if (seen > 0)
        return 1;
    if (seen == 0)
        set_not_found(out);
    else
        set_internal(out);
    thue__crash_point(crash);
    thue__db_commit(d);
    return 0;
}

void thue__db_match_json(thue__db *d, const char *id, int64_t viewer, int crash, thue__text *out)
{
    if (!begin_visible(d, id, viewer, crash, out))
        return;
    thue__stmt w = THUE__STMT_MATCH_GET;
    thue__sql_bind_text(d, w, 1, id);
    int rc = thue__sql_step(d, w);
    if (rc == THUE__SQL_DONE) {
        set_not_found(out);
    } else if (rc != THUE__SQL_ROW) {
        thue__db_fail(d, "cannot read a match");
        set_internal(out);
    } else {
        rc = THUE__SQL_DONE;
        json_t *root = match_object(d, w, id, &rc);
        if (root)
            thue__text_json(out, root);
        else
            set_internal(out); /* logged by whoever failed, or out of memory */
    }
    thue__sql_reset(d, w);
    thue__crash_point(crash);
    if (thue__db_commit(d) != 0 && out->status == 200) {
        free(out->body);
        set_internal(out);
    }
}

/* ---- GET /api/matches?player=NAME&page=N ------------------------------------------------ */

/* The columns of THUE__STMT_PLAYER_PAGE. */
enum {
    PC_ID,
    PC_ROOM,
    PC_NUMBER,
    PC_VARIANT,
    PC_K,
    PC_RATED,
    PC_NAME0,
    PC_KIND0,
    PC_NAME1,
    PC_KIND1,
    PC_WINNER,
    PC_REASON,
    PC_POINTS0,
    PC_POINTS1,
    PC_ENDED,
    PC_GAME,
    PC_GAME_OPTIONS
};

/* A match in a list. Thue's: as before other games, with "game":"thue" after "number";
 * another game's: "game" and "game_options" instead of "variant" and "k". */
static json_t *summary(thue__db *d, thue__stmt w)
{
    if (col_is_game(d, w, PC_GAME))
        return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:[o,o],s:o}", "match",
                         col_str(d, w, PC_ID), "room", col_str(d, w, PC_ROOM), "number",
                         col_int(d, w, PC_NUMBER), "game", col_str(d, w, PC_GAME), "game_options",
                         thue__col_json(d, w, PC_GAME_OPTIONS), "rated", col_bool(d, w, PC_RATED),
                         "players", match_players(d, w, PC_NAME0, 2, 0), "result",
                         match_result(d, w, PC_WINNER), "points", col_int(d, w, PC_POINTS0),
                         col_int(d, w, PC_POINTS1), "ended_at", col_int(d, w, PC_ENDED));
    return json_pack("{s:o,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:[o,o],s:o}", "match",
                     col_str(d, w, PC_ID), "room", col_str(d, w, PC_ROOM), "number",
                     col_int(d, w, PC_NUMBER), "game", "thue", "variant", col_str(d, w, PC_VARIANT),
                     "k", col_int(d, w, PC_K), "rated", col_bool(d, w, PC_RATED), "players",
                     match_players(d, w, PC_NAME0, 2, 0), "result", match_result(d, w, PC_WINNER),
                     "points", col_int(d, w, PC_POINTS0), col_int(d, w, PC_POINTS1), "ended_at",
                     col_int(d, w, PC_ENDED));
}

/* Counts the player's matches and lists one page of them; NULL on failure (logged). */
static json_t *player_page(thue__db *d, const char *player, const char *game, int64_t viewer,
                           int page, int per_page)
{
    /* Names compare ignoring ASCII case: through the ASCII-lowercased name (SQLite's
     * NOCASE columns, PostgreSQL's name keys). */
    char *key = malloc(strlen(player) + 1);
    if (key == NULL) {
        thue_log(THUE_LOG_ERROR, "store: out of memory listing a player's matches");
        return NULL;
    }
    thue__name_key(player, key, strlen(player) + 1);
    thue__stmt w = THUE__STMT_PLAYER_COUNT;
    thue__sql_bind_text(d, w, 1, key);
    thue__sql_bind_int64(d, w, 2, viewer);
    if (game)
        thue__sql_bind_text(d, w, 3, game);
    else
        thue__sql_bind_null(d, w, 3);
    int rc = thue__sql_step(d, w);
    int64_t total = rc == THUE__SQL_ROW ? thue__sql_column_int64(d, w, 0) : 0;
    if (rc != THUE__SQL_ROW)
        thue__db_fail(d, "cannot count a player's matches");
    thue__sql_reset(d, w);
    if (rc != THUE__SQL_ROW) {
        free(key);
        return NULL;
    }
    int64_t pages = total == 0 ? 1 : (total + per_page - 1) / per_page;

    json_t *list = json_array();
    w = THUE__STMT_PLAYER_PAGE;
    thue__sql_bind_text(d, w, 1, key);
    thue__sql_bind_int(d, w, 2, per_page);
    thue__sql_bind_int64(d, w, 3, (int64_t)(page - 1) * per_page);
    thue__sql_bind_int64(d, w, 4, viewer);
    if (game)
        thue__sql_bind_text(d, w, 5, game);
    else
        thue__sql_bind_null(d, w, 5);
    while (list && (rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        if (json_array_append_new(list, summary(d, w)) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    if (list && rc != THUE__SQL_DONE) {
        thue__db_fail(d, "cannot list a player's matches");
        json_decref(list);
        list = NULL;
    }
    thue__sql_reset(d, w);
    free(key);
    if (list == NULL)
        return NULL;
    return json_pack("{s:o,s:i,s:I}", "matches", list, "page", page, "pages", (json_int_t)pages);
}

void thue__db_matches_json(thue__db *d, const char *player, const char *game, int64_t viewer,
                           int page, int per_page, int crash, thue__text *out)
{
    if (thue__db_begin(d, 0) != 0) {
        set_internal(out);
        return;
    }
    json_t *root = player_page(d, player, game, viewer, page, per_page);
    thue__crash_point(crash);
    if (thue__db_commit(d) != 0) {
        json_decref(root);
        set_internal(out);
        return;
    }
    if (root)
        thue__text_json(out, root);
    else
        set_internal(out);
}

/* ---- GET /api/matches/{id}/moves.csv ----------------------------------------------------- */

/* Whether match id is another game's: 1, 0 (Thue's), or -1 (logged). */
static int is_game_match(thue__db *d, const char *id)
{
    thue__stmt w = THUE__STMT_MATCH_GET;
    thue__sql_bind_text(d, w, 1, id);
    int rc = thue__sql_step(d, w);
    int game = rc == THUE__SQL_ROW && col_is_game(d, w, THUE__MC_GAME);
    if (rc != THUE__SQL_ROW && rc != THUE__SQL_DONE)
        thue__db_fail(d, "cannot read a match");
    thue__sql_reset(d, w);
    return rc == THUE__SQL_ROW || rc == THUE__SQL_DONE ? game : -1;
}

/* One CSV field in double quotes, its quotes doubled (RFC 4180). */
static void csv_quoted(thue_strbuf *b, const char *s)
{
    thue_strbuf_printf(b, "\"");
    for (const char *q; (q = strchr(s, '"')) != NULL; s = q + 1)
        thue_strbuf_printf(b, "%.*s\"\"", (int)(q - s), s);
    thue_strbuf_printf(b, "%s\"", s);
}

/* Writes the CSV into b: 200, 404 (no such match) or 500 (logged). */
static int moves_csv(thue__db *d, const char *id, int64_t viewer, thue_strbuf *b)
{
    int seen = visible(d, id, viewer);
    if (seen <= 0)
        return seen == 0 ? 404 : 500;
    int game = is_game_match(d, id);
    if (game < 0)
        return 500;
    thue__stmt w = THUE__STMT_MOVES_GET;
    int rc;
    thue__sql_bind_text(d, w, 1, id);
    if (game) {
        thue_strbuf_printf(b, "ply,seat,move,think_ms\n");
        while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
            const char *mv = thue__sql_column_text(d, w, THUE__MV_MOVE);
            thue_strbuf_printf(b, "%d,%d,", thue__sql_column_int(d, w, THUE__MV_PLY),
                               thue__sql_column_int(d, w, THUE__MV_SEAT));
            csv_quoted(b, mv ? (const char *)mv : "");
            thue_strbuf_printf(b, ",%.3f\n", thue__sql_column_double(d, w, THUE__MV_THINK_MS));
        }
    } else {
        thue_strbuf_printf(b, "round,ply,seat,role,move,think_ms\n");
        while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW)
            thue_strbuf_printf(b, "%d,%d,%d,%s,%d,%.3f\n", thue__sql_column_int(d, w, 0),
                               thue__sql_column_int(d, w, 1), thue__sql_column_int(d, w, 2),
                               thue__sql_column_int(d, w, 3) ? "painter" : "builder",
                               thue__sql_column_int(d, w, 4), thue__sql_column_double(d, w, 5));
    }
    if (rc != THUE__SQL_DONE)
        thue__db_fail(d, "cannot read moves");
    thue__sql_reset(d, w);
    return rc == THUE__SQL_DONE ? 200 : 500;
}

void thue__db_moves_csv(thue__db *d, const char *id, int64_t viewer, int crash, thue__text *out)
{
    if (thue__db_begin(d, 0) != 0) {
        set_internal(out);
        return;
    }
    thue_strbuf b = {NULL, 0, 0, 0};
    int status = moves_csv(d, id, viewer, &b);
    thue__crash_point(crash);
    if (thue__db_commit(d) != 0)
        status = 500;
    if (status == 200 && b.oom) {
        thue_log(THUE_LOG_ERROR, "store: out of memory writing moves.csv");
        status = 500;
    }
    if (status == 200) {
        out->status = 200;
        out->body = b.p;
        out->len = b.len;
        return;
    }
    free(b.p);
    if (status == 404)
        set_not_found(out);
    else
        set_internal(out);
}

/* ---- reviews (schema 6) ----------------------------------------------------------------- */

void thue__db_review_json(thue__db *d, const char *id, int64_t viewer, int crash, thue__text *out)
{
    if (!begin_visible(d, id, viewer, crash, out))
        return;
    thue__stmt w = THUE__STMT_REVIEW_GET;
    thue__sql_bind_text(d, w, 1, id);
    int rc = thue__sql_step(d, w);
    if (rc == THUE__SQL_ROW) {
        const char *text = (const char *)thue__sql_column_text(d, w, 0);
        set_body(out, 200, strdup(text ? text : "{}"));
        if (out->body == NULL)
            set_internal(out);
    } else if (rc == THUE__SQL_DONE) {
        thue__text_json(out, json_pack("{s:s,s:s}", "match", id, "status", "pending"));
    } else {
        thue__db_fail(d, "cannot read a review");
        set_internal(out);
    }
    thue__sql_reset(d, w);
    thue__crash_point(crash);
    if (thue__db_commit(d) != 0 && out->status == 200) {
        free(out->body);
        set_internal(out);
    }
}

/* ---- the other servers' changes (thue_store_changes) --------------------------------- */

/* The 32-byte hash column as 64 hex digits (zeros when NULL or malformed). */
static void column_hex(thue__db *d, thue__stmt w, int c, char out[65])
{
    unsigned char h[32];
    memset(h, 0, sizeof h);
    if (d->pg) {
        thue__pg_column_blob(d, w, c, h, 32);
    } else if (sqlite3_column_bytes(d->stmt[w], c) == 32) {
        memcpy(h, sqlite3_column_blob(d->stmt[w], c), 32);
    }
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* The rows of statement w changed since `since`, each made an event by row(); appended to
 * events, the largest change number into *seen. THUE__SQL_DONE or a negative code. */
static int changed_rows(thue__db *d, thue__stmt w, int64_t since, int seq_col, json_t *events,
                        json_t *(*row)(thue__db *, thue__stmt), int64_t *seen)
{
    thue__sql_bind_int64(d, w, 1, since);
    int rc;
    while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        int64_t seq = thue__sql_column_int64(d, w, seq_col);
        if (seq > *seen)
            *seen = seq;
        if (json_array_append_new(events, row(d, w)) != 0) {
            rc = THUE_ENOMEM;
            break;
        }
    }
    thue__sql_reset(d, w);
    return rc;
}

static json_t *account_event(thue__db *d, thue__stmt w)
{
    char hex[65];
    column_hex(d, w, 4, hex);
    const char *bot = thue__sql_column_text(d, w, 3);
    return json_pack("{s:s, s:I, s:s, s:i, s:s, s:s}", "t", "account", "id",
                     (json_int_t)thue__sql_column_int64(d, w, 0), "name",
                     thue__sql_column_text(d, w, 1), "kind", thue__sql_column_int(d, w, 2), "bot",
                     bot ? bot : "", "hash", hex);
}

static json_t *token_event(thue__db *d, thue__stmt w)
{
    char hex[65];
    column_hex(d, w, 2, hex);
    return json_pack("{s:s, s:I, s:s, s:s}", "t", "token", "id",
                     (json_int_t)thue__sql_column_int64(d, w, 0), "name",
                     thue__sql_column_text(d, w, 1), "hash", hex);
}

static json_t *rating_event(thue__db *d, thue__stmt w)
{
    json_t *row = json_pack(
        "{s:I, s:s, s:s, s:s, s:f, s:f, s:f, s:i, s:i, s:i, s:i, s:I}", "account",
        (json_int_t)thue__sql_column_int64(d, w, 0), "name", thue__sql_column_text(d, w, 1),
        "game", thue__sql_column_text(d, w, 2), "pool", thue__sql_column_text(d, w, 3), "rating",
        thue__sql_column_double(d, w, 4), "rd", thue__sql_column_double(d, w, 5), "vol",
        thue__sql_column_double(d, w, 6), "games", thue__sql_column_int(d, w, 7), "wins",
        thue__sql_column_int(d, w, 8), "draws", thue__sql_column_int(d, w, 9), "losses",
        thue__sql_column_int(d, w, 10), "seq", (json_int_t)thue__sql_column_int64(d, w, 11));
    return row ? json_pack("{s:s, s:[o]}", "t", "rating", "rows", row) : NULL;
}

void thue__db_changes(thue__db *d, thue__text *out)
{
    json_t *events = json_array();
    if (events == NULL) {
        set_internal(out);
        return;
    }
    if (d->pg == NULL) { /* a SQLite file has one server: nothing to follow */
        thue__text_json(out, events);
        return;
    }
    if (thue__db_begin(d, 0) != 0) {
        json_decref(events);
        set_internal(out);
        return;
    }
    /* One snapshot; accounts first, so that the tokens and ratings find theirs. */
    int64_t since = d->changes_seen, seen = since;
    int rc = changed_rows(d, THUE__STMT_CHANGES_ACCOUNTS, since, 5, events, account_event, &seen);
    if (rc == THUE__SQL_DONE)
        rc = changed_rows(d, THUE__STMT_CHANGES_TOKENS, since, 3, events, token_event, &seen);
    if (rc == THUE__SQL_DONE)
        rc = changed_rows(d, THUE__STMT_CHANGES_RATINGS, since, 11, events, rating_event, &seen);
    if (rc != THUE__SQL_DONE) {
        if (rc != THUE_ENOMEM)
            thue__db_fail(d, "cannot read the changes");
        thue__db_rollback(d);
        json_decref(events);
        set_internal(out);
        return;
    }
    thue__db_commit(d);
    /* Every digit: a node's copy of a rating is the database's to the last bit. */
    char *text = json_dumps(events, JSON_COMPACT);
    json_decref(events);
    if (text == NULL) {
        set_internal(out); /* read again next time: changes_seen is not moved */
        return;
    }
    d->changes_seen = seen;
    set_body(out, 200, text);
}
