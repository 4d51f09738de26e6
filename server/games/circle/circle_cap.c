/*
 * circle_cap.c: the circle game's move cap in perfect play.
 *
 * The block analysis (circle_solve.c) values a position as if play could go on for
 * ever. A match ends drawn after move_cap moves (unless the player then to move is
 * stuck), so a position's value also depends on the moves left, m = move_cap - moves:
 *   - an uncapped draw stays a draw: each side can keep the other from winning for ever,
 *     so also within m moves;
 *   - an uncapped win for player W stays W's win when W can force it within m moves,
 *     and is a draw otherwise (W's winning strategy never loses, so the other side
 *     cannot do better than the cap's draw).
 * So the cap decides exactly the positions whose fastest forced win (the winner
 * hurrying, the loser stalling) takes more than m moves. Below, that length is found by
 * iterative deepening over a depth-bounded search: "the winner, to move, forces a win
 * within d moves" (d = 1, 3, 5, ...; a win is a move that leaves the loser without a
 * move, so it falls on the winner's moves). At the winner's nodes only the moves that
 * keep the uncapped win are tried (the analysis says which: the others can never win),
 * the least progress first (thue__circle_progress: how much is left to squeeze); at
 * the loser's nodes every move must be answered.
 *
 * A transposition table keyed by the board (two 64-bit sets of fields) and the player to
 * move keeps, per position, the fewest moves a win is proven within and the most it is
 * proven not to be: both carry over from one depth to the next (a win within d is one
 * within any more; no win within d is none within fewer). It is replaced always, so its
 * size changes only the work, never an answer.
 *
 * The work is bounded: a node budget, the caller's stop (thue_gctl), the table's memory
 * from the caller's budget, and THUE_CIRCLE_CAP_DEPTH moves; past any of them the answer
 * is THUE_ETOOBIG. perfect (circle.c) asks only where the cap can matter: where the moves
 * left are no more than the longest win any position of that size has
 * (thue_circle_longest, known up to 12 fields from the retrograde analysis), and on
 * bigger boards wherever the position is decided.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/circle/circle.h"

/* Nodes between two polls of the caller's stop. */
#define POLL_EVERY 64

int thue_circle_longest(int n)
{
    /* The most moves from a decided position to its end under the fastest win and the
     * longest defence, over every position of n fields (test_game_circle checks them
     * against its retrograde analysis). */
    static const int known[] = {0, 0, 0, 0, 3, 4, 5, 6, 8, 12, 16, 20, 24};
    return n >= 0 && n < (int)(sizeof known / sizeof known[0]) ? known[n] : -1;
}

typedef struct cap_entry {
    uint64_t w, k;   /* the white and the black fields; both 0: an empty slot */
    int32_t win;     /* the fewest moves a win is proven within; INT32_MAX: none */
    int32_t nowin;   /* the most moves a win is proven impossible within; -1: none */
    int32_t to_move; /* the player to move */
} cap_entry;

/* A node's moves: the generator's, then (at the winner's nodes) those kept, sorted. */
typedef struct cap_moves {
    thue_gmove mv[2 * THUE_CIRCLE_FIELDS_MAX];
    uint64_t score[2 * THUE_CIRCLE_FIELDS_MAX];
} cap_moves;

typedef struct cap_search {
    int n, winner;
    uint8_t b[THUE_CIRCLE_FIELDS_MAX]; /* the board, changed and restored as it searches */
    cap_entry *tt;
    uint64_t tmask;
    cap_moves *ply; /* one per ply from the root (kept off the stack: lines may be long) */
    uint64_t nodes, budget;
    const thue_gctl *ctl;
    int stopped;
    /* At the root: the move that answered the depth searched (the winner's first move of
     * a win in time, else a move that keeps the uncapped win; the loser's move after
     * which no win came in time), and whether there is one. */
    thue_gmove root_move;
    int root_has;
} cap_search;

static void masks(const cap_search *S, uint64_t *w, uint64_t *k)
{
    *w = *k = 0;
    for (int f = 0; f < S->n; f++) {
        if (S->b[f] == 1)
            *w |= (uint64_t)1 << f;
        else if (S->b[f] == 2)
            *k |= (uint64_t)1 << f;
    }
}

/* The slot of the current board with `to_move` to move (its entry, or the slot to take);
 * *w and *k get the board's sets. */
static cap_entry *probe(cap_search *S, int to_move, uint64_t *w, uint64_t *k)
{
    masks(S, w, k);
    uint64_t h = thue_gmix64(*w * 0x9E3779B97F4A7C15ull ^ thue_gmix64(*k) ^ (uint64_t)to_move);
    return &S->tt[h & S->tmask];
}

/* Records what a node proved (win: within that many moves, INT32_MAX none; nowin: not
 * within that many, -1 none), keeping what the slot knew of the same position. */
static void store(cap_search *S, int to_move, int win, int nowin)
{
    uint64_t w, k;
    cap_entry *e = probe(S, to_move, &w, &k);
    if (e->w != w || e->k != k || e->to_move != to_move) {
        e->w = w, e->k = k, e->to_move = to_move;
        e->win = INT32_MAX, e->nowin = -1;
    }
    if (win < e->win)
        e->win = win;
    if (nowin > e->nowin)
        e->nowin = nowin;
}

/* What the table knows of the current board for d moves: 1 a win, 0 none, -1 nothing. */
static int known(cap_search *S, int to_move, int d)
{
    uint64_t w, k;
    const cap_entry *e = probe(S, to_move, &w, &k);
    if (e->w != w || e->k != k || e->to_move != to_move)
        return -1;
    return e->win <= d ? 1 : e->nowin >= d ? 0 : -1;
}

/* Counts a node: 1 when the search must stop (its budget, or the caller says so). */
static int tick(cap_search *S)
{
    if (S->stopped)
        return 1;
    if (++S->nodes > S->budget || (S->nodes % POLL_EVERY == 0 && thue_gctl_stop(S->ctl)))
        S->stopped = 1;
    return S->stopped;
}

static bool stuck(const cap_search *S, int player)
{
    for (int f = 0; f < S->n; f++)
        if (S->b[f] == player + 1 &&
            (S->b[(f + 1) % S->n] == 0 || S->b[(f + S->n - 1) % S->n] == 0))
            return false;
    return true;
}

static void slide(cap_search *S, const thue_gmove *m)
{
    S->b[m->v[1]] = S->b[m->v[0]];
    S->b[m->v[0]] = 0;
}

static void unslide(cap_search *S, const thue_gmove *m)
{
    S->b[m->v[0]] = S->b[m->v[1]];
    S->b[m->v[1]] = 0;
}

/* The winner's moves that keep the uncapped win, least progress first, into
 * S->ply[ply]: their count, or -1 when the analysis cannot tell (then stop). */
static int winner_moves(cap_search *S, int ply)
{
    cap_moves *M = &S->ply[ply];
    int n = S->n, loser = S->winner ^ 1;
    int cnt = thue_circle_moves(n, S->b, S->winner, M->mv), keep = 0;
    for (int i = 0; i < cnt; i++) {
        thue_gmove m = M->mv[i];
        slide(S, &m);
        int v = thue_circle_value(n, S->b, loser);
        uint64_t p = v == -1 ? thue__circle_progress(n, S->b, loser) : 0;
        unslide(S, &m);
        if (v == THUE_CIRCLE_UNKNOWN)
            return -1;
        if (v != -1)
            continue;
        /* Insertion into the kept prefix (i >= keep, so nothing unread is overwritten). */
        int j = keep++;
        for (; j > 0 && M->score[j - 1] > p; j--)
            M->mv[j] = M->mv[j - 1], M->score[j] = M->score[j - 1];
        M->mv[j] = m, M->score[j] = p;
    }
    return keep;
}

static int loser_node(cap_search *S, int d, int ply);

/* The winner to move: 1 when they force a win within d moves, 0 when not, -1 stopped. */
static int winner_node(cap_search *S, int d, int ply)
{
    if (d < 1)
        return 0;
    if (tick(S))
        return -1;
    if (ply > 0) {
        int t = known(S, S->winner, d);
        if (t >= 0)
            return t;
    }
    if (d < 3 && ply > 0) {
        /* The last move: only one that leaves the loser stuck wins (most nodes are here:
         * no analysis needed). */
        thue_gmove *mv = S->ply[ply].mv;
        int cnt = thue_circle_moves(S->n, S->b, S->winner, mv), win = 0;
        for (int i = 0; i < cnt && !win; i++) {
            slide(S, &mv[i]);
            win = stuck(S, S->winner ^ 1);
            unslide(S, &mv[i]);
        }
        return win;
    }
    int keep = winner_moves(S, ply);
    if (keep < 0) {
        S->stopped = 1;
        return -1;
    }
    const thue_gmove *mv = S->ply[ply].mv;
    for (int i = 0; i < keep; i++) {
        slide(S, &mv[i]);
        int r = loser_node(S, d - 1, ply + 1);
        unslide(S, &mv[i]);
        if (r < 0)
            return -1;
        if (r == 1) {
            if (ply == 0)
                S->root_move = mv[i], S->root_has = 1;
            store(S, S->winner, d, -1);
            return 1;
        }
    }
    if (ply == 0 && keep > 0)
        S->root_move = mv[0], S->root_has = 1;
    store(S, S->winner, INT32_MAX, d);
    return 0;
}

/* The loser to move: 1 when the winner forces a win within d moves whatever the loser
 * does, 0 when not, -1 stopped. */
static int loser_node(cap_search *S, int d, int ply)
{
    int loser = S->winner ^ 1;
    if (stuck(S, loser))
        return 1;
    if (d < 2)
        return 0;
    if (tick(S))
        return -1;
    if (ply > 0) {
        int t = known(S, loser, d);
        if (t >= 0)
            return t;
    }
    thue_gmove *mv = S->ply[ply].mv;
    int cnt = thue_circle_moves(S->n, S->b, loser, mv);
    for (int i = 0; i < cnt; i++) {
        slide(S, &mv[i]);
        int r = winner_node(S, d - 1, ply + 1);
        unslide(S, &mv[i]);
        if (r < 0)
            return -1;
        if (r == 0) {
            if (ply == 0)
                S->root_move = mv[i], S->root_has = 1;
            store(S, loser, INT32_MAX, d);
            return 0;
        }
    }
    store(S, loser, d, -1);
    return 1;
}

int thue_circle_capped(int n, const uint8_t *b, int to_move, int winner, int max_plies,
                       uint64_t budget, const thue_gctl *ctl, int *plies, thue_gmove *best)
{
    int top = max_plies < THUE_CIRCLE_CAP_DEPTH ? max_plies : THUE_CIRCLE_CAP_DEPTH;
    cap_search *S = calloc(1, sizeof *S);
    size_t ply_bytes = ((size_t)top + 2) * sizeof(cap_moves);
    if (S == NULL)
        return THUE_ENOMEM;
    /* The table: from 2^12 entries (96 KiB) for a few moves to 2^18 (6 MiB) for 48 and
     * more, less when the memory budget refuses it (down to 2^10); and the moves of each
     * ply. Near the cap searches are small and many (every move of a game's end). */
    int bits = 12 + top / 8 < 18 ? 12 + top / 8 : 18;
    while (bits > 10 &&
           thue_gctl_take(ctl, ((size_t)1 << bits) * sizeof(cap_entry) + ply_bytes) != 0)
        bits--;
    size_t bytes = ((size_t)1 << bits) * sizeof(cap_entry) + ply_bytes;
    if (bits == 10 && thue_gctl_take(ctl, bytes) != 0) {
        free(S);
        return THUE_ETOOBIG;
    }
    S->tt = calloc((size_t)1 << bits, sizeof *S->tt);
    S->ply = malloc(ply_bytes);
    int err = 0;
    if (S->tt == NULL || S->ply == NULL)
        err = THUE_ENOMEM;
    S->tmask = ((uint64_t)1 << bits) - 1;
    S->n = n;
    S->winner = winner;
    memcpy(S->b, b, (size_t)n);
    S->budget = budget;
    S->ctl = ctl;

    /* Deepening: the winner's wins fall on their own moves, so a winner's root tries
     * 1, 3, 5, ... moves and a loser's 2, 4, 6, ... */
    bool wins = to_move == winner;
    int found = -1;
    thue_gmove pick = {{0, 0, 0, 0}}, stubborn = {{0, 0, 0, 0}};
    int have_pick = 0, have_stubborn = 0;
    for (int d = wins ? 1 : 2; err == 0 && d <= top; d += 2) {
        S->root_has = 0;
        int r = wins ? winner_node(S, d, 0) : loser_node(S, d, 0);
        if (r < 0) {
            err = THUE_ETOOBIG;
            break;
        }
        if (r == 1) {
            found = d;
            /* The winner's first move of the win; the loser's move that lasted longest
             * (the one that held out at the depth before). */
            if (wins)
                pick = S->root_move, have_pick = S->root_has;
            else
                pick = stubborn, have_pick = have_stubborn;
            break;
        }
        pick = stubborn = S->root_move;
        have_pick = have_stubborn = S->root_has;
    }
    /* No win within the depth bound, but more moves are left: the cap may not decide. */
    if (err == 0 && found < 0 && top < max_plies)
        err = THUE_ETOOBIG;
    if (err == 0) {
        if (!have_pick) {
            /* The loser with fewer than 2 moves left, or lost at the first depth: any move
             * (every one keeps the value). */
            thue_gmove *mv = S->ply[0].mv;
            if (thue_circle_moves(n, b, to_move, mv) > 0)
                pick = mv[0];
        }
        *plies = found;
        *best = pick;
    }
    free(S->ply);
    free(S->tt);
    thue_gctl_give(ctl, bytes);
    free(S);
    return err;
}
