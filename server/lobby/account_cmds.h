/*
 * account_cmds.h: the commands claim_name and get_ladder (account_cmds.c), the
 * session-facing side of accounts.c; called by lobby.c's dispatch. Loop thread only.
 */
#ifndef THUE_SERVER_LOBBY_ACCOUNT_CMDS_H
#define THUE_SERVER_LOBBY_ACCOUNT_CMDS_H

#include "lobby_types.h"

int cmd_claim_name(request *rq);
int cmd_get_ladder(request *rq);

#endif
