/* lg_model.c: see lg_model.h. */
#include "lg_model.h"

#include <stdlib.h>
#include <string.h>

void lg_model_init(lg_model *m)
{
    memset(m, 0, sizeof *m);
    m->version = -1;
    m->ref = m->to_move = m->placed = m->thinking = -1;
    m->status = -1;
}

void lg_model_free(lg_model *m)
{
    if (m == NULL)
        return;
    free(m->word);
    lg_model_init(m);
}

/* Room for n symbols: 0, or -1 when memory ran out. */
static int reserve(lg_model *m, int n)
{
    if (n <= m->cap)
        return 0;
    int cap = m->cap ? m->cap : 64;
    while (cap < n)
        cap *= 2;
    uint8_t *w = realloc(m->word, (size_t)cap);
    if (w == NULL)
        return -1;
    m->word = w;
    m->cap = cap;
    return 0;
}

int lg_model_reset(lg_model *m, const lg_state *st, const char *end)
{
    int n = 0;
    if (st->has_match) {
        n = lg_scan_word(st->word, end, NULL, 0);
        if (n < 0 || reserve(m, n + 1) != 0 || lg_scan_word(st->word, end, m->word, m->cap) != n) {
            lg_model_free(m);
            return -1;
        }
    }
    m->version = st->version;
    m->ref = st->ref;
    m->status = st->status;
    m->has_match = st->has_match;
    m->round = st->has_match ? st->round : 0;
    m->step = st->has_match ? st->step : 2;
    m->to_move = st->has_match ? st->to_move : -1;
    m->placed = st->has_match ? st->placed : -1;
    m->thinking = st->has_match ? st->thinking : -1;
    m->len = n;
    return 0;
}

int lg_model_apply(lg_model *m, const lg_played *ev)
{
    if (m->version < 0 || ev->ref != m->ref)
        return LG_MODEL_OTHER;
    if (ev->version <= m->version)
        return LG_MODEL_STALE;
    if (ev->version != m->version + 1)
        return LG_MODEL_GAP;
    if (!m->has_match || m->step == 2 || m->to_move < 0)
        return LG_MODEL_BAD;
    if (ev->paint) {
        if (m->step != 1 || m->placed < 0 || m->placed > m->len || ev->value > 255 ||
            reserve(m, m->len + 1) != 0)
            return LG_MODEL_BAD;
        memmove(m->word + m->placed + 1, m->word + m->placed, (size_t)(m->len - m->placed));
        m->word[m->placed] = (uint8_t)ev->value;
        m->len++;
        m->placed = -1;
        m->step = 0;
    } else {
        if (m->step != 0 || ev->value > m->len)
            return LG_MODEL_BAD;
        m->placed = ev->value;
        m->step = 1;
    }
    if (ev->round_end) {
        /* The round this move was made in is over: the match too, or the second round
         * starts from [0] with the roles swapped. */
        m->placed = -1;
        if (!ev->over && m->round == 0) {
            m->round = 1;
            m->word[0] = 0;
            m->len = 1;
            m->step = 0;
        } else {
            m->step = 2;
        }
    }
    if (ev->over) {
        m->step = 2;
        m->status = 2;
        m->placed = -1;
    }
    m->to_move = ev->to_move;
    m->thinking = ev->thinking;
    m->version = ev->version;
    return LG_MODEL_APPLIED;
}

const char *lg_model_diff(const lg_model *a, const lg_model *b)
{
    if (a->version != b->version)
        return "version";
    if (a->status != b->status)
        return "status";
    if (a->has_match != b->has_match)
        return "match";
    if (!a->has_match)
        return NULL;
    if (a->round != b->round)
        return "round";
    if (a->step != b->step)
        return "step";
    if (a->to_move != b->to_move)
        return "to_move";
    if (a->placed != b->placed)
        return "placed";
    if (a->thinking != b->thinking)
        return "thinking";
    if (a->len != b->len || (a->len > 0 && memcmp(a->word, b->word, (size_t)a->len) != 0))
        return "word";
    return NULL;
}
