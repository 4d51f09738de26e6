/*
 * test_cluster_match.c: quick match across nodes (cluster.h's queue_join and
 * queue_cancel, the join script of cluster_lua.h): joins one at a time against a naive
 * model of the pools (the same answer for every join and every cancel); two nodes
 * joining many tickets at once (no ticket paired twice, none lost, every pair heard by
 * both nodes exactly once); cancels racing joins; a dead node's ticket and an expired one
 * never pair; a late node's tickets (its record expired while it lived) swept and put
 * back; a pair made while the waiting node's subscriber was reconnecting still reaches it.
 */
#include "cluster_helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HB 100
/* The heartbeat of the nodes whose test is not about dead nodes: a node is taken for dead
 * once its heartbeats are 3 of these apart, which a busy machine can make of 100 ms (its
 * tickets are then swept, and the pools no longer follow the tests' models). */
#define HB_LIVE 1000

/* One node of a test and what its paired hook heard. */
typedef struct tnode {
    thue_cluster *c;
    ch_state st;
    int npaired;
    thue_cluster_pair paired[1024];
} tnode;

static void on_paired(void *data, const thue_cluster_pair *pair)
{
    tnode *n = data;
    assert_true(n->npaired < 1024);
    n->paired[n->npaired++] = *pair;
}

static void on_state(void *data, bool up)
{
    ch_on_state(&((tnode *)data)->st, up);
}

static void node_start_hb(tnode *n, uv_loop_t *loop, const char *url, const char *name,
                          const char *prefix, unsigned hb)
{
    memset(n, 0, sizeof *n);
    thue_cluster_config cfg;
    memset(&cfg, 0, sizeof cfg);
    ch_secret(&cfg);
    cfg.url = url;
    cfg.node = name;
    cfg.address = "127.0.0.1:1";
    cfg.prefix = prefix;
    cfg.heartbeat_ms = hb;
    cfg.hooks.state = on_state;
    cfg.hooks.paired = on_paired;
    cfg.hooks.data = n;
    char err[256];
    n->c = thue_cluster_new(loop, &cfg, err, sizeof err);
    if (!n->c)
        fail_msg("%s", err);
    assert_true(ch_run_until(loop, ch_is_up, &n->st, 5000));
}

static void node_start(tnode *n, uv_loop_t *loop, const char *url, const char *name,
                       const char *prefix)
{
    node_start_hb(n, loop, url, name, prefix, HB);
}

/* The pairs two nodes' paired hooks heard, against how many are expected: the test waits
 * for exactly the published pairs it counted, since Redis delivers them on the
 * subscribers' connections, in no order with the joins' answers. */
typedef struct heard_wait {
    tnode *nodes;
    int want[2];
} heard_wait;

static bool heard_all(void *data)
{
    heard_wait *h = data;
    return h->nodes[0].npaired >= h->want[0] && h->nodes[1].npaired >= h->want[1];
}

static bool heard_total(void *data)
{
    heard_wait *h = data;
    return h->nodes[0].npaired + h->nodes[1].npaired >= h->want[0];
}

/* Waits until each node has had three more heartbeats answered: a heartbeat sent after
 * now has then run after every sweep of a join answered before now, and whatever it (or
 * an earlier one) had to put back has been answered too (one connection, in order). */
typedef struct beats_wait {
    tnode *nodes;
    int n;
    unsigned long until[2];
} beats_wait;

static bool beats_done(void *data)
{
    beats_wait *b = data;
    for (int i = 0; i < b->n; i++)
        if (thue_cluster_heartbeats(b->nodes[i].c) < b->until[i])
            return false;
    return true;
}

static void settle(uv_loop_t *loop, tnode *nodes, int n)
{
    beats_wait b = {nodes, n, {0, 0}};
    for (int i = 0; i < n; i++)
        b.until[i] = thue_cluster_heartbeats(nodes[i].c) + 3;
    assert_true(ch_run_until(loop, beats_done, &b, 10000));
}

/* The models of the tests below hold only while no node is taken for dead. */
static void assert_never_dead(tnode *nodes, int n)
{
    for (int i = 0; i < n; i++)
        if (thue_cluster_lapses(nodes[i].c) != 0)
            fail_msg("node %d was taken for dead (its heartbeats %u ms apart: the machine "
                     "stalled it): this test's model does not hold",
                     i + 1, 3 * HB_LIVE);
}

/* A join's answer. */
typedef struct joined {
    int calls, status;
    bool paired;
    thue_cluster_pair pair;
} joined;

static void on_joined(void *data, int status, const thue_cluster_pair *pair)
{
    joined *j = data;
    j->calls++;
    j->status = status;
    j->paired = pair != NULL;
    if (pair)
        j->pair = *pair;
}

typedef struct cancelled {
    int calls, status;
    bool removed;
} cancelled;

static void on_cancelled(void *data, int status, bool removed)
{
    cancelled *q = data;
    q->calls++;
    q->status = status;
    q->removed = removed;
}

static bool one_call(void *data)
{
    return *(int *)data > 0; /* calls is the first member of joined and cancelled */
}

typedef struct all_calls {
    joined *j;
    int n;
} all_calls;

static bool all_answered(void *data)
{
    all_calls *a = data;
    for (int i = 0; i < a->n; i++)
        if (a->j[i].calls == 0)
            return false;
    return true;
}

static thue_cluster_ticket ticket(const char *id, const char *player, double rating)
{
    thue_cluster_ticket t;
    memset(&t, 0, sizeof t);
    snprintf(t.id, sizeof t.id, "%s", id);
    snprintf(t.player, sizeof t.player, "%s", player);
    snprintf(t.name, sizeof t.name, "Player %s", player);
    t.rating = rating;
    return t;
}

/* ---- the naive model ------------------------------------------------------------------ */

#define MODEL_MAX 512

typedef struct mticket {
    int id; /* index of the join */
    int player, rating;
} mticket;

typedef struct mpool {
    mticket w[MODEL_MAX]; /* waiting, longest first */
    int n;
} mpool;

/* The model's answer to a join: the index of the ticket it pairs with, or -1 (waits). */
static int model_join(mpool *p, mticket t, int max_diff)
{
    int scan = p->n < 64 ? p->n : 64;
    for (int i = 0; i < scan; i++) {
        mticket *o = &p->w[i];
        int d = o->rating > t.rating ? o->rating - t.rating : t.rating - o->rating;
        if (o->player != t.player && (max_diff < 0 || d <= max_diff)) {
            int id = o->id;
            memmove(&p->w[i], &p->w[i + 1], (size_t)(p->n - i - 1) * sizeof *o);
            p->n--;
            return id;
        }
    }
    p->w[p->n++] = t;
    return -1;
}

static bool model_cancel(mpool *p, int id)
{
    for (int i = 0; i < p->n; i++)
        if (p->w[i].id == id) {
            memmove(&p->w[i], &p->w[i + 1], (size_t)(p->n - i - 1) * sizeof p->w[0]);
            p->n--;
            return true;
        }
    return false;
}

#define SERIAL 320

static void test_cluster_match_against_model(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "model");
    static tnode nodes[2];
    node_start_hb(&nodes[0], &loop, ch_redis_url(), "n1", prefix, HB_LIVE);
    node_start_hb(&nodes[1], &loop, ch_redis_url(), "n2", prefix, HB_LIVE);
    static mpool pools[3];
    memset(pools, 0, sizeof pools);
    static joined j[SERIAL];
    int who[SERIAL], pool_of[SERIAL], expect_pairs = 0;
    unsigned seed = 777;
    for (int i = 0; i < SERIAL; i++) {
        seed = seed * 1103515245u + 12345u;
        int pool = (int)((seed >> 4) % 3), player = (int)((seed >> 8) % 40);
        int rating = 1000 + (int)((seed >> 12) % 1000);
        int max_diff = (int[]){-1, 100, 300}[(seed >> 24) % 3];
        who[i] = (int)((seed >> 28) & 1);
        pool_of[i] = pool;
        char pname[16], id[16], pl[16];
        snprintf(pname, sizeof pname, "pool %d", pool);
        snprintf(id, sizeof id, "t%d", i);
        snprintf(pl, sizeof pl, "p%d", player);
        thue_cluster_ticket t = ticket(id, pl, rating);
        memset(&j[i], 0, sizeof j[i]);
        assert_int_equal(
            thue_cluster_queue_join(nodes[who[i]].c, pname, &t, max_diff, 60000, on_joined, &j[i]),
            0);
        assert_true(ch_run_until(&loop, one_call, &j[i], 5000));
        assert_int_equal(j[i].status, 0);
        int want = model_join(&pools[pool], (mticket){i, player, rating}, max_diff);
        assert_never_dead(nodes, 2);
        if (want < 0) {
            assert_false(j[i].paired);
        } else {
            expect_pairs++;
            assert_true(j[i].paired);
            assert_true(j[i].pair.made_here);
            char wid[16];
            snprintf(wid, sizeof wid, "t%d", want);
            if (strcmp(j[i].pair.other.id, wid) != 0)
                fail_msg("join %d: Redis paired it with %s, the model with %s", i,
                         j[i].pair.other.id, wid);
            assert_string_equal(j[i].pair.other.node, who[want] ? "n2" : "n1");
            assert_string_equal(j[i].pair.mine.node, who[i] ? "n2" : "n1");
            assert_string_equal(j[i].pair.mine.id, id);
            assert_string_equal(j[i].pair.pool, pname);
        }
        /* Now and then a waiting ticket is cancelled (or one that no longer waits). */
        if (i % 7 == 6) {
            int victim = (int)((seed >> 16) % (unsigned)(i + 1));
            char vid[16], vpool[16];
            snprintf(vid, sizeof vid, "t%d", victim);
            snprintf(vpool, sizeof vpool, "pool %d", pool_of[victim]);
            cancelled q;
            memset(&q, 0, sizeof q);
            assert_int_equal(
                thue_cluster_queue_cancel(nodes[who[victim]].c, vpool, vid, on_cancelled, &q), 0);
            assert_true(ch_run_until(&loop, one_call, &q, 5000));
            assert_int_equal(q.status, 0);
            assert_int_equal(q.removed, model_cancel(&pools[pool_of[victim]], victim));
        }
    }
    /* Each pair reached the waiting ticket's node once, as the join described it. */
    heard_wait hw = {nodes, {expect_pairs, 0}};
    assert_true(ch_run_until(&loop, heard_total, &hw, 5000));
    assert_int_equal(nodes[0].npaired + nodes[1].npaired, expect_pairs);
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < nodes[w].npaired; k++) {
            const thue_cluster_pair *p = &nodes[w].paired[k];
            int joiner = atoi(p->other.id + 1);
            assert_true(j[joiner].paired);
            assert_false(p->made_here);
            assert_string_equal(p->mine.id, j[joiner].pair.other.id);
            assert_string_equal(p->mine.node, w ? "n2" : "n1");
            assert_string_equal(p->other.player, j[joiner].pair.mine.player);
            assert_string_equal(p->other.name, j[joiner].pair.mine.name);
            assert_true(p->other.rating == j[joiner].pair.mine.rating);
            assert_string_equal(p->pool, j[joiner].pair.pool);
        }
    /* What still waits in Redis is what waits in the model. */
    redisContext *rc = ch_sync(ch_redis_url());
    for (int p = 0; p < 3; p++) {
        char k[128];
        snprintf(k, sizeof k, "%sqm:pool %d", prefix, p); /* one argument, space and all */
        assert_int_equal(ch_int(rc, "ZCARD %s", k), pools[p].n);
    }
    redisFree(rc);
    thue_cluster_free(nodes[0].c);
    thue_cluster_free(nodes[1].c);
    ch_loop_close(&loop);
}

/* ---- many at once --------------------------------------------------------------------- */

#define BURST 300 /* per node */

static void test_cluster_match_concurrent(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "burst");
    static tnode nodes[2];
    node_start_hb(&nodes[0], &loop, ch_redis_url(), "n1", prefix, HB_LIVE);
    node_start_hb(&nodes[1], &loop, ch_redis_url(), "n2", prefix, HB_LIVE);
    static joined j[2 * BURST];
    memset(j, 0, sizeof j);
    /* Interleaved on both connections, nobody waiting for an answer. */
    for (int i = 0; i < 2 * BURST; i++) {
        char id[16], pl[16];
        snprintf(id, sizeof id, "t%d", i);
        snprintf(pl, sizeof pl, "p%d", i);
        thue_cluster_ticket t = ticket(id, pl, 1500);
        assert_int_equal(thue_cluster_queue_join(nodes[i & 1].c, i % 3 ? "fast" : "slow", &t, -1,
                                                 60000, on_joined, &j[i]),
                         0);
        if (i % 40 == 39)
            uv_run(&loop, UV_RUN_NOWAIT);
    }
    all_calls ac = {j, 2 * BURST};
    assert_true(ch_run_until(&loop, all_answered, &ac, 10000));
    assert_never_dead(nodes, 2);
    /* Every pair made by a join is heard by the waiting ticket's node. */
    int made = 0;
    for (int i = 0; i < 2 * BURST; i++)
        made += j[i].paired;
    heard_wait hw = {nodes, {made, 0}};
    assert_true(ch_run_until(&loop, heard_total, &hw, 5000));
    static int partner[2 * BURST], heard[2 * BURST];
    for (int i = 0; i < 2 * BURST; i++)
        partner[i] = -1, heard[i] = 0;
    int pairs = 0;
    for (int i = 0; i < 2 * BURST; i++) {
        assert_int_equal(j[i].status, 0);
        if (!j[i].paired)
            continue;
        int o = atoi(j[i].pair.other.id + 1);
        assert_string_equal(j[i].pair.pool, i % 3 ? "fast" : "slow");
        assert_string_equal(j[i].pair.pool, o % 3 ? "fast" : "slow");
        if (partner[i] != -1 || partner[o] != -1)
            fail_msg("t%d or t%d paired twice", i, o);
        partner[i] = o;
        partner[o] = i;
        pairs++;
    }
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < nodes[w].npaired; k++) {
            const thue_cluster_pair *p = &nodes[w].paired[k];
            int mine = atoi(p->mine.id + 1), other = atoi(p->other.id + 1);
            assert_int_equal(mine & 1, w); /* heard on its own node */
            assert_int_equal(partner[mine], other);
            heard[mine]++;
        }
    /* Every pair heard once by the waiting side; the rest waits in Redis: one ticket per
     * pool at most (any two of them would have paired), and none is lost. */
    int waiting_model = 0;
    for (int i = 0; i < 2 * BURST; i++) {
        if (partner[i] >= 0 && !j[i].paired)
            assert_int_equal(heard[i], 1);
        else
            assert_int_equal(heard[i], 0);
        waiting_model += partner[i] < 0;
    }
    redisContext *rc = ch_sync(ch_redis_url());
    long long fast = ch_int(rc, "ZCARD %sqm:fast", prefix);
    long long slow = ch_int(rc, "ZCARD %sqm:slow", prefix);
    redisFree(rc);
    assert_true(fast <= 1 && slow <= 1);
    assert_int_equal(fast + slow, waiting_model);
    assert_int_equal(2 * pairs + waiting_model, 2 * BURST);
    /* The model of this case (distinct players, any rating): whatever the interleaving,
     * a pool of n joins ends with n / 2 pairs and n % 2 waiting. */
    int joins[2] = {0, 0}, pool_pairs[2] = {0, 0};
    for (int i = 0; i < 2 * BURST; i++) {
        joins[i % 3 ? 0 : 1]++;
        pool_pairs[i % 3 ? 0 : 1] += j[i].paired;
    }
    assert_int_equal(pool_pairs[0], joins[0] / 2);
    assert_int_equal(pool_pairs[1], joins[1] / 2);
    assert_int_equal(fast, joins[0] % 2);
    assert_int_equal(slow, joins[1] % 2);
    thue_cluster_free(nodes[0].c);
    thue_cluster_free(nodes[1].c);
    ch_loop_close(&loop);
}

/* ---- cancels racing joins ------------------------------------------------------------- */

#define RACE 150

static void test_cluster_match_cancel_races(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "race");
    static tnode nodes[2];
    node_start(&nodes[0], &loop, ch_redis_url(), "n1", prefix);
    node_start(&nodes[1], &loop, ch_redis_url(), "n2", prefix);
    static joined ja[RACE], jb[RACE];
    static cancelled ca[RACE];
    memset(ja, 0, sizeof ja);
    memset(jb, 0, sizeof jb);
    memset(ca, 0, sizeof ca);
    /* n1 fills the pool with players of the same key: they never pair among themselves. */
    for (int i = 0; i < RACE; i++) {
        char id[16];
        snprintf(id, sizeof id, "a%d", i);
        thue_cluster_ticket t = ticket(id, "same", 1500);
        assert_int_equal(thue_cluster_queue_join(nodes[0].c, "p", &t, -1, 60000, on_joined, &ja[i]),
                         0);
    }
    all_calls aa = {ja, RACE};
    assert_true(ch_run_until(&loop, all_answered, &aa, 10000));
    for (int i = 0; i < RACE; i++)
        assert_false(ja[i].paired);
    /* Now n1 cancels them all while n2 joins as many. */
    for (int i = 0; i < RACE; i++) {
        char id[16], pl[16];
        snprintf(id, sizeof id, "a%d", i);
        assert_int_equal(thue_cluster_queue_cancel(nodes[0].c, "p", id, on_cancelled, &ca[i]), 0);
        snprintf(id, sizeof id, "b%d", i);
        snprintf(pl, sizeof pl, "b%d", i);
        thue_cluster_ticket t = ticket(id, pl, 1500);
        assert_int_equal(thue_cluster_queue_join(nodes[1].c, "p", &t, -1, 60000, on_joined, &jb[i]),
                         0);
    }
    all_calls ab = {jb, RACE};
    assert_true(ch_run_until(&loop, all_answered, &ab, 10000));
    assert_true(ch_run_until(&loop, one_call, &ca[RACE - 1], 5000));
    for (int i = 0; i < RACE; i++)
        assert_int_equal(jb[i].status, 0);
    static int paired_a[RACE];
    memset(paired_a, 0, sizeof paired_a);
    int b_paired = 0, bb_pairs = 0; /* b tickets paired with an a one, with a b one */
    for (int i = 0; i < RACE; i++)
        if (jb[i].paired && jb[i].pair.other.id[0] == 'a') {
            b_paired++;
            paired_a[atoi(jb[i].pair.other.id + 1)]++;
        } else if (jb[i].paired) {
            assert_int_equal(jb[i].pair.other.id[0], 'b');
            bb_pairs++;
        }
    /* The pairs published for n1's a tickets and n2's waiting b ones, as many as the joins
     * made (the model cannot say which: on a busy machine a node may be taken for dead for
     * a while, its tickets swept, then put back; every ticket is still cancelled or paired). */
    heard_wait hw = {nodes, {b_paired, bb_pairs}};
    assert_true(ch_run_until(&loop, heard_all, &hw, 5000));
    int removed = 0;
    for (int i = 0; i < RACE; i++) {
        assert_int_equal(ca[i].calls, 1);
        assert_int_equal(ca[i].status, 0);
        /* Either cancelled or paired, never both, never neither. */
        assert_int_equal(ca[i].removed + paired_a[i], 1);
        removed += ca[i].removed;
    }
    /* n1 hears exactly the pairs of its tickets that were not cancelled, n2 those of its
     * waiting tickets that a later b ticket took. */
    assert_int_equal(nodes[0].npaired, b_paired);
    assert_int_equal(nodes[1].npaired, bb_pairs);
    assert_int_equal(removed + b_paired, RACE);
    /* What b joined and did not pair waits (once a b ticket swept while n2 was taken for
     * dead is back). */
    settle(&loop, nodes, 2);
    redisContext *rc = ch_sync(ch_redis_url());
    assert_int_equal(ch_int(rc, "ZCARD %sqm:p", prefix), RACE - b_paired - 2 * bb_pairs);
    redisFree(rc);
    thue_cluster_free(nodes[0].c);
    thue_cluster_free(nodes[1].c);
    ch_loop_close(&loop);
}

/* ---- dead nodes, expired tickets, duplicates ------------------------------------------ */

static void join_wait(uv_loop_t *loop, thue_cluster *c, const char *pool, const char *id,
                      const char *player, unsigned ttl, joined *j)
{
    memset(j, 0, sizeof *j);
    thue_cluster_ticket t = ticket(id, player, 1500);
    assert_int_equal(thue_cluster_queue_join(c, pool, &t, -1, ttl, on_joined, j), 0);
    assert_true(ch_run_until(loop, one_call, j, 5000));
}

static void test_cluster_match_dead_and_expired(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "dead");
    static tnode a, b;
    node_start(&a, &loop, ch_redis_url(), "n1", prefix);
    node_start(&b, &loop, ch_redis_url(), "n2", prefix);
    joined j;
    /* Control: a live node's ticket pairs. */
    join_wait(&loop, a.c, "p", "x1", "pa", 60000, &j);
    assert_false(j.paired);
    join_wait(&loop, b.c, "p", "y1", "pb", 60000, &j);
    assert_true(j.paired);
    assert_string_equal(j.pair.other.id, "x1");
    /* The same ticket twice: refused while it waits. */
    join_wait(&loop, a.c, "p", "x2", "pa", 60000, &j);
    assert_int_equal(j.status, 0);
    join_wait(&loop, a.c, "p", "x2", "pa", 60000, &j);
    assert_int_equal(j.status, THUE_CLUSTER_EQUEUED);
    /* n1 dies with x2 waiting: once its record has expired, x2 never pairs. */
    thue_cluster_free(a.c);
    ch_run_for(&loop, 3 * HB + 150);
    join_wait(&loop, b.c, "p", "y2", "pb2", 60000, &j);
    assert_int_equal(j.status, 0);
    assert_false(j.paired);
    /* Out of the pool; its hash kept (marked swept) for its TTL, in case n1 was only late. */
    redisContext *rc = ch_sync(ch_redis_url());
    assert_int_equal(ch_int(rc, "ZCARD %sqm:p", prefix), 1); /* y2 */
    assert_int_equal(ch_int(rc, "HEXISTS %sqt:n1/x2 swept", prefix), 1);
    /* An expired ticket never pairs: y2 waits for ttl = 60 s, y3 for 150 ms. */
    cancelled q;
    memset(&q, 0, sizeof q);
    assert_int_equal(thue_cluster_queue_cancel(b.c, "p", "y2", on_cancelled, &q), 0);
    assert_true(ch_run_until(&loop, one_call, &q, 5000));
    assert_true(q.removed);
    join_wait(&loop, b.c, "p", "y3", "pb3", 150, &j);
    assert_false(j.paired);
    ch_run_for(&loop, 300);
    assert_int_equal(ch_int(rc, "EXISTS %sqt:n2/y3", prefix), 0);
    join_wait(&loop, b.c, "p", "y4", "pb4", 60000, &j);
    assert_false(j.paired);
    redisFree(rc);
    /* Malformed: refused at once. */
    thue_cluster_ticket t = ticket("bad id", "p", 1);
    assert_int_equal(thue_cluster_queue_join(b.c, "p", &t, -1, 0, on_joined, &j),
                     THUE_CLUSTER_EARG);
    t = ticket("ok", "p", 1);
    assert_int_equal(thue_cluster_queue_join(b.c, "", &t, -1, 0, on_joined, &j), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_queue_join(b.c, "a\nb", &t, -1, 0, on_joined, &j),
                     THUE_CLUSTER_EARG);
    t = ticket("ok", "p", 1);
    snprintf(t.name, sizeof t.name, "bad \xff\xfe utf-8");
    assert_int_equal(thue_cluster_queue_join(b.c, "p", &t, -1, 0, on_joined, &j),
                     THUE_CLUSTER_EARG);
    t = ticket("ok", "p", 1);
    t.rating = INFINITY;
    assert_int_equal(thue_cluster_queue_join(b.c, "p", &t, -1, 0, on_joined, &j),
                     THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_queue_cancel(b.c, "p", "", on_cancelled, &q), THUE_CLUSTER_EARG);
    thue_cluster_free(b.c);
    ch_loop_close(&loop);
}

/* A late node: n1's record expires while n1 lives (its heartbeats stalled: a busy machine,
 * a slow Redis, a short network cut; its connections never dropped). A join on n2 takes n1
 * for dead and sweeps n1's waiting tickets x1 and x2 out of the pool. Before, they were
 * deleted and n1 never knew: x1 waited forever, and the cancel of x2 answered "not
 * removed" though nothing had paired it (test_cluster_match_cancel_races' "neither
 * cancelled nor paired" on a busy machine). Now the cancel of x2 answers removed, n1's
 * next heartbeat finds its record gone and puts x1 back at its old place, and the next
 * join pairs it. The record's expiry is forced (DEL) and n1 beats only when told. */
static bool restored_one(void *data)
{
    return thue_cluster_restored(((tnode *)data)->c) >= 1;
}

static bool heard_one(void *data)
{
    return ((tnode *)data)->npaired >= 1;
}

static void test_cluster_match_late_node(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "late");
    static tnode a, b;
    node_start_hb(&a, &loop, ch_redis_url(), "n1", prefix, 60000); /* no beat of its own */
    node_start(&b, &loop, ch_redis_url(), "n2", prefix);
    joined j;
    join_wait(&loop, a.c, "p", "x1", "pa", 60000, &j);
    assert_false(j.paired);
    join_wait(&loop, a.c, "p", "x2", "pa", 60000, &j); /* the same player: no pair */
    assert_false(j.paired);
    redisContext *rc = ch_sync(ch_redis_url());
    assert_int_equal(ch_int(rc, "DEL %snode:n1", prefix), 1); /* n1's record "expires" */
    /* n1 looks dead: y1 does not pair, and both of n1's tickets leave the pool. */
    join_wait(&loop, b.c, "p", "y1", "pb", 60000, &j);
    assert_int_equal(j.status, 0);
    assert_false(j.paired);
    assert_int_equal(ch_int(rc, "ZCARD %sqm:p", prefix), 1); /* y1 */
    assert_int_equal(ch_int(rc, "HEXISTS %sqt:n1/x1 swept", prefix), 1);
    /* A cancel meanwhile: removed (nothing paired it, and nothing will). */
    cancelled q;
    memset(&q, 0, sizeof q);
    assert_int_equal(thue_cluster_queue_cancel(a.c, "p", "x2", on_cancelled, &q), 0);
    assert_true(ch_run_until(&loop, one_call, &q, 5000));
    assert_int_equal(q.status, 0);
    assert_true(q.removed);
    assert_int_equal(ch_int(rc, "EXISTS %sqt:n1/x2", prefix), 0);
    /* n1's heartbeat: its record was gone, so x1 goes back, ahead of y1; x2 does not. */
    assert_int_equal(thue_cluster_lapses(a.c), 0);
    thue_cluster_heartbeat_now(a.c);
    assert_true(ch_run_until(&loop, restored_one, &a, 5000));
    assert_int_equal(thue_cluster_lapses(a.c), 1);
    assert_int_equal(thue_cluster_restored(a.c), 1);
    redisReply *r = redisCommand(rc, "ZRANGE %sqm:p 0 -1", prefix);
    assert_non_null(r);
    assert_int_equal(r->type, REDIS_REPLY_ARRAY);
    assert_int_equal(r->elements, 2);
    assert_string_equal(r->element[0]->str, "n1/x1");
    assert_string_equal(r->element[1]->str, "n2/y1");
    freeReplyObject(r);
    assert_int_equal(ch_int(rc, "HEXISTS %sqt:n1/x1 swept", prefix), 0);
    assert_true(ch_int(rc, "PTTL %sqt:n1/x1", prefix) > 50000); /* its own TTL still */
    /* The next join takes x1, the longest waiting, and n1 hears it. */
    join_wait(&loop, b.c, "p", "y2", "pc", 60000, &j);
    assert_int_equal(j.status, 0);
    assert_true(j.paired);
    assert_string_equal(j.pair.other.id, "x1");
    assert_string_equal(j.pair.other.node, "n1");
    assert_true(ch_run_until(&loop, heard_one, &a, 5000));
    assert_int_equal(a.npaired, 1);
    assert_string_equal(a.paired[0].mine.id, "x1");
    assert_string_equal(a.paired[0].other.id, "y2");
    assert_int_equal(ch_int(rc, "ZCARD %sqm:p", prefix), 1); /* y1 */
    /* Once back, n1 is no longer swept: a cancel of x1 now answers "paired". */
    memset(&q, 0, sizeof q);
    assert_int_equal(thue_cluster_queue_cancel(a.c, "p", "x1", on_cancelled, &q), 0);
    assert_true(ch_run_until(&loop, one_call, &q, 5000));
    assert_int_equal(q.status, 0);
    assert_false(q.removed);
    redisFree(rc);
    thue_cluster_free(a.c);
    thue_cluster_free(b.c);
    ch_loop_close(&loop);
}

/* The waiting node's subscriber is cut (CLIENT KILL TYPE pubsub) just before the pair is
 * made: the published pair reaches nobody, and the node fetches the kept one after it has
 * subscribed again. Exactly once. */
static void test_cluster_match_pair_kept_for_reconnect(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    static tnode a, b;
    node_start(&a, &loop, srv.url, "n1", NULL);
    node_start(&b, &loop, srv.url, "n2", NULL);
    joined j;
    join_wait(&loop, a.c, "p", "x1", "pa", 60000, &j);
    assert_false(j.paired);
    redisContext *rc = ch_sync(srv.url);
    assert_int_equal(ch_int(rc, "CLIENT KILL TYPE pubsub"), 2);
    redisFree(rc);
    join_wait(&loop, b.c, "p", "y1", "pb", 60000, &j);
    assert_true(j.paired);
    assert_int_equal(a.npaired, 0);
    assert_true(ch_run_until(&loop, ch_is_up, &a.st, 5000)); /* was it down? */
    for (int i = 0; i < 100 && a.npaired == 0; i++)
        ch_run_for(&loop, 20);
    ch_run_for(&loop, 100);
    assert_int_equal(a.npaired, 1);
    assert_string_equal(a.paired[0].mine.id, "x1");
    assert_string_equal(a.paired[0].other.id, "y1");
    assert_true(a.st.downs >= 1);
    rc = ch_sync(srv.url);
    assert_int_equal(ch_int(rc, "EXISTS thue:qres:n1/x1"), 0);
    redisFree(rc);
    thue_cluster_free(a.c);
    thue_cluster_free(b.c);
    ch_loop_close(&loop);
    ch_server_stop(&srv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cluster_match_against_model),
        cmocka_unit_test(test_cluster_match_concurrent),
        cmocka_unit_test(test_cluster_match_cancel_races),
        cmocka_unit_test(test_cluster_match_dead_and_expired),
        cmocka_unit_test(test_cluster_match_late_node),
        cmocka_unit_test(test_cluster_match_pair_kept_for_reconnect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
