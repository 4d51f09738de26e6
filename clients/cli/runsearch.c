/* runsearch.c: running a bot search on the calling thread or split over threads. */
#include <stdlib.h>

#include <uv.h>

#include "cli.h"

typedef struct part_arg {
    thue_bot_search *s;
    int part;
    const thue_bot_limits *limits;
} part_arg;

static void run_part(void *arg)
{
    part_arg *a = arg;
    thue_bot_search_run_part(a->s, a->part, a->limits);
}

int cli_bot_move(const thue_bot_spec *spec, const thue_position *pos, const thue_bot_limits *limits,
                 uint64_t seed, int threads, thue_bot_result *out, thue_bot_search **keep)
{
    int err;
    thue_bot_search *s = thue_bot_search_new(spec, pos, seed, threads, &err);
    if (s == NULL)
        return err;
    int parts = thue_bot_search_parts(s);
    uv_thread_t tid[THUE_BOT_PARTS_MAX];
    part_arg args[THUE_BOT_PARTS_MAX];
    int started = 0;
    for (int p = 1; p < parts; p++) {
        args[p] = (part_arg){s, p, limits};
        if (uv_thread_create(&tid[p], run_part, &args[p]) != 0)
            break;
        started = p;
    }
    /* Parts whose thread could not start run here, after part 0. */
    thue_bot_search_run_part(s, 0, limits);
    for (int p = started + 1; p < parts; p++)
        thue_bot_search_run_part(s, p, limits);
    for (int p = 1; p <= started; p++)
        uv_thread_join(&tid[p]);
    err = thue_bot_search_finish(s, out);
    if (keep != NULL && err == 0)
        *keep = s;
    else
        thue_bot_search_free(s);
    return err;
}

void cli_bot_spec(const char *cmd, const char *opt, const char *text, thue_bot_spec *out)
{
    char err[200];
    if (thue_bot_spec_parse(text, out, err, sizeof err) != 0)
        cli_usage_error(cmd, "--%s: bad bot spec '%s': %s", opt, text, err);
}
