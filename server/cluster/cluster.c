/*
 * cluster.c: the state several nodes share through Redis (cluster.h).
 *
 * The node's own truth stays here and Redis holds a copy that expires: the rooms
 * registered on this node (a hash set of ids), its load, its waiting quick-match tickets.
 * The heartbeat (every heartbeat_ms, TTL 3 heartbeats) is one script: the node record,
 * the node's expiry in the nodes zset, and the TTL of the node's room set, O(1) however
 * many rooms there are. When the heartbeat finds the room set missing (Redis restarted,
 * or the node came back after its set expired) or a directory write failed, the set is
 * rebuilt from the local table: written under a temporary key in chunks of 512 and
 * renamed over the real one (lookups never see a half-written set), O(rooms) once.
 *
 * Scripts (cluster_lua.h) run with EVALSHA once SCRIPT LOAD has told their digest, with
 * EVAL before that and after a NOSCRIPT answer (a restarted Redis has no scripts).
 * Commands on one connection are answered in order, which the code relies on: the
 * heartbeat is the first command after every connect (so this node is live before any
 * ticket of it can be seen), and a rebuild's chunks and rename are sent in one go.
 *
 * Pub/sub: the subscriber connection listens to the broadcast channel, this node's
 * message channel and this node's pair channel. Broadcasts and messages travel sealed
 * (seal.h: encrypted, an HMAC over the channel, the sender's name, boot id, counter and
 * time and the ciphertext), so that a node hears only what another node with the secret
 * sent, once, and can skip its own broadcasts. A pairing is published by the join script
 * itself and also kept for ttl_ms; a ticket is in the local waiting list from before its
 * join is sent until its pair is delivered or its cancel succeeds, and after the
 * subscriber reconnects the kept pairs of every waiting ticket are fetched, so no pair is
 * lost to a reconnect and none is delivered twice. Each ticket carries its node's
 * signature (seal.h), which the node that hears a pair checks for both tickets.
 *
 * A node whose record expires is taken for dead, and a join on any node sweeps its
 * waiting tickets out of the pools, keeping each swept hash for the rest of its TTL. A
 * node that was only late (its loop stalled, Redis slow, a short network cut: its
 * connections may never have dropped) learns it from its next heartbeat, which finds its
 * record gone, and puts every swept ticket of its waiting list back at its old place; a
 * cancel of a swept ticket answers removed. So a waiting ticket is paired, cancelled or
 * expired, never silently lost.
 *
 * Nothing read from Redis is believed unless it verifies: a message, a session record, a
 * ticket or a pair that does not is dropped, counted (thue_cluster_drops) and logged at
 * warn at most once every 10 s per reason. Resume tokens are kept under their HMAC.
 */
#include "cluster.h"
#include "cluster_lua.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cluster/seal.h"
#include "log.h"

enum {
    S_HEARTBEAT,
    S_NODES,
    S_ROOM_ADD,
    S_LOOKUP,
    S_JOIN,
    S_CANCEL,
    S_RESTORE,
    S_LIMIT,
    S_NAME_CLAIM,
    S_COUNT_ADD,
    S_COUNT_TAKE,
    NSCRIPTS
};

static const char *const script_body[NSCRIPTS] = {
    THUE__LUA_HEARTBEAT, THUE__LUA_NODES,  THUE__LUA_ROOM_ADD, THUE__LUA_LOOKUP,
    THUE__LUA_JOIN,      THUE__LUA_CANCEL, THUE__LUA_RESTORE,  THUE__LUA_LIMIT,
    THUE__LUA_NAME_CLAIM, THUE__LUA_COUNT_ADD, THUE__LUA_COUNT_TAKE,
};

#define KEY_MAX 512
#define REBUILD_CHUNK 512
#define PAYLOAD_MAX 65536
#define TICKET_TTL_DEFAULT 60000u
#define DROP_LOG_MS 10000u /* a reason's drops are logged at most this often */

/* ---- a set of strings (the rooms here) ------------------------------------------------ */

typedef struct sentry {
    struct sentry *next;
    long count; /* a dirset of counts (the bot seats): the field's count, never 0 */
    char id[];
} sentry;

typedef struct {
    sentry **b;
    size_t nb, n;
} strset;

static size_t hash_text(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static sentry **set_find(strset *s, const char *id)
{
    if (!s->nb)
        return NULL;
    sentry **p = &s->b[hash_text(id) & (s->nb - 1)];
    while (*p && strcmp((*p)->id, id) != 0)
        p = &(*p)->next;
    return p;
}

/* 1 added, 0 present already, -1 out of memory. */
static int set_add(strset *s, const char *id)
{
    sentry **p = set_find(s, id);
    if (p && *p)
        return 0;
    if (s->n + 1 > s->nb) {
        size_t nb = s->nb ? s->nb * 2 : 64;
        sentry **b = calloc(nb, sizeof *b);
        if (!b)
            return -1;
        for (size_t i = 0; i < s->nb; i++)
            for (sentry *e = s->b[i], *next; e; e = next) {
                next = e->next;
                size_t h = hash_text(e->id) & (nb - 1);
                e->next = b[h];
                b[h] = e;
            }
        free(s->b);
        s->b = b;
        s->nb = nb;
    }
    size_t len = strlen(id);
    sentry *e = malloc(sizeof *e + len + 1);
    if (!e)
        return -1;
    memcpy(e->id, id, len + 1);
    e->count = 0;
    size_t h = hash_text(id) & (s->nb - 1);
    e->next = s->b[h];
    s->b[h] = e;
    s->n++;
    return 1;
}

static bool set_remove(strset *s, const char *id)
{
    sentry **p = set_find(s, id);
    if (!p || !*p)
        return false;
    sentry *e = *p;
    *p = e->next;
    free(e);
    s->n--;
    return true;
}

static void set_clear(strset *s)
{
    for (size_t i = 0; i < s->nb; i++)
        for (sentry *e = s->b[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    free(s->b);
    memset(s, 0, sizeof *s);
}

/* A set this node keeps in Redis as <prefix><kind>:<node>, with the heartbeat's TTL: the
 * rooms here, the names of the sessions here; or (counts) a hash of counts: the bot seats
 * here by owner and by address. dirty: a write failed, or the set went missing; the next
 * heartbeat rewrites it. */
typedef struct {
    strset set;
    bool dirty, counts;
    const char *kind;
} dirset;

/* ---- the cluster ---------------------------------------------------------------------- */

typedef struct waiting {
    struct waiting *next;
    uint64_t expires; /* uv_now when its ticket has surely expired in Redis */
    char pool[THUE_CLUSTER_POOL_MAX];
    char id[THUE_CLUSTER_ID_MAX];
} waiting;

struct thue_cluster {
    uv_loop_t *loop;
    thue_redis *cmd, *sub;
    char node[THUE_CLUSTER_NODE_MAX];
    char address[THUE_CLUSTER_ADDRESS_MAX];
    char prefix[THUE_CLUSTER_PREFIX_MAX];
    char ch_all[KEY_MAX], ch_node[KEY_MAX], ch_pair[KEY_MAX];
    unsigned hb_ms;
    thue_cluster_hooks hooks;
    uv_timer_t hb;
    bool closing, left, reported_up, ever_up, hb_inflight;
    char sha[NSCRIPTS][41];
    long load_rooms, load_players;
    bool draining;
    dirset rooms, names, bots;
    waiting *tickets;
    unsigned long heartbeats, rebuilds, lapses, restored;
    /* the seal (seal.h): keys, this boot's id and counter, the senders heard */
    thue_seal_keys keys;
    unsigned char boot[THUE_SEAL_BOOT];
    uint64_t seq;
    thue_seal_replay *replay;
    char *opened; /* where a message is opened (a header and PAYLOAD_MAX bytes, a NUL) */
    /* drops by reason, the caller's counters, and their rate-limited log */
    unsigned long drops[THUE_CLUSTER_DROP_REASONS];
    uint64_t *drop_counts;
    uint64_t drop_logged_ms[THUE_CLUSTER_DROP_REASONS];
    unsigned long drop_unlogged[THUE_CLUSTER_DROP_REASONS];
};

/* Counts a drop and logs it (at most once every DROP_LOG_MS per reason, with how many
 * went unlogged since). what says what was dropped and why; never a payload. */
__attribute__((format(printf, 3, 4))) static void dropped(thue_cluster *c, int reason,
                                                          const char *fmt, ...)
{
    c->drops[reason]++;
    if (c->drop_counts)
        c->drop_counts[reason]++;
    uint64_t now = uv_now(c->loop);
    if (c->drop_logged_ms[reason] != 0 && now - c->drop_logged_ms[reason] < DROP_LOG_MS) {
        c->drop_unlogged[reason]++;
        return;
    }
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    static const char *const names[] = {"unsigned", "bad signature", "replayed"};
    if (c->drop_unlogged[reason])
        thue_log(THUE_LOG_WARN, "cluster: dropped (%s): %s (and %lu more since the last such "
                 "line)", names[reason], what, c->drop_unlogged[reason]);
    else
        thue_log(THUE_LOG_WARN, "cluster: dropped (%s): %s", names[reason], what);
    c->drop_logged_ms[reason] = now ? now : 1;
    c->drop_unlogged[reason] = 0;
}

unsigned long thue_cluster_drops(const thue_cluster *c, int reason)
{
    if (c == NULL || reason < 0 || reason >= THUE_CLUSTER_DROP_REASONS)
        return 0;
    return c->drops[reason];
}

static int drop_reason(int seal)
{
    return seal == THUE_SEAL_UNSIGNED ? THUE_CLUSTER_DROP_UNSIGNED
           : seal == THUE_SEAL_BAD    ? THUE_CLUSTER_DROP_BAD_SIGNATURE
                                      : THUE_CLUSTER_DROP_REPLAYED;
}

/* prefix + the formatted rest into out (KEY_MAX). */
__attribute__((format(printf, 3, 4))) static void key(const thue_cluster *c, char *out,
                                                      const char *fmt, ...)
{
    size_t n = strlen(c->prefix);
    memcpy(out, c->prefix, n);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, KEY_MAX - n, fmt, ap);
    va_end(ap);
}

static unsigned ttl_ms(const thue_cluster *c)
{
    return c->hb_ms * 3;
}

/* ---- checks --------------------------------------------------------------------------- */

int thue_cluster_check_node(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n < 1 || n > THUE_CLUSTER_NODE_MAX - 1)
        return THUE_CLUSTER_EARG;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)name[i]) || isdigit((unsigned char)name[i]) || name[i] == '-'))
            return THUE_CLUSTER_EARG;
    return 0;
}

static bool valid_id(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > THUE_CLUSTER_ID_MAX - 1)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.'))
            return false;
    return true;
}

/* 1..max-1 bytes in lo..0x7e or (high) any byte >= 0x80. */
static bool valid_text(const char *s, size_t max, unsigned char lo, bool high)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > max - 1)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x80 ? !high : (ch < lo || ch == 0x7f))
            return false;
    }
    return true;
}

/* Valid UTF-8 (what the pair's JSON must carry whole). */
static bool valid_utf8(const char *s)
{
    json_t *j = json_string(s);
    json_decref(j);
    return j != NULL;
}

/* ---- scripts -------------------------------------------------------------------------- */

typedef void script_cb(thue_cluster *c, int status, const redisReply *reply, const char *err,
                       void *data);

typedef struct evalreq {
    thue_cluster *c;
    int script;
    bool retried;
    script_cb *cb;
    void *data;
    int argc; /* all of argv, EVALSHA/EVAL and its digest/body included */
    const char **argv;
    size_t *lens;
    char nkeys[8];
} evalreq;

static int send_eval(evalreq *q);

static void on_eval(thue_redis *r, int status, const redisReply *reply, const char *err, void *data)
{
    (void)r;
    evalreq *q = data;
    if (status == THUE_CLUSTER_EREPLY && !q->retried && err && strncmp(err, "NOSCRIPT", 8) == 0) {
        /* A restarted Redis: send the body, which caches it again under the same digest
         * (a digest is the SHA-1 of the body), so the next EVALSHA works. */
        q->retried = true;
        if (send_eval(q) == 0)
            return;
        status = THUE_CLUSTER_ENOMEM;
        err = thue_cluster_strerror(status);
        reply = NULL;
    }
    if (status && status != THUE_CLUSTER_EDOWN && status != THUE_CLUSTER_ECLOSED)
        thue_log(THUE_LOG_WARN, "cluster: script %d: %s", q->script, err);
    if (q->cb)
        q->cb(q->c, status, reply, err, q->data);
    free(q);
}

/* 0, or THUE_CLUSTER_ENOMEM (q's callback not run: the caller decides). */
static int send_eval(evalreq *q)
{
    const char *sha = q->c->sha[q->script];
    if (*sha && !q->retried) {
        q->argv[0] = "EVALSHA";
        q->argv[1] = sha;
    } else {
        q->argv[0] = "EVAL";
        q->argv[1] = script_body[q->script];
    }
    q->lens[0] = strlen(q->argv[0]);
    q->lens[1] = strlen(q->argv[1]);
    return thue_redis_command(q->c->cmd, on_eval, q, q->argc, q->argv, q->lens) == 0
               ? 0
               : THUE_CLUSTER_ENOMEM;
}

/*
 * Runs script with nkeys keys then arguments (n strings in args, NUL-terminated, copied).
 * 0: cb runs once later; THUE_CLUSTER_ENOMEM: never.
 */
static int eval(thue_cluster *c, int script, int nkeys, int n, const char *const *args,
                script_cb *cb, void *data)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += strlen(args[i]) + 1;
    int argc = n + 3;
    evalreq *q = malloc(sizeof *q + (size_t)argc * (sizeof(char *) + sizeof(size_t)) + total);
    if (!q)
        return THUE_CLUSTER_ENOMEM;
    q->c = c;
    q->script = script;
    q->retried = false;
    q->cb = cb;
    q->data = data;
    q->argc = argc;
    q->argv = (const char **)(q + 1);
    q->lens = (size_t *)(q->argv + argc);
    char *p = (char *)(q->lens + argc);
    snprintf(q->nkeys, sizeof q->nkeys, "%d", nkeys);
    q->argv[2] = q->nkeys;
    q->lens[2] = strlen(q->nkeys);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(args[i]);
        memcpy(p, args[i], len + 1);
        q->argv[i + 3] = p;
        q->lens[i + 3] = len;
        p += len + 1;
    }
    if (send_eval(q) != 0) {
        free(q);
        return THUE_CLUSTER_ENOMEM;
    }
    return 0;
}

typedef struct loadreq {
    thue_cluster *c;
    int script;
} loadreq;

static void on_loaded(thue_redis *r, int status, const redisReply *reply, const char *err,
                      void *data)
{
    (void)r;
    (void)err;
    loadreq *q = data;
    if (status == 0 && reply->type == REDIS_REPLY_STRING && reply->len == 40)
        memcpy(q->c->sha[q->script], reply->str, 41);
    free(q);
}

static void load_scripts(thue_cluster *c)
{
    for (int i = 0; i < NSCRIPTS; i++) {
        if (c->sha[i][0])
            continue;
        loadreq *q = malloc(sizeof *q);
        if (!q)
            return;
        q->c = c;
        q->script = i;
        const char *argv[] = {"SCRIPT", "LOAD", script_body[i]};
        if (thue_redis_command(c->cmd, on_loaded, q, 3, argv, NULL) != 0)
            free(q);
    }
}

/* ---- state ---------------------------------------------------------------------------- */

static void heartbeat(thue_cluster *c, bool force);
static void fetch_kept_pairs(thue_cluster *c);

static void report_state(thue_cluster *c)
{
    bool up = thue_redis_up(c->cmd) && thue_redis_up(c->sub);
    if (up == c->reported_up || c->closing)
        return;
    c->reported_up = up;
    /* Back after a loss of either connection: pairs published meanwhile were heard by
     * nobody; fetch the kept copies (both connections are up, so this cannot fail for
     * being down). */
    if (up && c->ever_up)
        fetch_kept_pairs(c);
    c->ever_up |= up;
    thue_log(up ? THUE_LOG_INFO : THUE_LOG_WARN, "cluster: node %s %s", c->node,
             up ? "joined the cluster" : "lost the cluster (local behaviour until it is back)");
    if (c->hooks.state)
        c->hooks.state(c->hooks.data, up);
}

static void on_cmd_state(thue_redis *r, bool up, void *data)
{
    (void)r;
    thue_cluster *c = data;
    if (up) {
        c->hb_inflight = false;
        heartbeat(c, true); /* first: this node is live before anything else of it is seen */
        load_scripts(c);
    }
    report_state(c);
}

static void on_sub_state(thue_redis *r, bool up, void *data)
{
    (void)r;
    (void)up;
    report_state(data);
}

/* ---- heartbeat and the directory ------------------------------------------------------ */

static void on_rebuild_step(thue_redis *r, int status, const redisReply *reply, const char *err,
                            void *data)
{
    (void)r;
    (void)reply;
    (void)err;
    dirset *d = data;
    if (status)
        d->dirty = true;
}

static void rebuild(thue_cluster *c, dirset *d)
{
    char set[KEY_MAX], tmp[KEY_MAX], ttl[24];
    key(c, set, "%s:%s", d->kind, c->node);
    key(c, tmp, "%s-tmp:%s", d->kind, c->node);
    snprintf(ttl, sizeof ttl, "%u", ttl_ms(c));
    d->dirty = false;
    c->rebuilds++;
    if (d->set.n == 0) {
        const char *argv[] = {"DEL", set};
        thue_redis_command(c->cmd, on_rebuild_step, d, 2, argv, NULL);
        return;
    }
    /* (counts: field and count, so each entry takes two arguments) */
    const char **argv = malloc((2 * REBUILD_CHUNK + 2) * sizeof *argv);
    char(*nums)[24] = d->counts ? malloc(REBUILD_CHUNK * sizeof *nums) : NULL;
    if (!argv || (d->counts && !nums)) {
        free(argv);
        free(nums);
        d->dirty = true;
        return;
    }
    const char *del[] = {"DEL", tmp};
    thue_redis_command(c->cmd, on_rebuild_step, d, 2, del, NULL);
    int n = 0, per = d->counts ? 2 : 1;
    bool first = true;
    argv[0] = d->counts ? "HSET" : "SADD";
    argv[1] = tmp;
    for (size_t i = 0; i < d->set.nb; i++)
        for (sentry *e = d->set.b[i]; e; e = e->next) {
            argv[2 + per * n] = e->id;
            if (d->counts) {
                snprintf(nums[n], sizeof nums[n], "%ld", e->count);
                argv[3 + per * n] = nums[n];
            }
            if (++n == REBUILD_CHUNK) {
                thue_redis_command(c->cmd, on_rebuild_step, d, per * n + 2, argv, NULL);
                n = 0;
                if (first) {
                    const char *exp[] = {"PEXPIRE", tmp, ttl};
                    thue_redis_command(c->cmd, on_rebuild_step, d, 3, exp, NULL);
                    first = false;
                }
            }
        }
    if (n)
        thue_redis_command(c->cmd, on_rebuild_step, d, per * n + 2, argv, NULL);
    free(argv);
    free(nums);
    const char *exp[] = {"PEXPIRE", tmp, ttl};
    thue_redis_command(c->cmd, on_rebuild_step, d, 3, exp, NULL);
    const char *ren[] = {"RENAME", tmp, set};
    thue_redis_command(c->cmd, on_rebuild_step, d, 3, ren, NULL);
}

static void sweep_tickets(thue_cluster *c)
{
    uint64_t now = uv_now(c->loop);
    for (waiting **p = &c->tickets; *p;) {
        if ((*p)->expires < now) {
            waiting *w = *p;
            *p = w->next;
            free(w);
        } else {
            p = &(*p)->next;
        }
    }
}

static void on_restored(thue_cluster *c, int status, const redisReply *reply, const char *err,
                        void *data)
{
    (void)err;
    (void)data;
    if (status == 0 && reply->type == REDIS_REPLY_INTEGER && reply->integer == 1)
        c->restored++;
}

/* The heartbeat found this node's record gone: the other nodes took it for dead, and a
 * join may have swept its waiting tickets out of their pools. Each that was goes back
 * (THUE__LUA_RESTORE: a no-op for any other). Sent after that heartbeat has written the
 * record again, so nothing sweeps them meanwhile; a cancel sent earlier has deleted its
 * ticket first (one connection, in order), one sent later finds it back in the pool. */
static void restore_tickets(thue_cluster *c)
{
    for (waiting *w = c->tickets; w; w = w->next) {
        char k[KEY_MAX], member[KEY_MAX];
        key(c, k, "qm:%s", w->pool);
        snprintf(member, sizeof member, "%s/%s", c->node, w->id);
        const char *args[] = {k, c->prefix, member};
        eval(c, S_RESTORE, 1, 3, args, on_restored, NULL);
    }
}

static void on_heartbeat(thue_cluster *c, int status, const redisReply *reply, const char *err,
                         void *data)
{
    (void)err;
    (void)data;
    c->hb_inflight = false;
    if (status || c->closing)
        return;
    bool first = c->heartbeats++ == 0;
    if (c->left)
        return;
    /* {room set exists, record existed, name set exists, bot seat counts exist} */
    bool ok = reply->type == REDIS_REPLY_ARRAY && reply->elements == 4;
    for (size_t i = 0; ok && i < 4; i++)
        ok = reply->element[i]->type == REDIS_REPLY_INTEGER;
    bool missing = ok && reply->element[0]->integer == 0;
    bool names_missing = ok && reply->element[2]->integer == 0;
    bool bots_missing = ok && reply->element[3]->integer == 0;
    if (ok && reply->element[1]->integer == 0) {
        size_t n = 0;
        for (waiting *w = c->tickets; w; w = w->next)
            n++;
        if (!first) {
            c->lapses++;
            thue_log(THUE_LOG_WARN,
                     "cluster: node %s found its record gone (two of its heartbeats more than "
                     "%u ms apart, or Redis lost it): the other nodes took it for dead "
                     "meanwhile; its %zu waiting tickets go back into their pools if swept",
                     c->node, ttl_ms(c), n);
        }
        restore_tickets(c);
    }
    if (c->rooms.dirty || (missing && c->rooms.set.n > 0)) {
        if (missing)
            thue_log(THUE_LOG_INFO, "cluster: rewriting the %zu rooms of node %s",
                     c->rooms.set.n, c->node);
        rebuild(c, &c->rooms);
    }
    if (c->names.dirty || (names_missing && c->names.set.n > 0))
        rebuild(c, &c->names);
    if (c->bots.dirty || (bots_missing && c->bots.set.n > 0))
        rebuild(c, &c->bots);
    sweep_tickets(c);
}

/* Writes the heartbeat; the timer's skips it while the previous one is unanswered (a
 * slow Redis gets no pile-up), a forced one (thue_cluster_heartbeat_now) does not. */
static void heartbeat(thue_cluster *c, bool force)
{
    if (c->closing || c->left || (c->hb_inflight && !force) || !thue_redis_up(c->cmd))
        return;
    char knode[KEY_MAX], knodes[KEY_MAX], krooms[KEY_MAX], knames[KEY_MAX], kbots[KEY_MAX],
        rooms[24], players[24], ttl[24];
    key(c, knode, "node:%s", c->node);
    key(c, knodes, "nodes");
    key(c, krooms, "rooms:%s", c->node);
    key(c, knames, "names:%s", c->node);
    key(c, kbots, "bots:%s", c->node);
    snprintf(rooms, sizeof rooms, "%ld", c->load_rooms);
    snprintf(players, sizeof players, "%ld", c->load_players);
    snprintf(ttl, sizeof ttl, "%u", ttl_ms(c));
    const char *args[] = {knode,   knodes,     krooms, knames, kbots,
                          c->node, c->address, c->draining ? "draining" : "ok",
                          rooms,   players,    ttl};
    if (eval(c, S_HEARTBEAT, 5, 11, args, on_heartbeat, NULL) == 0)
        c->hb_inflight = true;
}

static void on_hb_timer(uv_timer_t *t)
{
    heartbeat(t->data, false);
}

void thue_cluster_heartbeat_now(thue_cluster *c)
{
    if (c)
        heartbeat(c, true);
}

void thue_cluster_set_load(thue_cluster *c, long rooms, long players)
{
    if (!c)
        return;
    c->load_rooms = rooms;
    c->load_players = players;
}

void thue_cluster_set_draining(thue_cluster *c, bool draining)
{
    if (c)
        c->draining = draining;
}

unsigned long thue_cluster_heartbeats(const thue_cluster *c)
{
    return c ? c->heartbeats : 0;
}

unsigned long thue_cluster_lapses(const thue_cluster *c)
{
    return c ? c->lapses : 0;
}

unsigned long thue_cluster_restored(const thue_cluster *c)
{
    return c ? c->restored : 0;
}

unsigned long thue_cluster_rebuilds(const thue_cluster *c)
{
    return c ? c->rebuilds : 0;
}

static void on_set_write(thue_cluster *c, int status, const redisReply *reply, const char *err,
                         void *data)
{
    (void)c;
    (void)reply;
    (void)err;
    dirset *d = data;
    if (status)
        d->dirty = true; /* the next heartbeat rewrites the set */
}

static void on_set_srem(thue_redis *r, int status, const redisReply *reply, const char *err,
                        void *data)
{
    (void)r;
    on_set_write(NULL, status, reply, err, data);
}

/* Adds id to d here and, unless this node left, to its copy in Redis. */
static int dir_add(thue_cluster *c, dirset *d, const char *id)
{
    int added = set_add(&d->set, id);
    if (added < 0)
        return THUE_CLUSTER_ENOMEM;
    if (added == 0 || c->left)
        return 0;
    if (!thue_redis_up(c->cmd)) {
        d->dirty = true;
        return 0;
    }
    char k[KEY_MAX], ttl[24];
    key(c, k, "%s:%s", d->kind, c->node);
    snprintf(ttl, sizeof ttl, "%u", ttl_ms(c));
    const char *args[] = {k, id, ttl};
    if (eval(c, S_ROOM_ADD, 1, 3, args, on_set_write, d) != 0)
        d->dirty = true;
    return 0;
}

/* Takes id out of d, here and in Redis (also when it was not here if absent_too: see
 * thue_cluster_name_claim); EARG when it was not here. */
static int dir_remove(thue_cluster *c, dirset *d, const char *id, bool absent_too)
{
    bool here = set_remove(&d->set, id);
    if (c->left || (!here && !absent_too))
        return here ? 0 : THUE_CLUSTER_EARG;
    if (!thue_redis_up(c->cmd)) {
        d->dirty = d->dirty || here;
        return here ? 0 : THUE_CLUSTER_EARG;
    }
    char k[KEY_MAX];
    key(c, k, "%s:%s", d->kind, c->node);
    const char *argv[] = {"SREM", k, id};
    if (thue_redis_command(c->cmd, on_set_srem, d, 3, argv, NULL) != 0)
        d->dirty = true;
    return here ? 0 : THUE_CLUSTER_EARG;
}

int thue_cluster_room_add(thue_cluster *c, const char *room)
{
    if (!c || !valid_id(room))
        return THUE_CLUSTER_EARG;
    return dir_add(c, &c->rooms, room);
}

int thue_cluster_room_remove(thue_cluster *c, const char *room)
{
    if (!c || !valid_id(room))
        return THUE_CLUSTER_EARG;
    return dir_remove(c, &c->rooms, room, false);
}

size_t thue_cluster_room_count(const thue_cluster *c)
{
    return c ? c->rooms.set.n : 0;
}

static bool valid_name_key(const char *name)
{
    return valid_text(name, THUE_CLUSTER_TEXT_MAX, 0x20, true);
}

int thue_cluster_name_add(thue_cluster *c, const char *name)
{
    if (!c || !valid_name_key(name))
        return THUE_CLUSTER_EARG;
    return dir_add(c, &c->names, name);
}

int thue_cluster_name_remove(thue_cluster *c, const char *name)
{
    if (!c || !valid_name_key(name))
        return THUE_CLUSTER_EARG;
    return dir_remove(c, &c->names, name, true);
}

size_t thue_cluster_name_count(const thue_cluster *c)
{
    return c ? c->names.set.n : 0;
}

/* A caller's callback and data, for the replies that need translating. */
typedef struct usercb {
    void (*fn)(void);
    void *data;
    char extra[THUE_CLUSTER_POOL_MAX + THUE_CLUSTER_ID_MAX];
} usercb;

static usercb *new_usercb(void (*fn)(void), void *data)
{
    usercb *u = malloc(sizeof *u);
    if (u) {
        u->fn = fn;
        u->data = data;
        u->extra[0] = '\0';
    }
    return u;
}

static void on_lookup(thue_cluster *c, int status, const redisReply *reply, const char *err,
                      void *data)
{
    (void)c;
    (void)err;
    usercb *u = data;
    const char *node = NULL;
    if (status == 0 && reply->type == REDIS_REPLY_STRING)
        node = reply->str;
    ((thue_cluster_lookup_cb *)u->fn)(u->data, status, node);
    free(u);
}

int thue_cluster_room_lookup(thue_cluster *c, const char *room, thue_cluster_lookup_cb *cb,
                             void *data)
{
    if (!c || !cb || !valid_id(room))
        return THUE_CLUSTER_EARG;
    usercb *u = new_usercb((void (*)(void))cb, data);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    char k[KEY_MAX];
    key(c, k, "nodes");
    const char *args[] = {k, c->prefix, room};
    int rc = eval(c, S_LOOKUP, 1, 3, args, on_lookup, u);
    if (rc)
        free(u);
    return rc;
}

/* ---- nodes ---------------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(((const thue_cluster_node *)a)->name, ((const thue_cluster_node *)b)->name);
}

static void copy_str(char *out, size_t size, const redisReply *e)
{
    if (e && e->type == REDIS_REPLY_STRING)
        snprintf(out, size, "%s", e->str);
    else
        out[0] = '\0';
}

static void on_nodes(thue_cluster *c, int status, const redisReply *reply, const char *err,
                     void *data)
{
    (void)c;
    (void)err;
    usercb *u = data;
    thue_cluster_nodes_cb *cb = (thue_cluster_nodes_cb *)u->fn;
    if (status || reply->type != REDIS_REPLY_ARRAY) {
        cb(u->data, status ? status : THUE_CLUSTER_EREPLY, NULL, 0);
        free(u);
        return;
    }
    thue_cluster_node *nodes = calloc(reply->elements ? reply->elements : 1, sizeof *nodes);
    if (!nodes) {
        cb(u->data, THUE_CLUSTER_ENOMEM, NULL, 0);
        free(u);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < reply->elements; i++) {
        const redisReply *f = reply->element[i];
        if (f->type != REDIS_REPLY_ARRAY || f->elements != 5)
            continue;
        thue_cluster_node *nd = &nodes[n++];
        char state[16], num[24];
        copy_str(nd->name, sizeof nd->name, f->element[0]);
        copy_str(nd->address, sizeof nd->address, f->element[1]);
        copy_str(state, sizeof state, f->element[2]);
        nd->draining = strcmp(state, "draining") == 0;
        copy_str(num, sizeof num, f->element[3]);
        nd->rooms = strtol(num, NULL, 10);
        copy_str(num, sizeof num, f->element[4]);
        nd->players = strtol(num, NULL, 10);
    }
    qsort(nodes, n, sizeof *nodes, by_name);
    cb(u->data, 0, nodes, n);
    free(nodes);
    free(u);
}

int thue_cluster_nodes(thue_cluster *c, thue_cluster_nodes_cb *cb, void *data)
{
    if (!c || !cb)
        return THUE_CLUSTER_EARG;
    usercb *u = new_usercb((void (*)(void))cb, data);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    char k[KEY_MAX];
    key(c, k, "nodes");
    const char *args[] = {k, c->prefix};
    int rc = eval(c, S_NODES, 1, 2, args, on_nodes, u);
    if (rc)
        free(u);
    return rc;
}

/* ---- sessions ------------------------------------------------------------------------- */

static void on_done(thue_redis *r, int status, const redisReply *reply, const char *err, void *data)
{
    (void)r;
    (void)reply;
    (void)err;
    usercb *u = data;
    if (u->fn)
        ((thue_cluster_done_cb *)u->fn)(u->data, status);
    free(u);
}

/* A token's key: P sess:HMAC(token), never the token. */
static void session_key(const thue_cluster *c, const char *token, char out[KEY_MAX])
{
    char hex[THUE_SEAL_HEX];
    thue_seal_token_key(&c->keys, token, hex);
    key(c, out, "sess:%s", hex);
}

int thue_cluster_session_put(thue_cluster *c, const char *token, const thue_cluster_session *s,
                             unsigned ttl, thue_cluster_done_cb *cb, void *data)
{
    if (!c || !valid_id(token) || !s || ttl == 0 || thue_cluster_check_node(s->node) != 0 ||
        !valid_text(s->name, THUE_CLUSTER_TEXT_MAX, 0x20, true))
        return THUE_CLUSTER_EARG;
    json_t *o = json_pack("{s:s, s:s, s:I}", "node", s->node, "name", s->name, "account",
                          (json_int_t)s->account);
    if (o && s->handoff && json_object_set_new(o, "handoff", json_true()) != 0) {
        json_decref(o);
        o = NULL;
    }
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    usercb *u = text ? new_usercb((void (*)(void))cb, data) : NULL;
    if (!u) {
        free(text);
        return THUE_CLUSTER_EARG; /* a name that is not UTF-8, or out of memory */
    }
    /* The record: its HMAC (over the key and the JSON), a space, the JSON. */
    char k[KEY_MAX], px[24], mac[THUE_SEAL_HEX];
    session_key(c, token, k);
    size_t tl = strlen(text);
    thue_seal_record_mac(&c->keys, "session", k, text, tl, mac);
    char *value = malloc(64 + 1 + tl + 1);
    if (!value) {
        free(text);
        free(u);
        return THUE_CLUSTER_ENOMEM;
    }
    memcpy(value, mac, 64);
    value[64] = ' ';
    memcpy(value + 65, text, tl + 1);
    snprintf(px, sizeof px, "%u", ttl);
    const char *argv[] = {"SET", k, value, "PX", px};
    int rc = thue_redis_command(c->cmd, on_done, u, 5, argv, NULL);
    free(text);
    free(value);
    if (rc)
        free(u);
    return rc;
}

typedef struct sessreq {
    thue_cluster *c;
    thue_cluster_session_cb *cb;
    void *data;
    char key[KEY_MAX];
} sessreq;

static void on_session(thue_redis *r, int status, const redisReply *reply, const char *err,
                       void *data)
{
    (void)r;
    (void)err;
    sessreq *u = data;
    thue_cluster *c = u->c;
    thue_cluster_session_cb *cb = u->cb;
    thue_cluster_session s;
    memset(&s, 0, sizeof s);
    bool found = false;
    if (status == 0 && reply->type == REDIS_REPLY_STRING) {
        /* A record that does not verify (written by someone without the secret, or moved
         * from another token's key) is as good as none. */
        if (reply->len < 66 || reply->str[64] != ' ') {
            dropped(c, THUE_CLUSTER_DROP_UNSIGNED, "a session record without a signature");
            cb(u->data, 0, NULL);
            free(u);
            return;
        }
        if (!thue_seal_record_verify(&c->keys, "session", u->key, reply->str + 65,
                                     reply->len - 65, reply->str, 64)) {
            dropped(c, THUE_CLUSTER_DROP_BAD_SIGNATURE,
                    "a session record whose signature does not verify");
            cb(u->data, 0, NULL);
            free(u);
            return;
        }
        json_t *o = json_loadb(reply->str + 65, reply->len - 65, 0, NULL);
        const char *node = NULL, *name = NULL;
        json_int_t account = 0;
        int handoff = 0;
        if (o && json_unpack(o, "{s:s, s:s, s:I, s?b}", "node", &node, "name", &name, "account",
                             &account, "handoff", &handoff) == 0) {
            snprintf(s.node, sizeof s.node, "%s", node);
            snprintf(s.name, sizeof s.name, "%s", name);
            s.account = account;
            s.handoff = handoff != 0;
            found = true;
        } else {
            status = THUE_CLUSTER_EREPLY;
        }
        json_decref(o);
    }
    cb(u->data, status, found ? &s : NULL);
    free(u);
}

int thue_cluster_session_get(thue_cluster *c, const char *token, thue_cluster_session_cb *cb,
                             void *data)
{
    if (!c || !cb || !valid_id(token))
        return THUE_CLUSTER_EARG;
    sessreq *u = malloc(sizeof *u);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    u->c = c;
    u->cb = cb;
    u->data = data;
    session_key(c, token, u->key);
    const char *argv[] = {"GET", u->key};
    int rc = thue_redis_command(c->cmd, on_session, u, 2, argv, NULL);
    if (rc)
        free(u);
    return rc;
}

int thue_cluster_session_delete(thue_cluster *c, const char *token, thue_cluster_done_cb *cb,
                                void *data)
{
    if (!c || !valid_id(token))
        return THUE_CLUSTER_EARG;
    usercb *u = new_usercb((void (*)(void))cb, data);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    char k[KEY_MAX];
    session_key(c, token, k);
    const char *argv[] = {"DEL", k};
    int rc = thue_redis_command(c->cmd, on_done, u, 2, argv, NULL);
    if (rc)
        free(u);
    return rc;
}

/* ---- quick match ---------------------------------------------------------------------- */

static waiting **find_waiting(thue_cluster *c, const char *pool, const char *id)
{
    waiting **p = &c->tickets;
    while (*p && (strcmp((*p)->pool, pool) != 0 || strcmp((*p)->id, id) != 0))
        p = &(*p)->next;
    return p;
}

static bool take_waiting(thue_cluster *c, const char *pool, const char *id)
{
    waiting **p = find_waiting(c, pool, id);
    if (!*p)
        return false;
    waiting *w = *p;
    *p = w->next;
    free(w);
    return true;
}

/* A ticket's fields as Redis hands them back: whether its node signed them for pool
 * (seal.h: an HMAC over the pool and the fields, with an expiry); a drop is counted and
 * logged otherwise. what names where it was read. */
static bool ticket_signed(thue_cluster *c, const char *pool, const char *node, const char *id,
                          const char *player, const char *name, const char *rating,
                          const char *sig, const char *what)
{
    int rc = thue_seal_ticket_check(&c->keys, pool, node, id, player, name, rating, sig,
                                    thue_seal_now_ms());
    if (rc == 0)
        return true;
    if (rc == THUE_SEAL_REPLAYED)
        dropped(c, THUE_CLUSTER_DROP_REPLAYED, "%s: the ticket of node %s has expired", what,
                node);
    else
        dropped(c, drop_reason(rc), "%s: the ticket claiming to be of node %s is %s", what, node,
                rc == THUE_SEAL_BAD ? "badly signed" : "not signed");
    return false;
}

static bool ticket_from_json(thue_cluster *c, const char *pool, json_t *o,
                             thue_cluster_ticket *t)
{
    const char *node, *id, *player, *name, *rating, *sig;
    if (!o || json_unpack(o, "{s:s, s:s, s:s, s:s, s:s, s:s}", "node", &node, "ticket", &id,
                          "player", &player, "name", &name, "rating", &rating, "sig", &sig) != 0)
        return false;
    if (!ticket_signed(c, pool, node, id, player, name, rating, sig, "a pair"))
        return false;
    snprintf(t->node, sizeof t->node, "%s", node);
    snprintf(t->id, sizeof t->id, "%s", id);
    snprintf(t->player, sizeof t->player, "%s", player);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->rating = strtod(rating, NULL);
    return true;
}

/* A pair that Redis published (or kept) for a waiting ticket of this node: both tickets
 * must be signed by their nodes for this pool (so no pair names a ticket nobody made). */
static void deliver_pair(thue_cluster *c, const char *text, size_t len)
{
    json_t *o = json_loadb(text, len, 0, NULL);
    thue_cluster_pair pair;
    memset(&pair, 0, sizeof pair);
    const char *pool = NULL;
    if (!o || json_unpack(o, "{s:s}", "pool", &pool) != 0 ||
        !json_is_object(json_object_get(o, "mine")) ||
        !json_is_object(json_object_get(o, "other")) ||
        !json_is_string(json_object_get(json_object_get(o, "mine"), "sig")) ||
        !json_is_string(json_object_get(json_object_get(o, "other"), "sig"))) {
        dropped(c, THUE_CLUSTER_DROP_UNSIGNED, "a pair message that is not one of this "
                "cluster's (%zu bytes)", len);
        json_decref(o);
        return;
    }
    if (!ticket_from_json(c, pool, json_object_get(o, "mine"), &pair.mine) ||
        !ticket_from_json(c, pool, json_object_get(o, "other"), &pair.other)) {
        json_decref(o);
        return;
    }
    if (strcmp(pair.mine.node, c->node) != 0) {
        thue_log(THUE_LOG_WARN, "cluster: a pair for a ticket of node %s heard on %s's channel",
                 pair.mine.node, c->node);
        json_decref(o);
        return;
    }
    snprintf(pair.pool, sizeof pair.pool, "%s", pool);
    json_decref(o);
    if (!take_waiting(c, pair.pool, pair.mine.id))
        return; /* delivered already (published and kept: whichever came first) */
    char k[KEY_MAX];
    key(c, k, "qres:%s/%s", c->node, pair.mine.id);
    const char *argv[] = {"DEL", k};
    thue_redis_command(c->cmd, NULL, NULL, 2, argv, NULL);
    if (c->hooks.paired)
        c->hooks.paired(c->hooks.data, &pair);
}

static void on_kept_pair(thue_redis *r, int status, const redisReply *reply, const char *err,
                         void *data)
{
    (void)r;
    (void)err;
    thue_cluster *c = data;
    if (status == 0 && reply->type == REDIS_REPLY_STRING && !c->closing)
        deliver_pair(c, reply->str, reply->len);
}

static void fetch_kept_pairs(thue_cluster *c)
{
    for (waiting *w = c->tickets; w; w = w->next) {
        char k[KEY_MAX];
        key(c, k, "qres:%s/%s", c->node, w->id);
        const char *argv[] = {"GET", k};
        thue_redis_command(c->cmd, on_kept_pair, c, 2, argv, NULL);
    }
}

typedef struct joinreq {
    thue_cluster_join_cb *cb;
    void *data;
    thue_cluster_pair pair;
} joinreq;

static void on_join(thue_cluster *c, int status, const redisReply *reply, const char *err,
                    void *data)
{
    (void)err;
    joinreq *u = data;
    thue_cluster_pair pair = u->pair; /* pool and mine, filled by the join */
    bool paired = false;
    if (status == 0) {
        if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 1 ||
            reply->element[0]->type != REDIS_REPLY_STRING) {
            status = THUE_CLUSTER_EREPLY;
        } else if (strcmp(reply->element[0]->str, "dup") == 0) {
            status = THUE_CLUSTER_EQUEUED;
        } else if (strcmp(reply->element[0]->str, "paired") == 0 && reply->elements == 7) {
            thue_cluster_ticket *o = &pair.other;
            copy_str(o->node, sizeof o->node, reply->element[1]);
            copy_str(o->id, sizeof o->id, reply->element[2]);
            copy_str(o->player, sizeof o->player, reply->element[3]);
            copy_str(o->name, sizeof o->name, reply->element[4]);
            char num[64], sig[THUE_SEAL_SIG_MAX];
            copy_str(num, sizeof num, reply->element[5]);
            copy_str(sig, sizeof sig, reply->element[6]);
            o->rating = strtod(num, NULL);
            /* A ticket its node did not sign (put into the pool by someone else) makes no
             * pair: the join fails, and the caller pairs locally. */
            if (ticket_signed(c, pair.pool, o->node, o->id, o->player, o->name, num, sig,
                              "a join's answer")) {
                pair.made_here = true;
                paired = true;
            } else {
                status = THUE_CLUSTER_EREPLY;
            }
        } else if (strcmp(reply->element[0]->str, "queued") != 0) {
            status = THUE_CLUSTER_EREPLY;
        }
    }
    /* The ticket stays in the waiting list while it may wait in Redis: queued, a "dup"
     * (the earlier join's entry), or a connection lost before the answer (the script may
     * have run: a later pair is still delivered; the caller cancels to be sure). */
    if (paired || (status && status != THUE_CLUSTER_EQUEUED && status != THUE_CLUSTER_ELOST))
        take_waiting(c, pair.pool, pair.mine.id);
    u->cb(u->data, status, paired ? &pair : NULL);
    free(u);
}

int thue_cluster_queue_join(thue_cluster *c, const char *pool, const thue_cluster_ticket *t,
                            double max_diff, unsigned ttl, thue_cluster_join_cb *cb, void *data)
{
    if (!c || !cb || !t || !valid_text(pool, THUE_CLUSTER_POOL_MAX, 0x20, false) ||
        !valid_id(t->id) || !valid_text(t->player, THUE_CLUSTER_TEXT_MAX, 0x20, true) ||
        !valid_text(t->name, THUE_CLUSTER_TEXT_MAX, 0x20, true) || !valid_utf8(t->player) ||
        !valid_utf8(t->name) || !isfinite(t->rating) || isnan(max_diff))
        return THUE_CLUSTER_EARG;
    if (ttl == 0)
        ttl = TICKET_TTL_DEFAULT;
    joinreq *u = calloc(1, sizeof *u);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    u->cb = cb;
    u->data = data;
    snprintf(u->pair.pool, sizeof u->pair.pool, "%s", pool);
    u->pair.mine = *t;
    snprintf(u->pair.mine.node, sizeof u->pair.mine.node, "%s", c->node);

    waiting **p = find_waiting(c, pool, t->id);
    waiting *w = NULL;
    if (!*p) { /* waiting from now on, so that a pair published before our reply is heard */
        w = calloc(1, sizeof *w);
        if (!w) {
            free(u);
            return THUE_CLUSTER_ENOMEM;
        }
        snprintf(w->pool, sizeof w->pool, "%s", pool);
        snprintf(w->id, sizeof w->id, "%s", t->id);
        w->expires = uv_now(c->loop) + ttl + 2u * ttl_ms(c);
    }
    char k[KEY_MAX], rating[32], ttltext[24], diff[32], sig[THUE_SEAL_SIG_MAX];
    key(c, k, "qm:%s", pool);
    snprintf(rating, sizeof rating, "%.17g", t->rating);
    snprintf(ttltext, sizeof ttltext, "%u", ttl);
    snprintf(diff, sizeof diff, "%.17g", max_diff < 0 ? -1.0 : max_diff);
    thue_seal_ticket_sign(&c->keys, pool, c->node, t->id, t->player, t->name, rating,
                          thue_seal_now_ms() + ttl, sig);
    const char *args[] = {k,         c->prefix, pool,   c->node, t->id,
                          t->player, t->name,   rating, ttltext, diff, sig};
    int rc = eval(c, S_JOIN, 1, 11, args, on_join, u);
    if (rc) {
        free(u);
        free(w);
        return rc;
    }
    if (w) {
        w->next = c->tickets;
        c->tickets = w;
    }
    return 0;
}

static void on_cancel(thue_cluster *c, int status, const redisReply *reply, const char *err,
                      void *data)
{
    (void)err;
    usercb *u = data;
    bool removed = status == 0 && reply->type == REDIS_REPLY_INTEGER && reply->integer == 1;
    if (removed) {
        const char *pool = u->extra, *id = u->extra + strlen(u->extra) + 1;
        take_waiting(c, pool, id);
    }
    ((thue_cluster_cancel_cb *)u->fn)(u->data, status, removed);
    free(u);
}

int thue_cluster_queue_cancel(thue_cluster *c, const char *pool, const char *ticket,
                              thue_cluster_cancel_cb *cb, void *data)
{
    if (!c || !cb || !valid_text(pool, THUE_CLUSTER_POOL_MAX, 0x20, false) || !valid_id(ticket))
        return THUE_CLUSTER_EARG;
    usercb *u = new_usercb((void (*)(void))cb, data);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    size_t pl = strlen(pool);
    memcpy(u->extra, pool, pl + 1);
    memcpy(u->extra + pl + 1, ticket, strlen(ticket) + 1);
    char k[KEY_MAX], member[KEY_MAX];
    key(c, k, "qm:%s", pool);
    snprintf(member, sizeof member, "%s/%s", c->node, ticket);
    const char *args[] = {k, c->prefix, member};
    int rc = eval(c, S_CANCEL, 1, 3, args, on_cancel, u);
    if (rc)
        free(u);
    return rc;
}

/* ---- pub/sub -------------------------------------------------------------------------- */

static void on_published(thue_redis *r, int status, const redisReply *reply, const char *err,
                         void *data)
{
    (void)r;
    (void)err;
    usercb *u = data;
    long receivers = status == 0 && reply->type == REDIS_REPLY_INTEGER ? (long)reply->integer : 0;
    if (u->fn)
        ((thue_cluster_sent_cb *)u->fn)(u->data, status, receivers);
    free(u);
}

static int publish(thue_cluster *c, const char *channel, const char *payload, size_t len,
                   thue_cluster_sent_cb *cb, void *data)
{
    if (!payload || len < 1 || len > PAYLOAD_MAX || memchr(payload, '\0', len))
        return THUE_CLUSTER_EARG;
    char *msg = malloc(THUE_SEAL_HEADER_MAX + len);
    usercb *u = msg ? new_usercb((void (*)(void))cb, data) : NULL;
    if (!u) {
        free(msg);
        return THUE_CLUSTER_ENOMEM;
    }
    size_t msglen = 0;
    if (thue_seal_message(&c->keys, channel, c->node, c->boot, ++c->seq, thue_seal_now_ms(),
                          payload, len, msg, &msglen) != 0) {
        free(msg);
        free(u);
        return THUE_CLUSTER_EARG;
    }
    const char *argv[] = {"PUBLISH", channel, msg};
    size_t lens[] = {7, strlen(channel), msglen};
    int rc = thue_redis_command(c->cmd, on_published, u, 3, argv, lens);
    free(msg);
    if (rc)
        free(u);
    return rc;
}

int thue_cluster_broadcast(thue_cluster *c, const char *payload, size_t len,
                           thue_cluster_sent_cb *cb, void *data)
{
    if (!c)
        return THUE_CLUSTER_EARG;
    return publish(c, c->ch_all, payload, len, cb, data);
}

int thue_cluster_send(thue_cluster *c, const char *node, const char *payload, size_t len,
                      thue_cluster_sent_cb *cb, void *data)
{
    if (!c || thue_cluster_check_node(node) != 0)
        return THUE_CLUSTER_EARG;
    char ch[KEY_MAX];
    key(c, ch, "ch:node:%s", node);
    return publish(c, ch, payload, len, cb, data);
}

static void on_message(thue_redis *r, const char *channel, size_t channel_len, const char *payload,
                       size_t len, void *data)
{
    (void)r;
    thue_cluster *c = data;
    if (c->closing)
        return;
    if (channel_len == strlen(c->ch_pair) && memcmp(channel, c->ch_pair, channel_len) == 0) {
        deliver_pair(c, payload, len);
        return;
    }
    bool all = channel_len == strlen(c->ch_all) && memcmp(channel, c->ch_all, channel_len) == 0;
    bool mine = channel_len == strlen(c->ch_node) && memcmp(channel, c->ch_node, channel_len) == 0;
    if (!all && !mine)
        return;
    const char *ch = all ? c->ch_all : c->ch_node;
    /* The largest message a node sends: its header and PAYLOAD_MAX bytes. */
    if (len > THUE_SEAL_HEADER_MAX + PAYLOAD_MAX) {
        dropped(c, THUE_CLUSTER_DROP_UNSIGNED, "a message of %zu bytes on %s (too long to be "
                "a node's)", len, ch);
        return;
    }
    thue_seal_opened o;
    size_t blen = 0;
    int rc = thue_seal_open(&c->keys, ch, payload, len, &o, c->opened, &blen);
    if (rc == 0 && all && strcmp(o.from, c->node) == 0)
        return; /* this node's own broadcast */
    const char *why = NULL;
    if (rc == 0)
        rc = thue_seal_replay_check(c->replay, &o, thue_seal_now_ms(), THUE_SEAL_MAX_AGE_MS, &why);
    if (rc == THUE_SEAL_UNSIGNED) {
        dropped(c, THUE_CLUSTER_DROP_UNSIGNED,
                "a message on %s that is not sealed (not sent by a node of this cluster)", ch);
        return;
    }
    if (rc == THUE_SEAL_BAD) {
        dropped(c, THUE_CLUSTER_DROP_BAD_SIGNATURE,
                "a message on %s claiming to be from node %s whose signature does not verify "
                "(forged or altered, or its sender has another cluster secret)",
                ch, o.from[0] ? o.from : "?");
        return;
    }
    if (rc != 0) {
        dropped(c, THUE_CLUSTER_DROP_REPLAYED, "a message of node %s on %s: %s", o.from, ch,
                why ? why : "replayed");
        return;
    }
    /* A genuine payload has no NUL (publish refuses one); NUL-terminated for the hooks. */
    c->opened[blen] = '\0';
    if (blen == 0 || memchr(c->opened, '\0', blen))
        return;
    if (all && c->hooks.broadcast)
        c->hooks.broadcast(c->hooks.data, o.from, c->opened, blen);
    else if (mine && c->hooks.message)
        c->hooks.message(c->hooks.data, o.from, c->opened, blen);
}

/* ---- verdicts: {allowed, n} from the limit, name-claim and count-take scripts ---------- */

/* Reads a verdict reply into *allowed and *n; the status, THUE_CLUSTER_EREPLY when the
 * reply has another shape. */
static int verdict_of(int status, const redisReply *reply, bool *allowed, uint64_t *n)
{
    *allowed = false;
    *n = 0;
    if (status != 0)
        return status;
    if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
        reply->element[0]->type != REDIS_REPLY_INTEGER ||
        reply->element[1]->type != REDIS_REPLY_INTEGER)
        return THUE_CLUSTER_EREPLY;
    *allowed = reply->element[0]->integer == 1;
    *n = (uint64_t)reply->element[1]->integer;
    return 0;
}

static void on_limit(thue_cluster *c, int status, const redisReply *reply, const char *err,
                     void *data)
{
    (void)c;
    (void)err;
    usercb *u = data;
    bool allowed;
    uint64_t retry;
    status = verdict_of(status, reply, &allowed, &retry);
    ((thue_cluster_limit_cb *)u->fn)(u->data, status, allowed, retry);
    free(u);
}

/* ---- limits --------------------------------------------------------------------------- */



int thue_cluster_limit_take(thue_cluster *c, const char *k, double rate, double burst,
                            thue_cluster_limit_cb *cb, void *data)
{
    if (!c || !cb || !valid_text(k, THUE_CLUSTER_TEXT_MAX, 0x21, false) || !isfinite(rate) ||
        !(rate > 0) || !isfinite(burst) || !(burst >= 1))
        return THUE_CLUSTER_EARG;
    usercb *u = new_usercb((void (*)(void))cb, data);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    char bucket[KEY_MAX], r[32], b[32];
    key(c, bucket, "lim:%s", k);
    snprintf(r, sizeof r, "%.17g", rate);
    snprintf(b, sizeof b, "%.17g", burst);
    const char *args[] = {bucket, r, b};
    int rc = eval(c, S_LIMIT, 1, 3, args, on_limit, u);
    if (rc)
        free(u);
    return rc;
}

/* ---- names ---------------------------------------------------------------------------- */

int thue_cluster_name_claim(thue_cluster *c, const char *name, thue_cluster_limit_cb *cb,
                            void *data)
{
    if (!c || !cb || !valid_name_key(name))
        return THUE_CLUSTER_EARG;
    if (c->left)
        return THUE_CLUSTER_EDOWN;
    usercb *u = new_usercb((void (*)(void))cb, data);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    char knodes[KEY_MAX], knames[KEY_MAX], ttl[24];
    key(c, knodes, "nodes");
    key(c, knames, "names:%s", c->node);
    snprintf(ttl, sizeof ttl, "%u", ttl_ms(c));
    const char *args[] = {knodes, knames, c->prefix, c->node, name, ttl};
    int rc = eval(c, S_NAME_CLAIM, 2, 6, args, on_limit, u);
    if (rc)
        free(u);
    return rc;
}

/* ---- counts: the bot seats ------------------------------------------------------------- */

/* Adds delta to field in the local mirror (an entry at 0 goes): false when out of memory. */
static bool mirror_add(dirset *d, const char *field, long delta)
{
    if (set_add(&d->set, field) < 0)
        return false;
    sentry *e = *set_find(&d->set, field);
    e->count += delta;
    if (e->count <= 0)
        set_remove(&d->set, field);
    return true;
}

static bool valid_field(const char *field)
{
    return valid_text(field, THUE_CLUSTER_TEXT_MAX, 0x20, true);
}

int thue_cluster_count_add(thue_cluster *c, const char *field, long delta)
{
    if (!c || !valid_field(field) || delta == 0)
        return THUE_CLUSTER_EARG;
    dirset *d = &c->bots;
    if (!mirror_add(d, field, delta))
        d->dirty = true; /* (out of memory: the mirror is wrong, Redis stays right) */
    if (c->left)
        return 0;
    if (!thue_redis_up(c->cmd)) {
        d->dirty = true;
        return 0;
    }
    char k[KEY_MAX], n[24], ttl[24];
    key(c, k, "bots:%s", c->node);
    snprintf(n, sizeof n, "%ld", delta);
    snprintf(ttl, sizeof ttl, "%u", ttl_ms(c));
    const char *args[] = {k, field, n, ttl};
    if (eval(c, S_COUNT_ADD, 1, 4, args, on_set_write, d) != 0)
        d->dirty = true;
    return 0;
}

long thue_cluster_count_get(const thue_cluster *c, const char *field)
{
    if (!c || !valid_field(field))
        return 0;
    sentry **e = set_find((strset *)&c->bots.set, field);
    return e && *e ? (*e)->count : 0;
}

typedef struct count_take {
    usercb *u;
    thue_cluster *c;
    char f[2][THUE_CLUSTER_TEXT_MAX];
} count_take;

static void on_count_take(thue_cluster *c, int status, const redisReply *reply, const char *err,
                          void *data)
{
    (void)err;
    count_take *t = data;
    bool allowed;
    uint64_t which;
    status = verdict_of(status, reply, &allowed, &which);
    /* What the script added in Redis, the mirror adds too (a rebuild keeps it). */
    if (allowed)
        for (int i = 0; i < 2; i++)
            if (t->f[i][0] && !mirror_add(&c->bots, t->f[i], 1))
                c->bots.dirty = true;
    ((thue_cluster_limit_cb *)t->u->fn)(t->u->data, status, allowed, which);
    free(t->u);
    free(t);
}

int thue_cluster_count_take(thue_cluster *c, const char *f1, long max1, const char *f2, long max2,
                            thue_cluster_limit_cb *cb, void *data)
{
    if (!c || !cb || !valid_field(f1) || max1 < 1 || (f2 != NULL && (!valid_field(f2) || max2 < 1)))
        return THUE_CLUSTER_EARG;
    if (c->left)
        return THUE_CLUSTER_EDOWN;
    count_take *t = calloc(1, sizeof *t);
    if (!t || !(t->u = new_usercb((void (*)(void))cb, data))) {
        free(t);
        return THUE_CLUSTER_ENOMEM;
    }
    t->c = c;
    snprintf(t->f[0], sizeof t->f[0], "%s", f1);
    snprintf(t->f[1], sizeof t->f[1], "%s", f2 ? f2 : "");
    char knodes[KEY_MAX], kbots[KEY_MAX], ttl[24], m1[24], m2[24];
    key(c, knodes, "nodes");
    key(c, kbots, "bots:%s", c->node);
    snprintf(ttl, sizeof ttl, "%u", ttl_ms(c));
    snprintf(m1, sizeof m1, "%ld", max1);
    snprintf(m2, sizeof m2, "%ld", f2 ? max2 : 0);
    const char *args[] = {knodes, kbots, c->prefix, ttl, f1, m1, f2 ? f2 : "", m2};
    int rc = eval(c, S_COUNT_TAKE, 2, 8, args, on_count_take, t);
    if (rc) {
        free(t->u);
        free(t);
    }
    return rc;
}

/* ---- life ----------------------------------------------------------------------------- */

int thue_cluster_leave(thue_cluster *c, thue_cluster_done_cb *cb, void *data)
{
    if (!c || c->left)
        return THUE_CLUSTER_EARG;
    usercb *u = new_usercb((void (*)(void))cb, data);
    if (!u)
        return THUE_CLUSTER_ENOMEM;
    c->left = true;
    /* The waiting tickets first (a join must not take them meanwhile; one that was
     * paired before its cancel landed is still delivered by the paired hook), then the
     * record, the node's place in the zset and its rooms; the last answer is the
     * caller's. */
    for (waiting *w = c->tickets; w; w = w->next) {
        char k[KEY_MAX], member[KEY_MAX];
        key(c, k, "qm:%s", w->pool);
        snprintf(member, sizeof member, "%s/%s", c->node, w->id);
        const char *args[] = {k, c->prefix, member};
        eval(c, S_CANCEL, 1, 3, args, NULL, NULL);
    }
    char knode[KEY_MAX], knodes[KEY_MAX], krooms[KEY_MAX], knames[KEY_MAX], kbots[KEY_MAX];
    key(c, knode, "node:%s", c->node);
    key(c, knodes, "nodes");
    key(c, krooms, "rooms:%s", c->node);
    key(c, knames, "names:%s", c->node);
    key(c, kbots, "bots:%s", c->node);
    const char *zrem[] = {"ZREM", knodes, c->node};
    thue_redis_command(c->cmd, NULL, NULL, 3, zrem, NULL);
    const char *del[] = {"DEL", knode, krooms, knames, kbots};
    int rc = thue_redis_command(c->cmd, on_done, u, 5, del, NULL);
    if (rc)
        free(u);
    return rc;
}

bool thue_cluster_up(const thue_cluster *c)
{
    return c && thue_redis_up(c->cmd) && thue_redis_up(c->sub);
}

const char *thue_cluster_node_name(const thue_cluster *c)
{
    return c ? c->node : NULL;
}

thue_cluster *thue_cluster_new(uv_loop_t *loop, const thue_cluster_config *config, char *err,
                               size_t err_size)
{
    if (!loop || !config) {
        snprintf(err, err_size, "no loop or no cluster configuration");
        return NULL;
    }
    const char *prefix = config->prefix ? config->prefix : "thue:";
    if (thue_cluster_check_node(config->node) != 0) {
        snprintf(err, err_size, "node: \"%s\" is not a node name ([a-z0-9-], 1 to 32 characters)",
                 config->node ? config->node : "");
        return NULL;
    }
    if (!valid_text(config->address, THUE_CLUSTER_ADDRESS_MAX, 0x21, false)) {
        snprintf(err, err_size,
                 "address: the node's address is 1 to %d printable characters "
                 "without spaces",
                 THUE_CLUSTER_ADDRESS_MAX - 1);
        return NULL;
    }
    if (!valid_text(prefix, THUE_CLUSTER_PREFIX_MAX, 0x21, false)) {
        snprintf(err, err_size,
                 "prefix: the key prefix is 1 to %d printable characters without "
                 "spaces",
                 THUE_CLUSTER_PREFIX_MAX - 1);
        return NULL;
    }
    if (config->heartbeat_ms > 60000u || (config->heartbeat_ms && config->heartbeat_ms < 10)) {
        snprintf(err, err_size, "heartbeat: %u ms is outside 10..60000", config->heartbeat_ms);
        return NULL;
    }
    if (!config->secret || config->secret_len < THUE_SEAL_SECRET_MIN ||
        config->secret_len > THUE_SEAL_SECRET_MAX) {
        snprintf(err, err_size,
                 "secret: the cluster secret is %d to %d bytes (this one: %zu); every node "
                 "needs the same one",
                 THUE_SEAL_SECRET_MIN, THUE_SEAL_SECRET_MAX,
                 config->secret ? config->secret_len : (size_t)0);
        return NULL;
    }
    char host[THUE_REDIS_HOST_MAX];
    int port;
    if (thue_redis_parse_url(config->url, host, &port, err, err_size) != 0)
        return NULL;
    thue_cluster *c = calloc(1, sizeof *c);
    if (c)
        c->replay = thue_seal_replay_new();
    if (c)
        c->opened = malloc(THUE_SEAL_HEADER_MAX + PAYLOAD_MAX + 1);
    if (!c || !c->replay || !c->opened ||
        thue_seal_keys_derive(&c->keys, config->secret, config->secret_len) != 0) {
        if (c) {
            thue_seal_replay_free(c->replay);
            free(c->opened);
            thue_seal_keys_wipe(&c->keys);
        }
        free(c);
        snprintf(err, err_size, "out of memory (or libsodium cannot start)");
        return NULL;
    }
    thue_seal_boot_new(c->boot);
    c->drop_counts = config->drop_counts;
    c->loop = loop;
    c->rooms.kind = "rooms";
    c->names.kind = "names";
    c->bots.kind = "bots";
    c->bots.counts = true;
    snprintf(c->node, sizeof c->node, "%s", config->node);
    snprintf(c->address, sizeof c->address, "%s", config->address);
    snprintf(c->prefix, sizeof c->prefix, "%s", prefix);
    c->hb_ms = config->heartbeat_ms ? config->heartbeat_ms : 1000;
    c->hooks = config->hooks;
    key(c, c->ch_all, "ch:all");
    key(c, c->ch_node, "ch:node:%s", c->node);
    key(c, c->ch_pair, "pair:%s", c->node);

    thue_redis_config rc;
    memset(&rc, 0, sizeof rc);
    rc.url = config->url;
    rc.password = config->password;
    rc.backoff_max_ms = config->backoff_max_ms;
    rc.command_timeout_ms = config->command_timeout_ms;
    rc.on_state = on_cmd_state;
    rc.data = c;
    c->cmd = thue_redis_new(loop, &rc, err, err_size);
    const char *channels[] = {c->ch_all, c->ch_node, c->ch_pair};
    rc.on_state = on_sub_state;
    rc.on_message = on_message;
    rc.channels = channels;
    rc.nchannels = 3;
    c->sub = c->cmd ? thue_redis_new(loop, &rc, err, err_size) : NULL;
    if (!c->sub) {
        thue_redis_free(c->cmd);
        thue_seal_replay_free(c->replay);
        free(c->opened);
        thue_seal_keys_wipe(&c->keys);
        free(c);
        return NULL;
    }
    uv_timer_init(loop, &c->hb);
    c->hb.data = c;
    uv_timer_start(&c->hb, on_hb_timer, c->hb_ms, c->hb_ms);
    return c;
}

static void on_hb_closed(uv_handle_t *h)
{
    thue_cluster *c = h->data;
    thue_seal_replay_free(c->replay);
    free(c->opened);
    thue_seal_keys_wipe(&c->keys);
    free(c);
}

void thue_cluster_free(thue_cluster *c)
{
    if (!c || c->closing)
        return;
    c->closing = true;
    thue_redis_free(c->sub);
    thue_redis_free(c->cmd);
    set_clear(&c->rooms.set);
    set_clear(&c->names.set);
    set_clear(&c->bots.set);
    while (c->tickets) {
        waiting *w = c->tickets;
        c->tickets = w->next;
        free(w);
    }
    uv_close((uv_handle_t *)&c->hb, on_hb_closed);
}
