/*
 * util.c: the lobby's bottom layer (util.h): the helpers every lobby module needs and
 * that call no other lobby module: random numbers and keys, the clock, the string hash
 * of the lobby's tables, name keys and reserved names, and sending one message to a
 * client or session (the reply to a request, an error).
 *
 * Nothing here knows of rooms, matches, tournaments or accounts' tables: those modules
 * call down into this file, never the other way.
 */
#include "util.h"
#include "names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/rng.h"
#include "base/hash.h"
#include "log.h"

uint64_t lobby_random(thue_lobby *l)
{
    return thue_splitmix64(&l->rng);
}

uint32_t lobby_hash(const char *s)
{
    return thue_hash_str(s);
}

int lobby_random_token(char out[THUE_PROTO_RESUME_LEN + 1])
{
    unsigned char b[16];
    if (lobby_random_bytes(b, sizeof b) != 0)
        return -1;
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

int lobby_random_bytes(unsigned char *b, size_t size)
{
    size_t got = 0;
    while (got < size) {
        ssize_t n = getrandom(b + got, size - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

int lobby_random_key(char *out, int len, const char *alphabet)
{
    /* A byte at or above the largest multiple of n below 256 is thrown away: taking
     * b % n of every byte would make the first 256 % n characters more likely. */
    unsigned n = (unsigned)strlen(alphabet);
    unsigned limit = 256 - 256 % n;
    unsigned char b[64];
    size_t have = 0, at = 0;
    for (int i = 0; i < len;) {
        if (at == have) {
            have = (size_t)len - (size_t)i + 8 < sizeof b ? (size_t)len - (size_t)i + 8 : sizeof b;
            if (lobby_random_bytes(b, have) != 0)
                return -1;
            at = 0;
        }
        unsigned v = b[at++];
        if (v < limit)
            out[i++] = alphabet[v % n];
    }
    out[len] = '\0';
    return 0;
}

int64_t lobby_now_ms(void)
{
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    return tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The name as compared for uniqueness: names.h's key (NFKC, case folded, confusables'
 * skeleton), so that look-alikes are one name. */
void lobby_name_key(const char *name, char *key, size_t size)
{
    char k[THUE_NAME_KEY_SIZE];
    thue_name_key(name, k);
    snprintf(key, size, "%s", k);
}

/* A name that reads as a bot SPEC in any case ("greedy", "GREEDY", "Nested", "3"), looks
 * like one of the bots' words, or is a bot's made-up name ("Bot-1a2b3c4d") is the bots':
 * a person holding it would take the bot's account name. */
bool lobby_name_reserved(const char *name)
{
    char low[THUE_PROTO_NAME_MAX * 4 + 1];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof low; i++)
        low[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
    low[i] = '\0';
    thue_bot_spec spec;
    if (thue_bot_spec_parse(low, &spec, NULL, 0) == 0 || strncmp(low, "bot-", 4) == 0)
        return true;
    static const char *const words[] = {"greedy", "nested", "uct", "perfect", "bot"};
    char key[THUE_NAME_KEY_SIZE], wkey[THUE_NAME_KEY_SIZE];
    thue_name_key(name, key);
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        thue_name_key(words[w], wkey);
        if (strcmp(key, wkey) == 0)
            return true;
    }
    return false;
}

void lobby_send_text(thue_lobby *l, thue_client *c, const char *text)
{
    if (c != NULL && !c->closing)
        l->hooks.send(l->hooks.ctx, c->conn, text, strlen(text));
}

bool lobby_may_send(thue_lobby *l, thue_client *c, size_t len)
{
    if (c == NULL || c->closing || l->hooks.may_send == NULL)
        return true;
    return l->hooks.may_send(l->hooks.ctx, c->conn, len) != 0;
}

void lobby_send_client_msg(thue_lobby *l, thue_client *c, const thue_msg *msg)
{
    if (c == NULL || c->closing)
        return;
    char *text = thue_msg_encode(msg, NULL);
    if (text == NULL) {
        thue_log(THUE_LOG_ERROR, "cannot encode a %s message", thue_msg_type_name(msg->type));
        return;
    }
    l->hooks.send(l->hooks.ctx, c->conn, text, strlen(text));
    free(text);
}

void lobby_send_msg(thue_lobby *l, session *s, const thue_msg *msg)
{
    if (s != NULL)
        lobby_send_client_msg(l, s->client, msg);
}

void lobby_send_error(thue_lobby *l, thue_client *c, const thue_msg_id *id, int code,
                       const char *field, const char *message)
{
    thue_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.type = THUE_MSG_ERROR;
    if (id)
        msg.id = *id;
    msg.u.error.code = code;
    snprintf(msg.u.error.message, sizeof msg.u.error.message, "%s",
             message && *message ? message : thue_proto_strerror(code));
    if (field)
        snprintf(msg.u.error.field, sizeof msg.u.error.field, "%s", field);
    thue_metrics_error(l->metrics, code);
    lobby_send_client_msg(l, c, &msg);
}

void lobby_reply_error(thue_lobby *l, session *s, const thue_msg_id *id, int code)
{
    if (s != NULL)
        lobby_send_error(l, s->client, id, code, NULL, NULL);
}

int request_gerr(request *rq, const char *member, const thue_gerr *e)
{
    if (e->field[0])
        snprintf(rq->field, sizeof rq->field, "%s/%.40s", member, e->field);
    else
        snprintf(rq->field, sizeof rq->field, "%s", member);
    snprintf(rq->message, sizeof rq->message, "%s", e->msg);
    return e->code;
}

int request_position(request *rq, const thue_gamedef *g, const thue_gopt *opt,
                     const char *position, unsigned char **out)
{
    size_t sz = g->state_size(opt);
    unsigned char *st = malloc(sz ? sz : 1);
    *out = NULL;
    if (st == NULL)
        return THUE_PERR_INTERNAL;
    if (position == NULL) {
        g->start(opt, 0, st);
        *out = st;
        return 0;
    }
    thue_gerr e;
    memset(&e, 0, sizeof e);
    json_t *pj = json_loads(position, 0, NULL);
    int err = pj != NULL ? g->position_parse(opt, pj, st, &e)
                         : thue_gerr_set(&e, THUE_ESTATE, "", "position is not JSON");
    json_decref(pj);
    if (err != 0) {
        free(st);
        return request_gerr(rq, "position", &e);
    }
    *out = st;
    return 0;
}

void request_ok(request *rq)
{
    /* After every move: `ok` has no members, so only its type and id are set (zeroing a
     * whole thue_msg, kilobytes since other games' states travel in it, cost the move
     * path about 5 %). */
    thue_msg msg;
    msg.type = THUE_MSG_OK;
    msg.id = rq->cmd->id;
    lobby_send_client_msg(rq->c->lobby, rq->c, &msg);
}
