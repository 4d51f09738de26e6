# The tournament scheduler (server/ladder/schedule.c): round robin, Swiss, standings.
foreach(t test_schedule_round_robin test_schedule_swiss test_schedule_swiss_random
          test_schedule_standings)
  thue_unit_test(${t} ${t}.c schedule_helpers.c)
  target_link_libraries(${t} PRIVATE thue_ladder)
endforeach()
