/*
 * record.c: a finished match's record and rating changes.
 *
 * When a match ends, the lobby queues the whole record (players, options, every move with
 * its think time, rounds, result) for the store; a rated match's two ratings are updated
 * in the store's transaction (Glicko-2, each player against the other's rating before the
 * match, docs/ratings.md), from the ratings the database holds then, so that nodes
 * sharing a database never lose an update (store.h, thue_match_row's rate). match_end,
 * which names the record's id and the rating changes, is written and goes out only when
 * the store has committed it: a client never hears of a match the server could lose, nor
 * of a rating it did not keep. Without a store, match_end goes out at once with no id
 * (and no rating: ratings live in the store). What "goes
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
#include "reviews.h"
#include "roomstate.h"
#include "util.h"

typedef struct pending_end {
    thue_lobby *l;
    char room[THUE_PROTO_KEY_MAX + 1];
    thue_msg end; /* match_end, written once the store has answered; its rounds' words
                     point at words below */
    uint8_t *words[2];
    record_done_fn done;
    thue_match_rating rating; /* the store's decision, for a match rated in its transaction */
    char names[2][THUE_PROTO_NAME_MAX * 4 + 1]; /* the seats' accounts */
} pending_end;

/* match_end goes out now (no store, no record id, or the record could not be queued):
 * encoded here, then the caller's callback as for a committed record. */
static void done_now(thue_lobby *l, const char *room_id, const thue_msg *end,
                     record_done_fn done)
{
    char *text = thue_msg_encode(end, NULL);
    if (text == NULL)
        thue_log(THUE_LOG_ERROR, "room %s: cannot encode a %s message", room_id,
                 thue_msg_type_name(end->type));
    done(l, room_id, text);
    free(text);
}

static void pending_free(pending_end *p)
{
    free(p->words[0]);
    free(p->words[1]);
    free(p);
}

/* end into p->end, with its own copies of the rounds' words (the room's are borrowed).
 * 0, or -1 when out of memory. */
static int keep_end(pending_end *p, const thue_msg *end)
{
    p->end = *end;
    for (int i = 0; i < 2; i++) {
        thue_round_info *ri = &p->end.u.match_end.rounds[i];
        if (ri->word == NULL)
            continue;
        p->words[i] = malloc(ri->word_len > 0 ? (size_t)ri->word_len : 1);
        if (p->words[i] == NULL)
            return -1;
        if (ri->word_len > 0)
            memcpy(p->words[i], ri->word, (size_t)ri->word_len);
        ri->word = p->words[i];
    }
    return 0;
}

static void saved(int err, int64_t id, void *data)
{
    pending_end *p = data;
    __typeof__(p->end.u.match_end) *me = &p->end.u.match_end;
    (void)id;
    p->l->store_pending--;
    if (err) {
        /* Without its record the players still hear the result, with no match_id and
         * no rating (nothing was kept). */
        thue_log(THUE_LOG_ERROR, "room %s: the store could not save a finished match: %s",
                 p->room, thue_strerror(err));
        me->has_match_id = 0;
        me->has_ratings = 0;
    } else if (p->rating.rated) {
        me->has_ratings = 1;
        memcpy(me->ratings, p->rating.changes, sizeof me->ratings);
        accounts_ratings_saved(p->l, p->rating.ratings, p->names);
    } else if (p->rating.pair_limited) {
        me->has_unrated_reason = 1;
        me->unrated_reason = THUE_UNRATED_PAIR_LIMIT;
    }
    if (!err && me->has_match_id)
        reviews_match_stored(p->l, me->match_id); /* in the background, on the pool */
    done_now(p->l, p->room, &p->end, p->done);
    pending_free(p);
}

/* The account behind a seat, for ratings. */
static account *seat_account(const room_seat *st)
{
    if (st->bot)
        return st->bot_acct;
    return st->s ? st->s->acct : NULL;
}

/* ---- whether a rated room's match is rated ---------------------------------------------
 *
 * As on the big servers (lichess): a match ended by resign, timeout or abandon before
 * each player has made cfg.rated_min_moves moves is not rated (a resign-and-rematch loop
 * moves no rating); two accounts of people may play each other at most cfg.rated_pair_max
 * rated matches within 24 h (either seat: a pair of friends cannot farm each other); and
 * two bots are never rated (anyone could otherwise move the bots' ratings, everyone's
 * anchors, by seating them against each other). The pair limit is counted by the store,
 * in the transaction that would rate the match, over the stored matches of every node:
 * neither a restart nor a second node gives a pair more. */

/* Why a rated room's finished match is not rated, as far as the room can tell: 0 when
 * it may be, else 1 + the reason (thue_unrated_reason). */
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
    return 0;
}

/* Asks the store to rate the match in its transaction: the two accounts and their pool,
 * tau and, between two people, the pair limit. 0, or -1 when a seat has no account
 * whose id the database has given (several nodes: one added a moment ago). */
static int ask_rating(room *r, thue_match_row *row, pending_end *p)
{
    thue_lobby *l = r->lobby;
    pool_id pool;
    pool_of(r->game, &r->gopt, &pool);
    account *a[2];
    for (int i = 0; i < 2; i++) {
        a[i] = seat_account(&r->seats[i]);
        if (a[i] == NULL || a[i]->id <= 0)
            return -1;
        row->ratings[i].account = a[i]->id;
        snprintf(row->ratings[i].game, sizeof row->ratings[i].game, "%s", pool.game->name);
        snprintf(row->ratings[i].pool, sizeof row->ratings[i].pool, "%s", pool.key);
        snprintf(p->names[i], sizeof p->names[i], "%s", a[i]->name);
    }
    row->rate = 1;
    row->tau = l->cfg.tau;
    if (a[0]->kind == THUE_KIND_ACCOUNT && a[1]->kind == THUE_KIND_ACCOUNT) {
        row->pair_max = l->cfg.rated_pair_max;
        row->pair_window_ms = THUE_LOBBY_RATED_PAIR_WINDOW_MS;
    }
    row->result = &p->rating;
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
    }
    row->winner = me->winner;
    row->reason = me->reason;
    row->moves = r->moves;
    row->nmoves = r->nmoves;
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
        done_now(l, r->id, end, done);
        return;
    }
    int why = r->opt.rated ? unrated_reason(r) : 0;
    if (why) {
        me->has_unrated_reason = 1;
        me->unrated_reason = (thue_unrated_reason)(why - 1);
    }
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
        done_now(l, r->id, end, done);
        return;
    }
    pending_end *p = calloc(1, sizeof *p);
    if (p == NULL || keep_end(p, end) != 0) {
        if (p != NULL)
            pending_free(p);
        thue_log(THUE_LOG_ERROR, "room %s: out of memory recording a match", r->id);
        me->has_match_id = 0;
        done_now(l, r->id, end, done);
        return;
    }
    thue_match_row row;
    char *gstates[2] = {NULL, NULL};
    fill_row(r, end, &row, gstates);
    if (r->opt.rated && !why && ask_rating(r, &row, p) != 0)
        thue_log(THUE_LOG_ERROR, "room %s: a rated match without two accounts is not rated",
                 r->id);
    p->l = l;
    snprintf(p->room, sizeof p->room, "%s", r->id);
    p->done = done;
    int err = thue_store_save_match(l->store, &row, saved, p);
    free(gstates[0]); /* the store made its own copies */
    free(gstates[1]);
    if (err) {
        thue_log(THUE_LOG_ERROR, "room %s: cannot queue the match record: %s", r->id,
                 thue_strerror(err));
        /* The players still hear the result, without a record's id (the loss is logged). */
        pending_free(p);
        me->has_match_id = 0;
        done_now(l, r->id, end, done);
        return;
    }
    l->store_pending++;
}
