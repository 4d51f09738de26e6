/*
 * test_config_settings.c: the server's settings (server/config.h): the defaults, every
 * setting through every source, the ranges, the precedence, and the settings with rules
 * of their own (the Glicko tau, the log level, bind, trusted proxies, strings, ping before
 * idle, bot think time within its maximum).
 *
 * Every test starts with no THUE_* variable in the environment (setup) and sets what it
 * needs with setenv. Config files are temporary files from mkstemp, removed afterwards.
 */
#include "config_helpers.h"

#define LOAD0(c, err) load_list(c, err, (const char *const[]){NULL})

static int expected_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
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
    assert_int_equal(a.password_ops, 2);
    assert_int_equal(a.password_mem_mib, 64);
    assert_int_equal(a.password_jobs, 2);
    assert_int_equal(a.login_fails_per_ip, 30);
    assert_int_equal(a.login_fails_per_name, 10);
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
            /* ping-s must stay below idle-s: move the other one out of the way. Likewise
             * bot-think-ms at most bot-think-max-ms, and search-mem-mib at most
             * owner-search-mem-mib at most search-mem-total-mib. */
            static const struct {
                const char *name, *f1, *v1, *f2, *v2;
            } others[] = {
                {"ping-s", "--idle-s", "7200", "--idle-s", "7200"},
                {"idle-s", "--ping-s", "1", "--ping-s", "1"},
                {"bot-think-max-ms", "--bot-think-ms", "10", "--bot-think-ms", "10"},
                {"search-mem-mib", "--owner-search-mem-mib", "1048576", "--search-mem-total-mib",
                 "1048576"},
                {"owner-search-mem-mib", "--search-mem-mib", "1", "--search-mem-total-mib",
                 "1048576"},
                {"search-mem-total-mib", "--search-mem-mib", "1", "--owner-search-mem-mib", "1"},
            };
            int r = -2;
            for (size_t o = 0; o < sizeof others / sizeof others[0]; o++)
                if (strcmp(s->name, others[o].name) == 0)
                    r = LOAD(&c, err, flag, text, others[o].f1, others[o].v1, others[o].f2,
                             others[o].v2);
            if (r == -2)
                r = LOAD(&c, err, flag, text);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults, setup),
        cmocka_unit_test_setup(test_every_setting_every_source, setup),
        cmocka_unit_test_setup(test_ranges, setup),
        cmocka_unit_test_setup(test_precedence, setup),
        cmocka_unit_test_setup(test_glicko_tau, setup),
        cmocka_unit_test_setup(test_log_level, setup),
        cmocka_unit_test_setup(test_bind, setup),
        cmocka_unit_test_setup(test_trusted_proxy, setup),
        cmocka_unit_test_setup(test_strings, setup),
        cmocka_unit_test_setup(test_ping_before_idle, setup),
        cmocka_unit_test_setup(test_bot_think_within_max, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
