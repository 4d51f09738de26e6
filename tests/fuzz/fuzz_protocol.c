/*
 * fuzz_protocol.c: libFuzzer target for the protocol codec (protocol/codec.h).
 *
 * The same bytes go to both decoders, and to the command decoder without its fast path for
 * canonical moves, which must agree with it byte for byte. A text that decodes must encode, the
 * encoding must decode again, and the second encoding must be the first byte for byte (the
 * canonical form is a fixed point). A text that does not decode must fail with one of the decoding
 * codes, err.code equal to the result, and a message that can be sent back as it is
 * (printable ASCII, at most 200 characters). Decoded server messages are cleared, so that
 * LeakSanitizer sees every allocation released. The input buffer is exactly `size` bytes
 * and not NUL-terminated, so AddressSanitizer catches any read past the end.
 *
 * Seed corpus: tests/fuzz/protocol_corpus.py DIR writes the golden vectors' texts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/codec.h"
#include "protocol/codec_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int rc, const thue_decode_error *e)
{
    if (rc != THUE_PERR_JSON && rc != THUE_PERR_MESSAGE && rc != THUE_PERR_TYPE &&
        rc != THUE_PERR_INTERNAL)
        abort();
    if (e->code != rc || memchr(e->field, 0, sizeof e->field) == NULL)
        abort();
    size_t n = strlen(e->message);
    if (n == 0 || n > THUE_PROTO_TEXT_MAX)
        abort();
    for (size_t i = 0; i < n; i++)
        if (e->message[i] < 0x20 || e->message[i] > 0x7e)
            abort();
}

static void fuzz_cmd(const char *text, size_t size)
{
    thue_cmd c, again, full;
    thue_decode_error e, efull;
    int rc = thue_cmd_decode(text, size, &c, &e);
    int rfull = thue__cmd_decode_full(text, size, &full, &efull);
    if (rc != rfull || memcmp(&e, &efull, sizeof e) != 0 ||
        (rc == 0 && memcmp(&c, &full, sizeof c) != 0))
        abort();
    if (rc != 0) {
        check_error(rc, &e);
        return;
    }
    char *first = thue_cmd_encode(&c, &e);
    if (first == NULL)
        abort();
    if (thue_cmd_decode(first, strlen(first), &again, &e) != 0)
        abort();
    char *second = thue_cmd_encode(&again, &e);
    if (second == NULL || strcmp(first, second) != 0)
        abort();
    free(first);
    free(second);
}

static void fuzz_msg(const char *text, size_t size)
{
    thue_msg m, again;
    thue_decode_error e;
    int rc = thue_msg_decode(text, size, &m, &e);
    if (rc != 0) {
        check_error(rc, &e);
        thue_msg_clear(&m); /* harmless after a failure */
        return;
    }
    char *first = thue_msg_encode(&m, &e);
    if (first == NULL)
        abort();
    if (thue_msg_decode(first, strlen(first), &again, &e) != 0)
        abort();
    char *second = thue_msg_encode(&again, &e);
    if (second == NULL || strcmp(first, second) != 0)
        abort();
    free(first);
    free(second);
    thue_msg_clear(&again);
    thue_msg_clear(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_cmd((const char *)data, size);
    fuzz_msg((const char *)data, size);
    return 0;
}
