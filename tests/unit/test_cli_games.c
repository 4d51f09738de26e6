/*
 * test_cli_games.c: `thue games` and the --game forms of bestmove, solve, local and arena,
 * run as separate processes (cli_run.h).
 *
 * Nim's answers are checked against Bouton's rule computed here (nim-sum; misere: the
 * same while a heap holds 2 or more, else an even number of one-token heaps wins), and
 * every move the program prints is replayed here on plain heaps, so nothing trusts the
 * program's own judgement. The circle game's move cap and the reasons perfect gives
 * for a refusal are checked on single positions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "cli_run.h"

static json_t *parse_at(const char *text, const char *file, int line)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    if (j == NULL) {
        print_error("not JSON (%s): %s\n", e.text, text);
        _fail(file, line);
    }
    return j;
}
#define parse(text) parse_at((text), HERE)

static int nim_sum(const int *h, int n)
{
    int x = 0;
    for (int i = 0; i < n; i++)
        x ^= h[i];
    return x;
}

/* The mover's value by the rule: 1 win, -1 loss. */
static int nim_rule(const int *h, int n, int misere)
{
    int big = 0, ones = 0;
    for (int i = 0; i < n; i++) {
        big += h[i] >= 2;
        ones += h[i] == 1;
    }
    if (misere && big == 0)
        return ones % 2 == 0 ? 1 : -1;
    return nim_sum(h, n) != 0 ? 1 : -1;
}

static void heaps_text(char *buf, size_t size, const int *h, int n)
{
    size_t at = (size_t)snprintf(buf, size, "{\"heaps\":[");
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf(buf + at, size - at, i ? ",%d" : "%d", h[i]);
    snprintf(buf + at, size - at, "]}");
}

/* Applies {"heap":I,"take":N} to h; fails the test when it is not legal. */
static void take_at(int *h, int n, const json_t *mv, const char *file, int line)
{
    json_int_t i = json_integer_value(json_object_get(mv, "heap"));
    json_int_t t = json_integer_value(json_object_get(mv, "take"));
    if (json_object_size(mv) != 2 || i < 0 || i >= n || t < 1 || t > h[i]) {
        char *s = json_dumps(mv, JSON_ENCODE_ANY);
        print_error("illegal move %s\n", s);
        free(s);
        _fail(file, line);
    }
    h[i] -= (int)t;
}
#define take(h, n, mv) take_at((h), (n), (mv), HERE)

/* ---- thue games ------------------------------------------------------------------------ */

static const json_t *option_named(const json_t *game, const char *name)
{
    const json_t *opts = json_object_get(game, "options");
    for (size_t i = 0; i < json_array_size(opts); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(opts, i), "name")), name) == 0)
            return json_array_get(opts, i);
    return NULL;
}

static void test_games_json(void **state)
{
    (void)state;
    run_result r = run("games", "--json", NULL);
    assert_status(&r, 0);
    json_t *j = parse(r.out);
    const json_t *games = json_object_get(j, "games");
    assert_true(json_array_size(games) >= 2);
    const json_t *thue = json_array_get(games, 0), *nim = NULL;
    assert_string_equal(json_string_value(json_object_get(thue, "name")), "thue");
    for (size_t i = 1; i < json_array_size(games); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(games, i), "name")), "nim") ==
            0)
            nim = json_array_get(games, i);
    assert_non_null(nim);
    /* Thue: variant, k, limit with today's CLI defaults; its bots. */
    assert_string_equal(
        json_string_value(json_object_get(option_named(thue, "variant"), "default")), "square");
    assert_int_equal(json_integer_value(json_object_get(option_named(thue, "k"), "default")), 3);
    assert_int_equal(json_integer_value(json_object_get(option_named(thue, "limit"), "default")),
                     100);
    assert_null(json_object_get(thue, "table"));
    assert_true(json_is_true(json_object_get(thue, "draws")));
    /* Nim: heaps [3,4,5], misere false, acyclic, random/uct/perfect. */
    const json_t *heaps = json_object_get(option_named(nim, "heaps"), "default");
    assert_int_equal(json_array_size(heaps), 3);
    assert_int_equal(json_integer_value(json_array_get(heaps, 2)), 5);
    assert_true(json_is_false(json_object_get(option_named(nim, "misere"), "default")));
    assert_string_equal(json_string_value(json_object_get(option_named(nim, "misere"), "type")),
                        "boolean");
    assert_non_null(json_string_value(json_object_get(option_named(nim, "heaps"), "help")));
    assert_true(json_is_true(json_object_get(nim, "acyclic")));
    assert_true(json_is_false(json_object_get(nim, "draws")));
    assert_null(json_object_get(nim, "table"));
    assert_string_equal(json_string_value(json_object_get(nim, "move")), "{\"heap\":I,\"take\":N}");
    const json_t *bots = json_object_get(nim, "bots");
    assert_int_equal(json_array_size(bots), 3);
    assert_string_equal(json_string_value(json_array_get(bots, 2)), "perfect");
    json_decref(j);
    run_free(&r);

    r = run("games", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "nim (Nim)");
    assert_contains(r.out, "heaps");
    run_free(&r);
    assert_usage_error(run("games", "--bogus", NULL), "unknown option");
}

/* ---- bestmove and solve ------------------------------------------------------------------ */

static void test_bestmove_nim_perfect(void **state)
{
    (void)state;
    int tried = 0, winning = 0;
    for (int a = 0; a <= 4; a++)
        for (int b = 0; b <= 4; b++)
            for (int c = 0; c <= 4; c++) {
                int h[3] = {a, b, c};
                if (a + b + c == 0)
                    continue;
                char pos[80];
                heaps_text(pos, sizeof pos, h, 3);
                run_result r = run("bestmove", "--game", "nim", "--options", "{\"heaps\":[4,4,4]}",
                                   "--position", pos, "--bot", "perfect", "--json", NULL);
                assert_status(&r, 0);
                json_t *j = parse(r.out);
                int want = nim_rule(h, 3, 0);
                assert_int_equal(json_integer_value(json_object_get(j, "value")), want);
                assert_true(json_is_true(json_object_get(j, "exact")));
                assert_string_equal(json_string_value(json_object_get(j, "bot")), "perfect");
                assert_true(json_is_integer(json_object_get(j, "nodes")));
                assert_true(json_is_number(json_object_get(j, "ms")));
                take(h, 3, json_object_get(j, "move"));
                if (want == 1) {
                    if (nim_sum(h, 3) != 0)
                        fail_msg("from %d %d %d perfect left nim-sum %d", a, b, c, nim_sum(h, 3));
                    winning++;
                }
                json_decref(j);
                run_free(&r);
                tried++;
            }
    assert_int_equal(tried, 124);
    assert_true(winning > 90);
}

static void test_bestmove_other_bots(void **state)
{
    (void)state;
    const char *bots[] = {"random", "uct:iterations=200", "uct:iterations=0,ms=20"};
    for (size_t i = 0; i < 3; i++) {
        run_result r = run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3,4,5]}",
                           "--bot", bots[i], "--seed", "5", "--json", NULL);
        assert_status(&r, 0);
        json_t *j = parse(r.out);
        int h[3] = {3, 4, 5};
        take(h, 3, json_object_get(j, "move"));
        assert_true(json_is_null(json_object_get(j, "value")));
        assert_true(json_is_false(json_object_get(j, "exact")));
        json_decref(j);
        /* The same seed, the same move (uct with a time limit aside). */
        if (i < 2) {
            run_result r2 = run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3,4,5]}",
                                "--bot", bots[i], "--seed", "5", "--json", NULL);
            json_t *a = parse(r.out), *b = parse(r2.out);
            assert_true(json_equal(json_object_get(a, "move"), json_object_get(b, "move")));
            assert_true(json_equal(json_object_get(a, "nodes"), json_object_get(b, "nodes")));
            json_decref(a);
            json_decref(b);
            run_free(&r2);
        }
        run_free(&r);
    }
    /* Text output. */
    run_result r = run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3,4,5]}", "--bot",
                       "perfect", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "perfect plays {\"heap\":0,\"take\":2}");
    assert_contains(r.out, "win");
    run_free(&r);
}

static void test_solve_nim_values(void **state)
{
    (void)state;
    for (int misere = 0; misere <= 1; misere++)
        for (int code = 1; code < 6 * 6 * 6; code++) {
            int h[3] = {code % 6, code / 6 % 6, code / 36};
            char pos[80], opts[80];
            heaps_text(pos, sizeof pos, h, 3);
            snprintf(opts, sizeof opts, "{\"heaps\":[5,5,5],\"misere\":%s}",
                     misere ? "true" : "false");
            if (code % 3 != 0)
                continue; /* a third of the positions keeps the test short */
            run_result r = run("solve", "--game", "nim", "--options", opts, "--position", pos,
                               "--json", "--line", "40", NULL);
            assert_status(&r, 0);
            json_t *j = parse(r.out);
            int want = nim_rule(h, 3, misere);
            if (json_integer_value(json_object_get(j, "value")) != want)
                fail_msg("%s %d %d %d: solve says %lld, the rule %d", misere ? "misere" : "normal",
                         h[0], h[1], h[2], json_integer_value(json_object_get(j, "value")), want);
            assert_int_equal(json_integer_value(json_object_get(j, "to_move")), 0);
            /* The line is legal, ends the game (40 moves is enough for 15 tokens), and its
             * last mover is the winner the value says. */
            const json_t *pv = json_object_get(j, "pv");
            assert_true(json_array_size(pv) >= 1);
            for (size_t i = 0; i < json_array_size(pv); i++)
                take(h, 3, json_array_get(pv, i));
            assert_int_equal(h[0] + h[1] + h[2], 0);
            int last_mover_is_first = json_array_size(pv) % 2 == 1;
            int first_wins = misere ? !last_mover_is_first : last_mover_is_first;
            assert_int_equal(first_wins ? 1 : -1, want);
            json_decref(j);
            run_free(&r);
        }
    run_result r = run("solve", "--game", "nim", "--position", "{\"heaps\":[1,2,3]}", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "value -1 (exact)");
    run_free(&r);
}

/* The circle game's move cap (issue "The games' tools"): a win that only comes after the
 * cap is a draw. From "WW..B.." white wins, but not within the 2 moves left of 12. */
static void test_solve_circle_near_the_cap(void **state)
{
    (void)state;
    const char *opts = "{\"fields\":7,\"move_cap\":12}";
    run_result r = run("solve", "--game", "circle", "--options", opts, "--position",
                       "{\"board\":\"WW..B..\",\"moves\":10}", "--line", "5", "--json", NULL);
    assert_status(&r, 0);
    json_t *j = parse(r.out);
    assert_int_equal(json_integer_value(json_object_get(j, "value")), 0);
    /* the line ends at the cap: the two moves left */
    assert_int_equal(json_array_size(json_object_get(j, "pv")), 2);
    json_decref(j);
    run_free(&r);
    /* With the whole cap ahead the same board is white's win, carried out in the line. */
    r = run("solve", "--game", "circle", "--options", opts, "--position",
            "{\"board\":\"WW..B..\",\"moves\":0}", "--line", "12", "--json", NULL);
    assert_status(&r, 0);
    j = parse(r.out);
    assert_int_equal(json_integer_value(json_object_get(j, "value")), 1);
    assert_true(json_array_size(json_object_get(j, "pv")) % 2 == 1); /* white moves last */
    json_decref(j);
    run_free(&r);
}

/* A refusal says why: Northcott's perfect near its cap blames the cap, not a budget; dots'
 * perfect beyond its bound says what it decides. */
static void test_solve_refusals_say_why(void **state)
{
    (void)state;
    run_result r = run("solve", "--game", "northcott", "--options",
                       "{\"rows\":2,\"cols\":6,\"move_cap\":10}", "--position",
                       "{\"white\":[0,0],\"black\":[5,3],\"to_move\":0,\"moves\":8}", NULL);
    assert_status(&r, 1);
    assert_contains(r.err, "the move cap is 2 moves away");
    assert_contains(r.err, "the cap could decide");
    assert_true(strstr(r.err, "budget") == NULL);
    assert_true(r.out[0] == '\0');
    run_free(&r);
    /* Dots and boxes on 3x4 from the start (31 lines): refused at once, saying what perfect
     * decides (it ran for minutes, the generic solver trying behind it). */
    const char *args[] = {"solve", "--game", "dots", "--options", "{\"rows\":3,\"cols\":4}",
                          "--position", "{}", NULL};
    int sig = 0;
    r = run_argv_limited("", 0, args, 60, &sig);
    assert_int_equal(sig, 0);
    assert_status(&r, 1);
    assert_contains(r.err, "31 lines are undrawn; perfect decides dots positions with at most 30");
    run_free(&r);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    assert_usage_error(
        run("bestmove", "--game", "chess", "--position", "{}", "--bot", "random", NULL),
        "unknown game 'chess'");
    assert_usage_error(run("solve", "--game", "chess", "--position", "{}", NULL), "unknown game");
    assert_usage_error(run("local", "--game", "chess", NULL), "unknown game");
    assert_usage_error(run("arena", "--game", "chess", "--players", "random,uct", NULL),
                       "unknown game");
    assert_usage_error(run("bestmove", "--game", NULL), "needs a value");
    /* --position */
    assert_usage_error(run("bestmove", "--game", "nim", "--bot", "random", NULL),
                       "--position is required");
    assert_usage_error(
        run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3,4", "--bot", "random", NULL),
        "not JSON");
    assert_usage_error(
        run("bestmove", "--game", "nim", "--position", "{\"heap\":[3]}", "--bot", "random", NULL),
        "unknown member \"heap\"");
    assert_usage_error(
        run("bestmove", "--game", "nim", "--position", "{\"heaps\":[-1]}", "--bot", "random", NULL),
        "bad --position");
    assert_usage_error(run("bestmove", "--game", "nim", "--position", "{\"heaps\":[0,0]}", "--bot",
                           "random", NULL),
                       "over");
    assert_usage_error(run("solve", "--game", "nim", "--position", "{\"heaps\":[0]}", NULL),
                       "over");
    /* --options */
    assert_usage_error(run("bestmove", "--game", "nim", "--options", "{\"misere\":1}", "--position",
                           "{\"heaps\":[3]}", "--bot", "random", NULL),
                       "misere is true or false");
    assert_usage_error(run("bestmove", "--game", "nim", "--options", "[1]", "--position",
                           "{\"heaps\":[3]}", "--bot", "random", NULL),
                       "bad --options");
    assert_usage_error(run("local", "--game", "nim", "--options", "{\"heaps\":[]}", NULL),
                       "bad --options");
    /* --bot and the rest */
    assert_usage_error(run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3]}", NULL),
                       "--bot is required");
    assert_usage_error(run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3]}", "--bot",
                           "nested:2", NULL),
                       "unknown bot 'nested'");
    assert_usage_error(run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3]}", "--bot",
                           "uct:c=-1", NULL),
                       "uct c must be");
    assert_usage_error(run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3]}", "--bot",
                           "random", "--k", "3", NULL),
                       "unknown option '--k'");
    assert_usage_error(run("bestmove", "--game", "nim", "--position", "{\"heaps\":[3]}", "--bot",
                           "random", "--seed", "x", NULL),
                       "--seed");
    assert_usage_error(run("local", "--game", "nim", "--white", "greedy", NULL), "--white");
    assert_usage_error(run("arena", "--game", "nim", "--players", "perfect", NULL), "at least two");
    assert_usage_error(run("arena", "--game", "nim", NULL), "--players is required");
    assert_usage_error(
        run("arena", "--game", "nim", "--players", "perfect,random", "--games", "0", NULL),
        "--games");
}

/* --game thue, or none, is today's Thue command; --help of each form. */
static void test_thue_unchanged_and_help(void **state)
{
    (void)state;
    run_result a =
        run("bestmove", "0121", "--k", "3", "--role", "builder", "--bot", "greedy", "--json", NULL);
    run_result b = run("bestmove", "--game", "thue", "0121", "--k", "3", "--role", "builder",
                       "--bot", "greedy", "--json", NULL);
    assert_status(&a, 0);
    assert_status(&b, 0);
    assert_contains(a.out, "\"move\":");
    /* ms differs from run to run: compare up to it. */
    assert_true(strncmp(a.out, b.out, (size_t)(strstr(a.out, "\"ms\"") - a.out)) == 0);
    run_free(&a);
    run_free(&b);
    const char *cmds[] = {"bestmove", "solve", "local", "arena"};
    for (int i = 0; i < 4; i++) {
        run_result h = run(cmds[i], "--game", "nim", "--help", NULL);
        assert_status(&h, 0);
        assert_contains(h.out, "--game G");
        assert_contains(h.out, "--options JSON");
        run_free(&h);
        h = run(cmds[i], "--help", NULL);
        assert_status(&h, 0);
        assert_contains(h.out, "--game");
        run_free(&h);
    }
}

/* ---- local ------------------------------------------------------------------------------ */

static void test_local_human_refused_and_reasked(void **state)
{
    (void)state;
    /* White (human) against perfect from [3,4,5]: bad JSON, a heap that is not there, too
     * many tokens, words, then a legal short form; end of input abandons. */
    run_result r = run_in("{\"heap\":\n{\"heap\":7,\"take\":1}\n0 9\nhello\n0 2\n", "local",
                          "--game", "nim", "--black", "perfect", "--seed", "1", NULL);
    assert_status(&r, 1);
    assert_contains(r.out, "not JSON");
    assert_contains(r.out, "there is no heap 7");
    assert_contains(r.out, "heap 0 holds 3 tokens");
    assert_contains(r.out, "'hello' is not a move");
    assert_contains(r.out, "White plays {\"heap\":0,\"take\":2}");
    assert_contains(r.out, "(abandon)");
    /* Asked again after each refusal: five prompts for White before the move. */
    int prompts = 0;
    for (const char *p = r.out; (p = strstr(p, "White (player 0): ")) != NULL; p++)
        prompts++;
    assert_int_equal(prompts, 6); /* 5 answers, then the prompt that meets end of input */
    run_free(&r);

    /* A whole match: the human plays the winning line against perfect with the JSON
     * summary; moves are checked here. */
    r = run_in("0 2\n{\"heap\":2,\"take\":1}\n", "local", "--game", "nim", "--options",
               "{\"heaps\":[3,4,5]}", "--black", "random", "--seed", "4", "--json", NULL);
    json_t *j = parse(r.out);
    assert_string_equal(json_string_value(json_object_get(j, "game")), "nim");
    const json_t *moves = json_object_get(j, "moves");
    int h[3] = {3, 4, 5};
    for (size_t i = 0; i < json_array_size(moves); i++) {
        const json_t *m = json_array_get(moves, i);
        assert_int_equal(json_integer_value(json_object_get(m, "player")), (json_int_t)(i % 2));
        take(h, 3, json_object_get(m, "move"));
    }
    const json_t *res = json_object_get(j, "result");
    if (h[0] + h[1] + h[2] == 0) {
        assert_status(&r, 0);
        assert_string_equal(json_string_value(json_object_get(res, "reason")), "no_moves");
    } else {
        assert_status(&r, 1); /* the two answers ran out */
        assert_string_equal(json_string_value(json_object_get(res, "reason")), "abandon");
    }
    json_decref(j);
    run_free(&r);

    /* Two bots, misere, resign by a human. */
    r = run_in("resign\n", "local", "--game", "nim", "--options", "{\"misere\":true}", "--white",
               "human", "--black", "uct:iterations=100", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "wins (resign)");
    run_free(&r);
}

/* Default names say what plays each seat, the same way for both (the issue: two random
 * seats were "random" and "Black"): a bot its whole spec, a human the seat; the same bot
 * in both seats adds the seat to both. The result names one of them. */
static void test_local_default_names(void **state)
{
    (void)state;
    run_result r = run("local", "--game", "nim", "--white", "random", "--black", "random",
                       "--seed", "3", "--json", NULL);
    assert_status(&r, 0);
    json_t *j = parse(r.out);
    const json_t *pl = json_object_get(j, "players");
    assert_string_equal(json_string_value(json_array_get(pl, 0)), "random (White)");
    assert_string_equal(json_string_value(json_array_get(pl, 1)), "random (Black)");
    const char *winner =
        json_string_value(json_object_get(json_object_get(j, "result"), "winner"));
    assert_non_null(winner);
    assert_true(strcmp(winner, "random (White)") == 0 || strcmp(winner, "random (Black)") == 0);
    json_decref(j);
    assert_contains(r.err, "random (Black) (player 1) is the bot random");
    run_free(&r);
    /* A long spec is the name whole (it was "White", like a human's). */
    r = run("local", "--game", "nim", "--white", "uct:iterations=30", "--black", "random",
            "--seed", "3", "--json", NULL);
    assert_status(&r, 0);
    j = parse(r.out);
    pl = json_object_get(j, "players");
    assert_string_equal(json_string_value(json_array_get(pl, 0)),
                        "uct:iterations=30,playout=100,c=1.4142135623730951");
    assert_string_equal(json_string_value(json_array_get(pl, 1)), "random");
    json_decref(j);
    run_free(&r);
    /* A human is the seat. */
    r = run_in("resign\n", "local", "--game", "nim", "--black", "random", "--json", NULL);
    assert_contains(r.out, "\"players\":[\"White\",\"random\"]");
    run_free(&r);
}

/* ---- arena ------------------------------------------------------------------------------ */

static void test_arena_perfect_never_loses_a_won_start(void **state)
{
    (void)state;
    /* [3,4,5] is a win for the first player, [1,2,3] a loss, misere [1,1] a win. */
    const char *opts[] = {"{\"heaps\":[3,4,5]}", "{\"heaps\":[1,2,3]}",
                          "{\"heaps\":[1,1],\"misere\":true}", "{\"heaps\":[2,5,6,7]}"};
    const int first_wins[] = {1, 0, 1, 1};
    for (int o = 0; o < 4; o++) {
        run_result r = run("arena", "--game", "nim", "--options", opts[o], "--players",
                           "perfect,random,uct:iterations=200", "--games", "10", "--seed", "3",
                           "--json", NULL);
        assert_status(&r, 0);
        json_t *j = parse(r.out);
        const json_t *pairs = json_object_get(j, "pairs");
        assert_int_equal(json_array_size(pairs), 6);
        for (size_t i = 0; i < 6; i++) {
            const json_t *p = json_array_get(pairs, i);
            json_int_t w = json_integer_value(json_object_get(p, "wins"));
            json_int_t d = json_integer_value(json_object_get(p, "draws"));
            json_int_t l = json_integer_value(json_object_get(p, "losses"));
            assert_int_equal(w + d + l, 10);
            assert_int_equal(d, 0);
            const char *a = json_string_value(json_object_get(p, "a"));
            if (strcmp(a, "perfect") != 0)
                continue;
            /* From a won start perfect wins every game it starts; it never loses one. */
            const json_t *first = json_object_get(p, "first");
            if (first_wins[o]) {
                assert_int_equal(json_integer_value(json_object_get(first, "wins")), 5);
                assert_int_equal(json_integer_value(json_object_get(first, "losses")), 0);
            } else {
                const json_t *second = json_object_get(p, "second");
                assert_int_equal(json_integer_value(json_object_get(second, "losses")), 0);
            }
        }
        json_decref(j);
        run_free(&r);
    }
    /* The table form. */
    run_result r =
        run("arena", "--game", "nim", "--players", "perfect,random", "--games", "4", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "perfect");
    assert_contains(r.out, "losses");
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_games_json),
        cmocka_unit_test(test_bestmove_nim_perfect),
        cmocka_unit_test(test_bestmove_other_bots),
        cmocka_unit_test(test_solve_nim_values),
        cmocka_unit_test(test_solve_circle_near_the_cap),
        cmocka_unit_test(test_solve_refusals_say_why),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_thue_unchanged_and_help),
        cmocka_unit_test(test_local_human_refused_and_reasked),
        cmocka_unit_test(test_local_default_names),
        cmocka_unit_test(test_arena_perfect_never_loses_a_won_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
