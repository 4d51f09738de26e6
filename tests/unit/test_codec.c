/*
 * test_codec.c: the wire protocol's codec (protocol/codec.h), reading side.
 *
 * - the golden vectors (tests/vectors/protocol.jsonl, read with jansson; the file may be
 *   empty or still growing): every valid one decodes and encodes to exactly its canonical
 *   text, every invalid one fails with its code (and field when given);
 * - every error path of the decoder, from a checklist (error_paths[]): each entry of the
 *   table decode_errors[] names the path it takes, and a test checks that every path of
 *   the list is taken at least once, with its code, field and the rule in the message;
 * test_codec_limits.c has the limits (size, depth, numbers, the fast paths, chat
 * characters), test_codec_api.c the rest (ids, defaults, encoders, names).
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

#include "codec_samples.h"
#include "protocol/codec.h"
#include "protocol/codec_internal.h"

#ifndef THUE_VECTORS_DIR
#define THUE_VECTORS_DIR "tests/vectors"
#endif

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
        "without control characters (C0, DEL, C1), line separators"),
    CMD("string/chat", "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"gg\\nAl: I resign\"}", BAD,
        "text", "text must be a string of 1 to 200 characters without control characters"),
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
        "reason", "reason must be \"replaced\", \"shutdown\", \"idle\", \"abuse\" or \"slow\""),
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
    SRV("list/missing", "{\"type\":\"tournaments\",\"offset\":0,\"total\":0}", BAD, "tournaments",
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

int main(void)
{
    thue_codec_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec_golden_vectors),
        cmocka_unit_test(test_codec_error_paths),
        cmocka_unit_test(test_codec_error_paths_covered),
        cmocka_unit_test(test_codec_error_paths_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
