/*
 * cmd_local.c: `thue local`: a match at one terminal, like the thesis's console program:
 * two humans taking turns, a human against a bot (either seat), or two bots.
 *
 * Every rule lives in the engine's match machine: this file only asks for a number,
 * hands it to thue_match_place / thue_match_paint, and prints what the engine decided
 * (a rejected move is re-prompted with the engine's own error). A bot's move goes through
 * the same calls, so the engine validates it like anyone's. Input is read line by
 * line with fgets, so a pipe works as well as a terminal; a line too long for the buffer
 * is rejected whole (its tail is never read as further moves). With --json the dialogue
 * goes to stderr and stdout carries only the one-line JSON summary.
 *
 * Exit status: 0 when the match ends by points or a resignation, 1 when the input ends
 * mid-match (the player to move abandons) or memory runs out, 2 for bad arguments.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_game.h"
#include "base/errors.h"
#include "games/thue/engine/match.h"
#include "base/rng.h"

static const char usage[] =
    "Usage: thue local [--k K] [--variant square|overlap] [--limit L]\n"
    "                  [--first 1|2|random] [--seed S] [--names A,B] [--json]\n"
    "                  [--builder human|SPEC] [--painter human|SPEC] [--think-ms T]\n"
    "                  [--threads T] [--out DIR]\n"
    "\n"
    "A match of the online Thue game at one terminal: two players taking turns (or\n"
    "reading one answer per line from a pipe), a player against a bot, or two bots.\n"
    "Two rounds; each player builds in one and paints in the other. The word starts as\n"
    "0. The builder types a position 0..n (the gap where the next symbol goes: 0 is the\n"
    "front, n the end); the painter types a symbol 0..K-1 for it. A symbol that makes a\n"
    "repetition ends the round; any other scores the painter a point. More points over\n"
    "both rounds wins; equal points is a draw.\n"
    "\n"
    "  --k K          number of symbols, 2..64 (default 3)\n"
    "  --variant V    square (default): the word must stay free of squares uu;\n"
    "                 overlap: free of overlaps (length 2p+1 with period p)\n"
    "  --limit L      a round also ends when the painter reaches L points,\n"
    "                 1..10000 (default 100)\n"
    "  --first P      who builds in round 1: 1, 2 or random (default)\n"
    "  --seed S       seed of the coin toss for --first and of the bots' choices\n"
    "                 (default: the clock); the same seed replays the same bot moves\n"
    "  --names A,B    the players' names, 1..40 characters each (default: what plays\n"
    "                 each seat, a bot's spec or Player 1/Player 2 for a human; the\n"
    "                 same bot in both seats is \"SPEC (Player 1)\", \"SPEC (Player 2)\")\n"
    "  --builder X    who builds in round 1 (and paints in round 2): human (default)\n"
    "                 or a bot SPEC: greedy | 0, nested:L | L, uct[:...], perfect[:...]\n"
    "  --painter X    who paints in round 1 (and builds in round 2): human or a SPEC.\n"
    "                 With --builder or --painter, player 1 is the round-1 builder.\n"
    "                 The thesis's modes: humanHuman (neither), humanBuilder\n"
    "                 (--painter SPEC), pcBuilder (--builder SPEC), pcPc (both).\n"
    "  --think-ms T   a bot's time limit per move in ms (default 5000); past it the bot\n"
    "                 plays the best move it has\n"
    "  --threads T    threads a bot's move is split over, 1..64 (default 1)\n"
    "  --out DIR      save the game record as JSON in DIR (created if missing), in\n"
    "                 game-<UTC time>-<seed>.json: the --json summary plus \"seed\",\n"
    "                 \"bots\" and \"moves\" (every move with its player, role and think\n"
    "                 time in ms)\n"
    "  --json         the dialogue goes to stderr; at the end stdout gets one line:\n"
    "                 {\"variant\":V,\"k\":K,\"limit\":L,\"players\":[A,B],\"rounds\":[\n"
    "                 {\"builder\":NAME,\"painter\":NAME,\"points\":N,\"end\":E,\n"
    "                 \"repetition\":{\"start\":S,\"period\":P,\"length\":N}|null,\n"
    "                 \"word\":[...]|null},...],\"points\":[PA,PB],\n"
    "                 \"result\":{\"winner\":NAME|null,\"reason\":R}}\n"
    "                 E is repetition, limit, forfeit or not_played; R is score,\n"
    "                 resign or abandon; winner null is a draw.\n"
    "\n"
    "At any prompt 'resign' gives the match up to the opponent and 'help' explains.\n"
    "End of input abandons the match for the (human) player to move.\n"
    "\n"
    "--game G (another game than thue, e.g. nim; 'thue games' lists them) has a form\n"
    "of its own: 'thue local --game G --help'. --game thue is this form.\n"
    "\n"
    "Exit status: 0 the match ended (on points or by resignation), 1 abandoned at end\n"
    "of input or a failure (such as an unwritable --out), 2 bad arguments.\n";

static const char prompt_help[] =
    "  At a prompt type:\n"
    "    a number  the builder: a position 0..n, the gap where the new symbol goes\n"
    "              (0 is the front, n the end; the board's gap line numbers them);\n"
    "              the painter: a symbol 0..k-1 to put there\n"
    "    resign    give up the match: the opponent wins whatever the points\n"
    "    help      this text\n"
    "  End of input abandons the match for the player to move.\n";

#define NAME_MAX_LEN 40
/* A player's name: --names gives at most NAME_MAX_LEN characters; a default name is a
 * bot's whole spec and maybe its seat. */
#define PLAYER_NAME_MAX 200
/* Longest answer line kept (a number or a command needs far less). */
#define LINE_BUF 256

/* One move as it was made, for the saved record. */
typedef struct move_rec {
    int round, player, role, value;
    double ms; /* think time: the bot's search, or a human's time at the prompt */
} move_rec;

typedef struct game {
    thue_match m;
    char name[2][PLAYER_NAME_MAX];
    FILE *out;          /* the dialogue: stdout, or stderr with --json */
    int echo;           /* stdin is not a terminal: echo answers after the prompts */
    thue_word words[2]; /* each round's word as it ended (or stood when forfeited) */
    int have_word[2];
    int is_bot[2];
    thue_bot_spec bot[2];
    thue_bot_limits limits;
    int threads;
    uint64_t seed;
    move_rec *moves; /* every accepted move, in order */
    int nmoves, capmoves;
} game;

/* ---- options ---------------------------------------------------------------------- */

/* Copies the text [s, e) trimmed of blanks into dst as a player's name. */
static void set_name(char *dst, const char *s, const char *e)
{
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    if (s == e)
        cli_usage_error("local", "--names: a name is empty (write --names A,B)");
    if (e - s > NAME_MAX_LEN)
        cli_usage_error("local", "--names: a name is longer than %d characters", NAME_MAX_LEN);
    for (const char *p = s; p < e; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            cli_usage_error("local", "--names: a name contains a control character");
    memcpy(dst, s, (size_t)(e - s));
    dst[e - s] = '\0';
}

static void parse_names(game *g, const char *text)
{
    const char *comma = strchr(text, ',');
    if (comma == NULL || strchr(comma + 1, ',') != NULL)
        cli_usage_error("local", "--names expects two names separated by one comma, got '%s'",
                        text);
    set_name(g->name[0], text, comma);
    set_name(g->name[1], comma + 1, comma + strlen(comma));
    if (strcmp(g->name[0], g->name[1]) == 0)
        cli_usage_error("local", "--names: the two names must differ");
}

/* One SplitMix64 step (base/rng.h): one well-mixed value per seed, so --seed S always
 * gives the same toss. */
static uint64_t mix64(uint64_t x)
{
    return thue_splitmix64(&x);
}

static uint64_t clock_seed(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return (uint64_t)time(NULL);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- input ------------------------------------------------------------------------ */

typedef enum {
    ANS_NUMBER, /* *value holds it (clamped to the int range; the engine judges it) */
    ANS_RESIGN,
    ANS_HELP,
    ANS_INVALID, /* the reason has been printed */
    ANS_EOF
} answer;

/*
 * Reads one line into buf (LINE_BUF bytes). Returns 1 for a line, 0 at end of input,
 * -1 for a line too long (consumed to its end), -2 for a line holding a NUL byte. The buffer is
 * filled with a non-newline byte first so that the newline can be found even past an
 * embedded NUL, which fgets would copy without telling.
 */
static int read_line(char *buf)
{
    memset(buf, 1, LINE_BUF);
    if (fgets(buf, LINE_BUF, stdin) == NULL)
        return 0;
    char *nl = memchr(buf, '\n', LINE_BUF);
    int bad = 0;
    if (nl == NULL && !feof(stdin)) {
        /* The line goes on: drop the rest of it, whatever its length. */
        bad = -1;
        char rest[LINE_BUF];
        for (;;) {
            memset(rest, 1, sizeof rest);
            if (fgets(rest, sizeof rest, stdin) == NULL || memchr(rest, '\n', sizeof rest))
                break;
        }
    } else {
        size_t len = nl ? (size_t)(nl - buf) : strlen(buf);
        if (memchr(buf, '\0', len) != NULL)
            bad = -2;
        buf[len] = '\0';
    }
    return bad ? bad : 1;
}

static int same_word(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != *b)
            return 0;
    return *a == *b;
}

/* Prompts the player to move and reads one answer. */
static answer ask(game *g, int *value)
{
    const thue_match *m = &g->m;
    int who = thue_match_to_move(m);
    if (m->step == THUE_STEP_PLACE)
        fprintf(g->out, "%s (builder), position 0..%d: ", g->name[who], m->word.len);
    else
        fprintf(g->out, "%s (painter), symbol 0..%d at position %d: ", g->name[who], m->opt.k - 1,
                m->placed);
    fflush(g->out);

    char buf[LINE_BUF];
    int got = read_line(buf);
    if (got == 0) {
        fputc('\n', g->out);
        return ANS_EOF;
    }
    if (got < 0) {
        if (g->echo)
            fputs("...\n", g->out);
        if (got == -1)
            fprintf(g->out, "  line too long: an answer is a number or a command\n");
        else
            fputs("  the line holds a NUL byte: type a number or a command\n", g->out);
        return ANS_INVALID;
    }
    char *s = buf, *e = buf + strlen(buf);
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    *e = '\0';
    if (g->echo)
        fprintf(g->out, "%.60s%s\n", s, strlen(s) > 60 ? "..." : "");

    if (*s == '\0') {
        fputs("  empty line: type a number, or 'help'\n", g->out);
        return ANS_INVALID;
    }
    if (same_word(s, "resign"))
        return ANS_RESIGN;
    if (same_word(s, "help") || strcmp(s, "?") == 0)
        return ANS_HELP;
    int sign = (*s == '-' || *s == '+');
    if (!isdigit((unsigned char)s[sign])) {
        fprintf(g->out, "  '%.40s' is not a number: type a number, 'help' or 'resign'\n", s);
        return ANS_INVALID;
    }
    /* Digits by hand rather than strtol: no errno, no locale, and a huge number simply
     * saturates, to be rejected by the engine as out of range. */
    const char *p = s + sign;
    long long v = 0;
    for (; isdigit((unsigned char)*p); p++)
        if (v < 10000000000LL)
            v = v * 10 + (*p - '0');
    if (*p != '\0') {
        fprintf(g->out, "  unexpected '%.40s' after the number: type just the number\n", p);
        return ANS_INVALID;
    }
    if (*s == '-')
        v = -v;
    *value = v > 2147483647LL ? 2147483647 : v < -2147483647LL ? -2147483647 : (int)v;
    return ANS_NUMBER;
}

/* ---- output ----------------------------------------------------------------------- */

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

/* The repetition's factor with its period blocks split by '|': 12|12 for a square,
 * 01|01|0 for an overlap (u|u|a); symbols are comma-separated when one is >= 10. */
static void print_factor(FILE *f, const uint8_t *sym, const thue_repetition *rep)
{
    int wide = 0;
    for (int j = 0; j < rep->length; j++)
        if (sym[rep->start + j] >= 10)
            wide = 1;
    for (int j = 0; j < rep->length; j++) {
        if (j > 0 && j % rep->period == 0)
            fputc('|', f);
        else if (j > 0 && wide)
            fputc(',', f);
        fprintf(f, "%d", sym[rep->start + j]);
    }
}

static void print_header(const game *g)
{
    const thue_match *m = &g->m;
    int b = thue_match_builder(m), p = thue_match_painter(m);
    int pts = thue_match_points(m, p);
    fprintf(g->out, "\nRound %d - %s builds, %s paints; %s has %d point%s\n", m->round + 1,
            g->name[b], g->name[p], g->name[p], pts, plural(pts));
    print_word_board(g->out, m->word.sym, m->word.len, 0, 0);
}

/* Round r has just ended by a paint of symbol c at position i; words[r] is its word. */
static void print_round_end(const game *g, int r, int i, int c)
{
    const thue_match *m = &g->m;
    const thue_round *rd = &m->rounds[r];
    const thue_word *w = &g->words[r];
    const char *painter = g->name[1 - rd->builder];
    if (rd->end == THUE_ROUND_REPETITION) {
        fprintf(g->out, "%s's %d at position %d makes %s ", painter, c, i,
                m->opt.variant == THUE_OVERLAP ? "an overlap" : "a square");
        print_factor(g->out, w->sym, &rd->rep);
        fprintf(g->out, " at positions %d..%d (period %d).\n", rd->rep.start,
                rd->rep.start + rd->rep.length - 1, rd->rep.period);
        print_word_board(g->out, w->sym, w->len, rd->rep.start, rd->rep.start + rd->rep.length);
    } else {
        fprintf(g->out, "%s reached the length limit of %d point%s.\n", painter, m->opt.limit,
                plural(m->opt.limit));
        print_word_board(g->out, w->sym, w->len, 0, 0);
    }
    fprintf(g->out, "Round %d over: %s scored %d point%s.\n", r + 1, painter, rd->points,
            plural(rd->points));
    if (r == 0)
        fprintf(g->out, "Roles swap for round 2: %s builds, %s paints.\n", g->name[1 - rd->builder],
                g->name[rd->builder]);
}

static void print_result(const game *g)
{
    const thue_match *m = &g->m;
    fputs("\nMatch over.\n", g->out);
    for (int r = 0; r < 2; r++) {
        const thue_round *rd = &m->rounds[r];
        const char *b = g->name[rd->builder], *p = g->name[1 - rd->builder];
        if (rd->end == THUE_ROUND_NOT_PLAYED) {
            fprintf(g->out, "  Round %d: not played\n", r + 1);
            continue;
        }
        const char *how = rd->end == THUE_ROUND_REPETITION ? thue_variant_name(m->opt.variant)
                          : rd->end == THUE_ROUND_LIMIT    ? "length limit"
                                                           : "forfeited";
        fprintf(g->out, "  Round %d: %s built, %s painted: %d point%s (%s)\n", r + 1, b, p,
                rd->points, plural(rd->points), how);
    }
    int a = thue_match_points(m, 0), b = thue_match_points(m, 1);
    fprintf(g->out, "  Points: %s %d, %s %d\n", g->name[0], a, g->name[1], b);
    if (m->reason == THUE_END_SCORE && m->winner < 0)
        fprintf(g->out, "Result: draw, %d point%s each.\n", a, plural(a));
    else if (m->reason == THUE_END_SCORE)
        fprintf(g->out, "Result: %s wins on points, %d to %d.\n", g->name[m->winner],
                m->winner == 0 ? a : b, m->winner == 0 ? b : a);
    else
        fprintf(g->out, "Result: %s wins: %s %s.\n", g->name[m->winner], g->name[m->forfeiter],
                m->reason == THUE_END_RESIGN ? "resigned" : "abandoned the match");
}

/* The match summary as JSON; with record set, also the seed, the bots and every move
 * (the saved game record). */
static void write_json(const game *g, FILE *f, int record)
{
    const thue_match *m = &g->m;
    fprintf(f, "{\"variant\":\"%s\",\"k\":%d,\"limit\":%d,\"players\":[",
            thue_variant_name(m->opt.variant), m->opt.k, m->opt.limit);
    cli_json_string(f, g->name[0]);
    fputc(',', f);
    cli_json_string(f, g->name[1]);
    fputs("],\"rounds\":[", f);
    for (int r = 0; r < 2; r++) {
        const thue_round *rd = &m->rounds[r];
        fputs(r ? ",{\"builder\":" : "{\"builder\":", f);
        cli_json_string(f, g->name[rd->builder]);
        fputs(",\"painter\":", f);
        cli_json_string(f, g->name[1 - rd->builder]);
        fprintf(f, ",\"points\":%d,\"end\":\"%s\",\"repetition\":", rd->points,
                thue_round_end_name(rd->end));
        json_repetition(f, rd->end == THUE_ROUND_REPETITION ? &rd->rep : NULL);
        fputs(",\"word\":", f);
        if (g->have_word[r])
            json_word(f, g->words[r].sym, g->words[r].len);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fprintf(f, "],\"points\":[%d,%d],\"result\":{\"winner\":", thue_match_points(m, 0),
            thue_match_points(m, 1));
    if (m->winner < 0)
        fputs("null", f);
    else
        cli_json_string(f, g->name[m->winner]);
    fprintf(f, ",\"reason\":\"%s\"}", thue_end_reason_name(m->reason));
    if (record) {
        fprintf(f, ",\"seed\":%llu,\"bots\":[", (unsigned long long)g->seed);
        for (int p = 0; p < 2; p++) {
            char spec[160];
            if (p)
                fputc(',', f);
            if (g->is_bot[p]) {
                thue_bot_spec_format(&g->bot[p], spec, sizeof spec);
                cli_json_string(f, spec);
            } else {
                fputs("null", f);
            }
        }
        fprintf(f, "],\"think_ms\":%lld,\"moves\":[", (long long)g->limits.think_ms);
        for (int x = 0; x < g->nmoves; x++) {
            const move_rec *mv = &g->moves[x];
            fprintf(f, "%s{\"round\":%d,\"player\":", x ? "," : "", mv->round + 1);
            cli_json_string(f, g->name[mv->player]);
            fprintf(f, ",\"role\":\"%s\",\"move\":%d,\"ms\":%.3f}",
                    mv->role == THUE_ROLE_BUILDER ? "builder" : "painter", mv->value, mv->ms);
        }
        fputc(']', f);
    }
    fputs("}\n", f);
    fflush(f);
}

/* Saves the game record in dir: 0, or -1 with the reason printed. */
static int save_record(const game *g, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "thue local: cannot create '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    char stamp[32], path[4096];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    FILE *f = NULL;
    for (int n = 0; n < 100 && f == NULL; n++) {
        int len = n == 0 ? snprintf(path, sizeof path, "%s/game-%s-%llu.json", dir, stamp,
                                    (unsigned long long)g->seed)
                         : snprintf(path, sizeof path, "%s/game-%s-%llu-%d.json", dir, stamp,
                                    (unsigned long long)g->seed, n);
        if (len < 0 || (size_t)len >= sizeof path) {
            fprintf(stderr, "thue local: the --out path is too long\n");
            return -1;
        }
        /* "x": never overwrite an earlier record made in the same second. */
        f = fopen(path, "wx");
        if (f == NULL && errno != EEXIST)
            break;
    }
    if (f == NULL) {
        fprintf(stderr, "thue local: cannot write a record in '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    write_json(g, f, 1);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "thue local: cannot write '%s'\n", path);
        return -1;
    }
    fprintf(g->out, "Game record saved to %s\n", path);
    return 0;
}

/* ---- play ------------------------------------------------------------------------- */

/* Explains a move the engine rejected, with the ranges that apply right now. */
static void print_rejection(const game *g, int value, int err)
{
    const thue_match *m = &g->m;
    fprintf(g->out, "  %d: %s", value, thue_strerror(err));
    if (err == THUE_EPOSITION)
        fprintf(g->out, " (here 0..%d)", m->word.len);
    else if (err == THUE_ESYMBOL)
        fprintf(g->out, " (here 0..%d)", m->opt.k - 1);
    fputc('\n', g->out);
}

/* The player to move forfeits; the current round's word is kept for the summary. */
static int forfeit(game *g, thue_end_reason why)
{
    thue_match *m = &g->m;
    int who = thue_match_to_move(m), r = m->round;
    int err = thue_word_assign(&g->words[r], m->word.sym, m->word.len);
    if (err)
        return err;
    g->have_word[r] = 1;
    if (why == THUE_END_RESIGN)
        fprintf(g->out, "%s resigns.\n", g->name[who]);
    else
        fprintf(g->out, "End of input: %s abandons the match.\n", g->name[who]);
    return thue_match_forfeit(m, who, why);
}

/*
 * One step of the player to move: prompts until the engine accepts a move, or the
 * player resigns or the input ends. Returns 0 or a negative THUE_E... (out of memory).
 */
static int record_move(game *g, int round, int player, int placing, int value, double ms)
{
    if (g->nmoves == g->capmoves) {
        int cap = g->capmoves ? 2 * g->capmoves : 256;
        move_rec *mv = realloc(g->moves, (size_t)cap * sizeof *mv);
        if (mv == NULL)
            return THUE_ENOMEM;
        g->moves = mv;
        g->capmoves = cap;
    }
    g->moves[g->nmoves++] =
        (move_rec){round, player, placing ? THUE_ROLE_BUILDER : THUE_ROLE_PAINTER, value, ms};
    return 0;
}

/* A bot's move: its search, then the same engine call as a human's. */
static int bot_step(game *g, int who, int placing, int *value, double *ms)
{
    thue_match *m = &g->m;
    int r = m->round, ply = m->rounds[r].points;
    thue_role role = placing ? THUE_ROLE_BUILDER : THUE_ROLE_PAINTER;
    thue_position pos = {m->opt.variant, m->opt.k,  m->word.sym,       m->word.len,
                         role,           m->placed, m->opt.limit - ply};
    thue_bot_result res;
    uint64_t seed = thue_bot_move_seed(g->seed, r, ply, role);
    int err = cli_bot_move(&g->bot[who], &pos, &g->limits, seed, g->threads, &res, NULL);
    if (err)
        return err;
    *value = res.move;
    *ms = res.ms;
    if (placing)
        fprintf(g->out, "%s (builder) plays position %d", g->name[who], res.move);
    else
        fprintf(g->out, "%s (painter) paints %d at position %d", g->name[who], res.move, m->placed);
    fprintf(g->out, "  [%.1f ms%s]\n", res.ms, res.stopped ? ", time limit" : "");
    return 0;
}

/* After the engine accepted move v of `who` in round r (i: the placed position for a
 * paint): records it and, when a paint ended the round, keeps and shows the round's end. */
static int accepted(game *g, int r, int who, int placing, int i, int v, double ms)
{
    int err = record_move(g, r, who, placing, v, ms);
    if (err)
        return err;
    if (!placing && g->m.rounds[r].end != THUE_ROUND_PLAYING) {
        if ((err = thue_word_insert(&g->words[r], i, v)) != 0)
            return err;
        g->have_word[r] = 1;
        print_round_end(g, r, i, v);
    }
    return 0;
}

static int play_step(game *g)
{
    thue_match *m = &g->m;
    int r = m->round, who = thue_match_to_move(m), placing = m->step == THUE_STEP_PLACE;
    int i = m->placed;
    if (placing) {
        print_header(g);
    } else {
        /* A paint that ends the round starts the next one in the same word buffer:
         * keep this round's word (the paint is added below) for the summary. */
        int err = thue_word_assign(&g->words[r], m->word.sym, m->word.len);
        if (err)
            return err;
    }
    int64_t asked = thue_now_ns();
    for (;;) {
        int v = 0;
        double ms = 0;
        if (g->is_bot[who]) {
            int err = bot_step(g, who, placing, &v, &ms);
            if (err)
                return err;
            err = placing ? thue_match_place(m, who, v) : thue_match_paint(m, who, v);
            if (err) { /* a bot bug: never played, never hidden */
                fprintf(stderr, "thue local: the bot's move %d was rejected: %s\n", v,
                        thue_strerror(err));
                return err;
            }
            return accepted(g, r, who, placing, i, v, ms);
        }
        switch (ask(g, &v)) {
        case ANS_EOF:
            return forfeit(g, THUE_END_ABANDON);
        case ANS_RESIGN:
            return forfeit(g, THUE_END_RESIGN);
        case ANS_HELP:
            fputs(prompt_help, g->out);
            continue;
        case ANS_INVALID:
            continue;
        case ANS_NUMBER:
            break;
        }
        int err = placing ? thue_match_place(m, who, v) : thue_match_paint(m, who, v);
        if (err) {
            print_rejection(g, v, err);
            continue;
        }
        return accepted(g, r, who, placing, i, v, (double)(thue_now_ns() - asked) / 1e6);
    }
}

/* --builder / --painter: "human" (0) or a bot spec (1, *spec set). */
static int parse_seat(const char *opt, const char *text, thue_bot_spec *spec)
{
    if (text == NULL || strcmp(text, "human") == 0)
        return 0;
    cli_bot_spec("local", opt, text, spec);
    return 1;
}

int cmd_local(int argc, char **argv)
{
    /* --game G other than thue: the game's own form (cmd_game.c, cmd_game_play.c). */
    const char *gname = cli_take_game("local", &argc, argv);
    if (gname != NULL && strcmp(gname, "thue") != 0)
        return cmd_local_game(gname, argc, argv);
    const char *ktext = NULL, *variant = NULL, *limit = NULL, *first = NULL, *seed = NULL,
               *names = NULL, *builder = NULL, *painter = NULL, *think = NULL, *thtext = NULL,
               *outdir = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"k", 1, &ktext, NULL},         {"variant", 1, &variant, NULL},
                      {"limit", 1, &limit, NULL},     {"first", 1, &first, NULL},
                      {"seed", 1, &seed, NULL},       {"names", 1, &names, NULL},
                      {"builder", 1, &builder, NULL}, {"painter", 1, &painter, NULL},
                      {"think-ms", 1, &think, NULL},  {"threads", 1, &thtext, NULL},
                      {"out", 1, &outdir, NULL},      {"json", 0, NULL, &json},
                      {NULL, 0, NULL, NULL}};
    cli_parse("local", usage, argc, argv, opts, pos, 0, 0, &np);

    static game g; /* zeroed; one per process */
    thue_match_options o = thue_match_defaults();
    o.k = cli_int("local", "k", ktext, THUE_K_MIN, THUE_K_MAX, 3);
    o.variant = cli_variant("local", variant);
    o.limit = cli_int("local", "limit", limit, THUE_LIMIT_MIN, THUE_LIMIT_MAX, THUE_LIMIT_DEFAULT);
    uint64_t s = cli_u64("local", "seed", seed, 0);
    if (seed == NULL)
        s = clock_seed();
    g.seed = s;
    g.limits.think_ms = cli_int("local", "think-ms", think, 1, 86400000, 5000);
    g.threads = cli_int("local", "threads", thtext, 1, THUE_BOT_PARTS_MAX, 1);
    /* Seats: player 1 builds in round 1 whenever a seat is named. */
    int seats = builder != NULL || painter != NULL;
    g.is_bot[0] = parse_seat("builder", builder, &g.bot[0]);
    g.is_bot[1] = parse_seat("painter", painter, &g.bot[1]);
    if (names) {
        parse_names(&g, names);
    } else {
        /* Each seat is named for what plays it, both the same way: a bot by its spec, a
         * human by the seat; the same bot in both seats adds the seat to both. */
        char spec[2][160];
        for (int p = 0; p < 2; p++) {
            if (g.is_bot[p])
                thue_bot_spec_format(&g.bot[p], spec[p], sizeof spec[p]);
            else
                snprintf(spec[p], sizeof spec[p], "Player %d", p + 1);
        }
        int same = strcmp(spec[0], spec[1]) == 0;
        for (int p = 0; p < 2; p++) {
            if (same)
                snprintf(g.name[p], sizeof g.name[p], "%.159s (Player %d)", spec[p], p + 1);
            else
                snprintf(g.name[p], sizeof g.name[p], "%.159s", spec[p]);
        }
    }
    int toss = !seats && (first == NULL || strcmp(first, "random") == 0);
    if (first != NULL && strcmp(first, "random") != 0 && strcmp(first, "1") != 0 &&
        strcmp(first, "2") != 0)
        cli_usage_error("local", "--first must be 1, 2 or random, got '%s'", first);
    if (seats && first != NULL && strcmp(first, "1") != 0)
        cli_usage_error("local",
                        "--first %s contradicts --builder/--painter, which make player 1 "
                        "the round-1 builder",
                        first);
    o.first_builder = toss ? (int)(mix64(s) >> 63) : seats ? 0 : first[0] - '1';

    g.out = json ? stderr : stdout;
    g.echo = !isatty(STDIN_FILENO);
    thue_word_init(&g.words[0]);
    thue_word_init(&g.words[1]);
    int err = thue_match_init(&g.m, &o);
    if (err) {
        fprintf(stderr, "thue local: %s\n", thue_strerror(err));
        return 1;
    }

    fprintf(g.out, "Thue game: %s variant, k = %d (symbols 0..%d), length limit %d.\n",
            thue_variant_name(o.variant), o.k, o.k - 1, o.limit);
    for (int p = 0; p < 2; p++) {
        if (g.is_bot[p]) {
            char spec[160];
            thue_bot_spec_format(&g.bot[p], spec, sizeof spec);
            fprintf(g.out, "%s is the bot %s (at most %lld ms a move).\n", g.name[p], spec,
                    (long long)g.limits.think_ms);
        }
    }
    if (toss)
        fprintf(g.out, "Coin toss (--seed %llu): ", (unsigned long long)s);
    fprintf(g.out, "%s builds in round 1, %s in round 2. Type 'help' at a prompt.\n",
            g.name[o.first_builder], g.name[1 - o.first_builder]);

    while (!thue_match_over(&g.m) && err == 0)
        err = play_step(&g);
    int status = 0;
    if (err) {
        fprintf(stderr, "thue local: %s\n", thue_strerror(err));
        status = 1;
    } else {
        print_result(&g);
        fflush(g.out);
        if (json)
            write_json(&g, stdout, 0);
        status = g.m.reason == THUE_END_ABANDON ? 1 : 0;
        if (outdir != NULL && save_record(&g, outdir) != 0)
            status = 1;
    }
    thue_match_free(&g.m);
    thue_word_free(&g.words[0]);
    thue_word_free(&g.words[1]);
    free(g.moves);
    return status;
}
