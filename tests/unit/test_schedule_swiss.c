/*
 * test_schedule_swiss.c: Swiss pairings (server/ladder/schedule.h) on hand-worked cases:
 * bad arguments, the first and second rounds, pairs kept in their score group, two
 * players, a second bye when nothing else is legal; and "a legal pairing exists" against
 * brute force over all perfect matchings, n <= 8, on random histories dense enough to
 * make it fail.
 */
#include "schedule_helpers.h"

/* ---------------------------------------------------------------- Swiss: brute force */

/* Every perfect matching of S, and whether one avoids the met pairs: the naive
 * reference for "a legal pairing exists". */
static int enumerate_pairings(const ev *e, uint64_t S)
{
    if (S == 0)
        return 1;
    int v = __builtin_ctzll(S);
    int found = 0;
    for (int u = v + 1; u < e->n; u++) {
        if (!(S & BIT(u)))
            continue;
        int legal = !(e->met[v] & BIT(u));
        /* Walk the whole tree: count, do not stop at the first legal one. */
        int sub = enumerate_pairings(e, S & ~BIT(v) & ~BIT(u));
        found |= legal && sub;
    }
    return found;
}

static void test_swiss_existence_vs_brute_force(void **state)
{
    (void)state;
    rng_seed(31337);
    stats s = {0};
    int fails = 0, oks = 0;
    for (int it = 0; it < 20000; it++) {
        int n = rnd_range(2, 8);
        int seed[EV_MAX];
        for (int i = 0; i < n; i++)
            seed[i] = i;
        shuffle(seed, n);
        ev e;
        ev_init(&e, n, seed);
        int dens = rnd_range(20, 95);
        for (int a = 0; a < n; a++) {
            e.hp[a] = rnd_range(0, 8);
            e.byes[a] = n % 2 ? rnd_range(0, 2) : 0;
            e.firsts[a] = rnd_range(0, 4);
            e.seconds[a] = rnd_range(0, 4);
            e.last[a] = e.firsts[a] + e.seconds[a] ? (rnd_below(2) ? 1 : -1) : 0;
            for (int b = a + 1; b < n; b++)
                if (rnd_below(100) < dens) {
                    e.met[a] |= BIT(b);
                    e.met[b] |= BIT(a);
                }
        }
        int exists = 0;
        uint64_t all = all_mask(n);
        if (n % 2 == 0)
            exists = enumerate_pairings(&e, all);
        else
            for (int v = 0; v < n; v++)
                exists |= enumerate_pairings(&e, all & ~BIT(v));
        thue_swiss_state st;
        ev_to_state(&e, &st);
        thue_game out[4];
        thue_swiss_info info;
        int lot = rnd_below(2);
        int ret = thue_swiss_pair(&st, lot, out, &info);
        if (exists) {
            assert_int_equal(ret, THUE_SCHED_BOARDS(n));
            oks++;
        } else {
            assert_int_equal(ret, THUE_SCHED_ENOPAIRING);
            fails++;
        }
        check_swiss_round(&e, lot, ret, out, &info, &s);
    }
    printf("  brute force: %d pairable, %d not\n", oks, fails);
    assert_true(fails > 1000 && oks > 1000);
}

/* Random histories, dense enough that many rounds cannot be paired, for fields too big
 * to enumerate: the checker's oracles decide existence, and every choice is replayed. */
static void test_swiss_dense_histories(void **state)
{
    (void)state;
    rng_seed(4242);
    stats s = {0};
    int iters = fast_mode() ? 1000 : 3000;
    for (int it = 0; it < iters; it++) {
        int n = rnd_range(9, 40);
        int seed[EV_MAX];
        for (int i = 0; i < n; i++)
            seed[i] = i;
        shuffle(seed, n);
        ev e;
        ev_init(&e, n, seed);
        int dens = rnd_range(50, 97);
        int groups = rnd_range(1, 6);
        for (int a = 0; a < n; a++) {
            e.hp[a] = rnd_range(0, groups);
            e.byes[a] = n % 2 ? rnd_range(0, 1) : 0;
            e.firsts[a] = rnd_range(0, 5);
            e.seconds[a] = rnd_range(0, 5);
            e.last[a] = e.firsts[a] + e.seconds[a] ? (rnd_below(2) ? 1 : -1) : 0;
            for (int b = a + 1; b < n; b++)
                if (rnd_below(100) < dens) {
                    e.met[a] |= BIT(b);
                    e.met[b] |= BIT(a);
                }
        }
        thue_swiss_state st;
        ev_to_state(&e, &st);
        thue_game out[THUE_SCHED_BOARDS(EV_MAX)];
        thue_swiss_info info;
        int lot = rnd_below(2);
        int ret = thue_swiss_pair(&st, lot, out, &info);
        check_swiss_round(&e, lot, ret, out, &info, &s);
    }
    print_stats("dense", &s);
    assert_true(s.no_pairing > iters / 10 && s.rounds > iters / 10);
}

/* ---------------------------------------------------------------- Swiss: by hand */

static void test_swiss_round_one(void **state)
{
    (void)state;
    thue_swiss_state st;
    assert_int_equal(thue_swiss_init(&st, 8, NULL), 0);
    thue_game out[4];
    thue_swiss_info info;
    /* Top half against bottom half; roles alternate down the board. */
    assert_int_equal(thue_swiss_pair(&st, 0, out, &info), 4);
    const int want0[4][2] = {{0, 4}, {5, 1}, {2, 6}, {7, 3}};
    for (int b = 0; b < 4; b++) {
        assert_int_equal(out[b].first, want0[b][0]);
        assert_int_equal(out[b].second, want0[b][1]);
    }
    assert_int_equal(info.bye, -1);
    assert_int_equal(info.role_relaxed, 0);
    assert_int_equal(thue_swiss_pair(&st, 1, out, &info), 4);
    for (int b = 0; b < 4; b++) {
        assert_int_equal(out[b].first, want0[b][1]);
        assert_int_equal(out[b].second, want0[b][0]);
    }

    /* Seven players: the bottom seed has the bye; seeds are a permutation. */
    int seed[7] = {6, 5, 4, 3, 2, 1, 0}; /* player 6 is the top seed */
    assert_int_equal(thue_swiss_init(&st, 7, seed), 0);
    assert_int_equal(thue_swiss_pair(&st, 0, out, &info), 4);
    assert_int_equal(info.bye, 0);
    assert_int_equal(out[3].first, 0);
    assert_int_equal(out[3].second, THUE_SCHED_BYE);
    assert_int_equal(out[0].first, 6); /* seeds 1 v 4: players 6 and 3 */
    assert_int_equal(out[0].second, 3);
}

/* Round 2 of eight players after the better seed won every game: the winners' group
 * and the losers' group each pair top half against bottom half, and the roles follow the
 * rule: equal balances and equal last roles, so the higher-placed player alternates. */
static void test_swiss_round_two(void **state)
{
    (void)state;
    thue_swiss_state st;
    assert_int_equal(thue_swiss_init(&st, 8, NULL), 0);
    thue_game out[4];
    assert_int_equal(thue_swiss_pair(&st, 0, out, NULL), 4);
    /* 0-4, 5-1, 2-6, 7-3: seeds 0..3 win. */
    for (int b = 0; b < 4; b++) {
        out[b].result =
            out[b].first < out[b].second ? THUE_RESULT_FIRST_WINS : THUE_RESULT_SECOND_WINS;
        assert_int_equal(thue_swiss_record(&st, &out[b]), 0);
    }
    assert_int_equal(thue_swiss_pair(&st, 0, out, NULL), 4);
    /* 0 and 2 were first builders: 0 (higher) alternates. 1 and 3 were second: 1 builds
     * first. 4 and 6 were second: 4 first. 5 and 7 were first: 5 second. */
    const int want[4][2] = {{2, 0}, {1, 3}, {4, 6}, {7, 5}};
    for (int b = 0; b < 4; b++) {
        assert_int_equal(out[b].first, want[b][0]);
        assert_int_equal(out[b].second, want[b][1]);
    }
}

/* A transposition: the natural pairing would force two floaters. */
static void test_swiss_keeps_pairs_in_group(void **state)
{
    (void)state;
    thue_swiss_state st;
    assert_int_equal(thue_swiss_init(&st, 6, NULL), 0);
    /* 0 and 2 won their games against 4 and 5; 1 and 3 drew twice. */
    const thue_game hist[] = {
        {0, 4, THUE_RESULT_FIRST_WINS},
        {2, 5, THUE_RESULT_FIRST_WINS},
        {1, 3, THUE_RESULT_DRAW},
        {3, 1, THUE_RESULT_DRAW},
    };
    for (size_t i = 0; i < sizeof hist / sizeof hist[0]; i++)
        assert_int_equal(thue_swiss_record(&st, &hist[i]), 0);
    /* Points: 0, 1, 2, 3 on 1 each, 4 and 5 on 0. In the group {0, 1, 2, 3} the halves
     * would give 0-2 and 1-3, but 1 and 3 have met: 0-2 would float 1 and 3 down (and
     * 1-3 cannot happen anyway), so 0 takes 3 and 1 takes 2; 4-5 below. */
    thue_game out[3];
    thue_swiss_info info;
    assert_int_equal(thue_swiss_pair(&st, 0, out, &info), 3);
    int pairs[3][2];
    for (int b = 0; b < 3; b++) {
        pairs[b][0] = out[b].first < out[b].second ? out[b].first : out[b].second;
        pairs[b][1] = out[b].first < out[b].second ? out[b].second : out[b].first;
    }
    assert_int_equal(pairs[0][0], 0);
    assert_int_equal(pairs[0][1], 3);
    assert_int_equal(pairs[1][0], 1);
    assert_int_equal(pairs[1][1], 2);
    assert_int_equal(pairs[2][0], 4);
    assert_int_equal(pairs[2][1], 5);
}

static void test_swiss_two_players(void **state)
{
    (void)state;
    thue_swiss_state st;
    thue_game out[1];
    thue_swiss_info info = {7, 7};
    assert_int_equal(thue_swiss_max_rounds(2), 1);
    assert_int_equal(thue_swiss_init(&st, 2, NULL), 0);
    assert_int_equal(thue_swiss_pair(&st, 0, out, &info), 1);
    assert_int_equal(out[0].first, 0);
    assert_int_equal(out[0].second, 1);
    out[0].result = THUE_RESULT_SECOND_WINS;
    assert_int_equal(thue_swiss_record(&st, &out[0]), 0);
    info = (thue_swiss_info){7, 7};
    assert_int_equal(thue_swiss_pair(&st, 0, out, &info), THUE_SCHED_ENOPAIRING);
    assert_int_equal(info.bye, 7); /* untouched on error */
    assert_int_equal(thue_swiss_pair(&st, 0, out, NULL), THUE_SCHED_ENOPAIRING);
}

static void test_swiss_bad_arguments(void **state)
{
    (void)state;
    thue_swiss_state st, copy;
    thue_game out[3];
    int bad_seed[4] = {0, 1, 1, 2}, range_seed[4] = {0, 1, 2, 4};
    assert_int_equal(thue_swiss_max_rounds(1), THUE_EINVAL);
    assert_int_equal(thue_swiss_max_rounds(3), 3);
    assert_int_equal(thue_swiss_max_rounds(64), 50);
    assert_int_equal(thue_swiss_init(NULL, 4, NULL), THUE_EINVAL);
    assert_int_equal(thue_swiss_init(&st, 1, NULL), THUE_EINVAL);
    assert_int_equal(thue_swiss_init(&st, 257, NULL), THUE_EINVAL);
    assert_int_equal(thue_swiss_init(&st, 4, bad_seed), THUE_EINVAL);
    assert_int_equal(thue_swiss_init(&st, 4, range_seed), THUE_EINVAL);
    assert_int_equal(thue_swiss_init(&st, 5, NULL), 0);

    const thue_game bad_games[] = {
        {-1, 1, THUE_RESULT_FIRST_WINS},
        {5, 1, THUE_RESULT_FIRST_WINS},
        {0, 0, THUE_RESULT_DRAW},
        {0, 5, THUE_RESULT_DRAW},
        {0, 1, THUE_RESULT_NONE},
        {0, 1, THUE_RESULT_BYE},
        {0, THUE_SCHED_BYE, THUE_RESULT_DRAW},
        {0, 1, 99},
    };
    copy = st;
    for (size_t i = 0; i < sizeof bad_games / sizeof bad_games[0]; i++) {
        assert_int_equal(thue_swiss_record(&st, &bad_games[i]), THUE_EINVAL);
        assert_memory_equal(&st, &copy, sizeof st);
    }
    assert_int_equal(thue_swiss_record(NULL, &bad_games[0]), THUE_EINVAL);
    assert_int_equal(thue_swiss_record(&st, NULL), THUE_EINVAL);

    assert_int_equal(thue_swiss_pair(NULL, 0, out, NULL), THUE_EINVAL);
    assert_int_equal(thue_swiss_pair(&st, 0, NULL, NULL), THUE_EINVAL);
    assert_int_equal(thue_swiss_pair(&st, 2, out, NULL), THUE_EINVAL);
    assert_int_equal(thue_swiss_pair(&st, -1, out, NULL), THUE_EINVAL);
    /* Broken states. */
    thue_swiss_state b = st;
    b.met[0][0] |= 2; /* 0 met 1, but 1 did not meet 0 */
    assert_int_equal(thue_swiss_pair(&b, 0, out, NULL), THUE_EINVAL);
    b = st;
    b.met[2][0] |= 4; /* 2 met itself */
    assert_int_equal(thue_swiss_pair(&b, 0, out, NULL), THUE_EINVAL);
    b = st;
    b.p[3].seed = 0;
    assert_int_equal(thue_swiss_pair(&b, 0, out, NULL), THUE_EINVAL);
    b = st;
    b.p[1].last_role = 2;
    assert_int_equal(thue_swiss_pair(&b, 0, out, NULL), THUE_EINVAL);
    b = st;
    b.p[1].half_points = -1;
    assert_int_equal(thue_swiss_pair(&b, 0, out, NULL), THUE_EINVAL);
    b = st;
    b.p[4].byes = -1;
    assert_int_equal(thue_swiss_pair(&b, 0, out, NULL), THUE_EINVAL);
    b = st;
    b.n = 300;
    assert_int_equal(thue_swiss_pair(&b, 0, out, NULL), THUE_EINVAL);
    /* Bits beyond n are ignored. */
    b = st;
    b.met[0][0] |= BIT(40);
    assert_int_equal(thue_swiss_pair(&b, 0, out, NULL), 3);
}

/* Second byes only when nobody without one can take it: five players where the two
 * without a bye have each met everyone else... except each other. */
static void test_swiss_second_bye_when_forced(void **state)
{
    (void)state;
    thue_swiss_state st;
    assert_int_equal(thue_swiss_init(&st, 5, NULL), 0);
    /* Players 0,1,2 have had byes. 3 and 4 have not; 3 met 0,1,2 and 4 met 0,1,2. If
     * 3 had the bye, 4 would have to meet one of 0,1,2: impossible; same for 4. So a
     * second bye goes to the lowest of 0,1,2 that leaves a pairing: 3-4 plus two of
     * 0,1,2, so any one of them; the lowest-placed is 2 (all on equal points). */
    const thue_game hist[] = {
        {0, THUE_SCHED_BYE, THUE_RESULT_BYE},
        {1, THUE_SCHED_BYE, THUE_RESULT_BYE},
        {2, THUE_SCHED_BYE, THUE_RESULT_BYE},
        {3, 0, THUE_RESULT_DRAW},
        {3, 1, THUE_RESULT_DRAW},
        {3, 2, THUE_RESULT_DRAW},
        {4, 0, THUE_RESULT_DRAW},
        {4, 1, THUE_RESULT_DRAW},
        {4, 2, THUE_RESULT_DRAW},
    };
    for (size_t i = 0; i < sizeof hist / sizeof hist[0]; i++)
        assert_int_equal(thue_swiss_record(&st, &hist[i]), 0);
    thue_game out[3];
    thue_swiss_info info;
    assert_int_equal(thue_swiss_pair(&st, 0, out, &info), 3);
    assert_int_equal(info.bye, 2);
    assert_int_equal(out[2].first, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swiss_bad_arguments),
        cmocka_unit_test(test_swiss_round_one),
        cmocka_unit_test(test_swiss_round_two),
        cmocka_unit_test(test_swiss_keeps_pairs_in_group),
        cmocka_unit_test(test_swiss_two_players),
        cmocka_unit_test(test_swiss_second_bye_when_forced),
        cmocka_unit_test(test_swiss_existence_vs_brute_force),
        cmocka_unit_test(test_swiss_dense_histories),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
