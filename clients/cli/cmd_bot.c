/*
 * cmd_bot.c: `thue bot`: one of the search bots plays on a server through the quick-match
 * queue, game after game.
 *
 * The loop is single-threaded: it waits for messages, and whenever the latest room_state
 * of its room says it is to move, it searches (on this thread, within --think-ms) and
 * sends the move. Each move is sent once per state version, so a late duplicate state
 * cannot make it move twice. A lost connection is taken back with the resume token,
 * retrying with a growing pause for as long as the server keeps the seat (grace_s).
 * Several nodes (PROTOCOL.md section 17): a quick match made on another node comes as
 * `moved` (reason match) with a resume token for a session there, seated: the bot opens
 * that node's path on the server's host and says hello with it; a resume through the
 * balancer that lands on the wrong node is followed too (netcmd.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "netcmd.h"

static const char usage[] =
    "Usage: thue bot --bot SPEC [--server URL] [--name N] [--games N] [--queue V,K]\n"
    "                [--think-ms T] [--json] [--protocol 1|2]\n"
    "\n"
    "Plays a search bot (docs/bots.md) on a thue-server through the quick-match queue.\n"
    "\n"
    "  --bot SPEC      the bot: greedy, nested:L, uct[:...], perfect[:depth=D]\n"
    "  --server URL    the server's WebSocket endpoint (default " CLI_DEFAULT_SERVER ")\n"
    "  --name N        the player name (default cli-bot-NNNN; names that read as a bot\n"
    "                  SPEC or start with Bot- are reserved for the server's bots)\n"
    "  --games N       games to play, then exit (default 1; 0 = forever)\n"
    "  --queue V,K     the queue: variant and number of symbols (default square,3)\n"
    "  --think-ms T    time per move in milliseconds (default 1000)\n"
    "  --json          one JSON object per game and one for the summary\n"
    "  --protocol P    the newest subprotocol to offer: 2 (default) offers thue.v2 and\n"
    "                  thue.v1 and speaks the one the server selects; 1 offers thue.v1\n"
    "\n"
    "Prints one line per game (room, seat, result, points) and a summary. A lost\n"
    "connection is resumed with the session's resume token. Through the balancer of\n"
    "several nodes, a match made on another node (`moved`) is followed there.\n"
    "Exit status: 0 all games played, 1 cannot connect or the session was lost,\n"
    "2 bad arguments.\n";

typedef struct bot {
    const char *server;
    char name[THUE_PROTO_NAME_MAX * 4 + 1];
    thue_bot_spec spec;
    int think_ms, games, json;
    thue_variant variant;
    int k;
    cli_net *net;
    char resume[THUE_PROTO_RESUME_LEN + 1];
    int grace_s;
    char room[THUE_PROTO_KEY_MAX + 1]; /* the room being played, "" when queued */
    int you;                           /* our seat there */
    long long last_version;            /* latest state seen */
    long long moved_version;           /* the state we last moved in */
    int played, won, drawn, lost, pts_for, pts_against;
} bot;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* A game seed from the state: the room and the match number, so a replay repeats. */
static uint64_t game_seed(const char *room, int number)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = room; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return mix(h ^ (uint64_t)number);
}

static int send_queue(bot *b)
{
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_QUEUE_JOIN;
    c.u.queue_join.variant = b->variant;
    c.u.queue_join.k = b->k;
    c.u.queue_join.limit = 100;
    b->room[0] = '\0';
    return cli_net_send(b->net, &c) < 0 ? -1 : 0;
}

static void send_leave(bot *b, const char *room)
{
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_LEAVE;
    snprintf(c.u.room.room, sizeof c.u.room.room, "%s", room);
    cli_net_send(b->net, &c);
}

/* The latest state of our room: move when it is our step. */
static void on_state(bot *b, const thue_msg *m)
{
    const thue_match_info *mi = &m->u.room_state.match;
    if (m->u.room_state.you < 0)
        return;
    if (b->room[0] == '\0' || strcmp(b->room, m->u.room_state.room) != 0) {
        /* A room we were put in (match_found came first, or a resume). */
        if (m->u.room_state.status == THUE_STATUS_FINISHED)
            return;
        snprintf(b->room, sizeof b->room, "%s", m->u.room_state.room);
        b->last_version = b->moved_version = 0;
    }
    if (m->u.room_state.version <= b->last_version)
        return;
    b->last_version = m->u.room_state.version;
    b->you = m->u.room_state.you;
    if (m->u.room_state.status != THUE_STATUS_PLAYING || !m->u.room_state.has_match ||
        mi->to_move != b->you || mi->step == THUE_STEP_OVER ||
        b->moved_version == m->u.room_state.version)
        return;
    int placing = mi->step == THUE_STEP_PLACE;
    thue_role role = placing ? THUE_ROLE_BUILDER : THUE_ROLE_PAINTER;
    int r = mi->round, ply = mi->rounds[r].points;
    int remaining = m->u.room_state.options.limit - ply;
    thue_position pos = {
        m->u.room_state.options.variant, m->u.room_state.options.k,    mi->word, mi->word_len, role,
        placing ? 0 : mi->placed,        remaining > 0 ? remaining : 1};
    thue_bot_limits lim = {.think_ms = b->think_ms};
    uint64_t seed = thue_bot_move_seed(game_seed(b->room, mi->number), r, ply, role);
    thue_bot_result res;
    int move;
    if (thue_bot_move(&b->spec, &pos, &lim, seed, &res) == 0) {
        move = res.move;
    } else {
        /* Never stall the game: a legal fallback (position n, symbol 0). */
        move = placing ? mi->word_len : 0;
    }
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = placing ? THUE_CMD_PLACE : THUE_CMD_PAINT;
    snprintf(c.u.move.room, sizeof c.u.move.room, "%s", b->room);
    c.u.move.value = move;
    b->moved_version = m->u.room_state.version;
    cli_net_send(b->net, &c);
}

/* match_end of our room: count and print the game. Returns 1 when all games are done. */
static int on_end(bot *b, const thue_msg *m)
{
    if (b->room[0] == '\0' || strcmp(b->room, m->u.match_end.room) != 0)
        return 0;
    int you = b->you, other = 1 - you;
    int w = m->u.match_end.winner;
    const char *res = w < 0 ? "draw" : w == you ? "win" : "loss";
    b->played++;
    if (w < 0)
        b->drawn++;
    else if (w == you)
        b->won++;
    else
        b->lost++;
    int pf = m->u.match_end.points[you], pa = m->u.match_end.points[other];
    b->pts_for += pf;
    b->pts_against += pa;
    const char *opp = m->u.match_end.players[other].name;
    const char *reason = cli_reason_name(m->u.match_end.reason);
    if (b->json) {
        printf("{\"game\":%d,\"room\":", b->played);
        cli_json_string(stdout, b->room);
        printf(",\"seat\":%d,\"opponent\":", you);
        cli_json_string(stdout, opp);
        printf(",\"result\":\"%s\",\"reason\":\"%s\",\"points\":[%d,%d]}\n", res, reason, pf, pa);
    } else {
        printf("game %d: room %s seat %d vs %s: %s (%s), points %d-%d\n", b->played, b->room, you,
               opp, res, reason, pf, pa);
    }
    fflush(stdout);
    char room[THUE_PROTO_KEY_MAX + 1];
    snprintf(room, sizeof room, "%s", b->room);
    b->room[0] = '\0';
    send_leave(b, room);
    if (b->games > 0 && b->played >= b->games)
        return 1;
    send_queue(b);
    return 0;
}

/* A match made on another node: the connection moves there (a session made there for
 * us, seated in the room, its resume token in the message). 0, or -1 when it cannot. */
static int follow_match(bot *b, const thue_msg *m)
{
    if (strcmp(m->u.moved.reason, "match") != 0 || !m->u.moved.has_resume) {
        fprintf(stderr, "thue bot: moved (%s) without a seat to follow: %s\n", m->u.moved.reason,
                m->u.moved.message);
        return 0;
    }
    if (cli_move("bot", &b->net, b->server, m, NULL, b->resume, &b->grace_s) != 0)
        return -1;
    if (m->u.moved.has_room)
        snprintf(b->room, sizeof b->room, "%s", m->u.moved.room);
    b->last_version = b->moved_version = 0;
    fprintf(stderr, "thue bot: the match is on node %s: moved there\n", m->u.moved.node);
    return 0; /* the room's state follows */
}

/* Takes the session back after a lost connection. 0, or -1 when it is gone for good. */
static int reconnect(bot *b)
{
    cli_net_close(b->net);
    thue_msg w;
    int resumed;
    b->net = cli_reconnect("bot", b->server, b->resume, b->grace_s, &w, &resumed);
    if (b->net == NULL)
        return -1;
    if (resumed) {
        int seated = w.u.welcome.nrooms > 0;
        thue_msg_clear(&w);
        fprintf(stderr, "thue bot: resumed the session\n");
        b->last_version = 0;
        b->moved_version = 0;
        return seated ? 0 : send_queue(b); /* when seated, the room states follow */
    }
    /* The seat is gone: start a new session and queue again. The name may still be held
     * for a while by the old session (a node keeps a session that moved away, or whose
     * node is being declared dead, for its grace period): then a numbered variant. */
    char err[300], name[sizeof b->name + 8];
    int code = 0;
    snprintf(name, sizeof name, "%s", b->name);
    for (int n = 2;; n++) {
        if (cli_hello(b->net, name, NULL, 5000, &w, &code, err, sizeof err) == 0)
            break;
        if (code != THUE_PERR_NAME_TAKEN || n > 9) {
            fprintf(stderr, "thue bot: %s\n", err);
            return -1;
        }
        fprintf(stderr, "thue bot: the name %s is still held by the old session; trying %s-%d\n",
                name, b->name, n);
        snprintf(name, sizeof name, "%.*s-%d", (int)(sizeof name - 4), b->name, n);
    }
    fprintf(stderr, "thue bot: the old session had ended; started a new one as %s\n", name);
    snprintf(b->resume, sizeof b->resume, "%s", w.u.welcome.resume);
    b->grace_s = w.u.welcome.grace_s;
    thue_msg_clear(&w);
    return send_queue(b);
}

int cmd_bot(int argc, char **argv)
{
    const char *spec = NULL, *server = NULL, *name = NULL, *games = NULL, *queue = NULL,
               *think = NULL, *protocol = NULL, *check_sync = NULL;
    int json = 0;
    const cli_opt opts[] = {
        {"bot", 1, &spec, NULL},
        {"server", 1, &server, NULL},
        {"name", 1, &name, NULL},
        {"games", 1, &games, NULL},
        {"queue", 1, &queue, NULL},
        {"think-ms", 1, &think, NULL},
        {"json", 0, NULL, &json},
        {"protocol", 1, &protocol, NULL},
        {"check-sync", 1, &check_sync, NULL}, /* debugging: not in --help (net.h) */
        {NULL, 0, NULL, NULL},
    };
    const char *pos[1];
    int np;
    cli_parse("bot", usage, argc, argv, opts, pos, 0, 0, &np);

    static bot b; /* zeroed; one per process */
    if (spec == NULL)
        cli_usage_error("bot", "--bot SPEC is required (for example --bot nested:1)");
    cli_bot_spec("bot", "--bot", spec, &b.spec);
    b.server = server ? server : CLI_DEFAULT_SERVER;
    if (!cli_net_url_ok(b.server))
        cli_usage_error("bot", "--server: expected ws://HOST[:PORT]/PATH, not '%s'", b.server);
    if (name) {
        if (strlen(name) == 0 || strlen(name) > 24 * 4)
            cli_usage_error("bot", "--name: 1..24 characters");
        snprintf(b.name, sizeof b.name, "%s", name);
    } else {
        snprintf(b.name, sizeof b.name, "cli-bot-%04d", (int)(getpid() % 10000));
    }
    b.games = cli_int("bot", "games", games, 0, 1000000, 1);
    b.think_ms = cli_int("bot", "think-ms", think, 1, 3600000, 1000);
    b.json = json;
    b.variant = THUE_SQUARE;
    b.k = 3;
    if (queue)
        cli_queue_arg("bot", queue, &b.variant, &b.k);
    cli_net_options("bot", protocol, check_sync);

    char err[300];
    b.net = cli_net_open(b.server, 10000, err, sizeof err);
    if (b.net == NULL) {
        fprintf(stderr, "thue bot: %s\n", err);
        return 1;
    }
    thue_msg w;
    int code;
    if (cli_hello(b.net, b.name, NULL, 10000, &w, &code, err, sizeof err) != 0) {
        fprintf(stderr, "thue bot: %s\n", err);
        cli_net_close(b.net);
        return 1;
    }
    snprintf(b.resume, sizeof b.resume, "%s", w.u.welcome.resume);
    b.grace_s = w.u.welcome.grace_s;
    if (!json)
        printf("connected to %s as %s; queueing for %s k=%d\n", b.server, w.u.welcome.player.name,
               b.variant == THUE_SQUARE ? "square" : "overlap", b.k);
    fflush(stdout);
    thue_msg_clear(&w);
    send_queue(&b);

    int status = 0;
    for (;;) {
        thue_msg m;
        int r = cli_net_next(b.net, 1000, &m);
        if (r < 0) {
            fprintf(stderr, "thue bot: %s; reconnecting\n", cli_net_error(b.net));
            if (reconnect(&b) != 0) {
                fprintf(stderr, "thue bot: the session is lost\n");
                status = 1;
                break;
            }
            continue;
        }
        if (r == 0)
            continue;
        int done = 0;
        switch (m.type) {
        case THUE_MSG_MATCH_FOUND:
            snprintf(b.room, sizeof b.room, "%s", m.u.match_found.room);
            b.last_version = b.moved_version = 0;
            break;
        case THUE_MSG_QUEUE_FAILED: /* out of the queue: the server could not make the room */
            fprintf(stderr, "thue bot: quick match failed (%s): %s\n",
                    thue_proto_err_name(m.u.queue_failed.code), m.u.queue_failed.message);
            status = 1;
            done = 1;
            break;
        case THUE_MSG_ROOM_STATE:
            on_state(&b, &m);
            break;
        case THUE_MSG_MOVED:
            if (follow_match(&b, &m) != 0) {
                status = 1;
                done = 1;
            }
            break;
        case THUE_MSG_MATCH_END:
            done = on_end(&b, &m);
            break;
        case THUE_MSG_ERROR:
            if (m.u.error.code != THUE_PERR_RATE)
                fprintf(stderr, "thue bot: server error %s: %s\n",
                        thue_proto_err_name(m.u.error.code), m.u.error.message);
            break;
        case THUE_MSG_GOODBYE:
            fprintf(stderr, "thue bot: goodbye from the server (%s): %s\n", m.u.goodbye.reason,
                    m.u.goodbye.message);
            if (strcmp(m.u.goodbye.reason, "replaced") == 0) {
                status = 1;
                done = 1;
            }
            break;
        default:
            break;
        }
        thue_msg_clear(&m);
        if (done)
            break;
    }
    if (b.json)
        printf("{\"games\":%d,\"won\":%d,\"drawn\":%d,\"lost\":%d,\"points\":[%d,%d]}\n", b.played,
               b.won, b.drawn, b.lost, b.pts_for, b.pts_against);
    else
        printf("%d game%s: %d won, %d drawn, %d lost; points %d-%d\n", b.played,
               b.played == 1 ? "" : "s", b.won, b.drawn, b.lost, b.pts_for, b.pts_against);
    fflush(stdout);
    /* Let the last leave go out before closing. */
    thue_msg m;
    while (cli_net_next(b.net, 50, &m) > 0)
        thue_msg_clear(&m);
    cli_net_close(b.net);
    return status;
}
