/*
 * cluster_helpers.c: the cluster tests' shared pieces (cluster_helpers.h).
 */
#include "cluster_helpers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const unsigned char ch_secret_bytes[48] = "the tests' cluster secret: 48 bytes, not random";
const unsigned char ch_other_secret_bytes[48] = "another cluster's secret, also 48 bytes long...";

void ch_secret(thue_cluster_config *cfg)
{
    cfg->secret = ch_secret_bytes;
    cfg->secret_len = sizeof ch_secret_bytes;
}

const char *ch_redis_url(void)
{
    const char *url = getenv("THUE_TEST_REDIS");
    if (!url || !*url)
        fail_msg("THUE_TEST_REDIS is not set (scripts/services.sh redis DIR prints it)");
    return url;
}

void ch_prefix(char *out, const char *name)
{
    static int n;
    snprintf(out, 64, "t%ld-%s-%d:", (long)getpid(), name, ++n);
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
}

bool ch_run_until(uv_loop_t *loop, bool (*cond)(void *), void *data, unsigned max_ms)
{
    uv_timer_t tick;
    uv_timer_init(loop, &tick);
    uv_timer_start(&tick, on_tick, 5, 5);
    uv_update_time(loop);
    uint64_t end = uv_now(loop) + max_ms;
    unsigned turns = 0, max_turns = max_ms * 4 + 1000;
    bool ok = cond(data);
    while (!ok && uv_now(loop) < end && turns++ < max_turns) {
        uv_run(loop, UV_RUN_ONCE);
        ok = cond(data);
    }
    uv_close((uv_handle_t *)&tick, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
    return ok;
}

static bool never(void *data)
{
    (void)data;
    return false;
}

void ch_run_for(uv_loop_t *loop, unsigned ms)
{
    ch_run_until(loop, never, NULL, ms);
}

void ch_loop_close(uv_loop_t *loop)
{
    /* ONCE blocks until something completes (a close callback, a resolution that was
     * under way): bounded in turns, each bounded by what is still pending. */
    for (int i = 0; i < 1000 && uv_run(loop, UV_RUN_ONCE); i++)
        ;
    assert_int_equal(uv_loop_close(loop), 0);
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The private servers still running: killed at exit, so that a failing test (cmocka
 * jumps out of it) leaves no redis-server behind. */
static pid_t running[16];

static void kill_running(void)
{
    for (int i = 0; i < 16; i++)
        if (running[i] > 0) {
            kill(running[i], SIGKILL);
            waitpid(running[i], NULL, 0);
            running[i] = 0;
        }
}

static void track(pid_t pid, pid_t replace)
{
    static bool registered;
    if (!registered) {
        atexit(kill_running);
        registered = true;
    }
    for (int i = 0; i < 16; i++)
        if (running[i] == replace) {
            running[i] = pid;
            return;
        }
}

void ch_server_start(ch_server *s, int port)
{
    s->port = port > 0 ? port : free_port();
    snprintf(s->url, sizeof s->url, "redis://127.0.0.1:%d", s->port);
    char porttext[16];
    snprintf(porttext, sizeof porttext, "%d", s->port);
    s->pid = fork();
    assert_true(s->pid >= 0);
    if (s->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* dies with the test, even one killed by ctest */
        execlp(THUE_REDIS_SERVER, THUE_REDIS_SERVER, "--port", porttext, "--bind", "127.0.0.1",
               "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "/dev/null",
               "--dir", "/tmp", (char *)NULL);
        _exit(127);
    }
    track(s->pid, 0);
    for (int i = 0; i < 200; i++) { /* 10 s at most */
        redisContext *rc = redisConnect("127.0.0.1", s->port);
        if (rc && !rc->err) {
            redisReply *r = redisCommand(rc, "PING");
            bool ok = r && r->type == REDIS_REPLY_STATUS;
            freeReplyObject(r);
            redisFree(rc);
            if (ok)
                return;
        } else if (rc) {
            redisFree(rc);
        }
        nap(50);
    }
    fail_msg("redis-server did not start on port %d", s->port);
}

void ch_server_stop(ch_server *s)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGKILL);
    int st;
    waitpid(s->pid, &st, 0);
    track(0, s->pid);
    s->pid = 0;
}

redisContext *ch_sync(const char *url)
{
    char host[THUE_REDIS_HOST_MAX], err[256];
    int port;
    assert_int_equal(thue_redis_parse_url(url, host, &port, err, sizeof err), 0);
    redisContext *rc = port ? redisConnect(host, port) : redisConnectUnix(host);
    assert_non_null(rc);
    if (rc->err)
        fail_msg("cannot reach %s: %s", url, rc->errstr);
    return rc;
}

long long ch_int(redisContext *rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(rc, fmt, ap);
    va_end(ap);
    assert_non_null(r);
    if (r->type != REDIS_REPLY_INTEGER)
        fail_msg("\"%s\": not an integer (type %d: %s)", fmt, r->type, r->str ? r->str : "");
    long long v = r->integer;
    freeReplyObject(r);
    return v;
}

void ch_on_state(void *data, bool up)
{
    ch_state *s = data;
    s->up = up;
    if (up)
        s->ups++;
    else
        s->downs++;
}

bool ch_is_up(void *data)
{
    return ((ch_state *)data)->up;
}

bool ch_is_down(void *data)
{
    return !((ch_state *)data)->up;
}
