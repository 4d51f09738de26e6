/*
 * quota.c: address keys, keyed token buckets and keyed counters (quota.h).
 *
 * Both tables are the same small chained hash table of entries keyed by text, grown by
 * doubling (buckets = a power of two, at most one entry per bucket on average). The
 * limiter's sweep, which forgets buckets that have refilled, runs only when a new key
 * finds the table at max_keys, and then at most once a second (SWEEP_MS): a take costs
 * O(1) on average, and a crowd of draining keys cannot make every take O(n).
 */
#include "quota.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

/* ---- address keys --------------------------------------------------------------------- */

void thue_addr_key(const char *ip, char *out, size_t size)
{
    static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    unsigned char b[16];
    if (size == 0)
        return;
    if (inet_pton(AF_INET, ip, b) == 1) {
        inet_ntop(AF_INET, b, out, (socklen_t)size);
        return;
    }
    if (inet_pton(AF_INET6, ip, b) != 1) {
        snprintf(out, size, "%s", ip);
        return;
    }
    if (memcmp(b, v4_mapped, sizeof v4_mapped) == 0) {
        inet_ntop(AF_INET, b + 12, out, (socklen_t)size);
        return;
    }
    memset(b + 8, 0, 8);
    char text[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, b, text, sizeof text);
    snprintf(out, size, "%s/64", text);
}

/* ---- the table ------------------------------------------------------------------------ */

typedef struct entry {
    struct entry *next;
    double tokens; /* limiter: the bucket as of last_ms */
    uint64_t last_ms;
    long count; /* counts */
    char key[THUE_LIMIT_KEY_MAX];
} entry;

typedef struct table {
    entry **b;
    size_t nb; /* a power of two, or 0 before the first insert */
    size_t n;
} table;

/* The slot that holds key's entry, or the empty slot at the end of its chain. */
static entry **slot_of(const table *t, const char *key)
{
    entry **p = &t->b[thue_hash_str(key) & (t->nb - 1)];
    while (*p && strncmp((*p)->key, key, THUE_LIMIT_KEY_MAX - 1) != 0)
        p = &(*p)->next;
    return p;
}

static entry *table_find(const table *t, const char *key)
{
    return t->nb ? *slot_of(t, key) : NULL;
}

/* Doubles the buckets when entries outnumber them: 0, or -1 when out of memory (the
 * table still works, with longer chains). */
static int table_grow(table *t)
{
    if (t->n < t->nb)
        return 0;
    size_t nb = t->nb ? 2 * t->nb : 64;
    entry **b = calloc(nb, sizeof *b);
    if (b == NULL)
        return t->nb ? 0 : -1;
    for (size_t i = 0; i < t->nb; i++) {
        for (entry *e = t->b[i], *next; e; e = next) {
            next = e->next;
            entry **head = &b[thue_hash_str(e->key) & (nb - 1)];
            e->next = *head;
            *head = e;
        }
    }
    free(t->b);
    t->b = b;
    t->nb = nb;
    return 0;
}

/* A new entry for key (zeroed), or NULL when out of memory. */
static entry *table_insert(table *t, const char *key)
{
    if (table_grow(t) != 0)
        return NULL;
    entry *e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    snprintf(e->key, sizeof e->key, "%s", key);
    entry **p = slot_of(t, e->key);
    *p = e;
    t->n++;
    return e;
}

/* Unlinks and frees the entry at *p. */
static void table_remove_at(table *t, entry **p)
{
    entry *e = *p;
    *p = e->next;
    free(e);
    t->n--;
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->nb; i++)
        while (t->b[i])
            table_remove_at(t, &t->b[i]);
    free(t->b);
    t->b = NULL;
    t->nb = 0;
}

/* ---- limiter -------------------------------------------------------------------------- */

#define SWEEP_MS 1000 /* a full table is swept at most this often */

struct thue_limiter {
    table t;
    double rate, burst;
    size_t max_keys;
    int swept; /* a sweep has run, at swept_ms */
    uint64_t swept_ms;
    uint64_t untracked;
};

thue_limiter *thue_limiter_new(double rate, double burst, size_t max_keys)
{
    if (!(rate > 0) || !(burst >= 1) || !isfinite(rate) || !isfinite(burst) || max_keys < 1)
        return NULL;
    thue_limiter *lim = calloc(1, sizeof *lim);
    if (lim == NULL)
        return NULL;
    lim->rate = rate;
    lim->burst = burst;
    lim->max_keys = max_keys;
    return lim;
}

void thue_limiter_free(thue_limiter *lim)
{
    if (lim == NULL)
        return;
    table_free(&lim->t);
    free(lim);
}

/* The bucket's tokens at now_ms (a clock that went back refills nothing). */
static double tokens_at(const thue_limiter *lim, const entry *e, uint64_t now_ms)
{
    double dt = now_ms > e->last_ms ? (double)(now_ms - e->last_ms) : 0.0;
    double tokens = e->tokens + dt * lim->rate / 1000.0;
    return tokens < lim->burst ? tokens : lim->burst;
}

/* Forgets every bucket that has refilled. */
static void sweep(thue_limiter *lim, uint64_t now_ms)
{
    for (size_t i = 0; i < lim->t.nb; i++) {
        entry **p = &lim->t.b[i];
        while (*p) {
            if (tokens_at(lim, *p, now_ms) >= lim->burst)
                table_remove_at(&lim->t, p);
            else
                p = &(*p)->next;
        }
    }
}

int thue_limiter_take(thue_limiter *lim, const char *key, uint64_t now_ms, uint64_t *retry_ms)
{
    entry *e = table_find(&lim->t, key);
    if (e == NULL) {
        if (lim->t.n >= lim->max_keys &&
            (!lim->swept || now_ms < lim->swept_ms || now_ms - lim->swept_ms >= SWEEP_MS)) {
            sweep(lim, now_ms);
            lim->swept = 1;
            lim->swept_ms = now_ms;
        }
        if (lim->t.n >= lim->max_keys || (e = table_insert(&lim->t, key)) == NULL) {
            lim->untracked++;
            return 1;
        }
        e->tokens = lim->burst;
        e->last_ms = now_ms;
    }
    double tokens = tokens_at(lim, e, now_ms);
    if (tokens < 1.0) {
        if (retry_ms) {
            double ms = ceil((1.0 - tokens) * 1000.0 / lim->rate);
            *retry_ms = ms >= 1 ? (uint64_t)ms : 1;
        }
        return 0;
    }
    e->tokens = tokens - 1.0;
    e->last_ms = now_ms > e->last_ms ? now_ms : e->last_ms;
    return 1;
}

double thue_limiter_tokens(const thue_limiter *lim, const char *key, uint64_t now_ms)
{
    const entry *e = table_find(&lim->t, key);
    return e ? tokens_at(lim, e, now_ms) : lim->burst;
}

size_t thue_limiter_size(const thue_limiter *lim)
{
    return lim->t.n;
}

uint64_t thue_limiter_untracked(const thue_limiter *lim)
{
    return lim->untracked;
}

/* ---- counts --------------------------------------------------------------------------- */

struct thue_counts {
    table t;
};

thue_counts *thue_counts_new(void)
{
    return calloc(1, sizeof(thue_counts));
}

void thue_counts_free(thue_counts *c)
{
    if (c == NULL)
        return;
    table_free(&c->t);
    free(c);
}

long thue_counts_get(const thue_counts *c, const char *key)
{
    const entry *e = table_find(&c->t, key);
    return e ? e->count : 0;
}

long thue_counts_add(thue_counts *c, const char *key, long delta)
{
    entry **p = c->t.nb ? slot_of(&c->t, key) : NULL;
    entry *e = p ? *p : NULL;
    if (e == NULL) {
        if (delta <= 0)
            return 0;
        if ((e = table_insert(&c->t, key)) == NULL)
            return -1;
        e->count = delta;
        return delta;
    }
    long n = e->count + delta;
    if (n > 0) {
        e->count = n;
        return n;
    }
    table_remove_at(&c->t, p);
    return 0;
}

size_t thue_counts_size(const thue_counts *c)
{
    return c->t.n;
}
