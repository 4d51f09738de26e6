/*
 * hash.h: the one string hash of the project's hash tables (owners, addresses, names):
 * 32-bit FNV-1a (Fowler, Noll and Vo), over bytes or a NUL-terminated string (and its
 * 64-bit form for content tags). Fast and
 * well spread for short keys; not for keys an attacker may choose to collide unless the
 * table bounds its chains (theirs do: owners and addresses are few per table, and each
 * table's size is bounded by the limits that fill it).
 */
#ifndef THUE_BASE_HASH_H
#define THUE_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t thue_hash_bytes(const void *data, size_t n)
{
    const unsigned char *b = data;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

/* The same over 64 bits (content tags: an ETag). */
static inline uint64_t thue_hash64_bytes(const void *data, size_t n)
{
    const unsigned char *b = data;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static inline uint32_t thue_hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

#endif
