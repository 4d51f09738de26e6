/*
 * limits.h: what every search shares, Thue's bots and the generic ones alike: the limits a
 * caller gives a search (think time, deadline, node budget, stop flag, the pool's pause
 * hook, the memory account), the clock they are measured on, and the control block
 * through which a search counts its nodes and its work and polls those limits.
 *
 * A search copies the caller's thue_bot_limits into a thue__ctl (thue__ctl_init) and
 * calls thue__tick once per node and thue__work for work that is not a node (a move list
 * made, children scanned, a playout step). Polls are paced by time, not by counts: the
 * control block counts work units down to the next poll, and each poll (thue__ctl_poll)
 * reads the clock and sets how many units the next interval holds, so that polls come
 * about every THUE__POLL_NS whatever a unit costs in this game, position or machine. A
 * search whose units are all small then answers a stop or a pause within about that
 * time; the units that cannot be cut (one legal_moves call, one table probe) are kept
 * small by the checks of a position's cost (docs/server.md, "Bounded searches").
 * The pool's yield hook is offered at every poll; pausing there never changes what a
 * search computes, only when.
 *
 * The names keep their thue_bot_ prefix (they were born with Thue's bots, and the pool,
 * the lobby and the command fill them for every game's bots). Nothing here touches global
 * state; libc only (thue_limits links no library of ours but thue_base).
 */
#ifndef THUE_SEARCH_LIMITS_H
#define THUE_SEARCH_LIMITS_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/rng.h"
#include "search/budget.h"

typedef struct thue_bot_limits {
    int64_t think_ms;       /* time for this move, <= 0: none */
    int64_t deadline_ns;    /* absolute, on thue_now_ns()'s clock; 0: none */
    uint64_t node_budget;   /* 0: none */
    const atomic_int *stop; /* another thread sets it to stop the search; NULL: none */
    /* Cooperative time-slicing (the pool, pool.h): called whenever the search polls its
     * limits (every few dozen nodes), with the time now. It may block, and the search
     * then pauses where it is, its state intact; it returns 1 when it did (the search
     * reads the clock and the stop flag again), else 0. NULL: none. Pausing never
     * changes what a search computes, only when. */
    int (*yield)(void *arg, int64_t now_ns);
    void *yield_arg;
    /* The search's memory account (budget.h): its trees and tables are taken from it.
     * NULL: unlimited. */
    thue_mem *mem;
} thue_bot_limits;

/* A monotonic clock in nanoseconds (CLOCK_MONOTONIC), for deadlines. */
int64_t thue_now_ns(void);

/* ---- the control block (internal to the searches: Thue's bots, gbot.c, gsolve.c) ---- */

/* The time polls aim to be apart, and the most work units between two. */
#define THUE__POLL_NS 1000000
#define THUE__POLL_WORK_MAX (1 << 24)

typedef struct thue__ctl {
    const atomic_int *stop;
    int (*yield)(void *arg, int64_t now_ns); /* thue_bot_limits.yield; NULL: none */
    void *yield_arg;
    int64_t deadline_ns; /* 0: none */
    uint64_t budget;     /* nodes this part may visit; 0: no limit */
    uint64_t nodes;
    int stopped;
    thue_mem *mem; /* thue_bot_limits.mem; NULL: unlimited */
    /* The polls' pace (all 0 in a zeroed block, which is valid: the first unit polls). */
    int64_t work_left;  /* units until the next poll */
    int64_t work_every; /* units between polls, adapted at each poll */
    int64_t last_ns;    /* when the last poll was, 0: none yet */
} thue__ctl;

/* A control block for lim (may be NULL: no limits) with the given absolute deadline (0:
 * none; the caller merges think_ms and the spec's own time into it). */
void thue__ctl_init(thue__ctl *ctl, const thue_bot_limits *lim, int64_t deadline_ns);

/* Reads the stop flag and the clock (and offers the pool to pause the search there:
 * ctl->yield), sets the next poll's pace; sets and returns ctl->stopped. */
int thue__ctl_poll(thue__ctl *ctl);

/* Counts `units` of work (at least 1 each: a move made, a child looked at, a table
 * probe). Returns 1 when the search must stop. */
static inline int thue__work(thue__ctl *ctl, int64_t units)
{
    if (ctl->stopped)
        return 1;
    ctl->work_left -= units;
    return ctl->work_left <= 0 ? thue__ctl_poll(ctl) : 0;
}

/* Counts one node (and one unit of work). Returns 1 when the search must stop (then the
 * node is not counted and whatever it would have computed is not to be used). */
static inline int thue__tick(thue__ctl *ctl)
{
    if (ctl->stopped)
        return 1;
    if (ctl->budget && ctl->nodes >= ctl->budget) {
        ctl->stopped = 1;
        return 1;
    }
    if (--ctl->work_left <= 0 && thue__ctl_poll(ctl))
        return 1;
    ctl->nodes++;
    return 0;
}

/* The memory account's take and give (budget.h) for the searches: 0 or -1. */
static inline int thue__take(thue__ctl *ctl, size_t bytes)
{
    return thue_mem_take(ctl != NULL ? ctl->mem : NULL, bytes);
}

static inline void thue__give(thue__ctl *ctl, size_t bytes)
{
    thue_mem_give(ctl != NULL ? ctl->mem : NULL, bytes);
}

/* Every random choice the searches make comes from base/rng.h's SplitMix64. A draw in
 * [0, n) for n >= 1: the next value modulo n. */
static inline int thue__rand_below(uint64_t *state, int n)
{
    return (int)(thue_splitmix64(state) % (uint64_t)n);
}

#endif
