/*
 * room.h: rooms, seats, spectators and the room commands (room.c); called by lobby.c's
 * dispatch, quickmatch.c and tournament.c. room.c calls the table (table.h), accounts.c,
 * roomstate.c and util.c; it reaches lobby.c only through the lobby's maybe_closed hook.
 * Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_ROOM_H
#define THUE_SERVER_LOBBY_ROOM_H

#include "lobby_types.h"
#include "roomstate.h"

/* 0 when s may play rated, else the error (with rq's message set). */
int rated_allowed(request *rq, const session *s);

/*
 * Whom a session's bots and analyses search for, the key of the pool's fair shares, the
 * memory budget per owner and the per-owner limits: "acct:ID" for an account; for a
 * guest its address key (lobby_ip_of).
 */
void lobby_owner_of(const session *s, const char *peer, char *out, size_t size);
/* The address a session counts as: "ip:" and thue_addr_key of `peer` (the connection the
 * command came on) or of the session's connection, or "guest:KEY" when it has none. */
void lobby_ip_of(const session *s, const char *peer, char *out, size_t size);
/* Whether positions of game g with opt are small enough for the server's searches (a
 * bot's move, an analysis): at most cfg.search_moves_max legal moves. 0, or -1 with a
 * sentence for the player in why. g NULL: 0. */
int lobby_search_allowed(const thue_lobby *l, const thue_gamedef *g, const thue_gopt *opt,
                         char *why, size_t size);

int room_create(request *rq);
/* The game a command names (NULL or "thue": Thue) with its options object's text (NULL:
 * the defaults): 0 with opt's game members, *game (NULL for Thue) and *gopt filled, or
 * unknown_game or bad_options, with rq's field and message set. */
int room_game_options(request *rq, const char *name, const char *options,
                      thue_room_options *opt, const thue_gamedef **game, thue_gopt *gopt);
int room_list(request *rq);
int room_join(request *rq);
int room_spectate(request *rq);
int room_leave(request *rq);
int room_seat_bot(request *rq);
int room_ready(request *rq);
int room_move(request *rq, bool paint);
/* `move`: a move of another game than Thue. */
int room_gmove(request *rq);
/* `get_legal_moves`: the moves the player to move may make now (any member may ask). */
int room_legal_moves(request *rq);
/* sync: ok, then the room's whole state again (thue.v2's answer to a version gap). */
int room_sync(request *rq);
/* The room's spectators changed (joined: the newcomer, or NULL for one who left):
 * thue.v1's members get the state as after any change; thue.v2's get the count within a
 * second (watchers), and a thue.v2 newcomer the whole state now. */
void room_spectators_changed(room *r, session *joined);
int room_resign(request *rq);
int room_rematch(request *rq);
int room_chat(request *rq);
/* Which rooms a list shows: list_rooms' filters, or /api/rooms' arguments. */
typedef struct room_filter {
    bool all_games; /* every game's rooms (what a node tells the others: nodes.h) */
    bool has_game; /* false: Thue's rooms only */
    char game[THUE_PROTO_GAME_MAX + 1];
    bool has_variant, has_k, has_status; /* variant and k: Thue's rooms only */
    thue_variant variant;
    int k;
    thue_room_status status;
} room_filter;
/* The `rooms` message of the rooms f lets through, encoded: the reply to a list_rooms
 * command with its id, or (id NULL) the HTTP API's answer, its members alone
 * (thue_msg_encode_members). NULL when out of memory. */
char *room_list_text(thue_lobby *l, const room_filter *f, const thue_msg_id *id);
/* One room as GET /api/rooms/{id} shows it: its summary (as `rooms` lists it) with
 * `private` and `auto_start`; a private room only with its invite code (compared in
 * constant time). A new string, or NULL when there is no such room for that code (one
 * answer for both, so that nobody learns a private room exists) or out of memory. */
char *room_peek_text(thue_lobby *l, const char *id, const char *code);
/* Several nodes: the list shows the other nodes' public rooms too (nodes.h), after this
 * node's, up to ROOM_LIST_MAX. */

/* Whether the client at peer (its address text) may have a new room made now: 0, with
 * one room taken from its address's bucket; or server_busy (the server is at max_rooms)
 * or rate_limited (the address made cfg.room_rate_per_ip rooms in the last minute), with
 * a sentence in why that says when to try again. */
int room_allowed(thue_lobby *l, const char *peer, char *why, size_t size);
/* A draining lobby (thue_lobby_drain) starts no match: THUE_PERR_BUSY with the sentence in
 * why, or 0. room_allowed asks it first; ready and rematch too. */
int room_no_new_match(thue_lobby *l, char *why, size_t size);
/* A room made by quick match for two sessions (b NULL: a bot in the other seat); both
 * are seated and ready and the match starts. NULL when the server is at its room limit
 * or out of memory. */
room *room_quick(thue_lobby *l, session *a, session *b, const thue_room_options *opt);
/* Pushes the room's state to everyone in it (after a version bump). */
void room_changed(room *r);
/* Sends the room's state to one session. */
void room_send_state(room *r, session *s);
/* Whether s is seated in or watching r. */
bool room_has(const room *r, const session *s);
/* The session's connection came or went: the seats' `connected` changed. */
void room_presence(room *r, session *s);
/* The session ends (grace period over, or the lobby closes): it forfeits its running
 * matches, leaves its seats and stops watching. */
void room_session_gone(room *r, session *s);
/* Starts closing a room: cancels its bot job, closes its timers. */
void room_destroy(room *r);

/* room.c, for tournaments: a room for one game (no creator, not listed as anyone's),
 * its seats, and the match's start once both are filled (seat 0 builds first). */
room *room_for_tournament(thue_lobby *l, tournament *t, int board,
                          const thue_room_options *opt);
int room_seat_tournament_bot(room *r, int seat, const char *spec, int think_ms);
void room_seat_session(room *r, int seat, session *s);
void room_begin_if_full(room *r);

#endif
