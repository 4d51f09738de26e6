/*
 * test_store_schema.c: the store (server/store) on a file: SHA-256 against its test
 * vectors, creating, migrating and refusing a newer schema, one server per file,
 * reopening with the data kept, and the order of what a start loads.
 */
#include "store_helpers.h"

#define sql_exec testdb_exec

/* ---- SHA-256 --------------------------------------------------------------------------- */

static void hex(const unsigned char h[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", h[i]);
}

static void test_store_sha256_vectors(void **state)
{
    (void)state;
    unsigned char h[32];
    char x[65];
    /* FIPS 180-2, appendix B, and the empty message. */
    thue_sha256("abc", 3, h);
    hex(h, x);
    assert_string_equal(x, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    thue_sha256("", 0, h);
    hex(h, x);
    assert_string_equal(x, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    thue_sha256(m448, strlen(m448), h);
    hex(h, x);
    assert_string_equal(x, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    assert_non_null(million);
    memset(million, 'a', 1000000);
    thue_sha256(million, 1000000, h);
    free(million);
    hex(h, x);
    assert_string_equal(x, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* The padding's edge: 55 bytes fit one final block, 56 need two. */
    char buf[64];
    memset(buf, 'a', sizeof buf);
    thue_sha256(buf, 55, h);
    hex(h, x);
    assert_string_equal(x, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    thue_sha256(buf, 56, h);
    hex(h, x);
    assert_string_equal(x, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    thue_sha256(buf, 64, h);
    hex(h, x);
    assert_string_equal(x, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

/* ---- opening -------------------------------------------------------------------------- */

static void test_store_open_create(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    thue_store *s = open_ok(t.path);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), THUE_STORE_SCHEMA_VERSION);
    if (testdb_pg()) {
        assert_int_equal(sql_int(t.path, "SELECT count(*) FROM pg_tables WHERE schemaname = "
                                         "'public' AND tablename IN ('accounts', 'ratings', "
                                         "'matches', 'moves', 'tournaments', 'thue_schema')"),
                         6);
        assert_int_equal(sql_int(t.path, "SELECT count(*) FROM pg_indexes WHERE indexname IN "
                                         "('matches_name0', 'matches_name1', 'matches_ended', "
                                         "'matches_game')"),
                         4);
        /* The CHECKs are there: a kind that is neither 1 nor 2 is refused. */
        assert_int_equal(sql_int(t.path, "SELECT count(*) FROM pg_constraint WHERE contype = "
                                         "'c' AND conrelid = 'accounts'::regclass"),
                         2);
    } else {
        char mode[16];
        sql_text(t.path, "PRAGMA journal_mode", mode, sizeof mode);
        assert_string_equal(mode, "wal");
        assert_int_equal(sql_int(t.path, "SELECT count(*) FROM sqlite_schema WHERE type = "
                                         "'table' AND name IN ('accounts', 'ratings', "
                                         "'matches', 'moves', 'tournaments')"),
                         5);
        assert_int_equal(sql_int(t.path, "SELECT count(*) FROM sqlite_schema WHERE type = "
                                         "'index' AND name IN ('matches_name0', "
                                         "'matches_name1', 'matches_ended', 'matches_game')"),
                         4);
    }
    int closed = 0;
    thue_store_close(s, on_closed, &closed);
    assert_int_equal(closed, 1);
    thue_store_close(NULL, on_closed, &closed); /* NULL: just the callback */
    assert_int_equal(closed, 2);
    tdir_remove(&t);
}

static void test_store_open_errors(void **state)
{
    (void)state;
    char err[256];
    assert_null(thue_store_open("/nonexistent-dir/thue.db", err, sizeof err));
    assert_non_null(strstr(err, "cannot open /nonexistent-dir/thue.db"));
    assert_null(thue_store_open(NULL, err, sizeof err));
    assert_true(err[0] != '\0');

    tdir t;
    tdir_make(&t);
    if (testdb_pg()) {
        /* A database of this version whose tables are not the server's: refused, and
         * left as it was. */
        char sql[200];
        snprintf(sql, sizeof sql,
                 "CREATE TABLE thue_schema (version INTEGER NOT NULL); INSERT INTO thue_schema "
                 "VALUES (%d); CREATE TABLE accounts (x INTEGER)",
                 THUE_STORE_SCHEMA_VERSION);
        sql_exec(t.path, sql);
        assert_null(thue_store_open(t.path, err, sizeof err));
        assert_non_null(strstr(err, "not a thue-server database of this version"));
        assert_int_equal(sql_int(t.path, "SELECT count(*) FROM pg_tables WHERE tablename = "
                                         "'matches'"),
                         0);
        tdir_remove(&t);
        return;
    }
    FILE *f = fopen(t.path, "w");
    assert_non_null(f);
    for (int i = 0; i < 200; i++)
        fputs("this is not a database at all. ", f);
    fclose(f);
    assert_null(thue_store_open(t.path, err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
    assert_non_null(strstr(err, "not a database"));
    tdir_remove(&t);
}

static void test_store_migrate_empty_file(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    if (!testdb_pg()) { /* PostgreSQL's is the new, empty database tdir_make made */
        FILE *f = fopen(t.path, "w"); /* 0 bytes: SQLite's new, empty database */
        assert_non_null(f);
        fclose(f);
    }
    thue_store *s = open_ok(t.path);
    thue_store_close(s, NULL, NULL);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), THUE_STORE_SCHEMA_VERSION);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 0);
    /* Opening a current file again changes nothing. */
    s = open_ok(t.path);
    thue_store_close(s, NULL, NULL);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), THUE_STORE_SCHEMA_VERSION);
    tdir_remove(&t);
}

static void test_store_newer_schema_refused(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    thue_store_close(open_ok(t.path), NULL, NULL);
    sql_exec(t.path, "PRAGMA user_version = 99");
    char err[256];
    assert_null(thue_store_open(t.path, err, sizeof err));
    char want[400];
    snprintf(want, sizeof want, "%s: schema version 99 is newer than this server's (%d)", t.path,
             THUE_STORE_SCHEMA_VERSION);
    assert_string_equal(err, want);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), 99); /* untouched */
    tdir_remove(&t);
}

/* A second store on the same file is refused while the first is open, with a sentence that
 * says why, and changes nothing; once the first is closed the file opens again. */
static void test_store_one_server_per_file(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    char err[512];
    if (testdb_pg()) {
        /* Several servers share one PostgreSQL database (the database picks the account
         * ids): a second store opens, and both write. */
        thue_store *s2 = open_started(t.path, &loop);
        int64_t a = 0, b = 0, c = 0;
        assert_int_equal(add_account(s, &loop, "Ann", THUE_KIND_ACCOUNT, 0, &a), 0);
        assert_int_equal(add_account(s2, &loop, "Bob", THUE_KIND_ACCOUNT, 0, &b), 0);
        assert_int_equal(add_account(s2, &loop, "ann", THUE_KIND_ACCOUNT, 0, &c),
                         THUE_STORE_EEXISTS);
        assert_int_equal(a, 1);
        assert_int_equal(b, 2);
        close_run(s2, &loop);
        close_run(s, &loop);
        assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 2);
        uv_loop_close(&loop);
        tdir_remove(&t);
        return;
    }
    assert_null(thue_store_open(t.path, err, sizeof err));
    assert_non_null(strstr(err, "is in use by another thue-server"));
    assert_non_null(strstr(err, t.path));
    /* the first store still works: an account written after the refusal is there */
    assert_int_equal(add_account(s, &loop, "Ann", THUE_KIND_ACCOUNT, 1, NULL), 0);
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 1);
    /* closed: the file is free again */
    s = open_ok(t.path);
    thue_store_close(s, NULL, NULL);
    uv_loop_close(&loop);
    tdir_remove(&t);
}

/* ---- accounts, load ---------------------------------------------------------------------- */

static void test_store_reopen_keeps_data(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    int64_t id = 0;
    assert_int_equal(add_account(s, &loop, "Ann", THUE_KIND_ACCOUNT, 0, &id), 0);
    assert_int_equal(id, 1);
    tmatch *m = malloc(sizeof *m);
    make_match(m, "m1", "Ann", "nested:1", 1700000100000, 6);
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    close_run(s, &loop);

    s = open_started(t.path, &loop);
    json_t *j = match_json(s, &loop, "m1", 200);
    assert_string_equal(json_string_value(json_object_get(j, "match")), "m1");
    assert_int_equal(json_array_size(json_object_get(j, "moves")), 6);
    json_decref(j);
    close_run(s, &loop);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->naccounts, 1);
    assert_string_equal(l->accounts[0].name, "Ann");
    free(l);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

static void test_store_load_order(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    int64_t id = 0;
    /* Explicit ids (the lobby numbers its accounts), out of order, then a store-picked one. */
    assert_int_equal(add_account(s, &loop, "Cy", THUE_KIND_ACCOUNT, 7, &id), 0);
    assert_int_equal(id, 7);
    assert_int_equal(add_account(s, &loop, "Ann", THUE_KIND_ACCOUNT, 3, &id), 0);
    assert_int_equal(id, 3);
    assert_int_equal(add_account(s, &loop, "greedy", THUE_KIND_BOT, 5, &id), 0);
    assert_int_equal(id, 5);
    assert_int_equal(add_account(s, &loop, "Dee", THUE_KIND_ACCOUNT, 0, &id), 0);
    assert_int_equal(id, 8);
    /* An id that is taken is an error, not a name clash. */
    assert_int_equal(add_account(s, &loop, "Eve", THUE_KIND_ACCOUNT, 3, &id), THUE_STORE_EIO);
    close_run(s, &loop);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->naccounts, 4);
    const int64_t ids[] = {3, 5, 7, 8};
    const char *names[] = {"Ann", "greedy", "Cy", "Dee"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(l->accounts[i].id, ids[i]);
        assert_string_equal(l->accounts[i].name, names[i]);
    }
    /* The token hash comes back; a bot has none (zeros) and its SPEC. */
    unsigned char h[32];
    thue_sha256("Ann", 3, h);
    assert_memory_equal(l->accounts[0].token_hash, h, 32);
    assert_int_equal(l->accounts[0].kind, THUE_KIND_ACCOUNT);
    assert_string_equal(l->accounts[0].bot, "");
    assert_int_equal(l->accounts[0].created_ms, 1700000000003);
    static const unsigned char zeros[32];
    assert_memory_equal(l->accounts[1].token_hash, zeros, 32);
    assert_int_equal(l->accounts[1].kind, THUE_KIND_BOT);
    assert_string_equal(l->accounts[1].bot, "greedy");
    assert_int_equal(l->nratings, 0);
    assert_int_equal(l->ntours, 0);
    free(l);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_sha256_vectors),
        cmocka_unit_test(test_store_open_create),
        cmocka_unit_test(test_store_open_errors),
        cmocka_unit_test(test_store_migrate_empty_file),
        cmocka_unit_test(test_store_newer_schema_refused),
        cmocka_unit_test(test_store_one_server_per_file),
        cmocka_unit_test(test_store_reopen_keeps_data),
        cmocka_unit_test(test_store_load_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
