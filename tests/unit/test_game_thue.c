/*
 * test_game_thue.c: the Thue game behind the game table (server/games/thue/thue.c),
 * checked move for move against the engine's match machine (games/thue/engine/match.c), which the
 * server's Thue rooms run, and by the conformance checker (game_check.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/thue/engine/match.h"
#include "game_check.h"
#include "games/game.h"

static const thue_gamedef *thue(void)
{
    const thue_gamedef *g = thue_game_find("thue");
    assert_non_null(g);
    return g;
}

static uint64_t rng_next(uint64_t *s)
{
    *s = thue_gmix64(*s);
    return *s;
}

/* Plays random matches on both machines with the same moves: the table's state JSON
 * must say what the match machine says after every move. */
static void crosscheck(const char *options, int games, uint64_t seed)
{
    const thue_gamedef *g = thue();
    thue_gopt o;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, options, &o, &e), 0);
    json_t *oj = g->options_json(&o);
    thue_match_options mo = thue_match_defaults();
    assert_int_equal(
        thue_variant_parse(json_string_value(json_object_get(oj, "variant")), &mo.variant), 0);
    mo.k = (int)json_integer_value(json_object_get(oj, "k"));
    mo.limit = (int)json_integer_value(json_object_get(oj, "limit"));
    json_decref(oj);
    mo.first_builder = 0;
    size_t n = g->state_size(&o);
    unsigned char *st = malloc(n);
    thue_gmove *moves = malloc(sizeof *moves * (size_t)g->max_moves(&o));
    assert_non_null(st);
    assert_non_null(moves);
    long plies = 0;
    for (int game = 0; game < games; game++) {
        thue_match m;
        assert_int_equal(thue_match_init(&m, &mo), 0);
        g->start(&o, 0, st);
        while (!thue_match_over(&m)) {
            int p = thue_match_to_move(&m);
            assert_int_equal(g->to_move(&o, st), p);
            assert_string_equal(g->step(&o, st), thue_step_name(m.step));
            int count = g->legal_moves(&o, st, moves);
            assert_int_equal(count, m.step == THUE_STEP_PLACE ? m.word.len + 1 : mo.k);
            thue_gmove mv = moves[rng_next(&seed) % (uint64_t)count];
            int rc =
                mv.v[0] == 0 ? thue_match_place(&m, p, mv.v[1]) : thue_match_paint(&m, p, mv.v[1]);
            assert_int_equal(rc, 0);
            assert_int_equal(g->apply(&o, st, p, &mv, &e), 0);
            plies++;
            json_t *sj = g->state_json(&o, st);
            json_t *w = json_object_get(sj, "word");
            if (!thue_match_over(&m)) {
                assert_int_equal((int)json_array_size(w), m.word.len);
                for (int i = 0; i < m.word.len; i++)
                    assert_int_equal(json_integer_value(json_array_get(w, (size_t)i)),
                                     m.word.sym[i]);
            }
            for (int r = 0; r < 2; r++) {
                json_t *rd = json_array_get(json_object_get(sj, "rounds"), (size_t)r);
                assert_int_equal(json_integer_value(json_object_get(rd, "points")),
                                 m.rounds[r].points);
                assert_string_equal(json_string_value(json_object_get(rd, "end")),
                                    thue_round_end_name(m.rounds[r].end));
                if (m.rounds[r].end == THUE_ROUND_REPETITION) {
                    json_t *rep = json_object_get(rd, "repetition");
                    assert_int_equal(json_integer_value(json_object_get(rep, "start")),
                                     m.rounds[r].rep.start);
                    assert_int_equal(json_integer_value(json_object_get(rep, "period")),
                                     m.rounds[r].rep.period);
                }
            }
            json_decref(sj);
        }
        thue_gresult r;
        g->result(&o, st, &r);
        assert_true(r.over);
        assert_int_equal(r.winner, m.winner);
        for (int p = 0; p < 2; p++)
            assert_int_equal(r.score[p], thue_match_points(&m, p));
        assert_int_equal(g->to_move(&o, st), -1);
        thue_match_free(&m);
    }
    print_message("%s: %d matches, %ld moves agreed with the match machine\n",
                  options != NULL ? options : "(defaults)", games, plies);
    free(st);
    free(moves);
}

static void test_thue_crosscheck_match_machine(void **state)
{
    (void)state;
    crosscheck(NULL, 200, 1);
    crosscheck("{\"k\":2,\"limit\":30}", 300, 2);
    crosscheck("{\"variant\":\"overlap\",\"k\":2,\"limit\":40}", 300, 3);
    crosscheck("{\"k\":4,\"limit\":12}", 300, 4);
}

static void test_thue_conformance(void **state)
{
    (void)state;
    static const char *const opts[] = {NULL, "{\"k\":2,\"limit\":6}",
                                       "{\"variant\":\"overlap\",\"k\":3,\"limit\":8}"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        game_check_cfg cfg = {
            .options = opts[i], .seeds = 40, .max_plies = 500, .moves_per_state = 80};
        game_check_stats st;
        game_check(thue(), &cfg, &st);
        assert_true(st.states > 40);
        print_message("%s: %ld states, %ld moves, %ld refusals; wins %ld/%ld, draws %ld\n",
                      opts[i] != NULL ? opts[i] : "(defaults)", st.states, st.moves, st.refused,
                      st.ended[0], st.ended[1], st.ended[2]);
    }
}

static void test_thue_refusals(void **state)
{
    (void)state;
    const thue_gamedef *g = thue();
    thue_gopt o;
    thue_gerr e;
    static const char *const bad[] = {"{\"k\":1}",     "{\"k\":65}",
                                      "{\"limit\":0}", "{\"variant\":\"cube\"}",
                                      "{\"first\":0}", "[1]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(thue_game_options_text(g, bad[i], &o, &e), THUE_EOPTIONS);
    assert_int_equal(thue_game_options_text(g, "{\"k\":3,\"limit\":5}", &o, &e), 0);
    unsigned char st[4096];
    g->start(&o, 0, st);
    assert_int_equal(thue_game_apply_text(g, &o, st, 0, "{\"paint\":1}", &e), THUE_ESTEP);
    assert_int_equal(thue_game_apply_text(g, &o, st, 1, "{\"place\":0}", &e), THUE_ETURN);
    assert_int_equal(thue_game_apply_text(g, &o, st, 0, "{\"place\":2}", &e), THUE_EPOSITION);
    assert_int_equal(thue_game_apply_text(g, &o, st, 0, "{\"place\":1,\"paint\":0}", &e),
                     THUE_EMOVE);
    assert_int_equal(thue_game_apply_text(g, &o, st, 0, "{\"place\":1}", &e), 0);
    assert_int_equal(thue_game_apply_text(g, &o, st, 1, "{\"paint\":3}", &e), THUE_ESYMBOL);
    /* 0 then 0: the square 00 ends round 0 at once, with no point. */
    assert_int_equal(thue_game_apply_text(g, &o, st, 1, "{\"paint\":0}", &e), 0);
    json_t *sj = g->state_json(&o, st);
    assert_int_equal(json_integer_value(json_object_get(sj, "round")), 1);
    json_t *r0 = json_array_get(json_object_get(sj, "rounds"), 0);
    assert_string_equal(json_string_value(json_object_get(r0, "end")), "repetition");
    assert_int_equal(json_integer_value(json_object_get(r0, "points")), 0);
    json_decref(sj);
    /* A position with a repetition mid-round, and one at the limit, are refused. */
    json_t *bad_word = json_loads("{\"word\":[0,1,1]}", 0, NULL);
    assert_int_equal(g->position_parse(&o, bad_word, st, &e), THUE_ESTATE);
    json_decref(bad_word);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thue_crosscheck_match_machine),
        cmocka_unit_test(test_thue_conformance),
        cmocka_unit_test(test_thue_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
