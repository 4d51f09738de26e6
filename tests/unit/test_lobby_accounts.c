/*
 * test_lobby_accounts.c: accounts in the lobby (server/lobby/accounts.c), through
 * lobby_harness.h with a database in memory: claim_name and its refusals (a second
 * account, a name taken by an account or a connected guest, in another case or as a
 * look-alike, names reserved for bots, no database), the claims an address may make in an
 * hour, logging in by token (a takeover of the live session, an unknown token), what only
 * accounts may do, and the ladder after rated matches: an account against a bot, played by
 * the test to the end, whose match_end ratings the ladder then shows (and two bots, whose
 * match is not rated).
 */
#include "lobby_harness.h"

/* c claims name: the token into token (size 80). */
static void claim(harness *h, thue_conn *c, const char *name, char *token)
{
    h_send(h, c, "{\"type\":\"claim_name\",\"name\":\"%s\"}", name);
    json_t *a = h_wait(h, c, "account", NULL);
    assert_string_equal(str(a, "name"), name);
    const char *t = str(a, "token");
    assert_non_null(t);
    /* "t_" and 64 hex digits (docs: 1..128 of A-Z a-z 0-9 _ -) */
    assert_int_equal(strlen(t), 66);
    assert_memory_equal(t, "t_", 2);
    for (size_t i = 2; i < 66; i++)
        assert_non_null(strchr("0123456789abcdef", t[i]));
    snprintf(token, 80, "%s", t);
}

/* claim_name refused with code, at once (no account message follows). */
static void claim_refused(harness *h, thue_conn *c, const char *name, const char *code)
{
    h_send(h, c, "{\"type\":\"claim_name\",\"name\":\"%s\"}", name);
    expect_code(c, code);
    assert_null(peek(c, "account", NULL, 0));
}

static void test_claim_name(void **st)
{
    (void)st;
    /* without a database there are no accounts */
    harness *h = h_new(60, 1000, 1000);
    thue_conn *zed = h_player(h, "Zed");
    h_send(h, zed, "{\"type\":\"claim_name\",\"name\":\"Zed\"}");
    expect_code(zed, "not_available");
    h_free(h);

    h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    thue_conn *ann = h_player_from(h, "Ann", "198.51.100.1");
    thue_conn *bob = h_player_from(h, "Bob", "198.51.100.2");
    thue_conn *cy = h_player_from(h, "Cy", "198.51.100.3");
    char tok_ann[80], tok_bob[80];
    claim(h, ann, "Ann", tok_ann);                /* a guest may claim its own name */
    claim_refused(h, ann, "Anna", "not_allowed"); /* one account per session */
    claim_refused(h, bob, "Ann", "name_taken");
    claim_refused(h, bob, "ANN", "name_taken");            /* case */
    claim_refused(h, bob, "\xef\xbc\xa1nn", "name_taken"); /* fullwidth A: NFKC */
    claim_refused(h, bob, "Cy", "name_taken");             /* a connected guest's */
    claim_refused(h, bob, "nested", "bad_name");           /* the bots' words */
    claim_refused(h, bob, "Bot-12", "bad_name");
    claim_refused(h, bob, "greedy", "bad_name");
    claim_refused(h, bob, "", "bad_message");
    claim(h, bob, "Bobby", tok_bob); /* another name than the guest's */
    assert_string_not_equal(tok_ann, tok_bob);
    /* the lobby knows both tokens, and no other */
    int64_t id_ann = thue_lobby_account_id(h->lobby, tok_ann);
    int64_t id_bob = thue_lobby_account_id(h->lobby, tok_bob);
    assert_true(id_ann > 0 && id_bob > 0 && id_ann != id_bob);
    char wrong[80];
    snprintf(wrong, sizeof wrong, "%s", tok_ann);
    wrong[2] = wrong[2] == '0' ? '1' : '0';
    assert_true(thue_lobby_account_id(h->lobby, wrong) <= 0);
    /* a new guest may not take an account's name, in any case */
    thue_conn *raw = h_connect_from(h, "198.51.100.9");
    h_send(h, raw, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"bobby\"}");
    expect_code(raw, "name_taken");
    /* Cy, still a guest, may not create a tournament or a rated room; Ann may */
    h_send(h, cy, "{\"type\":\"create_room\",\"k\":3,\"rated\":true}");
    expect_code(cy, "not_allowed");
    h_send(h, cy,
           "{\"type\":\"create_tournament\",\"name\":\"T\",\"format\":\"round_robin\","
           "\"variant\":\"square\",\"k\":3,\"max_players\":4}");
    expect_code(cy, "not_allowed");
    h_send(h, ann,
           "{\"type\":\"create_tournament\",\"name\":\"T\",\"format\":\"round_robin\","
           "\"variant\":\"square\",\"k\":3,\"max_players\":4}");
    expect_ok(ann, "tournament_created");
    h_free_store(h, store);
}

/* One address (an IPv4 address, an IPv6 /64) claims at most 5 accounts an hour; a refused
 * claim costs nothing. */
static void test_claims_per_address(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    char token[80], name[32], peer[64];
    thue_conn *first = h_player_from(h, "Pat", "203.0.113.7");
    claim(h, first, "Pat", token);
    thue_conn *c = h_player_from(h, "Guest1", "203.0.113.7");
    claim_refused(h, c, "PAT", "name_taken"); /* refused: not counted */
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "Claimer%d", i);
        c = h_player_from(h, name, "203.0.113.7");
        claim(h, c, name, token);
    }
    c = h_player_from(h, "Late", "203.0.113.7");
    h_send(h, c, "{\"type\":\"claim_name\",\"name\":\"Late\"}");
    json_t *r = reply(c);
    assert_string_equal(str(r, "code"), "rate_limited");
    assert_non_null(strstr(str(r, "message"), "5 accounts an hour"));
    assert_non_null(strstr(str(r, "message"), "try again in"));
    /* another address may */
    c = h_player_from(h, "Other", "203.0.113.8");
    claim(h, c, "Other", token);
    /* IPv6: one /64 is one address */
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "Six%d", i);
        snprintf(peer, sizeof peer, "2001:db8:5:6::%d", i + 1);
        c = h_player_from(h, name, peer);
        claim(h, c, name, token);
    }
    c = h_player_from(h, "SixLate", "2001:db8:5:6:ffff::1");
    claim_refused(h, c, "SixLate", "rate_limited");
    c = h_player_from(h, "Seven", "2001:db8:5:7::1");
    claim(h, c, "Seven", token);
    h_free_store(h, store);
}

/* hello with token: the account again, taking over a live session; unknown tokens are
 * refused. */
static void test_login_by_token(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    thue_conn *ann = h_player_from(h, "Ann", "198.51.100.1");
    char token[80];
    claim(h, ann, "Ann", token);
    thue_conn *bad = h_connect(h);
    h_send(h, bad,
           "{\"type\":\"hello\",\"protocol\":1,\"token\":\"t_00000000000000000000000000000000"
           "00000000000000000000000000000000\"}");
    expect_code(bad, "bad_token");
    h_send(h, bad, "{\"type\":\"hello\",\"protocol\":1,\"token\":\"nope\"}");
    expect_code(bad, "bad_token");
    /* name and token together are refused */
    h_send(h, bad, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"Ann\",\"token\":\"%s\"}", token);
    expect_code(bad, "bad_message");
    /* a second connection with the token takes the live session over */
    thue_conn *again = h_connect_from(h, "198.51.100.77");
    h_send(h, again, "{\"type\":\"hello\",\"protocol\":1,\"token\":\"%s\"}", token);
    json_t *w = peek(again, "welcome", NULL, 1);
    assert_non_null(w);
    json_t *player = json_object_get(w, "player");
    assert_string_equal(str(player, "name"), "Ann");
    assert_string_equal(str(player, "kind"), "account");
    json_t *bye = peek(ann, "goodbye", NULL, 1);
    assert_non_null(bye);
    assert_string_equal(str(bye, "reason"), "replaced");
    h_disconnect(h, ann);
    /* the session has the account: no second claim, and account-only requests work */
    h_send(h, again, "{\"type\":\"claim_name\",\"name\":\"Annie\"}");
    expect_code(again, "not_allowed");
    h_send(h, again, "{\"type\":\"create_room\",\"k\":3,\"rated\":true}");
    expect_ok(again, "room_created");
    /* after a lost connection (within the grace period) the token still logs in */
    h_disconnect(h, again);
    thue_conn *third = h_connect_from(h, "198.51.100.78");
    h_send(h, third, "{\"type\":\"hello\",\"protocol\":1,\"token\":\"%s\"}", token);
    w = peek(third, "welcome", NULL, 1);
    assert_non_null(w);
    assert_string_equal(str(json_object_get(w, "player"), "name"), "Ann");
    h_free_store(h, store);
}

/* The ladder entry of name in l (a "ladder" reply), or NULL. */
static json_t *ladder_entry(json_t *l, const char *name)
{
    json_t *entries = json_object_get(l, "entries");
    for (size_t i = 0; i < json_array_size(entries); i++)
        if (strcmp(str(json_array_get(entries, i), "name"), name) == 0)
            return json_array_get(entries, i);
    return NULL;
}

static json_t *get_ladder(harness *h, thue_conn *c, const char *kind)
{
    h_send(h, c, "{\"type\":\"get_ladder\",\"variant\":\"square\",\"k\":3,\"kind\":\"%s\"}", kind);
    json_t *r = reply(c);
    assert_string_equal(str(r, "type"), "ladder");
    assert_string_equal(str(r, "kind"), kind);
    return r;
}

/* A rated match of an account against a bot, played to its score: match_end's ratings
 * are the ladder's, the winner gains and the loser loses; a rated room of two bots is not
 * rated. */
static void test_ladder_after_rated_match(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    json_t *l = get_ladder(h, ann, "all");
    assert_int_equal(json_integer_value(json_object_get(l, "total")), 0);
    char room[40];
    snprintf(room, sizeof room, "%s",
             h_room(h, ann, ",\"rated\":true,\"variant\":\"square\",\"limit\":30"));
    h_send(h, ann, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\"}", room);
    expect_ok(ann, "ok");
    h_send(h, ann, "{\"type\":\"ready\",\"room\":\"%s\"}", room);
    reply(ann); /* ok, or the match has started already */
    thue_conn *people[] = {ann};
    json_t *end = h_wait_playing(h, people, 1, ann, "match_end", 60);
    json_t *ratings = json_object_get(end, "ratings");
    assert_true(json_is_array(ratings));
    assert_int_equal(json_array_size(ratings), 2);
    json_t *winner = json_object_get(json_object_get(end, "result"), "winner");
    json_t *players = json_object_get(end, "players");
    assert_string_equal(str(json_array_get(players, 0), "name"), "Ann");
    const char *bot = str(json_array_get(players, 1), "name");
    assert_string_equal(bot, "greedy");
    /* both start at 1500; a win raises, a loss lowers, a draw between equals keeps */
    for (int seat = 0; seat < 2; seat++) {
        json_t *r = json_array_get(ratings, (size_t)seat);
        double before = json_number_value(json_object_get(r, "before"));
        double after = json_number_value(json_object_get(r, "after"));
        assert_true(before == 1500);
        if (json_is_null(winner))
            assert_true(after > 1499.5 && after < 1500.5);
        else if (json_integer_value(winner) == seat)
            assert_true(after > 1500);
        else
            assert_true(after < 1500);
        assert_true(json_number_value(json_object_get(r, "rd_after")) <
                    json_number_value(json_object_get(r, "rd_before")));
    }
    /* the ladder: both, with match_end's ratings, one game each */
    l = get_ladder(h, ann, "all");
    assert_int_equal(json_integer_value(json_object_get(l, "total")), 2);
    const char *names[2] = {"Ann", bot};
    double after[2];
    for (int seat = 0; seat < 2; seat++) {
        json_t *e = ladder_entry(l, names[seat]);
        assert_non_null(e);
        json_t *r = json_array_get(ratings, (size_t)seat);
        after[seat] = json_number_value(json_object_get(r, "after"));
        double got = json_number_value(json_object_get(e, "rating"));
        assert_true(got > after[seat] - 0.051 && got < after[seat] + 0.051);
        double rd = json_number_value(json_object_get(e, "rd"));
        double want_rd = json_number_value(json_object_get(r, "rd_after"));
        assert_true(rd > want_rd - 0.051 && rd < want_rd + 0.051);
        assert_int_equal(json_integer_value(json_object_get(e, "games")), 1);
        int won = !json_is_null(winner) && json_integer_value(winner) == seat;
        int lost = !json_is_null(winner) && json_integer_value(winner) != seat;
        assert_int_equal(json_integer_value(json_object_get(e, "wins")), won);
        assert_int_equal(json_integer_value(json_object_get(e, "losses")), lost);
        assert_int_equal(json_integer_value(json_object_get(e, "draws")), json_is_null(winner));
        assert_string_equal(str(e, "kind"), seat == 0 ? "account" : "bot");
        assert_true(json_is_true(json_object_get(e, "provisional"))); /* RD > 110 */
    }
    /* ranked by rating */
    json_t *top = json_array_get(json_object_get(l, "entries"), 0);
    assert_int_equal(json_integer_value(json_object_get(top, "rank")), 1);
    assert_string_equal(str(top, "name"), names[after[0] >= after[1] ? 0 : 1]);
    /* by kind: the person alone, the bot alone */
    l = get_ladder(h, ann, "human");
    assert_int_equal(json_integer_value(json_object_get(l, "total")), 1);
    assert_non_null(ladder_entry(l, "Ann"));
    l = get_ladder(h, ann, "bot");
    assert_int_equal(json_integer_value(json_object_get(l, "total")), 1);
    assert_non_null(ladder_entry(l, bot));
    /* the HTTP API's ladder says the same */
    thue_lobby_ladder_ask ask = {NULL, NULL, THUE_SQUARE, 3, THUE_LADDER_ALL, 0, 50};
    char *text = NULL, why[200];
    assert_int_equal(thue_lobby_ladder_json(h->lobby, &ask, &text, why, sizeof why), 0);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"total\":2"));
    assert_non_null(strstr(text, "\"name\":\"Ann\""));
    free(text);

    /* two bots in a rated room: played, not rated */
    char room2[40];
    snprintf(room2, sizeof room2, "%s", h_room(h, ann, ",\"rated\":true,\"seat\":false"));
    h_send(h, ann, "{\"type\":\"spectate\",\"room\":\"%s\"}", room2);
    reply(ann); /* ok, or already watching as its creator */
    h_send(h, ann, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"greedy\"}", room2);
    expect_ok(ann, "ok");
    h_send(h, ann, "{\"type\":\"seat_bot\",\"room\":\"%s\",\"bot\":\"nested:1\"}", room2);
    expect_ok(ann, "ok");
    end = h_wait(h, ann, "match_end", room2);
    assert_true(json_is_null(json_object_get(end, "ratings")));
    assert_string_equal(str(end, "unrated_reason"), "bots");
    l = get_ladder(h, ann, "all");
    assert_int_equal(json_integer_value(json_object_get(l, "total")), 2);
    assert_int_equal(json_integer_value(json_object_get(ladder_entry(l, bot), "games")), 1);
    assert_null(ladder_entry(l, "nested:1"));
    h_free_store(h, store);
}

int main(void)
{
    thue_log_set_level(THUE_LOG_ERROR); /* the lobby's info lines are not the test's output */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim_name),
        cmocka_unit_test(test_claims_per_address),
        cmocka_unit_test(test_login_by_token),
        cmocka_unit_test(test_ladder_after_rated_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
