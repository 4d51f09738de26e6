/*
 * word_helpers.c: the word tests' shared helpers (word_helpers.h).
 */
#include "word_helpers.h"

/* ---------------------------------------------------------------- helpers */

/* xorshift64 (Marsaglia): deterministic, never rand(). The state must not be 0. */
uint64_t rng_state;

void rng_seed(uint64_t seed)
{
    rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

int rnd_below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

/* Uniform in lo..hi inclusive. */
int rnd_range(int lo, int hi)
{
    return lo + rnd_below(hi - lo + 1);
}

/* w must hold exactly sym[0..n-1]. */
void assert_word_is(const thue_word *w, const uint8_t *sym, int n)
{
    assert_int_equal(w->len, n);
    assert_true(w->len <= w->cap);
    assert_true(w->cap <= THUE_WORD_MAX);
    if (n > 0)
        assert_memory_equal(w->sym, sym, (size_t)n);
}

/* A non-empty starting content so that "unchanged" means something. */
const uint8_t PI_SYMS[PI_LEN] = {3, 1, 4, 1, 5, 9, 26, 63};

void make_pi(thue_word *w)
{
    thue_word_init(w);
    assert_int_equal(thue_word_assign(w, PI_SYMS, PI_LEN), 0);
}

int scratch_setup(void **state)
{
    thue_word *ws = malloc(NSCRATCH * sizeof *ws);
    if (ws == NULL)
        return -1;
    for (int i = 0; i < NSCRATCH; i++)
        thue_word_init(&ws[i]);
    *state = ws;
    return 0;
}

int scratch_teardown(void **state)
{
    thue_word *ws = *state;
    for (int i = 0; i < NSCRATCH; i++)
        thue_word_free(&ws[i]);
    free(ws);
    return 0;
}
