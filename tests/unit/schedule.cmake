# The tournament scheduler (server/ladder/schedule.c): round robin, Swiss, standings.
thue_unit_test(test_schedule test_schedule.c)
target_link_libraries(test_schedule PRIVATE thue_ladder)
