/*
 * netcmd.h: what the network commands (bot, watch, play) share on top of net.h: the
 * hello/welcome exchange, parsing --queue and --create values, and printing states.
 */
#ifndef THUE_CLI_NETCMD_H
#define THUE_CLI_NETCMD_H

#include <stdio.h>

#include "net.h"

/*
 * Sends hello (with name, or resume when not NULL, or neither) and waits up to
 * timeout_ms for its reply. 0 and *welcome filled (release with thue_msg_clear); or -1
 * with a sentence in err (and *code the protocol error code when the server refused, 0
 * when the connection failed or timed out). Other messages before the reply are dropped.
 */
int cli_hello(cli_net *n, const char *name, const char *resume, int timeout_ms, thue_msg *welcome,
              int *code, char *err, size_t errsize);

/*
 * Several nodes (PROTOCOL.md section 17). cli_moved_url: the address of a `moved`'s path
 * ("/n/NODE/ws") on server's host and port; 0, or -1 when path is no node's path or the
 * address does not fit out. cli_hello_follow: cli_hello on *n, following a `moved`
 * answer (the resume token's session lives on another node: the connection is replaced
 * by one to that node, *n changes, at most 3 hops); *n is NULL when reopening failed.
 */
int cli_moved_url(const char *server, const char *path, char *out, size_t size);
int cli_hello_follow(cli_net **n, const char *server, const char *name, const char *resume,
                     int timeout_ms, thue_msg *welcome, int *code, char *err, size_t errsize);
/* A command's move to the node a `moved` names: hello there with the message's resume
 * token (reason match: a seat there), else as a new guest named name. *net becomes the
 * new connection (the old one closed), resume (THUE_PROTO_RESUME_LEN + 1 bytes) and
 * *grace_s the new session's; 0. -1, with "thue CMD: cannot follow ..." on stderr, when
 * it cannot (*net unchanged). */
int cli_move(const char *cmd, cli_net **net, const char *server, const thue_msg *moved,
             const char *name, char *resume, int *grace_s);

/*
 * Takes a session back after its connection was lost: opens a new connection to server,
 * pausing 250 ms, then twice as long each time up to 5 s, for at most limit_s seconds
 * (the server's grace period), and says hello with the resume token, which is replaced
 * by the new one. Returns the new connection with *resumed 1 and *welcome filled
 * (release with thue_msg_clear); or with *resumed 0 and no hello done when the server
 * no longer knows the token (the grace period ended: the seats are gone); or NULL when
 * it gave up. Each failed attempt is told on stderr as "thue CMD: ...". A node's own
 * path (cli_balanced_url) alternates with the balancer's /ws.
 */
cli_net *cli_reconnect(const char *cmd, const char *server, char *resume, int limit_s,
                       thue_msg *welcome, int *resumed);
/* A node's own path through a balancer (ws://HOST/n/NODE/ws): the balancer's own address
 * (ws://HOST/ws) into out, 0; -1 for any other address. cli_reconnect tries it every
 * other time, so that a client of a node that died finds another. */
int cli_balanced_url(const char *server, char *out, size_t size);

/* The options every network command shares: --protocol 1|2 (NULL: 2) and the hidden
 * debugging option --check-sync N (NULL: off; N moves between checks, 1..1000000). Bad
 * values are usage errors; good ones go to cli_net_setup for the whole process. */
void cli_net_options(const char *cmd, const char *protocol, const char *check_sync);

/* Parses "VARIANT,K" ("square,3") for --queue; usage error otherwise. */
void cli_queue_arg(const char *cmd, const char *text, thue_variant *variant, int *k);

/* The name of a seat's player in a room_state ("-" for a free seat). */
const char *cli_seat_name(const thue_msg *rs, int seat);

/* One line describing a room_state: version, status, round, roles, word with gap
 * indices, points, clocks, last move, result. */
void cli_print_state_line(FILE *f, const thue_msg *rs);

/* "score", "resign", ...: the reason of a result. */
const char *cli_reason_name(thue_end_reason r);

#endif
