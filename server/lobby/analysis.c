/*
 * analysis.c: the analysis view's server side (analysis.h, PROTOCOL.md "Analysis").
 *
 * An analysis is a persistent uct tree (search/guct.h) of one position of any game, the
 * session's only one. It grows in slices: one pool task at a time per analysis, whose
 * pool owner is the session's owner (its account, or a guest's address: the same fair
 * share as its bots), each running at most SLICE_ITERATIONS iterations or SLICE_MS,
 * whichever comes first. Slices are counted in iterations and the tree keeps its
 * random stream, so however the work was sliced, the tree after N iterations is the one
 * `thue bestmove --bot uct:iterations=N` grows for the same position and seed.
 *
 * Bounds (docs/server.md, "Bounded searches"): an owner has at most analyses_per_owner
 * open and an address analyses_per_ip (never every one of max_analyses); the tree is
 * taken from a memory account of the owner's (search/budget.h) and stops growing where
 * it refuses more; an analysis searches analysis_seconds_max of CPU time in all (then it
 * is done); its game must pass lobby_search_allowed, and its position must fit one tree
 * message.
 *
 * The loop thread never searches and never walks the tree: a slice's task, on its worker,
 * also builds the whole analysis_tree message text when one is due (250 ms after the last
 * one plus 1 ms per KB of it, at the end of the budget, or when a stop was asked for),
 * and the loop only sends it. The text is written node by node, polling the limits (the
 * pool may pause it, a close ends it), and holds at most analysis_tree_max_bytes: past
 * that it is built again with fewer nodes (the most visited ones still). While a task is out, the
 * worker owns the tree and the members it writes (seq, text, sent_ns, ran); the loop touches them
 * again only in the task's done callback (the pool's lock orders the two). The loop's requests
 * reach a running slice through two atomics: `stop` (analyze_stop: end the slice and build a
 * stopped tree) and `cancel` (close, session gone, shutdown: end at once; nothing more is sent).
 *
 * thue.v2 (analysis_delta.h): a connection that speaks it gets each update as what changed
 * (analysis_delta), built on the worker as the v1 text is, in parts of at most 64 KiB. The
 * loop sends the parts as the connection takes them (lobby_may_send; the lobby's
 * analysis_timer looks again every PACE_MS while some wait), so that its other messages
 * never queue behind a whole tree. While parts of an update wait, slices go on searching
 * but build no update (the next one would be relative to the one not yet out): an update
 * that fell due then is owed, and built once the parts are out (by the next slice, or by a
 * build-only task when the analysis no longer searches). analyze_sync (under thue.v1 too)
 * makes the next update a whole one, at once when the analysis is not searching.
 *
 * States: running (a slice is out, or about to be), stopped (by analyze_stop), done (the
 * iterations asked for are run). A build-only task (sync, or an owed update) may be out in
 * any state but running; it searches nothing and changes no state. A closed analysis whose
 * slice is still out is unlinked from its session at once and freed when the slice comes
 * back (it holds one of the lobby's handles meanwhile, so the lobby waits for it at
 * shutdown).
 */
#include "analysis.h"

#include <math.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_delta.h"
#include "ids.h"
#include "log.h"
#include "room.h"
#include "roomstate.h"
#include "search/guct.h"
#include "strbuf.h"

#define SLICE_ITERATIONS 4000
#define SLICE_MS 50
#define TREE_EVERY_MS 250
#define ANALYSIS_ITERATIONS_DEFAULT 20000
#define ANALYSIS_PLAYOUT_DEFAULT 100
#define ANALYSIS_NODES_DEFAULT 5000
#define SEED_MAX 9007199254740991ull
/* thue.v2: how often parts that wait for their connection are looked at again. */
#define PACE_MS 5
/* thue.v2: the most bytes a position's JSON may take (a node's entry must fit one part,
 * and its descendants' names grow). */
#define V2_POSITION_MAX (THUE_PROTO_DELTA_BYTES_MAX / 4)

enum { ST_RUNNING = 0, ST_STOPPED = 1, ST_DONE = 2 };

struct analysis {
    thue_lobby *lobby;
    session *s; /* NULL once closed */
    char key[THUE_PROTO_KEY_MAX + 1];
    char owner[THUE_POOL_OWNER_MAX + 1]; /* the pool's owner, and analyses_owned's key */
    char ip[THUE_LIMIT_KEY_MAX];         /* analyses_ip's key */
    thue_mem *mem;                       /* the tree's memory account */
    const thue_gamedef *g;
    thue_gopt opt;
    thue_guct *tree;
    uint64_t target; /* the root's visits to reach (the worker reads it while busy) */
    uint64_t last_budget;  /* the iterations the last analyze or resume asked for */
    uint64_t pending_more; /* resume's iterations while busy, added at the slice's end */
    bool stop_asked;       /* analyze_stop while busy; cleared by resume */
    int max_nodes;
    int status;      /* ST_... as the loop knows it */
    bool busy;       /* a slice's task is out */
    bool counted;    /* closed while busy: holds a lobby handle, out of nanalyses */
    uint64_t job;
    atomic_int stop, cancel;
    bool v2; /* its connection speaks thue.v2: updates are analysis_delta parts */
    /* The task out, as submit set it (the worker reads these). */
    bool task_build_only; /* build the update of the tree as it is; search nothing */
    int task_status;      /* a build-only task's status */
    bool task_may_build;  /* v2: no part of an earlier update waits to be sent */
    bool task_full;       /* an analyze_sync is owed: the update is whole, and due now */
    bool task_force;      /* the update is due now (task_full, or an owed one) */
    unsigned task_syncs;  /* syncs_asked when it was submitted */
    /* The loop's. */
    unsigned syncs_asked, syncs_done;   /* analyze_sync's asked for; served by a whole update */
    bool owed;                          /* v2: an update fell due while parts waited */
    bool resume_deferred, resume_given; /* analyze_resume while a build-only task is out */
    uint64_t resume_n;
    delta_update pend; /* v2: the update being sent; parts from pend_next on wait */
    int pend_next;
    /* Written by the worker while busy. */
    int64_t cpu_ns; /* CPU time its slices searched, in all */
    int64_t seq;
    int64_t sent_ns;    /* when the last tree was built */
    size_t sent_len;    /* its bytes (a big tree waits longer for the next) */
    char *text;         /* v1: the analysis_tree message to send, or NULL */
    delta_state *shown; /* v2: the tree the client has once it applied the last update */
    bool based;         /* v2: an update was built (later ones may be changes) */
    delta_update out;   /* v2: the update the task built */
    int due;            /* the status of the update that fell due, or -1: none */
    bool built;         /* it was built (text or out) */
    int err;
    analysis *prev, *next; /* the lobby's analyses */
};

/* ---- the worker's side ------------------------------------------------------------------ */

/* The analysis_tree's "tree" text, written node by node as the walk shows them (depth-first
 * preorder): a node stays open (its children array) until a node no deeper comes. */
typedef struct builder {
    const analysis *a;
    thue__ctl *ctl;
    thue_strbuf b;
    size_t max; /* bytes the text may have */
    int open;   /* nodes open: those at depths 0..open-1 */
    int hidden[THUE_PROTO_TREE_LEVELS_MAX + 1];
    int kids[THUE_PROTO_TREE_LEVELS_MAX + 1]; /* children written so far, per open node */
    uint32_t shown;
    int over, stopped, oom;
} builder;

static void close_to(builder *b, int depth)
{
    while (b->open > depth) {
        b->open--;
        thue_strbuf_printf(&b->b, "],\"hidden\":%d}", b->hidden[b->open]);
    }
}

/* The bytes a JSON string must escape: the double quote, the backslash and the controls. */
static const char JSON_ESCAPED[] = "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e"
                                   "\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d"
                                   "\x1e\x1f";

/* s as a JSON string (a state's name has no double quote, but may hold anything else):
 * the runs that need no escape in one append each (a Thue word's name is long). */
static void put_string(thue_strbuf *b, const char *s)
{
    thue_strbuf_printf(b, "\"");
    while (*s) {
        size_t run = strcspn(s, JSON_ESCAPED);
        if (run > 0)
            thue_strbuf_printf(b, "%.*s", (int)run, s);
        s += run;
        if (*s == '"' || *s == '\\')
            thue_strbuf_printf(b, "\\%c", *s++);
        else if (*s)
            thue_strbuf_printf(b, "\\u%04x", (unsigned char)*s++);
    }
    thue_strbuf_printf(b, "\"");
}

static int add_node(void *arg, const thue_guct_view *v)
{
    builder *b = arg;
    const analysis *a = b->a;
    if (thue__work(b->ctl, 1)) {
        b->stopped = 1;
        return 1;
    }
    close_to(b, v->depth);
    if (v->depth > 0 && b->kids[v->depth - 1]++ > 0)
        thue_strbuf_printf(&b->b, ",");
    char *move = v->move ? thue_game_dump(a->g->move_json(&a->opt, v->move)) : NULL;
    char *name = thue_guct_name(a->g->state_json(&a->opt, v->state));
    if ((v->move != NULL && move == NULL) || name == NULL) {
        free(move);
        free(name);
        b->oom = 1;
        return 1;
    }
    thue_strbuf_printf(&b->b, "{\"move\":%s,\"name\":", move ? move : "null");
    put_string(&b->b, name);
    free(move);
    free(name);
    /* The mean as jansson writes a real (%.10g, and ".0" when it looks whole). */
    char value[40];
    snprintf(value, sizeof value, "%.10g", v->value);
    if (strpbrk(value, ".e") == NULL)
        strcat(value, ".0");
    thue_strbuf_printf(
        &b->b, ",\"to_move\":%d,\"visits\":%llu,\"ended\":%llu,\"value\":%s,\"children\":[",
        v->to_move, (unsigned long long)v->visits, (unsigned long long)v->ended, value);
    b->hidden[v->depth] = v->hidden;
    b->kids[v->depth] = 0;
    b->open = v->depth + 1;
    b->shown++;
    if (b->b.oom) {
        b->oom = 1;
        return 1;
    }
    /* What is written, and what closing the open nodes will add (each at most
     * "],\"hidden\":2147483647}"). */
    if (b->b.len + (size_t)b->open * 24 > b->max) {
        b->over = 1;
        return 1;
    }
    return 0;
}

/* Room in the message for everything but the tree (its other members: at most a few
 * hundred bytes). */
#define TREE_MESSAGE_OVERHEAD 1024

/*
 * The tree text of at most `want` nodes, or, past the byte bound, of fewer (each try
 * guesses the nodes that fit from the bytes per node of the last). The text (malloc'd)
 * and *shown, or NULL: stopped (ctl), out of memory (a->err set), or not even the root
 * fits (a->err THUE_ETOOBIG).
 */
static char *tree_text(analysis *a, uint32_t want, size_t max, thue__ctl *ctl, uint32_t *shown)
{
    for (int tries = 0; tries < 6; tries++) {
        builder *b = calloc(1, sizeof *b);
        if (b == NULL) {
            a->err = THUE_ENOMEM;
            return NULL;
        }
        b->a = a;
        b->ctl = ctl;
        b->max = max;
        uint32_t n = 0;
        /* At most THUE_PROTO_TREE_LEVELS_MAX levels, so that every decoder of the
         * protocol's limits (codec.h) reads the message. */
        int rc = thue_guct_walk_depth(a->tree, want, THUE_PROTO_TREE_LEVELS_MAX, add_node, b, &n);
        close_to(b, 0);
        char *text = b->b.p;
        int over = b->over, stopped = b->stopped, oom = b->oom || b->b.oom || rc < 0;
        double per_node = b->shown > 0 ? (double)b->b.len / b->shown : (double)max;
        free(b);
        if (!over && !stopped && !oom && text != NULL) {
            *shown = n;
            return text;
        }
        free(text);
        if (stopped)
            return NULL;
        if (oom) {
            a->err = THUE_ENOMEM;
            return NULL;
        }
        if (want == 1)
            break;
        /* Nine tenths of what the bytes per node so far say would fit. */
        double fit = 0.9 * (double)max / per_node;
        want = fit < 1 ? 1 : fit < (double)want ? (uint32_t)fit : want - 1;
    }
    a->err = THUE_ETOOBIG;
    return NULL;
}

/* Builds the analysis_tree message of the tree as it is now into a->text (nothing when
 * ctl says stop). */
static void build_tree(analysis *a, int status, thue__ctl *ctl)
{
    uint32_t shown = 0;
    size_t max = a->lobby->cfg.analysis_tree_max_bytes;
    char *tree =
        tree_text(a, (uint32_t)a->max_nodes,
                  max > TREE_MESSAGE_OVERHEAD ? max - TREE_MESSAGE_OVERHEAD : 1, ctl, &shown);
    if (tree == NULL)
        return;
    thue_msg *m = calloc(1, sizeof *m);
    if (m == NULL) {
        free(tree);
        a->err = THUE_ENOMEM;
        return;
    }
    m->type = THUE_MSG_ANALYSIS_TREE;
    snprintf(m->u.analysis_tree.analysis, sizeof m->u.analysis_tree.analysis, "%s", a->key);
    m->u.analysis_tree.seq = ++a->seq;
    m->u.analysis_tree.status = status;
    m->u.analysis_tree.iterations = (int64_t)thue_guct_iterations(a->tree);
    m->u.analysis_tree.nodes = thue_guct_nodes(a->tree);
    m->u.analysis_tree.shown = (int)shown;
    thue_gmove best;
    if (thue_guct_best(a->tree, &best) == 0) {
        char *bt = thue_game_dump(a->g->move_json(&a->opt, &best));
        if (bt != NULL && strlen(bt) < sizeof m->u.analysis_tree.best) {
            memcpy(m->u.analysis_tree.best, bt, strlen(bt) + 1);
            m->u.analysis_tree.has_best = 1;
        }
        free(bt);
    }
    m->u.analysis_tree.tree = tree;
    free(a->text);
    a->text = thue_msg_encode(m, NULL);
    free(tree);
    free(m);
    if (a->text == NULL) {
        a->err = THUE_ENOMEM;
        return;
    }
    a->built = true;
    a->sent_ns = thue_now_ns();
    a->sent_len = strlen(a->text);
}

/* The best move's JSON into buf (cap bytes), or "" when the position is over. */
static void best_text(const analysis *a, char *buf, size_t cap)
{
    buf[0] = '\0';
    thue_gmove best;
    if (thue_guct_best(a->tree, &best) != 0)
        return;
    char *bt = thue_game_dump(a->g->move_json(&a->opt, &best));
    if (bt != NULL && strlen(bt) < cap)
        memcpy(buf, bt, strlen(bt) + 1);
    free(bt);
}

/* thue.v2: builds the next update into a->out (nothing when ctl says stop): the whole tree
 * when a sync is owed or the client has none yet, else what changed. */
static void build_delta(analysis *a, int status, thue__ctl *ctl)
{
    char best[THUE_PROTO_GMOVE_MAX + 1];
    best_text(a, best, sizeof best);
    size_t max = a->lobby->cfg.analysis_tree_max_bytes;
    delta_source src;
    memset(&src, 0, sizeof src);
    src.tree = a->tree;
    src.g = a->g;
    src.opt = &a->opt;
    src.max_nodes = (uint32_t)a->max_nodes;
    src.max_bytes = max > TREE_MESSAGE_OVERHEAD ? max - TREE_MESSAGE_OVERHEAD : 1;
    src.key = a->key;
    src.seq = a->seq + 1;
    src.status = status;
    src.best = best[0] != '\0' ? best : NULL;
    int rc = delta_build(a->shown, &src, a->task_full || !a->based, ctl, &a->out);
    if (rc == 1)
        return;
    if (rc != 0) {
        a->err = rc;
        return;
    }
    a->seq++;
    a->based = true;
    a->built = true;
    a->sent_ns = thue_now_ns();
    a->sent_len = a->out.bytes;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One slice, on a worker (or a build-only task: the update of the tree as it is). */
static int slice_run(void *data, const thue_bot_limits *lim)
{
    analysis *a = data;
    a->err = 0;
    a->due = -1;
    a->built = false;
    free(a->text);
    a->text = NULL;
    thue_bot_limits mine = *lim;
    mine.stop = &a->cancel;
    mine.mem = a->mem;
    if (a->task_build_only) {
        if (atomic_load(&a->cancel) || (lim->stop != NULL && atomic_load(lim->stop)))
            return 0;
        a->due = a->task_status;
        thue__ctl ctl;
        thue__ctl_init(&ctl, &mine, 0);
        if (a->v2)
            build_delta(a, a->task_status, &ctl);
        else
            build_tree(a, a->task_status, &ctl);
        return a->err;
    }
    int64_t cpu0 = thread_cpu_ns();
    int64_t cpu_max = (int64_t)a->lobby->cfg.analysis_seconds_max * 1000000000;
    /* The search polls the analysis's cancel flag (close, session gone, shutdown) and the
     * pool's pause hook, and takes its tree from the analysis's memory account. */
    uint64_t have = thue_guct_iterations(a->tree);
    uint64_t n = a->target > have ? a->target - have : 0;
    if (n > SLICE_ITERATIONS)
        n = SLICE_ITERATIONS;
    if (n > 0 && a->cpu_ns < cpu_max && !atomic_load(&a->stop) && !atomic_load(&a->cancel)) {
        /* A slice ends within SLICE_MS, and within what is left of the CPU budget. */
        int64_t left = cpu_max - a->cpu_ns, slice = (int64_t)SLICE_MS * 1000000;
        thue__ctl ctl;
        thue__ctl_init(&ctl, &mine, thue_now_ns() + (left < slice ? left : slice));
        int err = thue_guct_run(a->tree, n, &ctl, NULL);
        if (err != 0) {
            a->err = err;
            a->cpu_ns += thread_cpu_ns() - cpu0;
            return err;
        }
    }
    a->cpu_ns += thread_cpu_ns() - cpu0;
    if (atomic_load(&a->cancel) || (lim->stop != NULL && atomic_load(lim->stop)))
        return 0;
    int status = ST_RUNNING;
    thue_gmove m;
    if (thue_guct_iterations(a->tree) >= a->target || a->cpu_ns >= cpu_max ||
        thue_guct_best(a->tree, &m) == THUE_EOVER)
        status = ST_DONE;
    else if (atomic_load(&a->stop))
        status = ST_STOPPED;
    /* Every 250 ms, plus 1 ms per KB of the last tree (under thue.v2, of the last update),
     * so that a client is not flooded by big trees: about 1 MB a second at most. (Under
     * thue.v2 no update is built before the last one's parts are all out either, so a
     * slow link gets them at the pace it reads.) */
    int64_t every = (int64_t)TREE_EVERY_MS * 1000000 + (int64_t)a->sent_len * 1000;
    if (a->task_force || status != ST_RUNNING || a->sent_ns == 0 ||
        thue_now_ns() - a->sent_ns >= every) {
        a->due = status;
        if (!a->task_may_build) /* v2: parts of the last update still wait */
            return 0;
        /* Building the text polls the cancel flag and may be paused, but has no deadline:
         * its size is bounded instead. */
        thue__ctl ctl;
        thue__ctl_init(&ctl, &mine, 0);
        if (a->v2)
            build_delta(a, status, &ctl);
        else
            build_tree(a, status, &ctl);
    }
    return a->err;
}

/* ---- the loop's side ------------------------------------------------------------------- */

/* The analysis no longer counts as open: against the server's, its owner's and its
 * address's limits. */
static void uncount(analysis *a)
{
    thue_lobby *l = a->lobby;
    l->nanalyses--;
    l->metrics->analyses = l->nanalyses;
    thue_counts_add(l->analyses_owned, a->owner, -1);
    thue_counts_add(l->analyses_ip, a->ip, -1);
}

static void analysis_free(analysis *a)
{
    thue_lobby *l = a->lobby;
    if (a->prev)
        a->prev->next = a->next;
    else
        l->analyses = a->next;
    if (a->next)
        a->next->prev = a->prev;
    if (!a->counted)
        uncount(a);
    thue_guct_free(a->tree);
    thue_mem_close(a->mem); /* after the tree, which gave back what it took */
    free(a->text);
    delta_state_free(a->shown);
    delta_update_free(&a->out);
    delta_update_free(&a->pend);
    free(a);
}

static void slice_done(uint64_t id, int err, void *data);
static bool submit(analysis *a, bool build_only);

static bool parts_wait(const analysis *a)
{
    return a->pend_next < a->pend.nparts;
}

/* An analysis that searches no more (or waited for its parts to go): a build-only task
 * for the update it owes or a sync asked for, once no part waits. */
static void after_idle(analysis *a)
{
    /* (A running analysis's next slice builds them.) */
    if (!a->busy && a->status != ST_RUNNING && a->s != NULL && !a->lobby->stopping &&
        !parts_wait(a) && (a->owed || a->syncs_asked != a->syncs_done))
        submit(a, true);
}

static void pace_start(thue_lobby *l);

/* thue.v2: sends the waiting parts that the connection takes now; the rest wait for the
 * pacing timer. The last one out lets an owed update or a sync be built. */
static void pump(analysis *a)
{
    thue_lobby *l = a->lobby;
    thue_client *c = a->s != NULL ? a->s->client : NULL;
    while (parts_wait(a)) {
        char *p = a->pend.parts[a->pend_next];
        if (c != NULL && !lobby_may_send(l, c, strlen(p))) {
            pace_start(l);
            return;
        }
        lobby_send_text(l, c, p);
        free(p);
        a->pend.parts[a->pend_next++] = NULL;
    }
    delta_update_free(&a->pend);
    a->pend_next = 0;
    after_idle(a);
}

static void pace_tick(uv_timer_t *t)
{
    thue_lobby *l = t->data;
    bool waiting = false;
    for (analysis *a = l->analyses; a; a = a->next) {
        if (a->s != NULL && parts_wait(a)) {
            pump(a);
            waiting = waiting || parts_wait(a);
        }
    }
    if (!waiting) {
        uv_timer_stop(t);
        l->analysis_timer_on = false;
    }
}

static void pace_start(thue_lobby *l)
{
    if (l->analysis_timer_on || l->stopping)
        return;
    l->analysis_timer_on = true;
    uv_timer_start(&l->analysis_timer, pace_tick, PACE_MS, PACE_MS);
}

/* Sends the next slice (or, build_only, the task that builds the update of the tree as it
 * is) out; false when the pool refuses it (a slice: the analysis stopped). */
static bool submit(analysis *a, bool build_only)
{
    a->task_build_only = build_only;
    a->task_status = a->status;
    a->task_may_build = !parts_wait(a);
    a->task_syncs = a->syncs_asked;
    a->task_full = a->syncs_asked != a->syncs_done;
    a->task_force = a->task_full || a->owed;
    thue_pool_task t;
    memset(&t, 0, sizeof t);
    t.run = slice_run;
    t.done = slice_done;
    t.owner = a->owner;
    t.data = a;
    int err = thue_pool_submit_task(a->lobby->pool, &t, &a->job);
    if (err != 0) {
        thue_log(THUE_LOG_WARN, "analysis %s: the pool refused a slice (%s)", a->key,
                 thue_strerror(err));
        if (!build_only)
            a->status = ST_STOPPED;
        return false;
    }
    a->busy = true;
    if (!build_only)
        a->status = ST_RUNNING;
    return true;
}

static void resume_now(analysis *a, bool given, uint64_t n);

static void slice_done(uint64_t id, int err, void *data)
{
    (void)id;
    analysis *a = data;
    thue_lobby *l = a->lobby;
    a->busy = false;
    a->job = 0;
    if (a->s == NULL) { /* closed meanwhile */
        bool counted = a->counted;
        analysis_free(a);
        if (counted) {
            l->handles--;
            l->maybe_closed(l);
        }
        return;
    }
    uint64_t have = thue_guct_iterations(a->tree);
    if (a->pending_more > 0) {
        a->target += a->pending_more;
        a->pending_more = 0;
        if (a->target > (uint64_t)l->cfg.analysis_iterations_max)
            a->target = (uint64_t)l->cfg.analysis_iterations_max;
    }
    /* The update the task built goes out; one that fell due but waited for parts is owed.
     * `sent` is the status of the update due (as though it had been sent). Everything the
     * worker wrote is read before pump, which may send the next (build-only) task out. */
    int sent = ST_RUNNING;
    bool build_only = a->task_build_only, parts = false;
    if (a->built) {
        if (a->task_full)
            a->syncs_done = a->task_syncs;
        a->owed = false;
        sent = a->due;
        if (a->v2) {
            delta_update_free(&a->pend);
            a->pend = a->out;
            a->pend_next = 0;
            memset(&a->out, 0, sizeof a->out);
            parts = true;
        } else {
            lobby_send_text(l, a->s->client, a->text);
        }
        free(a->text);
        a->text = NULL;
    } else if (a->due >= 0 && !a->task_may_build) {
        a->owed = true;
        sent = a->due;
    }
    if (parts)
        pump(a); /* a running analysis's slice is not out yet: nothing is submitted here */
    if (build_only) {
        /* Nothing searched and no state changed; a resume that came meanwhile starts now
         * (or once the build-only task pump sent out, if it did, is back). */
        if (err != 0)
            thue_log(THUE_LOG_WARN, "analysis %s: building its tree failed (%s)", a->key,
                     thue_strerror(err));
        if (a->busy)
            return;
        a->stop_asked = false;
        atomic_store(&a->stop, 0);
        if (a->resume_deferred && !l->stopping) {
            a->resume_deferred = false;
            resume_now(a, a->resume_given, a->resume_n);
        } else if (err == 0) {
            after_idle(a);
        }
        return;
    }
    if (err != 0) {
        thue_log(THUE_LOG_WARN, "analysis %s: a slice failed (%s); stopped", a->key,
                 thue_strerror(err));
        a->status = ST_STOPPED;
        a->stop_asked = false;
        atomic_store(&a->stop, 0);
        return;
    }
    if (a->stop_asked && sent == ST_STOPPED) {
        a->status = ST_STOPPED;
        a->stop_asked = false;
        atomic_store(&a->stop, 0);
        after_idle(a);
        return;
    }
    if (sent == ST_DONE &&
        (have >= a->target || a->cpu_ns >= (int64_t)l->cfg.analysis_seconds_max * 1000000000)) {
        /* Its iterations or its CPU time are spent (a stop that came too late: the done
         * tree was the last). */
        a->status = ST_DONE;
        a->stop_asked = false;
        atomic_store(&a->stop, 0);
        after_idle(a);
        return;
    }
    if (sent == ST_DONE && have < a->target) {
        thue_gmove m;
        if (thue_guct_best(a->tree, &m) == THUE_EOVER) {
            a->status = ST_DONE;
            after_idle(a);
            return;
        }
    }
    if (l->stopping)
        return;
    /* The next slice; a stop asked for after this slice looked makes the next one build
     * the stopped tree without searching. */
    submit(a, false);
}

/* Unlinks a from its session and frees it, or, with a slice out, lets the slice's done
 * free it. */
static void analysis_close(analysis *a)
{
    if (a->s != NULL && a->s->analysis == a)
        a->s->analysis = NULL;
    a->s = NULL;
    if (!a->busy) {
        analysis_free(a);
        return;
    }
    atomic_store(&a->cancel, 1);
    if (!a->counted) {
        /* It no longer counts as open (a replacement may start at once), but holds a
         * handle of the lobby's until its slice is back. */
        a->counted = true;
        a->lobby->handles++;
        uncount(a);
    }
}

void analysis_session_gone(session *s)
{
    if (s->analysis != NULL)
        analysis_close(s->analysis);
}

void analysis_client_replaced(session *s)
{
    if (s->analysis != NULL && s->analysis->v2)
        analysis_close(s->analysis);
}

void analysis_shutdown(thue_lobby *l)
{
    for (analysis *a = l->analyses, *next; a; a = next) {
        next = a->next;
        analysis_close(a);
    }
}

/* ---- the commands ---------------------------------------------------------------------- */

static bool in_room(const room *r, const session *s)
{
    if (room_seat_of(r, s) >= 0)
        return true;
    for (int i = 0; i < r->nspect; i++)
        if (r->spect[i] == s)
            return true;
    return false;
}

/* Sets the request's field and sentence (printf-style) and gives the code. */
#define FAIL(rq, code, fld, ...)                                                                   \
    (snprintf((rq)->field, sizeof(rq)->field, "%s", (fld)),                                        \
     snprintf((rq)->message, sizeof(rq)->message, __VA_ARGS__), (code))

int cmd_analyze(request *rq)
{
    thue_client *c = rq->c;
    thue_lobby *l = c->lobby;
    session *s = c->s;
    const __typeof__(rq->cmd->u.analyze) *q = &rq->cmd->u.analyze;
    const thue_gamedef *g = NULL;
    thue_gopt opt;
    unsigned char *st = NULL;
    size_t sz = 0;
    if (q->has_room) {
        room *r = room_find(l, q->room);
        if (r == NULL || (r->invite[0] != '\0' && !in_room(r, s)))
            return FAIL(rq, THUE_PERR_NO_ROOM, "room", "there is no room %s", q->room);
        if (!r->has_match)
            return FAIL(rq, THUE_PERR_NOT_RUNNING, "room",
                        "room %s has no match yet: nothing to analyse", q->room);
        if (room_match_running(r) && room_seat_of(r, s) >= 0)
            return FAIL(rq, THUE_PERR_NOT_ALLOWED, "room",
                        "players may analyse once the match is over (%s is still running; a "
                        "position can always be typed in with game and position)",
                        q->room);
        g = r->game;
        opt = r->gopt;
        sz = r->gsize;
        st = malloc(sz ? sz : 1);
        if (st == NULL)
            return THUE_PERR_INTERNAL;
        memcpy(st, r->gstate, sz);
    } else {
        g = thue_game_find(q->game);
        if (g == NULL)
            return FAIL(rq, THUE_EGAME, "game", "there is no game \"%s\"", q->game);
        thue_gerr e;
        memset(&e, 0, sizeof e);
        if (thue_game_options_text(g, q->has_game_options ? q->game_options : NULL, &opt, &e) != 0)
            return request_gerr(rq, "game_options", &e);
        sz = g->state_size(&opt);
        int perr = request_position(rq, g, &opt, q->has_position ? q->position : NULL, &st);
        if (perr != 0)
            return perr;
    }
    /* The parameters, within the server's limits. */
    int iterations = q->has_iterations ? q->iterations : ANALYSIS_ITERATIONS_DEFAULT;
    if ((uint64_t)iterations > (uint64_t)l->cfg.analysis_iterations_max) {
        free(st);
        snprintf(rq->field, sizeof rq->field, "iterations");
        snprintf(rq->message, sizeof rq->message,
                 "this server runs at most %d iterations per analysis",
                 l->cfg.analysis_iterations_max);
        return THUE_PERR_MESSAGE;
    }
    thue_guct_params p;
    memset(&p, 0, sizeof p);
    p.playout_limit = q->has_playout ? q->playout : ANALYSIS_PLAYOUT_DEFAULT;
    p.c = q->has_c ? q->c : sqrt(2.0);
    p.seed = q->has_seed ? (uint64_t)q->seed : (lobby_random(l) & SEED_MAX);
    p.nodes_max = (uint32_t)l->cfg.analysis_tree_nodes;
    /* The game must be small enough to search, its position fit one tree message. */
    if (lobby_search_allowed(l, g, &opt, rq->message, sizeof rq->message) != 0) {
        free(st);
        snprintf(rq->field, sizeof rq->field, q->has_room ? "room" : "game_options");
        return THUE_EOPTIONS;
    }
    char *root = thue_game_dump(g->state_json(&opt, st));
    size_t root_len = root != NULL ? strlen(root) : 0;
    free(root);
    if (2 * root_len + TREE_MESSAGE_OVERHEAD > l->cfg.analysis_tree_max_bytes) {
        free(st);
        snprintf(rq->field, sizeof rq->field, q->has_room ? "room" : "position");
        snprintf(rq->message, sizeof rq->message,
                 "the position is %zu bytes of JSON: too big for one analysis_tree message on "
                 "this server (%zu KiB, --analysis-tree-max-kib)",
                 root_len, l->cfg.analysis_tree_max_bytes >> 10);
        return THUE_ESTATE;
    }
    if (c->proto == 2 && root_len > V2_POSITION_MAX) {
        free(st);
        snprintf(rq->field, sizeof rq->field, q->has_room ? "room" : "position");
        snprintf(rq->message, sizeof rq->message,
                 "the position is %zu bytes of JSON: under thue.v2 an analysed position has "
                 "at most %d, so that each node fits one analysis_delta message",
                 root_len, V2_POSITION_MAX);
        return THUE_ESTATE;
    }
    /* The server's limits, the session's own analysis (which this one replaces) not
     * counted: in all, per owner, per address (which never holds every one). */
    char owner[THUE_LIMIT_KEY_MAX], ip[THUE_LIMIT_KEY_MAX];
    lobby_owner_of(s, c->peer, owner, sizeof owner);
    lobby_ip_of(s, c->peer, ip, sizeof ip);
    const analysis *old = s->analysis;
    long mine =
        thue_counts_get(l->analyses_owned, owner) - (old != NULL && strcmp(old->owner, owner) == 0);
    long here = thue_counts_get(l->analyses_ip, ip) - (old != NULL && strcmp(old->ip, ip) == 0);
    int per_ip = l->cfg.analyses_per_ip; /* below max_analyses (thue_lobby_new) */
    if (l->nanalyses - (old != NULL ? 1 : 0) >= l->cfg.max_analyses) {
        free(st);
        snprintf(rq->message, sizeof rq->message,
                 "the server runs %d analyses, its most; try again later", l->nanalyses);
        return THUE_PERR_BUSY;
    }
    if (mine >= l->cfg.analyses_per_owner || here >= per_ip) {
        free(st);
        if (mine >= l->cfg.analyses_per_owner)
            snprintf(rq->message, sizeof rq->message,
                     "%s may have %d analyses open at once, and has: close one "
                     "(analyze_close) first",
                     s->acct ? "one account" : "the guests of one address",
                     l->cfg.analyses_per_owner);
        else
            snprintf(rq->message, sizeof rq->message,
                     "one address may have %d analyses open at once, accounts included, and "
                     "has: close one (analyze_close) first",
                     per_ip);
        return THUE_PERR_NOT_ALLOWED;
    }
    if (s->analysis != NULL)
        analysis_close(s->analysis);
    analysis *a = calloc(1, sizeof *a);
    if (a == NULL) {
        free(st);
        return THUE_PERR_INTERNAL;
    }
    a->lobby = l;
    a->g = g;
    a->opt = opt;
    atomic_init(&a->stop, 0);
    atomic_init(&a->cancel, 0);
    /* The pool's owner is the session's (its bots' fair share); the tree is taken from a
     * memory account of that owner's. */
    snprintf(a->owner, sizeof a->owner, "%s", owner);
    snprintf(a->ip, sizeof a->ip, "%s", ip);
    a->mem = thue_mem_open(thue_pool_mem(l->pool), owner);
    p.mem = a->mem;
    int terr = 0;
    if ((thue_pool_mem(l->pool) != NULL && a->mem == NULL) ||
        (c->proto == 2 && (a->shown = delta_state_new()) == NULL) ||
        lobby_random_key(a->key + 1, LOBBY_ID_CHARS, LOBBY_ID_ALPHABET) != 0 ||
        (terr = thue_guct_new(g, &a->opt, st, &p, &a->tree)) != 0) {
        free(st);
        thue_guct_free(a->tree);
        thue_mem_close(a->mem);
        delta_state_free(a->shown);
        free(a);
        if (terr == THUE_ETOOBIG) {
            snprintf(rq->message, sizeof rq->message,
                     "the memory this server gives searches is taken (yours, or everyone's); "
                     "close an analysis or try again later");
            return THUE_PERR_BUSY;
        }
        return THUE_PERR_INTERNAL;
    }
    a->key[0] = 'a';
    a->v2 = c->proto == 2;
    a->target = (uint64_t)iterations;
    a->last_budget = (uint64_t)iterations;
    a->max_nodes = q->has_max_nodes ? q->max_nodes : ANALYSIS_NODES_DEFAULT;
    a->s = s;
    s->analysis = a;
    a->next = l->analyses;
    if (l->analyses)
        l->analyses->prev = a;
    l->analyses = a;
    l->nanalyses++;
    l->metrics->analyses = l->nanalyses;
    l->metrics->analyses_total++;
    thue_counts_add(l->analyses_owned, a->owner, 1);
    thue_counts_add(l->analyses_ip, a->ip, 1);

    thue_msg *m = calloc(1, sizeof *m);
    if (m == NULL) {
        free(st);
        analysis_close(a);
        return THUE_PERR_INTERNAL;
    }
    m->type = THUE_MSG_ANALYSIS_STARTED;
    m->id = rq->cmd->id;
    snprintf(m->u.analysis_started.analysis, sizeof m->u.analysis_started.analysis, "%s", a->key);
    snprintf(m->u.analysis_started.game, sizeof m->u.analysis_started.game, "%s", g->name);
    room_json_into(g->options_json(&a->opt), m->u.analysis_started.game_options,
                   sizeof m->u.analysis_started.game_options);
    room_json_into(g->state_json(&a->opt, st), m->u.analysis_started.position,
                   sizeof m->u.analysis_started.position);
    m->u.analysis_started.iterations = iterations;
    m->u.analysis_started.playout = p.playout_limit;
    m->u.analysis_started.c = p.c;
    m->u.analysis_started.seed = (int64_t)p.seed;
    m->u.analysis_started.max_nodes = a->max_nodes;
    lobby_send_client_msg(l, c, m);
    free(m);
    free(st);
    thue_log(THUE_LOG_INFO, "analysis %s of %s for %s: %d iterations, seed %llu", a->key, g->name,
             s->player.name, iterations, (unsigned long long)p.seed);
    submit(a, false);
    return 0;
}

/* The session's analysis of that key, or NULL with the error set. */
static analysis *find(request *rq)
{
    session *s = rq->c->s;
    const char *key = rq->cmd->u.analysis.analysis;
    if (s->analysis != NULL && strcmp(s->analysis->key, key) == 0)
        return s->analysis;
    snprintf(rq->field, sizeof rq->field, "analysis");
    snprintf(rq->message, sizeof rq->message, "you have no analysis %s", key);
    return NULL;
}

int cmd_analyze_stop(request *rq)
{
    analysis *a = find(rq);
    if (a == NULL)
        return THUE_PERR_NOT_FOUND;
    request_ok(rq);
    if (a->busy && !a->task_build_only) {
        /* The slice's end (or the next one's, at once) builds the stopped tree. */
        a->stop_asked = true;
        atomic_store(&a->stop, 1);
    }
    a->resume_deferred = false; /* a resume waiting for a build-only task: not searching */
    return 0;
}

/* analyze_resume's work once no slice is out: n more iterations (given), or what was left
 * of the budget, or the last budget again. */
static void resume_now(analysis *a, bool given, uint64_t n)
{
    thue_lobby *l = a->lobby;
    uint64_t have = thue_guct_iterations(a->tree);
    uint64_t max = (uint64_t)l->cfg.analysis_iterations_max;
    uint64_t more = given ? n : a->target > have ? a->target - have : a->last_budget;
    if (given || a->target <= have)
        a->last_budget = more;
    a->target = have + more > max ? max : have + more;
    if (!l->stopping)
        submit(a, false);
}

int cmd_analyze_resume(request *rq)
{
    analysis *a = find(rq);
    if (a == NULL)
        return THUE_PERR_NOT_FOUND;
    thue_lobby *l = rq->c->lobby;
    uint64_t have = thue_guct_iterations(a->tree);
    uint64_t max = (uint64_t)l->cfg.analysis_iterations_max;
    bool given = rq->cmd->u.analysis.has_iterations;
    uint64_t n = given ? (uint64_t)rq->cmd->u.analysis.iterations : 0;
    if (have >= max) {
        snprintf(rq->field, sizeof rq->field, "analysis");
        snprintf(rq->message, sizeof rq->message,
                 "this analysis has run %llu iterations, the server's most per analysis",
                 (unsigned long long)have);
        return THUE_PERR_NOT_ALLOWED;
    }
    /* cpu_ns is the worker's while a slice is out (a build-only task leaves it): read it
     * only between slices. */
    if ((!a->busy || a->task_build_only) &&
        a->cpu_ns >= (int64_t)l->cfg.analysis_seconds_max * 1000000000) {
        snprintf(rq->field, sizeof rq->field, "analysis");
        snprintf(rq->message, sizeof rq->message,
                 "this analysis has searched for %d s, the server's most per analysis "
                 "(--analysis-seconds-max)",
                 l->cfg.analysis_seconds_max);
        return THUE_PERR_NOT_ALLOWED;
    }
    request_ok(rq);
    if (a->busy && a->task_build_only) {
        /* Not searching, but a task builds its tree: the search starts when it is back. */
        a->resume_deferred = true;
        a->resume_given = given;
        a->resume_n = n;
        return 0;
    }
    if (a->busy) {
        /* Still searching (perhaps towards a stop): it goes on, n more if given. */
        a->pending_more += n;
        if (given)
            a->last_budget = n;
        a->stop_asked = false;
        atomic_store(&a->stop, 0);
        return 0;
    }
    resume_now(a, given, n);
    return 0;
}

int cmd_analyze_sync(request *rq)
{
    analysis *a = find(rq);
    if (a == NULL)
        return THUE_PERR_NOT_FOUND;
    request_ok(rq);
    /* The next update is whole: at once when nothing searches and no part waits, else at
     * the next slice's end or once the parts are out. */
    a->syncs_asked++;
    after_idle(a);
    return 0;
}

int cmd_analyze_close(request *rq)
{
    analysis *a = find(rq);
    if (a == NULL)
        return THUE_PERR_NOT_FOUND;
    request_ok(rq);
    analysis_close(a);
    return 0;
}
