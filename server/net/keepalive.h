/*
 * keepalive.h: a hashed timer wheel for the WebSocket connections' keep-alive and close
 * deadlines (keepalive.c). Each connection owns one entry with one due time; scheduling,
 * moving and cancelling an entry are O(1), and advancing the wheel costs the ticks that
 * passed plus the entries it looks at in their slots. No allocation: entries live inside
 * their owners.
 *
 * It replaces libwebsockets 4.1's validity timers, which keep one sorted list for every
 * connection and re-insert into it on every pong (O(connections) per pong).
 *
 * Times are milliseconds on any monotonic clock (uv_now). An entry fires at the first
 * advance whose `now` is at or past its due time rounded up to the next tick. Loop thread
 * only; no locks.
 */
#ifndef THUE_SERVER_NET_KEEPALIVE_H
#define THUE_SERVER_NET_KEEPALIVE_H

#include <stddef.h>
#include <stdint.h>

#define THUE_KA_SLOTS 1024 /* a power of two */

typedef struct thue_ka_entry {
    struct thue_ka_entry *prev, *next; /* in its list */
    struct thue_ka_entry **list;       /* that list's head: a slot, or the one being
                                          walked (NULL: not scheduled) */
    uint64_t due_tick;                 /* the tick it fires at */
} thue_ka_entry;

typedef struct thue_ka_wheel {
    thue_ka_entry *slots[THUE_KA_SLOTS];
    uint64_t tick_ms;    /* the wheel's resolution */
    uint64_t done_tick;  /* every tick up to this one has been handled */
    uint64_t min_tick;   /* during an advance: the first tick a (re)scheduled entry may have */
    size_t count;        /* entries scheduled */
    thue_ka_entry *walk; /* during an advance: the slot being walked, taken out */
} thue_ka_wheel;

/* An empty wheel of tick_ms (> 0) resolution; now_ms is the clock's reading now. */
void thue_ka_init(thue_ka_wheel *w, uint64_t tick_ms, uint64_t now_ms);
/* An entry that is not scheduled (zeroed memory is one too). */
void thue_ka_entry_init(thue_ka_entry *e);
/* Whether e is scheduled. */
int thue_ka_scheduled(const thue_ka_entry *e);
/* Schedules e (borrowed until it fires or is cancelled) at due_ms, moving it if it was
 * scheduled already. A due time in the past fires at the next advance. */
void thue_ka_schedule(thue_ka_wheel *w, thue_ka_entry *e, uint64_t due_ms);
/* Unschedules e (a no-op when it is not scheduled). */
void thue_ka_cancel(thue_ka_wheel *w, thue_ka_entry *e);
/*
 * Fires every entry due at or before now_ms: each is unscheduled, then fire(e, arg) is
 * called, in no particular order among entries of one tick. fire may schedule or cancel
 * any entry, e included (one scheduled again for a tick already passed fires at the next
 * advance, not in this one). Returns the number fired.
 */
size_t thue_ka_advance(thue_ka_wheel *w, uint64_t now_ms, void (*fire)(thue_ka_entry *e, void *arg),
                       void *arg);

#endif
