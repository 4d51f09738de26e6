/*
 * cli_game_int.h: what cmd_game.c and cmd_game_play.c share (not for the Thue commands).
 *
 * game.h brings jansson.h, whose json_string clashes with cli.h's JSON helper of the same
 * name; these two files include cli.h through cli_game_cli below, which renames cli.h's.
 */
#ifndef THUE_CLI_GAME_INT_H
#define THUE_CLI_GAME_INT_H

#define json_string cli__json_string_unused /* cli.h's; jansson's is the one used here */
#include "cli.h"
#undef json_string

#include <string.h>

#include "cli_game.h"
#include "games/game.h"
#include "search/gbot.h"

/* A JSON string (new reference). Not jansson's json_string: the `thue` executable
 * defines a json_string of its own (output.c), which the dynamic linker would bind every
 * call of that name to; json_stringn is another symbol. */
static inline json_t *jstr(const char *s)
{
    return json_stringn(s, strlen(s));
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
