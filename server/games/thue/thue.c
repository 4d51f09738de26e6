/*
 * thue.c: the online Thue game behind the game table (game.h), over the engine's
 * repetition checks (games/thue/engine/repetition.h), with the rules of RULES.md and
 * games/thue/engine/match.h: two rounds; player 0 builds in round 0 and paints in round 1; each
 * round's word starts as [0]; the builder places (a position 0..n), then the painter
 * paints (a symbol 0..k-1); a paint that makes a repetition ends the round, otherwise the
 * painter scores a point, and the length limit ends the round too. More painter points
 * over both rounds wins; equal points draw.
 *
 * The state is flat (the table's rule): a header and two word buffers of limit + 2
 * symbols, the current round's word and round 0's final word, so that a state copies
 * with memcpy and its JSON shows both rounds' words. The match machine in
 * games/thue/engine/match.c is the reference the tests hold this against, move for move.
 *
 * Options: {"variant":"square","k":3,"limit":100}. Moves: {"place":I} (v[0] = 0,
 * v[1] = I) and {"paint":C} (v[0] = 1, v[1] = C). Every symbol is a legal paint (one
 * that makes a repetition ends the round), so legal_moves lists n + 1 places or k paints.
 */
#include <stdio.h>
#include <string.h>

#include "games/thue/engine/match.h"
#include "games/thue/engine/repetition.h"
#include "games/game.h"
#include "games/registry.h"
#include "games/thue/thue.h"

typedef struct thue_opt {
    thue_variant variant;
    int k, limit;
} thue_opt;

_Static_assert(sizeof(thue_opt) <= sizeof(thue_gopt), "Thue's options fit");

typedef struct tround {
    int points;
    int end; /* thue_round_end */
    thue_repetition rep;
} tround;

typedef struct tstate {
    int round;  /* 0 or 1: the round being played (the last one once over) */
    int step;   /* thue_step */
    int placed; /* the builder's position during the paint step */
    int len;    /* the current round's word length */
    int len0;   /* round 0's final word length, 0 while round 0 runs */
    tround rounds[2];
    int moves; /* places and paints over the match */
    /* then: uint8_t word[limit + 2], uint8_t word0[limit + 2] */
} tstate;

#define OPT(o) ((const thue_opt *)(const void *)(o))
#define WORD(s) ((uint8_t *)(s) + sizeof(tstate))
#define CWORD(s) ((const uint8_t *)(s) + sizeof(tstate))
#define WORD0(o, s) ((uint8_t *)(s) + sizeof(tstate) + (size_t)OPT(o)->limit + 2)
#define CWORD0(o, s) ((const uint8_t *)(s) + sizeof(tstate) + (size_t)OPT(o)->limit + 2)

static const thue_goption_doc thue_options[] = {
    {"variant", "string", "\"square\"",
     "\"square\" or \"overlap\": the repetition that ends a round"},
    {"k", "integer", "3", "the number of symbols, 2..64"},
    {"limit", "integer", "100",
     "the length limit: a round ends when the painter reaches it, 1..10000"},
};

static int parse_options(const json_t *j, thue_gopt *o, thue_gerr *e)
{
    thue_opt *opt = (thue_opt *)(void *)o;
    memset(o, 0, sizeof *o);
    static const char *const keys[] = {"variant", "k", "limit", NULL};
    if (j != NULL && thue_gjson_only(j, keys, THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    const json_t *v = j != NULL ? json_object_get(j, "variant") : NULL;
    opt->variant = THUE_SQUARE;
    if (v != NULL &&
        (!json_is_string(v) || thue_variant_parse(json_string_value(v), &opt->variant) != 0))
        return thue_gerr_set(e, THUE_EOPTIONS, "variant", "variant is \"square\" or \"overlap\"");
    long long k, limit;
    if (thue_gjson_int(j, "k", THUE_K_MIN, THUE_K_MAX, 3, &k, THUE_EOPTIONS, e) != 0 ||
        thue_gjson_int(j, "limit", THUE_LIMIT_MIN, THUE_LIMIT_MAX, THUE_LIMIT_DEFAULT, &limit,
                       THUE_EOPTIONS, e) != 0)
        return THUE_EOPTIONS;
    opt->k = (int)k;
    opt->limit = (int)limit;
    return 0;
}

static json_t *options_json(const thue_gopt *o)
{
    return json_pack("{s:s,s:i,s:i}", "variant", thue_variant_name(OPT(o)->variant), "k", OPT(o)->k,
                     "limit", OPT(o)->limit);
}

static void pool_key(const thue_gopt *o, char *out, size_t size)
{
    snprintf(out, size, "%s-k%d", thue_variant_name(OPT(o)->variant), OPT(o)->k);
}

static size_t state_size(const thue_gopt *o)
{
    return sizeof(tstate) + 2 * ((size_t)OPT(o)->limit + 2);
}

/* Round `round` begins: the word is [0] (the rest of its buffer zeros, so that equal
 * positions are equal bytes). */
static void start_round(const thue_gopt *o, tstate *s, int round)
{
    s->round = round;
    s->step = THUE_STEP_PLACE;
    s->placed = -1;
    s->len = 1;
    memset(WORD(s), 0, (size_t)OPT(o)->limit + 2);
}

static void start(const thue_gopt *o, uint64_t seed, void *st)
{
    (void)seed;
    memset(st, 0, state_size(o));
    tstate *s = st;
    for (int r = 0; r < 2; r++)
        s->rounds[r].end = THUE_ROUND_PLAYING;
    start_round(o, s, 0);
}

/* Round r's builder: player 0 builds round 0, player 1 round 1. */
static int to_move(const thue_gopt *o, const void *st)
{
    (void)o;
    const tstate *s = st;
    if (s->step == THUE_STEP_OVER)
        return -1;
    return s->step == THUE_STEP_PLACE ? s->round : 1 - s->round;
}

static const char *step(const thue_gopt *o, const void *st)
{
    (void)o;
    return thue_step_name((thue_step)((const tstate *)st)->step);
}

static int max_moves(const thue_gopt *o)
{
    return OPT(o)->limit + 2 > THUE_K_MAX ? OPT(o)->limit + 2 : THUE_K_MAX;
}

static int legal_moves(const thue_gopt *o, const void *st, thue_gmove *out)
{
    const tstate *s = st;
    int n = 0;
    if (s->step == THUE_STEP_PLACE)
        for (int i = 0; i <= s->len; i++)
            out[n++] = (thue_gmove){{0, i, 0, 0}};
    else if (s->step == THUE_STEP_PAINT)
        for (int c = 0; c < OPT(o)->k; c++)
            out[n++] = (thue_gmove){{1, c, 0, 0}};
    return n;
}

static int move_parse(const thue_gopt *o, const json_t *j, thue_gmove *m, thue_gerr *e)
{
    (void)o;
    if (!json_is_object(j) || json_object_size(j) != 1)
        return thue_gerr_set(e, THUE_EMOVE, "", "a Thue move is {\"place\":I} or {\"paint\":C}");
    const json_t *p = json_object_get(j, "place"), *c = json_object_get(j, "paint");
    const json_t *v = p != NULL ? p : c;
    const char *key = p != NULL ? "place" : "paint";
    if (v == NULL)
        return thue_gerr_set(e, THUE_EMOVE, "", "a Thue move is {\"place\":I} or {\"paint\":C}");
    long long max = p != NULL ? THUE_LIMIT_MAX + 1 : THUE_K_MAX - 1;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
        return thue_gerr_set(e, THUE_EMOVE, key, "%s is an integer from 0 to %lld", key, max);
    *m = (thue_gmove){{p != NULL ? 0 : 1, (int32_t)json_integer_value(v), 0, 0}};
    return 0;
}

static json_t *move_json(const thue_gopt *o, const thue_gmove *m)
{
    (void)o;
    return json_pack("{s:i}", m->v[0] == 0 ? "place" : "paint", m->v[1]);
}

static int apply(const thue_gopt *o, void *st, int player, const thue_gmove *m, thue_gerr *e)
{
    tstate *s = st;
    if (s->step == THUE_STEP_OVER)
        return thue_gerr_set(e, THUE_EOVER, "", "the match is over");
    if (player != 0 && player != 1)
        return thue_gerr_set(e, THUE_EPLAYER, "", "a player is 0 or 1");
    if (player != to_move(o, st))
        return thue_gerr_set(e, THUE_ETURN, "", "it is not your turn");
    int want = s->step == THUE_STEP_PLACE ? 0 : 1;
    if (m->v[0] != want)
        return thue_gerr_set(e, THUE_ESTEP, "",
                             "wrong step: the builder places, the painter paints");
    if (want == 0) {
        if (m->v[1] < 0 || m->v[1] > s->len)
            return thue_gerr_set(e, THUE_EPOSITION, "place",
                                 "position out of range: positions are 0..%d", s->len);
        s->placed = m->v[1];
        s->step = THUE_STEP_PAINT;
        s->moves++;
        return 0;
    }
    int c = m->v[1];
    if (c < 0 || c >= OPT(o)->k)
        return thue_gerr_set(e, THUE_ESYMBOL, "paint", "symbol out of range: symbols are 0..%d",
                             OPT(o)->k - 1);
    thue_repetition rep;
    int found = thue_check_insert(WORD(s), s->len, OPT(o)->variant, s->placed, c, &rep);
    if (found < 0)
        return thue_gerr_set(e, found, "", "%s", thue_strerror(found));
    uint8_t *w = WORD(s);
    memmove(w + s->placed + 1, w + s->placed, (size_t)(s->len - s->placed));
    w[s->placed] = (uint8_t)c;
    s->len++;
    s->moves++;
    tround *rd = &s->rounds[s->round];
    if (found) {
        rd->end = THUE_ROUND_REPETITION;
        rd->rep = rep;
    } else if (++rd->points >= OPT(o)->limit) {
        rd->end = THUE_ROUND_LIMIT;
    }
    if (rd->end == THUE_ROUND_PLAYING) {
        s->step = THUE_STEP_PLACE;
        s->placed = -1;
    } else if (s->round == 0) {
        memcpy(WORD0(o, s), w, (size_t)s->len);
        s->len0 = s->len;
        start_round(o, s, 1);
    } else {
        s->step = THUE_STEP_OVER;
        s->placed = -1;
    }
    return 0;
}

/* Player p's painter points: p paints in round 1 - p. */
static int points_of(const tstate *s, int p)
{
    return s->rounds[1 - p].points;
}

static void result(const thue_gopt *o, const void *st, thue_gresult *r)
{
    (void)o;
    const tstate *s = st;
    memset(r, 0, sizeof *r);
    r->winner = -1;
    r->why = "";
    for (int p = 0; p < 2; p++)
        r->score[p] = points_of(s, p);
    if (s->step != THUE_STEP_OVER)
        return;
    r->over = true;
    r->why = "score";
    if (r->score[0] != r->score[1])
        r->winner = r->score[0] > r->score[1] ? 0 : 1;
}

static json_t *word_json(const uint8_t *w, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(w[i]));
    return a;
}

static json_t *state_json(const thue_gopt *o, const void *st)
{
    const tstate *s = st;
    json_t *rounds = json_array();
    for (int r = 0; r < 2; r++) {
        const tround *rd = &s->rounds[r];
        json_t *rep = rd->end == THUE_ROUND_REPETITION
                          ? json_pack("{s:i,s:i,s:i}", "start", rd->rep.start, "period",
                                      rd->rep.period, "length", rd->rep.length)
                          : json_null();
        json_t *word = r == 0 && s->len0 > 0                 ? word_json(CWORD0(o, s), s->len0)
                       : r == 1 && s->step == THUE_STEP_OVER ? word_json(CWORD(s), s->len)
                                                             : json_null();
        json_array_append_new(rounds,
                              json_pack("{s:i,s:i,s:s,s:o,s:o}", "builder", r, "points", rd->points,
                                        "end", thue_round_end_name((thue_round_end)rd->end),
                                        "repetition", rep, "word", word));
    }
    return json_pack("{s:i,s:s,s:o,s:o,s:o,s:i}", "round", s->round, "step",
                     thue_step_name((thue_step)s->step), "word", word_json(CWORD(s), s->len),
                     "placed", s->step == THUE_STEP_PAINT ? json_integer(s->placed) : json_null(),
                     "rounds", rounds, "moves", s->moves);
}

/* Reads a word (an array of symbols < k, clean) into w; its length or a negative code. */
static int read_word(const thue_gopt *o, const json_t *a, uint8_t *w, const char *field,
                     thue_gerr *e)
{
    if (!json_is_array(a) || json_array_size(a) < 1 ||
        json_array_size(a) > (size_t)OPT(o)->limit + 1)
        return thue_gerr_set(e, THUE_ESTATE, field, "%s is an array of 1 to %d symbols", field,
                             OPT(o)->limit + 1);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= OPT(o)->k)
            return thue_gerr_set(e, THUE_ESTATE, field, "%s/%zu: a symbol is 0..%d", field, i,
                                 OPT(o)->k - 1);
        w[i] = (uint8_t)json_integer_value(v);
    }
    return (int)json_array_size(a);
}

/* Reads a round's word into w and says how the round stands: its points and end (a word
 * holding a repetition ended the round with it; a clean one of limit + 1 symbols ended it
 * at the limit). The word's length, or a negative code with e. */
static int read_round(const thue_gopt *o, const json_t *a, uint8_t *w, const char *field,
                      tround *rd, thue_gerr *e)
{
    int n = read_word(o, a, w, field, e);
    if (n < 0)
        return n;
    thue_repetition rep;
    int has = thue_check_word(NULL, w, n, OPT(o)->variant, &rep);
    if (has < 0)
        return thue_gerr_set(e, THUE_ESTATE, field, "%s", thue_strerror(has));
    memset(rd, 0, sizeof *rd);
    rd->points = has ? n - 2 : n - 1;
    rd->end = has                           ? THUE_ROUND_REPETITION
              : rd->points >= OPT(o)->limit ? THUE_ROUND_LIMIT
                                            : THUE_ROUND_PLAYING;
    if (has) {
        rd->rep = rep;
        /* Only the last insertion may have made it: the word before it was clean. */
        if (rd->points < 0)
            return thue_gerr_set(e, THUE_ESTATE, field, "a word of one symbol holds no repetition");
    }
    return n;
}

/* A position: {"round":R,"step":"place"|"paint"|"over","word":[...],"placed":I}, the
 * round's points following from its word (a clean word of n symbols has scored n - 1);
 * in round 1 also "rounds" (as state_json writes it) with round 0's final word. */
static int position_parse(const thue_gopt *o, const json_t *j, void *st, thue_gerr *e)
{
    static const char *const keys[] = {"round", "step", "word", "placed", "rounds", "moves", NULL};
    if (!json_is_object(j))
        return thue_gerr_set(e, THUE_ESTATE, "", "a Thue position is {\"word\":[0,1],...}");
    if (thue_gjson_only(j, keys, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    size_t size = state_size(o);
    static _Thread_local uint8_t tmp[sizeof(tstate) + 2 * (THUE_LIMIT_MAX + 2)];
    start(o, 0, tmp);
    tstate *s = (tstate *)(void *)tmp;
    long long round, moves;
    if (thue_gjson_int(j, "round", 0, 1, 0, &round, THUE_ESTATE, e) != 0 ||
        thue_gjson_int(j, "moves", 0, 1 << 30, 0, &moves, THUE_ESTATE, e) != 0)
        return THUE_ESTATE;
    const json_t *stp = json_object_get(j, "step");
    const char *sn = stp != NULL ? json_string_value(stp) : "place";
    int stepv = sn == NULL                 ? -1
                : strcmp(sn, "place") == 0 ? THUE_STEP_PLACE
                : strcmp(sn, "paint") == 0 ? THUE_STEP_PAINT
                : strcmp(sn, "over") == 0  ? THUE_STEP_OVER
                                           : -1;
    if (stepv < 0)
        return thue_gerr_set(e, THUE_ESTATE, "step", "step is \"place\", \"paint\" or \"over\"");
    const json_t *w = json_object_get(j, "word");
    if (w == NULL)
        return thue_gerr_set(e, THUE_ESTATE, "word", "a Thue position needs \"word\"");
    s->round = (int)round;
    s->moves = (int)moves;
    int n = read_round(o, w, WORD(s), "word", &s->rounds[round], e);
    if (n < 0)
        return THUE_ESTATE;
    s->len = n;
    bool ended = s->rounds[round].end != THUE_ROUND_PLAYING;
    if (ended != (stepv == THUE_STEP_OVER) || (ended && round == 0))
        return thue_gerr_set(e, THUE_ESTATE, "word",
                             ended ? "the word ends its round: only round 1's last word may"
                                   : "step \"over\" needs round 1's final word");
    s->step = stepv;
    const json_t *pl = json_object_get(j, "placed");
    if (stepv == THUE_STEP_PAINT) {
        if (!json_is_integer(pl) || json_integer_value(pl) < 0 || json_integer_value(pl) > n)
            return thue_gerr_set(e, THUE_ESTATE, "placed",
                                 "in the paint step, placed is a position 0..%d", n);
        s->placed = (int)json_integer_value(pl);
    } else if (pl != NULL && !json_is_null(pl)) {
        return thue_gerr_set(e, THUE_ESTATE, "placed", "placed is null but in the paint step");
    }
    const json_t *rounds = json_object_get(j, "rounds");
    if (rounds != NULL && !json_is_array(rounds))
        return thue_gerr_set(e, THUE_ESTATE, "rounds", "rounds is an array");
    if (round == 1) {
        const json_t *r0 = json_array_get(rounds, 0);
        const json_t *w0 = json_is_object(r0) ? json_object_get(r0, "word") : NULL;
        if (w0 == NULL)
            return thue_gerr_set(e, THUE_ESTATE, "rounds",
                                 "a round 1 position needs rounds[0] with round 0's word");
        int n0 = read_round(o, w0, WORD0(o, s), "rounds/0/word", &s->rounds[0], e);
        if (n0 < 0)
            return THUE_ESTATE;
        if (s->rounds[0].end == THUE_ROUND_PLAYING)
            return thue_gerr_set(e, THUE_ESTATE, "rounds/0/word",
                                 "round 0's word must end it: a repetition, or the limit");
        s->len0 = n0;
    }
    memcpy(st, tmp, size);
    return 0;
}

static uint64_t hash(const thue_gopt *o, const void *st)
{
    const tstate *s = st;
    uint64_t h = thue_gmix64(((uint64_t)s->round << 40) ^ ((uint64_t)(uint32_t)s->step << 32) ^
                             (uint64_t)(uint32_t)(s->placed + 1));
    for (int i = 0; i < s->len; i++)
        h = thue_gmix64(h ^ CWORD(s)[i]);
    for (int i = 0; i < s->len0; i++)
        h = thue_gmix64(h ^ (0x100u | CWORD0(o, s)[i]));
    return thue_gmix64(h ^ (uint64_t)(uint32_t)s->rounds[0].points);
}

const thue_gamedef thue_game_thue = {
    .name = "thue",
    .title = "Thue",
    .summary = "The online Thue game: the builder picks where the next symbol goes, the painter "
               "picks the symbol and scores a point for every insertion that keeps the word free "
               "of squares (or overlaps); two rounds with the roles swapped.",
    .move_doc = "{\"place\":I} or {\"paint\":C}",
    .position_doc = "{\"round\":0,\"step\":\"place\",\"word\":[0,1,2],\"placed\":null}",
    .options = thue_options,
    .noptions = (int)(sizeof thue_options / sizeof thue_options[0]),
    .flags = THUE_GAME_ACYCLIC | THUE_GAME_DRAWS,
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
    .perfect = NULL,
};

int thue_game_thue_options(thue_variant variant, int k, int limit, thue_gopt *o)
{
    if ((variant != THUE_SQUARE && variant != THUE_OVERLAP) || k < THUE_K_MIN || k > THUE_K_MAX ||
        limit < THUE_LIMIT_MIN || limit > THUE_LIMIT_MAX)
        return THUE_EOPTIONS;
    memset(o, 0, sizeof *o);
    thue_opt *opt = (thue_opt *)(void *)o;
    opt->variant = variant;
    opt->k = k;
    opt->limit = limit;
    return 0;
}

void thue_game_thue_view(const thue_gopt *o, const void *st, thue_thue_view *v)
{
    const tstate *s = st;
    memset(v, 0, sizeof *v);
    v->variant = OPT(o)->variant;
    v->k = OPT(o)->k;
    v->limit = OPT(o)->limit;
    v->round = s->round;
    v->step = s->step;
    v->placed = s->step == THUE_STEP_PAINT ? s->placed : -1;
    v->word = CWORD(s);
    v->len = s->len;
    v->word0 = s->len0 > 0 ? CWORD0(o, s) : NULL;
    v->len0 = s->len0;
    for (int r = 0; r < 2; r++) {
        v->rounds[r].points = s->rounds[r].points;
        v->rounds[r].end = s->rounds[r].end;
        v->rounds[r].rep = s->rounds[r].rep;
    }
    v->moves = s->moves;
}
