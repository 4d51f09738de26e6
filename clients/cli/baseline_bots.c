/* baseline_bots.c: greedy and nested:L the thesis's way (see baseline_bots.h). */
#include "baseline_bots.h"

#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "games/thue/engine/word.h"

typedef struct bl {
    baseline_buf buf;
    uint8_t *w; /* the word, edited in place */
    int len, k;
    thue_variant v;
    uint64_t nodes;
} bl;

static int safe(bl *b, int j, int s)
{
    return !baseline_insert_creates(&b->buf, b->w, b->len, b->v, j, s);
}

static void put(bl *b, int j, int s)
{
    memmove(b->w + j + 1, b->w + j, (size_t)(b->len - j));
    b->w[j] = (uint8_t)s;
    b->len++;
}

static void take(bl *b, int j)
{
    memmove(b->w + j, b->w + j + 1, (size_t)(b->len - j - 1));
    b->len--;
}

/* simulation(m) of RULES.md, line by line. */
static uint64_t simulation(bl *b, int m)
{
    b->nodes++;
    m -= 1;
    uint64_t score = 0;
    for (int j = 0; j <= b->len; j++) {
        int syms[THUE_K_MAX], ns = 0;
        for (int s = 0; s < b->k; s++)
            if (safe(b, j, s))
                syms[ns++] = s;
        score += (uint64_t)ns;
        for (int t = 0; t < ns; t++) {
            put(b, j, syms[t]);
            if (m > 0)
                score += simulation(b, m);
            take(b, j);
        }
    }
    return score;
}

/* The candidate at rank `pick` among those whose score equals best. */
static int nth_best(const uint64_t *score, const int *cand, int ncand, uint64_t best, int pick)
{
    for (int x = 0; x < ncand; x++)
        if (score[x] == best && pick-- == 0)
            return cand[x];
    return cand[0];
}

int baseline_bot_move(int level, const thue_position *pos, uint64_t seed, int *move,
                      uint64_t *nodes)
{
    int n = pos->n, L = level;
    bl b = {{0}, malloc((size_t)n + (size_t)L + 2), n, pos->k, pos->variant, 1};
    int *cand = malloc(((size_t)n + 1 + THUE_K_MAX) * sizeof(int));
    uint64_t *score = calloc((size_t)n + 1 + THUE_K_MAX, sizeof(uint64_t));
    if (b.w == NULL || cand == NULL || score == NULL || baseline_init(&b.buf, n + L + 2) != 0) {
        free(b.w);
        free(cand);
        free(score);
        baseline_free(&b.buf);
        return -1;
    }
    memcpy(b.w, pos->sym, (size_t)n);
    int ncand = 0;
    if (pos->role == THUE_ROLE_PAINTER) {
        for (int c = 0; c < pos->k; c++)
            if (safe(&b, pos->index, c))
                cand[ncand++] = c;
        if (ncand == 0 || L == 0) {
            *move = ncand ? cand[0] : 0; /* greedy: the lowest safe symbol */
        } else {
            for (int x = 0; x < ncand; x++) {
                put(&b, pos->index, cand[x]);
                score[x] = simulation(&b, L);
                take(&b, pos->index);
            }
            uint64_t best = score[0];
            int ties = 0;
            for (int x = 1; x < ncand; x++)
                if (score[x] > best)
                    best = score[x];
            for (int x = 0; x < ncand; x++)
                ties += score[x] == best;
            *move = nth_best(score, cand, ncand, best, thue_bot_tiebreak(seed, ties));
        }
    } else if (L == 0) {
        int fewest = THUE_K_MAX + 1;
        for (int i = 0; i <= n; i++) {
            int cnt = 0;
            for (int s = 0; s < pos->k; s++)
                cnt += safe(&b, i, s);
            if (cnt <= fewest) { /* ties: the last such position */
                fewest = cnt;
                *move = i;
            }
        }
    } else {
        for (int i = 0; i <= n; i++) {
            cand[ncand++] = i;
            for (int s = 0; s < pos->k; s++) {
                if (!safe(&b, i, s))
                    continue;
                put(&b, i, s);
                score[i] += simulation(&b, L);
                take(&b, i);
            }
        }
        uint64_t best = score[0];
        int ties = 0;
        for (int x = 1; x < ncand; x++)
            if (score[x] < best)
                best = score[x];
        for (int x = 0; x < ncand; x++)
            ties += score[x] == best;
        *move = nth_best(score, cand, ncand, best, thue_bot_tiebreak(seed, ties));
    }
    *nodes = b.nodes;
    free(b.w);
    free(cand);
    free(score);
    baseline_free(&b.buf);
    return 0;
}
