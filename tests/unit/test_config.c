/*
 * test_config.c: the server's settings (server/config.h): defaults, the config file, the
 * environment, flags, their precedence and every kind of error.
 *
 * Every test starts with no THUE_* variable in the environment (setup), and sets what it
 * needs with setenv. Config files are temporary files from mkstemp, removed afterwards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

extern char **environ;

#define ERR_SIZE 512
#define MAX_ARGS 32

/* ---- helpers ---- */

static void clear_thue_env(void)
{
    /* Collect first: unsetenv changes environ. */
    char names[64][128];
    int n;
    do {
        n = 0;
        for (char **e = environ; *e != NULL && n < 64; e++) {
            if (strncmp(*e, "THUE_", 5) != 0)
                continue;
            const char *eq = strchr(*e, '=');
            size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
            if (len >= sizeof names[0])
                continue;
            memcpy(names[n], *e, len);
            names[n][len] = '\0';
            n++;
        }
        for (int i = 0; i < n; i++)
            unsetenv(names[i]);
    } while (n == 64);
}

static int setup(void **state)
{
    (void)state;
    clear_thue_env();
    return 0;
}

/* thue_config_load with argv = {"thue-server", args..., NULL}; args ends with NULL. */
static int load_list(thue_config *c, char *err, const char *const *args)
{
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"thue-server";
    for (; *args != NULL; args++) {
        assert_true(argc <= MAX_ARGS);
        argv[argc++] = (char *)*args;
    }
    argv[argc] = NULL;
    err[0] = 'x'; /* load must clear or overwrite it */
    err[1] = '\0';
    return thue_config_load(c, argc, argv, err, ERR_SIZE);
}

#define LOAD(c, err, ...) load_list(c, err, (const char *const[]){__VA_ARGS__, NULL})
#define LOAD0(c, err) load_list(c, err, (const char *const[]){NULL})

/* Loads and expects success (err empty). */
#define LOAD_OK(c, ...)                                                                            \
    do {                                                                                           \
        char err_[ERR_SIZE];                                                                       \
        int r_ = LOAD(c, err_, __VA_ARGS__);                                                       \
        if (r_ != 0)                                                                               \
            fail_msg("load failed (%d): %s", r_, err_);                                            \
        assert_string_equal(err_, "");                                                             \
    } while (0)

/* Loads and expects failure with exactly the message want. */
#define LOAD_ERR(want, ...)                                                                        \
    do {                                                                                           \
        thue_config c_;                                                                            \
        char err_[ERR_SIZE];                                                                       \
        assert_int_equal(LOAD(&c_, err_, __VA_ARGS__), -1);                                        \
        assert_string_equal(err_, want);                                                           \
    } while (0)

/* A temporary file holding text; returns its path (free it, and unlink the file). */
static char *temp_file(const char *text)
{
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    size_t size = strlen(dir) + 64;
    char *path = malloc(size);
    assert_non_null(path);
    snprintf(path, size, "%s/thue-config-test-XXXXXX", dir);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

static void remove_temp(char *path)
{
    unlink(path);
    free(path);
}

/* Expects the config file holding text to fail with "PATH" + suffix. */
static void expect_file_error(const char *text, const char *suffix)
{
    char *path = temp_file(text);
    char want[ERR_SIZE];
    snprintf(want, sizeof want, "%s%s", path, suffix);
    LOAD_ERR(want, "--config", path);
    remove_temp(path);
}

/* Runs thue_config_load with argv and returns what it printed on stdout (free it). */
static char *capture_stdout(const char *const *args, int *ret)
{
    char *path = temp_file("");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(dup2(fileno(f), STDOUT_FILENO) >= 0);
    thue_config c;
    char err[ERR_SIZE];
    *ret = load_list(&c, err, args);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    fclose(f);

    f = fopen(path, "rb");
    assert_non_null(f);
    char *out = calloc(1, 65536);
    assert_non_null(out);
    size_t n = fread(out, 1, 65535, f);
    out[n] = '\0';
    fclose(f);
    remove_temp(path);
    return out;
}

static int expected_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* ---- the settings as the tests know them ---- */

typedef enum { T_INT, T_STR, T_LEVEL, T_REAL } tkind;

typedef struct tsetting {
    const char *name; /* flag name without dashes */
    tkind kind;
    size_t offset;
    long long min, max; /* T_INT */
    const char *text;   /* a valid non-default value as text */
    const char *range;  /* T_REAL: the range as documented */
} tsetting;

#define TINT(name, member, lo, hi, text)                                                           \
    {                                                                                              \
        name, T_INT, offsetof(thue_config, member), lo, hi, text, NULL                             \
    }
#define TSTR(name, member, text)                                                                   \
    {                                                                                              \
        name, T_STR, offsetof(thue_config, member), 0, 0, text, NULL                               \
    }
#define TREAL(name, member, range, text)                                                           \
    {                                                                                              \
        name, T_REAL, offsetof(thue_config, member), 0, 0, text, range                             \
    }

/* Every setting of config.h, with its documented range. */
static const tsetting tsettings[] = {
    TINT("port", port, 0, 65535, "9000"),
    TSTR("bind", bind, "127.0.0.1"),
    TSTR("web-root", web_root, "/srv/thue/web"),
    TSTR("db", db, "/var/lib/thue/thue.db"),
    TINT("threads", threads, 1, 256, "3"),
    {"log-level", T_LEVEL, offsetof(thue_config, log_level), 0, 0, "debug", NULL},
    TINT("grace-s", grace_s, 0, 3600, "15"),
    TINT("max-connections", max_connections, 1, 1000000, "777"),
    TINT("max-connections-per-ip", max_connections_per_ip, 1, 1000000, "9"),
    TINT("max-rooms-per-player", max_rooms_per_player, 1, 1000, "2"),
    TINT("rate", rate, 1, 10000, "7"),
    TINT("burst", burst, 1, 100000, "11"),
    TINT("ping-s", ping_s, 1, 3600, "25"),
    TINT("idle-s", idle_s, 2, 7200, "45"),
    TINT("send-max-kib", send_max_kib, 16, 1048576, "64"),
    TINT("send-total-max-mib", send_total_max_mib, 1, 65536, "8"),
    TINT("room-linger-s", room_linger_s, 1, 86400, "61"),
    TINT("bot-think-ms", bot_think_ms, 10, 60000, "250"),
    TINT("bot-think-max-ms", bot_think_max_ms, 10, 60000, "30000"),
    TINT("bot-seats-per-owner", bot_seats_per_owner, 1, 100000, "2"),
    TINT("guest-bot-vs-bot", guest_bot_vs_bot, 0, 1, "1"),
    TINT("max-rooms", max_rooms, 1, 1000000, "33"),
    TINT("room-rate-per-ip", room_rate_per_ip, 1, 1000000, "7"),
    TINT("max-tournaments", max_tournaments, 1, 100000, "12"),
    TINT("tournaments-per-account", tournaments_per_account, 1, 1000, "2"),
    TINT("tournaments-per-ip", tournaments_per_ip, 1, 100000, "4"),
    TINT("tournament-rate", tournament_rate, 1, 100000, "5"),
    TINT("tournament-expire-s", tournament_expire_s, 1, 2592000, "120"),
    TINT("claims-per-ip", claims_per_ip, 1, 100000, "3"),
    TINT("rated-min-moves", rated_min_moves, 0, 1000, "4"),
    TINT("rated-pair-max", rated_pair_max, 1, 100000, "9"),
    TREAL("glicko-tau", glicko_tau, "0.2..1.2", "0.7"),
    TSTR("trusted-proxy", trusted_proxy, "10.0.0.1"),
    TINT("request-timeout-s", request_timeout_s, 1, 3600, "20"),
    TINT("api-rate", api_rate, 1, 100000, "5"),
    TINT("api-burst", api_burst, 1, 1000000, "7"),
};

#define NTSETTINGS (sizeof tsettings / sizeof tsettings[0])

static void env_name(const tsetting *s, char *buf, size_t size)
{
    snprintf(buf, size, "THUE_%s", s->name);
    for (char *p = buf; *p != '\0'; p++)
        *p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
}

/* Checks that c holds s's test value (text). */
static void check_value(const thue_config *c, const tsetting *s, const char *text)
{
    const char *base = (const char *)c + s->offset;
    switch (s->kind) {
    case T_INT:
        assert_int_equal(*(const int *)(const void *)base, atoi(text));
        break;
    case T_STR:
        assert_string_equal(base, text);
        break;
    case T_LEVEL: {
        thue_log_level want;
        assert_int_equal(thue_log_parse_level(text, &want), 0);
        assert_int_equal(*(const thue_log_level *)(const void *)base, want);
        break;
    }
    case T_REAL: {
        double have = *(const double *)(const void *)base, want = strtod(text, NULL);
        if (!(have == want))
            fail_msg("%s: %.17g, expected %.17g", s->name, have, want);
        break;
    }
    }
}

/* Expects c's tau to be exactly want. */
static void check_tau(const thue_config *c, double want)
{
    if (!(c->glicko_tau == want))
        fail_msg("glicko_tau %.17g, expected %.17g", c->glicko_tau, want);
}

/* ---- tests ---- */

static void test_defaults(void **state)
{
    (void)state;
    thue_config a, b;
    thue_config_defaults(&a);
    assert_int_equal(a.port, 8080);
    assert_string_equal(a.bind, "0.0.0.0");
    assert_string_equal(a.web_root, THUE_WEB_ROOT_DEFAULT);
    assert_string_equal(a.db, "./thue.db");
    assert_int_equal(a.threads, expected_threads());
    assert_int_equal(a.log_level, THUE_LOG_INFO);
    assert_int_equal(a.grace_s, 60);
    assert_int_equal(a.max_connections, 20000);
    assert_int_equal(a.max_connections_per_ip, 200);
    assert_int_equal(a.max_rooms_per_player, 5);
    assert_int_equal(a.rate, 20);
    assert_int_equal(a.burst, 40);
    assert_int_equal(a.ping_s, 30);
    assert_int_equal(a.idle_s, 60);
    assert_int_equal(a.send_max_kib, 256);
    assert_int_equal(a.send_total_max_mib, 64);
    assert_int_equal(a.room_linger_s, 300);
    assert_int_equal(a.bot_think_ms, 2000);
    assert_int_equal(a.bot_think_max_ms, 60000);
    assert_int_equal(a.bot_seats_per_owner, 4);
    assert_int_equal(a.guest_bot_vs_bot, 0);
    assert_int_equal(a.max_rooms, 10000);
    assert_int_equal(a.room_rate_per_ip, 60);
    assert_int_equal(a.max_tournaments, 1000);
    assert_int_equal(a.tournaments_per_account, 3);
    assert_int_equal(a.tournaments_per_ip, 10);
    assert_int_equal(a.tournament_rate, 10);
    assert_int_equal(a.tournament_expire_s, 86400);
    assert_int_equal(a.claims_per_ip, 5);
    assert_int_equal(a.rated_min_moves, 2);
    assert_int_equal(a.rated_pair_max, 5);
    check_tau(&a, 0.5);

    /* No flags, no environment, no file: the defaults, field for field. */
    char err[ERR_SIZE];
    memset(&b, 0x5a, sizeof b);
    assert_int_equal(LOAD0(&b, err), 0);
    assert_string_equal(err, "");
    assert_int_equal(b.port, a.port);
    assert_string_equal(b.bind, a.bind);
    assert_string_equal(b.web_root, a.web_root);
    assert_string_equal(b.db, a.db);
    assert_int_equal(b.threads, a.threads);
    assert_int_equal(b.log_level, a.log_level);
    assert_int_equal(b.max_rooms, a.max_rooms);
    assert_int_equal(b.idle_s, a.idle_s);
    check_tau(&b, 0.5);
}

/* Each setting through each source and each flag form. */
static void test_every_setting_every_source(void **state)
{
    (void)state;
    for (size_t i = 0; i < NTSETTINGS; i++) {
        const tsetting *s = &tsettings[i];
        thue_config c;
        char flag[64], flag_eq[128], env[64];
        snprintf(flag, sizeof flag, "--%s", s->name);
        snprintf(flag_eq, sizeof flag_eq, "--%s=%s", s->name, s->text);
        env_name(s, env, sizeof env);

        /* ping-s and idle-s must stay ordered: the test values are below idle-s 60 and
         * above ping-s 30. */
        LOAD_OK(&c, flag, s->text);
        check_value(&c, s, s->text);
        LOAD_OK(&c, flag_eq);
        check_value(&c, s, s->text);

        assert_int_equal(setenv(env, s->text, 1), 0);
        char err0[ERR_SIZE];
        assert_int_equal(LOAD0(&c, err0), 0);
        check_value(&c, s, s->text);
        unsetenv(env);

        char json[256];
        if (s->kind == T_INT || s->kind == T_REAL)
            snprintf(json, sizeof json, "{\"%s\": %s}", s->name, s->text);
        else
            snprintf(json, sizeof json, "{\"%s\": \"%s\"}", s->name, s->text);
        char *path = temp_file(json);
        LOAD_OK(&c, "--config", path);
        check_value(&c, s, s->text);
        /* THUE_CONFIG names the file as well. */
        assert_int_equal(setenv("THUE_CONFIG", path, 1), 0);
        char err[ERR_SIZE];
        assert_int_equal(LOAD0(&c, err), 0);
        check_value(&c, s, s->text);
        unsetenv("THUE_CONFIG");
        remove_temp(path);
    }
}

/* Integer settings accept both ends of their range and refuse one past each, in every
 * source. */
static void test_ranges(void **state)
{
    (void)state;
    for (size_t i = 0; i < NTSETTINGS; i++) {
        const tsetting *s = &tsettings[i];
        if (s->kind != T_INT)
            continue;
        char flag[64], env[64], text[32], want[ERR_SIZE];
        snprintf(flag, sizeof flag, "--%s", s->name);
        env_name(s, env, sizeof env);
        const long long ok[2] = {s->min, s->max}, bad[2] = {s->min - 1, s->max + 1};
        for (int e = 0; e < 2; e++) {
            thue_config c;
            char err[ERR_SIZE];
            snprintf(text, sizeof text, "%lld", ok[e]);
            /* ping-s must stay below idle-s: move the other one out of the way. */
            /* bot-think-ms must stay at most bot-think-max-ms: likewise. */
            int r = strcmp(s->name, "ping-s") == 0   ? LOAD(&c, err, flag, text, "--idle-s", "7200")
                    : strcmp(s->name, "idle-s") == 0 ? LOAD(&c, err, flag, text, "--ping-s", "1")
                    : strcmp(s->name, "bot-think-max-ms") == 0
                        ? LOAD(&c, err, flag, text, "--bot-think-ms", "10")
                        : LOAD(&c, err, flag, text);
            if (r != 0)
                fail_msg("%s %s: %s", flag, text, err);
            assert_int_equal(*(int *)(void *)((char *)&c + s->offset), (int)ok[e]);

            snprintf(text, sizeof text, "%lld", bad[e]);
            snprintf(want, sizeof want, "%s: %s is out of range %lld..%lld", flag, text, s->min,
                     s->max);
            LOAD_ERR(want, flag, text);

            assert_int_equal(setenv(env, text, 1), 0);
            snprintf(want, sizeof want, "%s: %s is out of range %lld..%lld", env, text, s->min,
                     s->max);
            LOAD_ERR(want, "--port", "1");
            unsetenv(env);

            char json[128], suffix[ERR_SIZE];
            snprintf(json, sizeof json, "{\"%s\": %s}", s->name, text);
            snprintf(suffix, sizeof suffix, ": %s: %s is out of range %lld..%lld", s->name, text,
                     s->min, s->max);
            expect_file_error(json, suffix);
        }
    }
}

static void test_precedence(void **state)
{
    (void)state;
    thue_config c;
    char err[ERR_SIZE];
    char *path = temp_file("{\n  \"port\": 1000,\n  \"web-root\": \"/from/file\",\n"
                           "  \"log-level\": \"warn\",\n  \"rate\": 5\n}\n");

    /* file < env < flag */
    assert_int_equal(setenv("THUE_PORT", "2000", 1), 0);
    assert_int_equal(setenv("THUE_WEB_ROOT", "/from/env", 1), 0);
    assert_int_equal(setenv("THUE_LOG_LEVEL", "error", 1), 0);
    LOAD_OK(&c, "--config", path, "--port", "3000", "--web-root=/from/flag", "--log-level",
            "debug");
    assert_int_equal(c.port, 3000);
    assert_string_equal(c.web_root, "/from/flag");
    assert_int_equal(c.log_level, THUE_LOG_DEBUG);
    assert_int_equal(c.rate, 5);   /* only the file sets it */
    assert_int_equal(c.burst, 40); /* nobody sets it */
    assert_string_equal(c.db, "./thue.db");

    /* Without the flags, the environment wins over the file. */
    LOAD_OK(&c, "--config", path);
    assert_int_equal(c.port, 2000);
    assert_string_equal(c.web_root, "/from/env");
    assert_int_equal(c.log_level, THUE_LOG_ERROR);

    /* Without the environment, the file wins over the defaults. */
    unsetenv("THUE_PORT");
    unsetenv("THUE_WEB_ROOT");
    unsetenv("THUE_LOG_LEVEL");
    LOAD_OK(&c, "--config", path);
    assert_int_equal(c.port, 1000);
    assert_string_equal(c.web_root, "/from/file");
    assert_int_equal(c.log_level, THUE_LOG_WARN);

    /* The flag's place among the flags does not matter: --config is read before any
     * flag's value is applied. */
    LOAD_OK(&c, "--port", "3000", "--config", path);
    assert_int_equal(c.port, 3000);
    assert_int_equal(c.rate, 5);

    /* A repeated flag: the last one wins. */
    LOAD_OK(&c, "--port", "1", "--port=2", "--port", "3");
    assert_int_equal(c.port, 3);

    /* --config wins over THUE_CONFIG: the other file is not read at all (it is bad). */
    char *bad = temp_file("{\"port\": \"not a number\"}");
    assert_int_equal(setenv("THUE_CONFIG", bad, 1), 0);
    LOAD_OK(&c, "--config", path);
    assert_int_equal(c.port, 1000);
    /* Without --config, THUE_CONFIG is read. */
    assert_int_equal(LOAD0(&c, err), -1);
    assert_non_null(strstr(err, bad));
    unsetenv("THUE_CONFIG");

    /* An empty variable counts as unset. */
    assert_int_equal(setenv("THUE_PORT", "", 1), 0);
    assert_int_equal(setenv("THUE_CONFIG", "", 1), 0);
    LOAD_OK(&c, "--threads", "2");
    assert_int_equal(c.port, 8080);
    unsetenv("THUE_PORT");
    unsetenv("THUE_CONFIG");

    remove_temp(bad);
    remove_temp(path);
}

static void test_flag_errors(void **state)
{
    (void)state;
    LOAD_ERR("--port: 70000 is out of range 0..65535", "--port", "70000");
    LOAD_ERR("--port: 70000 is out of range 0..65535", "--port=70000");
    LOAD_ERR("--port: -1 is out of range 0..65535", "--port", "-1");
    LOAD_ERR("--port: 99999999999999999999999 is out of range 0..65535", "--port",
             "99999999999999999999999");
    LOAD_ERR("--port: -99999999999999999999999999999... is out of range 0..65535", "--port",
             "-9999999999999999999999999999999999999999");
    LOAD_ERR("--port: \"80x\" is not an integer", "--port", "80x");
    LOAD_ERR("--port: \"80x\" is not an integer", "--port=80x");
    LOAD_ERR("--port: \"\" is not an integer", "--port=");
    LOAD_ERR("--port: \" 80\" is not an integer", "--port", " 80");
    LOAD_ERR("--port: \"80 \" is not an integer", "--port", "80 ");
    LOAD_ERR("--port: \"8.0\" is not an integer", "--port", "8.0");
    LOAD_ERR("--port: \"0x50\" is not an integer", "--port", "0x50");
    LOAD_ERR("--port: \"-\" is not an integer", "--port", "-");
    LOAD_ERR("--threads: \"zero\" is not an integer", "--threads", "zero");
    LOAD_ERR("--threads: 0 is out of range 1..256", "--threads", "0");
    /* Control characters in the echo become '?'; quotes are escaped. */
    LOAD_ERR("--rate: \"1?2\\\"\" is not an integer", "--rate", "1\n2\"");

    LOAD_ERR("unknown flag --frobnicate", "--frobnicate");
    LOAD_ERR("unknown flag --frobnicate", "--frobnicate=3");
    LOAD_ERR("unknown flag --Port", "--Port", "80");
    LOAD_ERR("unknown flag -p", "-p", "80");
    LOAD_ERR("unknown flag --", "--");
    LOAD_ERR("unexpected argument \"8080\": thue-server takes flags only", "8080");
    LOAD_ERR("unexpected argument \"serve\": thue-server takes flags only", "--port",
             "80", "serve");

    LOAD_ERR("--port needs a value", "--port");
    LOAD_ERR("--web-root needs a value", "--web-root", "--port", "80");
    LOAD_ERR("--config needs a value", "--config");
    LOAD_ERR("--help takes no value", "--help=yes");
    LOAD_ERR("--version takes no value", "--version=1");
    LOAD_ERR("--config: the file name is empty", "--config=");

    /* Errors are reported left to right: the first bad flag. */
    LOAD_ERR("unknown flag --nope", "--nope", "--port", "70000");

    /* A value starting with "--" is fine in the --flag=value form. */
    thue_config c;
    LOAD_OK(&c, "--web-root=--odd");
    assert_string_equal(c.web_root, "--odd");
    /* A leading '+' is an integer too. */
    LOAD_OK(&c, "--port", "+81");
    assert_int_equal(c.port, 81);
    /* Port 0: any free port. */
    LOAD_OK(&c, "--port", "0");
    assert_int_equal(c.port, 0);

    /* A missing err buffer is allowed. */
    char *argv[] = {(char *)"thue-server", (char *)"--port", (char *)"x", NULL};
    assert_int_equal(thue_config_load(&c, 3, argv, NULL, 0), -1);
}

static void test_env_errors(void **state)
{
    (void)state;
    assert_int_equal(setenv("THUE_THREADS", "zero", 1), 0);
    LOAD_ERR("THUE_THREADS: \"zero\" is not an integer", "--port", "80");
    /* A flag for the same setting does not hide a bad variable. */
    LOAD_ERR("THUE_THREADS: \"zero\" is not an integer", "--threads", "2");
    unsetenv("THUE_THREADS");

    assert_int_equal(setenv("THUE_PORT", "80x", 1), 0);
    LOAD_ERR("THUE_PORT: \"80x\" is not an integer", "--threads", "1");
    assert_int_equal(setenv("THUE_PORT", "65536", 1), 0);
    LOAD_ERR("THUE_PORT: 65536 is out of range 0..65535", "--threads", "1");
    unsetenv("THUE_PORT");

    assert_int_equal(setenv("THUE_MAX_CONNECTIONS_PER_IP", "0", 1), 0);
    LOAD_ERR("THUE_MAX_CONNECTIONS_PER_IP: 0 is out of range 1..1000000", "--threads", "1");
    unsetenv("THUE_MAX_CONNECTIONS_PER_IP");

    assert_int_equal(setenv("THUE_LOG_LEVEL", "verbose", 1), 0);
    LOAD_ERR("THUE_LOG_LEVEL: \"verbose\" is not a log level (error, warn, info or debug)",
             "--threads", "1");
    unsetenv("THUE_LOG_LEVEL");

    assert_int_equal(setenv("THUE_BIND", "example.com", 1), 0);
    LOAD_ERR("THUE_BIND: \"example.com\" is not an IPv4 address (0.0.0.0, 127.0.0.1), an IPv6 "
             "address (::, ::1) or localhost",
             "--threads", "1");
    unsetenv("THUE_BIND");

    /* A THUE_CONFIG file that is not there: the message names the file and the variable. */
    assert_int_equal(setenv("THUE_CONFIG", "/nonexistent/thue.json", 1), 0);
    LOAD_ERR("/nonexistent/thue.json: cannot read the config file (named by THUE_CONFIG): No "
             "such file or directory",
             "--threads", "1");
    unsetenv("THUE_CONFIG");
}

static void test_file_errors(void **state)
{
    (void)state;
    /* Syntax errors: file, line and column. */
    expect_file_error("{\n  \"port\": 80,\n}\n",
                      ":3:1: not valid JSON: string or '}' expected near '}'");
    expect_file_error("{\"port\": 80}\n{", ":2:1: not valid JSON: end of file expected near '{'");
    expect_file_error("{\"port\": 80, \"port\": 81}",
                      ":1:19: not valid JSON: duplicate object key near '\"port\"'");
    expect_file_error("", ":1:1: not valid JSON: '[' or '{' expected near end of file");
    expect_file_error("8080", ":1:4: not valid JSON: '[' or '{' expected near '8080'");
    expect_file_error("{\"port\": 99999999999999999999}",
                      ":1:29: not valid JSON: too big integer near '99999999999999999999'");
    /* Not an object. */
    expect_file_error("\n\n   [\"port\", 80]\n",
                      ":3:4: expected a JSON object of settings, found an array");

    /* Keys. */
    expect_file_error("{\"port\": 80, \"frobnicate\": 1}",
                      ": unknown key \"frobnicate\" (the keys are the flags' names without "
                      "dashes; see --help)");
    expect_file_error("{\"--port\": 80}", ": unknown key \"--port\" (the keys are the flags' "
                                          "names without dashes; see --help)");
    expect_file_error("{\"max_rooms\": 80}", ": unknown key \"max_rooms\" (the keys are the "
                                             "flags' names without dashes; see --help)");
    expect_file_error("{\"config\": \"other.json\"}",
                      ": config: a config file cannot name another one");

    /* Types. */
    expect_file_error("{\"port\": \"8080\"}", ": port: expected an integer, found a string");
    expect_file_error("{\"port\": 8080.0}",
                      ": port: expected an integer, found a number with a fraction or exponent");
    expect_file_error("{\"port\": 8e3}",
                      ": port: expected an integer, found a number with a fraction or exponent");
    expect_file_error("{\"port\": null}", ": port: expected an integer, found null");
    expect_file_error("{\"threads\": true}", ": threads: expected an integer, found a boolean");
    expect_file_error("{\"bind\": 127}", ": bind: expected a string, found an integer");
    expect_file_error("{\"web-root\": [\"a\"]}", ": web-root: expected a string, found an array");
    expect_file_error("{\"log-level\": {}}", ": log-level: expected a string, found an object");

    /* Values. */
    expect_file_error("{\"port\": 70000}", ": port: 70000 is out of range 0..65535");
    expect_file_error("{\"log-level\": \"INFO\"}",
                      ": log-level: \"INFO\" is not a log level (error, warn, info or debug)");
    expect_file_error("{\"bind\": \"1.2.3\"}",
                      ": bind: \"1.2.3\" is not an IPv4 address (0.0.0.0, 127.0.0.1), an IPv6 "
                      "address (::, ::1) or localhost");
    expect_file_error("{\"db\": \"\"}", ": db: the value is empty");
    expect_file_error("{\"db\": \"a\\u0000b\"}",
                      ":1:17: not valid JSON: \\u0000 is not allowed without JSON_ALLOW_NUL "
                      "near '\"a\\u0000b\"'");

    /* Not readable. */
    LOAD_ERR("/nonexistent/thue.json: cannot read the config file (named by --config): No such "
             "file or directory",
             "--config", "/nonexistent/thue.json");
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    char want[ERR_SIZE];
    snprintf(want, sizeof want, "%s: is a directory, not a config file (named by --config)", dir);
    LOAD_ERR(want, "--config", dir);

    /* An error in the file comes before anything in the environment or the flags. */
    char *path = temp_file("{\"port\": \"x\"}");
    assert_int_equal(setenv("THUE_PORT", "y", 1), 0);
    snprintf(want, sizeof want, "%s: port: expected an integer, found a string", path);
    LOAD_ERR(want, "--config", path, "--port", "z");
    unsetenv("THUE_PORT");
    remove_temp(path);

    /* An empty object is a valid config file. */
    path = temp_file(" { } ");
    thue_config c;
    LOAD_OK(&c, "--config", path);
    assert_int_equal(c.port, 8080);
    remove_temp(path);
}

/* --glicko-tau: a real number in 0.2..1.2, through every source. */
static void test_glicko_tau(void **state)
{
    (void)state;
    thue_config c;
    char err[ERR_SIZE];

    /* The four forms. */
    LOAD_OK(&c, "--glicko-tau", "0.7");
    check_tau(&c, 0.7);
    LOAD_OK(&c, "--glicko-tau=0.7");
    check_tau(&c, 0.7);
    assert_int_equal(setenv("THUE_GLICKO_TAU", "0.7", 1), 0);
    assert_int_equal(LOAD0(&c, err), 0);
    check_tau(&c, 0.7);
    unsetenv("THUE_GLICKO_TAU");
    char *path = temp_file("{\"glicko-tau\": 0.7}");
    LOAD_OK(&c, "--config", path);
    check_tau(&c, 0.7);
    remove_temp(path);
    /* A JSON integer is a number too. */
    path = temp_file("{\"glicko-tau\": 1}");
    LOAD_OK(&c, "--config", path);
    check_tau(&c, 1.0);
    remove_temp(path);
    path = temp_file("{\"glicko-tau\": 3e-1}");
    LOAD_OK(&c, "--config", path);
    check_tau(&c, 0.3);
    remove_temp(path);

    /* Other decimal spellings. */
    static const struct {
        const char *text;
        double value;
    } ok[] = {{"0.2", 0.2}, {"1.2", 1.2},  {"1", 1.0},      {"+0.6", 0.6}, {".5", 0.5},
              {"1.", 1.0},  {"7e-1", 0.7}, {"0.07E1", 0.7}, {"1.20", 1.2}, {"0000.3", 0.3}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        LOAD_OK(&c, "--glicko-tau", ok[i].text);
        check_tau(&c, ok[i].value);
    }

    /* Both ends of the range, in every source, and just outside them. */
    static const char *const ends[] = {"0.2", "1.2"};
    static const char *const outside[] = {"0.19", "1.21"};
    for (int e = 0; e < 2; e++) {
        char want[ERR_SIZE], json[64];
        LOAD_OK(&c, "--glicko-tau", ends[e]);
        check_tau(&c, strtod(ends[e], NULL));
        assert_int_equal(setenv("THUE_GLICKO_TAU", ends[e], 1), 0);
        assert_int_equal(LOAD0(&c, err), 0);
        check_tau(&c, strtod(ends[e], NULL));
        unsetenv("THUE_GLICKO_TAU");
        snprintf(json, sizeof json, "{\"glicko-tau\": %s}", ends[e]);
        path = temp_file(json);
        LOAD_OK(&c, "--config", path);
        check_tau(&c, strtod(ends[e], NULL));
        remove_temp(path);

        snprintf(want, sizeof want, "--glicko-tau: %s is out of range 0.2..1.2", outside[e]);
        LOAD_ERR(want, "--glicko-tau", outside[e]);
        snprintf(want, sizeof want, "THUE_GLICKO_TAU: %s is out of range 0.2..1.2", outside[e]);
        assert_int_equal(setenv("THUE_GLICKO_TAU", outside[e], 1), 0);
        LOAD_ERR(want, "--port", "1");
        unsetenv("THUE_GLICKO_TAU");
        char suffix[ERR_SIZE];
        snprintf(json, sizeof json, "{\"glicko-tau\": %s}", outside[e]);
        snprintf(suffix, sizeof suffix, ": glicko-tau: %s is out of range 0.2..1.2", outside[e]);
        expect_file_error(json, suffix);
    }
    LOAD_ERR("--glicko-tau: 2 is out of range 0.2..1.2", "--glicko-tau", "2");
    LOAD_ERR("--glicko-tau: 0 is out of range 0.2..1.2", "--glicko-tau", "0");
    LOAD_ERR("--glicko-tau: -0.5 is out of range 0.2..1.2", "--glicko-tau", "-0.5");
    LOAD_ERR("--glicko-tau: 1.2000000000000002 is out of range 0.2..1.2", "--glicko-tau",
             "1.2000000000000002");
    /* Overflow and underflow are out of range, not silently infinity or zero. */
    LOAD_ERR("--glicko-tau: 1e400 is out of range 0.2..1.2", "--glicko-tau", "1e400");
    LOAD_ERR("--glicko-tau: 1e-400 is out of range 0.2..1.2", "--glicko-tau", "1e-400");
    LOAD_ERR("--glicko-tau: 100000000000000000000000000000... is out of range 0.2..1.2",
             "--glicko-tau", "1000000000000000000000000000000000000000");
    expect_file_error("{\"glicko-tau\": 5}", ": glicko-tau: 5 is out of range 0.2..1.2");
    expect_file_error("{\"glicko-tau\": 1.2000000000000002}",
                      ": glicko-tau: 1.2000000000000002 is out of range 0.2..1.2");
    expect_file_error("{\"glicko-tau\": -1e2}", ": glicko-tau: -100 is out of range 0.2..1.2");

    /* Not numbers: trailing garbage, empty, spaces, what strtod alone would take. */
    static const char *const bad[] = {"0.5x", "",     "nan",    "inf", "-inf", "infinity", "NAN",
                                      " 0.5", "0.5 ", "0x1p-1", ".",   "-",    "e1",       "1e",
                                      "1e+",  "0,5",  "0.5.1",  "abc", "1/2",  "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[ERR_SIZE], flag[64];
        snprintf(want, sizeof want, "--glicko-tau: \"%s\" is not a number", bad[i]);
        snprintf(flag, sizeof flag, "--glicko-tau=%s", bad[i]);
        LOAD_ERR(want, flag);
    }
    LOAD_ERR("--glicko-tau: \"abc\" is not a number", "--glicko-tau", "abc");
    LOAD_ERR("--glicko-tau: \"0.5?\" is not a number", "--glicko-tau", "0.5\n");
    LOAD_ERR("--glicko-tau needs a value", "--glicko-tau");
    assert_int_equal(setenv("THUE_GLICKO_TAU", "0.5x", 1), 0);
    LOAD_ERR("THUE_GLICKO_TAU: \"0.5x\" is not a number", "--glicko-tau", "0.7");
    assert_int_equal(setenv("THUE_GLICKO_TAU", "nan", 1), 0);
    LOAD_ERR("THUE_GLICKO_TAU: \"nan\" is not a number", "--port", "1");
    /* An empty variable counts as unset. */
    assert_int_equal(setenv("THUE_GLICKO_TAU", "", 1), 0);
    LOAD_OK(&c, "--port", "1");
    check_tau(&c, 0.5);
    unsetenv("THUE_GLICKO_TAU");

    /* The config file wants a JSON number. */
    expect_file_error("{\"glicko-tau\": \"0.7\"}",
                      ": glicko-tau: expected a number, found a string");
    expect_file_error("{\"glicko-tau\": null}", ": glicko-tau: expected a number, found null");
    expect_file_error("{\"glicko-tau\": true}", ": glicko-tau: expected a number, found a boolean");
    expect_file_error("{\"glicko-tau\": [0.7]}", ": glicko-tau: expected a number, found an array");

    /* Precedence: file < env < flag. */
    path = temp_file("{\"glicko-tau\": 0.3, \"port\": 1000}");
    assert_int_equal(setenv("THUE_GLICKO_TAU", "0.9", 1), 0);
    LOAD_OK(&c, "--config", path, "--glicko-tau", "1.1");
    check_tau(&c, 1.1);
    LOAD_OK(&c, "--glicko-tau=1.1", "--config", path);
    check_tau(&c, 1.1);
    LOAD_OK(&c, "--config", path);
    check_tau(&c, 0.9);
    unsetenv("THUE_GLICKO_TAU");
    LOAD_OK(&c, "--config", path);
    check_tau(&c, 0.3);
    assert_int_equal(c.port, 1000);
    /* A file without it leaves the default; a repeated flag: the last one wins. */
    LOAD_OK(&c, "--port", "1");
    check_tau(&c, 0.5);
    LOAD_OK(&c, "--glicko-tau", "0.4", "--glicko-tau=0.8");
    check_tau(&c, 0.8);
    remove_temp(path);
    /* A bad file is reported before a good variable or flag. */
    path = temp_file("{\"glicko-tau\": \"x\"}");
    assert_int_equal(setenv("THUE_GLICKO_TAU", "0.9", 1), 0);
    char want[ERR_SIZE];
    snprintf(want, sizeof want, "%s: glicko-tau: expected a number, found a string", path);
    LOAD_ERR(want, "--config", path, "--glicko-tau", "1.1");
    unsetenv("THUE_GLICKO_TAU");
    remove_temp(path);
}

static void test_log_level(void **state)
{
    (void)state;
    const char *names[] = {"error", "warn", "info", "debug"};
    const thue_log_level levels[] = {THUE_LOG_ERROR, THUE_LOG_WARN, THUE_LOG_INFO, THUE_LOG_DEBUG};
    for (int i = 0; i < 4; i++) {
        thue_config c;
        LOAD_OK(&c, "--log-level", names[i]);
        assert_int_equal(c.log_level, levels[i]);
    }
    LOAD_ERR("--log-level: \"loud\" is not a log level (error, warn, info or debug)", "--log-level",
             "loud");
    LOAD_ERR("--log-level: \"Debug\" is not a log level (error, warn, info or debug)",
             "--log-level=Debug");
    LOAD_ERR("--log-level: \"\" is not a log level (error, warn, info or debug)", "--log-level=");
}

static void test_bind(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } ok[] = {
        {"0.0.0.0", "0.0.0.0"},
        {"127.0.0.1", "127.0.0.1"},
        {"192.168.1.20", "192.168.1.20"},
        {"localhost", "127.0.0.1"},
        {"LocalHost", "127.0.0.1"},
        {"::", "::"},
        {"::1", "::1"},
        {"0:0:0:0:0:0:0:1", "::1"},
        {"2001:db8::42", "2001:db8::42"},
        {"::ffff:10.0.0.1", "::ffff:10.0.0.1"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        thue_config c;
        LOAD_OK(&c, "--bind", ok[i].in);
        assert_string_equal(c.bind, ok[i].out);
    }
    static const char *const bad[] = {"example.com", "1.2.3",      "256.1.1.1",  "1.2.3.4.5",
                                      "::g",         "[::1]",      "127.0.0.1 ", "",
                                      "0.0.0.0:80",  "fe80::1%lo", "localhost.", "*"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[ERR_SIZE];
        snprintf(want, sizeof want,
                 "--bind: \"%s\" is not an IPv4 address (0.0.0.0, 127.0.0.1), an IPv6 address "
                 "(::, ::1) or localhost",
                 bad[i]);
        char flag[64];
        snprintf(flag, sizeof flag, "--bind=%s", bad[i]);
        LOAD_ERR(want, flag);
    }
}

static void test_trusted_proxy(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } ok[] = {
        {"127.0.0.1", "127.0.0.1"},
        {"10.0.0.1, ::1", "10.0.0.1,::1"},
        {" 0:0:0:0:0:0:0:1 ,192.168.0.2", "::1,192.168.0.2"},
        {"none", ""},
        {"1.1.1.1,2.2.2.2,3.3.3.3,4.4.4.4,5.5.5.5,6.6.6.6,7.7.7.7,8.8.8.8",
         "1.1.1.1,2.2.2.2,3.3.3.3,4.4.4.4,5.5.5.5,6.6.6.6,7.7.7.7,8.8.8.8"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        thue_config c;
        LOAD_OK(&c, "--trusted-proxy", ok[i].in);
        assert_string_equal(c.trusted_proxy, ok[i].out);
    }
    thue_config d;
    thue_config_defaults(&d);
    assert_string_equal(d.trusted_proxy, "");
    LOAD_ERR("--trusted-proxy: \"1.2.3\" is not an IPv4 or IPv6 address", "--trusted-proxy=1.2.3");
    LOAD_ERR("--trusted-proxy: \"example.com\" is not an IPv4 or IPv6 address", "--trusted-proxy",
             "10.0.0.1,example.com");
    LOAD_ERR("--trusted-proxy: \"1.1.1.1,\" ends with a comma", "--trusted-proxy=1.1.1.1,");
    LOAD_ERR("--trusted-proxy: \",1.1.1.1\": expected addresses separated by commas",
             "--trusted-proxy=,1.1.1.1");
    LOAD_ERR("--trusted-proxy: more than 8 addresses", "--trusted-proxy",
             "1.1.1.1,2.2.2.2,3.3.3.3,4.4.4.4,5.5.5.5,6.6.6.6,7.7.7.7,8.8.8.8,9.9.9.9");
}

static void test_strings(void **state)
{
    (void)state;
    thue_config c;
    LOAD_ERR("--web-root: the value is empty", "--web-root=");
    LOAD_ERR("--db: the value is empty", "--db", "");

    /* The longest path that fits, and one byte more. */
    char path[THUE_CONFIG_PATH_MAX + 1];
    memset(path, 'a', sizeof path);
    path[0] = '/';
    path[THUE_CONFIG_PATH_MAX - 1] = '\0';
    LOAD_OK(&c, "--web-root", path);
    assert_int_equal(strlen(c.web_root), THUE_CONFIG_PATH_MAX - 1);
    path[THUE_CONFIG_PATH_MAX - 1] = 'a';
    path[THUE_CONFIG_PATH_MAX] = '\0';
    thue_config d;
    char err[ERR_SIZE];
    assert_int_equal(LOAD(&d, err, "--db", path), -1);
    char want[ERR_SIZE];
    snprintf(want, sizeof want, "--db: \"/%.59s...\" is too long (at most %d bytes)", path + 1,
             THUE_CONFIG_PATH_MAX - 1);
    assert_string_equal(err, want);

    /* Paths are stored as given: the network layer checks them. */
    LOAD_OK(&c, "--web-root", "relative/dir with spaces", "--db", "/no/such/dir/x.db");
    assert_string_equal(c.web_root, "relative/dir with spaces");
    assert_string_equal(c.db, "/no/such/dir/x.db");
}

static void test_ping_before_idle(void **state)
{
    (void)state;
    thue_config c;
    LOAD_OK(&c, "--ping-s", "59");
    LOAD_OK(&c, "--ping-s", "100", "--idle-s", "101");
    LOAD_ERR("ping-s (60, from --ping-s) must be less than idle-s (60, the default)", "--ping-s",
             "60");
    assert_int_equal(setenv("THUE_IDLE_S", "20", 1), 0);
    LOAD_ERR("ping-s (30, the default) must be less than idle-s (20, from THUE_IDLE_S)", "--port",
             "1");
    unsetenv("THUE_IDLE_S");
    char *path = temp_file("{\"ping-s\": 90}");
    char want[ERR_SIZE];
    snprintf(want, sizeof want, "ping-s (90, from %s) must be less than idle-s (60, the default)",
             path);
    LOAD_ERR(want, "--config", path);
    remove_temp(path);
}

/* The server's own bots keep the think-time limit it sets for everyone's. */
static void test_bot_think_within_max(void **state)
{
    (void)state;
    thue_config c;
    LOAD_OK(&c, "--bot-think-max-ms", "2000");
    LOAD_OK(&c, "--bot-think-max-ms", "500", "--bot-think-ms", "500");
    LOAD_ERR("bot-think-ms (2000, the default) must be at most bot-think-max-ms (1999, from "
             "--bot-think-max-ms)",
             "--bot-think-max-ms", "1999");
    assert_int_equal(setenv("THUE_BOT_THINK_MS", "3000", 1), 0);
    LOAD_ERR("bot-think-ms (3000, from THUE_BOT_THINK_MS) must be at most bot-think-max-ms "
             "(2500, from --bot-think-max-ms)",
             "--bot-think-max-ms", "2500");
    unsetenv("THUE_BOT_THINK_MS");
}

static void test_help_and_version(void **state)
{
    (void)state;
    int r;
    char *out = capture_stdout((const char *const[]){"--help", NULL}, &r);
    assert_int_equal(r, 1);
    assert_string_equal(out, thue_config_usage);
    free(out);

    out = capture_stdout((const char *const[]){"-h", NULL}, &r);
    assert_int_equal(r, 1);
    assert_string_equal(out, thue_config_usage);
    free(out);

    out = capture_stdout((const char *const[]){"--version", NULL}, &r);
    assert_int_equal(r, 1);
    assert_string_equal(out, "thue-server " THUE_VERSION "\n");
    free(out);

    /* Help comes before the values are checked, and before the config file is read. */
    out = capture_stdout(
        (const char *const[]){"--port", "70000", "--config", "/nonexistent", "--help", NULL}, &r);
    assert_int_equal(r, 1);
    assert_string_equal(out, thue_config_usage);
    free(out);

    /* But a malformed argument to its left is still an error, and nothing is printed. */
    out = capture_stdout((const char *const[]){"--frobnicate", "--help", NULL}, &r);
    assert_int_equal(r, -1);
    assert_string_equal(out, "");
    free(out);

    /* Loading settings prints nothing. */
    out = capture_stdout((const char *const[]){"--port", "1", NULL}, &r);
    assert_int_equal(r, 0);
    assert_string_equal(out, "");
    free(out);
}

/* The help text names every flag with its range, the environment form and the
 * precedence, and fits an 80-column terminal. */
static void test_usage_text(void **state)
{
    (void)state;
    const char *u = thue_config_usage;
    for (size_t i = 0; i < NTSETTINGS; i++) {
        const tsetting *s = &tsettings[i];
        char flag[64];
        snprintf(flag, sizeof flag, "\n  --%s ", s->name);
        if (strstr(u, flag) == NULL)
            fail_msg("the usage does not list --%s", s->name);
        if (s->kind == T_INT) {
            /* The flag's line shows its range. */
            const char *line = strstr(u, flag) + 1;
            const char *end = strchr(line, '\n');
            char range[64];
            snprintf(range, sizeof range, "%lld..%lld", s->min, s->max);
            const char *at = strstr(line, range);
            if (at == NULL || at > end)
                fail_msg("the usage line of --%s lacks its range %s", s->name, range);
        }
        if (s->kind == T_REAL) {
            const char *line = strstr(u, flag) + 1;
            const char *end = strchr(line, '\n');
            const char *at = strstr(line, s->range);
            if (at == NULL || at > end)
                fail_msg("the usage line of --%s lacks its range %s", s->name, s->range);
        }
    }
    assert_non_null(strstr(u, "--config FILE"));
    assert_non_null(strstr(u, "--help"));
    assert_non_null(strstr(u, "--version"));
    assert_non_null(strstr(u, "THUE_PORT"));
    assert_non_null(strstr(u, "THUE_MAX_CONNECTIONS_PER_IP"));
    assert_non_null(strstr(u, "THUE_CONFIG"));
    assert_non_null(strstr(u, "Precedence, lowest first: defaults, config file, environment, "
                              "flags."));
    assert_non_null(strstr(u, THUE_WEB_ROOT_DEFAULT));
    assert_non_null(strstr(u, "Exit status: 0"));
    assert_non_null(strstr(u, "2 on a bad setting"));

    for (const char *line = u; *line != '\0';) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        if ((size_t)(end - line) > 80 && strstr(line, THUE_WEB_ROOT_DEFAULT) > end)
            fail_msg("usage line longer than 80 columns: %.*s", (int)(end - line), line);
        line = end + 1;
    }
}

/* Reads a whole file (free it). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    char *buf = calloc(1, 1 << 20);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* docs/server.md, the operator's guide: its table has every setting with its flag,
 * variable and key, and its example config file loads with the values it shows. */
static void test_operator_guide(void **state)
{
    (void)state;
    char *doc = read_text(THUE_SERVER_DOC);
    for (size_t i = 0; i < NTSETTINGS; i++) {
        const tsetting *s = &tsettings[i];
        char env[64], row[256];
        env_name(s, env, sizeof env);
        snprintf(row, sizeof row, "| `--%s ", s->name);
        const char *at = strstr(doc, row);
        if (at == NULL)
            fail_msg("docs/server.md has no row for --%s", s->name);
        snprintf(row, sizeof row, " | `%s` | `%s` | ", env, s->name);
        const char *end = strchr(at, '\n');
        const char *forms = strstr(at, row);
        if (forms == NULL || forms > end)
            fail_msg("docs/server.md: the row of --%s lacks %s", s->name, row);
        if (s->kind == T_INT) {
            snprintf(row, sizeof row, "| %lld..%lld", s->min, s->max);
            const char *range = strstr(at, row);
            if (range == NULL || range > end)
                fail_msg("docs/server.md: the row of --%s lacks its range %s", s->name, row);
        }
        if (s->kind == T_REAL) {
            snprintf(row, sizeof row, "| %s", s->range);
            const char *range = strstr(at, row);
            if (range == NULL || range > end)
                fail_msg("docs/server.md: the row of --%s lacks its range %s", s->name, row);
        }
    }

    const char *start = strstr(doc, "An example, `thue.json`:\n\n```json\n");
    assert_non_null(start);
    start = strchr(start, '{');
    const char *stop = strstr(start, "\n```");
    assert_non_null(stop);
    char json[4096];
    assert_true((size_t)(stop - start) < sizeof json);
    memcpy(json, start, (size_t)(stop - start));
    json[stop - start] = '\0';
    char *path = temp_file(json);
    thue_config c;
    LOAD_OK(&c, "--config", path);
    assert_int_equal(c.port, 8080);
    assert_string_equal(c.bind, "127.0.0.1");
    assert_string_equal(c.web_root, "/usr/share/thue/web");
    assert_int_equal(c.threads, 4);
    assert_int_equal(c.max_connections_per_ip, 50);
    assert_int_equal(c.idle_s, 90);
    assert_int_equal(c.bot_think_ms, 1500);
    check_tau(&c, 0.5);
    remove_temp(path);
    free(doc);
}

/* Writes text to dir/name, making dir (and its parents under base) first. */
static void put_file(const char *base, const char *rel_dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", base);
    char rel[512];
    snprintf(rel, sizeof rel, "%s", rel_dir);
    for (char *part = strtok(rel, "/"); part; part = strtok(NULL, "/")) {
        strncat(path, "/", sizeof path - strlen(path) - 1);
        strncat(path, part, sizeof path - strlen(path) - 1);
        mkdir(path, 0700);
    }
    strncat(path, "/", sizeof path - strlen(path) - 1);
    strncat(path, name, sizeof path - strlen(path) - 1);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* --threads' default follows a cgroup's CPU limit: v2 and v1, the tightest on the path
 * up to the root, none, and files that do not read. */
static void test_cgroup_cpus(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char base[512];
    snprintf(base, sizeof base, "%s/thue-cgroup-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(base));
    char sys[600], proc[600];
    snprintf(sys, sizeof sys, "%s/sys", base);
    snprintf(proc, sizeof proc, "%s/self-cgroup", base);
    mkdir(sys, 0700);

    assert_int_equal(thue__cgroup_cpus(sys, proc), 0); /* no /proc/self/cgroup */
    put_file(base, "", "self-cgroup", "0::/a/b\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 0); /* no cpu.max anywhere */
    put_file(sys, "a/b", "cpu.max", "max 100000\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 0); /* "max": no limit */
    put_file(sys, "a", "cpu.max", "150000 100000\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 2); /* a parent's 1.5 CPUs, rounded up */
    put_file(sys, "a/b", "cpu.max", "300000 100000\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 2); /* the tightest on the path */
    put_file(sys, "a/b", "cpu.max", "50000 100000\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 1);
    put_file(sys, "a/b", "cpu.max", "lots 100000\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 2); /* junk is no limit */
    put_file(sys, "", "cpu.max", "400000 100000\n");
    put_file(base, "", "self-cgroup", "0::/\n"); /* a container's own namespace */
    assert_int_equal(thue__cgroup_cpus(sys, proc), 4);

    /* v1: the cpu controller's cfs quota; other controllers' lines are not read */
    put_file(base, "", "self-cgroup", "5:memory:/x\n4:cpu,cpuacct:/x\n1:name=systemd:/x\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 0);
    put_file(sys, "cpu/x", "cpu.cfs_quota_us", "-1\n");
    put_file(sys, "cpu/x", "cpu.cfs_period_us", "100000\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 0);
    put_file(sys, "cpu/x", "cpu.cfs_quota_us", "250000\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 3);
    put_file(sys, "cpu/x", "cpu.cfs_period_us", "0\n");
    assert_int_equal(thue__cgroup_cpus(sys, proc), 0);

    /* the defaults use it only to lower the count: always 1..256 */
    thue_config c;
    thue_config_defaults(&c);
    assert_true(c.threads >= 1 && c.threads <= 256);
    assert_true(c.threads <= sysconf(_SC_NPROCESSORS_ONLN));

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults, setup),
        cmocka_unit_test_setup(test_every_setting_every_source, setup),
        cmocka_unit_test_setup(test_ranges, setup),
        cmocka_unit_test_setup(test_precedence, setup),
        cmocka_unit_test_setup(test_flag_errors, setup),
        cmocka_unit_test_setup(test_env_errors, setup),
        cmocka_unit_test_setup(test_file_errors, setup),
        cmocka_unit_test_setup(test_glicko_tau, setup),
        cmocka_unit_test_setup(test_log_level, setup),
        cmocka_unit_test_setup(test_bind, setup),
        cmocka_unit_test_setup(test_trusted_proxy, setup),
        cmocka_unit_test_setup(test_strings, setup),
        cmocka_unit_test_setup(test_ping_before_idle, setup),
        cmocka_unit_test_setup(test_bot_think_within_max, setup),
        cmocka_unit_test_setup(test_help_and_version, setup),
        cmocka_unit_test_setup(test_usage_text, setup),
        cmocka_unit_test_setup(test_operator_guide, setup),
        cmocka_unit_test(test_cgroup_cpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
