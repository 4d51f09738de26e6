/*
 * redis.h: one asynchronous connection to Redis on a libuv loop (hiredis's async API on a
 * uv_poll_t), that comes back by itself after it is lost.
 *
 * The loop thread never blocks: the connect, every command and every reply go through
 * the loop. The connection is up or down, and says which through a state callback:
 *   - down -> connecting: at once after thue_redis_new, then after each loss with a
 *     backoff (100 ms doubling to 2 s, back to 100 ms after a connection that came up);
 *   - a connect that does not finish within connect_timeout_ms counts as a failure;
 *   - a command connection is up once Redis has answered a PING; while up, when
 *     command_timeout_ms pass without a reply while commands are outstanding, it is
 *     dropped (a Redis that hangs looks like one that went away), and an idle one sends a
 *     PING every command_timeout_ms so that this also holds for a quiet connection.
 * A command either gets its reply, or its callback hears an error: issued while down it
 * fails on the next turn of the loop ("redis is down"), in flight when the connection is
 * lost it fails then. Nothing queues while down.
 *
 * With a password, every connection starts with AUTH; a refusal is logged and the
 * connection stays down (retried with the backoff).
 *
 * A subscriber connection (config.channels non-empty) subscribes to its channels every
 * time it comes up, and counts as up only once Redis has confirmed every subscription,
 * so a message published after the up callback is delivered.
 *
 * Loop thread only. Callbacks run on the loop thread, never from inside the call that
 * issued the command. Do not free the connection from inside one of its callbacks.
 */
#ifndef THUE_SERVER_CLUSTER_REDIS_H
#define THUE_SERVER_CLUSTER_REDIS_H

#include <stdbool.h>
#include <stddef.h>

#include <hiredis/hiredis.h>
#include <uv.h>

/* The cluster's error codes (-300..-399), with thue_cluster_strerror. */
#define THUE_CLUSTER_ERRNO_MAP(X)                                                                  \
    X(CLUSTER_EURL, -300, "cluster_bad_url",                                                       \
      "not a Redis address: redis://HOST:PORT or unix:/PATH")                                      \
    X(CLUSTER_EDOWN, -301, "cluster_down", "redis is down")                                        \
    X(CLUSTER_ELOST, -302, "cluster_lost", "the connection to redis was lost before the reply")    \
    X(CLUSTER_EREPLY, -303, "cluster_reply", "redis answered with an error")                       \
    X(CLUSTER_ECLOSED, -304, "cluster_closed", "the connection is closing")                        \
    X(CLUSTER_ECONFIG, -305, "cluster_bad_config", "bad cluster configuration")                    \
    X(CLUSTER_ENOMEM, -306, "cluster_no_memory", "out of memory")                                  \
    X(CLUSTER_EARG, -307, "cluster_bad_argument", "an argument is missing or malformed")           \
    X(CLUSTER_EQUEUED, -308, "cluster_queued", "that ticket is already waiting in the pool")

typedef enum {
#define THUE__CLUSTER_ENUM(name, value, wire, msg) THUE_##name = (value),
    THUE_CLUSTER_ERRNO_MAP(THUE__CLUSTER_ENUM)
#undef THUE__CLUSTER_ENUM
} thue_cluster_error;

/* The message of a code of the list above ("unknown error" otherwise); static. */
const char *thue_cluster_strerror(int err);

typedef struct thue_redis thue_redis;

/* The connection came up (up = true) or went down. */
typedef void thue_redis_state_cb(thue_redis *r, bool up, void *data);
/*
 * A command's outcome: status 0 and the reply (borrowed: valid during the call only), or
 * a negative THUE_CLUSTER_E... code with err, a sentence (borrowed). An error reply of
 * Redis is status THUE_CLUSTER_EREPLY with err = Redis's text and reply set.
 */
typedef void thue_redis_reply_cb(thue_redis *r, int status, const redisReply *reply,
                                 const char *err, void *data);
/* A message on a subscribed channel (channel and payload borrowed, not NUL-terminated
 * in general: use the lengths). */
typedef void thue_redis_message_cb(thue_redis *r, const char *channel, size_t channel_len,
                                   const char *payload, size_t payload_len, void *data);

typedef struct thue_redis_config {
    const char *url;             /* redis://HOST:PORT (port default 6379) or unix:/PATH */
    const char *password;        /* sent with AUTH on every connect; NULL: none */
    unsigned backoff_min_ms;     /* 0: 100 */
    unsigned backoff_max_ms;     /* 0: 2000 */
    unsigned connect_timeout_ms; /* 0: 2000 */
    unsigned command_timeout_ms; /* 0: 5000 */
    const char *const *channels; /* subscriber: the channels (copied); NULL: commands */
    size_t nchannels;
    thue_redis_state_cb *on_state;     /* may be NULL */
    thue_redis_message_cb *on_message; /* the subscriber's messages */
    void *data;                        /* given to on_state and on_message */
} thue_redis_config;

/* The longest host name or unix socket path accepted. */
#define THUE_REDIS_HOST_MAX 256

/*
 * Parses a Redis address: "redis://HOST[:PORT][/]" (HOST a name, an IPv4 address or an
 * IPv6 one in brackets) or "unix:/PATH". 0 with *port > 0 (TCP) or *port = 0 and host =
 * the path (unix); THUE_CLUSTER_EURL with a sentence in err otherwise.
 */
int thue_redis_parse_url(const char *url, char host[THUE_REDIS_HOST_MAX], int *port, char *err,
                         size_t err_size);

/*
 * A new connection on loop; it starts connecting at once (the first state callback comes
 * later). NULL with a sentence in err for a bad address or out of memory.
 */
thue_redis *thue_redis_new(uv_loop_t *loop, const thue_redis_config *config, char *err,
                           size_t err_size);

/*
 * Closes the connection: outstanding commands hear THUE_CLUSTER_ECLOSED (during this
 * call), no state callback runs any more. The memory goes when the loop has run the
 * handles' close callbacks (run the loop once more before closing it). NULL: no-op.
 */
void thue_redis_free(thue_redis *r);

/* Up now (a subscriber: every subscription confirmed). */
bool thue_redis_up(const thue_redis *r);
/* Times the connection has come up so far; connection attempts so far; the wait before
 * the latest attempt scheduled after a failure or a loss (0 before the first). */
unsigned thue_redis_ups(const thue_redis *r);
unsigned thue_redis_attempts(const thue_redis *r);
unsigned thue_redis_backoff_ms(const thue_redis *r);

/*
 * Sends a command (argv: argc arguments with their lengths; lens NULL: NUL-terminated).
 * 0: cb (may be NULL) runs exactly once, later, with the reply or an error. A negative
 * code (THUE_CLUSTER_ENOMEM, THUE_CLUSTER_ECONFIG for a subscriber connection or
 * argc < 1): cb never runs. The arguments are copied.
 */
int thue_redis_command(thue_redis *r, thue_redis_reply_cb *cb, void *data, int argc,
                       const char *const *argv, const size_t *lens);

/* Drops the connection as if the network had failed (the tests' fault injection): the
 * usual loss, backoff and reconnect follow. */
void thue_redis_drop(thue_redis *r);

#endif
