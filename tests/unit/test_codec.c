/*
 * test_codec.c: the wire protocol's codec (protocol/codec.h), reading side.
 *
 * - the golden vectors (tests/vectors/protocol.jsonl, read with jansson; the file may be
 *   empty or still growing): every valid one decodes and encodes to exactly its canonical
 *   text, every invalid one fails with its code (and field when given);
 * - every error path of the decoder, from a checklist (error_paths[]): each entry of the
 *   table decode_errors[] names the path it takes, and a test checks that every path of
 *   the list is taken at least once, with its code, field and the rule in the message;
 * - the size limit (16384 accepted, 16385 refused), nesting (100000 '[' refused without
 *   recursion), numbers jansson cannot hold (2^63, -0, 1e400), and the canonical forms
 *   of doubles (against the shortest round trip).
 * test_codec_api.c has the rest (ids, defaults, encoders, names).
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
    /* Numbers of at most three decimals take a short cut: the same text as the search,
     * over every magnitude (and with a sign), and integers and halves among them. */
    char slow[THUE__DOUBLE_MAX];
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t scale = 1;
        for (int j = (int)(x % 16); j > 0; j--)
            scale *= 10;
        int64_t m = (int64_t)((x >> 8) % (uint64_t)scale) + 1;
        double d = (double)m / (i % 3 == 0 ? 1.0 : i % 3 == 1 ? 2.0 : 1000.0);
        if (i % 5 == 0)
            d = -d;
        size_t n = thue__fmt_double(d, buf);
        size_t ns = thue__fmt_double_search(d, slow);
        if (n != ns || strcmp(buf, slow) != 0)
            fail_msg("%.17g: the short cut wrote %s, the search %s", d, buf, slow);
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

/* thue__buf_i64 writes what printf's %lld writes. */
static void test_codec_int_format(void **state)
{
    (void)state;
    static const int64_t edges[] = {0, 1, -1, 9, 10, -10, 99, 100, INT64_MAX, INT64_MIN,
                                    INT64_MIN + 1, 9007199254740991LL, -9007199254740991LL};
    uint64_t x = 0x2545f4914f6cdd1dULL;
    for (int i = 0; i < 100000; i++) {
        int64_t v;
        if (i < (int)(sizeof edges / sizeof edges[0])) {
            v = edges[i];
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v = (int64_t)(x >> (x % 64)); /* every magnitude */
            if (x & 1)
                v = -v;
        }
        thue__buf b = {0};
        thue__buf_i64(&b, v);
        char want[32];
        snprintf(want, sizeof want, "%lld", (long long)v);
        assert_false(b.oom);
        if (b.len != strlen(want) || memcmp(b.p, want, b.len) != 0)
            fail_msg("%s written as %.*s", want, (int)b.len, b.p);
        free(b.p);
    }
}

/* Words are written a chunk at a time: every symbol 0..63 (one and two digits) over more
 * than a chunk, back to the same text; a symbol of 64 fails with its index. */
static void test_codec_word_encode(void **state)
{
    (void)state;
    char list[4 * 1000 + 1];
    size_t k = 0;
    for (int i = 0; i < 1000; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%d", i ? "," : "", (i * 37) % 64);
    char word[sizeof list + 16];
    snprintf(word, sizeof word, "\"word\":[%s]", list);
    char *text = subst(room_state_text, "\"word\":[0,1,2]", word);
    thue_msg m;
    thue_decode_error e;
    assert_int_equal(thue_msg_decode(text, strlen(text), &m, &e), 0);
    assert_int_equal(m.u.room_state.match.word_len, 1000);
    char *out = thue_msg_encode(&m, &e);
    assert_non_null(out);
    assert_string_equal(out, text);
    free(out);
    uint8_t *w = (uint8_t *)m.u.room_state.match.word;
    for (int bad = 0; bad < 1000; bad += 333) {
        uint8_t keep = w[bad];
        w[bad] = 64;
        assert_null(thue_msg_encode(&m, &e));
        char field[32];
        snprintf(field, sizeof field, "match/word/%d", bad);
        assert_string_equal(e.field, field);
        w[bad] = keep;
    }
    thue_msg_clear(&m);
    free(text);
}

/* thue_cmd_decode and the full decoder on one text: the same result, the same command and
 * the same error, byte for byte. */
static void same_decoding(const char *text, size_t n)
{
    thue_cmd a, b;
    thue_decode_error ea, eb;
    int ra = thue_cmd_decode(text, n, &a, &ea);
    int rb = thue__cmd_decode_full(text, n, &b, &eb);
    if (ra != rb || memcmp(&ea, &eb, sizeof ea) != 0 || (ra == 0 && memcmp(&a, &b, sizeof a) != 0))
        fail_msg("the fast path and the full decoder differ on '%.*s' (%d vs %d)", (int)n, text, ra,
                 rb);
}

/* The fast path for canonical moves: random canonical moves, the limits of each number,
 * and every one-byte change, deletion and cut of a few, against the full decoder. */
static void test_codec_fast_move(void **state)
{
    (void)state;
    static const char *fixed[] = {
        "{\"type\":\"place\",\"id\":0,\"room\":\"r1\",\"position\":0}",
        "{\"type\":\"paint\",\"id\":9007199254740991,\"room\":\"r1\",\"symbol\":63}",
        "{\"type\":\"paint\",\"id\":9007199254740992,\"room\":\"r1\",\"symbol\":1}",
        "{\"type\":\"paint\",\"id\":1,\"room\":\"r1\",\"symbol\":64}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":10000}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":10001}",
        "{\"type\":\"place\",\"id\":01,\"room\":\"r1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":1.0}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":1e1}",
        "{\"type\":\"place\",\"id\":-1,\"room\":\"r1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r\\u0031\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r 1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"abcdefghijklmnopqrstuvwxyz0123456\",\"position\":"
        "1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"abcdefghijklmnopqrstuvwxyz012345\",\"position\":"
        "1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"symbol\":1}",
        "{\"type\":\"paint\",\"id\":1,\"room\":\"r1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":1} ",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":1,\"x\":1}",
        "{\"type\":\"place\",\"id\":\"a\",\"room\":\"r1\",\"position\":1}",
        "{\"type\":\"place\",\"id\":1,\"room\":\"r1\",\"position\":99999999999999999}",
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        same_decoding(fixed[i], strlen(fixed[i]));

    static const char alphabet[] = "\"{}:,\\ 0123456789-_.eEaz\x01\x7f\xc3";
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        char room[40];
        int rn = 1 + (int)(x % 32);
        for (int k = 0; k < rn; k++)
            room[k] = "abcXYZ019_-"[(x >> (k % 50)) % 11];
        room[rn] = '\0';
        int paint = (int)(x >> 7) & 1;
        char text[200];
        int n = snprintf(
            text, sizeof text, "{\"type\":\"%s\",\"id\":%llu,\"room\":\"%s\",\"%s\":%d}",
            paint ? "paint" : "place", (unsigned long long)((x >> 11) % 9007199254740992ULL), room,
            paint ? "symbol" : "position", (int)((x >> 20) % (paint ? 70 : 10010)));
        same_decoding(text, (size_t)n);
        if (i % 100 != 0)
            continue;
        char m[200];
        for (int at = 0; at < n; at++) {
            for (size_t c = 0; c < sizeof alphabet - 1; c++) { /* one byte changed */
                memcpy(m, text, (size_t)n);
                m[at] = alphabet[c];
                same_decoding(m, (size_t)n);
            }
            memcpy(m, text, (size_t)at); /* one byte gone */
            memcpy(m + at, text + at + 1, (size_t)(n - at - 1));
            same_decoding(m, (size_t)n - 1);
            same_decoding(text, (size_t)at); /* cut short */
        }
    }
}

/* The code points a chat text may not hold, listed one by one (PROTOCOL.md section 8):
 * the reference the chat rule is checked against. */
static int chat_forbidden_ref(uint32_t cp)
{
    static const uint32_t listed[] = {
        0x00,   0x01,   0x02,   0x03,   0x04,   0x05,   0x06,   0x07,   0x08,   0x09,  0x0a,
        0x0b,   0x0c,   0x0d,   0x0e,   0x0f,   0x10,   0x11,   0x12,   0x13,   0x14,  0x15,
        0x16,   0x17,   0x18,   0x19,   0x1a,   0x1b,   0x1c,   0x1d,   0x1e,   0x1f,  0x7f,
        0x80,   0x81,   0x82,   0x83,   0x84,   0x85,   0x86,   0x87,   0x88,   0x89,  0x8a,
        0x8b,   0x8c,   0x8d,   0x8e,   0x8f,   0x90,   0x91,   0x92,   0x93,   0x94,  0x95,
        0x96,   0x97,   0x98,   0x99,   0x9a,   0x9b,   0x9c,   0x9d,   0x9e,   0x9f,  0x2028,
        0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069};
    for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++)
        if (listed[i] == cp)
            return 1;
    return 0;
}

/* Every code point, alone and between two letters, is allowed in a chat text exactly
 * when the reference does not list it. */
static void test_codec_chat_characters(void **state)
{
    (void)state;
    int refused = 0;
    for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff)
            continue; /* not characters: UTF-8 cannot hold them */
        char b[8] = "a";
        size_t n = 1;
        if (cp < 0x80) {
            b[n++] = (char)cp;
        } else if (cp < 0x800) {
            b[n++] = (char)(0xc0 | (cp >> 6));
            b[n++] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            b[n++] = (char)(0xe0 | (cp >> 12));
            b[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            b[n++] = (char)(0x80 | (cp & 0x3f));
        } else {
            b[n++] = (char)(0xf0 | (cp >> 18));
            b[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
            b[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            b[n++] = (char)(0x80 | (cp & 0x3f));
        }
        b[n++] = 'z';
        int want = !chat_forbidden_ref(cp);
        if (thue__str_ok(THUE__S_CHAT, b, n) != want ||
            thue__str_ok(THUE__S_CHAT, b + 1, n - 2) != want)
            fail_msg("U+%04X: the chat rule says %d, the reference %d", (unsigned)cp, !want, want);
        refused += !want;
    }
    assert_int_equal(refused, 32 + 33 + 7 + 4);
    /* and the decoder applies it to chat's text, naming the member */
    thue_cmd cmd;
    thue_decode_error err;
    static const char forged[] =
        "{\"type\":\"chat\",\"room\":\"r1\",\"text\":\"gg\\nAl: I resign\"}";
    assert_int_equal(thue_cmd_decode(forged, strlen(forged), &cmd, &err), THUE_PERR_MESSAGE);
    assert_string_equal(err.field, "text");
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
        cmocka_unit_test(test_codec_int_format),
        cmocka_unit_test(test_codec_fast_move),
        cmocka_unit_test(test_codec_word_encode),
        cmocka_unit_test(test_codec_chat_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
