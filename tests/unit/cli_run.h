/*
 * cli_run.h: running the built `thue` binary from cmocka tests.
 *
 * Each run forks and execs THUE_CLI_PATH, feeding it a given stdin text and capturing
 * stdout, stderr and the exit status through temporary files (no pipes, so a chatty
 * child can never deadlock against the test). No shell is involved: arguments reach the
 * binary exactly as written. Include after <cmocka.h>.
 */
#ifndef THUE_TESTS_CLI_RUN_H
#define THUE_TESTS_CLI_RUN_H

#include <stddef.h>
#include <stdio.h>

#define MAX_ARGS 32

typedef struct run_result {
    int status; /* exit status, or -1 when the child did not exit normally */
    char *out;  /* owned, NUL-terminated */
    char *err;  /* owned, NUL-terminated */
} run_result;

/* Runs thue with args (NULL-terminated, without the program name), stdin holding
 * input[0..input_len-1]. */
run_result run_argv(const char *input, size_t input_len, const char *const *args);
/* The same in a process that SIGALRM kills after alarm_s seconds (0: never), for a run
 * that must not block; *sig (may be NULL) gets the signal that ended it, or 0. */
run_result run_argv_limited(const char *input, size_t input_len, const char *const *args,
                            unsigned alarm_s, int *sig);
/* run_in("stdin text", "arg", ..., NULL) */
run_result run_in(const char *input, const char *first, ...);
/* run("arg", ..., NULL) with empty stdin. */
run_result run(const char *first, ...);
void run_free(run_result *r);
/* The whole of f from its start, NUL-terminated (owned by the caller). */
char *slurp(FILE *f);

/* The helpers take the caller's file and line (through the macros below) so that a
 * failure points at the test, not at the helper. */
#define HERE __FILE__, __LINE__
void contains_at(const char *hay, const char *needle, const char *file, int line);
void status_at(const run_result *r, int status, const char *file, int line);
void text_at(const char *got, const char *want, const char *what, const char *file, int line);
/* Exit 2, nothing on stdout, a message naming `what` on stderr; frees r. */
void usage_error_at(run_result r, const char *what, const char *file, int line);
/* Exit `status`, stdout exactly `out`; frees r. */
void output_at(run_result r, int status, const char *out, const char *file, int line);

#define assert_contains(hay, needle) contains_at((hay), (needle), HERE)
#define assert_status(r, status) status_at((r), (status), HERE)
#define assert_usage_error(r, what) usage_error_at((r), (what), HERE)
#define assert_output(r, status, out) output_at((r), (status), (out), HERE)

#endif
