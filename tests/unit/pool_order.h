/*
 * pool_order.h: the naive reference for the pool's fairness between owners, shared by
 * test_pool_owners.c (Thue jobs) and test_pool_game.c (game and Thue jobs mixed), which
 * both check the pool's delivery order against it.
 */
#ifndef THUE_TEST_POOL_ORDER_H
#define THUE_TEST_POOL_ORDER_H

/* Owners in the order of their first job, each in turn giving its next job, until none is
 * left. owner_of[j] is job j's owner (n <= 64 jobs, at most 16 owners); order[] gets n
 * indices into owner_of[]. */
void reference_order(const int *owner_of, int n, int *order);

#endif
