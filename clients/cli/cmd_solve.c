/*
 * cmd_solve.c: `thue solve [WORD] --k K ...`: the exact value of a position, with a
 * table sized by --hash shared by --threads searching threads (each puts off the
 * positions another is busy with, solve.c; the main thread's answer is the result, the
 * others only fill the table), and --proof FILE.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "cli.h"
#include "cli_game.h"
#include "base/errors.h"
#include "games/thue/bots/solve.h"

static const char usage[] =
    "Usage: thue solve [WORD] --k K [--variant square|overlap] [--max-depth D]\n"
    "                  [--max-nodes N] [--threads T] [--hash MB] [--proof FILE] [--json]\n"
    "\n"
    "Solves a position exactly: the number of further points the painter can force from\n"
    "WORD (default 0) with the builder to move, under best play by both, and a line of\n"
    "best play. With a depth cap D the answer is either exact (the builder forces a\n"
    "repetition within D insertions) or 'the painter survives at least D more\n"
    "insertions'. The search deepens one insertion at a time, printing each depth to\n"
    "stderr (value, time, nodes, table fill), so a --max-nodes budget still leaves the\n"
    "deepest finished answer.\n"
    "\n"
    "  --k K           number of symbols, 2..64 (required)\n"
    "  --variant V     square (default) or overlap\n"
    "  --max-depth D   look at most D insertions ahead (default: no cap; for large k the\n"
    "                  game may go on for ever, so set a cap or a node budget)\n"
    "  --max-nodes N   stop after about N positions of the main thread (default: no limit)\n"
    "  --threads T     search with T threads sharing one table, 1..64 (default 1); the\n"
    "                  helpers search other orders first, the answer is the same\n"
    "  --hash MB       the table's size in MB, 1..the machine's memory (default: a quarter\n"
    "                  of the physical memory); 16 bytes a position; memory is taken as\n"
    "                  the table fills\n"
    "  --proof FILE    write the painter's strategy proving the answer's lower bound\n"
    "                  (the proof file of docs/proofs.md; k <= 16), checked by\n"
    "                  'thue verify-proof FILE'; written to FILE.tmp, then renamed\n"
    "  --json          print {\"value\":N,\"exact\":B,\"states\":S,\"pv\":[[i,c],...],\"ms\":T,\n"
    "                  \"depth\":D,\"nodes\":X}; pv is (position, symbol) insertions, ending\n"
    "                  with the one that makes the repetition when exact\n"
    "\n"
    "--game G (another game than thue, e.g. nim; 'thue games' lists them) has a form\n"
    "of its own: 'thue solve --game G --help'. --game thue is this form.\n"
    "\n"
    "Exit status: 0 (exact or not), 1 out of memory or the proof could not be written,\n"
    "2 bad arguments.\n";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One thread's search: the main one (t = 0) or a helper. */
typedef struct worker {
    thue_solver *solver;
    thue_solve_result r;
    thue_solve_limits lim;
    const uint8_t *sym;
    int n, err;
    double start;
    thue_solve_table *tt;
    uv_thread_t tid;
} worker;

static void on_depth(void *ctx, int depth, int value, int exact, uint64_t nodes)
{
    worker *wk = ctx;
    double fill =
        100.0 * (double)thue_solve_table_used(wk->tt) / (double)thue_solve_table_entries(wk->tt);
    fprintf(stderr, "depth %d: %s%d (%.0f ms, %llu nodes, table %.1f%% full)\n", depth,
            exact ? "" : ">= ", value, now_ms() - wk->start, (unsigned long long)nodes, fill);
}

static void run_worker(void *arg)
{
    worker *wk = arg;
    wk->err = thue_solve(wk->solver, wk->sym, wk->n, &wk->lim, &wk->r);
}

/* Physical memory in MB (0 when unknown). */
static uint64_t phys_mb(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || size <= 0)
        return 0;
    return (uint64_t)pages / (1024 * 1024 / (uint64_t)size);
}

int cmd_solve(int argc, char **argv)
{
    /* --game G other than thue: the game's own form (cmd_game.c, cmd_game_play.c). */
    const char *gname = cli_take_game("solve", &argc, argv);
    if (gname != NULL && strcmp(gname, "thue") != 0)
        return cmd_solve_game(gname, argc, argv);
    const char *variant = NULL, *ktext = NULL, *dtext = NULL, *ntext = NULL, *ttext = NULL,
               *htext = NULL, *proof = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"variant", 1, &variant, NULL}, {"k", 1, &ktext, NULL},
                      {"max-depth", 1, &dtext, NULL}, {"max-nodes", 1, &ntext, NULL},
                      {"threads", 1, &ttext, NULL},   {"hash", 1, &htext, NULL},
                      {"proof", 1, &proof, NULL},     {"json", 0, NULL, &json},
                      {NULL, 0, NULL, NULL}};
    cli_parse("solve", usage, argc, argv, opts, pos, 0, 1, &np);
    thue_variant v = cli_variant("solve", variant);
    int k = cli_k("solve", ktext);
    int maxd = cli_int("solve", "max-depth", dtext, 1, 10000, 0);
    uint64_t budget = cli_u64("solve", "max-nodes", ntext, 0);
    int threads = cli_int("solve", "threads", ttext, 1, THUE_BOT_PARTS_MAX, 1);
    uint64_t phys = phys_mb(), maxmb = phys ? phys : (uint64_t)1 << 20;
    uint64_t hash = phys ? (phys / 4 ? phys / 4 : 1) : 1024;
    if (htext != NULL) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(htext, &end, 10);
        if (htext[0] < '0' || htext[0] > '9' || *end != '\0' || errno == ERANGE || x < 1 ||
            x > maxmb)
            cli_usage_error("solve",
                            "--hash is the table's size in MB, 1..%llu (the physical memory), "
                            "got '%s'",
                            (unsigned long long)maxmb, htext);
        hash = x;
    }
    if (proof != NULL && k > 16)
        cli_usage_error("solve", "--proof needs k <= 16 (symbols are hex digits), got k=%d", k);
    thue_word w;
    thue_word_init(&w);
    cli_clean_word("solve", np ? pos[0] : "0", k, v, &w);
    /* The proof's file is opened first, so that a bad path fails before the search. */
    char *tmp = NULL;
    FILE *pf = NULL;
    if (proof != NULL) {
        size_t len = strlen(proof) + 5;
        tmp = malloc(len);
        if (tmp == NULL) {
            fprintf(stderr, "thue solve: %s\n", thue_strerror(THUE_ENOMEM));
            return 1;
        }
        snprintf(tmp, len, "%s.tmp", proof);
        pf = fopen(tmp, "wb");
        if (pf == NULL) {
            fprintf(stderr, "thue solve: cannot write the proof file '%s': %s\n", tmp,
                    strerror(errno));
            free(tmp);
            thue_word_free(&w);
            return 1;
        }
    }
    thue_solve_table *tt = thue_solve_table_new((size_t)(hash << 20));
    if (tt == NULL) {
        fprintf(stderr, "thue solve: cannot allocate a %llu MB table (--hash)\n",
                (unsigned long long)hash);
        if (pf != NULL) {
            fclose(pf);
            remove(tmp);
        }
        free(tmp);
        thue_word_free(&w);
        return 1;
    }
    fprintf(stderr, "table: %llu MB, %llu positions; %d thread%s\n", (unsigned long long)hash,
            (unsigned long long)thue_solve_table_entries(tt), threads, threads == 1 ? "" : "s");
    worker wk[THUE_BOT_PARTS_MAX];
    atomic_int stop;
    atomic_init(&stop, 0);
    double start = now_ms();
    int err = 0;
    for (int t = 0; t < threads; t++) {
        wk[t].solver = thue_solver_new_shared(k, v, tt);
        wk[t].sym = w.sym;
        wk[t].n = w.len;
        wk[t].err = 0;
        wk[t].start = start;
        wk[t].tt = tt;
        wk[t].lim = (thue_solve_limits){.max_depth = maxd,
                                        .node_budget = t == 0 ? budget : 0,
                                        .on_depth = t == 0 ? on_depth : NULL,
                                        .ctx = &wk[t],
                                        .stop = t == 0 ? NULL : &stop,
                                        .helper = t};
        if (wk[t].solver == NULL)
            err = THUE_ENOMEM;
    }
    int started = 0;
    for (int t = 1; t < threads && err == 0; t++, started++)
        if (uv_thread_create(&wk[t].tid, run_worker, &wk[t]) != 0)
            break; /* fewer helpers: the answer is the same */
    if (err == 0)
        run_worker(&wk[0]);
    atomic_store(&stop, 1);
    for (int t = 1; t <= started; t++)
        uv_thread_join(&wk[t].tid);
    double ms = now_ms() - start;
    thue_solve_result *r = &wk[0].r;
    if (err == 0)
        err = wk[0].err;
    uint64_t nodes = 0;
    for (int t = 0; t <= started && err == 0; t++)
        nodes += wk[t].r.nodes;
    if (err == THUE_ETOOLONG)
        cli_usage_error("solve", "the word is too long for the solver");
    uint64_t records = 0, bytes = 0;
    double proof_ms = 0;
    if (err == 0 && pf != NULL) {
        double t0 = now_ms();
        int pe =
            thue_solver_write_proof(wk[0].solver, w.sym, w.len, r->value, pf, &records, &bytes);
        int werr = ferror(pf);
        if (fclose(pf) != 0)
            werr = 1;
        pf = NULL;
        proof_ms = now_ms() - t0;
        if (pe == 0 && !werr && rename(tmp, proof) != 0)
            werr = 1;
        if (pe != 0 || werr) {
            remove(tmp);
            if (pe > 0)
                fprintf(stderr, "thue solve: no proof: the painter's strategy failed "
                                "(the table gave a wrong bound)\n");
            else if (pe < 0)
                fprintf(stderr, "thue solve: no proof: %s\n", thue_strerror(pe));
            else
                fprintf(stderr, "thue solve: cannot write the proof file '%s': %s\n", proof,
                        strerror(errno));
            err = 1;
        }
    } else if (pf != NULL) {
        fclose(pf);
        remove(tmp);
    }
    free(tmp);
    if (err < 0) {
        fprintf(stderr, "thue solve: %s\n", thue_strerror(err));
    } else if (err == 0) {
        r->nodes = nodes;
        if (json) {
            printf("{\"value\":%d,\"exact\":%s,\"states\":%llu,\"pv\":[", r->value,
                   r->exact ? "true" : "false", (unsigned long long)r->states);
            for (int x = 0; x < r->pv_len; x++)
                printf(x ? ",[%d,%d]" : "[%d,%d]", r->pv[x][0], r->pv[x][1]);
            printf("],\"ms\":%.3f,\"depth\":%d,\"nodes\":%llu", ms, r->depth,
                   (unsigned long long)r->nodes);
            if (proof != NULL)
                printf(",\"proof\":{\"depth\":%d,\"records\":%llu,\"bytes\":%llu}", r->value,
                       (unsigned long long)records, (unsigned long long)bytes);
            printf("}\n");
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
            printf("\n%llu nodes, %llu positions in the table, %.1f ms\n",
                   (unsigned long long)r->nodes, (unsigned long long)r->states, ms);
            if (proof != NULL)
                printf("proof: %s: painter >= %d, %llu records, %llu bytes, %.1f ms\n", proof,
                       r->value, (unsigned long long)records, (unsigned long long)bytes, proof_ms);
        }
    }
    for (int t = 0; t < threads; t++)
        thue_solver_free(wk[t].solver);
    thue_solve_table_free(tt);
    thue_word_free(&w);
    return err == 0 ? 0 : 1;
}
