/*
 * lobby.c: connections, sessions and the dispatch of client commands (lobby.h). Rooms
 * and matches are room.c's, quick match quickmatch.c's.
 *
 * A connection becomes a session with hello: a guest name (given or made up), a resume
 * token of 128 bits from getrandom (never logged) and the limits in force. When the
 * connection goes, the session stays for the grace period so that hello with the token
 * takes it back (a new token each time); when the period ends, the session forfeits its
 * running matches and leaves its rooms. A hello with the token of a session that is still
 * connected takes it over: the old connection gets goodbye (replaced) and close 1001.
 *
 * Every message passes the rate limit (a token bucket per connection) and the codec; a
 * message that fails either is answered with an error and changes nothing. Every command
 * gets exactly one direct reply, sent before the events it causes.
 *
 * This is the top of the lobby's modules (lobby_types.h): it calls account_cmds.c,
 * session.c (the session tables), quickmatch.c, tournament.c, room.c, accounts.c,
 * record.c (freeing), util.c and names.c; no module calls it but through the two hooks
 * it sets in the lobby (maybe_closed, session_for_account).
 */
#include "account_cmds.h"
#include "accounts.h"
#include "analysis.h"
#include "bestmove.h"
#include "names.h"
#include "nodes.h"
#include "passwords.h"
#include "quickmatch.h"
#include "record.h"
#include "reviews.h"
#include "room.h"
#include "session.h"
#include "tournament.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/rng.h"
#include "log.h"
#include "password.h"

#define SERVER_NAME "thue-server " THUE_VERSION /* THUE_VERSION: CMakeLists.txt's project() */

/* ---- small helpers ---------------------------------------------------------------- */

static void send_goodbye(thue_lobby *l, thue_client *c, const char *reason, const char *text,
                         int close_code)
{
    if (c->closing)
        return;
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_GOODBYE;
    snprintf(msg.u.goodbye.reason, sizeof msg.u.goodbye.reason, "%s", reason);
    snprintf(msg.u.goodbye.message, sizeof msg.u.goodbye.message, "%s", text);
    lobby_send_client_msg(l, c, &msg);
    c->closing = true;
    l->hooks.close(l->hooks.ctx, c->conn, close_code, reason);
}

/* ---- lifetime of rooms' and sessions' handles ------------------------------------- */

/* Once closing: frees the lobby and calls back when no room, session or handle is
 * left (also the lobby's maybe_closed hook, for room.c). */
static void lobby_maybe_closed(thue_lobby *l)
{
    if (l->closed != NULL && l->handles == 0 && l->rooms == NULL && l->sessions == NULL) {
        void (*cb)(void *) = l->closed;
        void *data = l->closed_data;
        if (l->clients != NULL)
            thue_log(THUE_LOG_ERROR, "lobby closed with connections still open");
        if (l->store_pending)
            thue_log(THUE_LOG_ERROR, "lobby closed with %d store jobs unanswered",
                     l->store_pending);
        tournaments_free(l);
        quickmatch_free(l);
        accounts_free(l);
        thue_limiter_free(l->room_rate);
        thue_limiter_free(l->tour_rate);
        thue_limiter_free(l->claim_rate);
        thue_counts_free(l->bot_seats);
        thue_counts_free(l->bot_seats_ip);
        thue_counts_free(l->analyses_owned);
        thue_counts_free(l->analyses_ip);
        thue_counts_free(l->best_ip);
        passwords_free(l);
        free(l);
        cb(data);
    }
}

/* The lobby's own timer is closed (thue_lobby_close). */
static void lobby_timer_closed(uv_handle_t *h)
{
    thue_lobby *l = h->data;
    l->handles--;
    lobby_maybe_closed(l);
}

/* A session's timer is closed; the session is freed with the last one. */
static void session_handle_closed(uv_handle_t *h)
{
    session *s = h->data;
    thue_lobby *l = s->lobby;
    l->handles--;
    if (--s->handles == 0) {
        free(s->queue_opt);
        free(s);
    }
    lobby_maybe_closed(l);
}

/* ---- sessions ------------------------------------------------------------------------ */

static void grace_over(uv_timer_t *t);

static session *session_new(thue_lobby *l, const char *name)
{
    session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->lobby = l;
    s->serial = ++l->sessions_made;
    snprintf(s->player.name, sizeof s->player.name, "%s", name);
    s->player.kind = THUE_KIND_GUEST;
    lobby_name_key(name, s->key, sizeof s->key);
    if (lobby_random_token(s->resume) != 0) {
        free(s);
        return NULL;
    }
    uv_timer_init(l->loop, &s->grace_timer);
    uv_timer_init(l->loop, &s->queue_timer);
    s->grace_timer.data = s;
    s->queue_timer.data = s;
    s->handles = 2;
    s->next = l->sessions;
    if (l->sessions)
        l->sessions->prev = s;
    l->sessions = s;
    session_link_name(l, s);
    session_link_token(l, s);
    return s;
}

/* Ends a session: out of the queue, out of every room (forfeiting running matches), out
 * of the tables; freed once its timers are closed. */
static void session_end(session *s)
{
    thue_lobby *l = s->lobby;
    if (s->ending)
        return;
    s->ending = true;
    queue_remove(s);
    analysis_session_gone(s);
    tournament_session_gone(l, s);
    for (room *r = l->rooms, *next; r; r = next) {
        next = r->next;
        room_session_gone(r, s);
    }
    if (s->client)
        s->client->s = NULL;
    if (s->acct && s->acct->session == s)
        s->acct->session = NULL;
    session_unlink_name(l, s);
    session_unlink_token(l, s);
    nodes_session_gone(l, s);
    if (s->prev)
        s->prev->next = s->next;
    else
        l->sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    l->handles += 2;
    uv_close((uv_handle_t *)&s->grace_timer, session_handle_closed);
    uv_close((uv_handle_t *)&s->queue_timer, session_handle_closed);
}

static void grace_over(uv_timer_t *t)
{
    session *s = t->data;
    thue_log(THUE_LOG_INFO, "session %s: grace period over", s->player.name);
    session_end(s);
}

/* A name for a guest who gave none, unused on the server: Guest-NNNN, or Guest-NNNNNNNN
 * after 16 four-digit names in use here, or at once when wide. Several nodes share the
 * 10,000 four-digit names: past that many guests in the cluster most of them are another
 * node's, which this node cannot see. So once Redis has refused a drawn name (the caller
 * passes wide), the next is drawn from the 10^8: one more claim, where four-digit draws
 * would use up the hello's NODES_NAME_ASKS_MAX claims and then keep a name that another
 * node's guest holds. */
static int guest_name(thue_lobby *l, bool wide, char *out, size_t size)
{
    for (int attempt = wide ? 16 : 0; attempt < 64; attempt++) {
        uint64_t mod = attempt < 16 ? 10000 : 100000000;
        snprintf(out, size, "Guest-%0*llu", attempt < 16 ? 4 : 8,
                 (unsigned long long)(lobby_random(l) % mod));
        if (lobby_session_by_name(l, out) == NULL && account_by_name(l, out) == NULL)
            return 0;
    }
    return -1;
}

static void send_welcome(thue_lobby *l, thue_client *c, const thue_msg_id *id, bool resumed)
{
    session *s = c->s;
    int n = 0;
    for (room *r = l->rooms; r; r = r->next)
        n += room_has(r, s);
    char(*ids)[THUE_PROTO_KEY_MAX + 1] = n ? calloc((size_t)n, sizeof *ids) : NULL;
    if (n && ids == NULL)
        n = 0;
    int i = 0;
    for (room *r = l->rooms; r && i < n; r = r->next)
        if (room_has(r, s))
            snprintf(ids[i++], sizeof ids[0], "%s", r->id);
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_WELCOME;
    msg.id = *id;
    msg.u.welcome.protocol = c->proto;
    snprintf(msg.u.welcome.server, sizeof msg.u.welcome.server, "%s", SERVER_NAME);
    msg.u.welcome.player = s->player;
    memcpy(msg.u.welcome.resume, s->resume, sizeof msg.u.welcome.resume);
    msg.u.welcome.grace_s = l->cfg.grace_s;
    msg.u.welcome.resumed = resumed;
    msg.u.welcome.rooms = (const char(*)[THUE_PROTO_KEY_MAX + 1]) ids;
    msg.u.welcome.nrooms = n;
    msg.u.welcome.max_message = THUE_PROTO_MESSAGE_MAX;
    msg.u.welcome.rate = l->cfg.rate;
    msg.u.welcome.burst = l->cfg.burst;
    msg.u.welcome.chat_max = THUE_PROTO_CHAT_MAX;
    msg.u.welcome.name_max = THUE_PROTO_NAME_MAX;
    msg.u.welcome.has_ping_s = l->cfg.ping_s > 0;
    msg.u.welcome.ping_s = l->cfg.ping_s;
    msg.u.welcome.has_idle_s = l->cfg.idle_s > 0;
    msg.u.welcome.idle_s = l->cfg.idle_s;
    lobby_send_client_msg(l, c, &msg);
    free(ids);
}

/* The connection c takes session s over (a resume, or a login to an account whose
 * session lives): a new resume token, the old connection told why and closed. 0, or
 * THUE_PERR_INTERNAL (nothing changed). *had_old: whether another connection held it.
 * The caller sends its reply, then take_over_rooms. */
static int take_over_session(thue_client *c, session *s, bool resumed, bool *had_old)
{
    thue_lobby *l = c->lobby;
    /* A new token for every welcome: the old one is spent. */
    char fresh[THUE_PROTO_RESUME_LEN + 1];
    if (lobby_random_token(fresh) != 0)
        return THUE_PERR_INTERNAL;
    char spent[THUE_PROTO_RESUME_LEN + 1];
    memcpy(spent, s->resume, sizeof spent);
    session_unlink_token(l, s);
    memcpy(s->resume, fresh, sizeof fresh);
    session_link_token(l, s);
    nodes_session_token(l, s, spent);
    thue_client *old = s->client;
    if (old != NULL) {
        old->s = NULL;
        analysis_client_replaced(s); /* a thue.v2 analysis ends with its connection */
        send_goodbye(l, old, "replaced", "this session was taken over by a new connection", 1001);
    }
    uv_timer_stop(&s->grace_timer);
    s->client = c;
    c->s = s;
    *had_old = old != NULL;
    thue_log(THUE_LOG_INFO, "session %s %s from %s%s", s->player.name,
             resumed ? "resumed" : "logged in again", c->peer,
             old ? " (the old connection was replaced)" : "");
    return 0;
}

/* After the reply to a take-over: the state of every room the session is in. */
static void take_over_rooms(thue_lobby *l, session *s, bool had_old)
{
    for (room *r = l->rooms; r; r = r->next)
        if (room_has(r, s)) {
            if (!had_old)
                room_presence(r, s);
            else
                room_send_state(r, s);
        }
}

static int take_over(request *rq, session *s, bool resumed)
{
    bool had_old = false;
    int err = take_over_session(rq->c, s, resumed, &had_old);
    if (err)
        return err;
    send_welcome(rq->c->lobby, rq->c, &rq->cmd->id, resumed);
    take_over_rooms(rq->c->lobby, s, had_old);
    return 0;
}

/* The lobby's session_login hook (passwords.c's login): the guest session of c becomes
 * a's, or, when a's session lives (connected elsewhere, or within its grace period), c
 * takes that one over, as hello with the token does, and the guest session ends (it
 * leaves its rooms). Then the reply `account` with the token and the session's resume
 * token, then the rooms' states. */
static int lobby_session_login(thue_client *c, account *a, const thue_msg_id *id,
                               const char *token, char *message, size_t msize)
{
    thue_lobby *l = c->lobby;
    session *g = c->s;
    if (g == NULL || c->closing)
        return THUE_PERR_INTERNAL;
    if (g->acct != NULL) {
        snprintf(message, msize, "this session is already logged in to %s", g->acct->name);
        return THUE_PERR_NOT_ALLOWED;
    }
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_ACCOUNT;
    msg.id = *id;
    snprintf(msg.u.account.name, sizeof msg.u.account.name, "%s", a->name);
    snprintf(msg.u.account.token, sizeof msg.u.account.token, "%s", token);
    msg.u.account.has_resume = 1;
    session *as = a->session;
    if (as != NULL && !as->ending && as != g) {
        /* The guest's connection moves to the account's session; the guest's session
         * ends at once (as when its grace period is over). */
        g->client = NULL;
        c->s = NULL;
        bool had_old = false;
        if (take_over_session(c, as, false, &had_old) != 0) {
            g->client = c;
            c->s = g;
            return THUE_PERR_INTERNAL;
        }
        thue_log(THUE_LOG_INFO, "session %s ends: its connection logged in to %s",
                 g->player.name, a->name);
        session_end(g);
        memcpy(msg.u.account.resume, as->resume, sizeof msg.u.account.resume);
        lobby_send_client_msg(l, c, &msg);
        take_over_rooms(l, as, had_old);
        return 0;
    }
    session *squatter = lobby_session_by_name(l, a->name);
    if (squatter != NULL && squatter != g) {
        snprintf(message, msize, "a session named %s is connected", a->name);
        return THUE_PERR_NAME_TAKEN;
    }
    a->session = g;
    g->acct = a;
    g->player.kind = THUE_KIND_ACCOUNT;
    session_rename(g, a->name);
    memcpy(msg.u.account.resume, g->resume, sizeof msg.u.account.resume);
    lobby_send_client_msg(l, c, &msg);
    lobby_session_rooms_changed(g);
    return 0;
}

static int cmd_hello(request *rq)
{
    thue_client *c = rq->c;
    thue_lobby *l = c->lobby;
    const thue_cmd *cmd = rq->cmd;
    if (c->s != NULL)
        return THUE_PERR_ALREADY_HELLO;
    if (cmd->u.hello.protocol != c->proto) {
        snprintf(rq->message, sizeof rq->message,
                 "this connection speaks protocol version %d (thue.v%d, selected in the "
                 "handshake; the server speaks thue.v1 and thue.v2), not %d",
                 c->proto, c->proto, cmd->u.hello.protocol);
        snprintf(rq->field, sizeof rq->field, "protocol");
        return THUE_PERR_PROTOCOL;
    }
    if (nodes_hello_pending(l, c))
        return THUE_PERR_ALREADY_HELLO;
    c->legal_moves = cmd->u.hello.legal_moves != 0;
    if (cmd->u.hello.has_resume) {
        session *s = lobby_session_by_token(l, cmd->u.hello.resume);
        if ((s == NULL || s->ending) && l->cluster != NULL)
            return nodes_find_session(rq, cmd->u.hello.resume); /* another node's? */
        if (s == NULL || s->ending) {
            snprintf(rq->field, sizeof rq->field, "resume");
            return THUE_PERR_RESUME;
        }
        return take_over(rq, s, true);
    }
    account *a = NULL;
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    if (cmd->u.hello.has_token) {
        if (l->store == NULL) {
            snprintf(rq->message, sizeof rq->message,
                     "this server runs without a database: accounts are off");
            return THUE_PERR_NOT_AVAILABLE;
        }
        a = account_by_token(l, cmd->u.hello.token);
        if (a == NULL || !a->committed) {
            snprintf(rq->field, sizeof rq->field, "token");
            return THUE_PERR_TOKEN;
        }
        if (a->session != NULL && !a->session->ending)
            return take_over(rq, a->session, false);
        snprintf(name, sizeof name, "%s", a->name);
        session *squatter = lobby_session_by_name(l, name);
        if (squatter != NULL) {
            /* A guest took the account's name while its owner was away (possible only
             * for names claimed before: guests cannot take account names). */
            snprintf(rq->message, sizeof rq->message, "a session named %s is connected", name);
            return THUE_PERR_NAME_TAKEN;
        }
    } else if (cmd->u.hello.has_name) {
        if (thue_name_check(cmd->u.hello.name, name, sizeof name, rq->message,
                            sizeof rq->message) != 0) {
            snprintf(rq->field, sizeof rq->field, "name");
            return THUE_PERR_NAME;
        }
        if (lobby_name_reserved(name)) {
            snprintf(rq->field, sizeof rq->field, "name");
            snprintf(rq->message, sizeof rq->message, "the name \"%s\" is reserved for bots", name);
            return THUE_PERR_NAME;
        }
        if (lobby_session_by_name(l, name) != NULL || account_by_name(l, name) != NULL) {
            snprintf(rq->field, sizeof rq->field, "name");
            return THUE_PERR_NAME_TAKEN;
        }
        /* Several nodes: no other node may have a session of that name (the message
         * comes back with Redis's verdict). */
        int gate = nodes_name_gate(rq, name);
        if (gate)
            return gate;
        if (rq->v.name == -1) {
            snprintf(rq->field, sizeof rq->field, "name");
            snprintf(rq->message, sizeof rq->message,
                     "a player named %s is connected to another node of this server", name);
            return THUE_PERR_NAME_TAKEN;
        }
    } else {
        /* A name of its own, free here and (several nodes) on the others: the one Redis
         * found free when the message comes back, or another draw. */
        if ((rq->v.name == 1 || rq->v.name == 2) && lobby_session_by_name(l, rq->v.name_text) == NULL &&
            account_by_name(l, rq->v.name_text) == NULL) {
            snprintf(name, sizeof name, "%s", rq->v.name_text);
        } else {
            if (guest_name(l, rq->v.name == -1, name, sizeof name) != 0)
                return THUE_PERR_BUSY;
            int gate = nodes_name_gate(rq, name);
            if (gate)
                return gate;
        }
    }
    session *s = session_new(l, name);
    if (s == NULL) {
        if (rq->v.name == 1)
            nodes_name_release(l, name);
        return THUE_PERR_INTERNAL;
    }
    if (a != NULL) {
        s->acct = a;
        s->player.kind = THUE_KIND_ACCOUNT;
        a->session = s;
    }
    s->client = c;
    c->s = s;
    nodes_session_token(l, s, NULL);
    thue_log(THUE_LOG_INFO, "%s said hello from %s%s", s->player.name, c->peer,
             a ? " (account)" : "");
    send_welcome(l, c, &cmd->id, false);
    return 0;
}

/* A session that no connection holds yet: it is away, and its grace period runs (hello
 * with its resume token takes it). For an account whose owner is not connected (a
 * tournament game waits for them after a restart, or while they are on another node),
 * or a player of another node seated by quick match. NULL when the name, or the
 * account's session, is in use here. The lobby's session_ghost hook, for quickmatch.c;
 * session_for_account below is its form for an account, for tournament.c. */
static session *lobby_session_ghost(thue_lobby *l, const char *name, account *a)
{
    if (lobby_session_by_name(l, name) != NULL || (a != NULL && a->session != NULL))
        return NULL;
    session *s = session_new(l, name);
    if (s == NULL)
        return NULL;
    if (a != NULL) {
        s->acct = a;
        s->player.kind = THUE_KIND_ACCOUNT;
        a->session = s;
    }
    uv_timer_start(&s->grace_timer, grace_over, (uint64_t)l->cfg.grace_s * 1000, 0);
    nodes_session_token(l, s, NULL);
    return s;
}

/* The lobby's session_handoff hook (nodes.c): hello with the token of a hand-off (a guest
 * of another node sent here with `moved` for a room or a tournament of this node): the
 * guest's session here, named as there, whose resume token is that token; or, when a
 * guest session of that name lives here already (the same player, seated here by quick
 * match or come before), that one, taken over. Names are unique across the nodes, so the
 * name is this player's. 0, or an error code. */
static int lobby_session_handoff(thue_client *c, const thue_msg_id *id, const char *name,
                                 const char *token)
{
    thue_lobby *l = c->lobby;
    if (c->s != NULL || c->closing)
        return THUE_PERR_ALREADY_HELLO;
    session *s = lobby_session_by_name(l, name);
    if (s != NULL && (s->acct != NULL || s->ending))
        return THUE_PERR_NAME_TAKEN;
    if (s != NULL) {
        bool had_old = false;
        int err = take_over_session(c, s, true, &had_old);
        if (err)
            return err;
        nodes_session_token_gone(l, token); /* (the hand-off is used) */
        send_welcome(l, c, id, true);
        take_over_rooms(l, s, had_old);
        return 0;
    }
    s = session_new(l, name);
    if (s == NULL)
        return THUE_PERR_INTERNAL;
    session_unlink_token(l, s);
    snprintf(s->resume, sizeof s->resume, "%s", token);
    session_link_token(l, s);
    s->client = c;
    c->s = s;
    nodes_session_token(l, s, NULL); /* this node's session's record from now on */
    thue_log(THUE_LOG_INFO, "%s came from another node from %s", s->player.name, c->peer);
    send_welcome(l, c, id, false);
    return 0;
}

static session *lobby_session_for_account(thue_lobby *l, account *a)
{
    if (a->session != NULL)
        return a->session;
    return lobby_session_ghost(l, a->name, a);
}

/* ---- the dispatch ------------------------------------------------------------------------ */

static int cmd_not_available(request *rq)
{
    snprintf(rq->message, sizeof rq->message,
             "%s arrives with persistence (accounts, ladders, tournaments)",
             thue_cmd_type_name(rq->cmd->type));
    return THUE_PERR_NOT_AVAILABLE;
}

static int dispatch(request *rq)
{
    thue_client *c = rq->c;
    const thue_cmd *cmd = rq->cmd;
    if (cmd->type == THUE_CMD_PING) {
        thue_msg msg;
        memset(&msg, 0, sizeof msg);
        msg.type = THUE_MSG_PONG;
        msg.id = cmd->id;
        lobby_send_client_msg(c->lobby, c, &msg);
        return 0;
    }
    if (cmd->type == THUE_CMD_HELLO)
        return cmd_hello(rq);
    if (c->s == NULL)
        return THUE_PERR_HELLO_FIRST;
    switch (cmd->type) {
    case THUE_CMD_CREATE_ROOM:
        return room_create(rq);
    case THUE_CMD_LIST_ROOMS:
        return room_list(rq);
    case THUE_CMD_JOIN:
        return room_join(rq);
    case THUE_CMD_SPECTATE:
        return room_spectate(rq);
    case THUE_CMD_LEAVE:
        return room_leave(rq);
    case THUE_CMD_SEAT_BOT:
        return room_seat_bot(rq);
    case THUE_CMD_READY:
        return room_ready(rq);
    case THUE_CMD_PLACE:
        return room_move(rq, false);
    case THUE_CMD_PAINT:
        return room_move(rq, true);
    case THUE_CMD_MOVE:
        return room_gmove(rq);
    case THUE_CMD_GET_LEGAL_MOVES:
        return room_legal_moves(rq);
    case THUE_CMD_SYNC:
        return room_sync(rq);
    case THUE_CMD_RESIGN:
        return room_resign(rq);
    case THUE_CMD_REMATCH:
        return room_rematch(rq);
    case THUE_CMD_CHAT:
        return room_chat(rq);
    case THUE_CMD_QUEUE_JOIN:
        return cmd_queue_join(rq);
    case THUE_CMD_CLAIM_NAME:
        return cmd_claim_name(rq);
    case THUE_CMD_SET_PASSWORD:
        return cmd_set_password(rq);
    case THUE_CMD_LOGIN:
        return cmd_login(rq);
    case THUE_CMD_GET_LADDER:
        return cmd_get_ladder(rq);
    case THUE_CMD_LIST_TOURNAMENTS:
        return cmd_list_tournaments(rq);
    case THUE_CMD_GET_TOURNAMENT:
        return cmd_get_tournament(rq);
    case THUE_CMD_CREATE_TOURNAMENT:
        return cmd_create_tournament(rq);
    case THUE_CMD_JOIN_TOURNAMENT:
        return cmd_join_tournament(rq);
    case THUE_CMD_LEAVE_TOURNAMENT:
        return cmd_leave_tournament(rq);
    case THUE_CMD_START_TOURNAMENT:
        return cmd_start_tournament(rq);
    case THUE_CMD_QUEUE_LEAVE:
        return cmd_queue_leave(rq);
    case THUE_CMD_ANALYZE:
        return cmd_analyze(rq);
    case THUE_CMD_ANALYZE_STOP:
        return cmd_analyze_stop(rq);
    case THUE_CMD_ANALYZE_RESUME:
        return cmd_analyze_resume(rq);
    case THUE_CMD_ANALYZE_CLOSE:
        return cmd_analyze_close(rq);
    case THUE_CMD_ANALYZE_SYNC:
        return cmd_analyze_sync(rq);
    case THUE_CMD_GET_BEST_MOVE:
        return cmd_best_move(rq);
    default:
        return cmd_not_available(rq);
    }
}

/* Takes one token from the bucket; false when it is empty. */
static bool take_token(thue_lobby *l, thue_client *c)
{
    uint64_t now = uv_hrtime();
    double refill = (double)(now - c->refill_ns) * 1e-9 * l->cfg.rate;
    c->refill_ns = now;
    c->tokens += refill;
    if (c->tokens > l->cfg.burst)
        c->tokens = l->cfg.burst;
    if (c->tokens < 1)
        return false;
    c->tokens -= 1;
    return true;
}

/* Runs one decoded message, with what Redis said of it when it was asked (v, or NULL). */
static void run_cmd(thue_lobby *l, thue_client *c, const char *text, size_t len, thue_cmd *cmd,
                    const lobby_verdicts *v)
{
    request rq;
    memset(&rq, 0, sizeof rq);
    rq.c = c;
    rq.cmd = cmd;
    rq.text = text;
    rq.len = len;
    if (v != NULL)
        rq.v = *v;
    rq.gated = rq.v.limit == 1 || rq.v.limit == -1;
    rq.gate_denied = rq.v.limit == -1;
    rq.gate_retry_ms = rq.v.limit_retry_ms;
    int err = dispatch(&rq);
    if (err < 0) /* (LOBBY_LATER: the answer comes later) */
        lobby_send_error(l, c, &cmd->id, err, rq.field[0] ? rq.field : NULL, rq.message);
    if (cmd->type == THUE_CMD_SET_PASSWORD || cmd->type == THUE_CMD_LOGIN)
        thue_password_wipe(cmd, sizeof *cmd); /* a password's only other copy is its job's */
}

void lobby_run_gated(thue_lobby *l, thue_client *c, const char *text, size_t len,
                     const lobby_verdicts *v)
{
    thue_cmd cmd;
    thue_decode_error derr;
    if (c->closing || thue_cmd_decode(text, len, &cmd, &derr) != 0)
        return; /* (it decoded the first time) */
    run_cmd(l, c, text, len, &cmd, v);
}

void thue_lobby_message(thue_lobby *l, thue_client *c, const char *text, size_t len)
{
    if (c->closing)
        return;
    /* A message of this connection waits for the shared limit's verdict: this one waits
     * behind it (a connection's messages are answered in order). */
    if (nodes_limit_hold(c, text, len)) {
        if (c->nheld >= NODES_HELD_MAX) {
            thue_log(THUE_LOG_WARN, "closing %s: %d messages behind one awaiting its limit",
                     c->peer, c->nheld);
            send_goodbye(l, c, "abuse", "too many messages while one is waiting", 1008);
        }
        return;
    }
    thue_cmd cmd;
    thue_decode_error derr;
    int err = thue_cmd_decode(text, len, &cmd, &derr);
    if (!take_token(l, c)) {
        const thue_msg_id *id = err == 0 ? &cmd.id : &derr.id;
        lobby_send_error(l, c, id, THUE_PERR_RATE, NULL, NULL);
        if (++c->rejections >= ABUSE_REJECTIONS) {
            thue_log(THUE_LOG_WARN, "closing %s: %d messages in a row over the rate limit", c->peer,
                     c->rejections);
            send_goodbye(l, c, "abuse", "too many messages over the rate limit", 1008);
        }
        return;
    }
    c->rejections = 0;
    if (err != 0) {
        lobby_send_error(l, c, &derr.id, err, derr.field[0] ? derr.field : NULL, derr.message);
        return;
    }
    run_cmd(l, c, text, len, &cmd, NULL);
}

/* ---- connections --------------------------------------------------------------------------- */

thue_lobby *thue_lobby_new(uv_loop_t *loop, const thue_lobby_config *cfg, thue_pool *pool,
                           thue_metrics *metrics)
{
    thue_lobby *l = calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    l->loop = loop;
    l->maybe_closed = lobby_maybe_closed;
    l->session_for_account = lobby_session_for_account;
    l->session_ghost = lobby_session_ghost;
    l->session_handoff = lobby_session_handoff;
    l->session_login = lobby_session_login;
    l->cfg = *cfg;
    l->pool = pool;
    l->metrics = metrics;
    l->rng = cfg->seed;
    if (!(l->cfg.tau > 0))
        l->cfg.tau = THUE_GLICKO_TAU_DEFAULT;
    if (l->cfg.room_rate_per_ip <= 0)
        l->cfg.room_rate_per_ip = THUE_LOBBY_ROOM_RATE_DEFAULT;
    if (l->cfg.bot_think_max_ms <= 0)
        l->cfg.bot_think_max_ms = THUE_LOBBY_BOT_THINK_MAX_DEFAULT;
    if (l->cfg.bot_seats_per_owner <= 0)
        l->cfg.bot_seats_per_owner = THUE_LOBBY_BOT_SEATS_PER_OWNER_DEFAULT;
    if (l->cfg.max_tournaments <= 0)
        l->cfg.max_tournaments = THUE_LOBBY_MAX_TOURNAMENTS_DEFAULT;
    if (l->cfg.tournaments_per_account <= 0)
        l->cfg.tournaments_per_account = THUE_LOBBY_TOURNAMENTS_PER_ACCOUNT_DEFAULT;
    if (l->cfg.tournaments_per_ip <= 0)
        l->cfg.tournaments_per_ip = THUE_LOBBY_TOURNAMENTS_PER_IP_DEFAULT;
    if (l->cfg.tournament_rate <= 0)
        l->cfg.tournament_rate = THUE_LOBBY_TOURNAMENT_RATE_DEFAULT;
    if (l->cfg.tournament_expire_s <= 0)
        l->cfg.tournament_expire_s = THUE_LOBBY_TOURNAMENT_EXPIRE_S_DEFAULT;
    if (l->cfg.claims_per_ip <= 0)
        l->cfg.claims_per_ip = THUE_LOBBY_CLAIMS_PER_IP_DEFAULT;
    if (l->cfg.rated_min_moves < 0)
        l->cfg.rated_min_moves = 0;
    if (l->cfg.rated_pair_max <= 0)
        l->cfg.rated_pair_max = THUE_LOBBY_RATED_PAIR_MAX_DEFAULT;
    if (l->cfg.max_analyses <= 0)
        l->cfg.max_analyses = THUE_LOBBY_MAX_ANALYSES_DEFAULT;
    if (l->cfg.reviews == 0)
        l->cfg.reviews = 1;
    if (l->cfg.analysis_iterations_max <= 0)
        l->cfg.analysis_iterations_max = THUE_LOBBY_ANALYSIS_ITERATIONS_MAX_DEFAULT;
    if (l->cfg.analysis_tree_nodes <= 0)
        l->cfg.analysis_tree_nodes = THUE_LOBBY_ANALYSIS_TREE_NODES_DEFAULT;
    if (l->cfg.analyses_per_owner <= 0)
        l->cfg.analyses_per_owner = THUE_LOBBY_ANALYSES_PER_OWNER_DEFAULT;
    if (l->cfg.analyses_per_ip <= 0)
        l->cfg.analyses_per_ip = THUE_LOBBY_ANALYSES_PER_IP_DEFAULT;
    /* One address never holds every analysis slot: another address always gets one. */
    if (l->cfg.analyses_per_ip >= l->cfg.max_analyses)
        l->cfg.analyses_per_ip = l->cfg.max_analyses > 1 ? l->cfg.max_analyses - 1 : 1;
    if (l->cfg.bot_seats_per_ip <= 0)
        l->cfg.bot_seats_per_ip = THUE_LOBBY_BOT_SEATS_PER_IP_DEFAULT;
    if (l->cfg.analysis_seconds_max <= 0)
        l->cfg.analysis_seconds_max = THUE_LOBBY_ANALYSIS_SECONDS_MAX_DEFAULT;
    if (l->cfg.analysis_tree_max_bytes == 0)
        l->cfg.analysis_tree_max_bytes = THUE_LOBBY_ANALYSIS_TREE_MAX_BYTES_DEFAULT;
    if (l->cfg.search_moves_max <= 0)
        l->cfg.search_moves_max = THUE_LOBBY_SEARCH_MOVES_MAX_DEFAULT;
    if (l->cfg.password_ops <= 0)
        l->cfg.password_ops = THUE_PASSWORD_OPS_DEFAULT;
    if (l->cfg.password_mem_mib <= 0)
        l->cfg.password_mem_mib = THUE_PASSWORD_MEM_MIB_DEFAULT;
    if (l->cfg.password_jobs <= 0)
        l->cfg.password_jobs = THUE_LOBBY_PASSWORD_JOBS_DEFAULT;
    if (l->cfg.login_fails_per_ip <= 0)
        l->cfg.login_fails_per_ip = THUE_LOBBY_LOGIN_FAILS_PER_IP_DEFAULT;
    if (l->cfg.login_fails_per_name <= 0)
        l->cfg.login_fails_per_name = THUE_LOBBY_LOGIN_FAILS_PER_NAME_DEFAULT;
    /* Buckets per address (and per account): room_rate_per_ip rooms refilled over a
     * minute, tournament_rate tournaments refilled over an hour. */
    l->room_rate =
        thue_limiter_new(l->cfg.room_rate_per_ip / 60.0, l->cfg.room_rate_per_ip, LOBBY_LIMIT_KEYS);
    l->tour_rate =
        thue_limiter_new(l->cfg.tournament_rate / 3600.0, l->cfg.tournament_rate, LOBBY_LIMIT_KEYS);
    l->claim_rate =
        thue_limiter_new(l->cfg.claims_per_ip / 3600.0, l->cfg.claims_per_ip, LOBBY_LIMIT_KEYS);
    l->bot_seats = thue_counts_new();
    l->bot_seats_ip = thue_counts_new();
    l->analyses_owned = thue_counts_new();
    l->analyses_ip = thue_counts_new();
    l->best_ip = thue_counts_new();
    if (l->room_rate == NULL || l->tour_rate == NULL || l->claim_rate == NULL ||
        l->bot_seats == NULL || l->bot_seats_ip == NULL || l->analyses_owned == NULL ||
        l->analyses_ip == NULL || l->best_ip == NULL || passwords_init(l) != 0) {
        thue_limiter_free(l->room_rate);
        thue_limiter_free(l->tour_rate);
        thue_limiter_free(l->claim_rate);
        thue_counts_free(l->bot_seats);
        thue_counts_free(l->bot_seats_ip);
        thue_counts_free(l->analyses_owned);
        thue_counts_free(l->analyses_ip);
        thue_counts_free(l->best_ip);
        passwords_free(l);
        free(l);
        return NULL;
    }
    uv_timer_init(loop, &l->tour_timer); /* last: nothing can fail after it */
    l->tour_timer.data = l;
    uv_timer_init(loop, &l->nodes_timer);
    l->nodes_timer.data = l;
    uv_timer_init(loop, &l->watch_timer);
    l->watch_timer.data = l;
    uv_timer_init(loop, &l->analysis_timer);
    l->analysis_timer.data = l;
    l->next_account = 1;
    if (l->rng == 0 && getrandom(&l->rng, sizeof l->rng, 0) != (ssize_t)sizeof l->rng)
        l->rng = uv_hrtime();
    return l;
}

char *thue_lobby_tournaments_json(thue_lobby *l, int status, int offset, int count)
{
    return tournaments_text(l, NULL, status, offset, count);
}

char *thue_lobby_tournament_json(thue_lobby *l, const char *id, int *unknown)
{
    tournament *t = tournament_find(l, id);
    *unknown = t == NULL;
    return t ? tournament_text(t, NULL) : NULL;
}

void thue_lobby_set_store(thue_lobby *l, thue_store *store)
{
    l->store = store;
    accounts_load_done(l);
}

int thue_lobby_store_pending(const thue_lobby *l)
{
    return l->store_pending;
}

int thue_lobby_ladder_json(thue_lobby *l, const thue_lobby_ladder_ask *ask, char **out,
                           char *why, size_t whysize)
{
    *out = NULL;
    if (l->store == NULL) {
        snprintf(why, whysize, "this server runs without a database: no ladders");
        return THUE_PERR_NOT_AVAILABLE;
    }
    ladder_query q;
    memset(&q, 0, sizeof q);
    char field[64];
    int err = ladder_query_of(ask->game, ask->game_options, ask->variant, ask->k, &q, field,
                              sizeof field, why, whysize);
    if (err)
        return err;
    q.kind = ask->kind;
    q.offset = ask->offset;
    q.count = ask->count;
    *out = ladder_text(l, &q, NULL);
    if (*out == NULL) {
        snprintf(why, whysize, "out of memory");
        return THUE_ENOMEM;
    }
    return 0;
}

void thue_lobby_set_hooks(thue_lobby *l, const thue_lobby_hooks *hooks)
{
    l->hooks = *hooks;
}

thue_client *thue_lobby_connected(thue_lobby *l, thue_conn *conn, const char *peer)
{
    if (l->stopping)
        return NULL;
    thue_client *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->lobby = l;
    c->conn = conn;
    snprintf(c->peer, sizeof c->peer, "%s", peer ? peer : "?");
    c->tokens = l->cfg.burst;
    c->refill_ns = uv_hrtime();
    c->proto = 1;
    c->next = l->clients;
    if (l->clients)
        l->clients->prev = c;
    l->clients = c;
    l->metrics->connections++;
    l->metrics->connections_total++;
    return c;
}

void thue_lobby_set_protocol(thue_client *c, int version)
{
    c->proto = version == 2 ? 2 : 1;
}

void thue_lobby_drop(thue_lobby *l, thue_client *c, const char *reason, const char *message,
                     int close_code)
{
    if (c != NULL)
        send_goodbye(l, c, reason, message, close_code);
}

void thue_lobby_disconnected(thue_lobby *l, thue_client *c)
{
    session *s = c->s;
    if (c->prev)
        c->prev->next = c->next;
    else
        l->clients = c->next;
    if (c->next)
        c->next->prev = c->prev;
    l->metrics->connections--;
    nodes_client_gone(l, c);
    nodes_limit_client_gone(c);
    passwords_client_gone(l, c);
    best_move_client_gone(c);
    free(c);
    if (s == NULL)
        return;
    s->client = NULL;
    queue_remove(s);
    analysis_session_gone(s); /* nobody to stream its tree to */
    if (l->stopping || l->cfg.grace_s <= 0) {
        session_end(s);
        return;
    }
    /* Sent to a match on another node, with a session there: this one has nothing left
     * to keep (and would hold its name for the grace period). */
    bool in_room = false;
    for (room *r = l->rooms; r && !in_room; r = r->next)
        in_room = room_has(r, s);
    if (s->moved_away && !in_room && s->rooms_created == 0) {
        thue_log(THUE_LOG_INFO, "session %s: moved to another node's match: ended here",
                 s->player.name);
        session_end(s);
        return;
    }
    thue_log(THUE_LOG_INFO, "session %s: connection lost, seats kept for %d s", s->player.name,
             l->cfg.grace_s);
    uv_timer_start(&s->grace_timer, grace_over, (uint64_t)l->cfg.grace_s * 1000, 0);
    for (room *r = l->rooms; r; r = r->next)
        if (room_has(r, s))
            room_presence(r, s);
}

char *thue_lobby_rooms_json(thue_lobby *l, const char *game, const char *variant, int k, int status)
{
    room_filter f;
    memset(&f, 0, sizeof f);
    if (game) {
        f.has_game = true;
        snprintf(f.game, sizeof f.game, "%s", game);
    }
    if (variant) {
        f.has_variant = true;
        f.variant = strcmp(variant, "overlap") == 0 ? THUE_OVERLAP : THUE_SQUARE;
    }
    if (k >= 0) {
        f.has_k = true;
        f.k = k;
    }
    if (status >= 0) {
        f.has_status = true;
        f.status = (thue_room_status)status;
    }
    return room_list_text(l, &f, NULL);
}

char *thue_lobby_room_json(thue_lobby *l, const char *id, const char *code)
{
    return room_peek_text(l, id, code);
}

void thue_lobby_drain(thue_lobby *l)
{
    if (l->draining || l->stopping)
        return;
    l->draining = true;
    thue_log(THUE_LOG_INFO, "lobby: draining: %d matches running, no new ones",
             thue_lobby_running_matches(l));
    /* Players waiting for quick match would wait for nothing. */
    for (session *s = l->sessions; s; s = s->next)
        quickmatch_drain(l, s);
    nodes_set_draining(l);
}

int thue_lobby_running_matches(const thue_lobby *l)
{
    int n = 0;
    for (const room *r = l->rooms; r; r = r->next)
        n += room_match_running(r) ? 1 : 0;
    return n;
}

/* ---- several nodes --------------------------------------------------------------------- */

/* Each second: this node's public rooms to the others (nodes_rooms_publish). */
static void nodes_due(uv_timer_t *t)
{
    thue_lobby *l = t->data;
    room_filter f;
    memset(&f, 0, sizeof f);
    f.all_games = true;
    char *text = room_list_text(l, &f, NULL);
    nodes_rooms_publish(l, text);
    free(text);
    text = tournaments_node_text(l);
    nodes_tournaments_publish(l, text);
    free(text);
    nodes_tick(l);
    accounts_follow(l);
    tournaments_lease_tick(l);
    quickmatch_tick(l);
}

void thue_lobby_set_cluster(thue_lobby *l, thue_cluster *cluster)
{
    if (cluster == NULL) {
        nodes_close(l);
        uv_timer_stop(&l->nodes_timer);
    } else if (!l->stopping) {
        uv_timer_start(&l->nodes_timer, nodes_due, 1000, 1000);
    }
    l->cluster = cluster;
    nodes_load_changed(l);
}

void thue_lobby_cluster_state(void *lobby, bool up)
{
    thue_lobby *l = lobby;
    if (l->cluster == NULL)
        return;
    thue_log(up ? THUE_LOG_INFO : THUE_LOG_WARN, "cluster: Redis is %s",
             up ? "up: this node is one of several again"
                : "down: this node goes on alone (quick match pairs here only)");
    if (!up)
        return;
    /* Redis may have come back empty: what this node holds is written again (the
     * cluster itself writes the rooms and the heartbeat). */
    for (session *s = l->sessions; s; s = s->next)
        if (!s->ending)
            nodes_session_token(l, s, NULL);
    quickmatch_cluster_up(l);
    nodes_up_again(l);
    nodes_load_changed(l);
    if (l->draining)
        nodes_set_draining(l);
}

void thue_lobby_cluster_event(void *lobby, const char *from, const char *payload, size_t len)
{
    thue_lobby *l = lobby;
    if (l->cluster == NULL || l->stopping)
        return;
    json_error_t je;
    json_t *ev = json_loadb(payload, len, 0, &je);
    const char *t = json_string_value(json_object_get(ev, "t"));
    if (t == NULL) {
        thue_log(THUE_LOG_WARN, "cluster: an event from node %s is not one (%.60s)", from, payload);
    } else if (strcmp(t, "match") == 0 || strcmp(t, "requeue") == 0) {
        quickmatch_event(l, from, ev);
    } else if (strcmp(t, "account") == 0 || strcmp(t, "rating") == 0 ||
               strcmp(t, "token") == 0) {
        accounts_event(l, ev);
    } else if (strcmp(t, "rooms") == 0 || strcmp(t, "tournaments") == 0) {
        nodes_rooms_event(l, from, ev);
    } else if (strcmp(t, "seat") == 0) {
        /* a tournament of that node seated an account whose session is here */
        const char *name = json_string_value(json_object_get(ev, "name"));
        const char *room_id = json_string_value(json_object_get(ev, "room"));
        const char *resume = json_string_value(json_object_get(ev, "resume"));
        account *a = name != NULL ? account_by_name(l, name) : NULL;
        if (a != NULL && a->session != NULL && a->session->client != NULL && room_id != NULL &&
            resume != NULL && strlen(room_id) <= THUE_PROTO_KEY_MAX &&
            strlen(resume) == THUE_PROTO_RESUME_LEN)
            nodes_send_moved(l, a->session->client, NULL, "match", from, room_id, resume);
    } else {
        thue_log(THUE_LOG_DEBUG, "cluster: event %s from node %s ignored", t, from);
    }
    json_decref(ev);
}

void thue_lobby_cluster_paired(void *lobby, const thue_cluster_pair *pair)
{
    thue_lobby *l = lobby;
    if (l->cluster != NULL && !l->stopping)
        quickmatch_paired(l, pair);
}

void thue_lobby_shutdown(thue_lobby *l)
{
    if (l->stopping)
        return;
    l->stopping = true;
    thue_log(THUE_LOG_INFO, "lobby: shutting down (%d rooms)", l->nrooms);
    for (room *r = l->rooms; r; r = r->next) {
        if (r->job) {
            thue_pool_cancel(l->pool, r->job);
            l->metrics->bot_jobs_cancelled++;
            r->job = 0;
            r->thinking = -1;
        }
        uv_timer_stop(&r->clock_timer);
        uv_timer_stop(&r->linger_timer);
    }
    for (session *s = l->sessions; s; s = s->next) {
        uv_timer_stop(&s->grace_timer);
        uv_timer_stop(&s->queue_timer);
        nodes_session_gone(l, s); /* its token is dead: other nodes say bad_resume at once */
    }
    uv_timer_stop(&l->tour_timer);
    uv_timer_stop(&l->nodes_timer);
    uv_timer_stop(&l->watch_timer);
    uv_timer_stop(&l->analysis_timer);
    l->analysis_timer_on = false;
    analysis_shutdown(l);
    reviews_shutdown(l);
    for (thue_client *c = l->clients; c; c = c->next)
        best_move_client_gone(c); /* no answer comes after the shutdown began */
    /* One node of several: the client's next connection to /ws reaches another node. */
    const char *why = l->cfg.node[0] != '\0'
                          ? "this node is stopping: connect again to /ws to carry on on another"
                          : "the server is shutting down";
    for (thue_client *c = l->clients; c; c = c->next)
        send_goodbye(l, c, "shutdown", why, 1001);
}

void thue_lobby_close(thue_lobby *l, void (*closed)(void *data), void *data)
{
    thue_lobby_shutdown(l);
    /* Connections are gone by now; any left are detached. */
    for (thue_client *c = l->clients; c; c = c->next)
        c->s = NULL;
    while (l->sessions)
        session_end(l->sessions);
    while (l->rooms)
        room_destroy(l->rooms);
    l->closed = closed;
    l->closed_data = data;
    nodes_free(l);
    l->handles += 4;
    uv_close((uv_handle_t *)&l->tour_timer, lobby_timer_closed);
    uv_close((uv_handle_t *)&l->nodes_timer, lobby_timer_closed);
    uv_close((uv_handle_t *)&l->watch_timer, lobby_timer_closed);
    uv_close((uv_handle_t *)&l->analysis_timer, lobby_timer_closed);
}
