/*
 * budget.c: the memory budgets of budget.h.
 *
 * Three counters are charged by every take: the account's own, its owner's and the
 * budget's total, each an atomic compared against its limit. A take adds to each in turn
 * with a compare-and-swap that never passes the limit, and undoes what it added when a
 * later one refuses; so no counter is ever above its limit, even for a moment, and
 * concurrent takes of one owner's searches cannot together pass it.
 *
 * Owners live in a small hash table under a mutex, created by the first account that
 * names them and freed with the last one closed; takes and gives never lock.
 */
#include "search/budget.h"
#include "base/hash.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 256
#define OWNER_KEY_MAX 95

typedef struct owner {
    char key[OWNER_KEY_MAX + 1];
    struct owner *next;
    int accounts; /* under the lock */
    _Atomic uint64_t used;
} owner;

struct thue_mem_budget {
    thue_mem_limits lim;
    pthread_mutex_t lock;
    owner *owners[BUCKETS];
    int nowners, naccounts; /* under the lock */
    _Atomic uint64_t used, peak;
    _Atomic uint64_t refused[3];
};

struct thue_mem {
    thue_mem_budget *b;
    owner *own;
    _Atomic uint64_t used;
};

thue_mem_budget *thue_mem_budget_new(const thue_mem_limits *lim)
{
    if (lim == NULL || lim->per_search == 0 || lim->per_owner == 0 || lim->total == 0)
        return NULL;
    thue_mem_budget *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        free(b);
        return NULL;
    }
    b->lim = *lim;
    return b;
}

void thue_mem_budget_free(thue_mem_budget *b)
{
    if (b == NULL)
        return;
    for (int i = 0; i < BUCKETS; i++)
        while (b->owners[i]) {
            owner *o = b->owners[i];
            b->owners[i] = o->next;
            free(o);
        }
    pthread_mutex_destroy(&b->lock);
    free(b);
}

thue_mem *thue_mem_open(thue_mem_budget *b, const char *key)
{
    if (b == NULL)
        return NULL;
    if (key == NULL)
        key = "";
    thue_mem *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->b = b;
    pthread_mutex_lock(&b->lock);
    owner **head = &b->owners[thue_hash_str(key) % BUCKETS], *o = *head;
    while (o != NULL && strncmp(o->key, key, OWNER_KEY_MAX) != 0)
        o = o->next;
    if (o == NULL) {
        o = calloc(1, sizeof *o);
        if (o == NULL) {
            pthread_mutex_unlock(&b->lock);
            free(m);
            return NULL;
        }
        snprintf(o->key, sizeof o->key, "%s", key);
        o->next = *head;
        *head = o;
        b->nowners++;
    }
    o->accounts++;
    b->naccounts++;
    m->own = o;
    pthread_mutex_unlock(&b->lock);
    return m;
}

/* Adds n to *c unless that passes limit: 1 when added. */
static int add_within(_Atomic uint64_t *c, uint64_t n, uint64_t limit)
{
    uint64_t v = atomic_load_explicit(c, memory_order_relaxed);
    do {
        if (n > limit || v > limit - n)
            return 0;
    } while (!atomic_compare_exchange_weak_explicit(c, &v, v + n, memory_order_relaxed,
                                                    memory_order_relaxed));
    return 1;
}

int thue_mem_take(thue_mem *m, size_t bytes)
{
    if (m == NULL || bytes == 0)
        return 0;
    thue_mem_budget *b = m->b;
    uint64_t n = bytes;
    if (!add_within(&m->used, n, b->lim.per_search)) {
        atomic_fetch_add_explicit(&b->refused[THUE_MEM_SEARCH], 1, memory_order_relaxed);
        return -1;
    }
    if (!add_within(&m->own->used, n, b->lim.per_owner)) {
        atomic_fetch_sub_explicit(&m->used, n, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->refused[THUE_MEM_OWNER], 1, memory_order_relaxed);
        return -1;
    }
    if (!add_within(&b->used, n, b->lim.total)) {
        atomic_fetch_sub_explicit(&m->own->used, n, memory_order_relaxed);
        atomic_fetch_sub_explicit(&m->used, n, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->refused[THUE_MEM_TOTAL], 1, memory_order_relaxed);
        return -1;
    }
    uint64_t now = atomic_load_explicit(&b->used, memory_order_relaxed);
    uint64_t peak = atomic_load_explicit(&b->peak, memory_order_relaxed);
    while (now > peak && !atomic_compare_exchange_weak_explicit(
                             &b->peak, &peak, now, memory_order_relaxed, memory_order_relaxed))
        ;
    return 0;
}

void thue_mem_give(thue_mem *m, size_t bytes)
{
    if (m == NULL || bytes == 0)
        return;
    atomic_fetch_sub_explicit(&m->b->used, bytes, memory_order_relaxed);
    atomic_fetch_sub_explicit(&m->own->used, bytes, memory_order_relaxed);
    atomic_fetch_sub_explicit(&m->used, bytes, memory_order_relaxed);
}

uint64_t thue_mem_held(const thue_mem *m)
{
    return m == NULL ? 0 : atomic_load_explicit(&m->used, memory_order_relaxed);
}

void thue_mem_close(thue_mem *m)
{
    if (m == NULL)
        return;
    thue_mem_give(m, atomic_load_explicit(&m->used, memory_order_relaxed));
    thue_mem_budget *b = m->b;
    pthread_mutex_lock(&b->lock);
    owner *o = m->own;
    b->naccounts--;
    if (--o->accounts == 0) {
        owner **pp = &b->owners[thue_hash_str(o->key) % BUCKETS];
        while (*pp != o)
            pp = &(*pp)->next;
        *pp = o->next;
        b->nowners--;
        free(o);
    }
    pthread_mutex_unlock(&b->lock);
    free(m);
}

void thue_mem_stats_get(thue_mem_budget *b, thue_mem_stats *out)
{
    memset(out, 0, sizeof *out);
    if (b == NULL)
        return;
    out->limits = b->lim;
    out->used = atomic_load_explicit(&b->used, memory_order_relaxed);
    out->peak = atomic_load_explicit(&b->peak, memory_order_relaxed);
    for (int i = 0; i < 3; i++)
        out->refused[i] = atomic_load_explicit(&b->refused[i], memory_order_relaxed);
    pthread_mutex_lock(&b->lock);
    out->accounts = b->naccounts;
    out->owners = b->nowners;
    for (int i = 0; i < BUCKETS; i++)
        for (const owner *o = b->owners[i]; o; o = o->next) {
            uint64_t u = atomic_load_explicit(&o->used, memory_order_relaxed);
            if (u > out->owner_max)
                out->owner_max = u;
        }
    pthread_mutex_unlock(&b->lock);
}
