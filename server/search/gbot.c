/*
 * gbot.c: the generic bots of gbot.h: specs, the random bot, UCT, a game's own bots (run
 * through its table's `bots`, with the limits polled through a callback), and the perfect bot:
 * the game's own `perfect` member where it has one, else the generic solver (gsolve.c), with
 * its fallback when it does not decide in time (if the spec asks: the game's `fallback`,
 * else the first legal move).
 *
 * uct's specs are Thue's: the text after "uct" is parsed and formatted back by
 * search/uctspec.c, which Thue's spec parser (bot.c) uses too, so the keys, ranges,
 * defaults and error sentences are the same.
 *
 * UCT is search/guct.c's persistent tree, made for one move and run once (the server's
 * analysis runs the same tree in slices, so an analysis of a position and this bot with the
 * same seed and iterations agree); the tree's design is described there.
 *
 * Nodes are counted like the Thue uct's (tree nodes made) against the node budget, and
 * the limits are polled every few playouts and every few hundred playout moves.
 */
#include "search/gbot.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "search/guct.h"
#include "search/limits.h"
#include "search/uctspec.h"


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

/* ---- a move when nothing better can be had ------------------------------------------ */

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

/* ---- uct -------------------------------------------------------------------------------- */

/* The uct bot is one run of a fresh guct tree (guct.h), whose best root move it plays. */
static int uct_choose(const thue_gamedef *g, const thue_gopt *opt, const void *root,
                      const thue_gbot_spec *spec, uint64_t seed, thue__ctl *ctl,
                      thue_gbot_result *out, FILE *tree, int format)
{
    thue_guct_params p;
    memset(&p, 0, sizeof p);
    p.playout_limit = spec->playout_limit;
    p.c = spec->exploration;
    p.seed = seed;
    p.nodes_max = THUE_GUCT_NODES_MAX;
    p.mem = ctl->mem;
    thue_guct *t = NULL;
    int err = thue_guct_new(g, opt, root, &p, &t);
    if (err == THUE_ETOOBIG) {
        /* The memory budget allows no tree: the first legal move, said to be cut short. */
        ctl->stopped = 1;
        return first_legal(g, opt, root, out);
    }
    if (err != 0)
        return err;
    uint64_t ran = 0;
    err = thue_guct_run(t, spec->iterations == 0 ? UINT64_MAX : spec->iterations, ctl, &ran);
    out->iterations = ran;
    if (err == 0)
        err = thue_guct_best(t, &out->move);
    if (err == 0 && tree != NULL)
        err = thue_guct_export(t, UINT32_MAX, tree, (thue_guct_format)format);
    thue_guct_free(t);
    return err;
}

/* ---- the game's own searches -------------------------------------------------------- */

/* What a game's perfect member and own bots get (game.h's thue_gctl): polls of ctl's
 * limits, paced like every search's (one unit of work per call: a game that asks often
 * reads the clock rarely), and its memory account. */
static int gctl_must_stop(void *arg)
{
    return thue__work(arg, 1);
}

static int gctl_take(void *arg, size_t bytes)
{
    return thue__take(arg, bytes);
}

static void gctl_give(void *arg, size_t bytes)
{
    thue__give(arg, bytes);
}

static thue_gctl gctl_of(thue__ctl *ctl)
{
    thue_gctl c = {.must_stop = gctl_must_stop,
                   .take = gctl_take,
                   .give = gctl_give,
                   .arg = ctl,
                   .nodes_max = ctl->budget};
    return c;
}

/* ---- perfect --------------------------------------------------------------------------- */

/* The game's own solver where it has one (its refusal is final: it knows the game, the
 * generic solver would only spend the budget again, far slower: dots and boxes beyond its
 * 30 lines took minutes), else, on an acyclic game, the generic one: 0 with out's move,
 * value and exact set, or THUE_ETOOBIG (out->why says why when someone could tell) /
 * THUE_ENOMEM. */
static int perfect_choose(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                          const thue_bot_limits *lim, thue__ctl *ctl, thue_gbot_result *out)
{
    int v = 0, err;
    if (g->perfect != NULL) {
        thue_gmove best = {{0, 0, 0, 0}};
        thue_gctl gc = gctl_of(ctl);
        gc.why = out->why;
        gc.why_size = sizeof out->why;
        int margin = INT_MIN;
        gc.margin = &margin;
        err = g->perfect(opt, st, &gc, &best, &v);
        if (err == 0 && margin != INT_MIN) {
            out->has_margin = 1;
            out->margin = margin;
        }
        out->stopped = ctl->stopped;
        out->nodes = 1;
        if (err == 0) {
            out->move = best;
            out->value = v;
            out->exact = 1;
            out->why[0] = '\0';
        } else if (err == THUE_ETOOBIG && out->why[0] == '\0' && ctl->stopped) {
            snprintf(out->why, sizeof out->why,
                     "the time limit or a stop ended its search before it decided");
        }
        return err;
    }
    uint64_t nodes = 0;
    int stopped = 0;
    err = thue__gsolve(g, opt, st, lim, ctl->deadline_ns, &out->move, &v, &nodes, &stopped);
    out->nodes += nodes;
    out->stopped |= stopped;
    if (err == 0) {
        out->value = v;
        out->exact = 1;
    } else if (err == THUE_ETOOBIG) {
        snprintf(out->why, sizeof out->why, "%s",
                 stopped ? "the time limit or a stop ended its search before it decided"
                         : "the exact search passed its node budget or depth before it decided");
    }
    return err;
}

/* A perfect bot that must move where perfect refused (spec legal_if_undecided): the
 * game's quick fallback (game.h) when it has one, else the first legal move; not exact,
 * its value unknown, out->why kept. 0, or as first_legal. */
static int undecided_move(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                          uint64_t seed, thue__ctl *ctl, thue_gbot_result *out)
{
    if (g->fallback != NULL) {
        thue_gctl gc = gctl_of(ctl);
        if (g->fallback->choose(opt, st, seed, &gc, &out->move) == 0) {
            out->exact = 0;
            out->value = -2;
            return 0;
        }
    }
    return first_legal(g, opt, st, out);
}

/* ---- choose ---------------------------------------------------------------------------- */

static int choose(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                  const thue_gbot_spec *spec, uint64_t seed, const thue_bot_limits *lim,
                  thue_gbot_result *out, FILE *tree, int format)
{
    int64_t t0 = thue_now_ns();
    memset(out, 0, sizeof *out);
    out->value = -2;
    if (opt == NULL || st == NULL || thue_gbot_spec_check(g, spec) != 0)
        return THUE_EINVAL;
    if (g->to_move(opt, st) < 0)
        return THUE_EOVER;
    int64_t deadline = 0;
    if (lim != NULL) {
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
    thue__ctl ctl;
    thue__ctl_init(&ctl, lim, deadline);
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
        err = uct_choose(g, opt, st, spec, seed, &ctl, out, tree, format);
        out->nodes = ctl.nodes;
        out->stopped = ctl.stopped;
        break;
    case THUE_GBOT_OWN: {
        thue_gctl gc = gctl_of(&ctl);
        err = g->bots[spec->own].choose(opt, st, seed, &gc, &out->move);
        out->nodes = 1;
        out->stopped = ctl.stopped;
        break;
    }
    case THUE_GBOT_PERFECT:
        err = perfect_choose(g, opt, st, lim, &ctl, out);
        if (err == THUE_ETOOBIG && spec->legal_if_undecided)
            err = undecided_move(g, opt, st, seed, &ctl, out);
        break;
    }
    out->ms = (double)(thue_now_ns() - t0) / 1e6;
    return err;
}

int thue_gbot_choose(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                     const thue_gbot_spec *spec, uint64_t seed, const thue_bot_limits *lim,
                     thue_gbot_result *out)
{
    return choose(g, opt, st, spec, seed, lim, out, NULL, 0);
}

int thue_gbot_choose_tree(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                          const thue_gbot_spec *spec, uint64_t seed, const thue_bot_limits *lim,
                          thue_gbot_result *out, FILE *tree, int format)
{
    if (tree == NULL || spec == NULL || spec->kind != THUE_GBOT_UCT ||
        (format != THUE_GUCT_CSV && format != THUE_GUCT_BINARY)) {
        memset(out, 0, sizeof *out);
        out->value = -2;
        return THUE_EINVAL;
    }
    return choose(g, opt, st, spec, seed, lim, out, tree, format);
}
