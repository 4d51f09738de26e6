/*
 * pool_order.c: the naive owner round-robin of pool_order.h, written plainly (quadratic
 * scans, fixed arrays) so that it is obviously right, and the pool tests' wait for the
 * pool's counters.
 */
#include "pool_order.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sched.h>

#include "search/limits.h"

void reference_order(const int *owner_of, int n, int *order)
{
    int first[16], nfirst = 0, taken[64] = {0}, k = 0;
    for (int j = 0; j < n; j++) {
        int seen = 0;
        for (int f = 0; f < nfirst; f++)
            seen |= first[f] == owner_of[j];
        if (!seen)
            first[nfirst++] = owner_of[j];
    }
    while (k < n)
        for (int f = 0; f < nfirst; f++)
            for (int j = 0; j < n; j++)
                if (!taken[j] && owner_of[j] == first[f]) {
                    taken[j] = 1;
                    order[k++] = j;
                    break;
                }
}

/* Polls the counters until queued and running reach the values given. The minute is no
 * timing assertion, only a watchdog: a state that is never reached fails the test rather
 * than leaving blockers to search (and grow their tables) until ctest's timeout. */
void wait_counts(thue_pool *pool, int queued, int running)
{
    int64_t give_up = thue_now_ns() + 60 * 1000000000LL;
    thue_pool_stats st;
    for (;;) {
        thue_pool_stats_get(pool, &st);
        if (st.queued == queued && st.running == running)
            return;
        if (thue_now_ns() > give_up)
            fail_msg("the pool never reached queued %d, running %d (it has %d, %d)", queued,
                     running, st.queued, st.running);
        sched_yield();
    }
}
