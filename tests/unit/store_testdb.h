/*
 * store_testdb.h: the store tests' database, on either engine. A test binary runs against
 * SQLite (a file in a temporary directory) or, when THUE_STORE_TEST_BACKEND=pg (the _pg
 * ctest entries, registered when THUE_TEST_PG held a connection URI at configure time),
 * against PostgreSQL: each testdb_make then creates a fresh database with a random name on
 * the THUE_TEST_PG server, and testdb_remove drops it, so runs never see each other.
 * Direct SQL on the database (a second connection, as the store may have it open) goes
 * through testdb_exec / testdb_int / testdb_text on either engine; "PRAGMA user_version"
 * reads or sets PostgreSQL's thue_schema.version.
 */
#ifndef THUE_TEST_STORE_TESTDB_H
#define THUE_TEST_STORE_TESTDB_H

#include <stddef.h>
#include <stdint.h>

/* Whether this run is against PostgreSQL (fails the test when asked for PostgreSQL
 * without THUE_TEST_PG). */
int testdb_pg(void);

typedef struct testdb {
    char dir[64];   /* a temporary directory (both engines: tests may put files there) */
    char path[256]; /* what thue_store_open takes: the file, or the new database's URI */
    char name[64];  /* PostgreSQL: the database's name */
} testdb;

void testdb_make(testdb *t);
/* The same on the engine asked for (pg 1: PostgreSQL, which THUE_TEST_PG must name). */
void testdb_make_engine(testdb *t, int pg);
void testdb_remove(testdb *t);

/* sql on the database; fails the test when it fails. */
void testdb_exec(const char *path, const char *sql);
/* The first column of the first row as an integer (-999 for NULL). */
int64_t testdb_int(const char *path, const char *sql);
void testdb_text(const char *path, const char *sql, char *out, size_t size);

/* The URI of another database on the THUE_TEST_PG server (for the admin's commands). */
void testdb_uri_of(const char *dbname, char *out, size_t size);

#endif
