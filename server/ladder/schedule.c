/* schedule.c: the tournament schedulers (being written). */
