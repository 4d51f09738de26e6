/*
 * rims.c: Rims. Dots lie in the regions of a sheet of paper; a move draws a closed curve
 * through at least one dot that crosses no earlier curve. The dots it passes through are
 * gone, and the curve splits its region in two: the inside and the outside, each keeping
 * some of the region's other dots. As a game of heaps: a move takes take >= 1 dots from
 * one heap and splits what is left into two heaps of split and rest - split dots (either
 * may be empty). Who cannot move (no dot left) loses.
 *
 * Options: {"heaps":[3,4,5]}: 1..16 heaps of 0..1000 dots, at least one dot in all.
 * Move: {"heap":I,"take":N,"split":X} (v[0] = I, v[1] = N, v[2] = X), 0 <= X <= heap - N;
 * split is optional (0: the rest stays one region).
 *
 * The state keeps its heaps canonical after every move: empty heaps dropped, the rest in
 * non-increasing order, so equal positions are equal bytes (heap indices in a move refer
 * to that order). At most 64 regions: a split that would make a 65th is refused. Once the
 * sheet is empty the state (and its JSON) keeps to_move, the player who faces it and has
 * lost; the to_move() function answers -1.
 *
 * Perfect play: Rims is Nim. The Grundy value of a heap of n dots is n, because a split
 * never reaches another value that Nim could not: splitting a into x and y with
 * x + y < a gives x XOR y <= x + y < a, never a itself, so the extra moves neither add a
 * zero-sum reply nor take one away. The player to move wins exactly when the XOR of the
 * heaps is not 0, with Nim's move (take, no split); thue_nim_perfect_heaps plays it.
 *
 * max_moves: from one heap of h dots there are thue_rims_heap_moves(h) moves (about
 * h * h / 4), and this count summed over the heaps never grows along a game (it is
 * superadditive), so the options' heaps bound every later state. A position read by
 * position_parse must fit the same bound; the bound is never below 4096 so that small
 * positions can be read whatever the options.
 */
#include <stdio.h>
#include <string.h>

#include "games/game.h"
#include "games/registry.h"
#include "games/nim/nim.h"
#include "games/rims/rims.h"

typedef struct rims_opt {
    int n;
    int heaps[THUE_RIMS_HEAPS_MAX];
} rims_opt;

_Static_assert(sizeof(rims_opt) <= sizeof(thue_gopt), "rims options fit");

/* The state: canonical heaps (non-zero, non-increasing), no pointers; writers memset it. */
typedef struct rims_state {
    int32_t moves;
    int8_t to_move; /* 0 or 1, also once over (who faces the empty sheet) */
    int8_t pad;
    int16_t n;
    int16_t heaps[THUE_RIMS_REGIONS_MAX];
} rims_state;

#define OPT(o) ((const rims_opt *)(const void *)(o))

static const thue_goption_doc rims_options[] = {
    {"heaps", "array of integers", "[3,4,5]",
     "the starting regions' dots: 1..16 heaps of 0..1000 dots, at least one dot in all"},
};

int thue_rims_heap_moves(int h)
{
    int n = 0;
    for (int r = 0; r < h; r++)
        n += r / 2 + 1;
    return n;
}

static long moves_bound(const int *heaps, int n)
{
    long total = 0;
    for (int i = 0; i < n; i++)
        total += thue_rims_heap_moves(heaps[i]);
    return total;
}

/* Drops empty heaps and sorts the rest, largest first. */
static void canonical(rims_state *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        if (s->heaps[i] > 0)
            s->heaps[n++] = s->heaps[i];
    for (int i = 1; i < n; i++) {
        int16_t v = s->heaps[i];
        int k = i;
        for (; k > 0 && s->heaps[k - 1] < v; k--)
            s->heaps[k] = s->heaps[k - 1];
        s->heaps[k] = v;
    }
    for (int i = n; i < THUE_RIMS_REGIONS_MAX; i++)
        s->heaps[i] = 0;
    s->n = (int16_t)n;
}

static int parse_options(const json_t *j, thue_gopt *o, thue_gerr *e)
{
    rims_opt *opt = (rims_opt *)(void *)o;
    memset(o, 0, sizeof *o);
    static const char *const keys[] = {"heaps", NULL};
    if (j != NULL && thue_gjson_only(j, keys, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    const json_t *h = j != NULL ? json_object_get(j, "heaps") : NULL;
    if (h == NULL) {
        opt->n = 3;
        opt->heaps[0] = 3, opt->heaps[1] = 4, opt->heaps[2] = 5;
        return 0;
    }
    if (!json_is_array(h) || json_array_size(h) < 1 || json_array_size(h) > THUE_RIMS_HEAPS_MAX)
        return thue_gerr_set(e, THUE_EOPTIONS, "heaps", "heaps is an array of 1 to %d heap sizes",
                             THUE_RIMS_HEAPS_MAX);
    long total = 0;
    for (size_t i = 0; i < json_array_size(h); i++) {
        const json_t *v = json_array_get(h, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > THUE_RIMS_HEAP_MAX) {
            char field[48];
            snprintf(field, sizeof field, "heaps/%zu", i);
            return thue_gerr_set(e, THUE_EOPTIONS, field, "heaps/%zu: a heap holds 0 to %d dots", i,
                                 THUE_RIMS_HEAP_MAX);
        }
        opt->heaps[i] = (int)json_integer_value(v);
        total += opt->heaps[i];
    }
    opt->n = (int)json_array_size(h);
    if (total == 0)
        return thue_gerr_set(e, THUE_EOPTIONS, "heaps", "heaps: the heaps hold no dot at all");
    return 0;
}

static json_t *options_json(const thue_gopt *o)
{
    return json_pack("{s:o}", "heaps", thue_gjson_ints(OPT(o)->heaps, OPT(o)->n));
}

static void pool_key(const thue_gopt *o, char *out, size_t size)
{
    (void)o;
    snprintf(out, size, "normal");
}

static size_t state_size(const thue_gopt *o)
{
    (void)o;
    return sizeof(rims_state);
}

static void start(const thue_gopt *o, uint64_t seed, void *st)
{
    (void)seed;
    rims_state s;
    memset(&s, 0, sizeof s);
    s.n = (int16_t)OPT(o)->n;
    for (int i = 0; i < OPT(o)->n; i++)
        s.heaps[i] = (int16_t)OPT(o)->heaps[i];
    canonical(&s);
    s.to_move = 0;
    memcpy(st, &s, sizeof s);
}

static int max_moves(const thue_gopt *o)
{
    long n = moves_bound(OPT(o)->heaps, OPT(o)->n);
    return n > THUE_RIMS_MOVES_FLOOR ? (int)n : THUE_RIMS_MOVES_FLOOR;
}

static int position_parse(const thue_gopt *o, const json_t *j, void *st, thue_gerr *e)
{
    rims_state s;
    memset(&s, 0, sizeof s);
    static const char *const keys[] = {"heaps", "to_move", "moves", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_ESTATE, "", "a Rims position is {\"heaps\":[5,4,3]}");
    if (thue_gjson_only(j, keys, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    const json_t *h = json_object_get(j, "heaps");
    if (!json_is_array(h) || json_array_size(h) > THUE_RIMS_REGIONS_MAX)
        return thue_gerr_set(e, THUE_ESTATE, "heaps", "heaps is an array of at most %d heap sizes",
                             THUE_RIMS_REGIONS_MAX);
    int heaps[THUE_RIMS_REGIONS_MAX];
    for (size_t i = 0; i < json_array_size(h); i++) {
        const json_t *v = json_array_get(h, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > THUE_RIMS_HEAP_MAX) {
            char field[48];
            snprintf(field, sizeof field, "heaps/%zu", i);
            return thue_gerr_set(e, THUE_ESTATE, field, "heaps/%zu: a heap holds 0 to %d dots", i,
                                 THUE_RIMS_HEAP_MAX);
        }
        heaps[i] = (int)json_integer_value(v);
        s.heaps[i] = (int16_t)heaps[i];
    }
    s.n = (int16_t)json_array_size(h);
    long bound = moves_bound(heaps, s.n);
    if (bound > max_moves(o))
        return thue_gerr_set(e, THUE_ESTATE, "heaps",
                             "this position allows up to %ld moves, more than these options' "
                             "%d: give options with bigger heaps",
                             bound, max_moves(o));
    canonical(&s);
    long long v;
    if (thue_gjson_int(j, "moves", 0, 1 << 30, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.moves = (int32_t)v;
    if (thue_gjson_int(j, "to_move", 0, 1, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.to_move = (int8_t)v;
    memcpy(st, &s, sizeof s);
    return 0;
}

static json_t *state_json(const thue_gopt *o, const void *st)
{
    (void)o;
    const rims_state *s = st;
    json_t *a = json_array(); /* its heaps are narrower than int */
    for (int i = 0; i < s->n; i++)
        json_array_append_new(a, json_integer(s->heaps[i]));
    return json_pack("{s:o,s:i,s:i}", "heaps", a, "to_move", s->to_move, "moves", (int)s->moves);
}

static int to_move(const thue_gopt *o, const void *st)
{
    (void)o;
    const rims_state *s = st;
    return s->n == 0 ? -1 : s->to_move;
}

static const char *step(const thue_gopt *o, const void *st)
{
    return to_move(o, st) < 0 ? "over" : "move";
}

static int legal_moves(const thue_gopt *o, const void *st, thue_gmove *out)
{
    (void)o;
    const rims_state *s = st;
    int n = 0;
    for (int i = 0; i < s->n; i++)
        for (int t = 1; t <= s->heaps[i]; t++) {
            int rest = s->heaps[i] - t;
            /* split and rest - split give the same position: list split <= rest / 2. */
            for (int x = 0; x <= rest / 2; x++)
                if (x == 0 || s->n < THUE_RIMS_REGIONS_MAX)
                    out[n++] = (thue_gmove){{i, t, x, 0}};
        }
    return n;
}

static int move_parse(const thue_gopt *o, const json_t *j, thue_gmove *m, thue_gerr *e)
{
    (void)o;
    static const char *const keys[] = {"heap", "take", "split", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_EMOVE, "",
                             "a Rims move is {\"heap\":I,\"take\":N,\"split\":X}");
    if (thue_gjson_only(j, keys, THUE_EMOVE, e) != 0)
        return THUE_EMOVE; /* e names the unknown member */
    const json_t *h = json_object_get(j, "heap"), *t = json_object_get(j, "take");
    const json_t *x = json_object_get(j, "split");
    if (!json_is_integer(h) || !json_is_integer(t) || (x != NULL && !json_is_integer(x)))
        return thue_gerr_set(e, THUE_EMOVE,
                             !json_is_integer(h)   ? "heap"
                             : !json_is_integer(t) ? "take"
                                                   : "split",
                             "a Rims move is {\"heap\":I,\"take\":N,\"split\":X} with integers "
                             "(split optional)");
    long long hv = json_integer_value(h), tv = json_integer_value(t);
    long long xv = x != NULL ? json_integer_value(x) : 0;
    if (hv < 0 || hv >= THUE_RIMS_REGIONS_MAX)
        return thue_gerr_set(e, THUE_EMOVE, "heap", "heap is 0..%d", THUE_RIMS_REGIONS_MAX - 1);
    if (tv < 1 || tv > THUE_RIMS_HEAP_MAX)
        return thue_gerr_set(e, THUE_EMOVE, "take", "take is 1..%d", THUE_RIMS_HEAP_MAX);
    if (xv < 0 || xv > THUE_RIMS_HEAP_MAX)
        return thue_gerr_set(e, THUE_EMOVE, "split", "split is 0..%d", THUE_RIMS_HEAP_MAX);
    *m = (thue_gmove){{(int32_t)hv, (int32_t)tv, (int32_t)xv, 0}};
    return 0;
}

static json_t *move_json(const thue_gopt *o, const thue_gmove *m)
{
    (void)o;
    return json_pack("{s:i,s:i,s:i}", "heap", m->v[0], "take", m->v[1], "split", m->v[2]);
}

static int apply(const thue_gopt *o, void *st, int player, const thue_gmove *m, thue_gerr *e)
{
    (void)o;
    rims_state *s = st;
    if (s->n == 0)
        return thue_gerr_set(e, THUE_EOVER, "", "the game is over");
    if (player != 0 && player != 1)
        return thue_gerr_set(e, THUE_EPLAYER, "", "a player is 0 or 1");
    if (player != s->to_move)
        return thue_gerr_set(e, THUE_ETURN, "", "it is not your turn");
    int i = m->v[0], t = m->v[1], x = m->v[2];
    if (i < 0 || i >= s->n)
        return thue_gerr_set(e, THUE_EILLEGAL, "heap", "there is no heap %d (heaps 0..%d)", i,
                             s->n - 1);
    int h = s->heaps[i];
    if (t < 1 || t > h)
        return thue_gerr_set(e, THUE_EILLEGAL, "take",
                             "heap %d holds %d dots: take 1 to %d of them", i, h, h);
    int rest = h - t;
    if (x < 0 || x > rest)
        return thue_gerr_set(e, THUE_EILLEGAL, "split",
                             "%d dots are left in heap %d: split them 0..%d", rest, i, rest);
    if (x > 0 && rest - x > 0 && s->n >= THUE_RIMS_REGIONS_MAX)
        return thue_gerr_set(e, THUE_EILLEGAL, "split",
                             "the sheet already has %d regions, the most allowed: draw the "
                             "curve without splitting (split 0 or %d)",
                             THUE_RIMS_REGIONS_MAX, rest);
    s->heaps[i] = (int16_t)x;
    if (x > 0 && rest - x > 0)
        s->heaps[s->n++] = (int16_t)(rest - x);
    else
        s->heaps[i] = (int16_t)rest; /* one side is empty: the rest stays one region */
    canonical(s);
    s->moves++;
    s->to_move = (int8_t)(player ^ 1);
    return 0;
}

static void result(const thue_gopt *o, const void *st, thue_gresult *r)
{
    (void)o;
    const rims_state *s = st;
    memset(r, 0, sizeof *r);
    r->winner = -1;
    r->why = "";
    if (s->n > 0)
        return;
    r->over = true; /* the player facing the empty sheet lost */
    r->winner = s->to_move ^ 1;
    r->score[r->winner] = 1;
    r->why = "no_moves";
}

static uint64_t hash(const thue_gopt *o, const void *st)
{
    (void)o;
    const rims_state *s = st;
    uint64_t h = thue_gmix64((uint64_t)s->to_move);
    for (int i = 0; i < s->n; i++)
        h = thue_gmix64(h ^ ((uint64_t)(uint16_t)s->heaps[i] << 8 | (uint64_t)i));
    return h;
}

static int perfect(const thue_gopt *o, const void *st, const thue_gctl *ctl, thue_gmove *best,
                   int *value)
{
    (void)ctl; /* an analysis of the position: no search to stop */
    (void)o;
    const rims_state *s = st;
    if (s->n == 0) {
        *value = -1; /* the player facing an empty sheet lost */
        return 0;
    }
    int heaps[THUE_RIMS_REGIONS_MAX], h = 0, t = 0;
    for (int i = 0; i < s->n; i++)
        heaps[i] = s->heaps[i];
    *value = thue_nim_perfect_heaps(heaps, s->n, false, &h, &t);
    *best = (thue_gmove){{h, t, 0, 0}};
    return 0;
}

const thue_gamedef thue_game_rims = {
    .name = "rims",
    .title = "Rims",
    .summary = "Regions of dots; draw a closed curve through at least one dot crossing no "
               "other curve: take dots from one heap and maybe split the rest in two. Who "
               "cannot move loses.",
    .move_doc = "{\"heap\":I,\"take\":N,\"split\":X}",
    .position_doc = "{\"heaps\":[5,4,3],\"to_move\":0}",
    .options = rims_options,
    .noptions = (int)(sizeof rims_options / sizeof rims_options[0]),
    .flags = THUE_GAME_ACYCLIC,
    .parse_options = parse_options,
    .options_json = options_json,
    .pool_key = pool_key,
    .state_size = state_size,
    .start = start,
    .position_parse = position_parse,
    .state_json = state_json,
    .to_move = to_move,
    .step = step,
    .max_moves = max_moves,
    .legal_moves = legal_moves,
    .move_parse = move_parse,
    .move_json = move_json,
    .apply = apply,
    .result = result,
    .hash = hash,
    .perfect = perfect,
};
