/*
 * table.h: the table that runs a room's match (table.c): its start, the turns, the
 * clocks, every move (a person's or a bot's), the bots' jobs in the pool, and its end.
 * Loop thread only; inside the lobby.
 *
 * Calls go one way: room.c's commands call the table; the table calls record.c (the end),
 * accounts.c (bots' accounts), roomstate.c (seats, clocks) and util.c, never room.c: it
 * sends the new state through the room's `changed` hook (room.c's room_changed), and a
 * tournament room's end reaches its tournament through the room's `game_over` hook.
 */
#ifndef THUE_SERVER_LOBBY_TABLE_H
#define THUE_SERVER_LOBBY_TABLE_H

#include "lobby_types.h"
#include "roomstate.h"

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
/* Empties the match's record of moves (their texts freed; the array kept). */
void table_free_moves(room *r);
/* The bot in `seat` is to move: its job goes to the pool. */
void table_submit_bot(room *r, int seat);
/* Seats a Thue bot, or another game's: 0, or -1 when a rated room's bot account cannot be
 * made (a bot in a rated room plays as its SPEC's account). */
int table_seat_bot(room *r, room_seat *st, const thue_bot_spec *spec, int think_ms);
int table_seat_gbot(room *r, room_seat *st, const thue_gbot_spec *spec, int think_ms);

#endif
