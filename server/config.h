/*
 * config.h: the server's settings, from defaults, a JSON config file, THUE_* environment
 * variables and command-line flags.
 *
 * Precedence, lowest to highest: built-in defaults, the config file (--config FILE or
 * THUE_CONFIG), the environment (THUE_PORT, THUE_BIND, ...: the flag's name in capitals
 * with '-' as '_', prefixed THUE_), the flags. Every setting has all four forms; the
 * config file's keys are the flags' names without the dashes ("port", "web-root").
 * A bad value anywhere is an error naming its source ("THUE_PORT: ...", "config.json:
 * port: ...", "--port: ..."), and the server exits 2.
 */
#ifndef THUE_SERVER_CONFIG_H
#define THUE_SERVER_CONFIG_H

#include <stddef.h>

#include "log.h"

#define THUE_CONFIG_PATH_MAX 1024

/* At most 8 addresses or networks of up to 49 characters (45 and "/128"), with commas. */
#define THUE_CONFIG_PROXIES_MAX 400
#define THUE_CONFIG_PROXIES_N 8

/* A cluster secret: 32..4096 bytes (docs/cluster.md, "Security"). */
#define THUE_CONFIG_SECRET_MIN 32
#define THUE_CONFIG_SECRET_MAX 4096

typedef struct thue_config {
    int port;                           /* --port 0..65535 (0: any free port), default 8080 */
    char bind[64];                      /* --bind ADDRESS, default "0.0.0.0"; 127.0.0.1 = loopback only */
    char web_root[THUE_CONFIG_PATH_MAX]; /* --web-root DIR, default: the installed or source clients/web */
    char db[THUE_CONFIG_PATH_MAX];      /* --db FILE, default "./thue.db"; ":memory:" keeps nothing */
    int threads;                        /* --threads 1..256, bot worker threads, default: CPUs */
    thue_log_level log_level;           /* --log-level error|warn|info|debug, default info */
    int grace_s;                        /* --grace-s 0..3600, seats kept after a lost connection, 60 */
    int max_connections;                /* --max-connections 1..1000000, default 20000 */
    int max_connections_per_ip;         /* --max-connections-per-ip 1..1000000, default 200 */
    int max_rooms_per_player;           /* --max-rooms-per-player 1..1000, default 5 */
    int rate;                           /* --rate 1..10000 messages per second, default 20 */
    int burst;                          /* --burst 1..100000, default 40 */
    int ping_s;                         /* --ping-s 1..3600, ping after this idle time, default 30 */
    int idle_s;                         /* --idle-s 2..7200, drop after this silence, default 60 */
    int send_max_kib;                   /* --send-max-kib 16..1048576: KiB unsent to one
                                           WebSocket before it counts as slow, default 256 */
    int send_total_max_mib;             /* --send-total-max-mib 1..65536: MiB unsent to all
                                           WebSockets together, default 64 */
    int room_linger_s;                  /* --room-linger-s 1..86400: finished or empty rooms, 300 */
    int bot_think_ms;                   /* --bot-think-ms 10..60000: quick match's bots, 2000 */
    int bot_think_max_ms;               /* --bot-think-max-ms 10..60000: the most think_ms a
                                           seat_bot may ask for, 60000 (>= bot_think_ms) */
    int bot_seats_per_owner;            /* --bot-seats-per-owner 1..100000: bots seated with
                                           seat_bot at once per account, or per guest
                                           address (/64), 4 */
    int guest_bot_vs_bot;               /* --guest-bot-vs-bot 0|1: guests may seat a bot
                                           against a bot, 0 */
    int max_rooms;                      /* --max-rooms 1..1000000, default 10000 */
    int room_rate_per_ip;               /* --room-rate-per-ip 1..1000000 rooms one address may
                                           make a minute (create_room and quick match), 60 */
    int max_tournaments;                /* --max-tournaments 1..100000 open and running, 1000 */
    int tournaments_per_account;        /* --tournaments-per-account 1..1000 open ones one
                                           account created, 3 */
    int tournaments_per_ip;             /* --tournaments-per-ip 1..100000 open ones created
                                           from one address, 10 */
    int tournament_rate;                /* --tournament-rate 1..100000 created an hour by one
                                           account, and by one address, 10 */
    int claims_per_ip;                  /* --claims-per-ip 1..100000 accounts one address may
                                           claim an hour, 5 */
    int password_ops;                   /* --password-ops 1..20 Argon2id passes of a new
                                           password hash, 2 */
    int password_mem_mib;               /* --password-mem-mib 1..4096 MiB of a new password
                                           hash, 64 */
    int password_jobs;                  /* --password-jobs 1..64 password hashes computed at
                                           once, 2 */
    int login_fails_per_ip;             /* --login-fails-per-ip 1..100000 failed logins one
                                           address may have an hour, 30 */
    int login_fails_per_name;           /* --login-fails-per-name 1..100000 failed logins of
                                           one name an hour, 10 */
    int rated_min_moves;                /* --rated-min-moves 0..1000 moves each player must
                                           have made for a resigned, timed-out or abandoned
                                           rated match to count, 2 */
    int rated_pair_max;                 /* --rated-pair-max 1..100000 rated matches two
                                           accounts may play each other in 24 h, 5 */
    int max_analyses;                   /* --max-analyses 1..100000 analyses open at once, 16 */
    int reviews;                        /* --reviews 0..64 matches reviewed at once, 1 (0: none) */
    int analysis_iterations_max;        /* --analysis-iterations-max 1..1000000000 iterations
                                           one analysis may run in all, 1000000 */
    int analysis_tree_nodes;            /* --analysis-tree-nodes 1000..16777216 nodes of one
                                           analysis's tree, 1000000 */
    int analyses_per_owner;             /* --analyses-per-owner 1..100000 open ones of one
                                           account or one guest address, 2 */
    int analyses_per_ip;                /* --analyses-per-ip 1..100000 open ones from one
                                           address, accounts included, 4 */
    int analysis_seconds_max;           /* --analysis-seconds-max 1..86400 s of search one
                                           analysis may run in all, 120 */
    int puzzles;                        /* --puzzles 0..1000 puzzles per game generated at
                                           start when the store has fewer, 30; 0: none */
    int puzzles_after_s;                /* --puzzles-after-s 0..86400 s after start before
                                           generating, 10 */
    int analysis_tree_max_kib;          /* --analysis-tree-max-kib 16..1048576 KiB of one
                                           analysis_tree message, 2048 */
    int search_moves_max;               /* --search-moves-max 1000..10000000 legal moves a
                                           position may have to be searched, 100000 */
    int search_mem_mib;                 /* --search-mem-mib: MiB one search may hold, 64 */
    int owner_search_mem_mib;           /* --owner-search-mem-mib: MiB one owner's searches
                                           may hold, 256 */
    int search_mem_total_mib;           /* --search-mem-total-mib: MiB all searches may
                                           hold, 1024 */
    int bot_seats_per_ip;               /* --bot-seats-per-ip 1..100000 bots seated at once
                                           from one address, accounts included, 8 */
    int tournament_expire_s;            /* --tournament-expire-s 1..2592000: an open tournament
                                           not started by then expires, 86400 */
    char trusted_proxy[THUE_CONFIG_PROXIES_MAX]; /* --trusted-proxy ADDRESS[/BITS][,...]:
                                           peers whose X-Forwarded-For names the client (for
                                           the per-address limit and logs), addresses or
                                           networks (net/trusted.h); "" (default): none.
                                           Kept normalized, comma-separated. */
    int request_timeout_s;              /* --request-timeout-s 1..3600: an HTTP request's head
                                           and body must arrive within this (from accept or
                                           the previous response), default 10 */
    int api_rate;                       /* --api-rate 1..100000 /api requests per second per
                                           address, default 10 */
    int api_burst;                      /* --api-burst 1..1000000, default 50 */
    char node[33];                      /* --node NAME: this node's name among several (a-z,
                                           0-9, '-'; 1..32), "" (default): a single server */
    char redis[THUE_CONFIG_PATH_MAX];   /* --redis redis://HOST:PORT | unix:/PATH: the Redis
                                           several nodes share (docs/cluster.md); "" (default):
                                           none, a single server. Needs --node and a
                                           PostgreSQL --db. */
    char redis_password[256];           /* --redis-password TEXT: sent with AUTH; "": none */
    char cluster_secret_file[THUE_CONFIG_PATH_MAX]; /* --cluster-secret-file FILE: the file
                                           holding the cluster secret (its bytes, trailing
                                           newlines left out); "": none */
    char cluster_secret[THUE_CONFIG_SECRET_MAX + 1]; /* THUE_CLUSTER_SECRET (or the config
                                           file's "cluster-secret"): the secret as text; no
                                           flag (ps would show it); "": none */
    unsigned char cluster_key[THUE_CONFIG_SECRET_MAX]; /* the cluster secret's bytes, from
                                           whichever of the two is set (one at most), checked
                                           to be 32..4096 bytes; required with --redis */
    size_t cluster_key_len;             /* 0: none */
    int drain_s;                        /* --drain-s 0..86400: on SIGTERM, seconds to wait for
                                           running matches to end before saying goodbye
                                           (no new rooms meanwhile; /healthz says draining),
                                           default 0 */
    double glicko_tau;                  /* --glicko-tau 0.2..1.2, Glicko-2's system constant
                                           tau for the rating updates (docs/ratings.md), 0.5;
                                           a decimal number, a JSON number in the file */
} thue_config;

void thue_config_defaults(thue_config *c);

/* The CPU limit of this process's cgroup as whole CPUs (rounded up), the smallest on its
 * path up to the root, v2 or v1 (cfs quota); 0: none. sysfs is where the cgroup files are
 * mounted ("/sys/fs/cgroup"; v1's cpu controller under "/cpu") and proc_cgroup the
 * process's "/proc/self/cgroup" (parameters for the tests). The default of --threads is
 * the online CPUs, fewer when the affinity mask or this limit says so. */
long thue__cgroup_cpus(const char *sysfs, const char *proc_cgroup);

/*
 * Reads the settings: defaults, then the config file, the environment and argv (flags
 * only: the server takes no positional arguments). Returns 0 to run, 1 when --help or
 * --version was printed (exit 0), -1 on a bad setting with a sentence in err (exit 2).
 */
int thue_config_load(thue_config *c, int argc, char **argv, char *err, size_t errsize);

/* Whether a --db value names PostgreSQL (postgres:// or postgresql://) rather than an
 * SQLite file. */
int thue_config_db_is_postgres(const char *db);

/* A --redis value: redis://HOST[:PORT][/] (HOST a name, an IPv4 address or [IPv6];
 * PORT 1..65535, default 6379) or unix:/PATH. 0 with host and port set (path "") or path
 * set (host "", port 0); -1 when it is neither. Any output may be NULL. */
int thue_config_redis_parse(const char *url, char *host, size_t hostsize, int *port,
                            char *path, size_t pathsize);

/* The --help text. */
extern const char thue_config_usage[];

#endif
