/*
 * net.h: a small, blocking WebSocket client for the `thue` network commands (bot, watch,
 * play). One connection per cli_net, on libwebsockets' own poll loop, serviced only from
 * inside these calls, on the calling thread. Messages go out as thue_cmd (encoded with
 * the protocol codec) and come in as thue_msg; messages of unknown types (from a newer
 * server) are skipped, as PROTOCOL.md section 12 asks.
 *
 * Subprotocols: by default a connection offers thue.v2 and thue.v1 and speaks the one
 * the server selects (cli_net_protocol). Under thue.v2 the server sends `played` after a
 * move instead of the room's whole state; the connection's room model (roommodel.h)
 * turns it back into that state, so cli_net_next hands out room_state in thue.v1's form
 * (with `you`) whichever is spoken, and never a played.
 */
#ifndef THUE_CLI_NET_H
#define THUE_CLI_NET_H

#include <stddef.h>

#include "protocol/codec.h"

#define CLI_DEFAULT_SERVER "ws://localhost:8080/ws"

typedef struct cli_net cli_net;

/*
 * For the whole process, before the first cli_net_open (the network commands call it
 * once): cmd names the command in messages ("bot"); protocol is the newest subprotocol
 * to offer (2: thue.v2 and thue.v1, the default; 1: thue.v1 only); check_sync (0: off)
 * is the debugging check of --check-sync N: under thue.v2, after every N-th move the
 * model applied, a sync asks for the room's whole state, which must equal the model's
 * (roommodel.h's cli_model_compare; the running clock may have run on). The first
 * difference, or a move the model cannot follow, prints both sides to stderr and exits
 * the process with status 3; at a normal exit a line on stderr says how many states
 * were checked. These syncs and their answers are not handed to the caller.
 */
void cli_net_setup(const char *cmd, int protocol, int check_sync);

/*
 * Connects to url (ws://HOST[:PORT][/PATH]) offering the subprotocols of cli_net_setup
 * (thue.v2 and thue.v1 by default), waiting at most timeout_ms for the handshake. A new
 * connection, or NULL with a sentence in err.
 */
cli_net *cli_net_open(const char *url, int timeout_ms, char *err, size_t errsize);

/* 1 when url has the form cli_net_open accepts (ws:// only), 0 otherwise. */
int cli_net_url_ok(const char *url);

/* The subprotocol's version the server selected: 2 (thue.v2) or 1 (thue.v1, also when
 * the server named none). hello must say it. */
int cli_net_protocol(const cli_net *n);

/* This client's player name (welcome's player.name): under thue.v2 the room model finds
 * the client's seat by it. */
void cli_net_set_player(cli_net *n, const char *name);

/* Encodes cmd (giving it the next integer id when it has none) and queues it, waiting
 * first when the rate limit (cli_net_set_rate) needs it. Returns the
 * id used (>= 1), or -1 when the command cannot be encoded or the connection is closed.
 * A leave makes the room model forget the room. */
long cli_net_send(cli_net *n, thue_cmd *cmd);

/*
 * Waits at most timeout_ms (0: just polls) for the next server message. 1 and *out filled
 * (release with thue_msg_clear), 0 on timeout, -1 once the connection is closed (then
 * cli_net_error says why). Under thue.v2 room states come through the room model (see
 * above): a played the model cannot follow (a version gap) makes it send sync, and the
 * room's next whole state comes out in its place; sync's own replies (ok, error) are not
 * handed out.
 */
int cli_net_next(cli_net *n, int timeout_ms, thue_msg *out);

/* The server's rate limit from welcome (messages per second, burst): cli_net_send waits
 * rather than exceed it. The default is PROTOCOL.md's 20 and 40. */
void cli_net_set_rate(cli_net *n, int rate, int burst);

/* Why the connection closed (a static sentence while it is open). */
const char *cli_net_error(const cli_net *n);

/* Closes the connection and frees everything. NULL is a no-op. Under --check-sync
 * (cli_net_setup) it first waits, at most 2 s, for the answers of the syncs still out. */
void cli_net_close(cli_net *n);

#endif
