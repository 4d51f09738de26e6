/*
 * test_verify_proof_fuzz.c: the proof checker against references. The engine's
 * repetition checks (which the checker relies on) against a naive rescan of our own; the
 * checker's canonical form against the format's definition and against the smallest image
 * under every relabelling and reversal; thousands of random mutations of real proofs
 * against the naive verifier of proof_gen.c (same verdict, never a crash, the same answer
 * on 1 and 3 threads); and a level large enough to be split between threads, spoiled in
 * two places, which must name the same (first) place whatever the thread count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/rng.h"
#include "cli_run.h"
#include "games/thue/proof/verify.h"
#include "proof_gen.h"

typedef uint64_t rng_t; /* a SplitMix64 state */

static void rng_seed(rng_t *r, uint64_t seed)
{
    *r = seed;
}

/* Uniform enough below n (n small): the modulo bias is irrelevant here. */
static uint64_t rng_below(rng_t *r, uint64_t n)
{
    return thue_splitmix64(r) % n;
}

static int verify_chunked(const uint8_t *buf, size_t len, int threads, int chunk,
                          thue_proof_failure *fail)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    rewind(f);
    thue_proof_options opt = {threads, NULL, NULL, chunk};
    thue_proof_summary sum;
    int st = thue_proof_verify(f, &opt, &sum, fail);
    fclose(f);
    thue_proof_summary_free(&sum);
    return st;
}

static int verify_buf(const uint8_t *buf, size_t len, int threads, thue_proof_failure *fail)
{
    return verify_chunked(buf, len, threads, 0, fail);
}

/* Every word over k symbols of length n, in turn, in w; returns 0 after the last. */
static int next_word(uint8_t *w, int n, int k)
{
    for (int i = n - 1; i >= 0; i--) {
        if (++w[i] < k)
            return 1;
        w[i] = 0;
    }
    return 0;
}

static void test_engine_matches_naive(void **state)
{
    (void)state;
    static const int maxlen[2] = {13, 9}; /* k = 2, 3 */
    uint8_t w[16], x[17];
    uint64_t safe[17];
    thue_scan *scan = thue_scan_new();
    long clean_words = 0;
    for (int v = 0; v < 2; v++)
        for (int k = 2; k <= 3; k++)
            for (int n = 0; n <= maxlen[k - 2]; n++) {
                memset(w, 0, sizeof w);
                do {
                    int naive = pg_clean(w, n, (thue_variant)v);
                    assert_int_equal(thue_check_word(scan, w, n, (thue_variant)v, NULL) == 0,
                                     naive);
                    if (!naive)
                        continue;
                    clean_words++;
                    assert_int_equal(thue_legal_map(scan, w, n, k, (thue_variant)v, safe), 0);
                    for (int i = 0; i <= n; i++)
                        for (int c = 0; c < k; c++) {
                            memcpy(x, w, (size_t)i);
                            x[i] = (uint8_t)c;
                            memcpy(x + i + 1, w + i, (size_t)(n - i));
                            int ok = pg_clean(x, n + 1, (thue_variant)v);
                            assert_int_equal(
                                thue_check_insert(w, n, (thue_variant)v, i, c, NULL) == 0, ok);
                            assert_int_equal((int)((safe[i] >> c) & 1), ok);
                        }
                } while (next_word(w, n, k));
            }
    thue_scan_free(scan);
    assert_true(clean_words > 1000);
}

static void test_canonical_matches_references(void **state)
{
    (void)state;
    uint8_t w[PG_LEN_MAX], a[PG_LEN_MAX], b[PG_LEN_MAX], c[PG_LEN_MAX];
    for (int k = 2; k <= 4; k++)
        for (int n = 0; n <= 9 - k; n++) {
            memset(w, 0, sizeof w);
            do {
                thue_proof_canonical(w, n, a);
                pg_canonical_spec(w, n, b);
                pg_canonical_perm(w, n, k, c);
                if (n > 0) {
                    assert_memory_equal(a, b, (size_t)n);
                    assert_memory_equal(a, c, (size_t)n);
                }
            } while (next_word(w, n, k));
        }
    /* Long words over 16 symbols, palindromes among them. */
    rng_t rng;
    rng_seed(&rng, 7);
    for (int t = 0; t < 20000; t++) {
        int n = 1 + (int)rng_below(&rng, PG_LEN_MAX);
        int k = 2 + (int)rng_below(&rng, 15);
        for (int i = 0; i < n; i++)
            w[i] = (uint8_t)rng_below(&rng, (uint64_t)k);
        if (t % 4 == 0)
            for (int i = 0; i < n / 2; i++)
                w[n - 1 - i] = w[i];
        thue_proof_canonical(w, n, a);
        pg_canonical_spec(w, n, b);
        assert_memory_equal(a, b, (size_t)n);
    }
}

/* One random change: a byte anywhere, a symbol nibble in the records, a deleted or an
 * inserted byte, or a cut. */
static size_t mutate(uint8_t *buf, size_t len, size_t header, rng_t *rng)
{
    size_t at = (size_t)rng_below(rng, len);
    switch (rng_below(rng, 8)) {
    case 0:
    case 1:
        buf[at] = (uint8_t)rng_below(rng, 256);
        return len;
    case 2:
    case 3:
    case 4: { /* a nibble after the header: symbols stay small, so records keep parsing */
        at = header + (size_t)rng_below(rng, len - header);
        int nib = (int)rng_below(rng, 5);
        buf[at] = rng_below(rng, 2) ? (uint8_t)((buf[at] & 0x0f) | nib << 4)
                                    : (uint8_t)((buf[at] & 0xf0) | nib);
        return len;
    }
    case 5:
        memmove(buf + at, buf + at + 1, len - at - 1);
        return len - 1;
    case 6:
        memmove(buf + at + 1, buf + at, len - at);
        buf[at] = (uint8_t)rng_below(rng, 256);
        return len + 1;
    default:
        return at;
    }
}

static void mutations(const uint8_t *root, int n0, int k, thue_variant v, int depth, int rounds,
                      uint64_t seed, int *passed, int *failed)
{
    pg_proof p;
    assert_int_equal(pg_build(&p, root, n0, k, v, depth), 0);
    size_t len;
    uint8_t *base = pg_serialize(&p, &len);
    size_t header = (size_t)(strstr((char *)base, "end\n") - (char *)base) + 4;
    uint8_t *buf = malloc(len + 8);
    rng_t rng;
    rng_seed(&rng, seed);
    for (int t = 0; t < rounds; t++) {
        memcpy(buf, base, len);
        size_t n = len;
        int times = 1 + (int)rng_below(&rng, 3);
        for (int m = 0; m < times && n > header + 1; m++)
            n = mutate(buf, n, header, &rng);
        thue_proof_failure f1, f3;
        int st1 = verify_buf(buf, n, 1, &f1);
        int st3 = verify_buf(buf, n, 3, &f3);
        assert_true(st1 >= 0 && st1 <= THUE_PROOF_STATUS_MAX);
        assert_int_equal(st1, st3);
        assert_string_equal(f1.message, f3.message);
        /* The work is counted, not timed: the same on any thread count, within the limit
         * (a failure's; test_verify_proof.c compares valid proofs' on 1 and 3 threads). */
        assert_int_equal(f1.work, f3.work);
        assert_true(f1.work <= (int64_t)n * THUE_PROOF_WORK_PER_BYTE);
        int naive = pg_naive_verify(buf, n);
        if (naive != (st1 == 0))
            fail_msg("mutation %d: checker %d (%s), naive verifier %d", t, st1, f1.message, naive);
        if (st1 == 0)
            (*passed)++;
        else
            (*failed)++;
    }
    free(buf);
    free(base);
    pg_free(&p);
}

static void test_mutations_match_naive(void **state)
{
    (void)state;
    static const uint8_t zero[1] = {0};
    int passed = 0, failed = 0;
    mutations(zero, 1, 4, THUE_SQUARE, 5, 1000, 1, &passed, &failed);
    mutations(zero, 1, 3, THUE_OVERLAP, 6, 700, 2, &passed, &failed);
    mutations(zero, 1, 2, THUE_OVERLAP, 3, 300, 3, &passed, &failed);
    print_message("2000 mutations: %d still valid proofs, %d rejected\n", passed, failed);
    assert_int_equal(passed + failed, 2000);
    assert_true(failed > 1000);
    pg_reset();
}

static void test_cli_mutations(void **state)
{
    (void)state;
    static const uint8_t zero[1] = {0};
    pg_proof p;
    assert_int_equal(pg_build(&p, zero, 1, 4, THUE_SQUARE, 5), 0);
    size_t len;
    uint8_t *base = pg_serialize(&p, &len);
    uint8_t *buf = malloc(len + 8);
    char path[] = "/tmp/thue-proof-fuzz-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    rng_t rng;
    rng_seed(&rng, 11);
    for (int t = 0; t < 40; t++) {
        memcpy(buf, base, len);
        size_t n = mutate(buf, len, 0, &rng);
        FILE *f = fopen(path, "wb");
        assert_int_equal(fwrite(buf, 1, n, f), n);
        fclose(f);
        thue_proof_failure fail;
        int st = verify_buf(buf, n, 1, &fail);
        run_result r = run("verify-proof", path, NULL);
        assert_int_equal(r.status, st == 0 ? 0 : 1);
        if (st != 0)
            assert_contains(r.err, fail.message);
        run_free(&r);
    }
    unlink(path);
    free(buf);
    free(base);
    pg_free(&p);
    pg_reset();
}

static void test_threads_same_first_failure(void **state)
{
    (void)state;
    static const uint8_t zero[1] = {0};
    pg_proof p;
    assert_int_equal(pg_build(&p, zero, 1, 3, THUE_OVERLAP, 10), 0);
    int big = 0;
    for (int P = 1; P < p.nlevels; P++)
        if (p.count[P] > p.count[big])
            big = P;
    int n = p.count[big], L = 1 + big;
    assert_true(n > 300); /* more than one chunk of 256 records (510 here) */
    /* Spoil every record from 200 on (its last position with an unsafe symbol). With the
     * default chunks of 256 records a second thread starts at record 256 and can find a
     * failure there before the first thread reaches the first spoiled record (`early`);
     * with chunks of one record the threads take turns over the spoiled ones. Either way
     * `early` is the one to report. */
    int early = -1, spoiled = 0;
    uint8_t x[PG_LEN_MAX];
    for (int j = 200; j < n; j++) {
        pg_record *r = &p.recs[big][j];
        int done = 0;
        for (int i = L; i >= 0 && !done; i--)
            for (int c = 0; c < 3 && !done; c++) {
                memcpy(x, r->w, (size_t)i);
                x[i] = (uint8_t)c;
                memcpy(x + i + 1, r->w + i, (size_t)(L - i));
                if (!pg_clean(x, L + 1, THUE_OVERLAP)) {
                    r->r[i] = (uint8_t)c;
                    done = 1;
                }
            }
        spoiled += done;
        if (done && early < 0)
            early = j; /* a few words have no unsafe symbol anywhere */
    }
    assert_true(early >= 200 && early < 256 && spoiled > 250);
    size_t len;
    uint8_t *buf = pg_serialize(&p, &len);
    thue_proof_failure f1, f;
    assert_int_equal(verify_buf(buf, len, 1, &f1), THUE_PROOF_UNSAFE);
    assert_int_equal(f1.level, big);
    assert_int_equal(f1.record, early);
    for (int threads = 2; threads <= 16; threads++)
        for (int chunk = 0; chunk <= 7; chunk += 7) {
            assert_int_equal(verify_chunked(buf, len, threads % 8 + 1, chunk, &f),
                             THUE_PROOF_UNSAFE);
            assert_string_equal(f.message, f1.message);
        }
    assert_int_equal(verify_chunked(buf, len, 4, 1, &f), THUE_PROOF_UNSAFE);
    assert_string_equal(f.message, f1.message);
    free(buf);
    pg_free(&p);
    pg_reset();
}

/* A proof of 10^5 records over 16 symbols (the greedy painter from a root of length 8):
 * the checker agrees with the builder's counts, on any thread count, and the command, given
 * a file of more than 1 MiB, prints one progress line per level. */
static void test_big_proof_and_progress(void **state)
{
    (void)state;
    static const uint8_t root[8] = {0, 1, 2, 3, 0, 4, 1, 5};
    pg_proof p;
    assert_int_equal(pg_build_greedy(&p, root, 8, 16, THUE_SQUARE, 8), 0);
    size_t len;
    uint8_t *buf = pg_serialize(&p, &len);
    assert_true(len > (1 << 20));
    char path[] = "/tmp/thue-proof-big-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
    long total = 0;
    for (int P = 0; P < p.nlevels; P++)
        total += p.count[P];
    assert_true(total > 100000);
    char want[128];
    snprintf(want, sizeof want,
             "proof ok: square k=16 root 01230415: painter >= 8 (levels 7, records %ld)\n", total);
    run_result r = run("verify-proof", path, "--threads", "2", NULL);
    assert_status(&r, 0);
    assert_string_equal(r.out, want);
    for (int P = 0; P < p.nlevels; P++) {
        char line[64];
        snprintf(line, sizeof line, "level %d: %d records, ", P, p.count[P]);
        assert_contains(r.err, line);
    }
    run_free(&r);
    thue_proof_failure f;
    assert_int_equal(verify_buf(buf, len, 3, &f), 0);
    /* The last record's last answer replaced by a symbol that repeats its neighbour. */
    int P = p.nlevels - 1, L = 8 + P;
    pg_record *last = &p.recs[P][p.count[P] - 1];
    last->r[L] = last->w[L - 1];
    free(buf);
    buf = pg_serialize(&p, &len);
    for (int threads = 1; threads <= 3; threads++) {
        assert_int_equal(verify_buf(buf, len, threads, &f), THUE_PROOF_UNSAFE);
        assert_int_equal(f.level, P);
        assert_int_equal(f.record, p.count[P] - 1);
        assert_int_equal(f.position, L);
    }
    unlink(path);
    free(buf);
    pg_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_matches_naive),
        cmocka_unit_test(test_canonical_matches_references),
        cmocka_unit_test(test_mutations_match_naive),
        cmocka_unit_test(test_cli_mutations),
        cmocka_unit_test(test_threads_same_first_failure),
        cmocka_unit_test(test_big_proof_and_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
