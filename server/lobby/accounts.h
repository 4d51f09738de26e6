/*
 * accounts.h: accounts, their ratings per pool, and the ladders (accounts.c). Knows no
 * session and no room: the commands that reply to a session (claim_name, get_ladder) are
 * account_cmds.c's. Calls util.c only. Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_ACCOUNTS_H
#define THUE_SERVER_LOBBY_ACCOUNTS_H

#include <jansson.h>

#include "lobby_types.h"

/* The pool of a game's options. */
void pool_of(const thue_gamedef *game, const thue_gopt *opt, pool_id *out);
bool pool_equal(const pool_id *a, const pool_id *b);

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
 * bad_options with field and message (of fsize and msize bytes) set, or THUE_ENOMEM. */
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
/* Makes an account in memory and links it into the tables (claim_name, loading); NULL
 * when out of memory. */
account *account_add(thue_lobby *l, int64_t id, const char *name, thue_player_kind kind,
                     const char *bot, const unsigned char hash[32]);
/* Another token of a (a login's, loaded or told by another node): hello with it logs in
 * to a. 0, or -1 when out of memory. */
int account_add_token(thue_lobby *l, account *a, const unsigned char hash[32]);
/* A login's token is committed: kept, and the other nodes are told (its SHA-256 only). */
void account_token_saved(thue_lobby *l, account *a, const unsigned char hash[32]);
/* Takes an account back out (its store write failed) and frees it. */
void account_remove(thue_lobby *l, account *a);
/* The store has the account: committed, its id the database's when it had none (several
 * nodes: account_new_id), and the other nodes are told. */
void account_committed(thue_lobby *l, account *a, int64_t id);
/* The id a new account is made with: the next one here; 0 with several nodes, where the
 * database gives it at the commit (two nodes never pick the same). */
int64_t account_new_id(thue_lobby *l);
/* A rated match's two rows (of the accounts named) are committed: they replace this
 * node's records (the ladders moved), and the other nodes are told. */
void accounts_ratings_saved(thue_lobby *l, const thue_rating_row rows[2],
                            const char names[2][THUE_PROTO_NAME_MAX * 4 + 1]);
/* An event of another node: "account" (a new account: added here), "token" (a login's
 * token: added to its account here) or "rating" (two rating rows after a match: they
 * replace this node's, and the pool's ladders are rebuilt). */
void accounts_event(thue_lobby *l, json_t *ev);
/* Several nodes: reads what any node wrote to the store since the last time (accounts,
 * tokens, ratings) and applies it as their events; one read at a time. Each second. */
void accounts_follow(thue_lobby *l);

#endif
