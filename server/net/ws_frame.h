/*
 * ws_frame.h: the header of a WebSocket frame the server writes itself (RFC 6455 5.2):
 * several messages for one connection go out in one write (net.c, held_flush_conn).
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

/* The header of an unmasked, final text frame of len bytes into h: its size. */
static inline size_t thue_ws_text_header(unsigned char *h, size_t len)
{
    h[0] = 0x81;
    if (len < 126) {
        h[1] = (unsigned char)len;
        return 2;
    }
    if (len <= 0xffff) {
        h[1] = 126;
        h[2] = (unsigned char)(len >> 8);
        h[3] = (unsigned char)len;
        return 4;
    }
    h[1] = 127;
    for (int i = 0; i < 8; i++)
        h[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
    return 10;
}

#endif
