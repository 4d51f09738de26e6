/*
 * puzzles.h: the server's puzzle service (issue 33): at start, every game below its target
 * of stored puzzles gets new ones, generated on the worker pool (search/puzzle.h) and
 * written to the store, which keeps each once and never changes it; and a hook for
 * offering a position from a real match.
 *
 * Generation runs as pool tasks of the owner "puzzles" (fair shares: a player's bot is
 * never held back by more than a slice), one game at a time, each task bounded in time
 * (THUE_PUZZLES_TASK_MS) and each game in tasks (THUE_PUZZLES_TASKS_MAX); progress goes
 * to the log. Nothing here runs a search on the loop thread.
 *
 * Loop thread only.
 */
#ifndef THUE_LOBBY_PUZZLES_H
#define THUE_LOBBY_PUZZLES_H

#include <uv.h>

#include "games/game.h"
#include "search/pool.h"
#include "store/store.h"

#define THUE_PUZZLES_TASK_MS 2000
#define THUE_PUZZLES_TASKS_MAX 20

typedef struct thue_puzzles thue_puzzles;

/* A service over pool and store (borrowed: the pool must outlive it; the store until
 * thue_puzzles_stop). target: puzzles wanted per game (0: none generated); after_ms:
 * when to start looking (a timer on loop). NULL out of memory. */
thue_puzzles *thue_puzzles_start(uv_loop_t *loop, thue_pool *pool, thue_store *store, int target,
                                 int after_ms);

/* Offers the position st of a finished match (match_id) of game g with options opt: it is
 * checked on the pool and stored, with source "match:ID", when it is a puzzle. 0 queued,
 * THUE_EINVAL (no such game's puzzles, a stopped service), THUE_ENOMEM, or the pool's. */
int thue_puzzles_offer(thue_puzzles *pz, const thue_gamedef *g, const thue_gopt *opt,
                       const void *st, const char *match_id);

/* Stops: no new task or write; the store is no longer used (call before it closes). */
void thue_puzzles_stop(thue_puzzles *pz);

/* Frees the service once the pool is closed (no task's done can come then), and its
 * timer's handle closed (it closes it; the loop must run once more). NULL: no-op. */
void thue_puzzles_free(thue_puzzles *pz);

#endif
