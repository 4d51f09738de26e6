/*
 * lg_ws.h: the load generator's WebSocket client framing (RFC 6455) over lws's raw
 * sockets. lws 4.1's client reads every incoming byte through a state machine call of its
 * own, which cost the load generator more CPU than the server spent on the same messages
 * (docs/bench.md); this reads a frame's header and hands its payload on in place.
 */
#ifndef THUE_LG_WS_H
#define THUE_LG_WS_H

#include <stddef.h>
#include <stdint.h>

enum {
    LG_WS_CONT = 0x0,
    LG_WS_TEXT = 0x1,
    LG_WS_BINARY = 0x2,
    LG_WS_CLOSE = 0x8,
    LG_WS_PING = 0x9,
    LG_WS_PONG = 0xA
};

#define LG_WS_HEADER_MAX 14 /* 2 + 8 (length) + 4 (mask) */
#define LG_WS_KEY_LEN 24    /* base64 of 16 bytes */

/* The opening handshake's request for path on host (host:port) with key (24 characters
 * of base64) and the subprotocol: its length, or 0 when it does not fit in cap. */
size_t lg_ws_request(char *out, size_t cap, const char *path, const char *host, const char *key,
                     const char *protocol);

/* A random key made from two 64-bit numbers, as base64, NUL-terminated in key. */
void lg_ws_key(uint64_t a, uint64_t b, char key[LG_WS_KEY_LEN + 1]);

/* Reads the server's handshake answer from buf: 0 when it is not complete yet; 1 when it
 * is a 101 whose Sec-WebSocket-Accept matches key (*used: the bytes it took); -1 when it
 * is not (*status: its HTTP status, 0 when there was none). */
int lg_ws_response(const char *buf, size_t len, const char *key, size_t *used, int *status);

/* The subprotocol the server selected in its handshake answer buf (its head, as
 * lg_ws_response took it), copied into out (cap bytes, NUL-terminated): its length, or -1
 * when the answer names none or it does not fit. */
int lg_ws_subprotocol(const char *buf, size_t len, char *out, size_t cap);

/* One frame from the server. */
typedef struct lg_ws_frame {
    int opcode, fin;
    const unsigned char *payload;
    size_t len;
} lg_ws_frame;

/* Reads one frame at buf: its size (header and payload) and *f; 0 when it is not all
 * there yet; -1 when it breaks the protocol (masked, reserved bits, a control frame that
 * is long or fragmented, an unknown opcode, a length over max). */
long lg_ws_parse(const unsigned char *buf, size_t len, size_t max, lg_ws_frame *f);

/* A client frame (final, masked with mask) of opcode and payload into out, which has room
 * for LG_WS_HEADER_MAX + len bytes: its size. */
size_t lg_ws_frame_out(unsigned char *out, int opcode, const void *payload, size_t len,
                       uint32_t mask);

#endif
