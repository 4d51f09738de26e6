/*
 * test_game_registry.c: every game of the registry (server/games/registry.h) against the
 * conformance checker (game_check.c) with its default options and with small ones, so
 * that a game added to the list is held to the table's promises without a test of its
 * own having to remember it; and the registry's own promises (names unique and found,
 * Thue first, every documented option default valid JSON of its kind).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "game_check.h"
#include "games/game.h"

/* Small options per game, where the defaults make long games. */
static const char *small_options(const char *name)
{
    if (strcmp(name, "thue") == 0)
        return "{\"k\":2,\"limit\":8}";
    if (strcmp(name, "northcott") == 0)
        return "{\"rows\":2,\"cols\":5,\"move_cap\":40}";
    if (strcmp(name, "circle") == 0)
        return "{\"fields\":7,\"white\":2,\"black\":2,\"move_cap\":40}";
    if (strcmp(name, "dots") == 0)
        return "{\"rows\":2,\"cols\":3}";
    return "{\"heaps\":[2,3]}";
}

static void test_registry_names(void **state)
{
    (void)state;
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    assert_true(n >= 5);
    assert_string_equal(list[0]->name, "thue");
    for (int i = 0; i < n; i++) {
        assert_ptr_equal(thue_game_find(list[i]->name), list[i]);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(list[i]->name, list[j]->name);
        for (int o = 0; o < list[i]->noptions; o++) {
            json_t *d = json_loads(list[i]->options[o].deflt, JSON_DECODE_ANY, NULL);
            assert_non_null(d);
            json_decref(d);
        }
    }
    assert_null(thue_game_find("chess"));
    assert_null(thue_game_find(NULL));
}

static void test_registry_conformance(void **state)
{
    (void)state;
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    for (int i = 0; i < n; i++) {
        const char *opts[2] = {NULL, small_options(list[i]->name)};
        for (int k = 0; k < 2; k++) {
            game_check_cfg cfg = {.options = opts[k],
                                  .seeds = k == 0 ? 4 : 12,
                                  .max_plies = 100000,
                                  .moves_per_state = 40};
            game_check_stats st;
            game_check(list[i], &cfg, &st);
            assert_true(st.states > 0);
            print_message("%-9s %s: %ld states, %ld moves, %ld refusals\n", list[i]->name,
                          opts[k] != NULL ? opts[k] : "(defaults)", st.states, st.moves,
                          st.refused);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_names),
        cmocka_unit_test(test_registry_conformance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
