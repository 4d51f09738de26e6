/*
 * analysis_delta.c: thue.v2's analysis_delta updates (analysis_delta.h; PROTOCOL.md section
 * 16, "Under thue.v2").
 *
 * A build walks the shown tree once (thue_guct_walk_depth, depth-first preorder), looking
 * each node up by id in the state (sorted by id: a binary search). A node not there (or
 * every node, for a full update) is written as an add entry, which needs its move's and
 * state's JSON; a node there whose visits, ended, mean or hidden children differ is
 * written as a set entry; an unchanged node costs the lookup only. The new state, sorted,
 * is merged with the old one for the ids that left (gone). The entries are then dealt into
 * parts in the order gone, add, set, each part as full as the bound allows; since an add
 * entry comes after its parent's in preorder, a client may link nodes as they come.
 *
 * The state remembers, per node, the bytes of its add entry (with the figures last sent),
 * so the full form's size, which bounds the shown tree as analysis_tree's text bounds
 * its own, is known without writing the entries of unchanged nodes. A walk that passes
 * the bound is made again with fewer nodes, as analysis.c does for analysis_tree.
 *
 * Every text is the codec's canonical form (codec.h), which test_lobby_analysis_delta
 * checks by decoding and encoding each part again.
 */
#include "analysis_delta.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "protocol/codec.h"
#include "protocol/codec_internal.h"

#define PART_MAX ((size_t)THUE_PROTO_DELTA_BYTES_MAX)
/* A part's lists, empty: what every part has beside its header and entries. */
static const char LISTS[] = "\"gone\":[],\"add\":[],\"set\":[]}";

/* One node of a state. */
typedef struct node_rec {
    uint32_t id;
    uint32_t fixed; /* bytes of its add entry but the figures */
    uint32_t bytes; /* bytes of its add entry with the figures last sent */
    int32_t hidden;
    uint64_t visits, ended;
    double value; /* the mean as the tree had it (a change of it is sent) */
} node_rec;

struct delta_state {
    node_rec *v; /* sorted by id */
    uint32_t n;
};

delta_state *delta_state_new(void)
{
    return calloc(1, sizeof(delta_state));
}

void delta_state_free(delta_state *d)
{
    if (d == NULL)
        return;
    free(d->v);
    free(d);
}

uint32_t delta_state_shown(const delta_state *d)
{
    return d->n;
}

void delta_update_free(delta_update *u)
{
    if (u == NULL)
        return;
    for (int i = 0; i < u->nparts; i++)
        free(u->parts[i]);
    free(u->parts);
    memset(u, 0, sizeof *u);
}

/* ---- text ------------------------------------------------------------------------------ */

/* The codec's growing buffer: an allocation failure sets oom and drops later writes. */
typedef thue__buf buf;

static void put(buf *b, const char *s, size_t n)
{
    thue__buf_put(b, s, n);
}

static void puts_(buf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) putf(buf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) /* only numbers and short keys come here */
        b->oom = 1;
    else
        put(b, tmp, (size_t)n);
}

/* s as a JSON string, escaped as the codec and JSON.stringify escape it. */
static void put_string(buf *b, const char *s)
{
    thue__buf_json_str(b, s, strlen(s));
}

size_t delta_value_text(double v, char *out)
{
    if (!(v > 0)) {
        strcpy(out, "0");
        return 1;
    }
    /* The 10 significant digits of "%.10g" (the same rounding), then JavaScript's layout
     * of the shortest form: no other decimal of at most 15 digits reads back as the same
     * double, so these digits without their trailing zeros are the shortest. */
    char e[32];
    snprintf(e, sizeof e, "%.9e", v); /* d.ddddddddde[+-]XX */
    char digits[10];
    digits[0] = e[0];
    memcpy(digits + 1, e + 2, 9);
    int k = 10;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    int n = atoi(e + 12) + 1; /* v = 0.digits * 10^n */
    return thue__js_layout(digits, k, n, out);
}

static size_t digits_u64(uint64_t x)
{
    size_t n = 1;
    while (x >= 10) {
        x /= 10;
        n++;
    }
    return n;
}

/* Bytes of an add entry's figures: "visits":V,"ended":E,"value":X,"hidden":H} */
static size_t figures_len(uint64_t visits, uint64_t ended, size_t value_len, int32_t hidden)
{
    return strlen("\"visits\":,\"ended\":,\"value\":,\"hidden\":}") + digits_u64(visits) +
           digits_u64(ended) + value_len + digits_u64((uint64_t)hidden);
}

/* ---- the walk ---------------------------------------------------------------------------- */

/* p (an array of *cap elements of size bytes, n in use) with room for one more: doubled,
 * from first. NULL when memory ran out (p is as it was). */
static void *room_for_one(void *p, uint32_t *cap, uint32_t n, size_t size, uint32_t first)
{
    if (n < *cap)
        return p;
    uint32_t c = *cap ? 2 * *cap : first;
    void *grown = realloc(p, (size_t)c * size);
    if (grown != NULL)
        *cap = c;
    return grown;
}

/* Entries written back to back, and where each ends. */
typedef struct list {
    buf text;
    size_t *end;
    uint32_t n, cap;
    int oom;
} list;

static void list_mark(list *l)
{
    size_t *e = room_for_one(l->end, &l->cap, l->n, sizeof *e, 256);
    if (e == NULL) {
        l->oom = 1;
        return;
    }
    l->end = e;
    l->end[l->n++] = l->text.len;
}

static void list_free(list *l)
{
    free(l->text.p);
    free(l->end);
    memset(l, 0, sizeof *l);
}

static const char *entry(const list *l, uint32_t i, size_t *len)
{
    size_t from = i > 0 ? l->end[i - 1] : 0;
    *len = l->end[i] - from;
    return l->text.p + from;
}

typedef struct walker {
    const delta_state *prev;
    bool full;
    const delta_source *src;
    thue__ctl *ctl;
    size_t entry_max; /* the most one entry may take (a part with that entry alone) */
    uint32_t ids[THUE_PROTO_TREE_LEVELS_MAX + 1];
    node_rec *cur; /* the nodes shown, in preorder */
    uint32_t ncur, capcur;
    list add, set;
    size_t full_bytes; /* the add entries of all the nodes shown, with their commas */
    int over, stopped, oom, toobig;
} walker;

static const node_rec *find(const delta_state *d, uint32_t id)
{
    uint32_t lo = 0, hi = d->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->v[mid].id < id)
            lo = mid + 1;
        else if (d->v[mid].id > id)
            hi = mid;
        else
            return &d->v[mid];
    }
    return NULL;
}

/* The add entry of v into w->add; its fixed bytes in *fixed. 0, or -1 (w's flags set). */
static int write_add(walker *w, const thue_guct_view *v, uint32_t parent, const char *value,
                     uint32_t *fixed)
{
    const delta_source *src = w->src;
    char *move = v->move ? thue_game_dump(src->g->move_json(src->opt, v->move)) : NULL;
    char *name = thue_guct_name(src->g->state_json(src->opt, v->state));
    if ((v->move != NULL && move == NULL) || name == NULL) {
        free(move);
        free(name);
        w->oom = 1;
        return -1;
    }
    buf *b = &w->add.text;
    size_t start = b->len;
    putf(b, "{\"id\":%u,\"parent\":", v->node);
    if (v->depth > 0)
        putf(b, "%u", parent);
    else
        puts_(b, "null");
    puts_(b, ",\"move\":");
    puts_(b, move != NULL ? move : "null");
    puts_(b, ",\"name\":");
    put_string(b, name);
    putf(b, ",\"to_move\":%d,", v->to_move);
    free(move);
    free(name);
    size_t fixed_len = b->len - start;
    putf(b, "\"visits\":%llu,\"ended\":%llu,\"value\":", (unsigned long long)v->visits,
         (unsigned long long)v->ended);
    puts_(b, value);
    putf(b, ",\"hidden\":%d}", v->hidden);
    list_mark(&w->add);
    if (b->oom || w->add.oom) {
        w->oom = 1;
        return -1;
    }
    if (b->len - start > w->entry_max) {
        w->toobig = 1;
        return -1;
    }
    *fixed = (uint32_t)fixed_len;
    return 0;
}

static int visit(void *arg, const thue_guct_view *v)
{
    walker *w = arg;
    if (w->ctl != NULL && thue__work(w->ctl, 1)) {
        w->stopped = 1;
        return 1;
    }
    w->ids[v->depth] = v->node;
    uint32_t parent = v->depth > 0 ? w->ids[v->depth - 1] : 0;
    node_rec *c = room_for_one(w->cur, &w->capcur, w->ncur, sizeof *c, 1024);
    if (c == NULL) {
        w->oom = 1;
        return 1;
    }
    w->cur = c;
    node_rec *r = &w->cur[w->ncur];
    r->id = v->node;
    r->visits = v->visits;
    r->ended = v->ended;
    r->value = v->value;
    r->hidden = v->hidden;
    const node_rec *old = w->full ? NULL : find(w->prev, v->node);
    char value[32];
    if (old == NULL) {
        size_t vlen = delta_value_text(v->value, value);
        if (write_add(w, v, parent, value, &r->fixed) != 0)
            return 1;
        r->bytes = r->fixed + (uint32_t)figures_len(v->visits, v->ended, vlen, v->hidden);
    } else if (old->visits != v->visits || old->ended != v->ended || old->value != v->value ||
               old->hidden != v->hidden) {
        size_t vlen = delta_value_text(v->value, value);
        buf *b = &w->set.text;
        putf(b, "[%u,%llu,%llu,", v->node, (unsigned long long)v->visits,
             (unsigned long long)v->ended);
        puts_(b, value);
        putf(b, ",%d]", v->hidden);
        list_mark(&w->set);
        if (b->oom || w->set.oom) {
            w->oom = 1;
            return 1;
        }
        r->fixed = old->fixed;
        r->bytes = r->fixed + (uint32_t)figures_len(v->visits, v->ended, vlen, v->hidden);
    } else {
        r->fixed = old->fixed;
        r->bytes = old->bytes;
    }
    w->full_bytes += r->bytes + (w->ncur > 0);
    w->ncur++;
    if (w->full_bytes > w->src->max_bytes) {
        w->over = 1;
        return 1;
    }
    return 0;
}

/* ---- the parts --------------------------------------------------------------------------- */

static void header(buf *b, const delta_source *src, int part, bool last, bool full, uint32_t shown)
{
    static const char *const status[] = {"running", "stopped", "done"};
    puts_(b, "{\"type\":\"analysis_delta\",\"analysis\":");
    put_string(b, src->key);
    putf(b, ",\"seq\":%lld,\"part\":%d,\"last\":%s,\"full\":%s,\"status\":\"%s\"",
         (long long)src->seq, part, last ? "true" : "false", full ? "true" : "false",
         status[src->status >= 0 && src->status <= 2 ? src->status : 0]);
    putf(b, ",\"iterations\":%llu,\"nodes\":%u,\"shown\":%u,\"best\":",
         (unsigned long long)thue_guct_iterations(src->tree), thue_guct_nodes(src->tree), shown);
    puts_(b, src->best != NULL ? src->best : "null");
    puts_(b, ",");
}

/* Deals entries into part bodies ("gone":[...],"add":[...],"set":[...]}). */
typedef struct packer {
    size_t room; /* the most a body may take */
    buf lists[3];
    uint32_t count[3];
    size_t len; /* the current body's bytes, its lists' scaffolding included */
    buf *bodies;
    int nbodies;
    uint32_t cap;
    int oom;
} packer;

static void pack_flush(packer *k)
{
    buf *b = room_for_one(k->bodies, &k->cap, (uint32_t)k->nbodies, sizeof *b, 8);
    if (b == NULL) {
        k->oom = 1;
        return;
    }
    k->bodies = b;
    buf *body = &k->bodies[k->nbodies++];
    memset(body, 0, sizeof *body);
    static const char *const open[3] = {"\"gone\":[", "],\"add\":[", "],\"set\":["};
    for (int i = 0; i < 3; i++) {
        puts_(body, open[i]);
        if (k->lists[i].len > 0)
            put(body, k->lists[i].p, k->lists[i].len);
        k->lists[i].len = 0;
        k->count[i] = 0;
    }
    puts_(body, "]}");
    k->oom |= body->oom;
    k->len = sizeof LISTS - 1;
}

static void pack(packer *k, int which, const char *text, size_t len)
{
    size_t need = len + (k->count[which] > 0);
    if (k->len + need > k->room && k->len > sizeof LISTS - 1) {
        pack_flush(k);
        need = len;
    }
    buf *l = &k->lists[which];
    if (k->count[which] > 0)
        put(l, ",", 1);
    put(l, text, len);
    k->count[which]++;
    k->len += need;
    k->oom |= l->oom;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const node_rec *)a)->id, y = ((const node_rec *)b)->id;
    return x < y ? -1 : x > y;
}

/* The parts of the walk's entries, and the ids of d that w no longer shows (sorted is w's
 * nodes by id). 0 or THUE_ENOMEM. */
static int make_parts(const delta_state *d, const walker *w, const node_rec *sorted, bool full,
                      size_t header_max, delta_update *out)
{
    packer k;
    memset(&k, 0, sizeof k);
    k.room = PART_MAX - header_max;
    k.len = sizeof LISTS - 1;
    if (!full) {
        uint32_t j = 0;
        for (uint32_t i = 0; i < d->n; i++) {
            while (j < w->ncur && sorted[j].id < d->v[i].id)
                j++;
            if (j < w->ncur && sorted[j].id == d->v[i].id)
                continue;
            char id[16];
            int n = snprintf(id, sizeof id, "%u", d->v[i].id);
            pack(&k, 0, id, (size_t)n);
        }
    }
    for (int which = 1; which <= 2; which++) {
        const list *l = which == 1 ? &w->add : &w->set;
        for (uint32_t i = 0; i < l->n; i++) {
            size_t len;
            const char *e = entry(l, i, &len);
            pack(&k, which, e, len);
        }
    }
    pack_flush(&k);
    for (int i = 0; i < 3; i++)
        free(k.lists[i].p);
    int rc = k.oom ? THUE_ENOMEM : 0;
    if (rc == 0) {
        out->parts = calloc((size_t)k.nbodies, sizeof *out->parts);
        if (out->parts == NULL)
            rc = THUE_ENOMEM;
    }
    for (int i = 0; rc == 0 && i < k.nbodies; i++) {
        buf part;
        memset(&part, 0, sizeof part);
        header(&part, w->src, i + 1, i == k.nbodies - 1, full, w->ncur);
        put(&part, k.bodies[i].p, k.bodies[i].len);
        if (part.oom) {
            free(part.p);
            rc = THUE_ENOMEM;
            break;
        }
        out->parts[out->nparts++] = part.p;
        out->bytes += part.len;
    }
    for (int i = 0; i < k.nbodies; i++)
        free(k.bodies[i].p);
    free(k.bodies);
    if (rc != 0)
        delta_update_free(out);
    return rc;
}

int delta_build(delta_state *d, const delta_source *src, bool full, thue__ctl *ctl,
                delta_update *out)
{
    memset(out, 0, sizeof *out);
    /* The longest header any part of this update can have (the most digits of a part's
     * number, "false"): what is left of a part's bound is its body's. */
    buf h;
    memset(&h, 0, sizeof h);
    header(&h, src, 2147483647, false, full, THUE_PROTO_ANALYSIS_NODES_MAX);
    size_t header_max = h.len;
    int hoom = h.oom;
    free(h.p);
    if (hoom)
        return THUE_ENOMEM;
    if (header_max + sizeof LISTS >= PART_MAX)
        return THUE_ETOOBIG;
    uint32_t want = src->max_nodes;
    for (int tries = 0; tries < 6; tries++) {
        walker w;
        memset(&w, 0, sizeof w);
        w.prev = d;
        w.full = full;
        w.src = src;
        w.ctl = ctl;
        w.entry_max = PART_MAX - header_max - (sizeof LISTS - 1);
        uint32_t n = 0;
        int rc = thue_guct_walk_depth(src->tree, want, THUE_PROTO_TREE_LEVELS_MAX, visit, &w, &n);
        int over = w.over, stopped = w.stopped, oom = w.oom || (rc < 0 && !stopped);
        int toobig = w.toobig;
        if (!over && !stopped && !oom && !toobig) {
            /* The new state: the nodes shown, by id. */
            node_rec *sorted = malloc((size_t)(w.ncur ? w.ncur : 1) * sizeof *sorted);
            int err = sorted == NULL ? THUE_ENOMEM : 0;
            if (err == 0) {
                memcpy(sorted, w.cur, (size_t)w.ncur * sizeof *sorted);
                qsort(sorted, w.ncur, sizeof *sorted, by_id);
                err = make_parts(d, &w, sorted, full, header_max, out);
            }
            if (err == 0) {
                out->shown = w.ncur;
                free(d->v);
                d->v = sorted;
                d->n = w.ncur;
            } else {
                free(sorted);
            }
            free(w.cur);
            list_free(&w.add);
            list_free(&w.set);
            return err;
        }
        double per_node = w.ncur > 0 ? (double)w.full_bytes / w.ncur : (double)src->max_bytes;
        free(w.cur);
        list_free(&w.add);
        list_free(&w.set);
        if (stopped)
            return 1;
        if (oom)
            return THUE_ENOMEM;
        if (toobig || want == 1)
            return THUE_ETOOBIG;
        /* Nine tenths of what the bytes per node so far say would fit (as for
         * analysis_tree). */
        double fit = 0.9 * (double)src->max_bytes / per_node;
        want = fit < 1 ? 1 : fit < (double)want ? (uint32_t)fit : want - 1;
    }
    return THUE_ETOOBIG;
}
