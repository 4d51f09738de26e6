/*
 * passwords.c: set_password and login (passwords.h, PROTOCOL.md section 9, "Passwords").
 *
 * A request goes through three stages, none of which blocks the loop thread:
 *  1. the store reads the account's password hash (thue_store_password_get: always from
 *     the database, never from memory, so that a password set on one node of several
 *     works for a login on another at once, and no hash travels over Redis);
 *  2. a pool task (search/pool.h, under the owner "pw:" and the address, so that one
 *     address's requests queue behind each other, not before everybody's) verifies the
 *     password against it (Argon2id, server/password.h) and, for set_password, hashes the
 *     new one. At most cfg.password_jobs tasks hash at once (each takes
 *     cfg.password_mem_mib of memory); the others wait here, oldest first;
 *  3. the store writes what changed (set_password: the new hash, compare-and-set against
 *     the hash read in stage 1; login: a new account token), and the answer goes out
 *     once it is committed.
 *
 * Enumeration. login answers a wrong password and an unknown name (or a bot's, or an
 * account without a password) with the same code and sentence, after the same stages: an
 * unknown name reads account 0 from the store and hashes the password it was given once,
 * which costs what a verification costs.
 *
 * Rate limits. Failed logins, and set_password's wrong old_password, take a token from
 * two buckets of an hour (quota.h): the address's (cfg.login_fails_per_ip) and the name's
 * (cfg.login_fails_per_name; for set_password, the account's). A request whose bucket is
 * empty is refused with rate_limited before any work. With several nodes the address's
 * bucket is also Redis's (nodes_limit_*), as claim_name's is.
 *
 * Lifetimes. A request (pw_job) holds one of the lobby's handles until it ends, so the
 * lobby waits for it when it closes; it holds its connection (NULL once the connection is
 * gone: passwords_client_gone) and, for login, the account (accounts live until the lobby
 * ends: a committed account is never removed). A connection has at most one request out
 * (pw_busy). At every stage a request whose connection is gone, or whose lobby is
 * stopping, ends there: nothing more is written and nothing is answered.
 *
 * Secrets. The password is copied into the job only, wiped on the worker once hashed and
 * again when the job ends; it is never logged and never in an error's message (the
 * codec's errors name the member, not its value).
 */
#include "passwords.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "nodes.h"
#include "util.h"
#include "log.h"
#include "password.h"

typedef enum { PW_SET = 0, PW_LOGIN } pw_kind;

struct pw_job {
    thue_lobby *l;
    thue_client *c; /* NULL once the connection is gone */
    pw_kind kind;
    thue_msg_id id;
    account *a;         /* set_password: the session's; login: the name's, NULL if none */
    int64_t account_id; /* a's, or 0 */
    char addr[THUE_LIMIT_KEY_MAX];
    char name_key[THUE_LIMIT_KEY_MAX]; /* the name's bucket */
    char owner[THUE_POOL_OWNER_MAX + 1];
    thue_password_cost cost;
    char password[THUE_PROTO_PASSWORD_MAX * 4 + 1];
    char old_password[THUE_PROTO_PASSWORD_MAX * 4 + 1];
    bool has_old;
    char stored[THUE_STORE_HASH_MAX]; /* stage 1's hash ("" with has_stored false) */
    bool has_stored;
    /* the worker's answer */
    int match;  /* 1: the password (login) or old_password (set) is the account's */
    int failed; /* hashing failed (memory) */
    char fresh[THUE_PASSWORD_HASH_MAX]; /* set: the new hash; login: a rehash, or "" */
    /* login: the token handed out */
    char token[THUE_PROTO_TOKEN_MAX + 1];
    unsigned char token_hash[32];
    pw_job *prev, *next; /* the lobby's pw_jobs */
    pw_job *qnext;       /* waiting for a hashing slot */
};

#define BAD_LOGIN "wrong name or password"

/* ---- the job's life ------------------------------------------------------------------ */

static pw_job *job_new(request *rq, pw_kind kind)
{
    thue_lobby *l = rq->c->lobby;
    pw_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return NULL;
    j->l = l;
    j->c = rq->c;
    j->kind = kind;
    j->id = rq->cmd->id;
    thue_addr_key(rq->c->peer, j->addr, sizeof j->addr);
    snprintf(j->owner, sizeof j->owner, "pw:%.*s", (int)sizeof j->owner - 4, j->addr);
    j->cost.ops = (uint64_t)l->cfg.password_ops;
    j->cost.mem_bytes = (size_t)l->cfg.password_mem_mib << 20;
    j->next = l->pw_jobs;
    if (l->pw_jobs)
        l->pw_jobs->prev = j;
    l->pw_jobs = j;
    l->pw_pending++;
    thue_counts_add(l->pw_ip, j->addr, 1);
    rq->c->pw_busy = true;
    l->handles++; /* the lobby waits for the job when it closes */
    return j;
}

static void job_end(pw_job *j)
{
    thue_lobby *l = j->l;
    if (j->prev)
        j->prev->next = j->next;
    else
        l->pw_jobs = j->next;
    if (j->next)
        j->next->prev = j->prev;
    l->pw_pending--;
    thue_counts_add(l->pw_ip, j->addr, -1);
    if (j->c)
        j->c->pw_busy = false;
    thue_password_wipe(j, sizeof *j);
    free(j);
    l->handles--;
    l->maybe_closed(l);
}

/* Whether the job's answer still has somewhere to go. */
static bool alive(const pw_job *j)
{
    return !j->l->stopping && j->c != NULL && !j->c->closing && j->c->s != NULL;
}

static void reply_error(pw_job *j, int code, const char *field, const char *message)
{
    if (alive(j))
        lobby_send_error(j->l, j->c, &j->id, code, field, message);
}

void passwords_client_gone(thue_lobby *l, thue_client *c)
{
    for (pw_job *j = l->pw_jobs; j; j = j->next)
        if (j->c == c)
            j->c = NULL;
}

/* ---- rate limits ----------------------------------------------------------------------- */

/* The name's bucket key: "n:" and 128 bits of the SHA-256 of its uniqueness key (names
 * that are one name share a bucket; a key of any length fits). */
static void name_bucket(const char *name, char *out, size_t size)
{
    char key[THUE_PROTO_NAME_MAX * 4 + 1];
    lobby_name_key(name, key, sizeof key);
    unsigned char h[32];
    thue_sha256(key, strlen(key), h);
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
    snprintf(out, size, "n:%s", hex);
}

/* Whether a bucket (NULL key: none) is empty; *retry_ms set then. Takes nothing. */
static bool empty(thue_limiter *lim, const char *key, uint64_t now, uint64_t *retry_ms)
{
    return thue_limiter_tokens(lim, key, now) < 1 && !thue_limiter_take(lim, key, now, retry_ms);
}

/* 0, or rate_limited with the request's message set, when the address's or the name's
 * failures are used up. */
static int check_limits(request *rq, const char *addr, const char *name_key)
{
    thue_lobby *l = rq->c->lobby;
    uint64_t now = uv_now(l->loop), retry_ms = 0;
    if (nodes_limit_blocked(l, "logins", addr, &retry_ms) ||
        empty(l->login_fail_ip, addr, now, &retry_ms)) {
        snprintf(rq->message, sizeof rq->message,
                 "too many failed logins from your address: try again in %llu minutes",
                 (unsigned long long)(retry_ms / 60000 + 1));
        return THUE_PERR_RATE;
    }
    if (empty(l->login_fail_name, name_key, now, &retry_ms)) {
        snprintf(rq->message, sizeof rq->message,
                 "too many failed logins for this name: try again in %llu minutes",
                 (unsigned long long)(retry_ms / 60000 + 1));
        return THUE_PERR_RATE;
    }
    return 0;
}

/* A failure: one token from each bucket. */
static void count_failure(pw_job *j)
{
    thue_lobby *l = j->l;
    uint64_t now = uv_now(l->loop);
    thue_limiter_take(l->login_fail_ip, j->addr, now, NULL);
    thue_limiter_take(l->login_fail_name, j->name_key, now, NULL);
    nodes_limit_take(l, "logins", j->addr, l->cfg.login_fails_per_ip / 3600.0,
                     l->cfg.login_fails_per_ip);
}

/* The checks every request passes before it costs anything: a database, one request of
 * the connection's at a time, room for it on the node and for its address. */
static int admit(request *rq, const char *what)
{
    thue_lobby *l = rq->c->lobby;
    if (l->store == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "this server runs without a database: %s is off", what);
        return THUE_PERR_NOT_AVAILABLE;
    }
    if (rq->c->pw_busy) {
        snprintf(rq->message, sizeof rq->message,
                 "one password request at a time: wait for the answer to the last one");
        return THUE_PERR_RATE;
    }
    char addr[THUE_LIMIT_KEY_MAX];
    thue_addr_key(rq->c->peer, addr, sizeof addr);
    if (l->pw_pending >= PASSWORD_PENDING_MAX ||
        thue_counts_get(l->pw_ip, addr) >= PASSWORD_PENDING_PER_IP) {
        snprintf(rq->message, sizeof rq->message,
                 "too many password checks are waiting: try again in a few seconds");
        return THUE_PERR_BUSY;
    }
    return 0;
}

/* ---- stage 2: hashing on the pool ------------------------------------------------------- */

/* A worker thread: the job is the worker's until done runs (the loop touches it not). */
static int hash_run(void *data, const thue_bot_limits *lim)
{
    (void)lim; /* Argon2 cannot stop halfway: a run is short, and bounded by its cost */
    pw_job *j = data;
    j->match = 0;
    j->failed = 0;
    j->fresh[0] = '\0';
    if (j->kind == PW_LOGIN) {
        if (j->has_stored && thue_password_verify(j->stored, j->password, strlen(j->password)) == 1) {
            j->match = 1;
            /* Made under other costs: hashed again with today's (the login still counts
             * if this fails). */
            if (thue_password_needs_rehash(j->stored, &j->cost) == 1 &&
                thue_password_hash(j->password, strlen(j->password), &j->cost, j->fresh) != 0)
                j->fresh[0] = '\0';
        } else {
            /* No hash to check (unknown name, no password, a hash that is not ours):
             * the same work as a verification, whose answer is no. */
            char sink[THUE_PASSWORD_HASH_MAX];
            if (thue_password_hash(j->password, strlen(j->password), &j->cost, sink) != 0)
                j->failed = 1;
        }
    } else {
        if (j->has_stored &&
            thue_password_verify(j->stored, j->old_password, strlen(j->old_password)) != 1) {
            j->match = 0;
        } else if (thue_password_hash(j->password, strlen(j->password), &j->cost, j->fresh) != 0) {
            j->failed = 1;
        } else {
            j->match = 1;
        }
    }
    thue_password_wipe(j->password, sizeof j->password);
    thue_password_wipe(j->old_password, sizeof j->old_password);
    return 0;
}

static void hash_done(uint64_t job_id, int err, void *data);

/* Starts the job's hashing, now or when a slot frees; false when the pool refused it
 * (the job is then answered and ended). */
static void hash_start(pw_job *j)
{
    thue_lobby *l = j->l;
    if (l->pw_running >= l->cfg.password_jobs) {
        j->qnext = NULL;
        if (l->pw_wait_tail)
            l->pw_wait_tail->qnext = j;
        else
            l->pw_wait_head = j;
        l->pw_wait_tail = j;
        return;
    }
    thue_pool_task t = {hash_run, hash_done, j->owner, j};
    uint64_t job_id = 0;
    int err = thue_pool_submit_task(l->pool, &t, &job_id);
    if (err != 0) {
        thue_log(THUE_LOG_WARN, "the pool refused a password check (%s)", thue_strerror(err));
        reply_error(j, THUE_PERR_BUSY, NULL, NULL);
        job_end(j);
        return;
    }
    l->pw_running++;
}

/* A slot is free: the oldest waiting job takes it (or, while stopping, every waiting job
 * ends). */
static void hash_next(thue_lobby *l)
{
    while (l->pw_wait_head != NULL && l->pw_running < l->cfg.password_jobs) {
        pw_job *j = l->pw_wait_head;
        l->pw_wait_head = j->qnext;
        if (l->pw_wait_head == NULL)
            l->pw_wait_tail = NULL;
        if (!alive(j))
            job_end(j);
        else
            hash_start(j);
    }
}

/* ---- stage 3: writing, answering ---------------------------------------------------------- */

static void set_saved(int err, int64_t id, void *data)
{
    pw_job *j = data;
    thue_lobby *l = j->l;
    l->store_pending--;
    if (err) {
        thue_log(THUE_LOG_ERROR, "the store could not save the password of %s: %s", j->a->name,
                 thue_strerror(err));
        reply_error(j, THUE_PERR_INTERNAL, NULL, NULL);
    } else if (id == 0) {
        /* Another set_password (here or on another node) changed it since stage 1. */
        reply_error(j, THUE_PERR_BAD_PASSWORD, "old_password",
                    "the password was changed meanwhile: try again with the new one");
    } else {
        thue_log(THUE_LOG_INFO, "account %s: password %s", j->a->name,
                 j->has_stored ? "changed" : "set");
        if (alive(j)) {
            thue_msg msg;
            memset(&msg, 0, sizeof msg);
            msg.type = THUE_MSG_OK;
            msg.id = j->id;
            lobby_send_client_msg(l, j->c, &msg);
        }
    }
    job_end(j);
}

static void rehash_saved(int err, int64_t id, void *data)
{
    (void)id;
    thue_lobby *l = data;
    l->store_pending--;
    if (err)
        thue_log(THUE_LOG_WARN, "the store could not save a password's new hash: %s (the old "
                 "one still works)", thue_strerror(err));
}

static void token_saved(int err, int64_t id, void *data)
{
    (void)id;
    pw_job *j = data;
    thue_lobby *l = j->l;
    l->store_pending--;
    if (err) {
        thue_log(THUE_LOG_ERROR, "the store could not save a login token of %s: %s", j->a->name,
                 thue_strerror(err));
        reply_error(j, THUE_PERR_INTERNAL, NULL, NULL);
        job_end(j);
        return;
    }
    account_token_saved(l, j->a, j->token_hash);
    if (!alive(j)) {
        /* Nobody to hand the token to: it is stored, and nobody knows it. */
        job_end(j);
        return;
    }
    char message[THUE_PROTO_TEXT_MAX + 1] = "";
    int code = l->session_login(j->c, j->a, &j->id, j->token, message, sizeof message);
    if (code != 0)
        reply_error(j, code, NULL, message);
    else
        thue_log(THUE_LOG_INFO, "account %s logged in with its password from %s", j->a->name,
                 j->c->peer);
    job_end(j);
}

/* A login whose password matched: a new account token, stored before it is answered (a
 * token the client holds works after a crash, as claim_name's). */
static void login_matched(pw_job *j)
{
    thue_lobby *l = j->l;
    if (j->fresh[0] != '\0' &&
        thue_store_password_set(l->store, j->account_id, j->fresh, j->stored, rehash_saved, l) == 0)
        l->store_pending++;
    unsigned char bytes[32];
    if (lobby_random_bytes(bytes, sizeof bytes) != 0) {
        reply_error(j, THUE_PERR_INTERNAL, NULL, NULL);
        job_end(j);
        return;
    }
    memcpy(j->token, "t_", 2);
    for (int i = 0; i < 32; i++)
        snprintf(j->token + 2 + 2 * i, 3, "%02x", bytes[i]);
    thue_password_wipe(bytes, sizeof bytes);
    thue_sha256(j->token, strlen(j->token), j->token_hash);
    int err = thue_store_add_token(l->store, j->account_id, j->token_hash, token_saved, j);
    if (err) {
        reply_error(j, err == THUE_STORE_ECLOSED ? THUE_PERR_BUSY : THUE_PERR_INTERNAL, NULL, NULL);
        job_end(j);
        return;
    }
    l->store_pending++;
}

static void hash_done(uint64_t job_id, int err, void *data)
{
    (void)job_id;
    pw_job *j = data;
    thue_lobby *l = j->l;
    l->pw_running--;
    hash_next(l);
    if (!alive(j)) {
        job_end(j);
        return;
    }
    if (err != 0 || j->failed) {
        thue_log(THUE_LOG_ERROR, "a password could not be hashed (%s): is --password-mem-mib "
                 "more than the machine has?", err ? thue_strerror(err) : "out of memory");
        reply_error(j, THUE_PERR_INTERNAL, NULL, NULL);
        job_end(j);
        return;
    }
    if (!j->match) {
        count_failure(j);
        if (j->kind == PW_LOGIN)
            reply_error(j, THUE_PERR_BAD_PASSWORD, NULL, BAD_LOGIN);
        else
            reply_error(j, THUE_PERR_BAD_PASSWORD, "old_password",
                        "old_password is not this account's password");
        job_end(j);
        return;
    }
    if (j->kind == PW_LOGIN) {
        login_matched(j);
        return;
    }
    int serr = thue_store_password_set(l->store, j->account_id, j->fresh,
                                       j->has_stored ? j->stored : NULL, set_saved, j);
    if (serr) {
        reply_error(j, serr == THUE_STORE_ECLOSED ? THUE_PERR_BUSY : THUE_PERR_INTERNAL, NULL,
                    NULL);
        job_end(j);
        return;
    }
    l->store_pending++;
}

/* ---- stage 1: the stored hash ------------------------------------------------------------- */

static void hash_read(int err, const char *hash, void *data)
{
    pw_job *j = data;
    thue_lobby *l = j->l;
    l->store_pending--;
    if (!alive(j)) {
        job_end(j);
        return;
    }
    if (err) {
        reply_error(j, THUE_PERR_INTERNAL, NULL, NULL);
        job_end(j);
        return;
    }
    if (hash != NULL && strlen(hash) < sizeof j->stored) {
        memcpy(j->stored, hash, strlen(hash) + 1);
        j->has_stored = true;
        if (!thue_password_hash_valid(hash))
            thue_log(THUE_LOG_WARN, "account %s: the stored password hash is not an Argon2id "
                     "hash of this server's: no password matches it", j->a ? j->a->name : "?");
    }
    if (j->kind == PW_SET && j->has_stored && !j->has_old) {
        reply_error(j, THUE_PERR_MESSAGE, "old_password",
                    "this account has a password: give it as old_password to change it");
        job_end(j);
        return;
    }
    hash_start(j);
}

/* Queues stage 1 for the job; 0, or an error code (the job is ended). */
static int read_stored(pw_job *j)
{
    thue_lobby *l = j->l;
    int err = thue_store_password_get(l->store, j->account_id, hash_read, j);
    if (err) {
        job_end(j);
        return err == THUE_STORE_ECLOSED ? THUE_PERR_BUSY : THUE_PERR_INTERNAL;
    }
    l->store_pending++;
    return 0;
}

/* ---- the commands ----------------------------------------------------------------------- */

int cmd_set_password(request *rq)
{
    session *s = rq->c->s;
    const __typeof__(rq->cmd->u.set_password) *q = &rq->cmd->u.set_password;
    int err = admit(rq, "set_password");
    if (err)
        return err;
    account *a = s->acct;
    if (a == NULL || a->kind != THUE_KIND_ACCOUNT) {
        snprintf(rq->message, sizeof rq->message,
                 "a password is for an account: claim a name (claim_name) or log in first");
        return THUE_PERR_NOT_ALLOWED;
    }
    if (!a->committed || a->id <= 0) {
        snprintf(rq->message, sizeof rq->message,
                 "the account is still being stored: try again in a moment");
        return THUE_PERR_BUSY;
    }
    char addr[THUE_LIMIT_KEY_MAX], name_key[THUE_LIMIT_KEY_MAX];
    thue_addr_key(rq->c->peer, addr, sizeof addr);
    name_bucket(a->name, name_key, sizeof name_key);
    /* A wrong old_password counts as a failed login: the same buckets. */
    if (q->has_old && (err = check_limits(rq, addr, name_key)) != 0)
        return err;
    pw_job *j = job_new(rq, PW_SET);
    if (j == NULL)
        return THUE_PERR_INTERNAL;
    j->a = a;
    j->account_id = a->id;
    memcpy(j->name_key, name_key, sizeof j->name_key);
    memcpy(j->password, q->password, sizeof j->password);
    j->has_old = q->has_old != 0;
    if (j->has_old)
        memcpy(j->old_password, q->old_password, sizeof j->old_password);
    return read_stored(j);
}

int cmd_login(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    session *s = rq->c->s;
    const __typeof__(rq->cmd->u.login) *q = &rq->cmd->u.login;
    int err = admit(rq, "login");
    if (err)
        return err;
    if (s->acct != NULL) {
        snprintf(rq->message, sizeof rq->message, "this session is already logged in to %s",
                 s->acct->name);
        return THUE_PERR_NOT_ALLOWED;
    }
    char addr[THUE_LIMIT_KEY_MAX], name_key[THUE_LIMIT_KEY_MAX];
    thue_addr_key(rq->c->peer, addr, sizeof addr);
    name_bucket(q->name, name_key, sizeof name_key);
    if ((err = check_limits(rq, addr, name_key)) != 0)
        return err;
    account *a = account_by_name(l, q->name);
    if (a != NULL && (a->kind != THUE_KIND_ACCOUNT || !a->committed || a->id <= 0))
        a = NULL; /* a bot's name, or a claim not yet stored: as an unknown name */
    pw_job *j = job_new(rq, PW_LOGIN);
    if (j == NULL)
        return THUE_PERR_INTERNAL;
    j->a = a;
    j->account_id = a ? a->id : 0; /* 0: the store finds no hash, the same read */
    memcpy(j->name_key, name_key, sizeof j->name_key);
    memcpy(j->password, q->password, sizeof j->password);
    return read_stored(j);
}

/* ---- the lobby's tables ----------------------------------------------------------------- */

int passwords_init(thue_lobby *l)
{
    l->pw_ip = thue_counts_new();
    l->login_fail_ip = thue_limiter_new(l->cfg.login_fails_per_ip / 3600.0,
                                        l->cfg.login_fails_per_ip, LOBBY_LIMIT_KEYS);
    l->login_fail_name = thue_limiter_new(l->cfg.login_fails_per_name / 3600.0,
                                          l->cfg.login_fails_per_name, LOBBY_LIMIT_KEYS);
    if (l->pw_ip == NULL || l->login_fail_ip == NULL || l->login_fail_name == NULL) {
        passwords_free(l);
        return -1;
    }
    return 0;
}

void passwords_free(thue_lobby *l)
{
    thue_counts_free(l->pw_ip);
    thue_limiter_free(l->login_fail_ip);
    thue_limiter_free(l->login_fail_name);
    l->pw_ip = NULL;
    l->login_fail_ip = l->login_fail_name = NULL;
}
