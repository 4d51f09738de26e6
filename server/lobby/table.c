/*
 * table.c: the table that runs a room's match (table.h): the match's start, whose turn it
 * is, the clocks, every move, the bots, and the end (PROTOCOL.md sections 5 and 6).
 *
 * Every move, a person's or a bot's, in every room, goes through one function,
 * table_apply_gmove, and so the game's table (server/games/game.h; Thue's is
 * games/thue/thue.c, whose place and paint table_apply_move wraps). A rejected move
 * answers with the game's code and changes nothing. After every change the room's
 * version grows and its full state goes to everyone in it (the room's `changed` hook,
 * room.c's room_changed); a match's end is followed by match_end, which match_recorded
 * sends once record.c has stored the record, and then a tournament room's `game_over`
 * hook (tournament.c's) hears of the result.
 *
 * Clocks: the seat to move has its clock running from the moment the previous move was
 * accepted (turn_start_ns); an accepted move charges the time taken, then adds the
 * increment. A timer armed for the running clock's remaining time makes the flag fall
 * even when nobody sends anything; a move that arrives after the time ran out, before the
 * timer fired, is refused the same way.
 *
 * Bots: when a bot's seat is to move, a job with a copy of the position goes to the pool,
 * with the bot's think time and, under a clock, a deadline a little before its flag
 * falls. The result comes back on the loop thread (bot_done, gbot_done) and is applied
 * like a person's move. A room that ends, or a match that ends, cancels its job.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "log.h"
#include "record.h"
#include "table.h"
#include "util.h"

/* ---- matches ------------------------------------------------------------------------------ */

static void start_turn(room *r);
static void finish(room *r);
static void gfinish(room *r);

/* A fresh state from the game's start; `first` is the seat that is player 0. */
static int gmatch_init(room *r, int first, uint64_t seed)
{
    if (r->gstate == NULL) {
        size_t size = r->game->state_size(&r->gopt);
        unsigned char *st = malloc(size), *start = malloc(size);
        if (st == NULL || start == NULL) {
            free(st);
            free(start);
            return THUE_ENOMEM;
        }
        r->gsize = size;
        r->gstate = st;
        r->gstart = start;
    }
    r->game->start(&r->gopt, seed, r->gstate);
    memcpy(r->gstart, r->gstate, r->gsize);
    r->gfirst = first;
    r->gover = false;
    r->gwinner = -1;
    r->greason = THUE_END_NONE;
    r->gwhy[0] = '\0';
    r->glast[0] = '\0';
    return 0;
}

/* After the start or a move: false, with the match's end set, when the rules ended it. */
static bool match_goes_on(room *r)
{
    thue_gresult res;
    r->game->result(&r->gopt, r->gstate, &res);
    if (!res.over)
        return true;
    r->gover = true;
    r->gwinner = res.winner < 0 ? -1 : r->gfirst ^ res.winner;
    r->greason = THUE_END_SCORE;
    snprintf(r->gwhy, sizeof r->gwhy, "%s", res.why);
    return false;
}

/* Starts match number+1 with `builder` building round 0 (another game: moving first):
 * the game's start position (a seeded one where its options ask for it), fresh clocks. */
int table_match_start(room *r, int builder)
{
    thue_lobby *l = r->lobby;
    uint64_t seed = lobby_random(l);
    int err = gmatch_init(r, builder, seed);
    if (err)
        return err;
    r->has_match = true;
    r->number++;
    r->first_builder = builder;
    for (int i = 0; i < 2; i++) {
        r->clock_ns[i] = r->opt.clock.initial_ms * 1000000;
        r->seats[i].rematch = r->seats[i].bot; /* bots always agree */
    }
    memset(&r->last_move, 0, sizeof r->last_move);
    table_free_moves(r);
    r->plies[0] = r->plies[1] = 0;
    r->started_ms = lobby_now_ms();
    r->game_seed = seed;
    r->status = THUE_STATUS_PLAYING;
    l->metrics->matches_started++;
    thue_log(THUE_LOG_INFO, "room %s: %s match %d started", r->id, r->game->name, r->number);
    /* A start position may already be over (a random Northcott board where the first
     * player has no move): the match ends at once, by the rules. */
    if (!match_goes_on(r)) {
        finish(r);
        return 0;
    }
    start_turn(r);
    return 0;
}

/* Starts a match when both seats are filled and agree: ready before the first match (or
 * nothing, in a room with auto_start), rematch after one. */
void table_maybe_start(room *r)
{
    /* A draining server starts no new match (thue_lobby_drain). */
    if (!room_seat_taken(&r->seats[0]) || !room_seat_taken(&r->seats[1]) || room_match_running(r) ||
        r->lobby->draining)
        return;
    int builder;
    if (r->status == THUE_STATUS_WAITING) {
        if (!r->opt.auto_start && (!r->seats[0].ready || !r->seats[1].ready))
            return;
        int creator_seat = r->creator ? room_seat_of(r, r->creator) : -1;
        if (creator_seat < 0)
            creator_seat = 0;
        switch (r->opt.first) {
        case THUE_FIRST_CREATOR:
            builder = creator_seat;
            break;
        case THUE_FIRST_OPPONENT:
            builder = 1 - creator_seat;
            break;
        default:
            builder = (int)(lobby_random(r->lobby) & 1);
        }
    } else {
        if (!r->seats[0].rematch || !r->seats[1].rematch)
            return;
        builder = 1 - r->first_builder;
    }
    int err = table_match_start(r, builder);
    if (err)
        thue_log(THUE_LOG_ERROR, "room %s: cannot start a match: %s", r->id, thue_strerror(err));
}

static void clock_due(uv_timer_t *t);

/* The step after a move (or the match's start): the clock of the seat to move runs, and a
 * bot to move starts thinking. */
static void start_turn(room *r)
{
    r->turn_start_ns = uv_hrtime();
    int to_move = room_seat_to_move(r);
    if (to_move < 0)
        return;
    if (r->opt.clock.present) {
        r->clock_running = to_move;
        uv_timer_start(&r->clock_timer, clock_due, (uint64_t)(r->clock_ns[to_move] / 1000000 + 1),
                       0);
    }
    if (r->seats[to_move].bot && !room_is_empty(r))
        table_submit_bot(r, to_move);
}

/* record.c's callback once a match's record is committed: match_end to everyone in the
 * room (if it still exists), then a tournament hears of its game's result, after the
 * players have heard of it. */
static void match_recorded(thue_lobby *l, const char *room_id, const char *text)
{
    room *r = room_find(l, room_id);
    if (r == NULL || r->ending)
        return;
    if (text != NULL)
        room_broadcast_text(r, text);
    if (r->tournament[0] && r->game_over != NULL)
        r->game_over(r);
}

/* Ends the match's bookkeeping once it is over (the rules or a forfeit): timers, jobs,
 * then the state and match_end for everyone. */
static void finish(room *r)
{
    thue_lobby *l = r->lobby;
    uv_timer_stop(&r->clock_timer);
    if (r->clock_running >= 0) {
        int64_t left = room_clock_left(r, r->clock_running);
        r->clock_ns[r->clock_running] = left > 0 ? left : 0;
    }
    r->clock_running = -1;
    room_cancel_job(r);
    if (r->opt.has_game) {
        gfinish(r);
        return;
    }
    r->status = THUE_STATUS_FINISHED;
    l->metrics->matches_finished++;
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_MATCH_END;
    __typeof__(msg.u.match_end) *me = &msg.u.match_end;
    snprintf(me->room, sizeof me->room, "%s", r->id);
    me->number = r->number;
    me->winner = r->gwinner;
    me->reason = r->greason;
    thue_thue_view v;
    thue_game_thue_view(&r->gopt, r->gstate, &v);
    for (int i = 0; i < 2; i++) {
        room_player_of(&r->seats[i], &me->players[i]);
        me->points[r->gfirst ^ i] = v.rounds[1 - i].points; /* player p paints round 1-p */
        room_round_info(r, &v, i, &me->rounds[i]);
    }
    thue_log(THUE_LOG_INFO, "room %s: match %d over (%s, winner %d, %d-%d)", r->id, r->number,
             thue_end_reason_name(r->greason), r->gwinner, me->points[0], me->points[1]);
    r->changed(r); /* room.c's room_changed */
    record_match(r, &msg, match_recorded);
}

/* The end of another game's match: the state and match_end for everyone. */
static void gfinish(room *r)
{
    thue_lobby *l = r->lobby;
    r->status = THUE_STATUS_FINISHED;
    l->metrics->matches_finished++;
    thue_log(THUE_LOG_INFO, "room %s: %s match %d over (%s, winner %d)", r->id, r->game->name,
             r->number, r->gwhy, r->gwinner);
    r->changed(r); /* room.c's room_changed */
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_MATCH_END;
    __typeof__(msg.u.match_end) *me = &msg.u.match_end;
    snprintf(me->room, sizeof me->room, "%s", r->id);
    me->number = r->number;
    me->winner = r->gwinner;
    me->has_game = 1;
    snprintf(me->game, sizeof me->game, "%s", r->game->name);
    snprintf(me->why, sizeof me->why, "%s", r->gwhy);
    thue_gresult res;
    r->game->result(&r->gopt, r->gstate, &res);
    for (int i = 0; i < 2; i++)
        room_player_of(&r->seats[i], &me->players[i]);
    for (int p = 0; p < 2; p++)
        me->points[r->gfirst ^ p] = res.score[p];
    room_json_into(r->game->state_json(&r->gopt, r->gstate), me->state, sizeof me->state);
    record_match(r, &msg, match_recorded);
}

void table_forfeit(room *r, int seat, thue_end_reason why)
{
    if (!room_match_running(r))
        return;
    if (r->clock_running >= 0) {
        int64_t left = room_clock_left(r, r->clock_running);
        r->clock_ns[r->clock_running] = left > 0 ? left : 0;
        r->turn_start_ns = uv_hrtime();
    }
    if (why == THUE_END_TIMEOUT)
        r->clock_ns[seat] = 0;
    r->gover = true;
    r->gwinner = 1 - seat;
    r->greason = why;
    snprintf(r->gwhy, sizeof r->gwhy, "%s", thue_end_reason_name(why));
    finish(r);
}

static void clock_due(uv_timer_t *t)
{
    room *r = t->data;
    if (!room_match_running(r) || r->clock_running < 0)
        return;
    int64_t left = room_clock_left(r, r->clock_running);
    if (left > 0) {
        uv_timer_start(&r->clock_timer, clock_due, (uint64_t)(left / 1000000) + 1, 0);
        return;
    }
    thue_log(THUE_LOG_INFO, "room %s: seat %d ran out of time", r->id, r->clock_running);
    table_forfeit(r, r->clock_running, THUE_END_TIMEOUT);
}

void table_free_moves(room *r)
{
    for (int i = 0; i < r->nmoves; i++)
        free(r->moves[i].gmove);
    r->nmoves = 0;
}

/* Appends a move to the match's record: its row (gmove NULL), or NULL when it cannot be
 * logged for lack of memory (it is left out of the record, and logged). */
static thue_move_row *log_move(room *r, int round, int seat, bool paint, int value,
                               double think_ms)
{
    if (r->nmoves == r->capmoves) {
        int cap = r->capmoves ? 2 * r->capmoves : 64;
        thue_move_row *grown = realloc(r->moves, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            thue_log(THUE_LOG_ERROR, "room %s: out of memory recording a move", r->id);
            return NULL;
        }
        r->moves = grown;
        r->capmoves = cap;
    }
    thue_move_row *mv = &r->moves[r->nmoves++];
    mv->round = round;
    mv->ply = r->plies[round]++;
    mv->seat = seat;
    mv->is_paint = paint;
    mv->value = value;
    mv->think_ms = think_ms;
    mv->gmove = NULL;
    return mv;
}

/*
 * Seat `seat` plays m: the one path of every move, a person's or a bot's, in every room.
 * 0, or the game's code with e filled (nothing changed then). On success the caller
 * replies, then calls table_after_move.
 */
int table_apply_gmove(room *r, int seat, const thue_gmove *m, thue_gerr *e)
{
    thue_lobby *l = r->lobby;
    if (!room_match_running(r))
        return thue_gerr_set(e, THUE_EOVER, "", "the match is over");
    if (r->opt.clock.present && r->clock_running == seat && room_clock_left(r, seat) <= 0) {
        table_forfeit(r, seat, THUE_END_TIMEOUT);
        return thue_gerr_set(e, THUE_EOVER, "", "your time ran out");
    }
    int round = 0;
    if (!r->opt.has_game) {
        thue_thue_view v;
        thue_game_thue_view(&r->gopt, r->gstate, &v);
        round = v.round;
    }
    uint64_t t0 = uv_hrtime();
    int err = r->game->apply(&r->gopt, r->gstate, seat ^ r->gfirst, m, e);
    thue_histogram_observe(&l->metrics->move_validation, (double)(uv_hrtime() - t0) * 1e-9);
    if (err)
        return err;
    l->metrics->moves++;
    uint64_t took = room_elapsed_ns(r);
    if (r->opt.clock.present) {
        r->clock_ns[seat] -= (int64_t)took;
        r->clock_ns[seat] += r->opt.clock.increment_ms * 1000000;
    }
    r->last_move.present = 1;
    r->last_move.seat = seat;
    /* In ms to the microsecond: enough, and the codec writes such numbers quickly. */
    double think_ms = (double)((took + 500) / 1000) / 1000.0;
    r->last_move.think_ms = think_ms;
    r->last_move_round = round;
    if (!r->opt.has_game) {
        /* Thue's messages and record speak of place and paint (games/thue/thue.c's v[0]
         * 0 and 1) and of rounds. */
        r->last_move.is_paint = m->v[0] == 1;
        r->last_move.value = m->v[1];
        log_move(r, round, seat, m->v[0] == 1, m->v[1], think_ms);
    } else {
        room_json_into(r->game->move_json(&r->gopt, m), r->glast, sizeof r->glast);
        thue_move_row *mv = log_move(r, 0, seat, false, 0, think_ms);
        if (mv != NULL && (mv->gmove = strdup(r->glast)) == NULL)
            thue_log(THUE_LOG_ERROR, "room %s: out of memory recording a move's text", r->id);
    }
    match_goes_on(r);
    return 0;
}

/* Seat `seat` places at or paints `value` in a Thue room: 0 or the engine's code. */
int table_apply_move(room *r, int seat, bool paint, int value)
{
    thue_gmove m = {{paint ? 1 : 0, value, 0, 0}};
    thue_gerr e;
    return table_apply_gmove(r, seat, &m, &e);
}

/* After an accepted move: the next turn or the end, and the new state for everyone. */
void table_after_move(room *r)
{
    r->just_moved = true; /* the change is this move: room_changed's played event */
    if (!room_match_running(r)) {
        finish(r);
        return;
    }
    start_turn(r);
    r->changed(r); /* room.c's room_changed */
}

/* ---- bots ---------------------------------------------------------------------------- */

/* A bot's job came back: the seat that was thinking, or -1 when its move no longer
 * matters (the match ended meanwhile). The job is the room's no more. */
static int job_back(room *r, double queue_ms)
{
    int seat = r->thinking;
    r->job = 0;
    r->thinking = -1;
    if (seat < 0 || !room_match_running(r))
        return -1;
    thue_histogram_observe(&r->lobby->metrics->pool_queue_wait, queue_ms / 1000.0);
    return seat;
}

/* The bot's search failed (err), or its move was refused (err, why): it forfeits. */
static void bot_forfeits(room *r, int seat, const char *what, const char *why)
{
    thue_log(THUE_LOG_ERROR, "room %s: bot %s %s (%s); it forfeits", r->id,
             r->seats[seat].bot_spec_text, what, why);
    table_forfeit(r, seat, THUE_END_ABANDON);
}

/* After a bot's move was applied (err its code): the next turn, or the forfeit. */
static void bot_moved(room *r, int seat, int err, const char *why)
{
    if (err == THUE_EOVER && !room_match_running(r))
        return; /* its flag fell first */
    if (err) {
        bot_forfeits(r, seat, "made an illegal move", why);
        return;
    }
    table_after_move(r);
}

static void bot_done(const thue_job_result *res, void *data)
{
    room *r = data;
    int seat = job_back(r, res->queue_ms);
    if (seat < 0)
        return;
    if (res->err) {
        bot_forfeits(r, seat, "failed", thue_strerror(res->err));
        return;
    }
    thue_histogram_observe(&r->lobby->metrics->bot_think, res->bot.ms / 1000.0);
    thue_thue_view v;
    thue_game_thue_view(&r->gopt, r->gstate, &v);
    int err = table_apply_move(r, seat, v.step == THUE_STEP_PAINT, res->bot.move);
    bot_moved(r, seat, err, thue_strerror(err));
}

static void gbot_done(const thue_game_job_result *res, void *data)
{
    room *r = data;
    int seat = job_back(r, res->queue_ms);
    if (seat < 0)
        return;
    if (res->err) {
        bot_forfeits(r, seat, "failed", thue_strerror(res->err));
        return;
    }
    if (r->seats[seat].gspec.kind == THUE_GBOT_PERFECT && !res->bot.exact)
        /* The perfect bot could not decide in time (a position beyond its solver): it
         * answered the game's fallback move (dots: the heuristic's), else the first legal
         * one, rather than forfeit (gsubmit_bot asks for that). */
        thue_log(THUE_LOG_WARN, "room %s: bot %s could not decide (%s); it plays its fallback move",
                 r->id, r->seats[seat].bot_spec_text,
                 res->bot.why[0] ? res->bot.why : "its budget or time");
    else
        thue_histogram_observe(&r->lobby->metrics->bot_think, res->bot.ms / 1000.0);
    thue_gerr e;
    memset(&e, 0, sizeof e);
    int err = table_apply_gmove(r, seat, &res->bot.move, &e);
    bot_moved(r, seat, err, e.msg);
}

/* A bot's absolute deadline under a clock: a little before its flag falls (5 % of what
 * is left, at least 10 ms); 0 without a clock. */
static int64_t bot_deadline(const room *r, int seat)
{
    if (!r->opt.clock.present)
        return 0;
    int64_t left = room_clock_left(r, seat);
    int64_t margin = left / 20 > 10000000 ? left / 20 : 10000000;
    int64_t budget = left - margin > 1000000 ? left - margin : 1000000;
    return thue_now_ns() + budget;
}

/* A job was submitted (err 0, its id) or not: the room's thinking seat, or the log. */
static void job_started(room *r, int seat, int err, uint64_t id)
{
    if (err) {
        /* Its clock runs; without a clock the match waits for the room's end. */
        thue_log(THUE_LOG_ERROR, "room %s: cannot start bot %s: %s", r->id,
                 r->seats[seat].bot_spec_text, thue_strerror(err));
        return;
    }
    r->job = id;
    r->thinking = seat;
    r->lobby->metrics->bot_jobs_submitted++;
}

/* Another game's bot to move: a game job in the pool, like a Thue bot's. */
static void gsubmit_bot(room *r, int seat)
{
    const room_seat *st = &r->seats[seat];
    thue_game_job_request req;
    memset(&req, 0, sizeof req);
    req.game = r->game;
    req.opt = r->gopt;
    req.state = r->gstate;
    req.spec = st->gspec;
    req.spec.legal_if_undecided = 1; /* a perfect bot that cannot decide still moves */
    req.seed = thue_gmix64(r->game_seed ^ (uint64_t)r->nmoves);
    req.think_ms = st->think_ms;
    req.deadline_ns = bot_deadline(r, seat);
    req.owner = st->owner;
    req.cb = gbot_done;
    req.data = r;
    uint64_t id = 0;
    int err = thue_pool_submit_game(r->lobby->pool, &req, &id);
    job_started(r, seat, err, id);
}

void table_submit_bot(room *r, int seat)
{
    if (r->opt.has_game) {
        gsubmit_bot(r, seat);
        return;
    }
    thue_thue_view v;
    thue_game_thue_view(&r->gopt, r->gstate, &v);
    const room_seat *st = &r->seats[seat];
    thue_job_request req;
    memset(&req, 0, sizeof req);
    req.spec = st->spec;
    req.pos.variant = r->opt.variant;
    req.pos.k = r->opt.k;
    req.pos.sym = v.word;
    req.pos.n = v.len;
    bool paint = v.step == THUE_STEP_PAINT;
    req.pos.role = paint ? THUE_ROLE_PAINTER : THUE_ROLE_BUILDER;
    req.pos.index = paint ? v.placed : 0;
    req.pos.remaining = r->opt.limit - v.rounds[v.round].points;
    req.seed = thue_bot_move_seed(r->game_seed, v.round, v.len - 1, req.pos.role);
    req.think_ms = st->think_ms;
    req.deadline_ns = bot_deadline(r, seat);
    req.parts = 1;
    req.owner = st->owner;
    req.cb = bot_done;
    req.data = r;
    uint64_t id = 0;
    int err = thue_pool_submit(r->lobby->pool, &req, &id);
    job_started(r, seat, err, id);
}

/* Seats a bot whose SPEC text is set: its name is stable (bot_name_of), and in a rated
 * room it plays as the SPEC's account (one account per SPEC text, rated in each game's
 * pools). 0, or -1 when the rated room's bot account cannot be made. */
static int seat_bot(room *r, room_seat *st, room_seat bot, int think_ms)
{
    bot.bot = true;
    bot_name_of(bot.bot_spec_text, bot.bot_name, sizeof bot.bot_name);
    bot.think_ms = think_ms;
    bot.ready = true;
    bot.rematch = true;
    if (r->opt.rated &&
        (bot.bot_acct = account_bot(r->lobby, bot.bot_spec_text, bot.bot_name)) == NULL)
        return -1;
    if (bot.bot_acct && strlen(bot.bot_acct->name) < sizeof bot.bot_name)
        memcpy(bot.bot_name, bot.bot_acct->name, strlen(bot.bot_acct->name) + 1); /* its
                                          stored name (older uct bots' accounts: Bot-...) */
    *st = bot;
    return 0;
}

int table_seat_bot(room *r, room_seat *st, const thue_bot_spec *spec, int think_ms)
{
    room_seat bot;
    memset(&bot, 0, sizeof bot);
    bot.spec = *spec;
    thue_bot_spec_format(spec, bot.bot_spec_text, sizeof bot.bot_spec_text);
    return seat_bot(r, st, bot, think_ms);
}

int table_seat_gbot(room *r, room_seat *st, const thue_gbot_spec *spec, int think_ms)
{
    room_seat bot;
    memset(&bot, 0, sizeof bot);
    bot.gspec = *spec;
    thue_gbot_spec_format(spec, bot.bot_spec_text, sizeof bot.bot_spec_text);
    return seat_bot(r, st, bot, think_ms);
}
