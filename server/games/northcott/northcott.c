/*
 * northcott.c: Northcott's game. A board of R rows and C columns; each row holds one
 * white piece (player 0, who moves first) and one black piece (player 1) on distinct
 * squares, either colour on the left. A move slides one of the mover's own pieces along
 * its row, forward (toward the opponent's piece) or backward, any number of squares,
 * never onto or over the opponent's piece and never off the board. Who cannot move loses.
 *
 * Options: {"rows":8,"cols":8,"start":"random","move_cap":640}: rows 1..16, cols 2..32;
 * start "random" (the seed places each row's two pieces on distinct random squares) or
 * R pairs [[w,b],...]; move_cap 1..100000, default 10 * rows * cols.
 * Move: {"row":R,"to":COL} (v[0] = R, v[1] = COL).
 *
 * Perfect play: the empty squares between a row's two pieces form a Nim heap (its gap).
 * A forward move takes from that heap; a backward move adds to it, but the opponent can
 * answer it by following with the same piece distance, so it never helps the loser for
 * long. The player to move wins exactly when the nim-sum of the gaps is not 0, by moving
 * a piece toward the opponent's to make it 0.
 *
 * The move cap: backward moves make the game graph cyclic (a piece may go back and forth
 * for ever), so a line of play need not end by itself. Perfect play never needs this:
 * the winner's pieces only move forward, each at most C-2 squares, so the winner ends
 * the game within 2 * R * (C-2) moves. Two players who both retreat could still go on
 * for ever, so after move_cap moves without an end the game is drawn ("move_cap"). The
 * default 10 * R * C leaves the winner plenty of room; perfect() reports THUE_ETOOBIG
 * when a position's move count is so close to the cap that the cap could decide it.
 *
 * The state keeps to_move once the game is over too (the player who faces the end: stuck,
 * or to move at the cap), and so does its JSON: whether and how it ended follows from the
 * position and the move count, so the JSON reads back to identical bytes. The to_move()
 * function answers -1 once over. A move that leaves the opponent without a move wins even
 * when it is also the cap's.
 */
#include <stdio.h>
#include <string.h>

#include "games/game.h"
#include "games/registry.h"
#include "games/northcott/northcott.h"

typedef struct nc_opt {
    int rows;
    int cols;
    int move_cap;
    bool random;
    int white[THUE_NORTHCOTT_ROWS_MAX]; /* the explicit start (random false) */
    int black[THUE_NORTHCOTT_ROWS_MAX];
} nc_opt;

_Static_assert(sizeof(nc_opt) <= sizeof(thue_gopt), "northcott options fit");

/* The state: no pointers, no padding left unset (every writer memsets it first). */
typedef struct nc_state {
    int32_t moves;
    int8_t to_move; /* 0 or 1, also once over (who faces the end) */
    uint8_t white[THUE_NORTHCOTT_ROWS_MAX];
    uint8_t black[THUE_NORTHCOTT_ROWS_MAX];
    uint8_t pad[3];
} nc_state;

#define OPT(o) ((const nc_opt *)(const void *)(o))

static const thue_goption_doc nc_options[] = {
    {"rows", "integer", "8",
     "rows of the board, 1..16; each row holds one white and one black piece"},
    {"cols", "integer", "8", "columns of the board, 2..32"},
    {"start", "string or array", "\"random\"",
     "\"random\" (the seed places each row's pieces on two distinct random squares) or the "
     "starting columns as rows pairs [[white,black],...], 0..cols-1, distinct in a row"},
    {"move_cap", "integer", "640",
     "1..100000, default 10 * rows * cols (640 on 8x8): after that many moves without an end "
     "the game is drawn (backward moves could go on for ever)"},
};

/* ---- the rules on bare arrays ------------------------------------------------------ */

/* The columns row r's piece of `player` may move to: lo..hi, its own square excluded. */
static void reach(int own, int opp, int cols, int *lo, int *hi)
{
    if (own < opp)
        *lo = 0, *hi = opp - 1;
    else
        *lo = opp + 1, *hi = cols - 1;
}

static bool can_move(const int *own, const int *opp, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        int lo, hi;
        reach(own[r], opp[r], cols, &lo, &hi);
        if (hi > lo) /* the range holds the piece and at least one more square */
            return true;
    }
    return false;
}

int thue_northcott_perfect_rows(const int *white, const int *black, int rows, int cols, int mover,
                                int *row, int *to)
{
    const int *own = mover == 0 ? white : black, *opp = mover == 0 ? black : white;
    if (!can_move(own, opp, rows, cols))
        return 0;
    int x = 0;
    for (int r = 0; r < rows; r++)
        x ^= (own[r] < opp[r] ? opp[r] - own[r] : own[r] - opp[r]) - 1;
    if (x != 0) {
        for (int r = 0; r < rows; r++) {
            int gap = (own[r] < opp[r] ? opp[r] - own[r] : own[r] - opp[r]) - 1;
            if ((gap ^ x) < gap) {
                int d = gap - (gap ^ x);
                *row = r, *to = own[r] < opp[r] ? own[r] + d : own[r] - d;
                return 1;
            }
        }
    }
    /* Lost against perfect play: one square forward where a gap is open (it brings the
     * end nearer), else one square back. */
    for (int r = 0; r < rows; r++)
        if ((own[r] < opp[r] ? opp[r] - own[r] : own[r] - opp[r]) > 1) {
            *row = r, *to = own[r] < opp[r] ? own[r] + 1 : own[r] - 1;
            return -1;
        }
    for (int r = 0; r < rows; r++) {
        int back = own[r] < opp[r] ? own[r] - 1 : own[r] + 1;
        if (back >= 0 && back < cols) {
            *row = r, *to = back;
            return -1;
        }
    }
    return -1; /* not reached: can_move found a move */
}

/* ---- options ----------------------------------------------------------------------- */

static int parse_pair(const json_t *p, int cols, int *w, int *b)
{
    if (!json_is_array(p) || json_array_size(p) != 2)
        return -1;
    const json_t *a = json_array_get(p, 0), *c = json_array_get(p, 1);
    if (!json_is_integer(a) || !json_is_integer(c))
        return -1;
    long long x = json_integer_value(a), y = json_integer_value(c);
    if (x < 0 || x >= cols || y < 0 || y >= cols || x == y)
        return -1;
    *w = (int)x, *b = (int)y;
    return 0;
}

static int nc_parse_options(const json_t *j, thue_gopt *o, thue_gerr *e)
{
    nc_opt *opt = (nc_opt *)(void *)o;
    memset(o, 0, sizeof *o);
    static const char *const keys[] = {"rows", "cols", "start", "move_cap", NULL};
    if (j != NULL && thue_gjson_only(j, keys, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    long long v;
    if (thue_gjson_int(j, "rows", 1, THUE_NORTHCOTT_ROWS_MAX, 8, &v, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->rows = (int)v;
    if (thue_gjson_int(j, "cols", THUE_NORTHCOTT_COLS_MIN, THUE_NORTHCOTT_COLS_MAX, 8, &v,
                       THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->cols = (int)v;
    if (thue_gjson_int(j, "move_cap", 1, THUE_NORTHCOTT_CAP_MAX, 10LL * opt->rows * opt->cols, &v,
                       THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->move_cap = (int)v;
    const json_t *s = j != NULL ? json_object_get(j, "start") : NULL;
    opt->random = s == NULL || (json_is_string(s) && strcmp(json_string_value(s), "random") == 0);
    if (opt->random)
        return 0;
    if (!json_is_array(s))
        return thue_gerr_set(e, THUE_EOPTIONS, "start",
                             "start is \"random\" or an array of %d [white,black] pairs",
                             opt->rows);
    if ((int)json_array_size(s) != opt->rows)
        return thue_gerr_set(e, THUE_EOPTIONS, "start",
                             "start has %zu pairs but the board has %d rows", json_array_size(s),
                             opt->rows);
    for (int r = 0; r < opt->rows; r++)
        if (parse_pair(json_array_get(s, (size_t)r), opt->cols, &opt->white[r], &opt->black[r]) !=
            0) {
            char field[48];
            snprintf(field, sizeof field, "start/%d", r);
            return thue_gerr_set(e, THUE_EOPTIONS, field,
                                 "start/%d: a pair [white,black] of two distinct columns 0..%d", r,
                                 opt->cols - 1);
        }
    return 0;
}

static json_t *nc_options_json(const thue_gopt *o)
{
    const nc_opt *opt = OPT(o);
    json_t *start;
    if (opt->random) {
        start = json_string("random");
    } else {
        start = json_array();
        for (int r = 0; r < opt->rows; r++)
            json_array_append_new(start, json_pack("[i,i]", opt->white[r], opt->black[r]));
    }
    return json_pack("{s:i,s:i,s:o,s:i}", "rows", opt->rows, "cols", opt->cols, "start", start,
                     "move_cap", opt->move_cap);
}

static void nc_pool_key(const thue_gopt *o, char *out, size_t size)
{
    snprintf(out, size, "%dx%d", OPT(o)->rows, OPT(o)->cols);
}

/* ---- states ------------------------------------------------------------------------ */

static void unpack(const thue_gopt *o, const nc_state *s, int *white, int *black)
{
    for (int r = 0; r < OPT(o)->rows; r++)
        white[r] = s->white[r], black[r] = s->black[r];
}

static bool player_can_move(const thue_gopt *o, const nc_state *s, int player)
{
    int w[THUE_NORTHCOTT_ROWS_MAX], b[THUE_NORTHCOTT_ROWS_MAX];
    unpack(o, s, w, b);
    return player == 0 ? can_move(w, b, OPT(o)->rows, OPT(o)->cols)
                       : can_move(b, w, OPT(o)->rows, OPT(o)->cols);
}

/* 1 when the player to move is stuck (they lost), 2 when the cap ended the game in a draw,
 * 0 while it runs. Being stuck comes first. */
static int ended(const thue_gopt *o, const nc_state *s)
{
    if (!player_can_move(o, s, s->to_move))
        return 1;
    return s->moves >= OPT(o)->move_cap ? 2 : 0;
}

static size_t nc_state_size(const thue_gopt *o)
{
    (void)o;
    return sizeof(nc_state);
}

static void nc_start(const thue_gopt *o, uint64_t seed, void *st)
{
    const nc_opt *opt = OPT(o);
    nc_state s;
    memset(&s, 0, sizeof s);
    for (int r = 0; r < opt->rows; r++) {
        if (!opt->random) {
            s.white[r] = (uint8_t)opt->white[r], s.black[r] = (uint8_t)opt->black[r];
            continue;
        }
        uint64_t x = thue_gmix64(seed ^ (0x6E6F7274ull + (uint64_t)r * 0x100000001B3ull));
        int w = (int)(x % (uint64_t)opt->cols);
        int b = (int)(thue_gmix64(x) % (uint64_t)(opt->cols - 1));
        s.white[r] = (uint8_t)w, s.black[r] = (uint8_t)(b >= w ? b + 1 : b);
    }
    s.to_move = 0;
    memcpy(st, &s, sizeof s);
}

static int parse_cols(const thue_gopt *o, const json_t *j, const char *key, uint8_t *out,
                      thue_gerr *e)
{
    const json_t *a = json_object_get(j, key);
    if (!json_is_array(a) || (int)json_array_size(a) != OPT(o)->rows)
        return thue_gerr_set(e, THUE_ESTATE, key, "%s is an array of %d columns (one per row)", key,
                             OPT(o)->rows);
    for (int r = 0; r < OPT(o)->rows; r++) {
        const json_t *v = json_array_get(a, (size_t)r);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) >= OPT(o)->cols) {
            char field[48];
            snprintf(field, sizeof field, "%s/%d", key, r);
            return thue_gerr_set(e, THUE_ESTATE, field, "%s/%d: a column 0..%d", key, r,
                                 OPT(o)->cols - 1);
        }
        out[r] = (uint8_t)json_integer_value(v);
    }
    return 0;
}

static int nc_position_parse(const thue_gopt *o, const json_t *j, void *st, thue_gerr *e)
{
    const nc_opt *opt = OPT(o);
    nc_state s;
    memset(&s, 0, sizeof s);
    static const char *const keys[] = {"rows", "cols", "white", "black", "to_move", "moves", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_ESTATE, "",
                             "a Northcott position is {\"white\":[...],\"black\":[...]}");
    if (thue_gjson_only(j, keys, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    long long v;
    if (thue_gjson_int(j, "rows", opt->rows, opt->rows, opt->rows, &v, THUE_ESTATE, e) != 0)
        return thue_gerr_set(e, THUE_ESTATE, "rows",
                             "the position's board must be the options' %dx%d", opt->rows,
                             opt->cols);
    if (thue_gjson_int(j, "cols", opt->cols, opt->cols, opt->cols, &v, THUE_ESTATE, e) != 0)
        return thue_gerr_set(e, THUE_ESTATE, "cols",
                             "the position's board must be the options' %dx%d", opt->rows,
                             opt->cols);
    if (parse_cols(o, j, "white", s.white, e) != 0 || parse_cols(o, j, "black", s.black, e) != 0)
        return THUE_ESTATE;
    for (int r = 0; r < opt->rows; r++)
        if (s.white[r] == s.black[r])
            return thue_gerr_set(e, THUE_ESTATE, "black", "row %d: both pieces on column %d", r,
                                 s.white[r]);
    if (thue_gjson_int(j, "moves", 0, 1 << 30, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.moves = (int32_t)v;
    if (thue_gjson_int(j, "to_move", 0, 1, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.to_move = (int8_t)v;
    memcpy(st, &s, sizeof s);
    return 0;
}

static json_t *nc_state_json(const thue_gopt *o, const void *st)
{
    const nc_state *s = st;
    json_t *w = json_array(), *b = json_array();
    for (int r = 0; r < OPT(o)->rows; r++) {
        json_array_append_new(w, json_integer(s->white[r]));
        json_array_append_new(b, json_integer(s->black[r]));
    }
    return json_pack("{s:i,s:i,s:o,s:o,s:i,s:i}", "rows", OPT(o)->rows, "cols", OPT(o)->cols,
                     "white", w, "black", b, "to_move", s->to_move, "moves", (int)s->moves);
}

static int nc_to_move(const thue_gopt *o, const void *st)
{
    const nc_state *s = st;
    return ended(o, s) ? -1 : s->to_move;
}

static const char *nc_step(const thue_gopt *o, const void *st)
{
    return nc_to_move(o, st) < 0 ? "over" : "move";
}

static int nc_max_moves(const thue_gopt *o)
{
    int n = OPT(o)->rows * (OPT(o)->cols - 2);
    return n > 0 ? n : 1;
}

static int nc_legal_moves(const thue_gopt *o, const void *st, thue_gmove *out)
{
    const nc_state *s = st;
    if (ended(o, s))
        return 0;
    const uint8_t *own = s->to_move == 0 ? s->white : s->black;
    const uint8_t *opp = s->to_move == 0 ? s->black : s->white;
    int n = 0;
    for (int r = 0; r < OPT(o)->rows; r++) {
        int lo, hi;
        reach(own[r], opp[r], OPT(o)->cols, &lo, &hi);
        for (int c = lo; c <= hi; c++)
            if (c != own[r])
                out[n++] = (thue_gmove){{r, c, 0, 0}};
    }
    return n;
}

static int nc_move_parse(const thue_gopt *o, const json_t *j, thue_gmove *m, thue_gerr *e)
{
    (void)o;
    static const char *const keys[] = {"row", "to", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_EMOVE, "", "a Northcott move is {\"row\":R,\"to\":COL}");
    if (thue_gjson_only(j, keys, THUE_EMOVE, e) != 0)
        return THUE_EMOVE; /* e names the unknown member */
    const json_t *r = json_object_get(j, "row"), *t = json_object_get(j, "to");
    if (!json_is_integer(r) || !json_is_integer(t))
        return thue_gerr_set(e, THUE_EMOVE, !json_is_integer(r) ? "row" : "to",
                             "a Northcott move is {\"row\":R,\"to\":COL} with integers R and COL");
    long long rv = json_integer_value(r), tv = json_integer_value(t);
    if (rv < 0 || rv >= THUE_NORTHCOTT_ROWS_MAX || tv < 0 || tv >= THUE_NORTHCOTT_COLS_MAX)
        return thue_gerr_set(e, THUE_EMOVE, rv < 0 || rv >= THUE_NORTHCOTT_ROWS_MAX ? "row" : "to",
                             "row is 0..%d and to 0..%d", THUE_NORTHCOTT_ROWS_MAX - 1,
                             THUE_NORTHCOTT_COLS_MAX - 1);
    *m = (thue_gmove){{(int32_t)rv, (int32_t)tv, 0, 0}};
    return 0;
}

static json_t *nc_move_json(const thue_gopt *o, const thue_gmove *m)
{
    (void)o;
    return json_pack("{s:i,s:i}", "row", m->v[0], "to", m->v[1]);
}

static int nc_apply(const thue_gopt *o, void *st, int player, const thue_gmove *m, thue_gerr *e)
{
    nc_state *s = st;
    if (ended(o, s))
        return thue_gerr_set(e, THUE_EOVER, "", "the game is over");
    if (player != 0 && player != 1)
        return thue_gerr_set(e, THUE_EPLAYER, "", "a player is 0 or 1");
    if (player != s->to_move)
        return thue_gerr_set(e, THUE_ETURN, "", "it is not your turn");
    int r = m->v[0], to = m->v[1];
    if (r < 0 || r >= OPT(o)->rows)
        return thue_gerr_set(e, THUE_EILLEGAL, "row", "there is no row %d (rows 0..%d)", r,
                             OPT(o)->rows - 1);
    if (to < 0 || to >= OPT(o)->cols)
        return thue_gerr_set(e, THUE_EILLEGAL, "to", "column %d is off the board (columns 0..%d)",
                             to, OPT(o)->cols - 1);
    uint8_t *own = player == 0 ? s->white : s->black;
    const uint8_t *opp = player == 0 ? s->black : s->white;
    if (to == own[r])
        return thue_gerr_set(e, THUE_EILLEGAL, "to",
                             "your piece in row %d already stands on column %d", r, to);
    if (to == opp[r])
        return thue_gerr_set(e, THUE_EILLEGAL, "to",
                             "column %d of row %d holds your opponent's piece", to, r);
    if ((own[r] < opp[r]) != (to < opp[r]))
        return thue_gerr_set(e, THUE_EILLEGAL, "to",
                             "a piece cannot jump over the opponent's (row %d, column %d)", r,
                             opp[r]);
    own[r] = (uint8_t)to;
    s->moves++;
    s->to_move = (int8_t)(player ^ 1);
    return 0;
}

static void nc_result(const thue_gopt *o, const void *st, thue_gresult *r)
{
    const nc_state *s = st;
    memset(r, 0, sizeof *r);
    r->winner = -1;
    r->why = "";
    int end = ended(o, s);
    if (end == 0)
        return;
    r->over = true;
    if (end == 1) {
        r->winner = s->to_move ^ 1;
        r->score[r->winner] = 1;
        r->why = "no_moves";
    } else {
        r->why = "move_cap";
    }
}

static uint64_t nc_hash(const thue_gopt *o, const void *st)
{
    const nc_state *s = st;
    uint64_t h = thue_gmix64((uint64_t)s->to_move);
    for (int r = 0; r < OPT(o)->rows; r++)
        h = thue_gmix64(h ^
                        ((uint64_t)s->white[r] << 16 | (uint64_t)s->black[r] << 8 | (uint64_t)r));
    return h;
}

/* Moves a winner needs at most: each of its pieces only goes forward, at most to the
 * square next to the far edge behind the opponent's piece. */
static int winner_budget(const int *own, const int *opp, int rows, int cols)
{
    int d = 0;
    for (int r = 0; r < rows; r++)
        d += own[r] < opp[r] ? cols - 2 - own[r] : own[r] - 1;
    return d;
}

static int nc_perfect(const thue_gopt *o, const void *st, const thue_gctl *ctl, thue_gmove *best,
                      int *value)
{
    /* An analysis of the position: no search to stop; ctl only hears why it refused. */
    const nc_state *s = st;
    int end = ended(o, s);
    if (end != 0) {
        *value = end == 1 ? -1 : 0; /* the stuck player lost; the cap's draw is 0 */
        return 0;
    }
    int w[THUE_NORTHCOTT_ROWS_MAX], b[THUE_NORTHCOTT_ROWS_MAX], row = 0, to = 0;
    unpack(o, s, w, b);
    int rows = OPT(o)->rows, cols = OPT(o)->cols;
    int v = thue_northcott_perfect_rows(w, b, rows, cols, s->to_move, &row, &to);
    if (v == 0) { /* not reached: a game whose mover is stuck has ended */
        *value = -1;
        return 0;
    }
    /* The game lasts at most 2 * budget - 1 more moves when the mover wins (their moves
     * and the replies between them), 2 * budget when the opponent wins. */
    int winner = v > 0 ? s->to_move : s->to_move ^ 1;
    int budget = winner == 0 ? winner_budget(w, b, rows, cols) : winner_budget(b, w, rows, cols);
    long long last = (long long)s->moves + 2LL * budget - (v > 0 ? 1 : 0);
    if (last > OPT(o)->move_cap) {
        int left = OPT(o)->move_cap - s->moves;
        thue_gctl_why(ctl,
                      "the move cap is %d move%s away and %s's win may take up to %lld more "
                      "(its pieces' forward room), so the cap could decide the game",
                      left, left == 1 ? "" : "s", winner == 0 ? "white" : "black",
                      last - s->moves);
        return THUE_ETOOBIG;
    }
    *best = (thue_gmove){{row, to, 0, 0}};
    *value = v;
    return 0;
}

const thue_gamedef thue_game_northcott = {
    .name = "northcott",
    .title = "Northcott's game",
    .summary = "Each row holds a white and a black piece; slide one of your pieces along its "
               "row, forward or back, never over the opponent's. Who cannot move loses.",
    .move_doc = "{\"row\":R,\"to\":COL}",
    .position_doc = "{\"white\":[0,1,...],\"black\":[7,6,...],\"to_move\":0,\"moves\":0}",
    .options = nc_options,
    .noptions = (int)(sizeof nc_options / sizeof nc_options[0]),
    .flags = THUE_GAME_DRAWS,
    .parse_options = nc_parse_options,
    .options_json = nc_options_json,
    .pool_key = nc_pool_key,
    .state_size = nc_state_size,
    .start = nc_start,
    .position_parse = nc_position_parse,
    .state_json = nc_state_json,
    .to_move = nc_to_move,
    .step = nc_step,
    .max_moves = nc_max_moves,
    .legal_moves = nc_legal_moves,
    .move_parse = nc_move_parse,
    .move_json = nc_move_json,
    .apply = nc_apply,
    .result = nc_result,
    .hash = nc_hash,
    .perfect = nc_perfect,
    .perfect_help = "exact (the nim-sum of the gaps) wherever the winner's forward room fits "
                    "before the move cap; nearer the cap it refuses, the cap could decide",
};
