/*
 * circle_solve.c: the circle game's move generator and its block analysis, after
 * T. Idziaszek, "Informatyczny kącik olimpijski (32): Gra w kółko" (Delta; a task of
 * Potyczki Algorytmiczne 2009). The value of a position for the player to move ("we",
 * colour 1 here; the opponent is colour 2) in time linear in the fields.
 *
 * Pieces never pass each other, so the cyclic order of the colours never changes, and
 * neither do the blocks: maximal runs of one player's pieces in that order. A block has
 * p pieces and length n (fields from its first piece to its last); the hole after it is
 * the free fields up to the next block, always the other player's. Every hole lies
 * between one of our end pieces and one of theirs.
 *
 *   0. We have no move: a loss.
 *   1. Every block is a single piece: nobody is ever stuck (each hole touches a piece
 *      of each player), a draw. A player with only single pieces loses (every single
 *      lies between the other player's big blocks, see 2, and is strangled).
 *   2. Super-blocks: a run of singles between two big blocks (p >= 2), k blocks apart.
 *      k even (both ends one player's): the whole run counts as one block of that
 *      player with the pieces and length of the run. k odd: each single counts as a
 *      2-block and the holes after the 1st, 3rd, ..., (k-2)nd single count as 0 (each
 *      end player pushes only inward; the singles pair up and every other hole is a
 *      Nim heap).
 *   3. A strong block: p >= 3 and n > p. Its owner always has a move inside it (a
 *      middle piece next to a free field), forever: they cannot lose. A compact block
 *      (p >= 3, n == p) forms one by moving an end piece into a non-empty hole next to
 *      it; form[] counts such pieces.
 *   4. Both have strong blocks: a draw. They have one, or two forming pieces (we can
 *      close one hole a move): we draw if we have or can form a strong block, else lose.
 *      They can form none: we win if we have or can form one, else it is Nim over the
 *      holes (a 2-block's inner space only lets a hole grow, which the other side
 *      undoes): we win when the XOR of the holes is not 0. They have exactly one
 *      forming piece: we must close that hole (our piece across it); we win if that
 *      leaves them lost, else we draw if we have or can form a strong block, else we
 *      get what the blocking move gives.
 *
 * What the source leaves open or states too narrowly, pinned down by the retrograde
 * check in tests/unit/test_game_circle.c (every position up to 12 fields):
 *   - it fixes white to move ("no free field: black wins"); here colours are relative
 *     to the player to move and a player with no move at all loses (also when free
 *     fields are elsewhere);
 *   - super-blocks share their end blocks: consecutive even runs chain into one block,
 *     so the walk starts after a big block whose preceding run is odd (one exists when
 *     both players have big blocks: even runs keep the colour);
 *   - the odd rule's zeroed holes are those right after the 1st, 3rd, ... single;
 *     zeroing the other ones, or none, disagrees with the retrograde (47040 and 34752
 *     positions at 12 fields);
 *   - case "one forming piece": when blocking does not win, the source goes straight to
 *     "form a strong block or lose"; the blocking move's own value (possibly a draw)
 *     is kept as the fallback here;
 *   - "at most two further recursive calls": true up to 15 fields (a limit of 2 gives
 *     the retrograde's values, 1 does not from 10 fields on); the code allows more
 *     and answers "too deep" (THUE_ETOOBIG from perfect) past a bound it never reached.
 */
#include <string.h>

#include "games/circle/circle.h"

int thue_circle_moves(int n, const uint8_t *b, int player, thue_gmove *out)
{
    int cnt = 0;
    uint8_t me = (uint8_t)(player + 1);
    for (int f = 0; f < n; f++) {
        if (b[f] != me)
            continue;
        for (int dir = 1; dir >= -1; dir -= 2)
            for (int d = 1; d < n; d++) {
                int t = ((f + dir * d) % n + n) % n;
                if (b[t] != 0)
                    break;
                out[cnt++] = (thue_gmove){{f, t, dir, 0}};
            }
    }
    return cnt;
}

typedef struct blk {
    int color;       /* 1 the player to move, 2 the other */
    int p;           /* pieces */
    int n;           /* fields from the first piece to the last, both included */
    int hole;        /* free fields after the block (toward increasing numbers) */
    int first, last; /* fields of its first and last piece */
} blk;

#define NB THUE_CIRCLE_FIELDS_MAX
/* Nested blocking re-evaluations allowed (2 were ever needed up to 15 fields). */
#ifndef CIRCLE_DEPTH
#define CIRCLE_DEPTH 16
#endif

static int value_rec(int n, const uint8_t *b, int to_move, int depth);

/* The blocks of the board (both colours present), colours relative to the player to move; returns
 * the count. */
static int blocks(int n, const uint8_t *b, int to_move, blk *out)
{
    int pos[NB] = {0}, m = 0;
    for (int f = 0; f < n; f++)
        if (b[f] != 0)
            pos[m++] = f;
    if (m < 2)
        return 0; /* not reached: both colours are on the board */
    /* Start at a piece whose predecessor has the other colour. */
    int s = 0;
    while (s < m - 1 && b[pos[s]] == b[pos[(s + m - 1) % m]])
        s++;
    int nb = 0;
    for (int i = 0; i < m; i++) {
        int f = pos[(s + i) % m];
        int c = b[f] == to_move + 1 ? 1 : 2;
        if (nb == 0 || out[nb - 1].color != c)
            out[nb++] = (blk){c, 0, 0, 0, f, f};
        out[nb - 1].p++;
        out[nb - 1].last = f;
    }
    for (int i = 0; i < nb; i++) {
        blk *k = &out[i];
        k->n = ((k->last - k->first) % n + n) % n + 1;
        k->hole = ((out[(i + 1) % nb].first - k->last - 1) % n + n) % n;
    }
    return nb;
}

static bool has_move(int n, const uint8_t *b, int player)
{
    for (int f = 0; f < n; f++)
        if (b[f] == player + 1 && (b[(f + 1) % n] == 0 || b[(f + n - 1) % n] == 0))
            return true;
    return false;
}

/* The super-block reduction of blocks bl[0..nb-1] (both players have a big block)
 * into r; returns the count of reduced blocks. */
static int reduce(const blk *bl, int nb, blk *r)
{
    /* Reduce the super-blocks. Start at a big block whose preceding segment is odd. */
    int s = -1;
    for (int i = 0; i < nb && s < 0; i++) {
        if (bl[i].p < 2)
            continue;
        int j = (i + nb - 1) % nb;
        while (bl[j].p < 2)
            j = (j + nb - 1) % nb;
        if (bl[j].color != bl[i].color)
            s = i;
    }
    int nr = 0;
    blk cur = bl[s];
    int i = s;
    do {
        int j = (i + 1) % nb;
        while (bl[j].p < 2)
            j = (j + 1) % nb;
        int k = (j - i + nb) % nb;
        if (k == 0)
            k = nb;
        if (bl[j].color == cur.color && j != s) {
            /* Even: the big ends' owner strangles the singles in between. */
            for (int t = 1; t <= k; t++) {
                const blk *x = &bl[(i + t) % nb];
                cur.p += x->p;
                cur.n += cur.hole + x->n;
                cur.hole = x->hole;
                cur.last = x->last;
            }
        } else {
            r[nr++] = cur;
            for (int t = 1; t < k; t++) {
                blk x = bl[(i + t) % nb];
                x.p = 2;
                x.n = 2;
                if (t % 2 == 1)
                    x.hole = 0;
                r[nr++] = x;
            }
            cur = bl[j];
        }
        i = j;
    } while (i != s);
    return nr;
}

static int value_rec(int n, const uint8_t *b, int to_move, int depth)
{
    if (!has_move(n, b, to_move))
        return -1;
    blk bl[NB];
    int nb = blocks(n, b, to_move, bl);
    int big[2] = {0, 0};
    for (int i = 0; i < nb; i++)
        if (bl[i].p >= 2)
            big[bl[i].color - 1]++;
    if (big[0] == 0 && big[1] == 0)
        return 0;
    if (big[0] == 0)
        return -1;
    if (big[1] == 0)
        return 1;
    blk r[NB];
    int nr = reduce(bl, nb, r);
    bool strong[2] = {false, false};
    int form[2] = {0, 0}, sx = 0, fb = -1, fdir = 0;
    for (int t = 0; t < nr; t++) {
        const blk *x = &r[t];
        const blk *prev = &r[(t + nr - 1) % nr];
        sx ^= x->hole;
        if (x->p >= 3 && x->n > x->p)
            strong[x->color - 1] = true;
        if (x->p >= 3 && x->n == x->p) {
            if (x->hole > 0) {
                form[x->color - 1]++;
                if (x->color == 2)
                    fb = t, fdir = 1;
            }
            if (prev->hole > 0) {
                form[x->color - 1]++;
                if (x->color == 2)
                    fb = t, fdir = -1;
            }
        }
    }
    bool mine = strong[0] || form[0] > 0;
    if (strong[0] && strong[1])
        return 0;
    if (strong[1] || form[1] >= 2)
        return mine ? 0 : -1;
    if (form[1] == 0)
        return mine || sx != 0 ? 1 : -1;
    /* One opposing piece can form a strong block: block it and look again. */
    uint8_t nbd[NB];
    memcpy(nbd, b, (size_t)n);
    int from, to;
    if (fdir == 1) {
        from = r[(fb + 1) % nr].first;
        to = (r[fb].last + 1) % n;
    } else {
        from = r[(fb + nr - 1) % nr].last;
        to = (r[fb].first + n - 1) % n;
    }
    nbd[to] = nbd[from];
    nbd[from] = 0;
    if (depth == 0)
        return THUE_CIRCLE_UNKNOWN;
    int v = value_rec(n, nbd, to_move ^ 1, depth - 1);
    if (v == THUE_CIRCLE_UNKNOWN)
        return v;
    v = -v;
    if (v == 1)
        return 1;
    if (mine)
        return 0;
    return v;
}

int thue_circle_value(int n, const uint8_t *b, int to_move)
{
    return value_rec(n, b, to_move, CIRCLE_DEPTH);
}

long thue_circle_holes(int n, const uint8_t *b)
{
    blk bl[NB], r[NB];
    int nb = blocks(n, b, 0, bl), big[2] = {0, 0};
    for (int i = 0; i < nb; i++)
        if (bl[i].p >= 2)
            big[bl[i].color - 1]++;
    int nr = nb;
    if (big[0] > 0 && big[1] > 0)
        nr = reduce(bl, nb, r);
    else
        memcpy(r, bl, (size_t)nb * sizeof bl[0]);
    long sum = 0;
    for (int i = 0; i < nr; i++)
        sum += r[i].hole;
    return sum;
}
