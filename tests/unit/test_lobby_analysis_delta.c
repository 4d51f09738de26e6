/*
 * test_lobby_analysis_delta.c: thue.v2's analysis updates (server/lobby/analysis_delta.c)
 * against the plain walk they stand for.
 *
 * A growing uct tree is sent update by update; a client model written here (a table by
 * id, no cleverness) applies each part after the codec decoded it, and after each update
 * its tree must be the walk's, node for node: the same ids, parents, moves, names and
 * figures (values as analysis_tree writes them). Every part is the codec's canonical text
 * (decode then encode gives it back), at most THUE_PROTO_DELTA_BYTES_MAX bytes, numbered
 * 1.. with `last` on the final one. Also: full updates amid deltas, the bound on the full
 * form (fewer nodes, the most visited), a tree too big to show, a stop, and the value's
 * number form against the codec's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_delta.h"
#include "base/errors.h"
#include "protocol/codec.h"

/* ---- the client's model ------------------------------------------------------------------ */

typedef struct mnode {
    int present;
    int64_t parent;
    char move[THUE_PROTO_GMOVE_MAX + 1]; /* "" at the root */
    char *name;
    int to_move;
    int64_t visits, ended;
    double value;
    int hidden;
} mnode;

typedef struct model {
    mnode *v;
    size_t cap;
    int64_t seq;
    int parts; /* parts of the update being applied */
    int shown;
} model;

static mnode *at(model *m, int64_t id)
{
    if ((size_t)id >= m->cap) {
        size_t cap = m->cap ? m->cap : 1024;
        while (cap <= (size_t)id)
            cap *= 2;
        m->v = realloc(m->v, cap * sizeof *m->v);
        assert_non_null(m->v);
        memset(m->v + m->cap, 0, (cap - m->cap) * sizeof *m->v);
        m->cap = cap;
    }
    return &m->v[id];
}

static void model_clear(model *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->v[i].name);
    if (m->v != NULL)
        memset(m->v, 0, m->cap * sizeof *m->v);
}

/* Applies one decoded part; returns its `last`. */
static int apply(model *m, const thue_msg *msg, int64_t seq, int full)
{
    const __typeof__(msg->u.analysis_delta) *d = &msg->u.analysis_delta;
    assert_int_equal(msg->type, THUE_MSG_ANALYSIS_DELTA);
    assert_int_equal(d->seq, seq);
    assert_int_equal(d->full, full);
    assert_int_equal(d->part, ++m->parts);
    if (d->full && d->part == 1)
        model_clear(m);
    for (int i = 0; i < d->ngone; i++) {
        mnode *n = at(m, d->gone[i]);
        assert_true(n->present);
        free(n->name);
        memset(n, 0, sizeof *n);
    }
    for (int i = 0; i < d->nadd; i++) {
        const thue_analysis_add *a = &d->add[i];
        mnode *n = at(m, a->id);
        assert_false(n->present);
        if (a->parent >= 0)
            assert_true(at(m, a->parent)->present); /* the parent came first */
        n->present = 1;
        n->parent = a->parent;
        snprintf(n->move, sizeof n->move, "%s", a->has_move ? a->move : "");
        n->name = strdup(a->name);
        n->to_move = a->to_move;
        n->visits = a->visits;
        n->ended = a->ended;
        n->value = a->value;
        n->hidden = a->hidden;
    }
    for (int i = 0; i < d->nset; i++) {
        const thue_analysis_set *s = &d->set[i];
        mnode *n = at(m, s->id);
        assert_true(n->present);
        n->visits = s->visits;
        n->ended = s->ended;
        n->value = s->value;
        n->hidden = s->hidden;
    }
    m->seq = d->seq;
    m->shown = d->shown;
    return d->last;
}

/* ---- the reference: the plain walk --------------------------------------------------------- */

typedef struct ref {
    const thue_gamedef *g;
    const thue_gopt *opt;
    model *m;
    int64_t ids[THUE_PROTO_TREE_LEVELS_MAX + 1];
    int count;
} ref;

static int check_node(void *arg, const thue_guct_view *v)
{
    ref *r = arg;
    r->ids[v->depth] = v->node;
    mnode *n = at(r->m, v->node);
    if (!n->present)
        fail_msg("node %u (depth %d) is shown but the model lacks it", v->node, v->depth);
    assert_int_equal(n->parent, v->depth > 0 ? r->ids[v->depth - 1] : -1);
    char *move = v->move ? thue_game_dump(r->g->move_json(r->opt, v->move)) : NULL;
    assert_string_equal(n->move, move ? move : "");
    free(move);
    char *name = thue_guct_name(r->g->state_json(r->opt, v->state));
    assert_string_equal(n->name, name);
    free(name);
    assert_int_equal(n->to_move, v->to_move);
    assert_int_equal(n->visits, v->visits);
    assert_int_equal(n->ended, v->ended);
    char ten[40];
    snprintf(ten, sizeof ten, "%.10g", v->value); /* analysis_tree's form */
    assert_true(n->value == strtod(ten, NULL));
    assert_int_equal(n->hidden, v->hidden);
    r->count++;
    return 0;
}

static void check_model(model *m, const thue_guct *t, const thue_gamedef *g, const thue_gopt *opt,
                        uint32_t shown)
{
    ref r;
    memset(&r, 0, sizeof r);
    r.g = g;
    r.opt = opt;
    r.m = m;
    uint32_t n = 0;
    assert_int_equal(thue_guct_walk_depth(t, shown, THUE_PROTO_TREE_LEVELS_MAX, check_node, &r, &n),
                     0);
    assert_int_equal(n, shown);
    int present = 0;
    for (size_t i = 0; i < m->cap; i++)
        present += m->v[i].present;
    assert_int_equal(present, (int)shown); /* nothing more than the walk's */
    assert_int_equal(m->shown, (int)shown);
}

/* ---- driving ------------------------------------------------------------------------------- */

typedef struct fixture {
    const thue_gamedef *g;
    thue_gopt opt;
    void *st;
    thue_guct *t;
    delta_state *d;
    model m;
    int64_t seq;
    size_t most_part; /* the longest part seen */
    int most_parts;   /* the most parts of one update */
} fixture;

static void setup(fixture *f, const char *game, const char *opts, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    f->g = thue_game_find(game);
    assert_non_null(f->g);
    thue_gerr e;
    assert_int_equal(thue_game_options_text(f->g, opts, &f->opt, &e), 0);
    f->st = malloc(f->g->state_size(&f->opt));
    assert_non_null(f->st);
    f->g->start(&f->opt, 0, f->st);
    thue_guct_params p;
    memset(&p, 0, sizeof p);
    p.playout_limit = 100;
    p.c = 1.4142135623730951;
    p.seed = seed;
    assert_int_equal(thue_guct_new(f->g, &f->opt, f->st, &p, &f->t), 0);
    f->d = delta_state_new();
    assert_non_null(f->d);
}

static void teardown(fixture *f)
{
    model_clear(&f->m);
    free(f->m.v);
    delta_state_free(f->d);
    thue_guct_free(f->t);
    free(f->st);
}

/* Builds and applies one update; returns the nodes it shows. */
static uint32_t update(fixture *f, bool full, uint32_t max_nodes, size_t max_bytes)
{
    delta_source src;
    memset(&src, 0, sizeof src);
    src.tree = f->t;
    src.g = f->g;
    src.opt = &f->opt;
    src.max_nodes = max_nodes;
    src.max_bytes = max_bytes;
    src.key = "aTest_1";
    src.seq = ++f->seq;
    src.status = 0;
    src.best = "{\"x\":1}";
    delta_update u;
    assert_int_equal(delta_build(f->d, &src, full, NULL, &u), 0);
    assert_true(u.nparts >= 1);
    assert_int_equal(delta_state_shown(f->d), u.shown);
    f->m.parts = 0;
    size_t bytes = 0;
    for (int i = 0; i < u.nparts; i++) {
        size_t len = strlen(u.parts[i]);
        bytes += len;
        assert_true(len <= THUE_PROTO_DELTA_BYTES_MAX);
        if (len > f->most_part)
            f->most_part = len;
        thue_msg msg;
        thue_decode_error e;
        if (thue_msg_decode(u.parts[i], len, &msg, &e) != 0)
            fail_msg("part %d does not decode: [%s] %s", i + 1, e.field, e.message);
        char *again = thue_msg_encode(&msg, NULL);
        assert_non_null(again);
        assert_string_equal(again, u.parts[i]); /* the canonical form */
        free(again);
        int last = apply(&f->m, &msg, f->seq, full);
        assert_int_equal(last, i == u.nparts - 1);
        assert_int_equal(msg.u.analysis_delta.iterations, (int64_t)thue_guct_iterations(f->t));
        thue_msg_clear(&msg);
    }
    assert_int_equal(bytes, u.bytes);
    if (u.nparts > f->most_parts)
        f->most_parts = u.nparts;
    uint32_t shown = u.shown;
    delta_update_free(&u);
    check_model(&f->m, f->t, f->g, &f->opt, shown);
    return shown;
}

/* A tree grown in steps, a delta after each, a full update now and then: the model
 * always equals the walk; the big updates come in several parts. */
static void test_delta_follows_the_tree(void **state)
{
    (void)state;
    static const struct {
        const char *game, *opts;
        uint32_t max_nodes;
    } cases[] = {
        {"nim", "{\"heaps\":[3,4,5]}", 5000},
        {"dots", "{\"rows\":2,\"cols\":3}", 50000},
        {"thue", NULL, 2000},
    };
    for (int c = 0; c < 3; c++) {
        fixture f;
        setup(&f, cases[c].game, cases[c].opts, 42 + (uint64_t)c);
        update(&f, true, cases[c].max_nodes, (size_t)2 << 20);
        static const uint64_t steps[] = {1, 3, 50, 400, 2000, 9000, 1, 0, 12000};
        for (int i = 0; i < 9; i++) {
            assert_int_equal(thue_guct_run(f.t, steps[i], NULL, NULL), 0);
            update(&f, i == 6, cases[c].max_nodes, (size_t)2 << 20);
        }
        print_message("%s: %u nodes, %u shown, parts up to %d per update and %zu bytes\n",
                      cases[c].game, thue_guct_nodes(f.t), (unsigned)f.m.shown, f.most_parts,
                      f.most_part);
        assert_true(f.most_parts > 1); /* big updates were cut */
        teardown(&f);
    }
}

/* The full form's bound: fewer nodes than max_nodes, the most visited still (the walk of
 * that many), and deltas under the bound follow. A bound the root alone passes is
 * THUE_ETOOBIG, and a stop leaves the state as it was. */
static void test_delta_bounds_and_stop(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "nim", "{\"heaps\":[3,4,5]}", 7);
    assert_int_equal(thue_guct_run(f.t, 8000, NULL, NULL), 0);
    uint32_t shown = update(&f, true, 5000, 40000);
    assert_true(shown > 50 && shown < 5000);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(thue_guct_run(f.t, 3000, NULL, NULL), 0);
        update(&f, false, 5000, 40000);
    }
    uint32_t before = delta_state_shown(f.d);
    delta_source src;
    memset(&src, 0, sizeof src);
    src.tree = f.t;
    src.g = f.g;
    src.opt = &f.opt;
    src.max_nodes = 5000;
    src.max_bytes = 20;
    src.key = "a1";
    src.seq = 99;
    delta_update u;
    assert_int_equal(delta_build(f.d, &src, false, NULL, &u), THUE_ETOOBIG);
    assert_int_equal(u.nparts, 0);
    assert_int_equal(delta_state_shown(f.d), before);
    atomic_int stop = 1;
    thue_bot_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.stop = &stop;
    thue__ctl ctl;
    thue__ctl_init(&ctl, &lim, 0);
    src.max_bytes = (size_t)2 << 20;
    assert_int_equal(delta_build(f.d, &src, false, &ctl, &u), 1);
    assert_int_equal(u.nparts, 0);
    assert_int_equal(delta_state_shown(f.d), before);
    /* Nothing changed: one part, every list empty. */
    f.seq = 200;
    update(&f, false, 5000, 40000);
    delta_source same = src;
    same.max_bytes = 40000;
    same.seq = ++f.seq;
    assert_int_equal(delta_build(f.d, &same, false, NULL, &u), 0);
    assert_int_equal(u.nparts, 1);
    assert_non_null(strstr(u.parts[0], "\"gone\":[],\"add\":[],\"set\":[]}"));
    delta_update_free(&u);
    teardown(&f);
}

static void test_delta_value_text(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v = (double)(x >> 11) / 9007199254740992.0;
        if (i % 4 == 1)
            v = v * 1e-9; /* small ones: the exponent form */
        else if (i % 4 == 2)
            v = (double)(x % 1000) / 1000; /* few digits */
        else if (i % 4 == 3)
            v = 1.0 / (double)(1 + x % 100000);
        char mine[32], ten[40], want[THUE_PROTO_NUMBER_MAX];
        size_t n = delta_value_text(v, mine);
        snprintf(ten, sizeof ten, "%.10g", v);
        thue_proto_number(strtod(ten, NULL), want);
        if (strcmp(mine, want) != 0)
            fail_msg("%.17g: %s, the codec writes %s", v, mine, want);
        assert_int_equal(n, strlen(mine));
    }
    char out[32];
    delta_value_text(0, out);
    assert_string_equal(out, "0");
    delta_value_text(1, out);
    assert_string_equal(out, "1");
    delta_value_text(1e-7, out);
    assert_string_equal(out, "1e-7");
    delta_value_text(0.5, out);
    assert_string_equal(out, "0.5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delta_follows_the_tree),
        cmocka_unit_test(test_delta_bounds_and_stop),
        cmocka_unit_test(test_delta_value_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
