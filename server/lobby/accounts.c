/*
 * accounts.c: accounts, their ratings, and the ladders (PROTOCOL.md section 9).
 *
 * Every account and rating lives in memory (loaded from the store at start-up), so that
 * a login, a ladder or a rating update never waits for the disk; every change is queued
 * for the store thread. A claimed name is answered (with its token) only once the store
 * has committed the account: a token the client holds always works after a crash.
 *
 * An account token is "t_" and 64 hex digits (256 random bits); only its SHA-256 is
 * kept, in memory and on disk. An account has the token claim_name gave and one more for
 * each login with its password (login_token below, the store's account_tokens): each of
 * them logs in with hello. Passwords themselves are never in memory here: their hashes
 * are read from the store at each use (passwords.c).
 *
 * This module knows no session and no request: it keeps the tables (accounts.h) and
 * calls only util.c. The commands claim_name and get_ladder, which reply to a session and
 * rename it, are account_cmds.c's, in the dispatch layer above.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "nodes.h"
#include "util.h"
#include "log.h"
#include "base/hash.h"

static void hex_of(const unsigned char *b, size_t n, char *out);
static int unhex(const char *s, unsigned char *out, size_t n);

/* ---- tables ------------------------------------------------------------------------- */

account *account_by_name(thue_lobby *l, const char *name)
{
    char key[THUE_PROTO_NAME_MAX * 4 + 1];
    lobby_name_key(name, key, sizeof key);
    for (account *a = l->acct_by_name[lobby_hash(key) % LOBBY_BUCKETS]; a; a = a->name_next)
        if (strcmp(a->key, key) == 0)
            return a;
    return NULL;
}

static account *by_token_hash(thue_lobby *l, const unsigned char hash[32])
{
    for (account *a = l->acct_by_token[thue_hash_bytes(hash, 32) % LOBBY_BUCKETS]; a;
         a = a->token_next)
        if (a->kind == THUE_KIND_ACCOUNT && memcmp(a->token_hash, hash, 32) == 0)
            return a;
    return NULL;
}

/* A token login handed out: its hash and its account, in the lobby's login_tokens. */
struct login_token {
    unsigned char hash[32];
    account *a;
    login_token *next;
};

account *account_by_token(thue_lobby *l, const char *token)
{
    unsigned char hash[32];
    thue_sha256(token, strlen(token), hash);
    account *a = by_token_hash(l, hash);
    if (a != NULL)
        return a;
    for (login_token *t = l->login_tokens[thue_hash_bytes(hash, 32) % LOBBY_BUCKETS]; t;
         t = t->next)
        if (memcmp(t->hash, hash, 32) == 0)
            return t->a;
    return NULL;
}

int account_add_token(thue_lobby *l, account *a, const unsigned char hash[32])
{
    login_token **head = &l->login_tokens[thue_hash_bytes(hash, 32) % LOBBY_BUCKETS];
    for (login_token *t = *head; t; t = t->next)
        if (memcmp(t->hash, hash, 32) == 0)
            return 0; /* known already (another node's event after a load, say) */
    login_token *t = calloc(1, sizeof *t);
    if (t == NULL)
        return -1;
    memcpy(t->hash, hash, 32);
    t->a = a;
    t->next = *head;
    *head = t;
    return 0;
}

/* Drops the login tokens of a (every one when a is NULL). */
static void drop_tokens(thue_lobby *l, const account *a)
{
    for (size_t b = 0; b < LOBBY_BUCKETS; b++)
        for (login_token **pp = &l->login_tokens[b]; *pp;) {
            login_token *t = *pp;
            if (a == NULL || t->a == a) {
                *pp = t->next;
                free(t);
            } else {
                pp = &t->next;
            }
        }
}

void account_token_saved(thue_lobby *l, account *a, const unsigned char hash[32])
{
    if (account_add_token(l, a, hash) != 0)
        thue_log(THUE_LOG_ERROR, "out of memory keeping a login token of %s: it works after "
                 "a restart", a->name);
    if (l->cluster == NULL || a->id <= 0)
        return;
    char hex[65];
    hex_of(hash, 32, hex);
    nodes_broadcast_kept(l, json_pack("{s:s, s:I, s:s, s:s}", "t", "token", "id",
                                      (json_int_t)a->id, "name", a->name, "hash", hex));
}

/* Makes an account in memory and links it into the tables. */
account *account_add(thue_lobby *l, int64_t id, const char *name, thue_player_kind kind,
                     const char *bot, const unsigned char hash[32])
{
    account *a = calloc(1, sizeof *a);
    if (a == NULL)
        return NULL;
    a->id = id;
    snprintf(a->name, sizeof a->name, "%s", name);
    lobby_name_key(name, a->key, sizeof a->key);
    a->kind = kind;
    snprintf(a->bot, sizeof a->bot, "%s", bot ? bot : "");
    if (hash)
        memcpy(a->token_hash, hash, 32);
    a->next = l->accounts;
    l->accounts = a;
    account **head = &l->acct_by_name[lobby_hash(a->key) % LOBBY_BUCKETS];
    a->name_next = *head;
    *head = a;
    if (kind == THUE_KIND_ACCOUNT) {
        head = &l->acct_by_token[thue_hash_bytes(a->token_hash, 32) % LOBBY_BUCKETS];
        a->token_next = *head;
        *head = a;
    }
    if (id >= l->next_account)
        l->next_account = id + 1;
    return a;
}

/* Frees an account and its pool records. */
static void account_free(account *a)
{
    while (a->ratings) {
        pool_rating *next = a->ratings->next;
        free(a->ratings);
        a->ratings = next;
    }
    free(a);
}

/* Takes an account back out (its store write failed). */
void account_remove(thue_lobby *l, account *a)
{
    ladder_invalidate(l, NULL);
    account **pp;
    for (pp = &l->accounts; *pp && *pp != a; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = a->next;
    for (pp = &l->acct_by_name[lobby_hash(a->key) % LOBBY_BUCKETS]; *pp && *pp != a;
         pp = &(*pp)->name_next)
        ;
    if (*pp)
        *pp = a->name_next;
    for (pp = &l->acct_by_token[thue_hash_bytes(a->token_hash, 32) % LOBBY_BUCKETS];
         *pp && *pp != a; pp = &(*pp)->token_next)
        ;
    if (*pp)
        *pp = a->token_next;
    drop_tokens(l, a); /* (a claim the store refused has none: login needs a commit) */
    account_free(a);
}

void accounts_free(thue_lobby *l)
{
    ladder_invalidate(l, NULL);
    accounts_load_done(l);
    drop_tokens(l, NULL);
    while (l->accounts) {
        account *a = l->accounts;
        l->accounts = a->next;
        account_free(a);
    }
}

void pool_of(const thue_gamedef *game, const thue_gopt *opt, pool_id *out)
{
    memset(out, 0, sizeof *out);
    out->game = game;
    game->pool_key(opt, out->key, sizeof out->key);
}

bool pool_equal(const pool_id *a, const pool_id *b)
{
    return a->game == b->game && strcmp(a->key, b->key) == 0;
}

pool_rating *account_rating(account *a, const pool_id *pool)
{
    for (pool_rating *p = a->ratings; p; p = p->next)
        if (pool_equal(&p->pool, pool))
            return p;
    pool_rating *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->pool = *pool;
    p->g = thue_glicko_initial();
    p->next = a->ratings;
    a->ratings = p;
    return p;
}

/* ---- start-up ------------------------------------------------------------------------ */

/* The start-up index: accounts by id while the ratings are loaded (the store hands
 * ratings over by account id, one row at a time; a scan of the account list per row made
 * the load O(accounts x ratings), 4.9 s for 67k accounts). Open addressing with linear
 * probing, at most half full, filled by thue_lobby_load_account and freed once loading is
 * over (thue_lobby_set_store): afterwards nothing looks accounts up by id. */
static size_t id_slot(int64_t id, size_t cap)
{
    uint64_t z = (uint64_t)id * 0x9e3779b97f4a7c15ULL; /* Fibonacci hashing */
    return (size_t)(z ^ (z >> 29)) & (cap - 1);
}

/* 0, or -1 when out of memory (then the index is dropped: loading falls back to scans). */
static int load_index_add(thue_lobby *l, account *a)
{
    if (l->load_index_failed)
        return -1;
    if (2 * (l->load_n + 1) > l->load_cap) {
        size_t cap = l->load_cap ? 2 * l->load_cap : 1024;
        account **t = calloc(cap, sizeof *t);
        if (t == NULL) {
            accounts_load_done(l);
            l->load_index_failed = true;
            return -1;
        }
        for (size_t i = 0; i < l->load_cap; i++) {
            account *b = l->load_index[i];
            if (b == NULL)
                continue;
            size_t j = id_slot(b->id, cap);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = b;
        }
        free(l->load_index);
        l->load_index = t;
        l->load_cap = cap;
    }
    size_t j = id_slot(a->id, l->load_cap);
    while (l->load_index[j] && l->load_index[j]->id != a->id)
        j = (j + 1) & (l->load_cap - 1);
    if (l->load_index[j] == NULL)
        l->load_n++;
    l->load_index[j] = a;
    return 0;
}

static account *load_index_find(const thue_lobby *l, int64_t id)
{
    if (l->load_cap == 0)
        return NULL;
    for (size_t j = id_slot(id, l->load_cap); l->load_index[j]; j = (j + 1) & (l->load_cap - 1))
        if (l->load_index[j]->id == id)
            return l->load_index[j];
    return NULL;
}

void accounts_load_done(thue_lobby *l)
{
    free(l->load_index);
    l->load_index = NULL;
    l->load_cap = l->load_n = 0;
}

void thue_lobby_load_account(void *ctx, const thue_account_row *row)
{
    thue_lobby *l = ctx;
    account *a = account_add(l, row->id, row->name, row->kind, row->bot,
                             row->kind == THUE_KIND_ACCOUNT ? row->token_hash : NULL);
    if (a) {
        a->committed = true;
        load_index_add(l, a);
    }
}

void thue_lobby_load_token(void *ctx, int64_t account_id, const unsigned char hash[32])
{
    thue_lobby *l = ctx;
    account *a = load_index_find(l, account_id);
    if (a == NULL && l->load_index_failed)
        for (a = l->accounts; a && a->id != account_id; a = a->next)
            ;
    if (a == NULL || a->kind != THUE_KIND_ACCOUNT || account_add_token(l, a, hash) != 0)
        thue_log(THUE_LOG_WARN, "a login token of account %lld not loaded", (long long)account_id);
}

/* A stored rating row's values into the account's record of its pool. */
static void rating_from_row(pool_rating *p, const thue_rating_row *row)
{
    p->g.rating = row->rating;
    p->g.rd = row->rd;
    p->g.vol = row->vol;
    p->games = row->games;
    p->wins = row->wins;
    p->draws = row->draws;
    p->losses = row->losses;
    if (row->seq != 0)
        p->seq = row->seq;
}

void thue_lobby_load_rating(void *ctx, const thue_rating_row *row)
{
    thue_lobby *l = ctx;
    account *a = load_index_find(l, row->account);
    if (a == NULL && l->load_index_failed)
        for (a = l->accounts; a && a->id != row->account; a = a->next)
            ;
    if (a == NULL)
        return;
    pool_id pool = {thue_game_find(row->game), ""};
    if (pool.game == NULL || strlen(row->pool) >= sizeof pool.key) {
        thue_log(THUE_LOG_WARN,
                 "a stored rating of account %lld is of game \"%s\", pool \"%s\", which "
                 "this server does not have: not loaded",
                 (long long)row->account, row->game, row->pool);
        return;
    }
    snprintf(pool.key, sizeof pool.key, "%s", row->pool);
    pool_rating *p = account_rating(a, &pool);
    if (p == NULL)
        return;
    ladder_invalidate(l, &pool);
    rating_from_row(p, row);
}

/* ---- bots ------------------------------------------------------------------------------ */

/* The shortest SPEC that reads back as spec_text (a canonical SPEC, thue_bot_spec_format):
 * a uct bot's canonical form names every option ("uct:iterations=10000,playout=...,c=..."),
 * too long for a name, while "uct" or "uct:ms=500" says the same. Others: as given. */
static void short_spec(const char *spec_text, char *out, size_t size)
{
    thue_bot_spec s;
    snprintf(out, size, "%s", spec_text);
    if (thue_bot_spec_parse(spec_text, &s, NULL, 0) != 0 || s.kind != THUE_BOT_UCT)
        return;
    thue_bot_spec d = thue_bot_spec_default(THUE_BOT_UCT);
    char opts[160] = "";
    size_t n = 0;
    if (s.iterations != d.iterations)
        n += (size_t)snprintf(opts + n, sizeof opts - n, ",iterations=%llu",
                              (unsigned long long)s.iterations);
    if (s.time_ms != d.time_ms && n < sizeof opts)
        n += (size_t)snprintf(opts + n, sizeof opts - n, ",ms=%d", s.time_ms);
    if (s.playout_limit != d.playout_limit && n < sizeof opts)
        n += (size_t)snprintf(opts + n, sizeof opts - n, ",playout=%d", s.playout_limit);
    if (s.exploration != d.exploration && n < sizeof opts) {
        char c[40];
        snprintf(c, sizeof c, "%g", s.exploration);
        if (strtod(c, NULL) != s.exploration)
            snprintf(c, sizeof c, "%.17g", s.exploration);
        n += (size_t)snprintf(opts + n, sizeof opts - n, ",c=%s", c);
    }
    if (n >= sizeof opts)
        return;
    char text[200], back[THUE_PROTO_SPEC_MAX + 1];
    snprintf(text, sizeof text, "uct%s%s", n ? ":" : "", n ? opts + 1 : "");
    thue_bot_spec t;
    if (strlen(text) < size && thue_bot_spec_parse(text, &t, NULL, 0) == 0 &&
        thue_bot_spec_format(&t, back, sizeof back) < (int)sizeof back &&
        strcmp(back, spec_text) == 0)
        memcpy(out, text, strlen(text) + 1);
}

void bot_name_of(const char *spec_text_in, char *out, size_t size)
{
    char spec_text[THUE_PROTO_SPEC_MAX + 1];
    short_spec(spec_text_in, spec_text, sizeof spec_text);
    size_t len = strlen(spec_text);
    if (len <= THUE_PROTO_NAME_MAX) {
        snprintf(out, size, "%s", spec_text);
        return;
    }
    unsigned char h[32]; /* of the canonical SPEC: names stay what they were */
    thue_sha256(spec_text_in, strlen(spec_text_in), h);
    snprintf(out, size, "Bot-%02x%02x%02x%02x", h[0], h[1], h[2], h[3]);
}

typedef struct bot_job {
    thue_lobby *l;
    account *a;
} bot_job;

static void bot_saved(int err, int64_t id, void *data)
{
    bot_job *j = data;
    thue_lobby *l = j->l;
    l->store_pending--;
    if (err)
        thue_log(THUE_LOG_ERROR, "the store could not save bot account %s: %s", j->a->name,
                 thue_strerror(err));
    else
        account_committed(l, j->a, id);
    free(j);
}

account *account_bot(thue_lobby *l, const char *spec_text, const char *bot_name)
{
    if (l->store == NULL)
        return NULL;
    for (account *a = l->accounts; a; a = a->next)
        if (a->kind == THUE_KIND_BOT && strcmp(a->bot, spec_text) == 0)
            return a;
    if (account_by_name(l, bot_name) != NULL) {
        thue_log(THUE_LOG_ERROR, "bot name %s is taken by an account", bot_name);
        return NULL;
    }
    account *a = account_add(l, account_new_id(l), bot_name, THUE_KIND_BOT, spec_text, NULL);
    if (a == NULL)
        return NULL;
    thue_account_row row;
    memset(&row, 0, sizeof row);
    row.id = a->id;
    snprintf(row.name, sizeof row.name, "%s", a->name);
    row.kind = THUE_KIND_BOT;
    snprintf(row.bot, sizeof row.bot, "%s", spec_text);
    row.created_ms = lobby_now_ms();
    bot_job *j = calloc(1, sizeof *j);
    if (j != NULL) {
        j->l = l;
        j->a = a;
    }
    if (j != NULL && thue_store_add_account(l->store, &row, bot_saved, j) == 0)
        l->store_pending++;
    else
        free(j);
    /* The store runs jobs in order: this row is written before any match naming it. */
    a->committed = true;
    return a;
}

int64_t account_new_id(thue_lobby *l)
{
    return l->cluster != NULL ? 0 : l->next_account;
}

static void hex_of(const unsigned char *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int unhex(const char *s, unsigned char *out, size_t n)
{
    if (s == NULL || strlen(s) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

void account_committed(thue_lobby *l, account *a, int64_t id)
{
    if (a->id == 0 && id > 0) {
        a->id = id;
        if (id >= l->next_account)
            l->next_account = id + 1;
    }
    a->committed = true;
    if (l->cluster == NULL || a->id <= 0)
        return;
    char hash[65];
    hex_of(a->token_hash, 32, hash);
    nodes_broadcast_kept(l, json_pack("{s:s, s:I, s:s, s:i, s:s, s:s}", "t", "account", "id",
                                      (json_int_t)a->id, "name", a->name, "kind", (int)a->kind,
                                      "bot", a->bot, "hash", hash));
}

/*
 * A rating row the database has committed into this node's memory: it replaces the
 * account's record of the pool, unless that record holds that change or a later one
 * already (a row's change number, seq, orders the writes of every node; 0: unknown,
 * applied). The account is found by name (a hashed table), its id checked. The record,
 * and its account in *out; NULL when nothing changed, there is no such account or pool
 * here, or out of memory.
 */
static pool_rating *apply_rating(thue_lobby *l, const thue_rating_row *row, const char *name,
                                 account **out)
{
    account *a = account_by_name(l, name);
    if (a != NULL && a->id != row->account)
        a = NULL;
    const thue_gamedef *g = thue_game_find(row->game);
    if (a == NULL || g == NULL || strlen(row->pool) >= POOL_KEY_MAX)
        return NULL;
    pool_id pool;
    memset(&pool, 0, sizeof pool);
    pool.game = g;
    snprintf(pool.key, sizeof pool.key, "%s", row->pool);
    pool_rating *p = account_rating(a, &pool);
    /* (the same change number: the same values, applied already; the node's own commit
     * comes back from the database a second later) */
    if (p == NULL || (row->seq != 0 && row->seq <= p->seq))
        return NULL;
    rating_from_row(p, row);
    *out = a;
    return p;
}

void accounts_ratings_saved(thue_lobby *l, const thue_rating_row rows[2],
                            const char names[2][THUE_PROTO_NAME_MAX * 4 + 1])
{
    /* Here first: the two records, and the pool's ladders moved in place. */
    account *a[2];
    pool_rating *p[2];
    int n = 0;
    for (int i = 0; i < 2; i++)
        if ((p[n] = apply_rating(l, &rows[i], names[i], &a[n])) != NULL)
            n++;
    if (n > 0)
        ladder_moved(l, &p[0]->pool, a, p, n);
    if (l->cluster == NULL)
        return;
    json_t *list = json_array();
    for (int i = 0; i < 2 && list != NULL; i++)
        json_array_append_new(
            list, json_pack("{s:I, s:s, s:s, s:s, s:f, s:f, s:f, s:i, s:i, s:i, s:i, s:I}",
                            "account", (json_int_t)rows[i].account, "name", names[i], "game",
                            rows[i].game, "pool", rows[i].pool, "rating", rows[i].rating, "rd",
                            rows[i].rd, "vol", rows[i].vol, "games", rows[i].games, "wins",
                            rows[i].wins, "draws", rows[i].draws, "losses", rows[i].losses, "seq",
                            (json_int_t)rows[i].seq));
    nodes_broadcast_kept(l, list != NULL ? json_pack("{s:s, s:o}", "t", "rating", "rows", list)
                                         : NULL);
}

/* Another node's rating row (or the database's, accounts_follow) replaces this node's
 * record of the pool, unless this node has a later one. */
static void remote_rating(thue_lobby *l, json_t *row)
{
    json_int_t id = 0, seq = 0;
    const char *name = NULL, *game = NULL, *key = NULL;
    thue_rating_row r;
    memset(&r, 0, sizeof r);
    if (json_unpack(row, "{s:I, s:s, s:s, s:s, s:F, s:F, s:F, s:i, s:i, s:i, s:i, s?I}",
                    "account", &id, "name", &name, "game", &game, "pool", &key, "rating",
                    &r.rating, "rd", &r.rd, "vol", &r.vol, "games", &r.games, "wins", &r.wins,
                    "draws", &r.draws, "losses", &r.losses, "seq", &seq) != 0 ||
        strlen(game) >= sizeof r.game || strlen(key) >= sizeof r.pool)
        return;
    r.account = id;
    r.seq = seq;
    snprintf(r.game, sizeof r.game, "%s", game);
    snprintf(r.pool, sizeof r.pool, "%s", key);
    account *a;
    pool_rating *p = apply_rating(l, &r, name, &a);
    if (p != NULL)
        ladder_invalidate(l, &p->pool);
}

/* ---- following the database (several nodes) -------------------------------------------
 *
 * The other nodes' events come through Redis, and a node cut off from it misses them; so
 * each second a node with a cluster also reads from the store what any node wrote since
 * it last looked (thue_store_changes: accounts, login tokens and ratings in the order of
 * their change numbers) and applies it as the same events. A node whose link to Redis
 * was down catches up within a second of its database answering. */

static void followed(int status, char *body, size_t len, void *data)
{
    thue_lobby *l = data;
    l->store_pending--;
    l->following = false;
    json_t *events = status == 200 && body != NULL ? json_loadb(body, len, 0, NULL) : NULL;
    free(body);
    if (status != 200)
        thue_log(THUE_LOG_WARN, "store: cannot read the other nodes' changes (status %d); "
                 "tried again in a second", status);
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev) accounts_event(l, ev);
    json_decref(events);
}

void accounts_follow(thue_lobby *l)
{
    if (l->store == NULL || l->cluster == NULL || l->following || l->stopping)
        return;
    if (thue_store_changes(l->store, followed, l) == 0) {
        l->following = true;
        l->store_pending++;
    }
}

void accounts_event(thue_lobby *l, json_t *ev)
{
    const char *t = json_string_value(json_object_get(ev, "t"));
    if (t != NULL && strcmp(t, "rating") == 0) {
        json_t *rows = json_object_get(ev, "rows");
        size_t i;
        json_t *row;
        json_array_foreach(rows, i, row) remote_rating(l, row);
        return;
    }
    if (t != NULL && strcmp(t, "token") == 0) {
        /* A login on another node: its token works here too (its SHA-256, as the account
         * event's; never a password or its hash). */
        json_int_t id = 0;
        const char *name = NULL, *hash = NULL;
        unsigned char h[32];
        if (json_unpack(ev, "{s:I, s:s, s:s}", "id", &id, "name", &name, "hash", &hash) != 0 ||
            unhex(hash, h, 32) != 0)
            return;
        account *a = account_by_name(l, name);
        if (a != NULL && a->id == id && a->kind == THUE_KIND_ACCOUNT)
            account_add_token(l, a, h);
        return;
    }
    json_int_t id = 0;
    int kind = 0;
    const char *name = NULL, *bot = NULL, *hash = NULL;
    unsigned char h[32];
    if (json_unpack(ev, "{s:I, s:s, s:i, s:s, s:s}", "id", &id, "name", &name, "kind", &kind, "bot",
                    &bot, "hash", &hash) != 0 ||
        id <= 0 || (kind != THUE_KIND_ACCOUNT && kind != THUE_KIND_BOT) ||
        unhex(hash, h, 32) != 0 || strlen(name) > THUE_PROTO_NAME_MAX * 4 ||
        strlen(bot) > THUE_PROTO_SPEC_MAX)
        return;
    account *same = account_by_name(l, name);
    if (same != NULL) {
        /* The same bot added here too (the database gave both the same id), or a name
         * this node has just claimed and the database refused: nothing to add. */
        if (same->id == 0 && same->kind == THUE_KIND_BOT && kind == THUE_KIND_BOT)
            same->id = id;
        return;
    }
    account *a = account_add(l, id, name, (thue_player_kind)kind, bot, h);
    if (a != NULL)
        a->committed = true;
}

int64_t thue_lobby_account_id(thue_lobby *l, const char *token)
{
    if (l->store == NULL || token == NULL || strncmp(token, "t_", 2) != 0 ||
        strlen(token) > THUE_PROTO_TOKEN_MAX)
        return 0;
    account *a = account_by_token(l, token);
    return a && a->committed && a->kind == THUE_KIND_ACCOUNT ? a->id : 0;
}

/* ---- ladders ------------------------------------------------------------------------------ */

typedef struct ladder_row {
    const account *a;
    const pool_rating *p;
} ladder_row;

static int ladder_order(const void *x, const void *y)
{
    const ladder_row *a = x, *b = y;
    if (a->p->g.rating != b->p->g.rating)
        return a->p->g.rating > b->p->g.rating ? -1 : 1;
    if (a->p->g.rd != b->p->g.rd)
        return a->p->g.rd < b->p->g.rd ? -1 : 1;
    return strcmp(a->a->key, b->a->key);
}

/*
 * The ladder cache: a pool's sorted rows per pool (a game and its pool key) and kind,
 * built on the first request and kept in order as matches move ratings (ladder_moved);
 * dropped only when accounts come or go or ratings are loaded (ladder_invalidate).
 * A page is then a slice: with 67k rated accounts a request cost ~9 ms of the loop thread
 * for the sort, and a flood of them slowed every game; now a request between two rating
 * changes costs its page only. Rows point into the accounts: an account is freed only
 * when its claim failed (account_remove), which drops the whole cache first.
 */
struct ladder_cache {
    pool_id pool;
    thue_ladder_kind kind;
    ladder_row *rows;
    int n;
    struct ladder_cache *next;
};

void ladder_invalidate(thue_lobby *l, const pool_id *pool)
{
    for (ladder_cache **pp = &l->ladders; *pp;) {
        ladder_cache *c = *pp;
        if (pool == NULL || pool_equal(&c->pool, pool)) {
            *pp = c->next;
            free(c->rows);
            free(c);
        } else {
            pp = &c->next;
        }
    }
}

static bool in_ladder(thue_ladder_kind kind, const account *a)
{
    return !((kind == THUE_LADDER_HUMAN && a->kind != THUE_KIND_ACCOUNT) ||
             (kind == THUE_LADDER_BOT && a->kind != THUE_KIND_BOT));
}

/* A rated match moves two rows: each is taken out, then put back where ladder_order
 * says (a binary search over the rows still in order), O(rows) for the moves of memory
 * instead of a rebuild's scan of every account and sort. */
void ladder_moved(thue_lobby *l, const pool_id *pool, account *const *a, pool_rating *const *p,
                  int n)
{
    for (ladder_cache **pp = &l->ladders; *pp;) {
        ladder_cache *c = *pp;
        if (!pool_equal(&c->pool, pool)) {
            pp = &c->next;
            continue;
        }
        ladder_row *rows = realloc(c->rows, ((size_t)c->n + (size_t)n) * sizeof *rows);
        if (rows == NULL) { /* out of memory: drop this ladder; the next request builds it */
            *pp = c->next;
            free(c->rows);
            free(c);
            continue;
        }
        c->rows = rows;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < c->n; j++)
                if (rows[j].p == p[i]) {
                    memmove(&rows[j], &rows[j + 1], (size_t)(c->n - j - 1) * sizeof *rows);
                    c->n--;
                    break;
                }
        for (int i = 0; i < n; i++) {
            if (p[i]->games <= 0 || !in_ladder(c->kind, a[i]))
                continue;
            ladder_row key = {a[i], p[i]};
            int lo = 0, hi = c->n;
            while (lo < hi) {
                int mid = lo + (hi - lo) / 2;
                if (ladder_order(&rows[mid], &key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            memmove(&rows[lo + 1], &rows[lo], (size_t)(c->n - lo) * sizeof *rows);
            rows[lo] = key;
            c->n++;
        }
        pp = &c->next;
    }
}

/* The pool's sorted rows, from the cache or built now; NULL when out of memory. */
static ladder_cache *ladder_rows(thue_lobby *l, const pool_id *pool, thue_ladder_kind kind)
{
    for (ladder_cache *c = l->ladders; c; c = c->next)
        if (pool_equal(&c->pool, pool) && c->kind == kind)
            return c;
    int n = 0;
    for (account *a = l->accounts; a; a = a->next)
        for (pool_rating *p = a->ratings; p; p = p->next)
            if (pool_equal(&p->pool, pool) && p->games > 0)
                n++;
    ladder_cache *c = calloc(1, sizeof *c);
    ladder_row *rows = calloc(n ? (size_t)n : 1, sizeof *rows);
    if (c == NULL || rows == NULL) {
        free(c);
        free(rows);
        return NULL;
    }
    int total = 0;
    for (account *a = l->accounts; a; a = a->next) {
        if (!in_ladder(kind, a))
            continue;
        for (pool_rating *p = a->ratings; p; p = p->next)
            if (pool_equal(&p->pool, pool) && p->games > 0)
                rows[total++] = (ladder_row){a, p};
    }
    qsort(rows, (size_t)total, sizeof *rows, ladder_order);
    c->pool = *pool;
    c->kind = kind;
    c->rows = rows;
    c->n = total;
    c->next = l->ladders;
    l->ladders = c;
    return c;
}

int ladder_query_of(const char *game, const char *options, thue_variant variant, int k,
                    ladder_query *q, char *field, size_t fsize, char *message, size_t msize)
{
    thue_gopt gopt;
    memset(&gopt, 0, sizeof gopt);
    q->options[0] = '\0';
    if (game == NULL || strcmp(game, "thue") == 0) {
        if (options != NULL) {
            snprintf(field, fsize, "game_options");
            snprintf(message, msize,
                     "Thue's pools are named by the members variant and k, not game_options");
            return THUE_EOPTIONS;
        }
        /* The limit does not split Thue's pools: any valid one names the pool. */
        if (thue_game_thue_options(variant, k, THUE_LIMIT_DEFAULT, &gopt) != 0) {
            snprintf(field, fsize, "k");
            snprintf(message, msize, "no rating pool for variant %s with k = %d",
                     thue_variant_name(variant), k);
            return THUE_EOPTIONS;
        }
        pool_of(&thue_game_thue, &gopt, &q->pool);
        q->variant = variant;
        q->k = k;
        return 0;
    }
    const thue_gamedef *g = thue_game_find(game);
    if (g == NULL) {
        snprintf(field, fsize, "game");
        snprintf(message, msize, "no game \"%s\" here: GET /api/games lists the games", game);
        return THUE_EGAME;
    }
    thue_gerr e;
    memset(&e, 0, sizeof e);
    int err = thue_game_options_text(g, options, &gopt, &e);
    if (err) {
        snprintf(field, fsize, "game_options%s%s", e.field[0] ? "/" : "", e.field);
        snprintf(message, msize, "%s", e.msg);
        return err;
    }
    char *text = thue_game_dump(g->options_json(&gopt));
    if (text == NULL || strlen(text) >= sizeof q->options) {
        free(text);
        return THUE_ENOMEM;
    }
    memcpy(q->options, text, strlen(text) + 1);
    free(text);
    pool_of(g, &gopt, &q->pool);
    return 0;
}

char *ladder_text(thue_lobby *l, const ladder_query *q, const thue_msg_id *id)
{
    ladder_cache *cache = ladder_rows(l, &q->pool, q->kind);
    if (cache == NULL)
        return NULL;
    const ladder_row *rows = cache->rows;
    int total = cache->n;
    int from = q->offset < total ? q->offset : total;
    int count = total - from < q->count ? total - from : q->count;
    thue_ladder_entry *entries = calloc(count ? (size_t)count : 1, sizeof *entries);
    if (entries == NULL)
        return NULL;
    for (int i = 0; i < count; i++) {
        const ladder_row *r = &rows[from + i];
        thue_ladder_entry *e = &entries[i];
        e->rank = from + i + 1;
        snprintf(e->player.name, sizeof e->player.name, "%s", r->a->name);
        e->player.kind = r->a->kind;
        e->rating = r->p->g.rating;
        e->rd = r->p->g.rd;
        e->provisional = thue_glicko_provisional(&r->p->g);
        e->games = r->p->games;
        e->wins = r->p->wins;
        e->draws = r->p->draws;
        e->losses = r->p->losses;
    }
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_LADDER;
    if (id)
        msg.id = *id;
    __typeof__(msg.u.ladder) *m = &msg.u.ladder;
    if (q->pool.game == &thue_game_thue) {
        m->variant = q->variant;
        m->k = q->k;
    } else {
        m->has_game = 1;
        snprintf(m->game, sizeof m->game, "%s", q->pool.game->name);
        snprintf(m->game_options, sizeof m->game_options, "%s", q->options);
        snprintf(m->pool, sizeof m->pool, "%s", q->pool.key);
    }
    m->kind = q->kind;
    m->offset = q->offset;
    m->total = total;
    m->entries = entries;
    m->nentries = count;
    char *text = id ? thue_msg_encode(&msg, NULL) : thue_msg_encode_members(&msg, NULL);
    free(entries);
    return text;
}
