/* lg_scan.c: see lg_scan.h. */
#include "lg_scan.h"

#include <string.h>

static const char *find(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
    if (nlen == 0 || hlen < nlen)
        return NULL;
    const char *end = hay + hlen - nlen;
    for (const char *p = hay; p <= end; p++) {
        p = memchr(p, needle[0], (size_t)(end - p) + 1);
        if (p == NULL)
            return NULL;
        if (memcmp(p, needle, nlen) == 0)
            return p;
    }
    return NULL;
}

const char *lg_scan_type(const char *text, size_t len, size_t *tlen)
{
    static const char head[] = "{\"type\":\"";
    if (len < sizeof head || memcmp(text, head, sizeof head - 1) != 0)
        return NULL;
    const char *t = text + sizeof head - 1;
    const char *q = memchr(t, '"', len - (sizeof head - 1));
    if (q == NULL)
        return NULL;
    *tlen = (size_t)(q - t);
    return t;
}

int lg_type_is(const char *t, size_t tlen, const char *name)
{
    size_t n = strlen(name);
    return t != NULL && n == tlen && memcmp(t, name, n) == 0;
}

int lg_scan_int(const char *p, const char *end, int64_t *out)
{
    if (p == NULL || p >= end)
        return -1;
    if (end - p >= 4 && memcmp(p, "null", 4) == 0) {
        *out = -1;
        return 0;
    }
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (p >= end || *p < '0' || *p > '9')
        return -1;
    int64_t v = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*p - '0');
        p++;
    }
    *out = neg ? -v : v;
    return 0;
}

int lg_scan_id(const char *text, size_t len, int64_t *id)
{
    size_t tlen;
    const char *t = lg_scan_type(text, len, &tlen);
    if (t == NULL)
        return 0;
    const char *p = t + tlen + 1; /* after the closing quote */
    const char *end = text + len;
    static const char key[] = ",\"id\":";
    if ((size_t)(end - p) < sizeof key || memcmp(p, key, sizeof key - 1) != 0)
        return 0;
    return lg_scan_int(p + sizeof key - 1, end, id) == 0 && *id >= 0;
}

const char *lg_scan_key(const char *text, size_t len, const char *key)
{
    char pat[40];
    size_t k = strlen(key);
    if (k + 4 > sizeof pat)
        return NULL;
    pat[0] = '"';
    memcpy(pat + 1, key, k);
    pat[k + 1] = '"';
    pat[k + 2] = ':';
    const char *p = find(text, len, pat, k + 3);
    return p ? p + k + 3 : NULL;
}

int lg_scan_str(const char *p, const char *end, char *out, size_t cap)
{
    if (p == NULL || p >= end || *p != '"' || cap == 0)
        return -1;
    p++;
    size_t n = 0;
    while (p < end && *p != '"') {
        if (*p == '\\' || n + 1 >= cap)
            return -1;
        out[n++] = *p++;
    }
    if (p >= end)
        return -1;
    out[n] = '\0';
    return (int)n;
}

int lg_scan_word(const char *p, const char *end, uint8_t *sym, int cap)
{
    if (p == NULL || p >= end || *p != '[')
        return -1;
    p++;
    int n = 0;
    if (p < end && *p == ']')
        return 0;
    while (p < end) {
        int v = 0, digits = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            v = v * 10 + (*p - '0');
            p++;
            if (++digits > 3)
                return -1;
        }
        if (digits == 0 || p >= end || v > 255)
            return -1;
        if (sym != NULL) {
            if (n >= cap)
                return -1;
            sym[n] = (uint8_t)v;
        }
        n++;
        if (*p == ']')
            return n;
        if (*p != ',')
            return -1;
        p++;
    }
    return -1;
}

int lg_scan_state(const char *text, size_t len, lg_state *st)
{
    const char *end = text + len;
    memset(st, 0, sizeof *st);
    st->status = -1;
    st->you = st->to_move = st->placed = st->thinking = -1;
    int64_t v;
    if (lg_scan_int(lg_scan_key(text, len, "version"), end, &st->version) != 0)
        return -1;
    const char *s = lg_scan_key(text, len, "status");
    if (s == NULL || *s != '"')
        return -1;
    if (strncmp(s, "\"waiting\"", 9) == 0)
        st->status = 0;
    else if (strncmp(s, "\"playing\"", 9) == 0)
        st->status = 1;
    else if (strncmp(s, "\"finished\"", 10) == 0)
        st->status = 2;
    const char *you = lg_scan_key(text, len, "you");
    if (lg_scan_int(you, end, &v) != 0)
        return -1;
    st->you = (int)v;
    const char *m = lg_scan_key(you, (size_t)(end - you), "match");
    if (m == NULL)
        return -1;
    if ((size_t)(end - m) >= 4 && memcmp(m, "null", 4) == 0)
        return 0;
    st->has_match = 1;
    size_t mlen = (size_t)(end - m);
    const char *p = lg_scan_key(m, mlen, "step");
    if (p == NULL)
        return -1;
    if (strncmp(p, "\"place\"", 7) == 0)
        st->step = 0;
    else if (strncmp(p, "\"paint\"", 7) == 0)
        st->step = 1;
    else
        st->step = 2;
    if (lg_scan_int(lg_scan_key(p, (size_t)(end - p), "to_move"), end, &v) != 0)
        return -1;
    st->to_move = (int)v;
    st->word = lg_scan_key(p, (size_t)(end - p), "word");
    if (st->word == NULL || *st->word != '[')
        return -1;
    const char *pl = lg_scan_key(st->word, (size_t)(end - st->word), "placed");
    if (lg_scan_int(pl, end, &v) != 0)
        return -1;
    st->placed = (int)v;
    const char *th = lg_scan_key(pl, (size_t)(end - pl), "thinking");
    if (th != NULL && lg_scan_int(th, end, &v) == 0)
        st->thinking = (int)v;
    return 0;
}
