/*
 * games.c: the registry of games and the helpers every game's parser (and solver) shares.
 *
 * The registry is a constant array: adding a game is one line here and one folder.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/registry.h"

static const thue_gamedef *const games[] = {
#define THUE__GAME_ENTRY(sym) &sym,
    THUE_GAMES(THUE__GAME_ENTRY)
#undef THUE__GAME_ENTRY
};

const thue_gamedef *thue_game_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++)
        if (strcmp(games[i]->name, name) == 0)
            return games[i];
    return NULL;
}

const thue_gamedef *const *thue_game_list(int *n)
{
    *n = (int)(sizeof games / sizeof games[0]);
    return games;
}

int thue_gerr_set(thue_gerr *e, int code, const char *field, const char *fmt, ...)
{
    if (e != NULL) {
        e->code = code;
        snprintf(e->field, sizeof e->field, "%s", field != NULL ? field : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void thue_gctl_why(const thue_gctl *c, const char *fmt, ...)
{
    if (c == NULL || c->why == NULL || c->why_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->why_size, fmt, ap);
    va_end(ap);
}

int thue_game_options_text(const thue_gamedef *g, const char *text, thue_gopt *opt, thue_gerr *e)
{
    if (text == NULL || text[0] == '\0')
        return g->parse_options(NULL, opt, e);
    json_error_t je;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL || !json_is_object(j)) {
        json_decref(j);
        return thue_gerr_set(e, THUE_EOPTIONS, "", "the options are not a JSON object%s%s",
                             j == NULL ? ": " : "", j == NULL ? je.text : "");
    }
    int rc = g->parse_options(j, opt, e);
    json_decref(j);
    return rc;
}

int thue_game_apply_text(const thue_gamedef *g, const thue_gopt *opt, void *st, int player,
                         const char *text, thue_gerr *e)
{
    json_error_t je;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL || !json_is_object(j)) {
        json_decref(j);
        return thue_gerr_set(e, THUE_EMOVE, "", "a move is a JSON object: %s", g->move_doc);
    }
    thue_gmove m;
    int rc = g->move_parse(opt, j, &m, e);
    json_decref(j);
    if (rc == 0)
        rc = g->apply(opt, st, player, &m, e);
    return rc;
}

char *thue_game_dump(json_t *j)
{
    if (j == NULL)
        return NULL;
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    return s;
}

int thue_gjson_int(const json_t *obj, const char *key, long long lo, long long hi, long long dflt,
                   long long *out, int code, thue_gerr *e)
{
    const json_t *v = obj != NULL ? json_object_get(obj, key) : NULL;
    if (v == NULL) {
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return thue_gerr_set(e, code, key, "%s must be an integer from %lld to %lld", key, lo, hi);
    *out = json_integer_value(v);
    return 0;
}

int thue_gjson_only(const json_t *obj, const char *const *keys, int code, thue_gerr *e)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        bool known = false;
        for (int i = 0; keys[i] != NULL && !known; i++)
            known = strcmp(keys[i], k) == 0;
        if (!known) {
            char list[120] = "";
            size_t at = 0;
            for (int i = 0; keys[i] != NULL && at < sizeof list; i++)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", keys[i]);
            return thue_gerr_set(e, code, k, "unknown member \"%.40s\" (known: %s)", k,
                                 keys[0] != NULL ? list : "none");
        }
    }
    return 0;
}

json_t *thue_gjson_ints(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a != NULL && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}
