/*
 * keepalive.c: the hashed timer wheel of keepalive.h.
 *
 * THUE_KA_SLOTS lists, one per tick modulo the slot count; an entry sits in the slot of
 * its due tick, however many turns of the wheel away that is. Advancing walks each tick
 * that passed and fires the entries of its slot whose due tick has come; entries due on
 * a later turn stay. With a tick of 100 ms a turn is 102 s, so an entry that waits (a
 * keep-alive entry is due within ping-s or idle-s) is looked at about once per turn:
 * the cost per connection is O(1) per event and O(wait / turn) in all, whatever the
 * number of other connections.
 *
 * Each entry records the head of the list it is in, so that a callback may cancel or
 * move any entry, even one of the slot being walked: the walk first takes the slot's
 * whole list out (w->walk) and pops from it.
 */
#include "net/keepalive.h"

#include <assert.h>
#include <string.h>

#define SLOT(t) ((size_t)((t) & (THUE_KA_SLOTS - 1)))

void thue_ka_init(thue_ka_wheel *w, uint64_t tick_ms, uint64_t now_ms)
{
    assert(tick_ms > 0);
    memset(w, 0, sizeof *w);
    w->tick_ms = tick_ms;
    w->done_tick = now_ms / tick_ms;
}

void thue_ka_entry_init(thue_ka_entry *e)
{
    memset(e, 0, sizeof *e);
}

int thue_ka_scheduled(const thue_ka_entry *e)
{
    return e->list != NULL;
}

static void push(thue_ka_entry **list, thue_ka_entry *e)
{
    e->list = list;
    e->prev = NULL;
    e->next = *list;
    if (e->next)
        e->next->prev = e;
    *list = e;
}

static void unlink_entry(thue_ka_wheel *w, thue_ka_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        *e->list = e->next;
    if (e->next)
        e->next->prev = e->prev;
    e->prev = e->next = NULL;
    e->list = NULL;
    w->count--;
}

void thue_ka_schedule(thue_ka_wheel *w, thue_ka_entry *e, uint64_t due_ms)
{
    if (e->list)
        unlink_entry(w, e);
    /* rounded up: an entry never fires before its time */
    uint64_t t = due_ms / w->tick_ms + (due_ms % w->tick_ms != 0);
    if (t <= w->done_tick)
        t = w->done_tick + 1;
    if (t < w->min_tick)
        t = w->min_tick;
    e->due_tick = t;
    push(&w->slots[SLOT(t)], e);
    w->count++;
}

void thue_ka_cancel(thue_ka_wheel *w, thue_ka_entry *e)
{
    if (e->list)
        unlink_entry(w, e);
}

size_t thue_ka_advance(thue_ka_wheel *w, uint64_t now_ms, void (*fire)(thue_ka_entry *e, void *arg),
                       void *arg)
{
    uint64_t now_tick = now_ms / w->tick_ms;
    if (now_tick <= w->done_tick)
        return 0;
    size_t fired = 0;
    /* Entries (re)scheduled by fire land after now: never fired twice in one advance. */
    w->min_tick = now_tick + 1;
    /* After a long pause (a stopped process, a slow machine) one turn covers every slot. */
    uint64_t last = now_tick;
    if (now_tick - w->done_tick > THUE_KA_SLOTS)
        last = w->done_tick + THUE_KA_SLOTS;
    for (uint64_t t = w->done_tick + 1; t <= last && w->count > 0; t++) {
        thue_ka_entry **slot = &w->slots[SLOT(t)];
        w->walk = *slot;
        *slot = NULL;
        for (thue_ka_entry *e = w->walk; e; e = e->next)
            e->list = &w->walk;
        while (w->walk) {
            thue_ka_entry *e = w->walk;
            unlink_entry(w, e);
            if (e->due_tick <= now_tick) {
                fired++;
                fire(e, arg);
            } else {
                push(slot, e); /* a later turn's */
                w->count++;
            }
        }
    }
    w->done_tick = now_tick;
    w->min_tick = 0;
    return fired;
}
