/*
 * test_store_engines.c: the store's two engines (server/store: SQLite and PostgreSQL).
 *
 * On either engine (test_store_engines, and test_store_engines_pg with
 * THUE_STORE_TEST_BACKEND=pg): a PostgreSQL URI that cannot be reached fails with a
 * sentence that keeps its password out; accounts whose id the database picks (id 0)
 * continue from the largest id; a bot added again by id 0 with the same SPEC gets its
 * existing id, while every other taken name is THUE_STORE_EEXISTS.
 *
 * On PostgreSQL only (the _pg entry): the same writes on a SQLite file and on a
 * PostgreSQL database give the same reads, byte for byte (every JSON and CSV text, and
 * what thue_store_load hands over); several stores on one database pick distinct account
 * ids; several servers opening a new database at once migrate it once; an outage (the
 * database refusing connections, every session cut) holds the writes, in order, answers
 * reads with 500 and shows in thue_store_health, then everything commits once it is
 * over; a real restart of the server (scripts/services.sh restart-postgres
 * $THUE_TEST_PG_DIR) is waited out in the same way; and writes whose COMMIT answer was
 * lost (the test hook) are tried again without being stored twice.
 */
#include "store_helpers.h"

#include <libpq-fe.h>

/* ---- reads as text ------------------------------------------------------------------- */

enum { R_MATCH, R_LIST, R_GAME_LIST, R_CSV };

/* One read's status and body as "STATUS BODY" (malloc()ed). */
static char *read_text(thue_store *s, uv_loop_t *loop, int kind, const char *key, int64_t viewer,
                       int page, const char *game)
{
    rres r = {0};
    int rc = kind == R_MATCH  ? thue_store_match_json_as(s, key, viewer, on_read, &r)
             : kind == R_LIST ? thue_store_matches_json_as(s, key, viewer, page, 2, on_read, &r)
             : kind == R_GAME_LIST
                 ? thue_store_matches_game_json_as(s, key, game, viewer, page, 3, on_read, &r)
                 : thue_store_moves_csv_as(s, key, viewer, on_read, &r);
    assert_int_equal(rc, 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(r.calls, 1);
    assert_non_null(r.body);
    size_t n = r.len + 16;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%d %s", r.status, r.body);
    rres_clear(&r);
    return out;
}

/* ---- the same writes ---------------------------------------------------------------------- */

/* A Nim match as the lobby stores one (the texts are the game's JSON). */
static void game_match(tmatch *t, const char *id, const char *a, const char *b, int64_t ended)
{
    make_match(t, id, a, b, ended, 0);
    thue_match_row *m = &t->row;
    m->opt.has_game = 1;
    snprintf(m->opt.game, sizeof m->opt.game, "nim");
    snprintf(m->opt.game_options, sizeof m->opt.game_options, "{\"heaps\":[1,2],\"misere\":false}");
    snprintf(m->why, sizeof m->why, "took_last");
    m->gfirst = 1;
    m->winner = 1;
    m->points[0] = 0;
    m->points[1] = 1;
    m->start_state = "{\"heaps\":[1,2],\"to_move\":0}";
    m->final_state = "{\"heaps\":[0,0],\"to_move\":1,\"note\":\"a \\\"quoted\\\" text, \\u00e9\"}";
    static char mv0[] = "{\"heap\":1,\"take\":2}", mv1[] = "{\"heap\":0,\"take\":1}";
    t->moves[0] = (thue_move_row){0, 0, 1, 0, 0, 1.5, mv0};
    t->moves[1] = (thue_move_row){0, 1, 0, 0, 0, 1e-3 / 3, mv1};
    m->moves = t->moves;
    m->nmoves = 2;
}

/* Writes the same things into s: accounts, Thue matches (rated with awkward doubles, with
 * a clock, in a tournament, private), a Nim match, tournaments. */
static void write_all(thue_store *s, uv_loop_t *loop)
{
    int64_t id;
    assert_int_equal(add_account(s, loop, "Ann", THUE_KIND_ACCOUNT, 0, &id), 0);
    assert_int_equal(add_account(s, loop, "Bob", THUE_KIND_ACCOUNT, 0, &id), 0);
    assert_int_equal(add_account(s, loop, "nested:1", THUE_KIND_BOT, 0, &id), 0);
    assert_int_equal(add_account(s, loop, "\xc3\x89lodie", THUE_KIND_ACCOUNT, 0, &id), 0);
    tmatch *t = malloc(sizeof *t);
    assert_non_null(t);
    for (int i = 0; i < 7; i++) {
        char mid[16];
        snprintf(mid, sizeof mid, "m%d", i);
        make_match(t, mid, i % 2 ? "ANN" : "Ann", i % 3 ? "nested:1" : "Bob", 1700000100000 + i,
                   i * 3);
        thue_match_row *m = &t->row;
        for (int k = 0; k < m->nmoves; k++)
            t->moves[k].think_ms = 0.1 * (k + 1) + 1.0 / 3.0;
        m->accounts[0] = 1;
        m->winner = i % 3 - 1;
        if (i == 1) {
            m->opt.clock.present = 1;
            m->opt.clock.initial_ms = 60000;
            m->opt.clock.increment_ms = 2000;
        }
        if (i == 2) {
            m->rated = 1;
            m->opt.rated = 1;
            m->changes[0] = (thue_rating_change){1500, 1662.1234567890123, 350, 290.25};
            m->changes[1] = (thue_rating_change){1500, 1337.8765432109877, 350, 1e-7};
            m->ratings[0] = (thue_rating_row){
                1, "thue", "square-k3", 1662.1234567890123, 290.25, 0.0600001, 1, 1, 0, 0, 0};
            m->ratings[1] = (thue_rating_row){
                2, "thue", "square-k3", 1337.8765432109877, 1e-7, 0.06, 1, 0, 0, 1, 0};
            m->accounts[1] = 2;
        }
        if (i == 3) {
            snprintf(m->tournament, sizeof m->tournament, "T1");
            m->tournament_round = 2;
        }
        if (i == 4)
            m->opt.is_private = 1;
        assert_int_equal(save_match(s, loop, m), 0);
    }
    game_match(t, "g1", "\xc3\x89lodie", "ann", 1700000200000);
    assert_int_equal(save_match(s, loop, &t->row), 0);
    free(t);
    wres w = {0};
    assert_int_equal(thue_store_save_tournament(s, "T1", "{\"round\":2}", 0, on_write, &w), 0);
    assert_int_equal(thue_store_save_tournament(s, "T0", "{\"done\":true}", 1, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 2);
    assert_int_equal(w.err, 0);
}

/* Every read of what write_all wrote, one text after the other. */
static char *read_all(thue_store *s, uv_loop_t *loop)
{
    const char *ids[] = {"m0", "m1", "m2", "m3", "m4", "m5", "m6", "g1", "none"};
    const char *players[] = {"ann",           "ANN",           "Bob",   "nested:1",
                             "\xc3\x89lodie", "\xc3\xa9lodie", "nobody"};
    const int64_t viewers[] = {-1, 0, 1, 2};
    size_t cap = 1 << 20, len = 0;
    char *all = malloc(cap);
    assert_non_null(all);
    all[0] = '\0';
    for (int v = 0; v < 4; v++) {
        char *texts[64];
        int n = 0;
        for (int i = 0; i < 9; i++) {
            texts[n++] = read_text(s, loop, R_MATCH, ids[i], viewers[v], 0, NULL);
            texts[n++] = read_text(s, loop, R_CSV, ids[i], viewers[v], 0, NULL);
        }
        for (int p = 0; p < 7; p++)
            for (int page = 1; page <= 3; page++)
                texts[n++] = read_text(s, loop, R_LIST, players[p], viewers[v], page, NULL);
        texts[n++] = read_text(s, loop, R_GAME_LIST, "ann", viewers[v], 1, "thue");
        texts[n++] = read_text(s, loop, R_GAME_LIST, "ann", viewers[v], 1, "nim");
        texts[n++] = read_text(s, loop, R_GAME_LIST, "ann", viewers[v], 2, NULL);
        assert_true(n <= 64);
        for (int i = 0; i < n; i++) {
            size_t k = strlen(texts[i]);
            assert_true(len + k + 2 < cap);
            memcpy(all + len, texts[i], k);
            len += k;
            all[len++] = '\n';
            all[len] = '\0';
            free(texts[i]);
        }
    }
    return all;
}

/* What thue_store_load hands over, as text (doubles with every digit). */
static char *load_text(const char *path)
{
    loaded *l = malloc(sizeof *l);
    assert_non_null(l);
    load_all(path, l);
    char *out = malloc(1 << 16);
    assert_non_null(out);
    size_t n = 0, cap = 1 << 16;
    out[0] = '\0';
    for (int i = 0; i < l->naccounts; i++) {
        const thue_account_row *a = &l->accounts[i];
        n += (size_t)snprintf(out + n, cap - n, "A %lld %s %d %s %lld %02x%02x\n", (long long)a->id,
                              a->name, (int)a->kind, a->bot, (long long)a->created_ms,
                              a->token_hash[0], a->token_hash[31]);
    }
    for (int i = 0; i < l->nratings; i++) {
        const thue_rating_row *r = &l->ratings[i];
        n += (size_t)snprintf(out + n, cap - n, "R %lld %s %s %.17g %.17g %.17g %d %d %d %d\n",
                              (long long)r->account, r->game, r->pool, r->rating, r->rd, r->vol,
                              r->games, r->wins, r->draws, r->losses);
    }
    for (int i = 0; i < l->ntours; i++)
        n += (size_t)snprintf(out + n, cap - n, "T %s %s\n", l->tour_ids[i], l->tour_states[i]);
    free(l);
    return out;
}

static void test_engines_same_texts(void **state)
{
    (void)state;
    tdir lite, pg;
    testdb_make_engine(&lite, 0);
    testdb_make_engine(&pg, 1);
    /* Defaults that would change the texts (doubles cut to 15 digits, BYTEA escaped,
     * another client encoding): the store's sessions set their own. */
    char sql[512];
    snprintf(sql, sizeof sql,
             "ALTER DATABASE %s SET extra_float_digits = 0; ALTER DATABASE %s SET "
             "bytea_output = 'escape'; ALTER DATABASE %s SET client_encoding = 'LATIN1'",
             pg.name, pg.name, pg.name);
    testdb_exec(getenv("THUE_TEST_PG"), sql);
    uv_loop_t loop;
    uv_loop_init(&loop);
    char *reads[2], *loads[2];
    tdir *dbs[2] = {&lite, &pg};
    for (int e = 0; e < 2; e++) {
        thue_store *s = open_started(dbs[e]->path, &loop);
        write_all(s, &loop);
        reads[e] = read_all(s, &loop);
        close_run(s, &loop);
        loads[e] = load_text(dbs[e]->path);
    }
    /* Not a vacuous comparison: the texts hold what was written. */
    /* (the reads write 15 significant digits; the load hands over every one) */
    assert_non_null(strstr(reads[0], "\"after\":1662.12345678901,"));
    assert_non_null(strstr(reads[0], "200 ply,seat,move,think_ms\n0,1,\"{\"\"heap\"\":1"));
    assert_non_null(strstr(reads[0], "404 {\"error\":{\"code\":\"not_found\""));
    assert_non_null(strstr(loads[0], "R 1 thue square-k3 1662.123456789012"));
    assert_string_equal(reads[1], reads[0]);
    assert_string_equal(loads[1], loads[0]);
    for (int e = 0; e < 2; e++) {
        free(reads[e]);
        free(loads[e]);
    }
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&lite);
    tdir_remove(&pg);
}

/* ---- opening: an unreachable server ------------------------------------------------------ */

static void test_engines_unreachable(void **state)
{
    (void)state;
    char err[512];
    /* Port 1 on loopback: nothing listens (connection refused at once). */
    assert_null(thue_store_open("postgres://thue:s3cret-pw@127.0.0.1:1/thue", err, sizeof err));
    assert_non_null(strstr(err, "cannot open postgres://thue:***@127.0.0.1:1/thue: "));
    assert_null(strstr(err, "s3cret-pw"));
    assert_null(thue_store_open("postgresql://127.0.0.1:1/db?user=u&password=hunter2&x=1", err,
                                sizeof err));
    assert_non_null(strstr(err, "cannot open postgresql://127.0.0.1:1/db?user=u&password=***&x=1"));
    assert_null(strstr(err, "hunter2"));
    /* Every password hidden, in the user part and in parameters. */
    assert_null(thue_store_open("postgres://u:pw-one@127.0.0.1:1/db?password=pw-two&"
                                "password=pw-three",
                                err, sizeof err));
    assert_non_null(
        strstr(err, "cannot open postgres://u:***@127.0.0.1:1/db?password=***&password=***: "));
    assert_null(strstr(err, "pw-"));
    /* Not a URI libpq takes: refused with libpq's sentence, nothing else. */
    assert_null(thue_store_open("postgres://[::1", err, sizeof err));
    assert_non_null(strstr(err, "cannot open postgres://[::1: "));
}

/* ---- ids the database picks; bots added again --------------------------------------------- */

static int add_bot(thue_store *s, uv_loop_t *loop, const char *name, const char *spec, int64_t id,
                   int64_t *got)
{
    thue_account_row row;
    memset(&row, 0, sizeof row);
    row.id = id;
    snprintf(row.name, sizeof row.name, "%s", name);
    row.kind = THUE_KIND_BOT;
    snprintf(row.bot, sizeof row.bot, "%s", spec);
    row.created_ms = 1700000000000;
    wres w = {0};
    assert_int_equal(thue_store_add_account(s, &row, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    *got = w.id;
    return w.err;
}

static void test_engines_ids_and_bots(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    int64_t id = -1, again = -1;
    assert_int_equal(add_account(s, &loop, "Ann", THUE_KIND_ACCOUNT, 0, &id), 0);
    assert_int_equal(id, 1);
    assert_int_equal(add_account(s, &loop, "Cy", THUE_KIND_ACCOUNT, 41, &id), 0);
    assert_int_equal(id, 41);
    /* The database's pick continues from the largest id. */
    assert_int_equal(add_bot(s, &loop, "greedy", "greedy", 0, &id), 0);
    assert_int_equal(id, 42);
    /* The same bot again (another server adding it): its id, no second row. */
    assert_int_equal(add_bot(s, &loop, "GREEDY", "greedy", 0, &again), 0);
    assert_int_equal(again, 42);
    /* Another SPEC under that name, a person's name, or an id given by the caller: taken. */
    assert_int_equal(add_bot(s, &loop, "greedy", "random", 0, &again), THUE_STORE_EEXISTS);
    assert_int_equal(again, 0);
    assert_int_equal(add_bot(s, &loop, "ann", "ann", 0, &again), THUE_STORE_EEXISTS);
    assert_int_equal(add_bot(s, &loop, "greedy", "greedy", 50, &again), THUE_STORE_EEXISTS);
    assert_int_equal(add_account(s, &loop, "Greedy", THUE_KIND_ACCOUNT, 0, &again),
                     THUE_STORE_EEXISTS);
    /* A taken id stays an error of its own (not a name clash), and nothing is written. */
    assert_int_equal(add_account(s, &loop, "Dee", THUE_KIND_ACCOUNT, 41, &again), THUE_STORE_EIO);
    assert_int_equal(add_account(s, &loop, "Dee", THUE_KIND_ACCOUNT, 0, &again), 0);
    assert_int_equal(again, 43);
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 4);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts WHERE name_key = 'greedy'"), 1);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- PostgreSQL: several servers on one database ------------------------------------------- */

typedef struct opener {
    const char *path;
    thue_store *s;
    char err[256];
} opener;

static void open_thread(void *arg)
{
    opener *o = arg;
    o->s = thue_store_open(o->path, o->err, sizeof o->err);
}

static void test_engines_pg_several_servers(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    /* Four servers open the new database at once: one migrates, the others wait for its
     * lock and find it current. */
    opener o[4];
    uv_thread_t th[4];
    for (int i = 0; i < 4; i++) {
        o[i].path = t.path;
        o[i].s = NULL;
        assert_int_equal(uv_thread_create(&th[i], open_thread, &o[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(uv_thread_join(&th[i]), 0);
    for (int i = 0; i < 4; i++)
        if (o[i].s == NULL)
            fail_msg("server %d: %s", i, o[i].err);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), THUE_STORE_SCHEMA_VERSION);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM thue_schema"), 1);

    /* They add accounts at once, the database picking the ids: all distinct, 1..80. */
    uv_loop_t loop;
    uv_loop_init(&loop);
    for (int i = 0; i < 4; i++)
        assert_int_equal(thue_store_start(o[i].s, &loop), 0);
    wres w[80];
    memset(w, 0, sizeof w);
    for (int k = 0; k < 80; k++) {
        thue_account_row row;
        memset(&row, 0, sizeof row);
        snprintf(row.name, sizeof row.name, "p%d", k);
        row.kind = THUE_KIND_ACCOUNT;
        assert_int_equal(thue_store_add_account(o[k % 4].s, &row, on_write, &w[k]), 0);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    int seen[81] = {0};
    for (int k = 0; k < 80; k++) {
        assert_int_equal(w[k].calls, 1);
        assert_int_equal(w[k].err, 0);
        assert_true(w[k].id >= 1 && w[k].id <= 80);
        assert_int_equal(seen[w[k].id]++, 0);
    }
    /* The same bot from every server: one row, one id for all. */
    int64_t bot[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(add_bot(o[i].s, &loop, "uct:100", "uct:100", 0, &bot[i]), 0);
    for (int i = 1; i < 4; i++)
        assert_int_equal(bot[i], bot[0]);
    for (int i = 0; i < 4; i++)
        close_run(o[i].s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 81);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- PostgreSQL: outages ------------------------------------------------------------------- */

static void admin(const char *sql)
{
    testdb_exec(getenv("THUE_TEST_PG"), sql);
}

typedef struct outage {
    thue_store *s;
    const char *dbname;
    uv_timer_t timer;
    int step;
    rres read; /* the read during the outage */
    wres writes[3];
    thue_store_health during;
} outage;

static void on_tick(uv_timer_t *timer)
{
    outage *o = timer->data;
    thue_store_health h;
    thue_store_health_get(o->s, &h);
    if (o->step == 0 && h.failing && h.writes_waiting >= 2) {
        o->during = h;
        assert_int_equal(o->writes[0].calls, 0); /* held, not dropped */
        assert_int_equal(thue_store_match_json(o->s, "m1", on_read, &o->read), 0);
        o->step = 1;
    } else if (o->step == 1 && o->read.calls == 1) {
        char sql[160];
        snprintf(sql, sizeof sql, "ALTER DATABASE %s ALLOW_CONNECTIONS true", o->dbname);
        admin(sql);
        o->step = 2;
        uv_timer_stop(timer);
        uv_close((uv_handle_t *)timer, NULL);
    }
}

/* Cuts the store off its database: no new connection, every session ended. */
static void cut(const char *dbname)
{
    char sql[256];
    snprintf(sql, sizeof sql, "ALTER DATABASE %s ALLOW_CONNECTIONS false", dbname);
    admin(sql);
    snprintf(sql, sizeof sql,
             "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '%s'",
             dbname);
    admin(sql);
}

static void test_engines_pg_outage(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    outage *o = calloc(1, sizeof *o);
    assert_non_null(o);
    o->s = open_started(t.path, &loop);
    o->dbname = t.name;
    tmatch *m = malloc(sizeof *m);
    make_match(m, "m1", "Ann", "nested:1", 1700000100000, 4);
    assert_int_equal(save_match(o->s, &loop, &m->row), 0);

    cut(t.name);
    /* Three writes while the database is away: they wait, in order, and commit after. */
    make_match(m, "m2", "Ann", "nested:1", 1700000200000, 6);
    assert_int_equal(thue_store_save_match(o->s, &m->row, on_write, &o->writes[0]), 0);
    assert_int_equal(thue_store_save_tournament(o->s, "T", "{}", 0, on_write, &o->writes[1]), 0);
    thue_account_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "Zed");
    row.kind = THUE_KIND_ACCOUNT;
    assert_int_equal(thue_store_add_account(o->s, &row, on_write, &o->writes[2]), 0);
    uv_timer_init(&loop, &o->timer);
    o->timer.data = o;
    uv_timer_start(&o->timer, on_tick, 20, 20);
    uv_run(&loop, UV_RUN_DEFAULT);

    assert_int_equal(o->step, 2);
    assert_int_equal(o->during.failing, 1);
    assert_true(o->during.write_failures >= 1);
    assert_int_equal(o->read.status, 500); /* reads answer during the outage */
    rres_clear(&o->read);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(o->writes[i].calls, 1);
        assert_int_equal(o->writes[i].err, 0);
    }
    assert_int_equal(o->writes[2].id, 1);
    thue_store_health h;
    thue_store_health_get(o->s, &h);
    assert_int_equal(h.failing, 0);
    assert_int_equal(h.writes_waiting, 0);
    /* Reads work again. */
    json_t *j = match_json(o->s, &loop, "m2", 200);
    assert_int_equal(json_array_size(json_object_get(j, "moves")), 6);
    json_decref(j);
    close_run(o->s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches"), 2);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM tournaments"), 1);
    free(m);
    free(o);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* The server itself restarts (every connection cut, the server away for a moment). */
static void test_engines_pg_restart(void **state)
{
    (void)state;
    const char *dir = getenv("THUE_TEST_PG_DIR");
    if (dir == NULL || dir[0] == '\0')
        fail_msg("the restart test needs THUE_TEST_PG_DIR (scripts/services.sh's DIR)");
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    tmatch *m = malloc(sizeof *m);
    make_match(m, "m1", "Ann", "nested:1", 1700000100000, 4);
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "bash %s/scripts/services.sh restart-postgres %s", THUE_SOURCE_DIR,
             dir);
    assert_int_equal(system(cmd), 0);
    make_match(m, "m2", "Ann", "nested:1", 1700000200000, 6);
    assert_int_equal(save_match(s, &loop, &m->row), 0); /* waits for the reconnect */
    thue_store_health h;
    thue_store_health_get(s, &h);
    assert_true(h.write_failures >= 1); /* the first try met the cut connection */
    assert_int_equal(h.failing, 0);
    json_t *j = match_json(s, &loop, "m2", 200);
    assert_int_equal(json_array_size(json_object_get(j, "moves")), 6);
    json_decref(j);
    close_run(s, &loop);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* A COMMIT whose answer is lost (the connection breaks just after the server committed):
 * the writes are tried again and find themselves stored: each answered once, as saved,
 * and nothing stored twice. */
static void test_engines_pg_lost_commit(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    tmatch *m = malloc(sizeof *m);
    assert_non_null(m);
    make_match(m, "m1", "Ann", "nested:1", 1700000100000, 8);
    thue_store_lose_commit_reply(s);
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    thue_store_health h;
    thue_store_health_get(s, &h);
    assert_int_equal(h.write_failures, 1);
    int64_t id = 0;
    thue_store_lose_commit_reply(s);
    assert_int_equal(add_account(s, &loop, "Zoe", THUE_KIND_ACCOUNT, 0, &id), 0);
    assert_int_equal(id, 1);
    /* A batch: two matches and an account queued at once, their one COMMIT lost. */
    thue_store_lose_commit_reply(s);
    wres w[3];
    memset(w, 0, sizeof w);
    tmatch *m2 = malloc(sizeof *m2);
    assert_non_null(m2);
    make_match(m, "m2", "Ann", "nested:1", 1700000200000, 6);
    make_match(m2, "m3", "Zoe", "nested:1", 1700000300000, 4);
    assert_int_equal(thue_store_save_match(s, &m->row, on_write, &w[0]), 0);
    assert_int_equal(thue_store_save_match(s, &m2->row, on_write, &w[1]), 0);
    thue_account_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "Yan");
    row.kind = THUE_KIND_ACCOUNT;
    thue_sha256("Yan", 3, row.token_hash);
    assert_int_equal(thue_store_add_account(s, &row, on_write, &w[2]), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(w[i].calls, 1);
        assert_int_equal(w[i].err, 0);
    }
    assert_int_equal(w[2].id, 2);
    thue_store_health_get(s, &h);
    assert_int_equal(h.write_failures, 3);
    assert_int_equal(h.failing, 0);
    /* Not a blanket pass: a name taken by someone else is still taken. */
    assert_int_equal(add_account(s, &loop, "yan", THUE_KIND_ACCOUNT, 0, &id), THUE_STORE_EEXISTS);
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches"), 3);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM moves"), 8 + 6 + 4);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 2);
    free(m);
    free(m2);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest both[] = {
        cmocka_unit_test(test_engines_unreachable),
        cmocka_unit_test(test_engines_ids_and_bots),
    };
    const struct CMUnitTest pg[] = {
        cmocka_unit_test(test_engines_unreachable),
        cmocka_unit_test(test_engines_ids_and_bots),
        cmocka_unit_test(test_engines_same_texts),
        cmocka_unit_test(test_engines_pg_several_servers),
        cmocka_unit_test(test_engines_pg_outage),
        cmocka_unit_test(test_engines_pg_restart),
        cmocka_unit_test(test_engines_pg_lost_commit),
    };
    if (testdb_pg())
        return cmocka_run_group_tests(pg, NULL, NULL);
    return cmocka_run_group_tests(both, NULL, NULL);
}
