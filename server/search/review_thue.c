/*
 * review_thue.c: the exact review of a Thue match (review.h, "Thue"). Each round is
 * replayed from its first word, [0] (RULES.md, "A round"); a word of n symbols holds
 * n - 1 points. At the builder's turn the solver gives the round's
 * remaining points with best play, capped by the limit (and the position of its principal
 * variation as the best place); at the painter's turn each safe symbol is valued as 1 +
 * the capped value of the word it makes, and the best of them is the position's value
 * (0 when none is safe). The values chain: a builder's move's after is the painter's
 * before, and a painter's move's after is the next builder's before (or, once the round
 * is over, its points).
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/thue/bots/solve.h"
#include "games/thue/engine/match.h"
#include "games/thue/engine/word.h"
#include "search/review.h"

/* review.h's thue_review_tpos: one solver and its limits, over a review or a puzzle's
 * positions. */
struct thue_review_tpos {
    thue_solver *s;
    thue_solve_limits sl;
    int k, limit;
    thue_variant v;
    uint8_t *buf; /* a word with one more symbol */
    uint64_t position_nodes; /* each solve's budget (0: none) */
    int has_total;           /* a budget for the whole review: */
    uint64_t total_left;     /* the nodes it has left */
};
typedef struct thue_review_tpos tctx;

/* The limits of the next solve: the position's budget, within what the review has left;
 * 0 when nothing is left (the position is then unknown without a search). */
static int next_limits(tctx *c)
{
    uint64_t b = c->position_nodes;
    if (c->has_total) {
        if (c->total_left == 0)
            return 0;
        if (b == 0 || c->total_left < b)
            b = c->total_left;
    }
    c->sl.node_budget = b;
    return 1;
}

static void spent(tctx *c, uint64_t nodes)
{
    if (c->has_total)
        c->total_left = nodes >= c->total_left ? 0 : c->total_left - nodes;
}

/* The painter's further points with the builder's place i chosen in the clean word
 * w[0..n): 0 with *val (and *best, -1 when no symbol is safe), 1 when a limit left it
 * undecided, or a negative error. */
static int painter_value(tctx *c, const uint8_t *w, int n, int i, int *val, int *best)
{
    int cap = c->limit - (n - 1), bestv = -1, bestc = -1, unknown = 0;
    for (int s = 0; s < c->k && bestv < cap; s++) {
        int rep = thue_check_insert(w, n, c->v, i, s, NULL);
        if (rep < 0)
            return rep;
        if (rep)
            continue;
        memcpy(c->buf, w, (size_t)i);
        c->buf[i] = (uint8_t)s;
        memcpy(c->buf + i + 1, w + i, (size_t)(n - i));
        int x = 0;
        if (cap - 1 > 0) {
            if (!next_limits(c)) {
                unknown = 1;
                continue;
            }
            uint64_t nodes = 0;
            int r = thue_solver_value(c->s, c->buf, n + 1, cap - 1, &c->sl, &x, &nodes);
            spent(c, nodes);
            if (r < 0)
                return r;
            if (r) {
                unknown = 1;
                continue;
            }
        }
        if (1 + x > bestv) {
            bestv = 1 + x;
            bestc = s;
        }
    }
    if (unknown && bestv < cap)
        return 1; /* an undecided symbol might do better */
    *val = bestv < 0 ? 0 : bestv;
    *best = bestc;
    return 0;
}

/* The painter's further points with the builder to move in the clean word w[0..n):
 * 0 with *val and *best (a place of best play, -1 when unknown), 1 undecided, or < 0. */
static int builder_value(tctx *c, const uint8_t *w, int n, int *val, int *best)
{
    int cap = c->limit - (n - 1);
    if (cap <= 0) {
        *val = 0;
        *best = -1;
        return 0;
    }
    if (!next_limits(c))
        return 1;
    thue_solve_limits sl = c->sl;
    sl.max_depth = cap;
    thue_solve_result r;
    int err = thue_solve(c->s, w, n, &sl, &r);
    if (err < 0)
        return err;
    spent(c, r.nodes);
    if (!r.exact && r.depth < cap)
        return 1;
    *val = r.value < cap ? r.value : cap;
    *best = r.pv_len > 0 ? r.pv[0][0] : -1;
    return 0;
}

/* c's members from the arguments (no solver or buffer yet). */
static void init_ctx(tctx *c, int k, thue_variant v, int limit, const thue_bot_limits *lim)
{
    memset(c, 0, sizeof *c);
    c->k = k, c->v = v, c->limit = limit;
    if (lim != NULL) {
        c->position_nodes = lim->node_budget;
        c->sl.deadline_ns = lim->deadline_ns;
        c->sl.stop = lim->stop;
        c->sl.yield = lim->yield;
        c->sl.yield_arg = lim->yield_arg;
    }
}

thue_review_tpos *thue_review_tpos_new(int k, thue_variant v, int limit,
                                       const thue_bot_limits *lim)
{
    if (k < 2 || k > THUE_K_MAX || limit < 1 || limit > THUE_LIMIT_MAX ||
        (v != THUE_SQUARE && v != THUE_OVERLAP))
        return NULL;
    tctx *c = malloc(sizeof *c);
    if (c == NULL)
        return NULL;
    init_ctx(c, k, v, limit, lim);
    c->buf = malloc((size_t)limit + 3);
    c->s = thue_solver_new(k, v);
    if (c->buf == NULL || c->s == NULL) {
        thue_review_tpos_free(c);
        return NULL;
    }
    return c;
}

void thue_review_tpos_free(thue_review_tpos *c)
{
    if (c == NULL)
        return;
    thue_solver_free(c->s);
    free(c->buf);
    free(c);
}

int thue_review_tbuilder(thue_review_tpos *c, const uint8_t *w, int n, int *val, int *best)
{
    if (n < 1 || n - 1 > c->limit)
        return THUE_EINVAL;
    return builder_value(c, w, n, val, best);
}

int thue_review_tpainter(thue_review_tpos *c, const uint8_t *w, int n, int i, int *val,
                         int *best)
{
    if (n < 1 || n - 1 >= c->limit || i < 0 || i > n)
        return THUE_EINVAL;
    return painter_value(c, w, n, i, val, best);
}

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

/* The verdict of a move that gives away `lost` points (>= 0); in round 2 also by the
 * match's result for the mover, against p1 (is_painter: the mover paints). */
static thue_verdict verdict_of(int round, int is_painter, int before, int after, int p1)
{
    int lost = is_painter ? before - after : after - before;
    if (lost <= 0)
        return THUE_VERDICT_BEST;
    if (round == 0)
        return lost == 1 ? THUE_VERDICT_MISTAKE : THUE_VERDICT_BLUNDER;
    int rb = sign(before - p1), ra = sign(after - p1);
    int drop = is_painter ? rb - ra : ra - rb;
    return drop <= 0 ? THUE_VERDICT_GOOD : drop == 1 ? THUE_VERDICT_MISTAKE : THUE_VERDICT_BLUNDER;
}

/* The round's painter points with best play, the builder to move in w[0..len): those
 * scored (len - 1) and those still to come, or THUE_REVIEW_UNKNOWN; *best a place of best
 * play (-1: none known). 0, or a negative error. */
static int builder_points(tctx *c, const uint8_t *w, int len, int *points, int *best)
{
    int v = 0, r = 0;
    *best = -1;
    if (len - 1 < c->limit)
        r = builder_value(c, w, len, &v, best);
    if (r < 0)
        return r;
    *points = r ? THUE_REVIEW_UNKNOWN : len - 1 + v;
    return 0;
}

/* The same with the painter to move at place i; *best a symbol. */
static int painter_points(tctx *c, const uint8_t *w, int len, int i, int *points, int *best)
{
    int v = 0, r = painter_value(c, w, len, i, &v, best);
    if (r < 0)
        return r;
    *points = r ? THUE_REVIEW_UNKNOWN : len - 1 + v;
    return 0;
}

int thue_review_thue(int k, thue_variant v, int limit, const thue_review_tmove *moves, int n,
                     const thue_bot_limits *lim, uint64_t total_nodes, thue_review_tout *out,
                     int *solved)
{
    if (solved != NULL)
        *solved = 0;
    if (k < 2 || k > THUE_K_MAX || limit < 1 || limit > THUE_LIMIT_MAX || n < 0 ||
        (n > 0 && (moves == NULL || out == NULL)) || (v != THUE_SQUARE && v != THUE_OVERLAP))
        return THUE_EINVAL;
    tctx c;
    init_ctx(&c, k, v, limit, lim);
    c.has_total = total_nodes > 0;
    c.total_left = total_nodes;
    /* Per move: the word's length when it was played, the place a paint filled, whether
     * it made the repetition; per round: its final word and where its moves begin. */
    int *wlen = malloc((size_t)(n ? n : 1) * sizeof *wlen);
    int *at = malloc((size_t)(n ? n : 1) * sizeof *at);
    unsigned char *rep = malloc((size_t)(n ? n : 1));
    uint8_t *w[2] = {malloc((size_t)limit + 2), malloc((size_t)limit + 2)};
    int len[2] = {1, 1}, first[3] = {0, n, n};
    c.buf = malloc((size_t)limit + 3);
    c.s = thue_solver_new(k, v);
    int err = 0, round = 0, over = 0, place = -1;
    if (wlen == NULL || at == NULL || rep == NULL || w[0] == NULL || w[1] == NULL ||
        c.buf == NULL || c.s == NULL)
        err = THUE_ENOMEM;
    else
        w[0][0] = w[1][0] = 0;

    /* Forward: the record replays under the rules. */
    for (int m = 0; err == 0 && m < n; m++) {
        const thue_review_tmove *mv = &moves[m];
        if (mv->round != round) {
            /* A new round: only the second, after the first. */
            if (mv->round != 1 || round != 0) {
                err = THUE_EINVAL;
                break;
            }
            round = 1, over = 0, place = -1;
            first[1] = m;
        }
        uint8_t *wr = w[round];
        int *lr = &len[round];
        wlen[m] = *lr;
        rep[m] = 0;
        at[m] = mv->is_paint ? place : mv->value;
        if (over || (!mv->is_paint && (place >= 0 || mv->value < 0 || mv->value > *lr)) ||
            (mv->is_paint && (place < 0 || mv->value < 0 || mv->value >= k))) {
            err = THUE_EINVAL;
            break;
        }
        if (!mv->is_paint) {
            place = mv->value;
            continue;
        }
        int r = thue_check_insert(wr, *lr, v, place, mv->value, NULL);
        if (r < 0) {
            err = r;
            break;
        }
        if (r) {
            rep[m] = 1;
            over = 1;
        } else {
            memmove(wr + place + 1, wr + place, (size_t)(*lr - place));
            wr[place] = (uint8_t)mv->value;
            over = ++*lr - 1 >= limit;
        }
        place = -1;
    }
    int p1 = len[0] - 1; /* round 1's painter points */

    /* Backward, round by round from its end: the last positions are the cheapest to
     * solve (few points left to the limit), so a budget that runs out leaves the
     * earliest unknown rather than the ones a search decides at once. */
    int exact = 0;
    for (int r = 0; err == 0 && r < 2; r++) {
        int lo = first[r], hi = r == 0 ? first[1] : n;
        uint8_t *wr = w[r];
        int lr = len[r];
        /* The builder's value of the word wr as it is now, once computed. */
        int bval = THUE_REVIEW_UNKNOWN, bbest = -1, bknown = 0;
        /* The painter's value at the place of the paint just reviewed (for its place). */
        int pval = THUE_REVIEW_UNKNOWN, pbest = -1, pknown = 0;
        for (int m = hi - 1; err == 0 && m >= lo; m--) {
            thue_review_tout *o = &out[m];
            memset(o, 0, sizeof *o);
            if (moves[m].is_paint) {
                if (rep[m]) {
                    o->after = wlen[m] - 1;
                } else {
                    if (!bknown && (err = builder_points(&c, wr, lr, &bval, &bbest)) < 0)
                        break;
                    o->after = bval;
                    /* The word before this paint: its symbol taken out again. */
                    memmove(wr + at[m], wr + at[m] + 1, (size_t)(lr - at[m] - 1));
                    lr--;
                }
                if ((err = painter_points(&c, wr, lr, at[m], &pval, &pbest)) < 0)
                    break;
                pknown = 1;
                bknown = 0; /* wr changed */
                o->before = pval;
                o->has_best = pval != THUE_REVIEW_UNKNOWN && pbest >= 0;
                o->best = pbest;
            } else {
                /* A place no paint followed (the match ended there) has its own value. */
                if (!pknown && (err = painter_points(&c, wr, lr, at[m], &pval, &pbest)) < 0)
                    break;
                o->after = pval;
                pknown = 0;
                if (!bknown && (err = builder_points(&c, wr, lr, &bval, &bbest)) < 0)
                    break;
                bknown = 1;
                o->before = bval;
                o->has_best = bval != THUE_REVIEW_UNKNOWN && bbest >= 0;
                o->best = bbest;
            }
            if (o->before == THUE_REVIEW_UNKNOWN || o->after == THUE_REVIEW_UNKNOWN) {
                o->verdict = THUE_VERDICT_UNKNOWN;
            } else {
                o->verdict = verdict_of(r, moves[m].is_paint, o->before, o->after, p1);
                exact++;
            }
        }
    }
    thue_solver_free(c.s);
    free(c.buf);
    free(w[0]);
    free(w[1]);
    free(wlen);
    free(at);
    free(rep);
    if (solved != NULL)
        *solved = exact;
    return err;
}
