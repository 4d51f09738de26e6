/*
 * lobby_internal.h: the lobby's types, shared by lobby.c (connections, sessions, the
 * dispatch of commands), quickmatch.c (quick match) and room.c (rooms, seats, matches,
 * clocks, bots).
 *
 * Ownership: the lobby owns every session and room. A session lives from its hello until
 * its grace period ends after its connection is lost (or the lobby closes). A room lives
 * from its creation until it has been finished or empty for room_linger_s, or, when its
 * first match never started, until nobody is in it (then it goes at once). Seats and
 * spectator lists point at sessions; a session that ends is first taken out of every
 * room. Rooms and sessions embed libuv timers, so they are freed in the timers' close
 * callbacks (`handles` counts the open ones).
 */
#ifndef THUE_SERVER_LOBBY_INTERNAL_H
#define THUE_SERVER_LOBBY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "../protocol/codec.h"
#include "games/thue/engine/match.h"
#include "games/game.h"
#include "games/thue/thue.h"
#include "ladder/glicko2.h"
#include "ladder/schedule.h"
#include "lobby/ids.h"
#include "lobby/lobby.h"
#include "quota.h"
#include "games/thue/bots/bot.h"
#include "search/gbot.h"
#include "store/store.h"

#define LOBBY_BUCKETS 4096 /* hash buckets of the room and session tables */
#define ABUSE_REJECTIONS 50
#define QUICK_BOT_SPEC "nested:1"
#define QUICK_GBOT_SPEC "uct:iterations=2000" /* quick match's bot in other games */
#define ROOM_LIST_MAX 500
#define LOBBY_LIMIT_KEYS 65536 /* addresses (and accounts) a limiter tracks at once */

typedef struct session session;
typedef struct room room;
typedef struct account account;
typedef struct ladder_cache ladder_cache;
typedef struct tournament tournament;

#define THUE_SCHED_ROUNDS_MAX_ALL THUE_SCHED_PLAYERS_MAX /* a round robin of 256: 256 rounds */

typedef struct tournament_entrant {
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    thue_player_kind kind;             /* THUE_KIND_ACCOUNT or THUE_KIND_BOT */
    char bot[THUE_PROTO_SPEC_MAX + 1]; /* a bot's canonical SPEC */
    account *acct;                     /* a person's account; a bot's, when there is one */
    int seed;                          /* 0 = top seed, set at the start */
} tournament_entrant;

typedef struct tournament_game {
    thue_game g;                         /* players are entrant indices */
    char room[THUE_PROTO_KEY_MAX + 1];   /* "" for a bye or a game decided by absence */
} tournament_game;

struct tournament {
    thue_lobby *lobby;
    char id[THUE_PROTO_KEY_MAX + 1];
    int64_t created_ms;            /* wall clock: an open tournament expires from it */
    char addr[THUE_LIMIT_KEY_MAX]; /* the creator's address key; "" after a restart */
    char name[THUE_PROTO_TITLE_MAX * 4 + 1];
    thue_tournament_format format;
    thue_variant variant;
    int k, limit;
    /* another game than Thue: its table and canonical options (game NULL: Thue) */
    const thue_gamedef *game;
    char game_options[THUE_PROTO_GOPT_MAX + 1];
    thue_clock clock;
    int rounds_asked, max_players;
    int status; /* 0 open, 1 running, 2 finished */
    char creator[THUE_PROTO_NAME_MAX * 4 + 1];
    int lot;     /* the Swiss round-1 lot */
    int nrounds; /* set at the start */
    int round;   /* rounds paired so far (the current one once running) */
    tournament_entrant *e; /* n entrants, room for cap (grown as they join: a tournament
                              takes memory for its entrants, not for 256) */
    int n, cap;
    tournament_game *games[THUE_SCHED_ROUNDS_MAX_ALL];
    int nboards[THUE_SCHED_ROUNDS_MAX_ALL];
    session **watch; /* sessions that asked for it (events) */
    int nwatch, capwatch;
    tournament *next;
};

/* A rating pool: a game and its pool key (game.h's pool_key: Thue's "square-k5", Nim's
 * "misere", Northcott's "8x8"), the options that split ratings; the others (Nim's heaps,
 * Thue's limit, a clock) do not. */
#define POOL_KEY_MAX (THUE_PROTO_KEY_MAX + 1)
typedef struct pool_id {
    const thue_gamedef *game;
    char key[POOL_KEY_MAX];
} pool_id;

/* The pool of a game's options. */
void pool_of(const thue_gamedef *game, const thue_gopt *opt, pool_id *out);
bool pool_equal(const pool_id *a, const pool_id *b);

/* One rating pool's record of an account. */
typedef struct pool_rating {
    pool_id pool;
    thue_glicko g;
    int games, wins, draws, losses;
    struct pool_rating *next;
} pool_rating;

/* An account (a person who claimed a name, or a bot SPEC), kept in memory; the store has
 * the same rows. */
struct account {
    int64_t id;
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    char key[THUE_PROTO_NAME_MAX * 4 + 1];
    thue_player_kind kind; /* THUE_KIND_ACCOUNT or THUE_KIND_BOT */
    char bot[THUE_PROTO_SPEC_MAX + 1];
    unsigned char token_hash[32];
    bool committed; /* the store has it (claim_name answers only then) */
    session *session; /* the session logged in as this account, if any */
    pool_rating *ratings;
    account *next, *name_next, *token_next;
};

struct thue_client {
    thue_lobby *lobby;
    thue_conn *conn;
    char peer[64];
    session *s;         /* NULL until hello (and after the session was taken over) */
    double tokens;      /* the rate limit's bucket */
    uint64_t refill_ns; /* when the bucket was last refilled */
    int rejections;     /* rate_limited answers in a row */
    bool closing;       /* close was asked for: send nothing more */
    thue_client *prev, *next;
};

struct session {
    thue_lobby *lobby;
    thue_player player;
    char key[THUE_PROTO_NAME_MAX * 4 + 1]; /* the name folded for uniqueness */
    char resume[THUE_PROTO_RESUME_LEN + 1];
    thue_client *client; /* NULL while away */
    account *acct;       /* NULL for a guest */
    int rooms_created;   /* rooms created and not left */
    /* quick match: the queue this session waits in (queued = false: none) */
    bool queued;
    thue_room_options queue_opt;
    uint64_t queue_seq;
    uv_timer_t grace_timer, queue_timer;
    int handles; /* open timers; freed at 0 once ending */
    bool ending;
    session *prev, *next;           /* all sessions */
    session *name_next, *token_next; /* hash chains */
};

typedef struct room_seat {
    session *s; /* a human, or NULL */
    bool bot;   /* a bot (s is NULL) */
    account *bot_acct; /* a bot's account (rated rooms), or NULL */
    char bot_name[THUE_PROTO_NAME_MAX + 1];
    char bot_spec_text[THUE_PROTO_SPEC_MAX + 1];
    thue_bot_spec spec;   /* Thue's bots */
    thue_gbot_spec gspec; /* another game's (search/gbot.h) */
    int think_ms;
    /* Whom a bot's searches are for (the pool's fair shares): the account, or a guest's
     * address key. A bot seated with seat_bot (owner_limited) is counted in
     * lobby->bot_seats while its room has somebody in it (owner_counted). */
    char owner[THUE_LIMIT_KEY_MAX];
    bool owner_limited, owner_counted;
    bool ready, rematch;
} room_seat;

struct room {
    thue_lobby *lobby;
    char id[THUE_PROTO_KEY_MAX + 1];
    char invite[THUE_PROTO_KEY_MAX + 1]; /* "" for a public room */
    char name[THUE_PROTO_TITLE_MAX * 4 + 1];
    thue_room_options opt;
    thue_room_status status;
    int64_t version;
    uint64_t seq; /* creation order: lists are newest first */
    session *creator;
    room_seat seats[2];
    session **spect;
    int nspect, capspect;
    /* The match (has_match once the first one started), whatever the game: its table
     * (Thue's, games/thue/thue.c, in a Thue room: opt.has_game 0), options and states.
     * The state and the match's start are gsize bytes each, made with the first match.
     * gfirst is the seat that is the game's player 0 (Thue: the first builder); gover,
     * gwinner (seat, -1 a draw), greason (score, resign, timeout, abandon) and gwhy (the
     * game's reason, or the forfeit's) are the match's end. */
    bool has_match;
    const thue_gamedef *game;
    thue_gopt gopt;
    unsigned char *gstate, *gstart;
    size_t gsize;
    int gfirst;
    bool gover;
    int gwinner;
    thue_end_reason greason;
    char gwhy[THUE_PROTO_KEY_MAX + 1];
    char glast[THUE_PROTO_GMOVE_MAX + 1]; /* the last move's JSON */
    int number;
    int first_builder;           /* seat building round 0 (moving first) of this match */
    uint64_t game_seed;
    int64_t clock_ns[2];         /* remaining time as of turn_start_ns for the running seat */
    int clock_running;           /* seat, or -1 */
    uint64_t turn_start_ns;      /* when the current step began */
    thue_last_move last_move;
    thue_move_row *moves; /* the current match's moves, for its record */
    int nmoves, capmoves;
    int plies[2]; /* moves so far in each round */
    int64_t started_ms;
    int thinking; /* seat whose bot is searching, or -1 */
    uint64_t job; /* its pool job, 0: none */
    char tournament[THUE_PROTO_KEY_MAX + 1]; /* "" unless a tournament game */
    int tour_round, tour_board;
    uv_timer_t clock_timer, linger_timer;
    int handles;
    bool ending;
    room *prev, *next;
    room *hash_next;
};

struct thue_lobby {
    uv_loop_t *loop;
    thue_lobby_config cfg;
    thue_pool *pool;
    thue_metrics *metrics;
    thue_lobby_hooks hooks;
    uint64_t rng; /* SplitMix64 state */
    bool stopping;
    thue_client *clients;
    session *sessions;
    room *rooms; /* newest first */
    int nrooms;
    uint64_t room_seq, queue_seq;
    session *by_name[LOBBY_BUCKETS], *by_token[LOBBY_BUCKETS];
    room *by_id[LOBBY_BUCKETS];
    /* accounts and ratings (persistence): store is NULL without a database */
    thue_store *store;
    account *accounts;
    ladder_cache *ladders; /* sorted ladders per pool and kind (accounts.c) */
    account *acct_by_name[LOBBY_BUCKETS], *acct_by_token[LOBBY_BUCKETS];
    int64_t next_account;
    account **load_index; /* accounts by id while loading (accounts.c), then NULL */
    size_t load_cap, load_n;
    bool load_index_failed;
    int store_pending; /* store jobs whose callbacks have not run */
    tournament *tournaments;
    thue_limiter *room_rate; /* rooms made per address (cfg.room_rate_per_ip a minute) */
    thue_limiter *tour_rate; /* tournaments made per address and per account (an hour) */
    thue_limiter *claim_rate; /* accounts claimed per address (cfg.claims_per_ip an hour) */
    struct rated_pair *pairs[LOBBY_BUCKETS]; /* rated matches per pair of accounts (record.c) */
    thue_counts *bot_seats;  /* seat_bot's bots seated now, per owner (room.c, owner_of) */
    uv_timer_t tour_timer;   /* the next open tournament's expiry */
    int handles; /* open handles of ending rooms and sessions, while closing */
    void (*closed)(void *data);
    void *closed_data;
};

/* ---- lobby.c ------------------------------------------------------------------------ */

uint64_t lobby_random(thue_lobby *l);
/* size bytes from the kernel's generator; 0 or -1. */
int lobby_random_bytes(unsigned char *b, size_t size);

int64_t lobby_now_ms(void);
/* The name as compared for uniqueness (ASCII letters folded). */
void lobby_name_key(const char *name, char *key, size_t size);
bool lobby_name_reserved(const char *name);
session *lobby_session_by_name(thue_lobby *l, const char *name);
/* A new name for a session (claim_name). */
void session_rename(session *s, const char *name);
/* Pushes the state of every room the session is in (its name or kind changed). */
void lobby_session_rooms_changed(session *s);
void lobby_reply_error(thue_lobby *l, session *s, const thue_msg_id *id, int code);
void lobby_send_text(thue_lobby *l, thue_client *c, const char *text);
uint32_t lobby_hash(const char *s);
/* Sends one encoded message to a session's connection (no-op while it is away). */
void lobby_send_msg(thue_lobby *l, session *s, const thue_msg *msg);
/* Once closing: frees the lobby and calls back when no room, session or handle is
 * left. */
void lobby_maybe_closed(thue_lobby *l);

/* ---- room.c ------------------------------------------------------------------------- */

/* The direct reply goes first: handlers send it through this, then push events. */
typedef struct request {
    thue_client *c;
    const thue_cmd *cmd;
    char field[64];
    char message[THUE_PROTO_TEXT_MAX + 1]; /* "" = the code's usual sentence */
} request;

void request_ok(request *rq);
/* 0 when s may play rated, else the error (with rq's message set). */
int rated_allowed(request *rq, const session *s);

int room_create(request *rq);
/* The game a command names (NULL or "thue": Thue) with its options object's text (NULL:
 * the defaults): 0 with opt's game members, *game (NULL for Thue) and *gopt filled, or
 * unknown_game or bad_options, with rq's field and message set. */
int room_game_options(request *rq, const char *name, const char *options,
                      thue_room_options *opt, const thue_gamedef **game, thue_gopt *gopt);
int room_list(request *rq);
int room_join(request *rq);
int room_spectate(request *rq);
int room_leave(request *rq);
int room_seat_bot(request *rq);
int room_ready(request *rq);
int room_move(request *rq, bool paint);
/* `move`: a move of another game than Thue. */
int room_gmove(request *rq);
/* The winner of the room's match that is over: a seat, or -1 for a draw. */
int room_winner(const room *r);
int room_resign(request *rq);
int room_rematch(request *rq);
int room_chat(request *rq);
/* Which rooms a list shows: list_rooms' filters, or /api/rooms' arguments. */
typedef struct room_filter {
    bool has_game; /* false: Thue's rooms only */
    char game[THUE_PROTO_GAME_MAX + 1];
    bool has_variant, has_k, has_status; /* variant and k: Thue's rooms only */
    thue_variant variant;
    int k;
    thue_room_status status;
} room_filter;
/* The `rooms` message of the rooms f lets through, encoded: the reply to a list_rooms
 * command with its id, or (id NULL) the HTTP API's answer, its members alone
 * (thue_msg_encode_members). NULL when out of memory. */
char *room_list_text(thue_lobby *l, const room_filter *f, const thue_msg_id *id);

/* Whether the client at peer (its address text) may have a new room made now: 0, with
 * one room taken from its address's bucket; or server_busy (the server is at max_rooms)
 * or rate_limited (the address made cfg.room_rate_per_ip rooms in the last minute), with
 * a sentence in why that says when to try again. */
int room_allowed(thue_lobby *l, const char *peer, char *why, size_t size);
/* A room made by quick match for two sessions (b NULL: a bot in the other seat); both
 * are seated and ready and the match starts. NULL when the server is at its room limit
 * or out of memory. */
room *room_quick(thue_lobby *l, session *a, session *b, const thue_room_options *opt);
/* Pushes the room's state to everyone in it (after a version bump). */
void room_changed(room *r);
/* Sends msg (encoded once), or an encoded text, to everyone in the room. */
void room_broadcast(room *r, const thue_msg *msg);
void room_broadcast_text(room *r, const char *text);
/* record.c: rates a finished match, queues its record and sends match_end (end, filled
 * by the caller with the round words still borrowed) once the record is committed. */
void record_match(room *r, thue_msg *end);
/* Frees the rated pairs' log (record.c). */
void record_pairs_free(thue_lobby *l);
/* Sends the room's state to one session. */
void room_send_state(room *r, session *s);
/* Whether s is seated in or watching r. */
bool room_has(const room *r, const session *s);
/* The session's connection came or went: the seats' `connected` changed. */
void room_presence(room *r, session *s);
/* The session ends (grace period over, or the lobby closes): it forfeits its running
 * matches, leaves its seats and stops watching. */
void room_session_gone(room *r, session *s);
/* Starts closing a room: cancels its bot job, closes its timers. */
void room_destroy(room *r);
room *room_find(thue_lobby *l, const char *id);

/* ---- quickmatch.c ------------------------------------------------------------------- */

/* queue_join: pairs the sender with the longest-waiting session of the same queue, or
 * queues it (with a bot after bot_after_s when asked). */
int cmd_queue_join(request *rq);
/* queue_leave: out of the queue (also when not in it). */
int cmd_queue_leave(request *rq);
/* Takes a session out of the queue and stops its queue timer; a no-op when not queued. */
void queue_remove(session *s);

/* ---- accounts.c ---------------------------------------------------------------------- */

account *account_by_name(thue_lobby *l, const char *name);
account *account_by_token(thue_lobby *l, const char *token);
/* The bot account of a SPEC's canonical text, made (and queued for the store) when new;
 * NULL without a store or memory. */
account *account_bot(thue_lobby *l, const char *spec_text, const char *bot_name);
/* The account's record in a pool, made with the initial rating when new; NULL when out
 * of memory. */
pool_rating *account_rating(account *a, const pool_id *pool);
/* A bot's stable name: its SPEC when that fits a name, else "Bot-" and 8 hex digits of
 * the SPEC's SHA-256. */
void bot_name_of(const char *spec_text, char *out, size_t size);
int cmd_claim_name(request *rq);
int cmd_get_ladder(request *rq);
/* One page of a pool's ladder, as get_ladder and /api/ladder ask for it. */
typedef struct ladder_query {
    pool_id pool;
    thue_variant variant; /* Thue: the pool's variant and k (echoed) */
    int k;
    char options[THUE_PROTO_GOPT_MAX + 1]; /* another game: its canonical options (echoed) */
    thue_ladder_kind kind;
    int offset, count;
} ladder_query;
/* The pool a get_ladder-like request names: the game (NULL or "thue": Thue with variant
 * and k), its options object's text (NULL: the defaults). 0, or unknown_game or
 * bad_options with field and message (of fsize and msize bytes) set. */
int ladder_query_of(const char *game, const char *options, thue_variant variant, int k,
                    ladder_query *q, char *field, size_t fsize, char *message, size_t msize);
/* The `ladder` message of a query, encoded; id NULL: the HTTP form, its members without
 * type and id (thue_msg_encode_members). NULL when out of memory. */
char *ladder_text(thue_lobby *l, const ladder_query *q, const thue_msg_id *id);
void accounts_free(thue_lobby *l);
/* Drops the cached ladders of a pool, or every one when pool is NULL (accounts.c): after
 * any change of a rating in that pool. */
void ladder_invalidate(thue_lobby *l, const pool_id *pool);
/* The n ratings p[i] (of accounts a[i]) of a pool changed by a match: their rows move to
 * their new places in the pool's cached ladders (no rebuild). */
void ladder_moved(thue_lobby *l, const pool_id *pool, account *const *a, pool_rating *const *p,
                  int n);
/* Loading is over: the start-up index of accounts by id goes. */
void accounts_load_done(thue_lobby *l);

/* ---- tournament.c --------------------------------------------------------------------- */

tournament *tournament_find(thue_lobby *l, const char *id);
int cmd_create_tournament(request *rq);
int cmd_join_tournament(request *rq);
int cmd_leave_tournament(request *rq);
int cmd_start_tournament(request *rq);
int cmd_list_tournaments(request *rq);
int cmd_get_tournament(request *rq);
/* The `tournaments` reply: status (-1: any), offset and count as list_tournaments. With
 * id NULL, for the HTTP API: its members alone (thue_msg_encode_members), as for: */
char *tournaments_text(thue_lobby *l, const thue_msg_id *id, int status, int offset, int count);
/* The `tournament` reply (id NULL: the HTTP API's members alone). */
char *tournament_text(tournament *t, const thue_msg_id *id);
/* A tournament room's match ended (room.c's finish). */
void tournament_game_over(room *r);
void tournament_session_gone(thue_lobby *l, session *s);
void tournaments_free(thue_lobby *l);
/* Open tournaments that were never started expire after cfg.tournament_expire_s: arms
 * the lobby's tour_timer for the next one (stops it when none is open). */
void tournaments_arm(thue_lobby *l);

/* room.c, for tournaments: a room for one game (no creator, not listed as anyone's),
 * its seats, and the match's start once both are filled (seat 0 builds first). */
room *room_for_tournament(thue_lobby *l, tournament *t, int board,
                          const thue_room_options *opt);
int room_seat_tournament_bot(room *r, int seat, const char *spec, int think_ms);
void room_seat_session(room *r, int seat, session *s);
void room_begin_if_full(room *r);

/* lobby.c: a session for an account whose owner is not connected (a tournament game
 * waits for them after a restart): it is away, and its grace period runs. */
session *lobby_session_for_account(thue_lobby *l, account *a);

#endif
