/*
 * gbot.c: the generic bots of gbot.h: specs, the random bot, UCT, a game's own bots (run
 * through its table's `bots`, with the limits polled through a callback), and the perfect bot's
 * choice between the game's own `perfect` member and the generic solver (gsolve.c), with
 * its fallback when neither decides in time (the first legal move, if the spec asks).
 *
 * uct's specs are Thue's: the text after "uct" is parsed and formatted back by
 * search/uctspec.c, which Thue's spec parser (bot.c) uses too, so the keys, ranges,
 * defaults and error sentences are the same.
 *
 * UCT's tree is one array of nodes (indices, not pointers, so it can grow by realloc);
 * a node's children are made all at once, in the order of legal_moves, the first time a
 * playout passes through it, and stored side by side. A node keeps the player who made
 * its move and the payoff of the playouts through it for that player (win 1, draw or
 * cut playout 0.5, loss 0). Selection from a node plays its first unvisited child, else
 * the child with the largest UCB1 value. Each iteration replays the moves from the root
 * on a copy of the root state (memcpy), so the tree holds no states. Past
 * UCT_NODES_MAX nodes the tree stops growing and playouts start at its leaves.
 *
 * Nodes are counted like the Thue uct's (tree nodes made) against the node budget, and
 * the limits are polled every few playouts and every few hundred playout moves.
 */
#include "search/gbot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "search/limits.h"
#include "search/uctspec.h"

#define UCT_NODES_MAX (1u << 24)
#define UCT_POLL_STEPS 256

/* ---- specs ---------------------------------------------------------------------------- */

int thue_gbot_has_perfect(const thue_gamedef *g)
{
    return g != NULL && (g->perfect != NULL || (g->flags & THUE_GAME_ACYCLIC) != 0);
}

thue_gbot_spec thue_gbot_spec_default(thue_gbot_kind kind)
{
    thue_gbot_spec s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.iterations = THUE_UCT_ITERATIONS_DEFAULT;
    s.playout_limit = THUE_UCT_PLAYOUT_DEFAULT;
    s.exploration = THUE_UCT_C_DEFAULT;
    return s;
}

int thue_gbot_spec_parse(const thue_gamedef *g, const char *text, thue_gbot_spec *out, char *err,
                         size_t errsize)
{
    if (err != NULL && errsize > 0)
        err[0] = '\0';
    if (text == NULL || text[0] == '\0')
        return thue_spec_error(err, errsize, "empty bot spec (try random, uct or perfect)");
    const char *colon = strchr(text, ':');
    size_t nlen = colon ? (size_t)(colon - text) : strlen(text);
    if (nlen == 6 && strncmp(text, "random", 6) == 0) {
        if (colon)
            return thue_spec_error(err, errsize, "random takes no options");
        *out = thue_gbot_spec_default(THUE_GBOT_RANDOM);
        return 0;
    }
    if (nlen == 7 && strncmp(text, "perfect", 7) == 0) {
        if (colon)
            return thue_spec_error(err, errsize,
                                   "perfect takes no options in a game other than thue");
        if (!thue_gbot_has_perfect(g))
            return thue_spec_error(err, errsize,
                                   "%s has no perfect bot: it has no solver of its own and its "
                                   "lines of play need not end, so plain minimax may never stop",
                                   g != NULL ? g->name : "this game");
        *out = thue_gbot_spec_default(THUE_GBOT_PERFECT);
        return 0;
    }
    for (int i = 0; g != NULL && i < g->nbots; i++)
        if (strlen(g->bots[i].name) == nlen && strncmp(text, g->bots[i].name, nlen) == 0) {
            if (colon)
                return thue_spec_error(err, errsize, "%s takes no options", g->bots[i].name);
            *out = thue_gbot_spec_default(THUE_GBOT_OWN);
            out->own = i;
            out->own_name = g->bots[i].name;
            return 0;
        }
    if (nlen == 3 && strncmp(text, "uct", 3) == 0) {
        thue_uct_spec b;
        int e = thue_uct_spec_parse(colon ? colon + 1 : NULL, &b, err, errsize);
        if (e != 0)
            return e;
        thue_gbot_spec s = thue_gbot_spec_default(THUE_GBOT_UCT);
        s.iterations = b.iterations;
        s.time_ms = b.time_ms;
        s.playout_limit = b.playout_limit;
        s.exploration = b.exploration;
        *out = s;
        return 0;
    }
    char own[160] = "";
    for (int i = 0, len = 0; g != NULL && i < g->nbots && len < (int)sizeof own; i++)
        len += snprintf(own + len, sizeof own - (size_t)len, ", %s", g->bots[i].name);
    return thue_spec_error(err, errsize, "unknown bot '%.*s' for %s (random, uct[:...]%s%s)",
                           (int)nlen, text, g != NULL ? g->name : "this game",
                           thue_gbot_has_perfect(g) ? ", perfect" : "", own);
}

int thue_gbot_spec_format(const thue_gbot_spec *s, char *buf, size_t size)
{
    switch (s->kind) {
    case THUE_GBOT_RANDOM:
        return snprintf(buf, size, "random");
    case THUE_GBOT_PERFECT:
        return snprintf(buf, size, "perfect");
    case THUE_GBOT_OWN:
        return snprintf(buf, size, "%s", s->own_name != NULL ? s->own_name : "?");
    case THUE_GBOT_UCT: {
        thue_uct_spec b = thue_uct_spec_default();
        b.iterations = s->iterations;
        b.time_ms = s->time_ms;
        b.playout_limit = s->playout_limit;
        b.exploration = s->exploration;
        return thue_uct_spec_format(&b, buf, size);
    }
    }
    return snprintf(buf, size, "?");
}

static int spec_valid(const thue_gbot_spec *s)
{
    switch (s->kind) {
    case THUE_GBOT_RANDOM:
    case THUE_GBOT_PERFECT:
    case THUE_GBOT_OWN:
        return 1;
    case THUE_GBOT_UCT:
        return s->playout_limit >= 1 && s->playout_limit <= 100000 && s->exploration >= 0 &&
               isfinite(s->exploration) && s->time_ms >= 0 && (s->iterations > 0 || s->time_ms > 0);
    }
    return 0;
}

int thue_gbot_spec_check(const thue_gamedef *g, const thue_gbot_spec *s)
{
    if (g == NULL || s == NULL || !spec_valid(s) ||
        (s->kind == THUE_GBOT_PERFECT && !thue_gbot_has_perfect(g)))
        return THUE_EINVAL;
    if (s->kind == THUE_GBOT_OWN &&
        (s->own < 0 || s->own >= g->nbots || g->bots == NULL || s->own_name == NULL ||
         strcmp(s->own_name, g->bots[s->own].name) != 0))
        return THUE_EINVAL;
    return 0;
}

/* ---- uct -------------------------------------------------------------------------------- */

typedef struct unode {
    thue_gmove move; /* the move into this node */
    int32_t first;   /* its first child, -1 until expanded */
    int32_t nchild;
    int8_t mover;    /* who made `move` (-1 at the root) */
    int8_t terminal; /* the state here is over */
    double visits, payoff;
} unode;

typedef struct uct {
    const thue_gamedef *g;
    const thue_gopt *opt;
    const thue_gbot_spec *spec;
    thue__ctl *ctl;
    size_t sz;
    uint64_t rng;
    unode *nodes;
    uint32_t n, cap;
    thue_gmove *moves; /* max_moves */
    int32_t *path;
    int pathcap;
    int oom;
} uct;

/* Makes nchild children of node at; 0, 1 when a limit stopped it, or -1 out of memory. */
static int expand(uct *u, uint32_t at, const void *st)
{
    int k = u->g->legal_moves(u->opt, st, u->moves);
    if (k <= 0)
        return 0; /* nothing to expand (an inconsistent table); playouts start here */
    if (u->n + (uint32_t)k > UCT_NODES_MAX)
        return 0; /* the tree is full: leave it a leaf */
    if (u->n + (uint32_t)k > u->cap) {
        uint32_t ncap = u->cap ? u->cap : 1024;
        while (ncap < u->n + (uint32_t)k)
            ncap *= 2;
        unode *nn = realloc(u->nodes, (size_t)ncap * sizeof *nn);
        if (nn == NULL)
            return -1;
        u->nodes = nn;
        u->cap = ncap;
    }
    for (int i = 0; i < k; i++)
        if (thue__tick(u->ctl))
            return 1;
    int mover = u->g->to_move(u->opt, st);
    for (int i = 0; i < k; i++) {
        unode *c = &u->nodes[u->n + (uint32_t)i];
        memset(c, 0, sizeof *c);
        c->move = u->moves[i];
        c->first = -1;
        c->mover = (int8_t)mover;
    }
    u->nodes[at].first = (int32_t)u->n;
    u->nodes[at].nchild = k;
    u->n += (uint32_t)k;
    return 0;
}

static uint32_t select_child(const uct *u, const unode *p)
{
    double logn = log(p->visits > 1 ? p->visits : 1);
    double bestv = -1.0;
    uint32_t best = (uint32_t)p->first;
    for (int32_t i = 0; i < p->nchild; i++) {
        const unode *c = &u->nodes[p->first + i];
        if (c->visits == 0)
            return (uint32_t)(p->first + i);
        double v = c->payoff / c->visits + u->spec->exploration * sqrt(logn / c->visits);
        if (v > bestv) {
            bestv = v;
            best = (uint32_t)(p->first + i);
        }
    }
    return best;
}

/* A random playout from st (changed): the winner, -1 for a draw, -2 when cut short. */
static int playout(uct *u, void *st)
{
    const thue_gamedef *g = u->g;
    for (int step = 0;; step++) {
        int who = g->to_move(u->opt, st);
        if (who < 0) {
            thue_gresult r;
            g->result(u->opt, st, &r);
            return r.winner;
        }
        if (step >= u->spec->playout_limit)
            return -2;
        if (step > 0 && step % UCT_POLL_STEPS == 0 && thue__ctl_poll(u->ctl))
            return -2;
        int k = g->legal_moves(u->opt, st, u->moves);
        if (k <= 0 || g->apply(u->opt, st, who, &u->moves[thue__rand_below(&u->rng, k)], NULL))
            return -2; /* an inconsistent table: score it as a cut playout */
    }
}

static double payoff_for(int outcome, int player)
{
    if (outcome == -1 || outcome == -2)
        return 0.5;
    return outcome == player ? 1.0 : 0.0;
}

/* One iteration: 0, 1 stopped (nothing recorded), -1 out of memory. */
static int iterate(uct *u, const void *root, void *st)
{
    const thue_gamedef *g = u->g;
    memcpy(st, root, u->sz);
    int depth = 0;
    uint32_t at = 0;
    u->path[depth++] = 0;
    for (;;) {
        unode *nd = &u->nodes[at];
        if (nd->terminal)
            break;
        if (nd->first < 0) {
            if (nd->visits == 0 && at != 0)
                break; /* a new leaf: play out from here first */
            int e = expand(u, at, st);
            if (e != 0)
                return e;
            nd = &u->nodes[at];
            if (nd->first < 0)
                break;
        }
        uint32_t c = select_child(u, nd);
        int who = g->to_move(u->opt, st);
        if (g->apply(u->opt, st, who, &u->nodes[c].move, NULL) != 0)
            break; /* not reached with a consistent table */
        at = c;
        if (depth == u->pathcap) {
            int ncap = u->pathcap * 2;
            int32_t *np = realloc(u->path, (size_t)ncap * sizeof *np);
            if (np == NULL)
                return -1;
            u->path = np;
            u->pathcap = ncap;
        }
        u->path[depth++] = (int32_t)at;
        if (g->to_move(u->opt, st) < 0)
            u->nodes[at].terminal = 1;
    }
    int outcome = playout(u, st);
    for (int i = 0; i < depth; i++) {
        unode *nd = &u->nodes[u->path[i]];
        nd->visits += 1;
        nd->payoff += payoff_for(outcome, nd->mover);
    }
    return 0;
}

static int uct_choose(const thue_gamedef *g, const thue_gopt *opt, const void *root,
                      const thue_gbot_spec *spec, uint64_t seed, thue__ctl *ctl,
                      thue_gbot_result *out)
{
    uct u;
    memset(&u, 0, sizeof u);
    u.g = g;
    u.opt = opt;
    u.spec = spec;
    u.ctl = ctl;
    u.sz = g->state_size(opt);
    u.rng = thue_mix64(seed ^ 0x75637421ull);
    int maxm = g->max_moves(opt);
    u.moves = malloc((size_t)(maxm > 0 ? maxm : 1) * sizeof *u.moves);
    u.pathcap = 64;
    u.path = malloc((size_t)u.pathcap * sizeof *u.path);
    void *st = malloc(u.sz ? u.sz : 1);
    u.cap = 1024;
    u.nodes = malloc((size_t)u.cap * sizeof *u.nodes);
    int err = 0;
    if (u.moves == NULL || u.path == NULL || st == NULL || u.nodes == NULL) {
        err = THUE_ENOMEM;
        goto done;
    }
    memset(&u.nodes[0], 0, sizeof u.nodes[0]);
    u.nodes[0].first = -1;
    u.nodes[0].mover = -1;
    u.n = 1;
    /* The root's children first, so that a search stopped at once still has moves. */
    int e = expand(&u, 0, root);
    if (e < 0) {
        err = THUE_ENOMEM;
        goto done;
    }
    uint64_t it = 0;
    while (e == 0 && (spec->iterations == 0 || it < spec->iterations)) {
        if (it % 16 == 0 && it > 0 && thue__ctl_poll(ctl))
            break;
        e = iterate(&u, root, st);
        if (e < 0) {
            err = THUE_ENOMEM;
            goto done;
        }
        if (e == 0)
            it++;
    }
    out->iterations = it;
    const unode *r = &u.nodes[0];
    if (r->first < 0) {
        /* Stopped before the root's children were made: the first legal move. */
        g->legal_moves(opt, root, u.moves);
        out->move = u.moves[0];
    } else {
        int32_t best = r->first;
        for (int32_t i = 1; i < r->nchild; i++) {
            const unode *c = &u.nodes[r->first + i], *b = &u.nodes[best];
            /* Most visits; equal visits: the better mean; then the earlier move. */
            if (c->visits > b->visits || (c->visits == b->visits && c->visits > 0 &&
                                          c->payoff / c->visits > b->payoff / b->visits))
                best = r->first + i;
        }
        out->move = u.nodes[best].move;
    }
done:
    free(u.moves);
    free(u.path);
    free(u.nodes);
    free(st);
    return err;
}

/* ---- perfect --------------------------------------------------------------------------- */

/* The game's own solver, then (beyond it, on an acyclic game) the generic one: 0 with
 * out's move, value and exact set, or THUE_ETOOBIG / THUE_ENOMEM. */
static int perfect_choose(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                          const thue_bot_limits *lim, int64_t deadline, thue_gbot_result *out)
{
    int v = 0, err;
    if (g->perfect != NULL) {
        thue_gmove best = {{0, 0, 0, 0}};
        err = g->perfect(opt, st, &best, &v);
        out->nodes = 1;
        if (err == 0) {
            out->move = best;
            out->value = v;
            out->exact = 1;
            return 0;
        }
        if (err != THUE_ETOOBIG || (g->flags & THUE_GAME_ACYCLIC) == 0)
            return err;
        /* Beyond the game's own solver: try the generic one. */
    }
    uint64_t nodes = 0;
    int stopped = 0;
    err = thue__gsolve(g, opt, st, lim, deadline, &out->move, &v, &nodes, &stopped);
    out->nodes += nodes;
    out->stopped = stopped;
    if (err == 0) {
        out->value = v;
        out->exact = 1;
    }
    return err;
}

/* An undecided perfect's answer (spec legal_if_undecided): the first of legal_moves, not
 * exact, its value unknown. 0; THUE_ETOOBIG still when the table gives no legal move (an
 * inconsistent table: there is nothing better to say), THUE_ENOMEM. */
static int first_legal(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                       thue_gbot_result *out)
{
    int maxm = g->max_moves(opt);
    thue_gmove *mv = malloc((size_t)(maxm > 0 ? maxm : 1) * sizeof *mv);
    if (mv == NULL)
        return THUE_ENOMEM;
    int k = g->legal_moves(opt, st, mv);
    if (k > 0)
        out->move = mv[0];
    free(mv);
    out->exact = 0;
    out->value = -2;
    return k > 0 ? 0 : THUE_ETOOBIG;
}

/* ---- own ------------------------------------------------------------------------------ */

/* The own bots' must_stop: one poll of the limits (stop flag, deadline, the pool's pause). */
static int own_must_stop(void *arg)
{
    return thue__ctl_poll(arg);
}

/* ---- choose ---------------------------------------------------------------------------- */

int thue_gbot_choose(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                     const thue_gbot_spec *spec, uint64_t seed, const thue_bot_limits *lim,
                     thue_gbot_result *out)
{
    int64_t t0 = thue_now_ns();
    memset(out, 0, sizeof *out);
    out->value = -2;
    if (opt == NULL || st == NULL || thue_gbot_spec_check(g, spec) != 0)
        return THUE_EINVAL;
    if (g->to_move(opt, st) < 0)
        return THUE_EOVER;
    thue__ctl ctl;
    memset(&ctl, 0, sizeof ctl);
    int64_t deadline = 0;
    if (lim != NULL) {
        ctl.stop = lim->stop;
        ctl.yield = lim->yield;
        ctl.yield_arg = lim->yield_arg;
        ctl.budget = lim->node_budget;
        deadline = lim->deadline_ns;
        if (lim->think_ms > 0) {
            int64_t d = t0 + lim->think_ms * 1000000;
            if (deadline == 0 || d < deadline)
                deadline = d;
        }
    }
    if (spec->kind == THUE_GBOT_UCT && spec->time_ms > 0) {
        int64_t d = t0 + (int64_t)spec->time_ms * 1000000;
        if (deadline == 0 || d < deadline)
            deadline = d;
    }
    ctl.deadline_ns = deadline;
    int err = 0;
    switch (spec->kind) {
    case THUE_GBOT_RANDOM: {
        int maxm = g->max_moves(opt);
        thue_gmove *mv = malloc((size_t)(maxm > 0 ? maxm : 1) * sizeof *mv);
        if (mv == NULL)
            return THUE_ENOMEM;
        int k = g->legal_moves(opt, st, mv);
        if (k <= 0) {
            free(mv);
            return THUE_EOVER;
        }
        uint64_t rng = seed;
        out->move = mv[thue__rand_below(&rng, k)];
        out->nodes = 1;
        free(mv);
        break;
    }
    case THUE_GBOT_UCT:
        err = uct_choose(g, opt, st, spec, seed, &ctl, out);
        out->nodes = ctl.nodes;
        out->stopped = ctl.stopped;
        break;
    case THUE_GBOT_OWN:
        err = g->bots[spec->own].choose(opt, st, seed, own_must_stop, &ctl, &out->move);
        out->nodes = 1;
        out->stopped = ctl.stopped;
        break;
    case THUE_GBOT_PERFECT:
        err = perfect_choose(g, opt, st, lim, deadline, out);
        if (err == THUE_ETOOBIG && spec->legal_if_undecided)
            err = first_legal(g, opt, st, out);
        break;
    }
    out->ms = (double)(thue_now_ns() - t0) / 1e6;
    return err;
}
