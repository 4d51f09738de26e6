/*
 * metrics.c: the server's counters and histograms (metrics.h) and their Prometheus text.
 *
 * Everything here is plain memory owned by the loop thread; rendering reads it and, for
 * the pool's gauges, the pool's thread-safe counters. Histograms have fixed buckets from
 * a microsecond to a minute (move validation lives in microseconds, bot thinking in
 * milliseconds to seconds), rendered cumulatively as Prometheus expects.
 *
 * errors_total is written for every code of PROTOCOL.md's error table (zeros included,
 * so that a dashboard sees every series from the start) and for any other engine code
 * that was counted. The protocol codes' wire names come from codec.h's X-macro list,
 * which is a header-only dependency (no link to the codec library).
 */
#include "metrics.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/codec.h"
#include "base/errors.h"

/* Upper bounds in seconds: 1 us .. 60 s. */
static const double default_bounds[THUE_HISTOGRAM_BUCKETS] = {
    1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60};

static void histogram_init(thue_histogram *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->bounds, default_bounds, sizeof default_bounds);
    h->nbounds = THUE_HISTOGRAM_BUCKETS;
}

void thue_metrics_init(thue_metrics *m)
{
    memset(m, 0, sizeof *m);
    histogram_init(&m->move_validation);
    histogram_init(&m->bot_think);
    histogram_init(&m->pool_queue_wait);
}

void thue_metrics_error(thue_metrics *m, int code)
{
    if (m == NULL || code >= 0 || code <= -THUE_METRICS_ERROR_SLOTS)
        return;
    m->errors[-code]++;
}

void thue_histogram_observe(thue_histogram *h, double seconds)
{
    if (h == NULL)
        return;
    if (!(seconds >= 0)) /* NaN or negative: a clock oddity, count it as zero */
        seconds = 0;
    int i = 0;
    while (i < h->nbounds && seconds > h->bounds[i])
        i++;
    h->counts[i]++;
    h->sum += seconds;
    h->count++;
}

/* ---- rendering ------------------------------------------------------------------- */

static void metric(thue_strbuf *b, const char *name, const char *type, const char *help,
                   unsigned long long value)
{
    thue_strbuf_printf(b, "# HELP thue_%s %s\n# TYPE thue_%s %s\nthue_%s %llu\n", name, help, name,
                       type, name, value);
}

static void gauge_signed(thue_strbuf *b, const char *name, const char *help, long long value)
{
    thue_strbuf_printf(b, "# HELP thue_%s %s\n# TYPE thue_%s gauge\nthue_%s %lld\n", name, help,
                       name, name, value);
}

static void histogram(thue_strbuf *b, const char *name, const char *help, const thue_histogram *h)
{
    thue_strbuf_printf(b, "# HELP thue_%s %s\n# TYPE thue_%s histogram\n", name, help, name);
    uint64_t cum = 0;
    for (int i = 0; i < h->nbounds; i++) {
        cum += h->counts[i];
        thue_strbuf_printf(b, "thue_%s_bucket{le=\"%g\"} %llu\n", name, h->bounds[i],
                           (unsigned long long)cum);
    }
    cum += h->counts[h->nbounds];
    thue_strbuf_printf(b, "thue_%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cum);
    thue_strbuf_printf(b, "thue_%s_sum %.9g\nthue_%s_count %llu\n", name, h->sum, name,
                       (unsigned long long)h->count);
}

/* The codes of PROTOCOL.md's error table: the protocol's own and the engine's game codes. */
static const int table_codes[] = {
#define THUE__METRICS_CODE(name, value, wire, msg) value,
    THUE_PROTO_ERRNO_MAP(THUE__METRICS_CODE)
#undef THUE__METRICS_CODE
        THUE_ETURN,
    THUE_ESTEP,
    THUE_EPOSITION,
    THUE_ESYMBOL,
    THUE_EOVER,
    THUE_EOPTIONS,
    THUE_EMOVE,
    THUE_EILLEGAL,
    THUE_EGAME};

static const char *code_name(int code)
{
    return thue_err_name(code); /* the one list: engine, games, protocol and store */
}

static int in_table(int code)
{
    for (size_t i = 0; i < sizeof table_codes / sizeof table_codes[0]; i++)
        if (table_codes[i] == code)
            return 1;
    return 0;
}

/* The searches' memory budgets (search/budget.h): what they hold, their limits and the
 * takes each limit refused. */
static void search_memory(thue_strbuf *b, const thue_mem_stats *mem)
{
    static const char *const names[3] = {"search", "owner", "total"};
    const uint64_t limits[3] = {mem->limits.per_search, mem->limits.per_owner, mem->limits.total};
    metric(b, "search_memory_bytes", "gauge", "Bytes the searches' trees and tables hold now.",
           (unsigned long long)mem->used);
    metric(b, "search_memory_peak_bytes", "gauge", "The most they ever held at once.",
           (unsigned long long)mem->peak);
    metric(b, "search_memory_owner_max_bytes", "gauge",
           "The most one owner (an account, or a guest's address) holds now.",
           (unsigned long long)mem->owner_max);
    gauge_signed(b, "search_memory_accounts", "Searches holding a memory account now.",
                 mem->accounts);
    thue_strbuf_printf(b, "# HELP thue_search_memory_limit_bytes The memory budgets: per "
                          "search, per owner, in all.\n"
                          "# TYPE thue_search_memory_limit_bytes gauge\n");
    for (int i = 0; i < 3; i++)
        thue_strbuf_printf(b, "thue_search_memory_limit_bytes{budget=\"%s\"} %llu\n", names[i],
                           (unsigned long long)limits[i]);
    thue_strbuf_printf(b, "# HELP thue_search_memory_refused_total Memory takes a budget "
                          "refused (the search grew no more, or used less).\n"
                          "# TYPE thue_search_memory_refused_total counter\n");
    for (int i = 0; i < 3; i++)
        thue_strbuf_printf(b, "thue_search_memory_refused_total{budget=\"%s\"} %llu\n", names[i],
                           (unsigned long long)mem->refused[i]);
}

char *thue_metrics_render(const thue_metrics *m, const thue_pool_stats *pool, size_t *len)
{
    thue_strbuf b = {0};
    gauge_signed(&b, "connections", "Open WebSocket connections.", (long long)m->connections);
    metric(&b, "connections_total", "counter", "WebSocket connections accepted.",
           (unsigned long long)m->connections_total);
    gauge_signed(&b, "rooms", "Rooms on the server.", (long long)m->rooms);
    metric(&b, "matches_started_total", "counter", "Matches started.",
           (unsigned long long)m->matches_started);
    metric(&b, "matches_finished_total", "counter", "Matches finished.",
           (unsigned long long)m->matches_finished);
    metric(&b, "moves_total", "counter", "Moves accepted (places and paints).",
           (unsigned long long)m->moves);
    thue_strbuf_printf(&b,
                       "# HELP thue_room_encodes_total A room's change encoded for its members "
                       "of one subprotocol (once per change, whatever their number).\n"
                       "# TYPE thue_room_encodes_total counter\n"
                       "thue_room_encodes_total{protocol=\"v1\"} %llu\n"
                       "thue_room_encodes_total{protocol=\"v2\"} %llu\n",
                       (unsigned long long)m->room_encodes[0],
                       (unsigned long long)m->room_encodes[1]);

    thue_strbuf_printf(&b, "# HELP thue_errors_total Error replies sent to clients, by code.\n"
                           "# TYPE thue_errors_total counter\n");
    for (size_t i = 0; i < sizeof table_codes / sizeof table_codes[0]; i++) {
        int code = table_codes[i];
        thue_strbuf_printf(&b, "thue_errors_total{code=\"%s\"} %llu\n", code_name(code),
                           (unsigned long long)m->errors[-code]);
    }
    for (int slot = 1; slot < THUE_METRICS_ERROR_SLOTS; slot++)
        if (m->errors[slot] && !in_table(-slot))
            thue_strbuf_printf(&b, "thue_errors_total{code=\"%s\"} %llu\n", code_name(-slot),
                               (unsigned long long)m->errors[slot]);

    metric(&b, "bot_jobs_submitted_total", "counter", "Bot moves submitted to the pool.",
           (unsigned long long)m->bot_jobs_submitted);
    if (pool) {
        const thue_pool_stats st = *pool;
        gauge_signed(&b, "bot_jobs_queued", "Bot jobs waiting for a worker.", st.queued);
        gauge_signed(&b, "bot_jobs_running", "Bot jobs being searched.", st.running);
        gauge_signed(&b, "bot_parts_paused", "Bot searches paused for another owner's turn.",
                     st.paused);
        gauge_signed(&b, "bot_owners", "Owners with bot work queued or started.", st.owners);
        gauge_signed(&b, "bot_threads", "Worker threads started (running or paused searches).",
                     st.threads_started);
        metric(&b, "bot_pauses_total", "counter", "Times a search gave its slot to another.",
               (unsigned long long)st.pauses);
        metric(&b, "bot_stopped_early_total", "counter",
               "Searches stopped early to free a thread for a waiting owner.",
               (unsigned long long)st.stopped_early);
        if (st.has_mem)
            search_memory(&b, &st.mem);
    }
    metric(&b, "bot_jobs_cancelled_total", "counter", "Bot moves cancelled before delivery.",
           (unsigned long long)m->bot_jobs_cancelled);
    static const char *const drop_reasons[] = {"unsigned", "bad_signature", "replayed"};
    thue_strbuf_printf(&b, "# HELP thue_cluster_dropped_total Messages and records read from "
                           "Redis that did not verify (several nodes), by reason.\n"
                           "# TYPE thue_cluster_dropped_total counter\n");
    for (int i = 0; i < 3; i++)
        thue_strbuf_printf(&b, "thue_cluster_dropped_total{reason=\"%s\"} %llu\n",
                           drop_reasons[i], (unsigned long long)m->cluster_dropped[i]);
    gauge_signed(&b, "analyses_running", "Analyses open (searching or stopped).",
                 (long long)m->analyses);
    metric(&b, "analyses_total", "counter", "Analyses started.",
           (unsigned long long)m->analyses_total);
    histogram(&b, "move_validation_seconds", "Time to validate and apply one move.",
              &m->move_validation);
    histogram(&b, "bot_think_seconds", "Search time of one bot move.", &m->bot_think);
    histogram(&b, "pool_queue_wait_seconds", "Time a bot job waited for a worker.",
              &m->pool_queue_wait);
    if (b.oom || b.p == NULL) {
        free(b.p);
        return NULL;
    }
    if (len)
        *len = b.len;
    return b.p;
}
