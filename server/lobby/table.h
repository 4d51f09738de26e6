/*
 * table.h: the table that runs a room's match (table.c): its start, the turns, the
 * clocks, every move (a person's or a bot's), the bots' jobs in the pool, and its end;
 * and the few room helpers (room.c) it reads. Loop thread only; inside the lobby.
 *
 * Calls go one way for the match: room.c's commands call the table; the table calls back
 * into the room only to send the new state (room_changed) and to read seats and clocks.
 */
#ifndef THUE_SERVER_LOBBY_TABLE_H
#define THUE_SERVER_LOBBY_TABLE_H

#include "lobby_internal.h"

/* ---- table.c ---------------------------------------------------------------------------- */

/* Starts match number+1 with `builder` building round 0 (another game: moving first).
 * 0 or an engine code. */
int table_match_start(room *r, int builder);
/* Starts a match when both seats are filled and agree: ready before the first match,
 * rematch after one. */
void table_maybe_start(room *r);
/* `seat` forfeits the running match for `why` (resign, timeout, abandon). */
void table_forfeit(room *r, int seat, thue_end_reason why);
/* Seat `seat` places at or paints `value` (Thue): 0 or an engine code, nothing changed
 * then. On success the caller replies, then calls table_after_move. */
int table_apply_move(room *r, int seat, bool paint, int value);
/* Seat `seat` plays another game's move: 0, or the game's code with e filled. */
int table_apply_gmove(room *r, int seat, const thue_gmove *m, thue_gerr *e);
/* After an accepted move: the next turn or the end, and the new state for everyone. */
void table_after_move(room *r);
/* The bot in `seat` is to move: its job goes to the pool. */
void table_submit_bot(room *r, int seat);
/* Seats a Thue bot, or another game's: 0, or -1 when a rated room's bot account cannot be
 * made (a bot in a rated room plays as its SPEC's account). */
int table_seat_bot(room *r, room_seat *st, const thue_bot_spec *spec, int think_ms);
int table_seat_gbot(room *r, room_seat *st, const thue_gbot_spec *spec, int think_ms);

/* ---- room.c, for the table -------------------------------------------------------------- */

int room_seat_of(const room *r, const session *s);
bool room_seat_taken(const room_seat *st);
bool room_match_running(const room *r);
/* The seat to move in a running match, -1 when none. */
int room_seat_to_move(const room *r);
/* Nobody would notice the room: no human seated, nobody watching, no creator, not a
 * tournament's. */
bool room_is_empty(const room *r);
uint64_t room_elapsed_ns(const room *r);
/* A seat's time left now, in ns (negative once it ran out). */
int64_t room_clock_left(const room *r, int seat);
void room_player_of(const room_seat *st, thue_player *out);
/* Round i (0 or 1) of a Thue room's match for its messages, from v: the view of the
 * room's state, built once by the caller (thue_game_thue_view). */
void room_round_info(const room *r, const thue_thue_view *v, int i, thue_round_info *out);
/* Writes a new JSON reference as text into buf (cap bytes); "{}" when it does not fit. */
void room_json_into(json_t *j, char *buf, size_t cap);
/* Cancels the room's bot job, if any. */
void room_cancel_job(room *r);

#endif
