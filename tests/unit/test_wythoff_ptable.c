/*
 * test_wythoff_ptable.c: the P-positions of generalised Wythoff's game
 * (server/games/wythoff/ptable.c) by the three methods, against references that know
 * only the rules or only integer arithmetic:
 *   - a brute-force P/N labelling of every position up to 60x60 (P iff every move leads
 *     to N) for a = 1..4 and a few larger a: the P-positions with both heaps <= 60 are
 *     exactly the pairs {A_n, B_n} of each method's table;
 *   - the three tables equal each other up to n = 10^6 and the one-n arithmetic query
 *     and the exact 256-bit floor(alpha n) equal the tables;
 *   - the source's Table 3 (a = 2, n = 10 * 2^k up to 6.3e30): exactly where it prints
 *     integers (A up to n = 655360, B up to n = 163840), and through printf's %g (six
 *     significant digits, the way the source printed its doubles) on every row;
 *   - the arithmetic query against the exact formula at n = 10^k, k = 0..31, a = 1..4
 *     (and a = 1000 up to 10^32);
 *   - the first n where the double algebraic method is wrong, for a = 1..4: wrong there,
 *     right at n - 1, by the exact method; and the scan that finds it agrees; the scan,
 *     which checks exactly only the n whose double products lie near an integer, against
 *     a naive one that checks every n;
 *   - Fraenkel's representations: they sum back, obey the digit rules, and the source's
 *     example R_q(12) = 1000, I_p(1000) = 17 (a = 2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/wythoff/ptable.h"

#define M 60

/* P[x][y] by the definition: (0,0) is P; a position is P iff no move reaches a P. */
static void brute(int a, bool P[M + 1][M + 1])
{
    for (int s = 0; s <= 2 * M; s++)
        for (int x = 0; x <= M; x++) {
            int y = s - x;
            if (y < 0 || y > M)
                continue;
            bool p = true;
            for (int i = 1; i <= x && p; i++)
                if (P[x - i][y])
                    p = false;
            for (int j = 1; j <= y && p; j++)
                if (P[x][y - j])
                    p = false;
            for (int i = 1; i <= x && p; i++)
                for (int j = 1; j <= y && p; j++)
                    if (abs(i - j) < a && P[x - i][y - j])
                        p = false;
            P[x][y] = p;
        }
}

static void check_against_brute(int a)
{
    static bool P[M + 1][M + 1];
    brute(a, P);
    enum { N = M };
    uint64_t A[N + 1], B[N + 1];
    thue_wythoff_cf c;
    assert_int_equal(thue_wythoff_cf_init(&c, a), 0);
    for (int m = 0; m < 3; m++) {
        assert_int_equal(thue_wythoff_table((thue_wythoff_method)m, a, N, A, B), 0);
        static bool T[M + 1][M + 1];
        memset(T, 0, sizeof T);
        for (long n = 0; n <= N; n++)
            if (B[n] <= M)
                T[A[n]][B[n]] = T[B[n]][A[n]] = true;
        for (int x = 0; x <= M; x++)
            for (int y = 0; y <= M; y++)
                if (T[x][y] != P[x][y])
                    fail_msg("a=%d %s: (%d,%d) is %s by brute force", a,
                             thue_wythoff_method_name((thue_wythoff_method)m), x, y,
                             P[x][y] ? "P" : "N");
    }
    /* Every heap size's partner: x is in exactly one pair, as A or as B. */
    for (int x = 0; x <= M; x++) {
        bool is_a;
        thue_u128 other;
        assert_int_equal(thue_wythoff_partner(&c, (thue_u128)x, &is_a, &other), 0);
        int lo = is_a ? x : (int)other, hi = is_a ? (int)other : x;
        assert_true(lo <= hi);
        if (hi <= M)
            assert_true(P[lo][hi]);
        for (int y = 0; y <= M; y++)
            if (P[x][y])
                assert_int_equal(y, (int)other);
    }
}

static void test_ptable_brute_force_60(void **state)
{
    (void)state;
    static const int as[] = {1, 2, 3, 4, 5, 7, 13, 59, 61, 1000};
    for (size_t i = 0; i < sizeof as / sizeof as[0]; i++)
        check_against_brute(as[i]);
}

static void test_ptable_methods_agree(void **state)
{
    (void)state;
    static const int as[] = {1, 2, 3, 4, 5, 10, 1000};
    const long N = 1000000;
    uint64_t *A[3], *B[3];
    for (int m = 0; m < 3; m++) {
        A[m] = malloc((N + 1) * sizeof(uint64_t));
        B[m] = malloc((N + 1) * sizeof(uint64_t));
        assert_non_null(A[m]);
        assert_non_null(B[m]);
    }
    for (size_t i = 0; i < sizeof as / sizeof as[0]; i++) {
        int a = as[i];
        for (int m = 0; m < 3; m++)
            assert_int_equal(thue_wythoff_table((thue_wythoff_method)m, a, N, A[m], B[m]), 0);
        /* The mex table is the definition: check its own promises too. */
        for (long n = 1; n <= N; n++) {
            assert_true(A[0][n] > A[0][n - 1]);
            assert_int_equal(B[0][n] - A[0][n], (uint64_t)a * (uint64_t)n);
        }
        assert_memory_equal(A[0], A[1], (N + 1) * sizeof(uint64_t));
        assert_memory_equal(B[0], B[1], (N + 1) * sizeof(uint64_t));
        assert_memory_equal(A[0], A[2], (N + 1) * sizeof(uint64_t));
        assert_memory_equal(B[0], B[2], (N + 1) * sizeof(uint64_t));
        thue_wythoff_cf c;
        assert_int_equal(thue_wythoff_cf_init(&c, a), 0);
        for (long n = 0; n <= N; n += n < 100000 ? 1 : 997) {
            thue_u128 x, y;
            assert_int_equal(thue_wythoff_pair(&c, (thue_u128)n, &x, &y), 0);
            assert_true(x == A[0][n] && y == B[0][n]);
        }
        for (long n = 0; n <= N; n += n < 20000 ? 1 : 9973)
            assert_true(thue_wythoff_exact_a(a, (thue_u128)n) == A[0][n]);
    }
    for (int m = 0; m < 3; m++) {
        free(A[m]);
        free(B[m]);
    }
}

static void test_ptable_bad_arguments(void **state)
{
    (void)state;
    uint64_t A[4], B[4];
    assert_int_equal(thue_wythoff_table(THUE_WYTHOFF_RECURSIVE, 0, 3, A, B), THUE_EINVAL);
    assert_int_equal(thue_wythoff_table(THUE_WYTHOFF_ALGEBRAIC, THUE_WYTHOFF_A_MAX + 1, 3, A, B),
                     THUE_EINVAL);
    assert_int_equal(thue_wythoff_table(THUE_WYTHOFF_ARITHMETIC, 2, -1, A, B), THUE_EINVAL);
    assert_int_equal(thue_wythoff_table((thue_wythoff_method)3, 2, 3, A, B), THUE_EINVAL);
    assert_int_equal(thue_wythoff_table(THUE_WYTHOFF_ARITHMETIC, 2, 0, A, B), 0);
    assert_true(A[0] == 0 && B[0] == 0);
    thue_wythoff_cf c;
    assert_int_equal(thue_wythoff_cf_init(&c, 0), THUE_EINVAL);
    assert_int_equal(thue_wythoff_cf_init(&c, 1), 0);
    thue_u128 x, y;
    assert_int_equal(thue_wythoff_pair(&c, THUE_WYTHOFF_N_HUGE, &x, &y), 0);
    assert_int_equal(thue_wythoff_pair(&c, THUE_WYTHOFF_N_HUGE + 1, &x, &y), THUE_EINVAL);
    thue_wythoff_rep r;
    assert_int_equal(thue_wythoff_rep_p(&c, ~(thue_u128)0, &r), THUE_EINVAL);
    assert_null(thue_wythoff_method_name((thue_wythoff_method)7));
    char buf[48];
    thue_u128 v;
    assert_int_equal(thue_u128_parse("", 100, &v), THUE_EINVAL);
    assert_int_equal(thue_u128_parse("12x", 100, &v), THUE_EINVAL);
    assert_int_equal(thue_u128_parse("101", 100, &v), THUE_EINVAL);
    assert_int_equal(thue_u128_parse("100", 100, &v), 0);
    assert_string_equal(thue_u128_str(v, buf), "100");
    assert_int_equal(thue_u128_parse("340282366920938463463374607431768211455", ~(thue_u128)0, &v),
                     0);
    assert_string_equal(thue_u128_str(v, buf), "340282366920938463463374607431768211455");
    assert_int_equal(thue_u128_parse("340282366920938463463374607431768211456", ~(thue_u128)0, &v),
                     THUE_EINVAL);
}

/* The source's Table 3: a = 2, n = 10 * 2^k; its figures as printed (C++ streams' six
 * significant digits beyond 10^6). */
static const char *const table3[][3] = {
    {"10", "14", "34"},
    {"20", "28", "68"},
    {"40", "56", "136"},
    {"80", "113", "273"},
    {"160", "226", "546"},
    {"320", "452", "1092"},
    {"640", "905", "2185"},
    {"1280", "1810", "4370"},
    {"2560", "3620", "8740"},
    {"5120", "7240", "17480"},
    {"10240", "14481", "34961"},
    {"20480", "28963", "69923"},
    {"40960", "57926", "139846"},
    {"81920", "115852", "279692"},
    {"163840", "231704", "559384"},
    {"327680", "463409", "1.11877e+06"},
    {"655360", "926819", "2.23754e+06"},
    {"1.31072e+06", "1.85364e+06", "4.47508e+06"},
    {"2.62144e+06", "3.70728e+06", "8.95016e+06"},
    {"5.24288e+06", "7.41455e+06", "1.79003e+07"},
    {"1.04858e+07", "1.48291e+07", "3.58006e+07"},
    {"2.09715e+07", "2.96582e+07", "7.16012e+07"},
    {"4.1943e+07", "5.93164e+07", "1.43202e+08"},
    {"8.38861e+07", "1.18633e+08", "2.86405e+08"},
    {"1.67772e+08", "2.37266e+08", "5.7281e+08"},
    {"3.35544e+08", "4.74531e+08", "1.14562e+09"},
    {"6.71089e+08", "9.49063e+08", "2.29124e+09"},
    {"1.34218e+09", "1.89813e+09", "4.58248e+09"},
    {"2.68435e+09", "3.79625e+09", "9.16496e+09"},
    {"5.36871e+09", "7.5925e+09", "1.83299e+10"},
    {"1.07374e+10", "1.5185e+10", "3.66598e+10"},
    {"2.14748e+10", "3.037e+10", "7.33197e+10"},
    {"4.29497e+10", "6.074e+10", "1.46639e+11"},
    {"8.58993e+10", "1.2148e+11", "2.93279e+11"},
    {"1.71799e+11", "2.4296e+11", "5.86557e+11"},
    {"3.43597e+11", "4.8592e+11", "1.17311e+12"},
    {"6.87195e+11", "9.7184e+11", "2.34623e+12"},
    {"1.37439e+12", "1.94368e+12", "4.69246e+12"},
    {"2.74878e+12", "3.88736e+12", "9.38492e+12"},
    {"5.49756e+12", "7.77472e+12", "1.87698e+13"},
    {"1.09951e+13", "1.55494e+13", "3.75397e+13"},
    {"2.19902e+13", "3.10989e+13", "7.50794e+13"},
    {"4.39805e+13", "6.21978e+13", "1.50159e+14"},
    {"8.79609e+13", "1.24396e+14", "3.00317e+14"},
    {"1.75922e+14", "2.48791e+14", "6.00635e+14"},
    {"3.51844e+14", "4.97582e+14", "1.20127e+15"},
    {"7.03687e+14", "9.95164e+14", "2.40254e+15"},
    {"1.40737e+15", "1.99033e+15", "4.80508e+15"},
    {"2.81475e+15", "3.98066e+15", "9.61016e+15"},
    {"5.6295e+15", "7.96131e+15", "1.92203e+16"},
    {"1.1259e+16", "1.59226e+16", "3.84406e+16"},
    {"2.2518e+16", "3.18453e+16", "7.68813e+16"},
    {"4.5036e+16", "6.36905e+16", "1.53763e+17"},
    {"9.0072e+16", "1.27381e+17", "3.07525e+17"},
    {"1.80144e+17", "2.54762e+17", "6.1505e+17"},
    {"3.60288e+17", "5.09524e+17", "1.2301e+18"},
    {"7.20576e+17", "1.01905e+18", "2.4602e+18"},
    {"1.44115e+18", "2.0381e+18", "4.9204e+18"},
    {"2.8823e+18", "4.07619e+18", "9.8408e+18"},
    {"5.76461e+18", "8.15239e+18", "1.96816e+19"},
    {"1.15292e+19", "1.63048e+19", "3.93632e+19"},
    {"2.30584e+19", "3.26095e+19", "7.87264e+19"},
    {"4.61169e+19", "6.52191e+19", "1.57453e+20"},
    {"9.22337e+19", "1.30438e+20", "3.14906e+20"},
    {"1.84467e+20", "2.60876e+20", "6.29811e+20"},
    {"3.68935e+20", "5.21753e+20", "1.25962e+21"},
    {"7.3787e+20", "1.04351e+21", "2.51924e+21"},
    {"1.47574e+21", "2.08701e+21", "5.03849e+21"},
    {"2.95148e+21", "4.17402e+21", "1.0077e+22"},
    {"5.90296e+21", "8.34804e+21", "2.0154e+22"},
    {"1.18059e+22", "1.66961e+22", "4.03079e+22"},
    {"2.36118e+22", "3.33922e+22", "8.06158e+22"},
    {"4.72237e+22", "6.67843e+22", "1.61232e+23"},
    {"9.44473e+22", "1.33569e+23", "3.22463e+23"},
    {"1.88895e+23", "2.67137e+23", "6.44927e+23"},
    {"3.77789e+23", "5.34275e+23", "1.28985e+24"},
    {"7.55579e+23", "1.06855e+24", "2.57971e+24"},
    {"1.51116e+24", "2.1371e+24", "5.15941e+24"},
    {"3.02231e+24", "4.2742e+24", "1.03188e+25"},
    {"6.04463e+24", "8.5484e+24", "2.06377e+25"},
    {"1.20893e+25", "1.70968e+25", "4.12753e+25"},
    {"2.41785e+25", "3.41936e+25", "8.25506e+25"},
    {"4.8357e+25", "6.83872e+25", "1.65101e+26"},
    {"9.67141e+25", "1.36774e+26", "3.30202e+26"},
    {"1.93428e+26", "2.73549e+26", "6.60405e+26"},
    {"3.86856e+26", "5.47097e+26", "1.32081e+27"},
    {"7.73713e+26", "1.09419e+27", "2.64162e+27"},
    {"1.54743e+27", "2.18839e+27", "5.28324e+27"},
    {"3.09485e+27", "4.37678e+27", "1.05665e+28"},
    {"6.1897e+27", "8.75356e+27", "2.1133e+28"},
    {"1.23794e+28", "1.75071e+28", "4.22659e+28"},
    {"2.47588e+28", "3.50142e+28", "8.45318e+28"},
    {"4.95176e+28", "7.00285e+28", "1.69064e+29"},
    {"9.90352e+28", "1.40057e+29", "3.38127e+29"},
    {"1.9807e+29", "2.80114e+29", "6.76255e+29"},
    {"3.96141e+29", "5.60228e+29", "1.35251e+30"},
    {"7.92282e+29", "1.12046e+30", "2.70502e+30"},
    {"1.58456e+30", "2.24091e+30", "5.41004e+30"},
    {"3.16913e+30", "4.48182e+30", "1.08201e+31"},
    {"6.33825e+30", "8.96364e+30", "2.16401e+31"},
};

static void test_ptable_source_table3(void **state)
{
    (void)state;
    thue_wythoff_cf c;
    assert_int_equal(thue_wythoff_cf_init(&c, 2), 0);
    thue_u128 n = 10;
    int exact_a = 0, exact_b = 0;
    char buf[3][48], dec[48];
    for (size_t i = 0; i < sizeof table3 / sizeof table3[0]; i++, n *= 2) {
        thue_u128 A, B;
        assert_int_equal(thue_wythoff_pair(&c, n, &A, &B), 0);
        assert_true(A == thue_wythoff_exact_a(2, n));
        snprintf(buf[0], sizeof buf[0], "%g", (double)n);
        snprintf(buf[1], sizeof buf[1], "%g", (double)A);
        snprintf(buf[2], sizeof buf[2], "%g", (double)B);
        for (int k = 0; k < 3; k++)
            assert_string_equal(buf[k], table3[i][k]);
        /* Where the source prints every digit, the values are equal as integers. */
        if (strcmp(thue_u128_str(A, dec), table3[i][1]) == 0)
            exact_a++;
        if (strcmp(thue_u128_str(B, dec), table3[i][2]) == 0)
            exact_b++;
    }
    /* n = 10 .. 655360 print A exactly; n = 10 .. 163840 print B exactly. */
    assert_int_equal(exact_a, 17);
    assert_int_equal(exact_b, 15);
    thue_u128 A, B;
    assert_int_equal(thue_wythoff_pair(&c, 10240, &A, &B), 0);
    assert_true(A == 14481 && B == 34961);
    assert_int_equal(thue_wythoff_pair(&c, 80, &A, &B), 0);
    assert_true(A == 113 && B == 273);
}

static void test_ptable_powers_of_ten(void **state)
{
    (void)state;
    static const int as[] = {1, 2, 3, 4, 1000};
    for (size_t i = 0; i < sizeof as / sizeof as[0]; i++) {
        int a = as[i];
        thue_wythoff_cf c;
        assert_int_equal(thue_wythoff_cf_init(&c, a), 0);
        thue_u128 n = 1;
        for (int k = 0; k <= 32; k++, n *= 10) {
            if (k == 32 && a != 1000)
                break;
            thue_u128 A, B, E = thue_wythoff_exact_a(a, n);
            assert_int_equal(thue_wythoff_pair(&c, n, &A, &B), 0);
            char s1[48], s2[48];
            if (A != E)
                fail_msg("a=%d n=10^%d: arithmetic %s, exact %s", a, k, thue_u128_str(A, s1),
                         thue_u128_str(E, s2));
            assert_true(B == E + (thue_u128)a * n);
            /* The partner query maps each member to the other. */
            bool is_a;
            thue_u128 other;
            assert_int_equal(thue_wythoff_partner(&c, A, &is_a, &other), 0);
            assert_true(is_a && other == B);
            assert_int_equal(thue_wythoff_partner(&c, B, &is_a, &other), 0);
            assert_true((!is_a || k == 0) && other == A);
        }
    }
    /* Spot values: Wythoff's golden pairs (a = 1) at 10^31 by hand-checked digits of phi. */
    thue_wythoff_cf c;
    thue_wythoff_cf_init(&c, 1);
    thue_u128 A, B, n = 1;
    for (int k = 0; k < 31; k++)
        n *= 10;
    assert_int_equal(thue_wythoff_pair(&c, n, &A, &B), 0);
    char s[48];
    assert_string_equal(thue_u128_str(A, s), "16180339887498948482045868343656");
    assert_string_equal(thue_u128_str(B, s), "26180339887498948482045868343656");
}

/* The naive scan for the first n in 1..limit where the double algebraic pair is wrong:
 * every n checked in exact integers, A_n = floor(alpha n) by
 *   A < alpha n  <=>  2A + n(a - 2) < n sqrt(a^2 + 4)
 * squared in 128 bits (n <= 2^31 keeps the squares below 2^95). */
static bool below_alpha(int a, uint64_t A, uint64_t n)
{
    __int128 l = (__int128)(2 * A) + (__int128)n * (a - 2);
    if (l < 0)
        return true;
    return (thue_u128)l * (thue_u128)l < (thue_u128)n * n * (thue_u128)((uint64_t)a * a + 4);
}

static uint64_t naive_first_wrong(int a, uint64_t limit)
{
    for (uint64_t n = 1; n <= limit; n++) {
        thue_u128 A, B;
        thue_wythoff_algebraic(a, n, &A, &B);
        if (!below_alpha(a, (uint64_t)A, n) || below_alpha(a, (uint64_t)A + 1, n) ||
            B != A + (thue_u128)a * n)
            return n;
    }
    return 0;
}

/* The scan (ptable.c) checks in exact integers only the n whose double products lie near
 * an integer: it agrees with the naive scan that checks every n, where the double method
 * goes wrong early (a = 6, 16, 200, 700, 999, 1000) and where it stays right (a = 10,
 * 100, 500 up to 2^25), and checks fewer than one n in a hundred. */
static void test_ptable_first_wrong_scan_against_naive(void **state)
{
    (void)state;
    static const int as[] = {6, 16, 200, 700, 999, 1000, 10, 100, 500};
    const uint64_t limit = (uint64_t)1 << 25;
    for (size_t i = 0; i < sizeof as / sizeof as[0]; i++) {
        uint64_t checks = 0;
        uint64_t got = thue_wythoff_first_wrong_ex(as[i], limit, &checks);
        uint64_t want = naive_first_wrong(as[i], limit);
        assert_int_equal(got, want);
        assert_true(checks * 100 < (want ? want : limit));
        print_message("a = %d: first wrong n %llu (0: none up to 2^25), %llu checked exactly\n",
                      as[i], (unsigned long long)got, (unsigned long long)checks);
    }
    /* For a = 1 the scan passes 10^8 values of n and checks few of them exactly. */
    uint64_t checks = 0;
    assert_int_equal(thue_wythoff_first_wrong_ex(1, (uint64_t)1 << 31, &checks), 102334155);
    assert_true(checks * 100 < 102334155);
}

/* The first wrong n of the double algebraic method, found by the scan below; checked here
 * by the exact method on its own. */
static const uint64_t first_wrong[5] = {0, 102334155, 93222358, 55602393, 70711162};

static void test_ptable_algebraic_first_wrong(void **state)
{
    (void)state;
    for (int a = 1; a <= 4; a++) {
        uint64_t n = first_wrong[a];
        thue_u128 A, B, E;
        thue_wythoff_algebraic(a, n, &A, &B);
        E = thue_wythoff_exact_a(a, n);
        assert_false(A == E && B == E + (thue_u128)a * n);
        thue_wythoff_algebraic(a, n - 1, &A, &B);
        E = thue_wythoff_exact_a(a, n - 1);
        assert_true(A == E && B == E + (thue_u128)a * (n - 1));
        /* The long double variant is still right there. */
        thue_wythoff_algebraic_ld(a, n, &A, &B);
        E = thue_wythoff_exact_a(a, n);
        assert_true(A == E && B == E + (thue_u128)a * n);
        /* The scan finds exactly this n (so every smaller n is right). */
        assert_int_equal(thue_wythoff_first_wrong(a, n), n);
    }
}

static void test_ptable_representations(void **state)
{
    (void)state;
    thue_wythoff_cf c;
    assert_int_equal(thue_wythoff_cf_init(&c, 2), 0);
    assert_true(c.p[0] == 1 && c.p[1] == 3 && c.p[2] == 7 && c.p[3] == 17);
    assert_true(c.q[0] == 1 && c.q[1] == 2 && c.q[2] == 5 && c.q[3] == 12);
    thue_wythoff_rep r;
    assert_int_equal(thue_wythoff_rep_q(&c, 12, &r), 0);
    assert_int_equal(r.len, 4);
    assert_true(r.d[3] == 1 && r.d[2] == 0 && r.d[1] == 0 && r.d[0] == 0);
    thue_u128 v;
    assert_int_equal(thue_wythoff_interp_p(&c, &r, 0, &v), 0);
    assert_true(v == 17);
    for (int a = 1; a <= 5; a++) {
        assert_int_equal(thue_wythoff_cf_init(&c, a), 0);
        for (int sys = 0; sys < 2; sys++)
            for (uint64_t x = 0; x <= 20000; x++) {
                int rc = sys == 0 ? thue_wythoff_rep_p(&c, x, &r) : thue_wythoff_rep_q(&c, x, &r);
                assert_int_equal(rc, 0);
                const thue_u128 *w = sys == 0 ? c.p : c.q;
                thue_u128 sum = 0;
                for (int i = 0; i < r.len; i++) {
                    assert_true(r.d[i] <= (uint32_t)a);
                    /* A full digit forces a zero below it (p: from digit 1 on; q: also
                     * digit 0 under a full digit 1, which a = 1's q_0 = q_1 makes). */
                    if (i > 0 && r.d[i] == (uint32_t)a)
                        assert_int_equal(r.d[i - 1], 0);
                    sum += w[i] * r.d[i];
                }
                assert_true(sum == x);
                assert_true(r.len == 0 || r.d[r.len - 1] != 0);
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ptable_brute_force_60),
        cmocka_unit_test(test_ptable_methods_agree),
        cmocka_unit_test(test_ptable_bad_arguments),
        cmocka_unit_test(test_ptable_source_table3),
        cmocka_unit_test(test_ptable_powers_of_ten),
        cmocka_unit_test(test_ptable_algebraic_first_wrong),
        cmocka_unit_test(test_ptable_first_wrong_scan_against_naive),
        cmocka_unit_test(test_ptable_representations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
