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
 */
#include "quickmatch.h"
#include "room.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

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

void queue_remove(session *s)
{
    if (!s->queued)
        return;
    s->queued = false;
    uv_timer_stop(&s->queue_timer);
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

static void queue_bot_due(uv_timer_t *t)
{
    session *s = t->data;
    thue_lobby *l = s->lobby;
    if (!s->queued)
        return;
    s->queued = false;
    /* The room is made for this player: it counts against the player's address. */
    char why[THUE_PROTO_TEXT_MAX + 1];
    int err = room_allowed(l, s->client ? s->client->peer : NULL, why, sizeof why);
    room *r = err ? NULL : room_quick(l, s, NULL, &s->queue_opt);
    if (r == NULL) {
        if (err == 0) {
            err = THUE_PERR_INTERNAL;
            snprintf(why, sizeof why,
                     "the server could not make the room for your match "
                     "with a bot; join the queue again");
        }
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
    /* The longest-waiting session of the same queue, if any. */
    session *other = NULL;
    for (session *o = l->sessions; o; o = o->next)
        if (o != s && o->queued && !o->ending && same_queue(&o->queue_opt, &opt) &&
            (other == NULL || o->queue_seq < other->queue_seq))
            other = o;
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
    s->queued = true;
    s->queue_opt = opt;
    s->queue_seq = ++l->queue_seq;
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
