/*
 * pool_order.h: what every pool test shares without its harness (test_pool_game.c has
 * its own): the naive reference for the pool's fairness between owners, against which
 * test_pool_owners.c (Thue jobs) and test_pool_game.c (game and Thue jobs mixed) check
 * the pool's delivery order, and the wait for the pool's counters.
 */
#ifndef THUE_TEST_POOL_ORDER_H
#define THUE_TEST_POOL_ORDER_H

#include "search/pool.h"

/* Owners in the order of their first job, each in turn giving its next job, until none is
 * left. owner_of[j] is job j's owner (n <= 64 jobs, at most 16 owners); order[] gets n
 * indices into owner_of[]. */
void reference_order(const int *owner_of, int n, int *order);

/* Polls the counters until queued and running reach the values given (a watchdog of a
 * minute fails the test, no timing is asserted); the CPU is yielded, never slept on. */
void wait_counts(thue_pool *pool, int queued, int running);

#endif
