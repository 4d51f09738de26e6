/*
 * dots.c: dots and boxes behind the game table. Players draw one line at a time between
 * neighbouring dots of a grid of R x C boxes; a line that completes a box (or two) scores
 * it for its player, who must then move again; when every line is drawn the player with
 * more boxes wins, equal boxes (an even box count only) is a draw.
 *
 * Options: {"rows":5,"cols":5,"outline":false}: rows and cols 1..10 boxes (the bound
 * keeps the state a few hundred bytes; 5x5 is the board most players know), outline
 * true is the variant of the Romanian source: the border lines are drawn at the start
 * (by nobody) and play is over the inner lines only. Pool key "5x5" or "5x5-outline".
 *
 * Move: {"dir":"h","row":R,"col":C} (v[0] = 0 for "h", 1 for "v"; v[1] = R; v[2] = C):
 * "h" is the horizontal line above box row R (R = 0..rows, C = 0..cols-1), "v" the
 * vertical line left of box column C (R = 0..rows-1, C = 0..cols).
 *
 * The move-again rule lives in to_move: apply keeps the mover when their line completed
 * a box. The state keeps who drew each line (for clients), the box owners, the score and
 * the last line; the hash mixes the drawn lines, the player to move and the score
 * difference, so equal states hash equal.
 */
#include <stdio.h>
#include <string.h>

#include "games/dots/dots.h"
#include "games/game.h"
#include "games/registry.h"

_Static_assert(sizeof(thue_dots_opt) <= sizeof(thue_gopt), "dots options fit");

#define OPT(o) ((const thue_dots_opt *)(const void *)(o))

static const thue_goption_doc dots_options[] = {
    {"rows", "integer", "5", "boxes down the board, 1..10"},
    {"cols", "integer", "5", "boxes across the board, 1..10"},
    {"outline", "boolean", "false",
     "the source's variant: the border lines are drawn at the start and only the inner "
     "lines are played"},
};

static void setbit(uint64_t *w, int l)
{
    w[l >> 6] |= (uint64_t)1 << (l & 63);
}

static int dots_parse_options(const json_t *j, thue_gopt *go, thue_gerr *e)
{
    thue_dots_opt *o = (thue_dots_opt *)(void *)go;
    memset(go, 0, sizeof *go);
    static const char *const keys[] = {"rows", "cols", "outline", NULL};
    if (j != NULL && !json_is_object(j))
        return thue_gerr_set(e, THUE_EOPTIONS, "", "dots options are a JSON object");
    if (j != NULL && thue_gjson_only(j, keys, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    long long v;
    if (thue_gjson_int(j, "rows", 1, THUE_DOTS_SIDE_MAX, 5, &v, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    o->rows = (int)v;
    if (thue_gjson_int(j, "cols", 1, THUE_DOTS_SIDE_MAX, 5, &v, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    o->cols = (int)v;
    const json_t *b = j != NULL ? json_object_get(j, "outline") : NULL;
    if (b != NULL && !json_is_boolean(b))
        return thue_gerr_set(e, THUE_EOPTIONS, "outline", "outline is true or false");
    o->outline = b != NULL && json_is_true(b);
    if (o->outline && (o->rows < 2 && o->cols < 2))
        return thue_gerr_set(e, THUE_EOPTIONS, "outline",
                             "outline on a 1x1 board leaves no line to play: take 2 or more "
                             "rows or cols");
    return 0;
}

static json_t *dots_options_json(const thue_gopt *go)
{
    return json_pack("{s:i,s:i,s:b}", "rows", OPT(go)->rows, "cols", OPT(go)->cols, "outline",
                     OPT(go)->outline);
}

static void dots_pool_key(const thue_gopt *go, char *out, size_t size)
{
    snprintf(out, size, "%dx%d%s", OPT(go)->rows, OPT(go)->cols,
             OPT(go)->outline ? "-outline" : "");
}

static size_t dots_state_size(const thue_gopt *go)
{
    (void)go;
    return sizeof(thue_dots_state);
}

static int nlines(const thue_dots_opt *o)
{
    return thue_dots_nlines(o->rows, o->cols);
}

/* Fills the boxes' owners, the score and nothing else from scratch: -1 everywhere. */
static void dots_start(const thue_gopt *go, uint64_t seed, void *stv)
{
    (void)seed;
    const thue_dots_opt *o = OPT(go);
    thue_dots_state *s = stv;
    memset(s, 0, sizeof *s);
    memset(s->owner, -1, sizeof s->owner);
    s->last = -1;
    if (o->outline)
        for (int l = 0; l < nlines(o); l++)
            if (thue_dots_border(o->rows, o->cols, l)) {
                setbit(s->drawn, l);
                setbit(s->pre, l);
            }
}

static bool all_drawn(const thue_dots_opt *o, const thue_dots_state *s)
{
    int n = nlines(o);
    for (int w = 0; w * 64 < n; w++) {
        int k = n - w * 64;
        uint64_t full = k >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1);
        if ((s->drawn[w] & full) != full)
            return false;
    }
    return true;
}

static int dots_to_move(const thue_gopt *go, const void *stv)
{
    const thue_dots_state *s = stv;
    return all_drawn(OPT(go), s) ? -1 : s->to_move;
}

static const char *dots_step(const thue_gopt *go, const void *st)
{
    return dots_to_move(go, st) < 0 ? "over" : "move";
}

static int dots_max_moves(const thue_gopt *go)
{
    return nlines(OPT(go));
}

static int dots_legal_moves(const thue_gopt *go, const void *stv, thue_gmove *out)
{
    const thue_dots_opt *o = OPT(go);
    const thue_dots_state *s = stv;
    int R = o->rows, C = o->cols, n = 0, H = (R + 1) * C;
    for (int l = 0; l < nlines(o); l++) {
        if (thue_dots_bit(s->drawn, l))
            continue;
        if (l < H)
            out[n++] = (thue_gmove){{0, l / C, l % C, 0}};
        else
            out[n++] = (thue_gmove){{1, (l - H) / (C + 1), (l - H) % (C + 1), 0}};
    }
    return n;
}

/* The line of a move, or -1 (e names the bad member) when it is off the board. */
static int move_line(const thue_dots_opt *o, const thue_gmove *m, thue_gerr *e)
{
    int R = o->rows, C = o->cols, d = m->v[0], r = m->v[1], c = m->v[2];
    if (d != 0 && d != 1) {
        thue_gerr_set(e, THUE_EILLEGAL, "dir", "dir is \"h\" or \"v\"");
        return -1;
    }
    int rmax = d == 0 ? R : R - 1, cmax = d == 0 ? C - 1 : C;
    if (r < 0 || r > rmax) {
        thue_gerr_set(e, THUE_EILLEGAL, "row", "a %s line's row is 0..%d on this board",
                      d == 0 ? "horizontal" : "vertical", rmax);
        return -1;
    }
    if (c < 0 || c > cmax) {
        thue_gerr_set(e, THUE_EILLEGAL, "col", "a %s line's col is 0..%d on this board",
                      d == 0 ? "horizontal" : "vertical", cmax);
        return -1;
    }
    return d == 0 ? thue_dots_hline(R, C, r, c) : thue_dots_vline(R, C, r, c);
}

static void line_move(const thue_dots_opt *o, int l, thue_gmove *m)
{
    int R = o->rows, C = o->cols, H = (R + 1) * C;
    if (l < H)
        *m = (thue_gmove){{0, l / C, l % C, 0}};
    else
        *m = (thue_gmove){{1, (l - H) / (C + 1), (l - H) % (C + 1), 0}};
}

int thue__dots_completes(const thue_dots_opt *o, const thue_dots_state *st, int l)
{
    int b[2], k = 0;
    thue_dots_line_boxes(o->rows, o->cols, l, b);
    for (int i = 0; i < 2; i++)
        if (b[i] >= 0 && thue_dots_count(o->rows, o->cols, st->drawn, b[i]) == 3)
            k++;
    return k;
}

static int dots_move_parse(const thue_gopt *go, const json_t *j, thue_gmove *m, thue_gerr *e)
{
    (void)go;
    static const char *const keys[] = {"dir", "row", "col", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_EMOVE, "",
                             "a dots move is {\"dir\":\"h\" or \"v\",\"row\":R,\"col\":C}");
    if (thue_gjson_only(j, keys, THUE_EMOVE, e) != 0)
        return THUE_EMOVE;
    const json_t *d = json_object_get(j, "dir");
    const char *ds = json_is_string(d) ? json_string_value(d) : NULL;
    if (ds == NULL || (strcmp(ds, "h") != 0 && strcmp(ds, "v") != 0))
        return thue_gerr_set(e, THUE_EMOVE, "dir",
                             "dir is \"h\" (a horizontal line) or \"v\" (a vertical one)");
    const char *names[2] = {"row", "col"};
    int v[2];
    for (int i = 0; i < 2; i++) {
        const json_t *x = json_object_get(j, names[i]);
        if (!json_is_integer(x) || json_integer_value(x) < 0 ||
            json_integer_value(x) > THUE_DOTS_SIDE_MAX)
            return thue_gerr_set(e, THUE_EMOVE, names[i], "%s is an integer 0..%d", names[i],
                                 THUE_DOTS_SIDE_MAX);
        v[i] = (int)json_integer_value(x);
    }
    *m = (thue_gmove){{ds[0] == 'v', v[0], v[1], 0}};
    return 0;
}

static json_t *dots_move_json(const thue_gopt *go, const thue_gmove *m)
{
    (void)go;
    return json_pack("{s:s,s:i,s:i}", "dir", m->v[0] == 1 ? "v" : "h", "row", m->v[1], "col",
                     m->v[2]);
}

static int dots_apply(const thue_gopt *go, void *stv, int player, const thue_gmove *m, thue_gerr *e)
{
    const thue_dots_opt *o = OPT(go);
    thue_dots_state *s = stv;
    if (dots_to_move(go, stv) < 0)
        return thue_gerr_set(e, THUE_EOVER, "", "the game is over");
    if (player != 0 && player != 1)
        return thue_gerr_set(e, THUE_EPLAYER, "", "a player is 0 or 1");
    if (player != s->to_move)
        return thue_gerr_set(e, THUE_ETURN, "", "it is not your turn");
    int l = move_line(o, m, e);
    if (l < 0)
        return THUE_EILLEGAL;
    if (thue_dots_bit(s->drawn, l))
        return thue_gerr_set(e, THUE_EILLEGAL, "", "that line (%s %d,%d) is already drawn",
                             m->v[0] == 0 ? "h" : "v", m->v[1], m->v[2]);
    setbit(s->drawn, l);
    if (player == 1)
        setbit(s->by1, l);
    int b[2], k = 0;
    thue_dots_line_boxes(o->rows, o->cols, l, b);
    for (int i = 0; i < 2; i++)
        if (b[i] >= 0 && s->owner[b[i]] < 0 &&
            thue_dots_count(o->rows, o->cols, s->drawn, b[i]) == 4) {
            s->owner[b[i]] = (int8_t)player;
            k++;
        }
    s->score[player] = (int16_t)(s->score[player] + k);
    s->again = k > 0;
    if (k == 0)
        s->to_move = (int8_t)(player ^ 1);
    s->last = (int16_t)l;
    s->moves++;
    return 0;
}

static void dots_result(const thue_gopt *go, const void *stv, thue_gresult *r)
{
    const thue_dots_state *s = stv;
    memset(r, 0, sizeof *r);
    r->winner = -1;
    r->why = "";
    r->score[0] = s->score[0];
    r->score[1] = s->score[1];
    if (!all_drawn(OPT(go), s))
        return;
    r->over = true;
    r->winner = s->score[0] > s->score[1] ? 0 : s->score[1] > s->score[0] ? 1 : -1;
    r->why = "score";
}

static uint64_t dots_hash(const thue_gopt *go, const void *stv)
{
    (void)go;
    const thue_dots_state *s = stv;
    uint64_t h = thue_gmix64((uint64_t)(uint8_t)s->to_move ^
                             ((uint64_t)(uint16_t)(s->score[0] - s->score[1]) << 8));
    for (int w = 0; w < THUE_DOTS_WORDS; w++)
        h = thue_gmix64(h ^ s->drawn[w]);
    return h;
}

/* ---- JSON ------------------------------------------------------------------------------ */

/* The drawer of line l: -1 undrawn, 0 or 1, 2 drawn before play. */
static int drawer(const thue_dots_state *s, int l)
{
    if (!thue_dots_bit(s->drawn, l))
        return -1;
    if (thue_dots_bit(s->pre, l))
        return 2;
    return thue_dots_bit(s->by1, l);
}

static json_t *grid(const thue_dots_state *s, const thue_dots_opt *o, int dir)
{
    int R = o->rows, C = o->cols;
    int nr = dir == 0 ? R + 1 : R, nc = dir == 0 ? C : C + 1;
    json_t *a = json_array();
    for (int r = 0; r < nr; r++) {
        int row[THUE_DOTS_SIDE_MAX + 1];
        for (int c = 0; c < nc; c++)
            row[c] =
                drawer(s, dir == 0 ? thue_dots_hline(R, C, r, c) : thue_dots_vline(R, C, r, c));
        json_array_append_new(a, thue_gjson_ints(row, nc));
    }
    return a;
}

static json_t *dots_state_json(const thue_gopt *go, const void *stv)
{
    const thue_dots_opt *o = OPT(go);
    const thue_dots_state *s = stv;
    json_t *owners = json_array();
    for (int r = 0; r < o->rows; r++) {
        int row[THUE_DOTS_SIDE_MAX];
        for (int c = 0; c < o->cols; c++)
            row[c] = s->owner[r * o->cols + c];
        json_array_append_new(owners, thue_gjson_ints(row, o->cols));
    }
    json_t *last = json_null();
    if (s->last >= 0) {
        thue_gmove m;
        line_move(o, s->last, &m);
        last = dots_move_json(go, &m);
    }
    int score[2] = {s->score[0], s->score[1]};
    return json_pack("{s:{s:o,s:o},s:o,s:o,s:i,s:o,s:b,s:i}", "lines", "h", grid(s, o, 0), "v",
                     grid(s, o, 1), "owners", owners, "score", thue_gjson_ints(score, 2), "to_move",
                     s->to_move, "last", last, "again", s->again, "moves", s->moves);
}

/* Reads an array of nr arrays of nc integers in lo..hi into v (row-major). */
static int read_grid(const json_t *a, int nr, int nc, int lo, int hi, int *v, const char *field,
                     thue_gerr *e)
{
    if (!json_is_array(a) || (int)json_array_size(a) != nr)
        return thue_gerr_set(e, THUE_ESTATE, field, "%s is an array of %d rows", field, nr);
    for (int r = 0; r < nr; r++) {
        const json_t *row = json_array_get(a, (size_t)r);
        if (!json_is_array(row) || (int)json_array_size(row) != nc)
            return thue_gerr_set(e, THUE_ESTATE, field, "%s/%d is an array of %d integers", field,
                                 r, nc);
        for (int c = 0; c < nc; c++) {
            const json_t *x = json_array_get(row, (size_t)c);
            if (!json_is_integer(x) || json_integer_value(x) < lo || json_integer_value(x) > hi)
                return thue_gerr_set(e, THUE_ESTATE, field, "%s/%d/%d is an integer %d..%d", field,
                                     r, c, lo, hi);
            v[r * nc + c] = (int)json_integer_value(x);
        }
    }
    return 0;
}

static int dots_position_parse(const thue_gopt *go, const json_t *j, void *stv, thue_gerr *e)
{
    const thue_dots_opt *o = OPT(go);
    int R = o->rows, C = o->cols;
    static const char *const keys[] = {"lines", "owners", "score", "to_move",
                                       "last",  "again",  "moves", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_ESTATE, "",
                             "a dots position is {\"lines\":{\"h\":[[..]],\"v\":[[..]]},"
                             "\"owners\":[[..]],\"to_move\":P}");
    if (thue_gjson_only(j, keys, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    thue_dots_state s;
    memset(&s, 0, sizeof s);
    memset(s.owner, -1, sizeof s.owner);
    s.last = -1;
    const json_t *lines = json_object_get(j, "lines");
    static const char *const lkeys[] = {"h", "v", NULL};
    if (lines == NULL) {
        /* No lines: the start of these options (the outline drawn where it is asked). */
        dots_start(go, 0, &s);
    } else if (!json_is_object(lines)) {
        return thue_gerr_set(e, THUE_ESTATE, "lines",
                             "lines is {\"h\":[[..]],\"v\":[[..]]}: -1 undrawn, 0 or 1 the "
                             "player who drew it, 2 drawn before play");
    } else if (thue_gjson_only(lines, lkeys, THUE_ESTATE, e) != 0) {
        return THUE_ESTATE;
    }
    int v[(THUE_DOTS_SIDE_MAX + 1) * (THUE_DOTS_SIDE_MAX + 1)];
    for (int d = 0; d < 2 && lines != NULL; d++) {
        int nr = d == 0 ? R + 1 : R, nc = d == 0 ? C : C + 1;
        if (read_grid(json_object_get(lines, d == 0 ? "h" : "v"), nr, nc, -1, 2, v,
                      d == 0 ? "lines/h" : "lines/v", e) != 0)
            return THUE_ESTATE;
        for (int r = 0; r < nr; r++)
            for (int c = 0; c < nc; c++) {
                int l = d == 0 ? thue_dots_hline(R, C, r, c) : thue_dots_vline(R, C, r, c);
                int x = v[r * nc + c];
                if (x >= 0)
                    setbit(s.drawn, l);
                if (x == 1)
                    setbit(s.by1, l);
                if (x == 2)
                    setbit(s.pre, l);
            }
    }
    const json_t *ow = json_object_get(j, "owners");
    if (ow != NULL && read_grid(ow, R, C, -1, 1, v, "owners", e) != 0)
        return THUE_ESTATE;
    for (int b = 0; b < R * C; b++) {
        bool full = thue_dots_count(R, C, s.drawn, b) == 4;
        if (ow == NULL && full)
            return thue_gerr_set(e, THUE_ESTATE, "owners",
                                 "box %d,%d is complete: give owners (-1 open, 0 or 1)", b / C,
                                 b % C);
        if (ow == NULL)
            continue;
        if (full != (v[b] >= 0))
            return thue_gerr_set(e, THUE_ESTATE, "owners",
                                 full ? "owners/%d/%d: the box is complete, so it has an owner"
                                      : "owners/%d/%d: the box is open, so it has no owner",
                                 b / C, b % C);
        s.owner[b] = (int8_t)v[b];
        if (v[b] >= 0)
            s.score[v[b]]++;
    }
    long long x;
    if (thue_gjson_int(j, "to_move", 0, 1, 0, &x, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.to_move = (int8_t)x;
    if (thue_gjson_int(j, "moves", 0, THUE_DOTS_LINES_MAX, 0, &x, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.moves = (int16_t)x;
    const json_t *sc = json_object_get(j, "score");
    if (sc != NULL) {
        if (!json_is_array(sc) || json_array_size(sc) != 2 ||
            !json_is_integer(json_array_get(sc, 0)) || !json_is_integer(json_array_get(sc, 1)) ||
            json_integer_value(json_array_get(sc, 0)) != s.score[0] ||
            json_integer_value(json_array_get(sc, 1)) != s.score[1])
            return thue_gerr_set(e, THUE_ESTATE, "score",
                                 "score is [%d,%d] here: the boxes each player owns", s.score[0],
                                 s.score[1]);
    }
    const json_t *last = json_object_get(j, "last");
    if (last != NULL && !json_is_null(last)) {
        thue_gmove m;
        thue_gerr e2;
        int l;
        if (dots_move_parse(go, last, &m, &e2) != 0 || (l = move_line(o, &m, &e2)) < 0 ||
            !thue_dots_bit(s.drawn, l))
            return thue_gerr_set(e, THUE_ESTATE, "last",
                                 "last is null or a drawn line {\"dir\":D,\"row\":R,\"col\":C}");
        s.last = (int16_t)l;
    }
    const json_t *ag = json_object_get(j, "again");
    if (ag != NULL && !json_is_boolean(ag))
        return thue_gerr_set(e, THUE_ESTATE, "again", "again is true or false");
    s.again = ag != NULL && json_is_true(ag);
    memcpy(stv, &s, sizeof s);
    return 0;
}

/* ---- perfect and the own bots ------------------------------------------------------------ */

/* perfect decides positions with at most this many undrawn lines (3x3 from the start),
 * within a node budget (about a second here, unless the caller's is smaller); beyond:
 * THUE_ETOOBIG at once, with the reason (3x4 from the start has 31 lines, and the search
 * would take minutes). */
#define PERFECT_LINES 30
#define PERFECT_NODES 6000000ull

static int undrawn(const thue_dots_opt *o, const thue_dots_state *s)
{
    int n = 0;
    for (int l = 0; l < nlines(o); l++)
        n += !thue_dots_bit(s->drawn, l);
    return n;
}

static int dots_perfect(const thue_gopt *go, const void *stv, const thue_gctl *ctl,
                        thue_gmove *best, int *value)
{
    const thue_dots_opt *o = OPT(go);
    const thue_dots_state *s = stv;
    if (nlines(o) > THUE_DOTS_SOLVE_LINES_MAX) {
        thue_gctl_why(ctl,
                      "a %dx%d board has %d lines; perfect solves boards of at most %d "
                      "(and positions with at most %d lines undrawn)",
                      o->rows, o->cols, nlines(o), THUE_DOTS_SOLVE_LINES_MAX, PERFECT_LINES);
        return THUE_ETOOBIG;
    }
    if (undrawn(o, s) > PERFECT_LINES) {
        thue_gctl_why(ctl,
                      "%d lines are undrawn; perfect decides dots positions with at most %d "
                      "(every position of 3x3 and smaller; bigger boards late in the game)",
                      undrawn(o, s), PERFECT_LINES);
        return THUE_ETOOBIG;
    }
    int diff = s->score[s->to_move] - s->score[s->to_move ^ 1];
    if (all_drawn(o, s)) {
        *value = diff > 0 ? 1 : diff < 0 ? -1 : 0;
        if (ctl != NULL && ctl->margin != NULL)
            *ctl->margin = diff;
        return 0;
    }
    int net, l;
    uint64_t budget = thue_gctl_nodes(ctl, PERFECT_NODES), nodes = 0;
    int err = thue__dots_solve(o, s->drawn[0], budget, ctl, &net, &l, &nodes);
    if (err == THUE_ETOOBIG && nodes >= budget)
        thue_gctl_why(ctl, "its exact search passed its budget of %llu positions before it decided",
                      (unsigned long long)budget);
    else if (err == THUE_ETOOBIG)
        thue_gctl_why(ctl,
                      "its exact search was stopped (the time limit, or a stop) after %llu "
                      "positions, before it decided",
                      (unsigned long long)nodes);
    if (err != 0)
        return err;
    line_move(o, l, best);
    *value = diff + net > 0 ? 1 : diff + net < 0 ? -1 : 0;
    if (ctl != NULL && ctl->margin != NULL)
        *ctl->margin = diff + net;
    return 0;
}

static int heuristic_choose(const thue_gopt *go, const void *st, uint64_t seed,
                            const thue_gctl *ctl, thue_gmove *out)
{
    (void)ctl;
    line_move(OPT(go), thue__dots_heuristic(OPT(go), st, seed), out);
    return 0;
}

static int strong_choose(const thue_gopt *go, const void *st, uint64_t seed, const thue_gctl *ctl,
                         thue_gmove *out)
{
    int l = thue__dots_strong(OPT(go), st, seed, ctl);
    if (l < 0)
        return THUE_ENOMEM;
    line_move(OPT(go), l, out);
    return 0;
}

static const thue_gamebot dots_bots[] = {
    {"heuristic",
     "the source's: take a box, else a line that gives no box a third side, "
     "else the line that hands over the fewest boxes",
     heuristic_choose},
    {"strong",
     "chains and loops: the long-chain rule, double-dealing, and exact alpha-beta "
     "once few enough lines are left",
     strong_choose},
};

const thue_gamedef thue_game_dots = {
    .name = "dots",
    .title = "Dots and boxes",
    .summary = "Draw one line at a time between neighbouring dots; completing a box scores it "
               "and you move again; when every line is drawn, most boxes wins.",
    .move_doc = "{\"dir\":\"h\"|\"v\",\"row\":R,\"col\":C}",
    .position_doc = "{\"lines\":{\"h\":[[-1,0],[..]],\"v\":[[1,-1,2],[..]]},\"owners\":[[-1,0],"
                    "[..]],\"to_move\":0} (lines: -1 undrawn, 0/1 its drawer, 2 drawn before "
                    "play)",
    .options = dots_options,
    .noptions = (int)(sizeof dots_options / sizeof dots_options[0]),
    .flags = THUE_GAME_ACYCLIC | THUE_GAME_DRAWS,
    .parse_options = dots_parse_options,
    .options_json = dots_options_json,
    .pool_key = dots_pool_key,
    .state_size = dots_state_size,
    .start = dots_start,
    .position_parse = dots_position_parse,
    .state_json = dots_state_json,
    .to_move = dots_to_move,
    .step = dots_step,
    .max_moves = dots_max_moves,
    .legal_moves = dots_legal_moves,
    .move_parse = dots_move_parse,
    .move_json = dots_move_json,
    .apply = dots_apply,
    .result = dots_result,
    .hash = dots_hash,
    .perfect = dots_perfect,
    .perfect_help = "exact on boards of at most 64 lines once at most 30 lines are undrawn "
                    "(every 3x3 or smaller position; 3x4, 4x4 and 5x5 only late in the game), "
                    "within 6 million positions; beyond, it refuses at once",
    .fallback = &dots_bots[0],
    .bots = dots_bots,
    .nbots = (int)(sizeof dots_bots / sizeof dots_bots[0]),
};
