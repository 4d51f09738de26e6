/*
 * tcp_ceiling.c: thue-tcp-ceiling, the bench's baseline (docs/bench.md).
 *
 * The play phase's traffic over loopback TCP with nothing else: no WebSocket, no JSON, no
 * game. A forked "server" (one epoll loop per --server-threads, like thue-server's one
 * loop thread) answers each 64-byte "move" from one connection of a pair with a write of
 * --mover-bytes to that connection (ok + room_state) and one of --peer-bytes to the other
 * (room_state); the client (one epoll loop, like thue-loadgen) plays the pairs in turn,
 * each move answered before the other side moves. What it measures is what this machine's
 * kernel allows for that pattern: the most any server on one loop thread could reach here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lg.h"

#define MOVE_BYTES 64
#define EVENTS 512

static int pairs = 500, mover_bytes = 1000, peer_bytes = 950, server_threads = 1;
static int batch; /* --batch: the answers written once the whole epoll batch is read */
static double duration_s = 20, warmup_s = 5;
static int json;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "thue-tcp-ceiling: %s: %s\n", what, strerror(errno));
    exit(2);
}

/* ---- the server: one epoll loop per thread; a connection's unsent rest waits for
 * EPOLLOUT ---------------------------------------------------------------------------- */

typedef struct sconn {
    int fd, peer; /* peer: the other connection's index */
    int rx;       /* bytes of the current move read */
    char *out;    /* unsent bytes */
    size_t outlen;
} sconn;

static sconn *sc;
static char *payload; /* max(mover_bytes, peer_bytes) bytes of filler */

static void s_send(int ep, sconn *c, size_t n)
{
    if (c->outlen == 0) {
        ssize_t w = send(c->fd, payload, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w == (ssize_t)n)
            return;
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            exit(0); /* the client went: the run is over */
        size_t done = w > 0 ? (size_t)w : 0;
        c->out = realloc(c->out, n - done);
        if (c->out == NULL)
            exit(3);
        memcpy(c->out, payload, n - done);
        c->outlen = n - done;
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)(c - sc)};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        return;
    }
    char *o = realloc(c->out, c->outlen + n);
    if (o == NULL)
        exit(3);
    memcpy(o + c->outlen, payload, n);
    c->out = o;
    c->outlen += n;
}

static void s_flush(int ep, sconn *c)
{
    ssize_t w = send(c->fd, c->out, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        exit(0);
    if (w > 0) {
        memmove(c->out, c->out + w, c->outlen - (size_t)w);
        c->outlen -= (size_t)w;
    }
    if (c->outlen == 0) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)(c - sc)};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
    }
}

static void *s_loop(void *arg)
{
    int ep = (int)(intptr_t)arg;
    struct epoll_event evs[EVENTS];
    char buf[4096];
    /* --batch: each connection gets at most one answer of each kind per read of it */
    sconn **pend = calloc(4 * EVENTS, sizeof *pend);
    int *pendn = calloc(4 * EVENTS, sizeof *pendn);
    if (pend == NULL || pendn == NULL)
        exit(3);
    for (;;) {
        int np = 0;
        int n = epoll_wait(ep, evs, EVENTS, -1);
        for (int i = 0; i < n; i++) {
            sconn *c = &sc[evs[i].data.u32];
            if (evs[i].events & EPOLLOUT)
                s_flush(ep, c);
            if (!(evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                continue;
            ssize_t r = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
                exit(0);
            for (ssize_t k = r > 0 ? r : 0; k > 0;) {
                int take = MOVE_BYTES - c->rx < k ? MOVE_BYTES - c->rx : (int)k;
                c->rx += take;
                k -= take;
                if (c->rx == MOVE_BYTES) {
                    c->rx = 0;
                    if (batch && np + 2 <= 4 * EVENTS) {
                        pend[np] = c;
                        pendn[np++] = mover_bytes;
                        pend[np] = &sc[c->peer];
                        pendn[np++] = peer_bytes;
                    } else {
                        s_send(ep, c, (size_t)mover_bytes);
                        s_send(ep, &sc[c->peer], (size_t)peer_bytes);
                    }
                }
            }
        }
        for (int k = 0; k < np; k++)
            s_send(ep, pend[k], (size_t)pendn[k]);
    }
    return NULL;
}

/* Accepts the 2 * pairs connections (each says its index first), then serves. */
static void server(int lfd)
{
    int nconn = 2 * pairs;
    sc = calloc((size_t)nconn, sizeof *sc);
    int eps[64];
    for (int t = 0; t < server_threads; t++)
        if ((eps[t] = epoll_create1(0)) < 0)
            die("epoll_create1");
    for (int i = 0; i < nconn; i++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            die("accept");
        uint32_t idx;
        if (recv(fd, &idx, sizeof idx, MSG_WAITALL) != sizeof idx || idx >= (uint32_t)nconn)
            exit(2);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        sc[idx].fd = fd;
        sc[idx].peer = (int)(idx ^ 1u);
    }
    for (int i = 0; i < nconn; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        /* a pair stays on one thread: a move writes to both of its connections */
        if (epoll_ctl(eps[(i / 2) % server_threads], EPOLL_CTL_ADD, sc[i].fd, &ev) != 0)
            die("epoll_ctl");
    }
    for (int t = 1; t < server_threads; t++) {
        pthread_t th;
        pthread_create(&th, NULL, s_loop, (void *)(intptr_t)eps[t]);
    }
    s_loop((void *)(intptr_t)eps[0]);
}

/* ---- the client ---------------------------------------------------------------------- */

typedef struct cconn {
    int fd;
    int want[2], nwant; /* the answers still to come, in order (mover's or peer's bytes) */
    int got;            /* bytes of want[0] read */
    uint64_t sent_ns;   /* when its move went */
} cconn;

static cconn *cc;
static uint64_t *samples;
static size_t nsamples, capsamples;
static uint64_t moves, t_meas, t_end;

static void c_move(int i)
{
    char m[MOVE_BYTES];
    memset(m, 'm', sizeof m);
    cconn *c = &cc[i], *p = &cc[i ^ 1];
    c->sent_ns = now_ns();
    if (send(c->fd, m, sizeof m, MSG_NOSIGNAL) != (ssize_t)sizeof m)
        die("send");
    c->want[c->nwant++] = mover_bytes;
    p->want[p->nwant++] = peer_bytes;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The CPU seconds pid has used (lg_util.c's reading of /proc), -1 when unreadable. */
static double cpu_of(pid_t pid)
{
    uint64_t ticks;
    if (lg_proc_cpu_ticks((int)pid, 0, &ticks) != 0)
        return -1;
    return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec +
           r.ru_stime.tv_usec / 1e6;
}

static int client(int port, pid_t srv)
{
    int nconn = 2 * pairs;
    cc = calloc((size_t)nconn, sizeof *cc);
    int ep = epoll_create1(0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < nconn; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
            die("connect");
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        uint32_t idx = (uint32_t)i;
        if (send(fd, &idx, sizeof idx, 0) != sizeof idx)
            die("send");
        cc[i].fd = fd;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    for (int i = 0; i < nconn; i += 2)
        c_move(i);
    uint64_t t0 = now_ns();
    uint64_t moves0 = 0;
    double srv0 = 0, me0 = 0;
    struct epoll_event evs[EVENTS];
    char buf[8192];
    for (;;) {
        uint64_t now = now_ns();
        if (t_meas == 0 && now - t0 >= (uint64_t)(warmup_s * 1e9)) {
            t_meas = now;
            moves0 = moves;
            nsamples = 0;
            srv0 = cpu_of(srv);
            me0 = self_cpu();
        }
        if (t_meas && now - t_meas >= (uint64_t)(duration_s * 1e9)) {
            t_end = now;
            break;
        }
        int n = epoll_wait(ep, evs, EVENTS, 100);
        for (int e = 0; e < n; e++) {
            int i = (int)evs[e].data.u32;
            cconn *c = &cc[i];
            ssize_t r = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
                fprintf(stderr, "thue-tcp-ceiling: the server closed a connection\n");
                return 1;
            }
            while (r > 0 && c->nwant > 0) {
                int take = c->want[0] - c->got < r ? c->want[0] - c->got : (int)r;
                c->got += take;
                r -= take;
                if (c->got < c->want[0])
                    break;
                int was = c->want[0];
                c->got = 0;
                c->want[0] = c->want[1];
                c->nwant--;
                if (was == mover_bytes && c->sent_ns) {
                    /* its own move answered */
                    moves++;
                    if (t_meas) {
                        if (nsamples == capsamples) {
                            capsamples = capsamples ? 2 * capsamples : 1 << 16;
                            samples = realloc(samples, capsamples * sizeof *samples);
                        }
                        samples[nsamples++] = now_ns() - c->sent_ns;
                    }
                    c->sent_ns = 0;
                } else {
                    c_move(i); /* the other side moved: its turn */
                }
            }
        }
    }
    double window = (double)(t_end - t_meas) / 1e9;
    double srv_cpu = 100.0 * (cpu_of(srv) - srv0) / window;
    double my_cpu = 100.0 * (self_cpu() - me0) / window;
    qsort(samples, nsamples, sizeof *samples, cmp_u64);
    double p50 = nsamples ? samples[nsamples / 2] / 1e6 : 0;
    double p99 = nsamples ? samples[(size_t)(nsamples * 0.99)] / 1e6 : 0;
    double mps = (double)(moves - moves0) / window;
    if (json)
        printf("{\"pairs\":%d,\"server_threads\":%d,\"batch\":%s,\"mover_bytes\":%d,"
               "\"peer_bytes\":%d,\"window_s\":%.3f,\"moves_per_s\":%.1f,\"rtt_ms\":{\"p50\":%.3f,"
               "\"p99\":%.3f},\"server_cpu_pct\":%.1f,\"client_cpu_pct\":%.1f}\n",
               pairs, server_threads, batch ? "true" : "false", mover_bytes, peer_bytes, window,
               mps, p50, p99, srv_cpu, my_cpu);
    else
        printf("thue-tcp-ceiling: %d pairs, %d server thread(s)%s, %d/%d bytes per answer: %.0f "
               "moves/s, p50 %.3f ms, p99 %.3f ms; server CPU %.0f%%, client CPU %.0f%%\n",
               pairs, server_threads, batch ? " batching" : "", mover_bytes, peer_bytes, mps, p50,
               p99, srv_cpu, my_cpu);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: thue-tcp-ceiling [--pairs N] [--server-threads N] [--mover-bytes N]\n"
               "         [--peer-bytes N] [--duration S] [--warmup S] [--batch] [--json]\n"
               "The bench's play traffic over loopback TCP with no server work at all\n"
               "(docs/bench.md). Defaults: 500 pairs (1..20000), 1 server thread (1..64),\n"
               "1000 and 950 bytes (1..1000000, different), 20 s (up to 3600) after a 5 s\n"
               "warm-up (0..3600). --batch: the server writes its answers once it has read\n"
               "the whole epoll batch, as thue-server holds a loop turn's replies.\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = 1;
            continue;
        }
        if (strcmp(a, "--batch") == 0) {
            batch = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        static const char *const known[] = {"--pairs",      "--server-threads", "--mover-bytes",
                                            "--peer-bytes", "--duration",       "--warmup"};
        int is_known = 0;
        for (size_t k = 0; k < sizeof known / sizeof *known; k++)
            is_known |= strcmp(a, known[k]) == 0;
        if (!is_known) {
            fprintf(stderr, "thue-tcp-ceiling: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "thue-tcp-ceiling: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        char *end;
        double v = strtod(argv[++i], &end);
        int bad = *end != '\0' || end == argv[i];
        if (strcmp(a, "--pairs") == 0 && !bad && v >= 1 && v <= 20000)
            pairs = (int)v;
        else if (strcmp(a, "--server-threads") == 0 && !bad && v >= 1 && v <= 64)
            server_threads = (int)v;
        else if (strcmp(a, "--mover-bytes") == 0 && !bad && v >= 1 && v <= 1e6)
            mover_bytes = (int)v;
        else if (strcmp(a, "--peer-bytes") == 0 && !bad && v >= 1 && v <= 1e6)
            peer_bytes = (int)v;
        else if (strcmp(a, "--duration") == 0 && !bad && v > 0 && v <= 3600)
            duration_s = v;
        else if (strcmp(a, "--warmup") == 0 && !bad && v >= 0 && v <= 3600)
            warmup_s = v;
        else {
            fprintf(stderr, "thue-tcp-ceiling: %s wants a number in its range (--help), not '%s'\n",
                    a, argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (mover_bytes == peer_bytes) {
        /* the client tells its own move's answer by its size */
        fprintf(stderr, "thue-tcp-ceiling: --mover-bytes and --peer-bytes must differ\n");
        return 2;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    payload = malloc((size_t)(mover_bytes > peer_bytes ? mover_bytes : peer_bytes));
    memset(payload, 's', (size_t)(mover_bytes > peer_bytes ? mover_bytes : peer_bytes));
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 4096) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) != 0)
        die("listen");
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        server(lfd);
        _exit(0);
    }
    close(lfd);
    int rc = client(ntohs(a.sin_port), pid);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    return rc;
}
