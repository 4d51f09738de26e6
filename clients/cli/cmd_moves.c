/* cmd_moves.c: `thue moves WORD --k K [--variant V] [--json]`: the legal-move map. */
#include <stdlib.h>

#include "cli.h"
#include "base/errors.h"

static const char usage[] =
    "Usage: thue moves WORD --k K [--variant square|overlap] [--json]\n"
    "\n"
    "The legal-move map of WORD: for every position i = 0..n (inserting before the\n"
    "symbol at i; i = n appends), the symbols 0..K-1 that keep the word free of\n"
    "repetitions. WORD must itself be free of them. WORD is digits (0121) or\n"
    "comma-separated numbers (0,1,12), optionally in brackets ([12] is the word 12).\n"
    "\n"
    "  --k K         number of symbols, 2..64 (required)\n"
    "  --variant V   square (default) or overlap\n"
    "  --json        print {\"word\":[...],\"k\":K,\"variant\":V,\"safe\":[[...],...]}\n"
    "\n"
    "Exit status: 0 success, 2 bad arguments (including a word with a repetition).\n";

int cmd_moves(int argc, char **argv)
{
    const char *variant = NULL, *ktext = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"variant", 1, &variant, NULL},
                      {"k", 1, &ktext, NULL},
                      {"json", 0, NULL, &json},
                      {NULL, 0, NULL, NULL}};
    cli_parse("moves", usage, argc, argv, opts, pos, 1, 1, &np);
    thue_variant v = cli_variant("moves", variant);
    int k = cli_k("moves", ktext);
    thue_word w;
    thue_word_init(&w);
    cli_clean_word("moves", pos[0], k, v, &w);
    uint64_t *safe = malloc(((size_t)w.len + 1) * sizeof *safe);
    int err = safe == NULL ? THUE_ENOMEM : thue_legal_map(NULL, w.sym, w.len, k, v, safe);
    if (err) {
        fprintf(stderr, "thue moves: %s\n", thue_strerror(err));
        free(safe);
        thue_word_free(&w);
        return 1;
    }
    if (json) {
        fputs("{\"word\":", stdout);
        json_word(stdout, w.sym, w.len);
        printf(",\"k\":%d,\"variant\":\"%s\",\"safe\":[", k, thue_variant_name(v));
        for (int i = 0; i <= w.len; i++) {
            if (i)
                fputc(',', stdout);
            json_mask(stdout, safe[i]);
        }
        fputs("]}\n", stdout);
    } else {
        print_word_board(stdout, w.sym, w.len, 0, 0);
        int total = 0;
        for (int i = 0; i <= w.len; i++) {
            printf("  %4d: ", i);
            if (safe[i] == 0)
                fputs("(none: the painter loses here)", stdout);
            for (int c = 0; c < k; c++)
                if ((safe[i] >> c) & 1) {
                    printf(" %d", c);
                    total++;
                }
            fputc('\n', stdout);
        }
        printf("%d safe moves at %d positions (k=%d, %s)\n", total, w.len + 1, k,
               thue_variant_name(v));
    }
    free(safe);
    thue_word_free(&w);
    return 0;
}
