/*
 * reviews.c: the exact review of finished matches (reviews.h; PROTOCOL.md section 13,
 * "Reviews"; docs/review.md).
 *
 * When a match's record is committed (record.c), its record is read back from the store
 * as GET /api/matches/{id} gives it (so a review of a match of any age, or of another
 * node's, takes the same path), and a pool task (owner REVIEW_OWNER: the pool serves it
 * in turn with the players' bots and analyses, never before them) replays it and asks the
 * exact solvers for every position's value (search/review.h: every game's perfect, Thue's
 * solver). Each position has REVIEW_POSITION_NODES (Thue's REVIEW_THUE_POSITION_NODES,
 * and REVIEW_THUE_NODES in all), the whole match REVIEW_SECONDS of wall time; past them
 * positions are unknown, with the uct bot's estimate of the mover's chances. The review's
 * JSON is built on the worker and written to the store (schema 6).
 *
 * At most cfg.reviews reviews are out at once (--reviews, 1; < 0: none); a match that
 * finds no room, or whose review was lost to a restart, is reviewed when someone asks for
 * it (the API's "pending" answer calls thue_lobby_review_wanted). Each review out holds a lobby handle; shutting down
 * raises its stop flag, so its task ends within a poll. Positions of the match in which
 * a player let a win go (at most REVIEW_OFFERS_MAX) are offered to the puzzle service
 * (thue_lobby_set_puzzle_offer), which keeps those with exactly one winning move: puzzles
 * from real games.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/errors.h"
#include "games/game.h"
#include "games/thue/thue.h"
#include "lobby.h"
#include "log.h"
#include "reviews.h"
#include "search/pool.h"
#include "search/review.h"

typedef struct review_job review_job;

#define REVIEW_OWNER "@review"
#define REVIEW_POSITION_NODES 2000000ull
#define REVIEW_THUE_POSITION_NODES 50000ull
#define REVIEW_THUE_NODES 1000000ull
#define REVIEW_SECONDS 10
#define REVIEW_ESTIMATE_PLAYOUTS 1000
#define REVIEW_THUE_ESTIMATE_PLAYOUTS 300
#define REVIEW_THUE_ESTIMATES_MAX 64 /* positions estimated in one Thue match, at most */
#define REVIEW_MOVES_MAX 20000
#define REVIEW_OFFERS_MAX 3 /* positions of a match offered as puzzles, at most */

/* The positions of a reviewed match in which the mover let a win go (a mistake or a
 * blunder from a won position): candidates for puzzles from real games. */
typedef struct review_offers {
    const thue_gamedef *g;
    thue_gopt opt;
    int n;
    unsigned char *st[REVIEW_OFFERS_MAX];
} review_offers;

struct review_job {
    struct review_job *next;
    thue_lobby *l;
    char id[THUE_PROTO_KEY_MAX + 1];
    char *record; /* the match record's JSON, then NULL */
    char *text;   /* the review's JSON, from the worker */
    review_offers offers; /* from the worker too */
    atomic_int stop;
    const atomic_int *pool_stop;
    int (*pool_yield)(void *arg, int64_t now_ns);
    void *pool_yield_arg;
    uint64_t task;
    int stage; /* 0 reading the record, 1 on the pool, 2 writing */
};

/* ---- the worker's part ------------------------------------------------------------------ */

static json_t *counts_new(void)
{
    return json_pack("{s:i,s:i,s:i,s:i,s:i}", "best", 0, "good", 0, "mistake", 0, "blunder", 0,
                     "unknown", 0);
}

static void count(json_t *summary, int seat, thue_verdict v)
{
    json_t *c = json_array_get(summary, (size_t)seat);
    const char *name = thue_verdict_name(v);
    if (c != NULL && name != NULL)
        json_object_set_new(c, name, json_integer(json_integer_value(json_object_get(c, name)) + 1));
}

static json_t *value_json(int v)
{
    return v == THUE_REVIEW_UNKNOWN ? json_null() : json_integer(v);
}

static char *unavailable(const char *id, const char *why)
{
    json_t *j = json_pack("{s:s,s:s,s:s}", "match", id ? id : "", "status", "unavailable",
                          "reason", why);
    char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return t;
}

/* The positions before the moves that let a win go, into offers (st: the start, the
 * moves replayed on it). */
static void collect_offers(const thue_gamedef *g, const thue_gopt *opt, unsigned char *st,
                           const thue_gmove *mv, const thue_review_move *out, size_t n,
                           review_offers *offers)
{
    size_t size = g->state_size(opt);
    offers->g = g;
    offers->opt = *opt;
    for (size_t i = 0; i < n && offers->n < REVIEW_OFFERS_MAX; i++) {
        const thue_review_move *m = &out[i];
        if (m->before == 1 && (m->verdict == THUE_VERDICT_MISTAKE || m->verdict == THUE_VERDICT_BLUNDER)) {
            unsigned char *copy = malloc(size ? size : 1);
            if (copy == NULL)
                return;
            memcpy(copy, st, size);
            offers->st[offers->n++] = copy;
        }
        thue_gerr e;
        if (g->apply(opt, st, m->player, &mv[i], &e) != 0)
            return;
    }
}

/* Another game's review: moves and verdicts into root; NULL or the reason it failed. */
static const char *review_game(const thue_gamedef *g, json_t *rec, json_t *root,
                               const thue_bot_limits *lim, review_offers *offers)
{
    thue_gopt opt;
    thue_gerr e;
    if (g->parse_options(json_object_get(rec, "game_options"), &opt, &e) != 0)
        return "the record's game options do not parse";
    json_t *moves = json_object_get(rec, "moves");
    size_t n = json_array_size(moves);
    if (n > REVIEW_MOVES_MAX)
        return "the match has too many moves to review";
    size_t size = g->state_size(&opt);
    unsigned char *st = malloc(size ? size : 1);
    thue_gmove *mv = malloc((n ? n : 1) * sizeof *mv);
    thue_review_move *out = malloc((n ? n : 1) * sizeof *out);
    const char *why = NULL;
    if (st == NULL || mv == NULL || out == NULL)
        why = "out of memory";
    else if (g->position_parse(&opt, json_object_get(rec, "start"), st, &e) != 0)
        why = "the record's start position does not parse";
    for (size_t i = 0; why == NULL && i < n; i++)
        if (g->move_parse(&opt, json_object_get(json_array_get(moves, i), "move"), &mv[i], &e) != 0)
            why = "a move of the record does not parse";
    int solved = 0;
    if (why == NULL) {
        int err = thue_review(g, &opt, st, mv, (int)n, lim, REVIEW_ESTIMATE_PLAYOUTS, out, &solved);
        if (err == THUE_ENOMEM)
            why = "out of memory";
        else if (err != 0)
            why = "the record does not replay under the game's rules";
    }
    if (why == NULL && offers != NULL &&
        g->position_parse(&opt, json_object_get(rec, "start"), st, &e) == 0)
        collect_offers(g, &opt, st, mv, out, n, offers);
    json_t *list = json_array(), *summary = json_pack("[o,o]", counts_new(), counts_new());
    int margins = 0;
    for (size_t i = 0; why == NULL && i < n; i++) {
        const thue_review_move *m = &out[i];
        json_t *rm = json_object_get(json_array_get(moves, i), "move");
        int seat = (int)json_integer_value(json_object_get(json_array_get(moves, i), "seat"));
        json_t *o = json_pack("{s:i,s:i,s:O,s:o,s:o,s:s}", "ply", (int)i, "seat", seat, "move", rm,
                              "before", value_json(m->before), "after", value_json(m->after),
                              "verdict", thue_verdict_name(m->verdict));
        json_t *best = json_array();
        if (m->has_best)
            json_array_append_new(best, g->move_json(&opt, &m->best));
        json_object_set_new(o, "best", best);
        if (m->has_margin) {
            margins = 1;
            json_object_set_new(o, "margin_before", json_integer(m->margin_before));
            json_object_set_new(o, "margin_after", json_integer(m->margin_after));
        }
        if (m->has_estimate)
            json_object_set_new(o, "estimate", json_pack("{s:f,s:f}", "before", m->est_before,
                                                         "after", m->est_after));
        json_array_append_new(list, o);
        count(summary, seat, m->verdict);
    }
    if (why == NULL) {
        json_object_set_new(root, "values", json_string(margins ? "result_margin" : "result"));
        json_object_set_new(root, "positions", json_integer((json_int_t)n + 1));
        json_object_set_new(root, "solved", json_integer(solved));
        json_object_set_new(root, "summary", summary);
        json_object_set_new(root, "moves", list);
    } else {
        json_decref(summary);
        json_decref(list);
    }
    free(st);
    free(mv);
    free(out);
    return why;
}

/* The uct bot's estimates of the match's result for the mover, before and after each
 * Thue move whose values are unknown (the match replayed as games/thue/thue.h's game, whose
 * player 0 builds first), into est[2 * i] and est[2 * i + 1] (-1: none). */
static void thue_estimates(thue_variant v, int k, int limit, const thue_review_tmove *mv, int n,
                           const thue_review_tout *out, const thue_bot_limits *lim, double *est)
{
    for (int i = 0; i < 2 * n; i++)
        est[i] = -1;
    const thue_gamedef *g = &thue_game_thue;
    thue_gopt opt;
    if (thue_game_thue_options(v, k, limit, &opt) != 0)
        return;
    unsigned char *st = malloc(g->state_size(&opt));
    if (st == NULL)
        return;
    g->start(&opt, 0, st);
    int left = REVIEW_THUE_ESTIMATES_MAX;
    for (int i = 0; i < n; i++) {
        int who = g->to_move(&opt, st);
        int unknown = out[i].verdict == THUE_VERDICT_UNKNOWN && left >= 2 && who >= 0;
        if (unknown && thue_review_estimate(g, &opt, st, who, REVIEW_THUE_ESTIMATE_PLAYOUTS, lim,
                                            &est[2 * i]) == 0)
            est[2 * i] = -1;
        thue_gmove m = {{mv[i].is_paint, mv[i].value, 0, 0}};
        thue_gerr e;
        if (who < 0 || g->apply(&opt, st, who, &m, &e) != 0)
            break;
        if (unknown && est[2 * i] >= 0 &&
            thue_review_estimate(g, &opt, st, who, REVIEW_THUE_ESTIMATE_PLAYOUTS, lim,
                                 &est[2 * i + 1]) == 0)
            est[2 * i] = -1;
        left -= unknown ? 2 : 0;
    }
    free(st);
}

/* A Thue match's review: NULL or the reason it failed. */
static const char *review_thue(json_t *rec, json_t *root, const thue_bot_limits *lim)
{
    json_t *o = json_object_get(rec, "options");
    thue_variant v;
    const char *vs = json_string_value(json_object_get(o, "variant"));
    if (vs == NULL || thue_variant_parse(vs, &v) != 0)
        return "the record's variant does not parse";
    int k = (int)json_integer_value(json_object_get(o, "k"));
    int limit = (int)json_integer_value(json_object_get(o, "limit"));
    json_t *moves = json_object_get(rec, "moves");
    size_t n = json_array_size(moves);
    if (n > REVIEW_MOVES_MAX)
        return "the match has too many moves to review";
    thue_review_tmove *mv = malloc((n ? n : 1) * sizeof *mv);
    thue_review_tout *out = malloc((n ? n : 1) * sizeof *out);
    const char *why = mv == NULL || out == NULL ? "out of memory" : NULL;
    for (size_t i = 0; why == NULL && i < n; i++) {
        json_t *m = json_array_get(moves, i);
        const char *kind = json_string_value(json_object_get(m, "kind"));
        mv[i].round = (int)json_integer_value(json_object_get(m, "round"));
        mv[i].seat = (int)json_integer_value(json_object_get(m, "seat"));
        mv[i].is_paint = kind != NULL && strcmp(kind, "paint") == 0;
        mv[i].value = (int)json_integer_value(json_object_get(m, "value"));
    }
    int solved = 0;
    if (why == NULL) {
        thue_bot_limits tl;
        if (lim != NULL)
            tl = *lim;
        else
            memset(&tl, 0, sizeof tl);
        tl.node_budget = REVIEW_THUE_POSITION_NODES;
        int err = thue_review_thue(k, v, limit, mv, (int)n, &tl, REVIEW_THUE_NODES, out, &solved);
        if (err == THUE_ENOMEM)
            why = "out of memory";
        else if (err != 0)
            why = "the record does not replay under the rules";
    }
    double *est = why == NULL ? malloc((n ? n : 1) * 2 * sizeof *est) : NULL;
    if (est != NULL)
        thue_estimates(v, k, limit, mv, (int)n, out, lim, est);
    json_t *list = json_array(), *summary = json_pack("[o,o]", counts_new(), counts_new());
    for (size_t i = 0; why == NULL && i < n; i++) {
        const thue_review_tout *m = &out[i];
        json_t *best = json_array();
        if (m->has_best)
            json_array_append_new(best, json_pack("{s:i}", mv[i].is_paint ? "symbol" : "position",
                                                  m->best));
        json_t *x = json_pack("{s:i,s:i,s:i,s:s,s:s,s:i,s:o,s:o,s:s,s:o}", "round", mv[i].round,
                              "ply", (int)json_integer_value(json_object_get(json_array_get(moves, i), "ply")),
                              "seat", mv[i].seat, "role", mv[i].is_paint ? "painter" : "builder",
                              "kind", mv[i].is_paint ? "paint" : "place", "value", mv[i].value,
                              "before", value_json(m->before), "after", value_json(m->after),
                              "verdict", thue_verdict_name(m->verdict), "best", best);
        if (est != NULL && est[2 * i] >= 0 && est[2 * i + 1] >= 0)
            json_object_set_new(x, "estimate", json_pack("{s:f,s:f}", "before", est[2 * i],
                                                         "after", est[2 * i + 1]));
        json_array_append_new(list, x);
        count(summary, mv[i].seat, m->verdict);
    }
    if (why == NULL) {
        json_object_set_new(root, "values", json_string("points"));
        json_object_set_new(root, "positions", json_integer((json_int_t)n));
        json_object_set_new(root, "solved", json_integer(solved));
        json_object_set_new(root, "summary", summary);
        json_object_set_new(root, "moves", list);
    } else {
        json_decref(summary);
        json_decref(list);
    }
    free(est);
    free(mv);
    free(out);
    return why;
}

static char *compute(const char *record, const thue_bot_limits *lim, review_offers *offers)
{
    json_error_t jerr;
    json_t *rec = json_loads(record, 0, &jerr);
    const char *id = json_string_value(json_object_get(rec, "match"));
    if (rec == NULL || id == NULL) {
        json_decref(rec);
        return unavailable(NULL, "the record does not parse");
    }
    const char *game = json_string_value(json_object_get(rec, "game"));
    const thue_gamedef *g = game != NULL ? thue_game_find(game) : NULL;
    int thue = game == NULL || strcmp(game, "thue") == 0;
    char *text = NULL;
    if (!thue && (g == NULL || !thue_gbot_has_perfect(g))) {
        text = unavailable(id, "this game has no exact solver");
    } else {
        json_t *root = json_pack("{s:s,s:s,s:s}", "match", id, "game", thue ? "thue" : game,
                                 "status", "done");
        const char *why = root == NULL ? "out of memory"
                          : thue       ? review_thue(rec, root, lim)
                                       : review_game(g, rec, root, lim, offers);
        if (why == NULL && thue) /* the budgets it had */
            json_object_set_new(root, "limits",
                                json_pack("{s:I,s:I,s:i}", "position_nodes",
                                          (json_int_t)REVIEW_THUE_POSITION_NODES, "nodes",
                                          (json_int_t)REVIEW_THUE_NODES, "seconds", REVIEW_SECONDS));
        else if (why == NULL)
            json_object_set_new(root, "limits",
                                json_pack("{s:I,s:i}", "position_nodes",
                                          (json_int_t)REVIEW_POSITION_NODES, "seconds",
                                          REVIEW_SECONDS));
        text = why ? unavailable(id, why) : json_dumps(root, JSON_COMPACT);
        json_decref(root);
    }
    json_decref(rec);
    return text;
}

char *reviews_compute(const char *record, const thue_bot_limits *lim)
{
    return compute(record, lim, NULL);
}

/* The pool's yield hook, passed on; its stop flag mirrored into the job's own. */
static int review_yield(void *arg, int64_t now_ns)
{
    review_job *j = arg;
    if (j->pool_stop != NULL && atomic_load(j->pool_stop))
        atomic_store(&j->stop, 1);
    return j->pool_yield != NULL ? j->pool_yield(j->pool_yield_arg, now_ns) : 0;
}

static int review_run(void *data, const thue_bot_limits *pool_lim)
{
    review_job *j = data;
    thue_bot_limits lim;
    memset(&lim, 0, sizeof lim);
    j->pool_stop = pool_lim ? pool_lim->stop : NULL;
    j->pool_yield = pool_lim ? pool_lim->yield : NULL;
    j->pool_yield_arg = pool_lim ? pool_lim->yield_arg : NULL;
    lim.stop = &j->stop;
    lim.yield = review_yield;
    lim.yield_arg = j;
    lim.node_budget = REVIEW_POSITION_NODES;
    lim.deadline_ns = thue_now_ns() + (int64_t)REVIEW_SECONDS * 1000000000;
    j->text = compute(j->record, &lim, &j->offers);
    return j->text != NULL ? 0 : THUE_ENOMEM;
}

/* ---- the loop's part -------------------------------------------------------------------- */

static void job_end(review_job *j)
{
    thue_lobby *l = j->l;
    for (review_job **pp = &l->reviews; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    l->nreviews--;
    for (int i = 0; i < j->offers.n; i++)
        free(j->offers.st[i]);
    free(j->record);
    free(j->text);
    free(j);
    l->handles--;
    if (l->maybe_closed != NULL)
        l->maybe_closed(l);
}

static void saved(int err, int64_t id, void *data)
{
    review_job *j = data;
    (void)id;
    j->l->store_pending--;
    if (err)
        thue_log(THUE_LOG_WARN, "match %s: its review was not stored: %s", j->id, thue_strerror(err));
    job_end(j);
}

static void run_done(uint64_t task, int err, void *data)
{
    review_job *j = data;
    (void)task;
    if (err != 0 || j->text == NULL || atomic_load(&j->stop) || j->l->stopping) {
        if (err != 0 && !atomic_load(&j->stop))
            thue_log(THUE_LOG_WARN, "match %s: review failed: %s", j->id, thue_strerror(err));
        job_end(j);
        return;
    }
    thue_lobby *l = j->l;
    for (int i = 0; i < j->offers.n && l->puzzle_offer != NULL; i++)
        l->puzzle_offer(l->puzzle_offer_ctx, j->offers.g, &j->offers.opt, j->offers.st[i], j->id);
    j->stage = 2;
    if (thue_store_save_review(j->l->store, j->id, j->text, saved, j) != 0) {
        job_end(j);
        return;
    }
    j->l->store_pending++;
}

static void record_read(int status, char *body, size_t len, void *data)
{
    review_job *j = data;
    (void)len;
    j->l->store_pending--;
    if (status != 200 || body == NULL || j->l->stopping) {
        free(body);
        job_end(j);
        return;
    }
    j->record = body;
    j->stage = 1;
    thue_pool_task t = {review_run, run_done, REVIEW_OWNER, j};
    if (thue_pool_submit_task(j->l->pool, &t, &j->task) != 0)
        job_end(j);
}

static void start(thue_lobby *l, const char *match_id)
{
    if (l->store == NULL || l->pool == NULL || l->stopping || l->nreviews >= l->cfg.reviews ||
        strlen(match_id) > THUE_PROTO_KEY_MAX)
        return;
    for (review_job *j = l->reviews; j; j = j->next)
        if (strcmp(j->id, match_id) == 0)
            return; /* under way */
    review_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return;
    j->l = l;
    snprintf(j->id, sizeof j->id, "%s", match_id);
    if (thue_store_match_json(l->store, match_id, record_read, j) != 0) {
        free(j);
        return;
    }
    l->store_pending++;
    l->handles++;
    j->next = l->reviews;
    l->reviews = j;
    l->nreviews++;
}

void reviews_match_stored(thue_lobby *l, const char *match_id)
{
    start(l, match_id);
}

void thue_lobby_review_wanted(thue_lobby *l, const char *match_id)
{
    start(l, match_id);
}

void thue_lobby_set_puzzle_offer(thue_lobby *l, thue_puzzle_offer_fn offer, void *ctx)
{
    l->puzzle_offer = offer;
    l->puzzle_offer_ctx = ctx;
}

int thue_lobby_reviews_on(const thue_lobby *l)
{
    return l->cfg.reviews > 0;
}

void reviews_shutdown(thue_lobby *l)
{
    for (review_job *j = l->reviews; j; j = j->next)
        atomic_store(&j->stop, 1);
}
