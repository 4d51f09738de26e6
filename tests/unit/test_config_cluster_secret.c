/*
 * test_config_cluster_secret.c: the cluster secret's settings (server/config.c):
 * --cluster-secret-file FILE (THUE_CLUSTER_SECRET_FILE, the config file's
 * "cluster-secret-file") and THUE_CLUSTER_SECRET (or "cluster-secret" in the config file;
 * the flag is refused, ps would show it). A node of several (--redis) refuses to start
 * without one; a file that is missing, too short or too long is a clear error; the
 * secret's bytes are what the file holds, trailing newlines left out; the secret is never
 * repeated in a message; the two ways at once are refused.
 */
#include "config_helpers.h"

#define SECRET64 "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

/* A node of several, with whatever else args add (NULL-terminated, at most 8). */
static int load_node(thue_config *c, char *err, const char *const *more)
{
    const char *args[MAX_ARGS + 1] = {"--node", "n1", "--redis", "redis://127.0.0.1:6379",
                                      "--db", "postgres://thue@127.0.0.1/thue"};
    int n = 6;
    for (; more != NULL && *more != NULL; more++)
        args[n++] = *more;
    args[n] = NULL;
    return load_list(c, err, args);
}

static char *temp_bytes(const unsigned char *bytes, size_t len)
{
    char *path = temp_file("");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    fclose(f);
    return path;
}

static void test_secret_required(void **state)
{
    (void)state;
    thue_config c;
    char err[ERR_SIZE];
    assert_int_equal(load_node(&c, err, NULL), -1);
    assert_string_equal(err,
                        "redis (\"redis://127.0.0.1:6379\", from --redis) makes this server one "
                        "node of several: it needs the cluster secret that every node shares, "
                        "--cluster-secret-file FILE (THUE_CLUSTER_SECRET_FILE) or "
                        "THUE_CLUSTER_SECRET, at least 32 bytes (make it once with `openssl "
                        "rand -hex 32 > FILE`; docs/cluster.md)");
    /* A single server needs none, and has none. */
    LOAD_OK(&c, "--port", "1");
    assert_int_equal(c.cluster_key_len, 0);
}

static void test_secret_file(void **state)
{
    (void)state;
    thue_config c;
    char err[ERR_SIZE];
    /* openssl rand -hex 32 > FILE: 64 characters and a newline, which is not part of it. */
    char *path = temp_file(SECRET64 "\n");
    assert_int_equal(load_node(&c, err, (const char *const[]){"--cluster-secret-file", path,
                                                                NULL}),
                     0);
    assert_int_equal(c.cluster_key_len, 64);
    assert_memory_equal(c.cluster_key, SECRET64, 64);
    assert_string_equal(c.cluster_secret_file, path);

    /* The same through the environment and the config file. */
    assert_int_equal(setenv("THUE_CLUSTER_SECRET_FILE", path, 1), 0);
    memset(&c, 0, sizeof c);
    assert_int_equal(load_node(&c, err, NULL), 0);
    assert_int_equal(c.cluster_key_len, 64);
    unsetenv("THUE_CLUSTER_SECRET_FILE");
    char json[512];
    snprintf(json, sizeof json, "{\"cluster-secret-file\": \"%s\"}", path);
    char *cfg = temp_file(json);
    memset(&c, 0, sizeof c);
    assert_int_equal(load_node(&c, err, (const char *const[]){"--config", cfg, NULL}), 0);
    assert_int_equal(c.cluster_key_len, 64);
    remove_temp(cfg);
    remove_temp(path);

    /* Binary bytes (head -c 32 /dev/urandom > FILE): every byte counts, NULs too; only
     * trailing newlines are left out. */
    unsigned char raw[34];
    for (int i = 0; i < 32; i++)
        raw[i] = (unsigned char)(i * 37);
    raw[32] = '\r';
    raw[33] = '\n';
    path = temp_bytes(raw, sizeof raw);
    assert_int_equal(load_node(&c, err, (const char *const[]){"--cluster-secret-file", path,
                                                                NULL}),
                     0);
    assert_int_equal(c.cluster_key_len, 32);
    assert_memory_equal(c.cluster_key, raw, 32);
    remove_temp(path);

    /* The longest: 4096 bytes. */
    unsigned char big[4097];
    memset(big, 'k', sizeof big);
    path = temp_bytes(big, 4096);
    assert_int_equal(load_node(&c, err, (const char *const[]){"--cluster-secret-file", path,
                                                                NULL}),
                     0);
    assert_int_equal(c.cluster_key_len, 4096);
    remove_temp(path);
}

static void test_secret_file_errors(void **state)
{
    (void)state;
    thue_config c;
    char err[ERR_SIZE], want[ERR_SIZE];

    /* Too short: 31 bytes (and a newline). */
    char *path = temp_file("0123456789012345678901234567890\n");
    assert_int_equal(load_node(&c, err, (const char *const[]){"--cluster-secret-file", path,
                                                                NULL}),
                     -1);
    snprintf(want, sizeof want,
             "--cluster-secret-file: %s holds 31 bytes: a cluster secret is at least 32 (make "
             "one with `openssl rand -hex 32 > FILE`, mode 600)",
             path);
    assert_string_equal(err, want);
    /* The message names the file, never its content. */
    assert_null(strstr(err, "0123456789"));
    remove_temp(path);

    /* Empty. */
    path = temp_file("");
    assert_int_equal(setenv("THUE_CLUSTER_SECRET_FILE", path, 1), 0);
    assert_int_equal(load_node(&c, err, NULL), -1);
    snprintf(want, sizeof want,
             "THUE_CLUSTER_SECRET_FILE: %s holds 0 bytes: a cluster secret is at least 32 "
             "(make one with `openssl rand -hex 32 > FILE`, mode 600)",
             path);
    assert_string_equal(err, want);
    unsetenv("THUE_CLUSTER_SECRET_FILE");
    remove_temp(path);

    /* Too long: 4097 bytes. */
    unsigned char big[4097];
    memset(big, 'k', sizeof big);
    path = temp_bytes(big, sizeof big);
    assert_int_equal(load_node(&c, err, (const char *const[]){"--cluster-secret-file", path,
                                                                NULL}),
                     -1);
    snprintf(want, sizeof want,
             "--cluster-secret-file: %s holds more than 4096 bytes: a cluster secret's file "
             "holds the secret only",
             path);
    assert_string_equal(err, want);
    remove_temp(path);

    /* Missing, a directory, an empty name. */
    assert_int_equal(load_node(&c, err, (const char *const[]){"--cluster-secret-file",
                                                                "/nonexistent/secret", NULL}),
                     -1);
    assert_string_equal(err, "--cluster-secret-file: cannot read the cluster secret's file "
                             "/nonexistent/secret: No such file or directory");
    assert_int_equal(
        load_node(&c, err, (const char *const[]){"--cluster-secret-file", "/tmp", NULL}), -1);
    assert_string_equal(err, "--cluster-secret-file: /tmp is not a regular file");
    LOAD_ERR("--cluster-secret-file: the value is empty", "--cluster-secret-file=");

    /* Checked without --redis too (a node started alone first, joined later). */
    path = temp_file("short");
    snprintf(want, sizeof want,
             "--cluster-secret-file: %s holds 5 bytes: a cluster secret is at least 32 (make "
             "one with `openssl rand -hex 32 > FILE`, mode 600)",
             path);
    LOAD_ERR(want, "--port", "1", "--cluster-secret-file", path);
    remove_temp(path);
}

static void test_secret_text(void **state)
{
    (void)state;
    thue_config c;
    char err[ERR_SIZE];
    /* THUE_CLUSTER_SECRET: the text's bytes. */
    assert_int_equal(setenv("THUE_CLUSTER_SECRET", SECRET64, 1), 0);
    assert_int_equal(load_node(&c, err, NULL), 0);
    assert_int_equal(c.cluster_key_len, 64);
    assert_memory_equal(c.cluster_key, SECRET64, 64);

    /* Both ways at once: refused, the text's value hidden. */
    char *path = temp_file(SECRET64);
    assert_int_equal(load_node(&c, err, (const char *const[]){"--cluster-secret-file", path,
                                                                NULL}),
                     -1);
    char want[ERR_SIZE];
    snprintf(want, sizeof want,
             "cluster-secret-file (\"%.40s%s\", from --cluster-secret-file) and cluster-secret "
             "(hidden, from THUE_CLUSTER_SECRET) are both set: give the cluster secret one way "
             "only",
             path, strlen(path) > 40 ? "..." : "");
    assert_string_equal(err, want);
    assert_null(strstr(err, SECRET64));
    remove_temp(path);

    /* Too short. */
    assert_int_equal(setenv("THUE_CLUSTER_SECRET", "short secret", 1), 0);
    assert_int_equal(load_node(&c, err, NULL), -1);
    assert_string_equal(err, "THUE_CLUSTER_SECRET: the cluster secret is 12 bytes: it must be at "
                             "least 32 (make one with `openssl rand -hex 32`)");
    assert_null(strstr(err, "short secret"));
    unsetenv("THUE_CLUSTER_SECRET");

    /* In the config file. */
    char *cfg = temp_file("{\"cluster-secret\": \"" SECRET64 "\"}");
    assert_int_equal(load_node(&c, err, (const char *const[]){"--config", cfg, NULL}), 0);
    assert_int_equal(c.cluster_key_len, 64);
    remove_temp(cfg);

    /* Never as a flag: ps and /proc/PID/cmdline would show it. */
    LOAD_ERR("--cluster-secret: a flag shows in ps and /proc/PID/cmdline; give the cluster "
             "secret in a file (--cluster-secret-file FILE), in THUE_CLUSTER_SECRET or in the "
             "config file",
             "--cluster-secret", SECRET64);
    LOAD_ERR("--cluster-secret: a flag shows in ps and /proc/PID/cmdline; give the cluster "
             "secret in a file (--cluster-secret-file FILE), in THUE_CLUSTER_SECRET or in the "
             "config file",
             "--port", "1", "--cluster-secret=" SECRET64);
}

/* The help and the operator's guide document both. */
static void test_secret_documented(void **state)
{
    (void)state;
    assert_non_null(strstr(thue_config_usage, "\n  --cluster-secret-file FILE "));
    assert_non_null(strstr(thue_config_usage, "THUE_CLUSTER_SECRET"));
    FILE *f = fopen(THUE_SERVER_DOC, "rb");
    assert_non_null(f);
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    doc[n] = '\0';
    fclose(f);
    const char *rows[] = {
        "| `--cluster-secret-file FILE` | `THUE_CLUSTER_SECRET_FILE` | `cluster-secret-file` | ",
        "| `--cluster-secret TEXT` | `THUE_CLUSTER_SECRET` | `cluster-secret` | ",
    };
    for (size_t i = 0; i < 2; i++)
        if (strstr(doc, rows[i]) == NULL)
            fail_msg("docs/server.md has no row %s", rows[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_secret_required, setup),
        cmocka_unit_test_setup(test_secret_file, setup),
        cmocka_unit_test_setup(test_secret_file_errors, setup),
        cmocka_unit_test_setup(test_secret_text, setup),
        cmocka_unit_test_setup(test_secret_documented, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
