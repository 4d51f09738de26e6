/*
 * nodes.c: the lobby's side of several nodes (nodes.h). A request whose answer waits for
 * Redis is a `wait` on the lobby's list: the callback finds it there with its client, or
 * with the client NULL when the connection went meanwhile (nodes_client_gone), and then
 * only frees it. Nothing here keeps a pointer to a session or a room across a callback.
 */
#include "nodes.h"
#include "session.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "log.h"

typedef struct node_wait {
    thue_lobby *l;
    thue_client *c; /* NULL once the connection is gone */
    thue_msg_id id;
    bool hello;
    bool tournament;  /* room holds a tournament's id */
    bool retried;     /* the directory was asked a second time (room_found) */
    uv_timer_t timer; /* the wait before that second time */
    char room[THUE_PROTO_KEY_MAX + 1];
    char node[THUE_CLUSTER_NODE_MAX]; /* the session's node, while its liveness is asked */
    char token[THUE_PROTO_RESUME_LEN + 1]; /* a hello's resume token; a hand-off's */
    struct node_wait *prev, *next;
} node_wait;

bool nodes_up(const thue_lobby *l)
{
    return l->cluster != NULL && thue_cluster_up(l->cluster);
}

const char *nodes_self(const thue_lobby *l)
{
    return l->cluster != NULL ? thue_cluster_node_name(l->cluster) : "";
}

void nodes_id_added(thue_lobby *l, const char *id)
{
    if (l->cluster != NULL && thue_cluster_room_add(l->cluster, id) != 0)
        thue_log(THUE_LOG_WARN, "cluster: %s is not in the directory (out of memory)", id);
}

void nodes_id_gone(thue_lobby *l, const char *id)
{
    if (l->cluster != NULL)
        (void)thue_cluster_room_remove(l->cluster, id);
}

void nodes_room_added(thue_lobby *l, const room *r)
{
    nodes_id_added(l, r->id);
    nodes_load_changed(l);
}

void nodes_room_gone(thue_lobby *l, const room *r)
{
    nodes_id_gone(l, r->id);
    nodes_load_changed(l);
}

/* A session's record lives as long as a session may: a day past its grace period, unless
 * the session ends first (its record is deleted then), or its node dies (a lookup checks
 * that the node lives). */
static unsigned session_ttl_ms(const thue_lobby *l)
{
    return (unsigned)(l->cfg.grace_s + 86400) * 1000u;
}

void nodes_session_token(thue_lobby *l, const session *s, const char *old)
{
    if (l->cluster == NULL)
        return;
    if (old != NULL && old[0] != '\0')
        (void)thue_cluster_session_delete(l->cluster, old, NULL, NULL);
    thue_cluster_session rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.node, sizeof rec.node, "%s", nodes_self(l));
    snprintf(rec.name, sizeof rec.name, "%s", s->player.name);
    rec.account = s->acct != NULL ? s->acct->id : 0;
    (void)thue_cluster_session_put(l->cluster, s->resume, &rec, session_ttl_ms(l), NULL, NULL);
}

void nodes_session_gone(thue_lobby *l, const session *s)
{
    nodes_session_token_gone(l, s->resume);
}

void nodes_session_token_gone(thue_lobby *l, const char *token)
{
    if (l->cluster != NULL)
        (void)thue_cluster_session_delete(l->cluster, token, NULL, NULL);
}

/* ---- waiting requests ------------------------------------------------------------------- */

static node_wait *wait_new(request *rq)
{
    thue_lobby *l = rq->c->lobby;
    node_wait *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->l = l;
    w->c = rq->c;
    w->id = rq->cmd->id;
    w->next = l->waits;
    if (l->waits)
        l->waits->prev = w;
    l->waits = w;
    return w;
}

static void wait_free(node_wait *w)
{
    thue_lobby *l = w->l;
    if (w->prev)
        w->prev->next = w->next;
    else
        l->waits = w->next;
    if (w->next)
        w->next->prev = w->prev;
    free(w);
}

void nodes_client_gone(thue_lobby *l, thue_client *c)
{
    for (node_wait *w = l->waits; w; w = w->next)
        if (w->c == c)
            w->c = NULL;
}

bool nodes_hello_pending(const thue_lobby *l, const thue_client *c)
{
    for (const node_wait *w = l->waits; w; w = w->next)
        if (w->c == c && w->hello)
            return true;
    return false;
}

void nodes_close(thue_lobby *l)
{
    for (node_wait *w = l->waits; w; w = w->next)
        w->c = NULL;
}

static void path_of(const char *node, char *out, size_t size)
{
    snprintf(out, size, "/n/%s/ws", node);
}

static void send_moved(thue_lobby *l, thue_client *c, const thue_msg_id *id, const char *reason,
                       const char *node, const char *room_id, const char *tour_id,
                       const char *resume)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_MOVED;
    if (id != NULL)
        msg.id = *id;
    snprintf(msg.u.moved.reason, sizeof msg.u.moved.reason, "%s", reason);
    snprintf(msg.u.moved.node, sizeof msg.u.moved.node, "%s", node);
    path_of(node, msg.u.moved.path, sizeof msg.u.moved.path);
    if (room_id != NULL) {
        msg.u.moved.has_room = 1;
        snprintf(msg.u.moved.room, sizeof msg.u.moved.room, "%s", room_id);
    }
    if (tour_id != NULL) {
        msg.u.moved.has_tournament = 1;
        snprintf(msg.u.moved.tournament, sizeof msg.u.moved.tournament, "%s", tour_id);
    }
    if (resume != NULL) {
        msg.u.moved.has_resume = 1;
        snprintf(msg.u.moved.resume, sizeof msg.u.moved.resume, "%s", resume);
    }
    if (strcmp(reason, "room") == 0)
        snprintf(msg.u.moved.message, sizeof msg.u.moved.message,
                 "room %s is on node %s: connect to %s, resume, and ask again", room_id, node,
                 msg.u.moved.path);
    else if (strcmp(reason, "session") == 0)
        snprintf(msg.u.moved.message, sizeof msg.u.moved.message,
                 "this session lives on node %s: connect to %s and resume there", node,
                 msg.u.moved.path);
    else if (strcmp(reason, "tournament") == 0)
        snprintf(msg.u.moved.message, sizeof msg.u.moved.message,
                 "tournament %s is directed from node %s: connect to %s, log in, and ask again",
                 tour_id, node, msg.u.moved.path);
    else
        snprintf(msg.u.moved.message, sizeof msg.u.moved.message,
                 "your match is on node %s: connect to %s and say hello with the resume token "
                 "given here",
                 node, msg.u.moved.path);
    lobby_send_client_msg(l, c, &msg);
}

void nodes_send_moved(thue_lobby *l, thue_client *c, const thue_msg_id *id, const char *reason,
                      const char *node, const char *room_id, const char *resume)
{
    send_moved(l, c, id, reason, node, room_id, NULL, resume);
}

static int no_tournament_now(request *rq)
{
    snprintf(rq->field, sizeof rq->field, "tournament");
    return THUE_PERR_NO_TOURNAMENT;
}

static int no_room_now(request *rq)
{
    snprintf(rq->field, sizeof rq->field, "room");
    snprintf(rq->message, sizeof rq->message,
             "no room has that id (a private room also needs its invite code)");
    return THUE_PERR_NO_ROOM;
}

static void room_found(void *data, int status, const char *node);

/* The second look's wait is over (its timer closed): the directory is asked again, unless
 * the client or the cluster has gone meanwhile. */
static void retry_closed(uv_handle_t *h)
{
    node_wait *w = h->data;
    thue_lobby *l = w->l;
    l->handles--;
    if (w->c != NULL && !l->stopping && nodes_up(l) &&
        thue_cluster_room_lookup(l->cluster, w->room, room_found, w) == 0)
        return;
    room_found(w, THUE_CLUSTER_EDOWN, NULL);
    l->maybe_closed(l); /* (the lobby may be closing: it waited for this handle) */
}

static void retry_due(uv_timer_t *t)
{
    uv_close((uv_handle_t *)t, retry_closed);
}

/* moved to w->node for the room or tournament w asked for, with resume (or NULL). */
static void moved_found(node_wait *w, const char *resume)
{
    if (w->tournament)
        send_moved(w->l, w->c, &w->id, "tournament", w->node, NULL, w->room, resume);
    else
        send_moved(w->l, w->c, &w->id, "room", w->node, w->room, NULL, resume);
}

static void handoff_put(void *data, int status)
{
    node_wait *w = data;
    if (w->c != NULL && !w->c->closing && !w->l->stopping)
        moved_found(w, status == 0 ? w->token : NULL);
    wait_free(w);
}

/*
 * A guest sent to another node for a room or a tournament (moved) takes its name along:
 * names are unique across the nodes, so a fresh hello there with the same name would be
 * name_taken while the session here lives. The guest's `moved` carries a resume token
 * for which Redis holds a hand-off (a session record of that node, the guest's name,
 * `handoff`, for the grace period): that node makes the guest's session at the first
 * hello with it (session_found). 0 when the hand-off was sent (handoff_put sends moved);
 * -1 for an account's session (its token logs in there) or when it cannot be made.
 */
static int handoff(node_wait *w)
{
    thue_lobby *l = w->l;
    session *s = w->c->s;
    if (s == NULL || s->acct != NULL || lobby_random_token(w->token) != 0)
        return -1;
    thue_cluster_session rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.node, sizeof rec.node, "%s", w->node);
    snprintf(rec.name, sizeof rec.name, "%s", s->player.name);
    rec.handoff = true;
    return thue_cluster_session_put(l->cluster, w->token, &rec, (unsigned)l->cfg.grace_s * 1000u + 1000u,
                                    handoff_put, w) == 0
               ? 0
               : -1;
}

static void room_found(void *data, int status, const char *node)
{
    node_wait *w = data;
    thue_lobby *l = w->l;
    /* A room made a moment ago on another node may not be in the directory yet (its
     * node's write and this read race in Redis): one more look, 250 ms later. */
    if (status == 0 && node == NULL && !w->retried && w->c != NULL && !l->stopping) {
        w->retried = true;
        uv_timer_init(l->loop, &w->timer);
        w->timer.data = w;
        l->handles++;
        uv_timer_start(&w->timer, retry_due, 250, 0);
        return;
    }
    if (w->c != NULL && !w->c->closing) {
        if (status == 0 && node != NULL && strcmp(node, nodes_self(l)) != 0) {
            snprintf(w->node, sizeof w->node, "%s", node);
            if (handoff(w) == 0)
                return; /* (moved goes out once the hand-off is in Redis) */
            moved_found(w, NULL);
        } else {
            request rq;
            memset(&rq, 0, sizeof rq);
            int code = w->tournament ? no_tournament_now(&rq) : no_room_now(&rq);
            lobby_send_error(l, w->c, &w->id, code, rq.field, rq.message[0] ? rq.message : NULL);
        }
    }
    wait_free(w);
}

static int find_id(request *rq, const char *id, bool is_tournament)
{
    thue_lobby *l = rq->c->lobby;
    int (*none)(request *) = is_tournament ? no_tournament_now : no_room_now;
    if (!nodes_up(l))
        return none(rq);
    node_wait *w = wait_new(rq);
    if (w == NULL)
        return none(rq);
    w->tournament = is_tournament;
    snprintf(w->room, sizeof w->room, "%s", id);
    if (thue_cluster_room_lookup(l->cluster, id, room_found, w) != 0) {
        wait_free(w);
        return none(rq);
    }
    return LOBBY_LATER;
}

int nodes_find_room(request *rq, const char *room_id)
{
    return find_id(rq, room_id, false);
}

int nodes_find_tournament(request *rq, const char *id)
{
    return find_id(rq, id, true);
}

static int bad_resume_now(request *rq)
{
    snprintf(rq->field, sizeof rq->field, "resume");
    return THUE_PERR_RESUME;
}

static void answer_bad_resume(node_wait *w)
{
    if (w->c != NULL && !w->c->closing) {
        request rq;
        memset(&rq, 0, sizeof rq);
        int code = bad_resume_now(&rq);
        lobby_send_error(w->l, w->c, &w->id, code, rq.field, NULL);
    }
}

/* The session's node is known: moved when it lives (its heartbeat is fresh). */
static void session_node_alive(void *data, int status, const thue_cluster_node *nodes, size_t n)
{
    node_wait *w = data;
    bool alive = false;
    for (size_t i = 0; status == 0 && i < n; i++)
        if (strcmp(nodes[i].name, w->node) == 0)
            alive = true;
    if (!alive)
        answer_bad_resume(w);
    else if (w->c != NULL && !w->c->closing)
        nodes_send_moved(w->l, w->c, &w->id, "session", w->node, NULL, NULL);
    wait_free(w);
}

static void session_found(void *data, int status, const thue_cluster_session *s)
{
    node_wait *w = data;
    thue_lobby *l = w->l;
    if (w->c != NULL && !w->c->closing && status == 0 && s != NULL && s->handoff &&
        s->account == 0 && strcmp(s->node, nodes_self(l)) == 0) {
        /* A guest that another node sent here: its session here. */
        int err = l->session_handoff(w->c, &w->id, s->name, w->token);
        if (err)
            lobby_send_error(l, w->c, &w->id, err, NULL, NULL);
        wait_free(w);
        return;
    }
    if (w->c == NULL || status != 0 || s == NULL || strcmp(s->node, nodes_self(l)) == 0) {
        /* (a record of this node whose session is gone here: it ended) */
        answer_bad_resume(w);
        wait_free(w);
        return;
    }
    snprintf(w->node, sizeof w->node, "%s", s->node);
    if (thue_cluster_nodes(l->cluster, session_node_alive, w) != 0) {
        answer_bad_resume(w);
        wait_free(w);
    }
}

int nodes_find_session(request *rq, const char *token)
{
    thue_lobby *l = rq->c->lobby;
    if (!nodes_up(l))
        return bad_resume_now(rq);
    node_wait *w = wait_new(rq);
    if (w == NULL)
        return bad_resume_now(rq);
    w->hello = true;
    snprintf(w->token, sizeof w->token, "%s", token);
    if (thue_cluster_session_get(l->cluster, token, session_found, w) != 0) {
        wait_free(w);
        return bad_resume_now(rq);
    }
    return LOBBY_LATER;
}

/* ---- events to other nodes ------------------------------------------------------------ */

static void send_event(thue_lobby *l, const char *node, json_t *event)
{
    if (event == NULL)
        return;
    if (nodes_up(l)) {
        char *text = json_dumps(event, JSON_COMPACT);
        if (text != NULL) {
            int r = node != NULL
                        ? thue_cluster_send(l->cluster, node, text, strlen(text), NULL, NULL)
                        : thue_cluster_broadcast(l->cluster, text, strlen(text), NULL, NULL);
            if (r != 0)
                thue_log(THUE_LOG_WARN, "cluster: an event was not sent (%d)", r);
            free(text);
        }
    }
    json_decref(event);
}

void nodes_broadcast(thue_lobby *l, json_t *event)
{
    send_event(l, NULL, event);
}

void nodes_send(thue_lobby *l, const char *node, json_t *event)
{
    send_event(l, node, event);
}

typedef struct kept_event {
    char *text;
    struct kept_event *next;
} kept_event;

static void kept_drop_oldest(thue_lobby *l)
{
    kept_event *k = l->kept;
    l->kept = k->next;
    if (l->kept == NULL)
        l->kept_tail = NULL;
    free(k->text);
    free(k);
    l->nkept--;
}

void nodes_broadcast_kept(thue_lobby *l, json_t *event)
{
    if (event == NULL)
        return;
    if (l->cluster == NULL || (nodes_up(l) && l->kept == NULL)) {
        send_event(l, NULL, event);
        return;
    }
    /* Redis is down, or kept events wait: this one goes after them, in order. */
    kept_event *k = calloc(1, sizeof *k);
    char *text = json_dumps(event, JSON_COMPACT);
    json_decref(event);
    if (k == NULL || text == NULL) {
        free(k);
        free(text);
        return;
    }
    k->text = text;
    if (l->kept_tail != NULL)
        l->kept_tail->next = k;
    else
        l->kept = k;
    l->kept_tail = k;
    if (++l->nkept > NODES_KEPT_MAX) {
        kept_drop_oldest(l);
        if (!l->kept_overflowed)
            thue_log(THUE_LOG_WARN,
                     "cluster: more than %d events wait for Redis: the oldest "
                     "are dropped (the other nodes see them after a restart)",
                     NODES_KEPT_MAX);
        l->kept_overflowed = true;
    }
}

void nodes_up_again(thue_lobby *l)
{
    l->kept_flush_ms = uv_now(l->loop) + NODES_FLUSH_MS;
}

void nodes_tick(thue_lobby *l)
{
    if (l->kept == NULL || !nodes_up(l) || uv_now(l->loop) < l->kept_flush_ms)
        return;
    int sent = 0;
    while (l->kept != NULL) {
        const char *text = l->kept->text;
        if (thue_cluster_broadcast(l->cluster, text, strlen(text), NULL, NULL) != 0)
            break;
        kept_drop_oldest(l);
        sent++;
    }
    l->kept_overflowed = false;
    thue_log(THUE_LOG_INFO, "cluster: %d events kept while Redis was away sent", sent);
}

void nodes_load_changed(thue_lobby *l)
{
    if (l->cluster == NULL)
        return;
    thue_cluster_set_load(l->cluster, l->nrooms, (long)l->metrics->connections);
}

void nodes_set_draining(thue_lobby *l)
{
    if (l->cluster != NULL) {
        thue_cluster_set_draining(l->cluster, true);
        thue_cluster_heartbeat_now(l->cluster);
    }
}

/* ---- the lobby across nodes ----------------------------------------------------------- */

#define ROOMS_RESEND_MS 3000 /* an unchanged list is sent again this often */
#define ROOMS_KEEP_MS 7000   /* another node's list is shown this long after its last */

/* The two lists a node tells the others: its public rooms and its tournaments. */
enum { LIST_ROOMS = 0, LIST_TOURNAMENTS = 1 };
static const char *const list_event[2] = {"rooms", "tournaments"};
static const thue_msg_type list_type[2] = {THUE_MSG_ROOMS, THUE_MSG_TOURNAMENTS};

struct node_rooms {
    char node[THUE_CLUSTER_NODE_MAX];
    thue_msg msg[2]; /* the decoded lists (each owns its array; type 0 until one came) */
    uint64_t at_ms[2];
    struct node_rooms *next;
};

static void publish(thue_lobby *l, int which, const char *text)
{
    if (!nodes_up(l) || text == NULL)
        return;
    uint64_t now = uv_now(l->loop);
    if (l->list_sent[which] != NULL && strcmp(l->list_sent[which], text) == 0 &&
        now - l->list_sent_ms[which] < ROOMS_RESEND_MS)
        return;
    char head[40];
    int hn = snprintf(head, sizeof head, "{\"t\":\"%s\",\"list\":", list_event[which]);
    size_t n = strlen(text);
    char *payload = malloc((size_t)hn + n + 2);
    char *copy = strdup(text);
    if (payload == NULL || copy == NULL) {
        free(payload);
        free(copy);
        return;
    }
    memcpy(payload, head, (size_t)hn);
    memcpy(payload + hn, text, n);
    memcpy(payload + hn + n, "}", 2);
    if (thue_cluster_broadcast(l->cluster, payload, (size_t)hn + n + 1, NULL, NULL) == 0) {
        free(l->list_sent[which]);
        l->list_sent[which] = copy;
        l->list_sent_ms[which] = now;
    } else {
        free(copy);
    }
    free(payload);
}

void nodes_rooms_publish(thue_lobby *l, const char *rooms_text)
{
    publish(l, LIST_ROOMS, rooms_text);
}

void nodes_tournaments_publish(thue_lobby *l, const char *text)
{
    publish(l, LIST_TOURNAMENTS, text);
}

void nodes_rooms_event(thue_lobby *l, const char *from, json_t *ev)
{
    const char *t = json_string_value(json_object_get(ev, "t"));
    int which = t != NULL && strcmp(t, "tournaments") == 0 ? LIST_TOURNAMENTS : LIST_ROOMS;
    json_t *list = json_object_get(ev, "list");
    char *text = list != NULL ? json_dumps(list, JSON_COMPACT) : NULL;
    if (text == NULL)
        return;
    thue_msg msg;
    thue_decode_error derr;
    int bad = thue_msg_decode(text, strlen(text), &msg, &derr);
    free(text);
    if (bad || msg.type != list_type[which]) {
        if (!bad)
            thue_msg_clear(&msg);
        thue_log(THUE_LOG_WARN, "cluster: node %s sent a %s list that is not one", from,
                 list_event[which]);
        return;
    }
    node_rooms *nr = l->remote_rooms;
    while (nr != NULL && strcmp(nr->node, from) != 0)
        nr = nr->next;
    if (nr == NULL) {
        nr = calloc(1, sizeof *nr);
        if (nr == NULL) {
            thue_msg_clear(&msg);
            return;
        }
        snprintf(nr->node, sizeof nr->node, "%s", from);
        nr->next = l->remote_rooms;
        l->remote_rooms = nr;
    } else {
        thue_msg_clear(&nr->msg[which]);
    }
    nr->msg[which] = msg;
    nr->at_ms[which] = uv_now(l->loop);
}

static bool shown(thue_lobby *l, const node_rooms *nr, int which)
{
    return nr->msg[which].type == list_type[which] &&
           uv_now(l->loop) - nr->at_ms[which] <= ROOMS_KEEP_MS &&
           strcmp(nr->node, nodes_self(l)) != 0;
}

void nodes_each_remote_room(thue_lobby *l, nodes_room_fn *fn, void *ctx)
{
    for (node_rooms *nr = l->remote_rooms; nr; nr = nr->next)
        if (shown(l, nr, LIST_ROOMS))
            for (int i = 0; i < nr->msg[LIST_ROOMS].u.rooms.nrooms; i++)
                fn(ctx, &nr->msg[LIST_ROOMS].u.rooms.rooms[i]);
}

void nodes_each_remote_tournament(thue_lobby *l, nodes_tournament_fn *fn, void *ctx)
{
    for (node_rooms *nr = l->remote_rooms; nr; nr = nr->next)
        if (shown(l, nr, LIST_TOURNAMENTS))
            for (int i = 0; i < nr->msg[LIST_TOURNAMENTS].u.tournaments.count; i++)
                fn(ctx, &nr->msg[LIST_TOURNAMENTS].u.tournaments.list[i]);
}

long nodes_remote_room_count(thue_lobby *l)
{
    long n = 0;
    for (node_rooms *nr = l->remote_rooms; nr; nr = nr->next)
        if (shown(l, nr, LIST_ROOMS))
            n += nr->msg[LIST_ROOMS].u.rooms.nrooms;
    return n;
}

void nodes_free(thue_lobby *l)
{
    while (l->remote_rooms != NULL) {
        node_rooms *nr = l->remote_rooms;
        l->remote_rooms = nr->next;
        thue_msg_clear(&nr->msg[0]);
        thue_msg_clear(&nr->msg[1]);
        free(nr);
    }
    for (int i = 0; i < 2; i++) {
        free(l->list_sent[i]);
        l->list_sent[i] = NULL;
    }
    thue_counts_free(l->limit_blocks);
    l->limit_blocks = NULL;
    while (l->kept != NULL)
        kept_drop_oldest(l);
}

/* ---- limits across the nodes ---------------------------------------------------------- */

typedef struct limit_take {
    thue_lobby *l;
    char key[THUE_CLUSTER_TEXT_MAX];
} limit_take;

static void limit_key(const char *kind, const char *key, char *out, size_t size)
{
    snprintf(out, size, "%s:%s", kind, key);
}

bool nodes_limit_blocked(thue_lobby *l, const char *kind, const char *key, uint64_t *retry_ms)
{
    if (l->limit_blocks == NULL)
        return false;
    char k[THUE_CLUSTER_TEXT_MAX];
    limit_key(kind, key, k, sizeof k);
    long until = thue_counts_get(l->limit_blocks, k);
    if (until == 0)
        return false;
    long now = (long)uv_now(l->loop);
    if (until <= now) {
        thue_counts_add(l->limit_blocks, k, -until); /* gone at 0 */
        return false;
    }
    if (retry_ms != NULL)
        *retry_ms = (uint64_t)(until - now);
    return true;
}

static void limit_taken(void *data, int status, bool allowed, uint64_t retry_ms)
{
    limit_take *t = data;
    thue_lobby *l = t->l;
    if (status == 0 && !allowed && l->limit_blocks != NULL) {
        long until = (long)(uv_now(l->loop) + (retry_ms > 0 ? retry_ms : 1));
        long had = thue_counts_get(l->limit_blocks, t->key);
        if (until > had)
            thue_counts_add(l->limit_blocks, t->key, until - had);
    }
    free(t);
}

void nodes_limit_take(thue_lobby *l, const char *kind, const char *key, double rate, double burst)
{
    if (!nodes_up(l))
        return;
    if (l->limit_blocks == NULL && (l->limit_blocks = thue_counts_new()) == NULL)
        return;
    limit_take *t = calloc(1, sizeof *t);
    if (t == NULL)
        return;
    t->l = l;
    limit_key(kind, key, t->key, sizeof t->key);
    if (thue_cluster_limit_take(l->cluster, t->key, rate, burst, limit_taken, t) != 0)
        free(t);
}

/* ---- the gate: a shared limit decided by Redis before the message is run ---------------- */

enum { GATE_LIMIT, GATE_NAME, GATE_BOTS };

struct gate {
    thue_lobby *l;
    thue_client *c; /* NULL once the connection is gone */
    char *text;     /* the message, run again with the verdict */
    size_t len;
    int kind;         /* GATE_... */
    lobby_verdicts v; /* what the message had, and this gate's verdict once it is in */
    char key[THUE_CLUSTER_TEXT_MAX]; /* GATE_NAME: the name key claimed */
};

struct held_msg {
    char *text;
    size_t len;
    struct held_msg *next;
};

static void gate_verdict(void *data, int status, bool allowed, uint64_t retry_ms)
{
    struct gate *g = data;
    thue_lobby *l = g->l;
    thue_client *c = g->c;
    /* Redis down: this node decides alone (its own bucket, its own names), as without a
     * cluster. */
    int verdict = status != 0 ? 2 : allowed ? 1 : -1;
    if (g->kind == GATE_LIMIT) {
        g->v.limit = verdict;
        g->v.limit_retry_ms = retry_ms;
    } else if (g->kind == GATE_NAME) {
        g->v.name = verdict;
    } else {
        g->v.bots = verdict;
        g->v.bots_which = verdict == -1 ? (int)retry_ms : 0;
    }
    if (c != NULL && !l->stopping) {
        c->gate = NULL;
        lobby_run_gated(l, c, g->text, g->len, &g->v);
        /* What came meanwhile, in order, until one of them waits for a verdict in turn. */
        while (c->gate == NULL && c->held != NULL && !c->closing) {
            struct held_msg *h = c->held;
            c->held = h->next;
            if (c->held == NULL)
                c->held_tail = NULL;
            c->nheld--;
            thue_lobby_message(l, c, h->text, h->len);
            free(h->text);
            free(h);
        }
    } else if (!l->stopping) {
        /* What was taken for a connection that is gone goes back. */
        if (g->v.name == 1)
            nodes_name_release(l, g->v.name_text);
        if (g->v.bots == 1)
            nodes_bot_count(l, g->v.bots_by, g->v.bots_ip, -1);
    }
    free(g->text);
    free(g);
}

/* Sends the message of rq to Redis's verdict of kind: ask(g) starts it. LOBBY_LATER, or 0
 * (decide here) when out of memory or when ask fails. */
static int gate_start(request *rq, int kind, const char *key,
                      int (*ask)(struct gate *g, void *arg), void *arg)
{
    thue_lobby *l = rq->c->lobby;
    struct gate *g = calloc(1, sizeof *g);
    if (g == NULL || (g->text = malloc(rq->len ? rq->len : 1)) == NULL) {
        free(g);
        return 0;
    }
    memcpy(g->text, rq->text, rq->len);
    g->len = rq->len;
    g->l = l;
    g->c = rq->c;
    g->kind = kind;
    g->v = rq->v;
    snprintf(g->key, sizeof g->key, "%s", key);
    if (ask(g, arg) != 0) {
        free(g->text);
        free(g);
        return 0;
    }
    rq->c->gate = g;
    return LOBBY_LATER;
}

struct limit_ask {
    double rate, burst;
};

static int ask_limit(struct gate *g, void *arg)
{
    const struct limit_ask *a = arg;
    return thue_cluster_limit_take(g->l->cluster, g->key, a->rate, a->burst, gate_verdict, g);
}

int nodes_limit_gate(request *rq, const char *kind, const char *key, double rate, double burst)
{
    thue_lobby *l = rq->c->lobby;
    if (rq->v.limit != 0 || rq->text == NULL || !nodes_up(l))
        return 0;
    char k[THUE_CLUSTER_TEXT_MAX];
    limit_key(kind, key, k, sizeof k); /* the bucket nodes_limit_take takes from */
    struct limit_ask a = {rate, burst};
    return gate_start(rq, GATE_LIMIT, k, ask_limit, &a);
}

static int ask_name(struct gate *g, void *arg)
{
    snprintf(g->v.name_text, sizeof g->v.name_text, "%s", (const char *)arg);
    g->v.name_asks++;
    return thue_cluster_name_claim(g->l->cluster, g->key, gate_verdict, g);
}

int nodes_name_gate(request *rq, const char *name)
{
    thue_lobby *l = rq->c->lobby;
    if ((rq->v.name != 0 && strcmp(rq->v.name_text, name) == 0) ||
        rq->v.name_asks >= NODES_NAME_ASKS_MAX || rq->text == NULL || !nodes_up(l))
        return 0;
    char key[THUE_CLUSTER_TEXT_MAX];
    lobby_name_key(name, key, sizeof key);
    return gate_start(rq, GATE_NAME, key, ask_name, (void *)name);
}

static void bot_fields(const char *by, const char *ip, char *fby, char *fip, size_t size)
{
    snprintf(fby, size, "by:%s", by);
    snprintf(fip, size, "at:%s", ip);
}

static int ask_bots(struct gate *g, void *arg)
{
    const long *max = arg;
    char fby[THUE_CLUSTER_TEXT_MAX], fip[THUE_CLUSTER_TEXT_MAX];
    bot_fields(g->v.bots_by, g->v.bots_ip, fby, fip, sizeof fby);
    return thue_cluster_count_take(g->l->cluster, fby, max[0], fip, max[1], gate_verdict, g);
}

int nodes_bots_gate(request *rq, const char *by, long max_by, const char *ip, long max_ip)
{
    thue_lobby *l = rq->c->lobby;
    if (rq->v.bots != 0 || rq->text == NULL || !nodes_up(l))
        return 0;
    snprintf(rq->v.bots_by, sizeof rq->v.bots_by, "%s", by);
    snprintf(rq->v.bots_ip, sizeof rq->v.bots_ip, "%s", ip);
    long max[2] = {max_by, max_ip};
    return gate_start(rq, GATE_BOTS, "", ask_bots, max);
}

void nodes_bot_count(thue_lobby *l, const char *by, const char *ip, long delta)
{
    if (l->cluster == NULL)
        return;
    char fby[THUE_CLUSTER_TEXT_MAX], fip[THUE_CLUSTER_TEXT_MAX];
    bot_fields(by, ip, fby, fip, sizeof fby);
    (void)thue_cluster_count_add(l->cluster, fby, delta);
    (void)thue_cluster_count_add(l->cluster, fip, delta);
}

void nodes_name_release(thue_lobby *l, const char *name)
{
    if (l->cluster == NULL || lobby_session_by_name(l, name) != NULL)
        return;
    char key[THUE_CLUSTER_TEXT_MAX];
    lobby_name_key(name, key, sizeof key);
    (void)thue_cluster_name_remove(l->cluster, key);
}

void nodes_name_linked(thue_lobby *l, const char *key)
{
    if (l->cluster != NULL && thue_cluster_name_add(l->cluster, key) == THUE_CLUSTER_ENOMEM)
        thue_log(THUE_LOG_WARN, "cluster: the name %s is not shared (out of memory)", key);
}

void nodes_name_unlinked(thue_lobby *l, const char *key)
{
    if (l->cluster != NULL)
        (void)thue_cluster_name_remove(l->cluster, key);
}

bool nodes_limit_hold(thue_client *c, const char *text, size_t len)
{
    if (c->gate == NULL && c->held == NULL)
        return false;
    struct held_msg *h = calloc(1, sizeof *h);
    if (h == NULL || c->nheld >= NODES_HELD_MAX || (h->text = malloc(len ? len : 1)) == NULL) {
        free(h);
        return true; /* (dropped: the caller closes a connection that floods) */
    }
    memcpy(h->text, text, len);
    h->len = len;
    if (c->held_tail)
        c->held_tail->next = h;
    else
        c->held = h;
    c->held_tail = h;
    c->nheld++;
    return true;
}

void nodes_limit_client_gone(thue_client *c)
{
    if (c->gate != NULL)
        c->gate->c = NULL;
    c->gate = NULL;
    while (c->held) {
        struct held_msg *h = c->held;
        c->held = h->next;
        free(h->text);
        free(h);
    }
    c->held_tail = NULL;
    c->nheld = 0;
}
