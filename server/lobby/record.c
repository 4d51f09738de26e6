/*
 * record.c: a finished match's record and rating changes.
 *
 * When a match ends, the lobby updates the two ratings of a rated match (Glicko-2, each
 * player against the other's rating before the match, docs/ratings.md), and queues the
 * whole record (players, options, every move with its think time, rounds, result, rating
 * changes) for the store. match_end, which names the record's id and the rating changes,
 * goes out only when the store has committed it: a client never hears of a match the
 * server could lose. Without a store, match_end goes out at once with no id. What "goes
 * out" means is the caller's: record_match calls its record_done_fn (the table's, which
 * sends match_end to the room and tells a tournament room's tournament), so that this file
 * calls neither room.c nor tournament.c.
 *
 * Another game's match (opt.has_game) is recorded in its own terms: the game and its options,
 * the game's state at the start and the end, each move's JSON, the winner and the game's
 * reason text, and the game's scores as points. Every game is rated the same way, in the
 * pool of its options (pool_of: Thue's (variant, k), Nim's normal or misere play, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "log.h"
#include "record.h"
#include "roomstate.h"
#include "util.h"

typedef struct pending_end {
    thue_lobby *l;
    char room[THUE_PROTO_KEY_MAX + 1];
    char *text; /* the encoded match_end */
    record_done_fn done;
    bool rated; /* ratings: the two rows, and their accounts' names, to tell the other
                   nodes once committed */
    thue_rating_row ratings[2];
    char names[2][THUE_PROTO_NAME_MAX * 4 + 1];
} pending_end;

/* match_end goes out now (no store, no record id, or the record could not be queued):
 * encoded here, then the caller's callback as for a committed record. */
static void done_now(room *r, const thue_msg *end, record_done_fn done)
{
    char *text = thue_msg_encode(end, NULL);
    if (text == NULL)
        thue_log(THUE_LOG_ERROR, "room %s: cannot encode a %s message", r->id,
                 thue_msg_type_name(end->type));
    done(r->lobby, r->id, text);
    free(text);
}

/* The same match_end with "match_id":null, for a record that could not be saved. The id
 * is the last member and a plain key ([a-z0-9]), and "match_id":" cannot occur inside a
 * JSON string, so the first one is the member. Edited in place (the text only shrinks). */
static void drop_match_id(char *text)
{
    static const char key[] = "\"match_id\":\"";
    char *at = strstr(text, key);
    if (at == NULL)
        return;
    char *value = at + sizeof key - 2; /* the opening quote */
    char *close = strchr(value + 1, '"');
    if (close == NULL)
        return;
    memcpy(value, "null", 4);
    memmove(value + 4, close + 1, strlen(close + 1) + 1);
}

static void saved(int err, int64_t id, void *data)
{
    pending_end *p = data;
    (void)id;
    p->l->store_pending--;
    if (err)
        thue_log(THUE_LOG_ERROR, "room %s: the store could not save a finished match: %s",
                 p->room, thue_strerror(err));
    /* Without its record the players still hear the result, with no match_id. */
    if (err)
        drop_match_id(p->text);
    else if (p->rated)
        accounts_ratings_saved(p->l, p->ratings, p->names);
    p->done(p->l, p->room, p->text);
    free(p->text);
    free(p);
}

/* The account behind a seat, for ratings. */
static account *seat_account(const room_seat *st)
{
    if (st->bot)
        return st->bot_acct;
    return st->s ? st->s->acct : NULL;
}

/* Rates the match: updates both pool records and fills the changes. 0, or -1 when the
 * match cannot be rated (a seat without an account, or out of memory). */
static int rate(room *r, thue_rating_change out[2], thue_rating_row rows[2])
{
    thue_lobby *l = r->lobby;
    pool_id pool;
    pool_of(r->game, &r->gopt, &pool);
    pool_rating *p[2];
    for (int i = 0; i < 2; i++) {
        account *a = seat_account(&r->seats[i]);
        /* (an account whose id the database has not given yet, several nodes: unrated) */
        if (a == NULL || a->id == 0 || (p[i] = account_rating(a, &pool)) == NULL)
            return -1;
        rows[i].account = a->id;
    }
    int winner = room_winner(r);
    double s0 = winner == 0 ? 1 : winner == 1 ? 0 : 0.5;
    thue_glicko after[2];
    if (thue_glicko_match(&p[0]->g, &p[1]->g, s0, l->cfg.tau, &after[0], &after[1]) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        out[i].before = p[i]->g.rating;
        out[i].rd_before = p[i]->g.rd;
        out[i].after = after[i].rating;
        out[i].rd_after = after[i].rd;
        p[i]->g = after[i];
        p[i]->games++;
        if (winner == i)
            p[i]->wins++;
        else if (winner < 0)
            p[i]->draws++;
        else
            p[i]->losses++;
        snprintf(rows[i].game, sizeof rows[i].game, "%s", pool.game->name);
        snprintf(rows[i].pool, sizeof rows[i].pool, "%s", pool.key);
        rows[i].rating = p[i]->g.rating;
        rows[i].rd = p[i]->g.rd;
        rows[i].vol = p[i]->g.vol;
        rows[i].games = p[i]->games;
        rows[i].wins = p[i]->wins;
        rows[i].draws = p[i]->draws;
        rows[i].losses = p[i]->losses;
    }
    account *acct[2] = {seat_account(&r->seats[0]), seat_account(&r->seats[1])};
    ladder_moved(l, &pool, acct, p, 2);
    return 0;
}

/* ---- whether a rated room's match is rated ---------------------------------------------
 *
 * As on the big servers (lichess): a match ended by resign, timeout or abandon before
 * each player has made cfg.rated_min_moves moves is not rated (a resign-and-rematch loop
 * moves no rating); two accounts of people may play each other at most cfg.rated_pair_max
 * rated matches within 24 h (either seat: a pair of friends cannot farm each other); and
 * two bots are never rated (anyone could otherwise move the bots' ratings, everyone's
 * anchors, by seating them against each other). The pair log lives in memory: a restart
 * forgets it, which costs a farmer a restart per 5 matches. */

typedef struct rated_pair {
    int64_t a, b;  /* account ids, a < b */
    int n, cap;    /* times held (oldest first), and room for them */
    int64_t *at;   /* end times (lobby_now_ms), at most cfg.rated_pair_max */
    struct rated_pair *next;
} rated_pair;

static void pair_expire(thue_lobby *l, rated_pair **pp, int64_t now);

/* The pair's link in its bucket (*result NULL: not there). On the way, every other pair
 * of the bucket forgets its old matches, and goes when none is left: the log holds only
 * the last 24 hours, however many pairs came and went. */
static rated_pair **pair_slot(thue_lobby *l, int64_t a, int64_t b, int64_t now)
{
    uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ULL ^ (uint64_t)b * 0xc2b2ae3d27d4eb4fULL;
    rated_pair **pp = &l->pairs[(h ^ (h >> 31)) % LOBBY_BUCKETS];
    while (*pp) {
        rated_pair *p = *pp;
        pair_expire(l, pp, now);
        if (*pp != p) /* freed: *pp is the next one now */
            continue;
        if (p->a == a && p->b == b)
            return pp;
        pp = &p->next;
    }
    return pp;
}

/* Forgets the pair's matches older than the window; frees the entry once empty. */
static void pair_expire(thue_lobby *l, rated_pair **pp, int64_t now)
{
    rated_pair *p = *pp;
    int drop = 0;
    while (drop < p->n && now - p->at[drop] >= THUE_LOBBY_RATED_PAIR_WINDOW_MS)
        drop++;
    if (drop) {
        memmove(p->at, p->at + drop, (size_t)(p->n - drop) * sizeof p->at[0]);
        p->n -= drop;
    }
    (void)l;
    if (p->n == 0) {
        *pp = p->next;
        free(p->at);
        free(p);
    }
}

/* Whether the pair may play one more rated match now: 1 (and it is counted), or 0. Out
 * of memory lets the match be rated uncounted. */
static int pair_take(thue_lobby *l, int64_t a, int64_t b)
{
    if (a > b) {
        int64_t t = a;
        a = b;
        b = t;
    }
    int64_t now = lobby_now_ms();
    rated_pair **pp = pair_slot(l, a, b, now);
    if (*pp == NULL) {
        rated_pair *p = calloc(1, sizeof *p);
        if (p == NULL)
            return 1;
        p->a = a;
        p->b = b;
        *pp = p;
    }
    rated_pair *p = *pp;
    if (p->n >= l->cfg.rated_pair_max)
        return 0;
    if (p->n == p->cap) { /* grown as needed: a large limit costs only what is used */
        int cap = p->cap ? 2 * p->cap : 8;
        if (cap > l->cfg.rated_pair_max)
            cap = l->cfg.rated_pair_max;
        int64_t *at = realloc(p->at, (size_t)cap * sizeof *at);
        if (at == NULL)
            return 1;
        p->at = at;
        p->cap = cap;
    }
    p->at[p->n++] = now;
    return 1;
}

void record_pairs_free(thue_lobby *l)
{
    for (size_t i = 0; i < LOBBY_BUCKETS; i++)
        while (l->pairs[i]) {
            rated_pair *p = l->pairs[i];
            l->pairs[i] = p->next;
            free(p->at);
            free(p);
        }
}

/* Why a rated room's finished match is not rated: 0 when it is, else 1 + the reason
 * (thue_unrated_reason). Counts the match against its pair when it is rated. */
static int unrated_reason(room *r)
{
    thue_lobby *l = r->lobby;
    if (r->seats[0].bot && r->seats[1].bot)
        return 1 + THUE_UNRATED_BOTS;
    if (r->greason != THUE_END_SCORE && l->cfg.rated_min_moves > 0) {
        int made[2] = {0, 0};
        for (int i = 0; i < r->nmoves; i++)
            if (r->moves[i].seat == 0 || r->moves[i].seat == 1)
                made[r->moves[i].seat]++;
        if (made[0] < l->cfg.rated_min_moves || made[1] < l->cfg.rated_min_moves)
            return 1 + THUE_UNRATED_TOO_SHORT;
    }
    account *a = seat_account(&r->seats[0]), *b = seat_account(&r->seats[1]);
    if (a && b && a->kind == THUE_KIND_ACCOUNT && b->kind == THUE_KIND_ACCOUNT &&
        !pair_take(l, a->id, b->id))
        return 1 + THUE_UNRATED_PAIR_LIMIT;
    return 0;
}

/* Another game's part of the row: its reason text, its player 0, its scores by seat and
 * its start and final states (malloc'd into gstates, which the caller frees; a state
 * that cannot be written for lack of memory is stored as NULL, and logged). */
static void fill_game(room *r, thue_match_row *row, char *gstates[2])
{
    const thue_gamedef *g = r->game;
    snprintf(row->why, sizeof row->why, "%s", r->gwhy);
    row->gfirst = r->gfirst;
    row->winner = r->gwinner;
    thue_gresult res;
    g->result(&r->gopt, r->gstate, &res);
    for (int p = 0; p < 2; p++)
        row->points[r->gfirst ^ p] = res.score[p];
    memset(row->rounds, 0, sizeof row->rounds);
    gstates[0] = thue_game_dump(g->state_json(&r->gopt, r->gstart));
    gstates[1] = thue_game_dump(g->state_json(&r->gopt, r->gstate));
    if (gstates[0] == NULL || gstates[1] == NULL)
        thue_log(THUE_LOG_ERROR, "room %s: out of memory writing a %s state for its record", r->id,
                 g->name);
    row->start_state = gstates[0];
    row->final_state = gstates[1];
}

static void fill_row(room *r, const thue_msg *end, thue_match_row *row, char *gstates[2])
{
    const __typeof__(end->u.match_end) *me = &end->u.match_end;
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", me->match_id);
    snprintf(row->room, sizeof row->room, "%s", r->id);
    row->number = r->number;
    row->opt = r->opt;
    for (int i = 0; i < 2; i++) {
        const room_seat *st = &r->seats[i];
        row->players[i] = me->players[i];
        account *a = seat_account(st);
        row->accounts[i] = a ? a->id : 0;
        if (st->bot)
            snprintf(row->bots[i], sizeof row->bots[i], "%s", st->bot_spec_text);
        row->points[i] = me->points[i];
        row->rounds[i] = me->rounds[i];
        row->changes[i] = me->ratings[i];
    }
    row->winner = me->winner;
    row->reason = me->reason;
    row->moves = r->moves;
    row->nmoves = r->nmoves;
    row->rated = me->has_ratings;
    row->started_ms = r->started_ms;
    row->ended_ms = lobby_now_ms();
    if (r->tournament[0]) {
        snprintf(row->tournament, sizeof row->tournament, "%s", r->tournament);
        row->tournament_round = r->tour_round;
    }
    if (r->opt.has_game) /* a Thue room runs on Thue's table too, but keeps its record */
        fill_game(r, row, gstates);
}

void record_match(room *r, thue_msg *end, record_done_fn done)
{
    thue_lobby *l = r->lobby;
    __typeof__(end->u.match_end) *me = &end->u.match_end;
    if (l->store == NULL) {
        done_now(r, end, done);
        return;
    }
    thue_match_row row;
    thue_rating_row ratings[2];
    memset(ratings, 0, sizeof ratings);
    bool rated = r->opt.rated;
    int why = rated ? unrated_reason(r) : 0;
    if (why) {
        me->has_unrated_reason = 1;
        me->unrated_reason = (thue_unrated_reason)(why - 1);
    } else if (rated && rate(r, me->ratings, ratings) == 0)
        me->has_ratings = 1;
    else if (rated)
        thue_log(THUE_LOG_ERROR, "room %s: a rated match without two accounts is not rated",
                 r->id);
    /* The record's id, from the kernel's generator like room ids: a stored match cannot
     * be found by guessing from another's id. */
    me->has_match_id = 1;
    me->match_id[0] = 'm';
    if (lobby_random_key(me->match_id + 1, LOBBY_ID_CHARS, LOBBY_ID_ALPHABET) != 0) {
        thue_log(THUE_LOG_ERROR,
                 "room %s: the kernel's random generator failed: the match "
                 "is not recorded",
                 r->id);
        me->has_match_id = 0;
        done_now(r, end, done);
        return;
    }
    char *gstates[2] = {NULL, NULL};
    fill_row(r, end, &row, gstates);
    row.ratings[0] = ratings[0];
    row.ratings[1] = ratings[1];
    pending_end *p = calloc(1, sizeof *p);
    char *text = thue_msg_encode(end, NULL);
    if (p == NULL || text == NULL) {
        free(p);
        free(text);
        free(gstates[0]);
        free(gstates[1]);
        thue_log(THUE_LOG_ERROR, "room %s: out of memory recording a match", r->id);
        return;
    }
    p->l = l;
    snprintf(p->room, sizeof p->room, "%s", r->id);
    p->text = text;
    p->done = done;
    p->rated = me->has_ratings != 0;
    for (int i = 0; i < 2; i++) {
        p->ratings[i] = ratings[i];
        const account *a = seat_account(&r->seats[i]);
        snprintf(p->names[i], sizeof p->names[i], "%s", a != NULL ? a->name : "");
    }
    int err = thue_store_save_match(l->store, &row, saved, p);
    free(gstates[0]); /* the store made its own copies */
    free(gstates[1]);
    if (err) {
        thue_log(THUE_LOG_ERROR, "room %s: cannot queue the match record: %s", r->id,
                 thue_strerror(err));
        /* The players still hear the result, without a record's id (the loss is logged). */
        free(text);
        free(p);
        me->has_match_id = 0;
        done_now(r, end, done);
        return;
    }
    l->store_pending++;
}
