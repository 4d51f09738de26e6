/*
 * session.h: the lobby's tables of sessions (session.c), for the dispatch layer (lobby.c,
 * account_cmds.c): finding a session by name or resume token, linking it into and out of
 * the tables, renaming it, and pushing its rooms' states. Modules below the dispatch
 * layer (rooms, the table, tournaments, quick match, accounts) do not include it; they
 * reach lobby.c only through the lobby's hooks (lobby_types.h). Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_SESSION_H
#define THUE_SERVER_LOBBY_SESSION_H

#include "lobby_types.h"
#include "util.h"

/* The session holding a name (compared by its key), or NULL. */
session *lobby_session_by_name(thue_lobby *l, const char *name);
/* The session of a resume token, or NULL. */
session *lobby_session_by_token(thue_lobby *l, const char *token);
/* Into and out of the tables: by resume token (s->resume) and by name key (s->key). */
void session_link_token(thue_lobby *l, session *s);
void session_unlink_token(thue_lobby *l, session *s);
void session_link_name(thue_lobby *l, session *s);
void session_unlink_name(thue_lobby *l, session *s);
/* A new name for a session (claim_name). */
void session_rename(session *s, const char *name);
/* Pushes the state of every room the session is in (its name or kind changed). */
void lobby_session_rooms_changed(session *s);

#endif
