/*
 * sql_sqlite.c: the SQLite engine of the store (sql.h; the statement calls themselves are
 * sql.h's inline functions): opening the file, its schema and migrations, and the errors
 * that can pass.
 *
 * Schema versions live in PRAGMA user_version (0 for a new, empty file). `migrations`
 * below lists every version's SQL, oldest first; opening applies the ones above the
 * file's version, in order, in one transaction together with the new user_version, so a
 * crash mid-migration leaves the old version intact. A file newer than this server
 * (user_version > THUE_STORE_SCHEMA_VERSION) is refused before anything is written to
 * it: an older server must not write into a schema it does not know. (sql_pg.c has the
 * same versions in PostgreSQL's DDL: a change of schema is a new entry in both.)
 *
 * Durability: WAL with synchronous=FULL, so a committed transaction is on disk (the WAL
 * is fsync()ed at every commit) before its callback runs; a crash at any other moment
 * loses only the transaction in progress, which SQLite's recovery discards whole.
 *
 * Schema 2 (other games than Thue): matches gain game (the game's wire name, 'thue' for
 * every match of schema 1), game_options (the canonical options object), game_first (the
 * seat that was the game's player 0), start_state and final_state (the game's state JSON
 * at the match's start and end), all NULL for Thue's matches except game; another game's
 * reason column holds the game's reason text ("no_moves", "took_last", "resign", ...: the
 * column has no CHECK, so it is reused), its variant, k and limit the room's unused
 * defaults and its rounds "[]". moves gain move: another game's move JSON (NULL for
 * Thue's; round is 0 and ply counts the match's moves).
 *
 * Schema 4 (passwords): accounts gain password_hash (libsodium's Argon2id string, NULL
 * without a password), and account_tokens holds the tokens login hands out (their
 * SHA-256, the account, when), each as good as the account's own token_hash.
 *
 * Schema 5 (several servers): accounts, ratings and account_tokens gain seq, the change
 * number PostgreSQL gives every write of them (servers follow each other's changes by
 * it); always 0 in a SQLite file, which one server owns. matches_pair indexes two
 * accounts' matches for the rated-pair limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/errors.h"
#include "log.h"
#include "store/sql.h"
#include "store/store_internal.h"
#include "strbuf.h"

/* ---- schema ------------------------------------------------------------------------- */

typedef struct migration {
    int version; /* user_version once applied */
    const char *sql;
} migration;

/*
 * Every schema version, oldest first. To change the schema, append an entry and raise
 * THUE_STORE_SCHEMA_VERSION (store.h) to its version; never edit an entry that has
 * shipped. Each entry's ALTERs keep the rows already there (a file of version 1
 * migrates in place, its matches becoming Thue's).
 */
static const migration migrations[] = {
    {1, "CREATE TABLE accounts ("
        "  id         INTEGER PRIMARY KEY,"
        "  name       TEXT    NOT NULL,"
        "  name_key   TEXT    NOT NULL UNIQUE,"                 /* ASCII-lowercased name */
        "  kind       INTEGER NOT NULL CHECK (kind IN (1, 2))," /* account, bot */
        "  bot        TEXT,"                                    /* SPEC; NULL for a person */
        "  token_hash BLOB    CHECK (token_hash IS NULL OR length(token_hash) = 32),"
        "  created_ms INTEGER NOT NULL"
        ");"
        "CREATE TABLE ratings ("
        "  account INTEGER NOT NULL REFERENCES accounts (id),"
        "  variant TEXT    NOT NULL,"
        "  k       INTEGER NOT NULL,"
        "  rating  REAL    NOT NULL,"
        "  rd      REAL    NOT NULL,"
        "  vol     REAL    NOT NULL,"
        "  games   INTEGER NOT NULL,"
        "  wins    INTEGER NOT NULL,"
        "  draws   INTEGER NOT NULL,"
        "  losses  INTEGER NOT NULL,"
        "  PRIMARY KEY (account, variant, k)"
        ") WITHOUT ROWID;"
        "CREATE TABLE matches ("
        "  id                 TEXT    PRIMARY KEY,"
        "  room               TEXT    NOT NULL,"
        "  number             INTEGER NOT NULL,"
        "  variant            TEXT    NOT NULL,"
        "  k                  INTEGER NOT NULL,"
        "  \"limit\"            INTEGER NOT NULL,"
        "  clock_initial_ms   INTEGER," /* both NULL without a clock */
        "  clock_increment_ms INTEGER,"
        "  rated              INTEGER NOT NULL,"
        "  private            INTEGER NOT NULL,"
        "  first_builder      TEXT    NOT NULL,"
        "  name0              TEXT    NOT NULL COLLATE NOCASE,"
        "  kind0              TEXT    NOT NULL,"
        "  account0           INTEGER REFERENCES accounts (id)," /* NULL for a guest */
        "  bot0               TEXT,"                             /* NULL for a person */
        "  name1              TEXT    NOT NULL COLLATE NOCASE,"
        "  kind1              TEXT    NOT NULL,"
        "  account1           INTEGER REFERENCES accounts (id),"
        "  bot1               TEXT,"
        "  winner             INTEGER," /* seat; NULL for a draw */
        "  reason             TEXT    NOT NULL,"
        "  points0            INTEGER NOT NULL,"
        "  points1            INTEGER NOT NULL,"
        "  rounds             TEXT    NOT NULL," /* JSON: PROTOCOL.md's two round objects */
        "  rating0_before     REAL,"             /* the 8 rating columns are NULL when unrated */
        "  rating0_after      REAL,"
        "  rd0_before         REAL,"
        "  rd0_after          REAL,"
        "  rating1_before     REAL,"
        "  rating1_after      REAL,"
        "  rd1_before         REAL,"
        "  rd1_after          REAL,"
        "  started_ms         INTEGER NOT NULL,"
        "  ended_ms           INTEGER NOT NULL,"
        "  tournament         TEXT," /* NULL outside a tournament */
        "  tournament_round   INTEGER"
        ");"
        "CREATE INDEX matches_name0 ON matches (name0, ended_ms);"
        "CREATE INDEX matches_name1 ON matches (name1, ended_ms);"
        "CREATE INDEX matches_ended ON matches (ended_ms);"
        "CREATE TABLE moves ("
        "  match    TEXT    NOT NULL REFERENCES matches (id) ON DELETE CASCADE,"
        "  round    INTEGER NOT NULL," /* 0 or 1 */
        "  ply      INTEGER NOT NULL," /* 0, 1, ... within the round */
        "  seat     INTEGER NOT NULL,"
        "  is_paint INTEGER NOT NULL,"
        "  value    INTEGER NOT NULL," /* position (place) or symbol (paint) */
        "  think_ms REAL    NOT NULL,"
        "  PRIMARY KEY (match, round, ply)"
        ") WITHOUT ROWID;"
        "CREATE TABLE tournaments ("
        "  id         TEXT    PRIMARY KEY,"
        "  state      TEXT    NOT NULL," /* the lobby's JSON */
        "  finished   INTEGER NOT NULL,"
        "  updated_ms INTEGER NOT NULL"
        ");"},
    {2, "ALTER TABLE matches ADD COLUMN game TEXT NOT NULL DEFAULT 'thue';"
        "ALTER TABLE matches ADD COLUMN game_options TEXT;" /* NULL for Thue */
        "ALTER TABLE matches ADD COLUMN game_first INTEGER;"
        "ALTER TABLE matches ADD COLUMN start_state TEXT;"
        "ALTER TABLE matches ADD COLUMN final_state TEXT;"
        "ALTER TABLE moves ADD COLUMN move TEXT;"
        "CREATE INDEX matches_game ON matches (game, ended_ms);"},
    /* Ratings of every game: a pool is a game and its pool key (Thue's (variant, k)
     * becomes "square-k5"). The table is rebuilt, as SQLite cannot change a key. */
    {3, "CREATE TABLE ratings3 ("
        "  account INTEGER NOT NULL REFERENCES accounts (id),"
        "  game    TEXT    NOT NULL,"
        "  pool    TEXT    NOT NULL,"
        "  rating  REAL    NOT NULL,"
        "  rd      REAL    NOT NULL,"
        "  vol     REAL    NOT NULL,"
        "  games   INTEGER NOT NULL,"
        "  wins    INTEGER NOT NULL,"
        "  draws   INTEGER NOT NULL,"
        "  losses  INTEGER NOT NULL,"
        "  PRIMARY KEY (account, game, pool)"
        ") WITHOUT ROWID;"
        "INSERT INTO ratings3 SELECT account, 'thue', variant || '-k' || k, rating, rd, vol, "
        "games, wins, draws, losses FROM ratings;"
        "DROP TABLE ratings;"
        "ALTER TABLE ratings3 RENAME TO ratings;"},
    /* Passwords and logins from other devices: an account's password hash (libsodium's
     * Argon2id string; NULL: none), and the tokens login hands out besides the one
     * claim_name gave (their SHA-256, as token_hash). */
    {4, "ALTER TABLE accounts ADD COLUMN password_hash TEXT;"
        "CREATE TABLE account_tokens ("
        "  token_hash BLOB    PRIMARY KEY CHECK (length(token_hash) = 32),"
        "  account    INTEGER NOT NULL REFERENCES accounts (id),"
        "  created_ms INTEGER NOT NULL"
        ") WITHOUT ROWID;"
        "CREATE INDEX account_tokens_account ON account_tokens (account);"},
    /* Several servers (PostgreSQL's schema 5): the change numbers of accounts, ratings
     * and tokens (0 here: one server per file, nothing to follow), and the pair index
     * for counting two accounts' rated matches. */
    {5, "ALTER TABLE accounts ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;"
        "ALTER TABLE ratings ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;"
        "ALTER TABLE account_tokens ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;"
        "CREATE INDEX matches_pair ON matches (account0, account1, ended_ms) WHERE "
        "rating0_after IS NOT NULL;"
        "ALTER TABLE tournaments ADD COLUMN node TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE tournaments ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;"
        "ALTER TABLE tournaments ADD COLUMN lease_ms INTEGER NOT NULL DEFAULT 0;"
        "CREATE INDEX tournaments_lease ON tournaments (finished, lease_ms);"},
    /* The exact review of a finished match (search/review.h), as the JSON that
     * GET /api/matches/{id}/review answers; computed after the match was stored. */
    {6, "CREATE TABLE reviews ("
        "  match      TEXT    PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,"
        "  review     TEXT    NOT NULL,"
        "  created_ms INTEGER NOT NULL"
        ") WITHOUT ROWID;"},
    /* Puzzles (issue 33): a position of a game, its one winning move and how it was
     * found; a row is never changed once written. The same position of the same game and
     * options is stored once. */
    {7, "CREATE TABLE puzzles ("
        "  id         INTEGER PRIMARY KEY,"
        "  game       TEXT    NOT NULL,"
        "  options    TEXT    NOT NULL,"
        "  position   TEXT    NOT NULL,"
        "  to_move    INTEGER NOT NULL,"
        "  solution   TEXT    NOT NULL,"
        "  value      INTEGER NOT NULL,"
        "  moves      INTEGER NOT NULL,"
        "  plies      INTEGER NOT NULL,"
        "  difficulty INTEGER NOT NULL,"
        "  source     TEXT    NOT NULL,"
        "  created_ms INTEGER NOT NULL,"
        "  UNIQUE (game, options, position)"
        ");"
        "CREATE INDEX puzzles_game ON puzzles (game, created_ms, id);"},
};

#define NMIGRATIONS ((int)(sizeof migrations / sizeof migrations[0]))

#define BUSY_TIMEOUT_MS 5000

/* PRAGMA user_version, or -1 (with SQLite's message in the handle). */
static int user_version(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* ---- open and close ------------------------------------------------------------------- */

static int migrate(thue__db *d, char *err, size_t errsize)
{
    if (sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        thue_errf(err, errsize, "%s: cannot lock the database: %s", d->path, sqlite3_errmsg(d->db));
        return THUE_STORE_EIO;
    }
    /* Again, under the lock: another process may have migrated it meanwhile. */
    int from = user_version(d->db);
    if (from < 0 || from > THUE_STORE_SCHEMA_VERSION) {
        if (from < 0)
            thue_errf(err, errsize, "%s: cannot read the schema version: %s", d->path,
                    sqlite3_errmsg(d->db));
        else
            thue_errf(err, errsize, "%s: schema version %d is newer than this server's (%d)", d->path,
                    from, THUE_STORE_SCHEMA_VERSION);
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
        return THUE_STORE_EIO;
    }
    for (int i = 0; i < NMIGRATIONS; i++) {
        const migration *m = &migrations[i];
        if (m->version <= from || m->version > THUE_STORE_SCHEMA_VERSION)
            continue;
        char pragma[48];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
        if (sqlite3_exec(d->db, m->sql, NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(d->db, pragma, NULL, NULL, NULL) != SQLITE_OK) {
            thue_errf(err, errsize, "%s: migration to schema version %d failed: %s", d->path,
                    m->version, sqlite3_errmsg(d->db));
            sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
            return THUE_STORE_EIO;
        }
        thue_log(THUE_LOG_INFO, "store: %s: migrated to schema version %d", d->path, m->version);
    }
    if (sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        thue_errf(err, errsize, "%s: cannot commit the migration: %s", d->path,
                sqlite3_errmsg(d->db));
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
        return THUE_STORE_EIO;
    }
    return 0;
}

/* The PRAGMAs of every connection. WAL cannot be set inside a transaction, so this runs
 * before the migrations. */
static int configure(thue__db *d, char *err, size_t errsize)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(d->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *mode = (const char *)sqlite3_column_text(st, 0);
        /* ":memory:" stays in "memory" mode; a file that cannot do WAL (no shared memory
         * on its file system) keeps working in its rollback journal. */
        if (mode && strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0)
            thue_log(THUE_LOG_WARN, "store: %s: journal mode %s, not wal", d->path, mode);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(d->db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", NULL, NULL,
                          NULL);
    if (rc != SQLITE_OK) {
        thue_errf(err, errsize, "%s: cannot configure the database: %s", d->path,
                sqlite3_errmsg(d->db));
        return THUE_STORE_EIO;
    }
    return 0;
}

/*
 * One server per database file. The lobby numbers new accounts itself (the largest id
 * loaded, plus one) and keeps every rating in memory, so a second server on the same file
 * would hand out the same ids and overwrite the first one's ratings, with SQLite's
 * integrity intact. So the file is flock()ed, exclusively, for as long as it is open.
 *
 * flock, not fcntl: SQLite takes fcntl (POSIX) locks on the same file for its
 * transactions, and those belong to the process, so closing any descriptor of the file
 * would drop them; flock locks belong to the open file description and are independent
 * of fcntl's on Linux. The descriptor stays open until SQLite has closed (thue__db_close),
 * so closing it never drops a lock SQLite holds. Other programs that read the file
 * through SQLite (the sqlite3 shell's .backup, say) take no flock and are not stopped.
 */
static int lock_file(thue__db *d, const char *path, char *err, size_t errsize)
{
    if (strcmp(path, ":memory:") == 0)
        return 0;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && (errno == EROFS || errno == EACCES))
        fd = open(path, O_RDONLY | O_CLOEXEC); /* SQLite may still open it for reading */
    if (fd < 0) {
        thue_errf(err, errsize, "cannot open %s: %s", path, strerror(errno));
        return THUE_STORE_EIO;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            thue_errf(err, errsize,
                      "%s is in use by another thue-server: two servers on one database would "
                      "hand out the same account ids; stop the other server, or give this one "
                      "a database of its own (--db)",
                      path);
        else
            thue_errf(err, errsize, "cannot lock %s: %s", path, strerror(e));
        return THUE_STORE_EIO;
    }
    d->lock_fd = fd;
    return 0;
}

int thue__sqlite_open(thue__db *d, const char *path, char *err, size_t errsize)
{
    if (lock_file(d, path, err, errsize) != 0)
        return THUE_STORE_EIO;
    /* NOMUTEX: one thread at a time uses the connection (see store_internal.h). */
    int rc = sqlite3_open_v2(
        path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        thue_errf(err, errsize, "cannot open %s: %s", path,
                d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc));
        return THUE_STORE_EIO;
    }
    sqlite3_busy_timeout(d->db, BUSY_TIMEOUT_MS);
    /* The first read: a file that is not a database fails here. */
    int version = user_version(d->db);
    if (version < 0) {
        thue_errf(err, errsize, "cannot open %s: %s", path, sqlite3_errmsg(d->db));
        return THUE_STORE_EIO;
    }
    if (version > THUE_STORE_SCHEMA_VERSION) {
        thue_errf(err, errsize, "%s: schema version %d is newer than this server's (%d)", path,
                version, THUE_STORE_SCHEMA_VERSION);
        return THUE_STORE_EIO;
    }
    if (configure(d, err, errsize) != 0 || migrate(d, err, errsize) != 0)
        return THUE_STORE_EIO;
    for (int i = 0; i < THUE__STMT_COUNT; i++) {
        if (sqlite3_prepare_v3(d->db, thue__stmt_sql(0, (thue__stmt)i), -1, SQLITE_PREPARE_PERSISTENT, &d->stmt[i],
                               NULL) != SQLITE_OK) {
            /* A file of our version whose tables are not ours. */
            thue_errf(err, errsize, "%s: not a thue-server database of this version: %s", path,
                    sqlite3_errmsg(d->db));
            return THUE_STORE_EIO;
        }
    }
    return 0;
}

void thue__sqlite_close(thue__db *d)
{
    for (int i = 0; i < THUE__STMT_COUNT; i++) {
        sqlite3_finalize(d->stmt[i]);
        d->stmt[i] = NULL;
    }
    if (d->db && sqlite3_close(d->db) != SQLITE_OK)
        thue_log(THUE_LOG_ERROR, "store: %s: cannot close: %s", d->path, sqlite3_errmsg(d->db));
    d->db = NULL;
    if (d->lock_fd >= 0)
        close(d->lock_fd); /* after SQLite's close: see lock_file */
    d->lock_fd = -1;
}

int thue__sqlite_transient(thue__db *d)
{
    int rc = sqlite3_errcode(d->db) & 0xff;
    return rc == SQLITE_FULL || rc == SQLITE_IOERR || rc == SQLITE_READONLY ||
           rc == SQLITE_CANTOPEN || rc == SQLITE_BUSY || rc == SQLITE_LOCKED ||
           rc == SQLITE_PROTOCOL;
}
