/*
 * cmd_bench.c: `thue bench engine`: the legal-move map against the thesis's baseline.
 *
 * For each size n it takes words reached by random play (random position that still has
 * a safe symbol, random safe symbol; the same play continued, so every size is a later
 * moment of the same games) and times
 *   - the engine's legal-move map, repeated until a time budget is spent;
 *   - the baseline (baseline.c): (n+1)*k thesis-style rescans per map. Past small n a
 *     whole baseline map takes minutes to hours, so it times a uniform random sample of
 *     the (position, symbol) checks within --baseline-ms and scales the mean check time
 *     to a full map (--full-baseline times every check instead). Each sampled baseline
 *     answer is compared with the engine's map, so the two cannot silently disagree.
 * Both are timed in the same run, on the same words; the ratio is baseline / engine.
 * This is a benchmark, not a test: nothing here asserts a time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline.h"
#include "cli.h"
#include "base/errors.h"
#include "base/rng.h"

static const char usage[] =
    "Usage: thue bench engine [--sizes LIST] [--k K] [--variant square|overlap] [--seed S]\n"
    "                         [--words N] [--engine-ms MS] [--baseline-ms MS]\n"
    "                         [--full-baseline] [--json]\n"
    "\n"
    "Times the legal-move map (safe symbols at every position) of the engine and of a\n"
    "naive baseline doing what the original thesis did (for each tentative insertion,\n"
    "rescan the whole word for every window length, copying both windows into lists),\n"
    "on words reached by random play, and prints ns per map and the ratio.\n"
    "\n"
    "  --sizes LIST      word lengths (default 50,100,200,400,800,1600)\n"
    "  --k K             symbols, 2..64 (default 5)\n"
    "  --variant V       square (default) or overlap\n"
    "  --seed S          random play seed (default 1)\n"
    "  --words N         games (words per size) to average over, 1..64 (default 4)\n"
    "  --engine-ms MS    time spent timing the engine per size (default 300)\n"
    "  --baseline-ms MS  time spent timing the baseline per size (default 1500); it\n"
    "                    times a random sample of the (n+1)*k checks and scales up\n"
    "  --full-baseline   time every baseline check (slow: hours at n = 1600)\n"
    "  --json            print {\"rows\":[{\"n\":..,\"engine_ns\":..,\"baseline_ns\":..,\n"
    "                    \"ratio\":..,...},...],...}\n"
    "\n"
    "Progress goes to stderr. Exit status: 0, 1 on failure, 2 bad arguments.\n"
    "The bots' benchmark is 'thue bench search' (see 'thue bench search --help').\n";

#define MAX_SIZES 32

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rng_next(uint64_t *s)
{
    return thue_splitmix64(s);
}

static int rng_below(uint64_t *s, int n)
{
    return (int)(rng_next(s) % (uint64_t)n);
}

static int parse_sizes(const char *text, int *sizes)
{
    int count = 0;
    const char *p = text;
    for (;;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 2 || v > 20000 || count == MAX_SIZES)
            cli_usage_error("bench",
                            "--sizes takes up to %d word lengths 2..20000 separated "
                            "by commas, got '%s'",
                            MAX_SIZES, text);
        sizes[count++] = (int)v;
        if (*end == '\0')
            break;
        if (*end != ',')
            cli_usage_error("bench", "--sizes: unexpected '%c' in '%s'", *end, text);
        p = end + 1;
    }
    for (int a = 1; a < count; a++)
        if (sizes[a] <= sizes[a - 1])
            cli_usage_error("bench", "--sizes must be increasing, got '%s'", text);
    return count;
}

/* One game of random play: grows w by one random safe move. Returns 0, or 1 when no
 * position has a safe symbol (the round would be lost whatever the painter does). */
static int play_one(thue_scan *s, uint8_t *w, int *len, int k, thue_variant v, uint64_t *safe,
                    uint64_t *rng)
{
    int n = *len;
    if (thue_legal_map(s, w, n, k, v, safe) != 0)
        return 1;
    int options = 0;
    for (int i = 0; i <= n; i++)
        options += safe[i] != 0;
    if (options == 0)
        return 1;
    int pick = rng_below(rng, options), i = 0;
    for (;; i++)
        if (safe[i] != 0 && pick-- == 0)
            break;
    int which = rng_below(rng, __builtin_popcountll(safe[i])), c = 0;
    for (;; c++)
        if (((safe[i] >> c) & 1) && which-- == 0)
            break;
    memmove(w + i + 1, w + i, (size_t)(n - i));
    w[i] = (uint8_t)c;
    *len = n + 1;
    return 0;
}

typedef struct {
    int n;
    double engine_ns, baseline_ns;
    long baseline_checks, total_checks;
    double baseline_rse; /* relative standard error of the sampled mean check time */
    int restarts;
} row;

int cmd_bench(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "search") == 0)
        return cmd_bench_search(argc - 1, argv + 1);
    const char *sizes_t = NULL, *k_t = NULL, *variant_t = NULL, *seed_t = NULL, *words_t = NULL;
    const char *ems_t = NULL, *bms_t = NULL, *pos[1];
    int json = 0, full = 0, np;
    cli_opt opts[] = {{"sizes", 1, &sizes_t, NULL},     {"k", 1, &k_t, NULL},
                      {"variant", 1, &variant_t, NULL}, {"seed", 1, &seed_t, NULL},
                      {"words", 1, &words_t, NULL},     {"engine-ms", 1, &ems_t, NULL},
                      {"baseline-ms", 1, &bms_t, NULL}, {"full-baseline", 0, NULL, &full},
                      {"json", 0, NULL, &json},         {NULL, 0, NULL, NULL}};
    cli_parse("bench", usage, argc, argv, opts, pos, 1, 1, &np);
    if (strcmp(pos[0], "engine") != 0)
        cli_usage_error("bench", "unknown benchmark '%s' (available: engine, search)", pos[0]);
    int sizes[MAX_SIZES] = {50, 100, 200, 400, 800, 1600};
    int nsizes = sizes_t ? parse_sizes(sizes_t, sizes) : 6;
    int k = cli_int("bench", "k", k_t, THUE_K_MIN, THUE_K_MAX, 5);
    thue_variant v = cli_variant("bench", variant_t);
    uint64_t seed = cli_u64("bench", "seed", seed_t, 1);
    int nwords = cli_int("bench", "words", words_t, 1, 64, 4);
    double engine_budget = cli_int("bench", "engine-ms", ems_t, 1, 3600000, 300) * 1e6;
    double base_budget = cli_int("bench", "baseline-ms", bms_t, 1, 86400000, 1500) * 1e6;

    int nmax = sizes[nsizes - 1];
    thue_scan *scan = thue_scan_new();
    uint8_t *words = malloc((size_t)nwords * (size_t)(nmax + 1));
    int *lens = calloc((size_t)nwords, sizeof *lens);
    uint64_t *safe = malloc((size_t)(nmax + 2) * sizeof *safe);
    uint64_t *maps = malloc((size_t)nwords * (size_t)(nmax + 2) * sizeof *maps);
    row *rows = calloc((size_t)nsizes, sizeof *rows);
    baseline_buf bb;
    if (!scan || !words || !lens || !safe || !maps || !rows || baseline_init(&bb, nmax) != 0) {
        fprintf(stderr, "thue bench: out of memory\n");
        return 1;
    }
    uint64_t rng = seed;
    uint64_t sink = 0;
    int failed = 0;
    for (int g = 0; g < nwords; g++) {
        words[(size_t)g * (size_t)(nmax + 1)] = 0;
        lens[g] = 1;
    }
    for (int si = 0; si < nsizes && !failed; si++) {
        int n = sizes[si];
        row *r = &rows[si];
        r->n = n;
        /* Continue every game up to length n; a game stuck with no safe move anywhere
         * starts again from [0] (counted as a restart). */
        fprintf(stderr, "n=%d: playing %d random games up to this length...\n", n, nwords);
        for (int g = 0; g < nwords; g++) {
            uint8_t *w = words + (size_t)g * (size_t)(nmax + 1);
            while (lens[g] < n) {
                if (play_one(scan, w, &lens[g], k, v, safe, &rng)) {
                    if (++r->restarts > 10000) {
                        fprintf(stderr,
                                "thue bench: random play keeps getting stuck before "
                                "length %d (k=%d %s); try a larger k\n",
                                n, k, thue_variant_name(v));
                        failed = 1;
                        break;
                    }
                    w[0] = 0;
                    lens[g] = 1;
                }
            }
            if (failed)
                break;
        }
        if (failed)
            break;
        /* Engine: whole maps, cycling over the words, until the budget is spent. */
        long reps = 0;
        double t0 = now_ns(), t1 = t0;
        do {
            for (int g = 0; g < nwords; g++) {
                uint64_t *out = maps + (size_t)g * (size_t)(nmax + 2);
                thue_legal_map(scan, words + (size_t)g * (size_t)(nmax + 1), n, k, v, out);
                sink ^= out[reps % (n + 1)];
            }
            reps += nwords;
            t1 = now_ns();
        } while (t1 - t0 < engine_budget);
        r->engine_ns = (t1 - t0) / (double)reps;
        fprintf(stderr, "n=%d: engine %.0f ns per map (%ld maps); baseline...\n", n, r->engine_ns,
                reps);

        /* Baseline: a random order of all (word, position, symbol) checks, taken until
         * the budget is spent (or all of them with --full-baseline). */
        long total = (long)nwords * (n + 1) * k;
        r->total_checks = total;
        long *order = malloc((size_t)total * sizeof *order);
        if (order == NULL) {
            fprintf(stderr, "thue bench: out of memory\n");
            failed = 1;
            break;
        }
        for (long x = 0; x < total; x++)
            order[x] = x;
        double spent = 0, spent_sq = 0, last_report = now_ns();
        long done = 0;
        for (; done < total; done++) {
            long pick = done + (long)(rng_next(&rng) % (uint64_t)(total - done));
            long x = order[pick];
            order[pick] = order[done];
            order[done] = x;
            int g = (int)(x / ((long)(n + 1) * k));
            int i = (int)(x / k % (n + 1)), c = (int)(x % k);
            const uint8_t *w = words + (size_t)g * (size_t)(nmax + 1);
            double a = now_ns();
            int bad = baseline_insert_creates(&bb, w, n, v, i, c);
            double b = now_ns();
            spent += b - a;
            spent_sq += (b - a) * (b - a);
            uint64_t m = maps[(size_t)g * (size_t)(nmax + 2) + (size_t)i];
            if (bad == (int)((m >> c) & 1)) {
                fprintf(stderr,
                        "thue bench: baseline and engine disagree at n=%d game %d "
                        "position %d symbol %d\n",
                        n, g, i, c);
                failed = 1;
                break;
            }
            if (!full && spent >= base_budget)
                break;
            if (b - last_report > 5e9) {
                fprintf(stderr, "n=%d: baseline %ld of %ld checks...\n", n, done + 1, total);
                last_report = b;
            }
        }
        free(order);
        if (failed)
            break;
        if (done < total)
            done++; /* the check that used up the budget was timed too */
        r->baseline_checks = done;
        double mean = spent / (double)done;
        double var =
            done > 1 ? (spent_sq / (double)done - mean * mean) * (double)done / (double)(done - 1)
                     : 0;
        /* Sampling without replacement: the finite population correction makes the
         * error 0 when every check was timed. */
        double fpc = total > 1 ? (double)(total - done) / (double)(total - 1) : 0;
        r->baseline_rse = mean > 0 && var > 0 ? sqrt(var / (double)done * fpc) / mean : 0;
        r->baseline_ns = mean * (double)(n + 1) * (double)k;
        fprintf(stderr, "n=%d: baseline %.0f ns per map (%ld of %ld checks timed, +-%.1f%%)\n", n,
                r->baseline_ns, done, total, 100 * r->baseline_rse);
    }
    if (!failed) {
        if (json) {
            fputs("{\"rows\":[", stdout);
            for (int si = 0; si < nsizes; si++) {
                row *r = &rows[si];
                printf(
                    "%s{\"n\":%d,\"engine_ns\":%.1f,\"baseline_ns\":%.1f,\"ratio\":%.1f,"
                    "\"baseline_checks\":%ld,\"baseline_total_checks\":%ld,\"baseline_rse\":%.4f,"
                    "\"words\":%d}",
                    si ? "," : "", r->n, r->engine_ns, r->baseline_ns,
                    r->baseline_ns / r->engine_ns, r->baseline_checks, r->total_checks,
                    r->baseline_rse, nwords);
            }
            printf("],\"k\":%d,\"variant\":\"%s\",\"seed\":%llu}\n", k, thue_variant_name(v),
                   (unsigned long long)seed);
        } else {
            printf("legal-move map, k=%d, %s, %d words per size reached by random play "
                   "(seed %llu)\n",
                   k, thue_variant_name(v), nwords, (unsigned long long)seed);
            printf("%6s %14s %16s %10s %20s %9s\n", "n", "engine ns/map", "baseline ns/map",
                   "ratio", "baseline checks", "+-");
            for (int si = 0; si < nsizes; si++) {
                row *r = &rows[si];
                printf("%6d %14.0f %16.0f %10.0f %9ld of %-8ld %8.1f%%\n", r->n, r->engine_ns,
                       r->baseline_ns, r->baseline_ns / r->engine_ns, r->baseline_checks,
                       r->total_checks, 100 * r->baseline_rse);
            }
            if (!full)
                printf("(baseline: a uniform random sample of its checks, timed and scaled to "
                       "whole maps;\n +- is the sample's relative standard error; "
                       "--full-baseline times them all)\n");
        }
    }
    if (sink == 42)
        fputc('\0', stderr); /* keeps the timed maps from being optimised away */
    baseline_free(&bb);
    free(rows);
    free(maps);
    free(safe);
    free(lens);
    free(words);
    thue_scan_free(scan);
    return failed ? 1 : 0;
}
