/*
 * test_lobby_reviews.c: reviews_compute (lobby/reviews.h), the worker's part of a review:
 * a stored record's JSON in, the review's JSON out. Records as GET /api/matches/{id}
 * writes them are reviewed (a Nim match with its blunder, a Thue match with its
 * points); records the review cannot use (not JSON, no id, an unknown game, options,
 * positions or moves that do not parse, moves the rules refuse, a Thue variant that is
 * none) answer status "unavailable" with a reason, never a crash; and a few thousand
 * random mutations of good records never crash it (run under ASan and UBSan in CI).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "reviews.h"

#define NIM                                                                                        \
    "{\"match\":\"m1\",\"game\":\"nim\",\"game_options\":{\"heaps\":[3,4,5],\"misere\":false},"  \
    "\"first\":0,\"start\":{\"heaps\":[3,4,5],\"to_move\":0,\"moves\":0,\"nim_sum\":2},"         \
    "\"moves\":[{\"ply\":0,\"seat\":0,\"move\":{\"heap\":2,\"take\":1}},"                          \
    "{\"ply\":1,\"seat\":1,\"move\":{\"heap\":0,\"take\":3}}]}"

#define THUE                                                                                       \
    "{\"match\":\"m2\",\"options\":{\"variant\":\"square\",\"k\":3,\"limit\":100},"              \
    "\"moves\":[{\"round\":0,\"ply\":0,\"seat\":0,\"kind\":\"place\",\"value\":1},"                \
    "{\"round\":0,\"ply\":1,\"seat\":1,\"kind\":\"paint\",\"value\":1},"                           \
    "{\"round\":0,\"ply\":2,\"seat\":0,\"kind\":\"place\",\"value\":2},"                           \
    "{\"round\":0,\"ply\":3,\"seat\":1,\"kind\":\"paint\",\"value\":0}]}"

static json_t *compute(const char *record)
{
    char *text = reviews_compute(record, NULL);
    assert_non_null(text);
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    free(text);
    assert_non_null(j);
    return j;
}

static const char *str(json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

static void test_nim_record(void **state)
{
    (void)state;
    json_t *r = compute(NIM);
    assert_string_equal(str(r, "status"), "done");
    assert_string_equal(str(r, "match"), "m1");
    assert_string_equal(str(r, "values"), "result");
    json_t *m0 = json_array_get(json_object_get(r, "moves"), 0);
    assert_string_equal(str(m0, "verdict"), "blunder"); /* 3,4,5 is won; 3,4,4 is lost */
    assert_int_equal(json_integer_value(json_object_get(m0, "before")), 1);
    assert_int_equal(json_integer_value(json_object_get(m0, "after")), -1);
    json_t *best = json_array_get(json_object_get(m0, "best"), 0);
    assert_int_equal(json_integer_value(json_object_get(best, "heap")), 0);
    assert_int_equal(json_integer_value(json_object_get(best, "take")), 2);
    json_t *s0 = json_array_get(json_object_get(r, "summary"), 0);
    assert_int_equal(json_integer_value(json_object_get(s0, "blunder")), 1);
    json_decref(r);
}

static void test_thue_record(void **state)
{
    (void)state;
    json_t *r = compute(THUE);
    assert_string_equal(str(r, "status"), "done");
    assert_string_equal(str(r, "values"), "points");
    json_t *moves = json_object_get(r, "moves");
    assert_int_equal(json_array_size(moves), 4);
    /* [0] -> 01 -> 010: both paints clean, every value exact */
    for (size_t i = 0; i < 4; i++) {
        json_t *m = json_array_get(moves, i);
        assert_string_equal(str(m, "role"), i % 2 ? "painter" : "builder");
        assert_true(json_is_integer(json_object_get(m, "before")));
        assert_true(json_is_integer(json_object_get(m, "after")));
    }
    json_decref(r);
}

static void unavailable(const char *record)
{
    json_t *r = compute(record);
    if (strcmp(str(r, "status"), "unavailable") != 0)
        fail_msg("%s: status %s", record, str(r, "status"));
    assert_true(strlen(str(r, "reason")) > 0);
    json_decref(r);
}

static void test_bad_records(void **state)
{
    (void)state;
    unavailable("");
    unavailable("not json");
    unavailable("[]");
    unavailable("{\"game\":\"nim\"}"); /* no id */
    unavailable("{\"match\":\"m\",\"game\":\"chess\"}");
    unavailable("{\"match\":\"m\",\"game\":\"nim\",\"game_options\":{\"heaps\":\"x\"}}");
    unavailable("{\"match\":\"m\",\"game\":\"nim\",\"game_options\":{\"heaps\":[1]},"
                "\"start\":{\"heaps\":\"x\"},\"moves\":[]}");
    unavailable("{\"match\":\"m\",\"game\":\"nim\",\"game_options\":{\"heaps\":[1]},"
                "\"start\":{\"heaps\":[1],\"to_move\":0,\"moves\":0},"
                "\"moves\":[{\"seat\":0,\"move\":{\"heap\":0,\"take\":5}}]}");
    unavailable("{\"match\":\"m\",\"game\":\"nim\",\"game_options\":{\"heaps\":[1]},"
                "\"start\":{\"heaps\":[1],\"to_move\":0,\"moves\":0},"
                "\"moves\":[{\"seat\":0,\"move\":\"take all\"}]}");
    unavailable("{\"match\":\"m\",\"options\":{\"variant\":\"cube\",\"k\":3,\"limit\":10},"
                "\"moves\":[]}");
    unavailable("{\"match\":\"m\",\"options\":{\"variant\":\"square\",\"k\":99,\"limit\":10},"
                "\"moves\":[]}");
    unavailable("{\"match\":\"m\",\"options\":{\"variant\":\"square\",\"k\":3,\"limit\":10},"
                "\"moves\":[{\"round\":0,\"kind\":\"paint\",\"value\":0}]}");
    unavailable("{\"match\":\"m\",\"options\":{\"variant\":\"square\",\"k\":3,\"limit\":10},"
                "\"moves\":[{\"round\":0,\"kind\":\"place\",\"value\":9}]}");
    unavailable("{\"match\":\"m\",\"options\":{\"variant\":\"square\",\"k\":3,\"limit\":10},"
                "\"moves\":[{\"round\":5,\"kind\":\"place\",\"value\":0}]}");
}

/* Random byte mutations of the good records: any answer but a crash. */
static void test_mutations(void **state)
{
    (void)state;
    const char *good[] = {NIM, THUE};
    uint64_t seed = 12345;
    for (int i = 0; i < 3000; i++) {
        const char *g = good[i % 2];
        size_t n = strlen(g);
        char *t = malloc(n + 1);
        assert_non_null(t);
        memcpy(t, g, n + 1);
        for (int k = 0; k < 1 + i % 4; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % n;
            static const char pick[] = "0123456789-\"{}[],:aez";
            t[at] = pick[(seed >> 20) % (sizeof pick - 1)];
        }
        char *out = reviews_compute(t, NULL);
        assert_non_null(out);
        free(out);
        free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nim_record),
        cmocka_unit_test(test_thue_record),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
