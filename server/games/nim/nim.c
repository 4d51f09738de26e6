/*
 * nim.c: Nim. Heaps of tokens; a move takes any positive number of tokens from one heap.
 * Normal play (who cannot move loses) or misere (who takes the last token loses).
 *
 * Options: {"heaps":[3,4,5],"misere":false}: 1..16 heaps of 0..1000 tokens, at least
 * one token in all. Move: {"heap":I,"take":N} (v[0] = I, v[1] = N).
 * Perfect play (Bouton): under normal play the player to move wins exactly when the
 * nim-sum (XOR) of the heaps is not 0, and wins by making it 0. Misere play is the same
 * while some heap holds 2 or more; once every heap holds at most one token the player
 * to move wins exactly when an even number of heaps is left, and the winning move from
 * a position with one big heap leaves an odd number of one-token heaps.
 */
#include <stdio.h>
#include <string.h>

#include "games/game.h"
#include "games/registry.h"
#include "games/nim/nim.h"

typedef struct nim_opt {
    int n;
    int heaps[THUE_NIM_HEAPS_MAX];
    bool misere;
} nim_opt;

_Static_assert(sizeof(nim_opt) <= sizeof(thue_gopt), "nim options fit");

#define OPT(o) ((const nim_opt *)(const void *)(o))

static const thue_goption_doc nim_options[] = {
    {"heaps", "array of integers", "[3,4,5]",
     "the starting heaps: 1..16 heaps of 0..1000 tokens, at least one token in all"},
    {"misere", "boolean", "false", "misere play: who takes the last token loses"},
};

static int parse_heaps(const json_t *a, int *heaps, int *n, bool allow_empty, int code,
                       const char *field, thue_gerr *e)
{
    if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > THUE_NIM_HEAPS_MAX)
        return thue_gerr_set(e, code, field, "%s is an array of 1 to %d heap sizes", field,
                             THUE_NIM_HEAPS_MAX);
    long total = 0;
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > THUE_NIM_HEAP_MAX)
            return thue_gerr_set(e, code, field, "%s/%zu: a heap holds 0 to %d tokens", field, i,
                                 THUE_NIM_HEAP_MAX);
        heaps[i] = (int)json_integer_value(v);
        total += heaps[i];
    }
    *n = (int)json_array_size(a);
    if (total == 0 && !allow_empty)
        return thue_gerr_set(e, code, field, "%s: the heaps hold no token at all", field);
    return 0;
}

static int nim_parse_options(const json_t *j, thue_gopt *o, thue_gerr *e)
{
    nim_opt *opt = (nim_opt *)(void *)o;
    memset(o, 0, sizeof *o);
    static const char *const keys[] = {"heaps", "misere", NULL};
    if (j != NULL && thue_gjson_only(j, keys, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    const json_t *h = j != NULL ? json_object_get(j, "heaps") : NULL;
    if (h == NULL) {
        opt->n = 3;
        opt->heaps[0] = 3, opt->heaps[1] = 4, opt->heaps[2] = 5;
    } else if (parse_heaps(h, opt->heaps, &opt->n, false, THUE_EOPTIONS, "heaps", e) != 0) {
        return THUE_EOPTIONS;
    }
    const json_t *m = j != NULL ? json_object_get(j, "misere") : NULL;
    if (m != NULL && !json_is_boolean(m))
        return thue_gerr_set(e, THUE_EOPTIONS, "misere", "misere is true or false");
    opt->misere = m != NULL && json_is_true(m);
    return 0;
}

static json_t *nim_options_json(const thue_gopt *o)
{
    return json_pack("{s:o,s:b}", "heaps", thue_gjson_ints(OPT(o)->heaps, OPT(o)->n), "misere",
                     OPT(o)->misere);
}

static void nim_pool_key(const thue_gopt *o, char *out, size_t size)
{
    snprintf(out, size, "%s", OPT(o)->misere ? "misere" : "normal");
}

static size_t nim_state_size(const thue_gopt *o)
{
    (void)o;
    return sizeof(thue_nim_state);
}

static void nim_start(const thue_gopt *o, uint64_t seed, void *st)
{
    (void)seed;
    thue_nim_state *s = st;
    memset(s, 0, sizeof *s);
    s->n = OPT(o)->n;
    memcpy(s->heaps, OPT(o)->heaps, sizeof s->heaps);
}

static int nim_max_moves(const thue_gopt *o);

static int nim_position_parse(const thue_gopt *o, const json_t *j, void *st, thue_gerr *e)
{
    thue_nim_state s;
    memset(&s, 0, sizeof s);
    static const char *const keys[] = {"heaps", "to_move", "moves", "nim_sum", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_ESTATE, "", "a Nim position is {\"heaps\":[3,4,5]}");
    if (thue_gjson_only(j, keys, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    const json_t *h = json_object_get(j, "heaps");
    if (h == NULL)
        return thue_gerr_set(e, THUE_ESTATE, "heaps", "a Nim position needs \"heaps\"");
    /* An empty position is a real one (the game is over), so all zeros are allowed. */
    if (parse_heaps(h, s.heaps, &s.n, true, THUE_ESTATE, "heaps", e) != 0)
        return THUE_ESTATE;
    /* legal_moves writes one move per token into a buffer of max_moves. */
    int total = 0;
    for (int i = 0; i < s.n; i++)
        total += s.heaps[i];
    if (total > nim_max_moves(o))
        return thue_gerr_set(e, THUE_ESTATE, "heaps",
                             "the heaps hold %d tokens, more than these options allow (%d): "
                             "give options with bigger heaps",
                             total, nim_max_moves(o));
    long long v;
    if (thue_gjson_int(j, "to_move", 0, 1, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.to_move = (int)v;
    if (thue_gjson_int(j, "moves", 0, 1 << 30, 0, &v, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    s.moves = (int)v;
    memcpy(st, &s, sizeof s);
    return 0;
}

static int nim_sum(const thue_nim_state *s)
{
    int x = 0;
    for (int i = 0; i < s->n; i++)
        x ^= s->heaps[i];
    return x;
}

static bool all_empty(const thue_nim_state *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->heaps[i] != 0)
            return false;
    return true;
}

static json_t *nim_state_json(const thue_gopt *o, const void *st)
{
    (void)o;
    const thue_nim_state *s = st;
    /* to_move is kept once over too: who faces the empty heaps decides the winner. */
    return json_pack("{s:o,s:i,s:i,s:i}", "heaps", thue_gjson_ints(s->heaps, s->n), "to_move",
                     s->to_move, "moves", s->moves, "nim_sum", nim_sum(s));
}

static int nim_to_move(const thue_gopt *o, const void *st)
{
    (void)o;
    const thue_nim_state *s = st;
    return all_empty(s) ? -1 : s->to_move;
}

static const char *nim_step(const thue_gopt *o, const void *st)
{
    return nim_to_move(o, st) < 0 ? "over" : "move";
}

static int nim_max_moves(const thue_gopt *o)
{
    int total = 0;
    for (int i = 0; i < OPT(o)->n; i++)
        total += OPT(o)->heaps[i];
    return total > THUE_NIM_MOVES_FLOOR ? total : THUE_NIM_MOVES_FLOOR;
}

static int nim_legal_moves(const thue_gopt *o, const void *st, thue_gmove *out)
{
    (void)o;
    const thue_nim_state *s = st;
    int n = 0;
    for (int i = 0; i < s->n; i++)
        for (int t = 1; t <= s->heaps[i]; t++)
            out[n++] = (thue_gmove){{i, t, 0, 0}};
    return n;
}

static int nim_move_parse(const thue_gopt *o, const json_t *j, thue_gmove *m, thue_gerr *e)
{
    (void)o;
    static const char *const keys[] = {"heap", "take", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_EMOVE, "", "a Nim move is {\"heap\":I,\"take\":N}");
    if (thue_gjson_only(j, keys, THUE_EMOVE, e) != 0)
        return THUE_EMOVE; /* e names the unknown member */
    const json_t *h = json_object_get(j, "heap"), *t = json_object_get(j, "take");
    if (!json_is_integer(h) || !json_is_integer(t))
        return thue_gerr_set(e, THUE_EMOVE, h == NULL || !json_is_integer(h) ? "heap" : "take",
                             "a Nim move is {\"heap\":I,\"take\":N} with integers I and N");
    if (json_integer_value(h) < 0 || json_integer_value(h) >= THUE_NIM_HEAPS_MAX ||
        json_integer_value(t) < 1 || json_integer_value(t) > THUE_NIM_HEAP_MAX)
        return thue_gerr_set(
            e, THUE_EMOVE,
            json_integer_value(h) < 0 || json_integer_value(h) >= THUE_NIM_HEAPS_MAX ? "heap"
                                                                                     : "take",
            "heap is 0..%d and take 1..%d", THUE_NIM_HEAPS_MAX - 1, THUE_NIM_HEAP_MAX);
    *m = (thue_gmove){{(int32_t)json_integer_value(h), (int32_t)json_integer_value(t), 0, 0}};
    return 0;
}

static json_t *nim_move_json(const thue_gopt *o, const thue_gmove *m)
{
    (void)o;
    return json_pack("{s:i,s:i}", "heap", m->v[0], "take", m->v[1]);
}

static int nim_apply(const thue_gopt *o, void *st, int player, const thue_gmove *m, thue_gerr *e)
{
    thue_nim_state *s = st;
    if (nim_to_move(o, st) < 0)
        return thue_gerr_set(e, THUE_EOVER, "", "the game is over");
    if (player != 0 && player != 1)
        return thue_gerr_set(e, THUE_EPLAYER, "", "a player is 0 or 1");
    if (player != s->to_move)
        return thue_gerr_set(e, THUE_ETURN, "", "it is not your turn");
    int h = m->v[0], t = m->v[1];
    if (h < 0 || h >= s->n)
        return thue_gerr_set(e, THUE_EILLEGAL, "heap", "there is no heap %d (heaps 0..%d)", h,
                             s->n - 1);
    if (t < 1 || t > s->heaps[h])
        return thue_gerr_set(e, THUE_EILLEGAL, "take",
                             "heap %d holds %d tokens: take 1 to %d of them", h, s->heaps[h],
                             s->heaps[h]);
    s->heaps[h] -= t;
    s->to_move ^= 1;
    s->moves++;
    return 0;
}

static void nim_result(const thue_gopt *o, const void *st, thue_gresult *r)
{
    const thue_nim_state *s = st;
    memset(r, 0, sizeof *r);
    r->winner = -1;
    r->why = "";
    if (!all_empty(s))
        return;
    r->over = true;
    /* The player to move faces empty heaps: under normal play they lose; under misere
     * their opponent took the last token and loses. */
    r->winner = OPT(o)->misere ? s->to_move : s->to_move ^ 1;
    r->score[r->winner] = 1;
    r->why = OPT(o)->misere ? "took_last" : "no_moves";
}

static uint64_t nim_hash(const thue_gopt *o, const void *st)
{
    (void)o;
    const thue_nim_state *s = st;
    uint64_t h = thue_gmix64((uint64_t)s->to_move);
    for (int i = 0; i < s->n; i++)
        h = thue_gmix64(h ^ ((uint64_t)(uint32_t)s->heaps[i] << 8 | (uint64_t)i));
    return h;
}

int thue_nim_perfect_heaps(const int *heaps, int n, bool misere, int *heap, int *take)
{
    int x = 0, big = 0, ones = 0, bigi = -1, any = -1;
    for (int i = 0; i < n; i++) {
        x ^= heaps[i];
        if (heaps[i] >= 2)
            big++, bigi = i;
        if (heaps[i] == 1)
            ones++;
        if (heaps[i] > 0 && (any < 0 || heaps[i] > heaps[any]))
            any = i;
    }
    if (any < 0)
        return 0; /* over: nothing to play */
    if (misere && big == 0) {
        /* Only single tokens: every move takes one; the mover wins with an even count. */
        *heap = any, *take = 1;
        return ones % 2 == 0 ? 1 : -1;
    }
    if (misere && big == 1) {
        /* Leave an odd number of one-token heaps: empty the big heap or leave it one. */
        *heap = bigi;
        *take = ones % 2 == 0 ? heaps[bigi] - 1 : heaps[bigi];
        return 1;
    }
    if (x == 0) {
        /* Lost against perfect play: take one token from the biggest heap, the move
         * that changes the least. */
        *heap = any, *take = 1;
        return -1;
    }
    for (int i = 0; i < n; i++)
        if ((heaps[i] ^ x) < heaps[i]) {
            *heap = i, *take = heaps[i] - (heaps[i] ^ x);
            return 1;
        }
    return -1; /* not reached: some heap has x's top bit */
}

static int nim_perfect(const thue_gopt *o, const void *st, const thue_gctl *ctl, thue_gmove *best,
                       int *value)
{
    (void)ctl; /* an analysis of the position: no search to stop */
    const thue_nim_state *s = st;
    int h = 0, t = 0;
    int v = thue_nim_perfect_heaps(s->heaps, s->n, OPT(o)->misere, &h, &t);
    if (v == 0) {
        thue_gresult r;
        nim_result(o, st, &r);
        *value = r.winner == s->to_move ? 1 : -1;
        return 0;
    }
    *best = (thue_gmove){{h, t, 0, 0}};
    *value = v;
    return 0;
}

const thue_gamedef thue_game_nim = {
    .name = "nim",
    .title = "Nim",
    .summary = "Heaps of tokens; take any positive number of tokens from one heap. Normal "
               "play: who cannot move loses; misere: who takes the last token loses.",
    .move_doc = "{\"heap\":I,\"take\":N}",
    .position_doc = "{\"heaps\":[3,4,5],\"to_move\":0}",
    .options = nim_options,
    .noptions = (int)(sizeof nim_options / sizeof nim_options[0]),
    .flags = THUE_GAME_ACYCLIC,
    .parse_options = nim_parse_options,
    .options_json = nim_options_json,
    .pool_key = nim_pool_key,
    .state_size = nim_state_size,
    .start = nim_start,
    .position_parse = nim_position_parse,
    .state_json = nim_state_json,
    .to_move = nim_to_move,
    .step = nim_step,
    .max_moves = nim_max_moves,
    .legal_moves = nim_legal_moves,
    .move_parse = nim_move_parse,
    .move_json = nim_move_json,
    .apply = nim_apply,
    .result = nim_result,
    .hash = nim_hash,
    .perfect = nim_perfect,
};
