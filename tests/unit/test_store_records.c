/*
 * test_store_records.c: what the store (server/store) keeps: accounts, matches with
 * their moves and paging, rated matches and their ratings, tournaments and their games;
 * each written through the store and read back, and checked in the file with SQL.
 */
#include "store_helpers.h"
#include "strbuf.h"

#include <libpq-fe.h>

/* The details of EXPLAIN QUERY PLAN, joined with " | ". */
static void sql_plan(const char *path, const char *sql, char *out, size_t size)
{
    out[0] = '\0';
    if (testdb_pg()) {
        /* PostgreSQL would scan a table this small: the plan it has once scans are off
         * shows which indexes it can use. */
        PGconn *c = PQconnectdb(path);
        assert_int_equal(PQstatus(c), CONNECTION_OK);
        char q[512];
        snprintf(q, sizeof q, "SET enable_seqscan = off; EXPLAIN %s", sql);
        PGresult *r = PQexec(c, q);
        assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
        for (int i = 0; i < PQntuples(r); i++) {
            size_t n = strlen(out);
            snprintf(out + n, size - n, "%s | ", PQgetvalue(r, i, 0));
        }
        PQclear(r);
        PQfinish(c);
        return;
    }
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    char q[512];
    snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
    out[0] = '\0';
    while (sqlite3_step(st) == SQLITE_ROW) {
        size_t n = strlen(out);
        snprintf(out + n, size - n, "%s | ", (const char *)sqlite3_column_text(st, 3));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void test_store_account_exists(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    assert_int_equal(add_account(s, &loop, "Ann Lee", THUE_KIND_ACCOUNT, 0, NULL), 0);
    assert_int_equal(add_account(s, &loop, "aNN lEE", THUE_KIND_ACCOUNT, 0, NULL),
                     THUE_STORE_EEXISTS);
    assert_int_equal(add_account(s, &loop, "ANN LEE", THUE_KIND_BOT, 0, NULL), THUE_STORE_EEXISTS);
    /* Only ASCII folds: "é" and "É" are different names. */
    assert_int_equal(add_account(s, &loop, "\xc3\xa9", THUE_KIND_ACCOUNT, 0, NULL), 0);
    assert_int_equal(add_account(s, &loop, "\xc3\x89", THUE_KIND_ACCOUNT, 0, NULL), 0);
    assert_int_equal(add_account(s, &loop, "Bob", THUE_KIND_ACCOUNT, 0, NULL), 0);
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 4);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts WHERE name = 'Ann Lee' AND "
                                     "name_key = 'ann lee'"),
                     1);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- matches ----------------------------------------------------------------------------- */

static void check_match_object(json_t *j)
{
    assert_string_equal(json_string_value(json_object_get(j, "match")), "m1");
    assert_string_equal(json_string_value(json_object_get(j, "room")), "rm1");
    assert_int_equal(json_integer_value(json_object_get(j, "number")), 1);
    json_t *o = json_object_get(j, "options");
    assert_string_equal(json_string_value(json_object_get(o, "variant")), "square");
    assert_int_equal(json_integer_value(json_object_get(o, "k")), 3);
    assert_int_equal(json_integer_value(json_object_get(o, "limit")), 100);
    json_t *clock = json_object_get(o, "clock");
    assert_int_equal(json_integer_value(json_object_get(clock, "initial_ms")), 300000);
    assert_int_equal(json_integer_value(json_object_get(clock, "increment_ms")), 2000);
    assert_true(json_is_false(json_object_get(o, "rated")));
    assert_true(json_is_true(json_object_get(o, "private")));
    assert_string_equal(json_string_value(json_object_get(o, "first_builder")), "creator");

    json_t *p = json_object_get(j, "players");
    assert_int_equal(json_array_size(p), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(p, 0), "name")), "Ann");
    assert_string_equal(json_string_value(json_object_get(json_array_get(p, 0), "kind")), "guest");
    assert_true(json_is_null(json_object_get(json_array_get(p, 0), "bot")));
    assert_string_equal(json_string_value(json_object_get(json_array_get(p, 1), "kind")), "bot");
    assert_string_equal(json_string_value(json_object_get(json_array_get(p, 1), "bot")),
                        "nested:1");

    json_t *res = json_object_get(j, "result");
    assert_int_equal(json_integer_value(json_object_get(res, "winner")), 0);
    assert_string_equal(json_string_value(json_object_get(res, "reason")), "score");
    json_t *pts = json_object_get(j, "points");
    assert_int_equal(json_integer_value(json_array_get(pts, 0)), 5);
    assert_int_equal(json_integer_value(json_array_get(pts, 1)), 3);

    json_t *rounds = json_object_get(j, "rounds");
    assert_int_equal(json_array_size(rounds), 2);
    json_t *r0 = json_array_get(rounds, 0), *r1 = json_array_get(rounds, 1);
    assert_int_equal(json_integer_value(json_object_get(r0, "builder")), 0);
    assert_int_equal(json_integer_value(json_object_get(r0, "points")), 3);
    assert_string_equal(json_string_value(json_object_get(r0, "end")), "forfeit");
    assert_string_equal(json_string_value(json_object_get(r1, "end")), "repetition");
    json_t *rep = json_object_get(r1, "repetition");
    assert_int_equal(json_integer_value(json_object_get(rep, "start")), 5);
    assert_int_equal(json_integer_value(json_object_get(rep, "period")), 1);
    assert_int_equal(json_integer_value(json_object_get(rep, "length")), 2);
    json_t *w = json_object_get(r1, "word");
    assert_int_equal(json_array_size(w), 7);
    assert_int_equal(json_integer_value(json_array_get(w, 5)), 1);
    /* Round 1 was forfeited: no repetition, no word. */
    assert_true(json_is_null(json_object_get(r0, "repetition")));
    assert_true(json_is_null(json_object_get(r0, "word")));

    json_t *moves = json_object_get(j, "moves");
    assert_int_equal(json_array_size(moves), 5);
    json_t *mv = json_array_get(moves, 1);
    assert_int_equal(json_integer_value(json_object_get(mv, "round")), 0);
    assert_int_equal(json_integer_value(json_object_get(mv, "ply")), 1);
    assert_int_equal(json_integer_value(json_object_get(mv, "seat")), 1);
    assert_string_equal(json_string_value(json_object_get(mv, "kind")), "paint");
    assert_int_equal(json_integer_value(json_object_get(mv, "value")), 0);
    assert_true(json_is_real(json_object_get(mv, "think_ms")));
    assert_true(json_real_value(json_object_get(mv, "think_ms")) == 0.5);
    /* A whole think time is an integer, like JavaScript writes it. */
    json_t *mv3 = json_array_get(moves, 3);
    assert_int_equal(json_integer_value(json_object_get(mv3, "round")), 1);
    assert_int_equal(json_integer_value(json_object_get(mv3, "ply")), 0);
    assert_string_equal(json_string_value(json_object_get(mv3, "kind")), "place");
    assert_true(json_is_integer(json_object_get(mv3, "think_ms")));
    assert_int_equal(json_integer_value(json_object_get(mv3, "think_ms")), 1);

    assert_true(json_is_null(json_object_get(j, "ratings")));
    assert_int_equal(json_integer_value(json_object_get(j, "started_at")), 1700000040000);
    assert_int_equal(json_integer_value(json_object_get(j, "ended_at")), 1700000100000);
    assert_true(json_is_null(json_object_get(j, "tournament")));
    assert_true(json_is_null(json_object_get(j, "tournament_round")));
}

static void test_store_match_roundtrip(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    tmatch *m = malloc(sizeof *m);
    make_match(m, "m1", "Ann", "nested:1", 1700000100000, 5);
    m->row.opt.clock.present = 1;
    m->row.opt.clock.initial_ms = 300000;
    m->row.opt.clock.increment_ms = 2000;
    m->row.opt.is_private = 1;
    m->row.rounds[0].has_repetition = 0;
    m->row.rounds[0].end = THUE_ROUND_FORFEIT;
    m->row.rounds[0].word = NULL;
    m->row.rounds[0].word_len = 0;
    /* The caller's buffers may change as soon as the call returns. */
    wres w = {0};
    assert_int_equal(thue_store_save_match(s, &m->row, on_write, &w), 0);
    memset(m, 0xa5, sizeof *m);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.err, 0);

    json_t *j = match_json(s, &loop, "m1", 200);
    check_match_object(j);
    json_decref(j);

    /* The same id again is refused whole (no second row, no extra moves). */
    make_match(m, "m1", "Ann", "nested:1", 1700000200000, 9);
    assert_int_equal(save_match(s, &loop, &m->row), THUE_STORE_EIO);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM moves"), 5);

    rres r = {0};
    assert_int_equal(thue_store_moves_csv(s, "m1", on_read, &r), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "round,ply,seat,role,move,think_ms\n"
                                "0,0,0,builder,0,0.250\n"
                                "0,1,1,painter,0,0.500\n"
                                "0,2,0,builder,1,0.750\n"
                                "1,0,1,builder,0,1.000\n"
                                "1,1,0,painter,0,1.250\n");
    assert_int_equal(r.len, strlen(r.body));
    rres_clear(&r);

    /* Unknown ids: 404 with PROTOCOL.md's error object, for the JSON and the CSV. */
    assert_not_found(match_json(s, &loop, "nope", 404));
    assert_int_equal(thue_store_moves_csv(s, "nope", on_read, &r), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_not_found(read_json(404, &r));
    rres_clear(&r);

    close_run(s, &loop);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* Moves go in batches of THUE__MOVES_BATCH (16) and then one by one: every length around
 * the batch's reads back whole and in order, against the CSV the rows make by hand. */
static void test_store_moves_batches(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    tmatch *m = malloc(sizeof *m);
    static const int lengths[] = {15, 16, 17, 31, 32, 37, 300};
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        char id[16];
        snprintf(id, sizeof id, "mb%d", lengths[k]);
        make_match(m, id, "Ann", "nested:1", 1700000100000 + (int64_t)k, lengths[k]);
        assert_int_equal(save_match(s, &loop, &m->row), 0);
        thue_strbuf want = {0};
        thue_strbuf_printf(&want, "round,ply,seat,role,move,think_ms\n");
        for (int i = 0; i < m->row.nmoves; i++) {
            const thue_move_row *mv = &m->row.moves[i];
            bool builder = (mv->seat == 0) == (mv->round == 0);
            thue_strbuf_printf(&want, "%d,%d,%d,%s,%d,%.3f\n", mv->round, mv->ply, mv->seat,
                               builder ? "builder" : "painter", mv->value, mv->think_ms);
        }
        rres r = {0};
        assert_int_equal(thue_store_moves_csv(s, id, on_read, &r), 0);
        uv_run(&loop, UV_RUN_DEFAULT);
        assert_int_equal(r.status, 200);
        assert_string_equal(r.body, want.p);
        free(want.p);
        rres_clear(&r);
    }
    close_run(s, &loop);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

static void test_store_matches_paging(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    tmatch *m = malloc(sizeof *m);
    /* Ann plays 7 matches (as seat 0 or seat 1, in any letter case), Bob 1 more. */
    for (int i = 0; i < 7; i++) {
        char id[16];
        snprintf(id, sizeof id, "a%d", i);
        if (i % 2)
            make_match(m, id, "nested:1", i == 3 ? "ANN" : "Ann", 1700000000000 + 1000 * i, 2);
        else
            make_match(m, id, "Ann", "nested:1", 1700000000000 + 1000 * i, 2);
        if (i == 4) {
            m->row.winner = -1; /* a draw */
            m->row.reason = THUE_END_SCORE;
        }
        assert_int_equal(save_match(s, &loop, &m->row), 0);
    }
    make_match(m, "b0", "Bob", "nested:1", 1700000999000, 2);
    assert_int_equal(save_match(s, &loop, &m->row), 0);

    json_t *j = matches_json(s, &loop, "aNn", 1, 3);
    assert_int_equal(json_integer_value(json_object_get(j, "page")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "pages")), 3);
    json_t *list = json_object_get(j, "matches");
    assert_int_equal(json_array_size(list), 3);
    /* Newest first. */
    const char *want[] = {"a6", "a5", "a4"};
    for (int i = 0; i < 3; i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(list, i), "match")),
                            want[i]);
    json_t *sum = json_array_get(list, 2);
    assert_string_equal(json_string_value(json_object_get(sum, "room")), "ra4");
    assert_int_equal(json_integer_value(json_object_get(sum, "number")), 1);
    assert_string_equal(json_string_value(json_object_get(sum, "variant")), "square");
    assert_int_equal(json_integer_value(json_object_get(sum, "k")), 3);
    assert_true(json_is_false(json_object_get(sum, "rated")));
    json_t *pl = json_object_get(sum, "players");
    assert_string_equal(json_string_value(json_object_get(json_array_get(pl, 0), "name")), "Ann");
    assert_string_equal(json_string_value(json_object_get(json_array_get(pl, 1), "kind")), "bot");
    assert_null(json_object_get(json_array_get(pl, 1), "bot")); /* summaries: name, kind */
    assert_true(json_is_null(json_object_get(json_object_get(sum, "result"), "winner")));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(sum, "result"), "reason")), "score");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(sum, "points"), 0)), 5);
    assert_int_equal(json_integer_value(json_object_get(sum, "ended_at")), 1700000004000);
    json_decref(j);

    j = matches_json(s, &loop, "ann", 3, 3); /* the last page: one match */
    list = json_object_get(j, "matches");
    assert_int_equal(json_array_size(list), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "match")), "a0");
    json_decref(j);

    j = matches_json(s, &loop, "ANN", 4, 3); /* past the end: empty, still 200 */
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 0);
    assert_int_equal(json_integer_value(json_object_get(j, "page")), 4);
    assert_int_equal(json_integer_value(json_object_get(j, "pages")), 3);
    json_decref(j);

    j = matches_json(s, &loop, "Zed", 1, 20); /* nobody: one empty page */
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 0);
    assert_int_equal(json_integer_value(json_object_get(j, "pages")), 1);
    json_decref(j);

    j = matches_json(s, &loop, "bob", 1, 20);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 1);
    json_decref(j);

    j = matches_json(s, &loop, "NESTED:1", 1, 20);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 8);
    json_decref(j);

    /* The player lookup uses the name indexes, not a scan of every match. */
    char plan[512];
    sql_plan(t.path,
             testdb_pg() ? "SELECT id FROM matches WHERE name0_key = 'ann' OR name1_key = 'ann'"
                         : "SELECT id FROM matches WHERE name0 = 'ann' OR name1 = 'ann'",
             plan, sizeof plan);
    assert_non_null(strstr(plan, "matches_name0"));
    assert_non_null(strstr(plan, "matches_name1"));

    close_run(s, &loop);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- ratings ---------------------------------------------------------------------------- */

static void rated(tmatch *m, int64_t a0, int64_t a1, double r0, double r1, int games)
{
    m->row.rated = 1;
    m->row.opt.rated = 1;
    m->row.players[0].kind = THUE_KIND_ACCOUNT;
    m->row.players[1].kind = THUE_KIND_BOT;
    m->row.accounts[0] = a0;
    m->row.accounts[1] = a1;
    for (int p = 0; p < 2; p++) {
        thue_rating_change *c = &m->row.changes[p];
        c->before = 1500;
        c->after = p ? r1 : r0;
        c->rd_before = 350;
        c->rd_after = 290.25;
        thue_rating_row *r = &m->row.ratings[p];
        r->account = p ? a1 : a0;
        snprintf(r->game, sizeof r->game, "thue");
        snprintf(r->pool, sizeof r->pool, "overlap-k4");
        r->rating = p ? r1 : r0;
        r->rd = 290.25;
        r->vol = 0.06;
        r->games = games;
        r->wins = p ? 0 : games;
        r->losses = p ? games : 0;
    }
    m->row.opt.variant = THUE_OVERLAP;
    m->row.opt.k = 4;
}

static void test_store_rated_match_ratings(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    assert_int_equal(add_account(s, &loop, "Ann", THUE_KIND_ACCOUNT, 1, NULL), 0);
    assert_int_equal(add_account(s, &loop, "nested:1", THUE_KIND_BOT, 2, NULL), 0);
    tmatch *m = malloc(sizeof *m);
    make_match(m, "m1", "Ann", "nested:1", 1700000100000, 4);
    rated(m, 1, 2, 1662.3, 1337.7, 1);
    assert_int_equal(save_match(s, &loop, &m->row), 0);

    json_t *j = match_json(s, &loop, "m1", 200);
    json_t *ra = json_object_get(j, "ratings");
    assert_int_equal(json_array_size(ra), 2);
    assert_true(json_number_value(json_object_get(json_array_get(ra, 0), "after")) == 1662.3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(ra, 1), "before")), 1500);
    assert_true(json_number_value(json_object_get(json_array_get(ra, 1), "rd_after")) == 290.25);
    assert_true(json_is_true(json_object_get(json_object_get(j, "options"), "rated")));
    json_decref(j);

    /* A second rated match in the same pool updates the rows (one per account and pool). */
    make_match(m, "m2", "Ann", "nested:1", 1700000200000, 4);
    rated(m, 1, 2, 1700.5, 1300.25, 2);
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    /* A rated match naming an account the store does not have is refused whole. */
    make_match(m, "m3", "Ann", "nested:1", 1700000300000, 4);
    rated(m, 1, 99, 1800, 1200, 3);
    assert_int_equal(save_match(s, &loop, &m->row), THUE_STORE_EIO);
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches"), 2);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->nratings, 2);
    assert_int_equal(l->ratings[0].account, 1);
    assert_string_equal(l->ratings[0].game, "thue");
    assert_string_equal(l->ratings[0].pool, "overlap-k4");
    assert_true(l->ratings[0].rating == 1700.5);
    assert_true(l->ratings[0].rd == 290.25);
    assert_true(l->ratings[0].vol == 0.06);
    assert_int_equal(l->ratings[0].games, 2);
    assert_int_equal(l->ratings[0].wins, 2);
    assert_int_equal(l->ratings[1].account, 2);
    assert_true(l->ratings[1].rating == 1300.25);
    assert_int_equal(l->ratings[1].losses, 2);
    free(l);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- tournaments ----------------------------------------------------------------------- */

static int save_tournament(thue_store *s, uv_loop_t *loop, const char *id, const char *st,
                           int finished)
{
    wres w = {0};
    assert_int_equal(thue_store_save_tournament(s, id, st, finished, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    return w.err;
}

static void test_store_tournaments(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    assert_int_equal(save_tournament(s, &loop, "t2", "{\"round\":0}", 0), 0);
    assert_int_equal(save_tournament(s, &loop, "t1", "{\"round\":0}", 0), 0);
    assert_int_equal(save_tournament(s, &loop, "t3", "{\"round\":0}", 0), 0);
    assert_int_equal(save_tournament(s, &loop, "t2", "{\"round\":1}", 0), 0);
    assert_int_equal(save_tournament(s, &loop, "t3", "{\"round\":4}", 1), 0);
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM tournaments"), 3);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->ntours, 2);
    assert_string_equal(l->tour_ids[0], "t1");
    assert_string_equal(l->tour_states[0], "{\"round\":0}");
    assert_string_equal(l->tour_ids[1], "t2");
    assert_string_equal(l->tour_states[1], "{\"round\":1}");
    free(l);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* A tournament game's stored match is found again at start-up (the latest one of the
 * pairing and round), and nothing else matches. */
static void test_store_tournament_game(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    tmatch *m = malloc(sizeof *m);
    make_match(m, "m1", "Ann", "Bob", 1000, 4);
    snprintf(m->row.tournament, sizeof m->row.tournament, "t1");
    m->row.tournament_round = 2;
    m->row.winner = 1;
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    make_match(m, "m2", "Ann", "Bob", 2000, 4); /* the same game played again: a draw */
    snprintf(m->row.tournament, sizeof m->row.tournament, "t1");
    m->row.tournament_round = 2;
    m->row.winner = -1;
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    make_match(m, "m3", "Cy", "Dee", 3000, 4); /* not a tournament game */
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    int winner = 7;
    assert_int_equal(thue_store_tournament_game(s, "t1", 2, "Ann", "Bob", &winner), THUE_EINVAL);
    close_run(s, &loop);

    s = open_ok(t.path);
    assert_int_equal(thue_store_tournament_game(s, "t1", 2, "Ann", "Bob", &winner), 1);
    assert_int_equal(winner, -1);
    assert_int_equal(thue_store_tournament_game(s, "t1", 2, "Bob", "Ann", &winner), 0);
    assert_int_equal(thue_store_tournament_game(s, "t1", 1, "Ann", "Bob", &winner), 0);
    assert_int_equal(thue_store_tournament_game(s, "t2", 2, "Ann", "Bob", &winner), 0);
    assert_int_equal(thue_store_tournament_game(s, "", 0, "Cy", "Dee", &winner), 0);
    assert_int_equal(thue_store_tournament_game(s, "t1", 2, "Ann", NULL, &winner), THUE_EINVAL);
    thue_store_close(s, NULL, NULL);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_account_exists),
        cmocka_unit_test(test_store_match_roundtrip),
        cmocka_unit_test(test_store_moves_batches),
        cmocka_unit_test(test_store_matches_paging),
        cmocka_unit_test(test_store_rated_match_ratings),
        cmocka_unit_test(test_store_tournaments),
        cmocka_unit_test(test_store_tournament_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
