/*
 * test_arena_cli_usage.c: `thue arena` as a command, run as a separate process: --help,
 * --out and its four files, bad arguments (exit 2), an unwritable --out (exit 1), progress
 * on stderr.
 */
#include "arena_helpers.h"

/* Exit `status`, nothing on stdout, a message naming `what` on stderr; frees r. */
static void fails_at(run_result r, int status, const char *what, const char *file, int line)
{
    status_at(&r, status, file, line);
    if (r.out[0] != '\0') {
        print_error("stdout should be empty, is:\n%s\n", r.out);
        _fail(file, line);
    }
    contains_at(r.err, what, file, line);
    run_free(&r);
}

#define assert_failure(r, what) fails_at((r), 1, (what), HERE)

/* ---- SVG ---------------------------------------------------------------------------- */

/* Starts with <svg, every element closed in order, attributes' quotes paired, every '&'
 * an entity, one root and nothing after it. */
static void assert_well_formed_svg(const char *s)
{
    char stack[64][32];
    int depth = 0, roots = 0;
    assert_memory_equal(s, "<svg", 4);
    const char *p = s;
    while (*p != '\0') {
        if (*p == '&') {
            size_t len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz#0123456789");
            assert_true(len > 0 && p[1 + len] == ';');
            p += len + 2;
            continue;
        }
        if (*p != '<') {
            if (depth == 0)
                assert_true(*p == '\n' || *p == ' ');
            p++;
            continue;
        }
        const char *close = strchr(p, '>');
        assert_non_null(close);
        int quotes = 0;
        for (const char *q = p; q < close; q++) {
            assert_true(q == p || *q != '<');
            quotes += *q == '"';
        }
        assert_int_equal(quotes % 2, 0);
        if (p[1] == '/') {
            assert_true(depth > 0);
            size_t len = strcspn(p + 2, " >");
            assert_int_equal(len, strlen(stack[depth - 1]));
            assert_memory_equal(p + 2, stack[depth - 1], len);
            depth--;
        } else {
            size_t len = strcspn(p + 1, " />");
            assert_true(len > 0 && len < sizeof stack[0]);
            if (depth == 0)
                roots++;
            if (close[-1] != '/') {
                assert_true(depth < 64);
                memcpy(stack[depth], p + 1, len);
                stack[depth][len] = '\0';
                depth++;
            }
        }
        p = close + 1;
    }
    assert_int_equal(depth, 0);
    assert_int_equal(roots, 1);
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_arena_help(void **state)
{
    (void)state;
    run_result r = run("arena", "--help", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "Usage: thue arena");
    assert_contains(r.out, "--json");
    assert_contains(r.out, "\"cells\"");
    assert_contains(r.out, "games.csv");
    assert_string_equal(r.err, "");
    run_free(&r);
}

/* --out: the four files; every game replays; moves per game add up; the SVG is sound;
 * table.md is the table printed on stdout. */
static void test_arena_out_writes_four_files(void **state)
{
    (void)state;
    tmpdir t;
    tmpdir_make(&t);
    run_result r = run("arena", "--k", "4,5", "--builder", "0,1", "--painter", "0,1", "--games",
                       "3", "--limit", "25", "--out", t.out, NULL);
    assert_status(&r, 0);
    char *table = tmpdir_read(&t, "table.md"), *gt = tmpdir_read(&t, "games.csv"),
         *mt = tmpdir_read(&t, "moves.csv"), *svg = tmpdir_read(&t, "decision-time.svg");
    assert_string_equal(table, r.out);
    csv games = csv_parse(gt), moves = csv_parse(mt);
    assert_int_equal(games.rows[0].n, 14);
    assert_string_equal(gt, strstr(gt, "k,variant,builder,painter,game,seed,length,points,end,"
                                       "rep_start,rep_period,builder_ms,painter_ms,total_ms\n"));
    assert_memory_equal(mt,
                        "k,builder,painter,game,ply,role,bot,word_length_before,move,"
                        "think_ms,nodes\n",
                        75);
    assert_int_equal(games.n - 1, 2 * 2 * 2 * 3);
    for (int g = 1; g < games.n; g++)
        assert_int_equal(games.rows[g].n, 14);
    /* rows of moves.csv per game: one builder and one painter row per insertion */
    for (int g = 1; g < games.n; g++) {
        int rows = 0, painter_rows = 0;
        for (int m = 1; m < moves.n; m++)
            if (strcmp(csv_str(&moves, m, "k"), csv_str(&games, g, "k")) == 0 &&
                strcmp(csv_str(&moves, m, "builder"), csv_str(&games, g, "builder")) == 0 &&
                strcmp(csv_str(&moves, m, "painter"), csv_str(&games, g, "painter")) == 0 &&
                strcmp(csv_str(&moves, m, "game"), csv_str(&games, g, "game")) == 0) {
                rows++;
                painter_rows += strcmp(csv_str(&moves, m, "role"), "painter") == 0;
            }
        int insertions = csv_int(&games, g, "length") - 1;
        assert_int_equal(painter_rows, insertions);
        assert_int_equal(rows, 2 * insertions);
    }
    assert_int_equal(replay_all(&games, &moves, 25), 24);
    assert_well_formed_svg(svg);
    assert_non_null(strstr(svg, "builder nested:1, k=5"));
    assert_non_null(strstr(svg, "painter greedy, k=4"));
    free(games.rows);
    free(moves.rows);
    free(table);
    free(gt);
    free(mt);
    free(svg);
    run_free(&r);
    tmpdir_remove(&t);
}

static void test_arena_bad_arguments_exit_2(void **state)
{
    (void)state;
    assert_usage_error(run("arena", "--k", "1", NULL), "--k");
    assert_usage_error(run("arena", "--k", "65", NULL), "--k");
    assert_usage_error(run("arena", "--k", "3..", NULL), "bad list");
    assert_usage_error(run("arena", "--k", "5..3", NULL), "'5..3' is an empty range");
    assert_usage_error(run("arena", "--k", "3,,4", NULL), "an empty item");
    assert_usage_error(run("arena", "--k", "x", NULL), "bad list");
    assert_usage_error(run("arena", "--k", "3,3..4", NULL), "3 appears twice");
    assert_usage_error(run("arena", "--builder", "0,nested:12", NULL), "nested:12");
    assert_usage_error(run("arena", "--painter", "bogus", NULL), "bogus");
    assert_usage_error(run("arena", "--painter", "1,", NULL), "--painter");
    assert_usage_error(run("arena", "--builder", "uct:iterations=5,frob=1", NULL), "frob");
    assert_usage_error(run("arena", "--games", "0", NULL), "--games");
    assert_usage_error(run("arena", "--games", "ten", NULL), "--games");
    assert_usage_error(run("arena", "--limit", "0", NULL), "--limit");
    assert_usage_error(run("arena", "--limit", "10001", NULL), "--limit");
    assert_usage_error(run("arena", "--threads", "0", NULL), "--threads");
    assert_usage_error(run("arena", "--threads", "65", NULL), "--threads");
    assert_usage_error(run("arena", "--think-ms", "0", NULL), "--think-ms");
    assert_usage_error(run("arena", "--seed", "-1", NULL), "--seed");
    assert_usage_error(run("arena", "--variant", "triangle", NULL), "triangle");
    assert_usage_error(run("arena", "--bogus", NULL), "unknown option '--bogus'");
    assert_usage_error(run("arena", "extra", NULL), "unexpected argument 'extra'");
    assert_usage_error(run("arena", "--out", NULL), "needs a value");
    assert_usage_error(run("arena", "--k", "5", "--builder", "perfect", NULL),
                       "perfect at k = 5 needs --think-ms T or perfect:depth=D");
}

/* --out under a regular file cannot be created (whoever runs the test, root included):
 * status 1 and a message, before any game is played. */
static void test_arena_unwritable_out_exits_1(void **state)
{
    (void)state;
    tmpdir t;
    tmpdir_make(&t);
    char file[96], below[128];
    snprintf(file, sizeof file, "%s/plain", t.base);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(below, sizeof below, "%s/sub", file);
    assert_failure(run("arena", "--k", "3", "--games", "1", "--out", below, NULL),
                   "cannot create the directory");
    assert_failure(run("arena", "--k", "3", "--games", "1", "--out", file, NULL),
                   "cannot create the directory");
    unlink(file);
    tmpdir_remove(&t);
}

/* Not a terminal: progress lines on stderr ending at 100%, whatever is on stdout. */
static void test_arena_progress_on_stderr(void **state)
{
    (void)state;
    run_result r = run("arena", "--k", "3", "--builder", "0", "--painter", "0", "--games", "20",
                       "--json", NULL);
    assert_status(&r, 0);
    assert_contains(r.err, "100% (20/20 games)");
    assert_contains(r.err, " 50% (10/20 games)");
    assert_true(r.out[0] == '{');
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_help),
        cmocka_unit_test(test_arena_out_writes_four_files),
        cmocka_unit_test(test_arena_bad_arguments_exit_2),
        cmocka_unit_test(test_arena_unwritable_out_exits_1),
        cmocka_unit_test(test_arena_progress_on_stderr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
