/*
 * test_store_rating_tx.c: ratings computed in the store's transaction (thue_match_row's
 * rate, schema 5) and the changes other servers follow (thue_store_changes).
 *
 * - A sequence of rated matches gives exactly what a naive replay of Glicko-2 over the
 *   same results gives, match by match (the reference: thue_glicko_match on values kept
 *   in this test).
 * - Several stores on one database (PostgreSQL; on SQLite, one store with every match
 *   queued at once) save rated matches of the same accounts at the same time: no update
 *   is lost. Every account's matches form one unbroken chain from the newcomer's 1500 to
 *   its ratings row (each match's rating before is the previous one's after), and the
 *   row counts every match.
 * - The rated-pair limit is counted in the database: stores saving a pair's matches at
 *   once rate exactly pair_max of them.
 * - thue_store_changes hands another server the accounts, tokens and ratings written
 *   since its load, in change order, once each; a SQLite file's answer is [].
 */
#include <math.h>

#include "ladder/glicko2.h"
#include "store_helpers.h"

#define TAU 0.5

static void add(thue_store *s, uv_loop_t *loop, const char *name, thue_player_kind kind,
                int64_t id)
{
    assert_int_equal(add_account(s, loop, name, kind, id, NULL), 0);
}

/* A match of accounts a (seat 0) and b (seat 1), won by winner, to be rated by the store
 * in pool thue/square-k3 (pair_max 0: no pair limit). */
static void rate_match(tmatch *m, const char *id, int64_t a, int64_t b, int winner,
                       int64_t ended, thue_match_rating *result)
{
    make_match(m, id, a == 1 ? "Ann" : "Bob", "nested:1", ended, 4);
    m->row.players[0].kind = THUE_KIND_ACCOUNT;
    m->row.accounts[0] = a;
    m->row.accounts[1] = b;
    m->row.opt.rated = 1;
    m->row.winner = winner;
    m->row.rate = 1;
    m->row.tau = TAU;
    m->row.result = result;
    for (int p = 0; p < 2; p++) {
        m->row.ratings[p].account = p ? b : a;
        snprintf(m->row.ratings[p].game, sizeof m->row.ratings[p].game, "thue");
        snprintf(m->row.ratings[p].pool, sizeof m->row.ratings[p].pool, "square-k3");
        /* values the caller might have had: the store must ignore them */
        m->row.ratings[p].rating = 9999;
        m->row.ratings[p].games = 77;
    }
}

/* ---- one store: the naive reference ----------------------------------------------------- */

static void test_rate_matches_reference(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    add(s, &loop, "Ann", THUE_KIND_ACCOUNT, 1);
    add(s, &loop, "nested:1", THUE_KIND_BOT, 2);
    thue_glicko g[2] = {{1500, 350, 0.06}, {1500, 350, 0.06}};
    int games = 0, wins = 0;
    tmatch *m = malloc(sizeof *m);
    for (int i = 0; i < 12; i++) {
        int winner = i % 3 == 2 ? -1 : (i * 7) % 2; /* wins, losses and draws */
        char id[16];
        snprintf(id, sizeof id, "m%d", i);
        thue_match_rating res;
        memset(&res, 0, sizeof res);
        rate_match(m, id, 1, 2, winner, 1700000000000 + i, &res);
        assert_int_equal(save_match(s, &loop, &m->row), 0);
        thue_glicko after[2];
        double s0 = winner == 0 ? 1 : winner == 1 ? 0 : 0.5;
        assert_int_equal(thue_glicko_match(&g[0], &g[1], s0, TAU, &after[0], &after[1]), 0);
        for (int p = 0; p < 2; p++) { /* (the store keeps them to 1e-9) */
            after[p].rating = round(after[p].rating * 1e9) / 1e9;
            after[p].rd = round(after[p].rd * 1e9) / 1e9;
        }
        assert_int_equal(res.rated, 1);
        assert_int_equal(res.pair_limited, 0);
        for (int p = 0; p < 2; p++) {
            assert_true(res.changes[p].before == g[p].rating);
            assert_true(res.changes[p].rd_before == g[p].rd);
            assert_true(res.changes[p].after == after[p].rating);
            assert_true(res.changes[p].rd_after == after[p].rd);
            assert_true(res.ratings[p].rating == after[p].rating);
            assert_true(res.ratings[p].vol == after[p].vol);
            assert_int_equal(res.ratings[p].games, i + 1);
        }
        wins += winner == 0;
        games++;
        g[0] = after[0];
        g[1] = after[1];
    }
    close_run(s, &loop);
    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->nratings, 2);
    assert_true(l->ratings[0].rating == g[0].rating);
    assert_true(l->ratings[0].rd == g[0].rd);
    assert_true(l->ratings[0].vol == g[0].vol);
    assert_int_equal(l->ratings[0].games, games);
    assert_int_equal(l->ratings[0].wins, wins);
    assert_true(l->ratings[1].rating == g[1].rating);
    free(l);
    /* The stored match rows carry the same changes. */
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches WHERE rating0_after IS NOT "
                                     "NULL AND rating1_after IS NOT NULL"),
                     12);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- several stores at once --------------------------------------------------------------- */

#define STORES 3
#define EACH 25

/* Account acct's rated matches as (before, after) pairs, in no particular order. */
typedef struct chain_link {
    double before, after;
    int used;
} chain_link;

static int links_of(const char *path, int64_t acct, chain_link *out, int max)
{
    /* Both seats: before and after as text with 17 digits (exact doubles). */
    int n = 0;
    for (int seat = 0; seat < 2; seat++) {
        char count[128];
        snprintf(count, sizeof count,
                 "SELECT count(*) FROM matches WHERE account%d = %lld AND rating%d_after IS NOT "
                 "NULL",
                 seat, (long long)acct, seat);
        int rows = (int)sql_int(path, count);
        for (int k = 0; k < rows; k++) {
            char sql[256], text[128];
            snprintf(sql, sizeof sql,
                     "SELECT rating%d_before || ' ' || rating%d_after FROM matches WHERE "
                     "account%d = %lld AND rating%d_after IS NOT NULL ORDER BY id LIMIT 1 "
                     "OFFSET %d",
                     seat, seat, seat, (long long)acct, seat, k);
            testdb_text(path, sql, text, sizeof text);
            assert_true(n < max);
            assert_int_equal(sscanf(text, "%lf %lf", &out[n].before, &out[n].after), 2);
            out[n].used = 0;
            n++;
        }
    }
    return n;
}

/* The chain from 1500: each chain_link's before is the previous after (to the printed
 * precision both engines keep: %.17g on PostgreSQL, SQLite's REAL text). How many links
 * it takes; the last after into *end. */
static int chain_length(chain_link *links, int n, double *end)
{
    double at = THUE_GLICKO_INITIAL_RATING;
    int len = 0;
    for (;;) {
        int next = -1;
        for (int i = 0; i < n; i++)
            if (!links[i].used && fabs(links[i].before - at) <= 1e-9 * fabs(at)) {
                assert_int_equal(next, -1); /* two matches rated from the same value: a lost update */
                next = i;
            }
        if (next < 0)
            break;
        links[next].used = 1;
        at = links[next].after;
        len++;
    }
    *end = at;
    return len;
}

static void test_rate_concurrent_no_lost_update(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    int stores = testdb_pg() ? STORES : 1; /* one SQLite file has one server */
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s[STORES];
    for (int i = 0; i < stores; i++)
        s[i] = open_started(t.path, &loop);
    add(s[0], &loop, "Ann", THUE_KIND_ACCOUNT, 1);
    add(s[0], &loop, "nested:1", THUE_KIND_BOT, 2);
    add(s[0], &loop, "Bob", THUE_KIND_ACCOUNT, 3);
    tmatch *m = malloc(sizeof *m);
    static wres w[STORES * EACH];
    static thue_match_rating res[STORES * EACH];
    memset(w, 0, sizeof w);
    int total = stores * EACH;
    /* Every store gets its matches queued at once: Ann and Bob each against the shared
     * bot, interleaved, so every rating row is written from every store. */
    for (int k = 0; k < total; k++) {
        char id[16];
        snprintf(id, sizeof id, "c%03d", k);
        int64_t who = k % 2 ? 3 : 1;
        rate_match(m, id, who, 2, (k / 2) % 3 == 0 ? 1 : 0, 1700000000000 + k, &res[k]);
        assert_int_equal(thue_store_save_match(s[k % stores], &m->row, on_write, &w[k]), 0);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    for (int k = 0; k < total; k++) {
        assert_int_equal(w[k].calls, 1);
        assert_int_equal(w[k].err, 0);
        assert_int_equal(res[k].rated, 1);
    }
    for (int i = 0; i < stores; i++)
        close_run(s[i], &loop);

    const int64_t accts[3] = {1, 2, 3};
    const int expect[3] = {(total + 1) / 2, total, total / 2};
    chain_link *links = malloc(sizeof *links * (size_t)total);
    for (int a = 0; a < 3; a++) {
        int n = links_of(t.path, accts[a], links, total);
        assert_int_equal(n, expect[a]);
        double end;
        assert_int_equal(chain_length(links, n, &end), n); /* one unbroken chain */
        char sql[160], text[64];
        snprintf(sql, sizeof sql, "SELECT rating || ' ' || games FROM ratings WHERE account = %lld",
                 (long long)accts[a]);
        testdb_text(t.path, sql, text, sizeof text);
        double rating;
        int games;
        assert_int_equal(sscanf(text, "%lf %d", &rating, &games), 2);
        assert_int_equal(games, n);
        assert_true(fabs(rating - end) <= 1e-9 * fabs(end));
    }
    free(links);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- the pair limit ---------------------------------------------------------------------- */

static void test_pair_limit_counted_in_database(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    int stores = testdb_pg() ? STORES : 1;
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s[STORES];
    for (int i = 0; i < stores; i++)
        s[i] = open_started(t.path, &loop);
    add(s[0], &loop, "Ann", THUE_KIND_ACCOUNT, 1);
    add(s[0], &loop, "Bob", THUE_KIND_ACCOUNT, 3);
    tmatch *m = malloc(sizeof *m);
    enum { N = 12, MAX = 4 };
    wres w[N];
    thue_match_rating res[N];
    memset(w, 0, sizeof w);
    const int64_t now = 1700000000000;
    /* An old rated match of the pair, outside the window: it does not count. */
    rate_match(m, "old", 1, 3, 0, now - 25 * 3600 * 1000LL, &res[0]);
    m->row.players[1].kind = THUE_KIND_ACCOUNT;
    assert_int_equal(save_match(s[0], &loop, &m->row), 0);
    for (int k = 0; k < N; k++) {
        char id[16];
        snprintf(id, sizeof id, "p%02d", k);
        /* either seat: the pair is the same */
        rate_match(m, id, k % 2 ? 3 : 1, k % 2 ? 1 : 3, 0, now + k, &res[k]);
        m->row.players[1].kind = THUE_KIND_ACCOUNT;
        m->row.pair_max = MAX;
        m->row.pair_window_ms = 24 * 3600 * 1000LL;
        assert_int_equal(thue_store_save_match(s[k % stores], &m->row, on_write, &w[k]), 0);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    int rated = 0, limited = 0;
    for (int k = 0; k < N; k++) {
        assert_int_equal(w[k].err, 0);
        assert_true(res[k].rated + res[k].pair_limited == 1);
        rated += res[k].rated;
        limited += res[k].pair_limited;
    }
    assert_int_equal(rated, MAX);
    assert_int_equal(limited, N - MAX);
    for (int i = 0; i < stores; i++)
        close_run(s[i], &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches WHERE rating0_after IS NOT "
                                     "NULL"),
                     MAX + 1);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches"), N + 1);
    assert_int_equal(sql_int(t.path, "SELECT games FROM ratings WHERE account = 1"), MAX + 1);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- following the changes --------------------------------------------------------------- */

static json_t *changes(thue_store *s, uv_loop_t *loop)
{
    rres r;
    memset(&r, 0, sizeof r);
    assert_int_equal(thue_store_changes(s, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.status, 200);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    assert_non_null(j);
    assert_true(json_is_array(j));
    rres_clear(&r);
    return j;
}

static void test_changes_followed(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *a = open_started(t.path, &loop);
    add(a, &loop, "Ann", THUE_KIND_ACCOUNT, 1);
    close_run(a, &loop);
    if (!testdb_pg()) {
        /* One server per file: nothing to follow, ever. */
        thue_store *s = open_started(t.path, &loop);
        add(s, &loop, "nested:1", THUE_KIND_BOT, 2);
        json_t *j = changes(s, &loop);
        assert_int_equal(json_array_size(j), 0);
        json_decref(j);
        close_run(s, &loop);
        assert_int_equal(uv_loop_close(&loop), 0);
        tdir_remove(&t);
        return;
    }
    /* Two servers; b loads (Ann is in its load, so not a change for it). */
    a = open_started(t.path, &loop);
    thue_store *b = open_ok(t.path);
    assert_int_equal(thue_store_load(b, NULL, NULL, NULL, NULL, NULL, 0), 0);
    assert_int_equal(thue_store_start(b, &loop), 0);
    json_t *j = changes(b, &loop);
    assert_int_equal(json_array_size(j), 0);
    json_decref(j);
    /* a adds a bot, a login token of Ann, and a rated match of the two. */
    add(a, &loop, "nested:1", THUE_KIND_BOT, 2);
    unsigned char h[32];
    memset(h, 0xab, sizeof h);
    wres w;
    memset(&w, 0, sizeof w);
    assert_int_equal(thue_store_add_token(a, 1, h, on_write, &w), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(w.err, 0);
    tmatch *m = malloc(sizeof *m);
    thue_match_rating res;
    rate_match(m, "f1", 1, 2, 0, 1700000000000, &res);
    assert_int_equal(save_match(a, &loop, &m->row), 0);
    j = changes(b, &loop);
    char *text = json_dumps(j, JSON_COMPACT);
    assert_int_equal(json_array_size(j), 4);
    json_t *e0 = json_array_get(j, 0), *e1 = json_array_get(j, 1), *e2 = json_array_get(j, 2),
           *e3 = json_array_get(j, 3);
    assert_string_equal(json_string_value(json_object_get(e0, "t")), "account");
    assert_string_equal(json_string_value(json_object_get(e0, "name")), "nested:1");
    assert_int_equal(json_integer_value(json_object_get(e0, "id")), 2);
    assert_int_equal(json_integer_value(json_object_get(e0, "kind")), THUE_KIND_BOT);
    assert_string_equal(json_string_value(json_object_get(e1, "t")), "token");
    assert_string_equal(json_string_value(json_object_get(e1, "name")), "Ann");
    assert_string_equal(json_string_value(json_object_get(e1, "hash")),
                        "abababababababababababababababababababababababababababababababab");
    for (int i = 0; i < 2; i++) {
        json_t *row = json_array_get(json_object_get(i ? e3 : e2, "rows"), 0);
        assert_string_equal(json_string_value(json_object_get(i ? e3 : e2, "t")), "rating");
        int64_t acct = json_integer_value(json_object_get(row, "account"));
        int seat = acct == 1 ? 0 : 1;
        assert_true(json_real_value(json_object_get(row, "rating")) == res.ratings[seat].rating);
        assert_int_equal(json_integer_value(json_object_get(row, "seq")), res.ratings[seat].seq);
        assert_true(res.ratings[seat].seq > 0);
        assert_int_equal(json_integer_value(json_object_get(row, "games")), 1);
    }
    free(text);
    json_decref(j);
    /* Read once: the next answer is empty until something else is written. */
    j = changes(b, &loop);
    assert_int_equal(json_array_size(j), 0);
    json_decref(j);
    close_run(a, &loop);
    close_run(b, &loop);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_matches_reference),
        cmocka_unit_test(test_rate_concurrent_no_lost_update),
        cmocka_unit_test(test_pair_limit_counted_in_database),
        cmocka_unit_test(test_changes_followed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
