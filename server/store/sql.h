/*
 * sql.h: the store's small statement layer, so that store_db.c and store_read.c hold one
 * copy of the jobs' logic over two engines: SQLite (the file: sqlite3 called from the
 * inline functions below; opening and the schema in sql_sqlite.c) and PostgreSQL (libpq,
 * sql_pg.c). A statement is named by its thue__stmt index; the layer
 * binds, steps, reads columns and resets it on whichever engine the thue__db has open.
 *
 * The SQLite side is a direct call through an inline test of d->pg: no allocation and no
 * copy per bound value, so the SQLite store runs as fast as it did with sqlite3 calls
 * written out. The PostgreSQL side keeps each statement's parameters as text (integers
 * and doubles printed into the statement's own buffers, text pointers borrowed until the
 * reset, the token hash as binary), runs the statement at its first step
 * (PQexecPrepared) and walks the result's rows at the following ones.
 *
 * Rules shared by both engines (SQLite's): a bound text is borrowed until the statement is
 * reset; a column's text is valid until the next step or reset; a parameter never bound
 * since the last reset is NULL; every step sequence ends with thue__sql_reset.
 */
#ifndef THUE_SERVER_STORE_SQL_H
#define THUE_SERVER_STORE_SQL_H

#include <stdint.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "store/store_internal.h"

/* thue__sql_step's answers (errors are negative: THUE_STORE_EIO, the engine's message in
 * thue__sql_errmsg; THUE_STORE_EEXISTS for a unique key, not logged). */
#define THUE__SQL_DONE 0
#define THUE__SQL_ROW 1

/* ---- sql_sqlite.c --------------------------------------------------------------------- */

/* Locks, opens, configures and migrates the file, prepares the statements. 0, or a
 * negative code with a sentence in err (the caller then calls thue__db_close). */
int thue__sqlite_open(thue__db *d, const char *path, char *err, size_t errsize);
/* Finalizes the statements, closes the file and drops its lock. No-op when not open. */
void thue__sqlite_close(thue__db *d);
/* Whether SQLite's last error can pass (SQLITE_FULL, IOERR, READONLY, CANTOPEN, BUSY,
 * LOCKED, PROTOCOL). */
int thue__sqlite_transient(thue__db *d);

/* ---- sql_pg.c ------------------------------------------------------------------------- */

/* Whether path names a PostgreSQL database (postgres:// or postgresql://). */
int thue__pg_is_uri(const char *path);
/* A copy of the URI for messages and logs: the password (user:PASSWORD@ and a password=
 * parameter) replaced by "***". malloc()ed; NULL when out of memory. */
char *thue__pg_safe_uri(const char *uri);
/* Connects, checks and migrates the schema (under an advisory lock), prepares nothing
 * yet (statements are prepared at their first use, and again after a reconnect).
 * 0, or a negative code with a sentence in err; d->pg is then NULL. */
int thue__pg_open(thue__db *d, const char *uri, char *err, size_t errsize);
void thue__pg_close(thue__db *d);
/* Before a transaction: reconnects a lost connection (PQreset). 0, or THUE_STORE_EIO with
 * d->transient set. */
int thue__pg_ready(thue__db *d);
int thue__pg_in_transaction(thue__db *d);
const char *thue__pg_errmsg(thue__db *d);
/* Whether the last failure may pass: the connection is gone, the server is shutting down
 * or starting, out of disk, a serialization failure or deadlock. */
int thue__pg_transient(thue__db *d);
/* Whether the last failure is a unique violation (SQLSTATE 23505). */
int thue__pg_unique_violation(thue__db *d);

void thue__pg_bind_int64(thue__db *d, thue__stmt w, int i, int64_t v);
void thue__pg_bind_double(thue__db *d, thue__stmt w, int i, double v);
void thue__pg_bind_text(thue__db *d, thue__stmt w, int i, const char *s);
void thue__pg_bind_blob(thue__db *d, thue__stmt w, int i, const void *p, int n);
void thue__pg_bind_null(thue__db *d, thue__stmt w, int i);
int thue__pg_step(thue__db *d, thue__stmt w);
void thue__pg_reset(thue__db *d, thue__stmt w);
int thue__pg_column_null(thue__db *d, thue__stmt w, int c);
int64_t thue__pg_column_int64(thue__db *d, thue__stmt w, int c);
double thue__pg_column_double(thue__db *d, thue__stmt w, int c);
const char *thue__pg_column_text(thue__db *d, thue__stmt w, int c);
/* The column's bytes (BYTEA) into out, up to size: how many, or -1 (NULL or malformed). */
int thue__pg_column_blob(thue__db *d, thue__stmt w, int c, unsigned char *out, int size);

/* ---- store_db.c ------------------------------------------------------------------------ */

/* The SQL text of a statement for an engine (pg: with $N placeholders where SQLite has ?N
 * and PostgreSQL's own text where the dialects differ). */
const char *thue__stmt_sql(int pg, thue__stmt w);

/* ---- the calls (inline: SQLite's path is a direct call) ------------------------------- */

static inline void thue__sql_bind_int64(thue__db *d, thue__stmt w, int i, int64_t v)
{
    if (d->pg)
        thue__pg_bind_int64(d, w, i, v);
    else
        sqlite3_bind_int64(d->stmt[w], i, v);
}

static inline void thue__sql_bind_int(thue__db *d, thue__stmt w, int i, int v)
{
    if (d->pg)
        thue__pg_bind_int64(d, w, i, v);
    else
        sqlite3_bind_int(d->stmt[w], i, v);
}

static inline void thue__sql_bind_double(thue__db *d, thue__stmt w, int i, double v)
{
    if (d->pg)
        thue__pg_bind_double(d, w, i, v);
    else
        sqlite3_bind_double(d->stmt[w], i, v);
}

/* s is borrowed until the reset. */
static inline void thue__sql_bind_text(thue__db *d, thue__stmt w, int i, const char *s)
{
    if (d->pg)
        thue__pg_bind_text(d, w, i, s);
    else
        sqlite3_bind_text(d->stmt[w], i, s, -1, SQLITE_STATIC);
}

static inline void thue__sql_bind_blob(thue__db *d, thue__stmt w, int i, const void *p, int n)
{
    if (d->pg)
        thue__pg_bind_blob(d, w, i, p, n);
    else
        sqlite3_bind_blob(d->stmt[w], i, p, n, SQLITE_STATIC);
}

static inline void thue__sql_bind_null(thue__db *d, thue__stmt w, int i)
{
    if (d->pg)
        thue__pg_bind_null(d, w, i);
    else
        sqlite3_bind_null(d->stmt[w], i);
}

/* THUE__SQL_ROW, THUE__SQL_DONE, or a negative code (see above). */
static inline int thue__sql_step(thue__db *d, thue__stmt w)
{
    if (d->pg)
        return thue__pg_step(d, w);
    int rc = sqlite3_step(d->stmt[w]);
    if (rc == SQLITE_ROW)
        return THUE__SQL_ROW;
    if (rc == SQLITE_DONE)
        return THUE__SQL_DONE;
    return sqlite3_extended_errcode(d->db) == SQLITE_CONSTRAINT_UNIQUE ? THUE_STORE_EEXISTS
                                                                       : THUE_STORE_EIO;
}

/* Resets the statement and clears its bindings. */
static inline void thue__sql_reset(thue__db *d, thue__stmt w)
{
    if (d->pg) {
        thue__pg_reset(d, w);
        return;
    }
    sqlite3_reset(d->stmt[w]);
    sqlite3_clear_bindings(d->stmt[w]);
}

static inline int thue__sql_column_null(thue__db *d, thue__stmt w, int c)
{
    if (d->pg)
        return thue__pg_column_null(d, w, c);
    return sqlite3_column_type(d->stmt[w], c) == SQLITE_NULL;
}

static inline int64_t thue__sql_column_int64(thue__db *d, thue__stmt w, int c)
{
    if (d->pg)
        return thue__pg_column_int64(d, w, c);
    return sqlite3_column_int64(d->stmt[w], c);
}

static inline int thue__sql_column_int(thue__db *d, thue__stmt w, int c)
{
    if (d->pg)
        return (int)thue__pg_column_int64(d, w, c);
    return sqlite3_column_int(d->stmt[w], c);
}

static inline double thue__sql_column_double(thue__db *d, thue__stmt w, int c)
{
    if (d->pg)
        return thue__pg_column_double(d, w, c);
    return sqlite3_column_double(d->stmt[w], c);
}

/* NULL for SQL NULL. */
static inline const char *thue__sql_column_text(thue__db *d, thue__stmt w, int c)
{
    if (d->pg)
        return thue__pg_column_text(d, w, c);
    return (const char *)sqlite3_column_text(d->stmt[w], c);
}

/* The engine's message about the last failure. */
static inline const char *thue__sql_errmsg(thue__db *d)
{
    return d->pg ? thue__pg_errmsg(d) : sqlite3_errmsg(d->db);
}

/* Whether a transaction is open: 0 no, 1 yes, 2 open but failed (PostgreSQL's aborted
 * transaction, which still needs its ROLLBACK). */
static inline int thue__sql_in_transaction(thue__db *d)
{
    return d->pg ? thue__pg_in_transaction(d) : !sqlite3_get_autocommit(d->db);
}

#endif
