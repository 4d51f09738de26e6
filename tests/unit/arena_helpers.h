/*
 * arena_helpers.h: what the `thue arena` tests (test_arena_cli_*.c) share: running it
 * (cli_run.h), a small JSON reader, the CSV files it writes, and an independent replay:
 * moves.csv played again on a plain word with a naive repetition scan, and a naive greedy
 * player (RULES.md: the builder takes the position with the fewest safe symbols, the last
 * on ties; the painter the lowest safe symbol). No test looks at times.
 */
#ifndef THUE_TEST_ARENA_HELPERS_H
#define THUE_TEST_ARENA_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "cli_run.h"

/* ---- files and CSV ----------------------------------------------------------------- */

char *read_text(const char *path);

/* A temporary directory for --out, and the path of a file in it. */
typedef struct tmpdir {
    char base[64];
    char out[96]; /* base/out: does not exist until thue arena makes it */
} tmpdir;

void tmpdir_make(tmpdir *t);

char *tmpdir_read(const tmpdir *t, const char *name);

void tmpdir_remove(tmpdir *t);

#define CSV_COLS 16

#define CSV_FIELD 128

typedef struct csv_row {
    char f[CSV_COLS][CSV_FIELD];
    int n;
} csv_row;

typedef struct csv {
    csv_row *rows; /* rows[0] is the header */
    int n;
} csv;

/* Splits text into rows of fields; "quoted, fields" with "" for a quote. */
csv csv_parse(const char *text);

int csv_col(const csv *c, const char *name);

int csv_int(const csv *c, int row, const char *name);

const char *csv_str(const csv *c, int row, const char *name);

/* ---- the naive referee and greedy players ----------------------------------------- */

/* Does w[0..n) hold a square (variant 0) or an overlap (variant 1)? The smallest period,
 * then the leftmost start, into *start and *period (the order RULES.md reports). */
int naive_repetition(const int *w, int n, int overlap, int *start, int *period);

/* Is symbol c at position i safe (no repetition after the insertion)? */
int naive_safe(const int *w, int n, int overlap, int i, int c);

int naive_greedy_builder(const int *w, int n, int k, int overlap);

int naive_greedy_painter(const int *w, int n, int k, int overlap, int i);

void expect_move_row(const csv *moves, int row, const csv *games, int g, int ply, const char *role,
                     int n);

/*
 * Replays every game of games.csv from moves.csv (see the file comment); games with a
 * greedy bot also have that bot's moves checked against the naive greedy player. Returns
 * the number of games replayed; every row of moves.csv must belong to one of them.
 */
int replay_all(const csv *games, const csv *moves, int limit);

#endif
