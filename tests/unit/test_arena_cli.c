/*
 * test_arena_cli.c: `thue arena`, run as a separate process (cli_run.h: fork/exec of
 * THUE_CLI_PATH, stdout and stderr captured in temporary files, no shell).
 *
 * The games are checked against an independent replay written here: moves.csv is played
 * again on a plain word with a naive repetition scan (every factor compared symbol by
 * symbol), so each move must be in range, no insertion before the last may make a
 * repetition, the last must (unless the limit ended the game), and the length, points
 * and repetition in games.csv must follow. Where a bot is greedy its recorded moves are
 * compared with a naive greedy player (RULES.md: the builder takes the position with the
 * fewest safe symbols, the last on ties; the painter the lowest safe symbol). The JSON is
 * read with a small parser of its own. No test looks at times.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"

/* Exit `status`, nothing on stdout, a message naming `what` on stderr; frees r. */
static void fails_at(run_result r, int status, const char *what, const char *file, int line)
{
    status_at(&r, status, file, line);
    if (r.out[0] != '\0') {
        print_error("stdout should be empty, is:\n%s\n", r.out);
        _fail(file, line);
    }
    contains_at(r.err, what, file, line);
    run_free(&r);
}

#define assert_failure(r, what) fails_at((r), 1, (what), HERE)

/* ---- files and CSV ----------------------------------------------------------------- */

static char *read_text(const char *path)
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

/* A temporary directory for --out, and the path of a file in it. */
typedef struct tmpdir {
    char base[64];
    char out[96]; /* base/out: does not exist until thue arena makes it */
} tmpdir;

static void tmpdir_make(tmpdir *t)
{
    strcpy(t->base, "/tmp/test_arena_XXXXXX");
    assert_non_null(mkdtemp(t->base));
    snprintf(t->out, sizeof t->out, "%s/out/run", t->base);
}

static char *tmpdir_read(const tmpdir *t, const char *name)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", t->out, name);
    return read_text(path);
}

static void tmpdir_remove(tmpdir *t)
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

#define CSV_COLS 16
#define CSV_FIELD 128

typedef struct csv_row {
    char f[CSV_COLS][CSV_FIELD];
    int n;
} csv_row;

typedef struct csv {
    csv_row *rows; /* rows[0] is the header */
    int n;
} csv;

/* Splits text into rows of fields; "quoted, fields" with "" for a quote. */
static csv csv_parse(const char *text)
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

static int csv_col(const csv *c, const char *name)
{
    for (int i = 0; i < c->rows[0].n; i++)
        if (strcmp(c->rows[0].f[i], name) == 0)
            return i;
    print_error("no column %s\n", name);
    fail();
    return -1;
}

static int csv_int(const csv *c, int row, const char *name)
{
    return atoi(c->rows[row].f[csv_col(c, name)]);
}

static const char *csv_str(const csv *c, int row, const char *name)
{
    return c->rows[row].f[csv_col(c, name)];
}

/* ---- a small JSON reader ----------------------------------------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype t;
    double num;         /* J_NUM, J_BOOL */
    char *str;          /* J_STR */
    struct jval *items; /* J_ARR, J_OBJ: n values */
    char **keys;        /* J_OBJ */
    int n;
} jval;

static void jskip(const char **p)
{
    while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
        (*p)++;
}

/* Parses one value at *p into v; 0 on a syntax error. */
static int jparse(const char **p, jval *v);

static int jstring(const char **p, char **out)
{
    if (**p != '"')
        return 0;
    (*p)++;
    size_t cap = 16, len = 0;
    char *s = malloc(cap);
    for (; **p != '"'; (*p)++) {
        if (**p == '\0' || (unsigned char)**p < 0x20) {
            free(s);
            return 0;
        }
        char ch = **p;
        if (ch == '\\') {
            (*p)++;
            if (strchr("\"\\/bfnrtu", **p) == NULL) {
                free(s);
                return 0;
            }
            ch = **p;
            if (ch == 'u') {
                /* our output escapes only control characters: keep a '?' */
                for (int d = 1; d <= 4; d++)
                    if (!isxdigit((unsigned char)(*p)[d])) {
                        free(s);
                        return 0;
                    }
                *p += 4;
                ch = '?';
            }
        }
        if (len + 2 > cap)
            s = realloc(s, cap *= 2);
        s[len++] = ch;
    }
    (*p)++;
    s[len] = '\0';
    *out = s;
    return 1;
}

static int jparse(const char **p, jval *v)
{
    memset(v, 0, sizeof *v);
    jskip(p);
    if (**p == '{' || **p == '[') {
        int obj = **p == '{';
        v->t = obj ? J_OBJ : J_ARR;
        (*p)++;
        jskip(p);
        if (**p == (obj ? '}' : ']')) {
            (*p)++;
            return 1;
        }
        for (;;) {
            v->items = realloc(v->items, (size_t)(v->n + 1) * sizeof *v->items);
            if (obj) {
                v->keys = realloc(v->keys, (size_t)(v->n + 1) * sizeof *v->keys);
                jskip(p);
                if (!jstring(p, &v->keys[v->n]))
                    return 0;
                jskip(p);
                if (**p != ':') {
                    free(v->keys[v->n]);
                    return 0;
                }
                (*p)++;
            }
            if (!jparse(p, &v->items[v->n])) {
                if (obj)
                    free(v->keys[v->n]);
                return 0;
            }
            v->n++;
            jskip(p);
            if (**p == ',') {
                (*p)++;
                continue;
            }
            if (**p != (obj ? '}' : ']'))
                return 0;
            (*p)++;
            return 1;
        }
    }
    if (**p == '"') {
        v->t = J_STR;
        return jstring(p, &v->str);
    }
    if (strncmp(*p, "null", 4) == 0) {
        *p += 4;
        return 1;
    }
    if (strncmp(*p, "true", 4) == 0 || strncmp(*p, "false", 5) == 0) {
        v->t = J_BOOL;
        v->num = **p == 't';
        *p += **p == 't' ? 4 : 5;
        return 1;
    }
    char *end;
    if (!(**p == '-' || (**p >= '0' && **p <= '9')))
        return 0;
    v->t = J_NUM;
    v->num = strtod(*p, &end);
    *p = end;
    return 1;
}

static void jfree(jval *v)
{
    for (int i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->t == J_OBJ)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

static const jval *jget(const jval *obj, const char *key, jtype t)
{
    assert_int_equal(obj->t, J_OBJ);
    for (int i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0) {
            if (obj->items[i].t != t) {
                print_error("\"%s\" has type %d, expected %d\n", key, obj->items[i].t, t);
                fail();
            }
            return &obj->items[i];
        }
    print_error("no key \"%s\"\n", key);
    fail();
    return NULL;
}

static double jnum(const jval *obj, const char *key)
{
    return jget(obj, key, J_NUM)->num;
}

/* The whole text must be one JSON value followed by a newline. */
static jval json_of(const char *text)
{
    jval v;
    const char *p = text;
    if (!jparse(&p, &v) || strcmp(p, "\n") != 0) {
        print_error("not JSON (stopped at offset %d):\n%s\n", (int)(p - text), text);
        fail();
    }
    return v;
}

/* ---- the naive referee and greedy players ----------------------------------------- */

/* Does w[0..n) hold a square (variant 0) or an overlap (variant 1)? The smallest period,
 * then the leftmost start, into *start and *period (the order RULES.md reports). */
static int naive_repetition(const int *w, int n, int overlap, int *start, int *period)
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
static int naive_safe(const int *w, int n, int overlap, int i, int c)
{
    int t[512], s, p;
    assert_true(n < 511);
    memcpy(t, w, (size_t)i * sizeof *t);
    t[i] = c;
    memcpy(t + i + 1, w + i, (size_t)(n - i) * sizeof *t);
    return !naive_repetition(t, n + 1, overlap, &s, &p);
}

static int naive_greedy_builder(const int *w, int n, int k, int overlap)
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

static int naive_greedy_painter(const int *w, int n, int k, int overlap, int i)
{
    for (int c = 0; c < k; c++)
        if (naive_safe(w, n, overlap, i, c))
            return c;
    return 0;
}

/* A whole round between the naive greedy players: the final length (RULES.md: the
 * length including the insertion that made the repetition, or limit + 1). */
static int naive_greedy_round(int k, int overlap, int limit)
{
    int w[512] = {0}, n = 1;
    for (int points = 0; points < limit; points++) {
        assert_true(n < 511);
        int i = naive_greedy_builder(w, n, k, overlap);
        int c = naive_greedy_painter(w, n, k, overlap, i);
        int lost = !naive_safe(w, n, overlap, i, c);
        memmove(w + i + 1, w + i, (size_t)(n - i) * sizeof *w);
        w[i] = c;
        n++;
        if (lost)
            return n;
    }
    return n;
}

static void expect_move_row(const csv *moves, int row, const csv *games, int g, int ply,
                            const char *role, int n)
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
static int replay_all(const csv *games, const csv *moves, int limit)
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

/* ---- SVG ---------------------------------------------------------------------------- */

/* Starts with <svg, every element closed in order, attributes' quotes paired, every '&'
 * an entity, one root and nothing after it. */
static void assert_well_formed_svg(const char *s)
{
    char stack[64][32];
    int depth = 0, roots = 0;
    assert_memory_equal(s, "<svg", 4);
    const char *p = s;
    while (*p != '\0') {
        if (*p == '&') {
            size_t len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz#0123456789");
            assert_true(len > 0 && p[1 + len] == ';');
            p += len + 2;
            continue;
        }
        if (*p != '<') {
            if (depth == 0)
                assert_true(*p == '\n' || *p == ' ');
            p++;
            continue;
        }
        const char *close = strchr(p, '>');
        assert_non_null(close);
        int quotes = 0;
        for (const char *q = p; q < close; q++) {
            assert_true(q == p || *q != '<');
            quotes += *q == '"';
        }
        assert_int_equal(quotes % 2, 0);
        if (p[1] == '/') {
            assert_true(depth > 0);
            size_t len = strcspn(p + 2, " >");
            assert_int_equal(len, strlen(stack[depth - 1]));
            assert_memory_equal(p + 2, stack[depth - 1], len);
            depth--;
        } else {
            size_t len = strcspn(p + 1, " />");
            assert_true(len > 0 && len < sizeof stack[0]);
            if (depth == 0)
                roots++;
            if (close[-1] != '/') {
                assert_true(depth < 64);
                memcpy(stack[depth], p + 1, len);
                stack[depth][len] = '\0';
                depth++;
            }
        }
        p = close + 1;
    }
    assert_int_equal(depth, 0);
    assert_int_equal(roots, 1);
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_arena_help(void **state)
{
    (void)state;
    run_result r = run("arena", "--help", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "Usage: thue arena");
    assert_contains(r.out, "--json");
    assert_contains(r.out, "\"cells\"");
    assert_contains(r.out, "games.csv");
    assert_string_equal(r.err, "");
    run_free(&r);
}

/* k = 3: every position of a square-free ternary word of length 3 or less has a safe
 * symbol (checked by brute force), so these painters, which play a safe symbol when there
 * is one, reach length 4; the builder can force a square by length 5 (RULES.md) and
 * these builders do. So every game has final length 5, the thesis's "5 for any levels";
 * the replay confirms each game move by move. */
static void test_arena_k3_every_game_has_length_5(void **state)
{
    (void)state;
    tmpdir t;
    tmpdir_make(&t);
    run_result r = run("arena", "--k", "3", "--builder", "0,1", "--painter", "0,1", "--games", "6",
                       "--out", t.out, "--threads", "2", NULL);
    assert_status(&r, 0);
    int rows = 0;
    for (const char *line = strstr(r.out, "\n| 3 |"); line; line = strstr(line + 1, "\n| 3 |")) {
        char b[32], p[32];
        int games, min, max, at_limit;
        double mean;
        assert_int_equal(sscanf(line, "\n| 3 | %31s | %31s | %d | %d | %lf | %d | %d |", b, p,
                                &games, &min, &mean, &max, &at_limit),
                         7);
        assert_int_equal(games, 6);
        assert_int_equal(min, 5);
        assert_true(mean == 5.0);
        assert_int_equal(max, 5);
        assert_int_equal(at_limit, 0);
        rows++;
    }
    assert_int_equal(rows, 4);
    char *gt = tmpdir_read(&t, "games.csv"), *mt = tmpdir_read(&t, "moves.csv");
    csv games = csv_parse(gt), moves = csv_parse(mt);
    assert_int_equal(replay_all(&games, &moves, 300), 24);
    for (int g = 1; g < games.n; g++)
        assert_int_equal(csv_int(&games, g, "length"), 5);
    free(games.rows);
    free(moves.rows);
    free(gt);
    free(mt);
    run_free(&r);
    tmpdir_remove(&t);
}

/* Greedy against greedy has no randomness at all: the lengths must be those of the naive
 * greedy players here, in both variants (and with a limit that stops the overlap game on
 * two symbols, where greedy play can go on for long). */
static void test_arena_greedy_matches_naive_round(void **state)
{
    (void)state;
    static const struct {
        const char *k, *variant;
        int limit;
    } cases[] = {{"3,4,5", "square", 60}, {"2,3", "overlap", 60}, {"2", "overlap", 7}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char limit[16];
        snprintf(limit, sizeof limit, "%d", cases[i].limit);
        run_result r =
            run("arena", "--k", cases[i].k, "--variant", cases[i].variant, "--builder", "greedy",
                "--painter", "0", "--games", "2", "--limit", limit, "--json", NULL);
        assert_status(&r, 0);
        jval v = json_of(r.out);
        const jval *cells = jget(&v, "cells", J_ARR);
        int overlap = strcmp(cases[i].variant, "overlap") == 0;
        for (int c = 0; c < cells->n; c++) {
            const jval *cell = &cells->items[c];
            int k = (int)jnum(cell, "k");
            int want = naive_greedy_round(k, overlap, cases[i].limit);
            const jval *lengths = jget(cell, "lengths", J_ARR);
            assert_int_equal(lengths->n, 2);
            for (int g = 0; g < lengths->n; g++)
                assert_int_equal((int)lengths->items[g].num, want);
            assert_int_equal((int)jnum(cell, "at_limit"), want == cases[i].limit + 1 ? 2 : 0);
        }
        jfree(&v);
        run_free(&r);
    }
}

/* The JSON parses and agrees with itself: one cell per (k, builder, painter) in order,
 * N lengths each, min <= mean <= max computed from them, at_limit the games of length
 * limit + 1. The limit 12 is small enough that some k = 5 games reach it. */
static void test_arena_json_is_consistent(void **state)
{
    (void)state;
    run_result r =
        run("arena", "--k", "4..5", "--builder", "0,nested:1", "--painter", "1,0", "--games", "5",
            "--seed", "7", "--limit", "12", "--think-ms", "60000", "--json", NULL);
    assert_status(&r, 0);
    jval v = json_of(r.out);
    assert_string_equal(jget(&v, "variant", J_STR)->str, "square");
    assert_int_equal((int)jnum(&v, "games"), 5);
    assert_int_equal((int)jnum(&v, "seed"), 7);
    assert_int_equal((int)jnum(&v, "limit"), 12);
    assert_int_equal((int)jnum(&v, "think_ms"), 60000);
    const jval *ks = jget(&v, "k", J_ARR), *bs = jget(&v, "builder", J_ARR),
               *ps = jget(&v, "painter", J_ARR);
    assert_int_equal(ks->n, 2);
    assert_int_equal((int)ks->items[0].num, 4);
    assert_int_equal((int)ks->items[1].num, 5);
    assert_int_equal(bs->n, 2);
    assert_string_equal(bs->items[0].str, "greedy");
    assert_string_equal(bs->items[1].str, "nested:1");
    assert_int_equal(ps->n, 2);
    assert_string_equal(ps->items[0].str, "nested:1");
    assert_string_equal(ps->items[1].str, "greedy");
    const jval *cells = jget(&v, "cells", J_ARR);
    assert_int_equal(cells->n, 8);
    int limited = 0;
    for (int c = 0; c < cells->n; c++) {
        const jval *cell = &cells->items[c];
        assert_int_equal((int)jnum(cell, "k"), (int)ks->items[c / 4].num);
        assert_string_equal(jget(cell, "builder", J_STR)->str, bs->items[c / 2 % 2].str);
        assert_string_equal(jget(cell, "painter", J_STR)->str, ps->items[c % 2].str);
        assert_int_equal((int)jnum(cell, "games"), 5);
        const jval *len = jget(cell, "length", J_OBJ), *lengths = jget(cell, "lengths", J_ARR);
        double min = jnum(len, "min"), mean = jnum(len, "mean"), max = jnum(len, "max");
        assert_true(min <= mean && mean <= max);
        assert_int_equal(lengths->n, 5);
        double sum = 0, lo = 1e9, hi = 0;
        int at_limit = 0;
        for (int g = 0; g < lengths->n; g++) {
            double x = lengths->items[g].num;
            assert_true(x >= 3 && x <= 13); /* a square needs 2 symbols; the limit is 12 */
            sum += x;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            at_limit += x == 13;
        }
        assert_true(lo == min && hi == max);
        assert_true(mean > sum / 5 - 1e-3 && mean < sum / 5 + 1e-3);
        assert_int_equal((int)jnum(cell, "at_limit"), at_limit);
        limited += at_limit;
        for (int role = 0; role < 2; role++) {
            const jval *ms = jget(cell, role ? "painter_ms" : "builder_ms", J_OBJ);
            assert_true(jnum(ms, "mean") >= 0 && jnum(ms, "mean") <= jnum(ms, "max"));
        }
    }
    assert_true(limited > 0);
    jfree(&v);
    run_free(&r);
}

/* --out: the four files; every game replays; moves per game add up; the SVG is sound;
 * table.md is the table printed on stdout. */
static void test_arena_out_writes_four_files(void **state)
{
    (void)state;
    tmpdir t;
    tmpdir_make(&t);
    run_result r = run("arena", "--k", "4,5", "--builder", "0,1", "--painter", "0,1", "--games",
                       "3", "--limit", "25", "--out", t.out, NULL);
    assert_status(&r, 0);
    char *table = tmpdir_read(&t, "table.md"), *gt = tmpdir_read(&t, "games.csv"),
         *mt = tmpdir_read(&t, "moves.csv"), *svg = tmpdir_read(&t, "decision-time.svg");
    assert_string_equal(table, r.out);
    csv games = csv_parse(gt), moves = csv_parse(mt);
    assert_int_equal(games.rows[0].n, 14);
    assert_string_equal(gt, strstr(gt, "k,variant,builder,painter,game,seed,length,points,end,"
                                       "rep_start,rep_period,builder_ms,painter_ms,total_ms\n"));
    assert_memory_equal(mt,
                        "k,builder,painter,game,ply,role,bot,word_length_before,move,"
                        "think_ms,nodes\n",
                        75);
    assert_int_equal(games.n - 1, 2 * 2 * 2 * 3);
    for (int g = 1; g < games.n; g++)
        assert_int_equal(games.rows[g].n, 14);
    /* rows of moves.csv per game: one builder and one painter row per insertion */
    for (int g = 1; g < games.n; g++) {
        int rows = 0, painter_rows = 0;
        for (int m = 1; m < moves.n; m++)
            if (strcmp(csv_str(&moves, m, "k"), csv_str(&games, g, "k")) == 0 &&
                strcmp(csv_str(&moves, m, "builder"), csv_str(&games, g, "builder")) == 0 &&
                strcmp(csv_str(&moves, m, "painter"), csv_str(&games, g, "painter")) == 0 &&
                strcmp(csv_str(&moves, m, "game"), csv_str(&games, g, "game")) == 0) {
                rows++;
                painter_rows += strcmp(csv_str(&moves, m, "role"), "painter") == 0;
            }
        int insertions = csv_int(&games, g, "length") - 1;
        assert_int_equal(painter_rows, insertions);
        assert_int_equal(rows, 2 * insertions);
    }
    assert_int_equal(replay_all(&games, &moves, 25), 24);
    assert_well_formed_svg(svg);
    assert_non_null(strstr(svg, "builder nested:1, k=5"));
    assert_non_null(strstr(svg, "painter greedy, k=4"));
    free(games.rows);
    free(moves.rows);
    free(table);
    free(gt);
    free(mt);
    free(svg);
    run_free(&r);
    tmpdir_remove(&t);
}

/* Drops the named columns from every row, so that runs can be compared without times. */
static void blank_columns(csv *c, const char *const *names, int n)
{
    for (int i = 0; i < n; i++) {
        int col = csv_col(c, names[i]);
        for (int row = 1; row < c->n; row++)
            c->rows[row].f[col][0] = '\0';
    }
}

static void assert_same_rows(const csv *a, const csv *b)
{
    assert_int_equal(a->n, b->n);
    for (int row = 0; row < a->n; row++) {
        assert_int_equal(a->rows[row].n, b->rows[row].n);
        for (int f = 0; f < a->rows[row].n; f++)
            assert_string_equal(a->rows[row].f[f], b->rows[row].f[f]);
    }
}

typedef struct run_files {
    csv games, moves;
    char *gt, *mt;
} run_files;

static run_files run_to_files(const char *seed, const char *games, const char *threads)
{
    tmpdir t;
    tmpdir_make(&t);
    run_result r = run("arena", "--k", "4", "--builder", "1,2", "--painter", "1,0", "--games",
                       games, "--seed", seed, "--threads", threads, "--out", t.out, NULL);
    assert_status(&r, 0);
    run_files f;
    f.gt = tmpdir_read(&t, "games.csv");
    f.mt = tmpdir_read(&t, "moves.csv");
    f.games = csv_parse(f.gt);
    f.moves = csv_parse(f.mt);
    static const char *const gtimes[] = {"builder_ms", "painter_ms", "total_ms"};
    static const char *const mtimes[] = {"think_ms"};
    blank_columns(&f.games, gtimes, 3);
    blank_columns(&f.moves, mtimes, 1);
    run_free(&r);
    tmpdir_remove(&t);
    return f;
}

static void run_files_free(run_files *f)
{
    free(f->games.rows);
    free(f->moves.rows);
    free(f->gt);
    free(f->mt);
}

/* Nested bots draw their tie-breaks from the seeds, yet the same arguments give the same
 * games, on one thread or two. */
static void test_arena_deterministic_for_any_threads(void **state)
{
    (void)state;
    run_files a = run_to_files("3", "4", "1"), b = run_to_files("3", "4", "2"),
              c = run_to_files("3", "4", "2");
    assert_same_rows(&a.games, &b.games);
    assert_same_rows(&a.moves, &b.moves);
    assert_same_rows(&b.games, &c.games);
    assert_same_rows(&b.moves, &c.moves);
    run_files_free(&a);
    run_files_free(&b);
    run_files_free(&c);
}

/* Game g has game seed S + g: with --seed 4, game 0 is --seed 3's game 1, move by move. */
static void test_arena_game_seed_is_seed_plus_index(void **state)
{
    (void)state;
    run_files a = run_to_files("3", "2", "2"), b = run_to_files("4", "1", "1");
    assert_int_equal(a.games.n, 1 + 4 * 2);
    assert_int_equal(b.games.n, 1 + 4 * 1);
    int matched = 0;
    for (int gb = 1; gb < b.games.n; gb++) {
        assert_int_equal(csv_int(&b.games, gb, "seed"), 4);
        for (int ga = 1; ga < a.games.n; ga++) {
            if (csv_int(&a.games, ga, "game") != 1 ||
                strcmp(csv_str(&a.games, ga, "builder"), csv_str(&b.games, gb, "builder")) != 0 ||
                strcmp(csv_str(&a.games, ga, "painter"), csv_str(&b.games, gb, "painter")) != 0)
                continue;
            assert_int_equal(csv_int(&a.games, ga, "seed"), 4);
            for (int f = 0; f < a.games.rows[ga].n; f++)
                if (strcmp(a.games.rows[0].f[f], "game") != 0)
                    assert_string_equal(a.games.rows[ga].f[f], b.games.rows[gb].f[f]);
            matched++;
        }
    }
    assert_int_equal(matched, 4);
    /* and the moves: a's game-1 rows are b's rows with game 0 */
    int rb = 1;
    for (int ra = 1; ra < a.moves.n; ra++) {
        if (csv_int(&a.moves, ra, "game") != 1)
            continue;
        assert_true(rb < b.moves.n);
        for (int f = 0; f < a.moves.rows[ra].n; f++)
            if (strcmp(a.moves.rows[0].f[f], "game") != 0)
                assert_string_equal(a.moves.rows[ra].f[f], b.moves.rows[rb].f[f]);
        rb++;
    }
    assert_int_equal(rb, b.moves.n);
    run_files_free(&a);
    run_files_free(&b);
}

/* A comma inside a uct spec stays in it; the canonical names are quoted in the CSV. */
static void test_arena_spec_lists_keep_uct_options(void **state)
{
    (void)state;
    tmpdir t;
    tmpdir_make(&t);
    run_result r =
        run("arena", "--k", "3", "--builder", "uct:iterations=40,c=0.7,greedy", "--painter",
            "uct:iterations=30,playout=20,1", "--games", "2", "--json", "--out", t.out, NULL);
    assert_status(&r, 0);
    jval v = json_of(r.out);
    const jval *bs = jget(&v, "builder", J_ARR), *ps = jget(&v, "painter", J_ARR);
    assert_int_equal(bs->n, 2);
    assert_string_equal(bs->items[0].str, "uct:iterations=40,playout=100,c=0.7");
    assert_string_equal(bs->items[1].str, "greedy");
    assert_int_equal(ps->n, 2);
    assert_string_equal(ps->items[0].str, "uct:iterations=30,playout=20,c=1.4142135623730951");
    assert_string_equal(ps->items[1].str, "nested:1");
    assert_int_equal(jget(&v, "cells", J_ARR)->n, 4);
    char *gt = tmpdir_read(&t, "games.csv"), *mt = tmpdir_read(&t, "moves.csv");
    assert_non_null(strstr(gt, "\n3,square,\"uct:iterations=40,playout=100,c=0.7\","));
    csv games = csv_parse(gt), moves = csv_parse(mt);
    assert_string_equal(csv_str(&games, 1, "builder"), "uct:iterations=40,playout=100,c=0.7");
    assert_int_equal(replay_all(&games, &moves, 300), 8);
    free(games.rows);
    free(moves.rows);
    free(gt);
    free(mt);
    jfree(&v);
    run_free(&r);
    tmpdir_remove(&t);
}

static void test_arena_bad_arguments_exit_2(void **state)
{
    (void)state;
    assert_usage_error(run("arena", "--k", "1", NULL), "--k");
    assert_usage_error(run("arena", "--k", "65", NULL), "--k");
    assert_usage_error(run("arena", "--k", "3..", NULL), "bad list");
    assert_usage_error(run("arena", "--k", "5..3", NULL), "'5..3' is an empty range");
    assert_usage_error(run("arena", "--k", "3,,4", NULL), "an empty item");
    assert_usage_error(run("arena", "--k", "x", NULL), "bad list");
    assert_usage_error(run("arena", "--k", "3,3..4", NULL), "3 appears twice");
    assert_usage_error(run("arena", "--builder", "0,nested:12", NULL), "nested:12");
    assert_usage_error(run("arena", "--painter", "bogus", NULL), "bogus");
    assert_usage_error(run("arena", "--painter", "1,", NULL), "--painter");
    assert_usage_error(run("arena", "--builder", "uct:iterations=5,frob=1", NULL), "frob");
    assert_usage_error(run("arena", "--games", "0", NULL), "--games");
    assert_usage_error(run("arena", "--games", "ten", NULL), "--games");
    assert_usage_error(run("arena", "--limit", "0", NULL), "--limit");
    assert_usage_error(run("arena", "--limit", "10001", NULL), "--limit");
    assert_usage_error(run("arena", "--threads", "0", NULL), "--threads");
    assert_usage_error(run("arena", "--threads", "65", NULL), "--threads");
    assert_usage_error(run("arena", "--think-ms", "0", NULL), "--think-ms");
    assert_usage_error(run("arena", "--seed", "-1", NULL), "--seed");
    assert_usage_error(run("arena", "--variant", "triangle", NULL), "triangle");
    assert_usage_error(run("arena", "--bogus", NULL), "unknown option '--bogus'");
    assert_usage_error(run("arena", "extra", NULL), "unexpected argument 'extra'");
    assert_usage_error(run("arena", "--out", NULL), "needs a value");
    assert_usage_error(run("arena", "--k", "5", "--builder", "perfect", NULL),
                       "perfect at k = 5 needs --think-ms T or perfect:depth=D");
}

/* --out under a regular file cannot be created (whoever runs the test, root included):
 * status 1 and a message, before any game is played. */
static void test_arena_unwritable_out_exits_1(void **state)
{
    (void)state;
    tmpdir t;
    tmpdir_make(&t);
    char file[96], below[128];
    snprintf(file, sizeof file, "%s/plain", t.base);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(below, sizeof below, "%s/sub", file);
    assert_failure(run("arena", "--k", "3", "--games", "1", "--out", below, NULL),
                   "cannot create the directory");
    assert_failure(run("arena", "--k", "3", "--games", "1", "--out", file, NULL),
                   "cannot create the directory");
    unlink(file);
    tmpdir_remove(&t);
}

/* Not a terminal: progress lines on stderr ending at 100%, whatever is on stdout. */
static void test_arena_progress_on_stderr(void **state)
{
    (void)state;
    run_result r = run("arena", "--k", "3", "--builder", "0", "--painter", "0", "--games", "20",
                       "--json", NULL);
    assert_status(&r, 0);
    assert_contains(r.err, "100% (20/20 games)");
    assert_contains(r.err, " 50% (10/20 games)");
    assert_true(r.out[0] == '{');
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_help),
        cmocka_unit_test(test_arena_k3_every_game_has_length_5),
        cmocka_unit_test(test_arena_greedy_matches_naive_round),
        cmocka_unit_test(test_arena_json_is_consistent),
        cmocka_unit_test(test_arena_out_writes_four_files),
        cmocka_unit_test(test_arena_deterministic_for_any_threads),
        cmocka_unit_test(test_arena_game_seed_is_seed_plus_index),
        cmocka_unit_test(test_arena_spec_lists_keep_uct_options),
        cmocka_unit_test(test_arena_bad_arguments_exit_2),
        cmocka_unit_test(test_arena_unwritable_out_exits_1),
        cmocka_unit_test(test_arena_progress_on_stderr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
