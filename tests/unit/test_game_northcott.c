/*
 * test_game_northcott.c: Northcott's game (server/games/northcott) behind game.h.
 *
 * The reference is a retrograde analysis WITH draws over every position of small boards
 * (both players to move), written from the rules alone: a position whose mover has no
 * move is lost; one with a move to a lost position is won; one whose every move leads
 * to a won position is lost; whatever stays undecided (the game graph has cycles,
 * because pieces may move back) is a draw. The move cap plays no part there (the
 * options set it to 100000, beyond every line the perfect player needs). On every
 * position: the game's listed moves reach exactly the reference's successors, the
 * perfect value equals the retrograde's (so no position is a draw and the value is
 * "nim-sum of the gaps != 0", as the source says), and the perfect move of a won
 * position reaches a position the retrograde calls lost.
 *
 * Also: the perfect player against a random one from random 8x8 starts wins every game
 * well within the default cap; the rules' refusals; options and positions; the cap's
 * draw; the conformance checker (game_check.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game_check.h"
#include "games/game.h"
#include "games/northcott/northcott.h"
#include "games/registry.h"

static const thue_gamedef *game(void)
{
    return game_check_find("northcott");
}

static void opts(const char *text, thue_gopt *opt)
{
    game_check_options(game(), text, opt);
}

static int parse_pos(const thue_gopt *opt, const char *text, void *st, thue_gerr *e)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    int rc = game()->position_parse(opt, j, st, e);
    json_decref(j);
    return rc;
}

/* ---- the retrograde reference --------------------------------------------------------- */

#define MAXR 4

/* A position: each row's white and black column, and the mover. */
typedef struct pos {
    int w[MAXR], b[MAXR];
    int mover;
} pos;

typedef struct board {
    int rows, cols;
    long count;       /* index space: (cols * cols)^rows * 2 */
    signed char *val; /* 1 win, -1 loss, 0 draw, for the mover; 2 for an index no position has */
    int *left;        /* successors not yet known to be wins for the opponent */
} board;

static long encode(const board *bd, const pos *p)
{
    long k = 0;
    for (int r = bd->rows - 1; r >= 0; r--)
        k = k * bd->cols * bd->cols + p->w[r] * bd->cols + p->b[r];
    return k * 2 + p->mover;
}

/* 0 when the index names no position (two pieces on one square). */
static int decode(const board *bd, long k, pos *p)
{
    p->mover = (int)(k % 2);
    k /= 2;
    for (int r = 0; r < bd->rows; r++) {
        int cell = (int)(k % (bd->cols * bd->cols));
        k /= bd->cols * bd->cols;
        p->w[r] = cell / bd->cols, p->b[r] = cell % bd->cols;
        if (p->w[r] == p->b[r])
            return 0;
    }
    return 1;
}

/* Every slide of `who`'s pieces: the piece stays on its side of the other one. */
static int slides(const board *bd, const pos *p, int who, pos *out)
{
    int n = 0;
    for (int r = 0; r < bd->rows; r++) {
        int own = who == 0 ? p->w[r] : p->b[r], opp = who == 0 ? p->b[r] : p->w[r];
        for (int c = 0; c < bd->cols; c++) {
            if (c == own || c == opp || (c < opp) != (own < opp))
                continue;
            /* nothing between own and c may be the opponent's piece */
            int lo = own < c ? own : c, hi = own < c ? c : own, blocked = 0;
            for (int x = lo + 1; x < hi; x++)
                blocked |= x == opp;
            if (blocked)
                continue;
            pos q = *p;
            if (who == 0)
                q.w[r] = c;
            else
                q.b[r] = c;
            out[n++] = q;
        }
    }
    return n;
}

static void retrograde(board *bd)
{
    bd->count = 2;
    for (int r = 0; r < bd->rows; r++)
        bd->count *= bd->cols * bd->cols;
    bd->val = malloc((size_t)bd->count);
    bd->left = malloc(sizeof *bd->left * (size_t)bd->count);
    long *queue = malloc(sizeof *queue * (size_t)bd->count);
    pos *buf = malloc(sizeof *buf * (size_t)(MAXR * 32));
    assert_non_null(bd->val);
    assert_non_null(bd->left);
    assert_non_null(queue);
    assert_non_null(buf);
    long head = 0, tail = 0;
    for (long k = 0; k < bd->count; k++) {
        pos p;
        bd->val[k] = 2;
        if (!decode(bd, k, &p))
            continue;
        bd->val[k] = 0;
        bd->left[k] = slides(bd, &p, p.mover, buf);
        if (bd->left[k] == 0) {
            bd->val[k] = -1;
            queue[tail++] = k;
        }
    }
    while (head < tail) {
        long k = queue[head++];
        pos p;
        decode(bd, k, &p);
        /* The predecessors: the other player slid one of their pieces to get here (a
         * slide is undone by the reverse slide, legal under the same rule). */
        int n = slides(bd, &p, p.mover ^ 1, buf);
        for (int i = 0; i < n; i++) {
            buf[i].mover = p.mover ^ 1;
            long pk = encode(bd, &buf[i]);
            if (bd->val[pk] != 0)
                continue;
            if (bd->val[k] < 0) {
                bd->val[pk] = 1;
                queue[tail++] = pk;
            } else if (--bd->left[pk] == 0) {
                bd->val[pk] = -1;
                queue[tail++] = pk;
            }
        }
    }
    free(queue);
    free(buf);
}

static void pos_text(const board *bd, const pos *p, char *out, size_t size)
{
    int at = snprintf(out, size, "{\"white\":[");
    for (int r = 0; r < bd->rows; r++)
        at += snprintf(out + at, size - (size_t)at, "%s%d", r ? "," : "", p->w[r]);
    at += snprintf(out + at, size - (size_t)at, "],\"black\":[");
    for (int r = 0; r < bd->rows; r++)
        at += snprintf(out + at, size - (size_t)at, "%s%d", r ? "," : "", p->b[r]);
    snprintf(out + at, size - (size_t)at, "],\"to_move\":%d}", p->mover);
}

/* A game state read back into a pos (the mover after a move is the other player). */
static void state_pos(const thue_gopt *opt, const void *st, int mover, pos *p)
{
    json_t *j = game()->state_json(opt, st);
    assert_non_null(j);
    const json_t *w = json_object_get(j, "white"), *b = json_object_get(j, "black");
    for (size_t r = 0; r < json_array_size(w); r++) {
        p->w[r] = (int)json_integer_value(json_array_get(w, r));
        p->b[r] = (int)json_integer_value(json_array_get(b, r));
    }
    p->mover = mover;
    json_decref(j);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

typedef struct totals {
    long positions, wins, losses, draws, moves;
} totals;

static void check_board(int rows, int cols, totals *t)
{
    board bd = {.rows = rows, .cols = cols};
    retrograde(&bd);
    const thue_gamedef *g = game();
    char text[256];
    snprintf(text, sizeof text, "{\"rows\":%d,\"cols\":%d,\"move_cap\":100000}", rows, cols);
    thue_gopt opt;
    opts(text, &opt);
    size_t size = g->state_size(&opt);
    unsigned char *st = malloc(size), *child = malloc(size);
    int max = g->max_moves(&opt);
    thue_gmove *moves = malloc(sizeof *moves * (size_t)max);
    pos *succ = malloc(sizeof *succ * (size_t)(MAXR * 32));
    long *want = malloc(sizeof *want * (size_t)(MAXR * 32)),
         *got = malloc(sizeof *got * (size_t)max);
    assert_non_null(st);
    assert_non_null(child);
    assert_non_null(moves);
    assert_non_null(succ);
    assert_non_null(want);
    assert_non_null(got);
    thue_gerr e;
    for (long k = 0; k < bd.count; k++) {
        if (bd.val[k] == 2)
            continue;
        pos p;
        decode(&bd, k, &p);
        t->positions++;
        if (bd.val[k] == 0) {
            t->draws++;
            pos_text(&bd, &p, text, sizeof text);
            print_error("%dx%d: %s is a draw by retrograde analysis\n", rows, cols, text);
        }
        t->wins += bd.val[k] > 0;
        t->losses += bd.val[k] < 0;
        pos_text(&bd, &p, text, sizeof text);
        assert_int_equal(parse_pos(&opt, text, st, &e), 0);

        /* The listed moves reach exactly the reference's successors. */
        int ns = slides(&bd, &p, p.mover, succ);
        for (int i = 0; i < ns; i++) {
            succ[i].mover = p.mover ^ 1;
            want[i] = encode(&bd, &succ[i]);
        }
        int n = g->legal_moves(&opt, st, moves);
        assert_int_equal(n, ns);
        for (int i = 0; i < n; i++) {
            memcpy(child, st, size);
            assert_int_equal(g->apply(&opt, child, p.mover, &moves[i], &e), 0);
            pos q;
            state_pos(&opt, child, p.mover ^ 1, &q);
            got[i] = encode(&bd, &q);
        }
        qsort(want, (size_t)ns, sizeof *want, cmp_long);
        qsort(got, (size_t)n, sizeof *got, cmp_long);
        assert_memory_equal(want, got, sizeof *got * (size_t)n);
        t->moves += n;

        /* The perfect player agrees with the retrograde. */
        thue_gmove best = {{-1, -1, 0, 0}};
        int value = 9;
        assert_int_equal(g->perfect(&opt, st, NULL, &best, &value), 0);
        if (value != bd.val[k])
            print_error("%dx%d: %s: perfect %d, retrograde %d\n", rows, cols, text, value,
                        bd.val[k]);
        assert_int_equal(value, bd.val[k]);
        int x = 0;
        for (int r = 0; r < rows; r++)
            x ^= abs(p.w[r] - p.b[r]) - 1;
        assert_int_equal(value, x != 0 ? 1 : -1);
        if (n == 0)
            continue;
        memcpy(child, st, size);
        assert_int_equal(g->apply(&opt, child, p.mover, &best, &e), 0);
        if (value > 0) {
            pos q;
            state_pos(&opt, child, p.mover ^ 1, &q);
            assert_int_equal(bd.val[encode(&bd, &q)], -1);
        }
    }
    free(st);
    free(child);
    free(moves);
    free(succ);
    free(want);
    free(got);
    free(bd.val);
    free(bd.left);
}

static void test_northcott_perfect_matches_retrograde(void **state)
{
    (void)state;
    static const int boards[][2] = {{1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {1, 7},
                                    {1, 8}, {2, 2}, {2, 3}, {2, 4}, {2, 5}, {2, 6},
                                    {2, 7}, {3, 3}, {3, 4}, {3, 5}, {4, 3}, {4, 4}};
    totals t = {0};
    for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
        totals b = {0};
        check_board(boards[i][0], boards[i][1], &b);
        assert_int_equal(b.draws, 0);
        t.positions += b.positions, t.wins += b.wins, t.losses += b.losses;
        t.draws += b.draws, t.moves += b.moves;
    }
    /* Every position of every board: (C * (C - 1))^R * 2. */
    long expect = 0;
    for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
        long n = 2;
        for (int r = 0; r < boards[i][0]; r++)
            n *= boards[i][1] * (boards[i][1] - 1);
        expect += n;
    }
    assert_int_equal(t.positions, expect);
    print_message("northcott: %ld positions on %zu boards (1x2..4x4): %ld won, %ld lost, %ld "
                  "drawn by retrograde analysis; %ld moves matched; perfect agrees everywhere\n",
                  t.positions, sizeof boards / sizeof boards[0], t.wins, t.losses, t.draws,
                  t.moves);
}

/* ---- the perfect player against a random one ------------------------------------------ */

static void test_northcott_perfect_beats_random(void **state)
{
    (void)state;
    const thue_gamedef *g = game();
    thue_gopt opt;
    opts(NULL, &opt);
    json_t *oj = g->options_json(&opt);
    int cap = (int)json_integer_value(json_object_get(oj, "move_cap"));
    json_decref(oj);
    assert_int_equal(cap, 10 * 8 * 8);
    size_t size = g->state_size(&opt);
    unsigned char *st = malloc(size);
    thue_gmove *moves = malloc(sizeof *moves * (size_t)g->max_moves(&opt));
    assert_non_null(st);
    assert_non_null(moves);
    thue_gerr e;
    int longest = 0, won[2] = {0, 0};
    long total = 0;
    const int games = 400;
    for (int seed = 1; seed <= games; seed++) {
        g->start(&opt, (uint64_t)seed, st);
        thue_gmove best;
        int value;
        assert_int_equal(g->perfect(&opt, st, NULL, &best, &value), 0);
        int perfect_side = value > 0 ? 0 : 1; /* the player the nim-sum favours */
        uint64_t rng = (uint64_t)seed;
        int plies = 0;
        for (int who; (who = g->to_move(&opt, st)) >= 0; plies++) {
            thue_gmove m;
            if (who == perfect_side) {
                int v;
                assert_int_equal(g->perfect(&opt, st, NULL, &m, &v), 0);
                assert_int_equal(v, 1); /* a won position stays won */
            } else {
                int n = g->legal_moves(&opt, st, moves);
                rng = thue_gmix64(rng + 0x9E3779B97F4A7C15ull);
                m = moves[rng % (uint64_t)n];
            }
            assert_int_equal(g->apply(&opt, st, who, &m, &e), 0);
        }
        thue_gresult r;
        g->result(&opt, st, &r);
        assert_int_equal(r.winner, perfect_side);
        assert_string_equal(r.why, "no_moves");
        /* The winner's pieces only go forward: at most 2 * rows * (cols - 2) moves. */
        assert_true(plies <= 2 * 8 * 6);
        won[perfect_side]++;
        total += plies;
        if (plies > longest)
            longest = plies;
    }
    print_message("northcott 8x8: the perfect player won %d/%d games against random (%d as "
                  "white, %d as black), longest %d moves, mean %.1f, cap %d\n",
                  won[0] + won[1], games, won[0], won[1], longest, (double)total / games, cap);
    free(st);
    free(moves);
}

/* The opponent that makes games longest: the farthest retreat it has, else random. */
static thue_gmove stall(const thue_gamedef *g, const thue_gopt *opt, const void *st,
                        thue_gmove *moves, uint64_t *rng)
{
    int n = g->legal_moves(opt, st, moves);
    json_t *j = g->state_json(opt, st);
    int who = g->to_move(opt, st), best = -1, far = 0;
    for (int i = 0; i < n; i++) {
        size_t r = (size_t)moves[i].v[0];
        int own =
            (int)json_integer_value(json_array_get(json_object_get(j, who ? "black" : "white"), r));
        int opp =
            (int)json_integer_value(json_array_get(json_object_get(j, who ? "white" : "black"), r));
        int back = own < opp ? own - moves[i].v[1] : moves[i].v[1] - own;
        if (back > far)
            far = back, best = i;
    }
    json_decref(j);
    *rng = thue_gmix64(*rng + 0x9E3779B97F4A7C15ull);
    return best >= 0 ? moves[best] : moves[*rng % (uint64_t)n];
}

/* With a tight cap, perfect() answers only when the cap cannot decide: then the favoured
 * player wins before the cap even against an opponent who retreats as far as it can. */
static void test_northcott_perfect_respects_cap(void **state)
{
    (void)state;
    const thue_gamedef *g = game();
    thue_gopt opt;
    opts("{\"rows\":6,\"cols\":10,\"move_cap\":70}", &opt);
    size_t size = g->state_size(&opt);
    unsigned char *st = malloc(size);
    thue_gmove *moves = malloc(sizeof *moves * (size_t)g->max_moves(&opt));
    assert_non_null(st);
    assert_non_null(moves);
    thue_gerr e;
    int exact = 0, toobig = 0, longest = 0;
    for (int seed = 1; seed <= 300; seed++) {
        g->start(&opt, (uint64_t)seed, st);
        thue_gmove m;
        int value;
        int rc = g->perfect(&opt, st, NULL, &m, &value);
        if (rc == THUE_ETOOBIG) {
            toobig++;
            continue;
        }
        assert_int_equal(rc, 0);
        exact++;
        int perfect_side = value > 0 ? 0 : 1, plies = 0;
        uint64_t rng = (uint64_t)seed;
        for (int who; (who = g->to_move(&opt, st)) >= 0; plies++) {
            if (who == perfect_side) {
                int v;
                assert_int_equal(g->perfect(&opt, st, NULL, &m, &v), 0);
                assert_int_equal(v, 1);
            } else {
                m = stall(g, &opt, st, moves, &rng);
            }
            assert_int_equal(g->apply(&opt, st, who, &m, &e), 0);
        }
        thue_gresult r;
        g->result(&opt, st, &r);
        assert_int_equal(r.winner, perfect_side);
        if (plies > longest)
            longest = plies;
    }
    assert_true(exact > 0 && toobig > 0);
    print_message("northcott 6x10, cap 70: %d starts exact (won against a retreating opponent, "
                  "longest %d moves), %d left to the cap (THUE_ETOOBIG)\n",
                  exact, longest, toobig);
    free(st);
    free(moves);
}

/* ---- rules, options, positions ---------------------------------------------------------- */

static void test_northcott_rules(void **state)
{
    (void)state;
    const thue_gamedef *g = game();
    thue_gopt opt;
    opts("{\"rows\":2,\"cols\":6,\"start\":[[1,4],[5,0]]}", &opt);
    unsigned char st[256], before[256];
    size_t size = g->state_size(&opt);
    assert_true(size <= sizeof st);
    g->start(&opt, 12345, st);
    char *t = thue_game_dump(g->state_json(&opt, st));
    assert_string_equal(t, "{\"rows\":2,\"cols\":6,\"white\":[1,5],\"black\":[4,0],\"to_move\":0,"
                           "\"moves\":0}");
    free(t);
    char key[16];
    g->pool_key(&opt, key, sizeof key);
    assert_string_equal(key, "2x6");
    thue_gerr e;
    memcpy(before, st, size);
    static const struct {
        const char *move;
        int player, code;
        const char *field;
    } bad[] = {
        {"{\"row\":0,\"to\":5}", 0, THUE_EILLEGAL, "to"},  /* over black's piece */
        {"{\"row\":0,\"to\":4}", 0, THUE_EILLEGAL, "to"},  /* onto it */
        {"{\"row\":0,\"to\":1}", 0, THUE_EILLEGAL, "to"},  /* where it stands */
        {"{\"row\":0,\"to\":6}", 0, THUE_EILLEGAL, "to"},  /* off the board */
        {"{\"row\":2,\"to\":1}", 0, THUE_EILLEGAL, "row"}, /* no such row */
        {"{\"row\":0,\"to\":2}", 1, THUE_ETURN, ""},
        {"{\"row\":0,\"to\":2}", 2, THUE_EPLAYER, ""},
        {"{\"row\":0,\"to\":-1}", 0, THUE_EMOVE, "to"},
        {"{\"row\":16,\"to\":1}", 0, THUE_EMOVE, "row"},
        {"{\"row\":0}", 0, THUE_EMOVE, "to"},
        {"{\"row\":0,\"to\":2,\"by\":1}", 0, THUE_EMOVE, "by"},
        {"{\"row\":\"0\",\"to\":2}", 0, THUE_EMOVE, "row"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&e, 0, sizeof e);
        int rc = thue_game_apply_text(g, &opt, st, bad[i].player, bad[i].move, &e);
        if (rc != bad[i].code)
            print_error("%s: %d\n", bad[i].move, rc);
        assert_int_equal(rc, bad[i].code);
        assert_string_equal(e.field, bad[i].field);
        assert_true(e.msg[0] != '\0');
        assert_memory_equal(st, before, size);
    }
    /* Forward, backward, and the row where white is right of black. */
    assert_int_equal(thue_game_apply_text(g, &opt, st, 0, "{\"row\":0,\"to\":3}", &e), 0);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 1, "{\"row\":1,\"to\":4}", &e), 0);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 0, "{\"row\":0,\"to\":0}", &e), 0);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 1, "{\"row\":0,\"to\":1}", &e), 0);
    /* white 0|1 black, white 5 black 4: white can still go nowhere in row 0, nowhere in
     * row 1 (5 is the edge, 4 is black): white has lost. */
    t = thue_game_dump(g->state_json(&opt, st));
    assert_string_equal(t, "{\"rows\":2,\"cols\":6,\"white\":[0,5],\"black\":[1,4],\"to_move\":0,"
                           "\"moves\":4}");
    assert_int_equal(g->to_move(&opt, st), -1);
    free(t);
    thue_gresult r;
    g->result(&opt, st, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, 1);
    assert_int_equal(r.score[1], 1);
    assert_string_equal(r.why, "no_moves");
    assert_int_equal(thue_game_apply_text(g, &opt, st, 0, "{\"row\":0,\"to\":1}", &e), THUE_EOVER);

    /* The cap: two players who only shuffle draw after move_cap moves. */
    opts("{\"rows\":1,\"cols\":8,\"start\":[[2,5]],\"move_cap\":4}", &opt);
    g->start(&opt, 0, st);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 0, "{\"row\":0,\"to\":1}", &e), 0);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 1, "{\"row\":0,\"to\":6}", &e), 0);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 0, "{\"row\":0,\"to\":2}", &e), 0);
    assert_int_equal(g->to_move(&opt, st), 1);
    thue_gmove best;
    int value;
    assert_int_equal(g->perfect(&opt, st, NULL, &best, &value), THUE_ETOOBIG); /* 1 move left */
    /* It says the cap is why (not a budget: there is no search). */
    char why[200] = "";
    thue_gctl ctl = {.why = why, .why_size = sizeof why};
    assert_int_equal(g->perfect(&opt, st, &ctl, &best, &value), THUE_ETOOBIG);
    assert_non_null(strstr(why, "the move cap is 1 move away"));
    assert_null(strstr(why, "budget"));
    assert_int_equal(thue_game_apply_text(g, &opt, st, 1, "{\"row\":0,\"to\":5}", &e), 0);
    g->result(&opt, st, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, -1);
    assert_string_equal(r.why, "move_cap");
    t = thue_game_dump(g->state_json(&opt, st));
    assert_string_equal(t, "{\"rows\":1,\"cols\":8,\"white\":[2],\"black\":[5],\"to_move\":0,"
                           "\"moves\":4}");
    assert_int_equal(g->to_move(&opt, st), -1);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 0, "{\"row\":0,\"to\":1}", &e), THUE_EOVER);
    free(t);
    assert_int_equal(g->perfect(&opt, st, NULL, &best, &value), 0);
    assert_int_equal(value, 0);
    /* The move that reaches the cap and leaves the opponent stuck wins. */
    opts("{\"rows\":1,\"cols\":3,\"start\":[[0,2]],\"move_cap\":1}", &opt);
    g->start(&opt, 0, st);
    assert_int_equal(thue_game_apply_text(g, &opt, st, 0, "{\"row\":0,\"to\":1}", &e), 0);
    g->result(&opt, st, &r);
    assert_int_equal(r.winner, 0);
    assert_string_equal(r.why, "no_moves");
    /* 1x2: white is stuck from the start. */
    opts("{\"rows\":1,\"cols\":2}", &opt);
    g->start(&opt, 7, st);
    g->result(&opt, st, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, 1);
}

static void expect_options_error(const char *text, const char *field)
{
    thue_gopt opt;
    thue_gerr e;
    memset(&e, 0, sizeof e);
    int rc = thue_game_options_text(game(), text, &opt, &e);
    if (rc != THUE_EOPTIONS)
        print_error("options %s: got %d\n", text, rc);
    assert_int_equal(rc, THUE_EOPTIONS);
    assert_true(e.msg[0] != '\0');
    assert_string_equal(e.field, field);
}

static void expect_position_error(const thue_gopt *opt, const char *text, const char *field)
{
    unsigned char st[256];
    thue_gerr e;
    memset(&e, 0, sizeof e);
    int rc = parse_pos(opt, text, st, &e);
    if (rc != THUE_ESTATE)
        print_error("position %s: got %d\n", text, rc);
    assert_int_equal(rc, THUE_ESTATE);
    assert_true(e.msg[0] != '\0');
    assert_string_equal(e.field, field);
}

static void test_northcott_options_and_positions(void **state)
{
    (void)state;
    const thue_gamedef *g = game();
    thue_gopt opt;
    opts(NULL, &opt);
    char *t = thue_game_dump(g->options_json(&opt));
    assert_string_equal(t, "{\"rows\":8,\"cols\":8,\"start\":\"random\",\"move_cap\":640}");
    free(t);
    char key[16];
    g->pool_key(&opt, key, sizeof key);
    assert_string_equal(key, "8x8");
    opts("{\"rows\":16,\"cols\":32}", &opt);
    t = thue_game_dump(g->options_json(&opt));
    assert_string_equal(t, "{\"rows\":16,\"cols\":32,\"start\":\"random\",\"move_cap\":5120}");
    free(t);
    assert_int_equal(g->max_moves(&opt), 16 * 30);
    expect_options_error("{\"rows\":0}", "rows");
    expect_options_error("{\"rows\":17}", "rows");
    expect_options_error("{\"cols\":1}", "cols");
    expect_options_error("{\"cols\":33}", "cols");
    expect_options_error("{\"cols\":\"8\"}", "cols");
    expect_options_error("{\"move_cap\":0}", "move_cap");
    expect_options_error("{\"move_cap\":100001}", "move_cap");
    expect_options_error("{\"start\":\"fixed\"}", "start");
    expect_options_error("{\"rows\":2,\"start\":[[0,1]]}", "start");
    expect_options_error("{\"rows\":2,\"start\":[[0,1],[3,3]]}", "start/1");
    expect_options_error("{\"rows\":1,\"cols\":4,\"start\":[[0,4]]}", "start/0");
    expect_options_error("{\"rows\":1,\"start\":[[0,1,2]]}", "start/0");
    expect_options_error("{\"size\":8}", "size");

    /* Random starts: distinct squares, the same for a seed, and they vary. */
    opts("{\"rows\":16,\"cols\":3}", &opt);
    unsigned char a[256], b[256];
    size_t size = g->state_size(&opt);
    int differ = 0;
    for (uint64_t seed = 0; seed < 50; seed++) {
        g->start(&opt, seed, a);
        g->start(&opt, seed, b);
        assert_memory_equal(a, b, size);
        g->start(&opt, seed + 1000, b);
        differ += memcmp(a, b, size) != 0;
        json_t *j = g->state_json(&opt, a);
        for (size_t r = 0; r < 16; r++) {
            json_int_t w = json_integer_value(json_array_get(json_object_get(j, "white"), r));
            json_int_t k = json_integer_value(json_array_get(json_object_get(j, "black"), r));
            assert_true(w >= 0 && w < 3 && k >= 0 && k < 3 && w != k);
        }
        json_decref(j);
    }
    assert_true(differ >= 45);

    /* Positions. */
    opts("{\"rows\":2,\"cols\":5}", &opt);
    unsigned char st[256];
    thue_gerr e;
    assert_int_equal(parse_pos(&opt, "{\"white\":[0,4],\"black\":[3,1]}", st, &e), 0);
    t = thue_game_dump(g->state_json(&opt, st));
    assert_string_equal(t, "{\"rows\":2,\"cols\":5,\"white\":[0,4],\"black\":[3,1],\"to_move\":0,"
                           "\"moves\":0}");
    free(t);
    expect_position_error(&opt, "{\"rows\":3,\"white\":[0,4],\"black\":[3,1]}", "rows");
    expect_position_error(&opt, "{\"cols\":6,\"white\":[0,4],\"black\":[3,1]}", "cols");
    expect_position_error(&opt, "{\"white\":[0],\"black\":[3,1]}", "white");
    expect_position_error(&opt, "{\"white\":[0,5],\"black\":[3,1]}", "white/1");
    expect_position_error(&opt, "{\"white\":[0,4],\"black\":[3,4]}", "black");
    expect_position_error(&opt, "{\"white\":[0,4]}", "black");
    expect_position_error(&opt, "{\"white\":[0,4],\"black\":[3,1],\"to_move\":2}", "to_move");
    expect_position_error(&opt, "{\"white\":[0,4],\"black\":[3,1],\"gaps\":[2,2]}", "gaps");
    expect_position_error(&opt, "{\"white\":[0,4],\"black\":[3,1],\"to_move\":-1}", "to_move");
    expect_position_error(&opt, "{\"white\":[0,4],\"black\":[3,1],\"winner\":1}", "winner");
    expect_position_error(&opt, "{\"white\":[0,4],\"black\":[3,1],\"moves\":-1}", "moves");
    /* At the cap: drawn, unless the mover is stuck. */
    assert_int_equal(parse_pos(&opt, "{\"white\":[0,4],\"black\":[3,1],\"moves\":100}", st, &e), 0);
    thue_gresult r;
    g->result(&opt, st, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, -1);
    assert_int_equal(parse_pos(&opt, "{\"white\":[0,4],\"black\":[3,1],\"moves\":99}", st, &e), 0);
    assert_int_equal(g->to_move(&opt, st), 0);
    assert_int_equal(parse_pos(&opt, "{\"white\":[0,4],\"black\":[1,3],\"moves\":100}", st, &e), 0);
    g->result(&opt, st, &r);
    assert_int_equal(r.winner, 1);
    assert_string_equal(r.why, "no_moves");
    /* A stuck mover: the game is over, to_move kept in the JSON. */
    assert_int_equal(parse_pos(&opt, "{\"white\":[0,4],\"black\":[1,3],\"to_move\":0}", st, &e), 0);
    assert_int_equal(g->to_move(&opt, st), -1);
}

/* ---- conformance ----------------------------------------------------------------------- */

static void run_check(const char *options, int seeds, int max_plies)
{
    game_check_cfg cfg = {
        .options = options, .seeds = seeds, .max_plies = max_plies, .moves_per_state = 300};
    game_check_stats st;
    game_check(game(), &cfg, &st);
    print_message("northcott %s: %ld states, %ld moves round-tripped, %ld refusals, %ld "
                  "equivalent nudged moves; wins %ld/%ld, draws %ld\n",
                  options != NULL ? options : "(defaults)", st.states, st.moves, st.refused,
                  st.accepted, st.ended[0], st.ended[1], st.ended[2]);
}

static void test_northcott_conformance(void **state)
{
    (void)state;
    run_check(NULL, 10, 640);
    run_check("{\"rows\":3,\"cols\":4,\"move_cap\":12}", 40, 12);
    run_check("{\"rows\":2,\"cols\":5,\"start\":[[0,4],[3,1]]}", 10, 100);
    run_check("{\"rows\":1,\"cols\":2}", 3, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_northcott_perfect_matches_retrograde),
        cmocka_unit_test(test_northcott_perfect_beats_random),
        cmocka_unit_test(test_northcott_perfect_respects_cap),
        cmocka_unit_test(test_northcott_rules),
        cmocka_unit_test(test_northcott_options_and_positions),
        cmocka_unit_test(test_northcott_conformance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
