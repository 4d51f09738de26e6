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
    st->ref = -1;
    /* thue.v1 writes "you" where thue.v2 writes "ref", right after "spectators" and before
     * "match". Looking there first spares a thue.v2 state a search for "you" to its end;
     * a text in another order is searched for either key. */
    const char *you = NULL, *ref = NULL, *at = lg_scan_key(text, len, "spectators");
    while (at != NULL && at < end && *at >= '0' && *at <= '9')
        at++;
    if (at != NULL && (size_t)(end - at) > 7 && memcmp(at, ",\"you\":", 7) == 0)
        you = at + 7;
    else if (at != NULL && (size_t)(end - at) > 7 && memcmp(at, ",\"ref\":", 7) == 0)
        ref = at + 7;
    else if ((you = lg_scan_key(text, len, "you")) == NULL)
        ref = lg_scan_key(text, len, "ref");
    if (you != NULL) {
        if (lg_scan_int(you, end, &v) != 0)
            return -1;
        st->you = (int)v;
    } else {
        if (lg_scan_int(ref, end, &v) != 0 || v < 1)
            return -1;
        st->ref = (int)v;
        you = ref;
    }
    const char *m = lg_scan_key(you, (size_t)(end - you), "match");
    if (m == NULL)
        return -1;
    if ((size_t)(end - m) >= 4 && memcmp(m, "null", 4) == 0)
        return 0;
    st->has_match = 1;
    size_t mlen = (size_t)(end - m);
    const char *rd = lg_scan_key(m, mlen, "round");
    if (lg_scan_int(rd, end, &v) != 0 || v < 0 || v > 1)
        return -1;
    st->round = (int)v;
    const char *p = lg_scan_key(rd, (size_t)(end - rd), "step");
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

/* p at `pat` (a literal): p past it, or NULL. */
static const char *expect(const char *p, const char *end, const char *pat, size_t n)
{
    if (p == NULL || (size_t)(end - p) < n || memcmp(p, pat, n) != 0)
        return NULL;
    return p + n;
}
#define EXPECT(p, end, lit) expect((p), (end), (lit), sizeof(lit) - 1)

/* The integer at p (see lg_scan_int) and p past it, or NULL. */
static const char *int_at(const char *p, const char *end, int64_t *out)
{
    if (lg_scan_int(p, end, out) != 0)
        return NULL;
    if (*out == -1 && *p == 'n')
        return p + 4;
    if (*p == '-')
        p++;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

int lg_scan_played(const char *text, size_t len, lg_played *ev)
{
    const char *end = text + len;
    int64_t v;
    memset(ev, 0, sizeof *ev);
    ev->to_move = ev->thinking = -1;
    const char *p = EXPECT(text, end, "{\"type\":\"played\",\"ref\":");
    if ((p = int_at(p, end, &v)) == NULL || v < 1 || v > INT32_MAX)
        return -1;
    ev->ref = (int)v;
    if ((p = int_at(EXPECT(p, end, ",\"version\":"), end, &ev->version)) == NULL || ev->version < 0)
        return -1;
    if ((p = EXPECT(p, end, ",\"move\":{\"")) == NULL)
        return -1;
    const char *q;
    if ((q = EXPECT(p, end, "place\":")) != NULL)
        ev->paint = 0;
    else if ((q = EXPECT(p, end, "paint\":")) != NULL)
        ev->paint = 1;
    else
        return -1;
    if ((p = int_at(q, end, &v)) == NULL || v < 0 || v > INT32_MAX || *p != '}')
        return -1;
    ev->value = (int)v;
    /* think_ms is a decimal: the next member is found by its key */
    if ((p = lg_scan_key(p, (size_t)(end - p), "to_move")) == NULL ||
        (p = int_at(p, end, &v)) == NULL || v < -1 || v > 1)
        return -1;
    ev->to_move = (int)v;
    /* The optional members (points, clocks, thinking, round_end, result), each after the
     * one before; points and clocks are not read. */
    const char *th = lg_scan_key(p, (size_t)(end - p), "thinking");
    if (th != NULL) {
        if ((q = int_at(th, end, &v)) == NULL || v < 0 || v > 1)
            return -1;
        ev->thinking = (int)v;
        p = q;
    }
    const char *re = lg_scan_key(p, (size_t)(end - p), "round_end");
    if (re != NULL) {
        if ((q = EXPECT(re, end, "{\"end\":\"")) == NULL)
            return -1;
        if (EXPECT(q, end, "repetition\"") != NULL)
            ev->round_end = 1;
        else if (EXPECT(q, end, "limit\"") != NULL)
            ev->round_end = 2;
        else
            ev->round_end = 3;
        p = q;
    }
    ev->over = lg_scan_key(p, (size_t)(end - p), "result") != NULL;
    if (ev->over != (ev->to_move < 0))
        return -1; /* to_move is null exactly when the match is over */
    return 0;
}
