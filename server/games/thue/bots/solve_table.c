/*
 * solve_table.c: the solver's lock-free transposition table (see solve_table.h).
 *
 * Data word layout (bit 63 always set, so an empty entry is a zero data word):
 *   bits  0..11  lo            bits 24..35  depth (capped at 4095)
 *   bits 12..23  hi            bits 36..43  generation
 *   bits 44..55  move + 1 (0: none)
 * Bounds beyond 12 bits are stored weaker (lo capped at 4094, hi above 4094 as unknown),
 * which keeps them true. The bucket is chosen from the index hash by a 64x64 -> 128-bit
 * multiply (any number of buckets, not only powers of two); the key is a second,
 * independent hash, so a false hit needs a full 64-bit key match.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "games/thue/bots/solve_table.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE ((size_t)2 << 20) /* the huge page size asked for */
#define VALID ((uint64_t)1 << 63)
#define F12 0xfffu

static uint64_t pack(int lo, int hi, int depth, unsigned gen, int move)
{
    if (lo > THUE__TT_UNKNOWN - 1)
        lo = THUE__TT_UNKNOWN - 1;
    if (hi > THUE__TT_UNKNOWN - 1)
        hi = THUE__TT_UNKNOWN;
    if (depth > THUE__TT_UNKNOWN)
        depth = THUE__TT_UNKNOWN;
    uint64_t m = move >= 0 && move < THUE__TT_UNKNOWN - 1 ? (uint64_t)move + 1 : 0;
    return VALID | (uint64_t)lo | (uint64_t)hi << 12 | (uint64_t)depth << 24 |
           (uint64_t)(gen & 0xffu) << 36 | m << 44;
}

static void unpack(uint64_t d, thue__tt_data *out)
{
    out->lo = (int)(d & F12);
    out->hi = (int)(d >> 12 & F12);
    out->depth = (int)(d >> 24 & F12);
    out->move = (int)(d >> 44 & F12) - 1;
}

thue_solve_table *thue_solve_table_new(size_t bytes)
{
    uint64_t buckets = bytes / 64;
    if (buckets == 0 || buckets > (SIZE_MAX - 64) / 64)
        return NULL;
    thue_solve_table *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    /* Zero pages from the system, touched only when used, so an idle part of the table
     * costs no memory. On Linux a large table asks for transparent huge pages once it is
     * about as full as it has 4 KB pages (most pages then touched anyway): its accesses
     * are random, and small pages would cost a TLB miss on most probes, while huge pages
     * from the start would make a small search on a big table take (and zero) it all. */
    size_t len = (size_t)buckets * 64;
    uintptr_t p;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (len >= HUGE) {
        t->maplen = len + HUGE;
        void *m = mmap(NULL, t->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            free(t);
            return NULL;
        }
        t->mem = m;
        p = ((uintptr_t)m + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
        t->huge_at = len / 4096;
        t->huge_len = len;
    } else
#endif
    {
        t->mem = calloc(1, len + 64);
        if (t->mem == NULL) {
            free(t);
            return NULL;
        }
        p = ((uintptr_t)t->mem + 63) & ~(uintptr_t)63;
    }
    t->slot = (_Atomic uint64_t *)p;
    t->buckets = buckets;
    atomic_init(&t->used, 0);
    atomic_init(&t->searchers, 0);
    for (int j = 0; j < THUE__TT_BUSY; j++)
        atomic_init(&t->busy[j], 0);
    return t;
}

void thue_solve_table_free(thue_solve_table *t)
{
    if (t == NULL)
        return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (t->maplen != 0) {
        munmap(t->mem, t->maplen);
        free(t);
        return;
    }
#endif
    free(t->mem);
    free(t);
}

uint64_t thue_solve_table_entries(const thue_solve_table *t)
{
    return t->buckets * 4;
}

uint64_t thue_solve_table_used(const thue_solve_table *t)
{
    uint64_t u = atomic_load_explicit(&t->used, memory_order_relaxed);
    return u < t->buckets * 4 ? u : t->buckets * 4;
}

static _Atomic uint64_t *bucket_of(const thue_solve_table *t, uint64_t index)
{
    uint64_t b = (uint64_t)(((unsigned __int128)index * t->buckets) >> 64);
    return t->slot + b * 8;
}

int thue__tt_probe(const thue_solve_table *t, uint64_t key, uint64_t index, thue__tt_data *out)
{
    _Atomic uint64_t *b = bucket_of(t, index);
    for (int e = 0; e < 4; e++) {
        uint64_t d = atomic_load_explicit(&b[2 * e + 1], memory_order_relaxed);
        uint64_t x = atomic_load_explicit(&b[2 * e], memory_order_relaxed);
        if (d != 0 && (x ^ d) == key) {
            unpack(d, out);
            return 1;
        }
    }
    return 0;
}

void thue__tt_store(thue_solve_table *t, uint64_t key, uint64_t index, int lo, int hi, int depth,
                    unsigned gen, int move)
{
    _Atomic uint64_t *b = bucket_of(t, index);
    int victim = -1, worst = 1 << 30;
    for (int e = 0; e < 4; e++) {
        uint64_t d = atomic_load_explicit(&b[2 * e + 1], memory_order_relaxed);
        uint64_t x = atomic_load_explicit(&b[2 * e], memory_order_relaxed);
        if (d != 0 && (x ^ d) == key) {
            thue__tt_data o;
            unpack(d, &o);
            int nlo = o.lo > lo ? o.lo : lo, nhi = o.hi < hi ? o.hi : hi;
            if (nlo <= nhi) { /* else the old entry was a (rare) false hit: overwrite it */
                lo = nlo;
                hi = nhi;
                if (o.depth > depth)
                    depth = o.depth;
            }
            if (move == THUE__TT_NOMOVE)
                move = o.move;
            victim = e;
            break;
        }
        if (d == 0) {
            if (worst > -(1 << 29)) { /* the first empty entry, unless a key match follows */
                victim = e;
                worst = -(1 << 29);
            }
            continue;
        }
        int age = (int)((gen - (unsigned)(d >> 36)) & 0xffu);
        int worth = (int)(d >> 24 & F12) - 2 * age;
        if (worth < worst) {
            worst = worth;
            victim = e;
        }
    }
    uint64_t old = atomic_load_explicit(&b[2 * victim + 1], memory_order_relaxed);
    uint64_t d = pack(lo, hi, depth, gen, move);
    atomic_store_explicit(&b[2 * victim + 1], d, memory_order_relaxed);
    atomic_store_explicit(&b[2 * victim], key ^ d, memory_order_relaxed);
    if (old == 0) {
        uint64_t u = atomic_fetch_add_explicit(&t->used, 1, memory_order_relaxed);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (t->huge_at != 0 && u + 1 == t->huge_at) /* once: fetch_add gives each u once */
            madvise((void *)t->slot, t->huge_len, MADV_HUGEPAGE); /* advice: may fail */
#endif
    }
}
