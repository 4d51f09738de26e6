/*
 * store_internal.h: what store.c (the thread, the queue, the public calls) shares with
 * store_db.c (the statements, opening, start-up load and the writes), store_read.c (the
 * texts of the HTTP reads), and sql_sqlite.c and sql_pg.c (each engine's connection,
 * schema and migrations). Not part of the store's API.
 *
 * The engine is SQLite (a file) or PostgreSQL (a postgres:// URI): sql.h's statement
 * layer hides which from store_db.c's and store_read.c's logic.
 *
 * A thue__db is used by one thread at a time: the opening thread until thue_store_start,
 * then only the store thread, until thue_store_close has joined it. Every thue__db_ job
 * function runs one transaction and leaves no statement active and no transaction open,
 * whatever happens.
 */
#ifndef THUE_SERVER_STORE_INTERNAL_H
#define THUE_SERVER_STORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <sqlite3.h>

#include "store/store.h"

/* Moves written by one statement (THUE__STMT_MOVES_INSERT_BATCH); the rest one by one. */
#define THUE__MOVES_BATCH 16

/* The prepared statements, prepared once at open (store_db.c holds their SQL). */
typedef enum {
    THUE__STMT_BEGIN = 0,   /* a read job's transaction */
    THUE__STMT_BEGIN_WRITE, /* BEGIN IMMEDIATE: a write job's */
    THUE__STMT_COMMIT,
    THUE__STMT_ROLLBACK,
    THUE__STMT_SAVEPOINT,   /* a write job's part of a batch (store.c's group commit) */
    THUE__STMT_RELEASE,
    THUE__STMT_ROLLBACK_TO,
    THUE__STMT_ACCOUNT_INSERT,
    THUE__STMT_ACCOUNT_LOAD,
    THUE__STMT_RATING_UPSERT,
    THUE__STMT_RATING_LOAD,
    THUE__STMT_TOURNAMENT_UPSERT,
    THUE__STMT_TOURNAMENT_LOAD,
    THUE__STMT_MATCH_INSERT,
    THUE__STMT_MOVE_INSERT,
    THUE__STMT_MOVES_INSERT_BATCH, /* THUE__MOVES_BATCH rows of MOVE_INSERT's 8 columns */
    THUE__STMT_MATCH_GET,
    THUE__STMT_MATCH_EXISTS,
    THUE__STMT_MOVES_GET,
    THUE__STMT_PLAYER_COUNT,
    THUE__STMT_PLAYER_PAGE,
    THUE__STMT_MATCH_VISIBLE,
    THUE__STMT_ACCOUNT_FIND,     /* an account by name_key (a taken name: whose?) */
    THUE__STMT_TOURNAMENT_GAME,  /* thue_store_tournament_game */
    THUE__STMT_WRITE_LOCK,       /* PostgreSQL: the changes lock (store_db.c) */
    THUE__STMT_PASSWORD_GET,     /* schema 4: an account's password hash */
    THUE__STMT_PASSWORD_SET,     /* ... replaced only if it is still the one read before */
    THUE__STMT_TOKEN_INSERT,     /* schema 4: another token of an account (login) */
    THUE__STMT_TOKEN_LOAD,
    THUE__STMT_RATING_GET,       /* schema 5: one rating, read under the changes lock */
    THUE__STMT_PAIR_COUNT,       /* two accounts' rated matches since a time */
    THUE__STMT_CHANGES_MAX,      /* the last change number */
    THUE__STMT_CHANGES_ACCOUNTS, /* the rows changed since a change number */
    THUE__STMT_CHANGES_TOKENS,
    THUE__STMT_CHANGES_RATINGS,
    THUE__STMT_LEASE_RENEW,        /* a node's tournaments: their leases renewed */
    THUE__STMT_LEASE_TAKE,         /* one tournament whose lease ran out, taken over */
    THUE__STMT_TOURNAMENT_MATCHES, /* a tournament's stored games */
    THUE__STMT_REVIEW_PUT,         /* schema 6: a match's exact review, written or replaced */
    THUE__STMT_REVIEW_GET,
    THUE__STMT_PUZZLE_INSERT,      /* schema 7: puzzles (store_puzzles.c) */
    THUE__STMT_PUZZLE_COUNTS,      /* every game's puzzles counted */
    THUE__STMT_PUZZLE_COUNT,       /* one game's, created before a time */
    THUE__STMT_PUZZLE_PAGE,        /* one game's, created before a time, by id, a page */
    THUE__STMT_PUZZLE_GET,         /* one by id */
    THUE__STMT_COUNT
} thue__stmt;

/* The columns of THUE__STMT_MATCH_GET, in order. */
enum {
    THUE__MC_ID = 0,
    THUE__MC_ROOM,
    THUE__MC_NUMBER,
    THUE__MC_VARIANT,
    THUE__MC_K,
    THUE__MC_LIMIT,
    THUE__MC_CLOCK_INITIAL,
    THUE__MC_CLOCK_INCREMENT,
    THUE__MC_RATED,
    THUE__MC_PRIVATE,
    THUE__MC_FIRST_BUILDER,
    THUE__MC_NAME0, /* name, kind, bot of seat 0, then the same for seat 1 */
    THUE__MC_KIND0,
    THUE__MC_BOT0,
    THUE__MC_NAME1,
    THUE__MC_KIND1,
    THUE__MC_BOT1,
    THUE__MC_WINNER,
    THUE__MC_REASON,
    THUE__MC_POINTS0,
    THUE__MC_POINTS1,
    THUE__MC_ROUNDS,
    THUE__MC_RATINGS, /* 8 columns: before, after, rd_before, rd_after of seat 0, then 1 */
    THUE__MC_STARTED = THUE__MC_RATINGS + 8,
    THUE__MC_ENDED,
    THUE__MC_TOURNAMENT,
    THUE__MC_TOURNAMENT_ROUND,
    THUE__MC_GAME, /* schema 2: "thue" or another game's name, then (NULL for Thue) */
    THUE__MC_GAME_OPTIONS,
    THUE__MC_GAME_FIRST,
    THUE__MC_START_STATE,
    THUE__MC_FINAL_STATE
};

/* The columns of THUE__STMT_MOVES_GET, in order. */
enum {
    THUE__MV_ROUND = 0,
    THUE__MV_PLY,
    THUE__MV_SEAT,
    THUE__MV_IS_PAINT,
    THUE__MV_VALUE,
    THUE__MV_THINK_MS,
    THUE__MV_MOVE /* another game's move as JSON text; NULL for Thue's */
};

struct thue__pg; /* sql_pg.c's connection and statements */

typedef struct thue__db {
    sqlite3 *db;          /* SQLite; NULL when pg is set */
    struct thue__pg *pg;  /* PostgreSQL (a postgres:// path); NULL for SQLite */
    char *path; /* for messages (a URI without its password) */
    sqlite3_stmt *stmt[THUE__STMT_COUNT];
    int transient; /* the last failure may pass: the disk is full, read-only or failing,
                      or the file is locked (set by thue__db_fail) */
    int lock_fd;   /* the file's flock()ed descriptor (sql_sqlite.c's lock_file), or -1 */
    int batch;     /* a batch's transaction is open: a write job's begin, commit and
                      rollback are a savepoint's */
    int commit_unknown;    /* PostgreSQL: a COMMIT's answer was lost with the connection, so
                              the writes tried again may be in already (each job looks
                              first); cleared by the next COMMIT that answers */
    int lose_commit_reply; /* test hook (thue_store_lose_commit_reply): the next COMMIT
                              that succeeds is answered as lost */
    int64_t changes_seen;  /* PostgreSQL: the last change number read (at the load, then
                              by thue__db_changes) */
} thue__db;

/* A read's answer: HTTP status and a malloc()ed body (NULL only when memory ran out). */
typedef struct thue__text {
    int status;
    char *body;
    size_t len;
} thue__text;

/* ---- store_db.c ---------------------------------------------------------------------- */

/* Opens, configures and migrates the database, prepares the statements. 0, or a negative
 * code with a sentence in err (d is then zeroed). */
int thue__db_open(thue__db *d, const char *path, char *err, size_t errsize);
/* Finalizes the statements and closes the database. A zeroed d is a no-op. */
void thue__db_close(thue__db *d);

int thue__db_load(thue__db *d, void (*account)(void *ctx, const thue_account_row *row),
                  void (*rating)(void *ctx, const thue_rating_row *row),
                  void (*tournament)(void *ctx, const char *id, const char *state_json), void *ctx,
                  char *err, size_t errsize);

/* The writes. crash: call thue__crash_point halfway through the transaction. */
int thue__db_add_account(thue__db *d, const thue_account_row *row, int crash, int64_t *id);
/* m->rate: the ratings computed here are written into m (rated, changes, ratings,
 * pair_limited): m is the job's own copy. */
int thue__db_save_match(thue__db *d, thue_match_row *m, int crash);
/* The accounts, tokens and ratings other servers wrote since the last call (or the
 * load): a JSON array of the lobby's account events (store.h, thue_store_changes) into
 * out. PostgreSQL only; SQLite's answer is always "[]". */
void thue__db_changes(thue__db *d, thue__text *out);
/* A tournament's state to save, fenced by (node, fence): THUE_STORE_EFENCED when the row
 * is another node's or has another fence. */
typedef struct thue__tournament_save {
    const char *id, *state, *node;
    int finished;
    int64_t updated_ms, fence, lease_ms;
} thue__tournament_save;
int thue__db_save_tournament(thue__db *d, const thue__tournament_save *t, int crash);
/* Renews node's leases and takes over at most one lapsed one (store.h,
 * thue_store_tournament_leases): the JSON answer into out (500 on failure, logged). */
void thue__db_leases(thue__db *d, const char *node, int64_t now_ms, int64_t lease_ms,
                     thue__text *out);
/* Passwords and login tokens (schema 4; store.h's thue_store_password_set and
 * thue_store_add_token). expect NULL: the account has no password yet. *updated is the
 * account's id when the hash was written, 0 when the stored one was not expect. */
int thue__db_password_set(thue__db *d, int64_t account, const char *hash, const char *expect,
                          int crash, int64_t *updated);
int thue__db_add_token(thue__db *d, int64_t account, const unsigned char hash[32],
                       int64_t created_ms, int crash);
/* The account's password hash into out (size bytes; "" and *found 0 when it has none or
 * there is no such account). 0 or THUE_STORE_EIO (logged). */
int thue__db_password_get(thue__db *d, int64_t account, char *out, size_t size, int *found);
/* Start-up: every login token. 0, or THUE_STORE_EIO with err filled. */
int thue__db_load_tokens(thue__db *d, void (*token)(void *ctx, int64_t account,
                                                    const unsigned char hash[32]),
                         void *ctx, char *err, size_t errsize);

/* Shared helpers. fail logs "store: WHAT: the engine's message" and returns
 * THUE_STORE_EIO, setting d->transient when the error is one that can pass (SQLite:
 * SQLITE_FULL, IOERR, READONLY, CANTOPEN, BUSY, LOCKED, PROTOCOL; PostgreSQL: a lost
 * connection, a server shutting down or starting, a full disk: thue__pg_transient). */
int thue__db_fail(thue__db *d, const char *what);
int thue__db_begin(thue__db *d, int write);
int thue__db_commit(thue__db *d);
/* Rolls back the open transaction, if any (SQLite may already have rolled it back); in
 * a batch, the job's savepoint only. */
void thue__db_rollback(thue__db *d);
/* Group commit: one transaction around several write jobs, each in its savepoint (so one
 * job's expected failure, a taken name say, leaves the others). batch_begin: 0 or
 * THUE_STORE_EIO. batch_alive: whether the batch's transaction is still open (SQLite
 * rolls the whole transaction back after some I/O errors). batch_end commits (or, with
 * commit 0 or a dead transaction, rolls back): 0 or THUE_STORE_EIO; d->batch is 0 after. */
int thue__db_batch_begin(thue__db *d);
int thue__db_batch_alive(thue__db *d);
int thue__db_batch_end(thue__db *d, int commit);
/* name's ASCII-lowercased form into key (size bytes, cut to fit): the key names compare
 * by (accounts.name_key; PostgreSQL's matches.name0_key and name1_key). */
void thue__name_key(const char *name, char *key, size_t size);
/* The test hook: _exit(99) when crash is set. */
void thue__crash_point(int crash);

/* ---- store_read.c -------------------------------------------------------------------- */

/* viewer: who reads (thue_store_match_json_as): -1 anyone's, 0 a stranger, else an
 * account id; a private room's match is found only for -1 and its players' accounts. */
void thue__db_match_json(thue__db *d, const char *id, int64_t viewer, int crash,
                         thue__text *out);
/* game: only that game's matches ("thue", "nim"), NULL every game's. */
void thue__db_matches_json(thue__db *d, const char *player, const char *game, int64_t viewer,
                           int page, int per_page, int crash, thue__text *out);
void thue__db_moves_csv(thue__db *d, const char *id, int64_t viewer, int crash, thue__text *out);
/* Bodies of the reads' answers (store_read.c): out's status and body (taken); an error's
 * JSON ({"error":{"code","message"}}, our own constant words); the 500 of a failed read;
 * root (stolen) dumped as the 200 body, 500 when it is NULL or memory runs out. And a
 * JSON text column as JSON (a new reference; null for NULL or text that is no JSON). */
void thue__text_body(thue__text *out, int status, char *body);
void thue__text_error(thue__text *out, int status, const char *code, const char *message);
void thue__text_internal(thue__text *out);
void thue__text_json(thue__text *out, json_t *root);
json_t *thue__col_json(thue__db *d, thue__stmt w, int c);

/* A match's review (schema 6): the stored JSON (200), {"match":ID,"status":"pending"}
 * (200: the match is visible but has none yet), 404 as the match's, or 500. */
void thue__db_review_json(thue__db *d, const char *id, int64_t viewer, int crash, thue__text *out);
/* Writes (or replaces) a match's review: 0 or an error (THUE_EINVAL: no such match). */
int thue__db_save_review(thue__db *d, const char *id, const char *review, int64_t created_ms,
                         int crash);

/* ---- store_puzzles.c (schema 7) ----------------------------------------------------- */

/* Writes a puzzle (created now): *id its new id, 0 when the position was stored already. */
int thue__db_add_puzzle(thue__db *d, const thue_puzzle_row *row, int64_t created_ms, int crash,
                        int64_t *id);
/* {"nim":12,...}: every game's puzzles counted. */
void thue__db_puzzle_counts(thue__db *d, thue__text *out);
/* A page of game's puzzles, oldest first (store.h, thue_store_puzzles_json). */
void thue__db_puzzles_json(thue__db *d, const char *game, int page, int per_page, thue__text *out);
/* One puzzle by id; 404 when there is none. */
void thue__db_puzzle_json(thue__db *d, int64_t id, thue__text *out);
/* The day's puzzle of game (store.h, thue_store_puzzle_daily_json). */
void thue__db_puzzle_daily(thue__db *d, const char *game, const char *date, int64_t day_start_ms,
                           uint64_t pick, thue__text *out);

/* thue_store_tournament_game, on the opening thread (start-up). */
int thue__db_tournament_game(thue__db *d, const char *tournament, int round, const char *first,
                             const char *second, int *winner);

#endif
