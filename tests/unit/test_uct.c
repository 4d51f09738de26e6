/*
 * test_uct.c: the uct bot (server/search/uct.c, docs/uct.md).
 *
 * Checked: determinism for a fixed seed and iteration count; root parallelism (the
 * iterations are shared out and the root statistics merged); the iteration count, the
 * node budget, the deadline and the stop flag; legal moves on random positions (against
 * the naive reference of naive.c); strength on small k = 3 and k = 4 positions against
 * the exact solver; the horizon; both tree formats, parsed back by small readers here
 * and checked against each other, against the tree's invariants and against the rules
 * (every row's state follows from its parent's by its move).
 *
 * The tests look into the search's parts through bot_internal.h (the root statistics),
 * which is the contract uct.c implements.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/errors.h"
#include "engine/repetition.h"
#include "engine/word.h"
#include "naive.h"
#include "search/bot.h"
#include "search/bot_internal.h"
#include "search/solve.h"
#include "search/uct.h"

/* ---- helpers ----------------------------------------------------------------------- */

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

/* A clean word of length n over k symbols: depth-first search over appended symbols,
 * each level trying the symbols in a rotated order drawn from the seed. */
static void make_word(uint8_t *w, int n, int k, thue_variant v, uint64_t seed)
{
    int start[64], tried[64], len = 0;
    assert_true(n <= 64);
    if (n == 0)
        return;
    start[0] = (int)(lcg(&seed) % (uint64_t)k);
    tried[0] = 0;
    while (len < n) {
        if (tried[len] == k) { /* a dead end: back up */
            assert_true(len > 0);
            len--;
            continue;
        }
        int c = (start[len] + tried[len]++) % k;
        if (thue_check_insert(w, len, v, len, c, NULL) == 0) {
            w[len++] = (uint8_t)c;
            if (len < n) {
                start[len] = (int)(lcg(&seed) % (uint64_t)k);
                tried[len] = 0;
            }
        }
    }
}

static thue_bot_spec uct_spec(uint64_t iterations, int playout, double c)
{
    thue_bot_spec s = thue_bot_spec_default(THUE_BOT_UCT);
    s.iterations = iterations;
    s.playout_limit = playout;
    s.exploration = c;
    return s;
}

static thue_position position(thue_variant v, int k, const uint8_t *w, int n, thue_role role,
                              int index)
{
    thue_position p = {v, k, w, n, role, index, 0};
    return p;
}

/* A search run part by part on this thread and finished; the caller frees it. */
static thue_bot_search *search(const thue_bot_spec *spec, const thue_position *pos, uint64_t seed,
                               int parts, const thue_bot_limits *lim, thue_bot_result *out)
{
    int err = 1;
    thue_bot_search *s = thue_bot_search_new(spec, pos, seed, parts, &err);
    assert_non_null(s);
    assert_int_equal(err, 0);
    for (int p = 0; p < thue_bot_search_parts(s); p++)
        thue_bot_search_run_part(s, p, lim);
    assert_int_equal(thue_bot_search_finish(s, out), 0);
    return s;
}

static thue_bot_result move_of(const thue_bot_spec *spec, const thue_position *pos, uint64_t seed,
                               const thue_bot_limits *lim)
{
    thue_bot_result r;
    assert_int_equal(thue_bot_move(spec, pos, lim, seed, &r), 0);
    return r;
}

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

/* ---- strength against the exact values --------------------------------------------- */

/* P(w, i): 0 when nothing is safe at i, else the max over the safe c of 1 + V(w+c). */
static int pos_value(thue_solver *sv, const uint8_t *w, int n, int k, int i)
{
    uint8_t buf[64];
    int best = 0;
    for (int c = 0; c < k; c++) {
        if (thue_check_insert(w, n, THUE_SQUARE, i, c, NULL))
            continue;
        memcpy(buf, w, (size_t)i);
        buf[i] = (uint8_t)c;
        memcpy(buf + i + 1, w + i, (size_t)(n - i));
        int v = 0;
        thue_solve_limits lim = {.max_depth = 0};
        assert_int_equal(thue_solver_value(sv, buf, n + 1, 40, &lim, &v, NULL), 0);
        if (1 + v > best)
            best = 1 + v;
    }
    return best;
}

/* Every square-free word over k symbols of length 1..maxlen starting with 0, visited
 * in lexicographic order. */
typedef void (*word_fn)(const uint8_t *w, int n, int k, void *ctx);
static void each_word(uint8_t *w, int n, int k, int maxlen, word_fn fn, void *ctx)
{
    if (n > 0)
        fn(w, n, k, ctx);
    if (n == maxlen)
        return;
    for (int c = 0; c < k; c++) {
        if (n == 0 && c > 0)
            break;
        if (thue_check_insert(w, n, THUE_SQUARE, n, c, NULL) == 0) {
            w[n] = (uint8_t)c;
            each_word(w, n + 1, k, maxlen, fn, ctx);
        }
    }
}

typedef struct strength {
    thue_solver *sv;
    int checked, optimal, ends, ended;
} strength;

/* The builder: a round-ending position whenever there is one; and how often the move
 * is optimal (the smallest P(w, i)). */
static void builder_case(const uint8_t *w, int n, int k, void *ctx)
{
    strength *st = ctx;
    int vals[16], best = 1000, zero = 0;
    for (int i = 0; i <= n; i++) {
        vals[i] = pos_value(st->sv, w, n, k, i);
        if (vals[i] < best)
            best = vals[i];
        zero |= vals[i] == 0;
    }
    thue_bot_spec spec = uct_spec(3000, 100, THUE_UCT_C_DEFAULT);
    thue_position pos = position(THUE_SQUARE, k, w, n, THUE_ROLE_BUILDER, 0);
    thue_bot_result r = move_of(&spec, &pos, (uint64_t)n * 31 + w[n - 1], NULL);
    if (zero) {
        st->ends++;
        assert_int_equal(vals[r.move], 0);
        st->ended++;
    }
    st->checked++;
    st->optimal += vals[r.move] == best;
}

static void test_uct_builder_strength(void **state)
{
    (void)state;
    uint8_t w[16];
    strength st = {thue_solver_new(3, THUE_SQUARE), 0, 0, 0, 0};
    assert_non_null(st.sv);
    each_word(w, 0, 3, 7, builder_case, &st);
    thue_solver_free(st.sv);
    assert_true(st.ends > 10);
    assert_int_equal(st.ended, st.ends);
    print_message("k=3 builder: %d positions, %d optimal moves, %d round-ending of %d\n",
                  st.checked, st.optimal, st.ended, st.ends);
    assert_true(st.optimal * 10 >= st.checked * 9);
}

/* The painter: the symbol that survives longest (the largest 1 + V(w+c)); when some
 * symbol lets the round go on past the builder's next move, never one that does not.
 * The horizon is 10, about the length of these rounds: with the default 100 the rewards
 * of the alternatives differ by hundredths and UCB1 needs many more iterations to tell
 * them apart (docs/uct.md, "Parameters"). */
static void painter_case(const uint8_t *w, int n, int k, void *ctx)
{
    strength *st = ctx;
    for (int i = 0; i <= n; i++) {
        int vals[64], best = -1, nsafe = 0;
        uint8_t buf[64];
        for (int c = 0; c < k; c++) {
            vals[c] = -1;
            if (thue_check_insert(w, n, THUE_SQUARE, i, c, NULL))
                continue;
            nsafe++;
            memcpy(buf, w, (size_t)i);
            buf[i] = (uint8_t)c;
            memcpy(buf + i + 1, w + i, (size_t)(n - i));
            int v = 0;
            thue_solve_limits lim = {.max_depth = 0};
            assert_int_equal(thue_solver_value(st->sv, buf, n + 1, 40, &lim, &v, NULL), 0);
            vals[c] = v;
            if (v > best)
                best = v;
        }
        if (nsafe < 2)
            continue;
        thue_bot_spec spec = uct_spec(3000, 10, THUE_UCT_C_DEFAULT);
        thue_position pos = position(THUE_SQUARE, k, w, n, THUE_ROLE_PAINTER, i);
        thue_bot_result r = move_of(&spec, &pos, (uint64_t)i * 7 + (uint64_t)n, NULL);
        assert_true(vals[r.move] >= 0);
        if (best > 0) {
            st->ends++;
            assert_true(vals[r.move] > 0);
            st->ended++;
        }
        st->checked++;
        st->optimal += vals[r.move] == best;
    }
}

static void test_uct_painter_strength(void **state)
{
    (void)state;
    uint8_t w[16];
    strength st = {thue_solver_new(3, THUE_SQUARE), 0, 0, 0, 0};
    assert_non_null(st.sv);
    each_word(w, 0, 3, 4, painter_case, &st);
    thue_solver_free(st.sv);
    strength s4 = {thue_solver_new(4, THUE_SQUARE), 0, 0, 0, 0};
    assert_non_null(s4.sv);
    each_word(w, 0, 4, 4, painter_case, &s4);
    thue_solver_free(s4.sv);
    print_message("painter: k=3 %d positions, %d optimal; k=4 %d positions, %d optimal\n",
                  st.checked, st.optimal, s4.checked, s4.optimal);
    assert_true(st.checked > 0 && s4.checked > 0);
    assert_int_equal(st.ended, st.ends);
    assert_int_equal(s4.ended, s4.ends);
    assert_int_equal(st.optimal, st.checked);
    assert_true(s4.optimal * 20 >= s4.checked * 19);
}

/* ---- tree export ------------------------------------------------------------------- */

typedef struct row {
    char move[16];
    unsigned long long visits, visits2;
    double payoff;
    char state[256];
    int children;
} row;

typedef struct rows {
    row *r;
    int n, cap;
} rows;

static row *rows_add(rows *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->r = realloc(t->r, (size_t)t->cap * sizeof(row));
        assert_non_null(t->r);
    }
    memset(&t->r[t->n], 0, sizeof(row));
    return &t->r[t->n++];
}

/* The next CSV field of *p into out (quoted fields may hold commas); the delimiter
 * after it ('\n', ',' or '\0') is returned and skipped. */
static char csv_field(const char **p, char *out, size_t size)
{
    const char *s = *p;
    size_t n = 0;
    int quoted = *s == '"';
    if (quoted)
        s++;
    while (*s != '\0' && (quoted ? *s != '"' : *s != ',' && *s != '\n')) {
        assert_true(n + 1 < size);
        out[n++] = *s++;
    }
    out[n] = '\0';
    if (quoted) {
        assert_int_equal(*s, '"');
        s++;
    }
    char d = *s;
    if (d != '\0')
        s++;
    *p = s;
    return d;
}

static void parse_csv(FILE *f, rows *t)
{
    char line[1024];
    rewind(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "move,visits,visits2,payoff,state,children\n");
    while (fgets(line, sizeof line, f) != NULL) {
        row *x = rows_add(t);
        const char *p = line;
        char num[64];
        assert_int_equal(csv_field(&p, x->move, sizeof x->move), ',');
        assert_int_equal(csv_field(&p, num, sizeof num), ',');
        x->visits = strtoull(num, NULL, 10);
        assert_int_equal(csv_field(&p, num, sizeof num), ',');
        x->visits2 = strtoull(num, NULL, 10);
        assert_int_equal(csv_field(&p, num, sizeof num), ',');
        x->payoff = strtod(num, NULL);
        assert_int_equal(csv_field(&p, x->state, sizeof x->state), ',');
        assert_int_equal(csv_field(&p, num, sizeof num), '\n');
        x->children = atoi(num);
        assert_int_equal(*p, '\0');
    }
}

/* ---- the binary reader ---- */

typedef struct reader {
    const uint8_t *b;
    size_t n, at;
} reader;

static uint32_t rd_u32(reader *r)
{
    assert_true(r->at + 4 <= r->n);
    const uint8_t *b = r->b + r->at;
    r->at += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static double rd_double(reader *r)
{
    uint64_t lo = rd_u32(r), hi = rd_u32(r), v = lo | hi << 32;
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

static void rd_string(reader *r, char *out, size_t size)
{
    uint32_t n = rd_u32(r);
    assert_true(n < size && r->at + n <= r->n);
    memcpy(out, r->b + r->at, n);
    out[n] = '\0';
    r->at += n;
}

/* node = state, count, then per child: move, visits, visits2, payoff, node. Row `at`
 * (already added, its edge filled) gets the state and count; the subtree follows. */
static void rd_node(reader *r, rows *t, int at)
{
    rd_string(r, t->r[at].state, sizeof t->r[at].state);
    int count = (int)rd_u32(r);
    t->r[at].children = count;
    for (int j = 0; j < count; j++) {
        row *c = rows_add(t);
        rd_string(r, c->move, sizeof c->move);
        c->visits = rd_u32(r);
        c->visits2 = rd_u32(r);
        c->payoff = rd_double(r);
        rd_node(r, t, t->n - 1);
    }
}

static void parse_binary(FILE *f, rows *t)
{
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    rewind(f);
    uint8_t *b = malloc((size_t)size + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)size, f), (size_t)size);
    reader r = {b, (size_t)size, 0};
    strcpy(rows_add(t)->move, "root"); /* the root is written without an edge */
    rd_node(&r, t, 0);
    assert_int_equal(r.at, r.n); /* nothing left over */
    free(b);
}

/* A state name split into the word and the painter's position (-1: builder). */
static void split_state(const char *state, thue_word *w, int *at)
{
    const char *slash = strrchr(state, '/');
    assert_non_null(slash);
    char text[256];
    memcpy(text, state, (size_t)(slash - state));
    text[slash - state] = '\0';
    assert_int_equal(thue_word_parse(w, text, NULL), 0);
    if (strcmp(slash, "/b") == 0) {
        *at = -1;
    } else {
        assert_true(strncmp(slash, "/p@", 3) == 0);
        *at = atoi(slash + 3);
    }
}

/* Depth-first order, children counts, visit sums, and each state following from its
 * parent's by the move (p<I>: the builder picks I; s<C>: C is inserted at the parent's
 * position and is safe there). */
static void check_tree(const rows *t, int k, thue_variant v, int root_counters)
{
    int *stack = malloc((size_t)t->n * sizeof(int)), *left = malloc((size_t)t->n * sizeof(int));
    unsigned long long *sum = calloc((size_t)t->n, sizeof *sum);
    assert_non_null(stack);
    assert_non_null(left);
    assert_non_null(sum);
    int sp = 0;
    assert_string_equal(t->r[0].move, "root");
    for (int j = 0; j < t->n; j++) {
        const row *x = &t->r[j];
        assert_true(x->visits2 <= x->visits);
        assert_true(x->payoff >= 0 && x->payoff <= 1);
        if (j > 0) {
            while (sp > 0 && left[sp - 1] == 0)
                sp--;
            assert_true(sp > 0);
            int parent = stack[sp - 1];
            left[sp - 1]--;
            sum[parent] += x->visits;
            assert_true(x->visits >= 1);
            thue_word pw, cw;
            thue_word_init(&pw);
            thue_word_init(&cw);
            int pat, cat;
            split_state(t->r[parent].state, &pw, &pat);
            split_state(x->state, &cw, &cat);
            if (pat < 0) {
                assert_true(x->move[0] == 'p');
                assert_int_equal(atoi(x->move + 1), cat);
                assert_in_range(cat, 0, pw.len);
                assert_int_equal(cw.len, pw.len);
                assert_memory_equal(cw.sym, pw.sym, (size_t)pw.len);
            } else {
                assert_true(x->move[0] == 's');
                int c = atoi(x->move + 1);
                assert_in_range(c, 0, k - 1);
                assert_int_equal(cat, -1);
                assert_int_equal(thue_check_insert(pw.sym, pw.len, v, pat, c, NULL), 0);
                assert_int_equal(thue_word_insert(&pw, pat, c), 0);
                assert_int_equal(cw.len, pw.len);
                assert_memory_equal(cw.sym, pw.sym, (size_t)pw.len);
            }
            thue_word_free(&pw);
            thue_word_free(&cw);
        }
        stack[sp] = j;
        left[sp] = x->children;
        sp++;
    }
    for (int j = 0; j < sp; j++)
        assert_int_equal(left[j], 0);
    for (int j = root_counters ? 0 : 1; j < t->n; j++)
        assert_true(sum[j] <= t->r[j].visits);
    if (root_counters)
        assert_true(sum[0] == t->r[0].visits); /* every iteration passes a root child */
    free(stack);
    free(left);
    free(sum);
}

static void export_case(thue_variant v, int k, const uint8_t *w, int n, thue_role role, int index,
                        uint64_t iterations, const char *root_state)
{
    thue_bot_spec spec = uct_spec(iterations, 40, THUE_UCT_C_DEFAULT);
    thue_position pos = position(v, k, w, n, role, index);
    thue_bot_result r;
    thue_bot_search *s = search(&spec, &pos, 21, 1, NULL, &r);
    FILE *fc = tmpfile(), *fb = tmpfile();
    assert_non_null(fc);
    assert_non_null(fb);
    assert_int_equal(thue_uct_export_tree(s, fc, THUE_TREE_CSV), 0);
    assert_int_equal(thue_uct_export_tree(s, fb, THUE_TREE_BINARY), 0);
    rows c = {0}, b = {0};
    parse_csv(fc, &c);
    parse_binary(fb, &b);
    assert_int_equal(c.n, (int)r.nodes); /* one row per node, root included */
    assert_string_equal(c.r[0].state, root_state);
    assert_true(c.r[0].visits == r.iterations);
    check_tree(&c, k, v, 1);
    check_tree(&b, k, v, 0); /* the binary format has no counters for the root */
    assert_int_equal(b.n, c.n);
    for (int j = 0; j < c.n; j++) {
        assert_string_equal(b.r[j].move, c.r[j].move);
        assert_string_equal(b.r[j].state, c.r[j].state);
        assert_int_equal(b.r[j].children, c.r[j].children);
        if (j == 0)
            continue;
        assert_true(b.r[j].visits == c.r[j].visits);
        assert_true(b.r[j].visits2 == c.r[j].visits2);
        assert_true(b.r[j].payoff - c.r[j].payoff < 5e-7 && c.r[j].payoff - b.r[j].payoff < 5e-7);
    }
    /* the root's visits are the root statistics the move came from */
    double total = 0;
    for (int x = 0; x < s->ncand; x++)
        total += s->part[0].visits[x];
    assert_true(total == (double)c.r[0].visits);
    free(c.r);
    free(b.r);
    fclose(fc);
    fclose(fb);
    thue_bot_search_free(s);
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

static void test_uct_export_formats(void **state)
{
    (void)state;
    uint8_t w[40];
    const uint8_t w4[4] = {0, 1, 0, 2};
    export_case(THUE_SQUARE, 3, w4, 4, THUE_ROLE_BUILDER, 0, 2000, "0102/b");
    export_case(THUE_SQUARE, 3, w4, 4, THUE_ROLE_PAINTER, 2, 500, "0102/p@2");
    export_case(THUE_SQUARE, 3, NULL, 0, THUE_ROLE_BUILDER, 0, 300, "/b");
    make_word(w, 30, 5, THUE_OVERLAP, 8);
    char want[64];
    thue_word tw = {w, 30, 30};
    assert_int_equal(thue_word_format(&tw, THUE_FMT_AUTO, want, sizeof want), 30);
    strcat(want, "/b");
    export_case(THUE_OVERLAP, 5, w, 30, THUE_ROLE_BUILDER, 0, 3000, want);
    /* symbols above 9: the word is written with commas, and the CSV field is quoted */
    make_word(w, 8, 3, THUE_SQUARE, 1);
    for (int j = 0; j < 8; j++)
        w[j] = (uint8_t)(11 - w[j]); /* relabelled: still square-free, symbols 9..11 */
    tw.len = 8;
    int tl = thue_word_format(&tw, THUE_FMT_AUTO, want, sizeof want);
    assert_non_null(strchr(want, ','));
    snprintf(want + tl, sizeof want - (size_t)tl, "/p@3");
    export_case(THUE_SQUARE, 12, w, 8, THUE_ROLE_PAINTER, 3, 1000, want);
}

/* The CSV text of a tiny search, byte for byte: row order and number formats. */
static void test_uct_export_csv_text(void **state)
{
    (void)state;
    const uint8_t w[1] = {0};
    thue_bot_spec spec = uct_spec(3, 100, THUE_UCT_C_DEFAULT);
    thue_position pos = position(THUE_SQUARE, 2, w, 1, THUE_ROLE_PAINTER, 1);
    thue_bot_result r;
    thue_bot_search *s = search(&spec, &pos, 1, 1, NULL, &r);
    /* [0], painter at 1: only 1 is safe ([0,0] is a square); then the builder on [0,1]
     * has 3 positions, and k = 2 square-free words end by length 3 or 4. */
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_CSV), 0);
    rows t = {0};
    parse_csv(f, &t);
    assert_int_equal(t.n, 4);
    assert_string_equal(t.r[0].move, "root");
    assert_string_equal(t.r[0].state, "0/p@1");
    assert_int_equal(t.r[0].children, 1);
    assert_string_equal(t.r[1].move, "s1");
    assert_string_equal(t.r[1].state, "01/b");
    assert_int_equal(t.r[1].visits, 3);
    assert_int_equal(t.r[1].children, 2);
    check_tree(&t, 2, THUE_SQUARE, 1);
    /* the averages are written with six decimals */
    rewind(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(fgets(line, sizeof line, f));
    char *dot = strchr(line, '.');
    assert_non_null(dot);
    assert_true(strspn(dot + 1, "0123456789") == 6);
    free(t.r);
    fclose(f);
    thue_bot_search_free(s);
}

static void test_uct_export_einval(void **state)
{
    (void)state;
    const uint8_t w[3] = {0, 1, 0};
    thue_position pos = position(THUE_SQUARE, 3, w, 3, THUE_ROLE_BUILDER, 0);
    FILE *f = tmpfile();
    assert_non_null(f);
    thue_bot_result r;
    thue_bot_spec greedy = thue_bot_spec_default(THUE_BOT_GREEDY);
    thue_bot_search *s = search(&greedy, &pos, 1, 1, NULL, &r);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_CSV), THUE_EINVAL);
    thue_bot_search_free(s);
    thue_bot_spec nested = thue_bot_spec_default(THUE_BOT_NESTED);
    s = search(&nested, &pos, 1, 1, NULL, &r);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_BINARY), THUE_EINVAL);
    thue_bot_search_free(s);
    /* a uct search that has not run */
    thue_bot_spec spec = uct_spec(100, 100, THUE_UCT_C_DEFAULT);
    int err;
    s = thue_bot_search_new(&spec, &pos, 1, 1, &err);
    assert_non_null(s);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_CSV), THUE_EINVAL);
    thue_bot_search_run_part(s, 0, NULL);
    assert_int_equal(thue_bot_search_finish(s, &r), 0);
    assert_int_equal(thue_uct_export_tree(s, f, (thue_tree_format)7), THUE_EINVAL);
    assert_int_equal(thue_uct_export_tree(s, NULL, THUE_TREE_CSV), THUE_EINVAL);
    assert_int_equal(thue_uct_export_tree(NULL, f, THUE_TREE_CSV), THUE_EINVAL);
    assert_int_equal(ftell(f), 0); /* nothing written */
    /* a stream that cannot be written */
    FILE *full = fopen("/dev/full", "w");
    if (full != NULL) {
        assert_int_equal(thue_uct_export_tree(s, full, THUE_TREE_CSV), -1);
        clearerr(full);
        assert_int_equal(thue_uct_export_tree(s, full, THUE_TREE_BINARY), -1);
        fclose(full);
    }
    thue_bot_search_free(s);
    fclose(f);
}

/* test_uct [FILTER]: a cmocka name pattern. */
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
        cmocka_unit_test(test_uct_builder_strength), cmocka_unit_test(test_uct_painter_strength),
        cmocka_unit_test(test_uct_stop_mid_playout), cmocka_unit_test(test_uct_export_formats),
        cmocka_unit_test(test_uct_export_csv_text),  cmocka_unit_test(test_uct_export_einval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
