/*
 * analysis_delta.h: thue.v2's form of an analysis's tree (PROTOCOL.md section 16, "Under
 * thue.v2"): each update says what changed in the shown tree since the update before it
 * (the nodes that left, the nodes newly shown, the shown nodes whose figures changed), cut
 * into analysis_delta messages of at most THUE_PROTO_DELTA_BYTES_MAX bytes each.
 *
 * A shown node's id is its index in the uct tree (thue_guct_view's node): fixed for the
 * tree's life, 0 at the root, siblings in legal-move order. The shown tree is the one
 * analysis_tree would show (thue_guct_walk_depth's most visited nodes, at most
 * THUE_PROTO_TREE_LEVELS_MAX levels), bounded by the size of its full form: the add
 * entries of all its nodes hold at most max_bytes (fewer nodes past that, the most visited
 * still), as analysis_tree's text is. A value is sent as analysis_tree writes it (10
 * significant digits), so that both protocols show the same numbers.
 *
 * No loop state: analysis.c builds the updates on the pool's workers. A delta_state is
 * used by one thread at a time (the caller orders the builds and the free).
 */
#ifndef THUE_SERVER_LOBBY_ANALYSIS_DELTA_H
#define THUE_SERVER_LOBBY_ANALYSIS_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "search/guct.h"
#include "search/limits.h"

/* The shown tree as the client has it once it applied the last update built: each node's
 * id and figures. */
typedef struct delta_state delta_state;

/* An empty state (the client has no tree yet): new, or NULL out of memory. */
delta_state *delta_state_new(void);
void delta_state_free(delta_state *d);
/* Nodes in the state. */
uint32_t delta_state_shown(const delta_state *d);

/* What an update is built from: the tree and the header members of its parts. */
typedef struct delta_source {
    const thue_guct *tree;
    const thue_gamedef *g;
    const thue_gopt *opt;
    uint32_t max_nodes; /* analyze's max_nodes */
    size_t max_bytes;   /* the most the full form's add entries may hold */
    const char *key;    /* the analysis's key */
    int64_t seq;        /* the update's */
    int status;         /* 0 running, 1 stopped, 2 done */
    const char *best;   /* the best move's JSON, or NULL (null: the position is over) */
} delta_source;

/* An update: its parts' texts (malloc'd, each at most THUE_PROTO_DELTA_BYTES_MAX bytes;
 * the last one says "last":true), their bytes in all, and the nodes it shows. */
typedef struct delta_update {
    char **parts;
    int nparts;
    size_t bytes;
    uint32_t shown;
} delta_update;

/* Frees the parts not yet taken (each part taken is set to NULL by its taker); the update
 * is empty afterwards. */
void delta_update_free(delta_update *u);

/*
 * Builds the next update into *out: against d (full false), or the whole tree (full true:
 * a client that drops its tree first). The walk polls ctl (may be NULL) once per node.
 * 0: *out filled, d is now the tree it shows. Otherwise d and *out are unchanged and
 * empty: 1 when ctl said stop, THUE_ENOMEM, or THUE_ETOOBIG (not even the root fits
 * max_bytes, or one node's entry alone does not fit a part).
 */
int delta_build(delta_state *d, const delta_source *src, bool full, thue__ctl *ctl,
                delta_update *out);

/* v rounded to 10 significant digits (as "%.10g" reads back), written in the canonical
 * number form (codec.h's thue_proto_number of that double, computed directly): out needs 32
 * bytes; returns the length. v is in 0..1. */
size_t delta_value_text(double v, char *out);

#endif
