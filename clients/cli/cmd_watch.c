/*
 * cmd_watch.c: `thue watch ROOM`: spectates a room on a server and prints every state as
 * one line until the match ends (or the user interrupts it). A lost connection is
 * opened again and the room watched again, from its latest state.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "netcmd.h"

static const char usage[] =
    "Usage: thue watch ROOM [--server URL] [--invite CODE] [--protocol 1|2]\n"
    "\n"
    "Watches ROOM on a thue-server: prints each room state as a line (version, status,\n"
    "round, roles, the word with its gap indices |i|, points, clocks, the last move with\n"
    "its think time), then the result, and exits when the match ends. A lost connection\n"
    "is opened again (for up to a minute) and the room watched again. Through the\n"
    "balancer of several nodes, a room another node holds (`moved`) is watched there.\n"
    "\n"
    "  --server URL    the server's WebSocket endpoint (default " CLI_DEFAULT_SERVER ")\n"
    "  --invite CODE   the invite code of a private room\n"
    "  --protocol P    the newest subprotocol to offer: 2 (default) offers thue.v2 and\n"
    "                  thue.v1 and speaks the one the server selects; 1 offers thue.v1\n"
    "\n"
    "Exit status: 0 the match ended, 1 cannot connect, reconnect or watch the room,\n"
    "2 bad arguments.\n";

static void print_end(const thue_msg *m)
{
    int w = m->u.match_end.winner;
    if (w < 0)
        printf("result: draw (%s)", cli_reason_name(m->u.match_end.reason));
    else
        printf("result: %s wins (%s)", m->u.match_end.players[w].name,
               cli_reason_name(m->u.match_end.reason));
    printf(", points %s %d - %d %s\n", m->u.match_end.players[0].name, m->u.match_end.points[0],
           m->u.match_end.points[1], m->u.match_end.players[1].name);
}

int cmd_watch(int argc, char **argv)
{
    const char *server = NULL, *invite = NULL, *protocol = NULL, *check_sync = NULL;
    const cli_opt opts[] = {
        {"server", 1, &server, NULL},
        {"invite", 1, &invite, NULL},
        {"protocol", 1, &protocol, NULL},
        {"check-sync", 1, &check_sync, NULL}, /* debugging: not in --help (net.h) */
        {NULL, 0, NULL, NULL},
    };
    const char *pos[1];
    int np;
    cli_parse("watch", usage, argc, argv, opts, pos, 1, 1, &np);
    const char *room = pos[0];
    size_t rl = strlen(room);
    if (rl == 0 || rl > THUE_PROTO_KEY_MAX ||
        strspn(room, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
                     "nopqrstuvwxyz0123456789_-") != rl)
        cli_usage_error("watch", "'%s' is not a room id (1..32 of A-Z a-z 0-9 _ -)", room);
    if (invite && (strlen(invite) == 0 || strlen(invite) > THUE_PROTO_KEY_MAX))
        cli_usage_error("watch", "--invite: 1..32 characters");
    if (server == NULL)
        server = CLI_DEFAULT_SERVER;
    if (!cli_net_url_ok(server))
        cli_usage_error("watch", "--server: expected ws://HOST[:PORT]/PATH, not '%s'", server);
    cli_net_options("watch", protocol, check_sync);

    char err[300];
    cli_net *net = cli_net_open(server, 10000, err, sizeof err);
    if (net == NULL) {
        fprintf(stderr, "thue watch: %s\n", err);
        return 1;
    }
    thue_msg w;
    int code;
    if (cli_hello(net, NULL, NULL, 10000, &w, &code, err, sizeof err) != 0) {
        fprintf(stderr, "thue watch: %s\n", err);
        cli_net_close(net);
        return 1;
    }
    char resume[THUE_PROTO_RESUME_LEN + 1];
    snprintf(resume, sizeof resume, "%s", w.u.welcome.resume);
    int grace_s = w.u.welcome.grace_s;
    thue_msg_clear(&w);
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_SPECTATE;
    snprintf(c.u.room.room, sizeof c.u.room.room, "%s", room);
    if (invite) {
        c.u.room.has_invite = 1;
        snprintf(c.u.room.invite, sizeof c.u.room.invite, "%s", invite);
    }
    long id = cli_net_send(net, &c);

    int status = -1;
    long long last = 0;
    int64_t finished_at = 0; /* when a finished state came without match_end yet */
    while (status < 0) {
        thue_msg m;
        int r = cli_net_next(net, 500, &m);
        if (r < 0) {
            fprintf(stderr, "thue watch: %s; reconnecting\n", cli_net_error(net));
            cli_net_close(net);
            int resumed;
            net = cli_reconnect("watch", server, resume, grace_s, &w, &resumed);
            if (net != NULL && !resumed &&
                cli_hello(net, NULL, NULL, 10000, &w, &code, err, sizeof err) != 0) {
                fprintf(stderr, "thue watch: %s\n", err);
                cli_net_close(net);
                net = NULL;
            }
            if (net == NULL) {
                fprintf(stderr, "thue watch: cannot reconnect\n");
                status = 1;
                break;
            }
            snprintf(resume, sizeof resume, "%s", w.u.welcome.resume);
            thue_msg_clear(&w);
            fprintf(stderr, "thue watch: reconnected\n");
            /* Watching again is harmless when the resumed session still watches. */
            c.id.kind = THUE_ID_NONE;
            id = cli_net_send(net, &c);
            continue;
        }
        if (r == 0) {
            /* A room that was already over sends no match_end: stop after a short wait. */
            if (finished_at && thue_now_ns() - finished_at > 1500000000LL)
                status = 0;
            continue;
        }
        if (m.type == THUE_MSG_MOVED && m.id.kind == THUE_ID_INT && m.id.num == id) {
            /* The room lives on another node (a balancer in front of several): watch it
             * there, as a new guest of that node. */
            if (cli_move("watch", &net, server, &m, NULL, resume, &grace_s) != 0) {
                status = 1;
            } else {
                c.id.kind = THUE_ID_NONE;
                id = cli_net_send(net, &c);
            }
        } else if (m.type == THUE_MSG_ERROR && m.id.kind == THUE_ID_INT && m.id.num == id) {
            fprintf(stderr, "thue watch: cannot watch %s: %s (%s)\n", room, m.u.error.message,
                    thue_proto_err_name(m.u.error.code));
            status = 1;
        } else if (m.type == THUE_MSG_ROOM_STATE && strcmp(m.u.room_state.room, room) == 0 &&
                   m.u.room_state.version > last) {
            last = m.u.room_state.version;
            cli_print_state_line(stdout, &m);
            if (m.u.room_state.status == THUE_STATUS_FINISHED && finished_at == 0)
                finished_at = thue_now_ns();
            else if (m.u.room_state.status == THUE_STATUS_PLAYING)
                finished_at = 0;
        } else if (m.type == THUE_MSG_MATCH_END && strcmp(m.u.match_end.room, room) == 0) {
            print_end(&m);
            status = 0;
        } else if (m.type == THUE_MSG_GOODBYE) {
            fprintf(stderr, "thue watch: goodbye from the server (%s): %s\n", m.u.goodbye.reason,
                    m.u.goodbye.message);
            status = 1;
        }
        fflush(stdout);
        thue_msg_clear(&m);
    }
    cli_net_close(net);
    return status;
}
