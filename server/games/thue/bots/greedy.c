/*
 * greedy.c: the level-0 bots of RULES.md, read off the root legal-move map.
 *   builder: the position with the fewest safe symbols; ties go to the LAST such position
 *            (so a position where nothing is safe, which ends the round, is preferred);
 *   painter: the lowest safe symbol at the chosen position; when none is safe every
 *            symbol loses and it plays 0.
 * No randomness, one legal-move map.
 */
#include "games/thue/bots/bot_internal.h"

void thue__greedy_choose(const thue_bot_search *s, thue_bot_result *out)
{
    const uint64_t *map = s->rootmap;
    if (s->pos.role == THUE_ROLE_BUILDER) {
        int best = 0, fewest = 65;
        for (int i = 0; i <= s->pos.n; i++) {
            int c = __builtin_popcountll(map[i]);
            if (c <= fewest) {
                fewest = c;
                best = i;
            }
        }
        out->move = best;
    } else {
        uint64_t m = map[s->pos.index];
        out->move = m ? __builtin_ctzll(m) : 0;
    }
    out->exact = 1;
    out->depth = 0;
}
