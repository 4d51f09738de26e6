/*
 * codec_samples.h: what the codec tests (test_codec.c, test_codec_api.c) share: decoding
 * and round-trip helpers over buffers of exactly the text's length (so that a read past
 * the end shows under AddressSanitizer), and sample server messages in canonical form.
 * Include after <cmocka.h>.
 */
#ifndef THUE_TESTS_CODEC_SAMPLES_H
#define THUE_TESTS_CODEC_SAMPLES_H

#include <stddef.h>

#include "protocol/codec.h"

char *exact(const char *text, size_t n);
int cmd_decode_n(const char *text, size_t n, thue_cmd *c, thue_decode_error *e);
int cmd_decode(const char *text, thue_cmd *c, thue_decode_error *e);
int msg_decode_n(const char *text, size_t n, thue_msg *m, thue_decode_error *e);
int msg_decode(const char *text, thue_msg *m, thue_decode_error *e);
char *cmd_roundtrip(const char *text);
char *msg_roundtrip(const char *text);
void assert_cmd_canonical(const char *text, const char *canonical);
void assert_msg_canonical(const char *text, const char *canonical);
char *subst(const char *base, const char *from, const char *to);
extern const char welcome_text[];
extern const char room_state_text[];
extern const char match_end_text[];
extern const char tournament_text[];
extern const char ladder_text[];
extern const char rooms_text[];

#endif
