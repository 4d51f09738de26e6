/*
 * puzzle.c: the puzzle finder and generator (puzzle.h). A position is solved once, then
 * every legal move's child is solved and its value read for the mover (dots and boxes
 * may give the mover the next move too, so a child's value is negated only when its
 * mover is the other player; a child that is over is scored from its result). The
 * position is a puzzle when it is won and exactly one child keeps the win; any unknown
 * value, or a move list the game may have cut (THUE_GAME_CUT_LISTS), rules it out.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "search/gbot.h"
#include "search/puzzle.h"

/* Not a value: -1, 0 and 1 are, and THUE_ENOMEM (-2) is an error. */
#define UNKNOWN 2

/* The value of st for player `who`: -1/0/1, UNKNOWN, or THUE_ENOMEM. When
 * best is not NULL and st is not over, *best gets the perfect bot's move. */
static int value_for(const thue_gamedef *g, const thue_gopt *opt, const void *st, int who,
                     const thue_bot_limits *lim, thue_gmove *best)
{
    thue_gresult r;
    g->result(opt, st, &r);
    if (r.over)
        return r.winner < 0 ? 0 : r.winner == who ? 1 : -1;
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    spec.legal_if_undecided = 0;
    thue_gbot_result res;
    int err = thue_gbot_choose(g, opt, st, &spec, 0, lim, &res);
    if (err == THUE_ENOMEM)
        return THUE_ENOMEM;
    if (err != 0 || !res.exact || res.value < -1 || res.value > 1)
        return UNKNOWN;
    if (best != NULL)
        *best = res.move;
    return g->to_move(opt, st) == who ? res.value : -res.value;
}

/* Plies of the perfect line from st to the end of the game, at most
 * THUE_PUZZLE_LINE_MAX (also where a value is unknown: the line stops there). */
static int perfect_line(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                        const thue_bot_limits *lim, unsigned char *work)
{
    size_t size = g->state_size(opt);
    memcpy(work, st, size);
    int plies = 0;
    for (; plies < THUE_PUZZLE_LINE_MAX; plies++) {
        int mover = g->to_move(opt, work);
        if (mover < 0)
            break;
        thue_gmove m;
        int v = value_for(g, opt, work, mover, lim, &m);
        thue_gerr e;
        if (v == UNKNOWN || v == THUE_ENOMEM || g->apply(opt, work, mover, &m, &e) != 0)
            break;
    }
    return plies;
}

static int difficulty(int moves, int line)
{
    return 1 + (moves >= 6) + (moves >= 15) + (line >= 6) + (line >= 12);
}

int thue_puzzle_check(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                      const thue_bot_limits *lim, thue_puzzle *out)
{
    if (g == NULL || opt == NULL || st == NULL || out == NULL || strcmp(g->name, "thue") == 0 ||
        !thue_gbot_has_perfect(g))
        return THUE_EINVAL;
    memset(out, 0, sizeof *out);
    thue_bot_limits own;
    if (lim != NULL)
        own = *lim;
    else
        memset(&own, 0, sizeof own);
    if (own.node_budget == 0)
        own.node_budget = THUE_PUZZLE_NODES_DEFAULT;

    int mover = g->to_move(opt, st);
    if (mover < 0)
        return 0;
    int max = g->max_moves(opt);
    size_t size = g->state_size(opt);
    thue_gmove *list = malloc((size_t)(max > 0 ? max : 1) * sizeof *list);
    unsigned char *child = malloc(size ? size : 1);
    if (list == NULL || child == NULL) {
        free(list);
        free(child);
        return THUE_ENOMEM;
    }
    int ret = 0;
    int n = g->legal_moves(opt, st, list);
    if (n < 2 || ((g->flags & THUE_GAME_CUT_LISTS) && n >= max))
        goto done;
    /* The position first: most positions are not won, and one solve says so. */
    int v = value_for(g, opt, st, mover, &own, NULL);
    if (v == THUE_ENOMEM) {
        ret = v;
        goto done;
    }
    if (v != 1)
        goto done;
    int winners = 0, sol = -1;
    for (int i = 0; i < n && winners < 2; i++) {
        memcpy(child, st, size);
        thue_gerr e;
        if (g->apply(opt, child, mover, &list[i], &e) != 0)
            goto done; /* a listed move the rules refuse: not ours to judge */
        int cv = value_for(g, opt, child, mover, &own, NULL);
        if (cv == THUE_ENOMEM) {
            ret = cv;
            goto done;
        }
        if (cv == UNKNOWN)
            goto done;
        if (cv == 1) {
            winners++;
            sol = i;
        }
    }
    if (winners != 1)
        goto done;
    out->solution = list[sol];
    out->mover = mover;
    out->moves = n;
    out->value = 1;
    out->line = perfect_line(g, opt, st, &own, child);
    out->difficulty = difficulty(n, out->line);
    ret = 1;
done:
    free(list);
    free(child);
    return ret;
}

void thue_puzzle_item_free(thue_puzzle_item *it)
{
    if (it == NULL)
        return;
    free(it->options);
    free(it->position);
    free(it->solution);
    memset(it, 0, sizeof *it);
}

/* ---- the generator --------------------------------------------------------------------- */

/* Small enough that every position's children are solved in well under a second. */
static const char *const nim_sets[] = {
    "{\"heaps\":[3,4,5]}", "{\"heaps\":[2,5,7]}",   "{\"heaps\":[1,3,5,7]}",
    "{\"heaps\":[4,6,9]}", "{\"heaps\":[2,3,6,7]}", "{\"heaps\":[3,5,6],\"misere\":true}",
};
static const char *const northcott_sets[] = {
    "{\"rows\":3,\"cols\":6}",
    "{\"rows\":4,\"cols\":8}",
    "{\"rows\":2,\"cols\":7}",
};
static const char *const rims_sets[] = {
    "{\"heaps\":[4,3,2]}",
    "{\"heaps\":[5,3,1]}",
    "{\"heaps\":[6,4]}",
};
static const char *const circle_sets[] = {
    "{\"fields\":8}",
    "{\"fields\":10}",
    "{\"fields\":12}",
};
static const char *const wythoff_sets[] = {
    "{}",
    "{\"a\":2}",
    "{\"heaps\":[9,14]}",
};
/* Thue: with best play from [0] square k = 3 and 4 end within 3 and 5 points, overlap
 * k = 3 within 10. Random rounds give the builder's places away, and the painter may then
 * go on long: the limits keep every round (and a brute force over its words, as the
 * tests' is) short. Overlap k = 4 is left out: there the painter reaches any limit small
 * enough to search from the positions random rounds meet, whatever the builder does, so
 * every move keeps the same points and none is a puzzle. */
static const char *const thue_sets[] = {
    "{\"variant\":\"square\",\"k\":3,\"limit\":10}",
    "{\"variant\":\"square\",\"k\":4,\"limit\":10}",
    "{\"variant\":\"overlap\",\"k\":3,\"limit\":12}",
};
static const char *const dots_sets[] = {
    "{\"rows\":2,\"cols\":2}",
    "{\"rows\":1,\"cols\":4}",
    "{\"rows\":2,\"cols\":3}",
};

const char *const *thue_puzzle_option_sets(const thue_gamedef *g, int *n)
{
    static const struct {
        const char *game;
        const char *const *sets;
        int n;
    } table[] = {
#define SETS(name, arr) {name, arr, (int)(sizeof arr / sizeof arr[0])}
        SETS("nim", nim_sets),       SETS("northcott", northcott_sets), SETS("rims", rims_sets),
        SETS("circle", circle_sets), SETS("wythoff", wythoff_sets),     SETS("dots", dots_sets),
        SETS("thue", thue_sets),
#undef SETS
    };
    *n = 0;
    if (g == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].game, g->name) == 0) {
            *n = table[i].n;
            return table[i].sets;
        }
    return NULL;
}

#define GAME_PLIES_MAX 300

int thue__puzzle_must_stop(const thue_bot_limits *lim)
{
    if (lim == NULL)
        return 0;
    if (lim->stop != NULL && atomic_load(lim->stop))
        return 1;
    return lim->deadline_ns > 0 && thue_now_ns() >= lim->deadline_ns;
}

static int seen(const thue_puzzle_item *out, int n, const char *options, const char *position)
{
    for (int i = 0; i < n; i++)
        if (strcmp(out[i].options, options) == 0 && strcmp(out[i].position, position) == 0)
            return 1;
    return 0;
}

int thue__puzzle_keep(thue_puzzle_item *out, int *found, char *options, char *position,
                      char *solution, const thue_puzzle *p, uint64_t seed)
{
    if (position == NULL || solution == NULL || options == NULL ||
        seen(out, *found, options, position)) {
        int oom = position == NULL || solution == NULL || options == NULL;
        free(position);
        free(solution);
        free(options);
        return oom ? THUE_ENOMEM : 0;
    }
    thue_puzzle_item *it = &out[(*found)++];
    it->options = options;
    it->position = position;
    it->solution = solution;
    it->p = *p;
    it->seed = seed;
    return 1;
}

/* Checks positions[from..to-1] (states of `size` bytes) from a random one on, in turn,
 * and adds the first puzzle not yet in out. 1 added, 0 none, or a negative code. */
static int take_one(const thue_gamedef *g, const thue_gopt *opt, const char *options,
                    const unsigned char *states, size_t size, int from, int to, uint64_t *rng,
                    uint64_t seed, const thue_bot_limits *lim, thue_puzzle_item *out, int *found)
{
    if (to <= from)
        return 0;
    int start = from + thue__rand_below(rng, to - from);
    for (int k = 0; k < to - from; k++) {
        if (thue__puzzle_must_stop(lim))
            return 0;
        const unsigned char *st = states + (size_t)(from + (start - from + k) % (to - from)) * size;
        thue_puzzle p;
        int r = thue_puzzle_check(g, opt, st, lim, &p);
        if (r < 0)
            return r;
        if (r == 0)
            continue;
        r = thue__puzzle_keep(out, found, strdup(options), thue_game_dump(g->state_json(opt, st)),
                              thue_game_dump(g->move_json(opt, &p.solution)), &p, seed);
        if (r != 0)
            return r;
    }
    return 0;
}

int thue_puzzle_generate(const thue_gamedef *g, uint64_t seed, int games,
                         const thue_bot_limits *lim, thue_puzzle_item *out, int want, int *found)
{
    *found = 0;
    int nsets;
    const char *const *sets = thue_puzzle_option_sets(g, &nsets);
    if (sets != NULL && strcmp(g->name, "thue") == 0 && want >= 0 && (want == 0 || out != NULL))
        return thue__puzzle_generate_thue(g, sets, nsets, seed, games, lim, out, want, found);
    if (sets == NULL || !thue_gbot_has_perfect(g) || want < 0 || (want > 0 && out == NULL))
        return THUE_EINVAL;
    int err = 0;
    for (int i = 0; i < games && *found < want && err == 0 && !thue__puzzle_must_stop(lim); i++) {
        uint64_t gseed = seed + (uint64_t)i;
        thue_gopt opt;
        thue_gerr e;
        if (thue_game_options_text(g, sets[gseed % (uint64_t)nsets], &opt, &e) != 0)
            return THUE_EINVAL; /* a set of ours the game refuses: a bug, said plainly */
        char *options = thue_game_dump(g->options_json(&opt));
        size_t size = g->state_size(&opt);
        int max = g->max_moves(&opt);
        unsigned char *states = malloc((GAME_PLIES_MAX + 1) * (size ? size : 1));
        thue_gmove *list = malloc((size_t)(max > 0 ? max : 1) * sizeof *list);
        if (options == NULL || states == NULL || list == NULL) {
            free(options);
            free(states);
            free(list);
            return THUE_ENOMEM;
        }
        /* A random game: its positions before each move, the start's included. */
        uint64_t rng = gseed;
        g->start(&opt, thue_splitmix64(&rng), states);
        int n = 0;
        while (n < GAME_PLIES_MAX) {
            unsigned char *st = states + (size_t)n * size;
            int mover = g->to_move(&opt, st);
            int k = mover < 0 ? 0 : g->legal_moves(&opt, st, list);
            if (k <= 0)
                break;
            unsigned char *next = st + size;
            memcpy(next, st, size);
            if (g->apply(&opt, next, mover, &list[thue__rand_below(&rng, k)], &e) != 0)
                break;
            n++;
        }
        /* positions 0..n-1 are not over (n itself may be); one from each half. */
        int half = n / 2;
        err = take_one(g, &opt, options, states, size, 0, half, &rng, gseed, lim, out, found);
        if (err >= 0 && *found < want)
            err = take_one(g, &opt, options, states, size, half, n, &rng, gseed, lim, out, found);
        if (err > 0)
            err = 0;
        free(options);
        free(states);
        free(list);
    }
    return err;
}
