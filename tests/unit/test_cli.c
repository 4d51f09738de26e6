/*
 * test_cli.c: the `thue` command, run as a separate process.
 *
 * Each test runs the built binary through cli_run.h (fork/exec, no shell, output
 * captured in temporary files).
 *
 * Expected outputs are worked out by hand from RULES.md (see the comments at each), not
 * copied from the program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli_run.h"

/* ---- thue, --help ------------------------------------------------------------------ */

static void assert_help(const char *cmd)
{
    run_result r = run(cmd, "--help", NULL);
    assert_status(&r, 0);
    char want[64];
    snprintf(want, sizeof want, "Usage: thue %s", cmd);
    assert_contains(r.out, want);
    run_free(&r);
}

static void test_main_help(void **state)
{
    (void)state;
    run_result r = run("--help", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "Usage: thue COMMAND");
    assert_contains(r.out, "local");
    run_free(&r);
}

static void test_main_no_command_exits_2(void **state)
{
    (void)state;
    const char *none[] = {NULL};
    run_result r = run_argv("", 0, none);
    assert_status(&r, 2);
    assert_string_equal(r.out, "");
    assert_contains(r.err, "Usage: thue");
    run_free(&r);
}

static void test_main_unknown_command_exits_2(void **state)
{
    (void)state;
    assert_usage_error(run("frobnicate", NULL), "unknown command 'frobnicate'");
}

static void test_check_help(void **state)
{
    (void)state;
    assert_help("check");
}

static void test_moves_help(void **state)
{
    (void)state;
    assert_help("moves");
}

static void test_local_help(void **state)
{
    (void)state;
    assert_help("local");
}

static void test_bench_help(void **state)
{
    (void)state;
    assert_help("bench");
}

/* ---- check ------------------------------------------------------------------------- */

static void test_check_square_json(void **state)
{
    (void)state;
    /* 01212: no 2-letter square (01 12 21 12), 12|12 from position 1. */
    assert_output(run("check", "01212", "--json", NULL), 0,
                  "{\"word\":[0,1,2,1,2],\"variant\":\"square\","
                  "\"repetition\":{\"start\":1,\"period\":2,\"length\":4}}\n");
}

static void test_check_clean_word_json_null(void **state)
{
    (void)state;
    /* 0120: pairs 01 12 20, and 01|20 is no square. */
    assert_output(run("check", "0120", "--json", NULL), 0,
                  "{\"word\":[0,1,2,0],\"variant\":\"square\",\"repetition\":null}\n");
}

static void test_check_overlap_aaa(void **state)
{
    (void)state;
    assert_output(run("check", "000", "--variant", "overlap", "--json", NULL), 0,
                  "{\"word\":[0,0,0],\"variant\":\"overlap\","
                  "\"repetition\":{\"start\":0,\"period\":1,\"length\":3}}\n");
}

static void test_check_overlap_aa_is_clean(void **state)
{
    (void)state;
    assert_output(run("check", "00", "--variant=overlap", "--json", NULL), 0,
                  "{\"word\":[0,0],\"variant\":\"overlap\",\"repetition\":null}\n");
}

static void test_check_comma_form(void **state)
{
    (void)state;
    assert_output(run("check", "10,11,10,11", "--json", NULL), 0,
                  "{\"word\":[10,11,10,11],\"variant\":\"square\","
                  "\"repetition\":{\"start\":0,\"period\":2,\"length\":4}}\n");
}

static void test_check_bracket_form(void **state)
{
    (void)state;
    /* [12] is the one symbol 12; 12 without brackets is the two symbols 1, 2. */
    assert_output(run("check", "[12]", "--json", NULL), 0,
                  "{\"word\":[12],\"variant\":\"square\",\"repetition\":null}\n");
    assert_output(run("check", "12", "--json", NULL), 0,
                  "{\"word\":[1,2],\"variant\":\"square\",\"repetition\":null}\n");
}

static void test_check_human_output_names_positions(void **state)
{
    (void)state;
    run_result r = run("check", "01212", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "positions 1..4");
    assert_contains(r.out, "period 2");
    assert_string_equal(r.err, "");
    run_free(&r);
}

static const char *const bad_words[] = {"01a2", "0,,1", "0,1,", "[64]", "-1"};

static void test_check_bad_words_exit_2(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_words / sizeof *bad_words; i++)
        assert_usage_error(run("check", bad_words[i], NULL), "bad word");
}

static void test_check_bad_options_exit_2(void **state)
{
    (void)state;
    assert_usage_error(run("check", "01", "--bogus", NULL), "unknown option '--bogus'");
    assert_usage_error(run("check", "01", "--variant", "triangle", NULL), "triangle");
    assert_usage_error(run("check", "01", "--variant", NULL), "needs a value");
    assert_usage_error(run("check", "01", "02", NULL), "unexpected argument '02'");
    assert_usage_error(run("check", NULL), "missing argument");
}

/* ---- moves ------------------------------------------------------------------------- */

static void test_moves_square_json(void **state)
{
    (void)state;
    /* 0121, k = 3. Position 0: 0 makes 00; 10121 and 20121 are clean. Position 1: 00,
     * 11, 2121. Position 2: 01021 is clean; 11, 22. Position 3: 01201 is clean; 11, 22.
     * Position 4: 01210 is clean; 11, 1212. */
    assert_output(run("moves", "0121", "--k", "3", "--json", NULL), 0,
                  "{\"word\":[0,1,2,1],\"k\":3,\"variant\":\"square\","
                  "\"safe\":[[1,2],[],[0],[0],[0]]}\n");
}

static void test_moves_overlap_json(void **state)
{
    (void)state;
    /* 0110, k = 2, overlaps (aaa, or ababa). Position 0: 00110 and 10110 are clean.
     * Position 1: 00110 clean, 01110 has 111. Position 2: 01010 is ababa, 01110 has 111.
     * Position 3: 01100 clean, 01110. Position 4: 01100 and 01101 clean. */
    assert_output(run("moves", "0110", "--k", "2", "--variant", "overlap", "--json", NULL), 0,
                  "{\"word\":[0,1,1,0],\"k\":2,\"variant\":\"overlap\","
                  "\"safe\":[[0,1],[0],[],[0],[0,1]]}\n");
}

static void test_moves_word_with_repetition_exits_2(void **state)
{
    (void)state;
    assert_usage_error(run("moves", "01212", "--k", "3", "--json", NULL), "already contains");
}

static void test_moves_bad_k_exits_2(void **state)
{
    (void)state;
    assert_usage_error(run("moves", "0121", NULL), "--k is required");
    assert_usage_error(run("moves", "0121", "--k", "1", NULL), "--k must be between 2 and 64");
    assert_usage_error(run("moves", "0121", "--k", "65", NULL), "--k must be between 2 and 64");
    assert_usage_error(run("moves", "0121", "--k", "x", NULL), "whole number");
    assert_usage_error(run("moves", "0121", "--k", NULL), "needs a value");
    assert_usage_error(run("moves", "0123", "--k", "3", NULL), "symbol 3 is out of range");
}

static void test_moves_bad_words_exit_2(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_words / sizeof *bad_words; i++)
        assert_usage_error(run("moves", bad_words[i], "--k", "3", NULL), "bad word");
}

static void test_moves_bad_options_exit_2(void **state)
{
    (void)state;
    assert_usage_error(run("moves", "01", "--k", "3", "--bogus", NULL), "unknown option");
    assert_usage_error(run("moves", "01", "--k", "3", "--variant", "triangle", NULL), "triangle");
    assert_usage_error(run("moves", "01", "02", "--k", "3", NULL), "unexpected argument");
}

/* ---- bench (argument errors and a tiny run) ---------------------------------------- */

static void test_bench_bad_arguments_exit_2(void **state)
{
    (void)state;
    run_result r = run("bench", NULL);
    assert_status(&r, 2);
    assert_string_equal(r.out, "");
    run_free(&r);
    r = run("bench", "foo", NULL);
    assert_status(&r, 2);
    assert_string_equal(r.out, "");
    run_free(&r);
    assert_usage_error(run("bench", "engine", "--k", "1", NULL), "k");
    assert_usage_error(run("bench", "engine", "--sizes", "abc", NULL), "sizes");
    assert_usage_error(run("bench", "engine", "--sizes", "0", NULL), "sizes");
    assert_usage_error(run("bench", "engine", "--bogus", NULL), "unknown option");
}

static void test_bench_engine_tiny_json(void **state)
{
    (void)state;
    run_result r = run("bench", "engine", "--sizes", "20,30", "--words", "1", "--baseline-ms", "20",
                       "--json", NULL);
    assert_status(&r, 0);
    const char *prefix = "{\"rows\":[{\"n\":20,";
    if (strncmp(r.out, prefix, strlen(prefix)) != 0)
        fail_msg("expected stdout to start with %s:\n%s", prefix, r.out);
    assert_contains(r.out, "\"n\":30");
    run_free(&r);
}

/* ---- local ------------------------------------------------------------------------- */

/* RULES.md's worked example as round 1, Ann building: 1,2 -> 02; 1,1 -> 012;
 * 3,1 -> 0121; 4,2 -> 01212, the square 12|12 at 1..4 (period 2). Bob scores 3. */
#define ROUND1 "1\n2\n1\n1\n3\n1\n4\n2\n"
#define ROUND1_JSON                                                                                \
    "{\"builder\":\"Ann\",\"painter\":\"Bob\",\"points\":3,\"end\":\"repetition\","                \
    "\"repetition\":{\"start\":1,\"period\":2,\"length\":4},\"word\":[0,1,2,1,2]}"
/* Round 2, Bob building at the end each time and Ann painting 1,2,0,2,1: 01, 012, 0120,
 * 01202, 012021 are square-free (no equal neighbours; 4-windows 0120 1202 2021 and the
 * 6-window 012|021 are no squares); then a 1 at the end makes 11 at 5..6. Ann scores 5. */
#define ROUND2_ANN5 "1\n1\n2\n2\n3\n0\n4\n2\n5\n1\n6\n1\n"
#define ROUND2_ANN5_JSON                                                                           \
    "{\"builder\":\"Bob\",\"painter\":\"Ann\",\"points\":5,\"end\":\"repetition\","                \
    "\"repetition\":{\"start\":5,\"period\":1,\"length\":2},\"word\":[0,1,2,0,2,1,1]}"
#define PLAYERS_JSON "\"players\":[\"Ann\",\"Bob\"]"
#define NOT_PLAYED_JSON                                                                            \
    "{\"builder\":\"Bob\",\"painter\":\"Ann\",\"points\":0,\"end\":\"not_played\","                \
    "\"repetition\":null,\"word\":null}"

static run_result run_local(const char *script)
{
    return run_in(script, "local", "--k", "3", "--first", "1", "--names", "Ann,Bob", "--json",
                  NULL);
}

static const char ann_wins_json[] =
    "{\"variant\":\"square\",\"k\":3,\"limit\":100," PLAYERS_JSON ",\"rounds\":[" ROUND1_JSON
    "," ROUND2_ANN5_JSON
    "],\"points\":[5,3],\"result\":{\"winner\":\"Ann\",\"reason\":\"score\"}}\n";

static void test_local_full_game_json(void **state)
{
    (void)state;
    run_result r = run_local(ROUND1 ROUND2_ANN5);
    assert_contains(r.err, "Round 1 - Ann builds, Bob paints; Bob has 0 points");
    assert_contains(r.err, "square 12|12 at positions 1..4 (period 2)");
    assert_output(r, 0, ann_wins_json);
}

static void test_local_reprompts_invalid_input(void **state)
{
    (void)state;
    /* Round 2 with junk before Bob's first position and Ann's first symbol. */
    run_result r = run_local(ROUND1 "x\n9\n-1\n\n1 2\n1\n3\n1x\n1\n"
                                    "2\n2\n3\n0\n4\n2\n5\n1\n6\n1\n");
    assert_contains(r.err, "'x' is not a number");
    assert_contains(r.err, "9: position out of range");
    assert_contains(r.err, "-1: position out of range");
    assert_contains(r.err, "empty line");
    assert_contains(r.err, "unexpected ' 2' after the number");
    assert_contains(r.err, "3: symbol out of range");
    assert_contains(r.err, "unexpected 'x' after the number");
    assert_output(r, 0, ann_wins_json);
}

static void test_local_long_line_is_one_bad_answer(void **state)
{
    (void)state;
    /* A 3000-character line of 1s: if its tail were read as further lines, those 1s
     * would be taken as moves and the game would differ. */
    size_t n = 3000, len = strlen(ROUND1);
    char *script = malloc(len + n + 1 + strlen(ROUND2_ANN5) + 1);
    assert_non_null(script);
    memcpy(script, ROUND1, len);
    memset(script + len, '1', n);
    script[len + n] = '\n';
    strcpy(script + len + n + 1, ROUND2_ANN5);
    run_result r = run_local(script);
    free(script);
    assert_contains(r.err, "line too long");
    assert_output(r, 0, ann_wins_json);
}

static void test_local_nul_byte_is_one_bad_answer(void **state)
{
    (void)state;
    /* "1<NUL>3\n" must not be read as 1 (nor its tail as another line). */
    static const char script[] = "1\0"
                                 "3\n" ROUND1 ROUND2_ANN5;
    const char *args[] = {"local", "--first", "1", "--names", "Ann,Bob", "--json", NULL};
    run_result r = run_argv(script, sizeof script - 1, args);
    assert_contains(r.err, "NUL byte");
    assert_output(r, 0, ann_wins_json);
}

static void test_local_crlf_and_blanks_accepted(void **state)
{
    (void)state;
    assert_output(run_local("1\r\n 2\r\n1\t\n1\n3\n1\n4\n2\n" ROUND2_ANN5), 0, ann_wins_json);
}

static void test_local_help_at_prompt(void **state)
{
    (void)state;
    run_result r = run_local("help\n" ROUND1 "HELP\n" ROUND2_ANN5);
    assert_contains(r.err, "resign    give up the match");
    assert_output(r, 0, ann_wins_json);
}

static void test_local_draw(void **state)
{
    (void)state;
    /* The worked example in both rounds: 3 points each. */
    assert_output(run_local(ROUND1 ROUND1), 0,
                  "{\"variant\":\"square\",\"k\":3,\"limit\":100," PLAYERS_JSON
                  ",\"rounds\":[" ROUND1_JSON ",{\"builder\":\"Bob\",\"painter\":\"Ann\","
                  "\"points\":3,\"end\":\"repetition\",\"repetition\":{\"start\":1,"
                  "\"period\":2,\"length\":4},\"word\":[0,1,2,1,2]}],\"points\":[3,3],"
                  "\"result\":{\"winner\":null,\"reason\":\"score\"}}\n");
}

static void test_local_limit_ends_rounds(void **state)
{
    (void)state;
    /* --limit 2: 01 then 012 reaches 2 points in each round; a draw. */
    run_result r = run_in("1\n1\n2\n2\n1\n1\n2\n2\n", "local", "--limit", "2", "--first", "2",
                          "--names", "Ann,Bob", "--json", NULL);
    assert_contains(r.err, "length limit");
    assert_output(r, 0,
                  "{\"variant\":\"square\",\"k\":3,\"limit\":2," PLAYERS_JSON ",\"rounds\":["
                  "{\"builder\":\"Bob\",\"painter\":\"Ann\",\"points\":2,\"end\":\"limit\","
                  "\"repetition\":null,\"word\":[0,1,2]},"
                  "{\"builder\":\"Ann\",\"painter\":\"Bob\",\"points\":2,\"end\":\"limit\","
                  "\"repetition\":null,\"word\":[0,1,2]}],\"points\":[2,2],"
                  "\"result\":{\"winner\":null,\"reason\":\"score\"}}\n");
}

static void test_local_resign_loses_whatever_the_points(void **state)
{
    (void)state;
    /* Bob leads 3-0 after round 1 and resigns as builder: Ann wins. */
    run_result r = run_local(ROUND1 "resign\n");
    assert_contains(r.err, "Bob resigns");
    assert_output(r, 0,
                  "{\"variant\":\"square\",\"k\":3,\"limit\":100," PLAYERS_JSON
                  ",\"rounds\":[" ROUND1_JSON ",{\"builder\":\"Bob\",\"painter\":\"Ann\","
                  "\"points\":0,\"end\":\"forfeit\",\"repetition\":null,\"word\":[0]}],"
                  "\"points\":[0,3],\"result\":{\"winner\":\"Ann\",\"reason\":\"resign\"}}\n");
}

static void test_local_eof_abandons(void **state)
{
    (void)state;
    /* Ann places 1, Bob paints 2 (1 point), Ann places 1, and the input ends at Bob's
     * prompt: Bob abandons. */
    run_result r = run_local("1\n2\n1\n");
    assert_contains(r.err, "Bob abandons");
    assert_output(r, 1,
                  "{\"variant\":\"square\",\"k\":3,\"limit\":100," PLAYERS_JSON ",\"rounds\":["
                  "{\"builder\":\"Ann\",\"painter\":\"Bob\",\"points\":1,\"end\":\"forfeit\","
                  "\"repetition\":null,\"word\":[0,2]}," NOT_PLAYED_JSON "],"
                  "\"points\":[0,1],\"result\":{\"winner\":\"Ann\",\"reason\":\"abandon\"}}\n");
}

static void test_local_overlap_game(void **state)
{
    (void)state;
    /* k = 2, overlaps. Round 1: 00 is allowed (aa is no overlap), then 000 is: Bob 1.
     * Round 2: 01, 010, 0101 are clean, 01010 is ababa (period 2, 0..4): Ann 3. */
    run_result r = run_in("1\n0\n2\n0\n"
                          "1\n1\n2\n0\n3\n1\n4\n0\n",
                          "local", "--k", "2", "--variant", "overlap", "--first", "1", "--names",
                          "Ann,Bob", "--json", NULL);
    assert_contains(r.err, "overlap 0|0|0 at positions 0..2 (period 1)");
    assert_contains(r.err, "overlap 01|01|0 at positions 0..4 (period 2)");
    assert_output(r, 0,
                  "{\"variant\":\"overlap\",\"k\":2,\"limit\":100," PLAYERS_JSON ",\"rounds\":["
                  "{\"builder\":\"Ann\",\"painter\":\"Bob\",\"points\":1,\"end\":\"repetition\","
                  "\"repetition\":{\"start\":0,\"period\":1,\"length\":3},\"word\":[0,0,0]},"
                  "{\"builder\":\"Bob\",\"painter\":\"Ann\",\"points\":3,\"end\":\"repetition\","
                  "\"repetition\":{\"start\":0,\"period\":2,\"length\":5},"
                  "\"word\":[0,1,0,1,0]}],\"points\":[3,1],"
                  "\"result\":{\"winner\":\"Ann\",\"reason\":\"score\"}}\n");
}

static void test_local_human_output_on_stdout(void **state)
{
    (void)state;
    run_result r = run_in(ROUND1 ROUND2_ANN5, "local", "--first", "1", "--names", "Ann,Bob", NULL);
    assert_status(&r, 0);
    assert_string_equal(r.err, "");
    assert_contains(r.out, "Round 1 - Ann builds, Bob paints; Bob has 0 points");
    assert_contains(r.out, "Ann (builder), position 0..1: ");
    assert_contains(r.out, "Bob (painter), symbol 0..2 at position 1: ");
    assert_contains(r.out, "Round 1 - Ann builds, Bob paints; Bob has 3 points");
    assert_contains(r.out, "square 12|12 at positions 1..4 (period 2)");
    assert_contains(r.out, "Roles swap");
    assert_contains(r.out, "Result: Ann wins on points, 5 to 3");
    assert_true(strchr(r.out, '{') == NULL);
    run_free(&r);
}

static void test_local_seed_is_reproducible(void **state)
{
    (void)state;
    /* The same seed always tosses the same way; over ten seeds both players build first. */
    int seen[2] = {0, 0};
    for (int s = 0; s < 10; s++) {
        char seed[8];
        snprintf(seed, sizeof seed, "%d", s);
        char *first[2];
        for (int t = 0; t < 2; t++) {
            run_result r = run("local", "--seed", seed, "--names", "Ann,Bob", "--json", NULL);
            assert_status(&r, 1);
            char *b = strstr(r.out, "\"rounds\":[{\"builder\":\"");
            assert_non_null(b);
            first[t] = strdup(b + strlen("\"rounds\":[{\"builder\":\""));
            run_free(&r);
        }
        assert_string_equal(first[0], first[1]);
        seen[strncmp(first[0], "Ann", 3) == 0]++;
        free(first[0]);
        free(first[1]);
    }
    assert_true(seen[0] > 0 && seen[1] > 0);
}

static void test_local_bad_options_exit_2(void **state)
{
    (void)state;
    assert_usage_error(run("local", "--k", "1", NULL), "--k must be between 2 and 64");
    assert_usage_error(run("local", "--k", "65", NULL), "--k must be between 2 and 64");
    assert_usage_error(run("local", "--limit", "0", NULL), "--limit must be between");
    assert_usage_error(run("local", "--limit", "10001", NULL), "--limit must be between");
    assert_usage_error(run("local", "--variant", "triangle", NULL), "triangle");
    assert_usage_error(run("local", "--first", "3", NULL), "--first must be 1, 2 or random");
    assert_usage_error(run("local", "--names", "Ann", NULL), "--names");
    assert_usage_error(run("local", "--names", "Ann,", NULL), "name is empty");
    assert_usage_error(run("local", "--names", "Ann,Ann", NULL), "must differ");
    assert_usage_error(run("local", "--seed", "x", NULL), "--seed");
    assert_usage_error(run("local", "--bogus", NULL), "unknown option '--bogus'");
    assert_usage_error(run("local", "--k", NULL), "needs a value");
    assert_usage_error(run("local", "extra", NULL), "unexpected argument 'extra'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_main_help),
        cmocka_unit_test(test_main_no_command_exits_2),
        cmocka_unit_test(test_main_unknown_command_exits_2),
        cmocka_unit_test(test_check_help),
        cmocka_unit_test(test_moves_help),
        cmocka_unit_test(test_local_help),
        cmocka_unit_test(test_bench_help),
        cmocka_unit_test(test_check_square_json),
        cmocka_unit_test(test_check_clean_word_json_null),
        cmocka_unit_test(test_check_overlap_aaa),
        cmocka_unit_test(test_check_overlap_aa_is_clean),
        cmocka_unit_test(test_check_comma_form),
        cmocka_unit_test(test_check_bracket_form),
        cmocka_unit_test(test_check_human_output_names_positions),
        cmocka_unit_test(test_check_bad_words_exit_2),
        cmocka_unit_test(test_check_bad_options_exit_2),
        cmocka_unit_test(test_moves_square_json),
        cmocka_unit_test(test_moves_overlap_json),
        cmocka_unit_test(test_moves_word_with_repetition_exits_2),
        cmocka_unit_test(test_moves_bad_k_exits_2),
        cmocka_unit_test(test_moves_bad_words_exit_2),
        cmocka_unit_test(test_moves_bad_options_exit_2),
        cmocka_unit_test(test_bench_bad_arguments_exit_2),
        cmocka_unit_test(test_bench_engine_tiny_json),
        cmocka_unit_test(test_local_full_game_json),
        cmocka_unit_test(test_local_reprompts_invalid_input),
        cmocka_unit_test(test_local_long_line_is_one_bad_answer),
        cmocka_unit_test(test_local_nul_byte_is_one_bad_answer),
        cmocka_unit_test(test_local_crlf_and_blanks_accepted),
        cmocka_unit_test(test_local_help_at_prompt),
        cmocka_unit_test(test_local_draw),
        cmocka_unit_test(test_local_limit_ends_rounds),
        cmocka_unit_test(test_local_resign_loses_whatever_the_points),
        cmocka_unit_test(test_local_eof_abandons),
        cmocka_unit_test(test_local_overlap_game),
        cmocka_unit_test(test_local_human_output_on_stdout),
        cmocka_unit_test(test_local_seed_is_reproducible),
        cmocka_unit_test(test_local_bad_options_exit_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
