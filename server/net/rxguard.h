/*
 * rxguard.h: the receive guard (rxguard.c): the server's own view of the bytes that
 * libwebsockets reads from its connections, to refuse what lws 4.1 lets through (request
 * heads that can be smuggled past a proxy, methods lws answers itself with a 403 page,
 * unmasked client frames). rxguard.c's header comment says how and why.
 *
 * A connection's state is a thue_rx, owned by the network layer (inside its peer.c link);
 * the guard reads and writes it from within recv() on the loop thread. Loop thread only.
 */
#ifndef THUE_SERVER_NET_RXGUARD_H
#define THUE_SERVER_NET_RXGUARD_H

#include <stddef.h>
#include <stdint.h>

#define THUE_RX_LINE_MAX 2048 /* one line of a request head, its CRLF included */
#define THUE_RX_HEAD_MAX 4096 /* a whole request head (lws keeps no more) */
#define THUE_RX_FIELDS_MAX 64 /* header lines in one head */
#define THUE_RX_SLACK 32      /* output a read may add to its input (a stand-in head) */

typedef enum {
    THUE_RX_HEAD,    /* a request head: each line is checked before lws sees it */
    THUE_RX_BODY,    /* body_left bytes of a request body, passed as they are */
    THUE_RX_FRAMES,  /* WebSocket frames from the client: each must be masked */
    THUE_RX_DISCARD, /* input is read and dropped: the connection is being closed */
    THUE_RX_EOF      /* reads say end of stream (lws then closes the connection) */
} thue_rx_mode;

typedef struct thue_rx {
    thue_rx_mode mode;

    /* THUE_RX_HEAD: the line that has not ended yet, and the head so far */
    char *line;
    size_t line_len, line_cap;
    unsigned line_no; /* lines of this head handed on: 0 before its request line */
    size_t head_bytes;
    int has_length, has_chunked, upgrade;
    uint64_t length;
    /* THUE_RX_BODY */
    uint64_t body_left;
    /* THUE_RX_FRAMES: the frame header being read, then its payload */
    unsigned char fh[14];
    unsigned fh_len, fh_need;
    uint64_t payload_left;

    /* What the network layer reads. */
    uint64_t bytes_in;              /* bytes read from the socket in all */
    unsigned heads;                 /* request heads handed to lws (a stand-in included) */
    unsigned bad_head;              /* the number (1-based) of the head that was refused; 0: none */
    int status;                     /* its answer: 400, 405, 414, 431 or 505 */
    const char *code;               /* the error code of that answer ("bad_request", ...) */
    const char *why;                /* and its message (a constant sentence) */
    int unmasked;                   /* an unmasked frame came: input stopped before it */
    int told;                       /* on_unmasked was called */
    void (*on_unmasked)(void *arg); /* called once, after the read that found it */
    void *arg;
} thue_rx;

/* A fresh state: a request head comes first. */
void thue__rx_init(thue_rx *rx);
/* Frees what rx holds (not rx itself). */
void thue__rx_clear(thue_rx *rx);

/*
 * The filter itself (no I/O, for the tests too): takes n bytes read from the socket and
 * writes to out what lws may see, returning its length; out has room for
 * n + rx->line_len + THUE_RX_SLACK bytes (out may not overlap in). Bytes may be held
 * (a line not yet ended) or dropped (after a refusal).
 */
size_t thue__rx_filter(thue_rx *rx, const unsigned char *in, size_t n, unsigned char *out);

/*
 * The guard: starts watching for connections up to fd max_fd - 1 (call it on the loop
 * thread, once, before lws reads anything). 0, or -1 with a sentence in err when recv()
 * is not interposed (the executable does not export it), or when memory runs out.
 */
int thue__rx_start(int max_fd, char *err, size_t errsize);
/* Stops watching anything and frees the table. */
void thue__rx_stop(void);
/* Watches fd through rx (borrowed until thue__rx_unwatch): 0, or -1 when fd is past
 * max_fd or the guard is not started (then lws reads fd unguarded). */
int thue__rx_watch(int fd, thue_rx *rx);
/* Stops watching fd if rx is what watches it. */
void thue__rx_unwatch(int fd, const thue_rx *rx);
/* Connections the accept() backstop refused because the process ran out of descriptors. */
uint64_t thue__rx_emfile_refused(void);

#endif
