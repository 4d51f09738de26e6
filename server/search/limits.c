/*
 * limits.c: the clock and the polls of limits.h, shared by every search (thue_limits).
 * Moved here from Thue's bots (bot.c: thue_now_ns, thue__ctl_poll; solve.c:
 * thue_search_must_stop) unchanged, so that the generic bots need no header of Thue's.
 */
#include "search/limits.h"

#include <stddef.h>
#include <time.h>

int64_t thue_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int thue_search_must_stop(const atomic_int *stop, int (*yield)(void *arg, int64_t now_ns),
                          void *yield_arg, int64_t deadline_ns)
{
    if (stop != NULL && atomic_load_explicit(stop, memory_order_relaxed))
        return 1;
    if (deadline_ns == 0 && yield == NULL)
        return 0;
    int64_t now = thue_now_ns();
    if (yield != NULL && yield(yield_arg, now)) {
        /* Paused: the flag may have been raised and the deadline passed meanwhile. */
        if (stop != NULL && atomic_load_explicit(stop, memory_order_relaxed))
            return 1;
        now = thue_now_ns();
    }
    return deadline_ns != 0 && now >= deadline_ns;
}

int thue__ctl_poll(thue__ctl *ctl)
{
    if (thue_search_must_stop(ctl->stop, ctl->yield, ctl->yield_arg, ctl->deadline_ns))
        ctl->stopped = 1;
    return ctl->stopped;
}
