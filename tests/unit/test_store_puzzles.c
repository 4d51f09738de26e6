/*
 * test_store_puzzles.c: the puzzles table (schema 7, store.h's thue_store_add_puzzle and
 * the reads behind /api/puzzles), on either engine.
 *
 * - A puzzle is written with a new id; the same position of the same game and options
 *   again is left as it was (id 0), whatever the new row says.
 * - The counts, a game's pages (oldest first), one puzzle by id (404 for none), each
 *   puzzle's JSON members as written.
 * - The daily puzzle: among the puzzles stored before the day, the pick modulo their
 *   count; none before the day: the game's first; a game without puzzles: 404.
 */
#include "store_helpers.h"

static int64_t add(thue_store *s, uv_loop_t *loop, const char *game, const char *position,
                   const char *solution)
{
    thue_puzzle_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.game, sizeof row.game, "%s", game);
    row.options = "{\"heaps\":[3,4,5],\"misere\":false}";
    row.position = position;
    row.solution = solution;
    row.to_move = 1;
    row.value = 1;
    row.moves = 12;
    row.plies = 7;
    row.difficulty = 4;
    snprintf(row.source, sizeof row.source, "seed:42");
    wres w;
    memset(&w, 0, sizeof w);
    assert_int_equal(thue_store_add_puzzle(s, &row, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.err, 0);
    return w.id;
}

static json_t *read_done(uv_loop_t *loop, rres *r, int status)
{
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(r->calls, 1);
    assert_int_equal(r->status, status);
    json_t *j = json_loadb(r->body, r->len, 0, NULL);
    assert_non_null(j);
    rres_clear(r);
    return j;
}

static json_t *daily(thue_store *s, uv_loop_t *loop, const char *game, int64_t day, uint64_t pick,
                     int status)
{
    rres r;
    memset(&r, 0, sizeof r);
    assert_int_equal(thue_store_puzzle_daily_json(s, game, "2026-11-29", day, pick, on_read, &r),
                     0);
    return read_done(loop, &r, status);
}

static void test_store_puzzles_rows_and_reads(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);

    int64_t a =
        add(s, &loop, "nim", "{\"heaps\":[1,2,4],\"to_move\":1}", "{\"heap\":2,\"take\":1}");
    int64_t b = add(s, &loop, "nim", "{\"heaps\":[2,5],\"to_move\":1}", "{\"heap\":1,\"take\":3}");
    int64_t c = add(s, &loop, "rims", "{\"heaps\":[2,5],\"to_move\":1}", "{\"heap\":1,\"take\":3}");
    assert_true(a > 0 && b > a && c > b);
    /* The same position again: left alone, even with another solution. */
    assert_int_equal(
        add(s, &loop, "nim", "{\"heaps\":[2,5],\"to_move\":1}", "{\"heap\":0,\"take\":1}"), 0);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM puzzles"), 3);

    rres r;
    memset(&r, 0, sizeof r);
    assert_int_equal(thue_store_puzzle_counts(s, on_read, &r), 0);
    json_t *j = read_done(&loop, &r, 200);
    assert_int_equal(json_integer_value(json_object_get(j, "nim")), 2);
    assert_int_equal(json_integer_value(json_object_get(j, "rims")), 1);
    assert_int_equal(json_object_size(j), 2);
    json_decref(j);

    /* Pages of one: the oldest first. */
    assert_int_equal(thue_store_puzzles_json(s, "nim", 2, 1, on_read, &r), 0);
    j = read_done(&loop, &r, 200);
    assert_string_equal(json_string_value(json_object_get(j, "game")), "nim");
    assert_int_equal(json_integer_value(json_object_get(j, "page")), 2);
    assert_int_equal(json_integer_value(json_object_get(j, "pages")), 2);
    assert_int_equal(json_integer_value(json_object_get(j, "total")), 2);
    json_t *p = json_array_get(json_object_get(j, "puzzles"), 0);
    assert_int_equal(json_integer_value(json_object_get(p, "id")), b);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "solution"), "take")),
                     3);
    assert_int_equal(json_integer_value(json_object_get(p, "to_move")), 1);
    assert_int_equal(json_integer_value(json_object_get(p, "moves")), 12);
    assert_int_equal(json_integer_value(json_object_get(p, "plies")), 7);
    assert_int_equal(json_integer_value(json_object_get(p, "difficulty")), 4);
    assert_int_equal(json_integer_value(json_object_get(p, "value")), 1);
    assert_string_equal(json_string_value(json_object_get(p, "source")), "seed:42");
    assert_false(json_is_true(json_object_get(json_object_get(p, "options"), "misere")));
    assert_true(json_integer_value(json_object_get(p, "created_at")) > 1700000000000);
    json_decref(j);
    /* A game without puzzles: an empty first page. */
    assert_int_equal(thue_store_puzzles_json(s, "dots", 1, 10, on_read, &r), 0);
    j = read_done(&loop, &r, 200);
    assert_int_equal(json_array_size(json_object_get(j, "puzzles")), 0);
    assert_int_equal(json_integer_value(json_object_get(j, "pages")), 1);
    json_decref(j);

    /* One by id; none. */
    assert_int_equal(thue_store_puzzle_json(s, c, on_read, &r), 0);
    j = read_done(&loop, &r, 200);
    assert_string_equal(json_string_value(json_object_get(j, "game")), "rims");
    json_decref(j);
    assert_int_equal(thue_store_puzzle_json(s, c + 100, on_read, &r), 0);
    j = read_done(&loop, &r, 404);
    assert_not_found(j);

    /* The day's puzzle: none stored before the day -> the game's first, whatever the
     * pick; a later day sees both: the pick modulo 2. */
    j = daily(s, &loop, "nim", 1000, 7, 200);
    assert_int_equal(json_integer_value(json_object_get(j, "id")), a);
    assert_string_equal(json_string_value(json_object_get(j, "date")), "2026-11-29");
    json_decref(j);
    int64_t later = INT64_MAX / 2;
    j = daily(s, &loop, "nim", later, 7, 200);
    assert_int_equal(json_integer_value(json_object_get(j, "id")), b);
    json_decref(j);
    j = daily(s, &loop, "nim", later, 8, 200);
    assert_int_equal(json_integer_value(json_object_get(j, "id")), a);
    json_decref(j);
    j = daily(s, &loop, "dots", later, 8, 404);
    assert_not_found(j);

    close_run(s, &loop);
    uv_loop_close(&loop);
    tdir_remove(&t);
}

/* Bad rows are refused at once. */
static void test_store_puzzles_refuses(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    thue_puzzle_row row;
    memset(&row, 0, sizeof row);
    row.options = row.position = row.solution = "{}";
    assert_int_equal(thue_store_add_puzzle(s, &row, on_write, NULL), THUE_EINVAL); /* no game */
    snprintf(row.game, sizeof row.game, "nim");
    row.solution = NULL;
    assert_int_equal(thue_store_add_puzzle(s, &row, on_write, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_puzzles_json(s, "nim", 0, 10, on_read, NULL), THUE_EINVAL);
    close_run(s, &loop);
    uv_loop_close(&loop);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_puzzles_rows_and_reads),
        cmocka_unit_test(test_store_puzzles_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
