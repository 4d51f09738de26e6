/* ladder_moved_hook.c: see ladder_moved_hook.h. */
#include "ladder_moved_hook.h"

#include "lobby/accounts.h"

int ladder_rate_pair(thue_lobby *l, thue_variant variant, int k, int64_t id0, double rating0,
                     int games0, int64_t id1, double rating1, int games1)
{
    const int64_t id[2] = {id0, id1};
    const double rating[2] = {rating0, rating1};
    const int games[2] = {games0, games1};
    account *a[2];
    pool_rating *p[2];
    thue_gopt gopt;
    pool_id pool;
    if (thue_game_thue_options(variant, k, THUE_LIMIT_DEFAULT, &gopt) != 0)
        return -1;
    pool_of(&thue_game_thue, &gopt, &pool);
    for (int s = 0; s < 2; s++) {
        for (a[s] = l->accounts; a[s] && a[s]->id != id[s]; a[s] = a[s]->next)
            ;
        if (a[s] == NULL || (p[s] = account_rating(a[s], &pool)) == NULL)
            return -1;
        p[s]->g.rating = rating[s];
        p[s]->games = games[s];
    }
    ladder_moved(l, &pool, a, p, 2);
    return 0;
}
