/*
 * cli_game.h: the `thue` commands for the games behind game.h (Nim, ...): `thue games`,
 * and the --game G forms of bestmove, solve, local and arena. Thue itself is not behind
 * the table yet, so `--game thue` (or no --game) keeps each command's own Thue code.
 *
 * Every bad flag, game name, options or position is a usage error (stderr, exit 2), as
 * in the rest of the command (cli.h).
 */
#ifndef THUE_CLI_GAME_H
#define THUE_CLI_GAME_H

/*
 * Takes --game G (or --game=G) out of argv[1..*argc-1] (before any "--"), shifting the
 * rest down and updating *argc; returns G, or NULL when absent. A --game without a value
 * is a usage error of cmd.
 */
const char *cli_take_game(const char *cmd, int *argc, char **argv);

/* The --game G forms (argv without --game; argv[0] is the command's name). */
int cmd_games(int argc, char **argv);
int cmd_bestmove_game(const char *game, int argc, char **argv);
int cmd_solve_game(const char *game, int argc, char **argv);
int cmd_local_game(const char *game, int argc, char **argv);
int cmd_arena_game(const char *game, int argc, char **argv);

#endif
