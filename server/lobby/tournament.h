/*
 * tournament.h: tournaments (tournament.c); called by lobby.c's dispatch, they call
 * room.c (their games' rooms), accounts.c, roomstate.c and util.c. A tournament room's
 * end reaches tournament.c through the room's game_over hook, which tournament.c sets:
 * no room or table module calls tournament.c. Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_TOURNAMENT_H
#define THUE_SERVER_LOBBY_TOURNAMENT_H

#include "lobby_types.h"

tournament *tournament_find(thue_lobby *l, const char *id);
int cmd_create_tournament(request *rq);
int cmd_join_tournament(request *rq);
int cmd_leave_tournament(request *rq);
int cmd_start_tournament(request *rq);
int cmd_list_tournaments(request *rq);
int cmd_get_tournament(request *rq);
/* The `tournaments` reply: status (-1: any), offset and count as list_tournaments. With
 * id NULL, for the HTTP API: its members alone (thue_msg_encode_members), as for: */
char *tournaments_text(thue_lobby *l, const thue_msg_id *id, int status, int offset, int count);
/* Several nodes: this node's newest THUE_TOURNAMENTS_SHARED tournaments as a whole
 * `tournaments` message, for the other nodes (nodes.h); NULL when out of memory. */
#define THUE_TOURNAMENTS_SHARED 200
char *tournaments_node_text(thue_lobby *l);
/* The `tournament` reply (id NULL: the HTTP API's members alone). */
char *tournament_text(tournament *t, const thue_msg_id *id);
void tournament_session_gone(thue_lobby *l, session *s);
void tournaments_free(thue_lobby *l);
/* Open tournaments that were never started expire after cfg.tournament_expire_s: arms
 * the lobby's tour_timer for the next one (stops it when none is open). */
void tournaments_arm(thue_lobby *l);
/* Several nodes, each second: renews the leases of the tournaments this node directs,
 * drops those another node has taken, and takes over one whose director is gone. */
void tournaments_lease_tick(thue_lobby *l);

#endif
