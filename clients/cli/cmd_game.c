/*
 * cmd_game.c: `thue games`, and `thue bestmove` / `thue solve` with --game G, over the
 * games' tables (game.h) and the generic bots (gbot.h); plus the helpers every --game
 * command shares (cli_game.h).
 *
 * Thue is listed from its table (server/games/thue/thue.c) like every game, but its
 * commands keep their own forms (WORD, --k, --role) and its own bots (bot.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_game_int.h"
#include "base/errors.h"
#include "games/thue/engine/match.h"
#include "search/guct.h"

/* ---- shared helpers ------------------------------------------------------------------- */

const char *cli_take_game(const char *cmd, int *argc, char **argv)
{
    const char *game = NULL;
    int out = 1;
    for (int a = 1; a < *argc; a++) {
        const char *arg = argv[a];
        if (strcmp(arg, "--") == 0) {
            for (; a < *argc; a++)
                argv[out++] = argv[a];
            break;
        }
        if (strcmp(arg, "--game") == 0) {
            if (a + 1 >= *argc)
                cli_usage_error(cmd, "option '--game' needs a value");
            game = argv[++a];
            continue;
        }
        if (strncmp(arg, "--game=", 7) == 0) {
            game = arg + 7;
            continue;
        }
        argv[out++] = argv[a];
    }
    *argc = out;
    return game;
}

static void game_names(char *buf, size_t size)
{
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    size_t at = (size_t)snprintf(buf, size, "thue");
    for (int i = 0; i < n && at < size; i++)
        if (strcmp(list[i]->name, "thue") != 0)
            at += (size_t)snprintf(buf + at, size - at, ", %s", list[i]->name);
}

const thue_gamedef *cli_game(const char *cmd, const char *text)
{
    const thue_gamedef *g = thue_game_find(text);
    if (g == NULL) {
        char names[200];
        game_names(names, sizeof names);
        cli_usage_error(cmd, "unknown game '%.40s' (games: %s; see 'thue games')", text, names);
    }
    return g;
}

void cli_game_options(const char *cmd, const thue_gamedef *g, const char *text, thue_gopt *opt)
{
    thue_gerr e;
    memset(&e, 0, sizeof e);
    if (thue_game_options_text(g, text, opt, &e) != 0)
        cli_usage_error(cmd, "bad --options for %s: %s", g->name, e.msg);
}

void *cli_game_position(const char *cmd, const thue_gamedef *g, const thue_gopt *opt,
                        const char *text)
{
    if (text == NULL)
        cli_usage_error(cmd, "--position is required: %s", g->position_doc);
    json_error_t je;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL)
        cli_usage_error(cmd, "--position is not JSON: %s (a %s position is %s)", je.text, g->name,
                        g->position_doc);
    size_t sz = g->state_size(opt);
    void *st = calloc(1, sz ? sz : 1);
    if (st == NULL) {
        fprintf(stderr, "thue %s: out of memory\n", cmd);
        exit(1);
    }
    thue_gerr e;
    memset(&e, 0, sizeof e);
    int rc = g->position_parse(opt, j, st, &e);
    json_decref(j);
    if (rc != 0)
        cli_usage_error(cmd, "bad --position for %s: %s", g->name, e.msg);
    /* A position may hold more than the options' start (Nim: bigger heaps), while the
     * bots size their move lists by the options: count its moves in a roomy buffer. */
    enum { ROOMY = 1 << 16 };
    thue_gmove *mv = malloc(ROOMY * sizeof *mv);
    int cap = g->max_moves(opt);
    if (mv == NULL || cap > ROOMY) {
        free(mv);
        return st; /* cannot check; the game's own bound is all there is */
    }
    int n = g->legal_moves(opt, st, mv);
    free(mv);
    if (n > cap)
        cli_usage_error(cmd,
                        "the position has %d legal moves, more than these options allow (%d): "
                        "pass --options that cover it (for nim, heaps at least as big)",
                        n, cap);
    return st;
}

void cli_gbot_spec(const char *cmd, const char *opt, const thue_gamedef *g, const char *text,
                   thue_gbot_spec *out)
{
    char err[240];
    if (thue_gbot_spec_parse(g, text, out, err, sizeof err) != 0)
        cli_usage_error(cmd, "bad --%s '%.60s': %s", opt, text, err);
}

char *cli_json_text(json_t *j)
{
    /* thue_game_dump's flags, plus JSON_ENCODE_ANY (a bare string) and times to 6 digits. */
    char *s = j != NULL ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
                                            JSON_REAL_PRECISION(6))
                        : NULL;
    json_decref(j);
    if (s == NULL) {
        fputs("thue: out of memory\n", stderr);
        exit(1);
    }
    return s;
}

/* ---- thue games ----------------------------------------------------------------------- */

static const char games_usage[] =
    "Usage: thue games [--json]\n"
    "\n"
    "Lists every game the server and these tools know: its name (for --game), title,\n"
    "rules in one sentence, options (for --options: name, type, default, what it does),\n"
    "the JSON shapes of a move and of a position (for --position), whether every line of\n"
    "play ends (acyclic) and whether a match can be drawn, and the bots it accepts (with\n"
    "what its perfect bot decides, where the game says).\n"
    "\n"
    "  --json   print {\"games\":[{\"name\":N,\"title\":T,\"summary\":S,\"options\":[{\"name\":O,\n"
    "           \"type\":T,\"default\":V,\"help\":H},...],\"move\":M,\"position\":P,\n"
    "           \"acyclic\":B,\"draws\":B,\"bots\":[...],\"perfect\":H},...]}: perfect (where\n"
    "           the game says) is what its perfect bot decides and what it refuses\n"
    "\n"
    "Exit status: 0, 2 bad arguments.\n";

/* The games in `thue games` order: the registry's (Thue first). */
static int games_list(const thue_gamedef **out, int max)
{
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    for (int i = 0; i < n && i < max; i++)
        out[i] = list[i];
    return n < max ? n : max;
}

/* Thue is played by its own bots (bot.h) in `thue bestmove`, `thue local` and the
 * server's Thue rooms; every other game by the generic ones (gbot.h). */
static bool own_bots(const thue_gamedef *g)
{
    return strcmp(g->name, "thue") == 0;
}

static json_t *game_entry(const thue_gamedef *g)
{
    json_t *opts = json_array();
    for (int i = 0; i < g->noptions; i++) {
        const thue_goption_doc *d = &g->options[i];
        json_t *dv = json_loads(d->deflt, JSON_DECODE_ANY, NULL);
        json_array_append_new(opts, json_pack("{s:s,s:s,s:o,s:s}", "name", d->name, "type", d->type,
                                              "default", dv ? dv : json_null(), "help", d->help));
    }
    json_t *bots = json_array();
    if (own_bots(g)) {
        static const char *const thue_bots[] = {"greedy", "nested", "uct", "perfect"};
        for (int i = 0; i < 4; i++)
            json_array_append_new(bots, jstr(thue_bots[i]));
    } else {
        json_array_append_new(bots, jstr("random"));
        json_array_append_new(bots, jstr("uct"));
        if (thue_gbot_has_perfect(g))
            json_array_append_new(bots, jstr("perfect"));
        for (int i = 0; i < g->nbots; i++)
            json_array_append_new(bots, jstr(g->bots[i].name));
    }
    json_t *entry = json_pack(
        "{s:s,s:s,s:s,s:o,s:s,s:s,s:o,s:o,s:b,s:b,s:o}", "name", g->name, "title", g->title,
        "summary", g->summary, "options", opts, "move", g->move_doc, "position", g->position_doc,
        "move_schema", thue_game_schema(g, false), "position_schema", thue_game_schema(g, true),
        "acyclic", (g->flags & THUE_GAME_ACYCLIC) != 0, "draws", (g->flags & THUE_GAME_DRAWS) != 0,
        "bots", bots);
    if (entry != NULL && g->perfect_help != NULL)
        json_object_set_new(entry, "perfect", jstr(g->perfect_help));
    return entry;
}

int cmd_games(int argc, char **argv)
{
    int json = 0, np;
    const char *pos[1];
    cli_opt opts[] = {{"json", 0, NULL, &json}, {NULL, 0, NULL, NULL}};
    cli_parse("games", games_usage, argc, argv, opts, pos, 0, 0, &np);
    const thue_gamedef *list[64];
    int n = games_list(list, 64);
    if (json) {
        json_t *arr = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(arr, game_entry(list[i]));
        char *s = cli_json_text(json_pack("{s:o}", "games", arr));
        puts(s);
        free(s);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const thue_gamedef *g = list[i];
        printf("%s%s (%s)\n  %s\n", i ? "\n" : "", g->name, g->title, g->summary);
        printf("  move:     %s\n  position: %s\n", g->move_doc, g->position_doc);
        printf("  %s; %s\n",
               g->flags & THUE_GAME_ACYCLIC ? "every line of play ends" : "play need not end",
               g->flags & THUE_GAME_DRAWS ? "draws possible" : "no draws");
        if (!own_bots(g)) {
            printf("  bots: random, uct%s", thue_gbot_has_perfect(g) ? ", perfect" : "");
            for (int b = 0; b < g->nbots; b++)
                printf(", %s", g->bots[b].name);
            printf("\n");
            if (g->perfect_help != NULL)
                printf("    %-9s %s\n", "perfect", g->perfect_help);
            if (g->perfect_help != NULL && g->fallback != NULL)
                printf("    %-9s a room's perfect bot plays, where perfect refuses: %s\n", "",
                       g->fallback->help);
            for (int b = 0; b < g->nbots; b++)
                printf("    %-9s %s\n", g->bots[b].name, g->bots[b].help);
        } else
            printf("  bots: greedy, nested:L, uct, perfect (docs/bots.md)\n");
        printf("  options%s:\n", own_bots(g) ? " (thue local's --variant, --k, --limit)"
                                              : " (--options JSON)");
        for (int o = 0; o < g->noptions; o++)
            printf("    %-8s %s, default %s: %s\n", g->options[o].name, g->options[o].type,
                   g->options[o].deflt, g->options[o].help);
    }
    return 0;
}

/* ---- bestmove --game ------------------------------------------------------------------ */

static const char bestmove_usage[] =
    "Usage: thue bestmove --game G [--options JSON] --position JSON --bot SPEC\n"
    "                     [--seed S] [--think-ms T] [--max-nodes N] [--tree FILE] [--json]\n"
    "\n"
    "A bot's move in a position of game G other than thue ('thue games' lists them;\n"
    "--game thue, or no --game, is the Thue form: 'thue bestmove --help').\n"
    "\n"
    "  --game G        the game (required for this form)\n"
    "  --options JSON  the game's options (default: its defaults; 'thue games')\n"
    "  --position JSON the position, e.g. for nim {\"heaps\":[3,4,5]} (required)\n"
    "  --bot SPEC      random | uct[:iterations=N,ms=T,playout=M,c=X] | perfect\n"
    "                  (perfect where the game has a solver or every line of play\n"
    "                  ends; docs/bots.md)\n"
    "  --seed S        seed of the bot's random choices (default 1)\n"
    "  --think-ms T    time limit in ms (default: none); uct then plays its best move\n"
    "                  so far, perfect gives up (exit 1)\n"
    "  --max-nodes N   node budget (default: none; perfect's own budget applies)\n"
    "  --tree FILE     uct only: write its whole search tree, as CSV when FILE ends in\n"
    "                  .csv, in the binary format when it ends in .tree (docs/uct.md,\n"
    "                  \"Names in the tree formats\"; the analysis page reads both)\n"
    "  --json          print {\"move\":{...},\"value\":V|null,\"exact\":B,\"nodes\":N,\"ms\":T,\n"
    "                  \"bot\":SPEC}: value is 1, 0 or -1 for the player to move when\n"
    "                  exact, else null; bot is the canonical spec\n"
    "\n"
    "Exit status: 0, 1 failure (perfect could not decide, out of memory, cannot write\n"
    "the tree), 2 bad arguments (also a position that is over: it has no move).\n";

static void game_limits(const char *cmd, const char *think, const char *ntext, thue_bot_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->think_ms = cli_int(cmd, "think-ms", think, 1, 86400000, 0);
    lim->node_budget = cli_u64(cmd, "max-nodes", ntext, 0);
    if (ntext != NULL && lim->node_budget == 0)
        cli_usage_error(cmd, "--max-nodes must be at least 1");
}

/* Exits for a bot error (usage for a position that is over); why is the game's or the
 * solver's reason for a refusal ("" when none was given). */
static void bot_failed(const char *cmd, int err, const char *why)
{
    if (err == THUE_EOVER)
        cli_usage_error(cmd, "the position is over: there is no move to make");
    if (err == THUE_ETOOBIG && why[0] != '\0')
        fprintf(stderr, "thue %s: perfect cannot decide this position: %s (try uct)\n", cmd,
                why);
    else if (err == THUE_ETOOBIG)
        fprintf(stderr,
                "thue %s: perfect could not decide this position within its budget or "
                "time (try uct)\n",
                cmd);
    else
        fprintf(stderr, "thue %s: %s\n", cmd, thue_strerror(err));
    exit(1);
}

int cmd_bestmove_game(const char *game, int argc, char **argv)
{
    const char *otext = NULL, *ptext = NULL, *bot = NULL, *seedtext = NULL, *think = NULL,
               *ntext = NULL, *tree = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"options", 1, &otext, NULL},  {"position", 1, &ptext, NULL},
                      {"bot", 1, &bot, NULL},        {"seed", 1, &seedtext, NULL},
                      {"think-ms", 1, &think, NULL}, {"max-nodes", 1, &ntext, NULL},
                      {"tree", 1, &tree, NULL},      {"json", 0, NULL, &json},
                      {NULL, 0, NULL, NULL}};
    cli_parse("bestmove", bestmove_usage, argc, argv, opts, pos, 0, 0, &np);
    const thue_gamedef *g = cli_game("bestmove", game);
    thue_gopt opt;
    cli_game_options("bestmove", g, otext, &opt);
    if (bot == NULL)
        cli_usage_error("bestmove", "--bot is required (random, uct%s)",
                        thue_gbot_has_perfect(g) ? ", perfect" : "");
    thue_gbot_spec spec;
    cli_gbot_spec("bestmove", "bot", g, bot, &spec);
    void *st = cli_game_position("bestmove", g, &opt, ptext);
    thue_bot_limits lim;
    game_limits("bestmove", think, ntext, &lim);
    uint64_t seed = cli_u64("bestmove", "seed", seedtext, 1);
    thue_gbot_result res;
    int err;
    if (tree != NULL) {
        size_t len = strlen(tree);
        int csv = len > 4 && strcmp(tree + len - 4, ".csv") == 0;
        if (spec.kind != THUE_GBOT_UCT)
            cli_usage_error("bestmove", "--tree needs a uct bot (--bot uct)");
        if (!csv && !(len > 5 && strcmp(tree + len - 5, ".tree") == 0))
            cli_usage_error("bestmove", "--tree FILE must end in .csv or .tree, got '%s'", tree);
        FILE *f = fopen(tree, csv ? "w" : "wb");
        if (f == NULL) {
            fprintf(stderr, "thue bestmove: cannot write the tree to '%s': %s\n", tree,
                    strerror(errno));
            exit(1);
        }
        err = thue_gbot_choose_tree(g, &opt, st, &spec, seed, &lim, &res, f,
                                    csv ? THUE_GUCT_CSV : THUE_GUCT_BINARY);
        if (fclose(f) != 0 && err == 0)
            err = -1;
        if (err == -1) {
            fprintf(stderr, "thue bestmove: cannot write the tree to '%s'\n", tree);
            exit(1);
        }
    } else {
        err = thue_gbot_choose(g, &opt, st, &spec, seed, &lim, &res);
    }
    if (err)
        bot_failed("bestmove", err, res.why);
    char name[160];
    thue_gbot_spec_format(&spec, name, sizeof name);
    char *mv = cli_json_text(g->move_json(&opt, &res.move));
    if (json) {
        char value[8] = "null";
        if (res.exact)
            snprintf(value, sizeof value, "%d", res.value);
        char *quoted = cli_json_text(jstr(name));
        printf("{\"move\":%s,\"value\":%s,\"exact\":%s,\"nodes\":%llu,\"ms\":%.3f,\"bot\":%s}\n",
               mv, value, res.exact ? "true" : "false", (unsigned long long)res.nodes, res.ms,
               quoted);
        free(quoted);
    } else {
        printf("%s plays %s in %.1f ms, %llu nodes%s\n", name, mv, res.ms,
               (unsigned long long)res.nodes, res.stopped ? " (stopped by a limit)" : "");
        if (res.exact)
            printf("value for the player to move: %s (exact)\n", res.value > 0   ? "win"
                                                                 : res.value < 0 ? "loss"
                                                                                 : "draw");
    }
    free(mv);
    free(st);
    return 0;
}

/* ---- solve --game --------------------------------------------------------------------- */

static const char solve_usage[] =
    "Usage: thue solve --game G [--options JSON] --position JSON [--think-ms T]\n"
    "                  [--max-nodes N] [--line L] [--json]\n"
    "\n"
    "The exact value of a position of game G other than thue for the player to move\n"
    "(win, draw or loss under best play by both) and a line of best play, through the\n"
    "perfect bot: the game's own solver, or an exact search where every line of play\n"
    "ends. A game with neither is refused. (--game thue or no --game: 'thue solve --help'.)\n"
    "\n"
    "  --game G        the game (required for this form)\n"
    "  --options JSON  the game's options (default: its defaults)\n"
    "  --position JSON the position (required)\n"
    "  --think-ms T    time limit per move of the line in ms (default: none)\n"
    "  --max-nodes N   node budget per move of the line (default: the solver's own)\n"
    "  --line L        moves of the line of best play, 1..1000 (default 10); it stops\n"
    "                  early where the game ends\n"
    "  --json          print {\"value\":V,\"exact\":true,\"to_move\":P,\"pv\":[MOVE,...],\n"
    "                  \"nodes\":N,\"ms\":T}: V is 1, 0 or -1 for player P (to move)\n"
    "\n"
    "Exit status: 0, 1 failure (could not decide, out of memory), 2 bad arguments (also\n"
    "a game without a perfect bot, or a position that is over).\n";

int cmd_solve_game(const char *game, int argc, char **argv)
{
    const char *otext = NULL, *ptext = NULL, *think = NULL, *ntext = NULL, *ltext = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"options", 1, &otext, NULL},  {"position", 1, &ptext, NULL},
                      {"think-ms", 1, &think, NULL}, {"max-nodes", 1, &ntext, NULL},
                      {"line", 1, &ltext, NULL},     {"json", 0, NULL, &json},
                      {NULL, 0, NULL, NULL}};
    cli_parse("solve", solve_usage, argc, argv, opts, pos, 0, 0, &np);
    const thue_gamedef *g = cli_game("solve", game);
    thue_gopt opt;
    cli_game_options("solve", g, otext, &opt);
    if (!thue_gbot_has_perfect(g))
        cli_usage_error("solve",
                        "%s cannot be solved: it has no solver of its own and its lines of "
                        "play need not end",
                        g->name);
    void *st = cli_game_position("solve", g, &opt, ptext);
    thue_bot_limits lim;
    game_limits("solve", think, ntext, &lim);
    int line = cli_int("solve", "line", ltext, 1, 1000, 10);
    int mover = g->to_move(&opt, st);
    if (mover < 0)
        cli_usage_error("solve", "the position is over: there is nothing to solve");
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    thue_gbot_result res;
    int err = thue_gbot_choose(g, &opt, st, &spec, 1, &lim, &res);
    if (err)
        bot_failed("solve", err, res.why);
    int value = res.value;
    uint64_t nodes = res.nodes;
    double ms = res.ms;
    json_t *pv = json_array();
    for (int i = 0; i < line; i++) {
        if (i > 0) {
            if (g->to_move(&opt, st) < 0)
                break;
            err = thue_gbot_choose(g, &opt, st, &spec, 1, &lim, &res);
            if (err)
                break; /* the line is as long as the solver could follow it */
            nodes += res.nodes;
            ms += res.ms;
        }
        json_array_append_new(pv, g->move_json(&opt, &res.move));
        if (g->apply(&opt, st, g->to_move(&opt, st), &res.move, NULL) != 0)
            break;
    }
    if (json) {
        char *p = cli_json_text(pv);
        printf("{\"value\":%d,\"exact\":true,\"to_move\":%d,\"pv\":%s,\"nodes\":%llu,"
               "\"ms\":%.3f}\n",
               value, mover, p, (unsigned long long)nodes, ms);
        free(p);
    } else {
        printf("value %d (exact): player %d, to move, %s with best play\n", value, mover,
               value > 0   ? "wins"
               : value < 0 ? "loses"
                           : "draws");
        printf("best play:");
        for (size_t i = 0; i < json_array_size(pv); i++) {
            char *m = cli_json_text(json_incref(json_array_get(pv, i)));
            printf(" %s", m);
            free(m);
        }
        printf("\n%llu nodes, %.1f ms\n", (unsigned long long)nodes, ms);
        json_decref(pv);
    }
    free(st);
    return 0;
}
