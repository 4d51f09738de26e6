/*
 * passwords.h: the commands set_password and login (passwords.c, PROTOCOL.md section 9,
 * "Passwords"), beside account_cmds.c in the dispatch layer; called by lobby.c. Loop
 * thread only.
 */
#ifndef THUE_SERVER_LOBBY_PASSWORDS_H
#define THUE_SERVER_LOBBY_PASSWORDS_H

#include "lobby_types.h"

/* At most this many set_password and login requests are out at once on a node (waiting
 * for the store or a hashing slot, or hashing): past it, server_busy. And one address
 * at most PASSWORD_PENDING_PER_IP of them; one connection one. */
#define PASSWORD_PENDING_MAX 256
#define PASSWORD_PENDING_PER_IP 4

int cmd_set_password(request *rq);
int cmd_login(request *rq);
/* The connection c is gone: its requests still out finish without an answer, and a
 * login of it logs nobody in. */
void passwords_client_gone(thue_lobby *l, thue_client *c);
/* The limiters and counters of thue_lobby_new: 0, or -1 when out of memory (nothing is
 * left allocated then). passwords_free frees them (thue_lobby's end). */
int passwords_init(thue_lobby *l);
void passwords_free(thue_lobby *l);

#endif
