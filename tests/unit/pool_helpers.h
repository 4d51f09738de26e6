/*
 * pool_helpers.h: what the worker pool's tests (test_pool.c, test_pool_owners.c) share:
 * a loop and pool per test (tctx), submitted jobs as the tests see them (slot), and the
 * helpers that submit, wait (by running the loop or polling the counters, never by
 * sleeping) and check a delivered result against thue_bot_move on the test thread.
 */
#ifndef THUE_TEST_POOL_HELPERS_H
#define THUE_TEST_POOL_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "base/errors.h"
#include "games/thue/bots/bot.h"
#include "search/pool.h"

#include "pool_order.h" /* wait_counts */

#define SLOTS_MAX 400

typedef struct tctx tctx;

/* One submitted job as the test sees it. */
typedef struct slot {
    tctx *t;
    uint64_t id;
    int calls;
    int order; /* delivery number, from 0 */
    thue_job_result res;
    thue_bot_result want; /* thue_bot_move's answer */
    int want_cost;        /* compare the node count and depth too */
    uint8_t word[64];
    thue_position pos;
} slot;

struct tctx {
    uv_loop_t loop;
    thue_pool *pool;
    int delivered;
    int forbidden; /* callbacks that must never have run */
    int closed;
    slot slots[SLOTS_MAX];
    int nslots;
};

static const atomic_int never_raised = 0;

uint64_t rng_next(uint64_t *state);
int rng_below(uint64_t *state, int n);
int random_word(uint64_t *rng, int k, thue_variant v, int len, uint8_t *w);
thue_bot_spec spec_of(const char *text);
thue_position position_of(const uint8_t *w, int n, int k, thue_variant v, thue_role role, int index,
                          int remaining);
void setup_config(tctx *t, const thue_pool_config *cfg);
void setup(tctx *t, int threads);
void on_closed(void *data);
void on_closed_int(void *data);
void teardown(tctx *t);
thue_pool_stats stats_of(thue_pool *pool);
void record_cb(const thue_job_result *res, void *data);
void forbidden_cb(const thue_job_result *res, void *data);
int submit(tctx *t, slot *s, const thue_bot_spec *spec, uint64_t seed, int parts, thue_job_cb cb);
slot *new_slot(tctx *t);
slot *submit_checked(tctx *t, const char *spec_text, const uint8_t *w, int n, int k, thue_variant v,
                     thue_role role, int index, int remaining, uint64_t seed, int parts);
void check_delivered(const slot *s);
slot *submit_blocker(tctx *t);
slot *submit_greedy(tctx *t, thue_job_cb cb);
extern const char *next_owner;

#endif
