/*
 * roomstate.h: reading a room (roomstate.c): finding it, its seats, clocks and match,
 * pieces of its state messages, and sending a message to everyone in it. Calls only
 * util.c, so every module may call it. Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_ROOMSTATE_H
#define THUE_SERVER_LOBBY_ROOMSTATE_H

#include "lobby_types.h"
#include "util.h"

room *room_find(thue_lobby *l, const char *id);
int room_seat_of(const room *r, const session *s);
bool room_seat_taken(const room_seat *st);
bool room_match_running(const room *r);
/* The seat to move in a running match, -1 when none. */
int room_seat_to_move(const room *r);
/* The winner of the room's match that is over: a seat, or -1 for a draw. */
int room_winner(const room *r);
/* Nobody would notice the room: no human seated, nobody watching, no creator, not a
 * tournament's. */
bool room_is_empty(const room *r);
uint64_t room_elapsed_ns(const room *r);
/* A seat's time left now, in ns (negative once it ran out). */
int64_t room_clock_left(const room *r, int seat);
/* *out = *in, the game's name and options text only as far as it goes. */
void room_options_copy(thue_room_options *out, const thue_room_options *in);
void room_player_of(const room_seat *st, thue_player *out);
/* Round i (0 or 1) of a Thue room's match for its messages, from v: the view of the
 * room's state, built once by the caller (thue_game_thue_view). */
void room_round_info(const room *r, const thue_thue_view *v, int i, thue_round_info *out);
/* Writes a new JSON reference as text into buf (cap bytes); "{}" when it does not fit. */
void room_json_into(json_t *j, char *buf, size_t cap);
/* Cancels the room's bot job, if any. */
void room_cancel_job(room *r);
/* Sends msg (encoded once), or an encoded text, to everyone in the room. */
void room_broadcast(room *r, const thue_msg *msg);
void room_broadcast_text(room *r, const char *text);
/* Sends msg, encoded once, to the room's spectators only (not its seated players). */
void room_broadcast_spectators(room *r, const thue_msg *msg);

#endif
