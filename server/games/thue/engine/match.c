/*
 * match.c: the match state machine (see match.h and RULES.md).
 *
 * Every mutating call validates everything first and only then changes the match, so a
 * rejected call leaves it exactly as it was. The word buffer is reserved for the
 * longest possible round (limit + 2 symbols) at init, so play never allocates.
 */
#include "games/thue/engine/match.h"

#include <string.h>

#include "base/errors.h"

thue_match_options thue_match_defaults(void)
{
    thue_match_options o = {THUE_SQUARE, 3, THUE_LIMIT_DEFAULT, 0};
    return o;
}

static int check_options(const thue_match_options *o)
{
    if (o->variant != THUE_SQUARE && o->variant != THUE_OVERLAP)
        return THUE_EVARIANT;
    if (o->k < THUE_K_MIN || o->k > THUE_K_MAX)
        return THUE_EK;
    if (o->limit < THUE_LIMIT_MIN || o->limit > THUE_LIMIT_MAX)
        return THUE_ELIMIT;
    if (o->first_builder != 0 && o->first_builder != 1)
        return THUE_EPLAYER;
    return 0;
}

static void start_round(thue_match *m, int round)
{
    m->round = round;
    m->step = THUE_STEP_PLACE;
    m->placed = -1;
    m->word.sym[0] = 0;
    m->word.len = 1;
    m->rounds[round].end = THUE_ROUND_PLAYING;
}

int thue_match_init(thue_match *m, const thue_match_options *opt)
{
    int err = check_options(opt);
    if (err)
        return err;
    thue_word_init(&m->word);
    if ((err = thue_word_reserve(&m->word, opt->limit + 2)) != 0)
        return err;
    m->opt = *opt;
    memset(m->rounds, 0, sizeof m->rounds);
    for (int r = 0; r < 2; r++) {
        m->rounds[r].builder = r == 0 ? opt->first_builder : 1 - opt->first_builder;
        m->rounds[r].end = THUE_ROUND_PLAYING;
    }
    m->reason = THUE_END_NONE;
    m->winner = -1;
    m->forfeiter = -1;
    m->moves = 0;
    start_round(m, 0);
    return 0;
}

void thue_match_free(thue_match *m)
{
    if (m == NULL)
        return;
    thue_word_free(&m->word);
}

int thue_match_builder(const thue_match *m)
{
    return m->rounds[m->round].builder;
}

int thue_match_painter(const thue_match *m)
{
    return 1 - m->rounds[m->round].builder;
}

int thue_match_to_move(const thue_match *m)
{
    switch (m->step) {
    case THUE_STEP_PLACE:
        return thue_match_builder(m);
    case THUE_STEP_PAINT:
        return thue_match_painter(m);
    default:
        return -1;
    }
}

int thue_match_points(const thue_match *m, int player)
{
    int pts = 0;
    for (int r = 0; r < 2; r++)
        if (m->rounds[r].builder != player)
            pts += m->rounds[r].points;
    return pts;
}

/* Common checks for place and paint: the match runs, the player exists, it is their
 * step. `step` is the step the call is for. */
static int check_turn(const thue_match *m, int player, thue_step step)
{
    if (m->step == THUE_STEP_OVER)
        return THUE_EOVER;
    if (player != 0 && player != 1)
        return THUE_EPLAYER;
    if (thue_match_to_move(m) != player)
        return THUE_ETURN;
    if (m->step != step)
        return THUE_ESTEP;
    return 0;
}

int thue_match_place(thue_match *m, int player, int i)
{
    int err = check_turn(m, player, THUE_STEP_PLACE);
    if (err)
        return err;
    if (i < 0 || i > m->word.len)
        return THUE_EPOSITION;
    m->placed = i;
    m->step = THUE_STEP_PAINT;
    return 0;
}

static void finish(thue_match *m, thue_end_reason why, int winner)
{
    m->step = THUE_STEP_OVER;
    m->placed = -1;
    m->reason = why;
    m->winner = winner;
}

static void end_round(thue_match *m, thue_round_end how)
{
    m->rounds[m->round].end = how;
    if (m->round == 0) {
        start_round(m, 1);
        return;
    }
    int a = thue_match_points(m, 0), b = thue_match_points(m, 1);
    finish(m, THUE_END_SCORE, a > b ? 0 : b > a ? 1 : -1);
}

int thue_match_paint(thue_match *m, int player, int c)
{
    int err = check_turn(m, player, THUE_STEP_PAINT);
    if (err)
        return err;
    if (c < 0 || c >= m->opt.k)
        return THUE_ESYMBOL;
    thue_round *r = &m->rounds[m->round];
    thue_repetition rep;
    int hit = thue_check_insert(m->word.sym, m->word.len, m->opt.variant, m->placed, c, &rep);
    if (hit < 0)
        return hit; /* cannot happen: arguments were validated above */
    /* Capacity was reserved at init (limit + 2), so this insert cannot fail. */
    thue_word_insert(&m->word, m->placed, c);
    m->moves++;
    m->placed = -1;
    m->step = THUE_STEP_PLACE;
    if (hit) {
        r->rep = rep;
        end_round(m, THUE_ROUND_REPETITION);
    } else if (++r->points >= m->opt.limit) {
        end_round(m, THUE_ROUND_LIMIT);
    }
    return 0;
}

int thue_match_forfeit(thue_match *m, int player, thue_end_reason why)
{
    if (m->step == THUE_STEP_OVER)
        return THUE_EOVER;
    if (player != 0 && player != 1)
        return THUE_EPLAYER;
    if (why != THUE_END_RESIGN && why != THUE_END_TIMEOUT && why != THUE_END_ABANDON)
        return THUE_EINVAL;
    m->rounds[m->round].end = THUE_ROUND_FORFEIT;
    if (m->round == 0)
        m->rounds[1].end = THUE_ROUND_NOT_PLAYED;
    m->forfeiter = player;
    finish(m, why, 1 - player);
    return 0;
}

const char *thue_step_name(thue_step s)
{
    switch (s) {
    case THUE_STEP_PLACE:
        return "place";
    case THUE_STEP_PAINT:
        return "paint";
    case THUE_STEP_OVER:
        return "over";
    }
    return "unknown";
}

const char *thue_round_end_name(thue_round_end e)
{
    switch (e) {
    case THUE_ROUND_PLAYING:
        return "playing";
    case THUE_ROUND_REPETITION:
        return "repetition";
    case THUE_ROUND_LIMIT:
        return "limit";
    case THUE_ROUND_FORFEIT:
        return "forfeit";
    case THUE_ROUND_NOT_PLAYED:
        return "not_played";
    }
    return "unknown";
}

const char *thue_end_reason_name(thue_end_reason r)
{
    switch (r) {
    case THUE_END_NONE:
        return "none";
    case THUE_END_SCORE:
        return "score";
    case THUE_END_RESIGN:
        return "resign";
    case THUE_END_TIMEOUT:
        return "timeout";
    case THUE_END_ABANDON:
        return "abandon";
    }
    return "unknown";
}
