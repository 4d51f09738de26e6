/*
 * test_cluster_security.c: issue 31, what someone who reaches Redis (with its password)
 * can no longer do to the nodes of server/cluster/cluster.h, against a real Redis:
 *   - a genuine broadcast and message are delivered, and what travels through Redis does
 *     not show the payload;
 *   - messages published straight into Redis are dropped (counted, the hooks never hear
 *     them): the old unsigned "FROM\nPAYLOAD" form, a made-up signature, one sealed with
 *     another secret, one sealed for another node's channel;
 *   - a genuine message published again (replayed) is dropped, so is one sealed with the
 *     secret but a minute old; a node that restarts (a new boot) is heard again;
 *   - a resume token is never a key or a value in Redis; its record is signed: one written
 *     by someone else, or moved from another token's key, reads as unknown;
 *   - a quick-match ticket put into a pool by someone else never pairs, and a pair
 *     published by someone else is not delivered; genuine ones still are.
 */
#define _GNU_SOURCE /* memmem */
#include "cluster_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/seal.h"
#include "log.h"

#define HB 100

typedef struct tnode {
    thue_cluster *c;
    ch_state st;
    int nb, nm, npaired;
    char b[16][256], m[16][256];
    thue_cluster_pair paired[8];
} tnode;

static void on_broadcast(void *data, const char *from, const char *payload, size_t len)
{
    tnode *n = data;
    assert_true(n->nb < 16);
    snprintf(n->b[n->nb++], 256, "%s|%.*s", from, (int)len, payload);
}

static void on_message(void *data, const char *from, const char *payload, size_t len)
{
    tnode *n = data;
    assert_true(n->nm < 16);
    snprintf(n->m[n->nm++], 256, "%s|%.*s", from, (int)len, payload);
}

static void on_paired(void *data, const thue_cluster_pair *pair)
{
    tnode *n = data;
    assert_true(n->npaired < 8);
    n->paired[n->npaired++] = *pair;
}

static void on_state(void *data, bool up)
{
    ch_on_state(&((tnode *)data)->st, up);
}

static void node_start(tnode *n, uv_loop_t *loop, const char *name, const char *prefix)
{
    memset(n, 0, sizeof *n);
    thue_cluster_config cfg;
    memset(&cfg, 0, sizeof cfg);
    ch_secret(&cfg);
    cfg.url = ch_redis_url();
    cfg.node = name;
    cfg.address = "127.0.0.1:1";
    cfg.prefix = prefix;
    cfg.heartbeat_ms = HB;
    cfg.hooks.state = on_state;
    cfg.hooks.broadcast = on_broadcast;
    cfg.hooks.message = on_message;
    cfg.hooks.paired = on_paired;
    cfg.hooks.data = n;
    char err[256];
    n->c = thue_cluster_new(loop, &cfg, err, sizeof err);
    if (!n->c)
        fail_msg("%s", err);
    assert_true(ch_run_until(loop, ch_is_up, &n->st, 5000));
}

static unsigned long drops(tnode *n, int reason)
{
    return thue_cluster_drops(n->c, reason);
}

/* ---- a spy: what travels on the channels, byte for byte -------------------------------- */

typedef struct spied {
    char channel[128];
    char *bytes;
    size_t len;
} spied;

typedef struct spy {
    thue_redis *r;
    bool up;
    int n;
    spied got[16];
} spy;

static void spy_state(thue_redis *r, bool up, void *data)
{
    (void)r;
    ((spy *)data)->up = up;
}

static void spy_message(thue_redis *r, const char *channel, size_t channel_len,
                        const char *payload, size_t payload_len, void *data)
{
    (void)r;
    spy *s = data;
    assert_true(s->n < 16);
    spied *g = &s->got[s->n++];
    snprintf(g->channel, sizeof g->channel, "%.*s", (int)channel_len, channel);
    g->bytes = malloc(payload_len + 1);
    assert_non_null(g->bytes);
    memcpy(g->bytes, payload, payload_len);
    g->bytes[payload_len] = '\0';
    g->len = payload_len;
}

static bool spy_up(void *data)
{
    return ((spy *)data)->up;
}

static void spy_start(spy *s, uv_loop_t *loop, const char *prefix)
{
    memset(s, 0, sizeof *s);
    char all[128], n2[128];
    snprintf(all, sizeof all, "%sch:all", prefix);
    snprintf(n2, sizeof n2, "%sch:node:n2", prefix);
    const char *channels[] = {all, n2};
    thue_redis_config rc;
    memset(&rc, 0, sizeof rc);
    rc.url = ch_redis_url();
    rc.channels = channels;
    rc.nchannels = 2;
    rc.on_state = spy_state;
    rc.on_message = spy_message;
    rc.data = s;
    char err[256];
    s->r = thue_redis_new(loop, &rc, err, sizeof err);
    if (!s->r)
        fail_msg("%s", err);
    assert_true(ch_run_until(loop, spy_up, s, 5000));
}

static void spy_stop(spy *s)
{
    thue_redis_free(s->r);
    for (int i = 0; i < s->n; i++)
        free(s->got[i].bytes);
}

/* PUBLISH channel bytes, as an attacker with Redis's password would: the receivers. */
static long long publish_raw(const char *channel, const char *bytes, size_t len)
{
    redisContext *rc = ch_sync(ch_redis_url());
    redisReply *r = redisCommand(rc, "PUBLISH %s %b", channel, bytes, len);
    assert_non_null(r);
    assert_int_equal(r->type, REDIS_REPLY_INTEGER);
    long long n = r->integer;
    freeReplyObject(r);
    redisFree(rc);
    return n;
}

typedef struct want {
    tnode *n;
    int reason;
    unsigned long at_least;
} want;

static bool dropped_enough(void *data)
{
    want *w = data;
    return drops(w->n, w->reason) >= w->at_least;
}

static void wait_drops(uv_loop_t *loop, tnode *n, int reason, unsigned long count)
{
    want w = {n, reason, count};
    if (!ch_run_until(loop, dropped_enough, &w, 5000))
        fail_msg("reason %d: %lu drops, wanted %lu", reason, drops(n, reason), count);
}

typedef struct heard {
    tnode *n;
    int nb, nm;
} heard;

static bool heard_enough(void *data)
{
    heard *h = data;
    return h->n->nb >= h->nb && h->n->nm >= h->nm;
}

/* ---- messages ----------------------------------------------------------------------------- */

static void test_security_sealed_delivery(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "seal");
    static tnode n1, n2;
    static spy sp;
    node_start(&n1, &loop, "n1", prefix);
    node_start(&n2, &loop, "n2", prefix);
    spy_start(&sp, &loop, prefix);

    const char *seat = "{\"t\":\"seat\",\"name\":\"ann\",\"room\":\"r1\",\"resume\":"
                       "\"TOKENabcdefTOKENabcdefTOKENabcdef\"}";
    assert_int_equal(thue_cluster_broadcast(n1.c, seat, strlen(seat), NULL, NULL), 0);
    assert_int_equal(thue_cluster_send(n1.c, "n2", "to n2 only", 10, NULL, NULL), 0);
    heard h = {&n2, 1, 1};
    assert_true(ch_run_until(&loop, heard_enough, &h, 5000));
    char expect[300];
    snprintf(expect, sizeof expect, "n1|%s", seat);
    assert_string_equal(n2.b[0], expect);
    assert_string_equal(n2.m[0], "n1|to n2 only");
    ch_run_for(&loop, 50);
    assert_int_equal(n1.nb + n1.nm, 0); /* not echoed to its sender */
    for (int r = 0; r < THUE_CLUSTER_DROP_REASONS; r++)
        assert_int_equal(drops(&n2, r) + drops(&n1, r), 0);

    /* What Redis carried: neither the token nor the event, only a sealed message. */
    assert_int_equal(sp.n, 2);
    for (int i = 0; i < sp.n; i++) {
        assert_memory_equal(sp.got[i].bytes, "T1 n1 ", 6);
        assert_null(memmem(sp.got[i].bytes, sp.got[i].len, "TOKENabcdef", 11));
        assert_null(memmem(sp.got[i].bytes, sp.got[i].len, "seat", 4));
        assert_null(memmem(sp.got[i].bytes, sp.got[i].len, "to n2 only", 10));
    }
    spy_stop(&sp);
    thue_cluster_free(n1.c);
    thue_cluster_free(n2.c);
    ch_loop_close(&loop);
}

static void test_security_forged_dropped(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64], all[128], to_n2[128], to_n3[128];
    ch_prefix(prefix, "forged");
    snprintf(all, sizeof all, "%sch:all", prefix);
    snprintf(to_n2, sizeof to_n2, "%sch:node:n2", prefix);
    snprintf(to_n3, sizeof to_n3, "%sch:node:n3", prefix);
    static tnode n1, n2;
    node_start(&n1, &loop, "n1", prefix);
    node_start(&n2, &loop, "n2", prefix);

    /* Issue 31's forgeries in the form nodes used before: unsigned. */
    const char *rating = "n1\n{\"t\":\"rating\",\"rows\":[{\"account\":1,\"rating\":2999}]}";
    const char *seat = "n1\n{\"t\":\"seat\",\"name\":\"ann\",\"room\":\"evil\",\"resume\":\"x\"}";
    assert_int_equal(publish_raw(all, rating, strlen(rating)), 2); /* both nodes got it */
    assert_int_equal(publish_raw(to_n2, seat, strlen(seat)), 1);
    wait_drops(&loop, &n2, THUE_CLUSTER_DROP_UNSIGNED, 2);
    wait_drops(&loop, &n1, THUE_CLUSTER_DROP_UNSIGNED, 1);

    /* A sealed-looking message with a made-up HMAC. */
    char forged[400];
    int fl = snprintf(forged, sizeof forged,
                      "T1 n1 0123456789abcdef0123456789abcdef 1 %llu %s\n%s",
                      (unsigned long long)thue_seal_now_ms(),
                      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
                      "{\"t\":\"account\",\"id\":99,\"name\":\"mallory\"}");
    publish_raw(all, forged, (size_t)fl);
    /* Sealed with another cluster's secret. */
    thue_seal_keys other, ours;
    assert_int_equal(thue_seal_keys_derive(&other, ch_other_secret_bytes,
                                           sizeof ch_other_secret_bytes),
                     0);
    assert_int_equal(thue_seal_keys_derive(&ours, ch_secret_bytes, sizeof ch_secret_bytes), 0);
    unsigned char boot[THUE_SEAL_BOOT];
    thue_seal_boot_new(boot);
    const char *acct = "{\"t\":\"account\",\"id\":99,\"name\":\"mallory\"}";
    char msg[THUE_SEAL_HEADER_MAX + 256];
    size_t ml;
    assert_int_equal(thue_seal_message(&other, to_n2, "n1", boot, 1, thue_seal_now_ms(), acct,
                                       strlen(acct), msg, &ml),
                     0);
    publish_raw(to_n2, msg, ml);
    /* Genuinely sealed, but for n3: published on n2's channel instead. */
    assert_int_equal(thue_seal_message(&ours, to_n3, "n1", boot, 2, thue_seal_now_ms(), acct,
                                       strlen(acct), msg, &ml),
                     0);
    publish_raw(to_n2, msg, ml);
    /* And a broadcast whose sender name was changed from n1 to n3. */
    assert_int_equal(thue_seal_message(&ours, all, "n1", boot, 3, thue_seal_now_ms(), acct,
                                       strlen(acct), msg, &ml),
                     0);
    msg[4] = '3';
    publish_raw(all, msg, ml);
    wait_drops(&loop, &n2, THUE_CLUSTER_DROP_BAD_SIGNATURE, 4);
    ch_run_for(&loop, 100);
    assert_int_equal(drops(&n2, THUE_CLUSTER_DROP_BAD_SIGNATURE), 4);
    assert_int_equal(drops(&n2, THUE_CLUSTER_DROP_UNSIGNED), 2);
    assert_int_equal(drops(&n2, THUE_CLUSTER_DROP_REPLAYED), 0);
    /* n1 heard the broadcasts: the forged one, and "n3"'s (not its own: it verifies not). */
    assert_int_equal(drops(&n1, THUE_CLUSTER_DROP_BAD_SIGNATURE), 2);
    /* Nothing reached a hook. */
    assert_int_equal(n2.nb + n2.nm + n1.nb + n1.nm, 0);

    /* The nodes still hear each other. */
    assert_int_equal(thue_cluster_broadcast(n1.c, "{\"t\":\"real\"}", 12, NULL, NULL), 0);
    heard h = {&n2, 1, 0};
    assert_true(ch_run_until(&loop, heard_enough, &h, 5000));
    assert_string_equal(n2.b[0], "n1|{\"t\":\"real\"}");
    thue_seal_keys_wipe(&other);
    thue_seal_keys_wipe(&ours);
    thue_cluster_free(n1.c);
    thue_cluster_free(n2.c);
    ch_loop_close(&loop);
}

static void test_security_replay_dropped(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64], all[128];
    ch_prefix(prefix, "replay");
    snprintf(all, sizeof all, "%sch:all", prefix);
    static tnode n1, n2;
    static spy sp;
    node_start(&n1, &loop, "n1", prefix);
    node_start(&n2, &loop, "n2", prefix);
    spy_start(&sp, &loop, prefix);

    const char *rating = "{\"t\":\"rating\",\"rows\":[]}";
    assert_int_equal(thue_cluster_broadcast(n1.c, rating, strlen(rating), NULL, NULL), 0);
    assert_int_equal(thue_cluster_send(n1.c, "n2", "{\"t\":\"match\"}", 13, NULL, NULL), 0);
    heard h = {&n2, 1, 1};
    assert_true(ch_run_until(&loop, heard_enough, &h, 5000));
    for (int i = 0; i < 50 && sp.n < 2; i++)
        ch_run_for(&loop, 10);
    assert_int_equal(sp.n, 2);

    /* Published again, byte for byte: dropped, twice over. */
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 2; i++)
            assert_true(publish_raw(sp.got[i].channel, sp.got[i].bytes, sp.got[i].len) >= 1);
    wait_drops(&loop, &n2, THUE_CLUSTER_DROP_REPLAYED, 4);
    ch_run_for(&loop, 100);
    assert_int_equal(n2.nb, 1);
    assert_int_equal(n2.nm, 1);

    /* Sealed with the secret, but two minutes old (captured long ago): dropped. */
    thue_seal_keys ours;
    assert_int_equal(thue_seal_keys_derive(&ours, ch_secret_bytes, sizeof ch_secret_bytes), 0);
    unsigned char boot[THUE_SEAL_BOOT];
    thue_seal_boot_new(boot);
    char msg[THUE_SEAL_HEADER_MAX + 64];
    size_t ml;
    assert_int_equal(thue_seal_message(&ours, all, "n3", boot, 1, thue_seal_now_ms() - 120000,
                                       rating, strlen(rating), msg, &ml),
                     0);
    publish_raw(all, msg, ml);
    wait_drops(&loop, &n2, THUE_CLUSTER_DROP_REPLAYED, 5);
    thue_seal_keys_wipe(&ours);

    /* n1 restarts (a new boot, its counter from 1 again): heard; the old boot's message
     * is still refused. */
    thue_cluster_free(n1.c);
    node_start(&n1, &loop, "n1", prefix);
    assert_int_equal(thue_cluster_broadcast(n1.c, "{\"t\":\"again\"}", 13, NULL, NULL), 0);
    h.nb = 2;
    assert_true(ch_run_until(&loop, heard_enough, &h, 5000));
    assert_string_equal(n2.b[1], "n1|{\"t\":\"again\"}");
    publish_raw(sp.got[0].channel, sp.got[0].bytes, sp.got[0].len);
    wait_drops(&loop, &n2, THUE_CLUSTER_DROP_REPLAYED, 6);
    ch_run_for(&loop, 50);
    assert_int_equal(n2.nb, 2);
    assert_int_equal(drops(&n2, THUE_CLUSTER_DROP_BAD_SIGNATURE), 0);
    spy_stop(&sp);
    thue_cluster_free(n1.c);
    thue_cluster_free(n2.c);
    ch_loop_close(&loop);
}

/* ---- sessions -------------------------------------------------------------------------- */

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

static bool sess_done(void *data)
{
    return ((sess *)data)->calls > 0;
}

static void get(uv_loop_t *loop, thue_cluster *c, const char *token, sess *q)
{
    memset(q, 0, sizeof *q);
    assert_int_equal(thue_cluster_session_get(c, token, on_sess, q), 0);
    assert_true(ch_run_until(loop, sess_done, q, 5000));
}

static void on_put(void *data, int status)
{
    int *d = data;
    d[0]++;
    d[1] = status;
}

static bool put_done(void *data)
{
    return ((int *)data)[0] > 0;
}

static void put(uv_loop_t *loop, thue_cluster *c, const char *token, const thue_cluster_session *s)
{
    int d[2] = {0, 0};
    assert_int_equal(thue_cluster_session_put(c, token, s, 60000, on_put, d), 0);
    assert_true(ch_run_until(loop, put_done, d, 5000));
    assert_int_equal(d[1], 0);
}

/* A string command's reply, copied (NULL when nil). */
static char *get_string(redisContext *rc, const char *k, size_t *len)
{
    redisReply *r = redisCommand(rc, "GET %s", k);
    assert_non_null(r);
    char *v = NULL;
    if (r->type == REDIS_REPLY_STRING) {
        v = malloc(r->len + 1);
        memcpy(v, r->str, r->len + 1);
        *len = r->len;
    }
    freeReplyObject(r);
    return v;
}

static void set_string(redisContext *rc, const char *k, const char *v, size_t len)
{
    redisReply *r = redisCommand(rc, "SET %s %b", k, v, len);
    assert_non_null(r);
    assert_int_equal(r->type, REDIS_REPLY_STATUS);
    freeReplyObject(r);
}

/* Fails when any value of key k (a string, or a hash's fields and values, or a set's or a
 * sorted set's members) holds token. */
static void no_token_in(redisContext *rc, const char *k, const char *token)
{
    redisReply *t = redisCommand(rc, "TYPE %s", k);
    assert_non_null(t);
    const char *fmt = strcmp(t->str, "string") == 0 ? "GET %s"
                      : strcmp(t->str, "hash") == 0 ? "HGETALL %s"
                      : strcmp(t->str, "set") == 0  ? "SMEMBERS %s"
                      : strcmp(t->str, "zset") == 0 ? "ZRANGE %s 0 -1"
                                                    : NULL;
    if (fmt == NULL)
        fail_msg("%s: a %s, which no test expects", k, t->str);
    freeReplyObject(t);
    redisReply *v = redisCommand(rc, fmt, k);
    assert_non_null(v);
    size_t n = v->type == REDIS_REPLY_ARRAY ? v->elements : 1;
    for (size_t i = 0; i < n; i++) {
        const redisReply *e = v->type == REDIS_REPLY_ARRAY ? v->element[i] : v;
        if (e->type == REDIS_REPLY_STRING && memmem(e->str, e->len, token, strlen(token)))
            fail_msg("%s holds the token %s", k, token);
    }
    freeReplyObject(v);
}

static void test_security_token_keys(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "tokens");
    static tnode n1, n2;
    node_start(&n1, &loop, "n1", prefix);
    node_start(&n2, &loop, "n2", prefix);
    const char *tok_a = "AAAAresumeTokenOfAnnAAAAresumeTok";
    const char *tok_b = "BBBBresumeTokenOfBobBBBBresumeTok";
    thue_cluster_session ann = {"n1", "ann", 7, false}, bob = {"n1", "bob", 8, false};
    put(&loop, n1.c, tok_a, &ann);
    put(&loop, n1.c, tok_b, &bob);
    sess q;
    get(&loop, n2.c, tok_a, &q);
    assert_true(q.found);
    assert_string_equal(q.s.name, "ann");
    assert_int_equal(q.s.account, 7);

    /* Everything under the prefix: no key and no value holds a token. */
    redisContext *rc = ch_sync(ch_redis_url());
    redisReply *keys = redisCommand(rc, "KEYS %s*", prefix);
    assert_non_null(keys);
    assert_int_equal(keys->type, REDIS_REPLY_ARRAY);
    int sessions = 0;
    for (size_t i = 0; i < keys->elements; i++) {
        const char *k = keys->element[i]->str;
        assert_null(strstr(k, tok_a));
        assert_null(strstr(k, tok_b));
        no_token_in(rc, k, tok_a);
        no_token_in(rc, k, tok_b);
        sessions += strncmp(k + strlen(prefix), "sess:", 5) == 0;
    }
    freeReplyObject(keys);
    assert_int_equal(sessions, 2);
    /* The key is the token's HMAC under the secret: not the token, not its plain hash. */
    thue_seal_keys ours;
    assert_int_equal(thue_seal_keys_derive(&ours, ch_secret_bytes, sizeof ch_secret_bytes), 0);
    char hex[THUE_SEAL_HEX], key_a[256], key_b[256];
    thue_seal_token_key(&ours, tok_a, hex);
    snprintf(key_a, sizeof key_a, "%ssess:%s", prefix, hex);
    thue_seal_token_key(&ours, tok_b, hex);
    snprintf(key_b, sizeof key_b, "%ssess:%s", prefix, hex);
    thue_seal_keys_wipe(&ours);
    size_t la = 0, lb = 0;
    char *va = get_string(rc, key_a, &la), *vb = get_string(rc, key_b, &lb);
    assert_non_null(va);
    assert_non_null(vb);
    char plain[256];
    snprintf(plain, sizeof plain, "%ssess:%s", prefix, tok_a);
    assert_int_equal(ch_int(rc, "EXISTS %s", plain), 0);

    /* Bob's record copied over Ann's key: Ann's token now reads as unknown (a record
     * verifies only under its own key), not as Bob's session. */
    set_string(rc, key_a, vb, lb);
    get(&loop, n2.c, tok_a, &q);
    assert_int_equal(q.status, 0);
    assert_false(q.found);
    assert_int_equal(drops(&n2, THUE_CLUSTER_DROP_BAD_SIGNATURE), 1);
    /* Written by someone without the secret: unsigned, or with a made-up HMAC. */
    const char *unsigned_rec = "{\"node\":\"n2\",\"name\":\"mallory\",\"account\":7}";
    set_string(rc, key_b, unsigned_rec, strlen(unsigned_rec));
    get(&loop, n2.c, tok_b, &q);
    assert_false(q.found);
    assert_int_equal(drops(&n2, THUE_CLUSTER_DROP_UNSIGNED), 1);
    char madeup[300];
    int ml = snprintf(madeup, sizeof madeup, "%064d %s", 0, unsigned_rec);
    set_string(rc, key_b, madeup, (size_t)ml);
    get(&loop, n2.c, tok_b, &q);
    assert_false(q.found);
    assert_int_equal(drops(&n2, THUE_CLUSTER_DROP_BAD_SIGNATURE), 2);
    /* The genuine record back where it was: found again. */
    set_string(rc, key_a, va, la);
    get(&loop, n2.c, tok_a, &q);
    assert_true(q.found);
    assert_string_equal(q.s.name, "ann");
    free(va);
    free(vb);
    redisFree(rc);
    thue_cluster_free(n1.c);
    thue_cluster_free(n2.c);
    ch_loop_close(&loop);
}

/* ---- quick-match tickets and pairs -------------------------------------------------------- */

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

static bool joined_done(void *data)
{
    return ((joined *)data)->calls > 0;
}

static void join(uv_loop_t *loop, thue_cluster *c, const char *id, const char *player, joined *j)
{
    thue_cluster_ticket t;
    memset(&t, 0, sizeof t);
    snprintf(t.id, sizeof t.id, "%s", id);
    snprintf(t.player, sizeof t.player, "%s", player);
    snprintf(t.name, sizeof t.name, "Player %s", player);
    t.rating = 1500;
    memset(j, 0, sizeof *j);
    assert_int_equal(thue_cluster_queue_join(c, "p", &t, -1, 60000, on_joined, j), 0);
    assert_true(ch_run_until(loop, joined_done, j, 5000));
}

static void test_security_forged_tickets(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    char prefix[64];
    ch_prefix(prefix, "tickets");
    static tnode n1, n2;
    node_start(&n1, &loop, "n1", prefix);
    node_start(&n2, &loop, "n2", prefix);
    redisContext *rc = ch_sync(ch_redis_url());

    /* A ticket nobody's node made, as if of n2's account 7 rated 2999: put into the pool
     * (once unsigned, once with a made-up signature). A join on n1 does not pair with it. */
    const char *sigs[] = {NULL, "99999999999999.00112233445566778899aabbccddeeff"
                                "00112233445566778899aabbccddeeff"};
    for (int i = 0; i < 2; i++) {
        redisReply *r = sigs[i] ? redisCommand(rc,
                                               "HSET %sqt:n2/evil node n2 ticket evil player a:7 "
                                               "name Mallory rating 2999 sig %s",
                                               prefix, sigs[i])
                                : redisCommand(rc,
                                               "HSET %sqt:n2/evil node n2 ticket evil player a:7 "
                                               "name Mallory rating 2999",
                                               prefix);
        freeReplyObject(r);
        assert_int_equal(ch_int(rc, "ZADD %sqm:p 0 n2/evil", prefix), 1);
        joined j;
        char id[16];
        snprintf(id, sizeof id, "t%d", i);
        join(&loop, n1.c, id, "a:1", &j);
        assert_false(j.paired);
        assert_int_equal(j.status, THUE_CLUSTER_EREPLY);
    }
    assert_int_equal(drops(&n1, THUE_CLUSTER_DROP_UNSIGNED), 1);
    assert_int_equal(drops(&n1, THUE_CLUSTER_DROP_BAD_SIGNATURE), 1);

    /* n1's ticket t2 waits; a pair for it is published on n1's pair channel naming a made-up
     * opponent (t2's own signature copied from Redis, the opponent's made up): not
     * delivered, t2 still waits. */
    joined j;
    join(&loop, n1.c, "t2", "a:1", &j);
    assert_int_equal(j.status, 0);
    assert_false(j.paired);
    redisReply *r = redisCommand(rc, "HGET %sqt:n1/t2 sig", prefix);
    assert_non_null(r);
    assert_int_equal(r->type, REDIS_REPLY_STRING);
    char pair[1024];
    int pl = snprintf(pair, sizeof pair,
                      "{\"pool\":\"p\",\"mine\":{\"node\":\"n1\",\"ticket\":\"t2\",\"player\":"
                      "\"a:1\",\"name\":\"Player a:1\",\"rating\":\"1500\",\"sig\":\"%s\"},"
                      "\"other\":{\"node\":\"n2\",\"ticket\":\"evil\",\"player\":\"a:7\","
                      "\"name\":\"Mallory\",\"rating\":\"2999\",\"sig\":\"1.%064d\"}}",
                      r->str, 0);
    freeReplyObject(r);
    char ch[128];
    snprintf(ch, sizeof ch, "%spair:n1", prefix);
    assert_int_equal(publish_raw(ch, pair, (size_t)pl), 1);
    const char *nosig = "{\"pool\":\"p\",\"mine\":{\"node\":\"n1\",\"ticket\":\"t2\"},\"other\":{}}";
    assert_int_equal(publish_raw(ch, nosig, strlen(nosig)), 1);
    wait_drops(&loop, &n1, THUE_CLUSTER_DROP_BAD_SIGNATURE, 2);
    wait_drops(&loop, &n1, THUE_CLUSTER_DROP_UNSIGNED, 2);
    ch_run_for(&loop, 50);
    assert_int_equal(n1.npaired, 0);

    /* A genuine opponent on n2: paired with t2, and n1 hears it. */
    join(&loop, n2.c, "u1", "a:2", &j);
    assert_int_equal(j.status, 0);
    assert_true(j.paired);
    assert_string_equal(j.pair.other.id, "t2");
    for (int i = 0; i < 100 && n1.npaired == 0; i++)
        ch_run_for(&loop, 10);
    assert_int_equal(n1.npaired, 1);
    assert_string_equal(n1.paired[0].mine.id, "t2");
    assert_string_equal(n1.paired[0].other.id, "u1");
    assert_string_equal(n1.paired[0].other.node, "n2");
    redisFree(rc);
    thue_cluster_free(n1.c);
    thue_cluster_free(n2.c);
    ch_loop_close(&loop);
}

/* A node without the secret, or with one too short, is refused. */
static void test_security_secret_required(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_cluster_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.url = ch_redis_url();
    cfg.node = "n1";
    cfg.address = "h:1";
    char err[256] = "";
    assert_null(thue_cluster_new(&loop, &cfg, err, sizeof err));
    assert_string_equal(err, "secret: the cluster secret is 32 to 4096 bytes (this one: 0); "
                             "every node needs the same one");
    cfg.secret = ch_secret_bytes;
    cfg.secret_len = 31;
    assert_null(thue_cluster_new(&loop, &cfg, err, sizeof err));
    assert_non_null(strstr(err, "(this one: 31)"));
    ch_loop_close(&loop);
}

int main(void)
{
    if (getenv("CH_DEBUG"))
        thue_log_set_level(THUE_LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_security_sealed_delivery),
        cmocka_unit_test(test_security_forged_dropped),
        cmocka_unit_test(test_security_replay_dropped),
        cmocka_unit_test(test_security_token_keys),
        cmocka_unit_test(test_security_forged_tickets),
        cmocka_unit_test(test_security_secret_required),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
