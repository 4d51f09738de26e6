/*
 * store_testdb.c: the store tests' database on SQLite or PostgreSQL (store_testdb.h).
 */
#include "store_testdb.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <sqlite3.h>

int testdb_pg(void)
{
    const char *b = getenv("THUE_STORE_TEST_BACKEND");
    if (b == NULL || strcmp(b, "pg") != 0)
        return 0;
    const char *uri = getenv("THUE_TEST_PG");
    if (uri == NULL || uri[0] == '\0')
        fail_msg("THUE_STORE_TEST_BACKEND=pg needs THUE_TEST_PG (a postgres:// URI)");
    return 1;
}

void testdb_uri_of(const char *dbname, char *out, size_t size)
{
    const char *uri = getenv("THUE_TEST_PG");
    assert_non_null(uri);
    /* postgres://user@host:port/DB[?params]: DB replaced */
    const char *hostpart = strstr(uri, "://");
    assert_non_null(hostpart);
    const char *slash = strchr(hostpart + 3, '/');
    const char *query = strchr(hostpart + 3, '?');
    size_t keep = slash ? (size_t)(slash - uri) : query ? (size_t)(query - uri) : strlen(uri);
    snprintf(out, size, "%.*s/%s%s", (int)keep, uri, dbname, query ? query : "");
}

static void quiet(void *arg, const char *m)
{
    (void)arg;
    (void)m;
}

static PGresult *pg_run(const char *uri, const char *sql)
{
    PGconn *c = PQconnectdb(uri);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("cannot connect to %s: %s", uri, PQerrorMessage(c));
    PQsetNoticeProcessor(c, quiet, NULL);
    PGresult *r = PQexec(c, sql);
    ExecStatusType s = PQresultStatus(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQresultErrorMessage(r));
    PQfinish(c);
    return r;
}

void testdb_make(testdb *t)
{
    testdb_make_engine(t, testdb_pg());
}

void testdb_make_engine(testdb *t, int pg)
{
    memset(t, 0, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "/tmp/thue-store-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    if (pg && (getenv("THUE_TEST_PG") == NULL || getenv("THUE_TEST_PG")[0] == '\0'))
        fail_msg("a PostgreSQL test needs THUE_TEST_PG (a postgres:// URI)");
    if (!pg) {
        snprintf(t->path, sizeof t->path, "%s/thue.db", t->dir);
        return;
    }
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(t->name, sizeof t->name, "thue_t_%d_%u_%lx", (int)getpid(), counter++,
             (unsigned long)(ts.tv_nsec ^ ((unsigned long)rand() << 8)));
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", t->name);
    PQclear(pg_run(getenv("THUE_TEST_PG"), sql));
    testdb_uri_of(t->name, t->path, sizeof t->path);
}

void testdb_remove(testdb *t)
{
    if (t->name[0]) {
        char sql[128];
        snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", t->name);
        PQclear(pg_run(getenv("THUE_TEST_PG"), sql));
    } else {
        const char *suffix[] = {"", "-wal", "-shm", "-journal"};
        char p[300];
        for (int i = 0; i < 4; i++) {
            snprintf(p, sizeof p, "%s%s", t->path, suffix[i]);
            unlink(p);
        }
    }
    rmdir(t->dir);
}

static int is_uri(const char *path)
{
    return strncmp(path, "postgres://", 11) == 0 || strncmp(path, "postgresql://", 13) == 0;
}

/* SQLite's PRAGMA user_version as PostgreSQL's thue_schema. */
static const char *pg_dialect(const char *sql, char *buf, size_t size)
{
    int v;
    if (strcmp(sql, "PRAGMA user_version") == 0)
        return "SELECT version FROM thue_schema";
    if (sscanf(sql, "PRAGMA user_version = %d", &v) == 1) {
        snprintf(buf, size, "UPDATE thue_schema SET version = %d", v);
        return buf;
    }
    return sql;
}

void testdb_exec(const char *path, const char *sql)
{
    if (is_uri(path)) {
        char buf[128];
        PQclear(pg_run(path, pg_dialect(sql, buf, sizeof buf)));
        return;
    }
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("sql: %s", msg ? msg : "?");
    sqlite3_close(db);
}

int64_t testdb_int(const char *path, const char *sql)
{
    if (is_uri(path)) {
        char buf[128];
        PGresult *r = pg_run(path, pg_dialect(sql, buf, sizeof buf));
        assert_true(PQntuples(r) >= 1);
        int64_t v = PQgetisnull(r, 0, 0) ? -999 : (int64_t)strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
        return v;
    }
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -999 : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

void testdb_text(const char *path, const char *sql, char *out, size_t size)
{
    if (is_uri(path)) {
        char buf[128];
        PGresult *r = pg_run(path, pg_dialect(sql, buf, sizeof buf));
        assert_true(PQntuples(r) >= 1);
        snprintf(out, size, "%s", PQgetisnull(r, 0, 0) ? "" : PQgetvalue(r, 0, 0));
        PQclear(r);
        return;
    }
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const unsigned char *t = sqlite3_column_text(st, 0);
    snprintf(out, size, "%s", t ? (const char *)t : "");
    sqlite3_finalize(st);
    sqlite3_close(db);
}
