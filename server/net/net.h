/*
 * net.h: the network layer of thue-server: libwebsockets on the libuv loop, one port.
 *   /           static files from the web root (the browser client)
 *   /ws         the WebSocket endpoint (subprotocols thue.v1 and thue.v2; PROTOCOL.md 1, 18):
 *               messages reassembled up to 16 KiB (close 1009 past it), binary frames
 *               refused (close 1003), pings after ping_s of silence and a drop after
 *               idle_s (goodbye idle, 1001; any message, frame or pong is life);
 *               complete messages go to the lobby (which applies the rate limit), the
 *               lobby's messages go out through per-connection send queues, bounded per
 *               connection and in all (goodbye slow, 1008)
 *   /healthz    {"status":"ok",...}
 *   /metrics    Prometheus text (metrics.h)
 *   /api/rooms  the public rooms of a game (thue_lobby_rooms_json; ?game=, Thue's by default)
 *   /api/games  the games hosted: Thue's entry and the registry (games/game.h)
 *   /api/ladder the ladder of a rating pool (thue_lobby_ladder_json)
 *   /api/matches, /api/matches/{id}, /api/matches/{id}/moves.csv: stored matches, read
 *               by the store thread while the request waits
 * plus connection limits (overall and per address, HTTP and WebSocket alike: HTTP 503), a
 * deadline for each HTTP request, a rate limit on /api per address, and the receive guard
 * (rxguard.c) that checks request heads and client frames before libwebsockets sees them.
 * Loop thread only.
 */
#ifndef THUE_SERVER_NET_H
#define THUE_SERVER_NET_H

#include <stddef.h>

#include <uv.h>

#include "config.h"
#include "lobby/lobby.h"
#include "metrics.h"
#include "search/pool.h"
#include "store/store.h"

typedef struct thue_net thue_net;

/*
 * Starts listening on cfg's bind address and port, serving the lobby (borrowed) and the
 * pool's gauges. Returns NULL with a sentence in err when it cannot ("port 8080 is in use",
 * "cannot read the web root ..."). Sets the lobby's hooks.
 */
thue_net *thue_net_new(uv_loop_t *loop, const thue_config *cfg, thue_lobby *lobby,
                       thue_pool *pool, thue_metrics *metrics, char *err, size_t errsize);
/* The store that serves GET /api/matches... (borrowed; NULL: those answer 404
 * not_available). It must stay open until thue_net_close has been called. */
void thue_net_set_store(thue_net *net, thue_store *store);
/* The port actually listened on (useful with --port 0). */
int thue_net_port(const thue_net *net);
/* Draining (main.c, --drain-s): /healthz answers 503 with status "draining", so that a
 * balancer sends no new connection here, while connections are still accepted (a player
 * of a running match may come back). */
void thue_net_set_draining(thue_net *net, int on);
/* Stops accepting connections (the lobby closes the open ones). */
void thue_net_stop_accepting(thue_net *net);
/* Destroys the libwebsockets context once the lobby's connections are closed; `closed`
 * is called on the loop when everything of the network layer is gone. */
void thue_net_close(thue_net *net, void (*closed)(void *data), void *data);

#endif
