/*
 * metrics.h: the server's counters and histograms, rendered in the Prometheus text format
 * for GET /metrics. Loop thread only (the pool's own counters are read with
 * thue_pool_stats_get, which is thread-safe).
 *
 * Metric names (all prefixed thue_):
 *   connections (gauge), connections_total, rooms (gauge), matches_started_total,
 *   matches_finished_total, moves_total, room_encodes_total{protocol="v1"|"v2"} (a room's
 *   change encoded for everyone of a subprotocol: once per change, whatever the number
 *   of recipients), errors_total{code="..."},
 *   bot_jobs_submitted_total, bot_jobs_queued (gauge), bot_jobs_running (gauge),
 *   bot_jobs_cancelled_total, cluster_dropped_total{reason="..."} (what a node of
 *   several read from Redis and refused: docs/cluster.md), and the histograms
 *   move_validation_seconds, bot_think_seconds, pool_queue_wait_seconds.
 */
#ifndef THUE_SERVER_METRICS_H
#define THUE_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "search/pool.h"

#define THUE_HISTOGRAM_BUCKETS 16

typedef struct thue_histogram {
    double bounds[THUE_HISTOGRAM_BUCKETS]; /* upper bounds in seconds, increasing */
    int nbounds;
    uint64_t counts[THUE_HISTOGRAM_BUCKETS + 1]; /* per bucket; the last is +Inf */
    double sum;
    uint64_t count;
} thue_histogram;

/* Error codes counted: every code of base/errors.h's THUE_ERRORS, whose three ranges
 * (engine and games, protocol, store) end above -300. */
#define THUE_METRICS_ERROR_SLOTS 300

typedef struct thue_metrics {
    int64_t connections;
    uint64_t connections_total;
    int64_t rooms;
    uint64_t matches_started, matches_finished, moves;
    uint64_t room_encodes[2]; /* a room's change encoded for thue.v1's / thue.v2's members */
    uint64_t errors[THUE_METRICS_ERROR_SLOTS]; /* indexed by -code */
    uint64_t bot_jobs_submitted, bot_jobs_cancelled;
    int64_t analyses;        /* analyses open now (searching or paused) */
    uint64_t analyses_total; /* analyses started */
    thue_histogram move_validation; /* seconds per validated move (engine call) */
    thue_histogram bot_think;       /* seconds of search per bot move */
    thue_histogram pool_queue_wait; /* seconds a bot job waited for a worker */
    /* messages, sessions, tickets and pairs read from Redis and refused (cluster.h's
     * THUE_CLUSTER_DROP_...): unsigned, bad signature, replayed */
    uint64_t cluster_dropped[3];
} thue_metrics;

/* Zeroes everything and sets the histogram buckets (microseconds to seconds). */
void thue_metrics_init(thue_metrics *m);
/* Counts one error sent to a client (a protocol or engine code; others are ignored). */
void thue_metrics_error(thue_metrics *m, int code);
void thue_histogram_observe(thue_histogram *h, double seconds);

/* The Prometheus text (text/plain; version=0.0.4) of m and, when pool is not NULL, the
 * pool's gauges (the caller reads them with thue_pool_stats_get: the common library does
 * not link the search library). A new string (free it), *len its length; NULL when out
 * of memory. */
char *thue_metrics_render(const thue_metrics *m, const thue_pool_stats *pool, size_t *len);

#endif
