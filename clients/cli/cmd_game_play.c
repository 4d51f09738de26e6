/*
 * cmd_game_play.c: matches of the games behind game.h: `thue local --game G` (humans and
 * bots on one terminal) and `thue arena --game G` (bot against bot in batches).
 *
 * Every rule lives in the game's table: a human's answer becomes a move (its JSON through
 * move_parse, or the short form of up to four numbers straight into the move), and
 * apply judges it; a refused move prints the game's own sentence and the same player is
 * asked again. A bot's move goes through apply too, so it is checked like anyone's.
 *
 * Seats are players 0 and 1: --white is player 0, who moves first, --black player 1. A
 * match ends when the game says so, or at --max-moves moves (a draw, "move_cap"), so a
 * game whose play need not end still finishes.
 *
 * The arena plays, for every ordered pair (A, B) of distinct entries of --players, N
 * games: game g starts from the game's start position for seed S + g, A is player 0 in
 * the even games and player 1 in the odd ones, and each move's seed comes from the game
 * seed and the ply. So every pair meets the same start positions, and a run is
 * reproducible from S.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_game_int.h"
#include "base/errors.h"

#define NAME_LEN 40
/* A seat's name: --names gives at most NAME_LEN characters; a default name is a bot's
 * whole spec (gbot.h's canonical text) and maybe its seat. */
#define SEAT_NAME_MAX 200
#define LINE_BUF 1024
#define MAX_MOVES_DEFAULT 10000

static uint64_t mix64(uint64_t x)
{
    return thue_gmix64(x);
}

/* ---- one match ---------------------------------------------------------------------- */

typedef struct seat {
    int bot; /* 0: a human */
    thue_gbot_spec spec;
    char name[SEAT_NAME_MAX];
} seat;

typedef struct match {
    const thue_gamedef *g;
    thue_gopt opt;
    void *st;
    seat seat[2];
    thue_bot_limits lim;
    uint64_t seed;
    int max_moves;
    int moves;
    FILE *out; /* the dialogue (NULL: silent, the arena) */
    int echo;
    json_t *record; /* the moves, for --json (NULL: not kept) */
    /* The end. */
    int over, winner; /* winner -1: a draw */
    const char *why;  /* the game's reason, "move_cap", "resign" or "abandon" */
    char failed[200]; /* a bot failed: why, when it said (gbot.h's result why) */
} match;

static char *state_text(const match *m)
{
    return cli_json_text(m->g->state_json(&m->opt, m->st));
}

/* Reads one line (1), end of input (0) or a line too long, consumed whole (-1). */
static int read_line(char *buf)
{
    if (fgets(buf, LINE_BUF, stdin) == NULL)
        return 0;
    size_t len = strlen(buf);
    if (len > 0 && buf[len - 1] == '\n') {
        buf[len - 1] = '\0';
        return 1;
    }
    if (feof(stdin))
        return 1;
    int c;
    while ((c = getchar()) != EOF && c != '\n')
        ;
    return -1;
}

/* The short form: 1..4 integers separated by blanks or commas. 0, or -1 when s is not. */
static int short_move(const char *s, thue_gmove *m)
{
    memset(m, 0, sizeof *m);
    int n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == ',')
            s++;
        if (*s == '\0')
            break;
        if (n == 4)
            return -1;
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < -2147483647L || v > 2147483647L)
            return -1;
        m->v[n++] = (int32_t)v;
        s = end;
        if (*s != '\0' && *s != ' ' && *s != '\t' && *s != ',')
            return -1;
    }
    return n > 0 ? 0 : -1;
}

static void print_help(const match *m)
{
    fprintf(m->out,
            "  Type a move as JSON, %s, or its numbers (e.g. \"0 2\" for the first two\n"
            "  members), 'moves' for the legal moves, 'resign' to give up.\n",
            m->g->move_doc);
}

static void print_moves(const match *m)
{
    int cap = m->g->max_moves(&m->opt);
    thue_gmove *mv = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *mv);
    if (mv == NULL)
        return;
    int n = m->g->legal_moves(&m->opt, m->st, mv);
    fprintf(m->out, "  %d legal move%s:", n, n == 1 ? "" : "s");
    for (int i = 0; i < n && i < 50; i++) {
        char *t = cli_json_text(m->g->move_json(&m->opt, &mv[i]));
        fprintf(m->out, " %s", t);
        free(t);
    }
    fprintf(m->out, "%s\n", n > 50 ? " ..." : "");
    free(mv);
}

/* The human to move answers: 0 a move applied, 1 resign, 2 end of input. */
static int human_move(match *m, int who, thue_gmove *played)
{
    for (;;) {
        fprintf(m->out, "%s (player %d): ", m->seat[who].name, who);
        fflush(m->out);
        char buf[LINE_BUF];
        int got = read_line(buf);
        if (got == 0) {
            fputc('\n', m->out);
            return 2;
        }
        if (got < 0) {
            fprintf(m->out, "%s  line too long: type a move, 'help' or 'resign'\n",
                    m->echo ? "...\n" : "");
            continue;
        }
        char *s = buf, *e = buf + strlen(buf);
        while (s < e && isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        *e = '\0';
        if (m->echo)
            fprintf(m->out, "%.80s\n", s);
        if (strcmp(s, "resign") == 0)
            return 1;
        if (strcmp(s, "help") == 0 || strcmp(s, "?") == 0) {
            print_help(m);
            continue;
        }
        if (strcmp(s, "moves") == 0) {
            print_moves(m);
            continue;
        }
        thue_gerr err;
        memset(&err, 0, sizeof err);
        thue_gmove mv;
        int rc;
        if (*s == '{') {
            json_error_t je;
            json_t *j = json_loads(s, JSON_REJECT_DUPLICATES, &je);
            if (j == NULL) {
                fprintf(m->out, "  not JSON (%s): a move is %s\n", je.text, m->g->move_doc);
                continue;
            }
            rc = m->g->move_parse(&m->opt, j, &mv, &err);
            json_decref(j);
        } else if (short_move(s, &mv) == 0) {
            rc = 0;
        } else {
            fprintf(m->out, "  '%.40s' is not a move: type %s, its numbers, or 'help'\n", s,
                    m->g->move_doc);
            continue;
        }
        if (rc == 0)
            rc = m->g->apply(&m->opt, m->st, who, &mv, &err);
        if (rc != 0) {
            fprintf(m->out, "  refused: %s\n", err.msg[0] ? err.msg : thue_strerror(rc));
            continue;
        }
        *played = mv;
        return 0;
    }
}

static int bot_move(match *m, int who, thue_gmove *played, double *ms)
{
    uint64_t seed = mix64(m->seed ^ mix64((uint64_t)m->moves + 0x51ull));
    thue_gbot_result r;
    int err = thue_gbot_choose(m->g, &m->opt, m->st, &m->seat[who].spec, seed, &m->lim, &r);
    if (err) {
        snprintf(m->failed, sizeof m->failed, "%s", r.why);
        return err;
    }
    thue_gerr e;
    memset(&e, 0, sizeof e);
    err = m->g->apply(&m->opt, m->st, who, &r.move, &e);
    if (err) {
        fprintf(stderr, "thue: the bot's move was refused: %s\n", e.msg);
        return err;
    }
    *played = r.move;
    *ms = r.ms;
    return 0;
}

/* Plays to the end. 0, or a bot's error (THUE_ETOOBIG, THUE_ENOMEM, ...). */
static int play(match *m)
{
    while (!m->over) {
        int who = m->g->to_move(&m->opt, m->st);
        if (who < 0) {
            thue_gresult r;
            m->g->result(&m->opt, m->st, &r);
            m->over = 1;
            m->winner = r.winner;
            m->why = r.why;
            break;
        }
        if (m->moves >= m->max_moves) {
            m->over = 1;
            m->winner = -1;
            m->why = "move_cap";
            break;
        }
        thue_gmove mv;
        double ms = 0;
        if (m->seat[who].bot) {
            int err = bot_move(m, who, &mv, &ms);
            if (err)
                return err;
        } else {
            int a = human_move(m, who, &mv);
            if (a != 0) {
                m->over = 1;
                m->winner = 1 - who;
                m->why = a == 1 ? "resign" : "abandon";
                break;
            }
        }
        m->moves++;
        if (m->out != NULL) {
            char *t = cli_json_text(m->g->move_json(&m->opt, &mv));
            char *s = state_text(m);
            fprintf(m->out, "%s plays %s\n  position: %s\n", m->seat[who].name, t, s);
            free(t);
            free(s);
        }
        if (m->record != NULL)
            json_array_append_new(m->record, json_pack("{s:i,s:o,s:f}", "player", who, "move",
                                                       m->g->move_json(&m->opt, &mv), "ms", ms));
    }
    return 0;
}

/* ---- local --game ------------------------------------------------------------------- */

static const char local_usage[] =
    "Usage: thue local --game G [--options JSON] [--white human|SPEC]\n"
    "                  [--black human|SPEC] [--names A,B] [--seed S] [--think-ms T]\n"
    "                  [--max-moves M] [--json]\n"
    "\n"
    "A match of game G other than thue at one terminal ('thue games' lists them; --game\n"
    "thue, or no --game, is the Thue match: 'thue local --help'): two players taking\n"
    "turns (or reading one answer per line from a pipe), a player against a bot, or two\n"
    "bots. White is player 0 and moves first.\n"
    "\n"
    "  --game G         the game (required for this form)\n"
    "  --options JSON   the game's options (default: its defaults; 'thue games')\n"
    "  --white X        player 0: human (default) or a bot SPEC: random,\n"
    "                   uct[:iterations=N,ms=T,playout=M,c=X] or perfect\n"
    "  --black X        player 1, the same way\n"
    "  --names A,B      the players' names, 1..40 characters each (default: what plays\n"
    "                   each seat, a bot's spec or White/Black for a human; the same bot\n"
    "                   in both seats is \"SPEC (White)\" and \"SPEC (Black)\")\n"
    "  --seed S         seed of the start position (where the options ask for a random\n"
    "                   one) and of the bots' choices (default: the clock)\n"
    "  --think-ms T     a bot's time limit per move in ms (default 5000)\n"
    "  --max-moves M    the match is drawn after M moves, 1..1000000 (default 10000)\n"
    "  --json           the dialogue goes to stderr; at the end stdout gets one line:\n"
    "                   {\"game\":G,\"options\":{...},\"players\":[A,B],\"seed\":S,\n"
    "                   \"moves\":[{\"player\":P,\"move\":{...},\"ms\":T},...],\n"
    "                   \"position\":{...},\"result\":{\"winner\":NAME|null,\"reason\":R}}\n"
    "                   R is the game's reason, move_cap, resign or abandon\n"
    "\n"
    "A human types the move's JSON (for nim {\"heap\":0,\"take\":2}) or its numbers in\n"
    "order (\"0 2\"); 'moves' lists the legal moves, 'help' explains, 'resign' gives up.\n"
    "A refused move is explained and the same player asked again. End of input abandons\n"
    "the match for the player to move.\n"
    "\n"
    "Exit status: 0 the match ended (by the rules, the move cap or a resignation), 1\n"
    "abandoned at end of input or a failure, 2 bad arguments.\n";

static void parse_seat(const char *opt, const thue_gamedef *g, const char *text, seat *s)
{
    s->bot = text != NULL && strcmp(text, "human") != 0;
    if (s->bot)
        cli_gbot_spec("local", opt, g, text, &s->spec);
}

static void set_names(match *m, const char *names)
{
    if (names != NULL) {
        const char *comma = strchr(names, ',');
        if (comma == NULL || strchr(comma + 1, ',') != NULL)
            cli_usage_error("local", "--names expects two names separated by one comma");
        size_t la = (size_t)(comma - names), lb = strlen(comma + 1);
        if (la == 0 || lb == 0 || la > NAME_LEN || lb > NAME_LEN)
            cli_usage_error("local", "--names: each name is 1..%d characters", NAME_LEN);
        memcpy(m->seat[0].name, names, la);
        m->seat[0].name[la] = '\0';
        memcpy(m->seat[1].name, comma + 1, lb + 1);
        if (strcmp(m->seat[0].name, m->seat[1].name) == 0)
            cli_usage_error("local", "--names: the two names must differ");
        return;
    }
    /* The default: each seat is named for what plays it, both the same way: a bot by its
     * spec, a human by the seat; the same bot in both seats adds the seat to both. */
    static const char *const seat_name[2] = {"White", "Black"};
    char spec[2][160] = {"", ""};
    for (int p = 0; p < 2; p++) {
        if (m->seat[p].bot)
            thue_gbot_spec_format(&m->seat[p].spec, spec[p], sizeof spec[p]);
        else
            snprintf(spec[p], sizeof spec[p], "%s", seat_name[p]);
    }
    int same = strcmp(spec[0], spec[1]) == 0;
    for (int p = 0; p < 2; p++) {
        if (same)
            snprintf(m->seat[p].name, sizeof m->seat[p].name, "%.159s (%s)", spec[p],
                     seat_name[p]);
        else
            snprintf(m->seat[p].name, sizeof m->seat[p].name, "%.159s", spec[p]);
    }
}

int cmd_local_game(const char *game, int argc, char **argv)
{
    const char *otext = NULL, *white = NULL, *black = NULL, *names = NULL, *seedtext = NULL,
               *think = NULL, *mtext = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {
        {"options", 1, &otext, NULL},   {"white", 1, &white, NULL},   {"black", 1, &black, NULL},
        {"names", 1, &names, NULL},     {"seed", 1, &seedtext, NULL}, {"think-ms", 1, &think, NULL},
        {"max-moves", 1, &mtext, NULL}, {"json", 0, NULL, &json},     {NULL, 0, NULL, NULL}};
    cli_parse("local", local_usage, argc, argv, opts, pos, 0, 0, &np);
    static match m;
    m.g = cli_game("local", game);
    cli_game_options("local", m.g, otext, &m.opt);
    parse_seat("white", m.g, white, &m.seat[0]);
    parse_seat("black", m.g, black, &m.seat[1]);
    set_names(&m, names);
    m.seed = seedtext ? cli_u64("local", "seed", seedtext, 0)
                      : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    m.lim.think_ms = cli_int("local", "think-ms", think, 1, 86400000, 5000);
    m.max_moves = cli_int("local", "max-moves", mtext, 1, 1000000, MAX_MOVES_DEFAULT);
    m.out = json ? stderr : stdout;
    m.echo = !isatty(STDIN_FILENO);
    m.record = json ? json_array() : NULL;
    size_t sz = m.g->state_size(&m.opt);
    m.st = calloc(1, sz ? sz : 1);
    if (m.st == NULL) {
        fputs("thue local: out of memory\n", stderr);
        return 1;
    }
    m.g->start(&m.opt, m.seed, m.st);
    char *o = cli_json_text(m.g->options_json(&m.opt));
    char *s = state_text(&m);
    fprintf(m.out, "%s (%s), options %s.\n%s\nStart: %s\n", m.g->title, m.g->name, o, m.g->summary,
            s);
    free(s);
    for (int p = 0; p < 2; p++)
        if (m.seat[p].bot) {
            char spec[160];
            thue_gbot_spec_format(&m.seat[p].spec, spec, sizeof spec);
            fprintf(m.out, "%s (player %d) is the bot %s (at most %lld ms a move).\n",
                    m.seat[p].name, p, spec, (long long)m.lim.think_ms);
        }
    fprintf(m.out, "%s moves first. Type 'help' at a prompt.\n", m.seat[0].name);
    int err = play(&m);
    if (err) {
        fprintf(stderr, "thue local: a bot failed: %s%s%s\n",
                err == THUE_ETOOBIG ? "perfect could not decide a position" : thue_strerror(err),
                m.failed[0] ? ": " : err == THUE_ETOOBIG ? " in time" : "", m.failed);
        free(o);
        json_decref(m.record);
        free(m.st);
        return 1;
    }
    if (m.winner >= 0)
        fprintf(m.out, "%s wins (%s) after %d moves.\n", m.seat[m.winner].name, m.why, m.moves);
    else
        fprintf(m.out, "Draw (%s) after %d moves.\n", m.why, m.moves);
    fflush(m.out);
    if (json) {
        json_t *opts_j = json_loads(o, 0, NULL);
        json_t *res =
            json_pack("{s:o,s:s}", "winner",
                      m.winner >= 0 ? jstr(m.seat[m.winner].name) : json_null(), "reason", m.why);
        char *line = cli_json_text(
            json_pack("{s:s,s:o,s:[s,s],s:I,s:o,s:o,s:o}", "game", m.g->name, "options", opts_j,
                      "players", m.seat[0].name, m.seat[1].name, "seed", (json_int_t)m.seed,
                      "moves", m.record, "position", m.g->state_json(&m.opt, m.st), "result", res));
        puts(line);
        free(line);
    } else {
        json_decref(m.record);
    }
    free(o);
    free(m.st);
    return strcmp(m.why, "abandon") == 0 ? 1 : 0;
}

/* ---- arena --game ------------------------------------------------------------------- */

static const char arena_usage[] =
    "Usage: thue arena --game G [--options JSON] --players SPECS [--games N] [--seed S]\n"
    "                  [--think-ms T] [--max-moves M] [--json]\n"
    "\n"
    "Bot against bot in game G other than thue ('thue games'; --game thue, or no --game,\n"
    "is the Thue arena: 'thue arena --help'). For every ordered pair (A, B) of distinct\n"
    "entries of SPECS, plays N games: game g (0..N-1) starts from the game's start\n"
    "position for seed S + g, A moves first in the even games and B in the odd ones.\n"
    "Every move is checked by the game. Prints wins, draws and losses of A against B,\n"
    "and the points (a game's result score: boxes in dots, 1 a win elsewhere) A and B\n"
    "scored in all.\n"
    "\n"
    "  --game G         the game (required for this form)\n"
    "  --options JSON   the game's options (default: its defaults)\n"
    "  --players SPECS  two or more bots, comma-separated: random, uct[:...], perfect, or\n"
    "                   one of the game's own ('thue games': dots has heuristic and\n"
    "                   strong); a comma starts a new spec only when a spec follows, so\n"
    "                   uct:iterations=500,c=0.7 is one spec (required)\n"
    "  --games N        games per ordered pair, 1..100000 (default 10)\n"
    "  --seed S         the first game's seed (default 1); each move's seed derives from\n"
    "                   its game's and the ply\n"
    "  --think-ms T     time limit per move in ms (default: none)\n"
    "  --max-moves M    a game is drawn after M moves, 1..1000000 (default 10000)\n"
    "  --json           print {\"game\":G,\"options\":{...},\"players\":[SPEC,...],\"games\":N,\n"
    "                   \"seed\":S,\"pairs\":[{\"a\":SPEC,\"b\":SPEC,\"wins\":W,\"draws\":D,\n"
    "                   \"losses\":L,\"first\":{\"wins\":..,\"draws\":..,\"losses\":..},\n"
    "                   \"second\":{...},\"moves\":M,\"points\":[A,B]},...]}: counts for\n"
    "                   A; first/second split them by whether A moved first; moves is\n"
    "                   the total played, points the result scores summed\n"
    "\n"
    "Exit status: 0, 1 failure (a bot failed or made an illegal move), 2 bad arguments.\n";

#define PLAYERS_MAX 16

static int spec_start(const thue_gamedef *g, const char *s)
{
    for (int i = 0; i < g->nbots; i++)
        if (strncmp(s, g->bots[i].name, strlen(g->bots[i].name)) == 0)
            return 1;
    return strncmp(s, "random", 6) == 0 || strncmp(s, "uct", 3) == 0 ||
           strncmp(s, "perfect", 7) == 0;
}

/* Splits SPECS at the commas followed by a spec name. */
static int parse_players(const thue_gamedef *g, const char *text, thue_gbot_spec *specs,
                         char names[][160])
{
    int n = 0;
    const char *p = text;
    while (*p) {
        const char *end = p;
        for (;;) {
            end = strchr(end, ',');
            if (end == NULL || spec_start(g, end + 1))
                break;
            end++;
        }
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (n == PLAYERS_MAX)
            cli_usage_error("arena", "--players: at most %d bots", PLAYERS_MAX);
        char one[160];
        if (len == 0 || len >= sizeof one)
            cli_usage_error("arena", "--players: an empty or overlong spec in '%.60s'", text);
        memcpy(one, p, len);
        one[len] = '\0';
        cli_gbot_spec("arena", "players", g, one, &specs[n]);
        thue_gbot_spec_format(&specs[n], names[n], 160);
        n++;
        if (end == NULL)
            break;
        p = end + 1;
        if (*p == '\0')
            cli_usage_error("arena", "--players ends with a comma");
    }
    return n;
}

typedef struct tally {
    int wins, draws, losses;
} tally;

static json_t *tally_json(const tally *t)
{
    return json_pack("{s:i,s:i,s:i}", "wins", t->wins, "draws", t->draws, "losses", t->losses);
}

int cmd_arena_game(const char *game, int argc, char **argv)
{
    const char *otext = NULL, *ptext = NULL, *gtext = NULL, *seedtext = NULL, *think = NULL,
               *mtext = NULL, *pos[1];
    int json = 0, np;
    cli_opt opts[] = {{"options", 1, &otext, NULL},  {"players", 1, &ptext, NULL},
                      {"games", 1, &gtext, NULL},    {"seed", 1, &seedtext, NULL},
                      {"think-ms", 1, &think, NULL}, {"max-moves", 1, &mtext, NULL},
                      {"json", 0, NULL, &json},      {NULL, 0, NULL, NULL}};
    cli_parse("arena", arena_usage, argc, argv, opts, pos, 0, 0, &np);
    static match m;
    m.g = cli_game("arena", game);
    cli_game_options("arena", m.g, otext, &m.opt);
    if (ptext == NULL)
        cli_usage_error("arena", "--players is required (two or more bots, e.g. perfect,random)");
    static thue_gbot_spec specs[PLAYERS_MAX];
    static char names[PLAYERS_MAX][160];
    int np_ = parse_players(m.g, ptext, specs, names);
    if (np_ < 2)
        cli_usage_error("arena", "--players needs at least two bots (comma-separated)");
    int games = cli_int("arena", "games", gtext, 1, 100000, 10);
    uint64_t seed = cli_u64("arena", "seed", seedtext, 1);
    m.lim.think_ms = cli_int("arena", "think-ms", think, 1, 86400000, 0);
    m.max_moves = cli_int("arena", "max-moves", mtext, 1, 1000000, MAX_MOVES_DEFAULT);
    size_t sz = m.g->state_size(&m.opt);
    m.st = calloc(1, sz ? sz : 1);
    if (m.st == NULL) {
        fputs("thue arena: out of memory\n", stderr);
        return 1;
    }
    json_t *pairs = json_array();
    if (!json)
        printf("%s, options %s, %d game%s per ordered pair, seed %llu\n", m.g->name,
               otext ? otext : "(defaults)", games, games == 1 ? "" : "s",
               (unsigned long long)seed);
    int wd = 1;
    for (int i = 0; i < np_; i++)
        if ((int)strlen(names[i]) > wd)
            wd = (int)strlen(names[i]);
    if (!json)
        printf("%-*s  %-*s %6s %6s %6s %8s %8s\n", wd, "A", wd, "B", "wins", "draws", "losses",
               "points A", "points B");
    for (int a = 0; a < np_; a++)
        for (int b = 0; b < np_; b++) {
            if (a == b)
                continue;
            tally side[2] = {{0, 0, 0}, {0, 0, 0}}; /* [0]: A moved first */
            long moves = 0, points[2] = {0, 0};
            for (int gi = 0; gi < games; gi++) {
                int a_seat = gi % 2;
                uint64_t gseed = seed + (uint64_t)gi;
                m.g->start(&m.opt, gseed, m.st);
                m.seat[a_seat].bot = m.seat[1 - a_seat].bot = 1;
                m.seat[a_seat].spec = specs[a];
                m.seat[1 - a_seat].spec = specs[b];
                m.seed = mix64(gseed);
                m.moves = 0;
                m.over = 0;
                int err = play(&m);
                if (err) {
                    fprintf(stderr, "thue arena: %s against %s, game %d: %s%s%s\n", names[a],
                            names[b], gi,
                            err == THUE_ETOOBIG ? "perfect could not decide a position"
                                                : thue_strerror(err),
                            m.failed[0] ? ": " : "", m.failed);
                    json_decref(pairs);
                    free(m.st);
                    return 1;
                }
                moves += m.moves;
                thue_gresult gr;
                m.g->result(&m.opt, m.st, &gr);
                points[0] += gr.score[a_seat];
                points[1] += gr.score[1 - a_seat];
                tally *t = &side[a_seat];
                if (m.winner < 0)
                    t->draws++;
                else if (m.winner == a_seat)
                    t->wins++;
                else
                    t->losses++;
            }
            tally all = {side[0].wins + side[1].wins, side[0].draws + side[1].draws,
                         side[0].losses + side[1].losses};
            if (json)
                json_array_append_new(
                    pairs, json_pack("{s:s,s:s,s:i,s:i,s:i,s:o,s:o,s:I,s:[I,I]}", "a", names[a],
                                     "b", names[b], "wins", all.wins, "draws", all.draws, "losses",
                                     all.losses, "first", tally_json(&side[0]), "second",
                                     tally_json(&side[1]), "moves", (json_int_t)moves, "points",
                                     (json_int_t)points[0], (json_int_t)points[1]));
            else
                printf("%-*s  %-*s %6d %6d %6d %8ld %8ld\n", wd, names[a], wd, names[b], all.wins,
                       all.draws, all.losses, points[0], points[1]);
        }
    if (json) {
        json_t *pl = json_array();
        for (int i = 0; i < np_; i++)
            json_array_append_new(pl, jstr(names[i]));
        char *line = cli_json_text(json_pack(
            "{s:s,s:o,s:o,s:i,s:I,s:o}", "game", m.g->name, "options", m.g->options_json(&m.opt),
            "players", pl, "games", games, "seed", (json_int_t)seed, "pairs", pairs));
        puts(line);
        free(line);
    } else {
        json_decref(pairs);
    }
    free(m.st);
    return 0;
}
