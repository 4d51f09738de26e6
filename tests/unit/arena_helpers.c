/*
 * arena_helpers.c: the `thue arena` tests' shared helpers (arena_helpers.h).
 */
#include "arena_helpers.h"

/* ---- files and CSV ----------------------------------------------------------------- */

char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        print_error("cannot open %s\n", path);
        fail();
    }
    char *s = slurp(f);
    fclose(f);
    return s;
}

void tmpdir_make(tmpdir *t)
{
    strcpy(t->base, "/tmp/test_arena_XXXXXX");
    assert_non_null(mkdtemp(t->base));
    snprintf(t->out, sizeof t->out, "%s/out/run", t->base);
}

char *tmpdir_read(const tmpdir *t, const char *name)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", t->out, name);
    return read_text(path);
}

void tmpdir_remove(tmpdir *t)
{
    static const char *const names[] = {"table.md", "games.csv", "moves.csv", "decision-time.svg"};
    char path[160];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", t->out, names[i]);
        unlink(path);
    }
    rmdir(t->out);
    snprintf(path, sizeof path, "%s/out", t->base);
    rmdir(path);
    rmdir(t->base);
}

/* Splits text into rows of fields; "quoted, fields" with "" for a quote. */
csv csv_parse(const char *text)
{
    csv c = {NULL, 0};
    int cap = 0;
    const char *p = text;
    while (*p != '\0') {
        if (c.n == cap) {
            cap = cap ? 2 * cap : 64;
            c.rows = realloc(c.rows, (size_t)cap * sizeof *c.rows);
            assert_non_null(c.rows);
        }
        csv_row *r = &c.rows[c.n++];
        memset(r, 0, sizeof *r);
        for (;;) {
            assert_true(r->n < CSV_COLS);
            char *out = r->f[r->n++];
            size_t len = 0;
            if (*p == '"') {
                for (p++; !(*p == '"' && p[1] != '"'); p++) {
                    assert_true(*p != '\0');
                    if (*p == '"')
                        p++;
                    assert_true(len + 1 < CSV_FIELD);
                    out[len++] = *p;
                }
                p++;
            } else {
                for (; *p != ',' && *p != '\n' && *p != '\0'; p++) {
                    assert_true(len + 1 < CSV_FIELD);
                    out[len++] = *p;
                }
            }
            out[len] = '\0';
            if (*p == ',') {
                p++;
                continue;
            }
            assert_true(*p == '\n'); /* every line ends with a newline */
            p++;
            break;
        }
    }
    return c;
}

int csv_col(const csv *c, const char *name)
{
    for (int i = 0; i < c->rows[0].n; i++)
        if (strcmp(c->rows[0].f[i], name) == 0)
            return i;
    print_error("no column %s\n", name);
    fail();
    return -1;
}

int csv_int(const csv *c, int row, const char *name)
{
    return atoi(c->rows[row].f[csv_col(c, name)]);
}

const char *csv_str(const csv *c, int row, const char *name)
{
    return c->rows[row].f[csv_col(c, name)];
}

/* ---- the naive referee and greedy players ----------------------------------------- */

/* Does w[0..n) hold a square (variant 0) or an overlap (variant 1)? The smallest period,
 * then the leftmost start, into *start and *period (the order RULES.md reports). */
int naive_repetition(const int *w, int n, int overlap, int *start, int *period)
{
    for (int p = 1; 2 * p + overlap <= n; p++)
        for (int s = 0; s + 2 * p + overlap <= n; s++) {
            int j = 0;
            while (j < p + overlap && w[s + j] == w[s + j + p])
                j++;
            if (j == p + overlap) {
                *start = s;
                *period = p;
                return 1;
            }
        }
    return 0;
}

/* Is symbol c at position i safe (no repetition after the insertion)? */
int naive_safe(const int *w, int n, int overlap, int i, int c)
{
    int t[512], s, p;
    assert_true(n < 511);
    memcpy(t, w, (size_t)i * sizeof *t);
    t[i] = c;
    memcpy(t + i + 1, w + i, (size_t)(n - i) * sizeof *t);
    return !naive_repetition(t, n + 1, overlap, &s, &p);
}

int naive_greedy_builder(const int *w, int n, int k, int overlap)
{
    int best = 0, fewest = k + 1;
    for (int i = 0; i <= n; i++) {
        int safe = 0;
        for (int c = 0; c < k; c++)
            safe += naive_safe(w, n, overlap, i, c);
        if (safe <= fewest) {
            fewest = safe;
            best = i;
        }
    }
    return best;
}

int naive_greedy_painter(const int *w, int n, int k, int overlap, int i)
{
    for (int c = 0; c < k; c++)
        if (naive_safe(w, n, overlap, i, c))
            return c;
    return 0;
}

void expect_move_row(const csv *moves, int row, const csv *games, int g, int ply, const char *role,
                     int n)
{
    assert_true(row < moves->n);
    assert_string_equal(csv_str(moves, row, "k"), csv_str(games, g, "k"));
    assert_string_equal(csv_str(moves, row, "builder"), csv_str(games, g, "builder"));
    assert_string_equal(csv_str(moves, row, "painter"), csv_str(games, g, "painter"));
    assert_string_equal(csv_str(moves, row, "game"), csv_str(games, g, "game"));
    assert_int_equal(csv_int(moves, row, "ply"), ply);
    assert_string_equal(csv_str(moves, row, "role"), role);
    assert_string_equal(csv_str(moves, row, "bot"), csv_str(games, g, role));
    assert_int_equal(csv_int(moves, row, "word_length_before"), n);
}

/*
 * Replays every game of games.csv from moves.csv (see the file comment); games with a
 * greedy bot also have that bot's moves checked against the naive greedy player. Returns
 * the number of games replayed; every row of moves.csv must belong to one of them.
 */
int replay_all(const csv *games, const csv *moves, int limit)
{
    int row = 1; /* next row of moves.csv */
    for (int g = 1; g < games->n; g++) {
        int k = csv_int(games, g, "k");
        int overlap = strcmp(csv_str(games, g, "variant"), "overlap") == 0;
        int greedy_b = strcmp(csv_str(games, g, "builder"), "greedy") == 0;
        int greedy_p = strcmp(csv_str(games, g, "painter"), "greedy") == 0;
        int w[512] = {0}, n = 1, made = 0, ply = 0;
        while (!made && ply < limit) {
            assert_true(n < 511);
            expect_move_row(moves, row, games, g, ply, "builder", n);
            int i = csv_int(moves, row++, "move");
            assert_in_range(i, 0, n);
            if (greedy_b)
                assert_int_equal(i, naive_greedy_builder(w, n, k, overlap));
            expect_move_row(moves, row, games, g, ply, "painter", n);
            int c = csv_int(moves, row++, "move");
            assert_in_range(c, 0, k - 1);
            if (greedy_p)
                assert_int_equal(c, naive_greedy_painter(w, n, k, overlap, i));
            made = !naive_safe(w, n, overlap, i, c);
            memmove(w + i + 1, w + i, (size_t)(n - i) * sizeof *w);
            w[i] = c;
            n++;
            ply++;
        }
        assert_int_equal(csv_int(games, g, "length"), n);
        if (made) {
            int s = -1, p = -1;
            assert_true(naive_repetition(w, n, overlap, &s, &p));
            assert_string_equal(csv_str(games, g, "end"), "repetition");
            assert_int_equal(csv_int(games, g, "points"), n - 2);
            assert_int_equal(csv_int(games, g, "rep_start"), s);
            assert_int_equal(csv_int(games, g, "rep_period"), p);
        } else {
            assert_string_equal(csv_str(games, g, "end"), "limit");
            assert_int_equal(csv_int(games, g, "points"), limit);
            assert_int_equal(n, limit + 1);
            assert_string_equal(csv_str(games, g, "rep_start"), "");
        }
    }
    assert_int_equal(row, moves->n);
    return games->n - 1;
}
