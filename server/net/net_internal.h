/*
 * net_internal.h: the network layer's types and the calls between its files (net.h is the
 * layer's API):
 *   net.c    the lws callback, the WebSocket handshake, start-up and shutdown
 *   ws.c     WebSocket connections: send queues, held writes, reassembly, closing,
 *            the send bounds (slow readers) and the keep-alive (on keepalive.c's wheel)
 *   http.c   HTTP requests: the router, responses, /healthz, /metrics, static files
 *   api.c    the /api endpoints (their JSON in one place each)
 *   peer.c   peer addresses: every connection counted per address, the request
 *            deadline, trusted proxies' X-Forwarded-For
 *   rxguard.c the bytes lws reads: request heads and client frames checked first
 * Loop thread only, like everything lws does on a foreign loop.
 */
#ifndef THUE_SERVER_NET_INTERNAL_H
#define THUE_SERVER_NET_INTERNAL_H

/* realpath (beside the build's _POSIX_C_SOURCE): this header comes first in each file. */
#define _XOPEN_SOURCE 700

#include "net/keepalive.h"
#include "net/net.h"
#include "net/trusted.h"
#include "net/ws_frame.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "log.h"
#include "net/rxguard.h"
#include "protocol/codec.h"
#include "quota.h"
#include "store/store.h"
#include "strbuf.h"

#ifndef THUE_VERSION
#error "THUE_VERSION comes from CMakeLists.txt's project() version"
#endif

#define PROTOCOL_NAME "thue.v1"
#define PROTOCOL_NAME_V2 "thue.v2"
#define JSON_TYPE "application/json; charset=utf-8"
#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

#define DRAIN_MS 2000        /* thue_net_close waits this long for connections to close */
#define TEARDOWN_MS 3000     /* and this long for lws's handles to close */
#define POLL_MS 5            /* the teardown timer's period */
#define HTTP_CHUNK 16384     /* bytes of an HTTP body per write */
#define MATCHES_PER_PAGE 50  /* GET /api/matches?player= */
#define KA_TICK_MS 100       /* the keep-alive wheel's tick */
#define SLOW_MS 2000         /* a connection over --send-max-kib this long is dropped */
#define CLOSE_DEADLINE_MS 10000 /* a closing connection is freed by then, read or not */
#define IP_BUCKETS 256       /* per-IP counters: a small chained hash table */
#define IP_TEXT_MAX 64       /* lws_get_peer_simple's text of an address */
#define REASON_MAX 123       /* a close frame's reason: 125 bytes less the code */
#define SWEEP_MS 250         /* the request deadline's timer */
#define REFUSED_MAX 32       /* connections past a limit let in to hear a 503, in all */
#define REFUSED_PER_KEY 2    /* and from one address */
#define REFUSED_DEADLINE_MS 2000 /* their deadline */
#define FILES_MAX 32             /* files being sent at once (each holds a descriptor) */
#define FILES_PER_KEY 8          /* by one address: a browser fetches a page's files on up
                                    to 6 connections at once, and the client has 10 */
#define FD_RESERVE 96            /* descriptors kept beside the connections (see peer.c) */

/* ---- types ------------------------------------------------------------------------- */

/* One queued message; buf has LWS_PRE bytes of headroom for lws before the text. */
typedef struct out_msg {
    struct out_msg *next;
    size_t len;
    unsigned char buf[];
} out_msg;

/* Connections from one peer address. */
typedef struct ip_slot {
    struct ip_slot *next;
    int count;
    char ip[IP_TEXT_MAX];
} ip_slot;

struct thue_conn {
    thue_net *net;
    struct lws *wsi;
    thue_client *client; /* NULL when the lobby refused the connection */
    ip_slot *ip;
    struct thue_conn *prev, *next; /* net->conns */
    out_msg *head, *tail; /* the send queue */
    size_t queued;        /* its bytes */
    /* The send bound (ws.c): bytes unsent are the queue's, the turn's held ones and what
     * lws may still hold of our last write (all of it while lws_partial_buffered). */
    size_t held_bytes, lws_held;
    size_t counted;      /* their sum as counted in net->queued_total (and live_total) */
    uint64_t over_since; /* when it went over --send-max-kib (0: not over) */
    int dropping;        /* a slow drop is under way: its goodbye may still be sent */
    /* Keep-alive (ws.c): one wheel entry for the next check (keep-alive, the slow bound,
     * or the close deadline); life_ms is the last sign of life, set in O(1). */
    thue_ka_entry ka;
    uint64_t life_ms;
    uint64_t pinged_ms;  /* a ping went out for the silence since life_ms, at this time
                            (0: none; a message or pong clears it) */
    uint64_t rx_seen;    /* the receive guard's bytes_in at the last check */
    uint64_t checked_ms; /* that check's time */
    uint64_t close_deadline;
    int ping_due;        /* a ping waits for WRITEABLE */
    char *rx;             /* a fragmented message being reassembled */
    size_t rx_len, rx_cap;
    size_t held_first, held_last; /* its frames held back (1-based into net->held; 0: none) */
    int closing;                  /* a close is under way: no more sends, input ignored */
    int close_sent; /* the close went to lws (which then sends it and waits for the echo) */
    int close_code;
    char reason[REASON_MAX + 1];
};

/* A file of the web root kept in memory with its gzip form and ETag (static.c). */
typedef struct thue__static thue__static;

/* Every connection the listener accepted (peer.c), from accept to close: lws's opaque
 * user data of its wsi (which, unlike the per-session data, lasts through an upgrade). */
typedef struct net_link {
    struct net_link *prev, *next; /* the deadline's FIFO, oldest start first */
    struct lws *wsi;
    int fd;
    int in_fifo;
    int upgraded;                 /* a WebSocket now: no deadline, no more requests */
    int expired;                  /* its deadline passed: it is being closed */
    int close_soon;               /* a refused upgrade: closed from the next TIMER */
    int refused;                  /* past a limit: its request gets 503 (or /healthz), then close */
    int proxied;                  /* from a trusted proxy: counted per address at its upgrade */
    int watched;                  /* rxguard reads its socket */
    int file;                     /* holds one of the FILES_MAX file transfers */
    int counted;                  /* key holds a count for it (refused: in "r:" + key) */
    unsigned requests;            /* requests lws handed us (to match rx.bad_head) */
    uint64_t start_ms;            /* its current request's start: accept, or the last response */
    uint64_t rx_at_start;         /* rx.bytes_in then: none since means an idle keep-alive */
    char key[THUE_LIMIT_KEY_MAX]; /* thue_addr_key of the address it counts as */
    thue_rx rx;
} net_link;

/* lws's per-connection user data (zeroed by lws; reallocated when a connection is
 * upgraded to WebSocket). */
typedef struct deferred deferred;

/*
 * A response the store thread produces (GET /api/matches...): the request waits, the
 * store's callback fills this in on the loop and asks for HTTP_WRITEABLE, which sends
 * it. If the connection goes first, wsi is cleared and the callback only frees.
 */
struct deferred {
    struct lws *wsi;
    int head;
    const char *type;
    int done, status;
    char *body;
    size_t len;
    int64_t viewer; /* the account asking (Authorization: Bearer TOKEN), 0 for none */
    char game[THUE_PROTO_GAME_MAX + 1]; /* /api/matches?game=G: G, "" for every game */
    /* GET /api/matches/{id}/review: the lobby, and the match whose review a "pending"
     * answer asks for (thue_lobby_review_wanted); NULL for other requests */
    thue_lobby *review_lobby;
    char review_id[THUE_PROTO_KEY_MAX + 1];
};


typedef struct pss {
    thue_conn *conn; /* WebSocket */
    deferred *wait;  /* HTTP: a response the store is producing */
    /* HTTP: the body of the response being written */
    char *body;
    size_t body_len, body_off;
    int close_after;       /* close the connection once the response is out */
    int refuse_after_body; /* answer 405 once lws has read the request's body */
} pss;

typedef enum { RUNNING, DRAINING, TEARING_DOWN } net_phase;

/* A message held back (see struct thue_net): its text in the arena, its connection. */
typedef struct held_msg {
    thue_conn *c; /* NULL: the connection went meanwhile */
    size_t off, len;
    size_t next; /* the connection's next record (1-based; 0: none) */
} held_msg;

/* An address to compare: 4 bytes (IPv4, IPv4-mapped IPv6 included) or 16. */
typedef struct net_addr {
    int len;
    unsigned char b[16];
} net_addr;

/* Handles seen on the loop (to tell lws's apart from everyone else's). */
typedef struct handle_set {
    uv_handle_t **h;
    size_t n, cap;
    int failed; /* out of memory while collecting */
} handle_set;

struct thue_net {
    uv_loop_t *loop;
    void *foreign_loops[1];
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    struct lws_protocols protocols[3]; /* thue.v1, thue.v2, the end */
    lws_retry_bo_t retry;
    thue_lobby *lobby;
    thue_pool *pool;
    thue_metrics *metrics;
    thue_store *store; /* NULL: no database (the record endpoints say not_available) */

    char web_root[PATH_MAX]; /* canonical (realpath) */
    thue__static *statics;   /* the small files served from memory (static.c) */
    size_t static_bytes;
    int max_conns, max_per_ip;
    int nconns; /* open WebSocket connections */
    thue_conn *conns; /* all of them */

    /* Send bounds and keep-alive (ws.c) */
    size_t send_max, send_total_max; /* --send-max-kib, --send-total-max-mib in bytes */
    size_t queued_total;             /* unsent bytes of every connection */
    size_t live_total;               /* of those not closing (what the total bound counts) */
    int total_over, enforcing;       /* live_total passed the bound: drop at the turn's end */
    uint64_t ping_ms, idle_ms;       /* --ping-s, --idle-s */
    thue_ka_wheel ka;
    uv_timer_t ka_timer;
    int ka_on;
    ip_slot *ips[IP_BUCKETS];
    uint64_t started_ms;

    int stopping; /* thue_net_stop_accepting was called */
    int draining; /* thue_net_set_draining: /healthz says draining (503) */
    char node[33]; /* --node, shown by /healthz ("" without) */
    net_phase phase;
    handle_set lws_handles; /* lws's static handles */
    int lws_left;           /* lws_handles_left's finding */
    uv_timer_t timer;       /* drives the shutdown */
    uint64_t deadline;
    void (*closed)(void *data);
    void *closed_data;

    unsigned char *wbuf; /* LWS_PRE + a message, for writes made at once (hook_send) */
    size_t wcap;

    /* Messages held back while input is read (hold_begin/hold_end around each received
     * message, nested in hold_turn's hold for the rest of the loop turn), to go out as one
     * write per connection: their texts in order in harena, one record each, chained per
     * connection. */
    int holding;
    int iter_hold;          /* a hold runs until the end of this loop turn (flush_check) */
    int check_on;           /* flush_check is initialised */
    uv_check_t flush_check; /* ends the turn's hold once lws has handled the turn's input */
    held_msg *held;
    size_t nheld, heldcap;
    char *harena;
    size_t hlen, hcap;

    thue_trusted proxies[THUE_CONFIG_PROXIES_N]; /* --trusted-proxy: addresses, networks */
    int nproxies;

    /* Every connection (peer.c): counts per address key (refused ones under "r:" + key,
     * file transfers under "f:" + key), the deadline's FIFO and its timer. */
    thue_counts *counts;
    int nlinks, nrefused, nfiles;
    int links_max; /* max_conns, or fewer when the descriptors do not allow it */
    net_link *fifo_head[2], *fifo_tail[2]; /* waiting for a request; [1]: refused */
    uint64_t deadline_ms;                  /* --request-timeout-s */
    uv_timer_t sweep;
    int sweep_on;
    int guard_on; /* rxguard started */
    struct {      /* what FILTER_NETWORK_CONNECTION decided, for the wsi lws then makes */
        int fd, refused, proxied;
        char key[THUE_LIMIT_KEY_MAX];
    } pending;
    thue_limiter *api; /* /api requests per address key */
    struct {           /* for /metrics */
        uint64_t closed_at_accept, let_in_refused, timeouts, guard_refused, rate_limited, unmasked;
        uint64_t slow_conn, slow_total; /* slow drops: one connection's bound, the total's */
        uint64_t pings, idle_drops, close_kills;
    } stats;
};

/* ---- calls between the files ------------------------------------------------------ */

/* net.c */
thue_net *thue__net_of(struct lws *wsi);

/* peer.c: open WebSockets per address text (for the logs), and the client's address */
/* One more WebSocket from ip: its slot, or NULL when out of memory. */
ip_slot *thue__ip_acquire(thue_net *net, const char *ip);
void thue__ip_release(thue_net *net, ip_slot *slot);
/* 0 and *a, or -1 when text is not an IPv4 or IPv6 address. */
int thue__addr_parse(const char *text, net_addr *a);
/* The client's address text: the peer's, or the one a trusted proxy names. */
void thue__client_ip(const thue_net *net, struct lws *wsi, char *buf, size_t size);

/* peer.c: every connection (net_link), counted from accept to close */
/* Sizes the connection limit from the descriptors the process may open, starts the
 * guard and the deadline's timer: 0, or -1 with a sentence in err. */
int thue__links_start(thue_net *net, const thue_config *cfg, char *err, size_t errsize);
/* Stops the timer (shutdown). */
void thue__links_stop(thue_net *net);
/* Frees what the links' tables hold, once every connection is gone. */
void thue__links_free(thue_net *net);
/* LWS_CALLBACK_FILTER_NETWORK_CONNECTION: 0 to take the connection, 1 to close it now. */
int thue__link_filter(thue_net *net, const struct lws_filter_network_conn_args *a);
/* LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED: the link of the connection just taken;
 * 0, or -1 to drop it (out of memory). */
int thue__link_new(thue_net *net, struct lws *wsi);
/* LWS_CALLBACK_WSI_DESTROY: the connection is gone. */
void thue__link_free(thue_net *net, struct lws *wsi);
/* The link of wsi, or NULL (not a connection the listener accepted). */
net_link *thue__link_of(struct lws *wsi);
/* The request has arrived (headers, and body if any): its response is not under the
 * deadline. */
void thue__link_busy(thue_net *net, net_link *l);
/* The response is out and the connection stays open: the next request's deadline
 * starts now. */
void thue__link_idle(thue_net *net, net_link *l);
/* A WebSocket upgrade through a trusted proxy: count the connection as its client ip;
 * 0, or -1 when that address is at its limit. */
int thue__link_count_client(thue_net *net, net_link *l, const char *ip);
/* The connection is a WebSocket now. */
void thue__link_upgraded(thue_net *net, net_link *l);
/* One of FILES_MAX file transfers for l: 0, or -1 when none is free (for its address or
 * in all). thue__link_file_done gives it back. */
int thue__link_file_take(thue_net *net, net_link *l);
void thue__link_file_done(thue_net *net, net_link *l);

/* ws.c: the lobby's hooks and the WebSocket callbacks */
void thue__hook_send(void *ctx, thue_conn *c, const char *text, size_t len);
void thue__hook_close(void *ctx, thue_conn *c, int code, const char *reason);
int thue__hook_may_send(void *ctx, thue_conn *c, size_t len);
int thue__ws_established(thue_net *net, struct lws *wsi, pss *p);
void thue__ws_gone(thue_net *net, pss *p);
int thue__ws_receive(thue_net *net, struct lws *wsi, pss *p, const char *in, size_t len);
int thue__ws_writeable(struct lws *wsi, pss *p);
/* Closes c now with code (the caller returns -1 to lws, once). */
int thue__ws_close_now(thue_conn *c, int code, const char *reason);
/* Ends the loop turn's hold: what the turn held goes out. */
void thue__end_turn(thue_net *net);
/* The keep-alive wheel and its timer, and a sign of life from c (a message, a pong). */
void thue__ka_start(thue_net *net);
void thue__ka_stop(thue_net *net);
void thue__ws_life(thue_conn *c);
void thue__on_flush_check(uv_check_t *h);

/* static.c: the file at path (canonical, below the web root; st its stat) from memory,
 * read (again) when it is new or has changed; NULL when it is too big to keep (then stream
 * it) or cannot be read. Borrowed until the next call or thue__statics_free. */
const thue__static *thue__static_get(thue_net *net, const char *path, const struct stat *st);
/* A body made once for the server's life by make() (a new string, taken over), kept
 * under key (a name no file has: "/api/games") with its gzip form and tag; NULL out of
 * memory. */
const thue__static *thue__static_made(thue_net *net, const char *key, char *(*make)(void));
/* Its ETag ("\"16 hex digits\"", from the content). */
const char *thue__static_etag(const thue__static *e);
/* Its bytes: the gzip form when gzip and there is one (smaller), else the file. */
const char *thue__static_body(const thue__static *e, int gzip, size_t *len);
int thue__static_has_gzip(const thue__static *e);
void thue__statics_free(thue_net *net);

/* http.c: the HTTP callbacks */
int thue__http_request(thue_net *net, struct lws *wsi, pss *p, const char *uri);
int thue__http_writeable(struct lws *wsi, pss *p);
void thue__http_reset(pss *p);
int thue__http_refuse_method(struct lws *wsi, pss *p);
/* The headers every response carries (Content-Security-Policy, X-Frame-Options, ...),
 * as lws header calls: 0, or -1 when they do not fit. */
int thue__http_security_headers(struct lws *wsi, unsigned char **q, unsigned char *end);
/* The same as raw "name: value\r\n" lines. */
extern const char thue__http_security_raw[];
/* A kept body (static.c): 304 when If-None-Match holds its tag, else it, gzipped when the
 * client takes gzip; no-cache (always revalidated). 0, or -1 to close the connection. */
int thue__http_static(struct lws *wsi, pss *p, const thue__static *e, const char *type, int head);
/* Answers with status and body (owned: freed, may be NULL with len 0), head: headers
 * only. 0, or -1 to close the connection. */
int thue__http_respond(struct lws *wsi, pss *p, unsigned status, const char *type, char *body,
                       size_t len, int head);
/* {"error":{"code":...,"message":...}} with status (code and message: no escaping). */
int thue__http_error(struct lws *wsi, pss *p, unsigned status, const char *code,
                     const char *message, int head);
/* True when uri is prefix itself or below it ("/api/matches" and "/api/matches/7"). */
int thue__http_path_under(const char *uri, const char *prefix);

/* api.c: one /api request (uri under /api, its token taken): answered now, or queued
 * for the store (pss.wait). 0, or -1 to close. */
int thue__api_request(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head);

#endif
