/*
 * session.c: the lobby's tables of sessions (session.h): by name key and by resume token,
 * a session's new name, and pushing the rooms of a session whose name or kind changed.
 * Below the dispatch layer (lobby.c, account_cmds.c), which call it; it calls room.c
 * (room_changed), roomstate.c and util.c. Making and ending sessions (their timers, the
 * grace period) stays lobby.c's.
 */
#include "session.h"
#include "nodes.h"
#include "room.h"

#include <stdio.h>
#include <string.h>

static session *find_by_key(thue_lobby *l, const char *key)
{
    for (session *s = l->by_name[lobby_hash(key) % LOBBY_BUCKETS]; s; s = s->name_next)
        if (strcmp(s->key, key) == 0)
            return s;
    return NULL;
}

static session *find_by_name(thue_lobby *l, const char *name)
{
    char key[sizeof((session *)0)->key];
    lobby_name_key(name, key, sizeof key);
    return find_by_key(l, key);
}

session *lobby_session_by_name(thue_lobby *l, const char *name)
{
    return find_by_name(l, name);
}

session *lobby_session_by_token(thue_lobby *l, const char *token)
{
    for (session *s = l->by_token[lobby_hash(token) % LOBBY_BUCKETS]; s; s = s->token_next)
        if (strcmp(s->resume, token) == 0)
            return s;
    return NULL;
}

void session_unlink_token(thue_lobby *l, session *s)
{
    session **pp = &l->by_token[lobby_hash(s->resume) % LOBBY_BUCKETS];
    while (*pp && *pp != s)
        pp = &(*pp)->token_next;
    if (*pp)
        *pp = s->token_next;
    s->token_next = NULL;
}

void session_link_token(thue_lobby *l, session *s)
{
    session **head = &l->by_token[lobby_hash(s->resume) % LOBBY_BUCKETS];
    s->token_next = *head;
    *head = s;
}

void session_link_name(thue_lobby *l, session *s)
{
    session **head = &l->by_name[lobby_hash(s->key) % LOBBY_BUCKETS];
    s->name_next = *head;
    *head = s;
    nodes_name_linked(l, s->key); /* names are unique across the nodes (nodes.h) */
}

void session_rename(session *s, const char *name)
{
    session_unlink_name(s->lobby, s);
    snprintf(s->player.name, sizeof s->player.name, "%s", name);
    lobby_name_key(name, s->key, sizeof s->key);
    session_link_name(s->lobby, s);
}

void lobby_session_rooms_changed(session *s)
{
    for (room *r = s->lobby->rooms; r; r = r->next)
        if (room_has(r, s))
            room_changed(r);
}

void session_unlink_name(thue_lobby *l, session *s)
{
    session **pp = &l->by_name[lobby_hash(s->key) % LOBBY_BUCKETS];
    while (*pp && *pp != s)
        pp = &(*pp)->name_next;
    if (*pp) {
        *pp = s->name_next;
        if (find_by_key(l, s->key) == NULL)
            nodes_name_unlinked(l, s->key);
    }
    s->name_next = NULL;
}
