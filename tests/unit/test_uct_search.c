/*
 * test_uct_search.c: the uct bot (server/games/thue/bots/uct.c, docs/uct.md): determinism for a
 * fixed seed and iteration count; root parallelism (the iterations are shared out and the
 * root statistics merged); the iteration count, the node budget, the deadline and the
 * stop flag; legal moves on random positions (against the naive reference of naive.c),
 * k = 64, no safe symbol, the horizon.
 */
#include "uct_helpers.h"

/* Root visits summed over parts and candidates. */
static double root_visits(const thue_bot_search *s)
{
    double v = 0;
    for (int p = 0; p < s->nparts; p++)
        for (int x = 0; x < s->ncand; x++)
            v += s->part[p].visits[x];
    return v;
}

/* Whether the move is legal and, for the painter, safe when anything is. */
static void assert_move_ok(const thue_position *pos, int move)
{
    if (pos->role == THUE_ROLE_BUILDER) {
        assert_in_range(move, 0, pos->n);
        return;
    }
    uint8_t buf[64];
    uint64_t safe = naive_safe_at(pos->sym, pos->n, pos->k, pos->variant, pos->index, buf);
    if (safe == 0)
        assert_int_equal(move, 0);
    else
        assert_true((safe >> move) & 1);
}

/* ---- determinism, parts, limits ---------------------------------------------------- */

static void test_uct_deterministic(void **state)
{
    (void)state;
    uint8_t w[40];
    make_word(w, 30, 5, THUE_SQUARE, 11);
    thue_bot_spec spec = uct_spec(3000, 30, THUE_UCT_C_DEFAULT);
    for (int role = 0; role < 2; role++) {
        thue_position pos = position(THUE_SQUARE, 5, w, 30, (thue_role)role, 13);
        thue_bot_result a, b, c;
        thue_bot_search *sa = search(&spec, &pos, 7, 1, NULL, &a);
        thue_bot_search *sb = search(&spec, &pos, 7, 1, NULL, &b);
        thue_bot_search *sc = search(&spec, &pos, 8, 1, NULL, &c);
        assert_int_equal(a.move, b.move);
        assert_int_equal(a.nodes, b.nodes);
        assert_int_equal(a.iterations, b.iterations);
        assert_int_equal(a.depth, b.depth);
        assert_int_equal(a.iterations, 3000);
        assert_int_equal(a.exact, 0);
        assert_int_equal(a.value, -1);
        assert_int_equal(a.stopped, 0);
        size_t nb = (size_t)sa->ncand * sizeof(double);
        assert_memory_equal(sa->part[0].visits, sb->part[0].visits, nb);
        assert_memory_equal(sa->part[0].payoff, sb->part[0].payoff, nb);
        /* another seed grows another tree */
        assert_true(memcmp(sa->part[0].visits, sc->part[0].visits, nb) != 0 ||
                    memcmp(sa->part[0].payoff, sc->part[0].payoff, nb) != 0);
        thue_bot_search_free(sa);
        thue_bot_search_free(sb);
        thue_bot_search_free(sc);
    }
}

static void test_uct_parts_merge(void **state)
{
    (void)state;
    uint8_t w[40];
    make_word(w, 24, 4, THUE_SQUARE, 3);
    thue_bot_spec spec = uct_spec(1001, 30, THUE_UCT_C_DEFAULT);
    thue_position pos = position(THUE_SQUARE, 4, w, 24, THUE_ROLE_BUILDER, 0);
    thue_bot_result r;
    thue_bot_search *s = search(&spec, &pos, 5, 2, NULL, &r);
    assert_int_equal(s->nparts, 2);
    assert_int_equal(s->part[0].iterations, 501);
    assert_int_equal(s->part[1].iterations, 500);
    assert_int_equal(r.iterations, 1001);
    /* each part's root visits are its iterations */
    for (int p = 0; p < 2; p++) {
        double v = 0;
        for (int x = 0; x < s->ncand; x++)
            v += s->part[p].visits[x];
        assert_true(v == (double)s->part[p].iterations);
    }
    /* the move is the most visited candidate of the merged statistics */
    double best = -1;
    for (int x = 0; x < s->ncand; x++) {
        double v = s->part[0].visits[x] + s->part[1].visits[x];
        if (v > best)
            best = v;
    }
    assert_true(s->part[0].visits[r.move] + s->part[1].visits[r.move] == best);
    /* the parts grew different trees */
    assert_true(memcmp(s->part[0].visits, s->part[1].visits, (size_t)s->ncand * sizeof(double)) !=
                0);
    thue_bot_search_free(s);

    /* more parts than iterations: the spare parts run none */
    spec.iterations = 2;
    s = search(&spec, &pos, 5, 3, NULL, &r);
    assert_int_equal(s->nparts, 3);
    assert_int_equal(s->part[2].iterations, 0);
    assert_int_equal(r.iterations, 2);
    assert_move_ok(&pos, r.move);
    thue_bot_search_free(s);
}

static void test_uct_root_visits_sum(void **state)
{
    (void)state;
    uint8_t w[40];
    make_word(w, 20, 5, THUE_OVERLAP, 9);
    for (int role = 0; role < 2; role++)
        for (int parts = 1; parts <= 3; parts += 2) {
            thue_bot_spec spec = uct_spec(777, 50, 1.0);
            thue_position pos = position(THUE_OVERLAP, 5, w, 20, (thue_role)role, 6);
            thue_bot_result r;
            thue_bot_search *s = search(&spec, &pos, 99, parts, NULL, &r);
            assert_int_equal(r.iterations, 777);
            assert_true(root_visits(s) == 777.0);
            for (int p = 0; p < s->nparts; p++)
                for (int x = 0; x < s->ncand; x++) {
                    assert_true(s->part[p].payoff[x] >= 0);
                    assert_true(s->part[p].payoff[x] <= s->part[p].visits[x]);
                }
            thue_bot_search_free(s);
        }
}

static void test_uct_iterations_honoured(void **state)
{
    (void)state;
    uint8_t w[40];
    make_word(w, 30, 5, THUE_SQUARE, 1);
    thue_bot_spec spec = uct_spec(1234, 100, THUE_UCT_C_DEFAULT);
    thue_position pos = position(THUE_SQUARE, 5, w, 30, THUE_ROLE_BUILDER, 0);
    thue_bot_result r = move_of(&spec, &pos, 1, NULL);
    assert_int_equal(r.iterations, 1234);
    assert_int_equal(r.stopped, 0);
    /* at most one node per iteration, plus the root */
    assert_true(r.nodes >= 2 && r.nodes <= 1235);
    assert_true(r.depth >= 1);
}

static void test_uct_node_budget(void **state)
{
    (void)state;
    uint8_t w[40];
    make_word(w, 30, 5, THUE_SQUARE, 2);
    thue_bot_spec spec = uct_spec(1000000, 100, THUE_UCT_C_DEFAULT);
    thue_position pos = position(THUE_SQUARE, 5, w, 30, THUE_ROLE_PAINTER, 30);
    thue_bot_limits lim = {.node_budget = 300};
    thue_bot_result a = move_of(&spec, &pos, 4, &lim), b = move_of(&spec, &pos, 4, &lim);
    assert_int_equal(a.stopped, 1);
    assert_int_equal(a.nodes, 301); /* the budget, plus the root */
    assert_true(a.iterations >= 300 && a.iterations < 1000000);
    assert_int_equal(a.move, b.move);
    assert_int_equal(a.iterations, b.iterations);
    assert_int_equal(a.nodes, b.nodes);
    assert_move_ok(&pos, a.move);
    /* split: each of two parts gets half */
    thue_bot_result r;
    thue_bot_search *s = search(&spec, &pos, 4, 2, &lim, &r);
    assert_int_equal(s->part[0].nodes, 150);
    assert_int_equal(s->part[1].nodes, 150);
    thue_bot_search_free(s);
}

static void test_uct_deadline(void **state)
{
    (void)state;
    uint8_t w[60];
    make_word(w, 50, 5, THUE_SQUARE, 5);
    thue_bot_spec spec = uct_spec(0, 100, THUE_UCT_C_DEFAULT);
    spec.time_ms = 600000; /* iterations=0 needs a time of its own; think_ms is shorter */
    thue_position pos = position(THUE_SQUARE, 5, w, 50, THUE_ROLE_BUILDER, 0);
    thue_bot_limits lim = {.think_ms = 20};
    thue_bot_result r;
    thue_bot_search *s = search(&spec, &pos, 1, 1, &lim, &r);
    assert_int_equal(r.stopped, 1);
    assert_true(root_visits(s) == (double)r.iterations); /* however many ran */
    assert_move_ok(&pos, r.move);
    thue_bot_search_free(s);

    /* the spec's own time limit */
    spec.time_ms = 20;
    r = move_of(&spec, &pos, 1, NULL);
    assert_int_equal(r.stopped, 1);
    assert_move_ok(&pos, r.move);

    /* the stop flag, set before the search starts: no iteration, a legal move */
    atomic_int stop;
    atomic_init(&stop, 1);
    thue_bot_limits lim2 = {.stop = &stop};
    spec = uct_spec(100000, 100, THUE_UCT_C_DEFAULT);
    for (int role = 0; role < 2; role++) {
        pos.role = (thue_role)role;
        pos.index = 17;
        r = move_of(&spec, &pos, 1, &lim2);
        assert_int_equal(r.stopped, 1);
        assert_int_equal(r.iterations, 0);
        assert_move_ok(&pos, r.move);
    }
}

static void test_uct_legal_moves(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (int t = 0; t < 80; t++) {
        int k = 2 + (int)(lcg(&x) % 5);
        thue_variant v = lcg(&x) % 2 ? THUE_OVERLAP : THUE_SQUARE;
        int n = (int)(lcg(&x) % 26);
        if (k == 2 && v == THUE_SQUARE && n > 3)
            n = 3; /* the longest square-free binary word */
        uint8_t w[32];
        make_word(w, n, k, v, lcg(&x));
        thue_role role = lcg(&x) % 2 ? THUE_ROLE_PAINTER : THUE_ROLE_BUILDER;
        int index = (int)(lcg(&x) % (uint64_t)(n + 1));
        thue_position pos = position(v, k, w, n, role, index);
        if (t % 3 == 0)
            pos.remaining = 1 + (int)(lcg(&x) % 5);
        thue_bot_spec spec = uct_spec(100 + lcg(&x) % 300, 1 + (int)(lcg(&x) % 60), 0.5);
        thue_bot_result r = move_of(&spec, &pos, lcg(&x), NULL);
        assert_move_ok(&pos, r.move);
        assert_int_equal(r.exact, 0);
    }
}

/* The largest alphabet: symbol 63 is a root candidate like any other. */
static void test_uct_k64(void **state)
{
    (void)state;
    uint8_t w[20];
    make_word(w, 20, 64, THUE_SQUARE, 6);
    thue_bot_spec spec = uct_spec(2000, 20, THUE_UCT_C_DEFAULT);
    for (int role = 0; role < 2; role++) {
        thue_position pos = position(THUE_SQUARE, 64, w, 20, (thue_role)role, 20);
        thue_bot_result r;
        thue_bot_search *s = search(&spec, &pos, 2, 2, NULL, &r);
        assert_move_ok(&pos, r.move);
        assert_true(root_visits(s) == 2000.0);
        if (role == 1) {
            assert_int_equal(s->cand[s->ncand - 1], 63);
            assert_true(s->part[0].visits[s->ncand - 1] + s->part[1].visits[s->ncand - 1] >= 1);
        }
        thue_bot_search_free(s);
    }
}

/* A painter with nothing safe: every symbol ends the round; nothing is searched. */
static void test_uct_no_safe_symbol(void **state)
{
    (void)state;
    const uint8_t w[2] = {0, 1};
    thue_bot_spec spec = uct_spec(1000, 100, THUE_UCT_C_DEFAULT);
    thue_position pos = position(THUE_SQUARE, 2, w, 2, THUE_ROLE_PAINTER, 1);
    thue_bot_result r;
    thue_bot_search *s = search(&spec, &pos, 1, 4, NULL, &r);
    assert_int_equal(s->ncand, 0);
    assert_int_equal(r.move, 0);
    assert_int_equal(r.iterations, 0);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_CSV), 0);
    rewind(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "root,0,0,0.000000,01/p@1,0\n");
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
    thue_bot_search_free(s);
}

/* With one point left every continuation stops after one insertion: the painter's
 * children are terminal with reward 1, the builder's positions are worth 1 when
 * something is safe there and 0 when not. */
static void test_uct_horizon(void **state)
{
    (void)state;
    uint8_t w[20];
    make_word(w, 12, 3, THUE_SQUARE, 4);
    thue_bot_spec spec = uct_spec(2000, 100, THUE_UCT_C_DEFAULT);
    for (int role = 0; role < 2; role++) {
        thue_position pos = position(THUE_SQUARE, 3, w, 12, (thue_role)role, 5);
        pos.remaining = 1;
        thue_bot_result r;
        thue_bot_search *s = search(&spec, &pos, 3, 1, NULL, &r);
        assert_true(r.depth <= (role == 0 ? 2 : 1));
        for (int x = 0; x < s->ncand; x++) {
            double v = s->part[0].visits[x], p = s->part[0].payoff[x];
            assert_true(v >= 1);
            int safe = role == 1 || s->rootmap[s->cand[x]] != 0;
            assert_true(p == (safe ? v : 0.0));
        }
        if (role == 0 && s->rootmap[r.move] != 0)
            for (int i = 0; i <= 12; i++)
                assert_true(s->rootmap[i] != 0); /* the builder ends the round if it can */
        thue_bot_search_free(s);
    }
}

/* A deadline that falls inside long playouts (k = 8 and a horizon of 1000 insertions:
 * milliseconds each): whatever the moment it stops, the tree keeps its invariants (an
 * iteration cut short leaves no node behind) and the root visits are the iterations. */
static void test_uct_stop_mid_playout(void **state)
{
    (void)state;
    uint8_t w[40];
    make_word(w, 40, 8, THUE_SQUARE, 12);
    thue_bot_spec spec = uct_spec(0, 1000, THUE_UCT_C_DEFAULT);
    spec.time_ms = 600000;
    thue_position pos = position(THUE_SQUARE, 8, w, 40, THUE_ROLE_BUILDER, 0);
    for (int t = 0; t < 3; t++) {
        thue_bot_limits lim = {.think_ms = 10 + 20 * t};
        thue_bot_result r;
        thue_bot_search *s = search(&spec, &pos, (uint64_t)t, 1, &lim, &r);
        assert_int_equal(r.stopped, 1);
        assert_true(root_visits(s) == (double)r.iterations);
        FILE *f = tmpfile();
        assert_non_null(f);
        assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_CSV), 0);
        rows c = {0};
        parse_csv(f, &c);
        assert_int_equal(c.n, (int)r.nodes);
        check_tree(&c, 8, THUE_SQUARE, 1);
        free(c.r);
        fclose(f);
        thue_bot_search_free(s);
    }
}

/* test_uct_search [FILTER]: a cmocka name pattern. */
int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0])
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uct_deterministic),    cmocka_unit_test(test_uct_parts_merge),
        cmocka_unit_test(test_uct_root_visits_sum),  cmocka_unit_test(test_uct_iterations_honoured),
        cmocka_unit_test(test_uct_node_budget),      cmocka_unit_test(test_uct_deadline),
        cmocka_unit_test(test_uct_legal_moves),      cmocka_unit_test(test_uct_k64),
        cmocka_unit_test(test_uct_no_safe_symbol),   cmocka_unit_test(test_uct_horizon),
        cmocka_unit_test(test_uct_stop_mid_playout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
