/*
 * dots_bots.c: dots and boxes' own bots, "heuristic" and "strong" (game.h's `bots`).
 *
 * heuristic is the Romanian source's: it sorts the undrawn lines into three kinds and
 *   (1) draws a line that completes a box if there is one (the one completing most),
 *   (2) else a "neutral" line, one that gives no box its third side, at random,
 *   (3) else the line that hands the opponent the fewest boxes: after it, the boxes the
 *       opponent can take one after another (following boxes with two sides drawn).
 *   Ties are broken at random from the seed.
 *
 * strong plays the endgame theory of chains and loops:
 *   - exact play (dots_solve.c) whenever the board has at most 64 lines and the
 *     solver decides the position within a node budget (in practice: 3x3 and smaller
 *     from the start, bigger boards once about 30 lines are left);
 *   - otherwise: a free box (one whose taking gives no other box a third side) is taken;
 *     a box at the head of a chain is taken, except that the last two boxes of a chain
 *     (four of a loop) are declined (double-dealing: the line beyond them is drawn, the
 *     opponent gets them and must open the next chain) when the model below says that
 *     keeping control wins more;
 *   - while neutral lines remain, a neutral line: once few are left (14), the one a
 *     negamax over the neutral lines alone picks, each end of that phase scored by the
 *     model below for the player who must then open a chain (this steers the number of
 *     long chains: the long-chain rule); with more, or past its node budget, at random;
 *   - when none is left, the chain or loop to open is chosen by the model: the position
 *     is cut into chains and loops (boxes with two undrawn sides, following their
 *     undrawn lines; boxes with three or four undrawn sides and the border end them),
 *     and the value of "who must open next" is computed exactly over that multiset:
 *     the player who opens a chain of n >= 3 (loop of n) lets the other either take it
 *     all and open the next, or take n - 2 (n - 4) and hand back 2 (4) so that the
 *     opener must open the next. Chains of one and two boxes are opened so that they
 *     cannot be declined (a two-chain in the middle).
 *   The long-chain rule follows from that value: control passes to whoever the parity of
 *   the chains favours, and the model decides when to keep it.
 *
 * All state is on the stack; the exact solver allocates its own table.
 */
#include <string.h>

#include "base/rng.h"
#include "games/dots/dots.h"

/* Undrawn lines below which the strong bot asks the exact solver, and its budget. */
#define STRONG_EXACT_LINES 34
#define STRONG_EXACT_NODES 3000000ull
#define MODEL_COMPONENTS_MAX 24
#define MODEL_CALLS_MAX 200000

typedef struct board {
    int R, C, nl, nb;
    uint64_t d[THUE_DOTS_WORDS];
} board;

static void board_of(board *B, const thue_dots_opt *o, const thue_dots_state *s)
{
    B->R = o->rows, B->C = o->cols;
    B->nl = thue_dots_nlines(B->R, B->C);
    B->nb = B->R * B->C;
    memcpy(B->d, s->drawn, sizeof B->d);
}

static int drawn(const board *B, int l)
{
    return thue_dots_bit(B->d, l);
}
static void draw(board *B, int l)
{
    B->d[l >> 6] |= (uint64_t)1 << (l & 63);
}
static int sides(const board *B, int b)
{
    return thue_dots_count(B->R, B->C, B->d, b);
}
/* The undrawn side of box b (with exactly one), or the first undrawn other than `not`. */
static int undrawn_side(const board *B, int b, int not )
{
    int s[4];
    thue_dots_sides(B->R, B->C, b, s);
    for (int i = 0; i < 4; i++)
        if (!drawn(B, s[i]) && s[i] != not )
            return s[i];
    return -1;
}
static int across(const board *B, int l, int b)
{
    int bb[2];
    thue_dots_line_boxes(B->R, B->C, l, bb);
    return bb[0] == b ? bb[1] : bb[0];
}
static int completes(const board *B, int l)
{
    int bb[2], k = 0;
    thue_dots_line_boxes(B->R, B->C, l, bb);
    for (int i = 0; i < 2; i++)
        if (bb[i] >= 0 && sides(B, bb[i]) == 3)
            k++;
    return k;
}
/* 1: l completes nothing and gives no box a third side. */
static int neutral(const board *B, int l)
{
    int bb[2];
    thue_dots_line_boxes(B->R, B->C, l, bb);
    for (int i = 0; i < 2; i++)
        if (bb[i] >= 0 && sides(B, bb[i]) >= 2)
            return 0;
    return 1;
}

/* Takes every box that can be taken, one after another: the boxes taken. */
static int take_all(board *B)
{
    int n = 0, any = 1;
    while (any) {
        any = 0;
        for (int b = 0; b < B->nb; b++)
            if (sides(B, b) == 3) {
                int l = undrawn_side(B, b, -1);
                n += completes(B, l);
                draw(B, l);
                any = 1;
            }
    }
    return n;
}

static int pick(uint64_t *rng, const int *v, int n)
{
    return v[thue_splitmix64(rng) % (uint64_t)n];
}

int thue__dots_handed(const thue_dots_opt *o, const thue_dots_state *st, int l)
{
    board B;
    board_of(&B, o, st);
    draw(&B, l);
    return take_all(&B);
}

int thue__dots_heuristic(const thue_dots_opt *o, const thue_dots_state *st, uint64_t seed)
{
    board B;
    board_of(&B, o, st);
    uint64_t rng = seed ^ 0x5EEDD075ull;
    int cand[THUE_DOTS_LINES_MAX], n = 0, bestk = 0;
    for (int l = 0; l < B.nl; l++) {
        if (drawn(&B, l))
            continue;
        int k = completes(&B, l);
        if (k > bestk)
            bestk = k, n = 0;
        if (k > 0 && k == bestk)
            cand[n++] = l;
    }
    if (n > 0)
        return pick(&rng, cand, n);
    for (int l = 0; l < B.nl; l++)
        if (!drawn(&B, l) && neutral(&B, l))
            cand[n++] = l;
    if (n > 0)
        return pick(&rng, cand, n);
    int fewest = 1 << 30;
    for (int l = 0; l < B.nl; l++) {
        if (drawn(&B, l))
            continue;
        int h = thue__dots_handed(o, st, l);
        if (h < fewest)
            fewest = h, n = 0;
        if (h == fewest)
            cand[n++] = l;
    }
    return n > 0 ? pick(&rng, cand, n) : -1;
}

/* ---- the chain and loop model --------------------------------------------------------- */

typedef struct comp {
    int loop;      /* 1: a loop */
    int n;         /* boxes */
    int open_line; /* the line that opens it as the model assumes */
} comp;

/* The chains and loops of B (no box takeable): their count in c (at most max). Boxes with
 * two undrawn sides form them; the border and other boxes end chains. */
static int components(const board *B, comp *c, int max)
{
    char seen[THUE_DOTS_BOXES_MAX];
    memset(seen, 0, sizeof seen);
    int nc = 0;
    for (int b0 = 0; b0 < B->nb; b0++) {
        if (seen[b0] || sides(B, b0) != 2)
            continue;
        /* Walk both ways from b0: lines[] in order, boxes counted. */
        int ends[2] = {-1, -1}, n = 1, loop = 0;
        seen[b0] = 1;
        int first = undrawn_side(B, b0, -1);
        int second = undrawn_side(B, b0, first);
        int dir_line[2] = {first, second};
        int mid = -1;
        for (int d = 0; d < 2 && !loop; d++) {
            int b = b0, l = dir_line[d];
            for (;;) {
                int nb = across(B, l, b);
                if (nb == b0) {
                    loop = 1;
                    break;
                }
                if (nb < 0 || sides(B, nb) != 2 || seen[nb]) {
                    ends[d] = l;
                    break;
                }
                seen[nb] = 1;
                n++;
                if (n == 2)
                    mid = l;
                b = nb;
                l = undrawn_side(B, nb, l);
            }
        }
        if (nc == max)
            return -1;
        c[nc].loop = loop;
        c[nc].n = n;
        /* A two-chain is opened in its middle (then it cannot be declined); a longer one
         * or a loop at an end. */
        c[nc].open_line = loop ? first : (n == 2 && mid >= 0) ? mid : ends[0];
        if (n == 2 && !loop && mid < 0)
            c[nc].open_line = dir_line[0] == ends[0] ? dir_line[1] : dir_line[0];
        nc++;
    }
    return nc;
}

typedef struct model {
    int calls;
} model;

/* The net boxes the player who must open next wins over the components (c[0..n-1] with
 * used[] marking those gone), both sides playing the model's choices. */
static int model_value(model *M, const comp *c, char *used, int n, int *choice)
{
    int best = -100000, left = 0;
    if (++M->calls > MODEL_CALLS_MAX)
        return 0;
    for (int i = 0; i < n; i++) {
        if (used[i])
            continue;
        left++;
        int dup = 0;
        for (int j = 0; j < i; j++)
            if (!used[j] && c[j].loop == c[i].loop && c[j].n == c[i].n)
                dup = 1;
        if (dup)
            continue;
        used[i] = 1;
        int g = model_value(M, c, used, n, NULL);
        used[i] = 0;
        int k = c[i].n;
        int take = k + g; /* for the receiver: take all, open the next */
        int keep = -100000;
        if (c[i].loop)
            keep = k - 8 - g;
        else if (k >= 3)
            keep = k - 4 - g;
        int recv = take > keep ? take : keep;
        if (-recv > best) {
            best = -recv;
            if (choice)
                *choice = i;
        }
    }
    return left == 0 ? 0 : best;
}

/* The model's value for the player who must open next in B (no box takeable): 0 and
 * *v, *open (the line to draw), or -1 when the model does not fit. */
static int model_of(const board *B, int *v, int *open)
{
    comp c[MODEL_COMPONENTS_MAX];
    int n = components(B, c, MODEL_COMPONENTS_MAX);
    if (n < 0)
        return -1;
    char used[MODEL_COMPONENTS_MAX];
    memset(used, 0, sizeof used);
    model M = {0};
    int ch = -1;
    *v = model_value(&M, c, used, n, &ch);
    if (M.calls > MODEL_CALLS_MAX)
        return -1;
    if (open)
        *open = ch >= 0 ? c[ch].open_line : -1;
    return 0;
}

/* ---- the neutral phase ------------------------------------------------------------------- */

/* While neutral lines remain nobody takes a box, and whoever runs out of them first must
 * open a chain: a negamax over the neutral lines alone, each leaf (no neutral line left)
 * scored by the model for the player who must open. This is how the strong bot steers
 * the number of long chains (the long-chain rule) before the endgame. */
typedef struct neutral_search {
    long nodes, budget;
    const thue_gctl *ctl;
    int stopped;
} neutral_search;

#define NEUTRAL_NODES 60000
#define NEUTRAL_LINES_MAX 14

static int neutral_lines(const board *B, int *cand)
{
    int n = 0;
    for (int l = 0; l < B->nl; l++)
        if (!drawn(B, l) && neutral(B, l))
            cand[n++] = l;
    return n;
}

static int neutral_value(const board *B, neutral_search *S, int alpha, int beta, int *best)
{
    if (S->stopped || ++S->nodes > S->budget || ((S->nodes & 63) == 0 && thue_gctl_stop(S->ctl))) {
        S->stopped = 1;
        return 0;
    }
    int cand[THUE_DOTS_LINES_MAX];
    int n = neutral_lines(B, cand);
    if (n == 0) {
        int v;
        if (model_of(B, &v, NULL) != 0)
            v = 0;
        return v;
    }
    int bv = -100000;
    for (int i = 0; i < n; i++) {
        board C = *B;
        draw(&C, cand[i]);
        int v = -neutral_value(&C, S, -beta, -alpha, NULL);
        if (S->stopped)
            return 0;
        if (v > bv) {
            bv = v;
            if (best)
                *best = cand[i];
            if (v > alpha)
                alpha = v;
            if (alpha >= beta)
                break;
        }
    }
    return bv;
}

/* ---- strong ---------------------------------------------------------------------------- */

/* The line to draw with a takeable box in B (none of them free): take, or double-deal. */
static int chain_choice(const board *B)
{
    for (int a = 0; a < B->nb; a++) {
        if (sides(B, a) != 3)
            continue;
        int la = undrawn_side(B, a, -1);
        int b = across(B, la, a); /* has two sides: the chain goes on */
        int lb = undrawn_side(B, b, la);
        int c = lb >= 0 ? across(B, lb, b) : -1;
        int kind = 0, deal = -1, give = 0;
        if (c < 0 || sides(B, c) <= 1) {
            kind = 1; /* the last two boxes of a chain: draw lb, leave a and b */
            deal = lb, give = 2;
        } else if (sides(B, c) == 2) {
            int lc = undrawn_side(B, c, lb);
            int d = lc >= 0 ? across(B, lc, c) : -1;
            if (d >= 0 && sides(B, d) == 3 && undrawn_side(B, d, -1) == lc) {
                kind = 2; /* four boxes of a loop left: draw lb, leave two pairs */
                deal = lb, give = 4;
            }
        }
        if (kind == 0)
            return la;
        /* After taking everything, is the rest a loony endgame? */
        board T = *B;
        take_all(&T);
        for (int l = 0; l < T.nl; l++)
            if (!drawn(&T, l) && neutral(&T, l))
                return la;
        int g;
        if (model_of(&T, &g, NULL) != 0)
            return la;
        int all_taken = 1;
        for (int l = 0; l < T.nl; l++)
            if (!drawn(&T, l))
                all_taken = 0;
        if (all_taken)
            return la;
        /* take: give + g (we open next); deal: -give - g (they open next). */
        return (-give - g > give + g) ? deal : la;
    }
    return -1;
}

int thue__dots_strong(const thue_dots_opt *o, const thue_dots_state *st, uint64_t seed,
                      const thue_gctl *ctl)
{
    return thue__dots_strong_ex(o, st, seed, 1, ctl);
}

int thue__dots_strong_ex(const thue_dots_opt *o, const thue_dots_state *st, uint64_t seed,
                         int exact, const thue_gctl *ctl)
{
    board B;
    board_of(&B, o, st);
    uint64_t rng = seed ^ 0x57A0E6ull;
    int left = 0;
    for (int l = 0; l < B.nl; l++)
        left += !drawn(&B, l);
    if (exact && B.nl <= THUE_DOTS_SOLVE_LINES_MAX && left <= STRONG_EXACT_LINES) {
        int net, best;
        if (thue__dots_solve(o, st->drawn[0], STRONG_EXACT_NODES, ctl, &net, &best, NULL) == 0 &&
            best >= 0)
            return best;
    }
    /* Free boxes first. */
    for (int b = 0; b < B.nb; b++) {
        if (sides(&B, b) != 3)
            continue;
        int l = undrawn_side(&B, b, -1);
        int c = across(&B, l, b);
        if (c < 0 || sides(&B, c) != 2)
            return l;
    }
    int l = chain_choice(&B);
    if (l >= 0)
        return l;
    int cand[THUE_DOTS_LINES_MAX];
    int n = neutral_lines(&B, cand);
    if (n > 0 && n <= NEUTRAL_LINES_MAX) {
        neutral_search S = {0, NEUTRAL_NODES, ctl, 0};
        int best = -1;
        neutral_value(&B, &S, -100000, 100000, &best);
        if (!S.stopped && best >= 0)
            return best;
    }
    if (n > 0)
        return pick(&rng, cand, n);
    int v, open;
    if (model_of(&B, &v, &open) == 0 && open >= 0 && !drawn(&B, open))
        return open;
    return thue__dots_heuristic(o, st, seed);
}
