/*
 * cmd_verify_proof.c: `thue verify-proof FILE [--json] [--threads T]`: checks a proof file
 * written by `thue solve --proof FILE` with the independent checker of
 * server/games/thue/proof/ (which shares no code with the solver). One summary line (or a
 * JSON object) and exit 0 when the proof holds; the first failing place and exit 1 when it
 * does not; usage errors exit 2.
 *
 * Only a regular file is opened: a FIFO would block fopen() until a writer appears (and a
 * device could be endless), so the path is checked with stat() first (a device is never
 * opened), then opened non-blocking and checked again on the descriptor (the path may
 * have changed in between), and only then read. The checker bounds the work by the
 * file's size (THUE_PROOF_WORK_PER_BYTE).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "games/thue/proof/verify.h"

/* Files from this size on get one progress line per level on stderr. */
#define PROGRESS_MIN_BYTES (1L << 20)
#define THREADS_MAX 256
#define STR_(x) #x
#define STR(x) STR_(x)
#define WORK_PER_BYTE_TEXT STR(THUE_PROOF_WORK_PER_BYTE)

static const char usage[] =
    "Usage: thue verify-proof FILE [--threads T] [--json]\n"
    "\n"
    "Checks a proof file (thue solve --proof FILE): that in one round from the file's root\n"
    "word, with the builder to move, the painter survives at least the claimed number of\n"
    "insertions, by following the painter's strategy tree the file holds. Nothing in the\n"
    "file is trusted: its header, every record, every painter answer (no square or overlap),\n"
    "every child (recorded in the next level, or with a safe symbol at every position when\n"
    "one insertion remains), the order of the levels and the end of the file are checked.\n"
    "The checker shares no code with the solver that writes proofs.\n"
    "\n"
    "  --threads T   check a level's records on T threads, 1..256 (default: the number of\n"
    "                CPUs); the result does not depend on T\n"
    "  --json        print {\"ok\":true,\"variant\":V,\"k\":K,\"root\":\"DIGITS\",\"depth\":D,\n"
    "                \"levels\":M,\"records\":[N0,N1,...],\"seconds\":S,\"work\":W,\n"
    "                \"bytes\":B}, or on failure {\"ok\":false,\"status\":\"...\",\"level\":P,\n"
    "                \"record\":I,\"position\":J,\"error\":\"...\"} (-1 where a field does\n"
    "                not apply)\n"
    "\n"
    "FILE must be a regular file (a FIFO, a device or a directory is refused at once). The\n"
    "checks may cost at most " WORK_PER_BYTE_TEXT
    " work units (about a nanosecond each) per byte of\n"
    "the file: a proof whose checks would cost more (long words in a small file) is refused\n"
    "before they run (status too_much_work); real proofs cost far less.\n"
    "Files of 1 MiB or more get one progress line per level on stderr (level, records,\n"
    "seconds).\n"
    "Exit status: 0 the proof holds, 1 it does not (or the file cannot be read), 2 bad\n"
    "arguments.\n";

static const char *status_name(thue_proof_status st)
{
    switch (st) {
    case THUE_PROOF_OK:
        return "ok";
    case THUE_PROOF_IO:
        return "io";
    case THUE_PROOF_NOMEM:
        return "out_of_memory";
    case THUE_PROOF_HEADER:
        return "bad_header";
    case THUE_PROOF_ROOT:
        return "bad_root";
    case THUE_PROOF_TOO_BIG:
        return "too_big";
    case THUE_PROOF_LEVEL_LINE:
        return "bad_level_line";
    case THUE_PROOF_TRUNCATED:
        return "truncated";
    case THUE_PROOF_TRAILER:
        return "bad_trailer";
    case THUE_PROOF_SYMBOL:
        return "bad_symbol";
    case THUE_PROOF_NOT_CANONICAL:
        return "not_canonical";
    case THUE_PROOF_UNSORTED:
        return "unsorted";
    case THUE_PROOF_DUPLICATE:
        return "duplicate";
    case THUE_PROOF_ROOT_RECORD:
        return "bad_root_record";
    case THUE_PROOF_UNREACHABLE:
        return "unreachable";
    case THUE_PROOF_UNSAFE:
        return "unsafe_symbol";
    case THUE_PROOF_MISSING_CHILD:
        return "missing_child";
    case THUE_PROOF_DEAD_END:
        return "dead_end";
    case THUE_PROOF_TOO_MUCH_WORK:
        return "too_much_work";
    }
    return "unknown";
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(void *ctx, int level, int64_t records, double seconds)
{
    (void)ctx;
    fprintf(stderr, "level %d: %lld records, %.3f s\n", level, (long long)records, seconds);
}

/* Opens path for reading if it is a regular file, without ever blocking: NULL after a
 * one-line message on stderr otherwise. *size gets the file's size. */
static FILE *open_regular(const char *path, int64_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "thue verify-proof: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "thue verify-proof: '%s' is not a regular file (%s)\n", path,
                thue_proof_file_kind(st.st_mode));
        return NULL;
    }
    /* O_NONBLOCK: should the path have become a FIFO since stat(), open() returns at once. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "thue verify-proof: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "thue verify-proof: '%s' is not a regular file (%s)\n", path,
                thue_proof_file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    /* Reads of a regular file never block; blocking mode again for stdio all the same. */
    int flags = fcntl(fd, F_GETFL);
    FILE *f = NULL;
    if (flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
        f = fdopen(fd, "rb");
    if (f == NULL) {
        fprintf(stderr, "thue verify-proof: cannot open '%s': %s\n", path, strerror(errno));
        close(fd);
        return NULL;
    }
    *size = (int64_t)st.st_size;
    return f;
}

int cmd_verify_proof(int argc, char **argv)
{
    const char *ttext = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {
        {"threads", 1, &ttext, NULL}, {"json", 0, NULL, &json}, {NULL, 0, NULL, NULL}};
    cli_parse("verify-proof", usage, argc, argv, opts, pos, 1, 1, &np);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int def = cpus < 1 ? 1 : cpus > THREADS_MAX ? THREADS_MAX : (int)cpus;
    int threads = cli_int("verify-proof", "threads", ttext, 1, THREADS_MAX, def);

    int64_t size = 0;
    FILE *f = open_regular(pos[0], &size);
    if (f == NULL)
        return 1;
    thue_proof_options opt = {threads, size >= PROGRESS_MIN_BYTES ? progress : NULL, NULL, 0};
    thue_proof_summary sum;
    thue_proof_failure fail;
    double t0 = now_seconds();
    int st = thue_proof_verify(f, &opt, &sum, &fail);
    double secs = now_seconds() - t0;
    fclose(f);
    if (st != 0) {
        if (json) {
            printf("{\"ok\":false,\"status\":\"%s\",\"level\":%d,\"record\":%lld,\"position\":%d,"
                   "\"error\":",
                   status_name(fail.status), fail.level, (long long)fail.record, fail.position);
            cli_json_string(stdout, fail.message);
            fputs("}\n", stdout);
        }
        if (fail.status == THUE_PROOF_IO || fail.status == THUE_PROOF_NOMEM)
            fprintf(stderr, "thue verify-proof: %s: cannot check it: %s\n", pos[0], fail.message);
        else
            fprintf(stderr, "thue verify-proof: %s: proof rejected: %s\n", pos[0], fail.message);
        return 1;
    }
    if (json) {
        printf("{\"ok\":true,\"variant\":\"%s\",\"k\":%d,\"root\":", thue_variant_name(sum.variant),
               sum.k);
        cli_json_string(stdout, sum.root_len == 0 ? "" : sum.root);
        printf(",\"depth\":%lld,\"levels\":%d,\"records\":[", (long long)sum.depth, sum.levels);
        for (int p = 0; p < sum.levels; p++)
            printf("%s%lld", p ? "," : "", (long long)sum.counts[p]);
        printf("],\"seconds\":%.3f,\"work\":%lld,\"bytes\":%lld}\n", secs, (long long)sum.work,
               (long long)size);
    } else {
        printf("proof ok: %s k=%d root %s: painter >= %lld (levels %d, records %lld)\n",
               thue_variant_name(sum.variant), sum.k, sum.root, (long long)sum.depth, sum.levels,
               (long long)sum.records);
    }
    thue_proof_summary_free(&sum);
    return 0;
}
