/*
 * test_game_circle_cap.c: the circle game's perfect play near the move cap, against a
 * plain depth-limited minimax over the game's own table (game.h: result, legal_moves,
 * apply), which knows nothing of the block analysis.
 *
 * A match ends drawn once move_cap moves are played (unless the player to move is stuck:
 * then they lose), so a position's value depends on the moves left: a win that needs
 * more moves than are left is a draw. The reference plays every line out to the end or
 * to the cap; its only shortcut is a memo of the values it has computed (keyed by the
 * board, the player to move and the moves played), which changes nothing it computes.
 *
 * Checked:
 *   - every position of 4 to 9 fields (both players with a piece, either to move) with
 *     1..L+2 moves left, L the longest win of that size (thue_circle_longest): perfect's
 *     value equals the reference's, and its move leads to a position whose reference
 *     value is minus that (it keeps the value); past L the cap cannot matter, so both
 *     ways of perfect (the analysis alone, and the search below L) are covered;
 *   - a sample of positions of 13 and 16 fields (beyond the sizes with a known longest
 *     win: perfect always searches there) with 1..6 moves left, the same way;
 *   - the example of the issue: 7 fields, cap 12, "WW..B.." after 10 moves is a draw
 *     (white's win does not come within the 2 moves left), not a win;
 *   - where the search cannot finish (64 fields, a small node budget) perfect refuses,
 *     saying the cap is why, and a room's perfect bot plays the analysis's move.
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
#include "search/gbot.h"

static const thue_gamedef *G;

/* ---------------------------------------------------------------- the reference */

typedef struct memo_entry {
    uint64_t code; /* the board in base 3 (field 0 lowest), + 1; 0: an empty slot */
    int32_t moves;
    int8_t to_move;
    int8_t value;
} memo_entry;

#define MEMO_BITS 21
static memo_entry *memo;

static uint64_t board_code(const thue_circle_state *s)
{
    uint64_t code = 0;
    for (int f = s->n - 1; f >= 0; f--)
        code = code * 3 + s->board[f];
    return code + 1;
}

static memo_entry *memo_slot(const thue_circle_state *s)
{
    uint64_t code = board_code(s);
    uint64_t h = thue_gmix64(code ^ (uint64_t)s->moves << 40 ^ (uint64_t)s->to_move << 62);
    uint64_t mask = ((uint64_t)1 << MEMO_BITS) - 1;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        memo_entry *e = &memo[i];
        if (e->code == 0 ||
            (e->code == code && e->moves == s->moves && e->to_move == s->to_move))
            return e;
    }
}

/* The value for the player to move under best play by both, with the cap: 1, 0, -1. */
static int naive(const thue_gopt *opt, const thue_circle_state *s)
{
    thue_gresult r;
    G->result(opt, s, &r);
    if (r.over)
        return r.winner < 0 ? 0 : r.winner == s->to_move ? 1 : -1;
    memo_entry *e = memo_slot(s);
    if (e->code != 0)
        return e->value;
    thue_gmove mv[2 * THUE_CIRCLE_FIELDS_MAX];
    int k = G->legal_moves(opt, s, mv), best = -2;
    assert_true(k > 0);
    for (int i = 0; i < k && best < 1; i++) {
        thue_circle_state c = *s;
        thue_gerr err;
        assert_int_equal(G->apply(opt, &c, s->to_move, &mv[i], &err), 0);
        int v = -naive(opt, &c);
        if (v > best)
            best = v;
    }
    e = memo_slot(s); /* the recursion may have filled slots: find it again */
    e->code = board_code(s);
    e->moves = s->moves;
    e->to_move = (int8_t)s->to_move;
    e->value = (int8_t)best;
    return best;
}

static void memo_clear(void)
{
    memset(memo, 0, sizeof *memo << MEMO_BITS);
}

/* ---------------------------------------------------------------- the checks */

static void options(int n, int cap, thue_gopt *opt)
{
    char text[80];
    thue_gerr e;
    snprintf(text, sizeof text, "{\"fields\":%d,\"move_cap\":%d}", n, cap);
    assert_int_equal(thue_game_options_text(G, text, opt, &e), 0);
}

static long checked, mismatched;

/* perfect against the reference on s (not over): the value, and that the move keeps it. */
static void check_state(const thue_gopt *opt, const thue_circle_state *s)
{
    thue_gmove best = {{-1, -1, 0, 0}};
    int value = 9;
    int rc = G->perfect(opt, s, NULL, &best, &value);
    int want = naive(opt, s);
    if (rc != 0 || value != want) {
        if (mismatched++ < 10) {
            char b[THUE_CIRCLE_FIELDS_MAX + 1];
            for (int f = 0; f < s->n; f++)
                b[f] = ".WB"[s->board[f]];
            b[s->n] = '\0';
            print_error("%d fields, board %s, %s to move, %d moves: perfect %d (rc %d), "
                        "minimax %d\n",
                        s->n, b, s->to_move == 0 ? "white" : "black", s->moves, value, rc, want);
        }
        checked++;
        return;
    }
    thue_circle_state next = *s;
    thue_gerr e;
    assert_int_equal(G->apply(opt, &next, s->to_move, &best, &e), 0);
    int after = naive(opt, &next);
    if (after != -value && mismatched++ < 10)
        print_error("%d fields, %d moves: perfect's move leads to %d, not %d\n", s->n, s->moves,
                    after, -value);
    checked++;
}

static int longest(int n)
{
    static const int known[] = {0, 0, 0, 0, 3, 4, 5, 6, 8, 12, 16, 20, 24};
    return known[n];
}

static void test_circle_cap_every_small_position(void **state)
{
    (void)state;
    checked = mismatched = 0;
    for (int n = 4; n <= 9; n++) {
        const int cap = 40;
        thue_gopt opt;
        options(n, cap, &opt);
        memo_clear();
        long boards = 1;
        for (int f = 0; f < n; f++)
            boards *= 3;
        long before = checked;
        for (long code = 0; code < boards; code++) {
            thue_circle_state s;
            memset(&s, 0, sizeof s);
            s.n = n;
            int w = 0, k = 0;
            long c = code;
            for (int f = 0; f < n; f++, c /= 3) {
                s.board[f] = (uint8_t)(c % 3);
                w += s.board[f] == 1, k += s.board[f] == 2;
            }
            if (w == 0 || k == 0)
                continue;
            for (int p = 0; p < 2; p++)
                for (int left = 1; left <= longest(n) + 2; left++) {
                    s.to_move = p;
                    s.moves = cap - left;
                    if (G->to_move(&opt, &s) < 0)
                        continue;
                    check_state(&opt, &s);
                }
        }
        print_message("%d fields: %ld positions with 1..%d moves left\n", n, checked - before,
                      longest(n) + 2);
    }
    assert_int_equal(mismatched, 0);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    return rng_state = thue_gmix64(rng_state);
}

static void test_circle_cap_big_boards_sampled(void **state)
{
    (void)state;
    checked = mismatched = 0;
    const int sizes[] = {13, 16};
    for (int i = 0; i < 2; i++) {
        int n = sizes[i];
        const int cap = 40 * n;
        thue_gopt opt;
        options(n, cap, &opt);
        memo_clear();
        long before = checked;
        for (int t = 0; t < 150; t++) {
            thue_circle_state s;
            memset(&s, 0, sizeof s);
            s.n = n;
            /* 2..4 pieces each on distinct random fields. */
            int pieces[2] = {2 + (int)(rnd() % 3), 2 + (int)(rnd() % 3)};
            for (int p = 0; p < 2; p++)
                for (int placed = 0; placed < pieces[p];) {
                    int f = (int)(rnd() % (uint64_t)n);
                    if (s.board[f] == 0)
                        s.board[f] = (uint8_t)(p + 1), placed++;
                }
            s.to_move = (int)(rnd() % 2);
            for (int left = 1; left <= 6; left++) {
                s.moves = cap - left;
                if (G->to_move(&opt, &s) >= 0)
                    check_state(&opt, &s);
            }
        }
        print_message("%d fields: %ld sampled positions with 1..6 moves left\n", n,
                      checked - before);
    }
    assert_int_equal(mismatched, 0);
}

/* The issue's example: white wins, but not within the 2 moves left: a draw. */
static void test_circle_cap_issue_example(void **state)
{
    (void)state;
    thue_gopt opt;
    options(7, 12, &opt);
    memo_clear();
    thue_circle_state s;
    memset(&s, 0, sizeof s);
    s.n = 7;
    s.board[0] = s.board[1] = 1;
    s.board[4] = 2;
    s.moves = 10;
    assert_int_equal(naive(&opt, &s), 0);
    thue_gmove best;
    int value = 9;
    assert_int_equal(G->perfect(&opt, &s, NULL, &best, &value), 0);
    assert_int_equal(value, 0);
    /* With the cap out of reach the same board is white's win. */
    s.moves = 0;
    assert_int_equal(G->perfect(&opt, &s, NULL, &best, &value), 0);
    assert_int_equal(value, 1);
    assert_int_equal(naive(&opt, &s), 1);
}

/* Where the search cannot finish (64 fields, a small node budget), perfect refuses and
 * says the cap is why; a room's perfect bot (legal_if_undecided) still moves at once, with
 * the analysis's move (game.h's fallback), which keeps the uncapped value. */
static void test_circle_cap_refusal_and_fallback(void **state)
{
    (void)state;
    thue_gopt opt;
    options(64, 2560, &opt);
    thue_circle_state s;
    memset(&s, 0, sizeof s);
    s.n = 64;
    const int white[] = {0, 20, 40, 62}, black[] = {10, 30, 50};
    for (int i = 0; i < 4; i++)
        s.board[white[i]] = 1;
    for (int i = 0; i < 3; i++)
        s.board[black[i]] = 2;
    int v = thue_circle_value(64, s.board, 0);
    assert_true(v != 0 && v != THUE_CIRCLE_UNKNOWN);
    thue_gbot_spec spec = thue_gbot_spec_default(THUE_GBOT_PERFECT);
    thue_bot_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.node_budget = 2000;
    thue_gbot_result res;
    assert_int_equal(thue_gbot_choose(G, &opt, &s, &spec, 1, &lim, &res), THUE_ETOOBIG);
    assert_non_null(strstr(res.why, "the move cap is 2560 moves away"));
    spec.legal_if_undecided = 1;
    assert_int_equal(thue_gbot_choose(G, &opt, &s, &spec, 1, &lim, &res), 0);
    assert_int_equal(res.exact, 0);
    thue_circle_state next = s;
    thue_gerr e;
    assert_int_equal(G->apply(&opt, &next, 0, &res.move, &e), 0);
    int after = thue_circle_value(64, next.board, 1);
    assert_int_equal(after, v > 0 ? -1 : 1);
}

int main(void)
{
    G = thue_game_find("circle");
    memo = malloc(sizeof *memo << MEMO_BITS);
    if (G == NULL || memo == NULL) {
        fprintf(stderr, "no circle game or no memory\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circle_cap_issue_example),
        cmocka_unit_test(test_circle_cap_every_small_position),
        cmocka_unit_test(test_circle_cap_big_boards_sampled),
        cmocka_unit_test(test_circle_cap_refusal_and_fallback),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(memo);
    return rc;
}
