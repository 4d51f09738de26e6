/* codec_samples.c: helpers and sample messages of the codec tests (codec_samples.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <float.h>
#include <jansson.h>
#include <math.h>

#include "codec_samples.h"
#include "protocol/codec.h"
#include "protocol/codec_internal.h"

/* ---------------------------------------------------------------- helpers */

/* A copy of n bytes in a buffer of exactly n bytes (no terminator): overreads show. */
char *exact(const char *text, size_t n)
{
    char *p = malloc(n > 0 ? n : 1);
    assert_non_null(p);
    if (n > 0)
        memcpy(p, text, n);
    return p;
}

int cmd_decode_n(const char *text, size_t n, thue_cmd *c, thue_decode_error *e)
{
    char *p = exact(text, n);
    int rc = thue_cmd_decode(p, n, c, e);
    free(p);
    return rc;
}

int cmd_decode(const char *text, thue_cmd *c, thue_decode_error *e)
{
    return cmd_decode_n(text, strlen(text), c, e);
}

int msg_decode_n(const char *text, size_t n, thue_msg *m, thue_decode_error *e)
{
    char *p = exact(text, n);
    int rc = thue_msg_decode(p, n, m, e);
    free(p);
    return rc;
}

int msg_decode(const char *text, thue_msg *m, thue_decode_error *e)
{
    return msg_decode_n(text, strlen(text), m, e);
}

/* Decodes a command and encodes it again; the canonical text (free it). */
char *cmd_roundtrip(const char *text)
{
    thue_cmd c;
    thue_decode_error e;
    int rc = cmd_decode(text, &c, &e);
    if (rc != 0)
        fail_msg("decoding %s: %s [%s] %s", text, thue_proto_err_name(rc), e.field, e.message);
    char *out = thue_cmd_encode(&c, &e);
    if (out == NULL)
        fail_msg("encoding %s: [%s] %s", text, e.field, e.message);
    return out;
}

char *msg_roundtrip(const char *text)
{
    thue_msg m;
    thue_decode_error e;
    int rc = msg_decode(text, &m, &e);
    if (rc != 0)
        fail_msg("decoding %s: %s [%s] %s", text, thue_proto_err_name(rc), e.field, e.message);
    char *out = thue_msg_encode(&m, &e);
    thue_msg_clear(&m);
    if (out == NULL)
        fail_msg("encoding %s: [%s] %s", text, e.field, e.message);
    return out;
}

void assert_cmd_canonical(const char *text, const char *canonical)
{
    char *out = cmd_roundtrip(text);
    assert_string_equal(out, canonical != NULL ? canonical : text);
    free(out);
}

void assert_msg_canonical(const char *text, const char *canonical)
{
    char *out = msg_roundtrip(text);
    assert_string_equal(out, canonical != NULL ? canonical : text);
    free(out);
}

/* base with its one occurrence of `from` replaced by `to` (free it). */
char *subst(const char *base, const char *from, const char *to)
{
    const char *at = strstr(base, from);
    if (at == NULL || strstr(at + 1, from) != NULL)
        fail_msg("\"%s\" is not in the text exactly once", from);
    size_t n = strlen(base) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    assert_non_null(out);
    size_t pre = (size_t)(at - base);
    memcpy(out, base, pre);
    strcpy(out + pre, to);
    strcat(out, at + strlen(from));
    return out;
}

/* ---------------------------------------------------------------- sample messages */

const char welcome_text[] =
    "{\"type\":\"welcome\",\"id\":1,\"protocol\":1,\"server\":\"thue-server 0.1.0\",\"player\":"
    "{\"name\":\"Ann\",\"kind\":\"guest\"},\"resume\":\"4f1c0e9a7b2d4c3e8a9f0b1c2d3e4f5a\","
    "\"grace_s\":60,\"resumed\":false,\"rooms\":[\"r1\",\"r2\"],\"limits\":{\"max_message\":"
    "16384,\"rate\":20,\"burst\":40,\"chat_max\":200,\"name_max\":24}}";

const char room_state_text[] =
    "{\"type\":\"room_state\",\"room\":\"r7f3a\",\"version\":14,\"name\":\"Ann's table\","
    "\"status\":\"playing\",\"options\":{\"variant\":\"square\",\"k\":3,\"limit\":100,"
    "\"clock\":{\"initial_ms\":60000,\"increment_ms\":0},\"rated\":false,\"private\":false,"
    "\"first_builder\":\"creator\"},\"players\":[{\"name\":\"Ann\",\"kind\":\"guest\",\"bot\":"
    "null,\"connected\":true,\"ready\":true,\"rating\":null},{\"name\":\"nested:1\",\"kind\":"
    "\"bot\",\"bot\":\"nested:1\",\"connected\":true,\"ready\":true,\"rating\":1612.4}],"
    "\"spectators\":1,\"you\":0,\"match\":{\"number\":1,\"round\":1,\"builder\":1,\"painter\":0,"
    "\"step\":\"place\",\"to_move\":1,\"word\":[0,1,2],\"placed\":null,\"rounds\":[{\"builder\":"
    "0,\"points\":3,\"end\":\"repetition\",\"repetition\":{\"start\":1,\"period\":2,\"length\":"
    "4},\"word\":[0,1,2,1,2]},{\"builder\":1,\"points\":2,\"end\":\"playing\",\"repetition\":"
    "null,\"word\":null}],\"points\":[2,3],\"clocks\":[50000,41000],\"clock_running\":1,"
    "\"last_move\":{\"seat\":0,\"kind\":\"paint\",\"value\":2,\"think_ms\":0.4},\"thinking\":"
    "null,\"result\":null}}";

const char match_end_text[] =
    "{\"type\":\"match_end\",\"room\":\"r7f3a\",\"number\":1,\"result\":{\"winner\":0,\"reason\":"
    "\"score\"},\"players\":[{\"name\":\"Ann\",\"kind\":\"account\"},{\"name\":\"nested:1\","
    "\"kind\":\"bot\"}],\"points\":[5,3],\"rounds\":[{\"builder\":0,\"points\":3,\"end\":"
    "\"repetition\",\"repetition\":{\"start\":1,\"period\":2,\"length\":4},\"word\":[0,1,2,1,"
    "2]},{\"builder\":1,\"points\":5,\"end\":\"limit\",\"repetition\":null,\"word\":[0,1,2,0,2,"
    "1]}],\"ratings\":[{\"before\":1500,\"after\":1512.5,\"rd_before\":350,\"rd_after\":"
    "290.25},{\"before\":1600,\"after\":1587.5,\"rd_before\":80,\"rd_after\":79.9}],"
    "\"match_id\":\"m42\"}";

const char tournament_text[] =
    "{\"type\":\"tournament\",\"id\":21,\"tournament\":\"t5\",\"name\":\"Sunday Swiss\","
    "\"format\":\"swiss\",\"variant\":\"square\",\"k\":5,\"status\":\"running\",\"players\":3,"
    "\"max_players\":16,\"round\":1,\"rounds\":4,\"limit\":100,\"clock\":null,\"entrants\":[{"
    "\"name\":\"Ann\",\"kind\":\"account\"},{\"name\":\"Bob\",\"kind\":\"account\"},{\"name\":"
    "\"nested:2\",\"kind\":\"bot\"}],\"standings\":[{\"rank\":1,\"name\":\"Ann\",\"points\":1,"
    "\"buchholz\":0.5,\"sonneborn_berger\":0.25,\"games\":1}],\"round_list\":[{\"pairings\":[{"
    "\"seats\":[\"Ann\",\"Bob\"],\"room\":\"r90aa\",\"result\":\"1-0\"},{\"seats\":["
    "\"nested:2\",null],\"room\":null,\"result\":\"bye\"}]},{\"pairings\":[]}]}";

const char ladder_text[] =
    "{\"type\":\"ladder\",\"id\":17,\"variant\":\"square\",\"k\":5,\"kind\":\"all\",\"offset\":0,"
    "\"total\":1,\"entries\":[{\"rank\":1,\"name\":\"nested:2\",\"kind\":\"bot\",\"rating\":"
    "1612.4,\"rd\":84.2,\"provisional\":false,\"games\":31,\"wins\":20,\"draws\":3,\"losses\":"
    "8}]}";

const char rooms_text[] =
    "{\"type\":\"rooms\",\"id\":3,\"rooms\":[{\"room\":\"r7f3a\",\"name\":\"Ann's table\","
    "\"variant\":\"square\",\"k\":4,\"limit\":100,\"clock\":{\"initial_ms\":300000,"
    "\"increment_ms\":2000},\"rated\":false,\"status\":\"waiting\",\"players\":[{\"name\":"
    "\"Ann\",\"kind\":\"guest\"},null],\"spectators\":0}]}";
