/* output.c: JSON fragments and the console board for the `thue` command (see cli.h). */
#include <string.h>

#include "cli.h"

void json_word(FILE *f, const uint8_t *sym, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, i ? ",%d" : "%d", sym[i]);
    fputc(']', f);
}

void json_repetition(FILE *f, const thue_repetition *rep)
{
    if (rep == NULL) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"start\":%d,\"period\":%d,\"length\":%d}", rep->start, rep->period, rep->length);
}

void json_mask(FILE *f, uint64_t mask)
{
    fputc('[', f);
    int first = 1;
    for (int c = 0; c < 64; c++) {
        if ((mask >> c) & 1) {
            fprintf(f, first ? "%d" : ",%d", c);
            first = 0;
        }
    }
    fputc(']', f);
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void print_word_board(FILE *f, const uint8_t *sym, int n, int lo, int hi)
{
    /* Columns: a gap index, then a symbol framed by two spaces (or the brackets marking
     * [lo, hi)); every field is as wide as the widest gap index or symbol. */
    int wd = 1;
    for (int x = n; x >= 10; x /= 10)
        wd++;
    for (int i = 0; i < n; i++)
        if (sym[i] >= 10 && wd < 2)
            wd = 2;
    fputs("  gap  ", f);
    for (int i = 0; i <= n; i++)
        fprintf(f, i < n ? "%*d %*s " : "%*d\n", wd, i, wd, "");
    fputs("  word ", f);
    for (int i = 0; i < n; i++) {
        int open = lo < hi && i == lo, close = lo < hi && i == hi - 1;
        fprintf(f, "%*s%c%*d%c", wd, "", open ? '[' : ' ', wd, sym[i], close ? ']' : ' ');
    }
    fputc('\n', f);
}
