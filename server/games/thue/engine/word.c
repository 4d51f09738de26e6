/*
 * word.c: the growable symbol array and its text forms (see word.h).
 *
 * Invariants: 0 <= len <= cap <= THUE_WORD_MAX; every sym[i] < THUE_K_MAX; sym is NULL
 * exactly when cap is 0. Parsing builds into a temporary buffer first so that a
 * failed parse leaves the word as it was.
 */
#include "games/thue/engine/word.h"

#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

void thue_word_init(thue_word *w)
{
    w->sym = NULL;
    w->len = 0;
    w->cap = 0;
}

void thue_word_free(thue_word *w)
{
    if (w == NULL)
        return;
    free(w->sym);
    thue_word_init(w);
}

int thue_word_reserve(thue_word *w, int cap)
{
    if (cap < 0 || cap > THUE_WORD_MAX)
        return THUE_ETOOLONG;
    if (cap <= w->cap)
        return 0;
    /* Grow geometrically so that repeated inserts stay amortised O(1) allocations. */
    int newcap = w->cap < 16 ? 16 : w->cap;
    while (newcap < cap)
        newcap = newcap > THUE_WORD_MAX / 2 ? THUE_WORD_MAX : newcap * 2;
    uint8_t *p = realloc(w->sym, (size_t)newcap);
    if (p == NULL)
        return THUE_ENOMEM;
    w->sym = p;
    w->cap = newcap;
    return 0;
}

int thue_word_assign(thue_word *w, const uint8_t *sym, int n)
{
    if (n < 0 || n > THUE_WORD_MAX)
        return THUE_ETOOLONG;
    for (int i = 0; i < n; i++)
        if (sym[i] >= THUE_K_MAX)
            return THUE_ESYMBOL;
    int err = thue_word_reserve(w, n);
    if (err)
        return err;
    if (n > 0)
        memmove(w->sym, sym, (size_t)n);
    w->len = n;
    return 0;
}

int thue_word_insert(thue_word *w, int i, int c)
{
    if (i < 0 || i > w->len)
        return THUE_EPOSITION;
    if (c < 0 || c >= THUE_K_MAX)
        return THUE_ESYMBOL;
    int err = thue_word_reserve(w, w->len + 1);
    if (err)
        return err;
    memmove(w->sym + i + 1, w->sym + i, (size_t)(w->len - i));
    w->sym[i] = (uint8_t)c;
    w->len++;
    return 0;
}

int thue_word_remove(thue_word *w, int i)
{
    if (i < 0 || i >= w->len)
        return THUE_EPOSITION;
    memmove(w->sym + i, w->sym + i + 1, (size_t)(w->len - i - 1));
    w->len--;
    return 0;
}

int thue_word_check_k(const thue_word *w, int k)
{
    if (k < THUE_K_MIN || k > THUE_K_MAX)
        return THUE_EK;
    for (int i = 0; i < w->len; i++)
        if (w->sym[i] >= k)
            return THUE_ESYMBOL;
    return 0;
}

int thue_word_max_symbol(const thue_word *w)
{
    int m = -1;
    for (int i = 0; i < w->len; i++)
        if (w->sym[i] > m)
            m = w->sym[i];
    return m;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Parses into buf (room for THUE_WORD_MAX symbols); returns the length or an error with
 * *at set to the offending byte offset. */
static int parse_into(const char *text, uint8_t *buf, int *at)
{
    size_t len = strlen(text);
    size_t a = 0, b = len;
    int bracketed = 0;
    while (a < b && is_space(text[a]))
        a++;
    while (b > a && is_space(text[b - 1]))
        b--;
    if (a < b && text[a] == '[') {
        if (text[b - 1] != ']') {
            *at = (int)b;
            return THUE_EWORD;
        }
        bracketed = 1;
        a++;
        b--;
        while (a < b && is_space(text[a]))
            a++;
        while (b > a && is_space(text[b - 1]))
            b--;
    }
    if (a == b)
        return 0; /* the empty word */
    int commas = bracketed || memchr(text + a, ',', b - a) != NULL;
    int n = 0;
    if (!commas) {
        for (size_t p = a; p < b; p++) {
            if (!is_digit(text[p])) {
                *at = (int)p;
                return THUE_EWORD;
            }
            if (n == THUE_WORD_MAX) {
                *at = (int)p;
                return THUE_ETOOLONG;
            }
            buf[n++] = (uint8_t)(text[p] - '0');
        }
        return n;
    }
    size_t p = a;
    for (;;) {
        while (p < b && is_space(text[p]))
            p++;
        if (p == b || !is_digit(text[p])) {
            *at = (int)p;
            return THUE_EWORD;
        }
        size_t start = p;
        int v = 0;
        while (p < b && is_digit(text[p])) {
            if (v >= THUE_K_MAX) {
                *at = (int)start;
                return THUE_ESYMBOL;
            }
            v = v * 10 + (text[p] - '0');
            p++;
        }
        if (v >= THUE_K_MAX) {
            *at = (int)start;
            return THUE_ESYMBOL;
        }
        if (n == THUE_WORD_MAX) {
            *at = (int)start;
            return THUE_ETOOLONG;
        }
        buf[n++] = (uint8_t)v;
        while (p < b && is_space(text[p]))
            p++;
        if (p == b)
            return n;
        if (text[p] != ',') {
            *at = (int)p;
            return THUE_EWORD;
        }
        p++;
    }
}

int thue_word_parse(thue_word *w, const char *text, int *err_at)
{
    int at = 0;
    if (text == NULL) {
        if (err_at)
            *err_at = 0;
        return THUE_EWORD;
    }
    /* A text of L bytes holds at most L symbols. */
    size_t tl = strlen(text);
    size_t room = tl < THUE_WORD_MAX ? tl + 1 : THUE_WORD_MAX;
    uint8_t *buf = malloc(room);
    if (buf == NULL)
        return THUE_ENOMEM;
    int n = parse_into(text, buf, &at);
    int err = n < 0 ? n : thue_word_assign(w, buf, n);
    free(buf);
    if (err < 0 && err_at)
        *err_at = at;
    return err < 0 ? err : 0;
}

int thue_word_format(const thue_word *w, thue_word_format_style style, char *buf, size_t size)
{
    int digits = style == THUE_FMT_DIGITS;
    if (style == THUE_FMT_AUTO)
        digits = thue_word_max_symbol(w) < 10;
    if (digits && thue_word_max_symbol(w) >= 10)
        return THUE_ESYMBOL;
    /* A lone symbol above 9 needs brackets: "12" would read back as [1,2]. */
    int bracket = !digits && w->len == 1 && w->sym[0] >= 10;
    size_t out = 0;
    for (int i = -bracket; i < w->len + bracket; i++) {
        char tmp[4];
        int tl = 0;
        if (i < 0 || i == w->len) {
            tmp[tl++] = i < 0 ? '[' : ']';
        } else {
            if (!digits && i > 0)
                tmp[tl++] = ',';
            if (w->sym[i] >= 10)
                tmp[tl++] = (char)('0' + w->sym[i] / 10);
            tmp[tl++] = (char)('0' + w->sym[i] % 10);
        }
        for (int j = 0; j < tl; j++, out++)
            if (out + 1 < size)
                buf[out] = tmp[j];
    }
    if (size > 0)
        buf[out < size ? out : size - 1] = '\0';
    return (int)out;
}
