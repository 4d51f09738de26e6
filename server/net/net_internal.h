/*
 * net_internal.h: the network layer's types and the calls between its files (net.h is the
 * layer's API):
 *   net.c    the lws callback, the WebSocket handshake, start-up and shutdown
 *   ws.c     WebSocket connections: send queues, held writes, reassembly, closing
 *   http.c   HTTP requests: /healthz, /metrics, /api/..., static files
 *   peer.c   peer addresses: per-address counts, trusted proxies' X-Forwarded-For
 * Loop thread only, like everything lws does on a foreign loop.
 */
#ifndef THUE_SERVER_NET_INTERNAL_H
#define THUE_SERVER_NET_INTERNAL_H

/* realpath (beside the build's _POSIX_C_SOURCE): this header comes first in each file. */
#define _XOPEN_SOURCE 700

#include "net/net.h"
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
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "log.h"
#include "protocol/codec.h"
#include "store/store.h"
#include "strbuf.h"

#ifndef THUE_SERVER_VERSION
#define THUE_SERVER_VERSION "0.1.0"
#endif

#define PROTOCOL_NAME "thue.v1"
#define JSON_TYPE "application/json; charset=utf-8"
#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

#define DRAIN_MS 2000        /* thue_net_close waits this long for connections to close */
#define TEARDOWN_MS 3000     /* and this long for lws's handles to close */
#define POLL_MS 5            /* the teardown timer's period */
#define HTTP_CHUNK 16384     /* bytes of an HTTP body per write */
#define MATCHES_PER_PAGE 50  /* GET /api/matches?player= */
#define QUEUE_MAX (8u << 20) /* bytes queued for one connection before it is dropped */
#define IP_BUCKETS 256       /* per-IP counters: a small chained hash table */
#define IP_TEXT_MAX 64       /* lws_get_peer_simple's text of an address */
#define REASON_MAX 123       /* a close frame's reason: 125 bytes less the code */

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
    out_msg *head, *tail; /* the send queue */
    size_t queued;        /* its bytes */
    char *rx;             /* a fragmented message being reassembled */
    size_t rx_len, rx_cap;
    size_t held_first, held_last; /* its frames held back (1-based into net->held; 0: none) */
    int closing;                  /* a close is under way: no more sends, input ignored */
    int close_sent; /* the close went to lws (which then sends it and waits for the echo) */
    int close_code;
    char reason[REASON_MAX + 1];
};

/* lws's per-connection user data (zeroed by lws; reallocated when a connection is
 * upgraded to WebSocket). */
typedef struct deferred deferred;

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
    struct lws_protocols protocols[2];
    lws_retry_bo_t retry;
    thue_lobby *lobby;
    thue_pool *pool;
    thue_metrics *metrics;
    thue_store *store; /* NULL: no database (the record endpoints say not_available) */

    char web_root[PATH_MAX]; /* canonical (realpath) */
    int max_conns, max_per_ip;
    int nconns; /* open WebSocket connections */
    ip_slot *ips[IP_BUCKETS];
    uint64_t started_ms;

    int stopping; /* thue_net_stop_accepting was called */
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

    net_addr proxies[THUE_CONFIG_PROXIES_N]; /* --trusted-proxy */
    int nproxies;
};

/* ---- calls between the files ------------------------------------------------------ */

/* net.c */
thue_net *thue__net_of(struct lws *wsi);

/* peer.c: per-address connection counts and the client's address */
int thue__ip_count(thue_net *net, const char *ip);
/* One more connection from ip: its slot, or NULL when out of memory. */
ip_slot *thue__ip_acquire(thue_net *net, const char *ip);
void thue__ip_release(thue_net *net, ip_slot *slot);
/* 0 and *a, or -1 when text is not an IPv4 or IPv6 address. */
int thue__addr_parse(const char *text, net_addr *a);
/* The client's address text: the peer's, or the one a trusted proxy names. */
void thue__client_ip(const thue_net *net, struct lws *wsi, char *buf, size_t size);

/* ws.c: the lobby's hooks and the WebSocket callbacks */
void thue__hook_send(void *ctx, thue_conn *c, const char *text, size_t len);
void thue__hook_close(void *ctx, thue_conn *c, int code, const char *reason);
int thue__ws_established(thue_net *net, struct lws *wsi, pss *p);
void thue__ws_gone(thue_net *net, pss *p);
int thue__ws_receive(thue_net *net, struct lws *wsi, pss *p, const char *in, size_t len);
int thue__ws_writeable(struct lws *wsi, pss *p);
/* Closes c now with code (the caller returns -1 to lws, once). */
int thue__ws_close_now(thue_conn *c, int code, const char *reason);
/* Ends the loop turn's hold: what the turn held goes out. */
void thue__end_turn(thue_net *net);
void thue__on_flush_check(uv_check_t *h);

/* http.c: the HTTP callbacks */
int thue__http_request(thue_net *net, struct lws *wsi, pss *p, const char *uri);
int thue__http_writeable(struct lws *wsi, pss *p);
void thue__http_reset(pss *p);
int thue__http_refuse_method(struct lws *wsi, pss *p);

#endif
