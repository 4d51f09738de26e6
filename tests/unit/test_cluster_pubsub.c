/*
 * test_cluster_pubsub.c: pub/sub between nodes and the shared limits of
 * server/cluster/cluster.h: a broadcast reaches every other node (not its sender), a
 * message reaches its node only, in order, payloads whole; the shared token bucket
 * against quota.h's local limiter (the same answers for the same takes, from two nodes),
 * many takes at once never letting more than the burst through, refill after retry_ms;
 * both while Redis is down (THUE_CLUSTER_EDOWN, so the caller falls back).
 */
#include "cluster_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "quota.h"

#define HB 100

typedef struct msg {
    char from[THUE_CLUSTER_NODE_MAX];
    char *payload;
    size_t len;
} msg;

typedef struct tnode {
    thue_cluster *c;
    ch_state st;
    int nb, nm;
    msg b[64], m[64];
} tnode;

static void keep(msg *m, const char *from, const char *payload, size_t len)
{
    snprintf(m->from, sizeof m->from, "%s", from);
    m->payload = malloc(len + 1);
    assert_non_null(m->payload);
    memcpy(m->payload, payload, len);
    m->payload[len] = '\0';
    m->len = len;
}

static void on_broadcast(void *data, const char *from, const char *payload, size_t len)
{
    tnode *n = data;
    assert_true(n->nb < 64);
    keep(&n->b[n->nb++], from, payload, len);
}

static void on_message(void *data, const char *from, const char *payload, size_t len)
{
    tnode *n = data;
    assert_true(n->nm < 64);
    keep(&n->m[n->nm++], from, payload, len);
}

static void on_state(void *data, bool up)
{
    ch_on_state(&((tnode *)data)->st, up);
}

static void node_start(tnode *n, uv_loop_t *loop, const char *url, const char *name,
                       const char *prefix, bool wait_up)
{
    memset(n, 0, sizeof *n);
    thue_cluster_config cfg;
    memset(&cfg, 0, sizeof cfg);
    ch_secret(&cfg);
    cfg.url = url;
    cfg.node = name;
    cfg.address = "127.0.0.1:1";
    cfg.prefix = prefix;
    cfg.heartbeat_ms = HB;
    cfg.hooks.state = on_state;
    cfg.hooks.broadcast = on_broadcast;
    cfg.hooks.message = on_message;
    cfg.hooks.data = n;
    char err[256];
    n->c = thue_cluster_new(loop, &cfg, err, sizeof err);
    if (!n->c)
        fail_msg("%s", err);
    if (wait_up)
        assert_true(ch_run_until(loop, ch_is_up, &n->st, 5000));
}

static void node_stop(tnode *n)
{
    thue_cluster_free(n->c);
    for (int i = 0; i < n->nb; i++)
        free(n->b[i].payload);
    for (int i = 0; i < n->nm; i++)
        free(n->m[i].payload);
}

typedef struct sent {
    int calls, status;
    long receivers;
} sent;

static void on_sent(void *data, int status, long receivers)
{
    sent *s = data;
    s->calls++;
    s->status = status;
    s->receivers = receivers;
}

static bool sent_done(void *data)
{
    return ((sent *)data)->calls > 0;
}

typedef struct counts {
    tnode *n;
    int nb, nm; /* at least */
} counts;

static bool have(void *data)
{
    counts *c = data;
    return c->n->nb >= c->nb && c->n->nm >= c->nm;
}

static void test_cluster_pubsub_delivery(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "pubsub");
    static tnode n1, n2, n3;
    node_start(&n1, &loop, ch_redis_url(), "n1", prefix, true);
    node_start(&n2, &loop, ch_redis_url(), "n2", prefix, true);
    node_start(&n3, &loop, ch_redis_url(), "n3", prefix, true);

    const char *hello = "{\"type\":\"lobby\",\"text\":\"héllo\\nwörld\"}\n";
    sent s = {0, 0, 0};
    assert_int_equal(thue_cluster_broadcast(n1.c, hello, strlen(hello), on_sent, &s), 0);
    assert_true(ch_run_until(&loop, sent_done, &s, 5000));
    assert_int_equal(s.status, 0);
    assert_int_equal(s.receivers, 3); /* every subscriber, the sender's own included */
    counts c2 = {&n2, 1, 0}, c3 = {&n3, 1, 0};
    assert_true(ch_run_until(&loop, have, &c2, 5000));
    assert_true(ch_run_until(&loop, have, &c3, 5000));
    ch_run_for(&loop, 50);
    assert_int_equal(n1.nb, 0); /* not echoed to its sender */
    assert_int_equal(n2.nb, 1);
    assert_string_equal(n2.b[0].from, "n1");
    assert_string_equal(n2.b[0].payload, hello);
    assert_string_equal(n3.b[0].payload, hello);
    assert_int_equal(n2.nm + n3.nm + n1.nm, 0);

    /* Addressed to n2: n2's message hook only, in order. */
    for (int i = 0; i < 50; i++) {
        char text[32];
        snprintf(text, sizeof text, "move %d", i);
        assert_int_equal(thue_cluster_send(n3.c, "n2", text, strlen(text), NULL, NULL), 0);
    }
    counts m2 = {&n2, 1, 50};
    assert_true(ch_run_until(&loop, have, &m2, 5000));
    ch_run_for(&loop, 50);
    assert_int_equal(n2.nm, 50);
    for (int i = 0; i < 50; i++) {
        char text[32];
        snprintf(text, sizeof text, "move %d", i);
        assert_string_equal(n2.m[i].payload, text);
        assert_string_equal(n2.m[i].from, "n3");
    }
    assert_int_equal(n1.nm + n3.nm, 0);
    assert_int_equal(n1.nb, 0);
    assert_int_equal(n3.nb, 1); /* n1's broadcast from before */

    /* Nobody listens on n9's channel: 0 receivers, nothing stored. */
    memset(&s, 0, sizeof s);
    assert_int_equal(thue_cluster_send(n1.c, "n9", "x", 1, on_sent, &s), 0);
    assert_true(ch_run_until(&loop, sent_done, &s, 5000));
    assert_int_equal(s.status, 0);
    assert_int_equal(s.receivers, 0);

    /* The largest payload goes whole; larger, empty or with a NUL is refused. */
    size_t big = 65536;
    char *payload = malloc(big + 1);
    assert_non_null(payload);
    for (size_t i = 0; i < big + 1; i++)
        payload[i] = (char)('a' + i % 26);
    assert_int_equal(thue_cluster_send(n1.c, "n3", payload, big, NULL, NULL), 0);
    counts m3 = {&n3, 1, 1};
    assert_true(ch_run_until(&loop, have, &m3, 5000));
    assert_int_equal(n3.m[0].len, big);
    assert_memory_equal(n3.m[0].payload, payload, big);
    assert_int_equal(thue_cluster_send(n1.c, "n3", payload, big + 1, NULL, NULL),
                     THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_broadcast(n1.c, payload, 0, NULL, NULL), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_broadcast(n1.c, "a\0b", 3, NULL, NULL), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_send(n1.c, "N3", "x", 1, NULL, NULL), THUE_CLUSTER_EARG);
    free(payload);
    node_stop(&n1);
    node_stop(&n2);
    node_stop(&n3);
    ch_loop_close(&loop);
}

/* ---- shared limits -------------------------------------------------------------------- */

typedef struct took {
    int calls, status;
    bool allowed;
    uint64_t retry;
} took;

static void on_took(void *data, int status, bool allowed, uint64_t retry)
{
    took *t = data;
    t->calls++;
    t->status = status;
    t->allowed = allowed;
    t->retry = retry;
}

static bool took_done(void *data)
{
    return ((took *)data)->calls > 0;
}

static took take(uv_loop_t *loop, thue_cluster *c, const char *key, double rate, double burst)
{
    took t;
    memset(&t, 0, sizeof t);
    assert_int_equal(thue_cluster_limit_take(c, key, rate, burst, on_took, &t), 0);
    assert_true(ch_run_until(loop, took_done, &t, 5000));
    return t;
}

typedef struct many {
    took *t;
    int n;
} many;

static bool many_done(void *data)
{
    many *m = data;
    for (int i = 0; i < m->n; i++)
        if (!m->t[i].calls)
            return false;
    return true;
}

static void test_cluster_limits_shared(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "limit");
    static tnode a, b;
    node_start(&a, &loop, ch_redis_url(), "n1", prefix, true);
    node_start(&b, &loop, ch_redis_url(), "n2", prefix, true);

    /* Against quota.h's local limiter, fed the same takes of three keys from two nodes:
     * a slow refill (one token in 1000 s) keeps the test free of the clock. */
    const double rate = 0.001, burst = 4;
    thue_limiter *local = thue_limiter_new(rate, burst, 100);
    assert_non_null(local);
    const char *keys[] = {"rooms:203.0.113.7", "rooms:2001:db8:1:2::/64", "claims:198.51.100.1"};
    unsigned seed = 99;
    for (int i = 0; i < 60; i++) {
        seed = seed * 1103515245u + 12345u;
        const char *k = keys[(seed >> 8) % 3];
        took t = take(&loop, (seed >> 16) & 1 ? a.c : b.c, k, rate, burst);
        assert_int_equal(t.status, 0);
        int want = thue_limiter_take(local, k, 0, NULL);
        if (t.allowed != (want == 1))
            fail_msg("take %d of %s: shared %d, local %d", i, k, t.allowed, want);
        if (!t.allowed)
            assert_true(t.retry > 900000 && t.retry <= 1000000);
    }
    thue_limiter_free(local);

    /* Many takes at once from both nodes: exactly the burst gets through. */
    static took t[200];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 200; i++)
        assert_int_equal(
            thue_cluster_limit_take(i & 1 ? a.c : b.c, "burst", rate, 10, on_took, &t[i]), 0);
    many m = {t, 200};
    assert_true(ch_run_until(&loop, many_done, &m, 10000));
    int allowed = 0;
    for (int i = 0; i < 200; i++) {
        assert_int_equal(t[i].status, 0);
        allowed += t[i].allowed;
    }
    assert_int_equal(allowed, 10);

    /* A fast bucket refills: 20 a second, burst 2. */
    assert_true(take(&loop, a.c, "fast", 20, 2).allowed);
    assert_true(take(&loop, b.c, "fast", 20, 2).allowed);
    took no = take(&loop, a.c, "fast", 20, 2);
    assert_false(no.allowed);
    assert_true(no.retry >= 1 && no.retry <= 50);
    ch_run_for(&loop, (unsigned)no.retry + 30);
    assert_true(take(&loop, b.c, "fast", 20, 2).allowed);

    /* The bucket expires once it would be full again. */
    redisContext *rc = ch_sync(ch_redis_url());
    long long ttl = ch_int(rc, "PTTL %slim:fast", prefix);
    assert_true(ttl > 0 && ttl <= 1100 + 1000);
    redisFree(rc);

    /* Malformed: refused at once. */
    took x;
    assert_int_equal(thue_cluster_limit_take(a.c, "k", 0, 1, on_took, &x), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_limit_take(a.c, "k", 1, 0.5, on_took, &x), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_limit_take(a.c, "a b", 1, 1, on_took, &x), THUE_CLUSTER_EARG);
    assert_int_equal(thue_cluster_limit_take(a.c, "", 1, 1, on_took, &x), THUE_CLUSTER_EARG);
    node_stop(&a);
    node_stop(&b);
    ch_loop_close(&loop);
}

/* Redis down: pub/sub and limits answer EDOWN on the next turn, so the caller uses its
 * local limiter; when Redis is back, both work again. */
static void test_cluster_pubsub_limits_while_down(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    static tnode a, b;
    node_start(&a, &loop, srv.url, "n1", NULL, true);
    node_start(&b, &loop, srv.url, "n2", NULL, true);
    ch_server_stop(&srv);
    assert_true(ch_run_until(&loop, ch_is_down, &a.st, 5000));
    took t;
    memset(&t, 0, sizeof t);
    assert_int_equal(thue_cluster_limit_take(a.c, "k", 1, 1, on_took, &t), 0);
    sent s = {0, 0, 0};
    assert_int_equal(thue_cluster_broadcast(a.c, "x", 1, on_sent, &s), 0);
    assert_int_equal(t.calls + s.calls, 0);
    ch_run_for(&loop, 20);
    assert_int_equal(t.status, THUE_CLUSTER_EDOWN);
    assert_false(t.allowed);
    assert_int_equal(s.status, THUE_CLUSTER_EDOWN);
    ch_server_start(&srv, srv.port);
    assert_true(ch_run_until(&loop, ch_is_up, &a.st, 5000));
    assert_true(ch_run_until(&loop, ch_is_up, &b.st, 5000));
    assert_true(take(&loop, a.c, "k", 1, 1).allowed);
    assert_false(take(&loop, b.c, "k", 1, 1).allowed);
    assert_int_equal(thue_cluster_broadcast(a.c, "back", 4, NULL, NULL), 0);
    counts cb = {&b, 1, 0};
    assert_true(ch_run_until(&loop, have, &cb, 5000));
    assert_string_equal(b.b[0].payload, "back");
    node_stop(&a);
    node_stop(&b);
    ch_loop_close(&loop);
    ch_server_stop(&srv);
}

int main(void)
{
    if (getenv("CH_DEBUG"))
        thue_log_set_level(THUE_LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cluster_pubsub_delivery),
        cmocka_unit_test(test_cluster_limits_shared),
        cmocka_unit_test(test_cluster_pubsub_limits_while_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
