/*
 * test_config_docs.c: the settings' texts (server/config.h): --help and --version, the
 * usage text, the operator guide (docs/server.md documents every setting), and the CPUs a
 * cgroup allows.
 */
#include "config_helpers.h"

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
        cmocka_unit_test_setup(test_help_and_version, setup),
        cmocka_unit_test_setup(test_usage_text, setup),
        cmocka_unit_test_setup(test_operator_guide, setup),
        cmocka_unit_test(test_cgroup_cpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
