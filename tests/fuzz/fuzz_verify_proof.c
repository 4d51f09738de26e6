/*
 * fuzz_verify_proof.c: libFuzzer target for the proof checker (thue_proof_verify).
 *
 * Any bytes are a file to check: the checker must return a status in range, fill the
 * failure or the summary consistently, count no more work than the limit for the size
 * (THUE_PROOF_WORK_PER_BYTE), give the same answer (status, message and work) on 1 and on
 * 3 threads, and, for inputs small enough for it, agree with the naive verifier of
 * tests/unit/proof_gen.c. That one has no work limit, and its cost grows as about the
 * fifth power of the word length (a valid 680-byte proof from a 300-symbol root took it
 * 2 minutes under the sanitizers), so it is only asked about inputs of at most 1 KiB
 * whose checks cost at most NAIVE_WORK_MAX units (the seeds cost at most 6,641). Seeds:
 * tests/fuzz/proof_seed/ (real proofs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "games/thue/proof/verify.h"
#include "proof_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAIVE_WORK_MAX (1 << 16)

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

static int check(const uint8_t *data, size_t size, int threads, thue_proof_failure *fail,
                 int64_t *work)
{
    thue_proof_options opt = {threads, NULL, NULL, threads == 1 ? 0 : 1};
    thue_proof_summary sum;
    int st = thue_proof_verify(file_of(data, size), &opt, &sum, fail);
    if (st < 0 || st > THUE_PROOF_STATUS_MAX || (st != 0) != (fail->status != 0))
        abort();
    int64_t limit = (int64_t)size * THUE_PROOF_WORK_PER_BYTE;
    *work = st == 0 ? sum.work : fail->work;
    if (*work > limit)
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
    int64_t w1, w3;
    int st1 = check(data, size, 1, &f1, &w1);
    int st3 = check(data, size, 3, &f3, &w3);
    if (st1 != st3 || strcmp(f1.message, f3.message) != 0 || w1 != w3)
        abort();
    if (size <= 1024 && st1 != THUE_PROOF_TOO_MUCH_WORK && w1 <= NAIVE_WORK_MAX &&
        pg_naive_verify(data, size) != (st1 == 0))
        abort();
    return 0;
}
