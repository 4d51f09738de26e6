/*
 * ids.h: how the lobby makes room ids, invite codes, match ids and tournament ids
 * (PROTOCOL.md section 2, identifiers): characters drawn uniformly and independently from
 * an alphabet with the kernel's random generator (getrandom), so that no id or code can
 * be guessed from others. Bytes that would bias the draw (byte % n favours the first
 * 256 % n characters) are thrown away. Any thread; no state.
 */
#ifndef THUE_SERVER_LOBBY_IDS_H
#define THUE_SERVER_LOBBY_IDS_H

/* The alphabets: ids' 36 characters (5.17 bits each), and invite codes' 57 (5.83 bits
 * each: no 0, 1, I, O or l, which read alike). */
#define LOBBY_ID_ALPHABET "0123456789abcdefghijklmnopqrstuvwxyz"
#define LOBBY_INVITE_ALPHABET "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
#define LOBBY_ID_CHARS 16     /* after the id's letter (r, m, t): 82 bits */
#define LOBBY_INVITE_CHARS 22 /* 128 bits */

/* len characters (len <= 64) from alphabet (1..256 distinct characters), then a NUL,
 * into out (len + 1 bytes): 0, or -1 when the kernel's generator fails. */
int lobby_random_key(char *out, int len, const char *alphabet);

#endif
