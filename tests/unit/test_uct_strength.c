/*
 * test_uct_strength.c: the uct bot's (server/games/thue/bots/uct.c) strength on small k = 3 and
 * k = 4 positions against the exact solver, as builder and as painter.
 */
#include "uct_helpers.h"

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
    int vals[16] = {0}, best = 1000, zero = 0;
    for (int i = 0; i <= n; i++) {
        vals[i] = pos_value(st->sv, w, n, k, i);
        if (vals[i] < best)
            best = vals[i];
        zero |= vals[i] == 0;
    }
    thue_bot_spec spec = uct_spec(3000, 100, THUE_UCT_C_DEFAULT);
    thue_position pos = position(THUE_SQUARE, k, w, n, THUE_ROLE_BUILDER, 0);
    thue_bot_result r = move_of(&spec, &pos, (uint64_t)n * 31 + w[n - 1], NULL);
    assert_in_range(r.move, 0, n);
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

/* test_uct_strength [FILTER]: a cmocka name pattern. */
int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0])
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uct_builder_strength),
        cmocka_unit_test(test_uct_painter_strength),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
