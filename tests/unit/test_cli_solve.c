/*
 * test_cli_solve.c: `thue solve` with --hash and --proof, run as a separate process
 * (cli_run.h): table sizes within the machine's memory, clear errors for bad ones, the
 * proof written to FILE (through FILE.tmp, which must not remain), a clear error for a
 * path that cannot be written (nothing left behind), the same answer with a small
 * table, with threads, and with the default one, and proofs that `thue verify-proof`
 * accepts, at a small fraction of its work limit (THUE_PROOF_WORK_PER_BYTE).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"
#include "games/thue/proof/verify.h"

static void test_hash_bad_values(void **state)
{
    (void)state;
    assert_usage_error(run("solve", "--k", "3", "--hash", "0", NULL), "--hash");
    assert_usage_error(run("solve", "--k", "3", "--hash", "-5", NULL), "--hash");
    assert_usage_error(run("solve", "--k", "3", "--hash", "12abc", NULL), "--hash");
    /* more than any machine's memory */
    assert_usage_error(run("solve", "--k", "3", "--hash", "999999999999", NULL),
                       "the physical memory");
    assert_usage_error(run("solve", "--k", "3", "--hash", "99999999999999999999999", NULL),
                       "--hash");
}

static void test_hash_sizes_agree(void **state)
{
    (void)state;
    const char *sizes[] = {"1", "64", NULL};
    for (int x = 0; x < 3; x++) {
        run_result r = x < 2 ? run("solve", "--k", "3", "--variant", "overlap", "--hash", sizes[x],
                                   "--json", NULL)
                             : run("solve", "--k", "3", "--variant", "overlap", "--threads", "2",
                                   "--hash", "1", "--json", NULL);
        assert_status(&r, 0);
        assert_contains(r.out, "\"value\":10,\"exact\":true");
        /* the table's size and fill are reported on stderr */
        assert_contains(r.err, "table: ");
        assert_contains(r.err, "% full)");
        run_free(&r);
    }
    run_result r = run("solve", "--k", "4", "--hash", "1", NULL);
    assert_contains(r.err, "table: 1 MB, 65536 positions; 1 thread\n");
    run_free(&r);
}

static char *read_all(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)*size + 1);
    assert_int_equal(fread(buf, 1, (size_t)*size, f), (size_t)*size);
    buf[*size] = '\0';
    fclose(f);
    return buf;
}

static void test_proof_written(void **state)
{
    (void)state;
    char dir[] = "/tmp/thue-cli-solve-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], tmp[140];
    snprintf(path, sizeof path, "%s/k4.proof", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    run_result r = run("solve", "--k", "4", "--hash", "1", "--proof", path, NULL);
    assert_status(&r, 0);
    /* "proof: PATH: painter >= 5, R records, B bytes, T ms": B is the file's size, and
     * there is a record per level at least (4 levels) */
    const char *at = strstr(r.out, "painter >= 5, ");
    assert_non_null(at);
    long records = 0, bytes = 0;
    assert_int_equal(sscanf(at, "painter >= 5, %ld records, %ld bytes", &records, &bytes), 2);
    assert_true(records >= 4);
    run_free(&r);
    long size = 0;
    char *buf = read_all(path, &size);
    assert_non_null(buf);
    assert_int_equal(size, bytes);
    const char *head = "thue-proof 1\nvariant square\nk 4\nroot 0\ndepth 5\nlevels 4\nend\n"
                       "level 0 1\n";
    assert_memory_equal(buf, head, strlen(head));
    assert_memory_equal(buf + size - 10, "end-proof\n", 10);
    free(buf);
    assert_int_equal(access(tmp, F_OK), -1); /* renamed into place */
    /* a depth cap: the proof is of the cap; --json reports it */
    r = run("solve", "--k", "5", "--max-depth", "6", "--hash", "1", "--proof", path, "--json",
            NULL);
    assert_status(&r, 0);
    assert_contains(r.out, "\"proof\":{\"depth\":6,\"records\":");
    run_free(&r);
    buf = read_all(path, &size);
    assert_non_null(buf);
    assert_non_null(strstr(buf, "\ndepth 6\nlevels 5\nend\n"));
    free(buf);
    unlink(path);
    rmdir(dir);
}

/* What solve writes, verify-proof (a checker sharing no code with the solver) accepts, and
 * its checks cost at most 1/32 of the work the file's size allows (measured, units per
 * byte: 7, 146, 170 and 139; proofs to depth 17 or 18 of square k=5 and overlap k=4 cost
 * 270). */
static void test_proof_verified(void **state)
{
    (void)state;
    char dir[] = "/tmp/thue-cli-solve-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/p.proof", dir);
    struct {
        const char *word, *k, *variant, *depth, *ok;
    } cases[] = {
        {"0", "4", "square", "0", "proof ok: square k=4 root 0: painter >= 5 (levels 4"},
        {"0", "3", "overlap", "0", "proof ok: overlap k=3 root 0: painter >= 10 (levels 9"},
        {"0120", "5", "square", "8", "proof ok: square k=5 root 0120: painter >= 8 (levels 7"},
        {"01", "4", "overlap", "9", "proof ok: overlap k=4 root 01: painter >= 9 (levels 8"},
    };
    for (size_t x = 0; x < sizeof cases / sizeof cases[0]; x++) {
        run_result r = strcmp(cases[x].depth, "0") == 0
                           ? run("solve", cases[x].word, "--k", cases[x].k, "--variant",
                                 cases[x].variant, "--hash", "4", "--proof", path, NULL)
                           : run("solve", cases[x].word, "--k", cases[x].k, "--variant",
                                 cases[x].variant, "--max-depth", cases[x].depth, "--threads", "2",
                                 "--hash", "4", "--proof", path, NULL);
        assert_status(&r, 0);
        run_free(&r);
        r = run("verify-proof", path, NULL);
        assert_status(&r, 0);
        assert_contains(r.out, cases[x].ok);
        run_free(&r);
        r = run("verify-proof", path, "--json", NULL);
        assert_status(&r, 0);
        const char *at = strstr(r.out, "\"work\":");
        long long work = -1, bytes = -1;
        assert_non_null(at);
        assert_int_equal(sscanf(at, "\"work\":%lld,\"bytes\":%lld}", &work, &bytes), 2);
        print_message("%s k=%s %s: %lld work units, %lld bytes, %.1f per byte\n", cases[x].variant,
                      cases[x].k, cases[x].word, work, bytes, (double)work / (double)bytes);
        assert_true(bytes > 0 && work > 0);
        assert_true(work * 32 <= bytes * THUE_PROOF_WORK_PER_BYTE);
        run_free(&r);
    }
    unlink(path);
    rmdir(dir);
}

static void test_proof_bad_path(void **state)
{
    (void)state;
    run_result r = run("solve", "--k", "4", "--proof", "/nonexistent-dir/x.proof", NULL);
    assert_status(&r, 1);
    assert_contains(r.err, "cannot write the proof file '/nonexistent-dir/x.proof.tmp'");
    assert_int_equal(r.out[0], '\0'); /* fails before the search */
    run_free(&r);
    assert_usage_error(run("solve", "--k", "17", "--proof", "/tmp/x.proof", NULL), "k <= 16");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_bad_values), cmocka_unit_test(test_hash_sizes_agree),
        cmocka_unit_test(test_proof_written),   cmocka_unit_test(test_proof_verified),
        cmocka_unit_test(test_proof_bad_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
