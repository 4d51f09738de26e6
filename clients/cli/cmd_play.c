/*
 * cmd_play.c: `thue play`: one match on a server from the console, in the layout of
 * `thue local`: the word with its gap indices, a prompt for the builder's position or
 * the painter's symbol, the opponent's moves with their think times, and the result.
 *
 * One loop serves both the connection and stdin: while the prompt waits, the server's
 * messages (pings, the opponent resigning, a clock falling) are still handled. Lines are
 * taken from stdin only when it is the player's step, so a pipe of moves drives it
 * (tests do). A lost connection is taken back with the resume token while the server
 * keeps the seat.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "netcmd.h"

static const char usage[] =
    "Usage: thue play [--server URL] [--name N] [--protocol 1|2]\n"
    "                 [--queue V,K | --room ROOM [--invite CODE] | --create k=K,variant=V]\n"
    "\n"
    "Plays one match on a thue-server from the console. The word is shown with its gap\n"
    "indices; as the builder you type a position (0..n), as the painter a symbol (0..k-1).\n"
    "'resign' resigns; 'quit' (or the end of input) resigns and exits. Lines are read one\n"
    "at a time, so moves can come from a pipe. A lost connection is resumed while the\n"
    "server keeps the seat (its grace period, 60 s by default). Through the balancer of\n"
    "several nodes, `moved` is followed: to the node that holds --room, or to the node\n"
    "of a quick match.\n"
    "\n"
    "  --server URL        the server's WebSocket endpoint (default " CLI_DEFAULT_SERVER ")\n"
    "  --name N            your player name (default: one the server makes up)\n"
    "  --queue V,K         quick match in the queue of variant V and K symbols (default\n"
    "                      square,3)\n"
    "  --room ROOM         join the room ROOM (--invite CODE for a private one)\n"
    "  --create OPTS       create a room and wait for an opponent; OPTS is a comma list of\n"
    "                      k=K, variant=V, limit=L (defaults 3, square, 100)\n"
    "  --protocol P        the newest subprotocol to offer: 2 (default) offers thue.v2 and\n"
    "                      thue.v1 and speaks the one the server selects; 1 offers thue.v1\n"
    "\n"
    "Exit status: 0 the match ended, 1 cannot connect, the session was lost, or the input\n"
    "ended (or 'quit'), 2 bad arguments.\n";

/* Lines of stdin, read without blocking the loop. */
typedef struct linebuf {
    char buf[1024];
    size_t len;
    int eof;
} linebuf;

typedef struct play {
    cli_net *net;
    const char *server;
    char resume[THUE_PROTO_RESUME_LEN + 1];
    int grace_s;
    int queue_mode; /* waiting in the quick-match queue until a room is known */
    thue_cmd queue; /* the queue_join, to send again after a resume */
    linebuf in;
    int awaiting;            /* the prompt is shown and waits for a line */
    long long prompt_key;    /* which step it is for (match, round, step, length) */
    long long sent_key;      /* the step our last move was sent in (-1: none pending) */
    char room[THUE_PROTO_KEY_MAX + 1];
    int you;
    long long last_version;
    int last_round;
    long move_id;   /* the id of our last move, to re-prompt on its error */
    thue_cmd move;  /* that move, to send again when it was rate limited */
    thue_msg state; /* the latest state of our room (owned), type set when present */
    int has_state;
    int announced; /* the match's start was shown */
    const char *name, *invite; /* --name and --invite: a room on another node is joined again */
} play;

static void parse_create(const char *text, int *k, thue_variant *v, int *limit)
{
    char buf[128];
    if (strlen(text) >= sizeof buf)
        cli_usage_error("play", "--create: too long");
    snprintf(buf, sizeof buf, "%s", text);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            cli_usage_error("play", "--create: expected NAME=VALUE, not '%s'", tok);
        *eq = '\0';
        if (strcmp(tok, "k") == 0)
            *k = cli_int("play", "create k", eq + 1, 2, 64, 3);
        else if (strcmp(tok, "variant") == 0) {
            if (strcmp(eq + 1, "square") != 0 && strcmp(eq + 1, "overlap") != 0)
                cli_usage_error("play", "--create: variant is square or overlap");
            *v = cli_variant("play", eq + 1);
        } else if (strcmp(tok, "limit") == 0)
            *limit = cli_int("play", "create limit", eq + 1, 1, 10000, 100);
        else
            cli_usage_error("play", "--create: unknown option '%s' (k, variant, limit)", tok);
    }
}

static long send_room_cmd(play *p, thue_cmd_type t, const char *invite)
{
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = t;
    snprintf(c.u.room.room, sizeof c.u.room.room, "%s", p->room);
    if (invite) {
        c.u.room.has_invite = 1;
        snprintf(c.u.room.invite, sizeof c.u.room.invite, "%s", invite);
    }
    return cli_net_send(p->net, &c);
}

/*
 * The next line of stdin, waiting at most timeout_ms for more input: 1 and the line in
 * out (without its end), 0 when no whole line came yet, -1 at the end of input. A line
 * longer than the buffer is cut into pieces.
 */
static int next_line(linebuf *lb, char *out, size_t size, int timeout_ms)
{
    for (;;) {
        char *nl = memchr(lb->buf, '\n', lb->len);
        if (nl != NULL || (lb->eof && lb->len > 0) || lb->len == sizeof lb->buf) {
            size_t n = nl ? (size_t)(nl - lb->buf) : lb->len;
            size_t keep = n < size - 1 ? n : size - 1;
            memcpy(out, lb->buf, keep);
            out[keep] = '\0';
            out[strcspn(out, "\r")] = '\0';
            size_t used = nl ? n + 1 : n;
            memmove(lb->buf, lb->buf + used, lb->len - used);
            lb->len -= used;
            return 1;
        }
        if (lb->eof)
            return -1;
        struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
        if (poll(&pfd, 1, timeout_ms) <= 0)
            return 0;
        ssize_t got = read(STDIN_FILENO, lb->buf + lb->len, sizeof lb->buf - lb->len);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            return 0;
        if (got <= 0)
            lb->eof = 1;
        else
            lb->len += (size_t)got;
        timeout_ms = 0;
    }
}

/* Shows the board and the prompt for our step in p->state. */
static void show_prompt(play *p, int board)
{
    const thue_match_info *m = &p->state.u.room_state.match;
    if (board) {
        putchar('\n');
        print_word_board(stdout, m->word, m->word_len, 0, 0);
    }
    if (m->step == THUE_STEP_PLACE)
        printf("You build. Position 0..%d (or resign): ", m->word_len);
    else
        printf("You paint at position %d. Symbol 0..%d (or resign): ", m->placed,
               p->state.u.room_state.options.k - 1);
    fflush(stdout);
    p->awaiting = 1;
}

/* Acts on a line typed at the prompt. 0, or 1 when the player quit. */
static int take_line(play *p, const char *line)
{
    const thue_match_info *m = &p->state.u.room_state.match;
    int placing = m->step == THUE_STEP_PLACE;
    int k = p->state.u.room_state.options.k;
    const char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    if (strcmp(s, "resign") == 0 || strcmp(s, "quit") == 0) {
        p->awaiting = 0;
        send_room_cmd(p, THUE_CMD_RESIGN, NULL);
        return strcmp(s, "quit") == 0;
    }
    char *end;
    long v = strtol(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (end == s || *end != '\0' || v < 0 || v > (placing ? m->word_len : k - 1)) {
        printf("Please type a number from 0 to %d.\n", placing ? m->word_len : k - 1);
        show_prompt(p, 0);
        return 0;
    }
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = placing ? THUE_CMD_PLACE : THUE_CMD_PAINT;
    snprintf(c.u.move.room, sizeof c.u.move.room, "%s", p->room);
    c.u.move.value = (int)v;
    p->move = c;
    p->awaiting = 0;
    p->sent_key = p->prompt_key;
    p->move_id = cli_net_send(p->net, &c);
    return 0;
}

/* Shows the prompt when the new state is our step (once per step), or takes it away. */
static void update_prompt(play *p)
{
    const thue_msg *st = &p->state;
    const thue_match_info *mi = &st->u.room_state.match;
    int ours = st->u.room_state.has_match && st->u.room_state.status == THUE_STATUS_PLAYING &&
               p->you >= 0 && mi->to_move == p->you;
    if (!ours) {
        p->awaiting = 0;
        return;
    }
    long long key = (((long long)mi->number * 2 + mi->round) * 2 + (mi->step == THUE_STEP_PAINT)) *
                        100000 + mi->word_len;
    if ((p->awaiting && key == p->prompt_key) || key == p->sent_key)
        return; /* the same step (a chat, a spectator), or our move is on its way */
    p->prompt_key = key;
    show_prompt(p, 1);
}

/* Tells what changed since the last state we showed. */
static void narrate(play *p, const thue_msg *st)
{
    const thue_match_info *m = &st->u.room_state.match;
    if (!st->u.room_state.has_match)
        return;
    const thue_last_move *lm = &m->last_move;
    if (lm->present && lm->seat != p->you) {
        if (lm->is_paint)
            printf("%s (painter) paints %d  [%.1f ms]\n", cli_seat_name(st, lm->seat), lm->value,
                   lm->think_ms);
        else
            printf("%s (builder) plays position %d  [%.1f ms]\n", cli_seat_name(st, lm->seat),
                   lm->value, lm->think_ms);
    }
    /* A round that ended: show its final word and the repetition. */
    for (int r = 0; r < 2; r++) {
        const thue_round_info *ri = &m->rounds[r];
        int ended = ri->end == THUE_ROUND_REPETITION || ri->end == THUE_ROUND_LIMIT;
        if (!ended || r < p->last_round)
            continue;
        if (r == m->round && m->step != THUE_STEP_OVER && ri->end == THUE_ROUND_PLAYING)
            continue;
        int lo = 0, hi = 0;
        if (ri->has_repetition) {
            lo = ri->repetition.start;
            hi = lo + ri->repetition.length;
        }
        printf("\nRound %d over (%s): %s scored %d point%s.\n", r + 1,
               ri->end == THUE_ROUND_REPETITION ? "repetition" : "length limit",
               cli_seat_name(st, 1 - ri->builder), ri->points, ri->points == 1 ? "" : "s");
        if (ri->word)
            print_word_board(stdout, ri->word, ri->word_len, lo, hi);
        p->last_round = r + 1;
    }
}

/* What the setup asked for: its id, and whether it joins a room (then ready follows ok). */
typedef struct setup {
    long id;
    int joins;
} setup;

/*
 * Several nodes (PROTOCOL.md section 17): `moved` answers the join of a room another node
 * holds (reason room: join it there, a new session there) or comes when the queue made
 * the match on another node (reason match: a session there is seated, its resume token
 * given). The connection moves to that node. 0, or -1 when it cannot.
 */
static int follow_moved(play *p, setup *su, const thue_msg *m)
{
    int match = strcmp(m->u.moved.reason, "match") == 0 && m->u.moved.has_resume;
    int room = strcmp(m->u.moved.reason, "room") == 0 && m->id.kind == THUE_ID_INT &&
               m->id.num == su->id;
    if (!match && !room) {
        printf("(server: %s)\n", m->u.moved.message);
        return 0;
    }
    if (cli_move("play", &p->net, p->server, m, p->name, p->resume, &p->grace_s) != 0)
        return -1;
    p->last_version = 0;
    p->sent_key = -1;
    printf("The %s is on node %s: moved there.\n", match ? "match" : "room", m->u.moved.node);
    if (match) {
        if (m->u.moved.has_room)
            snprintf(p->room, sizeof p->room, "%s", m->u.moved.room);
        p->queue_mode = 0;
    } else {
        su->id = send_room_cmd(p, THUE_CMD_JOIN, p->invite); /* ready follows its ok */
    }
    return 0;
}

/* Handles one message. -1 to go on, or the exit status. */
static int on_msg(play *p, setup *su, thue_msg *m)
{
    int mine = m->id.kind == THUE_ID_INT;
    switch (m->type) {
    case THUE_MSG_MOVED:
        if (follow_moved(p, su, m) != 0)
            return 1;
        break;
    case THUE_MSG_ERROR:
        if (mine && m->id.num == su->id) {
            fprintf(stderr, "thue play: %s (%s)\n", m->u.error.message,
                    thue_proto_err_name(m->u.error.code));
            return 1;
        }
        if (mine && m->id.num == p->move_id && m->u.error.code == THUE_PERR_RATE) {
            p->move.id.kind = THUE_ID_NONE; /* the same move again, with a new id */
            p->move_id = cli_net_send(p->net, &p->move);
        } else if (mine && m->id.num == p->move_id && p->has_state) {
            printf("The server refused the move: %s\n", m->u.error.message);
            p->sent_key = -1;
            show_prompt(p, 0);
        } else if (m->u.error.code != THUE_PERR_NOT_RUNNING) {
            printf("(server: %s)\n", m->u.error.message);
        }
        break;
    case THUE_MSG_OK:
        if (mine && m->id.num == su->id && su->joins)
            send_room_cmd(p, THUE_CMD_READY, NULL);
        break;
    case THUE_MSG_ROOM_CREATED:
        snprintf(p->room, sizeof p->room, "%s", m->u.room_created.room);
        printf("Created room %s%s%s; waiting for an opponent.\n", p->room,
               m->u.room_created.has_invite ? ", invite " : "",
               m->u.room_created.has_invite ? m->u.room_created.invite : "");
        send_room_cmd(p, THUE_CMD_READY, NULL);
        break;
    case THUE_MSG_QUEUE_FAILED: /* out of the queue: the server could not make the room */
        fprintf(stderr, "thue play: %s (%s)\n", m->u.queue_failed.message,
                thue_proto_err_name(m->u.queue_failed.code));
        return 1;
    case THUE_MSG_MATCH_FOUND:
        snprintf(p->room, sizeof p->room, "%s", m->u.match_found.room);
        p->queue_mode = 0;
        printf("Matched: room %s.\n", p->room);
        break;
    case THUE_MSG_ROOM_STATE:
        if (p->room[0] == '\0' && p->queue_mode && m->u.room_state.you >= 0) {
            snprintf(p->room, sizeof p->room, "%s", m->u.room_state.room); /* before match_found */
            p->queue_mode = 0;
        }
        if (strcmp(m->u.room_state.room, p->room) != 0 || m->u.room_state.version <= p->last_version)
            break;
        p->last_version = m->u.room_state.version;
        if (p->has_state)
            thue_msg_clear(&p->state);
        p->state = *m;
        p->has_state = 1;
        memset(m, 0, sizeof *m); /* p->state owns it now */
        p->you = p->state.u.room_state.you;
        if (p->state.u.room_state.has_match) {
            const thue_match_info *mi = &p->state.u.room_state.match;
            if (!p->announced) {
                p->announced = 1;
                printf("The match: %s builds first, %s paints first. k=%d, %s.\n",
                       cli_seat_name(&p->state, mi->rounds[0].builder),
                       cli_seat_name(&p->state, 1 - mi->rounds[0].builder),
                       p->state.u.room_state.options.k,
                       thue_variant_name(p->state.u.room_state.options.variant));
            }
            if (p->awaiting && mi->to_move != p->you)
                putchar('\n'); /* the prompt was left unanswered */
            narrate(p, &p->state);
            update_prompt(p);
        }
        break;
    case THUE_MSG_MATCH_END:
        if (strcmp(m->u.match_end.room, p->room) != 0)
            break;
        if (p->awaiting)
            putchar('\n');
        p->awaiting = 0;
        if (m->u.match_end.winner < 0)
            printf("\nThe match is a draw (%s)", cli_reason_name(m->u.match_end.reason));
        else
            printf("\n%s wins the match (%s)",
                   m->u.match_end.winner == p->you ? "You"
                                                   : m->u.match_end.players[m->u.match_end.winner].name,
                   cli_reason_name(m->u.match_end.reason));
        printf(": points %s %d - %d %s.\n", m->u.match_end.players[0].name, m->u.match_end.points[0],
               m->u.match_end.points[1], m->u.match_end.players[1].name);
        return 0;
    case THUE_MSG_GOODBYE:
        fprintf(stderr, "thue play: goodbye from the server: %s\n", m->u.goodbye.message);
        return 1;
    default:
        break;
    }
    return -1;
}

/* Takes the session back after a lost connection. 0, or -1 when it is gone. */
static int reconnect(play *p)
{
    fprintf(stderr, "thue play: %s; reconnecting\n", cli_net_error(p->net));
    cli_net_close(p->net);
    p->awaiting = 0;
    thue_msg w;
    int resumed;
    p->net = cli_reconnect("play", p->server, p->resume, p->grace_s, &w, &resumed);
    if (p->net == NULL)
        return -1;
    if (!resumed) {
        fprintf(stderr, "thue play: the server no longer keeps the seat (its grace period ended)\n");
        return -1;
    }
    int seated = w.u.welcome.nrooms > 0;
    thue_msg_clear(&w);
    fprintf(stderr, "thue play: reconnected\n");
    p->last_version = 0; /* the room's state comes again */
    p->sent_key = -1;
    if (!seated && p->queue_mode) {
        p->queue.id.kind = THUE_ID_NONE; /* the queue forgets a lost connection */
        cli_net_send(p->net, &p->queue);
    }
    return 0;
}

int cmd_play(int argc, char **argv)
{
    const char *server = NULL, *name = NULL, *room = NULL, *invite = NULL, *create = NULL,
               *queue = NULL, *protocol = NULL, *check_sync = NULL;
    const cli_opt opts[] = {
        {"server", 1, &server, NULL},
        {"name", 1, &name, NULL},
        {"room", 1, &room, NULL},
        {"invite", 1, &invite, NULL},
        {"create", 1, &create, NULL},
        {"queue", 1, &queue, NULL},
        {"protocol", 1, &protocol, NULL},
        {"check-sync", 1, &check_sync, NULL}, /* debugging: not in --help (net.h) */
        {NULL, 0, NULL, NULL},
    };
    const char *pos[1];
    int np;
    cli_parse("play", usage, argc, argv, opts, pos, 0, 0, &np);
    if ((room != NULL) + (create != NULL) + (queue != NULL) > 1)
        cli_usage_error("play", "give at most one of --room, --create and --queue");
    if (server == NULL)
        server = CLI_DEFAULT_SERVER;
    if (!cli_net_url_ok(server))
        cli_usage_error("play", "--server: expected ws://HOST[:PORT]/PATH, not '%s'", server);
    if (name && (strlen(name) == 0 || strlen(name) > THUE_PROTO_NAME_MAX * 4))
        cli_usage_error("play", "--name: 1..24 characters");
    if (room) {
        size_t rl = strlen(room);
        if (rl == 0 || rl > THUE_PROTO_KEY_MAX ||
            strspn(room, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != rl)
            cli_usage_error("play", "'%s' is not a room id", room);
    }
    if (invite && (room == NULL || strlen(invite) == 0 || strlen(invite) > THUE_PROTO_KEY_MAX))
        cli_usage_error("play", "--invite: 1..32 characters, with --room");
    thue_variant variant = THUE_SQUARE;
    int k = 3, limit = 100;
    if (queue)
        cli_queue_arg("play", queue, &variant, &k);
    if (create)
        parse_create(create, &k, &variant, &limit);
    cli_net_options("play", protocol, check_sync);

    static play p; /* zeroed; one per process */
    char err[300];
    p.server = server;
    p.name = name;
    p.invite = invite;
    p.sent_key = -1;
    p.net = cli_net_open(server, 10000, err, sizeof err);
    if (p.net == NULL) {
        fprintf(stderr, "thue play: %s\n", err);
        return 1;
    }
    thue_msg w;
    int code;
    if (cli_hello(p.net, name, NULL, 10000, &w, &code, err, sizeof err) != 0) {
        fprintf(stderr, "thue play: %s\n", err);
        cli_net_close(p.net);
        return 1;
    }
    printf("Connected to %s as %s.\n", server, w.u.welcome.player.name);
    snprintf(p.resume, sizeof p.resume, "%s", w.u.welcome.resume);
    p.grace_s = w.u.welcome.grace_s;
    thue_msg_clear(&w);

    setup su = {0, room != NULL};
    thue_cmd c;
    memset(&c, 0, sizeof c);
    if (room) {
        snprintf(p.room, sizeof p.room, "%s", room);
        su.id = send_room_cmd(&p, THUE_CMD_JOIN, invite);
    } else if (create) {
        c.type = THUE_CMD_CREATE_ROOM;
        c.u.create_room.variant = variant;
        c.u.create_room.k = k;
        c.u.create_room.limit = limit;
        c.u.create_room.seat = 1;
        su.id = cli_net_send(p.net, &c);
    } else {
        c.type = THUE_CMD_QUEUE_JOIN;
        c.u.queue_join.variant = variant;
        c.u.queue_join.k = k;
        c.u.queue_join.limit = 100;
        p.queue = c;
        p.queue_mode = 1;
        su.id = cli_net_send(p.net, &c);
        printf("Waiting for an opponent in the %s k=%d queue...\n",
               variant == THUE_SQUARE ? "square" : "overlap", k);
    }
    fflush(stdout);

    int status = -1;
    while (status < 0) {
        thue_msg m;
        /* While the prompt waits, poll the connection and stdin in turn. */
        int r = cli_net_next(p.net, p.awaiting ? 0 : 1000, &m);
        if (r < 0) {
            if (reconnect(&p) != 0) {
                fprintf(stderr, "thue play: the session is lost\n");
                status = 1;
            }
            continue;
        }
        if (r > 0) {
            status = on_msg(&p, &su, &m);
            thue_msg_clear(&m);
            fflush(stdout);
            continue;
        }
        if (!p.awaiting)
            continue;
        char line[256];
        int lr = next_line(&p.in, line, sizeof line, 100);
        if (lr < 0) {
            printf("\nThe input ended: resigning.\n");
            send_room_cmd(&p, THUE_CMD_RESIGN, NULL);
            status = 1;
        } else if (lr > 0 && take_line(&p, line)) {
            status = 1;
        }
        fflush(stdout);
    }
    if (p.has_state)
        thue_msg_clear(&p.state);
    /* Let a last resign or leave go out. */
    if (status == 0)
        send_room_cmd(&p, THUE_CMD_LEAVE, NULL);
    thue_msg m;
    while (p.net && cli_net_next(p.net, 100, &m) > 0)
        thue_msg_clear(&m);
    cli_net_close(p.net);
    return status;
}
