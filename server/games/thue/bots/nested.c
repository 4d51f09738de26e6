/*
 * nested.c: the thesis's counting heuristic, nested:L for L >= 1 (RULES.md).
 *
 *   simulation(m): m -= 1; for every position j of the word: score += |safe symbols at j|;
 *                  for each safe symbol s at j: insert s, if m > 0 simulation(m), remove s.
 *   painter: score[c] = simulation(L) after inserting c at the chosen position, for each
 *            safe c; play the highest score, a random one of the tied safe symbols.
 *   builder: score[i] = the sum over the safe symbols s at i of simulation(L) after
 *            inserting s at i; play the LOWEST score, a random one of the tied positions
 *            (a position with no safe symbol scores 0).
 * "Positions" are the n+1 insertion gaps 0..n. simulation(L) is a sum over a tree of
 * depth L whose nodes are words; here each node costs one legal-move map of the engine
 * (every position and symbol at once, bit-parallel), where the thesis rescanned the
 * whole word for each (position, symbol) pair. The tree is walked in place: one word
 * buffer edited by insert/remove, and one map buffer per depth, reused across nodes.
 * Nothing is pruned, so the scores, the choices and the node count (one node per map)
 * are exactly those of the definition.
 *
 * Tie-breaks: the tied candidates in ascending order (positions or symbols); with T > 1
 * of them the move is candidate number thue_bot_tiebreak(seed, T) (bot.h): one draw from
 * the search's seed. One draw per decision, none when there is no tie.
 *
 * Limits: with no time limit and no node budget only level L is computed. Under either,
 * levels 1..L are computed in turn, so that when the limit cuts level l short the move of
 * level l-1 is ready (level 0 is greedy); exact is then 0. A stop flag cuts the search
 * short the same way.
 *
 * Parts: candidates are dealt out by a shared counter per level (any part takes the next
 * one), or, under a node budget, by index modulo the number of parts so that the work
 * each part does is reproducible. Scores are exact whoever computes them.
 */
#include <stdlib.h>

#include "base/errors.h"
#include "games/thue/bots/bot_internal.h"

typedef struct walk {
    const thue_bot_search *s;
    thue_scan *scan;
    uint8_t *w;     /* the word, edited in place */
    uint64_t *maps; /* one map of `stride` entries per depth */
    int stride;
    thue__ctl *ctl;
    int oom;
} walk;

/* simulation(levels) of the word w[0..n), counted from the word itself: its number of
 * safe moves plus, when levels > 1, simulation(levels-1) of every child. */
static uint64_t simulate(walk *x, int n, int levels, int depth)
{
    /* A node's legal-move map costs about the word's length: work beyond its tick. */
    if (thue__tick(x->ctl) || thue__work(x->ctl, n / 16))
        return 0;
    uint64_t *map = x->maps + (size_t)depth * (size_t)x->stride;
    if (thue_legal_map(x->scan, x->w, n, x->s->pos.k, x->s->pos.variant, map) != 0) {
        x->oom = 1;
        x->ctl->stopped = 1;
        return 0;
    }
    uint64_t total = thue__count_moves(map, n);
    if (levels > 1) {
        for (int j = 0; j <= n; j++)
            for (uint64_t m = map[j]; m; m &= m - 1) {
                thue__insert(x->w, n, j, __builtin_ctzll(m));
                total += simulate(x, n + 1, levels - 1, depth + 1);
                thue__remove(x->w, n + 1, j);
                if (x->ctl->stopped)
                    return 0;
            }
    }
    return total;
}

/* The score of root candidate `cand` at level l (meaningless if the walk stopped). */
static uint64_t score_of(walk *x, int cand, int l)
{
    const thue_position *pos = &x->s->pos;
    int n = pos->n;
    if (pos->role == THUE_ROLE_PAINTER) {
        thue__insert(x->w, n, pos->index, cand);
        uint64_t v = simulate(x, n + 1, l, 0);
        thue__remove(x->w, n + 1, pos->index);
        return v;
    }
    uint64_t total = 0;
    for (uint64_t m = x->s->rootmap[cand]; m && !x->ctl->stopped; m &= m - 1) {
        thue__insert(x->w, n, cand, __builtin_ctzll(m));
        total += simulate(x, n + 1, l, 0);
        thue__remove(x->w, n + 1, cand);
    }
    return total;
}

void thue__nested_run(thue_bot_search *s, int p, thue__ctl *ctl)
{
    int L = s->spec.level, n = s->pos.n;
    walk x = {s, thue_scan_new(), NULL, NULL, n + L + 2, ctl, 0};
    x.w = malloc((size_t)x.stride);
    x.maps = malloc((size_t)(L + 1) * (size_t)x.stride * sizeof(uint64_t));
    if (x.scan == NULL || x.w == NULL || x.maps == NULL) {
        s->part[p].oom = 1;
        goto done;
    }
    for (int j = 0; j < n; j++)
        x.w[j] = s->word[j];
    /* A stop flag alone is no reason to deepen level by level: when it is raised the
     * result is thrown away (a cancelled job), whatever level was reached. */
    int limited = ctl->deadline_ns != 0 || ctl->budget != 0;
    int fixed_deal = ctl->budget != 0;
    for (int l = limited ? 1 : L; l <= L && !ctl->stopped; l++) {
        for (int t = 0;; t++) {
            int c = fixed_deal ? p + t * s->nparts : atomic_fetch_add(&s->next[l], 1);
            if (c >= s->ncand)
                break;
            uint64_t v = score_of(&x, s->cand[c], l);
            if (ctl->stopped)
                break;
            s->score[l][c] = v;
            s->have[l][c] = 1;
        }
    }
    if (x.oom)
        s->part[p].oom = 1;
done:
    free(x.maps);
    free(x.w);
    thue_scan_free(x.scan);
}

void thue__nested_choose(thue_bot_search *s, thue_bot_result *out)
{
    int L = s->spec.level, lv = 0;
    for (int l = L; l >= 1 && lv == 0; l--) {
        if (s->have[l] == NULL)
            continue;
        int all = 1;
        for (int c = 0; c < s->ncand && all; c++)
            all = s->have[l][c];
        if (all)
            lv = l;
    }
    if (lv == 0 || s->ncand == 0) {
        thue__greedy_choose(s, out); /* nothing safe, or not even level 1 finished */
        out->exact = lv == L || s->ncand == 0;
        out->depth = s->ncand == 0 ? L : 0;
        return;
    }
    const uint64_t *score = s->score[lv];
    int builder = s->pos.role == THUE_ROLE_BUILDER;
    uint64_t best = score[0];
    for (int c = 1; c < s->ncand; c++)
        if (builder ? score[c] < best : score[c] > best)
            best = score[c];
    int ties = 0, pick = 0;
    for (int c = 0; c < s->ncand; c++)
        ties += score[c] == best;
    if (ties > 1)
        pick = thue_bot_tiebreak(s->seed, ties);
    for (int c = 0; c < s->ncand; c++) {
        if (score[c] != best)
            continue;
        if (pick-- == 0) {
            out->move = s->cand[c];
            break;
        }
    }
    out->exact = lv == L;
    out->depth = lv;
}
