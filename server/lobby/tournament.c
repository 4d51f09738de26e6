/*
 * tournament.c: tournaments (PROTOCOL.md section 9, docs/tournaments.md).
 *
 * A tournament is created by an account, entered by accounts and bots while it is open,
 * and started by its creator. Each round is paired by ladder/schedule.c (the Berger
 * tables, or the Swiss rules); the server makes one room per game, seats both players,
 * and starts the match at once. An entrant who is not connected when the round starts
 * (no session at all) forfeits that game; one within its grace period is seated and the
 * grace period decides. When every game of the round has a result the next round starts;
 * after the last one the tournament is finished.
 *
 * The whole state (entrants, every round's games and results) is saved to the store
 * after every change. At start-up an unfinished tournament is loaded back: games that
 * had a result keep it, and the games of the current round that were being played are
 * played again from the start. Their human players get grace_s seconds from the
 * restart to come back (hello with their token seats them); past that they forfeit.
 *
 * Tournament games are not rated.
 *
 * Calls go down: tournament.c calls room.c (its games' rooms), accounts.c, roomstate.c
 * and util.c. No room, table or record module calls it: a game's end comes back through
 * the room's game_over hook set here (tournament_game_over), and a session for an absent
 * account through the lobby's session_for_account hook (lobby.c's).
 *
 * Limits (docs/tournaments.md): open and running tournaments in all, open ones per
 * account and per address (counted from the list itself, so they cannot drift), and an
 * hourly creation bucket per account and per address (lobby->tour_rate). An open
 * tournament expires tournament_expire_s after its creation (one lobby timer, armed for
 * the earliest); it is then saved as status 3 with the store's finished flag, so it is
 * never loaded again, and freed. The list is kept newest first (sorted after loading),
 * so a page of list_tournaments is a run of it; entrants are allocated as they join.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ladder/schedule.h"
#include "accounts.h"
#include "nodes.h"
#include "room.h"
#include "roomstate.h"
#include "tournament.h"
#include "util.h"
#include "log.h"

/* ---- finding ------------------------------------------------------------------------- */

/* The tournament named id among those after `from` in the list. */
static tournament *tournament_find_after(const tournament *from, const char *id)
{
    for (tournament *t = from->next; t; t = t->next)
        if (strcmp(t->id, id) == 0)
            return t;
    return NULL;
}

tournament *tournament_find(thue_lobby *l, const char *id)
{
    for (tournament *t = l->tournaments; t; t = t->next)
        if (strcmp(t->id, id) == 0)
            return t;
    return NULL;
}

static int entrant_index(const tournament *t, const char *name)
{
    char key[THUE_PROTO_NAME_MAX * 4 + 1], k2[THUE_PROTO_NAME_MAX * 4 + 1];
    lobby_name_key(name, key, sizeof key);
    for (int i = 0; i < t->n; i++) {
        lobby_name_key(t->e[i].name, k2, sizeof k2);
        if (strcmp(key, k2) == 0)
            return i;
    }
    return -1;
}

/* ---- events and state messages --------------------------------------------------------- */

static void add_watcher(tournament *t, session *s)
{
    for (int i = 0; i < t->nwatch; i++)
        if (t->watch[i] == s)
            return;
    if (t->nwatch == t->capwatch) {
        int cap = t->capwatch ? 2 * t->capwatch : 8;
        session **grown = realloc(t->watch, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return;
        t->watch = grown;
        t->capwatch = cap;
    }
    t->watch[t->nwatch++] = s;
}

void tournament_session_gone(thue_lobby *l, session *s)
{
    for (tournament *t = l->tournaments; t; t = t->next)
        for (int i = 0; i < t->nwatch; i++)
            if (t->watch[i] == s) {
                t->watch[i] = t->watch[--t->nwatch];
                break;
            }
}

/* The session of an entrant who is a person, or NULL. */
static session *entrant_session(const tournament_entrant *e)
{
    return e->kind == THUE_KIND_ACCOUNT && e->acct ? e->acct->session : NULL;
}

static void send_event(thue_lobby *l, tournament *t, const char *event, int round,
                       const char (*rooms)[THUE_PROTO_KEY_MAX + 1], int nrooms)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_TOURNAMENT_EVENT;
    snprintf(msg.u.tournament_event.tournament, sizeof msg.u.tournament_event.tournament, "%s",
             t->id);
    snprintf(msg.u.tournament_event.event, sizeof msg.u.tournament_event.event, "%s", event);
    msg.u.tournament_event.round = round;
    msg.u.tournament_event.rooms = rooms;
    msg.u.tournament_event.nrooms = nrooms;
    char *text = thue_msg_encode(&msg, NULL);
    if (text == NULL)
        return;
    for (int i = 0; i < t->n; i++) {
        session *s = entrant_session(&t->e[i]);
        if (s)
            lobby_send_text(l, s->client, text);
    }
    for (int i = 0; i < t->nwatch; i++) {
        bool entrant = t->watch[i]->acct && entrant_index(t, t->watch[i]->player.name) >= 0;
        if (!entrant)
            lobby_send_text(l, t->watch[i]->client, text);
    }
    free(text);
}

static void summary_of(const tournament *t, thue_tournament_summary *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->tournament, sizeof o->tournament, "%s", t->id);
    snprintf(o->name, sizeof o->name, "%s", t->name);
    o->format = t->format;
    o->variant = t->variant;
    o->k = t->k;
    if (t->game != NULL) {
        o->has_game = 1;
        snprintf(o->game, sizeof o->game, "%s", t->game->name);
        snprintf(o->game_options, sizeof o->game_options, "%s", t->game_options);
    }
    o->status = t->status;
    o->players = t->n;
    o->max_players = t->max_players;
    o->round = t->round;
    o->rounds = t->nrounds ? t->nrounds : t->rounds_asked;
}

/* A page being filled: the summaries from offset on, count at most, of those whose status
 * passes (-1: any); total counts them all. */
typedef struct page_fill {
    int status, offset, count;
    thue_tournament_summary *list;
    int n, total;
} page_fill;

static void page_add(void *ctx, const thue_tournament_summary *o)
{
    page_fill *p = ctx;
    if (p->status >= 0 && o->status != p->status)
        return;
    if (p->total >= p->offset && p->n < p->count)
        p->list[p->n++] = *o;
    p->total++;
}

static char *list_text(thue_lobby *l, const thue_msg_id *id, int status, int offset, int count,
                       bool whole, bool others)
{
    /* One page: the list is newest first, so the page is a run of it. Only the page's
     * summaries are made: a reply is at most count (200) of them however many there are.
     * With several nodes, the other nodes' tournaments follow this node's. */
    thue_tournament_summary *list = calloc(count > 0 ? (size_t)count : 1, sizeof *list);
    if (list == NULL)
        return NULL;
    page_fill p = {status, offset, count, list, 0, 0};
    for (tournament *t = l->tournaments; t; t = t->next) {
        if (status >= 0 && t->status != status)
            continue;
        if (p.total >= offset && p.n < count)
            summary_of(t, &list[p.n++]);
        p.total++;
    }
    if (others)
        nodes_each_remote_tournament(l, page_add, &p);
    int total = p.total, n = p.n;
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_TOURNAMENTS;
    if (id)
        msg.id = *id;
    msg.u.tournaments.offset = offset;
    msg.u.tournaments.total = total;
    msg.u.tournaments.list = list;
    msg.u.tournaments.count = n;
    char *text = id || whole ? thue_msg_encode(&msg, NULL) : thue_msg_encode_members(&msg, NULL);
    free(list);
    return text;
}

char *tournaments_text(thue_lobby *l, const thue_msg_id *id, int status, int offset, int count)
{
    return list_text(l, id, status, offset, count, false, l->cluster != NULL);
}

char *tournaments_node_text(thue_lobby *l)
{
    return list_text(l, NULL, -1, 0, THUE_TOURNAMENTS_SHARED, true, false);
}

static int result_wire(int result)
{
    switch (result) {
    case THUE_RESULT_FIRST_WINS:
        return 0;
    case THUE_RESULT_SECOND_WINS:
        return 1;
    case THUE_RESULT_DRAW:
        return 2;
    case THUE_RESULT_BYE:
        return 3;
    default:
        return -1;
    }
}

char *tournament_text(tournament *t, const thue_msg_id *id)
{
    int maxg = 0;
    for (int r = 0; r < t->round; r++)
        maxg += t->nboards[r];
    thue_player *entrants = calloc((size_t)t->n + 1, sizeof *entrants);
    thue_standing *rows = calloc((size_t)t->n + 1, sizeof *rows);
    thue_sched_standing *st = calloc((size_t)t->n + 1, sizeof *st);
    thue_game *games = calloc((size_t)maxg + 1, sizeof *games);
    thue_tournament_round *rounds = calloc((size_t)t->round + 1, sizeof *rounds);
    thue_pairing *pairings = calloc((size_t)maxg + 1, sizeof *pairings);
    char *text = NULL;
    if (!entrants || !rows || !st || !games || !rounds || !pairings)
        goto done;
    for (int i = 0; i < t->n; i++) {
        snprintf(entrants[i].name, sizeof entrants[i].name, "%s", t->e[i].name);
        entrants[i].kind = t->e[i].kind;
    }
    int nst = 0;
    if (t->n >= 2 && t->round > 0) {
        thue_round_games per[THUE_SCHED_ROUNDS_MAX_ALL];
        int ng = 0;
        for (int r = 0; r < t->round; r++) {
            per[r].games = &games[ng];
            per[r].count = t->nboards[r];
            for (int b = 0; b < t->nboards[r]; b++)
                games[ng++] = t->games[r][b].g;
        }
        int seeds[THUE_SCHED_PLAYERS_MAX];
        for (int i = 0; i < t->n; i++)
            seeds[i] = t->e[i].seed;
        nst = thue_standings(t->n, seeds, per, t->round, st);
        if (nst < 0)
            nst = 0;
    }
    for (int i = 0; i < nst; i++) {
        rows[i].rank = st[i].rank;
        snprintf(rows[i].name, sizeof rows[i].name, "%s", t->e[st[i].player].name);
        rows[i].points = st[i].half_points / 2.0;
        rows[i].buchholz = st[i].buchholz_halves / 2.0;
        rows[i].sonneborn_berger = st[i].sb_quarters / 4.0;
        rows[i].games = st[i].games;
    }
    int np = 0;
    for (int r = 0; r < t->round; r++) {
        rounds[r].pairings = &pairings[np];
        rounds[r].npairings = t->nboards[r];
        for (int b = 0; b < t->nboards[r]; b++) {
            const tournament_game *g = &t->games[r][b];
            thue_pairing *p = &pairings[np++];
            snprintf(p->names[0], sizeof p->names[0], "%s", t->e[g->g.first].name);
            p->has_second = g->g.second != THUE_SCHED_BYE;
            if (p->has_second)
                snprintf(p->names[1], sizeof p->names[1], "%s", t->e[g->g.second].name);
            p->has_room = g->room[0] != '\0';
            snprintf(p->room, sizeof p->room, "%s", g->room);
            p->result = result_wire(g->g.result);
        }
    }
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_TOURNAMENT;
    if (id)
        msg.id = *id;
    summary_of(t, &msg.u.tournament.summary);
    msg.u.tournament.limit = t->limit;
    msg.u.tournament.clock = t->clock;
    msg.u.tournament.entrants = entrants;
    msg.u.tournament.nentrants = t->n;
    msg.u.tournament.standings = rows;
    msg.u.tournament.nstandings = nst;
    msg.u.tournament.round_list = rounds;
    msg.u.tournament.nrounds = t->round;
    text = id ? thue_msg_encode(&msg, NULL) : thue_msg_encode_members(&msg, NULL);
done:
    free(entrants);
    free(rows);
    free(st);
    free(games);
    free(rounds);
    free(pairings);
    return text;
}

/* ---- persistence ----------------------------------------------------------------------- */

/* ---- leases (several nodes) -------------------------------------------------------------
 *
 * With several nodes, the node that directs a tournament holds a lease on its row in the
 * database (store.h, thue_store_tournament_leases) and a fencing token. Each second every
 * node renews its leases (LEASE_MS from then) and takes over at most one tournament whose
 * lease ran out, its director being dead or cut off: it reads the state, recovers the
 * results its old director had stored as matches but not in the state, and replays the
 * current round's unfinished games (their players get grace_s to come, as after a
 * restart). A node pairs a round, or starts a tournament, only while its own clock says
 * its lease surely holds (the renewal's send time + LEASE_MS - LEASE_MARGIN_MS); every save
 * carries the fence, and a save the database refuses (another node took it over) makes
 * this node drop the tournament. So a node paused past its lease (SIGSTOP), on waking,
 * neither pairs a round nor writes the state: its first renewal finds the tournament
 * gone and drops it. A single server has no lease. docs/cluster.md. */

#define LEASE_MS 10000
#define LEASE_MARGIN_MS 3000

static bool leased(const thue_lobby *l)
{
    return l->cluster != NULL && l->store != NULL && l->cfg.node[0] != '\0';
}

/* Whether this node may take a directing decision (pair a round, start) now. */
static bool may_direct(const thue_lobby *l, const tournament *t)
{
    return !leased(l) || (t->lease_until != 0 && uv_now(l->loop) < t->lease_until);
}

static void tournament_remove(thue_lobby *l, tournament *t);

/* Another node directs the tournament now: this node forgets it (its rooms still running
 * end without a result here; the new director plays those games again). */
static void fenced_out(thue_lobby *l, const char *id)
{
    tournament *t = tournament_find(l, id);
    if (t == NULL)
        return;
    thue_log(THUE_LOG_WARN, "tournament %s: another node directs it now (its lease was taken): "
             "dropped here", id);
    /* Its games still being played here are no longer its games (the new director plays
     * them again): they end, and are stored, as ordinary matches. */
    for (room *r = l->rooms; r; r = r->next)
        if (strcmp(r->tournament, id) == 0) {
            r->tournament[0] = '\0';
            r->game_over = NULL;
        }
    tournament_remove(l, t);
}

/* A save's answer: the tournament's id, to drop it when the save was fenced. */
typedef struct save_wait {
    thue_lobby *l;
    char id[THUE_PROTO_KEY_MAX + 1];
} save_wait;

static void state_saved(int err, int64_t id, void *data)
{
    save_wait *w = data;
    thue_lobby *l = w->l;
    (void)id;
    l->store_pending--;
    if (err == THUE_STORE_EFENCED)
        fenced_out(l, w->id);
    else if (err)
        thue_log(THUE_LOG_ERROR, "the store could not save tournament %s: %s", w->id,
                 thue_strerror(err));
    free(w);
}

/* The tournament as JSON (what thue_lobby_load_tournament reads back). */
static char *state_json(const tournament *t)
{
    json_t *ents = json_array(), *rounds = json_array();
    for (int i = 0; i < t->n; i++)
        json_array_append_new(ents, json_pack("{s:s, s:i, s:s, s:i}", "name", t->e[i].name, "kind",
                                              (int)t->e[i].kind, "bot", t->e[i].bot, "seed",
                                              t->e[i].seed));
    for (int r = 0; r < t->round; r++) {
        json_t *games = json_array();
        for (int b = 0; b < t->nboards[r]; b++) {
            const thue_game *g = &t->games[r][b].g;
            json_array_append_new(games, json_pack("[i, i, i]", g->first, g->second, g->result));
        }
        json_array_append_new(rounds, games);
    }
    json_t *o = json_pack(
        "{s:s, s:s, s:i, s:i, s:i, s:i, s:b, s:I, s:I, s:i, s:i, s:i, s:s, s:i, s:i, s:o, s:o}",
        "id", t->id, "name", t->name, "format", (int)t->format, "variant", (int)t->variant, "k",
        t->k, "limit", t->limit, "clock", t->clock.present, "initial_ms",
        (json_int_t)t->clock.initial_ms, "increment_ms", (json_int_t)t->clock.increment_ms,
        "rounds_asked", t->rounds_asked, "max_players", t->max_players, "status", t->status,
        "creator", t->creator, "nrounds", t->nrounds, "lot", t->lot, "entrants", ents, "rounds",
        rounds);
    if (o != NULL)
        json_object_set_new(o, "created_ms", json_integer((json_int_t)t->created_ms));
    if (o != NULL && t->game != NULL) {
        json_object_set_new(o, "game", json_string(t->game->name));
        json_object_set_new(o, "game_options", json_string(t->game_options));
    }
    /* Several nodes: the node that directs it (the one that loads it again at start-up). */
    if (o != NULL && t->lobby->cfg.node[0] != '\0') {
        json_object_set_new(o, "node", json_string(t->lobby->cfg.node));
        json_object_set_new(o, "fence", json_integer((json_int_t)t->fence));
    }
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

/* A round whose state is being stored: its games start once it is (round_stored). */
typedef struct round_wait {
    thue_lobby *l;
    char id[THUE_PROTO_KEY_MAX + 1];
    int round;
} round_wait;

static void round_stored(int err, int64_t id, void *data);

/* Queues the tournament's state; with `wait`, round_stored runs once it is committed. */
static void save_then(thue_lobby *l, tournament *t, round_wait *wait)
{
    char *text = l->store ? state_json(t) : NULL;
    save_wait *sw = wait ? NULL : calloc(1, sizeof *sw);
    int err = text == NULL || (wait == NULL && sw == NULL) ? THUE_ENOMEM : 0;
    if (sw != NULL) {
        sw->l = l;
        snprintf(sw->id, sizeof sw->id, "%s", t->id);
    }
    if (err == 0)
        err = thue_store_save_tournament_fenced(
            l->store, t->id, text, t->status >= 2, leased(l) ? l->cfg.node : "", t->fence,
            leased(l) ? LEASE_MS : 0, wait ? round_stored : state_saved,
            wait ? (void *)wait : (void *)sw);
    free(text);
    if (err == 0) {
        l->store_pending++;
        return;
    }
    free(sw);
    thue_log(THUE_LOG_ERROR, "tournament %s: cannot store its state: %s", t->id,
             thue_strerror(err));
    if (wait) { /* play on: the state will be stored with the next result */
        l->store_pending++;
        round_stored(err, 0, wait);
    }
}

static void save(thue_lobby *l, tournament *t)
{
    if (l->store != NULL)
        save_then(l, t, NULL);
}

/* ---- making and entering ---------------------------------------------------------------- */

static tournament *tournament_alloc(thue_lobby *l)
{
    tournament *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->lobby = l;
    t->next = l->tournaments;
    l->tournaments = t;
    return t;
}

static void tournament_free(tournament *t)
{
    if (t->id[0] != '\0')
        nodes_id_gone(t->lobby, t->id);
    for (int r = 0; r < THUE_SCHED_ROUNDS_MAX_ALL; r++)
        free(t->games[r]);
    free(t->watch);
    free(t->e);
    free(t);
}

/* Takes t out of the lobby's list and frees it. */
static void tournament_remove(thue_lobby *l, tournament *t)
{
    tournament **pp = &l->tournaments;
    while (*pp && *pp != t)
        pp = &(*pp)->next;
    if (*pp)
        *pp = t->next;
    tournament_free(t);
}

void tournaments_free(thue_lobby *l)
{
    while (l->tournaments) {
        tournament *t = l->tournaments;
        l->tournaments = t->next;
        tournament_free(t);
    }
}

/* Room for one more entrant: 0, or -1 when out of memory. */
static int entrant_room(tournament *t)
{
    if (t->n < t->cap)
        return 0;
    int cap = t->cap ? 2 * t->cap : 8;
    if (cap > THUE_SCHED_PLAYERS_MAX)
        cap = THUE_SCHED_PLAYERS_MAX;
    if (cap <= t->n)
        return -1;
    tournament_entrant *grown = realloc(t->e, (size_t)cap * sizeof *grown);
    if (grown == NULL)
        return -1;
    t->e = grown;
    t->cap = cap;
    return 0;
}

/* ---- limits: how many, how fast, how long ------------------------------------------------ */

static void trim_finished(thue_lobby *l);

static int64_t expires_at(const thue_lobby *l, const tournament *t)
{
    return t->created_ms + (int64_t)l->cfg.tournament_expire_s * 1000;
}

/* The tournament expires: its entrants and watchers hear it, the store keeps it marked
 * expired (status 3, finished: it is not loaded again), and it leaves memory. */
static void expire(thue_lobby *l, tournament *t)
{
    thue_log(THUE_LOG_INFO, "tournament %s (%s) expired: not started within %d s", t->id, t->name,
             l->cfg.tournament_expire_s);
    send_event(l, t, "expired", -1, NULL, 0);
    t->status = 3;
    save(l, t);
    tournament_remove(l, t);
}

static void tournaments_due(uv_timer_t *timer)
{
    thue_lobby *l = timer->data;
    int64_t now = lobby_now_ms();
    for (tournament *t = l->tournaments, *next; t; t = next) {
        next = t->next;
        if (t->status == 0 && expires_at(l, t) <= now)
            expire(l, t);
    }
    trim_finished(l);
    tournaments_arm(l);
}

void tournaments_arm(thue_lobby *l)
{
    if (l->stopping)
        return;
    int64_t first = INT64_MAX;
    for (tournament *t = l->tournaments; t; t = t->next)
        if (t->status == 0 && expires_at(l, t) < first)
            first = expires_at(l, t);
    if (first == INT64_MAX) {
        uv_timer_stop(&l->tour_timer);
        return;
    }
    int64_t wait = first - lobby_now_ms();
    l->tour_timer.data = l;
    uv_timer_start(&l->tour_timer, tournaments_due, wait > 0 ? (uint64_t)wait : 0, 0);
}

/* Finished tournaments stay in memory for their pages; past max_tournaments of them the
 * oldest go (the store keeps them, as it keeps every finished one across a restart).
 * Called where no walk of the list is under way (a creation, the expiry timer): with the
 * total limit on open and running ones, memory holds at most twice max_tournaments. */
static void trim_finished(thue_lobby *l)
{
    int kept = 0;
    for (tournament *t = l->tournaments, *next; t; t = next) {
        next = t->next;
        if (t->status == 2 && ++kept > l->cfg.max_tournaments)
            tournament_remove(l, t);
    }
}

/* Whether the session's account may create a tournament from its address now: 0, with
 * one tournament taken from the account's and the address's hourly buckets; or the
 * error, with rq's message saying which limit and what to do. */
static int creation_allowed(request *rq, const char *addr)
{
    thue_lobby *l = rq->c->lobby;
    const account *a = rq->c->s->acct;
    int live = 0, mine = 0, here = 0;
    for (const tournament *t = l->tournaments; t; t = t->next) {
        if (t->status == 0 || t->status == 1)
            live++;
        if (t->status == 0 && strcmp(t->creator, a->name) == 0)
            mine++;
        if (t->status == 0 && addr[0] && strcmp(t->addr, addr) == 0)
            here++;
    }
    int hours = l->cfg.tournament_expire_s / 3600, mins = l->cfg.tournament_expire_s / 60;
    char expiry[48];
    if (hours >= 2)
        snprintf(expiry, sizeof expiry, "%d hours", hours);
    else if (mins >= 2)
        snprintf(expiry, sizeof expiry, "%d minutes", mins);
    else
        snprintf(expiry, sizeof expiry, "%d s", l->cfg.tournament_expire_s);
    if (live >= l->cfg.max_tournaments) {
        snprintf(rq->message, sizeof rq->message,
                 "the server has as many open and running tournaments as it takes (%d); try "
                 "again when one has finished",
                 l->cfg.max_tournaments);
        return THUE_PERR_BUSY;
    }
    if (mine >= l->cfg.tournaments_per_account) {
        snprintf(rq->message, sizeof rq->message,
                 "you have %d open tournaments, the most an account may have: start one, or "
                 "wait until one expires (%s after its creation)",
                 mine, expiry);
        return THUE_PERR_NOT_ALLOWED;
    }
    if (here >= l->cfg.tournaments_per_ip) {
        snprintf(rq->message, sizeof rq->message,
                 "your address has %d open tournaments, the most one address may have: start "
                 "one, or wait until one expires (%s after its creation)",
                 here, expiry);
        return THUE_PERR_NOT_ALLOWED;
    }
    char akey[THUE_LIMIT_KEY_MAX];
    snprintf(akey, sizeof akey, "account %lld", (long long)a->id);
    uint64_t now = uv_now(l->loop);
    /* Both buckets must hold a token before either is taken. */
    double ta = thue_limiter_tokens(l->tour_rate, akey, now);
    double tb = addr[0] ? thue_limiter_tokens(l->tour_rate, addr, now) : 1;
    double least = ta < tb ? ta : tb;
    if (least < 1) {
        double wait_s = (1 - least) * 3600.0 / l->cfg.tournament_rate;
        snprintf(rq->message, sizeof rq->message,
                 "an account, and an address, may create %d tournaments an hour; the next one "
                 "can be created in %d min",
                 l->cfg.tournament_rate, (int)(wait_s / 60) + 1);
        return THUE_PERR_RATE;
    }
    thue_limiter_take(l->tour_rate, akey, now, NULL);
    if (addr[0])
        thue_limiter_take(l->tour_rate, addr, now, NULL);
    return 0;
}

int cmd_create_tournament(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    session *s = rq->c->s;
    const __typeof__(rq->cmd->u.create_tournament) *a = &rq->cmd->u.create_tournament;
    if (l->store == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "this server runs without a database: tournaments are off");
        return THUE_PERR_NOT_AVAILABLE;
    }
    if (s->acct == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "tournaments are for accounts: claim a name first (claim_name)");
        return THUE_PERR_NOT_ALLOWED;
    }
    if (a->format == THUE_FORMAT_SWISS && !a->has_rounds) {
        snprintf(rq->field, sizeof rq->field, "rounds");
        return THUE_PERR_MESSAGE;
    }
    /* The game and its options, checked as create_room checks them. */
    thue_room_options gro;
    memset(&gro, 0, sizeof gro);
    const thue_gamedef *game;
    thue_gopt gopt;
    int gerr =
        room_game_options(rq, a->has_game ? a->game : NULL,
                          a->has_game_options ? a->game_options : NULL, &gro, &game, &gopt);
    if (gerr)
        return gerr;
    char addr[THUE_LIMIT_KEY_MAX];
    thue_addr_key(rq->c->peer, addr, sizeof addr);
    trim_finished(l);
    int err = creation_allowed(rq, addr);
    if (err)
        return err;
    tournament *t = tournament_alloc(l);
    if (t == NULL)
        return THUE_PERR_INTERNAL;
    /* t is first in the list: a clash is with one of the others. */
    int bad = 0;
    do {
        t->id[0] = 't';
        bad = lobby_random_key(t->id + 1, LOBBY_ID_CHARS, LOBBY_ID_ALPHABET);
    } while (bad == 0 && tournament_find_after(t, t->id) != NULL);
    if (bad != 0) {
        thue_log(THUE_LOG_ERROR, "the kernel's random generator failed: no tournament made");
        l->tournaments = t->next;
        free(t);
        return THUE_PERR_INTERNAL;
    }
    nodes_id_added(l, t->id);
    snprintf(t->name, sizeof t->name, "%s", a->name);
    t->created_ms = lobby_now_ms();
    snprintf(t->addr, sizeof t->addr, "%s", addr);
    t->format = a->format;
    t->variant = a->variant;
    t->k = a->k;
    t->limit = a->limit;
    t->game = game;
    snprintf(t->game_options, sizeof t->game_options, "%s", gro.game_options);
    t->clock = a->clock;
    t->rounds_asked = a->format == THUE_FORMAT_SWISS ? a->rounds : 0;
    t->max_players = a->max_players;
    snprintf(t->creator, sizeof t->creator, "%s", s->acct->name);
    t->lot = (int)(lobby_random(l) & 1);
    if (leased(l)) /* its row is made with this node's lease */
        t->lease_until = uv_now(l->loop) + LEASE_MS - LEASE_MARGIN_MS;
    add_watcher(t, s);
    save(l, t);
    thue_log(THUE_LOG_INFO, "tournament %s (%s) created by %s", t->id, t->name, t->creator);
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_TOURNAMENT_CREATED;
    msg.id = rq->cmd->id;
    snprintf(msg.u.tournament_created.tournament, sizeof msg.u.tournament_created.tournament, "%s",
             t->id);
    lobby_send_msg(l, s, &msg);
    tournaments_arm(l);
    return 0;
}

/* The tournament a command names; err when none. */
static tournament *named(request *rq, int *err)
{
    thue_lobby *l = rq->c->lobby;
    if (l->store == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "this server runs without a database: tournaments are off");
        *err = THUE_PERR_NOT_AVAILABLE;
        return NULL;
    }
    tournament *t = tournament_find(l, rq->cmd->u.tournament.tournament);
    if (t == NULL && l->cluster != NULL) {
        /* another node's? (LOBBY_LATER: moved, or no_such_tournament, comes later) */
        *err = nodes_find_tournament(rq, rq->cmd->u.tournament.tournament);
    } else if (t == NULL) {
        snprintf(rq->field, sizeof rq->field, "tournament");
        *err = THUE_PERR_NO_TOURNAMENT;
    }
    return t;
}

/* Who a join or leave is about: the session's account, or the bot SPEC given. */
static int subject(request *rq, const tournament *t, tournament_entrant *out)
{
    memset(out, 0, sizeof *out);
    session *s = rq->c->s;
    if (rq->cmd->u.tournament.has_bot) {
        thue_bot_spec spec;
        thue_gbot_spec gspec;
        char why[THUE_PROTO_TEXT_MAX + 1];
        if (t->game != NULL
                ? thue_gbot_spec_parse(t->game, rq->cmd->u.tournament.bot, &gspec, why,
                                       sizeof why) != 0
                : thue_bot_spec_parse(rq->cmd->u.tournament.bot, &spec, why, sizeof why) != 0) {
            snprintf(rq->field, sizeof rq->field, "bot");
            snprintf(rq->message, sizeof rq->message, "%s", why);
            return THUE_PERR_BOT;
        }
        thue_gopt gopt;
        thue_gerr ge;
        if (t->game != NULL && thue_game_options_text(t->game, t->game_options, &gopt, &ge) == 0 &&
            lobby_search_allowed(rq->c->lobby, t->game, &gopt, rq->message, sizeof rq->message) !=
                0) {
            snprintf(rq->field, sizeof rq->field, "bot");
            return THUE_PERR_BOT;
        }
        out->kind = THUE_KIND_BOT;
        if (t->game != NULL)
            thue_gbot_spec_format(&gspec, out->bot, sizeof out->bot);
        else
            thue_bot_spec_format(&spec, out->bot, sizeof out->bot);
        bot_name_of(out->bot, out->name, sizeof out->name);
        return 0;
    }
    if (s->acct == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "tournaments are for accounts: claim a name first (claim_name)");
        return THUE_PERR_NOT_ALLOWED;
    }
    out->kind = THUE_KIND_ACCOUNT;
    out->acct = s->acct;
    snprintf(out->name, sizeof out->name, "%s", s->acct->name);
    return 0;
}

/* The open tournament a join or leave names, and who it is about; NULL with *err set. */
static tournament *open_entry(request *rq, tournament_entrant *e, int *err)
{
    tournament *t = named(rq, err);
    if (t == NULL)
        return NULL;
    if (t->status != 0) {
        *err = THUE_PERR_TOURNAMENT_CLOSED;
        return NULL;
    }
    return (*err = subject(rq, t, e)) == 0 ? t : NULL;
}

int cmd_join_tournament(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    int err = 0;
    tournament_entrant e;
    tournament *t = open_entry(rq, &e, &err);
    if (t == NULL)
        return err;
    if (entrant_index(t, e.name) >= 0) {
        snprintf(rq->message, sizeof rq->message, "%s has already entered", e.name);
        return THUE_PERR_NOT_ALLOWED;
    }
    if (t->n >= t->max_players || t->n >= THUE_SCHED_PLAYERS_MAX) {
        snprintf(rq->message, sizeof rq->message, "the tournament is full (%d players)",
                 t->max_players);
        return THUE_PERR_NOT_ALLOWED;
    }
    if (entrant_room(t) != 0)
        return THUE_PERR_INTERNAL;
    if (e.kind == THUE_KIND_BOT)
        e.acct = account_bot(l, e.bot, e.name);
    t->e[t->n++] = e;
    add_watcher(t, rq->c->s);
    save(l, t);
    request_ok(rq);
    send_event(l, t, "joined", -1, NULL, 0);
    return 0;
}

int cmd_leave_tournament(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    int err = 0;
    tournament_entrant e;
    tournament *t = open_entry(rq, &e, &err);
    if (t == NULL)
        return err;
    int i = entrant_index(t, e.name);
    if (i < 0) {
        snprintf(rq->message, sizeof rq->message, "%s has not entered", e.name);
        return THUE_PERR_NOT_ALLOWED;
    }
    memmove(&t->e[i], &t->e[i + 1], (size_t)(t->n - i - 1) * sizeof t->e[0]);
    t->n--;
    save(l, t);
    request_ok(rq);
    send_event(l, t, "left", -1, NULL, 0);
    return 0;
}

int cmd_list_tournaments(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    if (l->store == NULL) {
        snprintf(rq->message, sizeof rq->message,
                 "this server runs without a database: tournaments are off");
        return THUE_PERR_NOT_AVAILABLE;
    }
    const __typeof__(rq->cmd->u.list_tournaments) *a = &rq->cmd->u.list_tournaments;
    char *text =
        tournaments_text(l, &rq->cmd->id, a->has_status ? a->status : -1, a->offset, a->count);
    if (text == NULL)
        return THUE_PERR_INTERNAL;
    lobby_send_text(l, rq->c, text);
    free(text);
    return 0;
}

int cmd_get_tournament(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    int err = 0;
    tournament *t = named(rq, &err);
    if (t == NULL)
        return err;
    char *text = tournament_text(t, &rq->cmd->id);
    if (text == NULL)
        return THUE_PERR_INTERNAL;
    add_watcher(t, rq->c->s);
    lobby_send_text(l, rq->c, text);
    free(text);
    return 0;
}

/* ---- rounds ----------------------------------------------------------------------------- */

static void start_round(thue_lobby *l, tournament *t);

static int first_wins(int seat_winner, int first_seat)
{
    if (seat_winner < 0)
        return THUE_RESULT_DRAW;
    return seat_winner == first_seat ? THUE_RESULT_FIRST_WINS : THUE_RESULT_SECOND_WINS;
}

/* Moves on once every game of the current round has a result. */
static void check_round(thue_lobby *l, tournament *t)
{
    int r = t->round - 1;
    for (int b = 0; b < t->nboards[r]; b++)
        if (t->games[r][b].g.result == THUE_RESULT_NONE)
            return;
    /* Several nodes: decided only under a lease that surely holds (the renewal calls
     * this again). */
    if (!may_direct(l, t))
        return;
    thue_log(THUE_LOG_INFO, "tournament %s: round %d finished", t->id, t->round);
    send_event(l, t, "round_finished", t->round, NULL, 0);
    if (t->round >= t->nrounds) {
        t->status = 2;
        save(l, t);
        thue_log(THUE_LOG_INFO, "tournament %s finished", t->id);
        send_event(l, t, "finished", t->round, NULL, 0);
        return;
    }
    start_round(l, t);
}

static void tournament_game_over(room *r)
{
    thue_lobby *l = r->lobby;
    tournament *t = tournament_find(l, r->tournament);
    /* While stopping, a game's end is not a result: it is played again after the
     * restart. */
    if (t == NULL || t->status != 1 || r->tour_round != t->round || l->stopping)
        return;
    tournament_game *g = &t->games[r->tour_round - 1][r->tour_board];
    if (g->g.result != THUE_RESULT_NONE)
        return;
    /* The first builder sits in seat 0. */
    g->g.result = first_wins(room_winner(r), 0);
    save(l, t);
    check_round(l, t);
}

/* The room of one game: the first builder in seat 0 building round 1. Humans without a
 * session forfeit; with `reserve`, after a restart, their seats wait for them instead. */
static void start_game(thue_lobby *l, tournament *t, int board, bool reserve)
{
    tournament_game *g = &t->games[t->round - 1][board];
    thue_room_options opt;
    memset(&opt, 0, sizeof opt);
    opt.variant = t->variant;
    opt.k = t->k;
    opt.limit = t->limit;
    opt.clock = t->clock;
    opt.first = THUE_FIRST_CREATOR;
    if (t->game != NULL) {
        opt.has_game = 1;
        snprintf(opt.game, sizeof opt.game, "%s", t->game->name);
        snprintf(opt.game_options, sizeof opt.game_options, "%s", t->game_options);
    }
    int who[2] = {g->g.first, g->g.second};
    session *sess[2] = {NULL, NULL};
    bool absent[2] = {false, false}, away[2] = {false, false};
    for (int i = 0; i < 2; i++) {
        const tournament_entrant *e = &t->e[who[i]];
        if (e->kind == THUE_KIND_BOT)
            continue;
        sess[i] = entrant_session(e);
        /* After a restart the owner may not be back yet: a session waits for them (its
         * grace period runs; hello with their token takes it over). With several nodes,
         * the owner may be on another node: the same, and that node is told (below). */
        if (sess[i] == NULL && (reserve || l->cluster != NULL) && e->acct != NULL)
            sess[i] = l->session_for_account(l, e->acct); /* lobby.c's */
        away[i] = l->cluster != NULL && sess[i] != NULL && sess[i]->client == NULL;
        absent[i] = sess[i] == NULL;
    }
    if (absent[0] || absent[1]) {
        g->g.result = absent[0] && absent[1] ? THUE_RESULT_DRAW
                      : absent[0]            ? THUE_RESULT_SECOND_WINS
                                             : THUE_RESULT_FIRST_WINS;
        thue_log(THUE_LOG_INFO, "tournament %s: round %d board %d decided by absence", t->id,
                 t->round, board + 1);
        return;
    }
    room *r = room_for_tournament(l, t, board, &opt);
    if (r == NULL) {
        thue_log(THUE_LOG_ERROR, "tournament %s: no room for board %d: a draw", t->id, board + 1);
        g->g.result = THUE_RESULT_DRAW;
        return;
    }
    r->game_over = tournament_game_over; /* the table calls it once the record is committed */
    snprintf(g->room, sizeof g->room, "%s", r->id);
    for (int i = 0; i < 2; i++) {
        const tournament_entrant *e = &t->e[who[i]];
        if (e->kind != THUE_KIND_BOT)
            room_seat_session(r, i, sess[i]);
        else if (room_seat_tournament_bot(r, i, e->bot, l->cfg.bot_think_ms) != 0) {
            thue_log(THUE_LOG_ERROR, "tournament %s: bot %s cannot be seated: a draw", t->id,
                     e->bot);
            g->g.result = THUE_RESULT_DRAW;
            g->room[0] = '\0';
            room_destroy(r);
            return;
        }
    }
    /* An entrant away from this node: the node they are on (if any) sends them here. */
    for (int i = 0; i < 2; i++)
        if (away[i])
            nodes_broadcast(l, json_pack("{s:s, s:s, s:s, s:s}", "t", "seat", "name",
                                         t->e[who[i]].acct->name, "room", r->id, "resume",
                                         sess[i]->resume));
}

/* Starts the matches of the current round's rooms. */
static void begin_games(thue_lobby *l, tournament *t)
{
    int r = t->round - 1;
    for (int b = 0; b < t->nboards[r]; b++) {
        const tournament_game *g = &t->games[r][b];
        room *rm = g->room[0] && g->g.result == THUE_RESULT_NONE ? room_find(l, g->room) : NULL;
        if (rm != NULL && !rm->ending)
            room_begin_if_full(rm);
    }
}

static int pair_round(tournament *t, thue_game *out)
{
    if (t->format == THUE_FORMAT_ROUND_ROBIN)
        return thue_rr_round(t->n, t->round - 1, out);
    thue_swiss_state *st = malloc(sizeof *st);
    if (st == NULL)
        return THUE_ENOMEM;
    int seeds[THUE_SCHED_PLAYERS_MAX];
    for (int i = 0; i < t->n; i++)
        seeds[i] = t->e[i].seed;
    int err = thue_swiss_init(st, t->n, seeds);
    for (int r = 0; err == 0 && r < t->round - 1; r++)
        for (int b = 0; err == 0 && b < t->nboards[r]; b++)
            err = thue_swiss_record(st, &t->games[r][b].g);
    if (err == 0)
        err = thue_swiss_pair(st, t->lot, out, NULL);
    free(st);
    return err;
}

/* The round is stored: its players hear of it, then its games start; a round decided by
 * byes and absences moves on at once. */
static void announce_round(thue_lobby *l, tournament *t)
{
    int r = t->round - 1, n = t->nboards[r], nr = 0;
    char(*rooms)[THUE_PROTO_KEY_MAX + 1] = calloc((size_t)n + 1, sizeof *rooms);
    for (int b = 0; rooms && b < n; b++)
        if (t->games[r][b].room[0])
            snprintf(rooms[nr++], sizeof rooms[0], "%s", t->games[r][b].room);
    send_event(l, t, "round_started", t->round, (const char(*)[THUE_PROTO_KEY_MAX + 1]) rooms, nr);
    free(rooms);
    begin_games(l, t);
    check_round(l, t);
}

static void round_stored(int err, int64_t id, void *data)
{
    round_wait *w = data;
    thue_lobby *l = w->l;
    (void)id;
    l->store_pending--;
    if (err == THUE_STORE_EFENCED) { /* another node's now: its round, not this one */
        fenced_out(l, w->id);
        free(w);
        return;
    }
    if (err)
        thue_log(THUE_LOG_ERROR, "tournament %s: round %d was not stored: %s", w->id, w->round,
                 thue_strerror(err));
    tournament *t = tournament_find(l, w->id);
    /* While stopping nothing starts: the round is played again after the restart. */
    if (t != NULL && t->status == 1 && t->round == w->round && !l->stopping)
        announce_round(l, t);
    free(w);
}

/* Stores the round just paired, then announces it: a game starts only once the round it
 * belongs to (and so the tournament's start) cannot be lost. */
static void store_round(thue_lobby *l, tournament *t)
{
    round_wait *w = calloc(1, sizeof *w);
    if (w == NULL) {
        save(l, t);
        announce_round(l, t);
        return;
    }
    w->l = l;
    snprintf(w->id, sizeof w->id, "%s", t->id);
    w->round = t->round;
    save_then(l, t, w);
}

static void start_round(thue_lobby *l, tournament *t)
{
    t->round++;
    int r = t->round - 1;
    thue_game pairs[THUE_SCHED_BOARDS(THUE_SCHED_PLAYERS_MAX)];
    int n = pair_round(t, pairs);
    if (n < 0) {
        thue_log(THUE_LOG_WARN, "tournament %s: round %d cannot be paired (%s): it ends here",
                 t->id, t->round, thue_sched_strerror(n));
        t->round--;
        t->nrounds = t->round;
        t->status = 2;
        save(l, t);
        send_event(l, t, "finished", t->round, NULL, 0);
        return;
    }
    t->games[r] = calloc((size_t)n, sizeof *t->games[r]);
    if (t->games[r] == NULL) {
        thue_log(THUE_LOG_ERROR, "tournament %s: out of memory for round %d", t->id, t->round);
        t->round--;
        return;
    }
    t->nboards[r] = n;
    for (int b = 0; b < n; b++)
        t->games[r][b].g = pairs[b];
    thue_log(THUE_LOG_INFO, "tournament %s: round %d of %d, %d boards", t->id, t->round, t->nrounds,
             n);
    for (int b = 0; b < n; b++)
        if (pairs[b].second != THUE_SCHED_BYE)
            start_game(l, t, b, false);
    store_round(l, t);
}

/* Seeds: by the pool's rating (1500 without one), then by name. */
typedef struct seed_key {
    int entrant;
    double rating;
    const char *name;
} seed_key;

static int seed_order(const void *x, const void *y)
{
    const seed_key *a = x, *b = y;
    if (a->rating != b->rating)
        return a->rating > b->rating ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The rating pool of the tournament's games (seeds come from it). */
static void tournament_pool(const tournament *t, pool_id *out)
{
    thue_gopt gopt;
    memset(&gopt, 0, sizeof gopt);
    const thue_gamedef *g = t->game ? t->game : &thue_game_thue;
    int err = t->game ? thue_game_options_text(t->game, t->game_options, &gopt, NULL)
                      : thue_game_thue_options(t->variant, t->k, t->limit, &gopt);
    if (err != 0) /* options it was created with: they parsed then */
        thue_log(THUE_LOG_ERROR, "tournament %s: its options do not parse again", t->id);
    pool_of(g, &gopt, out);
}

static void assign_seeds(tournament *t)
{
    seed_key keys[THUE_SCHED_PLAYERS_MAX];
    pool_id pool;
    tournament_pool(t, &pool);
    for (int i = 0; i < t->n; i++) {
        const tournament_entrant *e = &t->e[i];
        const pool_rating *p = e->acct ? account_rating(e->acct, &pool) : NULL;
        keys[i] = (seed_key){i, p ? p->g.rating : THUE_GLICKO_INITIAL_RATING, e->name};
    }
    qsort(keys, (size_t)t->n, sizeof keys[0], seed_order);
    for (int i = 0; i < t->n; i++)
        t->e[keys[i].entrant].seed = i;
}

int cmd_start_tournament(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    session *s = rq->c->s;
    int err = 0;
    tournament *t = named(rq, &err);
    if (t == NULL)
        return err;
    if (s->acct == NULL || strcmp(s->acct->name, t->creator) != 0) {
        snprintf(rq->message, sizeof rq->message, "only its creator, %s, may start it", t->creator);
        return THUE_PERR_NOT_ALLOWED;
    }
    if (t->status != 0)
        return THUE_PERR_TOURNAMENT_CLOSED;
    if (t->n < 2) {
        snprintf(rq->message, sizeof rq->message, "a tournament needs two entrants");
        return THUE_PERR_NOT_ALLOWED;
    }
    if (!may_direct(l, t)) {
        snprintf(rq->message, sizeof rq->message,
                 "this server cannot reach the database to direct the tournament: try again "
                 "in a few seconds");
        return THUE_PERR_NOT_AVAILABLE;
    }
    if (t->format == THUE_FORMAT_ROUND_ROBIN) {
        /* Berger numbers by seed: entrant list reordered so that index = seed. */
        tournament_entrant *sorted = malloc((size_t)t->n * sizeof *sorted);
        if (sorted == NULL)
            return THUE_PERR_INTERNAL;
        assign_seeds(t);
        for (int i = 0; i < t->n; i++)
            sorted[t->e[i].seed] = t->e[i];
        memcpy(t->e, sorted, (size_t)t->n * sizeof t->e[0]);
        free(sorted);
        t->nrounds = thue_rr_rounds(t->n);
    } else {
        assign_seeds(t);
        int most = thue_swiss_max_rounds(t->n);
        t->nrounds = t->rounds_asked < most ? t->rounds_asked : most;
    }
    t->status = 1;
    request_ok(rq);
    thue_log(THUE_LOG_INFO, "tournament %s started: %d players, %d rounds", t->id, t->n,
             t->nrounds);
    send_event(l, t, "started", -1, NULL, 0);
    start_round(l, t);
    tournaments_arm(l); /* it no longer expires */
    return 0;
}

/* ---- start-up -------------------------------------------------------------------------- */

/* A tournament from its saved state, added to the list (NULL: unreadable, logged). With
 * mine, only one this node directs (start-up); without, any (a takeover). */
static tournament *load_state(thue_lobby *l, const char *id, const char *state, bool mine)
{
    json_error_t jerr;
    json_t *o = json_loads(state, 0, &jerr);
    json_t *ents, *rounds;
    tournament *t = NULL;
    if (o == NULL)
        goto bad;
    /* Several nodes share the database: each loads the tournaments it directs (a node
     * that comes back under its name resumes its own: docs/cluster.md); a tournament of
     * a single server ("node" absent) only a single server resumes. */
    const char *node = json_string_value(json_object_get(o, "node"));
    if (mine && strcmp(node != NULL ? node : "", l->cfg.node) != 0) {
        thue_log(THUE_LOG_INFO, "tournament %s is directed by %s: not loaded here", id,
                 node != NULL ? node : "a single server");
        json_decref(o);
        return NULL;
    }
    t = tournament_alloc(l);
    if (t == NULL)
        goto bad;
    int format, variant, clock_on;
    json_int_t initial, increment;
    const char *name, *creator;
    if (json_unpack(o,
                    "{s:s, s:i, s:i, s:i, s:i, s:b, s:I, s:I, s:i, s:i, s:i, s:s, s:i, s:i, "
                    "s:o, s:o}",
                    "name", &name, "format", &format, "variant", &variant, "k", &t->k, "limit",
                    &t->limit, "clock", &clock_on, "initial_ms", &initial, "increment_ms",
                    &increment, "rounds_asked", &t->rounds_asked, "max_players", &t->max_players,
                    "status", &t->status, "creator", &creator, "nrounds", &t->nrounds, "lot",
                    &t->lot, "entrants", &ents, "rounds", &rounds) != 0)
        goto bad;
    snprintf(t->id, sizeof t->id, "%s", id);
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->creator, sizeof t->creator, "%s", creator);
    /* Saved before created_ms was: its expiry counts from now. */
    json_t *created = json_object_get(o, "created_ms");
    t->created_ms =
        json_is_integer(created) ? (int64_t)json_integer_value(created) : lobby_now_ms();
    t->format = (thue_tournament_format)format;
    t->variant = (thue_variant)variant;
    json_t *game = json_object_get(o, "game");
    if (game != NULL) {
        const char *gopts = json_string_value(json_object_get(o, "game_options"));
        thue_gopt gopt;
        t->game = thue_game_find(json_string_value(game));
        if (t->game == NULL || gopts == NULL ||
            thue_game_options_text(t->game, gopts, &gopt, NULL) != 0)
            goto bad;
        snprintf(t->game_options, sizeof t->game_options, "%s", gopts);
    }
    t->clock.present = clock_on;
    t->clock.initial_ms = initial;
    t->clock.increment_ms = increment;
    size_t i;
    json_t *v;
    json_array_foreach(ents, i, v)
    {
        if (t->n >= THUE_SCHED_PLAYERS_MAX || entrant_room(t) != 0)
            goto bad;
        tournament_entrant *e = &t->e[t->n++];
        const char *en, *eb;
        int kind;
        if (json_unpack(v, "{s:s, s:i, s:s, s:i}", "name", &en, "kind", &kind, "bot", &eb, "seed",
                        &e->seed) != 0)
            goto bad;
        snprintf(e->name, sizeof e->name, "%s", en);
        snprintf(e->bot, sizeof e->bot, "%s", eb);
        e->kind = (thue_player_kind)kind;
        e->acct = e->kind == THUE_KIND_BOT ? account_bot(l, e->bot, e->name)
                                           : account_by_name(l, e->name);
    }
    json_array_foreach(rounds, i, v)
    {
        if (i >= THUE_SCHED_ROUNDS_MAX_ALL)
            goto bad;
        size_t nb = json_array_size(v);
        t->games[i] = calloc(nb ? nb : 1, sizeof *t->games[i]);
        if (t->games[i] == NULL)
            goto bad;
        t->nboards[i] = (int)nb;
        t->round = (int)i + 1;
        size_t b;
        json_t *g;
        json_array_foreach(v, b, g)
        {
            thue_game *x = &t->games[i][b].g;
            if (json_unpack(g, "[i, i, i]", &x->first, &x->second, &x->result) != 0)
                goto bad;
        }
    }
    json_t *fence = json_object_get(o, "fence");
    t->fence = json_is_integer(fence) ? (int64_t)json_integer_value(fence) : 0;
    json_decref(o);
    nodes_id_added(l, t->id);
    thue_log(THUE_LOG_INFO, "tournament %s loaded (round %d of %d)", t->id, t->round, t->nrounds);
    return t;
bad:
    thue_log(THUE_LOG_ERROR, "tournament %s: its saved state cannot be read; it is left out", id);
    if (t) {
        l->tournaments = t->next;
        tournament_free(t);
    }
    json_decref(o);
    return NULL;
}

void thue_lobby_load_tournament(void *ctx, const char *id, const char *state)
{
    load_state(ctx, id, state, true);
}

void thue_lobby_recover_tournament_results(thue_lobby *l, thue_store *store)
{
    for (tournament *t = l->tournaments; t; t = t->next) {
        if (t->status != 1 || t->round == 0)
            continue;
        int r = t->round - 1, recovered = 0;
        for (int b = 0; b < t->nboards[r]; b++) {
            thue_game *g = &t->games[r][b].g;
            int winner;
            if (g->result != THUE_RESULT_NONE || g->second == THUE_SCHED_BYE ||
                thue_store_tournament_game(store, t->id, t->round, t->e[g->first].name,
                                           t->e[g->second].name, &winner) != 1)
                continue;
            g->result = first_wins(winner, 0);
            recovered++;
        }
        if (recovered)
            thue_log(THUE_LOG_INFO,
                     "tournament %s: %d results of round %d recovered from "
                     "the stored matches",
                     t->id, recovered, t->round);
    }
}

static int newest_first(const void *x, const void *y)
{
    const tournament *a = *(tournament *const *)x, *b = *(tournament *const *)y;
    if (a->created_ms != b->created_ms)
        return a->created_ms > b->created_ms ? -1 : 1;
    return strcmp(b->id, a->id);
}

/* The loaded tournaments in the order lists show: newest first. */
static void sort_loaded(thue_lobby *l)
{
    size_t n = 0;
    for (tournament *t = l->tournaments; t; t = t->next)
        n++;
    tournament **v = n ? malloc(n * sizeof *v) : NULL;
    if (v == NULL)
        return; /* out of memory: the lists keep the store's order */
    size_t i = 0;
    for (tournament *t = l->tournaments; t; t = t->next)
        v[i++] = t;
    qsort(v, n, sizeof *v, newest_first);
    for (i = 0; i < n; i++)
        v[i]->next = i + 1 < n ? v[i + 1] : NULL;
    l->tournaments = v[0];
    free(v);
}

/* The current round's unfinished games played again (after a restart, or a takeover):
 * their human players get grace_s to come back; then the round is stored and announced. */
static void replay_round(thue_lobby *l, tournament *t)
{
    if (t->status != 1 || t->round == 0)
        return;
    int r = t->round - 1;
    int replayed = 0;
    for (int b = 0; b < t->nboards[r]; b++)
        if (t->games[r][b].g.result == THUE_RESULT_NONE) {
            start_game(l, t, b, true);
            replayed++;
        }
    thue_log(THUE_LOG_INFO, "tournament %s: round %d resumed, %d games replayed", t->id, t->round,
             replayed);
    store_round(l, t);
}

void thue_lobby_resume_tournaments(thue_lobby *l)
{
    sort_loaded(l);
    /* More open and running tournaments than the server takes (a store filled before the
     * limits existed, or a lower --max-tournaments): the newest open ones beyond the limit
     * expire now, and those past their time expire as soon as the loop runs. */
    int live = 0;
    for (tournament *t = l->tournaments; t; t = t->next)
        live += t->status == 0 || t->status == 1;
    if (live > l->cfg.max_tournaments)
        thue_log(THUE_LOG_WARN,
                 "%d open and running tournaments stored, more than "
                 "--max-tournaments (%d): the newest open ones expire",
                 live, l->cfg.max_tournaments);
    for (tournament *t = l->tournaments, *next; t && live > l->cfg.max_tournaments; t = next) {
        next = t->next;
        if (t->status == 0) {
            expire(l, t);
            live--;
        }
    }
    tournaments_arm(l);
    for (tournament *t = l->tournaments; t; t = t->next)
        replay_round(l, t);
}

/* ---- leases: the lobby's side ------------------------------------------------------------ */

/* The games of a taken tournament's current round that its old director had stored as
 * matches (games: [[round, name0, name1, winner], ...]) get their results. */
static void recover_from_games(tournament *t, json_t *games)
{
    if (t->status != 1 || t->round == 0)
        return;
    int r = t->round - 1, recovered = 0;
    size_t i;
    json_t *m;
    json_array_foreach(games, i, m)
    {
        json_int_t round = 0, winner = -1;
        const char *n0 = NULL, *n1 = NULL;
        if (json_unpack(m, "[I, s, s, I]", &round, &n0, &n1, &winner) != 0 || round != t->round)
            continue;
        for (int b = 0; b < t->nboards[r]; b++) {
            thue_game *g = &t->games[r][b].g;
            if (g->result == THUE_RESULT_NONE && g->second != THUE_SCHED_BYE &&
                strcmp(t->e[g->first].name, n0) == 0 && strcmp(t->e[g->second].name, n1) == 0) {
                g->result = first_wins((int)winner, 0);
                recovered++;
            }
        }
    }
    if (recovered)
        thue_log(THUE_LOG_INFO, "tournament %s: %d results of round %d recovered from the stored "
                 "matches", t->id, recovered, t->round);
}

/* Another node's tournament, its lease run out, is this node's now. */
static void take_over(thue_lobby *l, json_t *o)
{
    const char *id = json_string_value(json_object_get(o, "id"));
    const char *state = json_string_value(json_object_get(o, "state"));
    json_t *fence = json_object_get(o, "fence");
    if (id == NULL || state == NULL || !json_is_integer(fence))
        return;
    tournament *old = tournament_find(l, id); /* a stale copy of this node's (paused) */
    if (old != NULL)
        tournament_remove(l, old);
    tournament *t = load_state(l, id, state, false);
    if (t == NULL)
        return;
    t->fence = (int64_t)json_integer_value(fence);
    t->lease_until = l->lease_sent + LEASE_MS - LEASE_MARGIN_MS;
    thue_log(THUE_LOG_WARN, "tournament %s: its director's lease ran out: this node directs it "
             "now (fence %lld)", id, (long long)t->fence);
    recover_from_games(t, json_object_get(o, "games"));
    sort_loaded(l);
    tournaments_arm(l);
    if (t->status == 1 && t->round > 0)
        replay_round(l, t);
    else
        save(l, t); /* its state under this node's name and fence */
}

static void leases_done(int status, char *body, size_t len, void *data)
{
    thue_lobby *l = data;
    l->store_pending--;
    l->leasing = false;
    json_t *o = status == 200 && body != NULL ? json_loadb(body, len, 0, NULL) : NULL;
    free(body);
    if (o == NULL) {
        thue_log(THUE_LOG_WARN, "tournaments: the leases could not be renewed (the database "
                 "failed); tried again in a second");
        return;
    }
    if (l->stopping) {
        json_decref(o);
        return;
    }
    json_t *renewed = json_object_get(o, "renewed");
    /* Each tournament directed here: renewed (under the same fence), or taken by another
     * node (dropped). One whose first save is not in yet is not in the answer: kept. */
    for (tournament *t = l->tournaments, *next; t; t = next) {
        next = t->next;
        if (t->status >= 2)
            continue;
        bool found = false, same = false;
        size_t i;
        json_t *r;
        json_array_foreach(renewed, i, r)
        {
            const char *rid = json_string_value(json_object_get(r, "id"));
            if (rid != NULL && strcmp(rid, t->id) == 0) {
                found = true;
                same = json_integer_value(json_object_get(r, "fence")) == t->fence;
            }
        }
        if (found && same) {
            t->lease_until = l->lease_sent + LEASE_MS - LEASE_MARGIN_MS;
            if (t->status == 1 && t->round > 0)
                check_round(l, t); /* a decision that waited for the lease */
        } else if (found || t->lease_until == 0 || uv_now(l->loop) >= t->lease_until) {
            /* another fence, or not this node's at all (a row never written is younger
             * than its first lease: kept until that runs out) */
            fenced_out(l, t->id);
        }
    }
    size_t i;
    json_t *taken;
    json_array_foreach(json_object_get(o, "taken"), i, taken) take_over(l, taken);
    json_decref(o);
}

void tournaments_lease_tick(thue_lobby *l)
{
    if (!leased(l) || l->leasing || l->stopping)
        return;
    if (thue_store_tournament_leases(l->store, l->cfg.node, LEASE_MS, leases_done, l) == 0) {
        l->leasing = true;
        l->lease_sent = uv_now(l->loop);
        l->store_pending++;
    }
}
