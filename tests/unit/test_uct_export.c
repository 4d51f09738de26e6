/*
 * test_uct_export.c: the uct bot's tree exports (server/games/thue/bots/uct.c, docs/uct.md): both
 * formats parsed back by small readers here and checked against each other, against the
 * tree's invariants and against the rules (every row's state follows from its parent's by
 * its move); bad arguments.
 */
#include "uct_helpers.h"

/* ---- the binary reader ---- */

typedef struct reader {
    const uint8_t *b;
    size_t n, at;
} reader;

static uint32_t rd_u32(reader *r)
{
    assert_true(r->at + 4 <= r->n);
    const uint8_t *b = r->b + r->at;
    r->at += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static double rd_double(reader *r)
{
    uint64_t lo = rd_u32(r), hi = rd_u32(r), v = lo | hi << 32;
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

static void rd_string(reader *r, char *out, size_t size)
{
    uint32_t n = rd_u32(r);
    assert_true(n < size && r->at + n <= r->n);
    memcpy(out, r->b + r->at, n);
    out[n] = '\0';
    r->at += n;
}

/* node = state, count, then per child: move, visits, visits2, payoff, node. Row `at`
 * (already added, its edge filled) gets the state and count; the subtree follows. */
static void rd_node(reader *r, rows *t, int at)
{
    rd_string(r, t->r[at].state, sizeof t->r[at].state);
    int count = (int)rd_u32(r);
    t->r[at].children = count;
    for (int j = 0; j < count; j++) {
        row *c = rows_add(t);
        rd_string(r, c->move, sizeof c->move);
        c->visits = rd_u32(r);
        c->visits2 = rd_u32(r);
        c->payoff = rd_double(r);
        rd_node(r, t, t->n - 1);
    }
}

static void parse_binary(FILE *f, rows *t)
{
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    rewind(f);
    uint8_t *b = malloc((size_t)size + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)size, f), (size_t)size);
    reader r = {b, (size_t)size, 0};
    strcpy(rows_add(t)->move, "root"); /* the root is written without an edge */
    rd_node(&r, t, 0);
    assert_int_equal(r.at, r.n); /* nothing left over */
    free(b);
}

static void export_case(thue_variant v, int k, const uint8_t *w, int n, thue_role role, int index,
                        uint64_t iterations, const char *root_state)
{
    thue_bot_spec spec = uct_spec(iterations, 40, THUE_UCT_C_DEFAULT);
    thue_position pos = position(v, k, w, n, role, index);
    thue_bot_result r;
    thue_bot_search *s = search(&spec, &pos, 21, 1, NULL, &r);
    FILE *fc = tmpfile(), *fb = tmpfile();
    assert_non_null(fc);
    assert_non_null(fb);
    assert_int_equal(thue_uct_export_tree(s, fc, THUE_TREE_CSV), 0);
    assert_int_equal(thue_uct_export_tree(s, fb, THUE_TREE_BINARY), 0);
    rows c = {0}, b = {0};
    parse_csv(fc, &c);
    parse_binary(fb, &b);
    assert_int_equal(c.n, (int)r.nodes); /* one row per node, root included */
    assert_string_equal(c.r[0].state, root_state);
    assert_true(c.r[0].visits == r.iterations);
    check_tree(&c, k, v, 1);
    check_tree(&b, k, v, 0); /* the binary format has no counters for the root */
    assert_int_equal(b.n, c.n);
    for (int j = 0; j < c.n; j++) {
        assert_string_equal(b.r[j].move, c.r[j].move);
        assert_string_equal(b.r[j].state, c.r[j].state);
        assert_int_equal(b.r[j].children, c.r[j].children);
        if (j == 0)
            continue;
        assert_true(b.r[j].visits == c.r[j].visits);
        assert_true(b.r[j].visits2 == c.r[j].visits2);
        assert_true(b.r[j].payoff - c.r[j].payoff < 5e-7 && c.r[j].payoff - b.r[j].payoff < 5e-7);
    }
    /* the root's visits are the root statistics the move came from */
    double total = 0;
    for (int x = 0; x < s->ncand; x++)
        total += s->part[0].visits[x];
    assert_true(total == (double)c.r[0].visits);
    free(c.r);
    free(b.r);
    fclose(fc);
    fclose(fb);
    thue_bot_search_free(s);
}

static void test_uct_export_formats(void **state)
{
    (void)state;
    uint8_t w[40];
    const uint8_t w4[4] = {0, 1, 0, 2};
    export_case(THUE_SQUARE, 3, w4, 4, THUE_ROLE_BUILDER, 0, 2000, "0102/b");
    export_case(THUE_SQUARE, 3, w4, 4, THUE_ROLE_PAINTER, 2, 500, "0102/p@2");
    export_case(THUE_SQUARE, 3, NULL, 0, THUE_ROLE_BUILDER, 0, 300, "/b");
    make_word(w, 30, 5, THUE_OVERLAP, 8);
    char want[64];
    thue_word tw = {w, 30, 30};
    assert_int_equal(thue_word_format(&tw, THUE_FMT_AUTO, want, sizeof want), 30);
    strcat(want, "/b");
    export_case(THUE_OVERLAP, 5, w, 30, THUE_ROLE_BUILDER, 0, 3000, want);
    /* symbols above 9: the word is written with commas, and the CSV field is quoted */
    make_word(w, 8, 3, THUE_SQUARE, 1);
    for (int j = 0; j < 8; j++)
        w[j] = (uint8_t)(11 - w[j]); /* relabelled: still square-free, symbols 9..11 */
    tw.len = 8;
    int tl = thue_word_format(&tw, THUE_FMT_AUTO, want, sizeof want);
    assert_non_null(strchr(want, ','));
    snprintf(want + tl, sizeof want - (size_t)tl, "/p@3");
    export_case(THUE_SQUARE, 12, w, 8, THUE_ROLE_PAINTER, 3, 1000, want);
}

/* The CSV text of a tiny search, byte for byte: row order and number formats. */
static void test_uct_export_csv_text(void **state)
{
    (void)state;
    const uint8_t w[1] = {0};
    thue_bot_spec spec = uct_spec(3, 100, THUE_UCT_C_DEFAULT);
    thue_position pos = position(THUE_SQUARE, 2, w, 1, THUE_ROLE_PAINTER, 1);
    thue_bot_result r;
    thue_bot_search *s = search(&spec, &pos, 1, 1, NULL, &r);
    /* [0], painter at 1: only 1 is safe ([0,0] is a square); then the builder on [0,1]
     * has 3 positions, and k = 2 square-free words end by length 3 or 4. */
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_CSV), 0);
    rows t = {0};
    parse_csv(f, &t);
    assert_int_equal(t.n, 4);
    assert_string_equal(t.r[0].move, "root");
    assert_string_equal(t.r[0].state, "0/p@1");
    assert_int_equal(t.r[0].children, 1);
    assert_string_equal(t.r[1].move, "s1");
    assert_string_equal(t.r[1].state, "01/b");
    assert_int_equal(t.r[1].visits, 3);
    assert_int_equal(t.r[1].children, 2);
    check_tree(&t, 2, THUE_SQUARE, 1);
    /* the averages are written with six decimals */
    rewind(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(fgets(line, sizeof line, f));
    char *dot = strchr(line, '.');
    assert_non_null(dot);
    assert_true(strspn(dot + 1, "0123456789") == 6);
    free(t.r);
    fclose(f);
    thue_bot_search_free(s);
}

static void test_uct_export_einval(void **state)
{
    (void)state;
    const uint8_t w[3] = {0, 1, 0};
    thue_position pos = position(THUE_SQUARE, 3, w, 3, THUE_ROLE_BUILDER, 0);
    FILE *f = tmpfile();
    assert_non_null(f);
    thue_bot_result r;
    thue_bot_spec greedy = thue_bot_spec_default(THUE_BOT_GREEDY);
    thue_bot_search *s = search(&greedy, &pos, 1, 1, NULL, &r);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_CSV), THUE_EINVAL);
    thue_bot_search_free(s);
    thue_bot_spec nested = thue_bot_spec_default(THUE_BOT_NESTED);
    s = search(&nested, &pos, 1, 1, NULL, &r);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_BINARY), THUE_EINVAL);
    thue_bot_search_free(s);
    /* a uct search that has not run */
    thue_bot_spec spec = uct_spec(100, 100, THUE_UCT_C_DEFAULT);
    int err;
    s = thue_bot_search_new(&spec, &pos, 1, 1, &err);
    assert_non_null(s);
    assert_int_equal(thue_uct_export_tree(s, f, THUE_TREE_CSV), THUE_EINVAL);
    thue_bot_search_run_part(s, 0, NULL);
    assert_int_equal(thue_bot_search_finish(s, &r), 0);
    assert_int_equal(thue_uct_export_tree(s, f, (thue_tree_format)7), THUE_EINVAL);
    assert_int_equal(thue_uct_export_tree(s, NULL, THUE_TREE_CSV), THUE_EINVAL);
    assert_int_equal(thue_uct_export_tree(NULL, f, THUE_TREE_CSV), THUE_EINVAL);
    assert_int_equal(ftell(f), 0); /* nothing written */
    /* a stream that cannot be written */
    FILE *full = fopen("/dev/full", "w");
    if (full != NULL) {
        assert_int_equal(thue_uct_export_tree(s, full, THUE_TREE_CSV), -1);
        clearerr(full);
        assert_int_equal(thue_uct_export_tree(s, full, THUE_TREE_BINARY), -1);
        fclose(full);
    }
    thue_bot_search_free(s);
    fclose(f);
}

/* test_uct_export [FILTER]: a cmocka name pattern. */
int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0])
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uct_export_formats),
        cmocka_unit_test(test_uct_export_csv_text),
        cmocka_unit_test(test_uct_export_einval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
