/*
 * fuzz_games.c: libFuzzer target for every game behind server/games/game.h.
 *
 * The input is text: byte 0 picks the game (of thue_game_list, Thue's own engine is
 * fuzzed elsewhere), then lines: the options as JSON, a position as JSON (an empty line:
 * the seeded start), then moves as JSON, each played by the player to move (or by the
 * other player when the line starts with '!'). The table's promises are checked and any
 * break aborts:
 *   - options: parsed options write back canonically (a fixed point of parse and write);
 *   - positions: state_json read back by position_parse gives the same JSON and hash;
 *   - moves: a parsed move writes back to JSON that parses to the same move; a refused
 *     move changes not one byte of the state and fills the error; an accepted one is one
 *     of legal_moves (unless the list fills max_moves: Wythoff's game cuts it there); a
 *     state that is over has no legal move and nobody to move, one that is not has both;
 *     every legal move (the first 64) is accepted on a copy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LINE_MAX_BYTES 2048
#define STATE_MAX (1 << 16)

static unsigned char st[STATE_MAX], copy[STATE_MAX], again[STATE_MAX];
static thue_gmove *moves;
static int moves_cap;

static json_t *load(const char *text)
{
    return json_loads(text, JSON_REJECT_DUPLICATES, NULL);
}

static char *dumps(json_t *j)
{
    if (j == NULL)
        abort(); /* the *_json functions only fail out of memory */
    return thue_game_dump(j);
}

static void check_state(const thue_gamedef *g, const thue_gopt *o, const void *s, size_t n)
{
    char *text = dumps(g->state_json(o, s));
    json_t *j = load(text);
    thue_gerr e;
    memset(again, 0, n);
    if (j == NULL || g->position_parse(o, j, again, &e) != 0)
        abort(); /* what the game writes, it reads */
    char *back = dumps(g->state_json(o, again));
    if (strcmp(text, back) != 0 || g->hash(o, s) != g->hash(o, again))
        abort();
    json_decref(j);
    free(text);
    free(back);
    thue_gresult r;
    g->result(o, s, &r);
    int count = g->legal_moves(o, s, moves);
    if (count < 0 || count > g->max_moves(o))
        abort();
    if (r.over != (g->to_move(o, s) < 0) || r.over != (count == 0))
        abort();
    for (int i = 0; i < count && i < 64; i++) {
        memcpy(copy, s, n);
        if (g->apply(o, copy, g->to_move(o, s), &moves[i], &e) != 0)
            abort(); /* a legal move is accepted */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int ngames;
    const thue_gamedef *const *list = thue_game_list(&ngames);
    if (size < 2 || ngames == 0)
        return 0;
    const thue_gamedef *g = list[data[0] % ngames];
    char *text = malloc(size);
    if (text == NULL)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    thue_gopt o;
    thue_gerr e;
    json_t *j = line != NULL && line[0] != '-' ? load(line) : NULL;
    if (g->parse_options(j, &o, &e) != 0) {
        json_decref(j);
        free(text);
        return 0;
    }
    json_decref(j);
    char *canon = dumps(g->options_json(&o));
    thue_gopt o2;
    json_t *cj = load(canon);
    if (cj == NULL || g->parse_options(cj, &o2, &e) != 0)
        abort();
    char *canon2 = dumps(g->options_json(&o2));
    if (strcmp(canon, canon2) != 0)
        abort();
    json_decref(cj);
    free(canon);
    free(canon2);
    size_t n = g->state_size(&o);
    if (n == 0 || n > STATE_MAX)
        abort();
    if (g->max_moves(&o) > moves_cap) {
        free(moves);
        moves_cap = g->max_moves(&o);
        moves = malloc(sizeof *moves * (size_t)(moves_cap > 0 ? moves_cap : 1));
        if (moves == NULL)
            abort();
    }
    memset(st, 0, n);
    g->start(&o, (uint64_t)data[0] * 0x9E3779B97F4A7C15ull, st);
    line = strtok_r(NULL, "\n", &save);
    if (line != NULL && line[0] == '{') {
        json_t *pj = load(line);
        unsigned char *tmp = copy;
        memset(tmp, 0, n);
        if (pj != NULL && g->position_parse(&o, pj, tmp, &e) == 0)
            memcpy(st, tmp, n);
        json_decref(pj);
        line = strtok_r(NULL, "\n", &save);
    }
    check_state(g, &o, st, n);
    for (int steps = 0; line != NULL && steps < 200; steps++, line = strtok_r(NULL, "\n", &save)) {
        int other = line[0] == '!';
        json_t *mj = load(line + other);
        thue_gmove m;
        memset(&e, 0, sizeof e);
        if (mj == NULL || g->move_parse(&o, mj, &m, &e) != 0) {
            if (mj != NULL && e.code == 0)
                abort(); /* a refusal says why */
            json_decref(mj);
            continue;
        }
        json_decref(mj);
        char *mt = dumps(g->move_json(&o, &m));
        json_t *mj2 = load(mt);
        thue_gmove m2;
        if (mj2 == NULL || g->move_parse(&o, mj2, &m2, &e) != 0 || memcmp(&m, &m2, sizeof m) != 0)
            abort();
        json_decref(mj2);
        free(mt);
        int p = g->to_move(&o, st);
        if (p < 0)
            p = 0;
        memcpy(copy, st, n);
        memset(&e, 0, sizeof e);
        int rc = g->apply(&o, st, other ? p ^ 1 : p, &m, &e);
        if (rc != 0) {
            if (e.code != rc || e.msg[0] == '\0' || memcmp(copy, st, n) != 0)
                abort(); /* refused: said why, changed nothing */
            continue;
        }
        int count = g->legal_moves(&o, copy, moves), found = 0;
        for (int i = 0; i < count && !found; i++)
            found = memcmp(&moves[i], &m, sizeof m) == 0;
        /* A list that fills max_moves may be cut (Wythoff's game with huge heaps lists
         * max_moves of its moves, docs/games.md): only a shorter one is the whole list. */
        if (!found && count < g->max_moves(&o))
            abort(); /* accepted moves are legal moves */
        check_state(g, &o, st, n);
    }
    free(text);
    return 0;
}
