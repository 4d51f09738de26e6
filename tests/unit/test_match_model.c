/*
 * test_match_model.c: random matches (valid and invalid calls from a fixed-seed
 * generator) played through games/thue/engine/match.h and checked call by call against a plain
 * reference model of the rules, with a definition-level repetition check of its own
 * (nothing shared with repetition.c).
 */
#include "match_helpers.h"

/* ---------------------------------------------------------------- helpers */

/* splitmix64: a small deterministic generator for the random test (not rand()). */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int rnd_below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}
/* Uniform in lo..hi inclusive. */
static int rnd_range(int lo, int hi)
{
    return lo + rnd_below(hi - lo + 1);
}

/* ---------------------------------------------------------------- random vs a model */

#define MODEL_MAX_LIMIT 40
#define MODEL_MAX_WORD (MODEL_MAX_LIMIT + 2)

/* The rules of RULES.md, written plainly. */
typedef struct model {
    thue_match_options opt;
    int round;
    thue_step step;
    int placed;
    uint8_t w[MODEL_MAX_WORD];
    int n;
    int builder[2];
    int points[2];
    thue_round_end end[2];
    thue_repetition rep[2];
    thue_end_reason reason;
    int winner, forfeiter, moves;
} model;

static void model_init(model *md, const thue_match_options *o)
{
    memset(md, 0, sizeof *md);
    md->opt = *o;
    md->step = THUE_STEP_PLACE;
    md->n = 1;
    md->builder[0] = o->first_builder;
    md->builder[1] = 1 - o->first_builder;
    md->reason = THUE_END_NONE;
    md->winner = -1;
    md->forfeiter = -1;
}

static int model_to_move(const model *md)
{
    if (md->step == THUE_STEP_OVER)
        return -1;
    int b = md->builder[md->round];
    return md->step == THUE_STEP_PLACE ? b : 1 - b;
}

static int model_points(const model *md, int player)
{
    int s = 0;
    for (int r = 0; r < 2; r++)
        if (md->builder[r] != player)
            s += md->points[r];
    return s;
}

static void model_next_round(model *md)
{
    if (md->round == 0) {
        md->round = 1;
        md->w[0] = 0;
        md->n = 1;
        md->step = THUE_STEP_PLACE;
        return;
    }
    md->step = THUE_STEP_OVER;
    md->reason = THUE_END_SCORE;
    int p0 = model_points(md, 0), p1 = model_points(md, 1);
    md->winner = p0 > p1 ? 0 : p1 > p0 ? 1 : -1;
}

#define BIT(code) (1u << (unsigned)-(code))

/* The set of acceptable results of a call (bit 0: success). Every fault the call has is
 * acceptable; the order in which the engine checks them is not the test's business. */
static unsigned model_faults_move(const model *md, int place, int player, int arg)
{
    unsigned f = 0;
    bool over = md->step == THUE_STEP_OVER;
    if (over)
        f |= BIT(THUE_EOVER);
    if (player < 0 || player > 1)
        f |= BIT(THUE_EPLAYER);
    if (over)
        return f;
    thue_step mine = place ? THUE_STEP_PLACE : THUE_STEP_PAINT;
    if (f == 0 && player != model_to_move(md))
        f |= BIT(THUE_ETURN);
    else if (f == 0 && md->step != mine)
        f |= BIT(THUE_ESTEP);
    if (place && (arg < 0 || arg > md->n))
        f |= BIT(THUE_EPOSITION);
    if (!place && (arg < 0 || arg >= md->opt.k))
        f |= BIT(THUE_ESYMBOL);
    return f ? f : 1u;
}

static unsigned model_faults_forfeit(const model *md, int player, int why)
{
    unsigned f = 0;
    if (md->step == THUE_STEP_OVER)
        f |= BIT(THUE_EOVER);
    if (player < 0 || player > 1)
        f |= BIT(THUE_EPLAYER);
    if (why != THUE_END_RESIGN && why != THUE_END_TIMEOUT && why != THUE_END_ABANDON)
        f |= BIT(THUE_EINVAL);
    return f ? f : 1u;
}

static void model_place(model *md, int i)
{
    md->placed = i;
    md->step = THUE_STEP_PAINT;
}

static void model_paint(model *md, int c)
{
    int r = md->round;
    assert_true(md->n < MODEL_MAX_WORD);
    memmove(md->w + md->placed + 1, md->w + md->placed, (size_t)(md->n - md->placed));
    md->w[md->placed] = (uint8_t)c;
    md->n++;
    md->moves++;
    thue_repetition rep;
    if (ref_repetition(md->w, md->n, md->opt.variant, &rep)) {
        /* The new repetition contains the inserted position. */
        assert_true(rep.start <= md->placed && md->placed < rep.start + rep.length);
        md->end[r] = THUE_ROUND_REPETITION;
        md->rep[r] = rep;
        model_next_round(md);
        return;
    }
    md->points[r]++;
    if (md->points[r] == md->opt.limit) {
        md->end[r] = THUE_ROUND_LIMIT;
        model_next_round(md);
        return;
    }
    md->step = THUE_STEP_PLACE;
}

static void model_forfeit(model *md, int player, int why)
{
    md->end[md->round] = THUE_ROUND_FORFEIT;
    if (md->round == 0)
        md->end[1] = THUE_ROUND_NOT_PLAYED;
    md->step = THUE_STEP_OVER;
    md->reason = (thue_end_reason)why;
    md->winner = 1 - player;
    md->forfeiter = player;
}

/* The engine's state agrees with the model's (on everything the model defines). */
static void model_assert_same(const model *md, const thue_match *m)
{
    assert_int_equal(m->opt.variant, md->opt.variant);
    assert_int_equal(m->opt.k, md->opt.k);
    assert_int_equal(m->opt.limit, md->opt.limit);
    assert_int_equal(m->opt.first_builder, md->opt.first_builder);
    assert_int_equal(m->round, md->round);
    assert_int_equal(m->step, md->step);
    assert_int_equal(thue_match_over(m), md->step == THUE_STEP_OVER);
    if (md->step == THUE_STEP_PAINT)
        assert_int_equal(m->placed, md->placed);
    if (md->step != THUE_STEP_OVER) {
        assert_int_equal(m->word.len, md->n);
        assert_memory_equal(m->word.sym, md->w, (size_t)md->n);
        /* Invariants of a running round: a clean word, one symbol more than the points. */
        thue_repetition rep;
        assert_int_equal(thue_check_word(NULL, m->word.sym, m->word.len, m->opt.variant, &rep), 0);
        assert_int_equal(m->word.len, m->rounds[m->round].points + 1);
        assert_true(m->rounds[m->round].points < m->opt.limit);
        assert_int_equal(m->rounds[m->round].end, THUE_ROUND_PLAYING);
    }
    for (int r = 0; r < 2; r++) {
        assert_int_equal(m->rounds[r].points, md->points[r]);
        assert_int_equal(m->rounds[r].end, md->end[r]);
        if (r <= md->round)
            assert_int_equal(m->rounds[r].builder, md->builder[r]);
        if (md->end[r] == THUE_ROUND_REPETITION) {
            assert_int_equal(m->rounds[r].rep.start, md->rep[r].start);
            assert_int_equal(m->rounds[r].rep.period, md->rep[r].period);
            assert_int_equal(m->rounds[r].rep.length, md->rep[r].length);
        }
    }
    assert_int_equal(m->reason, md->reason);
    assert_int_equal(m->winner, md->winner);
    assert_int_equal(m->forfeiter, md->forfeiter);
    assert_int_equal(m->moves, md->moves);
    assert_int_equal(thue_match_to_move(m), model_to_move(md));
    if (md->step != THUE_STEP_OVER) {
        assert_int_equal(thue_match_builder(m), md->builder[md->round]);
        assert_int_equal(thue_match_painter(m), 1 - md->builder[md->round]);
    }
    assert_int_equal(thue_match_points(m, 0), model_points(md, 0));
    assert_int_equal(thue_match_points(m, 1), model_points(md, 1));
}

/* One call, valid or not; checks the result against the model and applies it. */
static void random_call(thue_match *m, model *md, long *calls, long *rejected)
{
    int roll = rnd_below(100);
    int kind, player, arg;
    bool running = md->step != THUE_STEP_OVER;
    if (roll < 75 && running) {
        /* A legal call of the player to move (the argument may still be out of range). */
        player = model_to_move(md);
        kind = md->step == THUE_STEP_PLACE ? 0 : 1;
        arg = kind == 0 ? rnd_below(md->n + 1) : rnd_below(md->opt.k);
        if (rnd_below(20) == 0)
            arg = kind == 0 ? rnd_range(-3, md->n + 3) : rnd_range(-3, md->opt.k + 3);
    } else if (roll < 97) {
        kind = rnd_below(2);
        player = rnd_below(8) == 0 ? rnd_range(-2, 3) : rnd_below(2);
        arg = kind == 0 ? rnd_range(-2, md->n + 2) : rnd_range(-2, md->opt.k + 2);
    } else {
        kind = 2;
        player = rnd_below(8) == 0 ? rnd_range(-2, 3) : rnd_below(2);
        arg = rnd_below(4) == 0 ? rnd_range(-1, 6) : THUE_END_RESIGN + rnd_below(3);
    }

    unsigned allowed = kind == 2 ? model_faults_forfeit(md, player, arg)
                                 : model_faults_move(md, kind == 0, player, arg);
    snapshot snap;
    snap_take(&snap, m);
    int rc;
    if (kind == 0)
        rc = thue_match_place(m, player, arg);
    else if (kind == 1)
        rc = thue_match_paint(m, player, arg);
    else
        rc = thue_match_forfeit(m, player, (thue_end_reason)arg);
    (*calls)++;
    if (rc > 0 || rc < -31 || !((rc == 0 ? 1u : BIT(rc)) & allowed)) {
        fprintf(stderr,
                "random call %ld: %s(player %d, %d) returned %d (%s); allowed mask 0x%x; "
                "round %d step %d n %d k %d\n",
                *calls,
                kind == 0   ? "place"
                : kind == 1 ? "paint"
                            : "forfeit",
                player, arg, rc, thue_err_name(rc), allowed, md->round, md->step, md->n, md->opt.k);
        fail();
    }
    if (rc != 0) {
        (*rejected)++;
        snap_assert_same(&snap, m);
        return;
    }
    free(snap.sym);
    if (kind == 0)
        model_place(md, arg);
    else if (kind == 1)
        model_paint(md, arg);
    else
        model_forfeit(md, player, arg);
    model_assert_same(md, m);
}

static void test_random_matches_against_model(void **state)
{
    (void)state;
    rng_state = 20240611;
    long calls = 0, rejected = 0, ended[5] = {0};
    for (int game = 0; game < 3000; game++) {
        thue_match_options o;
        o.variant = (thue_variant)rnd_below(2);
        o.k = rnd_below(4) == 0 ? rnd_range(2, 64) : rnd_range(2, 5);
        o.limit = rnd_below(3) == 0 ? rnd_range(1, 4) : rnd_range(1, MODEL_MAX_LIMIT);
        o.first_builder = rnd_below(2);
        thue_match m;
        assert_int_equal(thue_match_init(&m, &o), 0);
        model md;
        model_init(&md, &o);
        model_assert_same(&md, &m);
        /* Each round takes at most limit paints; allow plenty of rejected calls. */
        int budget = 40 * (2 * o.limit + 2) + 100;
        int c = 0;
        while (!thue_match_over(&m) && c < budget) {
            random_call(&m, &md, &calls, &rejected);
            c++;
        }
        assert_true(thue_match_over(&m));
        assert_true(m.moves <= 2 * (o.limit + 1));
        ended[m.reason]++;
        if (m.reason == THUE_END_SCORE) {
            for (int r = 0; r < 2; r++)
                assert_true(m.rounds[r].end == THUE_ROUND_REPETITION ||
                            m.rounds[r].end == THUE_ROUND_LIMIT);
            assert_int_equal(m.round, 1);
            assert_int_equal(m.forfeiter, -1);
        }
        /* Nothing more is accepted. */
        for (int j = 0; j < 10; j++)
            random_call(&m, &md, &calls, &rejected);
        thue_match_free(&m);
    }
    print_message("random: %ld calls, %ld rejected; ended by score %ld, resign %ld, timeout %ld, "
                  "abandon %ld\n",
                  calls, rejected, ended[THUE_END_SCORE], ended[THUE_END_RESIGN],
                  ended[THUE_END_TIMEOUT], ended[THUE_END_ABANDON]);
    /* The generator reached every kind of ending and plenty of rejections. */
    assert_true(ended[THUE_END_SCORE] > 100);
    assert_true(ended[THUE_END_RESIGN] > 10);
    assert_true(ended[THUE_END_TIMEOUT] > 10);
    assert_true(ended[THUE_END_ABANDON] > 10);
    assert_true(rejected > calls / 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_matches_against_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
