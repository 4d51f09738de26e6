/*
 * test_game_circle_api.c: the circle game's table (server/games/circle/circle.c) as the
 * lobby and the CLI use it.
 *
 * - the registry entry; options: defaults, canonical JSON and its round trip, every
 *   refusal with its field; the pool key;
 *   - starts: seeded random placements (piece counts, the same seed the same board),
 *   explicit boards;
 * - move parsing: every refusal with its field; move semantics on small boards: both
 *   directions, the wrap-around past field N-1, blocked paths, occupied targets, the
 *   direction inferred when "dir" is left out, wrong turn, wrong player;
 * - the end: no move (the mover loses, "no_moves") and the move cap (a draw, "move_cap");
 * - round trips on random playouts of 3 to 64 fields: state_json -> position_parse gives
 *   identical bytes; every legal move's move_json -> move_parse -> apply succeeds (also
 *   without "dir") and equals the raw move; random illegal moves leave the state
 *   byte-identical; the perfect move is legal and, on boards too big for the retrograde
 *   of test_game_circle, keeps the analysis's own value (a win's move leaves the
 *   opponent a loss, a draw's move a draw), or, over 12 fields with a small node budget,
 *   perfect refuses a decided position and says the move cap is why;
 * - position_parse refusals.
 * Random data comes from a fixed-seed xorshift64, so every run checks the same cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/circle/circle.h"
#include "games/game.h"
#include "games/registry.h"

static const thue_gamedef *G;

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void opts(const char *text, thue_gopt *opt)
{
    thue_gerr e;
    int rc = thue_game_options_text(G, text, opt, &e);
    if (rc != 0)
        print_error("options %s: %s\n", text, e.msg);
    assert_int_equal(rc, 0);
}

static char *opts_text(const thue_gopt *opt)
{
    return thue_game_dump(G->options_json(opt));
}

/* A state from options and a board text, `to_move` to move. */
static void state_of(const thue_gopt *opt, const char *board, int to_move, thue_circle_state *s)
{
    char text[200];
    snprintf(text, sizeof text, "{\"fields\":%d,\"board\":\"%s\",\"to_move\":%d}",
             (int)strlen(board), board, to_move);
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    thue_gerr e;
    int rc = G->position_parse(opt, j, s, &e);
    if (rc != 0)
        print_error("position %s: %s\n", text, e.msg);
    assert_int_equal(rc, 0);
    json_decref(j);
}

static void board_text(const thue_circle_state *s, char *out)
{
    for (int f = 0; f < s->n; f++)
        out[f] = ".WB"[s->board[f]];
    out[s->n] = '\0';
}

/* ---------------------------------------------------------------- options */

static void test_circle_registry(void **state)
{
    (void)state;
    assert_non_null(G);
    assert_string_equal(G->name, "circle");
    assert_true(G->flags & THUE_GAME_DRAWS);
    assert_false(G->flags & THUE_GAME_ACYCLIC);
    assert_int_equal(G->noptions, 5);
    assert_non_null(G->perfect);
    /* Each option's default is JSON text (`thue games --json` reads it). */
    for (int i = 0; i < G->noptions; i++) {
        json_t *d = json_loads(G->options[i].deflt, JSON_DECODE_ANY, NULL);
        assert_non_null(d);
        json_decref(d);
    }
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    /* Listed right after Nim, wherever Nim stands. */
    int at = -1;
    for (int i = 0; i + 1 < n; i++)
        if (strcmp(list[i]->name, "nim") == 0)
            at = i;
    assert_true(at >= 0);
    assert_ptr_equal(list[at + 1], G);
}

static void test_circle_options_defaults(void **state)
{
    (void)state;
    thue_gopt opt;
    const char *texts[] = {NULL, "", "{}"};
    for (int i = 0; i < 3; i++) {
        opts(texts[i], &opt);
        char *t = opts_text(&opt);
        assert_string_equal(
            t, "{\"fields\":12,\"start\":\"random\",\"white\":3,\"black\":3,\"move_cap\":480}");
        free(t);
        char key[32];
        G->pool_key(&opt, key, sizeof key);
        assert_string_equal(key, "12");
    }
    opts("{\"fields\":5}", &opt);
    char *t = opts_text(&opt);
    assert_string_equal(
        t, "{\"fields\":5,\"start\":\"random\",\"white\":2,\"black\":2,\"move_cap\":200}");
    free(t);
    opts("{\"fields\":64,\"start\":\"random\",\"white\":63,\"black\":1,\"move_cap\":100000}", &opt);
    char key[32];
    G->pool_key(&opt, key, sizeof key);
    assert_string_equal(key, "64");
    /* Canonical text reads back to the same text, explicit starts too. */
    const char *round[] = {
        "{\"fields\":3,\"start\":\"W.B\",\"white\":1,\"black\":1,\"move_cap\":1}",
        "{\"fields\":7,\"start\":\"random\",\"white\":1,\"black\":6,\"move_cap\":99}",
        "{\"fields\":12,\"start\":\"WW..B.W..BB.\",\"white\":3,\"black\":3,\"move_cap\":480}",
    };
    for (int i = 0; i < 3; i++) {
        opts(round[i], &opt);
        t = opts_text(&opt);
        assert_string_equal(t, round[i]);
        free(t);
    }
}

static void test_circle_options_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *field;
    } bad[] = {
        {"{\"fields\":2}", "fields"},
        {"{\"fields\":65}", "fields"},
        {"{\"fields\":\"12\"}", "fields"},
        {"{\"fields\":12.5}", "fields"},
        {"{\"white\":0}", "white"},
        {"{\"fields\":6,\"white\":6}", "white"},
        {"{\"black\":12}", "black"},
        {"{\"white\":5,\"black\":8}", "black"},
        {"{\"fields\":4}", "black"}, /* defaults 2 + 2 fit; 3 + 2 do not: */
        {"{\"move_cap\":0}", "move_cap"},
        {"{\"move_cap\":100001}", "move_cap"},
        {"{\"start\":\"WWB\"}", "start"},
        {"{\"fields\":3,\"start\":\"WBx\"}", "start"},
        {"{\"fields\":3,\"start\":\"WW.\"}", "start"},
        {"{\"fields\":3,\"start\":\"...\"}", "start"},
        {"{\"start\":5}", "start"},
        {"{\"start\":\"Random\"}", "start"},
        {"{\"colour\":1}", "colour"},
        {"[1]", ""},
        {"{\"fields\":", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *text = bad[i].text;
        char fixed[80];
        if (strcmp(bad[i].text, "{\"fields\":4}") == 0) {
            snprintf(fixed, sizeof fixed, "{\"fields\":4,\"white\":3,\"black\":2}");
            text = fixed;
        }
        thue_gopt opt;
        thue_gerr e;
        memset(&e, 0, sizeof e);
        int rc = thue_game_options_text(G, text, &opt, &e);
        if (rc != THUE_EOPTIONS || strcmp(e.field, bad[i].field) != 0)
            print_error("options %s: rc %d field \"%s\" (%s)\n", text, rc, e.field, e.msg);
        assert_int_equal(rc, THUE_EOPTIONS);
        assert_int_equal(e.code, THUE_EOPTIONS);
        assert_string_equal(e.field, bad[i].field);
        assert_true(strlen(e.msg) > 10);
    }
}

static void test_circle_start(void **state)
{
    (void)state;
    static const struct {
        int n, w, b;
    } cases[] = {{3, 1, 1}, {3, 2, 1}, {12, 3, 3}, {12, 11, 1}, {20, 10, 10}, {64, 1, 63}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[100];
        snprintf(text, sizeof text, "{\"fields\":%d,\"white\":%d,\"black\":%d}", cases[c].n,
                 cases[c].w, cases[c].b);
        thue_gopt opt;
        opts(text, &opt);
        assert_int_equal(G->state_size(&opt), sizeof(thue_circle_state));
        int distinct = 0;
        thue_circle_state first;
        for (uint64_t seed = 0; seed < 40; seed++) {
            thue_circle_state s, again;
            memset(&s, 0xAB, sizeof s);
            G->start(&opt, seed, &s);
            memset(&again, 0x11, sizeof again);
            G->start(&opt, seed, &again);
            assert_memory_equal(&s, &again, sizeof s);
            int w = 0, b = 0;
            for (int f = 0; f < THUE_CIRCLE_FIELDS_MAX; f++) {
                assert_true(s.board[f] <= 2);
                assert_true(f < cases[c].n || s.board[f] == 0);
                w += s.board[f] == 1, b += s.board[f] == 2;
            }
            assert_int_equal(w, cases[c].w);
            assert_int_equal(b, cases[c].b);
            assert_int_equal(s.n, cases[c].n);
            assert_int_equal(s.to_move, 0);
            assert_int_equal(s.moves, 0);
            if (seed == 0)
                first = s;
            else if (memcmp(&s, &first, sizeof s) != 0)
                distinct++;
        }
        /* Three fields with one piece each: 6 boards; every case has several. */
        assert_true(distinct >= 5);
    }
    thue_gopt opt;
    opts("{\"fields\":5,\"start\":\"W.B.B\"}", &opt);
    thue_circle_state s;
    G->start(&opt, 99, &s);
    char bt[8];
    board_text(&s, bt);
    assert_string_equal(bt, "W.B.B");
    assert_int_equal(G->to_move(&opt, &s), 0);
    assert_string_equal(G->step(&opt, &s), "move");
}

/* ---------------------------------------------------------------- moves */

static int apply_text(const thue_gopt *opt, thue_circle_state *s, int player, const char *text,
                      thue_gerr *e)
{
    memset(e, 0, sizeof *e);
    return thue_game_apply_text(G, opt, s, player, text, e);
}

static void test_circle_move_parse_errors(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"fields\":8}", &opt);
    static const struct {
        const char *text, *field;
    } bad[] = {
        {"[2,3]", ""},
        {"{\"from\":2}", "to"},
        {"{\"to\":2}", "from"},
        {"{\"from\":-1,\"to\":2}", "from"},
        {"{\"from\":64,\"to\":2}", "from"},
        {"{\"from\":\"2\",\"to\":3}", "from"},
        {"{\"from\":2,\"to\":64}", "to"},
        {"{\"from\":2,\"to\":3,\"dir\":0}", "dir"},
        {"{\"from\":2,\"to\":3,\"dir\":2}", "dir"},
        {"{\"from\":2,\"to\":3,\"dir\":\"1\"}", "dir"},
        {"{\"from\":2,\"to\":3,\"step\":1}", "step"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = json_loads(bad[i].text, 0, NULL);
        assert_non_null(j);
        thue_gmove m;
        thue_gerr e;
        memset(&e, 0, sizeof e);
        int rc = G->move_parse(&opt, j, &m, &e);
        if (rc != THUE_EMOVE || strcmp(e.field, bad[i].field) != 0)
            print_error("move %s: rc %d field \"%s\" (%s)\n", bad[i].text, rc, e.field, e.msg);
        assert_int_equal(rc, THUE_EMOVE);
        assert_string_equal(e.field, bad[i].field);
        json_decref(j);
    }
    thue_gmove m;
    thue_gerr e;
    assert_int_equal(G->move_parse(&opt, NULL, &m, &e), THUE_EMOVE);
    /* A field past this board (8 fields) but on a bigger one is the shape of a move: apply
     * refuses it as illegal (PROTOCOL.md section 5), and changes nothing. */
    json_t *j = json_loads("{\"from\":8,\"to\":2}", 0, NULL);
    assert_int_equal(G->move_parse(&opt, j, &m, &e), 0);
    json_decref(j);
}

/* A move that must be refused with `code` and `field`, leaving s as it was. */
static void refused(const thue_gopt *opt, thue_circle_state *s, int player, const char *text,
                    int code, const char *field)
{
    thue_circle_state before = *s;
    thue_gerr e;
    int rc = apply_text(opt, s, player, text, &e);
    if (rc != code || strcmp(e.field, field) != 0)
        print_error("move %s: rc %d field \"%s\" (%s)\n", text, rc, e.field, e.msg);
    assert_int_equal(rc, code);
    assert_string_equal(e.field, field);
    assert_true(strlen(e.msg) > 10);
    assert_memory_equal(s, &before, sizeof before);
}

static void played(const thue_gopt *opt, thue_circle_state *s, int player, const char *text,
                   const char *board_after)
{
    thue_gerr e;
    int rc = apply_text(opt, s, player, text, &e);
    if (rc != 0)
        print_error("move %s: %s\n", text, e.msg);
    assert_int_equal(rc, 0);
    char bt[THUE_CIRCLE_FIELDS_MAX + 1];
    board_text(s, bt);
    assert_string_equal(bt, board_after);
}

/* A field past this board but on a bigger one: apply's illegal move, nothing changed. */
static void test_circle_field_past_board(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"fields\":8,\"start\":\"W...B...\"}", &opt);
    thue_circle_state s;
    G->start(&opt, 1, &s);
    refused(&opt, &s, 0, "{\"from\":8,\"to\":2}", THUE_EILLEGAL, "from");
    refused(&opt, &s, 0, "{\"from\":0,\"to\":63}", THUE_EILLEGAL, "to");
    played(&opt, &s, 0, "{\"from\":0,\"to\":2}", "..W.B...");
}

static void test_circle_move_semantics(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"fields\":8}", &opt);
    thue_circle_state s;
    state_of(&opt, "..W..B..", 0, &s);
    /* Both directions, the -1 way wrapping past field 0 to 7 and 6. */
    thue_gmove mv[16];
    int cnt = G->legal_moves(&opt, &s, mv);
    static const int want[][3] = {{2, 3, 1},  {2, 4, 1},  {2, 1, -1},
                                  {2, 0, -1}, {2, 7, -1}, {2, 6, -1}};
    assert_int_equal(cnt, 6);
    for (int i = 0; i < cnt; i++) {
        assert_int_equal(mv[i].v[0], want[i][0]);
        assert_int_equal(mv[i].v[1], want[i][1]);
        assert_int_equal(mv[i].v[2], want[i][2]);
        assert_int_equal(mv[i].v[3], 0);
    }
    refused(&opt, &s, 0, "{\"from\":2,\"to\":5}", THUE_EILLEGAL, "to");   /* occupied */
    refused(&opt, &s, 0, "{\"from\":2,\"to\":2}", THUE_EILLEGAL, "to");   /* no distance */
    refused(&opt, &s, 0, "{\"from\":5,\"to\":6}", THUE_EILLEGAL, "from"); /* not white's */
    refused(&opt, &s, 0, "{\"from\":1,\"to\":0}", THUE_EILLEGAL, "from"); /* empty */
    /* Field 6 lies the -1 way (over 1, 0, 7); the +1 way is blocked by the piece on 5. */
    refused(&opt, &s, 0, "{\"from\":2,\"to\":6,\"dir\":1}", THUE_EILLEGAL, "to");
    refused(&opt, &s, 0, "{\"from\":2,\"to\":3,\"dir\":-1}", THUE_EILLEGAL, "to");
    refused(&opt, &s, 1, "{\"from\":5,\"to\":6}", THUE_ETURN, "");
    refused(&opt, &s, 2, "{\"from\":2,\"to\":3}", THUE_EPLAYER, "");
    played(&opt, &s, 0, "{\"from\":2,\"to\":6}", ".....BW."); /* dir inferred: -1 */
    assert_int_equal(s.to_move, 1);
    assert_int_equal(s.moves, 1);
    refused(&opt, &s, 0, "{\"from\":6,\"to\":7}", THUE_ETURN, "");
    /* Black on 5: the +1 way is blocked at once by 6; the -1 way runs 4, 3, 2, 1, 0
     * and wraps to 7, where the piece on 6 stops it. */
    refused(&opt, &s, 1, "{\"from\":5,\"to\":6,\"dir\":1}", THUE_EILLEGAL, "to");
    played(&opt, &s, 1, "{\"from\":5,\"to\":7,\"dir\":-1}", "......WB");
}

static void test_circle_move_wrap_up(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"fields\":6}", &opt);
    thue_circle_state s;
    state_of(&opt, "...BW.", 0, &s);
    /* The +1 way from 4: 5, 0, 1, 2 (then the piece on 3). */
    played(&opt, &s, 0, "{\"from\":4,\"to\":1,\"dir\":1}", ".W.B..");
    played(&opt, &s, 1, "{\"from\":3,\"to\":0}", "BW....");
    /* Nothing reaches field 0 now, and 1 to 0 is occupied. */
    refused(&opt, &s, 0, "{\"from\":1,\"to\":0,\"dir\":-1}", THUE_EILLEGAL, "to");
    played(&opt, &s, 0, "{\"from\":1,\"to\":5,\"dir\":1}", "B....W");
    /* Impossible both ways: "W.B.W." from 0 to 3 meets B on 2 (up) and W on 4 (down). */
    state_of(&opt, "W.B.W.", 0, &s);
    refused(&opt, &s, 0, "{\"from\":0,\"to\":3}", THUE_EILLEGAL, "to");
    played(&opt, &s, 0, "{\"from\":0,\"to\":5}", "..B.WW");
}

/* ---------------------------------------------------------------- the end */

static void test_circle_no_moves_and_cap(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"fields\":4}", &opt);
    thue_circle_state s;
    state_of(&opt, "BWB.", 0, &s);
    thue_gresult r;
    G->result(&opt, &s, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, 1);
    assert_string_equal(r.why, "no_moves");
    assert_int_equal(r.score[1], 1);
    assert_int_equal(r.score[0], 0);
    assert_int_equal(G->to_move(&opt, &s), -1);
    assert_string_equal(G->step(&opt, &s), "over");
    thue_gmove mv[8];
    assert_int_equal(G->legal_moves(&opt, &s, mv), 0);
    refused(&opt, &s, 0, "{\"from\":1,\"to\":3}", THUE_EOVER, "");
    thue_gmove best = {{7, 7, 7, 7}};
    int value = 5;
    assert_int_equal(G->perfect(&opt, &s, NULL, &best, &value), 0);
    assert_int_equal(value, -1);
    assert_int_equal(best.v[0], 7); /* untouched once over */
    /* Black to move on the same board is not over. */
    state_of(&opt, "BWB.", 1, &s);
    G->result(&opt, &s, &r);
    assert_false(r.over);
    assert_string_equal(r.why, "");
    assert_int_equal(r.winner, -1);

    /* The cap: three moves, then a draw. */
    opts("{\"fields\":6,\"move_cap\":3}", &opt);
    state_of(&opt, "W..B..", 0, &s);
    played(&opt, &s, 0, "{\"from\":0,\"to\":1}", ".W.B..");
    played(&opt, &s, 1, "{\"from\":3,\"to\":4}", ".W..B.");
    G->result(&opt, &s, &r);
    assert_false(r.over);
    played(&opt, &s, 0, "{\"from\":1,\"to\":0}", "W...B.");
    G->result(&opt, &s, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, -1);
    assert_string_equal(r.why, "move_cap");
    assert_int_equal(r.score[0] + r.score[1], 0);
    refused(&opt, &s, 1, "{\"from\":4,\"to\":5}", THUE_EOVER, "");
    assert_int_equal(G->perfect(&opt, &s, NULL, &best, &value), 0);
    assert_int_equal(value, 0);
    /* A player stuck on the cap's last move still loses. */
    opts("{\"fields\":4,\"move_cap\":1}", &opt);
    state_of(&opt, "BW.B", 1, &s);
    played(&opt, &s, 1, "{\"from\":3,\"to\":2}", "BWB.");
    G->result(&opt, &s, &r);
    assert_true(r.over);
    assert_int_equal(r.winner, 1);
    assert_string_equal(r.why, "no_moves");
}

/* ---------------------------------------------------------------- round trips */

static bool is_legal(const thue_gmove *mv, int cnt, const thue_gmove *m)
{
    for (int i = 0; i < cnt; i++)
        if (mv[i].v[0] == m->v[0] && mv[i].v[1] == m->v[1] &&
            (m->v[2] == 0 || m->v[2] == mv[i].v[2]))
            return true;
    return false;
}

static long checked_states, checked_moves, checked_illegal, checked_perfect, checked_refused;

/* The node budget perfect gets here (its own is a million). */
#define PERFECT_NODES 3000

/* Every round trip on one state that is not over. */
static void check_state(const thue_gopt *opt, const thue_circle_state *s)
{
    thue_gerr e;
    /* state_json -> position_parse: the same bytes. */
    char *text = thue_game_dump(G->state_json(opt, s));
    assert_non_null(text);
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    thue_circle_state back;
    memset(&back, 0x5A, sizeof back);
    assert_int_equal(G->position_parse(opt, j, &back, &e), 0);
    assert_memory_equal(&back, s, sizeof back);
    assert_int_equal(G->hash(opt, &back), G->hash(opt, s));
    json_decref(j);
    free(text);
    checked_states++;

    thue_gmove mv[2 * THUE_CIRCLE_FIELDS_MAX];
    int cnt = G->legal_moves(opt, s, mv);
    assert_true(cnt >= 1 && cnt <= G->max_moves(opt));
    for (int i = 0; i < cnt; i++) {
        thue_circle_state raw = *s, viajson = *s, nodir = *s;
        assert_int_equal(G->apply(opt, &raw, s->to_move, &mv[i], &e), 0);
        json_t *mj = G->move_json(opt, &mv[i]);
        thue_gmove m;
        assert_int_equal(G->move_parse(opt, mj, &m, &e), 0);
        assert_memory_equal(&m, &mv[i], sizeof m);
        assert_int_equal(G->apply(opt, &viajson, s->to_move, &m, &e), 0);
        assert_memory_equal(&viajson, &raw, sizeof raw);
        /* Both colours are on the board, so one direction at most reaches a field. */
        json_object_del(mj, "dir");
        assert_int_equal(G->move_parse(opt, mj, &m, &e), 0);
        assert_int_equal(m.v[2], 0);
        assert_int_equal(G->apply(opt, &nodir, s->to_move, &m, &e), 0);
        assert_memory_equal(&nodir, &raw, sizeof raw);
        json_decref(mj);
        checked_moves++;
    }
    for (int t = 0; t < 24; t++) {
        thue_gmove m = {{(int32_t)(rnd() % (uint64_t)(s->n + 2)) - 1,
                         (int32_t)(rnd() % (uint64_t)(s->n + 2)) - 1, (int32_t)(rnd() % 3) - 1, 0}};
        if (is_legal(mv, cnt, &m))
            continue;
        thue_circle_state copy = *s;
        int rc = G->apply(opt, &copy, s->to_move, &m, &e);
        assert_int_equal(rc, THUE_EILLEGAL);
        assert_memory_equal(&copy, s, sizeof copy);
        checked_illegal++;
    }

    /* The perfect move: legal, and the analysis agrees with itself after it. The move
     * cap is far away here, so perfect's value is the analysis's; on boards over 12
     * fields it searches for a decided position's fastest win (circle_cap.c), and with
     * the small node budget given here it may refuse (then it says why). */
    thue_gmove best;
    int value = 9;
    char why[200] = "";
    thue_gctl ctl = {.nodes_max = PERFECT_NODES, .why = why, .why_size = sizeof why};
    int rc = G->perfect(opt, s, &ctl, &best, &value);
    if (rc == THUE_ETOOBIG && s->n > 12 && thue_circle_value(s->n, s->board, s->to_move) != 0) {
        assert_non_null(strstr(why, "move cap"));
        checked_refused++;
        return;
    }
    assert_int_equal(rc, 0);
    assert_true(value >= -1 && value <= 1);
    assert_true(is_legal(mv, cnt, &best));
    assert_int_equal(thue_circle_value(s->n, s->board, s->to_move), value);
    thue_circle_state next = *s;
    assert_int_equal(G->apply(opt, &next, s->to_move, &best, &e), 0);
    int after = thue_circle_value(next.n, next.board, next.to_move);
    if (value >= 0)
        assert_int_equal(after, -value);
    else
        assert_int_equal(after, 1);
    checked_perfect++;
}

static void test_circle_round_trips(void **state)
{
    (void)state;
    static const int sizes[] = {3, 4, 5, 7, 12, 16, 20, 33, 48, 64};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        int n = sizes[c];
        for (int game = 0; game < 24; game++) {
            int w = 1 + (int)(rnd() % (uint64_t)(n - 1));
            int b = 1 + (int)(rnd() % (uint64_t)(n - w));
            char text[120];
            snprintf(text, sizeof text, "{\"fields\":%d,\"white\":%d,\"black\":%d}", n, w, b);
            thue_gopt opt;
            opts(text, &opt);
            thue_circle_state s;
            G->start(&opt, rnd(), &s);
            for (int ply = 0; ply < 40 && G->to_move(&opt, &s) >= 0; ply++) {
                check_state(&opt, &s);
                thue_gmove mv[2 * THUE_CIRCLE_FIELDS_MAX], best;
                int cnt = G->legal_moves(&opt, &s, mv), value;
                thue_gerr e;
                /* Half the plies perfect, half random, to see many kinds of boards. */
                thue_gctl ctl = {.nodes_max = PERFECT_NODES};
                if (rnd() % 2 != 0 || G->perfect(&opt, &s, &ctl, &best, &value) != 0)
                    best = mv[rnd() % (uint64_t)cnt];
                assert_int_equal(G->apply(&opt, &s, s.to_move, &best, &e), 0);
            }
        }
    }
    print_message("round trips: %ld states, %ld legal moves, %ld illegal moves, %ld "
                  "perfect moves, %ld refused (boards over 12 fields, %d positions)\n",
                  checked_states, checked_moves, checked_illegal, checked_perfect,
                  checked_refused, PERFECT_NODES);
    assert_true(checked_states > 1000);
}

static void test_circle_position_errors(void **state)
{
    (void)state;
    thue_gopt opt;
    opts("{\"fields\":5}", &opt);
    static const struct {
        const char *text, *field;
    } bad[] = {
        {"[]", ""},
        {"{\"board\":\"W.B..\",\"fields\":6}", "fields"},
        {"{\"fields\":5}", "board"},
        {"{\"board\":\"W.B.\"}", "board"},
        {"{\"board\":\"W.B...\"}", "board"},
        {"{\"board\":\"W.b..\"}", "board"},
        {"{\"board\":\"W....\"}", "board"},
        {"{\"board\":\"..B..\"}", "board"},
        {"{\"board\":5}", "board"},
        {"{\"board\":\"W.B..\",\"to_move\":2}", "to_move"},
        {"{\"board\":\"W.B..\",\"to_move\":-1}", "to_move"},
        {"{\"board\":\"W.B..\",\"moves\":-1}", "moves"},
        {"{\"board\":\"W.B..\",\"turn\":0}", "turn"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = json_loads(bad[i].text, 0, NULL);
        assert_non_null(j);
        thue_circle_state s;
        memset(&s, 0x33, sizeof s);
        thue_circle_state before = s;
        thue_gerr e;
        memset(&e, 0, sizeof e);
        int rc = G->position_parse(&opt, j, &s, &e);
        if (rc != THUE_ESTATE || strcmp(e.field, bad[i].field) != 0)
            print_error("position %s: rc %d field \"%s\" (%s)\n", bad[i].text, rc, e.field, e.msg);
        assert_int_equal(rc, THUE_ESTATE);
        assert_string_equal(e.field, bad[i].field);
        assert_memory_equal(&s, &before, sizeof s);
        json_decref(j);
    }
    /* to_move and moves are optional; fields too. */
    json_t *j = json_loads("{\"board\":\"W.B..\"}", 0, NULL);
    thue_circle_state s;
    thue_gerr e;
    assert_int_equal(G->position_parse(&opt, j, &s, &e), 0);
    assert_int_equal(s.to_move, 0);
    assert_int_equal(s.moves, 0);
    json_decref(j);
    char *t = thue_game_dump(G->state_json(&opt, &s));
    assert_string_equal(t, "{\"fields\":5,\"board\":\"W.B..\",\"to_move\":0,\"moves\":0}");
    free(t);
}

int main(void)
{
    G = thue_game_find("circle");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circle_registry),
        cmocka_unit_test(test_circle_options_defaults),
        cmocka_unit_test(test_circle_options_errors),
        cmocka_unit_test(test_circle_start),
        cmocka_unit_test(test_circle_move_parse_errors),
        cmocka_unit_test(test_circle_field_past_board),
        cmocka_unit_test(test_circle_move_semantics),
        cmocka_unit_test(test_circle_move_wrap_up),
        cmocka_unit_test(test_circle_no_moves_and_cap),
        cmocka_unit_test(test_circle_round_trips),
        cmocka_unit_test(test_circle_position_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
