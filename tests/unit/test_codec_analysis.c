/*
 * test_codec_analysis.c: the analysis messages of the codec (PROTOCOL.md section 16) beyond
 * what the golden vectors show: analysis_tree's tree of any size and depth (a tree nests
 * two levels per node level, past the limit of 8 that every other message keeps, up to
 * THUE_PROTO_TREE_DEPTH_MAX), encode then decode of both server messages, the commands'
 * cross-member rules and their refusal of unknown members; thue.v2's analysis_delta from
 * the struct and back, the encoder's refusals, and the canonical number form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/codec.h"

/* A chain of `levels` node levels below the root, as compact JSON (malloc'd). */
static char *chain(int levels)
{
    size_t cap = (size_t)levels * 160 + 256, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    for (int i = 0; i <= levels; i++)
        len += (size_t)snprintf(s + len, cap - len,
                                "{\"move\":%s,\"name\":\"n%d\",\"to_move\":%d,\"visits\":1,"
                                "\"ended\":1,\"value\":0.5,\"children\":[",
                                i == 0 ? "null" : "{\"heap\":0,\"take\":1}", i, i % 2);
    for (int i = 0; i <= levels; i++)
        len += (size_t)snprintf(s + len, cap - len, "],\"hidden\":0}");
    return s;
}

static char *tree_message(const char *tree)
{
    thue_msg m;
    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_ANALYSIS_TREE;
    snprintf(m.u.analysis_tree.analysis, sizeof m.u.analysis_tree.analysis, "aK1");
    m.u.analysis_tree.seq = 1;
    m.u.analysis_tree.status = 2;
    m.u.analysis_tree.iterations = 1;
    m.u.analysis_tree.nodes = 2;
    m.u.analysis_tree.shown = 2;
    m.u.analysis_tree.has_best = 1;
    snprintf(m.u.analysis_tree.best, sizeof m.u.analysis_tree.best, "{\"heap\":0,\"take\":1}");
    m.u.analysis_tree.tree = tree;
    return thue_msg_encode(&m, NULL);
}

static void test_codec_analysis_tree_depths(void **state)
{
    (void)state;
    const int ok_levels[] = {0, 3, 10, THUE_PROTO_TREE_LEVELS_MAX};
    for (int i = 0; i < 4; i++) {
        char *tree = chain(ok_levels[i]);
        char *text = tree_message(tree);
        assert_non_null(text);
        thue_msg m;
        thue_decode_error e;
        assert_int_equal(thue_msg_decode(text, strlen(text), &m, &e), 0);
        assert_int_equal(m.type, THUE_MSG_ANALYSIS_TREE);
        assert_string_equal(m.u.analysis_tree.tree, tree);
        assert_string_equal(m.u.analysis_tree.best, "{\"heap\":0,\"take\":1}");
        assert_int_equal(m.u.analysis_tree.status, 2);
        /* decode then encode gives the text back */
        char *again = thue_msg_encode(&m, NULL);
        assert_string_equal(again, text);
        free(again);
        thue_msg_clear(&m);
        free(text);
        free(tree);
    }
    /* One level more than the limit: bad_json, as any message too deep. */
    char *tree = chain(THUE_PROTO_TREE_LEVELS_MAX + 1);
    char *text = tree_message(tree);
    thue_msg m;
    thue_decode_error e;
    assert_int_equal(thue_msg_decode(text, strlen(text), &m, &e), THUE_PERR_JSON);
    free(text);
    free(tree);
    /* Other messages keep the limit of 8. */
    const char *deep = "{\"type\":\"analysis_started\",\"analysis\":\"a\",\"game\":\"nim\","
                       "\"game_options\":{\"a\":[[[[[[[1]]]]]]]},\"position\":{},\"iterations\":1,"
                       "\"playout\":1,\"c\":1,\"seed\":1,\"max_nodes\":1}";
    assert_int_equal(thue_msg_decode(deep, strlen(deep), &m, &e), THUE_PERR_JSON);
    /* analysis_tree is an event: no id. */
    const char *with_id = "{\"type\":\"analysis_tree\",\"id\":1,\"analysis\":\"a\",\"seq\":1,"
                          "\"status\":\"done\",\"iterations\":0,\"nodes\":1,\"shown\":1,"
                          "\"best\":null,\"tree\":{}}";
    assert_int_equal(thue_msg_decode(with_id, strlen(with_id), &m, &e), THUE_PERR_MESSAGE);
    assert_string_equal(e.field, "id");
}

static void test_codec_analysis_started_round_trip(void **state)
{
    (void)state;
    thue_msg m;
    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_ANALYSIS_STARTED;
    m.id.kind = THUE_ID_INT;
    m.id.num = 7;
    snprintf(m.u.analysis_started.analysis, sizeof m.u.analysis_started.analysis, "a9");
    snprintf(m.u.analysis_started.game, sizeof m.u.analysis_started.game, "nim");
    snprintf(m.u.analysis_started.game_options, sizeof m.u.analysis_started.game_options,
             "{\"heaps\":[1],\"misere\":false}");
    snprintf(m.u.analysis_started.position, sizeof m.u.analysis_started.position,
             "{\"heaps\":[1]}");
    m.u.analysis_started.iterations = 20000;
    m.u.analysis_started.playout = 100;
    m.u.analysis_started.c = 1.4142135623730951;
    m.u.analysis_started.seed = 9007199254740991;
    m.u.analysis_started.max_nodes = 5000;
    char *text = thue_msg_encode(&m, NULL);
    assert_non_null(text);
    assert_string_equal(text, "{\"type\":\"analysis_started\",\"id\":7,\"analysis\":\"a9\",\"game\":"
                              "\"nim\",\"game_options\":{\"heaps\":[1],\"misere\":false},"
                              "\"position\":{\"heaps\":[1]},\"iterations\":20000,\"playout\":100,"
                              "\"c\":1.4142135623730951,\"seed\":9007199254740991,"
                              "\"max_nodes\":5000}");
    thue_msg d;
    assert_int_equal(thue_msg_decode(text, strlen(text), &d, NULL), 0);
    assert_true(d.u.analysis_started.c == m.u.analysis_started.c);
    assert_int_equal(d.u.analysis_started.seed, 9007199254740991);
    thue_msg_clear(&d);
    free(text);
    /* A tree that is no object is refused by the encoder. */
    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_ANALYSIS_TREE;
    snprintf(m.u.analysis_tree.analysis, sizeof m.u.analysis_tree.analysis, "a9");
    m.u.analysis_tree.seq = 1;
    m.u.analysis_tree.nodes = 1;
    m.u.analysis_tree.shown = 1;
    m.u.analysis_tree.tree = NULL;
    assert_null(thue_msg_encode(&m, NULL));
    m.u.analysis_tree.tree = "[1]";
    assert_null(thue_msg_encode(&m, NULL));
}

static void expect(const char *text, int code, const char *field)
{
    thue_cmd c;
    thue_decode_error e;
    int rc = thue_cmd_decode(text, strlen(text), &c, &e);
    if (rc != code || strcmp(e.field, field) != 0)
        fail_msg("%s: got %d field '%s' (%s), want %d field '%s'", text, rc, e.field, e.message,
                 code, field);
}

static void test_codec_analysis_commands(void **state)
{
    (void)state;
    expect("{\"type\":\"analyze\",\"game\":\"nim\"}", 0, "");
    expect("{\"type\":\"analyze\",\"room\":\"r1\",\"c\":0.25}", 0, "");
    expect("{\"type\":\"analyze\",\"game\":\"nim\",\"room\":\"r1\"}", THUE_PERR_MESSAGE, "game");
    expect("{\"type\":\"analyze\"}", THUE_PERR_MESSAGE, "game");
    expect("{\"type\":\"analyze\",\"room\":\"r1\",\"position\":{}}", THUE_PERR_MESSAGE, "position");
    expect("{\"type\":\"analyze\",\"room\":\"r1\",\"game_options\":{}}", THUE_PERR_MESSAGE,
           "game_options");
    expect("{\"type\":\"analyze\",\"game\":\"nim\",\"Seed\":1}", THUE_PERR_MESSAGE, "Seed");
    expect("{\"type\":\"analyze\",\"game\":\"nim\",\"c\":1e400}", THUE_PERR_MESSAGE, "c");
    expect("{\"type\":\"analyze\",\"game\":\"nim\",\"c\":null}", THUE_PERR_MESSAGE, "c");
    expect("{\"type\":\"analyze\",\"game\":\"nim\",\"seed\":1.5}", THUE_PERR_MESSAGE, "seed");
    expect("{\"type\":\"analyze_stop\",\"analysis\":\"a1\",\"iterations\":5}", THUE_PERR_MESSAGE,
           "iterations");
    expect("{\"type\":\"analyze_resume\",\"analysis\":\"a1\",\"iterations\":5}", 0, "");
    /* The decoded command encodes back to its canonical text. */
    const char *text = "{\"type\":\"analyze\",\"id\":\"x\",\"game\":\"nim\",\"iterations\":9,"
                       "\"c\":0.5,\"seed\":0}";
    thue_cmd c;
    assert_int_equal(thue_cmd_decode(text, strlen(text), &c, NULL), 0);
    assert_true(c.u.analyze.has_c && c.u.analyze.c == 0.5);
    assert_true(c.u.analyze.has_seed && c.u.analyze.seed == 0);
    assert_false(c.u.analyze.has_playout);
    char *again = thue_cmd_encode(&c, NULL);
    assert_string_equal(again, text);
    free(again);
}

/* An update's part with a root, a child and two figures, as a C client fills it. */
static void delta_sample(thue_msg *m, thue_analysis_add add[2], thue_analysis_set set[2],
                         int64_t gone[1])
{
    memset(m, 0, sizeof *m);
    m->type = THUE_MSG_ANALYSIS_DELTA;
    __typeof__(m->u.analysis_delta) *d = &m->u.analysis_delta;
    snprintf(d->analysis, sizeof d->analysis, "aK1");
    d->seq = 4;
    d->part = 2;
    d->last = 1;
    d->status = 1;
    d->iterations = 12;
    d->nodes = 40;
    d->shown = 2;
    d->has_best = 1;
    snprintf(d->best, sizeof d->best, "{\"heap\":0,\"take\":1}");
    memset(add, 0, 2 * sizeof *add);
    add[0].id = 0;
    add[0].parent = -1;
    add[0].name = "{heaps:[1,2],to_move:0}";
    add[0].visits = 12;
    add[0].ended = 12;
    add[0].value = 0.75;
    add[0].hidden = 2;
    add[1].id = 4294967295;
    add[1].parent = 0;
    add[1].has_move = 1;
    snprintf(add[1].move, sizeof add[1].move, "{\"heap\":0,\"take\":1}");
    add[1].name = "a\\b \xc3\xa9"; /* a backslash and a letter past ASCII */
    add[1].to_move = -1;
    add[1].visits = 3;
    add[1].ended = 1;
    add[1].value = 1.0 / 3;
    set[0] = (thue_analysis_set){
        .id = 7, .visits = 9007199254740991, .ended = 0, .value = 0, .hidden = 0};
    set[1] = (thue_analysis_set){.id = 8, .visits = 2, .ended = 2, .value = 1, .hidden = 5};
    gone[0] = 19;
    d->gone = gone;
    d->ngone = 1;
    d->add = add;
    d->nadd = 2;
    d->set = set;
    d->nset = 2;
}

static void test_codec_analysis_delta_round_trip(void **state)
{
    (void)state;
    thue_msg m;
    thue_analysis_add add[2];
    thue_analysis_set set[2];
    int64_t gone[1];
    delta_sample(&m, add, set, gone);
    char *text = thue_msg_encode(&m, NULL);
    assert_non_null(text);
    assert_string_equal(
        text,
        "{\"type\":\"analysis_delta\",\"analysis\":\"aK1\",\"seq\":4,\"part\":2,\"last\":true,"
        "\"full\":false,\"status\":\"stopped\",\"iterations\":12,\"nodes\":40,\"shown\":2,"
        "\"best\":{\"heap\":0,\"take\":1},\"gone\":[19],\"add\":[{\"id\":0,\"parent\":null,"
        "\"move\":null,\"name\":\"{heaps:[1,2],to_move:0}\",\"to_move\":0,\"visits\":12,"
        "\"ended\":12,\"value\":0.75,\"hidden\":2},{\"id\":4294967295,\"parent\":0,"
        "\"move\":{\"heap\":0,\"take\":1},\"name\":\"a\\\\b \xc3\xa9\",\"to_move\":-1,"
        "\"visits\":3,\"ended\":1,\"value\":0.3333333333333333,\"hidden\":0}],"
        "\"set\":[[7,9007199254740991,0,0,0],[8,2,2,1,5]]}");
    thue_msg d;
    thue_decode_error e;
    assert_int_equal(thue_msg_decode(text, strlen(text), &d, &e), 0);
    const __typeof__(d.u.analysis_delta) *x = &d.u.analysis_delta;
    assert_int_equal(x->seq, 4);
    assert_int_equal(x->part, 2);
    assert_true(x->last);
    assert_false(x->full);
    assert_int_equal(x->ngone, 1);
    assert_int_equal(x->gone[0], 19);
    assert_int_equal(x->nadd, 2);
    assert_int_equal(x->add[0].parent, -1);
    assert_false(x->add[0].has_move);
    assert_int_equal(x->add[1].id, 4294967295);
    assert_string_equal(x->add[1].name, "a\\b \xc3\xa9");
    assert_true(x->add[1].value == 1.0 / 3);
    assert_int_equal(x->nset, 2);
    assert_int_equal(x->set[0].visits, 9007199254740991);
    assert_int_equal(x->set[1].hidden, 5);
    char *again = thue_msg_encode(&d, NULL);
    assert_string_equal(again, text);
    free(again);
    thue_msg_clear(&d);
    free(text);
}

/* The encoder refuses what the decoder would: a value past 1, gone in a full update, a
 * root with a move or a child without one, a name with a double quote, an id past 2^32. */
static void test_codec_analysis_delta_refusals(void **state)
{
    (void)state;
    thue_msg m;
    thue_analysis_add add[2];
    thue_analysis_set set[2];
    int64_t gone[1];
    thue_decode_error e;
    struct {
        const char *field;
    } cases[] = {{"set/1/3"},    {"gone"},   {"add/0/move"}, {"add/1/move"},
                 {"add/1/name"}, {"gone/0"}, {"add/1/value"}};
    for (int i = 0; i < 7; i++) {
        delta_sample(&m, add, set, gone);
        switch (i) {
        case 0:
            set[1].value = 1.0000001;
            break;
        case 1:
            m.u.analysis_delta.full = 1;
            break;
        case 2:
            add[0].has_move = 1;
            snprintf(add[0].move, sizeof add[0].move, "{}");
            break;
        case 3:
            add[1].has_move = 0;
            break;
        case 4:
            add[1].name = "{a:\"b\"}";
            break;
        case 5:
            gone[0] = 4294967296;
            break;
        case 6:
            add[1].value = -0.5;
            break;
        }
        char *text = thue_msg_encode(&m, &e);
        if (text != NULL || strcmp(e.field, cases[i].field) != 0)
            fail_msg("case %d: encoded %s, field '%s' (%s), want a refusal at '%s'", i,
                     text ? text : "nothing", e.field, e.message, cases[i].field);
    }
    /* A name of 65536 characters is the most. */
    char *long_name = malloc(65538);
    assert_non_null(long_name);
    memset(long_name, 'x', 65537);
    long_name[65537] = '\0';
    delta_sample(&m, add, set, gone);
    add[1].name = long_name;
    assert_null(thue_msg_encode(&m, &e));
    assert_string_equal(e.field, "add/1/name");
    long_name[65536] = '\0';
    char *text = thue_msg_encode(&m, &e);
    assert_non_null(text);
    free(text);
    free(long_name);
}

static void test_codec_analysis_sync_and_numbers(void **state)
{
    (void)state;
    expect("{\"type\":\"analyze_sync\",\"analysis\":\"a1\"}", 0, "");
    expect("{\"type\":\"analyze_sync\",\"analysis\":\"a1\",\"iterations\":5}", THUE_PERR_MESSAGE,
           "iterations");
    expect("{\"type\":\"analyze_sync\"}", THUE_PERR_MESSAGE, "analysis");
    static const struct {
        double d;
        const char *text;
    } nums[] = {{0, "0"},
                {1, "1"},
                {0.5, "0.5"},
                {1e-7, "1e-7"},
                {0.000001, "0.000001"},
                {0.3333333333, "0.3333333333"},
                {1.0 / 3, "0.3333333333333333"},
                {123456789012.0, "123456789012"}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        char out[THUE_PROTO_NUMBER_MAX];
        size_t n = thue_proto_number(nums[i].d, out);
        assert_string_equal(out, nums[i].text);
        assert_int_equal(n, strlen(nums[i].text));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec_analysis_tree_depths),
        cmocka_unit_test(test_codec_analysis_started_round_trip),
        cmocka_unit_test(test_codec_analysis_commands),
        cmocka_unit_test(test_codec_analysis_delta_round_trip),
        cmocka_unit_test(test_codec_analysis_delta_refusals),
        cmocka_unit_test(test_codec_analysis_sync_and_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
