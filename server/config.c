/*
 * config.c: the server's settings (config.h): defaults, a JSON config file, THUE_*
 * environment variables and flags, in that order of precedence.
 *
 * One table lists every setting with its flag name (which is also its config-file key),
 * its environment variable, its kind and its range; the three sources go through the same
 * checks. argv is read first for its shape only (unknown flags, missing values, --help,
 * --version, --config), so that the config file it names can be applied before the
 * environment, and the flags' values last.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "config.h"
#include "net/trusted.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#ifndef THUE_VERSION
#error "THUE_VERSION comes from CMakeLists.txt's project() version"
#endif

#ifdef THUE_WEB_ROOT_DEFAULT
#define WEB_ROOT_DEFAULT THUE_WEB_ROOT_DEFAULT
#else
#define WEB_ROOT_DEFAULT "clients/web"
#endif

#define THREADS_MAX 256

typedef enum {
    KIND_INT,   /* an integer in min..max */
    KIND_PATH,  /* a non-empty string that fits its buffer */
    KIND_LEVEL, /* error|warn|info|debug */
    KIND_BIND,  /* an IPv4 or IPv6 address, or localhost */
    KIND_REAL,  /* a finite number in rmin..rmax: decimal text, or a JSON number */
    KIND_PROXIES, /* a comma-separated list of IPv4 or IPv6 addresses and prefixes
                     (net/trusted.h), "" or "none": none */
    KIND_NODE,    /* a node's name: 1..32 of a-z, 0-9 and '-', not starting with '-' */
    KIND_REDIS,   /* redis://HOST:PORT or unix:/PATH; "" or "none": none */
    KIND_SECRET   /* a password: any text that fits, never shown in a message */
} setting_kind;

typedef struct setting {
    const char *name; /* the flag without its dashes, and the config-file key */
    const char *env;  /* the environment variable */
    setting_kind kind;
    size_t offset;      /* of the member in thue_config */
    size_t size;        /* of the member (the buffer, for strings) */
    long long min, max; /* KIND_INT */
    double rmin, rmax;  /* KIND_REAL */
    const char *range;  /* KIND_REAL: rmin..rmax as written in messages */
} setting;

#define INT_SETTING(name, env, member, lo, hi)                                                     \
    {                                                                                              \
        name, env, KIND_INT, offsetof(thue_config, member), sizeof(int), lo, hi, 0, 0, NULL        \
    }
#define STR_SETTING(name, env, kind, member)                                                       \
    {                                                                                              \
        name, env, kind, offsetof(thue_config, member), sizeof(((thue_config *)0)->member), 0, 0,  \
            0, 0, NULL                                                                             \
    }
/* lo and hi are written as decimal literals: #lo ".." #hi is the range in messages. */
#define REAL_SETTING(name, env, member, lo, hi)                                                    \
    {                                                                                              \
        name, env, KIND_REAL, offsetof(thue_config, member), sizeof(double), 0, 0, lo, hi,         \
            #lo ".." #hi                                                                           \
    }

static const setting settings[] = {
    INT_SETTING("port", "THUE_PORT", port, 0, 65535),
    STR_SETTING("bind", "THUE_BIND", KIND_BIND, bind),
    STR_SETTING("web-root", "THUE_WEB_ROOT", KIND_PATH, web_root),
    STR_SETTING("db", "THUE_DB", KIND_PATH, db),
    INT_SETTING("threads", "THUE_THREADS", threads, 1, THREADS_MAX),
    {"log-level", "THUE_LOG_LEVEL", KIND_LEVEL, offsetof(thue_config, log_level),
     sizeof(thue_log_level), 0, 0, 0, 0, NULL},
    INT_SETTING("grace-s", "THUE_GRACE_S", grace_s, 0, 3600),
    INT_SETTING("max-connections", "THUE_MAX_CONNECTIONS", max_connections, 1, 1000000),
    INT_SETTING("max-connections-per-ip", "THUE_MAX_CONNECTIONS_PER_IP", max_connections_per_ip, 1,
                1000000),
    INT_SETTING("max-rooms-per-player", "THUE_MAX_ROOMS_PER_PLAYER", max_rooms_per_player, 1, 1000),
    INT_SETTING("rate", "THUE_RATE", rate, 1, 10000),
    INT_SETTING("burst", "THUE_BURST", burst, 1, 100000),
    INT_SETTING("ping-s", "THUE_PING_S", ping_s, 1, 3600),
    INT_SETTING("idle-s", "THUE_IDLE_S", idle_s, 2, 7200),
    INT_SETTING("send-max-kib", "THUE_SEND_MAX_KIB", send_max_kib, 16, 1048576),
    INT_SETTING("send-total-max-mib", "THUE_SEND_TOTAL_MAX_MIB", send_total_max_mib, 1, 65536),
    INT_SETTING("room-linger-s", "THUE_ROOM_LINGER_S", room_linger_s, 1, 86400),
    INT_SETTING("bot-think-ms", "THUE_BOT_THINK_MS", bot_think_ms, 10, 60000),
    INT_SETTING("bot-think-max-ms", "THUE_BOT_THINK_MAX_MS", bot_think_max_ms, 10, 60000),
    INT_SETTING("bot-seats-per-owner", "THUE_BOT_SEATS_PER_OWNER", bot_seats_per_owner, 1, 100000),
    INT_SETTING("bot-seats-per-ip", "THUE_BOT_SEATS_PER_IP", bot_seats_per_ip, 1, 100000),
    INT_SETTING("guest-bot-vs-bot", "THUE_GUEST_BOT_VS_BOT", guest_bot_vs_bot, 0, 1),
    INT_SETTING("max-rooms", "THUE_MAX_ROOMS", max_rooms, 1, 1000000),
    INT_SETTING("room-rate-per-ip", "THUE_ROOM_RATE_PER_IP", room_rate_per_ip, 1, 1000000),
    INT_SETTING("max-tournaments", "THUE_MAX_TOURNAMENTS", max_tournaments, 1, 100000),
    INT_SETTING("tournaments-per-account", "THUE_TOURNAMENTS_PER_ACCOUNT", tournaments_per_account,
                1, 1000),
    INT_SETTING("tournaments-per-ip", "THUE_TOURNAMENTS_PER_IP", tournaments_per_ip, 1, 100000),
    INT_SETTING("tournament-rate", "THUE_TOURNAMENT_RATE", tournament_rate, 1, 100000),
    INT_SETTING("claims-per-ip", "THUE_CLAIMS_PER_IP", claims_per_ip, 1, 100000),
    INT_SETTING("password-ops", "THUE_PASSWORD_OPS", password_ops, 1, 20),
    INT_SETTING("password-mem-mib", "THUE_PASSWORD_MEM_MIB", password_mem_mib, 1, 4096),
    INT_SETTING("password-jobs", "THUE_PASSWORD_JOBS", password_jobs, 1, 64),
    INT_SETTING("login-fails-per-ip", "THUE_LOGIN_FAILS_PER_IP", login_fails_per_ip, 1, 100000),
    INT_SETTING("login-fails-per-name", "THUE_LOGIN_FAILS_PER_NAME", login_fails_per_name, 1,
                100000),
    INT_SETTING("rated-min-moves", "THUE_RATED_MIN_MOVES", rated_min_moves, 0, 1000),
    INT_SETTING("rated-pair-max", "THUE_RATED_PAIR_MAX", rated_pair_max, 1, 100000),
    INT_SETTING("max-analyses", "THUE_MAX_ANALYSES", max_analyses, 1, 100000),
    INT_SETTING("reviews", "THUE_REVIEWS", reviews, 0, 64),
    INT_SETTING("analysis-iterations-max", "THUE_ANALYSIS_ITERATIONS_MAX", analysis_iterations_max,
                1, 1000000000),
    INT_SETTING("analysis-tree-nodes", "THUE_ANALYSIS_TREE_NODES", analysis_tree_nodes, 1000,
                16777216),
    INT_SETTING("analyses-per-owner", "THUE_ANALYSES_PER_OWNER", analyses_per_owner, 1, 100000),
    INT_SETTING("analyses-per-ip", "THUE_ANALYSES_PER_IP", analyses_per_ip, 1, 100000),
    INT_SETTING("puzzles", "THUE_PUZZLES", puzzles, 0, 1000),
    INT_SETTING("puzzles-after-s", "THUE_PUZZLES_AFTER_S", puzzles_after_s, 0, 86400),
    INT_SETTING("analysis-seconds-max", "THUE_ANALYSIS_SECONDS_MAX", analysis_seconds_max, 1,
                86400),
    INT_SETTING("analysis-tree-max-kib", "THUE_ANALYSIS_TREE_MAX_KIB", analysis_tree_max_kib, 16,
                1048576),
    INT_SETTING("search-moves-max", "THUE_SEARCH_MOVES_MAX", search_moves_max, 1000, 10000000),
    INT_SETTING("search-mem-mib", "THUE_SEARCH_MEM_MIB", search_mem_mib, 1, 1048576),
    INT_SETTING("owner-search-mem-mib", "THUE_OWNER_SEARCH_MEM_MIB", owner_search_mem_mib, 1,
                1048576),
    INT_SETTING("search-mem-total-mib", "THUE_SEARCH_MEM_TOTAL_MIB", search_mem_total_mib, 1,
                1048576),
    INT_SETTING("tournament-expire-s", "THUE_TOURNAMENT_EXPIRE_S", tournament_expire_s, 1, 2592000),
    REAL_SETTING("glicko-tau", "THUE_GLICKO_TAU", glicko_tau, 0.2, 1.2),
    STR_SETTING("trusted-proxy", "THUE_TRUSTED_PROXY", KIND_PROXIES, trusted_proxy),
    STR_SETTING("node", "THUE_NODE", KIND_NODE, node),
    STR_SETTING("redis", "THUE_REDIS", KIND_REDIS, redis),
    STR_SETTING("redis-password", "THUE_REDIS_PASSWORD", KIND_SECRET, redis_password),
    STR_SETTING("cluster-secret-file", "THUE_CLUSTER_SECRET_FILE", KIND_PATH, cluster_secret_file),
    STR_SETTING("cluster-secret", "THUE_CLUSTER_SECRET", KIND_SECRET, cluster_secret),
    INT_SETTING("drain-s", "THUE_DRAIN_S", drain_s, 0, 86400),
    INT_SETTING("request-timeout-s", "THUE_REQUEST_TIMEOUT_S", request_timeout_s, 1, 3600),
    INT_SETTING("api-rate", "THUE_API_RATE", api_rate, 1, 100000),
    INT_SETTING("api-burst", "THUE_API_BURST", api_burst, 1, 1000000),
};

#define NSETTINGS (sizeof settings / sizeof settings[0])

/* Where a setting's value came from, for messages that involve two settings. */
typedef enum { SRC_DEFAULT, SRC_FILE, SRC_ENV, SRC_FLAG } source_kind;

typedef struct source {
    source_kind kind;
    const char *file; /* SRC_FILE: the config file's name */
} source;

const char thue_config_usage[] =
    "Usage: thue-server [--FLAG VALUE | --FLAG=VALUE]...\n"
    "\n"
    "Serves the online Thue game on one port: the browser client (/), the game's\n"
    "WebSocket (/ws), /healthz, /metrics and the HTTP API (/api/...).\n"
    "Stop it with SIGINT (Ctrl-C) or SIGTERM: players are told, then it exits.\n"
    "\n"
    "  FLAG                        DEFAULT    RANGE AND MEANING\n"
    "  --config FILE               none       a JSON file of settings (see below)\n"
    "  --port N                    8080       0..65535; 0 takes any free port\n"
    "  --bind ADDRESS              0.0.0.0    IPv4 or IPv6 address, or localhost;\n"
    "                                         127.0.0.1 serves this machine only\n"
    "  --web-root DIR              see below  the static files served at /\n"
    "  --db FILE|URI               ./thue.db  SQLite database; :memory: keeps none;\n"
    "                                         postgres://... PostgreSQL (several\n"
    "                                         nodes share one)\n"
    "  --threads N                 CPUs       1..256 worker threads for the bots\n"
    "  --log-level LEVEL           info       error, warn, info or debug\n"
    "  --grace-s N                 60         0..3600 s a lost player's seats wait\n"
    "  --max-connections N         20000      1..1000000 connections in all (HTTP and\n"
    "                                         WebSocket; fewer if ulimit -n is low)\n"
    "  --max-connections-per-ip N  200        1..1000000 connections from one address\n"
    "                                         (an IPv6 address: its /64)\n"
    "  --request-timeout-s N       10         1..3600 s for an HTTP request to arrive\n"
    "                                         whole (408 and close past it)\n"
    "  --api-rate N                10         1..100000 /api requests a second from\n"
    "                                         one address (429 past it)\n"
    "  --api-burst N               50         1..1000000 /api requests at once\n"
    "  --max-rooms N               10000      1..1000000 rooms on the server\n"
    "  --max-rooms-per-player N    5          1..1000 open rooms one player created\n"
    "  --room-rate-per-ip N        60         1..1000000 rooms one address may make\n"
    "                                         a minute (create_room, quick match)\n"
    "  --max-tournaments N         1000       1..100000 open and running tournaments\n"
    "  --tournaments-per-account N 3          1..1000 open tournaments one account\n"
    "                                         created\n"
    "  --tournaments-per-ip N      10         1..100000 open tournaments created from\n"
    "                                         one address\n"
    "  --tournament-rate N         10         1..100000 tournaments one account, and\n"
    "                                         one address, may create an hour\n"
    "  --tournament-expire-s N     86400      1..2592000 s an open tournament waits\n"
    "                                         to be started before it expires\n"
    "  --claims-per-ip N           5          1..100000 accounts one address may\n"
    "                                         claim (claim_name): N at once, then N\n"
    "                                         an hour as the bucket refills\n"
    "  --password-ops N            2          1..20 Argon2id passes of a new password\n"
    "                                         hash (login, set_password)\n"
    "  --password-mem-mib N        64         1..4096 MiB of memory a password hash\n"
    "                                         takes while it is computed\n"
    "  --password-jobs N           2          1..64 password hashes computed at once\n"
    "                                         (each takes --password-mem-mib)\n"
    "  --login-fails-per-ip N      30         1..100000 failed logins one address\n"
    "                                         may have an hour (rate_limited past)\n"
    "  --login-fails-per-name N    10         1..100000 failed logins to one account\n"
    "                                         name an hour, from anywhere\n"
    "  --rated-min-moves N         2          0..1000 moves each player must make\n"
    "                                         for a rated match that ends by resign,\n"
    "                                         timeout or abandon to be rated\n"
    "  --rated-pair-max N          5          1..100000 rated matches two accounts\n"
    "                                         may play each other in 24 h; later\n"
    "                                         ones are unrated\n"
    "  --max-analyses N            16         1..100000 analyses open at once on the\n"
    "                                         server (server_busy past it)\n"
    "  --analysis-iterations-max N 1000000    1..1000000000 iterations one analysis\n"
    "                                         may run in all, resumes included\n"
    "  --analysis-tree-nodes N     1000000    1000..16777216 nodes an analysis's\n"
    "                                         tree may hold (about 72 bytes each)\n"
    "  --analyses-per-owner N      2          1..100000 analyses one account, or the\n"
    "                                         guests of one address, may have open\n"
    "  --analyses-per-ip N         4          1..100000 analyses open from one\n"
    "                                         address (IPv6: its /64), accounts\n"
    "                                         included; never all --max-analyses\n"
    "  --analysis-seconds-max N    120        1..86400 s of search one analysis may\n"
    "                                         run in all, resumes included\n"
    "  --puzzles N                 30         0..1000 puzzles per game generated on\n"
    "                                         the worker pool when the database has\n"
    "                                         fewer (0: none)\n"
    "  --puzzles-after-s N         10         0..86400 s after start before the\n"
    "                                         puzzles are counted and generated\n"
    "  --analysis-tree-max-kib N   2048       16..1048576 KiB of one analysis_tree\n"
    "                                         message (at most half of\n"
    "                                         --send-total-max-mib): fewer nodes are\n"
    "                                         shown past it\n"
    "  --reviews N                 1          0..64 finished matches reviewed at once\n"
    "                                         by the exact solvers, in the background\n"
    "                                         (the others when asked for); 0: none\n"
    "  --search-moves-max N        100000     1000..10000000 legal moves a position\n"
    "                                         may have for a bot or an analysis to\n"
    "                                         search it (bad_bot, bad_options past)\n"
    "  --search-mem-mib N          64         1..1048576 MiB of trees and tables one\n"
    "                                         search may hold (a bot's move, an\n"
    "                                         analysis); past it the tree stops\n"
    "                                         growing or the table is smaller\n"
    "  --owner-search-mem-mib N    256        1..1048576 MiB the searches of one\n"
    "                                         account, or of one guest address, may\n"
    "                                         hold together\n"
    "  --search-mem-total-mib N    1024       1..1048576 MiB all searches may hold\n"
    "  --rate N                    20         1..10000 messages/s per connection\n"
    "  --burst N                   40         1..100000 messages sent at once\n"
    "  --ping-s N                  30         1..3600 s of silence before a ping\n"
    "  --idle-s N                  60         2..7200 s of silence before a drop\n"
    "                                         (more than --ping-s); any message,\n"
    "                                         frame or pong from the client counts\n"
    "  --send-max-kib N            256        16..1048576 KiB unsent to one\n"
    "                                         WebSocket: over it for 2 s, or over\n"
    "                                         twice it, the connection is dropped\n"
    "                                         (goodbye slow)\n"
    "  --send-total-max-mib N      64         1..65536 MiB unsent to all\n"
    "                                         WebSockets: past it the largest\n"
    "                                         backlogs are dropped\n"
    "  --room-linger-s N           300        1..86400 s an ended or empty room stays\n"
    "  --bot-think-ms N            2000       10..60000 ms per move of the bots the\n"
    "                                         server seats itself (quick match)\n"
    "  --bot-think-max-ms N        60000      10..60000 the most think_ms a seat_bot\n"
    "                                         may ask for (bad_bot past it)\n"
    "  --bot-seats-per-owner N     4          1..100000 bots seated with seat_bot at\n"
    "                                         once by one account, or by one guest\n"
    "                                         (each session on its own)\n"
    "  --bot-seats-per-ip N        8          1..100000 bots seated with seat_bot at\n"
    "                                         once from one address (IPv6: its\n"
    "                                         /64), accounts and guests together\n"
    "  --guest-bot-vs-bot N        0          0..1: 1 lets guests seat a bot against\n"
    "                                         a bot; 0 keeps that for accounts\n"
    "  --glicko-tau X              0.5        0.2..1.2 Glicko-2's system constant\n"
    "                                         tau: how fast volatilities change\n"
    "  --trusted-proxy LIST        none       up to 8 comma-separated addresses or\n"
    "                                         networks (10.244.0.0/16, fd00::/8) of\n"
    "                                         reverse proxies: a connection from one\n"
    "                                         counts as the client its\n"
    "                                         X-Forwarded-For names (per-address\n"
    "                                         limit, logs)\n"
    "  --node NAME                 none       this node's name among several (1..32\n"
    "                                         of a-z, 0-9, -); shown by /healthz\n"
    "  --redis URL                 none       redis://HOST:PORT or unix:/PATH: the\n"
    "                                         Redis that several nodes share; needs\n"
    "                                         --node and a postgres:// --db\n"
    "  --redis-password TEXT       none       the Redis's password (requirepass);\n"
    "                                         better THUE_REDIS_PASSWORD or the\n"
    "                                         config file: a flag shows in ps\n"
    "  --cluster-secret-file FILE  none       the secret every node of a cluster\n"
    "                                         shares (32..4096 bytes; trailing\n"
    "                                         newlines left out): signs and encrypts\n"
    "                                         their messages, hides resume tokens;\n"
    "                                         required with --redis\n"
    "  --cluster-secret TEXT       none       the same secret as text, from\n"
    "                                         THUE_CLUSTER_SECRET or the config file\n"
    "                                         only (the flag is refused: ps shows\n"
    "                                         it); one of the two at most\n"
    "  --drain-s N                 0          0..86400 s a SIGTERM waits for running\n"
    "                                         matches to end (no new rooms meanwhile,\n"
    "                                         /healthz draining) before goodbye\n"
    "  -h, --help                             print this help and exit\n"
    "  --version                              print the version and exit\n"
    "\n"
    "The web root defaults to " WEB_ROOT_DEFAULT "\n"
    "\n"
    "Every setting also comes from the environment and from a config file:\n"
    "  environment  THUE_ and the flag's name in capitals with '-' as '_':\n"
    "               THUE_PORT=8080, THUE_MAX_CONNECTIONS_PER_IP=50; THUE_CONFIG=FILE\n"
    "               names the config file. An empty variable counts as unset.\n"
    "  config file  one JSON object whose keys are the flags' names without dashes,\n"
    "               integers as JSON integers, glicko-tau as a JSON number and the\n"
    "               rest as strings:\n"
    "               {\"port\": 8080, \"bind\": \"127.0.0.1\", \"glicko-tau\": 0.6}\n"
    "Precedence, lowest first: defaults, config file, environment, flags.\n"
    "\n"
    "Exit status: 0 after a clean shutdown or --help or --version; 1 when the server\n"
    "cannot start (the port is in use, say); 2 on a bad setting.\n";

static int fail(char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errsize, const char *fmt, ...)
{
    if (err != NULL && errsize > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsize, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Wipes memory that held a secret (a plain memset may be optimised away). */
static void wipe_secret(void *p, size_t n)
{
    volatile unsigned char *v = p;
    while (n--)
        *v++ = 0;
}

/* text in double quotes for a message: at most 60 bytes of it, with control characters
 * as '?' and '"' and '\' escaped. */
static const char *quoted(const char *text, char *buf, size_t bufsize)
{
    size_t o = 0, i = 0;
    buf[o++] = '"';
    for (; text[i] != '\0' && i < 60 && o + 8 < bufsize; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '"' || ch == '\\')
            buf[o++] = '\\';
        buf[o++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
    }
    if (text[i] != '\0') {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

#define QUOTE_BUF 140

/* A flag as typed, for a message: at most 60 bytes, control characters as '?'. */
static const char *shown_flag(const char *text, size_t len, char *buf, size_t bufsize)
{
    size_t n = len > 60 ? 60 : len;
    snprintf(buf, bufsize, "%.*s%s", (int)n, text, len > n ? "..." : "");
    for (char *p = buf; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

static const setting *find_setting(const char *name, size_t len)
{
    for (size_t i = 0; i < NSETTINGS; i++)
        if (strlen(settings[i].name) == len && strncmp(settings[i].name, name, len) == 0)
            return &settings[i];
    return NULL;
}

static int *int_member(thue_config *c, const setting *s)
{
    return (int *)(void *)((char *)c + s->offset);
}

static int int_value(const thue_config *c, const setting *s)
{
    return *(const int *)(const void *)((const char *)c + s->offset);
}

static char *str_member(thue_config *c, const setting *s)
{
    return (char *)c + s->offset;
}

static double *real_member(thue_config *c, const setting *s)
{
    return (double *)(void *)((char *)c + s->offset);
}

/* Stores v after its range check; shown is how the value was written (for the message). */
static int set_real(thue_config *c, const setting *s, double v, const char *shown,
                    const char *where, char *err, size_t errsize)
{
    if (!isfinite(v) || v < s->rmin || v > s->rmax)
        return fail(err, errsize, "%s: %s is out of range %s", where, shown, s->range);
    *real_member(c, s) = v;
    return 0;
}

/* Whether text is a decimal number: an optional sign, digits with at most one '.' (at
 * least one digit in all), an optional exponent (e or E, an optional sign, digits).
 * Refuses what strtod would also take: spaces, "inf", "nan", hexadecimal. */
static int is_decimal(const char *text)
{
    const char *p = text;
    int digits = 0;
    if (*p == '-' || *p == '+')
        p++;
    for (; *p >= '0' && *p <= '9'; p++)
        digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (digits == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

/* A real setting's value written as text (a flag's or an environment variable's). */
static int set_real_text(thue_config *c, const setting *s, const char *text, const char *where,
                         char *err, size_t errsize)
{
    char q[QUOTE_BUF];
    if (!is_decimal(text))
        return fail(err, errsize, "%s: %s is not a number", where, quoted(text, q, sizeof q));
    char *end;
    double v = strtod(text, &end);
    if (*end != '\0')
        return fail(err, errsize, "%s: %s is not a number", where, quoted(text, q, sizeof q));
    /* Digits, signs, '.' and 'e' only: shown as typed, the first 30 characters. Overflow
     * (1e400) gives infinity and underflow (1e-400) zero or nearly: out of range. */
    char shown[40];
    snprintf(shown, sizeof shown, "%.30s%s", text, strlen(text) > 30 ? "..." : "");
    return set_real(c, s, v, shown, where, err, errsize);
}

/* Stores v after its range check; shown is how the value was written (for the message). */
static int set_int(thue_config *c, const setting *s, long long v, const char *shown,
                   const char *where, char *err, size_t errsize)
{
    if (v < s->min || v > s->max)
        return fail(err, errsize, "%s: %s is out of range %lld..%lld", where, shown, s->min,
                    s->max);
    *int_member(c, s) = (int)v;
    return 0;
}

/* A string setting's value, len bytes long (jansson refuses \u0000 in a string). */
static int set_string(thue_config *c, const setting *s, const char *text, size_t len,
                      const char *where, char *err, size_t errsize)
{
    char q[QUOTE_BUF];
    switch (s->kind) {
    case KIND_PATH:
        if (len == 0)
            return fail(err, errsize, "%s: the value is empty", where);
        if (len >= s->size)
            return fail(err, errsize, "%s: %s is too long (at most %zu bytes)", where,
                        quoted(text, q, sizeof q), s->size - 1);
        memcpy(str_member(c, s), text, len + 1);
        return 0;
    case KIND_LEVEL: {
        thue_log_level level;
        if (thue_log_parse_level(text, &level) != 0)
            return fail(err, errsize, "%s: %s is not a log level (error, warn, info or debug)",
                        where, quoted(text, q, sizeof q));
        *(thue_log_level *)(void *)((char *)c + s->offset) = level;
        return 0;
    }
    case KIND_BIND: {
        unsigned char addr[16];
        char norm[INET6_ADDRSTRLEN];
        if (strcasecmp(text, "localhost") == 0) {
            snprintf(norm, sizeof norm, "127.0.0.1");
        } else if (inet_pton(AF_INET, text, addr) == 1) {
            inet_ntop(AF_INET, addr, norm, sizeof norm);
        } else if (inet_pton(AF_INET6, text, addr) == 1) {
            inet_ntop(AF_INET6, addr, norm, sizeof norm);
        } else {
            return fail(err, errsize,
                        "%s: %s is not an IPv4 address (0.0.0.0, 127.0.0.1), an IPv6 "
                        "address (::, ::1) or localhost",
                        where, quoted(text, q, sizeof q));
        }
        snprintf(str_member(c, s), s->size, "%s", norm);
        return 0;
    }
    case KIND_PROXIES: {
        char out[THUE_CONFIG_PROXIES_MAX] = "";
        if (len == 0 || strcmp(text, "none") == 0) {
            str_member(c, s)[0] = '\0';
            return 0;
        }
        const char *p = text;
        for (int n = 0; *p != '\0' || n == 0; n++) {
            while (*p == ' ')
                p++;
            size_t item = strcspn(p, ",");
            while (item > 0 && p[item - 1] == ' ')
                item--;
            char one[INET6_ADDRSTRLEN + 8];
            char norm[THUE_TRUSTED_TEXT_MAX];
            thue_trusted t;
            if (n == THUE_CONFIG_PROXIES_N)
                return fail(err, errsize, "%s: more than %d addresses", where,
                            THUE_CONFIG_PROXIES_N);
            if (item == 0 || item >= sizeof one)
                return fail(err, errsize, "%s: %s: expected addresses separated by commas",
                            where, quoted(text, q, sizeof q));
            memcpy(one, p, item);
            one[item] = '\0';
            switch (thue_trusted_parse(one, &t)) {
            case THUE_TRUSTED_OK:
                break;
            case THUE_TRUSTED_EBITS:
                return fail(err, errsize,
                            "%s: %s: the prefix length after '/' must be a number 0..%d "
                            "for an %s address",
                            where, quoted(one, q, sizeof q), t.bits,
                            t.bits == 32 ? "IPv4" : "IPv6");
            case THUE_TRUSTED_EHOST: {
                const char *bits = strchr(one, '/') + 1; /* as written: a network has one */
                thue_trusted_format(&t, norm, sizeof norm);
                return fail(err, errsize,
                            "%s: %s is not a network: its address has bits set past its "
                            "first %s bits (the network is %s; one address alone is "
                            "written without /%s)",
                            where, quoted(one, q, sizeof q), bits, norm, bits);
            }
            default:
                return fail(err, errsize, "%s: %s is not an IPv4 or IPv6 %s", where,
                            quoted(one, q, sizeof q),
                            strchr(one, '/') ? "prefix (10.0.0.0/8, fd00::/8)" : "address");
            }
            thue_trusted_format(&t, norm, sizeof norm);
            size_t used = strlen(out);
            snprintf(out + used, sizeof out - used, "%s%s", used ? "," : "", norm);
            p += item;
            while (*p == ' ')
                p++;
            if (*p == ',' && *++p == '\0')
                return fail(err, errsize, "%s: %s ends with a comma", where,
                            quoted(text, q, sizeof q));
        }
        snprintf(str_member(c, s), s->size, "%s", out);
        return 0;
    }
    case KIND_NODE: {
        size_t ok = strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (len == 0 || len >= s->size || ok != len || text[0] == '-')
            return fail(err, errsize,
                        "%s: %s is not a node name (1..%zu characters of a-z, 0-9 and '-', "
                        "not starting with '-')",
                        where, quoted(text, q, sizeof q), s->size - 1);
        memcpy(str_member(c, s), text, len + 1);
        return 0;
    }
    case KIND_REDIS:
        if (len == 0 || strcmp(text, "none") == 0) {
            str_member(c, s)[0] = '\0';
            return 0;
        }
        if (len >= s->size)
            return fail(err, errsize, "%s: %s is too long (at most %zu bytes)", where,
                        quoted(text, q, sizeof q), s->size - 1);
        if (thue_config_redis_parse(text, NULL, 0, NULL, NULL, 0) != 0)
            return fail(err, errsize,
                        "%s: %s is not a Redis address (redis://HOST:PORT, redis://HOST for "
                        "port 6379, or unix:/PATH)",
                        where, quoted(text, q, sizeof q));
        memcpy(str_member(c, s), text, len + 1);
        return 0;
    case KIND_SECRET:
        if (len >= s->size)
            return fail(err, errsize, "%s: the value is too long (at most %zu bytes)", where,
                        s->size - 1);
        memcpy(str_member(c, s), text, len + 1);
        return 0;
    case KIND_INT:
    case KIND_REAL:
        break;
    }
    return fail(err, errsize, "%s: internal error: not a string setting", where);
}

/* A value written as text (a flag's or an environment variable's). */
static int set_from_text(thue_config *c, const setting *s, const char *text, const char *where,
                         char *err, size_t errsize)
{
    if (s->kind == KIND_REAL)
        return set_real_text(c, s, text, where, err, errsize);
    if (s->kind != KIND_INT)
        return set_string(c, s, text, strlen(text), where, err, errsize);
    char q[QUOTE_BUF];
    const char *p = text;
    if (*p == '-' || *p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return fail(err, errsize, "%s: %s is not an integer", where, quoted(text, q, sizeof q));
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*end != '\0')
        return fail(err, errsize, "%s: %s is not an integer", where, quoted(text, q, sizeof q));
    if (errno == ERANGE) /* digits only: shown as typed, the first 30 of them */
        return fail(err, errsize, "%s: %.30s%s is out of range %lld..%lld", where, text,
                    strlen(text) > 30 ? "..." : "", s->min, s->max);
    return set_int(c, s, v, text, where, err, errsize);
}

/* The limit in one cgroup directory: v2's cpu.max ("QUOTA PERIOD" or "max PERIOD"), or
 * v1's cpu.cfs_quota_us and cpu.cfs_period_us (quota -1: none), as whole CPUs rounded up;
 * 0 when there is none or it does not read. */
static long cgroup_dir_cpus(const char *dir, int v2)
{
    char path[PATH_MAX + 32];
    long long quota = -1, period = 0;
    snprintf(path, sizeof path, "%s/%s", dir, v2 ? "cpu.max" : "cpu.cfs_quota_us");
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    /* v2: "max PERIOD" (no limit) does not read as two numbers */
    if (fscanf(f, "%lld %lld", &quota, &period) != (v2 ? 2 : 1))
        quota = -1;
    fclose(f);
    if (!v2) {
        snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
        f = fopen(path, "r");
        if (f == NULL || fscanf(f, "%lld", &period) != 1)
            period = 0;
        if (f != NULL)
            fclose(f);
    }
    if (quota <= 0 || period <= 0)
        return 0;
    long long n = (quota + period - 1) / period;
    return n > 1000000 ? 1000000 : (long)n;
}

long thue__cgroup_cpus(const char *sysfs, const char *proc_cgroup)
{
    FILE *f = fopen(proc_cgroup, "r");
    if (f == NULL)
        return 0;
    char line[PATH_MAX + 64];
    long best = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        /* "0::/path" (v2) or "N:cpu,cpuacct:/path" (v1) */
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL || c2[1] != '/')
            continue;
        *c2 = '\0';
        const char *ctrl = c1 + 1, *cg = c2 + 1;
        int v2 = ctrl[0] == '\0';
        int v1cpu = 0;
        for (const char *p = ctrl; !v2 && *p;) {
            size_t n = strcspn(p, ",");
            if (n == 3 && strncmp(p, "cpu", 3) == 0)
                v1cpu = 1;
            p += n + (p[n] == ',');
        }
        if (!v2 && !v1cpu)
            continue;
        char dir[PATH_MAX];
        int n = snprintf(dir, sizeof dir, "%s%s%s", sysfs, v2 ? "" : "/cpu",
                         strcmp(cg, "/") == 0 ? "" : cg);
        if (n < 0 || (size_t)n >= sizeof dir)
            continue;
        size_t root = strlen(sysfs) + (v2 ? 0 : 4);
        /* the limits of the cgroup and of every parent up to the root apply */
        for (;;) {
            long lim = cgroup_dir_cpus(dir, v2);
            if (lim > 0 && (best == 0 || lim < best))
                best = lim;
            char *slash = strrchr(dir, '/');
            if (strlen(dir) <= root || slash == NULL || (size_t)(slash - dir) < root)
                break;
            *slash = '\0';
        }
    }
    fclose(f);
    return best;
}

/* The CPUs this process may run on: the online ones, fewer when its affinity mask or its
 * cgroup's CPU limit (a container's, a systemd unit's CPUQuota=) says so; at least 1. */
static long usable_cpus(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        long n = CPU_COUNT(&set);
        if (n > 0 && (cpus < 1 || n < cpus))
            cpus = n;
    }
    long lim = thue__cgroup_cpus("/sys/fs/cgroup", "/proc/self/cgroup");
    if (lim > 0 && (cpus < 1 || lim < cpus))
        cpus = lim;
    return cpus < 1 ? 1 : cpus;
}

void thue_config_defaults(thue_config *c)
{
    memset(c, 0, sizeof *c);
    c->port = 8080;
    snprintf(c->bind, sizeof c->bind, "%s", "0.0.0.0");
    snprintf(c->web_root, sizeof c->web_root, "%s", WEB_ROOT_DEFAULT);
    snprintf(c->db, sizeof c->db, "%s", "./thue.db");
    long cpus = usable_cpus();
    if (cpus > THREADS_MAX)
        cpus = THREADS_MAX;
    c->threads = (int)cpus;
    c->log_level = THUE_LOG_INFO;
    c->grace_s = 60;
    c->max_connections = 20000;
    c->max_connections_per_ip = 200;
    c->max_rooms_per_player = 5;
    c->rate = 20;
    c->burst = 40;
    c->ping_s = 30;
    c->idle_s = 60;
    c->send_max_kib = 256;
    c->send_total_max_mib = 64;
    c->room_linger_s = 300;
    c->bot_think_ms = 2000;
    c->bot_think_max_ms = 60000;
    c->bot_seats_per_owner = 4;
    c->guest_bot_vs_bot = 0;
    c->max_rooms = 10000;
    c->room_rate_per_ip = 60;
    c->max_tournaments = 1000;
    c->tournaments_per_account = 3;
    c->tournaments_per_ip = 10;
    c->tournament_rate = 10;
    c->tournament_expire_s = 86400;
    c->claims_per_ip = 5;
    c->password_ops = 2;
    c->password_mem_mib = 64;
    c->password_jobs = 2;
    c->login_fails_per_ip = 30;
    c->login_fails_per_name = 10;
    c->rated_min_moves = 2;
    c->rated_pair_max = 5;
    c->max_analyses = 16;
    c->reviews = 1;
    c->analysis_iterations_max = 1000000;
    c->analysis_tree_nodes = 1000000;
    c->analyses_per_owner = 2;
    c->analyses_per_ip = 4;
    c->analysis_seconds_max = 120;
    c->puzzles = 30;
    c->puzzles_after_s = 10;
    c->analysis_tree_max_kib = 2048;
    c->search_moves_max = 100000;
    c->search_mem_mib = 64;
    c->owner_search_mem_mib = 256;
    c->search_mem_total_mib = 1024;
    c->bot_seats_per_ip = 8;
    c->glicko_tau = 0.5;
    c->request_timeout_s = 10;
    c->api_rate = 10;
    c->api_burst = 50;
    c->drain_s = 0;
}

int thue_config_db_is_postgres(const char *db)
{
    return strncmp(db, "postgres://", 11) == 0 || strncmp(db, "postgresql://", 13) == 0;
}

int thue_config_redis_parse(const char *url, char *host, size_t hostsize, int *port,
                            char *path, size_t pathsize)
{
    if (strncmp(url, "unix:", 5) == 0) {
        const char *p = url + 5;
        if (p[0] != '/' || p[1] == '\0' || strlen(p) >= THUE_CONFIG_PATH_MAX)
            return -1;
        if (path != NULL)
            snprintf(path, pathsize, "%s", p);
        if (host != NULL && hostsize > 0)
            host[0] = '\0';
        if (port != NULL)
            *port = 0;
        return 0;
    }
    if (strncmp(url, "redis://", 8) != 0)
        return -1;
    const char *h = url + 8;
    const char *end = h + strlen(h);
    if (end > h && end[-1] == '/')
        end--;
    const char *colon = NULL;
    const char *hend = end;
    if (*h == '[') { /* [IPv6]:port */
        const char *close = memchr(h, ']', (size_t)(end - h));
        if (close == NULL || close == h + 1)
            return -1;
        if (close + 1 < end && close[1] != ':')
            return -1;
        colon = close + 1 < end ? close + 1 : NULL;
        hend = close + 1;
    } else {
        colon = memchr(h, ':', (size_t)(end - h));
        if (colon != NULL)
            hend = colon;
    }
    size_t hl = (size_t)(hend - h);
    if (hl == 0 || hl >= 256 || memchr(h, '@', hl) != NULL || memchr(h, '/', hl) != NULL)
        return -1;
    long pn = 6379;
    if (colon != NULL) {
        if (colon + 1 >= end || (size_t)(end - colon - 1) > 5)
            return -1;
        pn = 0;
        for (const char *d = colon + 1; d < end; d++) {
            if (*d < '0' || *d > '9')
                return -1;
            pn = pn * 10 + (*d - '0');
        }
        if (pn < 1 || pn > 65535)
            return -1;
    }
    if (host != NULL) {
        const char *hs = h, *he = hend;
        if (*hs == '[') {
            hs++;
            he--;
        }
        snprintf(host, hostsize, "%.*s", (int)(he - hs), hs);
    }
    if (port != NULL)
        *port = (int)pn;
    if (path != NULL && pathsize > 0)
        path[0] = '\0';
    return 0;
}

/* ---- the config file ---- */

static const char *json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number with a fraction or exponent";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "something else";
}

/* The line and column of the first character that is not JSON whitespace (where the
 * document's value starts), counted as jansson counts them. */
static void value_start(FILE *f, int *line, int *column)
{
    int ch;
    *line = 1;
    *column = 0;
    rewind(f);
    while ((ch = getc(f)) != EOF) {
        if (ch == '\n') {
            (*line)++;
            *column = 0;
            continue;
        }
        (*column)++;
        if (ch != ' ' && ch != '\t' && ch != '\r')
            return;
    }
}

/* v in the fewest significant digits that read back as v (0.7, not 0.69999999999999996;
 * -100, not -1e+02). */
static void shortest_real(double v, char *buf, size_t bufsize)
{
    if (v > -1e15 && v < 1e15 && v == (double)(long long)v) {
        snprintf(buf, bufsize, "%.0f", v);
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, bufsize, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Applies the config file path (named by `from`: --config or THUE_CONFIG). */
static int apply_file(thue_config *c, const char *path, const char *from, source *src, char *err,
                      size_t errsize)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fail(err, errsize, "%s: cannot read the config file (named by %s): %s", path, from,
                    strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return fail(err, errsize, "%s: is a directory, not a config file (named by %s)", path,
                    from);
    }
    json_error_t jerr;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        int failed_read = ferror(f);
        int e = errno;
        fclose(f);
        if (failed_read)
            return fail(err, errsize, "%s: cannot read the config file: %s", path, strerror(e));
        return fail(err, errsize, "%s:%d:%d: not valid JSON: %s", path, jerr.line,
                    jerr.column < 1 ? 1 : jerr.column, jerr.text);
    }
    if (!json_is_object(root)) {
        int line, column;
        value_start(f, &line, &column);
        fclose(f);
        int r = fail(err, errsize, "%s:%d:%d: expected a JSON object of settings, found %s", path,
                     line, column, json_type_name(root));
        json_decref(root);
        return r;
    }
    fclose(f);

    int r = 0;
    const char *key;
    json_t *value;
    char q[QUOTE_BUF];
    json_object_foreach(root, key, value)
    {
        const setting *s = find_setting(key, strlen(key));
        if (s == NULL) {
            if (strcmp(key, "config") == 0)
                r = fail(err, errsize, "%s: config: a config file cannot name another one", path);
            else
                r = fail(err, errsize,
                         "%s: unknown key %s (the keys are the flags' names without dashes; "
                         "see --help)",
                         path, quoted(key, q, sizeof q));
            break;
        }
        char where[THUE_CONFIG_PATH_MAX + 64];
        snprintf(where, sizeof where, "%s: %s", path, s->name);
        if (s->kind == KIND_INT) {
            if (!json_is_integer(value)) {
                r = fail(err, errsize, "%s: expected an integer, found %s", where,
                         json_type_name(value));
                break;
            }
            long long v = json_integer_value(value);
            char shown[32];
            snprintf(shown, sizeof shown, "%lld", v);
            r = set_int(c, s, v, shown, where, err, errsize);
        } else if (s->kind == KIND_REAL) {
            if (!json_is_number(value)) {
                r = fail(err, errsize, "%s: expected a number, found %s", where,
                         json_type_name(value));
                break;
            }
            char shown[40];
            if (json_is_integer(value))
                snprintf(shown, sizeof shown, "%lld", (long long)json_integer_value(value));
            else
                shortest_real(json_real_value(value), shown, sizeof shown);
            r = set_real(c, s, json_number_value(value), shown, where, err, errsize);
        } else {
            if (!json_is_string(value)) {
                r = fail(err, errsize, "%s: expected a string, found %s", where,
                         json_type_name(value));
                break;
            }
            r = set_string(c, s, json_string_value(value), json_string_length(value), where, err,
                           errsize);
        }
        if (r != 0)
            break;
        src[s - settings] = (source){SRC_FILE, path};
    }
    json_decref(root);
    return r;
}

/* ---- the cluster secret ---- */

/* Reads the cluster secret's file into c->cluster_key (where: the setting and its
 * source, for messages). Trailing newlines are not part of the secret (a file made with
 * `openssl rand -hex 32 > FILE` ends with one). */
static int read_secret_file(thue_config *c, const char *where, char *err, size_t errsize)
{
    const char *path = c->cluster_secret_file;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fail(err, errsize, "%s: cannot read the cluster secret's file %s: %s", where, path,
                    strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return fail(err, errsize, "%s: %s is not a regular file", where, path);
    }
    /* Room for the longest secret and two newline characters: more is too long. */
    unsigned char buf[THUE_CONFIG_SECRET_MAX + 3];
    size_t n = fread(buf, 1, sizeof buf, f);
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        wipe_secret(buf, sizeof buf);
        return fail(err, errsize, "%s: cannot read the cluster secret's file %s: %s", where, path,
                    strerror(e));
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    if (n > THUE_CONFIG_SECRET_MAX) {
        wipe_secret(buf, sizeof buf);
        return fail(err, errsize,
                    "%s: %s holds more than %d bytes: a cluster secret's file holds the secret "
                    "only",
                    where, path, THUE_CONFIG_SECRET_MAX);
    }
    if (n < THUE_CONFIG_SECRET_MIN) {
        wipe_secret(buf, sizeof buf);
        return fail(err, errsize,
                    "%s: %s holds %zu bytes: a cluster secret is at least %d (make one with "
                    "`openssl rand -hex 32 > FILE`, mode 600)",
                    where, path, n, THUE_CONFIG_SECRET_MIN);
    }
    memcpy(c->cluster_key, buf, n);
    c->cluster_key_len = n;
    wipe_secret(buf, sizeof buf);
    return 0;
}

/* ---- argv ---- */

typedef enum { FLAG_SETTING, FLAG_CONFIG, FLAG_HELP, FLAG_VERSION } flag_kind;

typedef struct flag_use {
    flag_kind kind;
    const setting *s;  /* FLAG_SETTING */
    const char *value; /* FLAG_SETTING, FLAG_CONFIG */
} flag_use;

/* Reads argv[*i] (and its value, advancing *i). Returns 0, or -1 with a message. */
static int read_flag(int argc, char **argv, int *i, flag_use *use, char *err, size_t errsize)
{
    const char *arg = argv[*i];
    char q[QUOTE_BUF];
    if (strcmp(arg, "-h") == 0) {
        use->kind = FLAG_HELP;
        return 0;
    }
    if (arg[0] != '-')
        return fail(err, errsize,
                    "unexpected argument %s: thue-server takes flags only",
                    quoted(arg, q, sizeof q));
    if (arg[1] != '-' || arg[2] == '\0')
        return fail(err, errsize, "unknown flag %s",
                    shown_flag(arg, strlen(arg), q, sizeof q));

    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    int takes_value = 1;
    use->s = NULL;
    if (len == 4 && strncmp(name, "help", 4) == 0) {
        use->kind = FLAG_HELP;
        takes_value = 0;
    } else if (len == 7 && strncmp(name, "version", 7) == 0) {
        use->kind = FLAG_VERSION;
        takes_value = 0;
    } else if (len == 6 && strncmp(name, "config", 6) == 0) {
        use->kind = FLAG_CONFIG;
    } else if ((use->s = find_setting(name, len)) != NULL) {
        use->kind = FLAG_SETTING;
    } else {
        return fail(err, errsize, "unknown flag %s",
                    shown_flag(arg, len + 2, q, sizeof q));
    }
    if (!takes_value) {
        if (eq)
            return fail(err, errsize, "--%.*s takes no value", (int)len, name);
        return 0;
    }
    if (eq) {
        use->value = eq + 1;
        return 0;
    }
    /* "--port --bind x": the next flag is not taken as the value (--web-root=--x is). */
    if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0)
        return fail(err, errsize, "--%s needs a value", name);
    use->value = argv[++*i];
    return 0;
}

static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return (v == NULL || v[0] == '\0') ? NULL : v;
}

static void describe(const setting *s, const thue_config *c, const source *src, char *buf,
                     size_t bufsize)
{
    char v[80];
    if (s->kind == KIND_INT) {
        snprintf(v, sizeof v, "%d", int_value(c, s));
    } else {
        /* A string's value, shown short: a URI may be long, and the password of a
         * PostgreSQL URI is not for logs. */
        const char *text = (const char *)c + s->offset;
        snprintf(v, sizeof v, "\"%.40s%s\"", text, strlen(text) > 40 ? "..." : "");
        if ((s->kind == KIND_PATH && thue_config_db_is_postgres(text)) || s->kind == KIND_SECRET)
            snprintf(v, sizeof v, "%s", s->kind == KIND_SECRET ? "hidden" : "postgres://...");
    }
    switch (src->kind) {
    case SRC_DEFAULT:
        snprintf(buf, bufsize, "%s (%s, the default)", s->name, v);
        break;
    case SRC_FILE:
        snprintf(buf, bufsize, "%s (%s, from %s)", s->name, v, src->file);
        break;
    case SRC_ENV:
        snprintf(buf, bufsize, "%s (%s, from %s)", s->name, v, s->env);
        break;
    case SRC_FLAG:
        snprintf(buf, bufsize, "%s (%s, from --%s)", s->name, v, s->name);
        break;
    }
}

int thue_config_load(thue_config *c, int argc, char **argv, char *err, size_t errsize)
{
    if (err != NULL && errsize > 0)
        err[0] = '\0';
    thue_config_defaults(c);
    source src[NSETTINGS];
    for (size_t k = 0; k < NSETTINGS; k++)
        src[k] = (source){SRC_DEFAULT, NULL};

    /* argv's shape first: errors from left to right, --help and --version as they come. */
    flag_use *uses = calloc(argc > 0 ? (size_t)argc : 1, sizeof *uses);
    if (uses == NULL)
        return fail(err, errsize, "out of memory reading the flags");
    int nuses = 0;
    const char *config_path = NULL;
    const char *config_from = NULL;
    for (int i = 1; i < argc; i++) {
        flag_use use = {0};
        if (read_flag(argc, argv, &i, &use, err, errsize) != 0) {
            free(uses);
            return -1;
        }
        if (use.kind == FLAG_HELP || use.kind == FLAG_VERSION) {
            free(uses);
            fputs(use.kind == FLAG_HELP ? thue_config_usage
                                        : "thue-server " THUE_VERSION "\n",
                  stdout);
            fflush(stdout);
            return 1;
        }
        if (use.kind == FLAG_SETTING && strcmp(use.s->name, "cluster-secret") == 0) {
            free(uses);
            return fail(err, errsize,
                        "--cluster-secret: a flag shows in ps and /proc/PID/cmdline; give the "
                        "cluster secret in a file (--cluster-secret-file FILE), in "
                        "THUE_CLUSTER_SECRET or in the config file");
        }
        if (use.kind == FLAG_CONFIG) {
            if (use.value[0] == '\0') {
                free(uses);
                return fail(err, errsize, "--config: the file name is empty");
            }
            config_path = use.value;
            config_from = "--config";
        }
        uses[nuses++] = use;
    }

    int r = 0;
    if (config_path == NULL && (config_path = env_value("THUE_CONFIG")) != NULL)
        config_from = "THUE_CONFIG";
    if (config_path != NULL)
        r = apply_file(c, config_path, config_from, src, err, errsize);

    for (size_t k = 0; r == 0 && k < NSETTINGS; k++) {
        const char *v = env_value(settings[k].env);
        if (v == NULL)
            continue;
        r = set_from_text(c, &settings[k], v, settings[k].env, err, errsize);
        src[k] = (source){SRC_ENV, NULL};
    }

    for (int u = 0; r == 0 && u < nuses; u++) {
        if (uses[u].kind != FLAG_SETTING)
            continue;
        const setting *s = uses[u].s;
        char where[64];
        snprintf(where, sizeof where, "--%s", s->name);
        r = set_from_text(c, s, uses[u].value, where, err, errsize);
        src[s - settings] = (source){SRC_FLAG, NULL};
    }
    free(uses);
    if (r != 0)
        return -1;

    /* A connection is pinged before it can be dropped for silence. */
    if (c->ping_s >= c->idle_s) {
        const setting *ping = find_setting("ping-s", 6), *idle = find_setting("idle-s", 6);
        char a[THUE_CONFIG_PATH_MAX + 64], b[THUE_CONFIG_PATH_MAX + 64];
        describe(ping, c, &src[ping - settings], a, sizeof a);
        describe(idle, c, &src[idle - settings], b, sizeof b);
        return fail(err, errsize, "%s must be less than %s", a, b);
    }
    /* Several nodes share one database: SQLite's file belongs to one process. */
    if (c->redis[0] != '\0') {
        const setting *rs = find_setting("redis", 5);
        char a[THUE_CONFIG_PATH_MAX + 64], b[THUE_CONFIG_PATH_MAX + 64];
        describe(rs, c, &src[rs - settings], a, sizeof a);
        if (c->node[0] == '\0')
            return fail(err, errsize,
                        "%s makes this server one node of several: it needs --node NAME "
                        "(THUE_NODE), a name of its own",
                        a);
        if (!thue_config_db_is_postgres(c->db)) {
            const setting *db = find_setting("db", 2);
            describe(db, c, &src[db - settings], b, sizeof b);
            return fail(err, errsize,
                        "%s makes this server one node of several, which share one database: "
                        "%s must be a PostgreSQL URI (postgres://...), not an SQLite file",
                        a, b);
        }
    }
    /* The cluster secret: from its file or as text, one of the two; 32 bytes at least. */
    const setting *sf = find_setting("cluster-secret-file", 19),
                  *st = find_setting("cluster-secret", 14);
    c->cluster_key_len = 0;
    if (c->cluster_secret_file[0] != '\0' && c->cluster_secret[0] != '\0') {
        char a[THUE_CONFIG_PATH_MAX + 64], b[THUE_CONFIG_PATH_MAX + 64];
        describe(sf, c, &src[sf - settings], a, sizeof a);
        describe(st, c, &src[st - settings], b, sizeof b);
        return fail(err, errsize,
                    "%s and %s are both set: give the cluster secret one way only", a, b);
    }
    if (c->cluster_secret_file[0] != '\0') {
        char where[64];
        if (src[sf - settings].kind == SRC_FLAG)
            snprintf(where, sizeof where, "--cluster-secret-file");
        else if (src[sf - settings].kind == SRC_ENV)
            snprintf(where, sizeof where, "THUE_CLUSTER_SECRET_FILE");
        else
            snprintf(where, sizeof where, "cluster-secret-file");
        if (read_secret_file(c, where, err, errsize) != 0)
            return -1;
    } else if (c->cluster_secret[0] != '\0') {
        size_t n = strlen(c->cluster_secret);
        if (n < THUE_CONFIG_SECRET_MIN)
            return fail(err, errsize,
                        "%s: the cluster secret is %zu bytes: it must be at least %d (make one "
                        "with `openssl rand -hex 32`)",
                        src[st - settings].kind == SRC_ENV ? "THUE_CLUSTER_SECRET"
                                                           : "cluster-secret",
                        n, THUE_CONFIG_SECRET_MIN);
        memcpy(c->cluster_key, c->cluster_secret, n);
        c->cluster_key_len = n;
    }
    if (c->redis[0] != '\0' && c->cluster_key_len == 0) {
        const setting *rs = find_setting("redis", 5);
        char a[THUE_CONFIG_PATH_MAX + 64];
        describe(rs, c, &src[rs - settings], a, sizeof a);
        return fail(err, errsize,
                    "%s makes this server one node of several: it needs the cluster secret "
                    "that every node shares, --cluster-secret-file FILE "
                    "(THUE_CLUSTER_SECRET_FILE) or THUE_CLUSTER_SECRET, at least %d bytes "
                    "(make it once with `openssl rand -hex 32 > FILE`; docs/cluster.md)",
                    a, THUE_CONFIG_SECRET_MIN);
    }
    /* The server's own bots keep the limit it sets for everyone's; one search holds no
     * more than its owner may, an owner no more than all. */
    static const struct {
        const char *small, *large, *why;
    } ordered[] = {
        {"bot-think-ms", "bot-think-max-ms", ""},
        {"search-mem-mib", "owner-search-mem-mib", " (one search is one owner's)"},
        {"owner-search-mem-mib", "search-mem-total-mib", " (one owner's searches are some of all)"},
    };
    for (size_t i = 0; i < sizeof ordered / sizeof ordered[0]; i++) {
        const setting *lo = find_setting(ordered[i].small, strlen(ordered[i].small)),
                      *hi = find_setting(ordered[i].large, strlen(ordered[i].large));
        if (*int_member(c, lo) <= *int_member(c, hi))
            continue;
        char a[THUE_CONFIG_PATH_MAX + 64], b[THUE_CONFIG_PATH_MAX + 64];
        describe(lo, c, &src[lo - settings], a, sizeof a);
        describe(hi, c, &src[hi - settings], b, sizeof b);
        return fail(err, errsize, "%s must be at most %s%s", a, b, ordered[i].why);
    }
    return 0;
}
