/*
 * verify.h: the independent checker of Thue proof files (format version 1), behind
 * `thue verify-proof FILE`; `thue solve --proof FILE` writes them.
 *
 * A proof claims V(root) >= D: in one round of the online Thue game, from the clean word
 * root with the builder to move, the painter survives at least D more insertions, where
 * V(w) = min over positions i of (0 if no symbol is safe at i, else max over safe c of
 * 1 + V(w with c inserted at i)). Words are identified up to relabelling and reversal;
 * the canonical form relabels the word and its reversal in order of first appearance and
 * keeps the smaller. The file:
 *     thue-proof 1 / variant square|overlap / k K (2..16) / root DIGITS (hex, "-" for
 *     the empty word) / depth D / levels M (= max(D-1, 0)) / end      (text lines)
 *     M blocks "level P COUNT\n" + COUNT records, P = 0..M-1: words of length
 *         L = |root| + P with remaining depth D - P; a record is the 2L+1 nibbles
 *         w[0..L-1] r[0..L] (high nibble first, a zero padding nibble: L+1 bytes), w
 *         canonical, the records sorted by w without duplicates; r[i] is the painter's
 *         symbol when the builder picks position i
 *     end-proof                                                        (and nothing after)
 * Level 0 is the one record of canonical(root); every record's children (w with r[i]
 * inserted at i) are clean and their canonical forms are records of the next level,
 * except after the last level, where each child needs a safe symbol at every position;
 * every record is reached from the root's. D = 1 has no levels (the root needs a safe
 * symbol at every position); D = 0 claims nothing.
 *
 * This module checks every claim in such a file against the engine's repetition checks;
 * it trusts nothing it reads and shares no code with the solver that writes the files
 * (server/games/thue/bots/), so a bug there cannot hide itself here.
 *
 * Memory: at most two adjacent levels are held at once, each record at its packed size
 * (L+1 bytes), plus one bit per record of the next level. Every count read from the file
 * is checked against the bytes the file still has before anything is allocated, so a
 * malformed file is an error, never a huge allocation. Words are at most THUE_WORD_MAX
 * symbols (root length + M + 1 <= THUE_WORD_MAX).
 *
 * Work: only a regular file is read (a FIFO or a device could block or never end), and
 * the checks' cost is bounded by the file's size. A record of L+1 bytes costs L+1 game
 * checks of a word of about L symbols, and at the last level each of them is a legal-move
 * map of its child, whose cost grows as L^2: so a small file with long words can cost far
 * more than its size (a valid 18 KB proof from a 9,000-symbol root took 23 s of CPU, the
 * cost growing as the cube of the root's length). Every check is therefore counted, in
 * work units (about one step of the engine's inner loops each), before it runs: the
 * root's repetition check, the depth 1 map, and each level's game checks as a whole (its
 * records times their cost, known from the word length, k and the next level's count).
 * When the total would pass THUE_PROOF_WORK_PER_BYTE units per byte checked, the proof is
 * refused with THUE_PROOF_TOO_MUCH_WORK before that check starts. The count depends on
 * the file alone (never on time or threads). A unit took 0.7 to 1.8 ns here, so a file at
 * the limit is checked in at most about 30 us per byte (18 KB: half a second).
 */
#ifndef THUE_GAMES_THUE_PROOF_VERIFY_H
#define THUE_GAMES_THUE_PROOF_VERIFY_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "games/thue/engine/repetition.h"

/* Largest k a proof file can use (one hex digit per symbol). */
#define THUE_PROOF_K_MAX 16

/* The checks may cost at most this many work units per byte of the file checked (see
 * "Work" above). Proofs that `thue solve --proof` writes from short roots cost far less
 * (measured, units per byte: square k=4 7, k=5 from 0120 to depth 8 170, k=5 to depth 17
 * 270; overlap k=3 146, k=4 from 01 to depth 9 139, k=4 to depth 18 268): a margin of 60.
 * Every claim of depth 0 or 1 fits, and so does every proof whose last level's words
 * have at most 390 symbols (each part of the file then pays for its own checks); depth 2
 * proofs from roots of up to about 750 symbols fit (700: 14,794 per byte), longer
 * words are refused. */
#define THUE_PROOF_WORK_PER_BYTE 16384

/* Why a proof was rejected: the first failing check. */
typedef enum {
    THUE_PROOF_OK = 0,
    THUE_PROOF_IO,            /* the file could not be read, or is not a regular file */
    THUE_PROOF_NOMEM,         /* out of memory */
    THUE_PROOF_HEADER,        /* the text header is not exactly as the format says */
    THUE_PROOF_ROOT,          /* the root has a symbol >= k or holds a repetition */
    THUE_PROOF_TOO_BIG,       /* counts or lengths that the file cannot hold */
    THUE_PROOF_LEVEL_LINE,    /* a "level P COUNT" line is missing or wrong */
    THUE_PROOF_TRUNCATED,     /* the file ends inside a block or before end-proof */
    THUE_PROOF_TRAILER,       /* no "end-proof\n" after the last block, or bytes after it */
    THUE_PROOF_SYMBOL,        /* a word or painter symbol >= k, or a nonzero padding nibble */
    THUE_PROOF_NOT_CANONICAL, /* a record's word is not in canonical form */
    THUE_PROOF_UNSORTED,      /* a level's words are not in increasing order */
    THUE_PROOF_DUPLICATE,     /* two records of a level have the same word */
    THUE_PROOF_ROOT_RECORD,   /* level 0 is not the one record of canonical(root) */
    THUE_PROOF_UNREACHABLE,   /* a record no reached record leads to */
    THUE_PROOF_UNSAFE,        /* the painter's symbol makes a repetition */
    THUE_PROOF_MISSING_CHILD, /* a child's canonical form is not in the next level */
    THUE_PROOF_DEAD_END,      /* a builder position with no safe symbol at all */
    THUE_PROOF_TOO_MUCH_WORK  /* the checks would cost more than THUE_PROOF_WORK_PER_BYTE
                                 work units per byte of the file */
} thue_proof_status;

/* The largest status. */
#define THUE_PROOF_STATUS_MAX THUE_PROOF_TOO_MUCH_WORK

/* The place and reason of a failure. Fields that do not apply are -1. */
typedef struct thue_proof_failure {
    thue_proof_status status;
    int level;         /* level block P */
    int64_t record;    /* record index within the level */
    int position;      /* builder position in the record's word */
    int64_t work;      /* work units counted before the failure (a check is counted in
                          full before it starts; never more than the limit) */
    char message[640]; /* one line naming the place and what failed, without newline */
} thue_proof_failure;

/* What a valid proof says. */
typedef struct thue_proof_summary {
    thue_variant variant;
    int k;
    char *root;      /* the header's root text ("-" for the empty word), new */
    int root_len;    /* symbols in the root */
    int64_t depth;   /* D: the painter survives at least D more insertions */
    int levels;      /* M = max(D-1, 0) */
    int64_t *counts; /* counts[P]: records in level P (levels entries; new, free with
                        thue_proof_summary_free) */
    int64_t records; /* the sum of counts */
    int64_t work;    /* work units the checks cost (at most THUE_PROOF_WORK_PER_BYTE times
                        the bytes checked) */
} thue_proof_summary;

/* Called after each level has been checked: the level, its records and the seconds since
 * the check began. */
typedef void (*thue_proof_progress_fn)(void *ctx, int level, int64_t records, double seconds);

typedef struct thue_proof_options {
    int threads;                     /* >= 1: threads to check one level's records */
    thue_proof_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    int chunk; /* records a thread claims at a time; 0: 256 (tests use 1 to interleave
                  the threads as much as they can) */
} thue_proof_options;

/*
 * Checks the proof in f, read from its current position to its end. f must be a regular
 * file: anything else (a FIFO, a pipe, a socket, a device, a directory, a stream without
 * a descriptor) is refused with THUE_PROOF_IO before a byte is read, so the call never
 * blocks on it. The file's size (from fstat, minus the position) bounds every count and
 * the work (THUE_PROOF_WORK_PER_BYTE). Returns 0 when the proof holds (*sum filled; its
 * counts are new), else the failure's status (> 0) with *fail filled (and *sum holding no
 * allocation). The result does not depend on opt->threads. fail and sum must not be NULL;
 * opt may be NULL (one thread, no progress).
 */
int thue_proof_verify(FILE *f, const thue_proof_options *opt, thue_proof_summary *sum,
                      thue_proof_failure *fail);

/* What a file of this st_mode is, for messages: "a FIFO", "a directory", "a socket",
 * "a character device", "a block device", "a symbolic link", "a regular file" or "an
 * unknown kind of file". Static text. */
const char *thue_proof_file_kind(mode_t mode);

/* Frees what thue_proof_verify allocated in sum. NULL is a no-op. */
void thue_proof_summary_free(thue_proof_summary *sum);

/*
 * The canonical form of sym[0..n-1] (every symbol < THUE_PROOF_K_MAX) into out (room for
 * n): each of the word and its reversal relabelled in order of first appearance, then
 * the lexicographically smaller one. out may not alias sym.
 */
void thue_proof_canonical(const uint8_t *sym, int n, uint8_t *out);

#endif
