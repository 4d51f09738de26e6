/*
 * main.c: the `thue` command. Dispatches to the subcommands; each parses its own
 * options, prints --help, and answers bad arguments with a message and exit status 2.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_game.h"

static const char usage[] =
    "Usage: thue COMMAND [ARGS] [--json] [--help]\n"
    "\n"
    "The online Thue game: tools over the thue-server game engine.\n"
    "\n"
    "Commands:\n"
    "  games [--json]                   the games (thue, nim, ...), their options and bots\n"
    "  check WORD [--variant V]         the first square/overlap in WORD, if any\n"
    "  moves WORD --k K [--variant V]   the legal-move map: safe symbols at every position\n"
    "  local [--k K] [--variant V] ...  a match for two players on one terminal\n"
    "  solve [WORD] --k K [...]         exact value of a position and a line of best play\n"
    "  verify-proof FILE [--threads T]  check a proof file (solve --proof) on its own\n"
    "  bestmove WORD --k K --role R --bot SPEC [...]\n"
    "                                   a bot's move in a position\n"
    "  arena [...]                      bot-vs-bot batches: tables, CSV, an SVG chart\n"
    "  wythoff [--a A] [--n N] [...]    Wythoff's game: its P-table three ways, timed\n"
    "  bench engine [...]               legal-move map speed against the naive baseline\n"
    "  bench search [...]               the bots against the thesis's way; the pool\n"
    "  bot --bot SPEC [--server URL] [...]\n"
    "                                   a search bot playing on a server (quick match)\n"
    "  watch ROOM [--server URL]        follow a room on a server to the match's end\n"
    "  play [--server URL] [...]        play a match on a server from the console\n"
    "\n"
    "WORD is digits (0121, for symbols below 10) or comma-separated numbers (0,1,12),\n"
    "optionally in brackets; a one-symbol word above 9 is written [12].\n"
    "V is 'square' (default) or 'overlap'. bestmove, solve, local and arena also take\n"
    "--game G for the other games ('thue games'). Run 'thue COMMAND --help' for details.\n"
    "Exit status: 0 success, 1 failure, 2 bad arguments.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return THUE_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        puts("thue " THUE_VERSION); /* CMakeLists.txt's project() version */
        return 0;
    }
    if (strcmp(cmd, "games") == 0)
        return cmd_games(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "moves") == 0)
        return cmd_moves(argc - 1, argv + 1);
    if (strcmp(cmd, "local") == 0)
        return cmd_local(argc - 1, argv + 1);
    if (strcmp(cmd, "solve") == 0)
        return cmd_solve(argc - 1, argv + 1);
    if (strcmp(cmd, "verify-proof") == 0)
        return cmd_verify_proof(argc - 1, argv + 1);
    if (strcmp(cmd, "bestmove") == 0)
        return cmd_bestmove(argc - 1, argv + 1);
    if (strcmp(cmd, "arena") == 0)
        return cmd_arena(argc - 1, argv + 1);
    if (strcmp(cmd, "wythoff") == 0)
        return cmd_wythoff(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "bot") == 0)
        return cmd_bot(argc - 1, argv + 1);
    if (strcmp(cmd, "watch") == 0)
        return cmd_watch(argc - 1, argv + 1);
    if (strcmp(cmd, "play") == 0)
        return cmd_play(argc - 1, argv + 1);
    fprintf(stderr, "thue: unknown command '%s'\nTry 'thue --help'.\n", cmd);
    return THUE_EXIT_USAGE;
}
