/*
 * cluster_helpers.h: what the cluster tests (test_cluster_*.c) share: the test Redis
 * (THUE_TEST_REDIS, set by scripts/test.sh through scripts/services.sh), a private
 * redis-server of a test's own (fork/exec on a free port, for the tests that stop and
 * restart it without disturbing the others), a key prefix of each test's own, running a
 * loop until a condition holds (bounded in time and in turns), and a blocking hiredis
 * client to look at Redis directly.
 */
#ifndef THUE_TEST_CLUSTER_HELPERS_H
#define THUE_TEST_CLUSTER_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/types.h>

#include <hiredis/hiredis.h>
#include <uv.h>

#include "cluster/cluster.h"
#include "cluster/redis.h"

/* The cluster secret the tests' nodes share (48 bytes), and another one (a node of
 * another cluster, or an attacker's guess). */
extern const unsigned char ch_secret_bytes[48];
extern const unsigned char ch_other_secret_bytes[48];
/* Sets cfg's secret to ch_secret_bytes. */
void ch_secret(thue_cluster_config *cfg);

/* THUE_TEST_REDIS (the test fails when it is not set). */
const char *ch_redis_url(void);

/* A prefix of the test's own ("t<pid>-<name>-<n>:") into out (64 bytes). */
void ch_prefix(char *out, const char *name);

/* Runs loop until cond(data) holds or max_ms pass (at most max_ms / 2 + 100 turns of at
 * least a few ms each): whether cond holds. */
bool ch_run_until(uv_loop_t *loop, bool (*cond)(void *), void *data, unsigned max_ms);
/* Runs loop for ms milliseconds. */
void ch_run_for(uv_loop_t *loop, unsigned ms);
/* Runs loop until every handle is closed, then closes it (asserts it closes). */
void ch_loop_close(uv_loop_t *loop);

/* A private redis-server. */
typedef struct ch_server {
    pid_t pid;
    int port;
    char url[64];
} ch_server;

/* Starts one on a free port (or on port when > 0) and waits until it answers. */
void ch_server_start(ch_server *s, int port);
/* Stops it (SIGKILL: everything it held is gone, as after a crash). */
void ch_server_stop(ch_server *s);

/* A blocking client for looking at Redis (the test's own thread, never the loop's
 * business). */
redisContext *ch_sync(const char *url);
/* A command's integer answer (asserts the type). */
long long ch_int(redisContext *rc, const char *fmt, ...);

/* A record of the cluster's state hook. */
typedef struct ch_state {
    int ups, downs;
    bool up;
} ch_state;
void ch_on_state(void *data, bool up);
bool ch_is_up(void *data);
bool ch_is_down(void *data);

#endif
