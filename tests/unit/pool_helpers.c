/*
 * pool_helpers.c: the worker pool tests' shared helpers (pool_helpers.h).
 */
#include "base/rng.h"
#include "pool_helpers.h"

/* ---- helpers ----------------------------------------------------------------------- */

uint64_t rng_next(uint64_t *state)
{
    return thue_splitmix64(state);
}

int rng_below(uint64_t *state, int n)
{
    return (int)(rng_next(state) % (uint64_t)n);
}

/* A clean word from random play: from [0], up to `len` random safe insertions. */
int random_word(uint64_t *rng, int k, thue_variant v, int len, uint8_t *w)
{
    uint64_t map[64];
    int n = 1;
    w[0] = 0;
    while (n < len) {
        assert_int_equal(thue_legal_map(NULL, w, n, k, v, map), 0);
        int total = 0;
        for (int i = 0; i <= n; i++)
            total += __builtin_popcountll(map[i]);
        if (total == 0)
            break;
        int pick = rng_below(rng, total);
        for (int i = 0; i <= n; i++) {
            int c = __builtin_popcountll(map[i]);
            if (pick >= c) {
                pick -= c;
                continue;
            }
            uint64_t m = map[i];
            while (pick-- > 0)
                m &= m - 1;
            memmove(w + i + 1, w + i, (size_t)(n - i));
            w[i] = (uint8_t)__builtin_ctzll(m);
            n++;
            break;
        }
    }
    return n;
}

thue_bot_spec spec_of(const char *text)
{
    thue_bot_spec s;
    char err[128];
    assert_int_equal(thue_bot_spec_parse(text, &s, err, sizeof err), 0);
    return s;
}

thue_position position_of(const uint8_t *w, int n, int k, thue_variant v, thue_role role, int index,
                          int remaining)
{
    thue_position p = {v, k, w, n, role, index, remaining};
    return p;
}

void setup_config(tctx *t, const thue_pool_config *cfg)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(uv_loop_init(&t->loop), 0);
    t->pool = thue_pool_new_config(&t->loop, cfg);
    assert_non_null(t->pool);
}

/* A pool whose searches are never paused within a test (a 10 s slice): the tests of the
 * queue, cancelling and delivery, whose blockers must hold their workers. The time
 * slices have tests of their own. */
void setup(tctx *t, int threads)
{
    thue_pool_config cfg = {.threads = threads, .slice_ms = 10000};
    setup_config(t, &cfg);
}

void on_closed(void *data)
{
    ((tctx *)data)->closed++;
}

void on_closed_int(void *data)
{
    (*(int *)data)++;
}

/* Closes the pool, runs the loop to the end and closes it: nothing may be left. */
void teardown(tctx *t)
{
    thue_pool_close(t->pool, on_closed, t);
    assert_int_equal(t->closed, 0); /* only once the loop has closed the handle */
    assert_int_equal(uv_run(&t->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(t->closed, 1);
    assert_int_equal(uv_loop_close(&t->loop), 0);
    assert_int_equal(t->forbidden, 0);
}


thue_pool_stats stats_of(thue_pool *pool)
{
    thue_pool_stats st;
    thue_pool_stats_get(pool, &st);
    return st;
}

void record_cb(const thue_job_result *res, void *data)
{
    slot *s = data;
    s->calls++;
    s->order = s->t->delivered++;
    s->res = *res;
}

void forbidden_cb(const thue_job_result *res, void *data)
{
    (void)res;
    ((slot *)data)->t->forbidden++;
}

/* The owner of the jobs submitted next (NULL: the shared one). */
const char *next_owner;

/* Submits a job for slot s (position already in s->pos). Returns the submit's code. */
int submit(tctx *t, slot *s, const thue_bot_spec *spec, uint64_t seed, int parts, thue_job_cb cb)
{
    thue_job_request req;
    memset(&req, 0, sizeof req);
    req.owner = next_owner;
    req.spec = *spec;
    req.pos = s->pos;
    req.seed = seed;
    req.parts = parts;
    req.cb = cb;
    req.data = s;
    s->t = t;
    return thue_pool_submit(t->pool, &req, &s->id);
}

slot *new_slot(tctx *t)
{
    assert_true(t->nslots < SLOTS_MAX);
    slot *s = &t->slots[t->nslots++];
    s->t = t;
    return s;
}

/* A job whose result is checked against thue_bot_move's. */
slot *submit_checked(tctx *t, const char *spec_text, const uint8_t *w, int n, int k, thue_variant v,
                     thue_role role, int index, int remaining, uint64_t seed, int parts)
{
    slot *s = new_slot(t);
    memcpy(s->word, w, (size_t)n);
    s->pos = position_of(s->word, n, k, v, role, index, remaining);
    thue_bot_spec spec = spec_of(spec_text);
    thue_bot_limits lim = {.stop = &never_raised};
    assert_int_equal(thue_bot_move(&spec, &s->pos, &lim, seed, &s->want), 0);
    /* Split perfect builders share the smallest value proven so far, so how deep each
     * part goes depends on timing: only their move, value and exactness are fixed. */
    s->want_cost = !(parts > 1 && spec.kind == THUE_BOT_PERFECT);
    assert_int_equal(submit(t, s, &spec, seed, parts, record_cb), 0);
    assert_true(s->id != 0);
    return s;
}

void check_delivered(const slot *s)
{
    assert_int_equal(s->calls, 1);
    assert_true(s->res.id == s->id);
    assert_int_equal(s->res.err, 0);
    assert_int_equal(s->res.bot.move, s->want.move);
    assert_int_equal(s->res.bot.exact, s->want.exact);
    assert_int_equal(s->res.bot.value, s->want.value);
    assert_int_equal(s->res.bot.iterations, s->want.iterations);
    assert_int_equal(s->res.bot.stopped, 0);
    if (s->want_cost) {
        assert_int_equal(s->res.bot.nodes, s->want.nodes);
        assert_int_equal(s->res.bot.depth, s->want.depth);
    }
    assert_true(s->res.queue_ms >= 0 && s->res.run_ms >= 0);
}

/* A job that holds a worker until cancelled. */
slot *submit_blocker(tctx *t)
{
    static const uint8_t zero[1] = {0};
    slot *s = new_slot(t);
    s->pos = position_of(zero, 1, 6, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
    thue_bot_spec spec = spec_of("perfect");
    assert_int_equal(submit(t, s, &spec, 1, 1, forbidden_cb), 0);
    return s;
}

slot *submit_greedy(tctx *t, thue_job_cb cb)
{
    static const uint8_t w[3] = {0, 1, 0};
    slot *s = new_slot(t);
    s->pos = position_of(w, 3, 3, THUE_SQUARE, THUE_ROLE_BUILDER, 0, 0);
    thue_bot_spec spec = spec_of("greedy");
    assert_int_equal(submit(t, s, &spec, 7, 1, cb), 0);
    return s;
}
