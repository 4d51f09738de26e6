/*
 * test_codec.c: the wire protocol's codec (protocol/codec.h).
 *
 * - the golden vectors (tests/vectors/protocol.jsonl, read with jansson; the file may be
 *   empty or still growing): every valid one decodes and encodes to exactly its canonical
 *   text, every invalid one fails with its code (and field when given);
 * - every error path of the decoder, from a checklist (error_paths[]): each entry of the
 *   table decode_errors[] names the path it takes, and a test checks that every path of
 *   the list is taken at least once, with its code, field and the rule in the message;
 * - the encoders refusing structs that hold values decoding would refuse;
 * - thue_msg_clear on decoded, failed and caller-filled messages;
 * - the error codes of both lists: names, sentences and codes round trip;
 * - the request id echoed in errors, the size limit (16384 accepted, 16385 refused),
 *   nesting (100000 '[' refused without recursion), numbers jansson cannot hold (2^63,
 *   -0, 1e400), the canonical forms of doubles (against the shortest round trip), and the
 *   names of every enum.
 * Texts are handed over in buffers of exactly their length, so that a read past the end
 * shows under AddressSanitizer.
 */
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

#include "protocol/codec.h"
#include "protocol/codec_internal.h"

#ifndef THUE_VECTORS_DIR
#define THUE_VECTORS_DIR "tests/vectors"
#endif

/* ---------------------------------------------------------------- helpers */

/* A copy of n bytes in a buffer of exactly n bytes (no terminator): overreads show. */
static char *exact(const char *text, size_t n)
{
    char *p = malloc(n > 0 ? n : 1);
    assert_non_null(p);
    if (n > 0)
        memcpy(p, text, n);
    return p;
}

static int cmd_decode_n(const char *text, size_t n, thue_cmd *c, thue_decode_error *e)
{
    char *p = exact(text, n);
    int rc = thue_cmd_decode(p, n, c, e);
    free(p);
    return rc;
}

static int cmd_decode(const char *text, thue_cmd *c, thue_decode_error *e)
{
    return cmd_decode_n(text, strlen(text), c, e);
}

static int msg_decode_n(const char *text, size_t n, thue_msg *m, thue_decode_error *e)
{
    char *p = exact(text, n);
    int rc = thue_msg_decode(p, n, m, e);
    free(p);
    return rc;
}

static int msg_decode(const char *text, thue_msg *m, thue_decode_error *e)
{
    return msg_decode_n(text, strlen(text), m, e);
}

/* Decodes a command and encodes it again; the canonical text (free it). */
static char *cmd_roundtrip(const char *text)
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

static char *msg_roundtrip(const char *text)
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

static void assert_cmd_canonical(const char *text, const char *canonical)
{
    char *out = cmd_roundtrip(text);
    assert_string_equal(out, canonical != NULL ? canonical : text);
    free(out);
}

static void assert_msg_canonical(const char *text, const char *canonical)
{
    char *out = msg_roundtrip(text);
    assert_string_equal(out, canonical != NULL ? canonical : text);
    free(out);
}

/* base with its one occurrence of `from` replaced by `to` (free it). */
static char *subst(const char *base, const char *from, const char *to)
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

static const char welcome_text[] =
    "{\"type\":\"welcome\",\"id\":1,\"protocol\":1,\"server\":\"thue-server 0.1.0\",\"player\":"
    "{\"name\":\"Ann\",\"kind\":\"guest\"},\"resume\":\"4f1c0e9a7b2d4c3e8a9f0b1c2d3e4f5a\","
    "\"grace_s\":60,\"resumed\":false,\"rooms\":[\"r1\",\"r2\"],\"limits\":{\"max_message\":"
    "16384,\"rate\":20,\"burst\":40,\"chat_max\":200,\"name_max\":24}}";

static const char room_state_text[] =
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

static const char match_end_text[] =
    "{\"type\":\"match_end\",\"room\":\"r7f3a\",\"number\":1,\"result\":{\"winner\":0,\"reason\":"
    "\"score\"},\"players\":[{\"name\":\"Ann\",\"kind\":\"account\"},{\"name\":\"nested:1\","
    "\"kind\":\"bot\"}],\"points\":[5,3],\"rounds\":[{\"builder\":0,\"points\":3,\"end\":"
    "\"repetition\",\"repetition\":{\"start\":1,\"period\":2,\"length\":4},\"word\":[0,1,2,1,"
    "2]},{\"builder\":1,\"points\":5,\"end\":\"limit\",\"repetition\":null,\"word\":[0,1,2,0,2,"
    "1]}],\"ratings\":[{\"before\":1500,\"after\":1512.5,\"rd_before\":350,\"rd_after\":"
    "290.25},{\"before\":1600,\"after\":1587.5,\"rd_before\":80,\"rd_after\":79.9}],"
    "\"match_id\":\"m42\"}";

static const char tournament_text[] =
    "{\"type\":\"tournament\",\"id\":21,\"tournament\":\"t5\",\"name\":\"Sunday Swiss\","
    "\"format\":\"swiss\",\"variant\":\"square\",\"k\":5,\"status\":\"running\",\"players\":3,"
    "\"max_players\":16,\"round\":1,\"rounds\":4,\"limit\":100,\"clock\":null,\"entrants\":[{"
    "\"name\":\"Ann\",\"kind\":\"account\"},{\"name\":\"Bob\",\"kind\":\"account\"},{\"name\":"
    "\"nested:2\",\"kind\":\"bot\"}],\"standings\":[{\"rank\":1,\"name\":\"Ann\",\"points\":1,"
    "\"buchholz\":0.5,\"sonneborn_berger\":0.25,\"games\":1}],\"round_list\":[{\"pairings\":[{"
    "\"seats\":[\"Ann\",\"Bob\"],\"room\":\"r90aa\",\"result\":\"1-0\"},{\"seats\":["
    "\"nested:2\",null],\"room\":null,\"result\":\"bye\"}]},{\"pairings\":[]}]}";

static const char ladder_text[] =
    "{\"type\":\"ladder\",\"id\":17,\"variant\":\"square\",\"k\":5,\"kind\":\"all\",\"offset\":0,"
    "\"total\":1,\"entries\":[{\"rank\":1,\"name\":\"nested:2\",\"kind\":\"bot\",\"rating\":"
    "1612.4,\"rd\":84.2,\"provisional\":false,\"games\":31,\"wins\":20,\"draws\":3,\"losses\":"
    "8}]}";

static const char rooms_text[] =
    "{\"type\":\"rooms\",\"id\":3,\"rooms\":[{\"room\":\"r7f3a\",\"name\":\"Ann's table\","
    "\"variant\":\"square\",\"k\":4,\"limit\":100,\"clock\":{\"initial_ms\":300000,"
    "\"increment_ms\":2000},\"rated\":false,\"status\":\"waiting\",\"players\":[{\"name\":"
    "\"Ann\",\"kind\":\"guest\"},null],\"spectators\":0}]}";

/* ---------------------------------------------------------------- golden vectors */

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Decodes base64 (padding optional); the bytes in a new buffer, -1 on a bad character. */
static long b64_decode(const char *in, char **out)
{
    size_t n = strlen(in);
    char *p = malloc(n + 1);
    assert_non_null(p);
    long len = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && in[i] != '='; i++) {
        int v = b64_value(in[i]);
        if (v < 0) {
            free(p);
            return -1;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            p[len++] = (char)((acc >> bits) & 0xff);
        }
    }
    *out = p;
    return len;
}

/* Checks one vector; returns 0, or 1 after printing what is wrong. */
static int check_vector(json_t *v, int line)
{
    const char *name = json_string_value(json_object_get(v, "name"));
    const char *dir = json_string_value(json_object_get(v, "dir"));
    json_t *valid = json_object_get(v, "valid");
    json_t *text = json_object_get(v, "text");
    json_t *text_b64 = json_object_get(v, "text_b64");
    if (name == NULL || dir == NULL || !json_is_boolean(valid) ||
        (strcmp(dir, "client") != 0 && strcmp(dir, "server") != 0) ||
        (json_is_string(text) == json_is_string(text_b64))) {
        print_error("protocol.jsonl:%d: not a vector (name, dir, valid, text or text_b64)\n", line);
        return 1;
    }
    char *bytes;
    long len;
    if (json_is_string(text)) {
        len = (long)json_string_length(text);
        bytes = exact(json_string_value(text), (size_t)len);
    } else {
        char *tmp;
        len = b64_decode(json_string_value(text_b64), &tmp);
        if (len < 0) {
            print_error("%s: text_b64 is not base64\n", name);
            return 1;
        }
        bytes = exact(tmp, (size_t)len);
        free(tmp);
    }
    int client = strcmp(dir, "client") == 0;
    thue_decode_error e;
    thue_cmd c;
    thue_msg m;
    int rc = client ? thue_cmd_decode(bytes, (size_t)len, &c, &e)
                    : thue_msg_decode(bytes, (size_t)len, &m, &e);
    free(bytes);
    int bad = 0;
    if (json_is_true(valid)) {
        const char *want = json_string_value(json_object_get(v, "canonical"));
        if (want == NULL)
            want = json_string_value(text);
        if (rc != 0) {
            print_error("%s: decoding failed: %s [%s] %s\n", name, thue_proto_err_name(rc), e.field,
                        e.message);
            return 1;
        }
        char *out = client ? thue_cmd_encode(&c, &e) : thue_msg_encode(&m, &e);
        if (!client)
            thue_msg_clear(&m);
        if (out == NULL) {
            print_error("%s: encoding failed: [%s] %s\n", name, e.field, e.message);
            bad = 1;
        } else if (want == NULL || strcmp(out, want) != 0) {
            print_error("%s: canonical text differs\n  want %s\n  got  %s\n", name,
                        want != NULL ? want : "(text_b64 without canonical)", out);
            bad = 1;
        }
        free(out);
        return bad;
    }
    const char *code = json_string_value(json_object_get(v, "code"));
    const char *field = json_string_value(json_object_get(v, "field"));
    if (rc == 0) {
        print_error("%s: decoded, but the vector expects %s\n", name, code ? code : "?");
        if (!client)
            thue_msg_clear(&m);
        return 1;
    }
    if (code == NULL || strcmp(thue_proto_err_name(rc), code) != 0) {
        print_error("%s: code %s (%s), want %s\n", name, thue_proto_err_name(rc), e.message,
                    code ? code : "(none given)");
        bad = 1;
    }
    if (field != NULL && strcmp(field, e.field) != 0) {
        print_error("%s: field \"%s\" (%s), want \"%s\"\n", name, e.field, e.message, field);
        bad = 1;
    }
    if (e.code != rc) {
        print_error("%s: err.code %d but the result %d\n", name, e.code, rc);
        bad = 1;
    }
    return bad;
}

static void test_codec_golden_vectors(void **state)
{
    (void)state;
    const char *path = THUE_VECTORS_DIR "/protocol.jsonl";
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    char *all = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 > cap) {
            cap = cap * 2 + 65536;
            all = realloc(all, cap + 1);
            assert_non_null(all);
        }
        size_t got = fread(all + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    all[len] = '\0';
    int vectors = 0, failures = 0, lineno = 0, valid = 0;
    for (char *line = all; line != NULL && *line != '\0';) {
        char *nl = strchr(line, '\n');
        if (nl != NULL)
            *nl = '\0';
        lineno++;
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] == '\r')
            line[--n] = '\0';
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '\0' && *p != '#') {
            json_error_t je;
            json_t *v = json_loads(p, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
            if (!json_is_object(v)) {
                print_error("protocol.jsonl:%d: not a JSON object: %s\n", lineno, je.text);
                failures++;
            } else {
                vectors++;
                valid += json_is_true(json_object_get(v, "valid"));
                failures += check_vector(v, lineno);
            }
            json_decref(v);
        }
        line = nl != NULL ? nl + 1 : NULL;
    }
    free(all);
    print_message("protocol.jsonl: %d vectors (%d valid), %d failed\n", vectors, valid, failures);
    assert_int_equal(failures, 0);
}

/* ---------------------------------------------------------------- decoder error paths */

/* Every way the decoder can refuse a text. Each must be taken by an entry of
 * decode_errors[] (checked by test_codec_error_paths_covered). */
static const char *const error_paths[] = {
    "json/too-long",      /* a client text over 16384 bytes */
    "json/too-deep",      /* nesting deeper than 8 (the scan before parsing) */
    "json/syntax",        /* not JSON */
    "json/utf8",          /* not UTF-8 */
    "json/duplicate-key", /* a repeated key */
    "json/not-object",    /* JSON, but not an object */
    "type/missing",       /* no type: unknown_type */
    "type/not-string",    /* a type that is not a string: bad_message */
    "type/huge-number",   /* a type that is a number beyond a double */
    "type/unknown",       /* a type naming no message (printable, quoted in the message) */
    "type/unknown-unprintable",
    "type/other-direction", /* a server type sent as a command, and the other way */
    "id/type",              /* id neither a string nor an integer */
    "id/range",             /* an integer id outside 0..2^53-1 */
    "id/string",            /* a string id that is empty, too long or not printable ASCII */
    "id/event",             /* an id on a server event */
    "int/missing",
    "int/type",
    "int/real", /* 3.0 or 1e2 where an integer is needed */
    "int/range",
    "int/null",          /* null where the integer is not nullable */
    "int/nullable-type", /* a nullable integer of the wrong type ("or null") */
    "int/overflow",      /* an integer beyond int64 */
    "bool/missing",
    "bool/type",
    "number/missing",
    "number/type",
    "number/min",      /* a negative rd */
    "number/overflow", /* 1e400 */
    "string/missing",
    "string/type",
    "string/key", /* room ids, invites, tournament ids */
    "string/token",
    "string/resume",
    "string/spec",
    "string/name",     /* player names */
    "string/any-name", /* bot names, names without a kind (standings, pairings) */
    "string/title",
    "string/chat",
    "string/text",
    "string/server",
    "string/field",
    "string/match-id",
    "string/nul", /* a \u0000 in a string */
    "enum/missing",
    "enum/unknown",
    "enum/type",
    "enum/null",           /* null where the enum is not nullable */
    "enum-string/unknown", /* goodbye's reason, tournament_event's event */
    "error-code/unknown",
    "error-code/engine-only", /* an engine code that is not in section 10's table */
    "object/missing",
    "object/type",
    "object/null",
    "array2/length",
    "array2/type",
    "array2/missing",
    "list/type",
    "list/too-long",
    "list/missing",
    "list/element", /* an element of a list of strings or objects */
    "word/empty",
    "word/too-long",
    "word/symbol",
    "word/null",             /* null where a word is required */
    "rule/hello-one-of",     /* at most one of name, token and resume */
    "rule/swiss-rounds",     /* a swiss tournament needs rounds */
    "rule/player-name-kind", /* a guest named like a bot */
    "rule/seat-bot",         /* bot given exactly for bots */
    "rule/round-repetition",
    "rule/round-word",
    "rule/match-to-move",
    "rule/match-result",
    "rule/match-placed",
};

typedef struct decode_case {
    const char *path; /* one of error_paths[] */
    char dir;         /* 'C' command, 'S' server message */
    const char *text; /* or NULL: base with from -> to */
    const char *base, *from, *to;
    int code;
    const char *field;
    const char *message; /* a part of the message */
} decode_case;

#define CMD(path, text, code, field, msg)                                                          \
    {                                                                                              \
        path, 'C', text, NULL, NULL, NULL, code, field, msg                                        \
    }
#define SRV(path, text, code, field, msg)                                                          \
    {                                                                                              \
        path, 'S', text, NULL, NULL, NULL, code, field, msg                                        \
    }
#define SUB(path, base, from, to, field, msg)                                                      \
    {                                                                                              \
        path, 'S', NULL, base, from, to, THUE_PERR_MESSAGE, field, msg                             \
    }

#define BAD THUE_PERR_MESSAGE
#define JSON THUE_PERR_JSON
#define TYPE THUE_PERR_TYPE

static const decode_case decode_errors[] = {
    CMD("json/syntax", "{\"type\":\"ping\"", JSON, "", "not a JSON object in valid UTF-8"),
    CMD("json/syntax", "", JSON, "", "not a JSON object"),
    CMD("json/syntax", "{\"type\":\"ping\"} x", JSON, "", "not a JSON object"),
    CMD("json/utf8", "{\"type\":\"chat\",\"room\":\"r\",\"text\":\"\xff\"}", JSON, "",
        "not a JSON object in valid UTF-8"),
    CMD("json/utf8", "{\"type\":\"chat\",\"room\":\"r\",\"text\":\"\xed\xa0\x80\"}", JSON, "",
        "UTF-8"),
    CMD("json/utf8", "{\"type\":\"chat\",\"room\":\"r\",\"text\":\"\\ud800\"}", JSON, "", "UTF-8"),
    CMD("json/duplicate-key", "{\"type\":\"ping\",\"type\":\"ping\"}", JSON, "", "duplicate"),
    CMD("json/duplicate-key", "{\"type\":\"ping\",\"x\":{\"a\":1,\"a\":2}}", JSON, "", "duplicate"),
    CMD("json/not-object", "[{\"type\":\"ping\"}]", JSON, "", "must be a JSON object"),
    CMD("json/not-object", "42", JSON, "", "JSON object"),
    SRV("json/not-object", "[]", JSON, "", "must be a JSON object"),
    CMD("json/too-deep", "{\"type\":\"ping\",\"x\":[[[[[[[[0]]]]]]]]}", JSON, "",
        "nested at most 8 deep"),
    SRV("json/too-deep",
        "{\"type\":\"ok\",\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{}}}}}}}}}", JSON,
        "", "nested at most 8 deep"),
    CMD("type/missing", "{\"id\":1}", TYPE, "type", "type is missing"),
    SRV("type/missing", "{}", TYPE, "type", "type is missing"),
    CMD("type/not-string", "{\"type\":5}", BAD, "type", "type must be a string"),
    CMD("type/not-string", "{\"type\":null}", BAD, "type", "type must be a string"),
    CMD("type/huge-number", "{\"type\":1e400}", BAD, "type", "type must be a string"),
    CMD("type/unknown", "{\"type\":\"nope\"}", TYPE, "type", "type \"nope\" names no client"),
    SRV("type/unknown", "{\"type\":\"nope\"}", TYPE, "type", "names no server message"),
    CMD("type/unknown-unprintable", "{\"type\":\"\\u00e9\"}", TYPE, "type",
        "type names no client message"),
    CMD("type/other-direction", "{\"type\":\"welcome\"}", TYPE, "type", "names no client"),
    SRV("type/other-direction", "{\"type\":\"ping\"}", TYPE, "type", "names no server"),
    CMD("id/type", "{\"type\":\"ping\",\"id\":null}", BAD, "id", "id must be a string of 1 to 64"),
    CMD("id/type", "{\"type\":\"ping\",\"id\":1.0}", BAD, "id", "or an integer between 0 and"),
    CMD("id/range", "{\"type\":\"ping\",\"id\":-1}", BAD, "id", "9007199254740991"),
    CMD("id/range", "{\"type\":\"ping\",\"id\":9007199254740992}", BAD, "id", "id must be"),
    CMD("id/range", "{\"type\":\"ping\",\"id\":18446744073709551616}", BAD, "id", "id must be"),
    CMD("id/string", "{\"type\":\"ping\",\"id\":\"\"}", BAD, "id", "printable ASCII"),
    CMD("id/string", "{\"type\":\"ping\",\"id\":\"\\u00e9\"}", BAD, "id", "printable ASCII"),
    SRV("id/string", "{\"type\":\"ok\",\"id\":\"a\\tb\"}", BAD, "id", "printable ASCII"),
    SRV("id/event", "{\"type\":\"match_found\",\"id\":1,\"room\":\"r1\"}", BAD, "id",
        "id must be absent: match_found is an event"),
    CMD("int/missing", "{\"type\":\"place\",\"room\":\"r1\"}", BAD, "position",
        "position is missing: it must be an integer between 0 and 10000"),
    CMD("int/type", "{\"type\":\"create_room\",\"k\":\"3\"}", BAD, "k",
        "k must be an integer between 2 and 64"),
    CMD("int/real", "{\"type\":\"create_room\",\"k\":3.0}", BAD, "k", "k must be an integer"),
    CMD("int/real", "{\"type\":\"paint\",\"room\":\"r1\",\"symbol\":1e1}", BAD, "symbol",
        "symbol must be an integer between 0 and 63"),
    CMD("int/range", "{\"type\":\"create_room\",\"k\":65}", BAD, "k", "between 2 and 64"),
    CMD("int/range", "{\"type\":\"create_room\",\"clock\":{\"initial_ms\":999,\"increment_ms\":0}}",
        BAD, "clock/initial_ms", "clock/initial_ms must be an integer between 1000 and 86400000"),
    CMD("int/null", "{\"type\":\"join\",\"room\":\"r1\",\"seat\":null}", BAD, "seat",
        "seat must be an integer between 0 and 1"),
    SUB("int/nullable-type", room_state_text, "\"you\":0", "\"you\":\"0\"", "you",
        "you must be an integer between 0 and 1 or null"),
    CMD("int/overflow", "{\"type\":\"place\",\"room\":\"r1\",\"position\":9223372036854775808}",
        BAD, "position", "position must be an integer"),
    CMD("int/overflow", "{\"type\":\"place\",\"room\":\"r1\",\"position\":-9223372036854775809}",
        BAD, "position", "position must be an integer"),
    CMD("int/overflow", "{\"type\":\"place\",\"room\":\"r1\",\"position\":1e400}", BAD, "position",
        "position must be an integer"),
    SUB("bool/missing", welcome_text, "\"resumed\":false,", "", "resumed",
        "resumed is missing: it must be a boolean"),
    CMD("bool/type", "{\"type\":\"create_room\",\"rated\":0}", BAD, "rated",
        "rated must be a boolean"),
    SUB("number/missing", ladder_text, "\"rd\":84.2,", "", "entries/0/rd",
        "entries/0/rd is missing: it must be a number of at least 0"),
    SUB("number/type", room_state_text, "\"rating\":1612.4", "\"rating\":\"1612.4\"",
        "players/1/rating", "players/1/rating must be a number or null"),
    SUB("number/min", ladder_text, "\"rd\":84.2", "\"rd\":-0.5", "entries/0/rd",
        "must be a number of at least 0"),
    SUB("number/overflow", ladder_text, "\"rating\":1612.4", "\"rating\":-1e400",
        "entries/0/rating", "entries/0/rating must be a number"),
    CMD("string/missing", "{\"type\":\"chat\",\"room\":\"r1\"}", BAD, "text",
        "text is missing: it must be a string of 1 to 200 characters"),
    CMD("string/type", "{\"type\":\"join\",\"room\":7}", BAD, "room",
        "room must be a string of 1 to 32 characters from A-Z a-z 0-9 _ -"),
    CMD("string/key", "{\"type\":\"join\",\"room\":\"r 7\"}", BAD, "room", "from A-Z a-z"),
    CMD("string/key", "{\"type\":\"join\",\"room\":\"r1\",\"invite\":\"\"}", BAD, "invite",
        "invite must be a string of 1 to 32"),
    CMD("string/key",
        "{\"type\":\"get_tournament\",\"tournament\":\"ttttttttttttttttttttttttttttttttt\"}", BAD,
        "tournament", "1 to 32"),
    CMD("string/token", "{\"type\":\"hello\",\"protocol\":1,\"token\":\"t.1\"}", BAD, "token",
        "token must be a string of 1 to 128"),
    CMD("string/resume",
        "{\"type\":\"hello\",\"protocol\":1,\"resume\":\"0123456789ABCDEF0123456789abcdef\"}", BAD,
        "resume", "32 lowercase hexadecimal digits"),
    CMD("string/spec", "{\"type\":\"seat_bot\",\"room\":\"r1\",\"bot\":\"n\\u00ebst\"}", BAD, "bot",
        "bot must be a string of 1 to 100 printable ASCII characters"),
    CMD("string/name", "{\"type\":\"hello\",\"protocol\":1,\"name\":\"Ann \"}", BAD, "name",
        "name must be a player name"),
    CMD("string/name", "{\"type\":\"claim_name\",\"name\":\"nested:1\"}", BAD, "name",
        "player name"),
    CMD("string/name",
        "{\"type\":\"claim_name\",\"name\":\"\\u0416\\u0416\\u0416\\u0416\\u0416"
        "\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416"
        "\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\\u0416\"}",
        BAD, "name", "1 to 24"),
    SUB("string/any-name", tournament_text, "{\"rank\":1,\"name\":\"Ann\"",
        "{\"rank\":1,\"name\":\"Ann\\u0001\"", "standings/0/name",
        "standings/0/name must be a name of 1 to 24 characters without control characters"),
    SUB("string/any-name", tournament_text, "[\"nested:2\",null]", "[\"nested:2\",\"\"]",
        "round_list/0/pairings/1/seats/1", "or null"),
    CMD("string/title", "{\"type\":\"create_room\",\"name\":\"a\\nb\"}", BAD, "name",
        "name must be a string of 1 to 40 characters without control characters"),
    CMD("string/chat", "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"a\\tb\"}", BAD, "text",
        "without control characters other than line feed"),
    CMD("string/chat", "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"\"}", BAD, "text",
        "1 to 200"),
    SRV("string/text", "{\"type\":\"goodbye\",\"reason\":\"idle\",\"message\":\"a\\u007f\"}", BAD,
        "message", "message must be a string of 1 to 200 characters"),
    SUB("string/server", welcome_text, "\"thue-server 0.1.0\"", "\"thue\\nserver\"", "server",
        "server must be a string of 1 to 64 printable ASCII characters"),
    SRV("string/field",
        "{\"type\":\"error\",\"code\":\"bad_message\",\"message\":\"m\",\"field\":\"/k\"}", BAD,
        "field", "not starting with /"),
    SRV("string/field",
        "{\"type\":\"error\",\"code\":\"bad_message\",\"message\":\"m\",\"field\":\"\"}", BAD,
        "field", "1 to 63 bytes"),
    SUB("string/match-id", match_end_text, "\"m42\"", "\"\"", "match_id",
        "match_id must be a string of 1 to 32 characters from A-Z a-z 0-9 _ - or null"),
    CMD("string/nul", "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"a\\u0000b\"}", BAD, "text",
        "text must be"),
    CMD("enum/missing", "{\"type\":\"queue_join\",\"k\":5}", BAD, "variant",
        "variant is missing: it must be \"square\" or \"overlap\""),
    CMD("enum/unknown", "{\"type\":\"create_room\",\"first_builder\":\"me\"}", BAD, "first_builder",
        "first_builder must be \"random\", \"creator\" or \"opponent\""),
    CMD("enum/unknown", "{\"type\":\"create_room\",\"variant\":\"Square\"}", BAD, "variant",
        "variant must be"),
    CMD("enum/type", "{\"type\":\"list_rooms\",\"status\":1}", BAD, "status",
        "status must be \"waiting\", \"playing\" or \"finished\""),
    CMD("enum/null", "{\"type\":\"list_rooms\",\"status\":null}", BAD, "status", "status must be"),
    SUB("enum/unknown", tournament_text, "\"result\":\"bye\"", "\"result\":\"draw\"",
        "round_list/0/pairings/1/result", "\"1-0\", \"0-1\", \"1/2-1/2\" or \"bye\" or null"),
    SUB("enum/unknown", match_end_text, "\"reason\":\"score\"", "\"reason\":\"none\"",
        "result/reason", "result/reason must be \"score\", \"resign\", \"timeout\" or \"abandon\""),
    SRV("enum-string/unknown", "{\"type\":\"goodbye\",\"reason\":\"bored\",\"message\":\"m\"}", BAD,
        "reason", "reason must be \"replaced\", \"shutdown\", \"idle\" or \"abuse\""),
    SRV("enum-string/unknown",
        "{\"type\":\"tournament_event\",\"tournament\":\"t5\",\"event\":\"cancelled\",\"round\":"
        "null,"
        "\"rooms\":[]}",
        BAD, "event", "event must be \"joined\""),
    SRV("error-code/unknown", "{\"type\":\"error\",\"code\":\"oops\",\"message\":\"m\"}", BAD,
        "code", "code must be one of the error codes of PROTOCOL.md section 10"),
    SRV("error-code/unknown", "{\"type\":\"error\",\"code\":\"bad_json\\u0000\",\"message\":\"m\"}",
        BAD, "code", "error codes"),
    SRV("error-code/engine-only", "{\"type\":\"error\",\"code\":\"bad_k\",\"message\":\"m\"}", BAD,
        "code", "error codes"),
    SUB("object/missing", welcome_text,
        ",\"limits\":{\"max_message\":16384,\"rate\":20,\"burst\":40,"
        "\"chat_max\":200,\"name_max\":24}",
        "", "limits", "limits is missing: it must be an object"),
    CMD("object/type", "{\"type\":\"create_room\",\"clock\":[300000,2000]}", BAD, "clock",
        "clock must be an object"),
    CMD("object/null", "{\"type\":\"create_room\",\"clock\":null}", BAD, "clock",
        "clock must be an object"),
    SUB("object/type", welcome_text, "{\"name\":\"Ann\",\"kind\":\"guest\"}", "\"Ann\"", "player",
        "player must be an object"),
    SUB("object/type", tournament_text, "\"clock\":null", "\"clock\":5", "clock",
        "clock must be an object or null"),
    SUB("array2/length", match_end_text, "\"points\":[5,3]", "\"points\":[5,3,1]", "points",
        "points must be an array of 2 entries"),
    SUB("array2/type", room_state_text, "\"clocks\":[50000,41000]", "\"clocks\":50000",
        "match/clocks", "match/clocks must be an array of 2 entries or null"),
    SUB("array2/missing", match_end_text, "\"points\":[5,3],", "", "points",
        "points is missing: it must be an array of 2 entries"),
    SRV("list/type", "{\"type\":\"rooms\",\"rooms\":{}}", BAD, "rooms",
        "rooms must be an array of at most 500 entries"),
    SRV("list/missing", "{\"type\":\"tournaments\"}", BAD, "tournaments",
        "tournaments is missing: it must be an array"),
    SUB("list/element", welcome_text, "\"r2\"", "\"r 2\"", "rooms/1", "rooms/1 must be a string"),
    SUB("list/element", tournament_text, "{\"pairings\":[]}", "[]", "round_list/1",
        "round_list/1 must be an object"),
    SUB("word/empty", room_state_text, "\"word\":[0,1,2]", "\"word\":[]", "match/word",
        "match/word must be an array of 1 to 10001 entries"),
    SUB("word/symbol", room_state_text, "\"word\":[0,1,2]", "\"word\":[0,64,2]", "match/word/1",
        "match/word/1 must be an integer between 0 and 63"),
    SUB("word/symbol", room_state_text, "\"word\":[0,1,2]", "\"word\":[0,1,2.0]", "match/word/2",
        "must be an integer between 0 and 63"),
    SUB("word/null", room_state_text, "\"word\":[0,1,2]", "\"word\":null", "match/word",
        "match/word must be an array of 1 to 10001 entries"),
    CMD("rule/hello-one-of",
        "{\"type\":\"hello\",\"protocol\":1,\"name\":\"Ann\",\"token\":\"t1\"}", BAD, "token",
        "at most one of name, token and resume"),
    CMD("rule/hello-one-of",
        "{\"type\":\"hello\",\"protocol\":1,\"token\":\"t1\",\"resume\":"
        "\"0123456789abcdef0123456789abcdef\"}",
        BAD, "resume", "at most one of name, token and resume"),
    CMD("rule/swiss-rounds",
        "{\"type\":\"create_tournament\",\"name\":\"S\",\"format\":\"swiss\",\"variant\":"
        "\"square\","
        "\"k\":5,\"max_players\":16}",
        BAD, "rounds", "rounds is missing: a swiss tournament needs it"),
    SUB("rule/player-name-kind", welcome_text, "\"name\":\"Ann\"", "\"name\":\"nested:1\"",
        "player/name", "player/name must be a player name"),
    SUB("string/any-name", ladder_text, "\"name\":\"nested:2\"", "\"name\":\"nested:2\\n\"",
        "entries/0/name", "entries/0/name must be a name of 1 to 24 characters"),
    SUB("rule/seat-bot", room_state_text, "\"bot\":null", "\"bot\":\"greedy\"", "players/0/bot",
        "players/0/bot must be a bot SPEC for a bot, and null for anyone else"),
    SUB("rule/round-repetition", room_state_text, "\"end\":\"repetition\"", "\"end\":\"limit\"",
        "match/rounds/0/repetition", "an object when end is \"repetition\""),
    SUB("rule/round-word", match_end_text, "\"end\":\"limit\"", "\"end\":\"playing\"",
        "rounds/1/word", "rounds/1/word must be null when end is \"playing\""),
    SUB("rule/match-to-move", room_state_text, "\"step\":\"place\"", "\"step\":\"over\"",
        "match/to_move", "match/to_move must be null when step is \"over\""),
    SUB("rule/match-result", room_state_text, "\"result\":null",
        "\"result\":{\"winner\":null,\"reason\":\"resign\"}", "match/result",
        "an object when step is \"over\", and null otherwise"),
    SUB("rule/match-placed", room_state_text, "\"placed\":null", "\"placed\":1", "match/placed",
        "match/placed must be a position when step is \"paint\""),
};

static void run_decode_case(const decode_case *dc)
{
    char *text = dc->text != NULL ? strdup(dc->text) : subst(dc->base, dc->from, dc->to);
    assert_non_null(text);
    thue_decode_error e;
    int rc;
    if (dc->dir == 'C') {
        thue_cmd c;
        rc = cmd_decode(text, &c, &e);
    } else {
        thue_msg m;
        rc = msg_decode(text, &m, &e);
        if (rc == 0)
            thue_msg_clear(&m);
    }
    if (rc != dc->code || strcmp(e.field, dc->field) != 0 ||
        strstr(e.message, dc->message) == NULL || e.code != rc)
        fail_msg("%s: %s\n  got %s [%s] \"%s\"\n  want %s [%s] \"...%s...\"", dc->path, text,
                 thue_proto_err_name(rc), e.field, e.message, thue_proto_err_name(dc->code),
                 dc->field, dc->message);
    /* Every message can be sent back in an error as it is: ASCII, at most 200. */
    assert_true(thue__str_ok(THUE__S_TEXT, e.message, strlen(e.message)));
    free(text);
}

static void test_codec_error_paths(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof decode_errors / sizeof decode_errors[0]; i++)
        run_decode_case(&decode_errors[i]);
}

static void test_codec_error_paths_covered(void **state)
{
    (void)state;
    size_t npaths = sizeof error_paths / sizeof error_paths[0];
    size_t ncases = sizeof decode_errors / sizeof decode_errors[0];
    for (size_t p = 0; p < npaths; p++) {
        int seen = 0;
        for (size_t i = 0; i < ncases; i++)
            seen += strcmp(decode_errors[i].path, error_paths[p]) == 0;
        if (seen == 0 && strcmp(error_paths[p], "json/too-long") != 0 &&
            strcmp(error_paths[p], "word/too-long") != 0 &&
            strcmp(error_paths[p], "list/too-long") != 0)
            fail_msg("no test takes the error path %s", error_paths[p]);
    }
    /* ... and every case names a path of the list. */
    for (size_t i = 0; i < ncases; i++) {
        int known = 0;
        for (size_t p = 0; p < npaths; p++)
            known |= strcmp(decode_errors[i].path, error_paths[p]) == 0;
        if (!known)
            fail_msg("case %zu names the unknown path %s", i, decode_errors[i].path);
    }
}

/* The paths whose texts are too long for the table: json/too-long, list/too-long,
 * word/too-long. */
static void test_codec_error_paths_long(void **state)
{
    (void)state;
    thue_decode_error e;
    thue_msg m;
    /* list/too-long: 501 room summaries; 500 are fine. */
    const char *item = strstr(rooms_text, "{\"room\"");
    size_t ilen = strlen(item) - 2; /* without "]}" */
    char *big = malloc(64 + 501 * (ilen + 1));
    assert_non_null(big);
    for (int n = 500; n <= 501; n++) {
        strcpy(big, "{\"type\":\"rooms\",\"rooms\":[");
        size_t k = strlen(big);
        for (int i = 0; i < n; i++) {
            if (i > 0)
                big[k++] = ',';
            memcpy(big + k, item, ilen);
            k += ilen;
        }
        strcpy(big + k, "]}");
        int rc = msg_decode(big, &m, &e);
        if (n == 500) {
            assert_int_equal(rc, 0);
            assert_int_equal(m.u.rooms.nrooms, 500);
            assert_string_equal(m.u.rooms.rooms[499].name, "Ann's table");
            thue_msg_clear(&m);
        } else {
            assert_int_equal(rc, THUE_PERR_MESSAGE);
            assert_string_equal(e.field, "rooms");
            assert_non_null(strstr(e.message, "at most 500 entries"));
        }
    }
    free(big);

    /* word/too-long: 10002 symbols; 10001 are fine. */
    char *pre = subst(room_state_text, "\"word\":[0,1,2]", "\"word\":[@]");
    char *at = strchr(pre, '@');
    size_t plen = strlen(pre);
    char *text = malloc(plen + 2 * 10002 + 1);
    assert_non_null(text);
    for (int n = 10001; n <= 10002; n++) {
        size_t k = (size_t)(at - pre);
        memcpy(text, pre, k);
        for (int i = 0; i < n; i++) {
            text[k++] = (char)('0' + i % 3);
            text[k++] = ',';
        }
        k--;
        strcpy(text + k, at + 1);
        int rc = msg_decode(text, &m, &e);
        if (n == 10001) {
            assert_int_equal(rc, 0);
            assert_int_equal(m.u.room_state.match.word_len, 10001);
            char *out = thue_msg_encode(&m, &e);
            assert_non_null(out);
            assert_string_equal(out, text);
            free(out);
            thue_msg_clear(&m);
        } else {
            assert_int_equal(rc, THUE_PERR_MESSAGE);
            assert_string_equal(e.field, "match/word");
        }
    }
    free(text);
    free(pre);
}

/* ---------------------------------------------------------------- size, depth, numbers */

static void test_codec_size_limit(void **state)
{
    (void)state;
    /* {"type":"ping","pad":"xxx...x"}: 22 bytes around the padding. */
    for (size_t total = 16383; total <= 16385; total++) {
        size_t pad = total - strlen("{\"type\":\"ping\",\"pad\":\"\"}");
        char *text = malloc(total + 1);
        assert_non_null(text);
        strcpy(text, "{\"type\":\"ping\",\"pad\":\"");
        memset(text + strlen(text), 'x', pad);
        strcpy(text + total - 2, "\"}");
        assert_int_equal(strlen(text), total);
        thue_cmd c;
        thue_decode_error e;
        int rc = cmd_decode_n(text, total, &c, &e);
        if (total <= THUE_PROTO_MESSAGE_MAX) {
            assert_int_equal(rc, 0);
            assert_int_equal(c.type, THUE_CMD_PING);
        } else {
            assert_int_equal(rc, THUE_PERR_JSON);
            assert_string_equal(e.field, "");
            assert_non_null(strstr(e.message, "longer than 16384 bytes"));
        }
        /* Server messages have no such limit. */
        memcpy(text, "{\"type\":\"ok\",  ", 15);
        thue_msg m;
        assert_int_equal(msg_decode_n(text, total, &m, &e), 0);
        thue_msg_clear(&m);
        free(text);
    }
}

static void test_codec_deep_nesting(void **state)
{
    (void)state;
    thue_cmd c;
    thue_msg m;
    thue_decode_error e;
    size_t n = 100000;
    char *text = malloc(2 * n + 64);
    assert_non_null(text);
    memset(text, '[', n);
    /* A command is refused for its size first; a server message has no size limit. */
    assert_int_equal(cmd_decode_n(text, THUE_PROTO_MESSAGE_MAX, &c, &e), THUE_PERR_JSON);
    assert_non_null(strstr(e.message, "nested at most 8 deep"));
    assert_int_equal(msg_decode_n(text, n, &m, &e), THUE_PERR_JSON);
    assert_non_null(strstr(e.message, "nested at most 8 deep"));
    for (size_t i = 0; i + 5 <= n; i += 5)
        memcpy(text + i, "{\"a\":", 5);
    assert_int_equal(msg_decode_n(text, n, &m, &e), THUE_PERR_JSON);
    assert_non_null(strstr(e.message, "nested at most 8 deep"));
    /* Balanced, and deep inside an unknown member of a valid message. */
    strcpy(text, "{\"type\":\"ok\",\"x\":");
    size_t k = strlen(text);
    memset(text + k, '[', n);
    memset(text + k + n, ']', n);
    strcpy(text + k + 2 * n, "}");
    assert_int_equal(msg_decode(text, &m, &e), THUE_PERR_JSON);
    /* Brackets inside strings do not count, escaped quotes do not end a string. */
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"x\":\"[[[[[[[[[[\\\"[[[[{{{{{{\"}", &c, &e),
                     0);
    /* Depth 8 is allowed, 9 is not; the message counts as 1. */
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"x\":[[[[[[[0]]]]]]]}", &c, &e), 0);
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"x\":[[[[[[[[0]]]]]]]]}", &c, &e),
                     THUE_PERR_JSON);
    free(text);
}

static void test_codec_big_numbers(void **state)
{
    (void)state;
    thue_cmd c;
    thue_decode_error e;
    static const char *const refused[] = {
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "1e400",
        "-1e400",
        "1e-400",
        "1e99999999999999999999",
        "0.0",
        "100000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char text[600];
        snprintf(text, sizeof text, "{\"type\":\"place\",\"id\":7,\"room\":\"r1\",\"position\":%s}",
                 refused[i]);
        if (cmd_decode(text, &c, &e) != THUE_PERR_MESSAGE || strcmp(e.field, "position") != 0)
            fail_msg("position %s: %s [%s] %s", refused[i], thue_proto_err_name(e.code), e.field,
                     e.message);
        assert_int_equal(e.id.kind, THUE_ID_INT);
        assert_int_equal(e.id.num, 7);
    }
    /* -0 is the integer 0. */
    assert_cmd_canonical("{\"type\":\"place\",\"room\":\"r1\",\"position\":-0}",
                         "{\"type\":\"place\",\"room\":\"r1\",\"position\":0}");
    /* Numbers in unknown members are ignored, however big. */
    assert_cmd_canonical("{\"type\":\"ping\",\"x\":[1e400,-1e400,18446744073709551616,1e-400]}",
                         "{\"type\":\"ping\"}");
    /* Where any number goes, an integer beyond int64 is still a number. */
    char *t = subst(ladder_text, "\"rating\":1612.4", "\"rating\":9223372036854775808");
    char *want = subst(ladder_text, "\"rating\":1612.4", "\"rating\":9223372036854776000");
    assert_msg_canonical(t, want);
    free(t);
    free(want);
    t = subst(ladder_text, "\"rating\":1612.4", "\"rating\":-0.0");
    want = subst(ladder_text, "\"rating\":1612.4", "\"rating\":0");
    assert_msg_canonical(t, want);
    free(t);
    free(want);
    t = subst(ladder_text, "\"rating\":1612.4", "\"rating\":1.7976931348623157e308");
    want = subst(ladder_text, "\"rating\":1612.4", "\"rating\":1.7976931348623157e+308");
    assert_msg_canonical(t, want);
    free(t);
    free(want);
    /* The largest id, and the one past it. */
    assert_cmd_canonical("{\"type\":\"ping\",\"id\":9007199254740991}", NULL);
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"id\":9007199254740992}", &c, &e),
                     THUE_PERR_MESSAGE);
}

/* Reference for thue__fmt_double: the fewest significant digits p such that some p-digit
 * decimal reads back as d (d > 0). The candidates are the nearest p-digit decimal and its
 * two neighbours, as integer mantissas. */
static int shortest_digits(double d)
{
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, d);
        char *e = strchr(buf, 'e');
        int exp = atoi(e + 1) - (p - 1);
        unsigned long long mant = 0;
        for (char *q = buf; q < e; q++)
            if (*q >= '0' && *q <= '9')
                mant = mant * 10 + (unsigned long long)(*q - '0');
        for (int delta = -1; delta <= 1; delta++) {
            char cand[64];
            snprintf(cand, sizeof cand, "%llue%d", mant + (unsigned long long)delta, exp);
            if (strtod(cand, NULL) == d)
                return p;
        }
    }
    return 17;
}

static int significant_digits(const char *s)
{
    int n = 0, started = 0, trailing_zeros = 0;
    for (; *s != '\0' && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s != '0')
            started = 1;
        if (!started)
            continue;
        n++;
        trailing_zeros = *s == '0' ? trailing_zeros + 1 : 0;
    }
    return n - trailing_zeros;
}

static void test_codec_double_format(void **state)
{
    (void)state;
    static const struct {
        double d;
        const char *text;
    } cases[] = {
        {0.0, "0"},
        {-0.0, "0"},
        {1.0, "1"},
        {-3.0, "-3"},
        {1612.4, "1612.4"},
        {0.1, "0.1"},
        {0.4, "0.4"},
        {0.1 + 0.2, "0.30000000000000004"},
        {84.2, "84.2"},
        {1e20, "100000000000000000000"},
        {1e21, "1e+21"},
        {123456789012345680000.0, "123456789012345680000"},
        {1.5e-7, "1.5e-7"},
        {0.000001, "0.000001"},
        {0.0000012, "0.0000012"},
        {1e-7, "1e-7"},
        {5e-324, "5e-324"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {9007199254740992.0, "9007199254740992"},
        {4.35, "4.35"},
        {2.5e25, "2.5e+25"},
        {-1e-10, "-1e-10"},
    };
    char buf[THUE__DOUBLE_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = thue__fmt_double(cases[i].d, buf);
        assert_int_equal(n, strlen(buf));
        if (strcmp(buf, cases[i].text) != 0)
            fail_msg("%.17g: got %s, want %s", cases[i].d, buf, cases[i].text);
    }
    /* Random doubles (any bit pattern that is finite): the text reads back as the same
     * double, with no more significant digits than the shortest "%.*e" that does. */
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 30000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        uint64_t bits = i % 4 == 0 ? x : (x & 0x800fffffffffffffULL) | ((x % 120 + 960) << 52);
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d))
            continue;
        thue__fmt_double(d, buf);
        double back = strtod(buf, NULL);
        if (back != d && !(d == 0 && back == 0))
            fail_msg("%.17g written as %s reads back as %.17g", d, buf, back);
        if (d != 0 && significant_digits(buf) != shortest_digits(fabs(d)))
            fail_msg("%.17g written as %s: the shortest has %d digits", d, buf,
                     shortest_digits(fabs(d)));
    }
    /* At powers of two the gap below is half the gap above, so the nearest short decimal
     * can miss from below while the next one up reads back. */
    for (int p = -1074; p <= 1023; p++) {
        double d = ldexp(1.0, p);
        thue__fmt_double(d, buf);
        assert_true(strtod(buf, NULL) == d);
        assert_int_equal(significant_digits(buf), shortest_digits(d));
    }
}

/* ---------------------------------------------------------------- ids, defaults, clear */

static void test_codec_id_echo(void **state)
{
    (void)state;
    thue_cmd c;
    thue_msg m;
    thue_decode_error e;
    assert_int_equal(cmd_decode("{\"type\":\"create_room\",\"id\":42,\"k\":99}", &c, &e),
                     THUE_PERR_MESSAGE);
    assert_int_equal(e.id.kind, THUE_ID_INT);
    assert_int_equal(e.id.num, 42);
    assert_int_equal(cmd_decode("{\"id\":\"req 7\",\"type\":\"nope\"}", &c, &e), THUE_PERR_TYPE);
    assert_int_equal(e.id.kind, THUE_ID_STR);
    assert_string_equal(e.id.str, "req 7");
    assert_int_equal(cmd_decode("{\"id\":\"x\"}", &c, &e), THUE_PERR_TYPE);
    assert_int_equal(e.id.kind, THUE_ID_STR);
    /* An id that cannot be read is not echoed. */
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"id\":-1}", &c, &e), THUE_PERR_MESSAGE);
    assert_int_equal(e.id.kind, THUE_ID_NONE);
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"id\":1", &c, &e), THUE_PERR_JSON);
    assert_int_equal(e.id.kind, THUE_ID_NONE);
    /* Server replies echo too; success fills the id as well. */
    assert_int_equal(
        msg_decode("{\"type\":\"error\",\"id\":9,\"code\":\"nope\",\"message\":\"m\"}", &m, &e),
        THUE_PERR_MESSAGE);
    assert_int_equal(e.id.kind, THUE_ID_INT);
    assert_int_equal(e.id.num, 9);
    assert_int_equal(cmd_decode("{\"type\":\"ping\",\"id\":\" ~\"}", &c, &e), 0);
    assert_int_equal(c.id.kind, THUE_ID_STR);
    assert_string_equal(c.id.str, " ~");
    /* err may be NULL. */
    assert_int_equal(thue_cmd_decode("{}", 2, &c, NULL), THUE_PERR_TYPE);
    assert_int_equal(thue_cmd_decode(NULL, 0, &c, NULL), THUE_PERR_JSON);
    assert_int_equal(thue_msg_decode("{}", 2, &m, NULL), THUE_PERR_TYPE);
}

static void test_codec_defaults(void **state)
{
    (void)state;
    thue_cmd c;
    thue_decode_error e;
    assert_int_equal(cmd_decode("{\"type\":\"create_room\"}", &c, &e), 0);
    assert_int_equal(c.id.kind, THUE_ID_NONE);
    assert_int_equal(c.u.create_room.variant, THUE_SQUARE);
    assert_int_equal(c.u.create_room.k, 3);
    assert_int_equal(c.u.create_room.limit, 100);
    assert_false(c.u.create_room.clock.present);
    assert_int_equal(c.u.create_room.first, THUE_FIRST_RANDOM);
    assert_false(c.u.create_room.rated);
    assert_false(c.u.create_room.is_private);
    assert_false(c.u.create_room.has_name);
    assert_true(c.u.create_room.seat);
    assert_cmd_canonical("{\"type\":\"create_room\"}",
                         "{\"type\":\"create_room\",\"variant\":\"square\",\"k\":3,\"limit\":100,"
                         "\"first_builder\":\"random\",\"rated\":false,\"private\":false,"
                         "\"seat\":true}");
    assert_int_equal(
        cmd_decode("{\"type\":\"seat_bot\",\"room\":\"r\",\"bot\":\"greedy\"}", &c, &e), 0);
    assert_int_equal(c.u.seat_bot.think_ms, 2000);
    assert_false(c.u.seat_bot.has_seat);
    assert_int_equal(
        cmd_decode("{\"type\":\"get_ladder\",\"variant\":\"overlap\",\"k\":4}", &c, &e), 0);
    assert_int_equal(c.u.get_ladder.kind, THUE_LADDER_ALL);
    assert_int_equal(c.u.get_ladder.offset, 0);
    assert_int_equal(c.u.get_ladder.count, 50);
    assert_cmd_canonical("{\"type\":\"queue_join\",\"k\":5,\"variant\":\"overlap\",\"id\":\"q\"}",
                         "{\"type\":\"queue_join\",\"id\":\"q\",\"variant\":\"overlap\",\"k\":5,"
                         "\"limit\":100,\"rated\":false,\"bot_after_s\":0}");
    /* Unknown members are ignored, and members of other messages too. */
    assert_cmd_canonical("{\"type\":\"leave\",\"room\":\"r1\",\"invite\":\"!!\",\"seat\":9,"
                         "\"extra\":{\"a\":[1,2,{\"b\":null}]}}",
                         "{\"type\":\"leave\",\"room\":\"r1\"}");
    /* Strings: JSON escapes in, the canonical ones out. */
    assert_cmd_canonical(
        "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"\\u0041\\/\\\"\\\\\\n\\u00e9"
        "\\ud83d\\ude00\"}",
        "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"A/\\\"\\\\\\n\xc3\xa9"
        "\xf0\x9f\x98\x80\"}");
    /* An id may hold the characters JSON escapes; U+2028 is written as it is, like
     * JSON.stringify does. */
    assert_cmd_canonical("{\"type\":\"ping\",\"id\":\"q\\\"\\\\/\"}", NULL);
    assert_cmd_canonical("{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"\\u2028\"}",
                         "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"\xe2\x80\xa8\"}");
    /* A name of 24 code points of 4 bytes fills its buffer exactly. */
    assert_cmd_canonical("{\"type\":\"claim_name\",\"name\":\"\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c"
                         "\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d"
                         "\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c"
                         "\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d"
                         "\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c"
                         "\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\xf0\x9d\x92\x9c\"}",
                         NULL);
}

static void test_codec_server_roundtrips(void **state)
{
    (void)state;
    assert_msg_canonical(welcome_text, NULL);
    assert_msg_canonical(room_state_text, NULL);
    assert_msg_canonical(match_end_text, NULL);
    assert_msg_canonical(tournament_text, NULL);
    assert_msg_canonical(ladder_text, NULL);
    assert_msg_canonical(rooms_text, NULL);
    /* Members in another order, unknown ones, and spaces: the canonical text. */
    assert_msg_canonical("{ \"message\" : \"m\", \"code\" : \"not_your_turn\", \"field\" : "
                         "\"position\", \"type\" : \"error\", \"x\" : 1 }",
                         "{\"type\":\"error\",\"code\":\"not_your_turn\",\"message\":\"m\","
                         "\"field\":\"position\"}");
    assert_msg_canonical("{\"type\":\"tournament_event\",\"tournament\":\"t5\",\"event\":"
                         "\"joined\",\"round\":null,\"rooms\":[]}",
                         NULL);
}

static void test_codec_msg_clear(void **state)
{
    (void)state;
    thue_msg m;
    thue_decode_error e;
    /* Decoded: owns its arrays (ASan reports a leak if clear misses one). */
    assert_int_equal(msg_decode(tournament_text, &m, &e), 0);
    assert_non_null(m.owned);
    assert_int_equal(m.u.tournament.nentrants, 3);
    assert_string_equal(m.u.tournament.round_list[0].pairings[1].names[0], "nested:2");
    assert_false(m.u.tournament.round_list[0].pairings[1].has_second);
    assert_int_equal(m.u.tournament.round_list[1].npairings, 0);
    thue_msg_clear(&m);
    assert_null(m.owned);
    thue_msg_clear(&m); /* twice is harmless */
    thue_msg_clear(NULL);
    /* Failed after allocating: nothing is left to free. */
    char *bad = subst(tournament_text, "\"result\":\"bye\"", "\"result\":0");
    assert_int_equal(msg_decode(bad, &m, &e), THUE_PERR_MESSAGE);
    assert_null(m.owned);
    thue_msg_clear(&m);
    free(bad);
    /* Filled by the caller: borrowed arrays, owned NULL; clear touches nothing. */
    const char rooms[2][THUE_PROTO_KEY_MAX + 1] = {"r1", "r2"};
    thue_msg w;
    memset(&w, 0, sizeof w);
    w.type = THUE_MSG_TOURNAMENT_EVENT;
    strcpy(w.u.tournament_event.tournament, "t5");
    strcpy(w.u.tournament_event.event, "round_started");
    w.u.tournament_event.round = 2;
    w.u.tournament_event.rooms = rooms;
    w.u.tournament_event.nrooms = 2;
    char *out = thue_msg_encode(&w, &e);
    assert_non_null(out);
    assert_string_equal(out, "{\"type\":\"tournament_event\",\"tournament\":\"t5\",\"event\":"
                             "\"round_started\",\"round\":2,\"rooms\":[\"r1\",\"r2\"]}");
    free(out);
    thue_msg_clear(&w);
    assert_ptr_equal(w.u.tournament_event.rooms, rooms);
}

/* ---------------------------------------------------------------- encoders */

static void expect_cmd_refused(const thue_cmd *c, int code, const char *field)
{
    thue_decode_error e;
    char *out = thue_cmd_encode(c, &e);
    if (out != NULL)
        fail_msg("encoded %s, expected a refusal on %s", out, field);
    assert_int_equal(e.code, code);
    assert_string_equal(e.field, field);
    assert_true(strlen(e.message) > 0);
}

static void expect_msg_refused(const thue_msg *m, const char *field)
{
    thue_decode_error e;
    char *out = thue_msg_encode(m, &e);
    if (out != NULL)
        fail_msg("encoded %s, expected a refusal on %s", out, field);
    assert_string_equal(e.field, field);
    assert_true(strlen(e.message) > 0);
}

static thue_cmd good_create_room(void)
{
    thue_cmd c;
    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_CREATE_ROOM;
    c.u.create_room.variant = THUE_SQUARE;
    c.u.create_room.k = 3;
    c.u.create_room.limit = 100;
    c.u.create_room.first = THUE_FIRST_RANDOM;
    c.u.create_room.seat = 1;
    return c;
}

static void test_codec_cmd_encode_refuses(void **state)
{
    (void)state;
    thue_decode_error e;
    thue_cmd c = good_create_room();
    char *out = thue_cmd_encode(&c, &e);
    assert_non_null(out);
    free(out);
    c.type = THUE_CMD_COUNT;
    expect_cmd_refused(&c, THUE_PERR_TYPE, "type");
    c = good_create_room();
    c.id.kind = THUE_ID_INT;
    c.id.num = -1;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    c.id.num = INT64_C(9007199254740992);
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    c.id.kind = THUE_ID_STR;
    strcpy(c.id.str, "");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    memset(c.id.str, 'x', sizeof c.id.str); /* unterminated */
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    strcpy(c.id.str, "a\tb");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    c.id.kind = (thue_id_kind)7;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "id");
    c = good_create_room();
    c.u.create_room.k = 65;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "k");
    c = good_create_room();
    c.u.create_room.variant = (thue_variant)2;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "variant");
    c = good_create_room();
    c.u.create_room.first = (thue_first_builder)-1;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "first_builder");
    c = good_create_room();
    c.u.create_room.clock.present = 1;
    c.u.create_room.clock.initial_ms = 1000;
    c.u.create_room.clock.increment_ms = 600001;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "clock/increment_ms");
    c = good_create_room();
    c.u.create_room.has_name = 1;
    memset(c.u.create_room.name, 'n', sizeof c.u.create_room.name);
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "name");
    strcpy(c.u.create_room.name, "a\xff"); /* not UTF-8 */
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "name");
    c.u.create_room.has_name = 0; /* not given: the bad name is not looked at */
    out = thue_cmd_encode(&c, &e);
    assert_non_null(out);
    free(out);

    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_HELLO;
    c.u.hello.protocol = 1;
    c.u.hello.has_name = c.u.hello.has_resume = 1;
    strcpy(c.u.hello.name, "Ann");
    strcpy(c.u.hello.resume, "0123456789abcdef0123456789abcdef");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "resume");
    c.u.hello.has_resume = 0;
    strcpy(c.u.hello.name, "nested:1");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "name");

    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_CHAT;
    strcpy(c.u.chat.room, "r1");
    strcpy(c.u.chat.text, "two\nlines");
    out = thue_cmd_encode(&c, &e);
    assert_non_null(out);
    assert_string_equal(out, "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"two\\nlines\"}");
    free(out);
    strcpy(c.u.chat.text, "bell\a");
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "text");
    memset(c.u.chat.text, 'a', 201);
    c.u.chat.text[201] = '\0';
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "text");

    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_CREATE_TOURNAMENT;
    strcpy(c.u.create_tournament.name, "S");
    c.u.create_tournament.format = THUE_FORMAT_SWISS;
    c.u.create_tournament.k = 5;
    c.u.create_tournament.limit = 100;
    c.u.create_tournament.max_players = 8;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "rounds");
    c.u.create_tournament.format = THUE_FORMAT_ROUND_ROBIN;
    out = thue_cmd_encode(&c, &e);
    assert_non_null(out);
    free(out);

    memset(&c, 0, sizeof c);
    c.type = THUE_CMD_PAINT;
    strcpy(c.u.move.room, "r1");
    c.u.move.value = 64;
    expect_cmd_refused(&c, THUE_PERR_MESSAGE, "symbol");
}

static thue_msg decoded(const char *text)
{
    thue_msg m;
    thue_decode_error e;
    if (msg_decode(text, &m, &e) != 0)
        fail_msg("%s: [%s] %s", text, e.field, e.message);
    return m;
}

static void test_codec_msg_encode_refuses(void **state)
{
    (void)state;
    thue_msg m;
    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_COUNT;
    expect_msg_refused(&m, "type");
    m.type = THUE_MSG_OK;
    m.id.kind = THUE_ID_INT;
    m.id.num = 3;
    char *out = thue_msg_encode(&m, NULL);
    assert_string_equal(out, "{\"type\":\"ok\",\"id\":3}");
    free(out);
    m.type = THUE_MSG_MATCH_FOUND;
    strcpy(m.u.match_found.room, "r1");
    expect_msg_refused(&m, "id"); /* an event with an id */

    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_ERROR;
    m.u.error.code = THUE_ETURN;
    strcpy(m.u.error.message, "it is not your turn");
    out = thue_msg_encode(&m, NULL);
    assert_string_equal(out, "{\"type\":\"error\",\"code\":\"not_your_turn\",\"message\":\"it is "
                             "not your turn\"}");
    free(out);
    m.u.error.code = THUE_EINVAL; /* an engine code the table does not have */
    expect_msg_refused(&m, "code");
    m.u.error.code = 0;
    expect_msg_refused(&m, "code");
    m.u.error.code = THUE_PERR_BUSY;
    strcpy(m.u.error.field, "/x");
    expect_msg_refused(&m, "field");

    memset(&m, 0, sizeof m);
    m.type = THUE_MSG_GOODBYE;
    strcpy(m.u.goodbye.reason, "bored");
    expect_msg_refused(&m, "reason");
    memset(m.u.goodbye.reason, 'x', sizeof m.u.goodbye.reason);
    expect_msg_refused(&m, "reason");

    /* Decoded messages made bad one member at a time. */
    thue_msg ok = decoded(ladder_text);
    m = ok;
    thue_ladder_entry entry = ok.u.ladder.entries[0];
    m.u.ladder.entries = &entry;
    entry.rating = NAN;
    expect_msg_refused(&m, "entries/0/rating");
    entry.rating = INFINITY;
    expect_msg_refused(&m, "entries/0/rating");
    entry.rating = 1500;
    entry.rd = -1;
    expect_msg_refused(&m, "entries/0/rd");
    entry.rd = 50;
    strcpy(entry.player.name, "bad name ");
    entry.player.kind = THUE_KIND_ACCOUNT;
    expect_msg_refused(&m, "entries/0/name");
    strcpy(entry.player.name, "Ann");
    m.u.ladder.nentries = 201;
    expect_msg_refused(&m, "entries");
    m.u.ladder.nentries = -1;
    expect_msg_refused(&m, "entries");
    m.u.ladder.nentries = 1;
    m.u.ladder.entries = NULL;
    expect_msg_refused(&m, "entries");
    m.u.ladder.nentries = 0;
    out = thue_msg_encode(&m, NULL);
    assert_non_null(out);
    free(out);
    thue_msg_clear(&ok);

    ok = decoded(room_state_text);
    m = ok;
    uint8_t word[3] = {0, 1, 64};
    m.u.room_state.match.word = word;
    expect_msg_refused(&m, "match/word/2");
    m.u.room_state.match.word = NULL;
    expect_msg_refused(&m, "match/word");
    m = ok;
    m.u.room_state.match.last_move.think_ms = -0.5;
    expect_msg_refused(&m, "match/last_move/think_ms");
    m = ok;
    m.u.room_state.seats[0].has_bot = 1;
    strcpy(m.u.room_state.seats[0].bot, "greedy");
    expect_msg_refused(&m, "players/0/bot");
    m = ok;
    m.u.room_state.match.step = THUE_STEP_OVER;
    expect_msg_refused(&m, "match/to_move");
    m.u.room_state.match.to_move = -1;
    expect_msg_refused(&m, "match/result");
    m.u.room_state.match.has_result = 1;
    m.u.room_state.match.reason = THUE_END_NONE;
    expect_msg_refused(&m, "match/result/reason");
    m.u.room_state.match.reason = THUE_END_RESIGN;
    m.u.room_state.match.winner = 2;
    expect_msg_refused(&m, "match/result/winner");
    m.u.room_state.match.winner = -1;
    out = thue_msg_encode(&m, NULL);
    assert_non_null(strstr(out, "\"result\":{\"winner\":null,\"reason\":\"resign\"}"));
    free(out);
    m = ok;
    m.u.room_state.you = 2;
    expect_msg_refused(&m, "you");
    m = ok;
    m.u.room_state.match.rounds[1].end = THUE_ROUND_LIMIT;
    expect_msg_refused(&m, "match/rounds/1/word");
    m = ok;
    m.u.room_state.version = -1;
    expect_msg_refused(&m, "version");
    thue_msg_clear(&ok);
}

/* ---------------------------------------------------------------- names */

static void test_codec_error_codes(void **state)
{
    (void)state;
#define CHECK_PERR(name, value, wire, msg)                                                         \
    assert_string_equal(thue_proto_err_name(value), wire);                                         \
    assert_string_equal(thue_proto_strerror(value), msg);                                          \
    assert_int_equal(thue_proto_err_code(wire), value);
    THUE_PROTO_ERRNO_MAP(CHECK_PERR)
#undef CHECK_PERR
#define CHECK_ERR(name, value, wire, msg)                                                          \
    assert_string_equal(thue_proto_err_name(value), wire);                                         \
    assert_string_equal(thue_proto_strerror(value), msg);                                          \
    assert_int_equal(thue_proto_err_code(wire), value);                                            \
    assert_string_equal(thue_proto_err_name(value), thue_err_name(value));                         \
    assert_string_equal(thue_proto_strerror(value), thue_strerror(value));
    THUE_ERRNO_MAP(CHECK_ERR)
#undef CHECK_ERR
    assert_string_equal(thue_proto_err_name(0), "internal");
    assert_string_equal(thue_proto_err_name(12345), "internal");
    assert_string_equal(thue_proto_err_name(-99), "internal");
    assert_string_equal(thue_proto_strerror(-99), thue_proto_strerror(THUE_PERR_INTERNAL));
    assert_int_equal(thue_proto_err_code("nope"), 0);
    assert_int_equal(thue_proto_err_code(""), 0);
    assert_int_equal(thue_proto_err_code(NULL), 0);
    assert_int_equal(thue_proto_err_code("ok"), 0);
    /* The game codes are the engine's names. */
    assert_int_equal(thue_proto_err_code("not_your_turn"), THUE_ETURN);
    assert_int_equal(thue_proto_err_code("match_over"), THUE_EOVER);
    /* Every code an error message may carry encodes and decodes. */
    static const int wire[] = {
#define LIST_PERR(name, value, wire, msg) value,
        THUE_PROTO_ERRNO_MAP(LIST_PERR)
#undef LIST_PERR
            THUE_ETURN,
        THUE_ESTEP, THUE_EPOSITION, THUE_ESYMBOL, THUE_EOVER};
    for (size_t i = 0; i < sizeof wire / sizeof wire[0]; i++) {
        thue_msg m;
        memset(&m, 0, sizeof m);
        m.type = THUE_MSG_ERROR;
        m.id.kind = THUE_ID_STR;
        strcpy(m.id.str, "x");
        m.u.error.code = wire[i];
        snprintf(m.u.error.message, sizeof m.u.error.message, "%s", thue_proto_strerror(wire[i]));
        char *out = thue_msg_encode(&m, NULL);
        assert_non_null(out);
        thue_msg back;
        thue_decode_error e;
        assert_int_equal(msg_decode(out, &back, &e), 0);
        assert_int_equal(back.u.error.code, wire[i]);
        assert_string_equal(back.u.error.field, "");
        free(out);
    }
}

static void test_codec_enum_names(void **state)
{
    (void)state;
    static const char *const cmds[] = {"hello",
                                       "ping",
                                       "claim_name",
                                       "create_room",
                                       "list_rooms",
                                       "join",
                                       "spectate",
                                       "leave",
                                       "seat_bot",
                                       "ready",
                                       "place",
                                       "paint",
                                       "resign",
                                       "rematch",
                                       "queue_join",
                                       "queue_leave",
                                       "chat",
                                       "get_ladder",
                                       "list_tournaments",
                                       "get_tournament",
                                       "create_tournament",
                                       "join_tournament",
                                       "leave_tournament",
                                       "start_tournament"};
    static const char *const msgs[] = {
        "welcome",         "pong",        "ok",           "error",
        "goodbye",         "account",     "room_created", "rooms",
        "room_state",      "match_end",   "chat_message", "match_found",
        "ladder",          "tournaments", "tournament",   "tournament_created",
        "tournament_event"};
    assert_int_equal(sizeof cmds / sizeof cmds[0], THUE_CMD_COUNT);
    assert_int_equal(sizeof msgs / sizeof msgs[0], THUE_MSG_COUNT);
    for (int i = 0; i < THUE_CMD_COUNT; i++)
        assert_string_equal(thue_cmd_type_name((thue_cmd_type)i), cmds[i]);
    for (int i = 0; i < THUE_MSG_COUNT; i++)
        assert_string_equal(thue_msg_type_name((thue_msg_type)i), msgs[i]);
    assert_null(thue_cmd_type_name(THUE_CMD_COUNT));
    assert_null(thue_cmd_type_name((thue_cmd_type)-1));
    assert_null(thue_msg_type_name(THUE_MSG_COUNT));
    assert_string_equal(thue_first_builder_name(THUE_FIRST_RANDOM), "random");
    assert_string_equal(thue_first_builder_name(THUE_FIRST_CREATOR), "creator");
    assert_string_equal(thue_first_builder_name(THUE_FIRST_OPPONENT), "opponent");
    assert_null(thue_first_builder_name((thue_first_builder)3));
    assert_string_equal(thue_room_status_name(THUE_STATUS_WAITING), "waiting");
    assert_string_equal(thue_room_status_name(THUE_STATUS_PLAYING), "playing");
    assert_string_equal(thue_room_status_name(THUE_STATUS_FINISHED), "finished");
    assert_null(thue_room_status_name((thue_room_status)3));
    assert_string_equal(thue_player_kind_name(THUE_KIND_GUEST), "guest");
    assert_string_equal(thue_player_kind_name(THUE_KIND_ACCOUNT), "account");
    assert_string_equal(thue_player_kind_name(THUE_KIND_BOT), "bot");
    assert_null(thue_player_kind_name((thue_player_kind)-1));
    assert_string_equal(thue_ladder_kind_name(THUE_LADDER_ALL), "all");
    assert_string_equal(thue_ladder_kind_name(THUE_LADDER_HUMAN), "human");
    assert_string_equal(thue_ladder_kind_name(THUE_LADDER_BOT), "bot");
    assert_null(thue_ladder_kind_name((thue_ladder_kind)3));
    assert_string_equal(thue_tournament_format_name(THUE_FORMAT_ROUND_ROBIN), "round_robin");
    assert_string_equal(thue_tournament_format_name(THUE_FORMAT_SWISS), "swiss");
    assert_null(thue_tournament_format_name((thue_tournament_format)2));
    /* Every command type decodes from its name (those with members from a minimal text). */
    for (int i = 0; i < THUE_CMD_COUNT; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\"type\":\"%s\"}", cmds[i]);
        thue_cmd c;
        thue_decode_error e;
        int rc = cmd_decode(text, &c, &e);
        /* Either decoded (no required member) or refused for a member, never the type. */
        assert_true(rc == 0 || (rc == THUE_PERR_MESSAGE && strcmp(e.field, "type") != 0));
        if (rc == 0)
            assert_int_equal(c.type, i);
    }
}

/* The character rules on their own: letters of any script, the edges of UTF-8. */
static void test_codec_string_rules(void **state)
{
    (void)state;
    static const struct {
        thue__str_rule rule;
        const char *s;
        int ok;
    } cases[] = {
        {THUE__S_NAME, "Ann", 1},
        {THUE__S_NAME, "Ann Lee-Smith_2.", 1},
        {THUE__S_NAME, "\xd0\x96\xd0\xb5\xd0\xbd\xd1\x8f", 1}, /* Женя */
        {THUE__S_NAME, "\xe5\xbc\xa0\xe4\xbc\x9f", 1},         /* 张伟 */
        {THUE__S_NAME, "\xd9\xa3", 1},                         /* Arabic-Indic digit 3 */
        {THUE__S_NAME, "a\xcc\x81", 0},                        /* a + combining acute */
        {THUE__S_NAME, "\xc2\xbd", 0},                         /* ½: a number, no digit */
        {THUE__S_NAME, " a", 0},
        {THUE__S_NAME, "a ", 0},
        {THUE__S_NAME, "a  b", 1},
        {THUE__S_NAME, "", 0},
        {THUE__S_NAME, "abcdefghijklmnopqrstuvwx", 1},
        {THUE__S_NAME, "abcdefghijklmnopqrstuvwxy", 0},
        {THUE__S_NAME, "\xc0\xaf", 0},         /* overlong */
        {THUE__S_NAME, "\xed\xa0\x80", 0},     /* surrogate */
        {THUE__S_NAME, "\xf4\x90\x80\x80", 0}, /* past U+10FFFF */
        {THUE__S_NAME, "\xe4\xbc", 0},         /* truncated */
        {THUE__S_ANYNAME, "uct:c=1.4,iterations=9", 1},
        {THUE__S_ANYNAME, "nested:1", 1},
        {THUE__S_ANYNAME, "\xc3\xa9t\xc3\xa9!", 1},
        {THUE__S_ANYNAME, " a ", 1},
        {THUE__S_ANYNAME, "a\x7f", 0},
        {THUE__S_ANYNAME, "abcdefghijklmnopqrstuvwxy", 0},
        {THUE__S_CHAT, "a\nb", 1},
        {THUE__S_CHAT, "a\rb", 0},
        {THUE__S_CHAT, "\xc2\x85", 1}, /* U+0085 is no control character here */
        {THUE__S_TITLE, "\x7f", 0},
        {THUE__S_TEXT, "", 0},
        {THUE__S_SERVER, "thue-server 0.1.0", 1},
        {THUE__S_SERVER, "\xc3\xa9", 0},
        {THUE__S_FIELD, "players/1/name", 1},
        {THUE__S_FIELD, "/x", 0},
        {THUE__S_RESUME, "0123456789abcdef0123456789abcdef", 1},
        {THUE__S_RESUME, "0123456789abcdef0123456789abcde", 0},
        {THUE__S_KEY, "A-z_9", 1},
        {THUE__S_KEY, "a.b", 0},
        {THUE__S_ID, " ", 1},
        {THUE__S_ID, "~\x7f", 0},
        {(thue__str_rule)99, "a", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (thue__str_ok(cases[i].rule, cases[i].s, strlen(cases[i].s)) != cases[i].ok)
            fail_msg("rule %d, \"%s\": want %d", cases[i].rule, cases[i].s, cases[i].ok);
    /* Every rule fits the buffers of codec.h. */
    assert_true(thue__str_rule_bytes(THUE__S_NAME) < sizeof(((thue_player *)0)->name));
    assert_true(thue__str_rule_bytes(THUE__S_ANYNAME) < sizeof(((thue_player *)0)->name));
    assert_true(thue__str_rule_bytes(THUE__S_CHAT) < sizeof(((thue_cmd *)0)->u.chat.text));
    assert_true(thue__str_rule_bytes(THUE__S_TITLE) < sizeof(((thue_cmd *)0)->u.create_room.name));
    assert_true(thue__str_rule_bytes(THUE__S_TEXT) < sizeof(((thue_msg *)0)->u.error.message));
    assert_true(thue__str_rule_bytes(THUE__S_SERVER) < sizeof(((thue_msg *)0)->u.welcome.server));
    assert_true(thue__str_rule_bytes(THUE__S_FIELD) < sizeof(((thue_msg *)0)->u.error.field));

    assert_true(thue__str_rule_bytes(THUE__S_SPEC) < sizeof(((thue_seat *)0)->bot));
    assert_true(thue__str_rule_bytes(THUE__S_ID) < sizeof(((thue_msg_id *)0)->str));
}

int main(void)
{
    thue_codec_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec_golden_vectors),
        cmocka_unit_test(test_codec_error_paths),
        cmocka_unit_test(test_codec_error_paths_covered),
        cmocka_unit_test(test_codec_error_paths_long),
        cmocka_unit_test(test_codec_size_limit),
        cmocka_unit_test(test_codec_deep_nesting),
        cmocka_unit_test(test_codec_big_numbers),
        cmocka_unit_test(test_codec_double_format),
        cmocka_unit_test(test_codec_id_echo),
        cmocka_unit_test(test_codec_defaults),
        cmocka_unit_test(test_codec_server_roundtrips),
        cmocka_unit_test(test_codec_msg_clear),
        cmocka_unit_test(test_codec_cmd_encode_refuses),
        cmocka_unit_test(test_codec_msg_encode_refuses),
        cmocka_unit_test(test_codec_error_codes),
        cmocka_unit_test(test_codec_enum_names),
        cmocka_unit_test(test_codec_string_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
