/*
 * store_db.c: the store's work on its database (store.h), on either engine: the
 * statements' SQL, opening (sql_sqlite.c or sql_pg.c by the path), the transactions and
 * group commit's savepoints, the start-up load and the three writes. Everything here
 * goes through sql.h's statement layer; the statements' SQL is SQLite's, which
 * PostgreSQL runs too (?N as $N), except where pg_sql gives PostgreSQL's own. The schemas
 * and migrations are each engine's (sql_sqlite.c, sql_pg.c: the same versions).
 *
 * Enumerations are stored as their wire names (PROTOCOL.md keeps them stable), except
 * accounts.kind, the thue_player_kind number (1 account, 2 bot). Names compare ignoring
 * ASCII case: accounts through name_key (the ASCII-lowercased name, UNIQUE, written
 * here), matches through the ASCII-lowercased name the reads bind (thue__name_key),
 * compared with name0/name1 declared COLLATE NOCASE on SQLite (NOCASE folds ASCII only)
 * and with the generated name0_key/name1_key on PostgreSQL.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/errors.h"
#include "ladder/glicko2.h"
#include "log.h"
#include "strbuf.h"
#include "store/sql.h"
#include "store/store_internal.h"

/* The statements of thue__stmt, in its order: SQLite's text, which PostgreSQL also runs
 * (with $N for ?N) unless pg_sql below has its own. */
static const char *const stmt_sql[THUE__STMT_COUNT] = {
    [THUE__STMT_BEGIN] = "BEGIN",
    [THUE__STMT_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [THUE__STMT_COMMIT] = "COMMIT",
    [THUE__STMT_ROLLBACK] = "ROLLBACK",
    [THUE__STMT_SAVEPOINT] = "SAVEPOINT job",
    [THUE__STMT_RELEASE] = "RELEASE job",
    [THUE__STMT_ROLLBACK_TO] = "ROLLBACK TO job",
    /* A NULL id is the next one (SQLite's rowid: the largest + 1). A taken name inserts
     * nothing and returns no row (thue__db_add_account then looks at who has it); a taken
     * id fails. */
    [THUE__STMT_ACCOUNT_INSERT] =
        "INSERT INTO accounts (id, name, name_key, kind, bot, token_hash, created_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (name_key) DO NOTHING RETURNING id",
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
    /* Fenced (several nodes: the lease, store.h): an existing row is replaced only by the
     * node that holds it with the same fence; otherwise no row comes back. */
    [THUE__STMT_TOURNAMENT_UPSERT] =
        "INSERT INTO tournaments (id, state, finished, updated_ms, node, fence, lease_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) DO UPDATE SET state = "
        "excluded.state, finished = excluded.finished, updated_ms = excluded.updated_ms, "
        "lease_ms = max(tournaments.lease_ms, excluded.lease_ms) WHERE tournaments.node = "
        "excluded.node AND tournaments.fence = excluded.fence RETURNING id",
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
    /* THUE__MOVES_BATCH moves in one statement: one round trip to PostgreSQL, not 16. */
    [THUE__STMT_MOVES_INSERT_BATCH] =
        "INSERT INTO moves (match, round, ply, seat, is_paint, value, think_ms, move) VALUES "
        "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8), (?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16), "
        "(?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24), (?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32), "
        "(?33, ?34, ?35, ?36, ?37, ?38, ?39, ?40), (?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48), "
        "(?49, ?50, ?51, ?52, ?53, ?54, ?55, ?56), (?57, ?58, ?59, ?60, ?61, ?62, ?63, ?64), "
        "(?65, ?66, ?67, ?68, ?69, ?70, ?71, ?72), (?73, ?74, ?75, ?76, ?77, ?78, ?79, ?80), "
        "(?81, ?82, ?83, ?84, ?85, ?86, ?87, ?88), (?89, ?90, ?91, ?92, ?93, ?94, ?95, ?96), "
        "(?97, ?98, ?99, ?100, ?101, ?102, ?103, ?104), "
        "(?105, ?106, ?107, ?108, ?109, ?110, ?111, ?112), "
        "(?113, ?114, ?115, ?116, ?117, ?118, ?119, ?120), "
        "(?121, ?122, ?123, ?124, ?125, ?126, ?127, ?128)",
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
    [THUE__STMT_ACCOUNT_FIND] =
        "SELECT id, kind, bot, token_hash, name FROM accounts WHERE name_key = ?1",
    [THUE__STMT_TOURNAMENT_GAME] = "SELECT winner FROM matches WHERE tournament = ?1 AND "
                                   "tournament_round = ?2 AND name0 = ?3 AND name1 = ?4 "
                                   "ORDER BY ended_ms DESC LIMIT 1",
    /* SQLite's BEGIN IMMEDIATE already serializes the writers. */
    [THUE__STMT_WRITE_LOCK] = "SELECT 1",
    [THUE__STMT_PASSWORD_GET] = "SELECT password_hash FROM accounts WHERE id = ?1 AND kind = 1",
    /* Compare and set: a row whose hash changed since it was read (two set_password at
     * once, on one node or two) is left alone and returns no row. */
    [THUE__STMT_PASSWORD_SET] = "UPDATE accounts SET password_hash = ?2 WHERE id = ?1 AND "
                                "kind = 1 AND password_hash IS ?3 RETURNING id",
    [THUE__STMT_TOKEN_INSERT] =
        "INSERT INTO account_tokens (token_hash, account, created_ms) VALUES (?1, ?2, ?3) "
        "ON CONFLICT (token_hash) DO NOTHING",
    [THUE__STMT_TOKEN_LOAD] = "SELECT account, token_hash FROM account_tokens ORDER BY account",
    /* The leases of tournaments (several nodes): a node's renewal, and the taking over
     * of one tournament whose lease ran out (its fence goes up by one). */
    [THUE__STMT_LEASE_RENEW] = "UPDATE tournaments SET lease_ms = ?2 WHERE node = ?1 AND "
                               "finished = 0 RETURNING id, fence",
    [THUE__STMT_LEASE_TAKE] =
        "UPDATE tournaments SET node = ?1, fence = fence + 1, lease_ms = ?2 WHERE id = (SELECT "
        "id FROM tournaments WHERE finished = 0 AND lease_ms < ?3 AND node <> ?1 ORDER BY "
        "lease_ms, id LIMIT 1) RETURNING id, state, fence",
    [THUE__STMT_TOURNAMENT_MATCHES] = "SELECT tournament_round, name0, name1, winner FROM "
                                      "matches WHERE tournament = ?1 ORDER BY ended_ms, id",
    [THUE__STMT_REVIEW_PUT] = "INSERT INTO reviews (match, review, created_ms) VALUES (?1, ?2, ?3) "
                              "ON CONFLICT (match) DO UPDATE SET review = excluded.review, "
                              "created_ms = excluded.created_ms",
    [THUE__STMT_REVIEW_GET] = "SELECT review FROM reviews WHERE match = ?1",
    /* Puzzles (schema 7): a position already stored is left, and returns no id. */
    [THUE__STMT_PUZZLE_INSERT] =
        "INSERT INTO puzzles (game, options, position, to_move, solution, value, moves, plies, "
        "difficulty, source, created_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
        "ON CONFLICT (game, options, position) DO NOTHING RETURNING id",
    [THUE__STMT_PUZZLE_COUNTS] = "SELECT game, count(*) FROM puzzles GROUP BY game ORDER BY game",
    [THUE__STMT_PUZZLE_COUNT] = "SELECT count(*) FROM puzzles WHERE game = ?1 AND created_ms < ?2",
    [THUE__STMT_PUZZLE_PAGE] =
        "SELECT id, game, options, position, to_move, solution, value, moves, plies, difficulty, "
        "source, created_ms FROM puzzles WHERE game = ?1 AND created_ms < ?2 ORDER BY id "
        "LIMIT ?3 OFFSET ?4",
    [THUE__STMT_PUZZLE_GET] =
        "SELECT id, game, options, position, to_move, solution, value, moves, plies, difficulty, "
        "source, created_ms FROM puzzles WHERE id = ?1",
    [THUE__STMT_RATING_GET] = "SELECT rating, rd, vol, games, wins, draws, losses, seq FROM ratings "
                              "WHERE account = ?1 AND game = ?2 AND pool = ?3",
    /* Rated matches (their ratings written) of two accounts, either seat, since a time,
     * counted up to ?4 (the limit): two ranges of the partial index matches_pair. */
    [THUE__STMT_PAIR_COUNT] =
        "SELECT (SELECT count(*) FROM (SELECT 1 FROM matches WHERE account0 = ?1 AND "
        "account1 = ?2 AND ended_ms > ?3 AND rating0_after IS NOT NULL LIMIT ?4) AS a) + "
        "(SELECT count(*) FROM (SELECT 1 FROM matches WHERE account0 = ?2 AND account1 = ?1 "
        "AND ended_ms > ?3 AND rating0_after IS NOT NULL LIMIT ?4) AS b)",
    [THUE__STMT_CHANGES_MAX] =
        "SELECT max((SELECT COALESCE(max(seq), 0) FROM accounts), (SELECT COALESCE(max(seq), 0) "
        "FROM ratings), (SELECT COALESCE(max(seq), 0) FROM account_tokens))",
    [THUE__STMT_CHANGES_ACCOUNTS] =
        "SELECT id, name, kind, bot, token_hash, seq FROM accounts WHERE seq > ?1 ORDER BY seq",
    [THUE__STMT_CHANGES_TOKENS] =
        "SELECT t.account, a.name, t.token_hash, t.seq FROM account_tokens t JOIN accounts a ON "
        "a.id = t.account WHERE t.seq > ?1 ORDER BY t.seq",
    [THUE__STMT_CHANGES_RATINGS] =
        "SELECT r.account, a.name, r.game, r.pool, r.rating, r.rd, r.vol, r.games, r.wins, "
        "r.draws, r.losses, r.seq FROM ratings r JOIN accounts a ON a.id = r.account WHERE "
        "r.seq > ?1 ORDER BY r.seq",
};

/*
 * PostgreSQL's own text where the dialects differ: no BEGIN IMMEDIATE (a write takes its
 * row locks as it goes; the reads see one snapshot), the name keys instead of NOCASE
 * (sql_pg.c's generated columns), a parameter compared with 0 first typed BIGINT (PostgreSQL types a
 * parameter by its first use), and the changes: every write of an account, a token or a
 * rating takes the changes lock first (one advisory lock, held to the commit) and stamps
 * its row with the next change number. Under the lock, the next account id (the max + 1,
 * read under READ COMMITTED after the lock: it sees every id committed before) and a
 * rating read before its update are the latest, whichever server wrote them; and change
 * numbers commit in their order, so a server that has read every row up to number N
 * has missed none below it (thue__db_changes).
 */
static const char *const pg_sql[THUE__STMT_COUNT] = {
    [THUE__STMT_BEGIN] = "BEGIN ISOLATION LEVEL REPEATABLE READ",
    [THUE__STMT_BEGIN_WRITE] = "BEGIN",
    [THUE__STMT_ACCOUNT_INSERT] =
        "INSERT INTO accounts (id, name, name_key, kind, bot, token_hash, created_ms, seq) "
        "VALUES (COALESCE($1, (SELECT COALESCE(max(id), 0) + 1 FROM accounts)), $2, $3, $4, "
        "$5, $6, $7, nextval('thue_changes')) ON CONFLICT (name_key) DO NOTHING RETURNING id",
    [THUE__STMT_RATING_UPSERT] =
        "INSERT INTO ratings (account, game, pool, rating, rd, vol, games, wins, draws, losses, "
        "seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, nextval('thue_changes')) "
        "ON CONFLICT (account, game, pool) DO UPDATE SET rating = excluded.rating, "
        "rd = excluded.rd, vol = excluded.vol, games = excluded.games, wins = excluded.wins, "
        "draws = excluded.draws, losses = excluded.losses, seq = excluded.seq RETURNING seq",
    [THUE__STMT_TOKEN_INSERT] =
        "INSERT INTO account_tokens (token_hash, account, created_ms, seq) VALUES ($1, $2, $3, "
        "nextval('thue_changes')) ON CONFLICT (token_hash) DO NOTHING",
    [THUE__STMT_CHANGES_MAX] =
        "SELECT greatest((SELECT COALESCE(max(seq), 0) FROM accounts), (SELECT "
        "COALESCE(max(seq), 0) FROM ratings), (SELECT COALESCE(max(seq), 0) FROM "
        "account_tokens))",
    [THUE__STMT_CHANGES_ACCOUNTS] = "SELECT id, name, kind, bot, token_hash, seq FROM accounts "
                                    "WHERE seq > $1::BIGINT ORDER BY seq",
    [THUE__STMT_CHANGES_TOKENS] =
        "SELECT t.account, a.name, t.token_hash, t.seq FROM account_tokens t JOIN accounts a ON "
        "a.id = t.account WHERE t.seq > $1::BIGINT ORDER BY t.seq",
    [THUE__STMT_CHANGES_RATINGS] =
        "SELECT r.account, a.name, r.game, r.pool, r.rating, r.rd, r.vol, r.games, r.wins, "
        "r.draws, r.losses, r.seq FROM ratings r JOIN accounts a ON a.id = r.account WHERE "
        "r.seq > $1::BIGINT ORDER BY r.seq",
    [THUE__STMT_PLAYER_COUNT] =
        "SELECT count(*) FROM matches WHERE (name0_key = $1 OR name1_key = $1) AND "
        "(private = 0 OR $2::BIGINT < 0 OR ($2 > 0 AND (account0 = $2 OR account1 = $2))) "
        "AND ($3::TEXT IS NULL OR game = $3)",
    [THUE__STMT_PLAYER_PAGE] =
        "SELECT id, room, number, variant, k, rated, name0, kind0, name1, kind1, winner, "
        "reason, points0, points1, ended_ms, game, game_options FROM matches WHERE "
        "(name0_key = $1 OR name1_key = $1) AND "
        "(private = 0 OR $4::BIGINT < 0 OR ($4 > 0 AND (account0 = $4 OR account1 = $4))) "
        "AND ($5::TEXT IS NULL OR game = $5) "
        "ORDER BY ended_ms DESC, id DESC LIMIT $2 OFFSET $3",
    [THUE__STMT_MATCH_VISIBLE] =
        "SELECT 1 FROM matches WHERE id = $1 AND (private = 0 OR $2::BIGINT < 0 OR ($2 > 0 "
        "AND (account0 = $2 OR account1 = $2)))",
    [THUE__STMT_TOURNAMENT_GAME] = "SELECT winner FROM matches WHERE tournament = $1 AND "
                                   "tournament_round = $2 AND name0_key = $3 AND "
                                   "name1_key = $4 ORDER BY ended_ms DESC LIMIT 1",
    [THUE__STMT_WRITE_LOCK] = "SELECT pg_advisory_xact_lock(1953002853000002)",
    [THUE__STMT_TOURNAMENT_UPSERT] =
        "INSERT INTO tournaments (id, state, finished, updated_ms, node, fence, lease_ms) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO UPDATE SET state = "
        "excluded.state, finished = excluded.finished, updated_ms = excluded.updated_ms, "
        "lease_ms = greatest(tournaments.lease_ms, excluded.lease_ms) WHERE tournaments.node = "
        "excluded.node AND tournaments.fence = excluded.fence RETURNING id",
    /* Two nodes looking for a lapsed lease at once: one takes it, the other skips it. */
    [THUE__STMT_LEASE_TAKE] =
        "UPDATE tournaments SET node = $1, fence = fence + 1, lease_ms = $2 WHERE id = (SELECT "
        "id FROM tournaments WHERE finished = 0 AND lease_ms < $3 AND node <> $1 ORDER BY "
        "lease_ms, id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, state, fence",
    [THUE__STMT_PASSWORD_SET] = "UPDATE accounts SET password_hash = $2 WHERE id = $1 AND "
                                "kind = 1 AND password_hash IS NOT DISTINCT FROM $3::TEXT "
                                "RETURNING id",
};

const char *thue__stmt_sql(int pg, thue__stmt w)
{
    return pg && pg_sql[w] ? pg_sql[w] : stmt_sql[w];
}


/* ---- helpers ------------------------------------------------------------------------- */

int thue__db_fail(thue__db *d, const char *what)
{
    d->transient = d->pg ? thue__pg_transient(d) : thue__sqlite_transient(d);
    thue_log(THUE_LOG_ERROR, "store: %s: %s: %s", d->path, what, thue__sql_errmsg(d));
    return THUE_STORE_EIO;
}

void thue__crash_point(int crash)
{
    if (crash)
        _exit(99);
}

/* Steps a statement that returns no row, then resets it: 0, or THUE_STORE_EIO logged as
 * "cannot WHAT" (the engine's message is read before the reset). */
static int run(thue__db *d, thue__stmt which, const char *what)
{
    int err = 0;
    if (thue__sql_step(d, which) < 0)
        err = thue__db_fail(d, what);
    thue__sql_reset(d, which);
    return err;
}

void thue__name_key(const char *name, char *key, size_t size)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++) {
        char c = name[i];
        key[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    key[i] = '\0';
}

int thue__db_begin(thue__db *d, int write)
{
    if (d->batch && write)
        return run(d, THUE__STMT_SAVEPOINT, "cannot begin a savepoint");
    if (d->pg && thue__pg_ready(d) != 0)
        return THUE_STORE_EIO;
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
    /* After some errors (SQLITE_FULL, SQLITE_IOERR, ...) SQLite has rolled back already;
     * a lost PostgreSQL connection has nothing left to roll back. */
    if (!thue__sql_in_transaction(d))
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
    if (d->pg && thue__pg_ready(d) != 0)
        return THUE_STORE_EIO;
    int err = run(d, THUE__STMT_BEGIN_WRITE, "cannot begin a transaction");
    d->batch = err == 0;
    return err;
}

int thue__db_batch_alive(thue__db *d)
{
    /* 1: open and usable (PostgreSQL's failed transaction, 2, is not). */
    return d->batch && thue__sql_in_transaction(d) == 1;
}

int thue__db_batch_end(thue__db *d, int commit)
{
    int alive = thue__db_batch_alive(d);
    int open = d->batch && thue__sql_in_transaction(d);
    d->batch = 0;
    if (alive && commit) {
        int err = run(d, THUE__STMT_COMMIT, "cannot commit");
        if (err && thue__sql_in_transaction(d))
            run(d, THUE__STMT_ROLLBACK, "cannot roll back");
        return err;
    }
    if (open)
        run(d, THUE__STMT_ROLLBACK, "cannot roll back");
    return commit ? THUE_STORE_EIO : 0;
}

/* Copies a column's text into a fixed buffer (cut if the database holds a longer one). */
static void column_copy(thue__db *d, thue__stmt w, int col, char *out, size_t size)
{
    const char *t = thue__sql_column_text(d, w, col);
    snprintf(out, size, "%s", t ? t : "");
}

int thue__db_open(thue__db *d, const char *path, char *err, size_t errsize)
{
    memset(d, 0, sizeof *d);
    d->lock_fd = -1;
    if (err && errsize)
        err[0] = '\0';
    int pg = thue__pg_is_uri(path);
    /* A URI's password never reaches a message or the log. */
    d->path = pg ? thue__pg_safe_uri(path) : strdup(path);
    if (d->path == NULL) {
        thue_errf(err, errsize, "cannot open the database: out of memory");
        return THUE_ENOMEM;
    }
    int rc = pg ? thue__pg_open(d, path, err, errsize) : thue__sqlite_open(d, path, err, errsize);
    if (rc != 0) {
        thue__db_close(d);
        return THUE_STORE_EIO;
    }
    return 0;
}

void thue__db_close(thue__db *d)
{
    thue__pg_close(d);
    thue__sqlite_close(d);
    free(d->path);
    memset(d, 0, sizeof *d);
    d->lock_fd = -1;
}

/* ---- the start-up load ----------------------------------------------------------------- */

/* The token hash column into out[32]; zeros unless it holds 32 bytes. */
static void column_hash(thue__db *d, thue__stmt w, int col, unsigned char out[32])
{
    memset(out, 0, 32);
    if (d->pg) {
        unsigned char buf[32];
        if (thue__pg_column_blob(d, w, col, buf, 32) == 32)
            memcpy(out, buf, 32);
        return;
    }
    if (sqlite3_column_bytes(d->stmt[w], col) == 32)
        memcpy(out, sqlite3_column_blob(d->stmt[w], col), 32);
}

static int load_accounts(thue__db *d, void (*account)(void *, const thue_account_row *), void *ctx)
{
    const thue__stmt w = THUE__STMT_ACCOUNT_LOAD;
    int rc;
    while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        thue_account_row row;
        memset(&row, 0, sizeof row);
        row.id = thue__sql_column_int64(d, w, 0);
        column_copy(d, w, 1, row.name, sizeof row.name);
        row.kind = (thue_player_kind)thue__sql_column_int(d, w, 2);
        column_copy(d, w, 3, row.bot, sizeof row.bot);
        column_hash(d, w, 4, row.token_hash);
        row.created_ms = thue__sql_column_int64(d, w, 5);
        if (account)
            account(ctx, &row);
    }
    thue__sql_reset(d, w);
    return rc == THUE__SQL_DONE ? 0 : rc;
}

static int load_ratings(thue__db *d, void (*rating)(void *, const thue_rating_row *), void *ctx)
{
    const thue__stmt w = THUE__STMT_RATING_LOAD;
    int rc;
    while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        thue_rating_row row;
        memset(&row, 0, sizeof row);
        row.account = thue__sql_column_int64(d, w, 0);
        const char *game = thue__sql_column_text(d, w, 1);
        const char *pool = thue__sql_column_text(d, w, 2);
        if (game == NULL || pool == NULL || strlen(game) >= sizeof row.game ||
            strlen(pool) >= sizeof row.pool) {
            thue_log(THUE_LOG_WARN,
                     "store: %s: a rating of account %lld has no valid pool: skipped", d->path,
                     (long long)row.account);
            continue;
        }
        memcpy(row.game, game, strlen(game) + 1);
        memcpy(row.pool, pool, strlen(pool) + 1);
        row.rating = thue__sql_column_double(d, w, 3);
        row.rd = thue__sql_column_double(d, w, 4);
        row.vol = thue__sql_column_double(d, w, 5);
        row.games = thue__sql_column_int(d, w, 6);
        row.wins = thue__sql_column_int(d, w, 7);
        row.draws = thue__sql_column_int(d, w, 8);
        row.losses = thue__sql_column_int(d, w, 9);
        if (rating)
            rating(ctx, &row);
    }
    thue__sql_reset(d, w);
    return rc == THUE__SQL_DONE ? 0 : rc;
}

static int load_tournaments(thue__db *d, void (*tournament)(void *, const char *, const char *),
                            void *ctx)
{
    const thue__stmt w = THUE__STMT_TOURNAMENT_LOAD;
    int rc;
    while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        const char *id = thue__sql_column_text(d, w, 0);
        const char *state = thue__sql_column_text(d, w, 1);
        if (tournament && id && state)
            tournament(ctx, id, state);
    }
    thue__sql_reset(d, w);
    return rc == THUE__SQL_DONE ? 0 : rc;
}

int thue__db_load(thue__db *d, void (*account)(void *ctx, const thue_account_row *row),
                  void (*rating)(void *ctx, const thue_rating_row *row),
                  void (*tournament)(void *ctx, const char *id, const char *state_json), void *ctx,
                  char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
    if (thue__db_begin(d, 0) != 0) {
        thue_errf(err, errsize, "%s: cannot read: %s", d->path, thue__sql_errmsg(d));
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
    if (rc == 0) {
        /* Where following the other servers' changes starts: the load's snapshot. */
        what = "change numbers";
        rc = thue__sql_step(d, THUE__STMT_CHANGES_MAX);
        if (rc == THUE__SQL_ROW) {
            d->changes_seen = thue__sql_column_int64(d, THUE__STMT_CHANGES_MAX, 0);
            rc = 0;
        } else if (rc == THUE__SQL_DONE) {
            rc = THUE_STORE_EIO;
        }
        thue__sql_reset(d, THUE__STMT_CHANGES_MAX);
    }
    if (rc != 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "cannot read the %s", what);
        thue__db_fail(d, msg);
        thue_errf(err, errsize, "%s: cannot read the database: %s", d->path, thue__sql_errmsg(d));
        thue__db_rollback(d);
        return THUE_STORE_EIO;
    }
    if (thue__db_commit(d) != 0) {
        thue_errf(err, errsize, "%s: cannot read the database: %s", d->path, thue__sql_errmsg(d));
        return THUE_STORE_EIO;
    }
    return 0;
}

/* ---- writes ----------------------------------------------------------------------------- */

/* Binds text, or NULL for "". The text must live until the statement is reset. */
static void bind_text_or_null(thue__db *d, thue__stmt w, int i, const char *s)
{
    if (s && s[0])
        thue__sql_bind_text(d, w, i, s);
    else
        thue__sql_bind_null(d, w, i);
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The account holding key, compared with row: 1 with *id set when it is row's (whole: the
 * same name, kind, SPEC and token hash, and row's id unless row->id is 0; else: a bot of
 * the same SPEC), 0 when it is another or there is none, or THUE_STORE_EIO (logged). */
static int holder(thue__db *d, const char *key, const thue_account_row *row, int whole,
                  int64_t *id)
{
    const thue__stmt w = THUE__STMT_ACCOUNT_FIND;
    thue__sql_bind_text(d, w, 1, key);
    int rc = thue__sql_step(d, w), same = 0;
    if (rc == THUE__SQL_ROW) {
        const char *bot = thue__sql_column_text(d, w, 2);
        const char *name = thue__sql_column_text(d, w, 4);
        int64_t found = thue__sql_column_int64(d, w, 0);
        unsigned char hash[32];
        column_hash(d, w, 3, hash);
        int kind = thue__sql_column_int(d, w, 1);
        if (whole)
            same = kind == (int)row->kind && strcmp(bot ? bot : "", row->bot) == 0 &&
                   memcmp(hash, row->token_hash, 32) == 0 && name &&
                   strcmp(name, row->name) == 0 && (row->id <= 0 || found == row->id);
        else
            same = kind == THUE_KIND_BOT && bot && strcmp(bot, row->bot) == 0;
        if (same)
            *id = found;
    } else if (rc < 0) {
        same = thue__db_fail(d, "cannot look up an account");
    }
    thue__sql_reset(d, w);
    return same;
}

int thue__db_add_account(thue__db *d, const thue_account_row *row, int crash, int64_t *id)
{
    char key[sizeof row->name];
    thue__name_key(row->name, key, sizeof key);
    *id = 0;
    int err = thue__db_begin(d, 1);
    if (err)
        return err;
    const thue__stmt w = THUE__STMT_ACCOUNT_INSERT;
    /* Tried again after a COMMIT whose answer was lost: it may be in already. */
    if (d->commit_unknown) {
        int mine = holder(d, key, row, 1, id);
        if (mine != 0) {
            if (mine < 0)
                thue__db_rollback(d);
            return mine < 0 ? mine : thue__db_commit(d);
        }
    }
    /* The changes lock: the database picks the id, and PostgreSQL's servers take their
     * turns (a no-op on SQLite, whose BEGIN IMMEDIATE serializes the writers). */
    err = run(d, THUE__STMT_WRITE_LOCK, "cannot take the changes lock");
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    if (row->id > 0)
        thue__sql_bind_int64(d, w, 1, row->id);
    else
        thue__sql_bind_null(d, w, 1); /* the next id */
    thue__sql_bind_text(d, w, 2, row->name);
    thue__sql_bind_text(d, w, 3, key);
    thue__sql_bind_int(d, w, 4, (int)row->kind);
    bind_text_or_null(d, w, 5, row->bot);
    if (all_zero(row->token_hash, 32))
        thue__sql_bind_null(d, w, 6);
    else
        thue__sql_bind_blob(d, w, 6, row->token_hash, 32);
    thue__sql_bind_int64(d, w, 7, row->created_ms);
    int rc = thue__sql_step(d, w);
    if (rc == THUE__SQL_ROW)
        *id = thue__sql_column_int64(d, w, 0);
    else if (rc < 0)
        err = thue__db_fail(d, "cannot insert an account"); /* a taken id, or the engine */
    thue__sql_reset(d, w);
    if (rc == THUE__SQL_DONE) {
        /* The name is taken (ignoring ASCII case): an expected answer, not logged. A bot
         * added by the database's choice of id (row->id 0: several servers may each add
         * the same bot) whose name is already that bot's is there: its id is the answer. */
        err = THUE_STORE_EEXISTS;
        if (row->id <= 0 && row->kind == THUE_KIND_BOT) {
            int same = holder(d, key, row, 0, id);
            err = same == 1 ? 0 : same < 0 ? same : THUE_STORE_EEXISTS;
        }
    }
    thue__crash_point(crash);
    if (err) {
        *id = 0;
        thue__db_rollback(d);
        return err;
    }
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
    const thue__stmt w = THUE__STMT_MATCH_INSERT;
    const thue_room_options *o = &m->opt;
    thue__sql_bind_text(d, w, 1, m->id);
    thue__sql_bind_text(d, w, 2, m->room);
    thue__sql_bind_int(d, w, 3, m->number);
    thue__sql_bind_text(d, w, 4, thue_variant_name(o->variant));
    thue__sql_bind_int(d, w, 5, o->k);
    thue__sql_bind_int(d, w, 6, o->limit);
    if (o->clock.present) {
        thue__sql_bind_int64(d, w, 7, o->clock.initial_ms);
        thue__sql_bind_int64(d, w, 8, o->clock.increment_ms);
    } else {
        thue__sql_bind_null(d, w, 7);
        thue__sql_bind_null(d, w, 8);
    }
    thue__sql_bind_int(d, w, 9, o->rated != 0); /* the room's option; m->rated: ratings given */
    thue__sql_bind_int(d, w, 10, o->is_private != 0);
    thue__sql_bind_text(d, w, 11, thue_first_builder_name(o->first));
    for (int p = 0; p < 2; p++) {
        int c = 12 + 4 * p;
        thue__sql_bind_text(d, w, c, m->players[p].name);
        thue__sql_bind_text(d, w, c + 1, thue_player_kind_name(m->players[p].kind));
        if (m->accounts[p] > 0)
            thue__sql_bind_int64(d, w, c + 2, m->accounts[p]);
        else
            thue__sql_bind_null(d, w, c + 2);
        bind_text_or_null(d, w, c + 3, m->bots[p]);
    }
    if (m->winner >= 0)
        thue__sql_bind_int(d, w, 20, m->winner);
    else
        thue__sql_bind_null(d, w, 20);
    int game = o->has_game != 0;
    thue__sql_bind_text(d, w, 21, game ? m->why : thue_end_reason_name(m->reason));
    thue__sql_bind_int(d, w, 22, m->points[0]);
    thue__sql_bind_int(d, w, 23, m->points[1]);
    thue__sql_bind_text(d, w, 24, rounds);
    for (int p = 0; p < 2; p++) {
        const thue_rating_change *c = &m->changes[p];
        const double v[4] = {c->before, c->after, c->rd_before, c->rd_after};
        for (int i = 0; i < 4; i++) {
            if (m->rated)
                thue__sql_bind_double(d, w, 25 + 4 * p + i, v[i]);
            else
                thue__sql_bind_null(d, w, 25 + 4 * p + i);
        }
    }
    thue__sql_bind_int64(d, w, 33, m->started_ms);
    thue__sql_bind_int64(d, w, 34, m->ended_ms);
    if (m->tournament[0]) {
        thue__sql_bind_text(d, w, 35, m->tournament);
        thue__sql_bind_int(d, w, 36, m->tournament_round);
    } else {
        thue__sql_bind_null(d, w, 35);
        thue__sql_bind_null(d, w, 36);
    }
    thue__sql_bind_text(d, w, 37, game ? o->game : "thue");
    if (game) {
        bind_text_or_null(d, w, 38, o->game_options);
        thue__sql_bind_int(d, w, 39, m->gfirst);
        bind_text_or_null(d, w, 40, m->start_state);
        bind_text_or_null(d, w, 41, m->final_state);
    } else {
        for (int c = 38; c <= 41; c++)
            thue__sql_bind_null(d, w, c);
    }
    int rc = thue__sql_step(d, w);
    int err = 0;
    if (rc != THUE__SQL_DONE) {
        char what[96];
        snprintf(what, sizeof what, "cannot insert match %s", m->id);
        err = thue__db_fail(d, what);
    }
    thue__sql_reset(d, w);
    return err;
}

/* Binds one move as the 8 parameters from `at` (1-based) of statement w. */
static void bind_move(thue__db *d, thue__stmt w, int at, const char *match,
                      const thue_move_row *mv)
{
    thue__sql_bind_text(d, w, at, match);
    thue__sql_bind_int(d, w, at + 1, mv->round);
    thue__sql_bind_int(d, w, at + 2, mv->ply);
    thue__sql_bind_int(d, w, at + 3, mv->seat);
    thue__sql_bind_int(d, w, at + 4, mv->is_paint != 0);
    thue__sql_bind_int(d, w, at + 5, mv->value);
    thue__sql_bind_double(d, w, at + 6, mv->think_ms);
    bind_text_or_null(d, w, at + 7, mv->gmove);
}

/* Writes n moves (1, or THUE__MOVES_BATCH in one statement). */
static int insert_moves(thue__db *d, const char *match, const thue_move_row *mv, int n)
{
    const thue__stmt w = n == 1 ? THUE__STMT_MOVE_INSERT : THUE__STMT_MOVES_INSERT_BATCH;
    for (int i = 0; i < n; i++)
        bind_move(d, w, 1 + 8 * i, match, &mv[i]);
    int rc = thue__sql_step(d, w);
    int err = 0;
    if (rc != THUE__SQL_DONE) {
        char what[96];
        snprintf(what, sizeof what, "cannot insert a move of match %s", match);
        err = thue__db_fail(d, what);
    }
    thue__sql_reset(d, w);
    return err;
}

static int upsert_rating(thue__db *d, thue_rating_row *r)
{
    const thue__stmt w = THUE__STMT_RATING_UPSERT;
    thue__sql_bind_int64(d, w, 1, r->account);
    thue__sql_bind_text(d, w, 2, r->game);
    thue__sql_bind_text(d, w, 3, r->pool);
    thue__sql_bind_double(d, w, 4, r->rating);
    thue__sql_bind_double(d, w, 5, r->rd);
    thue__sql_bind_double(d, w, 6, r->vol);
    thue__sql_bind_int(d, w, 7, r->games);
    thue__sql_bind_int(d, w, 8, r->wins);
    thue__sql_bind_int(d, w, 9, r->draws);
    thue__sql_bind_int(d, w, 10, r->losses);
    int rc = thue__sql_step(d, w);
    int err = 0;
    r->seq = 0;
    if (rc == THUE__SQL_ROW) { /* PostgreSQL's RETURNING seq */
        r->seq = thue__sql_column_int64(d, w, 0);
        rc = THUE__SQL_DONE;
    }
    if (rc != THUE__SQL_DONE) {
        char what[96];
        snprintf(what, sizeof what, "cannot save the rating of account %lld",
                 (long long)r->account);
        err = thue__db_fail(d, what);
    }
    thue__sql_reset(d, w);
    return err;
}

/* The current rating of row's account and pool into row (a newcomer's when it has none):
 * 0 or THUE_STORE_EIO (logged). */
static int read_rating(thue__db *d, thue_rating_row *row)
{
    const thue__stmt w = THUE__STMT_RATING_GET;
    thue__sql_bind_int64(d, w, 1, row->account);
    thue__sql_bind_text(d, w, 2, row->game);
    thue__sql_bind_text(d, w, 3, row->pool);
    int rc = thue__sql_step(d, w), err = 0;
    if (rc == THUE__SQL_ROW) {
        row->rating = thue__sql_column_double(d, w, 0);
        row->rd = thue__sql_column_double(d, w, 1);
        row->vol = thue__sql_column_double(d, w, 2);
        row->games = thue__sql_column_int(d, w, 3);
        row->wins = thue__sql_column_int(d, w, 4);
        row->draws = thue__sql_column_int(d, w, 5);
        row->losses = thue__sql_column_int(d, w, 6);
        row->seq = thue__sql_column_int64(d, w, 7);
    } else if (rc == THUE__SQL_DONE) {
        row->rating = THUE_GLICKO_INITIAL_RATING;
        row->rd = THUE_GLICKO_INITIAL_RD;
        row->vol = THUE_GLICKO_INITIAL_VOL;
        row->games = row->wins = row->draws = row->losses = 0;
        row->seq = 0;
    } else {
        err = thue__db_fail(d, "cannot read a rating");
    }
    thue__sql_reset(d, w);
    return err;
}

/* How many rated matches the two accounts have played since `since` (ms), counted up to
 * max (each seat order): >= 0, or THUE_STORE_EIO (logged). */
static int pair_count(thue__db *d, int64_t a, int64_t b, int64_t since, int max)
{
    const thue__stmt w = THUE__STMT_PAIR_COUNT;
    thue__sql_bind_int64(d, w, 1, a);
    thue__sql_bind_int64(d, w, 2, b);
    thue__sql_bind_int64(d, w, 3, since);
    thue__sql_bind_int64(d, w, 4, max);
    int rc = thue__sql_step(d, w);
    int n = rc == THUE__SQL_ROW ? (int)thue__sql_column_int64(d, w, 0)
                                : thue__db_fail(d, "cannot count a pair's rated matches");
    thue__sql_reset(d, w);
    return n;
}

/*
 * Rates m inside its transaction (m->rate), under the changes lock: the pair limit
 * counted in the database, then the two current ratings read, the result applied
 * (Glicko-2, each against the other's rating before) and written into m, whose match
 * row and rating upserts follow in the same transaction. A result Glicko refuses (values
 * out of its domain) leaves the match unrated. 0 or THUE_STORE_EIO.
 */
static int rate_match(thue__db *d, thue_match_row *m)
{
    m->rated = 0;
    m->pair_limited = 0;
    int err = run(d, THUE__STMT_WRITE_LOCK, "cannot take the changes lock");
    if (err)
        return err;
    if (m->pair_max > 0) {
        int n = pair_count(d, m->ratings[0].account, m->ratings[1].account,
                           m->ended_ms - m->pair_window_ms, m->pair_max);
        if (n < 0)
            return n;
        if (n >= m->pair_max) {
            m->pair_limited = 1;
            return 0;
        }
    }
    thue_glicko before[2], after[2];
    for (int p = 0; p < 2; p++) {
        if ((err = read_rating(d, &m->ratings[p])) != 0)
            return err;
        before[p] = (thue_glicko){m->ratings[p].rating, m->ratings[p].rd, m->ratings[p].vol};
    }
    double s0 = m->winner == 0 ? 1 : m->winner == 1 ? 0 : 0.5;
    if (thue_glicko_match(&before[0], &before[1], s0, m->tau, &after[0], &after[1]) != 0) {
        thue_log(THUE_LOG_ERROR, "store: %s: match %s: the ratings cannot be updated "
                 "(out of Glicko-2's domain): stored unrated", d->path, m->id);
        return 0;
    }
    for (int p = 0; p < 2; p++) {
        /* A rating and its deviation are kept to 1e-9 (at most 13 significant digits), so
         * that every text of them reads back as the same number: match_end's shortest
         * form and a stored record's 15 digits alike (PROTOCOL.md section 13). */
        after[p].rating = round(after[p].rating * 1e9) / 1e9;
        after[p].rd = round(after[p].rd * 1e9) / 1e9;
        thue_rating_row *r = &m->ratings[p];
        m->changes[p] = (thue_rating_change){before[p].rating, after[p].rating, before[p].rd,
                                             after[p].rd};
        r->rating = after[p].rating;
        r->rd = after[p].rd;
        r->vol = after[p].vol;
        r->games++;
        if (m->winner == p)
            r->wins++;
        else if (m->winner < 0)
            r->draws++;
        else
            r->losses++;
    }
    m->rated = 1;
    return 0;
}

/* A match found stored already after a lost COMMIT answer: what the store decided then,
 * read back into m (its changes from the row, its ratings as they are now). */
static int rated_before(thue__db *d, thue_match_row *m)
{
    const thue__stmt w = THUE__STMT_MATCH_GET;
    thue__sql_bind_text(d, w, 1, m->id);
    int rc = thue__sql_step(d, w), err = 0;
    m->rated = 0;
    m->pair_limited = 0;
    if (rc == THUE__SQL_ROW && !thue__sql_column_null(d, w, THUE__MC_RATINGS + 1)) {
        m->rated = 1;
        for (int p = 0; p < 2; p++) {
            int c = THUE__MC_RATINGS + 4 * p;
            m->changes[p] = (thue_rating_change){
                thue__sql_column_double(d, w, c), thue__sql_column_double(d, w, c + 1),
                thue__sql_column_double(d, w, c + 2), thue__sql_column_double(d, w, c + 3)};
        }
    } else if (rc < 0) {
        err = thue__db_fail(d, "cannot look up a match");
    }
    thue__sql_reset(d, w);
    for (int p = 0; err == 0 && m->rated && p < 2; p++)
        err = read_rating(d, &m->ratings[p]);
    return err;
}

/* Whether match m is stored already (its id with the same room, number and end): 1, 0,
 * or THUE_STORE_EIO (logged). Match ids are random: the same id with the same room,
 * number and end is the same match. */
static int match_saved(thue__db *d, const thue_match_row *m)
{
    const thue__stmt w = THUE__STMT_MATCH_GET;
    thue__sql_bind_text(d, w, 1, m->id);
    int rc = thue__sql_step(d, w), saved = 0;
    if (rc == THUE__SQL_ROW) {
        const char *room = thue__sql_column_text(d, w, THUE__MC_ROOM);
        saved = room && strcmp(room, m->room) == 0 &&
                thue__sql_column_int(d, w, THUE__MC_NUMBER) == m->number &&
                thue__sql_column_int64(d, w, THUE__MC_ENDED) == m->ended_ms;
    } else if (rc < 0) {
        saved = thue__db_fail(d, "cannot look up a match");
    }
    thue__sql_reset(d, w);
    return saved;
}

int thue__db_save_match(thue__db *d, thue_match_row *m, int crash)
{
    /* Another game has no rounds: an empty array keeps the column's NOT NULL. */
    char *rounds = m->opt.has_game ? strdup("[]") : rounds_text(m->rounds);
    if (rounds == NULL) {
        thue_log(THUE_LOG_ERROR, "store: out of memory saving match %s", m->id);
        return THUE_ENOMEM;
    }
    int err = thue__db_begin(d, 1);
    /* Tried again after a COMMIT whose answer was lost: it may be in already. */
    int saved = err == 0 && d->commit_unknown ? match_saved(d, m) : 0;
    if (saved > 0 && m->rate)
        saved = rated_before(d, m) < 0 ? THUE_STORE_EIO : 1;
    if (saved != 0) {
        free(rounds);
        if (saved < 0)
            thue__db_rollback(d);
        return saved < 0 ? saved : thue__db_commit(d);
    }
    /* Ratings given by the caller: the changes lock, as for every write of a rating. */
    if (err == 0 && (m->rate || m->rated))
        err = m->rate ? rate_match(d, m) : run(d, THUE__STMT_WRITE_LOCK, "cannot take the changes lock");
    if (err == 0)
        err = insert_match_row(d, m, rounds);
    /* The crash test's point is half-way through the moves: the match row and some moves
     * are written, not committed (the batch or move that holds the half comes after it). */
    int half = m->nmoves / 2;
    for (int i = 0, n; err == 0 && i < m->nmoves; i += n) {
        n = m->nmoves - i >= THUE__MOVES_BATCH ? THUE__MOVES_BATCH : 1;
        if (i <= half && half < i + n)
            thue__crash_point(crash);
        err = insert_moves(d, m->id, &m->moves[i], n);
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

int thue__db_save_tournament(thue__db *d, const thue__tournament_save *t, int crash)
{
    int err = thue__db_begin(d, 1);
    if (err)
        return err;
    const thue__stmt w = THUE__STMT_TOURNAMENT_UPSERT;
    thue__sql_bind_text(d, w, 1, t->id);
    thue__sql_bind_text(d, w, 2, t->state);
    thue__sql_bind_int(d, w, 3, t->finished != 0);
    thue__sql_bind_int64(d, w, 4, t->updated_ms);
    thue__sql_bind_text(d, w, 5, t->node);
    thue__sql_bind_int64(d, w, 6, t->fence);
    thue__sql_bind_int64(d, w, 7, t->lease_ms);
    int rc = thue__sql_step(d, w);
    if (rc == THUE__SQL_DONE) {
        /* The row is another node's, or this one's under a newer fence: refused. */
        err = THUE_STORE_EFENCED;
    } else if (rc != THUE__SQL_ROW) {
        char what[96];
        snprintf(what, sizeof what, "cannot save tournament %s", t->id);
        err = thue__db_fail(d, what);
    }
    thue__sql_reset(d, w);
    thue__crash_point(crash);
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    return thue__db_commit(d);
}

/* Appends the rows of a lease statement's RETURNING (id, fence; LEASE_TAKE: id, state,
 * fence) to arr as objects, with the tournament's stored matches for a taken one. */
static int lease_rows(thue__db *d, thue__stmt w, json_t *arr, int taken)
{
    int rc;
    while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        const char *id = thue__sql_column_text(d, w, 0);
        json_t *o = taken ? json_pack("{s:s, s:s, s:I}", "id", id ? id : "", "state",
                                      thue__sql_column_text(d, w, 1) ? thue__sql_column_text(d, w, 1) : "",
                                      "fence", (json_int_t)thue__sql_column_int64(d, w, 2))
                          : json_pack("{s:s, s:I}", "id", id ? id : "", "fence",
                                      (json_int_t)thue__sql_column_int64(d, w, 1));
        if (json_array_append_new(arr, o) != 0) {
            rc = THUE_ENOMEM;
            break;
        }
    }
    thue__sql_reset(d, w);
    if (rc != THUE__SQL_DONE || !taken)
        return rc;
    /* A taken tournament's stored games: results its old director may not have saved. */
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        const thue__stmt m = THUE__STMT_TOURNAMENT_MATCHES;
        json_t *games = json_array();
        thue__sql_bind_text(d, m, 1, json_string_value(json_object_get(o, "id")));
        while (games != NULL && (rc = thue__sql_step(d, m)) == THUE__SQL_ROW)
            json_array_append_new(
                games, json_pack("[I, s, s, I]", (json_int_t)thue__sql_column_int64(d, m, 0),
                                 thue__sql_column_text(d, m, 1), thue__sql_column_text(d, m, 2),
                                 thue__sql_column_null(d, m, 3)
                                     ? (json_int_t)-1
                                     : (json_int_t)thue__sql_column_int64(d, m, 3)));
        thue__sql_reset(d, m);
        if (games == NULL)
            rc = THUE_ENOMEM;
        json_object_set_new(o, "games", games);
        if (rc != THUE__SQL_DONE)
            return rc;
    }
    return rc;
}

void thue__db_leases(thue__db *d, const char *node, int64_t now_ms, int64_t lease_ms,
                     thue__text *out)
{
    json_t *renewed = json_array(), *taken = json_array();
    int err = renewed && taken ? thue__db_begin(d, 1) : THUE_ENOMEM;
    int rc = THUE__SQL_DONE;
    if (err == 0) {
        thue__sql_bind_text(d, THUE__STMT_LEASE_RENEW, 1, node);
        thue__sql_bind_int64(d, THUE__STMT_LEASE_RENEW, 2, now_ms + lease_ms);
        rc = lease_rows(d, THUE__STMT_LEASE_RENEW, renewed, 0);
    }
    if (err == 0 && rc == THUE__SQL_DONE) {
        thue__sql_bind_text(d, THUE__STMT_LEASE_TAKE, 1, node);
        thue__sql_bind_int64(d, THUE__STMT_LEASE_TAKE, 2, now_ms + lease_ms);
        thue__sql_bind_int64(d, THUE__STMT_LEASE_TAKE, 3, now_ms);
        rc = lease_rows(d, THUE__STMT_LEASE_TAKE, taken, 1);
    }
    if (err == 0 && rc != THUE__SQL_DONE) {
        if (rc != THUE_ENOMEM)
            thue__db_fail(d, "cannot renew or take the tournaments' leases");
        thue__db_rollback(d);
        err = THUE_STORE_EIO;
    }
    if (err == 0)
        err = thue__db_commit(d);
    char *text = NULL;
    if (err == 0) {
        json_t *o = json_pack("{s:o, s:o}", "renewed", renewed, "taken", taken);
        renewed = taken = NULL;
        text = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
    }
    json_decref(renewed);
    json_decref(taken);
    out->status = text ? 200 : 500;
    out->body = text;
    out->len = text ? strlen(text) : 0;
}

/* ---- passwords and login tokens (schema 4) ---------------------------------------------- */

/* The hash in the current transaction: 0 (out and *found set) or THUE_STORE_EIO. */
static int password_read(thue__db *d, int64_t account, char *out, size_t size, int *found)
{
    const thue__stmt w = THUE__STMT_PASSWORD_GET;
    out[0] = '\0';
    *found = 0;
    thue__sql_bind_int64(d, w, 1, account);
    int rc = thue__sql_step(d, w), err = 0;
    if (rc == THUE__SQL_ROW) {
        const char *h = thue__sql_column_text(d, w, 0);
        if (h != NULL && strlen(h) < size) {
            memcpy(out, h, strlen(h) + 1);
            *found = 1;
        }
    } else if (rc < 0) {
        err = thue__db_fail(d, "cannot read a password hash");
    }
    thue__sql_reset(d, w);
    return err;
}

int thue__db_password_get(thue__db *d, int64_t account, char *out, size_t size, int *found)
{
    out[0] = '\0';
    *found = 0;
    int err = thue__db_begin(d, 0);
    if (err)
        return err;
    err = password_read(d, account, out, size, found);
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    return thue__db_commit(d);
}

int thue__db_password_set(thue__db *d, int64_t account, const char *hash, const char *expect,
                          int crash, int64_t *updated)
{
    *updated = 0;
    int err = thue__db_begin(d, 1);
    if (err)
        return err;
    /* Tried again after a COMMIT whose answer was lost: the new hash may be in already. */
    if (d->commit_unknown) {
        char now[256];
        int found = 0;
        err = password_read(d, account, now, sizeof now, &found);
        if (err == 0 && found && strcmp(now, hash) == 0) {
            *updated = account;
            return thue__db_commit(d);
        }
        if (err) {
            thue__db_rollback(d);
            return err;
        }
    }
    const thue__stmt w = THUE__STMT_PASSWORD_SET;
    thue__sql_bind_int64(d, w, 1, account);
    thue__sql_bind_text(d, w, 2, hash);
    if (expect != NULL)
        thue__sql_bind_text(d, w, 3, expect);
    else
        thue__sql_bind_null(d, w, 3);
    int rc = thue__sql_step(d, w);
    if (rc == THUE__SQL_ROW)
        *updated = thue__sql_column_int64(d, w, 0);
    else if (rc < 0)
        err = thue__db_fail(d, "cannot set a password hash");
    thue__sql_reset(d, w);
    thue__crash_point(crash);
    if (err) {
        *updated = 0;
        thue__db_rollback(d);
        return err;
    }
    err = thue__db_commit(d);
    if (err)
        *updated = 0;
    return err;
}

int thue__db_add_token(thue__db *d, int64_t account, const unsigned char hash[32],
                       int64_t created_ms, int crash)
{
    int err = thue__db_begin(d, 1);
    if (err == 0)
        err = run(d, THUE__STMT_WRITE_LOCK, "cannot take the changes lock");
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    const thue__stmt w = THUE__STMT_TOKEN_INSERT;
    thue__sql_bind_blob(d, w, 1, hash, 32);
    thue__sql_bind_int64(d, w, 2, account);
    thue__sql_bind_int64(d, w, 3, created_ms);
    /* A taken hash (256 random bits) is this very token, written by an attempt whose
     * COMMIT's answer was lost: ON CONFLICT leaves it, and the job is done. */
    if (thue__sql_step(d, w) < 0)
        err = thue__db_fail(d, "cannot add a login token");
    thue__sql_reset(d, w);
    thue__crash_point(crash);
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    return thue__db_commit(d);
}

int thue__db_load_tokens(thue__db *d, void (*token)(void *ctx, int64_t account,
                                                    const unsigned char hash[32]),
                         void *ctx, char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
    if (thue__db_begin(d, 0) != 0) {
        thue_errf(err, errsize, "%s: cannot read: %s", d->path, thue__sql_errmsg(d));
        return THUE_STORE_EIO;
    }
    const thue__stmt w = THUE__STMT_TOKEN_LOAD;
    int rc;
    while ((rc = thue__sql_step(d, w)) == THUE__SQL_ROW) {
        unsigned char h[32];
        column_hash(d, w, 1, h);
        if (token)
            token(ctx, thue__sql_column_int64(d, w, 0), h);
    }
    if (rc != THUE__SQL_DONE) {
        thue__db_fail(d, "cannot read the login tokens");
        thue_errf(err, errsize, "%s: cannot read the login tokens: %s", d->path,
                  thue__sql_errmsg(d));
        thue__sql_reset(d, w);
        thue__db_rollback(d);
        return THUE_STORE_EIO;
    }
    thue__sql_reset(d, w);
    if (thue__db_commit(d) != 0) {
        thue_errf(err, errsize, "%s: cannot read the database: %s", d->path, thue__sql_errmsg(d));
        return THUE_STORE_EIO;
    }
    return 0;
}

int thue__db_tournament_game(thue__db *d, const char *tournament, int round, const char *first,
                             const char *second, int *winner)
{
    const thue__stmt w = THUE__STMT_TOURNAMENT_GAME;
    char k0[THUE_PROTO_NAME_MAX * 4 + 1], k1[THUE_PROTO_NAME_MAX * 4 + 1];
    thue__name_key(first, k0, sizeof k0);
    thue__name_key(second, k1, sizeof k1);
    if (d->pg && thue__pg_ready(d) != 0)
        return THUE_STORE_EIO;
    thue__sql_bind_text(d, w, 1, tournament);
    thue__sql_bind_int(d, w, 2, round);
    thue__sql_bind_text(d, w, 3, k0);
    thue__sql_bind_text(d, w, 4, k1);
    int rc = thue__sql_step(d, w), found = 0;
    if (rc == THUE__SQL_ROW) {
        *winner = thue__sql_column_null(d, w, 0) ? -1 : thue__sql_column_int(d, w, 0);
        found = 1;
    }
    int err = rc < 0 ? thue__db_fail(d, "cannot look up a tournament game") : 0;
    thue__sql_reset(d, w);
    return err ? err : found;
}

/* ---- reviews (schema 6) ---------------------------------------------------------------- */

int thue__db_save_review(thue__db *d, const char *id, const char *review, int64_t created_ms,
                         int crash)
{
    int err = thue__db_begin(d, 1);
    if (err)
        return err;
    thue__stmt e = THUE__STMT_MATCH_EXISTS;
    thue__sql_bind_text(d, e, 1, id);
    int rc = thue__sql_step(d, e);
    thue__sql_reset(d, e);
    if (rc != THUE__SQL_ROW) {
        err = rc == THUE__SQL_DONE ? THUE_EINVAL : thue__db_fail(d, "cannot read a match");
        thue__db_rollback(d);
        return err;
    }
    const thue__stmt w = THUE__STMT_REVIEW_PUT;
    thue__sql_bind_text(d, w, 1, id);
    thue__sql_bind_text(d, w, 2, review);
    thue__sql_bind_int64(d, w, 3, created_ms);
    if (thue__sql_step(d, w) < 0)
        err = thue__db_fail(d, "cannot save a review");
    thue__sql_reset(d, w);
    thue__crash_point(crash);
    if (err) {
        thue__db_rollback(d);
        return err;
    }
    return thue__db_commit(d);
}
