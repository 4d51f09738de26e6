/*
 * lg_ws.c: the load generator's WebSocket client framing (lg_ws.h).
 */
#include "lg_ws.h"

#include "net/ws_frame.h"

#include <libwebsockets.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

size_t lg_ws_request(char *out, size_t cap, const char *path, const char *host, const char *key,
                     const char *protocol)
{
    int n = snprintf(out, cap,
                     "GET %s HTTP/1.1\r\n"
                     "Host: %s\r\n"
                     "Upgrade: websocket\r\n"
                     "Connection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Protocol: %s\r\n"
                     "\r\n",
                     path, host, key, protocol);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

void lg_ws_key(uint64_t a, uint64_t b, char key[LG_WS_KEY_LEN + 1])
{
    unsigned char raw[16];
    for (int i = 0; i < 8; i++) {
        raw[i] = (unsigned char)(a >> (8 * i));
        raw[8 + i] = (unsigned char)(b >> (8 * i));
    }
    char b64[64]; /* lws wants room beyond the text's 24 characters */
    int n = lws_b64_encode_string((const char *)raw, 16, b64, sizeof b64);
    if (n != LG_WS_KEY_LEN)
        n = 0;
    memcpy(key, b64, (size_t)n);
    key[n] = '\0';
}

/* The value of header name (with its colon) in the head [p, end), trimmed: its length
 * and *value, or -1 when it is not there. */
static int header_value(const char *p, const char *end, const char *name, const char **value)
{
    size_t nl = strlen(name);
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            eol = end;
        if ((size_t)(eol - p) > nl && strncasecmp(p, name, nl) == 0) {
            const char *v = p + nl, *ve = eol;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
                ve--;
            *value = v;
            return (int)(ve - v);
        }
        p = eol + 1;
    }
    return -1;
}

int lg_ws_response(const char *buf, size_t len, const char *key, size_t *used, int *status)
{
    *status = 0;
    const char *end = NULL;
    for (size_t i = 0; i + 3 < len; i++) {
        if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
            end = buf + i + 4;
            break;
        }
    }
    if (end == NULL)
        return len > 8192 ? -1 : 0; /* a head that long is not an answer to us */
    int major, minor, code;
    if (sscanf(buf, "HTTP/%d.%d %d", &major, &minor, &code) != 3)
        return -1;
    *status = code;
    if (code != 101)
        return -1;
    char joined[LG_WS_KEY_LEN + sizeof WS_GUID];
    snprintf(joined, sizeof joined, "%s%s", key, WS_GUID);
    unsigned char md[20];
    lws_SHA1((const unsigned char *)joined, strlen(joined), md);
    char expect[64];
    lws_b64_encode_string((const char *)md, 20, expect, sizeof expect);
    const char *v;
    int vl = header_value(buf, end, "Sec-WebSocket-Accept:", &v);
    if (vl != (int)strlen(expect) || memcmp(v, expect, (size_t)vl) != 0)
        return -1;
    *used = (size_t)(end - buf);
    return 1;
}

int lg_ws_subprotocol(const char *buf, size_t len, char *out, size_t cap)
{
    const char *v;
    int vl = header_value(buf, buf + len, "Sec-WebSocket-Protocol:", &v);
    if (vl < 0 || cap == 0 || (size_t)vl >= cap)
        return -1;
    memcpy(out, v, (size_t)vl);
    out[vl] = '\0';
    return vl;
}

long lg_ws_parse(const unsigned char *buf, size_t len, size_t max, lg_ws_frame *f)
{
    if (len < 2)
        return 0;
    int fin = buf[0] >> 7, opcode = buf[0] & 0x0f;
    if (buf[0] & 0x70)
        return -1; /* reserved bits: no extension was agreed */
    if (buf[1] & 0x80)
        return -1; /* a server never masks */
    if (opcode != LG_WS_CONT && opcode != LG_WS_TEXT && opcode != LG_WS_BINARY &&
        opcode != LG_WS_CLOSE && opcode != LG_WS_PING && opcode != LG_WS_PONG)
        return -1;
    uint64_t plen = buf[1] & 0x7f;
    size_t head = 2;
    if (opcode >= LG_WS_CLOSE && (plen > 125 || !fin))
        return -1;
    if (plen == 126) {
        if (len < 4)
            return 0;
        plen = ((uint64_t)buf[2] << 8) | buf[3];
        head = 4;
    } else if (plen == 127) {
        if (len < 10)
            return 0;
        plen = 0;
        for (int i = 0; i < 8; i++)
            plen = (plen << 8) | buf[2 + i];
        head = 10;
    }
    if (plen > max)
        return -1;
    if (len - head < plen)
        return 0;
    f->opcode = opcode;
    f->fin = fin;
    f->payload = buf + head;
    f->len = (size_t)plen;
    return (long)(head + plen);
}

size_t lg_ws_frame_out(unsigned char *out, int opcode, const void *payload, size_t len,
                       uint32_t mask)
{
    size_t h = thue_ws_header(out, opcode, 1, len);
    unsigned char m[4] = {(unsigned char)(mask >> 24), (unsigned char)(mask >> 16),
                          (unsigned char)(mask >> 8), (unsigned char)mask};
    memcpy(out + h, m, 4);
    h += 4;
    const unsigned char *p = payload;
    for (size_t i = 0; i < len; i++)
        out[h + i] = p[i] ^ m[i & 3];
    return h + len;
}
