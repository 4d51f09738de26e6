/*
 * test_game_dots.c: dots and boxes (server/games/dots/) behind game.h: option errors
 * naming the bad field, the pool keys, moves (off the board, drawn twice, out of turn:
 * refused and nothing changed), the move-again turn, two boxes with one line, the
 * outline variant's start, the result (win and draw), the state and move JSON round
 * trips and position errors, equal positions hashing equal, the own bots reached through
 * gbot's specs, and the conformance checker (game_check.h) on several boards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game_check.h"
#include "games/dots/dots.h"
#include "games/game.h"
#include "games/registry.h"
#include "search/gbot.h"

static const thue_gamedef *G = &thue_game_dots;

static void opts(const char *text, thue_gopt *opt)
{
    thue_gerr e;
    int rc = thue_game_options_text(G, text, opt, &e);
    if (rc != 0)
        print_error("%s: %s\n", text != NULL ? text : "(defaults)", e.msg);
    assert_int_equal(rc, 0);
}

/* Options that must be refused, naming field. */
static void bad_opts(const char *text, const char *field)
{
    thue_gopt opt;
    thue_gerr e;
    memset(&e, 0, sizeof e);
    assert_int_equal(thue_game_options_text(G, text, &opt, &e), THUE_EOPTIONS);
    if (strcmp(e.field, field) != 0)
        print_error("%s: field '%s', expected '%s' (%s)\n", text, e.field, field, e.msg);
    assert_string_equal(e.field, field);
    assert_true(e.msg[0] != '\0');
}

/* Plays a move given as text; returns apply's code. */
static int play(const thue_gopt *opt, thue_dots_state *s, int player, const char *text,
                thue_gerr *e)
{
    return thue_game_apply_text(G, opt, s, player, text, e);
}

static void must_play(const thue_gopt *opt, thue_dots_state *s, const char *text)
{
    thue_gerr e;
    int p = G->to_move(opt, s);
    int rc = play(opt, s, p, text, &e);
    if (rc != 0)
        print_error("%s refused: %s\n", text, e.msg);
    assert_int_equal(rc, 0);
}

static void test_dots_options(void **state)
{
    (void)state;
    thue_gopt opt;
    opts(NULL, &opt);
    const thue_dots_opt *o = (const thue_dots_opt *)(const void *)&opt;
    assert_int_equal(o->rows, 5);
    assert_int_equal(o->cols, 5);
    assert_false(o->outline);
    char key[32];
    G->pool_key(&opt, key, sizeof key);
    assert_string_equal(key, "5x5");
    opts("{\"rows\":2,\"cols\":4,\"outline\":true}", &opt);
    G->pool_key(&opt, key, sizeof key);
    assert_string_equal(key, "2x4-outline");
    opts("{\"rows\":10,\"cols\":1}", &opt);
    G->pool_key(&opt, key, sizeof key);
    assert_string_equal(key, "10x1");

    bad_opts("{\"rows\":0}", "rows");
    bad_opts("{\"rows\":11}", "rows");
    bad_opts("{\"rows\":\"3\"}", "rows");
    bad_opts("{\"cols\":-1}", "cols");
    bad_opts("{\"cols\":2.5}", "cols");
    bad_opts("{\"outline\":1}", "outline");
    bad_opts("{\"rows\":1,\"cols\":1,\"outline\":true}", "outline");
    bad_opts("{\"size\":3}", "size");
    bad_opts("[3,3]", "");
}

static void test_dots_moves_refused(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"rows\":3,\"cols\":3}", &opt);
    thue_dots_state s, before;
    G->start(&opt, 1, &s);
    assert_int_equal(G->max_moves(&opt), 24);
    thue_gmove mv[64];
    assert_int_equal(G->legal_moves(&opt, &s, mv), 24);
    must_play(&opt, &s, "{\"dir\":\"h\",\"row\":0,\"col\":0}");
    memcpy(&before, &s, sizeof s);
    thue_gerr e;
    /* Drawn twice. */
    assert_int_equal(play(&opt, &s, 1, "{\"dir\":\"h\",\"row\":0,\"col\":0}", &e), THUE_EILLEGAL);
    assert_non_null(strstr(e.msg, "already drawn"));
    /* Off the board: a horizontal line's row is 0..3, col 0..2; a vertical one's the
     * other way round. */
    assert_int_equal(play(&opt, &s, 1, "{\"dir\":\"h\",\"row\":4,\"col\":0}", &e), THUE_EILLEGAL);
    assert_string_equal(e.field, "row");
    assert_int_equal(play(&opt, &s, 1, "{\"dir\":\"h\",\"row\":3,\"col\":3}", &e), THUE_EILLEGAL);
    assert_string_equal(e.field, "col");
    assert_int_equal(play(&opt, &s, 1, "{\"dir\":\"v\",\"row\":3,\"col\":0}", &e), THUE_EILLEGAL);
    assert_string_equal(e.field, "row");
    /* Out of turn, a bad player. */
    assert_int_equal(play(&opt, &s, 0, "{\"dir\":\"v\",\"row\":0,\"col\":0}", &e), THUE_ETURN);
    assert_int_equal(play(&opt, &s, 2, "{\"dir\":\"v\",\"row\":0,\"col\":0}", &e), THUE_EPLAYER);
    /* Shapes. */
    assert_int_equal(play(&opt, &s, 1, "{\"dir\":\"d\",\"row\":0,\"col\":0}", &e), THUE_EMOVE);
    assert_string_equal(e.field, "dir");
    assert_int_equal(play(&opt, &s, 1, "{\"dir\":\"v\",\"col\":0}", &e), THUE_EMOVE);
    assert_string_equal(e.field, "row");
    assert_int_equal(play(&opt, &s, 1, "{\"dir\":\"v\",\"row\":0,\"col\":-1}", &e), THUE_EMOVE);
    assert_string_equal(e.field, "col");
    assert_int_equal(play(&opt, &s, 1, "{\"dir\":\"v\",\"row\":0,\"col\":0,\"x\":1}", &e),
                     THUE_EMOVE);
    assert_string_equal(e.field, "x");
    assert_int_equal(play(&opt, &s, 1, "[0,0,0]", &e), THUE_EMOVE);
    /* Nothing changed by any of them. */
    assert_memory_equal(&s, &before, sizeof s);
    assert_int_equal(G->legal_moves(&opt, &s, mv), 23);
}

/* 1x2: the move-again turn, then two boxes with one line. */
static void test_dots_again_and_double(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"rows\":1,\"cols\":2}", &opt);
    thue_dots_state s;
    G->start(&opt, 1, &s);
    /* Box 0: top, bottom, left; box 1: top, bottom, right; the middle line is last. */
    const char *six[] = {
        "{\"dir\":\"h\",\"row\":0,\"col\":0}", "{\"dir\":\"h\",\"row\":0,\"col\":1}",
        "{\"dir\":\"h\",\"row\":1,\"col\":0}", "{\"dir\":\"h\",\"row\":1,\"col\":1}",
        "{\"dir\":\"v\",\"row\":0,\"col\":0}", "{\"dir\":\"v\",\"row\":0,\"col\":2}"};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(G->to_move(&opt, &s), i % 2);
        must_play(&opt, &s, six[i]);
        assert_false(s.again);
    }
    assert_int_equal(G->to_move(&opt, &s), 0);
    must_play(&opt, &s, "{\"dir\":\"v\",\"row\":0,\"col\":1}");
    assert_int_equal(s.score[0], 2);
    assert_int_equal(s.owner[0], 0);
    assert_int_equal(s.owner[1], 0);
    thue_gresult r;
    G->result(&opt, &s, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, 0);
    assert_int_equal(r.score[0], 2);
    assert_int_equal(r.score[1], 0);
    assert_string_equal(r.why, "score");
    assert_int_equal(G->to_move(&opt, &s), -1);
    thue_gerr e;
    assert_int_equal(play(&opt, &s, 0, "{\"dir\":\"v\",\"row\":0,\"col\":1}", &e), THUE_EOVER);

    /* The move-again turn: box 0 completed by player 1, who moves again; a draw 1-1. */
    G->start(&opt, 1, &s);
    const char *seq[] = {
        "{\"dir\":\"h\",\"row\":0,\"col\":0}", "{\"dir\":\"h\",\"row\":1,\"col\":0}",
        "{\"dir\":\"v\",\"row\":0,\"col\":0}", "{\"dir\":\"v\",\"row\":0,\"col\":1}"};
    for (int i = 0; i < 4; i++)
        must_play(&opt, &s, seq[i]);
    assert_int_equal(s.score[1], 1);
    assert_int_equal(s.owner[0], 1);
    assert_true(s.again);
    assert_int_equal(G->to_move(&opt, &s), 1);
    assert_int_equal(play(&opt, &s, 0, "{\"dir\":\"h\",\"row\":0,\"col\":1}", &e), THUE_ETURN);
    must_play(&opt, &s, "{\"dir\":\"h\",\"row\":0,\"col\":1}"); /* player 1 again */
    assert_false(s.again);
    assert_int_equal(G->to_move(&opt, &s), 0);
    must_play(&opt, &s, "{\"dir\":\"h\",\"row\":1,\"col\":1}"); /* player 0 */
    must_play(&opt, &s, "{\"dir\":\"v\",\"row\":0,\"col\":2}"); /* player 1: completes */
    assert_int_equal(s.score[1], 2);
    assert_int_equal(s.owner[1], 1);
    G->result(&opt, &s, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, 1);
}

static void test_dots_draw_result(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"rows\":1,\"cols\":2}", &opt);
    thue_dots_state s;
    G->start(&opt, 1, &s);
    const char *seq[] = {
        "{\"dir\":\"h\",\"row\":0,\"col\":1}", "{\"dir\":\"h\",\"row\":1,\"col\":1}",
        "{\"dir\":\"v\",\"row\":0,\"col\":2}", "{\"dir\":\"h\",\"row\":0,\"col\":0}",
        "{\"dir\":\"v\",\"row\":0,\"col\":1}", "{\"dir\":\"h\",\"row\":1,\"col\":0}",
        "{\"dir\":\"v\",\"row\":0,\"col\":0}"};
    /* p0 h0,1; p1 h1,1; p0 v0,2 (box 1 has three sides); p1 h0,0 (leaves it); p0 v0,1
     * takes box 1 (box 0 now has two sides) and moves again: h1,0 gives box 0 its third
     * side; p1 v0,0 takes it: 1-1. */
    int who[] = {0, 1, 0, 1, 0, 0, 1};
    for (int i = 0; i < 7; i++) {
        assert_int_equal(G->to_move(&opt, &s), who[i]);
        must_play(&opt, &s, seq[i]);
    }
    thue_gresult r;
    G->result(&opt, &s, &r);
    assert_true(r.over);
    assert_int_equal(r.score[0], 1);
    assert_int_equal(r.score[1], 1);
    assert_int_equal(r.winner, -1);
    assert_true(G->flags & THUE_GAME_DRAWS);
}

static void test_dots_outline_start(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"rows\":2,\"cols\":2,\"outline\":true}", &opt);
    thue_dots_state s;
    G->start(&opt, 7, &s);
    thue_gmove mv[16];
    /* 12 lines, 8 of them the border: the 4 inner ones are left. */
    assert_int_equal(G->legal_moves(&opt, &s, mv), 4);
    for (int i = 0; i < 4; i++) {
        int l = mv[i].v[0] == 0 ? thue_dots_hline(2, 2, mv[i].v[1], mv[i].v[2])
                                : thue_dots_vline(2, 2, mv[i].v[1], mv[i].v[2]);
        assert_false(thue_dots_border(2, 2, l));
    }
    char *t = thue_game_dump(G->state_json(&opt, &s));
    assert_string_equal(t, "{\"lines\":{\"h\":[[2,2],[-1,-1],[2,2]],\"v\":[[2,-1,2],[2,-1,2]]},"
                           "\"owners\":[[-1,-1],[-1,-1]],\"score\":[0,0],\"to_move\":0,"
                           "\"last\":null,\"again\":false,\"moves\":0}");
    free(t);
    /* Every box has two sides: the first line gives two boxes a third side; the second
     * player takes them. */
    must_play(&opt, &s, "{\"dir\":\"h\",\"row\":1,\"col\":0}");
    assert_int_equal(G->to_move(&opt, &s), 1);
    must_play(&opt, &s, "{\"dir\":\"v\",\"row\":0,\"col\":1}");
    assert_int_equal(s.score[1], 1);
    assert_int_equal(G->to_move(&opt, &s), 1);
}

/* Random playouts on a board: every state's JSON reads back to the same bytes, every
 * move's JSON too; positions reached by two orders hash equal. */
static void test_dots_json_round_trip(void **state)
{
    (void)state;
    const char *boards[] = {"{\"rows\":3,\"cols\":3}", "{\"rows\":2,\"cols\":5,\"outline\":true}",
                            "{\"rows\":10,\"cols\":10}"};
    for (int bi = 0; bi < 3; bi++) {
        thue_gopt opt;
        opts(boards[bi], &opt);
        uint64_t rng = 99 + (uint64_t)bi;
        for (int game = 0; game < 5; game++) {
            thue_dots_state s, back;
            G->start(&opt, 1, &s);
            thue_gmove mv[THUE_DOTS_LINES_MAX];
            for (;;) {
                json_t *j = G->state_json(&opt, &s);
                thue_gerr e;
                memset(&back, 0x55, sizeof back);
                int rc = G->position_parse(&opt, j, &back, &e);
                if (rc != 0)
                    print_error("position refused: %s (%s)\n", e.msg, e.field);
                assert_int_equal(rc, 0);
                assert_memory_equal(&s, &back, sizeof s);
                assert_int_equal(G->hash(&opt, &s), G->hash(&opt, &back));
                json_decref(j);
                int n = G->legal_moves(&opt, &s, mv);
                if (n == 0)
                    break;
                thue_gmove m = mv[thue_splitmix64(&rng) % (uint64_t)n], m2;
                json_t *mj = G->move_json(&opt, &m);
                assert_int_equal(G->move_parse(&opt, mj, &m2, &e), 0);
                assert_memory_equal(&m, &m2, sizeof m);
                json_decref(mj);
                assert_int_equal(G->apply(&opt, &s, G->to_move(&opt, &s), &m, &e), 0);
            }
        }
    }
}

static void test_dots_hash_transposition(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"rows\":3,\"cols\":3}", &opt);
    thue_dots_state a, b;
    G->start(&opt, 1, &a);
    G->start(&opt, 1, &b);
    must_play(&opt, &a, "{\"dir\":\"h\",\"row\":0,\"col\":0}");
    must_play(&opt, &a, "{\"dir\":\"v\",\"row\":2,\"col\":3}");
    must_play(&opt, &a, "{\"dir\":\"h\",\"row\":3,\"col\":2}");
    must_play(&opt, &b, "{\"dir\":\"h\",\"row\":3,\"col\":2}");
    must_play(&opt, &b, "{\"dir\":\"v\",\"row\":2,\"col\":3}");
    must_play(&opt, &b, "{\"dir\":\"h\",\"row\":0,\"col\":0}");
    assert_int_equal(G->hash(&opt, &a), G->hash(&opt, &b));
    thue_dots_state c;
    G->start(&opt, 1, &c);
    must_play(&opt, &c, "{\"dir\":\"h\",\"row\":0,\"col\":0}");
    must_play(&opt, &c, "{\"dir\":\"v\",\"row\":2,\"col\":3}");
    assert_true(G->hash(&opt, &a) != G->hash(&opt, &c));
}

static int parse_pos(const thue_gopt *opt, const char *text, thue_dots_state *s, thue_gerr *e)
{
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    int rc = G->position_parse(opt, j, s, e);
    json_decref(j);
    return rc;
}

static void test_dots_position_errors(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"rows\":1,\"cols\":1}", &opt);
    thue_dots_state s;
    thue_gerr e;
    assert_int_equal(parse_pos(&opt, "{\"lines\":{\"h\":[[0],[1]],\"v\":[[-1,2]]}}", &s, &e), 0);
    assert_int_equal(s.to_move, 0);
    assert_int_equal(
        parse_pos(&opt, "{\"lines\":{\"h\":[[0],[1]],\"v\":[[-1,2]]},\"to_move\":1}", &s, &e), 0);
    assert_int_equal(s.to_move, 1);
    /* No lines: the start. */
    assert_int_equal(parse_pos(&opt, "{\"to_move\":1}", &s, &e), 0);
    assert_int_equal(s.drawn[0], 0);
    assert_int_equal(s.to_move, 1);
    struct {
        const char *text, *field;
    } bad[] = {
        {"{\"lines\":{\"h\":[[0]],\"v\":[[-1,2]]}}", "lines/h"},
        {"{\"lines\":{\"h\":[[0],[3]],\"v\":[[-1,2]]}}", "lines/h"},
        {"{\"lines\":{\"h\":[[0],[1]],\"v\":[[-1]]}}", "lines/v"},
        {"{\"lines\":{\"h\":[[0],[1]]}}", "lines/v"},
        {"{\"lines\":{\"h\":[[0],[1]],\"v\":[[0,2]]}}", "owners"},
        {"{\"lines\":{\"h\":[[0],[1]],\"v\":[[0,2]]},\"owners\":[[-1]]}", "owners"},
        {"{\"lines\":{\"h\":[[0],[1]],\"v\":[[-1,2]]},\"owners\":[[0]]}", "owners"},
        {"{\"lines\":{\"h\":[[0],[1]],\"v\":[[0,2]]},\"owners\":[[0]],\"score\":[0,1]}", "score"},
        {"{\"lines\":{\"h\":[[0],[1]],\"v\":[[-1,2]]},\"to_move\":2}", "to_move"},
        {"{\"lines\":{\"h\":[[0],[1]],\"v\":[[-1,2]]},\"last\":{\"dir\":\"v\",\"row\":0,"
         "\"col\":0}}",
         "last"},
        {"{\"lines\":{\"h\":[[0],[1]],\"v\":[[-1,2]]},\"turn\":0}", "turn"},
        {"{\"lines\":[]}", "lines"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&s, 0, sizeof s);
        thue_dots_state before = s;
        memset(&e, 0, sizeof e);
        int rc = parse_pos(&opt, bad[i].text, &s, &e);
        if (rc != THUE_ESTATE || strcmp(e.field, bad[i].field) != 0)
            print_error("%s: rc %d field '%s' (%s)\n", bad[i].text, rc, e.field, e.msg);
        assert_int_equal(rc, THUE_ESTATE);
        assert_string_equal(e.field, bad[i].field);
        assert_memory_equal(&s, &before, sizeof s);
    }
    /* A complete position with owners gives the score and is over. */
    assert_int_equal(parse_pos(&opt,
                               "{\"lines\":{\"h\":[[0],[1]],\"v\":[[0,2]]},\"owners\":[[1]],"
                               "\"score\":[0,1]}",
                               &s, &e),
                     0);
    assert_int_equal(G->to_move(&opt, &s), -1);
    thue_gresult r;
    G->result(&opt, &s, &r);
    assert_int_equal(r.winner, 1);
}

/* The own bots through gbot's specs: parsed by name, formatted back, legal moves. */
static void test_dots_own_bot_specs(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"rows\":3,\"cols\":3}", &opt);
    const char *names[] = {"heuristic", "strong"};
    for (int i = 0; i < 2; i++) {
        thue_gbot_spec spec;
        char err[200], text[64];
        assert_int_equal(thue_gbot_spec_parse(G, names[i], &spec, err, sizeof err), 0);
        assert_int_equal(spec.kind, THUE_GBOT_OWN);
        assert_int_equal(thue_gbot_spec_check(G, &spec), 0);
        thue_gbot_spec_format(&spec, text, sizeof text);
        assert_string_equal(text, names[i]);
        char with[64];
        snprintf(with, sizeof with, "%s:x=1", names[i]);
        assert_int_equal(thue_gbot_spec_parse(G, with, &spec, err, sizeof err), THUE_EINVAL);
        assert_non_null(strstr(err, "no options"));
        /* Another game does not know them. */
        assert_int_equal(thue_gbot_spec_parse(&thue_game_nim, names[i], &spec, err, sizeof err),
                         THUE_EINVAL);
        assert_int_equal(thue_gbot_spec_parse(G, names[i], &spec, err, sizeof err), 0);
        assert_int_equal(thue_gbot_spec_check(&thue_game_nim, &spec), THUE_EINVAL);
        /* A whole game against itself: every move legal. */
        thue_dots_state s;
        G->start(&opt, 1, &s);
        for (int ply = 0; G->to_move(&opt, &s) >= 0; ply++) {
            thue_gbot_result res;
            assert_int_equal(thue_gbot_choose(G, &opt, &s, &spec, (uint64_t)ply, NULL, &res), 0);
            thue_gerr e;
            assert_int_equal(G->apply(&opt, &s, G->to_move(&opt, &s), &res.move, &e), 0);
        }
    }
    thue_gbot_spec spec;
    char err[200];
    assert_int_equal(thue_gbot_spec_parse(G, "clever", &spec, err, sizeof err), THUE_EINVAL);
    assert_non_null(strstr(err, "heuristic, strong"));
}

static void test_dots_conformance(void **state)
{
    (void)state;
    const char *boards[] = {NULL, "{\"rows\":1,\"cols\":1}", "{\"rows\":2,\"cols\":3}",
                            "{\"rows\":3,\"cols\":2,\"outline\":true}"};
    for (int i = 0; i < 4; i++) {
        game_check_cfg cfg = {
            .options = boards[i], .seeds = 6, .max_plies = 1000, .moves_per_state = 30};
        game_check_stats st;
        game_check(G, &cfg, &st);
        assert_true(st.states > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dots_options),
        cmocka_unit_test(test_dots_moves_refused),
        cmocka_unit_test(test_dots_again_and_double),
        cmocka_unit_test(test_dots_draw_result),
        cmocka_unit_test(test_dots_outline_start),
        cmocka_unit_test(test_dots_json_round_trip),
        cmocka_unit_test(test_dots_hash_transposition),
        cmocka_unit_test(test_dots_position_errors),
        cmocka_unit_test(test_dots_own_bot_specs),
        cmocka_unit_test(test_dots_conformance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
