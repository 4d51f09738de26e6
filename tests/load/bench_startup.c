/*
 * bench_startup.c: thue-bench-startup, the time thue-server takes to load its accounts and
 * ratings at start-up, against the number of accounts (docs/bench.md, "Start-up").
 *
 * For each size N it writes a database of N accounts with R ratings each (straight into
 * SQLite, in one transaction, after the store has created the schema), then times what
 * thue-server does before it listens: thue_store_open (open and check the schema) and
 * thue_store_load into a fresh lobby. The smallest size is the baseline: the table gives,
 * for every size, the load time per account as a ratio to the baseline's, which stays
 * near 1 when loading is linear (it grew with N when each rating scanned every account).
 * The resident memory after each load is printed too.
 *
 * --check makes it a test: every loaded account must have its ratings (the ladder of each
 * pool counts N players); it never judges the times.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <uv.h>

#include "lobby/lobby.h"
#include "log.h"
#include "metrics.h"
#include "store/store.h"

#define SIZES_MAX 8

static const char usage[] =
    "Usage: thue-bench-startup [--accounts N[,N...]] [--ratings R] [--dir DIR] [--check]\n"
    "\n"
    "Times thue-server's start-up load (open the database, read every account and rating\n"
    "into the lobby) for databases of N accounts with R ratings each, written to DIR.\n"
    "\n"
    "  --accounts LIST  account counts, 1..10000000 each, at most 8 (default\n"
    "                   10000,100000,1000000); the first is the baseline of the ratios\n"
    "  --ratings R      rating pools per account, 1..16 (default 1)\n"
    "  --dir DIR        where the databases are written (default: a new directory in /tmp,\n"
    "                   removed at the end)\n"
    "  --check          fail unless every account's ratings were loaded\n";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The resident set in MiB (/proc/self/status VmRSS), or -1. */
static double rss_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    char line[256];
    double kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %lf", &kib) == 1)
            break;
    fclose(f);
    return kib < 0 ? -1 : kib / 1024.0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int sql_ok(sqlite3 *db, int rc, const char *what)
{
    if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW)
        return 0;
    fprintf(stderr, "thue-bench-startup: %s: %s\n", what, sqlite3_errmsg(db));
    return -1;
}

/* Writes n accounts with r ratings each into path (a database the store has created). */
static int fill(const char *path, long n, long r)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        fprintf(stderr, "thue-bench-startup: cannot open %s\n", path);
        return -1;
    }
    sqlite3_stmt *acc = NULL, *rat = NULL;
    int bad =
        sql_ok(db, sqlite3_exec(db, "PRAGMA synchronous = OFF; BEGIN", NULL, NULL, NULL), "begin");
    bad =
        bad || sql_ok(db,
                      sqlite3_prepare_v2(db,
                                         "INSERT INTO accounts (id, name, name_key, kind, bot, "
                                         "token_hash, created_ms) VALUES (?, ?, ?, 1, NULL, ?, 1)",
                                         -1, &acc, NULL),
                      "prepare accounts");
    bad = bad || sql_ok(db,
                        sqlite3_prepare_v2(db,
                                           "INSERT INTO ratings (account, game, pool, rating, rd, "
                                           "vol, games, wins, draws, losses) VALUES "
                                           "(?, 'thue', 'square-k' || ?, ?, 80, 0.06, 1, 1, 0, 0)",
                                           -1, &rat, NULL),
                        "prepare ratings");
    for (long i = 1; i <= n && !bad; i++) {
        char name[32], key[32];
        unsigned char hash[32];
        snprintf(name, sizeof name, "Player%07ld", i);
        snprintf(key, sizeof key, "player%07ld", i);
        for (int b = 0; b < 32; b++)
            hash[b] = (unsigned char)((uint64_t)i * 2654435761u >> (b % 4 * 8));
        sqlite3_bind_int64(acc, 1, i);
        sqlite3_bind_text(acc, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(acc, 3, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_blob(acc, 4, hash, 32, SQLITE_TRANSIENT);
        bad = sql_ok(db, sqlite3_step(acc), "insert an account");
        sqlite3_reset(acc);
        for (long k = 0; k < r && !bad; k++) {
            sqlite3_bind_int64(rat, 1, i);
            sqlite3_bind_int(rat, 2, (int)(3 + k));
            sqlite3_bind_double(rat, 3, 1500.0 + (double)(i % 997));
            bad = sql_ok(db, sqlite3_step(rat), "insert a rating");
            sqlite3_reset(rat);
        }
    }
    sqlite3_finalize(acc);
    sqlite3_finalize(rat);
    if (!bad)
        bad = sql_ok(db, sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), "commit");
    sqlite3_close(db);
    return bad ? -1 : 0;
}

/* The ladder's "total" for square k (the players of that pool), or -1. */
static long ladder_total(thue_lobby *lobby, int k)
{
    thue_lobby_ladder_ask ask = {NULL, NULL, THUE_SQUARE, k, THUE_LADDER_ALL, 0, 1};
    char *text = NULL, why[200];
    thue_lobby_ladder_json(lobby, &ask, &text, why, sizeof why);
    const char *t = text ? strstr(text, "\"total\":") : NULL;
    long total = t ? strtol(t + 8, NULL, 10) : -1;
    free(text);
    return total;
}

static void lobby_closed(void *data)
{
    *(int *)data = 1;
}

typedef struct result {
    double ms, rss;
    int ok;
} result;

/* Loads path into a fresh lobby as thue-server does; fills res. */
static int load_once(const char *path, long n, long r, result *res)
{
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0)
        return -1;
    thue_metrics metrics;
    thue_metrics_init(&metrics);
    thue_lobby_config cfg = {.grace_s = 60,
                             .max_rooms_per_player = 5,
                             .max_rooms = 100,
                             .room_linger_s = 60,
                             .bot_think_ms = 100,
                             .rate = 20,
                             .burst = 40,
                             .seed = 1};
    thue_lobby *lobby = thue_lobby_new(&loop, &cfg, NULL, &metrics);
    if (lobby == NULL)
        return -1;
    char err[512];
    double t0 = now_ms();
    thue_store *store = thue_store_open(path, err, sizeof err);
    int rc =
        store == NULL || thue_store_load(store, thue_lobby_load_account, thue_lobby_load_rating,
                                         thue_lobby_load_tournament, lobby, err, sizeof err) != 0;
    res->ms = now_ms() - t0;
    res->rss = rss_mib();
    if (rc) {
        fprintf(stderr, "thue-bench-startup: %s\n", err);
    } else {
        thue_lobby_set_store(lobby, store);
        res->ok = 1;
        for (long k = 0; k < r; k++)
            if (ladder_total(lobby, (int)(3 + k)) != n)
                res->ok = 0;
    }
    /* Tear down as the server does: the store (its callbacks run on the loop), then the
     * lobby. The store was never started, so closing it only closes the file. */
    if (store)
        thue_store_close(store, NULL, NULL);
    int closed = 0;
    thue_lobby_close(lobby, lobby_closed, &closed);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    return rc || !closed ? -1 : 0;
}

int main(int argc, char **argv)
{
    long sizes[SIZES_MAX] = {10000, 100000, 1000000};
    int nsizes = 3;
    long ratings = 1;
    const char *dir = NULL;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--check") == 0) {
            check = 1;
        } else if (i + 1 < argc && strcmp(a, "--ratings") == 0) {
            if (parse_int(argv[++i], 1, 16, &ratings) != 0) {
                fprintf(stderr, "thue-bench-startup: --ratings: an integer from 1 to 16\n");
                return 2;
            }
        } else if (i + 1 < argc && strcmp(a, "--dir") == 0) {
            dir = argv[++i];
        } else if (i + 1 < argc && strcmp(a, "--accounts") == 0) {
            char *list = argv[++i];
            nsizes = 0;
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                if (nsizes == SIZES_MAX || parse_int(tok, 1, 10000000, &sizes[nsizes]) != 0) {
                    fprintf(stderr,
                            "thue-bench-startup: --accounts: up to %d integers from 1 "
                            "to 10000000, comma-separated\n",
                            SIZES_MAX);
                    return 2;
                }
                nsizes++;
            }
            if (nsizes == 0) {
                fprintf(stderr, "thue-bench-startup: --accounts: no size given\n");
                return 2;
            }
        } else {
            fprintf(stderr, "thue-bench-startup: unknown argument %s\n%s", a, usage);
            return 2;
        }
    }
    thue_log_set_level(THUE_LOG_WARN);
    char tmp[64] = "";
    if (dir == NULL) {
        snprintf(tmp, sizeof tmp, "/tmp/thue-bench-startup-XXXXXX");
        if (mkdtemp(tmp) == NULL) {
            perror("thue-bench-startup: mkdtemp");
            return 1;
        }
        dir = tmp;
    }
    printf("%10s %10s %12s %14s %14s %10s\n", "accounts", "ratings", "load ms", "us/account",
           "x baseline", "RSS MiB");
    int failed = 0;
    double base_per = 0;
    for (int s = 0; s < nsizes && !failed; s++) {
        char path[512];
        snprintf(path, sizeof path, "%s/startup-%ld.db", dir, sizes[s]);
        unlink(path);
        char err[512];
        thue_store *store = thue_store_open(path, err, sizeof err); /* the schema */
        if (store == NULL) {
            fprintf(stderr, "thue-bench-startup: %s\n", err);
            return 1;
        }
        thue_store_close(store, NULL, NULL);
        fprintf(stderr, "writing %ld accounts to %s ...\n", sizes[s], path);
        if (fill(path, sizes[s], ratings) != 0)
            return 1;
        result res = {0};
        if (load_once(path, sizes[s], ratings, &res) != 0)
            return 1;
        double per = res.ms * 1000.0 / (double)sizes[s];
        if (s == 0)
            base_per = per;
        printf("%10ld %10ld %12.1f %14.3f %14.2f %10.1f\n", sizes[s], sizes[s] * ratings, res.ms,
               per, per / base_per, res.rss);
        fflush(stdout);
        if (check && !res.ok) {
            fprintf(stderr,
                    "thue-bench-startup: %ld accounts: a pool's ladder does not count "
                    "every account: ratings were lost in the load\n",
                    sizes[s]);
            failed = 1;
        }
        unlink(path);
        char side[560];
        snprintf(side, sizeof side, "%s-wal", path);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", path);
        unlink(side);
    }
    if (tmp[0])
        rmdir(tmp);
    return failed;
}
