/*
 * analysis.h: the analysis view's server side (analysis.c): analyze, analyze_stop,
 * analyze_resume, analyze_close, analyze_sync (PROTOCOL.md "Analysis"). A session has at
 * most one analysis: a persistent uct tree (search/guct.h) of a room's position or of any
 * position typed in, grown in slices on the worker pool and streamed as analysis_tree
 * events, or under thue.v2 as analysis_delta updates (analysis_delta.h).
 *
 * Called by lobby.c (the dispatch, the end of a connection or session, shutdown); calls
 * roomstate.c and util.c. Loop thread only; the searching and the building of the tree's
 * JSON happen on the pool's workers.
 */
#ifndef THUE_SERVER_LOBBY_ANALYSIS_H
#define THUE_SERVER_LOBBY_ANALYSIS_H

#include "lobby_types.h"

int cmd_analyze(request *rq);
int cmd_analyze_stop(request *rq);
int cmd_analyze_resume(request *rq);
int cmd_analyze_close(request *rq);
/* analyze_sync: the next update is the whole tree (thue.v2's analysis_delta with full; under
 * thue.v1 an analysis_tree), sent even when the analysis does not search. */
int cmd_analyze_sync(request *rq);

/* The session's analysis, if any, is closed (its connection went, or the session ends). */
void analysis_session_gone(session *s);
/* The session's connection is being taken over by another: a thue.v2 analysis is closed
 * (the new connection has none of its tree); a thue.v1 one streams on to the new one. */
void analysis_client_replaced(session *s);
/* Shutting down: every analysis is closed; those with a slice on a worker are freed when
 * it comes back (they hold one of the lobby's `handles` until then). */
void analysis_shutdown(thue_lobby *l);

#endif
