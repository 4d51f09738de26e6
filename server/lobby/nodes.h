/*
 * nodes.h: the lobby's side of several nodes (nodes.c, over server/cluster/cluster.h;
 * docs/cluster.md): what this node writes to the Redis that the nodes share (its rooms,
 * its sessions' resume tokens, its load), the requests whose answer waits for Redis (a
 * room or a resume token that lives on another node: they are answered with `moved`,
 * PROTOCOL.md section 17), and the events it sends the other nodes.
 *
 * Without a cluster (lobby->cluster NULL: one server) every call here is a no-op, or
 * answers as one server does. While Redis is down the same holds: the node goes on alone
 * and writes what it holds again when Redis is back (cluster.h).
 *
 * Layer: beside util.c, at the bottom (docs/architecture.md): calls util.c and the
 * cluster only; the modules above call it. Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_NODES_H
#define THUE_SERVER_LOBBY_NODES_H

#include <jansson.h>

#include "lobby_types.h"

/* A cluster that is up: the calls below that need Redis can work. */
bool nodes_up(const thue_lobby *l);
/* This node's name, or "" without a cluster. */
const char *nodes_self(const thue_lobby *l);

/* The directory: a room of this node was made, or is gone; or any id (a tournament's). */
void nodes_room_added(thue_lobby *l, const room *r);
void nodes_room_gone(thue_lobby *l, const room *r);
void nodes_id_added(thue_lobby *l, const char *id);
void nodes_id_gone(thue_lobby *l, const char *id);

/* A session's resume token is new (a welcome): the cluster maps it to this node, and
 * forgets old (NULL: none). A session that ends: its token is forgotten. */
void nodes_session_token(thue_lobby *l, const session *s, const char *old);
void nodes_session_gone(thue_lobby *l, const session *s);
/* The session record of token goes from Redis. */
void nodes_session_token_gone(thue_lobby *l, const char *token);

/*
 * join or spectate named a room that is not here: asks the directory. Returns LOBBY_LATER
 * when the request will be answered later (`moved` with the request's id when another
 * live node has the room, else the no_such_room error the same as one server gives), or
 * the error to answer now (no cluster, or Redis down: no_such_room with field and message
 * set). nodes_find_tournament: the same for a tournament's commands (`moved` reason
 * tournament, or no_such_tournament).
 */
int nodes_find_room(request *rq, const char *room_id);
int nodes_find_tournament(request *rq, const char *id);
/*
 * hello's resume token is not a session here: asks the cluster. LOBBY_LATER: answered later
 * (`moved`, reason session, when a live node holds the session; else bad_resume, field
 * resume); or the error to answer now.
 */
int nodes_find_session(request *rq, const char *token);
/* A connection is gone: answers that were waiting for it are dropped. */
void nodes_client_gone(thue_lobby *l, thue_client *c);
/* Whether c waits for nodes_find_session's answer (a second hello is refused). */
bool nodes_hello_pending(const thue_lobby *l, const thue_client *c);

/* Sends c the `moved` message: reason "room", "session" or "match"; id NULL for an
 * event; room and resume NULL when not given. */
void nodes_send_moved(thue_lobby *l, thue_client *c, const thue_msg_id *id, const char *reason,
                      const char *node, const char *room_id, const char *resume);

/* Sends an event (a JSON object with "t": its kind) to every other node, or to one; the
 * object is consumed. A no-op without a cluster or while Redis is down. */
void nodes_broadcast(thue_lobby *l, json_t *event);
void nodes_send(thue_lobby *l, const char *node, json_t *event);
/* The same for an event the other nodes must not miss (a new account, a rated match's
 * ratings): while Redis is down it is kept (up to NODES_KEPT_MAX, the oldest dropped
 * past that, with a warning), and sent once Redis has been back for NODES_FLUSH_MS (the
 * other nodes' subscriptions come back within their backoff). nodes_tick sends them. */
#define NODES_KEPT_MAX 100000
#define NODES_FLUSH_MS 3000
void nodes_broadcast_kept(thue_lobby *l, json_t *event);
/* Redis is back (lobby.c's state hook): the kept events go in NODES_FLUSH_MS. */
void nodes_up_again(thue_lobby *l);
/* Each second (lobby.c's timer): the kept events, when their time has come. */
void nodes_tick(thue_lobby *l);

/*
 * The lobby across nodes: every node tells the others its public rooms (a `rooms`
 * message of every game's, nodes_rooms_publish, called each second: sent when it changed
 * or 3 s have passed), and keeps theirs (nodes_rooms_event) for 7 s after the last.
 * list_rooms and /api/rooms show them after this node's (nodes_each_remote_room).
 */
void nodes_rooms_publish(thue_lobby *l, const char *rooms_text);
void nodes_rooms_event(thue_lobby *l, const char *from, json_t *ev);
/* The same for tournaments (a `tournaments` message: its newest 200), shown by
 * list_tournaments and /api/tournaments after this node's. */
void nodes_tournaments_publish(thue_lobby *l, const char *text);
typedef void nodes_tournament_fn(void *ctx, const thue_tournament_summary *s);
void nodes_each_remote_tournament(thue_lobby *l, nodes_tournament_fn *fn, void *ctx);
typedef void nodes_room_fn(void *ctx, const thue_room_summary *s);
void nodes_each_remote_room(thue_lobby *l, nodes_room_fn *fn, void *ctx);
/* How many rooms nodes_each_remote_room would give. */
long nodes_remote_room_count(thue_lobby *l);

/*
 * Per-address limits across the nodes: each node keeps its own bucket (quota.h) and also
 * takes a token from the key's bucket in Redis, shared by every node, after the fact (the
 * loop does not wait for Redis). When Redis says the shared bucket is empty, this node
 * refuses that key until the bucket has a token again (nodes_limit_blocked). So an address
 * gets the limit across all nodes, and at most one request more per node and per refill
 * (rooms and claims do better: nodes_limit_gate below).
 * kind names the limit ("rooms", "claims"); key is quota.h's address key.
 */
bool nodes_limit_blocked(thue_lobby *l, const char *kind, const char *key, uint64_t *retry_ms);
void nodes_limit_take(thue_lobby *l, const char *kind, const char *key, double rate,
                      double burst);
/*
 * The limits of creating rooms and claiming names are decided by the shared bucket
 * itself, before the message is run, so that no node lets one through that the others'
 * requests have used up: with the cluster up, nodes_limit_gate asks Redis for a token
 * of kind:key and returns LOBBY_LATER; the verdict runs the message again
 * (lobby_run_gated: rq->gated, rq->gate_denied, rq->gate_retry_ms), and the connection's
 * later messages wait in order meanwhile (nodes_limit_hold, at most NODES_HELD_MAX). It
 * returns 0 (decide here with this node's own bucket) without a cluster, with Redis
 * down, when the verdict is already in, or when out of memory.
 */
#define NODES_HELD_MAX 64
int nodes_limit_gate(request *rq, const char *kind, const char *key, double rate, double burst);
/*
 * A guest's name is unique across the nodes: each node keeps the name keys of its
 * sessions in Redis (nodes_name_linked and _unlinked follow session.c's name table), and
 * a hello that takes a new name asks Redis first whether another live node has a session
 * of that name (nodes_name_gate: LOBBY_LATER, and the message is run again with
 * rq->v.name: 1 free, -1 taken, 2 no answer). 0 (decide here) without a cluster, with
 * Redis down, when the verdict for that name is in, after NODES_NAME_ASKS_MAX claims for
 * one message (generated guest names), or when out of memory. A name claimed for a
 * connection that closed meanwhile is given back.
 */
#define NODES_NAME_ASKS_MAX 4
int nodes_name_gate(request *rq, const char *name);
/*
 * The bots seated with seat_bot are counted across the nodes, by owner (by: an account,
 * or a guest session qualified by its node) and by address (ip): each node keeps its
 * counts in Redis (bots:<node>, the heartbeat's TTL: a dead node's go with it), and a
 * seat_bot asks Redis first whether the sums over the live nodes are below max_by and
 * max_ip (nodes_bots_gate, as nodes_name_gate): verdict rq->v.bots 1 (the seat is counted
 * already, here and in Redis: the seat is marked owner_taken so that it is not counted
 * again), -1 (rq->v.bots_which: 1 the owner's limit, 2 the address's), 2 no answer. A
 * seat taken for a message that then fails, or whose connection closed meanwhile, goes
 * back (nodes_bot_count with -1). nodes_bot_count follows the local counts (room.c).
 */
int nodes_bots_gate(request *rq, const char *by, long max_by, const char *ip, long max_ip);
void nodes_bot_count(thue_lobby *l, const char *by, const char *ip, long delta);
/* A name Redis found free for a message that then did not use it goes back (unless a
 * session here has it). */
void nodes_name_release(thue_lobby *l, const char *name);
void nodes_name_linked(thue_lobby *l, const char *key);
void nodes_name_unlinked(thue_lobby *l, const char *key);
/* A message that came while one of the connection's messages awaits its verdict: kept
 * (true: do nothing more with it now); false when nothing is waiting. */
bool nodes_limit_hold(thue_client *c, const char *text, size_t len);
/* The connection closed: its waiting verdict finds nobody, its held messages go. */
void nodes_limit_client_gone(thue_client *c);

/* The cluster's load and draining flags follow the lobby's. */
void nodes_load_changed(thue_lobby *l);
void nodes_set_draining(thue_lobby *l);

/* Lobby close: every waiting answer is dropped (their callbacks still come, from
 * thue_cluster_free, and free what they hold). */
void nodes_close(thue_lobby *l);
/* Frees the other nodes' room lists and the kept events (lobby close). */
void nodes_free(thue_lobby *l);

#endif
