/* baseline.c: the thesis-style naive move check (see baseline.h). */
#include "baseline.h"

#include <stdlib.h>

int baseline_init(baseline_buf *b, int n)
{
    b->cap = n + 1;
    b->word = malloc((size_t)b->cap * sizeof(int));
    b->left = malloc((size_t)b->cap * sizeof(int));
    b->right = malloc((size_t)b->cap * sizeof(int));
    if (b->word == NULL || b->left == NULL || b->right == NULL) {
        baseline_free(b);
        return -1;
    }
    return 0;
}

void baseline_free(baseline_buf *b)
{
    free(b->word);
    free(b->left);
    free(b->right);
    b->word = b->left = b->right = NULL;
    b->cap = 0;
}

static int lists_equal(const int *a, const int *b, int len)
{
    for (int t = 0; t < len; t++)
        if (a[t] != b[t])
            return 0;
    return 1;
}

int baseline_insert_creates(baseline_buf *b, const uint8_t *w, int n, thue_variant v, int i, int c)
{
    int m = n + 1;
    for (int x = 0, y = 0; x < m; x++)
        b->word[x] = x == i ? c : w[y++];
    int extra = v == THUE_OVERLAP;
    /* Window length 2p (square) or 2p+1 (overlap), the two halves overlapping by
     * `extra` symbols: compare word[s..s+p+extra) with word[s+p..s+2p+extra). */
    for (int p = 1; 2 * p + extra <= m; p++) {
        int half = p + extra;
        for (int s = 0; s + 2 * p + extra <= m; s++) {
            for (int t = 0; t < half; t++)
                b->left[t] = b->word[s + t];
            for (int t = 0; t < half; t++)
                b->right[t] = b->word[s + p + t];
            if (lists_equal(b->left, b->right, half))
                return 1;
        }
    }
    return 0;
}
