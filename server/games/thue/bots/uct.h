/*
 * uct.h: exporting the tree of a finished uct search, in the UCT thesis's two formats
 * (docs/uct.md describes both byte by byte).
 */
#ifndef THUE_GAMES_THUE_BOTS_UCT_H
#define THUE_GAMES_THUE_BOTS_UCT_H

#include <stdio.h>

#include "games/thue/bots/bot.h"

typedef enum {
    THUE_TREE_CSV = 0, /* one row per node, depth-first */
    THUE_TREE_BINARY   /* little-endian, recursive */
} thue_tree_format;

/*
 * Writes the tree of part 0 of a uct search that has been finished
 * (thue_bot_search_finish). 0, THUE_EINVAL (not a uct search, or not run) or
 * THUE_ENOMEM / a negative errno-style failure to write (-1).
 */
int thue_uct_export_tree(const thue_bot_search *s, FILE *f, thue_tree_format format);

#endif
