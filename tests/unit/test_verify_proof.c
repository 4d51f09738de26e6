/*
 * test_verify_proof.c: the proof checker (server/games/thue/proof/verify.c) and
 * `thue verify-proof` on real proofs built by the brute-force minimax of proof_gen.c:
 * valid proofs pass at every depth up to the true value, the value itself is confirmed
 * (no strategy one deeper), and each way of spoiling a proof is rejected with the right
 * status, place and message. Only regular files are read: FIFOs, pipes, sockets, devices
 * and directories are refused at once (checked in child processes that an alarm kills, so
 * that a regression fails instead of blocking the tests), and the work is bounded by the
 * file's size (small proofs with long words are refused, by counted work, before their
 * checks run; real proofs stay far below the limit). test_verify_proof_fuzz.c has the
 * random mutations and the cross-checks of the reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"
#include "games/thue/proof/verify.h"
#include "proof_gen.h"

typedef struct game_case {
    thue_variant v;
    int k, value; /* V([0]) */
} game_case;

/* The values the issue states: V from [0]. */
static const game_case cases[] = {
    {THUE_SQUARE, 3, 3}, {THUE_SQUARE, 4, 5}, {THUE_OVERLAP, 3, 10}, {THUE_OVERLAP, 2, 3}};

static const uint8_t zero[1] = {0};

/* ---- helpers ---- */

static int verify_buf(const uint8_t *buf, size_t len, int threads, thue_proof_summary *sum,
                      thue_proof_failure *fail)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    rewind(f);
    thue_proof_options opt = {threads, NULL, NULL, 0};
    int st = thue_proof_verify(f, &opt, sum, fail);
    fclose(f);
    return st;
}

static uint8_t *build(const uint8_t *root, int n0, int k, thue_variant v, int depth, pg_proof *p,
                      size_t *len)
{
    assert_int_equal(pg_build(p, root, n0, k, v, depth), 0);
    return pg_serialize(p, len);
}

/* The file must be rejected with st at (level, record, position), message holding needle. */
static void expect_failure(const uint8_t *buf, size_t len, thue_proof_status st, int level,
                           int64_t record, int position, const char *needle)
{
    thue_proof_summary sum;
    thue_proof_failure fail;
    for (int threads = 1; threads <= 3; threads += 2) {
        int got = verify_buf(buf, len, threads, &sum, &fail);
        if (got != (int)st || fail.level != level || fail.record != record ||
            fail.position != position || strstr(fail.message, needle) == NULL)
            fail_msg("expected status %d at level %d record %lld position %d with '%s'; got %d "
                     "at %d/%lld/%d: %s",
                     st, level, (long long)record, position, needle, got, fail.level,
                     (long long)fail.record, fail.position, fail.message);
        assert_null(sum.counts);
    }
}

/* Replaces the first occurrence of from in the header with to (a new buffer). */
static uint8_t *header_edit(const uint8_t *buf, size_t len, const char *from, const char *to,
                            size_t *outlen)
{
    size_t off = 0, fl = strlen(from), tl = strlen(to);
    while (off + fl <= len && memcmp(buf + off, from, fl) != 0)
        off++;
    assert_true(off + fl <= len);
    uint8_t *out = malloc(len - fl + tl);
    memcpy(out, buf, off);
    memcpy(out + off, to, tl);
    memcpy(out + off + tl, buf + off + fl, len - off - fl);
    *outlen = len - fl + tl;
    return out;
}

static void level_insert(pg_proof *p, int P, int at, const pg_record *r)
{
    pg_record *n = malloc((size_t)(p->count[P] + 1) * sizeof *n);
    memcpy(n, p->recs[P], (size_t)at * sizeof *n);
    n[at] = *r;
    memcpy(n + at + 1, p->recs[P] + at, (size_t)(p->count[P] - at) * sizeof *n);
    free(p->recs[P]);
    p->recs[P] = n;
    p->count[P]++;
}

static void level_delete(pg_proof *p, int P, int at)
{
    memmove(p->recs[P] + at, p->recs[P] + at + 1,
            (size_t)(p->count[P] - at - 1) * sizeof(pg_record));
    p->count[P]--;
}

static void insert_sym(const uint8_t *w, int n, int i, int c, uint8_t *out)
{
    memcpy(out, w, (size_t)i);
    out[i] = (uint8_t)c;
    memcpy(out + i + 1, w + i, (size_t)(n - i));
}

/* ---- the values and valid proofs ---- */

static void test_proof_values(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const game_case *g = &cases[c];
        assert_int_equal(pg_value(zero, 1, g->k, g->v, g->value + 1), g->value);
        /* The empty word: the builder's only move, and any symbol, give [0]. */
        assert_int_equal(pg_value(zero, 0, g->k, g->v, g->value + 2), g->value + 1);
        pg_proof p;
        assert_int_equal(pg_build(&p, zero, 1, g->k, g->v, g->value), 0);
        pg_free(&p);
        /* No strategy one deeper: no file can prove V+1. */
        assert_int_equal(pg_build(&p, zero, 1, g->k, g->v, g->value + 1), -1);
        pg_free(&p);
    }
    pg_reset();
}

static void test_proof_valid_every_depth(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const game_case *g = &cases[c];
        for (int d = 0; d <= g->value; d++) {
            pg_proof p;
            size_t len;
            uint8_t *buf = build(zero, 1, g->k, g->v, d, &p, &len);
            assert_int_equal(pg_naive_verify(buf, len), 1);
            for (int threads = 1; threads <= 4; threads += 3) {
                thue_proof_summary sum;
                thue_proof_failure fail;
                int st = verify_buf(buf, len, threads, &sum, &fail);
                if (st != 0)
                    fail_msg("k=%d %s depth %d: %s", g->k, thue_variant_name(g->v), d,
                             fail.message);
                assert_int_equal(sum.variant, g->v);
                assert_int_equal(sum.k, g->k);
                assert_string_equal(sum.root, "0");
                assert_int_equal(sum.root_len, 1);
                assert_int_equal(sum.depth, d);
                assert_int_equal(sum.levels, p.nlevels);
                int64_t total = 0;
                for (int P = 0; P < p.nlevels; P++) {
                    assert_int_equal(sum.counts[P], p.count[P]);
                    total += p.count[P];
                }
                assert_int_equal(sum.records, total);
                thue_proof_summary_free(&sum);
            }
            pg_free(&p);
            free(buf);
        }
    }
    pg_reset();
}

static void test_proof_valid_roots(void **state)
{
    (void)state;
    pg_proof p;
    size_t len, len2;
    thue_proof_summary sum;
    thue_proof_failure fail;
    /* The empty root word: "root -", level 0 holds the empty word. */
    uint8_t *buf = build(zero, 0, 3, THUE_SQUARE, 4, &p, &len);
    assert_non_null(strstr((char *)buf, "root -\n"));
    assert_int_equal(verify_buf(buf, len, 2, &sum, &fail), 0);
    assert_string_equal(sum.root, "-");
    assert_int_equal(sum.root_len, 0);
    assert_int_equal(sum.records, 1 + 1 + 1);
    thue_proof_summary_free(&sum);
    pg_free(&p);
    free(buf);
    /* A root that is not canonical: its record is canonical(root). */
    const uint8_t root[3] = {2, 1, 0};
    buf = build(root, 3, 4, THUE_SQUARE, 2, &p, &len);
    assert_memory_equal(p.recs[0][0].w, "\0\1\2", 3);
    assert_int_equal(verify_buf(buf, len, 1, &sum, &fail), 0);
    assert_string_equal(sum.root, "210");
    thue_proof_summary_free(&sum);
    /* The same strategy proves the claim for the other roots with that canonical form. */
    uint8_t *buf2 = header_edit(buf, len, "root 210", "root 301", &len2);
    assert_int_equal(verify_buf(buf2, len2, 1, &sum, &fail), 0);
    thue_proof_summary_free(&sum);
    free(buf2);
    /* ... and not for another word of the same length. */
    buf2 = header_edit(buf, len, "root 210", "root 010", &len2);
    expect_failure(buf2, len2, THUE_PROOF_ROOT_RECORD, 0, 0, -1, "not canonical(root) = 010");
    free(buf2);
    pg_free(&p);
    free(buf);
    pg_reset();
}

/* ---- spoiled proofs ---- */

static void test_tamper_unsafe_symbol(void **state)
{
    (void)state;
    pg_proof p;
    size_t len;
    uint8_t *buf = build(zero, 1, 4, THUE_SQUARE, 5, &p, &len);
    free(buf);
    /* Level 1 record 0: the first position where another symbol makes a square. */
    pg_record *r = &p.recs[1][0];
    int L = 2, pos = -1, bad = -1;
    uint8_t x[8];
    for (int i = 0; i <= L && pos < 0; i++)
        for (int c = 0; c < 4 && pos < 0; c++) {
            insert_sym(r->w, L, i, c, x);
            if (!pg_clean(x, L + 1, THUE_SQUARE))
                pos = i, bad = c;
        }
    assert_true(pos >= 0);
    r->r[pos] = (uint8_t)bad;
    buf = pg_serialize(&p, &len);
    assert_int_equal(pg_naive_verify(buf, len), 0);
    char needle[64];
    snprintf(needle, sizeof needle, "position %d: painter symbol %d makes a square", pos, bad);
    expect_failure(buf, len, THUE_PROOF_UNSAFE, 1, 0, pos, needle);
    free(buf);
    pg_free(&p);
    pg_reset();
}

static void test_tamper_missing_child(void **state)
{
    (void)state;
    pg_proof p;
    size_t len;
    uint8_t *buf = build(zero, 1, 4, THUE_SQUARE, 5, &p, &len);
    free(buf);
    /* Remove level 2's last record; the first parent that leads to it must be named. */
    int P = 2, L = 3, gone = p.count[P] - 1;
    uint8_t word[8], x[8], cx[8];
    memcpy(word, p.recs[P][gone].w, (size_t)L);
    level_delete(&p, P, gone);
    int prec = -1, ppos = -1;
    for (int j = 0; j < p.count[P - 1] && prec < 0; j++)
        for (int i = 0; i <= L - 1 && prec < 0; i++) {
            insert_sym(p.recs[P - 1][j].w, L - 1, i, p.recs[P - 1][j].r[i], x);
            pg_canonical_perm(x, L, 4, cx);
            if (memcmp(cx, word, (size_t)L) == 0)
                prec = j, ppos = i;
        }
    assert_true(prec >= 0);
    buf = pg_serialize(&p, &len);
    expect_failure(buf, len, THUE_PROOF_MISSING_CHILD, P - 1, prec, ppos,
                   "has no record in level 2");
    free(buf);
    pg_free(&p);
    pg_reset();
}

static void test_tamper_overclaimed_depth(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const game_case *g = &cases[c];
        int V = g->value;
        pg_proof p;
        size_t len, len2, len3;
        uint8_t *buf = build(zero, 1, g->k, g->v, V, &p, &len);
        char from[40], to[40];
        /* The claim alone: levels no longer match. */
        snprintf(from, sizeof from, "depth %d\n", V);
        snprintf(to, sizeof to, "depth %d\n", V + 1);
        uint8_t *b2 = header_edit(buf, len, from, to, &len2);
        expect_failure(b2, len2, THUE_PROOF_HEADER, -1, -1, -1, "does not match depth");
        /* Claim and levels: the last block is missing. */
        snprintf(from, sizeof from, "levels %d\n", V - 1);
        snprintf(to, sizeof to, "levels %d\n", V);
        uint8_t *b3 = header_edit(b2, len2, from, to, &len3);
        char needle[64];
        snprintf(needle, sizeof needle, "expected the line 'level %d COUNT'", V - 1);
        expect_failure(b3, len3, V >= 2 ? THUE_PROOF_LEVEL_LINE : THUE_PROOF_HEADER, V - 1, -1, -1,
                       needle);
        free(b2);
        free(b3);
        /* The best attempt: the depth-V proof with one more level holding every child of
         * its last level, the painter taking a safe symbol wherever there is one. */
        int last = V - 2, L = 1 + last, nk = 0;
        pg_record *kids = calloc((size_t)p.count[last] * (L + 1), sizeof *kids);
        uint8_t x[PG_LEN_MAX], y[PG_LEN_MAX];
        for (int j = 0; j < p.count[last]; j++)
            for (int i = 0; i <= L; i++) {
                insert_sym(p.recs[last][j].w, L, i, p.recs[last][j].r[i], x);
                pg_canonical_spec(x, L + 1, kids[nk].w);
                int dup = 0;
                for (int q = 0; q < nk; q++)
                    dup |= memcmp(kids[q].w, kids[nk].w, (size_t)L + 1) == 0;
                if (dup)
                    continue;
                for (int ii = 0; ii <= L + 1; ii++)
                    for (int cc = g->k - 1; cc >= 0; cc--) {
                        insert_sym(kids[nk].w, L + 1, ii, cc, y);
                        if (pg_clean(y, L + 2, g->v))
                            kids[nk].r[ii] = (uint8_t)cc;
                    }
                nk++;
            }
        for (int a = 0; a < nk; a++) /* sorted: a few hundred words at most */
            for (int b = a + 1; b < nk; b++)
                if (memcmp(kids[b].w, kids[a].w, (size_t)L + 1) < 0) {
                    pg_record t = kids[a];
                    kids[a] = kids[b];
                    kids[b] = t;
                }
        p.recs[V - 1] = kids;
        p.count[V - 1] = nk;
        p.depth = V + 1;
        p.nlevels = V;
        uint8_t *b4 = pg_serialize(&p, &len2);
        thue_proof_summary sum;
        thue_proof_failure fail;
        int st = verify_buf(b4, len2, 2, &sum, &fail);
        if (st != THUE_PROOF_UNSAFE && st != THUE_PROOF_DEAD_END)
            fail_msg("k=%d %s: claim %d accepted or wrongly rejected (%d): %s", g->k,
                     thue_variant_name(g->v), V + 1, st, fail.message);
        assert_int_equal(fail.level, V - 1);
        assert_int_equal(pg_naive_verify(b4, len2), 0);
        free(b4);
        free(buf);
        pg_free(&p);
    }
    pg_reset();
}

static void test_tamper_level_order(void **state)
{
    (void)state;
    pg_proof p;
    size_t len;
    uint8_t *buf = build(zero, 1, 4, THUE_SQUARE, 5, &p, &len);
    free(buf);
    assert_true(p.count[2] >= 2);
    /* Swapped: record 1 is smaller than record 0. */
    pg_record t = p.recs[2][0];
    p.recs[2][0] = p.recs[2][1];
    p.recs[2][1] = t;
    buf = pg_serialize(&p, &len);
    expect_failure(buf, len, THUE_PROOF_UNSORTED, 2, 1, -1, "the level is not sorted");
    free(buf);
    p.recs[2][1] = p.recs[2][0];
    p.recs[2][0] = t;
    /* A duplicate of record 0 as record 1. */
    level_insert(&p, 2, 1, &p.recs[2][0]);
    buf = pg_serialize(&p, &len);
    expect_failure(buf, len, THUE_PROOF_DUPLICATE, 2, 1, -1, "duplicate record of word");
    free(buf);
    level_delete(&p, 2, 1);
    /* A non-canonical word: record 0 of level 2 relabelled (0 <-> 1). */
    for (int i = 0; i < 3; i++)
        p.recs[2][0].w[i] = p.recs[2][0].w[i] < 2 ? 1 - p.recs[2][0].w[i] : p.recs[2][0].w[i];
    buf = pg_serialize(&p, &len);
    expect_failure(buf, len, THUE_PROOF_NOT_CANONICAL, 2, 0, -1, "is not canonical");
    free(buf);
    pg_free(&p);
    pg_reset();
}

static void test_tamper_unreachable(void **state)
{
    (void)state;
    pg_proof p;
    size_t len;
    uint8_t *buf = build(zero, 1, 3, THUE_OVERLAP, 10, &p, &len);
    free(buf);
    /* The deepest level: a canonical overlap-free word it lacks, with safe answers. */
    int P = p.nlevels - 1, L = 1 + P;
    pg_record extra;
    memset(&extra, 0, sizeof extra);
    int found = 0;
    uint8_t w[PG_LEN_MAX], cw[PG_LEN_MAX], x[PG_LEN_MAX];
    for (long code = 0; !found; code++) {
        long t = code;
        for (int i = L - 1; i >= 0; i--, t /= 3)
            w[i] = (uint8_t)(t % 3);
        assert_true(t == 0); /* the deepest level cannot hold every such word */
        pg_canonical_spec(w, L, cw);
        if (memcmp(w, cw, (size_t)L) != 0 || !pg_clean(w, L, THUE_OVERLAP))
            continue;
        int present = 0;
        for (int j = 0; j < p.count[P]; j++)
            present |= memcmp(p.recs[P][j].w, w, (size_t)L) == 0;
        if (present)
            continue;
        memcpy(extra.w, w, (size_t)L);
        for (int i = 0; i <= L; i++)
            for (int c = 0; c < 3; c++) {
                insert_sym(w, L, i, c, x);
                if (pg_clean(x, L + 1, THUE_OVERLAP))
                    extra.r[i] = (uint8_t)c;
            }
        found = 1;
    }
    int at = 0;
    while (at < p.count[P] && memcmp(p.recs[P][at].w, extra.w, (size_t)L) < 0)
        at++;
    level_insert(&p, P, at, &extra);
    buf = pg_serialize(&p, &len);
    char needle[64];
    snprintf(needle, sizeof needle, "no record of level %d leads to it", P - 1);
    expect_failure(buf, len, THUE_PROOF_UNREACHABLE, P, at, -1, needle);
    free(buf);
    pg_free(&p);
    pg_reset();
}

static void test_tamper_symbols(void **state)
{
    (void)state;
    pg_proof p;
    size_t len;
    uint8_t *buf = build(zero, 1, 4, THUE_SQUARE, 5, &p, &len);
    free(buf);
    p.recs[1][0].r[1] = 4; /* a painter symbol >= k */
    buf = pg_serialize(&p, &len);
    expect_failure(buf, len, THUE_PROOF_SYMBOL, 1, 0, 1, "painter symbol 4 is not below k=4");
    free(buf);
    p.recs[1][0].r[1] = 0;
    p.recs[2][1].w[2] = 15; /* a word symbol >= k */
    buf = pg_serialize(&p, &len);
    expect_failure(buf, len, THUE_PROOF_SYMBOL, 2, 1, -1, "word symbol 15 at offset 2");
    /* The padding nibble: the low half of each record's last byte. */
    free(buf);
    pg_free(&p);
    buf = build(zero, 1, 4, THUE_SQUARE, 3, &p, &len);
    assert_int_equal(buf[len - 11], p.recs[1][0].r[2] << 4); /* level 1's only record ends */
    buf[len - 11] |= 1;
    expect_failure(buf, len, THUE_PROOF_SYMBOL, 1, 0, -1, "padding nibble");
    free(buf);
    pg_free(&p);
    pg_reset();
}

static void test_tamper_file_shape(void **state)
{
    (void)state;
    pg_proof p;
    size_t len, l2;
    uint8_t *buf = build(zero, 1, 4, THUE_SQUARE, 5, &p, &len);
    thue_proof_summary sum;
    thue_proof_failure fail;
    /* Every proper prefix fails, cleanly. */
    for (size_t cut = 0; cut < len; cut++) {
        int st = verify_buf(buf, cut, 1, &sum, &fail);
        if (st != THUE_PROOF_TRUNCATED && st != THUE_PROOF_TOO_BIG)
            fail_msg("cut at %zu: status %d: %s", cut, st, fail.message);
    }
    /* Cut inside the records of level 3: the count claims more bytes than are left. */
    expect_failure(buf, len - 12, THUE_PROOF_TOO_BIG, 3, -1, -1, "bytes left in the file");
    expect_failure(buf, len - 10, THUE_PROOF_TRUNCATED, -1, -1, -1, "before the line 'end-proof'");
    expect_failure(buf, len - 1, THUE_PROOF_TRUNCATED, -1, -1, -1, "before the line 'end-proof'");
    /* Bytes after end-proof. */
    uint8_t *b2 = malloc(len + 3);
    memcpy(b2, buf, len);
    memcpy(b2 + len, "x\n", 2);
    expect_failure(b2, len + 2, THUE_PROOF_TRAILER, -1, -1, -1,
                   "trailing data after 'end-proof' (2 bytes)");
    b2[len] = '\n';
    expect_failure(b2, len + 1, THUE_PROOF_TRAILER, -1, -1, -1,
                   "trailing data after 'end-proof' (1 bytes)");
    memcpy(b2 + len - 10, "end-proof \n", 11);
    expect_failure(b2, len + 1, THUE_PROOF_TRAILER, -1, -1, -1, "expected the line 'end-proof'");
    free(b2);
    /* A count that overflows, a count larger than the file, a wrong level number. */
    static const struct {
        const char *from, *to;
        thue_proof_status st;
        int level;
        const char *needle;
    } edits[] = {
        {"level 1 ", "level 1 999999999999999999", THUE_PROOF_LEVEL_LINE, 1, "'level 1 COUNT'"},
        {"level 2 ", "level 2 99999999999", THUE_PROOF_TOO_BIG, 2, "bytes left in the file"},
        {"level 2 ", "level 2 0", THUE_PROOF_LEVEL_LINE, 2, "'level 2 COUNT'"},
        {"level 2 ", "level 3 ", THUE_PROOF_LEVEL_LINE, 2, "'level 2 COUNT'"},
        {"level 2 ", "level  2 ", THUE_PROOF_LEVEL_LINE, 2, "'level 2 COUNT'"},
    };
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
        b2 = header_edit(buf, len, edits[e].from, edits[e].to, &l2);
        expect_failure(b2, l2, edits[e].st, edits[e].level, -1, -1, edits[e].needle);
        free(b2);
    }
    /* The count of level 2 one too big: its records take the next line's bytes. */
    char from[32], to[32];
    snprintf(from, sizeof from, "level 2 %d\n", p.count[2]);
    snprintf(to, sizeof to, "level 2 %d\n", p.count[2] + 1);
    b2 = header_edit(buf, len, from, to, &l2);
    thue_proof_status st = (thue_proof_status)verify_buf(b2, l2, 1, &sum, &fail);
    assert_true(st == THUE_PROOF_SYMBOL || st == THUE_PROOF_TOO_BIG);
    free(b2);
    free(buf);
    pg_free(&p);
    pg_reset();
}

static void test_tamper_header(void **state)
{
    (void)state;
    pg_proof p;
    size_t len, l2;
    uint8_t *buf = build(zero, 1, 4, THUE_SQUARE, 5, &p, &len);
    static const struct {
        const char *from, *to;
        thue_proof_status st;
        const char *needle;
    } edits[] = {
        {"thue-proof 1\n", "thue-proof 2\n", THUE_PROOF_HEADER, "line 1: expected 'thue-proof 1'"},
        {"thue-proof 1\n", "thue-proof 1\r\n", THUE_PROOF_HEADER, "line 1"},
        {"thue-proof 1\n", "", THUE_PROOF_HEADER, "line 1"},
        {"variant square", "variant cube", THUE_PROOF_HEADER, "line 2"},
        {"variant square", "variant  square", THUE_PROOF_HEADER, "line 2"},
        {"k 4\n", "k 1\n", THUE_PROOF_HEADER, "line 3: expected 'k K with 2 <= K <= 16'"},
        {"k 4\n", "k 17\n", THUE_PROOF_HEADER, "line 3"},
        {"k 4\n", "k 04\n", THUE_PROOF_HEADER, "line 3"},
        {"k 4\n", "k +4\n", THUE_PROOF_HEADER, "line 3"},
        {"k 4\n", "k4\n", THUE_PROOF_HEADER, "line 3"},
        {"root 0\n", "root \n", THUE_PROOF_HEADER, "line 4"},
        {"root 0\n", "root\n", THUE_PROOF_HEADER, "line 4"},
        {"root 0\n", "root 0x\n", THUE_PROOF_HEADER, "line 4"},
        {"root 0\n", "root A\n", THUE_PROOF_HEADER, "line 4"},
        {"root 0\n", "root 4\n", THUE_PROOF_ROOT, "root symbol 4 at offset 0 is not below k=4"},
        {"root 0\n", "root 00\n", THUE_PROOF_ROOT, "the root holds a square"},
        {"depth 5\n", "depth -5\n", THUE_PROOF_HEADER, "line 5"},
        {"depth 5\n", "depth 5.0\n", THUE_PROOF_HEADER, "line 5"},
        {"depth 5\n", "depth 9999999999999999999\n", THUE_PROOF_HEADER, "line 5"},
        {"depth 5\n", "depth 999999999999999999\n", THUE_PROOF_HEADER, "does not match depth"},
        {"levels 4\n", "levels 3\n", THUE_PROOF_HEADER, "levels 3 does not match depth 5"},
        {"end\n", "end \n", THUE_PROOF_HEADER, "line 7: expected 'end'"},
        {"end\n", "", THUE_PROOF_HEADER, "line 7"},
    };
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
        uint8_t *b2 = header_edit(buf, len, edits[e].from, edits[e].to, &l2);
        expect_failure(b2, l2, edits[e].st, -1, -1, -1, edits[e].needle);
        free(b2);
    }
    /* A huge claim with matching levels: more blocks than the file can hold. */
    uint8_t *b2 = header_edit(buf, len, "depth 5\nlevels 4\n",
                              "depth 999999999999999999\nlevels 999999999999999998\n", &l2);
    expect_failure(b2, l2, THUE_PROOF_TOO_BIG, -1, -1, -1, "more than the file's remaining");
    free(b2);
    /* The empty root word in place of [0]: level 0's record is then one byte. */
    b2 = header_edit(buf, len, "root 0\n", "root -\n", &l2);
    thue_proof_summary sum;
    thue_proof_failure fail;
    assert_int_not_equal(verify_buf(b2, l2, 1, &sum, &fail), 0);
    assert_int_equal(fail.level, 0);
    free(b2);
    /* A depth 1 claim checks the root's positions. */
    b2 = header_edit(buf, len, "depth 5\nlevels 4\n", "depth 1\nlevels 0\n", &l2);
    expect_failure(b2, l2, THUE_PROOF_TRAILER, -1, -1, -1, "expected the line 'end-proof'");
    free(b2);
    free(buf);
    pg_free(&p);
    pg_reset();
}

/* ---- the command ---- */

static char *write_temp(const uint8_t *buf, size_t len)
{
    char *path = strdup("/tmp/thue-proof-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
    return path;
}

static void test_cli_verify_proof(void **state)
{
    (void)state;
    pg_proof p;
    size_t len;
    uint8_t *buf = build(zero, 1, 4, THUE_SQUARE, 5, &p, &len);
    char *path = write_temp(buf, len);
    int total = 0;
    for (int P = 0; P < p.nlevels; P++)
        total += p.count[P];
    char want[160];
    snprintf(want, sizeof want,
             "proof ok: square k=4 root 0: painter >= 5 (levels 4, records %d)\n", total);
    assert_output(run("verify-proof", path, NULL), 0, want);
    assert_output(run("verify-proof", path, "--threads", "3", NULL), 0, want);
    run_result r = run("verify-proof", path, "--json", NULL);
    assert_status(&r, 0);
    snprintf(want, sizeof want,
             "{\"ok\":true,\"variant\":\"square\",\"k\":4,\"root\":\"0\",\"depth\":5,\"levels\":4,"
             "\"records\":[%d,%d,%d,%d],\"seconds\":",
             p.count[0], p.count[1], p.count[2], p.count[3]);
    assert_true(strncmp(r.out, want, strlen(want)) == 0);
    run_free(&r);

    /* A spoiled proof: exit 1, the place on stderr; with --json the object too. */
    pg_record t = p.recs[2][0];
    p.recs[2][0] = p.recs[2][1];
    p.recs[2][1] = t;
    free(buf);
    buf = pg_serialize(&p, &len);
    char *bad = write_temp(buf, len);
    r = run("verify-proof", bad, NULL);
    assert_status(&r, 1);
    assert_string_equal(r.out, "");
    assert_contains(r.err, "proof rejected: level 2, record 1");
    assert_contains(r.err, "not sorted");
    run_free(&r);
    r = run("verify-proof", "--json", bad, NULL);
    assert_status(&r, 1);
    assert_contains(r.out, "{\"ok\":false,\"status\":\"unsorted\",\"level\":2,\"record\":1,"
                           "\"position\":-1,\"error\":\"level 2, record 1");
    run_free(&r);

    /* Usage errors and unreadable files. */
    assert_usage_error(run("verify-proof", NULL), "missing argument");
    assert_usage_error(run("verify-proof", path, "--threads", "0", NULL), "--threads");
    assert_usage_error(run("verify-proof", path, "--threads", "x", NULL), "--threads");
    assert_usage_error(run("verify-proof", path, "--depth", "3", NULL), "unknown option");
    assert_usage_error(run("verify-proof", path, path, NULL), "unexpected argument");
    r = run("verify-proof", "/nonexistent/proof", NULL);
    assert_status(&r, 1);
    assert_contains(r.err, "cannot open '/nonexistent/proof'");
    run_free(&r);
    r = run("verify-proof", "/tmp", NULL);
    assert_status(&r, 1);
    assert_contains(r.err, "not a regular file");
    run_free(&r);
    r = run("verify-proof", "--help", NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "Usage: thue verify-proof FILE");
    run_free(&r);
    r = run("--help", NULL);
    assert_contains(r.out, "verify-proof FILE");
    run_free(&r);

    unlink(path);
    unlink(bad);
    free(path);
    free(bad);
    free(buf);
    pg_free(&p);
    pg_reset();
}

/* ---- only regular files ---- */

#define BLOCK_SECONDS 5 /* a refusal is immediate; a check still running then has blocked */

typedef FILE *(*stream_fn)(const char *arg);

/* A FIFO opened for reading and writing: open() does not wait, and a read would block
 * for ever (this process is a writer that never writes). */
static FILE *open_fifo(const char *path)
{
    int fd = open(path, O_RDWR);
    return fd < 0 ? NULL : fdopen(fd, "r");
}

/* The read end of a pipe whose write end stays open: a read would block for ever. */
static FILE *open_pipe(const char *unused)
{
    (void)unused;
    int fds[2];
    return pipe(fds) != 0 ? NULL : fdopen(fds[0], "r");
}

static FILE *open_plain(const char *path)
{
    return fopen(path, "r");
}

/* thue_proof_verify on the stream open_stream(arg), in a child process that SIGALRM kills
 * after BLOCK_SECONDS: it must refuse it at once as "not a regular file (KIND)", having
 * read nothing and counted no work. */
static void expect_stream_refused(stream_fn open_stream, const char *arg, const char *kind)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(BLOCK_SECONDS);
        FILE *f = open_stream(arg);
        if (f == NULL)
            _exit(3);
        char want[96];
        snprintf(want, sizeof want, "not a regular file (%s)", kind);
        thue_proof_summary sum;
        thue_proof_failure fail;
        int st = thue_proof_verify(f, NULL, &sum, &fail);
        _exit(st == THUE_PROOF_IO && fail.status == THUE_PROOF_IO && fail.work == 0 &&
                      sum.counts == NULL && strcmp(fail.message, want) == 0
                  ? 0
                  : 1);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0)
        assert_int_equal(errno, EINTR);
    if (WIFSIGNALED(ws))
        fail_msg("%s (%s): the check was killed by signal %d: it blocked", arg, kind, WTERMSIG(ws));
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
        fail_msg("%s (%s): not refused as not a regular file (child status %d)", arg, kind,
                 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
}

/* A temporary directory holding a FIFO and a socket; paths into dir, fifo and sock. */
static void make_special_files(char *dir, char *fifo, char *sock, size_t cap)
{
    strcpy(dir, "/tmp/thue-proof-special-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, cap, "%s/p.proof", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(sock, cap, "%s/s.proof", dir);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    assert_true(strlen(sock) < sizeof sa.sun_path);
    strcpy(sa.sun_path, sock);
    int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(sfd >= 0);
    assert_int_equal(bind(sfd, (struct sockaddr *)&sa, sizeof sa), 0);
    close(sfd); /* the socket file stays */
}

static void remove_special_files(const char *dir, const char *fifo, const char *sock)
{
    unlink(fifo);
    unlink(sock);
    rmdir(dir);
}

static void test_non_regular_streams_refused(void **state)
{
    (void)state;
    char dir[64], fifo[96], sock[96];
    make_special_files(dir, fifo, sock, sizeof fifo);
    expect_stream_refused(open_fifo, fifo, "a FIFO");
    expect_stream_refused(open_pipe, "a pipe", "a FIFO");
    expect_stream_refused(open_plain, dir, "a directory");
    expect_stream_refused(open_plain, "/dev/zero", "a character device");
    remove_special_files(dir, fifo, sock);
}

static void test_cli_non_regular_refused(void **state)
{
    (void)state;
    char dir[64], fifo[96], sock[96];
    make_special_files(dir, fifo, sock, sizeof fifo);
    const struct {
        const char *path, *kind;
    } files[] = {
        {fifo, "a FIFO"},
        {dir, "a directory"},
        {sock, "a socket"},
        {"/dev/zero", "a character device"},
    };
    for (size_t x = 0; x < sizeof files / sizeof files[0]; x++)
        for (int json = 0; json < 2; json++) {
            const char *args[] = {"verify-proof", files[x].path, json ? "--json" : NULL, NULL};
            int sig = 0;
            run_result r = run_argv_limited(NULL, 0, args, BLOCK_SECONDS, &sig);
            if (sig != 0)
                fail_msg("verify-proof %s (%s): killed by signal %d: it blocked", files[x].path,
                         files[x].kind, sig);
            char want[192];
            snprintf(want, sizeof want, "thue verify-proof: '%s' is not a regular file (%s)\n",
                     files[x].path, files[x].kind);
            assert_status(&r, 1);
            assert_string_equal(r.err, want);
            assert_string_equal(r.out, "");
            run_free(&r);
        }
    remove_special_files(dir, fifo, sock);
}

/* ---- work bounded by the file's size ---- */

static uint8_t *wide(int n0, int depth, size_t *len)
{
    uint8_t *buf = pg_wide_proof(n0, depth, len);
    assert_non_null(buf);
    return buf;
}

/* Every proof of the brute-force builder costs a small fraction of the limit. */
static void test_work_real_proofs_far_below_limit(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const game_case *g = &cases[c];
        pg_proof p;
        size_t len;
        uint8_t *buf = build(zero, 1, g->k, g->v, g->value, &p, &len);
        thue_proof_summary sum, sum3;
        thue_proof_failure fail;
        assert_int_equal(verify_buf(buf, len, 1, &sum, &fail), 0);
        assert_int_equal(verify_buf(buf, len, 3, &sum3, &fail), 0);
        assert_int_equal(sum.work, sum3.work); /* counted, so the same on any thread count */
        assert_true(sum.work > 0);
        /* overlap k=3 (5.6 KB, 10 levels): 146 units per byte */
        if (sum.work * 32 > (int64_t)len * THUE_PROOF_WORK_PER_BYTE)
            fail_msg("k=%d %s: %lld work units for %zu bytes, more than 1/32 of the limit", g->k,
                     thue_variant_name(g->v), (long long)sum.work, len);
        thue_proof_summary_free(&sum);
        thue_proof_summary_free(&sum3);
        pg_free(&p);
        free(buf);
    }
    pg_reset();
}

static void test_work_long_words_refused(void **state)
{
    (void)state;
    thue_proof_summary sum;
    thue_proof_failure fail;
    size_t len;
    /* The generator's small cases are valid for the naive verifier too. */
    for (int depth = 2; depth <= 3; depth++) {
        uint8_t *small = wide(12, depth, &len);
        assert_int_equal(pg_naive_verify(small, len), 1);
        assert_int_equal(verify_buf(small, len, 1, &sum, &fail), 0);
        thue_proof_summary_free(&sum);
        free(small);
    }
    /* A 500-symbol root, depth 2 (1 KB): valid, and within the limit, though at about 8,000
     * units per byte it costs 30 times what real proofs do. */
    uint8_t *buf = wide(500, 2, &len);
    assert_int_equal(verify_buf(buf, len, 2, &sum, &fail), 0);
    assert_int_equal(sum.root_len, 500);
    assert_true(sum.work > (int64_t)len * 4000);
    assert_true(sum.work <= (int64_t)len * THUE_PROOF_WORK_PER_BYTE);
    thue_proof_summary_free(&sum);
    free(buf);
    /* A 1000-symbol root (2 KB): 8 times the work for twice the bytes, past the limit. It
     * is refused before the level's checks run: the work counted is the root's check. */
    buf = wide(1000, 2, &len);
    expect_failure(buf, len, THUE_PROOF_TOO_MUCH_WORK, 0, -1, -1,
                   "level 0: the game checks of 1 record of 1000 symbols would bring the work to ");
    char needle[160];
    snprintf(needle, sizeof needle, "per byte of the %zu bytes checked: more than the limit of %d",
             len, THUE_PROOF_WORK_PER_BYTE);
    expect_failure(buf, len, THUE_PROOF_TOO_MUCH_WORK, 0, -1, -1, needle);
    assert_int_equal(verify_buf(buf, len, 1, &sum, &fail), THUE_PROOF_TOO_MUCH_WORK);
    int64_t root_work = fail.work;
    assert_true(root_work > 0 && root_work < (int64_t)len * THUE_PROOF_WORK_PER_BYTE / 8);
    free(buf);
    /* Depth 3, a 150-symbol root: 151 records of 152 bytes; the total is counted over the
     * root, level 0 and level 1. */
    buf = wide(150, 3, &len);
    assert_int_equal(verify_buf(buf, len, 3, &sum, &fail), 0);
    assert_int_equal(sum.levels, 2);
    assert_true(sum.counts[1] > 100);
    assert_true(sum.work <= (int64_t)len * THUE_PROOF_WORK_PER_BYTE);
    thue_proof_summary_free(&sum);
    free(buf);
    /* Depth 3, a 600-symbol root (360 KB): the root and level 0 are checked (their work is
     * counted), level 1's words are too long for their bytes. */
    buf = wide(600, 3, &len);
    expect_failure(buf, len, THUE_PROOF_TOO_MUCH_WORK, 1, -1, -1, "level 1: the game checks of ");
    assert_int_equal(verify_buf(buf, len, 2, &sum, &fail), THUE_PROOF_TOO_MUCH_WORK);
    assert_true(fail.work > 601 * 601); /* level 0: 601 children searched */
    assert_true(fail.work <= (int64_t)len * THUE_PROOF_WORK_PER_BYTE);
    free(buf);
}

static void test_cli_too_much_work(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = wide(1000, 2, &len);
    char *path = write_temp(buf, len);
    run_result r = run("verify-proof", path, "--json", NULL);
    assert_status(&r, 1);
    assert_contains(r.out, "{\"ok\":false,\"status\":\"too_much_work\",\"level\":0,\"record\":-1,"
                           "\"position\":-1,\"error\":\"level 0: the game checks of 1 record");
    assert_contains(r.err, "proof rejected: level 0: the game checks of 1 record of 1000 symbols");
    assert_contains(r.err, "more than the limit of 16384 per byte");
    run_free(&r);
    /* A valid one reports its work and size. */
    free(buf);
    buf = wide(300, 2, &len);
    unlink(path);
    free(path);
    path = write_temp(buf, len);
    r = run("verify-proof", path, "--json", NULL);
    assert_status(&r, 0);
    long long work = -1, bytes = -1;
    const char *at = strstr(r.out, "\"work\":");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "\"work\":%lld,\"bytes\":%lld}", &work, &bytes), 2);
    assert_int_equal(bytes, (long long)len);
    assert_true(work > 0 && work <= bytes * THUE_PROOF_WORK_PER_BYTE);
    run_free(&r);
    unlink(path);
    free(path);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proof_values),
        cmocka_unit_test(test_proof_valid_every_depth),
        cmocka_unit_test(test_proof_valid_roots),
        cmocka_unit_test(test_tamper_unsafe_symbol),
        cmocka_unit_test(test_tamper_missing_child),
        cmocka_unit_test(test_tamper_overclaimed_depth),
        cmocka_unit_test(test_tamper_level_order),
        cmocka_unit_test(test_tamper_unreachable),
        cmocka_unit_test(test_tamper_symbols),
        cmocka_unit_test(test_tamper_file_shape),
        cmocka_unit_test(test_tamper_header),
        cmocka_unit_test(test_cli_verify_proof),
        cmocka_unit_test(test_non_regular_streams_refused),
        cmocka_unit_test(test_cli_non_regular_refused),
        cmocka_unit_test(test_work_real_proofs_far_below_limit),
        cmocka_unit_test(test_work_long_words_refused),
        cmocka_unit_test(test_cli_too_much_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
