/*
 * test_bots_specs.c: what Thue's bots (bot.h) are asked, before any search: spec parsing
 * and formatting, move seeds, the tie-break draw (against SplitMix64 written out in
 * bots_ref.c) and the position checks every entry point runs first.
 *
 * Checked here:
 * - spec parsing (valid and invalid texts, with their sentences) and formatting, which
 *   parses back to the same spec;
 * - thue_bot_move_seed mixes every field; thue_bot_tiebreak is one SplitMix64 draw;
 * - thue_position_check and thue_bot_move report every way a position can be wrong.
 * The moves themselves are in test_bots.c (greedy, nested, limits) and
 * test_bots_perfect.c (perfect, root splits).
 *
 * Usage: test_bots_specs [FILTER [SKIP]] (cmocka name patterns).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bots_ref.h"
#include "base/errors.h"
#include "games/thue/engine/repetition.h"
#include "games/thue/bots/bot.h"

/* ---- tests: seeds, specs, positions ------------------------------------------------ */

/* thue_bot_tiebreak is one SplitMix64 draw from the seed modulo the number of ties (no
 * draw, 0, for one candidate), so other implementations can make the same choices. */
static void test_bots_tiebreak_is_one_splitmix64_draw(void **state)
{
    (void)state;
    int hits[7] = {0};
    for (uint64_t seed = 0; seed < 2000; seed++) {
        uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ (seed << 7);
        assert_int_equal(thue_bot_tiebreak(x, 0), 0);
        assert_int_equal(thue_bot_tiebreak(x, 1), 0);
        for (int ties = 2; ties <= 70; ties++) {
            uint64_t st = x;
            int want = (int)(splitmix64(&st) % (uint64_t)ties);
            assert_int_equal(thue_bot_tiebreak(x, ties), want);
        }
        hits[thue_bot_tiebreak(x, 7)]++;
    }
    for (int t = 0; t < 7; t++)
        assert_true(hits[t] > 200); /* 2000/7 = 286 expected each */
}

/* A game's move seeds: a pure function of (game seed, round, ply, role), different for
 * every field. */
static void test_bots_move_seed_mixes_every_field(void **state)
{
    (void)state;
    uint64_t seen[2 * 2 * 40 * 2];
    int count = 0;
    for (uint64_t g = 0; g < 2; g++)
        for (int round = 0; round < 2; round++)
            for (int ply = 0; ply < 40; ply++)
                for (int role = 0; role < 2; role++) {
                    uint64_t s = thue_bot_move_seed(g * 12345, round, ply, (thue_role)role);
                    assert_int_equal(s, thue_bot_move_seed(g * 12345, round, ply, (thue_role)role));
                    for (int j = 0; j < count; j++)
                        assert_true(seen[j] != s);
                    seen[count++] = s;
                }
}

static void assert_same_spec(const thue_bot_spec *a, const thue_bot_spec *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->level, b->level);
    assert_int_equal(a->iterations, b->iterations);
    assert_int_equal(a->time_ms, b->time_ms);
    assert_int_equal(a->playout_limit, b->playout_limit);
    assert_true(a->exploration == b->exploration);
    assert_int_equal(a->max_depth, b->max_depth);
}

static void test_bots_spec_parse_valid(void **state)
{
    (void)state;
    thue_bot_spec s;
    s = spec_of("greedy");
    assert_int_equal(s.kind, THUE_BOT_GREEDY);
    assert_int_equal(s.level, 0);
    s = spec_of("0");
    assert_int_equal(s.kind, THUE_BOT_GREEDY);
    assert_int_equal(s.level, 0);
    s = spec_of("nested:0"); /* documented: nested:0 is greedy */
    assert_int_equal(s.kind, THUE_BOT_GREEDY);
    s = spec_of("3");
    assert_int_equal(s.kind, THUE_BOT_NESTED);
    assert_int_equal(s.level, 3);
    s = spec_of("9");
    assert_int_equal(s.kind, THUE_BOT_NESTED);
    assert_int_equal(s.level, 9);
    s = spec_of("nested:2");
    assert_int_equal(s.kind, THUE_BOT_NESTED);
    assert_int_equal(s.level, 2);
    s = spec_of("nested:9");
    assert_int_equal(s.level, 9);
    s = spec_of("uct");
    assert_int_equal(s.kind, THUE_BOT_UCT);
    assert_int_equal(s.iterations, THUE_UCT_ITERATIONS_DEFAULT);
    assert_int_equal(s.playout_limit, THUE_UCT_PLAYOUT_DEFAULT);
    assert_int_equal(s.time_ms, 0);
    assert_true(s.exploration == THUE_UCT_C_DEFAULT);
    s = spec_of("uct:iterations=500,c=0.5,playout=50,ms=100");
    assert_int_equal(s.kind, THUE_BOT_UCT);
    assert_int_equal(s.iterations, 500);
    assert_true(s.exploration == 0.5);
    assert_int_equal(s.playout_limit, 50);
    assert_int_equal(s.time_ms, 100);
    s = spec_of("uct:iterations=0,ms=20");
    assert_int_equal(s.iterations, 0);
    assert_int_equal(s.time_ms, 20);
    s = spec_of("uct:c=0");
    assert_true(s.exploration == 0.0);
    s = spec_of("perfect");
    assert_int_equal(s.kind, THUE_BOT_PERFECT);
    assert_int_equal(s.max_depth, 0);
    s = spec_of("perfect:depth=12");
    assert_int_equal(s.kind, THUE_BOT_PERFECT);
    assert_int_equal(s.max_depth, 12);
    /* The defaults of every kind are what parsing the bare name gives. */
    thue_bot_spec d = thue_bot_spec_default(THUE_BOT_NESTED);
    assert_int_equal(d.level, 1);
    s = spec_of("nested:1");
    assert_same_spec(&s, &d);
    d = thue_bot_spec_default(THUE_BOT_UCT);
    s = spec_of("uct");
    assert_same_spec(&s, &d);
    d = thue_bot_spec_default(THUE_BOT_PERFECT);
    s = spec_of("perfect");
    assert_same_spec(&s, &d);
    d = thue_bot_spec_default(THUE_BOT_GREEDY);
    s = spec_of("greedy");
    assert_same_spec(&s, &d);
}

static void test_bots_spec_parse_invalid(void **state)
{
    (void)state;
    const char *bad[] = {"",
                         "nested",
                         "nested:",
                         "nested:x",
                         "nested:10",
                         "nested:-1",
                         "nested:2:3",
                         "10",
                         "-1",
                         "uct:foo=1",
                         "uct:iterations=-1",
                         "uct:iterations=",
                         "uct:iterations",
                         "uct:c=abc",
                         "uct:c=-1",
                         "uct:c=nan",
                         "uct:iterations=0",
                         "uct:playout=0",
                         "uct:",
                         "uct:ms=5,",
                         "uct:depth=3",
                         "perfect:depth=x",
                         "perfect:depth=-1",
                         "perfect:c=1",
                         "perfect:",
                         "greedy:1",
                         "greedy:",
                         "foo",
                         "Greedy",
                         "minimax",
                         " greedy",
                         "greedy "};
    for (size_t x = 0; x < LEN(bad); x++) {
        thue_bot_spec s = thue_bot_spec_default(THUE_BOT_PERFECT);
        char err[256];
        memset(err, 0, sizeof err);
        int r = thue_bot_spec_parse(bad[x], &s, err, sizeof err);
        if (r != THUE_EINVAL || err[0] == '\0')
            print_error("spec '%s': got %d, message '%s'\n", bad[x], r, err);
        assert_int_equal(r, THUE_EINVAL);
        assert_true(err[0] != '\0');
        assert_true(strlen(err) < sizeof err);
        /* no message buffer, or a tiny one: still the error, NUL-terminated */
        assert_int_equal(thue_bot_spec_parse(bad[x], &s, NULL, 0), THUE_EINVAL);
        char tiny[6];
        memset(tiny, 'x', sizeof tiny);
        assert_int_equal(thue_bot_spec_parse(bad[x], &s, tiny, sizeof tiny), THUE_EINVAL);
        assert_true(memchr(tiny, '\0', sizeof tiny) != NULL);
    }
    thue_bot_spec s;
    char err[64];
    assert_int_equal(thue_bot_spec_parse(NULL, &s, err, sizeof err), THUE_EINVAL);
    assert_true(err[0] != '\0');
}

static void test_bots_spec_format_round_trip(void **state)
{
    (void)state;
    const char *texts[] = {"greedy",
                           "0",
                           "1",
                           "nested:2",
                           "nested:9",
                           "uct",
                           "uct:iterations=500,c=0.5,playout=50,ms=100",
                           "uct:iterations=0,ms=7",
                           "uct:c=0.1",
                           "uct:c=0.30000000000000004",
                           "uct:c=1000,playout=100000,iterations=1000000000000",
                           "perfect",
                           "perfect:depth=12",
                           "perfect:depth=0"};
    for (size_t x = 0; x < LEN(texts); x++) {
        thue_bot_spec a = spec_of(texts[x]), b;
        char buf[256], again[256];
        int len = thue_bot_spec_format(&a, buf, sizeof buf);
        assert_int_equal(len, (int)strlen(buf));
        assert_int_equal(thue_bot_spec_format(&a, NULL, 0), len);
        char small[4];
        assert_int_equal(thue_bot_spec_format(&a, small, sizeof small), len);
        assert_true(memchr(small, '\0', sizeof small) != NULL);
        char err[128];
        if (thue_bot_spec_parse(buf, &b, err, sizeof err) != 0)
            print_error("'%s' formats as '%s', which does not parse: %s\n", texts[x], buf, err);
        assert_int_equal(thue_bot_spec_parse(buf, &b, err, sizeof err), 0);
        assert_same_spec(&a, &b);
        thue_bot_spec_format(&b, again, sizeof again);
        assert_string_equal(buf, again);
    }
    /* The canonical names of bot.h. */
    char buf[64];
    thue_bot_spec s = spec_of("0");
    thue_bot_spec_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "greedy");
    s = spec_of("2");
    thue_bot_spec_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "nested:2");
    s = spec_of("perfect");
    thue_bot_spec_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "perfect");
    s = spec_of("perfect:depth=30");
    thue_bot_spec_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "perfect:depth=30");
}

/* Thue-Morse: overlap-free, so a clean binary word of any length for the overlap
 * variant (and full of squares). */
static uint8_t *thue_morse(int n)
{
    uint8_t *w = malloc((size_t)n + 1);
    assert_non_null(w);
    for (int j = 0; j < n; j++)
        w[j] = (uint8_t)(popcount((uint64_t)j) & 1);
    return w;
}

typedef struct bad_position {
    thue_position pos;
    int err;
} bad_position;

/* The error cases of thue_position_check, one per way a position can be wrong. */
static size_t bad_positions(bad_position *out, const uint8_t *tm)
{
    static const uint8_t ok[] = {0, 1, 2}, big[] = {0, 3, 1}, sq[] = {0, 1, 0, 1},
                         ov[] = {0, 1, 0, 1, 0}, aa[] = {1, 1}, aaa[] = {1, 1, 1},
                         big2[] = {0, 1, 2};
    size_t c = 0;
    thue_position base = mkpos(THUE_SQUARE, 3, ok, 3, THUE_ROLE_PAINTER, 1);
    out[c] = (bad_position){base, THUE_EVARIANT};
    out[c++].pos.variant = (thue_variant)2;
    out[c] = (bad_position){base, THUE_EVARIANT};
    out[c++].pos.variant = (thue_variant)-1;
    out[c] = (bad_position){base, THUE_EK};
    out[c++].pos.k = 1;
    out[c] = (bad_position){base, THUE_EK};
    out[c++].pos.k = 65;
    out[c] = (bad_position){base, THUE_EK};
    out[c++].pos.k = 0;
    out[c] = (bad_position){base, THUE_ETOOLONG};
    out[c].pos.sym = tm;
    out[c].pos.variant = THUE_OVERLAP;
    out[c].pos.k = 2;
    out[c++].pos.n = THUE_BOT_WORD_MAX + 1;
    out[c] = (bad_position){base, THUE_ETOOLONG};
    out[c++].pos.n = -1;
    out[c] = (bad_position){base, THUE_ESYMBOL};
    out[c++].pos.sym = big;
    out[c] = (bad_position){base, THUE_ESYMBOL}; /* 2 is not a symbol when k = 2 */
    out[c].pos.sym = big2;
    out[c++].pos.k = 2;
    out[c] = (bad_position){base, THUE_EPOSITION};
    out[c++].pos.index = -1;
    out[c] = (bad_position){base, THUE_EPOSITION};
    out[c++].pos.index = 4;
    out[c] = (bad_position){base, THUE_EINVAL};
    out[c++].pos.role = (thue_role)2;
    out[c] = (bad_position){base, THUE_EINVAL};
    out[c++].pos.remaining = -1;
    out[c] = (bad_position){base, THUE_EINVAL};
    out[c++].pos.sym = NULL;
    out[c] = (bad_position){base, THUE_EREPEAT};
    out[c].pos.sym = sq;
    out[c++].pos.n = 4;
    out[c] = (bad_position){base, THUE_EREPEAT}; /* aa is a square */
    out[c].pos.sym = aa;
    out[c++].pos.n = 2;
    out[c] = (bad_position){base, THUE_EREPEAT}; /* 01010: overlap */
    out[c].pos.sym = ov;
    out[c].pos.n = 5;
    out[c++].pos.variant = THUE_OVERLAP;
    out[c] = (bad_position){base, THUE_EREPEAT}; /* aaa: overlap */
    out[c].pos.sym = aaa;
    out[c].pos.n = 3;
    out[c++].pos.variant = THUE_OVERLAP;
    out[c] = (bad_position){base, THUE_EREPEAT}; /* Thue-Morse holds squares */
    out[c].pos.sym = tm;
    out[c].pos.n = 100;
    out[c++].pos.k = 2;
    return c;
}

static void test_bots_position_check_errors(void **state)
{
    (void)state;
    static const uint8_t ok[] = {0, 1, 2}, sq[] = {0, 1, 0, 1}, aa[] = {1, 1};
    uint8_t *tm = thue_morse(THUE_BOT_WORD_MAX + 1);
    /* clean positions */
    thue_position p = mkpos(THUE_SQUARE, 3, ok, 3, THUE_ROLE_PAINTER, 3);
    assert_int_equal(thue_position_check(&p), 0);
    p.index = 0;
    assert_int_equal(thue_position_check(&p), 0);
    p.role = THUE_ROLE_BUILDER;
    p.index = -7; /* ignored for the builder */
    assert_int_equal(thue_position_check(&p), 0);
    p.k = 64;
    p.remaining = 5;
    assert_int_equal(thue_position_check(&p), 0);
    p = mkpos(THUE_SQUARE, 2, NULL, 0, THUE_ROLE_BUILDER, 0); /* the empty word */
    assert_int_equal(thue_position_check(&p), 0);
    p = mkpos(THUE_OVERLAP, 2, sq, 4, THUE_ROLE_BUILDER, 0); /* 0101 is overlap-free */
    assert_int_equal(thue_position_check(&p), 0);
    p = mkpos(THUE_OVERLAP, 2, aa, 2, THUE_ROLE_BUILDER, 0); /* aa is not an overlap */
    assert_int_equal(thue_position_check(&p), 0);
    p = mkpos(THUE_OVERLAP, 2, tm, THUE_BOT_WORD_MAX, THUE_ROLE_BUILDER, 0);
    assert_int_equal(thue_position_check(&p), 0);
    bad_position bad[32];
    size_t nbad = bad_positions(bad, tm);
    for (size_t x = 0; x < nbad; x++) {
        int r = thue_position_check(&bad[x].pos);
        if (r != bad[x].err)
            print_error("bad position %zu: got %d (%s), want %d (%s)\n", x, r, thue_err_name(r),
                        bad[x].err, thue_err_name(bad[x].err));
        assert_int_equal(r, bad[x].err);
    }
    free(tm);
}

/* Every entry point runs the position check, and refuses bad specs and parts. A split
 * search finds a repetition in the word when its first part runs: finish reports it. */
static void test_bots_move_returns_position_errors(void **state)
{
    (void)state;
    uint8_t *tm = thue_morse(THUE_BOT_WORD_MAX + 1);
    bad_position bad[32];
    size_t nbad = bad_positions(bad, tm);
    const char *specs[] = {"greedy", "nested:1", "nested:3", "perfect", "uct:iterations=10"};
    for (size_t s = 0; s < LEN(specs); s++) {
        thue_bot_spec spec = spec_of(specs[s]);
        for (size_t x = 0; x < nbad; x++) {
            thue_bot_result r;
            memset(&r, 0, sizeof r);
            assert_int_equal(thue_bot_move(&spec, &bad[x].pos, NULL, 1, &r), bad[x].err);
            int err = 12345;
            thue_bot_search *srch = thue_bot_search_new(&spec, &bad[x].pos, 1, 2, &err);
            if (bad[x].err == THUE_EREPEAT) {
                assert_non_null(srch);
                assert_int_equal(err, 0);
                for (int q = 0; q < thue_bot_search_parts(srch); q++)
                    thue_bot_search_run_part(srch, q, NULL);
                assert_int_equal(thue_bot_search_finish(srch, &r), THUE_EREPEAT);
                thue_bot_search_free(srch);
                continue;
            }
            assert_null(srch);
            assert_int_equal(err, bad[x].err);
            assert_null(thue_bot_search_new(&spec, &bad[x].pos, 1, 1, NULL));
        }
    }
    free(tm);
    /* bad specs (built by hand: the parser refuses them) and part counts */
    static const uint8_t ok[] = {0, 1, 2};
    thue_position p = mkpos(THUE_SQUARE, 3, ok, 3, THUE_ROLE_BUILDER, 0);
    thue_bot_spec bs[6];
    bs[0] = thue_bot_spec_default(THUE_BOT_NESTED);
    bs[0].level = 0;
    bs[1] = thue_bot_spec_default(THUE_BOT_NESTED);
    bs[1].level = THUE_NESTED_MAX + 1;
    bs[2] = thue_bot_spec_default(THUE_BOT_PERFECT);
    bs[2].max_depth = -1;
    bs[3] = thue_bot_spec_default(THUE_BOT_UCT);
    bs[3].iterations = 0;
    bs[4] = thue_bot_spec_default(THUE_BOT_UCT);
    bs[4].playout_limit = 0;
    bs[5] = thue_bot_spec_default(THUE_BOT_GREEDY);
    bs[5].kind = (thue_bot_kind)17;
    for (size_t x = 0; x < LEN(bs); x++) {
        thue_bot_result r;
        assert_int_equal(thue_bot_move(&bs[x], &p, NULL, 1, &r), THUE_EINVAL);
        int err = 0;
        assert_null(thue_bot_search_new(&bs[x], &p, 1, 1, &err));
        assert_int_equal(err, THUE_EINVAL);
    }
    thue_bot_spec good = spec_of("nested:1");
    int err = 0;
    assert_null(thue_bot_search_new(&good, &p, 1, 0, &err));
    assert_int_equal(err, THUE_EINVAL);
    assert_null(thue_bot_search_new(&good, &p, 1, THUE_BOT_PARTS_MAX + 1, &err));
    assert_int_equal(err, THUE_EINVAL);
    thue_bot_search *s = thue_bot_search_new(&good, &p, 1, THUE_BOT_PARTS_MAX, &err);
    assert_non_null(s);
    assert_int_equal(err, 0);
    assert_in_range(thue_bot_search_parts(s), 1, 4); /* never more parts than positions */
    thue_bot_search_free(s);
    thue_bot_search_free(NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0])
        cmocka_set_test_filter(argv[1]);
    if (argc > 2 && argv[2][0])
        cmocka_set_skip_filter(argv[2]);
#define TEST(f) cmocka_unit_test_setup(f, reset_rng)
    const struct CMUnitTest tests[] = {
        TEST(test_bots_tiebreak_is_one_splitmix64_draw),
        TEST(test_bots_move_seed_mixes_every_field),
        TEST(test_bots_spec_parse_valid),
        TEST(test_bots_spec_parse_invalid),
        TEST(test_bots_spec_format_round_trip),
        TEST(test_bots_position_check_errors),
        TEST(test_bots_move_returns_position_errors),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_memo);
}
