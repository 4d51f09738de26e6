/*
 * game_check.c: the conformance checker of game_check.h. It uses only the table's
 * functions, so it knows nothing of any game's rules: legality is what legal_moves lists
 * and apply accepts, and the two must agree.
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

const thue_gamedef *game_check_find(const char *name)
{
    const thue_gamedef *g = thue_game_find(name);
    assert_non_null(g);
    return g;
}

void game_check_options(const thue_gamedef *g, const char *text, thue_gopt *opt)
{
    thue_gerr e;
    int rc = thue_game_options_text(g, text, opt, &e);
    if (rc != 0)
        print_error("%s: %s\n", text != NULL ? text : "(defaults)", e.msg);
    assert_int_equal(rc, 0);
}

static uint64_t rnd(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ull;
    return thue_gmix64(*s);
}

static char *dump_state(const thue_gamedef *g, const thue_gopt *opt, const void *st)
{
    char *t = thue_game_dump(g->state_json(opt, st));
    assert_non_null(t);
    return t;
}

static void check_options(const thue_gamedef *g, const char *text, thue_gopt *opt)
{
    thue_gopt a, b;
    thue_gerr e;
    assert_int_equal(g->parse_options(NULL, &a, &e), 0);
    json_t *empty = json_object();
    assert_int_equal(g->parse_options(empty, &b, &e), 0);
    json_decref(empty);
    assert_memory_equal(&a, &b, sizeof a);
    /* Each documented default is JSON, and the value the defaults hold. */
    json_t *dj = g->options_json(&a);
    assert_non_null(dj);
    for (int i = 0; i < g->noptions; i++) {
        json_error_t je;
        json_t *d = json_loads(g->options[i].deflt, JSON_DECODE_ANY, &je);
        if (d == NULL || !json_equal(d, json_object_get(dj, g->options[i].name)))
            print_error("%s: option %s documents the default %s\n", g->name, g->options[i].name,
                        g->options[i].deflt);
        assert_non_null(d);
        assert_true(json_equal(d, json_object_get(dj, g->options[i].name)));
        assert_true(g->options[i].help != NULL && g->options[i].help[0] != '\0');
        json_decref(d);
    }
    json_decref(dj);
    char *ta = thue_game_dump(g->options_json(&a)), *tb = thue_game_dump(g->options_json(&b));
    assert_non_null(ta);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);

    int rc = thue_game_options_text(g, text, opt, &e);
    if (rc != 0)
        print_error("options %s refused: %s\n", text != NULL ? text : "(defaults)", e.msg);
    assert_int_equal(rc, 0);
    json_t *j = g->options_json(opt);
    assert_non_null(j);
    for (int i = 0; i < g->noptions; i++)
        assert_non_null(json_object_get(j, g->options[i].name));
    char *t1 = thue_game_dump(j);
    thue_gopt back;
    assert_int_equal(thue_game_options_text(g, t1, &back, &e), 0);
    assert_memory_equal(opt, &back, sizeof back);
    char *t2 = thue_game_dump(g->options_json(&back));
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    char key[64] = "";
    g->pool_key(opt, key, sizeof key);
    assert_true(key[0] != '\0');
}

/* A move apply refused must leave the state as it was; one it accepted must reach a state
 * that a listed move reaches. */
static void try_move(const thue_gamedef *g, const thue_gopt *opt, const void *st, int player,
                     const thue_gmove *m, const unsigned char *children, int nchildren,
                     int expect_refusal, game_check_stats *stats)
{
    size_t size = g->state_size(opt);
    unsigned char *copy = malloc(size);
    assert_non_null(copy);
    memcpy(copy, st, size);
    thue_gerr e;
    int rc = g->apply(opt, copy, player, m, &e);
    if (rc != 0) {
        assert_true(rc < 0);
        assert_true(e.code == rc);
        assert_true(e.msg[0] != '\0');
        if (expect_refusal != 0)
            assert_int_equal(rc, expect_refusal);
        else if (rc != THUE_EILLEGAL) /* or Thue's finer words for it (game.h) */
            assert_true(rc == THUE_ESTEP || rc == THUE_EPOSITION || rc == THUE_ESYMBOL);
        assert_memory_equal(copy, st, size);
        stats->refused++;
    } else {
        assert_int_equal(expect_refusal, 0);
        int found = 0;
        for (int i = 0; i < nchildren && !found; i++)
            found = memcmp(children + (size_t)i * size, copy, size) == 0;
        if (!found) {
            char *t = dump_state(g, opt, st);
            print_error("move {%d,%d,%d,%d} accepted in %s reaches no listed move's state\n",
                        m->v[0], m->v[1], m->v[2], m->v[3], t);
            free(t);
        }
        assert_true(found);
        stats->accepted++;
    }
    free(copy);
}

void game_check_state(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                      int moves_per_state, game_check_stats *stats)
{
    size_t size = g->state_size(opt);
    thue_gerr e;
    stats->states++;

    /* Over or not: every function says the same. */
    int who = g->to_move(opt, st);
    assert_true(who >= -1 && who <= 1);
    thue_gresult r;
    g->result(opt, st, &r);
    assert_int_equal(r.over, who < 0);
    if (who < 0) {
        assert_string_equal(g->step(opt, st), "over");
        assert_true(r.winner >= -1 && r.winner <= 1);
        assert_true(r.why != NULL && r.why[0] != '\0');
        if (r.winner < 0)
            assert_true(g->flags & THUE_GAME_DRAWS);
    } else {
        assert_string_not_equal(g->step(opt, st), "over");
        assert_int_equal(r.winner, -1);
        assert_string_equal(r.why, "");
    }
    int max = g->max_moves(opt);
    assert_true(max >= 1);
    thue_gmove *moves = calloc((size_t)max + 1, sizeof *moves);
    assert_non_null(moves);
    moves[max] = (thue_gmove){{0x5A5A5A5A, 0, 0, 0}}; /* a canary past the promised size */
    int n = g->legal_moves(opt, st, moves);
    assert_true(n >= 0 && n <= max);
    assert_int_equal(moves[max].v[0], 0x5A5A5A5A);
    assert_int_equal(n == 0, who < 0);

    /* state_json -> position_parse: the same bytes, the same hash, the same text. */
    char *text = dump_state(g, opt, st);
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    unsigned char *back = malloc(size), *copy = malloc(size);
    assert_non_null(back);
    assert_non_null(copy);
    memset(back, 0xA5, size);
    int rc = g->position_parse(opt, j, back, &e);
    if (rc != 0)
        print_error("position_parse refused %s: %s (%s)\n", text, e.msg, e.field);
    assert_int_equal(rc, 0);
    json_decref(j);
    assert_memory_equal(back, st, size);
    assert_true(g->hash(opt, back) == g->hash(opt, st));
    memcpy(copy, st, size);
    assert_true(g->hash(opt, copy) == g->hash(opt, st));
    char *text2 = dump_state(g, opt, back);
    assert_string_equal(text, text2);
    free(text2);

    /* Every legal move (or a spread sample): JSON round trip, then apply on a copy. */
    int step = moves_per_state > 0 && n > moves_per_state ? n / moves_per_state + 1 : 1;
    unsigned char *children = malloc(size * (size_t)(n > 0 ? n : 1));
    assert_non_null(children);
    for (int i = 0; i < n; i++) {
        unsigned char *child = children + (size_t)i * size;
        memcpy(child, st, size);
        if (i % step == 0) {
            char *mt = thue_game_dump(g->move_json(opt, &moves[i]));
            assert_non_null(mt);
            json_t *mj = json_loads(mt, 0, &je);
            assert_non_null(mj);
            thue_gmove m2;
            memset(&m2, 0x5A, sizeof m2);
            assert_int_equal(g->move_parse(opt, mj, &m2, &e), 0);
            assert_memory_equal(&m2, &moves[i], sizeof m2);
            json_decref(mj);
            free(mt);
            stats->moves++;
        }
        rc = g->apply(opt, child, who, &moves[i], &e);
        if (rc != 0)
            print_error("listed move %d {%d,%d,%d,%d} refused in %s: %s\n", i, moves[i].v[0],
                        moves[i].v[1], moves[i].v[2], moves[i].v[3], text, e.msg);
        assert_int_equal(rc, 0);
    }

    /* Refusals. */
    thue_gmove zero = {{0, 0, 0, 0}};
    if (who < 0) {
        try_move(g, opt, st, 0, &zero, children, 0, THUE_EOVER, stats);
        try_move(g, opt, st, 1, &zero, children, 0, THUE_EOVER, stats);
    } else {
        try_move(g, opt, st, who ^ 1, &moves[0], children, n, THUE_ETURN, stats);
        try_move(g, opt, st, 2, &moves[0], children, n, THUE_EPLAYER, stats);
        try_move(g, opt, st, -1, &moves[0], children, n, THUE_EPLAYER, stats);
        static const int32_t odd[] = {-1, 1000000, INT32_MIN};
        for (int i = 0; i < n; i += n / 8 + 1) {
            for (int k = 0; k < 4; k++) {
                for (int d = -1; d <= 1; d += 2) {
                    thue_gmove m = moves[i];
                    m.v[k] += d;
                    try_move(g, opt, st, who, &m, children, n, 0, stats);
                }
                for (size_t q = 0; q < sizeof odd / sizeof odd[0]; q++) {
                    thue_gmove m = moves[i];
                    m.v[k] = odd[q];
                    try_move(g, opt, st, who, &m, children, n, 0, stats);
                }
            }
        }
        try_move(g, opt, st, who, &zero, children, n, 0, stats);
    }

    /* Shapes that are not moves. */
    static const char *const bad[] = {"[]", "{\"no_such_member\":1}", "7", NULL};
    for (int i = 0; bad[i] != NULL; i++) {
        json_t *bj = json_loads(bad[i], JSON_DECODE_ANY, &je);
        assert_non_null(bj);
        thue_gmove m;
        e.field[0] = '\0';
        assert_int_equal(g->move_parse(opt, bj, &m, &e), THUE_EMOVE);
        assert_true(e.msg[0] != '\0');
        json_decref(bj);
    }

    /* The perfect player, where the game has one. */
    if (g->perfect != NULL) {
        thue_gmove best = {{-7, -7, -7, -7}};
        int value = 5;
        rc = g->perfect(opt, st, NULL, &best, &value);
        assert_true(rc == 0 || rc == THUE_ETOOBIG);
        if (rc == 0) {
            assert_true(value >= -1 && value <= 1);
            if (who >= 0) {
                memcpy(copy, st, size);
                assert_int_equal(g->apply(opt, copy, who, &best, &e), 0);
            }
        }
    }

    free(children);
    free(back);
    free(copy);
    free(text);
    free(moves);
}

void game_check(const thue_gamedef *g, const game_check_cfg *cfg, game_check_stats *stats)
{
    game_check_stats local;
    if (stats == NULL)
        stats = &local;
    memset(stats, 0, sizeof *stats);

    assert_non_null(g->name);
    assert_true(g == thue_game_find(g->name));
    assert_non_null(g->parse_options);
    assert_non_null(g->options_json);
    assert_non_null(g->pool_key);
    assert_non_null(g->state_size);
    assert_non_null(g->start);
    assert_non_null(g->position_parse);
    assert_non_null(g->state_json);
    assert_non_null(g->to_move);
    assert_non_null(g->step);
    assert_non_null(g->max_moves);
    assert_non_null(g->legal_moves);
    assert_non_null(g->move_parse);
    assert_non_null(g->move_json);
    assert_non_null(g->apply);
    assert_non_null(g->result);
    assert_non_null(g->hash);

    thue_gopt opt;
    check_options(g, cfg->options, &opt);
    size_t size = g->state_size(&opt);
    assert_true(size > 0);
    unsigned char *st = malloc(size), *again = malloc(size);
    assert_non_null(st);
    assert_non_null(again);
    int max = g->max_moves(&opt);
    thue_gmove *moves = malloc(sizeof *moves * (size_t)max);
    assert_non_null(moves);

    for (int seed = 1; seed <= cfg->seeds; seed++) {
        g->start(&opt, (uint64_t)seed, st);
        g->start(&opt, (uint64_t)seed, again);
        assert_memory_equal(st, again, size);
        uint64_t rng = (uint64_t)seed * 0x2545F4914F6CDD1Dull;
        int plies = 0;
        for (;;) {
            game_check_state(g, &opt, st, cfg->moves_per_state, stats);
            int who = g->to_move(&opt, st);
            if (who < 0)
                break;
            if (plies >= cfg->max_plies) {
                char *t = dump_state(g, &opt, st);
                print_error("seed %d: still running after %d moves: %s\n", seed, plies, t);
                free(t);
                fail();
            }
            int n = g->legal_moves(&opt, st, moves);
            thue_gerr e;
            assert_int_equal(g->apply(&opt, st, who, &moves[rnd(&rng) % (uint64_t)n], &e), 0);
            plies++;
        }
        thue_gresult r;
        g->result(&opt, st, &r);
        stats->ended[r.winner < 0 ? 2 : r.winner]++;
    }
    free(moves);
    free(st);
    free(again);
}
