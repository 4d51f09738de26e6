/*
 * cli.h: shared pieces of the `thue` command: option parsing, usage errors, words and
 * JSON output. Usage errors print "thue CMD: what is wrong" and a hint to stderr and
 * exit with status 2 (THUE_EXIT_USAGE); every command's --help prints to stdout and
 * exits 0.
 */
#ifndef THUE_CLI_H
#define THUE_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "games/thue/engine/repetition.h"
#include "games/thue/engine/word.h"
#include "games/thue/bots/bot.h"

#define THUE_EXIT_USAGE 2

typedef struct cli_opt {
    const char *name;   /* long name without dashes: "k" for --k */
    int takes_value;    /* 1: --name VALUE or --name=VALUE; 0: a flag */
    const char **value; /* where the value goes (takes_value) */
    int *flag;          /* set to 1 when present (flags) */
} cli_opt;

/*
 * Parses argv[1..argc-1] of subcommand cmd against opts (terminated by a {NULL} entry),
 * collecting at most maxpos positional arguments into pos. "--help"/"-h" prints usage
 * and exits 0; "--" ends options. Unknown options, missing values and too many or too
 * few (< minpos) positionals are usage errors (exit 2).
 */
void cli_parse(const char *cmd, const char *usage, int argc, char **argv, const cli_opt *opts,
               const char **pos, int minpos, int maxpos, int *npos);

/* Prints "thue CMD: <message>" and the --help hint to stderr and exits 2. */
void cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Integer option in [lo, hi]; NULL text gives def. Usage error otherwise. */
int cli_int(const char *cmd, const char *opt, const char *text, int lo, int hi, int def);
/* 64-bit unsigned option (seeds); NULL text gives def. */
uint64_t cli_u64(const char *cmd, const char *opt, const char *text, uint64_t def);
/* --variant: NULL gives square. */
thue_variant cli_variant(const char *cmd, const char *text);
/* Parses WORD into w (initialised by the caller), usage error with the offending offset. */
void cli_word(const char *cmd, const char *text, thue_word *w);
/* The required --k option: 2..64, usage error when missing or out of range. */
int cli_k(const char *cmd, const char *text);
/* cli_word, then usage errors for a symbol >= k or a word that already holds a repetition
 * of the variant (exit 1 when out of memory). */
void cli_clean_word(const char *cmd, const char *text, int k, thue_variant v, thue_word *w);

/* JSON output: the word as [0,1,2], a repetition object or null, a symbol mask as a
 * list. Output is compact (no spaces), as other tools parse it. */
void json_word(FILE *f, const uint8_t *sym, int n);
void json_repetition(FILE *f, const thue_repetition *rep);
void json_mask(FILE *f, uint64_t mask);
/* Writes s as a JSON string literal (quotes and escapes). */
void cli_json_string(FILE *f, const char *s);

/* Prints the word in the console layout: gap indices on one line, symbols between them
 * on the next, so a builder can read off positions. Highlights [lo, hi) with brackets
 * when lo < hi. */
void print_word_board(FILE *f, const uint8_t *sym, int n, int lo, int hi);

/* Parses a bot SPEC given to --opt; a usage error names what is wrong. */
void cli_bot_spec(const char *cmd, const char *opt, const char *text, thue_bot_spec *out);

/* One bot move, its root split over `threads` threads (1 = this thread only). With keep
 * non-NULL the finished search is handed over in *keep (to export a uct tree; free it
 * with thue_bot_search_free). 0 or a negative THUE_E... code. */
int cli_bot_move(const thue_bot_spec *spec, const thue_position *pos, const thue_bot_limits *limits,
                 uint64_t seed, int threads, thue_bot_result *out, thue_bot_search **keep);

/* Subcommands: each returns the process exit status. */
int cmd_check(int argc, char **argv);
int cmd_moves(int argc, char **argv);
int cmd_local(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bench_search(int argc, char **argv);
int cmd_solve(int argc, char **argv);
/* `thue verify-proof FILE` (cmd_verify_proof.c): checks a proof file of solve --proof. */
int cmd_verify_proof(int argc, char **argv);
int cmd_bestmove(int argc, char **argv);
int cmd_arena(int argc, char **argv);
/* `thue wythoff` (cmd_wythoff.c): the P-table methods of Wythoff's game. */
int cmd_wythoff(int argc, char **argv);
/* Network commands (net.c, netcmd.c): play on a thue-server. */
int cmd_bot(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_play(int argc, char **argv);

#endif
