/*
 * test_store_leases.c: the tournaments' leases and fencing tokens (store.h,
 * thue_store_save_tournament_fenced and thue_store_tournament_leases), on either engine.
 *
 * - A node's save creates the row under its name and fence 0; another node's save of the
 *   same tournament is refused (THUE_STORE_EFENCED) and changes nothing.
 * - A renewal answers the node's own unfinished tournaments; a live lease is never taken.
 * - A lapsed lease is taken by exactly one other node, fence + 1, with the tournament's
 *   stored games; after that the old director's saves (old fence) are refused, the new
 *   one's accepted, and the old director's renewal no longer lists it.
 * - A single server's save (node "", fence 0) works as before.
 */
#include "store_helpers.h"

static int save(thue_store *s, uv_loop_t *loop, const char *id, const char *state, int finished,
                const char *node, int64_t fence)
{
    wres w;
    memset(&w, 0, sizeof w);
    assert_int_equal(
        thue_store_save_tournament_fenced(s, id, state, finished, node, fence, 10000, on_write, &w),
        0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    return w.err;
}

static json_t *leases(thue_store *s, uv_loop_t *loop, const char *node)
{
    rres r;
    memset(&r, 0, sizeof r);
    assert_int_equal(thue_store_tournament_leases(s, node, 10000, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.status, 200);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    assert_non_null(j);
    rres_clear(&r);
    return j;
}

static const char *state_of(const char *path, const char *id, char *out, size_t size)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT state FROM tournaments WHERE id = '%s'", id);
    testdb_text(path, sql, out, size);
    return out;
}

static void test_fenced_saves_and_takeover(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    char buf[256];

    /* n1 creates T1 and T2; n2 cannot write them. */
    assert_int_equal(save(s, &loop, "T1", "{\"v\":1}", 0, "n1", 0), 0);
    assert_int_equal(save(s, &loop, "T2", "{\"v\":1}", 0, "n1", 0), 0);
    assert_int_equal(save(s, &loop, "T1", "{\"v\":\"n2\"}", 0, "n2", 0), THUE_STORE_EFENCED);
    assert_string_equal(state_of(t.path, "T1", buf, sizeof buf), "{\"v\":1}");
    assert_int_equal(save(s, &loop, "T1", "{\"v\":2}", 0, "n1", 0), 0);
    assert_string_equal(state_of(t.path, "T1", buf, sizeof buf), "{\"v\":2}");

    /* Renewals: n1's two; n2 has none and takes nothing while the leases hold. */
    json_t *j = leases(s, &loop, "n1");
    assert_int_equal(json_array_size(json_object_get(j, "renewed")), 2);
    assert_int_equal(json_array_size(json_object_get(j, "taken")), 0);
    json_decref(j);
    j = leases(s, &loop, "n2");
    assert_int_equal(json_array_size(json_object_get(j, "renewed")), 0);
    assert_int_equal(json_array_size(json_object_get(j, "taken")), 0);
    json_decref(j);

    /* T1's lease runs out (n1 stopped renewing): n2 takes it, fence 1, with its games. */
    tmatch *m = malloc(sizeof *m);
    make_match(m, "g1", "Ann", "nested:1", 1700000000000, 4);
    snprintf(m->row.tournament, sizeof m->row.tournament, "T1");
    m->row.tournament_round = 2;
    m->row.winner = 1;
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    free(m);
    testdb_exec(t.path, "UPDATE tournaments SET lease_ms = 1 WHERE id = 'T1'");
    j = leases(s, &loop, "n2");
    json_t *taken = json_object_get(j, "taken");
    assert_int_equal(json_array_size(taken), 1);
    json_t *o = json_array_get(taken, 0);
    assert_string_equal(json_string_value(json_object_get(o, "id")), "T1");
    assert_string_equal(json_string_value(json_object_get(o, "state")), "{\"v\":2}");
    assert_int_equal(json_integer_value(json_object_get(o, "fence")), 1);
    json_t *g = json_array_get(json_object_get(o, "games"), 0);
    assert_int_equal(json_array_size(json_object_get(o, "games")), 1);
    assert_int_equal(json_integer_value(json_array_get(g, 0)), 2);
    assert_string_equal(json_string_value(json_array_get(g, 1)), "Ann");
    assert_string_equal(json_string_value(json_array_get(g, 2)), "nested:1");
    assert_int_equal(json_integer_value(json_array_get(g, 3)), 1);
    json_decref(j);
    /* Taken once: a third node finds nothing to take (the new lease holds). */
    j = leases(s, &loop, "n3");
    assert_int_equal(json_array_size(json_object_get(j, "taken")), 0);
    json_decref(j);

    /* The old director (n1, fence 0) can no longer write T1; n2 under fence 1 can. */
    assert_int_equal(save(s, &loop, "T1", "{\"v\":\"stale\"}", 0, "n1", 0), THUE_STORE_EFENCED);
    assert_int_equal(save(s, &loop, "T1", "{\"v\":\"stale\"}", 0, "n2", 0), THUE_STORE_EFENCED);
    assert_string_equal(state_of(t.path, "T1", buf, sizeof buf), "{\"v\":2}");
    assert_int_equal(save(s, &loop, "T1", "{\"v\":3}", 0, "n2", 1), 0);
    assert_string_equal(state_of(t.path, "T1", buf, sizeof buf), "{\"v\":3}");
    /* n1's renewal lists only T2 now. */
    j = leases(s, &loop, "n1");
    json_t *renewed = json_object_get(j, "renewed");
    assert_int_equal(json_array_size(renewed), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(renewed, 0), "id")), "T2");
    json_decref(j);

    /* A finished tournament is neither renewed nor taken. */
    assert_int_equal(save(s, &loop, "T1", "{\"v\":4}", 1, "n2", 1), 0);
    testdb_exec(t.path, "UPDATE tournaments SET lease_ms = 1");
    j = leases(s, &loop, "n3");
    taken = json_object_get(j, "taken");
    assert_int_equal(json_array_size(taken), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(taken, 0), "id")), "T2");
    json_decref(j);

    /* A single server's saves: node "" and fence 0, as before leases existed. */
    assert_int_equal(thue_store_save_tournament(s, "S1", "{}", 0, NULL, NULL), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(save(s, &loop, "S1", "{\"v\":1}", 0, "", 0), 0);
    assert_string_equal(state_of(t.path, "S1", buf, sizeof buf), "{\"v\":1}");
    close_run(s, &loop);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    assert_int_equal(thue_store_save_tournament_fenced(s, "T", "{}", 0, NULL, 0, 0, NULL, NULL),
                     THUE_EINVAL);
    assert_int_equal(thue_store_save_tournament_fenced(s, "T", "{}", 0, "n1", -1, 0, NULL, NULL),
                     THUE_EINVAL);
    assert_int_equal(thue_store_tournament_leases(s, "", 10000, NULL, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_tournament_leases(s, "n1", 0, NULL, NULL), THUE_EINVAL);
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM tournaments"), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fenced_saves_and_takeover),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
