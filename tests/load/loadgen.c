/*
 * loadgen.c: thue-loadgen, a load generator for thue-server (docs/bench.md).
 *
 * One process, one libwebsockets context on one libuv loop, many client connections:
 *   - pairs of players (A creates a room, B joins it) playing random legal moves, with a
 *     rematch after every match so that --matches stay running;
 *   - solo players against a server bot (--bot-share);
 *   - idle connections that only say hello (--idle);
 *   - one watcher that makes --search-rooms rooms where two server bots play each other,
 *     spectates them and measures how much of the time a bot was searching;
 *   - --spectators connections per pair's room that only watch it.
 * Each move's round trip runs from its lws_write to the `ok` that echoes its id (the
 * server's direct reply, sent once the move is validated and applied). The hot messages
 * (`ok`, `room_state`, `played`) are read with lg_scan.c; the rare ones with the project's
 * codec.
 *
 * --protocol 1 speaks thue.v1: every change brings the whole room_state, and a player
 * picks its move from it. --protocol 2 (the default) speaks thue.v2: after a move the
 * server sends one small `played` event, and every player and spectator keeps a model of
 * its room (lg_model.c) that each played moves on and each whole state resets; a version
 * gap is mended with `sync`. --check-every N compares the model with the whole state a
 * `sync` brings every N updates (any difference is an error). The bytes each role
 * receives in the window are counted, per move.
 * The connections are lws raw sockets that speak WebSocket with lg_ws.c: lws 4.1's own
 * client costs a call per received byte.
 */
#include <libwebsockets.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "lg.h"
#include "lg_model.h"
#include "lg_scan.h"
#include "lg_ws.h"
#include "protocol/codec.h"

enum { K_HELLO = 1, K_CREATE, K_JOIN, K_READY, K_SEATBOT, K_MOVE, K_REMATCH, K_SPECTATE, K_SYNC };
enum { R_A, R_B, R_SOLO, R_IDLE, R_WATCH, R_SPECT, R_COUNT };
/* A connection's sync: none out, a check's (the model goes on meanwhile), or a repair's
 * (after a gap: played events are ignored until the whole state is back). */
enum { S_NONE, S_CHECK, S_REPAIR };
enum { C_NEW, C_CONNECTING, C_HANDSHAKE, C_OPEN, C_UP, C_CLOSED };
enum { P_RAMP, P_WARMUP, P_MEASURE, P_DONE };

#define WORD_MAX 10001
#define TICK_MS 5
#define SPECTATE_WAIT_S 600 /* past the warm-up, for the spectators to be in their rooms */

typedef struct outmsg {
    struct outmsg *next;
    int is_move; /* 1: a move (counted, timed); -1: a control frame (no token) */
    size_t len;  /* of the frame in buf + LWS_PRE */
    unsigned char buf[];
} outmsg;

typedef struct conn {
    struct lws *wsi;
    struct conn *peer;
    uint8_t role, state, resolved, throttled;
    uint8_t in_text; /* a fragmented text message is being received */
    int close_code;
    char room[THUE_PROTO_KEY_MAX + 1];
    outmsg *qh, *qt;
    char *rx; /* a fragmented message being put together */
    size_t rxlen, rxcap;
    unsigned char *in; /* received bytes short of a whole frame (or of the handshake) */
    size_t inlen, incap;
    char key[LG_WS_KEY_LEN + 1];
    int64_t seq;
    int64_t pend_id;  /* the move waiting for its ok; 0: none */
    uint64_t pend_ns; /* when it was written; 0: still queued */
    int pend_paint, pend_value;
    int64_t acted_version;
    double tokens, rate, burst;
    uint64_t refill_ns;
    /* thue.v2 (and --check-every): the room's model, this connection's seat in it (-1: a
     * spectator), its sync, whether the next room_state answers it, and the updates
     * since the last check. */
    lg_model model;
    int seat;
    uint8_t sync, sync_answer_next;
    int since_check;
    int spect0; /* a pair's A: the index of its first spectator */
    /* a spectator: the room's version in the first state it got (its arrival), and the
     * newest version it has seen (-1: none yet) */
    int64_t first_version, seen_version;
    char *name; /* --check: welcome's name, to check the seat against the state's */
} conn;

typedef struct search_room {
    char room[THUE_PROTO_KEY_MAX + 1];
    int ref; /* thue.v2: its ref (-1: none yet) */
    int thinking;
    uint64_t since_ns, busy_ns;
    long states;
} search_room;

static struct {
    lg_opts o;
    uv_loop_t loop;
    uv_timer_t tick;
    struct lws_context *ctx;
    conn *conns;
    int nconns, opened, resolved, up, failed, npairs, nsolo, nidle;
    int phase, stopping, exit_code;
    uint64_t t0, t_allup, t_meas, t_end;
    uint64_t moves_sent, moves_confirmed, confirmed_at_meas, matches_at_meas;
    uint64_t pair_confirmed, pair_confirmed_at_meas;  /* moves of the pairs' rooms */
    uint64_t rx_bytes[R_COUNT], rx_msgs[R_COUNT];     /* received in the window, by role */
    uint64_t played_seen;                             /* played events applied */
    long checks, mismatches, gaps, bad_played, syncs; /* the models' checks and repairs */
    lg_model scratch;                                 /* a synced state's model */
    long matches_finished;
    lg_hist *hist;
    conn **thr;
    int nthr, capthr;
    search_room sr[64];
    int nsr;
    uint64_t srv_ticks0, srv_ticks1, loop_ticks0, loop_ticks1;
    uint64_t srv_ticks_start; /* at the start: the set-up's cost is ticks0 - this */
    int srv_start_ok;
    int srv_ok, loop_ok;
    struct rusage ru0, ru1;
    uint8_t word[WORD_MAX];
    uint64_t rng;
    int nspect;               /* spectator connections */
    int spect_up, spect_in;   /* of them: welcomed, and let into their room */
    int64_t arrivals_version; /* the newest version a spectator arrived at */
    int warned_v1;            /* said once that the server did not select thue.v2 */
    char hostport[128];
} G;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(void)
{
    /* xorshift64* */
    G.rng ^= G.rng >> 12;
    G.rng ^= G.rng << 25;
    G.rng ^= G.rng >> 27;
    return G.rng * 0x2545F4914F6CDD1DULL;
}

__attribute__((format(printf, 1, 2))) static void logv(const char *fmt, ...)
{
    if (G.o.verbose) {
        fprintf(stderr, "thue-loadgen: %.1f s: ", (double)(now_ns() - G.t0) / 1e9);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
}

/* ---- sending ----------------------------------------------------------------------- */

static int write_one(conn *c);

/* Queues a frame of opcode with payload text (and writes it at once when it can). */
static void enqueue_frame(conn *c, int opcode, const char *text, size_t len, int is_move)
{
    outmsg *m = malloc(sizeof *m + LWS_PRE + LG_WS_HEADER_MAX + len);
    if (m == NULL) {
        lg_err_count("loadgen_out_of_memory");
        return;
    }
    m->next = NULL;
    m->is_move = is_move;
    m->len = lg_ws_frame_out(m->buf + LWS_PRE, opcode, text, len, (uint32_t)rnd());
    if (c->qt)
        c->qt->next = m;
    else
        c->qh = m;
    c->qt = m;
    if (c->wsi && c->state >= C_OPEN && c->state != C_CLOSED && !c->throttled) {
        /* Alone in the queue and nothing buffered: write now, as the server does, instead
         * of asking for WRITEABLE (two epoll_ctl calls per message). */
        if (c->qh == m && !lws_partial_buffered(c->wsi)) {
            if (write_one(c) < 0)
                lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        } else {
            lws_callback_on_writable(c->wsi);
        }
    }
}

static void enqueue(conn *c, const char *text, size_t len, int is_move)
{
    enqueue_frame(c, LG_WS_TEXT, text, len, is_move);
}

static int64_t next_id(conn *c, int kind)
{
    return ++c->seq * 16 + kind;
}

static void send_cmd(conn *c, thue_cmd *cmd, int kind)
{
    cmd->id.kind = THUE_ID_INT;
    cmd->id.num = next_id(c, kind);
    thue_decode_error err;
    char *t = thue_cmd_encode(cmd, &err);
    if (t == NULL) {
        lg_err_count("loadgen_encode");
        return;
    }
    enqueue(c, t, strlen(t), 0);
    free(t);
}

static void send_room_cmd(conn *c, thue_cmd_type type, int kind)
{
    thue_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.type = type;
    snprintf(cmd.u.room.room, sizeof cmd.u.room.room, "%s", c->room);
    send_cmd(c, &cmd, kind);
}

static void send_create(conn *c, int seat, const char *name)
{
    thue_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.type = THUE_CMD_CREATE_ROOM;
    cmd.u.create_room.variant = G.o.variant;
    cmd.u.create_room.k = G.o.k;
    cmd.u.create_room.limit = G.o.limit;
    cmd.u.create_room.first = THUE_FIRST_RANDOM;
    cmd.u.create_room.seat = seat;
    if (name) {
        cmd.u.create_room.has_name = 1;
        snprintf(cmd.u.create_room.name, sizeof cmd.u.create_room.name, "%s", name);
    }
    send_cmd(c, &cmd, K_CREATE);
}

static void send_seat_bot(conn *c, const char *room, const char *spec, int think_ms, int seat)
{
    thue_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.type = THUE_CMD_SEAT_BOT;
    snprintf(cmd.u.seat_bot.room, sizeof cmd.u.seat_bot.room, "%s", room);
    snprintf(cmd.u.seat_bot.bot, sizeof cmd.u.seat_bot.bot, "%s", spec);
    cmd.u.seat_bot.think_ms = think_ms;
    if (seat >= 0) {
        cmd.u.seat_bot.has_seat = 1;
        cmd.u.seat_bot.seat = seat;
    }
    send_cmd(c, &cmd, K_SEATBOT);
}

/* The canonical text of place/paint (checked against the codec at start-up). */
static int move_text(char *buf, size_t cap, int64_t id, const char *room, int paint, int value)
{
    return snprintf(buf, cap, "{\"type\":\"%s\",\"id\":%lld,\"room\":\"%s\",\"%s\":%d}",
                    paint ? "paint" : "place", (long long)id, room, paint ? "symbol" : "position",
                    value);
}

static void send_move(conn *c, int paint, int value)
{
    char buf[160];
    c->pend_id = next_id(c, K_MOVE);
    c->pend_ns = 0;
    c->pend_paint = paint;
    c->pend_value = value;
    int n = move_text(buf, sizeof buf, c->pend_id, c->room, paint, value);
    enqueue(c, buf, (size_t)n, 1);
}

static int check_move_text(void)
{
    for (int paint = 0; paint < 2; paint++) {
        thue_cmd cmd;
        memset(&cmd, 0, sizeof cmd);
        cmd.type = paint ? THUE_CMD_PAINT : THUE_CMD_PLACE;
        cmd.id.kind = THUE_ID_INT;
        cmd.id.num = 1234567;
        snprintf(cmd.u.move.room, sizeof cmd.u.move.room, "r7f3a");
        cmd.u.move.value = 7;
        char *t = thue_cmd_encode(&cmd, NULL);
        char mine[160];
        move_text(mine, sizeof mine, 1234567, "r7f3a", paint, 7);
        int same = t && strcmp(t, mine) == 0;
        if (!same)
            fprintf(stderr, "thue-loadgen: internal: move text '%s' differs from the codec's '%s'\n",
                    mine, t ? t : "(null)");
        free(t);
        if (!same)
            return -1;
    }
    return 0;
}

static void refill(conn *c, uint64_t now)
{
    if (now > c->refill_ns) {
        c->tokens += (double)(now - c->refill_ns) / 1e9 * c->rate;
        if (c->tokens > c->burst)
            c->tokens = c->burst;
    }
    c->refill_ns = now;
}

static void throttle(conn *c)
{
    if (c->throttled)
        return;
    if (G.nthr == G.capthr) {
        int cap = G.capthr ? 2 * G.capthr : 256;
        conn **p = realloc(G.thr, (size_t)cap * sizeof *p);
        if (p == NULL)
            return;
        G.thr = p;
        G.capthr = cap;
    }
    G.thr[G.nthr++] = c;
    c->throttled = 1;
}

static int write_one(conn *c)
{
    outmsg *m = c->qh;
    if (m == NULL)
        return 0;
    uint64_t now = now_ns();
    if (m->is_move >= 0) {
        refill(c, now);
        if (c->tokens < 1.0) {
            throttle(c);
            return 0;
        }
        c->tokens -= 1.0;
    }
    if (m->is_move > 0) {
        c->pend_ns = now;
        G.moves_sent++;
    }
    int w = lws_write(c->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_RAW);
    c->qh = m->next;
    if (c->qh == NULL)
        c->qt = NULL;
    size_t len = m->len;
    free(m);
    if (w < (int)len)
        return -1;
    if (c->qh)
        lws_callback_on_writable(c->wsi);
    return 0;
}

/* ---- playing ----------------------------------------------------------------------- */

static void resolve(conn *c, int ok)
{
    if (c->resolved)
        return;
    c->resolved = 1;
    G.resolved++;
    if (ok)
        G.up++;
    else
        G.failed++;
}

static void join_peer_room(conn *b)
{
    conn *a = b->peer;
    if (b->state != C_UP || a == NULL || a->room[0] == '\0' || b->room[0] != '\0')
        return;
    snprintf(b->room, sizeof b->room, "%s", a->room);
    send_room_cmd(b, THUE_CMD_JOIN, K_JOIN);
}

/* A spectator watches its pair's room once it is up and the room is made. */
static void spectate_pair_room(conn *s)
{
    conn *a = s->peer;
    if (s->state != C_UP || a == NULL || a->room[0] == '\0' || s->room[0] != '\0')
        return;
    snprintf(s->room, sizeof s->room, "%s", a->room);
    send_room_cmd(s, THUE_CMD_SPECTATE, K_SPECTATE);
}

static void on_welcome(conn *c, const char *text, size_t len)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    if (thue_msg_decode(text, len, &msg, NULL) == 0) {
        /* Stay a little under the server's bucket: both refill on their own clocks. */
        c->rate = msg.u.welcome.rate * 0.97;
        c->burst = msg.u.welcome.burst > 2 ? msg.u.welcome.burst - 1 : 1;
        if (c->tokens > c->burst)
            c->tokens = c->burst;
        if (msg.u.welcome.protocol != G.o.protocol)
            lg_err_count("welcome:other_protocol");
        if (G.o.check && c->name == NULL)
            c->name = strdup(msg.u.welcome.player.name);
        thue_msg_clear(&msg);
    } else {
        lg_err_count("bad_welcome");
    }
    c->state = C_UP;
    resolve(c, 1);
    switch (c->role) {
    case R_A:
    case R_SOLO:
        send_create(c, 1, NULL);
        break;
    case R_B:
        join_peer_room(c);
        break;
    case R_SPECT:
        G.spect_up++;
        spectate_pair_room(c);
        break;
    case R_WATCH:
        for (int i = 0; i < G.o.search_rooms; i++)
            send_create(c, 0, "loadgen bots");
        break;
    default:
        break;
    }
}

static void on_created(conn *c, const char *text, size_t len)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    if (thue_msg_decode(text, len, &msg, NULL) != 0) {
        lg_err_count("bad_room_created");
        return;
    }
    const char *room = msg.u.room_created.room;
    switch (c->role) {
    case R_A:
        snprintf(c->room, sizeof c->room, "%s", room);
        send_room_cmd(c, THUE_CMD_READY, K_READY);
        join_peer_room(c->peer);
        for (int i = 0; i < G.o.spectators; i++)
            spectate_pair_room(&G.conns[c->spect0 + i]);
        break;
    case R_SOLO:
        snprintf(c->room, sizeof c->room, "%s", room);
        send_seat_bot(c, room, G.o.bot_spec, G.o.bot_think_ms, -1);
        break;
    case R_WATCH:
        if (G.nsr < (int)(sizeof G.sr / sizeof G.sr[0])) {
            search_room *s = &G.sr[G.nsr++];
            snprintf(s->room, sizeof s->room, "%s", room);
            s->thinking = -1;
            s->ref = -1;
            s->since_ns = now_ns();
            send_seat_bot(c, room, G.o.search_spec, G.o.search_think_ms, 0);
            send_seat_bot(c, room, G.o.search_spec, G.o.search_think_ms, 1);
            snprintf(c->room, sizeof c->room, "%s", room);
            send_room_cmd(c, THUE_CMD_SPECTATE, K_SPECTATE);
        }
        break;
    default:
        break;
    }
    thue_msg_clear(&msg);
}

static int measuring(void)
{
    return G.phase == P_MEASURE;
}

/* Busy time of a search room, counted inside the measured window only. */
static void search_account(search_room *s, uint64_t now)
{
    if (s->thinking >= 0 && G.t_meas) {
        uint64_t from = s->since_ns > G.t_meas ? s->since_ns : G.t_meas;
        uint64_t to = G.t_end && now > G.t_end ? G.t_end : now;
        if (to > from)
            s->busy_ns += to - from;
    }
    s->since_ns = now;
}

/* thue.v2: a move in a search room (found by its ref, which its states gave). */
static void on_watch_played(const char *text, size_t len)
{
    lg_played ev;
    if (lg_scan_played(text, len, &ev) != 0) {
        lg_err_count("unreadable_played");
        return;
    }
    for (int i = 0; i < G.nsr; i++) {
        search_room *s = &G.sr[i];
        if (s->ref != ev.ref)
            continue;
        s->states++;
        search_account(s, now_ns());
        s->thinking = ev.over ? -1 : ev.thinking;
        return;
    }
}

static void on_watch_state(const char *text, size_t len)
{
    char room[THUE_PROTO_KEY_MAX + 1];
    if (lg_scan_str(lg_scan_key(text, len, "room"), text + len, room, sizeof room) < 0)
        return;
    for (int i = 0; i < G.nsr; i++) {
        search_room *s = &G.sr[i];
        if (strcmp(s->room, room) != 0)
            continue;
        lg_state st;
        if (lg_scan_state(text, len, &st) != 0)
            return;
        s->ref = st.ref;
        s->states++;
        uint64_t now = now_ns();
        search_account(s, now);
        s->thinking = st.has_match && st.status == 1 ? st.thinking : -1;
        return;
    }
}

/* --check: the scanner's reading against the codec's; under thue.v2 also the seat the
 * connection believes it has (create_room seats the creator in 0, join takes 1). */
static void check_state(const conn *c, const char *text, size_t len, const lg_state *st)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    if (thue_msg_decode(text, len, &msg, NULL) != 0) {
        lg_err_count("check:codec_refused_room_state");
        return;
    }
    const __typeof__(msg.u.room_state) *rs = &msg.u.room_state;
    int same = rs->version == st->version && (int)rs->status == st->status && rs->you == st->you &&
               (rs->has_ref ? rs->ref : -1) == st->ref && rs->has_match == st->has_match;
    if (same && rs->has_match) {
        const thue_match_info *m = &rs->match;
        int n = lg_scan_word(st->word, text + len, G.word, WORD_MAX);
        same = m->round == st->round && (int)m->step == st->step && m->to_move == st->to_move &&
               m->placed == st->placed && m->thinking == st->thinking && n == m->word_len &&
               (n <= 0 || memcmp(G.word, m->word, (size_t)n) == 0);
    }
    if (!same)
        lg_err_count("check:scanner_disagrees");
    if (rs->has_ref && c->seat >= 0 && c->name != NULL &&
        (!rs->seats[c->seat].present || strcmp(rs->seats[c->seat].player.name, c->name) != 0))
        lg_err_count("check:not_in_its_seat");
    thue_msg_clear(&msg);
}

/* --check: a played event's scan against the codec's reading. */
static void check_played(const char *text, size_t len, const lg_played *ev)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    if (thue_msg_decode(text, len, &msg, NULL) != 0) {
        lg_err_count("check:codec_refused_played");
        return;
    }
    const __typeof__(msg.u.played) *p = &msg.u.played;
    char move[64];
    snprintf(move, sizeof move, "{\"%s\":%d}", ev->paint ? "paint" : "place", ev->value);
    int end = !p->has_round_end                 ? 0
              : p->end == THUE_ROUND_REPETITION ? 1
              : p->end == THUE_ROUND_LIMIT      ? 2
                                                : 3;
    if (p->ref != ev->ref || p->version != ev->version ||
        strcmp(p->move, move) != 0 || p->to_move != ev->to_move ||
        (p->has_thinking ? p->thinking : -1) != ev->thinking || end != ev->round_end ||
        p->has_result != ev->over)
        lg_err_count("check:scanner_disagrees_played");
    thue_msg_clear(&msg);
}

/* Sends c's move in a position where it is to move: a random position of the n + 1 for
 * the builder (step 0); for the painter a random symbol among those that keep the word
 * (of n symbols) free when inserted at placed, any symbol when none does. */
static void choose_move(conn *c, int step, const uint8_t *word, int n, int placed)
{
    if (step == 0) {
        send_move(c, 0, (int)(rnd() % (uint64_t)(n + 1)));
        return;
    }
    int safe[64], nsafe = 0;
    for (int s = 0; s < G.o.k; s++)
        if (thue_check_insert(word, n, G.o.variant, placed, s, NULL) == 0)
            safe[nsafe++] = s;
    int sym = nsafe ? safe[rnd() % (uint64_t)nsafe] : (int)(rnd() % (uint64_t)G.o.k);
    send_move(c, 1, sym);
}

static void send_sync(conn *c, int why)
{
    c->sync = (uint8_t)why;
    c->since_check = 0;
    G.syncs++;
    send_room_cmd(c, THUE_CMD_SYNC, K_SYNC);
}

/* A whole state reached c's model: when it answers c's check, the model is compared with
 * it first. Then the model starts again from it. 0, or -1 when it is unreadable. */
static int model_state(conn *c, const lg_state *st, const char *end)
{
    if (c->sync_answer_next) {
        c->sync_answer_next = 0;
        if (c->sync == S_CHECK) {
            G.checks++;
            const char *what = NULL;
            if (lg_model_reset(&G.scratch, st, end) != 0)
                what = "unreadable";
            else
                what = lg_model_diff(&c->model, &G.scratch);
            if (what != NULL) {
                G.mismatches++;
                lg_err_count("model:mismatch");
                logv("room %s: the model of version %lld differs from the synced state of "
                     "version %lld in %s",
                     c->room, (long long)c->model.version, (long long)st->version, what);
            }
        }
        c->sync = S_NONE;
    }
    if (lg_model_reset(&c->model, st, end) != 0) {
        lg_err_count("unreadable_room_state");
        return -1;
    }
    return 0;
}

/* One more update of c's model: every --check-every of them, a sync to check it. */
static void model_updated(conn *c)
{
    if (G.o.check_every > 0 && c->sync == S_NONE && ++c->since_check >= G.o.check_every)
        send_sync(c, S_CHECK);
}

/* thue.v1: a player's room_state; it moves when the state says it is its turn. */
static void play(conn *c, const char *text, size_t len)
{
    lg_state st;
    if (lg_scan_state(text, len, &st) != 0) {
        lg_err_count("unreadable_room_state");
        return;
    }
    if (G.o.check)
        check_state(c, text, len, &st);
    if (G.o.check_every > 0) {
        /* thue.v1's model is the last state: the check compares the synced state with it */
        if (model_state(c, &st, text + len) != 0)
            return;
        model_updated(c);
    }
    if (st.status != 1 || !st.has_match || st.you < 0 || st.to_move != st.you || st.step > 1 ||
        st.version <= c->acted_version || c->pend_id != 0)
        return;
    c->acted_version = st.version;
    const char *end = text + len;
    if (st.step == 0) {
        int n = lg_scan_word(st.word, end, NULL, 0);
        if (n < 0) {
            lg_err_count("unreadable_room_state");
            return;
        }
        choose_move(c, 0, NULL, n, -1);
        return;
    }
    int n = lg_scan_word(st.word, end, G.word, WORD_MAX);
    if (n < 0 || st.placed < 0 || st.placed > n) {
        lg_err_count("unreadable_room_state");
        return;
    }
    choose_move(c, 1, G.word, n, st.placed);
}

/* thue.v2: a player moves when its model says it is its turn. */
static void act(conn *c)
{
    const lg_model *m = &c->model;
    if (c->seat < 0 || m->status != 1 || !m->has_match || m->to_move != c->seat || m->step > 1 ||
        m->version <= c->acted_version || c->pend_id != 0 || c->sync == S_REPAIR)
        return;
    if (m->step == 1 && (m->placed < 0 || m->placed > m->len)) {
        lg_err_count("model:no_placed_position");
        return;
    }
    c->acted_version = m->version;
    choose_move(c, m->step, m->word, m->len, m->placed);
}

/* A spectator saw version v of its room: the first one is its arrival. */
static void spect_saw(conn *c, int64_t v)
{
    if (c->first_version < 0) {
        c->first_version = v;
        if (v > G.arrivals_version)
            G.arrivals_version = v;
    }
    if (v > c->seen_version)
        c->seen_version = v;
}

/* thue.v1: a spectator reads only the version of what it receives. */
static void spect_v1_state(conn *c, const char *text, size_t len)
{
    int64_t v;
    if (lg_scan_int(lg_scan_key(text, len, "version"), text + len, &v) != 0) {
        lg_err_count("unreadable_room_state");
        return;
    }
    spect_saw(c, v);
}

/* thue.v2: a whole state of c's room (a player's or a spectator's). */
static void v2_state(conn *c, const char *text, size_t len)
{
    lg_state st;
    if (lg_scan_state(text, len, &st) != 0 || st.ref < 0) {
        lg_err_count("unreadable_room_state");
        return;
    }
    if (G.o.check)
        check_state(c, text, len, &st);
    if (model_state(c, &st, text + len) != 0)
        return;
    if (c->role == R_SPECT)
        spect_saw(c, st.version);
    act(c);
}

/* thue.v2: a move in c's room. */
static void v2_played(conn *c, const char *text, size_t len)
{
    lg_played ev;
    if (lg_scan_played(text, len, &ev) != 0) {
        lg_err_count("unreadable_played");
        return;
    }
    if (G.o.check)
        check_played(text, len, &ev);
    if (c->sync == S_REPAIR)
        return; /* the whole state on its way is newer than this */
    switch (lg_model_apply(&c->model, &ev)) {
    case LG_MODEL_APPLIED:
        G.played_seen++;
        if (c->role == R_SPECT)
            spect_saw(c, ev.version);
        model_updated(c);
        act(c);
        break;
    case LG_MODEL_GAP:
        G.gaps++;
        logv("room %s: a gap from version %lld to %lld: sync", c->room, (long long)c->model.version,
             (long long)ev.version);
        if (c->sync == S_CHECK)
            c->sync = S_REPAIR; /* its answer mends the model */
        else
            send_sync(c, S_REPAIR);
        break;
    case LG_MODEL_BAD:
        G.bad_played++;
        lg_err_count("model:played_does_not_fit");
        if (c->sync == S_CHECK)
            c->sync = S_REPAIR;
        else
            send_sync(c, S_REPAIR);
        break;
    default:
        break; /* another room's, or older than the model */
    }
}

static void on_ok(conn *c, int64_t id)
{
    switch ((int)(id & 15)) {
    case K_MOVE:
        if (id == c->pend_id) {
            G.moves_confirmed++;
            if (c->role == R_A || c->role == R_B)
                G.pair_confirmed++;
            if (measuring() && c->pend_ns)
                lg_hist_add(G.hist, now_ns() - c->pend_ns);
            c->pend_id = 0;
        }
        break;
    case K_JOIN:
        send_room_cmd(c, THUE_CMD_READY, K_READY);
        break;
    case K_SYNC:
        c->sync_answer_next = 1; /* the room_state right after this ok answers it */
        break;
    case K_SPECTATE:
        if (c->role == R_SPECT)
            G.spect_in++;
        break;
    case K_SEATBOT:
        if (c->role == R_SOLO)
            send_room_cmd(c, THUE_CMD_READY, K_READY);
        break;
    default:
        break;
    }
}

static void on_error(conn *c, const char *text, size_t len, int64_t id)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    char kind[80];
    if (thue_msg_decode(text, len, &msg, NULL) == 0) {
        snprintf(kind, sizeof kind, "error:%s", thue_proto_err_name(msg.u.error.code));
        if (G.o.verbose)
            fprintf(stderr, "thue-loadgen: %s (%s) for request %lld\n", kind, msg.u.error.message,
                    (long long)id);
        thue_msg_clear(&msg);
    } else {
        snprintf(kind, sizeof kind, "error:unreadable");
    }
    lg_err_count(kind);
    if (id >= 0 && id == c->pend_id) {
        c->pend_id = 0;
        /* A move refused for the rate is sent again (it was not processed); any other
         * refusal would leave the game stuck, and is counted above. */
        if (strcmp(kind, "error:rate_limited") == 0) {
            c->tokens = 0;
            send_move(c, c->pend_paint, c->pend_value);
        }
    }
}

static void on_message(conn *c, const char *text, size_t len)
{
    size_t tl;
    const char *ty = lg_scan_type(text, len, &tl);
    if (ty == NULL) {
        lg_err_count("unreadable_message");
        return;
    }
    int64_t id = -1;
    lg_scan_id(text, len, &id);
    if (measuring())
        G.rx_msgs[c->role]++;
    if (lg_type_is(ty, tl, "played")) {
        if (c->role == R_WATCH)
            on_watch_played(text, len);
        else if (c->role != R_IDLE)
            v2_played(c, text, len);
    } else if (lg_type_is(ty, tl, "room_state")) {
        if (c->role == R_WATCH)
            on_watch_state(text, len);
        else if (G.o.protocol == 2 && c->role != R_IDLE)
            v2_state(c, text, len);
        else if (c->role == R_SPECT)
            spect_v1_state(c, text, len);
        else if (c->role != R_IDLE)
            play(c, text, len);
    } else if (lg_type_is(ty, tl, "ok")) {
        on_ok(c, id);
    } else if (lg_type_is(ty, tl, "match_end")) {
        if (c->role == R_A || c->role == R_SOLO) {
            G.matches_finished++;
            if (G.o.max_matches && G.matches_finished >= G.o.max_matches && G.phase < P_DONE &&
                G.phase != P_RAMP) {
                if (G.phase == P_WARMUP) { /* the window starts now, and is empty */
                    G.phase = P_MEASURE;
                    G.t_meas = now_ns();
                }
                G.t_end = now_ns();
                G.phase = P_DONE;
            }
        }
        if (c->role == R_A || c->role == R_B || c->role == R_SOLO)
            send_room_cmd(c, THUE_CMD_REMATCH, K_REMATCH);
    } else if (lg_type_is(ty, tl, "error")) {
        on_error(c, text, len, id);
    } else if (lg_type_is(ty, tl, "welcome")) {
        on_welcome(c, text, len);
    } else if (lg_type_is(ty, tl, "room_created")) {
        on_created(c, text, len);
    } else if (lg_type_is(ty, tl, "goodbye")) {
        if (!G.stopping) {
            thue_msg msg;
            memset(&msg, 0, sizeof msg);
            char kind[64] = "goodbye:unreadable";
            if (thue_msg_decode(text, len, &msg, NULL) == 0) {
                snprintf(kind, sizeof kind, "goodbye:%s", msg.u.goodbye.reason);
                thue_msg_clear(&msg);
            }
            lg_err_count(kind);
        }
    }
    /* pong, chat_message, rooms, ...: nothing to do */
}

/* ---- libwebsockets ----------------------------------------------------------------- */

static void conn_closed(conn *c, const char *why)
{
    int was = c->state;
    c->state = C_CLOSED;
    c->wsi = NULL;
    while (c->qh) {
        outmsg *m = c->qh;
        c->qh = m->next;
        free(m);
    }
    c->qt = NULL;
    free(c->in);
    c->in = NULL;
    c->inlen = c->incap = 0;
    if (!G.stopping) {
        char kind[64];
        if (was < C_OPEN) {
            snprintf(kind, sizeof kind, "connect:%s", why ? why : "failed");
        } else if (c->close_code) {
            snprintf(kind, sizeof kind, "close:%d", c->close_code);
        } else {
            snprintf(kind, sizeof kind, "close:no_code");
        }
        /* keep the kind printable and JSON-safe */
        for (char *p = kind; *p; p++)
            if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
                *p = '_';
        lg_err_count(kind);
    }
    resolve(c, 0);
}

/* A whole text message, or a piece of one. */
static int on_text(conn *c, const lg_ws_frame *f, int first)
{
    if (first && f->fin && c->rxlen == 0) {
        on_message(c, (const char *)f->payload, f->len); /* the usual case: no copy */
        return 0;
    }
    if (c->rxlen + f->len + 1 > c->rxcap) {
        size_t cap = c->rxcap ? c->rxcap : 4096;
        while (cap < c->rxlen + f->len + 1)
            cap *= 2;
        char *p = realloc(c->rx, cap);
        if (p == NULL)
            return -1;
        c->rx = p;
        c->rxcap = cap;
    }
    memcpy(c->rx + c->rxlen, f->payload, f->len);
    c->rxlen += f->len;
    if (f->fin) {
        size_t n = c->rxlen;
        c->rxlen = 0;
        on_message(c, c->rx, n);
    }
    return 0;
}

/* One frame from the server: 0, or -1 to close the connection. */
static int on_frame(conn *c, const lg_ws_frame *f)
{
    switch (f->opcode) {
    case LG_WS_TEXT:
        c->in_text = !f->fin;
        return on_text(c, f, 1);
    case LG_WS_BINARY:
        c->in_text = 0;
        break;
    case LG_WS_CONT:
        if (!c->in_text)
            break; /* the rest of a binary message */
        c->in_text = !f->fin;
        return on_text(c, f, 0);
    case LG_WS_PING:
        enqueue_frame(c, LG_WS_PONG, (const char *)f->payload, f->len, -1);
        break;
    case LG_WS_CLOSE:
        if (f->len >= 2)
            c->close_code = (f->payload[0] << 8) | f->payload[1];
        if (c->wsi) {
            /* the echo, then the socket (the peer closes its side on the echo) */
            unsigned char echo[LWS_PRE + LG_WS_HEADER_MAX + 2];
            size_t n = lg_ws_frame_out(echo + LWS_PRE, LG_WS_CLOSE, f->payload, f->len >= 2 ? 2 : 0,
                                       (uint32_t)rnd());
            lws_write(c->wsi, echo + LWS_PRE, n, LWS_WRITE_RAW);
        }
        return -1;
    default:
        break; /* binary and pong: nothing to do */
    }
    return 0;
}

/* c->in with room for need bytes: 0, or -1 when memory ran out. */
static int in_reserve(conn *c, size_t need)
{
    if (need <= c->incap)
        return 0;
    size_t cap = c->incap ? c->incap : 4096;
    while (cap < need)
        cap *= 2;
    unsigned char *b = realloc(c->in, cap);
    if (b == NULL)
        return -1;
    c->in = b;
    c->incap = cap;
    return 0;
}

/* Bytes from the socket: the handshake's answer, then frames. 0, or -1 to close. */
static int on_raw_rx(conn *c, const unsigned char *in, size_t len)
{
    const unsigned char *p = in;
    size_t n = len;
    if (G.phase == P_MEASURE)
        G.rx_bytes[c->role] += len;
    if (c->inlen > 0) {
        if (in_reserve(c, c->inlen + len) != 0)
            return -1;
        memcpy(c->in + c->inlen, in, len);
        c->inlen += len;
        p = c->in;
        n = c->inlen;
    }
    size_t used = 0;
    if (c->state == C_HANDSHAKE) {
        int status;
        int r = lg_ws_response((const char *)p, n, c->key, &used, &status);
        if (r < 0) {
            char why[32];
            snprintf(why, sizeof why, "http_%d", status);
            c->wsi = NULL; /* counted here; the close that follows is not another error */
            conn_closed(c, why);
            return -1;
        }
        if (r > 0 && G.o.protocol == 2) {
            /* Offered "thue.v2, thue.v1": a server before thue.v2 picks thue.v1. */
            char sub[32];
            if (lg_ws_subprotocol((const char *)p, used, sub, sizeof sub) < 0)
                snprintf(sub, sizeof sub, "none");
            if (strcmp(sub, "thue.v2") != 0) {
                if (!G.warned_v1) {
                    G.warned_v1 = 1;
                    fprintf(stderr,
                            "thue-loadgen: the server did not select thue.v2 (it answered "
                            "'%s'): it may predate thue.v2; use --protocol 1\n",
                            sub);
                }
                c->wsi = NULL; /* counted here; the close that follows is not another error */
                conn_closed(c, "not_thue.v2");
                return -1;
            }
        }
        if (r > 0) {
            c->state = C_OPEN;
            if (c->qh && !c->throttled && write_one(c) < 0)
                return -1;
        }
    }
    while (c->state >= C_OPEN && c->state != C_CLOSED && used < n) {
        lg_ws_frame f;
        long r = lg_ws_parse(p + used, n - used, (size_t)THUE_PROTO_MESSAGE_MAX * 64, &f);
        if (r == 0)
            break;
        if (r < 0) {
            lg_err_count("ws_protocol");
            return -1;
        }
        used += (size_t)r;
        if (on_frame(c, &f) < 0)
            return -1;
    }
    /* keep the part of a frame that is not all here yet */
    size_t rest = n - used;
    if (rest > 0 && p != c->in) {
        if (in_reserve(c, rest) != 0)
            return -1;
        memcpy(c->in, p + used, rest);
    } else if (rest > 0) {
        memmove(c->in, c->in + used, rest);
    }
    c->inlen = rest;
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    (void)user;
    conn *c = lws_get_opaque_user_data(wsi);
    switch (reason) {
    case LWS_CALLBACK_RAW_CONNECTED: {
        if (c == NULL)
            break;
        char req[LWS_PRE + 1024];
        lg_ws_key(rnd(), rnd(), c->key);
        size_t n = lg_ws_request(req + LWS_PRE, sizeof req - LWS_PRE, G.o.path, G.hostport, c->key,
                                 G.o.protocol == 2 ? "thue.v2, thue.v1" : "thue.v1");
        c->state = C_HANDSHAKE;
        if (n == 0 || lws_write(wsi, (unsigned char *)req + LWS_PRE, n, LWS_WRITE_RAW) < (int)n)
            return -1;
        break;
    }
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        if (c) {
            char why[48];
            snprintf(why, sizeof why, "%s", in && len ? (const char *)in : "failed");
            conn_closed(c, why);
            lws_set_opaque_user_data(wsi, NULL);
        }
        break;
    case LWS_CALLBACK_RAW_CLOSE:
        if (c) {
            if (c->state != C_CLOSED)
                conn_closed(c, NULL);
            lws_set_opaque_user_data(wsi, NULL);
        }
        break;
    case LWS_CALLBACK_RAW_RX:
        if (c == NULL || c->state == C_CLOSED)
            break;
        if (on_raw_rx(c, in, len) < 0)
            return -1;
        break;
    case LWS_CALLBACK_RAW_WRITEABLE:
        if (c == NULL || G.stopping || c->state < C_OPEN || c->state == C_CLOSED)
            break;
        if (write_one(c) < 0)
            return -1;
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {"thue.v1", callback, 0, 65536, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void open_conn(conn *c)
{
    thue_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.type = THUE_CMD_HELLO;
    cmd.u.hello.protocol = G.o.protocol; /* the subprotocol's number: 1 or 2 */
    c->rate = 20 * 0.97; /* the defaults until welcome tells */
    c->burst = 39;
    c->tokens = c->burst;
    c->refill_ns = now_ns();
    send_cmd(c, &cmd, K_HELLO);

    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = G.ctx;
    ci.address = G.o.host;
    ci.port = G.o.port;
    ci.path = G.o.path;
    ci.host = G.hostport;
    ci.method = "RAW"; /* WebSocket is spoken over it by lg_ws.c */
    ci.local_protocol_name = "thue.v1";
    ci.opaque_user_data = c;
    ci.pwsi = &c->wsi;
    if (G.o.nsources > 0)
        ci.iface = G.o.sources[(c - G.conns) % G.o.nsources];
    c->state = C_CONNECTING;
    if (lws_client_connect_via_info(&ci) == NULL && c->state == C_CONNECTING)
        conn_closed(c, "refused");
}

/* ---- the run ----------------------------------------------------------------------- */

static void snapshot_start(uint64_t now)
{
    G.t_meas = now;
    G.confirmed_at_meas = G.moves_confirmed;
    G.pair_confirmed_at_meas = G.pair_confirmed;
    G.matches_at_meas = (uint64_t)G.matches_finished;
    getrusage(RUSAGE_SELF, &G.ru0);
    if (G.o.server_pid) {
        G.srv_ok = lg_proc_cpu_ticks(G.o.server_pid, 0, &G.srv_ticks0) == 0;
        /* the main thread runs the server's loop (network, lobby, validation) */
        G.loop_ok = lg_proc_cpu_ticks(G.o.server_pid, G.o.server_pid, &G.loop_ticks0) == 0;
    }
    for (int i = 0; i < G.nsr; i++)
        search_account(&G.sr[i], now);
}

static void finish(void)
{
    G.stopping = 1;
    uint64_t now = now_ns();
    if (G.t_end == 0)
        G.t_end = now;
    getrusage(RUSAGE_SELF, &G.ru1);
    if (G.o.server_pid && G.srv_ok)
        G.srv_ok = lg_proc_cpu_ticks(G.o.server_pid, 0, &G.srv_ticks1) == 0;
    if (G.o.server_pid && G.loop_ok)
        G.loop_ok = lg_proc_cpu_ticks(G.o.server_pid, G.o.server_pid, &G.loop_ticks1) == 0;
    for (int i = 0; i < G.nsr; i++)
        search_account(&G.sr[i], now);
    uv_timer_stop(&G.tick);
    uv_stop(&G.loop);
}

/* Has every spectator in a room seen a version at least as new as the last arrival's? */
static int spectators_caught_up(void)
{
    if (G.nspect == 0)
        return 1;
    for (int i = 0; i < G.nconns; i++) {
        const conn *c = &G.conns[i];
        if (c->role == R_SPECT && c->state == C_UP &&
            (c->first_version < 0 || c->seen_version < G.arrivals_version))
            return 0;
    }
    return 1;
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
    uint64_t now = now_ns();
    /* throttled connections whose bucket has a token again */
    int keep = 0;
    for (int i = 0; i < G.nthr; i++) {
        conn *c = G.thr[i];
        refill(c, now);
        if (c->state == C_CLOSED || c->wsi == NULL) {
            c->throttled = 0;
        } else if (c->tokens >= 1.0) {
            c->throttled = 0;
            lws_callback_on_writable(c->wsi);
        } else {
            G.thr[keep++] = c;
        }
    }
    G.nthr = keep;

    switch (G.phase) {
    case P_RAMP: {
        double secs = (double)(now - G.t0) / 1e9;
        long target = (long)(secs * G.o.connect_rate) + 1;
        if (target > G.nconns)
            target = G.nconns;
        while (G.opened < target)
            open_conn(&G.conns[G.opened++]);
        /* lws gives up on a connect by itself (its own timeouts); as a backstop, a ramp
         * that takes 30 s longer than planned is ended, its stragglers counted. */
        double planned = G.nconns / G.o.connect_rate;
        if (G.opened == G.nconns && (G.resolved == G.nconns || secs > planned + 30)) {
            for (int i = 0; i < G.nconns && G.resolved < G.nconns; i++)
                if (!G.conns[i].resolved) {
                    lg_err_count(G.conns[i].state == C_OPEN ? "welcome:timeout"
                                                            : "connect:timeout");
                    resolve(&G.conns[i], 0);
                }
            if (G.up == 0) {
                fprintf(stderr, "thue-loadgen: no connection to %s succeeded\n", G.o.server);
                G.exit_code = 1;
                finish();
                return;
            }
            G.t_allup = now;
            G.phase = P_WARMUP;
            logv("%d connections up, warming up", G.up);
        }
        break;
    }
    case P_WARMUP: {
        /* The window waits for the spectators to be in their rooms and to have seen the
         * news of the last arrival: each arrival is a change that every member is told
         * of (S arrivals, S*S/2 states), which the window must not see. */
        double secs = (double)(now - G.t_allup) / 1e9;
        int waiting = G.spect_in < G.spect_up || !spectators_caught_up();
        if (waiting && secs >= G.o.warmup_s + SPECTATE_WAIT_S) {
            lg_err_count("spectate:timeout");
            logv("%d of %d spectators are not in their rooms after %d s", G.spect_up - G.spect_in,
                 G.spect_up, SPECTATE_WAIT_S);
            waiting = 0;
        }
        if (secs >= G.o.warmup_s && !waiting) {
            snapshot_start(now);
            G.phase = P_MEASURE;
            logv("measuring for %.1f s", G.o.duration_s);
        }
        break;
    }
    case P_MEASURE:
        if ((double)(now - G.t_meas) / 1e9 >= G.o.duration_s) {
            G.t_end = now;
            G.phase = P_DONE;
        }
        break;
    default:
        break;
    }
    if (G.phase == P_DONE)
        finish();
}

static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (rl.rlim_cur > (1u << 20))
            rl.rlim_cur = 1u << 20;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/*
 * Refuses, before anything connects, a run that cannot fit: every connection is a
 * descriptor here, and each source address has only the ephemeral port range's ports
 * (/proc/sys/net/ipv4/ip_local_port_range). 0, or 2 after saying why.
 */
static int check_capacity(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (rlim_t)G.nconns + 64 > rl.rlim_cur) {
        fprintf(stderr,
                "thue-loadgen: %d connections need about %d open files, and this process may "
                "open %llu (ulimit -Hn): ask for fewer connections, or raise the hard limit\n",
                G.nconns, G.nconns + 64, (unsigned long long)rl.rlim_cur);
        return 2;
    }
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    long lo = 0, hi = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &lo, &hi) != 2)
            hi = -1;
        fclose(f);
    }
    if (hi >= lo) {
        long ports = hi - lo + 1;
        int nsrc = G.o.nsources > 0 ? G.o.nsources : 1;
        long per = (G.nconns + nsrc - 1) / nsrc;
        if (per > ports) {
            fprintf(stderr,
                    "thue-loadgen: %ld connections from one source address are more than its "
                    "%ld ephemeral ports (%ld..%ld, ip_local_port_range): give --source at least "
                    "%ld addresses, e.g. --source 127.0.0.1,127.0.0.2,...\n",
                    per, ports, lo, hi, (G.nconns + ports - 1) / ports);
            return 2;
        }
    }
    return 0;
}

static double cpu_s(const struct rusage *r)
{
    return (double)r->ru_utime.tv_sec + r->ru_utime.tv_usec / 1e6 + (double)r->ru_stime.tv_sec +
           r->ru_stime.tv_usec / 1e6;
}

static void report(void)
{
    double window = G.t_meas && G.t_end > G.t_meas ? (double)(G.t_end - G.t_meas) / 1e9 : 0;
    uint64_t confirmed_w = G.t_meas ? G.moves_confirmed - G.confirmed_at_meas : 0;
    long matches_w = G.t_meas ? G.matches_finished - (long)G.matches_at_meas : 0;
    double mps = window > 0 ? (double)confirmed_w / window : 0;
    double p50 = lg_hist_quantile(G.hist, 0.50), p99 = lg_hist_quantile(G.hist, 0.99);
    double mx = (double)G.hist->max_ns / 1e6;
    double lg_cpu = window > 0 ? 100.0 * (cpu_s(&G.ru1) - cpu_s(&G.ru0)) / window : -1;
    double srv_cpu = -1, loop_cpu = -1, rss_mib = -1, hwm_mib = -1;
    if (G.o.server_pid) {
        long rss, hwm;
        if (lg_proc_rss_kib(G.o.server_pid, &rss, &hwm) == 0) {
            rss_mib = rss / 1024.0;
            hwm_mib = hwm / 1024.0;
        }
        long hz = sysconf(_SC_CLK_TCK);
        if (G.srv_ok && window > 0 && hz > 0)
            srv_cpu = 100.0 * (double)(G.srv_ticks1 - G.srv_ticks0) / (double)hz / window;
        if (G.loop_ok && window > 0 && hz > 0)
            loop_cpu = 100.0 * (double)(G.loop_ticks1 - G.loop_ticks0) / (double)hz / window;
    }
    /* From the first connect to the last connection's welcome (or failure). */
    double connect_s = G.t_allup > G.t0 ? (double)(G.t_allup - G.t0) / 1e9 : -1;
    int idle_open = 0, open_now = 0;
    for (int i = 0; i < G.nconns; i++) {
        if (G.conns[i].state == C_UP) {
            open_now++;
            if (G.conns[i].role == R_IDLE)
                idle_open++;
        }
    }
    /* Per move, per recipient: every move of a pair's room reaches its two players and its
     * --spectators spectators (the solo rooms' players are not counted: the bots' moves
     * are not confirmed here). */
    double pair_w = G.t_meas ? (double)(G.pair_confirmed - G.pair_confirmed_at_meas) : 0;
    double pl_bytes = -1, pl_msgs = -1, sp_bytes = -1, sp_msgs = -1;
    if (pair_w > 0) {
        pl_bytes = (double)(G.rx_bytes[R_A] + G.rx_bytes[R_B]) / (2 * pair_w);
        pl_msgs = (double)(G.rx_msgs[R_A] + G.rx_msgs[R_B]) / (2 * pair_w);
        if (G.o.spectators > 0) {
            sp_bytes = (double)G.rx_bytes[R_SPECT] / (G.o.spectators * pair_w);
            sp_msgs = (double)G.rx_msgs[R_SPECT] / (G.o.spectators * pair_w);
        }
    }
    /* The set-up: from the first connect to the window (connections, rooms, the
     * spectators' arrivals and the warm-up), and the server's CPU in it. */
    double setup_s = G.t_meas > G.t0 ? (double)(G.t_meas - G.t0) / 1e9 : -1;
    double setup_cpu_s = -1;
    if (G.srv_start_ok && G.srv_ok && G.t_meas && sysconf(_SC_CLK_TCK) > 0)
        setup_cpu_s = (double)(G.srv_ticks0 - G.srv_ticks_start) / (double)sysconf(_SC_CLK_TCK);
    /* The server's CPU time per confirmed move (all its threads, and its loop thread). */
    double srv_us_move = -1, loop_us_move = -1;
    if (srv_cpu >= 0 && confirmed_w > 0)
        srv_us_move = srv_cpu / 100.0 * window * 1e6 / (double)confirmed_w;
    if (loop_cpu >= 0 && confirmed_w > 0)
        loop_us_move = loop_cpu / 100.0 * window * 1e6 / (double)confirmed_w;
    double busy = 0;
    for (int i = 0; i < G.nsr; i++)
        busy += window > 0 ? (double)G.sr[i].busy_ns / 1e9 / window : 0;
    double busy_pct = G.nsr ? 100.0 * busy / G.nsr : 0;

    if (G.o.json) {
        printf("{\"server\":\"%s\",\"matches\":%d,\"bot_matches\":%d,\"idle\":%d,"
               "\"search_rooms\":%d,\"connections\":{\"planned\":%d,\"opened\":%d,\"up\":%d,"
               "\"failed\":%d,\"open_at_end\":%d,\"idle_open_at_end\":%d,\"connect_s\":%.3f},"
               "\"window_s\":%.3f,\"matches_finished\":%ld,\"matches_finished_window\":%ld,"
               "\"moves_sent\":%llu,\"moves_confirmed\":%llu,\"moves_confirmed_window\":%llu,"
               "\"moves_per_s\":%.1f,\"rtt_ms\":{\"samples\":%llu,\"p50\":%.3f,\"p99\":%.3f,"
               "\"max\":%.3f},\"errors_total\":%ld,\"errors\":{",
               G.o.server, G.o.matches, G.nsolo, G.nidle, G.o.search_rooms, G.nconns, G.opened,
               G.up, G.failed, open_now, idle_open, connect_s, window, G.matches_finished, matches_w,
               (unsigned long long)G.moves_sent, (unsigned long long)G.moves_confirmed,
               (unsigned long long)confirmed_w, mps, (unsigned long long)G.hist->n, p50, p99, mx,
               lg_err_total());
        for (int i = 0; i < lg_err_kinds(); i++) {
            long n;
            const char *k = lg_err_kind(i, &n);
            printf("%s\"%s\":%ld", i ? "," : "", k, n);
        }
        printf("},\"search_busy_pct\":%.1f,\"server_rss_mib\":%.1f,\"server_hwm_mib\":%.1f,"
               "\"server_cpu_pct\":%.1f,\"server_loop_cpu_pct\":%.1f,\"loadgen_cpu_pct\":%.1f,",
               busy_pct, rss_mib, hwm_mib, srv_cpu, loop_cpu, lg_cpu);
        printf("\"protocol\":%d,\"spectators_per_room\":%d,\"spectators\":%d,"
               "\"pair_moves_window\":%.0f,\"server_cpu_us_per_move\":%.2f,"
               "\"server_loop_cpu_us_per_move\":%.2f,"
               "\"rx_bytes\":{\"players\":%llu,\"spectators\":%llu},"
               "\"bytes_per_move\":{\"player\":%.1f,\"spectator\":%.1f},"
               "\"messages_per_move\":{\"player\":%.3f,\"spectator\":%.3f},"
               "\"setup_s\":%.3f,\"setup_server_cpu_s\":%.2f,"
               "\"model\":{\"check_every\":%d,\"played\":%llu,\"checks\":%ld,"
               "\"mismatches\":%ld,\"gaps\":%ld,\"bad_played\":%ld,\"syncs\":%ld}}\n",
               G.o.protocol, G.o.spectators, G.nspect, pair_w, srv_us_move, loop_us_move,
               (unsigned long long)(G.rx_bytes[R_A] + G.rx_bytes[R_B]),
               (unsigned long long)G.rx_bytes[R_SPECT], pl_bytes, sp_bytes, pl_msgs, sp_msgs,
               setup_s, setup_cpu_s, G.o.check_every, (unsigned long long)G.played_seen, G.checks,
               G.mismatches, G.gaps, G.bad_played, G.syncs);
    } else {
        printf("thue-loadgen against %s (thue.v%d)\n", G.o.server, G.o.protocol);
        printf("  connections    %d planned, %d opened, %d up, %d failed; %d open at the end "
               "(idle: %d of %d)\n",
               G.nconns, G.opened, G.up, G.failed, open_now, idle_open, G.nidle);
        if (connect_s >= 0)
            printf("  connecting     %.2f s from the first connect to the last welcome\n",
                   connect_s);
        printf("  matches        %d running (%d against a bot), %ld finished (%ld in the "
               "window)\n",
               G.o.matches, G.nsolo, G.matches_finished, matches_w);
        printf("  window         %.2f s (after %.1f s warm-up", window, G.o.warmup_s);
        if (setup_s >= 0)
            printf("; %.2f s from the first connect", setup_s);
        if (setup_cpu_s >= 0)
            printf(", in which the server took %.2f s of CPU", setup_cpu_s);
        printf(")\n");
        printf("  moves          %llu sent, %llu confirmed, %llu in the window: %.0f moves/s\n",
               (unsigned long long)G.moves_sent, (unsigned long long)G.moves_confirmed,
               (unsigned long long)confirmed_w, mps);
        printf("  round trip     p50 %.3f ms, p99 %.3f ms, max %.3f ms (%llu samples)\n", p50,
               p99, mx, (unsigned long long)G.hist->n);
        if (pl_bytes >= 0) {
            printf("  received       per move of a pair's room: %.0f bytes (%.2f messages) to "
                   "each player",
                   pl_bytes, pl_msgs);
            if (sp_bytes >= 0)
                printf(", %.0f bytes (%.2f messages) to each of its %d spectators", sp_bytes,
                       sp_msgs, G.o.spectators);
            printf("\n");
        }
        if (G.o.protocol == 2 || G.o.check_every > 0)
            printf("  models         %llu played applied; %ld checks (every %d), %ld mismatches, "
                   "%ld gaps, %ld syncs\n",
                   (unsigned long long)G.played_seen, G.checks, G.o.check_every, G.mismatches,
                   G.gaps, G.syncs);
        if (G.nsr)
            printf("  search rooms   %d: a bot was searching %.1f%% of the window\n", G.nsr,
                   busy_pct);
        if (G.o.server_pid)
            printf("  server         RSS %.1f MiB (peak %.1f MiB), CPU %.1f%% of one core (its "
                   "loop thread: %.1f%%)\n",
                   rss_mib, hwm_mib, srv_cpu, loop_cpu);
        if (srv_us_move >= 0)
            printf("  server CPU     %.1f us per confirmed move (its loop thread: %.1f us)\n",
                   srv_us_move, loop_us_move);
        if (lg_cpu >= 0)
            printf("  loadgen        CPU %.1f%% of one core\n", lg_cpu);
        printf("  errors         %ld\n", lg_err_total());
        for (int i = 0; i < lg_err_kinds(); i++) {
            long n;
            const char *k = lg_err_kind(i, &n);
            printf("    %-28s %ld\n", k, n);
        }
    }
}

int main(int argc, char **argv)
{
    int rc = lg_parse_args(argc, argv, &G.o);
    if (rc == 1)
        return 0;
    if (rc)
        return 2;
    if (check_move_text() != 0)
        return 1;
    raise_nofile();
    thue_codec_init();
    G.rng = G.o.seed ? G.o.seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    G.rng = G.rng * 0x9E3779B97F4A7C15ULL + 1;
    if (strchr(G.o.host, ':'))
        snprintf(G.hostport, sizeof G.hostport, "[%s]:%d", G.o.host, G.o.port);
    else
        snprintf(G.hostport, sizeof G.hostport, "%s:%d", G.o.host, G.o.port);

    G.nsolo = (int)(G.o.matches * G.o.bot_share + 0.5);
    G.npairs = G.o.matches - G.nsolo;
    G.nidle = G.o.idle;
    if ((int64_t)G.npairs * G.o.spectators + 2 * G.o.matches + G.nidle > 2000000) {
        fprintf(stderr, "thue-loadgen: more than 2,000,000 connections asked for (--matches, "
                        "--spectators per pair's room, --idle)\n");
        return 2;
    }
    G.nspect = G.npairs * G.o.spectators;
    G.nconns = (G.o.search_rooms ? 1 : 0) + 2 * G.npairs + G.nsolo + G.nspect + G.nidle;
    G.conns = calloc((size_t)G.nconns, sizeof *G.conns);
    G.hist = calloc(1, sizeof *G.hist);
    if (G.conns == NULL || G.hist == NULL) {
        fprintf(stderr, "thue-loadgen: out of memory\n");
        return 1;
    }
    /* The order of opening: the search rooms' watcher; each pair with its spectators
     * (whose peer is the pair's A), so that a slow --connect-rate spreads the rooms'
     * starts; the solo players; the idle. A room's creator sits in seat 0 (create_room's
     * seat), its joiner in seat 1. */
    int at = 0;
    for (int i = 0; i < G.nconns; i++) {
        lg_model_init(&G.conns[i].model);
        G.conns[i].seat = -1;
        G.conns[i].first_version = G.conns[i].seen_version = -1;
    }
    lg_model_init(&G.scratch);
    if (G.o.search_rooms)
        G.conns[at++].role = R_WATCH;
    for (int i = 0; i < G.npairs; i++) {
        conn *a = &G.conns[at++], *b = &G.conns[at++];
        a->role = R_A;
        b->role = R_B;
        a->peer = b;
        b->peer = a;
        a->seat = 0;
        b->seat = 1;
        a->spect0 = at;
        for (int j = 0; j < G.o.spectators; j++) {
            conn *s = &G.conns[at++];
            s->role = R_SPECT;
            s->peer = a;
        }
    }
    for (int i = 0; i < G.nsolo; i++) {
        G.conns[at].role = R_SOLO;
        G.conns[at++].seat = 0;
    }
    for (int i = 0; i < G.nidle; i++)
        G.conns[at++].role = R_IDLE;
    rc = check_capacity();
    if (rc)
        return rc;

    if (uv_loop_init(&G.loop) != 0) {
        fprintf(stderr, "thue-loadgen: cannot start libuv\n");
        return 1;
    }
    lws_set_log_level(G.o.verbose ? LLL_ERR | LLL_WARN : LLL_ERR, NULL);
    void *foreign[1] = {&G.loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    info.foreign_loops = foreign;
    info.protocols = protocols;
    info.gid = -1;
    info.uid = -1;
    G.ctx = lws_create_context(&info);
    if (G.ctx == NULL) {
        fprintf(stderr, "thue-loadgen: cannot create the libwebsockets context (is "
                        "libwebsockets-evlib-uv installed?)\n");
        return 1;
    }
    uv_timer_init(&G.loop, &G.tick);
    G.t0 = now_ns();
    if (G.o.server_pid)
        G.srv_start_ok = lg_proc_cpu_ticks(G.o.server_pid, 0, &G.srv_ticks_start) == 0;
    G.phase = P_RAMP;
    uv_timer_start(&G.tick, on_tick, 0, TICK_MS);
    logv("opening %d connections", G.nconns);
    uv_run(&G.loop, UV_RUN_DEFAULT);

    report();
    fflush(stdout);
    if (G.exit_code == 0 && lg_err_total() > 0)
        G.exit_code = 1;
    /* The kernel closes the sockets; a full lws teardown on a foreign loop buys nothing
     * for a process that ends here. */
    _exit(G.exit_code);
}
