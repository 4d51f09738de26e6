/*
 * test_cluster_directory.c: the node registry and the room directory of
 * server/cluster/cluster.h, and the sessions: configuration errors; two nodes' records
 * and a dead node leaving the list; random registrations on two nodes against a naive
 * map; a dead node's rooms vanishing within the TTL; Redis emptied (FLUSHALL) and Redis
 * restarted with rooms added and removed meanwhile, the directory rebuilt from the
 * nodes; sessions stored, found, expired and deleted; calls while Redis is down; the
 * names in use: claimed against the other live nodes (one winner of simultaneous claims),
 * given back, freed by a dead node's TTL, by a node that leaves, rewritten after FLUSHALL;
 * the bot seat counts: summed over the live nodes, the last seat taken by exactly one of
 * two nodes, given back, rewritten after FLUSHALL, gone with a dead node.
 */
#include "cluster_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HB 100 /* heartbeat in the tests: records live 300 ms */

static thue_cluster *node_new(uv_loop_t *loop, const char *url, const char *name,
                              const char *prefix, ch_state *st)
{
    thue_cluster_config cfg;
    memset(&cfg, 0, sizeof cfg);
    ch_secret(&cfg);
    cfg.url = url;
    cfg.node = name;
    char address[64];
    snprintf(address, sizeof address, "%s.local:8080", name);
    cfg.address = address;
    cfg.prefix = prefix;
    cfg.heartbeat_ms = HB;
    cfg.hooks.state = ch_on_state;
    cfg.hooks.data = st;
    char err[256];
    thue_cluster *c = thue_cluster_new(loop, &cfg, err, sizeof err);
    if (!c)
        fail_msg("thue_cluster_new: %s", err);
    return c;
}

static void test_cluster_config_errors(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    const char *names_ok[] = {"n1", "a", "node-7", "0123456789abcdef0123456789abcdef"};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(thue_cluster_check_node(names_ok[i]), 0);
    const char *names_bad[] = {"", "N1", "a_b", "a.b", "a b", "0123456789abcdef0123456789abcdef0"};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(thue_cluster_check_node(names_bad[i]), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_check_node(NULL), THUE_CLUSTER_EARG);

    struct {
        const char *url, *node, *address, *prefix;
        unsigned hb;
        const char *field;
    } cases[] = {
        {"redis://127.0.0.1:1", "Bad", "h:1", NULL, 0, "node"},
        {"redis://127.0.0.1:1", NULL, "h:1", NULL, 0, "node"},
        {"redis://127.0.0.1:1", "n1", "", NULL, 0, "address"},
        {"redis://127.0.0.1:1", "n1", "a b", NULL, 0, "address"},
        {"redis://127.0.0.1:1", "n1", "h:1", "", 0, "prefix"},
        {"redis://127.0.0.1:1", "n1", "h:1", "a b", 0, "prefix"},
        {"redis://127.0.0.1:1", "n1", "h:1", NULL, 5, "heartbeat"},
        {"redis://127.0.0.1:1", "n1", "h:1", NULL, 60001, "heartbeat"},
        {"tcp://127.0.0.1:1", "n1", "h:1", NULL, 0, "tcp://"},
        {NULL, "n1", "h:1", NULL, 0, "empty"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        thue_cluster_config cfg;
        memset(&cfg, 0, sizeof cfg);
        ch_secret(&cfg);
        cfg.url = cases[i].url;
        cfg.node = cases[i].node;
        cfg.address = cases[i].address;
        cfg.prefix = cases[i].prefix;
        cfg.heartbeat_ms = cases[i].hb;
        char err[256] = "";
        assert_null(thue_cluster_new(&loop, &cfg, err, sizeof err));
        if (!strstr(err, cases[i].field))
            fail_msg("case %zu: \"%s\" does not name %s", i, err, cases[i].field);
    }
    ch_loop_close(&loop);
}

/* ---- lookups -------------------------------------------------------------------------- */

typedef struct lookup {
    int calls, status;
    char node[THUE_CLUSTER_NODE_MAX]; /* "" when none */
} lookup;

static void on_lookup(void *data, int status, const char *node)
{
    lookup *l = data;
    l->calls++;
    l->status = status;
    snprintf(l->node, sizeof l->node, "%s", node ? node : "");
}

typedef struct batch {
    lookup *l;
    int n;
} batch;

static bool batch_done(void *data)
{
    batch *b = data;
    for (int i = 0; i < b->n; i++)
        if (b->l[i].calls == 0)
            return false;
    return true;
}

/* Looks up room ids "r0".."r<n-1>" through c; the answers into l (n). */
static void lookup_all(uv_loop_t *loop, thue_cluster *c, lookup *l, int n)
{
    memset(l, 0, (size_t)n * sizeof *l);
    for (int i = 0; i < n; i++) {
        char id[32];
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(thue_cluster_room_lookup(c, id, on_lookup, &l[i]), 0);
    }
    batch b = {l, n};
    assert_true(ch_run_until(loop, batch_done, &b, 10000));
    for (int i = 0; i < n; i++)
        assert_int_equal(l[i].status, 0);
}

/* Waits until every command c sent so far has been answered (one connection answers in
 * order). */
static void flush(uv_loop_t *loop, thue_cluster *c)
{
    lookup l;
    memset(&l, 0, sizeof l);
    assert_int_equal(thue_cluster_room_lookup(c, "flush", on_lookup, &l), 0);
    batch b = {&l, 1};
    assert_true(ch_run_until(loop, batch_done, &b, 10000));
}

/* Every lookup through c agrees with model (model[i]: "" or the node). */
static void check_model(uv_loop_t *loop, thue_cluster *c, char (*model)[THUE_CLUSTER_NODE_MAX],
                        int n)
{
    lookup *l = calloc((size_t)n, sizeof *l);
    lookup_all(loop, c, l, n);
    for (int i = 0; i < n; i++)
        if (strcmp(l[i].node, model[i]) != 0)
            fail_msg("room r%d: the directory says \"%s\", the model \"%s\"", i, l[i].node,
                     model[i]);
    free(l);
}

/* ---- nodes ---------------------------------------------------------------------------- */

typedef struct nodelist {
    int calls, status;
    size_t n;
    thue_cluster_node nodes[8];
} nodelist;

static void on_nodes(void *data, int status, const thue_cluster_node *nodes, size_t n)
{
    nodelist *l = data;
    l->calls++;
    l->status = status;
    l->n = n;
    for (size_t i = 0; i < n && i < 8; i++)
        l->nodes[i] = nodes[i];
}

static bool list_done(void *data)
{
    return ((nodelist *)data)->calls > 0;
}

static void list_nodes(uv_loop_t *loop, thue_cluster *c, nodelist *l)
{
    memset(l, 0, sizeof *l);
    assert_int_equal(thue_cluster_nodes(c, on_nodes, l), 0);
    assert_true(ch_run_until(loop, list_done, l, 5000));
    assert_int_equal(l->status, 0);
}

/* Lists the nodes until there are want of them (at most tries times, 50 ms apart). */
static bool wait_nodes(uv_loop_t *loop, thue_cluster *c, size_t want, int tries)
{
    for (int i = 0; i < tries; i++) {
        nodelist l;
        list_nodes(loop, c, &l);
        if (l.n == want)
            return true;
        ch_run_for(loop, 50);
    }
    return false;
}

static void test_cluster_nodes(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "nodes");
    ch_state sa = {0, 0, false}, sb = {0, 0, false};
    thue_cluster *a = node_new(&loop, ch_redis_url(), "n1", prefix, &sa);
    thue_cluster *b = node_new(&loop, ch_redis_url(), "n2", prefix, &sb);
    assert_string_equal(thue_cluster_node_name(a), "n1");
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    assert_true(thue_cluster_up(a));
    thue_cluster_set_load(a, 12, 30);
    thue_cluster_set_draining(b, true);
    thue_cluster_heartbeat_now(a);
    thue_cluster_heartbeat_now(b);
    flush(&loop, a); /* each node's heartbeat is answered before the list is asked */
    flush(&loop, b);
    nodelist l;
    list_nodes(&loop, a, &l);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.nodes[0].name, "n1");
    assert_string_equal(l.nodes[0].address, "n1.local:8080");
    assert_false(l.nodes[0].draining);
    assert_int_equal(l.nodes[0].rooms, 12);
    assert_int_equal(l.nodes[0].players, 30);
    assert_string_equal(l.nodes[1].name, "n2");
    assert_string_equal(l.nodes[1].address, "n2.local:8080");
    assert_true(l.nodes[1].draining);
    assert_true(thue_cluster_heartbeats(a) >= 1);

    /* The record's TTL is 3 heartbeats. */
    redisContext *rc = ch_sync(ch_redis_url());
    long long ttl = ch_int(rc, "PTTL %snode:n1", prefix);
    assert_true(ttl > 0 && ttl <= 3 * HB);
    redisFree(rc);

    /* n2 dies (no goodbye): it leaves the list within its TTL; n1 stays. */
    thue_cluster_free(b);
    assert_true(wait_nodes(&loop, a, 1, 60));
    list_nodes(&loop, a, &l);
    assert_string_equal(l.nodes[0].name, "n1");
    thue_cluster_free(a);
    ch_loop_close(&loop);
}

/* ---- the directory against a naive map ------------------------------------------------ */

#define ROOMS 300

static void test_cluster_directory_model(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "model");
    ch_state sa = {0, 0, false}, sb = {0, 0, false};
    thue_cluster *a = node_new(&loop, ch_redis_url(), "n1", prefix, &sa);
    thue_cluster *b = node_new(&loop, ch_redis_url(), "n2", prefix, &sb);
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    thue_cluster *nodes[2] = {a, b};
    const char *names[2] = {"n1", "n2"};
    static char model[ROOMS][THUE_CLUSTER_NODE_MAX];
    memset(model, 0, sizeof model);
    unsigned seed = 12345;
    for (int round = 0; round < 4; round++) {
        for (int op = 0; op < 600; op++) {
            seed = seed * 1103515245u + 12345u;
            int room = (int)((seed >> 8) % ROOMS), who = (int)((seed >> 20) & 1);
            bool add = (seed >> 24) % 3 != 0;
            char id[32];
            snprintf(id, sizeof id, "r%d", room);
            if (add) {
                if (model[room][0] && strcmp(model[room], names[who]) != 0)
                    continue; /* a room lives on one node */
                assert_int_equal(thue_cluster_room_add(nodes[who], id), 0);
                snprintf(model[room], THUE_CLUSTER_NODE_MAX, "%s", names[who]);
            } else {
                int rc = thue_cluster_room_remove(nodes[who], id);
                if (strcmp(model[room], names[who]) == 0) {
                    assert_int_equal(rc, 0);
                    model[room][0] = '\0';
                } else {
                    assert_int_equal(rc, THUE_CLUSTER_EARG); /* not registered here */
                }
            }
            if (op % 50 == 0)
                ch_run_for(&loop, 1);
        }
        flush(&loop, a);
        flush(&loop, b);
        size_t count[2] = {0, 0};
        for (int i = 0; i < ROOMS; i++)
            for (int w = 0; w < 2; w++)
                count[w] += strcmp(model[i], names[w]) == 0;
        assert_int_equal(thue_cluster_room_count(a), count[0]);
        assert_int_equal(thue_cluster_room_count(b), count[1]);
        check_model(&loop, round % 2 ? a : b, model, ROOMS);
        redisContext *rc = ch_sync(ch_redis_url());
        assert_int_equal(ch_int(rc, "SCARD %srooms:n1", prefix), (long long)count[0]);
        assert_int_equal(ch_int(rc, "SCARD %srooms:n2", prefix), (long long)count[1]);
        long long ttl = ch_int(rc, "PTTL %srooms:n1", prefix);
        assert_true(ttl > 0 && ttl <= 3 * HB);
        redisFree(rc);
    }
    /* Malformed ids: refused, nothing changes. */
    assert_int_equal(thue_cluster_room_add(a, ""), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_room_add(a, "a b"), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_room_add(a, "x/y"), THUE_CLUSTER_EARG);
    lookup l;
    assert_int_equal(thue_cluster_room_lookup(a, "a b", on_lookup, &l), THUE_CLUSTER_EARG);
    /* Registering twice changes nothing. */
    size_t before = thue_cluster_room_count(a);
    assert_int_equal(thue_cluster_room_add(a, "twice"), 0);
    assert_int_equal(thue_cluster_room_add(a, "twice"), 0);
    assert_int_equal(thue_cluster_room_count(a), before + 1);
    thue_cluster_free(a);
    thue_cluster_free(b);
    ch_loop_close(&loop);
}

/* ---- a dead node ---------------------------------------------------------------------- */

/* Looks up r0..r<n-1> until none is found (at most tries times, 20 ms apart). */
static bool wait_all_gone(uv_loop_t *loop, thue_cluster *c, int n, int tries)
{
    for (int t = 0; t < tries; t++) {
        lookup l[40];
        lookup_all(loop, c, l, n);
        int found = 0;
        for (int i = 0; i < n; i++)
            found += l[i].node[0] != '\0';
        if (found == 0)
            return true;
        ch_run_for(loop, 20);
    }
    return false;
}

static void test_cluster_dead_node_rooms_vanish(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "dead");
    ch_state sa = {0, 0, false}, sb = {0, 0, false};
    thue_cluster *a = node_new(&loop, ch_redis_url(), "n1", prefix, &sa);
    thue_cluster *b = node_new(&loop, ch_redis_url(), "n2", prefix, &sb);
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    for (int i = 0; i < 40; i++) {
        char id[32];
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(thue_cluster_room_add(a, id), 0);
    }
    flush(&loop, a);
    /* Alive for several heartbeats: its rooms stay (the heartbeat refreshes them). */
    ch_run_for(&loop, 5 * HB);
    lookup l[40];
    lookup_all(&loop, b, l, 40);
    for (int i = 0; i < 40; i++)
        assert_string_equal(l[i].node, "n1");
    thue_cluster_free(a); /* dies without unregistering anything */
    assert_true(wait_all_gone(&loop, b, 40, 50));
    redisContext *rc = ch_sync(ch_redis_url());
    assert_int_equal(ch_int(rc, "EXISTS %srooms:n1", prefix), 0);
    assert_int_equal(ch_int(rc, "EXISTS %snode:n1", prefix), 0);
    redisFree(rc);
    thue_cluster_free(b);
    ch_loop_close(&loop);
}

static void on_done(void *data, int status);
static bool done_done(void *data);

static void on_join_done(void *data, int status, const thue_cluster_pair *pair)
{
    int *calls = data;
    calls[0]++;
    calls[1] = status;
    calls[2] = pair != NULL;
}

/* A node that leaves (a graceful shutdown): its record, rooms and waiting tickets are
 * gone at once, not after the TTL, and it writes nothing more. */
static void test_cluster_leave(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "leave");
    ch_state sa = {0, 0, false}, sb = {0, 0, false};
    thue_cluster *a = node_new(&loop, ch_redis_url(), "n1", prefix, &sa);
    thue_cluster *b = node_new(&loop, ch_redis_url(), "n2", prefix, &sb);
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    for (int i = 0; i < 10; i++) {
        char id[32];
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(thue_cluster_room_add(a, id), 0);
    }
    thue_cluster_ticket t;
    memset(&t, 0, sizeof t);
    snprintf(t.id, sizeof t.id, "w1");
    snprintf(t.player, sizeof t.player, "p1");
    snprintf(t.name, sizeof t.name, "P1");
    assert_int_equal(thue_cluster_queue_join(a, "pool", &t, -1, 60000, NULL, NULL),
                     THUE_CLUSTER_EARG);
    int joined[3] = {0, 0, 0};
    assert_int_equal(thue_cluster_queue_join(a, "pool", &t, -1, 60000, on_join_done, joined), 0);
    assert_true(ch_run_until(&loop, done_done, joined, 5000));
    assert_int_equal(joined[1], 0);
    assert_int_equal(joined[2], 0); /* waits */
    flush(&loop, a);
    assert_true(wait_nodes(&loop, b, 2, 20));
    int done[2] = {0, 0};
    assert_int_equal(thue_cluster_leave(a, on_done, done), 0);
    assert_int_equal(thue_cluster_leave(a, on_done, done), THUE_CLUSTER_EARG);
    assert_true(ch_run_until(&loop, done_done, done, 5000));
    assert_int_equal(done[1], 0);
    /* At once, well within the 300 ms TTL. */
    lookup l[10];
    lookup_all(&loop, b, l, 10);
    for (int i = 0; i < 10; i++)
        assert_string_equal(l[i].node, "");
    nodelist nl;
    list_nodes(&loop, b, &nl);
    assert_int_equal(nl.n, 1);
    assert_string_equal(nl.nodes[0].name, "n2");
    /* Nothing more is written: no heartbeat brings the record back. */
    assert_int_equal(thue_cluster_room_add(a, "late"), 0);
    ch_run_for(&loop, 3 * HB);
    redisContext *rc = ch_sync(ch_redis_url());
    assert_int_equal(ch_int(rc, "EXISTS %snode:n1", prefix), 0);
    assert_int_equal(ch_int(rc, "EXISTS %srooms:n1", prefix), 0);
    assert_int_equal(ch_int(rc, "EXISTS %sqt:n1/w1", prefix), 0); /* its ticket too */
    assert_int_equal(ch_int(rc, "ZCARD %sqm:pool", prefix), 0);
    redisFree(rc);
    thue_cluster_free(a);
    thue_cluster_free(b);
    ch_loop_close(&loop);
}

/* ---- Redis loses everything ----------------------------------------------------------- */

typedef struct rebuilt {
    thue_cluster *c;
    unsigned long more_than;
} rebuilt;

static bool has_rebuilt(void *data)
{
    rebuilt *r = data;
    return thue_cluster_rebuilds(r->c) > r->more_than;
}

#define MANY 1300 /* more than two chunks of the rebuild */

static void test_cluster_directory_rebuilt(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    ch_state sa = {0, 0, false}, sb = {0, 0, false};
    thue_cluster *a = node_new(&loop, srv.url, "n1", "thue:", &sa);
    thue_cluster *b = node_new(&loop, srv.url, "n2", "thue:", &sb);
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    static char model[MANY][THUE_CLUSTER_NODE_MAX];
    memset(model, 0, sizeof model);
    for (int i = 0; i < MANY - 100; i++) {
        char id[32];
        snprintf(id, sizeof id, "r%d", i);
        thue_cluster *c = i % 3 ? a : b;
        assert_int_equal(thue_cluster_room_add(c, id), 0);
        snprintf(model[i], THUE_CLUSTER_NODE_MAX, "%s", i % 3 ? "n1" : "n2");
    }
    flush(&loop, a);
    flush(&loop, b);
    check_model(&loop, b, model, MANY);

    /* Emptied under the nodes' feet: the next heartbeat finds the sets gone. */
    redisContext *rc = ch_sync(srv.url);
    unsigned long ra = thue_cluster_rebuilds(a), rb = thue_cluster_rebuilds(b);
    redisReply *rep = redisCommand(rc, "FLUSHALL");
    freeReplyObject(rep);
    redisFree(rc);
    rebuilt wa = {a, ra}, wb = {b, rb};
    assert_true(ch_run_until(&loop, has_rebuilt, &wa, 3000));
    assert_true(ch_run_until(&loop, has_rebuilt, &wb, 3000));
    flush(&loop, a);
    flush(&loop, b);
    check_model(&loop, a, model, MANY);

    /* Killed; rooms come and go meanwhile; restarted empty on the same port. */
    ch_server_stop(&srv);
    assert_true(ch_run_until(&loop, ch_is_down, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_down, &sb, 5000));
    for (int i = MANY - 100; i < MANY; i++) {
        char id[32];
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(thue_cluster_room_add(a, id), 0);
        snprintf(model[i], THUE_CLUSTER_NODE_MAX, "n1");
    }
    for (int i = 1; i < 300; i += 3) { /* n1's */
        char id[32];
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(thue_cluster_room_remove(a, id), 0);
        model[i][0] = '\0';
    }
    lookup l;
    memset(&l, 0, sizeof l);
    assert_int_equal(thue_cluster_room_lookup(b, "r0", on_lookup, &l), 0);
    batch bt = {&l, 1};
    assert_true(ch_run_until(&loop, batch_done, &bt, 1000));
    assert_int_equal(l.status, THUE_CLUSTER_EDOWN);
    ra = thue_cluster_rebuilds(a);
    rb = thue_cluster_rebuilds(b);
    ch_server_start(&srv, srv.port);
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    wa.more_than = ra;
    wb.more_than = rb;
    assert_true(ch_run_until(&loop, has_rebuilt, &wa, 3000));
    assert_true(ch_run_until(&loop, has_rebuilt, &wb, 3000));
    flush(&loop, a);
    flush(&loop, b);
    check_model(&loop, b, model, MANY);
    assert_int_equal(sa.ups, 2);
    assert_int_equal(sa.downs, 1);
    thue_cluster_free(a);
    thue_cluster_free(b);
    ch_loop_close(&loop);
    ch_server_stop(&srv);
}

/* ---- sessions ------------------------------------------------------------------------- */

typedef struct sess {
    int calls, status;
    bool found;
    thue_cluster_session s;
} sess;

static void on_sess(void *data, int status, const thue_cluster_session *s)
{
    sess *q = data;
    q->calls++;
    q->status = status;
    q->found = s != NULL;
    if (s)
        q->s = *s;
}

static void on_done(void *data, int status)
{
    int *calls = data;
    calls[0]++;
    calls[1] = status;
}

static bool sess_done(void *data)
{
    return ((sess *)data)->calls > 0;
}

static bool done_done(void *data)
{
    return ((int *)data)[0] > 0;
}

static void get(uv_loop_t *loop, thue_cluster *c, const char *token, sess *q)
{
    memset(q, 0, sizeof *q);
    assert_int_equal(thue_cluster_session_get(c, token, on_sess, q), 0);
    assert_true(ch_run_until(loop, sess_done, q, 5000));
}

static void test_cluster_sessions(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "sess");
    ch_state sa = {0, 0, false}, sb = {0, 0, false};
    thue_cluster *a = node_new(&loop, ch_redis_url(), "n1", prefix, &sa);
    thue_cluster *b = node_new(&loop, ch_redis_url(), "n2", prefix, &sb);
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    thue_cluster_session s = {"n1", "Zoë \"Z\" 7", 42, false};
    int done[2] = {0, 0};
    assert_int_equal(thue_cluster_session_put(a, "tok-1", &s, 10000, on_done, done), 0);
    assert_true(ch_run_until(&loop, done_done, done, 5000));
    assert_int_equal(done[1], 0);
    thue_cluster_session guest = {"n1", "guest", 0, false};
    memset(done, 0, sizeof done);
    assert_int_equal(thue_cluster_session_put(a, "tok-2", &guest, 150, on_done, done), 0);
    assert_true(ch_run_until(&loop, done_done, done, 5000));
    sess q;
    get(&loop, b, "tok-1", &q); /* from the other node */
    assert_int_equal(q.status, 0);
    assert_true(q.found);
    assert_string_equal(q.s.node, "n1");
    assert_string_equal(q.s.name, "Zoë \"Z\" 7");
    assert_int_equal(q.s.account, 42);
    get(&loop, b, "tok-2", &q);
    assert_true(q.found);
    assert_int_equal(q.s.account, 0);
    get(&loop, b, "nope", &q);
    assert_int_equal(q.status, 0);
    assert_false(q.found);
    /* The grace period ends. */
    ch_run_for(&loop, 300);
    get(&loop, b, "tok-2", &q);
    assert_false(q.found);
    /* Deleted by the other node. */
    memset(done, 0, sizeof done);
    assert_int_equal(thue_cluster_session_delete(b, "tok-1", on_done, done), 0);
    assert_true(ch_run_until(&loop, done_done, done, 5000));
    get(&loop, a, "tok-1", &q);
    assert_false(q.found);
    /* Malformed: refused at once, no callback. */
    thue_cluster_session bad = {"N1", "x", 1, false};
    assert_int_equal(thue_cluster_session_put(a, "t", &bad, 1000, NULL, NULL), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_session_put(a, "a b", &s, 1000, NULL, NULL), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_session_put(a, "t", &s, 0, NULL, NULL), THUE_CLUSTER_EARG);
    thue_cluster_session ctl = {"n1", "a\tb", 1, false};
    assert_int_equal(thue_cluster_session_put(a, "t", &ctl, 1000, NULL, NULL), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_session_get(a, "", on_sess, &q), THUE_CLUSTER_EARG);
    thue_cluster_free(a);
    thue_cluster_free(b);
    ch_loop_close(&loop);
}

/* ---- Redis absent --------------------------------------------------------------------- */

static void test_cluster_calls_while_down(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    ch_server_stop(&srv); /* a port where nothing listens */
    uv_loop_t loop;
    uv_loop_init(&loop);
    ch_state sa = {0, 0, false};
    thue_cluster *a = node_new(&loop, srv.url, "n1", NULL, &sa);
    ch_run_for(&loop, 50);
    assert_false(thue_cluster_up(a));
    lookup l;
    memset(&l, 0, sizeof l);
    assert_int_equal(thue_cluster_room_lookup(a, "r1", on_lookup, &l), 0);
    assert_int_equal(l.calls, 0); /* never inside the call */
    sess q;
    memset(&q, 0, sizeof q);
    assert_int_equal(thue_cluster_session_get(a, "tok", on_sess, &q), 0);
    ch_run_for(&loop, 20);
    assert_int_equal(l.calls, 1);
    assert_int_equal(l.status, THUE_CLUSTER_EDOWN);
    assert_int_equal(q.calls, 1);
    assert_int_equal(q.status, THUE_CLUSTER_EDOWN);
    /* The local table works regardless. */
    assert_int_equal(thue_cluster_room_add(a, "r1"), 0);
    assert_int_equal(thue_cluster_room_count(a), 1);
    assert_int_equal(sa.ups, 0);
    /* Pending at free: answered during the call. */
    memset(&l, 0, sizeof l);
    assert_int_equal(thue_cluster_room_lookup(a, "r1", on_lookup, &l), 0);
    thue_cluster_free(a);
    assert_int_equal(l.calls, 1);
    assert_int_equal(l.status, THUE_CLUSTER_EDOWN); /* issued while down */
    ch_loop_close(&loop);
}

/* ---- the names in use ------------------------------------------------------------------- */

typedef struct claimed {
    int calls, status;
    bool free_name;
} claimed;

static void on_claim(void *data, int status, bool allowed, uint64_t retry_ms)
{
    claimed *c = data;
    c->calls++;
    c->status = status;
    c->free_name = allowed;
    assert_int_equal(retry_ms, 0);
}

static bool claims_done(void *data)
{
    claimed *c = data;
    return c[0].calls > 0 && c[1].calls > 0;
}

/* Whether Redis found name free for c (asserts the answer came, status 0). */
static bool claim(uv_loop_t *loop, thue_cluster *c, const char *name)
{
    claimed r[2] = {{0, 0, false}, {1, 0, false}}; /* (one claim: the second is done) */
    assert_int_equal(thue_cluster_name_claim(c, name, on_claim, &r[0]), 0);
    assert_true(ch_run_until(loop, claims_done, r, 5000));
    assert_int_equal(r[0].calls, 1);
    assert_int_equal(r[0].status, 0);
    return r[0].free_name;
}

static bool name_claimable(void *data)
{
    void **a = data;
    return claim(a[0], a[1], a[2]);
}

static void test_cluster_names(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "names");
    ch_state sa = {0, 0, false}, sb = {0, 0, false}, sc = {0, 0, false};
    thue_cluster *a = node_new(&loop, ch_redis_url(), "n1", prefix, &sa);
    thue_cluster *b = node_new(&loop, ch_redis_url(), "n2", prefix, &sb);
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    assert_true(wait_nodes(&loop, b, 2, 40));
    /* Malformed names and calls. */
    claimed r[2] = {{0, 0, false}, {1, 0, false}};
    assert_int_equal(thue_cluster_name_claim(a, "", on_claim, r), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_name_claim(a, "a\nb", on_claim, r), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_name_claim(a, "ann", NULL, r), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_name_add(a, "a\tb"), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_name_remove(NULL, "ann"), THUE_CLUSTER_EARG);
    /* A name registered on n1 is taken for n2, and free for n1 itself (its own set is
     * not consulted); UTF-8 keys too. */
    assert_int_equal(thue_cluster_name_add(a, "ann"), 0);
    assert_int_equal(thue_cluster_name_add(a, "ann"), 0);
    assert_int_equal(thue_cluster_name_add(a, "\xc5\x82ucja"), 0);
    assert_int_equal(thue_cluster_name_count(a), 2);
    flush(&loop, a);
    assert_false(claim(&loop, b, "ann"));
    assert_false(claim(&loop, b, "\xc5\x82ucja"));
    assert_true(claim(&loop, a, "ann"));
    /* A claim holds the name at once, before any name_add; name_remove gives it back
     * (EARG: it was not registered here, but it goes from Redis all the same). */
    assert_true(claim(&loop, b, "bob"));
    assert_false(claim(&loop, a, "bob"));
    assert_int_equal(thue_cluster_name_remove(b, "bob"), THUE_CLUSTER_EARG);
    flush(&loop, b);
    assert_true(claim(&loop, a, "bob"));
    assert_int_equal(thue_cluster_name_remove(a, "bob"), THUE_CLUSTER_EARG);
    /* Registered, then removed. */
    assert_int_equal(thue_cluster_name_add(b, "cy"), 0);
    flush(&loop, b);
    assert_false(claim(&loop, a, "cy"));
    assert_int_equal(thue_cluster_name_remove(b, "cy"), 0);
    flush(&loop, b);
    assert_true(claim(&loop, a, "cy"));
    assert_int_equal(thue_cluster_name_remove(a, "cy"), THUE_CLUSTER_EARG);
    /* Simultaneous claims of one name on two nodes: exactly one wins, every time. */
    for (int i = 0; i < 30; i++) {
        char name[32];
        snprintf(name, sizeof name, "race%d", i);
        claimed ra[2] = {{0, 0, false}, {0, 0, false}};
        assert_int_equal(thue_cluster_name_claim(a, name, on_claim, &ra[0]), 0);
        assert_int_equal(thue_cluster_name_claim(b, name, on_claim, &ra[1]), 0);
        assert_true(ch_run_until(&loop, claims_done, ra, 5000));
        assert_int_equal(ra[0].status, 0);
        assert_int_equal(ra[1].status, 0);
        assert_int_equal(ra[0].free_name + ra[1].free_name, 1);
    }
    /* Redis loses everything: each node writes its names again. */
    redisContext *rc = ch_sync(ch_redis_url());
    assert_int_equal(ch_int(rc, "SISMEMBER %snames:n1 ann", prefix), 1);
    redisReply *rep = redisCommand(rc, "FLUSHALL");
    assert_non_null(rep);
    freeReplyObject(rep);
    assert_true(wait_nodes(&loop, b, 2, 40)); /* (both heartbeats wrote their records) */
    ch_run_for(&loop, 2 * HB);
    assert_int_equal(ch_int(rc, "SISMEMBER %snames:n1 ann", prefix), 1);
    assert_int_equal(ch_int(rc, "SISMEMBER %snames:n1 \xc5\x82ucja", prefix), 1);
    assert_false(claim(&loop, b, "ann"));
    /* A node that leaves frees its names at once. */
    thue_cluster *c = node_new(&loop, ch_redis_url(), "n3", prefix, &sc);
    assert_true(ch_run_until(&loop, ch_is_up, &sc, 5000));
    assert_true(wait_nodes(&loop, b, 3, 40));
    assert_int_equal(thue_cluster_name_add(c, "dee"), 0);
    flush(&loop, c);
    assert_false(claim(&loop, b, "dee"));
    int done[2] = {0, 0};
    assert_int_equal(thue_cluster_leave(c, on_done, done), 0);
    assert_true(ch_run_until(&loop, done_done, done, 5000));
    assert_int_equal(ch_int(rc, "EXISTS %snames:n3", prefix), 0);
    assert_true(claim(&loop, b, "dee"));
    assert_int_equal(thue_cluster_name_remove(b, "dee"), THUE_CLUSTER_EARG);
    thue_cluster_free(c);
    /* A node that dies: its names are free once its record expires (3 heartbeats). */
    thue_cluster_free(a);
    void *args[] = {&loop, b, "ann"};
    assert_true(ch_run_until(&loop, name_claimable, args, 20 * HB));
    ch_run_for(&loop, HB);
    assert_int_equal(ch_int(rc, "EXISTS %snames:n1", prefix), 0);
    redisFree(rc);
    thue_cluster_free(b);
    ch_loop_close(&loop);
}

/* ---- the bot seat counts ------------------------------------------------------------- */

typedef struct taken {
    int calls, status;
    bool allowed;
    uint64_t which;
} taken;

static void on_take(void *data, int status, bool allowed, uint64_t which)
{
    taken *t = data;
    t->calls++;
    t->status = status;
    t->allowed = allowed;
    t->which = which;
}

static bool takes_done(void *data)
{
    taken *t = data;
    return t[0].calls > 0 && t[1].calls > 0;
}

/* One take through c: 0 allowed, else which limit refused it (1 or 2). */
static int take(uv_loop_t *loop, thue_cluster *c, const char *f1, long m1, const char *f2, long m2)
{
    taken t[2] = {{0, 0, false, 0}, {1, 0, false, 0}};
    assert_int_equal(thue_cluster_count_take(c, f1, m1, f2, m2, on_take, &t[0]), 0);
    assert_true(ch_run_until(loop, takes_done, t, 5000));
    assert_int_equal(t[0].calls, 1);
    assert_int_equal(t[0].status, 0);
    return t[0].allowed ? 0 : (int)t[0].which;
}

/* Whether one more seat of acct:1 fits under the limit 3 through args[1]. */
static bool one_more_fits(void *data)
{
    void **args = data;
    return take(args[0], args[1], "by:acct:1", 3, NULL, 0) == 0;
}

static void test_cluster_bot_counts(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "bots");
    ch_state sa = {0, 0, false}, sb = {0, 0, false};
    thue_cluster *a = node_new(&loop, ch_redis_url(), "n1", prefix, &sa);
    thue_cluster *b = node_new(&loop, ch_redis_url(), "n2", prefix, &sb);
    assert_true(ch_run_until(&loop, ch_is_up, &sa, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &sb, 5000));
    assert_true(wait_nodes(&loop, b, 2, 40));
    taken t[2];
    assert_int_equal(thue_cluster_count_take(a, "", 1, NULL, 0, on_take, t), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_count_take(a, "by:x", 0, NULL, 0, on_take, t), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_count_take(a, "by:x", 1, "at:\n", 1, on_take, t),
                     THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_count_add(a, "by:x", 0), THUE_CLUSTER_EARG);
    /* Counts on two nodes add up: the owner's limit 4 (three on n1, then n2's fourth). */
    for (int i = 0; i < 3; i++)
        assert_int_equal(thue_cluster_count_add(a, "by:acct:1", 1), 0);
    assert_int_equal(thue_cluster_count_get(a, "by:acct:1"), 3);
    flush(&loop, a);
    assert_int_equal(take(&loop, b, "by:acct:1", 4, "at:ip:10.0.0.1", 8), 0);
    assert_int_equal(thue_cluster_count_get(b, "by:acct:1"), 1); /* taken: counted already */
    assert_int_equal(thue_cluster_count_get(b, "at:ip:10.0.0.1"), 1);
    assert_int_equal(take(&loop, b, "by:acct:1", 4, "at:ip:10.0.0.1", 8), 1);
    assert_int_equal(take(&loop, a, "by:acct:1", 4, NULL, 0), 1);
    /* The address's limit is the second field: refused as 2, nothing taken. */
    assert_int_equal(take(&loop, a, "by:acct:2", 4, "at:ip:10.0.0.1", 1), 2);
    assert_int_equal(thue_cluster_count_get(a, "by:acct:2"), 0);
    /* One given back on n1: one more fits, on either node. */
    assert_int_equal(thue_cluster_count_add(a, "by:acct:1", -1), 0);
    assert_int_equal(thue_cluster_count_get(a, "by:acct:1"), 2);
    flush(&loop, a);
    assert_int_equal(take(&loop, a, "by:acct:1", 4, NULL, 0), 0);
    assert_int_equal(take(&loop, b, "by:acct:1", 4, NULL, 0), 1);
    /* Two nodes after the last seat at once: exactly one gets it, every time. */
    for (int i = 0; i < 30; i++) {
        char f[32];
        snprintf(f, sizeof f, "by:race%d", i);
        assert_int_equal(thue_cluster_count_add(a, f, 2), 0);
        flush(&loop, a);
        taken r[2] = {{0, 0, false, 0}, {0, 0, false, 0}};
        assert_int_equal(thue_cluster_count_take(a, f, 3, NULL, 0, on_take, &r[0]), 0);
        assert_int_equal(thue_cluster_count_take(b, f, 3, NULL, 0, on_take, &r[1]), 0);
        assert_true(ch_run_until(&loop, takes_done, r, 5000));
        assert_int_equal(r[0].status, 0);
        assert_int_equal(r[1].status, 0);
        assert_int_equal(r[0].allowed + r[1].allowed, 1);
        assert_int_equal(thue_cluster_count_get(a, f) + thue_cluster_count_get(b, f), 3);
    }
    /* Redis loses everything: each node writes its counts again. */
    redisContext *rc = ch_sync(ch_redis_url());
    assert_int_equal(ch_int(rc, "HINCRBY %sbots:n1 by:acct:1 0", prefix), 3);
    redisReply *rep = redisCommand(rc, "FLUSHALL");
    assert_non_null(rep);
    freeReplyObject(rep);
    assert_true(wait_nodes(&loop, b, 2, 40));
    ch_run_for(&loop, 2 * HB);
    assert_int_equal(ch_int(rc, "HINCRBY %sbots:n1 by:acct:1 0", prefix), 3);
    assert_int_equal(ch_int(rc, "HINCRBY %sbots:n2 by:acct:1 0", prefix), 1);
    assert_int_equal(take(&loop, b, "by:acct:1", 4, NULL, 0), 1);
    /* A count back at 0 leaves the hash. */
    assert_int_equal(thue_cluster_count_add(b, "at:ip:10.0.0.1", -1), 0);
    flush(&loop, b);
    assert_int_equal(ch_int(rc, "HEXISTS %sbots:n2 at:ip:10.0.0.1", prefix), 0);
    /* A node that dies: its counts are gone once its record expires. */
    thue_cluster_free(a);
    void *args[] = {&loop, b};
    assert_true(ch_run_until(&loop, one_more_fits, args, 20 * HB));
    redisFree(rc);
    thue_cluster_free(b);
    ch_loop_close(&loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cluster_config_errors),
        cmocka_unit_test(test_cluster_nodes),
        cmocka_unit_test(test_cluster_directory_model),
        cmocka_unit_test(test_cluster_dead_node_rooms_vanish),
        cmocka_unit_test(test_cluster_leave),
        cmocka_unit_test(test_cluster_directory_rebuilt),
        cmocka_unit_test(test_cluster_sessions),
        cmocka_unit_test(test_cluster_calls_while_down),
        cmocka_unit_test(test_cluster_names),
        cmocka_unit_test(test_cluster_bot_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
