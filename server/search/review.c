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
#include "search/guct.h"
#include "search/review.h"

const char *thue_verdict_name(thue_verdict v)
{
    static const char *const names[] = {"best", "good", "mistake", "blunder", "unknown"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : NULL;
}

/* A solved position: who moves (-1 once over, then winner says who won, -1 a draw), the
 * value for the mover (THUE_REVIEW_UNKNOWN when undecided) and a move that keeps it; the
 * final margin for the mover where the game gives one (over: the scores' difference). */
typedef struct solved {
    int mover, winner, value, has_best;
    thue_gmove best;
    int has_margin, margin;
    int score[2]; /* over: the game's scores */
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
        out->score[0] = r.score[0];
        out->score[1] = r.score[1];
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
        out->has_margin = res.has_margin;
        out->margin = res.margin;
    }
    return 0;
}

/* The final margin of p for player `who`: 1 and *m, or 0 when unknown. A game over has
 * one only in a game whose positions have margins (has_margin seen before). */
static int margin_for(const solved *p, int who, int *m)
{
    if (p->mover < 0) {
        *m = p->score[who] - p->score[who ^ 1];
        return 1;
    }
    if (!p->has_margin)
        return 0;
    *m = p->mover == who ? p->margin : -p->margin;
    return 1;
}

static int root_value(void *arg, const thue_guct_view *v)
{
    *(double *)arg = v->value;
    return 1; /* the root is enough */
}

/* The uct bot's chances (mean reward, 0..1) for `who` in st after `playouts` playouts,
 * seeded by the position's hash: 1 and *est, or 0 (no tree: memory, a stop). */
int thue_review_estimate(const thue_gamedef *g, const thue_gopt *opt, const void *st, int who,
                         uint64_t playouts, const thue_bot_limits *lim, double *est)
{
    thue_gresult r;
    g->result(opt, st, &r);
    if (r.over) {
        *est = r.winner < 0 ? 0.5 : r.winner == who ? 1.0 : 0.0;
        return 1;
    }
    thue_guct_params p;
    memset(&p, 0, sizeof p);
    p.playout_limit = 1000;
    p.c = 1.4142135623730951;
    p.seed = g->hash(opt, st) ^ 0x9e3779b97f4a7c15ull;
    p.nodes_max = 100000;
    p.mem = lim != NULL ? lim->mem : NULL;
    thue_guct *t = NULL;
    if (thue_guct_new(g, opt, st, &p, &t) != 0)
        return 0;
    thue__ctl ctl;
    thue__ctl_init(&ctl, lim, lim != NULL ? lim->deadline_ns : 0);
    ctl.budget = 0; /* the playouts are the bound */
    uint64_t ran = 0;
    int err = thue_guct_run(t, playouts, &ctl, &ran);
    double v = -1;
    if (err == 0 && ran > 0)
        thue_guct_walk(t, 1, root_value, &v, NULL);
    thue_guct_free(t);
    if (v < 0)
        return 0;
    *est = g->to_move(opt, st) == who ? v : 1.0 - v;
    return 1;
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

static thue_verdict verdict_of(const thue_review_move *m)
{
    if (m->before == THUE_REVIEW_UNKNOWN || m->after == THUE_REVIEW_UNKNOWN)
        return THUE_VERDICT_UNKNOWN;
    int drop = m->before - m->after;
    if (drop <= 0)
        return m->has_margin && m->margin_after < m->margin_before ? THUE_VERDICT_GOOD
                                                                   : THUE_VERDICT_BEST;
    return drop == 1 ? THUE_VERDICT_MISTAKE : THUE_VERDICT_BLUNDER;
}

int thue_review(const thue_gamedef *g, const thue_gopt *opt, const void *start,
                const thue_gmove *moves, int n, const thue_bot_limits *lim,
                uint64_t estimate, thue_review_move *out, int *solved_count)
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
        double est = 0;
        int has_est = 0;
        if (here.mover >= 0 && here.value == THUE_REVIEW_UNKNOWN && estimate > 0)
            has_est = thue_review_estimate(g, opt, st, here.mover, estimate, lim, &est);
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
        /* Margins only in a game whose perfect gives them (then an end's are its scores). */
        m->has_margin = here.has_margin && margin_for(&here, m->player, &m->margin_before) &&
                        margin_for(&next, m->player, &m->margin_after);
        m->verdict = verdict_of(m);
        if (estimate > 0 && (m->before == THUE_REVIEW_UNKNOWN || m->after == THUE_REVIEW_UNKNOWN)) {
            double ea = 0;
            if (!has_est && m->before != THUE_REVIEW_UNKNOWN) {
                est = m->before == 1 ? 1.0 : m->before == 0 ? 0.5 : 0.0;
                has_est = 1;
            }
            if (has_est && m->after != THUE_REVIEW_UNKNOWN) {
                ea = m->after == 1 ? 1.0 : m->after == 0 ? 0.5 : 0.0;
            } else if (has_est) {
                has_est = thue_review_estimate(g, opt, st, m->player, estimate, lim, &ea);
            }
            m->has_estimate = has_est;
            m->est_before = est;
            m->est_after = ea;
        }
        m->has_best = here.has_best;
        m->best = here.best;
        here = next;
    }
    free(st);
    if (solved_count != NULL)
        *solved_count = exact;
    return err;
}
