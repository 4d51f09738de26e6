/*
 * quickmatch.c: quick match (quickmatch.h): the queue_join and
 * queue_leave commands, the queue each session waits in, the pairing, and the bot a
 * player gets after waiting bot_after_s. Split from lobby.c, which dispatches the two
 * commands here and takes a session that ends out of the queue (queue_remove); rooms are
 * made through room.c's room_quick. Loop thread only.
 *
 * Quick match pairs the longest-waiting session of the same queue (same_queue: the same
 * game and options, rated or not, the same clock). Every room it makes counts against
 * the address of the player it is made for (room_allowed); when the room cannot be made
 * the player hears why (an error, or the event queue_failed) and nobody is left waiting
 * for a room that will not come. A session's queue timer (its handle is the session's,
 * opened and closed in lobby.c) fires queue_bot_due for the match with a bot.
 *
 * Several nodes (nodes.h, docs/cluster.md): while the cluster is up, the queue is Redis's
 * (thue_cluster_queue_join: one pool per queue, atomic pairing across the nodes), and the
 * local pairing above is what a node does alone (no cluster, or Redis down). A session
 * in Redis's pool has a ticket. The join that makes a pair makes the room on its own
 * node: the player who waited elsewhere gets a session there (lobby's session_ghost: away,
 * its grace period running), seated, and the waiting player's node hears "match" and
 * sends its player `moved` (reason match) with that session's resume token. A pair whose
 * joiner left meanwhile sends the other ticket back to the pool ("requeue").
 *
 * Redis's pub/sub keeps nothing: a "match" published while the waiting node's subscriber
 * is down is lost. So the pairing node sends it again each second until a subscriber
 * has taken it (or the seat's grace period is over); and a node whose link to Redis comes
 * back does not put its waiting tickets back blindly: it first takes each out of the pool,
 * and one that is no longer there was paired meanwhile: its "match" is awaited (for
 * QUICK_MATCH_WAIT_MS, then it queues again).
 */
#include "quickmatch.h"
#include "accounts.h"
#include "nodes.h"
#include "room.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "log.h"

static bool same_queue(const thue_room_options *a, const thue_room_options *b)
{
    if (a->has_game || b->has_game) /* the same game with the same (canonical) options */
        return a->has_game && b->has_game && strcmp(a->game, b->game) == 0 &&
               strcmp(a->game_options, b->game_options) == 0 && a->rated == b->rated &&
               a->clock.present == b->clock.present &&
               (!a->clock.present || (a->clock.initial_ms == b->clock.initial_ms &&
                                      a->clock.increment_ms == b->clock.increment_ms));
    return a->variant == b->variant && a->k == b->k && a->limit == b->limit &&
           a->rated == b->rated && a->clock.present == b->clock.present &&
           (!a->clock.present || (a->clock.initial_ms == b->clock.initial_ms &&
                                  a->clock.increment_ms == b->clock.increment_ms));
}

static void cluster_cancel(session *s);
static int cluster_queue(thue_lobby *l, session *s, const thue_msg_id *id);

/* s joins the queue: last in the lobby's list (the list's order is the waiting order). */
static void queue_enter(thue_lobby *l, session *s)
{
    s->queued = true;
    s->qnext = NULL;
    s->qprev = l->qtail;
    if (l->qtail)
        l->qtail->qnext = s;
    else
        l->qhead = s;
    l->qtail = s;
}

/* s leaves the queue (nothing when it is not in it). */
static void queue_leave(session *s)
{
    thue_lobby *l = s->lobby;
    if (!s->queued)
        return;
    s->queued = false;
    if (s->qprev)
        s->qprev->qnext = s->qnext;
    else
        l->qhead = s->qnext;
    if (s->qnext)
        s->qnext->qprev = s->qprev;
    else
        l->qtail = s->qprev;
    s->qprev = s->qnext = NULL;
}

void queue_remove(session *s)
{
    if (s->queued) {
        queue_leave(s);
        uv_timer_stop(&s->queue_timer);
    }
    cluster_cancel(s); /* (any ticket leaves the table: the session may be ending) */
}

static void match_found(thue_lobby *l, room *r, session *a, session *b)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_MATCH_FOUND;
    snprintf(msg.u.match_found.room, sizeof msg.u.match_found.room, "%s", r->id);
    lobby_send_msg(l, a, &msg);
    lobby_send_msg(l, b, &msg);
    room_send_state(r, a);
    if (b)
        room_send_state(r, b);
}

/* Tells a session that quick match could not make its room (it is out of the queue):
 * the event queue_failed with the code and the sentence. */
static void queue_failed(thue_lobby *l, session *s, int code, const char *why)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_QUEUE_FAILED;
    msg.u.queue_failed.code = code;
    snprintf(msg.u.queue_failed.message, sizeof msg.u.queue_failed.message, "%s", why);
    thue_metrics_error(l->metrics, code);
    lobby_send_msg(l, s, &msg);
}

void quickmatch_drain(thue_lobby *l, session *s)
{
    if (!s->queued)
        return;
    queue_remove(s);
    char why[THUE_PROTO_TEXT_MAX + 1];
    queue_failed(l, s, room_no_new_match(l, why, sizeof why), why);
}

static void bot_match(thue_lobby *l, session *s);
static void ticket_cancel_for_bot(session *s);

static void queue_bot_due(uv_timer_t *t)
{
    session *s = t->data;
    thue_lobby *l = s->lobby;
    if (!s->queued)
        return;
    if (s->ticket[0] != '\0') {
        /* Out of Redis's pool first: the bot comes only if nobody took the ticket. */
        ticket_cancel_for_bot(s);
        return;
    }
    bot_match(l, s);
}

/* The longest-waiting session of s's queue in the local queue (not in Redis's), or NULL:
 * the first in the lobby's list (oldest first) that fits. */
static session *longest_waiting(thue_lobby *l, const session *s, const thue_room_options *opt)
{
    for (session *o = l->qhead; o; o = o->qnext)
        if (o != s && !o->ending && o->ticket[0] == '\0' && same_queue(o->queue_opt, opt))
            return o;
    return NULL;
}

/* The room of a pairing made for s (against first, or a bot when first is NULL): it counts
 * against s's address. NULL with the code and the sentence for queue_failed. */
static room *quick_room_for(thue_lobby *l, session *first, session *s, int *err, char *why,
                            size_t size)
{
    *err = room_allowed(l, s->client ? s->client->peer : NULL, why, size);
    room *r =
        *err ? NULL
             : room_quick(l, first != NULL ? first : s, first != NULL ? s : NULL, s->queue_opt);
    if (r == NULL && *err == 0) {
        *err = THUE_PERR_INTERNAL;
        snprintf(why, size,
                 "the server could not make the room for your match%s; join the "
                 "queue again",
                 first != NULL ? "" : " with a bot");
    }
    return r;
}

/* The room with a bot for a session that waited bot_after_s (out of the queue now). */
static void bot_match(thue_lobby *l, session *s)
{
    queue_leave(s);
    char why[THUE_PROTO_TEXT_MAX + 1];
    int err;
    room *r = quick_room_for(l, NULL, s, &err, why, sizeof why);
    if (r == NULL) {
        thue_log(THUE_LOG_WARN, "quick match: no room for %s and a bot (%s)", s->player.name,
                 thue_proto_err_name(err));
        queue_failed(l, s, err, why);
        return;
    }
    thue_log(THUE_LOG_INFO, "quick match: %s plays a bot in room %s", s->player.name, r->id);
    match_found(l, r, s, NULL);
}

int cmd_queue_join(request *rq)
{
    thue_client *c = rq->c;
    thue_lobby *l = c->lobby;
    session *s = c->s;
    const thue_cmd *cmd = rq->cmd;
    int busy = room_no_new_match(l, rq->message, sizeof rq->message);
    if (busy)
        return busy;
    if (cmd->u.queue_join.rated) {
        int err = rated_allowed(rq, s);
        if (err)
            return err;
    }
    thue_room_options opt;
    memset(&opt, 0, sizeof opt);
    opt.variant = cmd->u.queue_join.variant;
    opt.k = cmd->u.queue_join.k;
    opt.limit = cmd->u.queue_join.limit;
    opt.clock = cmd->u.queue_join.clock;
    opt.rated = cmd->u.queue_join.rated;
    opt.first = THUE_FIRST_RANDOM;
    const thue_gamedef *game;
    thue_gopt gopt;
    int gerr = room_game_options(rq, cmd->u.queue_join.has_game ? cmd->u.queue_join.game : NULL,
                                 cmd->u.queue_join.has_game_options ? cmd->u.queue_join.game_options
                                                                    : NULL,
                                 &opt, &game, &gopt);
    if (gerr)
        return gerr;
    /* A bot may take the other seat: its game must be small enough to search. */
    if (cmd->u.queue_join.bot_after_s > 0 &&
        lobby_search_allowed(l, game, &gopt, rq->message, sizeof rq->message) != 0) {
        snprintf(rq->field, sizeof rq->field, "game_options");
        return THUE_EOPTIONS;
    }
    if (s->queue_opt == NULL && (s->queue_opt = malloc(sizeof *s->queue_opt)) == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "the server is out of memory: join the queue again in a minute");
        return THUE_PERR_INTERNAL;
    }
    queue_remove(s);
    /* A server without room for a match says so now rather than queue the player for
     * nothing. */
    if (l->nrooms >= l->cfg.max_rooms) {
        snprintf(rq->message, sizeof rq->message,
                 "the server has as many rooms as it takes (%d): no room for a match; join the "
                 "queue again in a minute",
                 l->cfg.max_rooms);
        return THUE_PERR_BUSY;
    }
    /* Several nodes: Redis's pool pairs (cluster_queue), when it can. */
    if (nodes_up(l)) {
        *s->queue_opt = opt;
        queue_enter(l, s);
        /* `ok` once the ticket is in the pool (cluster_joined): a later join's ticket
         * comes after it there, so "who joined last" means the same to every client. */
        if (cluster_queue(l, s, &cmd->id) == 0) {
            if (cmd->u.queue_join.bot_after_s > 0)
                uv_timer_start(&s->queue_timer, queue_bot_due,
                               (uint64_t)cmd->u.queue_join.bot_after_s * 1000, 0);
            return LOBBY_LATER;
        }
        queue_leave(s);
    }
    /* The longest-waiting session of the same queue, if any. */
    session *other = longest_waiting(l, s, &opt);
    if (other != NULL) {
        /* The room counts against the address of the player whose request makes it; a
         * refusal leaves the waiting player in the queue. */
        int err = room_allowed(l, c->peer, rq->message, sizeof rq->message);
        if (err)
            return err;
        room *r = room_quick(l, other, s, &opt);
        if (r == NULL) {
            /* Neither can be paired now: both hear it, and nobody is left waiting. */
            snprintf(rq->message, sizeof rq->message,
                     "the server could not make the room for your match; join the queue "
                     "again");
            queue_remove(other);
            thue_log(THUE_LOG_WARN, "quick match: no room for %s and %s", other->player.name,
                     s->player.name);
            queue_failed(l, other, THUE_PERR_INTERNAL, rq->message);
            return THUE_PERR_INTERNAL;
        }
        queue_remove(other);
        request_ok(rq);
        thue_log(THUE_LOG_INFO, "quick match: %s and %s paired in room %s", other->player.name,
                 s->player.name, r->id);
        match_found(l, r, other, s);
        return 0;
    }
    *s->queue_opt = opt;
    queue_enter(l, s);
    if (cmd->u.queue_join.bot_after_s > 0)
        uv_timer_start(&s->queue_timer, queue_bot_due,
                       (uint64_t)cmd->u.queue_join.bot_after_s * 1000, 0);
    request_ok(rq);
    return 0;
}

int cmd_queue_leave(request *rq)
{
    queue_remove(rq->c->s);
    request_ok(rq);
    return 0;
}

/* ---- quick match across nodes ------------------------------------------------------------ */

/* A queue's name in Redis: the game, its canonical options, the clock and rated (what
 * same_queue compares); long ones by their SHA-256. */
static void pool_text(const thue_room_options *o, char *out, size_t size)
{
    char clock[48] = "-";
    if (o->clock.present)
        snprintf(clock, sizeof clock, "%lld+%lld", (long long)o->clock.initial_ms,
                 (long long)o->clock.increment_ms);
    char full[THUE_PROTO_GOPT_MAX + 200];
    if (o->has_game)
        snprintf(full, sizeof full, "%s|%s|%s|%d", o->game, o->game_options, clock, o->rated);
    else
        snprintf(full, sizeof full, "thue|%s|%d|%d|%s|%d",
                 o->variant == THUE_OVERLAP ? "overlap" : "square", o->k, o->limit, clock,
                 o->rated);
    if (strlen(full) < 200 && strlen(full) < size) {
        snprintf(out, size, "%s", full);
        return;
    }
    unsigned char h[32];
    thue_sha256(full, strlen(full), h);
    int n = snprintf(out, size, "%s|", o->has_game ? o->game : "thue");
    for (int i = 0; i < 16 && n + 2 < (int)size; i++, n += 2)
        snprintf(out + n, size - (size_t)n, "%02x", h[i]);
}

/* Sessions with a ticket are in the lobby's by_ticket table (a pairing finds its session
 * there, not by a walk over every session). */
static session **ticket_bucket(thue_lobby *l, const char *ticket)
{
    return &l->by_ticket[lobby_hash(ticket) % LOBBY_BUCKETS];
}

static session *session_by_ticket(thue_lobby *l, const char *ticket)
{
    if (ticket == NULL || ticket[0] == '\0')
        return NULL;
    for (session *s = *ticket_bucket(l, ticket); s; s = s->ticket_next)
        if (!s->ending && strcmp(s->ticket, ticket) == 0)
            return s;
    return NULL;
}

/* s has no ticket any more (out of the table). */
static void ticket_clear(thue_lobby *l, session *s)
{
    if (s->ticket[0] == '\0')
        return;
    session **pp = ticket_bucket(l, s->ticket);
    while (*pp != NULL && *pp != s)
        pp = &(*pp)->ticket_next;
    if (*pp != NULL)
        *pp = s->ticket_next;
    s->ticket_next = NULL;
    s->ticket[0] = '\0';
}

/* A new ticket for s (its old one, if any, dropped): 0, or -1 when the kernel's
 * generator failed (s has none then). */
static int ticket_new(thue_lobby *l, session *s)
{
    ticket_clear(l, s);
    s->ticket[0] = 'q';
    if (lobby_random_key(s->ticket + 1, LOBBY_ID_CHARS, LOBBY_ID_ALPHABET) != 0) {
        s->ticket[0] = '\0';
        return -1;
    }
    session **head = ticket_bucket(l, s->ticket);
    s->ticket_next = *head;
    *head = s;
    return 0;
}

typedef struct qjoin {
    thue_lobby *l;
    char ticket[sizeof(((session *)0)->ticket)];
} qjoin;

/* queue_join's `ok`, once its ticket is in the pool (or the session left the queue
 * first): sent once. */
static void join_ok(thue_lobby *l, session *s)
{
    if (!s->qreply)
        return;
    s->qreply = false;
    thue_msg ok;
    memset(&ok, 0, sizeof ok);
    ok.type = THUE_MSG_OK;
    ok.id = s->qreply_id;
    lobby_send_msg(l, s, &ok);
}

static qjoin *qjoin_new(thue_lobby *l, const session *s)
{
    qjoin *q = calloc(1, sizeof *q);
    if (q != NULL) {
        q->l = l;
        snprintf(q->ticket, sizeof q->ticket, "%s", s->ticket);
    }
    return q;
}

/* Redis could not take the ticket (it went down): the session waits in the local queue,
 * paired with a local one if one waits. */
static void local_fallback(thue_lobby *l, session *s)
{
    ticket_clear(l, s);
    s->qpaired = false;
    session *other = longest_waiting(l, s, s->queue_opt);
    if (other == NULL)
        return;
    char why[THUE_PROTO_TEXT_MAX + 1];
    int err;
    room *r = quick_room_for(l, other, s, &err, why, sizeof why);
    if (r == NULL) {
        queue_remove(s);
        queue_failed(l, s, err, why);
        return;
    }
    queue_remove(other);
    queue_remove(s);
    match_found(l, r, other, s);
}

/* Sends the other ticket back to its pool (its node re-joins it). */
static void requeue_other(thue_lobby *l, const thue_cluster_ticket *other)
{
    if (strcmp(other->node, nodes_self(l)) == 0) {
        session *o = session_by_ticket(l, other->id);
        if (o != NULL && o->queued) {
            o->qpaired = false;
            if (cluster_queue(l, o, NULL) != 0)
                local_fallback(l, o);
        }
        return;
    }
    json_t *ev = json_pack("{s:s, s:s}", "t", "requeue", "ticket", other->id);
    nodes_send(l, other->node, ev);
}

/* ---- "match" events until received ---------------------------------------------------- */

#define QUICK_MATCH_WAIT_MS 15000

struct match_note {
    uint64_t id;
    char node[THUE_CLUSTER_NODE_MAX];
    char *text;        /* the event */
    uint64_t expires;  /* uv_now: the seat's grace period is over */
    bool in_flight;    /* a send waits for Redis's answer */
    struct match_note *next;
};

typedef struct note_send {
    thue_lobby *l;
    uint64_t id;
} note_send;

static void note_free(thue_lobby *l, struct match_note *n)
{
    struct match_note **pp = &l->match_notes;
    while (*pp && *pp != n)
        pp = &(*pp)->next;
    if (*pp)
        *pp = n->next;
    free(n->text);
    free(n);
}

static struct match_note *note_find(thue_lobby *l, uint64_t id)
{
    for (struct match_note *n = l->match_notes; n; n = n->next)
        if (n->id == id)
            return n;
    return NULL;
}

static void note_sent(void *data, int status, long receivers)
{
    note_send *ns = data;
    thue_lobby *l = ns->l;
    struct match_note *n = note_find(l, ns->id);
    free(ns);
    if (n == NULL)
        return;
    n->in_flight = false;
    /* Taken by the node's subscriber: its part now. Else again at the next tick, until
     * the seat's grace period is over. */
    if ((status == 0 && receivers > 0) || uv_now(l->loop) >= n->expires) {
        if (status != 0 || receivers == 0)
            thue_log(THUE_LOG_WARN, "quick match: node %s never took its player's match", n->node);
        note_free(l, n);
    }
}

static void note_send_now(thue_lobby *l, struct match_note *n)
{
    note_send *ns = malloc(sizeof *ns);
    if (ns == NULL)
        return;
    ns->l = l;
    ns->id = n->id;
    if (!nodes_up(l) ||
        thue_cluster_send(l->cluster, n->node, n->text, strlen(n->text), note_sent, ns) != 0) {
        free(ns);
        return;
    }
    n->in_flight = true;
}

/* The other player's node is told its player's room and seat ("match"), until it hears. */
static void match_note_add(thue_lobby *l, const char *node, const char *ticket, const char *room_id,
                           const char *resume)
{
    json_t *ev = json_pack("{s:s, s:s, s:s, s:s}", "t", "match", "ticket", ticket, "room", room_id,
                           "resume", resume);
    struct match_note *n = calloc(1, sizeof *n);
    char *text = ev ? json_dumps(ev, JSON_COMPACT) : NULL;
    json_decref(ev);
    if (n == NULL || text == NULL) {
        free(n);
        free(text);
        thue_log(THUE_LOG_ERROR, "quick match: out of memory telling node %s of a match", node);
        return;
    }
    n->id = ++l->match_note_ids;
    snprintf(n->node, sizeof n->node, "%s", node);
    n->text = text;
    n->expires = uv_now(l->loop) + (uint64_t)(l->cfg.grace_s > 0 ? l->cfg.grace_s : 1) * 1000;
    n->next = l->match_notes;
    l->match_notes = n;
    note_send_now(l, n);
}

void quickmatch_tick(thue_lobby *l)
{
    uint64_t now = uv_now(l->loop);
    for (struct match_note *n = l->match_notes, *next; n; n = next) {
        next = n->next;
        if (n->in_flight)
            continue;
        if (now >= n->expires)
            note_free(l, n);
        else
            note_send_now(l, n);
    }
    /* A pair whose "match" never came (its node died before telling, or gave up): the
     * session waits in the pool again. */
    for (session *s = l->qhead, *next; s; s = next) {
        next = s->qnext;
        if (!s->qpaired || s->qwait_until == 0 || now < s->qwait_until)
            continue;
        thue_log(THUE_LOG_WARN, "quick match: %s was paired but its match never came: queued again",
                 s->player.name);
        s->qpaired = false;
        s->qwait_until = 0;
        if (cluster_queue(l, s, NULL) != 0)
            local_fallback(l, s);
    }
}

void quickmatch_free(thue_lobby *l)
{
    while (l->match_notes) {
        struct match_note *n = l->match_notes;
        l->match_notes = n->next;
        free(n->text);
        free(n);
    }
}

/* This node's join made a pair: the room is made here, the other player seated. */
static void pair_here(thue_lobby *l, session *s, const thue_cluster_ticket *other)
{
    char why[THUE_PROTO_TEXT_MAX + 1] = "";
    int err = room_allowed(l, s->client ? s->client->peer : NULL, why, sizeof why);
    if (err) {
        requeue_other(l, other);
        queue_remove(s);
        queue_failed(l, s, err, why);
        return;
    }
    bool local = strcmp(other->node, nodes_self(l)) == 0;
    session *o = NULL;
    if (local) {
        o = session_by_ticket(l, other->id);
        if (o == NULL || !o->queued) { /* it left meanwhile: this one waits again */
            if (cluster_queue(l, s, NULL) != 0)
                local_fallback(l, s);
            return;
        }
    } else {
        account *a = NULL;
        if (strncmp(other->player, "a:", 2) == 0) {
            a = account_by_name(l, other->name);
            if (a != NULL && a->id != strtoll(other->player + 2, NULL, 10))
                a = NULL;
        }
        o = l->session_ghost(l, other->name, a);
        if (o == NULL) {
            /* (s leaves the queue: joining again at once could pair the same two again) */
            thue_log(THUE_LOG_WARN,
                     "quick match: no session here for %s of node %s (its name is in use here)",
                     other->name, other->node);
            requeue_other(l, other);
            queue_remove(s);
            queue_failed(l, s, THUE_PERR_BUSY,
                         "your opponent could not be seated on this server (a player of the "
                         "same name is here); join the queue again");
            return;
        }
    }
    room *r = room_quick(l, o, s, s->queue_opt);
    if (r == NULL) {
        snprintf(why, sizeof why,
                 "the server could not make the room for your match; join the queue again");
        requeue_other(l, other);
        queue_remove(s);
        queue_failed(l, s, THUE_PERR_INTERNAL, why);
        return;
    }
    if (local)
        queue_remove(o);
    else
        match_note_add(l, other->node, other->id, r->id, o->resume);
    ticket_clear(l, s);
    queue_remove(s);
    thue_log(THUE_LOG_INFO, "quick match: %s (node %s) and %s paired in room %s", o->player.name,
             other->node, s->player.name, r->id);
    match_found(l, r, o, s);
}

static void cluster_joined(void *data, int status, const thue_cluster_pair *pair)
{
    qjoin *q = data;
    thue_lobby *l = q->l;
    session *s = session_by_ticket(l, q->ticket);
    if (s != NULL)
        join_ok(l, s); /* before anything the join brings */
    free(q);
    if (status != 0) {
        if (s != NULL && s->queued) {
            thue_log(THUE_LOG_WARN,
                     "quick match: Redis did not take %s's ticket (%d): pairing here",
                     s->player.name, status);
            local_fallback(l, s);
        }
        return;
    }
    if (pair == NULL)
        return; /* it waits in Redis's pool */
    if (s == NULL || !s->queued) {
        requeue_other(l, &pair->other);
        return;
    }
    pair_here(l, s, &pair->other);
}

/* Puts a queued session's ticket into Redis's pool (a new ticket id each time); id: the
 * queue_join whose `ok` waits for it (cluster_joined sends it), or NULL. 0, or -1 when the
 * cluster cannot take it now. */
static int cluster_queue(thue_lobby *l, session *s, const thue_msg_id *id)
{
    if (!nodes_up(l))
        return -1;
    if (ticket_new(l, s) != 0)
        return -1;
    s->qpaired = false;
    s->qwait_until = 0;
    pool_text(s->queue_opt, s->qpool, sizeof s->qpool);
    thue_cluster_ticket t;
    memset(&t, 0, sizeof t);
    snprintf(t.id, sizeof t.id, "%s", s->ticket);
    if (s->acct != NULL)
        snprintf(t.player, sizeof t.player, "a:%lld", (long long)s->acct->id);
    else
        snprintf(t.player, sizeof t.player, "g:%s:%s", nodes_self(l), s->key);
    snprintf(t.name, sizeof t.name, "%s", s->player.name);
    t.rating = 1500;
    qjoin *q = qjoin_new(l, s);
    if (q == NULL || thue_cluster_queue_join(l->cluster, s->qpool, &t, -1, QUICK_TICKET_TTL_MS,
                                             cluster_joined, q) != 0) {
        free(q);
        ticket_clear(l, s);
        return -1;
    }
    if (id != NULL) {
        s->qreply = true;
        s->qreply_id = *id;
    }
    return 0;
}

static void cancelled(void *data, int status, bool removed)
{
    (void)data;
    (void)status;
    (void)removed;
}

/* A session leaves the queue: its ticket leaves Redis's pool (if another node took it
 * meanwhile, that node's "match" finds no ticket here, and its seat is abandoned). */
static void cluster_cancel(session *s)
{
    thue_lobby *l = s->lobby;
    join_ok(l, s); /* (a queue_join whose ticket Redis has not answered yet) */
    if (s->ticket[0] != '\0' && !s->qpaired && l->cluster != NULL)
        (void)thue_cluster_queue_cancel(l->cluster, s->qpool, s->ticket, cancelled, NULL);
    ticket_clear(l, s);
    s->qpaired = false;
}

static void bot_cancelled(void *data, int status, bool removed)
{
    qjoin *q = data;
    thue_lobby *l = q->l;
    session *s = session_by_ticket(l, q->ticket);
    free(q);
    if (s == NULL || !s->queued || s->qpaired)
        return;
    if (status == 0 && !removed)
        return; /* taken by a join: its node's "match" comes */
    ticket_clear(l, s);
    bot_match(l, s);
}

static void ticket_cancel_for_bot(session *s)
{
    thue_lobby *l = s->lobby;
    qjoin *q = s->qpaired ? NULL : qjoin_new(l, s);
    if (q == NULL || l->cluster == NULL ||
        thue_cluster_queue_cancel(l->cluster, s->qpool, s->ticket, bot_cancelled, q) != 0) {
        free(q);
        if (!s->qpaired) {
            ticket_clear(l, s);
            bot_match(l, s);
        }
    }
}

void quickmatch_paired(thue_lobby *l, const thue_cluster_pair *pair)
{
    if (strcmp(pair->other.node, nodes_self(l)) == 0)
        return; /* this node's join made it: cluster_joined handles it */
    session *s = session_by_ticket(l, pair->mine.id);
    if (s == NULL || !s->queued) {
        requeue_other(l, &pair->other);
        return;
    }
    s->qpaired = true;
    s->qwait_until = uv_now(l->loop) + QUICK_MATCH_WAIT_MS;
    uv_timer_stop(&s->queue_timer);
}

void quickmatch_event(thue_lobby *l, const char *from, json_t *ev)
{
    const char *t = json_string_value(json_object_get(ev, "t"));
    const char *ticket = json_string_value(json_object_get(ev, "ticket"));
    session *s = session_by_ticket(l, ticket);
    if (t == NULL || s == NULL)
        return;
    if (strcmp(t, "match") == 0) {
        const char *room_id = json_string_value(json_object_get(ev, "room"));
        const char *resume = json_string_value(json_object_get(ev, "resume"));
        if (room_id == NULL || resume == NULL)
            return;
        s->qpaired = true; /* no cancel: the ticket is spent */
        s->qwait_until = 0;
        queue_remove(s);
        thue_log(THUE_LOG_INFO, "quick match: %s moves to node %s for room %s", s->player.name,
                 from, room_id);
        if (s->client != NULL) {
            s->moved_away = true;
            nodes_send_moved(l, s->client, NULL, "match", from, room_id, resume);
        }
    } else if (strcmp(t, "requeue") == 0 && s->queued) {
        s->qpaired = false;
        s->qwait_until = 0;
        if (cluster_queue(l, s, NULL) != 0)
            local_fallback(l, s);
    }
}

/* A waiting ticket taken out of the pool after Redis came back. The pairs kept for this
 * node while its link was down were asked for first on the same connection (cluster.c's
 * report_state), so they have been delivered by now: a ticket paired meanwhile is
 * qpaired, and its "match" is awaited (quickmatch_tick queues it again if it never
 * comes). Any other ticket (still in the pool, or lost with an emptied Redis) goes back
 * into the pool. */
static void back_cancelled(void *data, int status, bool removed)
{
    qjoin *q = data;
    thue_lobby *l = q->l;
    session *s = session_by_ticket(l, q->ticket);
    free(q);
    (void)status;
    (void)removed;
    if (s == NULL || !s->queued)
        return;
    if (s->qpaired) {
        thue_log(THUE_LOG_INFO, "quick match: %s was paired while Redis was away: its match is "
                 "awaited", s->player.name);
        return;
    }
    ticket_clear(l, s);
    if (cluster_queue(l, s, NULL) != 0)
        local_fallback(l, s);
}

void quickmatch_cluster_up(thue_lobby *l)
{
    for (session *s = l->sessions; s; s = s->next)
        if (s->queued && !s->ending && s->ticket[0] != '\0' && !s->qpaired) {
            qjoin *q = qjoin_new(l, s);
            if (q == NULL || thue_cluster_queue_cancel(l->cluster, s->qpool, s->ticket,
                                                       back_cancelled, q) != 0) {
                free(q);
                cluster_cancel(s);
                if (cluster_queue(l, s, NULL) != 0)
                    local_fallback(l, s);
            }
        }
}
