/*
 * roommodel.h: the network commands' model of their rooms under thue.v2 (PROTOCOL.md,
 * "thue.v2"; clients/web/roommodel.js is the same model for the browser).
 *
 * Under thue.v2 the server sends a room's whole state (room_state with the room's `ref`
 * and no `you`) on join, spectate, resume and sync, and after every change but a move;
 * after a move it sends a small `played` event instead. The model keeps the newest
 * state of each room and turns every `played` into the next state: Thue's place and
 * paint by the rules of the match (games/thue/engine/match.h), every other game's move
 * through the game library (games/game.h: position_parse, apply, state_json), as the
 * server does. What it hands out is the room_state thue.v1 would have sent: the same
 * thue_msg, `you` included (the seat whose player is no bot and has this client's name,
 * as welcome said it; names are unique), so the commands need not know which
 * subprotocol they speak.
 *
 * Ownership: the model owns its rooms' states and their words (its own buffers); a
 * state it hands out is a new thue_msg the caller releases with thue_msg_clear. A
 * borrowed state (cli_model_find) stays valid until the next call that changes the
 * model. Single-threaded; no I/O.
 */
#ifndef THUE_CLI_ROOMMODEL_H
#define THUE_CLI_ROOMMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/codec.h"

typedef struct cli_model cli_model;

/* What cli_model_apply made of a message. */
typedef enum {
    CLI_MODEL_NONE = 0, /* nothing to hand on: a played of a room the model does not know
                         * (or already saw), a state older than the one it has */
    CLI_MODEL_STATE,    /* *out: the room's new state in thue.v1's form (with `you`) */
    CLI_MODEL_SYNC      /* the model cannot follow the room (a version gap, a move it
                         * cannot apply): it forgot the room; ask the server for it
                         * with sync (room filled) */
} cli_model_result;

/* A new, empty model for a client named name (NULL: not known yet). NULL when out of
 * memory. */
cli_model *cli_model_new(const char *name);

/* Frees the model and everything it owns. NULL is a no-op. */
void cli_model_free(cli_model *m);

/* This client's player name (welcome's player.name): the states handed out after this
 * find the client's seat by it. */
void cli_model_set_name(cli_model *m, const char *name);

/*
 * Takes one server message: a room_state of thue.v2 (has_ref) replaces the room's state;
 * a played is applied to the room's state when its version is the next one. Any other
 * message is CLI_MODEL_NONE. On CLI_MODEL_STATE *out is filled (release it with
 * thue_msg_clear); on CLI_MODEL_SYNC room (THUE_PROTO_KEY_MAX + 1 bytes) names the room
 * to ask for. A whole state that cannot be kept (out of memory) is CLI_MODEL_NONE, and
 * the room is forgotten until the next one.
 */
cli_model_result cli_model_apply(cli_model *m, const thue_msg *in, thue_msg *out, char *room);

/* Why the model last lost a room (CLI_MODEL_SYNC) or could not keep a state, in a
 * sentence; "" when it never did. Borrowed. */
const char *cli_model_why(const cli_model *m);

/* The model's newest state of room (thue.v2's form, with `ref`; borrowed), or NULL when
 * it has none. */
const thue_msg *cli_model_find(const cli_model *m, const char *room);

/* Forgets a room (the client left it). Unknown rooms are ignored. */
void cli_model_forget(cli_model *m, const char *room);

/* The seat of the player named name in room state rs (no bot), or -1. */
int cli_model_seat_of(const thue_msg *rs, const char *name);

/*
 * Compares two states of one room member by member as their canonical texts, leaving
 * out what differs by design: thue.v2's ref and thue.v1's you, and each seat's
 * away_left_ms (a count-down). The clock that runs (both sides' clock_running) may
 * differ: model's minus server's must lie in [run_lo, run_hi] ms (a state taken later
 * shows less time left). 0 when they agree; 1 when they differ, with a sentence naming
 * the first difference in why (both texts around it); -1 when out of memory.
 */
int cli_model_compare(const thue_msg *model, const thue_msg *server, int64_t run_lo, int64_t run_hi,
                      char *why, size_t whysize);

#endif
