/*
 * netcmd.c: helpers shared by the network commands (see netcmd.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "netcmd.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "games/thue/engine/match.h"

/* cli_hello's work; a `moved` answer (the session lives on another node) is -2 with its
 * path in moved_path (of size >= 65), or an error when moved_path is NULL. */
static int hello_once(cli_net *n, const char *name, const char *resume, int timeout_ms,
                      thue_msg *welcome, int *code, char *err, size_t errsize, char *moved_path)
{
    *code = 0;
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_HELLO;
    c.u.hello.protocol = cli_net_protocol(n); /* the subprotocol the server selected */
    if (resume) {
        c.u.hello.has_resume = 1;
        snprintf(c.u.hello.resume, sizeof c.u.hello.resume, "%s", resume);
    } else if (name) {
        c.u.hello.has_name = 1;
        snprintf(c.u.hello.name, sizeof c.u.hello.name, "%s", name);
    }
    long id = cli_net_send(n, &c);
    if (id < 0) {
        snprintf(err, errsize, "cannot send hello%s", name ? " (is the name valid?)" : "");
        return -1;
    }
    for (;;) {
        thue_msg m;
        int r = cli_net_next(n, timeout_ms, &m);
        if (r < 0) {
            snprintf(err, errsize, "%s", cli_net_error(n));
            return -1;
        }
        if (r == 0) {
            snprintf(err, errsize, "no answer to hello within %d ms", timeout_ms);
            return -1;
        }
        if (m.id.kind == THUE_ID_INT && m.id.num == id) {
            if (m.type == THUE_MSG_WELCOME) {
                cli_net_set_rate(n, m.u.welcome.rate, m.u.welcome.burst);
                cli_net_set_player(n, m.u.welcome.player.name);
                *welcome = m;
                return 0;
            }
            if (m.type == THUE_MSG_ERROR) {
                *code = m.u.error.code;
                snprintf(err, errsize, "the server refused hello: %s (%s)", m.u.error.message,
                         thue_proto_err_name(m.u.error.code));
                thue_msg_clear(&m);
                return -1;
            }
            if (m.type == THUE_MSG_MOVED) {
                snprintf(err, errsize, "the session is on node %s (%s)", m.u.moved.node,
                         m.u.moved.path);
                int followed = moved_path != NULL;
                if (followed)
                    snprintf(moved_path, 65, "%s", m.u.moved.path);
                thue_msg_clear(&m);
                return followed ? -2 : -1;
            }
        }
        thue_msg_clear(&m);
    }
}

int cli_hello(cli_net *n, const char *name, const char *resume, int timeout_ms, thue_msg *welcome,
              int *code, char *err, size_t errsize)
{
    return hello_once(n, name, resume, timeout_ms, welcome, code, err, errsize, NULL);
}

int cli_moved_url(const char *server, const char *path, char *out, size_t size)
{
    /* path: "/n/NAME/ws", NAME of a-z, 0-9 and '-' (PROTOCOL.md section 17) */
    size_t pl = strlen(path);
    if (pl < 7 || pl > 40 || strncmp(path, "/n/", 3) != 0 || strcmp(path + pl - 3, "/ws") != 0)
        return -1;
    for (size_t i = 3; i < pl - 3; i++)
        if (!((path[i] >= 'a' && path[i] <= 'z') || (path[i] >= '0' && path[i] <= '9') ||
              path[i] == '-'))
            return -1;
    /* server: ws://HOST[:PORT]/...: keep up to the path's slash */
    const char *host = strstr(server, "://");
    if (host == NULL)
        return -1;
    const char *slash = strchr(host + 3, '/');
    size_t hl = slash ? (size_t)(slash - server) : strlen(server);
    if (hl + pl + 1 > size)
        return -1;
    memcpy(out, server, hl);
    memcpy(out + hl, path, pl + 1);
    return 0;
}

int cli_hello_follow(cli_net **n, const char *server, const char *name, const char *resume,
                     int timeout_ms, thue_msg *welcome, int *code, char *err, size_t errsize)
{
    for (int hop = 0;; hop++) {
        char path[65];
        int r = hello_once(*n, name, resume, timeout_ms, welcome, code, err, errsize,
                           hop < 3 ? path : NULL);
        if (r != -2)
            return r;
        char url[512];
        if (cli_moved_url(server, path, url, sizeof url) != 0) {
            snprintf(err, errsize, "moved to '%s', which is no node's path", path);
            return -1;
        }
        cli_net_close(*n);
        *n = cli_net_open(url, timeout_ms, err, errsize);
        if (*n == NULL)
            return -1;
    }
}

/* Opens the node a `moved` names (on server's host) and says hello there: with the
 * message's resume token (reason match), else resume when not NULL, else as a guest
 * named name. The new connection, welcome filled; or NULL with err. */
static cli_net *follow_moved(const char *server, const thue_msg *moved, const char *name,
                             const char *resume, int timeout_ms, thue_msg *welcome, char *err,
                             size_t errsize)
{
    char url[512];
    if (cli_moved_url(server, moved->u.moved.path, url, sizeof url) != 0) {
        snprintf(err, errsize, "moved to '%s', which is no node's path", moved->u.moved.path);
        return NULL;
    }
    cli_net *n = cli_net_open(url, timeout_ms, err, errsize);
    if (n == NULL)
        return NULL;
    const char *token = moved->u.moved.has_resume ? moved->u.moved.resume : resume;
    int code;
    if (cli_hello_follow(&n, server, token ? NULL : name, token, timeout_ms, welcome, &code, err,
                         errsize) != 0) {
        if (n != NULL)
            cli_net_close(n);
        return NULL;
    }
    return n;
}

int cli_move(const char *cmd, cli_net **net, const char *server, const thue_msg *moved,
             const char *name, char *resume, int *grace_s)
{
    char err[300];
    thue_msg w;
    cli_net *n = follow_moved(server, moved, name, NULL, 10000, &w, err, sizeof err);
    if (n == NULL) {
        fprintf(stderr, "thue %s: cannot follow to node %s: %s\n", cmd, moved->u.moved.node, err);
        return -1;
    }
    cli_net_close(*net);
    *net = n;
    snprintf(resume, THUE_PROTO_RESUME_LEN + 1, "%s", w.u.welcome.resume);
    *grace_s = w.u.welcome.grace_s;
    thue_msg_clear(&w);
    return 0;
}

int cli_balanced_url(const char *server, char *out, size_t size)
{
    const char *host = strstr(server, "://");
    const char *path = host ? strchr(host + 3, '/') : NULL;
    char check[512];
    if (path == NULL || cli_moved_url(server, path, check, sizeof check) != 0)
        return -1; /* not a node's path */
    size_t hl = (size_t)(path - server);
    if (hl + 4 > size)
        return -1;
    memcpy(out, server, hl);
    memcpy(out + hl, "/ws", 4);
    return 0;
}

cli_net *cli_reconnect(const char *cmd, const char *server, char *resume, int limit_s,
                       thue_msg *welcome, int *resumed)
{
    int64_t give_up = thue_now_ns() + (int64_t)(limit_s > 0 ? limit_s : 60) * 1000000000LL;
    int pause_ms = 250;
    /* A node's own path (/n/NODE/ws) leads to that node only: when it is gone, every
     * other attempt goes through the balancer's /ws, which finds a live node. */
    char balanced[512];
    int has_balanced = cli_balanced_url(server, balanced, sizeof balanced) == 0;
    for (int attempt = 0; thue_now_ns() < give_up; attempt++) {
        struct timespec ts = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        pause_ms = pause_ms * 2 > 5000 ? 5000 : pause_ms * 2;
        char err[300];
        const char *url = has_balanced && attempt % 2 == 1 ? balanced : server;
        cli_net *n = cli_net_open(url, 5000, err, sizeof err);
        if (n == NULL) {
            fprintf(stderr, "thue %s: reconnecting: %s\n", cmd, err);
            continue;
        }
        int code;
        /* Through a balancer the session may live on another node: moved is followed. */
        if (cli_hello_follow(&n, server, NULL, resume, 5000, welcome, &code, err, sizeof err) == 0) {
            snprintf(resume, THUE_PROTO_RESUME_LEN + 1, "%s", welcome->u.welcome.resume);
            *resumed = 1;
            return n;
        }
        if (code == THUE_PERR_RESUME) {
            *resumed = 0;
            return n;
        }
        fprintf(stderr, "thue %s: reconnecting: %s\n", cmd, err);
        if (n != NULL)
            cli_net_close(n);
    }
    return NULL;
}

void cli_net_options(const char *cmd, const char *protocol, const char *check_sync)
{
    int version = 2;
    if (protocol != NULL) {
        if (strcmp(protocol, "1") == 0)
            version = 1;
        else if (strcmp(protocol, "2") != 0)
            cli_usage_error(cmd,
                            "--protocol must be 1 (thue.v1) or 2 (thue.v2, falling back to "
                            "thue.v1), not '%s'",
                            protocol);
    }
    int every = cli_int(cmd, "check-sync", check_sync, 1, 1000000, 0);
    cli_net_setup(cmd, version, every);
}

void cli_queue_arg(const char *cmd, const char *text, thue_variant *variant, int *k)
{
    const char *comma = strchr(text, ',');
    if (comma == NULL)
        cli_usage_error(cmd, "--queue takes VARIANT,K (for example square,3), not '%s'", text);
    char v[16];
    size_t len = (size_t)(comma - text);
    if (len >= sizeof v)
        cli_usage_error(cmd, "--queue: unknown variant in '%s'", text);
    memcpy(v, text, len);
    v[len] = '\0';
    if (strcmp(v, "square") != 0 && strcmp(v, "overlap") != 0)
        cli_usage_error(cmd, "--queue: the variant is square or overlap, not '%s'", v);
    *variant = cli_variant(cmd, v);
    *k = cli_int(cmd, "queue K", comma + 1, 2, 64, 3);
}

const char *cli_seat_name(const thue_msg *rs, int seat)
{
    if (seat < 0 || seat > 1 || !rs->u.room_state.seats[seat].present)
        return "-";
    return rs->u.room_state.seats[seat].player.name;
}

const char *cli_reason_name(thue_end_reason r)
{
    const char *s = thue_end_reason_name(r);
    return s ? s : "?";
}

void cli_print_state_line(FILE *f, const thue_msg *rs)
{
#define st (&rs->u.room_state)
    fprintf(f, "v%lld %s", (long long)st->version, thue_room_status_name(st->status));
    if (!st->has_match) {
        fprintf(f, " seats %s, %s\n", cli_seat_name(rs, 0), cli_seat_name(rs, 1));
        return;
    }
    const thue_match_info *m = &st->match;
    fprintf(f, " match %d round %d builder %s painter %s", m->number, m->round + 1,
            cli_seat_name(rs, m->builder), cli_seat_name(rs, m->painter));
    if (m->to_move >= 0)
        fprintf(f, " to_move %s (%s)", cli_seat_name(rs, m->to_move),
                m->step == THUE_STEP_PLACE ? "place" : "paint");
    /* The word with its gap indices: |0| 1 |1| 2 |2| ... */
    fprintf(f, " word");
    for (int i = 0; i <= m->word_len; i++) {
        fprintf(f, " |%d|", i);
        if (i < m->word_len)
            fprintf(f, " %d", m->word[i]);
    }
    if (m->placed >= 0)
        fprintf(f, " placed %d", m->placed);
    fprintf(f, " points %d-%d", m->points[0], m->points[1]);
    if (m->has_clocks)
        fprintf(f, " clocks %.1fs %.1fs", m->clocks[0] / 1000.0, m->clocks[1] / 1000.0);
    if (m->last_move.present)
        fprintf(f, " last %s %s %d (%.1f ms)", cli_seat_name(rs, m->last_move.seat),
                m->last_move.is_paint ? "paint" : "place", m->last_move.value,
                m->last_move.think_ms);
    if (m->has_result) {
        if (m->winner < 0)
            fprintf(f, " result draw (%s)", cli_reason_name(m->reason));
        else
            fprintf(f, " result %s wins (%s)", cli_seat_name(rs, m->winner),
                    cli_reason_name(m->reason));
    }
    fputc('\n', f);
#undef st
}
