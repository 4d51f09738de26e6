/*
 * net.h: a small, blocking WebSocket client for the `thue` network commands (bot, watch,
 * play). One connection per cli_net, on libwebsockets' own poll loop, serviced only from
 * inside these calls, on the calling thread. Messages go out as thue_cmd (encoded with
 * the protocol codec) and come in as thue_msg; messages of unknown types (from a newer
 * server) are skipped, as PROTOCOL.md section 12 asks.
 */
#ifndef THUE_CLI_NET_H
#define THUE_CLI_NET_H

#include <stddef.h>

#include "protocol/codec.h"

#define CLI_DEFAULT_SERVER "ws://localhost:8080/ws"

typedef struct cli_net cli_net;

/*
 * Connects to url (ws://HOST[:PORT][/PATH]) offering the subprotocol thue.v1, waiting at
 * most timeout_ms for the handshake. A new connection, or NULL with a sentence in err.
 */
cli_net *cli_net_open(const char *url, int timeout_ms, char *err, size_t errsize);

/* 1 when url has the form cli_net_open accepts (ws:// only), 0 otherwise. */
int cli_net_url_ok(const char *url);

/* Encodes cmd (giving it the next integer id when it has none) and queues it, waiting
 * first when the rate limit (cli_net_set_rate) needs it. Returns the
 * id used (>= 1), or -1 when the command cannot be encoded or the connection is closed. */
long cli_net_send(cli_net *n, thue_cmd *cmd);

/*
 * Waits at most timeout_ms (0: just polls) for the next server message. 1 and *out filled
 * (release with thue_msg_clear), 0 on timeout, -1 once the connection is closed (then
 * cli_net_error says why).
 */
int cli_net_next(cli_net *n, int timeout_ms, thue_msg *out);

/* The server's rate limit from welcome (messages per second, burst): cli_net_send waits
 * rather than exceed it. The default is PROTOCOL.md's 20 and 40. */
void cli_net_set_rate(cli_net *n, int rate, int burst);

/* Why the connection closed (a static sentence while it is open). */
const char *cli_net_error(const cli_net *n);

/* Closes the connection and frees everything. NULL is a no-op. */
void cli_net_close(cli_net *n);

#endif
