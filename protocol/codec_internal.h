/*
 * codec_internal.h: what codec.c shares with codec_text.c and codec_unicode.c. Not part of
 * the API (codec.h is); nothing outside protocol/ includes it.
 *
 * codec_text.c holds the text-level pieces that know nothing about messages: the output
 * buffer with JSON string escaping and the canonical number forms, the string rules of
 * PROTOCOL.md (what a room id, a player name, a chat text may hold), and the scan that runs
 * before jansson parses a text (depth, and numbers jansson would refuse).
 */
#ifndef THUE_PROTOCOL_CODEC_INTERNAL_H
#define THUE_PROTOCOL_CODEC_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/codec.h"

/* ---- output buffer -------------------------------------------------------------------- */

/* A growing byte buffer. After an allocation failure `oom` is set and later writes are
 * dropped, so a writer checks once at the end. p is NUL-terminated whenever cap > 0. */
typedef struct thue__buf {
    char *p;
    size_t len, cap;
    int oom;
} thue__buf;

void thue__buf_put(thue__buf *b, const char *s, size_t n);
void thue__buf_putc(thue__buf *b, char c);
void thue__buf_puts(thue__buf *b, const char *s);
/* A JSON string: quotes, and the escapes of JSON.stringify (\" \\ \b \f \n \r \t, other
 * characters below U+0020 as \u00xx); everything else, non-ASCII included, is copied. */
void thue__buf_json_str(thue__buf *b, const char *s, size_t n);
void thue__buf_i64(thue__buf *b, int64_t v);
/* Writes the decimal digits of u so that they end just before end (at most 20 of them):
 * returns where they start. */
char *thue__u64_digits(uint64_t u, char *end);

/* The shortest text that reads back as d, laid out as JavaScript's Number::toString does:
 * "1612.4", "0.1", "3" for 3.0, "1e+21", "1.5e-7"; -0 is "0". d must be finite. out needs
 * THUE__DOUBLE_MAX bytes; returns the length. */
#define THUE__DOUBLE_MAX 32
size_t thue__fmt_double(double d, char *out);
/* The same by the general search (up to 17 rounds of snprintf and strtod), which
 * thue__fmt_double skips for the common numbers with at most three decimals (think times
 * in ms, ratings); the tests compare the two. */
size_t thue__fmt_double_search(double d, char *out);
/* JavaScript's Number::toString(10) layout of the positive value 0.DIGITS x 10^n, the k
 * digits (no trailing zero but the first) at digits: "1612.4", "0.001", "1.5e-7". Writes
 * it and a NUL at out (THUE__DOUBLE_MAX bytes); returns the length. */
size_t thue__js_layout(const char *digits, int k, int n, char *out);

/* ---- string rules --------------------------------------------------------------------- */

typedef enum {
    THUE__S_KEY,     /* room id, tournament id, invite, match id: 1..32 of A-Z a-z 0-9 _ - */
    THUE__S_TOKEN,   /* account token: 1..128 of A-Z a-z 0-9 _ - */
    THUE__S_RESUME,  /* resume token: 32 of 0-9 a-f */
    THUE__S_SPEC,    /* bot SPEC: 1..100 printable ASCII */
    THUE__S_ID,      /* string request id: 1..64 printable ASCII */
    THUE__S_NAME,    /* player name: 1..24 letters, digits, space _ - . ; no edge space */
    THUE__S_ANYNAME, /* a bot name, or any name without a kind: 1..24 cp, no control chars */
    THUE__S_TITLE,   /* room or tournament name: 1..40 code points, no control chars */
    THUE__S_CHAT,    /* chat text: 1..200 code points, no C0, DEL, C1, U+2028/9 or bidi controls */
    THUE__S_TEXT,    /* a sentence for people: 1..200 code points, no control chars */
    THUE__S_SERVER,  /* welcome's server: 1..64 printable ASCII */
    THUE__S_FIELD,   /* error's field: 1..63 bytes, no control chars, no leading '/' */
    THUE__S_PASSWORD, /* a new password: 8..256 code points, no control chars */
    THUE__S_SECRET,   /* a password to check: 1..256 code points, no control chars */
    THUE__S_NODE_NAME, /* an analysis node's name: 1..65536 code points, no '"', no control
                          chars (C0) */
    THUE__S_COUNT
} thue__str_rule;

/* 1 when the n bytes at s (valid UTF-8 or not: invalid is refused) satisfy the rule. */
int thue__str_ok(thue__str_rule r, const char *s, size_t n);

/* thue_cmd_decode without its fast path for canonical moves (the reference it is tested
 * against). */
int thue__cmd_decode_full(const char *text, size_t len, thue_cmd *out, thue_decode_error *err);
/* The rule as a phrase that follows "must be": "a string of 1 to 32 characters from ...". */
const char *thue__str_rule_text(thue__str_rule r);
/* The most bytes a string of the rule can take (its buffer needs one more). */
size_t thue__str_rule_bytes(thue__str_rule r);

/* 1 when the code point may appear in a player name besides space _ - . : Unicode letters
 * (General_Category L) and decimal digits (Nd). codec_unicode.c. */
int thue__is_name_char(uint32_t cp);
/* The same by binary search in the table alone (what thue__is_name_char does past ASCII). */
int thue__name_char_search(uint32_t cp);

/* ---- the scan before parsing ---------------------------------------------------------- */

#define THUE__SCAN_DEEP (-1)  /* nested deeper than the limit */
#define THUE__SCAN_NOMEM (-2) /* out of memory while rewriting */

/*
 * One linear pass over a JSON text that skips strings. It counts nesting, and finds the
 * numbers jansson would refuse although they are valid JSON: integers beyond int64 become
 * reals (the same digits with "e0" appended, so jansson reads them as doubles) and numbers
 * beyond the range of a double become the string "\u0000~", which every member refuses
 * (see THUE__OVERFLOW_MARK). Returns 0 with out->p NULL when the text can be parsed as it
 * is, 0 with the rewritten text in *out (free out->p), or a THUE__SCAN_ code. Invalid JSON
 * is left for the parser to refuse.
 */
int thue__json_prescan(const char *s, size_t n, int max_depth, thue__buf *out);

/* The string (with JSON_ALLOW_NUL) that stands for a number too big for a double. */
#define THUE__OVERFLOW_MARK "\0~"
#define THUE__OVERFLOW_MARK_LEN 2

/* ---- the two-way member helpers (codec_io.c) ------------------------------------------ */

#define THUE__NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define THUE__JS_INT_MAX INT64_C(9007199254740991) /* 2^53 - 1: the largest id */
#define THUE__WORD_MAX (THUE_LIMIT_MAX + 1)        /* a word's most symbols */

/* How a member may be absent: required; optional with a default (always written);
 * optional with no default (a `has` flag; left out when absent); required but nullable
 * (a `has` flag; written as null when absent). */
enum { THUE__REQ, THUE__DEF, THUE__OPT, THUE__NULL };

/* One allocation of a decoded message; msg->owned is the newest. */
typedef struct thue__chunk {
    struct thue__chunk *next;
    max_align_t data[];
} thue__chunk;

typedef struct thue__frame {
    json_t *cur;
    size_t idx, plen;
    int first;
    char close;
} thue__frame;

#define THUE__STACK_MAX 12 /* the deepest message (tournament) nests 6 */

typedef struct thue__io {
    int enc;       /* 1: struct -> text; 0: jansson tree -> struct */
    thue__buf out; /* encoding: the text */
    json_t *cur;   /* decoding: the object or array being read */
    size_t idx;    /* the next element of an array (both directions, for paths) */
    int first;     /* encoding: no member written yet at this level */
    thue__frame stack[THUE__STACK_MAX];
    int depth;
    char path[64]; /* the member being handled, as a JSON Pointer without the '/' */
    size_t plen;
    int code; /* 0, or the code of the first failure */
    thue_decode_error *err;
    thue__chunk *owned; /* decoding a thue_msg: its allocations */
} thue__io;

#define IO_STR(o, key, arr, rule)                                                                  \
    thue__io_str((o), (key), THUE__REQ, NULL, (arr), sizeof(arr), (rule))
#define IO_STR_OPT(o, key, has, arr, rule)                                                         \
    thue__io_str((o), (key), THUE__OPT, (has), (arr), sizeof(arr), (rule))
#define IO_STR_NULL(o, key, has, arr, rule)                                                        \
    thue__io_str((o), (key), THUE__NULL, (has), (arr), sizeof(arr), (rule))

/* Enum-typed struct members go through an int. */
#define IO_ENUMM(o, key, mode, has, lv, names, def)                                                \
    do {                                                                                           \
        int e_ = (int)(lv);                                                                        \
        thue__io_enum((o), (key), (mode), (has), &e_, (names), THUE__NELEM(names), (def));         \
        if (!(o)->enc)                                                                             \
            (lv) = e_;                                                                             \
    } while (0)
#define IO_ENUM(o, key, lv, names) IO_ENUMM(o, key, THUE__REQ, NULL, lv, names, 0)
#define IO_ENUM_DEF(o, key, lv, names, def) IO_ENUMM(o, key, THUE__DEF, NULL, lv, names, def)
#define IO_ENUM_OPT(o, key, has, lv, names) IO_ENUMM(o, key, THUE__OPT, has, lv, names, 0)

/* names[v] for 0 <= v < n, else NULL. */
const char *thue__enum_name(const char *const *names, int n, int v);

void thue__io_init(thue__io *o, int enc, thue_decode_error *err);
/* Records the first failure: code, field and a printf-style sentence. */
void thue__io_fail(thue__io *o, int code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void thue__io_oom(thue__io *o);
/* The member `key` of the current object breaks `rule` (a check across members). */
void thue__io_bad_member(thue__io *o, const char *key, const char *rule);
/* Frees a decoded message's allocations. */
void thue__io_free_chunks(thue__chunk *c);

/*
 * Members. `key` names a member of the current object, or is NULL for the next element of
 * the current array. `mode` is THUE__REQ/DEF/OPT/NULL; `has` (needed for OPT and NULL)
 * says whether the member is given (OPT) or not null (NULL). Ranges are inclusive.
 */
void thue__io_id(thue__io *o, thue_msg_id *id); /* the request `id` */
void thue__io_int(thue__io *o, const char *key, int *v, int min, int max);
void thue__io_int_def(thue__io *o, const char *key, int *v, int min, int max, int def);
void thue__io_int_opt(thue__io *o, const char *key, int *has, int *v, int min, int max);
/* Nullable, -1 standing for null (min >= 0). */
void thue__io_int_nullv(thue__io *o, const char *key, int *v, int min, int max);
/* Nullable, *has 0 standing for null (any range). */
void thue__io_int_null(thue__io *o, const char *key, int *has, int *v, int min, int max);
void thue__io_i64(thue__io *o, const char *key, int64_t *v, int64_t min, int64_t max);
/* Nullable, *has 0 standing for null. */
void thue__io_i64_null(thue__io *o, const char *key, int *has, int64_t *v, int64_t min,
                       int64_t max);
void thue__io_bool(thue__io *o, const char *key, int *v);
void thue__io_bool_def(thue__io *o, const char *key, int *v, int def);
/* A finite number >= min (-HUGE_VAL: any); REQ or NULL. */
void thue__io_dblm(thue__io *o, const char *key, int mode, int *has, double *v, double min);
void thue__io_dbl(thue__io *o, const char *key, double *v, double min);
/* A string held in buf[cap]; REQ, OPT or NULL. */
void thue__io_str(thue__io *o, const char *key, int mode, int *has, char *buf, size_t cap,
                  thue__str_rule rule);
/* A string of any length held behind a pointer (REQ): encoding writes *s (NULL is a
 * failure); decoding allocates the copy with the message. */
void thue__io_str_ptr(thue__io *o, const char *key, const char **s, thue__str_rule rule);
/* An enum written as names[*v] (NULL entries are no value); REQ, DEF, OPT, or NULL with
 * -1 standing for null. */
void thue__io_enum(thue__io *o, const char *key, int mode, int *has, int *v,
                   const char *const *names, int n, int def);
/* An enum held as its name in buf[cap]. */
void thue__io_enum_str(thue__io *o, const char *key, char *buf, size_t cap,
                       const char *const *names, int n);
/* An object or an array of exactly n entries (REQ, OPT, NULL): 1 when there
 * are members to handle, then call thue__io_end after them; 0 when absent, null or failed. */
int thue__io_objm(thue__io *o, const char *key, int mode, int *has);
int thue__io_obj(thue__io *o, const char *key);
int thue__io_arrm(thue__io *o, const char *key, int mode, int *has, int n);
int thue__io_arr(thue__io *o, const char *key, int n);
/* An array of min..max entries of esize bytes behind a pointer (REQ, or NULL where a NULL
 * pointer is null: then min must be at least 1, since an empty list has a NULL pointer). Encoding
 * reads `list` and *count; decoding allocates the zeroed entries (NULL for none) and sets *count;
 * *mem is the entries either way. Returns the count (then handle each entry and call thue__io_end),
 * or -1 when null or failed. */
int thue__io_list(thue__io *o, const char *key, int mode, const void *list, int *count,
                  size_t esize, int min, int max, void **mem);
/* An `error` message's `code`: a wire name of PROTOCOL.md section 10 (REQ). */
void thue__io_err_code(thue__io *o, int *code);
/* A word: 1..10001 symbols 0..63 (REQ, or NULL with a NULL pointer). */
void thue__io_word(thue__io *o, const char *key, int mode, const uint8_t **word, int *len);
void thue__io_end(thue__io *o);
/* Decoding: whether the current object has the member `key` (0 when encoding). */
int thue__io_given(const thue__io *o, const char *key);
/* A game's payload object as compact JSON text in buf (cap bytes with the NUL). */
void thue__io_raw(thue__io *o, const char *key, int mode, int *has, char *buf, size_t cap);
/* A required JSON object (open '{') or array (open '[') of any size held as compact text
 * behind a pointer (encoding: the caller's, written as it is; decoding: allocated with
 * the message). */
void thue__io_raw_ptr(thue__io *o, const char *key, char open, const char **text);

#endif
