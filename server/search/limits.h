/*
 * limits.h: what every search shares, Thue's bots and the generic ones alike: the limits a
 * caller gives a search (think time, deadline, node budget, stop flag, the pool's pause
 * hook), the clock they are measured on, and the control block through which a search
 * counts its nodes and polls those limits.
 *
 * A search copies the caller's thue_bot_limits into a thue__ctl and calls thue__tick
 * once per node; every THUE__POLL_EVERY nodes the tick polls the stop flag and the clock
 * (thue__ctl_poll, through thue_search_must_stop), so that the atomic and the clock are
 * read rarely. A search may also poll on its own (thue__ctl_poll) where its work is not
 * counted in nodes (the generic uct's playouts). The pool's yield hook is offered at
 * every poll; pausing there never changes what a search computes, only when.
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
} thue_bot_limits;

/* A monotonic clock in nanoseconds (CLOCK_MONOTONIC), for deadlines. */
int64_t thue_now_ns(void);

/*
 * One poll of a search (the solver's and every bot's): the stop flag, then, when there is
 * a deadline or a pause offer, the clock (CLOCK_MONOTONIC, as thue_now_ns): yield may
 * pause the search there (the pool's fair share), after which the flag and the clock are
 * read again. 1 when the search must stop.
 */
int thue_search_must_stop(const atomic_int *stop, int (*yield)(void *arg, int64_t now_ns),
                          void *yield_arg, int64_t deadline_ns);

/* ---- the control block (internal to the searches: Thue's bots, gbot.c, gsolve.c) ---- */

#define THUE__POLL_EVERY 64

typedef struct thue__ctl {
    const atomic_int *stop;
    int (*yield)(void *arg, int64_t now_ns); /* thue_bot_limits.yield; NULL: none */
    void *yield_arg;
    int64_t deadline_ns; /* 0: none */
    uint64_t budget;     /* nodes this part may visit; 0: no limit */
    uint64_t nodes;
    int stopped;
} thue__ctl;

/* Reads the stop flag and the clock (and offers the pool to pause the search there:
 * ctl->yield); sets and returns ctl->stopped. */
int thue__ctl_poll(thue__ctl *ctl);

/* Counts one node. Returns 1 when the search must stop (then the node is not counted
 * and whatever it would have computed is not to be used). */
static inline int thue__tick(thue__ctl *ctl)
{
    if (ctl->stopped)
        return 1;
    if (ctl->budget && ctl->nodes >= ctl->budget) {
        ctl->stopped = 1;
        return 1;
    }
    if ((ctl->nodes % THUE__POLL_EVERY) == 0 && thue__ctl_poll(ctl))
        return 1;
    ctl->nodes++;
    return 0;
}

/* Every random choice the searches make comes from base/rng.h's SplitMix64. A draw in
 * [0, n) for n >= 1: the next value modulo n. */
static inline int thue__rand_below(uint64_t *state, int n)
{
    return (int)(thue_splitmix64(state) % (uint64_t)n);
}

#endif
