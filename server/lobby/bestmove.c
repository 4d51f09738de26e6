/*
 * bestmove.c: the get_best_move command (bestmove.h, PROTOCOL.md section 16, "get_best_move").
 *
 * One request, one search, one answer: the position is read and checked on the loop
 * thread (the game's position_parse, as analyze reads it), the search is one job on the
 * worker pool (the perfect bot: gbot.h's for every game but Thue, the Thue bot's perfect
 * of bot.h for Thue, whose value is the painter's further points in the round), and its
 * result comes back to the loop as the best_move reply. The loop thread never searches.
 *
 * Bounds: every job's owner is the session's (the pool's fair share, as its bots'); it
 * ends within LOBBY_BEST_MOVE_MS of wall time from its submission (then the perfect bot
 * answers what it has: the game's fallback move, or for Thue the best move found so far,
 * marked exact false); a connection has one search out at a time, an address
 * LOBBY_BEST_MOVE_PER_IP and the server LOBBY_BEST_MOVE_MAX. A connection that goes
 * cancels its search (the pool then never calls back, so the callback's data, the
 * connection, is never used after it is freed).
 */
#include "bestmove.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/thue/thue.h"
#include "log.h"
#include "room.h"
#include "roomstate.h"
#include "search/gbot.h"
#include "util.h"

/* The search is over: the connection's, the address's and the server's counts. */
static void uncount(thue_client *c)
{
    thue_lobby *l = c->lobby;
    c->best_job = 0;
    c->best_data = NULL;
    l->nbest--;
    thue_counts_add(l->best_ip, c->best_ip, -1);
}

/* Sends the reply: move NULL when the position is over; has_value / has_points say
 * whether value / points are given. */
static void reply(thue_client *c, const thue_msg_id *id, const thue_gamedef *g,
                  const thue_gopt *opt, int to_move, const thue_gmove *move, int exact,
                  int has_value, int value, int has_points, int points, uint64_t nodes, double ms)
{
    thue_msg *m = calloc(1, sizeof *m);
    if (m == NULL)
        return;
    m->type = THUE_MSG_BEST_MOVE;
    m->id = *id;
    snprintf(m->u.best_move.game, sizeof m->u.best_move.game, "%s", g->name);
    m->u.best_move.to_move = to_move;
    if (move != NULL) {
        room_json_into(g->move_json(opt, move), m->u.best_move.move, sizeof m->u.best_move.move);
        m->u.best_move.has_move = m->u.best_move.move[0] == '{';
    }
    m->u.best_move.exact = exact;
    m->u.best_move.has_value = has_value;
    m->u.best_move.value = value;
    m->u.best_move.has_points = has_points;
    m->u.best_move.points = points;
    m->u.best_move.nodes =
        (int64_t)(nodes > (uint64_t)9007199254740991ull ? 9007199254740991ull : nodes);
    m->u.best_move.ms = ms >= 0 ? ms : 0;
    lobby_send_client_msg(c->lobby, c, m);
    free(m);
}

/* What a finished job needs to answer (the request's id is the connection's best_id). */
typedef struct best_job {
    thue_client *c;
    const thue_gamedef *g;
    thue_gopt opt;
    int to_move;
    int paint; /* Thue: the painter is to move (the move is a symbol, else a position) */
} best_job;

static void game_done(const thue_game_job_result *res, void *data)
{
    best_job *j = data;
    thue_client *c = j->c;
    uncount(c);
    if (res->err != 0) {
        thue_log(THUE_LOG_WARN, "best_move of %s failed: %s", j->g->name, thue_strerror(res->err));
        lobby_send_error(c->lobby, c, &c->best_id,
                         res->err == THUE_ENOMEM ? THUE_PERR_BUSY : THUE_PERR_INTERNAL, NULL,
                         res->err == THUE_ENOMEM
                             ? "the memory this server gives searches is taken; try again later"
                             : NULL);
        free(j);
        return;
    }
    int exact = res->bot.exact && res->bot.value >= -1 && res->bot.value <= 1;
    reply(c, &c->best_id, j->g, &j->opt, j->to_move, &res->bot.move, exact, exact,
          exact ? res->bot.value : 0, 0, 0, res->bot.nodes, res->bot.ms);
    free(j);
}

static void thue_done(const thue_job_result *res, void *data)
{
    best_job *j = data;
    thue_client *c = j->c;
    uncount(c);
    if (res->err != 0) {
        thue_log(THUE_LOG_WARN, "best_move of thue failed: %s", thue_strerror(res->err));
        lobby_send_error(c->lobby, c, &c->best_id, THUE_PERR_INTERNAL, NULL, NULL);
        free(j);
        return;
    }
    /* Thue's moves in the game table: {"place":I} is v = {0, I}, {"paint":C} v = {1, C}. */
    thue_gmove mv;
    memset(&mv, 0, sizeof mv);
    mv.v[0] = j->paint;
    mv.v[1] = res->bot.move;
    int exact = res->bot.exact != 0;
    reply(c, &c->best_id, j->g, &j->opt, j->to_move, &mv, exact, 0, 0, res->bot.value >= 0,
          res->bot.value >= 0 ? res->bot.value : 0, res->bot.nodes, res->bot.ms);
    free(j);
}

void best_move_client_gone(thue_client *c)
{
    if (c->best_job == 0)
        return;
    /* The callback will never run, so its data is freed here. */
    thue_pool_cancel(c->lobby->pool, c->best_job);
    free(c->best_data);
    uncount(c);
}

/* Sets the request's field and sentence (printf-style) and gives the code. */
#define FAIL(rq, code, fld, ...)                                                                   \
    (snprintf((rq)->field, sizeof(rq)->field, "%s", (fld)),                                        \
     snprintf((rq)->message, sizeof(rq)->message, __VA_ARGS__), (code))

int cmd_best_move(request *rq)
{
    thue_client *c = rq->c;
    thue_lobby *l = c->lobby;
    session *s = c->s;
    const __typeof__(rq->cmd->u.best_move) *q = &rq->cmd->u.best_move;
    const thue_gamedef *g = thue_game_find(q->game);
    if (g == NULL)
        return FAIL(rq, THUE_EGAME, "game", "there is no game \"%s\"", q->game);
    if (!thue_gbot_has_perfect(g))
        return FAIL(rq, THUE_PERR_NOT_AVAILABLE, "game", "%s has no perfect bot", g->name);
    thue_gopt opt;
    thue_gerr e;
    memset(&e, 0, sizeof e);
    if (thue_game_options_text(g, q->has_game_options ? q->game_options : NULL, &opt, &e) != 0)
        return request_gerr(rq, "game_options", &e);
    if (lobby_search_allowed(l, g, &opt, rq->message, sizeof rq->message) != 0) {
        snprintf(rq->field, sizeof rq->field, "game_options");
        return THUE_EOPTIONS;
    }
    unsigned char *st;
    int perr = request_position(rq, g, &opt, q->has_position ? q->position : NULL, &st);
    if (perr != 0)
        return perr;
    /* A position that is over is answered at once: no move. */
    thue_gresult res;
    g->result(&opt, st, &res);
    if (res.over) {
        reply(c, &rq->cmd->id, g, &opt, -1, NULL, 1, 0, 0, 0, 0, 0, 0);
        free(st);
        return 0;
    }
    /* The limits: one search per connection, a few per address, some in all. */
    char owner[THUE_LIMIT_KEY_MAX], ip[THUE_LIMIT_KEY_MAX];
    lobby_owner_of(s, c->peer, owner, sizeof owner);
    lobby_ip_of(s, c->peer, ip, sizeof ip);
    if (c->best_job != 0) {
        free(st);
        return FAIL(rq, THUE_PERR_RATE, "",
                    "one get_best_move at a time: wait for the answer to the last one");
    }
    if (thue_counts_get(l->best_ip, ip) >= LOBBY_BEST_MOVE_PER_IP) {
        free(st);
        return FAIL(rq, THUE_PERR_RATE, "",
                    "one address may have %d get_best_move searches out at once: wait for an "
                    "answer",
                    LOBBY_BEST_MOVE_PER_IP);
    }
    if (l->nbest >= LOBBY_BEST_MOVE_MAX) {
        free(st);
        return FAIL(rq, THUE_PERR_BUSY, "",
                    "the server runs %d get_best_move searches, its most; try again later",
                    l->nbest);
    }
    best_job *j = calloc(1, sizeof *j);
    if (j == NULL) {
        free(st);
        return THUE_PERR_INTERNAL;
    }
    j->c = c;
    j->g = g;
    j->opt = opt;
    j->to_move = g->to_move(&opt, st);
    uint64_t id = 0;
    int err;
    if (strcmp(g->name, "thue") == 0) {
        /* Thue: the round's perfect bot (bot.h), whose value is the painter's further
         * points, for the role to move. */
        thue_thue_view v;
        thue_game_thue_view(&opt, st, &v);
        j->paint = v.step == THUE_STEP_PAINT;
        thue_job_request req;
        memset(&req, 0, sizeof req);
        req.spec = thue_bot_spec_default(THUE_BOT_PERFECT);
        req.pos.variant = v.variant;
        req.pos.k = v.k;
        req.pos.sym = v.word;
        req.pos.n = v.len;
        req.pos.role = j->paint ? THUE_ROLE_PAINTER : THUE_ROLE_BUILDER;
        req.pos.index = j->paint ? v.placed : 0;
        req.pos.remaining = v.limit - v.rounds[v.round].points;
        req.seed = 0;
        req.think_ms = LOBBY_BEST_MOVE_MS;
        req.parts = 1;
        req.owner = owner;
        req.cb = thue_done;
        req.data = j;
        err = thue_pool_submit(l->pool, &req, &id);
    } else {
        thue_game_job_request req;
        memset(&req, 0, sizeof req);
        req.game = g;
        req.opt = opt;
        req.state = st;
        req.spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
        req.spec.legal_if_undecided = 1; /* undecided: the fallback move, exact false */
        req.seed = 0;
        req.think_ms = LOBBY_BEST_MOVE_MS;
        req.owner = owner;
        req.cb = game_done;
        req.data = j;
        err = thue_pool_submit_game(l->pool, &req, &id);
    }
    free(st);
    if (err != 0) {
        free(j);
        snprintf(rq->message, sizeof rq->message, "the search could not start (%s)",
                 thue_strerror(err));
        return err == THUE_ENOMEM || err == THUE_EOVER ? THUE_PERR_BUSY : THUE_PERR_INTERNAL;
    }
    c->best_job = id;
    c->best_data = j;
    c->best_id = rq->cmd->id;
    snprintf(c->best_ip, sizeof c->best_ip, "%s", ip);
    l->nbest++;
    thue_counts_add(l->best_ip, ip, 1);
    return 0;
}
