/*
 * test_cluster_redis.c: the asynchronous Redis connection (server/cluster/redis.h):
 * addresses, commands and their callbacks, commands while down failing at once (and
 * never inside the call), the reconnect after Redis dies and comes back on the same
 * port, the watchdog that drops a connection whose commands get no answer, and a
 * subscriber that subscribes again after a reconnect. Against the test Redis
 * (THUE_TEST_REDIS) and against private redis-servers that the tests kill.
 */
#include "cluster_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_cluster_redis_urls(void **state)
{
    (void)state;
    char host[THUE_REDIS_HOST_MAX], err[256];
    int port = -1;
    assert_int_equal(thue_redis_parse_url("redis://127.0.0.1:6380", host, &port, err, sizeof err),
                     0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 6380);
    assert_int_equal(thue_redis_parse_url("redis://cache.example/", host, &port, err, sizeof err),
                     0);
    assert_string_equal(host, "cache.example");
    assert_int_equal(port, 6379);
    assert_int_equal(thue_redis_parse_url("redis://[::1]:7000", host, &port, err, sizeof err), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(port, 7000);
    assert_int_equal(thue_redis_parse_url("unix:/run/redis.sock", host, &port, err, sizeof err), 0);
    assert_string_equal(host, "/run/redis.sock");
    assert_int_equal(port, 0);
    const char *bad[] = {"",
                         "127.0.0.1:6379",
                         "http://x:1",
                         "redis://",
                         "redis://:6379",
                         "redis://h:0",
                         "redis://h:65536",
                         "redis://h:12x",
                         "redis://h/3",
                         "redis://user@h:1",
                         "redis://[::1",
                         "unix:relative.sock",
                         "unix:"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(thue_redis_parse_url(bad[i], host, &port, err, sizeof err),
                         THUE_CLUSTER_EURL);
        assert_true(strlen(err) > 10);
    }
    /* A bad address makes no connection, with the reason. */
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_redis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = "tcp://x";
    assert_null(thue_redis_new(&loop, &cfg, err, sizeof err));
    assert_non_null(strstr(err, "tcp://x"));
    ch_loop_close(&loop);
}

typedef struct reply_rec {
    int calls, status;
    int type;
    long long integer;
    char str[256];
    bool in_call; /* set around the issuing call: a callback inside it is a bug */
    bool ran_inside;
} reply_rec;

static void on_reply(thue_redis *r, int status, const redisReply *reply, const char *err,
                     void *data)
{
    (void)r;
    reply_rec *q = data;
    q->calls++;
    q->status = status;
    q->ran_inside |= q->in_call;
    if (reply) {
        q->type = reply->type;
        q->integer = reply->integer;
        snprintf(q->str, sizeof q->str, "%s", reply->str ? reply->str : "");
    } else {
        q->type = -1;
        snprintf(q->str, sizeof q->str, "%s", err ? err : "");
    }
}

static bool answered(void *data)
{
    return ((reply_rec *)data)->calls > 0;
}

static void command(thue_redis *r, reply_rec *q, int argc, const char *const *argv)
{
    memset(q, 0, sizeof *q);
    q->in_call = true;
    assert_int_equal(thue_redis_command(r, on_reply, q, argc, argv, NULL), 0);
    q->in_call = false;
}

typedef struct rstate {
    int ups, downs;
    bool up;
} rstate;

static void on_rstate(thue_redis *r, bool up, void *data)
{
    (void)r;
    rstate *s = data;
    s->up = up;
    if (up)
        s->ups++;
    else
        s->downs++;
}

static bool r_up(void *data)
{
    return ((rstate *)data)->up;
}

static bool r_down(void *data)
{
    return !((rstate *)data)->up;
}

static void test_cluster_redis_commands(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    rstate st = {0, 0, false};
    thue_redis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = ch_redis_url();
    cfg.on_state = on_rstate;
    cfg.data = &st;
    char err[256];
    thue_redis *r = thue_redis_new(&loop, &cfg, err, sizeof err);
    assert_non_null(r);
    assert_false(thue_redis_up(r));
    assert_true(ch_run_until(&loop, r_up, &st, 5000));
    assert_true(thue_redis_up(r));

    char prefix[64], k[128];
    ch_prefix(prefix, "cmd");
    snprintf(k, sizeof k, "%sx", prefix);
    reply_rec q;
    const char *set[] = {"SET", k, "v\0w", "PX", "5000"};
    size_t lens[] = {3, strlen(k), 3, 2, 4};
    memset(&q, 0, sizeof q);
    assert_int_equal(thue_redis_command(r, on_reply, &q, 5, set, lens), 0);
    assert_int_equal(q.calls, 0);
    assert_true(ch_run_until(&loop, answered, &q, 5000));
    assert_int_equal(q.status, 0);
    const char *strlen_cmd[] = {"STRLEN", k};
    command(r, &q, 2, strlen_cmd);
    assert_true(ch_run_until(&loop, answered, &q, 5000));
    assert_int_equal(q.type, REDIS_REPLY_INTEGER);
    assert_int_equal(q.integer, 3); /* the binary argument went whole */
    /* An error answer of Redis: EREPLY with its text. */
    const char *bad[] = {"INCR", k};
    command(r, &q, 2, bad);
    assert_true(ch_run_until(&loop, answered, &q, 5000));
    assert_int_equal(q.status, THUE_CLUSTER_EREPLY);
    assert_non_null(strstr(q.str, "not an integer"));
    assert_int_equal(q.calls, 1);
    assert_false(q.ran_inside);
    /* Bad calls: no callback ever. */
    assert_int_equal(thue_redis_command(r, on_reply, &q, 0, set, NULL), THUE_CLUSTER_ECONFIG);
    /* Pending commands hear ECLOSED when the connection is freed. */
    const char *ping[] = {"PING"};
    command(r, &q, 1, ping);
    thue_redis_free(r);
    assert_int_equal(q.calls, 1);
    assert_int_equal(q.status, THUE_CLUSTER_ECLOSED);
    ch_loop_close(&loop);
}

/* Redis dies: the state goes down, commands fail at once (on the next turn, never
 * inside the call), nothing queues; Redis comes back on the same port: the connection
 * follows within the backoff. */
static void test_cluster_redis_down_and_back(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    rstate st = {0, 0, false};
    thue_redis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = srv.url;
    cfg.on_state = on_rstate;
    cfg.data = &st;
    char err[256];
    thue_redis *r = thue_redis_new(&loop, &cfg, err, sizeof err);
    assert_non_null(r);
    assert_true(ch_run_until(&loop, r_up, &st, 5000));
    assert_int_equal(st.ups, 1);

    ch_server_stop(&srv);
    assert_true(ch_run_until(&loop, r_down, &st, 5000));
    assert_int_equal(st.downs, 1);
    reply_rec q[20];
    const char *ping[] = {"PING"};
    for (int i = 0; i < 20; i++)
        command(r, &q[i], 1, ping);
    for (int i = 0; i < 20; i++)
        assert_int_equal(q[i].calls, 0);
    ch_run_for(&loop, 20);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(q[i].calls, 1);
        assert_int_equal(q[i].status, THUE_CLUSTER_EDOWN);
        assert_string_equal(q[i].str, "redis is down");
        assert_false(q[i].ran_inside);
    }
    /* Down for a while: the backoff grows to its cap (2 s) and no further. */
    ch_run_for(&loop, 1500);
    ch_server_start(&srv, srv.port);
    assert_true(ch_run_until(&loop, r_up, &st, 4000));
    assert_int_equal(st.ups, 2);
    command(r, &q[0], 1, ping);
    assert_true(ch_run_until(&loop, answered, &q[0], 5000));
    assert_int_equal(q[0].status, 0);
    assert_string_equal(q[0].str, "PONG");

    /* A drop (the network failing): down, then up again by itself. */
    command(r, &q[1], 1, ping);
    thue_redis_drop(r);
    assert_false(st.up);
    assert_int_equal(q[1].calls, 1);
    assert_int_equal(q[1].status, THUE_CLUSTER_ELOST);
    assert_true(ch_run_until(&loop, r_up, &st, 4000));
    assert_int_equal(st.ups, 3);
    assert_int_equal(st.downs, 2);
    thue_redis_free(r);
    ch_loop_close(&loop);
    ch_server_stop(&srv);
}

/* A Redis that hangs: the commands get no answer for command_timeout_ms, so the
 * connection is dropped, they fail with ELOST, and it comes back. */
static void test_cluster_redis_watchdog(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    rstate st = {0, 0, false};
    thue_redis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = srv.url;
    cfg.on_state = on_rstate;
    cfg.data = &st;
    cfg.command_timeout_ms = 300;
    char err[256];
    thue_redis *r = thue_redis_new(&loop, &cfg, err, sizeof err);
    assert_non_null(r);
    assert_true(ch_run_until(&loop, r_up, &st, 5000));
    /* Another client pauses every client for 1.5 s. */
    redisContext *rc = ch_sync(srv.url);
    redisReply *rep = redisCommand(rc, "CLIENT PAUSE 1500");
    assert_non_null(rep);
    freeReplyObject(rep);
    reply_rec q;
    const char *ping[] = {"PING"};
    command(r, &q, 1, ping);
    assert_true(ch_run_until(&loop, answered, &q, 1200));
    assert_int_equal(q.status, THUE_CLUSTER_ELOST);
    assert_true(st.downs >= 1);
    redisFree(rc);
    ch_run_for(&loop, 1600); /* the pause is over */
    assert_true(ch_run_until(&loop, r_up, &st, 5000));
    command(r, &q, 1, ping);
    assert_true(ch_run_until(&loop, answered, &q, 5000));
    assert_int_equal(q.status, 0);
    thue_redis_free(r);
    ch_loop_close(&loop);
    ch_server_stop(&srv);
}

typedef struct inbox {
    int n;
    char channel[8][64];
    char payload[8][64];
} inbox;

typedef struct subctx {
    rstate st; /* first: on_rstate takes the context as its rstate */
    inbox *box;
} subctx;

static void on_msg(thue_redis *r, const char *channel, size_t clen, const char *payload,
                   size_t plen, void *data)
{
    (void)r;
    inbox *b = ((subctx *)data)->box;
    if (b->n < 8) {
        snprintf(b->channel[b->n], 64, "%.*s", (int)clen, channel);
        snprintf(b->payload[b->n], 64, "%.*s", (int)plen, payload);
    }
    b->n++;
}

static bool got_two(void *data)
{
    return ((inbox *)data)->n >= 2;
}

/* A subscriber is up only once every channel is confirmed, gets the messages of its
 * channels only, and subscribes again after Redis restarts. */
static void test_cluster_redis_subscriber(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    inbox box;
    memset(&box, 0, sizeof box);
    subctx ctx = {{0, 0, false}, &box};
    const char *channels[] = {"a", "b"};
    thue_redis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = srv.url;
    cfg.on_state = on_rstate;
    cfg.on_message = on_msg;
    cfg.channels = channels;
    cfg.nchannels = 2;
    cfg.data = &ctx;
    char err[256];
    thue_redis *r = thue_redis_new(&loop, &cfg, err, sizeof err);
    assert_non_null(r);
    assert_true(ch_run_until(&loop, r_up, &ctx.st, 5000));
    const char *ping[] = {"PING"};
    assert_int_equal(thue_redis_command(r, on_reply, NULL, 1, ping, NULL), THUE_CLUSTER_ECONFIG);
    for (int round = 0; round < 2; round++) {
        redisContext *rc = ch_sync(srv.url);
        assert_int_equal(ch_int(rc, "PUBLISH a one"), 1);
        assert_int_equal(ch_int(rc, "PUBLISH c none"), 0);
        assert_int_equal(ch_int(rc, "PUBLISH b two"), 1);
        redisFree(rc);
        box.n = 0;
        assert_true(ch_run_until(&loop, got_two, &box, 5000));
        ch_run_for(&loop, 50);
        assert_int_equal(box.n, 2);
        assert_string_equal(box.channel[0], "a");
        assert_string_equal(box.payload[0], "one");
        assert_string_equal(box.channel[1], "b");
        assert_string_equal(box.payload[1], "two");
        if (round == 0) { /* Redis restarts on the same port */
            ch_server_stop(&srv);
            assert_true(ch_run_until(&loop, r_down, &ctx.st, 5000));
            ch_server_start(&srv, srv.port);
            assert_true(ch_run_until(&loop, r_up, &ctx.st, 5000));
            assert_int_equal(thue_redis_ups(r), 2);
        }
    }
    thue_redis_free(r);
    ch_loop_close(&loop);
    ch_server_stop(&srv);
}

/* The backoff: 100 ms doubling to 2 s by default (to a configured cap otherwise), one
 * attempt after each wait; back to 100 ms after a connection that came up. */
typedef struct trace {
    thue_redis *r;
    unsigned n;
    unsigned waits[32];        /* the successive distinct backoffs */
    unsigned attempts_at_last; /* attempts when the last one was first seen */
} trace;

static void observe(trace *t)
{
    unsigned w = thue_redis_backoff_ms(t->r);
    if (w && (t->n == 0 || t->waits[t->n - 1] != w) && t->n < 32) {
        t->waits[t->n++] = w;
        t->attempts_at_last = thue_redis_attempts(t->r);
    }
}

static void test_cluster_redis_backoff(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    ch_server_stop(&srv); /* nothing listens there now */
    uv_loop_t loop;
    uv_loop_init(&loop);
    rstate st = {0, 0, false};
    thue_redis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = srv.url;
    cfg.on_state = on_rstate;
    cfg.data = &st;
    char err[256];
    trace def, capped;
    memset(&def, 0, sizeof def);
    memset(&capped, 0, sizeof capped);
    def.r = thue_redis_new(&loop, &cfg, err, sizeof err);
    cfg.backoff_max_ms = 300;
    capped.r = thue_redis_new(&loop, &cfg, err, sizeof err);
    assert_true(def.r && capped.r);
    for (int turns = 0; turns < 2000 && def.n < 6; turns++) {
        ch_run_for(&loop, 5);
        observe(&def);
        observe(&capped);
    }
    /* One attempt after each wait: 100, 200, 400, 800, 1600, then 2000 for ever. */
    unsigned want[] = {100, 200, 400, 800, 1600, 2000};
    assert_int_equal(def.n, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(def.waits[i], want[i]);
    assert_in_range(def.attempts_at_last, 6, 7);
    /* Capped at 300: 100, 200, then 300 however long (3 s: several attempts). */
    unsigned want_capped[] = {100, 200, 300};
    assert_int_equal(capped.n, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(capped.waits[i], want_capped[i]);
    assert_true(thue_redis_attempts(capped.r) >= 8);
    assert_int_equal(st.ups, 0);
    /* Up, then lost: the next wait is 100 ms again. */
    ch_server_start(&srv, srv.port);
    assert_true(ch_run_until(&loop, r_up, &st, 5000));
    ch_server_stop(&srv);
    assert_true(ch_run_until(&loop, r_down, &st, 5000));
    ch_run_for(&loop, 20);
    assert_int_equal(thue_redis_backoff_ms(capped.r), 100);
    thue_redis_free(def.r);
    thue_redis_free(capped.r);
    ch_loop_close(&loop);
}

/* A host name goes through the resolver (the loop's, not hiredis's blocking one), and
 * every address it gives is tried in turn ("localhost" may give ::1 first). */
static void test_cluster_redis_host_name(void **state)
{
    (void)state;
    char host[THUE_REDIS_HOST_MAX], err[256], url[300];
    int port;
    assert_int_equal(thue_redis_parse_url(ch_redis_url(), host, &port, err, sizeof err), 0);
    snprintf(url, sizeof url, "redis://localhost:%d", port);
    uv_loop_t loop;
    uv_loop_init(&loop);
    rstate st = {0, 0, false};
    thue_redis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = url;
    cfg.on_state = on_rstate;
    cfg.data = &st;
    thue_redis *r = thue_redis_new(&loop, &cfg, err, sizeof err);
    assert_non_null(r);
    assert_true(ch_run_until(&loop, r_up, &st, 5000));
    reply_rec q;
    const char *ping[] = {"PING"};
    command(r, &q, 1, ping);
    assert_true(ch_run_until(&loop, answered, &q, 5000));
    assert_string_equal(q.str, "PONG");
    thue_redis_free(r);
    ch_loop_close(&loop);
}

/* A Redis with a password: without it (or with a wrong one) the connection never comes
 * up and keeps retrying; with it, it does. */
static void test_cluster_redis_password(void **state)
{
    (void)state;
    ch_server srv;
    ch_server_start(&srv, 0);
    redisContext *rc = ch_sync(srv.url);
    redisReply *rep = redisCommand(rc, "CONFIG SET requirepass s3cret");
    assert_non_null(rep);
    assert_int_equal(rep->type, REDIS_REPLY_STATUS);
    freeReplyObject(rep);
    redisFree(rc);
    uv_loop_t loop;
    uv_loop_init(&loop);
    rstate none = {0, 0, false}, wrong = {0, 0, false}, right = {0, 0, false};
    thue_redis_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = srv.url;
    cfg.on_state = on_rstate;
    char err[256];
    cfg.data = &none;
    thue_redis *r0 = thue_redis_new(&loop, &cfg, err, sizeof err);
    cfg.data = &wrong;
    cfg.password = "guess";
    thue_redis *r1 = thue_redis_new(&loop, &cfg, err, sizeof err);
    cfg.data = &right;
    cfg.password = "s3cret";
    thue_redis *r2 = thue_redis_new(&loop, &cfg, err, sizeof err);
    assert_true(r0 && r1 && r2);
    assert_true(ch_run_until(&loop, r_up, &right, 5000));
    reply_rec q;
    const char *ping[] = {"PING"};
    command(r2, &q, 1, ping);
    assert_true(ch_run_until(&loop, answered, &q, 5000));
    assert_string_equal(q.str, "PONG");
    ch_run_for(&loop, 400); /* several attempts each */
    assert_int_equal(none.ups + wrong.ups, 0);
    assert_false(thue_redis_up(r0));
    assert_false(thue_redis_up(r1));
    command(r1, &q, 1, ping);
    assert_true(ch_run_until(&loop, answered, &q, 5000));
    assert_int_equal(q.status, THUE_CLUSTER_EDOWN);
    thue_redis_free(r0);
    thue_redis_free(r1);
    thue_redis_free(r2);
    ch_loop_close(&loop);
    ch_server_stop(&srv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cluster_redis_urls),
        cmocka_unit_test(test_cluster_redis_commands),
        cmocka_unit_test(test_cluster_redis_down_and_back),
        cmocka_unit_test(test_cluster_redis_watchdog),
        cmocka_unit_test(test_cluster_redis_subscriber),
        cmocka_unit_test(test_cluster_redis_password),
        cmocka_unit_test(test_cluster_redis_backoff),
        cmocka_unit_test(test_cluster_redis_host_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
