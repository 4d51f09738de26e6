/*
 * wythoff.c: generalised Wythoff's game (parameter a >= 1) behind the game table.
 * Two heaps; a move takes any positive number of tokens from one heap, or x and y from
 * both with |x - y| < a (a = 1: equal numbers, Wythoff's game; on the quarter-plane board
 * a queen-like piece moves left, down, or diagonally within a cone). Normal play: who
 * cannot move (both heaps empty) loses. Every move takes a token, so the game is acyclic.
 *
 * Options: {"a":1,"heaps":[x,y],"start":"random"}: a 1..1000; heaps each
 * 0..THUE_WYTHOFF_HEAP_MAX (2^53-1, the JSON integers a client reads exactly), at least
 * one token; start "random" (the default when heaps is absent: each heap 10..30 from the
 * seed) or "heaps" (the default when heaps is given). options_json writes "heaps":null for
 * a random start. Pool key "a<a>": the heaps are the start, not the game's character.
 * Move: {"take":[x,y]} (ptable.h's split of 53-bit numbers into the four int32).
 *
 * legal_moves and max_moves. A position (x, y) has x + y + #{(i,j) : |i - j| < a} moves,
 * up to about x * 2a + y; with heaps of 2^53 they cannot be listed. max_moves is the
 * fixed THUE_WYTHOFF_MOVES_MAX, and legal_moves lists the moves in increasing number of
 * tokens taken (then from heap 0 alone, from both with heap 0's share ascending, from
 * heap 1 alone): all of them when they fit (every position up to 1000x1000 for a = 1, up
 * to 30x30 for any a, which covers every random start); beyond that the winning move
 * (when there is one) and then the fewest-tokens moves, max_moves in all. (The winning
 * move goes first whenever the list may not fit, x + y > max_moves / (2a + 1), a sure
 * bound of the count; the list is still whole when it fits.) So the generic
 * bots (random, uct, gsolve) play every position, exactly where it is listed whole; the
 * perfect member is exact at every size (O(log) per move from the P-table's arithmetic
 * queries, ptable.h) and is what the perfect bot uses.
 */
#include <stdio.h>
#include <string.h>

#include "games/game.h"
#include "games/registry.h"
#include "games/wythoff/ptable.h"
#include "games/wythoff/wythoff.h"

typedef struct wy_opt {
    int a;
    bool random;
    uint64_t heaps[2]; /* the fixed start (random false) */
} wy_opt;

_Static_assert(sizeof(wy_opt) <= sizeof(thue_gopt), "wythoff options fit");

#define OPT(o) ((const wy_opt *)(const void *)(o))

static const thue_goption_doc wy_options[] = {
    {"a", "integer", "1",
     "1..1000: a move from both heaps takes x and y tokens with |x - y| < a (1: Wythoff's "
     "game, equal numbers)"},
    {"heaps", "array of integers", "null",
     "the starting heaps [x,y], each 0..9007199254740991 (2^53-1), at least one token; "
     "null or absent: a random start"},
    {"start", "string", "\"random\"",
     "\"random\" (the seed gives each heap 10..30 tokens; the default without heaps) or "
     "\"heaps\" (the given heaps; the default with them; null: the default)"},
};

/* j as [x,y] of integers 0..THUE_WYTHOFF_HEAP_MAX into out: 0, or code with e, naming
 * `name` with the sentence `shape` for the array, `name/i` with "name/i: <pre>MAX<post>"
 * for an element. */
static int parse_pair(const json_t *j, const char *name, const char *shape, const char *pre,
                      const char *post, uint64_t out[2], int code, thue_gerr *e)
{
    if (!json_is_array(j) || json_array_size(j) != 2)
        return thue_gerr_set(e, code, name, "%s", shape);
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = json_array_get(j, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > THUE_WYTHOFF_HEAP_MAX) {
            char field[16];
            snprintf(field, sizeof field, "%.8s/%zu", name, i);
            return thue_gerr_set(e, code, field, "%s/%zu: %s%lld%s", name, i, pre,
                                 THUE_WYTHOFF_HEAP_MAX, post);
        }
        out[i] = (uint64_t)json_integer_value(v);
    }
    return 0;
}

static int parse_heaps(const json_t *h, uint64_t *out, int code, thue_gerr *e)
{
    return parse_pair(h, "heaps", "heaps is an array of two heap sizes [x,y]",
                      "a heap holds 0 to ", " tokens", out, code, e);
}

static int wy_parse_options(const json_t *j, thue_gopt *o, thue_gerr *e)
{
    wy_opt *opt = (wy_opt *)(void *)o;
    memset(o, 0, sizeof *o);
    static const char *const keys[] = {"a", "heaps", "start", NULL};
    if (j != NULL && !json_is_object(j))
        return thue_gerr_set(e, THUE_EOPTIONS, "", "the options are a JSON object");
    if (j != NULL && thue_gjson_only(j, keys, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    long long a;
    if (thue_gjson_int(j, "a", 1, THUE_WYTHOFF_A_MAX, 1, &a, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->a = (int)a;
    const json_t *h = j != NULL ? json_object_get(j, "heaps") : NULL;
    if (h != NULL && json_is_null(h))
        h = NULL;
    const json_t *s = j != NULL ? json_object_get(j, "start") : NULL;
    const char *start = h != NULL ? "heaps" : "random";
    if (s != NULL && !json_is_null(s)) {
        if (!json_is_string(s) || (strcmp(json_string_value(s), "random") != 0 &&
                                   strcmp(json_string_value(s), "heaps") != 0))
            return thue_gerr_set(e, THUE_EOPTIONS, "start", "start is \"random\" or \"heaps\"");
        start = json_string_value(s);
    }
    opt->random = strcmp(start, "random") == 0;
    if (opt->random && h != NULL)
        return thue_gerr_set(e, THUE_EOPTIONS, "start",
                             "start is \"random\" but heaps are given: drop one of them");
    if (!opt->random && h == NULL)
        return thue_gerr_set(e, THUE_EOPTIONS, "heaps", "start \"heaps\" needs heaps [x,y]");
    if (h != NULL) {
        if (parse_heaps(h, opt->heaps, THUE_EOPTIONS, e) != 0)
            return THUE_EOPTIONS;
        if (opt->heaps[0] == 0 && opt->heaps[1] == 0)
            return thue_gerr_set(e, THUE_EOPTIONS, "heaps", "heaps: the heaps hold no token");
    }
    return 0;
}

static json_t *wy_options_json(const thue_gopt *o)
{
    const wy_opt *opt = OPT(o);
    json_t *h = opt->random
                    ? json_null()
                    : json_pack("[I,I]", (json_int_t)opt->heaps[0], (json_int_t)opt->heaps[1]);
    return json_pack("{s:i,s:o,s:s}", "a", opt->a, "heaps", h, "start",
                     opt->random ? "random" : "heaps");
}

static void wy_pool_key(const thue_gopt *o, char *out, size_t size)
{
    snprintf(out, size, "a%d", OPT(o)->a);
}

static size_t wy_state_size(const thue_gopt *o)
{
    (void)o;
    return sizeof(thue_wythoff_state);
}

static void wy_start(const thue_gopt *o, uint64_t seed, void *st)
{
    thue_wythoff_state *s = st;
    memset(s, 0, sizeof *s);
    const wy_opt *opt = OPT(o);
    for (int i = 0; i < 2; i++) {
        if (!opt->random) {
            s->heaps[i] = opt->heaps[i];
            continue;
        }
        uint64_t x = thue_gmix64(seed ^ (0x77797468ull + (uint64_t)i * 0x100000001B3ull));
        s->heaps[i] = THUE_WYTHOFF_RANDOM_LO +
                      x % (uint64_t)(THUE_WYTHOFF_RANDOM_HI - THUE_WYTHOFF_RANDOM_LO + 1);
    }
}

static int wy_position_parse(const thue_gopt *o, const json_t *j, void *st, thue_gerr *e)
{
    thue_wythoff_state s;
    memset(&s, 0, sizeof s);
    static const char *const keys[] = {"heaps", "to_move", "moves", "a", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_ESTATE, "", "a Wythoff position is {\"heaps\":[x,y]}");
    if (thue_gjson_only(j, keys, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    const json_t *h = json_object_get(j, "heaps");
    if (h == NULL)
        return thue_gerr_set(e, THUE_ESTATE, "heaps", "a Wythoff position needs \"heaps\"");
    /* Empty heaps are a real position (the game is over). */
    if (parse_heaps(h, s.heaps, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    long long v;
    if (thue_gjson_int(j, "to_move", 0, 1, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.to_move = (int8_t)v;
    if (thue_gjson_int(j, "moves", 0, 1 << 30, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.moves = (int32_t)v;
    /* "a" is written for clients; read back, it must be the options' own. */
    if (thue_gjson_int(j, "a", 1, THUE_WYTHOFF_A_MAX, OPT(o)->a, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    if (v != OPT(o)->a)
        return thue_gerr_set(e, THUE_ESTATE, "a",
                             "a is %lld in the position but %d in the options: pass options "
                             "with that a",
                             v, OPT(o)->a);
    memcpy(st, &s, sizeof s);
    return 0;
}

static json_t *wy_state_json(const thue_gopt *o, const void *st)
{
    const thue_wythoff_state *s = st;
    /* to_move is kept once over too: who faces the empty heaps decides the winner. "a" is
     * the options' (a board marks the reachable squares with it). */
    return json_pack("{s:[I,I],s:i,s:i,s:i}", "heaps", (json_int_t)s->heaps[0],
                     (json_int_t)s->heaps[1], "to_move", s->to_move, "moves", s->moves, "a",
                     OPT(o)->a);
}

static bool over(const thue_wythoff_state *s)
{
    return s->heaps[0] == 0 && s->heaps[1] == 0;
}

static int wy_to_move(const thue_gopt *o, const void *st)
{
    (void)o;
    const thue_wythoff_state *s = st;
    return over(s) ? -1 : s->to_move;
}

static const char *wy_step(const thue_gopt *o, const void *st)
{
    return wy_to_move(o, st) < 0 ? "over" : "move";
}

static int wy_max_moves(const thue_gopt *o)
{
    (void)o;
    return THUE_WYTHOFF_MOVES_MAX;
}

static thue_gmove make_move(uint64_t x, uint64_t y)
{
    const uint64_t b = (uint64_t)THUE_WYTHOFF_MOVE_BASE;
    return (thue_gmove){{(int32_t)(x % b), (int32_t)(x / b), (int32_t)(y % b), (int32_t)(y / b)}};
}

/* The takes of m, false when a number is out of 0..2^31-1 (a move no state allows). */
static bool move_takes(const thue_gmove *m, uint64_t *x, uint64_t *y)
{
    for (int i = 0; i < 4; i++)
        if (m->v[i] < 0)
            return false;
    const uint64_t b = (uint64_t)THUE_WYTHOFF_MOVE_BASE;
    *x = (uint64_t)m->v[0] + (uint64_t)m->v[1] * b;
    *y = (uint64_t)m->v[2] + (uint64_t)m->v[3] * b;
    return true;
}

/* Whether taking (x, y) from s is legal under a; *why a sentence when not. */
static bool legal(const thue_wythoff_state *s, int a, uint64_t x, uint64_t y, const char **why)
{
    if (x == 0 && y == 0)
        return *why = "a move takes at least one token", false;
    if (x > s->heaps[0])
        return *why = "heap 0 holds fewer tokens", false;
    if (y > s->heaps[1])
        return *why = "heap 1 holds fewer tokens", false;
    if (x > 0 && y > 0 && (x > y ? x - y : y - x) >= (uint64_t)a)
        return *why = "a move from both heaps takes x and y with |x - y| < a", false;
    return true;
}

static int wy_perfect(const thue_gopt *o, const void *st, const thue_gctl *ctl, thue_gmove *best,
                      int *value);

static int wy_legal_moves(const thue_gopt *o, const void *st, thue_gmove *out)
{
    const thue_wythoff_state *s = st;
    if (over(s))
        return 0;
    const int cap = THUE_WYTHOFF_MOVES_MAX;
    const uint64_t x = s->heaps[0], y = s->heaps[1], a = (uint64_t)OPT(o)->a;
    int n = 0;
    /* When the list may be cut, the winning move goes first (and is skipped later). */
    thue_gmove win;
    bool has_win = false;
    bool cut = x + y > (uint64_t)cap / (2 * a + 1); /* a sure bound of "fits" below */
    if (cut) {
        int v = 0;
        if (wy_perfect(o, st, NULL, &win, &v) == 0 && v == 1) {
            out[n++] = win;
            has_win = true;
        }
    }
    for (uint64_t t = 1; t <= x + y && n < cap; t++) {
        if (t <= x) {
            thue_gmove m = make_move(t, 0);
            if (!(has_win && memcmp(&m, &win, sizeof m) == 0))
                out[n++] = m;
        }
        /* From both: i from heap 0, t - i from heap 1, |2i - t| < a, 1 <= i <= x,
         * 1 <= t - i <= y. */
        uint64_t lo = t > y ? t - y : 1, hi = t - 1 < x ? t - 1 : x;
        if (lo < 1)
            lo = 1;
        /* 2i > t - a and 2i < t + a. */
        uint64_t clo = t + 1 > a ? (t - a) / 2 + 1 : 1;
        uint64_t chi = (t + a - 1) / 2;
        if (clo > lo)
            lo = clo;
        if (chi < hi)
            hi = chi;
        for (uint64_t i = lo; i <= hi && n < cap; i++) {
            thue_gmove m = make_move(i, t - i);
            if (!(has_win && memcmp(&m, &win, sizeof m) == 0))
                out[n++] = m;
        }
        if (t <= y && n < cap) {
            thue_gmove m = make_move(0, t);
            if (!(has_win && memcmp(&m, &win, sizeof m) == 0))
                out[n++] = m;
        }
    }
    return n;
}

static int wy_move_parse(const thue_gopt *o, const json_t *j, thue_gmove *m, thue_gerr *e)
{
    (void)o;
    static const char *const keys[] = {"take", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_EMOVE, "", "a Wythoff move is {\"take\":[x,y]}");
    if (thue_gjson_only(j, keys, THUE_EMOVE, e) != 0)
        return THUE_EMOVE;
    uint64_t v[2];
    int err = parse_pair(json_object_get(j, "take"), "take",
                         "take is [x,y]: x tokens from heap 0 and y from heap 1",
                         "an integer 0..", "", v, THUE_EMOVE, e);
    if (err)
        return err;
    if (v[0] == 0 && v[1] == 0)
        return thue_gerr_set(e, THUE_EMOVE, "take", "take [0,0] takes nothing");
    *m = make_move(v[0], v[1]);
    return 0;
}

static json_t *wy_move_json(const thue_gopt *o, const thue_gmove *m)
{
    (void)o;
    uint64_t x = 0, y = 0;
    if (!move_takes(m, &x, &y))
        x = y = 0;
    return json_pack("{s:[I,I]}", "take", (json_int_t)x, (json_int_t)y);
}

static int wy_apply(const thue_gopt *o, void *st, int player, const thue_gmove *m, thue_gerr *e)
{
    thue_wythoff_state *s = st;
    if (over(s))
        return thue_gerr_set(e, THUE_EOVER, "", "the game is over");
    if (player != 0 && player != 1)
        return thue_gerr_set(e, THUE_EPLAYER, "", "a player is 0 or 1");
    if (player != s->to_move)
        return thue_gerr_set(e, THUE_ETURN, "", "it is not your turn");
    uint64_t x, y;
    const char *why = "";
    if (!move_takes(m, &x, &y))
        return thue_gerr_set(e, THUE_EILLEGAL, "take", "take is [x,y] with 0 <= x, y");
    if (!legal(s, OPT(o)->a, x, y, &why))
        return thue_gerr_set(
            e, THUE_EILLEGAL, "take", "take [%llu,%llu] from heaps [%llu,%llu] (a = %d): %s",
            (unsigned long long)x, (unsigned long long)y, (unsigned long long)s->heaps[0],
            (unsigned long long)s->heaps[1], OPT(o)->a, why);
    s->heaps[0] -= x;
    s->heaps[1] -= y;
    s->to_move ^= 1;
    s->moves++;
    return 0;
}

static void wy_result(const thue_gopt *o, const void *st, thue_gresult *r)
{
    (void)o;
    const thue_wythoff_state *s = st;
    memset(r, 0, sizeof *r);
    r->winner = -1;
    r->why = "";
    if (!over(s))
        return;
    r->over = true;
    r->winner = s->to_move ^ 1; /* the player to move faces empty heaps */
    r->score[r->winner] = 1;
    r->why = "no_moves";
}

static uint64_t wy_hash(const thue_gopt *o, const void *st)
{
    (void)o;
    const thue_wythoff_state *s = st;
    uint64_t h = thue_gmix64((uint64_t)s->to_move ^ 0x7779ull);
    h = thue_gmix64(h ^ s->heaps[0]);
    return thue_gmix64(h ^ s->heaps[1]);
}

static int wy_perfect(const thue_gopt *o, const void *st, const thue_gctl *ctl, thue_gmove *best,
                      int *value)
{
    (void)ctl; /* an analysis of the position: no search to stop */
    const thue_wythoff_state *s = st;
    if (over(s)) {
        *value = -1; /* the player to move faces empty heaps and has lost */
        return 0;
    }
    thue_wythoff_cf c;
    thue_wythoff_cf_init(&c, OPT(o)->a);
    thue_u128 tx, ty;
    int w = thue_wythoff_winning_move(&c, s->heaps[0], s->heaps[1], &tx, &ty);
    if (w < 0)
        return THUE_ETOOBIG; /* not reached: heaps of 2^53 are far inside the bound */
    if (w == 1) {
        *best = make_move((uint64_t)tx, (uint64_t)ty);
        *value = 1;
        return 0;
    }
    /* Lost against perfect play: take one token from the bigger heap, the move that
     * changes the least. */
    *best = s->heaps[0] >= s->heaps[1] ? make_move(1, 0) : make_move(0, 1);
    *value = -1;
    return 0;
}

const thue_gamedef thue_game_wythoff = {
    .name = "wythoff",
    .title = "Wythoff's game",
    .summary = "Two heaps; take any positive number of tokens from one heap, or x and y from "
               "both with |x - y| < a (a = 1: equal numbers). Who cannot move loses.",
    .move_doc = "{\"take\":[x,y]}",
    .position_doc = "{\"heaps\":[10,20],\"to_move\":0}",
    .options = wy_options,
    .noptions = (int)(sizeof wy_options / sizeof wy_options[0]),
    .flags = THUE_GAME_ACYCLIC | THUE_GAME_CUT_LISTS,
    .parse_options = wy_parse_options,
    .options_json = wy_options_json,
    .pool_key = wy_pool_key,
    .state_size = wy_state_size,
    .start = wy_start,
    .position_parse = wy_position_parse,
    .state_json = wy_state_json,
    .to_move = wy_to_move,
    .step = wy_step,
    .max_moves = wy_max_moves,
    .legal_moves = wy_legal_moves,
    .move_parse = wy_move_parse,
    .move_json = wy_move_json,
    .apply = wy_apply,
    .result = wy_result,
    .hash = wy_hash,
    .perfect = wy_perfect,
};
