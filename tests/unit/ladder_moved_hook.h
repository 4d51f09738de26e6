/* ladder_moved_hook.h: the lobby tests' way into the lobby's internals (which its own names
 * would shadow): sets two accounts' ratings in a pool as a rated match does, and moves
 * their rows in the cached ladders with ladder_moved. */
#ifndef THUE_TESTS_LADDER_MOVED_HOOK_H
#define THUE_TESTS_LADDER_MOVED_HOOK_H

#include <stdint.h>

#include "lobby/lobby.h"

/* 0, or -1 when an account or its rating in (variant, k) is missing. */
int ladder_rate_pair(thue_lobby *l, thue_variant variant, int k, int64_t id0, double rating0,
                     int games0, int64_t id1, double rating1, int games1);

#endif
