/*
 * cluster.h: what several server nodes share through one Redis (issue 19): the node
 * registry and its heartbeat, the room directory (room id -> node), sessions and resume
 * tokens, the quick-match pools with atomic pairing, pub/sub between the nodes, and
 * per-address limits counted across nodes. docs/cluster.md lists the keys, their TTLs and
 * the scripts.
 *
 * Everything is asynchronous on the caller's libuv loop: no call blocks, every answer
 * comes through a callback on the loop thread, never from inside the call that asked.
 * A call that returns a negative code (a malformed argument, out of memory) never runs
 * its callback; a call that returns 0 runs it exactly once, with status 0 or a negative
 * THUE_CLUSTER_E... code (redis.h): THUE_CLUSTER_EDOWN at once while Redis is down, so
 * the caller falls back to its local behaviour (the local quick match, quota.h's local
 * limiters). The state hook says when the cluster goes down and comes back.
 *
 * Two connections: one for commands, one subscribed to this node's channels. The node
 * keeps the truth about itself (its rooms, its waiting tickets, its load) and writes it
 * again after Redis comes back empty.
 *
 * Loop thread only. Strings given are copied; strings and structs handed to callbacks
 * are borrowed for the duration of the call.
 */
#ifndef THUE_SERVER_CLUSTER_CLUSTER_H
#define THUE_SERVER_CLUSTER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "cluster/redis.h"

/* Sizes with their NUL. */
#define THUE_CLUSTER_NODE_MAX 33     /* node names: [a-z0-9-]{1,32} */
#define THUE_CLUSTER_ADDRESS_MAX 128 /* where the balancer reaches a node */
#define THUE_CLUSTER_ID_MAX 129      /* room ids, ticket ids, tokens: [A-Za-z0-9_.-]{1,128} */
#define THUE_CLUSTER_TEXT_MAX 129  /* names and player keys: 1..128 bytes, no control characters */
#define THUE_CLUSTER_POOL_MAX 257  /* pool names: 1..256 printable ASCII bytes */
#define THUE_CLUSTER_PREFIX_MAX 65 /* key prefixes: 1..64 printable ASCII bytes, no space */

typedef struct thue_cluster thue_cluster;

/* A call's outcome: 0 or a negative THUE_CLUSTER_E... code. */
typedef void thue_cluster_done_cb(void *data, int status);

/* A live node, as its last heartbeat wrote it. */
typedef struct thue_cluster_node {
    char name[THUE_CLUSTER_NODE_MAX];
    char address[THUE_CLUSTER_ADDRESS_MAX];
    bool draining;
    long rooms, players;
} thue_cluster_node;

/* A quick-match ticket: the node whose player waits, the ticket's id on that node (unique
 * on the node, across pools too: a session id and a counter), the player's key (two
 * tickets of one player never pair: an account id, or a guest's node-qualified session),
 * the player's display name and rating. Player keys and names are 1..128 bytes of UTF-8
 * without control characters. */
typedef struct thue_cluster_ticket {
    char node[THUE_CLUSTER_NODE_MAX];
    char id[THUE_CLUSTER_ID_MAX];
    char player[THUE_CLUSTER_TEXT_MAX];
    char name[THUE_CLUSTER_TEXT_MAX];
    double rating;
} thue_cluster_ticket;

/* A pair: `mine` is this node's ticket, `other` the opponent's (on any node). */
typedef struct thue_cluster_pair {
    char pool[THUE_CLUSTER_POOL_MAX];
    thue_cluster_ticket mine, other;
    bool made_here; /* this node's join made the pair (mine joined, other was waiting) */
} thue_cluster_pair;

/* A session as the cluster knows it: the node that holds it, the name, the account (0: a
 * guest). */
typedef struct thue_cluster_session {
    char node[THUE_CLUSTER_NODE_MAX];
    char name[THUE_CLUSTER_TEXT_MAX];
    int64_t account;
    /* not a session yet: a guest of another node sent to node with `moved`, for whom node
     * makes a session named name at the first hello with the token (a hand-off) */
    bool handoff;
} thue_cluster_session;

typedef struct thue_cluster_hooks {
    /* Both connections up (up = true), or one of them went down. */
    void (*state)(void *data, bool up);
    /* A broadcast of another node (this node's own are not echoed). */
    void (*broadcast)(void *data, const char *from, const char *payload, size_t len);
    /* A message addressed to this node (thue_cluster_send). */
    void (*message)(void *data, const char *from, const char *payload, size_t len);
    /* A ticket of this node that was waiting has been paired (by a join on any node). */
    void (*paired)(void *data, const thue_cluster_pair *pair);
    void *data;
} thue_cluster_hooks;

/* Why something read from Redis was dropped (thue_cluster_drops, the metric). */
enum {
    THUE_CLUSTER_DROP_UNSIGNED,      /* not sealed or signed at all */
    THUE_CLUSTER_DROP_BAD_SIGNATURE, /* its HMAC does not verify (forged, altered, another
                                        secret) */
    THUE_CLUSTER_DROP_REPLAYED,      /* genuine but seen before, of an older boot, or too
                                        old (or its sender's clock is off by a minute) */
    THUE_CLUSTER_DROP_REASONS
};

typedef struct thue_cluster_config {
    const char *url;             /* redis://HOST:PORT or unix:/PATH (required) */
    const char *password;        /* Redis's requirepass; NULL: none (copied) */
    /* The cluster secret every node shares and Redis never sees (required): 32..4096
     * bytes. Keys are derived from it at once; the caller may wipe it after the call. It
     * seals every broadcast and message (an HMAC-SHA256 over the sender, the channel and
     * the encrypted payload, with the sender's boot id and a counter against replays),
     * names resume tokens by their HMAC, and signs the sessions and quick-match tickets
     * kept in Redis; what does not verify is dropped (docs/cluster.md, "Security"). */
    const unsigned char *secret;
    size_t secret_len;
    /* Optional: THUE_CLUSTER_DROP_REASONS counters the cluster adds its drops to (the
     * server's metrics); NULL: none. */
    uint64_t *drop_counts;
    const char *node;            /* this node's name, [a-z0-9-]{1,32} (required) */
    const char *address;         /* where the balancer reaches it, 1..127 bytes (required) */
    const char *prefix;          /* every key and channel starts with it; NULL: "thue:" */
    unsigned heartbeat_ms;       /* 0: 1000; records live 3 heartbeats */
    unsigned backoff_max_ms;     /* reconnect backoff cap; 0: 2000 (from 100 ms, doubling) */
    unsigned command_timeout_ms; /* 0: 5000 (see redis.h) */
    thue_cluster_hooks hooks;
} thue_cluster_config;

/* 0 when name is a valid node name ([a-z0-9-]{1,32}), THUE_CLUSTER_EARG otherwise. */
int thue_cluster_check_node(const char *name);

/*
 * A cluster client on loop; it connects at once and comes back after every loss. NULL
 * with a sentence naming the bad field in err (bad address, bad node name, ...).
 */
thue_cluster *thue_cluster_new(uv_loop_t *loop, const thue_cluster_config *config, char *err,
                               size_t err_size);
/* Closes both connections (pending callbacks hear THUE_CLUSTER_ECLOSED during the call);
 * the memory goes after the loop has run its close callbacks. NULL: no-op. Not from inside
 * one of its callbacks. */
void thue_cluster_free(thue_cluster *c);

/*
 * Leaves the cluster (a graceful shutdown or a drain that ends): this node's record, its
 * room set and its waiting tickets are deleted now, so other nodes stop finding them at
 * once rather than after the TTL, and no heartbeat or directory write is sent any more.
 * cb (may be NULL) hears when Redis has done it, or an error (the TTLs do it then).
 * Free the cluster afterwards; there is no way back in.
 */
int thue_cluster_leave(thue_cluster *c, thue_cluster_done_cb *cb, void *data);

/* Both connections up. */
bool thue_cluster_up(const thue_cluster *c);
/* This node's name (borrowed). */
const char *thue_cluster_node_name(const thue_cluster *c);
/* Heartbeats answered so far, directory rebuilds written so far (for tests and metrics). */
unsigned long thue_cluster_heartbeats(const thue_cluster *c);
unsigned long thue_cluster_rebuilds(const thue_cluster *c);
/* Heartbeats (the first one excepted) that found this node's record gone: it had been
 * taken for dead meanwhile (its heartbeats late by more than its TTL, or Redis lost it);
 * and the waiting tickets that a join had swept meanwhile and this node put back into
 * their pools (see thue_cluster_queue_join). For tests and logs. */
unsigned long thue_cluster_lapses(const thue_cluster *c);
unsigned long thue_cluster_restored(const thue_cluster *c);
/* Messages, sessions, tickets and pairs read from Redis and dropped so far, by reason
 * (THUE_CLUSTER_DROP_...): 0 when reason is out of range. */
unsigned long thue_cluster_drops(const thue_cluster *c, int reason);

/* ---- nodes ---- */
/* What the next heartbeats report: the rooms and players here, and whether the node is
 * draining (the balancer sends it no new players). */
void thue_cluster_set_load(thue_cluster *c, long rooms, long players);
void thue_cluster_set_draining(thue_cluster *c, bool draining);
/* Writes the heartbeat now (it also runs every heartbeat_ms by itself). */
void thue_cluster_heartbeat_now(thue_cluster *c);
/* The live nodes (those whose last heartbeat is younger than 3 heartbeats), by name. */
typedef void thue_cluster_nodes_cb(void *data, int status, const thue_cluster_node *nodes,
                                   size_t n);
int thue_cluster_nodes(thue_cluster *c, thue_cluster_nodes_cb *cb, void *data);

/* ---- the room directory ---- */
/*
 * Registers a room of this node (kept locally, written to Redis now and again after
 * Redis loses it): 0, THUE_CLUSTER_EARG for a malformed id, THUE_CLUSTER_ENOMEM. A room
 * already registered: 0, nothing changes. Works while Redis is down (written when it
 * comes back).
 */
int thue_cluster_room_add(thue_cluster *c, const char *room);
/* Unregisters a room of this node: 0, or THUE_CLUSTER_EARG when it was not registered. */
int thue_cluster_room_remove(thue_cluster *c, const char *room);
/* Rooms registered here. */
size_t thue_cluster_room_count(const thue_cluster *c);

/* ---- the names in use ---- */
/* A verdict from Redis: the name claims below, the limits shared by the nodes (further). */
typedef void thue_cluster_limit_cb(void *data, int status, bool allowed, uint64_t retry_ms);
/*
 * The name keys of this node's sessions (1..128 bytes, no control characters), kept as
 * the rooms are: locally, and in Redis under names:<node> with the heartbeat's TTL, so
 * that a dead node's names free themselves. name_add registers one (0, EARG, ENOMEM;
 * already there: nothing changes); name_remove takes it out here and in Redis (in Redis
 * even when it was not registered here, for a claim whose hello did not go through:
 * then EARG). Both work while Redis is down (written when it comes back).
 */
int thue_cluster_name_add(thue_cluster *c, const char *name);
int thue_cluster_name_remove(thue_cluster *c, const char *name);
size_t thue_cluster_name_count(const thue_cluster *c);
/*
 * Asks Redis whether name is free across the cluster: allowed false when another live
 * node's name set holds it (retry_ms is 0); true when no other node does, and then it is
 * in this node's set in Redis already (atomic: of two nodes claiming one name at once,
 * one wins). This node's own set is not consulted (the caller knows its sessions);
 * register the name with name_add once it is used, or take it back with name_remove.
 * Status THUE_CLUSTER_EDOWN while Redis is down: the caller decides alone.
 */
int thue_cluster_name_claim(thue_cluster *c, const char *name, thue_cluster_limit_cb *cb,
                            void *data);
/* The node that holds room: node NULL when no live node does. */
typedef void thue_cluster_lookup_cb(void *data, int status, const char *node);
int thue_cluster_room_lookup(thue_cluster *c, const char *room, thue_cluster_lookup_cb *cb,
                             void *data);

/* ---- sessions and resume tokens ---- */
/* A token is never written to Redis: its key is the HMAC of the token under a key of the
 * secret (P sess:HEX), and the record carries an HMAC of its content and key; a record
 * that does not verify reads as unknown (and is counted as dropped). */
/* Stores token -> session for ttl_ms (the grace period; >= 1). cb may be NULL. */
int thue_cluster_session_put(thue_cluster *c, const char *token, const thue_cluster_session *s,
                             unsigned ttl_ms, thue_cluster_done_cb *cb, void *data);
/* The session of token: s NULL when unknown or expired. */
typedef void thue_cluster_session_cb(void *data, int status, const thue_cluster_session *s);
int thue_cluster_session_get(thue_cluster *c, const char *token, thue_cluster_session_cb *cb,
                             void *data);
/* Forgets token (unknown: status 0 too). cb may be NULL. */
int thue_cluster_session_delete(thue_cluster *c, const char *token, thue_cluster_done_cb *cb,
                                void *data);

/* ---- quick match across nodes ---- */
/*
 * Joins pool (the lobby's name for one queue: game, options, clock, rated) with ticket
 * (ticket->node is ignored: this node). Atomically in Redis, either the longest-waiting
 * ticket of another player on a live node whose rating is within max_diff (< 0: any) is
 * taken out of the pool and the pair is the answer (cb's pair: mine = this ticket, and
 * the other node hears it through its paired hook), or this ticket waits (cb's pair NULL)
 * for ttl_ms at most (0: 60 s); when someone takes it later, the paired hook runs here.
 * THUE_CLUSTER_EQUEUED: this ticket id already waits in that pool.
 * A waiting ticket of a node taken for dead (its record expired: 3 heartbeats) never
 * pairs: a join sweeps it out of the pool. If this node was only late (its heartbeats
 * stalled while it lived), its next heartbeat finds its record gone and puts each swept
 * ticket back at its old place in the line; meanwhile a cancel of it answers removed. A
 * waiting ticket is thus paired (the hook), cancelled or expired, never lost.
 * The ticket is signed by this node (an HMAC over the pool and its fields, with an expiry
 * ttl_ms on: seal.h) and Redis keeps the signature with it; a node checks both tickets of
 * every pair it hears, and a taken ticket that its node did not sign (one put into the
 * pool by someone else) makes no pair: the join answers THUE_CLUSTER_EREPLY, and a pair
 * published by someone else is dropped.
 */
typedef void thue_cluster_join_cb(void *data, int status, const thue_cluster_pair *pair);
int thue_cluster_queue_join(thue_cluster *c, const char *pool, const thue_cluster_ticket *t,
                            double max_diff, unsigned ttl_ms, thue_cluster_join_cb *cb, void *data);
/* Takes a waiting ticket of this node out of pool: removed true when it was still
 * waiting (or swept, see above: it was never paired); false when it was paired first (the
 * paired hook tells, or told, which) or had expired. */
typedef void thue_cluster_cancel_cb(void *data, int status, bool removed);
int thue_cluster_queue_cancel(thue_cluster *c, const char *pool, const char *ticket,
                              thue_cluster_cancel_cb *cb, void *data);

/* ---- pub/sub ---- */
/* Sends payload (opaque text, 1..65536 bytes) to every other node's broadcast hook, or to
 * one node's message hook. cb (may be NULL) hears how many subscribers Redis delivered it
 * to through receivers (0: nobody listened: a message is not stored). The payload travels
 * sealed (encrypted, with an HMAC over the sender, the channel and the ciphertext, and a
 * counter): the hooks hear only what another node with the secret sent, once, within a
 * minute of its sending; anything else published on the channels is dropped. */
typedef void thue_cluster_sent_cb(void *data, int status, long receivers);
int thue_cluster_broadcast(thue_cluster *c, const char *payload, size_t len,
                           thue_cluster_sent_cb *cb, void *data);
int thue_cluster_send(thue_cluster *c, const char *node, const char *payload, size_t len,
                      thue_cluster_sent_cb *cb, void *data);

/* ---- counts shared by the nodes: the bot seats ---- */
/*
 * Counts of this node by field (1..128 bytes, no control characters: "by:OWNER",
 * "at:ADDRESS"), kept as the rooms are: locally, and in Redis as a hash bots:<node> with
 * the heartbeat's TTL, so that a dead node's counts go with it. count_add adds delta
 * (negative to give back; a count never stays at or below 0): 0, or EARG; works while
 * Redis is down (written when it comes back). count_get: this node's count of field.
 * count_take asks Redis for one more of f1 (limit max1) and, unless f2 is NULL, of f2
 * (max2) at once, summed over every live node: allowed, and then both counts of this node
 * are up by one already (here and in Redis: do not count_add them again; count_add -1 to
 * give them back), or not with retry_ms 1 (f1's limit reached) or 2 (f2's). Atomic: of
 * two nodes taking the last one at once, one gets it. EDOWN while Redis is down (the
 * caller decides alone).
 */
int thue_cluster_count_add(thue_cluster *c, const char *field, long delta);
long thue_cluster_count_get(const thue_cluster *c, const char *field);
int thue_cluster_count_take(thue_cluster *c, const char *f1, long max1, const char *f2, long max2,
                            thue_cluster_limit_cb *cb, void *data);

/* ---- limits shared by the nodes ---- */
/*
 * Takes a token from the bucket of key (a name such as "rooms:" plus quota.h's address
 * key; 1..128 bytes, no control characters) that refills at rate tokens a second up to
 * burst (> 0, >= 1): allowed, or not with retry_ms until a token is there. Atomic in
 * Redis; while Redis is down the status is THUE_CLUSTER_EDOWN and the caller uses its
 * local limiter.
 */
int thue_cluster_limit_take(thue_cluster *c, const char *key, double rate, double burst,
                            thue_cluster_limit_cb *cb, void *data);

#endif
