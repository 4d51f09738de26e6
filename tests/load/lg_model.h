/*
 * lg_model.h: a load generator connection's model of its Thue room under thue.v2.
 *
 * Under thue.v2 the server sends a room's whole state only when a client arrives, asks
 * (`sync`) or something other than a move changed; after a move it sends one small
 * `played` event (PROTOCOL.md, "thue.v2"; clients/web/roommodel.js is the web client's
 * model). A playing connection keeps what it needs to pick a legal move -- the word, the
 * placed position, the step, the round and whose turn it is -- and turns each `played`
 * into the next of these. It is reset from every whole state, so a model is never more
 * than one `sync` away from the truth. No I/O and no allocation but the word's.
 */
#ifndef THUE_LG_MODEL_H
#define THUE_LG_MODEL_H

#include <stdint.h>

#include "lg_scan.h"

typedef struct lg_model {
    int64_t version; /* the room's version it stands for; -1: nothing known yet */
    int ref;         /* the room's ref (thue.v2); -1 under thue.v1 */
    int status;      /* 0 waiting, 1 playing, 2 finished (lg_state's) */
    int has_match;
    int round;     /* 0 or 1 */
    int step;      /* 0 place, 1 paint, 2 over */
    int to_move;   /* -1: nobody */
    int placed;    /* -1: none */
    int thinking;  /* -1: no bot searches */
    int len, cap;  /* the word's length and its array's room */
    uint8_t *word; /* owned; grows as needed */
} lg_model;

/* An empty model (version -1). */
void lg_model_init(lg_model *m);

/* Frees the word; the model is empty again. m NULL: nothing. */
void lg_model_free(lg_model *m);

/* The model of the whole state st (scanned from a text that ends at end): 0, or -1 when
 * its word is unreadable or memory ran out (the model is then empty). */
int lg_model_reset(lg_model *m, const lg_state *st, const char *end);

/* What lg_model_apply did. */
enum {
    LG_MODEL_APPLIED, /* the model now stands for ev's version */
    LG_MODEL_OTHER,   /* another room's event, or no state yet: ignored */
    LG_MODEL_STALE,   /* ev's version is not newer than the model's: ignored */
    LG_MODEL_GAP,     /* a version is missing in between: the model needs a sync */
    LG_MODEL_BAD      /* ev does not fit the model (a place while a paint is due, a
                       * position past the word...): the model needs a sync */
};

/* Applies a played event to m: one of the codes above; m changes only with APPLIED. */
int lg_model_apply(lg_model *m, const lg_played *ev);

/* NULL when a and b stand for the same position, else the name of the first member in
 * which they differ ("version", "word", ...). The refs are not compared. */
const char *lg_model_diff(const lg_model *a, const lg_model *b);

#endif
