/*
 * verify.c: the proof checker (verify.h has the contract and the file format).
 *
 * The file is read front to back once. Level P's records can only be checked once level
 * P+1 is in memory (each child must be found there), and level P+1's records can only be
 * called unreachable once every record of level P has been checked (each check marks the
 * children it finds, one bit per record of level P+1). So the loop holds two levels:
 *     read level P+1 and check its records' syntax (symbols, canonical, order);
 *     check level P's records (safe symbols, children found and marked);
 *     every record of level P+1 must now be marked, else "unreachable record".
 * The last level's children have remaining depth 1 and are not stored: the builder must
 * have no position without a safe symbol in any of them.
 *
 * Threads: a pass over one level's records is split into chunks that threads claim in
 * increasing order; a thread stops at the first failure, and chunks that start past the
 * smallest failing index found so far are not claimed. Every index below the final
 * smallest failure has then been checked, so the failure reported (the one with the
 * smallest index, its text computed from that record alone) does not depend on the
 * number of threads.
 *
 * Records are compared and searched packed: the word's nibbles come first, high nibble
 * first, so the order of words is memcmp on the first L/2 bytes and then, for odd L, the
 * high nibble of the next byte.
 *
 * Work: each check is counted before it runs (the "work" section below), so that a file
 * whose checks would cost more than THUE_PROOF_WORK_PER_BYTE units per byte is refused
 * before the expensive part; the reading and syntax passes are linear in the file's bytes
 * and are not counted.
 */
#include "games/thue/proof/verify.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "games/thue/engine/word.h"

#define LINE_MAX_LEVEL 64 /* "level P COUNT": two numbers of at most 19 digits */
#define NUM_DIGITS_MAX 18 /* decimal numbers in the file: below 10^18 */
#define CHUNK 256         /* records a thread claims at a time, by default */
#define WORD_SHOWN 48     /* symbols of a word shown in a message */

typedef struct reader {
    FILE *f;
    int64_t left; /* bytes of the file not read yet */
} reader;

typedef struct level {
    int len;         /* L: word length */
    size_t rec;      /* bytes per record: ceil((2L+1)/2) = L+1 */
    int64_t count;   /* records */
    uint8_t *data;   /* count * rec bytes */
    uint64_t *reach; /* one bit per record: reached from the level before */
} level;

typedef struct verifier {
    thue_variant v;
    int k;
    int levels; /* M */
    int threads;
    int chunk; /* records a thread claims at a time */
} verifier;

/* The work counted so far and its limit (see "work" below). */
typedef struct budget {
    int64_t used;
    int64_t limit; /* THUE_PROOF_WORK_PER_BYTE times bytes, saturated */
    int64_t bytes; /* the bytes checked: the file's size from the starting position */
} budget;

struct worker;
typedef int (*record_fn)(struct worker *wk, int64_t idx);

/* One pass over a level's records. */
typedef struct pass {
    const verifier *vf;
    int p;             /* the level's index P */
    const level *cur;  /* the level whose records are visited */
    const level *next; /* for the check pass: level P+1, or NULL for the last level */
    record_fn fn;
    int64_t next_chunk; /* atomic: the next unclaimed index */
    int64_t first_bad;  /* atomic: the smallest failing index found, INT64_MAX if none */
} pass;

typedef struct worker {
    pass *ps;
    uint8_t *w;     /* the record's word, unpacked (L) */
    uint8_t *x;     /* a child (L+1) */
    uint8_t *canon; /* canonical(child) (L+1), or canonical(w) */
    uint8_t *key;   /* canonical(child) packed (L/2+1 bytes) */
    uint64_t *safe; /* legal-move map of a child (L+2) */
    thue_scan *scan;
    int64_t bad_idx; /* this worker's smallest failing index, INT64_MAX if none */
    thue_proof_failure fail;
    pthread_t tid;
} worker;

/* ---- small helpers ---- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int nib(const uint8_t *r, int64_t t)
{
    return (t & 1) ? r[t >> 1] & 15 : r[t >> 1] >> 4;
}

static void set_fail(thue_proof_failure *fail, thue_proof_status st, int lvl, int64_t rec, int pos,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void set_fail(thue_proof_failure *fail, thue_proof_status st, int lvl, int64_t rec, int pos,
                     const char *fmt, ...)
{
    fail->status = st;
    fail->level = lvl;
    fail->record = rec;
    fail->position = pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fail->message, sizeof fail->message, fmt, ap);
    va_end(ap);
}

/* The word as hex digits, at most WORD_SHOWN of them then "...", "-" when empty. */
static const char *hex_word(const uint8_t *sym, int n, char *buf)
{
    static const char digits[] = "0123456789abcdef";
    if (n == 0)
        return "-";
    int shown = n > WORD_SHOWN ? WORD_SHOWN : n;
    for (int i = 0; i < shown; i++)
        buf[i] = digits[sym[i] & 15];
    if (shown < n)
        memcpy(buf + shown, "...", 4);
    else
        buf[shown] = '\0';
    return buf;
}

void thue_proof_canonical(const uint8_t *sym, int n, uint8_t *out)
{
    uint8_t map[THUE_PROOF_K_MAX];
    memset(map, 0xff, sizeof map);
    int next = 0;
    for (int t = 0; t < n; t++) {
        if (map[sym[t]] == 0xff)
            map[sym[t]] = (uint8_t)next++;
        out[t] = map[sym[t]];
    }
    /* The reversal, compared as it is built: once it is smaller at t, out[0..t) is its
     * prefix too and the rest of it overwrites out. */
    memset(map, 0xff, sizeof map);
    next = 0;
    int smaller = 0;
    for (int t = 0; t < n; t++) {
        uint8_t c = sym[n - 1 - t];
        if (map[c] == 0xff)
            map[c] = (uint8_t)next++;
        if (!smaller) {
            if (map[c] > out[t])
                return;
            smaller = map[c] < out[t];
        }
        out[t] = map[c];
    }
}

/* Compares the words (first nw nibbles) of two packed records or keys. */
static int cmp_words(const uint8_t *a, const uint8_t *b, int nw)
{
    int c = memcmp(a, b, (size_t)(nw / 2));
    if (c != 0 || !(nw & 1))
        return c;
    return (int)(a[nw / 2] >> 4) - (int)(b[nw / 2] >> 4);
}

/* ---- work ----
 *
 * A work unit is about one step of the engine's inner loops (a symbol visited, or one
 * machine word of a bit-parallel scan): about a nanosecond here (0.7 to 1.8 ns measured,
 * from 21-symbol words to 9,000-symbol ones). The estimates follow the engine's loops
 * (repetition.c) and round up; they need not be exact, only proportional to the real
 * cost, so that the limit bounds the time by the size. */

#define CALL_UNITS 16 /* one engine call's fixed cost: arguments, set-up */

/* Bit-planes the engine scans for symbols below k. */
static int64_t planes_of(int k)
{
    int64_t b = 1;
    while (((k - 1) >> b) != 0)
        b++;
    return b;
}

/* thue_check_insert on a word of n symbols: a quick test per period (a run is followed
 * only when the inserted symbol matches, and stops at the first mismatch). */
static int64_t insert_units(int n)
{
    return CALL_UNITS + n / 2 + 1;
}

/* thue_legal_map or thue_check_word on n symbols: passes over the symbols, then for each
 * period up to n/2 its match set and run set, n/64 + 1 machine words per bit-plane. */
static int64_t map_units(int n, int k)
{
    int64_t planes = planes_of(k), words = n / 64 + 1;
    return CALL_UNITS + (int64_t)n * (planes + 5) + (int64_t)(n / 2) * (words * (planes + 4) + 8);
}

/* A child of n symbols: its canonical form, packed key and binary search among count
 * records (a memcmp of n/2 bytes per step). */
static int64_t child_units(int n, int64_t count)
{
    int64_t steps = 1;
    while (steps < 63 && ((int64_t)1 << steps) <= count)
        steps++;
    return 4 * (int64_t)n + steps * ((int64_t)n / 16 + 4);
}

/* The game checks of one record of level P (words of L symbols): L+1 insertion checks,
 * each followed by the child's search in the next level (next_count records) or, at the
 * last level (next_count < 0), the child's legal-move map. */
static int64_t record_units(int L, int k, int64_t next_count)
{
    int64_t child = next_count >= 0 ? child_units(L + 1, next_count) : map_units(L + 1, k);
    return L + ((int64_t)L + 1) * (insert_units(L) + child);
}

/* Counts times * per units before a check runs: 0, or THUE_PROOF_TOO_MUCH_WORK with fail
 * filled (its text starting with what) when the total would pass the limit. */
static int spend(budget *bg, int64_t times, int64_t per, int lvl, const char *what,
                 thue_proof_failure *fail)
{
    if (times <= 0 || per <= (bg->limit - bg->used) / times) {
        bg->used += times > 0 ? times * per : 0;
        return 0;
    }
    double total = (double)bg->used + (double)times * (double)per;
    set_fail(fail, THUE_PROOF_TOO_MUCH_WORK, lvl, -1, -1,
             "%s would bring the work to %.3g units, %.0f per byte of the %lld bytes checked: "
             "more than the limit of %d per byte (%lld units)",
             what, total, total / (double)(bg->bytes > 0 ? bg->bytes : 1), (long long)bg->bytes,
             THUE_PROOF_WORK_PER_BYTE, (long long)bg->limit);
    return THUE_PROOF_TOO_MUCH_WORK;
}

/* ---- reading ---- */

/*
 * Reads one line (without its "\n") of at most cap characters into buf (NUL-terminated).
 * 0, or THUE_PROOF_TRUNCATED at the end of the file, or -1 for a longer line or a byte
 * that is not printable ASCII (the caller names what it expected).
 */
static int read_line(reader *rd, char *buf, size_t cap, int *len)
{
    size_t n = 0;
    for (;;) {
        int c = getc(rd->f);
        if (c == EOF)
            return THUE_PROOF_TRUNCATED;
        rd->left--;
        if (c == '\n')
            break;
        if (n == cap || c < 0x20 || c > 0x7e)
            return -1;
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    *len = (int)n;
    return 0;
}

/* A decimal number of 1..NUM_DIGITS_MAX digits without leading zeros: 0 and *out, or -1. */
static int parse_num(const char *s, int64_t *out)
{
    size_t n = strlen(s);
    if (n == 0 || n > NUM_DIGITS_MAX || (s[0] == '0' && n > 1))
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* ---- the passes ---- */

static void mark(uint64_t *bits, int64_t i)
{
    __atomic_fetch_or(&bits[i >> 6], (uint64_t)1 << (i & 63), __ATOMIC_RELAXED);
}

static int marked(const uint64_t *bits, int64_t i)
{
    return (int)((bits[i >> 6] >> (i & 63)) & 1);
}

/* Syntax of record idx of a freshly read level: symbols, padding, canonical, order. */
static int syntax_record(worker *wk, int64_t idx)
{
    const pass *ps = wk->ps;
    const level *lv = ps->cur;
    int L = lv->len, k = ps->vf->k;
    const uint8_t *r = lv->data + (size_t)idx * lv->rec;
    char buf[WORD_SHOWN + 4];
    for (int t = 0; t < 2 * L + 1; t++) {
        int c = nib(r, t);
        if (c < k)
            continue;
        if (t < L)
            set_fail(&wk->fail, THUE_PROOF_SYMBOL, ps->p, idx, -1,
                     "level %d, record %lld: word symbol %d at offset %d is not below k=%d", ps->p,
                     (long long)idx, c, t, k);
        else
            set_fail(&wk->fail, THUE_PROOF_SYMBOL, ps->p, idx, t - L,
                     "level %d, record %lld, position %d: painter symbol %d is not below k=%d",
                     ps->p, (long long)idx, t - L, c, k);
        return THUE_PROOF_SYMBOL;
    }
    if (r[lv->rec - 1] & 15) {
        set_fail(&wk->fail, THUE_PROOF_SYMBOL, ps->p, idx, -1,
                 "level %d, record %lld: the padding nibble of the last byte is not 0", ps->p,
                 (long long)idx);
        return THUE_PROOF_SYMBOL;
    }
    for (int t = 0; t < L; t++)
        wk->w[t] = (uint8_t)nib(r, t);
    thue_proof_canonical(wk->w, L, wk->canon);
    if (memcmp(wk->w, wk->canon, (size_t)L) != 0) {
        char buf2[WORD_SHOWN + 4];
        set_fail(&wk->fail, THUE_PROOF_NOT_CANONICAL, ps->p, idx, -1,
                 "level %d, record %lld: word %s is not canonical (its canonical form is %s)",
                 ps->p, (long long)idx, hex_word(wk->w, L, buf), hex_word(wk->canon, L, buf2));
        return THUE_PROOF_NOT_CANONICAL;
    }
    if (idx > 0) {
        int c = cmp_words(r - lv->rec, r, L);
        if (c > 0) {
            set_fail(&wk->fail, THUE_PROOF_UNSORTED, ps->p, idx, -1,
                     "level %d, record %lld: word %s is not after the previous record's word "
                     "(the level is not sorted)",
                     ps->p, (long long)idx, hex_word(wk->w, L, buf));
            return THUE_PROOF_UNSORTED;
        }
        if (c == 0) {
            set_fail(&wk->fail, THUE_PROOF_DUPLICATE, ps->p, idx, -1,
                     "level %d, record %lld: duplicate record of word %s", ps->p, (long long)idx,
                     hex_word(wk->w, L, buf));
            return THUE_PROOF_DUPLICATE;
        }
    }
    return 0;
}

/* Index of the record of lv whose word (lv->len nibbles) is key, or -1. */
static int64_t find_word(const level *lv, const uint8_t *key)
{
    int64_t lo = 0, hi = lv->count;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = cmp_words(lv->data + (size_t)mid * lv->rec, key, lv->len);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The game check of record idx of level P: every painter answer is safe and leads to a
 * recorded child (or, at the last level, to a word where every position has a move). */
static int check_record(worker *wk, int64_t idx)
{
    const pass *ps = wk->ps;
    const verifier *vf = ps->vf;
    const level *lv = ps->cur;
    int L = lv->len, P = ps->p;
    const uint8_t *r = lv->data + (size_t)idx * lv->rec;
    char buf[WORD_SHOWN + 4], buf2[WORD_SHOWN + 4];
    for (int t = 0; t < L; t++)
        wk->w[t] = (uint8_t)nib(r, t);
    /* x = w[0..i) c w[i..L), kept up to date as i moves right. */
    memcpy(wk->x + 1, wk->w, (size_t)L);
    for (int i = 0; i <= L; i++) {
        int c = nib(r, L + i);
        if (i > 0)
            wk->x[i - 1] = wk->w[i - 1];
        wk->x[i] = (uint8_t)c;
        thue_repetition rep;
        int bad = thue_check_insert(wk->w, L, vf->v, i, c, &rep);
        if (bad < 0) {
            set_fail(&wk->fail, THUE_PROOF_NOMEM, P, idx, i,
                     "level %d, record %lld: engine error %d", P, (long long)idx, bad);
            return THUE_PROOF_NOMEM;
        }
        if (bad) {
            set_fail(&wk->fail, THUE_PROOF_UNSAFE, P, idx, i,
                     "level %d, record %lld (word %s), position %d: painter symbol %d makes %s "
                     "(period %d at %d..%d of %s)",
                     P, (long long)idx, hex_word(wk->w, L, buf), i, c,
                     vf->v == THUE_SQUARE ? "a square" : "an overlap", rep.period, rep.start,
                     rep.start + rep.length - 1, hex_word(wk->x, L + 1, buf2));
            return THUE_PROOF_UNSAFE;
        }
        if (ps->next != NULL) {
            thue_proof_canonical(wk->x, L + 1, wk->canon);
            memset(wk->key, 0, (size_t)(L + 1) / 2 + 1);
            for (int t = 0; t <= L; t++)
                wk->key[t >> 1] |= (uint8_t)((t & 1) ? wk->canon[t] : wk->canon[t] << 4);
            int64_t at = find_word(ps->next, wk->key);
            if (at < 0) {
                char buf3[WORD_SHOWN + 4];
                set_fail(&wk->fail, THUE_PROOF_MISSING_CHILD, P, idx, i,
                         "level %d, record %lld (word %s), position %d: child %s (canonical %s) "
                         "has no record in level %d",
                         P, (long long)idx, hex_word(wk->w, L, buf), i,
                         hex_word(wk->x, L + 1, buf2), hex_word(wk->canon, L + 1, buf3), P + 1);
                return THUE_PROOF_MISSING_CHILD;
            }
            mark(ps->next->reach, at);
        } else {
            int err = thue_legal_map(wk->scan, wk->x, L + 1, vf->k, vf->v, wk->safe);
            if (err < 0) {
                set_fail(&wk->fail, THUE_PROOF_NOMEM, P, idx, i,
                         "level %d, record %lld: engine error %d", P, (long long)idx, err);
                return THUE_PROOF_NOMEM;
            }
            for (int j = 0; j <= L + 1; j++)
                if (wk->safe[j] == 0) {
                    set_fail(&wk->fail, THUE_PROOF_DEAD_END, P, idx, i,
                             "level %d, record %lld (word %s), position %d: in the child %s "
                             "(remaining depth 1) position %d has no safe symbol",
                             P, (long long)idx, hex_word(wk->w, L, buf), i,
                             hex_word(wk->x, L + 1, buf2), j);
                    return THUE_PROOF_DEAD_END;
                }
        }
    }
    return 0;
}

static void *worker_run(void *arg)
{
    worker *wk = arg;
    pass *ps = wk->ps;
    int64_t count = ps->cur->count;
    for (;;) {
        int64_t chunk = ps->vf->chunk;
        int64_t start = __atomic_fetch_add(&ps->next_chunk, chunk, __ATOMIC_RELAXED);
        if (start >= count || start > __atomic_load_n(&ps->first_bad, __ATOMIC_RELAXED))
            break;
        int64_t end = start + chunk < count ? start + chunk : count;
        for (int64_t i = start; i < end; i++) {
            if (i > __atomic_load_n(&ps->first_bad, __ATOMIC_RELAXED))
                return NULL;
            if (ps->fn(wk, i) == 0)
                continue;
            wk->bad_idx = i;
            int64_t seen = __atomic_load_n(&ps->first_bad, __ATOMIC_RELAXED);
            while (i < seen && !__atomic_compare_exchange_n(&ps->first_bad, &seen, i, 1,
                                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
            return NULL;
        }
    }
    return NULL;
}

static void worker_free(worker *wk)
{
    free(wk->w);
    free(wk->x);
    free(wk->canon);
    free(wk->key);
    free(wk->safe);
    thue_scan_free(wk->scan);
}

/* Scratch for words of length L (children L+1). 0 or -1 when out of memory. */
static int worker_init(worker *wk, pass *ps, int L)
{
    memset(wk, 0, sizeof *wk);
    wk->ps = ps;
    wk->bad_idx = INT64_MAX;
    size_t n = (size_t)L + 2;
    wk->w = malloc(n);
    wk->x = malloc(n);
    wk->canon = malloc(n);
    wk->key = malloc(n);
    wk->safe = malloc(n * sizeof *wk->safe);
    wk->scan = thue_scan_new();
    if (!wk->w || !wk->x || !wk->canon || !wk->key || !wk->safe || !wk->scan) {
        worker_free(wk);
        return -1;
    }
    return 0;
}

/* Runs fn over every record of cur; 0, or the first failure (smallest index) in *fail. */
static int run_pass(const verifier *vf, int p, const level *cur, const level *next, record_fn fn,
                    thue_proof_failure *fail)
{
    pass ps = {vf, p, cur, next, fn, 0, INT64_MAX};
    int nt = vf->threads;
    int64_t chunks = (cur->count + vf->chunk - 1) / vf->chunk;
    if (nt > chunks)
        nt = chunks > 0 ? (int)chunks : 1;
    worker *wks = calloc((size_t)nt, sizeof *wks);
    if (wks == NULL) {
        set_fail(fail, THUE_PROOF_NOMEM, p, -1, -1, "out of memory");
        return THUE_PROOF_NOMEM;
    }
    int ready = 0, started = 0;
    for (; ready < nt; ready++)
        if (worker_init(&wks[ready], &ps, cur->len) != 0)
            break;
    int st = 0;
    if (ready < nt) {
        set_fail(fail, THUE_PROOF_NOMEM, p, -1, -1, "out of memory");
        st = THUE_PROOF_NOMEM;
    } else {
        for (started = 1; started < nt; started++)
            if (pthread_create(&wks[started].tid, NULL, worker_run, &wks[started]) != 0)
                break; /* fewer threads: the result is the same */
        worker_run(&wks[0]);
        for (int t = 1; t < started; t++)
            pthread_join(wks[t].tid, NULL);
        int best = -1;
        for (int t = 0; t < nt; t++)
            if (wks[t].bad_idx != INT64_MAX && (best < 0 || wks[t].bad_idx < wks[best].bad_idx))
                best = t;
        if (best >= 0) {
            *fail = wks[best].fail;
            st = fail->status;
        }
    }
    for (int t = 0; t < ready; t++)
        worker_free(&wks[t]);
    free(wks);
    return st;
}

/* ---- levels ---- */

static void level_free(level *lv)
{
    free(lv->data);
    free(lv->reach);
    memset(lv, 0, sizeof *lv);
}

/* Reads block P (words of length L) into lv and checks its records' syntax. */
static int read_level(reader *rd, const verifier *vf, int P, int L, level *lv,
                      thue_proof_failure *fail)
{
    char line[LINE_MAX_LEVEL + 1];
    int n;
    int st = read_line(rd, line, LINE_MAX_LEVEL, &n);
    if (st == THUE_PROOF_TRUNCATED) {
        set_fail(fail, st, P, -1, -1, "the file ends where block 'level %d' should start", P);
        return st;
    }
    char want[32];
    int wn = snprintf(want, sizeof want, "level %d ", P);
    int64_t count;
    if (st != 0 || strncmp(line, want, (size_t)wn) != 0 || parse_num(line + wn, &count) != 0) {
        set_fail(fail, THUE_PROOF_LEVEL_LINE, P, -1, -1,
                 "block %d: expected the line 'level %d COUNT', got '%.40s%s'", P, P,
                 st == 0 ? line : "(not a short text line)", st == 0 && n > 40 ? "..." : "");
        return THUE_PROOF_LEVEL_LINE;
    }
    lv->len = L;
    lv->rec = (size_t)L + 1;
    if (count > rd->left / (int64_t)lv->rec) {
        set_fail(fail, THUE_PROOF_TOO_BIG, P, -1, -1,
                 "level %d: %lld records of %zu bytes are more than the %lld bytes left in the "
                 "file",
                 P, (long long)count, lv->rec, (long long)rd->left);
        return THUE_PROOF_TOO_BIG;
    }
    lv->count = count;
    size_t bytes = (size_t)count * lv->rec;
    lv->data = malloc(bytes ? bytes : 1);
    lv->reach = calloc((size_t)(count / 64 + 1), sizeof *lv->reach);
    if (lv->data == NULL || lv->reach == NULL) {
        set_fail(fail, THUE_PROOF_NOMEM, P, -1, -1, "level %d: out of memory for %lld records", P,
                 (long long)count);
        return THUE_PROOF_NOMEM;
    }
    if (fread(lv->data, 1, bytes, rd->f) != bytes) {
        set_fail(fail, THUE_PROOF_IO, P, -1, -1, "level %d: read error", P);
        return THUE_PROOF_IO;
    }
    rd->left -= (int64_t)bytes;
    return run_pass(vf, P, lv, NULL, syntax_record, fail);
}

/* ---- the header ---- */

static int header_line(reader *rd, char *buf, size_t cap, int lineno, const char *what,
                       thue_proof_failure *fail)
{
    int n;
    int st = read_line(rd, buf, cap, &n);
    if (st == THUE_PROOF_TRUNCATED) {
        set_fail(fail, st, -1, -1, -1, "header line %d: the file ends before '%s'", lineno, what);
        return st;
    }
    if (st != 0) {
        set_fail(fail, THUE_PROOF_HEADER, -1, -1, -1,
                 "header line %d: expected '%s', got a long line or one that is not text", lineno,
                 what);
        return THUE_PROOF_HEADER;
    }
    return 0;
}

static int bad_header(thue_proof_failure *fail, int lineno, const char *what, const char *got)
{
    set_fail(fail, THUE_PROOF_HEADER, -1, -1, -1, "header line %d: expected '%s', got '%.60s%s'",
             lineno, what, got, strlen(got) > 60 ? "..." : "");
    return THUE_PROOF_HEADER;
}

/* Parses the 7 header lines into vf, the root (into root, room for THUE_WORD_MAX) and sum. */
static int read_header(reader *rd, verifier *vf, budget *bg, uint8_t *root, int *n0, char *text,
                       thue_proof_summary *sum, thue_proof_failure *fail)
{
    size_t cap = THUE_WORD_MAX + 8;
    int st;
    if ((st = header_line(rd, text, cap, 1, "thue-proof 1", fail)) != 0)
        return st;
    if (strcmp(text, "thue-proof 1") != 0)
        return bad_header(fail, 1, "thue-proof 1", text);
    if ((st = header_line(rd, text, cap, 2, "variant square|overlap", fail)) != 0)
        return st;
    if (strncmp(text, "variant ", 8) != 0 || thue_variant_parse(text + 8, &vf->v) != 0)
        return bad_header(fail, 2, "variant square|overlap", text);
    if ((st = header_line(rd, text, cap, 3, "k K", fail)) != 0)
        return st;
    int64_t k;
    if (strncmp(text, "k ", 2) != 0 || parse_num(text + 2, &k) != 0 || k < 2 ||
        k > THUE_PROOF_K_MAX)
        return bad_header(fail, 3, "k K with 2 <= K <= 16", text);
    vf->k = (int)k;
    if ((st = header_line(rd, text, cap, 4, "root DIGITS", fail)) != 0)
        return st;
    if (strncmp(text, "root ", 5) != 0 || text[5] == '\0')
        return bad_header(fail, 4, "root DIGITS (hex digits, or - for the empty word)", text);
    const char *d = text + 5;
    int n = 0;
    if (strcmp(d, "-") != 0) {
        for (; d[n]; n++) {
            int c = d[n] >= '0' && d[n] <= '9'   ? d[n] - '0'
                    : d[n] >= 'a' && d[n] <= 'f' ? d[n] - 'a' + 10
                                                 : -1;
            if (c < 0 || n >= THUE_WORD_MAX)
                return bad_header(fail, 4,
                                  "root DIGITS (hex digits 0-9a-f, or - for the empty word)", text);
            if (c >= vf->k) {
                set_fail(fail, THUE_PROOF_ROOT, -1, -1, -1,
                         "header line 4: root symbol %d at offset %d is not below k=%d", c, n,
                         vf->k);
                return THUE_PROOF_ROOT;
            }
            root[n] = (uint8_t)c;
        }
    }
    *n0 = n;
    sum->root = strdup(d);
    if (sum->root == NULL) {
        set_fail(fail, THUE_PROOF_NOMEM, -1, -1, -1, "out of memory");
        return THUE_PROOF_NOMEM;
    }
    if ((st = spend(bg, 1, map_units(n, vf->k), -1, "header line 4: the root's repetition check",
                    fail)) != 0)
        return st;
    thue_repetition rep;
    int bad = thue_check_word(NULL, root, n, vf->v, &rep);
    if (bad != 0) {
        set_fail(fail, bad < 0 ? THUE_PROOF_NOMEM : THUE_PROOF_ROOT, -1, -1, -1,
                 bad < 0 ? "header line 4: out of memory checking the root"
                         : "header line 4: the root holds %s (period %d at %d..%d)",
                 vf->v == THUE_SQUARE ? "a square" : "an overlap", rep.period, rep.start,
                 rep.start + rep.length - 1);
        return fail->status;
    }
    if ((st = header_line(rd, text, cap, 5, "depth D", fail)) != 0)
        return st;
    int64_t depth;
    if (strncmp(text, "depth ", 6) != 0 || parse_num(text + 6, &depth) != 0)
        return bad_header(fail, 5, "depth D (a decimal number below 10^18)", text);
    if ((st = header_line(rd, text, cap, 6, "levels M", fail)) != 0)
        return st;
    int64_t m, want = depth > 1 ? depth - 1 : 0;
    if (strncmp(text, "levels ", 7) != 0 || parse_num(text + 7, &m) != 0)
        return bad_header(fail, 6, "levels M", text);
    if (m != want) {
        set_fail(fail, THUE_PROOF_HEADER, -1, -1, -1,
                 "header line 6: levels %lld does not match depth %lld (expected levels %lld)",
                 (long long)m, (long long)depth, (long long)want);
        return THUE_PROOF_HEADER;
    }
    if ((st = header_line(rd, text, cap, 7, "end", fail)) != 0)
        return st;
    if (strcmp(text, "end") != 0)
        return bad_header(fail, 7, "end", text);
    /* Each block takes at least "level P 1\n" and one byte: 11 bytes. */
    if (m > rd->left / 11 || m > INT_MAX || n + m + 1 > THUE_WORD_MAX) {
        set_fail(fail, THUE_PROOF_TOO_BIG, -1, -1, -1,
                 "header: depth %lld needs %lld level blocks, more than the file's remaining "
                 "%lld bytes can hold or words longer than %d symbols",
                 (long long)depth, (long long)m, (long long)rd->left, THUE_WORD_MAX);
        return THUE_PROOF_TOO_BIG;
    }
    vf->levels = (int)m;
    sum->variant = vf->v;
    sum->k = vf->k;
    sum->root_len = n;
    sum->depth = depth;
    sum->levels = (int)m;
    return 0;
}

/* "end-proof\n" and nothing after it. */
static int read_trailer(reader *rd, thue_proof_failure *fail)
{
    char line[16];
    int n;
    int st = read_line(rd, line, 9, &n);
    if (st == THUE_PROOF_TRUNCATED) {
        set_fail(fail, st, -1, -1, -1, "the file ends before the line 'end-proof'");
        return st;
    }
    if (st != 0 || strcmp(line, "end-proof") != 0) {
        set_fail(fail, THUE_PROOF_TRAILER, -1, -1, -1,
                 "after the last block: expected the line 'end-proof'");
        return THUE_PROOF_TRAILER;
    }
    if (rd->left != 0 || getc(rd->f) != EOF) {
        set_fail(fail, THUE_PROOF_TRAILER, -1, -1, -1,
                 "trailing data after 'end-proof' (%lld bytes)",
                 (long long)(rd->left > 0 ? rd->left : 1));
        return THUE_PROOF_TRAILER;
    }
    return 0;
}

/* ---- the whole check ---- */

/* D = 1: every position of the root has a safe symbol. */
static int check_depth_one(const verifier *vf, budget *bg, const uint8_t *root, int n0,
                           thue_proof_failure *fail)
{
    int st = spend(bg, 1, map_units(n0, vf->k), -1, "root: the depth 1 check", fail);
    if (st != 0)
        return st;
    uint64_t *safe = malloc(((size_t)n0 + 1) * sizeof *safe);
    int err = safe ? thue_legal_map(NULL, root, n0, vf->k, vf->v, safe) : -1;
    if (err < 0) {
        set_fail(fail, THUE_PROOF_NOMEM, -1, -1, -1, "out of memory");
        st = THUE_PROOF_NOMEM;
    } else {
        for (int j = 0; j <= n0; j++)
            if (safe[j] == 0) {
                set_fail(fail, THUE_PROOF_DEAD_END, -1, -1, j,
                         "root, position %d: no safe symbol (the depth 1 claim fails)", j);
                st = THUE_PROOF_DEAD_END;
                break;
            }
    }
    free(safe);
    return st;
}

static int verify_levels(reader *rd, const verifier *vf, budget *bg, const uint8_t *root, int n0,
                         const thue_proof_options *opt, double t0, thue_proof_summary *sum,
                         thue_proof_failure *fail)
{
    level cur = {0}, nxt = {0};
    int M = vf->levels;
    int st = read_level(rd, vf, 0, n0, &cur, fail);
    if (st == 0) {
        uint8_t *canon = malloc((size_t)n0 + 1), *key = calloc((size_t)n0 / 2 + 1, 1);
        if (canon == NULL || key == NULL) {
            set_fail(fail, THUE_PROOF_NOMEM, 0, -1, -1, "out of memory");
            st = THUE_PROOF_NOMEM;
        } else {
            thue_proof_canonical(root, n0, canon);
            for (int t = 0; t < n0; t++)
                key[t >> 1] |= (uint8_t)((t & 1) ? canon[t] : canon[t] << 4);
            char buf[WORD_SHOWN + 4];
            if (cur.count != 1) {
                set_fail(fail, THUE_PROOF_ROOT_RECORD, 0, -1, -1,
                         "level 0: %lld records, expected exactly one (the root's)",
                         (long long)cur.count);
                st = THUE_PROOF_ROOT_RECORD;
            } else if (cmp_words(cur.data, key, n0) != 0) {
                set_fail(fail, THUE_PROOF_ROOT_RECORD, 0, 0, -1,
                         "level 0, record 0: the word is not canonical(root) = %s",
                         hex_word(canon, n0, buf));
                st = THUE_PROOF_ROOT_RECORD;
            }
        }
        free(canon);
        free(key);
    }
    for (int P = 0; st == 0 && P < M; P++) {
        sum->counts[P] = cur.count;
        sum->records += cur.count;
        if (P + 1 < M && (st = read_level(rd, vf, P + 1, n0 + P + 1, &nxt, fail)) != 0)
            break;
        char what[96];
        snprintf(what, sizeof what, "level %d: the game checks of %lld record%s of %d symbols", P,
                 (long long)cur.count, cur.count == 1 ? "" : "s", cur.len);
        if ((st = spend(bg, cur.count, record_units(cur.len, vf->k, P + 1 < M ? nxt.count : -1), P,
                        what, fail)) != 0)
            break;
        if ((st = run_pass(vf, P, &cur, P + 1 < M ? &nxt : NULL, check_record, fail)) != 0)
            break;
        if (P + 1 < M)
            for (int64_t j = 0; j < nxt.count; j++)
                if (!marked(nxt.reach, j)) {
                    uint8_t w[WORD_SHOWN];
                    int L = nxt.len, shown = L < WORD_SHOWN ? L : WORD_SHOWN;
                    for (int t = 0; t < shown; t++)
                        w[t] = (uint8_t)nib(nxt.data + (size_t)j * nxt.rec, t);
                    char buf[WORD_SHOWN + 4];
                    hex_word(w, shown, buf);
                    set_fail(fail, THUE_PROOF_UNREACHABLE, P + 1, j, -1,
                             "level %d, record %lld: unreachable record (word %s%s): no record "
                             "of level %d leads to it",
                             P + 1, (long long)j, buf, shown < L ? "..." : "", P);
                    st = THUE_PROOF_UNREACHABLE;
                    break;
                }
        if (opt && opt->progress)
            opt->progress(opt->progress_ctx, P, cur.count, now_seconds() - t0);
        level_free(&cur);
        cur = nxt;
        memset(&nxt, 0, sizeof nxt);
    }
    level_free(&cur);
    level_free(&nxt);
    return st;
}

const char *thue_proof_file_kind(mode_t mode)
{
    if (S_ISREG(mode))
        return "a regular file";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "an unknown kind of file";
}

void thue_proof_summary_free(thue_proof_summary *sum)
{
    if (sum == NULL)
        return;
    free(sum->counts);
    free(sum->root);
    sum->counts = NULL;
    sum->root = NULL;
}

int thue_proof_verify(FILE *f, const thue_proof_options *opt, thue_proof_summary *sum,
                      thue_proof_failure *fail)
{
    double t0 = now_seconds();
    memset(sum, 0, sizeof *sum);
    memset(fail, 0, sizeof *fail);
    fail->level = fail->position = -1;
    fail->record = -1;
    verifier vf = {THUE_SQUARE, 0, 0, opt && opt->threads > 1 ? opt->threads : 1,
                   opt && opt->chunk > 0 ? opt->chunk : CHUNK};
    /* Only a regular file: reading a FIFO, a pipe or a terminal can block, and a device
     * can be endless. The descriptor is checked before a byte is read; its size then
     * bounds every count and the work. */
    struct stat stt;
    int fd = fileno(f);
    if (fd < 0) {
        set_fail(fail, THUE_PROOF_IO, -1, -1, -1, "not a regular file (a stream without a file)");
        return THUE_PROOF_IO;
    }
    if (fstat(fd, &stt) != 0) {
        set_fail(fail, THUE_PROOF_IO, -1, -1, -1, "cannot stat the file: %s", strerror(errno));
        return THUE_PROOF_IO;
    }
    if (!S_ISREG(stt.st_mode)) {
        set_fail(fail, THUE_PROOF_IO, -1, -1, -1, "not a regular file (%s)",
                 thue_proof_file_kind(stt.st_mode));
        return THUE_PROOF_IO;
    }
    long pos = ftell(f);
    if (pos < 0) {
        set_fail(fail, THUE_PROOF_IO, -1, -1, -1, "cannot tell the position in the file: %s",
                 strerror(errno));
        return THUE_PROOF_IO;
    }
    reader rd = {f, (int64_t)stt.st_size - pos};
    budget bg = {0, 0, rd.left > 0 ? rd.left : 0};
    bg.limit = bg.bytes > INT64_MAX / THUE_PROOF_WORK_PER_BYTE
                   ? INT64_MAX
                   : bg.bytes * THUE_PROOF_WORK_PER_BYTE;
    uint8_t *root = malloc(THUE_WORD_MAX);
    char *text = malloc(THUE_WORD_MAX + 9);
    int st, n0 = 0;
    if (root == NULL || text == NULL) {
        set_fail(fail, THUE_PROOF_NOMEM, -1, -1, -1, "out of memory");
        st = THUE_PROOF_NOMEM;
    } else {
        st = read_header(&rd, &vf, &bg, root, &n0, text, sum, fail);
    }
    free(text);
    if (st == 0 && vf.levels > 0) {
        sum->counts = calloc((size_t)vf.levels, sizeof *sum->counts);
        if (sum->counts == NULL) {
            set_fail(fail, THUE_PROOF_NOMEM, -1, -1, -1, "out of memory");
            st = THUE_PROOF_NOMEM;
        }
    }
    if (st == 0) {
        if (sum->depth == 1)
            st = check_depth_one(&vf, &bg, root, n0, fail);
        else if (sum->depth >= 2)
            st = verify_levels(&rd, &vf, &bg, root, n0, opt, t0, sum, fail);
    }
    free(root);
    if (st == 0)
        st = read_trailer(&rd, fail);
    if (st == 0 && ferror(f)) {
        set_fail(fail, THUE_PROOF_IO, -1, -1, -1, "read error");
        st = THUE_PROOF_IO;
    }
    if (st != 0) {
        thue_proof_summary_free(sum);
        fail->work = bg.used;
    } else {
        sum->work = bg.used;
    }
    return st;
}
