/*
 * word.h: words over k symbols (2 <= k <= 64), stored one byte per symbol.
 *
 * A thue_word is a growable array with insert and remove at a position; the engine's
 * repetition functions take a plain (symbols, length) pair so that bots can run them
 * over their own buffers. Text forms: digits ("0121", only when every symbol is < 10)
 * or comma-separated numbers ("0,1,12"), optionally in brackets ("[0,1,12]";
 * inside brackets the text is always read as comma-separated numbers).
 * A word never holds a symbol >= THUE_K_MAX; symbols against a particular k are
 * checked by the caller that knows k (thue_word_check_k).
 */
#ifndef THUE_GAMES_THUE_ENGINE_WORD_H
#define THUE_GAMES_THUE_ENGINE_WORD_H

#include <stddef.h>
#include <stdint.h>

#define THUE_K_MIN 2
#define THUE_K_MAX 64
/* Longest word the engine accepts (parse, insert): far above any match length. */
#define THUE_WORD_MAX 65536

typedef struct thue_word {
    uint8_t *sym; /* owned; sym[0..len-1] */
    int len;
    int cap;
} thue_word;

typedef enum {
    THUE_FMT_AUTO = 0, /* digits when every symbol is < 10, else commas */
    THUE_FMT_DIGITS,   /* "0121"; fails with THUE_ESYMBOL if a symbol is >= 10 */
    THUE_FMT_COMMAS    /* "0,1,2,1" */
} thue_word_format_style;

/* An empty word; allocates nothing. */
void thue_word_init(thue_word *w);
/* Frees the symbols and leaves an empty word. NULL is a no-op. */
void thue_word_free(thue_word *w);
/* Makes room for cap symbols. 0, THUE_ETOOLONG or THUE_ENOMEM. */
int thue_word_reserve(thue_word *w, int cap);
/* Replaces the contents with sym[0..n-1]. 0, THUE_ESYMBOL, THUE_ETOOLONG, THUE_ENOMEM. */
int thue_word_assign(thue_word *w, const uint8_t *sym, int n);
/* Inserts symbol c before position i (0 <= i <= len): i = 0 is the front, i = len the end.
 * 0, THUE_EPOSITION, THUE_ESYMBOL (c outside 0..THUE_K_MAX-1), THUE_ETOOLONG, THUE_ENOMEM. */
int thue_word_insert(thue_word *w, int i, int c);
/* Removes the symbol at position i (0 <= i < len). 0 or THUE_EPOSITION. */
int thue_word_remove(thue_word *w, int i);
/* 0 when every symbol is < k, THUE_EK when k is outside 2..64, else THUE_ESYMBOL. */
int thue_word_check_k(const thue_word *w, int k);
/* Largest symbol, or -1 for the empty word. */
int thue_word_max_symbol(const thue_word *w);

/*
 * Parses text into w (replacing its contents). Accepted: "" or "[]" (the empty word),
 * digits "0121", numbers separated by commas "0,1,12" with optional spaces around them,
 * and the comma form inside brackets ("[0,1,12]", "[12]"). A text without commas or brackets is
 * read digit by digit ("12" is [1,2]; write "[12]" for the one-symbol word 12). Returns 0,
 * THUE_EWORD (bad text), THUE_ESYMBOL (a number above 63), THUE_ETOOLONG or THUE_ENOMEM; on error w
 * is unchanged and, when err_at is not NULL, *err_at is the byte offset where the text went wrong.
 */
int thue_word_parse(thue_word *w, const char *text, int *err_at);

/*
 * Formats w like snprintf: writes at most size bytes including the terminating NUL and
 * returns the length the full text needs (excluding the NUL), or THUE_ESYMBOL for
 * THUE_FMT_DIGITS with a symbol >= 10. The text always parses back to the same word: a
 * one-symbol word above 9 is written "[12]".
 */
int thue_word_format(const thue_word *w, thue_word_format_style style, char *buf, size_t size);

#endif
