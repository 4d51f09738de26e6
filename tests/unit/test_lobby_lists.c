/*
 * test_lobby_lists.c: the lobby's (server/lobby) limits and lists, through
 * lobby_harness.h: tournament limits, pages and expiry, loading many tournaments from the
 * store, the ladder cache (every page against a plain sort of the accounts), and the
 * HTTP API's room and tournament bodies (each the matching reply without type and id).
 */
#include "lobby_harness.h"

static const char new_tournament[] =
    "{\"type\":\"create_tournament\",\"name\":\"T\",\"format\":\"round_robin\","
    "\"variant\":\"square\",\"k\":2,\"limit\":3,\"max_players\":4}";

/* The reply to create_tournament: the new id, or NULL with *code set. */
static const char *h_tournament(harness *h, thue_conn *c, const char **code)
{
    h_send(h, c, new_tournament);
    json_t *r = reply(c);
    *code = str(r, "code");
    return str(r, "tournament");
}

/* Tournaments are limited: per account and per address (open ones), in all (open and
 * running), and per hour; each refusal says which limit it met. */
static void test_tournament_limits(void **st)
{
    (void)st;
    tour_cfg = (thue_lobby_config){.max_tournaments = 4,
                                   .tournaments_per_account = 2,
                                   .tournaments_per_ip = 3,
                                   .tournament_rate = 100};
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    const char *code;
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    thue_conn *bob = h_account(h, "Bob", "198.51.100.1");
    thue_conn *cy = h_account(h, "Cy", "2001:db8:0:1::1");
    thue_conn *cy2 = h_account(h, "Cyd", "2001:db8:0:1::2"); /* the same /64 */
    thue_conn *dan = h_account(h, "Dan", "198.51.100.4");
    assert_non_null(h_tournament(h, ann, &code));
    assert_non_null(h_tournament(h, ann, &code));
    assert_null(h_tournament(h, ann, &code));
    assert_string_equal(code, "not_allowed");
    assert_non_null(strstr(str(reply(ann), "message"), "2 open tournaments"));
    assert_non_null(h_tournament(h, bob, &code));
    assert_null(h_tournament(h, bob, &code));
    assert_string_equal(code, "not_allowed");
    assert_non_null(strstr(str(reply(bob), "message"), "your address has 3"));
    assert_non_null(h_tournament(h, cy, &code));
    assert_null(h_tournament(h, cy2, &code)); /* the server is full: 4 open */
    assert_string_equal(code, "server_busy");
    assert_null(h_tournament(h, dan, &code));
    assert_string_equal(code, "server_busy");
    h_free_store(h, store);

    /* the hourly rate, per account and per address */
    tour_cfg = (thue_lobby_config){.tournament_rate = 2, .tournaments_per_account = 10};
    h = h_new(60, 1000, 1000);
    tour_cfg = (thue_lobby_config){0};
    store = h_store(h);
    thue_conn *eve = h_account(h, "Eve", "198.51.100.5");
    thue_conn *eve2 = h_account(h, "Evie", "198.51.100.5");
    thue_conn *fay = h_account(h, "Fay", "198.51.100.6");
    assert_non_null(h_tournament(h, eve, &code));
    assert_non_null(h_tournament(h, eve, &code));
    assert_null(h_tournament(h, eve, &code));
    assert_string_equal(code, "rate_limited");
    const char *why = str(reply(eve), "message");
    assert_non_null(strstr(why, "2 tournaments an hour"));
    assert_non_null(strstr(why, "in 31 min"));
    assert_null(h_tournament(h, eve2, &code)); /* another account, the same address */
    assert_string_equal(code, "rate_limited");
    assert_non_null(h_tournament(h, fay, &code));
    h_free_store(h, store);
}

/* list_tournaments gives one page, newest first, with the total; so does the HTTP API. */
static void test_tournament_pages(void **st)
{
    (void)st;
    tour_cfg = (thue_lobby_config){.tournaments_per_account = 20, .tournament_rate = 20};
    harness *h = h_new(60, 1000, 1000);
    tour_cfg = (thue_lobby_config){0};
    thue_store *store = h_store(h);
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    const char *code;
    char ids[7][40];
    for (int i = 0; i < 7; i++)
        snprintf(ids[i], sizeof ids[i], "%s", h_tournament(h, ann, &code));
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"id\":1}");
    json_t *r = reply(ann);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 7);
    assert_int_equal(json_array_size(json_object_get(r, "tournaments")), 7);
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"offset\":2,\"count\":3}");
    r = reply(ann);
    assert_int_equal(json_integer_value(json_object_get(r, "offset")), 2);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 7);
    json_t *list = json_object_get(r, "tournaments");
    assert_int_equal(json_array_size(list), 3);
    for (int i = 0; i < 3; i++) /* newest first: the 5th, 4th and 3rd made */
        assert_string_equal(str(json_array_get(list, (size_t)i), "tournament"), ids[4 - i]);
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"status\":\"running\"}");
    r = reply(ann);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 0);
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"offset\":7}");
    r = reply(ann);
    assert_int_equal(json_array_size(json_object_get(r, "tournaments")), 0);
    char *text = thue_lobby_tournaments_json(h->lobby, 0, 6, 50);
    assert_non_null(text);
    assert_memory_equal(text, "{\"offset\":6,\"total\":7,\"tournaments\":[{\"tournament\":\"", 48);
    assert_non_null(strstr(text, ids[0]));
    free(text);
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"count\":201}");
    expect_code(ann, "bad_message");
    h_free_store(h, store);
}

/* An open tournament that is not started in time expires: its entrants and watchers
 * hear it and it is gone; a started one stays. */
static void test_tournament_expiry(void **st)
{
    (void)st;
    tour_cfg = (thue_lobby_config){.tournament_expire_s = 1};
    harness *h = h_new(60, 1000, 1000);
    tour_cfg = (thue_lobby_config){0};
    thue_store *store = h_store(h);
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    thue_conn *bob = h_account(h, "Bob", "198.51.100.2");
    thue_conn *eve = h_player_from(h, "Eve", "198.51.100.3");
    const char *code;
    char idle[40], started[40];
    snprintf(idle, sizeof idle, "%s", h_tournament(h, ann, &code));
    snprintf(started, sizeof started, "%s", h_tournament(h, ann, &code));
    h_send(h, bob, "{\"type\":\"join_tournament\",\"tournament\":\"%s\"}", idle);
    expect_ok(bob, "ok");
    h_send(h, eve, "{\"type\":\"get_tournament\",\"tournament\":\"%s\"}", idle);
    expect_ok(eve, "tournament");
    h_send(h, ann, "{\"type\":\"join_tournament\",\"tournament\":\"%s\",\"bot\":\"greedy\"}",
           started);
    expect_ok(ann, "ok");
    h_send(h, ann, "{\"type\":\"join_tournament\",\"tournament\":\"%s\",\"bot\":\"nested:1\"}",
           started);
    expect_ok(ann, "ok");
    h_send(h, ann, "{\"type\":\"start_tournament\",\"tournament\":\"%s\"}", started);
    expect_ok(ann, "ok");
    for (int i = 0; i < 3; i++) {
        thue_conn *c = i == 0 ? ann : i == 1 ? bob : eve;
        json_t *ev;
        do
            ev = h_wait(h, c, "tournament_event", NULL);
        while (strcmp(str(ev, "event"), "expired") != 0);
        assert_string_equal(str(ev, "tournament"), idle);
    }
    h_send(h, bob, "{\"type\":\"get_tournament\",\"tournament\":\"%s\"}", idle);
    expect_code(bob, "no_such_tournament");
    h_send(h, bob, "{\"type\":\"get_tournament\",\"tournament\":\"%s\"}", started);
    expect_ok(bob, "tournament");
    h_send(h, ann, "{\"type\":\"list_tournaments\"}");
    json_t *r = reply(ann);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 1);
    h_free_store(h, store);
}

/* At start-up, more stored open tournaments than the server takes: the newest beyond
 * the limit expire, and what stays is listed newest first. */
static void test_tournament_load_many(void **st)
{
    (void)st;
    tour_cfg = (thue_lobby_config){.max_tournaments = 50};
    harness *h = h_new(60, 1000, 1000);
    tour_cfg = (thue_lobby_config){0};
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    int64_t now = tv.tv_sec * 1000 - 3600000; /* an hour ago: none has expired yet */
    for (int i = 0; i < 3000; i++) {
        char id[40], state[1024];
        snprintf(id, sizeof id, "t%05d", i);
        snprintf(state, sizeof state,
                 "{\"id\":\"%s\",\"name\":\"Flood %d\",\"format\":0,\"variant\":0,\"k\":3,"
                 "\"limit\":100,\"clock\":false,\"initial_ms\":0,\"increment_ms\":0,"
                 "\"rounds_asked\":0,\"max_players\":256,\"status\":0,\"creator\":\"X\","
                 "\"nrounds\":0,\"lot\":0,\"entrants\":[],\"rounds\":[],\"created_ms\":%lld}",
                 id, i, (long long)(now + i));
        thue_lobby_load_tournament(h->lobby, id, state);
    }
    thue_store *store = h_store(h);
    thue_lobby_resume_tournaments(h->lobby);
    char *text = thue_lobby_tournaments_json(h->lobby, -1, 0, 1);
    assert_non_null(text);
    /* the oldest 50 stay; the newest of them lists first */
    assert_memory_equal(
        text, "{\"offset\":0,\"total\":50,\"tournaments\":[{\"tournament\":\"t00049\"", 58);
    free(text);
    h_free_store(h, store);
}

/* ---- the HTTP API's bodies --------------------------------------------------------- */

/* An /api body is the matching reply's members: the reply (as the client got it) with
 * its type and id taken out, written back compactly in its order, byte for byte. */
static void check_api_body(char *api, json_t *reply_msg)
{
    assert_non_null(api);
    json_t *want = json_deep_copy(reply_msg);
    json_object_del(want, "type");
    json_object_del(want, "id");
    char *text = json_dumps(want, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(api, text);
    free(text);
    json_decref(want);
    free(api);
}

/* /api/rooms under each filter, and /api/tournaments (a page, one tournament), against
 * list_rooms, list_tournaments and get_tournament. */
static void test_api_bodies(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    thue_conn *bob = h_account(h, "Bob", "198.51.100.2");
    h_room(h, ann, "");
    h_room(h, bob, ",\"variant\":\"overlap\",\"clock\":{\"initial_ms\":60000,\"increment_ms\":500}");
    const char *nim = h_room(h, bob, ",\"game\":\"nim\"");
    h_send(h, bob, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"random\"}", nim);
    expect_ok(bob, "ok");
    struct {
        const char *cmd, *game, *variant;
        int k, status;
    } lists[] = {
        {"", NULL, NULL, -1, -1},
        {",\"k\":3", NULL, NULL, 3, -1},
        {",\"k\":4", NULL, NULL, 4, -1},
        {",\"variant\":\"overlap\"", NULL, "overlap", -1, -1},
        {",\"status\":\"waiting\"", NULL, NULL, -1, 0},
        {",\"status\":\"playing\"", NULL, NULL, -1, 1},
        {",\"game\":\"nim\"", "nim", NULL, -1, -1},
        {",\"game\":\"thue\",\"k\":3", "thue", NULL, 3, -1},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        h_send(h, ann, "{\"type\":\"list_rooms\",\"id\":%d%s}", (int)i, lists[i].cmd);
        json_t *r = reply(ann);
        assert_string_equal(str(r, "type"), "rooms");
        check_api_body(thue_lobby_rooms_json(h->lobby, lists[i].game, lists[i].variant,
                                             lists[i].k, lists[i].status),
                       r);
    }
    const char *code;
    char id[40];
    snprintf(id, sizeof id, "%s", h_tournament(h, ann, &code));
    h_tournament(h, ann, &code);
    h_send(h, bob, "{\"type\":\"join_tournament\",\"tournament\":\"%s\"}", id);
    expect_ok(bob, "ok");
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"id\":\"t\",\"offset\":1,\"count\":5}");
    check_api_body(thue_lobby_tournaments_json(h->lobby, -1, 1, 5), reply(ann));
    h_send(h, ann, "{\"type\":\"list_tournaments\",\"status\":\"open\"}");
    check_api_body(thue_lobby_tournaments_json(h->lobby, 0, 0, 50), reply(ann));
    h_send(h, bob, "{\"type\":\"get_tournament\",\"id\":5,\"tournament\":\"%s\"}", id);
    json_t *r = reply(bob);
    assert_string_equal(str(r, "type"), "tournament");
    int unknown = 1;
    check_api_body(thue_lobby_tournament_json(h->lobby, id, &unknown), r);
    assert_int_equal(unknown, 0);
    assert_null(thue_lobby_tournament_json(h->lobby, "tnope", &unknown));
    assert_int_equal(unknown, 1);
    h_free_store(h, store);
}

/* ---- the ladder cache, against a plain sort ------------------------------------------- */

typedef struct naive_row {
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    int kind; /* THUE_KIND_ACCOUNT or THUE_KIND_BOT */
    double rating, rd;
    int games;
} naive_row;

static int naive_order(const void *x, const void *y)
{
    const naive_row *a = x, *b = y;
    if (a->rating != b->rating)
        return a->rating > b->rating ? -1 : 1;
    return a->rd < b->rd ? -1 : a->rd > b->rd ? 1 : 0;
}

/* Every page of the ladder of (square, 5, kind) equals the plain sort of rows. */
static void check_ladder(harness *h, const naive_row *all, int n, thue_ladder_kind kind)
{
    naive_row *want = calloc((size_t)n + 1, sizeof *want);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (all[i].games > 0 && (kind == THUE_LADDER_ALL ||
                                 (kind == THUE_LADDER_HUMAN) == (all[i].kind == THUE_KIND_ACCOUNT)))
            want[m++] = all[i];
    qsort(want, (size_t)m, sizeof *want, naive_order);
    for (int offset = 0; offset <= m; offset += 37) {
        thue_lobby_ladder_ask ask = {NULL, NULL, THUE_SQUARE, 5, kind, offset, 37};
        char *text = NULL, why[200];
        assert_int_equal(thue_lobby_ladder_json(h->lobby, &ask, &text, why, sizeof why), 0);
        assert_non_null(text);
        json_error_t e;
        json_t *j = json_loads(text, 0, &e);
        assert_non_null(j);
        assert_int_equal(json_integer_value(json_object_get(j, "total")), m);
        json_t *entries = json_object_get(j, "entries");
        int expect = m - offset < 37 ? m - offset : 37;
        assert_int_equal((int)json_array_size(entries), expect);
        for (int i = 0; i < expect; i++) {
            json_t *x = json_array_get(entries, (size_t)i);
            assert_string_equal(str(x, "name"), want[offset + i].name);
            assert_int_equal(json_integer_value(json_object_get(x, "rank")), offset + i + 1);
            double got = json_number_value(json_object_get(x, "rating"));
            assert_true(got > want[offset + i].rating - 0.5 && got < want[offset + i].rating + 0.5);
        }
        json_decref(j);
        free(text);
    }
    free(want);
}

/* The other pools of test_ladder_cache: Nim's misere pool holds the even accounts (rated
 * 2500 + i), its normal pool nobody; unknown games and bad options are refused. */
static void check_other_pools(harness *h, const naive_row *rows, int n)
{
    char *text = NULL, why[200];
    thue_lobby_ladder_ask ask = {"nim", "{\"misere\":true}", THUE_SQUARE, 0, THUE_LADDER_ALL, 0, 3};
    assert_int_equal(thue_lobby_ladder_json(h->lobby, &ask, &text, why, sizeof why), 0);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(j);
    assert_string_equal(str(j, "game"), "nim");
    assert_string_equal(str(j, "pool"), "misere");
    assert_null(json_object_get(j, "variant"));
    assert_true(json_is_true(json_object_get(json_object_get(j, "game_options"), "misere")));
    assert_int_equal(json_integer_value(json_object_get(j, "total")), (n + 1) / 2);
    json_t *entries = json_object_get(j, "entries");
    assert_int_equal((int)json_array_size(entries), 3);
    for (int r = 0; r < 3; r++) /* best first: the largest even i */
        assert_string_equal(str(json_array_get(entries, (size_t)r), "name"),
                            rows[(n - 1) / 2 * 2 - 2 * r].name);
    json_decref(j);
    ask.game_options = NULL; /* the defaults: normal play, nobody rated */
    assert_int_equal(thue_lobby_ladder_json(h->lobby, &ask, &text, why, sizeof why), 0);
    j = json_loads(text, 0, NULL);
    free(text);
    assert_string_equal(str(j, "pool"), "normal");
    assert_int_equal(json_integer_value(json_object_get(j, "total")), 0);
    json_decref(j);
    ask.game_options = "{\"misere\":3}";
    assert_int_equal(thue_lobby_ladder_json(h->lobby, &ask, &text, why, sizeof why), THUE_EOPTIONS);
    assert_null(text);
    assert_true(strlen(why) > 0);
    ask.game = "chess";
    assert_int_equal(thue_lobby_ladder_json(h->lobby, &ask, &text, why, sizeof why), THUE_EGAME);
    ask.game = NULL; /* Thue's pools are named by variant and k only */
    assert_int_equal(thue_lobby_ladder_json(h->lobby, &ask, &text, why, sizeof why), THUE_EOPTIONS);
}

static void test_ladder_cache(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    enum { N = 300 };
    naive_row rows[N];
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        thue_account_row a;
        memset(&a, 0, sizeof a);
        a.id = 1000 + i;
        a.kind = i % 7 == 0 ? THUE_KIND_BOT : THUE_KIND_ACCOUNT;
        snprintf(a.name, sizeof a.name, "%s%d", a.kind == THUE_KIND_BOT ? "Bot-" : "Player", i);
        if (a.kind == THUE_KIND_BOT)
            snprintf(a.bot, sizeof a.bot, "nested:%d", i);
        else
            a.token_hash[0] = (unsigned char)(i + 1), a.token_hash[1] = (unsigned char)(i >> 8) + 1;
        thue_lobby_load_account(h->lobby, &a);
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        /* Distinct (rating, rd) pairs, some ratings equal: the order never falls to names. */
        naive_row *r = &rows[i];
        snprintf(r->name, sizeof r->name, "%s", a.name);
        r->kind = a.kind;
        r->rating = 1200 + (double)((x >> 33) % 200);
        r->rd = 50 + i;
        r->games = i % 11 == 0 ? 0 : 1 + (int)(x % 5);
        thue_rating_row g = {.account = a.id,
                             .game = "thue",
                             .pool = "square-k5",
                             .rating = r->rating,
                             .rd = r->rd,
                             .vol = 0.06,
                             .games = r->games};
        thue_lobby_load_rating(h->lobby, &g);
        /* Other pools beside it (Thue's k = 4, Nim's misere play) stay out of its ladder. */
        thue_rating_row other = g;
        snprintf(other.pool, sizeof other.pool, "%s", i % 2 ? "square-k4" : "misere");
        if (i % 2 == 0)
            snprintf(other.game, sizeof other.game, "nim");
        other.rating = 2500 + i;
        other.games = 1;
        thue_lobby_load_rating(h->lobby, &other);
    }
    for (int kind = THUE_LADDER_ALL; kind <= THUE_LADDER_BOT; kind++)
        check_ladder(h, rows, N, (thue_ladder_kind)kind);
    check_other_pools(h, rows, N);
    /* Changes (as a rated match makes them) drop the cache: pages follow. */
    for (int round = 0; round < 3; round++) {
        for (int i = round; i < N; i += 5) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            rows[i].rating = 1000 + (double)((x >> 33) % 900);
            rows[i].games++;
            thue_rating_row g = {.account = 1000 + i,
                                 .game = "thue",
                                 .pool = "square-k5",
                                 .rating = rows[i].rating,
                                 .rd = rows[i].rd,
                                 .vol = 0.06,
                                 .games = rows[i].games};
            thue_lobby_load_rating(h->lobby, &g);
        }
        for (int kind = THUE_LADDER_ALL; kind <= THUE_LADDER_BOT; kind++)
            check_ladder(h, rows, N, (thue_ladder_kind)kind);
    }
    /* Rated matches move their two rows in the cached ladders (ladder_moved), a player's
     * first rated game adds its row: pages still follow the plain sort. */
    for (int match = 0; match < 60; match++) {
        int seat[2];
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        seat[0] = (int)((x >> 33) % N);
        seat[1] = (seat[0] + 1 + (int)((x >> 13) % (N - 1))) % N;
        for (int s = 0; s < 2; s++) {
            int i = seat[s];
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            rows[i].rating = 1000 + (double)((x >> 33) % 900);
            rows[i].games++;
        }
        assert_int_equal(ladder_rate_pair(h->lobby, THUE_SQUARE, 5, 1000 + seat[0],
                                          rows[seat[0]].rating, rows[seat[0]].games, 1000 + seat[1],
                                          rows[seat[1]].rating, rows[seat[1]].games),
                         0);
        if (match % 10 == 9)
            for (int kind = THUE_LADDER_ALL; kind <= THUE_LADDER_BOT; kind++)
                check_ladder(h, rows, N, (thue_ladder_kind)kind);
    }
    h_free_store(h, store);
}

int main(void)
{
    thue_log_set_level(THUE_LOG_ERROR); /* the lobby's info lines are not the test's output */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tournament_limits), cmocka_unit_test(test_tournament_pages),
        cmocka_unit_test(test_tournament_expiry), cmocka_unit_test(test_tournament_load_many),
        cmocka_unit_test(test_ladder_cache), cmocka_unit_test(test_api_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
