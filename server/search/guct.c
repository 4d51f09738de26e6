/*
 * guct.c: the generic uct's persistent tree (guct.h), the search gbot.h describes.
 *
 * The tree is one array of nodes (indices, not pointers, so it can grow by realloc); a
 * node's children are made all at once, in the order of legal_moves, the first time an
 * iteration passes through it after its first visit, and stored side by side. A node
 * keeps the player who made its move and the payoff of the playouts through it for that
 * player (win 1, draw or cut playout 0.5, loss 0); the root keeps its payoff for the
 * player to move there. Selection plays a node's first unvisited child, else the child
 * with the largest UCB1 value. Each iteration replays the moves from the root on a copy of
 * the root state (memcpy), so the tree holds no states. Past nodes_max nodes the tree stops
 * growing and playouts start at its leaves.
 *
 * The random stream lives in the tree, so runs continue it; an iteration that a limit cuts
 * short rewinds it and backs nothing up. Children it made stay (made with no random draw,
 * exactly as the repeated iteration would make them), so the next run repeats that
 * iteration and the tree is the one an uninterrupted search makes.
 */
#include "search/guct.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

typedef struct unode {
    thue_gmove move; /* the move into this node */
    int32_t first;   /* its first child, -1 until expanded */
    int32_t nchild;
    int8_t mover;    /* who made `move` (at the root: the player to move there) */
    int8_t terminal; /* the state here is over */
    double visits, payoff;
    uint64_t ended;
} unode;

struct thue_guct {
    const thue_gamedef *g;
    const thue_gopt *opt;
    thue_guct_params p;
    size_t sz;
    uint64_t rng;
    uint64_t iterations;
    unode *nodes;
    uint32_t n, cap;
    thue_gmove *moves; /* max_moves */
    int32_t *path;
    int pathcap;
    void *root; /* the root state */
    void *st;   /* an iteration's scratch state */
    size_t taken; /* bytes taken from p.mem: the nodes' capacity and the move list */
    int mem_full; /* the memory budget refused the nodes to grow: the tree is full */
};

/* Bytes a node's capacity is taken for: the node and what a walk of the tree needs per
 * node (thue_guct_walk_depth's marks, heap, counts and levels), so that a tree that could
 * grow can always be shown. */
#define NODE_BYTES (sizeof(unode) + 1 + 3 * sizeof(uint32_t))

int thue_guct_new(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                  const thue_guct_params *p, thue_guct **out)
{
    if (out != NULL)
        *out = NULL;
    if (g == NULL || opt == NULL || st == NULL || p == NULL || out == NULL ||
        p->playout_limit < 1 || p->playout_limit > 100000 || !(p->c >= 0 && p->c <= 1000) ||
        p->nodes_max == 1 || p->nodes_max > THUE_GUCT_NODES_MAX)
        return THUE_EINVAL;
    thue_guct *t = calloc(1, sizeof *t);
    if (t == NULL)
        return THUE_ENOMEM;
    t->g = g;
    t->opt = opt;
    t->p = *p;
    if (t->p.nodes_max == 0)
        t->p.nodes_max = THUE_GUCT_NODES_MAX;
    t->sz = g->state_size(opt);
    t->rng = thue_mix64(p->seed ^ 0x75637421ull);
    int maxm = g->max_moves(opt);
    size_t first = (size_t)(maxm > 0 ? maxm : 1) * sizeof *t->moves + 1024 * NODE_BYTES;
    if (thue_mem_take(p->mem, first) != 0) {
        free(t);
        return THUE_ETOOBIG;
    }
    t->taken = first;
    t->moves = malloc((size_t)(maxm > 0 ? maxm : 1) * sizeof *t->moves);
    t->pathcap = 64;
    t->path = malloc((size_t)t->pathcap * sizeof *t->path);
    t->root = malloc(t->sz ? t->sz : 1);
    t->st = malloc(t->sz ? t->sz : 1);
    t->cap = 1024;
    t->nodes = malloc((size_t)t->cap * sizeof *t->nodes);
    if (t->moves == NULL || t->path == NULL || t->root == NULL || t->st == NULL ||
        t->nodes == NULL) {
        thue_guct_free(t);
        return THUE_ENOMEM;
    }
    memcpy(t->root, st, t->sz);
    memset(&t->nodes[0], 0, sizeof t->nodes[0]);
    t->nodes[0].first = -1;
    int who = g->to_move(opt, st);
    t->nodes[0].mover = (int8_t)who;
    t->nodes[0].terminal = who < 0;
    t->n = 1;
    *out = t;
    return 0;
}

void thue_guct_free(thue_guct *t)
{
    if (t == NULL)
        return;
    thue_mem_give(t->p.mem, t->taken);
    free(t->moves);
    free(t->path);
    free(t->root);
    free(t->st);
    free(t->nodes);
    free(t);
}

uint64_t thue_guct_iterations(const thue_guct *t)
{
    return t->iterations;
}

uint32_t thue_guct_nodes(const thue_guct *t)
{
    return t->n;
}

int thue_guct_mem_full(const thue_guct *t)
{
    return t->mem_full;
}

/* Makes the children of node at; 0, 1 when a limit stopped it, or -1 out of memory. */
static int expand(thue_guct *t, uint32_t at, const void *st, thue__ctl *ctl)
{
    int k = t->g->legal_moves(t->opt, st, t->moves);
    if (k <= 0)
        return 0; /* nothing to expand (an inconsistent table); playouts start here */
    if (t->n + (uint32_t)k > t->p.nodes_max || t->mem_full)
        return 0; /* the tree is full: leave it a leaf */
    if (t->n + (uint32_t)k > t->cap) {
        uint32_t ncap = t->cap;
        while (ncap < t->n + (uint32_t)k)
            ncap = ncap > UINT32_MAX / 2 ? UINT32_MAX : ncap * 2;
        if (ncap > t->p.nodes_max)
            ncap = t->p.nodes_max;
        size_t more = (size_t)(ncap - t->cap) * NODE_BYTES;
        if (thue_mem_take(t->p.mem, more) != 0) {
            t->mem_full = 1; /* past the budget: the tree stops growing, as at nodes_max */
            return 0;
        }
        unode *nn = realloc(t->nodes, (size_t)ncap * sizeof *nn);
        if (nn == NULL) {
            thue_mem_give(t->p.mem, more);
            return -1;
        }
        t->taken += more;
        t->nodes = nn;
        t->cap = ncap;
    }
    if (ctl != NULL)
        for (int i = 0; i < k; i++)
            if (thue__tick(ctl))
                return 1;
    int mover = t->g->to_move(t->opt, st);
    for (int i = 0; i < k; i++) {
        unode *c = &t->nodes[t->n + (uint32_t)i];
        memset(c, 0, sizeof *c);
        c->move = t->moves[i];
        c->first = -1;
        c->mover = (int8_t)mover;
    }
    t->nodes[at].first = (int32_t)t->n;
    t->nodes[at].nchild = k;
    t->n += (uint32_t)k;
    return 0;
}

static uint32_t select_child(const thue_guct *t, const unode *p)
{
    double logn = log(p->visits > 1 ? p->visits : 1);
    double bestv = -1.0;
    uint32_t best = (uint32_t)p->first;
    for (int32_t i = 0; i < p->nchild; i++) {
        const unode *c = &t->nodes[p->first + i];
        if (c->visits == 0)
            return (uint32_t)(p->first + i);
        double v = c->payoff / c->visits + t->p.c * sqrt(logn / c->visits);
        if (v > bestv) {
            bestv = v;
            best = (uint32_t)(p->first + i);
        }
    }
    return best;
}

/* A random playout from st (changed): the winner, -1 for a draw, -2 when the playout limit
 * (or an inconsistent table) cut it short, -3 when a limit stopped it. */
static int playout(thue_guct *t, void *st, thue__ctl *ctl)
{
    const thue_gamedef *g = t->g;
    for (int step = 0;; step++) {
        int who = g->to_move(t->opt, st);
        if (who < 0) {
            thue_gresult r;
            g->result(t->opt, st, &r);
            return r.winner;
        }
        if (step >= t->p.playout_limit)
            return -2;
        int k = g->legal_moves(t->opt, st, t->moves);
        if (ctl != NULL && thue__work(ctl, k + 1))
            return -3;
        if (k <= 0 || g->apply(t->opt, st, who, &t->moves[thue__rand_below(&t->rng, k)], NULL))
            return -2; /* an inconsistent table: score it as a cut playout */
    }
}

static double payoff_for(int outcome, int player)
{
    if (outcome < 0)
        return 0.5;
    return outcome == player ? 1.0 : 0.0;
}

/* One iteration: 0, 1 stopped (nothing recorded, the random stream rewound), -1 out of
 * memory (the same). */
static int iterate(thue_guct *t, thue__ctl *ctl)
{
    const thue_gamedef *g = t->g;
    uint64_t rng0 = t->rng;
    void *st = t->st;
    memcpy(st, t->root, t->sz);
    int depth = 0;
    uint32_t at = 0;
    t->path[depth++] = 0;
    for (;;) {
        unode *nd = &t->nodes[at];
        if (nd->terminal)
            break;
        if (nd->first < 0) {
            if (nd->visits == 0 && at != 0)
                break; /* a new leaf: play out from here first */
            int e = expand(t, at, st, ctl);
            if (e != 0)
                return e;
            nd = &t->nodes[at];
            if (nd->first < 0)
                break;
        }
        if (ctl != NULL && thue__work(ctl, nd->nchild))
            return 1; /* nothing made yet by this iteration is undone: see expand */
        uint32_t c = select_child(t, nd);
        int who = g->to_move(t->opt, st);
        if (g->apply(t->opt, st, who, &t->nodes[c].move, NULL) != 0)
            break; /* not reached with a consistent table */
        at = c;
        if (depth == t->pathcap) {
            int ncap = t->pathcap * 2;
            int32_t *np = realloc(t->path, (size_t)ncap * sizeof *np);
            if (np == NULL)
                return -1;
            t->path = np;
            t->pathcap = ncap;
        }
        t->path[depth++] = (int32_t)at;
        if (g->to_move(t->opt, st) < 0)
            t->nodes[at].terminal = 1;
    }
    int outcome = playout(t, st, ctl);
    if (outcome == -3) {
        t->rng = rng0;
        return 1;
    }
    for (int i = 0; i < depth; i++) {
        unode *nd = &t->nodes[t->path[i]];
        nd->visits += 1;
        nd->payoff += payoff_for(outcome, nd->mover);
        if (outcome != -2)
            nd->ended++;
    }
    t->iterations++;
    return 0;
}

int thue_guct_run(thue_guct *t, uint64_t n, thue__ctl *ctl, uint64_t *ran)
{
    if (ran != NULL)
        *ran = 0;
    if (t == NULL)
        return THUE_EINVAL;
    if (t->nodes[0].terminal || n == 0)
        return 0;
    /* The root's children first, so that a search stopped at once still has moves. */
    int e = 0;
    if (t->nodes[0].first < 0) {
        e = expand(t, 0, t->root, ctl);
        if (e < 0)
            return THUE_ENOMEM;
    }
    uint64_t it = 0;
    while (e == 0 && it < n) {
        if (ctl != NULL && thue__work(ctl, 1))
            break;
        e = iterate(t, ctl);
        if (e < 0)
            break;
        if (e == 0)
            it++;
    }
    if (ran != NULL)
        *ran = it;
    return e < 0 ? THUE_ENOMEM : 0;
}

int thue_guct_best(const thue_guct *t, thue_gmove *m)
{
    const unode *r = &t->nodes[0];
    if (r->terminal)
        return THUE_EOVER;
    if (r->first < 0) {
        /* No children yet (nothing run, or stopped first): the first legal move. */
        thue_gmove *mv = t->moves; /* scratch; the tree is not being run */
        if (t->g->legal_moves(t->opt, t->root, mv) <= 0)
            return THUE_EOVER;
        *m = mv[0];
        return 0;
    }
    int32_t best = r->first;
    for (int32_t i = 1; i < r->nchild; i++) {
        const unode *c = &t->nodes[r->first + i], *b = &t->nodes[best];
        /* Most visits; equal visits: the better mean; then the earlier move. */
        if (c->visits > b->visits || (c->visits == b->visits && c->visits > 0 &&
                                      c->payoff / c->visits > b->payoff / b->visits))
            best = r->first + i;
    }
    *m = t->nodes[best].move;
    return 0;
}

/* ---- the snapshot --------------------------------------------------------------------- */

/* A max-heap of node indices: more visits first, equal visits: the lower index. */
static int heap_before(const unode *nodes, uint32_t a, uint32_t b)
{
    return nodes[a].visits > nodes[b].visits || (nodes[a].visits == nodes[b].visits && a < b);
}

static void heap_push(const unode *nodes, uint32_t *h, uint32_t *len, uint32_t x)
{
    uint32_t i = (*len)++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!heap_before(nodes, x, h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static uint32_t heap_pop(const unode *nodes, uint32_t *h, uint32_t *len)
{
    uint32_t top = h[0], x = h[--*len], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *len)
            break;
        if (c + 1 < *len && heap_before(nodes, h[c + 1], h[c]))
            c++;
        if (!heap_before(nodes, h[c], x))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*len > 0)
        h[i] = x;
    return top;
}

typedef struct frame {
    uint32_t node;
    int32_t next; /* the next child to look at */
} frame;

int thue_guct_walk(const thue_guct *t, uint32_t max_nodes,
                   int (*cb)(void *arg, const thue_guct_view *v), void *arg, uint32_t *shown)
{
    return thue_guct_walk_depth(t, max_nodes, INT32_MAX, cb, arg, shown);
}

int thue_guct_walk_depth(const thue_guct *t, uint32_t max_nodes, int max_depth,
                         int (*cb)(void *arg, const thue_guct_view *v), void *arg,
                         uint32_t *shown)
{
    if (shown != NULL)
        *shown = 0;
    if (t == NULL || cb == NULL || max_nodes < 1 || max_depth < 0)
        return THUE_EINVAL;
    const unode *nodes = t->nodes;
    uint32_t want = max_nodes < t->n ? max_nodes : t->n;
    unsigned char *mark = calloc(t->n, 1);
    uint32_t *heap = malloc((size_t)t->n * sizeof *heap);
    int *nshown = calloc(t->n, sizeof *nshown);
    int32_t *level = malloc((size_t)t->n * sizeof *level);
    if (mark == NULL || heap == NULL || nshown == NULL || level == NULL) {
        free(mark);
        free(heap);
        free(nshown);
        free(level);
        return THUE_ENOMEM;
    }
    level[0] = 0;
    /* Best-first from the root: a node's visits never exceed its parent's, so the most
     * visited nodes with their parents are exactly the first `want` taken. */
    uint32_t hlen = 0, taken = 0;
    heap_push(nodes, heap, &hlen, 0);
    while (hlen > 0 && taken < want) {
        uint32_t x = heap_pop(nodes, heap, &hlen);
        mark[x] = 1;
        taken++;
        if (level[x] >= max_depth)
            continue;
        for (int32_t i = 0; i < nodes[x].nchild; i++) {
            level[nodes[x].first + i] = level[x] + 1;
            heap_push(nodes, heap, &hlen, (uint32_t)(nodes[x].first + i));
        }
    }
    free(heap);
    free(level);
    for (uint32_t x = 0; x < t->n; x++)
        for (int32_t i = 0; mark[x] && i < nodes[x].nchild; i++)
            nshown[x] += mark[nodes[x].first + i];
    /* Depth-first preorder over the marked nodes with a stack of states, each at a
     * multiple of the strictest alignment (a game's state_size need not be one: Thue's is
     * its struct plus two words of the limit's length). */
    const size_t align = _Alignof(max_align_t);
    const size_t stride = t->sz ? (t->sz + align - 1) / align * align : align;
    int cap = 64, ret = 0;
    frame *stack = malloc((size_t)cap * sizeof *stack);
    unsigned char *states = malloc((size_t)cap * stride);
    if (stack == NULL || states == NULL) {
        ret = THUE_ENOMEM;
        goto done;
    }
    int top = 0;
    memcpy(states, t->root, t->sz);
    stack[0].node = 0;
    stack[0].next = -1; /* -1: the node itself is still to be shown */
    while (top >= 0) {
        frame *f = &stack[top];
        const unode *nd = &nodes[f->node];
        void *st = states + (size_t)top * stride;
        if (f->next < 0) {
            thue_guct_view v;
            v.depth = top;
            v.move = top == 0 ? NULL : &nd->move;
            v.state = st;
            v.to_move = t->g->to_move(t->opt, st);
            v.visits = (uint64_t)nd->visits;
            v.ended = nd->ended;
            v.value = nd->visits > 0 ? nd->payoff / nd->visits : 0.0;
            v.children = nshown[f->node];
            v.hidden = nd->nchild - nshown[f->node];
            v.node = f->node;
            ret = cb(arg, &v);
            if (ret != 0)
                goto done;
            f->next = 0;
        }
        while (f->next < nd->nchild && !mark[nd->first + f->next])
            f->next++;
        if (f->next >= nd->nchild) {
            top--;
            continue;
        }
        uint32_t c = (uint32_t)(nd->first + f->next);
        f->next++;
        if (top + 1 == cap) {
            int ncap = cap * 2;
            frame *ns = realloc(stack, (size_t)ncap * sizeof *ns);
            if (ns == NULL) {
                ret = THUE_ENOMEM;
                goto done;
            }
            stack = ns;
            unsigned char *nst = realloc(states, (size_t)ncap * stride);
            if (nst == NULL) {
                ret = THUE_ENOMEM;
                goto done;
            }
            states = nst;
            cap = ncap;
            st = states + (size_t)top * stride;
        }
        void *cst = states + (size_t)(top + 1) * stride;
        memcpy(cst, st, t->sz);
        int who = t->g->to_move(t->opt, cst);
        (void)t->g->apply(t->opt, cst, who, &nodes[c].move, NULL); /* made from legal_moves */
        top++;
        stack[top].node = c;
        stack[top].next = -1;
    }
    if (shown != NULL)
        *shown = taken;
done:
    free(stack);
    free(states);
    free(mark);
    free(nshown);
    return ret;
}

/* ---- export ---------------------------------------------------------------------------- */

char *thue_guct_name(json_t *j)
{
    char *text = thue_game_dump(j);
    if (text == NULL)
        return NULL;
    char *w = text;
    for (const char *r = text; *r; r++)
        if (*r != '"')
            *w++ = *r;
    *w = '\0';
    return text;
}

typedef struct exporter {
    const thue_guct *t;
    FILE *f;
    thue_guct_format format;
    int err;
} exporter;

static void put_int(FILE *f, uint64_t v)
{
    uint32_t x = v > INT32_MAX ? (uint32_t)INT32_MAX : (uint32_t)v;
    unsigned char b[4] = {(unsigned char)x, (unsigned char)(x >> 8), (unsigned char)(x >> 16),
                          (unsigned char)(x >> 24)};
    fwrite(b, 1, 4, f);
}

static void put_double(FILE *f, double d)
{
    uint64_t x;
    memcpy(&x, &d, sizeof x);
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(x >> (8 * i));
    fwrite(b, 1, 8, f);
}

static void put_string(FILE *f, const char *s)
{
    put_int(f, strlen(s));
    fwrite(s, 1, strlen(s), f);
}

static int export_node(void *arg, const thue_guct_view *v)
{
    exporter *x = arg;
    const thue_gamedef *g = x->t->g;
    char *state = thue_guct_name(g->state_json(x->t->opt, v->state));
    char *move = v->move ? thue_guct_name(g->move_json(x->t->opt, v->move)) : NULL;
    if (state == NULL || (v->move != NULL && move == NULL)) {
        free(state);
        free(move);
        x->err = THUE_ENOMEM;
        return 1;
    }
    if (x->format == THUE_GUCT_CSV) {
        /* A name is quoted when it holds a comma (another game's move and state JSON do);
         * names never hold a quote. */
        const char *m = move ? move : "root";
        const char *qm = strchr(m, ',') ? "\"" : "";
        const char *q = strchr(state, ',') ? "\"" : "";
        fprintf(x->f, "%s%s%s,%llu,%llu,%.6f,%s%s%s,%d\n", qm, m, qm,
                (unsigned long long)v->visits, (unsigned long long)v->ended, v->value, q, state, q,
                v->children);
    } else {
        if (move != NULL) {
            put_string(x->f, move);
            put_int(x->f, v->visits);
            put_int(x->f, v->ended);
            put_double(x->f, v->value);
        }
        put_string(x->f, state);
        put_int(x->f, (uint64_t)v->children);
    }
    free(state);
    free(move);
    return 0;
}

int thue_guct_export(const thue_guct *t, uint32_t max_nodes, FILE *f, thue_guct_format format)
{
    if (t == NULL || f == NULL || max_nodes < 1 ||
        (format != THUE_GUCT_CSV && format != THUE_GUCT_BINARY))
        return THUE_EINVAL;
    exporter x = {t, f, format, 0};
    if (format == THUE_GUCT_CSV)
        fputs("move,visits,visits2,payoff,state,children\n", f);
    int rc = thue_guct_walk(t, max_nodes, export_node, &x, NULL);
    if (x.err != 0)
        return x.err;
    if (rc != 0)
        return rc;
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}

int thue_guct_check(const thue_guct *t)
{
    const unode *r = &t->nodes[0];
    if ((uint64_t)r->visits != t->iterations)
        return 0;
    for (uint32_t x = 0; x < t->n; x++) {
        const unode *nd = &t->nodes[x];
        double sum = 0;
        for (int32_t i = 0; i < nd->nchild; i++)
            sum += t->nodes[nd->first + i].visits;
        if (sum > nd->visits || (double)nd->ended > nd->visits)
            return 0;
        if (x == 0 && nd->nchild > 0 && sum != nd->visits)
            return 0;
    }
    return 1;
}
