/*
 * store_puzzles.c: the puzzles table (schema 7, store.h): the write of a new puzzle and
 * the reads behind GET /api/puzzles, /api/puzzles/{id} and /api/puzzles/daily, on either
 * engine through sql.h. A puzzle row is written once and never updated: the same
 * position of the same game and options is kept once (the insert leaves the row there).
 *
 * Every function runs one transaction on the store thread and leaves none open.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/errors.h"
#include "log.h"
#include "store/sql.h"
#include "store/store_internal.h"

/* The columns of THUE__STMT_PUZZLE_PAGE and THUE__STMT_PUZZLE_GET, in order. */
enum {
    PC_ID = 0,
    PC_GAME,
    PC_OPTIONS,
    PC_POSITION,
    PC_TO_MOVE,
    PC_SOLUTION,
    PC_VALUE,
    PC_MOVES,
    PC_PLIES,
    PC_DIFFICULTY,
    PC_SOURCE,
    PC_CREATED
};

static json_t *col_str(thue__db *d, thue__stmt w, int c)
{
    const char *t = thue__sql_column_text(d, w, c);
    return t ? json_string(t) : json_null();
}

/* The puzzle of the row w stands on (new reference; NULL out of memory). */
static json_t *row_json(thue__db *d, thue__stmt w)
{
    return json_pack(
        "{s:I,s:o,s:o,s:o,s:I,s:o,s:I,s:I,s:I,s:I,s:o,s:I}", "id",
        (json_int_t)thue__sql_column_int64(d, w, PC_ID), "game", col_str(d, w, PC_GAME), "options",
        thue__col_json(d, w, PC_OPTIONS), "position", thue__col_json(d, w, PC_POSITION), "to_move",
        (json_int_t)thue__sql_column_int64(d, w, PC_TO_MOVE), "solution",
        thue__col_json(d, w, PC_SOLUTION), "value", (json_int_t)thue__sql_column_int64(d, w, PC_VALUE),
        "moves", (json_int_t)thue__sql_column_int64(d, w, PC_MOVES), "plies",
        (json_int_t)thue__sql_column_int64(d, w, PC_PLIES), "difficulty",
        (json_int_t)thue__sql_column_int64(d, w, PC_DIFFICULTY), "source", col_str(d, w, PC_SOURCE),
        "created_at", (json_int_t)thue__sql_column_int64(d, w, PC_CREATED));
}

int thue__db_add_puzzle(thue__db *d, const thue_puzzle_row *row, int64_t created_ms, int crash,
                        int64_t *id)
{
    *id = 0;
    int err = thue__db_begin(d, 1);
    if (err)
        return err;
    const thue__stmt w = THUE__STMT_PUZZLE_INSERT;
    thue__sql_bind_text(d, w, 1, row->game);
    thue__sql_bind_text(d, w, 2, row->options);
    thue__sql_bind_text(d, w, 3, row->position);
    thue__sql_bind_int(d, w, 4, row->to_move);
    thue__sql_bind_text(d, w, 5, row->solution);
    thue__sql_bind_int(d, w, 6, row->value);
    thue__sql_bind_int(d, w, 7, row->moves);
    thue__sql_bind_int(d, w, 8, row->plies);
    thue__sql_bind_int(d, w, 9, row->difficulty);
    thue__sql_bind_text(d, w, 10, row->source);
    thue__sql_bind_int64(d, w, 11, created_ms);
    int rc = thue__sql_step(d, w);
    if (rc == THUE__SQL_ROW)
        *id = thue__sql_column_int64(d, w, 0);
    else if (rc != THUE__SQL_DONE) /* DONE: stored already */
        err = thue__db_fail(d, "cannot add a puzzle");
    if (rc == THUE__SQL_ROW && thue__sql_step(d, w) < 0) /* finishes the statement */
        err = thue__db_fail(d, "cannot add a puzzle");
    thue__sql_reset(d, w);
    thue__crash_point(crash);
    if (err) {
        thue__db_rollback(d);
        *id = 0;
        return err;
    }
    err = thue__db_commit(d);
    if (err)
        *id = 0;
    return err;
}

void thue__db_puzzle_counts(thue__db *d, thue__text *out)
{
    if (thue__db_begin(d, 0) != 0) {
        thue__text_internal(out);
        return;
    }
    const thue__stmt w = THUE__STMT_PUZZLE_COUNTS;
    json_t *root = json_object();
    int rc;
    while (root != NULL && (rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        const char *game = thue__sql_column_text(d, w, 0);
        if (game != NULL &&
            json_object_set_new(root, game, json_integer(thue__sql_column_int64(d, w, 1))) != 0) {
            json_decref(root);
            root = NULL;
        }
    }
    if (root != NULL && rc != THUE__SQL_DONE) {
        thue__db_fail(d, "cannot count puzzles");
        json_decref(root);
        root = NULL;
    }
    thue__sql_reset(d, w);
    if (thue__db_commit(d) != 0) {
        json_decref(root);
        root = NULL;
    }
    thue__text_json(out, root);
}

/* game's puzzles created before `before`: their count, or -1 (logged). */
static int64_t count_before(thue__db *d, const char *game, int64_t before)
{
    const thue__stmt w = THUE__STMT_PUZZLE_COUNT;
    thue__sql_bind_text(d, w, 1, game);
    thue__sql_bind_int64(d, w, 2, before);
    int64_t n = -1;
    if (thue__sql_step(d, w) == THUE__SQL_ROW)
        n = thue__sql_column_int64(d, w, 0);
    else
        thue__db_fail(d, "cannot count puzzles");
    thue__sql_reset(d, w);
    return n;
}

/* game's puzzles created before `before`, by id, `limit` from `offset`, appended to arr.
 * 0 or -1 (logged, or out of memory). */
static int page_rows(thue__db *d, const char *game, int64_t before, int64_t limit, int64_t offset,
                     json_t *arr)
{
    const thue__stmt w = THUE__STMT_PUZZLE_PAGE;
    thue__sql_bind_text(d, w, 1, game);
    thue__sql_bind_int64(d, w, 2, before);
    thue__sql_bind_int64(d, w, 3, limit);
    thue__sql_bind_int64(d, w, 4, offset);
    int rc, bad = 0;
    while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW)
        if (!bad && json_array_append_new(arr, row_json(d, w)) != 0)
            bad = 1;
    if (rc != THUE__SQL_DONE) {
        thue__db_fail(d, "cannot read puzzles");
        bad = 1;
    }
    thue__sql_reset(d, w);
    return bad ? -1 : 0;
}

void thue__db_puzzles_json(thue__db *d, const char *game, int page, int per_page, thue__text *out)
{
    if (thue__db_begin(d, 0) != 0) {
        thue__text_internal(out);
        return;
    }
    int64_t total = count_before(d, game, INT64_MAX);
    json_t *arr = json_array(), *root = NULL;
    if (total >= 0 && arr != NULL &&
        page_rows(d, game, INT64_MAX, per_page, (int64_t)(page - 1) * per_page, arr) == 0) {
        int64_t pages = (total + per_page - 1) / per_page;
        root = json_pack("{s:s,s:O,s:i,s:I,s:I}", "game", game, "puzzles", arr, "page", page,
                         "pages", (json_int_t)(pages > 0 ? pages : 1), "total", (json_int_t)total);
    }
    json_decref(arr);
    if (thue__db_commit(d) != 0) {
        json_decref(root);
        root = NULL;
    }
    thue__text_json(out, root);
}

void thue__db_puzzle_json(thue__db *d, int64_t id, thue__text *out)
{
    if (thue__db_begin(d, 0) != 0) {
        thue__text_internal(out);
        return;
    }
    const thue__stmt w = THUE__STMT_PUZZLE_GET;
    thue__sql_bind_int64(d, w, 1, id);
    int rc = thue__sql_step(d, w);
    json_t *root = rc == THUE__SQL_ROW ? row_json(d, w) : NULL;
    if (rc != THUE__SQL_ROW && rc != THUE__SQL_DONE)
        thue__db_fail(d, "cannot read a puzzle");
    thue__sql_reset(d, w);
    int committed = thue__db_commit(d) == 0;
    if (rc == THUE__SQL_DONE && committed) {
        thue__text_error(out, 404, "not_found", "no puzzle has that id");
        return;
    }
    if (!committed) {
        json_decref(root);
        root = NULL;
    }
    thue__text_json(out, root);
}

void thue__db_puzzle_daily(thue__db *d, const char *game, const char *date, int64_t day_start_ms,
                           uint64_t pick, thue__text *out)
{
    if (thue__db_begin(d, 0) != 0) {
        thue__text_internal(out);
        return;
    }
    int64_t before = day_start_ms, n = count_before(d, game, before);
    int64_t index = n > 0 ? (int64_t)(pick % (uint64_t)n) : 0;
    if (n == 0) /* none stored before the day: the game's first puzzle, whenever it came */
        before = INT64_MAX;
    json_t *arr = json_array(), *root = NULL;
    int ok = n >= 0 && arr != NULL && page_rows(d, game, before, 1, index, arr) == 0;
    if (thue__db_commit(d) != 0)
        ok = 0;
    if (ok && json_array_size(arr) == 0) {
        json_decref(arr);
        thue__text_error(out, 404, "not_found", "that game has no puzzle yet");
        return;
    }
    if (ok) {
        root = json_incref(json_array_get(arr, 0));
        if (json_object_set_new(root, "date", json_string(date)) != 0) {
            json_decref(root);
            root = NULL;
        }
    }
    json_decref(arr);
    thue__text_json(out, root);
}
