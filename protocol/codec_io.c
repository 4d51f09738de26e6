/*
 * codec_io.c: the two-way member helpers behind codec.c's message descriptions.
 *
 * A thue__io runs in one direction. Decoding, each helper finds its member in the jansson
 * tree (`cur`, the object or array being read), checks it and stores it in the struct;
 * encoding, it checks the struct's value against the same rule and appends it to `out`.
 * Invariants: `path` always names the member being handled (so a failure can name it);
 * the first failure sets `code` and every helper after it does nothing, so descriptions
 * are straight-line code that check o->code only where they branch on decoded values;
 * a helper that enters a container (returns 1, or a count >= 0) leaves a frame that
 * thue__io_end pops, also after a failure inside.
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/codec.h"
#include "protocol/codec_internal.h"

const char *thue__enum_name(const char *const *names, int n, int v)
{
    return v >= 0 && v < n ? names[v] : NULL;
}

/* Appends key (n bytes) to the path. */
static void path_push_n(thue__io *o, const char *key, size_t n)
{
    size_t at = o->plen;
    if (at > 0 && at + 1 < sizeof o->path)
        o->path[at++] = '/';
    if (at + n >= sizeof o->path)
        n = sizeof o->path - 1 - at;
    memcpy(o->path + at, key, n);
    o->plen = at + n;
    o->path[o->plen] = '\0';
}

static void path_push(thue__io *o, const char *key)
{
    char num[24];
    if (key == NULL) {
        /* An element's index, without snprintf (a tenth of a room_state's cost when
         * every element of every list came here). */
        num[sizeof num - 1] = '\0';
        key = thue__u64_digits(o->idx++, num + sizeof num - 1);
    }
    path_push_n(o, key, strlen(key));
}

static void path_pop(thue__io *o, size_t plen)
{
    o->plen = plen;
    o->path[plen] = '\0';
}

void thue__io_fail(thue__io *o, int code, const char *field, const char *fmt, ...)
{
    if (o->code != 0)
        return;
    o->code = code;
    o->err->code = code;
    snprintf(o->err->field, sizeof o->err->field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->err->message, sizeof o->err->message, fmt, ap);
    va_end(ap);
}

/* The member at the current path is wrong: "<path> must be <rule>[ or null]", or missing. */
static void bad(thue__io *o, int missing, int nullable, const char *rule)
{
    if (missing)
        thue__io_fail(o, THUE_PERR_MESSAGE, o->path, "%s is missing: it must be %s", o->path, rule);
    else
        thue__io_fail(o, THUE_PERR_MESSAGE, o->path, "%s must be %s%s", o->path, rule,
                      nullable ? " or null" : "");
}

void thue__io_oom(thue__io *o)
{
    thue__io_fail(o, THUE_PERR_INTERNAL, "", "out of memory");
}

/* The member `key` of the current object is wrong (a rule across members). */
void thue__io_bad_member(thue__io *o, const char *key, const char *rule)
{
    size_t pl = o->plen;
    path_push(o, key);
    bad(o, 0, 0, rule);
    path_pop(o, pl);
}

/* Decoding: the member `key` (NULL: the next element) of the current container, or NULL
 * when absent; the path is pushed. */
static json_t *at(thue__io *o, const char *key)
{
    size_t i = o->idx;
    path_push(o, key);
    return key != NULL ? json_object_get(o->cur, key) : json_array_get(o->cur, i);
}

int thue__io_given(const thue__io *o, const char *key)
{
    return !o->enc && o->code == 0 && json_object_get(o->cur, key) != NULL;
}

/* Encoding: the separator and the key of the member `key` (NULL: an element); the path is
 * pushed. */
static void put_key(thue__io *o, const char *key)
{
    if (!o->first)
        thue__buf_putc(&o->out, ',');
    o->first = 0;
    if (key == NULL) {
        path_push(o, NULL);
        return;
    }
    /* The keys are the descriptions' own names: nothing in them needs escaping. One
     * strlen serves the text and the path (this runs for every member of every message
     * the server sends). */
    size_t n = strlen(key);
    thue__buf *b = &o->out;
    if (!b->oom && n + 3 < b->cap - b->len) { /* straight into the buffer */
        char *at = b->p + b->len;
        at[0] = '"';
        memcpy(at + 1, key, n);
        at[n + 1] = '"';
        at[n + 2] = ':';
        at[n + 3] = '\0';
        b->len += n + 3;
    } else {
        thue__buf_json_str(b, key, n);
        thue__buf_putc(b, ':');
    }
    path_push_n(o, key, n);
}

/* Enters the container j (decoding) or the one just opened (encoding). */
static void push_frame(thue__io *o, json_t *j, size_t plen, char close)
{
    if (o->depth >= THUE__STACK_MAX) { /* a bug in the descriptions, not input */
        thue__io_fail(o, THUE_PERR_INTERNAL, "", "codec nesting too deep");
        return;
    }
    thue__frame *f = &o->stack[o->depth++];
    f->cur = o->cur;
    f->idx = o->idx;
    f->plen = plen;
    f->first = o->first;
    f->close = close;
    o->cur = j;
    o->idx = 0;
    o->first = 1;
    if (o->enc)
        thue__buf_putc(&o->out, close == '}' ? '{' : '[');
}

/* Leaves the container entered by a helper that returned 1 (or a count >= 0). */
void thue__io_end(thue__io *o)
{
    if (o->depth == 0)
        return;
    thue__frame *f = &o->stack[--o->depth];
    if (o->enc)
        thue__buf_putc(&o->out, f->close);
    o->cur = f->cur;
    o->idx = f->idx;
    o->first = f->first;
    path_pop(o, f->plen);
}

/* ---- members -------------------------------------------------------------------------- */

static void int_rule(char *buf, size_t n, int64_t min, int64_t max)
{
    snprintf(buf, n, "an integer between %lld and %lld", (long long)min, (long long)max);
}

/* An integer member (mode: THUE__REQ, DEF, OPT or NULL); `has` is needed for OPT and NULL. */
static void io_num(thue__io *o, const char *key, int mode, int *has, int64_t *v, int64_t min,
                   int64_t max, int64_t def)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1, missing = 0;
    if (o->enc) {
        if (mode == THUE__OPT && !*has)
            return;
        put_key(o, key);
        if (mode == THUE__NULL && !*has)
            thue__buf_puts(&o->out, "null");
        else if (*v < min || *v > max)
            ok = 0;
        else
            thue__buf_i64(&o->out, *v);
    } else {
        json_t *j = at(o, key);
        if (j == NULL) {
            if (mode == THUE__DEF)
                *v = def;
            else if (mode == THUE__OPT)
                *has = 0;
            else
                ok = 0, missing = 1;
        } else if (mode == THUE__NULL && json_is_null(j)) {
            *has = 0;
        } else if (!json_is_integer(j) || json_integer_value(j) < min ||
                   json_integer_value(j) > max) {
            ok = 0;
        } else {
            *v = json_integer_value(j);
            if (has != NULL)
                *has = 1;
        }
    }
    if (!ok) {
        char rule[80];
        int_rule(rule, sizeof rule, min, max);
        bad(o, missing, mode == THUE__NULL, rule);
    }
    path_pop(o, pl);
}

static void io_intm(thue__io *o, const char *key, int mode, int *has, int *v, int min, int max,
                    int def)
{
    int64_t x = o->enc ? *v : 0;
    io_num(o, key, mode, has, &x, min, max, def);
    if (!o->enc && o->code == 0)
        *v = (int)x;
}

void thue__io_int(thue__io *o, const char *key, int *v, int min, int max)
{
    io_intm(o, key, THUE__REQ, NULL, v, min, max, 0);
}

void thue__io_int_def(thue__io *o, const char *key, int *v, int min, int max, int def)
{
    io_intm(o, key, THUE__DEF, NULL, v, min, max, def);
}

void thue__io_int_opt(thue__io *o, const char *key, int *has, int *v, int min, int max)
{
    io_intm(o, key, THUE__OPT, has, v, min, max, 0);
}

/* A nullable integer whose null is -1 in the struct (seats, `placed`, rounds). */
void thue__io_int_nullv(thue__io *o, const char *key, int *v, int min, int max)
{
    int has = *v != -1;
    io_intm(o, key, THUE__NULL, &has, v, min, max, 0);
    if (!o->enc && o->code == 0 && !has)
        *v = -1;
}

void thue__io_int_null(thue__io *o, const char *key, int *has, int *v, int min, int max)
{
    io_intm(o, key, THUE__NULL, has, v, min, max, 0);
}

void thue__io_i64(thue__io *o, const char *key, int64_t *v, int64_t min, int64_t max)
{
    io_num(o, key, THUE__REQ, NULL, v, min, max, 0);
}

void thue__io_i64_null(thue__io *o, const char *key, int *has, int64_t *v, int64_t min, int64_t max)
{
    io_num(o, key, THUE__NULL, has, v, min, max, 0);
}

static void io_boolm(thue__io *o, const char *key, int mode, int *v, int def)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    if (o->enc) {
        put_key(o, key);
        thue__buf_puts(&o->out, *v ? "true" : "false");
    } else {
        json_t *j = at(o, key);
        if (j == NULL && mode == THUE__DEF)
            *v = def;
        else if (j == NULL || !json_is_boolean(j))
            bad(o, j == NULL, 0, "a boolean");
        else
            *v = json_is_true(j);
    }
    path_pop(o, pl);
}

void thue__io_bool(thue__io *o, const char *key, int *v)
{
    io_boolm(o, key, THUE__REQ, v, 0);
}

void thue__io_bool_def(thue__io *o, const char *key, int *v, int def)
{
    io_boolm(o, key, THUE__DEF, v, def);
}

/* A number (integer or not): finite and at least `min` (-HUGE_VAL: any). */
void thue__io_dblm(thue__io *o, const char *key, int mode, int *has, double *v, double min)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1, missing = 0;
    if (o->enc) {
        put_key(o, key);
        if (mode == THUE__NULL && !*has) {
            thue__buf_puts(&o->out, "null");
        } else if (!isfinite(*v) || *v < min) {
            ok = 0;
        } else {
            char num[THUE__DOUBLE_MAX];
            thue__buf_put(&o->out, num, thue__fmt_double(*v, num));
        }
    } else {
        json_t *j = at(o, key);
        if (j == NULL) {
            ok = 0, missing = 1;
        } else if (mode == THUE__NULL && json_is_null(j)) {
            *has = 0;
        } else if (!json_is_number(j) || json_number_value(j) < min) {
            ok = 0;
        } else {
            *v = json_number_value(j);
            if (has != NULL)
                *has = 1;
        }
    }
    if (!ok)
        bad(o, missing, mode == THUE__NULL, min == 0 ? "a number of at least 0" : "a number");
    path_pop(o, pl);
}

void thue__io_dbl(thue__io *o, const char *key, double *v, double min)
{
    thue__io_dblm(o, key, THUE__REQ, NULL, v, min);
}

/* A string member held in buf[cap] (THUE__REQ, THUE__OPT or THUE__NULL). */
void thue__io_str(thue__io *o, const char *key, int mode, int *has, char *buf, size_t cap,
                  thue__str_rule rule)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1, missing = 0;
    if (o->enc) {
        if (mode == THUE__OPT && !*has)
            return;
        put_key(o, key);
        const char *nul = memchr(buf, 0, cap);
        size_t n = nul != NULL ? (size_t)(nul - buf) : cap;
        if (mode == THUE__NULL && !*has)
            thue__buf_puts(&o->out, "null");
        else if (n == cap || !thue__str_ok(rule, buf, n))
            ok = 0;
        else
            thue__buf_json_str(&o->out, buf, n);
    } else {
        json_t *j = at(o, key);
        buf[0] = '\0';
        if (j == NULL) {
            if (mode == THUE__OPT)
                *has = 0;
            else
                ok = 0, missing = 1;
        } else if (mode == THUE__NULL && json_is_null(j)) {
            *has = 0;
        } else if (!json_is_string(j) ||
                   !thue__str_ok(rule, json_string_value(j), json_string_length(j)) ||
                   json_string_length(j) >= cap) {
            ok = 0;
        } else {
            memcpy(buf, json_string_value(j), json_string_length(j) + 1);
            if (has != NULL)
                *has = 1;
        }
    }
    if (!ok)
        bad(o, missing, mode == THUE__NULL, thue__str_rule_text(rule));
    path_pop(o, pl);
}

static void *alloc(thue__io *o, size_t n, size_t size);

void thue__io_str_ptr(thue__io *o, const char *key, const char **s, thue__str_rule rule)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1, missing = 0;
    if (o->enc) {
        put_key(o, key);
        size_t n = *s != NULL ? strlen(*s) : 0;
        if (*s == NULL || !thue__str_ok(rule, *s, n))
            ok = 0;
        else
            thue__buf_json_str(&o->out, *s, n);
    } else {
        json_t *j = at(o, key);
        *s = NULL;
        if (j == NULL) {
            ok = 0, missing = 1;
        } else if (!json_is_string(j) ||
                   !thue__str_ok(rule, json_string_value(j), json_string_length(j))) {
            ok = 0;
        } else {
            char *mem = alloc(o, json_string_length(j) + 1, 1);
            if (mem != NULL) {
                memcpy(mem, json_string_value(j), json_string_length(j) + 1);
                *s = mem;
            }
        }
    }
    if (!ok)
        bad(o, missing, 0, thue__str_rule_text(rule));
    path_pop(o, pl);
}

/* "\"a\", \"b\" or \"c\"" for the names of an enum (NULL entries skipped). */
static void enum_rule(char *buf, size_t cap, const char *const *names, int n)
{
    size_t len = 0;
    int seen = 0, total = 0;
    for (int i = 0; i < n; i++)
        total += names[i] != NULL;
    buf[0] = '\0';
    for (int i = 0; i < n && len < cap; i++) {
        if (names[i] == NULL)
            continue;
        const char *sep = seen == 0 ? "" : seen == total - 1 ? " or " : ", ";
        int w = snprintf(buf + len, cap - len, "%s\"%s\"", sep, names[i]);
        if (w < 0)
            break;
        len += (size_t)w;
        seen++;
    }
}

/* An enum member written as one of names[0..n) (THUE__REQ, THUE__DEF, THUE__OPT; THUE__NULL with
 * -1). */
void thue__io_enum(thue__io *o, const char *key, int mode, int *has, int *v,
                   const char *const *names, int n, int def)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1, missing = 0;
    if (o->enc) {
        if (mode == THUE__OPT && !*has)
            return;
        put_key(o, key);
        const char *name = thue__enum_name(names, n, *v);
        if (mode == THUE__NULL && *v == -1)
            thue__buf_puts(&o->out, "null");
        else if (name == NULL)
            ok = 0;
        else
            thue__buf_json_str(&o->out, name, strlen(name));
    } else {
        json_t *j = at(o, key);
        if (j == NULL) {
            if (mode == THUE__DEF)
                *v = def;
            else if (mode == THUE__OPT)
                *has = 0;
            else
                ok = 0, missing = 1;
        } else if (mode == THUE__NULL && json_is_null(j)) {
            *v = -1;
        } else {
            ok = 0;
            for (int i = 0; i < n && json_is_string(j); i++) {
                if (names[i] != NULL && strlen(names[i]) == json_string_length(j) &&
                    memcmp(names[i], json_string_value(j), json_string_length(j)) == 0) {
                    *v = i;
                    ok = 1;
                    if (has != NULL)
                        *has = 1;
                }
            }
        }
    }
    if (!ok) {
        char rule[120];
        enum_rule(rule, sizeof rule, names, n);
        bad(o, missing, mode == THUE__NULL, rule);
    }
    path_pop(o, pl);
}

/* An enum held as its name in buf[cap] (goodbye's reason, tournament_event's event). */
void thue__io_enum_str(thue__io *o, const char *key, char *buf, size_t cap,
                       const char *const *names, int n)
{
    int v = -2;
    if (o->enc) {
        for (int i = 0; i < n; i++)
            if (memchr(buf, 0, cap) != NULL && strcmp(buf, names[i]) == 0)
                v = i;
    }
    thue__io_enum(o, key, THUE__REQ, NULL, &v, names, n, 0);
    if (!o->enc && o->code == 0)
        snprintf(buf, cap, "%s", names[v]);
}

/* The codes an `error` message may carry: PROTOCOL.md section 10's table, which has the
 * protocol's codes and the engine's game codes. */
static int wire_code(int err)
{
    switch (err) {
#define THUE__PERR_CASE(name, value, wire, msg) case value:
        THUE_PROTO_ERRNO_MAP(THUE__PERR_CASE)
#undef THUE__PERR_CASE
    case THUE_ETURN:
    case THUE_ESTEP:
    case THUE_EPOSITION:
    case THUE_ESYMBOL:
    case THUE_EOVER:
    case THUE_EOPTIONS:
    case THUE_EMOVE:
    case THUE_EILLEGAL:
    case THUE_EGAME:
    case THUE_ESTATE: /* analyze's position */
        return 1;
    default:
        return 0;
    }
}

/* An `error` message's code: a name of PROTOCOL.md section 10's table. */
void thue__io_err_code(thue__io *o, int *code)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1;
    if (o->enc) {
        put_key(o, "code");
        const char *name = thue_proto_err_name(*code);
        if (wire_code(*code))
            thue__buf_json_str(&o->out, name, strlen(name));
        else
            ok = 0;
    } else {
        json_t *j = at(o, "code");
        int v = 0;
        if (j != NULL && json_is_string(j) && strlen(json_string_value(j)) == json_string_length(j))
            v = thue_proto_err_code(json_string_value(j));
        if (v != 0 && wire_code(v))
            *code = v;
        else
            bad(o, j == NULL, 0, "one of the error codes of PROTOCOL.md section 10");
    }
    if (!ok)
        bad(o, 0, 0, "one of the error codes of PROTOCOL.md section 10");
    path_pop(o, pl);
}

/* An object member. Returns 1 when there is an object to fill (call thue__io_end after its
 * members), 0 when absent or null (then *has is 0) or on failure. */
int thue__io_objm(thue__io *o, const char *key, int mode, int *has)
{
    if (o->code != 0)
        return 0;
    size_t pl = o->plen;
    if (o->enc) {
        if (mode == THUE__OPT && !*has)
            return 0;
        put_key(o, key);
        if (mode == THUE__NULL && !*has) {
            thue__buf_puts(&o->out, "null");
            path_pop(o, pl);
            return 0;
        }
        push_frame(o, NULL, pl, '}');
        return o->code == 0;
    }
    json_t *j = at(o, key);
    if (j == NULL && mode == THUE__OPT) {
        *has = 0;
    } else if (j != NULL && mode == THUE__NULL && json_is_null(j)) {
        *has = 0;
    } else if (j == NULL || !json_is_object(j)) {
        bad(o, j == NULL, mode == THUE__NULL, "an object");
    } else {
        if (has != NULL)
            *has = 1;
        push_frame(o, j, pl, '}');
        return o->code == 0;
    }
    path_pop(o, pl);
    return 0;
}

int thue__io_obj(thue__io *o, const char *key)
{
    return thue__io_objm(o, key, THUE__REQ, NULL);
}

/* An array of exactly n entries, as thue__io_objm. */
int thue__io_arrm(thue__io *o, const char *key, int mode, int *has, int n)
{
    if (o->code != 0)
        return 0;
    size_t pl = o->plen;
    if (o->enc) {
        if (mode == THUE__OPT && !*has)
            return 0;
        put_key(o, key);
        if (mode == THUE__NULL && !*has) {
            thue__buf_puts(&o->out, "null");
            path_pop(o, pl);
            return 0;
        }
        push_frame(o, NULL, pl, ']');
        return o->code == 0;
    }
    json_t *j = at(o, key);
    if (j == NULL && mode == THUE__OPT) {
        *has = 0;
    } else if (j != NULL && mode == THUE__NULL && json_is_null(j)) {
        *has = 0;
    } else if (j == NULL || !json_is_array(j) || json_array_size(j) != (size_t)n) {
        char rule[40];
        snprintf(rule, sizeof rule, "an array of %d entries", n);
        bad(o, j == NULL, mode == THUE__NULL, rule);
    } else {
        if (has != NULL)
            *has = 1;
        push_frame(o, j, pl, ']');
        return o->code == 0;
    }
    path_pop(o, pl);
    return 0;
}

int thue__io_arr(thue__io *o, const char *key, int n)
{
    return thue__io_arrm(o, key, THUE__REQ, NULL, n);
}

static void *alloc(thue__io *o, size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    if (size == 0 || n > (SIZE_MAX - sizeof(thue__chunk)) / size) {
        thue__io_oom(o);
        return NULL;
    }
    thue__chunk *c = calloc(1, sizeof *c + n * size);
    if (c == NULL) {
        thue__io_oom(o);
        return NULL;
    }
    c->next = o->owned;
    o->owned = c;
    return c->data;
}

/*
 * An array of min..max entries of esize bytes behind a pointer (THUE__REQ, or THUE__NULL where a
 * NULL pointer is null). Encoding reads `list` and *count; decoding allocates the entries
 * (zeroed; NULL for none) and sets *count. *mem is the entries either way. Returns the
 * count (call thue__io_end after the entries), or -1 when null or on failure.
 */
int thue__io_list(thue__io *o, const char *key, int mode, const void *list, int *count,
                  size_t esize, int min, int max, void **mem)
{
    *mem = NULL;
    if (o->code != 0)
        return -1;
    size_t pl = o->plen;
    int missing = 0;
    if (o->enc) {
        put_key(o, key);
        if (mode == THUE__NULL && list == NULL) {
            thue__buf_puts(&o->out, "null");
            path_pop(o, pl);
            return -1;
        }
        if (*count >= min && *count <= max && (list != NULL || *count == 0)) {
            *mem = (void *)(uintptr_t)list; /* only read while encoding */
            push_frame(o, NULL, pl, ']');
            return o->code == 0 ? *count : -1;
        }
    } else {
        json_t *j = at(o, key);
        if (j != NULL && mode == THUE__NULL && json_is_null(j)) {
            *count = 0;
            path_pop(o, pl);
            return -1;
        }
        if (j != NULL && json_is_array(j) && json_array_size(j) >= (size_t)min &&
            json_array_size(j) <= (size_t)max) {
            int n = (int)json_array_size(j);
            *mem = alloc(o, (size_t)n, esize);
            if (o->code != 0)
                return -1;
            *count = n;
            push_frame(o, j, pl, ']');
            return o->code == 0 ? n : -1;
        }
        missing = j == NULL;
    }
    char rule[64];
    if (min == 0 && max == INT_MAX)
        snprintf(rule, sizeof rule, "an array");
    else if (min == 0)
        snprintf(rule, sizeof rule, "an array of at most %d entries", max);
    else
        snprintf(rule, sizeof rule, "an array of %d to %d entries", min, max);
    bad(o, missing, mode == THUE__NULL, rule);
    path_pop(o, pl);
    return -1;
}

/* A word: 1..10001 symbols 0..63 (THUE__REQ, or THUE__NULL with a NULL pointer). */
void thue__io_word(thue__io *o, const char *key, int mode, const uint8_t **word, int *len)
{
    void *mem;
    int n = thue__io_list(o, key, mode, *word, len, 1, 1, THUE__WORD_MAX, &mem);
    if (n < 0) {
        if (!o->enc && o->code == 0)
            *word = NULL;
        return;
    }
    uint8_t *w = mem;
    size_t lp = o->plen; /* the word's own path */
    int start = 0;       /* where the checking loop below starts */
    if (o->enc) {
        /* Symbols are 0..63: one or two digits each, written a chunk at a time (this is
         * the bulk of every room_state). A symbol out of range stops the chunk; the loop
         * below reports it. */
        char chunk[1024];
        size_t at = 0;
        int i = 0;
        for (; i < n && w[i] < 64; i++) {
            if (at + 4 > sizeof chunk) {
                thue__buf_put(&o->out, chunk, at);
                at = 0;
            }
            if (i > 0)
                chunk[at++] = ',';
            if (w[i] >= 10)
                chunk[at++] = (char)('0' + w[i] / 10);
            chunk[at++] = (char)('0' + w[i] % 10);
        }
        thue__buf_put(&o->out, chunk, at);
        if (i == n) {
            thue__io_end(o);
            return;
        }
        start = i;
    }
    for (int i = start; i < n && o->code == 0; i++) {
        int sym;
        if (o->enc) {
            sym = w[i] < 64 ? w[i] : -1;
            if (sym >= 0) {
                if (i > 0)
                    thue__buf_putc(&o->out, ',');
                thue__buf_i64(&o->out, sym);
            }
        } else {
            json_t *j = json_array_get(o->cur, (size_t)i);
            json_int_t v = json_is_integer(j) ? json_integer_value(j) : -1;
            sym = v >= 0 && v < 64 ? (int)v : -1;
            if (sym >= 0)
                w[i] = (uint8_t)sym;
        }
        if (sym < 0) {
            o->idx = (size_t)i;
            path_push(o, NULL);
            bad(o, 0, 0, "an integer between 0 and 63");
            path_pop(o, lp);
        }
    }
    thue__io_end(o);
    if (!o->enc && o->code == 0)
        *word = w;
}

void thue__io_id(thue__io *o, thue_msg_id *id)
{
    static const char rule[] = "a string of 1 to 64 printable ASCII characters or an integer "
                               "between 0 and 9007199254740991";
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1;
    if (o->enc) {
        if (id->kind == THUE_ID_NONE)
            return;
        put_key(o, "id");
        const char *nul = memchr(id->str, 0, sizeof id->str);
        size_t n = nul != NULL ? (size_t)(nul - id->str) : sizeof id->str;
        if (id->kind == THUE_ID_INT && id->num >= 0 && id->num <= THUE__JS_INT_MAX)
            thue__buf_i64(&o->out, id->num);
        else if (id->kind == THUE_ID_STR && n < sizeof id->str &&
                 thue__str_ok(THUE__S_ID, id->str, n))
            thue__buf_json_str(&o->out, id->str, n);
        else
            ok = 0;
    } else {
        json_t *j = at(o, "id");
        if (j == NULL) {
            id->kind = THUE_ID_NONE;
        } else if (json_is_integer(j) && json_integer_value(j) >= 0 &&
                   json_integer_value(j) <= THUE__JS_INT_MAX) {
            id->kind = THUE_ID_INT;
            id->num = json_integer_value(j);
        } else if (json_is_string(j) &&
                   thue__str_ok(THUE__S_ID, json_string_value(j), json_string_length(j))) {
            id->kind = THUE_ID_STR;
            memcpy(id->str, json_string_value(j), json_string_length(j) + 1);
        } else {
            ok = 0;
        }
    }
    if (!ok)
        bad(o, 0, 0, rule);
    path_pop(o, pl);
}

void thue__io_init(thue__io *o, int enc, thue_decode_error *err)
{
    memset(o, 0, sizeof *o);
    o->enc = enc;
    o->err = err;
    o->first = 1;
}

void thue__io_free_chunks(thue__chunk *c)
{
    while (c != NULL) {
        thue__chunk *next = c->next;
        free(c);
        c = next;
    }
}

/* A game's payload: an object (open '{') or an array (open '[') the envelope does not
 * describe, carried as its compact JSON text (the game checks it). Encoding writes the
 * text as it is (the server made it with jansson); decoding points *text at the member's
 * compact text, allocated with the message. */
void thue__io_raw_ptr(thue__io *o, const char *key, char open, const char **text)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1, missing = 0;
    if (o->enc) {
        put_key(o, key);
        if (*text == NULL || (*text)[0] != open)
            ok = 0;
        else
            thue__buf_puts(&o->out, *text);
    } else {
        json_t *j = at(o, key);
        *text = NULL;
        if (j == NULL) {
            ok = 0, missing = 1;
        } else if (open == '{' ? !json_is_object(j) : !json_is_array(j)) {
            ok = 0;
        } else {
            char *dump = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
            char *mem = dump != NULL ? alloc(o, strlen(dump) + 1, 1) : NULL;
            if (mem != NULL) {
                memcpy(mem, dump, strlen(dump) + 1);
                *text = mem;
            } else if (dump == NULL) {
                thue__io_oom(o);
            }
            free(dump);
        }
    }
    if (!ok)
        bad(o, missing, 0, open == '{' ? "an object" : "an array");
    path_pop(o, pl);
}

void thue__io_raw(thue__io *o, const char *key, int mode, int *has, char *buf, size_t cap)
{
    if (o->code != 0)
        return;
    size_t pl = o->plen;
    int ok = 1, missing = 0;
    if (o->enc) {
        if (mode == THUE__OPT && !*has)
            return;
        put_key(o, key);
        if (mode == THUE__NULL && !*has)
            thue__buf_puts(&o->out, "null");
        else if (buf[0] != '{' || memchr(buf, 0, cap) == NULL)
            ok = 0;
        else
            thue__buf_puts(&o->out, buf);
    } else {
        json_t *j = at(o, key);
        buf[0] = '\0';
        if (j == NULL) {
            if (mode == THUE__OPT)
                *has = 0;
            else
                ok = 0, missing = 1;
        } else if (mode == THUE__NULL && json_is_null(j)) {
            *has = 0;
        } else if (!json_is_object(j)) {
            ok = 0;
        } else {
            size_t n = json_dumpb(j, buf, cap - 1, JSON_COMPACT | JSON_PRESERVE_ORDER);
            if (n == 0 || n >= cap - 1) {
                buf[0] = '\0';
                ok = 0;
            } else {
                buf[n] = '\0';
                if (has != NULL)
                    *has = 1;
            }
        }
    }
    if (!ok) { /* the rule's text only when it is needed (a state is sent every move) */
        char rule[48];
        snprintf(rule, sizeof rule, "an object of at most %zu bytes", cap - 1);
        bad(o, missing, mode == THUE__NULL, rule);
    }
    path_pop(o, pl);
}
