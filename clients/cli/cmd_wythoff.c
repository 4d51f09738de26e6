/*
 * cmd_wythoff.c: `thue wythoff`: the P-table of generalised Wythoff's game by the three
 * methods of server/games/wythoff/ptable.h, timed, checked against each other, and the
 * pairs at n = 10^k in exact 128-bit integers beside the double algebraic method's
 * (docs/games.md, "Wythoff's game", reproduces the source's tables with it); and the
 * perfect move at any heaps up to 10^32.
 *
 * The table sizes are the caller's: each method's table is two arrays of n+1 64-bit
 * numbers, and --method all keeps one more pair to compare against (32 bytes per n).
 * Each method writes into arrays already touched, so the times hold no page faults;
 * they are one run each, on whatever else the machine is doing.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "base/errors.h"
#include "games/wythoff/ptable.h"

static const char usage[] =
    "Usage: thue wythoff [--a A] [--n N] [--method recursive|algebraic|arithmetic|all]\n"
    "                    [--rows R] [--pairs] [--powers K] [--move X,Y] [--json]\n"
    "\n"
    "Generalised Wythoff's game: two heaps; a move takes tokens from one heap, or x and y\n"
    "from both with |x - y| < A. Its P-positions are the pairs (A_n, B_n): A_n the mex of\n"
    "the earlier pairs, B_n = A_n + A*n. Builds the table for n = 0..N by each method,\n"
    "prints the time each took and whether the tables agree, and the table's last rows.\n"
    "\n"
    "  --a A         the game's parameter, 1..1000 (default 1: Wythoff's game)\n"
    "  --n N         the table's last n, 0..100000000 (default 1000)\n"
    "  --method M    recursive (the mex table), algebraic (floor(alpha n) in double),\n"
    "                arithmetic (the continued fraction's p and q numeration systems),\n"
    "                or all (default): each, timed, and compared\n"
    "  --rows R      print the last R rows of the table, 0..1000 (default 10)\n"
    "  --pairs       print every row of the table instead\n"
    "  --powers K    also the pairs at n = 10^1 .. 10^K (K 1..32) in exact integers: the\n"
    "                arithmetic method's, an independent exact floor(alpha n), and the\n"
    "                double algebraic method's with a mark where it is wrong; and the\n"
    "                first n where the double method is wrong (a scan of n <= 2^31 up to\n"
    "                that n, near 10^8 for A = 1..4: a fraction of a second)\n"
    "  --move X,Y    the perfect move at heaps X and Y (each 0..10^32): the tokens to\n"
    "                take from each, or that (X,Y) is a P-position (every move loses).\n"
    "                Alone it prints only that answer ({\"a\":A,\"move\":{...}} with --json);\n"
    "                --n, --method, --rows or --pairs add the table, --powers the powers\n"
    "  --json        print one JSON object (numbers beyond 2^53 as strings)\n"
    "\n"
    "Exit status: 0 success, 1 failure (out of memory), 2 bad arguments.\n";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long parse_n(const char *text)
{
    thue_u128 v;
    if (text == NULL)
        return 1000;
    if (thue_u128_parse(text, (thue_u128)THUE_WYTHOFF_TABLE_MAX, &v) != 0)
        cli_usage_error("wythoff", "--n must be a whole number 0..%ld, got '%s'",
                        THUE_WYTHOFF_TABLE_MAX, text);
    return (long)v;
}

static void parse_move(const char *text, thue_u128 *x, thue_u128 *y)
{
    char buf[100];
    const char *comma = strchr(text, ',');
    size_t len = comma != NULL ? (size_t)(comma - text) : 0;
    if (comma == NULL || len == 0 || len >= sizeof buf)
        cli_usage_error("wythoff", "--move is X,Y (two heap sizes 0..10^32), got '%s'", text);
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (thue_u128_parse(buf, THUE_WYTHOFF_N_HUGE, x) != 0 ||
        thue_u128_parse(comma + 1, THUE_WYTHOFF_N_HUGE, y) != 0)
        cli_usage_error("wythoff", "--move is X,Y (two heap sizes 0..10^32), got '%s'", text);
}

typedef struct run {
    int method;
    double ms;
} run;

/* The pairs at 10^k and the double method's first wrong n; lead as print_move's. */
static void print_powers(int a, int K, bool json, const char *lead)
{
    thue_wythoff_cf c;
    thue_wythoff_cf_init(&c, a);
    thue_u128 n = 1;
    bool first = true;
    int first_k = 0;
    char s[6][48];
    if (!json)
        printf("%spairs at n = 10^k, a = %d (arithmetic and exact: 128-bit integers; algebraic: "
               "floor(alpha n) in double)\n%2s %33s %35s %5s %35s %35s\n",
               lead, a, "k", "A_n", "B_n", "exact", "algebraic A_n", "algebraic B_n");
    else
        fputs(",\"powers\":[", stdout);
    for (int k = 1; k <= K; k++) {
        n *= 10;
        thue_u128 A, B, da, db;
        thue_wythoff_pair(&c, n, &A, &B);
        thue_u128 E = thue_wythoff_exact_a(a, n);
        bool exact_ok = E == A && E + (thue_u128)a * n == B;
        thue_wythoff_algebraic(a, n, &da, &db);
        bool alg_ok = da == A && db == B;
        if (!alg_ok && first_k == 0)
            first_k = k;
        if (json) {
            printf("%s{\"k\":%d,\"n\":\"%s\",\"a_n\":\"%s\",\"b_n\":\"%s\",\"exact_agrees\":%s,"
                   "\"algebraic\":[\"%s\",\"%s\"],\"algebraic_ok\":%s}",
                   first ? "" : ",", k, thue_u128_str(n, s[0]), thue_u128_str(A, s[1]),
                   thue_u128_str(B, s[2]), exact_ok ? "true" : "false", thue_u128_str(da, s[3]),
                   thue_u128_str(db, s[4]), alg_ok ? "true" : "false");
            first = false;
        } else {
            printf("%2d %33s %35s %5s %35s %35s%s\n", k, thue_u128_str(A, s[1]),
                   thue_u128_str(B, s[2]), exact_ok ? "=" : "NO", thue_u128_str(da, s[3]),
                   thue_u128_str(db, s[4]),
                   alg_ok         ? ""
                   : k == first_k ? "  <- double first wrong here"
                                  : "  wrong");
        }
    }
    const uint64_t limit = (uint64_t)1 << 31;
    uint64_t fw = thue_wythoff_first_wrong(a, limit);
    if (json) {
        printf("],\"powers_first_wrong_k\":%d,\"double_first_wrong_n\":%llu", first_k,
               (unsigned long long)fw);
    } else if (fw != 0) {
        thue_u128 da, db;
        thue_wythoff_algebraic(a, fw, &da, &db);
        thue_u128 E = thue_wythoff_exact_a(a, fw);
        printf("the double algebraic method is first wrong at n = %llu: (%s, %s) for the exact "
               "(%s, %s)\n",
               (unsigned long long)fw, thue_u128_str(da, s[0]), thue_u128_str(db, s[1]),
               thue_u128_str(E, s[2]), thue_u128_str(E + (thue_u128)a * fw, s[3]));
    } else {
        printf("the double algebraic method is right for every n <= %llu\n",
               (unsigned long long)limit);
    }
}

/* The move answer; lead is what comes before it (a blank line after the table, or
 * nothing when it is all that is printed). */
static void print_move(int a, const char *text, bool json, const char *lead)
{
    thue_u128 x, y, tx, ty;
    parse_move(text, &x, &y);
    thue_wythoff_cf c;
    thue_wythoff_cf_init(&c, a);
    int w = thue_wythoff_winning_move(&c, x, y, &tx, &ty);
    char s[6][48];
    thue_u128_str(x, s[0]), thue_u128_str(y, s[1]);
    thue_u128_str(tx, s[2]), thue_u128_str(ty, s[3]);
    thue_u128_str(x - tx, s[4]), thue_u128_str(y - ty, s[5]);
    if (json) {
        printf(",\"move\":{\"heaps\":[\"%s\",\"%s\"],\"p_position\":%s", s[0], s[1],
               w == 1 ? "false" : "true");
        if (w == 1)
            printf(",\"take\":[\"%s\",\"%s\"],\"to\":[\"%s\",\"%s\"]", s[2], s[3], s[4], s[5]);
        fputc('}', stdout);
    } else if (w == 1) {
        printf("%sheaps (%s, %s): the player to move wins by taking %s and %s, to the "
               "P-position (%s, %s)\n",
               lead, s[0], s[1], s[2], s[3], s[4], s[5]);
    } else {
        printf("%sheaps (%s, %s): a P-position, the player to move loses against perfect play\n",
               lead, s[0], s[1]);
    }
}

int cmd_wythoff(int argc, char **argv)
{
    const char *atext = NULL, *ntext = NULL, *mtext = NULL, *rtext = NULL, *ptext = NULL,
               *movetext = NULL, *pos[1];
    int json = 0, pairs = 0, np;
    cli_opt opts[] = {
        {"a", 1, &atext, NULL},     {"n", 1, &ntext, NULL},      {"method", 1, &mtext, NULL},
        {"rows", 1, &rtext, NULL},  {"powers", 1, &ptext, NULL}, {"move", 1, &movetext, NULL},
        {"pairs", 0, NULL, &pairs}, {"json", 0, NULL, &json},    {NULL, 0, NULL, NULL}};
    cli_parse("wythoff", usage, argc, argv, opts, pos, 0, 0, &np);
    int a = cli_int("wythoff", "a", atext, 1, THUE_WYTHOFF_A_MAX, 1);
    long N = parse_n(ntext);
    int rows = cli_int("wythoff", "rows", rtext, 0, 1000, 10);
    int K = cli_int("wythoff", "powers", ptext, 1, 32, 0);
    int methods[3], nm = 0;
    if (mtext == NULL || strcmp(mtext, "all") == 0) {
        methods[0] = THUE_WYTHOFF_RECURSIVE, methods[1] = THUE_WYTHOFF_ALGEBRAIC;
        methods[2] = THUE_WYTHOFF_ARITHMETIC, nm = 3;
    } else {
        for (int m = 0; m < 3; m++)
            if (strcmp(mtext, thue_wythoff_method_name((thue_wythoff_method)m)) == 0)
                methods[nm++] = m;
        if (nm == 0)
            cli_usage_error("wythoff",
                            "--method must be recursive, algebraic, arithmetic or all, got '%s'",
                            mtext);
    }
    if (movetext != NULL) {
        thue_u128 x, y;
        parse_move(movetext, &x, &y); /* a usage error before any work */
    }
    /* --move alone answers the move only; a table flag given too brings the table. */
    bool table = movetext == NULL || ntext != NULL || mtext != NULL || rtext != NULL || pairs;
    if (!table) {
        if (json)
            printf("{\"a\":%d", a);
        if (K > 0)
            print_powers(a, K, json, "");
        print_move(a, movetext, json, K > 0 ? "\n" : "");
        if (json)
            puts("}");
        return 0;
    }

    size_t bytes = ((size_t)N + 1) * sizeof(uint64_t);
    uint64_t *A = malloc(bytes), *B = malloc(bytes);
    uint64_t *A2 = nm > 1 ? malloc(bytes) : NULL, *B2 = nm > 1 ? malloc(bytes) : NULL;
    if (A == NULL || B == NULL || (nm > 1 && (A2 == NULL || B2 == NULL))) {
        fprintf(stderr, "thue wythoff: out of memory for a table of %ld rows\n", N + 1);
        free(A), free(B), free(A2), free(B2);
        return 1;
    }
    run runs[3];
    long differ_at = -1;
    int differ_m = -1;
    uint64_t differ_a = 0, differ_b = 0; /* the other table's pair there (A2 is reused) */
    for (int i = 0; i < nm; i++) {
        uint64_t *ta = i == 0 ? A : A2, *tb = i == 0 ? B : B2;
        /* Touch the pages first, so that no method pays the first write's page faults. */
        memset(ta, 0, bytes);
        memset(tb, 0, bytes);
        double t0 = now_ms();
        int err = thue_wythoff_table((thue_wythoff_method)methods[i], a, N, ta, tb);
        runs[i] = (run){methods[i], now_ms() - t0};
        if (err != 0) {
            fprintf(stderr, "thue wythoff: %s\n", thue_strerror(err));
            free(A), free(B), free(A2), free(B2);
            return 1;
        }
        if (i > 0 && differ_at < 0)
            for (long n = 0; n <= N; n++)
                if (ta[n] != A[n] || tb[n] != B[n]) {
                    differ_at = n, differ_m = methods[i];
                    differ_a = ta[n], differ_b = tb[n];
                    break;
                }
    }
    const char *first_name = thue_wythoff_method_name((thue_wythoff_method)methods[0]);
    long from = pairs ? 0 : N + 1 - rows > 0 ? N + 1 - rows : 0;
    if (json) {
        printf("{\"a\":%d,\"n\":%ld,\"runs\":[", a, N);
        for (int i = 0; i < nm; i++)
            printf("%s{\"method\":\"%s\",\"ms\":%.3f}", i ? "," : "",
                   thue_wythoff_method_name((thue_wythoff_method)runs[i].method), runs[i].ms);
        printf("],\"agree\":%s", differ_at < 0 ? "true" : "false");
        if (differ_at >= 0)
            printf(",\"first_difference\":{\"n\":%ld,\"method\":\"%s\",\"%s\":[%llu,%llu],"
                   "\"other\":[%llu,%llu]}",
                   differ_at, thue_wythoff_method_name((thue_wythoff_method)differ_m), first_name,
                   (unsigned long long)A[differ_at], (unsigned long long)B[differ_at],
                   (unsigned long long)differ_a, (unsigned long long)differ_b);
        printf(",\"rows\":[");
        for (long n = from; n <= N; n++)
            printf("%s[%ld,%llu,%llu]", n > from ? "," : "", n, (unsigned long long)A[n],
                   (unsigned long long)B[n]);
        fputc(']', stdout);
    } else {
        printf("Wythoff's game, a = %d: the P-table for n = 0..%ld\n%-11s %12s\n", a, N, "method",
               "ms");
        for (int i = 0; i < nm; i++)
            printf("%-11s %12.3f\n", thue_wythoff_method_name((thue_wythoff_method)runs[i].method),
                   runs[i].ms);
        if (nm > 1 && differ_at < 0)
            printf("the %d tables agree on every n = 0..%ld\n", nm, N);
        else if (nm > 1)
            printf("the %s table differs from the %s table first at n = %ld: (%llu, %llu) "
                   "against (%llu, %llu)\n",
                   thue_wythoff_method_name((thue_wythoff_method)differ_m), first_name, differ_at,
                   (unsigned long long)differ_a, (unsigned long long)differ_b,
                   (unsigned long long)A[differ_at], (unsigned long long)B[differ_at]);
        if (from <= N)
            printf("%12s %14s %14s\n", "n", "A_n", "B_n");
        for (long n = from; n <= N; n++)
            printf("%12ld %14llu %14llu\n", n, (unsigned long long)A[n], (unsigned long long)B[n]);
    }
    free(A), free(B), free(A2), free(B2);
    if (K > 0)
        print_powers(a, K, json, "\n");
    if (movetext != NULL)
        print_move(a, movetext, json, "\n");
    if (json)
        puts("}");
    return 0;
}
