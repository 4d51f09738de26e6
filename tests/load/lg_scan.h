/*
 * lg_scan.h: the load generator's cheap reader of the server's hot messages.
 *
 * The server writes the canonical form of PROTOCOL.md: compact JSON, `type` first, then
 * `id`, then the members in the tables' order. Names, room ids and bot specs cannot hold
 * a quote, so a key pattern `"key":` can only ever match a key. That lets the load
 * generator read `ok` and `room_state` (tens of thousands a second) without building a
 * JSON tree; rarer messages go through the real codec (thue_msg_decode).
 */
#ifndef THUE_LOADGEN_SCAN_H
#define THUE_LOADGEN_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* The `type` of a message in canonical form: a pointer to its first character and its
 * length, or NULL when the text does not start with {"type":" */
const char *lg_scan_type(const char *text, size_t len, size_t *tlen);

/* Does the type equal the NUL-terminated name? */
int lg_type_is(const char *t, size_t tlen, const char *name);

/* The integer `id` right after the type (`{"type":"..","id":N`): 1 and *id, or 0. */
int lg_scan_id(const char *text, size_t len, int64_t *id);

/* The value of the first `"key":` in text: a pointer to its first character, or NULL. */
const char *lg_scan_key(const char *text, size_t len, const char *key);

/* An integer value at p (as returned by lg_scan_key); `null` gives -1. 0 and *out, or -1
 * when p holds neither. */
int lg_scan_int(const char *p, const char *end, int64_t *out);

/* A string value at p copied into out (at most cap-1 characters; no escapes are expected):
 * its length, or -1. */
int lg_scan_str(const char *p, const char *end, char *out, size_t cap);

/* What the load generator needs of a room_state (thue.v1's, with `you`, or thue.v2's,
 * with the room's `ref` in its place). */
typedef struct lg_state {
    int64_t version;
    int status; /* 0 waiting, 1 playing, 2 finished, -1 unknown */
    int you;    /* -1: null (and under thue.v2, which has no `you`) */
    int ref;    /* thue.v2: the room's ref; -1 under thue.v1 */
    int has_match;
    int round;        /* 0 or 1 */
    int step;         /* 0 place, 1 paint, 2 over */
    int to_move;      /* -1: null */
    int placed;       /* -1: null */
    int thinking;     /* -1: null */
    const char *word; /* the '[' of match.word, or NULL */
} lg_state;

/* Fills *st from a room_state text: 0, or -1 when a member is missing or malformed. */
int lg_scan_state(const char *text, size_t len, lg_state *st);

/* A thue.v2 `played` event (PROTOCOL.md, "thue.v2"), as the server writes it:
 * {"type":"played","ref":R,"version":V,"seat":S,"move":{"place":I}|{"paint":C},
 *  "think_ms":T,"to_move":S|null,"points":[..], then optional "clocks", "thinking",
 *  "round_end" and "result", in that order. */
typedef struct lg_played {
    int ref;
    int64_t version; /* the mover: the model's to_move before it */
    int paint;     /* 1: {"paint":C}, 0: {"place":I} */
    int value;     /* I or C */
    int to_move;   /* -1: null (the match is over) */
    int thinking;  /* -1: absent */
    int round_end; /* 0: absent; 1: "repetition"; 2: "limit"; 3: another end */
    int over;      /* 1: `result` is there (the match is over) */
} lg_played;

/* Fills *ev from a played text: 0, or -1 when it is not in the form above (another
 * game's move, say). Reads only the members' keys it needs, in order, without a tree. */
int lg_scan_played(const char *text, size_t len, lg_played *ev);

/* Parses the array at st->word into sym (at most cap symbols): the length, or -1. Also
 * the length only (sym NULL). */
int lg_scan_word(const char *p, const char *end, uint8_t *sym, int cap);

#endif
