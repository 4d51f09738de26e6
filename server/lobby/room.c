/*
 * room.c: rooms, seats and spectators (PROTOCOL.md sections 4 to 8): finding and making
 * rooms, their state messages, and the commands; the match itself is the table's
 * (table.c).
 *
 * Reaching rooms: a private room is no room at all to whoever is not in it and did not
 * make it, unless they give its invite code: every such answer is no_room's, the same as
 * for an id no room has. Making rooms: room_allowed takes one from the address's bucket
 * (create_room and quick match); a room left before its first match goes at once
 * (check_linger).
 *
 * Calls go down: room.c calls the table (table.c), accounts.c, roomstate.c and util.c.
 * The table pushes new states back through the room's `changed` hook (set here to
 * room_changed), and a room's last closed handle reaches lobby.c through the lobby's
 * maybe_closed hook.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "log.h"
#include "nodes.h"
#include "room.h"
#include "roomstate.h"
#include "table.h"
#include "util.h"

/* ---- finding rooms and members -------------------------------------------------------- */

static int spect_index(const room *r, const session *s)
{
    for (int i = 0; i < r->nspect; i++)
        if (r->spect[i] == s)
            return i;
    return -1;
}

bool room_has(const room *r, const session *s)
{
    return room_seat_of(r, s) >= 0 || spect_index(r, s) >= 0;
}

/* ---- state messages --------------------------------------------------------------------- */

/* Each seat's time left in whole ms (0 once out) into ms; false in a room without a
 * clock (ms untouched). */
static bool room_clocks_ms(const room *r, int64_t ms[2])
{
    if (!r->opt.clock.present)
        return false;
    for (int i = 0; i < 2; i++) {
        int64_t left = room_clock_left(r, i);
        ms[i] = left > 0 ? left / 1000000 : 0;
    }
    return true;
}

/* The match object of another game (PROTOCOL.md, "Other games"). */
static void gfill_match(const room *r, thue_match_info *mi)
{
    const thue_gamedef *g = r->game;
    thue_gresult res;
    g->result(&r->gopt, r->gstate, &res);
    mi->number = r->number;
    mi->first = r->gfirst;
    int over = !room_match_running(r);
    snprintf(mi->gstep, sizeof mi->gstep, "%s", over ? "over" : g->step(&r->gopt, r->gstate));
    mi->to_move = room_seat_to_move(r);
    room_json_into(g->state_json(&r->gopt, r->gstate), mi->state, sizeof mi->state);
    mi->moves = r->nmoves;
    for (int p = 0; p < 2; p++)
        mi->points[r->gfirst ^ p] = res.score[p];
    mi->has_clocks = room_clocks_ms(r, mi->clocks);
    mi->clock_running = r->clock_running;
    mi->last_move = r->last_move;
    snprintf(mi->last_gmove, sizeof mi->last_gmove, "%s", r->glast);
    mi->thinking = r->thinking;
    mi->has_result = over;
    mi->winner = r->gwinner;
    snprintf(mi->why, sizeof mi->why, "%s", r->gwhy);
}

static void fill_state(const room *r, thue_msg *msg, int you)
{
    /* This runs after every move: the message is zeroed up to the match's two big text
     * buffers (another game's last move and state, kilobytes a Thue room never uses),
     * and those are made empty strings; the members after them are set below. The
     * options are copied, not zeroed first (room_options_copy leaves out the kilobyte of
     * a Thue room's empty game options). */
    size_t opt_at = offsetof(thue_msg, u.room_state.options);
    size_t opt_end = opt_at + sizeof msg->u.room_state.options;
    memset(msg, 0, opt_at);
    memset((char *)msg + opt_end, 0, offsetof(thue_msg, u.room_state.match.last_gmove) - opt_end);
    msg->u.room_state.match.last_gmove[0] = '\0';
    msg->u.room_state.match.state[0] = '\0';
    msg->u.room_state.has_tournament = 0;
    msg->u.room_state.tournament[0] = '\0';
    msg->type = THUE_MSG_ROOM_STATE;
    __typeof__(msg->u.room_state) *st = &msg->u.room_state;
    snprintf(st->room, sizeof st->room, "%s", r->id);
    st->version = r->version;
    snprintf(st->name, sizeof st->name, "%s", r->name);
    st->status = r->status;
    room_options_copy(&st->options, &r->opt);
    for (int i = 0; i < 2; i++) {
        const room_seat *se = &r->seats[i];
        thue_seat *out = &st->seats[i];
        if (!room_seat_taken(se))
            continue;
        out->present = 1;
        room_player_of(se, &out->player);
        out->has_bot = se->bot;
        if (se->bot)
            snprintf(out->bot, sizeof out->bot, "%s", se->bot_spec_text);
        out->connected = se->bot || se->s->client != NULL;
        out->ready = se->ready;
        /* A human's request only: a bot always agrees, and that says nothing. */
        out->rematch = !se->bot && se->rematch;
        if (!out->connected && uv_is_active((uv_handle_t *)&se->s->grace_timer)) {
            uint64_t left = uv_timer_get_due_in(&se->s->grace_timer);
            out->has_away = 1;
            out->away_left_ms = left > INT_MAX ? INT_MAX : (int)left;
        }
        account *a = se->bot ? se->bot_acct : se->s->acct;
        if (r->opt.rated && a != NULL) {
            pool_id pool;
            pool_of(r->game, &r->gopt, &pool);
            pool_rating *p = account_rating(a, &pool);
            if (p != NULL) {
                out->has_rating = 1;
                out->rating = p->g.rating;
            }
        }
    }
    st->spectators = r->nspect;
    st->you = you;
    if (r->tournament[0]) { /* after "you": see room_changed */
        st->has_tournament = 1;
        snprintf(st->tournament, sizeof st->tournament, "%s", r->tournament);
    }
    if (!r->has_match)
        return;
    st->has_match = 1;
    thue_match_info *mi = &st->match;
    if (r->opt.has_game) {
        gfill_match(r, mi);
        return;
    }
    thue_thue_view v;
    thue_game_thue_view(&r->gopt, r->gstate, &v);
    bool running = room_match_running(r);
    mi->number = r->number;
    mi->round = v.round;
    mi->builder = r->gfirst ^ v.round;
    mi->painter = 1 - mi->builder;
    mi->step = running ? (thue_step)v.step : THUE_STEP_OVER;
    mi->to_move = room_seat_to_move(r);
    mi->word = v.word;
    mi->word_len = v.len;
    mi->placed = running && v.step == THUE_STEP_PAINT ? v.placed : -1;
    for (int i = 0; i < 2; i++) {
        room_round_info(r, &v, i, &mi->rounds[i]);
        mi->points[r->gfirst ^ i] = v.rounds[1 - i].points; /* player p paints round 1-p */
    }
    mi->has_clocks = room_clocks_ms(r, mi->clocks);
    mi->clock_running = r->clock_running;
    mi->last_move = r->last_move;
    mi->thinking = r->thinking;
    mi->has_result = !running;
    mi->winner = running ? -1 : r->gwinner;
    mi->reason = running ? THUE_END_NONE : r->greason;
}

/* ---- legal moves (PROTOCOL.md section 5, "Legal moves") ------------------------------- */

/* The compact JSON array of the moves the player to move may make now, each as its
 * message says it (Thue: place's {"position":I} or paint's {"symbol":C}; the other
 * games: move's object); *complete false for a list the game cut (Wythoff's big heaps).
 * malloc'd, NULL out of memory. */
static char *legal_text(const room *r, bool *complete)
{
    const thue_gamedef *g = r->game;
    *complete = true;
    json_t *arr = json_array();
    if (arr == NULL)
        return NULL;
    if (room_match_running(r)) {
        int max = g->max_moves(&r->gopt);
        thue_gmove *buf = malloc((size_t)(max > 0 ? max : 1) * sizeof *buf);
        if (buf == NULL) {
            json_decref(arr);
            return NULL;
        }
        int n = g->legal_moves(&r->gopt, r->gstate, buf);
        *complete = !(g->flags & THUE_GAME_CUT_LISTS) || n < max;
        for (int i = 0; i < n; i++) {
            json_t *m = r->opt.has_game
                            ? g->move_json(&r->gopt, &buf[i])
                            : json_pack("{s:i}", buf[i].v[0] == 0 ? "position" : "symbol",
                                        buf[i].v[1]);
            if (m == NULL || json_array_append_new(arr, m) != 0) {
                free(buf);
                json_decref(arr);
                return NULL;
            }
        }
        free(buf);
    }
    char *text = json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(arr);
    return text;
}

/* The legal_moves message of r (a room with a match) for `id` (NULL: an unasked one),
 * encoded for a connection of subprotocol proto (its version is that protocol's);
 * malloc'd, NULL out of memory. */
static char *legal_message(const room *r, const thue_msg_id *id, int proto)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_LEGAL_MOVES;
    if (id != NULL)
        msg.id = *id;
    __typeof__(msg.u.legal_moves) *lm = &msg.u.legal_moves;
    snprintf(lm->room, sizeof lm->room, "%s", r->id);
    lm->version = proto == 2 ? r->version2 : r->version;
    bool running = room_match_running(r);
    lm->to_move = running ? room_seat_to_move(r) : -1;
    snprintf(lm->step, sizeof lm->step, "%s",
             running ? r->game->step(&r->gopt, r->gstate) : "over");
    bool complete;
    char *moves = legal_text(r, &complete);
    if (moves == NULL)
        return NULL;
    lm->complete = complete;
    lm->moves = moves;
    char *text = thue_msg_encode(&msg, NULL);
    free(moves);
    return text;
}

static bool wants_legal(const room *r, const session *s)
{
    return r->has_match && s != NULL && s->client != NULL && s->client->legal_moves;
}

/* After a room_state: the legal moves to every member whose connection asked for them
 * in hello (one encoding for all of them). */
static void send_legal_all(room *r)
{
    char *text[2] = {NULL, NULL}; /* thue.v1's, thue.v2's */
    for (int i = -2; i < r->nspect; i++) {
        session *s = i < 0 ? r->seats[i + 2].s : r->spect[i];
        if (!wants_legal(r, s))
            continue;
        int v = s->client->proto == 2;
        if (text[v] == NULL && (text[v] = legal_message(r, NULL, v + 1)) == NULL) {
            thue_log(THUE_LOG_ERROR, "room %s: out of memory listing legal moves", r->id);
            break;
        }
        lobby_send_text(r->lobby, s->client, text[v]);
    }
    free(text[0]);
    free(text[1]);
}

/* The room's ref under thue.v2: a small number for the room on this node, so that a
 * played event need not name the room by its id (r->seq folded into 1..INT_MAX). */
static int room_ref(const room *r)
{
    return (int)(r->seq % (uint64_t)INT_MAX) + 1;
}

/* The state under thue.v2: the same for everyone, the ref instead of "you". */
static void fill_state_v2(const room *r, thue_msg *msg)
{
    fill_state(r, msg, -1);
    msg->u.room_state.version = r->version2;
    msg->u.room_state.has_ref = 1;
    msg->u.room_state.ref = room_ref(r);
}

static bool speaks_v2(const session *s)
{
    return s != NULL && s->client != NULL && s->client->proto == 2;
}

void room_send_state(room *r, session *s)
{
    thue_msg msg;
    if (speaks_v2(s))
        fill_state_v2(r, &msg);
    else
        fill_state(r, &msg, room_seat_of(r, s));
    lobby_send_msg(r->lobby, s, &msg);
    if (wants_legal(r, s)) {
        char *text = legal_message(r, NULL, s->client->proto);
        if (text != NULL)
            lobby_send_text(r->lobby, s->client, text);
        free(text);
    }
}

static void linger_due(uv_timer_t *t)
{
    room *r = t->data;
    thue_log(THUE_LOG_INFO, "room %s removed (%s)", r->id,
             r->status == THUE_STATUS_FINISHED ? "finished" : "empty");
    room_destroy(r);
}

/* The bots seated with seat_bot count against their owners' bot_seats while their room
 * has somebody in it (bots do not search for an empty room); on: count them, else not.
 * Here and, with several nodes, in Redis (nodes_bot_count), where a seat that seat_bot
 * took through nodes_bots_gate is counted already (owner_taken). */
static void count_bots(room *r, bool on)
{
    for (int i = 0; i < 2; i++) {
        room_seat *st = &r->seats[i];
        if (!st->bot || !st->owner_limited || st->owner_counted == on)
            continue;
        /* Out of memory only loses the count (a limit, not a safety property). */
        thue_counts_add(r->lobby->bot_seats, st->seated_by, on ? 1 : -1);
        thue_counts_add(r->lobby->bot_seats_ip, st->owner_ip, on ? 1 : -1);
        if (!(on && st->owner_taken))
            nodes_bot_count(r->lobby, st->seated_by, st->owner_ip, on ? 1 : -1);
        st->owner_taken = false;
        st->owner_counted = on;
    }
}

/* A room whose first match has not started and that nobody is in (no creator, nobody
 * seated or watching) is removed at once: nobody can start it or see it, and keeping it
 * would let anyone fill the server with rooms made and left at once. A finished or empty
 * room is removed after room_linger_s; anything else stays. Bots do not think for an
 * empty room (nobody would see it): their search resumes when somebody comes back. */
static void check_linger(room *r)
{
    if (r->ending || r->lobby->stopping)
        return;
    bool empty = room_is_empty(r);
    count_bots(r, !empty);
    if (empty && !r->has_match) {
        thue_log(THUE_LOG_INFO, "room %s removed (left before its first match)", r->id);
        room_destroy(r);
        return;
    }
    if (empty)
        room_cancel_job(r);
    else if (room_match_running(r) && r->job == 0 && r->seats[room_seat_to_move(r)].bot)
        table_submit_bot(r, room_seat_to_move(r));
    bool due = r->status == THUE_STATUS_FINISHED || empty;
    bool armed = uv_is_active((uv_handle_t *)&r->linger_timer);
    if (due && !armed)
        uv_timer_start(&r->linger_timer, linger_due, (uint64_t)r->lobby->cfg.room_linger_s * 1000,
                       0);
    else if (!due && armed)
        uv_timer_stop(&r->linger_timer);
}

/* Each seat's points in the room's match now, as its match object says them. */
static void room_points(const room *r, int out[2])
{
    out[0] = out[1] = 0;
    if (!r->has_match)
        return;
    if (r->opt.has_game) {
        thue_gresult res;
        r->game->result(&r->gopt, r->gstate, &res);
        for (int q = 0; q < 2; q++)
            out[r->gfirst ^ q] = res.score[q];
        return;
    }
    thue_thue_view v;
    thue_game_thue_view(&r->gopt, r->gstate, &v);
    for (int i = 0; i < 2; i++)
        out[r->gfirst ^ i] = v.rounds[1 - i].points; /* player p paints round 1-p */
}

/* src into dst of size bytes, cut to fit (snprintf's "%s" without its cost: this runs
 * for every move). */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Thue's move as its JSON, {"place":I} or {"paint":C}, into out of size bytes (at least
 * 24, which any int fits). */
static void move_text(char *out, size_t size, bool paint, int value)
{
    char digits[12], *d = digits + sizeof digits;
    unsigned u = value < 0 ? 0u - (unsigned)value : (unsigned)value;
    do {
        *--d = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (value < 0)
        *--d = '-';
    size_t nd = (size_t)(digits + sizeof digits - d);
    const char *head = paint ? "{\"paint\":" : "{\"place\":";
    size_t nh = strlen(head);
    if (size < nh + nd + 2) {
        out[0] = '\0';
        return;
    }
    memcpy(out, head, nh);
    memcpy(out + nh, d, nd);
    out[nh + nd] = '}';
    out[nh + nd + 1] = '\0';
}

/* thue.v2's played event for the move the room's last change was (PROTOCOL.md,
 * "thue.v2"): the move, and what it changed that does not follow from the move. */
static void fill_played(const room *r, thue_msg *msg)
{
    memset(msg, 0, offsetof(thue_msg, u) + sizeof msg->u.played);
    msg->owned = NULL;
    msg->type = THUE_MSG_PLAYED;
    __typeof__(msg->u.played) *p = &msg->u.played;
    p->ref = room_ref(r);
    p->version = r->version2;
    p->think_ms = r->last_move.think_ms;
    bool running = room_match_running(r);
    p->to_move = running ? room_seat_to_move(r) : -1;
    room_points(r, p->points);
    p->has_points = p->points[0] != r->points_shown[0] || p->points[1] != r->points_shown[1];
    if (r->opt.has_game) {
        copy_text(p->move, sizeof p->move, r->glast);
        copy_text(p->reason, sizeof p->reason, r->gwhy);
    } else {
        move_text(p->move, sizeof p->move, r->last_move.is_paint, r->last_move.value);
        thue_thue_view v;
        thue_game_thue_view(&r->gopt, r->gstate, &v);
        /* The round the move was made in ended with it: the next one (if any) has begun,
         * or the match is over. */
        int was = r->last_move_round;
        if (was != v.round || !running) {
            thue_round_info ri;
            room_round_info(r, &v, was, &ri);
            if (ri.end != THUE_ROUND_PLAYING) {
                p->has_round_end = 1;
                p->end = ri.end;
                p->has_repetition = ri.has_repetition;
                p->repetition = ri.repetition;
            }
        }
        copy_text(p->reason, sizeof p->reason, thue_end_reason_name(r->greason));
    }
    p->has_clocks = room_clocks_ms(r, p->clocks);
    p->has_thinking = r->thinking >= 0;
    p->thinking = r->thinking;
    p->has_result = !running;
    p->winner = r->gwinner;
}

/* The change to everyone in the room who speaks thue.v2: one text for all of them, the
 * played event when the change was a move, else the whole state. */
static void send_v2_all(room *r, bool moved)
{
    char *text = NULL;
    for (int i = -2; i < r->nspect; i++) {
        session *s = i < 0 ? r->seats[i + 2].s : r->spect[i];
        if (!speaks_v2(s))
            continue;
        if (text == NULL) {
            thue_msg msg;
            if (moved)
                fill_played(r, &msg);
            else
                fill_state_v2(r, &msg);
            if ((text = thue_msg_encode(&msg, NULL)) == NULL) {
                thue_log(THUE_LOG_ERROR, "room %s: cannot encode its change", r->id);
                return;
            }
            r->lobby->metrics->room_encodes[1]++;
        }
        lobby_send_text(r->lobby, s->client, text);
    }
    free(text);
}

/* Whether anyone in the room speaks thue.v1 (and needs its per-seat state). */
static bool any_v1(const room *r)
{
    for (int i = -2; i < r->nspect; i++) {
        const session *s = i < 0 ? r->seats[i + 2].s : r->spect[i];
        if (s != NULL && s->client != NULL && s->client->proto != 2)
            return true;
    }
    return false;
}

/* thue.v2's watchers event of r to its thue.v2 members (one text for all of them). */
static void send_watchers(room *r)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_WATCHERS;
    msg.u.watchers.ref = room_ref(r);
    msg.u.watchers.spectators = r->nspect;
    char *text = NULL;
    for (int i = -2; i < r->nspect; i++) {
        session *s = i < 0 ? r->seats[i + 2].s : r->spect[i];
        if (!speaks_v2(s))
            continue;
        if (text == NULL && (text = thue_msg_encode(&msg, NULL)) == NULL)
            return;
        lobby_send_text(r->lobby, s->client, text);
    }
    free(text);
}

/* Each second while some room's spectators changed: their counts to thue.v2. */
static void watchers_due(uv_timer_t *t)
{
    thue_lobby *l = t->data;
    for (room *r = l->rooms; r; r = r->next)
        if (r->watchers_due) {
            r->watchers_due = false;
            send_watchers(r);
        }
}

void room_spectators_changed(room *r, session *joined)
{
    r->spect_change = true;
    room_changed(r);
    if (joined != NULL && speaks_v2(joined))
        room_send_state(r, joined); /* thue.v2's members heard nothing: the newcomer's own */
}

void room_changed(room *r)
{
    check_linger(r);
    r->version++;
    bool moved = r->just_moved, spect = r->spect_change;
    r->just_moved = r->spect_change = false;
    if (spect) {
        /* thue.v2 hears of it with the next change, or watchers within a second: a
         * thousand arrivals are not a thousand states to everyone. */
        thue_lobby *l = r->lobby;
        r->watchers_due = true;
        if (!uv_is_active((uv_handle_t *)&l->watch_timer) && !l->stopping)
            uv_timer_start(&l->watch_timer, watchers_due, 1000, 0);
    } else {
        r->version2++;
        if (!moved)
            r->watchers_due = false; /* the whole state says how many watch */
    }
    if (r->seats[0].s == NULL && r->seats[1].s == NULL && r->nspect == 0) {
        room_points(r, r->points_shown);
        return;
    }
    if (!spect)
        send_v2_all(r, moved);
    room_points(r, r->points_shown); /* the points of this version, for the next played */
    if (!any_v1(r)) {
        send_legal_all(r);
        return;
    }
    /* One encoding for everyone under thue.v1 (this runs after every move): the
     * spectators' form, with "you":null. A seat's state differs only in that member, so its
     * text is the same with the seat's number in place of null. ("you": cannot occur
     * inside a JSON string, and no member before it has that key.) */
    thue_msg msg;
    fill_state(r, &msg, -1);
    char *text = thue_msg_encode(&msg, NULL);
    if (text == NULL) {
        thue_log(THUE_LOG_ERROR, "room %s: cannot encode its state", r->id);
        return;
    }
    r->lobby->metrics->room_encodes[0]++;
    static const char you_null[] = "\"you\":null";
    const char *you = strstr(text, you_null);
    size_t len = strlen(text);
    char *mine = you ? malloc(len) : NULL; /* "null" (4) becomes one digit: len - 2 bytes */
    size_t at = you ? (size_t)(you - text) + sizeof you_null - 1 - 4 : 0;
    for (int i = 0; i < 2; i++) {
        session *s = r->seats[i].s;
        if (s == NULL || speaks_v2(s))
            continue;
        if (mine == NULL) { /* out of memory: encode it whole */
            fill_state(r, &msg, i);
            lobby_send_msg(r->lobby, s, &msg);
            continue;
        }
        memcpy(mine, text, at);
        mine[at] = (char)('0' + i);
        memcpy(mine + at + 1, text + at + 4, len - at - 4 + 1);
        lobby_send_text(r->lobby, s->client, mine);
    }
    for (int i = 0; i < r->nspect; i++)
        if (!speaks_v2(r->spect[i]))
            lobby_send_text(r->lobby, r->spect[i]->client, text);
    free(mine);
    free(text);
    send_legal_all(r);
}

/* ---- rooms: making and removing --------------------------------------------------------- */

static void room_handle_closed(uv_handle_t *h)
{
    room *r = h->data;
    thue_lobby *l = r->lobby;
    l->handles--;
    if (--r->handles == 0) {
        free(r->spect);
        table_free_moves(r);
        free(r->moves);
        free(r->gstate);
        free(r->gstart);
        free(r);
    }
    l->maybe_closed(l); /* lobby.c's lobby_maybe_closed */
}

static room *room_new(thue_lobby *l, const thue_room_options *opt, bool with_invite)
{
    if (l->nrooms >= l->cfg.max_rooms)
        return NULL;
    room *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->lobby = l;
    r->changed = room_changed; /* the table's hook (table.c calls no room.c) */
    r->opt = *opt;
    if (!opt->has_game) {
        /* Thue's room: its own messages, the game's table underneath. */
        r->game = &thue_game_thue;
        if (thue_game_thue_options(opt->variant, opt->k, opt->limit, &r->gopt) != 0) {
            free(r);
            return NULL;
        }
    } else {
        /* The options are the game's canonical text (room_game_options made them). */
        r->game = thue_game_find(opt->game);
        if (r->game == NULL ||
            thue_game_options_text(r->game, opt->game_options, &r->gopt, NULL) != 0) {
            thue_log(THUE_LOG_ERROR, "room for %s: its options do not parse again", opt->game);
            free(r);
            return NULL;
        }
    }
    r->status = THUE_STATUS_WAITING;
    r->clock_running = -1;
    r->thinking = -1;
    r->seq = ++l->room_seq;
    /* Ids and invite codes from the kernel's generator: a private room's id and code
     * cannot be guessed from other rooms' (PROTOCOL.md, identifiers). */
    int bad = 0;
    do {
        r->id[0] = 'r';
        bad = lobby_random_key(r->id + 1, LOBBY_ID_CHARS, LOBBY_ID_ALPHABET);
    } while (bad == 0 && room_find(l, r->id) != NULL);
    if (bad == 0 && with_invite)
        bad = lobby_random_key(r->invite, LOBBY_INVITE_CHARS, LOBBY_INVITE_ALPHABET);
    if (bad != 0) {
        thue_log(THUE_LOG_ERROR, "the kernel's random generator failed: no room made");
        free(r);
        return NULL;
    }
    uv_timer_init(l->loop, &r->clock_timer);
    uv_timer_init(l->loop, &r->linger_timer);
    r->clock_timer.data = r;
    r->linger_timer.data = r;
    r->handles = 2;
    r->next = l->rooms;
    if (l->rooms)
        l->rooms->prev = r;
    l->rooms = r;
    room **head = &l->by_id[lobby_hash(r->id) % LOBBY_BUCKETS];
    r->hash_next = *head;
    *head = r;
    l->nrooms++;
    l->metrics->rooms = l->nrooms;
    nodes_room_added(l, r);
    return r;
}

void room_destroy(room *r)
{
    thue_lobby *l = r->lobby;
    if (r->ending)
        return;
    r->ending = true;
    room_cancel_job(r);
    count_bots(r, false);
    if (r->creator) {
        r->creator->rooms_created--;
        r->creator = NULL;
    }
    if (r->prev)
        r->prev->next = r->next;
    else
        l->rooms = r->next;
    if (r->next)
        r->next->prev = r->prev;
    room **pp = &l->by_id[lobby_hash(r->id) % LOBBY_BUCKETS];
    while (*pp && *pp != r)
        pp = &(*pp)->hash_next;
    if (*pp)
        *pp = r->hash_next;
    l->nrooms--;
    l->metrics->rooms = l->nrooms;
    nodes_room_gone(l, r);
    l->handles += 2;
    uv_close((uv_handle_t *)&r->clock_timer, room_handle_closed);
    uv_close((uv_handle_t *)&r->linger_timer, room_handle_closed);
}

/* ---- commands ---------------------------------------------------------------------------- */

void lobby_owner_of(const session *s, const char *peer, char *out, size_t size)
{
    if (s->acct != NULL) {
        snprintf(out, size, "acct:%lld", (long long)s->acct->id);
        return;
    }
    lobby_ip_of(s, peer, out, size);
}

void lobby_ip_of(const session *s, const char *peer, char *out, size_t size)
{
    if (peer == NULL && s->client != NULL)
        peer = s->client->peer;
    if (peer == NULL) {
        snprintf(out, size, "guest:%.64s", s->key);
        return;
    }
    char key[THUE_LIMIT_KEY_MAX];
    thue_addr_key(peer, key, sizeof key);
    snprintf(out, size, "ip:%.68s", key);
}

int lobby_search_allowed(const thue_lobby *l, const thue_gamedef *g, const thue_gopt *opt,
                         char *why, size_t size)
{
    if (g == NULL)
        return 0;
    long long moves = g->max_moves(opt);
    if (moves <= l->cfg.search_moves_max)
        return 0;
    snprintf(why, size,
             "%s with these options has up to %lld legal moves in a position; this server's "
             "bots and analyses search positions of at most %d (--search-moves-max): choose "
             "smaller options",
             g->name, moves, l->cfg.search_moves_max);
    return -1;
}

/*
 * The limits on the bots one may seat (docs/server.md): think_ms up to bot_think_max_ms
 * (bad_bot), a bot against a bot only for accounts unless guest_bot_vs_bot (not_allowed),
 * at most bot_seats_per_owner seated at once per account or guest session (by) and
 * bot_seats_per_ip per address (not_allowed), and a game whose positions are not too big
 * to search (bad_bot). 0 or the code with rq's field and message set.
 */
static int bot_seat_allowed(request *rq, const room *r, int seat, int think_ms, const char *by,
                            const char *ip)
{
    const thue_lobby_config *cfg = &rq->c->lobby->cfg;
    if (think_ms > cfg->bot_think_max_ms) {
        snprintf(rq->field, sizeof rq->field, "think_ms");
        snprintf(rq->message, sizeof rq->message,
                 "think_ms may be at most %d on this server, got %d", cfg->bot_think_max_ms,
                 think_ms);
        return THUE_PERR_BOT;
    }
    if (r->seats[1 - seat].bot && rq->c->s->acct == NULL && !cfg->guest_bot_vs_bot) {
        snprintf(rq->message, sizeof rq->message,
                 "a bot against a bot is for accounts: claim a name first (claim_name)");
        return THUE_PERR_NOT_ALLOWED;
    }
    long held = thue_counts_get(rq->c->lobby->bot_seats, by);
    if (held >= cfg->bot_seats_per_owner) {
        snprintf(rq->message, sizeof rq->message,
                 "%s may have %d bots seated at once, and has; a bot stops counting once "
                 "nobody is in its room",
                 rq->c->s->acct ? "one account" : "one guest", cfg->bot_seats_per_owner);
        return THUE_PERR_NOT_ALLOWED;
    }
    if (thue_counts_get(rq->c->lobby->bot_seats_ip, ip) >= cfg->bot_seats_per_ip) {
        snprintf(rq->message, sizeof rq->message,
                 "one address may have %d bots seated at once, accounts included, and has; a "
                 "bot stops counting once nobody is in its room",
                 cfg->bot_seats_per_ip);
        return THUE_PERR_NOT_ALLOWED;
    }
    if (lobby_search_allowed(rq->c->lobby, r->game, &r->gopt, rq->message, sizeof rq->message)) {
        snprintf(rq->field, sizeof rq->field, "bot");
        return THUE_PERR_BOT;
    }
    /* Several nodes: both limits hold over the bots seated on every node (the message
     * comes back with Redis's verdict; when allowed, the seat is counted already). */
    int gate = nodes_bots_gate(rq, by, cfg->bot_seats_per_owner, ip, cfg->bot_seats_per_ip);
    if (gate)
        return gate;
    if (rq->v.bots == -1) {
        if (rq->v.bots_which == 2)
            snprintf(rq->message, sizeof rq->message,
                     "one address may have %d bots seated at once on this server's nodes, "
                     "accounts included, and has; a bot stops counting once nobody is in its "
                     "room",
                     cfg->bot_seats_per_ip);
        else
            snprintf(rq->message, sizeof rq->message,
                     "%s may have %d bots seated at once on this server's nodes, and has; a "
                     "bot stops counting once nobody is in its room",
                     rq->c->s->acct ? "one account" : "one guest", cfg->bot_seats_per_owner);
        return THUE_PERR_NOT_ALLOWED;
    }
    return 0;
}

/* The answer for a room a command cannot reach: the same code, field and sentence
 * whether no room has that id, or a private room's invite is missing or wrong, or a
 * stranger names a private room. So the answer never tells anyone that a private room
 * exists (bad_invite is no longer sent: PROTOCOL.md section 10). */
static int no_room(request *rq)
{
    snprintf(rq->field, sizeof rq->field, "room");
    snprintf(rq->message, sizeof rq->message,
             "no room has that id (a private room also needs its invite code)");
    return THUE_PERR_NO_ROOM;
}

/* Whether two invite codes are equal, in a time that does not depend on where they
 * differ (a code is never learnt a character at a time). */
static bool invite_equal(const char *given, const char *code)
{
    size_t n = strlen(code);
    if (strlen(given) != n)
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(given[i] ^ code[i]);
    return diff == 0;
}

/* Whether s may see r without an invite: r is public, or s is in it or made it. */
static bool room_visible(const room *r, const session *s)
{
    return r->invite[0] == '\0' || room_has(r, s) || r->creator == s;
}

/* The room a command names, which s may reach: private rooms need the invite unless s is
 * already in them. */
static int reach_room(request *rq, const char *id, bool has_invite, const char *invite, room **out)
{
    room *r = room_find(rq->c->lobby, id);
    if (r == NULL || r->ending)
        return no_room(rq);
    if (!room_visible(r, rq->c->s) && !(has_invite && invite_equal(invite, r->invite)))
        return no_room(rq);
    *out = r;
    return 0;
}

/* The room of a command that needs the sender in it; *seat_out its seat or -1. A private
 * room the sender is not in is no room at all to it. */
static int member_room(request *rq, const char *id, room **out, int *seat_out)
{
    room *r = room_find(rq->c->lobby, id);
    if (r == NULL || r->ending || !room_visible(r, rq->c->s))
        return no_room(rq);
    if (!room_has(r, rq->c->s))
        return THUE_PERR_NOT_IN_ROOM;
    *out = r;
    *seat_out = room_seat_of(r, rq->c->s);
    return 0;
}

static int seated_room(request *rq, const char *id, room **out, int *seat_out)
{
    int err = member_room(rq, id, out, seat_out);
    if (err == 0 && *seat_out < 0)
        return THUE_PERR_NOT_SEATED;
    return err;
}

/* The seat a join or seat_bot asked for, or the free one. */
static int pick_seat(request *rq, room *r, bool has_seat, int wanted, int *out)
{
    if (has_seat) {
        if (room_seat_taken(&r->seats[wanted])) {
            snprintf(rq->field, sizeof rq->field, "seat");
            snprintf(rq->message, sizeof rq->message, "seat %d is taken", wanted);
            return THUE_PERR_ROOM_FULL;
        }
        *out = wanted;
        return 0;
    }
    for (int i = 0; i < 2; i++)
        if (!room_seat_taken(&r->seats[i])) {
            *out = i;
            return 0;
        }
    return THUE_PERR_ROOM_FULL;
}

static void spect_remove(room *r, int i)
{
    r->spect[i] = r->spect[--r->nspect];
}

/* Whether s may play rated: only with an account, and only on a server with a store. */
int rated_allowed(request *rq, const session *s)
{
    if (rq->c->lobby->store == NULL) {
        snprintf(rq->field, sizeof rq->field, "rated");
        snprintf(rq->message, sizeof rq->message,
                 "this server runs without a database: rated play is off");
        return THUE_PERR_NOT_AVAILABLE;
    }
    if (s->acct == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "rated play is for accounts: claim a name first (claim_name)");
        return THUE_PERR_NOT_ALLOWED;
    }
    return 0;
}

int room_no_new_match(thue_lobby *l, char *why, size_t size)
{
    if (!l->draining)
        return 0;
    snprintf(why, size,
             "this server is stopping and starts no new match; reconnect to play on another");
    return THUE_PERR_BUSY;
}

/* room_allowed, with the shared limit's verdict when rq has one (nodes_limit_gate): then
 * that verdict alone decides the address's limit. */
static int allowed_with(thue_lobby *l, const char *peer, const request *rq, char *why,
                        size_t size)
{
    int busy = room_no_new_match(l, why, size);
    if (busy)
        return busy;
    if (l->nrooms >= l->cfg.max_rooms) {
        snprintf(why, size, "the server has as many rooms as it takes (%d); try again in a minute",
                 l->cfg.max_rooms);
        return THUE_PERR_BUSY;
    }
    char key[THUE_LIMIT_KEY_MAX];
    thue_addr_key(peer ? peer : "unknown", key, sizeof key);
    uint64_t retry_ms = rq != NULL ? rq->gate_retry_ms : 0;
    bool gated = rq != NULL && rq->gated;
    if (gated ? rq->gate_denied
              : nodes_limit_blocked(l, "rooms", key, &retry_ms) ||
                    !thue_limiter_take(l->room_rate, key, uv_now(l->loop), &retry_ms)) {
        snprintf(why, size,
                 "one address may make %d rooms a minute, and yours has; the next room can "
                 "be made in %llu s",
                 l->cfg.room_rate_per_ip, (unsigned long long)((retry_ms + 999) / 1000));
        return THUE_PERR_RATE;
    }
    if (!gated)
        nodes_limit_take(l, "rooms", key, l->cfg.room_rate_per_ip / 60.0, l->cfg.room_rate_per_ip);
    return 0;
}

int room_allowed(thue_lobby *l, const char *peer, char *why, size_t size)
{
    return allowed_with(l, peer, NULL, why, size);
}

int room_game_options(request *rq, const char *name, const char *options,
                      thue_room_options *opt, const thue_gamedef **game, thue_gopt *gopt)
{
    *game = NULL;
    memset(gopt, 0, sizeof *gopt);
    if (name == NULL || strcmp(name, "thue") == 0) {
        if (options != NULL) {
            snprintf(rq->field, sizeof rq->field, "game_options");
            snprintf(rq->message, sizeof rq->message,
                     "Thue's options are the members variant, k and limit, not game_options");
            return THUE_EOPTIONS;
        }
        return 0;
    }
    const thue_gamedef *g = thue_game_find(name);
    if (g == NULL) {
        snprintf(rq->field, sizeof rq->field, "game");
        snprintf(rq->message, sizeof rq->message,
                 "no game \"%s\" here: GET /api/games lists the games", name);
        return THUE_EGAME;
    }
    thue_gerr e;
    memset(&e, 0, sizeof e);
    int err = thue_game_options_text(g, options, gopt, &e);
    if (err) {
        request_gerr(rq, "game_options", &e);
        return err;
    }
    opt->has_game = 1;
    snprintf(opt->game, sizeof opt->game, "%s", g->name);
    room_json_into(g->options_json(gopt), opt->game_options, sizeof opt->game_options);
    *game = g;
    return 0;
}

int room_create(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    session *s = rq->c->s;
    const __typeof__(rq->cmd->u.create_room) *cr = &rq->cmd->u.create_room;
    if (cr->rated) {
        int err = rated_allowed(rq, s);
        if (err)
            return err;
    }
    if (s->rooms_created >= l->cfg.max_rooms_per_player) {
        snprintf(rq->message, sizeof rq->message,
                 "you have %d rooms, the most a player may have; leave one first",
                 s->rooms_created);
        return THUE_PERR_TOO_MANY_ROOMS;
    }
    thue_room_options opt;
    memset(&opt, 0, sizeof opt);
    opt.variant = cr->variant;
    opt.k = cr->k;
    opt.limit = cr->limit;
    opt.clock = cr->clock;
    opt.is_private = cr->is_private;
    opt.rated = cr->rated;
    opt.first = cr->first;
    opt.auto_start = cr->auto_start;
    const thue_gamedef *game = NULL;
    thue_gopt gopt;
    int err = room_game_options(rq, cr->has_game ? cr->game : NULL,
                                cr->has_game_options ? cr->game_options : NULL, &opt,
                                &game, &gopt);
    if (err)
        return err;
    /* Several nodes: the address's shared bucket decides first (the message comes back
     * with its verdict). */
    char key[THUE_LIMIT_KEY_MAX];
    thue_addr_key(rq->c->peer, key, sizeof key);
    err = nodes_limit_gate(rq, "rooms", key, l->cfg.room_rate_per_ip / 60.0,
                           l->cfg.room_rate_per_ip);
    if (err)
        return err;
    err = allowed_with(l, rq->c->peer, rq, rq->message, sizeof rq->message);
    if (err)
        return err;
    room *r = room_new(l, &opt, cr->is_private);
    if (r == NULL)
        return THUE_PERR_INTERNAL;
    if (cr->has_name)
        snprintf(r->name, sizeof r->name, "%s", cr->name);
    else
        snprintf(r->name, sizeof r->name, "%s's room", s->player.name);
    r->creator = s;
    s->rooms_created++;
    if (cr->seat)
        r->seats[0].s = s;
    thue_log(THUE_LOG_INFO, "room %s created by %s", r->id, s->player.name);
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_ROOM_CREATED;
    msg.id = rq->cmd->id;
    snprintf(msg.u.room_created.room, sizeof msg.u.room_created.room, "%s", r->id);
    if (r->invite[0]) {
        msg.u.room_created.has_invite = 1;
        snprintf(msg.u.room_created.invite, sizeof msg.u.room_created.invite, "%s", r->invite);
    }
    lobby_send_msg(l, s, &msg);
    room_changed(r);
    if (!cr->seat)
        room_send_state(r, s); /* the creator watches nothing yet, but sees the room */
    return 0;
}

/* Whether a public room's summary passes the filter. */
static bool summary_passes(const room_filter *f, const thue_room_summary *o)
{
    /* No game asked: Thue's rooms only (what clients before other games expect). */
    const char *want = f->has_game ? f->game : "thue";
    const char *game = o->has_game ? o->game : "thue";
    return f->all_games ||
           (strcmp(want, game) == 0 && (o->has_game || !f->has_variant || o->variant == f->variant) &&
            (o->has_game || !f->has_k || o->k == f->k) &&
            (!f->has_status || o->status == f->status));
}

typedef struct remote_fill {
    const room_filter *f;
    thue_room_summary *list;
    int n, cap;
} remote_fill;

static void remote_room(void *ctx, const thue_room_summary *o)
{
    remote_fill *rf = ctx;
    if (rf->n < rf->cap && summary_passes(rf->f, o))
        rf->list[rf->n++] = *o;
}

/* r's summary, as `rooms` lists it. */
static void summary_of(const room *r, thue_room_summary *o)
{
    snprintf(o->room, sizeof o->room, "%s", r->id);
    snprintf(o->name, sizeof o->name, "%s", r->name);
    o->variant = r->opt.variant;
    o->k = r->opt.k;
    o->limit = r->opt.limit;
    o->clock = r->opt.clock;
    o->status = r->status;
    o->has_game = r->opt.has_game;
    snprintf(o->game, sizeof o->game, "%s", r->opt.game);
    snprintf(o->game_options, sizeof o->game_options, "%s", r->opt.game_options);
    for (int i = 0; i < 2; i++) {
        o->has_player[i] = room_seat_taken(&r->seats[i]);
        room_player_of(&r->seats[i], &o->players[i]);
    }
    o->spectators = r->nspect;
}

char *room_list_text(thue_lobby *l, const room_filter *f, const thue_msg_id *id)
{
    long all = l->nrooms + (f->all_games ? 0 : nodes_remote_room_count(l));
    int cap = all < ROOM_LIST_MAX ? (int)all : ROOM_LIST_MAX;
    thue_room_summary *list = calloc(cap > 0 ? (size_t)cap : 1, sizeof *list);
    if (list == NULL)
        return NULL;
    int n = 0;
    for (room *r = l->rooms; r && n < cap; r = r->next) {
        if (r->invite[0] || r->ending)
            continue;
        thue_room_summary *o = &list[n++];
        summary_of(r, o);
        if (!summary_passes(f, o))
            n--;
    }
    if (l->cluster != NULL && !f->all_games) {
        remote_fill rf = {f, list, n, cap};
        nodes_each_remote_room(l, remote_room, &rf);
        n = rf.n;
    }
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_ROOMS;
    if (id)
        msg.id = *id;
    msg.u.rooms.rooms = list;
    msg.u.rooms.nrooms = n;
    /* (all_games: the whole message, for the other nodes to decode) */
    char *text = id || f->all_games ? thue_msg_encode(&msg, NULL)
                                    : thue_msg_encode_members(&msg, NULL);
    free(list);
    return text;
}

char *room_peek_text(thue_lobby *l, const char *id, const char *code)
{
    room *r = room_find(l, id);
    if (r == NULL || r->ending || (r->invite[0] && (code == NULL || !invite_equal(code, r->invite))))
        return NULL;
    thue_room_summary one;
    memset(&one, 0, sizeof one);
    summary_of(r, &one);
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_ROOMS;
    msg.u.rooms.rooms = &one;
    msg.u.rooms.nrooms = 1;
    char *text = thue_msg_encode_members(&msg, NULL); /* {"rooms":[{...}]} */
    json_t *all = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    json_t *o = json_incref(json_array_get(json_object_get(all, "rooms"), 0));
    json_decref(all);
    if (o == NULL)
        return NULL;
    json_object_set_new(o, "private", json_boolean(r->invite[0] != '\0'));
    json_object_set_new(o, "auto_start", json_boolean(r->opt.auto_start));
    text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

int room_list(request *rq)
{
    const __typeof__(rq->cmd->u.list_rooms) *a = &rq->cmd->u.list_rooms;
    room_filter f;
    memset(&f, 0, sizeof f);
    f.has_game = a->has_game;
    snprintf(f.game, sizeof f.game, "%s", a->game);
    f.has_variant = a->has_variant;
    f.variant = a->variant;
    f.has_k = a->has_k;
    f.k = a->k;
    f.has_status = a->has_status;
    f.status = a->status;
    char *text = room_list_text(rq->c->lobby, &f, &rq->cmd->id);
    if (text == NULL)
        return THUE_PERR_INTERNAL;
    lobby_send_text(rq->c->lobby, rq->c, text);
    free(text);
    return 0;
}

/* The room a join or spectate names (its invite checked), which the sender has no seat in.
 * LOBBY_LATER (the answer comes later) when the room is not here and the cluster is asked
 * where it is (nodes_find_room). */
static int reach_unseated(request *rq, room **out)
{
    const __typeof__(rq->cmd->u.room) *a = &rq->cmd->u.room;
    thue_lobby *l = rq->c->lobby;
    if (l->cluster != NULL && room_find(l, a->room) == NULL)
        return nodes_find_room(rq, a->room);
    int err = reach_room(rq, a->room, a->has_invite, a->invite, out);
    if (err == 0 && room_seat_of(*out, rq->c->s) >= 0)
        return THUE_PERR_SEATED;
    return err;
}

int room_join(request *rq)
{
    const __typeof__(rq->cmd->u.room) *a = &rq->cmd->u.room;
    session *s = rq->c->s;
    room *r;
    int err = reach_unseated(rq, &r);
    if (err)
        return err;
    if (r->opt.rated && (err = rated_allowed(rq, s)) != 0)
        return err;
    int seat;
    if ((err = pick_seat(rq, r, a->has_seat, a->seat, &seat)) != 0)
        return err;
    /* In a room whose first match starts by itself, taking the last seat starts it: not
     * while the server drains. */
    if (r->opt.auto_start && r->status == THUE_STATUS_WAITING &&
        room_seat_taken(&r->seats[1 - seat]) &&
        (err = room_no_new_match(rq->c->lobby, rq->message, sizeof rq->message)) != 0)
        return err;
    int si = spect_index(r, s);
    if (si >= 0)
        spect_remove(r, si);
    memset(&r->seats[seat], 0, sizeof r->seats[seat]);
    r->seats[seat].s = s;
    request_ok(rq);
    table_maybe_start(r);
    room_changed(r);
    return 0;
}

int room_spectate(request *rq)
{
    session *s = rq->c->s;
    room *r;
    int err = reach_unseated(rq, &r);
    if (err)
        return err;
    if (spect_index(r, s) >= 0) {
        request_ok(rq);
        room_send_state(r, s);
        return 0;
    }
    if (r->nspect == r->capspect) {
        int cap = r->capspect ? 2 * r->capspect : 4;
        session **grown = realloc(r->spect, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return THUE_PERR_INTERNAL;
        r->spect = grown;
        r->capspect = cap;
    }
    r->spect[r->nspect++] = s;
    request_ok(rq);
    room_spectators_changed(r, s);
    return 0;
}

/* s leaves r: a running match is forfeited first. */
static void leave(room *r, session *s)
{
    int seat = room_seat_of(r, s);
    if (seat >= 0) {
        /* A shutdown interrupts matches; it does not decide them. */
        if (room_match_running(r) && !r->lobby->stopping)
            table_forfeit(r, seat, THUE_END_ABANDON);
        memset(&r->seats[seat], 0, sizeof r->seats[seat]);
    }
    int si = spect_index(r, s);
    if (si >= 0)
        spect_remove(r, si);
    if (r->creator == s) {
        s->rooms_created--;
        r->creator = NULL;
    }
}

int room_leave(request *rq)
{
    room *r;
    int seat;
    int err = member_room(rq, rq->cmd->u.room.room, &r, &seat);
    if (err)
        return err;
    request_ok(rq);
    leave(r, rq->c->s);
    if (seat < 0)
        room_spectators_changed(r, NULL);
    else
        room_changed(r);
    return 0;
}

void room_session_gone(room *r, session *s)
{
    bool in = room_has(r, s), seated = room_seat_of(r, s) >= 0;
    if (!in && r->creator != s)
        return;
    leave(r, s);
    if (seated)
        room_changed(r);
    else if (in)
        room_spectators_changed(r, NULL);
    else
        check_linger(r);
}

void room_presence(room *r, session *s)
{
    (void)s;
    room_changed(r);
}

static int seat_bot(request *rq, bool *taken_used);

/* seat_bot: a seat taken across the nodes for this message (nodes_bots_gate) that the
 * message does not use goes back. */
int room_seat_bot(request *rq)
{
    bool used = false;
    int err = seat_bot(rq, &used);
    if (rq->v.bots == 1 && !used && err != LOBBY_LATER)
        nodes_bot_count(rq->c->lobby, rq->v.bots_by, rq->v.bots_ip, -1);
    return err;
}

static int seat_bot(request *rq, bool *taken_used)
{
    const __typeof__(rq->cmd->u.seat_bot) *a = &rq->cmd->u.seat_bot;
    thue_lobby *l = rq->c->lobby;
    session *s = rq->c->s;
    room *r = room_find(l, a->room);
    if (r == NULL || r->ending || !room_visible(r, s))
        return no_room(rq);
    if (room_seat_of(r, s) < 0 && r->creator != s) {
        snprintf(rq->message, sizeof rq->message,
                 "only a player seated in the room, or its creator, may seat a bot");
        return THUE_PERR_NOT_ALLOWED;
    }
    if (room_match_running(r))
        return THUE_PERR_NOT_RUNNING;
    thue_bot_spec spec;
    thue_gbot_spec gspec;
    char why[THUE_PROTO_TEXT_MAX + 1];
    if (r->opt.has_game ? thue_gbot_spec_parse(r->game, a->bot, &gspec, why, sizeof why) != 0
                        : thue_bot_spec_parse(a->bot, &spec, why, sizeof why) != 0) {
        snprintf(rq->field, sizeof rq->field, "bot");
        snprintf(rq->message, sizeof rq->message, "%s", why);
        return THUE_PERR_BOT;
    }
    int seat, err;
    if ((err = pick_seat(rq, r, a->has_seat, a->seat, &seat)) != 0)
        return err;
    char owner[THUE_LIMIT_KEY_MAX], ip[THUE_LIMIT_KEY_MAX], by[THUE_LIMIT_KEY_MAX];
    lobby_owner_of(s, rq->c->peer, owner, sizeof owner);
    lobby_ip_of(s, rq->c->peer, ip, sizeof ip);
    if (s->acct != NULL)
        snprintf(by, sizeof by, "%s", owner);
    else /* (a session of this node: its serial, and the node's name with several) */
        snprintf(by, sizeof by, "guest#%llu@%.32s", (unsigned long long)s->serial, nodes_self(l));
    if ((err = bot_seat_allowed(rq, r, seat, a->think_ms, by, ip)) != 0)
        return err;
    if (r->opt.has_game ? table_seat_gbot(r, &r->seats[seat], &gspec, a->think_ms)
                        : table_seat_bot(r, &r->seats[seat], &spec, a->think_ms))
        return THUE_PERR_INTERNAL;
    snprintf(r->seats[seat].owner, sizeof r->seats[seat].owner, "%s", owner);
    snprintf(r->seats[seat].owner_ip, sizeof r->seats[seat].owner_ip, "%s", ip);
    snprintf(r->seats[seat].seated_by, sizeof r->seats[seat].seated_by, "%s", by);
    r->seats[seat].owner_limited = true;
    /* The seat the gate took (for this message's by and ip: the ones just set) is this
     * one's count, if it counts now (else it goes back: room_seat_bot). */
    r->seats[seat].owner_taken = rq->v.bots == 1;
    count_bots(r, !room_is_empty(r));
    *taken_used = rq->v.bots == 1 && r->seats[seat].owner_counted;
    r->seats[seat].owner_taken = false;
    thue_log(THUE_LOG_INFO, "room %s: bot %s seated by %s", r->id, r->seats[seat].bot_spec_text,
             s->player.name);
    request_ok(rq);
    table_maybe_start(r);
    room_changed(r);
    return 0;
}

int room_ready(request *rq)
{
    room *r;
    int seat;
    int err = seated_room(rq, rq->cmd->u.room.room, &r, &seat);
    if (err)
        return err;
    if (r->status != THUE_STATUS_WAITING) {
        snprintf(rq->message, sizeof rq->message,
                 "ready is for a room whose first match has not started; after a match, "
                 "ask for a rematch");
        return THUE_PERR_NOT_RUNNING;
    }
    err = room_no_new_match(rq->c->lobby, rq->message, sizeof rq->message);
    if (err)
        return err;
    r->seats[seat].ready = true;
    request_ok(rq);
    table_maybe_start(r);
    room_changed(r);
    return 0;
}

/* The tail of every move command, Thue's place and paint and another game's move: a
 * refused move (err, with rq's field and message set) changes nothing; an accepted one is
 * acknowledged first, then the table goes on (next turn or end, new state for all). */
static int move_done(request *rq, room *r, int err)
{
    if (err)
        return err;
    request_ok(rq);
    table_after_move(r);
    return 0;
}

int room_move(request *rq, bool paint)
{
    room *r;
    int seat;
    int err = seated_room(rq, rq->cmd->u.move.room, &r, &seat);
    if (err)
        return err;
    if (r->opt.has_game) {
        snprintf(rq->field, sizeof rq->field, "type");
        snprintf(rq->message, sizeof rq->message, "this room plays %s: send move %s",
                 r->game->title, r->game->move_doc);
        return THUE_EMOVE;
    }
    if (!r->has_match)
        return THUE_PERR_NOT_RUNNING;
    err = table_apply_move(r, seat, paint, rq->cmd->u.move.value);
    if (err == THUE_EPOSITION) { /* a refused move changed nothing: the word is as it was */
        thue_thue_view v;
        thue_game_thue_view(&r->gopt, r->gstate, &v);
        snprintf(rq->field, sizeof rq->field, "position");
        snprintf(rq->message, sizeof rq->message, "position out of range: positions are 0..%d",
                 v.len);
    } else if (err == THUE_ESYMBOL) {
        snprintf(rq->field, sizeof rq->field, "symbol");
        snprintf(rq->message, sizeof rq->message, "symbol out of range: symbols are 0..%d",
                 r->opt.k - 1);
    }
    return move_done(rq, r, err);
}

int room_gmove(request *rq)
{
    room *r;
    int seat;
    int err = seated_room(rq, rq->cmd->u.gmove.room, &r, &seat);
    if (err)
        return err;
    if (!r->opt.has_game) {
        snprintf(rq->field, sizeof rq->field, "type");
        snprintf(rq->message, sizeof rq->message,
                 "this room plays Thue: send place and paint, not move");
        return THUE_EMOVE;
    }
    if (!r->has_match)
        return THUE_PERR_NOT_RUNNING;
    thue_gerr e;
    memset(&e, 0, sizeof e);
    thue_gmove m;
    json_t *j = json_loads(rq->cmd->u.gmove.move, JSON_REJECT_DUPLICATES, NULL);
    err = j != NULL ? r->game->move_parse(&r->gopt, j, &m, &e)
                    : thue_gerr_set(&e, THUE_EMOVE, "", "a move is an object");
    json_decref(j);
    if (err == 0)
        err = table_apply_gmove(r, seat, &m, &e);
    if (err)
        request_gerr(rq, "move", &e);
    return move_done(rq, r, err);
}

int room_legal_moves(request *rq)
{
    room *r;
    int seat;
    int err = member_room(rq, rq->cmd->u.room.room, &r, &seat);
    if (err)
        return err;
    if (!r->has_match)
        return THUE_PERR_NOT_RUNNING;
    char *text = legal_message(r, &rq->cmd->id, rq->c->proto);
    if (text == NULL)
        return THUE_PERR_INTERNAL;
    lobby_send_text(r->lobby, rq->c, text);
    free(text);
    return 0;
}

int room_sync(request *rq)
{
    room *r;
    int seat;
    int err = member_room(rq, rq->cmd->u.room.room, &r, &seat);
    if (err)
        return err;
    request_ok(rq);
    room_send_state(r, rq->c->s);
    return 0;
}

int room_resign(request *rq)
{
    room *r;
    int seat;
    int err = seated_room(rq, rq->cmd->u.room.room, &r, &seat);
    if (err)
        return err;
    if (!room_match_running(r))
        return THUE_PERR_NOT_RUNNING;
    request_ok(rq);
    table_forfeit(r, seat, THUE_END_RESIGN);
    return 0;
}

int room_rematch(request *rq)
{
    room *r;
    int seat;
    int err = seated_room(rq, rq->cmd->u.room.room, &r, &seat);
    if (err)
        return err;
    if (!r->has_match) {
        snprintf(rq->message, sizeof rq->message,
                 "no match has been played in this room yet: say ready to start one");
        return THUE_PERR_NOT_OVER;
    }
    if (room_match_running(r))
        return THUE_PERR_NOT_OVER;
    if (r->tournament[0]) {
        snprintf(rq->message, sizeof rq->message,
                 "a tournament game is played once; the tournament pairs the next one");
        return THUE_PERR_NOT_ALLOWED;
    }
    err = room_no_new_match(rq->c->lobby, rq->message, sizeof rq->message);
    if (err)
        return err;
    r->seats[seat].rematch = true;
    request_ok(rq);
    table_maybe_start(r);
    room_changed(r);
    return 0;
}

int room_chat(request *rq)
{
    room *r;
    int seat;
    int err = member_room(rq, rq->cmd->u.chat.room, &r, &seat);
    if (err)
        return err;
    request_ok(rq);
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_CHAT_MESSAGE;
    snprintf(msg.u.chat.room, sizeof msg.u.chat.room, "%s", r->id);
    msg.u.chat.from = rq->c->s->player;
    snprintf(msg.u.chat.text, sizeof msg.u.chat.text, "%s", rq->cmd->u.chat.text);
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    msg.u.chat.at = tv.tv_sec * 1000 + tv.tv_usec / 1000;
    msg.u.chat.spectator = seat < 0;
    /* While a match runs, the spectators' talk stays among them: no player is told
     * (or helped to) a move by someone watching. */
    if (seat < 0 && room_match_running(r))
        room_broadcast_spectators(r, &msg);
    else
        room_broadcast(r, &msg);
    return 0;
}

room *room_quick(thue_lobby *l, session *a, session *b, const thue_room_options *opt)
{
    room *r = room_new(l, opt, false);
    if (r == NULL)
        return NULL;
    snprintf(r->name, sizeof r->name, "Quick match");
    r->seats[0].s = a;
    r->seats[0].ready = true;
    if (b) {
        r->seats[1].s = b;
        r->seats[1].ready = true;
    } else {
        thue_gbot_spec gspec;
        thue_bot_spec spec;
        int err = r->opt.has_game
                      ? (thue_gbot_spec_parse(r->game, QUICK_GBOT_SPEC, &gspec, NULL, 0) ||
                         table_seat_gbot(r, &r->seats[1], &gspec, l->cfg.bot_think_ms))
                      : (thue_bot_spec_parse(QUICK_BOT_SPEC, &spec, NULL, 0) ||
                         table_seat_bot(r, &r->seats[1], &spec, l->cfg.bot_think_ms));
        if (err) {
            room_destroy(r);
            return NULL;
        }
        lobby_owner_of(a, NULL, r->seats[1].owner, sizeof r->seats[1].owner);
    }
    if (table_match_start(r, (int)(lobby_random(l) & 1)) != 0) {
        room_destroy(r);
        return NULL;
    }
    r->version++;
    r->version2++; /* thue.v2's too: the state the players get is the room's first */
    return r;
}

/* ---- tournaments ------------------------------------------------------------------------ */

room *room_for_tournament(thue_lobby *l, tournament *t, int board, const thue_room_options *opt)
{
    room *r = room_new(l, opt, false);
    if (r == NULL)
        return NULL;
    snprintf(r->name, sizeof r->name, "Round %d, board %d", t->round, board + 1);
    snprintf(r->tournament, sizeof r->tournament, "%s", t->id);
    r->tour_round = t->round;
    r->tour_board = board;
    return r;
}

int room_seat_tournament_bot(room *r, int seat, const char *spec_text, int think_ms)
{
    thue_bot_spec spec;
    thue_gbot_spec gspec;
    if (r->opt.has_game ? thue_gbot_spec_parse(r->game, spec_text, &gspec, NULL, 0) != 0 ||
                              table_seat_gbot(r, &r->seats[seat], &gspec, think_ms) != 0
                        : thue_bot_spec_parse(spec_text, &spec, NULL, 0) != 0 ||
                              table_seat_bot(r, &r->seats[seat], &spec, think_ms) != 0)
        return -1;
    /* A tournament's games share one owner: a big tournament is one fair share. */
    snprintf(r->seats[seat].owner, sizeof r->seats[seat].owner, "tour:%s", r->tournament);
    return 0;
}

void room_seat_session(room *r, int seat, session *s)
{
    memset(&r->seats[seat], 0, sizeof r->seats[seat]);
    r->seats[seat].s = s;
    r->seats[seat].ready = true;
}

void room_begin_if_full(room *r)
{
    if (!room_seat_taken(&r->seats[0]) || !room_seat_taken(&r->seats[1]))
        return;
    if (table_match_start(r, 0) != 0) {
        thue_log(THUE_LOG_ERROR, "room %s: cannot start a tournament game", r->id);
        return;
    }
    room_changed(r);
}
