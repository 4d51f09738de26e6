/*
 * circle.c: the circle game ("gra w kółko", Potyczki Algorytmiczne 2009) behind game.h.
 *
 * N fields on a circle (0..N-1) hold white pieces (player 0) and black pieces (player
 * 1), at most one a field. White moves first. A move slides one of one's own pieces
 * along the circle, either way, by any positive number of fields, passing only over
 * free fields and stopping on a free one. Who cannot move on their turn loses.
 *
 * Play can go on for ever (a player with a strong block shuffles inside it; single
 * pieces chase each other round the circle), and then the game is a draw. A server
 * cannot wait for ever, so the option move_cap ends the match drawn after that many
 * moves (result why "move_cap"). The cap stands for "endless" because a decided
 * position is decided quickly: against the retrograde's most stubborn defence the
 * perfect bot ends every won position of up to 12 fields within 23 moves (as fast as
 * the longest win there allows; test_game_circle), while the default cap is 40 * N
 * (480 at 12 fields). A game still going at the cap is, in practice, endless play. Near
 * the cap, though, a win that needs more moves than are left is a draw, and perfect
 * counts with that (circle_cap.c).
 *
 * Options {"fields":12,"start":"random","white":3,"black":3,"move_cap":480}; start is
 * "random" (the seed places `white` and `black` pieces on distinct random fields) or a
 * string of N characters "W", "B", "." (field 0 first). Move {"from":F,"to":T,"dir":D}
 * (v[0] F, v[1] T, v[2] D = 1 toward increasing field numbers or -1; 0 in a parsed move
 * whose "dir" was left out: apply then takes the only direction that reaches T).
 * State {"fields":N,"board":"W.B..","to_move":P,"moves":M}; to_move is the player whose
 * turn it is, also once the game is over (so that the position reads back the same).
 */
#include <stdio.h>
#include <string.h>

#include "games/circle/circle.h"
#include "games/game.h"
#include "games/registry.h"

#define MOVE_CAP_MAX 100000

typedef struct circle_opt {
    int n;
    bool random;
    int white, black;
    int move_cap;
    uint8_t board[THUE_CIRCLE_FIELDS_MAX]; /* the explicit start (when !random) */
} circle_opt;

_Static_assert(sizeof(circle_opt) <= sizeof(thue_gopt), "circle options fit");

#define OPT(o) ((const circle_opt *)(const void *)(o))

static const thue_goption_doc circle_options[] = {
    {"fields", "integer", "12", "N, the fields on the circle: 3..64"},
    {"start", "string", "\"random\"",
     "\"random\" (the seed places the pieces) or N characters W, B, . from field 0"},
    {"white", "integer", "3",
     "white pieces of a random start: 1..N-1, white + black <= N (default 3, N/2 below 6 "
     "fields)"},
    {"black", "integer", "3",
     "black pieces of a random start: 1..N-1, white + black <= N (default 3, N/2 below 6 "
     "fields)"},
    {"move_cap", "integer", "480",
     "1..100000: after this many moves the game ends drawn (endless play is a draw); "
     "default 40 * fields (480 at 12)"},
};

/* Board text ("W.B") into board[0..n-1]; the piece counts into w and k. -1 on a
 * character other than W, B and '.'. */
static int board_parse(const char *text, int n, uint8_t *board, int *w, int *k)
{
    *w = *k = 0;
    for (int f = 0; f < n; f++) {
        char c = text[f];
        if (c == 'W')
            board[f] = 1, (*w)++;
        else if (c == 'B')
            board[f] = 2, (*k)++;
        else if (c == '.')
            board[f] = 0;
        else
            return -1;
    }
    return 0;
}

static void board_text(const uint8_t *board, int n, char *out)
{
    for (int f = 0; f < n; f++)
        out[f] = ".WB"[board[f]];
    out[n] = '\0';
}

static int circle_parse_options(const json_t *j, thue_gopt *o, thue_gerr *e)
{
    circle_opt *opt = (circle_opt *)(void *)o;
    memset(o, 0, sizeof *o);
    static const char *const keys[] = {"fields", "start", "white", "black", "move_cap", NULL};
    if (j != NULL && !json_is_object(j))
        return thue_gerr_set(e, THUE_EOPTIONS, "", "the options are a JSON object");
    if (j != NULL && thue_gjson_only(j, keys, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    long long v;
    if (thue_gjson_int(j, "fields", THUE_CIRCLE_FIELDS_MIN, THUE_CIRCLE_FIELDS_MAX, 12, &v,
                       THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->n = (int)v;
    /* The default 3 + 3 does not fit 3..5 fields: there it is N / 2 each. */
    int dflt = opt->n / 2 < 3 ? opt->n / 2 : 3;
    if (thue_gjson_int(j, "white", 1, opt->n - 1, dflt, &v, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->white = (int)v;
    if (thue_gjson_int(j, "black", 1, opt->n - 1, dflt, &v, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->black = (int)v;
    if (opt->white + opt->black > opt->n)
        return thue_gerr_set(e, THUE_EOPTIONS, "black",
                             "white + black is %d pieces, more than the %d fields",
                             opt->white + opt->black, opt->n);
    if (thue_gjson_int(j, "move_cap", 1, MOVE_CAP_MAX, 40LL * opt->n, &v, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->move_cap = (int)v;
    const json_t *s = j != NULL ? json_object_get(j, "start") : NULL;
    opt->random = true;
    if (s == NULL)
        return 0;
    if (!json_is_string(s))
        return thue_gerr_set(e, THUE_EOPTIONS, "start",
                             "start is \"random\" or a string of %d characters W, B, .", opt->n);
    if (strcmp(json_string_value(s), "random") == 0)
        return 0;
    int w, k;
    if (json_string_length(s) != (size_t)opt->n ||
        board_parse(json_string_value(s), opt->n, opt->board, &w, &k) != 0)
        return thue_gerr_set(e, THUE_EOPTIONS, "start",
                             "start is \"random\" or a string of %d characters W, B, .", opt->n);
    if (w == 0 || k == 0)
        return thue_gerr_set(e, THUE_EOPTIONS, "start",
                             "start needs at least one white and one black piece");
    opt->random = false;
    return 0;
}

static json_t *circle_options_json(const thue_gopt *o)
{
    const circle_opt *opt = OPT(o);
    char text[THUE_CIRCLE_FIELDS_MAX + 1];
    if (opt->random)
        snprintf(text, sizeof text, "random");
    else
        board_text(opt->board, opt->n, text);
    return json_pack("{s:i,s:s,s:i,s:i,s:i}", "fields", opt->n, "start", text, "white", opt->white,
                     "black", opt->black, "move_cap", opt->move_cap);
}

static void circle_pool_key(const thue_gopt *o, char *out, size_t size)
{
    snprintf(out, size, "%d", OPT(o)->n);
}

static size_t circle_state_size(const thue_gopt *o)
{
    (void)o;
    return sizeof(thue_circle_state);
}

static void circle_start(const thue_gopt *o, uint64_t seed, void *st)
{
    const circle_opt *opt = OPT(o);
    thue_circle_state *s = st;
    memset(s, 0, sizeof *s);
    s->n = opt->n;
    if (!opt->random) {
        memcpy(s->board, opt->board, (size_t)opt->n);
        return;
    }
    /* A seeded Fisher-Yates shuffle of the fields; the first `white` get white pieces,
     * the next `black` black ones. */
    int perm[THUE_CIRCLE_FIELDS_MAX];
    for (int f = 0; f < opt->n; f++)
        perm[f] = f;
    uint64_t x = seed;
    for (int f = opt->n - 1; f > 0; f--) {
        x = thue_gmix64(x);
        int r = (int)(x % (uint64_t)(f + 1));
        int t = perm[f];
        perm[f] = perm[r], perm[r] = t;
    }
    for (int i = 0; i < opt->white + opt->black; i++)
        s->board[perm[i]] = i < opt->white ? 1 : 2;
}

static int circle_position_parse(const thue_gopt *o, const json_t *j, void *st, thue_gerr *e)
{
    const circle_opt *opt = OPT(o);
    thue_circle_state s;
    memset(&s, 0, sizeof s);
    static const char *const keys[] = {"fields", "board", "to_move", "moves", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_ESTATE, "",
                             "a circle position is {\"fields\":N,\"board\":\"W.B..\"}");
    if (thue_gjson_only(j, keys, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    long long v;
    if (thue_gjson_int(j, "fields", opt->n, opt->n, opt->n, &v, THUE_ESTATE, e) != 0)
        return thue_gerr_set(e, THUE_ESTATE, "fields", "these options have %d fields", opt->n);
    s.n = opt->n;
    const json_t *b = json_object_get(j, "board");
    int w, k;
    if (!json_is_string(b) || json_string_length(b) != (size_t)opt->n ||
        board_parse(json_string_value(b), opt->n, s.board, &w, &k) != 0)
        return thue_gerr_set(e, THUE_ESTATE, "board",
                             "board is a string of %d characters W, B, . (field 0 first)", opt->n);
    if (w == 0 || k == 0)
        return thue_gerr_set(e, THUE_ESTATE, "board",
                             "each player needs at least one piece on the board");
    if (thue_gjson_int(j, "to_move", 0, 1, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.to_move = (int32_t)v;
    if (thue_gjson_int(j, "moves", 0, MOVE_CAP_MAX, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.moves = (int32_t)v;
    memcpy(st, &s, sizeof s);
    return 0;
}

static json_t *circle_state_json(const thue_gopt *o, const void *st)
{
    (void)o;
    const thue_circle_state *s = st;
    char text[THUE_CIRCLE_FIELDS_MAX + 1];
    board_text(s->board, s->n, text);
    return json_pack("{s:i,s:s,s:i,s:i}", "fields", s->n, "board", text, "to_move", s->to_move,
                     "moves", s->moves);
}

static bool stuck(const thue_circle_state *s, int player)
{
    for (int f = 0; f < s->n; f++)
        if (s->board[f] == player + 1 &&
            (s->board[(f + 1) % s->n] == 0 || s->board[(f + s->n - 1) % s->n] == 0))
            return false;
    return true;
}

static void circle_result(const thue_gopt *o, const void *st, thue_gresult *r)
{
    const thue_circle_state *s = st;
    memset(r, 0, sizeof *r);
    r->winner = -1;
    r->why = "";
    /* A player left without a move loses even when that was the cap's last move. */
    if (stuck(s, s->to_move)) {
        r->over = true;
        r->winner = s->to_move ^ 1;
        r->score[r->winner] = 1;
        r->why = "no_moves";
    } else if (s->moves >= OPT(o)->move_cap) {
        r->over = true;
        r->why = "move_cap";
    }
}

static int circle_to_move(const thue_gopt *o, const void *st)
{
    thue_gresult r;
    circle_result(o, st, &r);
    return r.over ? -1 : ((const thue_circle_state *)st)->to_move;
}

static const char *circle_step(const thue_gopt *o, const void *st)
{
    return circle_to_move(o, st) < 0 ? "over" : "move";
}

static int circle_max_moves(const thue_gopt *o)
{
    return 2 * OPT(o)->n;
}

static int circle_legal_moves(const thue_gopt *o, const void *st, thue_gmove *out)
{
    const thue_circle_state *s = st;
    if (circle_to_move(o, st) < 0)
        return 0;
    return thue_circle_moves(s->n, s->board, s->to_move, out);
}

static int circle_move_parse(const thue_gopt *o, const json_t *j, thue_gmove *m, thue_gerr *e)
{
    static const char *const keys[] = {"from", "to", "dir", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_EMOVE, "",
                             "a circle move is {\"from\":F,\"to\":T,\"dir\":1 or -1}");
    /* An unknown member: thue_gjson_only names it in e. */
    if (thue_gjson_only(j, keys, THUE_EMOVE, e) != 0)
        return THUE_EMOVE;
    const json_t *fj = json_object_get(j, "from"), *tj = json_object_get(j, "to");
    const json_t *dj = json_object_get(j, "dir");
    /* The shape's bounds are the game's (no circle has more fields), not this board's:
     * a field past this board is apply's illegal move (PROTOCOL.md section 5). */
    (void)o;
    int n = THUE_CIRCLE_FIELDS_MAX;
    if (!json_is_integer(fj) || json_integer_value(fj) < 0 || json_integer_value(fj) >= n)
        return thue_gerr_set(e, THUE_EMOVE, "from", "from is a field number 0..%d", n - 1);
    if (!json_is_integer(tj) || json_integer_value(tj) < 0 || json_integer_value(tj) >= n)
        return thue_gerr_set(e, THUE_EMOVE, "to", "to is a field number 0..%d", n - 1);
    int dir = 0;
    if (dj != NULL) {
        if (!json_is_integer(dj) || (json_integer_value(dj) != 1 && json_integer_value(dj) != -1))
            return thue_gerr_set(e, THUE_EMOVE, "dir",
                                 "dir is 1 (toward increasing field numbers) or -1");
        dir = (int)json_integer_value(dj);
    }
    *m = (thue_gmove){{(int32_t)json_integer_value(fj), (int32_t)json_integer_value(tj), dir, 0}};
    return 0;
}

static json_t *circle_move_json(const thue_gopt *o, const thue_gmove *m)
{
    (void)o;
    if (m->v[2] == 0)
        return json_pack("{s:i,s:i}", "from", m->v[0], "to", m->v[1]);
    return json_pack("{s:i,s:i,s:i}", "from", m->v[0], "to", m->v[1], "dir", m->v[2]);
}

/* Whether the piece on `from` reaches `to` going `dir` over free fields only. */
static bool reaches(const thue_circle_state *s, int from, int to, int dir)
{
    for (int f = (from + dir + s->n) % s->n; f != from; f = (f + dir + s->n) % s->n) {
        if (s->board[f] != 0)
            return false;
        if (f == to)
            return true;
    }
    return false;
}

static int circle_apply(const thue_gopt *o, void *st, int player, const thue_gmove *m, thue_gerr *e)
{
    thue_circle_state *s = st;
    if (circle_to_move(o, st) < 0)
        return thue_gerr_set(e, THUE_EOVER, "", "the game is over");
    if (player != 0 && player != 1)
        return thue_gerr_set(e, THUE_EPLAYER, "", "a player is 0 or 1");
    if (player != s->to_move)
        return thue_gerr_set(e, THUE_ETURN, "", "it is not your turn");
    int from = m->v[0], to = m->v[1], dir = m->v[2];
    if (from < 0 || from >= s->n)
        return thue_gerr_set(e, THUE_EILLEGAL, "from", "there is no field %d (fields 0..%d)", from,
                             s->n - 1);
    if (to < 0 || to >= s->n)
        return thue_gerr_set(e, THUE_EILLEGAL, "to", "there is no field %d (fields 0..%d)", to,
                             s->n - 1);
    if (s->board[from] != player + 1)
        return thue_gerr_set(e, THUE_EILLEGAL, "from", "field %d holds no piece of yours", from);
    if (to == from)
        return thue_gerr_set(e, THUE_EILLEGAL, "to", "a move goes at least one field");
    if (dir != 0 && dir != 1 && dir != -1)
        return thue_gerr_set(e, THUE_EILLEGAL, "dir", "dir is 1 or -1");
    if (s->board[to] != 0)
        return thue_gerr_set(e, THUE_EILLEGAL, "to", "field %d is not free", to);
    if (dir == 0) {
        bool up = reaches(s, from, to, 1), down = reaches(s, from, to, -1);
        if (up && down)
            return thue_gerr_set(e, THUE_EILLEGAL, "dir",
                                 "both directions reach field %d: say which with dir", to);
        if (!up && !down)
            return thue_gerr_set(e, THUE_EILLEGAL, "to",
                                 "a piece on field %d cannot reach field %d: a piece is in "
                                 "the way both ways",
                                 from, to);
        dir = up ? 1 : -1;
    } else if (!reaches(s, from, to, dir)) {
        return thue_gerr_set(e, THUE_EILLEGAL, "to",
                             "going %s from field %d, a piece is in the way before field %d",
                             dir == 1 ? "up" : "down", from, to);
    }
    s->board[to] = s->board[from];
    s->board[from] = 0;
    s->to_move ^= 1;
    s->moves++;
    return 0;
}

static uint64_t circle_hash(const thue_gopt *o, const void *st)
{
    (void)o;
    const thue_circle_state *s = st;
    uint64_t h = thue_gmix64((uint64_t)s->to_move ^ (uint64_t)s->n << 8);
    for (int f = 0; f < s->n; f += 8) {
        uint64_t w = 0;
        for (int i = 0; i < 8 && f + i < s->n; i++)
            w |= (uint64_t)s->board[f + i] << (8 * i);
        h = thue_gmix64(h ^ w);
    }
    return h;
}

/* A winning move's progress, the less the better (b is the board after it, the
 * opponent to move; circle.h's thue__circle_progress, which circle_cap.c orders by too). Keeping the value alone does not end a game: a strong block can
 * shuffle inside itself for ever and a single can run round the circle. The measures,
 * most important first:
 *   - the free fields of the holes that count once singles are folded into their
 *     super-blocks (thue_circle_holes): the Nim heaps and the room a squeeze closes;
 *   - the open free fields: all but those between two of the winner's pieces, which
 *     are the winner's for good (no opposing piece gets past either). An opposing move
 *     never adds to them; a winner's end piece moving into a hole takes some away;
 *   - the distance (in pieces) from the nearest hole to a big block of the winner,
 *     then the sum over the holes of free fields times that distance: a hole next to a
 *     big block is one it can swallow, and singles pushed the right way bring holes
 *     there;
 *   - how many opposing pieces can move, then their moves.
 * With ties drawn pseudo-randomly (circle_perfect), this carries out every win of up to
 * 12 fields against the retrograde's longest defence (test_game_circle; 13 fields too in
 * a one-off run), the longest in as many moves as the longest win needs. It is a
 * heuristic: at 14 fields a few won positions still end at the move cap (drawn, never
 * lost) against that defence, e.g. "B.WBWBBWB.WBW." with black to move. */
uint64_t thue__circle_progress(int n, const uint8_t *b, int opponent)
{
    int pos[THUE_CIRCLE_FIELDS_MAX], m = 0;
    uint8_t win = (uint8_t)((opponent ^ 1) + 1);
    for (int f = 0; f < n; f++)
        if (b[f] != 0)
            pos[m++] = f;
    int gap[THUE_CIRCLE_FIELDS_MAX], dist[THUE_CIRCLE_FIELDS_MAX];
    bool big[THUE_CIRCLE_FIELDS_MAX];
    for (int i = 0; i < m; i++) {
        gap[i] = ((pos[(i + 1) % m] - pos[i] - 1) % n + n) % n; /* after piece i */
        big[i] = b[pos[i]] == win && (b[pos[(i + 1) % m]] == win || b[pos[(i + m - 1) % m]] == win);
        dist[i] = big[i] ? 0 : THUE_CIRCLE_FIELDS_MAX;
    }
    /* Pieces to the nearest big-block piece of the winner, both ways round. */
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < m; k++) {
            int i = (k + 1) % m, h = k;
            if (dist[h] + 1 < dist[i])
                dist[i] = dist[h] + 1;
        }
    for (int round = 0; round < 2; round++)
        for (int k = m - 1; k >= 0; k--) {
            int i = k, h = (k + 1) % m;
            if (dist[h] + 1 < dist[i])
                dist[i] = dist[h] + 1;
        }
    uint64_t open = 0, far = 0, near = 255;
    for (int i = 0; i < m; i++) {
        uint8_t x = b[pos[i]], y = b[pos[(i + 1) % m]];
        if (x == win && y == win)
            continue;
        open += (uint64_t)gap[i];
        if (x != y && gap[i] > 0) {
            uint64_t d = (uint64_t)(dist[i] < dist[(i + 1) % m] ? dist[i] : dist[(i + 1) % m]);
            far += (uint64_t)gap[i] * d;
            if (d < near)
                near = d;
        }
    }
    thue_gmove mv[2 * THUE_CIRCLE_FIELDS_MAX];
    int cnt = thue_circle_moves(n, b, opponent, mv), movers = 0;
    for (int i = 0; i < cnt; i++)
        movers += i == 0 || mv[i].v[0] != mv[i - 1].v[0];
    uint64_t holes = (uint64_t)thue_circle_holes(n, b);
    return ((((holes * 256 + open) * 256 + near) * 8192 + far) * 256 + (uint64_t)movers) * 256 +
           (uint64_t)cnt;
}

/* The analysis's move for the player to move in s (not over), whose uncapped value is v
 * (not unknown): each candidate is judged by the analysis, and one whose value for the
 * opponent is -v keeps the value (a loss keeps the first move). Among a win's moves the
 * one with the least progress is taken, so that the win is also carried out. 0, or
 * THUE_ETOOBIG when the analysis cannot value a move (never seen). */
static int analysis_move(const thue_gopt *o, const thue_circle_state *s, int v, thue_gmove *best)
{
    thue_gmove mv[2 * THUE_CIRCLE_FIELDS_MAX];
    int cnt = thue_circle_moves(s->n, s->board, s->to_move, mv);
    int pick = 0;
    uint64_t pick_score = UINT64_MAX;
    /* Ties go to a pseudo-random one of them, drawn from the position and the move
     * count: the same state gives the same move, but a line that comes back to a
     * position (the loser running round) is not followed the same way for ever. */
    uint64_t salt = circle_hash(o, s) ^ (uint64_t)s->moves * 0x9E3779B97F4A7C15ull, ties = 0;
    if (v >= 0) {
        uint8_t b[THUE_CIRCLE_FIELDS_MAX];
        for (int i = 0; i < cnt; i++) {
            memcpy(b, s->board, (size_t)s->n);
            b[mv[i].v[1]] = b[mv[i].v[0]];
            b[mv[i].v[0]] = 0;
            int w = thue_circle_value(s->n, b, s->to_move ^ 1);
            if (w == THUE_CIRCLE_UNKNOWN)
                return THUE_ETOOBIG;
            if (w != -v)
                continue;
            if (v == 0) {
                pick = i;
                break;
            }
            uint64_t score = thue__circle_progress(s->n, b, s->to_move ^ 1);
            if (score < pick_score)
                pick = i, pick_score = score, ties = 1;
            else if (score == pick_score) {
                ties++;
                if (thue_gmix64(salt + ties) % ties == 0)
                    pick = i;
            }
        }
    }
    *best = mv[pick];
    return 0;
}

/* Positions the cap's search (circle_cap.c) may visit for one answer, unless the
 * caller's node budget is smaller (a second or two). */
#define CAP_NODES 1000000ull

static int circle_perfect(const thue_gopt *o, const void *st, const thue_gctl *ctl,
                          thue_gmove *best, int *value)
{
    const thue_circle_state *s = st;
    thue_gresult r;
    circle_result(o, st, &r);
    if (r.over) {
        *value = r.winner < 0 ? 0 : r.winner == s->to_move ? 1 : -1;
        return 0;
    }
    int v = thue_circle_value(s->n, s->board, s->to_move);
    if (v == THUE_CIRCLE_UNKNOWN) {
        thue_gctl_why(ctl, "the block analysis went deeper than it allows (never seen so far)");
        return THUE_ETOOBIG;
    }
    /* The cap (circle_cap.c): a draw stays a draw; a decided position is decided only
     * if its fastest win fits into the moves left. Past the longest win of the board's
     * size (one more for a win's move, so that the move keeps the win in time too) the
     * cap cannot matter and the analysis alone answers; nearer the cap, or on a board
     * whose longest win is not known (over 12 fields), the search finds the fastest win. */
    int left = OPT(o)->move_cap - s->moves, longest = thue_circle_longest(s->n);
    if (v != 0 && (longest < 0 || left <= longest)) {
        int plies = -1;
        thue_gmove m = {{0, 0, 0, 0}};
        int winner = v > 0 ? s->to_move : s->to_move ^ 1;
        int err = thue_circle_capped(s->n, s->board, s->to_move, winner, left,
                                     thue_gctl_nodes(ctl, CAP_NODES), ctl, &plies, &m);
        if (err == THUE_ETOOBIG)
            thue_gctl_why(ctl,
                          "the move cap is %d move%s away and the search for %s's fastest win "
                          "did not finish within its budget or time, so whether the cap "
                          "comes first is not known",
                          left, left == 1 ? "" : "s", winner == 0 ? "white" : "black");
        if (err != 0)
            return err;
        *best = m;
        *value = plies < 0 ? 0 : v;
        return 0;
    }
    int err = analysis_move(o, s, v, best);
    if (err == THUE_ETOOBIG)
        thue_gctl_why(ctl, "the block analysis went deeper than it allows (never seen so far)");
    if (err != 0)
        return err;
    *value = v;
    return 0;
}

/* What a room's perfect bot plays where perfect cannot decide (game.h's fallback): the
 * analysis's move as if there were no cap (quick: no search), else the first move. */
static int analysis_choose(const thue_gopt *o, const void *st, uint64_t seed, const thue_gctl *ctl,
                           thue_gmove *out)
{
    (void)seed;
    (void)ctl;
    const thue_circle_state *s = st;
    int v = thue_circle_value(s->n, s->board, s->to_move);
    if (v != THUE_CIRCLE_UNKNOWN && analysis_move(o, s, v, out) == 0)
        return 0;
    thue_gmove mv[2 * THUE_CIRCLE_FIELDS_MAX];
    if (thue_circle_moves(s->n, s->board, s->to_move, mv) == 0)
        return THUE_EOVER;
    *out = mv[0];
    return 0;
}

static const thue_gamebot circle_fallback = {
    "analysis",
    "the block analysis's move as if there were no move cap (a win's move that makes the "
    "most progress)",
    analysis_choose,
};

const thue_gamedef thue_game_circle = {
    .name = "circle",
    .title = "The circle game",
    .summary = "White and black pieces on a circle of fields; a move slides one of your "
               "pieces over free fields either way; who cannot move loses, endless play "
               "is a draw.",
    .move_doc = "{\"from\":F,\"to\":T,\"dir\":1 or -1}",
    .position_doc = "{\"fields\":12,\"board\":\"WW..B.W..BB.\",\"to_move\":0,\"moves\":0}",
    .options = circle_options,
    .noptions = (int)(sizeof circle_options / sizeof circle_options[0]),
    .flags = THUE_GAME_DRAWS,
    .parse_options = circle_parse_options,
    .options_json = circle_options_json,
    .pool_key = circle_pool_key,
    .state_size = circle_state_size,
    .start = circle_start,
    .position_parse = circle_position_parse,
    .state_json = circle_state_json,
    .to_move = circle_to_move,
    .step = circle_step,
    .max_moves = circle_max_moves,
    .legal_moves = circle_legal_moves,
    .move_parse = circle_move_parse,
    .move_json = circle_move_json,
    .apply = circle_apply,
    .result = circle_result,
    .hash = circle_hash,
    .perfect = circle_perfect,
    .perfect_help = "exact, move cap included: the block analysis, and where the cap could "
                    "decide (fewer moves left than the longest win of the board's size, known "
                    "up to 12 fields; on bigger boards wherever a side wins) a search for the "
                    "fastest win, 1 million positions at most; where that does not finish it "
                    "refuses",
    .fallback = &circle_fallback,
};
