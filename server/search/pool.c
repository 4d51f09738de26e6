/* pool.c: placeholder until the pool lands. */
#include "search/pool.h"

#include "engine/errors.h"

thue_pool *thue_pool_new(uv_loop_t *loop, int threads)
{
    (void)loop;
    (void)threads;
    return NULL;
}

int thue_pool_submit(thue_pool *pool, const thue_job_request *req, uint64_t *id)
{
    (void)pool;
    (void)req;
    (void)id;
    return THUE_EINVAL;
}

int thue_pool_cancel(thue_pool *pool, uint64_t id)
{
    (void)pool;
    (void)id;
    return THUE_EINVAL;
}

void thue_pool_stats_get(thue_pool *pool, thue_pool_stats *out)
{
    (void)pool;
    (void)out;
}

void thue_pool_close(thue_pool *pool, void (*closed)(void *data), void *data)
{
    (void)pool;
    if (closed)
        closed(data);
}
