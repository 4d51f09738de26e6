/*
 * store_helpers.c: the store tests' shared helpers (store_helpers.h).
 */
#include "store_helpers.h"

void on_write(int err, int64_t id, void *data)
{
    wres *w = data;
    w->calls++;
    w->err = err;
    w->id = id;
}

void on_read(int status, char *body, size_t len, void *data)
{
    rres *r = data;
    r->calls++;
    r->status = status;
    r->body = body;
    r->len = len;
}

void rres_clear(rres *r)
{
    free(r->body);
    memset(r, 0, sizeof *r);
}

void on_closed(void *data)
{
    (*(int *)data)++;
}

thue_store *open_ok(const char *path)
{
    char err[256];
    thue_store *s = thue_store_open(path, err, sizeof err);
    if (s == NULL)
        fail_msg("thue_store_open(%s): %s", path, err);
    return s;
}

thue_store *open_started(const char *path, uv_loop_t *loop)
{
    thue_store *s = open_ok(path);
    assert_int_equal(thue_store_start(s, loop), 0);
    return s;
}

/* Closes a started store and runs the loop until it is gone. */
void close_run(thue_store *s, uv_loop_t *loop)
{
    int closed = 0;
    thue_store_close(s, on_closed, &closed);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(closed, 1);
}

/* Writes and waits for the callback; returns its error. */
int add_account(thue_store *s, uv_loop_t *loop, const char *name, thue_player_kind kind, int64_t id,
                int64_t *got_id)
{
    thue_account_row row;
    memset(&row, 0, sizeof row);
    row.id = id;
    snprintf(row.name, sizeof row.name, "%s", name);
    row.kind = kind;
    if (kind == THUE_KIND_BOT)
        snprintf(row.bot, sizeof row.bot, "%s", name);
    else
        thue_sha256(name, strlen(name), row.token_hash); /* any 32 bytes */
    row.created_ms = 1700000000000 + id;
    wres w = {0};
    assert_int_equal(thue_store_add_account(s, &row, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    if (got_id)
        *got_id = w.id;
    return w.err;
}

void make_match(tmatch *t, const char *id, const char *a, const char *b, int64_t ended, int nmoves)
{
    memset(t, 0, sizeof *t);
    thue_match_row *m = &t->row;
    snprintf(m->id, sizeof m->id, "%s", id);
    snprintf(m->room, sizeof m->room, "r%s", id);
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
    m->winner = 0;
    m->reason = THUE_END_SCORE;
    m->points[0] = 5;
    m->points[1] = 3;
    static const uint8_t w0[] = {0, 1, 2, 1, 2};
    static const uint8_t w1[] = {0, 1, 2, 0, 2, 1, 1};
    memcpy(t->words[0], w0, sizeof w0);
    memcpy(t->words[1], w1, sizeof w1);
    for (int r = 0; r < 2; r++) {
        m->rounds[r].builder = r;
        m->rounds[r].points = r ? 5 : 3;
        m->rounds[r].end = THUE_ROUND_REPETITION;
        m->rounds[r].has_repetition = 1;
        m->rounds[r].repetition.start = r ? 5 : 1;
        m->rounds[r].repetition.period = r ? 1 : 2;
        m->rounds[r].repetition.length = r ? 2 : 4;
        m->rounds[r].word = t->words[r];
        m->rounds[r].word_len = r ? 7 : 5;
    }
    for (int i = 0; i < nmoves; i++) {
        thue_move_row *mv = &t->moves[i];
        int half = (nmoves + 1) / 2;
        mv->round = i < half ? 0 : 1;
        mv->ply = i < half ? i : i - half;
        mv->is_paint = mv->ply % 2;
        mv->seat = mv->is_paint ? 1 - mv->round : mv->round;
        mv->value = mv->ply / 2;
        mv->think_ms = 0.25 * (i + 1);
    }
    m->moves = t->moves;
    m->nmoves = nmoves;
    m->started_ms = ended - 60000;
    m->ended_ms = ended;
}

int save_match(thue_store *s, uv_loop_t *loop, const thue_match_row *m)
{
    wres w = {0};
    assert_int_equal(thue_store_save_match(s, m, on_write, &w), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(w.calls, 1);
    return w.err;
}

/* A read through the store; the body is parsed as JSON when json is set. */
json_t *read_json(int status_want, rres *r)
{
    assert_int_equal(r->calls, 1);
    assert_int_equal(r->status, status_want);
    assert_non_null(r->body);
    assert_int_equal(strlen(r->body), r->len);
    json_error_t e;
    json_t *j = json_loadb(r->body, r->len, 0, &e);
    if (j == NULL)
        fail_msg("not JSON (%s): %s", e.text, r->body);
    return j;
}

json_t *match_json(thue_store *s, uv_loop_t *loop, const char *id, int status_want)
{
    rres r = {0};
    assert_int_equal(thue_store_match_json(s, id, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    json_t *j = read_json(status_want, &r);
    rres_clear(&r);
    return j;
}

json_t *matches_json(thue_store *s, uv_loop_t *loop, const char *player, int page, int per_page)
{
    rres r = {0};
    assert_int_equal(thue_store_matches_json(s, player, page, per_page, on_read, &r), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    json_t *j = read_json(200, &r);
    rres_clear(&r);
    return j;
}

void assert_not_found(json_t *j)
{
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
                        "not_found");
    json_decref(j);
}

void load_account(void *ctx, const thue_account_row *row)
{
    loaded *l = ctx;
    assert_true(l->naccounts < 200);
    l->accounts[l->naccounts++] = *row;
}

void load_rating(void *ctx, const thue_rating_row *row)
{
    loaded *l = ctx;
    assert_true(l->nratings < 20);
    l->ratings[l->nratings++] = *row;
}

void load_tournament(void *ctx, const char *id, const char *state)
{
    loaded *l = ctx;
    assert_true(l->ntours < 10);
    snprintf(l->tour_ids[l->ntours], sizeof l->tour_ids[0], "%s", id);
    snprintf(l->tour_states[l->ntours], sizeof l->tour_states[0], "%s", state);
    l->ntours++;
}

/* Opens path, loads everything into *l and closes it again (never started). */
void load_all(const char *path, loaded *l)
{
    memset(l, 0, sizeof *l);
    thue_store *s = open_ok(path);
    char err[256];
    assert_int_equal(
        thue_store_load(s, load_account, load_rating, load_tournament, l, err, sizeof err), 0);
    int closed = 0;
    thue_store_close(s, on_closed, &closed); /* never started: closed at once */
    assert_int_equal(closed, 1);
}
