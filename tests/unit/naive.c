/* naive.c: the definition-level reference (see naive.h). Slow on purpose. */
#include "naive.h"

#include <string.h>

NAIVE_FAST int naive_check(const uint8_t *w, int n, thue_variant v, thue_repetition *out)
{
    int extra = v == THUE_OVERLAP ? 1 : 0;
    for (int p = 1; 2 * p + extra <= n; p++) {
        int len = 2 * p + extra;
        for (int s = 0; s + len <= n; s++) {
            int ok = 1;
            /* A factor of length len has period p iff x[t] == x[t+p] for all t. */
            for (int t = 0; t + p < len && ok; t++)
                ok = w[s + t] == w[s + t + p];
            if (ok) {
                out->start = s;
                out->period = p;
                out->length = len;
                return 1;
            }
        }
    }
    return 0;
}

NAIVE_FAST int naive_check_insert(const uint8_t *w, int n, thue_variant v, int i, int c,
                                  uint8_t *buf, thue_repetition *out)
{
    memcpy(buf, w, (size_t)i);
    buf[i] = (uint8_t)c;
    memcpy(buf + i + 1, w + i, (size_t)(n - i));
    return naive_check(buf, n + 1, v, out);
}

NAIVE_FAST uint64_t naive_safe_at(const uint8_t *w, int n, int k, thue_variant v, int i,
                                  uint8_t *buf)
{
    uint64_t safe = 0;
    thue_repetition rep;
    for (int c = 0; c < k; c++)
        if (!naive_check_insert(w, n, v, i, c, buf, &rep))
            safe |= (uint64_t)1 << c;
    return safe;
}
