/*
 * roomstate.c: reading a room (roomstate.h): finding it by id, its seats and spectators,
 * its clocks, the match's winner, the parts of its state messages the table also builds,
 * and sending one message to everyone in it. Shared by room.c, table.c, record.c and
 * tournament.c; it calls no lobby module but util.c, so any of them may call it.
 */
#include "roomstate.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

room *room_find(thue_lobby *l, const char *id)
{
    for (room *r = l->by_id[lobby_hash(id) % LOBBY_BUCKETS]; r; r = r->hash_next)
        if (strcmp(r->id, id) == 0)
            return r;
    return NULL;
}

int room_seat_of(const room *r, const session *s)
{
    for (int i = 0; i < 2; i++)
        if (r->seats[i].s == s)
            return i;
    return -1;
}

bool room_seat_taken(const room_seat *st)
{
    return st->s != NULL || st->bot;
}

bool room_match_running(const room *r)
{
    return r->has_match && !r->gover;
}

/* The seat to move in a running match, -1 when none. */
int room_seat_to_move(const room *r)
{
    if (!room_match_running(r))
        return -1;
    int p = r->game->to_move(&r->gopt, r->gstate);
    return p < 0 ? -1 : r->gfirst ^ p;
}

int room_winner(const room *r)
{
    return r->gwinner;
}

/* No human seated, nobody watching and no creator around: nobody would notice the room.
 * A tournament's room is never empty: its game must be played. */
bool room_is_empty(const room *r)
{
    return r->seats[0].s == NULL && r->seats[1].s == NULL && r->nspect == 0 && r->creator == NULL &&
           r->tournament[0] == '\0';
}

uint64_t room_elapsed_ns(const room *r)
{
    uint64_t now = uv_hrtime();
    return now > r->turn_start_ns ? now - r->turn_start_ns : 0;
}

/* A seat's time left now, in ns (negative once it ran out). Clocks are kept in ns so
 * that rounding never gives anybody time. */
int64_t room_clock_left(const room *r, int seat)
{
    int64_t left = r->clock_ns[seat];
    if (r->clock_running == seat)
        left -= (int64_t)room_elapsed_ns(r);
    return left;
}

/* *out = *in, but for the text of the game's name and options only as far as it goes (a
 * room's state is built after every move; a Thue room's options text is empty). */
void room_options_copy(thue_room_options *out, const thue_room_options *in)
{
    memcpy(out, in, offsetof(thue_room_options, game));
    memcpy(out->game, in->game, strnlen(in->game, sizeof in->game - 1) + 1);
    out->game[sizeof out->game - 1] = '\0';
    size_t n = strnlen(in->game_options, sizeof in->game_options - 1);
    memcpy(out->game_options, in->game_options, n);
    out->game_options[n] = '\0';
}

void room_player_of(const room_seat *st, thue_player *out)
{
    memset(out, 0, sizeof *out);
    if (st->bot) {
        snprintf(out->name, sizeof out->name, "%s", st->bot_name);
        out->kind = THUE_KIND_BOT;
    } else if (st->s) {
        *out = st->s->player;
    }
}

/* A Thue room's round i as its messages show it (PROTOCOL.md section 6): from the game's
 * state, and a forfeit's mark: the round being played when it came ends "forfeit" with
 * its word as it stood, and a round after it is "not_played". */
void room_round_info(const room *r, const thue_thue_view *v, int i, thue_round_info *out)
{
    memset(out, 0, sizeof *out);
    out->builder = r->gfirst ^ i; /* player p builds round p */
    out->points = v->rounds[i].points;
    out->end = (thue_round_end)v->rounds[i].end;
    bool forfeit = r->gover && r->greason != THUE_END_SCORE;
    if (forfeit && i == v->round && out->end == THUE_ROUND_PLAYING)
        out->end = THUE_ROUND_FORFEIT;
    else if (forfeit && i > v->round)
        out->end = THUE_ROUND_NOT_PLAYED;
    out->has_repetition = out->end == THUE_ROUND_REPETITION;
    out->repetition = v->rounds[i].rep;
    if (i == 0 && v->word0 != NULL) {
        out->word = v->word0;
        out->word_len = v->len0;
    } else if (i == v->round && (v->step == THUE_STEP_OVER || out->end == THUE_ROUND_FORFEIT)) {
        out->word = v->word;
        out->word_len = v->len;
    }
}

/* Writes a new JSON reference as text into buf (cap bytes); "{}" when it does not fit. */
void room_json_into(json_t *j, char *buf, size_t cap)
{
    size_t n = j != NULL ? json_dumpb(j, buf, cap - 1, JSON_COMPACT | JSON_PRESERVE_ORDER) : 0;
    json_decref(j);
    if (n == 0 || n >= cap - 1)
        n = (size_t)snprintf(buf, cap, "{}");
    buf[n] = '\0';
}

void room_cancel_job(room *r)
{
    if (r->job == 0)
        return;
    thue_pool_cancel(r->lobby->pool, r->job);
    r->lobby->metrics->bot_jobs_cancelled++;
    r->job = 0;
    r->thinking = -1;
}

/* Sends an encoded message to everyone in the room (seated humans and spectators). */
void room_broadcast_text(room *r, const char *text)
{
    for (int i = 0; i < 2; i++)
        if (r->seats[i].s)
            lobby_send_text(r->lobby, r->seats[i].s->client, text);
    for (int i = 0; i < r->nspect; i++)
        lobby_send_text(r->lobby, r->spect[i]->client, text);
}

/* msg encoded once (NULL, said in the log, when it cannot be). */
static char *room_encode(room *r, const thue_msg *msg)
{
    char *text = thue_msg_encode(msg, NULL);
    if (text == NULL)
        thue_log(THUE_LOG_ERROR, "room %s: cannot encode a %s message", r->id,
                 thue_msg_type_name(msg->type));
    return text;
}

/* Sends msg to everyone in the room, encoded once. */
void room_broadcast(room *r, const thue_msg *msg)
{
    char *text = room_encode(r, msg);
    if (text == NULL)
        return;
    room_broadcast_text(r, text);
    free(text);
}

void room_broadcast_spectators(room *r, const thue_msg *msg)
{
    char *text = room_encode(r, msg);
    if (text == NULL)
        return;
    for (int i = 0; i < r->nspect; i++)
        lobby_send_text(r->lobby, r->spect[i]->client, text);
    free(text);
}
