/*
 * test_lobby_tournaments.c: tournaments in the lobby (server/lobby/tournament.c), played
 * to the end through lobby_harness.h with a database in memory: a round robin of bots and
 * a Swiss of two accounts (played by the test, lobby_harness.h's h_play) and bots.
 *
 * What is checked, from the messages alone: who may create, enter, leave and start (and
 * the codes of the refusals); the events (started, one round_started and round_finished
 * per round, finished); every pairing against the format's promises (a round robin: every
 * pair exactly once, one game or bye per entrant per round, one bye each for an odd field;
 * a Swiss: no pair twice, at most one bye each); people seated in their rooms with seat 0
 * the first builder; and the final standings against a plain recount of round_list by
 * docs/tournaments.md's rules (points, games, Buchholz and Sonneborn-Berger with a bye as
 * a win against a virtual opponent, rank = 1 + the players strictly ahead, the order).
 */
#include "lobby_harness.h"

enum { MAXP = 16, MAXR = 16 };

/* create_tournament as c; the new id into id (size 40). */
static void tour_create(harness *h, thue_conn *c, const char *format, const char *extra, char *id)
{
    h_send(h, c,
           "{\"type\":\"create_tournament\",\"name\":\"Cup\",\"format\":\"%s\","
           "\"variant\":\"square\",\"k\":3,\"limit\":12,\"max_players\":8%s}",
           format, extra);
    json_t *r = reply(c);
    if (strcmp(str(r, "type"), "tournament_created") != 0)
        fail_msg("create_tournament: %s: %s", str(r, "code"), str(r, "message"));
    snprintf(id, 40, "%s", str(r, "tournament"));
}

/* get_tournament as c: the reply (owned by c's inbox). */
static json_t *tour_get(harness *h, thue_conn *c, const char *id)
{
    h_send(h, c, "{\"type\":\"get_tournament\",\"tournament\":\"%s\"}", id);
    json_t *r = reply(c);
    assert_string_equal(str(r, "type"), "tournament");
    assert_string_equal(str(r, "tournament"), id);
    return r;
}

static void tour_join(harness *h, thue_conn *c, const char *id, const char *bot)
{
    if (bot)
        h_send(h, c, "{\"type\":\"join_tournament\",\"tournament\":\"%s\",\"bot\":\"%s\"}", id,
               bot);
    else
        h_send(h, c, "{\"type\":\"join_tournament\",\"tournament\":\"%s\"}", id);
    expect_ok(c, "ok");
}

/* The events c heard until `finished` (the people playing their games meanwhile). */
typedef struct events {
    int started, round_started, round_finished, joined, left;
    char rooms[MAXR][MAXP][40]; /* per round_started: its rooms */
    int nrooms[MAXR];
} events;

static void wait_finished(harness *h, thue_conn *const *people, int n, thue_conn *c, const char *id,
                          events *ev)
{
    for (;;) {
        json_t *m = h_wait_playing(h, people, n, c, "tournament_event", 120);
        assert_string_equal(str(m, "tournament"), id);
        const char *e = str(m, "event");
        if (strcmp(e, "finished") == 0)
            return;
        if (strcmp(e, "started") == 0)
            ev->started++;
        else if (strcmp(e, "joined") == 0)
            ev->joined++;
        else if (strcmp(e, "left") == 0)
            ev->left++;
        else if (strcmp(e, "round_finished") == 0)
            ev->round_finished++;
        else if (strcmp(e, "round_started") == 0) {
            assert_true(ev->round_started < MAXR);
            json_t *rooms = json_object_get(m, "rooms");
            int k = ev->round_started++;
            ev->nrooms[k] = (int)json_array_size(rooms);
            assert_true(ev->nrooms[k] <= MAXP);
            for (int i = 0; i < ev->nrooms[k]; i++)
                snprintf(ev->rooms[k][i], 40, "%s",
                         json_string_value(json_array_get(rooms, (size_t)i)));
        } else
            fail_msg("unexpected tournament event %s", e);
    }
}

/* ---- a plain recount of the standings ------------------------------------------------ */

typedef struct entry {
    char name[128];
    int q; /* points, in quarters */
    int games, byes;
    int bh, sb;               /* Buchholz and Sonneborn-Berger, in quarters */
    int opp[MAXR], res[MAXR]; /* per round: opponent index (-1: bye), result in quarters */
    int before[MAXR];         /* points before each round, in quarters */
} entry;

static int index_of(entry *e, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0)
            return i;
    fail_msg("%s is not an entrant", name);
    return -1;
}

static double number(json_t *row, const char *key)
{
    json_t *v = json_object_get(row, key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* Checks t's standings against a recount of its round_list; the entrants into e. */
static int check_standings(json_t *t, entry *e)
{
    json_t *entrants = json_object_get(t, "entrants");
    int n = (int)json_array_size(entrants);
    assert_true(n >= 2 && n <= MAXP);
    memset(e, 0, (size_t)n * sizeof *e);
    for (int i = 0; i < n; i++)
        snprintf(e[i].name, sizeof e[i].name, "%s",
                 str(json_array_get(entrants, (size_t)i), "name"));
    json_t *rounds = json_object_get(t, "round_list");
    int nr = (int)json_array_size(rounds);
    assert_true(nr >= 1 && nr <= MAXR);
    for (int r = 0; r < nr; r++) {
        for (int i = 0; i < n; i++)
            e[i].before[r] = e[i].q, e[i].opp[r] = -2; /* -2: not paired this round */
        json_t *pairings = json_object_get(json_array_get(rounds, (size_t)r), "pairings");
        for (size_t p = 0; p < json_array_size(pairings); p++) {
            json_t *pg = json_array_get(pairings, p), *seats = json_object_get(pg, "seats");
            const char *result = str(pg, "result");
            assert_non_null(result); /* finished: every game has its result */
            int a = index_of(e, n, json_string_value(json_array_get(seats, 0)));
            assert_int_equal(e[a].opp[r], -2); /* one pairing per entrant per round */
            if (json_is_null(json_array_get(seats, 1))) {
                assert_string_equal(result, "bye");
                assert_true(json_is_null(json_object_get(pg, "room")));
                e[a].opp[r] = -1, e[a].res[r] = 4, e[a].byes++;
                continue;
            }
            int b = index_of(e, n, json_string_value(json_array_get(seats, 1)));
            assert_int_equal(e[b].opp[r], -2);
            assert_true(json_is_string(json_object_get(pg, "room")));
            int ra = strcmp(result, "1-0") == 0 ? 4 : strcmp(result, "0-1") == 0 ? 0 : 2;
            if (ra == 2)
                assert_string_equal(result, "1/2-1/2");
            e[a].opp[r] = b, e[a].res[r] = ra, e[a].games++;
            e[b].opp[r] = a, e[b].res[r] = 4 - ra, e[b].games++;
        }
        for (int i = 0; i < n; i++) {
            assert_true(e[i].opp[r] != -2); /* everybody plays or has the bye */
            e[i].q += e[i].res[r];
        }
    }
    for (int i = 0; i < n; i++)
        for (int r = 0; r < nr; r++) {
            int o = e[i].opp[r];
            /* a bye: a win against an opponent with the player's points before the round
             * who drew every later round */
            int oq = o >= 0 ? e[o].q : e[i].before[r] + 2 * (nr - 1 - r);
            e[i].bh += oq;
            e[i].sb += e[i].res[r] == 4 ? oq : e[i].res[r] == 2 ? oq / 2 : 0;
        }
    json_t *st = json_object_get(t, "standings");
    assert_int_equal((int)json_array_size(st), n);
    double last[3] = {1e9, 1e9, 1e9};
    for (int k = 0; k < n; k++) {
        json_t *row = json_array_get(st, (size_t)k);
        entry *x = &e[index_of(e, n, str(row, "name"))];
        assert_true(number(row, "points") == x->q / 4.0);
        assert_int_equal((int)number(row, "games"), x->games);
        assert_true(number(row, "buchholz") == x->bh / 4.0);
        assert_true(number(row, "sonneborn_berger") == x->sb / 4.0);
        int ahead = 0;
        for (int j = 0; j < n; j++)
            ahead += e[j].q > x->q ||
                     (e[j].q == x->q && (e[j].bh > x->bh || (e[j].bh == x->bh && e[j].sb > x->sb)));
        assert_int_equal((int)number(row, "rank"), 1 + ahead);
        /* listed by points, Buchholz, SB */
        double key[3] = {x->q, x->bh, x->sb};
        assert_true(
            key[0] < last[0] ||
            (key[0] == last[0] && (key[1] < last[1] || (key[1] == last[1] && key[2] <= last[2]))));
        memcpy(last, key, sizeof last);
    }
    return n;
}

/* ---- tests ----------------------------------------------------------------------------- */

/* A round robin of five bots entered by an account and a guest: every pair once, one bye
 * each, standings as recounted. */
static void test_round_robin_of_bots(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    thue_conn *bob = h_account(h, "Bob", "198.51.100.2");
    thue_conn *eve = h_player_from(h, "Eve", "198.51.100.3");
    char id[40];
    /* a guest may not create one, nor enter herself; she may enter a bot */
    h_send(h, eve,
           "{\"type\":\"create_tournament\",\"name\":\"X\",\"format\":\"round_robin\","
           "\"variant\":\"square\",\"k\":3,\"max_players\":4}");
    expect_code(eve, "not_allowed");
    tour_create(h, ann, "round_robin", "", id);
    h_send(h, eve, "{\"type\":\"join_tournament\",\"tournament\":\"%s\"}", id);
    expect_code(eve, "not_allowed");
    tour_join(h, ann, id, "greedy");
    tour_join(h, ann, id, "nested:1");
    tour_join(h, bob, id, "nested:2");
    tour_join(h, eve, id, "3");
    tour_join(h, bob, id, "uct:iterations=200");
    /* one entry per bot: "0" is greedy */
    h_send(h, bob, "{\"type\":\"join_tournament\",\"tournament\":\"%s\",\"bot\":\"0\"}", id);
    expect_code(bob, "not_allowed");
    h_send(h, bob, "{\"type\":\"join_tournament\",\"tournament\":\"%s\",\"bot\":\"wizard\"}", id);
    expect_code(bob, "bad_bot");
    h_send(h, bob, "{\"type\":\"join_tournament\",\"tournament\":\"tnothere\"}");
    expect_code(bob, "no_such_tournament");
    json_t *t = tour_get(h, eve, id);
    assert_string_equal(str(t, "status"), "open");
    assert_string_equal(str(t, "format"), "round_robin");
    assert_int_equal(json_integer_value(json_object_get(t, "players")), 5);
    assert_int_equal(json_array_size(json_object_get(t, "entrants")), 5);
    /* only the creator starts it */
    h_send(h, bob, "{\"type\":\"start_tournament\",\"tournament\":\"%s\"}", id);
    expect_code(bob, "not_allowed");
    h_send(h, ann, "{\"type\":\"start_tournament\",\"tournament\":\"%s\"}", id);
    expect_ok(ann, "ok");
    h_send(h, ann, "{\"type\":\"start_tournament\",\"tournament\":\"%s\"}", id);
    expect_code(ann, "tournament_closed");
    h_send(h, bob, "{\"type\":\"join_tournament\",\"tournament\":\"%s\",\"bot\":\"nested:4\"}", id);
    expect_code(bob, "tournament_closed");
    events ev = {0};
    wait_finished(h, NULL, 0, ann, id, &ev);
    assert_int_equal(ev.started, 1);
    assert_int_equal(ev.round_started, 5); /* 5 entrants: 5 rounds of 2 games and a bye */
    assert_int_equal(ev.round_finished, 5);
    for (int r = 0; r < 5; r++)
        assert_int_equal(ev.nrooms[r], 2);
    t = tour_get(h, bob, id);
    assert_string_equal(str(t, "status"), "finished");
    json_t *rounds = json_object_get(t, "round_list");
    assert_int_equal(json_array_size(rounds), 5);
    entry e[MAXP];
    int n = check_standings(t, e);
    assert_int_equal(n, 5);
    /* the round robin's promises: every pair exactly once, one bye each */
    int met[MAXP][MAXP] = {{0}};
    for (int i = 0; i < n; i++) {
        assert_int_equal(e[i].byes, 1);
        assert_int_equal(e[i].games, 4);
        for (int r = 0; r < 5; r++)
            if (e[i].opp[r] >= 0)
                met[i][e[i].opp[r]]++;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            assert_int_equal(met[i][j], i == j ? 0 : 1);
    /* the rooms of round_started are the rooms of round_list, round by round */
    for (int r = 0; r < 5; r++) {
        json_t *pairings = json_object_get(json_array_get(rounds, (size_t)r), "pairings");
        int found = 0;
        for (size_t p = 0; p < json_array_size(pairings); p++) {
            const char *room = str(json_array_get(pairings, p), "room");
            for (int k = 0; room && k < ev.nrooms[r]; k++)
                found += strcmp(room, ev.rooms[r][k]) == 0;
        }
        assert_int_equal(found, 2);
    }
    /* total points: one per game and one per bye */
    int q = 0;
    for (int i = 0; i < n; i++)
        q += e[i].q;
    assert_int_equal(q, 4 * (10 + 5));
    h_send(h, eve, "{\"type\":\"list_tournaments\",\"status\":\"finished\"}");
    json_t *r = reply(eve);
    assert_int_equal(json_integer_value(json_object_get(r, "total")), 1);
    h_free_store(h, store);
}

/* Checks that c was seated in each of its games of t: the room's state has c in the
 * pairing's seat (seat 0 builds first). The number of games found. */
static int check_seated(thue_conn *c, const char *name, json_t *t)
{
    int games = 0;
    json_t *rounds = json_object_get(t, "round_list");
    for (size_t r = 0; r < json_array_size(rounds); r++) {
        json_t *pairings = json_object_get(json_array_get(rounds, r), "pairings");
        for (size_t p = 0; p < json_array_size(pairings); p++) {
            json_t *pg = json_array_get(pairings, p), *seats = json_object_get(pg, "seats");
            for (int seat = 0; seat < 2; seat++) {
                const char *who = json_string_value(json_array_get(seats, (size_t)seat));
                if (who == NULL || strcmp(who, name) != 0 ||
                    json_is_null(json_object_get(pg, "room")))
                    continue;
                json_t *s = latest_state(c, str(pg, "room"));
                assert_non_null(s);
                assert_int_equal(json_integer_value(json_object_get(s, "you")), seat);
                for (int k = 0; k < 2; k++)
                    assert_string_equal(
                        str(json_array_get(json_object_get(s, "players"), (size_t)k), "name"),
                        json_string_value(json_array_get(seats, (size_t)k)));
                /* seat 0 built first: the first state with a match says so */
                json_t *first = NULL;
                for (int i = 0; i < c->n && first == NULL; i++)
                    if (matches(c->inbox[i], "room_state", str(pg, "room")) &&
                        json_is_object(json_object_get(c->inbox[i], "match")))
                        first = c->inbox[i];
                assert_non_null(first);
                assert_int_equal(json_integer_value(mget(first, "round")), 0);
                assert_int_equal(json_integer_value(mget(first, "builder")), 0);
                assert_non_null(json_object_get(json_object_get(s, "match"), "result"));
                assert_false(json_is_null(json_object_get(json_object_get(s, "match"), "result")));
                games++;
            }
        }
    }
    return games;
}

/* A Swiss of three rounds: two accounts who play their games, three bots; one entry
 * leaves before the start. No pair twice, at most one bye each, standings as recounted. */
static void test_swiss_of_people_and_bots(void **st)
{
    (void)st;
    harness *h = h_new(60, 1000, 1000);
    thue_store *store = h_store(h);
    thue_conn *ann = h_account(h, "Ann", "198.51.100.1");
    thue_conn *bob = h_account(h, "Bob", "198.51.100.2");
    char id[40];
    /* a Swiss needs its rounds */
    h_send(h, ann,
           "{\"type\":\"create_tournament\",\"name\":\"X\",\"format\":\"swiss\","
           "\"variant\":\"square\",\"k\":3,\"max_players\":4}");
    expect_code(ann, "bad_message");
    tour_create(h, ann, "swiss", ",\"rounds\":3", id);
    /* a tournament needs two entrants */
    tour_join(h, ann, id, NULL);
    h_send(h, ann, "{\"type\":\"start_tournament\",\"tournament\":\"%s\"}", id);
    expect_code(ann, "not_allowed");
    h_send(h, ann, "{\"type\":\"join_tournament\",\"tournament\":\"%s\"}", id);
    expect_code(ann, "not_allowed"); /* already entered */
    tour_join(h, bob, id, NULL);
    tour_join(h, bob, id, "greedy");
    tour_join(h, bob, id, "nested:1");
    tour_join(h, ann, id, "nested:2");
    tour_join(h, ann, id, "nested:3");
    h_send(h, bob, "{\"type\":\"leave_tournament\",\"tournament\":\"%s\",\"bot\":\"nested:3\"}",
           id);
    expect_ok(bob, "ok");
    h_send(h, bob, "{\"type\":\"leave_tournament\",\"tournament\":\"%s\",\"bot\":\"nested:3\"}",
           id);
    expect_code(bob, "not_allowed"); /* not entered any more */
    json_t *t = tour_get(h, bob, id);
    assert_int_equal(json_integer_value(json_object_get(t, "players")), 5);
    h_send(h, ann, "{\"type\":\"start_tournament\",\"tournament\":\"%s\"}", id);
    expect_ok(ann, "ok");
    events ev = {0};
    thue_conn *people[] = {ann, bob};
    wait_finished(h, people, 2, ann, id, &ev);
    assert_int_equal(ev.started, 1);
    assert_int_equal(ev.round_started, 3);
    assert_int_equal(ev.round_finished, 3);
    /* Bob heard the same rounds (he is an entrant) */
    events evb = {0};
    wait_finished(h, people, 2, bob, id, &evb);
    assert_int_equal(evb.round_started, 3);
    for (int r = 0; r < 3; r++) {
        assert_int_equal(ev.nrooms[r], 2); /* 5 entrants: 2 games and a bye */
        assert_int_equal(evb.nrooms[r], 2);
        for (int k = 0; k < 2; k++)
            assert_string_equal(ev.rooms[r][k], evb.rooms[r][k]);
    }
    t = tour_get(h, ann, id);
    assert_string_equal(str(t, "status"), "finished");
    assert_string_equal(str(t, "format"), "swiss");
    entry e[MAXP];
    int n = check_standings(t, e);
    assert_int_equal(n, 5);
    int met[MAXP][MAXP] = {{0}}, byes = 0;
    for (int i = 0; i < n; i++) {
        assert_true(e[i].byes <= 1);
        byes += e[i].byes;
        assert_int_equal(e[i].games + e[i].byes, 3);
        for (int r = 0; r < 3; r++)
            if (e[i].opp[r] >= 0)
                met[i][e[i].opp[r]]++;
    }
    assert_int_equal(byes, 3);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            assert_true(met[i][j] <= 1);
    /* the people were seated in their games, which they played to the end */
    int ia = index_of(e, n, "Ann"), ib = index_of(e, n, "Bob");
    assert_int_equal(check_seated(ann, "Ann", t), e[ia].games);
    assert_int_equal(check_seated(bob, "Bob", t), e[ib].games);
    assert_true(e[ia].games >= 2 && e[ib].games >= 2);
    /* tournament games are not rated: the ladder of square, 3 is empty */
    thue_lobby_ladder_ask ask = {NULL, NULL, THUE_SQUARE, 3, THUE_LADDER_ALL, 0, 50};
    char *text = NULL, why[200];
    assert_int_equal(thue_lobby_ladder_json(h->lobby, &ask, &text, why, sizeof why), 0);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"total\":0"));
    free(text);
    h_free_store(h, store);
}

int main(void)
{
    thue_log_set_level(THUE_LOG_ERROR); /* the lobby's info lines are not the test's output */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_of_bots),
        cmocka_unit_test(test_swiss_of_people_and_bots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
