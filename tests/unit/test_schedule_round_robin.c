/*
 * test_schedule_round_robin.c: results and error names, and the round robin of
 * server/ladder/schedule.h: the FIDE Berger tables for 6 and 8 players as printed, and for
 * every n in 2..64 (and some up to 256): every pair exactly once, one game or bye per
 * player per round, one bye each for odd n, first-builder counts balanced, never three
 * equal roles in a row (strict alternation for odd n). Also: the Swiss checker's oracles
 * agree with brute force.
 */
#include "schedule_helpers.h"

/* ---------------------------------------------------------------- results, errors */

static void test_result_names(void **state)
{
    (void)state;
    const char *names[] = {NULL, "1-0", "0-1", "1/2-1/2", "bye"};
    for (int r = THUE_RESULT_NONE; r <= THUE_RESULT_BYE; r++) {
        if (names[r] == NULL) {
            assert_null(thue_result_name(r));
            continue;
        }
        assert_string_equal(thue_result_name(r), names[r]);
        assert_int_equal(thue_result_parse(names[r]), r);
    }
    assert_null(thue_result_name(-1));
    assert_null(thue_result_name(99));
    assert_int_equal(thue_result_parse(NULL), THUE_EINVAL);
    assert_int_equal(thue_result_parse(""), THUE_EINVAL);
    assert_int_equal(thue_result_parse("1/2"), THUE_EINVAL);
    assert_int_equal(thue_result_parse("1-0 "), THUE_EINVAL);
    assert_int_equal(thue_result_parse("BYE"), THUE_EINVAL);
}

static void test_error_names(void **state)
{
    (void)state;
    assert_int_equal(THUE_SCHED_ENOPAIRING, -200);
    assert_string_equal(thue_sched_err_name(THUE_SCHED_ENOPAIRING), "no_pairing");
    assert_non_null(strstr(thue_sched_strerror(THUE_SCHED_ENOPAIRING), "no legal pairing"));
    assert_string_equal(thue_sched_err_name(THUE_EINVAL), "invalid_argument");
    assert_string_equal(thue_sched_err_name(THUE_ENOMEM), "out_of_memory");
    assert_string_equal(thue_sched_strerror(THUE_EINVAL), "invalid argument");
    assert_string_equal(thue_sched_err_name(0), "ok");
    assert_string_equal(thue_sched_err_name(-12345), "unknown_error");
    assert_string_equal(thue_sched_strerror(-12345), "unknown error");
}

/* ---------------------------------------------------------------- round robin */

static void test_rr_bad_arguments(void **state)
{
    (void)state;
    thue_game out[THUE_SCHED_BOARDS(THUE_SCHED_PLAYERS_MAX)];
    assert_int_equal(thue_rr_rounds(1), THUE_EINVAL);
    assert_int_equal(thue_rr_rounds(0), THUE_EINVAL);
    assert_int_equal(thue_rr_rounds(257), THUE_EINVAL);
    assert_int_equal(thue_rr_rounds(2), 1);
    assert_int_equal(thue_rr_rounds(3), 3);
    assert_int_equal(thue_rr_rounds(256), 255);
    assert_int_equal(thue_rr_round(1, 0, out), THUE_EINVAL);
    assert_int_equal(thue_rr_round(257, 0, out), THUE_EINVAL);
    assert_int_equal(thue_rr_round(6, -1, out), THUE_EINVAL);
    assert_int_equal(thue_rr_round(6, 5, out), THUE_EINVAL);
    assert_int_equal(thue_rr_round(5, 5, out), THUE_EINVAL);
    assert_int_equal(thue_rr_round(6, 0, NULL), THUE_EINVAL);
    assert_int_equal(thue_rr_round(5, 4, out), 3);
}

/* Compares round robin rounds with a table written with pairing numbers 1..N (White
 * first), boards in the printed order. */
static void assert_rr_table(int n, const int table[][8][2])
{
    thue_game out[8];
    for (int r = 0; r < thue_rr_rounds(n); r++) {
        assert_int_equal(thue_rr_round(n, r, out), n / 2);
        for (int b = 0; b < n / 2; b++) {
            assert_int_equal(out[b].first + 1, table[r][b][0]);
            assert_int_equal(out[b].second + 1, table[r][b][1]);
            assert_int_equal(out[b].result, THUE_RESULT_NONE);
        }
    }
}

/* The FIDE Handbook's Berger tables (C.05 Annex 1) for 5-6 and 7-8 players. */
static void test_rr_matches_fide_tables(void **state)
{
    (void)state;
    static const int t6[5][8][2] = {
        {{1, 6}, {2, 5}, {3, 4}}, {{6, 4}, {5, 3}, {1, 2}}, {{2, 6}, {3, 1}, {4, 5}},
        {{6, 5}, {1, 4}, {2, 3}}, {{3, 6}, {4, 2}, {5, 1}},
    };
    static const int t8[7][8][2] = {
        {{1, 8}, {2, 7}, {3, 6}, {4, 5}}, {{8, 5}, {6, 4}, {7, 3}, {1, 2}},
        {{2, 8}, {3, 1}, {4, 7}, {5, 6}}, {{8, 6}, {7, 5}, {1, 4}, {2, 3}},
        {{3, 8}, {4, 2}, {5, 1}, {6, 7}}, {{8, 7}, {1, 6}, {2, 5}, {3, 4}},
        {{4, 8}, {5, 3}, {6, 2}, {7, 1}},
    };
    assert_rr_table(6, t6);
    assert_rr_table(8, t8);

    /* With 5 players, whoever would meet number 6 has the bye; it is listed last. */
    thue_game out[3];
    assert_int_equal(thue_rr_round(5, 1, out), 3);
    assert_int_equal(out[0].first, 4); /* 5-3 */
    assert_int_equal(out[0].second, 2);
    assert_int_equal(out[1].first, 0); /* 1-2 */
    assert_int_equal(out[1].second, 1);
    assert_int_equal(out[2].first, 3); /* 4 has the bye */
    assert_int_equal(out[2].second, THUE_SCHED_BYE);
    assert_int_equal(out[2].result, THUE_RESULT_BYE);
}

/* Every property schedule.h promises for a round robin of n players. */
static void check_round_robin(int n)
{
    int rounds = thue_rr_rounds(n);
    assert_int_equal(rounds, n % 2 ? n : n - 1);
    static unsigned char met[THUE_SCHED_PLAYERS_MAX][THUE_SCHED_PLAYERS_MAX];
    int byes[THUE_SCHED_PLAYERS_MAX] = {0}, firsts[THUE_SCHED_PLAYERS_MAX] = {0};
    int games[THUE_SCHED_PLAYERS_MAX] = {0};
    int last[THUE_SCHED_PLAYERS_MAX] = {0}, run[THUE_SCHED_PLAYERS_MAX] = {0};
    memset(met, 0, sizeof met);
    thue_game out[THUE_SCHED_BOARDS(THUE_SCHED_PLAYERS_MAX)];
    for (int r = 0; r < rounds; r++) {
        int seen[THUE_SCHED_PLAYERS_MAX] = {0};
        int k = thue_rr_round(n, r, out);
        assert_int_equal(k, THUE_SCHED_BOARDS(n));
        for (int b = 0; b < k; b++) {
            const thue_game *g = &out[b];
            assert_true(g->first >= 0 && g->first < n);
            seen[g->first]++;
            if (g->second == THUE_SCHED_BYE) {
                assert_true(n % 2 == 1 && b == k - 1);
                assert_int_equal(g->result, THUE_RESULT_BYE);
                byes[g->first]++;
                continue;
            }
            assert_int_equal(g->result, THUE_RESULT_NONE);
            assert_true(g->second >= 0 && g->second < n && g->second != g->first);
            seen[g->second]++;
            assert_int_equal(met[g->first][g->second], 0);
            met[g->first][g->second] = met[g->second][g->first] = 1;
            firsts[g->first]++;
            for (int side = 0; side < 2; side++) {
                int p = side ? g->second : g->first, role = side ? -1 : 1;
                games[p]++;
                run[p] = last[p] == role ? run[p] + 1 : 1;
                last[p] = role;
                /* Never three in a row; with n odd the roles strictly alternate. */
                assert_true(run[p] <= (n % 2 ? 1 : 2));
            }
        }
        for (int p = 0; p < n; p++)
            assert_int_equal(seen[p], 1);
    }
    for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++)
            assert_int_equal(met[a][b], a != b);
        assert_int_equal(byes[a], n % 2);
        assert_int_equal(games[a], n - 1);
        if (n % 2)
            assert_int_equal(firsts[a], (n - 1) / 2);
        else
            assert_true(firsts[a] == (n - 2) / 2 || firsts[a] == n / 2);
    }
}

static void test_rr_properties_every_n(void **state)
{
    (void)state;
    for (int n = 2; n <= 64; n++)
        check_round_robin(n);
    const int big[] = {65, 99, 100, 127, 128, 200, 255, 256};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        check_round_robin(big[i]);
}

/* The oracles agree with brute force on random graphs. */
static void test_oracles_agree(void **state)
{
    (void)state;
    rng_seed(11);
    for (int it = 0; it < 3000; it++) {
        int n = rnd_range(1, 14);
        int dens = rnd_range(5, 95);
        uint64_t g[64] = {0};
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++)
                if (rnd_below(100) < dens) {
                    g[a] |= BIT(b);
                    g[b] |= BIT(a);
                }
        uint64_t S = 0;
        for (int a = 0; a < n; a++)
            if (rnd_below(10) < 9)
                S |= BIT(a);
        int nu = brute_nu(g, S);
        int tr = 0;
        for (int t = 0; t < 3; t++) {
            int r = tutte_rank(g, S);
            if (r > tr)
                tr = r;
        }
        assert_int_equal(tr, 2 * nu);
        assert_int_equal(brute_pm(g, S), 2 * nu == popcount64(S));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_names),          cmocka_unit_test(test_error_names),
        cmocka_unit_test(test_rr_bad_arguments),      cmocka_unit_test(test_rr_matches_fide_tables),
        cmocka_unit_test(test_rr_properties_every_n), cmocka_unit_test(test_oracles_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
