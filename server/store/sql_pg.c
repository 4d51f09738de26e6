/*
 * sql_pg.c: the PostgreSQL engine of the store (sql.h), through libpq: the connection,
 * the schema and its migrations, and the statement calls store_db.c and store_read.c make.
 *
 * Schema: the same tables, columns, indexes and CHECKs as the SQLite file (sql_sqlite.c),
 * in PostgreSQL's types (BIGINT, DOUBLE PRECISION, BYTEA, TEXT), and one addition: matches
 * carry name0_key and name1_key, the ASCII-lowercased player names (stored generated
 * columns: translate() of A-Z to a-z), indexed with ended_ms, because PostgreSQL has no
 * collation that folds ASCII only (SQLite's NOCASE; lower() would fold "É" too); the
 * reads compare them with the name the C code lowercased (thue__name_key). Account names
 * compare through name_key, written by the C code, as in SQLite. The version lives in the
 * one-row table thue_schema(version), absent in a new database (version 0).
 *
 * Opening reads the version first: a database newer than this server is refused before
 * anything is written. Migrations run in one transaction with the new version, after
 * pg_advisory_xact_lock(MIGRATE_LOCK), so two servers opening a new database at once
 * migrate it once: the second waits, then reads the version again and finds it current.
 *
 * Statements are prepared (PQprepare, named "s<index>") at their first use on a
 * connection; a reconnect (PQreset) forgets them, so they are prepared again. Those
 * without parameters (BEGIN, COMMIT, SAVEPOINT, the loads) run through PQexec.
 *
 * A lost connection (the server restarted or stopped) is a failure that can pass: the
 * job fails with d->transient set, store.c keeps the write and retries it; the next job's
 * begin (thue__pg_ready) resets the connection. A COMMIT whose connection breaks is
 * reported as failed although the server may have committed it (libpq cannot tell): it
 * sets d->commit_unknown, and the writes tried again look first whether they are in
 * already (store_db.c), until a COMMIT answers again.
 *
 * Numbers travel as text: integers printed with %lld, doubles with %.17g (read back by
 * strtod: with extra_float_digits 3, which every session sets whatever the defaults,
 * PostgreSQL prints the shortest text that reads back exactly), so a double makes the
 * round trip unchanged and the reads' JSON is the same as SQLite's. The session also
 * sets UTF-8 and BYTEA's hex output (session_setup).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libpq-fe.h>

#include "base/errors.h"
#include "log.h"
#include "store/sql.h"
#include "strbuf.h"

#define MAX_PARAMS 128 /* THUE__STMT_MOVES_INSERT_BATCH's 16 rows of 8 */
#define NUM_SIZE 32
/* pg_advisory_xact_lock's key for migrations (store_db.c's account lock is ...002). */
#define MIGRATE_LOCK "1953002853000001"

typedef struct pgst {
    char *sql;        /* with $N placeholders */
    int nparams;      /* the largest $N */
    int prepared_gen; /* the connection generation it was prepared on; 0: never */
    const char *values[MAX_PARAMS];
    int lengths[MAX_PARAMS];
    int formats[MAX_PARAMS];
    char num[MAX_PARAMS][NUM_SIZE];
    PGresult *res;
    int row, nrows;
} pgst;

typedef struct thue__pg {
    PGconn *conn;
    int gen; /* raised at every (re)connect */
    char msg[512];
    char sqlstate[6];
    int broken; /* the connection was seen lost */
    pgst st[THUE__STMT_COUNT];
} thue__pg;

/* ---- the URI ------------------------------------------------------------------------- */

int thue__pg_is_uri(const char *path)
{
    return path &&
           (strncmp(path, "postgres://", 11) == 0 || strncmp(path, "postgresql://", 13) == 0);
}

char *thue__pg_safe_uri(const char *uri)
{
    /* Each hidden password becomes "***": at most 3 bytes more per password, and a
     * password takes at least "password=" or ":" and "@". */
    size_t n = strlen(uri);
    char *out = malloc(n * 2 + 8);
    if (out == NULL)
        return NULL;
    const char *rest = strstr(uri, "://");
    rest = rest ? rest + 3 : uri;
    size_t o = (size_t)(rest - uri);
    memcpy(out, uri, o);
    const char *p = rest;
    /* userinfo: USER:PASSWORD@, before the first '/', '?' or '#' */
    size_t hostpart = strcspn(rest, "/?#");
    const char *at = memchr(rest, '@', hostpart);
    const char *colon = at ? memchr(rest, ':', (size_t)(at - rest)) : NULL;
    if (colon) {
        memcpy(out + o, rest, (size_t)(colon - rest));
        o += (size_t)(colon - rest);
        memcpy(out + o, ":***", 4);
        o += 4;
        p = at;
    }
    /* the rest, with the value of every password=... parameter hidden */
    while (*p) {
        if ((p[0] == '?' || p[0] == '&') && strncmp(p + 1, "password=", 9) == 0) {
            memcpy(out + o, p, 10);
            o += 10;
            memcpy(out + o, "***", 3);
            o += 3;
            p += 10;
            while (*p && *p != '&' && *p != '#')
                p++;
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = '\0';
    return out;
}

/* ---- errors --------------------------------------------------------------------------- */

/* One line: libpq's messages end in a newline and may hold several lines. */
static void trim(char *s)
{
    for (char *c = s; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* Records the failure of res (may be NULL: the connection's message). */
static void note_error(thue__pg *p, const PGresult *res)
{
    const char *m = res ? PQresultErrorMessage(res) : NULL;
    if (m == NULL || m[0] == '\0')
        m = PQerrorMessage(p->conn);
    snprintf(p->msg, sizeof p->msg, "%s", m && m[0] ? m : "unknown PostgreSQL error");
    trim(p->msg);
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    snprintf(p->sqlstate, sizeof p->sqlstate, "%s", state ? state : "");
    if (PQstatus(p->conn) != CONNECTION_OK)
        p->broken = 1;
}

const char *thue__pg_errmsg(thue__db *d)
{
    return d->pg ? d->pg->msg : "no connection";
}

int thue__pg_transient(thue__db *d)
{
    thue__pg *p = d->pg;
    if (p == NULL)
        return 0;
    if (p->broken || PQstatus(p->conn) != CONNECTION_OK)
        return 1;
    const char *s = p->sqlstate;
    return strncmp(s, "08", 2) == 0 ||  /* connection exception */
           strncmp(s, "53", 2) == 0 ||  /* insufficient resources: disk full, memory */
           strncmp(s, "57P", 3) == 0 || /* admin/crash shutdown, cannot connect now */
           strcmp(s, "40001") == 0 ||   /* serialization failure */
           strcmp(s, "40P01") == 0 ||   /* deadlock */
           strcmp(s, "55P03") == 0 ||   /* lock not available */
           strcmp(s, "25006") == 0 ||   /* read-only transaction (a standby) */
           strcmp(s, "58030") == 0;     /* I/O error */
}

int thue__pg_unique_violation(thue__db *d)
{
    return d->pg && strcmp(d->pg->sqlstate, "23505") == 0;
}

int thue__pg_in_transaction(thue__db *d)
{
    PGTransactionStatusType t = PQtransactionStatus(d->pg->conn);
    if (t == PQTRANS_INERROR)
        return 2;
    return t == PQTRANS_INTRANS || t == PQTRANS_ACTIVE;
}

static void quiet_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message; /* "relation already exists, skipping" and the like */
}

/* ---- statements ------------------------------------------------------------------------- */

/* sql with ?N turned into $N; its largest N in *nparams. NULL when out of memory. */
static char *to_dollars(const char *sql, int *nparams)
{
    char *out = strdup(sql);
    int max = 0;
    if (out == NULL)
        return NULL;
    for (char *c = out; *c; c++) {
        if (*c == '?' && c[1] >= '0' && c[1] <= '9') {
            *c = '$';
            int n = atoi(c + 1);
            if (n > max)
                max = n;
        } else if (*c == '$' && c[1] >= '0' && c[1] <= '9') {
            int n = atoi(c + 1);
            if (n > max)
                max = n;
        }
    }
    *nparams = max;
    return out;
}

static pgst *stmt_of(thue__db *d, thue__stmt w)
{
    return &d->pg->st[w];
}

static void set_param(pgst *st, int i, const char *v, int len, int format)
{
    if (i < 1 || i > MAX_PARAMS)
        return;
    st->values[i - 1] = v;
    st->lengths[i - 1] = len;
    st->formats[i - 1] = format;
}

void thue__pg_bind_int64(thue__db *d, thue__stmt w, int i, int64_t v)
{
    pgst *st = stmt_of(d, w);
    if (i < 1 || i > MAX_PARAMS)
        return;
    snprintf(st->num[i - 1], NUM_SIZE, "%lld", (long long)v);
    set_param(st, i, st->num[i - 1], 0, 0);
}

void thue__pg_bind_double(thue__db *d, thue__stmt w, int i, double v)
{
    pgst *st = stmt_of(d, w);
    if (i < 1 || i > MAX_PARAMS)
        return;
    snprintf(st->num[i - 1], NUM_SIZE, "%.17g", v);
    set_param(st, i, st->num[i - 1], 0, 0);
}

void thue__pg_bind_text(thue__db *d, thue__stmt w, int i, const char *s)
{
    set_param(stmt_of(d, w), i, s, 0, 0);
}

void thue__pg_bind_blob(thue__db *d, thue__stmt w, int i, const void *p, int n)
{
    set_param(stmt_of(d, w), i, p, n, 1);
}

void thue__pg_bind_null(thue__db *d, thue__stmt w, int i)
{
    set_param(stmt_of(d, w), i, NULL, 0, 0);
}

void thue__pg_reset(thue__db *d, thue__stmt w)
{
    pgst *st = stmt_of(d, w);
    PQclear(st->res);
    st->res = NULL;
    st->row = st->nrows = 0;
    for (int i = 0; i < st->nparams && i < MAX_PARAMS; i++) {
        st->values[i] = NULL;
        st->lengths[i] = 0;
        st->formats[i] = 0;
    }
}

/* Runs the statement: 0, or THUE_STORE_EIO/EEXISTS with the error noted. */
static int execute(thue__db *d, thue__stmt w, pgst *st)
{
    thue__pg *p = d->pg;
    char name[16];
    snprintf(name, sizeof name, "s%d", (int)w);
    if (st->nparams == 0) {
        st->res = PQexec(p->conn, st->sql);
    } else {
        if (st->prepared_gen != p->gen) {
            PGresult *r = PQprepare(p->conn, name, st->sql, st->nparams, NULL);
            if (PQresultStatus(r) != PGRES_COMMAND_OK) {
                note_error(p, r);
                PQclear(r);
                return THUE_STORE_EIO;
            }
            PQclear(r);
            st->prepared_gen = p->gen;
        }
        st->res =
            PQexecPrepared(p->conn, name, st->nparams, st->values, st->lengths, st->formats, 0);
    }
    ExecStatusType s = PQresultStatus(st->res);
    if (s == PGRES_TUPLES_OK) {
        st->nrows = PQntuples(st->res);
    } else if (s == PGRES_COMMAND_OK) {
        st->nrows = 0;
        /* COMMIT of a transaction that had failed answers "ROLLBACK" without an error. */
        if (w == THUE__STMT_COMMIT && strcmp(PQcmdStatus(st->res), "ROLLBACK") == 0) {
            snprintf(p->msg, sizeof p->msg, "the transaction was rolled back");
            p->sqlstate[0] = '\0';
            return THUE_STORE_EIO;
        }
        if (w == THUE__STMT_COMMIT && d->lose_commit_reply) {
            /* The test hook: committed, but the answer "never arrives". */
            d->lose_commit_reply = 0;
            shutdown(PQsocket(p->conn), SHUT_RDWR);
            snprintf(p->msg, sizeof p->msg, "the connection was lost during COMMIT (test hook)");
            p->sqlstate[0] = '\0';
            p->broken = 1;
            d->commit_unknown = 1;
            return THUE_STORE_EIO;
        }
        if (w == THUE__STMT_COMMIT)
            d->commit_unknown = 0;
    } else {
        note_error(p, st->res);
        /* A COMMIT cut off by the connection may have committed. */
        if (w == THUE__STMT_COMMIT && p->broken)
            d->commit_unknown = 1;
        return strcmp(p->sqlstate, "23505") == 0 ? THUE_STORE_EEXISTS : THUE_STORE_EIO;
    }
    st->row = -1;
    return 0;
}

int thue__pg_step(thue__db *d, thue__stmt w)
{
    pgst *st = stmt_of(d, w);
    if (st->res == NULL) {
        if (d->pg->conn == NULL || PQstatus(d->pg->conn) != CONNECTION_OK) {
            snprintf(d->pg->msg, sizeof d->pg->msg, "the connection to PostgreSQL is lost");
            d->pg->sqlstate[0] = '\0';
            d->pg->broken = 1;
            return THUE_STORE_EIO;
        }
        int err = execute(d, w, st);
        if (err) {
            PQclear(st->res);
            st->res = NULL;
            return err;
        }
    }
    if (st->row + 1 < st->nrows) {
        st->row++;
        return THUE__SQL_ROW;
    }
    return THUE__SQL_DONE;
}

static int row_ok(pgst *st, int c)
{
    return st->res && st->row >= 0 && st->row < st->nrows && c >= 0 && c < PQnfields(st->res);
}

int thue__pg_column_null(thue__db *d, thue__stmt w, int c)
{
    pgst *st = stmt_of(d, w);
    return !row_ok(st, c) || PQgetisnull(st->res, st->row, c);
}

const char *thue__pg_column_text(thue__db *d, thue__stmt w, int c)
{
    pgst *st = stmt_of(d, w);
    if (!row_ok(st, c) || PQgetisnull(st->res, st->row, c))
        return NULL;
    return PQgetvalue(st->res, st->row, c);
}

int64_t thue__pg_column_int64(thue__db *d, thue__stmt w, int c)
{
    const char *t = thue__pg_column_text(d, w, c);
    return t ? (int64_t)strtoll(t, NULL, 10) : 0;
}

double thue__pg_column_double(thue__db *d, thue__stmt w, int c)
{
    const char *t = thue__pg_column_text(d, w, c);
    return t ? strtod(t, NULL) : 0.0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int thue__pg_column_blob(thue__db *d, thue__stmt w, int c, unsigned char *out, int size)
{
    const char *t = thue__pg_column_text(d, w, c);
    if (t == NULL || t[0] != '\\' || t[1] != 'x') /* bytea_output = hex (the default) */
        return -1;
    t += 2;
    int n = 0;
    for (; t[0] && t[1]; t += 2) {
        int hi = hexval(t[0]), lo = hexval(t[1]);
        if (hi < 0 || lo < 0 || n >= size)
            return -1;
        out[n++] = (unsigned char)(hi * 16 + lo);
    }
    return t[0] ? -1 : n;
}

/* ---- the connection --------------------------------------------------------------------- */

static int exec_ok(thue__pg *p, const char *sql);

/* The session's settings the texts depend on, whatever the server's, database's or
 * role's defaults: UTF-8 both ways, doubles printed exactly (extra_float_digits 3: the
 * shortest text that reads back to the same double), BYTEA in hex. 1 when set. */
static int session_setup(thue__pg *p)
{
    PQsetNoticeProcessor(p->conn, quiet_notice, NULL);
    return PQsetClientEncoding(p->conn, "UTF8") == 0 &&
           exec_ok(p, "SET extra_float_digits = 3; SET bytea_output = 'hex'");
}

int thue__pg_ready(thue__db *d)
{
    thue__pg *p = d->pg;
    if (PQstatus(p->conn) == CONNECTION_OK && !p->broken)
        return 0;
    for (int i = 0; i < THUE__STMT_COUNT; i++)
        thue__pg_reset(d, (thue__stmt)i);
    PQreset(p->conn);
    if (PQstatus(p->conn) != CONNECTION_OK) {
        note_error(p, NULL);
        p->broken = 1;
        d->transient = 1;
        thue_log(THUE_LOG_ERROR, "store: %s: cannot reconnect: %s", d->path, p->msg);
        return THUE_STORE_EIO;
    }
    if (!session_setup(p)) {
        p->broken = 1;
        d->transient = 1;
        thue_log(THUE_LOG_ERROR, "store: %s: cannot set up the session: %s", d->path, p->msg);
        return THUE_STORE_EIO;
    }
    p->broken = 0;
    p->gen++; /* the server forgot the prepared statements */
    thue_log(THUE_LOG_INFO, "store: %s: reconnected", d->path);
    return 0;
}

/* Runs sql (no parameters) and returns its result when it has status want; else NULL
 * with the error noted. */
static PGresult *exec_want(thue__pg *p, const char *sql, ExecStatusType want)
{
    PGresult *r = PQexec(p->conn, sql);
    if (PQresultStatus(r) != want) {
        note_error(p, r);
        PQclear(r);
        return NULL;
    }
    return r;
}

static int exec_ok(thue__pg *p, const char *sql)
{
    PGresult *r = exec_want(p, sql, PGRES_COMMAND_OK);
    PQclear(r);
    return r != NULL;
}

/* The schema version: 0 for a database without thue_schema, -1 on failure. */
static int schema_version(thue__pg *p)
{
    /* pg_tables through the statement's snapshot (not to_regclass, whose catalog cache
     * may predate the migration lock): a table another server just committed is seen. */
    PGresult *r = exec_want(p,
                            "SELECT count(*) > 0 FROM pg_catalog.pg_tables WHERE tablename = "
                            "'thue_schema' AND schemaname = current_schema()",
                            PGRES_TUPLES_OK);
    if (r == NULL)
        return -1;
    int has = PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (!has)
        return 0;
    r = exec_want(p, "SELECT version FROM thue_schema", PGRES_TUPLES_OK);
    if (r == NULL)
        return -1;
    int v = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : 0;
    PQclear(r);
    return v;
}

typedef struct migration {
    int version;
    const char *sql;
} migration;

/*
 * Every schema version, oldest first, as sql_sqlite.c's SQLite ones (the same versions, the
 * same tables; to change the schema, append to both lists). PostgreSQL's DDL is
 * transactional: a failed migration leaves the old version whole.
 */
static const migration migrations[] = {
    {1, "CREATE TABLE thue_schema (version INTEGER NOT NULL);"
        "INSERT INTO thue_schema (version) VALUES (0);"
        "CREATE TABLE accounts ("
        "  id         BIGINT  PRIMARY KEY,"
        "  name       TEXT    NOT NULL,"
        "  name_key   TEXT    NOT NULL UNIQUE," /* ASCII-lowercased name */
        "  kind       INTEGER NOT NULL CHECK (kind IN (1, 2)),"
        "  bot        TEXT,"
        "  token_hash BYTEA   CHECK (token_hash IS NULL OR length(token_hash) = 32),"
        "  created_ms BIGINT  NOT NULL"
        ");"
        "CREATE TABLE ratings ("
        "  account BIGINT  NOT NULL REFERENCES accounts (id),"
        "  variant TEXT    NOT NULL,"
        "  k       BIGINT  NOT NULL,"
        "  rating  DOUBLE PRECISION NOT NULL,"
        "  rd      DOUBLE PRECISION NOT NULL,"
        "  vol     DOUBLE PRECISION NOT NULL,"
        "  games   BIGINT  NOT NULL,"
        "  wins    BIGINT  NOT NULL,"
        "  draws   BIGINT  NOT NULL,"
        "  losses  BIGINT  NOT NULL,"
        "  PRIMARY KEY (account, variant, k)"
        ");"
        "CREATE TABLE matches ("
        "  id                 TEXT    PRIMARY KEY,"
        "  room               TEXT    NOT NULL,"
        "  number             BIGINT  NOT NULL,"
        "  variant            TEXT    NOT NULL,"
        "  k                  BIGINT  NOT NULL,"
        "  \"limit\"            BIGINT  NOT NULL,"
        "  clock_initial_ms   BIGINT,"
        "  clock_increment_ms BIGINT,"
        "  rated              BIGINT  NOT NULL,"
        "  private            BIGINT  NOT NULL,"
        "  first_builder      TEXT    NOT NULL,"
        "  name0              TEXT    NOT NULL,"
        "  kind0              TEXT    NOT NULL,"
        "  account0           BIGINT  REFERENCES accounts (id),"
        "  bot0               TEXT,"
        "  name1              TEXT    NOT NULL,"
        "  kind1              TEXT    NOT NULL,"
        "  account1           BIGINT  REFERENCES accounts (id),"
        "  bot1               TEXT,"
        "  winner             BIGINT,"
        "  reason             TEXT    NOT NULL,"
        "  points0            BIGINT  NOT NULL,"
        "  points1            BIGINT  NOT NULL,"
        "  rounds             TEXT    NOT NULL,"
        "  rating0_before     DOUBLE PRECISION,"
        "  rating0_after      DOUBLE PRECISION,"
        "  rd0_before         DOUBLE PRECISION,"
        "  rd0_after          DOUBLE PRECISION,"
        "  rating1_before     DOUBLE PRECISION,"
        "  rating1_after      DOUBLE PRECISION,"
        "  rd1_before         DOUBLE PRECISION,"
        "  rd1_after          DOUBLE PRECISION,"
        "  started_ms         BIGINT  NOT NULL,"
        "  ended_ms           BIGINT  NOT NULL,"
        "  tournament         TEXT,"
        "  tournament_round   BIGINT,"
        /* The names ASCII-lowercased (translate() maps A-Z only), computed by PostgreSQL
         * so that they can never disagree with the names; last, so that the columns
         * before them keep SQLite's order. */
        "  name0_key TEXT NOT NULL GENERATED ALWAYS AS (translate(name0,"
        "    'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) STORED,"
        "  name1_key TEXT NOT NULL GENERATED ALWAYS AS (translate(name1,"
        "    'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) STORED"
        ");"
        "CREATE INDEX matches_name0 ON matches (name0_key, ended_ms);"
        "CREATE INDEX matches_name1 ON matches (name1_key, ended_ms);"
        "CREATE INDEX matches_ended ON matches (ended_ms);"
        "CREATE TABLE moves ("
        "  match    TEXT    NOT NULL REFERENCES matches (id) ON DELETE CASCADE,"
        "  round    BIGINT  NOT NULL,"
        "  ply      BIGINT  NOT NULL,"
        "  seat     BIGINT  NOT NULL,"
        "  is_paint BIGINT  NOT NULL,"
        "  value    BIGINT  NOT NULL,"
        "  think_ms DOUBLE PRECISION NOT NULL,"
        "  PRIMARY KEY (match, round, ply)"
        ");"
        "CREATE TABLE tournaments ("
        "  id         TEXT    PRIMARY KEY,"
        "  state      TEXT    NOT NULL,"
        "  finished   BIGINT  NOT NULL,"
        "  updated_ms BIGINT  NOT NULL"
        ");"},
    {2, "ALTER TABLE matches ADD COLUMN game TEXT NOT NULL DEFAULT 'thue';"
        "ALTER TABLE matches ADD COLUMN game_options TEXT;"
        "ALTER TABLE matches ADD COLUMN game_first BIGINT;"
        "ALTER TABLE matches ADD COLUMN start_state TEXT;"
        "ALTER TABLE matches ADD COLUMN final_state TEXT;"
        "ALTER TABLE moves ADD COLUMN move TEXT;"
        "CREATE INDEX matches_game ON matches (game, ended_ms);"},
    {3, "CREATE TABLE ratings3 ("
        "  account BIGINT  NOT NULL REFERENCES accounts (id),"
        "  game    TEXT    NOT NULL,"
        "  pool    TEXT    NOT NULL,"
        "  rating  DOUBLE PRECISION NOT NULL,"
        "  rd      DOUBLE PRECISION NOT NULL,"
        "  vol     DOUBLE PRECISION NOT NULL,"
        "  games   BIGINT  NOT NULL,"
        "  wins    BIGINT  NOT NULL,"
        "  draws   BIGINT  NOT NULL,"
        "  losses  BIGINT  NOT NULL,"
        "  PRIMARY KEY (account, game, pool)"
        ");"
        "INSERT INTO ratings3 SELECT account, 'thue', variant || '-k' || k, rating, rd, vol, "
        "games, wins, draws, losses FROM ratings;"
        "DROP TABLE ratings;"
        "ALTER TABLE ratings3 RENAME TO ratings;"},
    {4, "ALTER TABLE accounts ADD COLUMN password_hash TEXT;"
        "CREATE TABLE account_tokens ("
        "  token_hash BYTEA  PRIMARY KEY CHECK (length(token_hash) = 32),"
        "  account    BIGINT NOT NULL REFERENCES accounts (id),"
        "  created_ms BIGINT NOT NULL"
        ");"
        "CREATE INDEX account_tokens_account ON account_tokens (account);"},
    /* Several servers: every write of an account, a rating or a token takes the next
     * change number (under the changes lock, so numbers commit in order) and each server
     * reads the rows past the last number it has seen (store.h, thue_store_changes). */
    {5, "CREATE SEQUENCE thue_changes;"
        "ALTER TABLE accounts ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;"
        "ALTER TABLE ratings ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;"
        "ALTER TABLE account_tokens ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;"
        "CREATE INDEX accounts_seq ON accounts (seq);"
        "CREATE INDEX ratings_seq ON ratings (seq);"
        "CREATE INDEX account_tokens_seq ON account_tokens (seq);"
        "CREATE INDEX matches_pair ON matches (account0, account1, ended_ms) WHERE "
        "rating0_after IS NOT NULL;"
        "ALTER TABLE tournaments ADD COLUMN node TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE tournaments ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;"
        "ALTER TABLE tournaments ADD COLUMN lease_ms BIGINT NOT NULL DEFAULT 0;"
        "CREATE INDEX tournaments_lease ON tournaments (finished, lease_ms);"},
    /* The exact review of a finished match (search/review.h), as the JSON that
     * GET /api/matches/{id}/review answers; computed after the match was stored. */
    {6, "CREATE TABLE reviews ("
        "  match      TEXT   PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,"
        "  review     TEXT   NOT NULL,"
        "  created_ms BIGINT NOT NULL"
        ");"},
    /* Puzzles (sql_sqlite.c's schema 7). */
    {7, "CREATE TABLE puzzles ("
        "  id         BIGSERIAL PRIMARY KEY,"
        "  game       TEXT    NOT NULL,"
        "  options    TEXT    NOT NULL,"
        "  position   TEXT    NOT NULL,"
        "  to_move    BIGINT  NOT NULL,"
        "  solution   TEXT    NOT NULL,"
        "  value      BIGINT  NOT NULL,"
        "  moves      BIGINT  NOT NULL,"
        "  plies      BIGINT  NOT NULL,"
        "  difficulty BIGINT  NOT NULL,"
        "  source     TEXT    NOT NULL,"
        "  created_ms BIGINT  NOT NULL,"
        "  UNIQUE (game, options, position)"
        ");"
        "CREATE INDEX puzzles_game ON puzzles (game, created_ms, id);"},
};

#define NMIGRATIONS ((int)(sizeof migrations / sizeof migrations[0]))

static int migrate(thue__db *d, char *err, size_t errsize)
{
    thue__pg *p = d->pg;
    PGresult *lock = NULL;
    if (!exec_ok(p, "BEGIN") ||
        (lock = exec_want(p, "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", PGRES_TUPLES_OK)) ==
            NULL) {
        thue_errf(err, errsize, "%s: cannot lock the database: %s", d->path, p->msg);
        exec_ok(p, "ROLLBACK");
        return THUE_STORE_EIO;
    }
    PQclear(lock);
    /* Again, under the lock: another server may have migrated it meanwhile. */
    int from = schema_version(p);
    if (from < 0 || from > THUE_STORE_SCHEMA_VERSION) {
        if (from < 0)
            thue_errf(err, errsize, "%s: cannot read the schema version: %s", d->path, p->msg);
        else
            thue_errf(err, errsize, "%s: schema version %d is newer than this server's (%d)",
                      d->path, from, THUE_STORE_SCHEMA_VERSION);
        exec_ok(p, "ROLLBACK");
        return THUE_STORE_EIO;
    }
    for (int i = 0; i < NMIGRATIONS; i++) {
        const migration *m = &migrations[i];
        if (m->version <= from || m->version > THUE_STORE_SCHEMA_VERSION)
            continue;
        char set[64];
        snprintf(set, sizeof set, "UPDATE thue_schema SET version = %d", m->version);
        if (!exec_ok(p, m->sql) || !exec_ok(p, set)) {
            thue_errf(err, errsize, "%s: migration to schema version %d failed: %s", d->path,
                      m->version, p->msg);
            exec_ok(p, "ROLLBACK");
            return THUE_STORE_EIO;
        }
        thue_log(THUE_LOG_INFO, "store: %s: migrated to schema version %d", d->path, m->version);
    }
    PGresult *r = exec_want(p, "COMMIT", PGRES_COMMAND_OK);
    if (r == NULL || strcmp(PQcmdStatus(r), "COMMIT") != 0) {
        thue_errf(err, errsize, "%s: cannot commit the migration: %s", d->path,
                  r ? "rolled back" : p->msg);
        PQclear(r);
        exec_ok(p, "ROLLBACK");
        return THUE_STORE_EIO;
    }
    PQclear(r);
    return 0;
}

int thue__pg_open(thue__db *d, const char *uri, char *err, size_t errsize)
{
    thue__pg *p = calloc(1, sizeof *p);
    if (p == NULL) {
        thue_errf(err, errsize, "cannot open %s: out of memory", d->path);
        return THUE_ENOMEM;
    }
    d->pg = p;
    for (int i = 0; i < THUE__STMT_COUNT; i++) {
        p->st[i].sql = to_dollars(thue__stmt_sql(1, (thue__stmt)i), &p->st[i].nparams);
        if (p->st[i].sql == NULL) {
            thue_errf(err, errsize, "cannot open %s: out of memory", d->path);
            goto fail;
        }
    }
    /* Unless the URI says otherwise (its settings come last and win): a connect timeout,
     * and TCP keepalives with a user timeout, so that a server that vanished without a
     * word (a network cut) fails a statement within a minute instead of the kernel's
     * quarter of an hour, and the write waits and retries like any lost connection. */
    const char *const keys[] = {
        "connect_timeout",  "application_name", "keepalives_idle", "keepalives_interval",
        "keepalives_count", "tcp_user_timeout", "dbname",          NULL};
    const char *const vals[] = {"10", "thue-server", "30", "10", "3", "60000", uri, NULL};
    p->conn = PQconnectdbParams(keys, vals, 1);
    if (p->conn == NULL || PQstatus(p->conn) != CONNECTION_OK) {
        char m[400];
        snprintf(m, sizeof m, "%s", p->conn ? PQerrorMessage(p->conn) : "out of memory");
        trim(m);
        thue_errf(err, errsize, "cannot open %s: %s", d->path, m);
        goto fail;
    }
    if (!session_setup(p)) {
        thue_errf(err, errsize, "cannot open %s: %s", d->path, p->msg);
        goto fail;
    }
    p->gen = 1;
    /* Refused before anything is written: a database newer than this server. */
    int version = schema_version(p);
    if (version < 0) {
        thue_errf(err, errsize, "cannot open %s: %s", d->path, p->msg);
        goto fail;
    }
    if (version > THUE_STORE_SCHEMA_VERSION) {
        thue_errf(err, errsize, "%s: schema version %d is newer than this server's (%d)", d->path,
                  version, THUE_STORE_SCHEMA_VERSION);
        goto fail;
    }
    if (version < THUE_STORE_SCHEMA_VERSION && migrate(d, err, errsize) != 0)
        goto fail;
    /* Prepare every statement once now: a database of our version whose tables are not
     * ours fails here, as SQLite's prepare does. */
    for (int i = 0; i < THUE__STMT_COUNT; i++) {
        pgst *st = &p->st[i];
        if (st->nparams == 0)
            continue;
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        PGresult *r = PQprepare(p->conn, name, st->sql, st->nparams, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            note_error(p, r);
            PQclear(r);
            thue_errf(err, errsize, "%s: not a thue-server database of this version: %s", d->path,
                      p->msg);
            goto fail;
        }
        PQclear(r);
        st->prepared_gen = p->gen;
    }
    return 0;
fail:
    thue__pg_close(d);
    return THUE_STORE_EIO;
}

void thue__pg_close(thue__db *d)
{
    thue__pg *p = d->pg;
    if (p == NULL)
        return;
    for (int i = 0; i < THUE__STMT_COUNT; i++) {
        PQclear(p->st[i].res);
        free(p->st[i].sql);
    }
    if (p->conn)
        PQfinish(p->conn);
    free(p);
    d->pg = NULL;
}
