/*
 * baseline_bots.h: the thesis's bots written the thesis's way, as the baseline of
 * `thue bench search`.
 *
 * Greedy and nested:L exactly as RULES.md defines them, on a plain word that is edited
 * in place, where every safety question is a baseline_insert_creates call (copy the new
 * word into a list, rescan every window). Nothing is reused between questions: a
 * simulation node asks k questions at each of its n+1 positions. Decisions, tie-breaks
 * (thue_bot_tiebreak over the tied candidates in ascending order, as the real bots do)
 * and node counts (one per word
 * whose safe moves were counted, the root included) are those of server/search, so the
 * benchmark can check that both choose the same moves.
 */
#ifndef THUE_CLI_BASELINE_BOTS_H
#define THUE_CLI_BASELINE_BOTS_H

#include <stdint.h>

#include "games/thue/bots/bot.h"

/* The move of bot level `level` (0 = greedy) for the position; *nodes gets the work done.
 * 0, or -1 when out of memory. Only greedy and nested positions (no limits). */
int baseline_bot_move(int level, const thue_position *pos, uint64_t seed, int *move,
                      uint64_t *nodes);

#endif
