/*
 * test_store.c: the store (server/store/store.h) on real SQLite files.
 *
 * Each test makes its own directory with mkdtemp and its own uv loop. Tests wait only by
 * running the loop: the store keeps the loop alive while a callback is pending, so
 * uv_run(UV_RUN_DEFAULT) returns once every queued job has called back (and, after
 * thue_store_close, once the store is closed). Nothing sleeps.
 *
 * The database is also inspected behind the store's back with a second SQLite connection
 * (the schema version, row counts, PRAGMA integrity_check), which WAL allows while the
 * store has it open.
 *
 * The crash test forks: the child opens the store, commits one match, arms
 * thue_store_crash_in_job and queues a second match, whose transaction dies half-way with
 * _exit(99); the parent then checks that the first match is whole and the second absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>
#include <uv.h>

#include "engine/errors.h"
#include "store/store.h"

/* ---- fixtures ------------------------------------------------------------------------ */

typedef struct tdir {
    char dir[64];
    char path[96];
} tdir;

static void tdir_make(tdir *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/thue-store-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/thue.db", t->dir);
}

static void tdir_remove(tdir *t)
{
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[128];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", t->path, suffix[i]);
        unlink(p);
    }
    rmdir(t->dir);
}

/* Results of write callbacks. */
typedef struct wres {
    int calls;
    int err;
    int64_t id;
} wres;

static void on_write(int err, int64_t id, void *data)
{
    wres *w = data;
    w->calls++;
    w->err = err;
    w->id = id;
}

/* A read's result. */
typedef struct rres {
    int calls;
    int status;
    char *body;
    size_t len;
} rres;

static void on_read(int status, char *body, size_t len, void *data)
{
    rres *r = data;
    r->calls++;
    r->status = status;
    r->body = body;
    r->len = len;
}

static void rres_clear(rres *r)
{
    free(r->body);
    memset(r, 0, sizeof *r);
}

static void on_closed(void *data)
{
    (*(int *)data)++;
}

static thue_store *open_ok(const char *path)
{
    char err[256];
    thue_store *s = thue_store_open(path, err, sizeof err);
    if (s == NULL)
        fail_msg("thue_store_open(%s): %s", path, err);
    return s;
}

static thue_store *open_started(const char *path, uv_loop_t *loop)
{
    thue_store *s = open_ok(path);
    assert_int_equal(thue_store_start(s, loop), 0);
    return s;
}

/* Closes a started store and runs the loop until it is gone. */
static void close_run(thue_store *s, uv_loop_t *loop)
{
    int closed = 0;
    thue_store_close(s, on_closed, &closed);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(closed, 1);
}

/* Writes and waits for the callback; returns its error. */
static int add_account(thue_store *s, uv_loop_t *loop, const char *name, thue_player_kind kind,
                       int64_t id, int64_t *got_id)
{
    thue_account_row row;
    memset(&row, 0, sizeof row);
    row.id = id;
    snprintf(row.name, sizeof row.name, "%s", name);
    row.kind = kind;
    if (kind == THUE_KIND_BOT)
        snprintf(row.bot, sizeof row.bot, "%s", name);
    else
        thue_sha256(name, strlen(name), row.token_hash); /* any 32 bytes */
    row.created_ms = 1700000000000 + id;
    wres w = {0};
    assert_int_equal(thue_store_add_account(s, &row, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    if (got_id)
        *got_id = w.id;
    return w.err;
}

/* A match to save: seat 0 `a`, seat 1 `b`; nmoves moves alternate place/paint over the
 * two rounds. The arrays live in the caller's struct. */
typedef struct tmatch {
    thue_match_row row;
    thue_move_row moves[2000];
    uint8_t words[2][8];
} tmatch;

static void make_match(tmatch *t, const char *id, const char *a, const char *b, int64_t ended,
                       int nmoves)
{
    memset(t, 0, sizeof *t);
    thue_match_row *m = &t->row;
    snprintf(m->id, sizeof m->id, "%s", id);
    snprintf(m->room, sizeof m->room, "r%s", id);
    m->number = 1;
    m->opt.variant = THUE_SQUARE;
    m->opt.k = 3;
    m->opt.limit = 100;
    m->opt.first = THUE_FIRST_CREATOR;
    snprintf(m->players[0].name, sizeof m->players[0].name, "%s", a);
    m->players[0].kind = THUE_KIND_GUEST;
    snprintf(m->players[1].name, sizeof m->players[1].name, "%s", b);
    m->players[1].kind = THUE_KIND_BOT;
    snprintf(m->bots[1], sizeof m->bots[1], "nested:1");
    m->winner = 0;
    m->reason = THUE_END_SCORE;
    m->points[0] = 5;
    m->points[1] = 3;
    static const uint8_t w0[] = {0, 1, 2, 1, 2};
    static const uint8_t w1[] = {0, 1, 2, 0, 2, 1, 1};
    memcpy(t->words[0], w0, sizeof w0);
    memcpy(t->words[1], w1, sizeof w1);
    for (int r = 0; r < 2; r++) {
        m->rounds[r].builder = r;
        m->rounds[r].points = r ? 5 : 3;
        m->rounds[r].end = THUE_ROUND_REPETITION;
        m->rounds[r].has_repetition = 1;
        m->rounds[r].repetition.start = r ? 5 : 1;
        m->rounds[r].repetition.period = r ? 1 : 2;
        m->rounds[r].repetition.length = r ? 2 : 4;
        m->rounds[r].word = t->words[r];
        m->rounds[r].word_len = r ? 7 : 5;
    }
    for (int i = 0; i < nmoves; i++) {
        thue_move_row *mv = &t->moves[i];
        int half = (nmoves + 1) / 2;
        mv->round = i < half ? 0 : 1;
        mv->ply = i < half ? i : i - half;
        mv->is_paint = mv->ply % 2;
        mv->seat = mv->is_paint ? 1 - mv->round : mv->round;
        mv->value = mv->ply / 2;
        mv->think_ms = 0.25 * (i + 1);
    }
    m->moves = t->moves;
    m->nmoves = nmoves;
    m->started_ms = ended - 60000;
    m->ended_ms = ended;
}

static int save_match(thue_store *s, uv_loop_t *loop, const thue_match_row *m)
{
    wres w = {0};
    assert_int_equal(thue_store_save_match(s, m, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    return w.err;
}

/* A read through the store; the body is parsed as JSON when json is set. */
static json_t *read_json(int status_want, rres *r)
{
    assert_int_equal(r->calls, 1);
    assert_int_equal(r->status, status_want);
    assert_non_null(r->body);
    assert_int_equal(strlen(r->body), r->len);
    json_error_t e;
    json_t *j = json_loadb(r->body, r->len, 0, &e);
    if (j == NULL)
        fail_msg("not JSON (%s): %s", e.text, r->body);
    return j;
}

static json_t *match_json(thue_store *s, uv_loop_t *loop, const char *id, int status_want)
{
    rres r = {0};
    assert_int_equal(thue_store_match_json(s, id, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    json_t *j = read_json(status_want, &r);
    rres_clear(&r);
    return j;
}

static json_t *matches_json(thue_store *s, uv_loop_t *loop, const char *player, int page,
                            int per_page)
{
    rres r = {0};
    assert_int_equal(thue_store_matches_json(s, player, page, per_page, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    json_t *j = read_json(200, &r);
    rres_clear(&r);
    return j;
}

static void assert_not_found(json_t *j)
{
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
                        "not_found");
    json_decref(j);
}

/* An integer from a second connection (the store may have the file open). */
static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void sql_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void sql_text(const char *path, const char *sql, char *out, size_t size)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* The details of EXPLAIN QUERY PLAN, joined with " | ". */
static void sql_plan(const char *path, const char *sql, char *out, size_t size)
{
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

/* What thue_store_load hands over. */
typedef struct loaded {
    thue_account_row accounts[200];
    int naccounts;
    thue_rating_row ratings[20];
    int nratings;
    char tour_ids[10][40];
    char tour_states[10][200];
    int ntours;
} loaded;

static void load_account(void *ctx, const thue_account_row *row)
{
    loaded *l = ctx;
    assert_true(l->naccounts < 200);
    l->accounts[l->naccounts++] = *row;
}

static void load_rating(void *ctx, const thue_rating_row *row)
{
    loaded *l = ctx;
    assert_true(l->nratings < 20);
    l->ratings[l->nratings++] = *row;
}

static void load_tournament(void *ctx, const char *id, const char *state)
{
    loaded *l = ctx;
    assert_true(l->ntours < 10);
    snprintf(l->tour_ids[l->ntours], sizeof l->tour_ids[0], "%s", id);
    snprintf(l->tour_states[l->ntours], sizeof l->tour_states[0], "%s", state);
    l->ntours++;
}

/* Opens path, loads everything into *l and closes it again (never started). */
static void load_all(const char *path, loaded *l)
{
    memset(l, 0, sizeof *l);
    thue_store *s = open_ok(path);
    char err[256];
    assert_int_equal(
        thue_store_load(s, load_account, load_rating, load_tournament, l, err, sizeof err), 0);
    int closed = 0;
    thue_store_close(s, on_closed, &closed); /* never started: closed at once */
    assert_int_equal(closed, 1);
}

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
    char mode[16];
    sql_text(t.path, "PRAGMA journal_mode", mode, sizeof mode);
    assert_string_equal(mode, "wal");
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' "
                                     "AND name IN ('accounts', 'ratings', 'matches', 'moves', "
                                     "'tournaments')"),
                     5);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' "
                                     "AND name IN ('matches_name0', 'matches_name1', "
                                     "'matches_ended')"),
                     3);
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
    FILE *f = fopen(t.path, "w"); /* 0 bytes: SQLite's new, empty database */
    assert_non_null(f);
    fclose(f);
    thue_store *s = open_ok(t.path);
    thue_store_close(s, NULL, NULL);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), 1);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 0);
    /* Opening a current file again changes nothing. */
    s = open_ok(t.path);
    thue_store_close(s, NULL, NULL);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), 1);
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
    char want[200];
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
    sql_plan(t.path, "SELECT id FROM matches WHERE name0 = 'ann' OR name1 = 'ann'", plan,
             sizeof plan);
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
        r->variant = THUE_OVERLAP;
        r->k = 4;
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
    assert_int_equal(l->ratings[0].variant, THUE_OVERLAP);
    assert_int_equal(l->ratings[0].k, 4);
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

/* ---- closing, errors ------------------------------------------------------------------- */

typedef struct drain {
    thue_store *s;
    int calls, ok, late_err;
} drain;

static void on_drained(int err, int64_t id, void *data)
{
    (void)id;
    drain *d = data;
    d->calls++;
    d->ok += err == 0;
    /* During the drain the store is closing: nothing more is queued. */
    thue_account_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "late%d", d->calls);
    row.kind = THUE_KIND_ACCOUNT;
    d->late_err = thue_store_add_account(d->s, &row, on_write, NULL);
}

static void test_store_close_drains(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    drain d = {s, 0, 0, 0};
    for (int i = 0; i < 100; i++) {
        thue_account_row row;
        memset(&row, 0, sizeof row);
        snprintf(row.name, sizeof row.name, "player%d", i);
        row.kind = THUE_KIND_ACCOUNT;
        assert_int_equal(thue_store_add_account(s, &row, on_drained, &d), 0);
    }
    int closed = 0;
    thue_store_close(s, on_closed, &closed);
    /* Closing but not closed yet: new jobs are refused at once. */
    thue_account_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "after");
    row.kind = THUE_KIND_ACCOUNT;
    assert_int_equal(thue_store_add_account(s, &row, on_write, NULL), THUE_STORE_ECLOSED);
    assert_int_equal(thue_store_match_json(s, "x", on_read, NULL), THUE_STORE_ECLOSED);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(d.calls, 100);
    assert_int_equal(d.ok, 100);
    assert_int_equal(d.late_err, THUE_STORE_ECLOSED);
    assert_int_equal(closed, 1);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->naccounts, 100);
    assert_string_equal(l->accounts[99].name, "player99");
    free(l);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- a disk that refuses writes for a while ------------------------------------------ */

typedef struct seqres {
    int *seq; /* shared counter: the order callbacks ran in */
    int at;   /* this one's place (1-based), 0 before */
    int err;
} seqres;

static void on_write_seq(int err, int64_t id, void *data)
{
    (void)id;
    seqres *r = data;
    r->at = ++*r->seq;
    r->err = err;
}

static thue_account_row account_row(const char *name, int64_t id)
{
    thue_account_row row;
    memset(&row, 0, sizeof row);
    row.id = id;
    snprintf(row.name, sizeof row.name, "%s", name);
    row.kind = THUE_KIND_ACCOUNT;
    thue_sha256(name, strlen(name), row.token_hash);
    return row;
}

/* Runs the loop (without blocking on it) until the store thread counted n failed
 * attempts; a test deadline of 20 s. */
static void wait_failures(thue_store *s, uv_loop_t *loop, uint64_t n)
{
    thue_store_health h;
    for (int i = 0; i < 2000; i++) {
        thue_store_health_get(s, &h);
        if (h.write_failures >= n)
            return;
        uv_run(loop, UV_RUN_NOWAIT);
        uv_sleep(10);
    }
    fail_msg("the store thread made %llu failed attempts, not %llu",
             (unsigned long long)h.write_failures, (unsigned long long)n);
}

static void test_store_writes_wait_for_the_disk(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    assert_int_equal(add_account(s, &loop, "ann", THUE_KIND_ACCOUNT, 1, NULL), 0);
    thue_store_health h;
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 0);
    assert_int_equal(h.write_failures, 0);

    /* The disk refuses: an account, then a match of it, then a read. */
    thue_store_fail_writes(s, 1);
    int seq = 0;
    seqres wa = {&seq, 0, 1}, wm = {&seq, 0, 1};
    thue_account_row bob = account_row("bob", 2);
    assert_int_equal(thue_store_add_account(s, &bob, on_write_seq, &wa), 0);
    tmatch *tm = malloc(sizeof *tm);
    assert_non_null(tm);
    make_match(tm, "m1", "ann", "bob", 1700000100000, 10);
    assert_int_equal(thue_store_save_match(s, &tm->row, on_write_seq, &wm), 0);
    rres r = {0};
    assert_int_equal(thue_store_matches_json(s, "ann", 1, 50, on_read, &r), 0);
    /* The read is answered while both writes wait (nothing saved yet). */
    while (r.calls == 0)
        uv_run(&loop, UV_RUN_ONCE);
    json_t *j = read_json(200, &r);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 0);
    json_decref(j);
    rres_clear(&r);
    assert_int_equal(wa.at + wm.at, 0);
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 1);
    assert_int_equal(h.writes_waiting, 2);
    assert_true(h.write_failures >= 1);
    /* It tries again (after 0.5 s): still refused, still waiting, nothing lost. */
    wait_failures(s, &loop, 2);
    assert_int_equal(wa.at + wm.at, 0);

    /* The disk is back: both writes commit, in the order queued. */
    thue_store_fail_writes(s, 0);
    while (wm.at == 0)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(wa.at, 1);
    assert_int_equal(wa.err, 0);
    assert_int_equal(wm.at, 2);
    assert_int_equal(wm.err, 0);
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 0);
    assert_int_equal(h.writes_waiting, 0);
    j = matches_json(s, &loop, "ann", 1, 50);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 1);
    json_decref(j);

    /* Closing while the disk refuses: the waiting write gets one last try, then its
     * callback runs with the error; the store closes. */
    thue_store_fail_writes(s, 1);
    uint64_t before = h.write_failures;
    seqres wc = {&seq, 0, 0};
    thue_account_row cid = account_row("cid", 3);
    assert_int_equal(thue_store_add_account(s, &cid, on_write_seq, &wc), 0);
    wait_failures(s, &loop, before + 1);
    close_run(s, &loop);
    assert_int_equal(wc.at, 3);
    assert_int_equal(wc.err, THUE_STORE_EIO);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->naccounts, 2);
    assert_string_equal(l->accounts[1].name, "bob");
    free(l);
    free(tm);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* A backlog drains in batches (one transaction for many writes): in order, each write
 * with its own answer: a taken name fails alone, the writes around it are saved. */
static void test_store_backlog_batches(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    assert_int_equal(add_account(s, &loop, "ann", THUE_KIND_ACCOUNT, 1, NULL), 0);
    thue_store_fail_writes(s, 1);
    enum { N = 300 };
    int seq = 0;
    seqres *w = calloc(N, sizeof *w);
    tmatch *tm = calloc(N, sizeof *tm);
    thue_account_row *rows = calloc(N, sizeof *rows);
    assert_true(w && tm && rows);
    for (int i = 0; i < N; i++) {
        w[i] = (seqres){&seq, 0, 1};
        if (i % 3 == 0) {
            char name[32];
            /* Account 150 takes the name of account 75: the one expected failure. */
            snprintf(name, sizeof name, "p%d", i == 150 ? 75 : i);
            rows[i] = account_row(name, 10 + i);
            assert_int_equal(thue_store_add_account(s, &rows[i], on_write_seq, &w[i]), 0);
        } else {
            char id[32];
            snprintf(id, sizeof id, "m%d", i);
            make_match(&tm[i], id, "ann", "bob", 1700000100000 + i, 6);
            assert_int_equal(thue_store_save_match(s, &tm[i].row, on_write_seq, &w[i]), 0);
        }
    }
    /* The second try takes them all (queued while the first failed) and fails. */
    wait_failures(s, &loop, 2);
    thue_store_health h;
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 1);
    assert_int_equal(h.writes_waiting, N);
    assert_int_equal(seq, 0);

    thue_store_fail_writes(s, 0);
    while (seq < N)
        uv_run(&loop, UV_RUN_ONCE);
    for (int i = 0; i < N; i++) {
        assert_int_equal(w[i].at, i + 1); /* answered in the order queued */
        assert_int_equal(w[i].err, i == 150 ? THUE_STORE_EEXISTS : 0);
    }
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 0);
    assert_int_equal(h.writes_waiting, 0);
    json_t *j = matches_json(s, &loop, "ann", 1, 1000);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), N - N / 3);
    json_decref(j);
    close_run(s, &loop);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->naccounts, 1 + N / 3 - 1);
    free(l);
    free(w);
    free(tm);
    free(rows);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

static void test_store_errors(void **state)
{
    (void)state;
    thue_account_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "Ann");
    row.kind = THUE_KIND_ACCOUNT;
    assert_int_equal(thue_store_add_account(NULL, &row, on_write, NULL), THUE_EINVAL);

    char err[256];
    thue_store *s = thue_store_open(":memory:", err, sizeof err);
    assert_non_null(s);
    /* Not started: nothing is queued. */
    assert_int_equal(thue_store_add_account(s, &row, on_write, NULL), THUE_STORE_ECLOSED);
    assert_int_equal(thue_store_save_tournament(s, "t1", "{}", 0, on_write, NULL),
                     THUE_STORE_ECLOSED);
    uv_loop_t loop;
    uv_loop_init(&loop);
    assert_int_equal(thue_store_start(s, &loop), 0);
    assert_int_equal(thue_store_start(s, &loop), THUE_EINVAL);
    assert_int_equal(thue_store_load(s, NULL, NULL, NULL, NULL, err, sizeof err), THUE_EINVAL);

    /* Bad input: refused at once, no callback. */
    wres w = {0};
    row.kind = THUE_KIND_GUEST;
    assert_int_equal(thue_store_add_account(s, &row, on_write, &w), THUE_EINVAL);
    row.kind = THUE_KIND_ACCOUNT;
    row.name[0] = '\0';
    assert_int_equal(thue_store_add_account(s, &row, on_write, &w), THUE_EINVAL);
    tmatch *m = malloc(sizeof *m);
    make_match(m, "", "a", "b", 1, 2);
    assert_int_equal(thue_store_save_match(s, &m->row, on_write, &w), THUE_EINVAL);
    make_match(m, "m", "a", "b", 1, 2);
    m->row.winner = 2;
    assert_int_equal(thue_store_save_match(s, &m->row, on_write, &w), THUE_EINVAL);
    make_match(m, "m", "a", "b", 1, 2);
    m->row.moves = NULL;
    assert_int_equal(thue_store_save_match(s, &m->row, on_write, &w), THUE_EINVAL);
    assert_int_equal(thue_store_save_tournament(s, NULL, "{}", 0, on_write, &w), THUE_EINVAL);
    assert_int_equal(thue_store_matches_json(s, "a", 0, 10, on_read, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_matches_json(s, "a", 1, 0, on_read, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_match_json(s, NULL, on_read, NULL), THUE_EINVAL);
    uv_run(&loop, UV_RUN_DEFAULT); /* nothing pending: returns at once */
    assert_int_equal(w.calls, 0);

    /* ":memory:" works through the thread too: the connection opened here is the one the
     * thread uses. */
    make_match(m, "m", "a", "b", 1, 2);
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    json_t *j = match_json(s, &loop, "m", 200);
    assert_int_equal(json_array_size(json_object_get(j, "moves")), 2);
    json_decref(j);
    /* Callbacks may be NULL. */
    assert_int_equal(thue_store_save_tournament(s, "t1", "{}", 0, NULL, NULL), 0);
    assert_int_equal(thue_store_moves_csv(s, "m", NULL, NULL), 0);
    close_run(s, &loop);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* ---- a crash inside a transaction --------------------------------------------------------- */

/* The child: returns its exit status when it fails before the crash (the crash itself is
 * _exit(99) on the store thread). No cmocka assertions here: they would unwind into the
 * parent's copy of the test runner. */
static int crash_child(const char *path)
{
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0)
        return 10;
    char err[256];
    thue_store *s = thue_store_open(path, err, sizeof err);
    if (s == NULL || thue_store_start(s, &loop) != 0)
        return 11;
    static tmatch m;
    make_match(&m, "m1", "Ann", "nested:1", 1700000100000, 10);
    wres w = {0};
    if (thue_store_save_match(s, &m.row, on_write, &w) != 0)
        return 12;
    uv_run(&loop, UV_RUN_DEFAULT);
    if (w.calls != 1 || w.err != 0)
        return 13;
    thue_store_crash_in_job(s, 2);
    make_match(&m, "m2", "Ann", "nested:1", 1700000200000, 2000);
    if (thue_store_save_match(s, &m.row, on_write, &w) != 0)
        return 14;
    uv_run(&loop, UV_RUN_DEFAULT);
    return 15; /* the store thread should have ended the process */
}

static void test_store_crash_in_transaction(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(crash_child(t.path));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 99);

    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    json_t *j = match_json(s, &loop, "m1", 200);
    assert_int_equal(json_array_size(json_object_get(j, "moves")), 10);
    json_decref(j);
    assert_not_found(match_json(s, &loop, "m2", 404));
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM moves WHERE match = 'm2'"), 0);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM moves"), 10);
    char ok[64];
    sql_text(t.path, "PRAGMA integrity_check", ok, sizeof ok);
    assert_string_equal(ok, "ok");
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
        cmocka_unit_test(test_store_account_exists),
        cmocka_unit_test(test_store_match_roundtrip),
        cmocka_unit_test(test_store_matches_paging),
        cmocka_unit_test(test_store_rated_match_ratings),
        cmocka_unit_test(test_store_tournaments),
        cmocka_unit_test(test_store_tournament_game),
        cmocka_unit_test(test_store_writes_wait_for_the_disk),
        cmocka_unit_test(test_store_backlog_batches),
        cmocka_unit_test(test_store_close_drains),
        cmocka_unit_test(test_store_errors),
        cmocka_unit_test(test_store_crash_in_transaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
