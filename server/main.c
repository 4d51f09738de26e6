/*
 * main.c: thue-server: settings (config.h), then the loop with its parts: the metrics, the
 * bot worker pool, the lobby and the network layer; a graceful shutdown on SIGINT/SIGTERM.
 *
 * Exit status: 0 after a clean shutdown (or --help/--version), 1 when the server cannot
 * start (port in use, unreadable web root, ...) or on a second signal during shutdown,
 * 2 on a bad setting.
 *
 * Shutdown, all on the loop thread:
 *   1. the first SIGINT/SIGTERM: the network layer stops accepting WebSocket connections
 *      (HTTP 503, /healthz says "stopping"); the lobby says goodbye (shutdown) to every
 *      client, closes each with 1001 and cancels its bot jobs (the pool's stop flags end
 *      running searches early);
 *   2. thue_net_close waits until every connection has finished closing (at most 2 s),
 *      then takes libwebsockets down; every connection still open is dropped and the
 *      lobby hears of each;
 *   3. then the store closes: its queued writes are committed and their callbacks run
 *      (match_end for the matches just recorded), then the lobby (it must outlive every
 *      connection and the store's callbacks), then the pool (it must outlive the
 *      lobby), then the signal handles; uv_run returns and the loop closes with nothing
 *      left on it.
 * A second signal during shutdown exits at once with status 1 (for an operator who does
 * not want to wait).
 *
 * Draining (--drain-s N > 0), before step 1, while matches are running: the lobby starts
 * no new room or match (thue_lobby_drain), /healthz answers 503 "draining" so that a
 * balancer sends no one new, and connections are still accepted (a player of a running
 * match may come back). Every 250 ms the server looks whether a match still runs; when
 * none does, or N seconds have passed, or a second signal comes, it goes on with step 1.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>
#include <uv.h>

#include "cluster/cluster.h"
#include "config.h"
#include "lobby/lobby.h"
#include "lobby/puzzles.h"
#include "log.h"
#include "metrics.h"
#include "net/net.h"
#include "password.h"
#include "protocol/codec.h"
#include "search/pool.h"
#include "store/store.h"

typedef struct app {
    uv_loop_t loop;
    thue_config cfg;
    thue_metrics metrics;
    thue_mem_budget *mem; /* the searches' memory budgets, shared by the pool and the lobby */
    thue_pool *pool;
    thue_lobby *lobby;
    thue_store *store;
    thue_puzzles *puzzles; /* the puzzle service: stopped before the store closes, freed
                              once the pool is closed */
    thue_net *net;
    thue_cluster *cluster; /* --redis: one node of several, or NULL */
    uv_signal_t sigint, sigterm;
    int signals_open;
    int stopping;
    int draining;
    uv_timer_t drain_timer; /* open while draining */
    uint64_t drain_deadline;
} app;

/* ---- shutdown ---------------------------------------------------------------------------- */

static void signal_closed(uv_handle_t *h)
{
    (void)h;
}

static void close_signals(app *a);

static void pool_closed(void *data)
{
    app *a = data;
    a->pool = NULL;
    thue_puzzles_free(a->puzzles); /* no task of its can come back now */
    a->puzzles = NULL;
    thue_mem_budget_free(a->mem); /* every search's account is closed: the lobby's and the
                                     pool's are gone */
    a->mem = NULL;
    close_signals(a);
    if (a->stopping)
        thue_log(THUE_LOG_INFO, "stopped");
}

/* A review's position where a player let a win go: a puzzle if exactly one move wins. */
static int offer_puzzle(void *ctx, const thue_gamedef *g, const thue_gopt *opt, const void *st,
                        const char *match_id)
{
    return thue_puzzles_offer(ctx, g, opt, st, match_id);
}

static void lobby_closed(void *data)
{
    app *a = data;
    a->lobby = NULL;
    thue_pool_close(a->pool, pool_closed, a);
}

static void store_closed(void *data)
{
    app *a = data;
    a->store = NULL;
    thue_lobby_close(a->lobby, lobby_closed, a);
}

/* The store closes before the lobby: closing runs the callbacks of its queued jobs
 * (committed matches announced, accounts answered), which need the lobby. */
static void net_closed(void *data)
{
    app *a = data;
    a->net = NULL;
    /* Nobody is connected: the cluster goes before the store, whose callbacks (matches
     * recorded) would otherwise tell the other nodes through it. */
    if (a->cluster != NULL) {
        thue_lobby_set_cluster(a->lobby, NULL);
        thue_cluster_free(a->cluster);
        a->cluster = NULL;
    }
    thue_puzzles_stop(a->puzzles); /* no more writes: the store is closing */
    if (a->store)
        thue_store_close(a->store, store_closed, a);
    else
        store_closed(a);
}

static void shut_down(app *a)
{
    a->stopping = 1;
    thue_net_stop_accepting(a->net);
    thue_lobby_shutdown(a->lobby);
    /* Out of the cluster now (its record, rooms and tickets deleted), not after the TTL:
     * the commands go out while the connections close (thue_net_close). */
    if (a->cluster != NULL)
        (void)thue_cluster_leave(a->cluster, NULL, NULL);
    thue_net_close(a->net, net_closed, a);
}

static void drain_timer_closed(uv_handle_t *h)
{
    (void)h;
}

static void drain_end(app *a, const char *why)
{
    a->draining = 0;
    uv_timer_stop(&a->drain_timer);
    uv_close((uv_handle_t *)&a->drain_timer, drain_timer_closed);
    thue_log(THUE_LOG_INFO, "drained (%s): shutting down", why);
    shut_down(a);
}

static void drain_tick(uv_timer_t *t)
{
    app *a = t->data;
    int running = thue_lobby_running_matches(a->lobby);
    if (running == 0)
        drain_end(a, "no match runs");
    else if (uv_now(&a->loop) >= a->drain_deadline)
        drain_end(a, "--drain-s is over");
}

static void on_signal(uv_signal_t *s, int signum)
{
    app *a = s->data;
    const char *name = signum == SIGINT ? "SIGINT" : "SIGTERM";
    if (a->draining) {
        thue_log(THUE_LOG_WARN, "%s while draining: not waiting for the matches", name);
        drain_end(a, name);
        return;
    }
    if (a->stopping) {
        /* _exit: the workers may still be running a search; nothing is flushed or freed. */
        thue_log(THUE_LOG_WARN, "%s during shutdown: exiting now", name);
        _exit(1);
    }
    int running = thue_lobby_running_matches(a->lobby);
    if (a->cfg.drain_s > 0 && running > 0 &&
        uv_timer_init(&a->loop, &a->drain_timer) == 0) {
        a->draining = 1;
        a->drain_timer.data = a;
        a->drain_deadline = uv_now(&a->loop) + (uint64_t)a->cfg.drain_s * 1000;
        thue_log(THUE_LOG_INFO,
                 "%s: draining: waiting up to %d s for %d running matches to end (a second "
                 "signal stops at once)",
                 name, a->cfg.drain_s, running);
        thue_net_set_draining(a->net, 1);
        thue_lobby_drain(a->lobby);
        uv_timer_start(&a->drain_timer, drain_tick, 250, 250);
        return;
    }
    thue_log(THUE_LOG_INFO, "%s: shutting down", name);
    shut_down(a);
}

/* ---- the loop ---------------------------------------------------------------------------- */

static void log_handle(uv_handle_t *h, void *arg)
{
    (void)arg;
    thue_log(THUE_LOG_ERROR, "handle still open at exit: %s%s", uv_handle_type_name(h->type),
             uv_is_closing(h) ? " (closing)" : "");
}

/* Runs the loop until nothing is left on it and closes it; 0, or -1 when a handle was left
 * open (a bug: the handles are logged). */
static int finish_loop(uv_loop_t *loop)
{
    uv_run(loop, UV_RUN_DEFAULT);
    /* One more pass for close callbacks queued by the last ones. */
    uv_run(loop, UV_RUN_NOWAIT);
    int r = uv_loop_close(loop);
    if (r == 0)
        return 0;
    thue_log(THUE_LOG_ERROR, "the loop did not close: %s", uv_strerror(r));
    uv_walk(loop, log_handle, NULL);
    return -1;
}

/* Each connection is a descriptor: lift the soft limit to what the settings need (the
 * connections and a reserve), as far as the hard limit lets us. Not blindly to the hard
 * limit: libwebsockets sizes tables by the soft limit (16 bytes a descriptor), and a hard
 * limit of a million would cost it 16 MB for nothing. The network layer then fits its
 * connection limit under what we got, and says so when that is fewer (net/peer.c). */
static void raise_fd_limit(int max_connections)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t want = (rlim_t)max_connections + 1024;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        rlim_t old = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            rl.rlim_cur = old;
    }
}

/* The address to print: the bind address, "localhost" for the wildcard, brackets around
 * IPv6. */
static void url_host(const char *bind, char *buf, size_t size)
{
    if (bind[0] == '\0' || strcmp(bind, "0.0.0.0") == 0 || strcmp(bind, "::") == 0)
        snprintf(buf, size, "localhost");
    else if (strchr(bind, ':'))
        snprintf(buf, size, "[%s]", bind);
    else
        snprintf(buf, size, "%s", bind);
}

static void close_signals(app *a)
{
    if (!a->signals_open)
        return;
    a->signals_open = 0;
    uv_close((uv_handle_t *)&a->sigint, signal_closed);
    uv_close((uv_handle_t *)&a->sigterm, signal_closed);
}

/* One node of several (--redis, --node): the cluster client, its hooks the lobby's. It
 * connects in the background and comes back after every loss (cluster.h); until it is
 * up the node serves alone. */
static int start_cluster(app *a, char *err, size_t errsize)
{
    char host[80];
    url_host(a->cfg.bind, host, sizeof host);
    char address[THUE_CLUSTER_ADDRESS_MAX];
    snprintf(address, sizeof address, "http://%s:%d", host, thue_net_port(a->net));
    /* The cluster secret (config.c read and checked it): a file others may read is
     * allowed (a container's secret may be mounted so), and said. */
    struct stat st;
    if (a->cfg.cluster_secret_file[0] != '\0' && stat(a->cfg.cluster_secret_file, &st) == 0 &&
        (st.st_mode & 0007) != 0)
        thue_log(THUE_LOG_WARN,
                 "the cluster secret's file %s can be read by every user of this machine "
                 "(chmod 600 it)",
                 a->cfg.cluster_secret_file);
    _Static_assert(sizeof a->metrics.cluster_dropped / sizeof a->metrics.cluster_dropped[0] ==
                       THUE_CLUSTER_DROP_REASONS,
                   "a metric per reason of a drop");
    thue_cluster_config cc = {
        .url = a->cfg.redis,
        .password = a->cfg.redis_password[0] != '\0' ? a->cfg.redis_password : NULL,
        .secret = a->cfg.cluster_key,
        .secret_len = a->cfg.cluster_key_len,
        .drop_counts = a->metrics.cluster_dropped,
        .node = a->cfg.node,
        .address = address,
        .hooks =
            {
                .state = thue_lobby_cluster_state,
                .broadcast = thue_lobby_cluster_event,
                .message = thue_lobby_cluster_event,
                .paired = thue_lobby_cluster_paired,
                .data = a->lobby,
            },
    };
    a->cluster = thue_cluster_new(&a->loop, &cc, err, errsize);
    /* The cluster keeps keys derived from the secret: the secret itself goes now. */
    sodium_memzero(a->cfg.cluster_key, sizeof a->cfg.cluster_key);
    sodium_memzero(a->cfg.cluster_secret, sizeof a->cfg.cluster_secret);
    a->cfg.cluster_key_len = 0;
    if (a->cluster == NULL)
        return -1;
    thue_lobby_set_cluster(a->lobby, a->cluster);
    thue_log(THUE_LOG_INFO, "node %s of several: Redis at %s", a->cfg.node, a->cfg.redis);
    return 0;
}

/* Starts the parts in order; 0, or -1 with everything opened so far being closed (the
 * caller then runs the loop to finish that). */
static int start(app *a)
{
    char err[512];
    int r = uv_signal_init(&a->loop, &a->sigint);
    if (r == 0) {
        r = uv_signal_init(&a->loop, &a->sigterm);
        if (r != 0)
            uv_close((uv_handle_t *)&a->sigint, signal_closed);
    }
    if (r != 0) {
        fprintf(stderr, "thue-server: cannot watch signals: %s\n", uv_strerror(r));
        return -1;
    }
    a->signals_open = 1;
    a->sigint.data = a->sigterm.data = a;
    thue_mem_limits ml = {(uint64_t)a->cfg.search_mem_mib << 20,
                          (uint64_t)a->cfg.owner_search_mem_mib << 20,
                          (uint64_t)a->cfg.search_mem_total_mib << 20};
    a->mem = thue_mem_budget_new(&ml);
    thue_pool_config pc = {.threads = a->cfg.threads, .mem = a->mem};
    a->pool = a->mem != NULL ? thue_pool_new_config(&a->loop, &pc) : NULL;
    if (a->pool == NULL) {
        thue_mem_budget_free(a->mem);
        a->mem = NULL;
        fprintf(stderr, "thue-server: cannot start %d worker threads\n", a->cfg.threads);
        close_signals(a);
        return -1;
    }
    thue_lobby_config lc = {
        .grace_s = a->cfg.grace_s,
        .max_rooms_per_player = a->cfg.max_rooms_per_player,
        .max_rooms = a->cfg.max_rooms,
        .room_linger_s = a->cfg.room_linger_s,
        .bot_think_ms = a->cfg.bot_think_ms,
        .bot_think_max_ms = a->cfg.bot_think_max_ms,
        .bot_seats_per_owner = a->cfg.bot_seats_per_owner,
        .guest_bot_vs_bot = a->cfg.guest_bot_vs_bot != 0,
        .rate = a->cfg.rate,
        .burst = a->cfg.burst,
        .seed = 0,
        .tau = a->cfg.glicko_tau,
        .room_rate_per_ip = a->cfg.room_rate_per_ip,
        .max_tournaments = a->cfg.max_tournaments,
        .tournaments_per_account = a->cfg.tournaments_per_account,
        .tournaments_per_ip = a->cfg.tournaments_per_ip,
        .tournament_rate = a->cfg.tournament_rate,
        .tournament_expire_s = a->cfg.tournament_expire_s,
        .ping_s = a->cfg.ping_s,
        .idle_s = a->cfg.idle_s,
        .claims_per_ip = a->cfg.claims_per_ip,
        .password_ops = a->cfg.password_ops,
        .password_mem_mib = a->cfg.password_mem_mib,
        .password_jobs = a->cfg.password_jobs,
        .login_fails_per_ip = a->cfg.login_fails_per_ip,
        .login_fails_per_name = a->cfg.login_fails_per_name,
        .rated_min_moves = a->cfg.rated_min_moves,
        .rated_pair_max = a->cfg.rated_pair_max,
        .max_analyses = a->cfg.max_analyses,
        .reviews = a->cfg.reviews > 0 ? a->cfg.reviews : -1,
        .analysis_iterations_max = a->cfg.analysis_iterations_max,
        .analysis_tree_nodes = a->cfg.analysis_tree_nodes,
        .analyses_per_owner = a->cfg.analyses_per_owner,
        .analyses_per_ip = a->cfg.analyses_per_ip,
        .analysis_seconds_max = a->cfg.analysis_seconds_max,
        /* A tree message never more than half of what all connections may have unsent
         * (past that it could only be dropped). */
        .analysis_tree_max_bytes =
            (size_t)a->cfg.analysis_tree_max_kib << 10 < (size_t)a->cfg.send_total_max_mib << 19
                ? (size_t)a->cfg.analysis_tree_max_kib << 10
                : (size_t)a->cfg.send_total_max_mib << 19,
        .search_moves_max = a->cfg.search_moves_max,
        .bot_seats_per_ip = a->cfg.bot_seats_per_ip,
    };
    snprintf(lc.node, sizeof lc.node, "%s", a->cfg.node);
    a->lobby = thue_lobby_new(&a->loop, &lc, a->pool, &a->metrics);
    if (a->lobby == NULL) {
        fputs("thue-server: out of memory starting the lobby\n", stderr);
        thue_pool_close(a->pool, pool_closed, a); /* then the signal handles */
        return -1;
    }
    /* The database: opened, migrated and read into memory before anyone connects. */
    a->store = thue_store_open(a->cfg.db, err, sizeof err);
    int bad = a->store == NULL ||
              thue_store_load(a->store, thue_lobby_load_account, thue_lobby_load_rating,
                              thue_lobby_load_tournament, a->lobby, err, sizeof err) != 0 ||
              thue_store_load_tokens(a->store, thue_lobby_load_token, a->lobby, err,
                                     sizeof err) != 0;
    if (!bad)
        thue_lobby_recover_tournament_results(a->lobby, a->store);
    if (!bad && thue_store_start(a->store, &a->loop) != 0) {
        snprintf(err, sizeof err, "cannot start the database thread for %.200s", a->cfg.db);
        bad = 1;
    }
    if (bad) {
        fprintf(stderr, "thue-server: %s\n", err);
        net_closed(a); /* the store (if open), the lobby, the pool, the signal handles */
        return -1;
    }
    thue_lobby_set_store(a->lobby, a->store);
    thue_lobby_resume_tournaments(a->lobby);
    a->net = thue_net_new(&a->loop, &a->cfg, a->lobby, a->pool, &a->metrics, err, sizeof err);
    if (a->net == NULL) {
        fprintf(stderr, "thue-server: %s\n", err);
        net_closed(a); /* the store, the lobby, the pool, the signal handles */
        return -1;
    }
    thue_net_set_store(a->net, a->store);
    a->puzzles = thue_puzzles_start(&a->loop, a->pool, a->store, a->cfg.puzzles,
                                    a->cfg.puzzles_after_s * 1000);
    if (a->puzzles != NULL)
        thue_lobby_set_puzzle_offer(a->lobby, offer_puzzle, a->puzzles);
    if (a->cfg.redis[0] != '\0' && start_cluster(a, err, sizeof err) != 0) {
        fprintf(stderr, "thue-server: %s\n", err);
        shut_down(a);
        return -1;
    }
    uv_signal_start(&a->sigint, on_signal, SIGINT);
    uv_signal_start(&a->sigterm, on_signal, SIGTERM);
    return 0;
}

int main(int argc, char **argv)
{
    static app a; /* zeroed; large (the config holds paths) */
    char err[512];
    int r = thue_config_load(&a.cfg, argc, argv, err, sizeof err);
    if (r > 0)
        return 0;
    if (r < 0) {
        fprintf(stderr, "thue-server: %s\ntry 'thue-server --help' for the settings\n", err);
        return 2;
    }
    thue_log_set_level(a.cfg.log_level);
    thue_codec_init();
    /* libsodium (account passwords), once, before any thread hashes. */
    if (thue_password_init() != 0) {
        fputs("thue-server: libsodium cannot start (no random source?)\n", stderr);
        return 1;
    }
    /* A peer that vanishes mid-write must be an error code, not a fatal signal. */
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit(a.cfg.max_connections);

    r = uv_loop_init(&a.loop);
    if (r != 0) {
        fprintf(stderr, "thue-server: cannot start the event loop: %s\n", uv_strerror(r));
        return 1;
    }
    thue_metrics_init(&a.metrics);
    if (start(&a) != 0) {
        finish_loop(&a.loop);
        return 1;
    }

    char host[80];
    url_host(a.cfg.bind, host, sizeof host);
    int port = thue_net_port(a.net);
    printf("thue-server listening on http://%s:%d\n", host, port);
    fflush(stdout);
    thue_log(THUE_LOG_INFO, "listening on http://%s:%d (web root %s, %d worker thread%s)", host,
             port, a.cfg.web_root, a.cfg.threads, a.cfg.threads == 1 ? "" : "s");

    return finish_loop(&a.loop) == 0 ? 0 : 1;
}
