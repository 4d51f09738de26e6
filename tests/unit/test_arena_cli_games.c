/*
 * test_arena_cli_games.c: the games `thue arena` plays, run as a separate process and
 * checked against the independent replay of arena_helpers.c: k = 3 games, greedy bots
 * against the naive greedy round, consistent JSON, the same games for any thread count,
 * game seeds, uct options in spec lists.
 */
#include "arena_helpers.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_k3_every_game_has_length_5),
        cmocka_unit_test(test_arena_greedy_matches_naive_round),
        cmocka_unit_test(test_arena_json_is_consistent),
        cmocka_unit_test(test_arena_deterministic_for_any_threads),
        cmocka_unit_test(test_arena_game_seed_is_seed_plus_index),
        cmocka_unit_test(test_arena_spec_lists_keep_uct_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
