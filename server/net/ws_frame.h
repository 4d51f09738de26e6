/*
 * ws_frame.h: the header of a WebSocket frame (RFC 6455 5.2). The server writes its own
 * when several messages for one connection go out in one write (net.c, held_flush_conn);
 * the load generator writes its client frames with it (tests/load/lg_ws.c).
 */
#ifndef THUE_WS_FRAME_H
#define THUE_WS_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define THUE_WS_HEADER_MAX 10 /* a server's frames are not masked */

/* The size of the header of a frame of len payload bytes. */
static inline size_t thue_ws_header_size(size_t len)
{
    return len < 126 ? 2 : len <= 0xffff ? 4 : 10;
}

/* The header of a final frame of opcode and len payload bytes into h, with the mask bit
 * set when masked (a client's frames; the 4-byte key that follows is the caller's): the
 * header's size, 2, 4 or 10. */
static inline size_t thue_ws_header(unsigned char *h, int opcode, int masked, size_t len)
{
    unsigned char m = masked ? 0x80 : 0;
    h[0] = (unsigned char)(0x80 | (opcode & 0x0f));
    if (len < 126) {
        h[1] = (unsigned char)(m | len);
        return 2;
    }
    if (len <= 0xffff) {
        h[1] = m | 126;
        h[2] = (unsigned char)(len >> 8);
        h[3] = (unsigned char)len;
        return 4;
    }
    h[1] = m | 127;
    for (int i = 0; i < 8; i++)
        h[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
    return 10;
}

/* The header of an unmasked, final text frame of len bytes into h: its size. */
static inline size_t thue_ws_text_header(unsigned char *h, size_t len)
{
    return thue_ws_header(h, 0x1, 0, len);
}

#endif
