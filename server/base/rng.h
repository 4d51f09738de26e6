/*
 * rng.h: the one random generator of the project, SplitMix64 (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", 2014): every seeded choice (the
 * bots' draws, room ids' seeds, start positions, test games) comes from here, so a seed
 * means the same sequence everywhere. Not for secrets: tokens, ids and invite codes come
 * from the kernel (getrandom).
 *
 * The state is a plain 64-bit counter; each step adds the golden-ratio constant and mixes
 * the result. thue_mix64 alone is the mixer (a bijection of 64-bit values, good as a
 * hash finaliser).
 */
#ifndef THUE_BASE_RNG_H
#define THUE_BASE_RNG_H

#include <stdint.h>

#define THUE_SPLITMIX_GAMMA 0x9e3779b97f4a7c15ULL

static inline uint64_t thue_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The next value of the sequence whose state is *state (advanced). */
static inline uint64_t thue_splitmix64(uint64_t *state)
{
    *state += THUE_SPLITMIX_GAMMA;
    return thue_mix64(*state);
}

#endif
