/*
 * uct.c: the uct bot, Monte Carlo tree search with UCB1 (RULES.md; docs/uct.md has the
 * algorithm, its parameters and the two tree file formats byte by byte).
 *
 * Each part grows a tree of its own from the root position. A node is a position:
 * a builder node (builder to move; its children are the positions 0..len) or a painter
 * node (painter to paint at a chosen position I; its children are the symbols safe at I,
 * and with none it is terminal: the round ends in a repetition). One iteration selects a
 * path by UCB1 from the root, adds one node (an untried move of the node it stopped at,
 * untried moves being taken in a random order), plays the rest of the round at random
 * from there and backs the reward up the path. The reward is the number of safe
 * insertions made from the root over the whole continuation, tree and playout, divided
 * by the horizon H (the playout limit, and no more than the points the match still
 * allows): a number in [0, 1], always from the painter's view. A continuation stops at
 * a repetition or after H insertions, so a builder node whose path already holds H
 * insertions is terminal too. Besides visits and the payoff sum, a node counts the
 * visits whose continuation ended in a repetition (the export's "visits2").
 *
 * Invariants:
 *   - nodes live in one pool per part and link by index (0 is the root, and "none" as a
 *     link, since the root is nobody's child); children are sorted by move;
 *   - every node but the root has visits >= 1 between iterations (it is created in the
 *     iteration that visits it; an iteration cut short by a limit removes the node it
 *     made), and a node's visits are >= the sum of its children's;
 *   - words are not stored: an iteration replays its moves on one buffer that starts
 *     as the root word;
 *   - a builder node of word length len is fully expanded when it has len+1 children,
 *     a painter node when its set of untried safe symbols is empty;
 *   - a part holds at most its share of UCT_NODES_TOTAL nodes, and no more than its
 *     memory account allows (the search's, its owner's and the server's budgets:
 *     search/budget.h); past that, iterations go on without expanding (the playout
 *     starts where the new node would have been).
 * Determinism: everything random comes from the part's own SplitMix64 state, seeded from
 * the search's seed and the part's index, so a fixed seed and iteration count (or node
 * budget) give the same tree, move and node count on every machine.
 */
#include "games/thue/bots/uct.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/thue/engine/word.h"
#include "games/thue/bots/bot_internal.h"

/* Nodes all parts of one search may hold together (48 bytes each: about 200 MB). Past
 * its share a part stops expanding and goes on simulating from the tree's frontier. */
#define UCT_NODES_TOTAL ((uint32_t)1 << 22)
#define UCT_NODES_PART_MIN ((uint32_t)1 << 16)

typedef struct node {
    double payoff;   /* sum of rewards, painter's view */
    uint64_t visits; /* n_i */
    uint64_t reps;   /* visits whose continuation ended in a repetition */
    uint32_t first;  /* first child (lowest move), 0: none */
    uint32_t next;   /* next sibling (higher move), 0: none */
    uint32_t move;   /* the move from the parent: a position or a symbol */
    uint32_t nchild;
    /* painter: the safe symbols not yet expanded (bit c); builder: the expansion order,
     * offset | stride << 32 (move t is (offset + t * stride) mod (len+1)), 0 = not drawn */
    uint64_t todo;
} node;

typedef struct uct_tree {
    node *pool;
    uint32_t count, cap, limit; /* nodes used, allocated, allowed */
    int depth;                  /* deepest node, in moves (plies) from the root */
    thue_mem *mem;              /* the memory account the pool is taken from */
    size_t taken;
} uct_tree;

typedef struct run {
    const thue_bot_search *s;
    uct_tree *t;
    thue__ctl *ctl;
    uint8_t *w;     /* the word of the current iteration: room for n + H + 1 */
    uint32_t *path; /* the nodes of the current iteration's tree part */
    uint64_t rng;
    int H;
    double c;
} run;

static int is_builder(thue_role r)
{
    return r == THUE_ROLE_BUILDER;
}

/* ---- the pool ---------------------------------------------------------------------- */

static uct_tree *tree_new(uint32_t limit, thue_mem *mem)
{
    uct_tree *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->cap = limit < 4096 ? limit : 4096;
    t->limit = limit;
    t->mem = mem;
    t->taken = (size_t)t->cap * sizeof(node);
    if (thue_mem_take(mem, t->taken) != 0) {
        /* Not even the first nodes: a tree of the root alone (the search simulates from
         * it), whose one node is not counted. */
        t->taken = 0;
        t->cap = t->limit = 1;
    }
    t->pool = calloc(t->cap, sizeof(node));
    if (t->pool == NULL) {
        thue_mem_give(mem, t->taken);
        free(t);
        return NULL;
    }
    t->count = 1; /* the root, all zero */
    return t;
}

void thue__uct_tree_free(void *tree)
{
    uct_tree *t = tree;
    if (t == NULL)
        return;
    thue_mem_give(t->mem, t->taken);
    free(t->pool);
    free(t);
}

/* Makes room for one more node: 0, or 1 when the tree may not grow (its node limit, or
 * the memory account or realloc refusing more: then the limit comes down to what the
 * tree holds, and iterations go on simulating from its frontier). */
static int reserve(uct_tree *t)
{
    if (t->count < t->cap)
        return 0;
    if (t->count >= t->limit)
        return 1;
    uint32_t cap = t->cap > t->limit / 2 ? t->limit : t->cap * 2;
    size_t more = (size_t)(cap - t->cap) * sizeof(node);
    node *pool = NULL;
    if (thue_mem_take(t->mem, more) == 0) {
        pool = realloc(t->pool, (size_t)cap * sizeof(node));
        if (pool == NULL)
            thue_mem_give(t->mem, more);
    }
    if (pool == NULL) {
        t->limit = t->count;
        return 1;
    }
    t->taken += more;
    t->pool = pool;
    t->cap = cap;
    return 0;
}

/* A new child of `parent`, linked in move order (reserve made room for it). Its index.
 * Invalidates node pointers (the pool may move). */
static uint32_t add_child(uct_tree *t, uint32_t parent, uint32_t move, uint64_t todo)
{
    uint32_t id = t->count++;
    node *x = &t->pool[id];
    memset(x, 0, sizeof *x);
    x->move = move;
    x->todo = todo;
    uint32_t *link = &t->pool[parent].first;
    while (*link != 0 && t->pool[*link].move < move)
        link = &t->pool[*link].next;
    x->next = *link;
    *link = id;
    t->pool[parent].nchild++;
    return id;
}

/* Undoes add_child of the newest node `id`. */
static void remove_newest(uct_tree *t, uint32_t parent, uint32_t id)
{
    uint32_t *link = &t->pool[parent].first;
    while (*link != id)
        link = &t->pool[*link].next;
    *link = t->pool[id].next;
    t->pool[parent].nchild--;
    t->count--;
}

/* ---- moves ------------------------------------------------------------------------- */

/* The symbols safe at position i of the clean word w[0..len). */
static uint64_t safe_mask(const thue_bot_search *s, const uint8_t *w, int len, int i)
{
    uint64_t m = 0;
    for (int c = 0; c < s->pos.k; c++)
        if (thue_check_insert(w, len, s->pos.variant, i, c, NULL) == 0)
            m |= (uint64_t)1 << c;
    return m;
}

/* A uniformly random member of the non-empty set m. */
static int random_bit(uint64_t *rng, uint64_t m)
{
    for (int j = thue__rand_below(rng, __builtin_popcountll(m)); j > 0; j--)
        m &= m - 1;
    return __builtin_ctzll(m);
}

/* A uniformly random symbol safe at i, or -1 when none is: the first safe symbol of a
 * random order, which is uniform over the safe ones and usually needs few checks. */
static int random_safe(const thue_bot_search *s, uint64_t *rng, const uint8_t *w, int len, int i)
{
    uint8_t sym[64];
    int k = s->pos.k;
    for (int c = 0; c < k; c++)
        sym[c] = (uint8_t)c;
    for (int left = k; left > 0; left--) {
        int j = thue__rand_below(rng, left);
        int c = sym[j];
        if (thue_check_insert(w, len, s->pos.variant, i, c, NULL) == 0)
            return c;
        sym[j] = sym[left - 1];
    }
    return -1;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The builder's expansion order over m = len+1 positions: a random offset and a random
 * stride prime to m, so that moves t = 0..m-1 visit every position once. */
static uint64_t draw_order(uint64_t *rng, uint32_t m)
{
    uint64_t off = (uint64_t)thue__rand_below(rng, (int)m), stride = 1;
    if (m > 2)
        do
            stride = 1 + (uint64_t)thue__rand_below(rng, (int)m - 1);
        while (gcd64(stride, m) != 1);
    return off | stride << 32;
}

/* UCB1 over the children of a fully expanded node: the mover's average reward plus
 * c * sqrt(ln N / n_i). Ties go to the lowest move. */
static uint32_t select_child(const uct_tree *t, uint32_t parent, int builder, double c)
{
    const node *p = &t->pool[parent];
    double cl = c * sqrt(log((double)p->visits)), best = -INFINITY;
    uint32_t arg = p->first;
    for (uint32_t ch = p->first; ch != 0; ch = t->pool[ch].next) {
        const node *x = &t->pool[ch];
        double n = (double)x->visits, mean = x->payoff / n;
        double v = (builder ? 1.0 - mean : mean) + cl / sqrt(n);
        if (v > best) {
            best = v;
            arg = ch;
        }
    }
    return arg;
}

/* ---- one iteration ----------------------------------------------------------------- */

/* Random play from a state until a repetition or H insertions. `first` (when non-zero)
 * is the known set of safe symbols for a painter to move. 0, or 1 when a limit stopped
 * it. */
static int playout(run *r, int builder, int at, int *len, int *ins, int *rep, uint64_t first,
                   int have_first)
{
    const thue_bot_search *s = r->s;
    while (*ins < r->H) {
        /* A step's checks cost about the word's length. */
        if (thue__work(r->ctl, 1 + *len / 16))
            return 1;
        if (builder) {
            at = thue__rand_below(&r->rng, *len + 1);
            builder = 0;
            continue;
        }
        int c;
        if (have_first)
            c = first ? random_bit(&r->rng, first) : -1;
        else
            c = random_safe(s, &r->rng, r->w, *len, at);
        have_first = 0;
        if (c < 0) {
            *rep = 1;
            return 0;
        }
        thue__insert(r->w, *len, at, c);
        (*len)++;
        (*ins)++;
        builder = 1;
    }
    return 0;
}

/* One iteration: selection, expansion, playout, backpropagation. 0, or 1 when a limit
 * (or running out of memory) stopped it, in which case it left the tree as it was. */
static int iterate(run *r)
{
    const thue_bot_search *s = r->s;
    uct_tree *t = r->t;
    int len = s->pos.n, ins = 0, at = s->pos.index, rep = 0, plen = 0, sim = 1;
    int builder = is_builder(s->pos.role);
    uint32_t cur = 0, made = 0, made_parent = 0;
    uint64_t first = 0;
    int have_first = 0, made_sym = -1;
    memcpy(r->w, s->word, (size_t)len);
    r->path[plen++] = 0;
    for (;;) {
        node *x = &t->pool[cur];
        if (builder) {
            if (ins >= r->H) { /* the horizon: nothing to simulate */
                sim = 0;
                break;
            }
            uint32_t m = (uint32_t)len + 1;
            if (x->nchild < m) {
                if (reserve(t))
                    break; /* memory cap: simulate from here */
                x = &t->pool[cur];
                if (x->todo == 0)
                    x->todo = draw_order(&r->rng, m);
                uint32_t mv =
                    (uint32_t)(((x->todo & 0xffffffffu) + (uint64_t)x->nchild * (x->todo >> 32)) %
                               m);
                if (thue__tick(r->ctl))
                    return 1;
                first = safe_mask(s, r->w, len, (int)mv);
                made = add_child(t, cur, mv, first);
                made_parent = cur;
                cur = made;
                have_first = 1;
                at = (int)mv;
                builder = 0;
                r->path[plen++] = cur;
                break;
            }
            if (thue__work(r->ctl, x->nchild))
                return 1;
            cur = select_child(t, cur, 1, r->c);
            at = (int)t->pool[cur].move;
            builder = 0;
        } else {
            if (x->nchild == 0 && x->todo == 0) { /* nothing safe: the round ends */
                rep = 1;
                sim = 0;
                break;
            }
            if (x->todo != 0) {
                if (reserve(t))
                    break;
                x = &t->pool[cur];
                int c = random_bit(&r->rng, x->todo);
                if (thue__tick(r->ctl))
                    return 1;
                made = add_child(t, cur, (uint32_t)c, 0);
                t->pool[cur].todo &= ~((uint64_t)1 << c);
                made_parent = cur;
                made_sym = c;
                cur = made;
                thue__insert(r->w, len, at, c);
                len++;
                ins++;
                builder = 1;
                r->path[plen++] = cur;
                break;
            }
            if (thue__work(r->ctl, x->nchild))
                return 1;
            cur = select_child(t, cur, 0, r->c);
            thue__insert(r->w, len, at, (int)t->pool[cur].move);
            len++;
            ins++;
            builder = 1;
        }
        r->path[plen++] = cur;
    }
    if (sim && playout(r, builder, at, &len, &ins, &rep, first, have_first)) {
        if (made != 0) { /* stopped mid-playout: forget the node of this iteration */
            remove_newest(t, made_parent, made);
            if (made_sym >= 0)
                t->pool[made_parent].todo |= (uint64_t)1 << made_sym;
            r->ctl->nodes--;
        }
        return 1;
    }
    if (made != 0 && plen - 1 > t->depth)
        t->depth = plen - 1;
    double reward = (double)ins / (double)r->H;
    for (int j = 0; j < plen; j++) {
        node *x = &t->pool[r->path[j]];
        x->visits++;
        x->payoff += reward;
        x->reps += (uint64_t)rep;
    }
    return 0;
}

/* ---- the bot ----------------------------------------------------------------------- */

void thue__uct_run(thue_bot_search *s, int p, thue__ctl *ctl)
{
    thue__part *part = &s->part[p];
    uint32_t limit = UCT_NODES_TOTAL / (uint32_t)s->nparts;
    uct_tree *t = tree_new(limit > UCT_NODES_PART_MIN ? limit : UCT_NODES_PART_MIN, ctl->mem);
    if (t == NULL) {
        part->oom = 1;
        return;
    }
    part->tree = t;
    int builder = is_builder(s->pos.role), n = s->pos.n;
    if (!builder)
        t->pool[0].todo = s->rootmap[s->pos.index];
    if (s->ncand == 0)
        return; /* a painter with nothing safe: nothing to search */
    int H = s->spec.playout_limit;
    if (s->pos.remaining > 0 && s->pos.remaining < H)
        H = s->pos.remaining;
    if (H > THUE_WORD_MAX - n) /* the engine checks words up to THUE_WORD_MAX */
        H = THUE_WORD_MAX - n;
    run r = {s, t, ctl, NULL, NULL, 0, H, s->spec.exploration};
    r.rng = thue_mix64(s->seed ^ (uint64_t)(p + 1) * 0x9e3779b97f4a7c15ULL);
    r.w = malloc((size_t)n + (size_t)H + 1);
    r.path = malloc(((size_t)2 * (size_t)H + 2) * sizeof(uint32_t));
    if (r.w == NULL || r.path == NULL) {
        part->oom = 1;
        goto done;
    }
    uint64_t want = s->spec.iterations / (uint64_t)s->nparts +
                    ((uint64_t)p < s->spec.iterations % (uint64_t)s->nparts);
    uint64_t done = 0;
    while (s->spec.iterations == 0 || done < want) {
        if (thue__work(ctl, 1))
            break;
        if (iterate(&r))
            break;
        done++;
    }
    part->iterations = done;
    part->depth = t->depth;
    for (uint32_t ch = t->pool[0].first; ch != 0; ch = t->pool[ch].next) {
        const node *x = &t->pool[ch];
        int c =
            builder
                ? (int)x->move
                : __builtin_popcountll(s->rootmap[s->pos.index] & (((uint64_t)1 << x->move) - 1));
        part->visits[c] = (double)x->visits;
        part->payoff[c] = x->payoff;
    }
done:
    free(r.path);
    free(r.w);
}

void thue__uct_choose(thue_bot_search *s, thue_bot_result *out)
{
    int depth = 0;
    for (int p = 0; p < s->nparts; p++)
        if (s->part[p].depth > depth)
            depth = s->part[p].depth;
    double total = 0;
    for (int p = 0; p < s->nparts && s->ncand > 0; p++)
        for (int x = 0; x < s->ncand; x++)
            total += s->part[p].visits[x];
    if (s->ncand == 0) {
        out->move = 0; /* a painter with nothing safe: every symbol ends the round */
    } else if (total == 0) {
        thue__greedy_choose(s, out); /* stopped before a single iteration */
    } else {
        int builder = is_builder(s->pos.role), best = -1;
        double bv = 0, bm = 0;
        for (int x = 0; x < s->ncand; x++) {
            double v = 0, w = 0;
            for (int p = 0; p < s->nparts; p++) {
                v += s->part[p].visits[x];
                w += s->part[p].payoff[x];
            }
            /* the mover's average: the builder wants the painter's payoff low */
            double m = v > 0 ? (builder ? 1.0 - w / v : w / v) : -1.0;
            if (best < 0 || v > bv || (v == bv && m > bm)) {
                best = x;
                bv = v;
                bm = m;
            }
        }
        out->move = s->cand[best];
    }
    out->exact = 0;
    out->depth = depth;
    out->value = -1;
}

/* ---- tree export ------------------------------------------------------------------- */

typedef struct writer {
    FILE *f;
    thue_tree_format fmt;
    int failed;
    char *text; /* the state name being built */
    size_t textcap;
} writer;

static void put_bytes(writer *wr, const void *p, size_t n)
{
    if (!wr->failed && n > 0 && fwrite(p, 1, n, wr->f) != n)
        wr->failed = 1;
}

static void put_u32(writer *wr, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put_bytes(wr, b, 4);
}

/* A count as a 4-byte int, saturating at INT32_MAX. */
static void put_count(writer *wr, uint64_t v)
{
    put_u32(wr, v > INT32_MAX ? (uint32_t)INT32_MAX : (uint32_t)v);
}

static void put_double(writer *wr, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    put_u32(wr, (uint32_t)v);
    put_u32(wr, (uint32_t)(v >> 32));
}

static void put_string(writer *wr, const char *str)
{
    size_t n = strlen(str);
    put_u32(wr, (uint32_t)n);
    put_bytes(wr, str, n);
}

/* The state name of a node into wr->text: the word, then "/b" or "/p@I". */
static void state_name(writer *wr, uint8_t *w, int len, int builder, int at)
{
    thue_word tw = {w, len, len};
    int tl = thue_word_format(&tw, THUE_FMT_AUTO, wr->text, wr->textcap);
    if (tl < 0)
        tl = 0; /* cannot happen: AUTO never fails */
    if (builder)
        snprintf(wr->text + tl, wr->textcap - (size_t)tl, "/b");
    else
        snprintf(wr->text + tl, wr->textcap - (size_t)tl, "/p@%d", at);
}

/* One node: its edge (move, counters, average) and its state. */
static void emit(writer *wr, const node *x, const char *move, int children)
{
    double avg = x->visits ? x->payoff / (double)x->visits : 0.0;
    if (wr->fmt == THUE_TREE_CSV) {
        if (wr->failed)
            return;
        const char *q = strchr(wr->text, ',') ? "\"" : "";
        if (fprintf(wr->f, "%s,%llu,%llu,%.6f,%s%s%s,%d\n", move, (unsigned long long)x->visits,
                    (unsigned long long)x->reps, avg, q, wr->text, q, children) < 0)
            wr->failed = 1;
        return;
    }
    if (move != NULL) { /* the root has no edge in the binary format */
        put_string(wr, move);
        put_count(wr, x->visits);
        put_count(wr, x->reps);
        put_double(wr, avg);
    }
    put_string(wr, wr->text);
    put_count(wr, (uint64_t)children);
}

typedef struct frame {
    uint32_t node, child; /* the node, and its next child to write (0: done) */
    int builder, at;      /* who moves at the node; the painter's position */
} frame;

int thue_uct_export_tree(const thue_bot_search *s, FILE *f, thue_tree_format format)
{
    if (s == NULL || f == NULL || s->spec.kind != THUE_BOT_UCT || s->part[0].tree == NULL ||
        (format != THUE_TREE_CSV && format != THUE_TREE_BINARY))
        return THUE_EINVAL;
    const uct_tree *t = s->part[0].tree;
    int n = s->pos.n, maxlen = n + t->depth / 2 + 2;
    writer wr = {f, format, 0, NULL, (size_t)maxlen * 3 + 32};
    uint8_t *w = malloc((size_t)maxlen + 1);
    frame *st = malloc(((size_t)t->depth + 2) * sizeof(frame));
    wr.text = malloc(wr.textcap);
    int err = THUE_ENOMEM;
    if (w == NULL || st == NULL || wr.text == NULL)
        goto done;
    memcpy(w, s->word, (size_t)n);
    int len = n, sp = 0;
    frame root = {0, t->pool[0].first, is_builder(s->pos.role), s->pos.index};
    if (format == THUE_TREE_CSV && fprintf(f, "move,visits,visits2,payoff,state,children\n") < 0)
        wr.failed = 1;
    state_name(&wr, w, len, root.builder, root.at);
    emit(&wr, &t->pool[0], format == THUE_TREE_CSV ? "root" : NULL, (int)t->pool[0].nchild);
    st[sp++] = root;
    while (sp > 0 && !wr.failed) {
        frame *top = &st[sp - 1];
        if (top->child == 0) {
            if (sp > 1 && top->builder) /* leaving a painter's symbol: take it back */
                thue__remove(w, len--, st[sp - 2].at);
            sp--;
            continue;
        }
        const node *x = &t->pool[top->child];
        top->child = x->next;
        char move[16];
        frame fr = {(uint32_t)(x - t->pool), x->first, !top->builder, top->at};
        if (top->builder) {
            fr.at = (int)x->move;
            snprintf(move, sizeof move, "p%u", x->move);
        } else {
            thue__insert(w, len++, top->at, (int)x->move);
            snprintf(move, sizeof move, "s%u", x->move);
        }
        state_name(&wr, w, len, fr.builder, fr.at);
        emit(&wr, x, move, (int)x->nchild);
        st[sp++] = fr;
    }
    if (!wr.failed && (fflush(f) != 0 || ferror(f)))
        wr.failed = 1;
    err = wr.failed ? -1 : 0;
done:
    free(wr.text);
    free(st);
    free(w);
    return err;
}
