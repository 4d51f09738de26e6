/*
 * util.h: the lobby's bottom layer (util.c): random numbers, the clock, the tables' hash,
 * name keys, and sending a message to a client or session. Calls no other lobby module.
 * Loop thread only (but for lobby_random_bytes and lobby_now_ms, which any thread may
 * call).
 */
#ifndef THUE_SERVER_LOBBY_UTIL_H
#define THUE_SERVER_LOBBY_UTIL_H

#include "lobby_types.h"

uint64_t lobby_random(thue_lobby *l);
/* size bytes from the kernel's generator; 0 or -1. */
int lobby_random_bytes(unsigned char *b, size_t size);
/* A resume token: 32 lowercase hex digits from the kernel's generator; 0 or -1. */
int lobby_random_token(char out[THUE_PROTO_RESUME_LEN + 1]);
/* (lobby_random_key, ids.h, is util.c's too.) */

int64_t lobby_now_ms(void);
/* The name as compared for uniqueness (names.h's key). */
void lobby_name_key(const char *name, char *key, size_t size);
/* Whether a name is the bots' (a SPEC, a bot's word or made-up name). */
bool lobby_name_reserved(const char *name);
uint32_t lobby_hash(const char *s);

/* Sends an encoded text to a client (no-op when NULL or closing). */
void lobby_send_text(thue_lobby *l, thue_client *c, const char *text);
/* Whether len more bytes may be sent to c now without crowding its connection (the
 * network layer's may_send hook; true without one, or for NULL or closing). */
bool lobby_may_send(thue_lobby *l, thue_client *c, size_t len);
/* Encodes msg and sends it to a client (no-op when NULL or closing). */
void lobby_send_client_msg(thue_lobby *l, thue_client *c, const thue_msg *msg);
/* Sends one encoded message to a session's connection (no-op while it is away). */
void lobby_send_msg(thue_lobby *l, session *s, const thue_msg *msg);
/* A message run again once a verdict from Redis is in (nodes.h's gates), with v. */
void lobby_run_gated(thue_lobby *l, thue_client *c, const char *text, size_t len,
                     const lobby_verdicts *v);
/* Sends an error (message "" or NULL: the code's usual sentence) and counts it. */
void lobby_send_error(thue_lobby *l, thue_client *c, const thue_msg_id *id, int code,
                      const char *field, const char *message);
void lobby_reply_error(thue_lobby *l, session *s, const thue_msg_id *id, int code);
/* What a command handler returns when its answer comes later (nodes.h: it waits for
 * Redis): dispatch sends nothing now. Handlers otherwise return 0 (answered) or a
 * negative error code. */
#define LOBBY_LATER 1

/* The direct reply `ok` to a request. */
void request_ok(request *rq);
/* A game's refusal (e) as the request's error: field "member/sub" (or "member"), the
 * game's sentence; returns e's code. */
int request_gerr(request *rq, const char *member, const thue_gerr *e);
/* A request's position of game g with options opt (its `position` member's JSON text;
 * NULL: the game's start): 0 and *out (malloc'd, the game's state_size), or the error
 * answered through rq (field "position/..."; THUE_PERR_INTERNAL out of memory). */
int request_position(request *rq, const thue_gamedef *g, const thue_gopt *opt,
                     const char *position, unsigned char **out);

#endif
