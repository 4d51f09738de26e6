/*
 * config_helpers.c: the settings tests' shared helpers (config_helpers.h).
 */
#include "config_helpers.h"

extern char **environ;

/* ---- helpers ---- */

void clear_thue_env(void)
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

int setup(void **state)
{
    (void)state;
    clear_thue_env();
    return 0;
}

/* thue_config_load with argv = {"thue-server", args..., NULL}; args ends with NULL. */
int load_list(thue_config *c, char *err, const char *const *args)
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

/* A temporary file holding text; returns its path (free it, and unlink the file). */
char *temp_file(const char *text)
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

void remove_temp(char *path)
{
    unlink(path);
    free(path);
}

/* Expects the config file holding text to fail with "PATH" + suffix. */
void expect_file_error(const char *text, const char *suffix)
{
    char *path = temp_file(text);
    char want[ERR_SIZE];
    snprintf(want, sizeof want, "%s%s", path, suffix);
    LOAD_ERR(want, "--config", path);
    remove_temp(path);
}

/* Every setting of config.h, with its documented range. */
const tsetting tsettings[] = {
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
    TINT("bot-seats-per-ip", bot_seats_per_ip, 1, 100000, "5"),
    TINT("guest-bot-vs-bot", guest_bot_vs_bot, 0, 1, "1"),
    TINT("max-rooms", max_rooms, 1, 1000000, "33"),
    TINT("room-rate-per-ip", room_rate_per_ip, 1, 1000000, "7"),
    TINT("max-tournaments", max_tournaments, 1, 100000, "12"),
    TINT("tournaments-per-account", tournaments_per_account, 1, 1000, "2"),
    TINT("tournaments-per-ip", tournaments_per_ip, 1, 100000, "4"),
    TINT("tournament-rate", tournament_rate, 1, 100000, "5"),
    TINT("tournament-expire-s", tournament_expire_s, 1, 2592000, "120"),
    TINT("claims-per-ip", claims_per_ip, 1, 100000, "3"),
    TINT("password-ops", password_ops, 1, 20, "3"),
    TINT("password-mem-mib", password_mem_mib, 1, 4096, "16"),
    TINT("password-jobs", password_jobs, 1, 64, "4"),
    TINT("login-fails-per-ip", login_fails_per_ip, 1, 100000, "50"),
    TINT("login-fails-per-name", login_fails_per_name, 1, 100000, "7"),
    TINT("rated-min-moves", rated_min_moves, 0, 1000, "4"),
    TINT("rated-pair-max", rated_pair_max, 1, 100000, "9"),
    TINT("max-analyses", max_analyses, 1, 100000, "8"),
    TINT("analysis-iterations-max", analysis_iterations_max, 1, 1000000000, "5000"),
    TINT("analysis-tree-nodes", analysis_tree_nodes, 1000, 16777216, "20000"),
    TINT("analyses-per-owner", analyses_per_owner, 1, 100000, "3"),
    TINT("analyses-per-ip", analyses_per_ip, 1, 100000, "6"),
    TINT("analysis-seconds-max", analysis_seconds_max, 1, 86400, "30"),
    TINT("analysis-tree-max-kib", analysis_tree_max_kib, 16, 1048576, "512"),
    TINT("search-moves-max", search_moves_max, 1000, 10000000, "5000"),
    TINT("search-mem-mib", search_mem_mib, 1, 1048576, "32"),
    TINT("owner-search-mem-mib", owner_search_mem_mib, 1, 1048576, "100"),
    TINT("search-mem-total-mib", search_mem_total_mib, 1, 1048576, "500"),
    TREAL("glicko-tau", glicko_tau, "0.2..1.2", "0.7"),
    TSTR("trusted-proxy", trusted_proxy, "10.0.0.1"),
    TINT("request-timeout-s", request_timeout_s, 1, 3600, "20"),
    TINT("api-rate", api_rate, 1, 100000, "5"),
    TINT("api-burst", api_burst, 1, 1000000, "7"),
};

const size_t ntsettings = sizeof tsettings / sizeof tsettings[0];

void env_name(const tsetting *s, char *buf, size_t size)
{
    snprintf(buf, size, "THUE_%s", s->name);
    for (char *p = buf; *p != '\0'; p++)
        *p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
}

/* Expects c's tau to be exactly want. */
void check_tau(const thue_config *c, double want)
{
    if (!(c->glicko_tau == want))
        fail_msg("glicko_tau %.17g, expected %.17g", c->glicko_tau, want);
}
