/*
 * test_store_games.c: other games' matches in the store (schemas 2 and 3, server/store): a Nim
 * match saved and read back (GET /api/matches/{id}'s JSON, moves.csv), the list of a
 * player's matches filtered by game (checked against a plain filter and sort of what was
 * saved), and a database of schema version 1 (a rated Thue match), made here with
 * version 1's own SQL, migrating in place (through versions 2 and 3) with its Thue match
 * intact, its JSON byte for byte what version 1 served, and its rating in pool
 * ("thue", "square-k3").
 *
 * Nim matches are played with the game's own table (server/games), so the states and
 * moves stored are what the lobby would store. Waiting is running the uv loop: the store
 * keeps it alive while a callback is pending.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "base/errors.h"
#include "games/game.h"
#include "store/store.h"
#include "store_testdb.h"

/* ---- fixtures ------------------------------------------------------------------------ */

typedef testdb tdir;
#define tdir_make testdb_make
#define tdir_remove testdb_remove

typedef struct res {
    int calls, err, status;
    char *body;
    size_t len;
} res;

static void on_write(int err, int64_t id, void *data)
{
    res *r = data;
    (void)id;
    r->calls++;
    r->err = err;
}

static void on_read(int status, char *body, size_t len, void *data)
{
    res *r = data;
    r->calls++;
    r->status = status;
    r->body = body;
    r->len = len;
}

static void on_closed(void *data)
{
    (*(int *)data)++;
}

static thue_store *open_started(const char *path, uv_loop_t *loop)
{
    char err[256];
    thue_store *s = thue_store_open(path, err, sizeof err);
    if (s == NULL)
        fail_msg("thue_store_open(%s): %s", path, err);
    assert_int_equal(thue_store_start(s, loop), 0);
    return s;
}

static void close_run(thue_store *s, uv_loop_t *loop)
{
    int closed = 0;
    thue_store_close(s, on_closed, &closed);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(closed, 1);
}

static void save(thue_store *s, uv_loop_t *loop, const thue_match_row *m)
{
    res w = {0};
    assert_int_equal(thue_store_save_match(s, m, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.err, 0);
}

/* A finished read's body (the caller frees it), after checking its status. */
static char *read_body(res *r, int status_want)
{
    assert_int_equal(r->calls, 1);
    assert_int_equal(r->status, status_want);
    assert_non_null(r->body);
    assert_int_equal(strlen(r->body), r->len);
    return r->body;
}

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    if (j == NULL)
        fail_msg("not JSON (%s): %s", e.text, text);
    return j;
}

static char *match_text(thue_store *s, uv_loop_t *loop, const char *id, int status_want)
{
    res r = {0};
    assert_int_equal(thue_store_match_json(s, id, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    return read_body(&r, status_want);
}

static char *csv_text(thue_store *s, uv_loop_t *loop, const char *id)
{
    res r = {0};
    assert_int_equal(thue_store_moves_csv(s, id, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    return read_body(&r, 200);
}

static json_t *list_json(thue_store *s, uv_loop_t *loop, const char *player, const char *game,
                         int64_t viewer, int page, int per_page)
{
    res r = {0};
    assert_int_equal(
        thue_store_matches_game_json_as(s, player, game, viewer, page, per_page, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    char *body = read_body(&r, 200);
    json_t *j = parse(body);
    free(body);
    return j;
}

/* ---- a Nim match, played with the game's table ------------------------------------------ */

typedef struct gmatch {
    thue_match_row row;
    thue_move_row moves[64];
    char *start, *final;       /* state JSON texts */
    json_t *start_j, *final_j; /* the same as JSON, for comparisons */
    json_t *options_j;         /* the canonical options */
} gmatch;

static void gmatch_free(gmatch *t)
{
    for (int i = 0; i < 64; i++)
        free(t->moves[i].gmove);
    free(t->start);
    free(t->final);
    json_decref(t->start_j);
    json_decref(t->final_j);
    json_decref(t->options_j);
}

/*
 * Plays Nim with options `options` to its end: each move is legal move number
 * (pick * (ply + 1)) % count; seat gfirst is player 0. Fills the row as record.c does.
 */
static void play_nim(gmatch *t, const char *id, const char *a, const char *b, const char *options,
                     int gfirst, unsigned pick, int64_t ended)
{
    memset(t, 0, sizeof *t);
    const thue_gamedef *g = thue_game_find("nim");
    assert_non_null(g);
    thue_gopt opt;
    thue_gerr e;
    assert_int_equal(thue_game_options_text(g, options, &opt, &e), 0);
    void *st = malloc(g->state_size(&opt));
    assert_non_null(st);
    g->start(&opt, 7, st);
    t->start = thue_game_dump(g->state_json(&opt, st));
    thue_gmove *legal = malloc((size_t)g->max_moves(&opt) * sizeof *legal);
    assert_non_null(legal);
    int n = 0;
    for (int count; (count = g->legal_moves(&opt, st, legal)) > 0; n++) {
        assert_true(n < 64);
        thue_gmove m = legal[(pick * (unsigned)(n + 1)) % (unsigned)count];
        int player = g->to_move(&opt, st);
        assert_int_equal(g->apply(&opt, st, player, &m, &e), 0);
        thue_move_row *mv = &t->moves[n];
        mv->round = 0;
        mv->ply = n;
        mv->seat = player ^ gfirst;
        mv->think_ms = 0.5 * (n + 1) + (n == 1 ? 0.125 : 0);
        mv->gmove = thue_game_dump(g->move_json(&opt, &m)); /* gmatch_free frees it */
        assert_non_null(mv->gmove);
    }
    thue_gresult r;
    g->result(&opt, st, &r);
    assert_true(r.over);
    t->final = thue_game_dump(g->state_json(&opt, st));
    t->start_j = parse(t->start);
    t->final_j = parse(t->final);
    t->options_j = g->options_json(&opt);
    free(st);
    free(legal);

    thue_match_row *m = &t->row;
    snprintf(m->id, sizeof m->id, "%.31s", id);
    snprintf(m->room, sizeof m->room, "r%.30s", id);
    m->number = 2;
    m->opt.variant = THUE_SQUARE;
    m->opt.k = 3;
    m->opt.limit = 100;
    m->opt.first = THUE_FIRST_CREATOR;
    m->opt.has_game = 1;
    snprintf(m->opt.game, sizeof m->opt.game, "nim");
    char *ot = thue_game_dump(json_incref(t->options_j));
    snprintf(m->opt.game_options, sizeof m->opt.game_options, "%s", ot);
    free(ot);
    snprintf(m->players[0].name, sizeof m->players[0].name, "%s", a);
    m->players[0].kind = THUE_KIND_GUEST;
    snprintf(m->players[1].name, sizeof m->players[1].name, "%s", b);
    m->players[1].kind = THUE_KIND_GUEST;
    m->winner = r.winner < 0 ? -1 : r.winner ^ gfirst;
    snprintf(m->why, sizeof m->why, "%s", r.why);
    m->gfirst = gfirst;
    for (int p = 0; p < 2; p++)
        m->points[p ^ gfirst] = r.score[p];
    m->start_state = t->start;
    m->final_state = t->final;
    m->moves = t->moves;
    m->nmoves = n;
    m->started_ms = ended - 30000;
    m->ended_ms = ended;
}

/* A Thue match (two short rounds), as test_store.c's: seat 0 a guest, seat 1 a bot. */
typedef struct tmatch {
    thue_match_row row;
    thue_move_row moves[8];
    uint8_t words[2][4];
} tmatch;

static void make_thue(tmatch *t, const char *id, const char *a, const char *b, int64_t ended)
{
    memset(t, 0, sizeof *t);
    thue_match_row *m = &t->row;
    snprintf(m->id, sizeof m->id, "%.31s", id);
    snprintf(m->room, sizeof m->room, "r%.30s", id);
    m->number = 1;
    m->opt.variant = THUE_SQUARE;
    m->opt.k = 3;
    m->opt.limit = 100;
    m->opt.first = THUE_FIRST_CREATOR;
    snprintf(m->players[0].name, sizeof m->players[0].name, "%s", a);
    m->players[0].kind = THUE_KIND_GUEST;
    snprintf(m->players[1].name, sizeof m->players[1].name, "%s", b);
    m->players[1].kind = THUE_KIND_BOT;
    snprintf(m->bots[1], sizeof m->bots[1], "nested:1");
    m->winner = 1;
    m->reason = THUE_END_SCORE;
    m->points[0] = 2;
    m->points[1] = 3;
    for (int r = 0; r < 2; r++) {
        t->words[r][0] = 0;
        t->words[r][1] = 0;
        m->rounds[r].builder = r;
        m->rounds[r].points = 2 + r;
        m->rounds[r].end = THUE_ROUND_REPETITION;
        m->rounds[r].has_repetition = 1;
        m->rounds[r].repetition.start = 0;
        m->rounds[r].repetition.period = 1;
        m->rounds[r].repetition.length = 2;
        m->rounds[r].word = t->words[r];
        m->rounds[r].word_len = 2;
    }
    for (int i = 0; i < 4; i++) {
        thue_move_row *mv = &t->moves[i];
        mv->round = i / 2;
        mv->ply = i % 2;
        mv->is_paint = i % 2;
        mv->seat = mv->is_paint ? 1 - mv->round : mv->round;
        mv->value = 0;
        mv->think_ms = 1.5;
    }
    m->moves = t->moves;
    m->nmoves = 4;
    m->started_ms = ended - 60000;
    m->ended_ms = ended;
}

/* ---- a Nim match read back ---------------------------------------------------------------- */

static void test_game_match_roundtrip(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(":memory:", &loop);
    gmatch t;
    /* Heaps [1,2] from the task's example, seat 1 moving first. */
    play_nim(&t, "mnim1", "Ann", "Bob", "{\"heaps\":[1,2]}", 1, 1, 1700000200000);
    assert_true(t.row.nmoves >= 2);
    save(s, &loop, &t.row);

    char *body = match_text(s, &loop, "mnim1", 200);
    json_t *j = parse(body);
    free(body);
    assert_string_equal(json_string_value(json_object_get(j, "match")), "mnim1");
    assert_string_equal(json_string_value(json_object_get(j, "room")), "rmnim1");
    assert_int_equal(json_integer_value(json_object_get(j, "number")), 2);
    assert_string_equal(json_string_value(json_object_get(j, "game")), "nim");
    assert_true(json_equal(json_object_get(j, "game_options"), t.options_j));
    json_t *heaps = json_object_get(json_object_get(j, "game_options"), "heaps");
    assert_int_equal(json_array_size(heaps), 2);
    assert_int_equal(json_integer_value(json_array_get(heaps, 1)), 2);
    assert_true(json_equal(json_object_get(j, "start"), t.start_j));
    assert_true(json_equal(json_object_get(j, "final"), t.final_j));
    assert_int_equal(json_integer_value(json_object_get(j, "first")), 1);
    /* Thue's members stay out of another game's record. */
    assert_null(json_object_get(j, "rounds"));
    json_t *o = json_object_get(j, "options");
    assert_null(json_object_get(o, "variant"));
    assert_null(json_object_get(o, "k"));
    assert_true(json_is_null(json_object_get(o, "clock")));
    assert_true(json_is_false(json_object_get(o, "rated")));
    assert_true(json_is_false(json_object_get(o, "private")));
    json_t *jres = json_object_get(j, "result");
    if (t.row.winner < 0)
        assert_true(json_is_null(json_object_get(jres, "winner")));
    else
        assert_int_equal(json_integer_value(json_object_get(jres, "winner")), t.row.winner);
    assert_string_equal(json_string_value(json_object_get(jres, "reason")), "no_moves");
    json_t *pts = json_object_get(j, "points");
    for (int p = 0; p < 2; p++)
        assert_int_equal(json_integer_value(json_array_get(pts, (size_t)p)), t.row.points[p]);
    /* One point to the winner (one-game matches score 1 for a win). */
    assert_int_equal(t.row.points[t.row.winner], 1);
    assert_int_equal(t.row.points[1 - t.row.winner], 0);
    json_t *players = json_object_get(j, "players");
    assert_string_equal(json_string_value(json_object_get(json_array_get(players, 0), "name")),
                        "Ann");
    assert_string_equal(json_string_value(json_object_get(json_array_get(players, 1), "name")),
                        "Bob");
    json_t *moves = json_object_get(j, "moves");
    assert_int_equal(json_array_size(moves), (size_t)t.row.nmoves);
    for (int i = 0; i < t.row.nmoves; i++) {
        json_t *mv = json_array_get(moves, (size_t)i);
        assert_int_equal(json_object_size(mv), 4); /* ply, seat, move, think_ms */
        assert_int_equal(json_integer_value(json_object_get(mv, "ply")), i);
        assert_int_equal(json_integer_value(json_object_get(mv, "seat")), t.moves[i].seat);
        json_t *want = parse(t.moves[i].gmove);
        assert_true(json_equal(json_object_get(mv, "move"), want));
        json_decref(want);
        assert_true(json_number_value(json_object_get(mv, "think_ms")) == t.moves[i].think_ms);
    }
    /* The first mover is seat gfirst; seats alternate. */
    assert_int_equal(t.moves[0].seat, 1);
    assert_int_equal(t.moves[1].seat, 0);
    assert_true(json_is_null(json_object_get(j, "ratings")));
    assert_int_equal(json_integer_value(json_object_get(j, "ended_at")), 1700000200000);
    assert_true(json_is_null(json_object_get(j, "tournament")));
    json_decref(j);

    /* moves.csv: ply,seat,move,think_ms with the move's JSON quoted (quotes doubled). */
    char *csv = csv_text(s, &loop, "mnim1");
    char want[4096];
    size_t at = (size_t)snprintf(want, sizeof want, "ply,seat,move,think_ms\n");
    for (int i = 0; i < t.row.nmoves; i++) {
        at += (size_t)snprintf(want + at, sizeof want - at, "%d,%d,\"", i, t.moves[i].seat);
        for (const char *c = t.moves[i].gmove; *c; c++) {
            want[at++] = *c;
            if (*c == '"')
                want[at++] = '"';
        }
        at += (size_t)snprintf(want + at, sizeof want - at, "\",%.3f\n", t.moves[i].think_ms);
    }
    assert_string_equal(csv, want);
    assert_non_null(strstr(csv, "\"{\"\"heap\"\":"));
    free(csv);
    gmatch_free(&t);

    /* An unknown id is still not found. */
    body = match_text(s, &loop, "mnone", 404);
    free(body);
    close_run(s, &loop);
    uv_loop_close(&loop);
}

/* A game row the store must refuse (THUE_EINVAL at once): no reason text, a bad player 0. */
static void test_game_match_invalid(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(":memory:", &loop);
    gmatch t;
    play_nim(&t, "mbad", "Ann", "Bob", NULL, 0, 3, 1700000000000);
    t.row.why[0] = '\0';
    assert_int_equal(thue_store_save_match(s, &t.row, on_write, NULL), THUE_EINVAL);
    snprintf(t.row.why, sizeof t.row.why, "no_moves");
    t.row.gfirst = 2;
    assert_int_equal(thue_store_save_match(s, &t.row, on_write, NULL), THUE_EINVAL);
    t.row.gfirst = 0;
    t.row.opt.game[0] = '\0';
    assert_int_equal(thue_store_save_match(s, &t.row, on_write, NULL), THUE_EINVAL);
    gmatch_free(&t);
    close_run(s, &loop);
    uv_loop_close(&loop);
}

/* ---- lists filtered by game, against a plain filter --------------------------------------- */

typedef struct saved {
    char id[16];
    const char *a, *b, *game;
    int64_t ended;
} saved;

static int newest_first(const void *x, const void *y)
{
    const saved *p = x, *q = y;
    if (p->ended != q->ended)
        return p->ended < q->ended ? 1 : -1;
    return -strcmp(p->id, q->id);
}

static void test_list_by_game(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(":memory:", &loop);
    static const char *const names[] = {"Ann", "Bob", "Cy"};
    enum { N = 36 };
    saved all[N];
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = thue_gmix64(x);
        saved *v = &all[i];
        snprintf(v->id, sizeof v->id, "m%02d", i);
        v->a = names[x % 3];
        v->b = names[(x / 3 % 2 + 1 + x % 3) % 3]; /* never a itself */
        v->game = (x >> 20) % 3 == 0 ? "thue" : "nim";
        v->ended = 1700000000000 + (int64_t)((x >> 24) % 8) * 1000; /* ties: id breaks them */
        if (strcmp(v->game, "thue") == 0) {
            tmatch t;
            make_thue(&t, v->id, v->a, v->b, v->ended);
            save(s, &loop, &t.row);
        } else {
            gmatch t;
            play_nim(&t, v->id, v->a, v->b, (x >> 40) & 1 ? "{\"heaps\":[2,3]}" : NULL,
                     (int)((x >> 30) & 1), (unsigned)(x >> 33), v->ended);
            save(s, &loop, &t.row);
            gmatch_free(&t);
        }
    }
    qsort(all, N, sizeof all[0], newest_first);
    static const char *const games[] = {NULL, "thue", "nim", "chess"};
    int listed[4] = {0, 0, 0, 0}; /* per game filter, over the three players */
    for (int pi = 0; pi < 3; pi++)
        for (int gi = 0; gi < 4; gi++) {
            const char *want_ids[N];
            int nwant = 0;
            for (int i = 0; i < N; i++)
                if ((strcmp(all[i].a, names[pi]) == 0 || strcmp(all[i].b, names[pi]) == 0) &&
                    (games[gi] == NULL || strcmp(all[i].game, games[gi]) == 0))
                    want_ids[nwant++] = all[i].id;
            const int per_page = 4;
            int pages = nwant == 0 ? 1 : (nwant + per_page - 1) / per_page;
            int seen = 0;
            for (int page = 1; page <= pages; page++) {
                /* Names compare ignoring ASCII case, as before. */
                char lower[8];
                snprintf(lower, sizeof lower, "%s", names[pi]);
                lower[0] = (char)(lower[0] - 'A' + 'a');
                json_t *j = list_json(s, &loop, lower, games[gi], -1, page, per_page);
                assert_int_equal(json_integer_value(json_object_get(j, "pages")), pages);
                json_t *list = json_object_get(j, "matches");
                for (size_t k = 0; k < json_array_size(list); k++) {
                    json_t *m = json_array_get(list, k);
                    assert_true(seen < nwant);
                    assert_string_equal(json_string_value(json_object_get(m, "match")),
                                        want_ids[seen]);
                    const char *g = json_string_value(json_object_get(m, "game"));
                    assert_non_null(g);
                    if (games[gi])
                        assert_string_equal(g, games[gi]);
                    /* Thue's summaries keep variant and k; another game's carry its
                     * options instead. */
                    int thue = strcmp(g, "thue") == 0;
                    assert_int_equal(json_object_get(m, "variant") != NULL, thue);
                    assert_int_equal(json_object_get(m, "game_options") != NULL, !thue);
                    seen++;
                }
                json_decref(j);
            }
            assert_int_equal(seen, nwant);
            listed[gi] += seen;
        }
    /* Every match has two players: listed twice in all, once per game it belongs to. */
    assert_int_equal(listed[0], 2 * N);
    assert_int_equal(listed[1] + listed[2], 2 * N);
    assert_true(listed[1] > 0 && listed[2] > 0);
    assert_int_equal(listed[3], 0);
    close_run(s, &loop);
    uv_loop_close(&loop);
}

/* ---- a version-1 database migrating to version 3 ------------------------------------------ */

/* Schema version 1 as it shipped (sql_sqlite.c's first migration), to make an old file. */
static const char v1_schema[] =
    "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT "
    "NULL UNIQUE, kind INTEGER NOT NULL CHECK (kind IN (1, 2)), bot TEXT, token_hash BLOB "
    "CHECK (token_hash IS NULL OR length(token_hash) = 32), created_ms INTEGER NOT NULL);"
    "CREATE TABLE ratings (account INTEGER NOT NULL REFERENCES accounts (id), variant TEXT "
    "NOT NULL, k INTEGER NOT NULL, rating REAL NOT NULL, rd REAL NOT NULL, vol REAL NOT NULL, "
    "games INTEGER NOT NULL, wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER "
    "NOT NULL, PRIMARY KEY (account, variant, k)) WITHOUT ROWID;"
    "CREATE TABLE matches (id TEXT PRIMARY KEY, room TEXT NOT NULL, number INTEGER NOT NULL, "
    "variant TEXT NOT NULL, k INTEGER NOT NULL, \"limit\" INTEGER NOT NULL, clock_initial_ms "
    "INTEGER, clock_increment_ms INTEGER, rated INTEGER NOT NULL, private INTEGER NOT NULL, "
    "first_builder TEXT NOT NULL, name0 TEXT NOT NULL COLLATE NOCASE, kind0 TEXT NOT NULL, "
    "account0 INTEGER REFERENCES accounts (id), bot0 TEXT, name1 TEXT NOT NULL COLLATE "
    "NOCASE, kind1 TEXT NOT NULL, account1 INTEGER REFERENCES accounts (id), bot1 TEXT, "
    "winner INTEGER, reason TEXT NOT NULL, points0 INTEGER NOT NULL, points1 INTEGER NOT "
    "NULL, rounds TEXT NOT NULL, rating0_before REAL, rating0_after REAL, rd0_before REAL, "
    "rd0_after REAL, rating1_before REAL, rating1_after REAL, rd1_before REAL, rd1_after "
    "REAL, started_ms INTEGER NOT NULL, ended_ms INTEGER NOT NULL, tournament TEXT, "
    "tournament_round INTEGER);"
    "CREATE INDEX matches_name0 ON matches (name0, ended_ms);"
    "CREATE INDEX matches_name1 ON matches (name1, ended_ms);"
    "CREATE INDEX matches_ended ON matches (ended_ms);"
    "CREATE TABLE moves (match TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE, "
    "round INTEGER NOT NULL, ply INTEGER NOT NULL, seat INTEGER NOT NULL, is_paint INTEGER "
    "NOT NULL, value INTEGER NOT NULL, think_ms REAL NOT NULL, PRIMARY KEY (match, round, "
    "ply)) WITHOUT ROWID;"
    "CREATE TABLE tournaments (id TEXT PRIMARY KEY, state TEXT NOT NULL, finished INTEGER "
    "NOT NULL, updated_ms INTEGER NOT NULL);"
    "PRAGMA user_version = 1;";

/* The same version 1 on PostgreSQL (sql_pg.c's first migration). */
static const char v1_schema_pg[] =
    "CREATE TABLE thue_schema (version INTEGER NOT NULL);"
    "INSERT INTO thue_schema (version) VALUES (1);"
    "CREATE TABLE accounts (id BIGINT PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT "
    "NULL UNIQUE, kind INTEGER NOT NULL CHECK (kind IN (1, 2)), bot TEXT, token_hash BYTEA "
    "CHECK (token_hash IS NULL OR length(token_hash) = 32), created_ms BIGINT NOT NULL);"
    "CREATE TABLE ratings (account BIGINT NOT NULL REFERENCES accounts (id), variant TEXT "
    "NOT NULL, k BIGINT NOT NULL, rating DOUBLE PRECISION NOT NULL, rd DOUBLE PRECISION NOT "
    "NULL, vol DOUBLE PRECISION NOT NULL, games BIGINT NOT NULL, wins BIGINT NOT NULL, draws "
    "BIGINT NOT NULL, losses BIGINT NOT NULL, PRIMARY KEY (account, variant, k));"
    "CREATE TABLE matches (id TEXT PRIMARY KEY, room TEXT NOT NULL, number BIGINT NOT NULL, "
    "variant TEXT NOT NULL, k BIGINT NOT NULL, \"limit\" BIGINT NOT NULL, clock_initial_ms "
    "BIGINT, clock_increment_ms BIGINT, rated BIGINT NOT NULL, private BIGINT NOT NULL, "
    "first_builder TEXT NOT NULL, name0 TEXT NOT NULL, kind0 TEXT NOT NULL, account0 BIGINT "
    "REFERENCES accounts (id), bot0 TEXT, name1 TEXT NOT NULL, kind1 TEXT NOT NULL, account1 "
    "BIGINT REFERENCES accounts (id), bot1 TEXT, winner BIGINT, reason TEXT NOT NULL, "
    "points0 BIGINT NOT NULL, points1 BIGINT NOT NULL, rounds TEXT NOT NULL, rating0_before "
    "DOUBLE PRECISION, rating0_after DOUBLE PRECISION, rd0_before DOUBLE PRECISION, "
    "rd0_after DOUBLE PRECISION, rating1_before DOUBLE PRECISION, rating1_after DOUBLE "
    "PRECISION, rd1_before DOUBLE PRECISION, rd1_after DOUBLE PRECISION, started_ms BIGINT "
    "NOT NULL, ended_ms BIGINT NOT NULL, tournament TEXT, tournament_round BIGINT, "
    "name0_key TEXT NOT NULL GENERATED ALWAYS AS (translate(name0, "
    "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) STORED, "
    "name1_key TEXT NOT NULL GENERATED ALWAYS AS (translate(name1, "
    "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) STORED);"
    "CREATE INDEX matches_name0 ON matches (name0_key, ended_ms);"
    "CREATE INDEX matches_name1 ON matches (name1_key, ended_ms);"
    "CREATE INDEX matches_ended ON matches (ended_ms);"
    "CREATE TABLE moves (match TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE, "
    "round BIGINT NOT NULL, ply BIGINT NOT NULL, seat BIGINT NOT NULL, is_paint BIGINT "
    "NOT NULL, value BIGINT NOT NULL, think_ms DOUBLE PRECISION NOT NULL, PRIMARY KEY "
    "(match, round, ply));"
    "CREATE TABLE tournaments (id TEXT PRIMARY KEY, state TEXT NOT NULL, finished BIGINT "
    "NOT NULL, updated_ms BIGINT NOT NULL);";

/* A rated Thue match between two accounts, as a version-1 server wrote it. */
static const char v1_rows[] =
    "INSERT INTO accounts VALUES (1, 'Ann', 'ann', 1, NULL, NULL, 1700000000000);"
    "INSERT INTO accounts VALUES (2, 'Bob', 'bob', 1, NULL, NULL, 1700000000001);"
    "INSERT INTO ratings VALUES (1, 'square', 3, 1662.5, 290.25, 0.06, 1, 1, 0, 0);"
    "INSERT INTO matches VALUES ('mold1', 'rold', 1, 'square', 3, 100, 60000, 2000, 1, 0, "
    "'creator', 'Ann', 'account', 1, NULL, 'Bob', 'account', 2, NULL, 0, 'score', 4, 2, "
    "'[{\"builder\":0,\"points\":4,\"end\":\"repetition\",\"repetition\":{\"start\":1,"
    "\"period\":1,\"length\":2},\"word\":[0,1,1]},{\"builder\":1,\"points\":2,\"end\":"
    "\"limit\",\"repetition\":null,\"word\":[2,0]}]', 1500, 1662.5, 350, 290.25, 1500, "
    "1337.5, 350, 290.25, 1700000100000, 1700000160000, NULL, NULL);"
    "INSERT INTO moves VALUES ('mold1', 0, 0, 0, 0, 0, 12.5);"
    "INSERT INTO moves VALUES ('mold1', 0, 1, 1, 1, 1, 3);"
    "INSERT INTO moves VALUES ('mold1', 1, 0, 1, 0, 0, 0.4);";

/* What version 1 served for that match (GET /api/matches/mold1), byte for byte. */
static const char v1_json[] =
    "{\"match\":\"mold1\",\"room\":\"rold\",\"number\":1,\"options\":{\"variant\":\"square\","
    "\"k\":3,\"limit\":100,\"clock\":{\"initial_ms\":60000,\"increment_ms\":2000},\"rated\":"
    "true,\"private\":false,\"first_builder\":\"creator\"},\"players\":[{\"name\":\"Ann\","
    "\"kind\":\"account\",\"bot\":null},{\"name\":\"Bob\",\"kind\":\"account\",\"bot\":null}],"
    "\"result\":{\"winner\":0,\"reason\":\"score\"},\"points\":[4,2],\"rounds\":[{\"builder\":"
    "0,\"points\":4,\"end\":\"repetition\",\"repetition\":{\"start\":1,\"period\":1,"
    "\"length\":2},\"word\":[0,1,1]},{\"builder\":1,\"points\":2,\"end\":\"limit\","
    "\"repetition\":null,\"word\":[2,0]}],\"moves\":[{\"round\":0,\"ply\":0,\"seat\":0,"
    "\"kind\":\"place\",\"value\":0,\"think_ms\":12.5},{\"round\":0,\"ply\":1,\"seat\":1,"
    "\"kind\":\"paint\",\"value\":1,\"think_ms\":3},{\"round\":1,\"ply\":0,\"seat\":1,"
    "\"kind\":\"place\",\"value\":0,\"think_ms\":0.4}],\"ratings\":[{\"before\":1500,"
    "\"after\":1662.5,\"rd_before\":350,\"rd_after\":290.25},{\"before\":1500,\"after\":"
    "1337.5,\"rd_before\":350,\"rd_after\":290.25}],\"started_at\":1700000100000,"
    "\"ended_at\":1700000160000,\"tournament\":null,\"tournament_round\":null}";

#define sql_exec testdb_exec
#define sql_int testdb_int

static void load_account(void *ctx, const thue_account_row *row)
{
    (void)row;
    (*(int *)ctx)++;
}

/* Ann's rating of pool (square, 3), which schema 3 keys as game "thue", pool "square-k3". */
static void load_rating(void *ctx, const thue_rating_row *row)
{
    assert_int_equal(row->account, 1);
    assert_string_equal(row->game, "thue");
    assert_string_equal(row->pool, "square-k3");
    assert_true(row->rating == 1662.5 && row->rd == 290.25 && row->vol == 0.06);
    assert_true(row->games == 1 && row->wins == 1 && row->draws == 0 && row->losses == 0);
    (*(int *)ctx) += 100;
}

static void test_v1_migrates(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    sql_exec(t.path, testdb_pg() ? v1_schema_pg : v1_schema);
    sql_exec(t.path, v1_rows);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), 1);

    char err[256];
    thue_store *s = thue_store_open(t.path, err, sizeof err);
    if (s == NULL)
        fail_msg("open: %s", err);
    int loaded = 0;
    assert_int_equal(thue_store_load(s, load_account, load_rating, NULL, &loaded, err, sizeof err),
                     0);
    assert_int_equal(loaded, 2 + 100); /* both accounts, Ann's rating */
    uv_loop_t loop;
    uv_loop_init(&loop);
    assert_int_equal(thue_store_start(s, &loop), 0);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), THUE_STORE_SCHEMA_VERSION);
    assert_int_equal(THUE_STORE_SCHEMA_VERSION, 7);
    /* Schema 4: the accounts have no password, and no login token yet. */
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts WHERE password_hash IS NULL"),
                     2);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM account_tokens"), 0);
    /* Schema 5: the old rows' change numbers are 0. */
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts WHERE seq = 0"), 2);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM ratings WHERE seq = 0"), 1);
    /* Schema 6: no match has a review yet (they are computed when asked for). */
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM reviews"), 0);

    /* The old match, whole, as Thue's. */
    char *body = match_text(s, &loop, "mold1", 200);
    assert_string_equal(body, v1_json);
    free(body);
    char *csv = csv_text(s, &loop, "mold1");
    assert_string_equal(csv, "round,ply,seat,role,move,think_ms\n0,0,0,builder,0,12.500\n"
                             "0,1,1,painter,1,3.000\n1,0,1,builder,0,0.400\n");
    free(csv);
    json_t *j = list_json(s, &loop, "ann", "thue", 0, 1, 10);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 1);
    json_t *sum = json_array_get(json_object_get(j, "matches"), 0);
    assert_string_equal(json_string_value(json_object_get(sum, "game")), "thue");
    assert_string_equal(json_string_value(json_object_get(sum, "variant")), "square");
    json_decref(j);
    j = list_json(s, &loop, "ann", "nim", 0, 1, 10);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 0);
    json_decref(j);

    /* A Nim match goes into the migrated file beside it. */
    gmatch g;
    play_nim(&g, "mnew", "Ann", "Bob", "{\"heaps\":[1,2],\"misere\":true}", 0, 2, 1700000300000);
    save(s, &loop, &g.row);
    body = match_text(s, &loop, "mnew", 200);
    j = parse(body);
    free(body);
    assert_string_equal(json_string_value(json_object_get(j, "game")), "nim");
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "result"), "reason")),
                        "took_last");
    assert_true(json_equal(json_object_get(j, "final"), g.final_j));
    json_decref(j);
    gmatch_free(&g);
    j = list_json(s, &loop, "ann", NULL, 0, 1, 10);
    assert_int_equal(json_array_size(json_object_get(j, "matches")), 2);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(j, "matches"), 0), "match")),
                        "mnew");
    json_decref(j);
    close_run(s, &loop);
    uv_loop_close(&loop);

    /* Behind the store: the old rows kept, with schema 2's defaults. */
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches WHERE id = 'mold1' AND "
                                     "game = 'thue' AND game_options IS NULL AND start_state "
                                     "IS NULL AND final_state IS NULL AND game_first IS NULL"),
                     1);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM moves WHERE match = 'mold1' AND "
                                     "move IS NULL"),
                     3);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM moves WHERE match = 'mnew' AND "
                                     "move LIKE '{\"heap\":%'"),
                     sql_int(t.path, "SELECT count(*) FROM moves WHERE match = 'mnew'"));
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM accounts"), 2);
    assert_int_equal(sql_int(t.path, "SELECT games FROM ratings WHERE account = 1 AND game = "
                                     "'thue' AND pool = 'square-k3'"),
                     1);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM ratings"), 1);
    /* Opening again changes nothing. */
    s = thue_store_open(t.path, err, sizeof err);
    assert_non_null(s);
    thue_store_close(s, NULL, NULL);
    assert_int_equal(sql_int(t.path, "PRAGMA user_version"), THUE_STORE_SCHEMA_VERSION);
    assert_int_equal(sql_int(t.path, "SELECT count(*) FROM matches"), 2);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_game_match_roundtrip),
        cmocka_unit_test(test_game_match_invalid),
        cmocka_unit_test(test_list_by_game),
        cmocka_unit_test(test_v1_migrates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
