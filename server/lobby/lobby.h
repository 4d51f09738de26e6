/*
 * lobby.h: the game side of thue-server: sessions, rooms, seats, spectators, matches,
 * clocks, bots on the worker pool, quick match, chat. It speaks PROTOCOL.md through the
 * codec: messages arrive as text from a connection and replies and events leave as text
 * to connections. It knows nothing of sockets or libwebsockets: the network layer gives it
 * two hooks (send, close) and calls it when a connection opens, sends a message or goes.
 *
 * Loop thread only: every function here, the hooks, and the lobby's own timers and pool
 * callbacks run on the thread of `loop`. The lobby never blocks, sleeps or searches: bot
 * moves are jobs on the pool (search/pool.h), and the results come back on the loop.
 */
#ifndef THUE_SERVER_LOBBY_H
#define THUE_SERVER_LOBBY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "cluster/cluster.h"
#include "metrics.h"
#include "search/pool.h"
#include "store/store.h"

/* A connection of the network layer (opaque here). */
typedef struct thue_conn thue_conn;
/* The lobby's state for one connection (opaque to the network layer). */
typedef struct thue_client thue_client;

typedef struct thue_lobby_hooks {
    /* Queues one complete message (JSON text, len bytes) on conn; the lobby keeps no
     * reference to text. Sending to a connection that is closing is a no-op. */
    void (*send)(void *ctx, thue_conn *conn, const char *text, size_t len);
    /* Closes conn with a WebSocket close code (1000, 1001, 1008, ...) once what was queued
     * has been sent. thue_lobby_disconnected follows, later, from the network layer. */
    void (*close)(void *ctx, thue_conn *conn, int code, const char *reason);
    void *ctx;
    /* Whether len more bytes may be queued on conn now without crowding it: nothing is
     * waiting for it, or what is stays within half its send bound (--send-max-kib) with
     * them. The lobby paces long sends by it (thue.v2's analysis parts), so that other
     * messages never wait behind much. NULL: always. */
    int (*may_send)(void *ctx, thue_conn *conn, size_t len);
} thue_lobby_hooks;

/* The defaults of the lobby's limits (a config member left 0 takes its default). */
#define THUE_LOBBY_ROOM_RATE_DEFAULT 60
#define THUE_LOBBY_BOT_THINK_MAX_DEFAULT 60000
#define THUE_LOBBY_BOT_SEATS_PER_OWNER_DEFAULT 4
#define THUE_LOBBY_MAX_TOURNAMENTS_DEFAULT 1000
#define THUE_LOBBY_TOURNAMENTS_PER_ACCOUNT_DEFAULT 3
#define THUE_LOBBY_TOURNAMENTS_PER_IP_DEFAULT 10
#define THUE_LOBBY_TOURNAMENT_RATE_DEFAULT 10
#define THUE_LOBBY_TOURNAMENT_EXPIRE_S_DEFAULT 86400
#define THUE_LOBBY_CLAIMS_PER_IP_DEFAULT 5
#define THUE_LOBBY_RATED_MIN_MOVES_DEFAULT 2
#define THUE_LOBBY_RATED_PAIR_MAX_DEFAULT 5
#define THUE_LOBBY_MAX_ANALYSES_DEFAULT 16
#define THUE_LOBBY_ANALYSIS_ITERATIONS_MAX_DEFAULT 1000000
#define THUE_LOBBY_ANALYSIS_TREE_NODES_DEFAULT 1000000
#define THUE_LOBBY_ANALYSES_PER_OWNER_DEFAULT 2
#define THUE_LOBBY_ANALYSES_PER_IP_DEFAULT 4
#define THUE_LOBBY_BOT_SEATS_PER_IP_DEFAULT 8
#define THUE_LOBBY_ANALYSIS_SECONDS_MAX_DEFAULT 120
#define THUE_LOBBY_ANALYSIS_TREE_MAX_BYTES_DEFAULT ((size_t)2 << 20)
#define THUE_LOBBY_SEARCH_MOVES_MAX_DEFAULT 100000
#define THUE_LOBBY_RATED_PAIR_WINDOW_MS (24 * 3600 * 1000LL)
#define THUE_LOBBY_PASSWORD_JOBS_DEFAULT 2
#define THUE_LOBBY_LOGIN_FAILS_PER_IP_DEFAULT 30
#define THUE_LOBBY_LOGIN_FAILS_PER_NAME_DEFAULT 10

typedef struct thue_lobby_config {
    int grace_s;              /* seats kept after a lost connection */
    int max_rooms_per_player; /* rooms a player may have created and not yet left */
    int max_rooms;            /* rooms on the server */
    int room_linger_s;        /* a finished match's room, or an empty room, lasts this long */
    int bot_think_ms;         /* think time of seat_bot without think_ms */
    int bot_think_max_ms;     /* the most think_ms seat_bot may ask for (0: 60000) */
    int bot_seats_per_owner;  /* bots seated with seat_bot at once by one account, or by
                                 one guest session (0: the default, 4) */
    bool guest_bot_vs_bot;    /* guests may seat a bot against a bot (default: accounts
                                 only) */
    int rate, burst;          /* each connection's token bucket: messages per second and
                                 the most it holds (PROTOCOL.md section 1) */
    uint64_t seed;            /* guest names, coin tosses, bots' game seeds: from
                                 getrandom when 0 (ids and invite codes always come
                                 from getrandom) */
    double tau;               /* Glicko-2's tau (0: the default, 0.5) */
    int room_rate_per_ip;     /* rooms one address may make a minute, create_room and
                                 quick match together (0: the default, 60) */
    /* Tournaments (0: the defaults above): open and running ones on the server; open
     * ones one account, and one address, may have created; created an hour by one
     * account, and by one address; seconds an open one waits to be started. */
    int max_tournaments, tournaments_per_account, tournaments_per_ip, tournament_rate;
    int tournament_expire_s;
    /* The network layer's keep-alive, announced in welcome.limits (0: not announced):
     * seconds of silence before a WebSocket ping, and before the drop. */
    int ping_s, idle_s;
    /* Accounts and ratings (0: the defaults above, except rated_min_moves, taken as given,
     * 0 being no minimum; the server passes its flags' defaults): accounts
     * one address may claim an hour; moves each player must have made for a rated match
     * that ends by resign, timeout or abandon to be rated; rated matches two accounts may
     * play each other within 24 h (later ones are not rated). */
    int claims_per_ip, rated_min_moves, rated_pair_max;
    /* Analyses (0: the defaults below): open at once on the server; iterations one may
     * run in all; the nodes its tree may hold. */
    int max_analyses, analysis_iterations_max, analysis_tree_nodes;
    /* Finished matches reviewed at once (reviews.c; 0: the default, 1; < 0: none, and
     * GET /api/matches/{id}/review answers "off"). */
    int reviews;
    /* Fair shares (0: the defaults, 2, 4 and 8): analyses open of one owner (an account,
     * or the guests of one address) and from one address, accounts included (never all
     * of max_analyses); bots seated with seat_bot from one address. */
    int analyses_per_owner, analyses_per_ip, bot_seats_per_ip;
    /* Bounds of a search (0: the defaults, 120 s, 2 MiB, 100000): seconds of search one
     * analysis may run in all; bytes of one analysis_tree message; legal moves a
     * position may have for a bot or an analysis to search it. */
    int analysis_seconds_max;
    size_t analysis_tree_max_bytes;
    int search_moves_max;
    /* Passwords (0: the defaults below): Argon2id's passes and MiB of a new hash; hashes
     * computed at once (each takes password_mem_mib); failed logins (and wrong
     * old_password) one address, and one name, may have an hour (a bucket of N refilled
     * over an hour). */
    int password_ops, password_mem_mib, password_jobs;
    int login_fails_per_ip, login_fails_per_name;
    /* Several nodes: this node's name (--node), "" for a single server; the tournaments it
     * saves are its own, and it loads only its own. */
    char node[33];
} thue_lobby_config;

typedef struct thue_lobby thue_lobby;

/* A lobby on loop, bots on pool (borrowed; it must outlive the lobby), counting into
 * metrics (borrowed). NULL when out of memory. */
thue_lobby *thue_lobby_new(uv_loop_t *loop, const thue_lobby_config *cfg, thue_pool *pool,
                           thue_metrics *metrics);
/*
 * Persistence: accounts, ratings and match records go to store (borrowed; opened,
 * loaded and started by the caller; it must stay open until thue_lobby_close has been
 * called). Without a store (NULL, the default) claim_name, token logins, rated rooms and
 * ladders answer not_available and finished matches are not recorded. Set before the
 * first connection, after loading: thue_store_load(store, thue_lobby_load_account,
 * thue_lobby_load_rating, NULL, lobby, ...).
 */
void thue_lobby_set_store(thue_lobby *lobby, thue_store *store);
void thue_lobby_load_account(void *lobby, const thue_account_row *row);
void thue_lobby_load_rating(void *lobby, const thue_rating_row *row);
/* A login token (thue_store_load_tokens), after the accounts and before
 * thue_lobby_set_store. */
void thue_lobby_load_token(void *lobby, int64_t account, const unsigned char hash[32]);
/* Whether store jobs the lobby queued are still waiting for their callbacks (close the
 * store, which runs them, before closing the lobby). */
int thue_lobby_store_pending(const thue_lobby *lobby);

/* The id of the stored account whose token this is (an account token, "t_..."), or 0 (an
 * unknown token, a bot, no store). For the HTTP API's `Authorization: Bearer TOKEN`. */
int64_t thue_lobby_account_id(thue_lobby *lobby, const char *token);
/* GET /api/matches/{id}/review found no review of a stored match: review it now in the
 * background (reviews.c; nothing when one is under way or too many are). */
void thue_lobby_review_wanted(thue_lobby *lobby, const char *match_id);
/* 1 when the server reviews matches (--reviews above 0). */
int thue_lobby_reviews_on(const thue_lobby *lobby);
/* Where a review sends the positions of a real match in which a player let a win go (the
 * puzzle service's thue_puzzles_offer, which keeps those with exactly one winning move):
 * offer(ctx, game, options, state, match id), on the loop thread; NULL: none. */
typedef int (*thue_puzzle_offer_fn)(void *ctx, const thue_gamedef *g, const thue_gopt *opt,
                                    const void *st, const char *match_id);
void thue_lobby_set_puzzle_offer(thue_lobby *lobby, thue_puzzle_offer_fn offer, void *ctx);

/* What GET /api/ladder asks for: a pool (another game's name and options object text,
 * options NULL for its defaults; or game NULL for Thue's pool of variant and k) and a
 * page of one kind of player. */
typedef struct thue_lobby_ladder_ask {
    const char *game, *game_options;
    thue_variant variant;
    int k;
    thue_ladder_kind kind;
    int offset, count;
} thue_lobby_ladder_ask;

/* The body of GET /api/ladder in *out (malloc'd): the members of PROTOCOL.md's `ladder`
 * message without type and id. 0, or a negative code with a sentence in why:
 * unknown_game, bad_options (the pool's options), not_available (no store), or
 * THUE_ENOMEM. */
int thue_lobby_ladder_json(thue_lobby *lobby, const thue_lobby_ladder_ask *ask, char **out,
                           char *why, size_t whysize);

/* Start-up: a tournament's saved state (thue_store_load's tournament callback), and,
 * once the store is set, the replay of the games their current rounds were playing. */
void thue_lobby_load_tournament(void *lobby, const char *id, const char *state_json);
void thue_lobby_resume_tournaments(thue_lobby *lobby);
/* Between loading and starting the store: the current rounds' games whose matches were
 * stored but whose results the saved states missed (a crash in between) get them. */
void thue_lobby_recover_tournament_results(thue_lobby *lobby, thue_store *store);
/* GET /api/tournaments: {"offset":N,"total":N,"tournaments":[...]}, one page as
 * list_tournaments gives it (status: 0 open, 1 running, 2 finished, -1 any; offset
 * 0..100000; count 1..200); GET /api/tournaments/{id}: the members of `tournament`, or
 * NULL (*unknown set) when there is no such tournament. */
char *thue_lobby_tournaments_json(thue_lobby *lobby, int status, int offset, int count);
char *thue_lobby_tournament_json(thue_lobby *lobby, const char *id, int *unknown);

/* The network layer's hooks; set once, before the first connection. */
void thue_lobby_set_hooks(thue_lobby *lobby, const thue_lobby_hooks *hooks);

/* A WebSocket connection has opened (after the handshake); peer is its address text. The
 * lobby counts connections in the metrics (connected and disconnected). The
 * returned client is passed back with every message and at the end. NULL: refuse (out of
 * memory, or shutting down): the network layer closes the connection. */
thue_client *thue_lobby_connected(thue_lobby *lobby, thue_conn *conn, const char *peer);
/* The subprotocol the handshake selected for client: 1 (thue.v1, the default) or 2
 * (thue.v2). Call right after thue_lobby_connected, before any message. */
void thue_lobby_set_protocol(thue_client *client, int version);
/* One complete text message (already checked against the size limit). The lobby applies
 * the rate limit: a message past it is answered with rate_limited and not processed, and
 * after 50 such in a row the client gets goodbye (abuse) and is closed with 1008. */
void thue_lobby_message(thue_lobby *lobby, thue_client *client, const char *text, size_t len);
/*
 * The network layer drops client's connection for reason ("idle", "slow"; a goodbye
 * reason of PROTOCOL.md) with close_code: the client gets goodbye (reason, message) and
 * the close hook is called, as the lobby does for abuse; thue_lobby_disconnected follows
 * when the connection is gone, and its seats are kept for the grace period as after any
 * lost connection. A no-op when the lobby is closing the client already. Safe from
 * within the send hook (it only sends and closes).
 */
void thue_lobby_drop(thue_lobby *lobby, thue_client *client, const char *reason,
                     const char *message, int close_code);
/* The connection is gone; client is freed here (its session may live on for the grace
 * period). */
void thue_lobby_disconnected(thue_lobby *lobby, thue_client *client);

/* The public rooms as the body of GET /api/rooms ({"rooms":[...]}), filtered like
 * list_rooms (game: a game's wire name, NULL = Thue's rooms only; variant: NULL = any;
 * k, status: < 0 = any; variant and k filter Thue's rooms only). A new string, or NULL. */
char *thue_lobby_rooms_json(thue_lobby *lobby, const char *game, const char *variant, int k,
                            int status);
/* One room of this node as the body of GET /api/rooms/{id}[?code=C] (room.h's
 * room_peek_text); NULL when there is none for that code, or out of memory. */
char *thue_lobby_room_json(thue_lobby *lobby, const char *id, const char *code);

/*
 * Several nodes (docs/cluster.md): the cluster this lobby is one node of (borrowed; NULL,
 * the default: one server). Set it after the store, before the first connection; set
 * NULL before freeing the cluster (answers still waiting for Redis are then dropped).
 * The cluster's hooks (cluster.h) are these three, with the lobby as their data: its
 * state; an event of another node (broadcast or addressed to this one: both go to
 * thue_lobby_cluster_event); a waiting quick-match ticket of this node paired elsewhere.
 */
void thue_lobby_set_cluster(thue_lobby *lobby, thue_cluster *cluster);
void thue_lobby_cluster_state(void *lobby, bool up);
void thue_lobby_cluster_event(void *lobby, const char *from, const char *payload, size_t len);
void thue_lobby_cluster_paired(void *lobby, const thue_cluster_pair *pair);

/* Draining, before a shutdown (main.c, --drain-s): running matches go on, but no new
 * room or match starts (create_room, queue_join, ready, rematch and a waiting quick
 * match's bot answer server_busy, "this server is stopping ..."), and players waiting
 * in the quick-match queue get queue_failed (server_busy). The network layer's /healthz
 * says draining (thue_net_set_draining) so a balancer sends no one new. */
void thue_lobby_drain(thue_lobby *lobby);
/* Matches running now, in every room. */
int thue_lobby_running_matches(const thue_lobby *lobby);

/* Shutting down: every client gets goodbye (reason shutdown) and is closed (1001); bot
 * jobs are cancelled, timers stopped, new connections refused. Then call
 * thue_lobby_close once the network layer has closed every connection. */
void thue_lobby_shutdown(thue_lobby *lobby);
/* Closes the lobby's handles; `closed` is called (on the loop) once they are all closed
 * and the lobby freed. */
void thue_lobby_close(thue_lobby *lobby, void (*closed)(void *data), void *data);

#endif
