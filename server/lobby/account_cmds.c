/*
 * account_cmds.c: the commands of accounts (account_cmds.h), claim_name and get_ladder:
 * the session-facing side of accounts.c, part of the dispatch layer with lobby.c.
 *
 * claim_name makes the account in accounts.c's tables, queues it for the store and
 * renames the session at once; the reply (account, with the token) waits for the commit,
 * and a refused commit takes the name back. get_ladder asks accounts.c for a page of a
 * pool's ladder and sends it. accounts.c itself knows no session: these call it, never
 * the other way.
 */
#include "account_cmds.h"
#include "accounts.h"
#include "names.h"
#include "nodes.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* ---- claim_name -------------------------------------------------------------------------- */

/* A claim that does not go on after Redis found its name free (and put it in this node's
 * set: nodes_name_gate) gives the name back; err is returned (LOBBY_LATER: the message
 * waits for another verdict, and keeps the name). */
static int unclaimed(request *rq, const char *name, int err)
{
    if (rq->v.name == 1 && err != LOBBY_LATER)
        nodes_name_release(rq->c->lobby, name);
    return err;
}

typedef struct claim {
    thue_lobby *l;
    account *a;
    thue_msg_id id;
    char token[THUE_PROTO_TOKEN_MAX + 1];
    char old_name[THUE_PROTO_NAME_MAX * 4 + 1];
} claim;

static void claim_saved(int err, int64_t id, void *data)
{
    claim *c = data;
    thue_lobby *l = c->l;
    account *a = c->a;
    session *s = a->session;
    l->store_pending--;
    if (err) {
        thue_log(THUE_LOG_ERROR, "the store could not save account %s: %s", a->name,
                 thue_strerror(err));
        if (s) {
            s->acct = NULL;
            s->player.kind = THUE_KIND_GUEST;
            session_rename(s, c->old_name);
            lobby_reply_error(l, s, &c->id, err == THUE_STORE_EEXISTS ? THUE_PERR_NAME_TAKEN
                                                                       : THUE_PERR_INTERNAL);
            lobby_session_rooms_changed(s);
        }
        account_remove(l, a);
        free(c);
        return;
    }
    account_committed(l, a, id);
    thue_log(THUE_LOG_INFO, "account %s claimed", a->name);
    if (s) {
        thue_msg msg;
        memset(&msg, 0, sizeof msg);
        msg.type = THUE_MSG_ACCOUNT;
        msg.id = c->id;
        snprintf(msg.u.account.name, sizeof msg.u.account.name, "%s", a->name);
        snprintf(msg.u.account.token, sizeof msg.u.account.token, "%s", c->token);
        lobby_send_msg(l, s, &msg);
        lobby_session_rooms_changed(s);
    }
    memset(c->token, 0, sizeof c->token);
    free(c);
}

int cmd_claim_name(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    session *s = rq->c->s;
    const char *name = rq->cmd->u.claim_name.name;
    if (l->store == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "this server runs without a database: accounts are off");
        return THUE_PERR_NOT_AVAILABLE;
    }
    if (s->acct != NULL) {
        snprintf(rq->message, sizeof rq->message, "this session already has the account %s",
                 s->acct->name);
        return THUE_PERR_NOT_ALLOWED;
    }
    snprintf(rq->field, sizeof rq->field, "name");
    char nfkc[THUE_PROTO_NAME_MAX * 4 + 1];
    if (thue_name_check(rq->cmd->u.claim_name.name, nfkc, sizeof nfkc, rq->message,
                        sizeof rq->message) != 0)
        return THUE_PERR_NAME;
    name = nfkc;
    if (lobby_name_reserved(name)) {
        snprintf(rq->message, sizeof rq->message, "the name \"%s\" is reserved for bots", name);
        return THUE_PERR_NAME;
    }
    session *other = lobby_session_by_name(l, name);
    if (account_by_name(l, name) != NULL || (other != NULL && other != s))
        return THUE_PERR_NAME_TAKEN;
    /* Several nodes: nor may another node have a session of that name (unless it is
     * this session's own: its name is in this node's set, which is not consulted). */
    if (other == NULL) {
        int gate = nodes_name_gate(rq, name);
        if (gate)
            return gate;
        if (rq->v.name == -1) {
            snprintf(rq->message, sizeof rq->message,
                     "a player named %s is connected to another node of this server", name);
            return THUE_PERR_NAME_TAKEN;
        }
    }
    /* Only a claim that would be made costs a token: a refused name costs nothing. */
    char addr[THUE_LIMIT_KEY_MAX];
    thue_addr_key(rq->c->peer, addr, sizeof addr);
    /* Several nodes: the address's shared bucket decides (the message comes back with
     * its verdict). */
    int gate = nodes_limit_gate(rq, "claims", addr, l->cfg.claims_per_ip / 3600.0,
                                l->cfg.claims_per_ip);
    if (gate)
        return unclaimed(rq, name, gate);
    uint64_t retry_ms = rq->gate_retry_ms;
    if (rq->gated ? rq->gate_denied
                  : nodes_limit_blocked(l, "claims", addr, &retry_ms) ||
                        !thue_limiter_take(l->claim_rate, addr, uv_now(l->loop), &retry_ms)) {
        rq->field[0] = '\0';
        snprintf(rq->message, sizeof rq->message,
                 "one address may claim %d accounts an hour, and yours has; try again in "
                 "%llu minutes",
                 l->cfg.claims_per_ip, (unsigned long long)(retry_ms / 60000 + 1));
        return unclaimed(rq, name, THUE_PERR_RATE);
    }
    if (!rq->gated)
        nodes_limit_take(l, "claims", addr, l->cfg.claims_per_ip / 3600.0, l->cfg.claims_per_ip);
    claim *c = calloc(1, sizeof *c);
    if (c == NULL)
        return unclaimed(rq, name, THUE_PERR_INTERNAL);
    unsigned char bytes[32];
    if (lobby_random_bytes(bytes, sizeof bytes) != 0) {
        free(c);
        return unclaimed(rq, name, THUE_PERR_INTERNAL);
    }
    memcpy(c->token, "t_", 2);
    for (int i = 0; i < 32; i++)
        snprintf(c->token + 2 + 2 * i, 3, "%02x", bytes[i]);
    unsigned char hash[32];
    thue_sha256(c->token, strlen(c->token), hash);
    account *a = account_add(l, account_new_id(l), name, THUE_KIND_ACCOUNT, NULL, hash);
    if (a == NULL) {
        free(c);
        return unclaimed(rq, name, THUE_PERR_INTERNAL);
    }
    c->l = l;
    c->a = a;
    c->id = rq->cmd->id;
    snprintf(c->old_name, sizeof c->old_name, "%s", s->player.name);
    thue_account_row row;
    memset(&row, 0, sizeof row);
    row.id = a->id;
    snprintf(row.name, sizeof row.name, "%s", a->name);
    row.kind = THUE_KIND_ACCOUNT;
    memcpy(row.token_hash, hash, 32);
    row.created_ms = lobby_now_ms();
    int err = thue_store_add_account(l->store, &row, claim_saved, c);
    if (err) {
        account_remove(l, a);
        free(c);
        return unclaimed(rq, name, err == THUE_STORE_ECLOSED ? THUE_PERR_BUSY : THUE_PERR_INTERNAL);
    }
    l->store_pending++;
    /* The session is the account's from now on; the reply waits for the commit. */
    a->session = s;
    s->acct = a;
    s->player.kind = THUE_KIND_ACCOUNT;
    session_rename(s, a->name);
    rq->field[0] = '\0';
    return 0;
}
int cmd_get_ladder(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    if (l->store == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "this server runs without a database: ladders are off");
        return THUE_PERR_NOT_AVAILABLE;
    }
    const __typeof__(rq->cmd->u.get_ladder) *c = &rq->cmd->u.get_ladder;
    ladder_query q;
    memset(&q, 0, sizeof q);
    int err = ladder_query_of(c->has_game ? c->game : NULL,
                              c->has_game_options ? c->game_options : NULL, c->variant, c->k, &q,
                              rq->field, sizeof rq->field, rq->message, sizeof rq->message);
    if (err)
        return err == THUE_ENOMEM ? THUE_PERR_INTERNAL : err;
    q.kind = c->kind;
    q.offset = c->offset;
    q.count = c->count;
    char *text = ladder_text(l, &q, &rq->cmd->id);
    if (text == NULL)
        return THUE_PERR_INTERNAL;
    lobby_send_text(l, rq->c, text);
    free(text);
    return 0;
}
