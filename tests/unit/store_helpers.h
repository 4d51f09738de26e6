/*
 * store_helpers.h: what the store tests (test_store_*.c) share: temporary directories,
 * callbacks that record a write's or a read's answer, opening and closing a store on a
 * real uv loop, accounts and matches to save, and direct SQL on the database (SQLite or
 * PostgreSQL: store_testdb.h).
 */
#ifndef THUE_TEST_STORE_HELPERS_H
#define THUE_TEST_STORE_HELPERS_H

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
#include "base/errors.h"
#include "store/store.h"
#include "store_testdb.h"

/* ---- fixtures ------------------------------------------------------------------------ */

/* The test's database: a file, or a fresh PostgreSQL database (store_testdb.h). */
typedef testdb tdir;

#define tdir_make testdb_make
#define tdir_remove testdb_remove

/* Results of write callbacks. */
typedef struct wres {
    int calls;
    int err;
    int64_t id;
} wres;

void on_write(int err, int64_t id, void *data);

/* A read's result. */
typedef struct rres {
    int calls;
    int status;
    char *body;
    size_t len;
} rres;

void on_read(int status, char *body, size_t len, void *data);

void rres_clear(rres *r);

void on_closed(void *data);

thue_store *open_ok(const char *path);

thue_store *open_started(const char *path, uv_loop_t *loop);

/* Closes a started store and runs the loop until it is gone. */
void close_run(thue_store *s, uv_loop_t *loop);

/* Writes and waits for the callback; returns its error. */
int add_account(thue_store *s, uv_loop_t *loop, const char *name, thue_player_kind kind, int64_t id,
                int64_t *got_id);

/* A match to save: seat 0 `a`, seat 1 `b`; nmoves moves alternate place/paint over the
 * two rounds. The arrays live in the caller's struct. */
typedef struct tmatch {
    thue_match_row row;
    thue_move_row moves[2000];
    uint8_t words[2][8];
} tmatch;

void make_match(tmatch *t, const char *id, const char *a, const char *b, int64_t ended, int nmoves);

int save_match(thue_store *s, uv_loop_t *loop, const thue_match_row *m);

/* A read through the store; the body is parsed as JSON when json is set. */
json_t *read_json(int status_want, rres *r);

json_t *match_json(thue_store *s, uv_loop_t *loop, const char *id, int status_want);

json_t *matches_json(thue_store *s, uv_loop_t *loop, const char *player, int page, int per_page);

void assert_not_found(json_t *j);

/* An integer from a second connection (the store may have the database open). */
#define sql_int testdb_int
#define sql_text testdb_text

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

void load_account(void *ctx, const thue_account_row *row);

void load_rating(void *ctx, const thue_rating_row *row);

void load_tournament(void *ctx, const char *id, const char *state);

/* Opens path, loads everything into *l and closes it again (never started). */
void load_all(const char *path, loaded *l);

#endif
