/*
 * lg.h: the load generator's shared pieces: options (lg_args.c), the report's helpers
 * (lg_report.c) and the run (loadgen.c).
 */
#ifndef THUE_LOADGEN_H
#define THUE_LOADGEN_H

#include <stddef.h>
#include <stdint.h>

#include "games/thue/engine/repetition.h"

typedef struct lg_opts {
    char server[512];
    char host[64]; /* numeric loopback address to connect to */
    int port;
    char path[256];
    int matches;
    double bot_share;
    int idle;
    double duration_s, warmup_s;
    long max_matches;
    int server_pid;
    thue_variant variant;
    int k, limit;
    double connect_rate;
    int json;
    char bot_spec[101];
    int bot_think_ms;
    int search_rooms;
    char search_spec[101];
    int search_think_ms;
    int verbose;
    int check;       /* --check: also decode every room_state with the codec and compare */
    int protocol;    /* --protocol: 1 (thue.v1) or 2 (thue.v2) */
    int spectators;  /* --spectators: per pair's room */
    int check_every; /* --check-every: a model check by sync every N updates; 0: none */
    unsigned seed;
    /* --source: the local addresses the connections are bound to, in turn (none: the
     * kernel's choice). Each address has its own ephemeral ports, so several of them get
     * more connections to one server than the port range allows. */
#define LG_SOURCES_MAX 64
    char sources[LG_SOURCES_MAX][48];
    int nsources;
} lg_opts;

/* Parses argv into *o: 0, 1 after --help (printed), or 2 after a bad flag (reported on
 * stderr). */
int lg_parse_args(int argc, char **argv, lg_opts *o);

/* Round-trip histogram: 1 us bins up to 100 ms, then 1 ms bins up to 100 s. */
#define LG_HIST_FINE 100000
#define LG_HIST_COARSE 100000
typedef struct lg_hist {
    uint32_t fine[LG_HIST_FINE];
    uint32_t coarse[LG_HIST_COARSE];
    uint64_t n;
    uint64_t max_ns;
} lg_hist;

void lg_hist_add(lg_hist *h, uint64_t ns);
/* The q-quantile (0..1) in milliseconds (the upper edge of its bin); 0 when empty. */
double lg_hist_quantile(const lg_hist *h, double q);

/* Errors by kind ("error:not_your_turn", "close:1006", "connect", ...). */
void lg_err_count(const char *kind);
int lg_err_kinds(void);
const char *lg_err_kind(int i, long *count);
long lg_err_total(void);

/* /proc readings of a process (or of its thread tid when tid > 0): 0 and the values, -1
 * when unreadable. */
int lg_proc_cpu_ticks(int pid, int tid, uint64_t *ticks);
int lg_proc_rss_kib(int pid, long *rss, long *hwm);

#endif
