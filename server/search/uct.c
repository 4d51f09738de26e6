/* uct.c: placeholder until the UCT bot lands. */
#include "search/uct.h"

#include "engine/errors.h"
#include "search/bot_internal.h"

void thue__uct_run(thue_bot_search *s, int p, thue__ctl *ctl)
{
    (void)s;
    (void)p;
    (void)ctl;
}

void thue__uct_choose(thue_bot_search *s, thue_bot_result *out)
{
    thue__greedy_choose(s, out);
    out->exact = 0;
}

void thue__uct_tree_free(void *tree)
{
    (void)tree;
}

int thue_uct_export_tree(const thue_bot_search *s, FILE *f, thue_tree_format format)
{
    (void)s;
    (void)f;
    (void)format;
    return THUE_EINVAL;
}
