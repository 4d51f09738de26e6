/*
 * cmd_bench_search.c: `thue bench search`: the bots against the thesis's way of computing
 * the same decisions, and the worker pool's speed-up.
 *
 * Games: a fixed set of seeded single rounds from [0] (k = 5 square by default): builder
 * nested:0 against painter nested:1, and builder nested:1 against painter nested:1, up to
 * --limit insertions. Each game is first played by the real bots (server/search, no
 * limits, so deterministic), timing every decision. Then the baseline (baseline_bots.c:
 * the same definitions, every safety question a full rescan of a copied list) decides
 * the same positions with the same seeds, and every decision and node count must be the
 * same: a difference is a failure (exit 1). The baseline can take hours on long games,
 * so it stops after --baseline-ms per game; its total is then unknown (null) and the
 * ratio is given over the decisions both made (the "prefix").
 *
 * Pool: one nested:2 builder decision (the position after --pool-ply insertions of the
 * first game) run through thue_pool with 1 thread and 1 part, then 2 threads and 2 parts,
 * best of --pool-reps runs each; the speed-up is the ratio. The two must play the same
 * move. Levels: nested:2 against nested:1 at the same word lengths (the thesis's
 * comparison), on positions of the first game. This is a benchmark: nothing here asserts
 * a time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "baseline_bots.h"
#include "cli.h"
#include "base/errors.h"
#include "search/pool.h"

static const char usage[] =
    "Usage: thue bench search [--k K] [--variant square|overlap] [--seeds LIST]\n"
    "                         [--limit N] [--baseline-ms MS] [--no-baseline]\n"
    "                         [--pool-ply P] [--pool-reps R] [--json]\n"
    "\n"
    "Plays a fixed set of seeded games (builder nested:0 vs painter nested:1, and\n"
    "builder nested:1 vs painter nested:1) with the bots, then decides the same\n"
    "positions with a baseline that computes the thesis's definitions the thesis's way\n"
    "(every safety question a full rescan), checks that both make the same decisions\n"
    "with the same node counts, and prints the times and their ratio. Then times one\n"
    "nested:2 decision on the worker pool with 1 and with 2 threads, and nested:2\n"
    "against nested:1 decisions at word lengths 20, 40, ..., 100 of the first game.\n"
    "\n"
    "  --k K            symbols, 2..64 (default 5)\n"
    "  --variant V      square (default) or overlap\n"
    "  --seeds LIST     game seeds, comma-separated (default 1,2,3)\n"
    "  --limit N        at most N insertions per game, 1..10000 (default 300)\n"
    "  --baseline-ms MS the baseline's time budget per game (default 20000); past it the\n"
    "                   baseline's total is unknown and the ratio covers the decisions\n"
    "                   both made\n"
    "  --no-baseline    skip the baseline\n"
    "  --pool-ply P     the pool's nested:2 decision is at the position after P\n"
    "                   insertions of the first game (default 100)\n"
    "  --pool-reps R    runs per pool setting, the best counts, 1..100 (default 9)\n"
    "  --json           print {\"games\":[{\"builder\":..,\"painter\":..,\"k\":K,\"seed\":S,\n"
    "                   \"insertions\":N,\"ms\":T,\"nodes\":X,\"baseline_ms\":B|null,\n"
    "                   \"baseline_decisions\":D,\"decisions\":D,\"prefix_ms\":T,\n"
    "                   \"prefix_ratio\":R},...],\"pool_speedup\":X,\"pool\":{...},\n"
    "                   \"level2_over_level1\":{\"builder\":X,\"painter\":Y,...}}\n"
    "\n"
    "Progress goes to stderr. Exit status: 0, 1 when the baseline disagrees or on\n"
    "failure, 2 bad arguments.\n";

#define MAX_SEEDS 32

/* One decision of a played game. */
typedef struct decision {
    int n; /* word length before the move */
    thue_role role;
    int index; /* painter: the builder's position */
    int move;
    uint64_t nodes;
    double ms;
} decision;

typedef struct game {
    int blevel, plevel;
    uint64_t seed;
    int insertions; /* insertions made, including one that made a repetition */
    int repetition; /* 1 when a repetition ended it, 0 when the limit did */
    decision *d;
    int nd;
    double ms;
    uint64_t nodes;
    int baseline_run;   /* the baseline was run at all */
    int baseline_done;  /* decisions the baseline made */
    double baseline_ms; /* its time on them */
    double prefix_ms;   /* the bots' time on the same decisions */
} game;

static double ms_since(int64_t t0)
{
    return (double)(thue_now_ns() - t0) / 1e6;
}

static thue_bot_spec level_spec(int level)
{
    thue_bot_spec s = thue_bot_spec_default(level == 0 ? THUE_BOT_GREEDY : THUE_BOT_NESTED);
    s.level = level;
    return s;
}

/* One decision of the real bots, recorded. */
static int decide(game *g, const thue_position *pos, int ply)
{
    thue_bot_spec spec = level_spec(pos->role == THUE_ROLE_BUILDER ? g->blevel : g->plevel);
    thue_bot_result r;
    int e = thue_bot_move(&spec, pos, NULL, thue_bot_move_seed(g->seed, 0, ply, pos->role), &r);
    if (e == 0)
        g->d[g->nd++] = (decision){pos->n, pos->role, pos->index, r.move, r.nodes, r.ms};
    return e;
}

/* Plays the game with the bots, up to limit insertions. 0 or a THUE_E... code. */
static int play(game *g, int k, thue_variant v, int limit)
{
    uint8_t *w = malloc((size_t)limit + 2);
    g->d = malloc(sizeof(decision) * (size_t)(2 * limit + 2));
    if (w == NULL || g->d == NULL) {
        free(w);
        return THUE_ENOMEM;
    }
    int n = 1, e = 0;
    w[0] = 0;
    while (g->insertions < limit) {
        int ply = g->insertions;
        thue_position pos = {v, k, w, n, THUE_ROLE_BUILDER, 0, 0};
        if ((e = decide(g, &pos, ply)) != 0)
            break;
        pos.role = THUE_ROLE_PAINTER;
        pos.index = g->d[g->nd - 1].move;
        if ((e = decide(g, &pos, ply)) != 0)
            break;
        int i = pos.index, c = g->d[g->nd - 1].move;
        int hit = thue_check_insert(w, n, v, i, c, NULL);
        memmove(w + i + 1, w + i, (size_t)(n - i));
        w[i] = (uint8_t)c;
        n++;
        g->insertions++;
        if (hit) {
            g->repetition = 1;
            break;
        }
    }
    for (int x = 0; x < g->nd; x++) {
        g->ms += g->d[x].ms;
        g->nodes += g->d[x].nodes;
    }
    free(w);
    return e;
}

/* Replays the game's decisions with the baseline within budget_ms. 0, or 1 when a
 * decision differs (reported on stderr), or -1 out of memory. */
static int replay_baseline(game *g, int k, thue_variant v, double budget_ms)
{
    uint8_t *w = malloc((size_t)g->insertions + 2);
    if (w == NULL)
        return -1;
    int n = 1, status = 0;
    w[0] = 0;
    int64_t t0 = thue_now_ns();
    g->baseline_run = 1;
    for (int x = 0; x < g->nd && ms_since(t0) <= budget_ms; x++) {
        const decision *d = &g->d[x];
        thue_position pos = {v, k, w, n, d->role, d->index, 0};
        int move, level = d->role == THUE_ROLE_BUILDER ? g->blevel : g->plevel;
        uint64_t nodes, seed = thue_bot_move_seed(g->seed, 0, n - 1, d->role);
        if (baseline_bot_move(level, &pos, seed, &move, &nodes) != 0) {
            status = -1;
            break;
        }
        if (move != d->move || nodes != d->nodes) {
            fprintf(stderr,
                    "thue bench: the baseline disagrees in game seed %llu at word length %d "
                    "(%s): bots %d (%llu nodes), baseline %d (%llu nodes)\n",
                    (unsigned long long)g->seed, n, thue_role_name(d->role), d->move,
                    (unsigned long long)d->nodes, move, (unsigned long long)nodes);
            status = 1;
            break;
        }
        g->baseline_done++;
        g->prefix_ms += d->ms;
        if (d->role == THUE_ROLE_PAINTER) {
            memmove(w + d->index + 1, w + d->index, (size_t)(n - d->index));
            w[d->index] = (uint8_t)d->move;
            n++;
        }
    }
    g->baseline_ms = ms_since(t0);
    free(w);
    return status;
}

/* ---- the pool ---------------------------------------------------------------------- */

typedef struct pool_wait {
    int done;
    thue_job_result res;
} pool_wait;

static void on_job(const thue_job_result *res, void *data)
{
    pool_wait *pw = data;
    pw->res = *res;
    pw->done = 1;
}

/* One nested:2 decision on a pool of `threads` threads split into as many parts:
 * the wall time from submission to delivery. 0 or an error. */
static int pool_once(const thue_position *pos, uint64_t seed, int threads, double *ms,
                     thue_bot_result *out)
{
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0)
        return THUE_ENOMEM;
    thue_pool *pool = thue_pool_new(&loop, threads);
    if (pool == NULL) {
        uv_loop_close(&loop);
        return THUE_ENOMEM;
    }
    pool_wait pw = {0};
    thue_job_request req;
    memset(&req, 0, sizeof req);
    req.spec = level_spec(2);
    req.pos = *pos;
    req.seed = seed;
    req.parts = threads;
    req.cb = on_job;
    req.data = &pw;
    uint64_t id;
    int64_t t0 = thue_now_ns();
    int e = thue_pool_submit(pool, &req, &id);
    while (e == 0 && !pw.done)
        uv_run(&loop, UV_RUN_ONCE);
    *ms = ms_since(t0);
    thue_pool_close(pool, NULL, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    if (e == 0)
        e = pw.res.err;
    if (e == 0)
        *out = pw.res.bot;
    return e;
}

/* ---- level 2 against level 1 ------------------------------------------------------- */

/* Mean time of one decision, repeated until at least 20 ms were spent. */
static double time_decision(int level, const thue_position *pos, uint64_t seed)
{
    thue_bot_spec spec = level_spec(level);
    int64_t t0 = thue_now_ns();
    int reps = 0;
    thue_bot_result r;
    do {
        if (thue_bot_move(&spec, pos, NULL, seed, &r) != 0)
            return -1;
        reps++;
    } while (ms_since(t0) < 20 && reps < 100000);
    return ms_since(t0) / reps;
}

#define LEVEL_POINTS 5

/* The thesis compared levels at the same word length: here nested:2 against nested:1 on
 * the positions of game g at lengths 20, 40, ..., for the builder and for the painter
 * (at the position the game's builder chose). ratio[role] gets the geometric mean of
 * time(nested:2) / time(nested:1); lens[0..*npoints) the lengths used. 0 or -1. */
static int level_ratios(const game *g, int k, thue_variant v, double ratio[2], int lens[],
                        int *npoints)
{
    uint8_t *w = malloc((size_t)g->insertions + 2);
    if (w == NULL)
        return -1;
    int n = 1, np = 0;
    double logsum[2] = {0, 0};
    w[0] = 0;
    for (int x = 0; x + 1 < g->nd && np < LEVEL_POINTS; x += 2) {
        const decision *b = &g->d[x], *pt = &g->d[x + 1];
        if (n == 20 * (np + 1)) {
            thue_position pos = {v, k, w, n, THUE_ROLE_BUILDER, 0, 0};
            double t1 = time_decision(1, &pos, 1), t2 = time_decision(2, &pos, 1);
            pos.role = THUE_ROLE_PAINTER;
            pos.index = b->move;
            double p1 = time_decision(1, &pos, 1), p2 = time_decision(2, &pos, 1);
            if (t1 <= 0 || t2 <= 0 || p1 <= 0 || p2 <= 0) {
                free(w);
                return -1;
            }
            logsum[0] += log(t2 / t1);
            logsum[1] += log(p2 / p1);
            lens[np++] = n;
            fprintf(stderr, "levels at n = %d: builder %.3f -> %.3f ms, painter %.4f -> %.3f ms\n",
                    n, t1, t2, p1, p2);
        }
        if (thue_check_insert(w, n, v, b->move, pt->move, NULL) != 0)
            break;
        memmove(w + b->move + 1, w + b->move, (size_t)(n - b->move));
        w[b->move] = (uint8_t)pt->move;
        n++;
    }
    free(w);
    *npoints = np;
    for (int r = 0; r < 2; r++)
        ratio[r] = np ? exp(logsum[r] / np) : 0;
    return 0;
}

/* ---- the command ------------------------------------------------------------------- */

static int free_games(game *games, int ngames, int status)
{
    for (int gi = 0; gi < ngames; gi++)
        free(games[gi].d);
    free(games);
    return status;
}

static int parse_seeds(const char *text, uint64_t *seeds)
{
    int count = 0;
    const char *p = text;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9' || count == MAX_SEEDS)
            cli_usage_error("bench", "--seeds takes up to %d numbers separated by commas, got '%s'",
                            MAX_SEEDS, text);
        seeds[count++] = strtoull(p, &end, 10);
        if (*end == '\0')
            return count;
        if (*end != ',')
            cli_usage_error("bench", "--seeds: unexpected '%c' in '%s'", *end, text);
        p = end + 1;
    }
}

static void print_num_or_null(double v, int known)
{
    if (known)
        printf("%.3f", v);
    else
        fputs("null", stdout);
}

int cmd_bench_search(int argc, char **argv)
{
    const char *k_t = NULL, *variant_t = NULL, *seeds_t = NULL, *limit_t = NULL, *bms_t = NULL,
               *ply_t = NULL, *reps_t = NULL, *pos[1];
    int json = 0, nobase = 0, np;
    cli_opt opts[] = {{"k", 1, &k_t, NULL},
                      {"variant", 1, &variant_t, NULL},
                      {"seeds", 1, &seeds_t, NULL},
                      {"limit", 1, &limit_t, NULL},
                      {"baseline-ms", 1, &bms_t, NULL},
                      {"no-baseline", 0, NULL, &nobase},
                      {"pool-ply", 1, &ply_t, NULL},
                      {"pool-reps", 1, &reps_t, NULL},
                      {"json", 0, NULL, &json},
                      {NULL, 0, NULL, NULL}};
    cli_parse("bench", usage, argc, argv, opts, pos, 0, 0, &np);
    int k = cli_int("bench", "k", k_t, THUE_K_MIN, THUE_K_MAX, 5);
    thue_variant v = cli_variant("bench", variant_t);
    uint64_t seeds[MAX_SEEDS] = {1, 2, 3};
    int nseeds = seeds_t ? parse_seeds(seeds_t, seeds) : 3;
    int limit = cli_int("bench", "limit", limit_t, 1, 10000, 300);
    int budget = cli_int("bench", "baseline-ms", bms_t, 0, 86400000, 20000);
    int pool_ply = cli_int("bench", "pool-ply", ply_t, 0, 10000, 100);
    int reps = cli_int("bench", "pool-reps", reps_t, 1, 100, 9);

    static const int pairs[2][2] = {{0, 1}, {1, 1}};
    int ngames = 2 * nseeds;
    game *games = calloc((size_t)ngames, sizeof(game));
    if (games == NULL) {
        fprintf(stderr, "thue bench: out of memory\n");
        return 1;
    }
    int status = 0;
    for (int gi = 0; gi < ngames && status == 0; gi++) {
        game *g = &games[gi];
        g->blevel = pairs[gi / nseeds][0];
        g->plevel = pairs[gi / nseeds][1];
        g->seed = seeds[gi % nseeds];
        int e = play(g, k, v, limit);
        if (e) {
            fprintf(stderr, "thue bench: %s\n", thue_strerror(e));
            status = 1;
            break;
        }
        fprintf(stderr,
                "game %d/%d: builder nested:%d, painter nested:%d, seed %llu: %d insertions in "
                "%.1f ms\n",
                gi + 1, ngames, g->blevel, g->plevel, (unsigned long long)g->seed, g->insertions,
                g->ms);
    }

    /* The pool: the position after pool_ply insertions of the first game (or its end). */
    double best1 = -1, best2 = -1;
    int pool_n = 0, pool_err = 0;
    thue_bot_result r1 = {0}, r2 = {0};
    if (status == 0) {
        game *g = &games[0];
        uint8_t *w = malloc((size_t)g->insertions + 2);
        int n = 1;
        if (w == NULL) {
            status = 1;
        } else {
            w[0] = 0;
            for (int x = 0; x < g->nd && n - 1 < pool_ply; x++) {
                const decision *d = &g->d[x];
                int last = x == g->nd - 1 && g->repetition;
                if (d->role == THUE_ROLE_PAINTER && !last) {
                    memmove(w + d->index + 1, w + d->index, (size_t)(n - d->index));
                    w[d->index] = (uint8_t)d->move;
                    n++;
                }
            }
            pool_n = n;
            thue_position at = {v, k, w, n, THUE_ROLE_BUILDER, 0, 0};
            for (int rep = 0; rep < reps && !pool_err; rep++) {
                double ms1, ms2;
                pool_err = pool_once(&at, 7, 1, &ms1, &r1);
                if (!pool_err)
                    pool_err = pool_once(&at, 7, 2, &ms2, &r2);
                if (pool_err)
                    break;
                if (best1 < 0 || ms1 < best1)
                    best1 = ms1;
                if (best2 < 0 || ms2 < best2)
                    best2 = ms2;
                fprintf(stderr,
                        "pool: nested:2 builder at n = %d: 1 thread %.1f ms, 2 threads %.1f ms\n",
                        n, ms1, ms2);
            }
            if (pool_err) {
                fprintf(stderr, "thue bench: pool: %s\n", thue_strerror(pool_err));
                status = 1;
            } else if (r1.move != r2.move || r1.nodes != r2.nodes) {
                fprintf(stderr, "thue bench: pool: 1 and 2 threads disagree (%d vs %d)\n", r1.move,
                        r2.move);
                status = 1;
            }
            free(w);
        }
    }
    if (status != 0)
        return free_games(games, ngames, status);

    double lratio[2] = {0, 0};
    int lens[LEVEL_POINTS], nlens = 0;
    if (level_ratios(&games[0], k, v, lratio, lens, &nlens) != 0) {
        fprintf(stderr, "thue bench: out of memory\n");
        status = 1;
    }
    /* The baseline last, so that the timings above are not taken right after minutes of
     * baseline work. */
    for (int gi = 0; gi < ngames && status == 0 && !nobase; gi++) {
        game *g = &games[gi];
        int r = replay_baseline(g, k, v, budget);
        if (r != 0) {
            if (r < 0)
                fprintf(stderr, "thue bench: out of memory\n");
            status = 1;
            break;
        }
        fprintf(stderr, "baseline, game %d/%d: %d of %d decisions agree, %.1f ms%s\n", gi + 1,
                ngames, g->baseline_done, g->nd, g->baseline_ms,
                g->baseline_done < g->nd ? " (budget spent)" : "");
    }
    if (status != 0)
        return free_games(games, ngames, status);
    double speedup = best2 > 0 ? best1 / best2 : 0;
    if (json) {
        printf("{\"games\":[");
        for (int gi = 0; gi < ngames; gi++) {
            const game *g = &games[gi];
            int known = g->baseline_run && g->baseline_done == g->nd;
            printf(
                "%s{\"builder\":\"nested:%d\",\"painter\":\"nested:%d\",\"k\":%d,\"seed\":%llu,"
                "\"insertions\":%d,\"ended_by\":\"%s\",\"ms\":%.3f,\"nodes\":%llu,\"baseline_ms\":",
                gi ? "," : "", g->blevel, g->plevel, k, (unsigned long long)g->seed, g->insertions,
                g->repetition ? "repetition" : "limit", g->ms, (unsigned long long)g->nodes);
            print_num_or_null(g->baseline_ms, known);
            printf(",\"decisions\":%d,\"baseline_decisions\":%d,\"prefix_ms\":%.3f,\"prefix_"
                   "baseline_ms\":",
                   g->nd, g->baseline_done, g->prefix_ms);
            print_num_or_null(g->baseline_ms, g->baseline_run);
            printf(",\"prefix_ratio\":");
            print_num_or_null(g->prefix_ms > 0 ? g->baseline_ms / g->prefix_ms : 0,
                              g->baseline_run && g->prefix_ms > 0);
            printf("}");
        }
        printf(
            "],\"pool_speedup\":%.3f,\"pool\":{\"bot\":\"nested:2\",\"role\":\"builder\",\"n\":%d,"
            "\"threads1_ms\":%.3f,\"threads2_ms\":%.3f,\"move\":%d,\"nodes\":%llu},",
            speedup, pool_n, best1, best2, r1.move, (unsigned long long)r1.nodes);
        printf("\"level2_over_level1\":{\"builder\":%.1f,\"painter\":%.1f,\"lengths\":[", lratio[0],
               lratio[1]);
        for (int x = 0; x < nlens; x++)
            printf(x ? ",%d" : "%d", lens[x]);
        printf("]}}\n");
    } else {
        printf("k = %d %s, games up to %d insertions; times are the sum of the bots' decisions\n\n",
               k, thue_variant_name(v), limit);
        printf("builder   painter   seed  insertions  ended       bots ms        nodes  baseline ms"
               "   ratio  (decisions checked)\n");
        for (int gi = 0; gi < ngames; gi++) {
            const game *g = &games[gi];
            printf("nested:%d  nested:%d  %4llu  %10d  %-10s %8.1f %12llu", g->blevel, g->plevel,
                   (unsigned long long)g->seed, g->insertions,
                   g->repetition ? "repetition" : "limit", g->ms, (unsigned long long)g->nodes);
            if (!g->baseline_run)
                printf("  %11s  %6s\n", "-", "-");
            else if (g->baseline_done == g->nd)
                printf("  %11.1f  %5.0fx  (all %d)\n", g->baseline_ms,
                       g->prefix_ms > 0 ? g->baseline_ms / g->prefix_ms : 0, g->nd);
            else
                printf("  %11s  %5.0fx  (first %d of %d: %.0f ms vs %.1f ms)\n", "unknown",
                       g->prefix_ms > 0 ? g->baseline_ms / g->prefix_ms : 0, g->baseline_done,
                       g->nd, g->baseline_ms, g->prefix_ms);
        }
        printf("\npool: one nested:2 builder decision at n = %d (best of %d): 1 thread %.1f ms, "
               "2 threads %.1f ms, speed-up %.2fx\n",
               pool_n, reps, best1, best2, speedup);
        printf("levels: nested:2 takes %.0fx (builder) and %.0fx (painter) the time of nested:1 "
               "at the same word length (geometric mean over n =",
               lratio[0], lratio[1]);
        for (int x = 0; x < nlens; x++)
            printf(x ? ", %d" : " %d", lens[x]);
        printf(")\n");
    }
    return free_games(games, ngames, 0);
}
