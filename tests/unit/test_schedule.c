/*
 * test_schedule.c: tournament pairings and standings (server/ladder/schedule.h).
 *
 * - results and error names;
 * - round robin: the FIDE Berger tables for 6 and 8 players as printed, and for every n
 *   in 2..64 (and some up to 256): every pair exactly once, one game or bye per player
 *   per round, one bye each for odd n, first-builder counts balanced, never three equal
 *   roles in a row (strict alternation for odd n);
 * - Swiss, against a checker that replays every rule of schedule.h with oracles of its
 *   own: perfect-matching existence and matching size by brute force over all matchings
 *   for small sets, else a greedy certificate or the rank of a random Tutte matrix (the
 *   rank is twice the maximum matching with probability >= 1 - n/p; it can only err
 *   low, so a low answer is recomputed with fresh values). Random events: thousands, n
 *   in 2..64, up to min(n-1, 9) rounds, random results with draws; each round checked
 *   for legality, the bye rule, the greedy's every choice (score groups, halves,
 *   floats), the role rule and the role-balance promise;
 * - "a legal pairing exists" against brute force over all perfect matchings, n <= 8,
 *   on random histories dense enough to make it fail;
 * - large fields (up to 256 players, 50 rounds) for legality and speed;
 * - standings on hand-worked examples.
 * Random data comes from a fixed-seed xorshift64, so every run checks the same cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "engine/errors.h"
#include "ladder/schedule.h"

/* ---------------------------------------------------------------- helpers */

static uint64_t rng_state;
static void rng_seed(uint64_t seed)
{
    rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}
static int rnd_below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}
static int rnd_range(int lo, int hi)
{
    return lo + rnd_below(hi - lo + 1);
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd_below(i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static int popcount64(uint64_t x)
{
    return __builtin_popcountll(x);
}

#define BIT(i) ((uint64_t)1 << (i))

/* For the large fields' report only: nothing asserts a duration. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

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

/* ---------------------------------------------------------------- matching oracles
 *
 * Graphs on at most 64 vertices: g[v] is v's neighbour mask, S the vertex set.
 */

/* Brute force: the maximum matching of g inside S, trying every matching. */
static int brute_nu(const uint64_t *g, uint64_t S)
{
    if (popcount64(S) < 2)
        return 0;
    int v = __builtin_ctzll(S);
    uint64_t rest = S & ~BIT(v);
    int best = brute_nu(g, rest); /* v unmatched */
    for (uint64_t nb = g[v] & rest; nb; nb &= nb - 1) {
        int u = __builtin_ctzll(nb);
        int m = 1 + brute_nu(g, rest & ~BIT(u));
        if (m > best)
            best = m;
    }
    return best;
}

/* Brute force: does g have a perfect matching on S? */
static int brute_pm(const uint64_t *g, uint64_t S)
{
    if (S == 0)
        return 1;
    if (popcount64(S) % 2)
        return 0;
    int v = __builtin_ctzll(S);
    uint64_t rest = S & ~BIT(v);
    for (uint64_t nb = g[v] & rest; nb; nb &= nb - 1)
        if (brute_pm(g, rest & ~BIT(__builtin_ctzll(nb))))
            return 1;
    return 0;
}

/* Greedy matching size in a random vertex order: a lower bound. */
static int greedy_nu(const uint64_t *g, uint64_t S)
{
    int v[64], m = 0;
    for (uint64_t s = S; s; s &= s - 1)
        v[m++] = __builtin_ctzll(s);
    shuffle(v, m);
    uint64_t free_ = S;
    int pairs = 0;
    for (int i = 0; i < m; i++) {
        if (!(free_ & BIT(v[i])))
            continue;
        uint64_t nb = g[v[i]] & free_ & ~BIT(v[i]);
        if (!nb)
            continue;
        int u = __builtin_ctzll(nb);
        free_ &= ~(BIT(v[i]) | BIT(u));
        pairs++;
    }
    return pairs;
}

#define TUTTE_P 2147483647ULL /* 2^31 - 1, prime */

static uint64_t mod_pow(uint64_t b, uint64_t e)
{
    uint64_t r = 1;
    for (b %= TUTTE_P; e; e >>= 1, b = b * b % TUTTE_P)
        if (e & 1)
            r = r * b % TUTTE_P;
    return r;
}

/* Rank of g's Tutte matrix on S with random values: 2 * (maximum matching) with
 * probability >= 1 - |S| / p, and never more. */
static int tutte_rank(const uint64_t *g, uint64_t S)
{
    int v[64], m = 0;
    for (uint64_t s = S; s; s &= s - 1)
        v[m++] = __builtin_ctzll(s);
    static uint64_t a[64][64];
    for (int i = 0; i < m; i++) {
        a[i][i] = 0;
        for (int j = i + 1; j < m; j++) {
            uint64_t x = (g[v[i]] & BIT(v[j])) ? 1 + rnd() % (TUTTE_P - 1) : 0;
            a[i][j] = x;
            a[j][i] = x ? TUTTE_P - x : 0;
        }
    }
    int rank = 0;
    for (int c = 0; c < m && rank < m; c++) {
        int piv = -1;
        for (int r = rank; r < m; r++)
            if (a[r][c]) {
                piv = r;
                break;
            }
        if (piv < 0)
            continue;
        for (int j = 0; j < m; j++) {
            uint64_t t = a[piv][j];
            a[piv][j] = a[rank][j];
            a[rank][j] = t;
        }
        uint64_t inv = mod_pow(a[rank][c], TUTTE_P - 2);
        for (int r = rank + 1; r < m; r++) {
            if (!a[r][c])
                continue;
            uint64_t f = a[r][c] * inv % TUTTE_P;
            for (int j = c; j < m; j++)
                a[r][j] = (a[r][j] + (TUTTE_P - f) * a[rank][j]) % TUTTE_P;
        }
        rank++;
    }
    return rank;
}

/* Maximum matching size inside S: exact for small S, else certified or w.h.p. */
static int oracle_nu(const uint64_t *g, uint64_t S)
{
    int size = popcount64(S);
    if (size <= 10)
        return brute_nu(g, S);
    int bound = size / 2;
    int best = greedy_nu(g, S);
    for (int t = 0; t < 3 && best < bound; t++) {
        int r = tutte_rank(g, S) / 2;
        if (r > best)
            best = r;
    }
    return best;
}

static int oracle_pm(const uint64_t *g, uint64_t S)
{
    int size = popcount64(S);
    if (size % 2)
        return 0;
    if (size <= 12) {
        return brute_pm(g, S);
    }
    return oracle_nu(g, S) == size / 2;
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

/* ---------------------------------------------------------------- Swiss: the test's model */

#define EV_MAX 64

/* The test's own record of an event (independent of thue_swiss_state). */
typedef struct ev {
    int n;
    int hp[EV_MAX], seed[EV_MAX], firsts[EV_MAX], seconds[EV_MAX], last[EV_MAX], byes[EV_MAX];
    uint64_t met[EV_MAX];
} ev;

typedef struct stats {
    long rounds, relaxed, no_pairing, floats, second_byes, balanced_events, events;
} stats;

static void ev_init(ev *e, int n, const int *seed)
{
    memset(e, 0, sizeof *e);
    e->n = n;
    for (int i = 0; i < n; i++)
        e->seed[i] = seed[i];
}

static int ev_before(const ev *e, int a, int b)
{
    if (e->hp[a] != e->hp[b])
        return e->hp[a] > e->hp[b];
    return e->seed[a] < e->seed[b];
}

static void ev_order(const ev *e, int *order, int *pos)
{
    for (int i = 0; i < e->n; i++)
        order[i] = i;
    for (int i = 1; i < e->n; i++)
        for (int j = i; j > 0 && ev_before(e, order[j], order[j - 1]); j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < e->n; i++)
        pos[order[i]] = i;
}

/* The pairing graph: not met; with `balanced`, no two players both at +2 or more (or
 * both at -2 or less) in firsts - seconds. */
static void ev_graph(const ev *e, int balanced, uint64_t *g)
{
    for (int a = 0; a < e->n; a++) {
        g[a] = 0;
        int da = e->firsts[a] - e->seconds[a];
        for (int b = 0; b < e->n; b++) {
            int db = e->firsts[b] - e->seconds[b];
            if (a == b || (e->met[a] & BIT(b)))
                continue;
            if (balanced && ((da >= 2 && db >= 2) || (da <= -2 && db <= -2)))
                continue;
            g[a] |= BIT(b);
        }
    }
}

static uint64_t all_mask(int n)
{
    return n == 64 ? ~(uint64_t)0 : BIT(n) - 1;
}

/* Does a legal pairing exist (any bye)? */
static int legal_exists(const ev *e, const uint64_t *loose)
{
    uint64_t all = all_mask(e->n);
    if (e->n % 2 == 0)
        return oracle_pm(loose, all);
    for (int v = 0; v < e->n; v++)
        if (oracle_pm(loose, all & ~BIT(v)))
            return 1;
    return 0;
}

/* The role rule of schedule.h, restated; hi is the higher-placed player. */
static int expect_hi_first(const ev *e, int hi, int lo, int board, int lot)
{
    int da = e->firsts[hi] - e->seconds[hi], db = e->firsts[lo] - e->seconds[lo];
    int la = e->last[hi], lb = e->last[lo];
    if (da != db)
        return da < db;
    if (la && lb && la != lb)
        return la < 0;
    if (!la && lb)
        return lb > 0;
    if (la)
        return la < 0;
    return (board + lot) % 2 == 0;
}

/* The state the library would build, from the test's record. */
static void ev_to_state(const ev *e, thue_swiss_state *st)
{
    memset(st, 0, sizeof *st);
    st->n = e->n;
    for (int i = 0; i < e->n; i++) {
        st->p[i] = (thue_swiss_player){e->hp[i],      e->seed[i], e->firsts[i],
                                       e->seconds[i], e->last[i], e->byes[i]};
        st->met[i][0] = e->met[i];
    }
}

/*
 * Checks one answer of thue_swiss_pair against every rule, replaying the greedy with the
 * test's oracles (a choice equal to the answer needs no "rest is pairable" call: the
 * answer's later boards are the witness).
 */
static void check_swiss_round(const ev *e, int lot, int ret, const thue_game *out,
                              const thue_swiss_info *info, stats *s)
{
    int n = e->n;
    uint64_t loose[64], strict[64], all = all_mask(n);
    ev_graph(e, 0, loose);
    ev_graph(e, 1, strict);
    if (ret == THUE_SCHED_ENOPAIRING) {
        assert_false(legal_exists(e, loose));
        s->no_pairing++;
        return;
    }
    assert_int_equal(ret, THUE_SCHED_BOARDS(n));
    s->rounds++;

    /* Shape: everyone once, games first, the bye last, no repeat. */
    int ngames = n / 2, bye = -1;
    uint64_t seen = 0;
    for (int b = 0; b < ret; b++) {
        const thue_game *g = &out[b];
        assert_true(g->first >= 0 && g->first < n);
        assert_false(seen & BIT(g->first));
        seen |= BIT(g->first);
        if (b == ngames) {
            assert_int_equal(g->second, THUE_SCHED_BYE);
            assert_int_equal(g->result, THUE_RESULT_BYE);
            bye = g->first;
            continue;
        }
        assert_int_equal(g->result, THUE_RESULT_NONE);
        assert_true(g->second >= 0 && g->second < n);
        assert_false(seen & BIT(g->second));
        seen |= BIT(g->second);
        assert_true(loose[g->first] & BIT(g->second)); /* never a repeat */
    }
    assert_true(seen == all);
    assert_int_equal(info->bye, bye);

    /* The bye: nobody with fewer byes, nobody lower with as many, could take it. */
    if (bye >= 0) {
        int order[EV_MAX], pos[EV_MAX];
        ev_order(e, order, pos);
        for (int v = 0; v < n; v++)
            if (e->byes[v] < e->byes[bye] || (e->byes[v] == e->byes[bye] && pos[v] > pos[bye]))
                assert_false(oracle_pm(loose, all & ~BIT(v)));
        if (e->byes[bye] > 0)
            s->second_byes++;
    }

    /* Roles balanced if possible. */
    uint64_t left = bye >= 0 ? all & ~BIT(bye) : all;
    if (info->role_relaxed) {
        assert_false(oracle_pm(strict, left));
        s->relaxed++;
    } else {
        for (int b = 0; b < ngames; b++)
            assert_true(strict[out[b].first] & BIT(out[b].second));
    }
    const uint64_t *t = info->role_relaxed ? loose : strict;

    /* The greedy, board by board. */
    int order[EV_MAX], pos[EV_MAX];
    ev_order(e, order, pos);
    for (int b = 0; b < ngames; b++) {
        int x = out[b].first, y = out[b].second;
        int p = pos[x] < pos[y] ? x : y, q = p == x ? y : x;
        int top = -1;
        for (int i = 0; i < n && top < 0; i++)
            if (left & BIT(order[i]))
                top = order[i];
        assert_int_equal(p, top);

        int members[EV_MAX], gsize = 0;
        uint64_t group = 0;
        for (int i = 0; i < n; i++)
            if ((left & BIT(order[i])) && e->hp[order[i]] == e->hp[p]) {
                members[gsize++] = order[i];
                group |= BIT(order[i]);
            }
        int cand[EV_MAX], k = 0, h = gsize / 2;
        for (int i = h > 1 ? h : 1; i < gsize; i++)
            cand[k++] = members[i];
        for (int i = h - 1; i >= 1; i--)
            cand[k++] = members[i];

        int expect = -1;
        int nu_g = -1;
        for (int i = 0; i < k && expect < 0; i++) {
            int c = cand[i];
            if (!(t[p] & BIT(c)))
                continue;
            uint64_t rest = left & ~BIT(p) & ~BIT(c);
            if (c != q && !oracle_pm(t, rest))
                continue;
            if (nu_g < 0)
                nu_g = oracle_nu(t, group);
            if (oracle_nu(t, group & ~BIT(p) & ~BIT(c)) == nu_g - 1)
                expect = c;
        }
        for (int i = 0; i < k && expect < 0; i++) {
            int c = cand[i];
            if ((t[p] & BIT(c)) && (c == q || oracle_pm(t, left & ~BIT(p) & ~BIT(c))))
                expect = c;
        }
        for (int i = 0; i < n && expect < 0; i++) {
            int c = order[i];
            if (!(left & BIT(c)) || (group & BIT(c)) || !(t[p] & BIT(c)))
                continue;
            if (c == q || oracle_pm(t, left & ~BIT(p) & ~BIT(c)))
                expect = c;
        }
        assert_int_equal(q, expect);
        if (e->hp[q] != e->hp[p])
            s->floats++;

        int hi_first = expect_hi_first(e, p, q, b, lot);
        assert_int_equal(x, hi_first ? p : q);
        left &= ~(BIT(p) | BIT(q));
    }
}

/* Records a round with random results in both the test's model and the library's state. */
static void play_round(ev *e, thue_swiss_state *st, thue_game *out, int boards, int mode)
{
    for (int b = 0; b < boards; b++) {
        thue_game *g = &out[b];
        if (g->second == THUE_SCHED_BYE) {
            e->hp[g->first] += 2;
            e->byes[g->first]++;
        } else {
            int r = rnd_below(100);
            int draw_pct = mode == 0 ? 20 : mode == 1 ? 60 : 10;
            if (r < draw_pct) {
                g->result = THUE_RESULT_DRAW;
            } else if (mode == 2) {
                /* The better seed usually wins: score groups follow the seeds. */
                int fav = e->seed[g->first] < e->seed[g->second];
                int upset = rnd_below(100) < 20;
                g->result = fav != upset ? THUE_RESULT_FIRST_WINS : THUE_RESULT_SECOND_WINS;
            } else {
                g->result = rnd_below(2) ? THUE_RESULT_FIRST_WINS : THUE_RESULT_SECOND_WINS;
            }
            int a = g->first, c = g->second;
            e->hp[a] += g->result == THUE_RESULT_FIRST_WINS ? 2 : g->result == THUE_RESULT_DRAW;
            e->hp[c] += g->result == THUE_RESULT_SECOND_WINS ? 2 : g->result == THUE_RESULT_DRAW;
            e->firsts[a]++;
            e->seconds[c]++;
            e->last[a] = 1;
            e->last[c] = -1;
            e->met[a] |= BIT(c);
            e->met[c] |= BIT(a);
        }
        assert_int_equal(thue_swiss_record(st, g), 0);
    }
}

/* The library's state equals the model's. */
static void assert_state_matches(const ev *e, const thue_swiss_state *st)
{
    thue_swiss_state want;
    ev_to_state(e, &want);
    assert_int_equal(st->n, want.n);
    assert_memory_equal(st->p, want.p, sizeof want.p[0] * (size_t)e->n);
    for (int i = 0; i < e->n; i++)
        assert_true(st->met[i][0] == want.met[i][0]);
}

static int max_abs_balance(const ev *e)
{
    int worst = 0;
    for (int i = 0; i < e->n; i++) {
        int d = abs(e->firsts[i] - e->seconds[i]);
        if (d > worst)
            worst = d;
    }
    return worst;
}

/* One whole random event; returns the rounds paired. */
static int run_event(int n, int rounds, stats *s)
{
    int seed[EV_MAX];
    for (int i = 0; i < n; i++)
        seed[i] = i;
    if (rnd_below(2))
        shuffle(seed, n);
    ev e;
    ev_init(&e, n, seed);
    thue_swiss_state st;
    assert_int_equal(thue_swiss_init(&st, n, seed), 0);
    int mode = rnd_below(3), lot = rnd_below(2);
    int balanced = 1;
    thue_game out[THUE_SCHED_BOARDS(EV_MAX)];
    int r = 0;
    for (; r < rounds; r++) {
        thue_swiss_info info;
        int ret = thue_swiss_pair(&st, lot, out, &info);
        check_swiss_round(&e, lot, ret, out, &info, s);
        if (ret < 0)
            break;
        int before = max_abs_balance(&e);
        play_round(&e, &st, out, ret, mode);
        assert_state_matches(&e, &st);
        /* The promise: within |firsts - seconds| <= 2 before and not relaxed: still. */
        if (before <= 2 && !info.role_relaxed)
            assert_true(max_abs_balance(&e) <= 2);
        if (max_abs_balance(&e) > 2)
            balanced = 0;
    }
    s->events++;
    s->balanced_events += balanced;
    return r;
}

static int fast_mode(void)
{
    /* Under AddressSanitizer (some 10x slower) the random runs are cut to a third. */
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 1;
#else
    return 0;
#endif
#else
    return 0;
#endif
}

static void print_stats(const char *what, const stats *s)
{
    printf("  %s: %ld rounds paired, %ld floats, %ld relaxed, %ld unpairable, %ld second "
           "byes\n",
           what, s->rounds, s->floats, s->relaxed, s->no_pairing, s->second_byes);
    if (s->events > 0)
        printf("  %s: %ld events, %ld always within |firsts - games/2| <= 1\n", what, s->events,
               s->balanced_events);
}

static void test_swiss_random_events(void **state)
{
    (void)state;
    rng_seed(2024);
    stats s = {0};
    int events = fast_mode() ? 1000 : 3000;
    for (int it = 0; it < events; it++) {
        int n = it % 2 == 0 ? rnd_range(2, 64) : rnd_range(2, 24);
        int rounds = n - 1 < 9 ? n - 1 : 9;
        run_event(n, rounds, &s);
    }
    print_stats("random", &s);
    assert_true(s.floats > 0 && s.no_pairing > 0);
    /* Relaxed rounds are rare: nearly every event keeps everyone within the bound. */
    assert_true(s.balanced_events * 100 >= s.events * 98);
}

/* Small fields all the way to thue_swiss_max_rounds, where pairings run out. */
static void test_swiss_events_to_exhaustion(void **state)
{
    (void)state;
    rng_seed(77);
    stats s = {0};
    int events = fast_mode() ? 200 : 600;
    for (int it = 0; it < events; it++) {
        int n = rnd_range(2, 12);
        run_event(n, thue_swiss_max_rounds(n), &s);
    }
    print_stats("to exhaustion", &s);
    /* Late rounds do get stuck, and some byes go twice (the checker proved each forced). */
    assert_true(s.no_pairing > 0 && s.second_byes > 0);
}

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

/* Big fields: legal, every player once, at most one bye each, and fast. */
static void test_swiss_large_fields(void **state)
{
    (void)state;
    rng_seed(99);
    const int sizes[] = {100, 129, 255, 256};
    static thue_swiss_state st;
    thue_game out[THUE_SCHED_BOARDS(THUE_SCHED_PLAYERS_MAX)];
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        int rounds = fast_mode() ? 25 : THUE_SCHED_ROUNDS_MAX;
        assert_int_equal(thue_swiss_init(&st, n, NULL), 0);
        long relaxed = 0;
        double slowest = 0;
        for (int r = 0; r < rounds; r++) {
            thue_swiss_info info;
            double t0 = now_ms();
            int ret = thue_swiss_pair(&st, r & 1, out, &info);
            double dt = now_ms() - t0;
            slowest = dt > slowest ? dt : slowest;
            assert_int_equal(ret, THUE_SCHED_BOARDS(n));
            relaxed += info.role_relaxed;
            int seen[THUE_SCHED_PLAYERS_MAX] = {0};
            for (int b = 0; b < ret; b++) {
                thue_game *g = &out[b];
                seen[g->first]++;
                if (g->second == THUE_SCHED_BYE) {
                    assert_int_equal(st.p[g->first].byes, 0);
                } else {
                    seen[g->second]++;
                    assert_false(st.met[g->first][g->second / 64] >> (g->second % 64) & 1);
                    int u = rnd_below(100);
                    g->result = u < 15   ? THUE_RESULT_DRAW
                                : u < 55 ? THUE_RESULT_FIRST_WINS
                                         : THUE_RESULT_SECOND_WINS;
                }
                assert_int_equal(thue_swiss_record(&st, g), 0);
            }
            for (int i = 0; i < n; i++)
                assert_int_equal(seen[i], 1);
        }
        int worst = 0;
        for (int i = 0; i < n; i++) {
            int d = abs(st.p[i].firsts - st.p[i].seconds);
            worst = d > worst ? d : worst;
        }
        printf("  n=%d: %d rounds, %ld relaxed, worst |firsts - seconds| %d, slowest round "
               "%.1f ms\n",
               n, rounds, relaxed, worst, slowest);
        assert_true(worst <= 2 || relaxed > 0);
    }
}

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
        cmocka_unit_test(test_result_names),
        cmocka_unit_test(test_error_names),
        cmocka_unit_test(test_rr_bad_arguments),
        cmocka_unit_test(test_rr_matches_fide_tables),
        cmocka_unit_test(test_rr_properties_every_n),
        cmocka_unit_test(test_oracles_agree),
        cmocka_unit_test(test_swiss_bad_arguments),
        cmocka_unit_test(test_swiss_round_one),
        cmocka_unit_test(test_swiss_round_two),
        cmocka_unit_test(test_swiss_keeps_pairs_in_group),
        cmocka_unit_test(test_swiss_two_players),
        cmocka_unit_test(test_swiss_second_bye_when_forced),
        cmocka_unit_test(test_swiss_existence_vs_brute_force),
        cmocka_unit_test(test_swiss_dense_histories),
        cmocka_unit_test(test_swiss_random_events),
        cmocka_unit_test(test_swiss_events_to_exhaustion),
        cmocka_unit_test(test_swiss_large_fields),
        cmocka_unit_test(test_standings_worked_example),
        cmocka_unit_test(test_standings_docs_example),
        cmocka_unit_test(test_standings_shared_ranks),
        cmocka_unit_test(test_standings_bad_arguments),
        cmocka_unit_test(test_standings_random_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
