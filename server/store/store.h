/*
 * store.h: what thue-server keeps on disk: accounts (players who claimed a name, and one
 * per bot SPEC), ratings (one Glicko-2 record per account and pool, a pool being a
 * game and its pool key), finished matches with every move (Thue's and other games'), and
 * tournaments. SQLite (WAL,
 * foreign keys on, synchronous FULL, versioned migrations applied when it opens,
 * prepared statements); ":memory:" for tests. Or PostgreSQL, when the path is a libpq
 * connection URI (postgres://... or postgresql://...): the same schema, migrations and
 * answers (sql.h, sql_pg.c), a database several servers may share, and a lost
 * connection handled as a disk that refuses writes for a while.
 *
 * Two phases:
 *  - Start-up, on the calling thread, before the loop serves anyone: thue_store_open
 *    (creates or migrates the file) and thue_store_load (hands every account, rating and
 *    unfinished tournament to the caller, who keeps them in memory).
 *  - Serving: thue_store_start starts one store thread that owns the database; the loop
 *    thread queues writes and reads with the calls below, which copy what they need and
 *    return at once (they never touch the disk). Each job runs in its own transaction,
 *    in the order queued; its callback runs later on the loop thread (through a
 *    uv_async_t). A write's callback means it is committed: the lobby announces a finished
 *    match only then, so nothing announced is ever lost to a crash. A write the disk
 *    refuses for a while is retried until it commits (thue_store_health_get).
 *
 * thue_store_close finishes every queued job (their callbacks still run), stops the
 * thread and closes the database.
 *
 * Tokens: an account token is never stored, only its SHA-256 (thue_sha256): the tokens
 * are 128 random bits or more, so a fast hash is enough. An account has the token
 * claim_name gave (accounts.token_hash) and one more for every login with its password
 * (account_tokens, schema 4).
 *
 * Passwords: only their hash is stored (accounts.password_hash, schema 4), a string the
 * caller made (libsodium's Argon2id form, server/password.h); the store never hashes.
 * It is read from the database at every use (thue_store_password_get), never loaded
 * into memory at start-up, so servers sharing one PostgreSQL database always see the
 * latest one.
 */
#ifndef THUE_SERVER_STORE_H
#define THUE_SERVER_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "../protocol/codec.h"

#define THUE_STORE_SCHEMA_VERSION 7

/* Errors: THUE_STORE_EIO (the database failed, logged with its message), THUE_STORE_EEXISTS
 * (the account name is taken, ignoring ASCII case), THUE_STORE_ECLOSED (the store is
 * closing or not started), from the one list of base/errors.h (thue_strerror), and the
 * engine's THUE_EINVAL and THUE_ENOMEM. */

typedef struct thue_store thue_store;

typedef struct thue_account_row {
    int64_t id; /* >= 1: chosen by the caller (the lobby, one server's only writer,
                   numbers accounts 1, 2, ...: the largest loaded + 1, so that it can use
                   an id at once); 0: the database picks it (the largest + 1 when the
                   job runs; on PostgreSQL taken in turns by servers sharing the
                   database) and the callback's id gives it */
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    thue_player_kind kind;               /* THUE_KIND_ACCOUNT or THUE_KIND_BOT */
    char bot[THUE_PROTO_SPEC_MAX + 1];   /* a bot's canonical SPEC; "" for a person */
    unsigned char token_hash[32];        /* SHA-256 of the token; zeros for a bot */
    int64_t created_ms;                  /* Unix time in ms */
} thue_account_row;

typedef struct thue_rating_row {
    int64_t account;
    char game[THUE_PROTO_GAME_MAX + 1]; /* the pool: a game's name and its pool key */
    char pool[THUE_PROTO_KEY_MAX + 1];  /* (game.h's pool_key: Thue's "square-k5") */
    double rating, rd, vol;
    int games, wins, draws, losses;
    int64_t seq; /* PostgreSQL's change number of the row as written (thue_store_changes);
                    0 on SQLite and in the start-up load */
} thue_rating_row;

typedef struct thue_move_row {
    int round; /* 0 or 1 */
    int ply;   /* 0, 1, ...: moves (places and paints) within the round */
    int seat;
    int is_paint;
    int value; /* position or symbol */
    double think_ms;
    /* Another game's move as JSON; NULL for Thue's (whose rows are 40 bytes, a record of
     * hundreds of moves). Owned by whoever owns the array: the room, or the store's copy. */
    char *gmove;
} thue_move_row;

/* What the store decided for a match saved with `rate` set (below), written into the
 * caller's memory on the loop thread just before the callback runs (err 0 only). */
typedef struct thue_match_rating {
    int rated;        /* 1: rated; changes and ratings hold what was committed */
    int pair_limited; /* 1: not rated: the two accounts had pair_max rated matches in the
                         window already (counted in the database: every server's) */
    thue_rating_change changes[2];
    thue_rating_row ratings[2];
} thue_match_rating;

typedef struct thue_match_row {
    char id[THUE_PROTO_KEY_MAX + 1]; /* chosen by the caller (random, like room ids) */
    char room[THUE_PROTO_KEY_MAX + 1];
    int number; /* the match's number in its room */
    thue_room_options opt;
    thue_player players[2];
    int64_t accounts[2];                   /* 0 for a guest */
    char bots[2][THUE_PROTO_SPEC_MAX + 1]; /* "" for a person */
    int winner;                            /* seat, or -1 for a draw */
    thue_end_reason reason;                /* Thue's; unused for another game (why below) */
    int points[2];                         /* another game: its scores, by seat */
    thue_round_info rounds[2];             /* words borrowed until the call returns; Thue's only */
    const thue_move_row *moves;
    int nmoves;
    int rated;
    thue_rating_change changes[2];
    thue_rating_row ratings[2]; /* rated: the two ratings after the match (upserted) */
    /*
     * Rating inside the transaction (instead of rated/changes/ratings given): with rate
     * set, ratings[p] names each seat's account and pool (account, game, pool; the values
     * are ignored), and the store reads the two current ratings from the database under
     * its write lock (a newcomer's when there is none), applies the result (winner: seat
     * 0 or 1 scores 1, a draw 0.5; tau) with Glicko-2, and writes the match and the two
     * ratings in one transaction: servers sharing a database can never lose an update.
     * pair_max > 0 (two people's accounts): the match is stored unrated when the pair
     * has pair_max rated matches that ended within pair_window_ms before ended_ms. The
     * outcome goes to *result.
     */
    int rate;
    double tau;
    int pair_max;
    int64_t pair_window_ms;
    thue_match_rating *result;
    int pair_limited; /* the store's, in its copy of the row */
    int64_t started_ms, ended_ms;
    char tournament[THUE_PROTO_KEY_MAX + 1]; /* "" when not a tournament game */
    int tournament_round;
    /* Another game than Thue (opt.has_game, with opt.game and opt.game_options): why it
     * ended as text ("no_moves", "took_last", "move_cap", "resign", "timeout",
     * "abandon"), the seat that was the game's player 0, and the game's state_json at the
     * match's start and end (compact JSON text, borrowed until the call returns; NULL
     * stores NULL). The moves carry their JSON in gmove. Unused for Thue. */
    char why[THUE_PROTO_KEY_MAX + 1];
    int gfirst;
    const char *start_state, *final_state;
} thue_match_row;

/* Opens (creating, migrating) the database at path: a SQLite file (or ":memory:"), or a
 * PostgreSQL database when path starts with postgres:// or postgresql:// (a libpq URI).
 * NULL with a sentence in err when it cannot ("cannot open ./thue.db: ...", "./thue.db:
 * schema version 3 is newer than this server's (1)", "cannot open
 * postgres://thue:***@db/thue: connection to server ... failed: ..."); a URI's password
 * is never in a message or the log. */
thue_store *thue_store_open(const char *path, char *err, size_t errsize);

/* Start-up only: calls account() for every account, rating() for every rating row and
 * tournament() for every tournament not finished (its id and the state the lobby saved),
 * in id order. 0, or a negative code with err filled. Callbacks may be NULL. */
int thue_store_load(thue_store *s, void (*account)(void *ctx, const thue_account_row *row),
                    void (*rating)(void *ctx, const thue_rating_row *row),
                    void (*tournament)(void *ctx, const char *id, const char *state_json),
                    void *ctx, char *err, size_t errsize);

/* Start-up only (before thue_store_start): the stored match of tournament's round
 * (1-based) between first (seat 0, the first builder) and second (seat 1), the latest if
 * there are several. 1 and *winner set (seat, or -1 for a draw) when there is one, 0
 * when there is none, or a negative code. A tournament game's result is known to the
 * players only once its match is stored, so this recovers every result a crash could
 * have kept out of the tournament's saved state. */
int thue_store_tournament_game(thue_store *s, const char *tournament, int round,
                               const char *first, const char *second, int *winner);

/* Starts the store thread and its async handle on loop. 0 or a negative code. */
int thue_store_start(thue_store *s, uv_loop_t *loop);

/* A write's completion: err 0 (committed) or a negative code; id is the row's id
 * (accounts) or 0. */
typedef void (*thue_store_cb)(int err, int64_t id, void *data);
/* A read's result: HTTP status (200, 404 unknown id, 500 on a store error) and a body
 * the callback owns (free() it; NULL when status is 500 and memory ran out). */
typedef void (*thue_store_text_cb)(int status, char *body, size_t len, void *data);

/* A password hash read: err 0 and hash (borrowed for the call; NULL when the account has
 * no password, or there is no such account), or a negative code. */
typedef void (*thue_store_hash_cb)(int err, const char *hash, void *data);

/* The longest password hash the store takes, its NUL included. */
#define THUE_STORE_HASH_MAX 256

/* Start-up only (before thue_store_start): calls token() for every login token (schema
 * 4's account_tokens: the account and the token's SHA-256). 0, or a negative code with
 * err filled. */
int thue_store_load_tokens(thue_store *s,
                           void (*token)(void *ctx, int64_t account, const unsigned char hash[32]),
                           void *ctx, char *err, size_t errsize);

/* Each returns 0 (queued; the callback will run exactly once) or a negative code at once
 * (THUE_STORE_ECLOSED, THUE_ENOMEM, THUE_EINVAL; the callback will not run). */

/* The password hash of account (a person's; 0 or a bot: none), read in its own
 * transaction. A read: it may run before writes queued earlier that the disk holds back. */
int thue_store_password_get(thue_store *s, int64_t account, thue_store_hash_cb cb, void *data);
/* Sets account's password hash (1..THUE_STORE_HASH_MAX-1 printable ASCII bytes) if its
 * stored one is still expect (NULL: it has none): compare and set, so that of two changes
 * made from the same old password only one wins. The callback's id is the account's when
 * the hash was written, 0 when the stored hash was no longer expect (nothing written). */
int thue_store_password_set(thue_store *s, int64_t account, const char *hash, const char *expect,
                            thue_store_cb cb, void *data);
/* Adds a login token of account (its SHA-256): hello with that token then logs in to the
 * account, as with the token of claim_name, on every server sharing the database. */
int thue_store_add_token(thue_store *s, int64_t account, const unsigned char hash[32],
                         thue_store_cb cb, void *data);

/* A new account with the caller's row->id (>= 1), or with the id the database picks
 * (row->id 0; the callback's id). THUE_STORE_EEXISTS when the name is taken (ignoring
 * ASCII case), except that a bot (THUE_KIND_BOT) added with id 0 whose name is already
 * that bot's, with the same SPEC, succeeds with the existing account's id (two servers
 * may add the same bot). A taken id (>= 1) is THUE_STORE_EIO. */
int thue_store_add_account(thue_store *s, const thue_account_row *row, thue_store_cb cb,
                           void *data);
/* A finished match: the match, its moves and, when rated, the two players' new ratings,
 * in one transaction. */
int thue_store_save_match(thue_store *s, const thue_match_row *m, thue_store_cb cb, void *data);
/* A tournament's whole state (JSON text the lobby writes and reads back at start-up);
 * finished = 1 once it is over (it is then not loaded again). A single server's: node ""
 * and fence 0 (thue_store_save_tournament_fenced). */
int thue_store_save_tournament(thue_store *s, const char *id, const char *state_json,
                               int finished, thue_store_cb cb, void *data);
/*
 * Several nodes: who directs a tournament is the row's node, under a lease (lease_ms from
 * now: the row's lease_ms, Unix ms) and a fencing token (fence, raised by one whenever
 * another node takes the tournament over). A save names the node and the fence it
 * directs under: a new row is created with them; an existing one is replaced only when
 * both still match, else THUE_STORE_EFENCED and nothing is written (a node paused past
 * its lease, whose tournament another node took, can no longer write it).
 */
int thue_store_save_tournament_fenced(thue_store *s, const char *id, const char *state_json,
                                      int finished, const char *node, int64_t fence,
                                      int64_t lease_ms, thue_store_cb cb, void *data);
/*
 * Renews the leases of node's unfinished tournaments to lease_ms from now (the store
 * thread's clock), then takes over at most one unfinished tournament of another node
 * whose lease has run out (its node becomes this one, its fence goes up by one; two
 * nodes never take the same one). The answer, JSON: {"renewed":[{"id","fence"}],
 * "taken":[{"id","state","fence","games":[[round,name0,name1,winner]...]}]}, games being
 * the taken tournament's stored matches (winner: seat, -1 a draw) so that results its old
 * director had not saved are not lost. 500 when the database failed: nothing renewed
 * (never held back and retried later, unlike a write).
 */
int thue_store_tournament_leases(thue_store *s, const char *node, int64_t lease_ms,
                                 thue_store_text_cb cb, void *data);

/* GET /api/matches/{id}: the JSON of PROTOCOL.md section 13 (application/json). */
int thue_store_match_json(thue_store *s, const char *id, thue_store_text_cb cb, void *data);
/* GET /api/matches?player=NAME&page=N: {"matches":[summaries],"page":N,"pages":M},
 * newest first, per_page per page (page counts from 1). */
int thue_store_matches_json(thue_store *s, const char *player, int page, int per_page,
                            thue_store_text_cb cb, void *data);
/* GET /api/matches/{id}/moves.csv: "round,ply,seat,role,move,think_ms" and one line per
 * move (text/csv); another game's match: "ply,seat,move,think_ms", the move as its JSON
 * in one CSV-quoted field. */
int thue_store_moves_csv(thue_store *s, const char *id, thue_store_text_cb cb, void *data);
/*
 * The same three as seen by viewer: the functions above read every match (a trusted
 * caller's view); these, for the HTTP API, find a private room's match only when viewer
 * is the account id of one of its players (0: a stranger, who sees only public rooms'
 * matches; a private match is then "not found" and not listed or counted).
 */
int thue_store_match_json_as(thue_store *s, const char *id, int64_t viewer,
                             thue_store_text_cb cb, void *data);
int thue_store_matches_json_as(thue_store *s, const char *player, int64_t viewer, int page,
                               int per_page, thue_store_text_cb cb, void *data);
int thue_store_moves_csv_as(thue_store *s, const char *id, int64_t viewer,
                            thue_store_text_cb cb, void *data);
/* A finished match's exact review (schema 6; lobby/reviews.c computes it): written, or
 * replaced, as the JSON text GET /api/matches/{id}/review answers. cb gets 0 once it is
 * committed, THUE_EINVAL when no match has that id. */
int thue_store_save_review(thue_store *s, const char *match, const char *review,
                           thue_store_cb cb, void *data);
/* GET /api/matches/{id}/review: the stored review (200), {"match":ID,"status":"pending"}
 * (200: the match is there for viewer but has no review yet), or 404 as for the match. */
int thue_store_review_json_as(thue_store *s, const char *match, int64_t viewer,
                              thue_store_text_cb cb, void *data);
/* GET /api/matches?player=NAME&game=G: as thue_store_matches_json_as, only the matches of
 * game G ("thue", "nim", ...; NULL: every game's). */
int thue_store_matches_game_json_as(thue_store *s, const char *player, const char *game,
                                    int64_t viewer, int page, int per_page, thue_store_text_cb cb,
                                    void *data);
/* GET /api/tournaments and /api/tournaments/{id} are served from the lobby's memory. */

/*
 * Puzzles (schema 7; issue 33): a position of a one-game game where exactly one move keeps
 * the win (search/puzzle.h), stored once and never changed: its id, the game, the
 * canonical options, the position (state_json) and the player to move, the solution
 * (move_json), the value for the mover (1: a win), the legal moves, the plies of a
 * perfect line, a difficulty 1..5, where it came from ("seed:N": the generator's random
 * game; "match:ID": a played match) and when it was stored (created_at, Unix ms).
 * The texts are JSON, borrowed until the call returns.
 */
typedef struct thue_puzzle_row {
    char game[THUE_PROTO_GAME_MAX + 1];
    const char *options, *position, *solution;
    int to_move, value, moves, plies, difficulty;
    char source[80];
} thue_puzzle_row;

/* A puzzle, stored with created_at now. The callback's id is the new puzzle's, or 0 when
 * that position of that game and options was stored already (nothing written). */
int thue_store_add_puzzle(thue_store *s, const thue_puzzle_row *row, thue_store_cb cb, void *data);
/* Every game's puzzles counted: {"nim":12,"dots":30} (games without any are absent). */
int thue_store_puzzle_counts(thue_store *s, thue_store_text_cb cb, void *data);
/* GET /api/puzzles?game=G&page=N: {"game":G,"puzzles":[puzzle...],"page":N,"pages":M,
 * "total":T}, oldest first, per_page per page (page counts from 1). */
int thue_store_puzzles_json(thue_store *s, const char *game, int page, int per_page,
                            thue_store_text_cb cb, void *data);
/* GET /api/puzzles/{id}: one puzzle's JSON ({"id","game","options","position","to_move",
 * "solution","value","moves","plies","difficulty","source","created_at"}); 404 when there
 * is none. */
int thue_store_puzzle_json(thue_store *s, int64_t id, thue_store_text_cb cb, void *data);
/* GET /api/puzzles/daily?game=G: the puzzle of the UTC day that starts at day_start_ms
 * (its date "YYYY-MM-DD" is added to the answer as "date"): among game's puzzles stored
 * before that day the one at index pick modulo their count (by id), or when none was
 * stored before it, the game's first puzzle; so a day's puzzle never changes once the day
 * has begun with puzzles. 404 when the game has no puzzle. */
int thue_store_puzzle_daily_json(thue_store *s, const char *game, const char *date,
                                 int64_t day_start_ms, uint64_t pick, thue_store_text_cb cb,
                                 void *data);

/*
 * Servers sharing a PostgreSQL database: the accounts, login tokens and ratings written
 * since the last call (the first call: since thue_store_load's snapshot), by any server,
 * this one's included, as a JSON array of the lobby's account events in change order:
 * {"t":"account","id","name","kind","bot","hash"}, {"t":"token","id","name","hash"},
 * {"t":"rating","rows":[{"account","name","game","pool","rating","rd","vol","games",
 * "wins","draws","losses","seq"}]} (hash: the token's SHA-256 in hex). Every such write
 * takes the next change number under one lock, so the numbers commit in order and a
 * server that follows them misses nothing, however long it was cut off. A SQLite file's
 * answer is always []. Status 500 (nothing is skipped: the next call reads the same
 * rows again).
 */
int thue_store_changes(thue_store *s, thue_store_text_cb cb, void *data);

/* Finishes the queued jobs (their callbacks run), stops the thread, closes the database
 * and frees the store; closed (may be NULL) runs on the loop when all is done. A store
 * that was never started is closed at once (closed is called before this returns). */
void thue_store_close(thue_store *s, void (*closed)(void *data), void *data);

/*
 * The store's health, readable from any thread (for /metrics and /healthz). A write that
 * fails for a reason that can pass (the disk is full, the file or file system is
 * read-only, an I/O error, a lock; PostgreSQL: the connection is lost or the server is
 * restarting, out of disk, a serialization failure) is not dropped: the store thread keeps it, and every
 * write queued after it, in order, and tries again after 0.5 s, doubling up to 10 s,
 * until it commits; reads go on meanwhile, and the write's callback (the lobby's
 * match_end) waits for the commit. At close, each waiting write gets one last attempt;
 * one that still fails completes with THUE_STORE_EIO (logged).
 */
typedef struct thue_store_health {
    int failing;             /* 1 while writes are waiting for the disk */
    int writes_waiting;      /* writes held back until the failing one commits */
    uint64_t write_failures; /* failed write attempts since start */
} thue_store_health;

void thue_store_health_get(thue_store *s, thue_store_health *out);

/* Test hook: while on, every write fails as if the disk were full (a failure that can
 * pass), without touching the database. */
void thue_store_fail_writes(thue_store *s, int on);

/* Test hook: the store thread calls _exit(99) inside the transaction of the n-th job
 * (1-based) after writing part of it, to show that a crash loses no committed data and
 * leaves no partial one. 0 turns it off. */
void thue_store_crash_in_job(thue_store *s, int n);

/* Test hook (PostgreSQL; SQLite ignores it): the next COMMIT that succeeds is answered as
 * if the connection had broken during it, so the writes are tried again (and must not be
 * stored twice). */
void thue_store_lose_commit_reply(thue_store *s);

/* SHA-256 of len bytes into out[32]. */
void thue_sha256(const void *data, size_t len, unsigned char out[32]);

#endif
