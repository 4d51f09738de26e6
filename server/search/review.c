/*
 * review.c: the exact review of a match (review.h). The match is replayed from its start;
 * every position (the start and the one after each move) is solved once by the perfect
 * bot, and each move's before and after are the values of the positions around it, seen
 * from its mover: the value of a position whose mover is the other player is negated (in
 * dots and boxes a box gives its maker the next move too, so the mover after a move may
 * be the same player), and a position that is over is scored from its result.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "search/gbot.h"
#include "search/review.h"

const char *thue_verdict_name(thue_verdict v)
{
    static const char *const names[] = {"best", "good", "mistake", "blunder", "unknown"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : NULL;
}

/* A solved position: who moves (-1 once over, then winner says who won, -1 a draw), the
 * value for the mover (THUE_REVIEW_UNKNOWN when undecided) and a move that keeps it. */
typedef struct solved {
    int mover, winner, value, has_best;
    thue_gmove best;
} solved;

static int solve(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                 const thue_bot_limits *lim, solved *out)
{
    memset(out, 0, sizeof *out);
    out->value = THUE_REVIEW_UNKNOWN;
    thue_gresult r;
    g->result(opt, st, &r);
    if (r.over) {
        out->mover = -1;
        out->winner = r.winner;
        return 0;
    }
    out->mover = g->to_move(opt, st);
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    spec.legal_if_undecided = 0;
    thue_gbot_result res;
    int err = thue_gbot_choose(g, opt, st, &spec, 0, lim, &res);
    if (err == THUE_ENOMEM)
        return err;
    if (err == 0 && res.exact && res.value >= -1 && res.value <= 1) {
        out->value = res.value;
        out->best = res.move;
        out->has_best = 1;
    }
    return 0;
}

/* The value of position p for player `who`. */
static int value_for(const solved *p, int who)
{
    if (p->mover < 0)
        return p->winner < 0 ? 0 : p->winner == who ? 1 : -1;
    if (p->value == THUE_REVIEW_UNKNOWN)
        return THUE_REVIEW_UNKNOWN;
    return p->mover == who ? p->value : -p->value;
}

static thue_verdict verdict_of(int before, int after)
{
    if (before == THUE_REVIEW_UNKNOWN || after == THUE_REVIEW_UNKNOWN)
        return THUE_VERDICT_UNKNOWN;
    int drop = before - after;
    return drop <= 0 ? THUE_VERDICT_BEST : drop == 1 ? THUE_VERDICT_MISTAKE : THUE_VERDICT_BLUNDER;
}

int thue_review(const thue_gamedef *g, const thue_gopt *opt, const void *start,
                const thue_gmove *moves, int n, const thue_bot_limits *lim,
                thue_review_move *out, int *solved_count)
{
    if (solved_count != NULL)
        *solved_count = 0;
    if (g == NULL || opt == NULL || start == NULL || n < 0 || (n > 0 && (moves == NULL || out == NULL)) ||
        !thue_gbot_has_perfect(g))
        return THUE_EINVAL;
    size_t size = g->state_size(opt);
    unsigned char *st = malloc(size ? size : 1);
    if (st == NULL)
        return THUE_ENOMEM;
    memcpy(st, start, size);
    solved here, next;
    int err = solve(g, opt, st, lim, &here);
    int exact = here.mover < 0 || here.value != THUE_REVIEW_UNKNOWN;
    for (int i = 0; err == 0 && i < n; i++) {
        thue_review_move *m = &out[i];
        memset(m, 0, sizeof *m);
        m->player = here.mover;
        thue_gerr e;
        if (here.mover < 0 || g->apply(opt, st, here.mover, &moves[i], &e) != 0) {
            err = THUE_EINVAL;
            break;
        }
        err = solve(g, opt, st, lim, &next);
        if (err)
            break;
        exact += next.mover < 0 || next.value != THUE_REVIEW_UNKNOWN;
        m->before = here.value;
        m->after = value_for(&next, m->player);
        m->verdict = verdict_of(m->before, m->after);
        m->has_best = here.has_best;
        m->best = here.best;
        here = next;
    }
    free(st);
    if (solved_count != NULL)
        *solved_count = exact;
    return err;
}
