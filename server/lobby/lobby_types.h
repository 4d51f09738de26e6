/*
 * lobby_types.h: the lobby's types (structs only), shared by every lobby module. What a
 * module offers the others is in its own header: util.h (the bottom layer), roomstate.h,
 * accounts.h, record.h, table.h, room.h, quickmatch.h, tournament.h, session.h,
 * account_cmds.h; lobby.c (connections, sessions, dispatch) offers nothing but lobby.h.
 * Calls go one way, downwards (docs/architecture.md, "The lobby's modules"):
 *
 *   lobby.c -> account_cmds.c, analysis.c, bestmove.c -> session.c, quickmatch.c,
 *           tournament.c -> room.c -> table.c -> record.c -> accounts.c, roomstate.c
 *           -> util.c, nodes.c -> names.c
 *
 * (each may call any module further right). The few calls upwards are hooks, function
 * pointers a higher module sets: a room's `changed` (room.c's room_changed, for the
 * table), a tournament room's `game_over` (tournament.c's, called by the table once the
 * record is committed), record_match's callback (record.h), and the lobby's
 * `maybe_closed` and `session_for_account` (lobby.c's, for rooms and tournaments).
 *
 * Ownership: the lobby owns every session and room. A session lives from its hello until
 * its grace period ends after its connection is lost (or the lobby closes). A room lives
 * from its creation until it has been finished or empty for room_linger_s, or, when its
 * first match never started, until nobody is in it (then it goes at once). Seats and
 * spectator lists point at sessions; a session that ends is first taken out of every
 * room. Rooms and sessions embed libuv timers, so they are freed in the timers' close
 * callbacks (`handles` counts the open ones).
 */
#ifndef THUE_SERVER_LOBBY_TYPES_H
#define THUE_SERVER_LOBBY_TYPES_H

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
#include "cluster/cluster.h"

#define LOBBY_BUCKETS 4096 /* hash buckets of the room and session tables */
#define ABUSE_REJECTIONS 50
#define QUICK_BOT_SPEC "nested:1"
#define QUICK_GBOT_SPEC "uct:iterations=2000" /* quick match's bot in other games */
#define QUICK_TICKET_TTL_MS (86400u * 1000u) /* a wait in Redis's quick-match pool: a day */
#define ROOM_LIST_MAX 500
#define LOBBY_LIMIT_KEYS 65536 /* addresses (and accounts) a limiter tracks at once */

typedef struct session session;
typedef struct room room;
typedef struct account account;
typedef struct ladder_cache ladder_cache;
typedef struct tournament tournament;
typedef struct analysis analysis;
typedef struct node_rooms node_rooms;
typedef struct pw_job pw_job;
typedef struct login_token login_token;

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
    /* Several nodes (tournament.c's leases): the fencing token this node directs it
     * under, and until when (uv_now, ms) its lease surely holds; 0: not yet known (loaded
     * at start-up, until the first renewal). A single server never needs a lease. */
    int64_t fence;
    uint64_t lease_until;
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

/* One rating pool's record of an account. */
typedef struct pool_rating {
    pool_id pool;
    thue_glicko g;
    int games, wins, draws, losses;
    int64_t seq; /* the database's change number of these values (0: unknown) */
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
    bool pw_busy;       /* a set_password or login of this connection is out (passwords.c) */
    bool legal_moves;   /* hello asked for legal_moves after each room_state */
    int proto;          /* the subprotocol's version: 1 (thue.v1) or 2 (thue.v2) */
    /* best_move (bestmove.c): the search out for this connection (best_job 0: none), its
     * request id, and the address it counts against. */
    uint64_t best_job;
    void *best_data; /* the job's own data, freed by its callback or a cancel */
    thue_msg_id best_id;
    char best_ip[THUE_LIMIT_KEY_MAX];
    /* Several nodes (nodes.c's gate): a message whose per-address limit Redis is asked
     * about, and the messages that came after it, held in order until the answer. */
    struct gate *gate;
    struct held_msg *held, *held_tail;
    int nheld;
    thue_client *prev, *next;
};

struct session {
    thue_lobby *lobby;
    thue_player player;
    char key[THUE_PROTO_NAME_MAX * 4 + 1]; /* the name folded for uniqueness */
    char resume[THUE_PROTO_RESUME_LEN + 1];
    thue_client *client; /* NULL while away */
    account *acct;       /* NULL for a guest */
    uint64_t serial;     /* made the serial-th on this node: a guest's key for its bot seats */
    int rooms_created;   /* rooms created and not left */
    /* quick match: the queue this session waits in (queued = false: none); queue_opt is
     * allocated by the session's first queue_join and lives as long as the session (it
     * is 1 KiB: most sessions never queue, and a node holds 100,000 of them) */
    bool queued;
    thue_room_options *queue_opt;
    session *qprev, *qnext; /* in the lobby's queue list while queued */
    /* several nodes: the ticket in Redis's pool ("" = none), the pool's name, and whether
     * another node's join took it (its "match" is coming) */
    char ticket[LOBBY_ID_CHARS + 2];
    session *ticket_next; /* in the lobby's by_ticket chain while it has a ticket */
    char qpool[THUE_CLUSTER_POOL_MAX];
    bool qpaired;
    uint64_t qwait_until; /* paired elsewhere: the "match" is awaited until then (uv_now);
                             past it the session queues again */
    bool moved_away;      /* sent `moved` to a match on another node: once its connection
                             closes, a session with no room here ends at once */
    bool qreply; /* queue_join's `ok` waits for Redis's answer: its id */
    thue_msg_id qreply_id;
    analysis *analysis; /* its analysis (analysis.c), or NULL */
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
    char owner_ip[THUE_LIMIT_KEY_MAX]; /* the address it was seated from (bot_seats_ip) */
    /* whose bot it is for bot_seats: the account, or the guest's session (a guest per
     * session, so that people behind one address each have theirs; owner_ip bounds them) */
    char seated_by[THUE_LIMIT_KEY_MAX];
    bool owner_limited, owner_counted;
    bool owner_taken; /* counted across the nodes already (nodes_bots_gate) */
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
    int last_move_round; /* Thue: the round last_move was made in */
    /* The change room_changed sends next is last_move alone (table_after_move): thue.v2
     * connections then get a `played` event, not the whole state. */
    bool just_moved;
    /* thue.v2's version of the room: it grows with every change but a change of the
     * spectators alone, which thue.v2 tells with `watchers` at most once a second
     * (watchers_due); thue.v1's `version` grows with that too. spect_change: the change
     * room_changed sends next is such a one. */
    int64_t version2;
    bool spect_change, watchers_due;
    int points_shown[2]; /* the match's points at the room's version: a played shows its own
                            only when they changed */
    thue_move_row *moves; /* the current match's moves, for its record */
    int nmoves, capmoves;
    int plies[2]; /* moves so far in each round */
    int64_t started_ms;
    int thinking; /* seat whose bot is searching, or -1 */
    uint64_t job; /* its pool job, 0: none */
    char tournament[THUE_PROTO_KEY_MAX + 1]; /* "" unless a tournament game */
    /* Hooks, so that the lower module calls no higher one: room.c's room_changed (the
     * table pushes the new state through it), and, in a tournament's room, tournament.c's
     * tournament_game_over (told once the match's record is committed; NULL otherwise). */
    void (*changed)(room *r);
    void (*game_over)(room *r);
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
    bool draining;
    thue_cluster *cluster;   /* several nodes (nodes.h), or NULL */
    struct node_wait *waits; /* requests waiting for Redis (nodes.c) */
    struct node_rooms *remote_rooms; /* the other nodes' public rooms (nodes.c) */
    char *list_sent[2];      /* the room and tournament lists this node told them last */
    uint64_t list_sent_ms[2]; /* and when */
    uv_timer_t nodes_timer;  /* each second: the room list to the other nodes */
    uv_timer_t watch_timer;  /* thue.v2's spectator counts, at most once a second (room.c) */
    thue_counts *limit_blocks; /* keys the shared limits refused, until when (nodes.c) */
    struct kept_event *kept, *kept_tail; /* events kept while Redis is away (nodes.c) */
    int nkept;
    bool kept_overflowed;
    uint64_t kept_flush_ms; /* thue_lobby_drain: no new rooms or matches (room_allowed, no_new_match) */
    thue_client *clients;
    session *sessions;
    uint64_t sessions_made; /* the last session's serial */
    room *rooms; /* newest first */
    int nrooms;
    uint64_t room_seq;
    /* The queued sessions, oldest first (quick match looks here, not at every session) */
    session *qhead, *qtail;
    session *by_name[LOBBY_BUCKETS], *by_token[LOBBY_BUCKETS];
    session *by_ticket[LOBBY_BUCKETS]; /* sessions with a ticket in Redis's pool (quickmatch.c) */
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
    bool following;    /* accounts_follow: a read of the changes is queued */
    bool leasing;      /* tournaments_lease_tick: a lease job is queued */
    struct match_note *match_notes; /* quickmatch.c: "match" events not yet received */
    uint64_t match_note_ids;
    uint64_t lease_sent; /* ... queued at this uv_now */
    tournament *tournaments;
    analysis *analyses; /* every analysis still searching or open (analysis.c) */
    int nanalyses;
    /* thue.v2: while some analysis has parts of an update waiting for its connection to
     * take them, this ticks (analysis.c's pacing); stopped otherwise. */
    uv_timer_t analysis_timer;
    bool analysis_timer_on;
    struct review_job *reviews; /* matches being reviewed (reviews.c) */
    int nreviews;
    int (*puzzle_offer)(void *ctx, const thue_gamedef *g, const thue_gopt *opt, const void *st,
                        const char *match_id); /* thue_lobby_set_puzzle_offer */
    void *puzzle_offer_ctx;
    thue_limiter *room_rate; /* rooms made per address (cfg.room_rate_per_ip a minute) */
    thue_limiter *tour_rate; /* tournaments made per address and per account (an hour) */
    thue_limiter *claim_rate; /* accounts claimed per address (cfg.claims_per_ip an hour) */
    /* Passwords (passwords.c): every set_password and login still out, those waiting for
     * a hashing slot (oldest first), how many hash now, and how many are out per
     * address; failed logins per address and per name key (an hour's buckets). */
    pw_job *pw_jobs;
    pw_job *pw_wait_head, *pw_wait_tail;
    int pw_running, pw_pending;
    thue_counts *pw_ip;
    thue_limiter *login_fail_ip, *login_fail_name;
    /* The tokens login handed out (accounts.c), besides each account's own token_hash. */
    login_token *login_tokens[LOBBY_BUCKETS];
    thue_counts *bot_seats;    /* seat_bot's bots seated now, per account or guest session (room.c) */
    thue_counts *bot_seats_ip; /* and per address (lobby_ip_of), accounts included */
    thue_counts *analyses_owned, *analyses_ip; /* analyses open, per owner and per address */
    thue_counts *best_ip; /* best_move searches out, per address (bestmove.c) */
    int nbest;            /* and in all */
    uv_timer_t tour_timer;   /* the next open tournament's expiry */
    int handles; /* open handles of ending rooms and sessions, while closing */
    void (*closed)(void *data);
    void *closed_data;
    /* Hooks of lobby.c, set by thue_lobby_new, for the modules below it: lobby_maybe_closed
     * (a room's last handle closed) and lobby_session_for_account (a tournament's game
     * waits for an account that has no session). */
    void (*maybe_closed)(thue_lobby *l);
    session *(*session_for_account)(thue_lobby *l, account *a);
    /* A session for a player of another node, seated here by quick match: away, its
     * grace period running, with a resume token of its own; NULL when the name (or the
     * account's session) is in use here, or out of memory. */
    session *(*session_ghost)(thue_lobby *l, const char *name, account *a);
    /* hello with a hand-off's token: a guest of another node, sent here with `moved`,
     * gets a session named name here (nodes.c; lobby.c's lobby_session_handoff). 0, or
     * an error code. */
    int (*session_handoff)(thue_client *c, const thue_msg_id *id, const char *name,
                           const char *token);
    /* lobby.c's: the connection c (a guest's session) logs in to account a with a login
     * token (login, passwords.c): the session becomes the account's, or takes over the
     * account's live session, and the `account` reply (name, token, resume) goes out,
     * then the rooms' states. 0, or an error code with message set (nothing changed). */
    int (*session_login)(thue_client *c, account *a, const thue_msg_id *id, const char *token,
                         char *message, size_t msize);
};

/* What Redis said of a message that was run again with it (nodes.h's gates). Each
 * verdict: 0 not asked, 1 yes, -1 no, 2 Redis gave no answer (this node decides alone). */
typedef struct lobby_verdicts {
    int limit; /* the shared limit allows it (nodes_limit_gate) */
    uint64_t limit_retry_ms;
    int name;      /* name_text is free across the nodes (nodes_name_gate) */
    int name_asks; /* name claims asked for this message so far */
    char name_text[THUE_PROTO_NAME_MAX * 4 + 1];
    /* a bot seat for bots_by and bots_ip, counted across the nodes (nodes_bots_gate): when
     * 1, taken already; when -1, bots_which limit was reached (1 the owner's, 2 the
     * address's) */
    int bots, bots_which;
    char bots_by[THUE_LIMIT_KEY_MAX], bots_ip[THUE_LIMIT_KEY_MAX];
} lobby_verdicts;

/* The direct reply goes first: handlers send it through this, then push events. */
typedef struct request {
    thue_client *c;
    const thue_cmd *cmd;
    const char *text; /* the message as received (a gate re-runs it) */
    size_t len;
    lobby_verdicts v;
    /* the shared limit's verdict on this message, when it was asked (nodes_limit_gate):
     * from v.limit */
    bool gated, gate_denied;
    uint64_t gate_retry_ms;
    char field[64];
    char message[THUE_PROTO_TEXT_MAX + 1]; /* "" = the code's usual sentence */
} request;

#endif
