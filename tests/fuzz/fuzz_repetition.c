/*
 * fuzz_repetition.c: libFuzzer target for the repetition checks.
 *
 * The input drives a game: byte 0 picks k (2..64) and the variant, then each pair of
 * bytes picks a position and a symbol. Before every move the legal-move map is compared
 * with the insertion check at every (position, symbol), and the chosen insertion's
 * answer with the full check of the new word; a clean move is played, a losing one is
 * not. The raw input, read as a word, is also checked in full against the naive
 * reference. Any disagreement aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/thue/engine/repetition.h"
#include "naive.h"

#define MAXN 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static thue_scan *scan;

static void same_or_abort(int fa, const thue_repetition *a, int fb, const thue_repetition *b)
{
    if (fa != fb)
        abort();
    if (fa && (a->start != b->start || a->period != b->period || a->length != b->length))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (scan == NULL && (scan = thue_scan_new()) == NULL)
        return 0;
    if (size < 1)
        return 0;
    int k = 2 + data[0] % 63;
    thue_variant v = (data[0] & 0x80) ? THUE_OVERLAP : THUE_SQUARE;

    /* The input as an arbitrary word: full check against the naive rescan. */
    uint8_t raw[MAXN + 1];
    int rn = size - 1 > MAXN ? MAXN : (int)size - 1;
    for (int j = 0; j < rn; j++)
        raw[j] = (uint8_t)(data[1 + j] % k);
    thue_repetition a, b;
    same_or_abort(thue_check_word(scan, raw, rn, v, &a), &a, naive_check(raw, rn, v, &b), &b);

    /* The input as a game. */
    uint8_t w[MAXN + 2], buf[MAXN + 2];
    uint64_t safe[MAXN + 2];
    int n = 1;
    w[0] = 0;
    for (size_t x = 1; x + 1 < size && n < MAXN; x += 2) {
        if (thue_legal_map(scan, w, n, k, v, safe) != 0)
            abort();
        for (int i = 0; i <= n; i++)
            for (int c = 0; c < k; c++)
                if (thue_check_insert(w, n, v, i, c, NULL) != !((safe[i] >> c) & 1))
                    abort();
        int i = data[x] % (n + 1), c = data[x + 1] % k;
        int hit = thue_check_insert(w, n, v, i, c, &a);
        memcpy(buf, w, (size_t)i);
        buf[i] = (uint8_t)c;
        memcpy(buf + i + 1, w + i, (size_t)(n - i));
        same_or_abort(hit, &a, thue_check_word(scan, buf, n + 1, v, &b), &b);
        if (!hit) {
            memcpy(w, buf, (size_t)n + 1);
            n++;
        }
    }
    return 0;
}
