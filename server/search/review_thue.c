/*
 * review_thue.c: the exact review of a Thue match (review.h, "Thue"). Each round is
 * replayed from the empty word. At the builder's turn the solver gives the round's
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

typedef struct tctx {
    thue_solver *s;
    thue_solve_limits sl;
    int k, limit;
    thue_variant v;
    uint8_t *buf; /* a word with one more symbol */
} tctx;

/* The painter's further points with the builder's place i chosen in the clean word
 * w[0..n): 0 with *val (and *best, -1 when no symbol is safe), 1 when a limit left it
 * undecided, or a negative error. */
static int painter_value(tctx *c, const uint8_t *w, int n, int i, int *val, int *best)
{
    int cap = c->limit - n, bestv = -1, bestc = -1, unknown = 0;
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
            int r = thue_solver_value(c->s, c->buf, n + 1, cap - 1, &c->sl, &x, NULL);
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
    int cap = c->limit - n;
    if (cap <= 0) {
        *val = 0;
        *best = -1;
        return 0;
    }
    thue_solve_limits sl = c->sl;
    sl.max_depth = cap;
    thue_solve_result r;
    int err = thue_solve(c->s, w, n, &sl, &r);
    if (err < 0)
        return err;
    if (!r.exact && r.depth < cap)
        return 1;
    *val = r.value < cap ? r.value : cap;
    *best = r.pv_len > 0 ? r.pv[0][0] : -1;
    return 0;
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

int thue_review_thue(int k, thue_variant v, int limit, const thue_review_tmove *moves, int n,
                     const thue_bot_limits *lim, thue_review_tout *out, int *solved)
{
    if (solved != NULL)
        *solved = 0;
    if (k < 2 || k > THUE_K_MAX || limit < 1 || limit > THUE_LIMIT_MAX || n < 0 ||
        (n > 0 && (moves == NULL || out == NULL)) || (v != THUE_SQUARE && v != THUE_OVERLAP))
        return THUE_EINVAL;
    tctx c;
    memset(&c, 0, sizeof c);
    c.k = k, c.v = v, c.limit = limit;
    if (lim != NULL) {
        c.sl.node_budget = lim->node_budget;
        c.sl.deadline_ns = lim->deadline_ns;
        c.sl.stop = lim->stop;
        c.sl.yield = lim->yield;
        c.sl.yield_arg = lim->yield_arg;
    }
    uint8_t *w = malloc((size_t)limit + 1);
    c.buf = malloc((size_t)limit + 2);
    c.s = thue_solver_new(k, v);
    int err = 0, len = 0, round = 0, exact = 0, p1 = -1;
    int bval = THUE_REVIEW_UNKNOWN, bbest = -1; /* the builder's position, once valued */
    int place = -1, pval = THUE_REVIEW_UNKNOWN, pbest = -1;
    int fresh = 1; /* the builder's value not yet computed for this word */
    int over = 0;  /* the round ended (a repetition, or the limit reached) */
    if (w == NULL || c.buf == NULL || c.s == NULL)
        err = THUE_ENOMEM;
    for (int m = 0; err == 0 && m < n; m++) {
        const thue_review_tmove *mv = &moves[m];
        thue_review_tout *o = &out[m];
        memset(o, 0, sizeof *o);
        if (mv->round != round) {
            /* A new round: only the second, after the first. */
            if (mv->round != round + 1 || round == 1) {
                err = THUE_EINVAL;
                break;
            }
            p1 = len; /* every clean insertion scored */
            round = 1, len = 0, fresh = 1, over = 0, place = -1;
        }
        if (over) {
            err = THUE_EINVAL;
            break;
        }
        if (!mv->is_paint) {
            if (place >= 0 || mv->value < 0 || mv->value > len) {
                err = THUE_EINVAL;
                break;
            }
            if (fresh) {
                int r = builder_value(&c, w, len, &bval, &bbest);
                if (r < 0) {
                    err = r;
                    break;
                }
                bval = r ? THUE_REVIEW_UNKNOWN : len + bval;
                fresh = 0;
            }
            place = mv->value;
            int r = painter_value(&c, w, len, place, &pval, &pbest);
            if (r < 0) {
                err = r;
                break;
            }
            pval = r ? THUE_REVIEW_UNKNOWN : len + pval;
            o->before = bval;
            o->after = pval;
            o->has_best = bval != THUE_REVIEW_UNKNOWN && bbest >= 0;
            o->best = bbest;
        } else {
            if (place < 0 || mv->value < 0 || mv->value >= k) {
                err = THUE_EINVAL;
                break;
            }
            int rep = thue_check_insert(w, len, v, place, mv->value, NULL);
            if (rep < 0) {
                err = rep;
                break;
            }
            o->before = pval;
            o->has_best = pval != THUE_REVIEW_UNKNOWN && pbest >= 0;
            o->best = pbest;
            if (rep) {
                o->after = len; /* the round ends on a repetition: no point */
                place = -1;
                over = 1;
            } else {
                memmove(w + place + 1, w + place, (size_t)(len - place));
                w[place] = (uint8_t)mv->value;
                len++;
                place = -1;
                int r = builder_value(&c, w, len, &bval, &bbest);
                if (r < 0) {
                    err = r;
                    break;
                }
                bval = r ? THUE_REVIEW_UNKNOWN : len + bval;
                fresh = 0;
                o->after = bval;
                over = len >= limit;
            }
        }
        if (o->before == THUE_REVIEW_UNKNOWN || o->after == THUE_REVIEW_UNKNOWN) {
            o->verdict = THUE_VERDICT_UNKNOWN;
        } else {
            o->verdict = verdict_of(round, mv->is_paint, o->before, o->after, p1);
            exact++;
        }
    }
    thue_solver_free(c.s);
    free(c.buf);
    free(w);
    if (solved != NULL)
        *solved = exact;
    return err;
}
