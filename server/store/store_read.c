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
#include "store/store_internal.h"
#include "strbuf.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/* ---- bodies ---------------------------------------------------------------------------- */

static void set_body(thue__text *out, int status, char *body)
{
    out->status = status;
    out->body = body;
    out->len = body ? strlen(body) : 0;
}

static void set_error(thue__text *out, int status, const char *code, const char *message)
{
    char buf[256];
    /* code and message are our own constants: nothing to escape. */
    snprintf(buf, sizeof buf, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, message);
    set_body(out, status, strdup(buf));
}

static void set_not_found(thue__text *out)
{
    set_error(out, 404, "not_found", "no stored match has that id");
}

static void set_internal(thue__text *out)
{
    set_error(out, 500, "internal", "the match store failed; see the server's log");
}

/* Dumps root (stealing it) as the 200 body; 500 when memory runs out. */
static void set_json(thue__text *out, json_t *root)
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

static json_t *col_str(sqlite3_stmt *st, int c)
{
    const unsigned char *t = sqlite3_column_text(st, c);
    return t ? json_string((const char *)t) : json_null();
}

static json_t *col_int(sqlite3_stmt *st, int c)
{
    if (sqlite3_column_type(st, c) == SQLITE_NULL)
        return json_null();
    return json_integer(sqlite3_column_int64(st, c));
}

static json_t *col_bool(sqlite3_stmt *st, int c)
{
    return json_boolean(sqlite3_column_int(st, c) != 0);
}

static json_t *col_num(sqlite3_stmt *st, int c)
{
    if (sqlite3_column_type(st, c) == SQLITE_NULL)
        return json_null();
    return jnum(sqlite3_column_double(st, c));
}

/* A column of JSON text as JSON: null for NULL, and for text that is not JSON (logged:
 * the server wrote it, so only a damaged file has such). */
static json_t *col_json(sqlite3_stmt *st, int c)
{
    const unsigned char *t = sqlite3_column_text(st, c);
    if (t == NULL)
        return json_null();
    json_t *j = json_loads((const char *)t, JSON_DECODE_ANY, NULL);
    if (j == NULL)
        thue_log(THUE_LOG_ERROR, "store: a stored JSON column is not JSON: %.60s", (const char *)t);
    return j ? j : json_null();
}

/* Whether the row's game column (col) names another game than Thue. */
static int col_is_game(sqlite3_stmt *st, int col)
{
    const unsigned char *g = sqlite3_column_text(st, col);
    return g != NULL && strcmp((const char *)g, "thue") != 0;
}

/* ---- GET /api/matches/{id} --------------------------------------------------------------- */

static json_t *match_options(sqlite3_stmt *st)
{
    json_t *clock = json_null();
    if (sqlite3_column_type(st, THUE__MC_CLOCK_INITIAL) != SQLITE_NULL)
        clock = json_pack("{s:o,s:o}", "initial_ms", col_int(st, THUE__MC_CLOCK_INITIAL),
                          "increment_ms", col_int(st, THUE__MC_CLOCK_INCREMENT));
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "variant", col_str(st, THUE__MC_VARIANT), "k",
                     col_int(st, THUE__MC_K), "limit", col_int(st, THUE__MC_LIMIT), "clock", clock,
                     "rated", col_bool(st, THUE__MC_RATED), "private",
                     col_bool(st, THUE__MC_PRIVATE), "first_builder",
                     col_str(st, THUE__MC_FIRST_BUILDER));
}

/* players: [{"name","kind"[,"bot"]}, x2]: with_bot adds "bot" (SPEC or null). name_col is
 * seat 0's name column; kind (and bot) follow it, then seat 1's. */
static json_t *match_players(sqlite3_stmt *st, int name_col, int stride, int with_bot)
{
    json_t *arr = json_array();
    for (int p = 0; arr && p < 2; p++) {
        int c = name_col + stride * p;
        json_t *o =
            with_bot ? json_pack("{s:o,s:o,s:o}", "name", col_str(st, c), "kind",
                                 col_str(st, c + 1), "bot", col_str(st, c + 2))
                     : json_pack("{s:o,s:o}", "name", col_str(st, c), "kind", col_str(st, c + 1));
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr;
}

static json_t *match_result(sqlite3_stmt *st, int winner_col)
{
    return json_pack("{s:o,s:o}", "winner", col_int(st, winner_col), "reason",
                     col_str(st, winner_col + 1));
}

static json_t *match_ratings(sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, THUE__MC_RATINGS) == SQLITE_NULL)
        return json_null();
    json_t *arr = json_array();
    for (int p = 0; arr && p < 2; p++) {
        int c = THUE__MC_RATINGS + 4 * p;
        json_t *o =
            json_pack("{s:o,s:o,s:o,s:o}", "before", col_num(st, c), "after", col_num(st, c + 1),
                      "rd_before", col_num(st, c + 2), "rd_after", col_num(st, c + 3));
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
    sqlite3_stmt *st = d->stmt[THUE__STMT_MOVES_GET];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    json_t *arr = json_array();
    while (arr && (*rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o =
            game
                ? json_pack("{s:i,s:i,s:o,s:o}", "ply", sqlite3_column_int(st, THUE__MV_PLY),
                            "seat", sqlite3_column_int(st, THUE__MV_SEAT), "move",
                            col_json(st, THUE__MV_MOVE), "think_ms", col_num(st, THUE__MV_THINK_MS))
                : json_pack("{s:i,s:i,s:i,s:s,s:i,s:o}", "round",
                            sqlite3_column_int(st, THUE__MV_ROUND), "ply",
                            sqlite3_column_int(st, THUE__MV_PLY), "seat",
                            sqlite3_column_int(st, THUE__MV_SEAT), "kind",
                            sqlite3_column_int(st, THUE__MV_IS_PAINT) ? "paint" : "place", "value",
                            sqlite3_column_int(st, THUE__MV_VALUE), "think_ms",
                            col_num(st, THUE__MV_THINK_MS));
        if (json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    if (arr && *rc != SQLITE_DONE) {
        thue__db_fail(d, "cannot read moves");
        json_decref(arr);
        arr = NULL;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return arr;
}

/* The members every match has after its moves; 0 or -1 (out of memory). */
static int match_tail(sqlite3_stmt *st, json_t *root)
{
    int tour = sqlite3_column_type(st, THUE__MC_TOURNAMENT) != SQLITE_NULL;
    if (json_object_set_new(root, "ratings", match_ratings(st)) != 0 ||
        json_object_set_new(root, "started_at", col_int(st, THUE__MC_STARTED)) != 0 ||
        json_object_set_new(root, "ended_at", col_int(st, THUE__MC_ENDED)) != 0 ||
        json_object_set_new(root, "tournament", col_str(st, THUE__MC_TOURNAMENT)) != 0 ||
        json_object_set_new(root, "tournament_round",
                            tour ? col_int(st, THUE__MC_TOURNAMENT_ROUND) : json_null()) != 0)
        return -1;
    return 0;
}

/* Another game's options: what a room of it has beside the game's own options. */
static json_t *game_match_options(sqlite3_stmt *st)
{
    json_t *clock = json_null();
    if (sqlite3_column_type(st, THUE__MC_CLOCK_INITIAL) != SQLITE_NULL)
        clock = json_pack("{s:o,s:o}", "initial_ms", col_int(st, THUE__MC_CLOCK_INITIAL),
                          "increment_ms", col_int(st, THUE__MC_CLOCK_INCREMENT));
    return json_pack("{s:o,s:o,s:o,s:o}", "clock", clock, "rated", col_bool(st, THUE__MC_RATED),
                     "private", col_bool(st, THUE__MC_PRIVATE), "first_builder",
                     col_str(st, THUE__MC_FIRST_BUILDER));
}

/* Another game's match: {"match","room","number","game","game_options","options",
 * "players","first","result","points","start","final","moves","ratings",...}. */
static json_t *game_match_object(thue__db *d, sqlite3_stmt *st, const char *id, int *rc)
{
    json_t *root = json_pack(
        "{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:[o,o],s:o,s:o}", "match", col_str(st, THUE__MC_ID),
        "room", col_str(st, THUE__MC_ROOM), "number", col_int(st, THUE__MC_NUMBER), "game",
        col_str(st, THUE__MC_GAME), "game_options", col_json(st, THUE__MC_GAME_OPTIONS), "options",
        game_match_options(st), "players", match_players(st, THUE__MC_NAME0, 3, 1), "first",
        col_int(st, THUE__MC_GAME_FIRST), "result", match_result(st, THUE__MC_WINNER), "points",
        col_int(st, THUE__MC_POINTS0), col_int(st, THUE__MC_POINTS1), "start",
        col_json(st, THUE__MC_START_STATE), "final", col_json(st, THUE__MC_FINAL_STATE));
    json_t *moves = root ? match_moves(d, id, 1, rc) : NULL;
    if (moves == NULL || json_object_set_new(root, "moves", moves) != 0 ||
        match_tail(st, root) != 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static json_t *match_object(thue__db *d, sqlite3_stmt *st, const char *id, int *rc)
{
    if (col_is_game(st, THUE__MC_GAME))
        return game_match_object(d, st, id, rc);
    json_t *rounds = json_loads((const char *)sqlite3_column_text(st, THUE__MC_ROUNDS), 0, NULL);
    if (rounds == NULL) {
        thue_log(THUE_LOG_ERROR, "store: %s: match %s: the rounds are not JSON", d->path, id);
        return NULL;
    }
    json_t *root =
        json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:[o,o],s:o}", "match", col_str(st, THUE__MC_ID),
                  "room", col_str(st, THUE__MC_ROOM), "number", col_int(st, THUE__MC_NUMBER),
                  "options", match_options(st), "players", match_players(st, THUE__MC_NAME0, 3, 1),
                  "result", match_result(st, THUE__MC_WINNER), "points",
                  col_int(st, THUE__MC_POINTS0), col_int(st, THUE__MC_POINTS1), "rounds", rounds);
    json_t *moves = root ? match_moves(d, id, 0, rc) : NULL;
    if (moves == NULL) {
        json_decref(root);
        return NULL;
    }
    if (json_object_set_new(root, "moves", moves) != 0 || match_tail(st, root) != 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* Whether match id exists and viewer may see it: 1, 0 (no, or no such match: the same
 * answer, so that a stranger cannot tell a private match from none), or -1 (logged). */
static int visible(thue__db *d, const char *id, int64_t viewer)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_MATCH_VISIBLE];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, viewer);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        thue__db_fail(d, "cannot read a match");
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

void thue__db_match_json(thue__db *d, const char *id, int64_t viewer, int crash,
                         thue__text *out)
{
    if (thue__db_begin(d, 0) != 0) {
        set_internal(out);
        return;
    }
    int seen = visible(d, id, viewer);
    if (seen <= 0) {
        if (seen == 0)
            set_not_found(out);
        else
            set_internal(out);
        thue__crash_point(crash);
        thue__db_commit(d);
        return;
    }
    sqlite3_stmt *st = d->stmt[THUE__STMT_MATCH_GET];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        set_not_found(out);
    } else if (rc != SQLITE_ROW) {
        thue__db_fail(d, "cannot read a match");
        set_internal(out);
    } else {
        rc = SQLITE_DONE;
        json_t *root = match_object(d, st, id, &rc);
        if (root)
            set_json(out, root);
        else
            set_internal(out); /* logged by whoever failed, or out of memory */
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
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
static json_t *summary(sqlite3_stmt *st)
{
    if (col_is_game(st, PC_GAME))
        return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:[o,o],s:o}", "match",
                         col_str(st, PC_ID), "room", col_str(st, PC_ROOM), "number",
                         col_int(st, PC_NUMBER), "game", col_str(st, PC_GAME), "game_options",
                         col_json(st, PC_GAME_OPTIONS), "rated", col_bool(st, PC_RATED), "players",
                         match_players(st, PC_NAME0, 2, 0), "result", match_result(st, PC_WINNER),
                         "points", col_int(st, PC_POINTS0), col_int(st, PC_POINTS1), "ended_at",
                         col_int(st, PC_ENDED));
    return json_pack(
        "{s:o,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:[o,o],s:o}", "match", col_str(st, PC_ID), "room",
        col_str(st, PC_ROOM), "number", col_int(st, PC_NUMBER), "game", "thue", "variant",
        col_str(st, PC_VARIANT), "k", col_int(st, PC_K), "rated", col_bool(st, PC_RATED), "players",
        match_players(st, PC_NAME0, 2, 0), "result", match_result(st, PC_WINNER), "points",
        col_int(st, PC_POINTS0), col_int(st, PC_POINTS1), "ended_at", col_int(st, PC_ENDED));
}

/* Counts the player's matches and lists one page of them; NULL on failure (logged). */
static json_t *player_page(thue__db *d, const char *player, const char *game, int64_t viewer,
                           int page, int per_page)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_PLAYER_COUNT];
    sqlite3_bind_text(st, 1, player, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, viewer);
    if (game)
        sqlite3_bind_text(st, 3, game, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    int rc = sqlite3_step(st);
    int64_t total = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (rc != SQLITE_ROW)
        thue__db_fail(d, "cannot count a player's matches");
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_ROW)
        return NULL;
    int64_t pages = total == 0 ? 1 : (total + per_page - 1) / per_page;

    json_t *list = json_array();
    st = d->stmt[THUE__STMT_PLAYER_PAGE];
    sqlite3_bind_text(st, 1, player, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, per_page);
    sqlite3_bind_int64(st, 3, (int64_t)(page - 1) * per_page);
    sqlite3_bind_int64(st, 4, viewer);
    if (game)
        sqlite3_bind_text(st, 5, game, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 5);
    while (list && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (json_array_append_new(list, summary(st)) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    if (list && rc != SQLITE_DONE) {
        thue__db_fail(d, "cannot list a player's matches");
        json_decref(list);
        list = NULL;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
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
        set_json(out, root);
    else
        set_internal(out);
}

/* ---- GET /api/matches/{id}/moves.csv ----------------------------------------------------- */

/* Whether match id is another game's: 1, 0 (Thue's), or -1 (logged). */
static int is_game_match(thue__db *d, const char *id)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_MATCH_GET];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int game = rc == SQLITE_ROW && col_is_game(st, THUE__MC_GAME);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        thue__db_fail(d, "cannot read a match");
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? game : -1;
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
    sqlite3_stmt *st = d->stmt[THUE__STMT_MOVES_GET];
    int rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    if (game) {
        thue_strbuf_printf(b, "ply,seat,move,think_ms\n");
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *mv = sqlite3_column_text(st, THUE__MV_MOVE);
            thue_strbuf_printf(b, "%d,%d,", sqlite3_column_int(st, THUE__MV_PLY),
                               sqlite3_column_int(st, THUE__MV_SEAT));
            csv_quoted(b, mv ? (const char *)mv : "");
            thue_strbuf_printf(b, ",%.3f\n", sqlite3_column_double(st, THUE__MV_THINK_MS));
        }
    } else {
        thue_strbuf_printf(b, "round,ply,seat,role,move,think_ms\n");
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            thue_strbuf_printf(b, "%d,%d,%d,%s,%d,%.3f\n", sqlite3_column_int(st, 0),
                               sqlite3_column_int(st, 1), sqlite3_column_int(st, 2),
                               sqlite3_column_int(st, 3) ? "painter" : "builder",
                               sqlite3_column_int(st, 4), sqlite3_column_double(st, 5));
    }
    if (rc != SQLITE_DONE)
        thue__db_fail(d, "cannot read moves");
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 200 : 500;
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
