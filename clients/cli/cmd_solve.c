/* cmd_solve.c: `thue solve [WORD] --k K ...`: the exact value of a position. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <uv.h>

#include "cli.h"
#include "cli_game.h"
#include "base/errors.h"
#include "games/thue/bots/solve.h"

static const char usage[] =
    "Usage: thue solve [WORD] --k K [--variant square|overlap] [--max-depth D]\n"
    "                  [--max-nodes N] [--threads T] [--json]\n"
    "\n"
    "Solves a position exactly: the number of further points the painter can force from\n"
    "WORD (default 0) with the builder to move, under best play by both, and a line of\n"
    "best play. With a depth cap D the answer is either exact (the builder forces a\n"
    "repetition within D insertions) or 'the painter survives at least D more\n"
    "insertions'. The search deepens one insertion at a time, printing each depth to\n"
    "stderr, so a --max-nodes budget still leaves the deepest finished answer.\n"
    "\n"
    "  --k K           number of symbols, 2..64 (required)\n"
    "  --variant V     square (default) or overlap\n"
    "  --max-depth D   look at most D insertions ahead (default: no cap; for large k the\n"
    "                  game may go on for ever, so set a cap or a node budget)\n"
    "  --max-nodes N   stop after about N positions (default: no limit)\n"
    "  --threads T     split the builder's first move over T threads, 1..64 (default 1);\n"
    "                  each thread solves its share of the positions with its own table\n"
    "  --json          print {\"value\":N,\"exact\":B,\"states\":S,\"pv\":[[i,c],...],\"ms\":T,\n"
    "                  \"depth\":D,\"nodes\":X}; pv is (position, symbol) insertions, ending\n"
    "                  with the one that makes the repetition when exact\n"
    "\n"
    "--game G (another game than thue, e.g. nim; 'thue games' lists them) has a form\n"
    "of its own: 'thue solve --game G --help'. --game thue is this form.\n"
    "\n"
    "Exit status: 0 (exact or not), 1 out of memory, 2 bad arguments.\n";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct progress {
    double start;
    int threads;
    uv_mutex_t lock; /* one progress line at a time */
} progress;

/* One thread's share of the builder's first move (all of it with one thread). */
typedef struct share {
    thue_solver *solver;
    thue_solve_result *r;
    thue_solve_limits lim;
    const uint8_t *sym;
    int n, part, err;
    progress *pr;
    uv_thread_t tid;
} share;

static void on_depth(void *ctx, int depth, int value, int exact, uint64_t nodes)
{
    share *sh = ctx;
    progress *p = sh->pr;
    uv_mutex_lock(&p->lock);
    if (p->threads > 1)
        fprintf(stderr, "share %d/%d: ", sh->part + 1, p->threads);
    fprintf(stderr, "depth %d: %s%d (%llu nodes, %.0f ms)\n", depth, exact ? "" : ">= ", value,
            (unsigned long long)nodes, now_ms() - p->start);
    uv_mutex_unlock(&p->lock);
}

static void run_share(void *arg)
{
    share *sh = arg;
    sh->err = thue_solve(sh->solver, sh->sym, sh->n, &sh->lim, sh->r);
}

int cmd_solve(int argc, char **argv)
{
    /* --game G other than thue: the game's own form (cmd_game.c, cmd_game_play.c). */
    const char *gname = cli_take_game("solve", &argc, argv);
    if (gname != NULL && strcmp(gname, "thue") != 0)
        return cmd_solve_game(gname, argc, argv);
    const char *variant = NULL, *ktext = NULL, *dtext = NULL, *ntext = NULL, *ttext = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"variant", 1, &variant, NULL}, {"k", 1, &ktext, NULL},
                      {"max-depth", 1, &dtext, NULL}, {"max-nodes", 1, &ntext, NULL},
                      {"threads", 1, &ttext, NULL},   {"json", 0, NULL, &json},
                      {NULL, 0, NULL, NULL}};
    cli_parse("solve", usage, argc, argv, opts, pos, 0, 1, &np);
    thue_variant v = cli_variant("solve", variant);
    int k = cli_k("solve", ktext);
    int maxd = cli_int("solve", "max-depth", dtext, 1, 10000, 0);
    uint64_t budget = cli_u64("solve", "max-nodes", ntext, 0);
    int threads = cli_int("solve", "threads", ttext, 1, THUE_BOT_PARTS_MAX, 1);
    thue_word w;
    thue_word_init(&w);
    cli_clean_word("solve", np ? pos[0] : "0", k, v, &w);
    if (threads > w.len + 1)
        threads = w.len + 1; /* one share per builder position at most */
    share sh[THUE_BOT_PARTS_MAX];
    progress pr;
    pr.start = now_ms();
    pr.threads = threads;
    uv_mutex_init(&pr.lock);
    int err = 0;
    for (int t = 0; t < threads && err == 0; t++) {
        sh[t].solver = thue_solver_new(k, v);
        sh[t].r = malloc(sizeof *sh[t].r);
        sh[t].sym = w.sym;
        sh[t].n = w.len;
        sh[t].pr = &pr;
        sh[t].part = t;
        sh[t].lim =
            (thue_solve_limits){.max_depth = maxd,
                                .node_budget = budget ? (budget + threads - 1) / threads : 0,
                                .on_depth = on_depth,
                                .ctx = &sh[t],
                                .root_part = t,
                                .root_parts = threads};
        if (sh[t].solver == NULL || sh[t].r == NULL)
            err = THUE_ENOMEM;
    }
    int started = 0;
    for (int t = 1; t < threads && err == 0; t++, started++)
        if (uv_thread_create(&sh[t].tid, run_share, &sh[t]) != 0)
            break;
    if (err == 0) {
        run_share(&sh[0]);
        for (int t = started + 1; t < threads; t++) /* threads that could not start */
            run_share(&sh[t]);
    }
    for (int t = 1; t <= started; t++)
        uv_thread_join(&sh[t].tid);
    double ms = now_ms() - pr.start;
    uv_mutex_destroy(&pr.lock);
    /* The value is the minimum over the shares; it is exact when a share that reaches it
     * is exact (the others are then bounds at least as large). */
    thue_solve_result *r = err == 0 ? sh[0].r : NULL;
    uint64_t nodes = 0, states = 0;
    int depth = 0;
    for (int t = 0; t < threads && err == 0; t++) {
        if (sh[t].err) {
            err = sh[t].err;
            break;
        }
        thue_solve_result *x = sh[t].r;
        nodes += x->nodes;
        states += x->states;
        if (t == 0 || x->depth < depth)
            depth = x->depth;
        if (x->value < r->value || (x->value == r->value && x->exact && !r->exact))
            r = x;
    }
    if (err == THUE_ETOOLONG)
        cli_usage_error("solve", "the word is too long for the solver");
    if (err) {
        fprintf(stderr, "thue solve: %s\n", thue_strerror(err));
        return 1;
    }
    r->nodes = nodes;
    r->states = states;
    if (!r->exact)
        r->depth = depth;
    if (json) {
        printf("{\"value\":%d,\"exact\":%s,\"states\":%llu,\"pv\":[", r->value,
               r->exact ? "true" : "false", (unsigned long long)r->states);
        for (int x = 0; x < r->pv_len; x++)
            printf(x ? ",[%d,%d]" : "[%d,%d]", r->pv[x][0], r->pv[x][1]);
        printf("],\"ms\":%.3f,\"depth\":%d,\"nodes\":%llu}\n", ms, r->depth,
               (unsigned long long)r->nodes);
    } else {
        const char *rep_name = thue_variant_name(v);
        if (r->exact)
            printf("value %d (exact): with best play the painter scores %d more point%s and "
                   "the builder forces a%s %s on insertion %d\n",
                   r->value, r->value, r->value == 1 ? "" : "s", v == THUE_OVERLAP ? "n" : "",
                   rep_name, r->value + 1);
        else if (r->depth > 0)
            printf("value >= %d (not exact): the painter survives at least %d more "
                   "insertions%s\n",
                   r->value, r->value, maxd && r->depth == maxd ? " (depth cap)" : " (budget)");
        else
            printf("no depth finished within the budget\n");
        printf("best play (position, symbol):");
        for (int x = 0; x < r->pv_len; x++)
            printf(" (%d,%d)", r->pv[x][0], r->pv[x][1]);
        printf("\n%llu nodes, %llu positions in the table, %.1f ms\n", (unsigned long long)r->nodes,
               (unsigned long long)r->states, ms);
    }
    for (int t = 0; t < threads; t++) {
        free(sh[t].r);
        thue_solver_free(sh[t].solver);
    }
    thue_word_free(&w);
    return 0;
}
