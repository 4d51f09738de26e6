/*
 * test_cli_wythoff.c: `thue wythoff` (clients/cli/cmd_wythoff.c) as a separate process
 * (cli_run.h): its JSON (the tables agree, the rows are the P-positions, the pairs at
 * 10^k agree with the exact method and mark the double method's failures, the first
 * wrong n), the perfect move at huge heaps, and a usage error naming each bad flag; and
 * the game through the generic commands (bestmove and solve with --game wythoff).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cli_run.h"

static json_t *json_of(run_result *r)
{
    assert_status(r, 0);
    json_error_t je;
    json_t *j = json_loads(r->out, 0, &je);
    if (j == NULL)
        fail_msg("not JSON (%s): %s", je.text, r->out);
    return j;
}

static void test_cli_wythoff_table_json(void **state)
{
    (void)state;
    run_result r =
        run("wythoff", "--a", "2", "--n", "10240", "--rows", "2", "--powers", "31", "--json", NULL);
    json_t *j = json_of(&r);
    assert_int_equal(json_integer_value(json_object_get(j, "a")), 2);
    assert_true(json_is_true(json_object_get(j, "agree")));
    assert_int_equal(json_array_size(json_object_get(j, "runs")), 3);
    json_t *rows = json_object_get(j, "rows");
    assert_int_equal(json_array_size(rows), 2);
    json_t *last = json_array_get(rows, 1);
    /* The source's Table 3: n = 10240 -> (14481, 34961). */
    assert_int_equal(json_integer_value(json_array_get(last, 0)), 10240);
    assert_int_equal(json_integer_value(json_array_get(last, 1)), 14481);
    assert_int_equal(json_integer_value(json_array_get(last, 2)), 34961);
    json_t *p = json_object_get(j, "powers");
    assert_int_equal(json_array_size(p), 31);
    for (size_t k = 0; k < 31; k++) {
        json_t *e = json_array_get(p, k);
        assert_true(json_is_true(json_object_get(e, "exact_agrees")));
        /* a = 2: the double method is right up to 10^15 and wrong from 10^16 on. */
        assert_int_equal(json_is_true(json_object_get(e, "algebraic_ok")), k + 1 <= 15);
    }
    assert_string_equal(json_string_value(json_object_get(json_array_get(p, 30), "a_n")),
                        "14142135623730950488016887242096");
    assert_int_equal(json_integer_value(json_object_get(j, "powers_first_wrong_k")), 16);
    assert_int_equal(json_integer_value(json_object_get(j, "double_first_wrong_n")), 93222358);
    json_decref(j);
    run_free(&r);
}

static void test_cli_wythoff_move(void **state)
{
    (void)state;
    run_result r =
        run("wythoff", "--n", "0", "--move", "100000000000000000000000000000,7", "--json", NULL);
    json_t *j = json_of(&r);
    json_t *m = json_object_get(j, "move");
    assert_true(json_is_false(json_object_get(m, "p_position")));
    /* 7 = B_3 for a = 1 (A_3 = 4): take the other heap down to 4. */
    assert_string_equal(json_string_value(json_array_get(json_object_get(m, "to"), 0)), "4");
    assert_string_equal(json_string_value(json_array_get(json_object_get(m, "to"), 1)), "7");
    json_decref(j);
    run_free(&r);
    r = run("wythoff", "--n", "0", "--a", "2", "--move", "14,34", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "a P-position");
    run_free(&r);
}

/* --move alone answers the move and nothing else (it printed the default table too); the
 * table's flags, given as well, add the table. */
static void test_cli_wythoff_move_alone(void **state)
{
    (void)state;
    run_result r = run("wythoff", "--move", "5,8", NULL);
    assert_output(r, 0,
                  "heaps (5, 8): the player to move wins by taking 0 and 5, to the P-position "
                  "(5, 3)\n");
    r = run("wythoff", "--move", "3,5", "--json", NULL);
    assert_output(r, 0, "{\"a\":1,\"move\":{\"heaps\":[\"3\",\"5\"],\"p_position\":true}}\n");
    r = run("wythoff", "--move", "3,5", "--rows", "1", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "the P-table for n = 0..1000");
    assert_contains(r.out, "a P-position");
    run_free(&r);
}

static void test_cli_wythoff_usage_errors(void **state)
{
    (void)state;
    assert_usage_error(run("wythoff", "--a", "0", NULL), "--a");
    assert_usage_error(run("wythoff", "--a", "1001", NULL), "--a");
    assert_usage_error(run("wythoff", "--n", "-1", NULL), "--n");
    assert_usage_error(run("wythoff", "--n", "100000001", NULL), "--n");
    assert_usage_error(run("wythoff", "--method", "mex", NULL), "--method");
    assert_usage_error(run("wythoff", "--powers", "0", NULL), "--powers");
    assert_usage_error(run("wythoff", "--rows", "x", NULL), "--rows");
    assert_usage_error(run("wythoff", "--move", "1", NULL), "--move");
    assert_usage_error(run("wythoff", "--move", "1,200000000000000000000000000000000", NULL),
                       "--move");
    assert_usage_error(run("wythoff", "--frobnicate", NULL), "--frobnicate");
    run_result r = run("wythoff", "--help", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "--method");
    run_free(&r);
}

static void test_cli_wythoff_game_commands(void **state)
{
    (void)state;
    run_result r = run("bestmove", "--game", "wythoff", "--position", "{\"heaps\":[10,20]}",
                       "--bot", "perfect", "--json", NULL);
    json_t *j = json_of(&r);
    assert_int_equal(json_integer_value(json_object_get(j, "value")), 1);
    json_t *take = json_object_get(json_object_get(j, "move"), "take");
    /* (10, 20), a = 1: 10 = B_4, A_4 = 6: take 14 from heap 1. */
    assert_int_equal(json_integer_value(json_array_get(take, 0)), 0);
    assert_int_equal(json_integer_value(json_array_get(take, 1)), 14);
    json_decref(j);
    run_free(&r);
    r = run("solve", "--game", "wythoff", "--options", "{\"a\":2}", "--position",
            "{\"heaps\":[4,10]}", "--json", NULL);
    j = json_of(&r);
    assert_int_equal(json_integer_value(json_object_get(j, "value")), -1); /* (4,10) is P */
    json_decref(j);
    run_free(&r);
    r = run("games", "--json", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "\"name\":\"wythoff\"");
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_wythoff_table_json),
        cmocka_unit_test(test_cli_wythoff_move),
        cmocka_unit_test(test_cli_wythoff_move_alone),
        cmocka_unit_test(test_cli_wythoff_usage_errors),
        cmocka_unit_test(test_cli_wythoff_game_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
