/*
 * bestmove.h: the get_best_move command (bestmove.c, PROTOCOL.md section 16, "get_best_move"):
 * the perfect bot's move for any position of any game, searched on the worker pool and
 * answered once. The lessons page (clients/web/lessons.js) plays its key positions with it.
 *
 * Called by lobby.c (the dispatch, the end of a connection). Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_BESTMOVE_H
#define THUE_SERVER_LOBBY_BESTMOVE_H

#include "lobby_types.h"

/* Each search ends within this much wall time from its submission (queue included);
 * what the perfect bot has not decided by then is answered with its fallback move. */
#define LOBBY_BEST_MOVE_MS 2000
/* get_best_move searches out at once: per connection, per address (lobby_ip_of), server. */
#define LOBBY_BEST_MOVE_PER_IP 4
#define LOBBY_BEST_MOVE_MAX 64

int cmd_best_move(request *rq);

/* The connection is going: its search, if any, is cancelled (its answer never comes). */
void best_move_client_gone(thue_client *c);

#endif
