/*
 * test_guct.c: the generic uct's persistent tree (server/search/guct.h).
 *
 * - Slices: a tree run in slices of any sizes is, node for node, the tree of one run of
 *   the same total (Nim, Northcott).
 * - Stops: runs cut short by the stop flag (mid-playout in the circle game, whose
 *   random playouts run to its move cap, through the yield hook) or the
 *   node budget, then continued, give the uninterrupted tree too.
 * - The visit invariants of docs/uct.md after every slice; the root's visits are the
 *   iterations.
 * - gbot's uct plays the tree's best move for the same seed and iterations.
 * - The snapshot cap against a reference computed from the whole tree: every node left
 *   out has no more visits than any node shown, a node is shown only with its parent,
 *   `hidden` counts the children left out; the depth cap shows every node down to it.
 * - Against a naive minimax: on every small Nim position (3 heaps of 0..3) that the mover
 *   wins, the best move after enough iterations is a winning one.
 * - The CSV and binary exports (docs/uct.md) read back, row for row, as the walk shows the
 *   tree, with the generic names (JSON without double quotes).
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
#include "search/guct.h"

/* ---- a whole walk, recorded -------------------------------------------------------------- */

typedef struct row {
    int depth, to_move, children, hidden;
    uint32_t node;
    thue_gmove move;
    uint64_t visits, ended;
    double value;
    char key[256]; /* the path of moves from the root */
} row;

typedef struct rows {
    row *r;
    int n, cap;
    char path[64][256];
} rows;

static int record(void *arg, const thue_guct_view *v)
{
    rows *rs = arg;
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 256;
        rs->r = realloc(rs->r, (size_t)rs->cap * sizeof *rs->r);
        assert_non_null(rs->r);
    }
    row *r = &rs->r[rs->n++];
    memset(r, 0, sizeof *r);
    r->depth = v->depth;
    r->to_move = v->to_move;
    r->children = v->children;
    r->hidden = v->hidden;
    r->node = v->node;
    if (v->move)
        r->move = *v->move;
    r->visits = v->visits;
    r->ended = v->ended;
    r->value = v->value;
    assert_true(v->depth < 64);
    if (v->depth == 0)
        rs->path[0][0] = '\0';
    else {
        char step[64];
        snprintf(step, sizeof step, "/%d.%d.%d.%d", v->move->v[0], v->move->v[1], v->move->v[2],
                 v->move->v[3]);
        size_t plen = strlen(rs->path[v->depth - 1]);
        assert_true(plen + strlen(step) < sizeof rs->path[0]);
        memcpy(rs->path[v->depth], rs->path[v->depth - 1], plen);
        memcpy(rs->path[v->depth] + plen, step, strlen(step) + 1);
    }
    snprintf(r->key, sizeof r->key, "%s", rs->path[v->depth]);
    return 0;
}

static rows walk_all(const thue_guct *t, uint32_t cap)
{
    rows rs;
    memset(&rs, 0, sizeof rs);
    uint32_t shown = 0;
    assert_int_equal(thue_guct_walk(t, cap, record, &rs, &shown), 0);
    assert_int_equal(shown, (uint32_t)rs.n);
    return rs;
}

static void assert_same_rows(const rows *a, const rows *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        const row *x = &a->r[i], *y = &b->r[i];
        assert_string_equal(x->key, y->key);
        assert_int_equal(x->depth, y->depth);
        assert_int_equal(x->visits, y->visits);
        assert_int_equal(x->ended, y->ended);
        assert_true(x->value == y->value);
        assert_int_equal(x->children, y->children);
        assert_int_equal(x->hidden, y->hidden);
        assert_int_equal(x->to_move, y->to_move);
    }
}

/* ---- games ------------------------------------------------------------------------------ */

static const thue_gamedef *game(const char *name)
{
    const thue_gamedef *g = thue_game_find(name);
    assert_non_null(g);
    return g;
}

static void options(const thue_gamedef *g, const char *text, thue_gopt *opt)
{
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, text, opt, &e), 0);
}

static thue_guct *tree(const thue_gamedef *g, const thue_gopt *opt, const void *st, int playout,
                       uint64_t seed)
{
    thue_guct_params p;
    memset(&p, 0, sizeof p);
    p.playout_limit = playout;
    p.c = 1.4142135623730951;
    p.seed = seed;
    thue_guct *t = NULL;
    assert_int_equal(thue_guct_new(g, opt, st, &p, &t), 0);
    return t;
}

static void *start(const thue_gamedef *g, const thue_gopt *opt)
{
    void *st = malloc(g->state_size(opt));
    assert_non_null(st);
    g->start(opt, 0, st);
    return st;
}

/* ---- slices ----------------------------------------------------------------------------- */

static void sliced_equals_whole(const char *name, const char *opts, int playout, uint64_t total,
                                uint64_t seed)
{
    const thue_gamedef *g = game(name);
    thue_gopt opt;
    options(g, opts, &opt);
    void *st = start(g, &opt);
    thue_guct *whole = tree(g, &opt, st, playout, seed);
    uint64_t ran = 0;
    assert_int_equal(thue_guct_run(whole, total, NULL, &ran), 0);
    assert_int_equal(ran, total);
    assert_int_equal(thue_guct_iterations(whole), total);
    assert_true(thue_guct_check(whole));

    static const uint64_t sizes[] = {1, 2, 3, 17, 100, 999};
    thue_guct *sl = tree(g, &opt, st, playout, seed);
    uint64_t done = 0;
    for (int i = 0; done < total; i++) {
        uint64_t n = sizes[i % 6];
        if (n > total - done)
            n = total - done;
        assert_int_equal(thue_guct_run(sl, n, NULL, &ran), 0);
        assert_int_equal(ran, n);
        done += n;
        assert_int_equal(thue_guct_iterations(sl), done);
        assert_true(thue_guct_check(sl));
    }
    assert_int_equal(thue_guct_nodes(sl), thue_guct_nodes(whole));
    rows a = walk_all(whole, UINT32_MAX), b = walk_all(sl, UINT32_MAX);
    assert_int_equal(a.n, (int)thue_guct_nodes(whole));
    assert_int_equal(a.r[0].visits, total);
    assert_same_rows(&a, &b);
    thue_gmove m1, m2;
    assert_int_equal(thue_guct_best(whole, &m1), 0);
    assert_int_equal(thue_guct_best(sl, &m2), 0);
    assert_memory_equal(&m1, &m2, sizeof m1);
    free(a.r);
    free(b.r);
    thue_guct_free(whole);
    thue_guct_free(sl);
    free(st);
}

static void test_guct_sliced_nim(void **state)
{
    (void)state;
    sliced_equals_whole("nim", "{\"heaps\":[3,4,5]}", 100, 5000, 7);
    sliced_equals_whole("nim", "{\"heaps\":[2,7,1,4],\"misere\":true}", 100, 3000, 12345);
}

/* Thue's states are its struct plus two words of the limit's length: with an odd limit
 * their size is no multiple of their alignment, and the snapshot's stack of states must
 * still hand the game aligned ones (UBSan's alignment check in the sanitizer build). */
static void test_guct_sliced_thue_odd_size(void **state)
{
    (void)state;
    sliced_equals_whole("thue", "{\"variant\":\"square\",\"k\":3,\"limit\":5}", 100, 2000, 3);
    sliced_equals_whole("thue", "{\"variant\":\"overlap\",\"k\":4,\"limit\":7}", 50, 1500, 11);
}

static void test_guct_sliced_northcott(void **state)
{
    (void)state;
    sliced_equals_whole("northcott", "{\"rows\":3,\"cols\":6,\"start\":\"random\"}", 600, 1500, 3);
}

/* ---- stops ------------------------------------------------------------------------------ */

typedef struct stopper {
    atomic_int flag;
    int calls, every;
    const thue_guct *t; /* the tree being run, and its iterations when the run began */
    uint64_t start;
} stopper;

/* The yield hook raises the stop flag on every `every`-th poll, once the run has completed
 * an iteration (polls are paced by time, limits.h: on a slow machine one iteration may
 * hold many of them, and a run must make progress to end). */
static int stop_sometimes(void *arg, int64_t now)
{
    (void)now;
    stopper *s = arg;
    if (++s->calls % s->every == 0 && thue_guct_iterations(s->t) > s->start)
        atomic_store(&s->flag, 1);
    return 0;
}

static void stopped_runs_equal_whole(const char *name, const char *opts, int playout,
                                     uint64_t total, int every, uint64_t budget)
{
    const thue_gamedef *g = game(name);
    thue_gopt opt;
    options(g, opts, &opt);
    void *st = start(g, &opt);
    thue_guct *whole = tree(g, &opt, st, playout, 99);
    assert_int_equal(thue_guct_run(whole, total, NULL, NULL), 0);
    thue_guct *cut = tree(g, &opt, st, playout, 99);
    stopper s;
    memset(&s, 0, sizeof s);
    s.every = every;
    int stops = 0;
    while (thue_guct_iterations(cut) < total) {
        thue__ctl ctl;
        memset(&ctl, 0, sizeof ctl);
        atomic_store(&s.flag, 0);
        ctl.stop = &s.flag;
        ctl.yield = stop_sometimes;
        ctl.yield_arg = &s;
        ctl.budget = budget;
        uint64_t before = thue_guct_iterations(cut), ran = 0;
        s.t = cut;
        s.start = before;
        assert_int_equal(thue_guct_run(cut, total - before, &ctl, &ran), 0);
        assert_int_equal(thue_guct_iterations(cut), before + ran);
        assert_true(thue_guct_check(cut));
        stops += ctl.stopped;
    }
    assert_true(stops > 3); /* the runs really were cut */
    rows a = walk_all(whole, UINT32_MAX), b = walk_all(cut, UINT32_MAX);
    assert_same_rows(&a, &b);
    free(a.r);
    free(b.r);
    thue_guct_free(whole);
    thue_guct_free(cut);
    free(st);
}

static void test_guct_stopped_midplayout(void **state)
{
    (void)state;
    /* The circle game's random playouts often run to its move cap of 480: polled every
     * few moves, mid-playout. */
    stopped_runs_equal_whole("circle", "{}", 1000, 400, 3, 0);
}

static void test_guct_stopped_budget(void **state)
{
    (void)state;
    /* A node budget stops expansions half made. */
    stopped_runs_equal_whole("nim", "{\"heaps\":[3,4,5]}", 100, 3000, 1000000, 97);
}

/* ---- gbot plays the tree's move -------------------------------------------------------- */

static void test_guct_gbot_same_move(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, "{\"heaps\":[5,6,9,2]}", &opt);
    void *st = start(g, &opt);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t iters = 50 + seed * 37;
        thue_guct *t = tree(g, &opt, st, 100, seed);
        assert_int_equal(thue_guct_run(t, iters, NULL, NULL), 0);
        thue_gmove want;
        assert_int_equal(thue_guct_best(t, &want), 0);
        thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_UCT);
        spec.iterations = iters;
        thue_gbot_result res;
        assert_int_equal(thue_gbot_choose(g, &opt, st, &spec, seed, NULL, &res), 0);
        assert_memory_equal(&res.move, &want, sizeof want);
        assert_int_equal(res.iterations, iters);
        /* nodes made, counted on the budget: every node but the root */
        assert_int_equal(res.nodes, thue_guct_nodes(t) - 1);
        /* the bot that also writes its tree (thue bestmove --tree): the same move, and
         * the very file thue_guct_export writes of the same tree */
        char *mine = NULL, *bots = NULL;
        size_t mine_len = 0, bots_len = 0;
        FILE *f = open_memstream(&mine, &mine_len);
        assert_non_null(f);
        assert_int_equal(thue_guct_export(t, UINT32_MAX, f, THUE_GUCT_CSV), 0);
        fclose(f);
        f = open_memstream(&bots, &bots_len);
        assert_non_null(f);
        thue_gbot_result res2;
        assert_int_equal(
            thue_gbot_choose_tree(g, &opt, st, &spec, seed, NULL, &res2, f, THUE_GUCT_CSV), 0);
        fclose(f);
        assert_memory_equal(&res2.move, &want, sizeof want);
        assert_string_equal(bots, mine);
        free(mine);
        free(bots);
        thue_guct_free(t);
    }
    /* only uct has a tree; a format must be one of the two */
    thue_gbot_spec rnd = thue_gbot_spec_default(THUE_GBOT_RANDOM);
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose_tree(g, &opt, st, &rnd, 1, NULL, &res, stdout, THUE_GUCT_CSV),
                     THUE_EINVAL);
    thue_gbot_spec uct = thue_gbot_spec_default(THUE_GBOT_UCT);
    assert_int_equal(thue_gbot_choose_tree(g, &opt, st, &uct, 1, NULL, &res, stdout, 7),
                     THUE_EINVAL);
    assert_int_equal(thue_gbot_choose_tree(g, &opt, st, &uct, 1, NULL, &res, NULL, THUE_GUCT_CSV),
                     THUE_EINVAL);
    free(st);
}

/* ---- the snapshot cap ------------------------------------------------------------------ */

static int find_key(const rows *rs, const char *key)
{
    for (int i = 0; i < rs->n; i++)
        if (strcmp(rs->r[i].key, key) == 0)
            return i;
    return -1;
}

static void test_guct_snapshot_cap(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, "{\"heaps\":[4,5,6]}", &opt);
    void *st = start(g, &opt);
    thue_guct *t = tree(g, &opt, st, 100, 5);
    assert_int_equal(thue_guct_run(t, 4000, NULL, NULL), 0);
    rows all = walk_all(t, UINT32_MAX);
    assert_true(all.n > 1000);
    static const uint32_t caps[] = {1, 2, 5, 16, 100, 777, 5000};
    for (int ci = 0; ci < 7; ci++) {
        rows cut = walk_all(t, caps[ci]);
        uint32_t want = caps[ci] < (uint32_t)all.n ? caps[ci] : (uint32_t)all.n;
        assert_int_equal(cut.n, (int)want);
        assert_int_equal(cut.r[0].depth, 0);
        uint64_t min_shown = UINT64_MAX;
        char *in = calloc((size_t)all.n, 1);
        assert_non_null(in);
        for (int i = 0; i < cut.n; i++) {
            const row *r = &cut.r[i];
            int j = find_key(&all, r->key);
            assert_true(j >= 0);
            in[j] = 1;
            const row *full = &all.r[j];
            assert_int_equal(r->visits, full->visits);
            assert_int_equal(r->children + r->hidden, full->children);
            if (r->visits < min_shown)
                min_shown = r->visits;
            /* preorder: the parent is the nearest earlier row one level up, and shown */
            if (i > 0) {
                int p = i - 1;
                while (cut.r[p].depth != r->depth - 1)
                    p--;
                assert_true(strncmp(cut.r[p].key, r->key, strlen(cut.r[p].key)) == 0);
            }
            int kids = 0;
            for (int k = i + 1; k < cut.n && cut.r[k].depth > r->depth; k++)
                kids += cut.r[k].depth == r->depth + 1;
            assert_int_equal(kids, r->children);
        }
        for (int j = 0; j < all.n; j++)
            if (!in[j])
                assert_true(all.r[j].visits <= min_shown);
        free(in);
        free(cut.r);
    }
    free(all.r);
    thue_guct_free(t);
    free(st);
}

/* A node's index (the view's node, thue.v2's id of a shown node) stays the node's while
 * the tree grows: the same path has the same index in a later, bigger snapshot; the root
 * is 0 and indices are unique; children come in increasing index order. */
static void test_guct_snapshot_node_ids(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, "{\"heaps\":[4,5,6]}", &opt);
    void *st = start(g, &opt);
    thue_guct *t = tree(g, &opt, st, 100, 11);
    assert_int_equal(thue_guct_run(t, 500, NULL, NULL), 0);
    rows early = walk_all(t, 300);
    assert_int_equal(thue_guct_run(t, 3000, NULL, NULL), 0);
    rows late = walk_all(t, UINT32_MAX);
    assert_int_equal(late.r[0].node, 0);
    char *seen = calloc(thue_guct_nodes(t), 1);
    assert_non_null(seen);
    for (int i = 0; i < late.n; i++) {
        assert_true(late.r[i].node < thue_guct_nodes(t));
        assert_false(seen[late.r[i].node]);
        seen[late.r[i].node] = 1;
        /* the previous sibling (the nearest earlier row at this depth, under the same
         * parent) has a smaller index */
        for (int p = i - 1; p > 0 && late.r[p].depth >= late.r[i].depth; p--)
            if (late.r[p].depth == late.r[i].depth) {
                assert_true(late.r[p].node < late.r[i].node);
                break;
            }
    }
    for (int i = 0; i < early.n; i++) {
        int j = find_key(&late, early.r[i].key);
        assert_true(j >= 0);
        assert_int_equal(late.r[j].node, early.r[i].node);
    }
    free(seen);
    free(early.r);
    free(late.r);
    thue_guct_free(t);
    free(st);
}

static void test_guct_snapshot_depth(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, "{\"heaps\":[4,5,6]}", &opt);
    void *st = start(g, &opt);
    thue_guct *t = tree(g, &opt, st, 100, 9);
    assert_int_equal(thue_guct_run(t, 3000, NULL, NULL), 0);
    rows all = walk_all(t, UINT32_MAX);
    for (int depth = 0; depth <= 3; depth++) {
        rows cut;
        memset(&cut, 0, sizeof cut);
        uint32_t shown = 0;
        assert_int_equal(thue_guct_walk_depth(t, UINT32_MAX, depth, record, &cut, &shown), 0);
        /* exactly the nodes of the whole tree down to that depth */
        int want = 0;
        for (int i = 0; i < all.n; i++)
            want += all.r[i].depth <= depth;
        assert_int_equal(cut.n, want);
        assert_int_equal(shown, (uint32_t)want);
        for (int i = 0; i < cut.n; i++) {
            assert_true(cut.r[i].depth <= depth);
            int j = find_key(&all, cut.r[i].key);
            assert_true(j >= 0);
            assert_int_equal(cut.r[i].children + cut.r[i].hidden, all.r[j].children);
            if (cut.r[i].depth == depth)
                assert_int_equal(cut.r[i].children, 0);
        }
        free(cut.r);
    }
    uint32_t shown = 0;
    assert_int_equal(thue_guct_walk_depth(t, 5, -1, record, &(rows){0}, &shown), THUE_EINVAL);
    free(all.r);
    thue_guct_free(t);
    free(st);
}

/* ---- against a naive minimax ---------------------------------------------------------- */

/* 1 when the player to move in heaps a, b, c (normal play) wins. */
static int naive_wins(int a, int b, int c)
{
    int h[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        for (int take = 1; take <= h[i]; take++) {
            int x[3] = {h[0], h[1], h[2]};
            x[i] -= take;
            if (!naive_wins(x[0], x[1], x[2]))
                return 1;
        }
    return 0;
}

static void test_guct_small_nim_wins(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, "{\"heaps\":[3,3,3]}", &opt);
    int checked = 0;
    for (int a = 0; a <= 3; a++)
        for (int b = 0; b <= 3; b++)
            for (int c = 0; c <= 3; c++) {
                if (!naive_wins(a, b, c))
                    continue;
                thue_nim_state s;
                memset(&s, 0, sizeof s);
                s.n = 3;
                s.heaps[0] = a;
                s.heaps[1] = b;
                s.heaps[2] = c;
                thue_guct *t = tree(g, &opt, &s, 100, (uint64_t)(a * 16 + b * 4 + c));
                assert_int_equal(thue_guct_run(t, 20000, NULL, NULL), 0);
                thue_gmove m;
                assert_int_equal(thue_guct_best(t, &m), 0);
                thue_nim_state after = s;
                assert_int_equal(g->apply(&opt, &after, 0, &m, NULL), 0);
                assert_false(naive_wins(after.heaps[0], after.heaps[1], after.heaps[2]));
                thue_guct_free(t);
                checked++;
            }
    assert_int_equal(checked, 64 - 16); /* nim-sum 0 loses: 16 of the 64 */
}

/* ---- export ---------------------------------------------------------------------------- */

/* The walk's rows with their names, to compare the files with. */
typedef struct named {
    char move[64], state[256];
    uint64_t visits, ended;
    double value;
    int children, depth;
} named;

typedef struct nameds {
    const thue_gamedef *g;
    const thue_gopt *opt;
    named *r;
    int n;
} nameds;

static int record_named(void *arg, const thue_guct_view *v)
{
    nameds *ns = arg;
    named *r = &ns->r[ns->n++];
    memset(r, 0, sizeof *r);
    char *st = thue_guct_name(ns->g->state_json(ns->opt, v->state));
    assert_non_null(st);
    assert_null(strchr(st, '"'));
    snprintf(r->state, sizeof r->state, "%s", st);
    free(st);
    if (v->move) {
        char *mv = thue_guct_name(ns->g->move_json(ns->opt, v->move));
        assert_non_null(mv);
        snprintf(r->move, sizeof r->move, "%s", mv);
        free(mv);
    } else {
        snprintf(r->move, sizeof r->move, "root");
    }
    r->visits = v->visits;
    r->ended = v->ended;
    r->value = v->value;
    r->children = v->children;
    r->depth = v->depth;
    return 0;
}

static uint32_t rd_int(const unsigned char *b, size_t len, size_t *at)
{
    assert_true(*at + 4 <= len);
    uint32_t x = (uint32_t)b[*at] | (uint32_t)b[*at + 1] << 8 | (uint32_t)b[*at + 2] << 16 |
                 (uint32_t)b[*at + 3] << 24;
    *at += 4;
    return x;
}

static void rd_string(const unsigned char *b, size_t len, size_t *at, char *out, size_t cap)
{
    uint32_t n = rd_int(b, len, at);
    assert_true(n < cap && *at + n <= len);
    memcpy(out, b + *at, n);
    out[n] = '\0';
    *at += n;
}

/* Reads one binary node (its state and children) against rows[*k...]; the row of the node
 * itself has been matched for its move and counters by the caller. */
static void rd_node(const unsigned char *b, size_t len, size_t *at, const nameds *ns, int *k,
                    int depth)
{
    const named *r = &ns->r[*k];
    assert_int_equal(r->depth, depth);
    char name[256];
    rd_string(b, len, at, name, sizeof name);
    assert_string_equal(name, r->state);
    uint32_t nkids = rd_int(b, len, at);
    assert_int_equal(nkids, r->children);
    for (uint32_t i = 0; i < nkids; i++) {
        ++*k;
        const named *c = &ns->r[*k];
        rd_string(b, len, at, name, sizeof name);
        assert_string_equal(name, c->move);
        assert_int_equal(rd_int(b, len, at), c->visits);
        assert_int_equal(rd_int(b, len, at), c->ended);
        uint64_t bits = 0;
        assert_true(*at + 8 <= len);
        for (int j = 0; j < 8; j++)
            bits |= (uint64_t)b[*at + (size_t)j] << (8 * j);
        *at += 8;
        double d;
        memcpy(&d, &bits, sizeof d);
        assert_true(d == c->value);
        rd_node(b, len, at, ns, k, depth + 1);
    }
}

static void test_guct_export_formats(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, "{\"heaps\":[3,4,5]}", &opt);
    void *st = start(g, &opt);
    thue_guct *t = tree(g, &opt, st, 100, 11);
    assert_int_equal(thue_guct_run(t, 1500, NULL, NULL), 0);
    nameds ns = {g, &opt, calloc(40, sizeof(named)), 0};
    assert_non_null(ns.r);
    assert_int_equal(thue_guct_walk(t, 40, record_named, &ns, NULL), 0);
    assert_int_equal(ns.n, 40);

    /* CSV: the header, then one row per node in preorder; a stack rebuilds the tree. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(thue_guct_export(t, 40, f, THUE_GUCT_CSV), 0);
    fclose(f);
    char *line = strtok(buf, "\n");
    assert_string_equal(line, "move,visits,visits2,payoff,state,children");
    int pending[64], top = 0;
    for (int i = 0; i < ns.n; i++) {
        line = strtok(NULL, "\n");
        assert_non_null(line);
        char want[512];
        const char *q = strchr(ns.r[i].state, ',') ? "\"" : "";
        const char *qm = strchr(ns.r[i].move, ',') ? "\"" : "";
        snprintf(want, sizeof want, "%s%s%s,%llu,%llu,%.6f,%s%s%s,%d", qm, ns.r[i].move, qm,
                 (unsigned long long)ns.r[i].visits, (unsigned long long)ns.r[i].ended,
                 ns.r[i].value, q, ns.r[i].state, q, ns.r[i].children);
        assert_string_equal(line, want);
        /* the reader's stack: the depth of a row is the number of open parents */
        while (top > 0 && pending[top - 1] == 0)
            top--;
        assert_int_equal(top, ns.r[i].depth);
        if (top > 0)
            pending[top - 1]--;
        pending[top++] = ns.r[i].children;
    }
    assert_null(strtok(NULL, "\n"));
    free(buf);

    /* Binary: the root as a node, children with their move and counters first. */
    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(thue_guct_export(t, 40, f, THUE_GUCT_BINARY), 0);
    fclose(f);
    size_t at = 0;
    int k = 0;
    rd_node((const unsigned char *)buf, len, &at, &ns, &k, 0);
    assert_int_equal(k, ns.n - 1);
    assert_int_equal(at, len);
    free(buf);
    assert_int_equal(thue_guct_export(t, 0, stdout, THUE_GUCT_CSV), THUE_EINVAL);
    assert_int_equal(thue_guct_export(t, 5, stdout, (thue_guct_format)7), THUE_EINVAL);
    free(ns.r);
    thue_guct_free(t);
    free(st);
}

static void test_guct_bad_arguments(void **state)
{
    (void)state;
    const thue_gamedef *g = game("nim");
    thue_gopt opt;
    options(g, NULL, &opt);
    void *st = start(g, &opt);
    thue_guct_params p;
    memset(&p, 0, sizeof p);
    p.playout_limit = 0;
    p.c = 1;
    thue_guct *t = NULL;
    assert_int_equal(thue_guct_new(g, &opt, st, &p, &t), THUE_EINVAL);
    assert_null(t);
    p.playout_limit = 10;
    p.c = -1;
    assert_int_equal(thue_guct_new(g, &opt, st, &p, &t), THUE_EINVAL);
    p.c = 1;
    p.nodes_max = 1;
    assert_int_equal(thue_guct_new(g, &opt, st, &p, &t), THUE_EINVAL);
    p.nodes_max = 0;
    /* a position that is over: no move, no iterations */
    thue_nim_state over;
    memset(&over, 0, sizeof over);
    over.n = 3;
    assert_int_equal(thue_guct_new(g, &opt, &over, &p, &t), 0);
    uint64_t ran = 9;
    assert_int_equal(thue_guct_run(t, 100, NULL, &ran), 0);
    assert_int_equal(ran, 0);
    thue_gmove m;
    assert_int_equal(thue_guct_best(t, &m), THUE_EOVER);
    rows rs = walk_all(t, 10);
    assert_int_equal(rs.n, 1);
    assert_int_equal(rs.r[0].to_move, -1);
    free(rs.r);
    thue_guct_free(t);
    thue_guct_free(NULL);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guct_sliced_nim),
        cmocka_unit_test(test_guct_sliced_northcott),
        cmocka_unit_test(test_guct_sliced_thue_odd_size),
        cmocka_unit_test(test_guct_stopped_midplayout),
        cmocka_unit_test(test_guct_stopped_budget),
        cmocka_unit_test(test_guct_gbot_same_move),
        cmocka_unit_test(test_guct_snapshot_cap),
        cmocka_unit_test(test_guct_snapshot_node_ids),
        cmocka_unit_test(test_guct_snapshot_depth),
        cmocka_unit_test(test_guct_small_nim_wins),
        cmocka_unit_test(test_guct_export_formats),
        cmocka_unit_test(test_guct_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
