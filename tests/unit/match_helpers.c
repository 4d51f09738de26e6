/*
 * match_helpers.c: the match tests' shared helpers (match_helpers.h).
 */
#include "match_helpers.h"

/*
 * Definition-level repetition check, period by period: a square of period p is a run of
 * p positions j with w[j] == w[j+p], an overlap a run of p+1. Scanning periods upwards and
 * starts left to right reports the smallest period, then the leftmost start, as
 * repetition.h promises. O(n^2), deliberately simple.
 */
int ref_repetition(const uint8_t *w, int n, thue_variant v, thue_repetition *out)
{
    for (int p = 1; 2 * p <= n; p++) {
        int need = v == THUE_SQUARE ? p : p + 1;
        int run = 0;
        for (int j = 0; j + p < n; j++) {
            run = w[j] == w[j + p] ? run + 1 : 0;
            if (run == need) {
                out->start = j - need + 1;
                out->period = p;
                out->length = p + need;
                return 1;
            }
        }
    }
    return 0;
}

thue_match_options make_opt(thue_variant v, int k, int limit, int first_builder)
{
    thue_match_options o = thue_match_defaults();
    o.variant = v;
    o.k = k;
    o.limit = limit;
    o.first_builder = first_builder;
    return o;
}

void start(thue_match *m, thue_variant v, int k, int limit, int first_builder)
{
    thue_match_options o = make_opt(v, k, limit, first_builder);
    assert_int_equal(thue_match_init(m, &o), 0);
}

void snap_take(snapshot *s, const thue_match *m)
{
    s->m = *m;
    s->sym = malloc((size_t)(m->word.len > 0 ? m->word.len : 1));
    assert_non_null(s->sym);
    if (m->word.len > 0)
        memcpy(s->sym, m->word.sym, (size_t)m->word.len);
    s->to_move = thue_match_to_move(m);
    s->builder = thue_match_builder(m);
    s->painter = thue_match_painter(m);
    s->points0 = thue_match_points(m, 0);
    s->points1 = thue_match_points(m, 1);
}

void snap_assert_same(snapshot *s, const thue_match *m)
{
    const thue_match *a = &s->m;
    assert_int_equal(m->opt.variant, a->opt.variant);
    assert_int_equal(m->opt.k, a->opt.k);
    assert_int_equal(m->opt.limit, a->opt.limit);
    assert_int_equal(m->opt.first_builder, a->opt.first_builder);
    assert_int_equal(m->round, a->round);
    assert_int_equal(m->step, a->step);
    assert_int_equal(m->placed, a->placed);
    assert_ptr_equal(m->word.sym, a->word.sym);
    assert_int_equal(m->word.len, a->word.len);
    assert_int_equal(m->word.cap, a->word.cap);
    if (a->word.len > 0)
        assert_memory_equal(m->word.sym, s->sym, (size_t)a->word.len);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(m->rounds[r].builder, a->rounds[r].builder);
        assert_int_equal(m->rounds[r].points, a->rounds[r].points);
        assert_int_equal(m->rounds[r].end, a->rounds[r].end);
        assert_int_equal(m->rounds[r].rep.start, a->rounds[r].rep.start);
        assert_int_equal(m->rounds[r].rep.period, a->rounds[r].rep.period);
        assert_int_equal(m->rounds[r].rep.length, a->rounds[r].rep.length);
    }
    assert_int_equal(m->reason, a->reason);
    assert_int_equal(m->winner, a->winner);
    assert_int_equal(m->forfeiter, a->forfeiter);
    assert_int_equal(m->moves, a->moves);
    assert_int_equal(thue_match_to_move(m), s->to_move);
    assert_int_equal(thue_match_builder(m), s->builder);
    assert_int_equal(thue_match_painter(m), s->painter);
    assert_int_equal(thue_match_points(m, 0), s->points0);
    assert_int_equal(thue_match_points(m, 1), s->points1);
    free(s->sym);
    s->sym = NULL;
}

void assert_word(const thue_match *m, const uint8_t *want, int n)
{
    assert_int_equal(m->word.len, n);
    assert_memory_equal(m->word.sym, want, (size_t)n);
}

void assert_word_is_zero(const thue_match *m)
{
    static const uint8_t zero[1] = {0};
    assert_word(m, zero, 1);
}

/* The builder of the current round places at i. */
void place_ok(thue_match *m, int i)
{
    assert_int_equal(m->step, THUE_STEP_PLACE);
    int b = thue_match_builder(m);
    assert_int_equal(thue_match_to_move(m), b);
    assert_int_equal(thue_match_place(m, b, i), 0);
    assert_int_equal(m->step, THUE_STEP_PAINT);
    assert_int_equal(m->placed, i);
    assert_int_equal(thue_match_to_move(m), thue_match_painter(m));
}

/* The painter of the current round paints c. */
void paint_ok(thue_match *m, int c)
{
    assert_int_equal(m->step, THUE_STEP_PAINT);
    int p = thue_match_painter(m);
    assert_int_equal(thue_match_to_move(m), p);
    assert_int_equal(thue_match_paint(m, p, c), 0);
}

void move_ok(thue_match *m, int i, int c)
{
    place_ok(m, i);
    paint_ok(m, c);
}

/*
 * Plays the current round (square variant, k > pts + 1, limit > pts): the painter scores
 * pts points with fresh symbols 1..pts appended at the end, then the builder places at the
 * end and the painter repeats the last symbol, a square of period 1.
 */
void play_round(thue_match *m, int pts)
{
    int r = m->round;
    assert_int_equal(m->opt.variant, THUE_SQUARE);
    assert_true(pts + 1 < m->opt.k && pts < m->opt.limit);
    for (int j = 0; j < pts; j++) {
        move_ok(m, m->word.len, j + 1);
        assert_int_equal(m->round, r);
        assert_int_equal(m->rounds[r].points, j + 1);
    }
    int n = m->word.len;
    place_ok(m, n);
    paint_ok(m, m->word.sym[n - 1]);
    assert_int_equal(m->rounds[r].end, THUE_ROUND_REPETITION);
    assert_int_equal(m->rounds[r].points, pts);
    assert_int_equal(m->rounds[r].rep.start, n - 1);
    assert_int_equal(m->rounds[r].rep.period, 1);
    assert_int_equal(m->rounds[r].rep.length, 2);
}

void check_over_rejects(thue_match *m)
{
    assert_true(thue_match_over(m));
    assert_int_equal(thue_match_to_move(m), -1);
    for (int pl = 0; pl < 2; pl++) {
        EXPECT_REJECT(m, thue_match_place(m, pl, 0), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_place(m, pl, 1), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_paint(m, pl, 0), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_paint(m, pl, 1), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_forfeit(m, pl, THUE_END_RESIGN), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_forfeit(m, pl, THUE_END_TIMEOUT), THUE_EOVER);
        EXPECT_REJECT(m, thue_match_forfeit(m, pl, THUE_END_ABANDON), THUE_EOVER);
    }
}
