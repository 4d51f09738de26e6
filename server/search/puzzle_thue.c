/*
 * puzzle_thue.c: Thue's point-saving puzzles (puzzle.h, "Thue"). A position of a round is
 * the clean word and whose step it is: the builder to place, or the painter with the
 * builder's place chosen. Every move's value is review.h's (thue_review_tbuilder and
 * _tpainter: the exact solver, capped by the round's limit): a place is worth the
 * painter's best from it, a safe symbol 1 + the builder's value of the word it makes, an
 * unsafe one 0 (the round ends). The position is a puzzle when exactly one move keeps the
 * mover's value (the builder's one smallest place, the painter's one largest symbol), so
 * every other gives at least a point away; any undecided value rules it out.
 *
 * The generator plays random rounds (a uniform place, a uniform safe symbol) and checks
 * one position from each half of every round, sharing one solver (and its table) over a
 * call's rounds of the same option set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/rng.h"
#include "games/thue/engine/match.h"
#include "games/thue/engine/word.h"
#include "games/thue/thue.h"
#include "search/puzzle.h"
#include "search/review.h"

/* Each move's value (further painter points) into vals[]: the places 0..n (placed < 0),
 * or the symbols 0..k-1 (an unsafe one 0), with *safe the safe symbols' count. 0, 1 when
 * a value is undecided, or a negative code. */
static int move_values(thue_review_tpos *c, int k, thue_variant v, const uint8_t *w, int n,
                       int placed, uint8_t *buf, int *vals, int *safe)
{
    *safe = 0;
    if (placed < 0) {
        for (int i = 0; i <= n; i++) {
            int best, r = thue_review_tpainter(c, w, n, i, &vals[i], &best);
            if (r != 0)
                return r;
        }
        return 0;
    }
    for (int s = 0; s < k; s++) {
        int rep = thue_check_insert(w, n, v, placed, s, NULL);
        if (rep < 0)
            return rep;
        vals[s] = 0;
        if (rep)
            continue;
        (*safe)++;
        memcpy(buf, w, (size_t)placed);
        buf[placed] = (uint8_t)s;
        memcpy(buf + placed + 1, w + placed, (size_t)(n - placed));
        int x, best, r = thue_review_tbuilder(c, buf, n + 1, &x, &best);
        if (r != 0)
            return r;
        vals[s] = 1 + x;
    }
    return 0;
}

static int difficulty(int is_paint, int options, int kept, int runner_up_gap)
{
    return 1 + (is_paint ? options >= 3 : options >= 7) + (kept >= 3) + (kept >= 6) +
           (runner_up_gap == 1);
}

static int check_ctx(thue_review_tpos *c, int k, thue_variant v, int limit, const uint8_t *w, int n,
                     int placed, thue_puzzle *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || n - 1 >= limit || placed > n)
        return 0; /* the round is over at its limit */
    int count = placed < 0 ? n + 1 : k;
    int *vals = malloc((size_t)count * sizeof *vals);
    uint8_t *buf = malloc((size_t)n + 2);
    if (vals == NULL || buf == NULL) {
        free(vals);
        free(buf);
        return THUE_ENOMEM;
    }
    int safe, ret = move_values(c, k, v, w, n, placed, buf, vals, &safe);
    if (ret != 0 || (placed >= 0 && safe < 2)) {
        ret = ret < 0 ? ret : 0;
        goto done;
    }
    /* The mover's best (the builder's least, the painter's most), read as a gain x =
     * sign * value; how many moves reach it, and the best x of the others. */
    int sign = placed < 0 ? -1 : 1, best = 0, ties = 0, second = 0, has_second = 0;
    for (int m = 1; m < count; m++)
        if (sign * vals[m] > sign * vals[best])
            best = m;
    for (int m = 0; m < count; m++) {
        int x = sign * vals[m];
        if (x == sign * vals[best])
            ties++;
        else if (!has_second || x > second)
            second = x, has_second = 1;
    }
    if (ties != 1)
        goto done;
    int kept = vals[best];
    out->solution.v[0] = placed < 0 ? 0 : 1;
    out->solution.v[1] = best;
    out->mover = placed < 0 ? 0 : 1;
    out->moves = count;
    out->value = n - 1 + kept;
    /* Plies to the round's end with best play: two a point (a place and a paint), less
     * the place already made for the painter, and the last place and paint when the round
     * ends with a repetition rather than at the limit. */
    out->line = 2 * kept - (placed >= 0) + (out->value < limit ? 2 : 0);
    out->difficulty =
        difficulty(placed >= 0, placed < 0 ? count : safe, kept, sign * kept - second);
    ret = 1;
done:
    free(vals);
    free(buf);
    return ret;
}

/* The limits of one puzzle's solves: the caller's, with the default node budget. */
static thue_bot_limits own_limits(const thue_bot_limits *lim)
{
    thue_bot_limits own;
    if (lim != NULL)
        own = *lim;
    else
        memset(&own, 0, sizeof own);
    if (own.node_budget == 0)
        own.node_budget = THUE_PUZZLE_NODES_DEFAULT;
    return own;
}

int thue_puzzle_check_thue(int k, thue_variant v, int limit, const uint8_t *word, int n, int placed,
                           const thue_bot_limits *lim, thue_puzzle *out)
{
    if (word == NULL || out == NULL || n < 1 || n > limit + 1 || placed < -1 || placed > n)
        return THUE_EINVAL;
    for (int i = 0; i < n; i++)
        if (word[i] >= k)
            return THUE_EINVAL;
    thue_bot_limits own = own_limits(lim);
    thue_review_tpos *c = thue_review_tpos_new(k, v, limit, &own);
    if (c == NULL)
        return k < 2 || k > THUE_K_MAX || limit < 1 || limit > THUE_LIMIT_MAX ? THUE_EINVAL
                                                                              : THUE_ENOMEM;
    int r = thue_check_word(NULL, word, n, v, NULL);
    if (r == 0)
        r = check_ctx(c, k, v, limit, word, n, placed, out);
    else if (r > 0)
        r = THUE_EINVAL; /* a word with a repetition is no round's position */
    thue_review_tpos_free(c);
    return r;
}

char *thue_puzzle_thue_position(const uint8_t *word, int n, int placed)
{
    size_t size = 96 + (size_t)n * 4;
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    size_t at = (size_t)snprintf(out, size, "{\"word\":[");
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf(out + at, size - at, "%s%d", i ? "," : "", word[i]);
    if (placed < 0)
        snprintf(out + at, size - at, "],\"step\":\"place\",\"to_move_role\":\"builder\"}");
    else
        snprintf(out + at, size - at,
                 "],\"step\":\"paint\",\"placed\":%d,\"to_move_role\":\"painter\"}", placed);
    return out;
}

/* ---- the generator --------------------------------------------------------------------- */

/* A random round's positions: pos[j] the word's length and the place chosen (-1 for the
 * builder's turn), words[j] its word (limit + 2 bytes each). */
typedef struct tposition {
    int n, placed;
} tposition;

/* Plays a random round from rng; its positions into pos/words (at most 2 * (limit + 1)).
 * The count, or a negative code. */
static int random_round(int k, thue_variant v, int limit, uint64_t *rng, tposition *pos,
                        uint8_t *words)
{
    size_t stride = (size_t)limit + 2;
    uint8_t w[THUE_LIMIT_MAX + 2];
    int n = 1, count = 0, safe[THUE_K_MAX];
    w[0] = 0;
    while (n - 1 < limit) {
        /* The builder's turn, then the painter's at a random place. */
        int i = thue__rand_below(rng, n + 1);
        for (int b = 0; b < 2; b++) {
            memcpy(words + (size_t)count * stride, w, (size_t)n);
            pos[count].n = n;
            pos[count].placed = b ? i : -1;
            count++;
        }
        int ns = 0;
        for (int s = 0; s < k; s++) {
            int rep = thue_check_insert(w, n, v, i, s, NULL);
            if (rep < 0)
                return rep;
            if (!rep)
                safe[ns++] = s;
        }
        if (ns == 0)
            break;
        memmove(w + i + 1, w + i, (size_t)(n - i));
        w[i] = (uint8_t)safe[thue__rand_below(rng, ns)];
        n++;
    }
    return count;
}

/* Checks pos[from..to) from a random one on, in turn, and adds the first puzzle not yet
 * in out. 1 added, 0 none, or a negative code. */
static int take_one(thue_review_tpos *c, int k, thue_variant v, int limit, const char *options,
                    const tposition *pos, const uint8_t *words, int from, int to, uint64_t *rng,
                    uint64_t seed, const thue_bot_limits *lim, thue_puzzle_item *out, int *found)
{
    if (to <= from)
        return 0;
    size_t stride = (size_t)limit + 2;
    int start = from + thue__rand_below(rng, to - from);
    for (int j = 0; j < to - from; j++) {
        if (thue__puzzle_must_stop(lim))
            return 0;
        int at = from + (start - from + j) % (to - from);
        const uint8_t *w = words + (size_t)at * stride;
        thue_puzzle p;
        int r = check_ctx(c, k, v, limit, w, pos[at].n, pos[at].placed, &p);
        if (r < 0)
            return r;
        if (r == 0)
            continue;
        char *solution = malloc(32);
        if (solution != NULL)
            snprintf(solution, 32, "{\"%s\":%d}", p.solution.v[0] ? "paint" : "place",
                     p.solution.v[1]);
        r = thue__puzzle_keep(out, found, strdup(options),
                              thue_puzzle_thue_position(w, pos[at].n, pos[at].placed), solution, &p,
                              seed);
        if (r != 0)
            return r;
    }
    return 0;
}

int thue__puzzle_generate_thue(const thue_gamedef *g, const char *const *sets, int nsets,
                               uint64_t seed, int games, const thue_bot_limits *lim,
                               thue_puzzle_item *out, int want, int *found)
{
    thue_bot_limits own = own_limits(lim);
    int err = 0;
    for (int i = 0; i < games && *found < want && err == 0 && !thue__puzzle_must_stop(lim); i++) {
        uint64_t gseed = seed + (uint64_t)i;
        thue_gopt opt;
        thue_gerr e;
        if (thue_game_options_text(g, sets[gseed % (uint64_t)nsets], &opt, &e) != 0)
            return THUE_EINVAL;
        thue_thue_view view;
        /* k, the variant and the limit, from the view of a start state. */
        size_t size = g->state_size(&opt);
        unsigned char *st = malloc(size);
        char *options = thue_game_dump(g->options_json(&opt));
        if (st == NULL || options == NULL) {
            free(st);
            free(options);
            return THUE_ENOMEM;
        }
        g->start(&opt, 0, st);
        thue_game_thue_view(&opt, st, &view);
        int k = view.k, limit = view.limit;
        thue_variant v = view.variant;
        free(st);
        int maxpos = 2 * (limit + 1);
        tposition *pos = malloc((size_t)maxpos * sizeof *pos);
        uint8_t *words = malloc((size_t)maxpos * ((size_t)limit + 2));
        thue_review_tpos *c = thue_review_tpos_new(k, v, limit, &own);
        if (pos == NULL || words == NULL || c == NULL) {
            err = THUE_ENOMEM;
        } else {
            uint64_t rng = gseed;
            thue_splitmix64(&rng);
            int n = random_round(k, v, limit, &rng, pos, words);
            if (n < 0) {
                err = n;
            } else {
                int half = n / 2;
                err = take_one(c, k, v, limit, options, pos, words, 0, half, &rng, gseed, lim, out,
                               found);
                if (err >= 0 && *found < want)
                    err = take_one(c, k, v, limit, options, pos, words, half, n, &rng, gseed, lim,
                                   out, found);
                if (err > 0)
                    err = 0;
            }
        }
        thue_review_tpos_free(c);
        free(pos);
        free(words);
        free(options);
    }
    return err;
}
