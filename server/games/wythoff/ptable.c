/*
 * ptable.c: the P-positions {A_n, B_n} of generalised Wythoff's game (ptable.h), by the
 * mex recursion, by Beatty's floor(alpha n) in floating point, by Fraenkel's numeration
 * systems in 128-bit integers, and an exact integer reference for floor(alpha n).
 *
 * The continued fraction of alpha. alpha = (2 - a + sqrt(a^2 + 4)) / 2; put
 * t = alpha - 1 = (sqrt(a^2 + 4) - a) / 2. Then 2t + a = sqrt(a^2 + 4), so
 * 4t^2 + 4at + a^2 = a^2 + 4, i.e. t^2 + a t = 1, i.e. t = 1 / (a + t). Since
 * 0 < t < 1 (a^2 < a^2 + 4 < (a + 2)^2), unfolding t = 1/(a + t) = 1/(a + 1/(a + t)) ...
 * gives t = [0; a, a, a, ...] and alpha = 1 + t = [1; a, a, a, ...]: a_0 = 1, a_i = a.
 * Its convergents p_i / q_i satisfy p_{-1} = 1, p_0 = a_0 = 1, p_i = a p_{i-1} + p_{i-2}
 * and q_{-1} = 0, q_0 = 1, q_i = a q_{i-1} + q_{i-2} (a = 2: p = 1, 3, 7, 17, ...;
 * q = 1, 2, 5, 12, ...; a = 1: p = 1, 2, 3, 5, ..., q = 1, 1, 2, 3, ...).
 *
 * Fraenkel's theorem (the source's section 7): write every x >= 0 greedily in the
 * p-system (digit i weighs p_i, take the largest p_i <= x first). Then x is an A_n
 * exactly when its representation ends in an even number of zeros, and its partner is
 * the same digits read one place up (B_n = I_p(R_p(x) shifted left)); x is a B_n when
 * the number of zeros is odd, and A_n is the digits one place down. And for the index:
 * A_n = I_p(R_q(n)) when n's greedy q-representation ends in an even number of zeros,
 * I_p(R_q(n)) - 1 when odd. (a = 1: q_0 = q_1 = 1; the greedy rule takes q_1, so digit 0
 * of a q-representation is always 0, which is the constraint t_i = a_{i+1} => t_{i-1} = 0
 * at i = 1.) The tests check all of it against the mex recursion and the exact floor.
 *
 * Exactness. floor(alpha n) for n >= 1 is the largest A with A < alpha n (alpha n is
 * irrational: a^2 + 4 is never a square for a >= 1). A < alpha n <=> 2A + n(a - 2) <
 * n sqrt(a^2 + 4) <=> (left side negative) or (2A + n(a-2))^2 < n^2 (a^2 + 4): two
 * integers of up to 2^233 for n <= 10^32, compared in a 4-limb type. A binary search over
 * n <= A < 2n (1 < alpha < 2) finds it in about 110 steps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/wythoff/ptable.h"

const char *thue_wythoff_method_name(thue_wythoff_method m)
{
    switch (m) {
    case THUE_WYTHOFF_RECURSIVE:
        return "recursive";
    case THUE_WYTHOFF_ALGEBRAIC:
        return "algebraic";
    case THUE_WYTHOFF_ARITHMETIC:
        return "arithmetic";
    }
    return NULL;
}

/* ---- recursive: the mex table -------------------------------------------------------- */

/* A_n <= 2n (A_n <= n + #{B_i < A_n} <= 2n), so marks above 2N never matter for a mex.
 * The mex only grows (the set only grows), so its pointer never moves back: O(N) in all,
 * where the source rescans from 1 each time (O(N^2)). */
static int table_recursive(int a, long N, uint64_t *A, uint64_t *B)
{
    size_t size = 2 * (size_t)N + 2;
    unsigned char *taken = calloc(size, 1);
    if (taken == NULL)
        return THUE_ENOMEM;
    A[0] = B[0] = 0;
    taken[0] = 1;
    size_t mex = 1;
    for (long n = 1; n <= N; n++) {
        while (taken[mex])
            mex++;
        A[n] = mex;
        B[n] = mex + (uint64_t)a * (uint64_t)n;
        taken[mex] = 1;
        if (B[n] < size)
            taken[B[n]] = 1;
    }
    free(taken);
    return 0;
}

/* ---- algebraic: floor(alpha n) in floating point ------------------------------------- */

static double alpha_d(int a)
{
    return (2.0 - a + sqrt((double)a * a + 4.0)) / 2.0;
}

static long double alpha_ld(int a)
{
    return (2.0L - a + sqrtl((long double)a * a + 4.0L)) / 2.0L;
}

static int table_algebraic(int a, long N, uint64_t *A, uint64_t *B)
{
    double alpha = alpha_d(a), beta = alpha + a;
    A[0] = B[0] = 0;
    for (long n = 1; n <= N; n++) {
        A[n] = (uint64_t)floor(alpha * (double)n);
        B[n] = (uint64_t)floor(beta * (double)n);
    }
    return 0;
}

void thue_wythoff_algebraic(int a, thue_u128 n, thue_u128 *A, thue_u128 *B)
{
    double alpha = alpha_d(a), beta = alpha + a;
    *A = (thue_u128)floor(alpha * (double)n);
    *B = (thue_u128)floor(beta * (double)n);
}

void thue_wythoff_algebraic_ld(int a, thue_u128 n, thue_u128 *A, thue_u128 *B)
{
    long double alpha = alpha_ld(a), beta = alpha + a;
    *A = (thue_u128)floorl(alpha * (long double)n);
    *B = (thue_u128)floorl(beta * (long double)n);
}

/* ---- arithmetic: the p and q numeration systems --------------------------------------- */

int thue_wythoff_cf_init(thue_wythoff_cf *c, int a)
{
    if (a < 1 || a > THUE_WYTHOFF_A_MAX)
        return THUE_EINVAL;
    memset(c, 0, sizeof *c);
    c->a = a;
    /* p_{-1} = 1, p_0 = 1; q_{-1} = 0, q_0 = 1. */
    thue_u128 pm = 1, qm = 0;
    c->p[0] = 1, c->q[0] = 1;
    int n = 1;
    const thue_u128 max = ~(thue_u128)0;
    while (n < THUE_WYTHOFF_DIGITS) {
        thue_u128 p1 = c->p[n - 1], q1 = c->q[n - 1];
        /* p grows faster than q; stop where a*p + p' would overflow. */
        if (p1 > (max - pm) / (thue_u128)a)
            break;
        c->p[n] = (thue_u128)a * p1 + pm;
        c->q[n] = (thue_u128)a * q1 + qm;
        pm = p1, qm = q1;
        n++;
    }
    c->np = n;
    return 0;
}

/* Greedy representation of x over w[0..nw-1] (non-decreasing): the highest index first,
 * so that with a = 1's q_0 = q_1 = 1 digit 0 stays 0. */
static int rep_greedy(const thue_u128 *w, int nw, thue_u128 x, thue_wythoff_rep *r)
{
    memset(r, 0, sizeof *r);
    if (x == 0)
        return 0;
    int k = nw - 1;
    if (x >= w[k])
        return THUE_EINVAL; /* beyond the table: its top digit could be too big */
    while (k > 0 && w[k] > x)
        k--;
    r->len = k + 1;
    for (int i = k; i >= 0; i--) {
        thue_u128 d = x / w[i];
        if (d > 0xffffffffu)
            return THUE_EINVAL;
        r->d[i] = (uint32_t)d;
        x -= d * w[i];
    }
    return 0;
}

int thue_wythoff_rep_p(const thue_wythoff_cf *c, thue_u128 x, thue_wythoff_rep *r)
{
    return rep_greedy(c->p, c->np, x, r);
}

int thue_wythoff_rep_q(const thue_wythoff_cf *c, thue_u128 x, thue_wythoff_rep *r)
{
    return rep_greedy(c->q, c->np, x, r);
}

int thue_wythoff_rep_zeros(const thue_wythoff_rep *r)
{
    int z = 0;
    while (z < r->len && r->d[z] == 0)
        z++;
    return z;
}

int thue_wythoff_interp_p(const thue_wythoff_cf *c, const thue_wythoff_rep *r, int shift,
                          thue_u128 *out)
{
    const thue_u128 max = ~(thue_u128)0;
    thue_u128 s = 0;
    for (int i = 0; i < r->len; i++) {
        if (r->d[i] == 0)
            continue;
        int j = i + shift;
        if (j < 0 || j >= c->np)
            return THUE_EINVAL;
        if (c->p[j] > max / r->d[i])
            return THUE_EINVAL;
        thue_u128 t = c->p[j] * r->d[i];
        if (s > max - t)
            return THUE_EINVAL;
        s += t;
    }
    *out = s;
    return 0;
}

int thue_wythoff_pair(const thue_wythoff_cf *c, thue_u128 n, thue_u128 *A, thue_u128 *B)
{
    if (n > THUE_WYTHOFF_N_HUGE)
        return THUE_EINVAL;
    if (n == 0) {
        *A = *B = 0;
        return 0;
    }
    thue_wythoff_rep r;
    thue_u128 ip, b;
    int err = thue_wythoff_rep_q(c, n, &r);
    if (err == 0)
        err = thue_wythoff_interp_p(c, &r, 0, &ip);
    if (err != 0)
        return err;
    thue_u128 an = ip - (thue_wythoff_rep_zeros(&r) % 2 == 1 ? 1 : 0);
    err = thue_wythoff_rep_p(c, an, &r);
    if (err == 0)
        err = thue_wythoff_interp_p(c, &r, 1, &b);
    if (err != 0)
        return err;
    *A = an, *B = b;
    return 0;
}

int thue_wythoff_partner(const thue_wythoff_cf *c, thue_u128 x, bool *is_a, thue_u128 *other)
{
    thue_wythoff_rep r;
    int err = thue_wythoff_rep_p(c, x, &r);
    if (err != 0)
        return err;
    *is_a = thue_wythoff_rep_zeros(&r) % 2 == 0;
    return thue_wythoff_interp_p(c, &r, *is_a ? 1 : -1, other);
}

int thue_wythoff_winning_move(const thue_wythoff_cf *c, thue_u128 x, thue_u128 y, thue_u128 *tx,
                              thue_u128 *ty)
{
    *tx = *ty = 0;
    if (x > THUE_WYTHOFF_N_HUGE || y > THUE_WYTHOFF_N_HUGE)
        return THUE_EINVAL;
    bool swap = x > y;
    if (swap) {
        thue_u128 t = x;
        x = y, y = t;
    }
    bool is_a;
    thue_u128 other, take_lo = 0, take_hi = 0;
    int err = thue_wythoff_partner(c, x, &is_a, &other);
    if (err != 0)
        return err;
    if (!is_a) {
        take_hi = y - other; /* x = B_m, other = A_m < x <= y */
    } else if (y == other) {
        return 0; /* (A_n, B_n), (0, 0) included */
    } else if (y > other) {
        take_hi = y - other;
    } else {
        thue_u128 m = (y - x) / (thue_u128)c->a, am, bm;
        err = thue_wythoff_pair(c, m, &am, &bm);
        if (err != 0)
            return err;
        take_lo = x - am, take_hi = y - bm;
    }
    *tx = swap ? take_hi : take_lo;
    *ty = swap ? take_lo : take_hi;
    return 1;
}

bool thue_wythoff_exact_is_p(int a, thue_u128 x, thue_u128 y)
{
    if (x > y) {
        thue_u128 t = x;
        x = y, y = t;
    }
    if ((y - x) % (thue_u128)a != 0)
        return false;
    thue_u128 n = (y - x) / (thue_u128)a;
    return thue_wythoff_exact_a(a, n) == x;
}

/* The table: n = digit * q_k + rest with rest < q_k, so n's representation is the top
 * digit over rest's, and I_p(R_q(n)) = digit * p_k + I_p(R_q(rest)); the zeros at the
 * low end are k when rest is 0, rest's otherwise. A[rest] and one byte of zero count per
 * number give back I_p(R_q(rest)) = A[rest] + (zeros odd). */
static int table_arithmetic(int a, long N, uint64_t *A, uint64_t *B)
{
    thue_wythoff_cf c;
    thue_wythoff_cf_init(&c, a);
    unsigned char *zeros = malloc((size_t)N + 1);
    if (zeros == NULL)
        return THUE_ENOMEM;
    A[0] = B[0] = 0;
    zeros[0] = 0;
    int k = 0;
    for (long n = 1; n <= N; n++) {
        while (k + 1 < c.np && c.q[k + 1] <= (thue_u128)n)
            k++;
        uint64_t qk = (uint64_t)c.q[k], pk = (uint64_t)c.p[k];
        uint64_t digit = (uint64_t)n / qk, rest = (uint64_t)n % qk;
        uint64_t ip_rest = rest == 0 ? 0 : A[rest] + (zeros[rest] & 1u);
        zeros[n] = rest == 0 ? (unsigned char)k : zeros[rest];
        A[n] = digit * pk + ip_rest - (zeros[n] & 1u);
        B[n] = A[n] + (uint64_t)a * (uint64_t)n;
    }
    free(zeros);
    return 0;
}

int thue_wythoff_table(thue_wythoff_method m, int a, long N, uint64_t *A, uint64_t *B)
{
    if (a < 1 || a > THUE_WYTHOFF_A_MAX || N < 0 || N > THUE_WYTHOFF_TABLE_MAX)
        return THUE_EINVAL;
    switch (m) {
    case THUE_WYTHOFF_RECURSIVE:
        return table_recursive(a, N, A, B);
    case THUE_WYTHOFF_ALGEBRAIC:
        return table_algebraic(a, N, A, B);
    case THUE_WYTHOFF_ARITHMETIC:
        return table_arithmetic(a, N, A, B);
    }
    return THUE_EINVAL;
}

/* ---- the exact reference: 256-bit comparisons ----------------------------------------- */

typedef struct u256 {
    uint64_t w[4]; /* little-endian limbs */
} u256;

static u256 mul128(thue_u128 x, thue_u128 y)
{
    uint64_t xs[2] = {(uint64_t)x, (uint64_t)(x >> 64)};
    uint64_t ys[2] = {(uint64_t)y, (uint64_t)(y >> 64)};
    u256 r = {{0, 0, 0, 0}};
    for (int i = 0; i < 2; i++) {
        thue_u128 carry = 0;
        for (int j = 0; j < 2; j++) {
            thue_u128 t = (thue_u128)xs[i] * ys[j] + r.w[i + j] + carry;
            r.w[i + j] = (uint64_t)t;
            carry = t >> 64;
        }
        r.w[i + 2] = (uint64_t)carry;
    }
    return r;
}

static u256 mul_small(u256 x, uint64_t k)
{
    thue_u128 carry = 0;
    for (int i = 0; i < 4; i++) {
        thue_u128 t = (thue_u128)x.w[i] * k + carry;
        x.w[i] = (uint64_t)t;
        carry = t >> 64;
    }
    return x; /* the callers' values stay below 2^256 (header bound) */
}

static int cmp256(u256 x, u256 y)
{
    for (int i = 3; i >= 0; i--)
        if (x.w[i] != y.w[i])
            return x.w[i] < y.w[i] ? -1 : 1;
    return 0;
}

/* A < alpha n, for n >= 1. */
static bool below_alpha_n(int a, thue_u128 A, thue_u128 n)
{
    thue_u128 l;
    if (a == 1) {
        if (2 * A < n)
            return true;
        l = 2 * A - n;
    } else {
        l = 2 * A + n * (thue_u128)(a - 2);
    }
    u256 lhs = mul128(l, l);
    u256 rhs = mul_small(mul128(n, n), (uint64_t)a * (uint64_t)a + 4);
    return cmp256(lhs, rhs) < 0;
}

thue_u128 thue_wythoff_exact_a(int a, thue_u128 n)
{
    if (n == 0)
        return 0;
    thue_u128 lo = n, hi = 2 * n; /* below(lo), !below(hi) */
    while (hi - lo > 1) {
        thue_u128 mid = lo + (hi - lo) / 2;
        if (below_alpha_n(a, mid, n))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* A < alpha n for n <= 2^40 in 128 bits (the squares stay below 2^102). */
static bool below_small(int a, uint64_t A, uint64_t n)
{
    int64_t l = (int64_t)(2 * A) + (int64_t)n * (a - 2);
    if (l < 0)
        return true;
    return (thue_u128)l * (thue_u128)l <
           (thue_u128)n * n * (thue_u128)((uint64_t)a * (uint64_t)a + 4);
}

/*
 * The scan passes every n, but checks in exact integers only those whose double products
 * lie near an integer: the double floor(x) of x = fl(alpha_d n) is the exact
 * floor(alpha n) whenever x is farther from an integer than the error |x - alpha n|
 * (and the same for beta), since no integer then lies between the two. That error:
 * alpha_d = (2 - a + sqrt(a^2 + 4)) / 2 is off by at most about 2^-44 (the correctly
 * rounded square root, below 1001, then one rounded sum), beta_d = alpha_d + a by at most
 * 2^-42; times n, plus half an ulp of the product (beta n < 1002 n: 1002 n 2^-53), that
 * is below n 2^-41 for every a <= 1000. The margin used is twice that, n 2^-40, so only
 * about one n in 2^38 / n is checked exactly (a few in a thousand near n = 10^8, where
 * the first failures of a = 1..4 lie). The distance to the nearest integer is taken
 * without floor() (a libm call): adding and subtracting 2^52 rounds a double below 2^52
 * to the nearest integer (the products stay below 2^51 for n <= 2^40).
 */
uint64_t thue_wythoff_first_wrong_ex(int a, uint64_t limit, uint64_t *exact_checks)
{
    double alpha = alpha_d(a), beta = alpha + a;
    const double round = 0x1p52, per_n = 0x1p-40;
    uint64_t checks = 0, found = 0;
    if (limit > (uint64_t)1 << 40)
        limit = (uint64_t)1 << 40;
    double dn = 0; /* n as a double, counted up (exact below 2^53) */
    for (uint64_t n = 1; n <= limit; n++) {
        dn += 1;
        double x = alpha * dn, y = beta * dn;
        double dx = x - ((x + round) - round), dy = y - ((y + round) - round);
        double margin = dn * per_n;
        if (fabs(dx) > margin && fabs(dy) > margin)
            continue; /* both floors are the exact ones */
        checks++;
        uint64_t A = (uint64_t)floor(x), B = (uint64_t)floor(y);
        if (!below_small(a, A, n) || below_small(a, A + 1, n) || B != A + (uint64_t)a * n) {
            found = n;
            break;
        }
    }
    if (exact_checks != NULL)
        *exact_checks = checks;
    return found;
}

uint64_t thue_wythoff_first_wrong(int a, uint64_t limit)
{
    return thue_wythoff_first_wrong_ex(a, limit, NULL);
}

/* ---- decimal text ---------------------------------------------------------------------- */

char *thue_u128_str(thue_u128 x, char *buf)
{
    char tmp[48];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(x % 10));
        x /= 10;
    } while (x != 0);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return buf;
}

int thue_u128_parse(const char *s, thue_u128 max, thue_u128 *x)
{
    if (s == NULL || *s == '\0')
        return THUE_EINVAL;
    thue_u128 v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return THUE_EINVAL;
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10)
            return THUE_EINVAL;
        v = v * 10 + d;
    }
    *x = v;
    return 0;
}
