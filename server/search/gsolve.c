/*
 * gsolve.c: the generic exact solver behind the perfect bot (gbot.h) for acyclic games
 * that have no `perfect` member of their own.
 *
 * Negamax with alpha-beta over values -1/0/1 for the player to move. Turns need not
 * alternate: a child whose mover is the same player keeps the window and the value's
 * sign, any other child is searched for its own mover and negated. A position that is
 * over scores from its result (the parent's mover won, drew or lost).
 *
 * The transposition table is keyed by the game's hash; each entry keeps the whole state
 * (state_size bytes) and a hit is a byte-for-byte equal state, so a hash collision can
 * never give a wrong value. Entries hold a bound (exact, lower, upper), as usual with
 * alpha-beta, and the best move found, which is tried first on the next visit. The table
 * doubles at half load up to THUE_GSOLVE_TABLE_BYTES_MAX; past that it stops storing new
 * positions (the search stays correct, only slower).
 *
 * The search runs on states kept one per ply (ply d's state and move list in buffers
 * allocated the first time the search gets that deep, so they never move). Every position
 * searched counts one node against the budget (lim->node_budget, else
 * THUE_GSOLVE_NODES_DEFAULT) and its moves as work; the stop flag, the yield hook and the
 * deadline are polled through thue__tick and thue__work like every bot's. The plies and
 * the table are taken from the memory account (lim->mem): a ply it refuses is a line too
 * deep to follow (THUE_ETOOBIG), a table it refuses stops growing.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "search/gbot.h"
#include "search/limits.h"

enum { BOUND_EXACT = 1, BOUND_LOWER = 2, BOUND_UPPER = 3 };

typedef struct tt_entry {
    uint64_t hash;
    int8_t bound; /* 0: empty */
    int8_t value;
    thue_gmove best; /* v[0] = INT32_MIN: none */
} tt_entry;

typedef struct gsolver {
    const thue_gamedef *g;
    const thue_gopt *opt;
    size_t sz;
    int maxm;
    thue__ctl ctl;
    int err; /* THUE_ETOOBIG or THUE_ENOMEM once the search must unwind */
    /* Per ply. */
    unsigned char **states;
    thue_gmove **moves;
    int nplies;
    /* The table: cap entries, cap * sz state bytes; used = entries filled. */
    tt_entry *tt;
    unsigned char *tt_states;
    size_t cap, used;
    int full; /* could not grow: store no more */
    size_t taken; /* bytes taken from the memory account (ctl.mem) */
} gsolver;

/* Takes bytes from the search's memory account: 0, or -1 when its budget says no. */
static int take(gsolver *s, size_t bytes)
{
    if (thue__take(&s->ctl, bytes) != 0)
        return -1;
    s->taken += bytes;
    return 0;
}

static void give(gsolver *s, size_t bytes)
{
    thue__give(&s->ctl, bytes);
    s->taken -= bytes;
}

static int ply_ready(gsolver *s, int d)
{
    if (d < s->nplies)
        return 0;
    if (d >= THUE_GSOLVE_DEPTH_MAX)
        return THUE_ETOOBIG;
    /* d == s->nplies: the search goes one ply deeper at a time. A ply past the memory
     * budget is as deep as the search can go. */
    if (take(s, s->sz + (size_t)(s->maxm > 0 ? s->maxm : 1) * sizeof(thue_gmove)) != 0)
        return THUE_ETOOBIG;
    s->states[d] = malloc(s->sz ? s->sz : 1);
    s->moves[d] = malloc((size_t)(s->maxm > 0 ? s->maxm : 1) * sizeof(thue_gmove));
    if (s->states[d] == NULL || s->moves[d] == NULL) {
        free(s->states[d]);
        free(s->moves[d]);
        return THUE_ENOMEM;
    }
    s->nplies = d + 1;
    return 0;
}

/* The entry of st, or NULL. */
static tt_entry *tt_find(gsolver *s, uint64_t h, const void *st)
{
    if (s->cap == 0)
        return NULL;
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        tt_entry *e = &s->tt[i];
        if (e->bound == 0)
            return NULL;
        if (e->hash == h && memcmp(s->tt_states + i * s->sz, st, s->sz) == 0)
            return e;
    }
}

/* A free slot for h in a table that has room (no state compared). */
static size_t tt_slot(const tt_entry *tt, size_t cap, uint64_t h)
{
    size_t mask = cap - 1, i = (size_t)h & mask;
    while (tt[i].bound != 0)
        i = (i + 1) & mask;
    return i;
}

static int tt_grow(gsolver *s)
{
    size_t ncap = s->cap ? s->cap * 2 : 1024;
    size_t bytes = ncap * (sizeof(tt_entry) + s->sz);
    if (bytes / ncap != sizeof(tt_entry) + s->sz || bytes > THUE_GSOLVE_TABLE_BYTES_MAX ||
        take(s, bytes) != 0)
        return -1;
    tt_entry *nt = calloc(ncap, sizeof *nt);
    unsigned char *ns = malloc(ncap * s->sz + 1);
    if (nt == NULL || ns == NULL) {
        free(nt);
        free(ns);
        give(s, bytes);
        return -1;
    }
    for (size_t i = 0; i < s->cap; i++) {
        /* Moving a big table takes a while: polled like the search (a stop leaves the
         * old table, full). */
        if (thue__work(&s->ctl, 1 + (int64_t)(s->sz / 64))) {
            free(nt);
            free(ns);
            give(s, bytes);
            return -1;
        }
        if (s->tt[i].bound == 0)
            continue;
        size_t j = tt_slot(nt, ncap, s->tt[i].hash);
        nt[j] = s->tt[i];
        memcpy(ns + j * s->sz, s->tt_states + i * s->sz, s->sz);
    }
    free(s->tt);
    free(s->tt_states);
    give(s, s->cap * (sizeof(tt_entry) + s->sz));
    s->tt = nt;
    s->tt_states = ns;
    s->cap = ncap;
    return 0;
}

static void tt_store(gsolver *s, uint64_t h, const void *st, tt_entry *have, int bound, int value,
                     const thue_gmove *best)
{
    if (have == NULL) {
        if (s->full)
            return;
        if ((s->used + 1) * 2 > s->cap && tt_grow(s) != 0) {
            s->full = 1;
            if (s->cap == 0 || (s->used + 1) * 4 > s->cap * 3)
                return; /* keep some free slots so that probes end */
        }
        size_t i = tt_slot(s->tt, s->cap, h);
        have = &s->tt[i];
        memcpy(s->tt_states + i * s->sz, st, s->sz);
        have->hash = h;
        s->used++;
    }
    have->bound = (int8_t)bound;
    have->value = (int8_t)value;
    have->best = *best;
}

/* The value of an over position for player `me`. */
static int over_value(const thue_gresult *r, int me)
{
    return r->winner < 0 ? 0 : r->winner == me ? 1 : -1;
}

/*
 * The value of the state at ply d (not over) for its mover, fail-soft in (alpha, beta).
 * On error s->err is set and the return value is meaningless.
 */
static int search(gsolver *s, int d, int alpha, int beta, thue_gmove *best_out)
{
    if (thue__tick(&s->ctl)) {
        s->err = THUE_ETOOBIG;
        return 0;
    }
    const thue_gamedef *g = s->g;
    const unsigned char *st = s->states[d];
    int me = g->to_move(s->opt, st);
    uint64_t h = g->hash(s->opt, st);
    tt_entry *e = tt_find(s, h, st);
    thue_gmove hint = {{INT32_MIN, 0, 0, 0}};
    int alpha0 = alpha;
    if (e != NULL) {
        hint = e->best;
        if (e->bound == BOUND_EXACT || (e->bound == BOUND_LOWER && e->value >= beta) ||
            (e->bound == BOUND_UPPER && e->value <= alpha)) {
            if (best_out != NULL)
                *best_out = e->best;
            return e->value;
        }
        if (e->bound == BOUND_LOWER && e->value > alpha)
            alpha = e->value;
        if (e->bound == BOUND_UPPER && e->value < beta)
            beta = e->value;
    }
    int err = ply_ready(s, d + 1);
    if (err != 0) {
        s->err = err;
        return 0;
    }
    thue_gmove *moves = s->moves[d];
    int n = g->legal_moves(s->opt, st, moves);
    /* Making and trying the moves is work beyond the node's tick. */
    if (thue__work(&s->ctl, n)) {
        s->err = THUE_ETOOBIG;
        return 0;
    }
    /* The table's best move first. */
    for (int i = 1; i < n && hint.v[0] != INT32_MIN; i++)
        if (memcmp(&moves[i], &hint, sizeof hint) == 0) {
            thue_gmove t = moves[0];
            moves[0] = moves[i];
            moves[i] = t;
            break;
        }
    int best = -2;
    thue_gmove bestm = n > 0 ? moves[0] : hint;
    unsigned char *child = s->states[d + 1];
    for (int i = 0; i < n; i++) {
        memcpy(child, st, s->sz);
        if (g->apply(s->opt, child, me, &moves[i], NULL) != 0)
            continue; /* a game's legal_moves and apply disagree: skip the move */
        int a = alpha > best ? alpha : best, v;
        int cm = g->to_move(s->opt, child);
        if (cm < 0) {
            thue_gresult r;
            g->result(s->opt, child, &r);
            v = over_value(&r, me);
        } else if (cm == me) {
            v = search(s, d + 1, a, beta, NULL);
        } else {
            v = -search(s, d + 1, -beta, -a, NULL);
        }
        if (s->err)
            return 0;
        if (v > best) {
            best = v;
            bestm = moves[i];
        }
        if (best >= beta || best == 1)
            break;
    }
    if (best == -2) {
        /* Not over, yet no move: the game's table is inconsistent; call it a draw. */
        best = 0;
    }
    int bound = best <= alpha0 ? BOUND_UPPER : best >= beta ? BOUND_LOWER : BOUND_EXACT;
    /* 1 is the largest value and -1 the smallest: such a bound is the value itself. */
    if ((best == 1 && bound == BOUND_LOWER) || (best == -1 && bound == BOUND_UPPER))
        bound = BOUND_EXACT;
    /* The children may have grown (moved) the table: look the entry up again. */
    tt_store(s, h, st, e != NULL ? tt_find(s, h, st) : NULL, bound, best, &bestm);
    if (best_out != NULL)
        *best_out = bestm;
    return best;
}

int thue__gsolve(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                 const thue_bot_limits *lim, int64_t deadline_ns, thue_gmove *best, int *value,
                 uint64_t *nodes, int *stopped)
{
    gsolver s;
    memset(&s, 0, sizeof s);
    s.g = g;
    s.opt = opt;
    s.sz = g->state_size(opt);
    s.maxm = g->max_moves(opt);
    thue__ctl_init(&s.ctl, lim, deadline_ns);
    if (s.ctl.budget == 0)
        s.ctl.budget = THUE_GSOLVE_NODES_DEFAULT;
    s.states = calloc(THUE_GSOLVE_DEPTH_MAX, sizeof *s.states);
    s.moves = calloc(THUE_GSOLVE_DEPTH_MAX, sizeof *s.moves);
    int err = s.states && s.moves ? ply_ready(&s, 0) : THUE_ENOMEM;
    if (err == 0) {
        memcpy(s.states[0], st, s.sz);
        /* A window wider than every value: the root's value is exact. */
        int v = search(&s, 0, -2, 2, best);
        err = s.err;
        if (err == 0)
            *value = v;
    }
    *nodes = s.ctl.nodes;
    *stopped = s.ctl.stopped;
    for (int d = 0; d < s.nplies; d++) {
        free(s.states[d]);
        free(s.moves[d]);
    }
    free(s.states);
    free(s.moves);
    free(s.tt);
    free(s.tt_states);
    thue__give(&s.ctl, s.taken);
    return err;
}
