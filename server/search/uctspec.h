/*
 * uctspec.h: the options of a uct bot, one text for every game: Thue's uct (bot.h) and
 * the generic uct (gbot.h) read and write them here, so their keys, ranges, defaults and
 * error sentences are the same.
 *
 *   uct[:KEY=VALUE,...]   iterations=N (default 10000; 0 = use the time; "iters" too),
 *                         ms=T (time limit per move), playout=M (default 100),
 *                         c=X (default sqrt 2)
 *
 * Only uct's options are here: the names of the other bots and their options (Thue's
 * greedy, nested, perfect:depth; the generic random and perfect) stay with their bots.
 */
#ifndef THUE_SEARCH_UCTSPEC_H
#define THUE_SEARCH_UCTSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THUE_UCT_ITERATIONS_DEFAULT 10000
#define THUE_UCT_PLAYOUT_DEFAULT 100
#define THUE_UCT_C_DEFAULT 1.4142135623730951

typedef struct thue_uct_spec {
    uint64_t iterations; /* playouts per move, 0 = until a time limit */
    int time_ms;         /* the spec's own time limit per move, 0 = none */
    int playout_limit;   /* moves (insertions) per playout, 1..100000 */
    double exploration;  /* the constant c of UCB1, 0..1000 */
} thue_uct_spec;

/* The defaults above. */
thue_uct_spec thue_uct_spec_default(void);

/*
 * Parses the option list of a uct spec: opts is the text after "uct:" (NULL: "uct" alone,
 * the defaults). 0 and *out set, or THUE_EINVAL with a sentence naming what is wrong in
 * err (which may be NULL; errsize bytes including the NUL), *out then unspecified.
 */
int thue_uct_spec_parse(const char *opts, thue_uct_spec *out, char *err, size_t errsize);

/* The canonical text, "uct:iterations=10000,playout=100,c=1.4142135623730951" (",ms=T"
 * after the iterations when there is a time limit; c with as few digits as read back
 * exactly); it parses back to the same spec. Returns the length the full text needs,
 * like snprintf. */
int thue_uct_spec_format(const thue_uct_spec *s, char *buf, size_t size);

/* A whole decimal number in [lo, hi] from text[0..len) (digits only): 0 and *out, or -1.
 * Shared with Thue's spec parser (levels, depths). */
int thue__spec_int(const char *text, size_t len, long long lo, long long hi, long long *out);

/* One KEY=VALUE of a comma-separated option list (a bot SPEC's options after ':'). */
typedef struct thue__spec_kv {
    const char *key, *val;
    size_t klen, vlen;
} thue__spec_kv;
/* The option at *p into kv, and *p moved past it (NULL after the last one): 0, or
 * THUE_EINVAL with "NAME option 'X' is not KEY=VALUE" in err. Shared with Thue's parser. */
int thue__spec_option(const char **p, const char *name, thue__spec_kv *kv, char *err,
                      size_t errsize);
/* Whether the option's key is key. */
bool thue__spec_key_is(const thue__spec_kv *kv, const char *key);

/* For every bot SPEC parser: writes the sentence into err (when err is not NULL) and
 * returns THUE_EINVAL. */
int thue_spec_error(char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
