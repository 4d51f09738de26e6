/*
 * schedule_helpers.c: the scheduler tests' shared helpers and oracles (schedule_helpers.h).
 */
#include "schedule_helpers.h"

/* ---------------------------------------------------------------- helpers */

uint64_t rng_state;

void rng_seed(uint64_t seed)
{
    rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

int rnd_below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

int rnd_range(int lo, int hi)
{
    return lo + rnd_below(hi - lo + 1);
}

void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd_below(i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

int popcount64(uint64_t x)
{
    return __builtin_popcountll(x);
}

/* ---------------------------------------------------------------- matching oracles
 *
 * Graphs on at most 64 vertices: g[v] is v's neighbour mask, S the vertex set.
 */

/* Brute force: the maximum matching of g inside S, trying every matching. */
int brute_nu(const uint64_t *g, uint64_t S)
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
int brute_pm(const uint64_t *g, uint64_t S)
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
int greedy_nu(const uint64_t *g, uint64_t S)
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

uint64_t mod_pow(uint64_t b, uint64_t e)
{
    uint64_t r = 1;
    for (b %= TUTTE_P; e; e >>= 1, b = b * b % TUTTE_P)
        if (e & 1)
            r = r * b % TUTTE_P;
    return r;
}

/* Rank of g's Tutte matrix on S with random values: 2 * (maximum matching) with
 * probability >= 1 - |S| / p, and never more. */
int tutte_rank(const uint64_t *g, uint64_t S)
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
int oracle_nu(const uint64_t *g, uint64_t S)
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

int oracle_pm(const uint64_t *g, uint64_t S)
{
    int size = popcount64(S);
    if (size % 2)
        return 0;
    if (size <= 12) {
        return brute_pm(g, S);
    }
    return oracle_nu(g, S) == size / 2;
}

void ev_init(ev *e, int n, const int *seed)
{
    memset(e, 0, sizeof *e);
    e->n = n;
    for (int i = 0; i < n; i++)
        e->seed[i] = seed[i];
}

int ev_before(const ev *e, int a, int b)
{
    if (e->hp[a] != e->hp[b])
        return e->hp[a] > e->hp[b];
    return e->seed[a] < e->seed[b];
}

void ev_order(const ev *e, int *order, int *pos)
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
void ev_graph(const ev *e, int balanced, uint64_t *g)
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

uint64_t all_mask(int n)
{
    return n == 64 ? ~(uint64_t)0 : BIT(n) - 1;
}

/* Does a legal pairing exist (any bye)? */
int legal_exists(const ev *e, const uint64_t *loose)
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
int expect_hi_first(const ev *e, int hi, int lo, int board, int lot)
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
void ev_to_state(const ev *e, thue_swiss_state *st)
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
void check_swiss_round(const ev *e, int lot, int ret, const thue_game *out,
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

int fast_mode(void)
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

void print_stats(const char *what, const stats *s)
{
    printf("  %s: %ld rounds paired, %ld floats, %ld relaxed, %ld unpairable, %ld second "
           "byes\n",
           what, s->rounds, s->floats, s->relaxed, s->no_pairing, s->second_byes);
    if (s->events > 0)
        printf("  %s: %ld events, %ld always within |firsts - games/2| <= 1\n", what, s->events,
               s->balanced_events);
}
