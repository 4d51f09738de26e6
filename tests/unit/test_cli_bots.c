/*
 * test_cli_bots.c: the `thue` commands that use the bots: solve, bestmove, local with
 * bot seats, and bench search, run as separate processes (cli_run.h).
 *
 * Values and moves are checked against RULES.md and the known results (k = 3 square: the
 * builder forces a square by length 5), and lines of play are replayed with the naive
 * repetition check of naive.c, so nothing here trusts the program's own output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"
#include "naive.h"

/* The integer after "key": in a JSON text (the first occurrence); fails when absent. */
static long long json_int_at(const char *text, const char *key, const char *file, int line)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(text, pat);
    if (p == NULL) {
        print_error("no \"%s\" in %s\n", key, text);
        _fail(file, line);
    }
    return strtoll(p + strlen(pat), NULL, 10);
}
#define json_int(text, key) json_int_at((text), (key), HERE)

/* Reads "pv":[[i,c],...] and replays it from the word w[0..n) (room for more): every
 * insertion but the last must be safe, the last must make a repetition when `ends`. */
static int replay_pv(const char *json, uint8_t *w, int n, int k, thue_variant v, int ends)
{
    const char *p = strstr(json, "\"pv\":[");
    assert_non_null(p);
    p += 6;
    int len = 0;
    uint8_t buf[256];
    while (*p == '[' || *p == ',') {
        if (*p == ',')
            p++;
        int i, c, used;
        assert_int_equal(sscanf(p, "[%d,%d]%n", &i, &c, &used), 2);
        p += used;
        assert_true(i >= 0 && i <= n && c >= 0 && c < k);
        thue_repetition rep;
        int hit = naive_check_insert(w, n, v, i, c, buf, &rep);
        memcpy(w, buf, (size_t)n + 1);
        n++;
        len++;
        if (hit) {
            assert_true(ends);
            assert_int_equal(*p, ']'); /* the repetition is the last insertion */
            return len;
        }
    }
    assert_false(ends);
    return len;
}

/* ---- solve ------------------------------------------------------------------------- */

static void check_solve(const char *k, const char *variant, int value)
{
    run_result r = run("solve", "--k", k, "--variant", variant, "--json", NULL);
    assert_status(&r, 0);
    assert_int_equal(json_int(r.out, "value"), value);
    assert_contains(r.out, "\"exact\":true");
    uint8_t w[256] = {0};
    thue_variant v = strcmp(variant, "square") == 0 ? THUE_SQUARE : THUE_OVERLAP;
    /* best play scores `value` points, then the builder's repetition */
    assert_int_equal(replay_pv(r.out, w, 1, atoi(k), v, 1), value + 1);
    run_free(&r);
}

static void test_solve_values_from_the_start(void **state)
{
    (void)state;
    check_solve("2", "square", 1);
    check_solve("3", "square", 3); /* a square by length 5 */
    check_solve("4", "square", 5); /* the thesis's 7 moves */
    check_solve("2", "overlap", 3);
    check_solve("3", "overlap", 10);
}

static void test_solve_threads_agree(void **state)
{
    (void)state;
    run_result a = run("solve", "0102", "--k", "4", "--json", NULL);
    run_result b = run("solve", "0102", "--k", "4", "--threads", "3", "--json", NULL);
    assert_status(&a, 0);
    assert_status(&b, 0);
    assert_int_equal(json_int(a.out, "value"), json_int(b.out, "value"));
    assert_contains(b.out, "\"exact\":true");
    assert_contains(b.err, "3 threads"); /* one table shared by 3 threads */
    run_free(&a);
    run_free(&b);
}

static void test_solve_depth_cap_is_a_bound(void **state)
{
    (void)state;
    /* k = 5: no cap small enough to finish; the painter survives at least 6 more */
    run_result r = run("solve", "--k", "5", "--max-depth", "6", "--json", NULL);
    assert_status(&r, 0);
    assert_int_equal(json_int(r.out, "value"), 6);
    assert_contains(r.out, "\"exact\":false");
    uint8_t w[256] = {0};
    assert_int_equal(replay_pv(r.out, w, 1, 5, THUE_SQUARE, 0), 6);
    run_free(&r);
    r = run("solve", "--k", "5", "--max-depth", "6", NULL);
    assert_contains(r.out, "the painter survives at least 6 more insertions (depth cap)");
    run_free(&r);
    /* a word where the builder wins at once: 0121 (k = 3) has no safe symbol at 1 */
    r = run("solve", "0121", "--k", "3", NULL);
    assert_contains(r.out, "value 0 (exact)");
    run_free(&r);
}

static void test_solve_bad_arguments(void **state)
{
    (void)state;
    assert_usage_error(run("solve", NULL), "--k is required");
    assert_usage_error(run("solve", "--k", "1", NULL), "--k must be between 2 and 64");
    assert_usage_error(run("solve", "0101", "--k", "3", NULL), "already contains a square");
    assert_usage_error(run("solve", "05", "--k", "3", NULL), "out of range for --k 3");
    assert_usage_error(run("solve", "--k", "3", "--max-depth", "0", NULL), "--max-depth");
    assert_usage_error(run("solve", "--k", "3", "--threads", "0", NULL), "--threads");
    assert_usage_error(run("solve", "--k", "3", "--variant", "cube", NULL), "cube");
}

/* ---- bestmove ---------------------------------------------------------------------- */

static void test_bestmove_greedy(void **state)
{
    (void)state;
    /* 0121 (k = 3): safe [1,2] [] [0] [0] [0]: the fewest at position 1 (none) */
    run_result r =
        run("bestmove", "0121", "--k", "3", "--role", "builder", "--bot", "greedy", "--json", NULL);
    assert_status(&r, 0);
    assert_int_equal(json_int(r.out, "move"), 1);
    assert_contains(r.out, "\"exact\":true");
    assert_int_equal(json_int(r.out, "nodes"), 1);
    run_free(&r);
    /* ties go to the last position: 0 (k = 3) has 2 safe symbols at both ends */
    r = run("bestmove", "0", "--k", "3", "--role", "builder", "--bot", "0", "--json", NULL);
    assert_int_equal(json_int(r.out, "move"), 1);
    run_free(&r);
    /* the painter takes the lowest safe symbol: at 0 of 0121 that is 1 */
    r = run("bestmove", "0121", "--k", "3", "--role", "painter", "--index", "0", "--bot", "greedy",
            "--json", NULL);
    assert_int_equal(json_int(r.out, "move"), 1);
    run_free(&r);
    r = run("bestmove", "0121", "--k", "3", "--role", "builder", "--bot", "greedy", NULL);
    assert_contains(r.out, "greedy (builder) plays position 1");
    run_free(&r);
}

static void test_bestmove_nested_counts_nodes(void **state)
{
    (void)state;
    /* nested:1 builder on 0121: 5 safe insertions, one simulation each, plus the root */
    run_result r = run("bestmove", "0121", "--k", "3", "--role", "builder", "--bot", "nested:1",
                       "--json", NULL);
    assert_status(&r, 0);
    assert_int_equal(json_int(r.out, "nodes"), 6);
    assert_int_equal(json_int(r.out, "move"), 1); /* the position with no safe symbol scores 0 */
    run_free(&r);
}

static void test_bestmove_perfect(void **state)
{
    (void)state;
    run_result r =
        run("bestmove", "0", "--k", "3", "--role", "builder", "--bot", "perfect", "--json", NULL);
    assert_status(&r, 0);
    assert_int_equal(json_int(r.out, "value"), 3);
    assert_contains(r.out, "\"exact\":true");
    run_free(&r);
    /* with a tiny time limit k = 5 cannot be proven */
    r = run("bestmove", "0", "--k", "5", "--role", "builder", "--bot", "perfect", "--think-ms",
            "20", "--json", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "\"exact\":false");
    assert_contains(r.out, "\"stopped\":true");
    long long move = json_int(r.out, "move");
    assert_true(move == 0 || move == 1);
    run_free(&r);
}

static void test_bestmove_is_deterministic(void **state)
{
    (void)state;
    const char *args[] = {"bestmove", "0102012",  "--k",    "4",  "--role", "builder",
                          "--bot",    "nested:2", "--seed", "42", "--json", NULL};
    run_result a = run_argv("", 0, args), b = run_argv("", 0, args);
    assert_status(&a, 0);
    assert_int_equal(json_int(a.out, "move"), json_int(b.out, "move"));
    assert_int_equal(json_int(a.out, "nodes"), json_int(b.out, "nodes"));
    run_free(&a);
    run_free(&b);
    /* a node budget: same answer every time, even for perfect */
    const char *budget[] = {"bestmove", "0",       "--k",         "6",    "--role", "builder",
                            "--bot",    "perfect", "--max-nodes", "5000", "--json", NULL};
    a = run_argv("", 0, budget);
    b = run_argv("", 0, budget);
    assert_status(&a, 0);
    assert_int_equal(json_int(a.out, "move"), json_int(b.out, "move"));
    assert_int_equal(json_int(a.out, "nodes"), json_int(b.out, "nodes"));
    assert_int_equal(json_int(a.out, "value"), json_int(b.out, "value"));
    run_free(&a);
    run_free(&b);
}

static void test_bestmove_bad_arguments(void **state)
{
    (void)state;
    assert_usage_error(run("bestmove", "0", "--k", "3", "--bot", "greedy", NULL), "--role");
    assert_usage_error(run("bestmove", "0", "--k", "3", "--role", "builder", NULL), "--bot");
    assert_usage_error(
        run("bestmove", "0", "--k", "3", "--role", "painter", "--bot", "greedy", NULL), "--index");
    assert_usage_error(run("bestmove", "0", "--k", "3", "--role", "painter", "--index", "2",
                           "--bot", "greedy", NULL),
                       "--index must be between 0 and 1");
    assert_usage_error(run("bestmove", "0", "--k", "3", "--role", "mover", "--bot", "greedy", NULL),
                       "--role must be");
    assert_usage_error(
        run("bestmove", "0", "--k", "3", "--role", "builder", "--bot", "nested:12", NULL),
        "nested");
    assert_usage_error(
        run("bestmove", "0", "--k", "3", "--role", "builder", "--bot", "wizard", NULL),
        "unknown bot 'wizard'");
    assert_usage_error(run("bestmove", "0", "--k", "3", "--role", "builder", "--bot", "greedy",
                           "--tree", "t.csv", NULL),
                       "--tree needs a uct bot");
    assert_usage_error(run("bestmove", "0", "--k", "3", "--role", "builder", "--bot", "uct",
                           "--tree", "t.txt", NULL),
                       "must end in .csv or .tree");
    assert_usage_error(
        run("bestmove", "00", "--k", "3", "--role", "builder", "--bot", "greedy", NULL),
        "already contains a square");
}

/* ---- local with bots ---------------------------------------------------------------- */

static void test_local_two_bots(void **state)
{
    (void)state;
    /* k = 3: whatever the painter does, the builder forces a square by length 5, and
     * perfect builders do so; greedy painters survive at most 3 insertions. */
    run_result r = run("local", "--k", "3", "--builder", "perfect", "--painter", "greedy", "--seed",
                       "9", "--json", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "\"players\":[\"perfect\",\"greedy\"]");
    assert_contains(r.out, "\"reason\":\"score\"");
    assert_contains(r.err, "perfect (builder) plays position");
    assert_contains(r.err, "greedy (painter) paints");
    assert_contains(r.err, " ms]");
    /* round 1: perfect builds against greedy: at most 3 points */
    const char *r1 = strstr(r.out, "\"rounds\":[");
    assert_non_null(r1);
    assert_true(json_int(r1, "points") <= 3);
    run_free(&r);
}

/* Default names say what plays each seat, the same way for both: a bot its whole spec
 * (however long), a human the seat; the same bot in both seats adds the seat to both. */
static void test_local_default_names(void **state)
{
    (void)state;
    run_result r = run("local", "--k", "3", "--builder", "greedy", "--painter", "greedy", "--seed",
                       "1", "--json", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "\"players\":[\"greedy (Player 1)\",\"greedy (Player 2)\"]");
    assert_contains(r.err, "greedy (Player 2) is the bot greedy");
    run_free(&r);
    r = run("local", "--k", "3", "--builder", "uct:iterations=30", "--painter", "greedy", "--seed",
            "1", "--json", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "\"players\":[\"uct:iterations=30,playout=100,c=");
    assert_contains(r.out, "\",\"greedy\"],");
    run_free(&r);
    r = run_in("1\n", "local", "--k", "3", "--painter", "nested:1", "--json", NULL);
    assert_contains(r.err, "Player 1 (builder)");
    assert_contains(r.err, "nested:1 (painter) paints");
    run_free(&r);
}

static void test_local_human_against_bot(void **state)
{
    (void)state;
    /* The human builds first and resigns in round 1 at once; perfect wins. */
    run_result r = run_in("resign\n", "local", "--k", "3", "--painter", "perfect", "--names",
                          "Ann,Bot", "--json", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "\"winner\":\"Bot\",\"reason\":\"resign\"");
    run_free(&r);
    /* the bot paints after the human places: one answer is enough for one bot move */
    r = run_in("1\n", "local", "--k", "3", "--painter", "nested:1", "--json", NULL);
    assert_status(&r, 1); /* the input ends: the human abandons */
    assert_contains(r.err, "nested:1 (painter) paints");
    run_free(&r);
}

static void test_local_saves_the_record(void **state)
{
    (void)state;
    char dir[] = "/tmp/thue-test-records-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[sizeof dir + 8];
    snprintf(sub, sizeof sub, "%s/games", dir);
    run_result r = run("local", "--k", "4", "--builder", "nested:1", "--painter", "greedy",
                       "--seed", "5", "--out", sub, NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "Game record saved to ");
    char path[512];
    const char *at = strstr(r.out, "saved to ");
    assert_int_equal(sscanf(at, "saved to %511s", path), 1);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    assert_contains(text, "\"bots\":[\"nested:1\",\"greedy\"]");
    assert_contains(text, "\"seed\":5");
    /* every insertion is two moves: (points + 1) per round ended by a repetition */
    int moves = 0;
    for (const char *p = text; (p = strstr(p, "\"role\":")) != NULL; p++)
        moves++;
    const char *rounds = strstr(text, "\"rounds\":[");
    int p1 = (int)json_int(rounds, "points");
    int p2 = (int)json_int(strstr(rounds, "},{") + 2, "points");
    assert_int_equal(moves, 2 * (p1 + 1) + 2 * (p2 + 1));
    unlink(path);
    rmdir(sub);
    rmdir(dir);
    run_free(&r);
}

static void test_local_bot_options_checked(void **state)
{
    (void)state;
    assert_usage_error(run("local", "--builder", "nested:0x", NULL), "nested");
    assert_usage_error(run("local", "--painter", "robot", NULL), "unknown bot 'robot'");
    assert_usage_error(run("local", "--builder", "greedy", "--first", "2", NULL),
                       "contradicts --builder/--painter");
    assert_usage_error(run("local", "--builder", "greedy", "--think-ms", "0", NULL), "--think-ms");
    /* an --out that cannot be made: a failure after the game, reported */
    run_result r = run("local", "--k", "3", "--builder", "greedy", "--painter", "greedy", "--out",
                       "/proc/no/such/dir", NULL);
    assert_status(&r, 1);
    assert_contains(r.err, "cannot create '/proc/no/such/dir'");
    run_free(&r);
}

/* ---- bench search ------------------------------------------------------------------ */

static void test_bench_search_small(void **state)
{
    (void)state;
    run_result r = run("bench", "search", "--k", "4", "--seeds", "1,2", "--limit", "30",
                       "--pool-ply", "3", "--pool-reps", "1", "--json", NULL);
    assert_status(&r, 0);
    /* four games (two pairings, two seeds); at k = 4 they end well inside the budget, so
     * the baseline agreed on every decision */
    int games = 0;
    for (const char *p = r.out; (p = strstr(p, "\"builder\":\"nested:")) != NULL; p++)
        games++;
    assert_int_equal(games, 4);
    assert_null(strstr(r.out, "\"baseline_ms\":null"));
    assert_int_equal(json_int(r.out, "decisions"), json_int(r.out, "baseline_decisions"));
    assert_contains(r.out, "\"pool_speedup\":");
    assert_contains(r.out, "\"bot\":\"nested:2\"");
    run_free(&r);
    assert_usage_error(run("bench", "search", "--seeds", "x", NULL), "--seeds");
    assert_usage_error(run("bench", "search", "--limit", "0", NULL), "--limit");
    assert_usage_error(run("bench", "nothing", NULL), "unknown benchmark 'nothing'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solve_values_from_the_start),
        cmocka_unit_test(test_solve_threads_agree),
        cmocka_unit_test(test_solve_depth_cap_is_a_bound),
        cmocka_unit_test(test_solve_bad_arguments),
        cmocka_unit_test(test_bestmove_greedy),
        cmocka_unit_test(test_bestmove_nested_counts_nodes),
        cmocka_unit_test(test_bestmove_perfect),
        cmocka_unit_test(test_bestmove_is_deterministic),
        cmocka_unit_test(test_bestmove_bad_arguments),
        cmocka_unit_test(test_local_two_bots),
        cmocka_unit_test(test_local_default_names),
        cmocka_unit_test(test_local_human_against_bot),
        cmocka_unit_test(test_local_saves_the_record),
        cmocka_unit_test(test_local_bot_options_checked),
        cmocka_unit_test(test_bench_search_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
