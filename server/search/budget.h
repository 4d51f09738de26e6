/*
 * budget.h: the memory that searches may take, budgeted three ways (docs/server.md,
 * "Bounded searches"): per search, per owner (the account, or a guest's address: the
 * pool's owner key) and in total.
 *
 * A search takes its big allocations (trees, tables, move buffers) from an account
 * (thue_mem) before it makes them and gives them back when it frees them. A take that
 * would pass any of the three limits is refused, nothing is counted, and the search
 * makes do: a tree stops growing (as at its node cap), a solver uses a smaller table or
 * gives up and plays the best answer it has. So what one user asks for never takes the
 * memory that the others' searches need, and the server's total stays under the flag
 * whatever is asked.
 *
 * Small allocations (a state, a path, a few kilobytes) are not counted: the budgets are
 * for what grows with the options and the time a search is given.
 *
 * A NULL account (the command line, tests) is unlimited: every take succeeds and
 * nothing is counted.
 *
 * Threads: thue_mem_budget_new/free and thue_mem_open on any one thread at a time (the
 * loop thread in the server); thue_mem_take/give/close from any thread (a search's
 * worker), lock-free but for the owner table's lock in open and close; the statistics
 * from any thread.
 */
#ifndef THUE_SEARCH_BUDGET_H
#define THUE_SEARCH_BUDGET_H

#include <stddef.h>
#include <stdint.h>

typedef struct thue_mem_budget thue_mem_budget;
typedef struct thue_mem thue_mem;

/* The three limits in bytes (each >= 1). */
typedef struct thue_mem_limits {
    uint64_t per_search, per_owner, total;
} thue_mem_limits;

/* A budget; NULL when out of memory or a limit is 0. */
thue_mem_budget *thue_mem_budget_new(const thue_mem_limits *lim);
/* Frees it; every account must be closed first. NULL: nothing. */
void thue_mem_budget_free(thue_mem_budget *b);

/*
 * An account for one search of `owner` (NULL or "": one shared owner), counted against
 * the owner's and the total limits. NULL when out of memory or b is NULL (then the
 * search is unlimited: callers treat a NULL account as such).
 */
thue_mem *thue_mem_open(thue_mem_budget *b, const char *owner);
/* Gives back whatever the account still holds and frees it. NULL: nothing. */
void thue_mem_close(thue_mem *m);

/*
 * Takes `bytes` for the search: 0 when every limit allows it (then counted), -1 when one
 * would be passed (nothing counted; the refusal is counted in the statistics). A NULL
 * account always gives 0.
 */
int thue_mem_take(thue_mem *m, size_t bytes);
/* Gives back `bytes` taken before. NULL: nothing. */
void thue_mem_give(thue_mem *m, size_t bytes);
/* The bytes the account holds now (0 for NULL). */
uint64_t thue_mem_held(const thue_mem *m);

typedef struct thue_mem_stats {
    thue_mem_limits limits;
    uint64_t used;       /* bytes held by every account now */
    uint64_t peak;       /* the most ever held at once */
    uint64_t owner_max;  /* the most one owner holds now */
    uint64_t refused[3]; /* takes refused by the search's, the owner's, the total limit */
    int accounts;        /* accounts open */
    int owners;          /* owners with an account open */
} thue_mem_stats;

/* A snapshot (each member read atomically; the set need not be consistent). */
void thue_mem_stats_get(thue_mem_budget *b, thue_mem_stats *out);

/* Which limit refused (the index of thue_mem_stats.refused). */
enum { THUE_MEM_SEARCH = 0, THUE_MEM_OWNER = 1, THUE_MEM_TOTAL = 2 };

#endif
