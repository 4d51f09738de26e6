/*
 * cmd_arena.c: `thue arena`, the thesis's "overall test": batches of bot-vs-bot rounds.
 *
 * A cell is (k, builder spec, painter spec); each of its N games is one round from the
 * word [0], played until the painter's symbol makes a repetition or the painter reaches
 * the length limit. Game g of every cell has game seed S + g, and each move's seed is
 * thue_bot_move_seed(game seed, 0, ply, role), so a game is reproducible from its row in
 * games.csv. Every bot move is checked by the engine (thue_check_insert); a move out of
 * range is a bug in a bot and stops the run with status 1.
 *
 * Threads: the games of all cells form one list; T workers take the next index from a
 * shared counter and write only their own game's result slot, so what is printed (always
 * in list order, after every worker has finished) is the same for any T except the
 * measured times. Workers count finished games under a mutex (which also serialises
 * stderr): the one that completes a 10% step prints its line, and on a terminal the main
 * thread redraws the bar whenever it is signalled or a quarter second has passed, so the
 * elapsed time keeps moving during long games.
 *
 * The measure is the thesis's "number of moves": the final word length, counting the
 * insertion that made the repetition (points + 2), or points + 1 when the limit ended the
 * round (such games are counted apart). Per-move records (decision time, nodes) are kept
 * only with --out, for moves.csv and the chart.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "cli.h"
#include "cli_game.h"
#include "base/errors.h"
#include "games/thue/engine/match.h"
#include "svg.h"

static const char usage[] =
    "Usage: thue arena [--k LIST] [--variant square|overlap] [--builder SPECS]\n"
    "                  [--painter SPECS] [--games N] [--seed S] [--think-ms T]\n"
    "                  [--limit L] [--threads T] [--out DIR] [--json]\n"
    "\n"
    "Bot against bot, the thesis's \"overall test\": for every k in LIST, every builder\n"
    "spec and every painter spec (a cell), plays N single rounds from the word [0]: the\n"
    "builder bot picks a position, the painter bot a symbol, until the painter's symbol\n"
    "makes a repetition or the painter reaches L points. The measure is the thesis's\n"
    "\"number of moves\": the final word length, counting the insertion that made the\n"
    "repetition (points + 2); a game ended by the limit has length L + 1 and is counted\n"
    "under 'at limit'. Every move is checked by the engine.\n"
    "\n"
    "  --k LIST        alphabet sizes: values and ranges, comma-separated, 2..64\n"
    "                  (default 3,4; e.g. 3..5,8)\n"
    "  --variant V     square (default) or overlap\n"
    "  --builder SPECS builder bots, comma-separated (default 0,1,2). A spec is\n"
    "                  greedy | 0, nested:L | L (L = 1..9), uct[:iterations=N,ms=T,\n"
    "                  playout=M,c=X], perfect[:depth=D]; a comma starts a new spec only\n"
    "                  when a spec follows, so uct:iterations=500,c=0.7 is one spec\n"
    "  --painter SPECS painter bots, the same way (default 0,1,2)\n"
    "  --games N       rounds per cell, 1..100000 (default 10)\n"
    "  --seed S        game g (0..N-1) of every cell has game seed S + g; each move's\n"
    "                  seed is derived from it, the ply and the role (default 1)\n"
    "  --think-ms T    time limit per move in ms (default: none); the bot plays the\n"
    "                  best move it has when it runs out, so results depend on the machine\n"
    "  --limit L       the round ends when the painter reaches L points, 1..10000\n"
    "                  (default 300)\n"
    "  --threads T     games played at once, 1..64 (default: the number of CPUs); the\n"
    "                  results do not depend on T, only the times do\n"
    "  --out DIR       also write DIR/table.md (the table), DIR/games.csv (one row per\n"
    "                  game: k,variant,builder,painter,game,seed,length,points,end,\n"
    "                  rep_start,rep_period,builder_ms,painter_ms,total_ms), DIR/moves.csv\n"
    "                  (one row per move: k,builder,painter,game,ply,role,bot,\n"
    "                  word_length_before,move,think_ms,nodes) and DIR/decision-time.svg\n"
    "                  (mean decision time per word length, log scale, one line per\n"
    "                  role, bot and k); DIR is created if missing\n"
    "  --json          print one JSON object instead of the table:\n"
    "                  {\"variant\":V,\"k\":[K...],\"builder\":[SPEC...],\"painter\":[SPEC...],\n"
    "                   \"games\":N,\"seed\":S,\"limit\":L,\"think_ms\":T|null,\"cells\":[\n"
    "                   {\"k\":K,\"builder\":SPEC,\"painter\":SPEC,\"games\":N,\n"
    "                    \"length\":{\"min\":A,\"mean\":M,\"max\":Z},\"at_limit\":X,\n"
    "                    \"lengths\":[one per game, game 0 first],\n"
    "                    "
    "\"builder_ms\":{\"mean\":T,\"max\":T},\"painter_ms\":{\"mean\":T,\"max\":T}}\n"
    "                  ...]}; SPECs in canonical form (greedy, nested:1, ...); the *_ms\n"
    "                  figures are per decision, over every move of the cell\n"
    "\n"
    "Progress (games done, elapsed time, an estimate of the rest) goes to stderr: a bar\n"
    "redrawn in place on a terminal, otherwise a line at every 10%. The table or the\n"
    "JSON goes to stdout.\n"
    "\n"
    "--game G (another game than thue, e.g. nim; 'thue games' lists them) has a form\n"
    "of its own: 'thue arena --game G --help'. --game thue is this form.\n"
    "\n"
    "Exit status: 0, 1 failure (cannot write, a bot failed or played outside the rules),\n"
    "2 bad arguments.\n";

#define CMD "arena"
#define SPECS_MAX 16
#define NAME_SIZE 160
#define GAMES_MAX 100000
#define TOTAL_MAX 1000000
#define THINK_MS_MAX 86400000

/* ---- parameters --------------------------------------------------------------------- */

typedef struct bot_list {
    thue_bot_spec spec[SPECS_MAX];
    char name[SPECS_MAX][NAME_SIZE]; /* canonical text */
    int n;
} bot_list;

/* One decision: for the builder a position, for the painter a symbol. */
typedef struct move_rec {
    int move;
    double ms;
    uint64_t nodes;
} move_rec;

typedef struct game_result {
    int length; /* final word length, the thesis's number of moves */
    int points;
    thue_round_end end; /* THUE_ROUND_REPETITION or THUE_ROUND_LIMIT */
    thue_repetition rep;
    double builder_ms, painter_ms, builder_max, painter_max, total_ms;
    move_rec *moves; /* owned, with --out: 2 per insertion, builder then painter */
    int nmoves, cap;
    int failed; /* 1: message in error, the run stops */
    char error[256];
} game_result;

typedef struct progress {
    int tty;
    int64_t start_ns, drawn_ns;
    int decile; /* not a terminal: the last 10% step reported */
    int width;  /* terminal: length of the last line drawn */
} progress;

typedef struct arena {
    thue_variant variant;
    int ks[THUE_K_MAX];
    int nk;
    bot_list builders, painters;
    int games, limit, think_ms, threads, keep_moves;
    uint64_t seed;
    int cells, total;
    game_result *results; /* total entries, cell-major */

    atomic_int next;  /* the next game index to play */
    atomic_int abort; /* set when a game failed: the bots' stop flag, too */
    uv_mutex_t lock;  /* guards done, exited, progress and stderr */
    uv_cond_t changed;
    int done, exited;
    progress progress;
} arena;

/* Game index -> cell and game number; cell -> (k, builder, painter) indices. */
static void cell_of(const arena *a, int cell, int *ki, int *bi, int *pi)
{
    int per_k = a->builders.n * a->painters.n;
    *ki = cell / per_k;
    *bi = cell % per_k / a->painters.n;
    *pi = cell % a->painters.n;
}

/* ---- option parsing ------------------------------------------------------------------ */

/* A whole number in 2..64 from text[0..len). */
static int parse_k(const char *text, size_t len, int *out)
{
    if (len == 0 || len > 3)
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        v = v * 10 + (text[i] - '0');
    }
    *out = v;
    return 0;
}

static void parse_k_list(const char *text, arena *a)
{
    a->nk = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *dots = NULL;
        for (size_t i = 0; i + 1 < len; i++)
            if (p[i] == '.' && p[i + 1] == '.') {
                dots = p + i;
                break;
            }
        int lo, hi;
        if (len == 0)
            cli_usage_error(CMD, "--k: an empty item in '%s'", text);
        if (dots ? parse_k(p, (size_t)(dots - p), &lo) != 0 ||
                       parse_k(dots + 2, len - (size_t)(dots - p) - 2, &hi) != 0
                 : parse_k(p, len, &lo) != 0)
            cli_usage_error(CMD,
                            "--k: bad list '%s' at '%.*s': write values and ranges like 3..5, "
                            "separated by commas",
                            text, (int)len, p);
        if (!dots)
            hi = lo;
        if (lo < THUE_K_MIN || hi > THUE_K_MAX)
            cli_usage_error(CMD, "--k: '%.*s' is outside %d..%d", (int)len, p, THUE_K_MIN,
                            THUE_K_MAX);
        if (lo > hi)
            cli_usage_error(CMD, "--k: '%.*s' is an empty range", (int)len, p);
        for (int k = lo; k <= hi; k++) {
            for (int j = 0; j < a->nk; j++)
                if (a->ks[j] == k)
                    cli_usage_error(CMD, "--k: %d appears twice in '%s'", k, text);
            a->ks[a->nk++] = k;
        }
        if (end == NULL)
            break;
        p = end + 1;
    }
}

/* Does p start a bot spec? Then a comma before it separates two specs. */
static int starts_spec(const char *p)
{
    return isdigit((unsigned char)p[0]) || strncmp(p, "greedy", 6) == 0 ||
           strncmp(p, "nested", 6) == 0 || strncmp(p, "uct", 3) == 0 ||
           strncmp(p, "perfect", 7) == 0;
}

static void parse_specs(const char *opt, const char *text, bot_list *list)
{
    list->n = 0;
    const char *p = text;
    while (1) {
        const char *end = p;
        while (*end != '\0' && !(*end == ',' && starts_spec(end + 1)))
            end++;
        if (list->n == SPECS_MAX)
            cli_usage_error(CMD, "--%s: at most %d bots", opt, SPECS_MAX);
        char one[512];
        size_t len = (size_t)(end - p);
        if (len >= sizeof one)
            cli_usage_error(CMD, "--%s: a spec is too long", opt);
        memcpy(one, p, len);
        one[len] = '\0';
        cli_bot_spec(CMD, opt, one, &list->spec[list->n]);
        thue_bot_spec_format(&list->spec[list->n], list->name[list->n], NAME_SIZE);
        list->n++;
        if (*end == '\0')
            break;
        p = end + 1;
    }
}

/* ---- one game ------------------------------------------------------------------------ */

static int record(game_result *r, int move, const thue_bot_result *res)
{
    if (r->nmoves == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        move_rec *m = realloc(r->moves, (size_t)cap * sizeof *m);
        if (m == NULL)
            return THUE_ENOMEM;
        r->moves = m;
        r->cap = cap;
    }
    r->moves[r->nmoves++] = (move_rec){move, res->ms, res->nodes};
    return 0;
}

static void fail(game_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(game_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->failed = 1;
}

/* Plays game `idx` into r (zeroed by the caller). */
static void play_game(arena *a, int idx, game_result *r)
{
    int cell = idx / a->games, g = idx % a->games, ki, bi, pi;
    cell_of(a, cell, &ki, &bi, &pi);
    int k = a->ks[ki];
    uint64_t game_seed = a->seed + (uint64_t)g;
    const thue_bot_spec *spec[2] = {&a->builders.spec[bi], &a->painters.spec[pi]};
    const char *name[2] = {a->builders.name[bi], a->painters.name[pi]};
    thue_bot_limits lim = {0};
    lim.think_ms = a->think_ms;
    lim.stop = &a->abort;

    int64_t t0 = thue_now_ns();
    thue_word w;
    thue_word_init(&w);
    int err = thue_word_reserve(&w, a->limit + 2);
    if (err == 0)
        err = thue_word_insert(&w, 0, 0);
    if (err) {
        fail(r, "%s", thue_strerror(err));
        goto out;
    }
    for (int ply = 0;; ply++) {
        int index = 0, symbol = 0;
        for (int role = THUE_ROLE_BUILDER; role <= THUE_ROLE_PAINTER; role++) {
            thue_position pos = {.variant = a->variant,
                                 .k = k,
                                 .sym = w.sym,
                                 .n = w.len,
                                 .role = (thue_role)role,
                                 .index = index,
                                 .remaining = a->limit - r->points};
            thue_bot_result res;
            uint64_t seed = thue_bot_move_seed(game_seed, 0, ply, (thue_role)role);
            err = thue_bot_move(spec[role], &pos, &lim, seed, &res);
            if (atomic_load(&a->abort))
                goto out; /* another game failed; this one is abandoned */
            if (err) {
                fail(r, "%s (%s) failed at ply %d: %s", name[role], thue_role_name(role), ply,
                     thue_strerror(err));
                goto out;
            }
            int hi = role == THUE_ROLE_BUILDER ? w.len : k - 1;
            if (res.move < 0 || res.move > hi) {
                fail(r, "bug: %s (%s) played %d at ply %d, outside 0..%d", name[role],
                     thue_role_name(role), res.move, ply, hi);
                goto out;
            }
            if (role == THUE_ROLE_BUILDER) {
                index = res.move;
                r->builder_ms += res.ms;
                r->builder_max = fmax(r->builder_max, res.ms);
            } else {
                symbol = res.move;
                r->painter_ms += res.ms;
                r->painter_max = fmax(r->painter_max, res.ms);
            }
            if (a->keep_moves && record(r, res.move, &res) != 0) {
                fail(r, "%s", thue_strerror(THUE_ENOMEM));
                goto out;
            }
        }
        thue_repetition rep;
        int made = thue_check_insert(w.sym, w.len, a->variant, index, symbol, &rep);
        if (made < 0) {
            fail(r, "bug: the engine rejects inserting %d at %d (ply %d): %s", symbol, index, ply,
                 thue_strerror(made));
            goto out;
        }
        if ((err = thue_word_insert(&w, index, symbol)) != 0) {
            fail(r, "%s", thue_strerror(err));
            goto out;
        }
        if (made) {
            r->end = THUE_ROUND_REPETITION;
            r->rep = rep;
            r->length = w.len;
            break;
        }
        if (++r->points == a->limit) {
            r->end = THUE_ROUND_LIMIT;
            r->length = w.len;
            break;
        }
    }
out:
    r->total_ms = (double)(thue_now_ns() - t0) / 1e6;
    thue_word_free(&w);
}

/* ---- progress and threads ----------------------------------------------------------------- */

static void format_duration(char *buf, size_t size, double s)
{
    if (s < 60)
        snprintf(buf, size, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, size, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, size, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* Draws the progress; called with a->lock held (so lines never mix). On a terminal: the
 * bar, redrawn at most 10 times a second (and when final); otherwise one line each time
 * the count of finished games reaches the next 10% step. */
static void progress_draw(arena *a, int final)
{
    progress *pg = &a->progress;
    int done = a->done, total = a->total;
    int64_t now = thue_now_ns();
    int decile = (int)((int64_t)done * 10 / total);
    if (pg->tty ? !final && now - pg->drawn_ns < 100000000 : decile <= pg->decile)
        return;
    double elapsed = (double)(now - pg->start_ns) / 1e9;
    char el[32], left[48] = "";
    format_duration(el, sizeof el, elapsed);
    if (done > 0 && done < total) {
        char d[32];
        format_duration(d, sizeof d, elapsed * (total - done) / done);
        snprintf(left, sizeof left, ", ~%s left", d);
    }
    if (!pg->tty) {
        pg->decile = decile;
        fprintf(stderr, "thue arena: %3d%% (%d/%d games), %s elapsed%s\n",
                (int)((int64_t)done * 100 / total), done, total, el, left);
        return;
    }
    pg->drawn_ns = now;
    /* Short enough for an 80-column terminal, where a wrapped line could not be redrawn. */
    char bar[21];
    int fill = (int)((int64_t)done * 20 / total);
    for (int i = 0; i < 20; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[20] = '\0';
    int w = fprintf(stderr, "\rarena [%s] %d/%d, %s elapsed%s", bar, done, total, el, left);
    if (w < pg->width)
        fprintf(stderr, "%*s", pg->width - w, ""); /* wipe the end of a longer line */
    pg->width = w;
    fflush(stderr);
}

static void worker(void *arg)
{
    arena *a = arg;
    while (!atomic_load(&a->abort)) {
        int idx = atomic_fetch_add(&a->next, 1);
        if (idx >= a->total)
            break;
        play_game(a, idx, &a->results[idx]);
        if (a->results[idx].failed)
            atomic_store(&a->abort, 1);
        uv_mutex_lock(&a->lock);
        a->done++;
        if (!atomic_load(&a->abort))
            progress_draw(a, 0);
        uv_cond_signal(&a->changed);
        uv_mutex_unlock(&a->lock);
    }
    uv_mutex_lock(&a->lock);
    a->exited++;
    uv_cond_signal(&a->changed);
    uv_mutex_unlock(&a->lock);
}

/* Starts the workers and waits until they have all exited, keeping the bar's clock
 * moving on a terminal. 0, or -1 when no thread could be started. */
static int run_all(arena *a)
{
    uv_thread_t tid[64];
    a->progress = (progress){isatty(STDERR_FILENO), thue_now_ns(), 0, 0, 0};
    int started = 0;
    for (int t = 0; t < a->threads; t++) {
        if (uv_thread_create(&tid[t], worker, a) != 0)
            break;
        started++;
    }
    if (started == 0)
        return -1;
    uv_mutex_lock(&a->lock);
    if (a->progress.tty)
        progress_draw(a, 1); /* the empty bar, at once */
    while (a->exited < started) {
        if (a->progress.tty) {
            (void)uv_cond_timedwait(&a->changed, &a->lock, 250000000);
            if (!atomic_load(&a->abort))
                progress_draw(a, 0);
        } else {
            uv_cond_wait(&a->changed, &a->lock);
        }
    }
    if (a->progress.tty) {
        if (!atomic_load(&a->abort))
            progress_draw(a, 1);
        fputc('\n', stderr);
    }
    uv_mutex_unlock(&a->lock);
    for (int t = 0; t < started; t++)
        uv_thread_join(&tid[t]);
    return 0;
}

/* ---- summaries ------------------------------------------------------------------------- */

typedef struct cell_stats {
    int min, max, at_limit;
    double mean, bmean, bmax, pmean, pmax;
} cell_stats;

static cell_stats stats_of(const arena *a, int cell)
{
    cell_stats s = {0};
    double sum = 0, bsum = 0, psum = 0;
    long decisions = 0; /* per role: one builder and one painter decision per insertion */
    s.min = INT32_MAX;
    for (int g = 0; g < a->games; g++) {
        const game_result *r = &a->results[cell * a->games + g];
        s.min = r->length < s.min ? r->length : s.min;
        s.max = r->length > s.max ? r->length : s.max;
        sum += r->length;
        s.at_limit += r->end == THUE_ROUND_LIMIT;
        bsum += r->builder_ms;
        psum += r->painter_ms;
        decisions += r->length - 1;
        s.bmax = fmax(s.bmax, r->builder_max);
        s.pmax = fmax(s.pmax, r->painter_max);
    }
    s.mean = sum / a->games;
    s.bmean = decisions ? bsum / (double)decisions : 0;
    s.pmean = decisions ? psum / (double)decisions : 0;
    return s;
}

static void write_table(FILE *f, const arena *a)
{
    fprintf(f, "%s variant, limit %d points, %d game%s per cell (game seeds %llu..%llu), ",
            a->variant == THUE_SQUARE ? "Square" : "Overlap", a->limit, a->games,
            a->games == 1 ? "" : "s", (unsigned long long)a->seed,
            (unsigned long long)(a->seed + (uint64_t)a->games - 1));
    if (a->think_ms > 0)
        fprintf(f, "think limit %d ms per move.\n\n", a->think_ms);
    else
        fputs("no think limit.\n\n", f);
    fputs("| k | builder | painter | games | length min | length mean | length max | at limit "
          "| builder ms mean | builder ms max | painter ms mean | painter ms max |\n"
          "|--:|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
          f);
    for (int c = 0; c < a->cells; c++) {
        int ki, bi, pi;
        cell_of(a, c, &ki, &bi, &pi);
        cell_stats s = stats_of(a, c);
        fprintf(f, "| %d | %s | %s | %d | %d | %.2f | %d | %d | %.3f | %.3f | %.3f | %.3f |\n",
                a->ks[ki], a->builders.name[bi], a->painters.name[pi], a->games, s.min, s.mean,
                s.max, s.at_limit, s.bmean, s.bmax, s.pmean, s.pmax);
    }
}

static void json_names(FILE *f, const bot_list *l)
{
    fputc('[', f);
    for (int i = 0; i < l->n; i++) {
        if (i)
            fputc(',', f);
        cli_json_string(f, l->name[i]);
    }
    fputc(']', f);
}

static void write_json(FILE *f, const arena *a)
{
    fprintf(f, "{\"variant\":\"%s\",\"k\":[", thue_variant_name(a->variant));
    for (int i = 0; i < a->nk; i++)
        fprintf(f, i ? ",%d" : "%d", a->ks[i]);
    fputs("],\"builder\":", f);
    json_names(f, &a->builders);
    fputs(",\"painter\":", f);
    json_names(f, &a->painters);
    fprintf(f, ",\"games\":%d,\"seed\":%llu,\"limit\":%d,\"think_ms\":", a->games,
            (unsigned long long)a->seed, a->limit);
    if (a->think_ms > 0)
        fprintf(f, "%d", a->think_ms);
    else
        fputs("null", f);
    fputs(",\"cells\":[", f);
    for (int c = 0; c < a->cells; c++) {
        int ki, bi, pi;
        cell_of(a, c, &ki, &bi, &pi);
        cell_stats s = stats_of(a, c);
        fprintf(f, "%s{\"k\":%d,\"builder\":", c ? "," : "", a->ks[ki]);
        cli_json_string(f, a->builders.name[bi]);
        fputs(",\"painter\":", f);
        cli_json_string(f, a->painters.name[pi]);
        fprintf(f,
                ",\"games\":%d,\"length\":{\"min\":%d,\"mean\":%.4f,\"max\":%d},"
                "\"at_limit\":%d,\"lengths\":[",
                a->games, s.min, s.mean, s.max, s.at_limit);
        for (int g = 0; g < a->games; g++)
            fprintf(f, g ? ",%d" : "%d", a->results[c * a->games + g].length);
        fprintf(f,
                "],\"builder_ms\":{\"mean\":%.4f,\"max\":%.4f},"
                "\"painter_ms\":{\"mean\":%.4f,\"max\":%.4f}}",
                s.bmean, s.bmax, s.pmean, s.pmax);
    }
    fputs("]}\n", f);
}

/* ---- files ------------------------------------------------------------------------------ */

/* A CSV field: quoted when it holds a comma or a quote (uct specs do). */
static void csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_games_csv(FILE *f, const arena *a)
{
    fputs("k,variant,builder,painter,game,seed,length,points,end,rep_start,rep_period,"
          "builder_ms,painter_ms,total_ms\n",
          f);
    for (int idx = 0; idx < a->total; idx++) {
        const game_result *r = &a->results[idx];
        int ki, bi, pi, g = idx % a->games;
        cell_of(a, idx / a->games, &ki, &bi, &pi);
        fprintf(f, "%d,%s,", a->ks[ki], thue_variant_name(a->variant));
        csv_field(f, a->builders.name[bi]);
        fputc(',', f);
        csv_field(f, a->painters.name[pi]);
        fprintf(f, ",%d,%llu,%d,%d,%s,", g, (unsigned long long)(a->seed + (uint64_t)g), r->length,
                r->points, thue_round_end_name(r->end));
        if (r->end == THUE_ROUND_REPETITION)
            fprintf(f, "%d,%d", r->rep.start, r->rep.period);
        else
            fputc(',', f);
        fprintf(f, ",%.4f,%.4f,%.4f\n", r->builder_ms, r->painter_ms, r->total_ms);
    }
}

static void write_moves_csv(FILE *f, const arena *a)
{
    fputs("k,builder,painter,game,ply,role,bot,word_length_before,move,think_ms,nodes\n", f);
    for (int idx = 0; idx < a->total; idx++) {
        const game_result *r = &a->results[idx];
        int ki, bi, pi, g = idx % a->games;
        cell_of(a, idx / a->games, &ki, &bi, &pi);
        for (int m = 0; m < r->nmoves; m++) {
            int ply = m / 2, painter = m % 2;
            const char *bot = painter ? a->painters.name[pi] : a->builders.name[bi];
            fprintf(f, "%d,", a->ks[ki]);
            csv_field(f, a->builders.name[bi]);
            fputc(',', f);
            csv_field(f, a->painters.name[pi]);
            fprintf(f, ",%d,%d,%s,", g, ply, painter ? "painter" : "builder");
            csv_field(f, bot);
            fprintf(f, ",%d,%d,%.4f,%llu\n", ply + 1, r->moves[m].move, r->moves[m].ms,
                    (unsigned long long)r->moves[m].nodes);
        }
    }
}

/*
 * The chart: one series per (role, bot, k), over every cell where that bot plays that
 * role at that k; its point at word length n is the mean decision time of the moves made
 * on a word of length n. 0, or -1 (out of memory or a write error).
 */
static int write_chart(FILE *f, const arena *a)
{
    int maxlen = a->limit + 1; /* longest word a move is made on is limit (before) */
    int nseries = a->nk * (a->builders.n + a->painters.n), status = 0;
    svg_series *ser = calloc((size_t)nseries, sizeof *ser);
    double *sum = calloc((size_t)nseries * (size_t)(maxlen + 1), sizeof *sum);
    long *cnt = calloc((size_t)nseries * (size_t)(maxlen + 1), sizeof *cnt);
    double *xs = calloc((size_t)nseries * (size_t)(maxlen + 1), sizeof *xs);
    double *ys = calloc((size_t)nseries * (size_t)(maxlen + 1), sizeof *ys);
    char(*labels)[NAME_SIZE + 32] = calloc((size_t)nseries, sizeof *labels);
    if (!ser || !sum || !cnt || !xs || !ys || !labels) {
        status = -1;
        goto out;
    }
    /* series index: k first, then the builders, then the painters */
    int per_k = a->builders.n + a->painters.n;
    for (int idx = 0; idx < a->total; idx++) {
        const game_result *r = &a->results[idx];
        int ki, bi, pi;
        cell_of(a, idx / a->games, &ki, &bi, &pi);
        for (int m = 0; m < r->nmoves; m++) {
            int s = ki * per_k + (m % 2 ? a->builders.n + pi : bi);
            size_t at = (size_t)s * (size_t)(maxlen + 1) + (size_t)(m / 2 + 1);
            sum[at] += r->moves[m].ms;
            cnt[at]++;
        }
    }
    int used = 0;
    for (int ki = 0; ki < a->nk; ki++)
        for (int j = 0; j < per_k; j++) {
            int s = ki * per_k + j, painter = j >= a->builders.n;
            size_t base = (size_t)s * (size_t)(maxlen + 1);
            svg_series *out = &ser[used];
            out->x = xs + base;
            out->y = ys + base;
            for (int n = 1; n <= maxlen; n++)
                if (cnt[base + (size_t)n] > 0) {
                    xs[base + (size_t)out->n] = n;
                    ys[base + (size_t)out->n] =
                        sum[base + (size_t)n] / (double)cnt[base + (size_t)n];
                    out->n++;
                }
            if (out->n == 0)
                continue;
            snprintf(
                labels[used], sizeof labels[used], "%s %s, k=%d", painter ? "painter" : "builder",
                painter ? a->painters.name[j - a->builders.n] : a->builders.name[j], a->ks[ki]);
            out->label = labels[used];
            out->dashed = painter;
            used++;
        }
    char title[96];
    snprintf(title, sizeof title, "Decision time against word length (%s, %d game%s per cell)",
             thue_variant_name(a->variant), a->games, a->games == 1 ? "" : "s");
    svg_chart chart = {title, "word length before the move", "mean decision time (ms, log scale)",
                       ser, used};
    status = svg_write_log_chart(f, &chart);
out:
    free(ser);
    free(sum);
    free(cnt);
    free(xs);
    free(ys);
    free(labels);
    return status;
}

/* mkdir -p: 0, or -1 with errno set. */
static int make_dirs(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = c;
            if (c == '\0')
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

enum { F_TABLE, F_GAMES, F_MOVES, F_SVG, F_N };
static const char *const out_names[F_N] = {"table.md", "games.csv", "moves.csv",
                                           "decision-time.svg"};

/* Creates DIR and opens the four files (so that a bad --out fails before the games).
 * 0, or 1 after a message. */
static int open_outputs(const char *dir, FILE *files[F_N], char paths[F_N][4200])
{
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "thue arena: cannot create the directory '%s': %s\n", dir, strerror(errno));
        return 1;
    }
    for (int i = 0; i < F_N; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir, out_names[i]);
        files[i] = fopen(paths[i], "w");
        if (files[i] == NULL) {
            fprintf(stderr, "thue arena: cannot write '%s': %s\n", paths[i], strerror(errno));
            return 1;
        }
    }
    return 0;
}

/* Writes and closes the files; 0, or 1 after a message. */
static int write_outputs(const arena *a, FILE *files[F_N], char paths[F_N][4200])
{
    int status = 0;
    for (int i = 0; i < F_N; i++) {
        int bad = 0;
        switch (i) {
        case F_TABLE:
            write_table(files[i], a);
            break;
        case F_GAMES:
            write_games_csv(files[i], a);
            break;
        case F_MOVES:
            write_moves_csv(files[i], a);
            break;
        case F_SVG:
            bad = write_chart(files[i], a) != 0;
            break;
        }
        bad |= ferror(files[i]) != 0;
        bad |= fclose(files[i]) != 0;
        files[i] = NULL;
        if (bad) {
            fprintf(stderr, "thue arena: cannot write '%s'\n", paths[i]);
            status = 1;
        }
    }
    return status;
}

/* ---- the command ------------------------------------------------------------------------ */

int cmd_arena(int argc, char **argv)
{
    /* --game G other than thue: the game's own form (cmd_game.c, cmd_game_play.c). */
    const char *gname = cli_take_game("arena", &argc, argv);
    if (gname != NULL && strcmp(gname, "thue") != 0)
        return cmd_arena_game(gname, argc, argv);
    const char *ktext = NULL, *variant = NULL, *btext = NULL, *ptext = NULL, *gtext = NULL,
               *seedtext = NULL, *think = NULL, *ltext = NULL, *thtext = NULL, *outdir = NULL,
               *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"k", 1, &ktext, NULL},        {"variant", 1, &variant, NULL},
                      {"builder", 1, &btext, NULL},  {"painter", 1, &ptext, NULL},
                      {"games", 1, &gtext, NULL},    {"seed", 1, &seedtext, NULL},
                      {"think-ms", 1, &think, NULL}, {"limit", 1, &ltext, NULL},
                      {"threads", 1, &thtext, NULL}, {"out", 1, &outdir, NULL},
                      {"json", 0, NULL, &json},      {NULL, 0, NULL, NULL}};
    cli_parse(CMD, usage, argc, argv, opts, pos, 0, 0, &np);

    static arena a; /* large (the spec names); one per process */
    memset(&a, 0, sizeof a);
    a.variant = cli_variant(CMD, variant);
    parse_k_list(ktext ? ktext : "3,4", &a);
    parse_specs("builder", btext ? btext : "0,1,2", &a.builders);
    parse_specs("painter", ptext ? ptext : "0,1,2", &a.painters);
    a.games = cli_int(CMD, "games", gtext, 1, GAMES_MAX, 10);
    a.seed = cli_u64(CMD, "seed", seedtext, 1);
    a.think_ms = cli_int(CMD, "think-ms", think, 1, THINK_MS_MAX, 0);
    a.limit = cli_int(CMD, "limit", ltext, THUE_LIMIT_MIN, THUE_LIMIT_MAX, 300);
    /* perfect proves square k <= 4 and overlap k <= 3 at once; beyond that the round may
     * never end and it would search for ever: it needs a limit of its own. */
    int kmax = 0;
    for (int x = 0; x < a.nk; x++)
        if (a.ks[x] > kmax)
            kmax = a.ks[x];
    if (a.think_ms == 0 && kmax > (a.variant == THUE_SQUARE ? 4 : 3))
        for (int x = 0; x < a.builders.n + a.painters.n; x++) {
            const thue_bot_spec *sp =
                x < a.builders.n ? &a.builders.spec[x] : &a.painters.spec[x - a.builders.n];
            if (sp->kind == THUE_BOT_PERFECT && sp->max_depth == 0)
                cli_usage_error(CMD,
                                "perfect at k = %d needs --think-ms T or perfect:depth=D "
                                "(it cannot prove the game, so it would search for ever)",
                                kmax);
        }
    unsigned cpus = uv_available_parallelism();
    a.threads = cli_int(CMD, "threads", thtext, 1, 64, cpus == 0 ? 1 : cpus > 64 ? 64 : (int)cpus);
    a.cells = a.nk * a.builders.n * a.painters.n;
    if ((int64_t)a.cells * a.games > TOTAL_MAX)
        cli_usage_error(CMD, "%d cells of %d games is more than %d games in all", a.cells, a.games,
                        TOTAL_MAX);
    a.total = a.cells * a.games;
    if (a.threads > a.total)
        a.threads = a.total;
    a.keep_moves = outdir != NULL;

    FILE *files[F_N] = {NULL};
    static char paths[F_N][4200];
    if (outdir != NULL && open_outputs(outdir, files, paths) != 0) {
        for (int i = 0; i < F_N; i++)
            if (files[i])
                fclose(files[i]);
        return 1;
    }

    a.results = calloc((size_t)a.total, sizeof *a.results);
    if (a.results == NULL || uv_mutex_init(&a.lock) != 0) {
        fprintf(stderr, "thue arena: out of memory\n");
        free(a.results);
        return 1;
    }
    if (uv_cond_init(&a.changed) != 0) {
        fprintf(stderr, "thue arena: out of memory\n");
        uv_mutex_destroy(&a.lock);
        free(a.results);
        return 1;
    }
    atomic_init(&a.next, 0);
    atomic_init(&a.abort, 0);

    int status = 0;
    if (run_all(&a) != 0) {
        fprintf(stderr, "thue arena: cannot start a thread\n");
        status = 1;
    }
    for (int i = 0; status == 0 && i < a.total; i++)
        if (a.results[i].failed) {
            int ki, bi, pi;
            cell_of(&a, i / a.games, &ki, &bi, &pi);
            fprintf(stderr, "thue arena: k=%d, %s vs %s, game %d (seed %llu): %s\n", a.ks[ki],
                    a.builders.name[bi], a.painters.name[pi], i % a.games,
                    (unsigned long long)(a.seed + (uint64_t)(i % a.games)), a.results[i].error);
            status = 1;
        }
    if (status == 0) {
        if (json)
            write_json(stdout, &a);
        else
            write_table(stdout, &a);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "thue arena: cannot write the output\n");
            status = 1;
        }
    }
    if (outdir != NULL) {
        if (status == 0)
            status = write_outputs(&a, files, paths);
        for (int i = 0; i < F_N; i++)
            if (files[i])
                fclose(files[i]);
    }
    for (int i = 0; i < a.total; i++)
        free(a.results[i].moves);
    free(a.results);
    uv_cond_destroy(&a.changed);
    uv_mutex_destroy(&a.lock);
    return status;
}
