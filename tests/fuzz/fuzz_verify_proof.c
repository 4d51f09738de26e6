/*
 * fuzz_verify_proof.c: libFuzzer target for the proof checker (thue_proof_verify).
 *
 * Any bytes are a file to check: the checker must return a status in range, fill the
 * failure or the summary consistently, give the same answer (status and message) on 1
 * and on 3 threads, and, for inputs short enough for it, agree with the naive verifier
 * of tests/unit/proof_gen.c. Seeds: tests/fuzz/proof_seed/ (real proofs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "games/thue/proof/verify.h"
#include "proof_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *file_of(const uint8_t *data, size_t size)
{
    static FILE *f;
    if (f == NULL && (f = tmpfile()) == NULL)
        abort();
    if (ftruncate(fileno(f), 0) != 0)
        abort();
    rewind(f);
    if (fwrite(data, 1, size, f) != size || fflush(f) != 0)
        abort();
    rewind(f);
    return f;
}

static int check(const uint8_t *data, size_t size, int threads, thue_proof_failure *fail)
{
    thue_proof_options opt = {threads, NULL, NULL, threads == 1 ? 0 : 1};
    thue_proof_summary sum;
    int st = thue_proof_verify(file_of(data, size), &opt, &sum, fail);
    if (st < 0 || st > THUE_PROOF_DEAD_END || (st != 0) != (fail->status != 0))
        abort();
    if (st == 0) {
        int64_t total = 0;
        for (int p = 0; p < sum.levels; p++)
            total += sum.counts[p];
        if (sum.root == NULL || total != sum.records ||
            sum.levels != (sum.depth > 1 ? sum.depth - 1 : 0))
            abort();
    } else if (sum.counts != NULL || sum.root != NULL || fail->message[0] == '\0') {
        abort();
    }
    thue_proof_summary_free(&sum);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    thue_proof_failure f1, f3;
    int st1 = check(data, size, 1, &f1);
    int st3 = check(data, size, 3, &f3);
    if (st1 != st3 || strcmp(f1.message, f3.message) != 0)
        abort();
    if (size <= 1024 && pg_naive_verify(data, size) != (st1 == 0))
        abort();
    return 0;
}
