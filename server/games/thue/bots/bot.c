/*
 * bot.c: bot specs, positions and the life of a (possibly split) search; the bots
 * themselves are in greedy.c, nested.c, uct.c and perfect.c. uct's options, the limits,
 * the clock and the polls every search shares are in server/search/ (uctspec.c, limits.c).
 */
#include "games/thue/bots/bot.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "games/thue/engine/word.h"
#include "games/thue/bots/bot_internal.h"
#include "games/thue/bots/solve.h"
#include "search/uctspec.h"

const char *thue_role_name(thue_role r)
{
    switch (r) {
    case THUE_ROLE_BUILDER:
        return "builder";
    case THUE_ROLE_PAINTER:
        return "painter";
    }
    return NULL;
}

uint64_t thue_bot_move_seed(uint64_t game_seed, int round, int ply, thue_role role)
{
    uint64_t tag =
        ((uint64_t)(unsigned)round << 40) ^ ((uint64_t)(unsigned)ply << 1) ^ (uint64_t)role;
    return thue_mix64(game_seed ^ thue_mix64(tag + 0x9e3779b97f4a7c15ULL));
}

int thue_bot_tiebreak(uint64_t seed, int ties)
{
    if (ties <= 1)
        return 0;
    uint64_t state = seed;
    return thue__rand_below(&state, ties);
}

/* ---- specs ------------------------------------------------------------------------- */

thue_bot_spec thue_bot_spec_default(thue_bot_kind kind)
{
    thue_bot_spec s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.level = kind == THUE_BOT_NESTED ? 1 : 0;
    s.iterations = THUE_UCT_ITERATIONS_DEFAULT;
    s.playout_limit = THUE_UCT_PLAYOUT_DEFAULT;
    s.exploration = THUE_UCT_C_DEFAULT;
    return s;
}

/* KEY=VALUE,... for perfect (uct's are search/uctspec.c's). */
static int parse_options(const char *name, const char *opts, thue_bot_spec *s, char *err,
                         size_t errsize)
{
    for (const char *p = opts; p != NULL;) {
        thue__spec_kv kv = {NULL, NULL, 0, 0}; /* set by thue__spec_option (gcc -O3 cannot tell) */
        if (thue__spec_option(&p, name, &kv, err, errsize) != 0)
            return THUE_EINVAL;
        const char *val = kv.val;
        size_t vlen = kv.vlen;
        long long iv;
        if (s->kind == THUE_BOT_PERFECT && thue__spec_key_is(&kv, "depth")) {
            if (thue__spec_int(val, vlen, 0, 10000, &iv))
                return thue_spec_error(err, errsize, "perfect depth must be 0..10000, got '%.*s'",
                                       (int)vlen, val);
            s->max_depth = (int)iv;
        } else {
            return thue_spec_error(err, errsize, "%s has no option '%.*s' (depth)", name,
                                   (int)kv.klen, kv.key);
        }
    }
    return 0;
}

int thue_bot_spec_parse(const char *text, thue_bot_spec *out, char *err, size_t errsize)
{
    if (err != NULL && errsize > 0)
        err[0] = '\0';
    if (text == NULL || text[0] == '\0')
        return thue_spec_error(err, errsize,
                               "empty bot spec (try greedy, nested:1, uct or perfect)");
    const char *colon = strchr(text, ':');
    size_t nlen = colon ? (size_t)(colon - text) : strlen(text);
    const char *arg = colon ? colon + 1 : NULL;
    thue_bot_spec s;
    long long lv;
    if (thue__spec_int(text, nlen, 0, 1000000, &lv) == 0 && colon == NULL) {
        if (lv > THUE_NESTED_MAX)
            return thue_spec_error(err, errsize, "bot level %lld is out of range 0..%d", lv,
                                   THUE_NESTED_MAX);
        s = thue_bot_spec_default(lv == 0 ? THUE_BOT_GREEDY : THUE_BOT_NESTED);
        s.level = (int)lv;
    } else if (nlen == 6 && strncmp(text, "greedy", 6) == 0) {
        if (colon)
            return thue_spec_error(err, errsize, "greedy takes no options");
        s = thue_bot_spec_default(THUE_BOT_GREEDY);
    } else if (nlen == 6 && strncmp(text, "nested", 6) == 0) {
        if (arg == NULL || thue__spec_int(arg, strlen(arg), 0, THUE_NESTED_MAX, &lv) != 0)
            return thue_spec_error(err, errsize, "nested needs a level: nested:L with L = 0..%d",
                                   THUE_NESTED_MAX);
        s = thue_bot_spec_default(lv == 0 ? THUE_BOT_GREEDY : THUE_BOT_NESTED);
        s.level = (int)lv;
    } else if (nlen == 3 && strncmp(text, "uct", 3) == 0) {
        thue_uct_spec u;
        int e = thue_uct_spec_parse(arg, &u, err, errsize);
        if (e)
            return e;
        s = thue_bot_spec_default(THUE_BOT_UCT);
        s.iterations = u.iterations;
        s.time_ms = u.time_ms;
        s.playout_limit = u.playout_limit;
        s.exploration = u.exploration;
    } else if (nlen == 7 && strncmp(text, "perfect", 7) == 0) {
        s = thue_bot_spec_default(THUE_BOT_PERFECT);
        if (arg != NULL) {
            if (arg[0] == '\0')
                return thue_spec_error(err, errsize, "empty option list after '%.*s:'", (int)nlen,
                                       text);
            int e = parse_options("perfect", arg, &s, err, errsize);
            if (e)
                return e;
        }
    } else {
        return thue_spec_error(
            err, errsize, "unknown bot '%.*s' (greedy, nested:L, 0..%d, uct[:...], perfect[:...])",
            (int)nlen, text, THUE_NESTED_MAX);
    }
    *out = s;
    return 0;
}

int thue_bot_spec_format(const thue_bot_spec *s, char *buf, size_t size)
{
    switch (s->kind) {
    case THUE_BOT_GREEDY:
        return snprintf(buf, size, "greedy");
    case THUE_BOT_NESTED:
        return snprintf(buf, size, "nested:%d", s->level);
    case THUE_BOT_UCT: {
        thue_uct_spec u = {s->iterations, s->time_ms, s->playout_limit, s->exploration};
        return thue_uct_spec_format(&u, buf, size);
    }
    case THUE_BOT_PERFECT:
        if (s->max_depth > 0)
            return snprintf(buf, size, "perfect:depth=%d", s->max_depth);
        return snprintf(buf, size, "perfect");
    }
    return snprintf(buf, size, "?");
}

static int spec_valid(const thue_bot_spec *s)
{
    switch (s->kind) {
    case THUE_BOT_GREEDY:
        return 1;
    case THUE_BOT_NESTED:
        return s->level >= 1 && s->level <= THUE_NESTED_MAX;
    case THUE_BOT_UCT:
        return s->playout_limit >= 1 && s->exploration >= 0 && isfinite(s->exploration) &&
               s->time_ms >= 0 && (s->iterations > 0 || s->time_ms > 0);
    case THUE_BOT_PERFECT:
        return s->max_depth >= 0;
    }
    return 0;
}

/* ---- positions --------------------------------------------------------------------- */

/* Everything thue_position_check checks but the repetition: cheap (one pass). */
static int position_args(const thue_position *pos)
{
    if (pos->variant != THUE_SQUARE && pos->variant != THUE_OVERLAP)
        return THUE_EVARIANT;
    if (pos->k < THUE_K_MIN || pos->k > THUE_K_MAX)
        return THUE_EK;
    if (pos->n < 0 || pos->n > THUE_BOT_WORD_MAX)
        return THUE_ETOOLONG;
    if (pos->n > 0 && pos->sym == NULL)
        return THUE_EINVAL;
    for (int j = 0; j < pos->n; j++)
        if (pos->sym[j] >= pos->k)
            return THUE_ESYMBOL;
    if (pos->role != THUE_ROLE_BUILDER && pos->role != THUE_ROLE_PAINTER)
        return THUE_EINVAL;
    if (pos->role == THUE_ROLE_PAINTER && (pos->index < 0 || pos->index > pos->n))
        return THUE_EPOSITION;
    if (pos->remaining < 0)
        return THUE_EINVAL;
    return 0;
}

int thue_position_check(const thue_position *pos)
{
    int r = position_args(pos);
    if (r != 0)
        return r;
    r = thue_check_word(NULL, pos->sym, pos->n, pos->variant, NULL);
    if (r < 0)
        return r;
    return r ? THUE_EREPEAT : 0;
}

/* ---- the control block ------------------------------------------------------------- */

void thue__insert(uint8_t *w, int n, int i, int c)
{
    memmove(w + i + 1, w + i, (size_t)(n - i));
    w[i] = (uint8_t)c;
}

void thue__remove(uint8_t *w, int n, int i)
{
    memmove(w + i, w + i + 1, (size_t)(n - i - 1));
}

uint64_t thue__count_moves(const uint64_t *map, int n)
{
    uint64_t total = 0;
    for (int j = 0; j <= n; j++)
        total += (uint64_t)__builtin_popcountll(map[j]);
    return total;
}

/* ---- searches ---------------------------------------------------------------------- */

void thue_bot_search_free(thue_bot_search *s)
{
    if (s == NULL)
        return;
    uv_mutex_destroy(&s->prep_lock);
    for (int p = 0; p < THUE_BOT_PARTS_MAX; p++) {
        free(s->part[p].visits);
        free(s->part[p].payoff);
        if (s->part[p].tree != NULL)
            thue__uct_tree_free(s->part[p].tree);
    }
    for (int l = 0; l <= THUE_NESTED_MAX; l++) {
        free(s->score[l]);
        free(s->have[l]);
    }
    free(s->cap);
    free(s->cand);
    free(s->rootmap);
    free(s->word);
    free(s);
}

thue_bot_search *thue_bot_search_new(const thue_bot_spec *spec, const thue_position *pos,
                                     uint64_t seed, int parts, int *err)
{
    int e = 0;
    thue_bot_search *s = NULL;
    if (!spec_valid(spec) || parts < 1 || parts > THUE_BOT_PARTS_MAX) {
        e = THUE_EINVAL;
        goto fail;
    }
    if ((e = position_args(pos)) != 0)
        goto fail;
    e = THUE_ENOMEM;
    s = calloc(1, sizeof *s);
    if (s == NULL)
        goto fail;
    if (uv_mutex_init(&s->prep_lock) != 0) {
        free(s);
        s = NULL;
        goto fail;
    }
    s->t0 = thue_now_ns();
    s->spec = *spec;
    s->pos = *pos;
    s->seed = seed;
    int n = pos->n;
    s->word = malloc((size_t)n + 1);
    s->rootmap = malloc(((size_t)n + 1) * sizeof(uint64_t));
    s->cand = malloc(((size_t)(n > pos->k ? n : pos->k) + 1) * sizeof(int));
    if (s->word == NULL || s->rootmap == NULL || s->cand == NULL)
        goto fail;
    if (n > 0)
        memcpy(s->word, pos->sym, (size_t)n);
    s->pos.sym = s->word;
    /* The candidates decide the split, so they are known now; the painter's cost k
     * insertion checks, O(k n). The whole-word work (is the word clean? its legal-move
     * map) waits for the first part, off the caller's thread (prepare). */
    if (pos->role == THUE_ROLE_BUILDER) {
        for (int i = 0; i <= n; i++)
            s->cand[s->ncand++] = i;
    } else {
        for (int c = 0; c < pos->k; c++)
            if (thue_check_insert(s->word, n, pos->variant, pos->index, c, NULL) == 0)
                s->cand[s->ncand++] = c;
    }
    /* Work to share: nothing for greedy, and never more parts than candidates (uct
     * parts grow whole trees, so any number is useful to it). */
    if (spec->kind == THUE_BOT_GREEDY || s->ncand <= 1)
        parts = 1;
    else if (spec->kind != THUE_BOT_UCT && parts > s->ncand)
        parts = s->ncand;
    s->nparts = parts;
    size_t nc = (size_t)s->ncand + 1;
    if (spec->kind == THUE_BOT_NESTED) {
        for (int l = 1; l <= spec->level; l++) {
            s->score[l] = calloc(nc, sizeof(uint64_t));
            s->have[l] = calloc(nc, 1);
            if (s->score[l] == NULL || s->have[l] == NULL)
                goto fail;
            atomic_init(&s->next[l], 0);
        }
    } else if (spec->kind == THUE_BOT_PERFECT) {
        atomic_init(&s->proven, INT_MAX);
        s->score[0] = calloc(nc, sizeof(uint64_t));
        s->have[0] = calloc(nc, 1);
        s->cap = calloc(nc, sizeof(int));
        if (s->score[0] == NULL || s->have[0] == NULL || s->cap == NULL)
            goto fail;
    } else if (spec->kind == THUE_BOT_UCT) {
        for (int p = 0; p < parts; p++) {
            s->part[p].visits = calloc(nc, sizeof(double));
            s->part[p].payoff = calloc(nc, sizeof(double));
            if (s->part[p].visits == NULL || s->part[p].payoff == NULL)
                goto fail;
        }
    }
    if (err)
        *err = 0;
    return s;
fail:
    thue_bot_search_free(s);
    if (err)
        *err = e;
    return NULL;
}

int thue_bot_search_parts(const thue_bot_search *s)
{
    return s->nparts;
}

/* The whole-word work, done once by whichever part starts first: the repetition check
 * of thue_position_check and the root's legal-move map. 0 or the error every part and
 * finish then report. */
static int prepare(thue_bot_search *s)
{
    uv_mutex_lock(&s->prep_lock);
    if (!s->prepared) {
        const thue_position *pos = &s->pos;
        int r = thue_check_word(NULL, s->word, pos->n, pos->variant, NULL);
        if (r == 0)
            r = thue_legal_map(NULL, s->word, pos->n, pos->k, pos->variant, s->rootmap);
        else if (r > 0)
            r = THUE_EREPEAT;
        s->prep_err = r;
        s->prepared = 1;
    }
    int err = s->prep_err;
    uv_mutex_unlock(&s->prep_lock);
    return err;
}

void thue_bot_search_run_part(thue_bot_search *s, int p, const thue_bot_limits *limits)
{
    if (p < 0 || p >= s->nparts || prepare(s) != 0)
        return;
    int64_t deadline = 0;
    if (limits != NULL) {
        deadline = limits->deadline_ns;
        if (limits->think_ms > 0) {
            int64_t d = s->t0 + limits->think_ms * 1000000;
            if (deadline == 0 || d < deadline)
                deadline = d;
        }
    }
    if (s->spec.kind == THUE_BOT_UCT && s->spec.time_ms > 0) {
        int64_t d = s->t0 + (int64_t)s->spec.time_ms * 1000000;
        if (deadline == 0 || d < deadline)
            deadline = d;
    }
    thue__ctl ctl;
    thue__ctl_init(&ctl, limits, deadline);
    if (limits != NULL && limits->node_budget) {
        uint64_t share = limits->node_budget / (uint64_t)s->nparts;
        ctl.budget = share ? share : 1;
    }
    thue__part *part = &s->part[p];
    switch (s->spec.kind) {
    case THUE_BOT_GREEDY:
        break;
    case THUE_BOT_NESTED:
        thue__nested_run(s, p, &ctl);
        break;
    case THUE_BOT_UCT:
        thue__uct_run(s, p, &ctl);
        break;
    case THUE_BOT_PERFECT:
        thue__perfect_run(s, p, &ctl);
        break;
    }
    part->nodes += ctl.nodes;
    part->stopped |= ctl.stopped;
}

int thue_bot_search_finish(thue_bot_search *s, thue_bot_result *out)
{
    memset(out, 0, sizeof *out);
    out->value = -1;
    int e = prepare(s); /* done by the parts already, unless none ran */
    if (e != 0)
        return e;
    int oom = 0;
    for (int p = 0; p < s->nparts; p++) {
        out->nodes += s->part[p].nodes;
        out->iterations += s->part[p].iterations;
        out->stopped |= s->part[p].stopped;
        oom |= s->part[p].oom;
    }
    out->nodes += 1; /* the root's legal-move map */
    if (oom)
        return THUE_ENOMEM;
    switch (s->spec.kind) {
    case THUE_BOT_GREEDY:
        thue__greedy_choose(s, out);
        break;
    case THUE_BOT_NESTED:
        thue__nested_choose(s, out);
        break;
    case THUE_BOT_UCT:
        thue__uct_choose(s, out);
        break;
    case THUE_BOT_PERFECT:
        thue__perfect_choose(s, out);
        break;
    }
    out->ms = (double)(thue_now_ns() - s->t0) / 1e6;
    return 0;
}

int thue_bot_move(const thue_bot_spec *spec, const thue_position *pos,
                  const thue_bot_limits *limits, uint64_t seed, thue_bot_result *out)
{
    int err;
    thue_bot_search *s = thue_bot_search_new(spec, pos, seed, 1, &err);
    if (s == NULL)
        return err;
    thue_bot_search_run_part(s, 0, limits);
    err = thue_bot_search_finish(s, out);
    thue_bot_search_free(s);
    return err;
}
