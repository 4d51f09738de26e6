/*
 * test_gbot.c: the generic bots (server/search/gbot.h) over Nim and over a tiny game of
 * this file's own.
 *
 * References: the generic solver (thue__gsolve, which never uses a game's `perfect`
 * member) is checked against Nim's own perfect value (Bouton's nim-sum rule) on every
 * position of up to 3 heaps of up to 6 tokens, normal and misere, and against a plain
 * minimax without table or pruning (naive_value below) on every position of "chain", a
 * game with draws and turns that do not always alternate. Chain is also run with a hash
 * that sends every state to one bucket, so that the table's byte-for-byte check of the
 * state is what keeps its answers right.
 *
 * UCT is checked to find the only winning move of small Nim positions; every bot is
 * checked to be deterministic for a seed, and to stop on the stop flag. A perfect bot
 * that cannot decide (budget, stop flag, a game's solver giving up, which is final) answers
 * the game's fallback move, else the first legal move, when its spec asks
 * (legal_if_undecided, the server's bots), else fails with the reason it was given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/game.h"
#include "games/nim/nim.h"
#include "search/gbot.h"

/* ---- Nim helpers ------------------------------------------------------------------------ */

static const thue_gamedef *nim(void)
{
    const thue_gamedef *g = thue_game_find("nim");
    assert_non_null(g);
    return g;
}

/* Options whose heaps hold as many tokens as every position the test gives them (a
 * game's max_moves, the size of the bots' move buffers, is the options'). */
static void nim_opt(thue_gopt *opt, bool misere, const char *heaps)
{
    char text[200];
    snprintf(text, sizeof text, "{\"misere\":%s,\"heaps\":%s}", misere ? "true" : "false", heaps);
    thue_gerr e;
    assert_int_equal(thue_game_options_text(nim(), text, opt, &e), 0);
}

static void nim_pos(thue_nim_state *s, const int *heaps, int n, int to_move)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->to_move = to_move;
    for (int i = 0; i < n; i++)
        s->heaps[i] = heaps[i];
}

static int nim_value(const thue_gopt *opt, const thue_nim_state *s)
{
    thue_gmove m;
    int v = 0;
    assert_int_equal(nim()->perfect(opt, s, NULL, &m, &v), 0);
    return v;
}

/* The value for the player who just moved into s (over or not), by Nim's rule. */
static int value_after(const thue_gopt *opt, const thue_nim_state *s, int mover)
{
    thue_gresult r;
    nim()->result(opt, s, &r);
    if (r.over)
        return r.winner == mover ? 1 : -1;
    return -nim_value(opt, s);
}

/* ---- the generic solver against Nim's rule ---------------------------------------------- */

static void gsolve_nim_all(bool misere)
{
    thue_gopt opt;
    nim_opt(&opt, misere, "[6,6,6]");
    int checked = 0;
    for (int n = 1; n <= 3; n++) {
        int lim = 1;
        for (int i = 0; i < n; i++)
            lim *= 7;
        for (int code = 0; code < lim; code++) {
            int heaps[3], c = code, total = 0;
            for (int i = 0; i < n; i++) {
                heaps[i] = c % 7;
                c /= 7;
                total += heaps[i];
            }
            if (total == 0)
                continue;
            for (int who = 0; who < 2; who++) {
                thue_nim_state s;
                nim_pos(&s, heaps, n, who);
                thue_gmove best;
                int v = 9, stopped = 0;
                uint64_t nodes = 0;
                assert_int_equal(
                    thue__gsolve(nim(), &opt, &s, NULL, 0, &best, &v, &nodes, &stopped), 0);
                assert_int_equal(stopped, 0);
                assert_true(nodes >= 1);
                int want = nim_value(&opt, &s);
                if (v != want)
                    fail_msg("heaps %d %d %d (n %d, %s): gsolve %d, nim-sum rule %d", heaps[0],
                             n > 1 ? heaps[1] : -1, n > 2 ? heaps[2] : -1, n,
                             misere ? "misere" : "normal", v, want);
                /* The move keeps the value. */
                thue_nim_state t = s;
                assert_int_equal(nim()->apply(&opt, &t, who, &best, NULL), 0);
                assert_int_equal(value_after(&opt, &t, who), v);
                checked++;
            }
        }
    }
    assert_int_equal(checked, 2 * (6 + 48 + 342));
}

static void test_gsolve_nim_normal(void **state)
{
    (void)state;
    gsolve_nim_all(false);
}

static void test_gsolve_nim_misere(void **state)
{
    (void)state;
    gsolve_nim_all(true);
}

/* Rims: the generic solver against the game's own perfect, which rests
 * on the theorem that a split never changes a heap's Grundy value (rims.c). Every position
 * of up to 3 heaps of up to 5 dots, both players to move. */
static void test_gsolve_rims(void **state)
{
    (void)state;
    const thue_gamedef *g = thue_game_find("rims");
    assert_non_null(g);
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, "{\"heaps\":[5,5,5]}", &opt, &e), 0);
    size_t sz = g->state_size(&opt);
    unsigned char *st = malloc(sz), *child = malloc(sz);
    assert_non_null(st);
    assert_non_null(child);
    int checked = 0;
    for (int code = 1; code < 216; code++)
        for (int who = 0; who < 2; who++) {
            char text[96];
            snprintf(text, sizeof text, "{\"heaps\":[%d,%d,%d],\"to_move\":%d}", code % 6,
                     code / 6 % 6, code / 36, who);
            json_t *j = json_loads(text, 0, NULL);
            assert_int_equal(g->position_parse(&opt, j, st, &e), 0);
            json_decref(j);
            thue_gmove best, pbest;
            int v = 9, pv = 9, stopped = 0;
            uint64_t nodes = 0;
            assert_int_equal(thue__gsolve(g, &opt, st, NULL, 0, &best, &v, &nodes, &stopped), 0);
            assert_int_equal(g->perfect(&opt, st, NULL, &pbest, &pv), 0);
            if (v != pv)
                fail_msg("rims %s: gsolve %d, the game's perfect %d", text, v, pv);
            memcpy(child, st, sz);
            int mover = g->to_move(&opt, st);
            assert_int_equal(g->apply(&opt, child, mover, &best, NULL), 0);
            int after;
            if (g->to_move(&opt, child) < 0) {
                thue_gresult r;
                g->result(&opt, child, &r);
                after = r.winner == mover ? 1 : -1;
            } else {
                assert_int_equal(g->perfect(&opt, child, NULL, &pbest, &after), 0);
                after = -after;
            }
            assert_int_equal(after, v);
            checked++;
        }
    assert_int_equal(checked, 430);
    free(st);
    free(child);
}

/* ---- chain: a tiny game with draws and repeated turns ------------------------------------
 *
 * A counter n. A move is {1}: take 1, {2}: take 2, {3}: take 3, or {4}: take 1 and move
 * again (only when n % 5 == 4). The player who takes the last token wins, unless the
 * last move was {1}: then the game is drawn. (Chosen so that positions of up to 12
 * tokens have every value.)
 */

typedef struct chain_state {
    int n, to_move, over, winner;
} chain_state;

static size_t chain_size(const thue_gopt *o)
{
    (void)o;
    return sizeof(chain_state);
}

static int chain_to_move(const thue_gopt *o, const void *st)
{
    (void)o;
    const chain_state *s = st;
    return s->over ? -1 : s->to_move;
}

static int chain_max_moves(const thue_gopt *o)
{
    (void)o;
    return 4;
}

static int chain_legal(const thue_gopt *o, const void *st, thue_gmove *out)
{
    (void)o;
    const chain_state *s = st;
    int k = 0;
    if (s->over)
        return 0;
    out[k++] = (thue_gmove){{1, 0, 0, 0}};
    if (s->n >= 2)
        out[k++] = (thue_gmove){{2, 0, 0, 0}};
    if (s->n >= 3)
        out[k++] = (thue_gmove){{3, 0, 0, 0}};
    if (s->n % 5 == 4)
        out[k++] = (thue_gmove){{4, 0, 0, 0}};
    return k;
}

static int chain_apply(const thue_gopt *o, void *st, int player, const thue_gmove *m, thue_gerr *e)
{
    (void)o;
    chain_state *s = st;
    if (s->over)
        return thue_gerr_set(e, THUE_EOVER, "", "over");
    if (player != s->to_move)
        return thue_gerr_set(e, THUE_ETURN, "", "not your turn");
    int take = m->v[0] == 4 ? 1 : m->v[0];
    if (m->v[0] < 1 || m->v[0] > 4 || take > s->n || (m->v[0] == 4 && s->n % 5 != 4))
        return thue_gerr_set(e, THUE_EILLEGAL, "", "illegal");
    s->n -= take;
    if (s->n == 0) {
        s->over = 1;
        s->winner = m->v[0] == 1 ? -1 : player;
    } else if (m->v[0] != 4) {
        s->to_move ^= 1;
    }
    return 0;
}

static void chain_result(const thue_gopt *o, const void *st, thue_gresult *r)
{
    (void)o;
    const chain_state *s = st;
    memset(r, 0, sizeof *r);
    r->over = s->over;
    r->winner = s->over ? s->winner : -1;
    r->why = s->over ? "done" : "";
}

static uint64_t chain_hash(const thue_gopt *o, const void *st)
{
    (void)o;
    const chain_state *s = st;
    return thue_gmix64((uint64_t)s->n * 2 + (uint64_t)s->to_move);
}

static uint64_t chain_hash_bad(const thue_gopt *o, const void *st)
{
    (void)o;
    (void)st;
    return 7; /* every state collides */
}

static const thue_gamedef chain_game = {
    .name = "chain",
    .title = "Chain",
    .flags = THUE_GAME_ACYCLIC | THUE_GAME_DRAWS,
    .state_size = chain_size,
    .to_move = chain_to_move,
    .max_moves = chain_max_moves,
    .legal_moves = chain_legal,
    .apply = chain_apply,
    .result = chain_result,
    .hash = chain_hash,
};

/* Plain minimax: the value of s for `me`. */
static int naive_value(const thue_gamedef *g, const void *st, int me)
{
    thue_gresult r;
    g->result(NULL, st, &r);
    if (r.over)
        return r.winner < 0 ? 0 : r.winner == me ? 1 : -1;
    int mover = g->to_move(NULL, st);
    thue_gmove mv[4];
    int k = g->legal_moves(NULL, st, mv), best = mover == me ? -2 : 2;
    for (int i = 0; i < k; i++) {
        chain_state c;
        memcpy(&c, st, sizeof c);
        assert_int_equal(g->apply(NULL, &c, mover, &mv[i], NULL), 0);
        int v = naive_value(g, &c, me);
        if (mover == me ? v > best : v < best)
            best = v;
    }
    return best;
}

static void chain_all(const thue_gamedef *g)
{
    thue_gopt opt;
    memset(&opt, 0, sizeof opt);
    int seen[3] = {0, 0, 0};
    for (int n = 1; n <= 12; n++)
        for (int who = 0; who < 2; who++) {
            chain_state s = {n, who, 0, -1};
            thue_gmove best;
            int v = 9, stopped = 0;
            uint64_t nodes = 0;
            assert_int_equal(thue__gsolve(g, &opt, &s, NULL, 0, &best, &v, &nodes, &stopped), 0);
            int want = naive_value(g, &s, who);
            if (v != want)
                fail_msg("chain n=%d to_move=%d: gsolve %d, minimax %d", n, who, v, want);
            seen[v + 1]++;
            chain_state t = s;
            assert_int_equal(g->apply(&opt, &t, who, &best, NULL), 0);
            assert_int_equal(naive_value(g, &t, who), v);
            /* And through the bot. */
            thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
            thue_gbot_result res;
            assert_int_equal(thue_gbot_choose(g, &opt, &s, &spec, 1, NULL, &res), 0);
            assert_int_equal(res.value, v);
            assert_int_equal(res.exact, 1);
        }
    /* The positions cover every value (the reference is not trivially constant). */
    assert_true(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
}

static void test_gsolve_chain_minimax(void **state)
{
    (void)state;
    chain_all(&chain_game);
}

static void test_gsolve_chain_colliding_hash(void **state)
{
    (void)state;
    thue_gamedef g = chain_game;
    g.hash = chain_hash_bad;
    chain_all(&g);
}

static void test_gsolve_budget_and_stop(void **state)
{
    (void)state;
    thue_gopt opt;
    nim_opt(&opt, false, "[9,10,11,12,13]");
    int heaps[5] = {9, 10, 11, 12, 13};
    thue_nim_state s;
    nim_pos(&s, heaps, 5, 0);
    thue_gmove best;
    int v = 9, stopped = 0;
    uint64_t nodes = 0;
    thue_bot_limits lim = {0};
    lim.node_budget = 1000;
    assert_int_equal(thue__gsolve(nim(), &opt, &s, &lim, 0, &best, &v, &nodes, &stopped),
                     THUE_ETOOBIG);
    assert_int_equal(v, 9);
    assert_true(nodes <= 1000);
    assert_int_equal(stopped, 1);
    atomic_int stop = 1;
    thue_bot_limits lim2 = {0};
    lim2.stop = &stop;
    assert_int_equal(thue__gsolve(nim(), &opt, &s, &lim2, 0, &best, &v, &nodes, &stopped),
                     THUE_ETOOBIG);
    assert_int_equal(stopped, 1);
    /* Through the bot on a game without its own solver: THUE_ETOOBIG too. */
    thue_gamedef g = *nim();
    g.perfect = NULL;
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose(&g, &opt, &s, &spec, 1, &lim, &res), THUE_ETOOBIG);
    assert_int_equal(res.exact, 0);
}

/* A `perfect` member that can never decide (a game beyond its own solver). */
static int perfect_never(const thue_gopt *opt, const void *st, const thue_gctl *ctl,
                         thue_gmove *best, int *value)
{
    (void)opt;
    (void)st;
    (void)ctl;
    (void)best;
    (void)value;
    return THUE_ETOOBIG;
}

/* Whether m is one of the k moves of list (a plain scan). */
static bool move_listed(const thue_gmove *m, const thue_gmove *list, int k)
{
    for (int i = 0; i < k; i++)
        if (memcmp(m, &list[i], sizeof *m) == 0)
            return true;
    return false;
}

/* Positions too big for the perfect bot's budget (the generic solver's node budget, the
 * stop flag, a game's own solver that gives up and is not backed by the generic one):
 * with legal_if_undecided the bot answers 0 with the first legal move, not exact, value
 * unknown, and the move applies; without it, THUE_ETOOBIG as before. */
static void test_perfect_undecided_plays_legal(void **state)
{
    (void)state;
    thue_gopt opt;
    nim_opt(&opt, false, "[9,10,11,12,13]");
    int heaps[5] = {9, 10, 11, 12, 13};
    thue_nim_state s;
    nim_pos(&s, heaps, 5, 1);
    thue_gamedef generic = *nim(); /* the generic solver only */
    generic.perfect = NULL;
    thue_gamedef own = *nim(); /* its own solver only, which gives up */
    own.perfect = perfect_never;
    own.flags &= ~THUE_GAME_ACYCLIC;
    atomic_int stop = 1;
    thue_bot_limits budget = {0}, stopped = {0};
    budget.node_budget = 1000;
    stopped.stop = &stop;
    struct {
        const thue_gamedef *g;
        const thue_bot_limits *lim;
    } cases[] = {{&generic, &budget}, {&generic, &stopped}, {&own, NULL}, {&own, &budget}};
    thue_gmove legal[64];
    int k = nim()->legal_moves(&opt, &s, legal);
    assert_true(k > 1 && k <= 64);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
        thue_gbot_result res;
        assert_int_equal(thue_gbot_choose(cases[i].g, &opt, &s, &spec, 1, cases[i].lim, &res),
                         THUE_ETOOBIG);
        spec.legal_if_undecided = 1;
        memset(&res, 0x5a, sizeof res);
        assert_int_equal(thue_gbot_choose(cases[i].g, &opt, &s, &spec, 1, cases[i].lim, &res), 0);
        assert_int_equal(res.exact, 0);
        assert_int_equal(res.value, -2);
        assert_true(move_listed(&res.move, legal, k));
        assert_memory_equal(&res.move, &legal[0], sizeof res.move);
        thue_nim_state after = s;
        assert_int_equal(nim()->apply(&opt, &after, 1, &res.move, NULL), 0);
        /* The spec's text does not carry the flag. */
        char text[32];
        thue_gbot_spec_format(&spec, text, sizeof text);
        assert_string_equal(text, "perfect");
    }
    /* A position the solver decides is answered exactly, flag or not. */
    int small[2] = {2, 3};
    nim_pos(&s, small, 2, 0);
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    spec.legal_if_undecided = 1;
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose(&generic, &opt, &s, &spec, 1, &budget, &res), 0);
    assert_int_equal(res.exact, 1);
    assert_int_equal(res.value, nim_value(&opt, &s));
}

/* A game's own fallback (game.h): the last legal move, so that it is told from the first. */
static int fallback_last(const thue_gopt *opt, const void *st, uint64_t seed, const thue_gctl *ctl,
                         thue_gmove *out)
{
    (void)seed;
    (void)ctl;
    thue_gmove mv[64];
    int k = nim()->legal_moves(opt, st, mv);
    if (k <= 0)
        return THUE_EOVER;
    *out = mv[k - 1];
    return 0;
}

static int perfect_never_says_why(const thue_gopt *opt, const void *st, const thue_gctl *ctl,
                                  thue_gmove *best, int *value)
{
    thue_gctl_why(ctl, "a reason of the game's");
    return perfect_never(opt, st, ctl, best, value);
}

/* A game's own perfect that refuses is final, even on an acyclic game: the generic solver,
 * which would decide this small position, is not tried behind it (dots and boxes'
 * refusals took minutes there). The refusal's reason reaches the result, and a bot that
 * must move plays the game's fallback where it has one. */
static void test_perfect_own_refusal_final_with_fallback(void **state)
{
    (void)state;
    thue_gopt opt;
    nim_opt(&opt, false, "[2,3]");
    int heaps[2] = {2, 3};
    thue_nim_state s;
    nim_pos(&s, heaps, 2, 0);
    static const thue_gamebot last = {"last", "the last legal move", fallback_last};
    thue_gamedef own = *nim();
    own.perfect = perfect_never_says_why;
    assert_true((own.flags & THUE_GAME_ACYCLIC) != 0);
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose(&own, &opt, &s, &spec, 1, NULL, &res), THUE_ETOOBIG);
    assert_string_equal(res.why, "a reason of the game's");
    /* Must move: the first legal move without a fallback, the fallback's with one. */
    thue_gmove legal[64];
    int k = nim()->legal_moves(&opt, &s, legal);
    spec.legal_if_undecided = 1;
    assert_int_equal(thue_gbot_choose(&own, &opt, &s, &spec, 1, NULL, &res), 0);
    assert_memory_equal(&res.move, &legal[0], sizeof res.move);
    own.fallback = &last;
    assert_int_equal(thue_gbot_choose(&own, &opt, &s, &spec, 1, NULL, &res), 0);
    assert_memory_equal(&res.move, &legal[k - 1], sizeof res.move);
    assert_int_equal(res.exact, 0);
    assert_int_equal(res.value, -2);
    assert_string_equal(res.why, "a reason of the game's");
    /* The generic solver alone still decides it. */
    own.perfect = NULL;
    spec.legal_if_undecided = 0;
    assert_int_equal(thue_gbot_choose(&own, &opt, &s, &spec, 1, NULL, &res), 0);
    assert_int_equal(res.exact, 1);
    assert_int_equal(res.value, nim_value(&opt, &s));
}

/* ---- uct ------------------------------------------------------------------------------- */

static int nim_sum3(const int *h, int n)
{
    int x = 0;
    for (int i = 0; i < n; i++)
        x ^= h[i];
    return x;
}

/* Every position of 3 heaps of at most 4 tokens (the first one not empty) with exactly one
 * winning move: 40000 playouts find it (20000 missed one in about 150 seeded runs). */
static void test_uct_finds_unique_winning_move(void **state)
{
    (void)state;
    thue_gopt opt;
    nim_opt(&opt, false, "[4,4,4]");
    thue_gbot_spec spec;
    assert_int_equal(thue_gbot_spec_parse(nim(), "uct:iterations=40000", &spec, NULL, 0), 0);
    int tried = 0;
    for (int a = 1; a <= 4; a++)
        for (int b = 0; b <= 4; b++)
            for (int c = 0; c <= 4; c++) {
                int h[3] = {a, b, c};
                if (nim_sum3(h, 3) == 0)
                    continue;
                /* Exactly one winning move: one heap can be cut to the nim-sum. */
                int wins = 0;
                for (int i = 0; i < 3; i++)
                    wins += (h[i] ^ nim_sum3(h, 3)) < h[i];
                if (wins != 1)
                    continue;
                thue_nim_state s;
                nim_pos(&s, h, 3, 0);
                thue_gbot_result res;
                assert_int_equal(
                    thue_gbot_choose(nim(), &opt, &s, &spec, (uint64_t)tried, NULL, &res), 0);
                assert_int_equal(res.iterations, 40000);
                assert_int_equal(res.exact, 0);
                assert_int_equal(res.value, -2);
                thue_nim_state t = s;
                assert_int_equal(nim()->apply(&opt, &t, 0, &res.move, NULL), 0);
                if (nim_sum3(t.heaps, 3) != 0)
                    fail_msg("uct from %d %d %d played heap %d take %d", a, b, c, res.move.v[0],
                             res.move.v[1]);
                tried++;
            }
    assert_int_equal(tried, 73);
}

static void test_bots_deterministic(void **state)
{
    (void)state;
    thue_gopt opt;
    nim_opt(&opt, false, "[7,5,9,3]");
    int h[4] = {7, 5, 9, 3};
    thue_nim_state s;
    nim_pos(&s, h, 4, 1);
    const char *specs[] = {"random", "uct:iterations=2000,playout=20", "uct:iterations=500,c=0",
                           "perfect"};
    int random_moves_differ = 0;
    thue_gmove first_random = {{0}};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        thue_gbot_spec spec;
        assert_int_equal(thue_gbot_spec_parse(nim(), specs[i], &spec, NULL, 0), 0);
        for (uint64_t seed = 1; seed <= 20; seed++) {
            thue_gbot_result r1, r2;
            thue_nim_state before = s;
            assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, seed, NULL, &r1), 0);
            assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, seed, NULL, &r2), 0);
            assert_memory_equal(&before, &s, sizeof s); /* st is not changed */
            assert_memory_equal(&r1.move, &r2.move, sizeof r1.move);
            assert_int_equal(r1.nodes, r2.nodes);
            assert_int_equal(r1.iterations, r2.iterations);
            thue_nim_state t = s;
            assert_int_equal(nim()->apply(&opt, &t, 1, &r1.move, NULL), 0);
            if (i == 0) {
                if (seed == 1)
                    first_random = r1.move;
                else if (memcmp(&first_random, &r1.move, sizeof r1.move) != 0)
                    random_moves_differ = 1;
            }
        }
    }
    assert_true(random_moves_differ);
}

static int yields;
static atomic_int yield_stop;

/* A pool stand-in: raises the stop flag at its 20th call (polls come about every
 * millisecond once their pace is set, a few quicker ones first: limits.h). */
static int count_yield(void *arg, int64_t now)
{
    (void)arg;
    (void)now;
    if (++yields == 20)
        atomic_store(&yield_stop, 1);
    return 0;
}

static void test_stop_flag(void **state)
{
    (void)state;
    thue_gopt opt;
    nim_opt(&opt, false, "[30,40,50]");
    int h[3] = {30, 40, 50};
    thue_nim_state s;
    nim_pos(&s, h, 3, 0);
    thue_gbot_spec spec;
    /* A day of thinking, stopped by the flag from the yield hook. */
    assert_int_equal(thue_gbot_spec_parse(nim(), "uct:iterations=0,ms=86400000", &spec, NULL, 0),
                     0);
    yields = 0;
    atomic_store(&yield_stop, 0);
    thue_bot_limits lim = {0};
    lim.stop = &yield_stop;
    lim.yield = count_yield;
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 3, &lim, &res), 0);
    assert_int_equal(res.stopped, 1);
    assert_true(yields >= 20);
    assert_true(res.iterations > 0);
    thue_nim_state t = s;
    assert_int_equal(nim()->apply(&opt, &t, 0, &res.move, NULL), 0);
    /* Raised before the start: still a legal move. */
    atomic_int stop = 1;
    thue_bot_limits lim2 = {0};
    lim2.stop = &stop;
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 3, &lim2, &res), 0);
    assert_int_equal(res.stopped, 1);
    t = s;
    assert_int_equal(nim()->apply(&opt, &t, 0, &res.move, NULL), 0);
    /* A node budget stops it deterministically. */
    thue_bot_limits lim3 = {0};
    lim3.node_budget = 5000;
    thue_gbot_result a, b;
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 9, &lim3, &a), 0);
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 9, &lim3, &b), 0);
    assert_int_equal(a.nodes, 5000);
    assert_int_equal(a.stopped, 1);
    assert_int_equal(a.iterations, b.iterations);
    assert_memory_equal(&a.move, &b.move, sizeof a.move);
}

static void test_choose_over_and_perfect(void **state)
{
    (void)state;
    thue_gopt opt;
    nim_opt(&opt, true, "[2,1,1]");
    int h0[2] = {0, 0};
    thue_nim_state s;
    nim_pos(&s, h0, 2, 0);
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_RANDOM);
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 1, NULL, &res), THUE_EOVER);
    spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 1, NULL, &res), THUE_EOVER);
    /* Misere {1,1,1}: the mover loses; {2,1}: the mover wins by taking 2. */
    int h1[3] = {1, 1, 1};
    nim_pos(&s, h1, 3, 0);
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 1, NULL, &res), 0);
    assert_int_equal(res.value, -1);
    assert_int_equal(res.exact, 1);
    int h2[2] = {2, 1};
    nim_pos(&s, h2, 2, 1);
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 1, NULL, &res), 0);
    assert_int_equal(res.value, 1);
    assert_int_equal(res.move.v[0], 0);
    assert_int_equal(res.move.v[1], 2);
    /* A bad spec. */
    spec.kind = THUE_GBOT_UCT;
    spec.playout_limit = 0;
    assert_int_equal(thue_gbot_choose(nim(), &opt, &s, &spec, 1, NULL, &res), THUE_EINVAL);
}

/* ---- specs ----------------------------------------------------------------------------- */

static void test_spec_round_trip(void **state)
{
    (void)state;
    const char *texts[][2] = {
        {"random", "random"},
        {"perfect", "perfect"},
        {"uct", "uct:iterations=10000,playout=100,c=1.4142135623730951"},
        {"uct:iterations=500,ms=20,playout=7,c=0.5", "uct:iterations=500,ms=20,playout=7,c=0.5"},
        {"uct:c=0.3,iters=1", "uct:iterations=1,playout=100,c=0.3"},
        {"uct:iterations=0,ms=5", "uct:iterations=0,ms=5,playout=100,c=1.4142135623730951"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        thue_gbot_spec a, b;
        char err[160], buf[160], buf2[160];
        assert_int_equal(thue_gbot_spec_parse(nim(), texts[i][0], &a, err, sizeof err), 0);
        int len = thue_gbot_spec_format(&a, buf, sizeof buf);
        assert_int_equal(len, (int)strlen(buf));
        assert_string_equal(buf, texts[i][1]);
        assert_int_equal(thue_gbot_spec_parse(nim(), buf, &b, err, sizeof err), 0);
        assert_int_equal(a.kind, b.kind);
        assert_int_equal(a.iterations, b.iterations);
        assert_int_equal(a.time_ms, b.time_ms);
        assert_int_equal(a.playout_limit, b.playout_limit);
        assert_true(a.exploration == b.exploration);
        thue_gbot_spec_format(&b, buf2, sizeof buf2);
        assert_string_equal(buf, buf2);
    }
}

static void test_spec_errors(void **state)
{
    (void)state;
    const char *bad[][2] = {
        {"", "empty"},
        {"random:x", "random takes no options"},
        {"perfect:depth=3", "perfect takes no options"},
        {"uct:iterations=0", "needs ms"},
        {"uct:foo=1", "no option 'foo'"},
        {"uct:playout=0", "playout must be"},
        {"greedy", "unknown bot 'greedy'"},
        {"nested:1", "unknown bot 'nested'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        thue_gbot_spec s;
        char err[200] = "";
        assert_int_equal(thue_gbot_spec_parse(nim(), bad[i][0], &s, err, sizeof err), THUE_EINVAL);
        if (strstr(err, bad[i][1]) == NULL)
            fail_msg("spec '%s': error '%s' lacks '%s'", bad[i][0], err, bad[i][1]);
    }
    /* perfect is refused for a game with no solver and lines that need not end. */
    thue_gamedef g = chain_game;
    g.flags = 0;
    thue_gbot_spec s;
    char err[200] = "";
    assert_int_equal(thue_gbot_spec_parse(&g, "perfect", &s, err, sizeof err), THUE_EINVAL);
    assert_non_null(strstr(err, "no perfect bot"));
    assert_int_equal(thue_gbot_spec_parse(&g, "uct", &s, err, sizeof err), 0);
    assert_false(thue_gbot_has_perfect(&g));
    assert_true(thue_gbot_has_perfect(&chain_game));
    assert_true(thue_gbot_has_perfect(nim()));
    /* Not even through choose. */
    s = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    chain_state st = {3, 0, 0, -1};
    thue_gopt opt;
    memset(&opt, 0, sizeof opt);
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose(&g, &opt, &st, &s, 1, NULL, &res), THUE_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gsolve_nim_normal),
        cmocka_unit_test(test_gsolve_nim_misere),
        cmocka_unit_test(test_gsolve_rims),
        cmocka_unit_test(test_gsolve_chain_minimax),
        cmocka_unit_test(test_gsolve_chain_colliding_hash),
        cmocka_unit_test(test_gsolve_budget_and_stop),
        cmocka_unit_test(test_perfect_undecided_plays_legal),
        cmocka_unit_test(test_perfect_own_refusal_final_with_fallback),
        cmocka_unit_test(test_uct_finds_unique_winning_move),
        cmocka_unit_test(test_bots_deterministic),
        cmocka_unit_test(test_stop_flag),
        cmocka_unit_test(test_choose_over_and_perfect),
        cmocka_unit_test(test_spec_round_trip),
        cmocka_unit_test(test_spec_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
