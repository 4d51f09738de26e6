/*
 * fuzz_bot_spec.c: libFuzzer target for thue_bot_spec_parse (bot SPECs reach the server
 * from the network and the CLI from users).
 *
 * Any text either parses into a spec that formats to a text which parses back to the
 * same spec, or fails with THUE_EINVAL, a non-empty message (even into a tiny buffer)
 * and the output spec untouched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/thue/bots/bot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_spec(const thue_bot_spec *a, const thue_bot_spec *b)
{
    return a->kind == b->kind && a->level == b->level && a->iterations == b->iterations &&
           a->time_ms == b->time_ms && a->playout_limit == b->playout_limit &&
           a->exploration == b->exploration && a->max_depth == b->max_depth;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    thue_bot_spec spec, back, sentinel;
    memset(&sentinel, 0x5a, sizeof sentinel);
    spec = sentinel;
    char err[160], tiny[4];
    int r = thue_bot_spec_parse(text, &spec, err, sizeof err);
    if (r != 0) {
        if (r != THUE_EINVAL || err[0] == '\0' || memcmp(&spec, &sentinel, sizeof spec) != 0)
            abort();
        if (thue_bot_spec_parse(text, &spec, tiny, sizeof tiny) != THUE_EINVAL ||
            strlen(tiny) >= sizeof tiny)
            abort();
    } else {
        char out[256];
        int need = thue_bot_spec_format(&spec, out, sizeof out);
        if (need <= 0 || (size_t)need >= sizeof out)
            abort();
        if (thue_bot_spec_parse(out, &back, err, sizeof err) != 0 || !same_spec(&spec, &back))
            abort();
    }
    free(text);
    return 0;
}
