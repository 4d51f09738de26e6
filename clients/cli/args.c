/* args.c: option parsing and usage errors for the `thue` subcommands (see cli.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/errors.h"

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "thue %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'thue %s --help'.\n", cmd);
    exit(THUE_EXIT_USAGE);
}

static const cli_opt *find_opt(const cli_opt *opts, const char *name, size_t len)
{
    for (; opts->name != NULL; opts++)
        if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
            return opts;
    return NULL;
}

void cli_parse(const char *cmd, const char *usage, int argc, char **argv, const cli_opt *opts,
               const char **pos, int minpos, int maxpos, int *npos)
{
    int np = 0, only_pos = 0;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!only_pos && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            fputs(usage, stdout);
            exit(0);
        }
        if (!only_pos && strcmp(arg, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (!only_pos && arg[0] == '-' && arg[1] == '-') {
            const char *name = arg + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const cli_opt *o = find_opt(opts, name, len);
            if (o == NULL)
                cli_usage_error(cmd, "unknown option '--%.*s'", (int)len, name);
            if (!o->takes_value) {
                if (eq)
                    cli_usage_error(cmd, "option '--%s' takes no value", o->name);
                *o->flag = 1;
            } else if (eq) {
                *o->value = eq + 1;
            } else if (a + 1 < argc) {
                *o->value = argv[++a];
            } else {
                cli_usage_error(cmd, "option '--%s' needs a value", o->name);
            }
            continue;
        }
        /* A lone "-x" that is not a negative number is an unknown short option. */
        if (!only_pos && arg[0] == '-' && arg[1] != '\0' && !(arg[1] >= '0' && arg[1] <= '9'))
            cli_usage_error(cmd, "unknown option '%s'", arg);
        if (np == maxpos)
            cli_usage_error(cmd, "unexpected argument '%s'", arg);
        pos[np++] = arg;
    }
    if (np < minpos)
        cli_usage_error(cmd, "missing argument");
    *npos = np;
}

int cli_int(const char *cmd, const char *opt, const char *text, int lo, int hi, int def)
{
    if (text == NULL)
        return def;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (text[0] == '\0' || *end != '\0' || errno == ERANGE)
        cli_usage_error(cmd, "--%s expects a whole number, got '%s'", opt, text);
    if (v < lo || v > hi)
        cli_usage_error(cmd, "--%s must be between %d and %d, got %ld", opt, lo, hi, v);
    return (int)v;
}

uint64_t cli_u64(const char *cmd, const char *opt, const char *text, uint64_t def)
{
    if (text == NULL)
        return def;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] == '\0' || text[0] == '-' || *end != '\0' || errno == ERANGE)
        cli_usage_error(cmd, "--%s expects a non-negative whole number, got '%s'", opt, text);
    return (uint64_t)v;
}

thue_variant cli_variant(const char *cmd, const char *text)
{
    thue_variant v = THUE_SQUARE;
    if (text != NULL && thue_variant_parse(text, &v) != 0)
        cli_usage_error(cmd, "--variant must be 'square' or 'overlap', got '%s'", text);
    return v;
}

void cli_word(const char *cmd, const char *text, thue_word *w)
{
    int at = 0;
    int err = thue_word_parse(w, text, &at);
    if (err == THUE_ESYMBOL)
        cli_usage_error(cmd, "bad word '%s': symbols are 0..%d (at offset %d)", text,
                        THUE_K_MAX - 1, at);
    if (err == THUE_ETOOLONG)
        cli_usage_error(cmd, "bad word: longer than %d symbols", THUE_WORD_MAX);
    if (err)
        cli_usage_error(cmd,
                        "bad word '%s' at offset %d: write digits (0121) or comma-separated "
                        "numbers (0,1,12)",
                        text, at);
}

int cli_k(const char *cmd, const char *text)
{
    if (text == NULL)
        cli_usage_error(cmd, "--k is required (the number of symbols, 2..64)");
    return cli_int(cmd, "k", text, THUE_K_MIN, THUE_K_MAX, 0);
}

void cli_clean_word(const char *cmd, const char *text, int k, thue_variant v, thue_word *w)
{
    cli_word(cmd, text, w);
    if (thue_word_check_k(w, k) != 0)
        cli_usage_error(cmd, "symbol %d is out of range for --k %d (symbols are 0..%d)",
                        thue_word_max_symbol(w), k, k - 1);
    thue_repetition rep;
    int found = thue_check_word(NULL, w->sym, w->len, v, &rep);
    if (found > 0)
        cli_usage_error(cmd, "the word already contains a%s %s at positions %d..%d (period %d)",
                        v == THUE_OVERLAP ? "n" : "", thue_variant_name(v), rep.start,
                        rep.start + rep.length - 1, rep.period);
    if (found < 0) {
        fprintf(stderr, "thue %s: %s\n", cmd, thue_strerror(found));
        exit(1);
    }
}
