/*
 * store_db.c: the SQLite side of the store (store.h): opening, the schema and its
 * migrations, the prepared statements, the start-up load and the three writes.
 *
 * Schema versions live in PRAGMA user_version (0 for a new, empty file). `migrations`
 * below lists every version's SQL, oldest first; opening applies the ones above the
 * file's version, in order, in one transaction together with the new user_version, so a
 * crash mid-migration leaves the old version intact. A file newer than this server
 * (user_version > THUE_STORE_SCHEMA_VERSION) is refused before anything is written to
 * it: an older server must not write into a schema it does not know.
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
 * Enumerations are stored as their wire names (PROTOCOL.md keeps them stable), except
 * accounts.kind, the thue_player_kind number (1 account, 2 bot). Names compare ignoring
 * ASCII case: accounts through name_key (the ASCII-lowercased name, UNIQUE), matches
 * through name0/name1 declared COLLATE NOCASE (SQLite's NOCASE folds ASCII only).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <jansson.h>

#include "base/errors.h"
#include "log.h"
#include "strbuf.h"
#include "store/store_internal.h"

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
};

#define NMIGRATIONS ((int)(sizeof migrations / sizeof migrations[0]))

/* The statements of thue__stmt, in its order. */
static const char *const stmt_sql[THUE__STMT_COUNT] = {
    [THUE__STMT_BEGIN] = "BEGIN",
    [THUE__STMT_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [THUE__STMT_COMMIT] = "COMMIT",
    [THUE__STMT_ROLLBACK] = "ROLLBACK",
    [THUE__STMT_SAVEPOINT] = "SAVEPOINT job",
    [THUE__STMT_RELEASE] = "RELEASE job",
    [THUE__STMT_ROLLBACK_TO] = "ROLLBACK TO job",
    [THUE__STMT_ACCOUNT_INSERT] =
        "INSERT INTO accounts (id, name, name_key, kind, bot, token_hash, created_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [THUE__STMT_ACCOUNT_LOAD] =
        "SELECT id, name, kind, bot, token_hash, created_ms FROM accounts ORDER BY id",
    [THUE__STMT_RATING_UPSERT] =
        "INSERT INTO ratings (account, game, pool, rating, rd, vol, games, wins, draws, losses) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
        "ON CONFLICT (account, game, pool) DO UPDATE SET rating = excluded.rating, "
        "rd = excluded.rd, vol = excluded.vol, games = excluded.games, wins = excluded.wins, "
        "draws = excluded.draws, losses = excluded.losses",
    [THUE__STMT_RATING_LOAD] = "SELECT account, game, pool, rating, rd, vol, games, wins, draws, "
                               "losses FROM ratings ORDER BY account, game, pool",
    [THUE__STMT_TOURNAMENT_UPSERT] =
        "INSERT INTO tournaments (id, state, finished, updated_ms) VALUES (?1, ?2, ?3, ?4) "
        "ON CONFLICT (id) DO UPDATE SET state = excluded.state, finished = excluded.finished, "
        "updated_ms = excluded.updated_ms",
    [THUE__STMT_TOURNAMENT_LOAD] =
        "SELECT id, state FROM tournaments WHERE finished = 0 ORDER BY id",
    [THUE__STMT_MATCH_INSERT] =
        "INSERT INTO matches (id, room, number, variant, k, \"limit\", clock_initial_ms, "
        "clock_increment_ms, rated, private, first_builder, name0, kind0, account0, bot0, "
        "name1, kind1, account1, bot1, winner, reason, points0, points1, rounds, "
        "rating0_before, rating0_after, rd0_before, rd0_after, rating1_before, rating1_after, "
        "rd1_before, rd1_after, started_ms, ended_ms, tournament, tournament_round, game, "
        "game_options, game_first, start_state, final_state) VALUES "
        "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
        "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, "
        "?36, ?37, ?38, ?39, ?40, ?41)",
    [THUE__STMT_MOVE_INSERT] =
        "INSERT INTO moves (match, round, ply, seat, is_paint, value, think_ms, move) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    /* Columns in the order of THUE__MC_... */
    [THUE__STMT_MATCH_GET] =
        "SELECT id, room, number, variant, k, \"limit\", clock_initial_ms, clock_increment_ms, "
        "rated, private, first_builder, name0, kind0, bot0, name1, kind1, bot1, winner, "
        "reason, points0, points1, rounds, rating0_before, rating0_after, rd0_before, "
        "rd0_after, rating1_before, rating1_after, rd1_before, rd1_after, started_ms, "
        "ended_ms, tournament, tournament_round, game, game_options, game_first, start_state, "
        "final_state FROM matches WHERE id = ?1",
    [THUE__STMT_MATCH_EXISTS] = "SELECT 1 FROM matches WHERE id = ?1",
    [THUE__STMT_MOVES_GET] = "SELECT round, ply, seat, is_paint, value, think_ms, move FROM "
                             "moves WHERE match = ?1 ORDER BY round, ply",
    /* name0 and name1 are COLLATE NOCASE: `=` ignores ASCII case and uses their indexes. */
    /* A private room's match is seen only by its players' accounts (the viewer, ?2 or ?4:
     * -1 anyone's, 0 a stranger, else an account id). The game (?3 or ?5): NULL any. */
    [THUE__STMT_PLAYER_COUNT] =
        "SELECT count(*) FROM matches WHERE (name0 = ?1 OR name1 = ?1) AND (private = 0 OR "
        "?2 < 0 OR (?2 > 0 AND (account0 = ?2 OR account1 = ?2))) AND (?3 IS NULL OR "
        "game = ?3)",
    [THUE__STMT_PLAYER_PAGE] =
        "SELECT id, room, number, variant, k, rated, name0, kind0, name1, kind1, winner, "
        "reason, points0, points1, ended_ms, game, game_options FROM matches WHERE "
        "(name0 = ?1 OR name1 = ?1) AND "
        "(private = 0 OR ?4 < 0 OR (?4 > 0 AND (account0 = ?4 OR account1 = ?4))) AND "
        "(?5 IS NULL OR game = ?5) "
        "ORDER BY ended_ms DESC, id DESC LIMIT ?2 OFFSET ?3",
    [THUE__STMT_MATCH_VISIBLE] =
        "SELECT 1 FROM matches WHERE id = ?1 AND (private = 0 OR ?2 < 0 OR (?2 > 0 AND "
        "(account0 = ?2 OR account1 = ?2)))",
};

#define BUSY_TIMEOUT_MS 5000

/* ---- helpers ------------------------------------------------------------------------- */

int thue__db_fail(thue__db *d, const char *what)
{
    int rc = sqlite3_errcode(d->db) & 0xff;
    d->transient = rc == SQLITE_FULL || rc == SQLITE_IOERR || rc == SQLITE_READONLY ||
                   rc == SQLITE_CANTOPEN || rc == SQLITE_BUSY || rc == SQLITE_LOCKED ||
                   rc == SQLITE_PROTOCOL;
    thue_log(THUE_LOG_ERROR, "store: %s: %s: %s", d->path, what, sqlite3_errmsg(d->db));
    return THUE_STORE_EIO;
}

void thue__crash_point(int crash)
{
    if (crash)
        _exit(99);
}

/* Steps a statement that returns no row, then resets it: 0, or THUE_STORE_EIO logged as
 * "cannot WHAT" (SQLite's message is read before the reset). */
static int run(thue__db *d, thue__stmt which, const char *what)
{
    sqlite3_stmt *st = d->stmt[which];
    int err = 0;
    if (sqlite3_step(st) != SQLITE_DONE)
        err = thue__db_fail(d, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return err;
}

int thue__db_begin(thue__db *d, int write)
{
    if (d->batch && write)
        return run(d, THUE__STMT_SAVEPOINT, "cannot begin a savepoint");
    return run(d, write ? THUE__STMT_BEGIN_WRITE : THUE__STMT_BEGIN, "cannot begin a transaction");
}

int thue__db_commit(thue__db *d)
{
    int err = d->batch ? run(d, THUE__STMT_RELEASE, "cannot release a savepoint")
                       : run(d, THUE__STMT_COMMIT, "cannot commit");
    if (err)
        thue__db_rollback(d);
    return err;
}

void thue__db_rollback(thue__db *d)
{
    /* After some errors (SQLITE_FULL, SQLITE_IOERR, ...) SQLite has rolled back already. */
    if (sqlite3_get_autocommit(d->db))
        return;
    if (d->batch) {
        /* ROLLBACK TO keeps the savepoint open: RELEASE ends it (with nothing in it). */
        if (run(d, THUE__STMT_ROLLBACK_TO, "cannot roll back to a savepoint") == 0)
            run(d, THUE__STMT_RELEASE, "cannot release a savepoint");
        return;
    }
    run(d, THUE__STMT_ROLLBACK, "cannot roll back");
}

int thue__db_batch_begin(thue__db *d)
{
    int err = run(d, THUE__STMT_BEGIN_WRITE, "cannot begin a transaction");
    d->batch = err == 0;
    return err;
}

int thue__db_batch_alive(thue__db *d)
{
    return d->batch && !sqlite3_get_autocommit(d->db);
}

int thue__db_batch_end(thue__db *d, int commit)
{
    int alive = thue__db_batch_alive(d);
    d->batch = 0;
    if (alive && commit) {
        int err = run(d, THUE__STMT_COMMIT, "cannot commit");
        if (err && !sqlite3_get_autocommit(d->db))
            run(d, THUE__STMT_ROLLBACK, "cannot roll back");
        return err;
    }
    if (alive)
        run(d, THUE__STMT_ROLLBACK, "cannot roll back");
    return commit ? THUE_STORE_EIO : 0;
}

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

/* Copies a column's text into a fixed buffer (cut if the file holds a longer one). */
static void column_copy(sqlite3_stmt *st, int col, char *out, size_t size)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(out, size, "%s", t ? (const char *)t : "");
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

int thue__db_open(thue__db *d, const char *path, char *err, size_t errsize)
{
    memset(d, 0, sizeof *d);
    d->lock_fd = -1;
    if (err && errsize)
        err[0] = '\0';
    d->path = strdup(path);
    if (d->path == NULL) {
        thue_errf(err, errsize, "%s: out of memory", path);
        return THUE_ENOMEM;
    }
    if (lock_file(d, path, err, errsize) != 0)
        goto fail;
    /* NOMUTEX: one thread at a time uses the connection (see store_internal.h). */
    int rc = sqlite3_open_v2(
        path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        thue_errf(err, errsize, "cannot open %s: %s", path,
                d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc));
        goto fail;
    }
    sqlite3_busy_timeout(d->db, BUSY_TIMEOUT_MS);
    /* The first read: a file that is not a database fails here. */
    int version = user_version(d->db);
    if (version < 0) {
        thue_errf(err, errsize, "cannot open %s: %s", path, sqlite3_errmsg(d->db));
        goto fail;
    }
    if (version > THUE_STORE_SCHEMA_VERSION) {
        thue_errf(err, errsize, "%s: schema version %d is newer than this server's (%d)", path,
                version, THUE_STORE_SCHEMA_VERSION);
        goto fail;
    }
    if (configure(d, err, errsize) != 0 || migrate(d, err, errsize) != 0)
        goto fail;
    for (int i = 0; i < THUE__STMT_COUNT; i++) {
        if (sqlite3_prepare_v3(d->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &d->stmt[i],
                               NULL) != SQLITE_OK) {
            /* A file of our version whose tables are not ours. */
            thue_errf(err, errsize, "%s: not a thue-server database of this version: %s", path,
                    sqlite3_errmsg(d->db));
            goto fail;
        }
    }
    return 0;
fail:
    thue__db_close(d);
    return THUE_STORE_EIO;
}

void thue__db_close(thue__db *d)
{
    for (int i = 0; i < THUE__STMT_COUNT; i++)
        sqlite3_finalize(d->stmt[i]);
    if (d->db && sqlite3_close(d->db) != SQLITE_OK)
        thue_log(THUE_LOG_ERROR, "store: %s: cannot close: %s", d->path, sqlite3_errmsg(d->db));
    if (d->lock_fd >= 0)
        close(d->lock_fd); /* after SQLite's close: see lock_file */
    free(d->path);
    memset(d, 0, sizeof *d);
    d->lock_fd = -1;
}

/* ---- the start-up load ----------------------------------------------------------------- */

static int load_accounts(thue__db *d, void (*account)(void *, const thue_account_row *), void *ctx)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_ACCOUNT_LOAD];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        thue_account_row row;
        memset(&row, 0, sizeof row);
        row.id = sqlite3_column_int64(st, 0);
        column_copy(st, 1, row.name, sizeof row.name);
        row.kind = (thue_player_kind)sqlite3_column_int(st, 2);
        column_copy(st, 3, row.bot, sizeof row.bot);
        if (sqlite3_column_bytes(st, 4) == 32)
            memcpy(row.token_hash, sqlite3_column_blob(st, 4), 32);
        row.created_ms = sqlite3_column_int64(st, 5);
        if (account)
            account(ctx, &row);
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : rc;
}

static int load_ratings(thue__db *d, void (*rating)(void *, const thue_rating_row *), void *ctx)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_RATING_LOAD];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        thue_rating_row row;
        memset(&row, 0, sizeof row);
        row.account = sqlite3_column_int64(st, 0);
        const char *game = (const char *)sqlite3_column_text(st, 1);
        const char *pool = (const char *)sqlite3_column_text(st, 2);
        if (game == NULL || pool == NULL || strlen(game) >= sizeof row.game ||
            strlen(pool) >= sizeof row.pool) {
            thue_log(THUE_LOG_WARN,
                     "store: %s: a rating of account %lld has no valid pool: skipped", d->path,
                     (long long)row.account);
            continue;
        }
        memcpy(row.game, game, strlen(game) + 1);
        memcpy(row.pool, pool, strlen(pool) + 1);
        row.rating = sqlite3_column_double(st, 3);
        row.rd = sqlite3_column_double(st, 4);
        row.vol = sqlite3_column_double(st, 5);
        row.games = sqlite3_column_int(st, 6);
        row.wins = sqlite3_column_int(st, 7);
        row.draws = sqlite3_column_int(st, 8);
        row.losses = sqlite3_column_int(st, 9);
        if (rating)
            rating(ctx, &row);
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : rc;
}

static int load_tournaments(thue__db *d, void (*tournament)(void *, const char *, const char *),
                            void *ctx)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_TOURNAMENT_LOAD];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0);
        const char *state = (const char *)sqlite3_column_text(st, 1);
        if (tournament && id && state)
            tournament(ctx, id, state);
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : rc;
}

int thue__db_load(thue__db *d, void (*account)(void *ctx, const thue_account_row *row),
                  void (*rating)(void *ctx, const thue_rating_row *row),
                  void (*tournament)(void *ctx, const char *id, const char *state_json), void *ctx,
                  char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
    if (thue__db_begin(d, 0) != 0) {
        thue_errf(err, errsize, "%s: cannot read: %s", d->path, sqlite3_errmsg(d->db));
        return THUE_STORE_EIO;
    }
    const char *what = "accounts";
    int rc = load_accounts(d, account, ctx);
    if (rc == 0) {
        what = "ratings";
        rc = load_ratings(d, rating, ctx);
    }
    if (rc == 0) {
        what = "tournaments";
        rc = load_tournaments(d, tournament, ctx);
    }
    if (rc != 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "cannot read the %s", what);
        thue__db_fail(d, msg);
        thue_errf(err, errsize, "%s: cannot read the database: %s", d->path, sqlite3_errmsg(d->db));
        thue__db_rollback(d);
        return THUE_STORE_EIO;
    }
    if (thue__db_commit(d) != 0) {
        thue_errf(err, errsize, "%s: cannot read the database: %s", d->path, sqlite3_errmsg(d->db));
        return THUE_STORE_EIO;
    }
    return 0;
}

/* ---- writes ----------------------------------------------------------------------------- */

/* Binds text, or NULL for "". The text must live until the statement is reset. */
static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s && s[0])
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

int thue__db_add_account(thue__db *d, const thue_account_row *row, int crash, int64_t *id)
{
    char key[sizeof row->name];
    size_t i = 0;
    for (; row->name[i] && i + 1 < sizeof key; i++) {
        char c = row->name[i];
        key[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    key[i] = '\0';
    *id = 0;
    int err = thue__db_begin(d, 1);
    if (err)
        return err;
    sqlite3_stmt *st = d->stmt[THUE__STMT_ACCOUNT_INSERT];
    if (row->id > 0)
        sqlite3_bind_int64(st, 1, row->id);
    else
        sqlite3_bind_null(st, 1); /* the next rowid */
    sqlite3_bind_text(st, 2, row->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, (int)row->kind);
    bind_text_or_null(st, 5, row->bot);
    if (all_zero(row->token_hash, 32))
        sqlite3_bind_null(st, 6);
    else
        sqlite3_bind_blob(st, 6, row->token_hash, 32, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, row->created_ms);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        if (sqlite3_extended_errcode(d->db) == SQLITE_CONSTRAINT_UNIQUE)
            err = THUE_STORE_EEXISTS; /* name_key: an expected answer, not logged */
        else
            err = thue__db_fail(d, "cannot insert an account");
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    thue__crash_point(crash);
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    *id = sqlite3_last_insert_rowid(d->db);
    err = thue__db_commit(d);
    if (err)
        *id = 0;
    return err;
}

/* One round object of PROTOCOL.md section 6; NULL when out of memory. */
static json_t *round_json(const thue_round_info *ri)
{
    json_t *rep = ri->has_repetition
                      ? json_pack("{s:i,s:i,s:i}", "start", ri->repetition.start, "period",
                                  ri->repetition.period, "length", ri->repetition.length)
                      : json_null();
    json_t *word = ri->word ? json_array() : json_null();
    for (int i = 0; ri->word && word && i < ri->word_len; i++)
        if (json_array_append_new(word, json_integer(ri->word[i])) != 0) {
            json_decref(word);
            word = NULL;
        }
    if (rep == NULL || word == NULL) {
        json_decref(rep);
        json_decref(word);
        return NULL;
    }
    const char *end = thue_round_end_name(ri->end);
    /* "o" steals rep and word, also when packing fails. */
    return json_pack("{s:i,s:i,s:s,s:o,s:o}", "builder", ri->builder, "points", ri->points, "end",
                     end ? end : "playing", "repetition", rep, "word", word);
}

/* The rounds column: the two round objects as a JSON array. NULL when out of memory. */
static char *rounds_text(const thue_round_info rounds[2])
{
    json_t *arr = json_array();
    for (int r = 0; arr && r < 2; r++) {
        if (json_array_append_new(arr, round_json(&rounds[r])) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    char *text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
    json_decref(arr);
    return text;
}

static int insert_match_row(thue__db *d, const thue_match_row *m, const char *rounds)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_MATCH_INSERT];
    const thue_room_options *o = &m->opt;
    sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->room, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, m->number);
    sqlite3_bind_text(st, 4, thue_variant_name(o->variant), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, o->k);
    sqlite3_bind_int(st, 6, o->limit);
    if (o->clock.present) {
        sqlite3_bind_int64(st, 7, o->clock.initial_ms);
        sqlite3_bind_int64(st, 8, o->clock.increment_ms);
    } else {
        sqlite3_bind_null(st, 7);
        sqlite3_bind_null(st, 8);
    }
    sqlite3_bind_int(st, 9, o->rated != 0); /* the room's option; m->rated: ratings given */
    sqlite3_bind_int(st, 10, o->is_private != 0);
    sqlite3_bind_text(st, 11, thue_first_builder_name(o->first), -1, SQLITE_STATIC);
    for (int p = 0; p < 2; p++) {
        int c = 12 + 4 * p;
        sqlite3_bind_text(st, c, m->players[p].name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, c + 1, thue_player_kind_name(m->players[p].kind), -1, SQLITE_STATIC);
        if (m->accounts[p] > 0)
            sqlite3_bind_int64(st, c + 2, m->accounts[p]);
        else
            sqlite3_bind_null(st, c + 2);
        bind_text_or_null(st, c + 3, m->bots[p]);
    }
    if (m->winner >= 0)
        sqlite3_bind_int(st, 20, m->winner);
    else
        sqlite3_bind_null(st, 20);
    int game = o->has_game != 0;
    sqlite3_bind_text(st, 21, game ? m->why : thue_end_reason_name(m->reason), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 22, m->points[0]);
    sqlite3_bind_int(st, 23, m->points[1]);
    sqlite3_bind_text(st, 24, rounds, -1, SQLITE_STATIC);
    for (int p = 0; p < 2; p++) {
        const thue_rating_change *c = &m->changes[p];
        const double v[4] = {c->before, c->after, c->rd_before, c->rd_after};
        for (int i = 0; i < 4; i++) {
            if (m->rated)
                sqlite3_bind_double(st, 25 + 4 * p + i, v[i]);
            else
                sqlite3_bind_null(st, 25 + 4 * p + i);
        }
    }
    sqlite3_bind_int64(st, 33, m->started_ms);
    sqlite3_bind_int64(st, 34, m->ended_ms);
    if (m->tournament[0]) {
        sqlite3_bind_text(st, 35, m->tournament, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 36, m->tournament_round);
    } else {
        sqlite3_bind_null(st, 35);
        sqlite3_bind_null(st, 36);
    }
    sqlite3_bind_text(st, 37, game ? o->game : "thue", -1, SQLITE_STATIC);
    if (game) {
        bind_text_or_null(st, 38, o->game_options);
        sqlite3_bind_int(st, 39, m->gfirst);
        bind_text_or_null(st, 40, m->start_state);
        bind_text_or_null(st, 41, m->final_state);
    } else {
        for (int c = 38; c <= 41; c++)
            sqlite3_bind_null(st, c);
    }
    int rc = sqlite3_step(st);
    int err = 0;
    if (rc != SQLITE_DONE) {
        char what[96];
        snprintf(what, sizeof what, "cannot insert match %s", m->id);
        err = thue__db_fail(d, what);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return err;
}

static int insert_move(thue__db *d, const char *match, const thue_move_row *mv)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_MOVE_INSERT];
    sqlite3_bind_text(st, 1, match, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, mv->round);
    sqlite3_bind_int(st, 3, mv->ply);
    sqlite3_bind_int(st, 4, mv->seat);
    sqlite3_bind_int(st, 5, mv->is_paint != 0);
    sqlite3_bind_int(st, 6, mv->value);
    sqlite3_bind_double(st, 7, mv->think_ms);
    bind_text_or_null(st, 8, mv->gmove);
    int rc = sqlite3_step(st);
    int err = 0;
    if (rc != SQLITE_DONE) {
        char what[96];
        snprintf(what, sizeof what, "cannot insert a move of match %s", match);
        err = thue__db_fail(d, what);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return err;
}

static int upsert_rating(thue__db *d, const thue_rating_row *r)
{
    sqlite3_stmt *st = d->stmt[THUE__STMT_RATING_UPSERT];
    sqlite3_bind_int64(st, 1, r->account);
    sqlite3_bind_text(st, 2, r->game, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->pool, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, r->rating);
    sqlite3_bind_double(st, 5, r->rd);
    sqlite3_bind_double(st, 6, r->vol);
    sqlite3_bind_int(st, 7, r->games);
    sqlite3_bind_int(st, 8, r->wins);
    sqlite3_bind_int(st, 9, r->draws);
    sqlite3_bind_int(st, 10, r->losses);
    int rc = sqlite3_step(st);
    int err = 0;
    if (rc != SQLITE_DONE) {
        char what[96];
        snprintf(what, sizeof what, "cannot save the rating of account %lld",
                 (long long)r->account);
        err = thue__db_fail(d, what);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return err;
}

int thue__db_save_match(thue__db *d, const thue_match_row *m, int crash)
{
    /* Another game has no rounds: an empty array keeps the column's NOT NULL. */
    char *rounds = m->opt.has_game ? strdup("[]") : rounds_text(m->rounds);
    if (rounds == NULL) {
        thue_log(THUE_LOG_ERROR, "store: out of memory saving match %s", m->id);
        return THUE_ENOMEM;
    }
    int err = thue__db_begin(d, 1);
    if (err == 0)
        err = insert_match_row(d, m, rounds);
    /* The crash test's point is half-way through the moves: the match row and some moves
     * are written, not committed. */
    int half = m->nmoves / 2;
    for (int i = 0; err == 0 && i < m->nmoves; i++) {
        if (i == half)
            thue__crash_point(crash);
        err = insert_move(d, m->id, &m->moves[i]);
    }
    if (m->nmoves == 0)
        thue__crash_point(crash);
    /* The ratings of a rated match's accounts (a seat without an account has none). */
    for (int p = 0; err == 0 && m->rated && p < 2; p++)
        if (m->ratings[p].account > 0)
            err = upsert_rating(d, &m->ratings[p]);
    free(rounds);
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    return thue__db_commit(d);
}

int thue__db_save_tournament(thue__db *d, const char *id, const char *state_json, int finished,
                             int64_t updated_ms, int crash)
{
    int err = thue__db_begin(d, 1);
    if (err)
        return err;
    sqlite3_stmt *st = d->stmt[THUE__STMT_TOURNAMENT_UPSERT];
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, state_json, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, finished != 0);
    sqlite3_bind_int64(st, 4, updated_ms);
    if (sqlite3_step(st) != SQLITE_DONE) {
        char what[96];
        snprintf(what, sizeof what, "cannot save tournament %s", id);
        err = thue__db_fail(d, what);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    thue__crash_point(crash);
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    return thue__db_commit(d);
}

int thue__db_tournament_game(thue__db *d, const char *tournament, int round, const char *first,
                             const char *second, int *winner)
{
    static const char sql[] = "SELECT winner FROM matches WHERE tournament = ?1 AND "
                              "tournament_round = ?2 AND name0 = ?3 AND name1 = ?4 "
                              "ORDER BY ended_ms DESC LIMIT 1";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        return thue__db_fail(d, "cannot look up a tournament game");
    sqlite3_bind_text(st, 1, tournament, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, round);
    sqlite3_bind_text(st, 3, first, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, second, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st), found = 0;
    if (rc == SQLITE_ROW) {
        *winner = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 0);
        found = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return thue__db_fail(d, "cannot look up a tournament game");
    return found;
}
