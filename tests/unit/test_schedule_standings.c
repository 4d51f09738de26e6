/*
 * test_schedule_standings.c: tournament standings (server/ladder/schedule.h) on
 * hand-worked examples (and the one in docs/tournaments.md), shared ranks, bad
 * arguments, and random events against a plain recount.
 */
#include "schedule_helpers.h"

/* ---------------------------------------------------------------- standings */

/*
 * Five players, three rounds (A=0, B=1, C=2, D=3, E=4):
 *   R1: A-B 1-0, C-D 1/2-1/2, E bye
 *   R2: E-A 0-1, B-C 1-0,     D bye
 *   R3: A-D 1/2-1/2, C-E 1-0, B bye   (and D-E paired but not played: skipped)
 * Points: A 1+1+1/2 = 2.5, B 0+1+1 = 2, C 1/2+0+1 = 1.5, D 1/2+1+1/2 = 2, E 1+0+0 = 1.
 * Virtual opponents (points before the bye's round + 1/2 per later round, of 3):
 *   E (R1): 0 + 1 = 1;   D (R2): 1/2 + 1/2 = 1;   B (R3): 1 + 0 = 1.
 * Buchholz:
 *   A: B 2 + E 1 + D 2 = 5;        B: A 2.5 + C 1.5 + virtual 1 = 5;
 *   C: D 2 + B 2 + E 1 = 5;        D: C 1.5 + virtual 1 + A 2.5 = 5;
 *   E: virtual 1 + A 2.5 + C 1.5 = 5.
 * Sonneborn-Berger (beaten opponents' points, the virtual one included, + half of the
 * drawn opponents'):
 *   A: B 2 + E 1 + D 2/2 = 4;      B: C 1.5 + virtual 1 = 2.5;
 *   C: D 2/2 + E 1 = 2;            D: C 1.5/2 + virtual 1 + A 2.5/2 = 3;
 *   E: virtual 1 = 1.
 * Order: A 2.5; D and B on 2 and Buchholz 5, D ahead on SB (3 > 2.5); C 1.5; E 1.
 */
static void test_standings_worked_example(void **state)
{
    (void)state;
    const thue_game r1[] = {{0, 1, THUE_RESULT_FIRST_WINS},
                            {2, 3, THUE_RESULT_DRAW},
                            {4, THUE_SCHED_BYE, THUE_RESULT_BYE}};
    const thue_game r2[] = {{4, 0, THUE_RESULT_SECOND_WINS},
                            {1, 2, THUE_RESULT_FIRST_WINS},
                            {3, THUE_SCHED_BYE, THUE_RESULT_BYE}};
    const thue_game r3[] = {{0, 3, THUE_RESULT_DRAW},
                            {2, 4, THUE_RESULT_FIRST_WINS},
                            {1, THUE_SCHED_BYE, THUE_RESULT_BYE},
                            {3, 4, THUE_RESULT_NONE}};
    const thue_round_games rounds[] = {{r1, 3}, {r2, 3}, {r3, 4}};
    thue_sched_standing rows[5];
    assert_int_equal(thue_standings(5, NULL, rounds, 3, rows), 5);
    /* player, rank, half points, games, byes, w, d, l, Buchholz x2, SB x4 */
    const int want[5][10] = {
        {0, 1, 5, 3, 0, 2, 1, 0, 10, 16}, {3, 2, 4, 2, 1, 0, 2, 0, 10, 12},
        {1, 3, 4, 2, 1, 1, 0, 1, 10, 10}, {2, 4, 3, 3, 0, 1, 1, 1, 10, 8},
        {4, 5, 2, 2, 1, 0, 0, 2, 10, 4},
    };
    for (int i = 0; i < 5; i++) {
        const thue_sched_standing *r = &rows[i];
        const int got[10] = {
            r->player, r->rank,  r->half_points, r->games,           r->byes,
            r->wins,   r->draws, r->losses,      r->buchholz_halves, r->sb_quarters};
        assert_memory_equal(got, want[i], sizeof got);
    }

    /* After two rounds only (T = 2): E's virtual opponent has 0 + 1/2, D's 1/2 + 0. */
    assert_int_equal(thue_standings(5, NULL, rounds, 2, rows), 5);
    /* Points: A 2, B 1, C 1/2, D 1.5, E 1. E: Buchholz virtual 1/2 + A 2 = 2.5, SB 1/2.
     * D: Buchholz C 1/2 + virtual 1/2 = 1, SB C 1/2 / 2 + 1/2 = 3/4. */
    for (int i = 0; i < 5; i++) {
        if (rows[i].player == 4) {
            assert_int_equal(rows[i].buchholz_halves, 5);
            assert_int_equal(rows[i].sb_quarters, 2);
        } else if (rows[i].player == 3) {
            assert_int_equal(rows[i].buchholz_halves, 2);
            assert_int_equal(rows[i].sb_quarters, 3);
        }
    }
}

/*
 * docs/tournaments.md's worked example, pairings and all: a five-player Swiss of three
 * rounds (Ann, Bob, Cat, Dan, Eve = seeds 0..4), lot 0.
 */
static void test_standings_docs_example(void **state)
{
    (void)state;
    const int results[3][2] = {
        {THUE_RESULT_FIRST_WINS, THUE_RESULT_DRAW},
        {THUE_RESULT_SECOND_WINS, THUE_RESULT_SECOND_WINS},
        {THUE_RESULT_DRAW, THUE_RESULT_FIRST_WINS},
    };
    /* first, second (-1: bye), per board */
    const int want[3][3][2] = {
        {{0, 2}, {3, 1}, {4, -1}}, /* Ann-Cat 1-0, Dan-Bob 1/2-1/2, Eve bye */
        {{1, 0}, {4, 3}, {2, -1}}, /* Bob-Ann 0-1, Eve-Dan 0-1, Cat bye */
        {{0, 3}, {2, 4}, {1, -1}}, /* Ann-Dan 1/2-1/2, Cat-Eve 1-0, Bob bye */
    };
    thue_swiss_state st;
    thue_game games[3][3];
    thue_round_games rounds[3];
    assert_int_equal(thue_swiss_init(&st, 5, NULL), 0);
    for (int r = 0; r < 3; r++) {
        thue_swiss_info info;
        assert_int_equal(thue_swiss_pair(&st, 0, games[r], &info), 3);
        assert_int_equal(info.role_relaxed, 0);
        for (int b = 0; b < 3; b++) {
            assert_int_equal(games[r][b].first, want[r][b][0]);
            assert_int_equal(games[r][b].second, want[r][b][1]);
            if (b < 2)
                games[r][b].result = results[r][b];
            assert_int_equal(thue_swiss_record(&st, &games[r][b]), 0);
        }
        rounds[r] = (thue_round_games){games[r], 3};
    }
    thue_sched_standing rows[5];
    assert_int_equal(thue_standings(5, NULL, rounds, 3, rows), 5);
    /* player, rank, points x2, Buchholz x2, SB x4 (the document's table) */
    const int table[5][5] = {
        {0, 1, 5, 11, 18}, /* Ann 2.5, Buchholz 5.5, SB 4.5 */
        {3, 2, 4, 10, 12}, /* Dan 2, 5, 3 */
        {2, 3, 4, 8, 6},   /* Cat 2, 4, 1.5 */
        {1, 4, 3, 10, 6},  /* Bob 1.5, 5, 1.5 */
        {4, 5, 2, 10, 4},  /* Eve 1, 5, 1 */
    };
    for (int i = 0; i < 5; i++) {
        const int got[5] = {rows[i].player, rows[i].rank, rows[i].half_points,
                            rows[i].buchholz_halves, rows[i].sb_quarters};
        assert_memory_equal(got, table[i], sizeof got);
    }
}

/* Equal on points, Buchholz and SB: a shared rank, listed by seed. */
static void test_standings_shared_ranks(void **state)
{
    (void)state;
    /* Four players, a round robin of draws (one round each pair, no byes). */
    const thue_game rr[3][2] = {
        {{0, 1, THUE_RESULT_DRAW}, {2, 3, THUE_RESULT_DRAW}},
        {{0, 2, THUE_RESULT_DRAW}, {1, 3, THUE_RESULT_DRAW}},
        {{3, 0, THUE_RESULT_DRAW}, {1, 2, THUE_RESULT_DRAW}},
    };
    const thue_game rematch[1] = {{1, 0, THUE_RESULT_SECOND_WINS}};
    const thue_round_games rounds[4] = {{rr[0], 2}, {rr[1], 2}, {rr[2], 2}, {rematch, 1}};
    int seed[4] = {3, 1, 0, 2}; /* player 2 is the top seed */
    thue_sched_standing rows[4];
    assert_int_equal(thue_standings(4, seed, rounds, 3, rows), 4);
    const int order[4] = {2, 1, 3, 0};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rows[i].player, order[i]);
        assert_int_equal(rows[i].rank, 1);
        assert_int_equal(rows[i].half_points, 3);
        assert_int_equal(rows[i].buchholz_halves, 9);
        assert_int_equal(rows[i].sb_quarters, 9);
    }
    /* A fourth round where 0 beats 1 again: the rematch counts twice.
     * In halves: points 0: 3 + 2 = 5, and 3 for 1, 2 and 3.
     * Buchholz: 0: 3 + 3 + 3 + 3 (1 again) = 12; 1: 5 + 3 + 3 + 5 = 16; 2 and 3:
     * 5 + 3 + 3 = 11. SB in quarters (a win adds 2 x the opponent's half-points, a draw
     * 1 x): 0: 3 + 3 + 3 + 2 x 3 = 15; 1, 2, 3: draws with 5, 3 and 3 = 11. */
    assert_int_equal(thue_standings(4, seed, rounds, 4, rows), 4);
    assert_int_equal(rows[0].player, 0);
    assert_int_equal(rows[0].rank, 1);
    assert_int_equal(rows[0].half_points, 5);
    assert_int_equal(rows[0].buchholz_halves, 12);
    assert_int_equal(rows[0].sb_quarters, 15);
    assert_int_equal(rows[1].player, 1);
    assert_int_equal(rows[1].rank, 2);
    assert_int_equal(rows[1].buchholz_halves, 16);
    assert_int_equal(rows[2].player, 2); /* 2 and 3 tie entirely: rank 3 both, by seed */
    assert_int_equal(rows[3].player, 3);
    assert_int_equal(rows[2].rank, 3);
    assert_int_equal(rows[3].rank, 3);
    assert_int_equal(rows[2].sb_quarters, 11);
    assert_int_equal(rows[3].sb_quarters, 11);
}

static void test_standings_bad_arguments(void **state)
{
    (void)state;
    thue_sched_standing rows[4];
    const thue_game ok[] = {{0, 1, THUE_RESULT_DRAW}};
    const thue_round_games one[] = {{ok, 1}};
    int bad_seed[4] = {0, 0, 1, 2};
    assert_int_equal(thue_standings(4, NULL, NULL, 0, rows), 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rows[i].player, i);
        assert_int_equal(rows[i].rank, 1);
    }
    const thue_round_games empty[] = {{NULL, 0}};
    assert_int_equal(thue_standings(4, NULL, empty, 1, rows), 4);
    assert_int_equal(thue_standings(1, NULL, one, 1, rows), THUE_EINVAL);
    assert_int_equal(thue_standings(257, NULL, one, 1, rows), THUE_EINVAL);
    assert_int_equal(thue_standings(4, NULL, one, 1, NULL), THUE_EINVAL);
    assert_int_equal(thue_standings(4, NULL, NULL, 1, rows), THUE_EINVAL);
    assert_int_equal(thue_standings(4, NULL, one, -1, rows), THUE_EINVAL);
    assert_int_equal(thue_standings(4, bad_seed, one, 1, rows), THUE_EINVAL);
    const thue_round_games null_games[] = {{NULL, 1}}, negative[] = {{ok, -1}};
    assert_int_equal(thue_standings(4, NULL, null_games, 1, rows), THUE_EINVAL);
    assert_int_equal(thue_standings(4, NULL, negative, 1, rows), THUE_EINVAL);
    const thue_game bad[] = {
        {4, 1, THUE_RESULT_DRAW},
        {0, 4, THUE_RESULT_DRAW},
        {0, 0, THUE_RESULT_DRAW},
        {0, THUE_SCHED_BYE, THUE_RESULT_DRAW},
        {0, 1, THUE_RESULT_BYE},
        {0, 1, 42},
        {-1, THUE_SCHED_BYE, THUE_RESULT_BYE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const thue_round_games rd[] = {{ok, 1}, {&bad[i], 1}};
        assert_int_equal(thue_standings(4, NULL, rd, 2, rows), THUE_EINVAL);
    }
}

#define SR_MAX_N 40
#define SR_MAX_ROUNDS 9

/* Standings of random Swiss events against a plain recount from the definitions. */
static void test_standings_random_events(void **state)
{
    (void)state;
    rng_seed(5);
    for (int it = 0; it < 300; it++) {
        int n = rnd_range(2, SR_MAX_N);
        thue_swiss_state st;
        assert_int_equal(thue_swiss_init(&st, n, NULL), 0);
        static thue_game games[SR_MAX_ROUNDS][SR_MAX_N / 2];
        thue_round_games rounds[SR_MAX_ROUNDS];
        int before[SR_MAX_ROUNDS][SR_MAX_N]; /* half-points at each round's start */
        int nr = 0;
        int max_rounds = n - 1 < SR_MAX_ROUNDS ? n - 1 : SR_MAX_ROUNDS;
        for (; nr < max_rounds; nr++) {
            int ret = thue_swiss_pair(&st, 0, games[nr], NULL);
            if (ret < 0)
                break;
            for (int p = 0; p < n; p++)
                before[nr][p] = st.p[p].half_points;
            for (int b = 0; b < ret; b++) {
                thue_game *g = &games[nr][b];
                if (g->second != THUE_SCHED_BYE)
                    g->result = rnd_below(10) == 0
                                    ? THUE_RESULT_NONE
                                    : rnd_range(THUE_RESULT_FIRST_WINS, THUE_RESULT_DRAW);
                if (g->result != THUE_RESULT_NONE)
                    assert_int_equal(thue_swiss_record(&st, g), 0);
            }
            rounds[nr] = (thue_round_games){games[nr], ret};
        }
        thue_sched_standing rows[SR_MAX_N];
        assert_int_equal(thue_standings(n, NULL, rounds, nr, rows), n);
        for (int i = 0; i < n; i++) {
            const thue_sched_standing *row = &rows[i];
            int p = row->player;
            assert_int_equal(row->half_points, st.p[p].half_points);
            assert_int_equal(row->games, st.p[p].firsts + st.p[p].seconds);
            assert_int_equal(row->byes, st.p[p].byes);
            assert_int_equal(row->wins + row->draws + row->losses, row->games);
            int bu = 0, sb = 0;
            for (int r = 0; r < nr; r++) {
                for (int b = 0; b < rounds[r].count; b++) {
                    const thue_game *g = &games[r][b];
                    if (g->result == THUE_RESULT_NONE || (g->first != p && g->second != p))
                        continue;
                    if (g->second == THUE_SCHED_BYE) {
                        int virt = before[r][p] + (nr - 1 - r);
                        bu += virt;
                        sb += 2 * virt;
                        continue;
                    }
                    int opp = st.p[g->first == p ? g->second : g->first].half_points;
                    int won = (g->first == p && g->result == THUE_RESULT_FIRST_WINS) ||
                              (g->second == p && g->result == THUE_RESULT_SECOND_WINS);
                    bu += opp;
                    sb += won ? 2 * opp : g->result == THUE_RESULT_DRAW ? opp : 0;
                }
            }
            assert_int_equal(row->buchholz_halves, bu);
            assert_int_equal(row->sb_quarters, sb);
            if (i == 0)
                continue;
            const thue_sched_standing *prev = &rows[i - 1];
            int kp[3] = {prev->half_points, prev->buchholz_halves, prev->sb_quarters};
            int k[3] = {row->half_points, row->buchholz_halves, row->sb_quarters};
            if (memcmp(kp, k, sizeof k) == 0) {
                assert_true(prev->player < row->player);
                assert_int_equal(row->rank, prev->rank);
            } else {
                assert_true(kp[0] > k[0] || (kp[0] == k[0] && kp[1] > k[1]) ||
                            (kp[0] == k[0] && kp[1] == k[1] && kp[2] > k[2]));
                assert_int_equal(row->rank, i + 1);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standings_worked_example),
        cmocka_unit_test(test_standings_docs_example),
        cmocka_unit_test(test_standings_shared_ranks),
        cmocka_unit_test(test_standings_bad_arguments),
        cmocka_unit_test(test_standings_random_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
