/*
 * perfect.c: the exact bot. It values each root move with the solver (solve.h) and
 * plays the best, deepening the look-ahead one insertion at a time so that a move is
 * always ready when a limit stops it.
 *
 * Values count the painter's further points. With the look-ahead capped at D:
 *   builder, position i:  P_D(i) = 0 if nothing is safe at i, else the maximum over the
 *                         safe c of 1 + V_{D-1}(w with c at i);
 *   painter, symbol c:    1 + V_{D-1}(w with c at the chosen position).
 * A value below D is exact; a value equal to D only says "at least D". When the match's
 * length limit leaves `remaining` points, the game itself stops there, so at
 * D = remaining every value is exact.
 *
 * Each part takes the candidates x with x % parts == part and deepens D = 1, 2, ...
 * until its share is resolved, the cap is reached, or a limit stops it; values of the
 * last completed D are kept. One solver (and table) per part. Resolved means:
 *  - builder: its smallest value is exact, or D is above a value another part has
 *    already proven exact (s->proven: then none of its positions can beat or tie that
 *    one, and deepening further would only cost time);
 *  - painter: every one of its values is exact (the best symbol's value included, so
 *    that `value` is exact whenever the move is proven).
 *
 * The choice: builder, the smallest value (an exact value before an equal lower bound);
 * painter, the largest (a lower bound before an equal exact value). Ties are broken with
 * the seed like nested.c. The move is proven optimal, and its value exact, when the
 * builder's value is exact, or when every painter value is exact.
 */
#include <stdlib.h>

#include "base/errors.h"
#include "games/thue/bots/bot_internal.h"
#include "games/thue/bots/solve.h"

/* The smallest table the bot searches with (the memory budget may refuse the default). */
#define TABLE_MIN ((size_t)1 << 20)

static int min_cap(int a, int b)
{
    return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

/* The value of candidate x under cap D; 1 when stopped, negative on error. */
static int value_of(thue_bot_search *s, thue_solver *sv, uint8_t *w, int x, int D, thue__ctl *ctl,
                    int *out)
{
    const thue_position *pos = &s->pos;
    int n = pos->n, at = pos->role == THUE_ROLE_BUILDER ? s->cand[x] : pos->index;
    uint64_t syms = pos->role == THUE_ROLE_BUILDER ? s->rootmap[at] : (uint64_t)1 << s->cand[x];
    int best = 0;
    for (uint64_t m = syms; m; m &= m - 1) {
        thue_solve_limits lim = {.max_depth = 0};
        lim.deadline_ns = ctl->deadline_ns;
        lim.stop = ctl->stop;
        lim.yield = ctl->yield;
        lim.yield_arg = ctl->yield_arg;
        if (ctl->budget) {
            if (ctl->nodes >= ctl->budget) {
                ctl->stopped = 1;
                return 1;
            }
            lim.node_budget = ctl->budget - ctl->nodes;
        }
        thue__insert(w, n, at, __builtin_ctzll(m));
        int v = 0;
        uint64_t nodes = 0;
        int r = thue_solver_value(sv, w, n + 1, D - 1, &lim, &v, &nodes);
        thue__remove(w, n + 1, at);
        ctl->nodes += nodes;
        if (r != 0) {
            if (r == 1)
                ctl->stopped = 1;
            return r;
        }
        if (1 + v > best)
            best = 1 + v;
    }
    *out = best;
    return 0;
}

void thue__perfect_run(thue_bot_search *s, int p, thue__ctl *ctl)
{
    const thue_position *pos = &s->pos;
    int n = pos->n;
    int cap = min_cap(s->spec.max_depth, pos->remaining);
    /* The table (THUE_SOLVE_TABLE_DEFAULT), or a smaller one the memory account allows
     * (a smaller table only searches more); with none the bot plays greedy's move. */
    size_t bytes = THUE_SOLVE_TABLE_DEFAULT;
    while (bytes > TABLE_MIN && thue__take(ctl, bytes) != 0)
        bytes /= 2;
    if (bytes == TABLE_MIN && thue__take(ctl, bytes) != 0) {
        ctl->stopped = 1;
        return;
    }
    thue_solve_table *tt = thue_solve_table_new(bytes);
    thue_solver *sv = tt != NULL ? thue_solver_new_shared(pos->k, pos->variant, tt) : NULL;
    uint8_t *w = malloc((size_t)n + 2);
    int *vals = malloc(((size_t)s->ncand + 1) * sizeof(int));
    if (sv == NULL || w == NULL || vals == NULL) {
        s->part[p].oom = 1;
        goto done;
    }
    for (int j = 0; j < n; j++)
        w[j] = s->word[j];
    for (int D = 1; cap == 0 || D <= cap; D++) {
        int resolved_min = -1, open = 0; /* smallest exact value; values still bounds */
        for (int x = p; x < s->ncand; x += s->nparts) {
            int r = value_of(s, sv, w, x, D, ctl, &vals[x]);
            if (r == THUE_ETOOLONG)
                goto done; /* too long for the solver: choose falls back to greedy */
            if (r < 0) {
                s->part[p].oom = 1;
                goto done;
            }
            if (r == 1)
                goto done;
        }
        for (int x = p; x < s->ncand; x += s->nparts) {
            s->score[0][x] = (uint64_t)vals[x];
            s->cap[x] = D;
            s->have[0][x] = 1;
            if (vals[x] < D && (resolved_min < 0 || vals[x] < resolved_min))
                resolved_min = vals[x];
            open += vals[x] >= D;
        }
        s->part[p].depth = D;
        if (pos->role == THUE_ROLE_PAINTER) {
            if (open == 0)
                break;
        } else if (resolved_min >= 0) {
            /* Publish the proven value for the other parts (an atomic minimum). */
            int seen = atomic_load(&s->proven);
            while (resolved_min < seen &&
                   !atomic_compare_exchange_weak(&s->proven, &seen, resolved_min))
                ;
            break;
        } else if (D > atomic_load(&s->proven)) {
            /* Every value here is at least D, above the proven one: none of these
             * positions can beat or tie it, so the tied moves are those of one part. */
            break;
        }
    }
done:
    free(vals);
    free(w);
    thue_solver_free(sv);
    thue_solve_table_free(tt);
    thue__give(ctl, bytes);
}

void thue__perfect_choose(thue_bot_search *s, thue_bot_result *out)
{
    const thue_position *pos = &s->pos;
    int exact_cap = pos->remaining; /* at this cap values are exact */
    int builder = pos->role == THUE_ROLE_BUILDER;
    if (s->ncand == 0) { /* a painter with nothing safe: every symbol ends the round */
        out->move = 0;
        out->exact = 1;
        out->value = 0;
        return;
    }
    int depth = -1;
    for (int p = 0; p < s->nparts; p++)
        if (depth < 0 || s->part[p].depth < depth)
            depth = s->part[p].depth;
    for (int x = 0; x < s->ncand; x++) {
        if (!s->have[0][x]) { /* a share without a single finished depth */
            thue__greedy_choose(s, out);
            out->exact = 0;
            out->depth = 0;
            out->value = -1;
            return;
        }
    }
    /* rank: value, then exactness (builder prefers exact, painter a bound). */
    int best = -1, ties = 0;
    long bestkey = 0;
    for (int x = 0; x < s->ncand; x++) {
        int v = (int)s->score[0][x];
        int ex = v < s->cap[x] || s->cap[x] == exact_cap;
        long key = builder ? -(2L * v) + ex : 2L * v + !ex;
        if (best < 0 || key > bestkey) {
            best = x;
            bestkey = key;
            ties = 1;
        } else if (key == bestkey) {
            ties++;
        }
    }
    int pick = 0;
    if (ties > 1)
        pick = thue_bot_tiebreak(s->seed, ties);
    int all_others_exact = 1;
    for (int x = 0; x < s->ncand; x++) {
        int v = (int)s->score[0][x];
        int ex = v < s->cap[x] || s->cap[x] == exact_cap;
        long key = builder ? -(2L * v) + ex : 2L * v + !ex;
        if (key == bestkey && pick-- == 0)
            best = x;
        else if (!ex)
            all_others_exact = 0;
    }
    int v = (int)s->score[0][best];
    int ex = v < s->cap[best] || s->cap[best] == exact_cap;
    out->move = s->cand[best];
    out->value = v;
    out->exact = ex && (builder || all_others_exact);
    out->depth = depth;
}
