/*
 * dots_solve.c: the exact value of a dots-and-boxes position, for the `perfect` member
 * and the strong bot, and the plain minimax the tests check it against.
 *
 * The value searched is the net number of boxes the player to move can still win (their
 * boxes minus the opponent's among the boxes not yet complete). It depends on the drawn
 * lines alone, not on the score, on who drew what or on how the position arose, so the
 * transposition table is keyed by the 64-bit set of drawn lines (boards of at most 64
 * lines: up to 5x5, 6x4, ...). A line that completes k boxes is worth k plus the value of
 * the same player moving on; any other line is worth minus the opponent's value.
 *
 * Negamax with alpha-beta over fail-soft bounds; each table entry keeps the drawn set,
 * a bound (exact, lower or upper) and the best line found, and is replaced always
 * (one entry per slot, the slot given by a mixed hash). Move order: the table's line,
 * then lines that complete a box, then lines that give no box its third side, then the
 * rest.
 *
 * Positions are stored under the least of their images by the board's symmetries (the
 * mirrors and half turn, and on a square board the transposes and quarter turns), the
 * best line mapped along.
 *
 * One pruning, checked against the plain minimax on every position of small boards
 * (tests/unit/test_dots_bots.c): a box with three sides whose fourth side gives no other
 * box a third side (the neighbour across it is absent, has fewer than two sides or
 * three) is taken at once without trying the other lines: taking such a box changes
 * nothing else about the position, so declining it never pays (the double-dealing
 * choice arises only when taking a box hands its neighbour a third side).
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/dots/dots.h"

typedef struct tt_entry {
    uint64_t key; /* the drawn set + 1 (0: empty slot) */
    int8_t value;
    uint8_t flag; /* 0 exact, 1 lower bound, 2 upper bound */
    int8_t best;
} tt_entry;

enum { EXACT = 0, LOWER = 1, UPPER = 2 };

typedef struct solver {
    int nl, nb;
    uint64_t full;
    uint64_t boxmask[THUE_DOTS_BOXES_MAX];
    int lb[THUE_DOTS_SOLVE_LINES_MAX][2];
    tt_entry *tt;
    uint64_t tmask;
    /* The board's symmetries (4, or 8 on a square board): line permutations, their
     * inverses, and byte tables that apply a permutation to a set of lines. */
    int nsym;
    int8_t perm[8][THUE_DOTS_SOLVE_LINES_MAX], inv[8][THUE_DOTS_SOLVE_LINES_MAX];
    uint64_t tab[8][8][256];
    uint64_t nodes, budget;
    const thue_gctl *ctl;
    int stopped;
} solver;

static int popc(uint64_t x)
{
    return __builtin_popcountll(x);
}

static void setup(solver *S, const thue_dots_opt *o)
{
    int R = o->rows, C = o->cols;
    memset(S, 0, sizeof *S);
    S->nl = thue_dots_nlines(R, C);
    S->nb = R * C;
    S->full = S->nl >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << S->nl) - 1);
    for (int b = 0; b < S->nb; b++) {
        int s[4];
        thue_dots_sides(R, C, b, s);
        for (int i = 0; i < 4; i++)
            S->boxmask[b] |= (uint64_t)1 << s[i];
    }
    for (int l = 0; l < S->nl; l++)
        thue_dots_line_boxes(R, C, l, S->lb[l]);
    if (S->nl > THUE_DOTS_SOLVE_LINES_MAX)
        return;
    /* A line joins two dots; a symmetry maps dots (y, x) of the (R+1) x (C+1) grid. */
    S->nsym = R == C ? 8 : 4;
    for (int k = 0; k < S->nsym; k++) {
        for (int l = 0; l < S->nl; l++) {
            int H = (R + 1) * C, y0, x0, y1, x1;
            if (l < H)
                y0 = l / C, x0 = l % C, y1 = y0, x1 = x0 + 1;
            else
                y0 = (l - H) / (C + 1), x0 = (l - H) % (C + 1), y1 = y0 + 1, x1 = x0;
            int p[2][2] = {{y0, x0}, {y1, x1}};
            for (int i = 0; i < 2; i++) {
                int y = p[i][0], x = p[i][1];
                if (k & 1)
                    y = R - y;
                if (k & 2)
                    x = C - x;
                if (k & 4) {
                    int t = y;
                    y = x, x = t;
                }
                p[i][0] = y, p[i][1] = x;
            }
            int ya = p[0][0] < p[1][0] || (p[0][0] == p[1][0] && p[0][1] < p[1][1]) ? 0 : 1;
            int y = p[ya][0], x = p[ya][1];
            int m = p[0][0] == p[1][0] ? thue_dots_hline(R, C, y, x) : thue_dots_vline(R, C, y, x);
            S->perm[k][l] = (int8_t)m;
            S->inv[k][m] = (int8_t)l;
        }
        for (int byte = 0; byte < 8; byte++)
            for (int v = 0; v < 256; v++) {
                uint64_t out = 0;
                for (int bit = 0; bit < 8; bit++) {
                    int l = byte * 8 + bit;
                    if ((v >> bit & 1) && l < S->nl)
                        out |= (uint64_t)1 << S->perm[k][l];
                }
                S->tab[k][byte][v] = out;
            }
    }
}

static uint64_t apply_sym(const solver *S, int k, uint64_t d)
{
    uint64_t out = 0;
    for (int byte = 0; d; byte++, d >>= 8)
        out |= S->tab[k][byte][d & 255];
    return out;
}

/* The least image of drawn under the symmetries, and the symmetry that gives it. */
static uint64_t canonical(const solver *S, uint64_t drawn, int *sym)
{
    uint64_t best = drawn;
    *sym = 0;
    for (int k = 1; k < S->nsym; k++) {
        uint64_t v = apply_sym(S, k, drawn);
        if (v < best)
            best = v, *sym = k;
    }
    return best;
}

/* Boxes line l completes in drawn. */
static int completes(const solver *S, uint64_t drawn, int l)
{
    uint64_t d = drawn | (uint64_t)1 << l;
    int k = 0;
    for (int i = 0; i < 2; i++) {
        int b = S->lb[l][i];
        if (b >= 0 && (d & S->boxmask[b]) == S->boxmask[b])
            k++;
    }
    return k;
}

/* 0: line l gives some box its third side; 1: it gives none (and completes none). */
static int safe(const solver *S, uint64_t drawn, int l)
{
    for (int i = 0; i < 2; i++) {
        int b = S->lb[l][i];
        if (b >= 0 && popc(drawn & S->boxmask[b]) >= 2)
            return 0;
    }
    return 1;
}

/* Open boxes (not complete) in drawn. */
static int open_boxes(const solver *S, uint64_t drawn)
{
    int n = 0;
    for (int b = 0; b < S->nb; b++)
        n += (drawn & S->boxmask[b]) != S->boxmask[b];
    return n;
}

/* The free captures of the header, taken one after another: the boxes gained; drawn is
 * updated, *line (may be NULL) gets the first line drawn, -1 when none. */
static int free_captures(const solver *S, uint64_t *drawn, int *line)
{
    int gained = 0, any = 1;
    if (line)
        *line = -1;
    while (any) {
        any = 0;
        for (int b = 0; b < S->nb; b++) {
            uint64_t m = S->boxmask[b];
            if (popc(*drawn & m) != 3)
                continue;
            int l = __builtin_ctzll(m & ~*drawn);
            int o = S->lb[l][0] == b ? S->lb[l][1] : S->lb[l][0];
            if (o >= 0 && popc(*drawn & S->boxmask[o]) == 2)
                continue;
            gained += completes(S, *drawn, l);
            *drawn |= (uint64_t)1 << l;
            if (line && *line < 0)
                *line = l;
            any = 1;
        }
    }
    return gained;
}

static uint64_t slot(const solver *S, uint64_t drawn)
{
    uint64_t x = drawn * 0x9E3779B97F4A7C15ull;
    return (x ^ (x >> 29)) & S->tmask;
}

/* Orders the undrawn lines of drawn into out (first the table's line): their count. */
static int order(const solver *S, uint64_t drawn, int first, int *out)
{
    int n = 0, ns = 0, nr = 0;
    int safe_l[THUE_DOTS_SOLVE_LINES_MAX], rest[THUE_DOTS_SOLVE_LINES_MAX];
    if (first >= 0)
        out[n++] = first;
    for (uint64_t u = S->full & ~drawn; u; u &= u - 1) {
        int l = __builtin_ctzll(u);
        if (l == first)
            continue;
        if (completes(S, drawn, l))
            out[n++] = l;
        else if (safe(S, drawn, l))
            safe_l[ns++] = l;
        else
            rest[nr++] = l;
    }
    memcpy(out + n, safe_l, (size_t)ns * sizeof *out);
    n += ns;
    memcpy(out + n, rest, (size_t)nr * sizeof *out);
    return n + nr;
}

static int search(solver *S, uint64_t drawn, int alpha, int beta, int *bestl)
{
    if (S->stopped)
        return 0;
    if (S->budget && S->nodes >= S->budget) {
        S->stopped = 1;
        return 0;
    }
    if ((++S->nodes & 63) == 0 && thue_gctl_stop(S->ctl)) {
        S->stopped = 1;
        return 0;
    }
    int fl;
    int gained = free_captures(S, &drawn, &fl);
    if (fl >= 0) {
        if (bestl)
            *bestl = fl;
        if (drawn == S->full)
            return gained;
        return gained + search(S, drawn, alpha - gained, beta - gained, NULL);
    }
    if (drawn == S->full)
        return 0;
    int sym;
    uint64_t key = canonical(S, drawn, &sym);
    tt_entry *e = &S->tt[slot(S, key)];
    int first = -1;
    if (e->key == key + 1) {
        first = S->inv[sym][(int)e->best];
        if (e->flag == EXACT || (e->flag == LOWER && e->value >= beta) ||
            (e->flag == UPPER && e->value <= alpha)) {
            if (bestl)
                *bestl = first;
            return e->value;
        }
        if (e->flag == LOWER && e->value > alpha)
            alpha = e->value;
        else if (e->flag == UPPER && e->value < beta)
            beta = e->value;
    }
    int rem = open_boxes(S, drawn);
    int a0 = alpha;
    int moves[THUE_DOTS_SOLVE_LINES_MAX];
    int n = order(S, drawn, first, moves);
    int best = -rem - 1, bl = moves[0];
    for (int i = 0; i < n; i++) {
        int l = moves[i];
        uint64_t d = drawn | (uint64_t)1 << l;
        int k = completes(S, drawn, l), v;
        if (k > 0)
            v = k + search(S, d, alpha - k, beta - k, NULL);
        else
            v = -search(S, d, -beta, -alpha, NULL);
        if (S->stopped)
            return 0;
        if (v > best) {
            best = v, bl = l;
            if (v > alpha)
                alpha = v;
            if (alpha >= beta || best == rem)
                break;
        }
    }
    e->key = key + 1;
    e->value = (int8_t)best;
    e->best = S->perm[sym][bl];
    e->flag = best <= a0 ? UPPER : best >= beta ? LOWER : EXACT;
    if (bestl)
        *bestl = bl;
    return best;
}

int thue__dots_solve(const thue_dots_opt *o, uint64_t drawn, uint64_t node_budget,
                     const thue_gctl *ctl, int *net, int *best, uint64_t *nodes)
{
    if (nodes)
        *nodes = 0;
    if (thue_dots_nlines(o->rows, o->cols) > THUE_DOTS_SOLVE_LINES_MAX)
        return THUE_ETOOBIG;
    solver *S = malloc(sizeof *S);
    if (S == NULL)
        return THUE_ENOMEM;
    setup(S, o);
    drawn &= S->full;
    int free_l = popc(S->full & ~drawn);
    int bits = free_l < 12 ? 12 : free_l > 22 ? 22 : free_l;
    /* The table the position deserves, or a smaller one the budget allows (always
     * replacing, any size gives the same values; a smaller one only searches more). */
    while (bits > 12 && thue_gctl_take(ctl, ((size_t)1 << bits) * sizeof *S->tt) != 0)
        bits--;
    size_t bytes = ((size_t)1 << bits) * sizeof *S->tt;
    if (bits == 12 && thue_gctl_take(ctl, bytes) != 0) {
        free(S);
        return THUE_ETOOBIG;
    }
    S->tt = calloc((size_t)1 << bits, sizeof *S->tt);
    if (S->tt == NULL) {
        thue_gctl_give(ctl, bytes);
        free(S);
        return THUE_ENOMEM;
    }
    S->tmask = ((uint64_t)1 << bits) - 1;
    S->budget = node_budget;
    S->ctl = ctl;
    int rem = open_boxes(S, drawn);
    int bl = -1;
    int v = search(S, drawn, -rem - 1, rem + 1, &bl);
    int err = S->stopped ? THUE_ETOOBIG : 0;
    if (nodes)
        *nodes = S->nodes;
    if (err == 0) {
        *net = v;
        *best = bl;
    }
    free(S->tt);
    thue_gctl_give(ctl, bytes);
    free(S);
    return err;
}

static int minimax(const solver *S, uint64_t drawn)
{
    if (drawn == S->full)
        return 0;
    int best = -1000;
    for (uint64_t u = S->full & ~drawn; u; u &= u - 1) {
        int l = __builtin_ctzll(u);
        int k = completes(S, drawn, l);
        uint64_t d = drawn | (uint64_t)1 << l;
        int v = k > 0 ? k + minimax(S, d) : -minimax(S, d);
        if (v > best)
            best = v;
    }
    return best;
}

int thue__dots_minimax(const thue_dots_opt *o, uint64_t drawn)
{
    solver *S = malloc(sizeof *S);
    if (S == NULL)
        return 0;
    setup(S, o);
    int v = minimax(S, drawn & S->full);
    free(S);
    return v;
}
