/*
 * test_game_circle.c: the circle game's block analysis (circle_solve.c) against a
 * retrograde analysis with draws, over every position of every circle of 3 to 12 fields.
 *
 * The reference is naive and shares no code with the game: its own base-3 board codes
 * and its own move generator. Backward induction from the positions whose player to
 * move has no move (losses): a position one of whose moves reaches a loss is a win; a
 * position all of whose moves reach wins is a loss (a counter of unresolved moves per
 * position); what is left undecided is a draw (endless play). A position's predecessors
 * are found with the mover's opponent's moves, since every slide can be slid back.
 *
 * Checked for each N and each position (every placement with at least one piece each,
 * both players to move):
 *   - the retrograde's labels are consistent (a loss has only winning successors, a
 *     win a losing one, a draw no losing one and a drawn one), and for N <= 8 they equal
 *     a plain fixed-point iteration of the same definition;
 *   - the game's move generator gives the reference's moves, in number and as a set;
 *   - thue_circle_value equals the retrograde's value;
 *   - the table's perfect move is legal (apply accepts it), leads from a win to a
 *     retrograde loss for the opponent and from a draw to a retrograde draw;
 *   - thue_circle_longest(N) is the most moves any decided position takes to its end
 *     (the retrograde's fastest win, longest loss).
 * The number of positions per N is printed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/circle/circle.h"
#include "games/game.h"
#include "games/registry.h"

#define NMAX 12

/* ---------------------------------------------------------------- the reference */

typedef struct retro {
    int n;
    long boards;       /* 3^n */
    signed char *val;  /* [board * 2 + to_move]: 1, 0, -1; 0 also for invalid codes */
    short *dtm;        /* plies to the end under the fastest win and the longest loss */
    unsigned char *ok; /* a valid position: both players have a piece */
} retro;

static void decode(int n, long code, uint8_t *b)
{
    for (int f = 0; f < n; f++, code /= 3)
        b[f] = (uint8_t)(code % 3);
}

static long encode(int n, const uint8_t *b)
{
    long code = 0;
    for (int f = n - 1; f >= 0; f--)
        code = code * 3 + b[f];
    return code;
}

/* The reference's moves: successor board codes of `player` (value player + 1). */
static int ref_successors(int n, const uint8_t *b, int player, long *out)
{
    int cnt = 0;
    uint8_t c[NMAX];
    for (int f = 0; f < n; f++) {
        if (b[f] != player + 1)
            continue;
        for (int dir = -1; dir <= 1; dir += 2) {
            int t = f;
            for (;;) {
                t = (t + dir + n) % n;
                if (b[t] != 0)
                    break;
                memcpy(c, b, (size_t)n);
                c[t] = c[f];
                c[f] = 0;
                out[cnt++] = encode(n, c);
            }
        }
    }
    return cnt;
}

static void retro_run(retro *r, int n)
{
    r->n = n;
    r->boards = 1;
    for (int i = 0; i < n; i++)
        r->boards *= 3;
    long states = 2 * r->boards;
    r->val = calloc((size_t)states, 1);
    r->ok = calloc((size_t)states, 1);
    r->dtm = calloc((size_t)states, sizeof *r->dtm);
    unsigned char *left = calloc((size_t)states, 1);
    long *queue = malloc((size_t)states * sizeof *queue);
    assert_non_null(r->val);
    assert_non_null(r->ok);
    assert_non_null(r->dtm);
    assert_non_null(left);
    assert_non_null(queue);
    long head = 0, tail = 0, succ[4 * NMAX];
    uint8_t b[NMAX];
    for (long code = 0; code < r->boards; code++) {
        decode(n, code, b);
        int w = 0, k = 0;
        for (int f = 0; f < n; f++)
            w += b[f] == 1, k += b[f] == 2;
        if (w == 0 || k == 0)
            continue;
        for (int p = 0; p < 2; p++) {
            long s = code * 2 + p;
            r->ok[s] = 1;
            left[s] = (unsigned char)ref_successors(n, b, p, succ);
            if (left[s] == 0) {
                r->val[s] = -1;
                queue[tail++] = s;
            }
        }
    }
    while (head < tail) {
        long s = queue[head++];
        int p = (int)(s % 2), q = p ^ 1; /* q moved into s */
        decode(n, s / 2, b);
        int cnt = ref_successors(n, b, q, succ);
        for (int i = 0; i < cnt; i++) {
            long t = succ[i] * 2 + q;
            if (r->val[t] != 0)
                continue;
            /* The queue runs in order of depth: a win is reached first by its fastest
             * line, a loss last by its longest one. */
            if (r->val[s] == -1) {
                r->val[t] = 1;
                r->dtm[t] = (short)(r->dtm[s] + 1);
                queue[tail++] = t;
            } else if (--left[t] == 0) {
                r->val[t] = -1;
                r->dtm[t] = (short)(r->dtm[s] + 1);
                queue[tail++] = t;
            }
        }
    }
    free(left);
    free(queue);
}

static void retro_free(retro *r)
{
    free(r->val);
    free(r->ok);
    free(r->dtm);
}

/* Each label satisfies its definition against the labels of the successors. */
static void retro_check_consistent(const retro *r)
{
    uint8_t b[NMAX];
    long succ[4 * NMAX];
    for (long s = 0; s < 2 * r->boards; s++) {
        if (!r->ok[s])
            continue;
        int p = (int)(s % 2);
        decode(r->n, s / 2, b);
        int cnt = ref_successors(r->n, b, p, succ), loss = 0, draw = 0;
        for (int i = 0; i < cnt; i++) {
            int v = r->val[succ[i] * 2 + (p ^ 1)];
            loss += v == -1, draw += v == 0;
        }
        if (r->val[s] == 1)
            assert_true(loss > 0);
        else if (r->val[s] == -1)
            assert_true(loss == 0 && draw == 0);
        else
            assert_true(loss == 0 && draw > 0);
    }
}

/* The same values by iterating the definition to its fixed point: wins and losses
 * grow until nothing changes, the rest are draws. */
static void retro_check_fixed_point(const retro *r)
{
    long states = 2 * r->boards;
    signed char *v = calloc((size_t)states, 1);
    assert_non_null(v);
    uint8_t b[NMAX];
    long succ[4 * NMAX];
    for (bool changed = true; changed;) {
        changed = false;
        for (long s = 0; s < states; s++) {
            if (!r->ok[s] || v[s] != 0)
                continue;
            int p = (int)(s % 2);
            decode(r->n, s / 2, b);
            int cnt = ref_successors(r->n, b, p, succ), wins = 0;
            for (int i = 0; i < cnt; i++) {
                int x = v[succ[i] * 2 + (p ^ 1)];
                if (x == -1) {
                    v[s] = 1;
                    break;
                }
                wins += x == 1;
            }
            if (v[s] == 0 && wins == cnt)
                v[s] = -1;
            changed |= v[s] != 0;
        }
    }
    for (long s = 0; s < states; s++)
        if (r->ok[s])
            assert_int_equal(v[s], r->val[s]);
    free(v);
}

/* ---------------------------------------------------------------- the checks */

static const thue_gamedef *G;

/* The perfect bot also carries a win out: from every won position it plays against the
 * retrograde's most stubborn defence (the reply with the longest way to the end) and
 * must leave the defender without a move before the default move cap (40 * N). Keeping
 * the value alone would not do: a strong block can shuffle inside itself for ever. */
static void check_conversion(const retro *r)
{
    int n = r->n;
    thue_gopt opt;
    thue_gerr e;
    char text[64];
    snprintf(text, sizeof text, "{\"fields\":%d}", n);
    assert_int_equal(thue_game_options_text(G, text, &opt, &e), 0);
    long games = 0, longest = 0;
    long succ[4 * NMAX];
    for (long s = 0; s < 2 * r->boards; s++) {
        if (!r->ok[s] || r->val[s] != 1)
            continue;
        thue_circle_state st;
        memset(&st, 0, sizeof st);
        st.n = n;
        st.to_move = (int)(s % 2);
        decode(n, s / 2, st.board);
        int winner = st.to_move;
        while (G->to_move(&opt, &st) >= 0) {
            thue_gmove m;
            if (st.to_move == winner) {
                int value;
                assert_int_equal(G->perfect(&opt, &st, NULL, &m, &value), 0);
                assert_int_equal(value, 1);
                assert_int_equal(G->apply(&opt, &st, st.to_move, &m, &e), 0);
                continue;
            }
            /* The defender: the successor with the longest way to the end. */
            int cnt = ref_successors(n, st.board, st.to_move, succ), best = 0;
            for (int i = 1; i < cnt; i++)
                if (r->dtm[succ[i] * 2 + winner] > r->dtm[succ[best] * 2 + winner])
                    best = i;
            assert_int_equal(r->val[succ[best] * 2 + winner], 1);
            decode(n, succ[best], st.board);
            st.to_move = winner;
            st.moves++;
        }
        thue_gresult res;
        G->result(&opt, &st, &res);
        if (strcmp(res.why, "no_moves") != 0) {
            char bt[NMAX + 1];
            decode(n, s / 2, st.board);
            for (int f = 0; f < n; f++)
                bt[f] = ".WB"[st.board[f]];
            bt[n] = '\0';
            print_error("N=%d board %s, %s to move: not carried out\n", n, bt,
                        winner == 0 ? "white" : "black");
        }
        assert_true(res.over);
        assert_string_equal(res.why, "no_moves");
        assert_int_equal(res.winner, winner);
        games++;
        if (st.moves > longest)
            longest = st.moves;
    }
    print_message("N=%d: %ld won positions carried out against the longest defence, the "
                  "longest in %ld moves (cap %d)\n",
                  n, games, longest, 40 * n);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void check_n(int n)
{
    retro r;
    retro_run(&r, n);
    retro_check_consistent(&r);
    if (n <= 8)
        retro_check_fixed_point(&r);
    /* The longest win (and loss) of this size, which tells perfect where the move cap
     * cannot matter (circle_cap.c). */
    int longest = 0;
    for (long s = 0; s < 2 * r.boards; s++)
        if (r.ok[s] && r.val[s] != 0 && r.dtm[s] > longest)
            longest = r.dtm[s];
    assert_int_equal(thue_circle_longest(n), longest);
    check_conversion(&r);

    thue_gopt opt;
    thue_gerr e;
    char text[64];
    snprintf(text, sizeof text, "{\"fields\":%d}", n);
    assert_int_equal(thue_game_options_text(G, text, &opt, &e), 0);

    long counted = 0, byval[3] = {0, 0, 0}, succ[4 * NMAX], mine[4 * NMAX];
    thue_gmove mv[2 * THUE_CIRCLE_FIELDS_MAX];
    uint8_t b[NMAX];
    for (long s = 0; s < 2 * r.boards; s++) {
        if (!r.ok[s])
            continue;
        int p = (int)(s % 2), want = r.val[s];
        counted++;
        byval[want + 1]++;
        decode(n, s / 2, b);

        /* The move generator against the reference's. */
        int cnt = thue_circle_moves(n, b, p, mv), rc = ref_successors(n, b, p, succ);
        assert_int_equal(cnt, rc);
        assert_true(cnt <= 2 * n);
        for (int i = 0; i < cnt; i++) {
            uint8_t c[NMAX];
            memcpy(c, b, (size_t)n);
            c[mv[i].v[1]] = c[mv[i].v[0]];
            c[mv[i].v[0]] = 0;
            mine[i] = encode(n, c);
        }
        qsort(mine, (size_t)cnt, sizeof mine[0], cmp_long);
        qsort(succ, (size_t)cnt, sizeof succ[0], cmp_long);
        assert_memory_equal(mine, succ, (size_t)cnt * sizeof mine[0]);

        int got = thue_circle_value(n, b, p);
        if (got != want) {
            char bt[NMAX + 1];
            for (int f = 0; f < n; f++)
                bt[f] = ".WB"[b[f]];
            bt[n] = '\0';
            print_error("N=%d board %s, %s to move: retrograde %d, analysis %d\n", n, bt,
                        p == 0 ? "white" : "black", want, got);
        }
        assert_int_equal(got, want);

        /* The table's perfect move keeps the value. */
        thue_circle_state st;
        memset(&st, 0, sizeof st);
        st.n = n;
        st.to_move = p;
        memcpy(st.board, b, (size_t)n);
        if (cnt == 0) {
            assert_int_equal(G->to_move(&opt, &st), -1);
            continue;
        }
        thue_gmove best = {{-1, -1, 0, 0}};
        int value = 2;
        assert_int_equal(G->perfect(&opt, &st, NULL, &best, &value), 0);
        assert_int_equal(value, want);
        assert_int_equal(G->apply(&opt, &st, p, &best, &e), 0);
        long next = encode(n, st.board) * 2 + (p ^ 1);
        if (want == 1)
            assert_int_equal(r.val[next], -1);
        else if (want == 0)
            assert_int_equal(r.val[next], 0);
    }
    print_message("N=%d: %ld positions checked (%ld wins, %ld draws, %ld losses for the "
                  "player to move)\n",
                  n, counted, byval[2], byval[1], byval[0]);
    retro_free(&r);
}

static void test_circle_exhaustive_small(void **state)
{
    (void)state;
    for (int n = 3; n <= 9; n++)
        check_n(n);
}

static void test_circle_exhaustive_10(void **state)
{
    (void)state;
    check_n(10);
}

static void test_circle_exhaustive_11(void **state)
{
    (void)state;
    check_n(11);
}

static void test_circle_exhaustive_12(void **state)
{
    (void)state;
    check_n(12);
}

int main(void)
{
    G = thue_game_find("circle");
    if (G == NULL) {
        fprintf(stderr, "the circle game is not in the registry\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circle_exhaustive_small),
        cmocka_unit_test(test_circle_exhaustive_10),
        cmocka_unit_test(test_circle_exhaustive_11),
        cmocka_unit_test(test_circle_exhaustive_12),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
