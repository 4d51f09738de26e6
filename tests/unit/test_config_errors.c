/*
 * test_config_errors.c: every kind of settings error (server/config.h): from flags, from
 * the environment and from the config file, each with its message.
 *
 * Every test starts with no THUE_* variable in the environment (setup).
 */
#include "config_helpers.h"

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
    LOAD_ERR("unexpected argument \"serve\": thue-server takes flags only", "--port", "80",
             "serve");

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

/* The settings of several nodes: --node, --redis (and the database it needs), --drain-s. */
static void test_cluster_settings(void **state)
{
    (void)state;
    thue_config c;
    thue_config_defaults(&c);
    assert_string_equal(c.node, "");
    assert_string_equal(c.redis, "");
    assert_int_equal(c.drain_s, 0);
    LOAD_OK(&c, "--node", "n1", "--drain-s", "30");
    assert_string_equal(c.node, "n1");
    assert_int_equal(c.drain_s, 30);
    /* (a node of several needs the cluster secret: test_config_cluster_secret.c) */
    assert_int_equal(setenv("THUE_CLUSTER_SECRET", "0123456789abcdef0123456789abcdef", 1), 0);
    LOAD_OK(&c, "--node", "eu-west-2", "--redis", "redis://127.0.0.1:6380", "--db",
            "postgres://thue@127.0.0.1:5432/thue");
    unsetenv("THUE_CLUSTER_SECRET");
    assert_string_equal(c.redis, "redis://127.0.0.1:6380");
    LOAD_OK(&c, "--node", "a", "--redis", "none", "--db", "x.db");
    assert_string_equal(c.redis, "");

    LOAD_ERR("--node: \"N1\" is not a node name (1..32 characters of a-z, 0-9 and '-', not "
             "starting with '-')",
             "--node", "N1");
    LOAD_ERR("--node: \"-a\" is not a node name (1..32 characters of a-z, 0-9 and '-', not "
             "starting with '-')",
             "--node=-a");
    LOAD_ERR("--node: \"abcdefghijabcdefghijabcdefghijabc\" is not a node name (1..32 "
             "characters of a-z, 0-9 and '-', not starting with '-')",
             "--node", "abcdefghijabcdefghijabcdefghijabc");
    LOAD_ERR("--redis: \"http://x\" is not a Redis address (redis://HOST:PORT, redis://HOST "
             "for port 6379, or unix:/PATH)",
             "--redis", "http://x");
    LOAD_ERR("--redis: \"redis://h:0\" is not a Redis address (redis://HOST:PORT, redis://HOST "
             "for port 6379, or unix:/PATH)",
             "--redis", "redis://h:0");
    LOAD_ERR("redis (\"redis://127.0.0.1\", from --redis) makes this server one node of "
             "several: it needs --node NAME (THUE_NODE), a name of its own",
             "--redis", "redis://127.0.0.1", "--db", "postgres://h/db");
    LOAD_ERR("redis (\"redis://127.0.0.1\", from --redis) makes this server one node of "
             "several, which share one database: db (\"./thue.db\", the default) must be a "
             "PostgreSQL URI (postgres://...), not an SQLite file",
             "--redis", "redis://127.0.0.1", "--node", "n1");
    assert_int_equal(setenv("THUE_REDIS", "unix:/run/redis.sock", 1), 0);
    LOAD_ERR("redis (\"unix:/run/redis.sock\", from THUE_REDIS) makes this server one node of "
             "several: it needs --node NAME (THUE_NODE), a name of its own",
             "--db", "postgresql://u:secret@h/db");
    unsetenv("THUE_REDIS");
    LOAD_ERR("--drain-s: 86401 is out of range 0..86400", "--drain-s", "86401");

    /* The Redis password: any text that fits, never repeated in a message. */
    assert_int_equal(setenv("THUE_REDIS_PASSWORD", "s3cret pass", 1), 0);
    LOAD_OK(&c, "--node", "n1");
    assert_string_equal(c.redis_password, "s3cret pass");
    unsetenv("THUE_REDIS_PASSWORD");
    char longpw[300];
    memset(longpw, 'x', sizeof longpw - 1);
    longpw[sizeof longpw - 1] = '\0';
    LOAD_ERR("--redis-password: the value is too long (at most 255 bytes)", "--redis-password",
             longpw);
}

/* thue_config_redis_parse against the forms it documents. */
static void test_redis_parse(void **state)
{
    (void)state;
    char host[300], path[THUE_CONFIG_PATH_MAX];
    int port = -1;
    assert_int_equal(thue_config_redis_parse("redis://127.0.0.1:6380", host, sizeof host, &port,
                                             path, sizeof path),
                     0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 6380);
    assert_string_equal(path, "");
    assert_int_equal(
        thue_config_redis_parse("redis://cache.example/", host, sizeof host, &port, NULL, 0), 0);
    assert_string_equal(host, "cache.example");
    assert_int_equal(port, 6379);
    assert_int_equal(
        thue_config_redis_parse("redis://[::1]:7000", host, sizeof host, &port, NULL, 0), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(port, 7000);
    assert_int_equal(
        thue_config_redis_parse("unix:/tmp/r.sock", host, sizeof host, &port, path, sizeof path),
        0);
    assert_string_equal(path, "/tmp/r.sock");
    assert_string_equal(host, "");
    assert_int_equal(port, 0);
    const char *bad[] = {"",          "redis://",        "redis://:6379",   "redis://h:",
                         "redis://h:65536", "redis://h:12a", "redis://u@h",  "redis://h/0/x",
                         "redis://[::1",    "redis://[]:1",  "redis://[::1]x", "unix:",
                         "unix:rel",  "rediss://h",      "redis://h:123456"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (thue_config_redis_parse(bad[i], NULL, 0, NULL, NULL, 0) != -1)
            fail_msg("\"%s\" was taken as a Redis address", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_flag_errors, setup),
        cmocka_unit_test_setup(test_env_errors, setup),
        cmocka_unit_test_setup(test_file_errors, setup),
        cmocka_unit_test_setup(test_cluster_settings, setup),
        cmocka_unit_test_setup(test_redis_parse, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
