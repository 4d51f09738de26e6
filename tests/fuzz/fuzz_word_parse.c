/*
 * fuzz_word_parse.c: libFuzzer target for thue_word_parse.
 *
 * Any text either parses into a word whose symbols are all < THUE_K_MAX and whose
 * comma form parses back to the same word, or fails with a negative code, an error
 * offset inside the text, and the previous word left untouched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/thue/engine/word.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    thue_word w, back;
    thue_word_init(&w);
    thue_word_init(&back);
    const uint8_t before[] = {1, 2, 3};
    thue_word_assign(&w, before, 3);
    int at = -1;
    int err = thue_word_parse(&w, text, &at);
    if (err < 0) {
        if (at < 0 || (size_t)at > strlen(text) || w.len != 3 || memcmp(w.sym, before, 3) != 0)
            abort();
    } else {
        for (int i = 0; i < w.len; i++)
            if (w.sym[i] >= THUE_K_MAX)
                abort();
        int need = thue_word_format(&w, THUE_FMT_COMMAS, NULL, 0);
        char *out = malloc((size_t)need + 1);
        if (out != NULL) {
            thue_word_format(&w, THUE_FMT_COMMAS, out, (size_t)need + 1);
            if (thue_word_parse(&back, out, NULL) != 0 || back.len != w.len ||
                (w.len > 0 && memcmp(back.sym, w.sym, (size_t)w.len) != 0))
                abort();
            free(out);
        }
    }
    thue_word_free(&back);
    thue_word_free(&w);
    free(text);
    return 0;
}
