/*
 * schedule.c: tournament pairings and standings (schedule.h, docs/tournaments.md).
 *
 * Round robin: the Berger tables in closed form. Pairing numbers 1..N-1 sit on a circle
 * of m = N - 1 (odd) places and number N is fixed; in round r the two numbers on the
 * circle meet when they sum to r modulo m (0-based), and the one left over meets N.
 * The first builder of a circle game is the player from which the other lies an odd
 * number of places onwards round the circle. As the rounds turn the circle, that makes
 * every player's roles alternate except around its game with N (which alternates its
 * own): hence the balance and "never three in a row" properties that schedule.h promises.
 *
 * Swiss: a greedy pairing steered by an exact oracle. Players are taken from the top;
 * each takes the first opponent, in the Dutch order of its score group, for which the
 * rest of the round can still be paired. "Can still be paired" is a perfect-matching
 * question on the graph of pairs that have not met, answered exactly by Edmonds'
 * blossom algorithm, so the greedy never paints itself into a corner: this is the
 * backtracking over the whole round done without its exponential cost. The oracle is
 * incremental: a perfect matching of the unpaired players is kept, and trying a pair
 * (p, q) removes p and q and repairs the matching with one augmenting-path search from
 * the partners they leave behind (any augmenting path must end there, as the old
 * matching was perfect). A second matching, maximum inside the current score group,
 * answers "does this pair keep the most pairs possible inside the group" the same way.
 *
 * Standings: two passes over the rounds (points round by round, which a bye's virtual
 * opponent needs; then the tie-breaks from the opponents' final points) and a sort.
 *
 * Nothing here allocates except thue_swiss_pair's one work area (some 20 KiB, kept
 * off the stack because the caller may be on a small thread stack).
 */
#include "ladder/schedule.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define MAXP THUE_SCHED_PLAYERS_MAX
#define WORDS (MAXP / 64)

/* ---- errors and results --------------------------------------------------------------- */

const char *thue_sched_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define THUE__SERR_MSG(name, value, wire, msg)                                                     \
    case value:                                                                                    \
        return msg;
        THUE_SCHED_ERRNO_MAP(THUE__SERR_MSG)
        THUE_ERRNO_MAP(THUE__SERR_MSG)
#undef THUE__SERR_MSG
    default:
        return "unknown error";
    }
}

const char *thue_sched_err_name(int err)
{
    switch (err) {
    case 0:
        return "ok";
#define THUE__SERR_NAME(name, value, wire, msg)                                                    \
    case value:                                                                                    \
        return wire;
        THUE_SCHED_ERRNO_MAP(THUE__SERR_NAME)
        THUE_ERRNO_MAP(THUE__SERR_NAME)
#undef THUE__SERR_NAME
    default:
        return "unknown_error";
    }
}

static const char *const RESULT_NAMES[] = {
    [THUE_RESULT_FIRST_WINS] = "1-0",
    [THUE_RESULT_SECOND_WINS] = "0-1",
    [THUE_RESULT_DRAW] = "1/2-1/2",
    [THUE_RESULT_BYE] = "bye",
};

const char *thue_result_name(int result)
{
    if (result <= THUE_RESULT_NONE || result > THUE_RESULT_BYE)
        return NULL;
    return RESULT_NAMES[result];
}

int thue_result_parse(const char *s)
{
    if (!s)
        return THUE_EINVAL;
    for (int r = THUE_RESULT_FIRST_WINS; r <= THUE_RESULT_BYE; r++)
        if (strcmp(s, RESULT_NAMES[r]) == 0)
            return r;
    return THUE_EINVAL;
}

/* ---- round robin ------------------------------------------------------------------------ */

int thue_rr_rounds(int n)
{
    if (n < 2 || n > MAXP)
        return THUE_EINVAL;
    return n % 2 == 0 ? n - 1 : n;
}

int thue_rr_round(int n, int round, thue_game *out)
{
    int rounds = thue_rr_rounds(n);
    if (rounds < 0)
        return rounds;
    if (!out || round < 0 || round >= rounds)
        return THUE_EINVAL;
    int m = rounds;       /* places on the circle (odd); player m is the fixed one */
    int odd = n % 2 != 0; /* then the fixed player is the dummy: meeting it is the bye */
    /* The circle player left over meets the fixed one: 2 x0 = round (mod m). */
    int x0 = round % 2 == 0 ? round / 2 : (round + m) / 2;
    int k = 0;
    if (!odd) {
        /* Board 1: the fixed player alternates, second in the tables' first round. */
        out[k++] = round % 2 == 0 ? (thue_game){x0, m, THUE_RESULT_NONE}
                                  : (thue_game){m, x0, THUE_RESULT_NONE};
    }
    for (int b = 1; b <= (m - 1) / 2; b++)
        out[k++] = (thue_game){(x0 + b) % m, (x0 - b + m) % m, THUE_RESULT_NONE};
    if (odd)
        out[k++] = (thue_game){x0, THUE_SCHED_BYE, THUE_RESULT_BYE};
    assert(k == THUE_SCHED_BOARDS(n));
    return k;
}

/* ---- bit sets over the players ------------------------------------------------------------ */

typedef struct bits {
    uint64_t w[WORDS];
} bits;

static int bit_get(const bits *b, int i)
{
    return (int)(b->w[i >> 6] >> (i & 63) & 1);
}

static void bit_on(bits *b, int i)
{
    b->w[i >> 6] |= (uint64_t)1 << (i & 63);
}

static void bit_off(bits *b, int i)
{
    b->w[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

static int bit_count(const bits *b)
{
    int c = 0;
    for (int k = 0; k < WORDS; k++)
        c += __builtin_popcountll(b->w[k]);
    return c;
}

/* The players 0..n-1. */
static bits bits_first(int n)
{
    bits b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < n; i++)
        bit_on(&b, i);
    return b;
}

/* ---- maximum matching (Edmonds' blossom algorithm) ----------------------------------------
 *
 * On the graph adj[] restricted to the vertices in `on`. mate[v] is v's partner or -1;
 * only the entries of vertices in `on` are read or written. This is the textbook
 * single-root search: grow an alternating tree from an exposed root, contract an odd cycle
 * (blossom) into its base when two outer vertices meet, and flip the path when an exposed
 * vertex is reached. O(V^2) per search with bit-set adjacency.
 */

typedef struct mgraph {
    const bits *adj;
    const bits *on;
    int n;
} mgraph;

typedef struct mwork {
    int parent[MAXP]; /* the tree edge into an inner vertex (from an outer one) */
    int base[MAXP];   /* the base of the blossom a vertex is contracted into */
    int queue[MAXP];  /* outer vertices to scan; each enters at most once */
    unsigned char outer[MAXP];
    unsigned char in_blossom[MAXP];
    unsigned char on_path[MAXP];
} mwork;

/* The base of the smallest blossom holding outer vertices a and b (their tree paths'
 * meeting point). */
static int lowest_common_base(mwork *w, const int *mate, int n, int a, int b)
{
    memset(w->on_path, 0, (size_t)n);
    for (;;) {
        a = w->base[a];
        w->on_path[a] = 1;
        if (mate[a] < 0)
            break; /* the root */
        a = w->parent[mate[a]];
    }
    for (;;) {
        b = w->base[b];
        if (w->on_path[b])
            return b;
        b = w->parent[mate[b]];
    }
}

/* Marks the blossoms from v up to base b, and points their inner vertices' parents the
 * other way round the cycle so that a later path flip can walk through the blossom. */
static void mark_blossom_path(mwork *w, const int *mate, int v, int b, int child)
{
    while (w->base[v] != b) {
        w->in_blossom[w->base[v]] = 1;
        w->in_blossom[w->base[mate[v]]] = 1;
        w->parent[v] = child;
        child = mate[v];
        v = w->parent[mate[v]];
    }
}

/* Contracts the odd cycle closed by the edge v-u (both outer) into one blossom whose
 * vertices all become outer and are queued for scanning. */
static void contract(const mgraph *g, mwork *w, const int *mate, int v, int u, int *tail)
{
    int b = lowest_common_base(w, mate, g->n, v, u);
    memset(w->in_blossom, 0, (size_t)g->n);
    mark_blossom_path(w, mate, v, b, u);
    mark_blossom_path(w, mate, u, b, v);
    for (int i = 0; i < g->n; i++) {
        if (!bit_get(g->on, i) || !w->in_blossom[w->base[i]])
            continue;
        w->base[i] = b;
        if (!w->outer[i]) {
            w->outer[i] = 1; /* inner vertices of a blossom become outer */
            w->queue[(*tail)++] = i;
        }
    }
}

/* Flips the alternating path that ends at the exposed vertex u. */
static void flip_path(const mwork *w, int *mate, int u)
{
    while (u >= 0) {
        int pv = w->parent[u];
        int next = mate[pv];
        mate[u] = pv;
        mate[pv] = u;
        u = next;
    }
}

/* Looks for an augmenting path from the exposed vertex root; if found, flips it (the
 * matching grows by one) and returns 1. Returns 0 and leaves mate[] as it was if none. */
static int augment_from(const mgraph *g, int *mate, int root, mwork *w)
{
    for (int i = 0; i < g->n; i++) {
        w->parent[i] = -1;
        w->base[i] = i;
        w->outer[i] = 0;
    }
    int head = 0, tail = 0;
    w->outer[root] = 1;
    w->queue[tail++] = root;
    while (head < tail) {
        int v = w->queue[head++];
        for (int k = 0; k < WORDS; k++) {
            uint64_t nb = g->adj[v].w[k] & g->on->w[k];
            while (nb) {
                int u = k * 64 + __builtin_ctzll(nb);
                nb &= nb - 1;
                if (w->base[v] == w->base[u] || mate[v] == u)
                    continue;
                if (u == root || (mate[u] >= 0 && w->parent[mate[u]] >= 0)) {
                    contract(g, w, mate, v, u, &tail); /* u is outer: odd cycle */
                } else if (w->parent[u] < 0) {
                    w->parent[u] = v;
                    if (mate[u] < 0) {
                        flip_path(w, mate, u);
                        return 1;
                    }
                    w->outer[mate[u]] = 1;
                    w->queue[tail++] = mate[u];
                }
            }
        }
    }
    return 0;
}

/* A maximum matching of the graph from scratch; returns its number of pairs. */
static int max_matching(const mgraph *g, int *mate, mwork *w)
{
    for (int i = 0; i < g->n; i++)
        mate[i] = -1;
    int pairs = 0;
    /* A greedy start saves most of the searches. */
    for (int v = 0; v < g->n; v++) {
        if (!bit_get(g->on, v) || mate[v] >= 0)
            continue;
        for (int u = v + 1; u < g->n; u++) {
            if (bit_get(g->on, u) && mate[u] < 0 && bit_get(&g->adj[v], u)) {
                mate[v] = u;
                mate[u] = v;
                pairs++;
                break;
            }
        }
    }
    /* A vertex with no augmenting path now never gets one later: one search each. */
    for (int v = 0; v < g->n; v++)
        if (bit_get(g->on, v) && mate[v] < 0)
            pairs += augment_from(g, mate, v, w);
    return pairs;
}

/*
 * Removes the vertices gone[0..k-1] (already taken out of g->on) from a maximum matching
 * of the graph they were in, and makes it maximum again. Returns the change in its
 * number of pairs. Every augmenting path of the reduced matching ends at a partner the
 * removed vertices left exposed (else it would have augmented the old, maximum, matching),
 * and a vertex that has none keeps having none: so one search from each such partner is
 * enough.
 */
static int drop_vertices(const mgraph *g, int *mate, const int *gone, int k, mwork *w)
{
    int widowed[2];
    int nw = 0, change = 0;
    assert(k <= 2);
    for (int i = 0; i < k; i++) {
        int x = gone[i], y = mate[x];
        if (y < 0)
            continue;
        mate[x] = mate[y] = -1;
        change--;
        if (bit_get(g->on, y))
            widowed[nw++] = y;
    }
    for (int i = 0; i < nw; i++)
        if (mate[widowed[i]] < 0)
            change += augment_from(g, mate, widowed[i], w);
    return change;
}

/* ---- Swiss: state ------------------------------------------------------------------------ */

int thue_swiss_max_rounds(int n)
{
    int r = thue_rr_rounds(n);
    if (r < 0)
        return r;
    return r < THUE_SCHED_ROUNDS_MAX ? r : THUE_SCHED_ROUNDS_MAX;
}

/* seed[0..n-1] is a permutation of 0..n-1. */
static int is_permutation(const int *seed, int n)
{
    unsigned char seen[MAXP] = {0};
    for (int i = 0; i < n; i++) {
        if (seed[i] < 0 || seed[i] >= n || seen[seed[i]])
            return 0;
        seen[seed[i]] = 1;
    }
    return 1;
}

int thue_swiss_init(thue_swiss_state *st, int n, const int *seed)
{
    if (!st || n < 2 || n > MAXP || (seed && !is_permutation(seed, n)))
        return THUE_EINVAL;
    memset(st, 0, sizeof *st);
    st->n = n;
    for (int i = 0; i < n; i++)
        st->p[i].seed = seed ? seed[i] : i;
    return 0;
}

static int met_get(const thue_swiss_state *st, int a, int b)
{
    return (int)(st->met[a][b >> 6] >> (b & 63) & 1);
}

static void met_on(thue_swiss_state *st, int a, int b)
{
    st->met[a][b >> 6] |= (uint64_t)1 << (b & 63);
    st->met[b][a >> 6] |= (uint64_t)1 << (a & 63);
}

int thue_swiss_record(thue_swiss_state *st, const thue_game *g)
{
    if (!st || !g || st->n < 2 || st->n > MAXP || g->first < 0 || g->first >= st->n)
        return THUE_EINVAL;
    thue_swiss_player *a = &st->p[g->first];
    if (g->second == THUE_SCHED_BYE || g->result == THUE_RESULT_BYE) {
        if (g->second != THUE_SCHED_BYE || g->result != THUE_RESULT_BYE)
            return THUE_EINVAL;
        a->half_points += 2;
        a->byes++;
        return 0;
    }
    if (g->second < 0 || g->second >= st->n || g->second == g->first ||
        g->result < THUE_RESULT_FIRST_WINS || g->result > THUE_RESULT_DRAW)
        return THUE_EINVAL;
    thue_swiss_player *b = &st->p[g->second];
    a->half_points += g->result == THUE_RESULT_FIRST_WINS ? 2 : g->result == THUE_RESULT_DRAW;
    b->half_points += g->result == THUE_RESULT_SECOND_WINS ? 2 : g->result == THUE_RESULT_DRAW;
    a->firsts++;
    b->seconds++;
    a->last_role = THUE_SCHED_ROLE_FIRST;
    b->last_role = THUE_SCHED_ROLE_SECOND;
    met_on(st, g->first, g->second);
    return 0;
}

/* Everything thue_swiss_pair relies on; see its contract. */
static int swiss_state_ok(const thue_swiss_state *st)
{
    int n = st->n;
    if (n < 2 || n > MAXP)
        return 0;
    int seed[MAXP];
    for (int i = 0; i < n; i++) {
        const thue_swiss_player *p = &st->p[i];
        if (p->half_points < 0 || p->firsts < 0 || p->seconds < 0 || p->byes < 0 ||
            p->last_role < THUE_SCHED_ROLE_SECOND || p->last_role > THUE_SCHED_ROLE_FIRST)
            return 0;
        seed[i] = p->seed;
    }
    if (!is_permutation(seed, n))
        return 0;
    for (int a = 0; a < n; a++) {
        if (met_get(st, a, a))
            return 0;
        for (int b = a + 1; b < n; b++)
            if (met_get(st, a, b) != met_get(st, b, a))
                return 0;
    }
    return 1;
}

/* ---- Swiss: pairing ------------------------------------------------------------------------ */

typedef struct pairer {
    const thue_swiss_state *st;
    int n;
    int order[MAXP];  /* players by points (higher first), then seed */
    bits all;         /* 0..n-1 */
    bits adj[MAXP];   /* who may meet whom in this round */
    bits left;        /* players still to pair (the bye excluded) */
    int mate[MAXP];   /* a perfect matching of `left` */
    bits group;       /* the unpaired players of the current score group */
    int group_points; /* its half-points; -1 before the first group */
    int gmate[MAXP];  /* a maximum matching inside `group` */
    int gpairs;       /* its number of pairs */
    int trial[MAXP], gtrial[MAXP];
    mwork w;
} pairer;

static int role_balance(const thue_swiss_player *p)
{
    return p->firsts - p->seconds;
}

/* Higher points first, then the better seed. */
static int ranks_before(const thue_swiss_state *st, int a, int b)
{
    if (st->p[a].half_points != st->p[b].half_points)
        return st->p[a].half_points > st->p[b].half_points;
    return st->p[a].seed < st->p[b].seed;
}

static void sort_players(pairer *pr)
{
    for (int i = 0; i < pr->n; i++) {
        int v = i, j = i;
        for (; j > 0 && ranks_before(pr->st, v, pr->order[j - 1]); j--)
            pr->order[j] = pr->order[j - 1];
        pr->order[j] = v;
    }
}

/*
 * The graph of allowed pairs: never two who have met; with `balanced`, also never two
 * who both need the same role to stay within |firsts - seconds| <= 2 (both at +2 or
 * more, or both at -2 or less): one of them would end the round at 3.
 */
static void build_graph(pairer *pr, int balanced)
{
    const thue_swiss_state *st = pr->st;
    for (int a = 0; a < pr->n; a++) {
        bits *row = &pr->adj[a];
        for (int k = 0; k < WORDS; k++)
            row->w[k] = pr->all.w[k] & ~st->met[a][k];
        bit_off(row, a);
        if (!balanced)
            continue;
        int da = role_balance(&st->p[a]);
        if (da > -2 && da < 2)
            continue;
        for (int b = 0; b < pr->n; b++) {
            int db = role_balance(&st->p[b]);
            if ((da >= 2 && db >= 2) || (da <= -2 && db <= -2))
                bit_off(row, b);
        }
    }
}

static mgraph graph_on(const pairer *pr, const bits *on)
{
    return (mgraph){pr->adj, on, pr->n};
}

/* Sets pr->left to `left` and pr->mate to a perfect matching of it; 0 if it has none. */
static int set_left(pairer *pr, const bits *left)
{
    pr->left = *left;
    mgraph g = graph_on(pr, &pr->left);
    int pairs = max_matching(&g, pr->mate, &pr->w);
    return 2 * pairs == bit_count(&pr->left);
}

/*
 * The bye (n odd): among the players with the fewest byes for whom the others can be
 * paired, the lowest in the order. Returns the player, or -1 if nobody qualifies. Each
 * candidate costs one repair of a maximum matching of everyone.
 */
static int choose_bye(pairer *pr)
{
    mgraph g = graph_on(pr, &pr->all);
    int pairs = max_matching(&g, pr->mate, &pr->w);
    if (2 * pairs < pr->n - 1)
        return -1;
    int most = 0;
    for (int i = 0; i < pr->n; i++)
        if (pr->st->p[i].byes > most)
            most = pr->st->p[i].byes;
    for (int level = 0; level <= most; level++) {
        for (int i = pr->n - 1; i >= 0; i--) {
            int v = pr->order[i];
            if (pr->st->p[v].byes != level)
                continue;
            bits rest = pr->all;
            bit_off(&rest, v);
            mgraph gr = graph_on(pr, &rest);
            memcpy(pr->trial, pr->mate, sizeof pr->trial);
            if (pairs + drop_vertices(&gr, pr->trial, &v, 1, &pr->w) == (pr->n - 1) / 2)
                return v;
        }
    }
    return -1;
}

/* The unpaired players with `points` become the current group, with a maximum matching. */
static void start_group(pairer *pr, int points)
{
    memset(&pr->group, 0, sizeof pr->group);
    for (int v = 0; v < pr->n; v++)
        if (bit_get(&pr->left, v) && pr->st->p[v].half_points == points)
            bit_on(&pr->group, v);
    pr->group_points = points;
    mgraph g = graph_on(pr, &pr->group);
    pr->gpairs = max_matching(&g, pr->gmate, &pr->w);
}

/* Would pairing p with q leave the rest of `left` pairable? On success pr->trial holds
 * the repaired perfect matching. */
static int try_rest(pairer *pr, int p, int q)
{
    bits on = pr->left;
    bit_off(&on, p);
    bit_off(&on, q);
    mgraph g = graph_on(pr, &on);
    int gone[2] = {p, q};
    memcpy(pr->trial, pr->mate, sizeof pr->trial);
    return drop_vertices(&g, pr->trial, gone, 2, &pr->w) == -1;
}

/* Removes p, and q when it is in the group, from the group's matching. Returns the new
 * number of pairs; the repaired matching is in pr->gtrial. */
static int group_without(pairer *pr, int p, int q)
{
    bits on = pr->group;
    int gone[2] = {p, q};
    int k = bit_get(&pr->group, q) ? 2 : 1;
    for (int i = 0; i < k; i++)
        bit_off(&on, gone[i]);
    mgraph g = graph_on(pr, &on);
    memcpy(pr->gtrial, pr->gmate, sizeof pr->gtrial);
    return pr->gpairs + drop_vertices(&g, pr->gtrial, gone, k, &pr->w);
}

/* Pairs p with q for good: both matchings take their repaired trial versions. */
static void commit_pair(pairer *pr, int p, int q)
{
    int gpairs = group_without(pr, p, q);
    memcpy(pr->gmate, pr->gtrial, sizeof pr->gmate);
    pr->gpairs = gpairs;
    memcpy(pr->mate, pr->trial, sizeof pr->mate); /* try_rest(p, q) ran last */
    bit_off(&pr->left, p);
    bit_off(&pr->left, q);
    bit_off(&pr->group, p);
    bit_off(&pr->group, q);
}

/* The Dutch order of p's group mates: the bottom half from its top, then the top half
 * from its bottom (schedule.h). Returns the count written to cand[]. */
static int group_candidates(const pairer *pr, int *cand)
{
    int members[MAXP], g = 0;
    for (int i = 0; i < pr->n; i++)
        if (bit_get(&pr->group, pr->order[i]))
            members[g++] = pr->order[i];
    int h = g / 2, k = 0;
    for (int i = h > 1 ? h : 1; i < g; i++)
        cand[k++] = members[i];
    for (int i = h - 1; i >= 1; i--)
        cand[k++] = members[i];
    return k;
}

/* p's opponent by the three passes of schedule.h; try_rest(p, result) ran last. */
static int choose_opponent(pairer *pr, int p)
{
    int cand[MAXP];
    int k = group_candidates(pr, cand);
    for (int i = 0; i < k; i++) /* keep the most pairs inside the group */
        if (bit_get(&pr->adj[p], cand[i]) && group_without(pr, p, cand[i]) == pr->gpairs - 1 &&
            try_rest(pr, p, cand[i]))
            return cand[i];
    for (int i = 0; i < k; i++) /* stay in the group at any cost to it */
        if (bit_get(&pr->adj[p], cand[i]) && try_rest(pr, p, cand[i]))
            return cand[i];
    for (int i = 0; i < pr->n; i++) { /* float down */
        int q = pr->order[i];
        if (bit_get(&pr->left, q) && !bit_get(&pr->group, q) && bit_get(&pr->adj[p], q) &&
            try_rest(pr, p, q))
            return q;
    }
    return -1;
}

/* The roles of a pair; hi is the higher-placed player. */
static thue_game assign_roles(const thue_swiss_state *st, int hi, int lo, int board, int lot)
{
    const thue_swiss_player *a = &st->p[hi], *b = &st->p[lo];
    int da = role_balance(a), db = role_balance(b);
    int hi_first;
    if (da != db)
        hi_first = da < db;
    else if (a->last_role != THUE_SCHED_ROLE_NONE && a->last_role != b->last_role &&
             b->last_role != THUE_SCHED_ROLE_NONE)
        hi_first = a->last_role == THUE_SCHED_ROLE_SECOND; /* both alternate */
    else if (a->last_role == THUE_SCHED_ROLE_NONE && b->last_role != THUE_SCHED_ROLE_NONE)
        hi_first = b->last_role == THUE_SCHED_ROLE_FIRST; /* lo alternates */
    else if (a->last_role != THUE_SCHED_ROLE_NONE)
        hi_first = a->last_role == THUE_SCHED_ROLE_SECOND; /* hi alternates */
    else
        hi_first = (board + lot) % 2 == 0; /* neither has played: down the board */
    return hi_first ? (thue_game){hi, lo, THUE_RESULT_NONE} : (thue_game){lo, hi, THUE_RESULT_NONE};
}

/* Pairs everyone in pr->left (which has a perfect matching in pr->mate) into out[]. */
static int pair_left(pairer *pr, int lot, thue_game *out)
{
    int boards = 0;
    pr->group_points = -1;
    for (int i = 0; i < pr->n; i++) {
        int p = pr->order[i];
        if (!bit_get(&pr->left, p))
            continue;
        if (pr->st->p[p].half_points != pr->group_points)
            start_group(pr, pr->st->p[p].half_points);
        int q = choose_opponent(pr, p);
        /* p's partner in the perfect matching always qualifies for the last pass. */
        assert(q >= 0);
        if (q < 0)
            return THUE_EINVAL;
        commit_pair(pr, p, q);
        out[boards] = assign_roles(pr->st, p, q, boards, lot);
        boards++;
    }
    return boards;
}

int thue_swiss_pair(const thue_swiss_state *st, int lot, thue_game *out, thue_swiss_info *info)
{
    if (!st || !out || (lot != 0 && lot != 1) || !swiss_state_ok(st))
        return THUE_EINVAL;
    pairer *pr = calloc(1, sizeof *pr);
    if (!pr)
        return THUE_ENOMEM;
    pr->st = st;
    pr->n = st->n;
    pr->all = bits_first(st->n);
    sort_players(pr);

    /* The bye and the existence of a legal pairing, on the plain graph. */
    build_graph(pr, 0);
    int bye = -1;
    int err = 0;
    if (pr->n % 2 != 0) {
        bye = choose_bye(pr);
        if (bye < 0)
            err = THUE_SCHED_ENOPAIRING;
    }
    bits left = pr->all;
    if (bye >= 0)
        bit_off(&left, bye);
    if (!err && pr->n % 2 == 0 && !set_left(pr, &left))
        err = THUE_SCHED_ENOPAIRING;

    /* Then the pairing, keeping the roles balanced if that is possible. */
    int relaxed = 0;
    if (!err) {
        build_graph(pr, 1);
        if (!set_left(pr, &left)) {
            relaxed = 1;
            build_graph(pr, 0);
            int ok = set_left(pr, &left);
            assert(ok); /* checked above */
            (void)ok;
        }
        int boards = pair_left(pr, lot, out);
        if (boards < 0)
            err = boards;
        else if (bye >= 0)
            out[boards] = (thue_game){bye, THUE_SCHED_BYE, THUE_RESULT_BYE};
    }
    free(pr);
    if (err)
        return err;
    if (info) {
        info->bye = bye;
        info->role_relaxed = relaxed;
    }
    return THUE_SCHED_BOARDS(st->n);
}

/* ---- standings ---------------------------------------------------------------------------- */

static int game_ok(const thue_game *g, int n)
{
    if (g->result == THUE_RESULT_NONE)
        return 1; /* skipped, whatever it holds */
    if (g->first < 0 || g->first >= n)
        return 0;
    if (g->second == THUE_SCHED_BYE || g->result == THUE_RESULT_BYE)
        return g->second == THUE_SCHED_BYE && g->result == THUE_RESULT_BYE;
    return g->second >= 0 && g->second < n && g->second != g->first &&
           g->result >= THUE_RESULT_FIRST_WINS && g->result <= THUE_RESULT_DRAW;
}

/* Half-points scored by the first (side 0) or second (side 1) player of a game. */
static int half_points_of(int result, int side)
{
    switch (result) {
    case THUE_RESULT_FIRST_WINS:
        return side == 0 ? 2 : 0;
    case THUE_RESULT_SECOND_WINS:
        return side == 0 ? 0 : 2;
    case THUE_RESULT_DRAW:
        return 1;
    default:
        return 0;
    }
}

/* Adds one finished game or bye's points and counts. */
static void count_game(thue_sched_standing *rows, const thue_game *g)
{
    if (g->result == THUE_RESULT_BYE) {
        rows[g->first].half_points += 2;
        rows[g->first].byes++;
        return;
    }
    for (int side = 0; side < 2; side++) {
        thue_sched_standing *r = &rows[side == 0 ? g->first : g->second];
        int hp = half_points_of(g->result, side);
        r->half_points += hp;
        r->games++;
        r->wins += hp == 2;
        r->draws += hp == 1;
        r->losses += hp == 0;
    }
}

/*
 * Points round by round, and each bye's virtual opponent, which needs the points the
 * player had before that round: (those) + 1/2 for each later round, in halves
 * (before) + (nrounds - 1 - r). The bye is a win against it: Buchholz adds its points,
 * Sonneborn-Berger all of them too.
 */
static void tally_rounds(thue_sched_standing *rows, const thue_round_games *rounds, int nrounds)
{
    for (int r = 0; r < nrounds; r++) {
        const thue_round_games *rd = &rounds[r];
        for (int i = 0; i < rd->count; i++) {
            const thue_game *g = &rd->games[i];
            if (g->result != THUE_RESULT_BYE)
                continue;
            int virtual_halves = rows[g->first].half_points + (nrounds - 1 - r);
            rows[g->first].buchholz_halves += virtual_halves;
            rows[g->first].sb_quarters += 2 * virtual_halves;
        }
        for (int i = 0; i < rd->count; i++)
            if (rd->games[i].result != THUE_RESULT_NONE)
                count_game(rows, &rd->games[i]);
    }
}

/* The real opponents' part of the tie-breaks: needs their final points, hence a second
 * pass. */
static void tally_opponents(thue_sched_standing *rows, const thue_round_games *rounds, int nrounds)
{
    for (int r = 0; r < nrounds; r++) {
        for (int i = 0; i < rounds[r].count; i++) {
            const thue_game *g = &rounds[r].games[i];
            if (g->result == THUE_RESULT_NONE || g->result == THUE_RESULT_BYE)
                continue;
            for (int side = 0; side < 2; side++) {
                thue_sched_standing *me = &rows[side == 0 ? g->first : g->second];
                int opp = rows[side == 0 ? g->second : g->first].half_points;
                /* A win counts the opponent's points, a draw half of them: in quarters
                 * that is 2 x or 1 x the opponent's half-points, i.e. hp x opp. */
                me->buchholz_halves += opp;
                me->sb_quarters += half_points_of(g->result, side) * opp;
            }
        }
    }
}

/* Standing order; seed[] breaks the last tie. */
static int stands_before(const thue_sched_standing *a, const thue_sched_standing *b,
                         const int *seed)
{
    if (a->half_points != b->half_points)
        return a->half_points > b->half_points;
    if (a->buchholz_halves != b->buchholz_halves)
        return a->buchholz_halves > b->buchholz_halves;
    if (a->sb_quarters != b->sb_quarters)
        return a->sb_quarters > b->sb_quarters;
    return seed[a->player] < seed[b->player];
}

static int same_scores(const thue_sched_standing *a, const thue_sched_standing *b)
{
    return a->half_points == b->half_points && a->buchholz_halves == b->buchholz_halves &&
           a->sb_quarters == b->sb_quarters;
}

int thue_standings(int n, const int *seed, const thue_round_games *rounds, int nrounds,
                   thue_sched_standing *rows)
{
    if (n < 2 || n > MAXP || !rows || nrounds < 0 || (nrounds > 0 && !rounds) ||
        (seed && !is_permutation(seed, n)))
        return THUE_EINVAL;
    for (int r = 0; r < nrounds; r++) {
        if (rounds[r].count < 0 || (rounds[r].count > 0 && !rounds[r].games))
            return THUE_EINVAL;
        for (int i = 0; i < rounds[r].count; i++)
            if (!game_ok(&rounds[r].games[i], n))
                return THUE_EINVAL;
    }
    int own_seed[MAXP];
    for (int i = 0; i < n; i++)
        own_seed[i] = seed ? seed[i] : i;

    memset(rows, 0, sizeof *rows * (size_t)n);
    for (int i = 0; i < n; i++)
        rows[i].player = i;
    tally_rounds(rows, rounds, nrounds);
    tally_opponents(rows, rounds, nrounds);

    for (int i = 1; i < n; i++) { /* insertion sort: n is small */
        thue_sched_standing r = rows[i];
        int j = i;
        for (; j > 0 && stands_before(&r, &rows[j - 1], own_seed); j--)
            rows[j] = rows[j - 1];
        rows[j] = r;
    }
    for (int i = 0; i < n; i++)
        rows[i].rank = i > 0 && same_scores(&rows[i], &rows[i - 1]) ? rows[i - 1].rank : i + 1;
    return n;
}
