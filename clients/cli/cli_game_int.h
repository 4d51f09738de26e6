/*
 * cli_game_int.h: what cmd_game.c and cmd_game_play.c share (not for the Thue commands).
 */
#ifndef THUE_CLI_GAME_INT_H
#define THUE_CLI_GAME_INT_H

#include "cli.h"

#include <string.h>

#include "cli_game.h"
#include "games/game.h"
#include "search/gbot.h"

/* A JSON string (new reference). */
static inline json_t *jstr(const char *s)
{
    return json_string(s);
}

/* The game named text, or a usage error listing the games. */
const thue_gamedef *cli_game(const char *cmd, const char *text);
/* --options JSON (NULL: the defaults) into opt, or a usage error with the game's sentence. */
void cli_game_options(const char *cmd, const thue_gamedef *g, const char *text, thue_gopt *opt);
/* --position JSON (required: NULL is a usage error) as a new state (free it). Also a
 * usage error when the position has more legal moves than the options allow (the bots'
 * buffers are sized by the options). */
void *cli_game_position(const char *cmd, const thue_gamedef *g, const thue_gopt *opt,
                        const char *text);
/* A generic bot SPEC given to --opt, or a usage error. */
void cli_gbot_spec(const char *cmd, const char *opt, const thue_gamedef *g, const char *text,
                   thue_gbot_spec *out);
/* Compact JSON text of a new reference (released), malloc'd; exits 1 out of memory. */
char *cli_json_text(json_t *j);

#endif
