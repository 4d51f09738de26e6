/*
 * test_store_writes.c: how the store (server/store) writes: writes wait for the disk in
 * order, a backlog goes in batches, closing drains what waits, every error is answered,
 * and a forked child that dies inside a transaction leaves the file whole.
 */
#include "store_helpers.h"

/* ---- closing, errors ------------------------------------------------------------------- */

typedef struct drain {
    thue_store *s;
    int calls, ok, late_err;
} drain;

static void on_drained(int err, int64_t id, void *data)
{
    (void)id;
    drain *d = data;
    d->calls++;
    d->ok += err == 0;
    /* During the drain the store is closing: nothing more is queued. */
    thue_account_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "late%d", d->calls);
    row.kind = THUE_KIND_ACCOUNT;
    d->late_err = thue_store_add_account(d->s, &row, on_write, NULL);
}

static void test_store_close_drains(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    drain d = {s, 0, 0, 0};
    for (int i = 0; i < 100; i++) {
        thue_account_row row;
        memset(&row, 0, sizeof row);
        snprintf(row.name, sizeof row.name, "player%d", i);
        row.kind = THUE_KIND_ACCOUNT;
        assert_int_equal(thue_store_add_account(s, &row, on_drained, &d), 0);
    }
    int closed = 0;
    thue_store_close(s, on_closed, &closed);
    /* Closing but not closed yet: new jobs are refused at once. */
    thue_account_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "after");
    row.kind = THUE_KIND_ACCOUNT;
    assert_int_equal(thue_store_add_account(s, &row, on_write, NULL), THUE_STORE_ECLOSED);
    assert_int_equal(thue_store_match_json(s, "x", on_read, NULL), THUE_STORE_ECLOSED);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(d.calls, 100);
    assert_int_equal(d.ok, 100);
    assert_int_equal(d.late_err, THUE_STORE_ECLOSED);
    assert_int_equal(closed, 1);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->naccounts, 100);
    assert_string_equal(l->accounts[99].name, "player99");
    free(l);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* ---- a disk that refuses writes for a while ------------------------------------------ */

typedef struct seqres {
    int *seq; /* shared counter: the order callbacks ran in */
    int at;   /* this one's place (1-based), 0 before */
    int err;
} seqres;

static void on_write_seq(int err, int64_t id, void *data)
{
    (void)id;
    seqres *r = data;
    r->at = ++*r->seq;
    r->err = err;
}

static thue_account_row account_row(const char *name, int64_t id)
{
    thue_account_row row;
    memset(&row, 0, sizeof row);
    row.id = id;
    snprintf(row.name, sizeof row.name, "%s", name);
    row.kind = THUE_KIND_ACCOUNT;
    thue_sha256(name, strlen(name), row.token_hash);
    return row;
}

/* Runs the loop (without blocking on it) until the store thread counted n failed
 * attempts; a test deadline of 20 s. */
static void wait_failures(thue_store *s, uv_loop_t *loop, uint64_t n)
{
    thue_store_health h;
    for (int i = 0; i < 2000; i++) {
        thue_store_health_get(s, &h);
        if (h.write_failures >= n)
            return;
        uv_run(loop, UV_RUN_NOWAIT);
        uv_sleep(10);
    }
    fail_msg("the store thread made %llu failed attempts, not %llu",
             (unsigned long long)h.write_failures, (unsigned long long)n);
}

static void test_store_writes_wait_for_the_disk(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    assert_int_equal(add_account(s, &loop, "ann", THUE_KIND_ACCOUNT, 1, NULL), 0);
    thue_store_health h;
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 0);
    assert_int_equal(h.write_failures, 0);

    /* The disk refuses: an account, then a match of it, then a read. */
    thue_store_fail_writes(s, 1);
    int seq = 0;
    seqres wa = {&seq, 0, 1}, wm = {&seq, 0, 1};
    thue_account_row bob = account_row("bob", 2);
    assert_int_equal(thue_store_add_account(s, &bob, on_write_seq, &wa), 0);
    tmatch *tm = malloc(sizeof *tm);
    assert_non_null(tm);
    make_match(tm, "m1", "ann", "bob", 1700000100000, 10);
    assert_int_equal(thue_store_save_match(s, &tm->row, on_write_seq, &wm), 0);
    rres r = {0};
    assert_int_equal(thue_store_matches_json(s, "ann", 1, 50, on_read, &r), 0);
    /* The read is answered while both writes wait (nothing saved yet). */
    while (r.calls == 0)
        uv_run(&loop, UV_RUN_ONCE);
    json_t *j = read_json(200, &r);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 0);
    json_decref(j);
    rres_clear(&r);
    assert_int_equal(wa.at + wm.at, 0);
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 1);
    assert_int_equal(h.writes_waiting, 2);
    assert_true(h.write_failures >= 1);
    /* It tries again (after 0.5 s): still refused, still waiting, nothing lost. */
    wait_failures(s, &loop, 2);
    assert_int_equal(wa.at + wm.at, 0);

    /* The disk is back: both writes commit, in the order queued. */
    thue_store_fail_writes(s, 0);
    while (wm.at == 0)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(wa.at, 1);
    assert_int_equal(wa.err, 0);
    assert_int_equal(wm.at, 2);
    assert_int_equal(wm.err, 0);
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 0);
    assert_int_equal(h.writes_waiting, 0);
    j = matches_json(s, &loop, "ann", 1, 50);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 1);
    json_decref(j);

    /* Closing while the disk refuses: the waiting write gets one last try, then its
     * callback runs with the error; the store closes. */
    thue_store_fail_writes(s, 1);
    uint64_t before = h.write_failures;
    seqres wc = {&seq, 0, 0};
    thue_account_row cid = account_row("cid", 3);
    assert_int_equal(thue_store_add_account(s, &cid, on_write_seq, &wc), 0);
    wait_failures(s, &loop, before + 1);
    close_run(s, &loop);
    assert_int_equal(wc.at, 3);
    assert_int_equal(wc.err, THUE_STORE_EIO);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->naccounts, 2);
    assert_string_equal(l->accounts[1].name, "bob");
    free(l);
    free(tm);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

/* A backlog drains in batches (one transaction for many writes): in order, each write
 * with its own answer: a taken name fails alone, the writes around it are saved. */
static void test_store_backlog_batches(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    assert_int_equal(add_account(s, &loop, "ann", THUE_KIND_ACCOUNT, 1, NULL), 0);
    thue_store_fail_writes(s, 1);
    enum { N = 300 };
    int seq = 0;
    seqres *w = calloc(N, sizeof *w);
    tmatch *tm = calloc(N, sizeof *tm);
    thue_account_row *rows = calloc(N, sizeof *rows);
    assert_true(w && tm && rows);
    for (int i = 0; i < N; i++) {
        w[i] = (seqres){&seq, 0, 1};
        if (i % 3 == 0) {
            char name[32];
            /* Account 150 takes the name of account 75: the one expected failure. */
            snprintf(name, sizeof name, "p%d", i == 150 ? 75 : i);
            rows[i] = account_row(name, 10 + i);
            assert_int_equal(thue_store_add_account(s, &rows[i], on_write_seq, &w[i]), 0);
        } else {
            char id[32];
            snprintf(id, sizeof id, "m%d", i);
            make_match(&tm[i], id, "ann", "bob", 1700000100000 + i, 6);
            assert_int_equal(thue_store_save_match(s, &tm[i].row, on_write_seq, &w[i]), 0);
        }
    }
    /* The second try takes them all (queued while the first failed) and fails. */
    wait_failures(s, &loop, 2);
    thue_store_health h;
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 1);
    assert_int_equal(h.writes_waiting, N);
    assert_int_equal(seq, 0);

    thue_store_fail_writes(s, 0);
    while (seq < N)
        uv_run(&loop, UV_RUN_ONCE);
    for (int i = 0; i < N; i++) {
        assert_int_equal(w[i].at, i + 1); /* answered in the order queued */
        assert_int_equal(w[i].err, i == 150 ? THUE_STORE_EEXISTS : 0);
    }
    thue_store_health_get(s, &h);
    assert_int_equal(h.failing, 0);
    assert_int_equal(h.writes_waiting, 0);
    json_t *j = matches_json(s, &loop, "ann", 1, 1000);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), N - N / 3);
    json_decref(j);
    close_run(s, &loop);

    loaded *l = malloc(sizeof *l);
    load_all(t.path, l);
    assert_int_equal(l->naccounts, 1 + N / 3 - 1);
    free(l);
    free(w);
    free(tm);
    free(rows);
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

static void test_store_errors(void **state)
{
    (void)state;
    thue_account_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.name, sizeof row.name, "Ann");
    row.kind = THUE_KIND_ACCOUNT;
    assert_int_equal(thue_store_add_account(NULL, &row, on_write, NULL), THUE_EINVAL);

    char err[256];
    thue_store *s = thue_store_open(":memory:", err, sizeof err);
    assert_non_null(s);
    /* Not started: nothing is queued. */
    assert_int_equal(thue_store_add_account(s, &row, on_write, NULL), THUE_STORE_ECLOSED);
    assert_int_equal(thue_store_save_tournament(s, "t1", "{}", 0, on_write, NULL),
                     THUE_STORE_ECLOSED);
    uv_loop_t loop;
    uv_loop_init(&loop);
    assert_int_equal(thue_store_start(s, &loop), 0);
    assert_int_equal(thue_store_start(s, &loop), THUE_EINVAL);
    assert_int_equal(thue_store_load(s, NULL, NULL, NULL, NULL, err, sizeof err), THUE_EINVAL);

    /* Bad input: refused at once, no callback. */
    wres w = {0};
    row.kind = THUE_KIND_GUEST;
    assert_int_equal(thue_store_add_account(s, &row, on_write, &w), THUE_EINVAL);
    row.kind = THUE_KIND_ACCOUNT;
    row.name[0] = '\0';
    assert_int_equal(thue_store_add_account(s, &row, on_write, &w), THUE_EINVAL);
    tmatch *m = malloc(sizeof *m);
    make_match(m, "", "a", "b", 1, 2);
    assert_int_equal(thue_store_save_match(s, &m->row, on_write, &w), THUE_EINVAL);
    make_match(m, "m", "a", "b", 1, 2);
    m->row.winner = 2;
    assert_int_equal(thue_store_save_match(s, &m->row, on_write, &w), THUE_EINVAL);
    make_match(m, "m", "a", "b", 1, 2);
    m->row.moves = NULL;
    assert_int_equal(thue_store_save_match(s, &m->row, on_write, &w), THUE_EINVAL);
    assert_int_equal(thue_store_save_tournament(s, NULL, "{}", 0, on_write, &w), THUE_EINVAL);
    assert_int_equal(thue_store_matches_json(s, "a", 0, 10, on_read, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_matches_json(s, "a", 1, 0, on_read, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_match_json(s, NULL, on_read, NULL), THUE_EINVAL);
    uv_run(&loop, UV_RUN_DEFAULT); /* nothing pending: returns at once */
    assert_int_equal(w.calls, 0);

    /* ":memory:" works through the thread too: the connection opened here is the one the
     * thread uses. */
    make_match(m, "m", "a", "b", 1, 2);
    assert_int_equal(save_match(s, &loop, &m->row), 0);
    json_t *j = match_json(s, &loop, "m", 200);
    assert_int_equal(json_array_size(json_object_get(j, "moves")), 2);
    json_decref(j);
    /* Callbacks may be NULL. */
    assert_int_equal(thue_store_save_tournament(s, "t1", "{}", 0, NULL, NULL), 0);
    assert_int_equal(thue_store_moves_csv(s, "m", NULL, NULL), 0);
    close_run(s, &loop);
    free(m);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* ---- a crash inside a transaction --------------------------------------------------------- */

/* The child: returns its exit status when it fails before the crash (the crash itself is
 * _exit(99) on the store thread). No cmocka assertions here: they would unwind into the
 * parent's copy of the test runner. */
static int crash_child(const char *path)
{
    uv_loop_t loop;
    if (uv_loop_init(&loop) != 0)
        return 10;
    char err[256];
    thue_store *s = thue_store_open(path, err, sizeof err);
    if (s == NULL || thue_store_start(s, &loop) != 0)
        return 11;
    static tmatch m;
    make_match(&m, "m1", "Ann", "nested:1", 1700000100000, 10);
    wres w = {0};
    if (thue_store_save_match(s, &m.row, on_write, &w) != 0)
        return 12;
    uv_run(&loop, UV_RUN_DEFAULT);
    if (w.calls != 1 || w.err != 0)
        return 13;
    thue_store_crash_in_job(s, 2);
    make_match(&m, "m2", "Ann", "nested:1", 1700000200000, 2000);
    if (thue_store_save_match(s, &m.row, on_write, &w) != 0)
        return 14;
    uv_run(&loop, UV_RUN_DEFAULT);
    return 15; /* the store thread should have ended the process */
}

static void test_store_crash_in_transaction(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(crash_child(t.path));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 99);

    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    json_t *j = match_json(s, &loop, "m1", 200);
    assert_int_equal(json_array_size(json_object_get(j, "moves")), 10);
    json_decref(j);
    assert_not_found(match_json(s, &loop, "m2", 404));
    close_run(s, &loop);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM moves WHERE match = 'm2'"), 0);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM moves"), 10);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches WHERE id = 'm2'"), 0);
    if (!testdb_pg()) { /* PostgreSQL has no such check: its recovery is its own */
        char ok[64];
        sql_text(t.path, "PRAGMA integrity_check", ok, sizeof ok);
        assert_string_equal(ok, "ok");
    }
    assert_int_equal(uv_loop_close(&loop), 0);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_writes_wait_for_the_disk),
        cmocka_unit_test(test_store_backlog_batches),
        cmocka_unit_test(test_store_close_drains),
        cmocka_unit_test(test_store_errors),
        cmocka_unit_test(test_store_crash_in_transaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
