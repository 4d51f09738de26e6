/*
 * record.h: a finished match's ratings and record (record.c). Calls accounts.c (ratings,
 * ladders), roomstate.c and util.c; what is to happen once the record is committed is
 * its caller's (the table's), by a callback. Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_RECORD_H
#define THUE_SERVER_LOBBY_RECORD_H

#include "lobby_types.h"

/* Called once a match's record is committed (or failed, or there is no store), with the
 * lobby, the room's id (the room may be gone by then) and the encoded match_end (NULL
 * when it could not be encoded). */
typedef void (*record_done_fn)(thue_lobby *l, const char *room_id, const char *text);

/* Rates a finished match, queues its record and calls done with match_end (end, filled
 * by the caller with the round words still borrowed) once the record is committed. */
void record_match(room *r, thue_msg *end, record_done_fn done);

#endif
