/*
 * roommodel.c: the rooms' model under thue.v2 (roommodel.h).
 *
 * Each room the model knows is an mroom: its newest state in thue.v2's form (a
 * thue_msg whose word pointers point into the room's own buffers, never into a decoded
 * message) and, for a game other than Thue, the game and its parsed options. A played
 * event is applied in place; when anything about it does not fit (a version gap, a move
 * the rules refuse, a to_move other than the rules give, out of memory) the room is
 * forgotten and the caller is told to ask for it again with sync: a model that is not
 * sure of a state never hands one out.
 *
 * The state handed out is made by encoding the room's state in thue.v1's form (with
 * `you`) and decoding that text, so the caller gets exactly the thue_msg the codec gives
 * for thue.v1's room_state, owning its memory, and the codec checks the model's work
 * (its rules across members) on every move. A state is a kilobyte or two of text: a
 * client's cost, once per move.
 *
 * Another game's state is kept as the server's JSON text (match.state); a move parses it
 * (position_parse), applies the move (apply) and writes it back (state_json) in the
 * codec's compact form, which is how the server makes it. Every game's state_json and
 * position_parse round-trip exactly, so nothing is lost between moves.
 */
#include "roommodel.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"

#define MAX_ROOMS 32 /* rooms kept at once; the least recently changed one goes first */

typedef struct mroom {
    thue_msg st;     /* thue.v2's room_state (has_ref); owned NULL */
    uint8_t *buf[3]; /* Thue: [0] the current word, [1 + r] round r's final word */
    int cap[3];
    const thue_gamedef *game; /* another game: its table, NULL when unknown here */
    thue_gopt gopt;           /* ... and its options (game_ok: parsed) */
    int game_ok;
    void *gst;     /* another game: its state's scratch (state_size bytes) */
    uint64_t used; /* the model's tick of the room's last change */
} mroom;

struct cli_model {
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    mroom *rooms[MAX_ROOMS];
    int n;
    uint64_t tick;
    char why[240]; /* why the model last lost a room */
};

cli_model *cli_model_new(const char *name)
{
    cli_model *m = calloc(1, sizeof *m);
    if (m != NULL)
        cli_model_set_name(m, name);
    return m;
}

static void room_free(mroom *r)
{
    if (r == NULL)
        return;
    for (int i = 0; i < 3; i++)
        free(r->buf[i]);
    free(r->gst);
    free(r);
}

void cli_model_free(cli_model *m)
{
    if (m == NULL)
        return;
    for (int i = 0; i < m->n; i++)
        room_free(m->rooms[i]);
    free(m);
}

void cli_model_set_name(cli_model *m, const char *name)
{
    snprintf(m->name, sizeof m->name, "%s", name ? name : "");
}

static int index_of_room(const cli_model *m, const char *room)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->rooms[i]->st.u.room_state.room, room) == 0)
            return i;
    return -1;
}

static int index_of_ref(const cli_model *m, int ref)
{
    for (int i = 0; i < m->n; i++)
        if (m->rooms[i]->st.u.room_state.ref == ref)
            return i;
    return -1;
}

static void drop(cli_model *m, int i)
{
    room_free(m->rooms[i]);
    m->rooms[i] = m->rooms[--m->n];
}

const thue_msg *cli_model_find(const cli_model *m, const char *room)
{
    int i = index_of_room(m, room);
    return i < 0 ? NULL : &m->rooms[i]->st;
}

const char *cli_model_why(const cli_model *m)
{
    return m->why;
}

void cli_model_forget(cli_model *m, const char *room)
{
    int i = index_of_room(m, room);
    if (i >= 0)
        drop(m, i);
}

int cli_model_seat_of(const thue_msg *rs, const char *name)
{
    if (name == NULL || name[0] == '\0')
        return -1;
    for (int i = 0; i < 2; i++) {
        const thue_seat *s = &rs->u.room_state.seats[i];
        if (s->present && s->player.kind != THUE_KIND_BOT && strcmp(s->player.name, name) == 0)
            return i;
    }
    return -1;
}

/* Room buffer i holds at least need symbols: 0, or -1 out of memory. */
static int reserve(mroom *r, int i, int need)
{
    if (need <= r->cap[i] && r->buf[i] != NULL)
        return 0;
    int cap = r->cap[i] > 64 ? r->cap[i] : 64;
    while (cap < need)
        cap *= 2;
    uint8_t *p = realloc(r->buf[i], (size_t)cap);
    if (p == NULL)
        return -1;
    r->buf[i] = p;
    r->cap[i] = cap;
    return 0;
}

/* Copies len symbols into room buffer i and returns it (NULL out of memory). The source
 * may be the buffer itself. */
static const uint8_t *keep_word(mroom *r, int i, const uint8_t *src, int len)
{
    if (src == r->buf[i])
        return src;
    if (reserve(r, i, len + 1) != 0)
        return NULL;
    if (len > 0)
        memmove(r->buf[i], src, (size_t)len);
    return r->buf[i];
}

/* r->st = the whole state in (thue.v2's): its words copied into the room's buffers, its
 * game looked up. 0, or -1 out of memory. */
static int take_state(mroom *r, const thue_msg *in)
{
    r->st = *in;
    r->st.owned = NULL;
    r->st.id.kind = THUE_ID_NONE;
    thue_match_info *mi = &r->st.u.room_state.match;
    r->game = NULL;
    r->game_ok = 0;
    if (r->st.u.room_state.options.has_game) {
        r->game = thue_game_find(r->st.u.room_state.options.game);
        thue_gerr e;
        if (r->game != NULL &&
            thue_game_options_text(r->game, r->st.u.room_state.options.game_options, &r->gopt,
                                   &e) == 0) {
            free(r->gst);
            r->gst = malloc(r->game->state_size(&r->gopt));
            r->game_ok = r->gst != NULL;
        }
        return 0;
    }
    if (!r->st.u.room_state.has_match)
        return 0;
    if (mi->word != NULL && (mi->word = keep_word(r, 0, mi->word, mi->word_len)) == NULL)
        return -1;
    for (int i = 0; i < 2; i++) {
        thue_round_info *ri = &mi->rounds[i];
        if (ri->word != NULL && (ri->word = keep_word(r, 1 + i, ri->word, ri->word_len)) == NULL)
            return -1;
    }
    return 0;
}

/* A move object's one integer member key ({"place":3}): 0 and *v, -1 when it is not. */
static int move_int(const char *text, const char *key, int *v)
{
    json_t *j = json_loads(text, 0, NULL);
    json_t *x = j ? json_object_get(j, key) : NULL;
    int ok = x != NULL && json_is_integer(x) && json_object_size(j) == 1 &&
             json_integer_value(x) >= 0 && json_integer_value(x) <= THUE_WORD_MAX;
    if (ok)
        *v = (int)json_integer_value(x);
    json_decref(j);
    return ok ? 0 : -1;
}

static int end_reason_of(const char *name, thue_end_reason *out)
{
    for (int r = THUE_END_SCORE; r <= THUE_END_ABANDON; r++)
        if (strcmp(thue_end_reason_name((thue_end_reason)r), name) == 0) {
            *out = (thue_end_reason)r;
            return 0;
        }
    return -1;
}

/* Thue's match after ev: the builder's place or the painter's paint, then the round's
 * end and the match's end as ev says. 0, or -1 with why when it does not fit. */
static int thue_next(mroom *r, const thue_msg *evm, char *why, size_t whysize)
{
    __typeof__(evm->u.played) const *ev = &evm->u.played;
    thue_match_info *m = &r->st.u.room_state.match;
    int place, paint, v;
    place = move_int(ev->move, "place", &v) == 0;
    paint = !place && move_int(ev->move, "paint", &v) == 0;
    if (!place && !paint) {
        snprintf(why, whysize, "a Thue move that is neither place nor paint: %.60s", ev->move);
        return -1;
    }
    /* The mover is the seat to move in the state before (thue.v2 does not repeat it). */
    int seat = m->to_move;
    if (m->step != (place ? THUE_STEP_PLACE : THUE_STEP_PAINT) ||
        seat != (place ? m->builder : m->painter)) {
        snprintf(why, whysize, "a %s does not fit the step %s of seat %d",
                 place ? "place" : "paint", thue_step_name(m->step), m->to_move);
        return -1;
    }
    m->last_move.present = 1;
    m->last_move.seat = seat;
    m->last_move.is_paint = paint;
    m->last_move.value = v;
    m->last_move.think_ms = ev->think_ms;
    if (place) {
        if (v > m->word_len) {
            snprintf(why, whysize, "place %d beyond the word's end %d", v, m->word_len);
            return -1;
        }
        m->placed = v;
        m->step = THUE_STEP_PAINT;
    } else {
        /* The current word is always buffer 0 (take_state, the next round): growing it
         * keeps its symbols. */
        if (v >= r->st.u.room_state.options.k || m->placed < 0 || m->placed > m->word_len ||
            m->word != r->buf[0] || reserve(r, 0, m->word_len + 1) != 0) {
            snprintf(why, whysize, "paint %d at %d does not fit (k %d, word of %d)", v, m->placed,
                     r->st.u.room_state.options.k, m->word_len);
            return -1;
        }
        uint8_t *w = r->buf[0];
        memmove(w + m->placed + 1, w + m->placed, (size_t)(m->word_len - m->placed));
        w[m->placed] = (uint8_t)v;
        m->word = w;
        m->word_len++;
        m->placed = -1;
        m->step = THUE_STEP_PLACE;
    }
    if (ev->has_points) { /* absent: as they were */
        m->points[0] = ev->points[0];
        m->points[1] = ev->points[1];
    }
    /* Each seat paints one round: a round's points are its painter's. */
    for (int i = 0; i < 2; i++)
        m->rounds[i].points = m->points[1 - m->rounds[i].builder];
    if (ev->has_round_end) {
        thue_round_info *ri = &m->rounds[m->round];
        ri->end = ev->end;
        ri->has_repetition = ev->has_repetition;
        ri->repetition = ev->repetition;
        if ((ri->word = keep_word(r, 1 + m->round, m->word, m->word_len)) == NULL) {
            snprintf(why, whysize, "out of memory");
            return -1;
        }
        ri->word_len = m->word_len;
        m->placed = -1;
        if (!ev->has_result && m->round == 0) {
            /* The next round: the roles swap and the word starts again as [0]. */
            m->round = 1;
            m->builder = m->rounds[1].builder;
            m->painter = 1 - m->builder;
            if (reserve(r, 0, 2) != 0) {
                snprintf(why, whysize, "out of memory");
                return -1;
            }
            r->buf[0][0] = 0;
            m->word = r->buf[0];
            m->word_len = 1;
            m->step = THUE_STEP_PLACE;
        }
    }
    if (ev->has_result) {
        m->step = THUE_STEP_OVER;
        m->placed = -1;
        m->has_result = 1;
        m->winner = ev->winner;
        if (end_reason_of(ev->reason, &m->reason) != 0) {
            snprintf(why, whysize, "an unknown reason '%s'", ev->reason);
            return -1;
        }
    }
    int expect = m->step == THUE_STEP_OVER    ? -1
                 : m->step == THUE_STEP_PAINT ? m->painter
                                              : m->builder;
    if (expect != ev->to_move) {
        snprintf(why, whysize, "to_move %d, where the rules give %d", ev->to_move, expect);
        return -1;
    }
    return 0;
}

/* Another game's match after ev: the game applied to the move. 0, or -1 with why. */
static int game_next(mroom *r, const thue_msg *evm, char *why, size_t whysize)
{
    __typeof__(evm->u.played) const *ev = &evm->u.played;
    thue_match_info *m = &r->st.u.room_state.match;
    const thue_gamedef *g = r->game;
    if (g == NULL || !r->game_ok) {
        snprintf(why, whysize, "the game '%s' or its options are unknown here",
                 r->st.u.room_state.options.game);
        return -1;
    }
    thue_gerr e = {0};
    json_t *pos = json_loads(m->state, 0, NULL);
    int rc = pos ? g->position_parse(&r->gopt, pos, r->gst, &e) : THUE_ESTATE;
    json_decref(pos);
    if (rc != 0) {
        snprintf(why, whysize, "the state cannot be read: %s", e.msg);
        return -1;
    }
    int seat = m->to_move; /* the mover: the seat to move in the state before */
    if (seat < 0) {
        snprintf(why, whysize, "a move in a match that is over");
        return -1;
    }
    rc = thue_game_apply_text(g, &r->gopt, r->gst, seat ^ m->first, ev->move, &e);
    if (rc != 0) {
        snprintf(why, whysize, "seat %d's move %.60s is refused: %.100s", seat, ev->move, e.msg);
        return -1;
    }
    json_t *sj = g->state_json(&r->gopt, r->gst);
    size_t n =
        sj ? json_dumpb(sj, m->state, sizeof m->state - 1, JSON_COMPACT | JSON_PRESERVE_ORDER) : 0;
    json_decref(sj);
    if (n == 0 || n >= sizeof m->state - 1) {
        m->state[0] = '\0';
        snprintf(why, whysize, "the new state does not fit");
        return -1;
    }
    m->state[n] = '\0';
    m->moves++;
    m->last_move.present = 1;
    m->last_move.seat = seat;
    m->last_move.think_ms = ev->think_ms;
    snprintf(m->last_gmove, sizeof m->last_gmove, "%s", ev->move);
    if (ev->has_points) { /* absent: as they were */
        m->points[0] = ev->points[0];
        m->points[1] = ev->points[1];
    }
    int p = g->to_move(&r->gopt, r->gst);
    int expect = -1;
    if (ev->has_result) {
        snprintf(m->gstep, sizeof m->gstep, "over");
        m->has_result = 1;
        m->winner = ev->winner;
        snprintf(m->why, sizeof m->why, "%s", ev->reason);
    } else {
        snprintf(m->gstep, sizeof m->gstep, "%s", g->step(&r->gopt, r->gst));
        expect = p < 0 ? -1 : m->first ^ p;
    }
    if (expect != ev->to_move) {
        snprintf(why, whysize, "to_move %d, where the game gives %d", ev->to_move, expect);
        return -1;
    }
    return 0;
}

/* The room's state after the played ev (ev's version is the next one). */
static int apply_played(mroom *r, const thue_msg *ev, char *why, size_t whysize)
{
    __typeof__(r->st.u.room_state) *st = &r->st.u.room_state;
    thue_match_info *m = &st->match;
    if (!st->has_match || st->status != THUE_STATUS_PLAYING) {
        snprintf(why, whysize, "a move in a room without a running match");
        return -1;
    }
    int rc = st->options.has_game ? game_next(r, ev, why, whysize) : thue_next(r, ev, why, whysize);
    if (rc != 0)
        return -1;
    st->version = ev->u.played.version;
    m->to_move = ev->u.played.to_move;
    m->has_clocks = ev->u.played.has_clocks;
    m->clocks[0] = m->has_clocks ? ev->u.played.clocks[0] : 0;
    m->clocks[1] = m->has_clocks ? ev->u.played.clocks[1] : 0;
    m->clock_running = m->has_clocks && m->to_move >= 0 ? m->to_move : -1;
    m->thinking = ev->u.played.has_thinking ? ev->u.played.thinking : -1;
    if (ev->u.played.has_result)
        st->status = THUE_STATUS_FINISHED;
    return 0;
}

/* The room's state in thue.v1's form, as the codec decodes it, into *out. 0, or -1 when
 * it cannot be encoded (a model's fault) or out of memory. */
static int hand_out(const cli_model *m, const mroom *r, thue_msg *out)
{
    thue_msg *v1 = malloc(sizeof *v1);
    if (v1 == NULL)
        return -1;
    *v1 = r->st;
    v1->u.room_state.has_ref = 0;
    v1->u.room_state.ref = 0;
    v1->u.room_state.you = cli_model_seat_of(v1, m->name);
    char *text = thue_msg_encode(v1, NULL);
    free(v1);
    if (text == NULL)
        return -1;
    memset(out, 0, sizeof *out);
    int rc = thue_msg_decode(text, strlen(text), out, NULL);
    free(text);
    if (rc != 0) {
        thue_msg_clear(out);
        return -1;
    }
    return 0;
}

static mroom *new_room(cli_model *m)
{
    if (m->n == MAX_ROOMS) {
        int oldest = 0;
        for (int i = 1; i < m->n; i++)
            if (m->rooms[i]->used < m->rooms[oldest]->used)
                oldest = i;
        drop(m, oldest);
    }
    mroom *r = calloc(1, sizeof *r);
    if (r != NULL)
        m->rooms[m->n++] = r;
    return r;
}

static cli_model_result on_state(cli_model *m, const thue_msg *in, thue_msg *out)
{
    const char *id = in->u.room_state.room;
    int i = index_of_ref(m, in->u.room_state.ref);
    if (i >= 0 && strcmp(m->rooms[i]->st.u.room_state.room, id) != 0) {
        drop(m, i); /* the ref names another room now */
        i = -1;
    }
    if (i < 0 && (i = index_of_room(m, id)) >= 0 &&
        m->rooms[i]->st.u.room_state.ref != in->u.room_state.ref) {
        drop(m, i); /* the room under another ref (another connection's numbering) */
        i = -1;
    }
    if (i >= 0 && m->rooms[i]->st.u.room_state.version > in->u.room_state.version)
        return CLI_MODEL_NONE; /* a late one */
    mroom *r = i >= 0 ? m->rooms[i] : new_room(m);
    if (r == NULL || take_state(r, in) != 0 || hand_out(m, r, out) != 0) {
        /* Out of memory: asking again would not help; the next whole state may. */
        snprintf(m->why, sizeof m->why, "room %s: the whole state of version %lld cannot be kept",
                 id, (long long)in->u.room_state.version);
        cli_model_forget(m, id);
        return CLI_MODEL_NONE;
    }
    r->used = ++m->tick;
    return CLI_MODEL_STATE;
}

static cli_model_result on_played(cli_model *m, const thue_msg *ev, thue_msg *out, char *room)
{
    int i = index_of_ref(m, ev->u.played.ref);
    if (i < 0)
        return CLI_MODEL_NONE;
    mroom *r = m->rooms[i];
    if (ev->u.played.version <= r->st.u.room_state.version)
        return CLI_MODEL_NONE; /* already seen (a whole state overtook it) */
    char why[200] = "";
    long long have = (long long)r->st.u.room_state.version;
    int ok = 0;
    if (ev->u.played.version != have + 1)
        snprintf(why, sizeof why, "a version gap");
    else if (apply_played(r, ev, why, sizeof why) != 0)
        ; /* why says it */
    else if (hand_out(m, r, out) != 0)
        snprintf(why, sizeof why, "the new state is refused by the codec (or out of memory)");
    else
        ok = 1;
    if (!ok) {
        snprintf(m->why, sizeof m->why, "room %s at version %lld, played of version %lld: %s",
                 r->st.u.room_state.room, have, (long long)ev->u.played.version, why);
        snprintf(room, THUE_PROTO_KEY_MAX + 1, "%s", r->st.u.room_state.room);
        drop(m, i);
        return CLI_MODEL_SYNC;
    }
    r->used = ++m->tick;
    return CLI_MODEL_STATE;
}

/* watchers: how many watch (not a change of the room's version). */
static cli_model_result on_watchers(cli_model *m, const thue_msg *ev, thue_msg *out)
{
    int i = index_of_ref(m, ev->u.watchers.ref);
    if (i < 0)
        return CLI_MODEL_NONE;
    mroom *r = m->rooms[i];
    r->st.u.room_state.spectators = ev->u.watchers.spectators;
    if (hand_out(m, r, out) != 0)
        return CLI_MODEL_NONE;
    r->used = ++m->tick;
    return CLI_MODEL_STATE;
}

cli_model_result cli_model_apply(cli_model *m, const thue_msg *in, thue_msg *out, char *room)
{
    if (in->type == THUE_MSG_ROOM_STATE && in->u.room_state.has_ref)
        return on_state(m, in, out);
    if (in->type == THUE_MSG_PLAYED)
        return on_played(m, in, out, room);
    if (in->type == THUE_MSG_WATCHERS)
        return on_watchers(m, in, out);
    return CLI_MODEL_NONE;
}

/* A copy of a state as compare sees it: no ref, no you, no away count-down. */
static void comparable(thue_msg *x)
{
    x->u.room_state.has_ref = 0;
    x->u.room_state.ref = 0;
    x->u.room_state.you = -1;
    for (int i = 0; i < 2; i++) {
        x->u.room_state.seats[i].has_away = 0;
        x->u.room_state.seats[i].away_left_ms = 0;
    }
}

int cli_model_compare(const thue_msg *model, const thue_msg *server, int64_t run_lo, int64_t run_hi,
                      char *why, size_t whysize)
{
    thue_msg *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return -1;
    }
    *a = *model;
    *b = *server;
    comparable(a);
    comparable(b);
    int rc = 0;
    thue_match_info *ma = &a->u.room_state.match, *mb = &b->u.room_state.match;
    int run = ma->clock_running;
    if (a->u.room_state.has_match && b->u.room_state.has_match && ma->has_clocks &&
        mb->has_clocks && run >= 0 && run == mb->clock_running) {
        int64_t d = ma->clocks[run] - mb->clocks[run];
        if (d < run_lo || d > run_hi) {
            snprintf(why, whysize,
                     "seat %d's running clock: the model has %lld ms, the server %lld ms", run,
                     (long long)ma->clocks[run], (long long)mb->clocks[run]);
            rc = 1;
        }
        mb->clocks[run] = ma->clocks[run];
    }
    char *ta = rc == 0 ? thue_msg_encode(a, NULL) : NULL;
    char *tb = rc == 0 ? thue_msg_encode(b, NULL) : NULL;
    if (rc == 0 && (ta == NULL || tb == NULL)) {
        snprintf(why, whysize, "a state cannot be encoded");
        rc = ta == NULL && tb == NULL ? -1 : 1;
    } else if (rc == 0 && strcmp(ta, tb) != 0) {
        size_t at = 0;
        while (ta[at] && ta[at] == tb[at])
            at++;
        size_t from = at > 60 ? at - 60 : 0;
        snprintf(why, whysize, "they differ at byte %zu: model ...%.120s... server ...%.120s...",
                 at, ta + from, tb + from);
        rc = 1;
    }
    free(ta);
    free(tb);
    free(a);
    free(b);
    return rc;
}
