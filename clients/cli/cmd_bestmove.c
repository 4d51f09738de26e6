/* cmd_bestmove.c: `thue bestmove WORD --k K --role R --bot SPEC ...`: one bot move. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_game.h"
#include "base/errors.h"
#include "games/thue/bots/uct.h"

static const char usage[] =
    "Usage: thue bestmove WORD --k K --role builder|painter [--index I] --bot SPEC\n"
    "                     [--variant square|overlap] [--think-ms T] [--max-nodes N]\n"
    "                     [--seed S] [--remaining R] [--threads T] [--tree FILE] [--json]\n"
    "\n"
    "Asks a bot for its move in a position: the builder's position 0..n, or the\n"
    "painter's symbol 0..K-1 for the position I the builder chose.\n"
    "\n"
    "  --k K           number of symbols, 2..64 (required)\n"
    "  --role R        builder or painter (required)\n"
    "  --index I       painter: the position chosen by the builder, 0..n (required for\n"
    "                  the painter)\n"
    "  --bot SPEC      greedy | 0, nested:L | L (L = 1..9), uct[:iterations=N,ms=T,\n"
    "                  playout=M,c=X], perfect[:depth=D] (required; docs/bots.md)\n"
    "  --variant V     square (default) or overlap\n"
    "  --think-ms T    time limit for the move in ms (default: none, but 10000 for perfect\n"
    "                  when nothing else limits it); when it runs out the bot plays the\n"
    "                  best move it has and says it was not exact\n"
    "  --max-nodes N   node budget (default: none); with a fixed seed and budget the\n"
    "                  answer is the same on every machine\n"
    "  --seed S        seed of the bot's random tie-breaks and playouts (default 1)\n"
    "  --remaining R   points the painter can still score before the length limit\n"
    "                  (default: no limit; perfect and uct use it)\n"
    "  --threads T     split the root moves over T threads, 1..64 (default 1)\n"
    "  --tree FILE     uct only: write the search tree, as CSV when FILE ends in .csv,\n"
    "                  in the binary format when it ends in .tree (docs/uct.md)\n"
    "  --json          print {\"move\":N,\"ms\":T,\"nodes\":X,\"exact\":B,\"depth\":D,\n"
    "                  \"value\":V,\"iterations\":I,\"stopped\":B}\n"
    "\n"
    "--game G (another game than thue, e.g. nim; 'thue games' lists them) has a form\n"
    "of its own: 'thue bestmove --game G --help'. --game thue is this form.\n"
    "\n"
    "Exit status: 0, 1 failure (out of memory, cannot write the tree), 2 bad arguments.\n";

/* perfect's time when no limit is given (see below). */
#define PERFECT_DEFAULT_MS 10000

int cmd_bestmove(int argc, char **argv)
{
    /* --game G other than thue: the game's own form (cmd_game.c, cmd_game_play.c). */
    const char *gname = cli_take_game("bestmove", &argc, argv);
    if (gname != NULL && strcmp(gname, "thue") != 0)
        return cmd_bestmove_game(gname, argc, argv);
    const char *variant = NULL, *ktext = NULL, *role = NULL, *itext = NULL, *bot = NULL,
               *think = NULL, *ntext = NULL, *seedtext = NULL, *remtext = NULL, *thtext = NULL,
               *tree = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"variant", 1, &variant, NULL},
                      {"k", 1, &ktext, NULL},
                      {"role", 1, &role, NULL},
                      {"index", 1, &itext, NULL},
                      {"bot", 1, &bot, NULL},
                      {"think-ms", 1, &think, NULL},
                      {"max-nodes", 1, &ntext, NULL},
                      {"seed", 1, &seedtext, NULL},
                      {"remaining", 1, &remtext, NULL},
                      {"threads", 1, &thtext, NULL},
                      {"tree", 1, &tree, NULL},
                      {"json", 0, NULL, &json},
                      {NULL, 0, NULL, NULL}};
    cli_parse("bestmove", usage, argc, argv, opts, pos, 1, 1, &np);
    thue_variant v = cli_variant("bestmove", variant);
    int k = cli_k("bestmove", ktext);
    if (role == NULL)
        cli_usage_error("bestmove", "--role is required (builder or painter)");
    thue_role r;
    if (strcmp(role, "builder") == 0)
        r = THUE_ROLE_BUILDER;
    else if (strcmp(role, "painter") == 0)
        r = THUE_ROLE_PAINTER;
    else
        cli_usage_error("bestmove", "--role must be 'builder' or 'painter', got '%s'", role);
    if (bot == NULL)
        cli_usage_error("bestmove", "--bot is required (greedy, nested:L, uct, perfect)");
    thue_bot_spec spec;
    cli_bot_spec("bestmove", "bot", bot, &spec);
    thue_word w;
    thue_word_init(&w);
    cli_clean_word("bestmove", pos[0], k, v, &w);
    if (w.len > THUE_BOT_WORD_MAX)
        cli_usage_error("bestmove", "the word is longer than %d symbols", THUE_BOT_WORD_MAX);
    int index = 0;
    if (r == THUE_ROLE_PAINTER) {
        if (itext == NULL)
            cli_usage_error("bestmove",
                            "the painter needs --index I (0..%d), the builder's "
                            "position",
                            w.len);
        index = cli_int("bestmove", "index", itext, 0, w.len, 0);
    } else if (itext != NULL) {
        cli_usage_error("bestmove", "--index is for the painter only");
    }
    thue_bot_limits lim = {0};
    lim.think_ms = cli_int("bestmove", "think-ms", think, 1, 86400000, 0);
    lim.node_budget = cli_u64("bestmove", "max-nodes", ntext, 0);
    if (ntext != NULL && lim.node_budget == 0)
        cli_usage_error("bestmove", "--max-nodes must be at least 1");
    uint64_t seed = cli_u64("bestmove", "seed", seedtext, 1);
    int remaining = cli_int("bestmove", "remaining", remtext, 1, 10000, 0);
    int threads = cli_int("bestmove", "threads", thtext, 1, THUE_BOT_PARTS_MAX, 1);
    thue_tree_format fmt = THUE_TREE_CSV;
    if (tree != NULL) {
        size_t len = strlen(tree);
        if (spec.kind != THUE_BOT_UCT)
            cli_usage_error("bestmove", "--tree needs a uct bot (--bot uct)");
        if (len > 4 && strcmp(tree + len - 4, ".csv") == 0)
            fmt = THUE_TREE_CSV;
        else if (len > 5 && strcmp(tree + len - 5, ".tree") == 0)
            fmt = THUE_TREE_BINARY;
        else
            cli_usage_error("bestmove", "--tree FILE must end in .csv or .tree, got '%s'", tree);
        if (threads != 1)
            cli_usage_error("bestmove", "--tree exports one tree: use --threads 1");
    }
    /* Without any limit, perfect may search for ever where k is large (the game need
     * not end): give it a default time, and say so. */
    int default_time = spec.kind == THUE_BOT_PERFECT && think == NULL && ntext == NULL &&
                       spec.max_depth == 0 && remaining == 0;
    if (default_time)
        lim.think_ms = PERFECT_DEFAULT_MS;
    thue_position p = {v, k, w.sym, w.len, r, index, remaining};
    thue_bot_result res;
    thue_bot_search *kept = NULL;
    int err = cli_bot_move(&spec, &p, &lim, seed, threads, &res, tree ? &kept : NULL);
    if (err) {
        fprintf(stderr, "thue bestmove: %s\n", thue_strerror(err));
        thue_word_free(&w);
        return 1;
    }
    if (default_time && res.stopped)
        fprintf(stderr,
                "thue bestmove: perfect stopped after the default %d ms (no --think-ms, "
                "--max-nodes, --remaining or depth=D); the move is not proven\n",
                PERFECT_DEFAULT_MS);
    int status = 0;
    if (tree != NULL) {
        FILE *f = fopen(tree, fmt == THUE_TREE_CSV ? "w" : "wb");
        if (f == NULL || thue_uct_export_tree(kept, f, fmt) != 0 || fclose(f) != 0) {
            fprintf(stderr, "thue bestmove: cannot write the tree to '%s'\n", tree);
            status = 1;
        }
    }
    thue_bot_search_free(kept);
    if (json) {
        printf("{\"move\":%d,\"ms\":%.3f,\"nodes\":%llu,\"exact\":%s,\"depth\":%d,\"value\":%d,"
               "\"iterations\":%llu,\"stopped\":%s}\n",
               res.move, res.ms, (unsigned long long)res.nodes, res.exact ? "true" : "false",
               res.depth, res.value, (unsigned long long)res.iterations,
               res.stopped ? "true" : "false");
    } else {
        char name[160];
        thue_bot_spec_format(&spec, name, sizeof name);
        if (r == THUE_ROLE_BUILDER)
            printf("%s (builder) plays position %d", name, res.move);
        else
            printf("%s (painter) paints %d at position %d", name, res.move, index);
        printf(" in %.1f ms, %llu nodes%s%s\n", res.ms, (unsigned long long)res.nodes,
               res.exact ? ", exact" : "", res.stopped ? " (stopped by a limit)" : "");
        if (res.value >= 0)
            printf("value for the painter: %s%d\n", res.exact ? "" : ">= ", res.value);
    }
    thue_word_free(&w);
    return status;
}
