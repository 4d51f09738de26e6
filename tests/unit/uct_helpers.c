/*
 * uct_helpers.c: the uct tests' shared helpers (uct_helpers.h).
 */
#include "uct_helpers.h"

/* ---- helpers ----------------------------------------------------------------------- */

uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

/* A clean word of length n over k symbols: depth-first search over appended symbols,
 * each level trying the symbols in a rotated order drawn from the seed. */
void make_word(uint8_t *w, int n, int k, thue_variant v, uint64_t seed)
{
    int start[64], tried[64], len = 0;
    assert_true(n <= 64);
    if (n == 0)
        return;
    start[0] = (int)(lcg(&seed) % (uint64_t)k);
    tried[0] = 0;
    while (len < n) {
        if (tried[len] == k) { /* a dead end: back up */
            assert_true(len > 0);
            len--;
            continue;
        }
        int c = (start[len] + tried[len]++) % k;
        if (thue_check_insert(w, len, v, len, c, NULL) == 0) {
            w[len++] = (uint8_t)c;
            if (len < n) {
                start[len] = (int)(lcg(&seed) % (uint64_t)k);
                tried[len] = 0;
            }
        }
    }
}

thue_bot_spec uct_spec(uint64_t iterations, int playout, double c)
{
    thue_bot_spec s = thue_bot_spec_default(THUE_BOT_UCT);
    s.iterations = iterations;
    s.playout_limit = playout;
    s.exploration = c;
    return s;
}

thue_position position(thue_variant v, int k, const uint8_t *w, int n, thue_role role, int index)
{
    thue_position p = {v, k, w, n, role, index, 0};
    return p;
}

/* A search run part by part on this thread and finished; the caller frees it. */
thue_bot_search *search(const thue_bot_spec *spec, const thue_position *pos, uint64_t seed,
                        int parts, const thue_bot_limits *lim, thue_bot_result *out)
{
    int err = 1;
    thue_bot_search *s = thue_bot_search_new(spec, pos, seed, parts, &err);
    assert_non_null(s);
    assert_int_equal(err, 0);
    for (int p = 0; p < thue_bot_search_parts(s); p++)
        thue_bot_search_run_part(s, p, lim);
    assert_int_equal(thue_bot_search_finish(s, out), 0);
    return s;
}

thue_bot_result move_of(const thue_bot_spec *spec, const thue_position *pos, uint64_t seed,
                        const thue_bot_limits *lim)
{
    thue_bot_result r;
    assert_int_equal(thue_bot_move(spec, pos, lim, seed, &r), 0);
    return r;
}

row *rows_add(rows *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->r = realloc(t->r, (size_t)t->cap * sizeof(row));
        assert_non_null(t->r);
    }
    memset(&t->r[t->n], 0, sizeof(row));
    return &t->r[t->n++];
}

/* The next CSV field of *p into out (quoted fields may hold commas); the delimiter
 * after it ('\n', ',' or '\0') is returned and skipped. */
char csv_field(const char **p, char *out, size_t size)
{
    const char *s = *p;
    size_t n = 0;
    int quoted = *s == '"';
    if (quoted)
        s++;
    while (*s != '\0' && (quoted ? *s != '"' : *s != ',' && *s != '\n')) {
        assert_true(n + 1 < size);
        out[n++] = *s++;
    }
    out[n] = '\0';
    if (quoted) {
        assert_int_equal(*s, '"');
        s++;
    }
    char d = *s;
    if (d != '\0')
        s++;
    *p = s;
    return d;
}

void parse_csv(FILE *f, rows *t)
{
    char line[1024];
    rewind(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "move,visits,visits2,payoff,state,children\n");
    while (fgets(line, sizeof line, f) != NULL) {
        row *x = rows_add(t);
        const char *p = line;
        char num[64];
        assert_int_equal(csv_field(&p, x->move, sizeof x->move), ',');
        assert_int_equal(csv_field(&p, num, sizeof num), ',');
        x->visits = strtoull(num, NULL, 10);
        assert_int_equal(csv_field(&p, num, sizeof num), ',');
        x->visits2 = strtoull(num, NULL, 10);
        assert_int_equal(csv_field(&p, num, sizeof num), ',');
        x->payoff = strtod(num, NULL);
        assert_int_equal(csv_field(&p, x->state, sizeof x->state), ',');
        assert_int_equal(csv_field(&p, num, sizeof num), '\n');
        x->children = atoi(num);
        assert_int_equal(*p, '\0');
    }
}

/* A state name split into the word and the painter's position (-1: builder). */
void split_state(const char *state, thue_word *w, int *at)
{
    const char *slash = strrchr(state, '/');
    assert_non_null(slash);
    char text[256];
    memcpy(text, state, (size_t)(slash - state));
    text[slash - state] = '\0';
    assert_int_equal(thue_word_parse(w, text, NULL), 0);
    if (strcmp(slash, "/b") == 0) {
        *at = -1;
    } else {
        assert_true(strncmp(slash, "/p@", 3) == 0);
        *at = atoi(slash + 3);
    }
}

/* Depth-first order, children counts, visit sums, and each state following from its
 * parent's by the move (p<I>: the builder picks I; s<C>: C is inserted at the parent's
 * position and is safe there). */
void check_tree(const rows *t, int k, thue_variant v, int root_counters)
{
    int *stack = malloc((size_t)t->n * sizeof(int)), *left = malloc((size_t)t->n * sizeof(int));
    unsigned long long *sum = calloc((size_t)t->n, sizeof *sum);
    assert_non_null(stack);
    assert_non_null(left);
    assert_non_null(sum);
    int sp = 0;
    assert_string_equal(t->r[0].move, "root");
    for (int j = 0; j < t->n; j++) {
        const row *x = &t->r[j];
        assert_true(x->visits2 <= x->visits);
        assert_true(x->payoff >= 0 && x->payoff <= 1);
        if (j > 0) {
            while (sp > 0 && left[sp - 1] == 0)
                sp--;
            assert_true(sp > 0);
            int parent = stack[sp - 1];
            left[sp - 1]--;
            sum[parent] += x->visits;
            assert_true(x->visits >= 1);
            thue_word pw, cw;
            thue_word_init(&pw);
            thue_word_init(&cw);
            int pat, cat;
            split_state(t->r[parent].state, &pw, &pat);
            split_state(x->state, &cw, &cat);
            if (pat < 0) {
                assert_true(x->move[0] == 'p');
                assert_int_equal(atoi(x->move + 1), cat);
                assert_in_range(cat, 0, pw.len);
                assert_int_equal(cw.len, pw.len);
                assert_memory_equal(cw.sym, pw.sym, (size_t)pw.len);
            } else {
                assert_true(x->move[0] == 's');
                int c = atoi(x->move + 1);
                assert_in_range(c, 0, k - 1);
                assert_int_equal(cat, -1);
                assert_int_equal(thue_check_insert(pw.sym, pw.len, v, pat, c, NULL), 0);
                assert_int_equal(thue_word_insert(&pw, pat, c), 0);
                assert_int_equal(cw.len, pw.len);
                assert_memory_equal(cw.sym, pw.sym, (size_t)pw.len);
            }
            thue_word_free(&pw);
            thue_word_free(&cw);
        }
        stack[sp] = j;
        left[sp] = x->children;
        sp++;
    }
    for (int j = 0; j < sp; j++)
        assert_int_equal(left[j], 0);
    for (int j = root_counters ? 0 : 1; j < t->n; j++)
        assert_true(sum[j] <= t->r[j].visits);
    if (root_counters)
        assert_true(sum[0] == t->r[0].visits); /* every iteration passes a root child */
    free(stack);
    free(left);
    free(sum);
}
