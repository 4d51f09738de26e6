/*
 * quickmatch.h: the quick-match queue (quickmatch.c); called by lobby.c's dispatch, it
 * calls room.c (room_quick) and util.c. Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_QUICKMATCH_H
#define THUE_SERVER_LOBBY_QUICKMATCH_H

#include <jansson.h>

#include "cluster/cluster.h"
#include "lobby_types.h"

/* queue_join: pairs the sender with the longest-waiting session of the same queue, or
 * queues it (with a bot after bot_after_s when asked). */
int cmd_queue_join(request *rq);
/* queue_leave: out of the queue (also when not in it). */
int cmd_queue_leave(request *rq);
/* Takes a session out of the queue and stops its queue timer (a no-op when not queued), and
 * out of Redis's pool with its ticket, if it has one. */
void queue_remove(session *s);
/* The lobby drains (thue_lobby_drain): a queued session leaves the queue and gets
 * queue_failed (server_busy); a no-op when not queued. */
void quickmatch_drain(thue_lobby *l, session *s);

/* Several nodes (quickmatch.c's last part; lobby.c calls these from the cluster's hooks):
 * a waiting ticket of this node was paired by a join on another node; an event of
 * another node for quick match ("match": the room made there for a ticket of this node,
 * "requeue": a ticket of this node goes back to the pool); Redis is back (the waiting
 * tickets are written again). */
void quickmatch_paired(thue_lobby *l, const thue_cluster_pair *pair);
void quickmatch_event(thue_lobby *l, const char *from, json_t *ev);
void quickmatch_cluster_up(thue_lobby *l);
/* Each second with a cluster: "match" events not yet received are sent again, and a
 * paired session whose "match" never came queues again. */
void quickmatch_tick(thue_lobby *l);
/* Frees the notes still waiting (the lobby is closing). */
void quickmatch_free(thue_lobby *l);

#endif
