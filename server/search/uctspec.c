/*
 * uctspec.c: uct's option list (uctspec.h), moved out of Thue's spec parser (bot.c) so
 * that the generic uct reads the same text without including Thue's headers. The parsing
 * and the sentences are bot.c's, unchanged; bot.c now hands "uct:..." over to this file
 * and keeps the other bots' names and perfect's depth.
 */
#include "search/uctspec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

int thue_spec_error(char *err, size_t errsize, const char *fmt, ...)
{
    if (err != NULL && errsize > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsize, fmt, ap);
        va_end(ap);
    }
    return THUE_EINVAL;
}

int thue__spec_int(const char *text, size_t len, long long lo, long long hi, long long *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (buf[i] < '0' || buf[i] > '9')
            return -1;
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_real(const char *text, size_t len, double lo, double hi, double *out)
{
    char buf[48], *end;
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

thue_uct_spec thue_uct_spec_default(void)
{
    thue_uct_spec s;
    memset(&s, 0, sizeof s);
    s.iterations = THUE_UCT_ITERATIONS_DEFAULT;
    s.playout_limit = THUE_UCT_PLAYOUT_DEFAULT;
    s.exploration = THUE_UCT_C_DEFAULT;
    return s;
}

int thue__spec_option(const char **p, const char *name, thue__spec_kv *kv, char *err,
                      size_t errsize)
{
    const char *at = *p, *end = strchr(at, ',');
    size_t len = end ? (size_t)(end - at) : strlen(at);
    const char *eq = memchr(at, '=', len);
    if (eq == NULL)
        return thue_spec_error(err, errsize, "%s option '%.*s' is not KEY=VALUE", name, (int)len,
                               at);
    kv->key = at;
    kv->klen = (size_t)(eq - at);
    kv->val = eq + 1;
    kv->vlen = len - kv->klen - 1;
    *p = end ? end + 1 : NULL;
    return 0;
}

bool thue__spec_key_is(const thue__spec_kv *kv, const char *key)
{
    return kv->klen == strlen(key) && strncmp(kv->key, key, kv->klen) == 0;
}

int thue_uct_spec_parse(const char *opts, thue_uct_spec *s, char *err, size_t errsize)
{
    *s = thue_uct_spec_default();
    if (opts == NULL)
        return 0;
    if (opts[0] == '\0')
        return thue_spec_error(err, errsize, "empty option list after 'uct:'");
    for (const char *p = opts; p != NULL;) {
        thue__spec_kv kv = {NULL, NULL, 0, 0}; /* set by thue__spec_option (gcc -O3 cannot tell) */
        if (thue__spec_option(&p, "uct", &kv, err, errsize) != 0)
            return THUE_EINVAL;
        const char *val = kv.val;
        size_t vlen = kv.vlen;
        long long iv;
        double dv;
#define KEY_IS(str) thue__spec_key_is(&kv, str)
        if (KEY_IS("iterations") || KEY_IS("iters")) {
            if (thue__spec_int(val, vlen, 0, 1000000000000LL, &iv))
                return thue_spec_error(err, errsize, "uct iterations must be 0..10^12, got '%.*s'",
                                       (int)vlen, val);
            s->iterations = (uint64_t)iv;
        } else if (KEY_IS("ms")) {
            if (thue__spec_int(val, vlen, 0, 86400000, &iv))
                return thue_spec_error(err, errsize, "uct ms must be 0..86400000, got '%.*s'",
                                       (int)vlen, val);
            s->time_ms = (int)iv;
        } else if (KEY_IS("playout")) {
            if (thue__spec_int(val, vlen, 1, 100000, &iv))
                return thue_spec_error(err, errsize, "uct playout must be 1..100000, got '%.*s'",
                                       (int)vlen, val);
            s->playout_limit = (int)iv;
        } else if (KEY_IS("c")) {
            if (parse_real(val, vlen, 0.0, 1000.0, &dv))
                return thue_spec_error(
                    err, errsize, "uct c must be a number in 0..1000, got '%.*s'", (int)vlen, val);
            s->exploration = dv;
        } else {
            return thue_spec_error(err, errsize,
                                   "uct has no option '%.*s' (iterations, ms, playout, c)",
                                   (int)kv.klen, kv.key);
        }
#undef KEY_IS
    }
    if (s->iterations == 0 && s->time_ms == 0)
        return thue_spec_error(err, errsize,
                               "uct with iterations=0 needs ms=T (it would never stop otherwise)");
    return 0;
}

int thue_uct_spec_format(const thue_uct_spec *s, char *buf, size_t size)
{
    char ms[32] = "", c[40];
    if (s->time_ms > 0)
        snprintf(ms, sizeof ms, ",ms=%d", s->time_ms);
    /* The shortest of %g and %.17g that reads back as the same number. */
    snprintf(c, sizeof c, "%g", s->exploration);
    if (strtod(c, NULL) != s->exploration)
        snprintf(c, sizeof c, "%.17g", s->exploration);
    return snprintf(buf, size, "uct:iterations=%llu%s,playout=%d,c=%s",
                    (unsigned long long)s->iterations, ms, s->playout_limit, c);
}
