/* cmd_check.c: `thue check WORD [--variant V] [--json]`: the word's first repetition. */
#include <stdlib.h>

#include "cli.h"
#include "base/errors.h"

static const char usage[] =
    "Usage: thue check WORD [--variant square|overlap] [--json]\n"
    "\n"
    "Reports the first repetition in WORD: the one with the smallest period, and among\n"
    "those the leftmost. Positions count from 0. WORD is digits (0121) or comma-separated\n"
    "numbers (0,1,12), optionally in brackets ([12] is the one-symbol word 12).\n"
    "\n"
    "  --variant V   square (default): a factor uu; overlap: a factor of length 2p+1\n"
    "                with period p (so 000 is an overlap and 00 is not)\n"
    "  --json        print {\"word\":[...],\"variant\":V,\"repetition\":{\"start\":S,\n"
    "                \"period\":P,\"length\":L}} or \"repetition\":null\n"
    "\n"
    "Exit status: 0 (with or without a repetition), 2 bad arguments.\n";

int cmd_check(int argc, char **argv)
{
    const char *variant = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {
        {"variant", 1, &variant, NULL}, {"json", 0, NULL, &json}, {NULL, 0, NULL, NULL}};
    cli_parse("check", usage, argc, argv, opts, pos, 1, 1, &np);
    thue_variant v = cli_variant("check", variant);
    thue_word w;
    thue_word_init(&w);
    cli_word("check", pos[0], &w);

    thue_repetition rep;
    int found = thue_check_word(NULL, w.sym, w.len, v, &rep);
    if (found < 0) {
        fprintf(stderr, "thue check: %s\n", thue_strerror(found));
        thue_word_free(&w);
        return 1;
    }
    if (json) {
        fputs("{\"word\":", stdout);
        json_word(stdout, w.sym, w.len);
        printf(",\"variant\":\"%s\",\"repetition\":", thue_variant_name(v));
        json_repetition(stdout, found ? &rep : NULL);
        fputs("}\n", stdout);
    } else if (!found) {
        printf("%s-free (%d symbols)\n", thue_variant_name(v), w.len);
    } else {
        printf("%s at positions %d..%d, period %d, length %d\n", thue_variant_name(v), rep.start,
               rep.start + rep.length - 1, rep.period, rep.length);
        print_word_board(stdout, w.sym, w.len, rep.start, rep.start + rep.length);
    }
    thue_word_free(&w);
    return 0;
}
