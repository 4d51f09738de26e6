/*
 * reviews.h: the exact review of finished matches (issue 33; search/review.h computes it,
 * reviews.c runs it). Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_REVIEWS_H
#define THUE_SERVER_LOBBY_REVIEWS_H

#include "lobby_types.h"

/* A match's record was committed: review it in the background (if the server reviews
 * and has room for one more: else it waits for someone to ask, thue_lobby_review_wanted). */
void reviews_match_stored(thue_lobby *l, const char *match_id);
/* Stops every review under way (their tasks end soon; each holds a lobby handle until
 * its task is back). */
void reviews_shutdown(thue_lobby *l);

/* The review of a worker's record: the JSON text (malloc'd) of the review of the match
 * record `record` (as GET /api/matches/{id} writes it), NULL out of memory. Any thread
 * (exposed for tests): a record the review cannot replay gives a review with status
 * "unavailable" and the reason. */
char *reviews_compute(const char *record, const thue_bot_limits *lim);

#endif
