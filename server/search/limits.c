/*
 * limits.c: the clock and the polls of limits.h, shared by every search (thue_limits),
 * so that the generic bots need no header of Thue's.
 */
#include "search/limits.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

int64_t thue_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void thue__ctl_init(thue__ctl *ctl, const thue_bot_limits *lim, int64_t deadline_ns)
{
    memset(ctl, 0, sizeof *ctl);
    if (lim != NULL) {
        ctl->stop = lim->stop;
        ctl->yield = lim->yield;
        ctl->yield_arg = lim->yield_arg;
        ctl->budget = lim->node_budget;
        ctl->mem = lim->mem;
    }
    ctl->deadline_ns = deadline_ns;
}

/* The first interval's units: one, so that the first poll comes soon whatever a unit
 * costs; the pace then adapts. */
#define WORK_FIRST 1

int thue__ctl_poll(thue__ctl *ctl)
{
    int64_t now = thue_now_ns();
    /* The pace: as many units as took about THUE__POLL_NS last time, grown at most
     * sixteenfold and shrunk at most fourfold per poll (a burst of dear or cheap units
     * does not swing it far). */
    int64_t every = ctl->work_every > 0 ? ctl->work_every : WORK_FIRST;
    if (ctl->last_ns != 0) {
        int64_t dt = now - ctl->last_ns, next = every * 16;
        if (dt > 0 && every <= INT64_MAX / THUE__POLL_NS)
            next = every * THUE__POLL_NS / dt;
        every = next > every * 16 ? every * 16 : next < every / 4 ? every / 4 : next;
        every = every < 1 ? 1 : every > THUE__POLL_WORK_MAX ? THUE__POLL_WORK_MAX : every;
    }
    ctl->work_every = every;
    ctl->work_left = every;
    if (ctl->stop != NULL && atomic_load_explicit(ctl->stop, memory_order_relaxed))
        ctl->stopped = 1;
    else if (ctl->yield != NULL && ctl->yield(ctl->yield_arg, now)) {
        /* Paused: the flag may have been raised and the deadline passed meanwhile, and
         * the pause is not work. */
        now = thue_now_ns();
        if (ctl->stop != NULL && atomic_load_explicit(ctl->stop, memory_order_relaxed))
            ctl->stopped = 1;
    }
    ctl->last_ns = now;
    if (ctl->deadline_ns != 0 && now >= ctl->deadline_ns)
        ctl->stopped = 1;
    return ctl->stopped;
}
